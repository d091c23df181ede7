"""Is this training-cost claim plausible? And how close are the workbook's estimates to runs
that were published?

**The method** (the source material's advice for any "trained on N GPUs for D days for $X"
claim): total compute from the FLOP count, divide by the dense peak × utilisation, multiply by
the price, then ask what the figure leaves out.

* FLOPs on two stated bases: ``6ND`` (Kaplan et al. 2020 §2.1, N = *active* parameters,
  embeddings included) and the workbook's **MFU basis** (``compute.MFU_METHOD``: matmul +
  attention FLOPs per token with the full attention mask, ``compute.MFU_CAUSAL = False``).
* Implied utilisation of the claimed accelerator-hours ``H`` (pre-training hours where the
  source splits the claim by phase):

  .. math:: U = \\frac{C}{H \\cdot 3600 \\cdot P_\\text{dtype}}

  against the dense peak ``P`` of the stated dtype and of BF16 (``data/accelerators.csv``).
  ``U`` is a **whole-run** figure (MFU × goodput): GPU-hours that are paid include checkpoint
  stalls, lost work and restarts.
* **Like with like.** Published MFUs are steady-state figures, so the claim's steady-state MFU is
  backed out first: ``MFU_implied = U / goodput``, with goodput from
  ``reliability.checkpoint_plan`` (Daly 2006 interval; the ledger's default failure rate,
  restart time and checkpoint recipe, ``scenario.LEDGER_DEFAULTS``).
* **Verdict**, first that applies:

  - ``implausible``: ``MFU_implied`` (stated dtype's peak) on the **causal count** (the FLOPs
    a causal run does: kernels skip the masked half of attention; the cost floor's count too,
    so the two physical bounds agree) above the achievable matmul ceiling ``matmul_fraction``
    of ``data/efficiency.csv`` (no real run beats its fastest GEMM; for an FP8 claim the
    ceiling of its FLOP mix, the attention core, LM head and router at the BF16 rate,
    ``_fp8_mix_ceiling``); the comparisons with
    published runs below are on the MFU basis, the one published MFUs are counted on. Hours
    that imply more than ``MAX_IMPLIED_UTILISATION`` × the dense peak are refused (ValueError)
    as a mistyped figure;
  - ``optimistic``: ``MFU_implied`` (BF16 peak) above the best figure published comparable to
    the claim (``best_reference``: ``accuracy.comparable_published_mfu``'s rule, the same
    hardware generation, MoE or dense, total parameters within 4×, BF16 runs for a BF16 claim
    and FP8 runs and BF16 runs × r for an FP8 one, all on the BF16 peak; the step-time
    validation table,
    vendor claims and the whole-run figures of data/published_runs.csv). An FP8 claim is
    judged like a BF16 one, on the BF16 basis: published FP8 runs report their MFU on the BF16
    peak (Megatron-Bridge 25.11's Llama 3 8B FP8 on 8 H100: 84.6% of it), so a claim above the
    best of them on that basis is above every comparable published FP8 run; a BF16 run counts
    × r, the largest published FP8 ÷ BF16 speed-up of one plan (``accuracy.fp8_bound_of_bf16``),
    where that is higher;
  - ``low``: ``MFU_implied`` (BF16 peak) below ``LOW_SHARE`` × that best figure (× the best
    comparable run as measured where the best is a BF16 run × r, an upper bound:
    ``_low_yardstick``): either the claim covers more than the final run (other phases,
    ablations, failed runs) or the run was that far below the best published one, as
    published final runs are (``LOW_SHARE``);
  - ``plausible`` otherwise.

  A claim of money alone is judged on its cost (``_cost_only_verdict``): ``implausible`` below
  the least its FLOPs can cost (at the matmul ceiling and the least an hour of the accelerator
  or, unpriced itself, of its hardware generation can cost, ``least_hour_price``: the cheapest
  current catalogue hour of any pricing mode or the low end of the owned hour,
  ``pricing.owned_hour_range``, Cottier et al. 2024), else on the price it needs; ``not
  judged`` when neither the accelerator nor its generation is priced.

  A claim of money **and** hours gets three judgements and the worst of them as its verdict
  (``_money_judgements``, each stated in ``ClaimCheck.judgements``): the utilisation's above;
  the cost's, ``implausible`` below that same floor whatever the hours say (adding hours to a
  claim never lifts an impossible cost); the price's (``_price_judgement``), ``optimistic``
  only when ``usd ÷ H`` is below that same least hour price by more than the claim's
  ``tolerance`` (a published cost is rounded), the one the floor uses (a price
  below today's list prices of one pricing mode but not below what an owned or long-reserved
  hour can cost is plausible, and said so: the catalogue holds few 1–3-year committed prices).
  A cost-only claim's needed price is judged by the same rule. An FP8 claim whose best
  comparable run is a BF16 run scaled by r says that chain and its weakness in its reason
  (``scaled_reference_chain``).

* Implied price = claimed USD ÷ claimed GPU-hours, against the catalogue's range for the pricing
  mode (``catalog.list_prices``; an accelerator without catalogue prices is compared with the
  first priced accelerator of its hardware generation, named).
* What the figure leaves out: the scenario the claim describes, priced by
  ``ledger.build_ledger`` with the ledger's defaults; every line other than the final
  pre-training run is listed with its status (a line whose default is zero or unset says "not
  given", with no made-up number), and as a range (P10-P90, ``ledger.simulate_ledger``) over
  the sourced spread of the exploratory-runs default (Cottier et al. 2024). A claimed cost below
  the floor is impossible: no line is derived from it (they are priced as for a claim without a
  cost, and the heading says so, ``ClaimCheck.left_out_basis``).

``published_run_errors`` scores the workbook's predictions against ``data/published_runs.csv``
(see its docstring for the prediction rule).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from ..core.catalog import (
    DATA_DIR,
    NOT_AVAILABLE,
    SCENARIO_DIR,
    as_accelerator,
    as_model,
    current_prices,
    as_published_runs,
    discount_price_cap,
    list_accelerators,
    list_prices,
    load_accelerator,
    load_efficiency,
    load_model,
    load_published_runs,
    term_days,
    unavailable_prices,
)
from ..core.diskcache import disk_cached
from ..core.model import HF_SOURCE_HEAD, ModelSpec
from ..core.stacks import generation
from ..core.units import (HOURS_PER_DAY, SECONDS_PER_HOUR, as_flag, as_scalar, fmt_gpus,
                          fmt_quantity, fmt_usd)
from ..serving.rl import time_factor_short
from ..training import reliability as rel
from ..training.accuracy import (
    SEQ_FACTOR,
    SIZE_FACTOR,
    comparable_published_mfu,
    fp8_bound_of_bf16,
    fp8_speedup_bound,
    published_any_size,
    comparable_hardware,
    validation_table,
)
from ..training.compute import gpu_hours, training_flops
from ..training.gemm import fp8_ceiling_words
from ..training.parallel import PlanError
from ..training.step import OUTSIDE_SETS, scenario_step
from .checks import context_warning
from .ledger import build_ledger, illustrative_ranges, simulate_ledger
from .pricing import owned_hour_range, owned_usd_per_gpu_hour
from .ranges import Range, point
from .scenario import LEDGER_DEFAULTS as d
from .scenario import MFU_FLOOR, PRICING, choice_spelling, load_scenario, point_scenario

#: "Low" when the claim's implied steady-state MFU (BF16 peak) is below this share of the best
#: comparable published MFU (``best_reference``). A stated threshold, not a fitted one, and the
#: verdict says that the figure is low, not why: the share does not tell a total that covers
#: more than the final run from a final run well below the best published one. The published
#: whole runs' shares (``whole_run_rows``' steady MFU ÷ ``best_reference``, the run's own runs
#: left out, ``own_runs``; tests/test_claims.py recomputes each figure quoted here): BLOOM 176B
#: 0.60, Llama 2 70B 0.82, Falcon-180B 0.91, DeepSeek-V3 1.04 (FP8, against a BF16 run × r);
#: final runs under half too: Pythia 12B 0.43, Pythia 70M 0.35, Pythia 160M 0.47, Pythia 410M
#: 0.48 (GPU-hours from the run's logged iteration time, Biderman et al. 2023) and BloombergGPT
#: 50B 0.44 (53 days on 512 GPUs, Wu et al. 2023), each against an llm-foundry MPT throughput
#: benchmark on 8 A100-80GB (0.52-0.64); and the model-card totals over more than one stage,
#: Llama 3 8B 0.32 and Llama 3.1 8B 0.28, just below them. Too few runs of either kind to set
#: a share between them: the "low" reason names both readings.
LOW_SHARE = 0.5
#: What the "low" reasons add: published final runs sit under ``LOW_SHARE`` too.
LOW_WORDS = ("published final runs sit there too (Pythia's and BloombergGPT's on A100, "
             "data/published_runs.csv)")
#: Default relative tolerance between GPU-hours and days × GPUs × 24 (and between the total and
#: the sum of the phases).
HOURS_TOLERANCE = 0.05
#: An implied whole-run utilisation above this many times the dense peak (causal count, the
#: stated dtype's peak) is refused as a mistyped figure, not judged: no run exceeds the peak (1),
#: and a claim above it is judged ``implausible`` with its reason, up to this bound: an
#: exaggerated claim (a compute-governance trial's 70B on 15T tokens on 512 H100s in 30 days,
#: 5.1× the peak, got an error where a bulk check needs a verdict); slips of units land far
#: beyond it (a trial's 6,800% and 8,400,000% implied utilisations), where a verdict would only
#: say that the figures are wrong. GPU-days typed as GPU-hours multiply a run's utilisation by
#: 24 (a 40% run reads 9.6×): judged implausible, the reason saying what the hours would
#: imply as days (``_days_as_hours_words``). ``compute.mfu_from_throughput`` refuses a
#: measured MFU above 1. A stated threshold, not a fitted one.
MAX_IMPLIED_UTILISATION = 10.0
#: An implied whole-run utilisation below this share of the dense peak (model-FLOP basis) is
#: refused as a mistyped figure: a millionth of the peak, a thousand times below the floor a
#: scenario's given MFU is held to (``scenario.MFU_FLOOR``, 0.1%), so that a derived figure
#: between the two is judged ("low"), not refused (a review: 2e7 GPU-h for an 8B model on 1T
#: tokens implies 0.068% and is a claim to judge), while hours a million times too many (a
#: trial's 1e15 GPU-h for a 70B model on 2T tokens, 7.9e-10) say only that a figure is wrong.
#: A stated threshold, not a fitted one.
MIN_IMPLIED_UTILISATION = MFU_FLOOR / 1000
#: How far above the best comparable published run a claim's steady-state MFU may lie and still
#: be judged plausible, "at the edge" (``_edge``): the steady-state figure divides the hours'
#: utilisation by a goodput the claim does not state (``goodput_for``: the ledger's default
#: failure rate and checkpoint plan) and published hours are rounded (a compute-governance
#: trial's DeepSeek-V3 read PLAUSIBLE or OPTIMISTIC as its hours were typed whole or by phase,
#: 1.04× the best). A stated threshold, not a fitted one; not the claim's ``tolerance``, which
#: is the agreement asked of its own figures.
EDGE_SHARE = 0.05
#: The phase the training tokens refer to, when a claim is split by phase.
PRETRAINING = "pre-training"
#: ``not judged``: a claim of money alone (no hours, no MFU) on an accelerator the catalogue
#: prices neither itself nor by its generation (``cheapest_price``): its cost is all it states
#: and nothing prices it, so it is neither plausible nor implausible (``_cost_only_verdict``).
VERDICTS = ("implausible", "optimistic", "low", "plausible", "not judged")


def _positive(name, v, integer=False):
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v) or v <= 0:
        raise ValueError(f"{name}={v!r} must be a positive number")
    if integer and float(v) != int(v):
        raise ValueError(f"{name}={v!r} must be a whole number")
    return int(v) if integer else float(v)


def _tolerance(v) -> float:
    """A claim's relative tolerance, a fraction in (0, 1): at 1 or more every figure would agree
    with any other (and a price could fall to nothing within it)."""
    tol = _positive("tolerance", v)
    if tol is None:
        raise ValueError("tolerance=None must be a positive fraction (e.g. 0.05)")
    if tol >= 1:
        raise ValueError(f"tolerance={tol!r} must be a fraction below 1 (0.05 is 5%): at 1 or "
                         "more every figure would agree with any other")
    return tol


#: The checkpoint storage a claim's goodput assumes (``goodput_for``), in words.
STORAGE_WORDS = (f"Llama 3's checkpoint storage per GPU, "
                 f"{rel.STORAGE_BYTES_PER_S_PER_GPU / 1e6:.0f} MB/s, as a claim states none: a "
                 "scenario's bill sizes its own to its price, check --scenario")


def goodput_for(n_params: float, n_gpus: int) -> float:
    """Goodput of a job of ``n_gpus`` saving ``n_params`` parameters, with the ledger's default
    reliability figures (``scenario.LEDGER_DEFAULTS``: 0.173 unexpected failures per GPU-year
    from Llama 3's 419 in 54 days on 16,384 GPUs, 0.87 planned interruptions per day, 600 s
    restart overhead, bf16-adam checkpoints at the Daly-optimal interval) and, as a claim states
    no storage, Llama 3's checkpoint-storage rate per GPU (``reliability.job_storage_bytes_per_s``,
    ``STORAGE_WORDS``), where a scenario's bill sizes its storage to its own price and hours
    (``ledger.sized_storage``): a claim and a scenario of the same run can differ by that
    (a trial: 97.8% against 96.9% goodput for Llama 2 70B on 2,048 H100).

    goodput = productive time ÷ wall time (``reliability.checkpoint_plan``, Daly 2006).
    """
    plan = rel.checkpoint_plan(
        float(n_params), int(n_gpus), d["fail_rate_per_gpu_year"], d["ckpt_storage_bytes_per_s"],
        d["ckpt_restart_s"], recipe=d["ckpt_recipe"], node_bytes_per_s=d["ckpt_node_bytes_per_s"],
        d2h_bytes_per_s=d["ckpt_d2h_bytes_per_s"], async_=d["ckpt_async"],
        planned_per_day=d["fail_planned_per_day"])
    return float(plan.goodput)


#: The scenario keys of an owned GPU-hour (``pricing.owned_usd_per_gpu_hour``'s arguments in
#: order: purchase price, electricity price, PUE) ``price_range`` amortises.
OWNED_KEYS = ("ledger_owned_usd_per_gpu", "ledger_electricity_usd_per_kwh", "ledger_pue")


def price_range(accelerator, pricing: str = "on_demand", owned: Mapping | None = None) -> dict:
    """Catalogue price range (USD per accelerator-hour) for an accelerator and pricing mode:
    ``low``, ``median``, ``high``, ``n`` rows, ``priced_as`` (the accelerator whose prices are
    used: its own, else the first priced one of its hardware generation) and ``source``.
    ``n == 0`` when nothing comparable is priced.

    ``pricing="owned"`` has no catalogue: the price is the ledger's owned amortisation
    (``pricing.owned_usd_per_gpu_hour``, Cottier et al. 2024: capex = price × 1.64 ÷ (1 − 0.19)
    × 0.14·ln 10 ÷ 8,766 h, plus energy), one figure (``low = median = high``, ``n = 1``), for
    the accelerator with a sourced purchase price (H100-SXM) or, by the generation rule
    catalogue prices follow, one of its generation (H800, H200: ``_owned_range``); any other
    accelerator gets ``n == 0`` with the reason (no comparison is made). ``owned``: a scenario's
    ``ledger_owned_usd_per_gpu``, ``ledger_electricity_usd_per_kwh`` and ``ledger_pue`` (each
    optional, a range at its point), amortised instead of the defaults, as its bill does."""
    acc = as_accelerator(accelerator)
    if pricing == "owned":
        return _owned_range(acc, owned)
    df = current_prices(acc.name, pricing)
    used = acc.name
    if df.empty:
        gen = generation(acc.name)
        for other in list_accelerators()["name"]:
            if other != acc.name and generation(other) == gen:
                df = current_prices(other, pricing)
                if not df.empty:
                    used = other
                    break
    if df.empty:
        return {"low": None, "median": None, "high": None, "default": None,
                "default_words": "", "default_note": "", "n": 0, "priced_as": None,
                "source": f"no current {pricing} catalogue price for {acc.name} or its "
                          "generation"}
    p = df["price_usd_per_gpu_hour"]
    src = "; ".join(f"{r.provider} {r.date} ${r.price_usd_per_gpu_hour:.2f}"
                    + ("" if r.available else f" ({NOT_AVAILABLE})") for r in df.itertuples())
    note = "" if used == acc.name else f" ({acc.name} has none; {used} is the same generation)"
    cap = discount_price_cap(used, pricing)
    return {"low": float(p.min()), "median": float(p.median()), "high": float(p.max()),
            "default": float(p.median()) if cap is None else cap["on_demand"],
            "default_words": "catalogue median" if cap is None else f"bill's {pricing} price",
            "default_note": "" if cap is None else (
                f"the on-demand median: the catalogue's {pricing} median, ${cap['listed']:.2f}, "
                "lies above it"),
            "n": len(df), "priced_as": used,
            "source": (f"{len(df)} current {pricing} price{'' if len(df) == 1 else 's'} of "
                       f"{used}{note}: {src}"),
            "not_available": unavailable_prices(used, pricing)}


def _owned_range(acc, owned: Mapping | None) -> dict:
    """``price_range`` of ``pricing="owned"``: the owned amortisation of ``acc``, or, without a
    purchase price of its own (none sourced, none given), of the first accelerator of its
    hardware generation that has one (``core.stacks.generation``: H800 amortised as H100-SXM,
    the same die, the rule ``cheapest_price`` prices the cost floor by), named; ``n == 0`` with
    the reason when neither has one."""
    given = {k: point(v) for k, v in (owned or {}).items() if k in OWNED_KEYS and v is not None}
    args = tuple(given.get(k) for k in OWNED_KEYS)
    kin = [acc.name] + ([] if "ledger_owned_usd_per_gpu" in given else
                        [o for o in list_accelerators()["name"]
                         if o != acc.name and generation(o) == generation(acc.name)])
    own, used, why = None, None, ""
    for name in kin:
        try:
            own, used = owned_usd_per_gpu_hour(load_accelerator(name), *args), name
            break
        except ValueError as e:
            why = why or str(e)
    if own is None:
        return {"low": None, "median": None, "high": None, "default": None,
                "default_words": "", "default_note": "", "n": 0, "priced_as": None,
                "source": f"no catalogue comparison for owned hardware: {why}"}
    x = float(own["usd_per_gpu_hour"])
    note = "" if used == acc.name else f" ({acc.name} has none; {used} is the same generation)"
    # the hours of a claim without a cost priced as the bill prices them: the hardware on the
    # GPU-hour lines, the energy on the electricity line (ledger: gpu_rate = price - energy)
    return {"low": x, "median": x, "high": x, "default": float(own["capex_usd_per_gpu_hour"]),
            "default_words": "owned amortisation's hardware",
            "default_note": (f"its energy, ${float(own['energy_usd_per_gpu_hour']):.2f}/GPU-h, "
                             "is on the electricity line, as the bill puts it"), "n": 1,
            "priced_as": used,
            "source": (f"owned {used}{note} amortised as Cottier et al. 2024 "
                       f"(${own['acquisition_usd_per_gpu']:,.0f} per GPU"
                       + (f", the scenario's {', '.join(given)}" if given else "")
                       + ": capex "
                       f"${own['capex_usd_per_gpu_hour']:.2f} + energy "
                       f"${own['energy_usd_per_gpu_hour']:.2f} per GPU-h, "
                       "llmcost.pricing.owned_usd_per_gpu_hour)")}


def published_phases(model_name: str) -> tuple:
    """GPU-hours by phase that a source publishes for a catalogue model
    (``data/published_phases.csv``, each row with its source): ``(dict phase → GPU-hours,
    source)``, or ``({}, "")`` when none is recorded."""
    if not isinstance(model_name, str) or not model_name:
        raise ValueError(f"model_name={model_name!r} must be a model's name")
    df = pd.read_csv(DATA_DIR / "published_phases.csv")
    df = df[df["catalog_model"] == model_name]
    if df.empty:
        return {}, ""
    return ({r.phase: float(r.gpu_hours) for r in df.itertuples()},
            "; ".join(dict.fromkeys(df["source"])))


def whole_run_rows() -> pd.DataFrame:
    """Every published whole run the catalogue can score (notebook 08's ``gpu_hours`` rows of
    ``published_run_errors``, published figures only): its ``accelerator`` and ``generation``,
    ``published_gpu_hours`` (reported, or days × accelerators × 24), ``train_tokens`` and its
    whole-run utilisation ``published_mfu`` U = D · F(s) / (H · 3600 · P_bf16) (MFU basis, full
    mask, the BF16 dense peak: ``_score_whole_run``), with ``steady_mfu`` (U ÷ goodput),
    ``precision`` and ``seq_len``. A copy: the table is computed once per process."""
    return _whole_run_rows().copy()


@lru_cache(maxsize=1)
def _whole_run_rows() -> pd.DataFrame:
    e = _score(None, predict=False)  # published figures only: no step-time model needed
    w = e[e["scored"] == "gpu_hours"][["run_id", "model", "catalog_model", "accelerator",
                                      "generation", "params_active", "params_total", "n_gpus",
                                      "published_gpu_hours", "published_mfu"]].copy()
    # a run's steady-state MFU is at least its whole-run figure ÷ goodput (where the GPU count
    # is published; the whole-run figure itself otherwise)
    w["steady_mfu"] = [u / goodput_for(n, int(g)) if _finite(g) else u
                       for u, n, g in zip(w["published_mfu"], w["params_total"], w["n_gpus"],
                                          strict=True)]
    # each whole-run figure's GEMM precision, sourced in data/published_runs.csv, and context
    runs = load_published_runs().set_index("run_id")
    w["precision"] = w["run_id"].map(runs["precision"])
    w["seq_len"] = w["run_id"].map(runs["seq_len"])
    w["train_tokens"] = w["run_id"].map(runs["train_tokens"])
    return w


def own_runs(model: str | None) -> tuple:
    """The run ids of ``data/published_runs.csv`` that are ``model``'s own published runs, left
    out when a claim about that model is judged (never its own reference): the catalogue
    model's rows but third parties' pre-training benchmarks of the architecture (a row whose
    ``model`` holds one of ``THIRD_PARTY_WORDS``: NVIDIA's NeMo AutoModel, Megatron-Bridge and
    DGX Cloud tables, PyTorch's torchtitan tables), which measure the architecture on their own
    software and hardware, not the claimed run. A researcher's trial: DeepSeek-V3's check left
    out NVIDIA's NeMo AutoModel benchmark of it (28.5% on 256 H100s) with DeepSeek's own rows
    and judged the run against another model's. () for None."""
    if not model:
        return ()
    runs = load_published_runs()
    mine = runs["catalog_model"] == model
    bench = runs["model"].astype(str).str.contains("|".join(THIRD_PARTY_WORDS), case=False)
    return tuple(runs.loc[mine & ~bench, "run_id"])


#: The words of a ``data/published_runs.csv`` ``model`` name that mark a third party's benchmark
#: of an architecture (``own_runs``): NVIDIA's tables ("pre-training benchmark", "DGX Cloud
#: benchmarking") and PyTorch's torchtitan tables of Llama 3.1 (pytorch/torchtitan
#: docs/performance.md, and Trainy's runs of it), none of them the model developer's run.
THIRD_PARTY_WORDS = ("benchmark", "torchtitan")


def _whole_runs_in_scope(accelerator: str, n_params: float, is_moe, fp8: bool, seq_len,
                         exclude_model: str | None = None) -> pd.DataFrame:
    """The whole runs (``whole_run_rows``) comparable to a claim by ``best_reference``'s rule:
    the same generation and hardware class, BF16 runs (FP8 ones too for an FP8 claim), total
    parameters within ``SIZE_FACTOR``, the class ``is_moe`` (None: both), sequences within
    ``SEQ_FACTOR`` of ``seq_len`` (a row without one kept), ``exclude_model``'s left out."""
    w = _whole_run_rows()
    moe = w["params_active"].notna() & (w["params_active"] < w["params_total"])
    lo_s, hi_s = (0, np.inf) if seq_len is None else (seq_len / SEQ_FACTOR, seq_len * SEQ_FACTOR)
    return w[(w["generation"] == generation(accelerator))
             & (fp8 | (w["precision"] == "BF16"))
             & (w["params_total"] <= n_params * SIZE_FACTOR)
             & (w["params_total"] >= n_params / SIZE_FACTOR)
             & ((moe == bool(is_moe)) if is_moe is not None else True)
             & (~w["run_id"].isin(own_runs(exclude_model)) if exclude_model else True)
             & (w["seq_len"].isna() | (w["seq_len"] >= lo_s) & (w["seq_len"] <= hi_s))
             & comparable_hardware(w["accelerator"], accelerator, is_moe)]


def best_reference(accelerator: str, n_params: float, exclude_model: str | None = None, *,
                   is_moe: bool | None = None, dtype: str = "bf16",
                   seq_len: int | None = None) -> tuple:
    """The best published utilisation comparable to a claim, MFU basis, BF16 peak: the larger of
    ``accuracy.comparable_published_mfu`` (the one rule of every page: the same hardware
    generation, MoE runs for an MoE and dense for a dense model (``is_moe``; None: both),
    **total** parameters ``n_params`` within ``accuracy.SIZE_FACTOR``, BF16 runs for a BF16
    claim and FP8 runs and BF16 runs × r for an FP8 one; steady-state MFUs of the validation
    table and
    vendor claims) and, by the same generation, class and size, the whole-run utilisations of
    ``data/published_runs.csv`` divided by their goodput (``goodput_for``; 1 where the GPU count
    is not published: a whole-run figure is a lower bound on that run's steady-state MFU), by
    the same dtype rule as ``accuracy.comparable_published_mfu`` (and
    ``accuracy.best_published_mfu``): a BF16 claim against the BF16 runs only (the file's
    ``precision`` column, each value sourced: DeepSeek-V3 trained in FP8, arXiv:2412.19437
    §3.3, its MFU on the BF16 peak counting GEMMs that ran at up to twice it), an FP8 claim
    against the FP8 runs as published and the BF16 runs × r, whichever is higher
    (``accuracy.fp8_bound_of_bf16``: the same plan in FP8 runs up to r times as fast; a vendor
    claim, BF16 evidence, × r too); with ``seq_len``, runs whose
    sequences are within ``accuracy.SEQ_FACTOR`` of it (``comparable_published_mfu``'s rule
    (5): the full-mask FLOP basis counts more attention at 128k than at 4k; a whole-run row
    without a published sequence length is kept). Returns ``(mfu, source)`` or
    ``(None, reason)``.

    ``exclude_model``: a catalogue model whose own published runs (``own_runs``: its whole-run
    rows and its developer's throughput, not third parties' benchmarks of its architecture) are
    left out (``check_claim`` passes the claimed model, so a published run is never its own
    reference).
    """
    if is_moe is not None:
        is_moe = as_flag(is_moe, "is_moe")
    accelerator = as_accelerator(accelerator).name   # an unknown name refused, not "no run"
    own = own_runs(exclude_model)
    b = comparable_published_mfu(accelerator, n_params, is_moe=is_moe, dtype=dtype,
                                 exclude_runs=own, seq_len=seq_len, fp8_bound=False)
    best, src = b.mfu_bf16, (b.source if b.mfu_bf16 is None else
                             f"{b.source}; rule: {b.rule}")
    fp8 = str(dtype).lower().startswith("fp8")
    same = _whole_runs_in_scope(accelerator, n_params, is_moe, fp8, seq_len, exclude_model)
    if len(same):
        row = same.loc[same["steady_mfu"].idxmax()]
        if best is None or row["steady_mfu"] > best:
            best, src = float(row["steady_mfu"]), f"{_whole_run_words(row)}; rule: {b.rule})"
    if fp8:   # a BF16 run bounds an FP8 claim at its MFU × r (rule 4), where that is higher
        bf16 = _best_bf16_evidence(accelerator, n_params, is_moe, seq_len, own, same)
        if bf16 is not None:
            bound, words = fp8_bound_of_bf16(*bf16, n_params)
            # a bound that only ties an FP8 run (its own pair's) yields to the run, as in
            # accuracy._bounding_row
            if best is None or bound > best * (1 + 1e-9):
                best, src = bound, f"{words}; rule: {b.rule}"
    if own and _own_in_scope(accelerator, n_params, is_moe, dtype, seq_len, best):
        # said where they were the only ones too (a trial read "no published dense BF16 TPU v4
        # run" of PaLM 540B, whose own the catalogue holds)
        src += f"; {exclude_model}'s own published runs left out"
    return best, src


def _own_in_scope(accelerator, n_params, is_moe, dtype, seq_len, best: float) -> bool:
    """Whether leaving a model's own runs out changed the reference: the best comparable run
    with them kept is above ``best`` (a review: "its own published runs left out" was said of
    Llama 3.1 70B on A100, where none of its runs is comparable); with no ``best`` (None),
    whether any is."""
    kept = comparable_published_mfu(accelerator, n_params, is_moe=is_moe, dtype=dtype,
                                    seq_len=seq_len, fp8_bound=False).mfu_bf16
    whole = _whole_runs_in_scope(accelerator, n_params, is_moe,
                                 str(dtype).lower().startswith("fp8"), seq_len, None)
    kept = max([m for m in (kept, *whole["steady_mfu"]) if m is not None], default=None)
    return kept is not None and (best is None or kept > best * (1 + 1e-9))


def _pct(x: float) -> str:
    """A utilisation as a percentage with one decimal ("40.5%"), or with two significant figures
    where one decimal would read 0.0% ("0.00052%": a review read "LOW: steady-state MFU 0.0%"
    of a claim at 5.2e-6 of the peak)."""
    return f"{x:.1%}" if x == 0 or abs(x) >= 5e-4 else f"{x * 100:.2g}%"


def _left_out_line(x: dict) -> str:
    """One line of ``ClaimCheck.describe``'s "Not in the figure" list: a left-out line of the
    bill (``_left_out``' row) with its amount, status, P10–P90 and what sized it."""
    if x["line"] == "(not priced)":  # why no line is priced: the whole reason, uncut
        return f"  none priced: {x['how']}"
    if x["status"] == "not given":
        return f"  {x['line']}: not given ({first_clause(x['how'])})"
    usd = f"{fmt_usd(x['usd'])} ({x['status']})"
    if x.get("p10_usd") is not None and x["p90_usd"] != x["p10_usd"]:
        usd += f", P10–P90 {fmt_usd(x['p10_usd'])}–{fmt_usd(x['p90_usd'])}"
    if x.get("time"):  # the RL line's time, billed × a factor (rl.time_factor_short)
        usd += f"; the model's iteration time {x['time']}"
    if x.get("sized"):  # the claim's assumed storage (STORAGE_WORDS)
        usd += f"; sized to {x['sized']}"
    return f"  {x['line']}: {usd}"


@dataclass(frozen=True)
class ClaimCheck:
    """The answer of ``check_claim``; ``summary()`` for JSON, ``describe()`` for a terminal,
    ``table()`` for a notebook.

    FLOPs: ``flops_6nd`` (6·N_active·D), ``flops_mfu_basis`` (the workbook's MFU basis, full
    attention mask: the basis of published MFUs) and ``flops_causal`` (the FLOPs a causal run
    does: the basis of the physical bounds, the matmul ceiling and the cost floor, with
    ``whole_run_causal`` and ``steady_state_causal`` on it).
    Hours: ``gpu_hours`` (the claim's total), ``phase_gpu_hours`` (by phase when split),
    ``pretraining_gpu_hours`` (what the utilisation uses). Utilisation (fractions of the dense
    peak, MFU basis unless named ``_6nd``): ``whole_run`` (U, per dtype) and ``steady_state``
    (U ÷ goodput, per dtype). ``verdict`` in ``VERDICTS`` with its ``reason``. ``left_out``:
    the bill's other lines (``usd`` at the defaults, ``p10_usd``/``p90_usd`` over the ranged
    defaults), ``left_out_usd`` their sum and ``left_out_range_usd`` the (P10, P50, P90) of that
    sum over the draws (``left_out_range_source`` names the ranges); ``left_out_basis``: what
    priced them when the claimed cost is impossible (below ``cost_floor_usd``). ``judgements``:
    for a claim of money and hours, the utilisation, cost and price judgements (dicts of
    ``aspect``, ``verdict``, ``reason``, worst first), ``verdict`` the worst of them;
    ``verdict_basis``: what an ``optimistic`` utilisation rests on when it is not a published
    run's own figure (a BF16 run scaled for FP8), for the verdict's heading; for a
    ``plausible`` one with no comparable published run at all, that only the ceiling judged
    it (unverified).
    ``count_source``: where the parameter count N comes from (``count_words``).
    """

    model: str
    accelerator: str
    dtype: str
    train_tokens: float
    seq_len: int
    n_gpus: int | None
    days: float | None
    gpu_hours: float
    hours_source: str
    phase_gpu_hours: dict
    pretraining_gpu_hours: float
    flops_6nd: float
    flops_mfu_basis: float
    peak_flops_per_s: dict
    whole_run: dict
    whole_run_6nd: dict
    goodput: float
    goodput_source: str
    steady_state: dict
    ceiling: float
    ceiling_source: str
    best_published: float | None
    best_source: str
    verdict: str
    reason: str
    usd: float | None
    implied_usd_per_gpu_hour: float | None
    price: dict
    price_verdict: str
    left_out: list = field(default_factory=list)
    left_out_usd: float = 0.0
    left_out_range_usd: tuple | None = None
    left_out_range_source: str = ""
    left_out_keys: tuple = ()
    notes: tuple = ()
    needed_usd_per_gpu_hour: tuple | None = None
    needed_mfu_range: tuple | None = None
    published_phase_gpu_hours: dict = field(default_factory=dict)
    tokens_source: str = ""
    cost_floor_usd: float | None = None
    cost_floor_source: str = ""
    judgements: tuple = ()
    left_out_basis: str = ""
    flops_causal: float = 0.0
    whole_run_causal: dict = field(default_factory=dict)
    steady_state_causal: dict = field(default_factory=dict)
    verdict_basis: str = ""
    count_source: str = "the catalogue count"

    def summary(self) -> dict:
        """Plain JSON-ready dict of every field."""
        return asdict(self)

    @property
    def n_active_6nd(self) -> float:
        """N of the 6ND count, N = flops_6nd ÷ (6·D), D = ``train_tokens``: the active
        parameters the claim's FLOPs were counted with (``count_source`` says whose count;
        Kaplan et al. 2020, C ≈ 6ND)."""
        return self.flops_6nd / (6 * self.train_tokens)

    def _on_dtype_basis(self) -> str:
        """The best published figure on the claim's own dtype basis, best × peak(BF16) ÷
        peak(dtype), when the claim is not BF16 ("" otherwise)."""
        p = self.peak_flops_per_s
        if self.dtype == "bf16" or self.dtype not in p or "bf16" not in p:
            return ""
        return f" = {self.best_published * p['bf16'] / p[self.dtype]:.1%} of the {self.dtype} peak"

    @property
    def own_run_note(self) -> str:
        """The note that the best comparable run is the model's own published run, with the best
        without it (``_own_run_note``: a scenario judged with its model's own runs); "" when
        there is none."""
        return next((n for n in self.notes if OWN_RUN_WORDS in n), "")

    def _optimistic_note(self) -> str:
        """What an optimistic utilisation means: no (other) comparable published run has
        measured it, the model's own runs left out where they were (a trial read "no comparable
        published run" of Llama 3.1 70B, whose own 54.6% run the catalogue holds)."""
        own = "own published runs left out" in (self.best_source or "")
        return ("  (optimistic: no " + "other " * own + "comparable published run has measured "
                "this utilisation" + ("; the model's own are left out, so that a claim is not "
                                      "checked against itself" if own else "")
                + "; it does not say the claim is false)")

    def describe(self) -> str:
        """Lines for a terminal: FLOPs, utilisation, verdict, price, what is left out."""
        L = [f"Claim: {self.model} on {self.train_tokens:.3g} tokens of {self.seq_len:,}-token "
             f"sequences, {self.accelerator} ({self.dtype}), {gpu_h(self.gpu_hours)} GPU-h "
             f"({self.hours_source})"]
        if self.tokens_source:  # tokens the claim did not state: said beside them
            L.append(f"  tokens: {self.tokens_source}")
        if self.phase_gpu_hours:
            L.append("  by phase: " + ", ".join(f"{k} {gpu_h(v)} GPU-h"
                                                for k, v in self.phase_gpu_hours.items()))
        if self.published_phase_gpu_hours:
            L.append("  published split (beside the claim, not applied): " + ", ".join(
                f"{k} {fmt_quantity(v)} GPU-h" for k, v in self.published_phase_gpu_hours.items()))
        L.append(f"FLOPs: 6ND {self.flops_6nd:.4g} (N = {self.n_active_6nd / 1e9:.2f}B active "
                 f"parameters, {self.count_source}; D = {self.train_tokens:.4g}); MFU basis "
                 f"(matmul + attention, full attention mask, as published MFUs count) "
                 f"{self.flops_mfu_basis:.4g}; causal (the work a causal run does, what the "
                 f"ceiling and the cost floor bound) {self.flops_causal:.4g}")
        L.append("  " + compute_threshold_words(self.flops_6nd, self.flops_causal))
        # a cost-only claim states no hours: its utilisation is the one the hours were taken at
        # (a researcher read "implied 74.8%" of a claim that implied none)
        kind = ("Assumed (no hours stated: the hours above)" if self.hours_source.startswith(
            "cost-only claim") else "Implied")
        for dt, u in self.whole_run.items():
            L.append(f"{kind} whole-run utilisation vs dense {dt.upper()} peak "
                     f"({self.peak_flops_per_s[dt] / 1e12:,.1f} TFLOP/s): {_pct(u)} "
                     f"(6ND: {_pct(self.whole_run_6nd[dt])}); steady-state MFU = ÷ goodput "
                     f"{self.goodput:.1%} = {_pct(self.steady_state[dt])}"
                     + (f" (causal count: {_pct(self.steady_state_causal[dt])})"
                        if dt == self.dtype and self.steady_state_causal else ""))
        L += [f"  {n}" for n in self.notes if n.startswith(STATED_MFU_UNUSED)]
        L.append(f"Ceiling: {self.ceiling:.1%} of the {self.dtype.upper()} peak, on the "
                 f"causal count ({self.ceiling_source}); best published: "
                 + (f"{self.best_published:.1%} of the BF16 peak{self._on_dtype_basis()} "
                    f"({self.best_source})"
                    if self.best_published is not None else self.best_source))
        basis = f" ({self.verdict_basis})" if self.verdict_basis else ""
        if len(self.judgements) > 1:  # the worst of several judgements, each on its line
            L.append(f"Verdict: {self.verdict.upper()}{basis}, the worst of its "
                     f"{len(self.judgements)} judgements:")
            L += [f"  {x['aspect']}: {x['verdict'].upper()}: {x['reason']}"
                  for x in self.judgements]
        else:
            L.append(f"Verdict: {self.verdict.upper()}{basis}: {self.reason}")
        if any(x["verdict"] == "optimistic" and x["aspect"] == "utilisation"
               for x in self.judgements) or (len(self.judgements) <= 1 and
                                             self.verdict == "optimistic"):
            L.append(self._optimistic_note())
        if self.implied_usd_per_gpu_hour is not None:
            L.append(f"Implied price: {usd_rate(self.implied_usd_per_gpu_hour)}/GPU-h; "
                     f"{self.price_verdict}")
        else:
            L.append(f"Price: {self.price_verdict}")
        keys = self.left_out_keys
        L.append("Not in the figure (" + (
            (f"the scenario's {', '.join(keys)}" if len(keys) <= 4 else
             f"the {len(keys)} keys the scenario gives for them") + ", else the ledger's defaults):"
            if keys else "the ledger's defaults):")
            + (f" {self.left_out_basis}" if self.left_out_basis else "")
            + (("; each" if self.left_out_basis else " each")
               + " P10–P90 is drawn with the claim's MFU and price held fixed (`llmcost "
               "estimate --scenario` draws a scenario's too, so its ranges differ)" if any(
                   x.get("p10_usd") is not None and x.get("p90_usd") != x["p10_usd"]
                   for x in self.left_out) else ""))
        L += [_left_out_line(x) for x in self.left_out]
        if not any(x["line"] == "(not priced)" for x in self.left_out):  # "$0.00" under "none
            L.append(f"  priced total of these lines: {fmt_usd(self.left_out_usd)}")  # priced"
        if self.left_out_range_usd:
            p10, p50, p90 = (fmt_usd(x) for x in self.left_out_range_usd)
            L.append(f"  range of that total: P10 {p10}, P50 {p50}, P90 {p90} "
                     f"({self.left_out_range_source})")
        L += [f"Note: {n}" for n in self.notes if n != self.tokens_source
              and not n.startswith(STATED_MFU_UNUSED)]
        return "\n".join(L)

    def table(self) -> pd.DataFrame:
        """The headline figures as a two-column table (figure, value)."""
        rows = [("FLOPs, 6ND", f"{self.flops_6nd:.3g}"),
                ("FLOPs, MFU basis", f"{self.flops_mfu_basis:.3g}"),
                ("FLOPs, causal", f"{self.flops_causal:.3g}"),
                ("GPU-hours in the claim", gpu_h(self.gpu_hours)),
                ("GPU-hours used for utilisation", gpu_h(self.pretraining_gpu_hours))]
        for dt, u in self.whole_run.items():
            rows.append((f"whole-run utilisation ({dt} peak)", f"{u:.1%}"))
            rows.append((f"steady-state MFU ({dt} peak, ÷ goodput {self.goodput:.1%})",
                         f"{self.steady_state[dt]:.1%}"))
        if self.steady_state_causal:
            rows.append((f"steady-state, causal count ({self.dtype} peak)",
                         f"{self.steady_state_causal[self.dtype]:.1%}"))
        rows.append(("verdict", f"{self.verdict}: {self.reason}"))
        if self.implied_usd_per_gpu_hour is not None:
            rows.append(("implied price", f"{usd_rate(self.implied_usd_per_gpu_hour)}/GPU-h; "
                                          f"{self.price_verdict}"))
        return pd.DataFrame(rows, columns=["figure", "value"])


def gpu_h(hours: float) -> str:
    """GPU-hours for a sentence: whole hours with thousands separators from 100 up
    ("15,360"), three significant figures below ("0.154"), so that a tiny claim does not read
    "0 GPU-h"."""
    x = float(hours)
    return f"{x:,.0f}" if x >= 100 or x == 0 else f"{x:.3g}"


def first_clause(text: str, limit: int = 100) -> str:
    """A line's reason cut to its first clause (up to the first ";"); a clause longer than
    ``limit`` characters is cut further only at a sentence boundary (the last ": " or ". "
    within ``limit``, never inside a word), else kept whole; every parenthesis the cut left
    open is closed, so that it nests in a parenthesis of its own."""
    why = str(text).split(";")[0]
    if len(why) > limit:
        stop = max(why.rfind(": ", 0, limit), why.rfind(". ", 0, limit))
        why = why[:stop] if stop > 0 else why
    return why + ")" * max(0, why.count("(") - why.count(")"))


def claim_model(model) -> ModelSpec:
    """The model of a claim: a ``ModelSpec``, a catalogue name, or the path of a Hugging Face
    ``config.json`` (a string ending in ``.json``, read by ``ModelSpec.from_hf_config``)."""
    if isinstance(model, (str, Path)) and str(model).endswith(".json"):
        path = Path(model)
        if not path.is_file():
            raise ValueError(f"model={str(model)!r}: no such config.json file")
        try:
            return ModelSpec.from_hf_config(path)
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise ValueError(f"model={str(model)!r}: not a readable Hugging Face config.json "
                             f"({e})") from None
    return as_model(model, "model", needs="a claim check")


def ledger_model_name(model, spec: ModelSpec):
    """How the ledger can name the claim's model (a catalogue name or a config.json path), or
    None for a ModelSpec that is neither."""
    if isinstance(model, (str, Path)) and str(model).endswith(".json"):
        return str(model)
    try:
        return spec.name if load_model(spec.name) == spec else None
    except ValueError:
        return None


#: How ``claim_tokens``' note introduces the count that FLOPs given alone match for the model's
#: published tokens; ``_days_as_hours_words`` reads it to leave such hours alone.
PUBLISHED_TOKENS_WORDS = "for the model's published"


def claim_tokens(spec: ModelSpec, train_tokens, train_flops, tolerance,
                 seq_len: int | None = None) -> tuple:
    """``(D, note)``: the claim's pre-training tokens and where they came from.

    Stated tokens win; a claim stated as training FLOPs on the 6ND convention (Epoch AI's
    compute estimates) gives ``D = C / (6 · N_active)`` (Kaplan et al. 2020 §2.1); with neither,
    the model's published token count (``ModelSpec.train_tokens``) is used and said. Both tokens
    and FLOPs: they must agree within ``tolerance``, or be another count of the same tokens
    (``_flops_convention``, at ``seq_len``, default the model's: judged on the tokens, the
    FLOPs said in the note), else refused."""
    d = _positive("train_tokens", train_tokens)
    c = _positive("train_flops", train_flops)
    n = float(spec.n_active_params)
    if d is not None and c is not None:
        if isinstance(tolerance, numbers.Real) and abs(c / (6 * n * d) - 1) > tolerance:
            other = _flops_convention(spec, d, c, tolerance, seq_len)
            gap = (f"train_flops={c:.4g} disagrees with train_tokens={d:.4g}: 6ND gives "
                   f"{6 * n * d:.4g} ({c / (6 * n * d) - 1:+.1%})")
            if not other:
                raise ValueError(gap)
            # another count of the same tokens: judged on the tokens, said (a re-trial: the
            # attention-inclusive 4.1e25 of Llama 3.1 405B was named, then refused)
            return d, f"{gap}{other}: the tokens are judged, the FLOPs noted"
        return d, ""
    if d is not None:
        return d, ""
    if c is not None:
        d = c / (6 * n)
        # FLOPs that are another count of the model's published tokens (a trial's DeepSeek-V3
        # at 6 × 671B total × 14.8T became 265T tokens without a word): said beside them
        other = _flops_convention(spec, float(spec.train_tokens), c, tolerance, seq_len) \
            if spec.train_tokens and isinstance(tolerance, numbers.Real) and \
            abs(c / (6 * n * float(spec.train_tokens)) - 1) > tolerance else ""
        return d, (f"tokens from the claimed {c:.4g} training FLOPs on the 6ND convention: "
                   f"D = C / (6 × {n:.4g} active parameters) = {d:.4g}"
                   + (f"; {PUBLISHED_TOKENS_WORDS} {float(spec.train_tokens):.4g} tokens, "
                      f"{other.removeprefix('; ')}" if other else ""))
    if spec.train_tokens:
        d = float(spec.train_tokens)
        return d, (f"no token count in the claim: the model's published {d:.4g} pre-training "
                   "tokens are used (catalogue)")
    raise ValueError(f"train_tokens=None: give the tokens or the training FLOPs (train_flops); "
                     f"{spec.name} has no published token count")


def _flops_convention(spec: ModelSpec, d: float, c: float, tolerance: float,
                      seq_len: int | None) -> str:
    """What claimed FLOPs C that disagree with 6·N_active·D do match, within ``tolerance``, as
    a clause ("; 4.1e+25 is the attention-inclusive count ..."), or "": the workbook's MFU
    basis (matmuls and attention with the full mask, ``training_flops(..., "detailed",
    causal=False)``, as published MFUs count), the causal count, 6·N_total·D for an MoE model
    (its total parameters counted as active: a compute-governance trial's DeepSeek-V3 at 6 ×
    671B × 14.8T = 5.96e25 read only "+1687.3%"), and 8·N·D (6ND with the forward recomputed,
    the hardware-FLOP count of full recomputation; Chowdhery et al. 2022 App. B)."""
    s = int(seq_len or spec.seq_len)
    n_total = float(spec.n_params)
    counts = [(float(training_flops(spec, d, s, method="detailed", causal=False)),
               f"the attention-inclusive count at {s:,}-token sequences (the MFU basis, full "
               "mask)"),
              (float(training_flops(spec, d, s, method="detailed", causal=True)),
               f"the attention-inclusive count at {s:,}-token sequences with a causal mask")]
    if spec.is_moe:
        counts.append((6 * n_total * d, f"6 × the {n_total:.4g} total parameters × D: an MoE "
                       f"model's FLOPs count its {float(spec.n_active_params):.4g} active "
                       "parameters per token"))
    counts.append((8 * float(spec.n_active_params) * d,
                   "8ND, the hardware FLOPs of full recomputation (the forward done twice)"))
    near = [(abs(c / flops - 1), flops, words) for flops, words in counts
            if abs(c / flops - 1) <= tolerance]
    if not near:
        return ""
    _, flops, words = min(near)   # the closest (a review: 3.99e25 is nearer the causal count)
    return f"; {c:.4g} is {words} ({flops:.4g}, {c / flops - 1:+.1%})"


def published_split_note(model_name: str, claimed, tolerance, tokens=None,
                         published_tokens=None) -> tuple:
    """``(split, note)``: a source's GPU-hours by phase for the model (``published_phases``),
    shown beside a claim that is judged as given, never substituted for it. Only beside a claim
    of the published run: the split is that run's, so a claim on other tokens (``tokens``
    against the model's ``published_tokens`` beyond ``tolerance``, e.g. a DeepSeek-V3-shaped
    model on 2T tokens against DeepSeek's 14.8T) gets none."""
    known, ksrc = published_phases(model_name)
    if not known or PRETRAINING not in known:
        return {}, ""
    if tokens is not None and published_tokens and isinstance(tolerance, numbers.Real) and \
            abs(float(tokens) / float(published_tokens) - 1) > tolerance:
        return {}, ""
    split = ", ".join(f"{k} {fmt_quantity(v)}" for k, v in known.items())
    total = sum(known.values())
    near = (lambda v: abs(claimed / v - 1) <= tolerance) if claimed is not None and \
        isinstance(tolerance, numbers.Real) else (lambda v: False)
    if near(known[PRETRAINING]) and abs(claimed / known[PRETRAINING] - 1) < \
            abs(claimed / total - 1):   # the nearer of the two (a trial's 2.664M read as total)
        share = fmt_quantity(known[PRETRAINING])
        return known, (f"the claimed {fmt_quantity(claimed)} GPU-h is judged as given; it "
                       f"matches the published pre-training share {share} of the total "
                       f"{fmt_quantity(total)} ({split}; {ksrc})")
    if near(total):
        what = (f"the claimed {fmt_quantity(claimed)} GPU-h is judged as given; it matches the "
                f"published total {fmt_quantity(total)}")
    else:   # a journalist's trial read "hours judged as given" of a claim of money alone
        what = "the claim's hours are judged as given" if claimed is not None else \
            "the claim states no hours"
    return known, (f"{what}; a source splits {model_name}'s GPU-hours by phase ({split}; {ksrc}): "
                   "pass phases (--phase) to judge the pre-training share alone")


def _resolve_hours(gpu_hours, days, n_gpus, phases, tolerance, fallback=None):
    """(total GPU-hours, source, phases dict, n_gpus, days); ``fallback(n_gpus)`` gives
    (hours, source) or None when the claim states no hours."""
    if phases is not None and not isinstance(phases, Mapping):
        raise ValueError(f"phases={phases!r} must be a mapping of phase name to GPU-hours, e.g. "
                         f"{{{PRETRAINING!r}: 2.664e6}}")
    phases = dict(phases or {})
    for k, v in phases.items():
        if not isinstance(k, str) or not k:
            raise ValueError(f"phases: phase name {k!r} must be a non-empty string")
        _positive(f"phases[{k!r}]", v)
    if phases and PRETRAINING not in phases:
        raise ValueError(f"phases={sorted(phases)} must include {PRETRAINING!r} (the phase the "
                         "training tokens refer to)")
    from_days = days * n_gpus * HOURS_PER_DAY if days is not None and n_gpus is not None \
        else None
    total_phases = float(sum(phases.values())) if phases else None
    candidates = [(n, v) for n, v in (("gpu_hours", gpu_hours),
                                      ("days x n_gpus x 24", from_days),
                                      ("sum of phases", total_phases)) if v is not None]
    derived = fallback(n_gpus) if not candidates and fallback is not None else None
    if derived is not None:
        candidates = [(derived[1], derived[0])]
    cost_only = derived is not None and derived[1].startswith("cost-only")
    if days is not None and (not candidates or cost_only):  # days alone or beside a cost:
        # say what they lack, not "none"; a cost gives no hours, so the days would be dropped
        raise ValueError(f"days={days!r} gives the GPU-hours only with n_gpus (days × n_gpus × "
                         "24): n_gpus was not given"
                         + (" (a cost alone gives no hours: the days would be dropped; give "
                            "n_gpus, or gpu_hours)" if cost_only else ""))
    if not candidates:
        raise ValueError("a claim needs gpu_hours, or days and n_gpus, or phases (GPU-hours by "
                         "phase), or a stated mfu or usd: none was given")
    ref_name, ref = candidates[0]
    for name, v in candidates[1:]:
        if abs(v / ref - 1) > tolerance:
            raise ValueError(f"inconsistent claim: {ref_name} = {ref:,.0f} but {name} = "
                             f"{v:,.0f} ({v / ref - 1:+.1%}, beyond the tolerance "
                             f"±{_tolerance_words(tolerance)})")
    if n_gpus is None and days is not None:
        n_gpus = max(1, round(ref / (days * HOURS_PER_DAY)))
    if days is None and n_gpus is not None:
        days = ref / (n_gpus * HOURS_PER_DAY)
    return ref, ref_name, phases, n_gpus, days


@dataclass
class StatedClaim:
    """A claim as stated, its figures checked (``stated_claim``): the model and accelerator,
    tokens D (and the note saying where they come from), the hours or days or GPUs given, a
    cost, a stated MFU, the dtype, the training context, the phases, the pricing mode the price
    is compared with, and the consistency tolerance."""

    model: object  # as given (a name, a ModelSpec or a config path), for the ledger
    spec: ModelSpec
    acc: object
    train_tokens: float
    token_note: str
    n_gpus: int | None = None
    days: float | None = None
    gpu_hours: float | None = None
    usd: float | None = None
    mfu: float | None = None
    dtype: str = "bf16"
    seq_len: int = 0
    phases: Mapping | None = None
    pricing: str = "on_demand"
    tolerance: float = HOURS_TOLERANCE
    price_usd_per_gpu_hour: float | None = None
    goodput: float | None = None
    seq_note: str = ""
    dtype_note: str = ""


def published_precision(spec: ModelSpec, accelerator=None) -> tuple:
    """``(dtype, note)``: the compute precision a claim about ``spec`` is judged in when it
    states none: FP8 where the model's own published whole runs were FP8 (data/published_runs.csv
    ``precision``, the runs that give their training tokens; all of them, or a mix is no
    answer), said in ``note``, on an ``accelerator`` with an FP8 peak (an A100 has none: BF16
    then, said); ("bf16", "") otherwise. A journalist's trial: DeepSeek-
    V3's own $5.576M and 2.788M H800 GPU-hours (DeepSeek-AI 2024, arXiv:2412.19437, Table 1:
    FP8 mixed-precision training, §3.3) were judged OPTIMISTIC as a BF16 run unless --dtype fp8
    was typed, and nothing said the published run was FP8."""
    runs = load_published_runs()
    rows = runs[(runs["catalog_model"] == spec.name) & runs["train_tokens"].notna()
                & runs["precision"].notna()]
    if rows.empty or set(rows["precision"].astype(str).str.lower()) != {"fp8"}:
        return "bf16", ""   # BF16 (the default: nothing to say), or runs that disagree
    row = rows.iloc[0]
    try:
        as_accelerator(accelerator, "accelerator").peak_flops_per_s("fp8")
    except (TypeError, ValueError):   # no accelerator given, or none with an FP8 peak
        return "bf16", (f"dtype bf16: {spec.name}'s own published run was FP8 "
                        f"(data/published_runs.csv {row['run_id']}), but "
                        f"{getattr(accelerator, 'name', accelerator)} has no FP8 peak")
    return "fp8", (f"dtype fp8: {spec.name}'s own published run's precision "
                   f"(data/published_runs.csv {row['run_id']}), the claim stating none; "
                   "dtype=bf16 judges it as a BF16 run")


def _claim_choices(spec: ModelSpec, acc, dtype, pricing) -> tuple:
    """``(dtype, dtype_note, pricing)`` of a claim as a scenario file reads its choices: any
    case (FP8 is fp8), hyphens or spaces as underscores ("on-demand" is on_demand), and a
    precision not stated taken from the model's published run (``published_precision``)."""
    dtype = dtype.lower() if isinstance(dtype, str) else dtype
    pricing = choice_spelling(pricing) if isinstance(pricing, str) else pricing
    dtype, note = published_precision(spec, acc) if dtype is None else (dtype, "")
    return dtype, note, pricing


def _claim_seq_len(spec: ModelSpec, seq_len: int | None) -> tuple:
    """``(tokens, note)``: the training context a claim is counted at. Given: it, no note. Not
    given: a catalogue model's pre-training ``seq_len``, or a spec built with its own (a
    ``config.json`` read with ``seq_len=``); a model read from a ``config.json`` at the
    context it states (``max_position_embeddings``, 131,072 for Llama 3.2 3B after its
    long-context stage: its longest, which need not be the length it was pre-trained at), the
    scenarios' default (``LEDGER_DEFAULTS["seq_len"]``, 4,096) or that context where it is
    shorter, said in the note. A small-lab trial's config.json 3B counted at 131,072-token
    sequences (8× 6ND) was told its claim implied 199% of the peak, without a word on the
    length."""
    if seq_len:
        return int(seq_len), ""
    own = spec.context_stated and spec.seq_len != spec.max_position_embeddings
    if not spec.source.startswith(HF_SOURCE_HEAD) or own:
        return int(spec.seq_len), ""
    context = int(spec.max_position_embeddings) if spec.context_stated else 0
    s = min(int(d["seq_len"]), context) if context else int(d["seq_len"])
    if s == context:   # the config's own context: nothing taken in its place
        return s, ""
    said = (f"states a {context:,}-token context, its longest, which need not be the length "
            "it was pre-trained at" if context else "states no context")
    return s, (f"seq_len not given: {s:,} tokens, the scenarios' default (the config.json "
               f"{said}); give seq_len (--seq-len) for the claim's own")


@dataclass
class _Judging:
    """What ``check_claim``'s steps work out, step by step, for one ``StatedClaim``."""

    c: StatedClaim
    peaks: dict
    f6: float
    fm: float
    price: dict
    ceiling: float
    ceiling_source: str
    best: float | None
    best_source: str
    mfu_range: tuple
    notes: list
    hours: float = 0.0
    hours_source: str = ""
    phases: dict = field(default_factory=dict)
    known: dict = field(default_factory=dict)
    n_gpus: int | None = None
    days: float | None = None
    pre: float = 0.0
    u: dict = field(default_factory=dict)
    u6: dict = field(default_factory=dict)
    g: float = 1.0
    goodput_source: str = ""
    steady: dict = field(default_factory=dict)
    verdict: str = ""
    reason: str = ""
    needed: tuple | None = None
    floor: float | None = None
    floor_source: str = ""
    bound: float | None = None
    bound_source: str = ""
    judgements: list = field(default_factory=list)
    chain: str = ""
    measured: tuple | None = None
    fc: float = 0.0
    u_causal: dict = field(default_factory=dict)
    steady_causal: dict = field(default_factory=dict)
    heading: str = ""


#: The figures a claim may state besides the model, its tokens and the accelerator
#: (``stated_claim``'s ``**figures``, ``check_claim``'s keywords).
CLAIM_FIGURES = ("n_gpus", "days", "gpu_hours", "usd", "mfu", "dtype", "seq_len", "phases",
                 "pricing", "tolerance", "train_flops", "price_usd_per_gpu_hour", "goodput")


def _fraction(name: str, v):
    """``v`` unchanged when None or a real number in (0, 1]; else a ValueError naming it."""
    if v is not None and (isinstance(v, bool) or not isinstance(v, numbers.Real)
                          or not math.isfinite(v) or not 0 < v <= 1):
        raise ValueError(f"{name}={v!r} must be a fraction in (0, 1]")
    return v


def stated_claim(model, train_tokens=None, accelerator=None, **figures) -> StatedClaim:
    """The figures of a claim checked one by one (``check_claim``'s arguments, its rules), as a
    ``StatedClaim``; tokens from ``claim_tokens``, the context default the model's.

    Parameters
    ----------
    model : str or ModelSpec
        Catalogue name, a ``ModelSpec``, or the path of a Hugging Face ``config.json``
        (``ModelSpec.from_hf_config``).
    train_tokens : float, optional
        Pre-training tokens D (default: from ``train_flops``, else the model's published count).
    accelerator : str or Accelerator
    **figures
        Any of ``CLAIM_FIGURES``:

        * ``n_gpus``, ``days``, ``gpu_hours``: any subset that gives the hours: ``gpu_hours``,
          or ``days`` and ``n_gpus``, or ``phases``; when several are given they must agree
          within ``tolerance``.
        * ``usd``: the claimed cost (implied price = usd ÷ total GPU-hours). A claim with a cost
          and no hours is priced at the catalogue median (hours = usd ÷ median price, said so).
        * ``mfu`` in (0, 1]: a stated steady-state MFU (of the stated dtype's dense peak).
          Without hours it gives them: ``C / (P × mfu × 3600) / goodput``; with hours it is
          compared with the MFU they imply (a note, since claims rarely state their FLOP basis).
        * ``dtype`` ({"bf16", "fp8", ...}): the compute precision the claim states; not
          stated, the model's own published run's (``published_precision``), else "bf16".
        * ``seq_len``: the training context (default: the model's pre-training ``seq_len``; a
          ``config.json`` model's: the scenarios' default, ``_claim_seq_len``).
        * ``phases``: GPU-hours by phase where the source splits the claim; must include
          ``"pre-training"`` (the phase ``train_tokens`` refers to). The utilisation uses the
          pre-training hours.
        * ``pricing`` ({"on_demand", "reserved", "spot", "owned"}, default "on_demand"): the
          catalogue mode the implied price is compared with; "owned": the ledger's owned
          amortisation (``price_range``), of H100-SXM or its generation (else not compared).
        * ``tolerance``: relative tolerance of the consistency checks (default
          ``HOURS_TOLERANCE``).
        * ``train_flops``: a claim stated as total training FLOPs on the 6ND convention (Epoch
          AI's estimates): gives ``train_tokens`` when those are not stated
          (D = C / (6 · N_active)).
        * ``price_usd_per_gpu_hour``: the run's own GPU-hour price (a scenario's): prices the
          hours and the lines left out when no cost is claimed, instead of the catalogue.
        * ``goodput`` in (0, 1]: the run's own goodput (a scenario's, as its bill computes it
          with its failure rates and checkpoint plan) instead of ``goodput_for``'s default.

    Raises
    ------
    ValueError
        A name not in ``CLAIM_FIGURES``, or a figure that breaks its rule (see ``check_claim``).
    """
    bad = sorted(set(figures) - set(CLAIM_FIGURES))
    if bad:
        raise ValueError(f"unknown claim figure(s) {bad}; a claim states any of {CLAIM_FIGURES}")
    f = {"n_gpus": None, "days": None, "gpu_hours": None, "usd": None, "mfu": None,
         "dtype": None, "seq_len": None, "phases": None, "pricing": "on_demand",
         "tolerance": HOURS_TOLERANCE, "train_flops": None, "price_usd_per_gpu_hour": None,
         "goodput": None, **figures}
    n_gpus, days, gpu_hours, usd, mfu, dtype, seq_len, phases, pricing, tolerance, train_flops, \
        price, goodput = (f[k] for k in CLAIM_FIGURES)
    spec = claim_model(model)
    if accelerator is None:
        raise ValueError("accelerator=None must be an accelerator name (e.g. 'H100-SXM') or an "
                         "Accelerator")
    acc = as_accelerator(accelerator, "accelerator")
    dtype, dtype_note, pricing = _claim_choices(spec, acc, dtype, pricing)
    figures = {"n_gpus": _positive("n_gpus", n_gpus, integer=True),
               "days": _positive("days", days), "gpu_hours": _positive("gpu_hours", gpu_hours),
               "usd": _positive("usd", usd)}
    tol = _tolerance(tolerance)
    s, seq_note = _claim_seq_len(spec, _positive("seq_len", seq_len, integer=True))
    d, token_note = claim_tokens(spec, train_tokens, train_flops, tol, s)
    if pricing not in PRICING:
        raise ValueError(f"pricing={pricing!r} must be one of {PRICING}")
    if mfu is not None and (isinstance(mfu, bool) or not isinstance(mfu, numbers.Real)
                            or not math.isfinite(mfu) or not 0 < mfu <= 1):
        raise ValueError(f"mfu={mfu!r} must be a steady-state MFU in (0, 1]")
    return StatedClaim(model, spec, acc, d, token_note, seq_note=seq_note, mfu=mfu,
                       dtype=dtype, seq_len=s, phases=phases, pricing=pricing, tolerance=tol,
                       price_usd_per_gpu_hour=_positive("price_usd_per_gpu_hour", price),
                       goodput=_fraction("goodput", goodput), dtype_note=dtype_note, **figures)


@disk_cached  # the same for every call with these arguments: core.diskcache
def check_claim(model, train_tokens=None, accelerator=None, *, left_out: bool = True,
                ledger_keys: dict | None = None, bill_keys: dict | None = None,
                exclude_own_runs: bool = True, **figures) -> ClaimCheck:
    """Check a training-cost claim.

    **Formulas** (the conventions: MFU, not HFU; dense peaks of ``data/accelerators.csv``),
    one step each, in this order, each step's docstring writing its formula and source:

    * the figures as stated (``stated_claim``; tokens ``claim_tokens``: stated, else from a
      claim of 6ND FLOPs ``D = C / (6 · N_active)``, else the model's published count);
    * the references (``_claim_references``): ``C_6ND = 6 · N_active · D`` and ``C = D · F(s)``
      on the MFU basis, the peaks, the matmul ceiling, the best published MFU;
    * the hours (``_claim_hours``; from a stated MFU or a cost, ``_hours_from_mfu_or_usd``:
      ``H = C / (P × MFU × 3600) / goodput``);
    * the utilisation (``_claim_utilisation``): ``U = C / (H × 3600 × P)`` of the pre-training
      hours and ``MFU_implied = U / goodput`` (``goodput_for``);
    * the verdict (``_mfu_verdict``; for money alone ``_cost_only_verdict``: the floor
      ``_cost_floor`` and the price it needs; money and hours: ``_money_judgements``), the
      price line (``_price_verdict``, ``price_range``), the lines left out (``_left_out``).

    A claim is judged as given: with no ``phases``, a published split (data/published_phases.csv)
    is shown beside the verdict; pass ``phases`` to judge the pre-training share alone.

    Parameters
    ----------
    model, train_tokens, accelerator
        As ``stated_claim``.
    left_out : bool
        Price the lines the claim leaves out with the ledger (default True).
    ledger_keys, bill_keys : dict, optional
        Keys of those lines priced over the ledger's defaults (``_left_out_keys``): the ones a
        scenario gives (named in ``left_out_keys``), and values its bill derived (not named).
    exclude_own_runs : bool
        Leave the model's own published runs out of the best published reference (default);
        ``scenario_as_claim`` keeps them: a scenario is judged against 04b's and 09's figure.
    **figures
        What the claim states (``CLAIM_FIGURES``: ``n_gpus``, ``days``, ``gpu_hours``, ``usd``,
        ``mfu``, ``dtype``, ``seq_len``, ``phases``, ``pricing``, ``tolerance``,
        ``train_flops``), each described in ``stated_claim``.

    Returns
    -------
    ClaimCheck.

    Raises
    ------
    ValueError
        A non-positive or non-numeric figure, an unknown model/accelerator/dtype or figure name,
        hours that disagree beyond ``tolerance`` or far above the peak (``_refuse_far_above_peak``),
        days without n_gpus, no tokens nor FLOPs, or ``train_flops`` that disagree with them.
    """
    left_out = as_flag(left_out, "left_out")
    extra, named = _left_out_keys(ledger_keys, bill_keys)
    c = stated_claim(model, train_tokens, accelerator, **figures)
    j = _claim_references(c, as_flag(exclude_own_runs, "exclude_own_runs"), ledger_keys)
    _claim_hours(j)
    _claim_utilisation(j)
    _claim_verdict(j)
    implied, pv = _unavailable_price_note(j, _price_verdict(j))
    rows, total, band, band_src = _claim_left_out(c, j, implied, extra) if left_out \
        else ([], 0.0, None, "")
    basis, words = _left_out_basis(j) if left_out and rows and rows[0]["line"] != \
        "(not priced)" else "", count_words(c.spec)
    return ClaimCheck(
        model=c.spec.name, accelerator=c.acc.name, dtype=c.dtype, train_tokens=c.train_tokens,
        seq_len=c.seq_len, n_gpus=j.n_gpus, days=j.days, gpu_hours=j.hours,
        hours_source=j.hours_source, phase_gpu_hours=j.phases, pretraining_gpu_hours=j.pre,
        flops_6nd=j.f6, flops_mfu_basis=j.fm, peak_flops_per_s=j.peaks, whole_run=j.u,
        whole_run_6nd=j.u6, goodput=j.g, goodput_source=j.goodput_source,
        steady_state=j.steady, ceiling=j.ceiling, ceiling_source=j.ceiling_source,
        best_published=j.best, best_source=j.best_source, verdict=j.verdict, reason=j.reason,
        usd=c.usd, implied_usd_per_gpu_hour=implied, price=j.price, price_verdict=pv,
        left_out=rows, left_out_usd=total, left_out_range_usd=band,
        left_out_range_source=band_src, left_out_keys=tuple(sorted(named)) if left_out else (),
        notes=tuple(j.notes), needed_usd_per_gpu_hour=j.needed, cost_floor_usd=j.floor,
        needed_mfu_range=j.mfu_range if j.needed is not None else None,
        published_phase_gpu_hours=j.known, tokens_source=c.token_note,
        cost_floor_source=j.floor_source, judgements=tuple(j.judgements),
        left_out_basis=basis, flops_causal=j.fc, whole_run_causal=j.u_causal,
        steady_state_causal=j.steady_causal, verdict_basis=j.heading, count_source=words)


#: Regulation (EU) 2024/1689 (the AI Act), Article 51(2): "A general-purpose AI model shall be
#: presumed to have high impact capabilities ... when the cumulative amount of computation used
#: for its training measured in floating point operations is greater than 10^25" (a model so
#: presumed is one "with systemic risk", Article 51(1)(a); the Commission may amend the figure
#: by delegated act, Article 51(3)).
EU_AI_ACT_SYSTEMIC_FLOPS = 1e25


def compute_threshold_words(flops_6nd: float, flops_causal: float) -> str:
    """Where a pre-training's FLOPs stand against the EU AI Act's presumption of systemic risk
    (``EU_AI_ACT_SYSTEMIC_FLOPS``, 10^25), by the two counts of the work a run does: 6·N·D
    and the attention-inclusive count of a causal run (its kernels skip the masked half of
    the attention scores: the computation "used for its training", Art. 51(2)); not the MFU
    basis's full mask, which counts work no causal run does (a journalist's trial read
    Qwen2.5-72B on 22T tokens "across it" by that count alone, 1.01e25, where the work done is
    9.79e24). Above or below it by both, or across it, the two counts named. The Act counts
    the cumulative computation used for training, so post-training and the generation of
    synthetic training data add to the pre-training figure said here. ValueError for a count
    that is not a positive number."""
    n6 = as_scalar(flops_6nd, "flops_6nd", positive=True)
    nc = as_scalar(flops_causal, "flops_causal", positive=True)
    (lo, lo_name), (hi, hi_name) = sorted(((n6, "6ND"), (nc, "the causal count")))
    t = EU_AI_ACT_SYSTEMIC_FLOPS
    where = ("above it by both counts" if lo > t else "below it by both counts" if hi <= t
             else f"across it: above by {hi_name}, below by {lo_name}")
    return (f"EU AI Act (Regulation 2024/1689, Art. 51(2)): training compute above {t:.0e} "
            f"FLOP presumes systemic risk; this pre-training's {lo:.3g}-{hi:.3g} FLOP "
            f"(6ND and the attention-inclusive count of the work a causal run does) is {where} "
            "(post-training and synthetic-data generation count too)")


def count_words(spec: ModelSpec) -> str:
    """Where a claim's parameter count comes from, for its FLOPs line: "the catalogue count"
    for a catalogue model (``load_model`` gives the same spec), "counted from its config.json"
    for one read from a Hugging Face config.json (``ModelSpec.from_hf_config``), else "counted
    from the given architecture" (a ``ModelSpec`` or a scenario's own model)."""
    if spec.source.startswith("Hugging Face config.json"):
        return "counted from its config.json"
    try:
        if load_model(spec.name) == spec:
            return "the catalogue count"
    except ValueError:
        pass
    return "counted from the given architecture"


def _claim_verdict(j: _Judging) -> None:
    """The verdict: on the utilisation (``_mfu_verdict``; with phases, the pre-training share
    said); for money alone on its cost and the price it needs (``_cost_only_verdict``); for
    money and hours the worst of the utilisation, the cost and the price
    (``_money_judgements``)."""
    _mfu_verdict(j)
    if j.phases:
        j.reason += (f" (pre-training share of the claim: {gpu_h(j.pre)} of {gpu_h(j.hours)} "
                     "GPU-h)")
    if j.hours_source.startswith("cost-only"):  # money, not hours: judge the price it needs
        _cost_only_verdict(j)
    elif j.c.usd is not None:  # money and hours: the cost and the price judged beside the MFU
        _money_judgements(j)
    if j.verdict != "optimistic":  # the heading's basis is that of an optimistic bound only
        j.heading = ""
    if j.verdict == "plausible" and j.best is None and j.bound is None:
        # nothing comparable published: only the physical ceiling judged it (notebook 09 calls
        # such a figure unverified; a second trial read PLAUSIBLE here and "unverified" there)
        j.heading = "unverified: no comparable published run; only the matmul ceiling judged it"


def _unavailable_price_note(j: _Judging, verdict: tuple) -> tuple:
    """``verdict`` (``_price_verdict``'s implied price and sentence), after adding a note when
    the catalogue price the check compares with (``price_range``) rests on rows listed as not
    available when collected (``core.catalog.unavailable_prices``); none when the claim's own
    price is the one used (given, with no cost to imply one)."""
    c, implied = j.c, verdict[0]
    if not j.price.get("not_available") or (c.price_usd_per_gpu_hour is not None
                                            and implied is None and j.needed is None):
        return verdict
    j.notes.append(f"the catalogue price of {j.price['priced_as']} this check compares with "
                   f"rests on {len(j.price['not_available'])} row(s) {NOT_AVAILABLE} (the "
                   "provider showed no capacity when it was collected): "
                   + "; ".join(j.price["not_available"]))
    return verdict


def below_floor(j: _Judging) -> bool:
    """Whether the claimed cost is below the least its FLOPs can cost (``_cost_floor``): an
    impossible cost, from which no other figure is derived."""
    return j.c.usd is not None and j.floor is not None and j.c.usd < j.floor


def _claim_left_out(c: StatedClaim, j: _Judging, implied, extra: dict):
    """The lines the claim leaves out (``_left_out``), priced at the claim's price: the implied
    ``usd ÷ H`` when it states money and hours, else the high end of the price a cost-only
    claim needs, else the stated price, else the catalogue median of its pricing mode. A cost
    below the least its FLOPs can cost (``below_floor``) is impossible: no line is derived from
    it, the lines are priced as a claim without a cost (the stated price, else the catalogue
    median), and ``_left_out_basis`` says so. Owned hardware without a stated or derived price
    is left to the ledger's amortisation (None), as the bill prices it: the hardware on the
    GPU-hour lines, the energy on its own line."""
    if not below_floor(j) and implied is not None:
        price = implied
    elif not below_floor(j) and j.needed is not None:
        price = j.needed[1]
    elif c.price_usd_per_gpu_hour is not None:
        price = c.price_usd_per_gpu_hour
    else:
        price = None if c.pricing == "owned" else j.price["default"]
    return _left_out(c.spec, c.acc, c.train_tokens, c.seq_len, j.n_gpus, j.steady[c.dtype],
                     c.dtype, price, c.pricing, ledger_model_name(c.model, c.spec), extra,
                     tuple(j.phases))


def _fp8_mix_ceiling(spec, seq_len: int, fraction: float, speedup: float) -> tuple:
    """``(ceiling, words)``: the highest utilisation of the FP8 dense peak an FP8 run's FLOPs
    admit when the attention core, the LM head and the MoE router run at the BF16 rate, as FP8
    recipes keep them (DeepSeek-AI 2024, DeepSeek-V3 Technical Report, arXiv:2412.19437
    §3.3.1: "the output head, MoE gating modules ... and attention operators" in their original
    precision; Transformer Engine's FP8 covers the linear layers, the step model's
    ``StepOptions.fp8_as_run``), each part at ``fraction`` (the measured matmul ceiling) of its
    own peak:

        T_min = F·s₈ / (f·P₈) + F·s₁₆ / (f·P₁₆)   ⇒   U_max = F / (P₈·T_min) = f / (s₈ + s₁₆·r)

    with s₁₆ the share of the training FLOPs (causal mask, ``flops_per_token_breakdown``) in the
    attention core, LM head and router, s₈ = 1 − s₁₆, and r = P₈ / P₁₆ (``speedup``, 2 on
    Hopper and Blackwell datasheets). By hand, Llama 3.1 8B at 8,192 tokens: s₁₆ ≈ 0.186,
    0.801 / (0.814 + 0.372) = 0.675 on an H100. The multi-token-prediction modules are counted
    at the FP8 rate (their output head is BF16 too: a ceiling a little high, never low)."""
    bd = spec.flops_per_token_breakdown(seq_len, training=True, causal=True)
    s16 = float((bd["attention_core"] + bd["lm_head"] + bd["router"]) / bd["total"])
    ceiling = fraction / ((1.0 - s16) + s16 * speedup)
    return ceiling, (f"; the FP8 recipe's FLOP mix: the attention core, LM head and router, "
                     f"{s16:.1%} of the causal training FLOPs, at the BF16 rate (FP8 recipes "
                     f"keep them in 16 bits: DeepSeek-V3 report §3.3.1), so {fraction:.1%} / "
                     f"({1 - s16:.3f} + {s16:.3f} × {speedup:.3g}) = {ceiling:.1%} of the FP8 "
                     "peak")


def _claim_references(c: StatedClaim, exclude_own_runs: bool = True,
                      owned: Mapping | None = None) -> _Judging:
    """The figures a claim is judged against: the dense peaks P (stated dtype and BF16), the
    FLOPs ``C_6ND = 6 · N_active · D`` (Kaplan et al. 2020 §2.1; N the catalogue's active
    parameter count, embeddings included) and ``C = D · F(s)`` on the MFU basis
    (``compute.training_flops(method="detailed", causal=False)``: matmul + attention FLOPs per
    token, full attention mask, Narayanan et al. 2021 App. A's counting), the price range of
    the pricing mode (``price_range``; ``owned``: the scenario's owned keys), the matmul
    ceiling (``matmul_fraction`` of ``data/efficiency.csv``: the measured BF16 GEMM ceiling,
    e.g. H100 0.801 from stas00's MAMF benchmark; for FP8 the same fraction of each part's
    peak over the FP8 recipe's FLOP mix, ``_fp8_mix_ceiling``, an assumption said in the
    source),
    the best published MFU (``best_reference``: ``accuracy.comparable_published_mfu``'s rule,
    the claimed model's own published runs excluded unless ``exclude_own_runs`` is False, as
    for a scenario) and
    the plausible steady-state MFU range of a cost-only claim, ``LOW_SHARE × best`` (× the best
    as measured where the best is a scaled bound, ``measured_reference``) to
    ``best`` (the best at any size, ``any_size_bound``, no higher than the ceiling, standing in
    for an unknown best, else the ceiling); a training context beyond the
    model's is noted (``checks.context_warning``, the sentence ``llmcost estimate`` warns with)."""
    spec, acc, dtype = c.spec, c.acc, c.dtype
    peaks = {dtype: acc.peak_flops_per_s(dtype)}
    peaks.setdefault("bf16", acc.peak_flops_per_s("bf16"))
    f6 = float(training_flops(spec, c.train_tokens, method="6ND"))
    fm = float(training_flops(spec, c.train_tokens, c.seq_len, method="detailed", causal=False))
    pr = price_range(acc, c.pricing, owned)  # owned: the scenario's purchase, as its bill
    ceiling = float(load_efficiency(acc.name).matmul_fraction)
    csrc = f"data/efficiency.csv matmul_fraction for {acc.name} (measured on BF16 GEMMs)"
    if dtype != "bf16":
        csrc += (f"; ASSUMPTION: the same fraction applied to the {dtype} peak ("
                 + (fp8_ceiling_words(acc.name) if dtype == "fp8" else
                    f"no {dtype} GEMM measurement in data/efficiency.csv")
                 + "; a ceiling, not a measured figure)")
    if dtype == "fp8":
        ceiling, mix = _fp8_mix_ceiling(spec, c.seq_len, ceiling,
                                        peaks["fp8"] / peaks["bf16"])
        csrc += mix
    own = spec.name if exclude_own_runs else None
    best, bsrc = best_reference(acc.name, float(spec.n_params), exclude_model=own,
                                is_moe=spec.is_moe, dtype=dtype, seq_len=c.seq_len)
    bound, bound_src = (best, bsrc) if best is not None else any_size_bound(
        acc.name, spec.is_moe, dtype, c.seq_len, own)
    # the ceiling on the BF16 peak, the basis of published MFUs and of the hours a cost-only
    # claim needs (``_needed``: ÷ peak(BF16)); a fraction of the claim's own dtype peak above
    ceiling_bf16 = ceiling * peaks[dtype] / peaks["bf16"]
    if best is None and bound is not None:
        bsrc += f"; at any size, {bound:.1%} of the BF16 peak ({bound_src})"
        if bound > ceiling_bf16:  # e.g. an FP8 run bounding a BF16 claim
            bsrc += (f"; above the {ceiling:.1%} ceiling, so no utilisation the ceiling admits "
                     "is above it: the ceiling alone judges this claim")
    # an unknown best: the best at any size of the class (the verdict's bound), no higher than
    # the ceiling (a BF16 claim's bound may be an FP8 run's MFU on the BF16 peak, above it)
    mfu_hi = best if best is not None else min(bound, ceiling_bf16) if bound is not None \
        else ceiling_bf16
    # a context beyond the model's: said as estimate says it (checks.context_warning)
    notes = [x for x in (c.dtype_note, c.token_note, c.seq_note,
                         context_warning(spec, c.seq_len),
                         None if exclude_own_runs else _own_run_note(c, best, bsrc)) if x]
    # the FLOPs a causal run does (kernels skip the masked half of attention): what the
    # physical bounds, the matmul ceiling and the cost floor, are set against
    fc = float(training_flops(spec, c.train_tokens, c.seq_len, method="detailed", causal=True))
    # the evidence as published, read once for the chain and the measured best (an FP8 claim)
    shown = _as_published(acc.name, spec, dtype, c.seq_len, own) \
        if best is not None and str(dtype).lower().startswith("fp8") else None
    chain = _chain_words(shown, best, spec) if shown is not None else ""
    measured = _best_measured(shown) if chain else None
    # the low end of a cost-only claim's MFU is half the best as measured where the best is a
    # scaled bound (``_low_yardstick``; a chain has a best)
    low_of = measured[0] if measured is not None else mfu_hi
    return _Judging(c, peaks, f6, fm, pr, ceiling, csrc, best, bsrc, (LOW_SHARE * low_of, mfu_hi),
                    notes, bound=bound, bound_source=bound_src, chain=chain, measured=measured,
                    fc=fc)


def _best_bf16_evidence(accelerator: str, n_params: float, is_moe, seq_len, exclude_runs=(),
                        whole_runs: pd.DataFrame | None = None) -> tuple | None:
    """The best BF16 evidence comparable to an FP8 claim or step, ``(MFU on the BF16 peak, its
    name)`` or None: the best BF16 run or MFU claim of ``accuracy.comparable_published_mfu``
    (``exclude_runs`` left out) and, given ``whole_runs`` (``best_reference``'s comparable
    whole-run rows), their BF16 rows' steady-state MFU, whichever is higher; × r it bounds an
    FP8 step (``accuracy.fp8_bound_of_bf16``, the comparable-run rule's (4))."""
    b16 = comparable_published_mfu(accelerator, n_params, is_moe=is_moe, dtype="bf16",
                                   exclude_runs=exclude_runs, seq_len=seq_len)
    best = _best_evidence(b16)
    if whole_runs is not None:
        w = whole_runs[whole_runs["precision"].astype(str).str.upper() == "BF16"]
        if len(w):
            row = w.loc[w["steady_mfu"].idxmax()]
            if best is None or row["steady_mfu"] > best[0]:
                best = (float(row["steady_mfu"]), _whole_run_words(row) + ")")
    return best


def _whole_run_words(row) -> str:
    """A whole run (a ``whole_run_rows`` row) as evidence, its parenthesis left open for the
    caller to close: "Llama 2 70B's whole-run utilisation ÷ goodput (data/published_runs.csv
    <run_id>, MFU basis"."""
    return (f"{row['model']}'s whole-run utilisation ÷ goodput (data/published_runs.csv "
            f"{row['run_id']}, MFU basis")


def _best_evidence(b) -> tuple | None:
    """The best comparable evidence of ``accuracy.comparable_published_mfu``'s ``b`` (taken with
    ``fp8_bound=False``), ``(MFU on the BF16 peak, its name)`` or None: its best run, or an MFU
    claim (``accuracy.MFU_CLAIMS``, BF16 evidence) where one is above every run, which an FP8
    claim bounds × r as it bounds a BF16 run."""
    if b.mfu_bf16 is None or (b.run is not None and b.run[0] >= b.mfu_bf16):
        return b.run
    return b.mfu_bf16, b.source


def _as_published(accelerator: str, spec: ModelSpec, dtype: str, seq_len,
                  exclude_model=None) -> tuple:
    """``(run, fp8, whole_dtype)``: a claim's comparable evidence as published, not × r, which
    ``scaled_reference_chain`` and ``measured_reference`` both read: the best comparable BF16
    run or claim (``_best_bf16_evidence``, None without one), the comparable ``dtype`` runs
    (``accuracy.comparable_published_mfu`` with ``fp8_bound=False``) and the whole runs in
    scope of that dtype (``_whole_runs_in_scope``), ``exclude_model``'s own runs left out."""
    own = own_runs(exclude_model)
    n = float(spec.n_params)
    whole = _whole_runs_in_scope(accelerator, n, spec.is_moe, True, seq_len, exclude_model)
    run = _best_bf16_evidence(accelerator, n, spec.is_moe, seq_len, own, whole)
    fp8 = comparable_published_mfu(accelerator, n, is_moe=spec.is_moe, dtype=dtype,
                                   exclude_runs=own, seq_len=seq_len, fp8_bound=False)
    return run, fp8, whole[whole["precision"].astype(str).str.upper() == str(dtype).upper()]


def scaled_reference_chain(accelerator: str, spec: ModelSpec, best, dtype: str, seq_len,
                           exclude_model=None) -> str:
    """The evidence behind a best published figure that is a scaled BF16 run, in one sentence
    (a new-user trial read DeepSeek-V3's "above the best published comparable run, 27.7%" as a
    measured run): which run, its MFU, the factor and the pair it comes from, and what that
    makes the bound. Applies when ``best`` is ``accuracy.fp8_bound_of_bf16`` of the best
    comparable run (``best = MFU_bf16 × r``, r the largest published FP8 ÷ BF16 speed-up of one
    plan, ``accuracy.fp8_speedup_bound``), for an FP8 claim the comparable FP8 runs do not
    bound higher; "" for a bound that is a run's own figure, or none."""
    if best is None or not str(dtype).lower().startswith("fp8"):
        return ""
    return _chain_words(_as_published(accelerator, spec, dtype, seq_len, exclude_model), best,
                        spec)


def _chain_words(published: tuple, best: float, spec: ModelSpec) -> str:
    """``scaled_reference_chain``'s sentence from ``_as_published``'s evidence."""
    run, b, whole8 = published
    n = float(spec.n_params)
    if run is None or not math.isclose(best, fp8_bound_of_bf16(*run, n)[0], rel_tol=1e-12):
        return ""
    # FP8 evidence as published (a BF16 run or claim as published is below its × r): a bound
    # it reaches is that run's own figure (a pair's BF16 run × r ties its own FP8 run)
    if max([b.mfu_bf16 or 0.0, *whole8["steady_mfu"]]) >= best * (1 - 1e-9):
        return ""
    (mfu, name), (r, pair) = run, fp8_speedup_bound(n)
    factor = ("this model's own published pair" if spec.name in pair else "another model")
    fp8_runs = ("every other comparable published FP8 run of the claim's class is lower"
                if b.fp8_rows or len(whole8) else
                "no comparable FP8 run of the claim's class is published")
    return (f"that bound is one BF16 run, {name} at {mfu:.1%} of the BF16 peak, × {r:.3g} for "
            "FP8 (the largest FP8 ÷ BF16 speed-up of one plan among the published pairs of a "
            f"comparable size, {pair}): {fp8_runs}, so it rests on one run in another "
            f"precision and a factor measured on {factor}; the verdict says no comparable "
            "published run reaches this utilisation, not that the claim is false")


def measured_reference(accelerator: str, spec: ModelSpec, dtype: str, seq_len,
                       exclude_model=None) -> tuple | None:
    """The best comparable evidence as measured, ``(MFU on the BF16 peak, its name)`` or None:
    the best comparable BF16 run or claim as published (``_best_bf16_evidence``, not × r) and
    the comparable ``dtype`` runs as published (``accuracy.comparable_published_mfu`` with
    ``fp8_bound=False``; whole runs in scope), whichever is higher (``_as_published``). The
    ``low`` verdict's yardstick where the best published figure is a BF16 run × r
    (``scaled_reference_chain``): r is the largest FP8 ÷ BF16 speed-up of one plan, an upper
    bound, so half of it is no measured run's half (a trial's Qwen3-30B-A3B on H100 at 24.0%
    of the BF16 peak was called low against Mixtral 8x7B's BF16 44.3% × 1.4, while the same
    report said a published run like it, carried to its plan, is slower than that)."""
    return _best_measured(_as_published(accelerator, spec, dtype, seq_len, exclude_model))


def _best_measured(published: tuple) -> tuple | None:
    """``measured_reference`` from ``_as_published``'s evidence."""
    run, b, whole = published
    found = [run, (b.mfu_bf16, b.source) if b.mfu_bf16 is not None else None]
    if len(whole):
        row = whole.loc[whole["steady_mfu"].idxmax()]
        found.append((float(row["steady_mfu"]), _whole_run_words(row) + ")"))
    found = [f for f in found if f is not None]
    return max(found, key=lambda f: f[0]) if found else None


def any_size_bound(accelerator: str, is_moe: bool, dtype: str, seq_len: int | None,
                   exclude_model: str | None = None) -> tuple:
    """The published MFU a claim with no comparable run (none within ``SIZE_FACTOR`` of its
    size) is bounded by, as ``llmcost estimate`` caps a band (``accuracy.band_cap``): the best
    run of its class, dtype rule and context on its GPU generation at any size
    (``accuracy.published_any_size``: a BF16 claim with no BF16 run of its class there is
    bounded by the class's FP8 runs on the BF16 basis), ``exclude_model``'s own runs left out.
    ``(mfu on the BF16 peak, source and rule)`` or ``(None, reason)``. Used for the
    ``optimistic`` verdict only: a run of another size is no yardstick for ``low``."""
    own = own_runs(exclude_model)
    b = published_any_size(accelerator, dtype, seq_len, bool(is_moe), exclude_runs=own)
    return b.mfu_bf16, (b.source if b.mfu_bf16 is None else f"{b.source}; rule: {b.rule}")


def _hours_from_mfu_or_usd(j: _Judging, n):
    """(hours, source) of a claim that states no hours, or None: from a stated MFU,
    H = C / (P × MFU × 3600) / goodput; from a cost alone, the hours at the best published MFU
    of the BF16 peak, H = C / (P_bf16 × best × 3600) / goodput (goodput 1 when n_gpus is
    unknown)."""
    c = j.c
    g_ = c.goodput if c.goodput is not None else \
        goodput_for(c.spec.n_params, n) if n is not None else 1.0
    # the default goodput's storage said (a trial read two goodputs for one run, flags and file)
    how = f", with {STORAGE_WORDS}" if c.goodput is None and n is not None else ""
    if c.mfu is not None:
        return (j.fm / (j.peaks[c.dtype] * c.mfu * SECONDS_PER_HOUR) / g_,
                f"from the stated MFU {c.mfu:.1%} ÷ goodput {g_:.1%}{how}")
    if c.usd is not None:
        hi = j.mfu_range[1]
        what = ("the best published steady-state MFU" if j.best is not None else
                "the best published steady-state MFU of its class at any size"
                if j.bound is not None and hi == j.bound else "the matmul ceiling")
        return (j.fm / (j.peaks["bf16"] * hi * SECONDS_PER_HOUR) / g_,
                f"cost-only claim: the hours at {what} {hi:.1%} of the BF16 peak ÷ goodput "
                f"{g_:.1%}{how} (no hours stated)")
    return None


def _claim_hours(j: _Judging) -> None:
    """The claim's GPU-hours (``_resolve_hours``: ``gpu_hours``, days × n_gpus × 24 or the sum
    of the phases, which must agree within the tolerance; else ``_hours_from_mfu_or_usd``), the
    pre-training hours the utilisation uses, and the published phase split beside a claim
    that gives none (``published_split_note``)."""
    c = j.c
    claimed = c.gpu_hours if c.gpu_hours is not None else (
        c.days * c.n_gpus * HOURS_PER_DAY if c.days is not None and c.n_gpus is not None
        else None)
    j.known, split_note = published_split_note(c.spec.name, claimed, c.tolerance,
                                               c.train_tokens, c.spec.train_tokens) \
        if c.phases is None else ({}, "")
    if split_note:
        j.notes.append(split_note)
    j.hours, j.hours_source, j.phases, j.n_gpus, j.days = _resolve_hours(
        c.gpu_hours, c.days, c.n_gpus, c.phases, c.tolerance,
        lambda n: _hours_from_mfu_or_usd(j, n))
    j.pre = float(j.phases.get(PRETRAINING, j.hours))


def _claim_utilisation(j: _Judging) -> None:
    """Whole-run utilisation of the pre-training hours H per dtype's peak P,
    ``U = C / (H × 3600 × P)`` (Chowdhery et al. 2022 App. B define MFU as achieved model
    FLOP/s ÷ peak; over paid hours it is a whole-run figure; also on 6ND), and the
    steady-state MFU ``U ÷ goodput``, goodput = productive ÷ wall time of
    ``reliability.checkpoint_plan`` on ``n_gpus`` (``goodput_for``: Daly 2006 checkpoint
    interval; failure rate 0.173 per GPU-year from Llama 3 §3.3.4's 419 interruptions in 54
    days on 16,384 GPUs); 1 when ``n_gpus`` is unknown (the MFU is then a lower bound)."""
    c = j.c
    j.u = {k: j.fm / (j.pre * SECONDS_PER_HOUR * p) for k, p in j.peaks.items()}
    j.u6 = {k: j.f6 / (j.pre * SECONDS_PER_HOUR * p) for k, p in j.peaks.items()}
    j.u_causal = {k: j.fc / (j.pre * SECONDS_PER_HOUR * p) for k, p in j.peaks.items()}
    _refuse_far_above_peak(j)
    _refuse_far_below_floor(j)
    if j.n_gpus is not None and c.n_gpus is None:
        j.notes.append(f"n_gpus derived: {gpu_h(j.hours)} GPU-h ÷ ({j.days:g} days × 24) = "
                       f"{j.n_gpus:,}")
    if c.goodput is not None:
        j.g, j.goodput_source = c.goodput, "given (the scenario's bill: its failure rates and " \
            "checkpoint plan)"
    elif j.n_gpus is not None:
        j.g = goodput_for(c.spec.n_params, j.n_gpus)
        if not j.g > 0:  # failures faster than a checkpoint and a restart: no work kept
            raise ValueError(f"n_gpus={j.n_gpus:,}: at the ledger's default failure rate a job "
                             "that large fails faster than it can checkpoint and restart "
                             "(goodput 0, reliability.checkpoint_plan), so no utilisation can be "
                             "implied; check n_gpus")
        j.goodput_source = (f"reliability.checkpoint_plan on {fmt_gpus(j.n_gpus)} with the "
                            "ledger's default failure rate, restart time and checkpoint recipe, "
                            f"and {STORAGE_WORDS}")
    else:   # hours that come from an MFU (stated, or a cost-only claim's best) imply none
        assumed = j.hours_source.startswith(("from the stated MFU", "cost-only claim"))
        j.g, j.goodput_source = 1.0, "n_gpus not given: goodput taken as 1" + (
            "" if assumed else ", so the implied steady-state MFU is a lower bound")
        j.notes.append(j.goodput_source)
    j.steady = {k: v / j.g for k, v in j.u.items()}
    j.steady_causal = {k: v / j.g for k, v in j.u_causal.items()}
    if c.mfu is not None and not j.hours_source.startswith("from the stated MFU"):
        j.notes.append(f"{STATED_MFU_UNUSED} {c.mfu:.1%} is not used: the claim's hours "
                       f"({j.hours_source}) give the utilisation; it is set beside the "
                       f"{j.steady[c.dtype]:.1%} they imply on the MFU basis "
                       f"({j.u6[c.dtype] / j.g:.1%} by 6ND): a claim seldom states its FLOP "
                       "basis")
    if c.spec.is_moe:
        j.notes.append(f"MoE: compared with published MoE runs only, of total parameters "
                       f"within {SIZE_FACTOR:g}× of its {c.spec.n_params:.3g}")


#: What marks the own-run note (``_own_run_note``, ``ClaimCheck.own_run_note``)
OWN_RUN_WORDS = ": a scenario is judged with its model's own runs"


def _own_run_note(c: StatedClaim, best: float | None, src: str = "") -> str | None:
    """Where a scenario's best comparable run (its model's own runs kept: the figure notebooks
    04b and 09 show) is its model's own published run, what the best is without them, the
    reference a check of that model's own published claim uses (``exclude_own_runs``: a run
    never vouches for itself). A trial read DeepSeek-V3's claim judged optimistic against
    33.0% and, on the same page, a scenario of that run judged plausible against 47.5%, its
    own. None where the model's own runs do not set the best. ``src``: the best run's source
    (``best_reference``), named, as it may be a benchmark rather than the model's pre-training
    (a trial read "llama-3.1-8b's own published run" for NVIDIA's 8-GPU DGX Cloud benchmark,
    beside the estimate's Llama 3 8B training run at 18.8%)."""
    if best is None:
        return None
    other, osrc = best_reference(c.acc.name, float(c.spec.n_params), exclude_model=c.spec.name,
                                 is_moe=c.spec.is_moe, dtype=c.dtype, seq_len=c.seq_len)
    if other is not None and other >= best * (1 - 1e-9):
        return None
    osrc = osrc.replace(f"; {c.spec.name}'s own published runs left out", "")  # said here
    without = (f"{other:.1%} ({osrc})" if other is not None else f"none ({osrc})")
    name = src.split("; rule")[0].strip()
    name += ")" * max(0, name.count("(") - name.count(")"))   # a source cut mid-parenthesis
    return (f"the best comparable run, {best:.1%} of the BF16 peak, is a published run of "
            f"{c.spec.name} itself" + (f" ({name})" if name else "") + f"{OWN_RUN_WORDS}, "
            f"as notebooks 04b "
            f"and 09 judge it; without them the best is {without}, the reference a check of "
            f"{c.spec.name}'s own published claim uses (a run never vouches for itself)")


#: How the note on a stated MFU that the claim's hours make unused begins (``ClaimCheck.describe``
#: prints it beside the implied utilisation).
STATED_MFU_UNUSED = "stated MFU"


def _hours_named(j: _Judging) -> str:
    """The stated figures the claim's pre-training hours come from, as ``key=value`` (for an
    error that names them)."""
    c, src = j.c, j.hours_source
    if j.phases:
        return f"phases[{PRETRAINING!r}]={j.pre:g}"
    if src == "gpu_hours":
        return f"gpu_hours={c.gpu_hours!r}"
    if src.startswith("days"):
        return f"days={c.days:.6g} × n_gpus={c.n_gpus!r} × 24"   # not days=13.12112928923919
    return src


def _hours_imply(j: _Judging) -> str:
    """The head of a refusal of the claim's hours: "gpu_hours=1000.0 imply" (with the
    pre-training hours they come to, where they are not the stated GPU-hours alone)."""
    return (f"{_hours_named(j)}"
            + ("" if j.hours_source == "gpu_hours" and not j.phases else
               f" = {gpu_h(j.pre)} GPU-h") + " imply")


def _refuse_far_above_peak(j: _Judging) -> None:
    """ValueError when the claim's hours imply a whole-run utilisation (causal count, the stated
    dtype's dense peak) above ``MAX_IMPLIED_UTILISATION`` × the peak: a mistyped figure, named
    with the hours it gives and the least hours its FLOPs need at the peak itself,
    ``C_causal / (P × 3600)``."""
    dt = j.c.dtype
    u = j.u_causal[dt]
    if u <= MAX_IMPLIED_UTILISATION:
        return
    at_peak = j.fc / (j.peaks[dt] * SECONDS_PER_HOUR)
    raise ValueError(
        _hours_imply(j) + f" a whole-run utilisation of {u:,.0%} "
        f"of the dense {dt.upper()} peak ({u:,.3g}× it): must be at most "
        f"{MAX_IMPLIED_UTILISATION:g}× (no run exceeds the peak; far above it a figure is "
        f"mistyped): {j.fc:.4g} FLOPs (causal) need {gpu_h(at_peak)} GPU-h at the peak itself")


def _refuse_far_below_floor(j: _Judging) -> None:
    """ValueError when the claim's hours imply a whole-run utilisation (model-FLOP basis, the
    stated dtype's dense peak) below ``MIN_IMPLIED_UTILISATION`` (a millionth of the peak): a
    mistyped figure (a trial's 1e15 GPU-hours for a 70B model read "LOW: 0.0%"), named with the
    hours it gives and the most its FLOPs can take at that floor, ``C / (P × floor × 3600)``."""
    dt = j.c.dtype
    u = j.u[dt]
    if u >= MIN_IMPLIED_UTILISATION:
        return
    at_floor = j.fm / (j.peaks[dt] * MIN_IMPLIED_UTILISATION * SECONDS_PER_HOUR)
    raise ValueError(
        _hours_imply(j) + f" a whole-run utilisation of {u:.2g} of the dense {dt.upper()} "
        "peak: must be "
        f"at least {MIN_IMPLIED_UTILISATION:g} (a millionth of the peak, a thousand times "
        f"below the {MFU_FLOOR:g} a scenario's MFU is held to; below it a figure is mistyped): "
        f"at that floor its {j.fm:.4g} FLOPs take {gpu_h(at_floor)} GPU-h, the most a claim "
        "of them may state")


def _above(value: float, bound: float) -> bool:
    """``value > bound`` beyond float rounding (relative 1e-9): an MFU a band capped at a
    published run's figure, carried through hours and back, is that figure, not above it (a
    trial's `mfu: predict` bill capped at 47.0% was judged optimistic against that 47.0%)."""
    return value > bound and not math.isclose(value, bound, rel_tol=1e-9)


def _mfu_verdict(j: _Judging) -> None:
    """The verdict on the steady-state MFU, the first that applies: ``implausible`` if
    ``MFU_implied`` (stated dtype) on the causal count ``C_causal / (H × 3600 × P) / goodput``
    > the matmul ceiling (``_claim_references``; the count the cost floor uses, ``_cost_floor``,
    so that the verdict and the floor's GPU-hours agree), which covers an implied utilisation
    above the dense peak itself (``U > 1``: too few hours for the FLOPs); the rest on the MFU
    basis, the one published MFUs are counted on:
    ``optimistic`` if (BF16 basis, whatever the dtype: ``best`` counts FP8 runs for an FP8
    claim, each on the BF16 peak) > (1 + ``EDGE_SHARE``) × ``best`` (``_edge``: within it
    above ``best``, ``plausible``, said at the edge),
    ``best`` = ``best_reference`` or, with no comparable run,
    > the best of its class at any size (``any_size_bound``, the bound ``llmcost estimate``
    caps its band at); ``low`` if
    (BF16) < ``LOW_SHARE`` (0.5) × ``best`` (× the best as measured where ``best`` is a BF16
    run × r, ``_low_yardstick``); else ``plausible``."""
    dtype, steady, best, bsrc = j.c.dtype, j.steady, j.best, j.best_source
    ref, rsrc = (best, bsrc) if best is not None else (j.bound, j.bound_source)
    what = "comparable run" if best is not None else (
        f"run of its class at any size (none within {SIZE_FACTOR:g}× its size is published)")
    if j.steady_causal[dtype] > j.ceiling:  # the causal count, as the cost floor's
        j.verdict = "implausible"
        j.reason = (f"the claim needs a steady-state utilisation of "
                    f"{j.steady_causal[dtype]:.1%} of the {dtype} peak on the causal count "
                    f"(the {j.fc:.4g} FLOPs a causal run does, the cost floor's count; "
                    f"whole-run {j.u_causal[dtype]:.1%} ÷ goodput {j.g:.1%}), above the "
                    f"achievable matmul ceiling of {j.ceiling:.1%}")
        if j.u_causal[dtype] > 1:
            j.reason += (f", and above the dense peak itself: {gpu_h(j.pre)} GPU-h are too "
                         f"few for {j.fc:.3g} FLOPs (hours: {j.hours_source})"
                         + _days_as_hours_words(j))
    elif ref is not None and _above(steady["bf16"], ref * (1 + _edge(j))):
        j.verdict = "optimistic"
        said = f"{steady['bf16']:.1%} of the BF16 peak" if dtype == "bf16" else \
            f"{steady[dtype]:.1%} of the {dtype} peak ({steady['bf16']:.1%} of the BF16 one)"
        j.reason = (f"steady-state MFU {said} (MFU basis, as published MFUs count) is above "
                    f"the best published {what}, {ref:.1%} of the BF16 peak "
                    f"({steady['bf16'] / ref:.2f}× it; {rsrc})")
        if j.chain and best is not None:  # a scaled BF16 run: its chain and weakness, one line
            r = fp8_speedup_bound(float(j.c.spec.n_params))[0]
            j.heading = (f"its utilisation judged on a bound that is one BF16 run × {r:.3g}, "
                         + ("no comparable published FP8 run of its class"
                            if "no comparable FP8 run" in j.chain else
                            "higher than every other comparable published FP8 run of its "
                            "class"))
            rule = rsrc[rsrc.index("; rule: ") + 2:] if "; rule: " in rsrc else rsrc
            j.reason = (f"steady-state MFU {said} (MFU basis, as published MFUs count) is "
                        f"above the best published {what}, {ref:.1%} of the BF16 peak "
                        f"({steady['bf16'] / ref:.2f}× it); {j.chain} ({rule})")
    elif best is not None and steady["bf16"] < LOW_SHARE * _low_yardstick(j)[0]:
        j.verdict = "low"
        low, lsrc = _low_yardstick(j)
        also = "" if dtype == "bf16" else f" ({_pct(steady[dtype])} of the {dtype} peak)"
        j.reason = (f"steady-state MFU {_pct(steady['bf16'])} of the BF16 peak{also} (MFU basis, "
                    f"as published MFUs count) is below "
                    f"{LOW_SHARE:.0%} of the best published {low:.1%} ({lsrc}): either the "
                    "figure covers more than the final run (other phases, ablations, failed "
                    f"runs) or the run was that far below the best published one; {LOW_WORDS}")
    else:
        j.verdict = "plausible"
        edge = "" if ref is None or not _above(steady["bf16"], ref) else (
            f"; at the edge: {steady['bf16'] / ref - 1:.1%} above it, within "
            f"{EDGE_SHARE:.0%} (the goodput assumed, published hours rounded)")
        ref = f"the best published {what}, {ref:.1%} of the BF16 peak ({rsrc}){edge}" \
            if ref is not None else bsrc
        also = f" ({steady['bf16']:.1%} of BF16)" if dtype != "bf16" else ""
        j.reason = (f"steady-state MFU {steady[dtype]:.1%} of the {dtype} peak{also} (MFU "
                    f"basis, as published MFUs count), compared with {ref}; on the causal "
                    f"count, {j.steady_causal[dtype]:.1%}, it is under the {j.ceiling:.1%} "
                    "ceiling")


def _low_yardstick(j: _Judging) -> tuple:
    """``(MFU on the BF16 peak, its name)`` the ``low`` verdict judges against: the best
    published comparable figure, or, where that is a BF16 run × r (``j.chain``), the best
    evidence as measured (``measured_reference``), said beside the bound it replaces."""
    if not j.chain or j.measured is None:
        return j.best, j.best_source
    mfu, name = j.measured
    return mfu, (f"{name}, as measured; the FP8 bound {j.best:.1%}, one BF16 run × r, is an "
                 "upper bound and judges only the optimistic side")


def _days_as_hours_words(j: _Judging) -> str:
    """Where stated GPU-hours imply a utilisation above the peak that is plausible as GPU-days
    (U ÷ 24 under the matmul ceiling), what they would imply read so, or "": not where the
    tokens come from FLOPs the note names as another count (a re-trial: DeepSeek-V3's
    total-parameter FLOPs made 265T tokens, and the hours were told to check their unit)."""
    u = j.steady_causal[j.c.dtype] / HOURS_PER_DAY
    if j.hours_source != "gpu_hours" or u > j.ceiling or PUBLISHED_TOKENS_WORDS in \
            j.c.token_note:
        return ""
    return (f"; read as GPU-days ({gpu_h(j.pre * HOURS_PER_DAY)} GPU-h) they would imply "
            f"{u:.1%}: check the unit")


def _edge(j: _Judging) -> float:
    """The share above the best comparable published run a claim's steady-state MFU may reach
    and be judged plausible, at the edge: ``EDGE_SHARE`` where the steady-state figure divides
    stated hours by an assumed goodput, 0 where the goodput is given (a scenario's own bill) or
    the utilisation is a stated MFU (``check --scenario`` agreeing with ``estimate``)."""
    assumed = j.c.goodput is None and not j.hours_source.startswith("from the stated MFU")
    return EDGE_SHARE if assumed else 0.0


def usd_rate(usd_per_gpu_hour: float) -> str:
    """A GPU-hour price for a sentence: cents from $0.01 up ("$2.69"), two significant figures
    below ("$0.0014"), so a claim that implies a fraction of a cent does not read "$0.00"."""
    x = float(usd_per_gpu_hour)
    return f"${x:,.2f}" if x >= 0.01 or x == 0 else f"${x:.2g}"


def cheapest_price(accelerator) -> tuple:
    """``(USD per accelerator-hour, source)``: the least the catalogue knows an hour of
    ``accelerator`` or of any accelerator of the same hardware generation to cost
    (``own_cheapest_price`` of each; ``core.stacks.generation``: the same die, e.g. H800, H200
    and H100-SXM are Hopper GH100 parts, A100-40GB and A100-80GB Ampere GA100; the cheapest of
    them, named), on a stated assumption: an hour of one die costs no less than the cheapest
    hour of its siblings (the same silicon, the same buyers; a researcher's trial: an A100-40GB
    claim was floored at its own $1.99 where an A100-80GB hour is listed at $1.21);
    ``(None, reason)`` when neither the accelerator nor its generation is priced (another
    generation is another die at another price: no floor for it)."""
    acc = as_accelerator(accelerator)
    own = own_cheapest_price(acc)
    gen = generation(acc.name)
    kin = [cheapest for other in list_accelerators()["name"]
           if other != acc.name and generation(other) == gen
           and (cheapest := own_cheapest_price(load_accelerator(other)))[0] is not None]
    if own[0] is not None:
        if not kin or own[0] <= min(k[0] for k in kin):
            return own
        x, src = min(kin, key=lambda k: k[0])
        return x, (f"the cheapest hour of {acc.name}'s generation ({gen}, one die), {src}, "
                   f"below {acc.name}'s own ({own[1]})")
    if not kin:
        return None, (f"the catalogue lists no current price of {acc.name} (data/prices.csv) "
                      + (f"or of any other {gen} accelerator" if gen != acc.name else
                         "and no other accelerator is of its generation (another generation is "
                         "another die at another price, no floor for it)"))
    x, src = min(kin, key=lambda k: k[0])
    return x, (f"{acc.name} has no current price of its own; the cheapest hour of its "
               f"generation ({gen}, one die) is {src}")


def own_cheapest_price(accelerator) -> tuple:
    """``(USD per accelerator-hour, source)`` of ``accelerator`` itself: the lowest current
    listed price of any pricing mode (``catalog.list_prices(current_only=True)``: on-demand,
    reserved or spot, rows listed as not available included) or, if lower, the low end of the
    owned hour (``pricing.owned_hour_range``: Cottier et al. 2024's amortisation at the low end
    of its published purchase-price and PUE ranges; H100-SXM only); ``(None, reason)`` when the
    catalogue lists no current price of it."""
    acc = as_accelerator(accelerator)
    df = list_prices(acc.name, current_only=True)
    if df.empty:
        return None, f"the catalogue lists no current price of {acc.name} (data/prices.csv)"
    r = df.loc[df["price_usd_per_gpu_hour"].idxmin()]
    x, src = float(r["price_usd_per_gpu_hour"]), (
        f"{acc.name}'s cheapest current listed price, {r['provider']} {r['pricing']} "
        f"{r['date']} (data/prices.csv, {len(df)} current rows of every pricing mode)")
    try:
        own = owned_hour_range(acc)
    except ValueError:  # no sourced purchase price: no owned figure
        return x, src
    if own["low"] < x:
        return own["low"], (f"the low end of {own['words']}, below its cheapest current "
                            f"listed price "
                            f"${x:.2f} ({r['provider']} {r['pricing']} {r['date']})")
    return x, src


def least_hour_price(j: _Judging) -> tuple:
    """``(USD per accelerator-hour, source)``: the least an hour of the claim's accelerator can
    cost by what the catalogue and the owned-hardware model know, the one price both the cost
    floor (``_cost_floor``) and the price judgement (``_price_judgement``) use: the cheapest
    current hour of any pricing mode of the accelerator or, unpriced itself, of its hardware
    generation, the low end of the owned hour included (``cheapest_price``), or the claim's
    own owned hour if lower (``pricing: owned`` with the scenario's purchase price, energy
    price or PUE: the hour its bill charges, ``price_range``), or the run's own given price if
    lower (a scenario's ``price_usd_per_gpu_hour``: what it pays, the price
    ``_given_price_judgement`` judges by); ``(None, reason)`` when none."""
    x, src = cheapest_price(j.c.acc)
    pr = j.price
    if j.c.pricing == "owned" and pr["n"] and (x is None or pr["low"] < x):
        x, src = pr["low"], f"the claim's owned hour, {pr['source']}"
    given = j.c.price_usd_per_gpu_hour
    if given is not None and (x is None or given < x):
        return given, "the run's own given price (price_usd_per_gpu_hour)"
    return x, src


def _cost_floor(j: _Judging) -> tuple:
    """``(USD, sentence)``: the least the claim's FLOPs can cost, every hour at the accelerator's
    matmul ceiling and the least an hour of it can cost (``least_hour_price``: the catalogue's
    cheapest hour of any mode or the owned hour's low end, of the accelerator or, unpriced
    itself, of its hardware generation), no hour lost (goodput 1):

    .. math:: \\text{floor} = \\frac{C}{P_\\text{dtype} \\cdot f_\\text{matmul} \\cdot 3600}
              \\cdot p_\\text{min}

    ``C`` the FLOPs a causal run does (the exact count with a causal mask: kernels skip the
    masked half of attention, so the full-mask MFU basis would overstate the work at long
    context), ``P`` the stated dtype's dense peak, ``f_matmul`` the measured matmul ceiling
    (``data/efficiency.csv``: no step of a run beats its fastest GEMM, and attention kernels run
    below it; stas00's MAMF benchmark, H100 0.801), for an FP8 claim the ceiling of its FLOP mix
    (``_fp8_mix_ceiling``: its 16-bit parts at the BF16 rate). ``(None, reason)`` when the price
    is unknown."""
    c = j.c
    price, psrc = least_hour_price(j)
    if price is None:
        return None, f"the least its FLOPs can cost is not priced: {psrc}"
    fc = j.fc  # the causal count, the basis of the ceiling's judgement too (_mfu_verdict)
    h = fc / (j.peaks[c.dtype] * j.ceiling * SECONDS_PER_HOUR)
    return h * price, (
        f"the least its FLOPs can cost is ${h * price:,.0f} = {fc:.4g} FLOPs (causal) ÷ "
        f"({j.peaks[c.dtype] / 1e12:,.1f} TFLOP/s {c.dtype.upper()} peak × {j.ceiling:.1%} "
        f"matmul ceiling × 3600 s) = {gpu_h(h)} GPU-h (every hour at the ceiling, none lost) × "
        f"{usd_rate(price)}/GPU-h, {psrc}")


def _cost_only_verdict(j: _Judging) -> None:
    """A claim of money alone: first the floor (``_cost_floor``: the FLOPs at the matmul ceiling
    and the least an hour of the accelerator or of its generation can cost,
    ``least_hour_price``), ``implausible`` below it; then the price it needs, ``usd ÷ H(m)``
    with ``H(m) = C / (P_bf16 × m × 3600) / goodput`` for m from ``LOW_SHARE × best`` (the best
    as measured where the best is a scaled bound, ``_low_yardstick``) to ``best``:
    ``optimistic`` if even at ``best`` it is below that least hour price by more than the claim's
    ``tolerance`` (the rule of ``_price_judgement``), ``low`` if even at the low end above the
    pricing mode's highest catalogue price, else ``plausible``. A floor that cannot be priced
    (neither the accelerator nor its generation in data/prices.csv): ``not judged``, the price it
    needs said, since a cost is all the claim states and nothing prices it (a user reading
    "plausible" would take the cost as checked)."""
    c, pr, (m_lo, m_hi) = j.c, j.price, j.mfu_range
    h_at = {m: j.fm / (j.peaks["bf16"] * m * SECONDS_PER_HOUR) / j.g for m in j.mfu_range}
    j.needed = (c.usd / h_at[m_lo], c.usd / h_at[m_hi])
    j.floor, j.floor_source = _cost_floor(j)
    span = (f"{LOW_SHARE:.0%} of the best published to the best, {j.best_source}"
            if not (j.chain and j.measured) else
            f"{LOW_SHARE:.0%} of the best published as measured, {j.measured[1]}, to the FP8 "
            f"bound, {j.best_source}")
    at = (f"{usd_rate(j.needed[0])}–{usd_rate(j.needed[1])}/GPU-h at a steady-state MFU of "
          f"{m_lo:.1%}–{m_hi:.1%} of the BF16 peak ({span}; {h_at[m_lo]:,.0f}–"
          f"{gpu_h(h_at[m_hi])} GPU-h)")
    if j.floor is None:
        j.verdict = "not judged"
        j.reason = (f"cost-only claim: its cost cannot be judged: "
                    f"{j.floor_source.removeprefix('the least its FLOPs can cost is not priced: ')}"
                    f"; it needs {at}, a price the catalogue has nothing to compare with; the "
                    "claim's hours, if given, would be judged by their utilisation instead")
        return
    if c.usd < j.floor:
        j.verdict = "implausible"
        j.reason = (f"cost-only claim: the claimed ${c.usd:,.0f} is below the least its FLOPs "
                    f"can cost: {j.floor_source.removeprefix('the least its FLOPs can cost is ')}"
                    f"; it would need {usd_rate(j.needed[1])}/GPU-h even at the best published "
                    f"steady-state MFU, {m_hi:.1%} of the BF16 peak")
        return
    if pr["n"] == 0:
        j.verdict, j.reason = "plausible", (
            f"cost-only claim: it needs {at}; {pr['source']}, so the price is not judged; "
            f"the claimed ${c.usd:,.0f} is not below the least its FLOPs can cost: "
            f"{j.floor_source.removeprefix('the least its FLOPs can cost is ')}")
    elif j.needed[1] < (least := least_hour_price(j))[0] * (1 - c.tolerance):
        j.verdict = "optimistic"
        j.reason = (f"cost-only claim: it needs {at}, below the cheapest hour of {c.acc.name} "
                    f"the catalogue knows, {usd_rate(least[0])}/GPU-h ({least[1]}), by more "
                    f"than the ±{_tolerance_words(c.tolerance)} tolerance even at the best "
                    f"published MFU; the catalogue's lowest {c.pricing} price is "
                    f"${pr['low']:.2f}")
    elif j.needed[1] < least[0]:
        j.verdict = "plausible"
        j.reason = (f"cost-only claim: it needs {at}, "
                    f"{_within_words(j.needed[1], least[0], c.tolerance)} the cheapest hour of "
                    f"{c.acc.name} the catalogue knows, {usd_rate(least[0])}/GPU-h ({least[1]}), "
                    "at the best published MFU")
    elif j.needed[1] < pr["low"]:
        j.verdict = "plausible"
        j.reason = (f"cost-only claim: it needs {at}, below the catalogue's lowest "
                    f"{c.pricing} price ${pr['low']:.2f} but not below the cheapest hour of "
                    f"{c.acc.name} the catalogue knows, {usd_rate(least[0])}/GPU-h ({least[1]})")
    elif j.needed[0] > pr["high"]:
        j.verdict = "low"
        j.reason = (f"cost-only claim: it needs {at}, above the catalogue's highest "
                    f"{c.pricing} price ${pr['high']:.2f} even at the low MFU: either the figure "
                    "covers more than the final run or the run's MFU was below that low end; "
                    f"{LOW_WORDS}")
    else:
        j.verdict = "plausible"
        j.reason = (f"cost-only claim: it needs {at}, which meets the catalogue's {c.pricing} "
                    f"{price_span(pr)}")


#: The verdicts from the worst to the best, the order ``worst_verdict`` combines judgements in
#: (``VERDICTS``' order): a cost below the least its FLOPs can cost outweighs an MFU under the
#: ceiling, a price below the least an hour can cost outweighs a plausible MFU; "not judged" stands
#: only when no judgement could be made.
SEVERITY = VERDICTS


def worst_verdict(verdicts) -> str:
    """The worst of ``verdicts`` in ``SEVERITY`` order ("implausible" first, "not judged"
    last); ValueError for an empty list or a verdict outside ``VERDICTS``."""
    verdicts = list(verdicts)
    bad = [v for v in verdicts if v not in SEVERITY]
    if not verdicts or bad:
        raise ValueError(f"verdicts={verdicts!r} must be a non-empty list of {SEVERITY}")
    return min(verdicts, key=SEVERITY.index)


def _money_judgements(j: _Judging) -> None:
    """A claim of money **and** hours: three judgements, the verdict the worst of them
    (``worst_verdict``), each stated (``ClaimCheck.judgements``):

    * utilisation: ``_mfu_verdict``'s, on the hours;
    * cost: ``implausible`` when the claimed cost is below the least its FLOPs can cost
      (``_cost_floor``: every hour at the matmul ceiling, at the cheapest hour the catalogue
      knows of the accelerator or its generation), whatever the hours say, the rule of a
      cost-only claim (``_cost_only_verdict``); ``not judged`` when nothing prices the floor;
    * price: ``_price_judgement``, the implied ``p = usd ÷ H_total`` against the least an hour
      of the accelerator (or its generation) can cost (``least_hour_price``, the floor's price).
    """
    c = j.c
    j.floor, j.floor_source = _cost_floor(j)
    floor = j.floor_source.removeprefix("the least its FLOPs can cost is ")
    if j.floor is None:
        cost = ("not judged", f"{j.floor_source}")
    elif c.usd < j.floor:
        cost = ("implausible", f"the claimed ${c.usd:,.0f} is below the least its FLOPs can "
                               f"cost: {floor}")
    else:
        cost = ("plausible", f"the claimed ${c.usd:,.0f} is not below the least its FLOPs can "
                             f"cost, ${j.floor:,.0f}")
    price = _price_judgement(j)
    judged = [dict(aspect=a, verdict=v, reason=r) for a, (v, r) in
              (("utilisation", (j.verdict, j.reason)), ("cost", cost), ("price", price))]
    j.judgements = sorted(judged, key=lambda x: SEVERITY.index(x["verdict"]))
    j.verdict = worst_verdict(x["verdict"] for x in judged)
    j.reason = "; ".join(f"{x['aspect']} {x['verdict']}: {x['reason']}"
                         for x in j.judgements)


def committed_prices(accelerator) -> pd.DataFrame:
    """The current catalogue rows (``data/prices.csv``) of ``accelerator`` and of the other
    accelerators of its hardware generation (``core.stacks.generation``) whose price commits the
    buyer for a year or more (``min_term_days`` ≥ 365: a 1- or 3-year reserved or committed-use
    price); empty when the catalogue holds none."""
    gen = generation(as_accelerator(accelerator).name)
    df = list_prices(current_only=True)
    df = df[[generation(a) == gen for a in df["accelerator"]]]
    return df[term_days(df) >= 365].reset_index(drop=True)


def _price_judgement(j: _Judging) -> tuple:
    """``(verdict, sentence)`` on the implied price ``p = usd ÷ H_total`` of a claim of money and
    hours. The rule: a claimed price is ``optimistic`` only when it is below the least an hour
    of that accelerator can cost by what the catalogue and the owned-hardware model know,
    ``p_min`` (``least_hour_price``: the cheapest current hour of any pricing mode, of the
    accelerator or, unpriced itself, of its hardware generation, and the low end of the owned
    hour, ``pricing.owned_hour_range``: Cottier et al. 2024's amortisation at the low ends of
    the published purchase price and PUE ranges, $1.95 for an H100-SXM), the same price, by the
    same generation rule, as the cost floor's (``_cost_floor``); else ``plausible``. A price
    below every current price of the claim's own pricing mode (``price_range``, e.g. today's
    on-demand list prices) but not below ``p_min`` is plausible and said so: a run of thousands
    of accelerators for months is bought reserved for a long term or owned, and the catalogue
    holds no 1–3-year committed price for most accelerators (``committed_prices``; said when
    none), so the owned hour stands for that price. ``not judged`` when ``p_min`` is unknown
    (neither the accelerator nor its generation is priced). A claim that states its own price
    (a scenario's ``price_usd_per_gpu_hour``, the user's quote) is judged against that price
    instead (``_given_price_judgement``). Both comparisons allow the claim's ``tolerance`` (the
    consistency checks' relative tolerance, ``HOURS_TOLERANCE`` = 5 % by default): a published
    cost is rounded ("$61.5M"), so an implied price less than that far below a reference is
    that reference, not below it, and is said so (``_within_words``)."""
    c, pr = j.c, j.price
    implied = c.usd / j.hours
    said = f"the implied {usd_rate(implied)}/GPU-h (${c.usd:,.0f} ÷ {gpu_h(j.hours)} GPU-h)"
    if c.price_usd_per_gpu_hour is not None:
        return _given_price_judgement(j, implied, said)
    least, src = least_hour_price(j)
    if least is None:
        return "not judged", f"{said} is not compared: {src}"
    mode = ""
    if pr["n"]:
        rng = price_span(pr).removeprefix("range ").removeprefix("price ") + (
            "" if pr["priced_as"] == c.acc.name else
            f"; {c.acc.name} has none, {pr['priced_as']} is the same generation")
        mode = (f"the owned hour of {pr['priced_as']} at its default inputs ({rng})"
                if c.pricing == "owned" else
                f"every current {c.pricing} list price of {pr['priced_as']} ({rng})")
    if implied < least * (1 - c.tolerance):
        return "optimistic", (f"{said} is below the cheapest hour of {c.acc.name} the "
                              f"catalogue knows, {usd_rate(least)}/GPU-h, by more than the "
                              f"±{_tolerance_words(c.tolerance)} tolerance: {src}"
                              + (f"; it is below {mode} too" if mode else ""))
    if implied < least:
        return "plausible", (f"{said} is {_within_words(implied, least, c.tolerance)} the "
                             f"cheapest hour of {c.acc.name} the catalogue knows, "
                             f"{usd_rate(least)}/GPU-h: {src}")
    if not mode or implied >= pr["low"]:
        # its source always: the floor may be a sibling's (a PI's A100-40GB claim was floored
        # at "A100-40GB's" $1.21, an A100-80GB spot hour, without a word)
        return "plausible", (f"{said} is not below the cheapest hour of {c.acc.name} the "
                             f"catalogue knows, {usd_rate(least)}/GPU-h"
                             + ((f" ({src})" if src.startswith(("the cheapest hour of ",
                                                                 f"{c.acc.name} has no "))
                                 else "") + f", nor below {mode}" if mode else f": {src}"))
    try:
        own = owned_hour_range(load_accelerator(pr["priced_as"] or c.acc.name))
    except ValueError:
        own = None
    tail = (f"the cheapest hour of {c.acc.name} the catalogue knows, {usd_rate(least)}/GPU-h "
            f"({src})") \
        if own is None or implied < own["low"] else \
        f"what an owned or long-reserved hour can cost ({own['words']})"
    committed = "" if not committed_prices(c.acc).empty else (
        f": the catalogue holds no 1–3-year committed price of the {generation(c.acc.name)} "
        "generation")
    return "plausible", f"{said} is below {mode}, not below {tail}{committed}"


def _tolerance_words(tolerance: float) -> str:
    """A relative tolerance as a percentage to three significant figures: 0.05 "5%", 0.025
    "2.5%", 0.001 "0.1%" (whole percents printed 0.001 as "0%")."""
    return f"{tolerance * 100:.3g}%"


def _within_words(implied: float, reference: float, tolerance: float) -> str:
    """How a price just below a reference is said: "within the ±5% tolerance (0.3% below;
    published figures are rounded) of", the tolerance the claim's consistency checks allow."""
    gap = (1 - implied / reference) * 100
    shown = f"{gap:.2g}%" if gap >= 0.001 else "under 0.001%"
    return (f"within the ±{_tolerance_words(tolerance)} tolerance ({shown} below; published "
            "figures are rounded) of")


def _given_price_judgement(j: _Judging, implied: float, said: str) -> tuple:
    """``(verdict, sentence)`` on the implied price of a claim that states its own GPU-hour price
    ``p_given`` (a scenario's ``price_usd_per_gpu_hour``: the user's quote, what the bill prices the
    run at): ``optimistic`` when the implied price is below it by more than the claim's
    ``tolerance`` (the claimed cost buys fewer hours than the claim says at the price it pays; a
    rounded cost less far below is said as within it), else ``plausible``; the catalogue's least
    hour (``least_hour_price``) said beside it, not judged against."""
    given = j.c.price_usd_per_gpu_hour
    least, src = least_hour_price(j)
    beside = "" if least is None else (
        f"; the catalogue's least hour of {j.c.acc.name}, {usd_rate(least)}/GPU-h ({src}), is "
        "not the price this run pays")
    quote = f"the given {usd_rate(given)}/GPU-h (price_usd_per_gpu_hour: the run's own price)"
    if implied < given * (1 - j.c.tolerance):
        return "optimistic", (f"{said} is below {quote} by more than the "
                              f"±{_tolerance_words(j.c.tolerance)} tolerance: at that price the "
                              f"claimed cost buys {gpu_h(j.c.usd / given)} GPU-h, not "
                              f"{gpu_h(j.hours)}{beside}")
    if _above(given, implied):  # below beyond float rounding, within the tolerance
        return "plausible", f"{said} is {_within_words(implied, given, j.c.tolerance)} {quote}" \
            f"{beside}"
    return "plausible", f"{said} is not below {quote}{beside}"


def _left_out_basis(j: _Judging) -> str:
    """What prices the lines a claim leaves out when its cost is impossible (``below_floor``):
    a sentence for the heading of those lines ("" otherwise)."""
    if not below_floor(j):
        return ""
    c = j.c
    price = c.price_usd_per_gpu_hour if c.price_usd_per_gpu_hour is not None \
        else j.price["default"]
    words, note = j.price.get("default_words"), j.price.get("default_note")
    what = "the given price" if c.price_usd_per_gpu_hour is not None else \
        f"the catalogue's {c.pricing} median" if words == "catalogue median" else \
        f"the {words}" + (f" ({note})" if note else "")
    return (f"priced at {what}, {usd_rate(price)}/GPU-h: the claimed ${c.usd:,.0f} is below "
            f"the least its FLOPs can cost, ${j.floor:,.0f}, so no line is derived from it")


def price_span(pr: dict) -> str:
    """The catalogue's prices of a pricing mode in words: "range $2.69–$12.29", or "price
    $14.21" when its low and high are one value to the cent (one provider, or one price)."""
    lo, hi = f"${pr['low']:.2f}", f"${pr['high']:.2f}"
    return f"price {lo}" if lo == hi else f"range {lo}–{hi}"


def _price_verdict(j: _Judging) -> tuple:
    """(implied price, sentence): the implied price ``usd ÷ H_total`` against the catalogue's
    low-high of the pricing mode (``price_range``; owned: against the amortisation,
    ``pricing.owned_usd_per_gpu_hour``, Cottier et al. 2024), or what the hours cost at the
    median when no cost is given, or the price range a cost-only claim needs."""
    c, pr, needed = j.c, j.price, j.needed
    implied = c.usd / j.hours if c.usd is not None and needed is None else None
    given = c.price_usd_per_gpu_hour
    if given is not None and implied is None and needed is None:
        return implied, (f"no cost given; at the given ${given:.2f}/GPU-h "
                         f"(price_usd_per_gpu_hour) the hours cost "
                         f"{fmt_usd(j.hours * given)}")
    if pr["n"] == 0:
        return implied, pr["source"]
    if needed is not None:  # what the claim implies, then the catalogue it is compared with
        m_lo, m_hi = j.mfu_range
        n = f"{pr['n']} current {c.pricing} price{'' if pr['n'] == 1 else 's'}"
        where = f"below all {n}" if needed[1] < pr["low"] else f"above all {n}" \
            if needed[0] > pr["high"] else f"within the {n}"
        return implied, (f"no hours given: the claimed ${c.usd:,.0f} implies "
                         f"{usd_rate(needed[0])}–{usd_rate(needed[1])}/GPU-h (over the hours "
                         f"at a steady-state MFU of {m_lo:.1%}–{m_hi:.1%} of the BF16 peak), "
                         f"{where} it is compared with, {price_span(pr)} ({pr['source']})")
    if c.pricing == "owned" and implied is not None:
        return implied, (f"{'below' if implied < pr['low'] else 'above'} the owned "
                         f"amortisation ${pr['low']:.2f}/GPU-h ({pr['source']})")
    if implied is None:
        what = pr["default_words"]
        note = f" ({pr['default_note']})" if pr.get("default_note") else ""
        return implied, (f"no cost given; at the {what}, ${pr['default']:.2f}/GPU-h{note}, the "
                         f"hours cost {fmt_usd(j.hours * pr['default'])} ({pr['source']})")
    where = "below" if implied < pr["low"] else "above" if implied > pr["high"] else "within"
    span = price_span(pr)
    if span.startswith("price"):   # one value: no median to add, and "at" rather than "within"
        return implied, (f"{'at' if where == 'within' else where} the catalogue's {c.pricing} "
                         f"{span} ({pr['source']})")
    return implied, (f"{where} the catalogue's {c.pricing} {span} "
                     f"(median ${pr['median']:.2f}; {pr['source']})")


def scenario_as_claim(model, train_tokens, accelerator, n_gpus, mfu, *, dtype="bf16",
                      seq_len=None, pricing="on_demand", goodput=None) -> tuple:
    """A scenario's run announced as a claim: the GPU-hours the ledger bills for it, checked.

    ``H = C / (P_dtype × MFU × 3600) / goodput`` with ``C`` the MFU-basis FLOPs
    (``compute.training_flops(method="detailed", causal=False)``), ``P_dtype`` the dense peak
    (``compute.gpu_hours``) and ``goodput`` the bill's (``ledger.build_ledger(scenario)
    .figures["goodput"]``: the scenario's failure rates and provisioned checkpoint storage), or,
    when not given, ``goodput_for(N_total, n_gpus)`` (Daly 2006 with the ledger's default
    failure rate and Llama 3's storage rate per GPU); then ``check_claim(..., gpu_hours=H)``.

    Returns ``(H, goodput, ClaimCheck)``."""
    spec, acc = as_model(model, "model", needs="a claim check"), as_accelerator(accelerator)
    n = _positive("n_gpus", n_gpus, integer=True)
    if n is None:
        raise ValueError("n_gpus=None must be a positive whole number of accelerators")
    s = int(_positive("seq_len", seq_len, integer=True) or spec.seq_len)
    g = goodput_for(spec.n_params, n) if goodput is None else _fraction("goodput", goodput)
    c = training_flops(spec, _positive("train_tokens", train_tokens), s, method="detailed",
                       causal=False)
    hours = float(gpu_hours(c, acc, mfu, dtype)) / g
    return hours, g, check_claim(spec, train_tokens, acc, n_gpus=n, gpu_hours=hours, dtype=dtype,
                                 exclude_own_runs=False, goodput=g,
                                 seq_len=s, pricing=pricing, left_out=False)


#: Ledger line keys that the claimed GPU-hours already are (the final pre-training run and its
#: failures/restarts: a claim's GPU-hours are paid hours), so not "left out". A scenario's
#: other pre-training phase (``compute.pretraining.<name>``) is in the claim only when the
#: claim's ``phases`` name it (``final_run_line``); else it is a line the claim leaves out.
_FINAL_RUN_KEYS = ("compute.pretraining.main", "compute.failures")
#: The ledger's key of a scenario's pre-training phase line, before the phase's name.
PHASE_LINE_PREFIX = "compute.pretraining."


def final_run_line(key: str, claimed_phases=()) -> bool:
    """Whether the bill's line ``key`` is in a claim's GPU-hours: the main run and its failures
    always (a claim's hours are paid hours), a pre-training phase line
    (``PHASE_LINE_PREFIX`` + name) when ``claimed_phases`` holds its name."""
    return key in _FINAL_RUN_KEYS or (key.startswith(PHASE_LINE_PREFIX)
                                      and key[len(PHASE_LINE_PREFIX):] in claimed_phases)


#: Monte Carlo draws for the range of the left-out lines (``ledger.simulate_ledger``).
LEFT_OUT_SAMPLES = 20_000


#: The scenario keys of the bill's lines outside the final run, which ``check_claim`` prices
#: from a scenario (``ledger_keys``): the ledger's own, the RL campaign's, the checkpoints', the
#: failure rates' (``fail_``: the final run's paid hours, which the exploratory line scales), and
#: the serving set-up and request shape (``serve_``, ``inference_``) that the RL rollouts, the
#: synthetic-data and the benchmark lines are served with (``ledger.build_ledger``: e.g. the RL
#: rollouts hold ``serve_weight_dtype`` weights unless ``rl_rollout_weight_dtype`` gives theirs).
LEFT_OUT_KEY_PREFIXES = ("ledger_", "rl_", "ckpt_", "serve_", "inference_", "fail_")
#: Whole scenario keys the lines outside the final run read besides those prefixes: the extra
#: pre-training ``phases`` (the exploratory line is a multiple of the final run with them).
LEFT_OUT_KEYS = ("phases",)


def _left_out_keys(keys, bill_keys=None) -> tuple:
    """(the keys priced, the keys named as the scenario's) of ``check_claim``'s ``ledger_keys``
    (a scenario's own) and ``bill_keys`` (values its bill derived, e.g. the checkpoint storage
    bandwidth ``ledger.provisioned_storage`` sized: priced, not named): each a dict of scenario
    keys with ``LEFT_OUT_KEY_PREFIXES`` (``ledger_*``, ``rl_*``, ``ckpt_*``, ``serve_*``,
    ``inference_*``, ``fail_*``) or in ``LEFT_OUT_KEYS`` (``phases``; a range is drawn with
    the rest; the claim's own run figures are kept), a key in one only. A pilot's
    ``ledger_pilot_*`` keys calibrate the run's MFU, which the claim states: refused;
    ``ValueError`` naming any other key."""
    given, derived = (_left_out_dict(n, k) for n, k in (("ledger_keys", keys),
                                                       ("bill_keys", bill_keys)))
    both = sorted(set(given) & set(derived))
    if both:
        raise ValueError(f"bill_keys: {both} are in ledger_keys too; a key is the scenario's or "
                         "a value its bill derived, not both")
    return {**given, **derived}, given


def _left_out_dict(name: str, keys) -> dict:
    """One of ``_left_out_keys``' dicts, checked (its rules; ``name`` the argument)."""
    if keys is None:
        return {}
    if not isinstance(keys, Mapping):
        raise ValueError(f"{name}={keys!r} must be a mapping of scenario keys to values")
    for k in keys:
        if not isinstance(k, str) or not (k.startswith(LEFT_OUT_KEY_PREFIXES)
                                          or k in LEFT_OUT_KEYS) or k.startswith("ledger_pilot"):
            raise ValueError(f"{name}: {k!r} is not a key of the lines a claim leaves out "
                             f"(keys starting {', '.join(LEFT_OUT_KEY_PREFIXES)}, or "
                             f"{', '.join(LEFT_OUT_KEYS)}; not a pilot's)")
    return dict(keys)


def _left_out(spec, acc, tokens, seq_len, n_gpus, mfu, dtype, price, pricing, ledger_model=None,
              extra=None, claimed_phases=()):
    """Lines of the bill outside the final pre-training run, priced with ``extra`` (a
    scenario's keys of those lines, ``_left_out_keys``; its ranges drawn) over the ledger's
    defaults, and their range: the claim's own MFU and price are fixed (they are the claim); the
    uncertain default, Cottier et al.'s exploratory fraction, is drawn over its sourced range
    (``ledger.illustrative_ranges``: triangular 0.2-3.0, mode 1.19) with
    ``ledger.simulate_ledger``. A line is the claim's, not left out, when ``final_run_line``
    says so (the main run, its failures, the phases named in ``claimed_phases``). Returns (rows,
    priced total USD, (P10, P50, P90) of the total, range source)."""
    why = ("the ledger needs n_gpus and a price" if n_gpus is None or (
        price is None and pricing != "owned") else
           f"the claim implies a steady-state MFU of {mfu:.1%} (above 100%) after goodput: the "
           "ledger cannot price a run at it" if mfu > 1 else
           f"the ledger reads a model by catalogue name or config.json path; {spec.name!r} is a "
           "ModelSpec it cannot name" if ledger_model is None else None)
    if why:
        return [{"line": "(not priced)", "key": "", "status": "not given", "usd": None,
                 "p10_usd": None, "p90_usd": None, "how": why}], 0.0, None, ""
    scen = {**(extra or {}), "_mfu_claimed": True,  # derived: no typo floor (MFU_FLOOR)
            "model": ledger_model, "accelerator": acc.name, "n_gpus": int(n_gpus),
            "train_tokens": float(tokens), "seq_len": int(seq_len),
            "mfu": float(mfu), "dtype": dtype,
            "price_usd_per_gpu_hour": None if price is None else float(price),
            "pricing": pricing,
            # the storage goodput_for assumed, so that the ledger's final run is the claim's
            # hours, unless the scenario gives its own
            "ckpt_storage_bytes_per_s": (extra or {}).get(
                "ckpt_storage_bytes_per_s", float(rel.job_storage_bytes_per_s(int(n_gpus))))}
    ledger = build_ledger(point_scenario(scen))
    keep = [ln for ln in ledger.lines if not final_run_line(ln.key, claimed_phases)]
    # the RL model's error on a campaign's time is the bill's own too (kind "rl_model")
    ranges = {k: v for k, v in illustrative_ranges(ledger).items()
              if k in ("ledger_exploratory_fraction", "rl_time_factor") and k not in scen}
    draws = simulate_ledger(dict(scen, **{k: r for k, (r, _) in ranges.items()}),
                            samples=LEFT_OUT_SAMPLES, seed=0)
    rows, total = [], 0.0
    per_draw = np.zeros(LEFT_OUT_SAMPLES)
    for ln in keep:  # a "not given" line has no amount (unknown, not zero)
        usd = None if ln.usd is None or ln.status == "not given" else float(ln.usd)
        x = draws.line_usd.get(ln.key)
        counted = usd is not None and ln.status != "included"
        rows.append({"line": ln.line, "key": ln.key, "status": ln.status, "usd": usd,
                     "p10_usd": float(np.quantile(x, 0.1)) if counted and x is not None
                     else usd,
                     "p90_usd": float(np.quantile(x, 0.9)) if counted and x is not None
                     else usd, "how": ln.how,
                     "time": time_factor_short(ledger.scenario) if ln.key == "post.rl" and
                     counted else "",
                     # sized by the claim's assumed storage, not the price (a trial read $342k
                     # here against a scenario's $64k of the same run, unsaid)
                     "sized": STORAGE_WORDS if ln.key == "storage.checkpoints" and counted
                     and "ckpt_storage_bytes_per_s" not in (extra or {}) else ""})
        if counted:
            total += usd
            per_draw = per_draw + (x if x is not None else usd)
    band = tuple(float(q) for q in np.quantile(per_draw, [0.1, 0.5, 0.9]))
    own = sorted(k for k, v in (extra or {}).items() if isinstance(v, Range))
    src = "; ".join(([f"the scenario's ranges of {', '.join(own)}"] if own else [])
                    + [f"{k}: {txt}" for k, (_, txt) in ranges.items()]) or "no ranged default"
    src += ("; the claim's MFU and price held at the claim's, as they are the claim (the P10–P90 "
            "of `llmcost estimate` draw the scenario's MFU and price too, so its ranges differ)")
    return rows, total, band, src


# ------------------------------------------------------------------ published runs: the error
#: Step-time options for a published plan that names no more than its TP/PP/DP/CP/EP degrees:
#: the default scenario's (data/scenarios/default.yaml: ZeRO stage, recomputation, micro-batch,
#: schedule and virtual stages left to the plan search, the default stack).
_PLAN_KEYS = ("tp", "pp", "dp", "cp", "ep")
#: Settings a run's sources state beyond its degrees (the rest: the default scenario's).
#: BLOOM: "activation checkpointing" (github:bigscience-workshop/bigscience
#: train/tr11-176B-ml/README.md, recorded in the row's notes) = full recomputation.
RUN_SETTINGS = {"bloom-176b": {"recompute": "full"}}


def _finite(v) -> bool:
    return v is not None and isinstance(v, numbers.Real) and math.isfinite(float(v))


def run_model(row):
    """The ``ModelSpec`` of a ``published_runs.csv`` row: its catalogue model, else one built from
    the row's shape columns (GPT-style blocks, ``d_ff`` and ``n_kv_heads`` where given, GeLU
    MLP, rotary positions: no position parameters), else None (no shape published, or an MoE
    without a catalogue entry)."""
    if isinstance(row.get("catalog_model"), str) and row["catalog_model"]:
        return load_model(row["catalog_model"])
    if not all(_finite(row.get(k)) for k in ("layers", "d_model", "n_heads")) or \
            _finite(row.get("params_active")):  # an MoE needs its catalogue entry
        return None
    d = int(row["d_model"])
    return ModelSpec(
        name=row["run_id"], n_layers=int(row["layers"]), d_model=d, n_heads=int(row["n_heads"]),
        vocab_size=int(row["vocab"]) if _finite(row.get("vocab")) else 51200,
        d_ff=int(row["d_ff"]) if _finite(row.get("d_ff")) else 4 * d,
        n_kv_heads=int(row["n_kv_heads"]) if _finite(row.get("n_kv_heads")) else None,
        ffn_type="mlp", norm="layernorm", bias="all", pos_encoding="rope",
        seq_len=int(row["seq_len"]) if _finite(row.get("seq_len")) else 2048)


def _plan_mfu(row, spec) -> tuple:
    """(steady-state MFU, plan description) from the step-time model on the row's published
    plan, the other settings as the default scenario's; (None, reason) when it cannot run."""
    p = {k: v for k, v in load_scenario(SCENARIO_DIR / "default.yaml").items()
         if k not in ("title", "description")}
    s = int(row["seq_len"]) if _finite(row.get("seq_len")) else spec.seq_len
    p.update(model=spec.name, accelerator=row["catalog_accelerator"],
             n_gpus=int(row["n_accelerators"]), seq_len=s,
             global_batch_tokens=int(row["global_batch_tokens"]) if _finite(
                 row.get("global_batch_tokens")) else s * int(row["n_accelerators"]))
    for k in _PLAN_KEYS:
        p[k] = int(row[k]) if _finite(row.get(k)) else (1 if k in ("cp",) else 0)
    if spec.is_moe and not _finite(row.get("ep")):
        p["ep"] = 0
    p["pp_split"] = "even"      # the published plan's split: even, else embedding and loss below
    p.update(RUN_SETTINGS.get(row["run_id"], {}))
    try:
        plan, b = scenario_step(p, spec)
    except ValueError as e:
        if not (isinstance(e, PlanError) and e.rule == "pp_layers"):
            return None, f"step-time model cannot run this plan: {str(e).splitlines()[0]}"
        try:  # layers not divisible by PP: count the embedding and loss as stages (BLOOM's way)
            plan, b = scenario_step(dict(p, pp_split="embedding_and_loss"), spec)
        except ValueError as e2:
            return None, f"step-time model cannot run this plan: {str(e2).splitlines()[0]}"
    return float(b.mfu), plan.describe()


@disk_cached  # the same for every call with these arguments: core.diskcache
def published_run_errors(runs=None) -> pd.DataFrame:
    """Predicted against published accelerator-hours (or MFU) for every scoreable run of
    ``data/published_runs.csv``, predictions from public facts only.

    **What is scored** (what the row reports):

    * ``gpu_hours``: the reported accelerator-hours, or reported days × accelerators × 24, of a
      run with a token count. Predicted hours = ``C / (P_bf16 × U_pred × 3600)`` with ``C`` the
      MFU-basis FLOPs (full attention mask) and ``U_pred`` a whole-run utilisation:

      - **published plan** (TP and PP published with the GPU count): ``U_pred`` = the step-time
        model's steady-state MFU on that plan (``step.scenario_step``; settings the source does
        not give are the default scenario's) × ``goodput_for`` (reliability with the ledger's
        defaults);
      - **otherwise**: the median whole-run utilisation implied by the *other* runs of the same
        hardware generation (leave-one-out; runs with reported hours only, their own plans or
        not).

    * ``mfu``: a steady-state MFU from a benchmark with a published plan (the step-time model's
      validation sets, ``accuracy.validation_table``). Hours scale as 1/MFU, so the error in
      GPU-hours is ``reported_mfu / predicted_mfu − 1``.

    ``error`` = predicted GPU-hours ÷ published − 1 (positive: the workbook over-estimates the
    hours). Runs without a catalogue accelerator, a model shape or a scoreable figure are listed
    with ``method`` = "not scored" and the reason.

    Returns
    -------
    DataFrame: ``run_id``, ``model``, ``accelerator``, ``generation``, ``scored`` ("gpu_hours",
    "mfu" or ""), ``method``, ``has_plan``, ``published_gpu_hours``, ``predicted_gpu_hours``,
    ``published_mfu``, ``predicted_mfu`` (whole-run for ``gpu_hours`` rows, steady-state for
    ``mfu`` rows), ``error``, ``plan``, ``note``, ``params_active`` and ``params_total``
    (whole-run rows), ``n_gpus``,
    ``plot_published_hours`` / ``plot_predicted_hours`` (the run's hours; for ``mfu`` rows the
    hours of 10^21 model FLOPs at the published / predicted MFU on the BF16 peak: one axis for
    both kinds, same ratio).
    """
    return _score(runs, predict=True)


def _score(runs, predict: bool) -> pd.DataFrame:
    """``published_run_errors``; with ``predict=False`` only the published side (whole-run
    rows' hours and utilisation), without the step-time model. One row per run
    (``_score_row``), then the leave-one-out medians (``_leave_one_out``) and the hours
    (``_predicted_hours``)."""
    runs = as_published_runs(runs)
    val = validation_table().set_index("run_id") if predict else \
        pd.DataFrame(index=pd.Index([], name="run_id"))
    records = runs.to_dict("records")
    # one run published twice (a validation row with its full plan, and a whole-run row of the
    # same model, tokens and hours): scored once, on the validation row, so that neither the
    # error table nor a leave-one-out median counts it twice or lets it predict itself
    same_run = {(r.get("catalog_model"), r.get("train_tokens"), r.get("reported_gpu_hours")):
                r["run_id"] for r in records if r["run_id"] in val.index
                and _finite(r.get("train_tokens")) and _finite(r.get("reported_gpu_hours"))}
    df = pd.DataFrame([_score_row(r, val, same_run, predict) for r in records])
    if predict:
        _leave_one_out(df)
        _predicted_hours(df)
    return df.drop(columns=["_spec", "_flops", "_peak", "_plan_failed"])


def _blank_row(r) -> dict:
    """The error-table row of a run before scoring: 'not scored', every figure NaN."""
    return {"run_id": r["run_id"], "model": r["model"],
            "catalog_model": r.get("catalog_model") if isinstance(
                r.get("catalog_model"), str) else None, "accelerator": None,
            "generation": None, "scored": "", "method": "not scored",
            "has_plan": False, "published_gpu_hours": np.nan,
            "predicted_gpu_hours": np.nan, "published_mfu": np.nan,
            "predicted_mfu": np.nan, "error": np.nan, "plan": "", "note": "",
            "params_active": np.nan, "params_total": np.nan,
            "n_gpus": r.get("n_accelerators"),
            "split": "", "_spec": None, "_flops": np.nan, "_peak": np.nan,
            "_plan_failed": None}


def _score_row(r, val, same_run: dict, predict: bool) -> dict:
    """One run's row: not scored (no catalogue accelerator, or the twin of a validation row),
    a steady-state benchmark MFU (a validation row without whole-run figures: error =
    reported ÷ predicted MFU − 1), or a whole run (``_score_whole_run``)."""
    out = _blank_row(r)
    acc_name = r.get("catalog_accelerator")
    if not isinstance(acc_name, str) or not acc_name:
        out["note"] = "no catalogue accelerator (hardware not in data/accelerators.csv)"
        return out
    acc = load_accelerator(acc_name)
    out["accelerator"], out["generation"] = acc.name, generation(acc.name)
    twin = same_run.get((r.get("catalog_model"), r.get("train_tokens"),
                         r.get("reported_gpu_hours")))
    if twin is not None and twin != r["run_id"]:
        out["note"] = (f"the same run as {twin} (same model, tokens and GPU-hours), scored "
                       "there on its published plan")
        return out
    whole_run = _finite(r.get("train_tokens")) and _finite(r.get("reported_gpu_hours"))
    if r["run_id"] in val.index and not whole_run:
        v = val.loc[r["run_id"]]
        outside = v["set"] in OUTSIDE_SETS
        out.update(scored="mfu", method="step-time model (published plan)" + (
            "; outside set: ZeRO-3, known not reproduced" if outside else ""),
                   has_plan=True, published_mfu=float(v["reported_mfu"]),
                   predicted_mfu=float(v["predicted_mfu"]), plan=v["plan"],
                   error=float(v["reported_mfu"]) / float(v["predicted_mfu"]) - 1,
                   split=v["split"],
                   note=f"steady-state benchmark ({v['set']}, {v['split']})")
        return out
    _score_whole_run(out, r, acc, val, predict)
    return out


def _score_whole_run(out: dict, r, acc, val, predict: bool) -> None:
    """A whole run's published side, ``U = C / (H × 3600 × P_bf16)`` with C the MFU-basis
    FLOPs (full mask) and H the reported hours (or days × accelerators × 24), and its
    prediction: with a published plan the step-time model's steady-state MFU × goodput
    (``_plan_mfu``, ``goodput_for``); without one, a published steady-state MFU × goodput; else
    left for the leave-one-out median."""
    spec = run_model(r)
    hours = r.get("reported_gpu_hours")
    if not _finite(hours) and _finite(r.get("reported_days")) and \
            _finite(r.get("n_accelerators")):
        hours = float(r["reported_days"]) * float(r["n_accelerators"]) * HOURS_PER_DAY
        out["note"] = "hours = reported days × accelerators × 24"
    if spec is None or not _finite(r.get("train_tokens")) or not _finite(hours):
        out["note"] = _unscored_reason(r, spec)
        return
    s = int(r["seq_len"]) if _finite(r.get("seq_len")) else spec.seq_len
    flops = float(spec.flops_per_token(s, causal=False)) * float(r["train_tokens"])
    peak = acc.peak_flops_per_s("bf16")
    out.update(scored="gpu_hours", published_gpu_hours=float(hours), _spec=spec,
               params_active=float(spec.n_active_params),
               params_total=float(spec.n_params),
               _flops=flops, _peak=peak,
               published_mfu=flops / (float(hours) * SECONDS_PER_HOUR * peak))
    out["has_plan"] = all(_finite(r.get(k)) for k in ("tp", "pp", "n_accelerators"))
    if out["has_plan"] and predict:
        if r["run_id"] in val.index:  # its plan's configuration is a validation row
            v = val.loc[r["run_id"]]
            mfu, plan = float(v["predicted_mfu"]), v["plan"]
            out["note"] = (f"steady-state MFU published {v['reported_mfu']:.1%}, predicted "
                           f"{mfu:.1%} ({v['set']})")
        else:
            mfu, plan = _plan_mfu(r, spec)
        if mfu is not None:
            g = goodput_for(spec.n_params, int(r["n_accelerators"]))
            out.update(method="step-time model (published plan) × goodput",
                       predicted_mfu=mfu * g, plan=plan,
                       note=(out["note"] + "; " if out["note"] else "")
                       + f"steady {mfu:.1%} × goodput {g:.1%}")
        else:
            out["note"] = plan
            out["_plan_failed"] = plan
    elif predict and _finite(r.get("reported_mfu")) and _finite(r.get("n_accelerators")):
        # no plan, but the run publishes its own steady-state MFU: whole-run U = MFU × goodput
        # (tests the goodput model and the FLOP basis, not the step-time model)
        g = goodput_for(spec.n_params, int(r["n_accelerators"]))
        out.update(method=PUBLISHED_MFU_METHOD, predicted_mfu=float(r["reported_mfu"]) * g,
                   note=(out["note"] + "; " if out["note"] else "")
                   + f"published steady-state MFU {float(r['reported_mfu']):.1%} × goodput "
                   f"{g:.1%}")


def _leave_one_out(df: pd.DataFrame) -> None:
    """Whole-run rows still without a prediction: the median whole-run utilisation of the
    *other* runs of the same hardware generation (leave-one-out); none: not scored."""
    whole = df[df["scored"] == "gpu_hours"]
    for i, row in whole.iterrows():
        if np.isfinite(row["predicted_mfu"]):
            continue
        others = whole[(whole["generation"] == row["generation"])
                       & (whole["run_id"] != row["run_id"])]
        if others.empty:
            df.loc[i, ["scored", "method"]] = ["", "not scored"]
            df.loc[i, "note"] = f"no other whole-run figure of the {row['generation']} generation"
            continue
        df.loc[i, "predicted_mfu"] = float(others["published_mfu"].median())
        df.loc[i, "method"] = (f"leave-one-out median of {len(others)} other "
                               f"{row['generation']} runs")
        if isinstance(row.get("_plan_failed"), str):  # a published plan the model cannot run
            df.loc[i, "method"] += " (published plan, but the step-time model cannot run it)"


def _predicted_hours(df: pd.DataFrame) -> None:
    """Predicted hours ``C / (P_bf16 × U_pred × 3600)`` and ``error`` = predicted ÷ published
    − 1 of whole-run rows; the plot axis of both kinds (a run's hours, or the hours of 10^21
    model FLOPs at an MFU on the BF16 peak)."""
    w = df["scored"] == "gpu_hours"
    df.loc[w, "predicted_gpu_hours"] = df.loc[w, "_flops"] / (
        df.loc[w, "_peak"] * df.loc[w, "predicted_mfu"] * SECONDS_PER_HOUR)
    df.loc[w, "error"] = df.loc[w, "predicted_gpu_hours"] / df.loc[w, "published_gpu_hours"] - 1
    m = df["scored"] == "mfu"
    df.loc[m, "predicted_gpu_hours"] = np.nan
    # one axis for both kinds: a run's hours, or the hours of 1e21 model FLOPs at an MFU
    peak_m = df.loc[m, "accelerator"].map(lambda a: load_accelerator(a).peak_flops_per_s("bf16"))
    df["plot_published_hours"] = df["published_gpu_hours"]
    df["plot_predicted_hours"] = df["predicted_gpu_hours"]
    df.loc[m, "plot_published_hours"] = 1e21 / (SECONDS_PER_HOUR * peak_m
                                                * df.loc[m, "published_mfu"])
    df.loc[m, "plot_predicted_hours"] = 1e21 / (SECONDS_PER_HOUR * peak_m
                                                * df.loc[m, "predicted_mfu"])


#: Method of a whole-run row without a plan that publishes its own steady-state MFU.
PUBLISHED_MFU_METHOD = "published steady-state MFU × goodput"


def _unscored_reason(r, spec) -> str:
    """Why a published_runs.csv row with a catalogue accelerator cannot be scored: what it has
    and what it lacks."""
    if spec is None:
        return ("no model shape recorded (data/published_runs.csv has no layers/d_model/heads "
                "for it)")
    if not _finite(r.get("train_tokens")):
        return "no token count"
    has = [f"{what} {r[k]:g}" for k, what in (("reported_mfu", "MFU"),
                                              ("reported_tflops_per_gpu", "TFLOP/s per GPU"))
           if _finite(r.get(k))]
    if has:
        return (f"reports {', '.join(has)} but no accelerator-hours or days, and no published "
                "plan (TP and PP) for the step-time model: nothing to compare like with like")
    return "no accelerator-hours, days or benchmark MFU to score"


def error_table_summary(errors: pd.DataFrame, band: float = 0.20) -> pd.DataFrame:
    """Per group of rows: n, how many within ``±band``, median and mean absolute error, signed
    median. The groups keep unlike evidence apart:

    * steady-state benchmark MFUs (``scored == "mfu"``: the step-time model's validation sets),
      the **calibration** rows (``split`` = calibration in data/validation_mfu.csv: the model's
      constants are fitted on them; in-sample, never a success) apart from the **held-out** rows (with and without the ZeRO-3 outside set);
    * whole-run GPU-hours with a published plan (every such row, including one whose plan the
      step-time model cannot run and which the leave-one-out median predicts, its ``method``
      says so), and the subset the step-time model actually predicted, where it is a subset;
    * whole-run GPU-hours predicted from the run's own published steady-state MFU × goodput;
    * whole-run GPU-hours without a plan (leave-one-out median).

    The goal (±20% for rows with a published plan) is read on the held-out and the
    whole-run published-plan rows separately; ``within_band`` is NaN for the in-sample group
    (``in_sample`` True)."""
    rows = []
    scored = errors[errors["scored"] != ""]
    split = scored["split"] if "split" in scored else pd.Series("", index=scored.index)
    mfu_rows = scored[scored["scored"] == "mfu"]
    held = mfu_rows[split.loc[mfu_rows.index] != "calibration"]
    outside = held["method"].str.contains("outside set")
    whole = scored[scored["scored"] == "gpu_hours"]
    planned = whole[whole["has_plan"]]
    ran = planned[planned["method"].str.startswith("step-time")]
    groups = [("steady-state MFU, calibration rows (in-sample)",
               mfu_rows[split.loc[mfu_rows.index] == "calibration"]),
              ("steady-state MFU, held-out", held),
              *([("steady-state MFU, held-out, without the outside sets (step.OUTSIDE_SETS)",
                  held[~outside])] if outside.any() else []),
              ("whole-run GPU-hours, published plan", planned),
              # the subset only where it is one (a trial read two identical rows)
              *([("whole-run GPU-hours, published plan run by the step-time model", ran)]
                if len(ran) < len(planned) else []),
              ("whole-run GPU-hours, " + PUBLISHED_MFU_METHOD,
               whole[whole["method"] == PUBLISHED_MFU_METHOD]),
              ("whole-run GPU-hours, leave-one-out median (no plan)",
               whole[~whole["has_plan"] & whole["method"].str.startswith("leave-one-out")])]
    for name, g in groups:
        e = g["error"].dropna()
        in_sample = name.startswith("steady-state MFU, calibration")  # fitted on: not a test
        rows.append({"rows": name, "n": len(e), "in_sample": in_sample,
                     # an in-sample row is never counted as a success
                     "within_band": np.nan if in_sample else int((e.abs() <= band).sum()),
                     "median_abs_error": float(e.abs().median()) if len(e) else np.nan,
                     "mean_abs_error": float(e.abs().mean()) if len(e) else np.nan,
                     "median_signed_error": float(e.median()) if len(e) else np.nan})
    return pd.DataFrame(rows).set_index("rows")
