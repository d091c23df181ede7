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
  the report resolves it before anything runs), or calibrated on a pilot run's measured
  tokens/s (``ledger_pilot_tokens_per_s_per_gpu`` at ``ledger_pilot_n_gpus``, or ``pilot:``
  records) and extrapolated to the run's plan (``pilot.pilot_mfu``).
* **Pricing modes**: ``on_demand``, ``reserved`` and ``spot`` rent GPU-hours at
  ``price_usd_per_gpu_hour`` (or the catalogue median); a rented GPU-hour includes its
  electricity, so the energy line reports MWh and tCO2e at $0. ``spot`` adds pre-emptions to the
  failure rate and a longer restart (the failure model of notebook 07). ``owned`` amortises the
  hardware as Cottier et al. 2024 (arXiv:2405.21015 §2.2-2.3) do and prices the energy.
* **Fixed or elastic** (``compute_kind``): a line paid whatever happens (storage capacity,
  people, operations, reserves) is *fixed*; every line priced in GPU-hours of the bill's
  accelerator at its GPU-hour price (pre-training and its phases, failures, exploratory runs,
  SFT, CPT, LoRA, RL, benchmark runs and served synthetic data, the classifier pass of data
  processing) runs on the same capacity and takes its kind: *fixed* when it is reserved or
  owned (committed, paid used or not), *elastic* on demand or spot; a line bought at an
  outside price (a given $/M tokens, annotation, human evaluation, egress) is *elastic*.
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
  arithmetic broadcast over numpy arrays (``llmcost.bill.montecarlo``): per line and for the total, mean and P10 / P50 /
  P90 (``LedgerDraws.summary``; percentiles do not add) and the tornado
  (``LedgerDraws.tornado``). The served-token lines are priced at $1/GPU-h and scaled by each
  draw's price (their cost is linear in it); the RL campaign's GPU-hours do not depend on any
  rangeable input and are priced per draw.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
import numbers
import os
import re
from dataclasses import dataclass, field
from typing import NamedTuple
from functools import lru_cache

import numpy as np
import pandas as pd

from ..core.catalog import (
    current_prices,
    discount_price_cap,
    load_accelerator,
    load_model,
)
from ..core.diskcache import disk_cached
from ..core.units import (GB, HOURS_PER_YEAR, SECONDS_PER_DAY, SECONDS_PER_HOUR, as_array,
                          as_flag, as_scalar, fmt_count, fmt_duration, fmt_gpus, fmt_period,
                          fmt_quantity, fmt_usd, noun, usd_as_printed, with_article)
from ..core.version import __version__
from ..serving.inference import choose_serving_tp, serving_cost, serving_validation
from ..serving.rl import (decode_factor_words, fitting_rollout_tp, rollout_dtype_words,
                          rollout_weight_dtype_key, scenario_campaign, shape_words,
                          time_factor_triangle, time_factor_words)
from ..training import reliability as rel
from ..training.accuracy import (central_mfu_words, distinct_percents, mfu_band,
                                 step_error_words, uncapped_high)
from ..training.compute import model_flops_per_token
from ..training.step_scenario import plan_zero_stage
from .pricing import (  # noqa: F401
    default,
    default_range,
    default_rows,
    default_source,
    facility_kw_per_gpu,
    owned_price_words,
    owned_usd_per_gpu_hour,
    purchase_price_on,
)
from .checks import states_do_not_fit
from .energy import energy_mwh, energy_of, energy_terms, tco2e  # noqa: F401  (notebooks)
from .pilot import pilot_given, pilot_mfu, pilot_mfu_range
from .lora import (  # noqa: F401
    check_lora_rank, lora_adapter_params, lora_flops_per_token, lora_gpu_hours)
