"""What the bill takes from published sources beyond GPU time: the non-compute lines' defaults,
public data-licensing deals, dated accelerator prices, and the check against Epoch AI's cost
decomposition.

* **Published defaults** (``data/ledger_defaults.csv``, used when a scenario sets
  ``ledger_published_defaults: true`` and gives no value of its own), each scaled by what drives
  it:

  - annotation = (preference comparisons + SFT demonstrations) × $ per item: Llama 2's 1,418,091
    comparisons and 27,540 demonstrations (Touvron et al. 2023, arXiv:2307.09288, Table 6 and
    §3.1) × $0.30 (AlpacaEval's human annotators, $300 per 1,000 pairwise preferences): a lower
    bound, the one per-item price a paper publishes;
  - data processing = training tokens × 4.0e-10 H100-h per token (FineWeb's quality classifier
    pass, 6,000 H100-h on 15T tokens, Penedo et al. 2024, arXiv:2406.17557 §4) × the bill's
    GPU-hour price: a lower bound (CPU stages not published);
  - benchmark runs = one HELM-scale suite run, 12.2B tokens / 30 models = 4.07e8 tokens (Liang
    et al. 2022, arXiv:2211.09110), priced as served tokens;
  - human evaluation = 18,579 generation pairs × 3 raters (Llama 2 §3.4.2 and Table 32: ~4,000
    prompts rated against each of five comparison models) × $0.30 per rating: a lower bound.

  Lines without a public source (licensing, synthetic data, staff headcount) stay "not given"
  and say which sources were searched (``NOT_PUBLISHED``).
* **Hardware over time** (``data/hardware_price_series.csv``): dated purchase and on-demand
  prices per generation (V100, A100, H100), their dense peak FLOP/s per dollar, the
  price-performance trend in orders of magnitude per year, and a bill re-priced on that trend.
* **Epoch's decomposition** (Cottier et al. 2024, arXiv:2405.21015 §1 and §3.5): hardware 47-64 %
  (Epoch's blog post of the paper says 47-67 %), R&D staff 29-49 %, energy 2-6 % of the amortised development cost of GPT-3, OPT-175B, GPT-4 and Gemini
  Ultra; ``epoch_decomposition`` puts an owned-pricing bill beside those ranges.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..core.catalog import DATA_DIR, as_accelerator
from .pricing import default, default_range, default_rows, owned_usd_per_gpu_hour
from .scenario import point_scenario

#: Lines for which no public default exists, and the sources searched for one (shown in the bill).
NOT_PUBLISHED = {
    "data.licensing": (
        "no public default: Meta's model cards describe Llama 3's pre-training data as 'publicly "
        "available sources' (the paper, arXiv:2407.21783 §3.1, only 'a variety of data sources') "
        "and no licence fee. Public deals, for scale "
        "(data/data_licensing_deals.csv): {deals}. Searched: Llama 2/3 papers and model "
        "cards, Reddit's S-1, press reports of OpenAI's and Google's publisher deals"),
    "data.synthetic": (
        "no public default: Llama 3's paper describes synthetic SFT data for code, math, "
        "long context and tool use (arXiv:2407.21783 §4.3) without token counts; the Llama 3.1 "
        "model card counts 'over 25M synthetically generated examples' in the fine-tuning data, "
        "tokens per example not given. Searched: the Llama 3 paper and model cards and the "
        "Nemotron-4 340B report (arXiv:2406.11704: over 98% of its "
        "alignment data synthetic, no generated-token count)"),
    "people.staff": (
        "no public default headcount: model papers list contributors (GPT-4's contribution "
        "list is transcribed in Epoch AI's training-cost-trends repository) but not FTE-months "
        "per role. Give ledger_contributors (the paper's author count) for Epoch's rule, a "
        "log-normal FTE per contributor, median 0.2 (Cottier et al. 2024 §2.5 and its code), "
        "or ledger_people. "
        "Searched: Llama 2/3 papers, Cottier et al. 2024 and its code"),
}

#: Cottier et al. 2024 (arXiv:2405.21015 §1 and §3.5, its development-cost breakdown): shares of
#: the amortised development cost of GPT-3, OPT-175B, GPT-4 and Gemini Ultra, (low, high). The
#: paper gives hardware 47-64 %; Epoch's blog post of it says 47-67 % (their notebook's medians:
#: 47-65 %).
EPOCH_SHARES = {"hardware": (0.47, 0.64), "staff": (0.29, 0.49), "energy": (0.02, 0.06)}
EPOCH_SOURCE = ("Cottier et al. 2024, The rising costs of training frontier AI models, "
                "arXiv:2405.21015 §3.5: hardware 47-64 %, R&D staff 29-49 % (equity included), "
                "energy 2-6 % of the amortised development cost of GPT-3, OPT-175B, GPT-4 and "
                "Gemini Ultra (Epoch's blog post says hardware 47-67 %)")


def range_text(key: str) -> str:
    """A default with its range, date and first author: '55,737 (published low 12,000, no
    published high; 2023-07; Touvron et al. 2023)', or '(a single published figure; ...)'."""
    value, low, high = default_range(key)
    row = default_rows()[key]
    if low is None and high is None:
        rng = "a single published figure"
    elif high is None:  # an audit read "55,737 (the low end, 12,000 ...)" as 55,737 the low
        rng = f"published low {_figure(low)}, no published high"
    elif low is None:
        rng = f"published high {_figure(high)}, no published low"
    else:
        rng = f"range {_figure(low)}-{_figure(high)}"
    return f"{_figure(value)} ({rng}; {row['date']}; {row['source'].split(',')[0]})"


