"""The whole bill of a training project: one ledger per scenario, every line of it.

``build_ledger(scenario)`` turns a scenario (the shared parameters of ``llmcost.scenario``) into a
``Ledger``: a list of ``Line``s whose amounts sum to the total, each with its category, phase,
whether it is fixed or elastic, how it was computed and where its figures come from. Notebook 00
shows it; notebook 07 and ``llmcost estimate`` call it; ``llmcost report`` writes it into
``summary.json``. Every other notebook's compute cost is a line of this bill, computed the same way.

Conventions (one for the whole bill):

* **GPU-hours** are model FLOPs on the workbook's MFU basis (``compute.training_run``: the
  detailed count with a full attention mask) ÷ (dense peak × MFU), divided by **goodput**
  (``reliability.checkpoint_plan``): paid GPU-hours = ideal / goodput. The MFU is the scenario's
  ``mfu`` (given, or predicted by the step-time model when the scenario says ``mfu: predict``:
  the report resolves it before anything runs), or calibrated from a pilot run's measured
  tokens/s (``ledger_pilot_tokens_per_s_per_gpu``; ``compute.mfu_from_throughput``).
* **Pricing modes**: ``on_demand``, ``reserved`` and ``spot`` rent GPU-hours at
  ``price_usd_per_gpu_hour`` (or the catalogue median); a rented GPU-hour includes its
  electricity, so the energy line reports MWh and tCO2e at $0. ``spot`` adds pre-emptions to the
  failure rate and a longer restart (the failure model of notebook 07). ``owned`` amortises the
  hardware as Cottier et al. 2024 (arXiv:2405.21015 §2.2-2.3) do and prices the energy.
* A line without a scenario value takes a sourced default (``data/ledger_defaults.csv``) or is 0
  and labelled **not given**; a line the workbook cannot compute says **not modelled** and has
  no amount.
* **RL post-training** is notebook 05's campaign (``rl.scenario_campaign``: GPU-hours by part,
  generation, scoring, update, weight sync and idle, at the bill's GPU-hour price), billed when
  the scenario describes one (``scenario.rl_campaign_given``: ``ledger_rl``, or ``rl_iterations``
  / ``rl_runs`` given); otherwise 0 and "not given".
* **Synthetic data and benchmark runs** given as token or request counts without a price are
  priced as served tokens (``inference.serving_cost`` with the scenario's ``serve_`` set-up on
  its accelerator at the bill's GPU-hour price) at the **expected** throughput of an engine
  (``serving_cost``'s ``expected_`` fields: the roofline / η + a per-step overhead, fitted on
  published engine rows, ``llmcost.serving.engines``), with its band (10th-90th percentile of
  the fit) and the roofline bound (a lower bound on cost) in the line's text. An explicit price (``ledger_synthetic_usd_per_mtok``,
  ``ledger_eval_gpu_hours``) overrides the derivation.
* **Ranges** (``llmcost.scenario`` module docstring, "Ranges"; ``llmcost.ranges``): a scenario
  may give continuous cost inputs as ranges. ``build_ledger`` prices their points (a scenario
  without ranges gives exactly the bill of its numbers); ``simulate_ledger`` draws them
  (common random numbers) and prices every draw in one pass of the same ``_build``, its
  arithmetic broadcast over numpy arrays: per line and for the total, mean and P10 / P50 /
  P90 (``LedgerDraws.summary``; percentiles do not add) and the tornado
  (``LedgerDraws.tornado``). The served-token lines are priced at $1/GPU-h and scaled by each
  draw's price (their cost is linear in it); the RL campaign's GPU-hours do not depend on any
  rangeable input and are priced per draw.
"""

from __future__ import annotations

import csv
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import pandas as pd

from ..core.catalog import (
    DATA_DIR,
    as_accelerator,
    as_model,
    list_prices,
    load_accelerator,
    load_model,
)
from ..core.units import GB, HOURS_PER_YEAR, SECONDS_PER_DAY, SECONDS_PER_HOUR, as_array, fmt_usd
from ..core.version import __version__
from ..serving.inference import choose_serving_tp, serving_cost, serving_validation
from ..serving.rl import scenario_campaign
from ..training import reliability as rel
from ..training.accuracy import mfu_band
from ..training.compute import mfu_from_throughput, model_flops_per_token
from .pricing import (  # noqa: F401
    default,
    default_rows,
    default_source,
    facility_kw_per_gpu,
    owned_usd_per_gpu_hour,
)
from .published import (
    annotation_usd,
    human_eval_usd,
    not_published,
    processing_gpu_hours,
)
from .published import range_text as published_range
from .ranges import Range, is_ranged
from .scenario import (
    LEDGER_DEFAULTS,
    ScenarioError,
    point_scenario,
    resolve_price,
    rl_campaign_given,
    user_words,
)
from .scenario import (
    validate_ranged_parameters as validate_parameters,
)

SCHEMA_VERSION = 1
#: Line statuses: computed from scenario values, from a sourced default, 0 because the scenario
#: gives nothing, included in another line's price, or not modelled by the workbook yet.
STATUSES = ("modelled", "default", "not given", "included", "not modelled")
CATEGORIES = ("compute", "post-training", "data", "evaluation", "storage", "network", "energy",
              "people", "operations", "reserve")
SECONDS_PER_MONTH = HOURS_PER_YEAR * SECONDS_PER_HOUR / 12.0


# ------------------------------------------------------------------------------ defaults
def list_defaults():
    """``data/ledger_defaults.csv`` as a DataFrame (value, unit, range, date, source, notes)."""
    return pd.read_csv(DATA_DIR / "ledger_defaults.csv")


# ------------------------------------------------------------------------------ draws
class _Draws(np.ndarray):
    """Draws of one quantity while ``simulate_ledger`` prices the bill over many samples at once:
    an ndarray that formats as its first draw, so the 'how' sentences of the lines can still be
    built (``simulate_ledger`` discards them: the point bill's sentences are the ones shown)."""

    def __format__(self, spec):
        return format(float(self.flat[0]), spec) if self.size else "[]"


def _num(x):
    """A Python float for a single number (the point bill: exactly today's arithmetic), draws
    (a ``_Draws`` array) otherwise."""
    return float(x) if np.ndim(x) == 0 else np.asarray(x, dtype=float).view(_Draws)


def _given(x) -> bool:
    """Whether a quantity is given (non-zero in at least one draw): decides a line's status."""
    return bool(np.any(np.asarray(x) != 0))


# ------------------------------------------------------------------------------ argument checks
def _ledger(x, name="ledger"):
    if not isinstance(x, Ledger):
        raise ValueError(f"{name}={x!r} must be a Ledger (llmcost.build_ledger(scenario))")
    return x


# ------------------------------------------------------------------------------ pieces
def lora_adapter_params(model, rank: int) -> int:
    """Trainable parameters of LoRA adapters of rank r on the attention projections W_q, W_k,
    W_v, W_o of every layer: Σ r·(d_in + d_out) (Hu et al. 2021, arXiv:2106.09685, §4: ΔW = BA
    with B ∈ R^{d_out×r}, A ∈ R^{r×d_in}; §7.1 adapts these four matrices).

    Raises
    ------
    ValueError
        A rank that is not a positive whole number, or an MLA model (its projections are
        low-rank already; give the count yourself).
    """
    r = int(as_array(rank, "rank", positive=True, integer=True))
    model = as_model(model)
    if model.attention != "gqa":
        raise ValueError(f"model={model.name!r}: LoRA adapter counts are implemented for GQA/MHA "
                         f"attention, not {model.attention!r}")
    h, a, g, dh = model.d_model, model.n_heads, model.n_kv_heads, model.d_head
    per_layer = (h + a * dh) + 2 * (h + g * dh) + (a * dh + h)
    return int(model.n_layers * r * per_layer)


def lora_flops_per_token(model, rank: int, seq_len=None):
    """Training FLOPs per token of LoRA fine-tuning, on the workbook's MFU basis.

    Full training is forward + backward = 3 × forward because the backward pass computes two
    matmuls per weight matrix, one for the gradient with respect to the activations and one for
    the gradient with respect to the weights (Kaplan et al. 2020 §2.1; Narayanan et al. 2021).
    With frozen base weights the weight-gradient matmul is skipped, so each frozen matmul costs
    forward 2 + backward 2 = **4 FLOP per weight** instead of 6: about **4·N per token instead of
    6·N**. The adapters (N_A parameters, ``lora_adapter_params``) are trained, 6·N_A. The
    attention core (QKᵀ, AV) has no weights and keeps 3 × its forward:

        F_LoRA = 4·N_matmul + 3·F_core,fwd(s) + 6·N_A

    This is the FLOP count only. Hu et al. 2021 (§4.2, footnote 5) measure on GPT-3 175B 43.1
    tokens/s per V100 with LoRA against 32.5 for full fine-tuning: LoRA takes 0.754 of the time
    (their "25% speedup"), more than the FLOP ratio (0.68 for GPT-3 175B) because the optimizer
    step, memory traffic and communication do not shrink with it. The bill prices LoRA *time*
    at that measured ratio (``lora_gpu_hours``); the optimizer keeps state only for the N_A
    adapter parameters.
    """
    model = as_model(model)
    if seq_len is not None:
        as_array(seq_len, "seq_len", positive=True, integer=True)
    fwd = model.flops_per_token_breakdown(seq_len, training=False, causal=False)
    frozen = fwd["attention_proj"] + fwd["ffn"] + fwd["router"] + fwd["lm_head"]  # 2·N_matmul
    return float(2.0 * frozen + 3.0 * fwd["attention_core"]
                 + 6.0 * lora_adapter_params(model, rank))


def lora_gpu_hours(model, rank: int, tokens, seq_len, peak_flops_per_s, mfu, goodput=1.0) -> dict:
    """GPU-hours of LoRA fine-tuning priced from the measured time ratio (Hu et al. 2021 §4.2,
    footnote 5; ``lora_time_ratio`` in ``data/ledger_defaults.csv``, 0.754):

        hours_LoRA = tokens × F_full(s) ÷ (peak × MFU) × 0.754 ÷ goodput

    where F_full is the full fine-tuning count (``compute.model_flops_per_token``) at the run's
    MFU. On the LoRA FLOP count (``lora_flops_per_token``) that is a lower MFU,
    MFU_LoRA = MFU × (F_LoRA / F_full) ÷ 0.754, which the result reports as ``mfu_lora``.

    Returns
    -------
    dict with ``gpu_hours``, ``flops_per_token`` (LoRA count), ``full_flops_per_token``,
    ``time_ratio`` and ``mfu_lora``.
    """
    model = as_model(model)
    t = _num(as_array(tokens, "tokens", nonnegative=True))
    peak = float(as_array(peak_flops_per_s, "peak_flops_per_s", positive=True))
    m = _num(as_array(mfu, "mfu", positive=True))
    g = _num(as_array(goodput, "goodput", positive=True))
    if np.any(m > 1) or np.any(g > 1):
        raise ValueError(f"mfu={m!r} and goodput={g!r} must be in (0, 1]")
    full = float(model_flops_per_token(model, seq_len))
    lora = lora_flops_per_token(model, rank, seq_len)
    ratio = default("lora_time_ratio")
    return {"gpu_hours": t * full / (peak * m) / SECONDS_PER_HOUR * ratio / g,
            "flops_per_token": lora, "full_flops_per_token": full, "time_ratio": ratio,
            "mfu_lora": m * lora / full / ratio}

def energy_mwh(gpu_hours, watts_per_gpu):
    """Energy of ``gpu_hours`` accelerator-hours drawing ``watts_per_gpu`` each, in MWh
    (E = GPU-hours × W / 10⁶). Meta's model cards use the device TDP (Llama 3.1: 700 W; Llama 2:
    400 W, "adjusted for PUE"); the bill uses ``facility_kw_per_gpu``."""
    h = as_array(gpu_hours, "gpu_hours", nonnegative=True)
    w = as_array(watts_per_gpu, "watts_per_gpu", positive=True)
    return float(h * w / 1e6) if h.ndim == 0 and w.ndim == 0 else h * w / 1e6


def tco2e(mwh, kg_co2e_per_kwh):
    """Location-based emissions in tonnes CO2e: MWh × 1,000 kWh/MWh × kg/kWh ÷ 1,000 kg/t."""
    e = as_array(mwh, "mwh", nonnegative=True)
    k = as_array(kg_co2e_per_kwh, "kg_co2e_per_kwh", nonnegative=True)
    return float(e * k) if e.ndim == 0 and k.ndim == 0 else e * k