from .montecarlo import (  # noqa: F401  (ledger.scenario_ranges, ledger.LedgerDraws, notebooks)
    MAX_SAMPLES,
    LedgerDraws,
    predicted_band_of,
    predicted_mfu_range,
    price_draws,
    scenario_ranges,
)
from .montecarlo import number_or_draws as _num
from .montecarlo import band_drawn as _band_drawn
from .montecarlo import peaked_at as _peaked_at
from .provenance import as_of_dates, git_commit  # noqa: F401
from .published import (
    annotation_usd,
    human_eval_usd,
    not_published,
    processing_gpu_hours,
)
from .published import range_text as published_range
from .ranges import POINT_WORDS, Z90, Z95, Range, is_point_range, lognormal_mean, point
from .scenario import (
    EXPLORATORY_FRACTION_MAX,
    LEDGER_DEFAULTS,
    RL_CAMPAIGN_KEYS,
    SPOT_PREEMPTIONS_MISSING,
    TUNING_TOKEN_KEYS,
    ScenarioError,
    ScenarioNeverFinishes,
    check_mfu_floor,
    check_post_training_only,
    point_scenario,
    post_training_only,
    prices_at_mfu,
    resolve_price,
    rl_campaign_given,
    scenario_error,
    schedule_parts_words,
    trains_on_n_gpus,
    SERVE_USER_WORDS,
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


# ------------------------------------------------------------------------------ draws
def _given(x) -> bool:
    """Whether a quantity is given (non-zero in at least one draw): decides a line's status."""
    return bool(np.any(np.asarray(x) != 0))


# ------------------------------------------------------------------------------ argument checks
def _ledger(x, name="ledger"):
    if not isinstance(x, Ledger):
        raise ValueError(f"{name}={x!r} must be a Ledger (llmcost.build_ledger(scenario))")
    return x


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
    #: a served-token line's amounts on its three bases (``served_amounts``): ``band_usd``, the
    #: engine-expected band, and ``roofline_usd``, the roofline bound; empty for other lines
    served: dict = field(default_factory=dict, compare=False)


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


# ------------------------------------------------------------------------------ building it
#: The private keys that mark a scenario's MFU as derived, not given (``scenario.MFU_FLOOR``
#: holds only for a given one): a prediction (``report.resolve_mfu``), a pilot's calibration
#: (``report.calibrate_pilot_mfu``), a claim's implied MFU (``claims``).
DERIVED_MFU_KEYS = ("_mfu_prediction", "_mfu_calibration", "_mfu_claimed")


def _values(scenario: dict) -> dict:
    """The scenario's values completed with the ledger's defaults, validated."""
    if not isinstance(scenario, dict):
        raise ScenarioError(f"scenario={scenario!r} must be a mapping of parameter names to "
                            "values")
    p = {k: v for k, v in scenario.items() if not k.startswith("_")
         and k not in ("title", "description")}
    if isinstance(p.get("mfu"), str) and p["mfu"] == "predict":  # (an array: validated below)
        raise ScenarioError("mfu='predict' must be resolved first (llmcost.report.plan_report "
                            "or `llmcost estimate` does it)")
    # An omitted price is a null price (the catalogue median for this accelerator and pricing
    # mode, or the owned amortisation), never the default scenario's H100 on-demand $3.99.
    p.setdefault("price_usd_per_gpu_hour", None)
    full = {**LEDGER_DEFAULTS, **p}
    out = validate_parameters(**full)
    if not any(k in scenario for k in DERIVED_MFU_KEYS):  # the caller's own MFU, not derived
        check_mfu_floor(p)
    # decided on what the scenario gives, not on the defaults; kept resolved so that
    # with_changes(bill, ...) keeps it
    out["ledger_rl"] = rl_campaign_given(p)
    check_post_training_only(out)
    # why the RL line is empty, when it is (private: _values drops it on a rebuild)
    rl_keys = [k for k in ("rl_iterations", "rl_runs") if k in p]
    if isinstance(out.get("mfu"), Range) and out["ledger_pilot_tokens_per_s_per_gpu"] is not None:
        raise ScenarioError("mfu is a range and ledger_pilot_tokens_per_s_per_gpu is given: the "
                            "pilot's throughput sets the MFU; give one or the other")
    pred = scenario.get("_mfu_prediction")  # set by report.resolve_mfu (mfu: predict)
    if isinstance(pred, dict) and out.get("mfu") == pred.get("value"):
        out["_mfu_prediction"] = pred
    if scenario.get("_rl_time_factor_drawn") and isinstance(out.get("rl_time_factor"), Range):
        out["_rl_time_factor_drawn"] = True  # set by headline_draws: the RL model's spread
    if scenario.get("_project_months_drawn") and (isinstance(
            out.get("ledger_project_months"), Range) or np.ndim(out.get("ledger_project_months"))):
        out["_project_months_drawn"] = True  # set by headline_draws: the published length
    cal = scenario.get("_mfu_calibration")  # set by report.calibrate_pilot_mfu (pilot:)
    if isinstance(cal, dict) and out.get("mfu") == cal.get("value"):
        out["_mfu_calibration"] = cal
    # no mfu in the scenario (here, or in the file a report completed with the notebooks'
    # default: report.plan_report sets _mfu_default): the bill says it is the default
    if ("mfu" not in p or scenario.get("_mfu_default") is True) and \
            out.get("mfu") == LEDGER_DEFAULTS["mfu"] and "_mfu_prediction" not in out and \
            "_mfu_calibration" not in out:
        out["_mfu_default"] = True
    # a report sets ledger_rl: false itself when the file gives no RL campaign
    # (report.plan_report: _ledger_rl_omitted); the rl_ keys are then the notebooks' defaults
    said_off = p.get("ledger_rl") is False and not scenario.get("_ledger_rl_omitted")
    if scenario.get("_ledger_rl_omitted"):
        out["_ledger_rl_omitted"] = scenario["_ledger_rl_omitted"]
    # a notebook's page gets ledger_rl: false from a report without _ledger_rl_omitted: with the
    # rl_ keys at the notebooks' defaults it cannot tell who set it, and says both
    at_defaults = all(p.get(k) == LEDGER_DEFAULTS.get(k) for k in RL_CAMPAIGN_KEYS)
    out["_rl_off_reason"] = (
        "ledger_rl: false (set in the scenario, or by a report when the scenario gives no "
        "rl_iterations or rl_runs): no RL campaign billed; notebook 05 shows the campaign of the "
        "rl_ keys as an illustration; ledger_rl: true bills it" if said_off and at_defaults else
        f"ledger_rl: false, so the campaign of the rl_ keys ({out['rl_iterations']:,} iterations"
        f" × {out['rl_runs']} run(s), which notebook 05 shows as an illustration) is not billed; "
        "ledger_rl: true bills it" if rl_keys and said_off else
        "ledger_rl: false (no RL campaign billed)" if said_off else
        "no RL campaign in the scenario (rl_iterations and rl_runs not given; notebook 05 "
        "prices an illustrative campaign from the notebooks' defaults, not billed here; "
        "ledger_rl: true bills notebook 05's campaign for the rl_ keys)")
    return out


def build_ledger(scenario: dict, *, check_memory: bool = True) -> Ledger:
    """The whole bill of a scenario.

    Parameters
    ----------
    scenario : dict
        Parameter values (``llmcost.scenario.PARAMETERS`` names), e.g. ``load_scenario(path)``
        with ``mfu: predict`` resolved, or a notebook's validated parameters. Keys it leaves out
        take the notebooks' defaults (``llmcost.scenario.LEDGER_DEFAULTS``), except
        ``price_usd_per_gpu_hour``: an omitted price is null (the catalogue median for the
        accelerator and pricing mode, or the owned amortisation), labelled as a default.
    check_memory : bool
        Refuse a run whose model states cannot fit (below); False where the caller checks the
        memory itself (``report.plan_report``: the parallel plan's fit, whose refusal names the
        fewest GPUs that run it).

    Returns
    -------
    Ledger. Its lines sum to ``total_usd``.

    Each section of the bill is one function, its formula and source in its docstring, called
    in this order: the MFU (``_bill_mfu``), the GPU-hour price (``_gpu_hour_price``) and the
    failure model (``failure_model``), then the lines: pre-training and its failures
    (``_pretraining_lines``, goodput of ``_phase_goodput``), exploratory runs
    (``_exploratory_runs_line`` or ``_exploratory_fraction_line``), post-training
    (``_post_training_lines``, ``_rl_line``), data (``_data_lines``), evaluation
    (``_evaluation_lines``), storage (``_storage_lines``), network (``_network_lines``), energy
    (``_energy_line``), people (``_people_line``), operations (``_operations_line``) and the
    reserves (``_reserve_lines``).

    Raises
    ------
    ScenarioError (a ValueError)
        A value breaks its rule (a negative FTE, a probability outside [0, 1], an unknown phase
        or line key), or a combination cannot be priced (owned hardware without a price, spot
        without resumable training that never finishes), or a run that cannot start: the
        model's weights, gradients and optimizer states alone exceed the GPUs' usable memory
        (``checks.states_do_not_fit``, the bound that needs no plan; ``llmcost estimate`` and a
        report also refuse a plan that does not fit, ``checks.plan_does_not_fit``).
    """
    p = _values(scenario)
    if as_flag(check_memory, "check_memory") and trains_on_n_gpus(p):
        _check_states_fit(point_scenario(p))
    ranged = {k: v for k, v in p.items() if isinstance(v, Range)}
    bill = _point_build({**point_scenario(p), "_ranged": ranged})
    if ranged:
        bill.scenario = p  # the ranges kept: with_changes and simulate_ledger see them
    return bill


def _check_states_fit(p: dict) -> None:
    """``checks.states_do_not_fit`` on the main run's GPUs and on each phase's own
    (``phases[i].n_gpus``: a fuzz trial's 3-GPU phase of a model whose states need 18 was
    billed); a ``ScenarioError`` naming the run."""
    cannot = states_do_not_fit(p)
    if cannot:
        raise ScenarioError(f"model={p['model']!r} on n_gpus={p['n_gpus']}: {cannot}")
    for i, ph in enumerate(p.get("phases") or []):
        n = ph.get("n_gpus") if isinstance(ph, dict) else None
        cannot = n is not None and states_do_not_fit({**p, "n_gpus": n})
        if cannot:
            raise ScenarioError(f"phases[{i}] ({ph['name']!r}) on n_gpus={n}: {cannot}")


def point_word(r) -> str:
    """What the point of a range is: 'midpoint', 'mode' or 'median' (``ranges.POINT_WORDS``)."""
    return POINT_WORDS[r.kind]


def _range_source(p: dict, key: str) -> str | None:
    """'midpoint of the range uniform 0.3-0.5 (...)' when ``key`` is ranged in the point bill's
    values (``_ranged``, set by ``build_ledger``), else None. A range of zero width
    (``is_point_range``) is its number: said so, with no draw from it (a trial's ``mfu: [0.4,
    0.4]`` was said to be drawn from while the bill drew the illustrative spread of a number)."""
    r = p.get("_ranged", {}).get(key)
    if r is not None and is_point_range(r):
        return (f"the range {r.describe()} has zero width: the number {r.point:.4g}, treated as "
                "a number given alone")
    return None if r is None else (f"{point_word(r)} of the range {r.describe()}, priced in "
                                   "the point bill; the P10–P90 draw from the range")


def _point_build(p: dict) -> Ledger:
    """``_safe_build`` of a point bill; its error says which inputs are the points of ranges."""
    try:
        return _safe_build(p)
    except ScenarioError as e:
        ranged = {k: r for k, r in p.get("_ranged", {}).items()}
        if not ranged:
            raise
        raise scenario_error(f"{e} (the point bill, with the ranged inputs at their points: "
                             + "; ".join(f"{k} = {r.point:.4g}, the {point_word(r)} of "
                                         f"{r.describe()}" for k, r in ranged.items())
                             + ")", e) from None


def _safe_build(p: dict) -> Ledger:
    try:
        return _build(p)
    except ScenarioError:
        raise
    except ValueError as e:
        raise scenario_error(str(e), e) from None


@dataclass
class _Basis:
    """What every line of one bill shares, resolved once by ``_basis``: the model and
    accelerator, the MFU, the GPU-hour price and the failure model."""

    p: dict
    spec: object
    gpu: object
    peak: float
    mfu: object
    mfu_source: str
    price: object
    price_source: str
    own: dict | None
    gpu_rate: object
    kind_compute: str
    per_node: int
    fail_rate: object
    restart_s: object
    preempt: object
    #: the checkpoint-storage bandwidth and its source (sized once, for the main run, when the
    #: scenario leaves it out: ``_storage_for``)
    storage_bw: dict
    #: each fine-tuning line's goodput by its label (``_post_training_lines``): a bill of
    #: post-training alone says the lowest where its main run's would be said
    tuning_goodput: dict = field(default_factory=dict)


def _build(p: dict) -> Ledger:
    """The bill of validated point (or drawn) values ``p``: one named step per section, each
    with its formula in its docstring; the lines are appended in the bill's order."""
    b = _basis(p)
    lines: list[Line] = []
    run = _pretraining_lines(lines, b)
    explore_ix, explore_h = len(lines), _exploratory_runs_line(lines, b)
    tune_h = _post_training_lines(lines, b)
    rl_h, rl_camp = _rl_line(lines, b)
    post_h = tune_h + rl_h
    proc_h, syn_h = _data_lines(lines, b)
    eval_h = _evaluation_lines(lines, b)
    explore = None
    rerun_h = p["ledger_rerun_probability"] * run["paid_h"]  # the rerun reserve's compute
    if explore_h is None and post_training_only(p):
        explore_h = _post_training_exploration_line(lines, explore_ix, b)
    elif explore_h is None:  # a fraction: priced after post-training and evaluation, netted out
        explore = _exploratory_fraction_line(
            lines, explore_ix, p, run["paid_h"],
            _netted_parts(lines, tune_h, rl_h, eval_h, rerun_h), b.gpu_rate, b.kind_compute)
        explore_h = explore["gpu_hours"]
    # the multiplier's compute the schedule runs before the final run: the exploratory line
    # with the rerun and benchmark GPU-hours netted out of it (they stay on the cluster's
    # calendar; a review found more rerun risk shortening the project)
    ahead_h = explore_h + (rerun_h + eval_h if explore is not None else 0.0)
    schedule = _schedule_days(p, run, ahead_h, tune_h, rl_camp)
    months, months_source, months_basis = _project_months(
        p, run["run_days"], len(run["phases"]) - 1, sum(schedule.values()))
    _storage_lines(lines, b, run["main_plan"], run["main_days"], months)
    _network_lines(lines, p)
    # every line's compute, the rerun reserve's expected GPU-hours included (its line is priced
    # in dollars; a review found them netted out of exploration and drawing no energy)
    all_h = run["paid_h"] + explore_h + post_h + syn_h + eval_h + proc_h + rerun_h
    en = _energy_line(lines, b, all_h)
    _people_line(lines, p, months, months_source)
    _operations_line(lines, p, months, months_source)
    _reserve_lines(lines, p, run["paid_h"] * b.gpu_rate)
    figures = _figures(b, run, en, {
        "all_gpu_hours": all_h, "project_months": months, "project_months_source": months_source,
        "project_months_basis": months_basis,
        "rl_gpu_hours": rl_h, "synthetic_gpu_hours": syn_h, "eval_gpu_hours": eval_h,
        "schedule_days": schedule}, rl_camp)
    figures["exploratory_netting"] = explore and {k: v for k, v in explore.items()
                                                  if k != "gpu_hours"}
    _check_finite(lines, p)
    return Ledger(lines, figures, p)


def _check_finite(lines: list, p: dict) -> None:
    """A ``ScenarioError`` naming the bill's lines whose amount is not finite (in any draw) and
    the scenario's numbers above 1e100, the likely cause: an input beyond what the arithmetic
    holds (a trial: a retention or a project of 1e308 months gave an infinite storage line and a
    NaN total without a word)."""
    bad = [ln.key for ln in lines
           if ln.usd is not None and not np.all(np.isfinite(np.asarray(ln.usd, dtype=float)))]
    if not bad:
        return
    huge = [f"{k}={v:g}" for k, v in p.items() if isinstance(v, (int, float))
            and not isinstance(v, bool) and abs(v) > 1e100]
    raise ScenarioError(f"the bill cannot be priced: {', '.join(bad)} "
                        f"{'is' if len(bad) == 1 else 'are'} not finite (an input beyond what "
                        "a float holds); check "
                        + (", ".join(huge) if huge else "the scenario's largest values"))


def _basis(p: dict) -> _Basis:
    """The model, accelerator, MFU (``_bill_mfu``), GPU-hour price (``_gpu_hour_price``) and
    failure model (``failure_model``) every line of the bill uses.

    The GPU-hour lines charge ``gpu_rate = price − energy`` per GPU-hour: owned hardware's energy
    is its own line (rented GPU-hours include it, energy 0). Compute is *fixed* for reserved or
    owned capacity, *elastic* on demand or spot."""
    spec, gpu = load_model(p["model"]), load_accelerator(p["accelerator"])
    peak = gpu.peak_flops_per_s(p["dtype"])
    mfu, mfu_source = _bill_mfu(p, spec, gpu)
    price, price_source, own = _gpu_hour_price(p, gpu)
    energy_rate = own["energy_usd_per_gpu_hour"] if own else 0.0
    per_node = gpu.per_host
    fail_rate, restart_s, preempt = failure_model(p, per_node)
    return _Basis(p, spec, gpu, peak, mfu, mfu_source, price, price_source, own,
                  price - energy_rate,
                  compute_kind(p["pricing"]), per_node,
                  fail_rate, restart_s, preempt,
                  {"bytes_per_s": p["ckpt_storage_bytes_per_s"],
                   "source": "ckpt_storage_bytes_per_s (scenario)"})


def compute_kind(pricing: str) -> str:
    """Whether the bill's GPU-hours are "fixed" or "elastic": capacity that is reserved or owned
    is committed (paid whether a job runs on it or not), so every line priced in its GPU-hours
    is fixed; on demand or spot it is rented by the hour, elastic (the module docstring's rule,
    which every line priced at the bill's GPU-hour rate follows)."""
    if pricing not in ("on_demand", "reserved", "spot", "owned"):
        raise ValueError(f"pricing={pricing!r} must be one of on_demand, reserved, spot, owned")
    return "fixed" if pricing in ("reserved", "owned") else "elastic"


def _bill_mfu(p: dict, spec, gpu) -> tuple:
    """(MFU, its source) of the whole bill: the scenario's ``mfu`` (given, predicted or
    calibrated by a report: ``scenario_mfu_source``), or, when the scenario gives a pilot
    (``pilot:`` records or ``ledger_pilot_tokens_per_s_per_gpu`` at ``ledger_pilot_n_gpus``)
    that no report resolved, the MFU the pilot extrapolates to on the scenario's plan
    (``pilot.pilot_mfu``, the function a report and ``llmcost estimate`` use too): a notebook
    run alone with a pilot bills the same MFU as a report of the same scenario."""
    resolved = p.get("_mfu_calibration") or {}  # report.calibrate_mfu / calibrate_pilot_mfu
    if not pilot_given(p) or resolved.get("value") == p["mfu"] and (
            resolved.get("tokens_per_s_per_gpu") == p["ledger_pilot_tokens_per_s_per_gpu"]):
        return p["mfu"], scenario_mfu_source(p)
    got = pilot_mfu(p)
    return got["value"], got["from"]


def _gpu_hour_price(p: dict, gpu) -> tuple:
    """(price per GPU-hour, its source, the owned amortisation or None).

    Owned hardware without a price: ``pricing.owned_usd_per_gpu_hour``, Cottier et al. 2024
    (arXiv:2405.21015 §2.2-2.3): acquisition cost amortised over its life + the energy of a
    GPU-hour (facility kW × $/kWh). Otherwise the scenario's ``price_usd_per_gpu_hour`` (a
    number or a range's point), or the catalogue median of the accelerator and pricing mode
    (``scenario.resolve_price``)."""
    given = p["price_usd_per_gpu_hour"]
    if p["pricing"] == "owned" and given is None:
        own = {k: _num(v) if k != "kw_per_gpu" else v for k, v in owned_usd_per_gpu_hour(
            gpu, p["ledger_owned_usd_per_gpu"], p["ledger_electricity_usd_per_kwh"],
            p["ledger_pue"]).items()}
        return own["usd_per_gpu_hour"], (
            f"default, price_usd_per_gpu_hour not given: {owned_price_words(own)}"), own
    price, source = (given, "given as a range") if np.ndim(given) else resolve_price(
        gpu.name, given, p["pricing"])
    if given is None:
        source = f"default, price_usd_per_gpu_hour not given: {source}"
    return price, _range_source(p, "price_usd_per_gpu_hour") or source, None


def spot_preemptions_per_node_day(p: dict) -> float:
    """Spot pre-emptions per node-day of scenario ``p``: its
    ``ledger_spot_preemptions_per_node_day``. There is no default: no provider publishes a
    per-node rate (AWS's Spot Instance Advisor gives only trailing-month interruption-frequency
    bands per instance type, from under 5% to over 20%), so a spot bill without it is refused
    (``scenario.SPOT_PREEMPTIONS_MISSING``, a ScenarioError naming the key)."""
    given = p.get("ledger_spot_preemptions_per_node_day")
    if given is None:
        raise ScenarioError(SPOT_PREEMPTIONS_MISSING)
    return given


def failure_model(p: dict, per_node: int) -> tuple:
    """(failures per GPU-year, restart seconds, spot pre-emptions per node-day or None): the
    failure model of the bill.

    The scenario's ``fail_rate_per_gpu_year`` and ``ckpt_restart_s``; on spot, pre-emptions are
    failures of a node (the failure model of notebook 07):

        rate = fail_rate_per_gpu_year + pre-emptions per node-day × 365.25 ÷ GPUs per node

    (``spot_preemptions_per_node_day``: the scenario's, refused when not given) and the restart
    takes ``ledger_spot_restart_s`` (not given: ``ckpt_restart_s``)."""
    fail_rate, restart_s = p["fail_rate_per_gpu_year"], p["ckpt_restart_s"]
    if p["pricing"] != "spot":
        return fail_rate, restart_s, None
    preempt = spot_preemptions_per_node_day(p)
    if p.get("ledger_spot_restart_s") is not None:
        restart_s = p["ledger_spot_restart_s"]
    return fail_rate + preempt * 365.25 / per_node, restart_s, preempt


def failure_values(p: dict, per_node: int) -> dict:
    """A copy of scenario ``p`` whose ``fail_rate_per_gpu_year`` and ``ckpt_restart_s`` are the
    bill's failure model (``failure_model``: on spot, the pre-emptions added to the rate and the
    spot restart; unchanged otherwise), for the reliability functions that read a scenario
    (``reliability.scenario_checkpoint_plan``, ``scenario_storage_bytes_per_s``, ...): notebook
    07's goodput, failures cost and checkpoint storage are then the bill's. Price a bill from
    ``p`` itself, not from this copy (the bill adds the pre-emptions)."""
    rate, restart_s, _ = failure_model(p, per_node)
    return {**p, "fail_rate_per_gpu_year": rate, "ckpt_restart_s": restart_s}


def _storage_for(b: _Basis, ideal_gpu_hours) -> float:
    """The job's checkpoint-storage bandwidth: the scenario's, else sized once, for the main
    run, from its checkpoint plan (``reliability.sized_storage_bytes_per_s``)."""
    if b.storage_bw["bytes_per_s"] is None:
        b.storage_bw.update(sized_storage(b.spec, b.p, b.fail_rate, b.restart_s,
                                          ideal_gpu_hours, b.price, b.per_node))
    return b.storage_bw["bytes_per_s"]


#: The words of the refusal of a run that cannot finish (``_phase_goodput``,
#: ``_check_goodput``), raised as a ``scenario.ScenarioNeverFinishes``.
NEVER_FINISHES = "never finishes"


#: What the failures line adds to its figures, and its source, for a run without checkpoints
#: (``ledger_resumable: false``, ``_restart_from_scratch_goodput``).
NO_CHECKPOINTS_WORDS = "; no checkpoints: a failure or a planned stop restarts the run"
NO_CHECKPOINTS_SOURCE = ("reliability.expected_wall_time_s (Daly 2006, one segment) at "
                         "reliability.interruption_mtbf_s: failures and planned stops of the "
                         "scenario")


def _restart_from_scratch_goodput(b: _Basis, n_gpus, ideal_gpu_hours):
    """Goodput T ÷ E[wall] of a phase that cannot resume (``_phase_goodput``): one segment
    τ = T, δ = 0 of ``reliability.expected_wall_time_s``, M the mean time between failures
    and planned stops (``reliability.interruption_mtbf_s``), R the restart; with R = 0,
    E[wall] = (e^{λT} − 1)/λ, λ = 1/M. Refused (``ScenarioNeverFinishes``) when E[wall] > 10⁶ T."""
    p = b.p
    m_fail = _num(rel.cluster_mtbf_s(n_gpus, b.fail_rate))
    m = _num(rel.interruption_mtbf_s(m_fail, p["fail_planned_per_day"]))
    t = ideal_gpu_hours / n_gpus * SECONDS_PER_HOUR
    with np.errstate(over="ignore"):
        wall = _num(rel.expected_wall_time_s(t, t, 0.0, m, b.restart_s))
    if not np.all(np.isfinite(wall)) or np.any(wall > 1e6 * t):
        raise ScenarioNeverFinishes(
            f"ledger_resumable=false: {with_article(f'{t / SECONDS_PER_DAY:,.1f}')}-day job on "
            f"{fmt_gpus(n_gpus)} "
            f"with a mean time between interruptions of {_least_duration(m)}, counting "
            f"failures (MTBF {_least_duration(m_fail)}) and planned stops "
            f"(fail_planned_per_day={_most(p['fail_planned_per_day'])}), must restart from "
            "scratch after "
            f"every interruption and is expected to take over a million times as long: it "
            f"{NEVER_FINISHES} (make training resumable, or shorten the job)")
    return t / wall


def _period(x, unit: str) -> str:
    """``units.fmt_period`` of a number; draws of the bill (``simulate_ledger``) as
    ``_quantity`` gives them, in ``unit``."""
    return fmt_period(x, unit) if np.ndim(x) == 0 else f"{_quantity(x)} {unit}"


def _least_duration(m) -> str:
    """``fmt_duration`` of a duration, or of the least of an array of them ("down to ...")."""
    return fmt_duration(m) if np.ndim(m) == 0 else "down to " + fmt_duration(np.min(m))


def _most(x) -> str:
    """A number, or the largest of an array of them ("up to ...")."""
    return f"{x:g}" if np.ndim(x) == 0 else f"up to {float(np.max(x)):g}"


def _phase_goodput(b: _Basis, n_gpus, ideal_gpu_hours) -> tuple:
    """(goodput, checkpoint plan or None) of one phase of ``ideal_gpu_hours`` on ``n_gpus``.

    Resumable training: ``reliability.checkpoint_plan``'s goodput of a run of this phase's
    length (``reliability.finite_run_breakdown``: Daly 2006's segments, ⌈T/τ⌉ − 1 checkpoints
    at the whole split of T nearest his optimum, none at the end; the scenario's checkpoint
    recipe and storage; a planned stop costs a checkpoint and a restart).
    Without checkpoints every interruption restarts the job, a failure or a planned stop alike
    (``fail_planned_per_day``; Llama 3 counted 47 planned besides its 419 unexpected ones):
    goodput = T ÷ E[wall], E[wall] of ``reliability.expected_wall_time_s`` with the job's mean
    time between interruptions (``reliability.interruption_mtbf_s`` of the failures' MTBF,
    ``reliability.cluster_mtbf_s``, and the planned stops); refused when E[wall] > 10⁶ T (it
    never finishes)."""
    if not b.p["ledger_resumable"]:
        return _restart_from_scratch_goodput(b, n_gpus, ideal_gpu_hours), None
    p = b.p
    plan = rel.checkpoint_plan(
        b.spec.n_params, n_gpus, b.fail_rate, _storage_for(b, ideal_gpu_hours), b.restart_s,
        recipe=p["ckpt_recipe"], gpus_per_node=b.per_node,
        node_bytes_per_s=p["ckpt_node_bytes_per_s"], d2h_bytes_per_s=p["ckpt_d2h_bytes_per_s"],
        async_=p["ckpt_async"], planned_per_day=p["fail_planned_per_day"],
        interval_s=p["ckpt_interval_s"], run_s=rel.run_work_s(ideal_gpu_hours, n_gpus))
    return _num(plan.goodput), plan


def _check_goodput(b: _Basis, ph: dict, g) -> None:
    """Refuse a phase whose goodput is below 10⁻⁶: interruptions come faster than a checkpoint
    and a restart, so it never finishes."""
    if np.any(~(np.asarray(g, dtype=float) >= rel.GOODPUT_FLOOR)):
        p = b.p
        raise ScenarioNeverFinishes(
            f"goodput of the {ph['name']} phase is {float(np.min(g)):.2g} on "
            f"{fmt_gpus(ph['n_gpus'])}: interruptions "
            f"(fail_rate_per_gpu_year={p['fail_rate_per_gpu_year']}"
            + (f", ledger_spot_preemptions_per_node_day={b.preempt}" if p["pricing"] == "spot"
               else "") + f", fail_planned_per_day={p['fail_planned_per_day']}) come faster "
            "than a checkpoint and a restart, so the run takes over a million times its ideal "
            f"time and {NEVER_FINISHES}; the rule: goodput >= {rel.GOODPUT_FLOOR_WORDS} (lower the "
            "interruption "
            "rate or the restart time)")


def _pretraining_phases(b: _Basis) -> list:
    """The main run, then the scenario's ``phases`` (context extension, annealing, ...), each
    with its tokens, sequence length, GPUs (default the main run's) and MFU (default the
    bill's). In a Monte Carlo draw of the bill's MFU (``simulate_ledger``: the key
    ``_mfu_point`` holds the point it was drawn around), a phase that gives its own MFU m_ph
    moves with it, m_ph × m_draw ÷ m_point (perfectly correlated: the same model, hardware and
    software; a trial's 128k phase kept one figure in every draw, $3.93M–$3.93M, while the
    main run had a range), up to MFU 1 (``_phase_mfu_moved``; the levers scale it so too,
    ``levers._with_phase_mfus_scaled``, and refuse a lever that would take it above 1)."""
    p = b.p
    moved = b.mfu / p["_mfu_point"] if p.get("_mfu_point") else 1.0
    phases = [{"name": "main", "tokens": p["train_tokens"], "seq_len": p["seq_len"],
               "n_gpus": p["n_gpus"], "mfu": b.mfu}]
    for ph in p["phases"]:
        phases.append({"name": ph["name"], "tokens": ph["tokens"], "seq_len": ph["seq_len"],
                       "n_gpus": ph.get("n_gpus", p["n_gpus"]),
                       "mfu": _phase_mfu_moved(ph["mfu"], moved) if "mfu" in ph else b.mfu})
    return phases


def _phase_mfu_moved(phase_mfu: float, ratio):
    """A phase's own MFU when the main run's moves by ``ratio`` = m ÷ m₀:

        m_ph' = min(1, m_ph × m ÷ m₀)

    in proportion (the same model, hardware and software), and never above the dense peak: a
    phase set above the main run's MFU passes 1 in a draw near the top of the main run's band
    (0.6 × 0.8 ÷ 0.45 = 1.07), a step faster than the GPUs' peak, which the draws priced and
    ``at_mfu`` refused (a phase's MFU is an input in (0, 1])."""
    return np.minimum(phase_mfu * ratio, 1.0)   # a Monte Carlo draw's ratio is an array


def _pretraining_lines(lines: list, b: _Basis) -> dict:
    """Pre-training compute, its failures, and the other pre-training phases. Per phase:

        FLOPs = tokens × F(s)                     (``compute.model_flops_per_token``, MFU basis)
        ideal GPU-h = FLOPs ÷ (dense peak × MFU) ÷ 3600
        paid GPU-h = ideal ÷ goodput              (``_phase_goodput``)

    The main run's line bills its ideal GPU-hours and ``compute.failures`` its paid − ideal
    (notebook 07); another phase's line bills its paid GPU-hours. Each × the GPU-hour rate.
    Returns the totals the other lines use (``ideal_h``, ``paid_h``, ``flops_total``, the main
    run's ``main_plan``, ``main_goodput``, ``main_days``, ``main_ideal`` and the ``phases``;
    ``run_days``, the wall clock of the main run and its phases one after the other, Σ paid
    GPU-h ÷ GPUs ÷ 24 over the phases)."""
    p, rate = b.p, b.gpu_rate
    phases = _pretraining_phases(b)
    run = {"ideal_h": 0.0, "paid_h": 0.0, "flops_total": 0.0, "main_plan": None,
           "main_goodput": None, "main_days": 0.0, "main_ideal": 0.0, "phases": phases,
           "run_days": 0.0}
    if post_training_only(p):
        _base_model_lines(lines, b)
        return run
    for i, ph in enumerate(phases):
        flops = ph["tokens"] * float(model_flops_per_token(b.spec, ph["seq_len"]))
        hours = flops / (b.peak * ph["mfu"]) / SECONDS_PER_HOUR
        g, plan = _phase_goodput(b, ph["n_gpus"], hours)
        _check_goodput(b, ph, g)
        run["ideal_h"], run["paid_h"], run["flops_total"] = (
            run["ideal_h"] + hours, run["paid_h"] + hours / g, run["flops_total"] + flops)
        run["run_days"] += hours / g / ph["n_gpus"] / 24.0
        per_token = (f"{ph['tokens']:.3g} tokens × {flops / ph['tokens']:.3g} FLOP/token "
                     f"({ph['seq_len']:,}-token sequences")
        if i > 0:
            lines.append(Line(
                f"compute.pretraining.{ph['name']}", f"pre-training phase: {ph['name']}",
                "compute", "pre-training", b.kind_compute, hours / g * rate,
                f"{per_token}) ÷ ({b.peak:.3g} FLOP/s × MFU {ph['mfu']:.1%}) "
                f"= {_quantity(hours)} ideal GPU-h ÷ goodput {g:.2%} on "
                f"{fmt_gpus(ph['n_gpus'])} × "
                f"${rate:.2f}", f"compute.training_run; reliability.checkpoint_plan; "
                f"{b.price_source}", "modelled", "01_flops"))
            continue
        run.update(main_plan=plan, main_goodput=g, main_ideal=hours,
                   main_days=hours / g / ph["n_gpus"] / 24.0)
        # the main run: ideal hours here, its failures on their own line (notebook 07)
        lines.append(Line(
            "compute.pretraining.main", "pre-training compute", "compute", "pre-training",
            b.kind_compute, hours * rate,
            f"{per_token}, MFU basis) ÷ ({b.peak:.3g} FLOP/s × MFU "
            f"{ph['mfu']:.1%}) = {_quantity(hours)} ideal GPU-h × ${rate:.2f}",
            f"compute.training_run; MFU {b.mfu_source}; {b.price_source}", "modelled",
            "01_flops"))
        lines.append(Line(
            "compute.failures", "failures, checkpoints and restarts", "compute",
            "pre-training", b.kind_compute, (hours / g - hours) * rate,
            f"paid − ideal GPU-hours of the main run = {_quantity(hours / g - hours)} GPU-h "
            f"(goodput {g:.2%}"
            f"{'; spot pre-emptions included' if p['pricing'] == 'spot' else ''}"
            f"{'' if p['ledger_resumable'] else NO_CHECKPOINTS_WORDS})",
            "reliability.checkpoint_plan (Daly 2006 goodput), failure rates of the scenario"
            if p["ledger_resumable"] else NO_CHECKPOINTS_SOURCE, "modelled", "07_checkpoints"))
    return run


#: Why a post-training bill (``train_tokens: 0``) bills no pre-training: its lines' words.
BASE_MODEL_WORDS = ("train_tokens: 0: the base model is taken as trained (a released model, or "
                    "one already paid for); this bill prices what is done to it")


def refuse_post_training_only(scenario: dict, what: str) -> None:
    """A ``ValueError`` for a bill of post-training alone (``post_training_only``) where the
    caller ``what`` works on a pre-training run ("a budget fits the pre-training tokens"): the
    field, its value and why, the same words at every entry point that needs the run."""
    if not isinstance(what, str) or not what:
        raise ValueError(f"what={what!r} must say what needs the pre-training run")
    if post_training_only(scenario):
        raise ValueError(f"train_tokens=0 (a bill of post-training alone): {what}, and this "
                         "bill has no pre-training run; give train_tokens > 0, or change the "
                         "post-training keys (ledger_sft_tokens, rl_iterations, n_gpus, "
                         "rl_gpus) and compare the bills")


def _base_model_lines(lines: list, b: _Basis) -> None:
    """A post-training bill's pre-training lines (``post_training_only``): the main run and its
    failures at $0, "not given", saying why (the base model is given)."""
    for key, label, nb in (("compute.pretraining.main", "pre-training compute", "01_flops"),
                           ("compute.failures", "failures, checkpoints and restarts",
                            "07_checkpoints")):
        lines.append(Line(key, label, "compute", "pre-training", b.kind_compute, 0.0,
                          f"{BASE_MODEL_WORDS}: no pre-training run is billed", "",
                          "not given", nb))


def _exploratory_runs_line(lines: list, b: _Basis):
    """Exploratory and failed runs listed in the scenario (``ledger_exploratory_runs``):
    Σ GPU-hours of the runs × the GPU-hour rate; returns those GPU-hours. None when the
    scenario lists none: the line is then a fraction of the final run
    (``_exploratory_fraction_line``), priced once post-training and evaluation are known."""
    runs = b.p["ledger_exploratory_runs"]
    if not runs:
        return None
    h = sum(r["gpu_hours"] for r in runs)
    lines.append(Line("compute.exploratory", "exploratory and failed runs", "compute",
                      "development", b.kind_compute, h * b.gpu_rate,
                      f"{len(runs)} listed run(s), {_quantity(h)} GPU-h × ${b.gpu_rate:.2f}: "
                      + ", ".join(r["name"] for r in runs),
                      "ledger_exploratory_runs (scenario)", "modelled"))
    return h


def _post_training_lines(lines: list, b: _Basis):
    """Supervised fine-tuning, continued pre-training and LoRA; returns their GPU-hours.

    SFT and CPT (full fine-tunes, 3 × forward): GPU-h = tokens × F(s) ÷ (peak × MFU) ÷ 3600 ÷
    goodput, F(s) of ``compute.model_flops_per_token``, at the main run's MFU; the goodput of
    a run of that length on the main run's GPUs (``_phase_goodput``: a minute-long fine-tune
    takes no checkpoint, where the main run's goodput charged it the main run's stalls and lost
    work). LoRA: ``lora.lora_gpu_hours``, the full fine-tune's time × 0.754 (Hu et al. 2021,
    arXiv:2106.09685, §4.2, footnote 5: 43.1 against 32.5 tokens/s per GPU), at its own
    goodput likewise. Each × the GPU-hour rate; a line without tokens is 0 and "not given".
    In a bill of post-training alone (``post_training_only``) the checkpoint storage a scenario
    leaves out is sized for the longest of these runs (``_storage_for``; with a main run, for
    it), so that adding a short run does not move a long one's goodput."""
    p = b.p
    post_h = 0.0
    runs = {key: _tuning_hours(b, key) for key in ("sft", "cpt", "lora")
            if _given(p[f"ledger_{key}_tokens"])}
    if runs and post_training_only(p):   # no main run sized the storage: the longest run does
        _storage_for(b, max((float(np.max(r[1])) for r in runs.values())))
    for key, label, how in (
            ("sft", "supervised fine-tuning (SFT)", "full fine-tune, 3 × forward"),
            ("cpt", "continued pre-training", "3 × forward"),
            ("lora", f"LoRA fine-tuning (rank {p['ledger_lora_rank']})",
             "4·N + 3·attention + 6·N_adapter per token (ledger.lora_flops_per_token)")):
        tokens = p[f"ledger_{key}_tokens"]
        if key not in runs:
            lines.append(Line(f"post.{key}", label, "post-training", "post-training",
                              b.kind_compute, 0.0, f"ledger_{key}_tokens not given", "",
                              "not given"))
            continue
        fpt, ideal, at = runs[key]
        if np.all(np.asarray(ideal) > 0):
            g, _ = _phase_goodput(b, p["n_gpus"], ideal)
            _check_goodput(b, {"name": f"{key} post-training", "n_gpus": p["n_gpus"]}, g)
        else:  # tokens so few the hours underflow (5e-324): no time, nothing lost
            g = 1.0
        hours = ideal / g
        post_h += hours
        b.tuning_goodput[label.split(" (")[0]] = g
        lines.append(Line(
            f"post.{key}", label, "post-training", "post-training", b.kind_compute,
            hours * b.gpu_rate,
            f"{tokens:.3g} tokens × {fpt:.3g} FLOP/token ({how}) {at} and goodput "
            f"{_goodput_words(g)} (a run of its length on {fmt_gpus(p['n_gpus'])}) = "
            f"{_quantity(hours)} GPU-h × ${b.gpu_rate:.2f}",
            "Hu et al. 2021 (LoRA, arXiv:2106.09685, §4.2: 43.1 against 32.5 tokens/s per GPU)"
            if key == "lora" else "compute.model_flops_per_token", "modelled", "01_flops"))
    return post_h


def _tuning_hours(b: _Basis, key: str) -> tuple:
    """(FLOPs per token, ideal GPU-hours, "at ..." words) of a fine-tuning line (``key``: sft,
    cpt or lora; ``_post_training_lines`` has the formulas): a full fine-tune at the bill's MFU,
    LoRA at Hu et al.'s measured ratio to it (``lora.lora_gpu_hours``)."""
    p, spec, mfu, peak = b.p, b.spec, b.mfu, b.peak
    tokens = p[f"ledger_{key}_tokens"]
    if key == "lora":  # LoRA: time at the measured ratio to full fine-tuning (Hu et al.)
        check_lora_rank(spec, p["ledger_lora_rank"], "ledger_lora_rank")
        lo = lora_gpu_hours(spec, p["ledger_lora_rank"], tokens, p["seq_len"], peak, mfu)
        return lo["flops_per_token"], lo["gpu_hours"], (
            f"at {lo['time_ratio']:.3f} × the full fine-tune's time (measured, Hu et al. "
            f"§4.2 fn. 5), i.e. MFU {lo['mfu_lora']:.1%} on this count")
    fpt = float(model_flops_per_token(spec, p["seq_len"]))
    return fpt, tokens * fpt / (peak * mfu) / SECONDS_PER_HOUR, f"at MFU {mfu:.1%}"


def _goodput_words(g) -> str:
    """A goodput as a percentage; draws of the bill as their median ("median 98.6%")."""
    return f"{float(g):.1%}" if np.ndim(g) == 0 else f"median {float(np.median(g)):.1%}"


def _rl_line(lines: list, b: _Basis) -> tuple:
    """RL post-training: notebook 05's campaign (``_rl_campaign``: ``rl.scenario_campaign``),
    USD = its GPU-hours × the time factor × the GPU-hour rate + the verifier's cost, the factor
    ``rl.scenario_time_factor`` (the scenario's ``rl_time_factor``, or the published runs'
    median); returns (GPU-hours, campaign or None). Drawn prices: the campaign is timed at
    $1/GPU-h and priced per draw; a drawn ``rl_time_factor`` multiplies the model's GPU-hours
    per draw (a point factor is already in the campaign, ``rl.scale_campaign``)."""
    p, rate = b.p, b.gpu_rate
    # DPO has no rollouts nor reward (Rafailov et al. 2023): a trial read "rollouts, reward" on it
    label = "RL post-training (" + ("DPO: policy and reference passes over preference pairs"
                                    if p.get("rl_algorithm") == "dpo" else
                                    "rollouts, reward, policy update") + ")"
    factor = p.get("rl_time_factor")
    # the model's campaign; a point factor scales it there, drawn factors here, per draw
    camp = _rl_campaign({**p, "rl_time_factor": 1.0} if np.ndim(factor) else p,
                        rate if not np.ndim(rate) else 1.0)
    if camp is None:
        lines.append(Line("post.rl", label, "post-training", "post-training", b.kind_compute,
                          0.0, p["_rl_off_reason"], "", "not given", "05_rl_loop"))
        return 0.0, None
    rl_h = float(camp.loc["total", "gpu_hours"])
    verifier = float(camp.loc["verifier", "usd"])
    if np.ndim(factor):
        rl_h = _num(rl_h * np.asarray(factor, dtype=float))
    usd = float(camp.loc["total", "usd"]) if not np.ndim(rate) and not np.ndim(factor) else \
        _num(rl_h * rate + verifier)  # GPU-h × price + verifier
    scaled = "" if np.ndim(factor) else time_factor_words(p)
    lines.append(Line("post.rl", label, "post-training", "post-training", b.kind_compute,
                      usd, _rl_how(p, camp, rate, scaled)
                      + ("; owned hardware: its energy is on the energy line" if b.own else ""),
                      "llmcost.rl.scenario_campaign (rollouts timed with the "
                      "llmcost.inference roofline); rl_ keys of the scenario", "modelled",
                      "05_rl_loop"))
    return rl_h, camp


def _data_lines(lines: list, b: _Basis) -> tuple:
    """Data: licensing (given USD), cleaning and deduplication compute (``_processing_line``),
    synthetic data (``_synthetic_line``) and human annotation (``_annotation_line``); returns
    the GPU-hours of processing and of synthetic data (for the energy line)."""
    p = b.p
    _given_line(lines, "data.licensing", "data licensing", "data", "fixed",
                p["ledger_data_licensing_usd"], "ledger_data_licensing_usd (scenario)", p)
    _published_note(lines, p, "data.licensing")
    proc_h = _processing_line(lines, p, b.gpu_rate, b.kind_compute)
    syn_h = _synthetic_line(lines, p, b.spec, b.gpu, b.gpu_rate, b.kind_compute)
    _published_note(lines, p, "data.synthetic")
    _annotation_line(lines, p)
    return proc_h, syn_h


def _evaluation_lines(lines: list, b: _Basis):
    """Evaluation and safety testing: benchmark runs (``_eval_line``) and human evaluation
    (``_human_eval_line``); returns the benchmark runs' GPU-hours."""
    eval_h = _eval_line(lines, b.p, b.spec, b.gpu, b.gpu_rate, b.kind_compute)
    _human_eval_line(lines, b.p)
    return eval_h


def _schedule_days(p: dict, run: dict, explore_h, tune_h, rl_camp) -> dict:
    """The compute schedule in days by part, ``figures['schedule_days']`` (notebook 00's step 7,
    ``spend_timeline``, lays it out; its sum is a published project's floor): ``exploration``
    (``explore_h``: with a fraction, the line and the rerun and benchmark GPU-hours netted out
    of it), then the ``final_run`` (its phases one after the other), then ``post_training``, on
    the scenario's cluster at the final run's rate of paid GPU-hours per day, the RL campaign
    over its own wall clock (× a drawn ``rl_time_factor``, per draw: the campaign is then timed
    at 1):

        exploration = run days × exploratory GPU-h ÷ final run paid GPU-h
        post_training = run days × fine-tuning GPU-h ÷ final run paid GPU-h
                        + RL days per run × rl_runs

    A bill without a final run (``post_training_only``) schedules its GPU-hours on the
    scenario's ``n_gpus``: days = GPU-h ÷ (n_gpus × 24)."""
    # without a final run (post_training_only): the cluster's own rate, 1 ÷ (GPUs × 24)
    rate = run["run_days"] / run["paid_h"] if np.all(run["paid_h"] > 0) else \
        1.0 / (p["n_gpus"] * 24.0)
    rl = 0.0
    if rl_camp is not None:
        factor = p.get("rl_time_factor")
        rl = float(rl_camp.attrs.get("wall_clock_days_per_run") or 0.0) * float(
            p.get("rl_runs") or 1) * (np.asarray(factor, dtype=float) if np.ndim(factor) else 1.0)
    return {"exploration": explore_h * rate, "final_run": run["run_days"],
            "post_training": tune_h * rate + rl}


#: What set a bill's project length (``figures['project_months_basis']``, ``_project_months``)
#: and its words, for the callers that say it or act on it (a compare, the people warning, the
#: ledger panel, the netting's words) instead of reading the source sentence.
PROJECT_MONTHS_BASES = {
    "given": "given", "schedule": "the compute schedule", "run": "the final run's wall clock",
    "epoch": "Epoch's median project",
    "schedule_over_epoch": "the compute schedule, longer than Epoch's median project",
    "epoch_or_schedule": "Epoch's median project or the schedule",
    "roles": "the longest ledger_people role's months"}


def _project_months(p: dict, run_days, n_phases: int = 0, schedule_days=None) -> tuple:
    """(project months, source, basis: a ``PROJECT_MONTHS_BASES`` key):
    ``ledger_project_months``, else the compute schedule
    (``schedule_days``, ``_schedule_days``: exploration, the final run with its ``n_phases``
    other pre-training phases, and post-training, one after the other; the final run's wall
    clock where there is nothing else), days × 86,400 s ÷ (365.25 × 86,400 s ÷ 12) (a lower
    bound, said so: the data work before it is not counted); with
    ``ledger_published_defaults``, the published project duration instead
    (``project_months_published``: the median of Epoch's four case studies, the duration its
    staff rule, ``fte_per_contributor``, is per month of), at least the compute schedule
    (``schedule_days``, ``_schedule_days``: exploration, the final run and post-training one
    after the other; a lecturer found a 10.15-month project priced under a 15-month
    schedule): a reviewer found the contributors' staff priced over Llama 3.1 405B's 2.9-month
    run, where Epoch's rule counts the whole project (GPT-3 8.3 months, GPT-4 12)."""
    # the published length drawn by headline_draws (illustrative_ranges), not the scenario's
    drawn = bool(p.get("_project_months_drawn")) and p["ledger_published_defaults"]
    if p["ledger_project_months"] is not None and not drawn:
        return p["ledger_project_months"], "ledger_project_months (scenario)", "given"
    months = run_days * SECONDS_PER_DAY / SECONDS_PER_MONTH
    with_phases = (f" with its {n_phases} other pre-training phase{'s' * (n_phases > 1)}"
                   if n_phases else "")
    sched = run_days if schedule_days is None else schedule_days
    longer = bool(np.any(np.asarray(sched) > np.asarray(run_days) * (1 + 1e-9)))
    if p["ledger_published_defaults"]:
        return _published_project_months(sched * SECONDS_PER_DAY / SECONDS_PER_MONTH,
                                          with_phases,
                                          p["ledger_project_months"] if drawn else None, longer)
    # the compute schedule where it is longer than the run (a consistency audit read the
    # bill's 15.6 days beside notebook 00's schedule of 34.9 on one page)
    months = sched * SECONDS_PER_DAY / SECONDS_PER_MONTH if longer else months
    people = p.get("ledger_people") or []
    own_months = bool(people) and all(isinstance(r, dict) and r.get("months") is not None
                                      for r in people)  # every role its own months: not these
    role = _role_months(people)
    if np.any(role > np.asarray(months)):  # the project lasts while its people are paid (a
        # data lead's operations ran 2.1 months beside 25 staff for 9)
        return np.maximum(months, role), (
            f"convention, ledger_project_months not given: the longest ledger_people role's "
            f"months, {role:g}, longer than the compute {'schedule' if longer else 'run'} "
            f"({_period(months, 'months')}); the data work before it is not counted: set "
            "ledger_project_months"), "roles"
    span = (f"the compute schedule ({schedule_parts_words(p, with_phases)} "
            f"one after the other, notebook 00 step 7; {_period(months, 'months')}) only; the "
            "data work before it is not counted" if longer else
            f"the final run's wall clock{with_phases} ({_period(months, 'months')}), nothing "
            "else being scheduled; the data work before it is not counted")
    return months, (
        f"convention, ledger_project_months not given: {span}, so "
        + ("operations and dataset storage are lower bounds (every ledger_people role gives "
           "its own months)" if own_months else
           "people, operations and dataset storage are lower bounds")
        + ": set ledger_project_months"), "schedule" if longer else "run"


def _published_project_months(months, with_phases: str, drawn=None,
                              schedule: bool = False) -> tuple:
    """``_project_months`` under ``ledger_published_defaults``: (max(run months, P), source,
    basis),
    P = ``project_months_published`` (Epoch's median project), or ``drawn``, its draws over
    the published bounds (``illustrative_ranges``), draw by draw where ``months`` or P is an
    array of Monte Carlo draws, the words saying which of the two each draw takes."""
    published = default("project_months_published") if drawn is None else drawn
    lo, hi = default_range("project_months_published")[1:]
    arr = np.asarray(months, dtype=float)
    studies = (f"its four case studies, GPT-3, OPT-175B, GPT-4 and Gemini, {lo:g}-{hi:g} months "
               f"at their 90% bounds: "
               f"{default_source('project_months_published').split(' (github')[0]}")
    epoch = (f"Epoch's median project, {published:g} months ({studies})" if np.ndim(published)
             == 0 else f"Epoch's project lengths drawn over {lo:g}-{hi:g} months ({studies})")
    run = (f"the compute schedule (exploration, the final run{with_phases} and post-training "
           "one after the other, notebook 00 step 7)" if schedule else
           f"the final run's wall clock{with_phases}")
    if np.all(published > arr):
        words, basis = f"{epoch}, longer than {run}, {_period(months, 'months')}", "epoch"
    elif np.all(arr >= published):
        words = f"{run}, {_period(months, 'months')}, at least {epoch}"
        basis = "schedule_over_epoch"
    else:   # draws on both sides of it
        words = (f"the longer, draw by draw, of {epoch} and {run} ({arr.min():.2f}-"
                 f"{arr.max():.2f} months over the draws)")
        basis = "epoch_or_schedule"
    return (np.maximum(months, published) if np.ndim(months) else max(months, published),
            "published default (ledger_published_defaults; ledger_project_months not given): "
            + words + ": set ledger_project_months", basis)


def _checkpoint_storage_words(p: dict, hot: str, hot_label: str, main_plan, main_days) -> str:
    """What the checkpoint-storage line holds, in words: the hot tier's policy and the cold
    milestones; a run that writes no checkpoint (its interval longer than the run, notebook 07)
    or no milestone (shorter than ``ckpt_milestone_every_days``, or no checkpoint to copy:
    ``reliability.retention_storage_cost``) is said so, the cost then the hot tier's bandwidth
    floor alone (a trial's 9.8-hour run read "hot: last 3 ... +
    milestones ... for 12 months" beside notebook 07's "taking no checkpoint")."""
    n = main_plan.n_checkpoints
    none = n is not None and np.ndim(n) == 0 and float(n) == 0
    bw = main_plan.storage_bytes_per_s
    hot_words = (f"no checkpoint written during the main run (its interval is longer than the "
                 f"run, notebook 07): the hot tier on {hot} provisioned for "
                 f"{rel.gb_per_s_text(bw)} for the run's days" if none and bw else
                 f"{hot_label} on {hot} (capacity provisioned for the peak bandwidth, not the "
                 "average bytes held)")
    every = p["ckpt_milestone_every_days"]
    weeks = np.any(np.floor(np.asarray(main_days) / every) > 0)   # a milestone by the calendar
    cold = (f" + milestones on {p['ckpt_cold_tier']} for {p['ckpt_retention_months']:g} months"
            if weeks and not none else
            "; no milestone (no checkpoint written to copy)" if weeks else
            f"; no milestone (the run is shorter than ckpt_milestone_every_days, {every:g} days)")
    return hot_words + cold


def _checkpoint_storage_line(lines: list, b: _Basis, main_plan, main_days) -> None:
    """Checkpoint storage (``reliability.retention_storage_cost``): the hot tier provisioned for
    the checkpoint plan's peak write bandwidth for the main run's days (notebook 07's; the
    pre-training phases after it are not counted here: a lower bound; capacity ≥ bandwidth ÷ the
    tier's throughput per TiB), plus milestone checkpoints on the cold tier for
    ``ckpt_retention_months``, at ``data/storage_prices.csv`` prices; 0 without checkpoints."""
    p = b.p
    if post_training_only(p):  # sized on a pre-training run's checkpoint plan; none here
        lines.append(Line("storage.checkpoints", "checkpoint storage", "storage", "pre-training",
                          "fixed", None, "not modelled for a bill without pre-training: the "
                          "line sizes the pre-training run's checkpoints (notebook 07); the "
                          "post-training runs' checkpoints are not priced", "", "not modelled"))
        return
    if main_plan is None:
        lines.append(Line("storage.checkpoints", "checkpoint storage", "storage", "pre-training",
                          "fixed", 0.0, "no checkpoints (ledger_resumable=false)", "", "modelled"))
        return
    hot = p["ckpt_hot_tier"]
    st = rel.retention_storage_cost(
        float(main_plan.size.total_bytes), main_days, main_plan.interval_s,
        p["ckpt_keep_last"], p["ckpt_milestone_every_days"], p["ckpt_retention_months"],
        rel.storage_price(hot), rel.storage_price(p["ckpt_cold_tier"]),
        hot_bandwidth_bytes_per_s=main_plan.storage_bytes_per_s,
        hot_bytes_per_s_per_tib=rel.storage_throughput_per_tib(hot),
        n_checkpoints=main_plan.n_checkpoints)  # those the goodput counts
    # a table (policy rows, the total last), or the total per draw
    usd, hot_label = (st["usd"], "hot tier") if isinstance(st, dict) else (
        st["usd"].iloc[-1], st["policy"].iloc[0])
    # the amount recomputable from the line (a trial could not: capacity, months and prices)
    amounts = "" if isinstance(st, dict) else (
        f" ({st['gb_months'].iloc[0]:,.4g} GiB-months × ${rel.storage_price(hot):g}/GB-month "
        f"hot + {st['gb_months'].iloc[1]:,.4g} × ${rel.storage_price(p['ckpt_cold_tier']):g} "
        "cold)")
    lines.append(Line("storage.checkpoints", "checkpoint storage", "storage", "pre-training",
                      "fixed", _num(usd),
                      _checkpoint_storage_words(p, hot, hot_label, main_plan, main_days) + amounts
                      + ("; the main run's days only, not the pre-training phases after it "
                         "(a lower bound)" if p["phases"] else ""),
                      "reliability.retention_storage_cost; data/storage_prices.csv; "
                      f"bandwidth {b.storage_bw['source']}",
                      "modelled", "07_checkpoints"))


def _storage_lines(lines: list, b: _Basis, main_plan, main_days, project_months) -> None:
    """Storage: checkpoints (``_checkpoint_storage_line``), datasets and logs.

        datasets USD = bytes × versions ÷ 2³⁰ × (project months + retention months) × $/GB-month
        logs USD     = ledger_log_bytes ÷ 2³⁰ × the same months × $/GB-month

    (a GB-month is billed as 2³⁰ bytes, ``reliability.BILLED_GB``: AWS S3 FAQ)

    bytes = ``ledger_dataset_bytes``, else training tokens (``_dataset_tokens``) ×
    ``dataset_bytes_per_token``
    (``data/ledger_defaults.csv``); retention months = ``ledger_dataset_retention_months``
    (the checkpoints' milestones keep ``ckpt_retention_months``, their own line); $/GB-month of
    ``ledger_dataset_tier`` (``data/storage_prices.csv``)."""
    p = b.p
    _checkpoint_storage_line(lines, b, main_plan, main_days)
    ds_given = p["ledger_dataset_bytes"] is not None
    ds_bytes = p["ledger_dataset_bytes"] if ds_given else \
        _dataset_tokens(p) * default("dataset_bytes_per_token")
    ds_months = project_months + p["ledger_dataset_retention_months"]
    if not ds_given and not _given(ds_bytes):   # post-training alone, RL only: no corpus
        lines.append(Line("storage.datasets", "dataset storage (all versions)", "storage",
                          "whole project", "fixed", 0.0, "ledger_dataset_bytes not given (no "
                          "training tokens to count: an RL campaign's prompts are not)", "",
                          "not given"))
    else:
        _dataset_line(lines, p, ds_bytes, ds_given, ds_months, project_months)
    log_price = rel.storage_price(p["ledger_dataset_tier"])
    _product_line(lines, "storage.logs", "logs, metrics and traces", "storage", "fixed",
                  p["ledger_log_bytes"] / rel.BILLED_GB * ds_months, log_price,
                  "GiB-months (the GB a GB-month bills)", "$/GB-month",
                  f"ledger_log_bytes kept {_months_words(ds_months)} months on "
                  f"{p['ledger_dataset_tier']}",
                  ("ledger_log_bytes", "ledger_dataset_tier"))


def _dataset_line(lines: list, p: dict, ds_bytes, ds_given: bool, ds_months,
                  project_months) -> None:
    """The dataset-storage line (``_storage_lines`` has its formula)."""
    ds_price = rel.storage_price(p["ledger_dataset_tier"])
    lines.append(Line(
        "storage.datasets", "dataset storage (all versions)", "storage", "whole project", "fixed",
        ds_bytes * p["ledger_dataset_versions"] / rel.BILLED_GB * ds_months * ds_price,
        f"{ds_bytes / 1e12:,.3g} TB ({_quantity(ds_bytes / rel.BILLED_GB)} GiB, the GB a GB-month "
        f"bills) × {p['ledger_dataset_versions']} version(s) × "
        f"{_quantity(ds_months)} months (the project's {_quantity(project_months)} months, then "
        f"{p['ledger_dataset_retention_months']:,.4g} more kept after it: "
        "ledger_dataset_retention_months) × "
        f"${ds_price}/GB-month ({p['ledger_dataset_tier']})",
        "ledger_dataset_bytes (scenario)" if ds_given else
        default_source("dataset_bytes_per_token"), "modelled" if ds_given else "default"))


def _dataset_tokens(p: dict):
    """The tokens the dataset line stores when the scenario gives no bytes: the pre-training
    tokens, or, in a bill of post-training alone (``post_training_only``), the fine-tuning
    tokens (SFT, continued pre-training and LoRA; an RL campaign's prompts are not counted)."""
    if not post_training_only(p):
        return p["train_tokens"]
    return sum(0.0 if p[k] is None else p[k] for k in TUNING_TOKEN_KEYS)   # draws: arrays


def _network_lines(lines: list, p: dict) -> None:
    """Network: internet egress and cross-region transfer, bytes ÷ 10⁹ × $/GB
    (``egress_usd_per_gb``, ``cross_region_usd_per_gb`` in ``data/ledger_defaults.csv``)."""
    _product_line(lines, "network.egress", "internet egress", "network", "elastic",
                  p["ledger_egress_bytes"] / GB, default("egress_usd_per_gb"), "GB", "$/GB",
                  default_source("egress_usd_per_gb"),
                  ("ledger_egress_bytes", "egress_usd_per_gb"))
    _product_line(lines, "network.cross_region", "cross-region transfer", "network", "elastic",
                  p["ledger_cross_region_bytes"] / GB, default("cross_region_usd_per_gb"), "GB",
                  "$/GB", default_source("cross_region_usd_per_gb"),
                  ("ledger_cross_region_bytes", "cross_region_usd_per_gb"))


def _energy_line(lines: list, b: _Basis, all_h) -> dict:
    """Electricity of every GPU-hour of the bill (``energy.energy_of``: GPU-h × facility kW per
    GPU = TDP × server W/TDP × 0.75 × PUE, Cottier et al. 2024 §2.3; tCO2e at the grid's
    kg/kWh). Owned hardware pays it, MWh × 1,000 × $/kWh; a rented GPU-hour includes it ($0,
    "included"). An accelerator without a sourced TDP has no energy figure: its electricity is
    "not given" on owned hardware, and still "included" ($0) in a rented GPU-hour.
    Returns ``energy_of``'s dict (None values without a TDP)."""
    p, gpu = b.p, b.gpu
    if not gpu.tdp_w or gpu.tdp_w != gpu.tdp_w:  # no sourced TDP: no energy figure, said so
        lines.append(Line("energy.electricity", "electricity", "energy", "whole project",
                          "elastic", 0.0,
                          f"{_quantity(all_h)} GPU-h, but accelerator={gpu.name!r} has no "
                          "tdp_w in "
                          "data/accelerators.csv (no sourced figure): energy and emissions "
                          "are not computed" + ("" if b.own else
                                                ", and the electricity is included in the "
                                                + _included_in(p))
                          + "; add a sourced TDP to get them",
                          "Cottier et al. 2024 §2.3; data/accelerators.csv",
                          "not given" if b.own else "included"))
        return {"kw_per_gpu": None, "mwh": None, "kg_co2e_per_kwh": None, "tco2e": None,
                "mwh_tdp": None, "factor": None}
    en = {k: _num(v) for k, v in energy_of(all_h, gpu, p["ledger_pue"],
                                            p["ledger_grid_kg_co2e_per_kwh"]).items()}
    kw, mwh, grid, t_co2 = en["kw_per_gpu"], en["mwh"], en["kg_co2e_per_kwh"], en["tco2e"]
    usd_kwh = default("electricity_usd_per_kwh") if \
        p["ledger_electricity_usd_per_kwh"] is None else p["ledger_electricity_usd_per_kwh"]
    how = (f"{_quantity(all_h)} GPU-h × {kw:.2f} kW facility power per GPU (TDP "
           f"{gpu.tdp_w:.0f} W × server × {default('power_to_tdp'):g} average draw × PUE) = "
           f"{_quantity(mwh)} MWh; "
           f"{_quantity(t_co2)} tCO2e at {grid:.3f} kg/kWh. Convention: {en['factor']:.2f}× "
           f"a count of GPU TDP alone (the Llama model cards': {_quantity(en['mwh_tdp'])} "
           "MWh for these "
           "GPU-hours)")
    if b.own:
        lines.append(Line("energy.electricity", "electricity", "energy", "whole project",
                          "elastic", mwh * 1e3 * usd_kwh, f"{how}; × ${usd_kwh}/kWh",
                          "Cottier et al. 2024 §2.3; data/ledger_defaults.csv", "modelled"))
    else:
        lines.append(Line("energy.electricity", "electricity", "energy", "whole project",
                          "elastic", 0.0, f"{how}; included in the {_included_in(p)}",
                          "Cottier et al. 2024 §2.3; data/ledger_defaults.csv", "included"))
    return en


def _included_in(p: dict) -> str:
    """What a GPU-hour price that carries its electricity is: the rented hour, or with
    ``pricing: owned`` the scenario's own ``price_usd_per_gpu_hour`` (no amortisation, so no
    energy split out of it)."""
    return "given price_usd_per_gpu_hour" if p["pricing"] == "owned" else \
        "rented GPU-hour price"


def _months_words(months) -> str:
    """A role's months in the people line: one decimal, or the draws' ``_quantity`` (a drawn
    project length: a trial's RL campaign of drawn time priced people over arrays)."""
    return f"{months:.1f}" if np.ndim(months) == 0 else _quantity(months)


def _people_line(lines: list, p: dict, project_months, project_months_source) -> None:
    """People: Σ over ``ledger_people`` roles of FTE × months (default the project's) ÷ 12 ×
    loaded cost per FTE-year (default ``staff_usd_per_fte_year_mean``, $444K: the mean of salary
    × overhead + equity, Epoch's distributions; a role's FTEs are people whose pay varies, and a
    sum over them comes to the count × the mean, as the contributor rule's does; the median of
    one person's is $400K, ``staff_usd_per_fte_year``); with
    ``ledger_published_defaults`` and ``ledger_contributors``, Epoch's contributor rule
    (``_contributors_line``); else 0 and "not given"."""
    label = "people (roles × FTE × months × loaded cost)"
    if p["ledger_people"]:
        people = [(r["role"], r["fte"], r.get("months", project_months),
                   r.get("usd_per_year", default("staff_usd_per_fte_year_mean")))
                  for r in p["ledger_people"]]
        usd = sum(fte * months / 12.0 * rate for _, fte, months, rate in people)
        lines.append(Line("people.staff", label, "people", "whole project", "fixed", usd,
                          "; ".join(f"{role}: {fte:g} FTE × {_months_words(months)} mo × "
                                    f"{fmt_usd(rate)}/yr" for role, fte, months, rate in people)
                          + f" (project months: {project_months_source})",
                          "ledger_people (scenario); default loaded cost, the mean "
                          + default_source("staff_usd_per_fte_year_mean"), "modelled"))
    elif p["ledger_published_defaults"] and p["ledger_contributors"]:
        lines.append(_contributors_line(p, project_months, project_months_source))
    else:
        lines.append(Line("people.staff", label, "people", "whole project", "fixed", 0.0,
                          f"ledger_people not given (a loaded cost of "
                          f"{fmt_usd(default('staff_usd_per_fte_year_mean'))}/FTE-year, the "
                          "mean, is the default rate)",
                          default_source("staff_usd_per_fte_year_mean"), "not given"))
        _published_note(lines, p, "people.staff")


def _operations_line(lines: list, p: dict, project_months, project_months_source) -> None:
    """Operations (cluster ops, monitoring, support): project months ×
    ``ledger_operations_usd_per_month``."""
    _product_line(lines, "ops.operations", "operations (cluster ops, monitoring, support)",
                  "operations", "fixed", project_months, p["ledger_operations_usd_per_month"],
                  "months", "$/month", "ledger_operations_usd_per_month × project months ("
                  + project_months_source + ")",
                  ("ledger_project_months", "ledger_operations_usd_per_month"))


def _sentence_usd(usd) -> str:
    """An amount in a line's 'how' sentence, as the bill prints amounts (``fmt_usd``, three
    significant figures): a number, or draws' first (``Draws`` formats as it; the sentences of
    ``simulate_ledger``'s draws are discarded)."""
    flat = np.ravel(usd)
    return fmt_usd(float(flat[0])) if flat.size else "no draws"


def _reserve_lines(lines: list, p: dict, final_run_usd) -> None:
    """Reserves: a rerun of the final run, P(rerun) × final run USD (the expected cost of a
    relaunch after a divergence, as OPT-175B's lineage 12), then a contingency,
    ``ledger_reserve_fraction`` × the sum of every line above."""
    rerun_p = p["ledger_rerun_probability"]
    if post_training_only(p):   # nothing to rerun: not modelled, as its key is refused
        lines.append(Line("reserve.rerun", "reserve: a rerun of the final run", "reserve",
                          "pre-training", "fixed", None, f"not modelled: {BASE_MODEL_WORDS}, "
                          "so there is no final pre-training run to rerun", "", "not modelled"))
    else:
        lines.append(Line("reserve.rerun", "reserve: a rerun of the final run", "reserve",
                          "pre-training", "fixed", rerun_p * final_run_usd,
                          f"P(rerun) {rerun_p:.0%} × final run {_sentence_usd(final_run_usd)} "
                          "(expected cost of relaunching after a divergence, as OPT-175B's "
                          "lineage 12)", "ledger_rerun_probability (scenario)",
                          "modelled" if _given(rerun_p) else "not given"))
    sub = _num(sum(ln.usd for ln in lines if ln.usd is not None))
    frac = p["ledger_reserve_fraction"]
    lines.append(Line("reserve.contingency", "reserve: contingency for hidden costs", "reserve",
                      "whole project", "fixed", frac * sub,
                      f"{frac:.0%} × the {_sentence_usd(sub)} of the lines above",
                      "ledger_reserve_fraction (scenario)",
                      "modelled" if _given(frac) else "not given"))


def _figures(b: _Basis, run: dict, en: dict, totals: dict, rl_camp) -> dict:
    """The figures behind the bill (``Ledger.figures``): MFU and price with their sources, the
    rate of its GPU-hour lines (``gpu_rate_usd_per_gpu_hour``: the price less owned energy), both
    FLOP conventions (the MFU basis the hours are priced on, and 6·N_active·D), GPU-hours, goodput
    = ideal ÷ paid, days, energy and emissions, project months, the job's MTBF."""
    p, spec = b.p, b.spec
    return {
        "mfu": b.mfu, "mfu_source": b.mfu_source, "pricing": p["pricing"],
        "price_usd_per_gpu_hour": b.price, "price_source": b.price_source,
        # what every GPU-hour line charges: the price less owned hardware's energy (_basis)
        "gpu_rate_usd_per_gpu_hour": b.gpu_rate,
        # two conventions, two names: the MFU basis the hours are priced on, and 6·N_active·D
        "training_flops_mfu_basis": run["flops_total"],
        "training_flops_6nd": sum(6.0 * spec.n_active_params * ph["tokens"]
                                  for ph in run["phases"]),
        # the work a causal run does (its kernels skip the masked half of attention): the
        # computation "used for its training" the EU AI Act counts (claims.compute_threshold_words)
        "training_flops_causal": sum(ph["tokens"] * float(model_flops_per_token(
            spec, ph["seq_len"], causal=True)) for ph in run["phases"]),
        "ideal_gpu_hours": run["ideal_h"], "paid_gpu_hours": run["paid_h"],
        "main_ideal_gpu_hours": run["main_ideal"],
        # None without a run (post_training_only): each fine-tune's is in its line and in
        # post_training_goodput (by the line's name)
        "goodput": run["ideal_h"] / run["paid_h"] if _given(run["paid_h"]) else None,
        "post_training_goodput": dict(b.tuning_goodput),
        "wall_clock_days": run["main_days"], "run_wall_clock_days": run["run_days"],
        "all_gpu_hours": totals["all_gpu_hours"],
        "energy_mwh": en["mwh"],
        "tco2e": en["tco2e"], "grid_kg_co2e_per_kwh": en["kg_co2e_per_kwh"],
        "kw_per_gpu": en["kw_per_gpu"],
        "energy_mwh_tdp_basis": en["mwh_tdp"], "energy_vs_tdp_basis": en["factor"],
        "project_months": totals["project_months"],
        "project_months_source": totals["project_months_source"],
        # what set the length: a PROJECT_MONTHS_BASES key (_project_months)
        "project_months_basis": totals["project_months_basis"],
        # the compute schedule by part (_schedule_days: notebook 00's step 7 lays it out)
        "schedule_days": totals["schedule_days"],
        "main_ideal_days": run["main_ideal"] / p["n_gpus"] / 24.0,
        "budget_usd": p["ledger_budget_usd"], "final_run_usd": run["paid_h"] * b.gpu_rate,
        "n_gpus": p["n_gpus"], "model": spec.name, "accelerator": b.gpu.name,
        "job_mtbf_s": _num(rel.cluster_mtbf_s(p["n_gpus"], b.fail_rate)),
        "rl_gpu_hours": totals["rl_gpu_hours"],
        "synthetic_gpu_hours": totals["synthetic_gpu_hours"],
        "eval_gpu_hours": totals["eval_gpu_hours"],
        "ckpt_storage_bytes_per_s": b.storage_bw["bytes_per_s"],
        "ckpt_storage_source": b.storage_bw["source"],
        "ckpt_main_plan": _checkpoint_figures(run["main_plan"]),
        "rl_parts_gpu_hours": ({} if rl_camp is None else
                               {k: float(v) for k, v in _rl_parts(rl_camp).items()}),
        # the wait for the longest responses, inside the generation part (rl.wall_and_parts)
        "rl_tail_gpu_hours": (None if rl_camp is None else
                              _num(rl_camp.loc["tail", "gpu_hours"])),
        # one RL run's wall clock on rl_gpus (rl.rl_campaign: iterations × iteration time, ×
        # the time factor the bill takes), None without a campaign (a trial's 100,000
        # iterations on 64 GPUs, 167 days a run, were nowhere said)
        "rl_wall_clock_days_per_run": (None if rl_camp is None else _num(
            rl_camp.attrs.get("wall_clock_days_per_run"))),
    }


def _checkpoint_figures(plan) -> dict | None:
    """The main run's checkpoint plan as the bill priced it (its failure model: spot
    pre-emptions and their restart included, ``failure_model``): the interval τ, the write w,
    the stall δ, the storage duty w ÷ (τ + δ), a checkpoint's bytes, the restart R after a
    failure (its read back included), and where the wall clock goes as shares of it that sum to
    1 (``reliability.goodput_breakdown``: productive, the checkpoints' stalls, work lost and
    redone, restarts, planned stops; an SRE trial found the split on page 07 alone), as floats;
    None without checkpoints (``ledger_resumable: false``) or for a ranged plan (arrays)."""
    if plan is None or np.ndim(plan.interval_s):
        return None
    return {"interval_s": float(plan.interval_s), "write_s": float(plan.write_s),
            "stall_s": float(plan.stall_s), "storage_duty": float(plan.storage_duty),
            "checkpoint_bytes": float(plan.size.total_bytes),
            "restart_s": float(plan.restart_s),
            "wall_clock_shares": {k: float(v) for k, v in plan.breakdown.parts().items()}}


#: The lines the exploratory multiplier nets out (``_netted_parts``), in a reader's words.
NETTED_WORDS = {"post.sft": "SFT", "post.cpt": "continued pre-training", "post.lora": "LoRA"}
#: The rerun reserve's part of ``_netted_parts`` (a failed attempt the multiplier counts).
RERUN_PART = "the rerun reserve"


def multiplier_counts(parts) -> str:
    """What Cottier et al. 2024's development multiplier counts, as the netting's words say it
    for the parts netted out (``_netted_parts``' keys): failed attempts named where the rerun
    reserve is one of them (App. A.6: "experiments, failed attempts, evaluation and
    finetuning"). ``parts``: a collection (list, set or dict) of the parts' names."""
    if isinstance(parts, str) or not isinstance(parts, (list, tuple, set, frozenset, dict)) \
            or not all(isinstance(k, str) for k in parts):
        raise ValueError(f"parts={parts!r} must be a collection of the netted parts' names")
    return ("fine-tuning, evaluation and failed attempts" if RERUN_PART in parts
            else "fine-tuning and evaluation")


def _netted_parts(lines: list, tune_h, rl_h, eval_h, rerun_h=0.0) -> dict:
    """The GPU-hours the exploratory multiplier nets out, by what a reader calls them: the
    fine-tuning lines' (SFT, continued pre-training, LoRA: ``tune_h`` together, named by the
    lines that are priced), RL post-training's (``rl_h``), the benchmark runs' (``eval_h``)
    and the rerun reserve's, P(rerun) × the final run's paid GPU-hours (``rerun_h``: a failed
    attempt at the final run, which Cottier et al.'s multiplier counts; a review found both
    billed); parts that are 0 in every draw left out."""
    tuned = [w for k, w in NETTED_WORDS.items()
             if any(ln.key == k and ln.status == "modelled" for ln in lines)]
    parts = {(_and(tuned) if tuned else "fine-tuning"): tune_h,
             "RL post-training": rl_h, "benchmark runs": eval_h,
             RERUN_PART: rerun_h}
    return {k: v for k, v in parts.items() if _given(v)}


def _exploratory_fraction_line(lines, ix, p, paid_h, netted: dict, rate, kind) -> dict:
    """The exploratory-runs line from a fraction, inserted at ``ix``; returns its GPU-hours
    (``gpu_hours``) and how they were netted (``fraction``, ``gross_gpu_hours``, ``netted``: the
    GPU-hours netted out by part, ``netted_gpu_hours``, ``clamped``: the parts exceed the
    multiplier in every draw, the rate ``usd_per_gpu_hour``), the bill's
    ``figures['exploratory_netting']``.

    Cottier et al. 2024 (arXiv:2405.21015, §2.5 and App. A.6) put *total development compute*
    at 1.2-4× the final run, "including experiments, failed attempts, evaluation and
    finetuning"; ``ledger_exploratory_fraction`` (default their median, 1.19) is that multiplier
    less one. The bill's own post-training (SFT, CPT, LoRA, RL: ``netted``), benchmark-run
    and rerun-reserve (P(rerun) × the final run, a failed attempt) GPU-hours are part of it,
    so they are netted out:

        exploratory GPU-h = max(0, fraction × final run − post-training − evaluation
                                − P(rerun) × final run GPU-h)

    so a post-training line moves money out of this one and adds nothing to the total until it
    exceeds the multiplier; the line's label names what it is net of (``exploratory_words``
    says it with the amounts). (``ledger_exploratory_runs``, a list of runs, is billed as given
    instead.)"""
    given = p["ledger_exploratory_fraction"] is not None
    frac = p["ledger_exploratory_fraction"] if given else default("exploratory_fraction")
    row = default_rows()["exploratory_fraction"]
    netted_h = sum(netted.values()) if netted else 0.0
    gross = frac * paid_h
    h = _num(np.maximum(0.0, gross - netted_h))
    clamped = bool(netted) and bool(np.all(h == 0))
    what = _and(list(netted)) if netted else ""
    label = ("exploratory and failed runs" + (f", net of {what}" if netted and not clamped else "")
             + (f" (none left: {what} exceed{'s' if len(netted) == 1 else ''} the "
                "multiplier)" if clamped else ""))
    how = (f"development compute beyond the final run, {frac:.2f} × {_quantity(paid_h)} paid "
           f"GPU-h (Cottier et al.'s range {row['low']}-{row['high']}: total development "
           "compute is "
           "1.2-4× the final run, experiments, failed attempts, evaluation and fine-tuning "
           f"together), less the {_quantity(netted_h)} GPU-h of the "
           f"{_and([k.removeprefix('the ') for k in netted]) if netted else 'lines'} "
           "billed separately" + (" (they exceed it: 0)" if clamped else "")
           + f" = {_quantity(h)} GPU-h × ${rate:.2f}")
    lines.insert(ix, Line("compute.exploratory", label, "compute",
                          "development", kind, h * rate, how,
                          "ledger_exploratory_fraction (scenario); " + row["source"] if given
                          else row["source"], "modelled" if given else "default"))
    return {"gpu_hours": h, "fraction": frac, "gross_gpu_hours": gross, "netted": netted,
            "netted_gpu_hours": netted_h, "clamped": clamped, "usd_per_gpu_hour": rate}


def _post_training_exploration_line(lines: list, ix: int, b: _Basis) -> float:
    """A post-training bill's exploratory line (``post_training_only``) when it lists no runs
    (``ledger_exploratory_runs``): not modelled, inserted at ``ix``; returns 0 GPU-hours.
    Cottier et al.'s multiplier (``_exploratory_fraction_line``) measures a project's
    development compute against its final pre-training run, and a post-training bill has none:
    no published ratio sizes the sweeps of a fine-tuning or RL project, so none is made up."""
    lines.insert(ix, Line(
        "compute.exploratory", "exploratory and failed runs", "compute", "development",
        b.kind_compute, None,
        "not modelled for a bill without pre-training: the exploratory multiplier (Cottier et "
        "al. 2024, 1.2-4× the final run) is measured against a final pre-training run; list the "
        "sweeps and failed runs of the post-training in ledger_exploratory_runs to bill them",
        default_rows()["exploratory_fraction"]["source"], "not modelled"))
    return 0.0


def _possessive(name: str) -> str:
    """"RL post-training's", "benchmark runs'" (not "benchmark runs's")."""
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def netting_usd(n: dict) -> tuple:
    """``(parts, excess)``: the dollars of what an exploratory line nets out
    (``figures['exploratory_netting']``): each netted part's GPU-hours × the line's rate, and
    what the netted GPU-hours exceed of the multiplier's part beyond the final run,
    max(0, netted − gross) × rate (0 unless the line is clamped at $0).

    Raises
    ------
    ValueError
        ``n`` not such a mapping (its ``usd_per_gpu_hour``, ``netted``, ``netted_gpu_hours``
        and ``gross_gpu_hours``)."""
    keys = ("usd_per_gpu_hour", "netted", "netted_gpu_hours", "gross_gpu_hours")
    if not isinstance(n, dict) or not all(k in n for k in keys) \
            or not isinstance(n["netted"], dict):
        raise ValueError(f"n={n!r} must be a bill's figures['exploratory_netting'] (a mapping "
                         f"of {', '.join(keys)})")
    rate = float(n["usd_per_gpu_hour"])
    parts = {k: float(h) * rate for k, h in n["netted"].items()}
    return parts, max(float(n["netted_gpu_hours"]) - float(n["gross_gpu_hours"]), 0.0) * rate


def _netted_words(n: dict) -> str:
    """"RL post-training's 73,322 GPU-h ($292k)" for each part an exploratory line nets out
    (``figures['exploratory_netting']``), joined with "and"."""
    usd = netting_usd(n)[0]
    return _and([f"{_possessive(k)} {_quantity(float(h))} GPU-h ({fmt_usd(usd[k])})"
                 for k, h in n["netted"].items()])


def exploratory_all_clamped(bill: Ledger) -> bool:
    """True when the exploratory line nets out more post-training, benchmark and rerun-reserve
    GPU-hours than
    even the top of Cottier et al. 2024's interval of the multiplier gives (``high`` × the final
    run's paid GPU-hours, ``data/ledger_defaults.csv``), so that it is $0 over its whole
    illustrative range and that range moves nothing (``illustrative_ranges`` leaves it out)."""
    n = _ledger(bill, "bill").figures.get("exploratory_netting")
    if not n or not n["clamped"]:
        return False
    hi = exploratory_fraction_bounds(bill.scenario)[2]
    return hi * float(bill.figures["paid_gpu_hours"]) <= float(n["netted_gpu_hours"])


def exploratory_as_fraction(bill: Ledger) -> bool:
    """Whether the bill prices exploration as a fraction of the final run
    (``_exploratory_fraction_line``), not as the runs the scenario lists
    (``ledger_exploratory_runs``): the case the exploratory range applies to."""
    b = _ledger(bill, "bill")
    return b.line("compute.exploratory").how.startswith("development compute") and \
        not b.scenario.get("ledger_exploratory_runs")


def exploratory_fraction_bounds(scenario) -> tuple:
    """(low, mode, high) of the exploratory fraction's illustrative range
    (``illustrative_ranges``): Cottier et al. 2024's 90% interval and median (``lo``, ``med``,
    ``hi``: data/ledger_defaults.csv, 0.2, 1.19, 3.0) when the scenario gives none (or a
    range, which is its own); for a fraction f it gives, the interval's spread relative to the
    median (the multiplier's uncertainty as the source measured it, carried to the scenario's
    point)::

        (f · lo / med,  f,  f · hi / med)

    so that the range stays around the scenario's number (0 gives (0, 0, 0); a range of zero
    width, ``[0.5, 0.5]``, is that number: a trial's drew Cottier et al.'s default), its high
    end cut to the input's own bound, ``EXPLORATORY_FRACTION_MAX`` (10), as the default's range
    is (a trial's fraction 5 drew to 12.6, a range the key refuses, and stopped notebook 00).

    Raises
    ------
    ValueError
        ``scenario`` not a mapping, or a fraction that is not a number >= 0."""
    if not isinstance(scenario, dict):
        raise ValueError(f"scenario={scenario!r} must be a mapping of parameter names to values")
    row = default_rows()["exploratory_fraction"]
    lo, med, hi = float(row["low"]), float(row["value"]), float(row["high"])
    given = _number_if_zero_width(scenario.get("ledger_exploratory_fraction"))
    if given is None or isinstance(given, Range):
        return lo, med, hi
    g = as_scalar(given, "ledger_exploratory_fraction", nonnegative=True)
    return g * lo / med, g, max(g, min(g * hi / med, EXPLORATORY_FRACTION_MAX))


def exploratory_words(bill: Ledger) -> str | None:
    """What the exploratory line nets out, with the amounts, in a reader's words ("net of RL
    post-training's 7,239 GPU-h ($28.9k), which the development-compute multiplier already
    counts (its part beyond the final run, 1.19x that run: ...) ...", or "$0.00: RL
    post-training's ... exceeds the multiplier's whole part beyond the final run ..." when it
    is clamped at 0);
    None when it nets nothing (no post-training or benchmark line priced) or lists its runs
    (``ledger_exploratory_runs``). ``_exploratory_fraction_line`` has the formula,
    max(0, fraction × final run − netted GPU-h), and its source (Cottier et al. 2024, App. A.6:
    the multiplier counts experiments, failed attempts, evaluation and fine-tuning together),
    so a netted line moves money out of the exploratory one and adds $0 to the total until it
    exceeds the multiplier; past it the line is $0 and only the excess adds."""
    n = _ledger(bill, "bill").figures.get("exploratory_netting")
    if not n or not n["netted"]:
        return None
    rate, gross = n["usd_per_gpu_hour"], float(n["gross_gpu_hours"])
    many = len(n["netted"]) > 1
    what = "the " + _and([k.removeprefix("the ") for k in n["netted"]])
    mult = (f"{float(n['fraction']):.2f}x that run: {_quantity(gross)} GPU-h, "
            f"{fmt_usd(gross * rate)}")
    counted = multiplier_counts(n["netted"])
    # the compute only: their days lengthen the schedule the project-long lines are priced
    # over, where the scenario gives no project length (a review read "adds $0.00" beside a
    # people line $111k larger with the RL campaign)
    on_schedule = bill.figures.get("project_months_basis") in ("schedule", "schedule_over_epoch")
    days = (" (their days still lengthen the compute schedule that people, operations and "
            "storage are priced over)") if on_schedule else ""
    if not n["clamped"]:
        return (f"net of {_netted_words(n)}, which the development-compute multiplier already "
                f"counts (its part beyond the final run, {mult}), as "
                f"Cottier et al. 2024 count {counted} in it: {what} "
                f"line{'s move' if many else ' moves'} that money out of the exploratory line "
                f"and add{'' if many else 's'} $0.00 of compute to the total{days}")
    excess = netting_usd(n)[1]
    return (f"$0.00: {_netted_words(n)} exceed{'' if many else 's'} the multiplier's whole "
            f"part beyond the final run ({mult}), in which Cottier et al. 2024 count "
            f"{counted}, so only the excess, {fmt_usd(excess)}, adds compute to the "
            f"total{days}"
            + ("; the exploratory fraction is left out of the spread (the line is $0.00 even "
               "at the top of its range)" if exploratory_all_clamped(bill) else ""))


def exploratory_note(bill: Ledger) -> str:
    """The exploratory line's status with what it nets out, short, for a table's note column
    (notebook 00's headline figures, the report's index): "default; net of RL post-training's
    $28.9k, which Cottier et al.'s multiplier counts", or "default; $0: RL post-training's
    $11.6M exceeds Cottier et al.'s multiplier ($3.06M)" when clamped; the status alone when
    nothing is netted (``exploratory_words`` says it in full)."""
    line = _ledger(bill, "bill").line("compute.exploratory")
    n = bill.figures.get("exploratory_netting")
    if not n or not n["netted"]:
        return line.status
    rate, many = n["usd_per_gpu_hour"], len(n["netted"]) > 1
    what = _and([f"{_possessive(k)} {fmt_usd(v)}" for k, v in netting_usd(n)[0].items()])
    if not n["clamped"]:
        return f"{line.status}; net of {what}, which Cottier et al.'s multiplier counts"
    return (f"{line.status}; $0: {what} exceed{'' if many else 's'} Cottier et al.'s "
            f"multiplier ({fmt_usd(float(n['gross_gpu_hours']) * rate)})")


def exploratory_shift_words(a: Ledger, b: Ledger, names=("A", "B")) -> str | None:
    """Why two compared bills' exploratory lines differ by what their post-training and
    benchmark lines differ, in a reader's words ("net of RL post-training (...): RL
    post-training's GPU-hours cost $292k more in B than in A, and the exploratory line deducts
    $292k more of them (beside what the final run's own change moves it), so RL post-training
    moves the total by $0.00"; a trial read "the exploratory line is $3.03k more" beside a
    table whose exploratory line fell $48.9k with the final run; ``estimate --compare``, the index's
    comparison); None when neither nets anything out or both net the same amount. ``names``:
    the two bills' names as the comparison's columns have them. None too where either bill is
    of post-training alone (``post_training_only``: no multiplier, nothing netted).

    Each bill's exploratory line is max(0, g − n) in dollars, g = fraction × final run GPU-h ×
    rate, n = netted GPU-h × rate (``_exploratory_fraction_line``), so the netted lines and the
    exploratory line together cost max(g, n) = g + max(0, h), h = n − g. Of the netted lines'
    change Δ = n_B − n_A, what reaches the total is their own share of the change in max(g, n),
    the final run's (g_A → g_B) set apart: along the straight path from A to B (the
    Aumann-Shapley attribution), n's share is Δ × the fraction of the path where h ≥ 0,

        R = Δ × |{t in [0, 1] : h_A + t (h_B − h_A) ≥ 0}|,

    and the exploratory line deducts Δ − R more of them. Netted lines under the multiplier at
    both ends (h < 0): R = 0, the line absorbs all of Δ; above it at both ends (the line at $0 on
    both sides): R = Δ; across: R = Δ × h_B / (h_B − h_A) when B is above (n_B − g at one final
    run g). Where a bill bills its exploratory runs as given (no g), the part min(n, g) × rate of
    the other's is said absorbed."""
    if not (isinstance(names, (tuple, list)) and len(names) == 2
            and all(isinstance(x, str) and x for x in names)):
        raise ValueError(f"names={names!r} must be two non-empty names")
    na, nb = (_ledger(x, name).figures.get("exploratory_netting") or None
              for x, name in ((a, "a"), (b, "b")))
    if not (na and na["netted"]) and not (nb and nb["netted"]):
        return None
    if any(post_training_only(x.scenario or {}) for x in (a, b)):
        return None   # no multiplier on one side: its post-training is billed, none absorbed

    def cost(n, absorbed=False):
        if not n:
            return 0.0
        h = float(n["netted_gpu_hours"])
        return (min(h, float(n["gross_gpu_hours"])) if absorbed else h) * n["usd_per_gpu_hour"]

    d = difference(cost(na), cost(nb))
    if d == 0:
        return None
    if na and nb:
        ha, hb = (cost(n) - float(n["gross_gpu_hours"]) * n["usd_per_gpu_hour"]
                  for n in (na, nb))
        if (ha >= 0) == (hb >= 0):
            above = 1.0 if ha >= 0 else 0.0
        else:  # crosses 0 at t* = h_A / (h_A − h_B): above after it when B is above
            cross = ha / (ha - hb)
            above = 1.0 - cross if hb >= 0 else cross
        rest = float(d) * above
        moved = float(difference(rest, d))  # d − rest: what the exploratory line absorbs
    else:
        moved = difference(cost(na, True), cost(nb, True))
        rest = difference(moved, d)  # d − moved: what reaches the total

    def signed(x):
        return ("+" if x > 0 else "−" if x < 0 else "") + fmt_usd(abs(x))

    parts = sorted({k for n in (na, nb) if n for k in n["netted"]})
    what = _and(parts)
    counted = multiplier_counts(parts)
    return (f"net of {what} (Cottier et al. 2024's multiplier already "
            f"counts {counted}): {_possessive(what)} GPU-hours cost "
            f"{fmt_usd(abs(d))} {'more' if d > 0 else 'less'} in {names[1]} than in {names[0]}, and the "
            "exploratory line "
            + (f"deducts {fmt_usd(abs(moved))} {'more' if moved > 0 else 'less'} of them" if moved
               else "deducts no more of them")
            + f" (beside what the final run's own change moves it), so {what} "
            f"move{'' if ' and ' in what else 's'} the total by {signed(rest)}")


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
    if p.get("_mfu_default"):
        return (f"the notebooks' default, {LEDGER_DEFAULTS['mfu']:.0%}: the scenario gives no "
                "mfu (give one, or `mfu: predict` for the step-time model's prediction)")
    band = p.get("_ranged", {}).get("mfu")
    if band is not None and p.get("mfu_band") in BAND_WORDS:  # a report's band on a page
        # cut at its point: the band's top as well (a trial read "the median of its band" of
        # a bill at the band's capped top and could not tell what was assumed)
        top = " and top" if band.kind == "two_piece_cut" and band.cut <= band.mode else ""
        return (f"{BAND_WORDS[p['mfu_band']]}, the {point_word(band)}{top} of its band "
                f"{band.describe()} (the point bill; ledger.simulate_ledger draws the band)")
    return _range_source(p, "mfu") or "given in the scenario (mfu)"


#: The MFU a report's band (``mfu_band``) peaks at, for the bill's 'how' column.
BAND_WORDS = {"predicted": "predicted (mfu: predict) by llmcost.step, as the report resolved it",
              "pilot": "calibrated on the scenario's pilot runs, as the report resolved it"}


def predicted_mfu_words(pred: dict) -> str:
    """The step-time model's prediction and the bill's MFU in one sentence
    (``accuracy.central_mfu_words``: the prediction p, its regime's median held-out error c
    (shrunk toward 0 below 9 runs, ``accuracy.shift_factor``), the
    bill's point p / (1 + c) kept inside the band, and the band), from ``report.resolve_mfu``'s
    ``_mfu_prediction`` record (its ``words``; rebuilt from ``predicted`` and ``band`` for a
    record without them); "" for a record without its band."""
    if pred.get("words"):
        return pred["words"]
    band = pred.get("band", {})
    if "low" not in band or "high" not in band or "value" not in pred:
        return ""
    return central_mfu_words(float(pred.get("predicted", pred["value"])),
                             float(band.get("center", 0.0)), int(band.get("n", 0)),
                             float(band["low"]), float(band["high"]), pred.get("plan", "?"),
                             point=float(pred["value"]))


def predicted_mfu_source(pred: dict) -> str:
    """The label of a predicted MFU (``report.resolve_mfu``'s ``_mfu_prediction``): where it
    comes from and, when its regime has held-out runs (the bill's MFU is then the band's central
    estimate, ``accuracy.central_mfu``), the prediction and the bill's figure both
    (``predicted_mfu_words``); the efficiency profile its kernels were priced at, when the
    scenario names one. Without held-out runs, a prediction above the band's capped top says
    that the bill uses the top, and what set it (the record's ``cap``)."""
    band = pred.get("band", {})
    stack = f" on the {pred['stack']} stack" if pred.get("stack") else ""
    if pred.get("efficiency_profile"):  # the scenario's own measured kernels, named
        stack += f", kernels at the efficiency profile {pred['efficiency_profile']}"
    if band.get("n") and predicted_mfu_words(pred):
        return f"predicted (mfu: predict) by llmcost.step{stack}: {predicted_mfu_words(pred)}"
    text = f"predicted (mfu: predict) by llmcost.step for {pred.get('plan', '?')}{stack}"
    if "low" in band and "high" in band:
        text += f", band {band['low']:.1%}-{band['high']:.1%}"
    if pred.get("center_capped") and "predicted" in pred:  # the bill uses the capped top
        text += (f"; the prediction, {float(pred['predicted']):.1%}, is above the band's capped "
                 f"top, so the bill uses the top" + (f", set by {pred['cap']}"
                                                     if pred.get("cap") else ""))
    return text


def _quantity(x) -> str:
    """A quantity of the bill's prose (``units.fmt_quantity``: three significant figures below
    100, whole numbers above); Monte Carlo draws by their first, as their own format gives them
    (``montecarlo.Draws``)."""
    return fmt_quantity(float(np.ravel(x)[0]) if np.ndim(x) else x)


def _rl_campaign(p: dict, usd_per_gpu_hour: float):
    """Notebook 05's RL post-training campaign for the scenario, or None when it describes none.

    ``rl.scenario_campaign(p, price)``: one iteration of the ``rl_`` set-up (generation timed
    through the rollout engine, scoring and update at ``rl_train_mfu`` or, when the scenario
    leaves it null, at the step-time model's MFU for the fastest plan that fits) ×
    ``rl_iterations`` × ``rl_runs``, in GPU-hours and USD by part (the parts sum to the
    ``total`` row), at the bill's GPU-hour price. Whether the scenario describes one: ``scenario.rl_campaign_given``. Failures
    of the RL job are not added (notebook 05 does not; at tens of GPUs for days they are small).
    """
    if not p["ledger_rl"]:
        return None
    try:
        return scenario_campaign(p, usd_per_gpu_hour)
    except ValueError as e:
        msg = user_words(str(e), {"tp": "rl_rollout_tp",
                                  "weight_dtype": rollout_weight_dtype_key(p)})
        # the first rollout TP that prices, in rl.fitting_rollout_tp's order (a teacher ran
        # notebook 00 on Kimi K2 and read only "raise rl_rollout_tp"); a report takes it itself
        # where the scenario gives none
        try:
            t = fitting_rollout_tp(p)
        except ValueError:
            t = None
        near = (f"; at rl_rollout_tp: {t} it fits" if t is not None
                and t != p.get("rl_rollout_tp") else "")
        near = rollout_dtype_words(p, msg) + near   # the rollouts' own precision key, then TP
        raise scenario_error(f"RL post-training line (rl_ keys, notebook 05): {msg}{near}",
                             e) from None


def _rl_parts(camp) -> dict:
    """The campaign's GPU-hours in the bill's five parts: generation (with the tail),
    scoring (reward, reference, critic, old log-probs), update, weight sync and idle."""
    g = camp["gpu_hours"]
    return {"generation": g["generation"] + g["tail"],
            "scoring": g["scoring"] + g["reference"] + g["critic"] + g["old_logprobs"],
            "update": g["policy_update"], "sync": g["weight_sync"], "idle": g["idle"]}


#: ``_rl_parts``' groups as the RL line's words name them: notebook 05 lists the campaign's
#: finer parts (generation and its tail, scoring, reference, critic, old log-probabilities),
#: and a trial read 05's "generation" beside the bill's larger one.
RL_PART_WORDS = {"generation": "generation (with its tail)",
                 "scoring": "scoring (reward, reference, critic, old log-probs)"}


def _rl_how(p, camp, rate, scaled: str = "") -> str:
    """The RL line's derivation: runs × iterations, the parts' GPU-hours (already × the time
    factor, ``scaled`` its words: ``rl.time_factor_words``) and the price."""
    parts = _rl_parts(camp)
    total = float(camp.loc["total", "gpu_hours"])
    verifier = float(camp.loc["verifier", "usd"])
    shape = shape_words(p)
    split = ", ".join(f"{RL_PART_WORDS.get(k, k)} {_quantity(v)}" for k, v in parts.items())
    decode = decode_factor_words(p["accelerator"], algorithm=p["rl_algorithm"])
    return (f"{p['rl_runs']} run(s) × {p['rl_iterations']:,} iterations of {shape}: {split} "
            f"= {_quantity(total)} GPU-h × ${rate:.2f}"
            + (f" + verifier {fmt_usd(verifier)}" if verifier else "")
            + " (notebook 05's campaign" + (f", its GPU-hours the model's {scaled}" if scaled
                                             else "")
            + "; failures of the RL job not added)"
            + (f"; generation: {decode}" if decode else ""))


@lru_cache(maxsize=1)
def engine_gap() -> tuple:
    """(lowest, highest) measured slowdown of inference engines against the serving roofline,
    over the published figures of ``inference.serving_validation`` (data/serving_benchmarks.csv):
    the factor by which a served token can cost more than the roofline's price."""
    s = serving_validation()["speedup"]
    return float(s.min()), float(s.max())


def served_illustration(bill: Ledger, counts: dict) -> tuple:
    """Notebook 00's illustration of the lines priced as served tokens (synthetic data,
    benchmark runs): ``bill`` with ``counts`` (``ledger_synthetic_tokens``,
    ``ledger_eval_requests``), both lines priced as served tokens (``served_amounts``): the
    scenario's own price or GPU-hours for them (``ledger_synthetic_usd_per_mtok``,
    ``ledger_eval_gpu_hours``) set aside, and its synthetic-data model where the bill's
    hardware can serve it, else the scenario's own model (a trial's page failed on a given
    price, then on a 405B generator that did not fit). Returns ``(bill, note)``: the note says
    what was set aside, "" when nothing was.

    Raises
    ------
    ValueError
        ``bill`` not a Ledger; ``counts`` not a mapping of those keys; the scenario's own
        model cannot be served either."""
    b = _ledger(bill, "bill")
    if not isinstance(counts, dict) or not counts or not set(counts) <= {
            "ledger_synthetic_tokens", "ledger_eval_requests"}:
        raise ValueError(f"counts={counts!r} must map ledger_synthetic_tokens and/or "
                         "ledger_eval_requests to counts")
    p = b.scenario
    changes = {**counts, "ledger_synthetic_usd_per_mtok": None, "ledger_eval_gpu_hours": 0.0}
    aside = [k for k in ("ledger_synthetic_usd_per_mtok", "ledger_eval_gpu_hours")
             if _given(p.get(k) or 0)]
    note = (f"the scenario's {' and '.join(aside)} set aside here: the lines are priced as "
            "served tokens" if aside else "")
    try:
        return with_changes(b, **changes), note
    except ScenarioError as e:
        if p.get("ledger_synthetic_model") is None:
            raise
        why = _first_reason(str(e))
    try:
        served = with_changes(b, **changes, ledger_synthetic_model=None)
    except ScenarioError as e:  # the scenario's own model cannot be served either: both said
        raise ScenarioError(f"served_illustration: neither the synthetic-data model "
                            f"{p['ledger_synthetic_model']} ({why}) nor the scenario's own model "
                            f"{p['model']} ({_first_reason(str(e))}) can be served on this "
                            "hardware") from None
    return served, ((note + "; " if note else "") + f"the synthetic-data model "
                    f"{p['ledger_synthetic_model']} cannot be served here ({why}): the "
                    "scenario's own model instead")


def _first_reason(message: str) -> str:
    """The first clause of a refusal that says what fails, without the labels before it
    ("synthetic data line (...): ", "model='x': "): "model='x' cannot be served on H100-SXM
    ... up to 8" or "202.9 GB of bf16 weights per GPU do not fit ..." (``served_illustration``'s
    note); the whole message's first clause when none does."""
    parts = message.split(": ")
    said = next((x for x in parts if re.search(r"\b(cannot|do not|does not|must|is not|are "
                                               r"not)\b", x)), parts[0])
    return said.split("; ")[0]


def served_amounts(line: Line) -> dict:
    """A served-token line (synthetic data, benchmark runs) on each basis, never mixed:

    * ``expected_usd``: the line's amount, at an engine's expected throughput (the roofline / η
      + a per-step overhead fitted on published engine rows, ``llmcost.serving.engines``), with
      ``band_usd`` (10th-90th percentile of that fit);
    * ``roofline_usd``: the roofline bound (``inference.serving_cost``'s upper bound on
      throughput), a lower bound on cost;
    * ``gap``: the (lowest, highest) measured slowdown of engines against the roofline
      (``engine_gap``, data/serving_benchmarks.csv), and ``slowest_engine_usd`` =
      roofline_usd × highest gap: the cost at the slowest measured engine. The gap multiplies the
      roofline bound, never the expected amount (which already includes an engine's slowdown).

    A line priced otherwise (a given price, not given) has no served amounts: ValueError."""
    if not isinstance(line, Line):
        raise ValueError(f"line={line!r} must be a ledger.Line (ledger.line(key))")
    if not line.served:
        raise ValueError(f"line={line.key!r} must be a line priced as served tokens (its status "
                         f"is {line.status!r}: {line.how})")
    lo, hi = engine_gap()
    roof = line.served["roofline_usd"]
    return {"expected_usd": line.usd, "band_usd": line.served["band_usd"], "roofline_usd": roof,
            "gap": (lo, hi), "slowest_engine_usd": roof * hi}


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
            f"{amount(band_usd[1])} (the engines' spread about their fit, not drawn in the "
            f"bill's P10–P90); the roofline bound (a lower bound on cost) gives "
            f"${c.usd_per_m_input:.4g}/M in, ${c.usd_per_m_output:.4g}/M out, "
            f"{amount(usd)}")


