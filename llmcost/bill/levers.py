"""Which savings are real? Levers, waste, false economies and the cheapest hardware, each priced on
one scenario by the same ledger that priced the run (notebook 09).

A **lever** is a function ``scenario -> Change``: the changed scenario, what the change risks and
the assumptions it makes. ``price_lever`` prices both scenarios with ``bill``
(``ledger.build_ledger`` plus the waste lines below) and returns a ``LeverResult``:

    saving = bill(before) − bill(after)                          (USD, GPU-hours, days)
    share  = saving / bill(before)

With ranges in the scenario (``llmcost.ranges``) the saving is the difference **per Monte
Carlo draw on the same draws** (common random numbers: ``ledger.simulate_ledger``), summarised as
P10 / P50 / P90, never a difference of percentiles; a lever whose P10-P90 interval contains 0 is
smaller than the bill's uncertainty and says so (``LeverResult.within_uncertainty``). A point
scenario gives a point saving (P10 = P50 = P90).

Conventions: every bill is ``ledger.build_ledger``'s (MFU basis, dense peak of the scenario's
``dtype``, paid GPU-hours = ideal ÷ goodput). A lever that changes the achievable MFU (precision,
plan, recomputation, hardware) scales the scenario's MFU by the step-time model's ratio,

    MFU_after = MFU_scenario × MFU_pred(after) / MFU_pred(before)      (llmcost.step)

so a scenario whose MFU was measured keeps its calibration and only the predicted *change* is
taken from the model. A ``mfu: predict`` scenario's MFU is its prediction's central estimate
kept inside its band, and a changed scenario's is its own: there the ratio is of the two central
estimates (``_with_scaled_mfu``), so a lever prices what the changed scenario's bill prices.

Waste (``waste_`` keys, all 0 unless the scenario gives them) is priced as follows:

* ``waste_dataloader_stall_fraction`` s: GPUs wait on the data pipeline for a share s of every step,
  so the bill's MFU is MFU × (1 − s) (the step-time model has no data loader);
* ``waste_failed_job_gpu_hours`` and ``waste_debug_gpu_hours``: allocations that computed nothing
  (failed jobs that kept their nodes, forgotten debug jobs: hours × GPUs), at the bill's GPU-hour
  price, on lines ``waste.failed_allocations`` and ``waste.debug_jobs`` (after the contingency
  reserve, which does not cover them);
* ``waste_dataset_copies``: duplicate copies of the dataset, priced as extra dataset versions on
  the ledger's ``storage.datasets`` line.

Checkpoints never cleaned are the ledger's own ``ckpt_keep_last: 0`` (keep every checkpoint hot).
"""

from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache

import numpy as np
import pandas as pd

from ..core.catalog import (
    DATA_DIR,
    SCENARIO_DIR,
    catalogue_price,
    current_prices,
    price_caveat,
    list_accelerators,
    list_prices,
    load_accelerator,
    load_model,
    price_mode_words,
    scenario_accelerator,
    term_days,
)
from ..core.diskcache import disk_cached
from ..core.hardware import DoesNotFit
from ..core.stacks import load_stack
from ..core.units import (SECONDS_PER_DAY, SECONDS_PER_HOUR, as_array, as_flag, as_scalar,
                          as_text, fmt_bytes, fmt_count, fmt_duration, fmt_gpus, fmt_quantity,
                          fmt_usd, noun, shorten_words, with_article)
from ..laws import scaling as sc
from ..laws.scaling import compute_optimal
from ..serving import rl
from ..training import parallel
from ..training import reliability as rel
from ..training.accuracy import (SIZE_FACTOR, band_for_step, central_mfu_words,
                                comparable_published_mfu, fp8_speedup_bound, gpu_generation,
                                mfu_band, published_ceiling, seq_range_words)
from ..training.memory import DEFAULT_RESERVE, MOE_CHECK_LOAD_FACTOR
from ..training.step import scenario_plan, scenario_step
from ..training.step_scenario import PLAN_KEYS, plan_zero_stage
from .checks import (BUBBLE_WARNING, budget_warning, catalogue_price_warning, fitting_counts,
                     fixed_whole_degrees, forced_pipeline_stages, memory_fits,
                     moe_headroom_warning, newer_stack_for, pipeline_free_gpus_of,
                     plan_does_not_fit, plan_searches, plan_stops, scenario_plan_memory,
                     splitting_counts)
from .ledger import (OUTSIDE_NOTE, Ledger, Line, build_ledger, compute_kind,
                     exploratory_as_fraction, exploratory_shift_words, failure_model,
                     headline_draws, point_outside, refuse_post_training_only,
                     simulate_ledger)
from .montecarlo import beyond_rounding
from .pilot import pilot_given, pilot_mfu, without_pilot
from .pricing import (ACQUISITION_DEFAULT_WORDS, default, owned_usd_per_gpu_hour,
                      purchase_price_on)
from .ranges import RANGEABLE_KEYS, Range, is_ranged, parse_range, point
from .scenario import (
    LEDGER_DEFAULTS,
    MAGNITUDE_LIMITS,
    PLAN_PARAMETERS,
    SPOT_LEVER_NEEDS_RATE,
    UNBILLED_PLAN_KEYS,
    ScenarioError,
    ScenarioNeverFinishes,
    load_scenario,
    resolve_price,
    rl_campaign_given,
    validate_parameter,
    validate_parameters,
)
from .validation import fitting_rl_gpus

#: The waste inputs of a scenario (``llmcost.scenario.PARAMETERS``) and their neutral values.
WASTE_KEYS = {"waste_dataloader_stall_fraction": 0.0, "waste_failed_job_gpu_hours": 0.0,
              "waste_debug_gpu_hours": 0.0, "waste_dataset_copies": 0}
#: Percentiles of a saving's summary.
PERCENTILES = (10, 50, 90)


# ------------------------------------------------------------------------------ the bill
def _clean(scenario: dict, name: str = "scenario") -> dict:
    """The scenario without its title and description, its pilot (``pilot:`` records or
    ``ledger_pilot_tokens_per_s_per_gpu``) resolved once on its own plan and accelerator
    (``pilot.without_pilot``: the calibrated MFU over its band, the pilot keys cleared, the
    record in ``_mfu_pilot``), so that every lever prices the bill a report's notebook 00
    prices, and a lever's changed plan or hardware never re-applies the pilot's throughput.
    A bill of post-training alone (``scenario.post_training_only``) is refused: the levers change
    and time a pre-training run (its days, checkpoints, hardware and plan)."""
    if not isinstance(scenario, dict):
        raise ScenarioError(f"{name}={scenario!r} must be a mapping of parameter names to values")
    refuse_post_training_only(scenario, "the levers change and time a pre-training run (a "
                              "lever for post-training alone is not built yet)")
    out = {k: v for k, v in scenario.items() if k not in ("title", "description")}
    if pilot_given(out):
        try:
            out = without_pilot(out, _default_scenario())
        except ValueError as e:
            raise ScenarioError(str(e)) from None
    return out


def _bill_arg(x, name: str) -> Ledger:
    """A bill argument: a ``Ledger`` (``bill`` / ``ledger.build_ledger``), else a ValueError."""
    if not isinstance(x, Ledger):
        raise ValueError(f"{name}={x!r} must be a Ledger (levers.bill(scenario))")
    return x


def _draw_args(samples, seed) -> tuple:
    """``samples`` (a whole number >= 1) and ``seed`` (a whole number >= 0) of the draws."""
    for name, v in (("samples", samples), ("seed", seed)):
        if isinstance(v, (bool, np.ndarray)):
            raise ValueError(f"{name}={v!r} must be a whole number")
    n = int(as_scalar(samples, "samples", positive=True, integer=True))
    return n, int(as_scalar(seed, "seed", nonnegative=True, integer=True))


def _frame(x, name: str, columns=()) -> pd.DataFrame:
    """A table argument: a DataFrame with ``columns``, else a ValueError naming it."""
    if not isinstance(x, pd.DataFrame):
        raise ValueError(f"{name}={x!r} must be a DataFrame")
    missing = [c for c in columns if c not in x.columns]
    if missing:
        raise ValueError(f"{name} lacks the columns {missing}")
    return x


def _waste(s: dict) -> dict:
    return {k: validate_parameter(k, s.get(k, v)) for k, v in WASTE_KEYS.items()}


#: Keys the bill does not read: the parallel plan and the batch (their effect on the bill is
#: through the MFU). ``ledger_scenario`` leaves them out, so pricing a scenario does not search
#: its plan again; ``predicted_step`` (and ``validate_parameters``) check the plan. The experts'
#: layout (``etp``) stays: the RL line's update searches its plan with it (``rl.ITERATION_KEYS``).
_NOT_BILLED = frozenset(UNBILLED_PLAN_KEYS) | {"global_batch_tokens", "optimizer_recipe",
                                               "mem_reserve_fraction"}


def ledger_scenario(scenario: dict) -> dict:
    """The scenario the ledger prices: waste keys removed and mapped onto ledger inputs
    (MFU × (1 − stall); dataset versions + duplicate copies), plan and batch keys left out
    (``_NOT_BILLED``). See the module docstring."""
    s = _clean(scenario)
    w = _waste(s)
    out = {k: v for k, v in s.items() if k not in WASTE_KEYS and k not in _NOT_BILLED}
    stall = w["waste_dataloader_stall_fraction"]
    if stall:
        if stall >= 1:
            raise ScenarioError(f"waste_dataloader_stall_fraction={stall!r} must be below 1 "
                                "(a job that only waits computes nothing)")
        out["mfu"] = _scale(out.get("mfu", _default("mfu")), 1.0 - stall)
    if w["waste_dataset_copies"]:
        out["ledger_dataset_versions"] = (out.get("ledger_dataset_versions", 1)
                                          + w["waste_dataset_copies"])
    return out


def bill(scenario: dict) -> Ledger:
    """The scenario's whole bill with its waste: ``ledger.build_ledger(ledger_scenario(s))`` plus
    the lines ``waste.failed_allocations`` and ``waste.debug_jobs`` (GPU-hours × the bill's
    price per GPU-hour, ``figures['price_usd_per_gpu_hour']``). ``figures['waste_gpu_hours']``
    holds their GPU-hours. The lines sum to ``total_usd``.

    Raises
    ------
    ScenarioError
        As ``build_ledger``, or a waste value that breaks its rule.
    """
    s = _clean(scenario)
    w = _waste(s)
    led = build_ledger(ledger_scenario(s))
    price = led.figures["price_usd_per_gpu_hour"]
    lines = list(led.lines)
    for key, label, k in (("waste.failed_allocations", "waste: failed jobs holding their GPUs",
                           "waste_failed_job_gpu_hours"),
                          ("waste.debug_jobs", "waste: forgotten debug jobs",
                           "waste_debug_gpu_hours")):
        h = float(w[k])
        lines.append(Line(key, label, "compute", "development",
                          compute_kind(led.figures["pricing"]), h * price,
                          f"{fmt_quantity(h)} GPU-h × ${price:.2f}/GPU-h" if h
                          else f"{k} not given",
                          f"{k} (scenario); llmcost.levers.bill", "modelled" if h else "not given",
                          "09_savings"))
    figures = {**led.figures, "waste_gpu_hours": float(w["waste_failed_job_gpu_hours"]
                                                       + w["waste_debug_gpu_hours"])}
    return Ledger(lines, figures, {**led.scenario, **w}, list(led.warnings))


def gpu_hours(b: Ledger) -> float:
    """Every GPU-hour the bill pays for: ``figures['all_gpu_hours']`` (pre-training with its
    failures, exploratory runs, post-training, synthetic data, benchmarks, the rerun reserve's
    expected GPU-hours) + waste GPU-hours."""
    f = _bill_arg(b, "b").figures
    return float(f["all_gpu_hours"] + f.get("waste_gpu_hours", 0.0))


def bill_draws(scenario: dict, samples: int = 20_000, seed: int = 0):
    """Monte Carlo draws of the scenario's total bill (USD, shape (samples,)) on common random
    numbers (``ledger.simulate_ledger``), or None when the scenario has no ranges (the point bill
    is then exact).

    The waste lines are GPU-hours × the draws of ``price_usd_per_gpu_hour`` when the price is
    ranged (else × the point price)."""
    if not has_ranges(scenario):
        return None
    s = _clean(scenario)
    w = _waste(s)
    d = simulate_ledger(ledger_scenario(s), samples=samples, seed=seed)
    if not d.ranges:
        return None
    price = d.inputs.get("price_usd_per_gpu_hour", d.point.figures["price_usd_per_gpu_hour"])
    return np.asarray(d.total_usd, dtype=float) + (
        w["waste_failed_job_gpu_hours"] + w["waste_debug_gpu_hours"]) * np.asarray(price)


def has_ranges(scenario: dict) -> bool:
    """Whether any value of the scenario is a range of non-zero width (``llmcost.ranges``), or
    its MFU was predicted with an error band (``_mfu_prediction``: the bill draws it)."""
    s = _clean(scenario)
    pred = s.get("_mfu_prediction")
    if isinstance(pred, dict) and "low" in pred.get("band", {}):
        return True
    for k, v in s.items():
        if k in RANGEABLE_KEYS and not isinstance(v, (int, float, type(None))):
            try:
                if is_ranged(parse_range(k, v)):
                    return True
            except ValueError:
                continue
    return False