def energy_of(gpu_hours, accelerator, pue=None, kg_co2e_per_kwh=None) -> dict:
    """The bill's energy and emissions for ``gpu_hours`` on ``accelerator``, beside a TDP-only
    count.

        E_bill = GPU-hours × facility_kw_per_gpu (TDP × server W/TDP × 0.75 draw × PUE)
        E_TDP  = GPU-hours × TDP            (the Llama model cards' convention: 700 W per H100)
        tCO2e  = E_bill × grid kg/kWh       (default US 2022, 0.390: data/ledger_defaults.csv)

    The two conventions differ by ``factor`` = E_bill / E_TDP (1.50 for an H100: 1.82 × 0.75 ×
    1.1, Cottier et al. 2024 §2.3); compare a model card's figure with ``mwh_tdp`` or divide the
    bill's by ``factor``.

    Returns
    -------
    dict with ``mwh``, ``tco2e``, ``mwh_tdp``, ``factor``, ``kw_per_gpu`` and
    ``kg_co2e_per_kwh``.
    """
    acc = as_accelerator(accelerator)
    kw = facility_kw_per_gpu(acc, pue)
    grid = default("grid_kg_co2e_per_kwh") if kg_co2e_per_kwh is None else kg_co2e_per_kwh
    mwh = energy_mwh(gpu_hours, kw * 1e3)
    return {"mwh": mwh, "tco2e": tco2e(mwh, grid), "mwh_tdp": energy_mwh(gpu_hours, acc.tdp_w),
            "factor": kw * 1e3 / acc.tdp_w, "kw_per_gpu": kw, "kg_co2e_per_kwh": grid}

# ------------------------------------------------------------------------------ the ledger
@dataclass(frozen=True)
class Line:
    """One line of the bill. ``usd`` is None only for a line that is not modelled."""

    key: str
    line: str
    category: str
    phase: str
    kind: str  # "fixed" or "elastic"
    usd: float | None
    how: str
    source: str
    status: str
    notebook: str = "00_index"


@dataclass
class Ledger:
    """The bill of one scenario: ``lines`` (``Line``) that sum to ``total_usd``, and the figures
    behind them in ``figures`` (GPU-hours, MFU, goodput, energy, days, prices)."""

    lines: list
    figures: dict = field(default_factory=dict)
    scenario: dict = field(default_factory=dict)
    #: what ``report.estimate_ledger`` found to warn about (``llmcost.checks``), one sentence each
    warnings: list = field(default_factory=list)

    def __post_init__(self):
        if not isinstance(self.lines, list) or not all(isinstance(x, Line) for x in self.lines):
            raise ValueError(f"lines={self.lines!r} must be a list of ledger.Line "
                             "(build a Ledger with build_ledger(scenario))")
        for name in ("figures", "scenario"):
            if not isinstance(getattr(self, name), dict):
                raise ValueError(f"{name}={getattr(self, name)!r} must be a dict")

    @property
    def total_usd(self) -> float:
        return float(sum(ln.usd for ln in self.lines if ln.usd is not None))

    def line(self, key: str) -> Line:
        for ln in self.lines:
            if ln.key == key:
                return ln
        raise ValueError(f"line {key!r} must be one of {', '.join(ln.key for ln in self.lines)}")

    def usd(self, prefix: str) -> float:
        """Sum of the lines whose key starts with ``prefix`` (e.g. ``"compute."``)."""
        return float(sum(ln.usd for ln in self.lines if ln.key.startswith(prefix) and ln.usd))

    def table(self):
        """The bill as a DataFrame: line, category, phase, fixed or elastic, amount USD, share
        of the total, status, how it was computed, source and notebook; a last ``total`` row."""
        total = self.total_usd
        rows = [{"key": ln.key, "line": ln.line, "category": ln.category, "phase": ln.phase,
                 "kind": ln.kind, "usd": ln.usd,
                 "share": (ln.usd / total if total and ln.usd is not None else None),
                 "status": ln.status, "how": ln.how, "source": ln.source,
                 "notebook": ln.notebook} for ln in self.lines]
        rows.append({"key": "total", "line": "total", "category": "", "phase": "", "kind": "",
                     "usd": total, "share": 1.0 if total else None, "status": "", "how":
                     "sum of the lines above", "source": "", "notebook": ""})
        return pd.DataFrame(rows)

    def _repr_html_(self):
        return self.table().drop(columns=["key", "source"])._repr_html_()

    def summary(self) -> dict:
        """The whole bill for ``summary.json``: namespaced, unit-suffixed keys, the schema
        version, the package version, the git commit and the as-of dates of the catalogues."""
        lines = {ln.key: {"label": ln.line, "category": ln.category, "phase": ln.phase,
                          "kind": ln.kind, "usd": ln.usd, "status": ln.status, "how": ln.how,
                          "source": ln.source} for ln in self.lines}
        return {"schema_version": SCHEMA_VERSION, "llmcost_version": __version__,
                "git_commit": git_commit(), "as_of": as_of_dates(),
                "bill.total_usd": self.total_usd,
                "bill.fixed_usd": float(sum(ln.usd or 0 for ln in self.lines
                                            if ln.kind == "fixed")),
                "bill.elastic_usd": float(sum(ln.usd or 0 for ln in self.lines
                                              if ln.kind == "elastic")),
                "bill.lines": lines,
                **{f"bill.figures.{k}": v for k, v in self.figures.items()}}


def git_commit() -> str:
    """The commit the package runs from, or ``"unknown"`` outside a git checkout."""
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=DATA_DIR.parent,
                             capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() if out.returncode == 0 else "unknown"


def as_of_dates() -> dict:
    """The newest ``date`` of each dated catalogue (prices, storage prices, ledger defaults)."""
    out = {}
    for name in ("prices", "storage_prices", "ledger_defaults"):
        with (DATA_DIR / f"{name}.csv").open(newline="", encoding="utf-8") as fh:
            dates = [r["date"] for r in csv.DictReader(fh) if r.get("date")]
        out[f"{name}.csv"] = max(dates) if dates else "undated"
    return out


# ------------------------------------------------------------------------------ building it
def _values(scenario: dict) -> dict:
    """The scenario's values completed with the ledger's defaults, validated."""
    if not isinstance(scenario, dict):
        raise ScenarioError(f"scenario={scenario!r} must be a mapping of parameter names to "
                            "values")
    p = {k: v for k, v in scenario.items() if not k.startswith("_")
         and k not in ("title", "description")}
    if p.get("mfu") == "predict":
        raise ScenarioError("mfu='predict' must be resolved first (llmcost.report.plan_report "
                            "or `llmcost estimate` does it)")
    # An omitted price is a null price (the catalogue median for this accelerator and pricing
    # mode, or the owned amortisation), never the default scenario's H100 on-demand $3.99.
    p.setdefault("price_usd_per_gpu_hour", None)
    full = {**LEDGER_DEFAULTS, **p}
    out = validate_parameters(**full)
    # decided on what the scenario gives, not on the defaults; kept resolved so that
    # with_changes(bill, ...) keeps it
    out["ledger_rl"] = rl_campaign_given(p)
    # why the RL line is empty, when it is (private: _values drops it on a rebuild)
    rl_keys = [k for k in ("rl_iterations", "rl_runs") if k in p]
    if isinstance(out.get("mfu"), Range) and out["ledger_pilot_tokens_per_s_per_gpu"] is not None:
        raise ScenarioError("mfu is a range and ledger_pilot_tokens_per_s_per_gpu is given: the "
                            "pilot's throughput sets the MFU; give one or the other")
    pred = scenario.get("_mfu_prediction")  # set by report.resolve_mfu (mfu: predict)
    if isinstance(pred, dict) and out.get("mfu") == pred.get("value"):
        out["_mfu_prediction"] = pred
    cal = scenario.get("_mfu_calibration")  # set by report.calibrate_pilot_mfu (pilot:)
    if isinstance(cal, dict) and out.get("mfu") == cal.get("value"):
        out["_mfu_calibration"] = cal
    out["_rl_off_reason"] = (
        f"ledger_rl: false, so the campaign of the rl_ keys ({out['rl_iterations']:,} iterations"
        f" × {out['rl_runs']} run(s)) is not billed; ledger_rl: true bills it" if rl_keys and
        p.get("ledger_rl") is False else
        "ledger_rl: false (no RL campaign billed)" if p.get("ledger_rl") is False else
        "no RL campaign in the scenario (rl_iterations and rl_runs not given; ledger_rl: true "
        "bills notebook 05's campaign for the rl_ keys)")
    return out


def build_ledger(scenario: dict) -> Ledger:
    """The whole bill of a scenario.

    Parameters
    ----------
    scenario : dict
        Parameter values (``llmcost.scenario.PARAMETERS`` names), e.g. ``load_scenario(path)``
        with ``mfu: predict`` resolved, or a notebook's validated parameters. Keys it leaves out
        take the notebooks' defaults (``llmcost.scenario.LEDGER_DEFAULTS``), except
        ``price_usd_per_gpu_hour``: an omitted price is null (the catalogue median for the
        accelerator and pricing mode, or the owned amortisation), labelled as a default.

    Returns
    -------
    Ledger. Its lines sum to ``total_usd``.

    Raises
    ------
    ScenarioError (a ValueError)
        A value breaks its rule (a negative FTE, a probability outside [0, 1], an unknown phase
        or line key), or a combination cannot be priced (owned hardware without a price, spot
        without resumable training that never finishes).
    """
    p = _values(scenario)
    ranged = {k: v for k, v in p.items() if isinstance(v, Range)}
    bill = _point_build({**point_scenario(p), "_ranged": ranged})
    if ranged:
        bill.scenario = p  # the ranges kept: with_changes and simulate_ledger see them
    return bill


def point_word(r) -> str:
    """What the point of a range is: 'midpoint', 'mode' or 'median'."""
    return {"uniform": "midpoint", "triangular": "mode", "lognormal": "median"}[r.kind]


def _range_source(p: dict, key: str) -> str | None:
    """'midpoint of the range uniform 0.3-0.5 (...)' when ``key`` is ranged in the point bill's
    values (``_ranged``, set by ``build_ledger``), else None."""
    r = p.get("_ranged", {}).get(key)
    return None if r is None else (f"{point_word(r)} of the range {r.describe()} (the point "
                                   "bill; ledger.simulate_ledger draws the range)")


def _point_build(p: dict) -> Ledger:
    """``_safe_build`` of a point bill; its error says which inputs are the points of ranges."""
    try:
        return _safe_build(p)
    except ScenarioError as e:
        ranged = {k: r for k, r in p.get("_ranged", {}).items()}
        if not ranged:
            raise
        raise ScenarioError(f"{e} (the point bill, with the ranged inputs at their points: "
                            + "; ".join(f"{k} = {r.point:.4g}, the {point_word(r)} of "
                                        f"{r.describe()}" for k, r in ranged.items())
                            + ")") from None


def _safe_build(p: dict) -> Ledger:
    try:
        return _build(p)
    except ScenarioError:
        raise
    except ValueError as e:
        raise ScenarioError(str(e)) from None