def _figure(x: float) -> str:
    """A published figure as its source gives it: whole numbers from 1,000 up with separators
    ("1,418,091" comparisons, "407,000,000" tokens, where ``:g`` wrote "1.41809e+06"), any
    other as ``:g`` ("0.3", "1.19", "4e-10": no digits the source does not have)."""
    return f"{x:,.0f}" if abs(x) >= 1000 and float(x).is_integer() else f"{x:g}"


# ------------------------------------------------------------------------------ defaults
def annotation_items() -> float:
    """Human annotation items of a frontier post-training run: Llama 2's 1,418,091 preference
    comparisons + 27,540 SFT demonstrations (arXiv:2307.09288, Table 6 and §3.1)."""
    return default("preference_comparisons") + default("sft_demonstrations")


def annotation_usd() -> float:
    """USD = (comparisons + demonstrations) × $ per comparison (a lower bound: demonstrations
    and multi-turn comparisons cost more per item than AlpacaEval's $0.30)."""
    return annotation_items() * default("usd_per_preference_comparison")


def processing_gpu_hours(train_tokens):
    """GPU-hours of data processing = training tokens × 4.0e-10 H100-h per token (FineWeb's
    classifier pass, Penedo et al. 2024 §4: 6,000 H100-h / 15e12 tokens). A lower bound."""
    return np.asarray(train_tokens, dtype=float) * default("data_processing_gpu_hours_per_token") \
        if np.ndim(train_tokens) else float(train_tokens) * default(
            "data_processing_gpu_hours_per_token")


def human_eval_usd() -> float:
    """USD = Llama 2's 55,737 helpfulness ratings (18,579 generation pairs in Table 32 × 3 raters,
    §3.4.2) × $ per rating."""
    return default("human_eval_ratings") * default("usd_per_preference_comparison")


def licensing_deals() -> pd.DataFrame:
    """``data/data_licensing_deals.csv``: dated public data-licensing deals with licensee,
    licensor, reported sum, years, USD per year, basis and source."""
    return pd.read_csv(DATA_DIR / "data_licensing_deals.csv")


def licensing_text() -> str:
    """The public deals as one sentence for the licensing line."""
    d = licensing_deals()
    return "; ".join(f"{r.licensor} → {r.licensee} ({r.date}): ${r.usd / 1e6:,.0f}M over "
                     f"{r.years:g} yr (${r.usd_per_year / 1e6:,.0f}M/yr)" for r in d.itertuples())


def not_published(key: str) -> str:
    """The 'not given' note of a line without a public default: the sources searched."""
    if key not in NOT_PUBLISHED:
        raise ValueError(f"key={key!r} must be one of {', '.join(NOT_PUBLISHED)}")
    return NOT_PUBLISHED[key].format(deals=licensing_text())


# ------------------------------------------------------------------------------ hardware prices
def hardware_price_series() -> pd.DataFrame:
    """``data/hardware_price_series.csv`` with ``year`` (decimal) and ``flops_per_usd``: dense
    peak FLOP/s per dollar of purchase price, or per $/GPU-hour of on-demand rent."""
    d = pd.read_csv(DATA_DIR / "hardware_price_series.csv")
    dt = pd.to_datetime(d["date"], format="%Y-%m")
    d["year"] = dt.dt.year + (dt.dt.month - 0.5) / 12.0
    d["flops_per_usd"] = d["peak_dense_flops_per_s"] / d["usd"]
    return d