def _synthetic_line(lines, p, spec, gpu, rate, kind) -> float:
    """Synthetic data generation; returns its GPU-hours (for the energy line). Served on the
    bill's accelerator it is of the compute's ``kind`` (``compute_kind``), bought at a given
    price elastic.

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
        raise scenario_error(
            f"synthetic data line (ledger_synthetic_model, serve_ keys): "
            f"{user_words(str(e), SERVE_USER_WORDS)}; or give "
            "ledger_synthetic_usd_per_mtok (USD per million generated tokens, e.g. an API's "
            "price) instead of serving the generator on the scenario's accelerator", e) from None
    ratio = c.prompt_tokens / c.output_tokens
    per_m = c.expected_usd_per_m_output + ratio * c.expected_usd_per_m_input
    bound = (c.usd_per_m_output + ratio * c.usd_per_m_input) * tokens / 1e6
    per_m = per_m if not np.ndim(rate) else per_m * rate
    usd = tokens / 1e6 * per_m
    lo, hi = c.expected_usd_per_m_blended_band
    band = (usd * lo / c.expected_usd_per_m_blended, usd * hi / c.expected_usd_per_m_blended)
    bound = bound * (rate if np.ndim(rate) else 1.0)
    lines.append(Line(key, label, "data", "data", kind, usd,
                      f"{tokens / 1e6:,.4g} M generated tokens × ${per_m:.4g}/M (out + "
                      f"{c.prompt_tokens}/{c.output_tokens} × in): " +
                      _served_how(c, bound, band),
                      "llmcost.inference.serving_cost (expected throughput); "
                      "data/serving_benchmarks.csv, data/engine_efficiency.csv", "modelled",
                      "05_rl_loop", {"band_usd": band, "roofline_usd": bound}))
    return usd / rate


def _eval_line(lines, p, spec, gpu, rate, kind) -> float:
    """Benchmark runs; returns their GPU-hours (for the energy line). On the bill's GPU-hours
    they are of the compute's ``kind`` (``compute_kind``).

    Given ``ledger_eval_gpu_hours``: GPU-hours × price. Otherwise ``ledger_eval_requests``
    requests of P prompt and R output tokens (``inference_`` keys) served by the scenario's
    model: USD = requests × (P × $/M in + R × $/M out) ÷ 10⁶ (``inference.serving_cost``);
    GPU-hours = USD ÷ price.
    """
    key, label = "eval.benchmarks", "benchmark runs (inference)"
    if _given(p["ledger_eval_gpu_hours"]):
        h = p["ledger_eval_gpu_hours"]
        lines.append(Line(key, label, "evaluation", "post-training", kind, h * rate,
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
        raise scenario_error(f"benchmark line (serve_ keys): "
                             f"{user_words(str(e), SERVE_USER_WORDS)}; or give "
                             "ledger_eval_gpu_hours (the benchmark runs' GPU-hours) instead of "
                             "serving them", e) from None
    usd = n * (c.prompt_tokens * c.expected_usd_per_m_input
               + c.output_tokens * c.expected_usd_per_m_output) / 1e6
    bound = n * (c.prompt_tokens * c.usd_per_m_input + c.output_tokens * c.usd_per_m_output) / 1e6
    usd = usd if not np.ndim(rate) else usd * rate
    lo, hi = c.expected_usd_per_m_blended_band
    band = (usd * lo / c.expected_usd_per_m_blended, usd * hi / c.expected_usd_per_m_blended)
    bound = bound * (rate if np.ndim(rate) else 1.0)
    lines.append(Line(key, label, "evaluation", "post-training", kind, usd,
                      (f"published default: one run of a HELM-scale suite, "
                       f"{published_range('eval_suite_tokens')} tokens per model; a lower "
                       "bound: labs evaluate many checkpoints, and HELM itself spent 19,500 "
                       "GPU-h on its open models; " if published else "")
                      + f"{n:,.4g} requests × ({c.prompt_tokens} × in + {c.output_tokens} × out): "
                      + _served_how(c, bound, band),
                      ("data/ledger_defaults.csv eval_suite_tokens: " + default_source(
                          "eval_suite_tokens") + "; " if published else "")
                      + "llmcost.inference.serving_cost (expected throughput); "
                      "data/serving_benchmarks.csv, data/engine_efficiency.csv",
                      "default" if published else "modelled", "05_rl_loop",
                      {"band_usd": band, "roofline_usd": bound}))
    return usd / rate


def _processing_line(lines, p, rate, kind) -> float:
    """Data cleaning and deduplication compute; returns its GPU-hours (for the energy line).

    Given ``ledger_data_processing_usd``: that sum. Otherwise, with
    ``ledger_published_defaults``: GPU-hours = training tokens (main run and phases) × 4.0e-10
    H100-h per token (FineWeb's classifier pass, ``published.processing_gpu_hours``), USD =
    GPU-hours × the bill's GPU-hour price, of the compute's ``kind`` (``compute_kind``). Else 0
    and "not given"."""
    key, label = "data.processing", "cleaning and deduplication compute"
    if _given(p["ledger_data_processing_usd"]) or not p["ledger_published_defaults"]:
        _given_line(lines, key, label, "data", "elastic", p["ledger_data_processing_usd"],
                    "ledger_data_processing_usd (scenario)", p)
        return 0.0
    tokens = p["train_tokens"]  # the corpus processed once; phases reuse its tokens
    h = _num(processing_gpu_hours(tokens))
    lines.append(Line(key, label, "data", "data", kind, _num(h * rate),
                      f"published default: {tokens:.3g} training tokens × "
                      f"{published_range('data_processing_gpu_hours_per_token')} GPU-h/token = "
                      f"{_quantity(h)} GPU-h × ${rate:.2f}/GPU-h; a lower bound (the classifier "
                      "pass "
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
                      "ledger_annotation_samples × usd_per_sample",
                      ("ledger_annotation_samples", "ledger_annotation_usd_per_sample"))
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
                      "ledger_human_eval_hours × usd_per_hour",
                      ("ledger_human_eval_hours", "ledger_human_eval_usd_per_hour"))
        return
    lines.append(Line(
        key, label, "evaluation", "post-training", "elastic", human_eval_usd(),
        f"published default: {published_range('human_eval_ratings')} ratings (Llama 2: 18,579 "
        "generation pairs rated against five comparison models, Table 32, × 3 raters) × "
        f"${published_range('usd_per_preference_comparison')}/rating; a lower bound: safety "
        "ratings and red-teaming hours are not counted",
        "data/ledger_defaults.csv human_eval_ratings: " + default_source("human_eval_ratings"),
        "default"))


def _contributors_line(p, project_months, project_months_source) -> Line:
    """People from a paper's contributor list, Epoch's rule (Cottier et al. 2024 §2.5 and their
    code, training-cost-trends ``development_cost.ipynb`` at 3c6aafa, cell 43): each of the N
    contributors draws an FTE fraction (log-normal, 90% CI 0.05–0.8, ``fte_per_contributor``)
    and a loaded cost per FTE-year (salary × overhead + equity) independently, and the staff
    cost is their sum over the project. A sum over many independent draws is near N × the
    means, so

        USD = N × E[FTE] × project months ÷ 12 × E[loaded cost per FTE-year]

    with E[FTE] = 0.2 · exp(σ²/2) = 0.285 (``ranges.lognormal_mean`` of the row's 90% CI) and
    E[loaded cost] = $444K (``staff_usd_per_fte_year_mean``; the median of one draw, $400K, and
    the median FTE, 0.2, would give 0.63 of it). For OPT-175B's 19 authors over 192 days Epoch's
    notebook prints a median of $1.1M, 90% CI $0.78M–$1.7M (cell 60; its equity is drawn once
    per contributor and held across the draws, so that median rests on one equity draw: over
    other seeds $1.07M–$1.40M); N × the medians gives $0.80M, below that interval's median,
    N × the means $1.27M, the draws' mean whatever the equity seed (equity independent of the
    FTE, E[(s·o + e)·f] = (E[s]·E[o] + E[e])·E[f])."""
    n = p["ledger_contributors"]
    _, lo, hi = default_range("fte_per_contributor")
    fte, rate = lognormal_mean(lo, hi), default("staff_usd_per_fte_year_mean")
    return Line("people.staff", "people (roles × FTE × months × loaded cost)", "people",
                "whole project", "fixed", _num(n * fte * project_months / 12.0 * rate),
                f"published default: {n:,.0f} contributors × {fte:.3f} FTE each (the mean of "
                f"Epoch's per-contributor log-normal, median "
                f"{published_range('fte_per_contributor')}) × "
                f"{project_months:.1f} mo × {fmt_usd(rate)}/FTE-year (the mean loaded cost; each "
                f"contributor drawn independently, so the sum is near N × the means; project "
                f"months: {project_months_source})",
                "ledger_contributors (scenario); data/ledger_defaults.csv fte_per_contributor: "
                + default_source("fte_per_contributor") + "; staff_usd_per_fte_year_mean: "
                + default_source("staff_usd_per_fte_year_mean"), "default")


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


def _given_line(lines, key, label, category, kind, usd, source, p=None):
    """A line the scenario gives in USD (``source`` names its key first): "1,000,000 USD
    given", or, where the key is a range (``_range_source`` of ``p``), the amount as the
    range's point (a finance trial read "USD given" of the mode of a triangular range)."""
    ranged = None if p is None or np.ndim(usd) else _range_source(p, source.split()[0])
    how = (f"{usd:,.0f} USD, the {ranged}" if ranged else f"{usd:,.0f} USD given") \
        if _given(usd) else f"{source.split()[0]} not given"
    lines.append(Line(key, label, category, category if category != "data" else "data", kind,
                      _num(usd), how, source if _given(usd) else "",
                      "modelled" if _given(usd) else "not given"))


def _product_line(lines, key, label, category, kind, qty, rate, qty_unit, rate_unit, source,
                  keys):
    """A quantity × rate line; 0 and "not given" when the scenario gives no quantity or no
    rate: ``keys`` = (the quantity's scenario key, the rate's), and the line names the missing
    one (both, when neither is given)."""
    phase = {"data": "data", "evaluation": "post-training", "storage": "whole project",
             "network": "whole project", "operations": "whole project"}[category]
    if not _given(qty) or not _given(rate):
        missing = [k for k, v in zip(keys, (qty, rate)) if not _given(v)]
        lines.append(Line(key, label, category, phase, kind, 0.0,
                          " and ".join(missing) + " not given", "", "not given"))
        return
    lines.append(Line(key, label, category, phase, kind, _num(qty * rate),
                      f"{_g4(qty)} {qty_unit} × {_g4(rate)} {rate_unit}", source, "modelled"))


def _g4(x) -> str:
    """A product line's factor to four significant figures; draws by ``_quantity`` (a project
    length drawn with an RL campaign's time made an array of the operations line's months)."""
    return f"{x:,.4g}" if np.ndim(x) == 0 else _quantity(x)


# ------------------------------------------------------------------------------ comparisons
#: Relative size under which a difference of two bills' figures is floating-point noise
#: (``difference``): float64 keeps 15-16 significant digits (IEEE 754, ε = 2.2e-16), so two
#: sums of the same dollars in another order differ by a few ε of the total (a trial: two RL
#: scenarios whose totals agree printed "total −$0.000000000058" on $274k, 2e-16 of it); a
#: billionth of a line is far above that rounding and far below any difference a bill means.
DIFFERENCE_NOISE = 1e-9


def difference(a, b):
    """B − A with floating-point noise removed: ``d = b − a``, set to 0 where
    ``|d| <= DIFFERENCE_NOISE × max(|a|, |b|)`` (a number or NumPy arrays, elementwise).
    ValueError naming ``a`` or ``b`` when it is neither a real number nor a numeric array."""
    for name, v in (("a", a), ("b", b)):
        if isinstance(v, bool) or not (isinstance(v, numbers.Real) or (
                isinstance(v, np.ndarray) and v.dtype.kind in "fiu")):
            raise ValueError(f"{name}={v!r} must be a real number or a NumPy array of numbers")
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    d = b - a
    d = np.where(np.abs(d) <= DIFFERENCE_NOISE * np.maximum(np.abs(a), np.abs(b)), 0.0, d)
    return float(d) if d.ndim == 0 else d


def _shared_label(la, lb) -> str:
    """A compared line's label, true of both bills: the one label where they agree (or only one
    bill has the line), else the words they share up to the first difference, without its
    trailing punctuation and the clause the two complete differently ("exploratory and failed
    runs" of "..., net of RL post-training" and "... (none left: ...)": a trial read A's "none
    left" beside B's $3.06M; of "..., net of SFT" and "..., net of RL", not "..., net of"),
    else both."""
    if la is None or lb is None or la.line == lb.line:
        return (la or lb).line
    shared = os.path.commonprefix([la.line, lb.line])
    n = len(shared)
    if any(n < len(x) and x[n].isalnum() for x in (la.line, lb.line)):  # ends inside a word
        shared = shared[:shared.rfind(" ")] if " " in shared else ""
    cut = max(shared.rfind(c) for c in ",(:;")  # a clause the two complete differently
    shared = (shared[:cut] if cut > 0 else shared).rstrip(" ,(:;")
    while shared.count("(") > shared.count(")"):  # never a parenthesis left open
        shared = shared[:shared.rfind("(")].rstrip(" ,(:;")
    return shared if len(shared.split()) >= 2 else f"{la.line} | {lb.line}"


def compare(a: Ledger, b: Ledger, names=("A", "B")):
    """Two bills side by side, line by line, with the difference (B − A) per line.

    Returns
    -------
    DataFrame with columns ``line``, ``<A> usd``, ``<B> usd``, ``difference usd``; a line only
    one bill has shows 0 in the other; a not-modelled line shows None. A difference within
    floating-point noise of the two figures is 0 (``difference``). ``.attrs['keys']``: each
    row's line key (``Line.key``; "total" last), the key a single bill's table has.
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
            label = _shared_label(la, lb)
        diff = None if ua is None or ub is None else difference(ua, ub)  # noise: 0
        rows.append({"line": label, f"{names[0]} usd": ua, f"{names[1]} usd": ub,
                     "difference usd": diff})
    out = pd.DataFrame(rows)
    out.attrs["keys"] = keys + ["total"]   # each row's line key, for a script to join on
    return out


def changed_lines(side: pd.DataFrame) -> pd.DataFrame:
    """``compare``'s table with only the lines that differ, the others summed in one row ("the
    other N lines, unchanged"), then the total: the rows still add up to each bill's total (a
    trial read a fine-tune table whose rows summed to $4.61M under a $4.88M total, its RL line,
    the same on both sides, left out). A not-modelled line (None) in the unchanged rows adds
    nothing to the sum."""
    if not isinstance(side, pd.DataFrame) or "difference usd" not in side.columns \
            or side.empty or side["line"].iloc[-1] != "total":
        raise ValueError("side must be ledger.compare's table (a 'difference usd' column, the "
                         "'total' row last)")
    body, total = side.iloc[:-1], side.iloc[[-1]]
    moved = body["difference usd"].fillna(0) != 0
    rest = body[~moved]
    if rest.empty:
        return pd.concat([body[moved], total], ignore_index=True)
    sums = {c: rest[c].sum(min_count=1) for c in side.columns if c.endswith(" usd")}
    row = pd.DataFrame([{"line": f"the other {len(rest)} line{'s' if len(rest) != 1 else ''}, "
                                 "unchanged", **sums, "difference usd": 0.0}])
    return pd.concat([body[moved], row, total], ignore_index=True)


def _longest_role_months(ledger: Ledger) -> float:
    """The longest ``months`` a ``ledger_people`` role of the bill's scenario gives (0 when
    none does): the people line pays each such role for its own months."""
    return _role_months((ledger.scenario or {}).get("ledger_people"))


def _role_months(people) -> float:
    """The longest ``months`` a role of ``ledger_people`` records gives, 0 when none does."""
    return max([float(r["months"]) for r in people or []
                if isinstance(r, dict) and isinstance(r.get("months"), (int, float))] or [0.0])


def spend_timeline(ledger: Ledger, budget_usd=None, thresholds=(0.5, 0.8, 1.0), n_points=200):
    """Expected cumulative spend over the project against budget alert thresholds.

    Fixed lines (storage, people, operations, reserves, reserved or owned compute) accrue evenly
    over the project; elastic compute accrues as it runs on the scenario's cluster: exploratory
    runs first, then the final run over its wall-clock days, then post-training (an RL campaign
    over its own wall clock on its ``rl_gpus``, ``rl_wall_clock_days_per_run`` × ``rl_runs``;
    the rest at the final run's dollars per day). The project
    lasts ``ledger_project_months`` (else the bill's convention, this compute schedule, or
    with ``ledger_published_defaults`` Epoch's median project, at least this schedule:
    ``_project_months``) or
    the longest ``months`` of a ``ledger_people`` role (whose pay the people line counts for
    those months: a trial's 1.5-month team was spent in 0.4 days), or as long as that schedule,
    whichever is longest. This is the
    spend a budget alert (e.g. a cloud budget with 50/80/100% thresholds) watches.

    Returns
    -------
    DataFrame with ``day`` and ``cumulative_usd``; ``.attrs['alerts']`` maps each threshold to
    the first day the expected spend crosses ``threshold × budget`` (None if never),
    ``.attrs['budget_usd']`` holds the budget (default: the bill's total) and
    ``.attrs['schedule_days']`` the compute schedule alone, exploration + final run +
    post-training days (``figures['schedule_days']``, ``_schedule_days``: the floor of a
    published project).
    """
    _ledger(ledger)
    n_points = int(as_scalar(n_points, "n_points", positive=True, integer=True))
    budget = ledger.total_usd if budget_usd is None else \
        as_scalar(budget_usd, "budget_usd", positive=True)
    # no thresholds: no alerts (an empty list is the caller's choice here, not a missing input)
    th = as_array(thresholds, "thresholds", positive=True) if np.size(thresholds) else \
        np.zeros(0)
    # the final run's days: the main run and its phases one after the other (a trial: the
    # phases' dollars over the main run's days alone shortened every other part)
    run_days = ledger.figures.get("run_wall_clock_days") or ledger.figures["wall_clock_days"]
    explore = ledger.usd("compute.exploratory")
    final = ledger.usd("compute.pretraining") + ledger.usd("compute.failures")
    post = ledger.usd("post.")
    # schedule on the same cluster: exploration first (with the rerun and benchmark compute
    # netted out of its line), then the final run, then post-training (an RL campaign on its own
    # rl_gpus for its wall clock, run after run: a source check found it spread over the whole
    # cluster, 0.26 days where its 64 GPUs take 8.3): the bill's own (_schedule_days)
    parts = ledger.figures["schedule_days"]
    explore_days, post_days = (float(parts[k]) for k in ("exploration", "post_training"))
    project_days = max(ledger.figures["project_months"], _longest_role_months(ledger)) \
        * SECONDS_PER_MONTH / SECONDS_PER_DAY
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
    df.attrs.update(alerts=alerts, budget_usd=budget,
                    schedule_days=explore_days + run_days + post_days)
    return df


def claim_questions(ledger: Ledger, scenario: dict | None = None):
    """The questions to ask of any "trained on N GPUs for D days" claim, answered for this
    scenario's bill; ``scenario``: the values the bill's scenario lacks for the batch and plan
    questions (a page's, whose bill keeps the ledger's keys only: ``plan_questions``).

    Returns
    -------
    DataFrame with ``question``, ``answer`` and ``why it matters``.
    """
    f = _ledger(ledger).figures
    refuse_post_training_only(ledger.scenario, "its questions are of the pre-training run")
    mfu = f["mfu"]
    explore = ledger.line("compute.exploratory")
    post = [ln for ln in ledger.lines if ln.key.startswith("post.")]
    post_txt = ", ".join(f"{ln.line}: {ln.status}" for ln in post)
    rows = [
        ("Which accelerator, how many, at what precision?",
         f"{f['n_gpus']:,} × {f['accelerator']} in {ledger.scenario['dtype'].upper()}",
         "peak FLOP/s differ several-fold"),
        ("How many days: of steady training, or of wall clock with failures?",
         f"{_period(f['main_ideal_gpu_hours'] / f['n_gpus'] / 24, 'days')} ideal, "
         f"{_period(f['wall_clock_days'], 'days')} with failures (goodput {f['goodput']:.1%})",
         "restarts and checkpoint stalls are paid for"),
        ("At what MFU, and on which FLOP count?", f"{mfu:.1%}, {f['mfu_source']}; "
         "model FLOPs with the full attention matrix (compute.MFU_METHOD)",
         count_gap_words(ledger)),
        ("How many tokens, so how many FLOPs?", f"{f['training_flops_mfu_basis']:.3g} FLOP (MFU "
         f"basis; 6ND {f['training_flops_6nd']:.3g}) over all pre-training phases",
         "N × D × 6 is the floor; long context adds attention"
         if f["training_flops_mfu_basis"] >= f["training_flops_6nd"] else
         "6ND's N counts the embedding table, which does no matmul; long context adds "
         "attention"),
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
    ] + plan_questions(ledger, scenario)
    return pd.DataFrame(rows, columns=["question", "answer", "why it matters"])


def count_gap_words(ledger: Ledger) -> str:
    """How the FLOP count of the bill ``ledger`` on the MFU basis (the matmuls a token passes
    through + the attention core, ``compute.MFU_METHOD``) sits against 6·N·D, in per cent of
    6ND, gap = F_MFU-basis ÷ 6·N_active·D − 1: above it
    by the attention core (it grows with the sequence; 6ND has none), or below it where 6ND's N
    (the active parameters, the input embedding table included) counts more weights than a
    token multiplies (short sequences, large vocabularies: llama-3.1-8b at 512 tokens)."""
    f = _ledger(ledger).figures
    refuse_post_training_only(ledger.scenario, "the two FLOP counts are of the pre-training run")
    gap = f["training_flops_mfu_basis"] / f["training_flops_6nd"] - 1
    if gap >= 0:
        return (f"the attention-inclusive count is {gap:.1%} above 6ND here (the attention "
                "core grows with the sequence; 6ND has none)")
    return (f"the attention-inclusive count is {-gap:.1%} below 6ND here (6ND's N counts the "
            "input embedding table, which does no matmul, more than the attention core adds)")


def plan_questions(ledger: Ledger, scenario: dict | None = None) -> list:
    """The claim questions about how the GPUs were used and who pays when it fails: batch size,
    the parallel plan, communication, and the rerun. Each answered from the bill's scenario,
    completed by ``scenario`` where given (``global_batch_tokens``, ``tp``/``pp``/``dp``/
    ``cp``/``ep``, ``zero_stage``, the MFU's source, ``ledger_rerun_probability``); a value
    neither gives says so.

    Returns
    -------
    list of (question, answer, why it matters).
    """
    if scenario is not None and not isinstance(scenario, dict):
        raise ValueError(f"scenario={scenario!r:.60} must be a dict of scenario values or None")
    sc = {**(scenario or {}), **_ledger(ledger).scenario}
    refuse_post_training_only(sc, "its questions are of the pre-training run's plan")
    f = ledger.figures
    batch = sc.get("global_batch_tokens")
    plan = {k: sc.get(k) for k in ("tp", "pp", "dp", "cp", "ep")}
    given = {k: v for k, v in plan.items() if v}
    zero = sc.get("zero_stage", -1)
    plan_txt = (" × ".join(f"{k.upper()} {v}" for k, v in given.items()) + " fixed by the "
                "scenario" + (f", ZeRO stage {zero}" if zero is not None and zero >= 0 else "")
                + "; the rest chosen by predicted step time (notebook 03)") if given else \
        ("not fixed by the scenario: notebook 03 shows the plan chosen for it by predicted step "
         "time; the bill's MFU is " + ("the one predicted for that plan (notebook 04b)"
                                      if _predicted(f) else "given, so no plan enters it")
         # a predicted MFU is the plan's whether or not the values carry plan keys (a trial's
         # mfu: predict bill said "not read by this bill")
         if "tp" in sc or _predicted(f) else
         # a page whose parameters name no plan (notebook 00): a consistency audit read "not
         # read by this bill" beside the report's pipeline-bubble warning of the fixed plan
         "not among this page's values: the bill's MFU is given, so no plan enters its "
         "numbers; notebook 03 shows the scenario's plan, its memory and its pipeline bubble")
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
         f"inside the MFU ({f['mfu_source']}); notebook 04 prices the exposed collectives of "
         "the scenario's plan",
         "all-reduce, all-gather and pipeline sends that do not overlap compute lower the MFU "
         "at scale (notebook 04)"),
        ("Who pays for a rerun after a divergence or a bad data mix?",
         f"{rerun.status}: {format_usd(rerun.usd)} reserved ({rerun.how})",
         "a relaunched final run is paid again in full; a claim of one run hides it"),
    ]


def _predicted(figures: dict) -> bool:
    """Whether the bill's MFU is the step-time model's prediction: its source begins
    "predicted (mfu: predict)" (``_bill_mfu``), where a default's source may only mention
    `mfu: predict` as a hint."""
    return str(figures.get("mfu_source", "")).startswith("predicted (mfu: predict)")


def format_usd(usd) -> str:
    """$2.49M; 'not modelled' for None."""
    return "not modelled" if usd is None else fmt_usd(usd)


@disk_cached  # the same for every call with these arguments: core.diskcache
def with_changes(ledger_or_scenario, **changes) -> Ledger:
    """The bill of the same scenario with some parameters changed (validated like any scenario),
    e.g. ``with_changes(bill, mfu=0.5)``.

    A pilot's throughput (``ledger_pilot_tokens_per_s_per_gpu``) given as a change to a bill
    whose ``mfu`` is a range replaces that range: the pilot measures the MFU, so the calibrated
    bill has no MFU range (a scenario that gives both at once is still refused). A change of
    ``accelerator`` drops the scenario's ``ledger_owned_usd_per_gpu`` unless the changes give
    one (``pricing.purchase_price_on``: a purchase price is its own accelerator's). A change of
    ``ledger_exploratory_fraction`` replaces the scenario's ``ledger_exploratory_runs`` and the
    other way round (a scenario gives the exploratory compute one way:
    ``scenario.exploratory_given_once``), unless the changes give both."""
    base = ledger_or_scenario.scenario if isinstance(ledger_or_scenario, Ledger) \
        else ledger_or_scenario
    if not isinstance(base, dict):
        raise ValueError(f"ledger_or_scenario={ledger_or_scenario!r} must be a Ledger or a "
                         "scenario dict")
    moved = purchase_price_on(base, changes["accelerator"]) \
        if changes.get("accelerator") is not None else {}
    new = {**base, **moved, **changes}  # an owned purchase price is its own hardware's
    if "rl_time_factor" in changes:  # a factor given now is the caller's, not the RL model's
        new.pop("_rl_time_factor_drawn", None)  # drawn spread (headline_draws; a review)
    if "ledger_project_months" in changes:  # a length given now is the caller's own
        new.pop("_project_months_drawn", None)
    elif new.get("_project_months_drawn") and "ledger_published_defaults" in changes:
        new.pop("_project_months_drawn")      # the drawn published length goes with its rule
        new["ledger_project_months"] = None
    for given, other, unset in (("ledger_exploratory_fraction", "ledger_exploratory_runs", []),
                                ("ledger_exploratory_runs", "ledger_exploratory_fraction", None)):
        if changes.get(given) not in (None, []) and other not in changes:
            new[other] = unset  # the change replaces the scenario's other way of giving it
    if changes.get("ledger_pilot_tokens_per_s_per_gpu") is not None and "mfu" not in changes \
            and isinstance(base.get("mfu"), Range):
        # a pilot measures the MFU: its calibration replaces the scenario's ranged guess (the
        # range's point stays as the nominal mfu; the bill's MFU is the pilot's)
        new["mfu"] = base["mfu"].point
    return build_ledger(new)


def at_mfu(bill: Ledger, mfu: float) -> Ledger:
    """The bill at main-run MFU ``mfu`` = m, every pre-training phase that gives its own MFU
    m_ph moved in proportion, min(1, m_ph × m / m₀) (m₀ the bill's MFU; ``_phase_mfu_moved``),
    as the Monte Carlo draws move them (``_mfu_point``) and so as the tornado prices an MFU at
    its P10 and P90: what notebook 00 prints at the ends of the range it draws. A finance trial
    read "at MFU 54.9% ... bill $222M" (the main run's MFU alone changed) beside the tornado's
    "$217M at its P90 (0.5495)". The checkpoint storage stays the bill's, sized once
    (``provisioned_storage``). ValueError naming ``mfu`` for an MFU outside (0, 1]."""
    b = _ledger(bill, "bill")
    m0 = float(b.figures["mfu"])
    m = as_scalar(mfu, "mfu", positive=True)
    if m > 1:
        raise ValueError(f"mfu={mfu!r} must be in (0, 1]: a fraction of the dense peak")
    phases = b.scenario.get("phases") or []
    moved = [{**ph, "mfu": float(_phase_mfu_moved(float(point(ph["mfu"])), m / m0))}
             if isinstance(ph, dict) and ph.get("mfu") is not None else ph for ph in phases]
    kept = provisioned_storage(b.scenario, b)   # storage provisioned once, as in the draws
    return with_changes(kept, mfu=m, **({"phases": moved} if phases else {}))


#: Post-training quantities notebook 00 illustrates the two cost structures with where a
#: scenario gives none (illustrations, not a published run's), by the line each sets: SFT and
#: LoRA tokens, annotation samples and their price, human-evaluation hours and their rate.
POST_TRAINING_ILLUSTRATION = {
    "post.sft": {"ledger_sft_tokens": 1e10},
    "post.lora": {"ledger_lora_tokens": 1e10},
    "data.annotation": {"ledger_annotation_samples": 1e5, "ledger_annotation_usd_per_sample": 5.0},
    "eval.human": {"ledger_human_eval_hours": 2000.0, "ledger_human_eval_usd_per_hour": 60.0}}


def post_training_illustration(bill: Ledger) -> tuple:
    """The bill with ``POST_TRAINING_ILLUSTRATION``'s values on each post-training key the
    scenario leaves at zero, the scenario's own kept on every key it gives (a quantity, a price
    or a rate): ``(bill, illustrative, words)``, ``illustrative`` the line keys where some value
    is set here and ``words`` what each line holds ("SFT 10B tokens $12.8k (illustrative)", "SFT
    2B tokens $2.54k (the scenario's)", "(illustrative rate)" where only the rate is; a ranged
    quantity said at its point). LoRA is left at the scenario's where the model's attention is
    not GQA (``lora_adapter_params`` counts adapters on GQA/MHA projections only), said so. A
    trial read notebook 00's "post-training compute" beside the bill's: the page had replaced
    the scenario's 2B SFT tokens by 10B and added LoRA the scenario did not bill."""
    b = _ledger(bill, "bill")
    p = b.scenario
    attention = load_model(p["model"]).attention
    given = {x for ch in POST_TRAINING_ILLUSTRATION.values() for x in ch if point(p.get(x) or 0)}
    changes = {x: v for k, ch in POST_TRAINING_ILLUSTRATION.items() for x, v in ch.items()
               if x not in given and (k != "post.lora" or attention == "gqa")}
    post = with_changes(b, **changes)
    q = {k: point(v) for k, v in post.scenario.items() if k in LEDGER_DEFAULTS}
    what = {"post.sft": f"SFT {fmt_count(q['ledger_sft_tokens'], 3)} tokens",
            "post.lora": f"LoRA {fmt_count(q['ledger_lora_tokens'], 3)} tokens",
            "data.annotation": f"annotation of {fmt_count(q['ledger_annotation_samples'], 3)} "
                               "samples",
            "eval.human": f"human evaluation, {fmt_quantity(q['ledger_human_eval_hours'])} hours"}
    set_here, words = [], []
    for k, w in what.items():
        keys = list(POST_TRAINING_ILLUSTRATION[k])
        here = [x for x in keys if x in changes]
        if here:
            set_here.append(k)
        whose = ("illustrative" if len(here) == len(keys) else
                 "the scenario's" if not here else
                 "illustrative " + {"ledger_annotation_samples": "sample count",
                                    "ledger_annotation_usd_per_sample": "price",
                                    "ledger_human_eval_hours": "hours",
                                    "ledger_human_eval_usd_per_hour": "rate"}[here[0]])
        if k == "post.lora" and attention != "gqa" and "ledger_lora_tokens" not in given:
            whose = f"not billed: LoRA is not modelled for {attention} attention"
        ranged = any(isinstance(p.get(x), Range) for x in keys if x in given)
        words.append(f"{w}{' (its point)' if ranged else ''} {fmt_usd(post.usd(k))} ({whose})")
    return post, tuple(set_here), "; ".join(words)


def spot_verdict(bill: Ledger) -> list:
    """Does spot capacity pay for this bill's final run? Lines of text for notebook 07.

    Off spot: rebuilds the bill with ``pricing="spot"`` at the catalogue spot median (the bill's
    spot model, ``failure_model``: pre-emptions added to the failure rate, ``ledger_spot_*``),
    once without resumable training (refused when the job would never finish) and once with
    checkpoints. A bill already on spot is itself the spot case (its own price and
    pre-emptions): the first line is the bill without resumable training, and the comparison is
    with the bill on demand instead, at the catalogue on-demand median without pre-emptions.
    Spot pays iff p_spot / g_spot < p / g (``reliability.spot_pays``), i.e. iff its final run
    costs less. Off spot without ``ledger_spot_preemptions_per_node_day`` (no published rate,
    no default) nothing is priced: one line says what to give.
    """
    _ledger(bill, "bill")
    refuse_post_training_only(bill.scenario, "the verdict weighs the pre-training run on spot")
    on_spot = bill.scenario["pricing"] == "spot"
    if not on_spot and bill.scenario.get("ledger_spot_preemptions_per_node_day") is None:
        return ["spot is not priced: give ledger_spot_preemptions_per_node_day (your provider's "
                "pre-emptions per node per day; no provider publishes one, so there is no "
                "default) to see whether spot capacity pays for this run"]
    spot = {} if on_spot else dict(pricing="spot", price_usd_per_gpu_hour=None)
    lines = []
    try:
        with_changes(bill, **spot, ledger_resumable=False)
        lines.append("without resumable training: the bill accepts it")
    except ScenarioError as e:
        lines.append(f"without resumable training: {str(e).split(': ', 1)[-1]}")
    try:
        other = with_changes(bill, **(dict(pricing="on_demand", price_usd_per_gpu_hour=None)
                                      if on_spot else spot)).figures
    except ScenarioError as e:
        return lines + [f"{'on demand' if on_spot else 'spot'}: {e}"]
    f, b = (bill.figures, other) if on_spot else (other, bill.figures)
    pays = bool(rel.spot_pays(b["price_usd_per_gpu_hour"], b["goodput"],
                              f["price_usd_per_gpu_hour"], f["goodput"]))
    verdict = f"spot {'pays' if pays else 'does not pay'} here"
    if on_spot:
        return lines + [
            f"the scenario is already on spot: job MTBF {fmt_duration(f['job_mtbf_s'])} with "
            f"its pre-emptions, goodput {f['goodput']:.1%}, {format_usd(f['final_run_usd'])} "
            f"at ${f['price_usd_per_gpu_hour']:.2f}/GPU-h; on demand instead (the catalogue "
            f"median ${b['price_usd_per_gpu_hour']:.2f}/GPU-h, no pre-emptions): job MTBF "
            f"{fmt_duration(b['job_mtbf_s'])}, goodput {b['goodput']:.1%}, "
            f"{format_usd(b['final_run_usd'])}: {verdict}"]
    return lines + [
        f"with checkpoints: job MTBF {f['job_mtbf_s'] / 60:,.0f} min, goodput "
        f"{f['goodput']:.1%}, {format_usd(f['final_run_usd'])} at the catalogue spot median "
        f"${f['price_usd_per_gpu_hour']:.2f}/GPU-h vs {format_usd(b['final_run_usd'])} at "
        f"${b['price_usd_per_gpu_hour']:.2f}: {verdict}"]


def mfu_draw_keys(a: Ledger, b: Ledger) -> tuple:
    """The random-number keys two compared bills draw their MFU with (``simulate_ledger``'s
    ``keys``), ``(keys_a, keys_b, words)``: common (both None; a draw is the same quantile of
    both MFU ranges, one model error: a BF16 → FP8 compare on one GPU pairs the errors the two
    share) unless both MFUs are the step-time model's predictions (``mfu: predict``) whose bands
    come from different GPU generations, where B's is drawn apart ({"mfu": "mfu, <B's
    regime>"}) and ``words`` say so: the model's error on one generation is not its error on
    another (a procurement trial's H100 against B200 compare drew both at one quantile and
    printed a saving of $23M-$29M, P10-P90, beside bills of $52M-$67M and $27M-$38M, its B200
    regime unverified), so drawn as one error the difference's range was as tight as if the
    generation's effect were known. Independent draws are the other extreme; the truth lies
    between, and a wider range is the one not to mislead with."""
    regimes = []
    for x, name in ((a, "a"), (b, "b")):
        p = _ledger(x, name).scenario
        own = predicted_band_of(p) is not None
        regimes.append(p["_mfu_prediction"]["band"].get("regime") if own else None)
    gens = [r.split(" · ")[0] if isinstance(r, str) else None for r in regimes]
    if None in gens or gens[0] == gens[1]:
        return None, None, None
    return None, {"mfu": f"mfu, {regimes[1]}"}, (
        f"the two MFUs are the step-time model's predictions on different GPU generations "
        f"({gens[0]} in A, {gens[1]} in B), whose errors are not one error: each bill's MFU "
        "is drawn on its own random numbers, so B − A's range holds both bands' spread")


def simulate_ledger(scenario: dict, samples: int = 100_000, seed: int = 0,
                    keys: Mapping | None = None) -> LedgerDraws:
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
    keys : mapping, optional
        The random-number key of a ranged input in place of its name (``mfu_draw_keys``: a
        compared bill whose MFU is drawn apart from the other's).

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
    if "mfu" in ranges and any("mfu" in ph for ph in pts.get("phases") or ()):
        pts = {**pts, "_mfu_point": float(pts["mfu"])}   # a phase's own MFU moves with it
    if keys is not None and not (isinstance(keys, Mapping) and all(
            isinstance(k, str) and isinstance(v, str) and v for k, v in keys.items())):
        raise ScenarioError(f"keys={keys!r} must map input names to non-empty random-number "
                            "keys")
    inputs = {k: r.draws(int(samples), int(seed), (keys or {}).get(k, k))
              for k, r in ranges.items()}
    if inputs:
        line_usd, total = price_draws(_safe_build, pts, inputs, int(samples), ranges)
    else:  # nothing to draw: every draw is the point bill
        line_usd = {ln.key: np.broadcast_to(float(ln.usd), (int(samples),))
                    for ln in point.lines if ln.usd is not None}
        total = np.full(int(samples), point.total_usd)
    return LedgerDraws(line_usd, total, inputs, point, ranges, int(samples), int(seed), pts,
                       _safe_build)


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
        f"sized from the checkpoint plan, {rel.gb_per_s_text(bw)}: the bandwidth minimising "
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


def given_mfu_range(bill: Ledger) -> tuple:
    """``illustrative_ranges``' MFU range and its sentence, ``(Range, words)``: the step-time
    model's error band for runs like this one (``accuracy.mfu_band`` with the bill's own MFU m
    as its centre: [m / (1 + c + w), m / (1 + c − w)], its top capped by ``band_cap`` at the
    best comparable published run or the matmul ceiling), drawn by ``montecarlo.band_drawn`` as

        two_piece(low = m − (m − band low) / (1 − √0.1), mode = m,
                  high = m + (band high − m) / (1 − √0.1)),

    peaked at m, half the draws on each side, so that the point stays the bill's and is the
    draws' median, and the band's ends are the draws' P5 and P95 (the band is a 90% interval:
    5% of runs lie beyond each end); a capped band is widened from its uncapped top, every draw
    above the cap taken at the cap. A cap below m (m above every comparable published run)
    leaves m as the range's top, above the capped band: a triangle peaked at m whose P5 is the
    band's low end (low = m − (m − band low) / (1 − √0.05)), every draw's MFU at most m, and on
    the MFU alone the point is
    the range's cheapest end, said so (a line's point can still lie inside its P10-P90 when
    other ranged inputs, such as the price, move it). The sentence states m, the band before and
    after any cap (and what capped it), and the numbers drawn. The model's own prediction for
    the plan is not computed here: the bill's keys (``LEDGER_DEFAULTS``) do not hold the plan's
    (batch, stack); the report's checks compare it with m (``checks.given_vs_predicted_mfu``)."""
    f, p = _ledger(bill, "bill").figures, bill.scenario
    m = float(f["mfu"])
    spec = load_model(p["model"])
    band = mfu_band(m, f["accelerator"], int(f["n_gpus"]), is_moe=spec.is_moe,
                    n_params=spec.n_params, dtype=p.get("dtype") or "bf16",
                    seq_len=int(p["seq_len"]), zero_stage=plan_zero_stage(p),
                    stack=p.get("stack"))
    low, high = min(float(band.low), m), max(min(float(band.high), 1.0), m)
    c, w = band.center, band.half_width
    words = (f"the step-time model's error for runs like this one ({band.regime}; "
             f"{step_error_words(c, w, n_runs=band.n)}) applied to the bill's own MFU, {m:.1%} "
             f"({f.get('mfu_source') or 'the bill'}): {m / (1 + c + w):.1%}-"
             f"{uncapped_high(m, c, w):.1%}")
    if band.capped_above() is not None:
        lowered = band.floored_below() is not None  # the cap moved the low end down with it
        words += (f", its top capped at {band.high:.1%} where no measurement goes "
                  f"({band.cap_reason()})" + (" and its low end lowered with it to {} (from "
                                               "{})".format(*distinct_percents(
                                                   band.low, m / (1 + c + w)))
                                               if lowered else ""))
    capped = band.capped_above() is not None and band.high > m
    r = _band_drawn(low, m, min(float(uncapped_high(m, c, w)), 1.0) if capped else high,
                    cut=band.high if capped else None)
    p5 = float(r.quantile(0.05))
    floored = abs(p5 - low) > 1e-9   # the bottom kept at half the band's low end
    words += (f"; drawn as a triangle peaked at the bill's {m:.1%}" if r.kind == "triangular"
              else f"; drawn as two half-triangles peaked at the bill's {m:.1%}, half the draws "
              "on each side") + (
        f", shaped from {r.low:.1%} to {r.high:.1%} and every draw above the cap taken at "
        f"{band.high:.1%}," if capped else f", from {r.low:.1%} to {r.high:.1%}") + (
        f" so that {low:.1%} is the draws' P5" + (f" and {high:.1%} their P95" if m < high
                                                   else "")
        + " (the band read as a 90% interval of the model's errors: 5% of runs like this one "
          "below it, 5% above)" if not floored else
        f" (its bottom kept at half the band's low end, {low:.1%}: widened so that the band's "
        f"low end were the draws' P5 it would reach MFUs near 0; the draws' P5 is {p5:.1%})")
    if band.high < m:
        words += (f": the bill's MFU lies above the capped band ({band.low:.1%}-{band.high:.1%}), "
                  "so the triangle runs from "
                  + ("below the band's low end (its P5)" if not floored else
                     "half the band's low end")
                  + " up to the bill's MFU, its top; every draw's MFU is at most the bill's, so "
                  "on the MFU alone the bill's point is the cheapest end of its range (with other "
                  "ranged inputs, such as the price, a line's point can still lie inside its "
                  "P10-P90)")
    words += ("; a band around the bill's figure, not around the model's prediction for the plan "
              "(notebook 04b; a warning when the bill's figure lies outside that prediction's "
              "band)")
    return r, words


def illustrative_ranges(bill: Ledger) -> dict:
    """Sourced spreads for the inputs of a bill below, as ranges around its own points: what
    notebook 00 shows when a scenario gives every input as a number (an illustration; a
    scenario's own ranges replace it).

    * ``mfu``: two-piece triangular (``montecarlo.peaked_at``) over the step-time model's
      held-out error band around the bill's MFU
      (``accuracy.mfu_band``: published runs of the scenario's regime, i.e. accelerator
      generation, sharding, dense or MoE, precision, context and model size, against the model),
      cut at 1, peaked at the bill's MFU so that the point stays the bill's
      (``given_mfu_range``, which says how the range follows from the bill's MFU, the band and
      its cap, and that it is not centred on the model's own prediction for the plan);
    * ``price_usd_per_gpu_hour``: triangular, peaked at the bill's price P, over
      P × (1 ± r), r = (P75 − P25) ÷ (2 × median) of the current catalogue prices for the
      accelerator and pricing mode (``data/prices.csv``, numpy's linear quantiles; rented
      pricing with at least two catalogue rows only): the market's relative spread around the
      scenario's own price, symmetric so that a price the scenario gives stays in the middle of
      its range (the market's P25-P75 itself would put a cheap provider's price at the range's
      floor). Not cheapest to dearest: one outlying provider would then set the page's
      conclusion. A triangle with those ends has its own P10-P90 at P × (1 ± r·(1 − √0.2)),
      ±0.55 r, which its sentence says (a finance trial read ±23% and drew ±13%);
    * ``ledger_exploratory_fraction``: Cottier et al. 2024's own log-normal of the multiplier
      1 + x, 90% interval 1.2-4.0 (``data/ledger_defaults.csv`` low/high 0.2-3.0), cut to the
      input's [0, 10] (``_exploratory_fraction_range``; its point the median 1.19, the
      default's value); a fraction f the scenario gives keeps the interval's spread relative to
      the median, triangular(f × 0.2 / 1.19, f, f × 3.0 / 1.19) (``exploratory_fraction_bounds``),
      so that the range stays the scenario's and never puts most of its mass above a small
      given fraction (a given 0: no range, one number). Only when the bill prices exploration as a fraction, and not when
      the lines it nets out (post-training, benchmarks, the rerun reserve) exceed even its top:
      ``exploratory_all_clamped``, the line $0 in every draw, a spread that moves nothing.
      That triangle takes the interval's ends as its own, so it is narrower than the source's
      spread (their 5th-95th percentiles become its 0th and 100th; its sentence says so).

    * ``ledger_project_months``, when the bill takes Epoch's median project (10.15 months):
      two-piece triangular over its published 4-20 months, peaked there, each draw at least the
      compute schedule (``_project_months_range``); people, operations and storage follow it.
    * ``rl_time_factor``, when the bill prices an RL campaign at the published runs' factor
      (the scenario gives none: ``rl.scenario_time_factor``) and not DPO (no rollout: the runs
      behind it are GRPO's): two-piece triangular over the RL validation's held-out measured ÷
      predicted
      iteration times on the bill's own path (``rl.time_factor_triangle``:
      ``rl.RL_TIME_FACTOR_RANGE``, the "scenario" mode, or with an ``rl_framework`` naming a
      release ``rl.RL_FRAMEWORK_TIME_FACTOR_RANGE``, ``rl.FRAMEWORK_MODE``), peaked at their
      median (``rl.RL_TIME_FACTOR_MEDIAN`` or its framework's, the bill's point): the RL
      model's error on the campaign's GPU-hours, which the price alone left out. A factor the
      scenario gives is its own measurement and is not redrawn.

    Returns
    -------
    dict key -> (Range, source sentence).
    """
    f, p = _ledger(bill, "bill").figures, _zero_width_as_numbers(bill.scenario)
    out = {"mfu": given_mfu_range(bill)}
    price = float(f["price_usd_per_gpu_hour"])
    if f["pricing"] != "owned" and not isinstance(p.get("price_usd_per_gpu_hour"), Range):
        rows, mode = _spread_price_rows(f["accelerator"], f["pricing"],
                                        p.get("price_usd_per_gpu_hour") is not None)
        if len(rows) >= 2:
            usd = rows["price_usd_per_gpu_hour"].astype(float)
            q25, q75 = (float(v) for v in usd.quantile([0.25, 0.75]))
            med = float(usd.median())
            r = (q75 - q25) / (2.0 * med)  # half the IQR, relative to the median
            out["price_usd_per_gpu_hour"] = (
                Range("triangular", low=price * (1.0 - r), mode=price, high=price * (1.0 + r)),
                f"±{r:.0%} around the bill's ${price:.2f}: half the interquartile spread "
                f"(P25-P75, ${q25:.2f}-${q75:.2f}) of {len(rows)} current {mode} prices "
                f"for {f['accelerator']} in data/prices.csv, relative to their median "
                f"${med:.2f} (cheapest ${float(usd.min()):.2f}, dearest ${float(usd.max()):.2f} "
                "left out), the ends of a triangle whose own P10-P90 is "
                f"±{r * (1 - math.sqrt(0.2)):.0%}: narrower than the market's spread, which "
                "spreads providers, not one price a team has chosen"
                + (f"; the {f['pricing']} price is their median, the "
                               f"{f['pricing']} rows lying above it" if mode != f["pricing"]
                               else ""))
    if exploratory_as_fraction(bill) and not exploratory_all_clamped(bill):
        out.update(_exploratory_range(p))
    out.update(_project_months_range(f, p))
    out.update(_rl_time_range(f, p))
    return out


def _project_months_range(figures: dict, p: dict) -> dict:
    """``illustrative_ranges``' ``ledger_project_months`` entry (its docstring), or {} unless
    the bill takes the published project length (``ledger_published_defaults``, no
    ``ledger_project_months``) and the compute schedule is shorter than its top: a two-piece
    triangle over the published bounds, peaked at Epoch's median, each draw then at least the
    compute schedule (``_published_project_months``). People, operations and
    dataset storage scale with it (a review read the 405B bill's $60M of staff, 22% of it, at
    "P10-P90 $60.1M-$60.1M")."""
    if not p.get("ledger_published_defaults") or p.get("ledger_project_months") is not None:
        return {}
    med, lo, hi = default_range("project_months_published")
    months = float(np.max(figures["project_months"]))
    if months >= hi:
        return {}   # the run alone outlasts every project length drawn: one number
    point = ("the bill's point" if months <= med else
             f"the bill's point is the compute schedule's {months:.3g} months, longer")
    return {"ledger_project_months": (
        _peaked_at(lo, med, hi),
        f"the project's length, peaked at Epoch's median project {med:g} months ({point}), "
        f"drawn over {lo:g}-{hi:g} months, the lowest and highest 90% bounds of its four case "
        "studies (data/ledger_defaults.csv project_months_published), each draw at least the "
        "compute schedule (exploration, the final run and post-training): a spread across "
        "projects, taken as this project's uncertainty")}


def _spread_price_rows(accelerator: str, pricing: str, given: bool = False) -> tuple:
    """``(rows, mode)``: the current catalogue prices a bill's GPU-hour price is spread over
    (``illustrative_ranges``), those of its pricing mode, or, where that mode's median lies
    above the on-demand one and the bill takes the catalogue's price (not ``given``), the
    on-demand rows that price is the median of (``catalog.discount_price_cap``: a trial's
    reserved H200 bill took the on-demand median of two rows and was said to have no spread
    for want of a second reserved row)."""
    if pricing != "on_demand" and not given and \
            discount_price_cap(accelerator, pricing) is not None:
        return current_prices(accelerator, "on_demand"), "on_demand"
    return current_prices(accelerator, pricing), pricing


def _exploratory_range(p: dict) -> dict:
    """``illustrative_ranges``' ``ledger_exploratory_fraction`` entry (its docstring): the
    source's log-normal for the default fraction, the scaled triangle for a given one, none
    for a given 0."""
    row = default_rows()["exploratory_fraction"]
    lo, med, hi = float(row["low"]), float(row["value"]), float(row["high"])
    low, mode, high = exploratory_fraction_bounds(p)
    if (low, mode, high) == (lo, med, hi):
        r = _exploratory_fraction_range(lo, med, hi)
        below = r.uncut_cdf(r.low)
        return {"ledger_exploratory_fraction": (
            r, f"Cottier et al. 2024's log-normal of development compute, {1 + lo:g}-"
            f"{1 + hi:g} times the final run as its 90% interval (median {1 + r.point:.2f}; "
            f"data/ledger_defaults.csv), less the final run: {r.point:.2f} final runs beyond it "
            f"at the median, cut to the input's [0, {r.high:g}] (draws fall inside it: the "
            f"{below:.1%} of the log-normal below 0 is left out)")}
    if mode > 0:
        return {"ledger_exploratory_fraction": (
            Range("triangular", low=low, mode=mode, high=high),
            f"the scenario's {mode:.3g} spread as Cottier et al. 2024's 90% interval of "
            f"development compute spreads around their median ({lo:g}-{hi:g} around "
            f"{med:.2f}, data/ledger_defaults.csv): {low:.3g}-{high:.3g}, the interval's "
            "ends taken as the triangle's (a narrower range than theirs)")}
    return {}


def _exploratory_fraction_range(lo: float, med: float, hi: float) -> Range:
    """The development-compute multiplier M = 1 + x as Cottier et al. 2024 (arXiv:2405.21015,
    App. A.6: "a log-normal distribution ... defined by a 90% CI of 1.2x to 4x, leading to a
    median of 2.2x") draw it, carried to the exploratory fraction x::

        ln M ~ Normal(μ, σ),  μ = ln(1 + med),  σ = ln((1 + hi)/(1 + lo)) / (2 z₀.₉₅)
        x = M − 1, cut to [0, EXPLORATORY_FRACTION_MAX] (the input's rule)

    with ``lo``, ``med``, ``hi`` the fractions of data/ledger_defaults.csv (0.2, 1.19, 3.0; the
    median 1 + 1.19 = √(1.2 × 4) rounded, so that the range's point is the bill's default
    exactly and its 90% interval 1.1995-3.998): a ``shifted_lognormal`` range (``ranges``),
    P10 and P90 of M = exp(μ ∓ z₀.₉ σ). Drawn whole, its P10-P90 of x is about 0.41-2.51; a
    triangle 0.2 / 1.19 / 3.0 (the interval's ends as the triangle's, as before) gave
    0.73-2.29."""
    mu = math.log(1 + med)
    sigma = math.log((1 + hi) / (1 + lo)) / (2 * Z95)
    return Range("shifted_lognormal", p10=math.exp(mu - Z90 * sigma),
                 p90=math.exp(mu + Z90 * sigma), shift=1.0, low=0.0,
                 high=EXPLORATORY_FRACTION_MAX)


def _rl_time_range(figures: dict, p: dict) -> dict:
    """``illustrative_ranges``' ``rl_time_factor`` entry (its docstring), or {} when the bill
    prices no RL campaign, the campaign is DPO's or the scenario gives the factor itself."""
    rl_h = figures.get("rl_gpu_hours", 0.0)
    if np.ndim(rl_h) or float(rl_h) <= 0 or p.get("rl_time_factor") is not None:
        return {}   # no campaign, or the scenario's own factor (a measurement): not redrawn
    if p.get("rl_algorithm") == "dpo":
        return {}   # no rollout, no refit: the GRPO runs' errors say nothing of it
    lo, med, hi = time_factor_triangle(p)
    # peaked at the median, the bill's point (rl.scenario_time_factor), so that the bars, the
    # table and the line agree
    fw = p.get("rl_framework") or "generic"
    stated = (" (llmcost.rl.RL_TIME_FACTOR_RANGE" if fw == "generic" else
              f" and their framework, {fw} (llmcost.rl.RL_FRAMEWORK_TIME_FACTOR_RANGE")
    return {"rl_time_factor": (
        _peaked_at(lo, med, hi),
        f"the RL iteration model's held-out errors as the bill prices a scenario: measured ÷ "
        f"predicted iteration time {lo:g}-{hi:g} on its held-out published GRPO runs stated "
        f"with a scenario's keys{stated}, benchmarks/validate_rl.py), "
        f"peaked at their median {med:g}, the bill's point"
        + ("; PPO, never published with a scenario's set-up, extrapolated"
           if p.get("rl_algorithm") == "ppo" else ""))}


def _number_if_zero_width(value):
    """A range of zero width (``ranges.is_point_range``: ``[2.99, 2.99]``) as its number, as the
    bill reads it (``_range_source``: "treated as a number given alone"); any other value as it
    is."""
    return value.point if isinstance(value, Range) and is_point_range(value) else value


def _zero_width_as_numbers(scenario: dict) -> dict:
    """``scenario`` with each range of zero width as its number (``_number_if_zero_width``), so
    that the illustrative spreads and their reasons treat it as that number (a review: a
    zero-width price lost its catalogue spread and was said to have fewer than two catalogue
    prices)."""
    return {k: _number_if_zero_width(v) for k, v in scenario.items()}


def unranged_inputs(bill: Ledger, ranged) -> dict:
    """The inputs of ``HEADLINE_RULE`` (the MFU, the GPU-hour price, the exploratory compute:
    ``SHORT_WORDS``) that a headline's draws leave at one number, each with why, by the
    conditions of ``illustrative_ranges``: a price spread needs at least two current catalogue
    prices for the accelerator and pricing mode (``data/prices.csv``; owned hardware has none,
    its price being the amortised purchase); the exploratory spread applies only to
    exploration priced as a fraction of the final run (not to listed runs), and not when the
    lines it nets out leave it $0 over its whole range (``exploratory_all_clamped``).
    ``ranged``: the ranged input names (``LedgerDraws.ranges``). Returns dict key -> reason."""
    f, p = _ledger(bill, "bill").figures, _zero_width_as_numbers(bill.scenario)
    if isinstance(ranged, (str, bytes)) or not hasattr(ranged, "__iter__") or \
            not all(isinstance(k, str) for k in ranged):
        raise ValueError(f"ranged={ranged!r} must be a collection of input names (strings)")
    out = {}
    for k in (k for k in SHORT_WORDS if k not in set(ranged)):
        if k == "price_usd_per_gpu_hour" and f["pricing"] == "owned":
            out[k] = ("owned hardware: the GPU-hour price is the amortised purchase, ranged "
                      "only through the owned-hardware inputs the scenario ranges")
        elif k == "price_usd_per_gpu_hour":
            rows, mode = _spread_price_rows(f["accelerator"], f["pricing"],
                                            p.get("price_usd_per_gpu_hour") is not None)
            out[k] = (f"no sourced spread: {len(rows)} current {mode} catalogue "
                      f"{noun(len(rows), 'price')} for "
                      f"{f['accelerator']} in data/prices.csv, and a spread needs two")
        elif k == "ledger_exploratory_fraction" and exploratory_as_fraction(bill) and \
                p.get("ledger_exploratory_fraction") == 0:
            out[k] = "the scenario sets ledger_exploratory_fraction: 0 (no exploratory compute)"
        elif k == "ledger_exploratory_fraction" and exploratory_all_clamped(bill):
            n, hi = f["exploratory_netting"], exploratory_fraction_bounds(p)[2]
            whose = ("the range around the scenario's fraction" if
                     p.get("ledger_exploratory_fraction") is not None else "Cottier et al.'s range")
            out[k] = (f"the {_quantity(float(n['netted_gpu_hours']))} GPU-h of "
                      f"{_and(list(n['netted']))} it nets out exceed even the top of {whose} "
                      f"({hi:.3g} × the final run's "
                      f"{_quantity(f['paid_gpu_hours'])} paid GPU-h), so "
                      "the exploratory line is $0 at every fraction of that range")
        elif k == "ledger_exploratory_fraction":
            out[k] = ("the scenario lists its exploratory runs (ledger_exploratory_runs)"
                      if p.get("ledger_exploratory_runs") else "not modelled without "
                      "pre-training: no final run to take a fraction of"
                      if post_training_only(p) else "exploratory compute is "
                      f"priced as {bill.line('compute.exploratory').how}, not as a fraction")
        else:
            out[k] = "no error band for this MFU"
    return out


def compare_draws(a: LedgerDraws, b: LedgerDraws, names=("A", "B")):
    """``compare`` of two simulated bills, with the P10 / P50 / P90 of the difference B − A
    per draw (``difference p10 usd``, ...). With common random numbers (``simulate_ledger``:
    the same seed and sample count, inputs ranged under the same names) draw i of both bills
    sees the same values of their shared ranged inputs, so these are percentiles of a paired
    difference, not of two independent spreads. A line either bill does not model has NaN
    there, as its point difference is "not modelled"."""
    for x, name in ((a, "a"), (b, "b")):
        if not isinstance(x, LedgerDraws):
            raise ValueError(f"{name}={x!r} must be a LedgerDraws (llmcost.simulate_ledger)")
    if a.samples != b.samples or a.seed != b.seed:
        raise ValueError(f"a and b must share samples and seed for draw-by-draw differences "
                         f"(got {a.samples}/{a.seed} and {b.samples}/{b.seed})")
    df = compare(a.point, b.point, names)
    keys = list(dict.fromkeys([ln.key for ln in a.point.lines] + [ln.key for ln in b.point.lines]))
    zero = np.zeros(a.samples)
    # a line either bill does not model (``usd`` None) has no difference, per draw either
    unmodelled = {ln.key for x in (a, b) for ln in x.point.lines if ln.usd is None}
    cols = {c: [] for c in ("p10", "p50", "p90")}
    for k in keys + ["total"]:
        if k == "total":  # per draw, noise removed as ``compare`` removes it (``difference``)
            d = difference(a.total_usd, b.total_usd)
        elif k in unmodelled:
            for c in cols:
                cols[c].append(float("nan"))
            continue
        else:
            d = difference(a.line_usd.get(k, zero), b.line_usd.get(k, zero))
        q = np.quantile(d, [0.1, 0.5, 0.9])
        for c, v in zip(cols, q):
            cols[c].append(float(v))
    for c, v in cols.items():
        df[f"difference {c} usd"] = v
    return df


# ------------------------------------------------------------------------------ the bill at a glance
#: Ranged inputs in a reader's words (the report's first sentences, the glance figure).
INPUT_WORDS = {
    "mfu": "how fast the GPUs really run (the MFU)",
    "price_usd_per_gpu_hour": "the GPU-hour price",
    "ledger_exploratory_fraction": "exploratory and failed runs",
    "fail_rate_per_gpu_year": "the GPU failure rate",
    "fail_planned_per_day": "planned interruptions",
    "ckpt_restart_s": "the restart time after a failure",
    "ledger_rerun_probability": "the chance of a rerun",
    "ledger_reserve_fraction": "the contingency reserve",
    "ledger_project_months": "the project's length",
    "ledger_electricity_usd_per_kwh": "the electricity price",
    "ledger_owned_usd_per_gpu": "the price of an owned GPU",
    "ledger_pue": "the data centre's PUE",
    "rl_time_factor": "the RL iteration time against the model's prediction",
    "ledger_spot_preemptions_per_node_day": "spot pre-emptions",
    "ledger_spot_restart_s": "the time to restart after a spot pre-emption",
    "ledger_sft_tokens": "the supervised fine-tuning tokens",
    "ledger_cpt_tokens": "the continued pre-training tokens",
    "ledger_lora_tokens": "the LoRA fine-tuning tokens",
    "ledger_data_licensing_usd": "the data licensing cost",
    "ledger_data_processing_usd": "the data processing cost",
    "ledger_synthetic_tokens": "the synthetic-data tokens",
    "ledger_synthetic_usd_per_mtok": "the price of synthetic data per million tokens",
    "ledger_annotation_samples": "the number of annotated samples",
    "ledger_annotation_usd_per_sample": "the price per annotated sample",
    "ledger_eval_gpu_hours": "the GPU-hours of benchmark runs",
    "ledger_eval_requests": "the number of benchmark requests",
    "ledger_human_eval_hours": "the hours of human evaluation",
    "ledger_human_eval_usd_per_hour": "the hourly price of human evaluation",
    "ledger_dataset_bytes": "the dataset's size",
    "ledger_log_bytes": "the logs kept",
    "ledger_egress_bytes": "the data sent to the internet",
    "ledger_cross_region_bytes": "the data moved between regions",
    "ledger_operations_usd_per_month": "the monthly operations cost",
}


def input_words(key: str) -> str:
    """A ranged input in a reader's words (``INPUT_WORDS``), else its scenario key."""
    if not isinstance(key, str):
        raise ValueError(f"key={key!r} must be a scenario key (a string such as 'mfu')")
    return INPUT_WORDS.get(key, key)


#: Each ranged input's unit, as a reader reads its values (``input_range_words``): a format of
#: one value ("{:.0%}" for a fraction read as a percentage) and the unit that follows the pair.
INPUT_UNITS = {
    "mfu": ("{:.1%}", "of the GPUs' peak"),
    "price_usd_per_gpu_hour": ("{:,.2f}", "USD per GPU-hour"),
    "ledger_exploratory_fraction": ("{:.2g}×", "the final run's compute"),
    "fail_rate_per_gpu_year": ("{:.3g}", "failures per GPU-year"),
    "fail_planned_per_day": ("{:.3g}", "per day"),
    "ckpt_restart_s": ("{:,.0f}", "seconds"),
    "ledger_rerun_probability": ("{:.0%}", ""),
    "ledger_reserve_fraction": ("{:.0%}", "of the other lines"),
    "ledger_project_months": ("{:.3g}", "months"),
    "ledger_electricity_usd_per_kwh": ("{:.3g}", "USD per kWh"),
    "rl_time_factor": ("{:.2f}×", "the RL model's iteration time"),
    "ledger_owned_usd_per_gpu": ("{:,.0f}", "USD per GPU"),
    "ledger_pue": ("{:.3g}", "(PUE)"),
    "ledger_spot_preemptions_per_node_day": ("{:.3g}", "per node-day"),
    "ledger_spot_restart_s": ("{:,.0f}", "seconds"),
    "ledger_sft_tokens": ("{:.3g}", "tokens"),
    "ledger_cpt_tokens": ("{:.3g}", "tokens"),
    "ledger_lora_tokens": ("{:.3g}", "tokens"),
    # compact, without "$" (a finance trial read "773,861–1,612,702 USD"): "773.9k–1.61M USD"
    "ledger_data_licensing_usd": (lambda x: fmt_usd(x).lstrip("$"), "USD"),
    "ledger_data_processing_usd": (lambda x: fmt_usd(x).lstrip("$"), "USD"),
    "ledger_synthetic_tokens": ("{:.3g}", "tokens"),
    "ledger_synthetic_usd_per_mtok": ("{:.3g}", "USD per million tokens"),
    "ledger_annotation_samples": ("{:,.0f}", "samples"),
    "ledger_annotation_usd_per_sample": ("{:.3g}", "USD per sample"),
    "ledger_eval_gpu_hours": ("{:,.0f}", "GPU-hours"),
    "ledger_eval_requests": ("{:.3g}", "requests"),
    "ledger_human_eval_hours": ("{:,.0f}", "hours"),
    "ledger_human_eval_usd_per_hour": ("{:.3g}", "USD per hour"),
    "ledger_dataset_bytes": ("{:.3g}", "bytes"),
    "ledger_log_bytes": ("{:.3g}", "bytes"),
    "ledger_egress_bytes": ("{:.3g}", "bytes"),
    "ledger_cross_region_bytes": ("{:.3g}", "bytes"),
    "ledger_operations_usd_per_month": ("{:,.0f}", "USD per month"),
}


def input_range_words(key: str, p10: float, p90: float) -> str:
    """An input's P10 and P90 with its unit (``INPUT_UNITS``), as a tornado row reads them:
    ``input_range_words("mfu", 0.31, 0.49)`` = "P10–P90: 31.0%–49.0% of the GPUs' peak"; a key
    without a unit: the plain numbers (4 significant digits). No dollar sign: a figure's text
    would read two of them as the ends of a TeX formula."""
    if not isinstance(key, str):
        raise ValueError(f"key={key!r} must be a scenario key (a string such as 'mfu')")
    for name, v in (("p10", p10), ("p90", p90)):
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) \
                or not np.isfinite(v):
            raise ValueError(f"{name}={v!r} must be a finite number (the input's value)")
    fmt, unit = INPUT_UNITS.get(key, ("{:.4g}", ""))
    show = fmt if callable(fmt) else fmt.format  # a format string, or a formatter of its own
    return f"P10–P90: {show(p10)}–{show(p90)}" + (f" {unit}" if unit else "")


#: Each input of a headline range, by how it was set (``Headline.kinds``): ``scenario`` (a
#: ``Range`` the scenario gives), ``predicted`` (the step-time model's band on ``mfu: predict``),
#: ``pilot`` (the pilots' extrapolation band), ``rl_model`` (the RL iteration model's error on
#: published runs, drawn on an RL campaign's time when the scenario gives no
#: ``rl_time_factor``: a measured band on a predicted figure, as ``predicted`` is, not a value
#: the scenario gives), ``illustrative`` (a sourced spread of ``illustrative_ranges`` on a value
#: given as one number).
RANGE_KINDS = ("scenario", "predicted", "pilot", "rl_model", "illustrative")

#: The rule of the headline's ranges, as a reader reads it.
HEADLINE_RULE = ("the MFU, the GPU-hour price and the exploratory compute are ranged wherever "
                 "a source gives a spread (``unranged_inputs`` says why one is not; an RL "
                 "campaign's time factor and, under the published defaults, the project's "
                 "length too, by their sourced spreads): by "
                 "the scenario's own range where it gives one (for mfu: predict, the step-time "
                 "model's band on its prediction), else by a sourced illustrative spread around "
                 "the value the scenario gives")

#: Short names of the inputs in ``range_basis``'s sentence.
SHORT_WORDS = {"mfu": "the MFU", "price_usd_per_gpu_hour": "the GPU-hour price",
               "ledger_exploratory_fraction": "the exploratory compute"}


class Headline(NamedTuple):
    """The draws a bill's headline shows (``headline_draws``): ``draws`` (a ``LedgerDraws``),
    ``sources`` (each ranged input -> why it is ranged), ``illustrative`` (True when the
    scenario ranges nothing itself and every range is ``illustrative_ranges``'s), ``kinds``
    (each ranged input -> one of ``RANGE_KINDS``) and ``point`` (``build_ledger`` of the
    scenario: its own point bill, whose sources say what the scenario gave)."""

    draws: LedgerDraws
    sources: dict
    illustrative: bool
    kinds: dict
    point: Ledger

    @property
    def state(self) -> str:
        """``headline_state`` of ``kinds``."""
        return headline_state(self.kinds)

    @property
    def basis(self) -> str:
        """``range_basis`` of ``kinds``: what the range comes from, in a reader's words."""
        return range_basis(self.kinds)

    @property
    def held(self) -> str:
        """The inputs of ``HEADLINE_RULE`` the draws leave at one number, each with why
        (``unranged_inputs``), in a reader's words ("the GPU-hour price held at one number (no
        sourced spread: 1 current spot catalogue price ...)"); "" when every one is
        ranged."""
        why = unranged_inputs(self.point, self.kinds)
        return "; ".join(f"{SHORT_WORDS[k]} held at one number ({w})" for k, w in why.items())


def headline_state(kinds: dict) -> str:
    """Where a headline's ranges come from, one of three: 'scenario' (the scenario ranges at
    least one input itself), 'predicted' (its only own range is the MFU's band: the step-time
    model's on a predicted MFU, kind 'predicted', or a pilot's extrapolation, kind 'pilot') or
    'illustrative' (it gives every input as one number)."""
    if not isinstance(kinds, dict) or any(v not in RANGE_KINDS for v in kinds.values()):
        raise ValueError(f"kinds={kinds!r} must map ranged inputs to one of {RANGE_KINDS}")
    vals = set(kinds.values())
    return "scenario" if "scenario" in vals else "predicted" if vals & {"predicted", "pilot"} \
        else "illustrative"


def _and(words: list) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def range_basis(kinds: dict) -> str:
    """What a headline's P10-P90 comes from, in a reader's words (``headline_state``'s three
    states; ``HEADLINE_RULE``): the scenario's ranges on the inputs it ranges, the step-time
    model's band on a predicted MFU, the illustrative spreads on the inputs it gives as one
    number, each named, and, last, the RL model's published-run error on an RL campaign's time
    (kind ``rl_model``; a small line of most bills, said after what moves the total)."""
    state = headline_state(kinds)
    rl_model = "rl_model" in kinds.values()
    rl_words = "the RL model's published-run error on its predicted iteration time"
    if state == "illustrative":  # (a teacher read "..., and the RL model's error" as garbled)
        return ("illustrative ranges (the scenario gives every input as one number) and "
                f"{rl_words}" if rl_model else
                "illustrative ranges: the scenario gives every input as one number")
    words = {kind: [SHORT_WORDS.get(k, input_words(k)) for k, v in kinds.items() if v == kind]
             for kind in RANGE_KINDS}
    parts = []
    if words["scenario"]:
        parts.append(f"the scenario's ranges on {_and(words['scenario'])}")
    if words["predicted"]:
        parts.append("the step-time model's band on its predicted MFU")
    if words["pilot"]:
        parts.append("the pilot's extrapolation band on its MFU")
    out = " and ".join(parts)
    if words["illustrative"]:
        out += (f"; illustrative spreads on {_and(words['illustrative'])}, which the scenario "
                "gives as one number")
    elif state == "predicted":
        out += " (the scenario ranges nothing else)"
    return out + (f"; and {rl_words}" if rl_model else "")


def _pilot_mfu_range(ill: dict, given: dict, m: float) -> tuple:
    """``headline_draws``' MFU range when a pilot sets the MFU (``pilot.pilot_given``): the
    pilot's extrapolation band (the report's, for the scenario's plan, in ``_mfu_calibration``;
    else ``pilot.pilot_mfu`` on the bill's scenario: low-high, peaked at the bill's MFU ``m``)
    in place of the regime's band, and the scenario without its pilot keys, so that the draws
    vary the MFU the pilot set rather than re-deriving it (a ranged ``mfu`` beside a pilot is
    refused). A pilot that ran the run's own plan has no band: the MFU is then its measurement
    and is not ranged."""
    cal = given.get("_mfu_calibration") or {}
    # the band the report computed on the scenario's own plan (report.calibrate_pilot_mfu), else
    # calibrated here on what the bill holds (its plan keys are not the ledger's)
    got = cal if "low" in cal and "high" in cal else (pilot_mfu(given) or {})
    ill = {k: v for k, v in ill.items() if k != "mfu"}
    band = pilot_mfu_range({**got, "value": m})  # the bill draws it as the report's pages do
    if not isinstance(band, Range):
        return ill, given
    ill["mfu"] = (band,
                  f"the pilot's extrapolation band, {got['low']:.1%}-{got['high']:.1%} "
                  f"(llmcost.bill.pilot.pilot_mfu), peaked at the bill's MFU, {m:.1%}")
    return ill, {**given, "mfu": m, "ledger_pilot_tokens_per_s_per_gpu": None, "pilot": []}


def own_ranged_scenario(bill: Ledger) -> dict:
    """The scenario whose ranges are a bill's own (what ``estimate --compare`` and the report's
    comparison draw, ``glance.compare_bills``): the bill's scenario, its ``Range`` values and a
    predicted MFU's band (``scenario_ranges``), the RL model's error on an RL campaign's time
    when the scenario gives no ``rl_time_factor`` (``_rl_time_range``), and where a pilot set
    the MFU, the pilot's
    extrapolation band on ``mfu`` in place of the pilot keys (``_pilot_mfu_range``, as
    ``headline_draws`` draws it): a trial's pilot bill drew 26.4%-35.7% on its own page and was
    compared as "neither scenario gives a range of its own". A pilot that ran the run's own
    plan has no band: the scenario as it is."""
    given = _ledger(bill, "bill").scenario
    # the RL model's error on an RL campaign's predicted time (kind "rl_model"): the bill's own,
    # as a predicted MFU's band is (a trial compared a default campaign with a given factor of
    # 1 and was shown a certain difference)
    rl_time = _rl_time_range(bill.figures, given)
    if rl_time:
        given = {**given, **{k: r for k, (r, _) in rl_time.items()},
                 "_rl_time_factor_drawn": True}  # the model's spread (rl.time_factor_words)
    if not (pilot_given(given) or "_mfu_calibration" in given) or \
            isinstance(given.get("mfu"), Range):
        return given
    ill, drawn = _pilot_mfu_range({}, given, float(bill.figures["mfu"]))
    return {**drawn, "mfu": ill["mfu"][0]} if "mfu" in ill else given


#: Where a range on ``mfu`` comes from when it is not the scenario's own (``headline_draws``'
#: sources; ``scenario.MFU_BANDS``, the kind a report passes a page as ``mfu_band``).
BAND_SOURCES = {"predicted": "the step-time model's error band on its predicted MFU",
                "pilot": "the pilots' extrapolation band on their calibrated MFU"}


def headline_draws(scenario: dict, samples: int = 100_000, seed: int = 0) -> Headline:
    """The Monte Carlo bill the report's index, notebook 00's figure, ``summary.json``'s bill and
    ``llmcost estimate`` show (one range per bill), by ``HEADLINE_RULE``: the scenario's own
    ranges (its ``Range`` values and a predicted MFU's band, ``scenario_ranges``) plus, on each
    input of ``illustrative_ranges`` the scenario does not range, its sourced spread around the
    scenario's own point (flagged ``illustrative`` in ``kinds``), so that a reader always sees a
    range and what drives it, and a predicted-MFU scenario is not narrower than a given-MFU one
    for want of a price range. Same seed and samples as ``simulate_ledger`` (common random
    numbers: the scenario's ranged inputs get the same draws as in its own simulation).

    Raises
    ------
    ScenarioError (a ValueError)
        As ``simulate_ledger``.
    """
    point = build_ledger(scenario)
    given = point.scenario
    own = scenario_ranges(_values(given))
    ill = {k: v for k, v in illustrative_ranges(point).items() if k not in own}
    # a pilot smaller than the run leaves no throughput once the report calibrated it
    # (report.calibrate_mfu): its calibration record still says a pilot set the MFU
    piloted = pilot_given(given) or "_mfu_calibration" in given
    if "mfu" in ill and piloted:
        ill, given = _pilot_mfu_range(ill, given, float(point.figures["mfu"]))
    kinds = {**{k: "scenario" if isinstance(given.get(k), Range) else "predicted" for k in own},
             **{k: "rl_model" if k == "rl_time_factor" else "illustrative" for k in ill}}
    if "mfu" in ill and piloted:
        kinds["mfu"] = "pilot"  # the pilot's extrapolation band: measured, not illustrative
    if kinds.get("mfu") == "scenario" and given.get("mfu_band"):
        kinds["mfu"] = given["mfu_band"]  # a page's band, passed as a range by the report
    sources = {**{k: BAND_SOURCES.get(kinds[k], "given in the scenario") for k in own},
               **{k: why for k, (_, why) in ill.items()}}
    drawn = {**given, **{k: r for k, (r, _) in ill.items()}}
    if "rl_time_factor" in ill:  # the RL model's own spread, not a factor the scenario gave:
        drawn["_rl_time_factor_drawn"] = True  # its point bill says so (rl.time_factor_words)
    if "ledger_project_months" in ill:  # the published length drawn, at least the schedule's
        drawn["_project_months_drawn"] = True  # compute schedule (_published_project_months)
    draws = simulate_ledger(drawn, samples=samples, seed=seed)
    # a pilot's band is the scenario's own measurement, not an illustrative spread
    return Headline(draws, sources, not own and kinds.get("mfu") != "pilot", kinds, point)


def point_outside(point: float, p10: float, p90: float, printed=usd_as_printed) -> bool:
    """True when a point estimate lies outside its own P10-P90 **as printed**: each of the three
    rounded as its page prints it (``printed``; by default as ``units.fmt_usd`` prints it,
    ``units.usd_as_printed``: three significant figures from $100 up; ``levers.mark_outside``
    passes whole dollars, as its table prints), the point below the lower end or above the
    upper one. So a line reads
    starred exactly when its printed point is outside its printed range: "$1.08k" beside a P10
    of "$1.09k" is marked, "$111" beside "$111-$111" is not (111.195 against 111.204), "$1.00M"
    beside "$990k-$999k" is. The point of a triangular range is its mode, which can sit at the
    range's edge (a price at the cheapest end of the catalogue's spread), so most draws lie on
    one side of it."""
    for name, v in (("point", point), ("p10", p10), ("p90", p90)):
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) \
                or not np.isfinite(v):
            raise ValueError(f"{name}={v!r} must be a finite amount (USD)")
    if not callable(printed):
        raise ValueError(f"printed={printed!r} must be a function of an amount (the amount "
                         "as its page prints it)")
    lo, hi = sorted((printed(float(p10)), printed(float(p90))))
    shown = printed(float(point))
    return shown < lo or shown > hi


#: The footnote of a line whose point lies outside its P10-P90 (``point_outside``): the text
#: bars, the bill's figure and the JSON bill all mark such a line with ``*`` and say this.
OUTSIDE_NOTE = ("point outside its P10–P90: the stated value is at the edge of its range, so "
                "most draws fall on one side of it")


def bill_bars(draws: LedgerDraws, min_share: float = 0.005) -> pd.DataFrame:
    """The bill as a figure draws it: each line with an amount, its point and its P10 / P50 /
    P90 over the draws (``LedgerDraws.summary``), largest point first, then ``total``.

    Lines whose point and P90 are both below ``min_share`` of the point total are merged into
    one row, ``other`` (when there are two or more), whose percentiles are those of the merged lines' sum per draw (the
    percentiles of the lines themselves do not add). Lines at $0 in every draw are left out;
    ``.attrs['not_modelled']`` lists the lines without an amount, ``.attrs['zero_lines']``
    counts the $0 ones, ``.attrs['merged']`` names the lines in ``other``.

    Returns
    -------
    DataFrame indexed by line key: ``line``, ``point_usd``, ``p10_usd``, ``p50_usd``,
    ``p90_usd`` and ``point_outside`` (``point_outside``: the point is not within its own
    P10-P90); the last row is ``total`` (its percentiles are the total's own).
    """
    if not isinstance(draws, LedgerDraws):
        raise ValueError(f"draws={draws!r} must be a LedgerDraws (ledger.simulate_ledger)")
    if isinstance(min_share, bool) or not isinstance(min_share, (int, float)) or \
            not 0 <= min_share < 1:
        raise ValueError(f"min_share={min_share!r} must be a fraction in [0, 1)")
    s = draws.summary()
    total = float(s.loc["total", "point"])
    cut = min_share * abs(total)
    rows, merged = [], []
    body = s[(s.index != "total") & s["p90"].notna()]
    for k, r in body.iterrows():
        if max(abs(r["point"]), abs(r["p90"]), abs(r["p10"])) == 0:
            continue
        if abs(r["point"]) < cut and abs(r["p90"]) < cut:
            merged.append(k)
            continue
        rows.append({"key": k, "line": r["line"], "point_usd": float(r["point"]),
                     "p10_usd": float(r["p10"]), "p50_usd": float(r["p50"]),
                     "p90_usd": float(r["p90"])})
    if len(merged) == 1:  # one small line is shown as itself
        k = merged.pop()
        rows.append({"key": k, "line": s.loc[k, "line"], **{
            f"{c}_usd": float(s.loc[k, c]) for c in ("point", "p10", "p50", "p90")}})
    rows.sort(key=lambda r: -r["point_usd"])
    if merged:
        x = sum(np.asarray(draws.line_usd[k], dtype=float) for k in merged)
        q = np.quantile(x, [0.1, 0.5, 0.9])
        rows.append({"key": "other", "line": f"{len(merged)} smaller lines",
                     "point_usd": float(sum(s.loc[k, "point"] for k in merged)),
                     "p10_usd": float(q[0]), "p50_usd": float(q[1]), "p90_usd": float(q[2])})
    t = s.loc["total"]
    rows.append({"key": "total", "line": "the whole bill", "point_usd": total,
                 "p10_usd": float(t["p10"]), "p50_usd": float(t["p50"]),
                 "p90_usd": float(t["p90"])})
    df = pd.DataFrame(rows).set_index("key")
    df["point_outside"] = [point_outside(r.point_usd, r.p10_usd, r.p90_usd)
                           for r in df.itertuples()]
    shown = len(rows) - 1 - (1 if merged else 0)  # lines drawn on their own
    df.attrs.update(not_modelled=[ln.line for ln in draws.point.lines if ln.usd is None],
                    zero_lines=int(len(body) - len(merged) - shown),
                    merged=[s.loc[k, "line"] for k in merged])
    return df