def _build(p: dict) -> Ledger:
    spec, gpu = load_model(p["model"]), load_accelerator(p["accelerator"])
    pricing = p["pricing"]
    peak = gpu.peak_flops_per_s(p["dtype"])
    # ---- the MFU the whole bill uses
    shorthand = p.get("_mfu_calibration") or {}  # report.calibrate_mfu extrapolated it
    if p["ledger_pilot_tokens_per_s_per_gpu"] is not None and shorthand.get(
            "tokens_per_s_per_gpu") != p["ledger_pilot_tokens_per_s_per_gpu"]:
        try:  # mfu_from_throughput refuses a throughput above the dense peak (MFU > 1)
            mfu = float(mfu_from_throughput(p["ledger_pilot_tokens_per_s_per_gpu"], spec, gpu,
                                            p["seq_len"], p["dtype"]))
        except ValueError as e:
            raise ValueError(f"ledger_pilot_tokens_per_s_per_gpu: {e}; check the throughput and "
                             "dtype") from None
        if not 0 < mfu <= 1:
            raise ValueError(f"ledger_pilot_tokens_per_s_per_gpu="
                             f"{p['ledger_pilot_tokens_per_s_per_gpu']!r} implies MFU {mfu:.2f}, "
                             "above the accelerator's peak: check the throughput and dtype")
        mfu_source = (f"calibrated from a pilot's {p['ledger_pilot_tokens_per_s_per_gpu']:,.0f} "
                      "tokens/s per GPU (compute.mfu_from_throughput; copied: the bill alone has "
                      "no plan to extrapolate on, a report or llmcost estimate extrapolates it)")
    else:
        mfu = p["mfu"]
        mfu_source = scenario_mfu_source(p)
    # ---- the price of a GPU-hour
    if pricing == "owned" and p["price_usd_per_gpu_hour"] is None:
        own = {k: _num(v) if k != "kw_per_gpu" else v for k, v in owned_usd_per_gpu_hour(
            gpu, p["ledger_owned_usd_per_gpu"], p["ledger_electricity_usd_per_kwh"],
            p["ledger_pue"]).items()}
        price, price_source = own["usd_per_gpu_hour"], (
            f"default, price_usd_per_gpu_hour not given: owned: "
            f"${own['acquisition_usd_per_gpu']:,.0f} per GPU amortised as Cottier et al. "
            f"2024 (${own['capex_usd_per_gpu_hour']:.2f}/GPU-h hardware + "
            f"${own['energy_usd_per_gpu_hour']:.2f}/GPU-h energy)")
    else:
        price, price_source = (p["price_usd_per_gpu_hour"], "given as a range") if np.ndim(
            p["price_usd_per_gpu_hour"]) else resolve_price(gpu.name, p["price_usd_per_gpu_hour"],
                                                            pricing)
        if p["price_usd_per_gpu_hour"] is None:
            price_source = f"default, price_usd_per_gpu_hour not given: {price_source}"
        price_source = _range_source(p, "price_usd_per_gpu_hour") or price_source
        own = None
    energy_rate = own["energy_usd_per_gpu_hour"] if own else 0.0
    gpu_rate = price - energy_rate  # what the GPU-hour lines charge; energy is its own line
    kind_compute = "fixed" if pricing in ("reserved", "owned") else "elastic"
    per_node = min(gpu.scaleup_domain_size or 8, 8)
    fail_rate, restart_s = p["fail_rate_per_gpu_year"], p["ckpt_restart_s"]
    if pricing == "spot":
        preempt = default("spot_preemptions_per_node_day") if \
            p["ledger_spot_preemptions_per_node_day"] is None else \
            p["ledger_spot_preemptions_per_node_day"]
        fail_rate = fail_rate + preempt * 365.25 / per_node
        restart_s = default("spot_restart_s") if p["ledger_spot_restart_s"] is None \
            else p["ledger_spot_restart_s"]

    storage_bw = {"bytes_per_s": p["ckpt_storage_bytes_per_s"],
                  "source": "ckpt_storage_bytes_per_s (scenario)"}

    def storage_for(ideal_gpu_hours):
        """The job's checkpoint-storage bandwidth: the scenario's, else sized once, for the main
        run, from its checkpoint plan (``reliability.sized_storage_bytes_per_s``)."""
        if storage_bw["bytes_per_s"] is None:
            storage_bw.update(sized_storage(spec, p, fail_rate, restart_s, ideal_gpu_hours,
                                            price, per_node))
        return storage_bw["bytes_per_s"]

    def goodput_of(n_gpus, ideal_gpu_hours):
        """(goodput, checkpoint plan or None) of one phase on n_gpus."""
        if not p["ledger_resumable"]:
            m = _num(rel.cluster_mtbf_s(n_gpus, fail_rate))
            t = ideal_gpu_hours / n_gpus * SECONDS_PER_HOUR
            with np.errstate(over="ignore"):
                wall = _num(rel.expected_wall_time_s(t, t, 0.0, m, restart_s))
            if not np.all(np.isfinite(wall)) or np.any(wall > 1e6 * t):
                raise ValueError(
                    f"ledger_resumable=false: a {t / SECONDS_PER_DAY:,.1f}-day job on {n_gpus:,} "
                    f"GPUs with an MTBF of {m / 3600:,.1f} h must restart from scratch after every "
                    "failure and is expected to take over a million times as long: it never "
                    "finishes (make training resumable, or shorten the job)")
            return t / wall, None
        plan = rel.checkpoint_plan(
            spec.n_params, n_gpus, fail_rate, storage_for(ideal_gpu_hours), restart_s,
            recipe=p["ckpt_recipe"], gpus_per_node=per_node,
            node_bytes_per_s=p["ckpt_node_bytes_per_s"], d2h_bytes_per_s=p["ckpt_d2h_bytes_per_s"],
            async_=p["ckpt_async"], planned_per_day=p["fail_planned_per_day"],
            interval_s=p["ckpt_interval_s"])
        return _num(plan.goodput), plan

    lines: list[Line] = []
    # ---- pre-training phases: the main run, then context extension, annealing, ...
    phases = [{"name": "main", "tokens": p["train_tokens"], "seq_len": p["seq_len"],
               "n_gpus": p["n_gpus"], "mfu": mfu}]
    for ph in p["phases"]:
        phases.append({"name": ph["name"], "tokens": ph["tokens"], "seq_len": ph["seq_len"],
                       "n_gpus": ph.get("n_gpus", p["n_gpus"]), "mfu": ph.get("mfu", mfu)})
    ideal_h = paid_h = 0.0
    flops_total = 0.0
    main_plan, main_goodput, main_days, main_ideal = None, None, 0.0, 0.0
    for i, ph in enumerate(phases):
        flops = ph["tokens"] * float(model_flops_per_token(spec, ph["seq_len"]))
        hours = flops / (peak * ph["mfu"]) / SECONDS_PER_HOUR
        g, plan = goodput_of(ph["n_gpus"], hours)
        if np.any(~(np.asarray(g, dtype=float) >= 1e-6)):
            raise ValueError(
                f"goodput of the {ph['name']} phase is {float(np.min(g)):.2g} on "
                f"{ph['n_gpus']:,} GPUs: interruptions "
                f"(fail_rate_per_gpu_year={p['fail_rate_per_gpu_year']}"
                + (f", ledger_spot_preemptions_per_node_day={preempt}" if pricing == "spot"
                   else "") + f", fail_planned_per_day={p['fail_planned_per_day']}) come faster "
                "than a checkpoint and a restart, so the run takes over a million times its ideal "
                "time and never finishes; the rule: goodput >= 1e-6 (lower the interruption "
                "rate or the restart time)")
        ideal_h, paid_h, flops_total = ideal_h + hours, paid_h + hours / g, flops_total + flops
        if i == 0:
            main_plan, main_goodput, main_ideal = plan, g, hours
            main_days = hours / g / ph["n_gpus"] / 24.0
        if i == 0:  # the main run: ideal hours here, its failures on their own line (notebook 07)
            lines.append(Line(
                "compute.pretraining.main", "pre-training compute", "compute", "pre-training",
                kind_compute, hours * gpu_rate,
                f"{ph['tokens']:.3g} tokens × {flops / ph['tokens']:.3g} FLOP/token "
                f"({ph['seq_len']:,}-token sequences, MFU basis) ÷ ({peak:.3g} FLOP/s × MFU "
                f"{ph['mfu']:.1%}) = {hours:,.0f} ideal GPU-h × ${gpu_rate:.2f}",
                f"compute.training_run; MFU {mfu_source}; {price_source}", "modelled",
                "01_flops"))
            lines.append(Line(
                "compute.failures", "failures, checkpoints and restarts", "compute",
                "pre-training", kind_compute, (hours / g - hours) * gpu_rate,
                f"paid − ideal GPU-hours of the main run = {hours / g - hours:,.0f} GPU-h "
                f"(goodput {g:.2%}"
                f"{'; spot pre-emptions included' if pricing == 'spot' else ''}"
                f"{'; no checkpoints: a failure restarts the run' if not p['ledger_resumable'] else ''})",
                "reliability.checkpoint_plan (Daly 2006 goodput), failure rates of the scenario",
                "modelled", "07_checkpoints"))
            continue
        lines.append(Line(
            f"compute.pretraining.{ph['name']}", f"pre-training phase: {ph['name']}", "compute",
            "pre-training", kind_compute, hours / g * gpu_rate,
            f"{ph['tokens']:.3g} tokens × {flops / ph['tokens']:.3g} FLOP/token "
            f"({ph['seq_len']:,}-token sequences) ÷ ({peak:.3g} FLOP/s × MFU {ph['mfu']:.1%}) "
            f"= {hours:,.0f} ideal GPU-h ÷ goodput {g:.2%} on {ph['n_gpus']:,} GPUs × "
            f"${gpu_rate:.2f}", f"compute.training_run; reliability.checkpoint_plan; "
            f"{price_source}", "modelled", "01_flops"))
    final_run_usd = paid_h * gpu_rate
    # ---- exploratory and failed runs
    if p["ledger_exploratory_runs"]:
        runs = p["ledger_exploratory_runs"]
        h = sum(r["gpu_hours"] for r in runs)
        lines.append(Line("compute.exploratory", "exploratory and failed runs", "compute",
                          "development", kind_compute, h * gpu_rate,
                          f"{len(runs)} listed run(s), {h:,.0f} GPU-h × ${gpu_rate:.2f}: "
                          + ", ".join(r["name"] for r in runs),
                          "ledger_exploratory_runs (scenario)", "modelled"))
        explore_h = h
    else:  # a fraction: priced after post-training and evaluation, which the default nets out
        explore_ix, explore_h = len(lines), None
    # ---- post-training
    post_h = 0.0
    for key, label, tokens, fpt, how in (
            ("sft", "supervised fine-tuning (SFT)", p["ledger_sft_tokens"],
             float(model_flops_per_token(spec, p["seq_len"])), "full fine-tune, 3 × forward"),
            ("cpt", "continued pre-training", p["ledger_cpt_tokens"],
             float(model_flops_per_token(spec, p["seq_len"])), "3 × forward"),
            ("lora", f"LoRA fine-tuning (rank {p['ledger_lora_rank']})", p["ledger_lora_tokens"],
             None, "4·N + 3·attention + 6·N_adapter per token (ledger.lora_flops_per_token)")):
        if not _given(tokens):
            lines.append(Line(f"post.{key}", label, "post-training", "post-training", "elastic",
                              0.0, f"ledger_{key}_tokens not given", "", "not given"))
            continue
        if fpt is None:  # LoRA: time at the measured ratio to full fine-tuning (Hu et al.)
            lo = lora_gpu_hours(spec, p["ledger_lora_rank"], tokens, p["seq_len"], peak, mfu,
                                main_goodput)
            fpt, hours = lo["flops_per_token"], lo["gpu_hours"]
            at = (f"at {lo['time_ratio']:.3f} × the full fine-tune's time (measured, Hu et al. "
                  f"§4.2 fn. 5), i.e. MFU {lo['mfu_lora']:.1%} on this count")
        else:
            hours = tokens * fpt / (peak * mfu) / SECONDS_PER_HOUR / main_goodput
            at = f"at MFU {mfu:.1%}"
        post_h += hours
        lines.append(Line(
            f"post.{key}", label, "post-training", "post-training", "elastic", hours * gpu_rate,
            f"{tokens:.3g} tokens × {fpt:.3g} FLOP/token ({how}) {at} and goodput "
            f"{main_goodput:.1%} = {hours:,.0f} GPU-h × ${gpu_rate:.2f}",
            "Hu et al. 2021 (LoRA, arXiv:2106.09685, §4.2: 43.1 against 32.5 tokens/s per GPU)"
            if key == "lora" else "compute.model_flops_per_token", "modelled", "01_flops"))
    rl_camp = _rl_campaign(p, gpu_rate if not np.ndim(gpu_rate) else 1.0)
    if rl_camp is None:
        lines.append(Line("post.rl", "RL post-training (rollouts, reward, policy update)",
                          "post-training", "post-training", "elastic", 0.0,
                          p["_rl_off_reason"], "",
                          "not given", "05_rl_loop"))
        rl_h = 0.0
    else:
        rl_h = float(rl_camp.loc["total", "gpu_hours"])
        post_h += rl_h
        rl_usd = float(rl_camp.loc["total", "usd"]) if not np.ndim(gpu_rate) else \
            rl_h * gpu_rate + float(rl_camp.loc["verifier", "usd"])  # GPU-h × price + verifier
        lines.append(Line("post.rl", "RL post-training (rollouts, reward, policy update)",
                          "post-training", "post-training", "elastic",
                          rl_usd, _rl_how(p, rl_camp, gpu_rate)
                          + ("; owned hardware: its energy is on the energy line" if own else ""),
                          "llmcost.rl.scenario_campaign (rollouts timed with the "
                          "llmcost.inference roofline); rl_ keys of the scenario", "modelled",
                          "05_rl_loop"))
    # ---- data
    _given_line(lines, "data.licensing", "data licensing", "data", "fixed",
                p["ledger_data_licensing_usd"], "ledger_data_licensing_usd (scenario)")
    _published_note(lines, p, "data.licensing")
    proc_h = _processing_line(lines, p, gpu_rate)
    syn_h = _synthetic_line(lines, p, spec, gpu, gpu_rate)
    _published_note(lines, p, "data.synthetic")
    _annotation_line(lines, p)
    # ---- evaluation and safety testing
    eval_h = _eval_line(lines, p, spec, gpu, gpu_rate)
    _human_eval_line(lines, p)
    if explore_h is None:
        explore_h = _exploratory_fraction_line(lines, explore_ix, p, paid_h, post_h + eval_h,
                                               gpu_rate, kind_compute)
    # ---- storage
    project_months = p["ledger_project_months"] if p["ledger_project_months"] is not None \
        else main_days * SECONDS_PER_DAY / SECONDS_PER_MONTH
    project_months_source = "ledger_project_months (scenario)" if \
        p["ledger_project_months"] is not None else (
            f"convention, ledger_project_months not given: the final run's wall clock "
            f"({project_months:.2f} months) only; the exploratory runs before it, data work and "
            "post-training after it are not counted, so people, operations and dataset storage "
            "are lower bounds: set ledger_project_months")
    if main_plan is not None:
        hot = p["ckpt_hot_tier"]
        st = rel.retention_storage_cost(
            float(main_plan.size.total_bytes), main_days, main_plan.interval_s,
            p["ckpt_keep_last"], p["ckpt_milestone_every_days"], p["ckpt_retention_months"],
            rel.storage_price(hot), rel.storage_price(p["ckpt_cold_tier"]),
            hot_bandwidth_bytes_per_s=main_plan.storage_bytes_per_s,
            hot_bytes_per_s_per_tib=rel.storage_throughput_per_tib(hot))
        st = st.set_index("policy")["usd"] if not isinstance(st, dict) else {"total": st["usd"]}
        hot_label = next(iter(st.index)) if not isinstance(st, dict) else "hot tier"
        lines.append(Line("storage.checkpoints", "checkpoint storage", "storage", "pre-training",
                          "fixed", _num(st["total"]),
                          f"{hot_label} on {hot} (capacity provisioned for the peak bandwidth, "
                          f"not the average bytes held) + milestones on {p['ckpt_cold_tier']} "
                          f"for {p['ckpt_retention_months']:g} months",
                          "reliability.retention_storage_cost; data/storage_prices.csv; "
                          f"bandwidth {storage_bw['source']}",
                          "modelled", "07_checkpoints"))
    else:
        lines.append(Line("storage.checkpoints", "checkpoint storage", "storage", "pre-training",
                          "fixed", 0.0, "no checkpoints (ledger_resumable=false)", "", "modelled"))
    ds_given = p["ledger_dataset_bytes"] is not None
    ds_bytes = p["ledger_dataset_bytes"] if ds_given else \
        p["train_tokens"] * default("dataset_bytes_per_token")
    ds_months = project_months + p["ckpt_retention_months"]
    ds_price = rel.storage_price(p["ledger_dataset_tier"])
    lines.append(Line(
        "storage.datasets", "dataset storage (all versions)", "storage", "whole project", "fixed",
        ds_bytes * p["ledger_dataset_versions"] / GB * ds_months * ds_price,
        f"{ds_bytes / 1e12:,.3g} TB × {p['ledger_dataset_versions']} version(s) × "
        f"{ds_months:,.1f} months × ${ds_price}/GB-month ({p['ledger_dataset_tier']})",
        "ledger_dataset_bytes (scenario)" if ds_given else
        default_source("dataset_bytes_per_token"), "modelled" if ds_given else "default"))
    log_price = rel.storage_price(p["ledger_dataset_tier"])
    _product_line(lines, "storage.logs", "logs, metrics and traces", "storage", "fixed",
                  p["ledger_log_bytes"] / GB * ds_months, log_price, "GB-months", "$/GB-month",
                  f"ledger_log_bytes kept {ds_months:,.1f} months on {p['ledger_dataset_tier']}")
    # ---- network
    _product_line(lines, "network.egress", "internet egress", "network", "elastic",
                  p["ledger_egress_bytes"] / GB, default("egress_usd_per_gb"), "GB", "$/GB",
                  default_source("egress_usd_per_gb"), given="ledger_egress_bytes")
    _product_line(lines, "network.cross_region", "cross-region transfer", "network", "elastic",
                  p["ledger_cross_region_bytes"] / GB, default("cross_region_usd_per_gb"), "GB",
                  "$/GB", default_source("cross_region_usd_per_gb"),
                  given="ledger_cross_region_bytes")
    # ---- energy
    all_h = paid_h + explore_h + post_h + syn_h + eval_h + proc_h
    if not gpu.tdp_w or gpu.tdp_w != gpu.tdp_w:  # no sourced TDP: no energy figure, said so
        en = {"kw_per_gpu": None, "mwh": None, "kg_co2e_per_kwh": None, "tco2e": None,
              "mwh_tdp": None, "factor": None}
        kw = mwh = grid = t_co2 = None
        lines.append(Line("energy.electricity", "electricity", "energy", "whole project",
                          "elastic", 0.0,
                          f"{all_h:,.0f} GPU-h, but accelerator={gpu.name!r} has no tdp_w in "
                          "data/accelerators.csv (no sourced figure): energy, emissions and "
                          "electricity are not computed; add a sourced TDP to get them",
                          "Cottier et al. 2024 §2.3; data/accelerators.csv", "not given"))
    else:
        en = {k: _num(v) for k, v in energy_of(all_h, gpu, p["ledger_pue"],
                                                p["ledger_grid_kg_co2e_per_kwh"]).items()}
        kw, mwh, grid, t_co2 = en["kw_per_gpu"], en["mwh"], en["kg_co2e_per_kwh"], en["tco2e"]
        usd_kwh = default("electricity_usd_per_kwh") if \
            p["ledger_electricity_usd_per_kwh"] is None else p["ledger_electricity_usd_per_kwh"]
        energy_how = (f"{all_h:,.0f} GPU-h × {kw:.2f} kW facility power per GPU (TDP "
                      f"{gpu.tdp_w:.0f} W × server × 0.75 × PUE) = {mwh:,.0f} MWh; {t_co2:,.0f} "
                      f"tCO2e at {grid:.3f} kg/kWh. Convention: {en['factor']:.2f}× a count of "
                      f"GPU TDP alone (the Llama model cards': {en['mwh_tdp']:,.0f} MWh for these "
                      "GPU-hours)")
        if own:
            lines.append(Line("energy.electricity", "electricity", "energy", "whole project",
                              "elastic", mwh * 1e3 * usd_kwh, f"{energy_how}; × ${usd_kwh}/kWh",
                              "Cottier et al. 2024 §2.3; data/ledger_defaults.csv", "modelled"))
        else:
            lines.append(Line("energy.electricity", "electricity", "energy", "whole project",
                              "elastic", 0.0,
                              f"{energy_how}; included in the rented GPU-hour price",
                              "Cottier et al. 2024 §2.3; data/ledger_defaults.csv", "included"))
    # ---- people and operations
    if p["ledger_people"]:
        people = [(r["role"], r["fte"], r.get("months", project_months),
                   r.get("usd_per_year", default("staff_usd_per_fte_year")))
                  for r in p["ledger_people"]]
        usd = sum(fte * months / 12.0 * rate for _, fte, months, rate in people)
        lines.append(Line("people.staff", "people (roles × FTE × months × loaded cost)",
                          "people", "whole project", "fixed", usd,
                          "; ".join(f"{role}: {fte:g} FTE × {months:.1f} mo × ${rate:,.0f}/yr"
                                    for role, fte, months, rate in people)
                          + f" (project months: {project_months_source})",
                          "ledger_people (scenario); default loaded cost "
                          + default_source("staff_usd_per_fte_year"), "modelled"))
    elif p["ledger_published_defaults"] and p["ledger_contributors"]:
        lines.append(_contributors_line(p, project_months, project_months_source))
    else:
        lines.append(Line("people.staff", "people (roles × FTE × months × loaded cost)",
                          "people", "whole project", "fixed", 0.0,
                          f"ledger_people not given (a loaded cost of "
                          f"${default('staff_usd_per_fte_year'):,.0f}/FTE-year is the default "
                          "rate)", default_source("staff_usd_per_fte_year"), "not given"))
        _published_note(lines, p, "people.staff")
    _product_line(lines, "ops.operations", "operations (cluster ops, monitoring, support)",
                  "operations", "fixed", project_months, p["ledger_operations_usd_per_month"],
                  "months", "$/month", "ledger_operations_usd_per_month × project months ("
                  + project_months_source + ")")
    # ---- reserve
    rerun_p = p["ledger_rerun_probability"]
    lines.append(Line("reserve.rerun", "reserve: a rerun of the final run", "reserve",
                      "pre-training", "fixed", rerun_p * final_run_usd,
                      f"P(rerun) {rerun_p:.0%} × final run {final_run_usd:,.0f} USD (expected "
                      "cost of relaunching after a divergence, as OPT-175B's lineage 12)",
                      "ledger_rerun_probability (scenario)",
                      "modelled" if _given(rerun_p) else "not given"))
    sub = _num(sum(ln.usd for ln in lines if ln.usd is not None))
    frac = p["ledger_reserve_fraction"]
    lines.append(Line("reserve.contingency", "reserve: contingency for hidden costs", "reserve",
                      "whole project", "fixed", frac * sub,
                      f"{frac:.0%} × the {sub:,.0f} USD of the lines above",
                      "ledger_reserve_fraction (scenario)",
                      "modelled" if _given(frac) else "not given"))
    figures = {
        "mfu": mfu, "mfu_source": mfu_source, "pricing": pricing,
        "price_usd_per_gpu_hour": price, "price_source": price_source,
        # two conventions, two names: the MFU basis the hours are priced on, and 6·N_active·D
        "training_flops_mfu_basis": flops_total,
        "training_flops_6nd": sum(6.0 * spec.n_active_params * ph["tokens"] for ph in phases),
        "ideal_gpu_hours": ideal_h, "paid_gpu_hours": paid_h,
        "main_ideal_gpu_hours": main_ideal, "goodput": ideal_h / paid_h,
        "wall_clock_days": main_days, "all_gpu_hours": all_h, "energy_mwh": mwh,
        "tco2e": t_co2, "grid_kg_co2e_per_kwh": grid, "kw_per_gpu": kw,
        "energy_mwh_tdp_basis": en["mwh_tdp"], "energy_vs_tdp_basis": en["factor"],
        "project_months": project_months, "project_months_source": project_months_source,
        "main_ideal_days": main_ideal / p["n_gpus"] / 24.0,
        "budget_usd": p["ledger_budget_usd"], "final_run_usd": final_run_usd,
        "n_gpus": p["n_gpus"], "model": spec.name, "accelerator": gpu.name,
        "job_mtbf_s": _num(rel.cluster_mtbf_s(p["n_gpus"], fail_rate)),
        "rl_gpu_hours": rl_h, "synthetic_gpu_hours": syn_h, "eval_gpu_hours": eval_h,
        "ckpt_storage_bytes_per_s": storage_bw["bytes_per_s"],
        "ckpt_storage_source": storage_bw["source"],
        "rl_parts_gpu_hours": ({} if rl_camp is None else
                               {k: float(v) for k, v in _rl_parts(rl_camp).items()}),
    }
    return Ledger(lines, figures, p)