def price_performance_trend(kind: str = "purchase") -> dict:
    """The trend of dense peak FLOP/s per dollar across generations, in orders of magnitude
    (OOM) per year: a least-squares line through log10(FLOP/s per $) against the date,

        r = d log10(FLOP/s per $) / d year,

    with the range spanned by consecutive generations' rates (low, high). ``kind`` is
    ``"purchase"`` (acquisition prices) or ``"rent_on_demand"`` (the first on-demand listing of
    each generation). Epoch AI's rate for ML GPUs is 0.14 OOM/year (Cottier et al. 2024 §2.2,
    ``depreciation_ooms_per_year``), measured at FP32 over many GPUs; this series uses each
    generation's dense 16-bit tensor peak, a different quantity (the paper's footnote 2: tensor
    formats would make the rate faster), so the two are compared as orders of magnitude only.
    Here it is slower, not faster: 0.097 OOM/year on purchase prices (V100 → A100 0.129,
    A100 → H100 0.077) and 0.060 on rent (0.012-0.090), computed from
    ``data/hardware_price_series.csv``. Three points only, V100 (2018) to H100 (2023): the
    V100 is already a tensor-core GPU, so the step to tensor formats lies before the series
    starts, while each generation's price rose ($11,458, $15,000, $27,500), the H100's and its
    first AWS listing ($12.29/GPU-h against the A100's $4.10) at a shortage premium.

    Returns
    -------
    dict with ``ooms_per_year``, ``low``, ``high``, ``halving_years`` (of the cost of a FLOP)
    and ``n_points``.
    """
    if kind not in ("purchase", "rent_on_demand"):
        raise ValueError(f"kind={kind!r} must be 'purchase' or 'rent_on_demand'")
    d = hardware_price_series()
    d = d[d["kind"] == kind].sort_values("year")
    first = d.groupby("accelerator", sort=False).head(1) if kind == "rent_on_demand" else d
    first = first.sort_values("year")
    y, x = np.log10(first["flops_per_usd"].to_numpy()), first["year"].to_numpy()
    slope = float(np.polyfit(x, y, 1)[0])
    pair = np.diff(y) / np.diff(x)
    return {"ooms_per_year": slope, "low": float(pair.min()), "high": float(pair.max()),
            "halving_years": math.log10(2.0) / slope, "n_points": len(first)}


def cost_after(usd, years, ooms_per_year):
    """The cost of the same FLOPs ``years`` later if price-performance improves at
    ``ooms_per_year``: usd × 10^(−r × years) (MFU and the FLOP count unchanged)."""
    if np.any(np.asarray(years) < 0):
        raise ValueError(f"years={years!r} must be >= 0")
    return usd * 10.0 ** (-np.asarray(ooms_per_year) * np.asarray(years))


def gpu_hour_usd(bill) -> float:
    """The part of a bill priced per GPU-hour (compute, post-training, processing, synthetic
    data, benchmark runs): what a cheaper FLOP makes cheaper."""
    prefixes = ("compute.", "post.", "data.processing", "data.synthetic", "eval.benchmarks")
    return float(sum(ln.usd or 0.0 for ln in bill.lines if ln.key.startswith(prefixes)))


def forecast_trend_kind(bill) -> str:
    """The price trend that re-prices a bill's GPU-hours (``repriced_forecast``): an owned
    cluster's hours on the purchase prices ("purchase", what buying the next cluster costs),
    a rented one's (on-demand, reserved, spot) on the rent of each generation's first
    on-demand listing ("rent_on_demand": a teacher's trial found a rented bill re-priced on the
    purchase trend, 0.097 OOM/year, where the rent trend, 0.060, applies)."""
    return "purchase" if bill.figures.get("pricing") == "owned" else "rent_on_demand"


