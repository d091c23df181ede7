"""The run's MFU from a pilot run, extrapolated to the run's plan: the one function the bill
(``ledger.build_ledger``, so every notebook), ``llmcost report`` and ``llmcost estimate`` use.

A pilot measures tokens/s per GPU on some GPU count with some plan; the run has its own GPU count
and plan. ``pilot_mfu`` calibrates the step-time model on the pilot and predicts the run
(``llmcost.training.calibrate``: ``scenario_calibration`` for ``pilot:`` records,
``shorthand_calibration`` for the one-number ``ledger_pilot_tokens_per_s_per_gpu`` at
``ledger_pilot_n_gpus``), with the band of what the pilot did not exercise. A pilot that ran the
run's own plan at its GPU count (``ledger_pilot_n_gpus`` not given) is the run's measurement:

    MFU = tokens/s per GPU × F(s) ÷ dense peak(dtype)

with F(s) the model FLOPs per token on a full attention mask (``compute.mfu_from_throughput``),
computed without a plan. A pilot at another GPU count needs the run's plan: the plan keys the
values do not give (``BILL_PLAN_KEYS``: notebook 00 declares only the batch, for its claims,
and the stack and the experts' layout, for its RL line; notebook 09 all) take
the notebooks' defaults, the default scenario's values (``data/scenarios/default.yaml``; the
notebooks' tests check they agree), as ``levers.predicted_step`` completes them, and the source
says so.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from ..core.catalog import SCENARIO_DIR, load_accelerator, load_model
from ..core.units import fmt_gpus
from ..training import accuracy, calibrate, step_scenario
from ..training.compute import mfu_from_throughput
from .montecarlo import band_drawn
from .scenario import LEDGER_DEFAULTS, load_scenario

#: The scenario keys the extrapolation reads (the memo's key): the plan's
#: (``step_scenario.PLAN_KEYS``), the step options' (``step_scenario.SCENARIO_DEFAULTS``), the
#: dtype and the pilot's own.
READ_KEYS = tuple(dict.fromkeys((*step_scenario.PLAN_KEYS, *step_scenario.SCENARIO_DEFAULTS,
                                 "dtype", "pilot", "ledger_pilot_tokens_per_s_per_gpu",
                                 "ledger_pilot_n_gpus")))
_MEMO: dict = {}

#: The plan and step-option keys the extrapolation reads beyond the ledger's own
#: (``scenario.LEDGER_DEFAULTS``): ``step_scenario.PLAN_KEYS`` and the overlap keys.
BILL_PLAN_KEYS = tuple(k for k in READ_KEYS if k not in LEDGER_DEFAULTS)


@lru_cache(maxsize=1)
def _notebook_plan_defaults() -> dict:
    """The default scenario's values of ``BILL_PLAN_KEYS`` (the notebooks' defaults)."""
    d = load_scenario(SCENARIO_DIR / "default.yaml")
    return {k: d[k] for k in BILL_PLAN_KEYS if k in d}


def pilot_given(p: dict) -> bool:
    """Whether the scenario values ``p`` give a pilot (``pilot:`` records or
    ``ledger_pilot_tokens_per_s_per_gpu``)."""
    return bool(p.get("pilot")) or p.get("ledger_pilot_tokens_per_s_per_gpu") is not None


def pilot_mfu(p: dict) -> dict | None:
    """The run's MFU from the scenario's pilot, or None when it gives none.

    * ``pilot:`` records: the step model calibrated on them and extrapolated to the scenario's
      plan (``calibrate.scenario_calibration``);
    * ``ledger_pilot_tokens_per_s_per_gpu`` at ``ledger_pilot_n_gpus``: the pilot of the
      scenario's plan at that GPU count, extrapolated (``calibrate.shorthand_calibration``);
      without ``ledger_pilot_n_gpus`` the pilot is the run itself and its MFU the measurement
      (module docstring: no plan needed).

    Memoised on the keys it reads (``READ_KEYS``): a bill and its variants ask for the same
    pilot many times.

    Returns
    -------
    dict with ``value`` (the MFU; rounded to 6 decimals when calibrated, the value a report
    writes into the scenario), ``low`` and ``high`` (the band), ``tokens_per_s_per_gpu`` (the shorthand's, else
    None), ``pilot_n_gpus`` (the smallest pilot's), ``n_gpus`` (the run's), ``extrapolated``
    (whether the pilot ran at another GPU count or plan), ``plan`` (the plan extrapolated to, in
    words; absent for the run's own measurement), ``from`` (the source in words),
    ``warning`` (``calibrate.pilot_plan_warning``: the run's plan runs none of the pilots'
    kernels, so their correction is not carried; else None) and ``factor_warnings``
    (``Calibration.warnings``: a fitted factor outside what is physically plausible, pilots
    not fitted, a pilot faster than the best comparable published run; for the run's own
    measurement, that last one alone, ``calibrate.measured_above_published``).

    Raises
    ------
    ValueError
        A bad pilot, naming the field (``pilot[i]...``, ``ledger_pilot_tokens_per_s_per_gpu``,
        ``ledger_pilot_n_gpus``; a throughput above the roofline, a plan that does not fit, a
        pilot larger than the run).
    """
    if not pilot_given(p):
        return None
    key = tuple((k, repr(p[k])) if k in p else (k,) for k in READ_KEYS)
    hit = _MEMO.get(key)
    if hit is not None:
        return dict(hit)
    out = _pilot_mfu(p)
    if len(_MEMO) >= 256:
        _MEMO.clear()
    _MEMO[key] = out
    return dict(out)


def _pilot_mfu(p: dict) -> dict:
    tps = p.get("ledger_pilot_tokens_per_s_per_gpu")
    n_pilot = p.get("ledger_pilot_n_gpus")
    if not p.get("pilot") and n_pilot is None:
        # the run's own measurement: no plan to build, nothing to extrapolate
        spec, gpu = load_model(p["model"]), load_accelerator(p["accelerator"])
        try:  # mfu_from_throughput refuses a throughput above the dense peak (MFU > 1)
            mfu = float(mfu_from_throughput(tps, spec, gpu, p["seq_len"], p["dtype"]))
        except ValueError as e:
            raise ValueError(f"ledger_pilot_tokens_per_s_per_gpu: {e}; check the throughput "
                             "and dtype") from None
        fast = calibrate.measured_above_published(
            f"ledger_pilot_tokens_per_s_per_gpu={tps:,.0f}", mfu, gpu, spec, p["dtype"],
            p["seq_len"])
        return {"value": mfu, "low": mfu, "high": mfu, "tokens_per_s_per_gpu": tps,
                "pilot_n_gpus": int(p["n_gpus"]), "n_gpus": int(p["n_gpus"]),
                "extrapolated": False, "warning": None,
                "factor_warnings": (fast + ": check that it is tokens per second per GPU of "
                                    "this model and sequence length (not per node or per step, "
                                    "nor counting padding); the bill takes it as given",)
                if fast else (),
                "from": f"calibrated from a pilot's {tps:,.0f} tokens/s per GPU, assumed to have "
                        f"run the scenario's plan at its {fmt_gpus(int(p['n_gpus']))} "
                        "(ledger_pilot_n_gpus not given): the pilot's own measurement, no "
                        "extrapolation (compute.mfu_from_throughput)"}
    missing = [k for k in BILL_PLAN_KEYS if k not in p]
    p = {**_notebook_plan_defaults(), **p}
    warning = None
    if p.get("pilot"):
        cal, x, plan = calibrate.scenario_calibration(p)
        said = missing_words(missing, plan)
        warning = calibrate.pilot_plan_warning(p, cal, x, plan)
        x, widened = uncarried_band(p, x, plan)
        widened = widened or f" {x.mfu_low:.1%}-{x.mfu_high:.1%}"
        sizes = [f"{q.n_gpus:,}" for q in cal.pilots]
        at = (f"a pilot at {fmt_gpus(cal.pilots[0].n_gpus)}" if len(sizes) == 1 else
              f"pilots at {', '.join(sizes[:-1])} and {sizes[-1]} GPUs")
        src = (f"calibrated on {at}, extrapolated to {plan.describe()} "
               f"(llmcost.training.calibrate): band{widened}{capped_words(x)}"
               f"{said}") if x.half_width else (
            f"the measurement of the pilot at {fmt_gpus(plan.n_gpus)}, which ran the run's plan "
            f"({plan.describe()}): no extrapolation (llmcost.training.calibrate){said}")
        tps = None
    else:
        cal, x, plan, how = calibrate.shorthand_calibration(p)
        said = missing_words(missing, plan)
        band = (f": band {x.mfu_low:.1%}-{x.mfu_high:.1%}" if x.half_width else
                ": the pilot's own measurement, no extrapolation")
        src = (f"calibrated from a pilot's {tps:,.0f} tokens/s per GPU, {how}, extrapolated to "
               f"{plan.describe()} (llmcost.training.calibrate){band}{capped_words(x)}{said}")
    p0 = min(cal.pilots, key=lambda q: q.n_gpus)
    sensitive = calibrate.extrapolation_sensitivity(p, cal, x)  # None without pilot: records
    return {"value": round(x.mfu, 6), "low": x.mfu_low, "high": x.mfu_high,
            "tokens_per_s_per_gpu": tps, "pilot_n_gpus": p0.n_gpus, "n_gpus": plan.n_gpus,
            "extrapolated": bool(x.half_width), "plan": plan.describe(), "from": src,
            "warning": warning,
            "factor_warnings": tuple(cal.warnings) + ((sensitive,) if sensitive else ())}


def capped_words(x) -> str:
    """"" unless the extrapolation ``x`` was held at a pilot's measured MFU
    (``calibrate.data_parallel_cap``); then that, in words."""
    if x.capped_at is None:
        return ""
    return (f"; held at {x.capped_at:.1%}, the MFU the pilot measured on this plan at fewer "
            "data-parallel replicas: more replicas add gradient traffic and never raise the MFU "
            "(llmcost.training.calibrate.data_parallel_cap)")


#: The plan keys that mean something only to a fully sharded plan (ZeRO-3 / FSDP).
FSDP_ONLY_KEYS = ("fsdp_backward_prefetch", step_scenario.FSDP_SHARD_KEY)


def missing_words(missing: list, plan) -> str:
    """The plan keys the scenario does not give (``missing``), in words, as they take the
    notebooks' defaults; ``FSDP_ONLY_KEYS`` are left out for a ``plan`` that is not ZeRO-3
    (their default changes nothing there). "" when none is left."""
    keys = [k for k in missing if plan.zero_stage == 3 or k not in FSDP_ONLY_KEYS]
    return ("" if not keys else f"; the plan keys it does not give ({', '.join(keys[:3])}"
            f"{', ...' if len(keys) > 3 else ''}) take the notebooks' defaults")


def uncarried_band(p: dict, x, plan) -> tuple:
    """The extrapolation ``x`` with its band at least as wide as the uncalibrated ``mfu:
    predict`` band of the run's plan when none of the pilots' compute correction is carried
    (``x.transfer == 0``): the MFU then rests on the uncalibrated step model, so its band is at
    least the model's (``accuracy.band_for_step`` at the step ``x.breakdown``, MFU m: the
    regime's held-out errors, capped where no comparable run measured more),
    low = min(m × (1 − h), B_low), high = max(m × (1 + h), B_high). Returns ``(x, words)``,
    ``words`` saying so ("" when the band is kept)."""
    if x.transfer > 0 or not x.half_width:
        return x, ""
    b = accuracy.band_for_step(x.breakdown, plan, load_model(p["model"]), p["accelerator"],
                               dtype=p.get("dtype") or "bf16", seq_len=p.get("seq_len"))
    lo, hi = min(x.mfu_low, b.low), max(x.mfu_high, b.high)
    if lo == x.mfu_low and hi == x.mfu_high:
        return x, ""
    words = (f" widened from {x.mfu_low:.1%}-{x.mfu_high:.1%} to {lo:.1%}-{hi:.1%}: 0% of the "
             "pilots' compute correction is carried (the network factors they identified are "
             "carried whole), so the band is at least the step-time model's own for this plan "
             "at those factors (llmcost.training.accuracy.band_for_step)")
    return replace(x, mfu_low=lo, mfu_high=hi), words


def pilot_mfu_range(got: dict):
    """The MFU a pilot sets, as the bill draws it: the calibrated value ``got['value']``
    (``pilot_mfu``'s answer, or a report's ``_mfu_calibration``) peaked in its extrapolation
    band, a split-conformal 90% interval (``calibrate.BAND_HALF_WIDTH``), drawn as the step-time
    model's band is (``montecarlo.band_drawn``: two-piece, half the draws on each side of m, the
    band's ends their P5 and P95), or the value itself when the band has no width (the pilot
    ran the run's own plan: its measurement)."""
    m = float(got["value"])
    lo, hi = float(got.get("low", m)), float(got.get("high", m))
    if not hi > lo:
        return m
    return band_drawn(min(lo, m), m, max(hi, m))


#: The scenario keys of a pilot (``pilot_given``) and their values once its MFU is resolved.
PILOT_CLEARED = {"pilot": [], "ledger_pilot_tokens_per_s_per_gpu": None,
                 "ledger_pilot_n_gpus": None}


def without_pilot(p: dict, defaults: dict | None = None) -> dict:
    """The scenario ``p`` with its pilot resolved once, on its own plan and accelerator: ``mfu``
    the pilot's calibrated MFU over its band (``pilot_mfu``, ``pilot_mfu_range``), the pilot keys
    cleared (``PILOT_CLEARED``) and ``_mfu_pilot`` holding ``pilot_mfu``'s record (its ``from``
    in words). A scenario changed after this (another plan, another accelerator: the savings
    levers) keeps that MFU or scales it, and never applies the pilot's throughput to hardware or
    a plan the pilot did not run. ``defaults`` complete the keys ``p`` leaves out (the model,
    sequence length, dtype; the plan keys take the notebooks' defaults in ``pilot_mfu``).
    ``p`` without a pilot is returned unchanged.

    Raises
    ------
    ValueError
        As ``pilot_mfu`` (a bad pilot, naming the field).
    """
    if not pilot_given(p):
        return p
    got = pilot_mfu({**(defaults or {}), **p})
    return {**p, **PILOT_CLEARED, "mfu": pilot_mfu_range(got), "_mfu_pilot": got}