def _exploratory_fraction_line(lines, ix, p, paid_h, netted_h, rate, kind) -> float:
    """The exploratory-runs line from a fraction, inserted at ``ix``; returns its GPU-hours.

    Cottier et al. 2024 (arXiv:2405.21015, §2.5 and App. A.6) put *total development compute*
    at 1.2-4× the final run, "including experiments, failed attempts, evaluation and
    finetuning"; ``ledger_exploratory_fraction`` (default their median, 1.19) is that multiplier
    less one. The bill's own post-training (SFT, CPT, LoRA, RL) and benchmark-run GPU-hours are
    part of it, so they are netted out:

        exploratory GPU-h = max(0, fraction × final run − post-training − evaluation GPU-h)

    (``ledger_exploratory_runs``, a list of runs, is billed as given instead)."""
    given = p["ledger_exploratory_fraction"] is not None
    frac = p["ledger_exploratory_fraction"] if given else default("exploratory_fraction")
    row = default_rows()["exploratory_fraction"]
    h = _num(np.maximum(0.0, frac * paid_h - netted_h))
    how = (f"development compute beyond the final run, {frac:.2f} × {paid_h:,.0f} paid GPU-h "
           f"(Cottier et al.'s range {row['low']}-{row['high']}: total development compute is "
           "1.2-4× the final run, experiments, failed attempts, evaluation and fine-tuning "
           f"together), less the {netted_h:,.0f} GPU-h of post-training and benchmark lines "
           "billed separately" + (" (they exceed it: 0)" if np.all(h == 0) else "")
           + f" = {h:,.0f} GPU-h × ${rate:.2f}")
    lines.insert(ix, Line("compute.exploratory", "exploratory and failed runs", "compute",
                          "development", kind, h * rate, how,
                          "ledger_exploratory_fraction (scenario); " + row["source"] if given
                          else row["source"], "modelled" if given else "default"))
    return h

def scenario_mfu_source(p: dict) -> str:
    """Where the scenario's MFU comes from, for the bill's 'how' column: predicted (plan, stack
    and error band of ``report.resolve_mfu``) when the scenario said ``mfu: predict``;
    calibrated on pilot runs (``report.calibrate_pilot_mfu``) when it gave ``pilot``."""
    pred = p.get("_mfu_prediction")
    if pred:
        return predicted_mfu_source(pred)
    cal = p.get("_mfu_calibration")
    if cal:
        return cal["from"]
    if p.get("pilot"):  # a notebook's bill: the report set mfu from the pilots before it ran
        return ("mfu as a report or llmcost estimate sets it from the scenario's pilot runs "
                "(calibrated and extrapolated; llmcost calibrate prints the factors and band)")
    return _range_source(p, "mfu") or "given in the scenario (mfu)"