def repriced_forecast(bill, years=(0, 1, 2, 3), kind: str | None = None) -> pd.DataFrame:
    """The bill's GPU-hour lines re-priced ``years`` ahead on the price-performance trend
    (``price_performance_trend`` of ``kind``; None: the bill's pricing, ``forecast_trend_kind``),
    its range from the slowest to the fastest generation step, beside Epoch's 0.14 OOM/year;
    the other lines held fixed. Each line after y years: cost × 10^(−r·y), r the trend's OOM
    per year (``cost_after``).

    Returns
    -------
    DataFrame with ``years``, ``gpu_usd_trend``, ``gpu_usd_low`` (fastest improvement),
    ``gpu_usd_high`` (slowest), ``gpu_usd_epoch`` and ``total_usd_trend``.
    """
    kind = forecast_trend_kind(bill) if kind is None else kind
    t = price_performance_trend(kind)
    g = gpu_hour_usd(bill)
    rest = bill.total_usd - g
    rows = []
    for yr in years:
        rows.append({"years": yr, "gpu_usd_trend": float(cost_after(g, yr, t["ooms_per_year"])),
                     "gpu_usd_low": float(cost_after(g, yr, max(t["high"], 0.0))),
                     "gpu_usd_high": float(cost_after(g, yr, max(t["low"], 0.0))),
                     "gpu_usd_epoch": float(cost_after(g, yr,
                                                       default("depreciation_ooms_per_year"))),
                     "total_usd_trend": rest + float(cost_after(g, yr, t["ooms_per_year"]))})
    out = pd.DataFrame(rows)
    out.attrs.update(trend=t, kind=kind)
    return out


def acquisition_vs_amortised(bill) -> dict:
    """What buying the cluster costs against what the run is charged for it (Epoch's method):

        acquisition = n_gpus × price × s / (1 − 0.19)
        amortised   = all GPU-hours × price × s / (1 − 0.19) × 0.14·ln 10 / 8,766 h

    s the server cost multiplier (``pricing.server_cost_multiplier``: 1.66 for an A100, 1.64
    otherwise). Both on the accelerator's purchase price (``ledger_owned_usd_per_gpu`` or the
    H100 default). Returns ``acquisition_usd``, ``amortised_usd`` and their ratio."""
    f, sc = bill.figures, point_scenario(bill.scenario or {})  # a range at its point
    gpu = as_accelerator(f["accelerator"])
    own = owned_usd_per_gpu_hour(gpu, sc.get("ledger_owned_usd_per_gpu"))
    cluster_per_gpu = float(own["cluster_usd_per_gpu"])
    acq = f["n_gpus"] * cluster_per_gpu
    amort = float(f["all_gpu_hours"]) * float(own["capex_usd_per_gpu_hour"])
    return {"acquisition_usd": acq, "amortised_usd": amort, "ratio": acq / amort,
            "cluster_usd_per_gpu": cluster_per_gpu}


# ------------------------------------------------------------------------------ Epoch's check
def epoch_decomposition(bill) -> pd.DataFrame:
    """The bill's hardware, staff and energy beside Cottier et al. 2024's shares.

        hardware = all GPU-hours × amortised capex per GPU-hour (``pricing.owned``)
        staff    = the people line;  energy = the electricity line
        share    = component / (hardware + staff + energy)

    Needs ``pricing: owned`` (their amortised basis). Lines outside the three (storage, data,
    annotation, reserves) are left out, as Cottier et al. leave them out.

    Raises
    ------
    ValueError
        A bill not priced as owned.
    """
    f = bill.figures
    if f.get("pricing") != "owned":
        raise ValueError(f"pricing={f.get('pricing')!r}: the Epoch comparison needs "
                         "pricing='owned' (their amortised-hardware basis)")
    gpu = as_accelerator(f["accelerator"])
    sc = point_scenario(bill.scenario or {})  # a ranged input at its point, as the bill's
    own = owned_usd_per_gpu_hour(gpu, sc.get("ledger_owned_usd_per_gpu"),
                                 sc.get("ledger_electricity_usd_per_kwh"), sc.get("ledger_pue"))
    usd = {"hardware": float(f["all_gpu_hours"]) * float(own["capex_usd_per_gpu_hour"]),
           "staff": float(bill.line("people.staff").usd or 0.0),
           "energy": float(bill.line("energy.electricity").usd or 0.0)}
    total = sum(usd.values())
    rows = [{"component": k, "usd": v, "share": v / total if total else float("nan"),
             "epoch_low": EPOCH_SHARES[k][0], "epoch_high": EPOCH_SHARES[k][1],
             "inside": EPOCH_SHARES[k][0] <= (v / total if total else -1) <= EPOCH_SHARES[k][1]}
            for k, v in usd.items()]
    out = pd.DataFrame(rows)
    out.attrs["source"] = EPOCH_SOURCE
    return out