def _scale(value, factor: float):
    """A number × factor, or a range (``llmcost.ranges.Range`` or its scenario-file form) with
    every end × factor."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value) * factor
    r = value if isinstance(value, Range) else parse_range("mfu", value)
    if r is None:
        raise ScenarioError(f"mfu={value!r} must be a number or a range to be scaled")
    return replace(r, **{f: getattr(r, f) * factor for f in ("low", "mode", "high", "p10", "p90",
                                                          "cut")
                         if getattr(r, f) is not None})


def _point(value, key: str = "mfu"):
    """The point of a value (``ranges.point``; a scenario-file range form is parsed first)."""
    if key not in RANGEABLE_KEYS:
        return value
    if isinstance(value, (list, dict)) and not isinstance(value, Range):
        r = parse_range(key, value)
        return point(r) if r is not None else value
    return point(value)


@lru_cache(maxsize=1)
def _default_scenario() -> dict:
    return _clean(load_scenario(SCENARIO_DIR / "default.yaml"))


def _default(key: str):
    return LEDGER_DEFAULTS[key] if key in LEDGER_DEFAULTS else _default_scenario()[key]


# ------------------------------------------------------------------------------ predicted MFU
#: Keys the step-time model reads (``step.scenario_step``: the model, cluster, plan and
#: ``step.scenario_options``); the memo of ``predicted_step`` is keyed on them.
_STEP_KEYS = ("model", "accelerator", "n_gpus", "seq_len", "global_batch_tokens", "dtype",
              "optimizer_recipe", "mem_reserve_fraction", "stack", "comm_tp_overlap",
              "comm_pp_overlap", "comm_dp_overlap", "fsdp_backward_prefetch",
              "comm_scaleout_bytes_per_s", "comm_scaleout_latency_s",
              "efficiency_profile", "fp8_recipe") + PLAN_PARAMETERS
_STEP_MEMO: dict = {}


def predicted_step(scenario: dict):
    """``(plan, StepBreakdown)`` of the scenario on the step-time model (``step.scenario_step``),
    keys it leaves out taken from the default scenario. Raises ScenarioError naming the reason
    when the plan cannot be built (does not fit in memory, bad divisibility). Results are
    memoised on the keys the step-time model reads (``_STEP_KEYS``)."""
    p = {**_default_scenario(), **{k: _point(v, k) for k, v in _clean(scenario).items()
                                   if not k.startswith("_") and k not in WASTE_KEYS}}
    key = tuple((k, repr(p.get(k))) for k in _STEP_KEYS)
    if key in _STEP_MEMO:
        return _STEP_MEMO[key]
    step = {k: p[k] for k in _STEP_KEYS if k in p}
    try:
        out = scenario_step(validate_parameters(**step))
    except ValueError as e:
        raise ScenarioError(f"step-time model ({p['accelerator']}, {fmt_gpus(p['n_gpus'])}): {e}") \
            from None
    if len(_STEP_MEMO) > 512:
        _STEP_MEMO.clear()
    _STEP_MEMO[key] = out
    return out


def _with_phase_mfus_scaled(after: dict, ratio: float) -> dict:
    """``after`` with each pre-training phase that gives its own ``mfu`` scaled by ``ratio``,
    the main run's predicted change (a phase without one takes the main run's MFU, scaled with
    it): a lever that changes the dtype or the hardware changes every phase's rate on the new
    peak, not the main run's alone. The main run's ratio is taken for every phase, an
    approximation: a long-context phase, more of it attention, gains less from FP8 GEMMs."""
    if not _phases_with_mfu(after):
        return after
    phases = after["phases"]
    return {**after, "phases": [{**ph, "mfu": _scale(ph["mfu"], ratio)}
                                if isinstance(ph, dict) and "mfu" in ph else ph
                                for ph in phases]}


def _mfu_is_predicted(s: dict) -> bool:
    """Whether the scenario's MFU is the step-time model's prediction (``mfu: predict``: a
    ``_mfu_prediction`` record, or a report's ``mfu_band`` of "predicted"), not a given or
    a pilot's figure."""
    return bool(s.get("_mfu_prediction")) or _get(s, "mfu_band") == "predicted"


def _with_scaled_mfu(before: dict, after: dict, ratio: float | None = None,
                     above_one: bool = False, scale_phases: bool = True) -> dict:
    """``after`` with its MFU = MFU of ``before`` × MFU_pred(after) / MFU_pred(before) (module
    docstring): the step-time model's predicted change, on the scenario's calibration (a range
    scaled as a whole); for a predicted MFU (``_mfu_is_predicted``) the change of the central
    estimates, central(after) ÷ central(before) (``central_prediction``: each kept inside its
    band, the MFU a ``mfu: predict`` bill of each uses, so the lever prices what the changed
    scenario's own bill prices); ``ratio`` the change when the caller takes it another way
    (``fp8_training``: central estimates before their caps). Each MFU is on its own dtype's
    dense peak, as the bill counts GPU-hours. Refused when the scaled MFU exceeds 1, unless
    ``above_one`` (a caller that caps it next, ``_capped_back`` or ``_capped_refused``, which
    refuses it then). ``scale_phases`` false: the pre-training phases keep their own MFUs (a
    lever on the main run's plan: each phase's given MFU stands for a plan of its own)."""
    m = _clean(before).get("mfu", _default("mfu"))
    if ratio is None and _mfu_is_predicted(before):
        # a predicted MFU: the bill of the changed scenario is its own central estimate, kept
        # inside its band (a cap included), so the change is the two central estimates' ratio
        # (a trial: 'the fastest ranked parallel plan' saved $31.5k by the raw predictions,
        # where both plans' predictions lie above one cap and a compare of the two bills
        # prices them alike)
        ratio = central_prediction(after)[3] / central_prediction(before)[3]
    elif ratio is None:
        ratio = predicted_step(after)[1].mfu / predicted_step(before)[1].mfu
    out = _with_phase_mfus_scaled(dict(after), float(ratio)) if scale_phases else dict(after)
    out["mfu"] = _scale(m, float(ratio))
    if not above_one:
        _refuse_above_one(out["mfu"], m)
    return out


def _refuse_above_one(mfu, given, name: str = "mfu") -> None:
    """A ScenarioError when a lever's scaled MFU (a number or a ``Range``) exceeds 1: the
    scenario's ``given`` MFU (its key ``name``) is above what the step-time model predicts is
    possible."""
    # a two-piece range cut at a cap draws nothing above the cut: its uncut top, beyond it, is
    # a parameter of its shape (a lecturer's mfu: predict bill, cut at 63.65% with its shape
    # to 103%, was refused "scaled MFU 1.03 exceeds 1" and its lever fell back silently)
    top = mfu if isinstance(mfu, float) else max(mfu.low, mfu.cut) \
        if getattr(mfu, "kind", None) == "two_piece_cut" else \
        max(x for x in (getattr(mfu, f, None) for f in ("low", "mode", "high")) if x is not None)
    if top > 1:
        raise ScenarioError(f"scaled MFU {top:.2f} exceeds 1: the scenario's {name}={given!r} "
                            "is above what the step-time model predicts is possible on the new "
                            "set-up")


def _refuse_scaled_above_one(after: dict, before: dict) -> None:
    """``_refuse_above_one`` on a lever's scenario ``after``: its MFU and each phase's own
    (scaled and capped with it: ``_with_phase_mfus_scaled``, ``_capped_at_published``), each
    named with the value ``before`` gives it (a review: a phase was named as the scenario's
    mfu, at its scaled value)."""
    _refuse_above_one(after["mfu"], _get(before, "mfu"))
    given = before.get("phases") or []
    for i, ph in enumerate(after.get("phases") or []):
        if isinstance(ph, dict) and "mfu" in ph:
            _refuse_above_one(ph["mfu"], given[i].get("mfu") if i < len(given) else None,
                              f"phases[{i}].mfu")


# ------------------------------------------------------------------------------ levers
@dataclass(frozen=True)
class Change:
    """What a lever does: the changed scenario (``after``), what it risks, its assumptions and
    their source; ``note`` says why nothing changed when ``after`` equals the scenario, or what
    the reader must know of a change (``best_plan``: how much of it is not the plan's speed)."""

    after: dict
    risk: str
    assumptions: str
    source: str = ""
    note: str = ""
    #: the lever's name on this scenario when it differs from ``LEVERS``' (what it is based on)
    name: str = ""
    #: the saving exists only on the prices' bases: a move that costs more at both
    #: accelerators' on-demand medians (``_move_price_words``); ``rank_levers`` lists it last
    price_basis_only: bool = False


@dataclass(frozen=True)
class LeverResult:
    """A lever priced on a scenario. ``saving_usd`` = bill(before) − bill(after) on the point
    scenario; ``saving_p10/p50/p90`` the per-draw saving's percentiles (equal to it without
    ranges); ``after_usd`` is None and the saving −inf when the changed run never finishes,
    NaN when it cannot be priced (``note`` says why)."""

    key: str
    name: str
    group: str
    before_usd: float
    after_usd: float | None
    saving_usd: float
    saving_p10: float
    saving_p50: float
    saving_p90: float
    gpu_hours_saved: float
    days_saved: float
    share: float
    risk: str
    assumptions: str
    source: str = ""
    note: str = ""
    ranged: bool = False
    #: ``beyond_line_words``: when the saving exceeds the bill line the lever acts on, where the
    #: rest comes from (multiplied lines such as exploratory compute); "" otherwise
    beyond_line: str = ""
    #: ``Change.price_basis_only``: the saving rests on the two prices' bases alone
    price_basis_only: bool = False

    @property
    def within_uncertainty(self) -> bool:
        """True when the saving's P10-P90 interval straddles 0 (P10 < 0 < P90): it may be no
        saving at all, or a loss."""
        return bool(self.ranged and self.saving_p10 < 0 < self.saving_p90)

    def row(self) -> dict:
        return {"lever": self.name, "group": self.group, "saving_usd": self.saving_usd,
                "saving_p10_usd": self.saving_p10, "saving_p50_usd": self.saving_p50,
                "saving_p90_usd": self.saving_p90, "share_of_bill": self.share,
                "gpu_hours_saved": self.gpu_hours_saved, "days_saved": self.days_saved,
                "within_uncertainty": self.within_uncertainty, "risk": self.risk,
                "assumptions": self.assumptions,
                "note": "; ".join(x for x in (self.note, self.beyond_line) if x),
                "beyond_line": self.beyond_line, "key": self.key,
                "price_basis_only": self.price_basis_only}


def saving_summary(before_draws, after_draws) -> tuple:
    """(P10, P50, P90) of the per-draw saving before − after (arrays on the same draws)."""
    b = as_array(before_draws, "before_draws", nonnegative=True)
    a = as_array(after_draws, "after_draws", nonnegative=True)
    if b.shape != a.shape or b.ndim != 1 or b.size == 0:
        raise ValueError(f"before_draws {b.shape} and after_draws {a.shape} must be two 1-D "
                         "arrays of the same draws")
    return tuple(float(x) for x in np.percentile(b - a, PERCENTILES))


#: Bill lines priced as a multiple of other lines (``ledger.build_ledger``): a lever that shrinks
#: the final run shrinks them too, so its saving can exceed the line it acts on.
MULTIPLIED_LINES = ("compute.exploratory", "reserve.rerun", "reserve.contingency")


def _multiplied_why(key: str, b: Ledger) -> str:
    """Why line ``key`` of bill ``b`` moves with the final run (the multiplier as the bill has
    it), or "" when it does not (exploratory runs listed, not a fraction)."""
    p = b.scenario
    if key == "compute.exploratory":
        if not b.line(key).how.startswith("development compute"):
            return ""  # ledger_exploratory_runs: billed as given
        frac = p.get("ledger_exploratory_fraction")
        src = ("the scenario's ledger_exploratory_fraction" if frac is not None else
               "Cottier et al. 2024's median, arXiv:2405.21015 §2.5")
        frac = point(frac) if frac is not None else default("exploratory_fraction")
        rerun = float(point(p.get("ledger_rerun_probability") or 0.0))
        less = (f", less the rerun reserve's {rerun:.2f}× (netted out of it)" if rerun > 0
                else "")
        return (f"the bill prices exploratory compute at {frac:.2f}× the final run's paid "
                f"GPU-hours, {src}{less}: exploration scales with the final run")
    if key == "reserve.rerun":
        return (f"the rerun reserve is P(rerun) {point(p.get('ledger_rerun_probability', 0)):.0%}"
                " × the final run")
    return (f"the contingency is {point(p.get('ledger_reserve_fraction', 0)):.0%} of the lines "
            "above it")


def beyond_line_words(before: Ledger, after: Ledger) -> str:
    """Words for a saving S = B(before) − B(after) larger than the bill line it acts on, or "".

    Per line, s_k = before_k − after_k (so S = Σ_k s_k). The line the lever acts on is the line
    with the largest s_k outside ``MULTIPLIED_LINES`` (lines priced as a multiple of others:
    exploratory compute = fraction × the final run's paid GPU-hours, Cottier et al. 2024,
    arXiv:2405.21015 §2.5; the rerun and contingency reserves). When S exceeds that line's
    amount before_k, the words give s_k there and every other line's s_k (≥ 1% of S), saying
    why a multiplied line moves with it."""
    b, a = _bill_arg(before, "before"), _bill_arg(after, "after")
    after_usd = {ln.key: ln.usd or 0.0 for ln in a.lines}
    saved = {}
    for ln in b.lines:  # a key can hold several lines (people.staff): summed
        saved[ln.key] = saved.get(ln.key, 0.0) + (ln.usd or 0.0)
    names = {ln.key: ln.line for ln in b.lines}
    held = dict(saved)
    saved = {k: v - after_usd.get(k, 0.0) for k, v in saved.items()}
    total = sum(saved.values())
    direct = [k for k in saved if k not in MULTIPLIED_LINES]
    if total <= 0 or not direct:
        return ""
    own = max(direct, key=lambda k: saved[k])
    if saved[own] <= 0 or total <= held[own] * (1 + 1e-9):
        return ""
    parts = []
    for k in sorted(saved, key=lambda k: -saved[k]):
        if k == own or abs(saved[k]) < 0.01 * total:
            continue
        why = _multiplied_why(k, b) if k in MULTIPLIED_LINES else ""
        parts.append(f"{format_saving(saved[k])} through '{names[k]}'"
                     + (f" ({why})" if why else ""))
    return (f"saves more than the line it acts on, '{names[own]}' ({format_saving(held[own])}): "
            f"{format_saving(saved[own])} there, " + ", ".join(parts))


def price_lever(key: str, name: str, group: str, before: dict, change: Change,
                samples: int = 20_000, seed: int = 0, before_bill: Ledger | None = None
                ) -> LeverResult:
    """Price ``change`` against ``before`` on the whole bill (``bill``):

        saving      = B(before) − B(after)                     (USD, point scenario)
        S_i         = B_i(before) − B_i(after), i = 1..samples  (per draw, common random numbers)
        P10/50/90   = percentiles of S_i                       (``saving_summary``)
        GPU-hours   = Σ GPU-hours(before) − Σ GPU-hours(after)  (``gpu_hours``)
        days        = wall-clock days of the main run, before − after
        share       = saving / B(before)

    A side without ranges is its point bill in every draw. When ``change.after`` is a run that
    never finishes (``scenario.ScenarioNeverFinishes``) the saving is −inf; when it cannot be
    priced for another reason (``ScenarioError``: no catalogue price for its pricing mode, ...)
    the saving is NaN ("–", as ``spot_for_ablations``'s) and ``note`` gives the reason either way.
    ``change.name``, when the lever gives one, replaces ``name``."""
    for arg, v in (("key", key), ("name", name), ("group", group)):
        as_text(v, arg)
    _clean(before, "before")
    if not isinstance(change, Change):
        raise ValueError(f"change={change!r} must be a levers.Change (what a lever returns)")
    samples, seed = _draw_args(samples, seed)
    name = change.name or name  # what the lever rests on, when it says (raise_mfu)
    b = _bill_arg(before_bill, "before_bill") if before_bill is not None else bill(before)
    total = b.total_usd
    try:
        a = bill(change.after)
    except ScenarioError as e:
        if not isinstance(e, ScenarioNeverFinishes):  # not priced (no catalogue price, ...)
            nan = float("nan")
            return LeverResult(key, name, group, total, None, nan, nan, nan, nan, 0.0, 0.0,
                               nan, change.risk, change.assumptions, change.source,
                               change.note if change.note.startswith("not priced:")
                               else f"not priced: {e}")
        # the changed run never finishes: an unbounded loss
        return LeverResult(key, name, group, total, None, -math.inf, -math.inf, -math.inf,
                           -math.inf, -math.inf, -math.inf, -math.inf, change.risk,
                           change.assumptions, change.source, f"cannot run: {e}")
    saving = total - a.total_usd
    p10 = p50 = p90 = saving
    ranged = False
    db = bill_draws(before, samples, seed)
    try:
        da = bill_draws(change.after, samples, seed)
    except ScenarioNeverFinishes as e:  # finishes at its point, not in some draws
        p10, p50, p90, note = _never_finishes_in_draws(e, samples, a)
        return LeverResult(key, name, group, total, a.total_usd, saving, p10, p50, p90,
                           gpu_hours(b) - gpu_hours(a),
                           b.figures["wall_clock_days"] - a.figures["wall_clock_days"],
                           saving / total if total else 0.0, change.risk, change.assumptions,
                           change.source, "; ".join(x for x in (note, change.note) if x), True,
                           "", change.price_basis_only)
    if db is not None or da is not None:  # a side without ranges is its point bill in every draw
        db = np.full(samples, total) if db is None else db
        da = np.full(samples, a.total_usd) if da is None else da
        p10, p50, p90 = saving_summary(db, da)
        ranged = True
    return LeverResult(key, name, group, total, a.total_usd, saving, p10, p50, p90,
                       gpu_hours(b) - gpu_hours(a),
                       b.figures["wall_clock_days"] - a.figures["wall_clock_days"],
                       saving / total if total else 0.0, change.risk, change.assumptions,
                       change.source, "; ".join(x for x in (change.note, storage_moved_words(
                           b, a), _rl_absorbed_words(key, b, a)) if x), ranged,
                       beyond_line_words(b, a), change.price_basis_only)


def _rl_absorbed_words(key: str, before: Ledger, after: Ledger) -> str:
    """What an RL lever's saving becomes where the exploratory line is Cottier et al.'s
    multiplier net of the bill's post-training (``ledger.exploratory_shift_words``): the RL
    line falls and the exploratory line rises by the part under the multiplier, so the total
    moves by less, said (a small-lab trial read FP8 rollouts and partial rollouts "saving"
    $4 of a $15k RL line, without a word); where an asynchronous iteration's RL line does not
    move at all, that it waits on the trainer. "" for another lever, or where the whole of the
    RL line's change reaches the total (to 1%)."""
    if not key.startswith("rl_"):
        return ""
    rl_change = before.line("post.rl").usd - after.line("post.rl").usd
    if rl_change == 0 and _get(after.scenario, "rl_async"):   # a review: $0 without a word
        return ("the asynchronous iteration waits on the trainer: faster generation on the "
                "rollout GPUs does not shorten it")
    if abs((before.total_usd - after.total_usd) - rl_change) <= 0.01 * abs(rl_change):
        return ""
    return exploratory_shift_words(before, after, ("the bill", "the lever's bill")) or ""


def storage_moved_words(before: Ledger, after: Ledger) -> str:
    """Why a lever that changes the GPU-hour price alone moves the run's hours and days, or "":
    the checkpoint storage a scenario does not give is sized by the bill to minimise storage
    cost plus the GPU time lost to writes and restores (``reliability.sized_storage_bytes_per_s``),
    so a cheaper GPU-hour buys slower storage, more time lost to checkpoints and a lower goodput
    (and a dearer one the reverse). Said only when the two bills' scenarios differ in
    ``price_usd_per_gpu_hour`` alone (a spot or checkpoint lever moves the goodput for its own
    reasons), the storage was sized, and the sized bandwidth and the goodput both moved."""
    b, a = _bill_arg(before, "before"), _bill_arg(after, "after")
    sb, sa = ({k: v for k, v in x.scenario.items() if not str(k).startswith("_")}
              for x in (b, a))
    if {k for k in set(sb) | set(sa) if sb.get(k) != sa.get(k)} != {"price_usd_per_gpu_hour"}:
        return ""
    fb, fa = b.figures, a.figures
    if sa.get("ckpt_storage_bytes_per_s") is not None or \
            fb.get("ckpt_storage_bytes_per_s") is None or \
            fa.get("ckpt_storage_bytes_per_s") is None or \
            fb["ckpt_storage_bytes_per_s"] == fa["ckpt_storage_bytes_per_s"] or \
            fb["goodput"] == fa["goodput"] or \
            abs(fb["main_ideal_gpu_hours"] / fa["main_ideal_gpu_hours"] - 1) > 1e-9:
        return ""
    return (f"the checkpoint storage the bill sizes for the new GPU-hour price is "
            f"{fmt_bytes(fa['ckpt_storage_bytes_per_s'])}/s, not "
            f"{fmt_bytes(fb['ckpt_storage_bytes_per_s'])}/s (it minimises storage plus lost "
            f"GPU time), so goodput is {fa['goodput']:.2%}, not {fb['goodput']:.2%}")


def _never_finishes_in_draws(err: ScenarioNeverFinishes, samples: int, after: Ledger) -> tuple:
    """(P10, P50, P90, words) of a lever's saving when the changed run finishes at its point
    (bill ``after``) but not in some Monte Carlo draws (``err``, raised by ``bill_draws``;
    ``montecarlo.draws_error`` names the draws). A draw that never finishes saves −∞; with n of
    N draws never finishing (known when one input is ranged: the bill's rules are monotone in
    it, so they are one tail of its draws), the q-th percentile of the saving is −∞ when
    n/N ≥ q; the others are not priced (NaN, "–"): the draws that finish are not billed
    separately."""
    if not isinstance(err, ScenarioNeverFinishes):
        raise ValueError(f"err={err!r} must be a ScenarioNeverFinishes")
    n = getattr(err, "failing_draws", None)
    pct = [-math.inf if n is not None and n / samples >= q else math.nan
           for q in (0.1, 0.5, 0.9)]
    share = "some" if n is None else f"{n:,} of {samples:,} ({n / samples:.0%})"
    words = (f"never finishes in {share} of the Monte Carlo draws ("
             + getattr(err, "draws_words", str(err)) + "); at the inputs' points it finishes, "
             f"in {after.figures['wall_clock_days']:,.0f} days")
    return (*pct, words)


def _get(s, key):
    s = _clean(s)
    return s[key] if key in s else (WASTE_KEYS[key] if key in WASTE_KEYS else _default(key))


def _set(s: dict, note_if_same: str = "", **changes) -> tuple:
    s = _clean(s)
    same = all(_get(s, k) == v for k, v in changes.items())
    return {**s, **changes}, (note_if_same if same else "")


def _unchanged(s: dict, note: str) -> Change:
    """A lever that does not apply to the scenario: ``after`` is the scenario, ``note`` why."""
    return Change(dict(s), "", "", "", note)


#: The levers that set scenario keys to fixed values: key -> (the changes, the note when the
#: scenario already has them, the risk, the assumptions, the source).
_SETTING_LEVERS = {
    "fix_data_loading": (
        {"waste_dataloader_stall_fraction": 0.0},
        "no stall given (waste_dataloader_stall_fraction = 0)",
        "little: prefetching, more loader workers or pre-tokenised shards cost engineering "
        "time, not recovery",
        "a stalled share s of each step lowers MFU to MFU·(1 − s); the fix removes all of it",
        "scenario waste figure"),
    "release_failed_allocations": (
        {"waste_failed_job_gpu_hours": 0.0},
        "no idle allocations given (waste_failed_job_gpu_hours = 0)",
        "a job released too eagerly loses its place in the queue",
        "the scheduler frees a failed job's nodes when it exits (health checks, automatic "
        "requeue); every idle GPU-hour recovered", "scenario waste figure"),
    "kill_forgotten_debug_jobs": (
        {"waste_debug_gpu_hours": 0.0},
        "no debug-job hours given (waste_debug_gpu_hours = 0)",
        "an idle-job reaper can kill an interactive session someone wanted",
        "time limits on interactive and debug partitions recover all of it",
        "scenario waste figure"),
    "dedupe_datasets": (
        {"waste_dataset_copies": 0},
        "no duplicate copies given (waste_dataset_copies = 0)",
        "a copy deleted that a reproduction needed; keep one versioned copy",
        "duplicates priced as dataset versions on the ledger's storage line",
        "ledger storage.datasets; data/storage_prices.csv"),
    "optimal_checkpoint_interval": (
        {"ckpt_interval_s": None}, "the scenario already checkpoints at the optimum",
        "none: the optimum minimises expected lost work plus stalls",
        "Daly (2006) model of failures at the scenario's rate",
        "llmcost.reliability.optimal_interval"),
    "resumable_training": (
        {"ledger_resumable": True}, "already resumable (it can resume from its checkpoints)",
        "none in cost; checkpoint code and storage to maintain",
        "checkpoints at the optimum interval (Daly 2006) replace restarts from scratch after "
        "every failure or planned stop", "llmcost.reliability.checkpoint_plan"),
    "async_checkpoints": (
        {"ckpt_async": True}, "already asynchronous",
        "the newest checkpoint is durable only after its write: a failure loses the write time "
        "too", "PyTorch DCP async_save-style checkpoints",
        "llmcost.reliability.checkpoint_stall_s"),
    "rl_partial_rollouts": (
        {"rl_partial_rollouts": True}, "the RL campaign already runs partial rollouts",
        "the carried responses were begun by an older policy (off-policy tokens) and the "
        "over-provisioned requests compete for KV-cache memory; a rollout scheduler to maintain",
        "unfinished responses carried to the next iteration: the tail of response lengths "
        "recovered up to the best rollout-throughput gain measured, +44% (APRIL; +22.5% on "
        "average), the bill's RL time factor kept",
        "APRIL (Zhou et al. 2025, arXiv:2509.18521); llmcost.rl.generation_time"),
    "rl_fp8_rollouts": (
        {"rl_rollout_weight_dtype": "fp8"}, "the RL rollouts already hold FP8 weights",
        "an FP8 copy of the policy samples what the BF16 policy is trained on: without an "
        "importance-sampling correction (truncated IS) the reward falls below BF16 rollouts' "
        "(FlashRL); the FP8 re-quantisation at each weight sync is not priced",
        "the rollout engine priced at FP8 weights (llmcost.inference, checked against "
        "published FP8 serving figures), KV cache and update unchanged; measured rollout "
        "throughput gains: up to +44% (FP8-RL, with an FP8 KV cache too), 1.5-2.76x (AIS, "
        "Qwen3-8B and the diffusion model LLaDA-8B)",
        "FlashRL (Liu, Yao et al. 2025, fengyao.notion.site/flash-rl); FP8-RL (Qiu et al. "
        "2026, arXiv:2601.18150); AIS (Zhou et al. 2026, arXiv:2605.13907); "
        "llmcost.rl.rollout_weight_dtype"),
}


#: What a checkpoint lever says of a scenario that takes none (``ledger_resumable: false``),
#: and the levers that say it (``_setting_lever``).
NO_CHECKPOINTS = ("the scenario takes no checkpoints (ledger_resumable: false): 'make training "
                  "resumable' prices them")
_CHECKPOINT_SETTINGS = ("optimal_checkpoint_interval", "async_checkpoints")


def _setting_lever(key: str, s: dict) -> Change:
    """The lever ``key`` of ``_SETTING_LEVERS`` on scenario ``s``: its keys set, with its risk,
    assumptions and source; ``note`` says when the scenario already has them."""
    if key not in _SETTING_LEVERS:
        raise ValueError(f"key={key!r} must be one of {', '.join(_SETTING_LEVERS)}")
    if key in _CHECKPOINT_SETTINGS and not _get(s, "ledger_resumable"):
        return _unchanged(s, NO_CHECKPOINTS)
    changes, same, risk, assumptions, source = _SETTING_LEVERS[key]
    after, note = _set(s, same, **changes)
    return Change(after, risk, assumptions, source, note)


# ---- RL post-training: what the RL line's campaign can change
def _rl_lever_note(s: dict) -> str:
    """"" where the scenario's bill carries an RL campaign that generates rollouts, else why
    the RL levers change nothing: no campaign billed (``rl_iterations``, ``rl_runs`` or
    ``ledger_rl: true`` bill one), or DPO, which generates no rollouts."""
    if not rl_campaign_given(s):   # the rule build_ledger bills the RL line by
        return ("the scenario bills no RL campaign (rl_iterations, rl_runs or ledger_rl: true "
                "bill one)")
    return "DPO generates no rollouts" if _get(s, "rl_algorithm") == "dpo" else ""


def rl_partial_rollouts(s: dict) -> Change:
    """Partial rollouts in the billed RL campaign (``rl_partial_rollouts: true``; APRIL, Kimi
    k1.5): unfinished responses carried to the next iteration, the tail of response lengths
    recovered up to the best rollout-throughput gain measured (``rl.generation_time``: +44%
    at most, APRIL, arXiv:2509.18521). A trial's GRPO campaign on 64 H100s (responses of 4,096
    tokens on average, up to 16,384) was 98.5% of its bill and notebook 09 said no lever saved
    1% of it. Nothing without a billed RL campaign, or for DPO (``_rl_lever_note``)."""
    s = _clean(s)
    why = _rl_lever_note(s)
    return _unchanged(s, why) if why else _setting_lever("rl_partial_rollouts", s)


def rl_fp8_rollouts(s: dict) -> Change:
    """FP8 rollouts in the billed RL campaign (``rl_rollout_weight_dtype: fp8``): an 8-bit copy
    of the policy generates, the update stays in BF16 (FlashRL; FP8-RL, arXiv:2601.18150,
    +44% rollout throughput at most). Nothing without a billed RL campaign or for DPO
    (``_rl_lever_note``), where the rollouts already hold 8 bits or fewer per weight, or on an
    accelerator without an FP8 peak (an A100: weight-only FP8, FlashRL's INT8 path there not
    priced). Only the RL line moves: ``serve_weight_dtype`` would move the synthetic-data
    and benchmark lines too."""
    s = _clean(s)
    why = _rl_lever_note(s) or rl.fp8_rollouts_change(
        {**s, "accelerator": _get(s, "accelerator")})
    return _unchanged(s, why) if why else _setting_lever("rl_fp8_rollouts", s)


# ---- waste first
def fix_data_loading(s: dict) -> Change:
    """Remove the data-loader stall: ``waste_dataloader_stall_fraction`` → 0 (MFU × (1 − s) →
    MFU)."""
    return _setting_lever("fix_data_loading", s)


def release_failed_allocations(s: dict) -> Change:
    """Release the GPUs of failed jobs at once: ``waste_failed_job_gpu_hours`` → 0."""
    return _setting_lever("release_failed_allocations", s)


def kill_forgotten_debug_jobs(s: dict) -> Change:
    """Reap idle debug jobs: ``waste_debug_gpu_hours`` → 0."""
    return _setting_lever("kill_forgotten_debug_jobs", s)


def dedupe_datasets(s: dict) -> Change:
    """Delete duplicate dataset copies: ``waste_dataset_copies`` → 0."""
    return _setting_lever("dedupe_datasets", s)


def clean_checkpoints(s: dict, keep_last: int = 3) -> Change:
    """Keep only the last ``keep_last`` checkpoints hot when the scenario keeps every one
    (``ckpt_keep_last: 0``); milestones still go to the cold tier."""
    k = int(as_scalar(keep_last, "keep_last", positive=True, integer=True))
    if _get(s, "ckpt_keep_last") != 0:
        after, note = dict(_clean(s)), (f"already cleaned: the scenario keeps the last "
                                        f"{_get(s, 'ckpt_keep_last')} checkpoints hot")
    else:
        after, note = {**_clean(s), "ckpt_keep_last": k}, ""
    return Change(after, f"fewer rollback points: a loss spike found more than {k} checkpoints "
                  "late rolls back to a cold milestone", "reliability.retention_storage_cost",
                  "llmcost.reliability; data/storage_prices.csv", note)


# ---- utilisation second
def mfu_target(s: dict) -> tuple:
    """The MFU ``raise_mfu`` aims at by default and what it rests on: ``(target, source,
    regime_runs, regime)``. The target is the best published MFU comparable to the scenario
    (``accuracy.comparable_published_mfu``: the same hardware generation, MoE or dense as the
    model, total parameters within 4×, the dtype's runs), on the scenario's own basis (the FP8
    dense peak for an FP8 scenario; the source says both bases and the rule); None when there
    is none; ``regime_runs`` the published
    runs of the scenario's regime (``accuracy.mfu_band(...).n``: generation, sharding, dense or
    MoE, precision, context and size), 0 when none is published, in which case the target comes
    from other kinds of runs (or a vendor's claim) and the lever says so."""
    s = _clean(s)
    spec = load_model(_get(s, "model"))
    dtype = _get(s, "dtype") or "bf16"
    # on the scenario's basis: an FP8 run's MFU is on the FP8 dense peak, the published MFUs on
    # the BF16 one (``PublishedBest.mfu`` puts the best on the step's own basis)
    best = comparable_published_mfu(_get(s, "accelerator"), spec.n_params, is_moe=spec.is_moe,
                                    dtype=dtype, seq_len=int(_get(s, "seq_len")))
    target, source = best.mfu, best.describe()
    band = mfu_band(float(_point(_get(s, "mfu"))), _get(s, "accelerator"),
                    int(_get(s, "n_gpus")), is_moe=spec.is_moe, n_params=spec.n_params,
                    dtype=dtype, seq_len=int(_get(s, "seq_len")),
                    zero_stage=plan_zero_stage({**_default_scenario(), **s}),
                    stack=_get(s, "stack"))
    return target, source, int(band.n), band.regime


def _raise_mfu_name(s: dict, target: float, regime: str) -> str:
    """The MFU lever's name: the target on the scenario's basis only (an FP8 run's on the FP8
    dense peak: on the BF16 one, the basis published MFUs use, an FP8 run's figure is
    peak(FP8) ÷ peak(BF16) = 2× it and passes 100% above 50%, which a trial read as an error:
    "51% of the FP8 peak (101% of the BF16 one)"; the source, ``PublishedBest.describe``, keeps
    both) and the rule it was chosen by (``accuracy.comparable_published_mfu``); a target that
    is a BF16 run × r (``PublishedBest.from_bf16``) is named as that run's FP8 bound."""
    spec, dtype = load_model(_get(s, "model")), _get(s, "dtype") or "bf16"
    b = comparable_published_mfu(_get(s, "accelerator"), spec.n_params, is_moe=spec.is_moe,
                                 dtype=dtype, seq_len=int(_get(s, "seq_len")))
    on = f"{target:.0%}" if b.basis == 1.0 else f"{target:.0%} of the {dtype.upper()} peak"
    mine = str(_get(s, "stack") or "")
    stack = ("" if not b.stack else f" ({b.source}, on the {b.stack} stack profile)"
             if b.stack == mine else f" ({b.source}, its software priced as the {b.stack} "
             f"stack profile, not this scenario's {mine}: the target assumes that profile's "
             "kernels)")
    # a vendor's MFU claim (MFU_CLAIMS: no stack, no GPU count) is no run
    evidence = "BF16 run" if b.stack or b.n_gpus else "BF16 claim"
    what = (f"the FP8 bound (× r) of the best published {'MoE' if spec.is_moe else 'dense'} "
            f"{evidence}" if b.from_bf16 else
            f"the best published {'MoE' if spec.is_moe else 'dense'} run")
    return (f"raise MFU to {on}, {what} on {regime.split(' · ')[0]} within {SIZE_FACTOR:g}× "
            f"this size at {seq_range_words(int(_get(s, 'seq_len')))}-token sequences{stack}"
            + _smaller_job_words(b.n_gpus, int(_get(s, "n_gpus"))))


#: A published run on this many times fewer GPUs than the scenario's is said to be a smaller
#: job (``_smaller_job_words``): one 8-GPU server against a 64-GPU job already adds the
#: scale-out network to every data-parallel collective.
SMALLER_JOB_FACTOR = 8


def _smaller_job_words(published_gpus: int | None, n_gpus: int) -> str:
    """What the MFU lever's target was measured on, when that job was ``SMALLER_JOB_FACTOR`` or
    more times smaller than the scenario's (a trial: a 1,024-GPU MoE run offered the MFU of an
    8-GPU benchmark without a word): the scale-out traffic of the larger job is not in it."""
    if not published_gpus or n_gpus < SMALLER_JOB_FACTOR * published_gpus:
        return ""
    return (f"; measured on {fmt_gpus(published_gpus)}, this run is {fmt_gpus(n_gpus)}: the "
            "larger job's scale-out communication is not in that figure")


#: A target MFU within this relative distance of the scenario's is the scenario's own
#: (``raise_mfu``): a trial's bill, at the best published run's 40.48% of the FP8 peak through
#: ``mfu: predict``'s cap, was offered "raise MFU to 40%", saving $20 of $12.6M, the
#: difference of two roundings of one published figure, not a lever.
SAME_MFU_REL = 0.005


def raise_mfu(s: dict, target: float | None = None) -> Change:
    """Raise the MFU to ``target`` (mixed precision done right, a better micro-batch, fused
    kernels); default: ``mfu_target``, the best published MFU on this hardware generation for a
    model within 4× this size, offered as "the best published" only
    when a published run of the scenario's regime exists; otherwise the lever is named by what
    it rests on (``Change.name``). A target at or below the scenario's MFU, or within
    ``SAME_MFU_REL`` of it, changes nothing."""
    s = _clean(s)
    m = float(_point(_get(s, "mfu")))
    source, name = "given target", ""
    if target is None:
        target, source, runs, regime = mfu_target(s)
        if target is None:
            return _unchanged(s, f"no target: {source}")
        name = _raise_mfu_name(s, target, regime)
        if not runs:
            name += " (no published run like this one)"
            source = f"{source}; no published run of this regime ({regime})"
    t = _scalar(target, "target", positive=True)
    if t > 1:
        raise ValueError(f"target={t!r} must be an MFU in (0, 1]")
    if t <= m * (1 + SAME_MFU_REL):
        return Change(dict(s), "", f"target {t:.1%}", source,
                      f"the scenario's MFU {m:.1%} is already at or above the target {t:.1%}"
                      + ("" if t <= m else f" (within {SAME_MFU_REL:.1%} of it)"), name)
    return Change({**s, "mfu": _scale(_get(s, "mfu"), t / m)},
                  ("engineering time, and the target is not a run like this one"
                   if name.endswith("(no published run like this one)") else
                   "engineering time, and the target is a BF16 run's FP8 bound, not a measured "
                   "FP8 run" if "the FP8 bound (× r)" in name else
                   "engineering time, and the target is the best published run, not a typical "
                   "one") + _forced_pipeline_words(s),
                  f"MFU {m:.1%} → {t:.1%}", source, "", name)


def _forced_pipeline_words(s: dict) -> str:
    """"; on 100 GPUs every split has at least 25 pipeline stages ..." where the scenario's GPU
    count forces a pipeline (``checks.forced_pipeline_stages``): a higher MFU there is bounded
    by that bubble, and the lever 'a GPU count without a pipeline' prices the way out (a
    teacher: "raise MFU to 59%" led a 100-GPU bill whose every plan has 25 stages)."""
    try:
        stages = forced_pipeline_stages(_plan_points(s))
    except (ValueError, KeyError, TypeError):
        return ""
    return (f"; on {fmt_gpus(_get(s, 'n_gpus'))} every split has at least {stages} pipeline "
            "stages (notebook 03), so this target needs another GPU count ('a GPU count without "
            "a pipeline')" if stages else "")


def newer_stack(s: dict) -> Change:
    """Run on the newest profile of the scenario's training-stack family dated no earlier than
    its accelerator (``checks.newer_stack_for``: e.g. megatron-core-2026 for a GB300 run priced
    on the 2024 default), with the MFU scaled by the step-time model's change between the two
    stacks on the scenario's calibration (``_with_scaled_mfu``: for ``mfu: predict`` the two
    central estimates, the MFU each scenario's own bill takes), so the warning that names the
    newer stack (``checks.newer_stack_hint``) and the lever table price the same run, capped at
    the best published run (``_capped_at_published``). Unchanged
    where the accelerator is older than the stack or no later profile exists."""
    s = _clean(s)
    newest = newer_stack_for(s)
    here = _get(s, "stack")
    if newest is None:
        gpu, st = load_accelerator(_get(s, "accelerator")), load_stack(here)
        return _unchanged(s, f"the {gpu.name} has no release year in the catalogue"
                          if gpu.year is None else
                          f"the {gpu.name} ({gpu.year}) is older than {here} (dated {st.date})"
                          if gpu.year < int(st.date[:4]) else
                          f"no profile of {here}'s family is dated later than it and "
                          f"{gpu.year} or later")
    after, said = _capped_refused(s, _with_scaled_mfu(s, {**s, "stack": newest.name},
                                                      above_one=True))
    return Change(after, f"adopting {newest.name}'s software (its kernels, overlaps and "
                         "recipes) before the run, and validating it",
                  f"stack {here} → {newest.name} (dated {newest.date}); MFU × "
                  f"{point(after['mfu']) / point(_get(s, 'mfu')):.3f}, the step-time model's "
                  "change between the two stacks on this run" + said,
                  "data/stacks.csv; llmcost.step; accuracy.published_ceiling")


def fp8_training(s: dict) -> Change:
    """Train in FP8 (``dtype: fp8``) at the step-time model's predicted change over BF16 (the
    FP8 peak is 2× but not every part of a step runs on it), on the scenario's calibration:

    * a measured MFU (given, or a pilot's) keeps its calibration (module docstring):
      MFU(FP8) = MFU × MFU_pred(FP8) ÷ MFU_pred(BF16), the raw predictions' ratio;
    * a predicted one (``mfu: predict``: ``_mfu_prediction``, or a report's ``mfu_band`` of
      "predicted"): MFU(FP8) = MFU × u(FP8) ÷ u(BF16), u each dtype's central estimate before
      any cap, p ÷ (1 + c) (``accuracy.central_mfu``: the model's prediction corrected by its
      regime's median held-out error, which measures how the model errs in that dtype). A cap
      is the best comparable published run of each dtype (``accuracy.band_cap``): two sets of
      runs, which say nothing of FP8's effect on this step. A trial's 8B run at 131,072 tokens
      was offered 1.43× (BF16 capped at 35.8% by llm-foundry's runs, FP8 at 51.4% of the BF16
      peak uncapped) where the model's step is 1.03× faster, attention being most of it. When
      a scenario with ``dtype: fp8`` would bill another MFU (each bill's own central estimate,
      capped), the words say so. A move to other hardware (``move_to``, ``hardware_sweep``)
      keeps each accelerator's capped central estimate: there the caps are each GPU
      generation's published runs, evidence about the very thing the lever changes.

    Each MFU on its own dtype's dense peak; the words give the speed-up applied, peak(FP8) ÷
    peak(BF16) × the MFU ratio, and the uncalibrated model's."""
    s = _clean(s)
    if _get(s, "dtype") == "fp8":
        return _unchanged(s, "already FP8")
    cannot = fp8_unavailable(s)
    if cannot:
        return _unchanged(s, cannot)
    fp8 = {**s, "dtype": "fp8"}
    (plan16, b16), (plan8, b8) = predicted_step(s), predicted_step(fp8)
    gpu = load_accelerator(_get(s, "accelerator"))
    peaks = gpu.peak_flops_per_s("fp8") / gpu.peak_flops_per_s("bf16")
    raw = b16.step_time_s / b8.step_time_s
    gain = _fp8_plan_gain(fp8, plan16, plan8, b8)
    if _mfu_is_predicted(s):
        ratio, how = _fp8_predicted_ratio(s, fp8, peaks, raw, gain)
    else:
        ratio = b8.mfu / b16.mfu
        how = (f"MFU × {ratio:.3f} (of the FP8 peak), the step-time model's predicted change "
               f"on the scenario's calibration: the run {peaks * ratio:.2f}× faster")
        ratio, how = _fp8_speedup_held(
            ratio, how, peaks, float(load_model(_get(s, "model")).n_params), gain)
    after = _with_scaled_mfu(s, fp8, ratio)
    return Change(after, "numerical instability (loss spikes, divergence) that forces a restart: "
                  "see the false economies", f"FP8 GEMMs with BF16/FP32 master state; {how} "
                  "(llmcost.step); the exploratory line, a multiple of the final run, falls "
                  "with it: the saving counts the exploration runs in FP8 too",
                  "llmcost.step (FP8 peak from data/accelerators.csv)")


def _fp8_speedup_held(ratio: float, how: str, peaks: float, n_params: float,
                      gain: tuple = (1.0, "")) -> tuple:
    """``fp8_training``'s MFU ratio held so that the run's speed-up on one plan, peaks × ratio ÷
    g (peaks = the FP8 ÷ BF16 dense peak; g the FP8 plan's gain, ``_fp8_plan_gain``: 1 when
    FP8 runs the scenario's plan), is at most r, the largest published whole-step FP8 ÷ BF16
    speed-up of one plan among the pairs of a model of comparable size
    (``accuracy.fp8_speedup_bound`` of ``n_params``: 1.345 for a 1B model, 1.505 for a 70B,
    1.599 for a 405B with the shipped pairs), as a band's top is the best comparable published
    run: a trial's MI300X run, where no FP8 run is published, was offered 1.50×. The bound is
    of one plan, so the gain of a plan FP8 alone fits multiplies the held ratio:
    ratio = min(ratio, r ÷ peaks × g). ``(ratio, how)``, the words saying when it is held."""
    r, pair = fp8_speedup_bound(n_params)
    g, said = gain
    if peaks * ratio / g <= r:
        return ratio, how + (f"; {said}" if g > 1 else "")
    if g > 1:
        return r / peaks * g, (
            f"{how}; held at {r:.3g}× faster on one plan (the largest published FP8 ÷ BF16 "
            f"speed-up of one plan among the validation's pairs of a comparable size, {pair}; "
            f"data/validation_mfu.csv), × {g:.2f} for the plan FP8 fits: {said}")
    return r / peaks, (f"{how}; held at {r:.3g}× faster (MFU × {r / peaks:.3f}), the largest "
                       "published FP8 ÷ BF16 speed-up of one plan among the validation's pairs "
                       f"of a comparable size ({pair}; data/validation_mfu.csv)")


def _fp8_plan_gain(fp8: dict, plan16, plan8, b8) -> tuple:
    """``(g, words)``: how much faster FP8 runs on the plan its own search chooses than on the
    scenario's BF16 plan, g = MFU(FP8, its plan) ÷ MFU(FP8, the BF16 plan) (``predicted_step``
    of the FP8 scenario with the BF16 plan's parameters fixed), where the two plans differ and
    g > 1, else ``(1.0, "")``. FP8 keeps smaller copies of what it saves for the backward, so a
    plan that needs recomputation or a longer pipeline in BF16 can fit without in FP8 (a trial's
    405B on 16,384 H100: BF16 TP8 · PP64×v2 with a 49% bubble, FP8 TP8 · PP32×v4): a published
    pair's speed-up, of one plan, does not bound that gain."""
    if plan8.describe() == plan16.describe():
        return 1.0, ""
    pinned = {name: getattr(plan16, field)
              for name, (field, _) in parallel.PLAN_PARAMETER_FIELDS.items()}
    # HSDP and MoE folding, the search keys beside them: a scenario's "auto" shard size is
    # fixed at the BF16 plan's (None: ZeRO-3 over the whole dp·cp group, "full")
    pinned[parallel.FSDP_SHARD_KEY] = plan16.fsdp_shard_size or "full"
    if plan16.etp is not None:
        pinned[parallel.ETP_KEY] = plan16.etp
    try:
        _, same = predicted_step({**fp8, **pinned, "pp_split": plan16.pp_split})
    except ValueError:   # the BF16 plan does not run in FP8 (a memory or stack rule): no gain
        return 1.0, ""
    g = float(b8.mfu / same.mfu)
    if g <= 1:
        return 1.0, ""
    return g, (f"the FP8 plan search chooses {plan8.describe()}, {g:.2f}× faster in FP8 than "
               f"the scenario's {plan16.describe()}")


#: How far (relative) a ``dtype: fp8`` scenario's own MFU ratio may lie from the FP8 lever's
#: before the lever's words name it (``_fp8_predicted_ratio``).
FP8_TWIN_NOTE_TOLERANCE = 0.05


def _fp8_predicted_ratio(s: dict, fp8: dict, peaks: float, raw: float,
                         gain: tuple = (1.0, "")) -> tuple:
    """``fp8_training``'s MFU ratio for a predicted MFU, u(FP8) ÷ u(BF16) (each band's central
    estimate before its cap), kept so that the lever's FP8 MFU m × ratio stays at or below the
    FP8 band's top (``accuracy.band_cap``: a bill never exceeds what a comparable run has
    measured), and its words: the bill's MFU and the lever's, and the ratio of the two bills'
    own MFUs (each its capped central estimate) where it differs by more than
    ``FP8_TWIN_NOTE_TOLERANCE``."""
    (plan8, _, band8, c8), (plan16, _, band16, c16) = central_prediction(fp8), \
        central_prediction(s)
    u8, u16 = band8.central()[1], band16.central()[1]
    m = float(_get(s, "mfu")) if isinstance(_get(s, "mfu"), (int, float)) else c16
    ratio = min(u8 / u16, float(band8.high) / m)
    how = (f"MFU {m:.1%} of the BF16 peak → {m * ratio:.1%} of the FP8 one, × {ratio:.3f}: the "
           f"step-time model's FP8 ÷ BF16 change, each dtype at its regime's central estimate "
           f"before any cap ({u16:.1%} → {u8:.1%}; a cap is the best published run of each "
           "dtype, which does not measure FP8's effect on this step)")
    if ratio < u8 / u16:
        how += f", held at the FP8 band's top, {band8.high:.1%} ({band8.cap_source()})"
    how += f": the run {peaks * ratio:.2f}× faster, the uncalibrated model's step {raw:.2f}×"
    ratio, how = _fp8_speedup_held(
        ratio, how, peaks, float(load_model(_get(s, "model")).n_params), gain)
    if abs((c8 / c16) / ratio - 1) > FP8_TWIN_NOTE_TOLERANCE:
        twin = peaks * c8 / c16
        how += (f"; a scenario with dtype: fp8 would bill its own central estimate, {c8:.1%} of "
                f"the FP8 peak against this bill's {c16:.1%} of the BF16 one ({twin:.2f}× "
                f"faster): {_twin_reasons(plan8, plan16, band8, band16)}")
    return ratio, how


def _twin_reasons(plan8, plan16, band8, band16) -> str:
    """Why a ``dtype: fp8`` copy of a scenario bills another speed-up than ``fp8_training``,
    said by its actual causes (a trial read "the two bands capped by different published runs"
    where neither was capped and the two plans differed): the FP8 copy's plan search chose
    another plan (FP8 keeps smaller activations), a band capped by a published run (each
    dtype's best comparable run, which measures nothing of FP8's effect on this plan), and the
    lever's hold at the published speed-up (said before, in its own words)."""
    why = []
    if plan8.describe() != plan16.describe():
        why.append(f"its plan search chooses {plan8.describe()} where this scenario runs "
                   f"{plan16.describe()}")
    capped = [d for d, b in (("FP8", band8), ("BF16", band16)) if b.capped_above() is not None]
    if capped:
        why.append(f"the {' and '.join(capped)} band{'s' if len(capped) > 1 else ''} capped by "
                   "a published run of that dtype")
    return "; ".join(why) or "the lever's hold at the largest published FP8 ÷ BF16 speed-up"


def fp8_unavailable(s: dict) -> str:
    """Why the scenario's hardware cannot take the FP8 lever ("" when it can): the accelerator
    has no FP8 peak in data/accelerators.csv (A100 and V100 have no FP8 tensor cores)."""
    gpu = load_accelerator(_get(s, "accelerator"))
    if gpu.peak_fp8_flops_per_s is None:
        return (f"skipped: {gpu.name} has no FP8 peak in data/accelerators.csv (no FP8 tensor "
                "cores or no datasheet figure), so it cannot train in FP8")
    return ""


@disk_cached  # the same for every call with these arguments: core.diskcache
def activation_recompute(s: dict, recompute: str = "full", n_gpus: int | None = None) -> Change:
    """Trade FLOPs for memory: ``recompute`` (selective or full) on ``n_gpus`` (default: the
    scenario's), priced with the memory model (the plan must fit) and the step-time model (the
    recomputed FLOPs lower MFU on the MFU basis). A scenario that fixes its plan keeps it
    (``kept_plan``: only ``dp`` follows a new GPU count) where it still fits; otherwise, and
    for a free plan, the rest of the plan is chosen by predicted step time. The MFU is capped
    at the best published run (``_capped_at_published``), as every lever that raises it."""
    s = _clean(s)
    if recompute not in ("none", "selective", "full"):
        raise ValueError(f"recompute={recompute!r} must be 'none', 'selective' or 'full'")
    n = int(_get(s, "n_gpus") if n_gpus is None else
            as_array(n_gpus, "n_gpus", positive=True, integer=True))
    if _get(s, "recompute") == recompute and n == _get(s, "n_gpus"):
        return _unchanged(s, f"the scenario already uses recompute={recompute}")
    forced = ("dp",) if n != _get(s, "n_gpus") else ()
    after, how = kept_plan(s, {"recompute": recompute, "n_gpus": n}, forced)
    before = _get(s, "recompute")   # "auto": the plan's own choice, not known here
    more = before in RECOMPUTE_LEAST_FIRST and RECOMPUTE_LEAST_FIRST.index(recompute) > \
        RECOMPUTE_LEAST_FIRST.index(before)
    later = [w for w, on in (("fewer GPUs", n < _get(s, "n_gpus")),
                             ("more recomputation per step", more)) if on]
    verb = "means" if later == ["more recomputation per step"] else "mean"
    risk = "no risk to the run itself" + (
        f"; {' and '.join(later)} {verb} a longer run, so its results come later" if later else "")
    # a lever is priced no higher than the best published run (a trial: half the GPUs of an
    # MoE bill already above its comparable run priced 31.8% MFU as "no risk")
    after, said = _capped_refused(s, _with_scaled_mfu(s, after, above_one=True,
                                                      scale_phases=False), scale_phases=False)
    return Change(after, risk, f"recompute={recompute} on {fmt_gpus(n)}, {how}" + said
                  + _phases_kept(s),
                  "llmcost.memory; llmcost.step; accuracy.published_ceiling")


#: The recomputation modes, least recomputed FLOPs first (``_recompute_on_half``).
RECOMPUTE_LEAST_FIRST = ("none", "selective", "full")


def _recompute_on_half(s: dict) -> Change:
    """Half the scenario's GPUs (``n // 2``: fewer GPUs, which then run longer) with the least
    recomputation that fits there, none, selective, then full (``RECOMPUTE_LEAST_FIRST``:
    recomputing costs a forward pass's FLOPs, so it is paid only where the activations need it):
    ``activation_recompute`` with the first mode whose plan runs on n/2 GPUs (the scenario's
    plan kept, DP halved, when it fixes one, ``_plan_misfit``; else the fastest plan that fits).
    The lever is named after that mode (a trial: "full recomputation on half the GPUs" saved
    $137k where half the GPUs without recomputing saved $770k). A scenario on 1 GPU has no half
    and the lever does not apply (it priced 1 GPU as its half)."""
    n = int(_get(s, "n_gpus"))
    if n < 2:
        return _unchanged(s, f"the scenario runs on {fmt_gpus(n)}, which cannot be halved")
    s, half = _clean(s), n // 2
    for mode in RECOMPUTE_LEAST_FIRST:
        if fixed_plan_keys(s) and _plan_misfit({**s, "dp": 0, "recompute": mode,
                                                "n_gpus": half}):
            continue
        try:
            change = activation_recompute(s, mode, half)
        except (ScenarioError, ValueError):
            continue
        return replace(change, name=_half_lever_name(mode))
    return replace(activation_recompute(s, "full", half), name=_half_lever_name("full"))


def _half_lever_name(mode: str) -> str:
    """``_recompute_on_half``'s name on a scenario, after the mode that fits."""
    return {"none": "half the GPUs (no recomputation needed)",
            "selective": "selective recomputation on half the GPUs"}.get(
        mode, "full recomputation on half the GPUs")


def _default_free(key: str):
    """The value that leaves a plan parameter to be chosen (``pp_split`` has none: kept)."""
    return {"zero_stage": -1, "recompute": "auto", "pp_schedule": "auto"}.get(key, 0)


def on_hardware(s: dict, accelerator: str) -> dict:
    """The scenario moved to ``accelerator`` as ``hardware_sweep`` and ``move_to`` price it: its
    plan as ``kept_plan`` rules (a plan the scenario fixes kept where it fits that hardware, else
    and for a free plan re-chosen for it), the catalogue price, and, when
    the bill bills an RL campaign, the smallest rollout TP from the scenario's up at which the
    policy fits that hardware (``rl.fitting_rollout_tp``, the rule a report applies to the
    notebooks' default): the scenario's own TP where it fits, a larger one where its weights
    and KV cache do not fit the smaller HBM (Llama 2 70B's 34.5 GB of BF16 weights per GPU at
    TP 4 above a TPU v5e's 14.4 GB usable), so the row is priced rather than left out. The
    scenario's TP is kept when none fits at the scenario's ``rl_gpus``; then the smallest RL job
    from it by doubling on which the iteration prices (``validation.fitting_rl_gpus``: 64 TPU
    v5e chips hold no training plan of Llama 2 70B, 68.98e9 × 18 B / 64 = 19.4 GB above their
    14.4 GB usable), else the scenario's (the bill then names the key)."""
    return _with_fitting_rl_job(_moved_to(s, accelerator))


def _moved_to(s: dict, accelerator: str) -> dict:
    """``on_hardware``'s scenario before its RL job is fitted to the hardware: the plan as
    ``kept_plan`` rules and the hardware's price."""
    s, accelerator = _clean(s), load_accelerator(accelerator).name
    changes = {"accelerator": accelerator, **fp8_recipe_on(s, accelerator)}
    return {**kept_plan(s, changes)[0], "price_usd_per_gpu_hour": None,
            **purchase_price_on(s, accelerator)}  # an owned purchase price is its hardware's


#: What ``fp8_recipe_on`` runs MXFP8 as off Blackwell, and the words a move says it with.
MXFP8_OFF_BLACKWELL = "current"
MXFP8_OFF_BLACKWELL_WORDS = ("FP8 as per-tensor current scaling there (MXFP8 is a Blackwell "
                             "format: elsewhere the FP8 recipes scale per tensor)")


def fp8_recipe_on(s: dict, accelerator: str) -> dict:
    """The FP8 recipe a scenario's run takes on ``accelerator``: ``{"fp8_recipe": "current"}``
    where the scenario scales in MX blocks (``fp8_recipe: mxfp8``, a Blackwell tensor-core
    format, ``scenario._check_fp8_recipe``) and ``accelerator`` is not Blackwell
    (``accuracy.gpu_generation``): Megatron-Bridge's H100 recipes of the same releases run FP8
    current scaling (data/validation_mfu.csv's ``…-h100-…-fp8cs`` rows); {} otherwise. A
    review: an MXFP8 scenario's hardware table left out every Hopper accelerator, refused, and
    its move to H100 priced a scenario the bill then refused."""
    s, accelerator = _clean(s), load_accelerator(accelerator).name   # each refused if bad
    if s.get("fp8_recipe") != "mxfp8" or gpu_generation(accelerator) == "Blackwell":
        return {}
    return {"fp8_recipe": MXFP8_OFF_BLACKWELL}


def _with_fitting_rl_job(moved: dict) -> dict:
    """``moved`` (``_moved_to``) with the RL job ``on_hardware`` fits to its hardware: the
    smallest rollout TP that fits, else the smallest RL job by doubling; ``moved`` itself
    without an RL campaign, when the scenario's fits, or when none does. Never raises."""
    if not rl_campaign_given(moved):
        return moved
    p = {k: _get(moved, k) for k in rl.ITERATION_KEYS + RL_BATCH_KEYS}
    try:
        tp = rl.fitting_rollout_tp(p)
        job = fitting_rl_gpus(p) if tp is None else (p["rl_gpus"], tp)
    except (ValueError, KeyError, TypeError):  # the bill names what is wrong
        return moved
    if job is None or job == (p["rl_gpus"], p["rl_rollout_tp"]):
        return moved
    return {**moved, "rl_gpus": job[0], "rl_rollout_tp": job[1]}


#: The keys ``check_run_rules`` reads to tell whether the RL batch feeds an RL job's GPUs.
RL_BATCH_KEYS = ("n_gpus", "seq_len", "global_batch_tokens")


def _free_plan(s: dict, keep=("cp",)) -> dict:
    """The scenario with every plan parameter but ``keep`` (and ``pp_split`` and ``etp``, the
    experts' layout) left free."""
    return {**s, **{k: _default_free(k) for k in PLAN_PARAMETERS
                    if k not in keep and k not in ("pp_split", "etp")}}


def fixed_plan_keys(s: dict) -> tuple:
    """The plan parameters the scenario fixes: those of ``parallel.PLAN_PARAMETER_FIELDS`` set
    to anything but their "choose" value (0, -1 for ``zero_stage``, "auto"), and
    ``fsdp_shard_size`` when it is a whole number (``parallel.fixed_plan_fields``' rule);
    ``cp``, ``pp_split`` and ``etp`` excepted (every lever keeps them, ``_free_plan``). Empty: the
    scenario leaves its plan to the search."""
    s = _clean(s)
    out = [k for k, (_, free) in parallel.PLAN_PARAMETER_FIELDS.items()
           if k != "cp" and k in s and s[k] != free]
    shard = s.get(parallel.FSDP_SHARD_KEY)
    if isinstance(shard, int) and not isinstance(shard, bool) and shard > 0:
        out.append(parallel.FSDP_SHARD_KEY)
    return tuple(out)


def _plan_misfit(sc: dict) -> str:
    """Why the plan of scenario ``sc`` cannot run ("" when it can): the step-time model cannot
    build it (``predicted_step``'s ScenarioError) or its memory (``checks.scenario_plan_memory``)
    exceeds the usable HBM, HBM × (1 − ``mem_reserve_fraction``) (``checks.memory_fits``)."""
    try:
        predicted_step(sc)
        v = _plan_points(sc)
        _, gpu, _, mem = scenario_plan_memory(v)
    except (ScenarioError, ValueError, KeyError) as e:
        return f"cannot be built ({e})"
    if memory_fits(v, gpu, mem):
        return ""
    usable = gpu.hbm_bytes * (1 - v.get("mem_reserve_fraction", DEFAULT_RESERVE))
    return (f"does not fit: it needs {mem.total / 1e9:,.0f} GB per GPU, above the "
            f"{usable / 1e9:,.0f} GB usable on {gpu.name}")


#: ``kept_plan``'s words for a plan the scenario leaves to the search.
PLAN_CHOSEN = "the rest of the plan chosen by predicted step time"


def kept_plan(s: dict, changes: dict, forced=()) -> tuple:
    """``(after, words)``: the scenario with a lever's ``changes`` applied and its plan chosen by
    one rule. A lever changes one thing; when the scenario fixes its plan (``fixed_plan_keys``),
    the lever keeps that plan, leaving free only the ``forced`` keys (``dp`` when the GPU count
    changes: n = TP·PP·CP·DP), where the plan can still run (``_plan_misfit``); the plan's own
    saving is then the lever ``best_plan``, not hidden in this one. Where it cannot run, and for
    a scenario that leaves its plan free, every plan parameter but ``cp``, ``pp_split`` and the
    ``changes`` is chosen by predicted step time (``_free_plan``), and ``words`` say which."""
    s = _clean(s)
    if not isinstance(changes, dict) or not all(isinstance(k, str) for k in changes):
        raise ValueError(f"changes={changes!r} must be a mapping of scenario keys to values")
    if not isinstance(forced, (list, tuple)) or any(k not in PLAN_PARAMETERS for k in forced):
        raise ValueError(f"forced={forced!r} must be a list of plan parameters "
                         f"({', '.join(PLAN_PARAMETERS)})")
    free = {**_free_plan(s, ("cp",) + tuple(changes)), **changes}
    if not fixed_plan_keys(s):
        return free, PLAN_CHOSEN
    kept = {**s, **{k: _default_free(k) for k in forced}, **changes}
    why, was = _plan_misfit(kept), predicted_step(s)[0]
    if why:
        return free, (f"the scenario's plan ({was.describe()}) {why}, so the plan is chosen by "
                      f"predicted step time ({predicted_step(free)[0].describe()}) and this "
                      "saving includes a change of plan (on the scenario's hardware the lever "
                      "'the fastest ranked parallel plan' prices that alone)")
    plan = predicted_step(kept)[0]
    dp = f", DP {was.dp} → {plan.dp} as the GPU count sets it" if plan.dp != was.dp else ""
    but = " otherwise" if any(k in PLAN_PARAMETERS for k in changes) or dp else ""
    return kept, (f"the scenario's plan{but} kept ({plan.describe()}{dp}); the fastest plan is "
                  "its own lever, 'the fastest ranked parallel plan'")


def best_plan(s: dict) -> Change:
    """The fastest ranked parallel plan (every plan parameter but ``cp`` left free,
    ``step.scenario_plan``) against the scenario's plan."""
    s = _clean(s)
    free = _free_plan(s)
    if all(_get(s, k) == _get(free, k) for k in PLAN_PARAMETERS):
        return _unchanged(s, "the scenario leaves its plan free: it already is the "
                      "fastest ranked plan")
    (mine, b0), (theirs, b1) = predicted_step(s), predicted_step(free)
    if b1.step_time_s >= b0.step_time_s:
        return _unchanged(s, f"the scenario's plan ({mine.describe()}) is already "
                      f"at least as fast as the search's choice ({theirs.describe()})")
    ratio, split = None, ""   # a given MFU: _with_scaled_mfu takes the raw predictions' ratio
    if _mfu_is_predicted(s):
        (_, _, band0, c0), (_, _, band1, c1) = central_prediction(s), central_prediction(free)
        ratio = c1 / c0   # the central estimates' ratio, as _with_scaled_mfu would take it
        if c1 <= c0:
            return _unchanged(s, f"the search's choice ({theirs.describe()}) is "
                              f"{b0.step_time_s / b1.step_time_s:.2f}× faster by the step-time "
                              f"model, but a `mfu: predict` bill prices it at {c1:.1%} and this "
                              f"plan at {c0:.1%}, each prediction's central estimate kept "
                              f"inside its band{_band_tops(band0, band1)}")
        split = _correction_split(b0.step_time_s / b1.step_time_s, ratio, band0, band1)
    # the phases' own MFUs kept: each stands for a plan of its own, which this lever does not
    # search (an analyst's long-context phase at a given 0.30 was rescaled by the main run's
    # plan change, and the lever outranked "raise MFU" on that alone)
    after, said, capped = _capped_back(s, _with_scaled_mfu(
        s, free, ratio, above_one=True, scale_phases=False), (
        f"the search's choice ({theirs.describe()}) is {b0.step_time_s / b1.step_time_s:.2f}× "
        "faster by the step-time model"), scale_phases=False)
    if capped:
        return capped
    return Change(after, "a new plan must be validated at scale before the run",
                  f"{mine.describe()} → {theirs.describe()}" + said + _phases_kept(s),
                  "llmcost.parallel, llmcost.step; accuracy.published_ceiling", note=split)


def pipeline_free_gpus(s: dict) -> Change:
    """A GPU count that needs no pipeline, where the scenario's count forces one
    (``checks.pipeline_free_gpus_of``: data parallelism divides the global batch in
    sequences, so on n GPUs dp ≤ gcd(n, batch) and tp·pp·cp carries n ÷ gcd(n, batch); a
    1F1B bubble of (p − 1)/m, Narayanan et al. 2021 §2.2.1): of the nearest counts below and
    above whose searched plan fits, has a bubble of at most ``BUBBLE_WARNING`` and predicts a
    higher MFU, the one whose whole bill is lowest (GPU-hours = FLOPs ÷ (peak × MFU), and the
    lines billed by the run's length), the nearer on a tie. Priced as ``best_plan`` is: the MFU
    scaled by the step-time model's predicted change (``_with_scaled_mfu``: the central estimates' ratio
    for a predicted MFU) and capped at the best published run (``_capped_at_published``); the
    plan at the new count chosen as ``kept_plan`` rules, DP following the count. The pipeline
    warning of the bill names these counts; this lever prices one on the whole bill."""
    s = _clean(s)
    n = int(_get(s, "n_gpus"))
    if "pp" in fixed_plan_keys(s):
        return _unchanged(s, f"the scenario fixes pp={_get(s, 'pp')}: no GPU count is sought "
                          "to avoid it")
    mine, b0 = predicted_step(s)
    if mine.pp == 1:
        return _unchanged(s, f"the scenario's plan ({mine.describe()}) has no pipeline")
    stages, options = pipeline_free_gpus_of(_plan_points(s))
    if stages == 1:
        return _unchanged(s, f"a plan without a pipeline exists on {fmt_gpus(n)}: the search "
                          f"chose {mine.pp} stages ('the fastest ranked parallel plan' prices "
                          "the plan)")
    if not options:
        return _unchanged(s, f"every split of {fmt_gpus(n)} has pipeline stages, but none of "
                          "the nearest GPU counts without them predicts a higher MFU with a "
                          f"bubble of at most {BUBBLE_WARNING:.0%}")
    # each count: ((c, plan, step), after, said, how, unchanged where a cap leaves nothing)
    priced = [(o, *_pipeline_free_priced(s, b0, *o)) for o in options]
    runs = [x for x in priced if x[4] is None]
    if not runs:
        return priced[0][4]   # capped back to the scenario's own MFU on every count: said
    # the count whose whole bill is lowest (the fewest GPU-hours, and the time-billed lines of
    # a shorter run), the nearer on a tie (a trial: 64 GPUs at 55.3% was named "the nearest"
    # beside 128 at 55.1%)
    (c, theirs, b1), after, said, how, _ = min(
        runs, key=lambda x: (bill(x[1]).total_usd, abs(x[0][0] - n)))
    slower = c * float(_point(_get(after, "mfu"))) < n * float(_point(_get(s, "mfu")))
    risk = ("a new plan on another GPU count must be validated at scale before the run"
            + ("; fewer GPUs at this MFU mean a longer run, so its results come later"
               if slower else "") + (f"; {fmt_gpus(c - n)} more must be had" if c > n else "")
            + _balanced_router_risk(after))
    m0, m1 = (float(_point(_get(x, "mfu"))) for x in (s, after))
    return Change(after, risk, f"{fmt_gpus(n)} → {fmt_gpus(c)}: {mine.describe()} (predicted "
                  f"MFU {b0.mfu:.1%}) → {theirs.describe()} ({b1.mfu:.1%}), {how}" + said,
                  "llmcost.parallel, llmcost.step; accuracy.published_ceiling",
                  name=f"{fmt_gpus(c)} instead of {n:,}, no pipeline (MFU {m0:.1%} → "
                       f"{m1:.1%})")


def _balanced_router_risk(after: dict) -> str:
    """"; it fits only with a perfectly balanced router ..." where the lever's MoE plan fits its
    HBM only so (``checks.moe_headroom_warning``: the busiest experts at 1.25× the mean load
    grow the activations past the headroom), else "". A finance trial's Qwen3-30B-A3B on 576
    GB200: the lever "512 GPUs instead of 576" saved $2.33M on a plan the same tool, run on
    512, said would run out of memory; priced on the plan with room it saved $2.08M."""
    try:
        v = _plan_points(after)
        spec, gpu, plan, mem = scenario_plan_memory(v)
        tight = spec.is_moe and moe_headroom_warning(v, spec, gpu, plan, mem)
    except (ValueError, KeyError, TypeError):
        return ""
    if not tight:
        return ""
    return (f"; {plan.describe()} fits only with a perfectly balanced router (the busiest "
            f"experts at {MOE_CHECK_LOAD_FACTOR}× the mean load would not fit: "
            "checks.moe_headroom_warning), so force the router to balance or expect a "
            "slower plan with room and a smaller saving")


def _phases_with_mfu(s: dict) -> bool:
    """Whether a pre-training phase of ``s`` gives its own MFU."""
    return any(isinstance(ph, dict) and "mfu" in ph for ph in s.get("phases") or [])


def _phases_kept(s: dict) -> str:
    """The words of a lever on the main run's plan (``best_plan``, ``pipeline_free_gpus``,
    ``activation_recompute``) whose scenario has pre-training phases with their own MFUs,
    which it keeps (``_with_scaled_mfu``'s ``scale_phases``): "" without such a phase."""
    return ("; the pre-training phases keep their given MFUs (each stands for a plan of its "
            "own)" if _phases_with_mfu(s) else "")


def _pipeline_free_priced(s: dict, b0, c: int, theirs, b1) -> tuple:
    """``(after, said, how, unchanged)``: ``pipeline_free_gpus``' scenario on ``c`` GPUs with
    no pipeline (``kept_plan``, DP following the count; ``how`` its words), its MFU scaled by
    the step model and capped at the best published run (``_capped_back``; ``said`` the cap's
    words); ``unchanged`` the Change that says so when the cap leaves nothing to price, else
    None. ``theirs`` and ``b1``: the plan and step searched on ``c`` GPUs; ``b0`` the
    scenario's step."""
    after, how = kept_plan(s, {"n_gpus": c, "pp": 1}, ("dp",))
    # the main run's plan: the phases keep their own MFUs (a review: priced "as best_plan is")
    after, said, capped = _capped_back(s, _with_scaled_mfu(
        s, after, above_one=True, scale_phases=False), (
        f"{fmt_gpus(c)} without a pipeline ({theirs.describe()}) predicts an MFU of "
        f"{b1.mfu:.1%} against this plan's {b0.mfu:.1%}"), scale_phases=False)
    return after, said + _phases_kept(s), how, capped


def _capped_back(s: dict, scaled: dict, lead: str, scale_phases: bool = True) -> tuple:
    """``(after, said, unchanged)``: ``scaled`` (a lever's scenario, its MFU scaled by the
    step-time model's change) capped at the best published run (``_capped_at_published``), and,
    when the cap brings its MFU back to the scenario's own, an ``_unchanged`` Change whose note
    is ``lead`` and why (no saving to price: a sweep's DeepSeek-V3 on H800 read "−$0" with no
    note beside 04b's faster plan); else ``unchanged`` is None. ``scale_phases`` as
    ``_with_scaled_mfu``'s: false where the phases kept their MFUs, which the cap leaves too."""
    after, said, where = _capped_at_published(s, scaled, scale_phases)
    m0 = float(_point(_get(s, "mfu")))
    if not (said and float(_point(_get(after, "mfu"))) <= m0 * (1 + 1e-9)):
        _refuse_scaled_above_one(after, s)   # nothing published caps it
        return after, said, None
    return after, said, _unchanged(s, f"{lead} ({float(_point(_get(scaled, 'mfu'))):.1%} on "
                                   "this bill's basis), but a lever is priced no higher than "
                                   f"{where}, or the scenario's own MFU where that is above "
                                   f"it: {m0:.1%} already")


def _runs(n: int) -> str:
    """", 1 held-out run" or ", 36 held-out runs"."""
    return f", {n} held-out run{'' if n == 1 else 's'}"


def _correction_split(step_ratio: float, central_ratio: float, band0, band1) -> str:
    """"the step-time model prices the new plan 1.05× as fast, the two bills 1.15×: ..." (the
    lever's note) when a ``mfu: predict`` bill's MFUs (each band's central estimate, the
    prediction ÷ (1 + its regime's band centre c, the median held-out error shrunk toward 0 with
    few runs), kept inside the band: ``accuracy.central_mfu``) move by more than 1 % beyond the
    step-time model's own ratio, and why: the two regimes' centres where the plans fall in two
    regimes, and each bill held at its band's capped top (``MfuBand.central``'s point below
    p ÷ (1 + c)). The rest of the saving is those, not the plan's speed (a trial read a plan
    lever two thirds of whose saving came from a ZeRO-2 regime of one published run against a
    ZeRO-3 one of 36). "" otherwise."""
    if abs(central_ratio / step_ratio - 1) <= 0.01:
        return ""
    why = []
    if band0.regime != band1.regime:
        why.append(f"each prediction ÷ (1 + its regime's band centre, {band0.center:+.1%} for "
                   f"this plan's{_runs(band0.n)}, {band1.center:+.1%} for the new one's"
                   f"{_runs(band1.n)})")
    for who, b in (("this plan's", band0), ("the new plan's", band1)):
        point, central, _ = b.central()
        if point < central * (1 - 1e-9):
            why.append(f"{who} bill held at its band's capped top, {point:.1%} ("
                       f"{b.cap_source() or 'the cap'}), below its central estimate "
                       f"{central:.1%}")
        elif point > central * (1 + 1e-9):
            why.append(f"{who} bill held at its band's low end, {point:.1%}, above its central "
                       f"estimate {central:.1%}")
    if not why:
        return ""
    return (f"the step-time model prices the new plan {step_ratio:.2f}× as fast, the two bills "
            f"{central_ratio:.2f}×: " + "; ".join(why) + "; the rest is that, not the plan's "
            "speed")


def _band_tops(*bands) -> str:
    """", whose top is capped at 46.2% by <the run>" for the bands a published run caps (each
    once), "" when none is."""
    caps = {f"{b.high:.1%} by {b.cap_source()}" for b in bands if b.capped_above() is not None}
    return (", whose top is capped at " + " and ".join(sorted(caps))) if caps else ""


def _capped_refused(before: dict, after: dict, scale_phases: bool = True) -> tuple:
    """``(after, said)``: ``after`` capped at the best published run (``_capped_at_published``),
    then refused where its MFU still exceeds 1 (``_refuse_above_one``): the cap comes first, so a
    scaled MFU above 1 that a published run brings back is priced at the cap, not refused (a
    review: ``newer_stack`` and ``activation_recompute`` refused before they capped).
    ``scale_phases`` as ``_with_scaled_mfu``'s."""
    after, said, _ = _capped_at_published(before, after, scale_phases)
    _refuse_scaled_above_one(after, before)
    return after, said


def _capped_at_published(before: dict, after: dict, scale_phases: bool = True) -> tuple:
    """``after`` with its MFU capped at ``accuracy.published_ceiling`` (the best published MFU
    on the hardware generation for a model of this size, on the step's dtype basis), the cap
    never below ``before``'s MFU and never above ``after``'s own (its phases' own MFUs capped by
    the same factor), and the words that say so: a lever is not priced on an MFU that no
    published run of its hardware has reached: ``(after, said, where)``, ``where`` the
    ceiling's run in words (``published_ceiling``). ``(after, "", where)`` when within the
    ceiling or with nothing published (the step-time model's band says how far to trust it
    then)."""
    spec = load_model(_get(after, "model"))
    ceiling, where = published_ceiling(_get(after, "accelerator"), spec.n_params,
                                       _get(after, "dtype") or "bf16", is_moe=spec.is_moe,
                                       seq_len=int(_get(after, "seq_len")))
    m, m0 = float(_point(_get(after, "mfu"))), float(_point(_get(before, "mfu")))
    top = None if ceiling is None else max(ceiling, m0)
    if top is None or m <= top:   # a cap lowers a lever's MFU, never raises it (a review:
        return after, "", where   # full recompute's 70.7% was 'capped' up to a given 90%)
    # the phases that give their own MFU were scaled with the main run's (_with_phase_mfus_
    # scaled): capped with it, by the same factor (a review: a phase kept the uncapped ratio)
    capped = {**after, "mfu": _scale(_get(after, "mfu"), top / m)}
    capped = _with_phase_mfus_scaled(capped, top / m) if scale_phases else capped
    return (capped, f"; MFU capped at {top:.1%}: the step-time model's {m:.1%} lies above "
                    f"{where}", where)


# ---- checkpoint governance


def resumable_training(s: dict) -> Change:
    """Make training resumable (``ledger_resumable: true``): checkpoints at the optimum interval
    instead of a restart from scratch after every failure or planned stop
    (``ledger._restart_from_scratch_goodput`` against ``reliability.checkpoint_plan``)."""
    return _setting_lever("resumable_training", s)


def optimal_checkpoint_interval(s: dict) -> Change:
    """Checkpoint at the optimum interval for the job's MTBF (``ckpt_interval_s: null``, Daly's
    model solved exactly, ``reliability.optimal_interval``); nothing for a scenario that takes
    no checkpoints (``NO_CHECKPOINTS``)."""
    return _setting_lever("optimal_checkpoint_interval", s)


def async_checkpoints(s: dict) -> Change:
    """Asynchronous checkpoints (only the device-to-host snapshot blocks training); nothing for a
    scenario that takes no checkpoints (``NO_CHECKPOINTS``)."""
    return _setting_lever("async_checkpoints", s)


def shorter_retention(s: dict, retention_months: float = 3.0) -> Change:
    """Keep milestone checkpoints ``retention_months`` after the run (cold tier) instead of the
    scenario's ``ckpt_retention_months``: it moves the checkpoint-storage line only (datasets and
    logs keep ``ledger_dataset_retention_months``), so it saves nothing on a run shorter than
    ``ckpt_milestone_every_days`` (no milestone is written)."""
    r = as_scalar(retention_months, "retention_months", nonnegative=True)
    cur = _get(s, "ckpt_retention_months")
    if cur <= r:
        return _unchanged(_clean(s), f"milestone checkpoints already kept {cur:g} months ≤ {r:g}")
    return Change({**_clean(s), "ckpt_retention_months": r},
                  "old milestones gone: audits, ablations from old weights and continued "
                  "training must start from a later checkpoint",
                  f"milestone checkpoints kept {cur:g} → {r:g} months after the run "
                  "(ckpt_retention_months; the checkpoint-storage line)",
                  "reliability.retention_storage_cost; data/storage_prices.csv",
                  name=f"keep milestone checkpoints {r:g} months, not {cur:g}")


# ---- pricing mix
def reservation_cost_usd(rate_usd_per_gpu_hour: float, n_gpus: int, job_hours: float,
                         term_hours: float) -> float:
    """What a reservation costs a job: a commitment of term T is paid in full whether the job
    uses it or not, and a job longer than T renews it (taken as paid by the hour beyond T, the
    most favourable reading), so

        cost = max(T, d) × rate × GPUs

    with d the job's wall-clock hours and rate the reserved price per GPU-hour (a reservation is
    bought for a term: AWS EC2 Capacity Blocks for ML "in 1-day increments up to 14 days, and in
    7-day increments up to 182 days", AWS EC2 API reference, DescribeCapacityBlockOfferings
    ``CapacityDurationHours``; Google Cloud committed-use discounts for 1 or 3 years,
    https://cloud.google.com/tpu/pricing). E.g. a 16-hour job on 8 GPUs at $2.72 with a 1-day
    term: max(24, 16) × 2.72 × 8 = $522.24, against 16 × 3.20 × 8 = $409.60 on demand.

    Raises
    ------
    ValueError
        A rate, GPU count, duration or term that is not positive, naming it.
    """
    for name, v in (("rate_usd_per_gpu_hour", rate_usd_per_gpu_hour),
                    ("job_hours", job_hours), ("term_hours", term_hours)):
        _scalar(v, name, positive=True)
    _scalar(n_gpus, "n_gpus", positive=True, integer=True)
    return max(float(term_hours), float(job_hours)) * float(rate_usd_per_gpu_hour) * n_gpus


def reservation_offers(accelerator: str) -> pd.DataFrame:
    """The current reserved prices of ``accelerator`` (data/prices.csv) set beside the **same
    provider's** on-demand price, like with like: the provider's current on-demand row of the
    catalogue, else the on-demand price its own rate card states beside the reserved one
    (``same_provider_on_demand_usd``); ``min_term_days`` the shortest term the provider
    publishes (NaN: not published). Columns ``provider``, ``reserved``, ``on_demand`` (NaN
    when the provider states none), ``discount`` = 1 − reserved ÷ on_demand, ``term_days``,
    ``source``.

    Raises
    ------
    ValueError
        An accelerator the catalogue does not hold, naming it.
    """
    return _own_provider_offers(accelerator, "reserved")[
        ["provider", "reserved", "on_demand", "discount", "term_days", "source"]]


def _own_provider_offers(accelerator: str, mode: str) -> pd.DataFrame:
    """The current ``mode`` rows of ``accelerator`` (data/prices.csv), each beside its own
    provider's on-demand price (``_own_on_demand``): columns ``provider``, ``mode`` (the
    price), ``on_demand``, ``discount`` = 1 − price ÷ on_demand, ``term_days`` (the shortest
    term the provider publishes, NaN when none), ``source``; ``reservation_offers`` and
    ``spot_offers`` select from it."""
    accelerator = load_accelerator(accelerator).name
    rows = list_prices(accelerator, mode, current_only=True)
    od = list_prices(accelerator, "on_demand", current_only=True)
    out = pd.DataFrame(
        [{"provider": r.provider, mode: float(r.price_usd_per_gpu_hour),
          "on_demand": _own_on_demand(od, r), "term_days": float(t),
          "source": r.source} for r, t in zip(rows.itertuples(), term_days(rows))],
        columns=["provider", mode, "on_demand", "term_days", "source"])
    out.insert(3, "discount", 1 - out[mode] / out["on_demand"])
    return out


def _own_on_demand(on_demand_rows: pd.DataFrame, row) -> float:
    """The on-demand price of a discount row's own provider: the median of that provider's
    current on-demand rows of the catalogue, else the on-demand price the row's own source
    states beside it (``same_provider_on_demand_usd``, data/prices.csv), else NaN."""
    own = on_demand_rows[on_demand_rows["provider"] == row.provider]["price_usd_per_gpu_hour"]
    card = str(getattr(row, "same_provider_on_demand_usd", "") or "")
    return float(own.median()) if len(own) else (float(card) if card else float("nan"))


def _reservation_words(o, job_hours: float) -> str:
    """One offer in words: the provider's reserved and on-demand rates, the term, and the
    break-even term of a job of ``job_hours`` (max(T, d) × r < d × o ⇔ T < d × o ÷ r)."""
    even = job_hours * o.on_demand / o.reserved
    term = ("a term it does not publish" if math.isnan(o.term_days) else
            f"a minimum term of {o.term_days:g} day(s)")
    return (f"{o.provider} reserves at ${o.reserved:.2f} against its own on-demand "
            f"${o.on_demand:.2f} ({o.discount:.0%} off), for {term}; a reservation of term T "
            f"costs max(T, d) × rate × GPUs, so for this {job_hours:,.1f}-hour run it saves only "
            f"if T < {even:,.1f} h")


def reserved_pricing(s: dict) -> Change:
    """Reserve capacity for the run, priced like with like and with its commitment
    (``reservation_offers``, ``reservation_cost_usd``): for each current reserved offer whose
    provider also states an on-demand price and publishes a minimum term T, the run of d
    wall-clock hours (the point bill's main run) pays

        price after = price before × (reserved ÷ on-demand of that provider) × max(T, d) ÷ d

    (the provider's own discount applied to the scenario's price, and the unused part of the
    term paid); the cheapest offer is taken. Not comparing one provider's reserved rate with the
    median of other providers' on-demand prices: that difference is the provider, not the
    reservation. An offer whose term is not published cannot be sized: the lever then changes
    nothing and says the break-even term, d × on-demand ÷ reserved."""
    s = _clean(s)
    if _get(s, "pricing") in ("reserved", "owned"):
        # the price a reserved bill takes, said: a trial's B200 run read "already reserved"
        # where the bill priced the on-demand median (the catalogue's reserved row above it)
        f = bill(s).figures if _get(s, "pricing") == "reserved" and \
            s.get("price_usd_per_gpu_hour") is None else {}
        return _unchanged(s, f"already {_get(s, 'pricing')}" + (
            f" (priced at ${f['price_usd_per_gpu_hour']:.2f}/GPU-h: {f['price_source']})"
            if f.get("price_usd_per_gpu_hour") and f.get("price_source") else ""))
    offers = reservation_offers(_get(s, "accelerator"))
    if offers.empty:  # billed at the catalogue's reserved price: not priced, the bill says why
        return Change({**s, "pricing": "reserved", "price_usd_per_gpu_hour": None}, "", "",
                      "data/prices.csv")
    like = offers[offers["on_demand"].notna()]
    if like.empty:
        return _unchanged(s, "not comparable like with like: no provider states both a reserved "
                          f"and an on-demand price for {_get(s, 'accelerator')} ("
                          + ", ".join(offers["provider"]) + " list only the reserved one, "
                          "data/prices.csv)")
    d = bill(s).figures["wall_clock_days"] * 24.0
    sized = like[like["term_days"].notna()]
    if sized.empty:
        return _unchanged(s, "; ".join(_reservation_words(o, d) for o in like.itertuples())
                          + ": not applied, no term to price it on (data/prices.csv)")
    factor = [o.reserved / o.on_demand * max(o.term_days * 24.0, d) / d
              for o in sized.itertuples()]
    best = sized.iloc[int(np.argmin(factor))]
    f = min(factor)
    words = _reservation_words(best, d)
    if f >= 1:
        return _unchanged(s, f"{words}: the term costs more than it saves")
    return Change({**s, "pricing": "reserved",
                   "price_usd_per_gpu_hour": _scale(s.get("price_usd_per_gpu_hour")
                                                    or catalogue_price(_get(s, "accelerator"),
                                                                     _get(s, "pricing"))[0],
                                                    f)},
                  "committed capacity is paid when idle; a commitment outlives a cancelled run",
                  f"{words}; price × {f:.3f}, on every GPU-hour of the bill (exploration and "
                  "post-training taken to run on the same committed capacity; the term's idle "
                  "time charged over the main run's days)",
                  "data/prices.csv (reserved rows, min_term_days)",
                  "", f"reserve capacity ({best.provider}'s own discount, its term paid)")


def cheapest_provider(s: dict) -> Change:
    """The cheapest provider the catalogue lists for the scenario's accelerator and pricing mode:
    the lowest current price of ``data/prices.csv`` whose provider showed capacity when it was
    collected (``available``), in place of the price the scenario bills (its own, or the
    catalogue median it defaults to)::

        price after = price before × (cheapest buyable ÷ price before's point)

    (a range keeps its shape). Unchanged when the bill already pays that or less, for owned
    hardware, for reserved pricing (a reservation's price comes with its minimum term, which a
    list price leaves out: ``reserved_pricing`` prices one provider's reservation with its
    term), or with no buyable row. A list price of another provider: its capacity at the run's
    scale, interconnect and support are not the bill's to promise."""
    s = _clean(s)
    acc, pricing = _get(s, "accelerator"), _get(s, "pricing")
    if pricing == "owned":
        return _unchanged(s, "owned hardware: no provider to change")
    if pricing == "reserved":
        return _unchanged(s, "reserved prices come with minimum terms this lever does not price "
                          "(the reserve lever prices a provider's reservation with its term)")
    rows = list_prices(acc, pricing, current_only=True)
    rows = rows[rows["available"]]
    if rows.empty:
        return _unchanged(s, f"no buyable current {pricing} price for {acc} in data/prices.csv")
    best = rows.loc[rows["price_usd_per_gpu_hour"].idxmin()]
    given = s.get("price_usd_per_gpu_hour")
    now = resolve_price(acc, None if given is None else _point(given, "price_usd_per_gpu_hour"),
                        pricing)[0]             # what the bill pays: the scenario's or the median
    cheapest = float(best["price_usd_per_gpu_hour"])
    if cheapest >= now:
        return _unchanged(s, f"the bill's ${now:.2f}/GPU-h is already at or below the "
                          f"cheapest buyable {pricing} price for {acc} "
                          f"({best['provider']} {best['date']}, ${cheapest:.2f})")
    caveat = price_caveat(best["notes"])   # a procurement trial was offered RunPod's
    caveat = f"; {caveat}" if caveat else ""  # Community Cloud for 2,048 GPUs, no word of it
    return Change({**s, "price_usd_per_gpu_hour": _scale(given if given is not None else now,
                                                         cheapest / now)},
                  "the provider may lack the capacity for the run's GPUs at once, or the same "
                  f"interconnect, storage or support (a list price, not a quote){caveat}",
                  f"{best['provider']} {best['date']} ${cheapest:.2f}/GPU-h, the cheapest of "
                  f"{len(rows)} buyable current {pricing} price(s) for {acc}, against "
                  f"${now:.2f}", f"data/prices.csv ({best['provider']}: {best['source']})", "",
                  f"the cheapest listed provider ({best['provider']}, ${cheapest:.2f}/GPU-h"
                  f"{caveat})")


def spot_offers(accelerator: str) -> pd.DataFrame:
    """The current spot prices of ``accelerator`` (data/prices.csv) set beside the **same
    provider's** on-demand price, like with like (as ``reservation_offers``): the provider's
    current on-demand row of the catalogue, else the on-demand price the spot row's own source
    states (``same_provider_on_demand_usd``; CoreWeave's pricing page lists each HGX node's
    on-demand and spot rates side by side: A100 80GB $21.60/h and $9.65/h per 8 GPUs). Columns
    ``provider``, ``spot``, ``on_demand`` (NaN when no figure of that provider is sourced),
    ``discount`` = 1 − spot ÷ on_demand, ``source``.

    Raises
    ------
    ValueError
        An accelerator the catalogue does not hold, naming it.
    """
    return _own_provider_offers(accelerator, "spot")[
        ["provider", "spot", "on_demand", "discount", "source"]]


def _spot_rate(s: dict) -> dict:
    """The price the spot levers bill, and how it is taken. On demand, where some current spot
    row's provider states its own on-demand price (``spot_offers``), the discount is taken
    within one provider and applied to the bill's price (the scenario's, or the catalogue's
    on-demand median):

        price after = price before × median_i(spot_i ÷ on-demand_i)   (i: those providers)

    (CoreWeave A100 80GB: $1.21 ÷ $2.70 = 0.447 of the bill's price, 55% off, not the 61%
    that $1.21 against other providers' on-demand median $3.11 would claim). Otherwise (no
    such provider, or a reserved or owned bill) the catalogue's median spot price, the words
    saying what it is compared with. Keys ``price`` (a number or a range; None when the
    catalogue has no spot price: the bill then says why), ``point``, ``name`` (what the
    discount rests on) and ``words``."""
    acc, pricing = _get(s, "accelerator"), _get(s, "pricing")
    given = s.get("price_usd_per_gpu_hour")
    try:
        now = resolve_price(acc, None if given is None else
                            _point(given, "price_usd_per_gpu_hour"), pricing)[0]
    except ScenarioError:
        now = None
    offers = spot_offers(acc)
    like = offers[offers["on_demand"].notna()]
    if pricing == "on_demand" and not like.empty and now is not None:
        f = float((like["spot"] / like["on_demand"]).median())
        each = ", ".join(f"{o.provider}'s spot ${o.spot:.2f} against its own on-demand "
                         f"${o.on_demand:.2f} ({o.discount:.0%} off)" for o in like.itertuples())
        return {"price": _scale(given if given is not None else now, f), "point": now * f,
                "name": (f"{like.iloc[0].provider}'s own spot discount" if len(like) == 1
                         else "each provider's own spot discount, their median"),
                "words": (f"{each}{'; their median ratio' if len(like) > 1 else ''} applied "
                          f"to the bill's ${now:.2f}: ${now * f:.2f}/GPU-h (a discount "
                          "within one provider, data/prices.csv)")}
    try:
        p_spot, where = resolve_price(acc, None, "spot")
    except ScenarioError:
        return {"price": None, "point": None, "name": "", "words": ""}
    vs = f"the bill's {pricing} ${now:.2f}" if now is not None else "the bill's price"
    within = pricing == "on_demand"
    return {"price": p_spot, "point": p_spot,
            "name": "across providers" if within else "the catalogue's median spot price",
            "words": (f"the catalogue's median spot price ${p_spot:.2f}/GPU-h ({where}) "
                      f"against {vs}"
                      + (": compared across providers, no spot row of the catalogue states its "
                         "own provider's on-demand price (data/prices.csv)" if within else ""))}


def spot_pricing(s: dict) -> Change:
    """Spot (pre-emptible) capacity with resumable training: the ledger's spot model
    (pre-emptions added to failures, a longer restart) at ``_spot_rate``'s price: the bill's
    price × a provider's own spot ÷ on-demand ratio where the catalogue has one, else the
    catalogue median spot price, said to compare across providers."""
    return _spot_changes(s)[0]


def spot_without_checkpoints(s: dict) -> Change:
    """Spot capacity without resumable training: a pre-emption restarts the job from scratch
    (at ``spot_pricing``'s price)."""
    return _spot_changes(s)[1]


def no_spot_price_words(accelerator: str) -> str:
    """Why a spot lever is not priced: the catalogue (data/prices.csv) has no current spot
    price for ``accelerator``."""
    return (f"not priced: data/prices.csv has no current spot price for "
            f"{load_accelerator(accelerator).name}, so there is no spot rate to compare with")


def _spot_needs_rate(s: dict, offer: dict | None) -> bool:
    """Whether the spot levers of ``s`` wait for the user's pre-emption rate: a catalogue spot
    price ``offer`` (``_spot_rate``; None when ``s`` is already spot) exists, and the scenario
    gives no ``ledger_spot_preemptions_per_node_day`` (``SPOT_LEVER_NEEDS_RATE``: no default
    rate is sourced)."""
    return offer is not None and offer["price"] is not None and \
        _get(s, "ledger_spot_preemptions_per_node_day") is None


def _spot_changes(s: dict) -> tuple:
    """``(spot_pricing, spot_without_checkpoints, _spot_rate)`` of ``s``, the rate taken once
    (None, with both changes unchanged, when ``s`` is already spot)."""
    s = _clean(s)
    rate = None if _get(s, "pricing") == "spot" else _spot_rate(s)
    words = f"; {rate['words']}" if rate and rate["words"] else ""
    c = _unchanged(s, "already spot") if rate is None else Change(
        {**s, "pricing": "spot", "price_usd_per_gpu_hour": rate["price"],
         "ledger_resumable": True},
        "pre-emptions lengthen the run; capacity may not come back for days",
        "the scenario's ledger_spot_preemptions_per_node_day and ledger_spot_restart_s (else "
        "ckpt_restart_s)" + words,
        "llmcost.ledger spot model; data/prices.csv",
        # no catalogue spot price, or no pre-emption rate: the bill cannot price it, and the
        # note says why plainly
        no_spot_price_words(_get(s, "accelerator")) if rate["price"] is None else
        f"not priced: {SPOT_LEVER_NEEDS_RATE}" if _spot_needs_rate(s, rate) else "",
        f"spot capacity with checkpoints ({rate['name']})" if rate["name"] else "")
    return c, Change({**c.after, "ledger_resumable": False},
                     "every pre-emption throws away the whole run so far",
                     "expected wall time M·(e^{T/M} − 1) (Daly's model, one segment)" + words,
                     "llmcost.reliability.expected_wall_time_s", c.note,
                     c.name.replace("with checkpoints", "without checkpoints")), rate


# ---- hardware
#: Where an owned GPU-hour's price comes from (no catalogue row: the ledger amortises a purchase).
OWNED_PRICE_SOURCE = ("owned: purchase price amortised with energy (llmcost.pricing."
                      "owned_usd_per_gpu_hour, ledger_owned_usd_per_gpu)")


#: Accelerators of one architecture that ``accuracy.gpu_generation`` names one by one: AMD's
#: Instinct MI325X is the MI300X's CDNA 3 architecture with HBM3E (AMD Instinct MI325X
#: accelerator page and data sheet, https://www.amd.com/en/products/accelerators/instinct/mi300/
#: mi325x.html: "AMD CDNA 3 architecture").
_ARCHITECTURES = {"MI300X": "CDNA 3", "MI325X": "CDNA 3"}


def _generation(name: str) -> str:
    """An accelerator's architecture: ``_ARCHITECTURES``, else ``accuracy.gpu_generation``."""
    return _ARCHITECTURES.get(name, gpu_generation(name))


def _same_generation(a_name: str, b_name: str) -> bool:
    """Whether two accelerators share a GPU generation and vendor (``hardware_change``'s rule):
    the same kernels and software stack."""
    a, b = load_accelerator(a_name), load_accelerator(b_name)
    return a.vendor == b.vendor and _generation(a.name) == _generation(b.name)


def hardware_change(before: str, after: str) -> str:
    """What moving from accelerator ``before`` to ``after`` risks, by what changes: the same
    GPU generation (``accuracy.gpu_generation``: H100, H800 and H200 are all Hopper; B200 and
    GB200 Blackwell) keeps the kernels and the software stack; another generation of the same
    vendor (``vendor`` of data/accelerators.csv) re-tunes them; another vendor ports to its
    stack (CUDA to ROCm, XLA or SynapseAI). Capacity must be found in every case."""
    a, b = load_accelerator(before), load_accelerator(after)
    gen = _generation(a.name)
    if _same_generation(a.name, b.name):
        dom_a, dom_b = a.scaleup_domain_size or 1, b.scaleup_domain_size or 1
        system = ("" if dom_a == dom_b else
                  f"; another system: {'an' if str(dom_b).startswith('8') else 'a'} "
                  f"{dom_b}-GPU scale-up domain ({dom_a} before) changes the plan, and its hosts "
                  "may differ (GB200 and GB300 pair the GPUs with Grace, Arm CPUs)")
        return (f"the same generation ({gen}), so the same kernels and software stack; "
                "the capacity still to be found, and a plan re-validated for the other memory "
                f"and links{system}")
    if a.vendor == b.vendor:
        return (f"another {a.vendor} generation ({a.name} → {b.name}), kernels and the software "
                "stack re-tuned; the capacity still to be found")
    return (f"another vendor ({a.vendor} → {b.vendor}), porting to a new software stack; "
            "the capacity still to be found")


def _move_price_words(s: dict, target: str, after: dict) -> tuple:
    """(name suffix, assumption, the saving rests on the prices alone) of ``move_to``'s price
    basis. Before: the scenario's own
    price, or the catalogue median of its pricing mode; after (``after``): the target at its
    catalogue median for the same mode, the price ``hardware_sweep`` gives it (one price per
    accelerator on a page). When the scenario's catalogue rows of its mode lie above its
    on-demand median (``checks.catalogue_price_warning``: often short-term prepaid blocks, not
    a long-term discount), the bill prices it at that on-demand median
    (``core.catalog.discount_price_cap``) while the target may have a true discount: the name
    says so and gives the other question's answer, the move at both accelerators' on-demand
    medians,

        S_od = B(scenario at on-demand median) − B(after at on-demand median),

    so the reader sees both without a price nobody pays (a trial: a "like for like" target
    price, on-demand median × the scenario's premium, $11.44 for H100 against B200's AWS
    Capacity Block $14.21, contradicted the $2.72 H100 of the hardware table on the same page).
    Without an on-demand median for either, the flag alone is said. With the scenario's own
    price (a quote), the move is also said at both accelerators' catalogue medians of the
    scenario's mode, S_cat = B(scenario at its catalogue median) − B(after): a trial's $2.30
    H100 quote set against H200's $5.15 catalogue median read "move to H200: −98.8%", the
    sweep having ranked H200 first at catalogue prices on both sides."""
    acc = _get(s, "accelerator")
    own = _get(s, "price_usd_per_gpu_hour")
    if own is not None:
        mode, plain = _get(s, "pricing"), ("", f"; before: the scenario's own price for {acc}",
                                            False)
        if mode == "owned":   # no catalogue median of owned hardware to set beside it
            return plain
        try:
            here, there = (catalogue_price(a, mode)[0] for a in (acc, target))
            s_cat = bill({**s, "price_usd_per_gpu_hour": None}).total_usd - \
                bill(after).total_usd
        except ValueError:   # no catalogue price of the mode for one of the two
            return plain
        verdict = f"saves {fmt_usd(s_cat)}" if s_cat >= 0 else f"costs {fmt_usd(-s_cat)} more"
        return "", (f"; before: the scenario's own price for {acc}, after: {target}'s catalogue "
                    f"{mode} median; at both catalogue {mode} medians, ${here:.2f} and "
                    f"${there:.2f}/GPU-h, the move {verdict}: a quote for {target} at your "
                    f"discount on {acc} decides it"), False
    if _get(s, "pricing") == "owned" or not catalogue_price_warning(s):
        return "", f"; before: {acc} on the same basis", False
    mode = _get(s, "pricing")
    price, there = (catalogue_price(a, mode)[0] for a in (acc, target))
    flagged = (f" (at {target}'s catalogue {mode} median ${there:.2f}/GPU-h, against {acc}'s "
               f"{mode} price ${price:.2f}/GPU-h, its on-demand median: its {mode} catalogue "
               "rows lie above it")
    od = {"pricing": "on_demand", "price_usd_per_gpu_hour": None}
    try:
        od_here, od_there = (catalogue_price(a, "on_demand")[0] for a in (acc, target))
        s_od = bill({**s, **od}).total_usd - bill({**after, **od}).total_usd
    except ValueError:  # no on-demand catalogue price for one of the two (a ScenarioError)
        return flagged + ")", f"; before: {acc} at a flagged catalogue price", False
    verdict = (f"saves {fmt_usd(s_od)} too" if s_od >= 0 else
               f"costs {fmt_usd(-s_od)} more: the saving rests on {acc}'s flagged price; get "
               "a quote for it first")
    return (flagged + f"; at both on-demand medians, ${od_here:.2f} and ${od_there:.2f}, the "
            f"move {verdict})",
            f"; before: {acc} at a flagged catalogue price", s_od < 0)


def move_to(s: dict, accelerator: str) -> Change:
    """Run on ``accelerator`` at its catalogue median price for the scenario's pricing mode
    (the price of its ``hardware_sweep`` row) and the step-time model's predicted MFU change,
    central(after) ÷ central(before), each the prediction's central estimate
    (``central_prediction``; the plan as ``kept_plan`` rules: a fixed plan kept where it fits
    that hardware, else re-chosen for it, the words saying so; when a pilot set the scenario's
    MFU, the central estimate itself: a pilot calibrates its own hardware). The risk depends
    on what changes (``hardware_change``); the price basis on both sides is said
    (``_move_price_words``), a flagged catalogue price of the scenario's in the lever's name
    with the move at both on-demand medians."""
    s = _clean(s)
    name = load_accelerator(accelerator).name
    if name == _get(s, "accelerator"):
        return _unchanged(s, "the scenario's own accelerator")
    theirs = on_hardware(s, name)
    plan = kept_plan(s, {"accelerator": name, **fp8_recipe_on(s, name)})[1]
    fallback = _reserved_fallback_price(theirs, name)   # its hardware_sweep row's price
    if fallback is not None:
        theirs = {**theirs, "price_usd_per_gpu_hour": fallback}
    m = _get(s, "mfu")
    pred = central_prediction(theirs)[3]
    ratio = pred / central_prediction(s)[3]
    where = OWNED_PRICE_SOURCE if _get(s, "pricing") == "owned" else \
        f"{RESERVED_FALLBACK_BASIS}, {catalogue_price(name, 'on_demand')[1]}" \
        if fallback is not None else catalogue_price(name, _get(s, "pricing"))[1]
    if "_mfu_pilot" in s:  # the pilots measured their own hardware: elsewhere, the prediction
        after = {**_with_phase_mfus_scaled(theirs, float(ratio)), "mfu": float(pred)}
        how = (f"MFU the central estimate of the step-time model's prediction on {name}, "
               f"{pred:.1%}, uncalibrated (the pilots ran on {_get(s, 'accelerator')})")
    else:
        after = {**_with_phase_mfus_scaled(theirs, float(ratio)), "mfu": _scale(m, float(ratio))}
        how = (f"MFU scaled by the ratio {ratio:.2f} of the step-time model's predictions "
               "(each at its central estimate; a phase's own MFU too)")
    if fp8_recipe_on(s, name):
        how += f"; {MXFP8_OFF_BLACKWELL_WORDS}"
    suffix, before, basis_only = _move_price_words(s, name, after) if fallback is None else (
        f" (at {name}'s on-demand median, the most a reserved buyer pays: a high side)",
        f"; before: {_get(s, 'accelerator')} at {_sweep_price_basis(s, _get(s, 'accelerator'))}",
        False)
    return Change(after, hardware_change(_get(s, "accelerator"), name)
                  + _owned_purchase_words(s, after, name),
                  f"{how}; plan: {plan}; price: {where}"
                  + before, "llmcost.step; data/prices.csv; data/accelerators.csv",
                  name=f"move to {name}{suffix}" if suffix else "",
                  price_basis_only=basis_only)


def _owned_purchase_words(s: dict, after: dict, name: str) -> str:
    """"; on owned hardware the move buys ..." for ``move_to`` on ``pricing: owned``: the
    bill charges an owned GPU-hour its share of the cluster's value lost
    (``pricing.owned_usd_per_gpu_hour``), so the move's saving compares hours, while a team
    that owns its GPUs buys the new cluster, n × P × s ÷ (1 − i) (P the purchase price, s the
    server multiplier, i the interconnect share, as ``owned_usd_per_gpu_hour`` counts it; a
    trial's owned A100 bill led with "move to H100" and no word of a purchase). "" otherwise."""
    if _get(s, "pricing") != "owned" or s.get("price_usd_per_gpu_hour") is not None:
        return ""
    n = int(_point(_get(after, "n_gpus"), "n_gpus"))
    price = {**after, **purchase_price_on(after, name)}.get("ledger_owned_usd_per_gpu")
    try:
        cluster = n * float(owned_usd_per_gpu_hour(load_accelerator(name), _point(
            price, "ledger_owned_usd_per_gpu"))["cluster_usd_per_gpu"])
    except ValueError:
        return (f"; on owned hardware the move buys {with_article(f'{n:,}')}-GPU {name} "
                "cluster, whose "
                "purchase price the catalogue does not hold")
    return (f"; on owned hardware the move buys {with_article(f'{n:,}')}-GPU {name} "
            "cluster (servers and "
            f"network), {fmt_usd(cluster)} up front: the bill charges the hours' share of its "
            f"value, as it does of the {_get(s, 'accelerator')} cluster already owned")


#: The scenario → scenario levers, in the order the notebook teaches them:
#: key -> (name, group, function).
LEVERS = {
    "fix_data_loading": ("fix data-loader stalls", "waste", fix_data_loading),
    "release_failed_allocations": ("release failed jobs' GPUs", "waste",
                                   release_failed_allocations),
    "kill_forgotten_debug_jobs": ("reap forgotten debug jobs", "waste", kill_forgotten_debug_jobs),
    "dedupe_datasets": ("delete duplicate dataset copies", "waste", dedupe_datasets),
    "clean_checkpoints": ("clean old checkpoints", "waste", clean_checkpoints),
    "raise_mfu": ("raise MFU to the best published", "utilisation", raise_mfu),
    "fp8_training": ("train in FP8", "utilisation", fp8_training),
    "activation_recompute": ("the least recomputation that fits half the GPUs", "utilisation",
                             _recompute_on_half),
    "best_plan": ("the fastest ranked parallel plan", "plan", best_plan),
    "newer_stack": ("the newest training stack for this hardware", "plan", newer_stack),
    "pipeline_free_gpus": ("a GPU count without a pipeline", "plan",
                           pipeline_free_gpus),
    "resumable_training": ("make training resumable", "checkpoints", resumable_training),
    "optimal_checkpoint_interval": ("checkpoint at the optimum interval", "checkpoints",
                                    optimal_checkpoint_interval),
    "async_checkpoints": ("asynchronous checkpoints", "checkpoints", async_checkpoints),
    "shorter_retention": ("keep milestone checkpoints 3 months", "checkpoints",
                          shorter_retention),
    "reserved_pricing": ("reserve capacity for the run", "pricing", reserved_pricing),
    "cheapest_provider": ("the cheapest listed provider", "pricing", cheapest_provider),
    "spot_pricing": ("spot capacity with checkpoints", "pricing", spot_pricing),
    "rl_partial_rollouts": ("partial rollouts in RL post-training", "RL", rl_partial_rollouts),
    "rl_fp8_rollouts": ("FP8 rollouts in RL post-training", "RL", rl_fp8_rollouts),
}


def _lever_keys(keys) -> list:
    """``keys``: a list of names in ``LEVERS`` (a single string is refused: it is not a list)."""
    if isinstance(keys, str) or not isinstance(keys, (list, tuple)):
        raise ValueError(f"keys={keys!r} must be a list of lever names ({', '.join(LEVERS)})")
    for k in keys:
        if not isinstance(k, str) or k not in LEVERS:
            raise ValueError(f"keys: lever {k!r} must be one of {', '.join(LEVERS)}")
    return list(keys)


def apply_levers(scenario: dict, keys) -> dict:
    """The scenario with the ``LEVERS`` named in ``keys`` applied in order (each to the result
    of the previous): what the notebook's Explore toggles price."""
    s = _clean(scenario)
    for k in _lever_keys(keys):
        s = LEVERS[k][2](s).after
    return s


@disk_cached  # the same for every call with these arguments: core.diskcache
def rank_levers(scenario: dict, keys=None, samples: int = 20_000, seed: int = 0, sweep=None):
    """Every lever (``LEVERS``, plus ``spot_for_ablations`` and the cheapest *rankable*
    accelerator of ``hardware_sweep``: a buyable price and an MFU no higher than published) priced on the scenario by ``price_lever`` (saving = B(before) −
    B(after), per draw when the scenario has ranges), largest point saving first, a saving that
    rests on the prices' bases alone (``price_basis_only``) after every priced one.

    Returns
    -------
    DataFrame of ``LeverResult.row()``; ``attrs['bill_usd']`` the scenario's bill. A lever that
    cannot be built on this scenario (e.g. its plan does not fit) is listed with its reason in
    ``note`` and a saving of NaN. ``sweep``: a ``hardware_sweep(scenario)`` already computed.
    """
    keys = None if keys is None else _lever_keys(keys)
    samples, seed = _draw_args(samples, seed)
    if sweep is not None:
        _frame(sweep, "sweep", ("rankable", "bill_calibrated_usd", "accelerator"))
    base = bill(scenario)
    rows = []
    for k in (keys or LEVERS):
        name, group, fn = LEVERS[k]
        try:
            rows.append(price_lever(k, name, group, scenario, fn(scenario), samples, seed,
                                    base).row())
        except (ScenarioError, ValueError) as e:
            rows.append({"lever": name, "group": group, "saving_usd": float("nan"),
                         "note": f"not priced: {e}", "beyond_line": "", "key": k})
    if keys is None:
        rows.append(spot_for_ablations(scenario, before_bill=base, samples=samples,
                                       seed=seed).row())
        sweep = hardware_sweep(scenario) if sweep is None else sweep
        best = sweep[sweep["rankable"]].sort_values("bill_calibrated_usd").head(1)
        if len(best):
            acc = best.iloc[0]["accelerator"]
            rows.append(price_lever("move_to", f"move to {acc}", "hardware", scenario,
                                    move_to(scenario, acc), samples, seed, base).row())
    df = pd.DataFrame(_same_saving_notes(rows))
    df["price_basis_only"] = df.get("price_basis_only", False)
    df["price_basis_only"] = df["price_basis_only"].fillna(False).astype(bool)
    # a saving that rests on the prices' bases alone (a move that costs more at both on-demand
    # medians) goes last: listed with its words, never the headline lever
    df = df.assign(_key=df["saving_usd"].where(~df["price_basis_only"], -np.inf)).sort_values(
        ["_key", "saving_usd"], ascending=False, na_position="last").drop(columns="_key")
    df.attrs["bill_usd"] = base.total_usd
    return df.reset_index(drop=True)


def _same_saving_notes(rows: list) -> list:
    """``rank_levers``' rows with a note on each positive saving another lever equals (to 1e-9
    relative): "same saving as 'the fastest ranked parallel plan': ...", with the reason when it
    is the published ceiling (``_capped_at_published``'s "MFU capped at" in a lever's
    assumptions: that lever's MFU stops at the best published run, the figure "raise MFU"
    raises it to, so both bill the same run); else that the two changes bill the same run."""
    out = [dict(r) for r in rows]
    for r in out:
        x = r.get("saving_usd")
        if not (isinstance(x, float) and math.isfinite(x) and x > 0):
            continue
        same = [q for q in out if q is not r and isinstance(q.get("saving_usd"), float)
                and math.isclose(q["saving_usd"], x, rel_tol=1e-9)]
        if not same:
            continue
        group = [r, *same]
        capped = [q for q in group if "MFU capped at" in str(q.get("assumptions", ""))]
        why = "the changes bill the same run"
        if capped:
            why = f"{capped[0]['lever']!r} is capped at the best published MFU of this hardware"
            if any(q.get("key") == "raise_mfu" for q in group):
                why += ", the target 'raise MFU' raises it to: both bill that MFU"
        said = (f"same saving as {', '.join(repr(q['lever']) for q in same)}: {why}")
        r["note"] = f"{r['note']}; {said}" if r.get("note") else said
    return out


def top_levers(ranked, n: int = 3):
    """The ``n`` levers with the largest positive saving (what to do first), leaving out a saving
    that rests on the prices' bases alone (``price_basis_only``: a move that costs more at both
    on-demand medians; listed in the ranking, never a lever to do first). None left: an empty
    table whose ``attrs['note']`` says why."""
    _frame(ranked, "ranked", ("saving_usd",))
    n = int(as_scalar(n, "n", positive=True, integer=True))
    keep = ranked["saving_usd"] > 0
    basis_only = ranked["price_basis_only"].fillna(False).astype(bool) \
        if "price_basis_only" in ranked else pd.Series(False, index=ranked.index)
    top = ranked[keep & ~basis_only].head(n)
    if top.empty:
        top.attrs["note"] = (f"no lever saves money on this bill: of the {len(ranked)} priced, "
                             f"{int((~keep).sum())} cost as much or more than they save"
                             + (f" and {int((keep & basis_only).sum())} save only on the prices' "
                                "bases (more at both on-demand medians)"
                                if (keep & basis_only).any() else ""))
    return top


def mark_outside(ranked: pd.DataFrame) -> pd.DataFrame:
    """``ranked`` (``rank_levers``' columns ``lever``, ``saving_usd``, ``saving_p10_usd``,
    ``saving_p90_usd``) with "*" after a lever's name where its point saving lies outside its
    own P10–P90 (``ledger.point_outside``, the rule the bill's lines are marked by: a trial read
    FP8's $1,762,482 beside a P10 of $1,783,369, unmarked); ``attrs['outside']`` how many, and
    ``attrs['note']`` the footnote (``ledger.OUTSIDE_NOTE``) when any. A saving that is not a
    finite amount (not priced, never finishes) is not marked."""
    _frame(ranked, "ranked", ("lever", "saving_usd", "saving_p10_usd", "saving_p90_usd"))
    out = ranked.copy()
    marks = [all(np.isfinite(float(v)) for v in (r.saving_usd, r.saving_p10_usd, r.saving_p90_usd))
             and point_outside(float(r.saving_usd), float(r.saving_p10_usd),
                               float(r.saving_p90_usd), printed=_whole_dollars)
             for r in out.itertuples()]
    out["lever"] = [f"{name}*" if m else name for name, m in zip(out["lever"], marks)]
    out.attrs["outside"] = int(sum(marks))
    out.attrs["note"] = f"* {OUTSIDE_NOTE}" if any(marks) else ""
    return out


def _whole_dollars(usd: float) -> float:
    """An amount as ``format_saving`` prints it in the levers' table: to the dollar."""
    return float(f"{usd:.0f}")


# ------------------------------------------------------------------------------ composite levers
def spot_for_ablations(scenario: dict, ablation_gpus: int = 64, before_bill: Ledger | None = None,
                       samples: int = 20_000, seed: int = 0) -> LeverResult:
    """Run the exploratory and ablation runs on spot capacity (with checkpoints), keep the final
    run on the scenario's pricing.

    The exploratory line's GPU-hours H are small jobs of ``ablation_gpus`` GPUs; on spot each
    costs the spot price p_s ÷ the spot goodput g_s of such a job (``build_ledger`` of the scenario
    at ``pricing: spot`` on ``ablation_gpus`` GPUs: its price and goodput). The exploratory line
    is priced as a multiple of the final run's paid GPU-hours at the scenario's rate p; those
    hours are taken as the ablations' ideal ones (an approximation: they already carry the large
    job's failure overhead, a few percent, which g_s counts again for the small jobs), so

        saving = H·p − H·p_s / g_s                        (H·p = the exploratory line)

    With ranges, per draw of ``simulate_ledger`` (``samples``, ``seed``: ``rank_levers``'s, so
    the row is on the other levers' draws)."""
    g = validate_parameter("n_gpus", int(_scalar(ablation_gpus, "ablation_gpus", positive=True,
                                                 integer=True)))
    samples = int(_scalar(samples, "samples", positive=True, integer=True))
    seed = int(_scalar(seed, "seed", nonnegative=True, integer=True))
    s = _clean(scenario)
    b = _bill_arg(before_bill, "before_bill") if before_bill is not None else bill(s)
    risk = "ablations pre-empted and restarted; results later"
    assume = (f"exploratory runs as {g}-GPU jobs with checkpoints, priced at the spot lever's "
              "price and the spot goodput of the ledger's failure model")
    if _get(s, "pricing") == "spot":
        return LeverResult("spot_for_ablations", "spot capacity for ablations", "pricing",
                           b.total_usd, b.total_usd, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, risk,
                           assume, note="already spot")
    offer = _spot_rate(s)
    if offer["point"] is None:
        return LeverResult("spot_for_ablations", "spot capacity for ablations", "pricing",
                           b.total_usd, None, float("nan"), float("nan"), float("nan"),
                           float("nan"), 0.0, 0.0, float("nan"), risk, assume,
                           note=no_spot_price_words(_get(s, "accelerator")))
    try:
        spot = build_ledger({**ledger_scenario(s), "pricing": "spot",
                             "price_usd_per_gpu_hour": offer["point"], "n_gpus": g,
                             "ledger_resumable": True})
    except ScenarioError as e:
        return LeverResult("spot_for_ablations", "spot capacity for ablations", "pricing",
                           b.total_usd, None, float("nan"), float("nan"), float("nan"),
                           float("nan"), 0.0, 0.0, float("nan"), risk, assume,
                           note=f"not priced: {e}")
    line = b.line("compute.exploratory").usd
    rate = b.figures["price_usd_per_gpu_hour"]
    h = line / rate if rate else 0.0
    per_h = spot.figures["price_usd_per_gpu_hour"] / spot.figures["goodput"]
    saving = line - h * per_h
    p10 = p50 = p90 = saving
    ranged = has_ranges(s)
    if ranged:  # per draw: the exploratory line's draws, repriced at spot
        d = simulate_ledger(ledger_scenario(s), samples=samples, seed=seed)
        x = np.asarray(d.line_usd["compute.exploratory"], dtype=float)
        r = np.asarray(d.inputs.get("price_usd_per_gpu_hour", rate), dtype=float)
        p10, p50, p90 = (float(v) for v in np.percentile(x - x / r * per_h, PERCENTILES))
    return LeverResult("spot_for_ablations", "spot capacity for ablations", "pricing",
                       b.total_usd, b.total_usd - saving, saving, p10, p50, p90,
                       h - h / spot.figures["goodput"], 0.0, saving / b.total_usd, risk,
                       assume + f" (${spot.figures['price_usd_per_gpu_hour']:.2f}/GPU-h, goodput "
                       f"{spot.figures['goodput']:.1%})" + (f"; {offer['words']}"
                                                             if offer["words"] else ""),
                       "llmcost.ledger spot model; data/prices.csv",
                       ranged=ranged)


@disk_cached  # the same for every call with these arguments: core.diskcache
def hardware_sweep(scenario: dict):
    """The cheapest hardware for this run: each catalogue accelerator with the figures the
    step-time model needs and a catalogue price for the scenario's pricing mode, priced by the
    bill (GPU-hours = F / (peak × MFU) ÷ goodput, × the price, plus every other line) at
    **the central estimate of its predicted MFU** (``llmcost.step``; a fixed plan kept where
    it fits, else chosen for the hardware, and the RL rollout TP: ``on_hardware``; when pilots
    set the scenario's MFU, its prediction is the step model calibrated on them) and the catalogue
    median price, with the MFU band of ``accuracy.band_for_step`` carried to the bill (band
    high → bill low). The central estimate is the figure a ``mfu: predict`` bill uses
    (``accuracy.central_mfu``: the prediction p ÷ (1 + c), c the median held-out error of that
    hardware's regime (shrunk toward 0 below 9 runs), kept inside its band; p itself where the regime has no held-out run), so
    that every row, and the scenario's own bill, is priced on one rule: a like-for-like
    comparison (a raw prediction in a regime where the model runs fast would win by its error).
    Every row is priced on one basis, the catalogue median for the scenario's pricing mode; when
    the scenario gives its own price, its accelerator has a second row at that price (the bill's),
    so a comparison is like for like. ``price_basis`` says which price each row uses.
    ``bill_calibrated_usd`` prices the same hardware at the scenario's MFU × the predicted ratio
    (``move_to``): calibrated MFU = m_scenario × central(hw) / central(own), both the central
    estimate of a prediction (``central_prediction``: one rule on both sides); a pilot's MFU
    (``pilot.without_pilot``) is carried so to its generation only (``_same_generation``: same
    kernels and software), another's is its central estimate, uncalibrated (``mfu_basis``).

    Two checks decide whether a row may be **ranked as a saving** (``rankable``; ``rank_levers``
    moves only to the cheapest rankable row):

    - ``price_available``: every catalogue row behind the median price is buyable (the
      ``available`` column of ``data/prices.csv``; a price listed as "not available" at collection
      is a price nobody can pay). ``price_source`` names the rows, providers and dates.
    - ``mfu_check``: the calibrated MFU is at or below the best published MFU comparable to the
      run on that hardware (``accuracy.comparable_published_mfu``: its generation, MoE or dense,
      total parameters within 4×, the dtype's runs; ``mfu_ceiling``, on the row's dtype basis as
      ``calibrated_mfu`` is, the text giving the BF16 basis too). Above it, or with no published run to
      check against, the row is shown but flagged: the step-time model's ratio extrapolated past
      anything measured.

    Returns
    -------
    DataFrame: ``accelerator``, ``predicted_mfu`` (the raw prediction, on the dtype's dense
    peak, uncalibrated even on a pilot's hardware), ``mfu`` (the MFU ``bill_usd`` and ``days``
    use: the prediction's central estimate; on the pilots' own hardware, their calibration),
    ``billed_mfu_basis`` (which of the two, ``BILLED_MFU_BASES``; the pilots' naming their
    accelerator), ``band_low``, ``band_high``, ``price_basis``, ``price_usd_per_gpu_hour``,
    ``bill_usd``, ``bill_low_usd``, ``bill_high_usd``, ``bill_calibrated_usd``, ``days`` (main
    run at ``mfu``), ``scenario`` (True for the scenario's accelerator), ``plan``, ``plan_basis``,
    ``rollout_tp`` (the RL rollout TP billed on that hardware, ``on_hardware``; None without an
    RL campaign), ``calibrated_mfu``, ``mfu_basis`` (the basis of ``calibrated_mfu``),
    ``mfu_ceiling``, ``mfu_check``, ``price_available``, ``price_source``, ``rankable``,
    cheapest first; ``attrs['skipped']`` lists the accelerators left out and why.

    Raises
    ------
    ValueError
        If no accelerator of the catalogue can run the scenario (the reasons are listed).
    """

    s = _clean(scenario)
    model = load_model(_get(s, "model"))
    own = central_prediction(s, model)[3]
    m = float(_point(_get(s, "mfu")))
    rows, skipped = [], []
    for acc in list_accelerators()["name"]:
        if acc.startswith("Teaching"):
            continue
        try:
            rows.append(_sweep_row(s, acc, model, own, m))
        except (ScenarioError, ValueError) as e:  # the whole first clause: never cut mid-word
            skipped.append((acc, str(e).split("; ")[0]))
            continue
        if rows[-1]["scenario"] and rows[-1]["price_basis"] == "the scenario's price":
            try:  # the like-for-like row: the scenario's accelerator at the catalogue price
                rows.append(_sweep_row(s, acc, model, own, m, at_catalogue=True))
            except (ScenarioError, ValueError) as e:
                skipped.append((f"{acc} at the catalogue price", str(e).split("; ")[0]))
    if not rows:
        raise ValueError("hardware_sweep: no catalogue accelerator can run this scenario: "
                         + "; ".join(f"{a}: {r}" for a, r in skipped))
    df = pd.DataFrame(rows).sort_values("bill_usd").reset_index(drop=True)
    df.attrs["skipped"] = skipped
    df.attrs["pricing"] = _get(s, "pricing")
    return df


def hardware_headline(sweep) -> dict:
    """The report's hardware figure from a ``hardware_sweep`` table: the cheapest of the
    scenario's own accelerator at the bill's price (its row at ``the scenario's price`` when it
    gives one, else its catalogue or owned row) and the *rankable* rows of other hardware, each
    at its ``bill_calibrated_usd``; the note gives the other side of that comparison (the
    scenario's hardware or the cheapest rankable alternative, with its price basis) and names
    every accelerator the sweep left out with its reason (``_left_out_words``), so the scenario's
    own bill is always in the comparison. When the scenario's own row was left out and no other
    row is rankable, there is nothing to compare: the label says so and ``usd`` is NaN.

    Returns
    -------
    dict with ``label``, ``usd`` and ``note``.
    """
    df = _frame(sweep, "sweep", ("accelerator", "scenario", "rankable", "bill_calibrated_usd",
                                 "price_basis", "price_usd_per_gpu_hour", "price_source"))
    mine = df[df["scenario"]]
    own = mine[mine["price_basis"] == "the scenario's price"]
    own = (own if len(own) else mine).head(1)
    alt = df[df["rankable"] & ~df["scenario"]].sort_values("bill_calibrated_usd").head(1)
    words, left = [], _left_out_words(df.attrs.get("skipped", []))
    if not len(own) and not len(alt):
        return {"label": "no hardware to compare", "usd": float("nan"),
                "note": "the scenario's accelerator was left out and no other accelerator is "
                        "rankable (buyable price, MFU within a published run)"
                        + (f"; left out: {left}" if left else "")}
    if len(own):
        o = own.iloc[0]
        own_words = (f"{o['accelerator']} (this scenario) at {o['price_basis']}, "
                     f"${o['price_usd_per_gpu_hour']:.2f}/GPU-h: "
                     f"{fmt_usd(o['bill_calibrated_usd'])}")
    if len(alt):
        a = alt.iloc[0]
        where = a["price_source"]   # whole: a cut at 80, then 240, fell mid-list in two trials
        alt_words = (f"cheapest rankable alternative {a['accelerator']} at the {a['price_basis']} "
                     f"price: {fmt_usd(a['bill_calibrated_usd'])} ({where})")
        if len(own):   # two medians of different providers (a procurement trial read the
            alt_words += _same_provider_words(own.iloc[0], a, df.attrs.get("pricing"))
    if len(own) and (not len(alt) or o["bill_calibrated_usd"] <= a["bill_calibrated_usd"]):
        label, usd = f"cheapest hardware: {o['accelerator']} (this scenario)", o[
            "bill_calibrated_usd"]
        words.append(own_words)
        words.append(alt_words if len(alt) else "no rankable alternative (buyable price, MFU "
                     "within a published run)")
    else:
        label, usd = f"cheapest rankable hardware: {a['accelerator']}", a["bill_calibrated_usd"]
        words.append(alt_words)
        words.append(own_words if len(own) else "the scenario's accelerator left out")
    # rows the sweep prices lower but may not rank (a trial read "cheapest hardware: H200" above
    # notebook 09's B200 at $5.05M): named, and the label says the ranking is of rankable rows
    cheaper = df[~df["rankable"] & ~df["scenario"] & (df["bill_calibrated_usd"] < usd)]
    if len(cheaper):
        # the scenario's own row wins here, rankable or not: it is compared with the rankable
        # rows (a review read "cheapest rankable" beside a table calling that row not rankable)
        label = label.replace("cheapest hardware:",
                              "cheapest of this scenario's and the rankable hardware:")
        words.append("priced lower but not rankable (notebook 09's hardware table): "
                     + ", ".join(f"{r['accelerator']} {fmt_usd(r['bill_calibrated_usd'])}"
                                 + _unrankable_words(r) for _, r in
                                 cheaper.sort_values("bill_calibrated_usd").iterrows()))
    return {"label": label, "usd": float(usd),
            "note": "; ".join(words + ([f"left out: {left}"] if left else []))}


#: A clause of a refusal that says what fails (``_failing_clause``), not a label before it
#: ("RL post-training line (...)", "model='x'") or a remedy after it ("raise rl_rollout_tp").
_FAILS = re.compile(r"\b(cannot|do not|does not|is not|are not|has no|have no|must|missing|"
                    r"needs?)\b")


def _failing_clause(why: str) -> str:
    """The last clause of a refusal that says what fails, a bill line's label before it in
    parentheses ("14.5 GB of bf16 weights per GPU do not fit TPU v5e's 14.4 GB usable HBM at
    rl_rollout_tp=4 (RL post-training line)"), the point bill's account of its ranged inputs
    left off; the last clause where none says (a data trial read "TPU v5e: ledger_data_licensing_usd
    = 3e+06, the mode of triangular ...", and without ranges the remedy alone)."""
    parts = str(why).split(" (the point bill, with the ranged inputs at their points")[0]
    parts = parts.split(": ")
    failing = [x for x in parts if _FAILS.search(x)]
    clause = failing[-1] if failing else parts[-1]
    label = parts[0].split(" (")[0]
    return clause + (f" ({label})" if clause != parts[0] and label.endswith(" line") else "")


def _left_out_words(skipped) -> str:
    """The accelerators a ``hardware_sweep`` left out (``attrs['skipped']``: (name, reason)
    pairs), grouped by reason: each reason's clause that says what fails (``_failing_clause``)
    with the accelerator's name in it replaced, "A100-40GB, H800: the catalogue has no reserved
    price for each of them"."""
    groups: dict = {}
    for acc, why in skipped:
        clause = _failing_clause(why)
        groups.setdefault(clause.replace(acc, "\0"), []).append(acc)
    return "; ".join(f"{', '.join(accs)}: "
                     + clause.replace("\0", accs[0] if len(accs) == 1 else "each of them")
                     for clause, accs in groups.items())


def _unrankable_words(row) -> str:
    """" (no buyable listed price; no comparable published run)": why a ``hardware_sweep`` row
    may not be ranked, from its ``price_available`` and ``mfu_check`` (a procurement trial read
    "no buyable listed price, or an MFU above or without a comparable published run" and could
    not tell which held for B200, whose price is buyable); "" where the row gives neither."""
    why = []
    if row.get("price_available") is False or row.get("price_available") == 0:
        why.append("no buyable listed price")
    check = str(row.get("mfu_check") or "")
    if check.startswith("above"):
        why.append("its MFU above the best comparable published run")
    elif check.startswith("unverified"):
        why.append("no comparable published run")
    return f" ({'; '.join(why)})" if why else ""


def _median_mode(row, pricing) -> str | None:
    """The pricing mode whose catalogue rows a hardware row's median price rests on: the
    scenario's, its on-demand rows where the row's basis says so (``_sweep_price_basis``,
    ``RESERVED_FALLBACK_BASIS``); None for a price that is no catalogue median (the scenario's
    own, owned hardware)."""
    basis = str(row["price_basis"])
    if not basis.startswith("catalogue") or pricing is None:
        return None
    return "on_demand" if "on-demand median" in basis else pricing


def _same_provider_words(own, alt, pricing) -> str:
    """Where the two catalogue medians a hardware comparison sets side by side rest on
    different providers: "; the two medians rest on different providers (H100-SXM: AWS, Azure,
    ...; H200: CoreWeave, Hyperstack); CoreWeave lists both, $6.16 and $6.30/GPU-h" (each
    provider's current row of the mode, ``catalog.current_prices``). A procurement trial read
    "H200 saves 20%" where at the one provider listing both the hour costs 2% more. "" when
    either price is no catalogue median or the providers are the same."""
    modes = [_median_mode(r, pricing) for r in (own, alt)]
    if None in modes:
        return ""
    rows = [current_prices(r["accelerator"], m) for r, m in zip((own, alt), modes)]
    names = [sorted(set(x["provider"])) for x in rows]
    if names[0] == names[1]:
        return ""
    said = "; ".join(f"{r['accelerator']}: {', '.join(n)}" for r, n in zip((own, alt), names))

    def at(x, provider):
        return float(x.loc[x["provider"] == provider, "price_usd_per_gpu_hour"].iloc[0])

    pair = ", ".join(f"{p} lists both, ${at(rows[0], p):.2f} and ${at(rows[1], p):.2f}/GPU-h"
                     for p in names[0] if p in names[1])
    return (f"; the two medians rest on different providers ({said})"
            + (f": {pair}" if pair else ": no provider lists both"))


def central_prediction(sc: dict, model=None) -> tuple:
    """The scenario's predicted plan, step and MFU band and the band's central estimate
    (``accuracy.central_mfu``: point = p ÷ (1 + c) kept inside the band, the figure a ``mfu:
    predict`` bill uses): ``(plan, step, band, point)``."""
    model = load_model(_get(sc, "model")) if model is None else model
    plan, st = predicted_step(sc)
    band = band_for_step(st, plan, model, _get(sc, "accelerator"), dtype=_get(sc, "dtype"),
                         seq_len=_get(sc, "seq_len"))
    return plan, st, band, float(band.central()[0])


def _sweep_row(s: dict, acc: str, model, own, m: float, at_catalogue: bool = False) -> dict:
    """One accelerator of ``hardware_sweep``: its predicted MFU and band (the scenario's own
    accelerator, when pilots set its MFU: the step model calibrated on them, its extrapolation
    band), the bills at the band's central estimate (``MfuBand.central``; the pilots' MFU where
    they set it), at the band's ends and at the calibrated MFU
    m_scenario × central(hw) ÷ central(own) (``central_prediction``: each side's prediction
    at its band's central estimate, so the comparison is on one rule; ``own``: central(own);
    when pilots set the scenario's MFU, another accelerator's central estimate, uncalibrated),
    and the two checks (``_sweep_price_available``,
    ``_sweep_mfu_check``).
    ``at_catalogue``: the scenario's own accelerator and plan at the catalogue price instead of
    the scenario's (the like-for-like row). ``price_basis`` says which price the row uses.
    Raises ScenarioError or ValueError when the hardware cannot run the scenario; for another
    accelerator, first a ValueError when it has no peak in the scenario's dtype
    (``Accelerator.peak_flops_per_s``: no FP8 on an A100 or a TPU), then ``DoesNotFit`` when no
    parallel plan fits its memory (``checks.plan_does_not_fit``, the report's own check: such a
    row would price a run that could not start), so a device that cannot run the format at all
    is not said to lack memory."""
    mine = acc == _get(s, "accelerator")
    if mine:
        sc = {**s, "price_usd_per_gpu_hour": None} if at_catalogue else dict(s)
    else:
        load_accelerator(acc).peak_flops_per_s(_get(s, "dtype") or "bf16")  # the format first
        sc = _moved_to(s, acc)  # on_hardware's, its RL job fitted below
        misfit = plan_does_not_fit(sc, advice=False)  # the reason, not "use more GPUs"
        if misfit:
            raise DoesNotFit(misfit)
        # the step model's refusal (no network figure) before the RL job's search, which reads
        # no key of the step and raises nothing: a row left out does not search it
        predicted_step(sc)
        sc = _with_fitting_rl_job(sc)
    on_demand = None if mine else _reserved_fallback_price(sc, acc)
    if on_demand is not None:   # priced at the most a reserved buyer pays (_sweep_price_basis)
        sc = {**sc, "price_usd_per_gpu_hour": on_demand}
    plan, st, band, point = central_prediction(sc, model)  # point: p / (1 + c) in the band
    hw_point = point
    if not mine:  # a phase's own MFU moves with the main run's, as move_to prices it
        sc = _with_phase_mfus_scaled(sc, hw_point / own)
    if mine and "_mfu_pilot" in s:  # the step model calibrated on the pilots: its prediction
        got = s["_mfu_pilot"]
        band = replace(band, low=got["low"], high=got["high"])
        point = float(got["value"])
    led = bill({**sc, "mfu": point})
    lo = bill({**sc, "mfu": band.high}).total_usd if band.high <= 1 else float("nan")
    hi = bill({**sc, "mfu": band.low}).total_usd
    # a pilot's calibration is its own hardware's; carried to the same generation (its kernels
    # and software: a review read H200 at an uncalibrated 42.4% beside the H100 pilots' 21.7%
    # as the cheaper move), elsewhere the central estimate, uncalibrated
    ratio = point if "_mfu_pilot" in s and (mine or not _same_generation(
        _get(s, "accelerator"), acc)) else m * hw_point / own
    cal = bill({**sc, "mfu": ratio}).total_usd if ratio <= 1 else float("nan")
    available, where = _sweep_price_available(sc if on_demand is None else
                                              {**sc, "price_usd_per_gpu_hour": None,
                                               "pricing": "on_demand"}, acc)
    pub = comparable_published_mfu(acc, model.n_params, is_moe=model.is_moe,
                                   dtype=_get(sc, "dtype") or "bf16",
                                   seq_len=int(_get(sc, "seq_len")))
    ceiling, ceiling_src = pub.mfu, pub.describe()   # on the row's own dtype basis
    basis = _sweep_price_basis(sc, acc) if on_demand is None else RESERVED_FALLBACK_BASIS
    return {"accelerator": acc, "predicted_mfu": float(st.mfu), "mfu": point, "band_low": band.low,
            "band_high": band.high, "price_basis": basis,
            "price_usd_per_gpu_hour": led.figures["price_usd_per_gpu_hour"],
            "bill_usd": led.total_usd, "bill_low_usd": lo, "bill_high_usd": hi,
            "bill_calibrated_usd": cal, "days": led.figures["wall_clock_days"],
            "scenario": mine, "plan": plan.describe(), "plan_basis": _sweep_plan_basis(s, sc),
            "rollout_tp": _get(sc, "rl_rollout_tp") if rl_campaign_given(sc) else None,
            "calibrated_mfu": ratio, "mfu_basis": _sweep_mfu_basis(s, mine, acc),
            "billed_mfu_basis": _sweep_billed_mfu_basis(s, mine, bool(band.central()[2])),
            "mfu_ceiling": ceiling,
            "mfu_check": _sweep_mfu_check(mine, ratio, ceiling, ceiling_src,
                                          (band.high, band.cap_source())),
            "price_available": available, "price_source": where,
            "rankable": bool(available and not mine and ceiling is not None
                             and ratio <= ceiling and cal == cal)}


#: ``hardware_sweep``'s ``plan_basis``: a row's plan is the scenario's fixed plan, the search's
#: (the scenario leaves its plan free) or the search's because the fixed plan does not run there.
PLAN_BASES = ("the scenario's plan", "chosen by predicted step time",
              "re-chosen: the scenario's plan does not run here")


def _sweep_plan_basis(s: dict, sc: dict) -> str:
    """Which of ``PLAN_BASES`` a sweep row's plan is (``kept_plan``'s rule): the scenario's when
    it fixes its plan and the row keeps every fixed value, else the search's."""
    fixed = fixed_plan_keys(s)
    if not fixed:
        return PLAN_BASES[1]
    return PLAN_BASES[0] if all(_get(sc, k) == _get(s, k) for k in fixed) else PLAN_BASES[2]


def _sweep_mfu_basis(s: dict, mine: bool, other: str | None = None) -> str:
    """Where a sweep row's ``calibrated_mfu`` comes from, in words: the scenario's own MFU (a
    pilot's calibration, named as such), the scenario's MFU × the step-time model's ratio, or,
    when a pilot set the scenario's MFU, the other hardware's predicted MFU, uncalibrated (a
    pilot measured its own accelerator's kernels and network, not another's)."""
    acc = _get(s, "accelerator")
    if "_mfu_pilot" in s:
        return (f"the pilots' calibrated MFU on {acc}" if mine else
                f"the pilots' calibrated MFU × the predicted ratio (central estimates; {acc}'s "
                "generation: its kernels and software)" if other is not None and
                _same_generation(acc, other) else
                f"predicted, uncalibrated, central estimate (the pilots ran on {acc})")
    return "the scenario's MFU" if mine else ("the scenario's MFU × the predicted ratio "
                                              "(central estimates)")


#: ``hardware_sweep``'s ``billed_mfu_basis``: the basis of the MFU a row bills (``mfu``).
BILLED_MFU_BASES = ("the prediction's central estimate", "the pilots' calibrated MFU",
                    "its band's capped top (the prediction's central estimate is above it)")


def _sweep_billed_mfu_basis(s: dict, mine: bool, capped: bool = False) -> str:
    """Where a sweep row's billed ``mfu`` comes from (``BILLED_MFU_BASES``): the central estimate
    of its prediction (``accuracy.central_mfu``), or, where that lies above the band's capped
    top (``capped``, ``MfuBand.central``), the cap; on the pilots' own accelerator when pilots
    set the scenario's MFU, their calibration (``_sweep_row``)."""
    if mine and "_mfu_pilot" in s:
        return f"{BILLED_MFU_BASES[1]} on {_get(s, 'accelerator')}"
    return BILLED_MFU_BASES[2] if capped else BILLED_MFU_BASES[0]


#: ``hardware_sweep``'s ``price_basis`` of another accelerator with no reserved row in the
#: catalogue when the scenario prices reserved capacity (``_reserved_fallback_price``).
RESERVED_FALLBACK_BASIS = ("catalogue on-demand median (no reserved row: the most a reserved "
                           "buyer pays)")


def _reserved_fallback_price(sc: dict, acc: str) -> float | None:
    """The on-demand median of ``acc`` where the scenario prices reserved capacity from the
    catalogue (no price of its own) and the catalogue has no reserved row for ``acc`` but has
    on-demand ones: a reservation is "a billing discount applied to the use of On-Demand
    Instances" (AWS whitepaper "Amazon EC2 Reserved Instances and Other AWS Reservation
    Models"), so the on-demand price is the most a reserved buyer pays, the rule
    ``catalog.discount_price_cap`` already applies where a reserved median lies above it (a
    trial's reserved comparison kept B200 at its on-demand median and left GB200 out, "the
    catalogue has no reserved price"). The row is then a high-side price, said in its
    ``price_basis``. None otherwise."""
    if _get(sc, "pricing") != "reserved" or _get(sc, "price_usd_per_gpu_hour") is not None:
        return None
    if len(current_prices(acc, "reserved")) or not len(current_prices(acc, "on_demand")):
        return None
    return float(catalogue_price(acc, "on_demand")[0])


def _sweep_price_basis(sc: dict, acc: str) -> str:
    """What a hardware row's GPU-hour price is: the scenario's, an owned amortisation, or the
    catalogue median of the scenario's pricing mode, said as the on-demand median where that
    mode's median lies above it and the default takes the on-demand one instead
    (``catalog.discount_price_cap``; a trial compared H100's reserved $2.72 with H200's and
    B200's on-demand medians labelled "(reserved)")."""
    if _get(sc, "price_usd_per_gpu_hour") is not None:
        return "the scenario's price"
    mode = _get(sc, "pricing")
    if mode == "owned":
        return "owned (amortised)"
    words = price_mode_words(acc, mode)
    return f"catalogue median ({mode})" if words == mode else f"catalogue {words}"


def _sweep_price_available(sc: dict, acc: str) -> tuple:
    """(buyable, source) of a sweep row's price: the scenario's own price, the owned
    amortisation, or every catalogue row behind the median ``available``."""
    pricing = _get(sc, "pricing")
    if _get(sc, "price_usd_per_gpu_hour") is not None:
        return True, "the scenario's own price"
    if pricing == "owned":  # no catalogue row: bought hardware, amortised by the ledger
        if _get(sc, "ledger_owned_usd_per_gpu") is not None:
            return True, OWNED_PRICE_SOURCE
        # the default purchase price (pricing.purchase_price_on drops the scenario's on
        # another accelerator): a trial's B200 at its $40,000 read H100's row as at its price
        return True, (f"owned: ${default('h100_acquisition_usd'):,.0f} per GPU "
                      f"({ACQUISITION_DEFAULT_WORDS}) amortised with energy "
                      "(llmcost.pricing.owned_usd_per_gpu_hour)")
    return (bool(list_prices(acc, pricing, current_only=True)["available"].all()),
            catalogue_price(acc, pricing)[1])


def _sweep_mfu_check(mine: bool, ratio: float, ceiling, ceiling_src: str,
                     cap: tuple = (None, "")) -> str:
    """The calibrated MFU against the best published on the hardware generation; where none is
    published, what capped the band the row is billed in (``cap``: its top and
    ``MfuBand.cap_source``, e.g. the best comparable run on any hardware)."""
    if mine:
        return "the scenario's own MFU"
    if ceiling is None:
        top, by = cap
        return f"unverified: {ceiling_src}" + (
            f"; billed in a band whose top, {top:.1%}, is {by}" if by and top is not None else "")
    if ratio > ceiling:
        return f"above the best published {ceiling_src}"
    return f"within the best published {ceiling_src}"


# ------------------------------------------------------------------------------ pilot and strategy
def pilot_run(final_run_usd: float, p_bug: float, pilot_usd: float,
              found_after_fraction: float = 0.5) -> dict:
    """Validate small first: a pilot that catches a fatal bug before the big run.

    A bug that would surface after a share f of the final run (cost C) wastes f·C; a pilot of
    cost c catches it first with certainty (assumption). With probability p of such a bug:

        expected saving = p·f·C − c,      break-even p* = c / (f·C)

    Returns dict with ``expected_saving_usd``, ``break_even_probability`` and the inputs.
    """
    c_run = as_scalar(final_run_usd, "final_run_usd", positive=True)
    c = as_scalar(pilot_usd, "pilot_usd", nonnegative=True)
    p = _prob(p_bug, "p_bug")
    f = _prob(found_after_fraction, "found_after_fraction")
    if f == 0:
        raise ValueError("found_after_fraction=0 must be > 0: a bug found at once wastes nothing")
    return {"expected_saving_usd": p * f * c_run - c, "break_even_probability": c / (f * c_run),
            "p_bug": p, "wasted_usd": f * c_run, "pilot_usd": c}


def _scalar(x, name, **rules) -> float:
    """One number (``as_array``'s rules), a ValueError naming ``name`` for an array."""
    arr = as_array(x, name, **rules)
    if arr.ndim:
        raise ValueError(f"{name}={x!r} must be a single number, not an array")
    return float(arr)


def _prob(x, name) -> float:
    v = _scalar(x, name, nonnegative=True)
    if v > 1:
        raise ValueError(f"{name}={v!r} must be a probability in [0, 1]")
    return v


def fine_tune_instead(scenario: dict, fine_tune_tokens: float,
                      exploratory_fraction: float = 0.2) -> tuple:
    """Do not pre-train at all: fine-tune an open base model of the same architecture on
    ``fine_tune_tokens`` (full fine-tune: the same model FLOPs per token as training), priced by
    the same ledger as a run of that many tokens with ``exploratory_fraction`` of development
    compute (Cottier et al. 2024's low end, 0.2: a fine-tune needs fewer ablations) and no extra
    phases. Returns ``(bill before, bill of the fine-tune)``: the two ledgers side by side
    (``ledger.compare``)."""
    t = as_scalar(fine_tune_tokens, "fine_tune_tokens", positive=True)
    x = as_scalar(exploratory_fraction, "exploratory_fraction", nonnegative=True)
    s = _clean(scenario)
    ft = {**s, "train_tokens": t, "phases": [], "ledger_exploratory_fraction": x,
          "ledger_exploratory_runs": []}
    return bill(s), bill(ft)


def smaller_model_longer(scenario: dict) -> dict:
    """Train a smaller model longer when lifetime inference demand is high (notebook 06): the
    scenario's model against the inference-adjusted optimum in dollars at the same loss
    (Sardana et al. 2024 §4: minimise c·6·N·D + D_inf·s(N) at L(N, D) = ℓ,
    ``scaling.inference_adjusted_optimum_usd``), training at ``scaling.train_usd_per_flop`` (the
    bill's MFU and the rate of its GPU-hour lines, model FLOPs on the MFU basis) × k, the bill's
    dollars per dollar of ideal training compute,

        k = (main run + its failures + their share of the exploratory runs) ÷ (ideal cost)

    (``_training_bill_factor``: a training change moves the failures the run meets and the
    exploratory runs the bill prices as a fraction of it; a source check found the lever's
    training part priced at the ideal compute alone, a lifetime saving of +$442k where the
    bill's own rules give a loss; the optimum is sought at k·c, the approximation that a
    run of another size meets the same goodput and exploratory multiplier), serving at
    ``scaling.serving_cost_per_token`` from the scenario's serving set-up
    (``scaling.reference_serving_cost``). Lifetime demand: ``inference_tokens_lifetime``.

        lifetime saving = [train(N, D) + D_inf·s(N)] − [train(N*, D*) + D_inf·s(N*)]
                        = training saving + serving saving   (each with its sign)

    The training part is a change of the bill; the serving part is outside it (the bill prices
    training). The lever proposes a smaller model only: when N* ≥ N the scenario's model is
    already trained past the optimum for this demand (the optimum is a larger model on fewer
    tokens), the lever does not apply (``applies`` False, ``reason`` says why) and its savings
    are 0. Returns a dict with the optimum's N* and D*, the loss, the costs on both sides,
    ``training_saving_usd``, ``serving_saving_usd`` and ``lifetime_saving_usd`` (their sum).
    """
    s = {**_default_scenario(), **{k: _point(v, k) for k, v in _clean(scenario).items()}}
    spec, gpu = load_model(s["model"]), load_accelerator(s["accelerator"])
    fit = sc.get_fit(s.get("scaling_fit", "besiroglu2024"))
    # the rate the bill's compute lines charge, as notebook 06 prices it (scenario_price): on
    # owned hardware the amortised purchase, its energy on the bill's electricity line
    b = bill(scenario)
    price = float(b.figures["gpu_rate_usd_per_gpu_hour"])
    n_run = spec.n_active_params if spec.is_moe else spec.n_params
    target = float(sc.loss(n_run, s["train_tokens"], fit))
    P, R = s["inference_prompt_tokens"], s["inference_output_tokens"]
    ref = sc.reference_serving_cost(spec, gpu, price, P, R, tp=s["serve_tp"],
                                    batch=s["serve_batch"],
                                    weight_dtypes=(s["serve_weight_dtype"],),
                                    kv_dtype=s["serve_kv_dtype"], occupancy=s["serve_occupancy"],
                                    max_tpot_s=s["serve_max_tpot_s"])
    # referenced at n_run, the N the fits place the model at (an MoE's active parameters), where
    # it is evaluated: at the total count an MoE's serving cost came out total ÷ active too low
    serve = sc.serving_cost_per_token(ref.usd_per_m_output, ref.usd_per_m_input, R / (P + R),
                                      n_run)
    k = _training_bill_factor(b, price)
    c = sc.train_usd_per_flop(gpu, s["mfu"], price, s["dtype"], spec, s["seq_len"]) * k
    demand = float(s.get("inference_tokens_lifetime", 0.0))
    opt = sc.inference_adjusted_optimum_usd(target, demand, c, serve, fit)
    mine = sc.same_loss_options(target, [n_run], demand, fit, c, serve).iloc[0]
    out = {"loss": target, "n_params": float(n_run), "train_tokens": float(s["train_tokens"]),
           "optimum_n_params": float(opt.n_params),
           "optimum_train_tokens": float(opt.train_tokens),
           "train_usd": float(mine["train_usd"]), "inference_usd": float(mine["inference_usd"]),
           "optimum_train_usd": float(opt.train_cost),
           "optimum_inference_usd": float(opt.inference_cost),
           "inference_tokens_lifetime": demand, "bill_factor": k}
    return {**out, **_smaller_model_verdict(out)}


def _training_bill_factor(b, rate: float) -> float:
    """k of ``smaller_model_longer``: the bill's training dollars per dollar of ideal main-run
    compute,

        k = (M + F) · (1 + E / (P + F)) ÷ (``main_ideal_gpu_hours`` × rate)

    M the pre-training main run, F its failures, P every pre-training line (the main run and
    its phases) and E the exploratory runs where priced as a fraction of the final run
    (``ledger.exploratory_as_fraction``; else 0): the main run's share of them (a review: the
    phases' share counted as the main run's raised k from 2.24 to 2.71 with a 500B-token
    phase). The exploratory line, netted of post-training, is taken at its average, with the
    rerun reserve it nets out (P(rerun) × the final run: Cottier et al.'s multiplier counts the
    failed attempt, so E is the multiplier's part whatever P(rerun), unless post-training
    alone exhausts it and the line is $0, the reserve then on top; a review found k falling
    2.23 → 1.93 with P(rerun) 0.3 while the bill did not move). Left out: the contingency (0 by
    default), which also grows with the run, and, with exploratory runs listed
    (``ledger_exploratory_runs``: nothing netted), the rerun reserve with the runs."""
    ideal = float(b.figures["main_ideal_gpu_hours"]) * rate
    main = b.usd("compute.pretraining.main") + b.usd("compute.failures")
    explore = (b.usd("compute.exploratory") + b.usd("reserve.rerun")
               if exploratory_as_fraction(b) else 0.0)
    every = b.usd("compute.pretraining") + b.usd("compute.failures")
    return float(main * (1 + explore / every) / ideal) if ideal > 0 and every > 0 else 1.0


def _smaller_model_verdict(r: dict) -> dict:
    """Whether ``smaller_model_longer`` applies (N* < N) and its savings, each with its sign:
    training = train(N, D) − train(N*, D*), serving = D_inf·[s(N) − s(N*)],
    lifetime = training + serving; all 0 when it does not apply, with the reason."""
    if r["optimum_n_params"] < r["n_params"]:
        train = r["train_usd"] - r["optimum_train_usd"]
        serve = r["inference_usd"] - r["optimum_inference_usd"]
        return {"applies": True, "reason": "", "training_saving_usd": train,
                "serving_saving_usd": serve, "lifetime_saving_usd": train + serve}
    reason = (f"does not apply: at this loss and {r['inference_tokens_lifetime']:.3g} served "
              f"tokens the lifetime optimum is a larger model ({r['optimum_n_params']:.3g} "
              f"parameters on {r['optimum_train_tokens']:.3g} tokens, against "
              f"{r['n_params']:.3g} on {r['train_tokens']:.3g}): the scenario's model is "
              "already trained longer than the optimum, so a smaller one would cost more")
    return {"applies": False, "reason": reason, "training_saving_usd": 0.0,
            "serving_saving_usd": 0.0, "lifetime_saving_usd": 0.0}


# ------------------------------------------------------------------------------ false economies
@dataclass(frozen=True)
class FalseEconomy:
    """A saving that looks real until the whole ledger counts: ``apparent_usd`` (what the naive
    accounting sees), ``net_usd`` (what the ledger says, with the risk at ``probability`` where
    one applies), ``break_even_probability`` (the probability of the bad outcome at which the
    net is zero; None when the outcome is not a chance event) and ``sourced_probability`` with
    its ``probability_source`` (None where none is published)."""

    name: str
    apparent_usd: float
    net_usd: float
    loss_if_it_happens_usd: float | None
    break_even_probability: float | None
    sourced_probability: float | None
    probability_source: str
    how: str

    @property
    def net_label(self) -> str:
        """What ``net_usd`` is, for a reader: "net of its risk", or, for a chance event with
        no published probability (net at p = 0, the risk unpriced), said so (a trial read "net
        of its risk" beside a net equal to the apparent saving)."""
        if self.break_even_probability is not None and self.sourced_probability is None:
            return "net at p = 0 (no published probability: its risk is not priced)"
        return "net of its risk"

    def row(self) -> dict:
        return {"false economy": self.name, "apparent_saving_usd": self.apparent_usd,
                "net_saving_usd": self.net_usd, "loss_if_it_happens_usd":
                self.loss_if_it_happens_usd, "break_even_probability": self.break_even_probability,
                "sourced_probability": self.sourced_probability,
                "probability_source": self.probability_source, "how": self.how}


def break_even_probability(saving_usd: float, loss_usd: float) -> float:
    """The probability p at which an expected loss p·L cancels a sure saving S:

        net = S − p·L = 0   ⇒   p* = S / L    (capped at 1: above it the saving always wins)
    """
    s = as_scalar(saving_usd, "saving_usd", nonnegative=True)
    loss = as_scalar(loss_usd, "loss_usd", positive=True)
    return min(1.0, s / loss)


def break_even_words(p: float | None) -> str:
    """A break-even probability (``break_even_probability``, capped at 1) as a reader takes it:
    "n/a" when the outcome is no chance event (None); at the cap, the sure saving S is at least
    the loss L, so it pays even if the bad outcome is certain: "none: pays even if certain"
    (a trial read "100.0%" as "you must be certain it will not happen", the opposite); else
    the percentage, one decimal.

    Raises
    ------
    ValueError
        A ``p`` that is not None or a number in [0, 1].
    """
    if p is None:
        return "n/a"
    v = as_scalar(p, "p", nonnegative=True, upper=1.0)
    return "none: pays even if certain" if v >= 1.0 else f"{v:.1%}"


def spot_break_even(discount: float) -> dict:
    """Spot without resumable training: the probability of at least one pre-emption during the
    run at which the discount is cancelled.

    With exponential pre-emptions (MTBF M) a job of T hours that restarts from scratch takes on
    average M·(e^{x} − 1) hours, x = T/M (Daly's model with one segment); P(a pre-emption during
    T) = p = 1 − e^{−x}. The spot bill is (1 − d)·(e^{x} − 1)/x of the on-demand one, so the
    break-even x* solves

        (1 − d)·(e^{x} − 1)/x = 1,        p* = 1 − e^{−x*}

    (bisection; (e^x − 1)/x rises from 1 at x = 0, so a root exists for 0 < d < 1)."""
    d = _prob(discount, "discount")
    if not 0 < d < 1:
        raise ValueError(f"discount={d!r} must be in (0, 1)")
    lo, hi = 1e-12, 1.0
    f = lambda x: (1 - d) * math.expm1(x) / x - 1.0  # noqa: E731
    while f(hi) < 0:
        hi *= 2
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
    x = 0.5 * (lo + hi)
    return {"x": x, "break_even_probability": -math.expm1(-x), "discount": d}


@disk_cached  # the same for every call with these arguments: core.diskcache
def false_economies(scenario: dict, checkpoint_factor: float = 4.0,
                    precision_restart_fraction: float = 0.5, eval_rework_fraction: float = 0.25
                    ) -> list:
    """The false economies of the scenario, each priced by the ledger (``FalseEconomy``):

    * **fewer checkpoints**: checkpoint every ``checkpoint_factor`` × the optimum. Apparent: the
      stalls no longer paid, δ·(1/τ − 1/(kτ)) of the main run's ideal GPU-hours, plus the storage
      line's difference. Net: bill(before) − bill(after) (failures at the scenario's rate are
      certain, not a chance event: no break-even probability).
    * **spot without resumable training**: apparent: the spot discount on the final run's paid
      GPU-hours; net: the ledger's (−inf when the run never finishes); break-even
      ``spot_break_even`` beside the scenario's own P(an interruption during the run) =
      1 − e^{−T/M}.
    * **lower precision that destabilises training**: apparent: ``fp8_training``'s saving S;
      if it diverges, ``precision_restart_fraction`` f of the FP8 final run C is thrown away and
      the final run is redone in BF16, so L = S_final + f·C, S_final the final run's part of S
      (the exploratory runs, done, keep theirs: an assumption, said in the row), and p* = S / L
      (``break_even_probability``, capped at 1: above it the saving wins even if the divergence
      is certain). No published probability.
    * **cutting evaluation and safety testing**: apparent: the evaluation lines (benchmarks,
      human evaluation) S; loss if a problem surfaces after training: post-training redone plus
      ``eval_rework_fraction`` of the final run, L; p* = S / L. No published probability.
    """
    _scalar(checkpoint_factor, "checkpoint_factor", positive=True)
    _prob(precision_restart_fraction, "precision_restart_fraction")
    _prob(eval_rework_fraction, "eval_rework_fraction")
    s = _clean(scenario)
    b = bill(s)
    return [_fewer_checkpoints(s, b, checkpoint_factor),
            *_spot_without_resumable(s, b),
            *_unstable_precision(s, b, precision_restart_fraction),
            _cut_evaluation(b, eval_rework_fraction)]


def _fewer_checkpoints(s: dict, b: Ledger, checkpoint_factor) -> FalseEconomy:
    """Checkpoint every k × the optimum τ: apparent = the stalls no longer paid, δ × (the
    checkpoints the run takes at τ − those at kτ, ⌈T/τ⌉ − 1 each,
    ``reliability.checkpoints_in_run``) × its GPUs × price, + the storage line's difference;
    net = bill(before) − bill(after)."""
    plan = checkpoint_plan_of(s)
    k = as_scalar(checkpoint_factor, "checkpoint_factor", positive=True)
    tau = plan.interval_s
    after = bill({**s, "ckpt_interval_s": k * tau})
    rate = b.figures["price_usd_per_gpu_hour"]
    fewer = plan.n_checkpoints - rel.checkpoints_in_run(plan.run_s, k * tau)
    stall_h = int(b.figures["n_gpus"]) * plan.stall_s * fewer / SECONDS_PER_HOUR
    storage = b.line("storage.checkpoints").usd - after.line("storage.checkpoints").usd
    lam = float(_point(s.get("fail_rate_per_gpu_year", _default("fail_rate_per_gpu_year")),
                       "fail_rate_per_gpu_year"))
    gpu_years = int(b.figures["n_gpus"]) * b.figures["wall_clock_days"] / 365.25
    p_fail = float(-math.expm1(-lam * gpu_years))  # Poisson: P(at least one) = 1 − e^(−λ·n·T)
    llama3 = ("; Llama 3: 419 unexpected interruptions in 54 days on 16,384 GPUs"
              if lam == float(_default("fail_rate_per_gpu_year")) else "")
    name = f"checkpoint {k:g}× less often" if k >= 1 else f"checkpoint {1 / k:g}× more often"
    return FalseEconomy(
        name, stall_h * rate + storage, b.total_usd - after.total_usd,
        None, None, p_fail,
        f"the chance of at least one failure during the run, 1 − exp(−λ·n·T) with λ = {lam:g} "
        f"failures per GPU-year (the scenario's rate{llama3}), "
        f"n = {fmt_gpus(int(b.figures['n_gpus']))}, T = "
        f"{b.figures['wall_clock_days']:,.1f} days",
        f"interval {tau / 60:.0f} → {k * tau / 60:.0f} min; apparent = stalls saved + storage")


def _spot_without_resumable(s: dict, b: Ledger) -> list:
    """Spot capacity without resumable training: apparent = the spot discount d = 1 − p_s/p on
    the final run (p_s the spot lever's price, ``_spot_rate``); net = the ledger's
    (``spot_without_checkpoints``; −inf when the run never finishes in some draws of the
    ranges: no finite expected bill survives that); break-even ``spot_break_even(d)`` beside
    P(an interruption during the run) = 1 − e^{−T/M}, M the mean time between pre-emptions,
    failures and planned stops (``reliability.interruption_mtbf_s``): each restarts the run.
    When spot costs as much as the scenario's own price or more (d ≤ 0: owned hardware, a cheap
    contract) there is no apparent saving: the row says it does not apply, unpriced (NaN)."""
    rate = b.figures["price_usd_per_gpu_hour"]
    spot, without, offer = _spot_changes(s)
    if _spot_needs_rate(s, offer):  # no pre-emption rate given: say so
        return [FalseEconomy("spot without resumable training", math.nan, math.nan, None,
                             None, None, "", f"skipped: {SPOT_LEVER_NEEDS_RATE}")]
    if spot.note:  # the lever does not apply (already spot, ...)
        return []
    try:
        resolve_price(_get(s, "accelerator"), None, "spot")
    except ScenarioError as e:  # no spot price for this accelerator: skipped, saying why
        return [FalseEconomy("spot without resumable training", math.nan, math.nan, None,
                             None, None, "", f"skipped: {e}")]
    p_spot = offer["point"]
    d = 1 - p_spot / rate
    if d <= 0:  # spot costs as much or more: nothing to gain, so nothing to lose it to
        return [FalseEconomy(
            "spot without resumable training", math.nan, math.nan, None, None, None, "",
            f"does not apply: spot at ${p_spot:.2f}/GPU-h costs "
            f"{'as much as' if d == 0 else 'more than'} the scenario's own ${rate:.2f}/GPU-h "
            f"({_get(s, 'pricing').replace('_', '-')}), so there is no apparent saving")]
    apparent = b.figures["final_run_usd"] * d
    res = price_lever("spot_nockpt", "", "", s, without, before_bill=b)
    sp = bill(spot.after)
    t_s = b.figures["main_ideal_gpu_hours"] / b.figures["n_gpus"] * SECONDS_PER_HOUR
    # every interruption restarts a run without checkpoints: failures, pre-emptions and the
    # planned stops (reliability.interruption_mtbf_s, as the bill of ``without`` counts them)
    m_all = rel.interruption_mtbf_s(sp.figures["job_mtbf_s"],
                                    sp.scenario["fail_planned_per_day"])
    p_run = -math.expm1(-t_s / float(m_all))
    be = spot_break_even(d)["break_even_probability"] if 0 < d < 1 else None
    # a run that never finishes in some draws has no finite expected bill: the net is −inf
    never = res.saving_p10 == -math.inf or (res.ranged and math.isnan(res.saving_p10))
    return [FalseEconomy(
        "spot without resumable training", apparent, -math.inf if never else res.saving_usd,
        None, be, p_run,
        "modelled, not published: the scenario's spot pre-emption rate "
        "(ledger_spot_preemptions_per_node_day, the user's; no provider publishes one), "
        "failure rate and planned stops (fail_planned_per_day) over the ideal run",
        f"spot ${p_spot:.2f} vs ${rate:.2f}/GPU-h ({d:.0%} discount); "
        + (res.note or "a pre-emption restarts the run"))]


def _unstable_precision(s: dict, b: Ledger, precision_restart_fraction) -> list:
    """FP8 that destabilises training: a divergence throws away a share f of the FP8 final run
    C (f an assumption: no published figure) and the final run is redone in BF16, so the final
    run's part S_final of the saving S is forgone (the exploratory runs, done, keep theirs):
    L = S_final + f·C, p* = S / L, capped at 1 (``break_even_probability``: above it the saving
    wins even if the divergence is certain). No published probability."""
    fp8 = fp8_training(s)
    if fp8.note.startswith("skipped"):  # the hardware cannot take the lever: say why
        return [FalseEconomy("FP8 that destabilises training", math.nan, math.nan, None, None,
                             None, "", fp8.note)]
    if fp8.note:
        return []
    fb = bill(fp8.after)
    saving = b.total_usd - fb.total_usd
    final_saving = b.figures["final_run_usd"] - fb.figures["final_run_usd"]
    loss = max(final_saving, 0.0) + precision_restart_fraction * fb.figures["final_run_usd"]
    return [FalseEconomy(
        "FP8 that destabilises training", saving, saving, loss,
        break_even_probability(max(saving, 0.0), loss), None,
        "none published: instabilities are reported (e.g. FP8 outliers at trillion-token "
        "scale) without a rate", f"a divergence wastes {precision_restart_fraction:.0%} of "
        "the FP8 final run (an assumption, not sourced) and the final run is redone in BF16 "
        "(its saving forgone; the exploratory runs keep theirs); net at p = 0")]


def _cut_evaluation(b: Ledger, eval_rework_fraction) -> FalseEconomy:
    """Cutting evaluation and safety testing: apparent S = the evaluation lines; loss if a
    problem surfaces after training L = post-training + evaluation + f × the final run;
    p* = S / L. No published probability."""
    ev = b.usd("eval.")
    post = b.usd("post.")
    loss = post + ev + eval_rework_fraction * b.figures["final_run_usd"]
    return FalseEconomy(
        "cut evaluation and safety testing", ev, ev, loss,
        break_even_probability(ev, loss) if loss > 0 and ev > 0 else None, None,
        "none published" + ("" if ev else "; the scenario bills no evaluation (eval lines not "
                            "given), so there is nothing to cut"),
        f"rework = post-training {post:,.0f} + evaluation {ev:,.0f} + "
        f"{eval_rework_fraction:.0%} of the final run (an assumption, not sourced); net shown "
        "at p = 0")


def checkpoint_plan_of(scenario: dict):
    """The main run's ``reliability.checkpoint_plan`` as ``ledger.build_ledger`` computes it
    (the same call with the scenario's values; spot pre-emptions added as the ledger adds them)."""
    s = {**_default_scenario(), **ledger_scenario(scenario)}
    s = {k: _point(v, k) for k, v in s.items()}  # ranged inputs at their points, as the bill
    gpu = load_accelerator(s["accelerator"])
    per_node = gpu.per_host
    rate, restart, _ = failure_model(s, per_node)  # the bill's: spot pre-emptions included
    figures = build_ledger(scenario).figures  # the run's length; the storage the ledger sized
    bw = s["ckpt_storage_bytes_per_s"]
    if bw is None:  # sized from the checkpoint plan by the ledger (ledger.sized_storage)
        bw = figures["ckpt_storage_bytes_per_s"]
    return rel.checkpoint_plan(
        load_model(s["model"]).n_params, int(s["n_gpus"]), float(rate), bw,
        restart, recipe=s["ckpt_recipe"], gpus_per_node=per_node,
        node_bytes_per_s=s["ckpt_node_bytes_per_s"], d2h_bytes_per_s=s["ckpt_d2h_bytes_per_s"],
        async_=s["ckpt_async"], planned_per_day=s["fail_planned_per_day"],
        interval_s=s["ckpt_interval_s"],
        run_s=rel.run_work_s(figures["main_ideal_gpu_hours"], int(s["n_gpus"])))


# ------------------------------------------------------------------------------ working backwards
def _no_run_to_fit(scenario) -> None:
    """``fit_budget``'s refusal of a bill of post-training alone (``refuse_post_training_only``),
    in its own words, before ``_clean``'s."""
    if isinstance(scenario, dict):
        refuse_post_training_only(scenario, "a budget fits the pre-training tokens and a "
                                  "deadline the pre-training run's GPUs")


@disk_cached  # the same for every call with these arguments: core.diskcache
def fit_budget(scenario: dict, budget_usd: float | None = None,
               deadline_days: float | None = None, gpu_step: int | None = None,
               overrun: bool = False):
    """Work backwards from a budget or a deadline.

    * deadline D days alone → the fewest GPUs whose main run's wall clock
      (``figures['wall_clock_days']``, failures included) is at most D (bisection: the wall
      clock falls as GPUs are added), among the counts the scenario's plan splits
      (``parallel.splitting_gpu_counts``: dp × tp·pp·cp with dp dividing the global batch, the
      scenario's or, where it gives none, the default scenario's, which its bill's plan uses)
      on which its plan, searched as the scenario's (``step.scenario_plan``; a fixed ``dp``
      follows the count, as ``kept_plan`` has it), fits in memory and
      has a pipeline bubble of at most ``checks.BUBBLE_WARNING`` (``_deadline_counts``); with
      ``gpu_step``, the multiples of ``gpu_step`` instead;
    * budget B alone → the most ``train_tokens`` whose whole bill is at most B on the
      scenario's GPUs (the bill rises with tokens, so bisection on tokens);
    * budget and deadline → the most tokens whose whole bill is at most B and whose main run
      ends within D, over the same GPU counts as the deadline's (``_gpus_for_both``), and
      which limit binds on the count found;
    * the compute-optimal model for the budget's training FLOPs, N*, D* =
      ``scaling.compute_optimal(C)`` (C = 6·N·D; Besiroglu et al. 2024's fit).

    The budget's answer is fitted on the **point** bill. With ``overrun`` (``llmcost estimate
    --budget-usd``) it also says the fitted bill's P50 and the share of its Monte Carlo draws
    above the budget (``ledger.headline_draws``, ``OVERRUN_SAMPLES`` draws, seed 0): a skewed
    range puts the median above the point (a finance trial's fit at $7.00M had a P50 of $7.30M
    and 71% of its draws over).

    Returns
    -------
    DataFrame with ``quantity``, ``value``, ``unit`` and ``how``.

    Raises
    ------
    ValueError
        Neither given, a scenario of post-training alone (``scenario.post_training_only``: no
        pre-training run to fit), a non-positive value, a deadline no GPU count up to 64× the
        scenario's meets (with a plan that fits and no large pipeline bubble, where the counts
        are the plan's), or a budget below the bill of 0.1% of the scenario's tokens.
    """
    if gpu_step is not None:
        _scalar(gpu_step, "gpu_step", positive=True, integer=True)
    overrun = as_flag(overrun, "overrun")

    if budget_usd is None and deadline_days is None:
        raise ValueError("budget_usd and deadline_days are both None: give at least one")
    _no_run_to_fit(scenario)
    if isinstance(scenario, dict) and scenario.get("dp"):  # follows the count: n = TP·PP·CP·DP
        scenario = {**scenario, "dp": 0}
    # the bill does not read the plan; a GPU count without a valid plan is still priced (the
    # MFU is held at the scenario's), so the plan keys and the batch are left out here, but for
    # the experts' layout, which the RL line's update search reads (``_NOT_BILLED``)
    s = {k: v for k, v in _clean(scenario).items()
         if k not in UNBILLED_PLAN_KEYS and k != "global_batch_tokens"}
    bud = None if budget_usd is None else as_scalar(budget_usd, "budget_usd",
                                                         positive=True)
    dl = None if deadline_days is None else as_scalar(deadline_days, "deadline_days",
                                                           positive=True)
    rows = []
    if dl is not None:
        step = int(gpu_step or min(load_accelerator(_get(s, "accelerator")).scaleup_domain_size
                                   or 8, 8))
        counts = _deadline_counts(_plan_scenario(scenario), s, step, gpu_step,
                                  scenario.get("global_batch_tokens") is not None)
        at = _CountPricer(scenario, s)
        row = _gpus_for_deadline(s, dl, counts, at) if bud is None else \
            _gpus_for_both(s, bud, dl, counts, at)
        row = {**row, "how": row["how"] + (at.fallback_words(int(row["value"]))
                                           or _mfu_at_count(scenario, int(row["value"])))}
        n0, n = int(_get(scenario, "n_gpus")), int(row["value"])
        s = at(n)
        rows.append(row)
        # at another count a pilot's or a prediction's MFU is restated as one number
        # (_CountPricer): its band there is not drawn, so no overrun share is said (a review)
        moved = n != n0 and (pilot_given(scenario) or _mfu_is_predicted(scenario))
    else:
        moved = False
    if bud is not None:
        rows += _tokens_for_budget(s, bud, dl, overrun, band_moved=moved)
    return pd.DataFrame(rows)


class _CountPricer:
    """The bill's scenario ``s`` moved to ``n`` GPUs at the MFU a bill there would take
    (``__call__(n)``): with a pilot (``pilot.pilot_given``), the pilots' calibration
    extrapolated to the plan chosen at ``n`` (``pilot.pilot_mfu`` at ``n_gpus=n``); with ``mfu:
    predict`` (``_mfu_prediction``), the central estimate of the prediction there
    (``central_prediction``); a given MFU stays. At the scenario's own count, and where the MFU
    cannot be had at ``n`` (a pilot larger than ``n``, a plan that does not split or fit), the
    scenario's MFU, which the answer then says with why (``fallback_words``). Each count's MFU
    is computed once, the memo shared by the searches' pricers (``with_scenario``).

    Before, the searches of ``fit_budget`` held the scenario's MFU at every count and said the
    MFU of the answered count afterwards: a trial's budget and deadline with pilots answered 512
    GPUs at the 2,048-GPU run's 15.3 % where the pilots give 27.2 % there ($2.00M and 29.6 days
    against `llmcost estimate`'s $1.13M and 16.7 days on that count)."""

    def __init__(self, scenario: dict, s: dict, mfus: dict | None = None):
        self.scenario, self.s, self.n0 = scenario, s, int(_get(s, "n_gpus"))
        self.mfus = {} if mfus is None else mfus   # n -> (MFU or None, why not)

    def with_scenario(self, s: dict) -> "_CountPricer":
        """This pricer on another bill scenario ``s`` (other tokens), its memo shared."""
        return _CountPricer(self.scenario, s, self.mfus)

    def mfu(self, n: int) -> float | None:
        """The MFU a bill on ``n`` GPUs takes, or None for the scenario's own."""
        n = int(n)
        if n == self.n0:
            return None
        if n not in self.mfus:
            self.mfus[n] = _bill_mfu_at(self.scenario, n)
        return self.mfus[n][0]

    def fallback_words(self, n: int) -> str:
        """Where the count ``n`` was priced at the scenario's MFU because no MFU of its own
        could be had there, that and why (words for the answer); "" otherwise."""
        got = self.mfus.get(int(n))
        if not got or got[0] is not None or not got[1]:
            return ""
        return (f"; on {fmt_gpus(int(n))} priced at the scenario's MFU, "
                f"{point(_get(self.s, 'mfu')):.1%}: {got[1]}")

    def __call__(self, n: int, **more) -> dict:
        m = self.mfu(n)
        return {**self.s, "n_gpus": int(n), **({} if m is None else {"mfu": m}), **more}


def _bill_mfu_at(scenario: dict, n: int) -> tuple:
    """``(mfu, why_not)``: the MFU a bill of ``scenario`` on ``n`` GPUs takes where the
    scenario's MFU depends on the GPU count (pilots: ``pilot.pilot_mfu``; ``mfu: predict``:
    ``central_prediction``), or None and "" for a given MFU, or None and the reason where none
    can be had on ``n`` (a pilot larger than ``n``, a plan that does not split or fit)."""
    try:
        if pilot_given(scenario):
            return float(pilot_mfu({**_pilot_scenario(scenario), "n_gpus": int(n)})["value"]), ""
        if _mfu_is_predicted(scenario):   # a report's mfu_band "predicted" too (a teacher's
            # notebook 09 priced 128 GPUs at 100 GPUs' forced-pipeline MFU)
            return float(central_prediction({**scenario, "n_gpus": int(n)})[3]), ""
    except (ValueError, KeyError, TypeError) as e:
        what = "the pilots give" if pilot_given(scenario) else "the step-time model predicts"
        return None, f"{what} none there ({shorten_words(str(e), 160)})"
    return None, ""


def _pilot_scenario(scenario: dict) -> dict:
    """The scenario with its pilot at the scenario's count, ready for ``pilot.pilot_mfu`` at
    another ``n_gpus``: the default scenario's keys under it, and a shorthand pilot without
    ``ledger_pilot_n_gpus`` taken to have measured the run itself."""
    full = {**_default_scenario(), **scenario}
    if not full.get("pilot") and full.get("ledger_pilot_n_gpus") is None:
        full["ledger_pilot_n_gpus"] = int(_get(scenario, "n_gpus"))  # the run's own
    return full


def _plan_scenario(scenario: dict) -> dict:
    """The scenario with the plan keys it leaves out (``step_scenario.PLAN_KEYS``: the global
    batch, the stack, the plan fields) at the default scenario's values, as its bill's plan and
    ``predicted_step`` take them."""
    return {**{k: v for k, v in _default_scenario().items() if k in PLAN_KEYS},
            **{k: v for k, v in scenario.items() if v is not None or k not in PLAN_KEYS}}


def _plan_points(scenario: dict) -> dict:
    """``_plan_scenario`` of the scenario with each ranged value at its point (``_point``), as
    the plan checks (``checks.forced_pipeline_stages``, ``scenario_plan_memory``) take it."""
    return _plan_scenario({k: _point(x, k) for k, x in scenario.items()})


#: Monte Carlo draws of ``fit_budget``'s overrun share (``_overrun_words``): the share's
#: standard error at 20,000 draws is under 0.4 points (√(p(1 − p)/n) ≤ 0.5/√20,000).
OVERRUN_SAMPLES = 20_000


def _overrun_words(led, budget: float) -> str:
    """"; its P50 $X, and N% of its Monte Carlo draws above the budget" for the fitted bill
    ``led`` (``ledger.headline_draws`` of its scenario: its own ranges and the illustrative
    spreads, ``OVERRUN_SAMPLES`` draws; the lines ``bill`` adds beside the ledger's, the
    ``waste_`` keys' jobs, at their point), "" where the bill draws no range."""
    draws = headline_draws(led.scenario, samples=OVERRUN_SAMPLES).draws
    # the lines levers.bill adds beside the ledger's (the waste_ keys' jobs) at their point
    total = np.asarray(draws.total_usd, dtype=float) + (led.total_usd - draws.point.total_usd)
    if total.size < 2 or not beyond_rounding(np.ptp(total), led.total_usd):
        return ""  # (a total its ranges do not move: no share to say)
    over = float(np.mean(total > budget))
    return (f"; fitted on the point bill: its P50 is ${float(np.median(total)):,.0f} and "
            f"{over:.0%} of its Monte Carlo draws ({OVERRUN_SAMPLES:,}) cost more than the budget")


def _one_domain_size(scenario: dict) -> int | None:
    """The scale-up domain size of the scenario's accelerator where it has no scale-out
    bandwidth (the catalogue's or ``comm_scaleout_bytes_per_s``): the most GPUs the step model
    prices (``Cluster``); None where it has one."""
    acc = scenario_accelerator({"accelerator": _get(scenario, "accelerator"), **scenario})
    return acc.scaleup_domain_size if acc.scaleout_bytes_per_s_per_dir is None else None


def _one_domain_words(one: int, accelerator: str) -> str:
    """``_one_domain_size``, ``one``, in a reader's words: "at most 8, one scale-up domain: ..."."""
    return (f"at most {one:,}, one scale-up domain: data/accelerators.csv has no scale-out "
            f"bandwidth for {accelerator} (give comm_scaleout_bytes_per_s for larger counts)")


def _deadline_counts(scenario: dict, s: dict, step: int, gpu_step,
                     batch_given: bool = True) -> tuple:
    """The GPU counts the deadline search may answer, up to 64× the scenario's (at most one
    scale-up domain, without ``gpu_step``, on an accelerator without a scale-out figure:
    ``_one_domain_size``), how they are described, the test a count must pass to be answered
    (None: every count) and the cap's words where it binds (else ""): without
    ``gpu_step``, where the global batch (``_plan_scenario``'s: the scenario's or the default
    one) is whole sequences, the counts a plan splits (``parallel.splitting_gpu_counts``: dp ×
    tp·pp·cp, dp dividing the batch, tp, pp and cp at the scenario's values where it fixes them
    to a whole number, the layers split evenly unless the scenario fixes another split) from
    the first on which a plan fits (``checks.fitting_counts``), and the test
    ``checks.plan_stops`` (why
    not, "" when the plan searched there fits and its pipeline bubble is at most
    ``checks.BUBBLE_WARNING``), so that the answer is a count the scenario can run without
    idling its GPUs; else the multiples of
    ``step``. ``batch_given`` false: the description says the batch is the default one."""
    top = 64 * int(_get(s, "n_gpus"))
    # an accelerator without a scale-out figure (L40S, MI325X, TPU v4 beyond a pod) prices a
    # job within one scale-up domain only (Cluster): the search stops there, and says so (a
    # review: 8 L40S answered for a budget that buys 256 with the figure given, unsaid)
    # (a count searched by plan only: with gpu_step the bill prices any multiple at its MFU)
    one = _one_domain_size({**s, **scenario}) if gpu_step is None else None
    capped = "" if one is None or one >= top else \
        _one_domain_words(one, _get({**s, **scenario}, "accelerator"))
    top = top if one is None else min(top, one)
    fixed = fixed_whole_degrees(scenario)
    seq = int(scenario.get("seq_len") or _get(s, "seq_len"))
    batch = scenario.get("global_batch_tokens")
    if gpu_step is None and isinstance(batch, (int, float, np.integer)) and batch % seq == 0:
        counts = splitting_counts({**scenario, "model": _get(s, "model")}, seq)
        named = "".join(f", {k.upper()}{v}" for k, v in fixed.items() if v > 1)
        plan_at = plan_searches(scenario)  # each count's plan searched once for both tests
        return (fitting_counts(scenario, [n for n in counts if n <= top], plan_at),
                f"fewest count a plan splits and fits in memory with a pipeline bubble of at "
                f"most {BUBBLE_WARNING:.0%} (dp dividing the {int(batch) // seq:,}-sequence "
                f"global batch{'' if batch_given else ' of the default scenario'}{named}"
                f"{'; ' * bool(capped)}{capped})", lambda n: plan_stops(scenario, n, plan_at),
                capped)
    return (list(range(step, top + 1, step)), f"fewest multiple of {step}{'; ' * bool(capped)}"
            f"{capped}", None, capped)


def _mfu_at_count(scenario: dict, n: int) -> str:
    """With ``mfu: predict`` (the bill's ``_mfu_prediction``), what the step-time model
    predicts at ``n`` GPUs and the central estimate a ``mfu: predict`` bill would use there
    (``central_prediction``: the plan chosen there, its MFU p and band, p ÷ (1 + c) kept inside
    the band, as at the scenario's count), the MFU the search priced the count at
    (``_CountPricer``); with a pilot (``pilot.pilot_given``), the pilots' MFU extrapolated to
    ``n`` GPUs instead (``_pilot_mfu_at_count``); "" for a given MFU or a plan that cannot be
    priced."""
    if pilot_given(scenario) and int(n) != int(_get(scenario, "n_gpus")):
        return _pilot_mfu_at_count(scenario, int(n))
    pred = scenario.get("_mfu_prediction")
    if not pred or int(n) == int(_get(scenario, "n_gpus")):
        return ""
    try:
        plan, b, band, _ = central_prediction({**scenario, "n_gpus": int(n)})
    except (ValueError, KeyError, TypeError):
        return ""
    kind = ("the band's capped top" if pred.get("center_capped") else "the central estimate")
    was = (f"{pred['value']:.1%}, {kind} of the predicted {pred['predicted']:.1%}"
           if "predicted" in pred and abs(pred["predicted"] - pred["value"]) >= 5e-4
           else f"{pred['value']:.1%}")
    return (f"; these figures take the MFU of a bill on {fmt_gpus(n)}, not the one for the "
            f"scenario's {fmt_gpus(_get(scenario, 'n_gpus'))} ({was}): on {fmt_gpus(n)} "
            + central_mfu_words(b.mfu, band.center, band.n, band.low, band.high,
                                plan.describe()).replace(", so the bill uses", ", so a bill "
                                                         "there uses")
            + f"; the whole bill there: re-price with n_gpus: {int(n)}")


def _pilot_mfu_at_count(scenario: dict, n: int) -> str:
    """With a pilot, the MFU the bill would take at ``n`` GPUs: the step model calibrated on the
    pilots and extrapolated to the plan chosen at ``n`` (``pilot.pilot_mfu`` with ``n_gpus=n``,
    as ``mfu: predict`` re-predicts there in ``_mfu_at_count``), the MFU the search priced the
    count at (``_CountPricer``). A shorthand pilot without ``ledger_pilot_n_gpus`` measured the run
    itself, so it is taken to have run at the scenario's count. "" when the pilots cannot be
    extrapolated to ``n`` (a pilot larger than ``n``, a plan that does not split or fit)."""
    full, n0 = _pilot_scenario(scenario), int(_get(scenario, "n_gpus"))
    try:
        here, there = pilot_mfu(full), pilot_mfu({**full, "n_gpus": int(n)})
    except (ValueError, KeyError, TypeError):
        return ""
    return (f"; these figures take the MFU of a bill on {fmt_gpus(n)}, not the one for the "
            f"scenario's {fmt_gpus(n0)} (the pilots' {here['value']:.1%}, extrapolated): on "
            f"{fmt_gpus(n)} the pilots extrapolate to {there['value']:.1%} (band "
            f"{there['low']:.1%}–{there['high']:.1%}) for {there['plan']}; the whole bill "
            f"there: re-price with n_gpus: {int(n)}")


def _candidates(counts: tuple, dl: float) -> tuple:
    """``_deadline_counts``' (candidates, description, test), the test ``stops(i)`` read on
    the candidates' indices ("" everywhere without one: ``checks.plan_stops``), refused with the
    deadline named when no GPU count up to 64× the scenario's splits its plan."""
    cands, what, test = counts[:3]  # (the fourth: the one-domain cap's words, or "")
    if not cands:
        raise ValueError(f"deadline_days={dl!r}: no GPU count up to 64× the scenario's splits "
                         "its plan (check tp, pp, cp and global_batch_tokens)")
    return cands, what, (lambda i: "") if test is None else (lambda i: test(cands[i]))


def _unimodal_min(f, a: int, b: int) -> int:
    """The index in [a, b] where ``f`` (falling, then rising: the wall clock against the GPU
    count) is least, by ternary search on the integers: about 2·log₁.₅(b − a) calls."""
    while b - a > 2:
        m1, m2 = a + (b - a) // 3, b - (b - a) // 3
        a, b = (a, m2) if f(m1) <= f(m2) else (m1, b)
    return min(range(a, b + 1), key=f)


def _next_running(stops, i: int, way: int, size: int):
    """The index nearest ``i`` in direction ``way`` (±1) among ``size`` candidates on which
    the scenario runs (``stops`` says nothing: ``_candidates``), or None."""
    j = i + way
    while 0 <= j < size and stops(j):
        j += way
    return j if 0 <= j < size else None


def _gpus_for_deadline(s: dict, dl: float, counts: tuple, at=None) -> dict:
    """The fewest GPUs among ``counts`` (``_deadline_counts``: sorted candidates, their
    description and the test a count must pass) whose main run's wall clock (failures
    included) is at most ``dl`` days: doubling, then bisection (the wall clock falls as GPUs
    are added, until failures of the larger job outweigh them; up to 64× the scenario's
    count), then the first count from there that passes the test and still meets ``dl``.
    ``at``: a ``_CountPricer`` (each count at the MFU a bill there takes; by default the
    scenario's MFU at every count)."""
    cands, what, stops = _candidates(counts, dl)
    n0 = int(_get(s, "n_gpus"))
    at = _CountPricer({}, s) if at is None else at
    memo = {}

    def days(i):
        if i not in memo:
            memo[i] = bill(at(cands[i])).figures["wall_clock_days"]
        return memo[i]

    lo, hi = -1, min(bisect.bisect_left(cands, n0), len(cands) - 1)
    while days(hi) > dl:  # double until the deadline is met or more GPUs stop helping
        nxt = bisect.bisect_left(cands, 2 * cands[hi])  # the first candidate >= 2× hi's
        if nxt >= len(cands) or days(nxt) >= days(hi):
            # the fastest count may lie between hi and nxt (the wall clock falls, then rises
            # as failures of the larger job outweigh the GPUs): searched before refusing
            m = _unimodal_min(days, hi, min(nxt, len(cands) - 1))
            if days(m) <= dl:
                lo, hi = hi, m
                break
            best = min(memo, key=memo.get)
            one = counts[3] if len(counts) > 3 else ""  # the cap that bound the search
            raise ValueError(
                f"deadline_days={dl!r} cannot be met: the shortest main run found is "
                f"{_days_text(memo[best])} on {fmt_gpus(cands[best])} ("
                + (f"counts {one}" if one and nxt >= len(cands) else
                   "more GPUs fail more often, up to 64× the scenario's count tried") + ")")
        lo, hi = hi, nxt
    while hi - lo > 1:  # the first candidate with days <= dl, in (lo, hi]
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if days(mid) > dl else (lo, mid)
    first, hi = hi, _next_running(stops, hi - 1, 1, len(cands))
    while hi is not None and days(hi) > dl:  # past the fastest count: the next that runs
        hi = _next_running(stops, hi, 1, len(cands))
    if hi is None:
        raise ValueError(f"deadline_days={dl!r}: no GPU count that meets it (from "
                         f"{cands[first]:,}, {_days_text(days(first))}) has a plan that fits "
                         f"with a pipeline bubble of at most {BUBBLE_WARNING:.0%} "
                         f"({stops(first)}); a larger global_batch_tokens lets data "
                         "parallelism take more GPUs")
    total = bill(at(cands[hi])).total_usd   # a small lab read a count and no dollar figure
    return {"quantity": "GPUs to meet the deadline", "value": float(cands[hi]), "unit": "GPUs",
            "how": f"{what} with the main run within {_days_text(dl)} "
            f"({_days_text(days(hi))}, failures included; the whole bill on that count: "
            f"{fmt_usd(total)}) {_priced_at_words(at.scenario)}"
            f"{_phases_outside(s)}; check a parallel plan at this count in notebook 03"}


def _phases_outside(s: dict) -> str:
    """"; the pre-training phase(s) after it ... not counted in the deadline" for a scenario
    with ``phases`` (the deadline bounds the main run's wall clock: a trial's 30 days for a
    15T-token run and an 800B-token phase at 131,072 tokens was answered with the main run's
    17.1 days, the phase unsaid); "" without."""
    n = len(_clean(s).get("phases") or [])
    which = "the pre-training phase" if n == 1 else f"the {n} pre-training phases"
    return (f"; {which} after the main run (phases) {noun(n, 'is', 'are')} not counted in the "
            "deadline" if n else "")


def _priced_at_words(scenario: dict) -> str:
    """How ``fit_budget``'s GPU searches price each count's MFU (``_CountPricer``)."""
    if pilot_given(scenario):
        return "with each count at the MFU the pilots extrapolate to there"
    if _mfu_is_predicted(scenario):
        return "with each count at the MFU a `mfu: predict` bill takes there"
    return "at the scenario's MFU"


def _days_text(days: float) -> str:
    """Days as a reader reads them: hours or minutes under two days (``units.fmt_duration``)."""
    return fmt_duration(days * SECONDS_PER_DAY)


def _largest_tokens(fits, lo: float, hi: float, steps: int = 40, margin=None) -> tuple:
    """The bracket (lo, hi) of the largest token count that ``fits`` (a test that holds below
    a threshold and fails above it: the bill and the wall clock rise with tokens), given
    ``fits(lo)``: ``hi`` doubled until it fails, then narrowed to the log-width ``steps``
    geometric bisections (mid = √(lo·hi)) would leave, ln(hi/lo) ÷ 2^steps; ``lo`` fits, ``hi``
    does not.

    With ``margin`` (a number ≥ 0 exactly where ``fits`` holds, varying smoothly with the
    tokens: the relative room left under each limit), the bracket is narrowed by false
    position instead (regula falsi: the threshold estimated where the line through the
    bracket's two margins, against tokens, crosses zero; Press et al., Numerical Recipes, 3rd
    ed., §9.2):
    each round tests the two points half the final width on either side of the estimate, which
    close the bracket when the estimate is that close, and a round that does not halve the
    bracket ends with a bisection, so it never needs many more tests than bisection. The bill is
    near-linear in tokens (GPU-hours = 6·N·D ÷ (peak · MFU) and the lines that follow it), so two
    or three rounds replace thirty bisections; the answer is the same threshold to the same
    width (``tests/test_levers.py`` holds the two searches to it)."""
    top = MAGNITUDE_LIMITS["train_tokens"][0]
    while fits(hi):
        if hi * 2 > top:  # past it the bill refuses the tokens as a typo (scenario.py)
            raise ValueError(f"the budget buys more than {top:.0e} tokens, the most a scenario "
                             f"may train ({MAGNITUDE_LIMITS['train_tokens'][1]}): give a "
                             "smaller budget")
        lo, hi = hi, hi * 2
    width = math.log(hi / lo) / 2 ** steps  # the final bracket's log-width
    a, b = math.log(lo), math.log(hi)
    ta, tb = lo, hi  # the tokens tested at a and b (exp(log(t)) need not be t: a memo's key)
    fa = fb = None
    while b - a > width * (1 + 1e-9):
        before = b - a
        if margin is not None:
            fa = margin(ta) if fa is None else fa
            fb = margin(tb) if fb is None else fb
            # the line drawn against tokens, where the bill is near-straight
            t = tb - fb * (tb - ta) / (fb - fa) if fb != fa else math.sqrt(ta * tb)
            x = math.log(t) if t > 0 else (a + b) / 2
            for y in sorted({min(max(x - width / 2, a), b - width),
                             min(max(x + width / 2, a + width), b)}):
                if a < y < b:
                    t = math.exp(y)
                    if fits(t):
                        a, ta, fa = y, t, margin(t)
                    else:
                        b, tb, fb = y, t, margin(t)
        if b - a > before / 2 and b - a > width * (1 + 1e-9):
            y = (a + b) / 2
            t = math.exp(y)
            if fits(t):
                a, ta = y, t
            else:
                b, tb = y, t
            fa = fb = None
    return ta, tb


def _gpus_for_both(s: dict, bud: float, dl: float, counts: tuple, at=None) -> dict:
    """The GPU count among ``counts`` (``_deadline_counts``) on which the most tokens have a
    whole bill ≤ ``bud`` and a main run within ``dl`` days.

    On n GPUs the most tokens are T(n) = min(T_B(n), T_D(n)): T_D, the deadline's, grows with
    n (the wall clock ≈ tokens ÷ n until failures outweigh the GPUs) and T_B, the budget's,
    changes little with n (GPU-hours ≈ tokens ÷ MFU whatever n; only goodput and the lines
    that scale with GPUs move), so T peaks where the two cross. Start at the fewest count that
    meets the deadline for the budget's tokens on the scenario's GPUs (or, if none does, the
    count with the shortest run), then climb to a neighbouring count while it fits more tokens,
    to a larger one only when it fits more than ``SAME_TOKENS_REL`` more (T is taken as
    unimodal in n: an assumption of this search, true of the two trends above).
    Only counts that pass ``counts``' test (``checks.plan_stops``) are answered or named as
    neighbours. ``at``: a ``_CountPricer``, as ``_gpus_for_deadline``'s."""
    cands, what, stops = _candidates(counts, dl)
    t0 = float(_get(s, "train_tokens"))
    at = _CountPricer({}, s) if at is None else at
    memo = {}

    def led_of(n, t):
        if (n, t) not in memo:
            memo[(n, t)] = bill(at(n, train_tokens=t))
        return memo[(n, t)]

    def fits(n, t, days=True):
        led = led_of(n, t)
        return led.total_usd <= bud and (not days or led.figures["wall_clock_days"] <= dl)

    def margin(n, t, days=True):  # the relative room under each limit: >= 0 where it fits
        led = led_of(n, t)
        room = 1 - led.total_usd / bud
        return min(room, 1 - led.figures["wall_clock_days"] / dl) if days else room

    n0 = int(_get(s, "n_gpus"))
    if not fits(n0, 1e-3 * t0, days=False):
        return {"quantity": "GPUs for the budget and the deadline", "value": float(n0),
                "unit": "GPUs", "how": "the scenario's (the budget is below the fixed lines)"}
    t_b = _largest_tokens(lambda t: fits(n0, t, days=False), 1e-3 * t0, t0, 30,
                          margin=lambda t: margin(n0, t, days=False))[0]
    try:
        i = cands.index(int(_gpus_for_deadline({**s, "train_tokens": t_b}, dl, counts,
                                               at.with_scenario({**s, "train_tokens": t_b})
                                               )["value"]))
    except ValueError:  # no count meets the deadline at those tokens: the shortest run
        i = min((k for k in range(len(cands)) if not stops(k)), default=None,
                key=lambda k: led_of(cands[k], t_b).figures["wall_clock_days"])
        if i is None:
            raise ValueError(f"deadline_days={dl!r} with budget_usd={bud!r}: no GPU count up to "
                             "64× the scenario's has a plan that fits with a pipeline bubble "
                             f"of at most {BUBBLE_WARNING:.0%} ({what.removeprefix('fewest ')})"
                             ) from None
    if not fits(cands[i], 1e-3 * t0):
        led = led_of(cands[i], 1e-3 * t0)
        raise ValueError(f"deadline_days={dl!r} with budget_usd={bud!r}: even 0.1% of the "
                         f"scenario's tokens do not fit both: "
                         f"{_days_text(led.figures['wall_clock_days'])} and "
                         f"${led.total_usd:,.0f} on {fmt_gpus(cands[i])}")
    best_t = _largest_tokens(lambda t: fits(cands[i], t), 1e-3 * t0, t_b, 30,
                             margin=lambda t: margin(cands[i], t))[0]
    for way in (-1, 1):  # climb while a neighbouring count fits more tokens; to more GPUs only
        j = _next_running(stops, i, way, len(cands))  # for more than SAME_TOKENS_REL more
        gain = 1e-6 if way < 0 else SAME_TOKENS_REL
        while j is not None and fits(cands[j], best_t * (1 + gain)):
            best_t = _largest_tokens(lambda t, k=j: fits(cands[k], t), best_t * (1 + gain),
                                     best_t * 1.01, 30, margin=lambda t, k=j: margin(cands[k], t)
                                     )[0]
            i, j = j, _next_running(stops, j, way, len(cands))
    why = [_neighbour_words(cands[k], k > i, best_t, led_of, fits, bud, dl)
           for k in (_next_running(stops, i, -1, len(cands)),
                     _next_running(stops, i, 1, len(cands))) if k is not None]
    return {"quantity": "GPUs for the budget and the deadline", "value": float(cands[i]),
            "unit": "GPUs",
            "how": f"the {what.removeprefix('fewest ')} on which the most tokens have the whole "
            f"bill ≤ ${bud:,.0f} and the main run within {_days_text(dl)} ("
            + ("; ".join(why) or "the only count") + f") {_priced_at_words(at.scenario)}"
            f"{_phases_outside(s)}; check a parallel plan at this count in notebook 03"}


#: A larger GPU count that fits no more than this share more tokens than a smaller one, for
#: the same budget and deadline, is no better (``fit_budget`` answers the smaller): a trial's
#: $2M and 30 days on an MoE run answered 512 GPUs because 256 exceeded the budget by $206 at
#: 512's tokens (a shorter run stores its checkpoints for fewer days), while 256 met the
#: deadline in 24. A decision threshold, as ``SAME_MFU_REL``: far inside the bill's own
#: P10-P90 spread, not a fitted figure.
SAME_TOKENS_REL = 0.005


def _neighbour_words(n: int, larger: bool, best_t: float, led_of, fits, bud: float,
                     dl: float) -> str:
    """Why ``_gpus_for_both`` does not answer the neighbouring count ``n``: every limit that
    stops it at more tokens than ``best_t`` (the budget, the deadline), or, for a larger count
    that fits more but by no more than ``SAME_TOKENS_REL``, by how much (T(n) ÷ best_t − 1)."""
    led = led_of(n, best_t * (1 + 1e-6))
    over = [w for w, bad in (("the budget", led.total_usd > bud),
                             ("the deadline", led.figures["wall_clock_days"] > dl)) if bad]
    if over:
        verb = "allows" if len(over) == 1 else "allow"
        return f"on {fmt_gpus(n)} {' and '.join(over)} {verb} fewer"
    if not larger:
        return f"on {fmt_gpus(n)} it fits as many"
    more = _largest_tokens(lambda t: fits(n, t), best_t * (1 + 1e-6),
                           best_t * (1 + SAME_TOKENS_REL), 30)[0] / best_t - 1
    return (f"on {fmt_gpus(n)} {more:.2%} more tokens fit, within {SAME_TOKENS_REL:.1%}: no reason "
            "for more GPUs")


def _floor_significant(x: float, digits: int = 4) -> float:
    """``x`` > 0 rounded down to ``digits`` significant figures: 1.3875e12 → 1.387e12 (what
    ``units.fmt_count`` prints it as, never above it)."""
    e = math.floor(math.log10(x)) - (digits - 1)
    k = math.floor(round(x / 10.0 ** e, 9))  # round(): 1.387e12 / 1e9 is 1386.9999999999998
    return k * 10.0 ** e


def _below_smallest_bill(bud: float, small, half) -> str:
    """Why a budget buys no run: the bill of 0.1% of the scenario's tokens, ``small``, is over
    it. Each line's part that does not shrink with the tokens is read off two bills, at 0.1%
    and at 0.05% (``half``), by a straight line to no tokens: ``fixed = 2 · usd(½t) − usd(t)``
    (at least 0; the bill is near-linear in tokens, GPU-hours = 6·N·D ÷ (peak · MFU)). Where
    those parts alone exceed the budget, the lines that hold them are named with their sum;
    else the budget would buy fewer than 0.1% of the tokens, which the search does not go
    below, and that is said. A trial read "what does not shrink with them exceeds it" beside
    the exploratory runs, a line that does."""
    at_half = {ln.line: ln.usd for ln in half.lines}
    fixed = sorted(((ln.line, max(2 * at_half.get(ln.line, 0.0) - ln.usd, 0.0))
                    for ln in small.lines if ln.usd), key=lambda x: -x[1])
    total = sum(usd for _, usd in fixed)
    head = (f"budget_usd={bud:,.0f} is below the bill of 0.1% of the scenario's tokens "
            f"(${small.total_usd:,.0f})")
    if total > bud:
        named = [f"{line} {fmt_usd(usd)}" for line, usd in fixed[:3] if usd >= 0.005 * total]
        return (f"{head}: the lines that do not shrink with the tokens come to about "
                f"{fmt_usd(total)} on their own (read from the bills of 0.1% and 0.05% of the "
                "tokens), more than the budget; the largest: " + ", ".join(named))
    top = sorted((ln for ln in small.lines if ln.usd), key=lambda ln: -ln.usd)[:3]
    return (f"{head}, the least run this search prices; what does not shrink with the tokens "
            f"is about {fmt_usd(total)}, so the budget would buy a run of fewer tokens: give a "
            "smaller train_tokens to search from; at 0.1% the largest lines are "
            + ", ".join(f"{ln.line} {fmt_usd(ln.usd)}" for ln in top))


def _tokens_for_budget(s: dict, bud: float, deadline_days: float | None = None,
                       overrun: bool = False, band_moved: bool = False) -> list:
    """The most ``train_tokens`` whose whole bill is at most ``bud`` and, with a deadline, whose
    main run (failures included) ends within ``deadline_days`` on the scenario's GPUs (both rise
    with tokens: doubling, then narrowed to the width of 40 geometric bisections by false
    position, ``_largest_tokens``; stated to four figures, rounded down where rounding up would
    break a limit, ``_floor_significant``, so they price within the limits again), the main
    run's days at those tokens,
    and the compute-optimal N*, D* for their FLOPs counted as the fit counts them
    (``scaling.compute_optimal``: C = 6·N·D with N the active parameters, Besiroglu et al. 2024;
    not the MFU basis, which adds attention's FLOPs)."""
    t0 = float(_get(s, "train_tokens"))
    memo = {}

    def led_of(t):
        if t not in memo:
            memo[t] = bill({**s, "train_tokens": t})
        return memo[t]

    def fits(t):
        led = led_of(t)
        return led.total_usd <= bud and (deadline_days is None
                                          or led.figures["wall_clock_days"] <= deadline_days)

    def margin(t):  # the relative room under each limit: >= 0 where it fits
        led = led_of(t)
        room = 1 - led.total_usd / bud
        return room if deadline_days is None else min(
            room, 1 - led.figures["wall_clock_days"] / deadline_days)

    lo = 1e-3 * t0
    if led_of(lo).total_usd > bud:
        raise ValueError(_below_smallest_bill(bud, led_of(lo), led_of(lo / 2)))
    if not fits(lo):
        raise ValueError(f"deadline_days={deadline_days!r}: even 0.1% of the scenario's tokens "
                         f"take {_days_text(led_of(lo).figures['wall_clock_days'])} on "
                         f"{fmt_gpus(int(_get(s, 'n_gpus')))}")
    lo, hi = _largest_tokens(fits, lo, t0, margin=margin)
    # the answer as read (four figures, rounded down where rounding up would not fit): the
    # tokens it states keep within the limits when priced again (a trial re-priced "1.388T" for
    # a threshold of 1.3875T: $536 over)
    near = float(f"{lo:.4g}")
    lo = near if fits(near) else max(_floor_significant(lo, 4), 1e-3 * t0)
    led = led_of(lo)
    # the fit's own convention: C = 6·N·D (not the MFU basis, which adds the attention FLOPs)
    flops = led.figures["training_flops_6nd"]
    n_opt, d_opt = compute_optimal(flops)
    days = led.figures["wall_clock_days"]
    over_bill, over_days = led_of(hi).total_usd > bud, (
        deadline_days is not None and led_of(hi).figures["wall_clock_days"] > deadline_days)
    binds = ("both limits bind" if over_bill and over_days else
             "the deadline binds" if over_days else "the budget binds")
    limits = f"the whole bill ≤ ${bud:,.0f}" + (
        f" and the main run within {_days_text(deadline_days)}" if deadline_days is not None else "")
    return [{"quantity": "tokens the budget buys", "value": lo, "unit": "tokens",
             "how": f"most train_tokens with {limits} on {fmt_gpus(int(_get(s, 'n_gpus')))} "
             f"(bill ${led.total_usd:,.0f}, {_days_text(days)}; {binds})"
             + ("; its range on that count, with the MFU's band there: re-price it with "
                f"n_gpus: {int(_get(s, 'n_gpus'))}" if overrun and band_moved else
                _overrun_words(led, bud) if overrun else "")},
            {"quantity": "days of the main run at those tokens", "value": days, "unit": "days",
             "how": "the main run's paid wall clock, failures included"},
            {"quantity": "compute-optimal parameters for those FLOPs",
             "value": float(n_opt), "unit": "parameters",
             "how": f"scaling.compute_optimal(C = 6·N·D = {flops:.3g} FLOP of those tokens): "
             f"N* with D* = {fmt_count(float(d_opt), 3)} tokens (Besiroglu et al. 2024's fit, "
             "whose C is 6·N·D)" + (
                 f"; a fit of dense models: for the mixture-of-experts {_get(s, 'model')} read "
                 "N* as dense parameters, not its total or active count"
                 if load_model(_get(s, "model")).is_moe else "") + _served_words(s)}]


def _served_words(s: dict) -> str:
    """"; training compute alone: ..." where the scenario gives served tokens
    (``inference_tokens_lifetime`` > 0): the budget's N* minimises the training loss for its
    FLOPs, not training plus serving, whose FLOP optimum is a smaller model trained longer
    (Sardana et al. 2024) and whose dollar optimum moves with the serving price (notebook 06):
    an economist's 8B with 10^14 served tokens was told 77B, where notebook 06 gave 9.6B. ""
    otherwise."""
    served = _clean(s).get("inference_tokens_lifetime")   # the scenario's own, not a default
    if not (isinstance(served, (int, float)) and served > 0):
        return ""
    return (f"; training compute alone: with the scenario's {fmt_count(float(served), 3)} served "
            "tokens the optimum over training and serving differs (in FLOPs a smaller model "
            "trained on more tokens, Sardana et al. 2024; in dollars as serving is priced: "
            "notebook 06, the inference-adjusted optimum)")


# ------------------------------------------------------------------------------ attribution
@dataclass(frozen=True)
class Run:
    """One run of a portfolio: its ``name``, its tags (``team``, ``project``, ``phase``: one of
    ``PORTFOLIO_PHASES``) and its scenario (priced by ``bill``)."""

    name: str
    team: str
    project: str
    phase: str
    scenario: dict = field(default_factory=dict)

    def __post_init__(self):
        for f in ("name", "team", "project"):
            if not isinstance(getattr(self, f), str) or not getattr(self, f):
                raise ValueError(f"{f}={getattr(self, f)!r} must be a non-empty string")
        if self.phase not in PORTFOLIO_PHASES:
            raise ValueError(f"phase={self.phase!r} must be one of {', '.join(PORTFOLIO_PHASES)}")
        if not isinstance(self.scenario, dict):
            raise ValueError(f"scenario={self.scenario!r} must be a dict")


PORTFOLIO_PHASES = ("ablation", "pre-training", "context extension", "post-training",
                    "evaluation")


def portfolio(runs) -> "pd.DataFrame":  # noqa: F821
    """The bill of every run, line by line, with the run's tags beside the ledger's own
    (``category``, ledger ``phase``, fixed or elastic) and its budget alert
    (``checks.budget_warning`` against the run's ``ledger_budget_usd``).

    Returns
    -------
    DataFrame: ``run``, ``team``, ``project``, ``phase`` (the run's tag), ``line``, ``key``,
    ``category``, ``ledger_phase``, ``kind``, ``usd``, ``gpu_hours`` (per run, on its first
    row only), ``alert``. Its ``usd`` sums to the total of the runs' bills.
    """

    if not isinstance(runs, (list, tuple)):
        raise ValueError(f"runs={runs!r} must be a non-empty list of levers.Run")
    runs = list(runs)
    if not runs or not all(isinstance(r, Run) for r in runs):
        raise ValueError(f"runs={runs!r} must be a non-empty list of levers.Run")
    names = [r.name for r in runs]
    if len(set(names)) != len(names):
        raise ValueError(f"run names {names} must be unique")
    rows = []
    for r in runs:
        b = bill(r.scenario)
        alert = budget_warning(b.total_usd, b.figures.get("budget_usd")) or ""
        for i, ln in enumerate(b.lines):
            rows.append({"run": r.name, "team": r.team, "project": r.project, "phase": r.phase,
                         "line": ln.line, "key": ln.key, "category": ln.category,
                         "ledger_phase": ln.phase, "kind": ln.kind, "usd": ln.usd or 0.0,
                         "gpu_hours": gpu_hours(b) if i == 0 else 0.0, "alert": alert})
    return pd.DataFrame(rows)


def attribute(frame, by=("team",)):
    """Where did the money go: ``portfolio`` rows grouped by ``by`` (tag or ledger columns),
    USD, GPU-hours and share, largest first, with a ``total`` row equal to the portfolio's
    total (a test checks that the groups sum to it)."""
    _frame(frame, "frame", ("usd", "gpu_hours"))
    if not isinstance(by, (str, list, tuple)):
        raise ValueError(f"by={by!r} must be a column name or a list of them")
    by = [by] if isinstance(by, str) else list(by)
    bad = [c for c in by if not isinstance(c, str) or c not in frame.columns
           or c in ("usd", "gpu_hours")]
    if not by or bad:
        raise ValueError(f"by={by!r} must name portfolio columns (e.g. team, project, phase, "
                         f"category, ledger_phase); bad: {bad}")
    g = frame.groupby(by, sort=False)[["usd", "gpu_hours"]].sum().sort_values("usd",
                                                                            ascending=False)
    total = float(frame["usd"].sum())
    g["share"] = g["usd"] / total if total else 0.0
    g = g.reset_index()
    tot = {c: ("total" if i == 0 else "") for i, c in enumerate(by)}
    tot.update(usd=total, gpu_hours=float(frame["gpu_hours"].sum()), share=1.0)
    return pd.concat([g, pd.DataFrame([tot])], ignore_index=True)


#: The keys of a bill's project lines, at their "none" values: what ``example_portfolio``'s runs
#: other than the pre-training one leave out, so that the portfolio counts them once.
PROJECT_ONCE = {"ledger_people": [], "ledger_contributors": None,
                "ledger_operations_usd_per_month": 0.0, "ledger_data_licensing_usd": 0.0,
                "ledger_data_processing_usd": 0.0, "ledger_annotation_samples": 0.0,
                "ledger_human_eval_hours": 0.0, "ledger_egress_bytes": 0.0,
                "ledger_cross_region_bytes": 0.0, "ledger_log_bytes": 0.0,
                "ledger_rerun_probability": 0.0, "ledger_reserve_fraction": 0.0,
                "ledger_budget_usd": None}


def example_portfolio(scenario: dict) -> list:
    """A **synthetic** portfolio around the scenario (labelled as such wherever shown): three
    ablations of a 7B model (100B tokens on 256 GPUs each, team "research"), the scenario's
    pre-training run (team "pretraining"), a 32K context extension (50B tokens, team
    "pretraining"), SFT + RL post-training (team "post-training") and benchmark runs (team
    "evaluation"). Every run is the scenario with a few keys changed; every number is priced by
    ``bill``. The project's own lines (people, operations, data licensing and processing,
    annotation, human evaluation, transfers, logs, the reserve: ``PROJECT_ONCE``) are the
    pre-training run's alone, priced once (a trial's $100k team was billed in each of the 7
    runs, a $758k portfolio around a $100k bill)."""
    s = _clean(scenario)
    # no exploratory compute in any run (the ablations are runs of their own): the fraction 0
    # and no listed runs, which would replace it (scenario.exploratory_given_once); the
    # project's own lines in the pre-training run only
    none = {"ledger_exploratory_fraction": 0.0, "ledger_exploratory_runs": [], "ledger_rl": False,
            **PROJECT_ONCE}
    # the scenario's checkpoint interval is its own run's: the other runs take their optimum (a
    # trial's interval longer than its run, on spot, left the 256-GPU ablations never finishing)
    other = {**none, "ckpt_interval_s": None}
    small = {**s, **other, "model": "llama-2-7b", "train_tokens": 1e11, "n_gpus": 256,
             **{k: _default_free(k) for k in PLAN_PARAMETERS if k != "cp"}}
    proj = "flagship"
    runs = [Run(f"ablation-{i}", "research", proj, "ablation", small) for i in (1, 2, 3)]
    runs.append(Run("pretrain", "pretraining", proj, "pre-training",
                    {**s, **{k: v for k, v in none.items() if k not in PROJECT_ONCE}}))
    runs.append(Run("long-context", "pretraining", proj, "context extension",
                    {**s, **other, "train_tokens": 5e10, "seq_len": 32768}))
    runs.append(Run("sft-rl", "post-training", proj, "post-training",
                    {**s, **other, "train_tokens": 1e9,
                     "ledger_sft_tokens": 2e10, "ledger_rl": True}))
    runs.append(Run("evals", "evaluation", "flagship", "evaluation",
                    {**s, **other, "train_tokens": 1e8, "ledger_eval_requests": 2e6}))
    return runs


def improvement_series():
    """``data/improvement_series.csv``: published runs of one model family with their
    GPU-hours and a benchmark score each (sources per row)."""

    return pd.read_csv(DATA_DIR / "improvement_series.csv")


def cost_per_point(series=None, price_usd_per_gpu_hour: float | None = None,
                   accelerator: str | None = None):
    """What each point of benchmark improvement cost along a series of runs (``series``:
    ``improvement_series()`` by default):

        cost per point (run i) = (USD_i − USD_{i−1}) / (score_i − score_{i−1}),
        USD = GPU-hours × price per GPU-hour

    at ``price_usd_per_gpu_hour`` or the catalogue median on-demand price of the series'
    accelerator. Returns the series with ``usd``, ``delta_usd``, ``delta_points`` and
    ``usd_per_point`` (NaN for the first run; a run that did not improve the score gets NaN and
    the note "no improvement")."""
    if accelerator is not None and not isinstance(accelerator, str):
        raise ValueError(f"accelerator={accelerator!r} must be a catalogue accelerator name")
    df = (improvement_series() if series is None else _frame(series, "series")).copy()
    need = {"run_id", "gpu_hours", "score", "accelerator"}
    if not need <= set(df.columns) or df.empty:
        raise ValueError(f"series must have the columns {sorted(need)} and at least one row")
    if price_usd_per_gpu_hour is None:
        acc = accelerator or df["accelerator"].iloc[0]
        price, _ = catalogue_price(acc, "on_demand")
    else:
        price = as_scalar(price_usd_per_gpu_hour, "price_usd_per_gpu_hour", positive=True)
    df = df.sort_values("gpu_hours").reset_index(drop=True)
    df["usd"] = df["gpu_hours"] * price
    df["delta_usd"] = df["usd"].diff()
    df["delta_points"] = df["score"].diff()
    df["usd_per_point"] = df["delta_usd"] / df["delta_points"].where(df["delta_points"] > 0)
    df.attrs["price_usd_per_gpu_hour"] = price
    return df


def format_saving(usd) -> str:
    """A saving for a table: "$1,234", "−$1,234" (a loss), "never finishes" (−inf: the changed
    run cannot finish) or "–" (not priced)."""
    if usd is not None and (isinstance(usd, (bool, str)) or not isinstance(usd, (int, float,
                                                                                  np.number))):
        raise ValueError(f"usd={usd!r} must be a number or None")
    if usd is None or usd != usd:
        return "–"
    if usd == -math.inf:
        return "never finishes"
    return f"${usd:,.0f}" if usd >= 0 else f"−${-usd:,.0f}"