def predicted_mfu_source(pred: dict) -> str:
    """The label of a predicted MFU (``report.resolve_mfu``'s ``_mfu_prediction``)."""
    band = pred.get("band", {})
    text = f"predicted (mfu: predict) by llmcost.step for {pred.get('plan', '?')}"
    if pred.get("stack"):
        text += f" on the {pred['stack']} stack"
    if "low" in band and "high" in band:
        text += f", band {band['low']:.1%}-{band['high']:.1%}"
    return text


def _rl_campaign(p: dict, usd_per_gpu_hour: float):
    """Notebook 05's RL post-training campaign for the scenario, or None when it describes none.

    ``rl.scenario_campaign(p, price)``: one iteration of the ``rl_`` set-up (generation timed
    with the serving roofline, scoring and update at ``rl_train_mfu``) × ``rl_iterations`` ×
    ``rl_runs``, in GPU-hours and USD by part (the parts sum to the ``total`` row), at the bill's
    GPU-hour price. Whether the scenario describes one: ``scenario.rl_campaign_given``. Failures
    of the RL job are not added (notebook 05 does not; at tens of GPUs for days they are small).
    """
    if not p["ledger_rl"]:
        return None
    try:
        return scenario_campaign(p, usd_per_gpu_hour)
    except ValueError as e:
        msg = user_words(str(e), {"tp": "rl_rollout_tp", "weight_dtype": "serve_weight_dtype"})
        raise ScenarioError(f"RL post-training line (rl_ keys, notebook 05): {msg}") from None


def _rl_parts(camp) -> dict:
    """The campaign's GPU-hours in the bill's five parts: generation (with the tail),
    scoring (reward, reference, critic, old log-probs), update, weight sync and idle."""
    g = camp["gpu_hours"]
    return {"generation": g["generation"] + g["tail"],
            "scoring": g["scoring"] + g["reference"] + g["critic"] + g["old_logprobs"],
            "update": g["policy_update"], "sync": g["weight_sync"], "idle": g["idle"]}


def _rl_how(p, camp, rate) -> str:
    parts = _rl_parts(camp)
    total = float(camp.loc["total", "gpu_hours"])
    verifier = float(camp.loc["verifier", "usd"])
    shape = (f"{p['rl_algorithm'].upper()}, {p['rl_prompts_per_step']} prompts × "
             f"{p['rl_samples_per_prompt']} samples of {p['rl_prompt_tokens']} + "
             f"{p['rl_response_tokens']} tokens (max {p['rl_response_tokens_max']}) on "
             f"{p['rl_gpus']} GPUs")
    split = ", ".join(f"{k} {v:,.0f}" for k, v in parts.items())
    return (f"{p['rl_runs']} run(s) × {p['rl_iterations']:,} iterations of {shape}: {split} "
            f"= {total:,.0f} GPU-h × ${rate:.2f}"
            + (f" + verifier ${verifier:,.0f}" if verifier else "")
            + " (notebook 05's campaign; failures of the RL job not added)")


@lru_cache(maxsize=1)
def engine_gap() -> tuple:
    """(lowest, highest) measured slowdown of inference engines against the serving roofline,
    over the published figures of ``inference.serving_validation`` (data/serving_benchmarks.csv):
    the factor by which a served token can cost more than the roofline's price."""
    s = serving_validation()["speedup"]
    return float(s.min()), float(s.max())


def _serve(p, model, gpu, price):
    """``inference.serving_cost`` of ``model`` with the scenario's ``serve_`` set-up and request
    shape (``inference_prompt_tokens`` in, ``inference_output_tokens`` out), as notebook 05
    serves it (``serve_tp`` 0: the cheapest tensor-parallel size, ``choose_serving_tp``)."""
    kw = dict(prompt_tokens=p["inference_prompt_tokens"],
              output_tokens=p["inference_output_tokens"],
              weight_dtype=p["serve_weight_dtype"], kv_dtype=p["serve_kv_dtype"],
              occupancy=p["serve_occupancy"], max_tpot_s=p["serve_max_tpot_s"],
              batch=p["serve_batch"] or None)
    if p["serve_tp"]:
        return serving_cost(model, gpu, price, tp=p["serve_tp"], **kw)
    return choose_serving_tp(model, gpu, price, **kw)


def _served_how(c, usd, band_usd) -> str:
    def amount(x):
        return f"${float(x):,.0f}" if np.ndim(x) == 0 else "per draw"

    return (f"{c.model} on {c.accelerator} × {c.tp} (batch {c.batch}, {c.limit}), "
            f"{c.prompt_tokens} tokens in / {c.output_tokens} out per request, expected on an "
            f"engine ({c.engine} constants, inference.load_engine_efficiency): "
            f"${c.expected_usd_per_m_input:.4g}/M in, ${c.expected_usd_per_m_output:.4g}/M out "
            f"at ${c.price_usd_per_gpu_hour:.2f}/GPU-h, band {amount(band_usd[0])} to "
            f"{amount(band_usd[1])}; the roofline bound (a lower bound on cost) gives "
            f"${c.usd_per_m_input:.4g}/M in, ${c.usd_per_m_output:.4g}/M out, "
            f"{amount(usd)}")


def _synthetic_line(lines, p, spec, gpu, rate) -> float:
    """Synthetic data generation; returns its GPU-hours (for the energy line).

    Given ``ledger_synthetic_usd_per_mtok``: tokens ÷ 10⁶ × that price. Otherwise each generated
    (output) token also pays its share of the prompt's prefill:

        USD = tokens ÷ 10⁶ × ($/M out + P/R × $/M in)

    with ``inference.serving_cost`` of ``ledger_synthetic_model`` (default: the scenario's
    model) at the scenario's ``serve_`` set-up and request shape P in, R out, at the bill's
    GPU-hour price; GPU-hours = USD ÷ price.
    """
    tokens, key = p["ledger_synthetic_tokens"], "data.synthetic"
    label = "synthetic data generation"
    if not _given(tokens):
        lines.append(Line(key, label, "data", "data", "elastic", 0.0,
                          "ledger_synthetic_tokens not given", "", "not given"))
        return 0.0
    if p["ledger_synthetic_usd_per_mtok"] is not None:
        price = p["ledger_synthetic_usd_per_mtok"]
        lines.append(Line(key, label, "data", "data", "elastic", tokens / 1e6 * price,
                          f"{tokens / 1e6:,.4g} M generated tokens × ${price:,.4g}/M tokens "
                          "(given: overrides the served-token price)",
                          "ledger_synthetic_tokens × ledger_synthetic_usd_per_mtok (scenario)",
                          "modelled"))
        return 0.0  # bought as a price: no GPU-hours of the bill's accelerator
    model = p["ledger_synthetic_model"] or spec
    try:  # draws of the price: served at $1/GPU-h, then × price (the cost is linear in it)
        c = _serve(p, model, gpu, rate if not np.ndim(rate) else 1.0)
    except ValueError as e:
        raise ScenarioError(
            f"synthetic data line (ledger_synthetic_model, serve_ keys): {e}") from None
    ratio = c.prompt_tokens / c.output_tokens
    per_m = c.expected_usd_per_m_output + ratio * c.expected_usd_per_m_input
    bound = (c.usd_per_m_output + ratio * c.usd_per_m_input) * tokens / 1e6
    per_m = per_m if not np.ndim(rate) else per_m * rate
    usd = tokens / 1e6 * per_m
    lo, hi = c.expected_usd_per_m_blended_band
    band = (usd * lo / c.expected_usd_per_m_blended, usd * hi / c.expected_usd_per_m_blended)
    lines.append(Line(key, label, "data", "data", "elastic", usd,
                      f"{tokens / 1e6:,.4g} M generated tokens × ${per_m:.4g}/M (out + "
                      f"{c.prompt_tokens}/{c.output_tokens} × in): " +
                      _served_how(c, bound * (rate if np.ndim(rate) else 1.0), band),
                      "llmcost.inference.serving_cost (expected throughput); "
                      "data/serving_benchmarks.csv, data/engine_efficiency.csv", "modelled",
                      "05_rl_loop"))
    return usd / rate


def _eval_line(lines, p, spec, gpu, rate) -> float:
    """Benchmark runs; returns their GPU-hours (for the energy line).

    Given ``ledger_eval_gpu_hours``: GPU-hours × price. Otherwise ``ledger_eval_requests``
    requests of P prompt and R output tokens (``inference_`` keys) served by the scenario's
    model: USD = requests × (P × $/M in + R × $/M out) ÷ 10⁶ (``inference.serving_cost``);
    GPU-hours = USD ÷ price.
    """
    key, label = "eval.benchmarks", "benchmark runs (inference)"
    if _given(p["ledger_eval_gpu_hours"]):
        h = p["ledger_eval_gpu_hours"]
        lines.append(Line(key, label, "evaluation", "post-training", "elastic", h * rate,
                          f"{h:,.4g} GPU-h × ${rate:.2f}/GPU-h (given: overrides "
                          "ledger_eval_requests)", "ledger_eval_gpu_hours at the training price",
                          "modelled"))
        return h
    n = p["ledger_eval_requests"]
    published = not _given(n) and p["ledger_published_defaults"]
    if published:  # one HELM-scale suite run of the final model, in the scenario's request shape
        n = default("eval_suite_tokens") / (p["inference_prompt_tokens"]
                                            + p["inference_output_tokens"])
    if not _given(n):
        lines.append(Line(key, label, "evaluation", "post-training", "elastic", 0.0,
                          "ledger_eval_requests not given", "", "not given"))
        return 0.0
    try:  # draws of the price: served at $1/GPU-h, then × price (the cost is linear in it)
        c = _serve(p, spec, gpu, rate if not np.ndim(rate) else 1.0)
    except ValueError as e:
        raise ScenarioError(f"benchmark line (serve_ keys): {e}") from None
    usd = n * (c.prompt_tokens * c.expected_usd_per_m_input
               + c.output_tokens * c.expected_usd_per_m_output) / 1e6
    bound = n * (c.prompt_tokens * c.usd_per_m_input + c.output_tokens * c.usd_per_m_output) / 1e6
    usd = usd if not np.ndim(rate) else usd * rate
    lo, hi = c.expected_usd_per_m_blended_band
    band = (usd * lo / c.expected_usd_per_m_blended, usd * hi / c.expected_usd_per_m_blended)
    lines.append(Line(key, label, "evaluation", "post-training", "elastic", usd,
                      (f"published default: one run of a HELM-scale suite, "
                       f"{published_range('eval_suite_tokens')} tokens per model; a lower "
                       "bound: labs evaluate many checkpoints, and HELM itself spent 19,500 "
                       "GPU-h on its open models; " if published else "")
                      + f"{n:,.4g} requests × ({c.prompt_tokens} × in + {c.output_tokens} × out): "
                      + _served_how(c, bound * (rate if np.ndim(rate) else 1.0), band),
                      ("data/ledger_defaults.csv eval_suite_tokens: " + default_source(
                          "eval_suite_tokens") + "; " if published else "")
                      + "llmcost.inference.serving_cost (expected throughput); "
                      "data/serving_benchmarks.csv, data/engine_efficiency.csv",
                      "default" if published else "modelled", "05_rl_loop"))
    return usd / rate


def _processing_line(lines, p, rate) -> float:
    """Data cleaning and deduplication compute; returns its GPU-hours (for the energy line).

    Given ``ledger_data_processing_usd``: that sum. Otherwise, with
    ``ledger_published_defaults``: GPU-hours = training tokens (main run and phases) × 4.0e-10
    H100-h per token (FineWeb's classifier pass, ``published.processing_gpu_hours``), USD =
    GPU-hours × the bill's GPU-hour price. Else 0 and "not given"."""
    key, label = "data.processing", "cleaning and deduplication compute"
    if _given(p["ledger_data_processing_usd"]) or not p["ledger_published_defaults"]:
        _given_line(lines, key, label, "data", "elastic", p["ledger_data_processing_usd"],
                    "ledger_data_processing_usd (scenario)")
        return 0.0
    tokens = p["train_tokens"]  # the corpus processed once; phases reuse its tokens
    h = _num(processing_gpu_hours(tokens))
    lines.append(Line(key, label, "data", "data", "elastic", _num(h * rate),
                      f"published default: {tokens:.3g} training tokens × "
                      f"{published_range('data_processing_gpu_hours_per_token')} GPU-h/token = "
                      f"{h:,.0f} GPU-h × ${rate:.2f}/GPU-h; a lower bound (the classifier pass "
                      "only: extraction and MinHash dedup run on CPUs, hours not published)",
                      "data/ledger_defaults.csv data_processing_gpu_hours_per_token: "
                      + default_source("data_processing_gpu_hours_per_token"), "default"))
    return h


def _annotation_line(lines, p) -> None:
    """Human annotation: ``ledger_annotation_samples`` × ``ledger_annotation_usd_per_sample``;
    with ``ledger_published_defaults`` and no samples given, Llama 2's comparisons and SFT
    demonstrations × $0.30 per item (``published.annotation_usd``; a lower bound)."""
    key, label = "data.annotation", "annotation (human labels, preferences)"
    if _given(p["ledger_annotation_samples"]) or not p["ledger_published_defaults"]:
        _product_line(lines, key, label, "data", "elastic", p["ledger_annotation_samples"],
                      p["ledger_annotation_usd_per_sample"], "samples", "$/sample",
                      "ledger_annotation_samples × usd_per_sample")
        return
    lines.append(Line(
        key, label, "data", "data", "elastic", annotation_usd(),
        f"published default: ({default('preference_comparisons'):,.0f} preference comparisons + "
        f"{default('sft_demonstrations'):,.0f} SFT demonstrations, Llama 2) × "
        f"${published_range('usd_per_preference_comparison')}/item; a lower bound "
        "(crowdworker rate on single-turn pairs; Llama 3's model card reports 'over 10M "
        "human-annotated examples', not split by kind: about 7x these items)",
        "data/ledger_defaults.csv preference_comparisons, sft_demonstrations: "
        + default_source("preference_comparisons") + "; usd_per_preference_comparison: "
        + default_source("usd_per_preference_comparison"), "default"))


def _human_eval_line(lines, p) -> None:
    """Human evaluation: hours × $/h given; with ``ledger_published_defaults`` and no hours,
    Llama 2's 18,579 rated generation pairs × 3 raters × $0.30 per rating
    (``published.human_eval_usd``)."""
    key, label = "eval.human", "human evaluation and red-teaming"
    if _given(p["ledger_human_eval_hours"]) or not p["ledger_published_defaults"]:
        _product_line(lines, key, label, "evaluation", "elastic", p["ledger_human_eval_hours"],
                      p["ledger_human_eval_usd_per_hour"], "hours", "$/h",
                      "ledger_human_eval_hours × usd_per_hour")
        return
    lines.append(Line(
        key, label, "evaluation", "post-training", "elastic", human_eval_usd(),
        f"published default: {published_range('human_eval_ratings')} ratings (Llama 2: ~4,000 "
        "prompts against each of five comparison models, Table 32, × 3 raters) × "
        f"${published_range('usd_per_preference_comparison')}/rating; a lower bound: safety "
        "ratings and red-teaming hours are not counted",
        "data/ledger_defaults.csv human_eval_ratings: " + default_source("human_eval_ratings"),
        "default"))


def _contributors_line(p, project_months, project_months_source) -> Line:
    """People from a paper's contributor list, Epoch's rule (Cottier et al. 2024 §2.5 and their
    code): USD = contributors × 0.2 FTE each (90% CI 0.05-0.8) × project months ÷ 12 × loaded
    cost per FTE-year ($330K)."""
    n, fte = p["ledger_contributors"], default("fte_per_contributor")
    rate = default("staff_usd_per_fte_year")
    return Line("people.staff", "people (roles × FTE × months × loaded cost)", "people",
                "whole project", "fixed", _num(n * fte * project_months / 12.0 * rate),
                f"published default: {n:,.0f} contributors × "
                f"{published_range('fte_per_contributor')} FTE each × {project_months:.1f} mo × "
                f"${rate:,.0f}/FTE-year (project months: {project_months_source})",
                "ledger_contributors (scenario); data/ledger_defaults.csv fte_per_contributor: "
                + default_source("fte_per_contributor") + "; staff_usd_per_fte_year: "
                + default_source("staff_usd_per_fte_year"), "default")


def _published_note(lines, p, key) -> None:
    """With ``ledger_published_defaults``, a line still 'not given' says which sources were
    searched for a default (``published.not_published``)."""
    if not p["ledger_published_defaults"]:
        return
    ix = next(i for i, ln in enumerate(lines) if ln.key == key)
    ln = lines[ix]
    if ln.status == "not given":
        lines[ix] = Line(ln.key, ln.line, ln.category, ln.phase, ln.kind, ln.usd,
                         f"{ln.how}; {not_published(key)}", ln.source, ln.status, ln.notebook)


def _given_line(lines, key, label, category, kind, usd, source):
    lines.append(Line(key, label, category, category if category != "data" else "data", kind,
                      _num(usd), f"{usd:,.0f} USD given" if _given(usd) else
                      f"{source.split()[0]} not given", source if _given(usd) else "",
                      "modelled" if _given(usd) else "not given"))


def _product_line(lines, key, label, category, kind, qty, rate, qty_unit, rate_unit, source,
                  given=None):
    """A quantity × rate line; 0 and "not given" when the scenario gives no quantity (``given``
    names the scenario key)."""
    phase = {"data": "data", "evaluation": "post-training", "storage": "whole project",
             "network": "whole project", "operations": "whole project"}[category]
    if not _given(qty) or not _given(rate):
        lines.append(Line(key, label, category, phase, kind, 0.0,
                          f"{given or source.split(' ')[0]} not given", "", "not given"))
        return
    lines.append(Line(key, label, category, phase, kind, _num(qty * rate),
                      f"{qty:,.4g} {qty_unit} × {rate:,.4g} {rate_unit}", source, "modelled"))


# ------------------------------------------------------------------------------ comparisons
def compare(a: Ledger, b: Ledger, names=("A", "B")):
    """Two bills side by side, line by line, with the difference (B − A) per line.

    Returns
    -------
    DataFrame with columns ``line``, ``<A> usd``, ``<B> usd``, ``difference usd``; a line only
    one bill has shows 0 in the other; a not-modelled line shows None.
    """
    _ledger(a, "a"), _ledger(b, "b")
    if not (isinstance(names, (tuple, list)) and len(names) == 2
            and all(isinstance(n, str) for n in names)):
        raise ValueError(f"names={names!r} must be two strings")
    ta = {ln.key: ln for ln in a.lines}
    tb = {ln.key: ln for ln in b.lines}
    keys = list(ta) + [k for k in tb if k not in ta]
    rows = []
    for k in keys + ["total"]:
        if k == "total":
            ua, ub, label = a.total_usd, b.total_usd, "total"
        else:
            la, lb = ta.get(k), tb.get(k)
            ua = la.usd if la else 0.0
            ub = lb.usd if lb else 0.0
            label = (la or lb).line
        diff = None if ua is None or ub is None else ub - ua
        rows.append({"line": label, f"{names[0]} usd": ua, f"{names[1]} usd": ub,
                     "difference usd": diff})
    return pd.DataFrame(rows)


def spend_timeline(ledger: Ledger, budget_usd=None, thresholds=(0.5, 0.8, 1.0), n_points=200):
    """Expected cumulative spend over the project against budget alert thresholds.

    Fixed lines (storage, people, operations, reserves, reserved or owned compute) accrue evenly
    over the project; elastic compute accrues as it runs on the scenario's cluster: exploratory
    runs first, then the final run over its wall-clock days, then post-training. The project
    lasts ``ledger_project_months`` or as long as that schedule, whichever is longer. This is the
    spend a budget alert (e.g. a cloud budget with 50/80/100% thresholds) watches.

    Returns
    -------
    DataFrame with ``day`` and ``cumulative_usd``; ``.attrs['alerts']`` maps each threshold to
    the first day the expected spend crosses ``threshold × budget`` (None if never) and
    ``.attrs['budget_usd']`` holds the budget (default: the bill's total).
    """
    _ledger(ledger)
    n_points = int(as_array(n_points, "n_points", positive=True, integer=True))
    budget = ledger.total_usd if budget_usd is None else float(
        as_array(budget_usd, "budget_usd", positive=True))
    th = as_array(thresholds, "thresholds", positive=True)
    run_days = ledger.figures["wall_clock_days"]
    explore = ledger.usd("compute.exploratory")
    final = ledger.usd("compute.pretraining") + ledger.usd("compute.failures")
    post = ledger.usd("post.")
    per_day = final / run_days if final and run_days else 0.0
    # schedule on the same cluster: exploration first, then the final run, then post-training
    explore_days = explore / per_day if per_day else 0.0
    post_days = post / per_day if per_day else 0.0
    project_days = ledger.figures["project_months"] * SECONDS_PER_MONTH / SECONDS_PER_DAY
    days_total = max(project_days, explore_days + run_days + post_days)
    elastic_other = sum(ln.usd or 0 for ln in ledger.lines if ln.kind == "elastic"
                        and not ln.key.startswith(("compute.", "post.")))
    fixed = sum(ln.usd or 0 for ln in ledger.lines if ln.kind == "fixed")
    d = np.linspace(0.0, days_total, n_points)

    def ramp(start, length):
        return np.clip((d - start) / length, 0, 1) if length > 0 else (d >= start).astype(float)

    if ledger.figures["pricing"] in ("reserved", "owned"):  # committed capacity accrues evenly
        cum = (fixed + elastic_other) * d / days_total
    else:
        cum = (fixed + elastic_other) * d / days_total + explore * ramp(0, explore_days) + \
            final * ramp(explore_days, run_days) + post * ramp(explore_days + run_days, post_days)
    df = pd.DataFrame({"day": d, "cumulative_usd": cum})
    alerts = {}
    for t in np.atleast_1d(th):
        hit = np.nonzero(cum >= t * budget - 1e-6 * budget)[0]
        alerts[float(t)] = float(d[hit[0]]) if hit.size else None
    df.attrs.update(alerts=alerts, budget_usd=budget)
    return df


def claim_questions(ledger: Ledger):
    """The questions to ask of any "trained on N GPUs for D days" claim, answered for this
    scenario's bill.

    Returns
    -------
    DataFrame with ``question``, ``answer`` and ``why it matters``.
    """
    f = _ledger(ledger).figures
    mfu = f["mfu"]
    explore = ledger.line("compute.exploratory")
    post = [ln for ln in ledger.lines if ln.key.startswith("post.")]
    post_txt = ", ".join(f"{ln.line}: {ln.status}" for ln in post)
    rows = [
        ("Which accelerator, how many, at what precision?",
         f"{f['n_gpus']:,} × {f['accelerator']}", "peak FLOP/s differ several-fold"),
        ("How many days: of steady training, or of wall clock with failures?",
         f"{f['main_ideal_gpu_hours'] / f['n_gpus'] / 24:,.1f} days ideal, "
         f"{f['wall_clock_days']:,.1f} with failures (goodput {f['goodput']:.1%})",
         "restarts and checkpoint stalls are paid for"),
        ("At what MFU, and on which FLOP count?", f"{mfu:.1%}, {f['mfu_source']}; "
         "model FLOPs with the full attention matrix (compute.MFU_METHOD)",
         "6ND and attention-inclusive counts differ by 5-20%"),
        ("How many tokens, so how many FLOPs?", f"{f['training_flops_mfu_basis']:.3g} FLOP (MFU "
         f"basis; 6ND {f['training_flops_6nd']:.3g}) over all pre-training phases", "N × D × 6 is the floor; long context adds attention"),
        ("Does it include exploratory, ablation and failed runs?",
         f"{explore.status}: {format_usd(explore.usd)} ({explore.how})",
         "Cottier et al. 2024: development compute is 1.2-4× the final run"),
        ("Does it include post-training?", post_txt, "SFT, RL and evaluation are separate runs"),
        ("At what price, and is it a rented or an owned GPU-hour?",
         f"${f['price_usd_per_gpu_hour']:.2f}/GPU-h, {f['pricing']} ({f['price_source']})",
         "list prices differ 3× between providers; owned hardware is amortised"),
        ("What does the final run cost, and what does the project cost?",
         f"{format_usd(f['final_run_usd'])} final run; {format_usd(ledger.total_usd)} bill",
         "a headline 'training cost' is usually the first number"),
    ] + plan_questions(ledger)
    return pd.DataFrame(rows, columns=["question", "answer", "why it matters"])


def plan_questions(ledger: Ledger) -> list:
    """The claim questions about how the GPUs were used and who pays when it fails: batch size,
    the parallel plan, communication, and the rerun. Each answered from the bill's scenario
    (``global_batch_tokens``, ``tp``/``pp``/``dp``/``cp``/``ep``, ``zero_stage``, the MFU's
    source, ``ledger_rerun_probability``); a value the scenario does not give says so.

    Returns
    -------
    list of (question, answer, why it matters).
    """
    sc = _ledger(ledger).scenario
    f = ledger.figures
    batch = sc.get("global_batch_tokens")
    plan = {k: sc.get(k) for k in ("tp", "pp", "dp", "cp", "ep")}
    given = {k: v for k, v in plan.items() if v}
    plan_txt = (" × ".join(f"{k.upper()} {v}" for k, v in given.items())
                + f", ZeRO stage {sc.get('zero_stage', 'not given')}") if given else \
        "not given (tp/pp/dp 0: the step model chooses a plan only when mfu: predict)"
    rerun = ledger.line("reserve.rerun")
    return [
        ("What global batch, in tokens, and how many steps?",
         f"{batch:,.0f} tokens per step, {sc.get('train_tokens', 0) / batch:,.0f} steps of the "
         "main run" if batch else "not given",
         "past the critical batch more GPUs buy no fewer steps (notebook 02)"),
        ("Which parallel plan (TP, PP, DP, CP, EP, ZeRO)?", plan_txt,
         "the plan sets memory per GPU, the pipeline bubble and what must be communicated "
         "(notebook 03)"),
        ("How much of the step is exposed communication?",
         f"inside the MFU: {f['mfu_source']}",
         "all-reduce, all-gather and pipeline sends that do not overlap compute lower the MFU "
         "at scale (notebook 04)"),
        ("Who pays for a rerun after a divergence or a bad data mix?",
         f"{rerun.status}: {format_usd(rerun.usd)} reserved ({rerun.how})",
         "a relaunched final run is paid again in full; a claim of one run hides it"),
    ]


def format_usd(usd) -> str:
    """$2.49M; 'not modelled' for None."""
    return "not modelled" if usd is None else fmt_usd(usd)


def with_changes(ledger_or_scenario, **changes) -> Ledger:
    """The bill of the same scenario with some parameters changed (validated like any scenario),
    e.g. ``with_changes(bill, mfu=0.5)``.

    A pilot's throughput (``ledger_pilot_tokens_per_s_per_gpu``) given as a change to a bill
    whose ``mfu`` is a range replaces that range: the pilot measures the MFU, so the calibrated
    bill has no MFU range (a scenario that gives both at once is still refused)."""
    base = ledger_or_scenario.scenario if isinstance(ledger_or_scenario, Ledger) \
        else ledger_or_scenario
    if not isinstance(base, dict):
        raise ValueError(f"ledger_or_scenario={ledger_or_scenario!r} must be a Ledger or a "
                         "scenario dict")
    new = {**base, **changes}
    if changes.get("ledger_pilot_tokens_per_s_per_gpu") is not None and "mfu" not in changes \
            and isinstance(base.get("mfu"), Range):
        # a pilot measures the MFU: its calibration replaces the scenario's ranged guess (the
        # range's point stays as the nominal mfu; the bill's MFU is the pilot's)
        new["mfu"] = base["mfu"].point
    return build_ledger(new)


def spot_verdict(bill: Ledger) -> list:
    """Does spot capacity pay for this bill's final run? Lines of text for notebook 07.

    Rebuilds the bill with ``pricing="spot"`` at the catalogue spot median (the bill's spot
    model: pre-emptions added to the failure rate, ``ledger_spot_*``), once without resumable
    training (refused when the job would never finish) and once with checkpoints. Spot pays iff
    p_spot / g_spot < p / g (``reliability.spot_pays``), i.e. iff its final run costs less.
    """
    _ledger(bill, "bill")
    spot, lines = dict(pricing="spot", price_usd_per_gpu_hour=None), []
    try:
        with_changes(bill, **spot, ledger_resumable=False)
        lines.append("without resumable training: the bill accepts it")
    except ScenarioError as e:
        lines.append(f"without resumable training: {str(e).split(': ', 1)[-1]}")
    try:
        f, b = with_changes(bill, **spot).figures, bill.figures
    except ScenarioError as e:
        return lines + [f"spot: {e}"]
    pays = bool(rel.spot_pays(b["price_usd_per_gpu_hour"], b["goodput"],
                              f["price_usd_per_gpu_hour"], f["goodput"]))
    lines.append(f"with checkpoints: job MTBF {f['job_mtbf_s'] / 60:,.0f} min, goodput "
                 f"{f['goodput']:.1%}, {format_usd(f['final_run_usd'])} at the catalogue spot "
                 f"median ${f['price_usd_per_gpu_hour']:.2f}/GPU-h vs "
                 f"{format_usd(b['final_run_usd'])} at ${b['price_usd_per_gpu_hour']:.2f}: "
                 f"spot {'pays' if pays else 'does not pay'} here")
    return lines


# ------------------------------------------------------------------------------ ranges: Monte Carlo
@dataclass
class LedgerDraws:
    """The bill of a scenario with ranges, priced over ``samples`` Monte Carlo draws at once
    (``simulate_ledger``).

    ``line_usd`` maps each priced line's key to its amounts per draw (shape ``(samples,)``; a
    line no ranged input reaches repeats its point amount), ``total_usd`` is their sum per draw,
    ``inputs`` the draws of each ranged input, ``ranges`` their ``llmcost.ranges.Range`` and
    ``point`` the bill at the points (``build_ledger``). Lines sum to the total in every draw,
    hence also at the mean; percentiles do not add (``summary``). The arrays of lines no range
    reaches are read-only broadcasts of one amount (copy one before writing into it).
    """

    line_usd: dict
    total_usd: np.ndarray
    inputs: dict
    point: Ledger
    ranges: dict = field(default_factory=dict)
    samples: int = 0
    seed: int = 0
    _values: dict = field(default_factory=dict, repr=False)  # the point values, for tornado()

    def summary(self):
        """Per line and the total: the point amount, the mean and the P10 / P50 / P90 over the
        draws, in USD (columns ``line``, ``point``, ``mean``, ``p10``, ``p50``, ``p90``; index:
        the line key, last row ``total``).

        The means add up to the total's mean (lines add up in every draw). **The P10 / P50 / P90
        columns do not add**: each is a percentile of one line on its own, and the total's P90
        is less than the sum of the lines' P90s when they do not all peak in the same draws.
        A not-modelled line (no amount) is listed with NaN. ``.attrs['note']`` says so.
        """
        keys = [ln.key for ln in self.point.lines if ln.key in self.line_usd]
        rows = []
        for k in keys + ["total"]:
            ln = self.point.line(k) if k != "total" else None
            x = self.total_usd if ln is None else self.line_usd[k]
            if x.strides and x.strides[0] == 0:  # one amount repeated: no ranged input reaches it
                mean = p10 = p50 = p90 = float(x[0])
            else:
                mean, (p10, p50, p90) = float(x.mean()), np.quantile(x, [0.1, 0.5, 0.9])
            rows.append({"key": k, "line": ln.line if ln else "total",
                         "point": ln.usd if ln else self.point.total_usd,
                         "mean": mean, "p10": float(p10), "p50": float(p50),
                         "p90": float(p90)})
        for ln in self.point.lines:
            if ln.key not in self.line_usd:
                rows.insert(-1, {"key": ln.key, "line": ln.line, "point": None, "mean": np.nan,
                                 "p10": np.nan, "p50": np.nan, "p90": np.nan})
        df = pd.DataFrame(rows).set_index("key")
        df.attrs["note"] = (
            f"{self.samples:,} Monte Carlo draws (seed {self.seed}) of "
            + (", ".join(f"{k} ({r.describe()})" for k, r in self.ranges.items()) or
               "no ranged input (every draw is the point bill)")
            + ". Lines add up to the total in every draw and at the mean; the P10 / P50 / P90 "
            "columns are percentiles of each line on its own and do not add up.")
        return df

    def tornado(self):
        """What drives the spread: for each ranged input, the total with that input at its
        P10 and at its P90 and every other input at its point (the mode, midpoint or median),
        sorted by the swing |total(P90) − total(P10)|, largest first.

        Returns
        -------
        DataFrame with ``input``, ``range``, ``p10`` and ``p90`` (the input's own percentiles),
        ``total_at_p10_usd``, ``total_at_p90_usd`` and ``swing_usd``; ``.attrs['point_usd']``
        is the point bill's total. Empty (with ``.attrs['note']``) without ranged inputs.
        """
        cols = ["input", "range", "p10", "p90", "total_at_p10_usd", "total_at_p90_usd",
                "swing_usd"]
        if not self.ranges:
            df = pd.DataFrame(columns=cols)
            df.attrs.update(point_usd=self.point.total_usd,
                            note="no ranged input: nothing drives a spread")
            return df
        keys = list(self.ranges)
        n = 2 * len(keys)
        draws = {}
        for j, k in enumerate(keys):
            col = np.full(n, float(self._values[k]))
            col[2 * j] = float(self.ranges[k].quantile(0.1))
            col[2 * j + 1] = float(self.ranges[k].quantile(0.9))
            draws[k] = col
        total = _price_draws(self._values, draws, n)[1]
        rows = [{"input": k, "range": self.ranges[k].describe(), "p10": draws[k][2 * j],
                 "p90": draws[k][2 * j + 1], "total_at_p10_usd": float(total[2 * j]),
                 "total_at_p90_usd": float(total[2 * j + 1]),
                 "swing_usd": float(abs(total[2 * j + 1] - total[2 * j]))}
                for j, k in enumerate(keys)]
        df = pd.DataFrame(rows, columns=cols).sort_values("swing_usd", ascending=False,
                                                          ignore_index=True)
        df.attrs["point_usd"] = self.point.total_usd
        return df

    def percentiles(self, key: str = "total") -> dict:
        """``{"p10": ..., "p50": ..., "p90": ...}`` of one line's draws (or the total's), USD."""
        x = self.total_usd if key == "total" else self.line_usd.get(key)
        if x is None:
            raise ValueError(f"key={key!r} must be 'total' or a priced line: "
                             f"{', '.join(self.line_usd)}")
        q = np.quantile(x, [0.1, 0.5, 0.9])
        return {"p10": float(q[0]), "p50": float(q[1]), "p90": float(q[2])}

    def bill_summary(self) -> dict:
        """``summary.json``'s bill with its ranges: the point bill's ``Ledger.summary()``, each
        line with ``mean_usd``, ``p10_usd``, ``p50_usd`` and ``p90_usd`` beside its ``usd`` (the
        point), the total's (``bill.total_p10_usd``, ...), the ranged inputs
        (``bill.ranges``), the tornado (``bill.tornado``), the draws and seed, and the note
        that percentiles do not add (``bill.range_note``). Without ranges every percentile is
        the point amount."""
        out = self.point.summary()
        s = self.summary()
        stats = ("mean", "p10", "p50", "p90")
        for k, ln in out["bill.lines"].items():
            for c in stats:
                v = s.loc[k, c]
                ln[f"{c}_usd"] = None if v != v else float(v)
        for c in stats:
            out[f"bill.total_{c}_usd"] = float(s.loc["total", c])
        out.update({"bill.samples": self.samples, "bill.seed": self.seed,
                    "bill.ranges": {k: r.describe() for k, r in self.ranges.items()},
                    "bill.tornado": self.tornado().to_dict("records"),
                    "bill.range_note": s.attrs["note"]})
        return out


def _price_draws(values: dict, draws: dict, samples: int, ranges=None):
    """Price the bill with some inputs as arrays of draws (the rest at their points): the same
    ``_build`` as the point bill, its arithmetic broadcast over the draws. Returns
    (line_usd dict, total_usd array); lines without an amount (not modelled) are left out."""
    q = dict(values)
    for k, arr in draws.items():
        q[k] = np.asarray(arr, dtype=float).view(_Draws)
    try:
        with np.errstate(all="ignore"):
            led = _safe_build(q)
    except ValueError as e:
        raise _draws_error(values, draws, samples, e, ranges) from None
    line_usd = {}
    for ln in led.lines:
        if ln.usd is None:
            continue
        line_usd[ln.key] = np.broadcast_to(np.asarray(ln.usd, dtype=float), (samples,)).view(
            np.ndarray)
    total = sum(line_usd.values())  # in line order, as Ledger.total_usd adds them
    return line_usd, np.broadcast_to(np.asarray(total, dtype=float), (samples,)).copy()


def _scalar_error(values: dict, key: str, x: float):
    """The error of the point bill with ``key`` at ``x`` (None when it prices)."""
    try:
        with np.errstate(all="ignore"):
            _safe_build({**values, key: float(x)})
    except ValueError as e:
        return e
    return None


def _draws_error(values: dict, draws: dict, samples: int, err: Exception, ranges=None):
    """A ScenarioError for a bill that cannot be priced in some draws: for each ranged input
    alone (the others at their points), the draws that break a rule are found by bisection on
    its sorted draws (the rules of the bill are monotone in each input: a higher failure rate,
    restart time or pre-emption rate only lowers goodput); the message names the input, the
    part of its range that breaks the rule, how many of the draws do, and the rule (the error
    of the bill at its worst draw). When no input breaks alone, the combination does."""
    parts = []
    for k, arr in draws.items():
        xs = np.sort(np.asarray(arr, dtype=float))
        lo_bad, hi_bad = _scalar_error(values, k, xs[0]), _scalar_error(values, k, xs[-1])
        if lo_bad is None and hi_bad is None:
            continue
        if hi_bad is not None and lo_bad is None:  # bad above a threshold: first bad index
            a, b = 0, len(xs) - 1  # xs[a] good, xs[b] bad
            while b - a > 1:
                m = (a + b) // 2
                a, b = (a, m) if _scalar_error(values, k, xs[m]) else (m, b)
            n_bad, part, worst = len(xs) - b, f"draws above {xs[a]:.4g}", hi_bad
        elif lo_bad is not None and hi_bad is None:
            a, b = 0, len(xs) - 1  # xs[a] bad, xs[b] good
            while b - a > 1:
                m = (a + b) // 2
                a, b = (m, b) if _scalar_error(values, k, xs[m]) else (a, m)
            n_bad, part, worst = a + 1, f"draws below {xs[b]:.4g}", lo_bad
        else:
            n_bad, part, worst = len(xs), "its whole range", hi_bad
        r = (ranges or {}).get(k)
        parts.append(f"{k} ({r.describe() if r is not None else 'ranged'}): {part} break a rule "
                     f"in {n_bad:,} of {samples:,} draws (the other inputs at their points); at "
                     f"its worst draw, {xs[-1] if worst is hi_bad else xs[0]:.4g}: {worst}")
    if parts:
        return ScenarioError("the bill cannot be priced in some Monte Carlo draws: "
                             + "; ".join(parts) + ". Narrow the range(s) so that every draw "
                             "obeys the rule")
    return ScenarioError("the bill cannot be priced in some Monte Carlo draws of the ranged "
                         f"inputs {', '.join(draws)} taken together (each alone prices at "
                         f"every one of its draws): {err}. Narrow the ranges")


def predicted_mfu_range(pred) -> Range | None:
    """The step-time model's error band on a predicted MFU (``_mfu_prediction``, set by
    ``report.resolve_mfu``) as a range on ``mfu``: triangular from the band's low to its high
    (capped where no run has measured more, ``accuracy.band_cap``; never above MFU 1) with its
    mode at the prediction, so that the range's point is the prediction every page prints.
    None without a band of non-zero width."""
    band = pred.get("band", {}) if isinstance(pred, dict) else {}
    if "low" not in band or "high" not in band:
        return None
    low, high = float(band["low"]), min(float(band["high"]), 1.0)
    if not high > low:
        return None
    mode = min(max(float(pred.get("value", low)), low), high)
    return Range("triangular", low=low, mode=mode, high=high)


def scenario_ranges(values: dict) -> dict:
    """The ranged inputs of validated scenario values: each ``llmcost.ranges.Range`` of non-zero
    width, plus the step-time model's error band on a predicted MFU (``predicted_mfu_range``)
    on ``mfu`` when ``mfu`` is not ranged already (its point stays the prediction)."""
    if not isinstance(values, Mapping):
        raise ValueError(f"values={values!r} must be a mapping of scenario values")
    out = {k: v for k, v in values.items() if is_ranged(v)}
    band = predicted_mfu_range(values.get("_mfu_prediction"))
    if "mfu" not in out and band is not None and \
            values.get("ledger_pilot_tokens_per_s_per_gpu") is None:
        out["mfu"] = band
    return out


#: Most Monte Carlo draws ``simulate_ledger`` takes: every draw holds each of the bill's ~40
#: lines as a float64 (1,000,000 draws: ~0.3 GB for the lines, more while pricing them).
MAX_SAMPLES = 1_000_000


def simulate_ledger(scenario: dict, samples: int = 100_000, seed: int = 0) -> LedgerDraws:
    """The bill of a scenario with ranges: ``samples`` Monte Carlo draws of every ranged input
    at once, each draw a whole bill.

    Every ranged input (``scenario_ranges``: the scenario's ``llmcost.ranges.Range`` values and
    the predicted MFU's band) is drawn ``samples`` times from
    ``numpy.random.default_rng([seed, zlib.crc32(key)])`` (``Range.draws``): common random
    numbers, so two scenarios that range the same input get the same draws of it and
    ``after.total_usd − before.total_usd`` is a difference per draw. The bill is then priced
    once with those inputs as arrays (``_build``, the point bill's own arithmetic broadcast over
    the draws); inputs without a range stay at their value. Lines add up to the total in every
    draw.

    Parameters
    ----------
    scenario : dict
        As ``build_ledger`` (ranges as ``Range`` objects or their scenario-file forms).
    samples : int
        Draws (1 to ``MAX_SAMPLES`` = 1,000,000; 100,000 by default: the Monte Carlo error of a percentile is then about
        0.1-0.3% of the spread).
    seed : int
        Seed (>= 0).

    Returns
    -------
    LedgerDraws (``summary()``, ``tornado()``); ``.point`` is ``build_ledger(scenario)``.

    Raises
    ------
    ScenarioError (a ValueError)
        As ``build_ledger``; a bad ``samples`` or ``seed``; a ranged ``mfu`` together with a
        pilot's throughput (which sets the MFU).
    """
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or \
            not 1 <= samples <= MAX_SAMPLES:
        raise ScenarioError(f"samples={samples!r} must be a whole number from 1 to "
                            f"{MAX_SAMPLES:,} (each draw holds every line of the bill in memory;"
                            " 100,000 already puts a percentile's Monte Carlo error near 0.1-0.3%"
                            " of the spread)")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ScenarioError(f"seed={seed!r} must be a whole number >= 0")
    values = _values(scenario)  # refuses a ranged mfu beside a pilot's throughput
    ranges = scenario_ranges(values)
    pts = point_scenario(values)
    point = _point_build({**pts, "_ranged": {k: v for k, v in values.items()
                                             if isinstance(v, Range)}})
    if ranges:
        point.scenario = values
    pts = provisioned_storage(pts, point)  # provisioned once: every draw uses the same storage
    inputs = {k: r.draws(int(samples), int(seed), k) for k, r in ranges.items()}
    if inputs:
        line_usd, total = _price_draws(pts, inputs, int(samples), ranges)
    else:  # nothing to draw: every draw is the point bill
        line_usd = {ln.key: np.broadcast_to(float(ln.usd), (int(samples),))
                    for ln in point.lines if ln.usd is not None}
        total = np.full(int(samples), point.total_usd)
    return LedgerDraws(line_usd, total, inputs, point, ranges, int(samples), int(seed), pts)


def sized_storage(spec, p: dict, fail_rate, restart_s, ideal_gpu_hours, price,
                  gpus_per_node) -> dict:
    """The checkpoint-storage bandwidth of a scenario that does not state it, and its source:
    ``reliability.sized_storage_bytes_per_s`` (the bandwidth minimising hot-storage cost + the
    cost of GPU time lost to writes and restores, sized at the point of any ranged input). A job
    whose interruptions leave no goodput at any bandwidth falls back to Llama 3's rate per GPU
    (``reliability.job_storage_bytes_per_s``), so that the goodput rule reports the cause."""
    try:
        bw = rel.sized_storage_bytes_per_s(
            spec.n_params, p["n_gpus"], fail_rate, restart_s, ideal_gpu_hours, price,
            p["ckpt_hot_tier"], p["ckpt_keep_last"], recipe=p["ckpt_recipe"],
            gpus_per_node=gpus_per_node, node_bytes_per_s=p["ckpt_node_bytes_per_s"],
            d2h_bytes_per_s=p["ckpt_d2h_bytes_per_s"], async_=p["ckpt_async"],
            planned_per_day=p["fail_planned_per_day"], interval_s=p["ckpt_interval_s"])
    except ValueError:
        bw = float(rel.job_storage_bytes_per_s(p["n_gpus"]))
        return {"bytes_per_s": bw, "source": "n_gpus × 122 MB/s, Llama 3's Tectonic rate (no "
                "bandwidth gives this job goodput)"}
    return {"bytes_per_s": bw, "source": (
        f"sized from the checkpoint plan, {bw / 1e9:,.0f} GB/s: the bandwidth minimising "
        "hot-storage cost + the cost of GPU time lost to writes and restores "
        "(reliability.storage_tradeoff)")}


def provisioned_storage(pts: dict, point: Ledger) -> dict:
    """The point scenario with its checkpoint-storage bandwidth fixed at the point bill's (sized
    from the point's checkpoint plan when the scenario leaves it out): storage is provisioned
    once, before the run, so every draw of the bill uses the same bandwidth."""
    bw = point.figures.get("ckpt_storage_bytes_per_s")
    if pts.get("ckpt_storage_bytes_per_s") is None and bw is not None:
        return {**pts, "ckpt_storage_bytes_per_s": float(bw)}
    return pts


def illustrative_ranges(bill: Ledger) -> dict:
    """Sourced spreads for three inputs of a bill, as ranges around its own points: what
    notebook 00 shows when a scenario gives every input as a number (an illustration; a
    scenario's own ranges replace it).

    * ``mfu``: triangular over the step-time model's held-out error band around the bill's MFU
      (``accuracy.mfu_band``: published runs of this accelerator generation and parallelism
      kind against the model; the band ``mfu: predict`` carries as a uniform range), cut at 1,
      peaked at the bill's MFU so that the point stays the bill's;
    * ``price_usd_per_gpu_hour``: triangular over the interquartile spread (P25-P75, numpy's
      linear quantiles) of the current catalogue prices for the accelerator and pricing mode
      (``data/prices.csv``), widened to hold the bill's price and peaked at it (rented pricing
      with at least two catalogue rows only). Not cheapest to dearest: one outlying provider
      would then set the page's conclusion;
    * ``ledger_exploratory_fraction``: triangular over Cottier et al. 2024's 90% interval,
      0.2-3.0 (``data/ledger_defaults.csv`` low/high), mode the bill's fraction (only when the
      bill prices exploration as a fraction). The interval's ends are taken as the triangle's
      ends, so this range is narrower than theirs (their 5th-95th percentiles become its 0th and
      100th).

    Returns
    -------
    dict key -> (Range, source sentence).
    """
    f, p = _ledger(bill, "bill").figures, bill.scenario
    out = {}
    m = float(f["mfu"])
    band = mfu_band(m, f["accelerator"], int(f["n_gpus"]))
    out["mfu"] = (Range("triangular", low=min(float(band.low), m), mode=m,
                        high=max(min(float(band.high), 1.0), m)),
                  f"the step-time model's error band, {band.low:.1%}-{band.high:.1%} "
                  f"(llmcost.accuracy.mfu_band, {band.regime}), as a triangle peaked at "
                  f"the bill's {m:.1%}")
    price = float(f["price_usd_per_gpu_hour"])
    if f["pricing"] != "owned" and not isinstance(p.get("price_usd_per_gpu_hour"), Range):
        rows = list_prices(f["accelerator"], f["pricing"], current_only=True)
        if len(rows) >= 2:
            q25, q75 = (float(v) for v in rows["price_usd_per_gpu_hour"].quantile([0.25, 0.75]))
            lo, hi = min(q25, price), max(q75, price)
            out["price_usd_per_gpu_hour"] = (
                Range("triangular", low=lo, mode=price, high=hi),
                f"interquartile spread (P25-P75, ${q25:.2f}-${q75:.2f}) of {len(rows)} current "
                f"{f['pricing']} prices for {f['accelerator']} in data/prices.csv (cheapest "
                f"${float(rows['price_usd_per_gpu_hour'].min()):.2f}, dearest "
                f"${float(rows['price_usd_per_gpu_hour'].max()):.2f} left out), widened to "
                f"hold and peaked at the bill's ${price:.2f}")
    if bill.line("compute.exploratory").how.startswith("development compute") and \
            not p.get("ledger_exploratory_runs"):
        row = default_rows()["exploratory_fraction"]
        frac = p.get("ledger_exploratory_fraction")
        frac = float(row["value"]) if frac is None or isinstance(frac, Range) else float(frac)
        lo, hi = float(row["low"]), float(row["high"])
        out["ledger_exploratory_fraction"] = (
            Range("triangular", low=min(lo, frac), mode=frac, high=max(hi, frac)),
            f"Cottier et al. 2024's 90% interval of development compute, {lo:g}-{hi:g} final "
            "runs beyond the final run (data/ledger_defaults.csv), mode the bill's "
            f"{frac:.2f}")
    return out


def compare_draws(a: LedgerDraws, b: LedgerDraws, names=("A", "B")):
    """``compare`` of two simulated bills, with the P10 / P50 / P90 of the difference B − A
    per draw (``difference p10 usd``, ...). With common random numbers (``simulate_ledger``:
    the same seed and sample count, inputs ranged under the same names) draw i of both bills
    sees the same values of their shared ranged inputs, so these are percentiles of a paired
    difference, not of two independent spreads."""
    for x, name in ((a, "a"), (b, "b")):
        if not isinstance(x, LedgerDraws):
            raise ValueError(f"{name}={x!r} must be a LedgerDraws (llmcost.simulate_ledger)")
    if a.samples != b.samples or a.seed != b.seed:
        raise ValueError(f"a and b must share samples and seed for draw-by-draw differences "
                         f"(got {a.samples}/{a.seed} and {b.samples}/{b.seed})")
    df = compare(a.point, b.point, names)
    keys = list(dict.fromkeys([ln.key for ln in a.point.lines] + [ln.key for ln in b.point.lines]))
    zero = np.zeros(a.samples)
    cols = {c: [] for c in ("p10", "p50", "p90")}
    for k in keys + ["total"]:
        if k == "total":
            d = b.total_usd - a.total_usd
        else:
            d = b.line_usd.get(k, zero) - a.line_usd.get(k, zero)
        q = np.quantile(d, [0.1, 0.5, 0.9])
        for c, v in zip(cols, q):
            cols[c].append(float(v))
    for c, v in cols.items():
        df[f"difference {c} usd"] = v
    return df
