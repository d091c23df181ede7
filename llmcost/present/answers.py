"""Each notebook's answer to its title question, for the scenario, in one sentence with the number.

The first cell after a notebook's set-up renders one of these as Markdown from the kernel
(``display(Markdown(answers.flops(...)))``): the answer comes before the derivation, and every
figure in it is computed, never typed. Each function takes what the notebook's set-up computed
with the package (the run, the plan, the step, the bill) and words it; the formula behind each
number is written here and in the function that computed it (two hops).
"""

from __future__ import annotations

import math
import textwrap

import pandas as pd

from ..bill.ledger import SECONDS_PER_MONTH
from ..bill.scenario import LEDGER_DEFAULTS
from ..bill.validation import IDEAL_RUN_WORDS, long_run_words
from ..serving.setups import OWN_PRICE_WORDS
from ..core.units import (SECONDS_PER_DAY, fmt_count, fmt_duration, fmt_flops, fmt_fraction_pct,
                          fmt_gpus, fmt_period, fmt_quantity, fmt_signed_pct, fmt_usd)
from ..training.accuracy import MIN_CONFORMAL_ROWS, central_mfu, median_error, shift_words
from ..training.memory import MOE_CHECK_LOAD_FACTOR
from ..training import reliability as rel
from ..training.straggler import N_CALIBRATION


def md_usd(usd: float) -> str:
    """``core.units.fmt_usd`` for Markdown: the dollar sign escaped (``\\$``), so that a
    renderer with TeX math (Jupyter, nbconvert) never reads the text between two prices as a
    formula, nor a ``**`` beside a ``$`` as anything but bold."""
    return fmt_usd(usd).replace("$", "\\$")


def distinct_usd(a: float, b: float) -> tuple[str, str]:
    """``md_usd`` of ``a`` and ``b``, or, where they print alike (a trial read "$0.05 ... (the
    roofline's floor: $0.05)" for $0.054 and $0.050), both with more decimals (up to three
    more below $1,000: "\\$0.054" against "\\$0.050"; never fewer than ``md_usd`` gives, never
    in scientific notation); prices of $1,000 and more as ``md_usd`` prints them."""
    x, y = md_usd(a), md_usd(b)
    if x != y or a == b or max(abs(a), abs(b)) >= 1000:
        return x, y
    for d in (3, 4, 5):
        x, y = (f"\\${v:,.{d}f}" for v in (a, b))
        if x != y:
            break
    return x, y


def md_text(text) -> str:
    """Words for Markdown with every dollar sign escaped, as ``md_usd``'s: a lever named "the
    cheapest listed provider (RunPod, $2.69/GPU-h)" beside a price would open TeX math."""
    return str(text).replace("\\$", "$").replace("$", "\\$")


def flops(model: str, accelerator: str, n_gpus: int, train_tokens: float, mfu: float,
          price_usd_per_gpu_hour: float, run: dict) -> str:
    """Notebook 01: the run's model FLOPs F (``run["model_flops"]``, ``compute.training_run``:
    the count MFU is a fraction of, attention matrix included), beside the 6ND papers quote
    (``run["training_flops_6nd"]``, which notebook 06's C is), its GPU-hours
    H = F / (peak × MFU) / 3600, its days H / n_gpus / 24 and its cost H × price."""
    return (f"{model} on {fmt_count(train_tokens)} tokens takes **{fmt_flops(run['model_flops'])}**"
            f" (counted as MFU counts them, attention included; 6ND: "
            f"{fmt_flops(run['training_flops_6nd'])})"
            f": at {fmt_fraction_pct(mfu)} MFU on {accelerator} that is "
            f"**{fmt_quantity(run['gpu_hours'])} GPU-hours** "
            f"({fmt_quantity(run['wall_clock_days'])} days on {fmt_gpus(n_gpus)} with no "
            "failures) and "
            f"**{md_usd(run['compute_cost_usd'])}** at {md_usd(price_usd_per_gpu_hour)} per "
            "GPU-hour." + _long_run_note(run["wall_clock_days"], n_gpus))


def _long_run_note(days: float, n_gpus: int) -> str:
    """The bill's long-run warning (``validation.long_run_words``) as a closing sentence, or
    "" for a run under 9 months: notebook 01 alone (papermill, a class) said a 2,600-year run
    without a word where ``llmcost estimate`` warns."""
    words = long_run_words(days, n_gpus, IDEAL_RUN_WORDS)
    return f" **Note:** {md_text(words[0].upper() + words[1:])}." if words else ""


def memory(model: str, accelerator: str, n_gpus: int, plan: str, per_gpu_bytes: float,
           hbm_bytes: float, usable_bytes: float, moe_extra_bytes: float | None = None,
           fp8_copy_bytes: float = 0.0) -> str:
    """Notebook 03: whether the plan's busiest GPU holds its weights, gradients, optimizer state
    and activations (``memory.memory_per_gpu(...).total``) within the HBM left after the
    reserve, ``usable_bytes = hbm_bytes × (1 − mem_reserve_fraction)`` (``memory.fits``).
    Decimal GB; the HBM also in GiB, as datasheets print it. ``moe_extra_bytes``: for a MoE
    model, the activations busier experts add (``memory.moe_imbalance_extra_bytes``); when they
    exceed what the plan leaves, the sentence says it fits only with a perfectly balanced
    router. ``fp8_copy_bytes``: the FP8 weight copies the count leaves out
    (``step_scenario.fp8_copy_bytes_per_gpu``); when they exceed what the plan leaves, the
    sentence says the plan may not fit (a trial read "fits" here beside the report's warning
    that the copy does not)."""
    fits = per_gpu_bytes <= usable_bytes
    verb = "fits" if fits else "does **not** fit"
    out = (f"{model} {verb} on {n_gpus:,} × {accelerator} with {plan}: "
           f"**{per_gpu_bytes / 1e9:.0f} GB of {hbm_bytes / 1e9:.0f} GB** on the busiest GPU "
           f"({hbm_bytes / 2**30:.0f} GiB; {usable_bytes / 1e9:.0f} GB usable after the "
           "reserve).")
    left = usable_bytes - per_gpu_bytes
    if fits and moe_extra_bytes is not None and moe_extra_bytes > left:
        out += (f" **Only with a perfectly balanced router:** experts at "
                f"{MOE_CHECK_LOAD_FACTOR}× the mean load would add about "
                f"{moe_extra_bytes / 1e9:.1f} GB of activations, more than the "
                f"{left / 1e9:.1f} GB left (section 7).")
    if fits and fp8_copy_bytes > left:
        out += (f" **It may not fit under FP8:** the FP8 weight copies Transformer Engine caches "
                f"({fp8_copy_bytes / 1e9:.1f} GB per GPU) are not in this count and are more "
                f"than the {left / 1e9:.1f} GB left (the report's warnings say which copies).")
    return out


def communication(plan: str, step_time_s: float, exposed_comm_s: float, straggler_s: float
                  ) -> str:
    """Notebook 04: the shares of the predicted step (``step.step_time``) spent waiting:
    exposed communication ``exposed_comm_s / step_time_s`` (collectives and sends that no
    compute hides) and the wait for the slowest GPU ``straggler_s / step_time_s``, which is
    negative on fewer GPUs than the kernel constant's fit (``straggler.N_CALIBRATION``: its
    times already hold the wait for the slowest of that many), said as the wait removed."""
    wait = straggler_s / step_time_s
    slowest = (f"**{wait:.1%}** for the slowest GPU" if wait >= 0 else
               f"**{-wait:.1%} less** for the slowest GPU than the kernel constant's "
               f"{N_CALIBRATION}-GPU fit waited (fewer GPUs, a faster slowest)")
    return (f"On the scenario's plan ({plan}) the GPUs wait **{exposed_comm_s / step_time_s:.1%} "
            f"of every step** for communication that no compute hides, and {slowest}.")


def step_time(plan: str, chosen: bool, step_time_s: float, mfu: float, mfu_low: float,
              mfu_high: float, tokens_per_s: float, center: float = 0.0, n: int = 0,
              calibrated: dict | None = None, cap_from: str = "",
              bill_is_prediction: bool = True) -> str:
    """Notebook 04b: the predicted step time of the busiest GPU and the MFU it implies,
    MFU = model FLOPs per step / (step time × GPUs × dense peak) (``step.step_time``), with the
    band of the published runs of its regime (``accuracy.band_for_step``). ``chosen``: the plan
    was picked by predicted step time (``parallel.choose_plan``: the fastest plan that keeps the
    scenario's fixed fields and fits in memory as its stack stores it, notebook 03's count,
    ``step_scenario.scenario_memory``; section 5's ranking counts it alike and says how its
    first plan relates, ``step_scenario.fastest_versus_scenario``), not fixed by the scenario. With the band's
    ``center`` c (median held-out error, shrunk below 9 runs: ``accuracy.shift_factor``)
    and its ``n`` held-out runs (n > 0), also the MFU a
    ``mfu: predict`` bill uses, the band's central estimate p / (1 + c) kept inside it
    (``accuracy.central_mfu``). A band whose top is under the prediction (capped by the best
    comparable published run, ``accuracy.mfu_band``) says so, in ``cap_from``'s words (the band's
    ``MfuBand.cap_source``: the best comparable run, or the model's own low end where that is
    above it; "" reads "the best comparable published run"). ``bill_is_prediction`` False (the
    scenario gives its own MFU): the band is the one a ``mfu: predict`` bill would draw, not the
    bill's (a trial's bill at a given 30.0% drew 23.1%-31.5% while this page called the
    prediction's 27.6%-35.8% "the band a bill draws").

    ``calibrated``: the MFU the bill uses when the scenario gives pilots (``bill.pilot.pilot_mfu``:
    ``value``, ``low``, ``high``); the answer then leads with it, at its step time on the same
    plan and batch, ``step_time_s × mfu ÷ value`` (MFU ∝ 1 ÷ step time), and gives the
    uncalibrated prediction second (``step_time_pilots``)."""
    capped_below = (f", capped below the prediction at "
                    f"{cap_from or 'the best comparable published run'}" if mfu > mfu_high else "")
    # a prediction above its band's top: said as what it is (a trial read "48.1% (band
    # 29.7%-38.4%, capped below the prediction ...)" as a band that misses its own point)
    whose = "a bill draws" if bill_is_prediction else "a `mfu: predict` bill would draw"
    band = (f"MFU of **{mfu:.1%}**, above what any comparable published run has measured: the "
            f"band {whose}, {mfu_low:.1%}–{mfu_high:.1%}, lies below it{capped_below}"
            if mfu > mfu_high else f"MFU of **{mfu:.1%}** (band {mfu_low:.1%}–{mfu_high:.1%})")
    if calibrated is not None:
        return step_time_pilots(plan, chosen, step_time_s, mfu, mfu_low, mfu_high, tokens_per_s,
                                calibrated, capped_below)
    how = ("the fastest plan that keeps the scenario's fixed fields and fits in memory as its "
           "stack stores it (notebook 03's count)" if chosen else "the plan the scenario fixes")
    # the throughput beside the step it comes from, not after the band's words (a trial read
    # "... and so does the bill's MFU, 9.629M tokens/s" as the MFU's figure)
    text = (f"One optimizer step takes **{step_time_s:.3g} s** ({fmt_count(tokens_per_s)} "
            f"tokens/s) on {how}, {plan}: a predicted {band}.")
    if not n:
        return text
    point, central, capped = central_mfu(mfu, center, mfu_low, mfu_high)
    med = median_error(center, n)   # c is this median, shrunk below 9 runs (shift_words)
    side = "more" if med >= 0 else "less"
    uses = (f"would use p ÷ (1 + c) = {central:.1%}, but that is above the band's capped top: it "
            f"uses the top, **{point:.1%}**" if capped else
            f"uses the band's central estimate p ÷ (1 + c), **{point:.1%}**")
    runs = f"{n} run{'s' if n != 1 else ''}"
    if n < MIN_CONFORMAL_ROWS:   # too few to measure the error from: c is the median shrunk
        runs += f"; c = {center:+.1%}, {shift_words(center, n)}"
    return (text + f" Its regime's held-out published runs took a median {abs(med):.1%} "
            f"{side} time per step than predicted ({runs}), so a `mfu: predict` bill "
            f"{uses}.")


def step_time_pilots(plan: str, chosen: bool, step_time_s: float, mfu: float, mfu_low: float,
                     mfu_high: float, tokens_per_s: float, calibrated: dict,
                     capped_below: str = "") -> str:
    """Notebook 04b's answer with pilots (``step_time``'s ``calibrated``): the bill's step,
    ``t = step_time_s × mfu ÷ m`` at the pilots' calibrated MFU ``m`` on the same plan and batch
    (model FLOPs per step fixed, so MFU ∝ 1 ÷ step time; tokens/s × m ÷ mfu), with the
    calibration's band, then the uncalibrated step-time model's prediction and its band
    (``capped_below``: ``step_time``'s words for a band capped under the prediction)."""
    m = float(calibrated["value"])
    lo, hi = float(calibrated.get("low", m)), float(calibrated.get("high", m))
    how = ("the fastest plan that keeps the scenario's fixed fields and fits in memory as its "
           "stack stores it (notebook 03's count)" if chosen else "the plan the scenario fixes")
    band = f" (band {lo:.1%}–{hi:.1%})" if hi > lo else " (the pilots' measured MFU, no band)"
    return (f"Calibrated on the scenario's pilots, one optimizer step takes "
            f"**{step_time_s * mfu / m:#.3g} s** on {how}, {plan}: an MFU of **{m:.1%}**{band}, "
            f"{fmt_count(tokens_per_s * m / mfu)} tokens/s, the MFU the bill uses (section 6). "
            f"The uncalibrated step-time model of sections 1-5 predicts {step_time_s:#.3g} s, "
            f"an MFU of {mfu:.1%} (band {mfu_low:.1%}–{mfu_high:.1%}{capped_below}); the "
            f"pilots measured {'less' if m < mfu else 'more'} than it prices.")


def _every(interval_s: float) -> str:
    """A mean time between interruptions in hours from an hour up ("791.7 h"), else as
    ``fmt_duration`` (never "0.0 h")."""
    return f"{interval_s / 3600:,.1f} h" if interval_s >= 3600 else fmt_duration(interval_s)


def _seconds(s: float) -> str:
    """Seconds as a reader reads them: whole from 100 s ("1,234"), else three significant
    figures ("85.3", "0.159": a trial read a DPO iteration of 0.159 s as "0 s")."""
    return f"{s:,.0f}" if abs(s) >= 100 else f"{s:.3g}"


def checkpoints(n_gpus: int, mtbf_s: float, planned_per_day: float, interval_s: float,
                goodput: float, ideal_gpu_hours: float, price_usd_per_gpu_hour: float,
                spot: bool = False) -> str:
    """Notebook 07: the job's mean time between unexpected failures, M = 1 / (n·λ)
    (``CheckpointPlan.mtbf_s``; on spot, ``spot``, λ counts the node pre-emptions too:
    ``ledger.failure_values``), its planned interruptions per day, its checkpoint interval and
    goodput, and what failures, restarts and checkpoints add to the run: paid GPU-hours = ideal ÷
    goodput, so the extra is ideal × (1 / goodput − 1), priced at the GPU-hour. The checkpoints
    the ideal run (ideal GPU-hours ÷ n_gpus) takes are counted, ⌈T/τ⌉ − 1
    (``reliability.checkpoints_in_run``), and a run that takes none is said so."""
    extra = ideal_gpu_hours * (1 / goodput - 1)
    fails = math.isfinite(mtbf_s)  # fail_rate_per_gpu_year: 0 read "fails every inf h"
    run_s = rel.run_work_s(ideal_gpu_hours, n_gpus)   # the ideal run's wall clock
    # a run shorter than an interval (a trial: every 2,119 min on a 10-hour run) takes none
    words = rel.checkpoint_interval_words(interval_s, run_s, run="the ideal run's")
    how = ("checkpointing " + words if rel.checkpoints_in_run(run_s, interval_s) else
           "taking " + words + (" (a failure replays it from the start)" if fails else ""))
    return (f"On {fmt_gpus(n_gpus)} the job "
            + (f"fails {'or is pre-empted ' if spot else ''}every **{_every(mtbf_s)}** on "
               "average" if fails else "is not expected to fail (a failure rate of 0)")
            + f" (and stops {planned_per_day:g} times a day for planned work"
            + (": Llama 3's rate for its whole 16,384-GPU job, `fail_planned_per_day`'s "
               "default value, the same whatever the job's size" if planned_per_day ==
               LEDGER_DEFAULTS["fail_planned_per_day"] else "")
            + f"); {how} keeps goodput at **{goodput:.1%}**, so failures, "
            f"restarts and checkpoints add **{fmt_quantity(extra)} GPU-hours** "
            f"({md_usd(extra * price_usd_per_gpu_hour)}) to the run.")


def no_checkpoints(n_gpus: int, goodput: float, ideal_gpu_hours: float, failures_usd: float,
                   interrupt_s: float, ckpt_goodput: float, price_usd_per_gpu_hour: float,
                   spot: bool = False) -> str:
    """Notebook 07 for a scenario that takes no checkpoints (``ledger_resumable: false``): the
    bill's figures first, since every failure or planned stop restarts the run from scratch
    (``ledger._restart_from_scratch_goodput``: goodput T ÷ E[wall]; paid = ideal ÷ goodput; the
    failures line ``failures_usd``), then what the checkpoint plan this page derives would keep,
    ``ckpt_goodput``, and the difference priced at the GPU-hour:
    saving = ideal × (1 / goodput − 1 / ckpt_goodput) × price."""
    saving = ideal_gpu_hours * (1 / goodput - 1 / ckpt_goodput) * price_usd_per_gpu_hour
    every = _every(interrupt_s)
    return (f"The scenario takes **no checkpoints** (`ledger_resumable: false`): on "
            f"{fmt_gpus(n_gpus)} a failure{', a pre-emption' if spot else ''} or a planned stop "
            f"comes every **{every}** and "
            f"restarts the run from scratch, so its goodput is **{goodput:.1%}** and they add "
            f"**{fmt_quantity(ideal_gpu_hours * (1 / goodput - 1))} GPU-hours** "
            f"({md_usd(failures_usd)}, the bill's failures line). With the checkpoints this "
            f"page derives, goodput would be {ckpt_goodput:.1%}: "
            + (f"{md_usd(saving)} less." if saving > 0 else
               f"{md_usd(-saving)} more (checkpoints cost this short run more than they save)."))


def published_runs(summary: pd.DataFrame, like: dict | None = None) -> str:
    """Notebook 08: the median absolute relative error |predicted / published − 1| of the
    held-out steady-state MFUs and of the whole runs' GPU-hours predicted on their published
    plan (``claims.error_table_summary``), then, with ``like``
    (``accuracy.like_scenario_error``), the mean |error| on the held-out runs like the
    scenario's, or that none is."""
    mfu = summary.loc["steady-state MFU, held-out"]
    runs = summary.loc["whole-run GPU-hours, published plan"]
    text = (f"The step-time model is off by a median **{mfu['median_abs_error']:.1%}** on "
            f"{int(mfu['n'])} held-out published MFUs, and by "
            f"**{runs['median_abs_error']:.1%}** on the GPU-hours of the {int(runs['n'])} whole "
            "runs with a published plan.")
    if like is None:
        return text
    if not like["n"]:
        return text + (f" No held-out published run is like this scenario's "
                       f"({like['words']}): its MFU rests on runs unlike it.")
    # "(...): a mean 7.2%, at most 21.7%" left the reader to supply what the mean was of
    # "like this one" on the index counts the MFU band's runs, the sharding included: said
    return text + (f" On the {like['n']} held-out run{'s' if like['n'] > 1 else ''} like this "
                   f"scenario's in all but the sharding ({like['words']}) it is off by a mean "
                   f"**{like['mean_abs_error']:.1%}**, at most {like['max_abs_error']:.1%}.")


def published_runs_goal(errors: pd.DataFrame, summary: pd.DataFrame, band: float = 0.20,
                        misses: int = 3) -> str:
    """Notebook 08: how far the goal (GPU-hours within ``±band`` for the rows with a published
    plan) is met, on the held-out steady-state rows and on the whole runs with a published plan
    (``claims.error_table_summary``'s counts; each error is predicted ÷ published GPU-hours − 1,
    ``claims.published_run_errors``): each whole run's error, and the held-out rows' ``misses``
    largest misses. The calibration rows are in-sample and not counted."""
    held = summary.loc["steady-state MFU, held-out"]
    runs = summary.loc["whole-run GPU-hours, published plan"]
    scored = errors[errors["scored"] != ""]
    whole = scored[(scored["scored"] == "gpu_hours") & scored["has_plan"]].dropna(subset=["error"])
    inside = whole[whole["error"].abs() <= band]
    outside = whole[whole["error"].abs() > band]
    mfu = scored[(scored["scored"] == "mfu") & (scored["split"] != "calibration")]
    worst = mfu.loc[mfu["error"].abs().sort_values(ascending=False).index[:misses]]

    def listed(rows: pd.DataFrame, name: str) -> str:
        return ", ".join(f"{r[name]} {r['error']:+.1%}" for _, r in rows.iterrows()) or "none"

    return (f"**How far the goal is met** (±{band:.0%} in GPU-hours). Held-out steady-state "
            f"MFUs: **{int(held['within_band'])} of {int(held['n'])}** within it (median "
            f"|error| {held['median_abs_error']:.1%}; the largest misses: "
            f"{listed(worst, 'run_id')}). Whole runs with a published plan: "
            f"**{int(runs['within_band'])} of {int(runs['n'])}** within it "
            f"({listed(inside, 'model')}); outside it: {listed(outside, 'model')}.")


def published_runs_gaps(errors: pd.DataFrame, goodput: dict, fp8_over_bf16: float,
                        fp8_run: str = "deepseek-v3-pretrain") -> str:
    """Notebook 08, section 3: the figures behind the systematic gaps, from the error table
    (``claims.published_run_errors``; error = predicted ÷ published GPU-hours − 1).

    * each whole run with a published plan: its goodput (``goodput[run_id]``, from
      ``claims.goodput_for``, productive ÷ wall time) and its error;
    * ``fp8_run``: its U on the BF16 peak and on the FP8 peak (U ÷ ``fp8_over_bf16``, the ratio of
      the accelerator's FP8 and BF16 dense peaks), and the leave-one-out median of the other
      whole runs of its generation, M, with the error that median would give:
      U ÷ M − 1 (hours scale as 1/U), and the two lowest U = D·F(s) / (H·3600·P_bf16) of
      those other runs (multi-phase model-card totals sit there)."""
    scored = errors[errors["scored"] == "gpu_hours"]
    plan = scored[scored["has_plan"]]
    lines = ["- **Whole runs with a published plan** (goodput, then the error in GPU-hours): "
             + "; ".join(f"{r['model']} on {fmt_gpus(int(r['n_gpus']))}: goodput "
                         f"{goodput[r['run_id']]:.1%}, error {r['error']:+.1%} ("
                         + ("too many hours" if r["error"] > 0 else "too few hours") + ")"
                         for _, r in plan.iterrows()) + "."]
    if fp8_run in set(scored["run_id"]):
        r = scored.set_index("run_id").loc[fp8_run]
        others = scored[(scored["generation"] == r["generation"]) & (scored["run_id"] != fp8_run)]
        med = float(others["published_mfu"].median())
        u = float(r["published_mfu"])
        lines.append(f"- **{r['model']}**: U {u:.1%} of the BF16 peak (MFU basis), "
                     f"{u / fp8_over_bf16:.1%} of the FP8 peak. The median of the "
                     f"{len(others)} other {r['generation']} whole runs is {med:.1%}: without "
                     f"its plan it would be predicted {fmt_signed_pct(u / med - 1)} in GPU-hours "
                     f"({u:.1%} ÷ {med:.1%}), not the FP8 factor {fp8_over_bf16:.0f}×; the "
                     "lowest of those runs: "
                     + ", ".join(f"{o['model']} {o['published_mfu']:.1%}"
                                 for _, o in others.nsmallest(2, "published_mfu").iterrows())
                     + ".")
    return "\n".join(lines)


def hardware_sweep(sweep: pd.DataFrame, width: int = 100) -> str:
    """Notebook 09 §4 in sentences, from ``levers.hardware_sweep``'s table: the cheapest row at
    catalogue prices (one price basis, at the MFU it bills: the prediction's central estimate,
    or the pilots' calibration on their own hardware, its ``billed_mfu_basis``) whatever its
    checks, with its bill at the calibrated MFU (``bill_calibrated_usd``: the scenario's MFU ×
    the predicted ratio) beside it where the two differ; the scenario's own accelerator on each price basis at the scenario's MFU
    (``bill_calibrated_usd``); the cheapest *rankable* row (buyable price, MFU within a published
    run) at its calibrated MFU, said to be no saving where it costs more than the scenario's own
    bill. A scenario that fixes its plan has each row's ``plan_basis`` said (the plan kept, or
    re-chosen where it does not run). Each line wrapped to ``width`` characters, never cut."""
    def wrap(text):
        return textwrap.fill(text, width, subsequent_indent="    ")

    def plan(r):  # "" where every plan is the search's (the scenario leaves its plan free)
        basis = r.get("plan_basis", "chosen by predicted step time")
        return "" if basis == "chosen by predicted step time" else f"; plan: {basis}"

    cat = sweep[sweep["price_basis"] != "the scenario's price"]  # every row on one price basis
    ok = sweep[sweep["rankable"]].sort_values("bill_calibrated_usd")
    r = cat.iloc[0]
    # the like-for-like figure beside it (a trial set B200's $214k at its predicted 57.2% beside
    # the scenario's $559k at its own 40%: the calibrated $281k is the same basis as that line)
    same = ("" if abs(r["calibrated_mfu"] - r["mfu"]) < 5e-4 or r["scenario"] else
            f"; at the calibrated {r['calibrated_mfu']:.1%} ({r['mfu_basis']}), the basis of "
            f"the scenario's own line below: {fmt_usd(r['bill_calibrated_usd'])}")
    basis = "owned (amortised) prices" if str(r["price_basis"]).startswith("owned") else \
        "catalogue prices"
    out = [wrap(f"cheapest at {basis}, at the MFU the sweep gives each accelerator: "
                f"{r['accelerator']} at "
                f"${r['price_usd_per_gpu_hour']:.2f}/GPU-h ({r['price_basis']}), MFU "
                f"{r['mfu']:.1%} ({r['billed_mfu_basis']}; raw prediction "
                f"{r['predicted_mfu']:.1%}): "
                f"{fmt_usd(r['bill_usd'])}{same}; price "
                + ("buyable" if r["price_available"] else
                   "listed, but the provider had no capacity when it was collected")
                + "; MFU " + (f"{r['mfu_check']}" if abs(r["calibrated_mfu"] - r["mfu"]) < 5e-4
                              else f"checked at the calibrated {r['calibrated_mfu']:.1%}: "
                                   f"{r['mfu_check']}") + plan(r))]
    out += [wrap(f"{r['accelerator']} (this scenario) at {r['price_basis']}, "
                 f"${r['price_usd_per_gpu_hour']:.2f}/GPU-h, the scenario's MFU: "
                 f"{fmt_usd(r['bill_calibrated_usd'])}")
            for _, r in sweep[sweep["scenario"]].iterrows()]
    best = ok.iloc[0] if len(ok) else None
    # the scenario's own bill: its row at its own price where it gives one (a review: the
    # cheaper catalogue row of its accelerator said "no saving" beside a dearer own bill)
    mine = sweep[sweep["scenario"]]
    given = mine[mine["price_basis"] == "the scenario's price"]
    own = (given if len(given) else mine)["bill_calibrated_usd"].min()
    # a trial read "cheapest rankable: H200 at $6.77M" as a saving on a $3.90M bill
    dearer = ("; above this scenario's own bill, so no saving" if best is not None
              and own == own and best["bill_calibrated_usd"] > own else "")
    out.append(wrap("cheapest rankable (buyable price, MFU within a published run), at the "
                    "calibrated MFU: " + (
                        f"{best['accelerator']} at {fmt_usd(best['bill_calibrated_usd'])} (MFU "
                        f"{best['calibrated_mfu']:.1%}, {best['mfu_basis']}; "
                        f"{best['price_basis']}{plan(best)}){dearer}"
                        if best is not None else "none")))
    return "\n".join(out)


def sweep_row(r) -> str:
    """One row of ``levers.hardware_sweep`` in a line (notebook 09 §4): its whole bill at the
    MFU it bills (``mfu``: the prediction's central estimate, or the pilots' calibration on
    their own hardware), the days and the raw prediction; where that MFU lies above the best
    comparable published run (``mfu_ceiling``, the same dtype basis), it says so (a trial read
    H100's 35.8%, the band's top set by the model's own low end, beside a lever that raised
    the MFU only to that run's 31.5%, as the best case). On the scenario's own accelerator at
    its own price (``scenario``, price basis "the scenario's price") whose own MFU
    (``calibrated_mfu``) is not the one billed here, the bill at that MFU too, the scenario's
    own bill (a new-user trial read its own H200 at $1.68M here, $1.54M everywhere else, with
    nothing saying why)."""
    ceiling = r.get("mfu_ceiling")
    above = (f"; above the best comparable published run, {ceiling:.1%}"
             if ceiling is not None and ceiling == ceiling and r["mfu"] > ceiling + 5e-4 else "")
    own = r.get("calibrated_mfu")
    own = (f"; at the scenario's own MFU, {own:.1%}, the basis of its bill: "
           f"{fmt_usd(r['bill_calibrated_usd'])}"
           if r.get("scenario") and r.get("price_basis") == OWN_PRICE_WORDS
           and own is not None and own == own and abs(own - r["mfu"]) >= 5e-4 else "")
    return (f"{r['accelerator']}: {fmt_usd(r['bill_usd'])}, {r['days']:.1f} days, MFU "
            f"{r['mfu']:.1%} (predicted {r['predicted_mfu']:.1%}{above}){own}; price "
            f"({r['price_basis']}): {r['price_source']}")


def paid_months_words(project_months: float, people) -> str:
    """Notebook 00 step 7: how long the fixed lines pay, in words: the storage and operations
    lines ``project_months``; the people line the same, or, where ``ledger_people`` roles give
    their own ``months`` (the people line pays each role for them), those months (a
    long-context trial read "the people ... lines pay 1.36 months" beside its 6 FTE × 6
    months)."""
    own = sorted({float(r["months"]) for r in people or []
                  if isinstance(r, dict) and isinstance(r.get("months"), (int, float))})
    paid = fmt_period(project_months, "months")
    if not own:
        return f"the people, storage and operations lines pay {paid}"
    said = " to ".join(fmt_period(m, "months") for m in dict.fromkeys((own[0], own[-1])))
    rest = any(isinstance(r, dict) and not isinstance(r.get("months"), (int, float))
               for r in people)
    return (f"the storage and operations lines pay {paid}, the people line its roles' own "
            f"months ({said}" + (f"; {paid} for a role that gives none" if rest else "") + ")")


def schedule_months_hint(schedule_days: float, project_months: float, given: bool) -> str:
    """Notebook 00 step 7: where the compute schedule (``ledger.spend_timeline``'s
    ``schedule_days``: exploration, the final run and post-training one after the other on the
    cluster) outlasts the months the people, storage and operations lines pay
    (``project_months``): the value of ``ledger_project_months`` that would pay them over it,
    or, where the scenario sets a shorter one (``given``), that it is shorter; "" where the
    schedule fits (a new-user trial's people were paid over the final run's 1.07 months
    beside this schedule's 2.34)."""
    months = schedule_days * SECONDS_PER_DAY / SECONDS_PER_MONTH
    if months <= project_months * 1.01:
        return ""
    if given:   # the scenario's own months, shorter than its schedule: said, not hidden
        return (f"the schedule alone spans {fmt_period(months, 'months')}, longer than the "
                f"{fmt_period(project_months, 'months')} ledger_project_months gives the "
                "people, storage and operations lines")
    return (f"the schedule alone spans {fmt_period(months, 'months')}: "
            f"ledger_project_months: {months:.3g} pays the people, storage and operations "
            "lines over it")


def top_level_points(words: str, sep: str = "; ") -> list:
    """``words`` split at each ``sep`` outside parentheses: the points of a long sentence, one
    per line on a projector (a teacher: notebook 03's pipeline advice ran 17 unbroken lines;
    splitting at every "; " broke its parenthesised plans apart)."""
    out, depth, start, i = [], 0, 0, 0
    while i < len(words):
        ch = words[i]
        depth += (ch == "(") - (ch == ")")
        if depth == 0 and words.startswith(sep, i):
            out.append(words[start:i])
            i = start = i + len(sep)
            continue
        i += 1
    return out + [words[start:]]


def lever_days(days_saved: float) -> str:
    """"; the main run 4.2 days longer" (or "shorter") for a lever whose main run's wall clock
    (failures included: ``Lever.days_saved``, the before − after of ``wall_clock_days``) moves
    by 0.05 days or more; "" otherwise (a new-user trial's headline lever saved $189k by moving
    to cheaper H100s and did not say the run took 4.2 days longer)."""
    if not days_saved == days_saved or abs(days_saved) < 0.05:
        return ""
    return (f"; the main run {abs(days_saved):,.1f} days "
            f"{'shorter' if days_saved > 0 else 'longer'}")


#: What a saving is on committed capacity (``savings``): the bill charges reserved or owned
#: GPUs by the hours it uses, so a lever that saves hours saves money only where the
#: commitment shrinks with it (a finance trial read "train in FP8: $7.46M" on a cluster bought).
COMMITTED_WORDS = {"reserved": "a reservation", "owned": "a purchase"}


def savings(bill_total_usd: float, top: pd.DataFrame, pricing: str | None = None) -> str:
    """Notebook 09: the lever with the largest saving S = B(s) − B(ℓ(s)) on the whole bill
    (``levers.top_levers``, first row) and its share S / B(s); none when no lever saves. With
    ``pricing`` reserved or owned and a lever that saves GPU-hours (``gpu_hours_saved`` > 0,
    where the table has it), a sentence says that GPU-hours saved on committed capacity free it
    for other work, and are cash only where the commitment shrinks (``COMMITTED_WORDS``)."""
    if not len(top):
        return (f"No lever saves money on this bill of {md_usd(bill_total_usd)}: every change "
                "priced here costs more than it saves.")
    r = top.iloc[0]
    # only a lever that saves GPU-hours (a cheaper price saves cash on any capacity)
    committed = COMMITTED_WORDS.get(pricing or "") if float(
        r.get("gpu_hours_saved", 1.0)) > 0 else None
    # the lever's name may be a noun ("the cheapest listed provider") or a verb ("raise MFU
    # to 42%"): a lecturer read "the largest saving ... is raise MFU"
    return (f"The largest saving on this bill of {md_usd(bill_total_usd)}, "
            f"**{md_usd(r['saving_usd'])}** ({r['share_of_bill']:.1%} of the bill), comes from "
            f"one lever: **{md_text(r['lever'])}**; its risk: {md_text(r['risk'])}."
            + (f" On {pricing} capacity the bill charges the GPU-hours it uses: hours a lever "
               f"saves free the GPUs for other work, and are cash only where {committed} "
               "shrinks with them." if committed else ""))


def glossary(g: pd.DataFrame) -> str:
    """Notebook 10: how many terms the glossary (``glossary.load_glossary``) holds, in how many
    topics, and how many carry a formula and the ``llmcost`` function that computes them."""
    return (f"**{len(g)} terms** in {g['topic'].nunique()} topics, each with its definition and "
            f"its Chinese name; {(g['formula'] != '').sum()} with a formula and "
            f"{(g['function'] != '').sum()} with the `llmcost` function that computes it.")


def batch_size(batch_tokens: float, b_noise_tokens: float, fill_batch_tokens: float) -> str:
    """Notebook 02: the batch B against the critical batch B_noise at the run's target loss
    (``batch.scenario_batch_analysis(...).target``). McCandlish et al. 2018 §2: the tokens to
    reach the loss are E = E_min·(1 + B/B_noise) and the steps S = S_min·(1 + B_noise/B); below
    ``fill_batch_tokens`` some GPUs have no work in a step."""
    r = batch_tokens / b_noise_tokens
    return (f"The scenario's batch of **{fmt_count(batch_tokens)} tokens** is **{r:.2g}×** the "
            f"critical batch at its target loss (B_noise ≈ {fmt_count(b_noise_tokens)} tokens): "
            f"reaching that loss takes {1 + r:.2f}× the tokens a very small batch would need "
            f"(E_min) in {1 + 1 / r:.2f}× the steps a very large one would (S_min): a larger "
            "batch buys fewer steps with more data. A batch of at least "
            f"{fmt_count(fill_batch_tokens)} tokens per step fills every GPU (a smaller one "
            "leaves some idle).")


#: Below this extra training compute for the run's loss (``scaling.run_efficiency``'s
#: ``compute_overhead``), notebook 06's answer calls the run's split compute-optimal rather than
#: advising a way to move (a convention, not a fitted figure: a trial read "train bigger" for a
#: model at 0.99× the optimum, whose allocation cost 0.0% extra).
AT_OPTIMUM_OVERHEAD = 0.01


def scaling(model: str, n_params: float, train_tokens: float, fit: str, n_opt: float,
            d_opt: float, is_moe: bool = False, served_tokens: float = 0.0,
            compute_overhead: float | None = None) -> str:
    """Notebook 06: the compute-optimal split (N*, D*) of the scenario's compute C = 6·N·D under
    the loss fit ``fit`` (``scaling.compute_optimal``) against the scenario's N and D. A model
    smaller than N* should train bigger on fewer tokens, a larger one smaller on more tokens (for
    training alone; serving demand moves the optimum smaller: with ``served_tokens`` > 0 the
    sentence says so, section 7 pricing it, so "train bigger" is not read as the answer for a
    model that will serve much (a trial: 5e15 served tokens, whose dollar optimum was smaller
    than the scenario's model)). With ``compute_overhead`` (``scaling.run_efficiency``: C ÷ the
    compute of the cheapest run to the same loss − 1) below ``AT_OPTIMUM_OVERHEAD``, the run is
    said to be at the optimum instead."""
    c = 6 * n_params * train_tokens
    head = (f"For its compute, C = 6ND = {c:.3g} FLOPs, the {fit} fit's optimum is "
            f"**{fmt_count(n_opt)} parameters on {fmt_count(d_opt)} tokens** "
            f"({d_opt / n_opt:.0f} tokens per parameter)")
    if is_moe:
        return head + f"; {model} is a mixture of experts, outside the fits."
    way = "train bigger (on fewer tokens)" if n_params < n_opt else "train longer (a smaller model)"
    if compute_overhead is not None and compute_overhead < AT_OPTIMUM_OVERHEAD:
        way = (f"it is at the compute-optimal split (its allocation costs "
               f"{fmt_fraction_pct(compute_overhead)} extra compute for its loss)")
    serving = (f" Serving {served_tokens:.3g} tokens over its lifetime moves the cheapest model "
               "below this optimum, trained on more tokens: section 7 prices it in dollars."
               if served_tokens > 0 else "")
    return (head + f"; {model} at {fmt_count(train_tokens)} tokens is **{n_params / n_opt:.2g}×** "
            f"that size, so for training alone: {way}.{serving}")


def rl_loop(model: str, accelerator: str, usd_per_m_output: float, iteration_s: float,
            generation_time_share: float, campaign_usd: float, *, billed: bool = True,
            floor_usd_per_m_output: float | None = None, decode_note: str = "",
            billed_s: float | None = None, billed_note: str = "") -> str:
    """Notebook 05: the serving cost per million output tokens at the throughput an engine is
    expected to reach (``inference.serving_cost``'s ``expected_usd_per_m_output``, the price the
    bill's served-token lines use), with the roofline's price as its floor when
    ``floor_usd_per_m_output`` is given; one RL iteration's wall clock and generation's share of
    it (``rl.scenario_iteration``: wall time on the rollout GPUs, the tail included), and the
    campaign's cost (``rl.scenario_campaign``, its total), said to be the bill's RL line when
    ``billed`` (``scenario.rl_campaign_given``), else an illustration the bill does not carry;
    then ``decode_note`` (``rl.decode_factor_words``: the empirical factor on the rollout's
    decode steps, "" where there is none) as a sentence of its own. ``billed_s`` and
    ``billed_note`` (``rl.billed_iteration_s``: the iteration as the bill prices it, the model's
    time × the published runs' median measured ÷ predicted time or the scenario's own factor,
    and those words): the iteration is said at that time, the words beside it; without them
    at the model's ``iteration_s``."""
    campaign = (f"the RL campaign (the bill's RL line) costs **{md_usd(campaign_usd)}**"
                if billed else
                f"an illustrative RL campaign of the notebooks' defaults would cost "
                f"**{md_usd(campaign_usd)}**, not in the bill (the scenario gives no RL campaign)")
    price = md_usd(usd_per_m_output)
    floor = ""
    if floor_usd_per_m_output is not None:
        price, low = distinct_usd(usd_per_m_output, floor_usd_per_m_output)
        floor = f" (the roofline's floor: {low})"
    seconds = iteration_s if billed_s is None else billed_s
    scaled = f" ({billed_note})" if billed_note and seconds != iteration_s else ""
    return (f"Serving {model} on {accelerator} costs **{price} per million "
            f"output tokens** on an engine{floor}; one RL iteration takes "
            f"**{_seconds(seconds)} s**{scaled}, "
            f"{generation_time_share:.0%} of its wall time generating, and {campaign}."
            + (f" Its generation carries an empirical factor: {decode_note}." if decode_note
               else ""))


#: ``inference.ServingCost.limit`` in words: what set the batch of a serving set-up.
BATCH_LIMIT_WORDS = {"as given": "as given", "HBM capacity": "the largest that fits in HBM",
                     "compute": "the largest that fits in HBM (past the compute-bound crossover)",
                     "latency target": "the largest that meets the latency target",
                     "latency target missed": "1, the fastest, and the latency target is still "
                                              "missed"}


def serving_points(c, best, target_s: float, *, tp_given: bool = False,
                   headline_target_s: float | None = None) -> str:
    """Notebook 05: the headline's serving set-up ``c`` (an ``inference.ServingCost``: the
    answer under the title, ``choose_serving_tp`` or ``serving_cost``) beside the cheapest
    set-up ``best`` under ``target_s`` (``engines.cheapest_setup``, same occupancy: a point of
    the latency-throughput curve or a size's largest batch under the target; the fastest
    set-up, ``best["meets_target"]`` False, where none meets it),
    in plain text: whether they are the same (tp, batch) and, if so, whether their expected
    prices agree; if not, how each was chosen. Then output ÷ input on an engine and on the
    roofline, and the factor expected ÷ roofline of each (USD/M output = TPOT · tp / live batch,
    USD/M input = prefill(B prompts) · tp / (B · P), each × price / 3600 · 1e6:
    ``inference.serving_cost``)."""
    e_in, e_out, r_in, r_out = (c.expected_usd_per_m_input, c.expected_usd_per_m_output,
                                c.usd_per_m_input, c.usd_per_m_output)
    head = (f"the headline's set-up (the answer under the title): TP {c.tp}, batch {c.batch}, "
            f"{c.expected_tpot_s * 1e3:.1f} ms per token expected (roofline "
            f"{c.tpot_s * 1e3:.1f}), ${e_in:.3f}/M input, ${e_out:.3f}/M output")
    meets = best.get("meets_target", True)
    if (int(best["tp"]), int(best["batch"])) == (c.tp, c.batch):
        gap = max(abs(e_in - best["expected_usd_per_m_input"]),
                  abs(e_out - best["expected_usd_per_m_output"]))
        point = "the cheapest point above" if meets else "the point above (the fastest)"
        same = (f"{point}, at the same prices" if gap <= 1e-9 * e_out else
                f"{point}, its prices apart by up to ${gap:.4f}/M")
    else:
        how = ("the scenario's serve_tp" if tp_given else
               "the lowest blended price on the roofline over the tensor-parallel sizes")
        how += ", its batch " + BATCH_LIMIT_WORDS.get(c.limit, f"set by {c.limit}")
        if headline_target_s is not None:
            how += (f" (the {headline_target_s * 1e3:.3g} ms target "
                    + ("missed by its expected TPOT even at batch 1)"
                       if c.limit == "latency target missed" else
                       "missed by its expected TPOT at the given batch)" if c.latency_warning
                       else "met by its expected TPOT)"))
        above = (f"the lowest expected blended price whose expected TPOT meets "
                 f"{target_s * 1e3:.3g} ms, over the curve's batches and each size's largest "
                 "batch under it" if meets else
                 f"the fastest set-up, none meeting {target_s * 1e3:.3g} ms on an engine")
        same = (f"not the point above (TP {int(best['tp'])}, batch {int(best['batch'])}): the "
                f"headline's is {how}; the point above is {above}")
    ratio = (f"on the headline's set-up output costs {e_out / e_in:.2f}x input on an engine and "
             f"{r_out / r_in:.2f}x on the roofline: the engine constants of section 6.1 slow "
             f"this prefill by {e_in / r_in:.2f}x and this decode by {e_out / r_out:.2f}x")
    return "\n".join(textwrap.wrap(f"{head}: {same}; {ratio}.", 100))


def bill(model: str, accelerator: str, n_gpus: int, train_tokens: float, g: dict) -> str:
    """Notebook 00: the whole bill B (Σ of its lines, ``ledger.build_ledger``) with its P10-P90
    and median over the Monte Carlo draws of the headline (``glance.bill_glance``: the
    scenario's ranges and sourced illustrative spreads on the inputs it gives as one number,
    ``ledger.HEADLINE_RULE``, said as ``g['basis']``), and the final
    pre-training run R = paid GPU-hours × GPU-hour rate (``glance.final_run``, the same quantity
    as the ``final_run_usd`` headline) with its share R / B of the point bill. "Costs ... in
    all" only when no line is "not given" (``g['gaps']``, ``glance.bill_gaps``), as the report
    index's first sentence; else what the lines the scenario prices add up to."""
    t = next(r for r in g["lines"] if r["key"] == "total")
    run = g["final_run"]
    how = g.get("basis") or ("illustrative ranges: the scenario gives every input as one "
                             "number" if g["illustrative"] else "the scenario's ranges")
    gaps = g.get("gaps")
    cost = (f": the lines priced for this scenario add up to **{md_usd(t['point_usd'])}**"
            if gaps and (gaps["whole"] or gaps["partly"]) else
            f" costs **{md_usd(t['point_usd'])}** in all")
    return (f"Training {model} on {fmt_count(train_tokens)} tokens with {n_gpus:,} × "
            f"{accelerator}{cost}, likely "
            f"**{md_usd(t['p10_usd'])}–{md_usd(t['p90_usd'])}** (P10–P90, median "
            f"{md_usd(t['p50_usd'])}; {how}); the "
            f"{run['label']} (paid GPU-hours × price, failures and restarts included) is "
            f"**{md_usd(run['point_usd'])}**, {run['point_usd'] / t['point_usd']:.0%} of it.")


#: What the bill's MFU is, by the kind of its range (``ledger.headline_draws``' ``kinds``):
#: the scenario's own range, the step-time model's band (``mfu: predict``), a pilot's band,
#: or an MFU the scenario gives as one number (an illustrative spread around it, or none).
#: Under ``mfu: predict`` the bill's MFU is the band's central estimate (or its capped top,
#: ``accuracy.central_mfu``), not the raw prediction, and it is the mode and the median of the
#: two-piece range the bill draws (``montecarlo.predicted_mfu_range``): "mode", not "peak",
#: which reads as the band's top.
MFU_WORDS = {"scenario": "the point of the scenario's own range on mfu",
             "predicted": "the step-time model's, as mfu: predict bills it, the mode and median "
                          "of its band",
             "pilot": "the pilots' calibrated MFU, the mode of their extrapolation band"}


def pilot_calibration(tokens_per_s_per_gpu: float, calibrated_mfu: float, bill_mfu: float,
                      kind: str | None) -> str:
    """Notebook 00's step 6 in one line: a pilot's measured tokens/s per GPU, the MFU it gives
    (``compute.mfu_from_throughput``, through ``ledger.with_changes``) and the bill's MFU it
    replaces, named by what that MFU is (``MFU_WORDS`` by the kind of its range,
    ``ledger.headline_draws``' ``kinds['mfu']``; an MFU given as one number: 'the scenario
    assumes')."""
    what = MFU_WORDS.get(kind, "the scenario assumes")
    return (f"{tokens_per_s_per_gpu:,.0f} tokens/s per GPU -> MFU {calibrated_mfu:.1%} "
            f"(the bill's: {bill_mfu:.1%}, {what})" if kind in MFU_WORDS else
            f"{tokens_per_s_per_gpu:,.0f} tokens/s per GPU -> MFU {calibrated_mfu:.1%} "
            f"({what} {bill_mfu:.1%})")


def _uncarried(c, x) -> str | None:
    """Why the full run's MFU shows none of the pilot's correction, or None where it does (or
    where the run is the pilot's own, or a cap moved it): none carried (``transfer`` 0,
    ``calibrate.extrapolate``: a residual the drift explains, or pilots that disagree in sign,
    ``Extrapolation.contrary``), or so little that the MFU prints as the uncalibrated model's
    to 0.1 %
    (``Extrapolation.describe_transfer`` says how much and why). A trial read "compute x1.245"
    then "MFU 15.5% (uncalibrated 15.5%)"."""
    if x.half_width == 0 or x.capped_at is not None:
        return None
    if x.transfer == 0:
        why = (f"the pilots' mean residual ({x.residual:+.1%} in log MFU) and the factor point "
               "opposite ways" if x.contrary else
               f"the drift of the model's error from a pilot to a run like this one "
               f"(±{x.drift:.1%}) could explain all of the pilot's residual ({x.residual:+.1%} "
               "in log MFU)")
        return f"the pilot's compute correction (x{c.compute_factor:.3f}) is not carried ({why})"
    if f"{x.mfu:.1%}" == f"{x.uncalibrated_mfu:.1%}":
        return x.describe_transfer(c.compute_factor)
    return None


def _full_run_mfu(x, off: str | None) -> str:
    """The full run's MFU and band (``Extrapolation.describe``); where the correction does not
    show (``_uncarried``'s words ``off``), said as the uncalibrated model's, with why."""
    if off is None:
        return x.describe()
    return (f"MFU {x.mfu:.1%} [{x.mfu_low:.1%}, {x.mfu_high:.1%}], the uncalibrated model's"
            + (": " if x.transfer == 0 else " to the 0.1%: ") + off)


def span_words(lo, hi, fmt) -> str:
    """"lo-hi" in ``fmt`` (a format string or a function), or the one figure where both print
    alike: a pilot of the run's own size has no band (a re-trial read "1.96M-1.96M")."""
    f = fmt.format if isinstance(fmt, str) else fmt
    a, b = f(lo), f(hi)
    return a if a == b else f"{a}-{b}"


def band_side(mfu: float, low: float, high: float) -> str | None:
    """"above" or "below" where ``mfu`` lies outside [``low``, ``high``], else None: the bill's
    MFU against an illustrative pilot's band, on page 04b (``_bill_outside_pilot``) and on the
    index (``report.pilot_band_warning``)."""
    return "above" if mfu > high else "below" if mfu < low else None


#: Where a published run carried to the scenario's plan gives one figure (a run of the
#: scenario's own size: no band), the bill's MFU is said to lie off it only beyond this share
#: of it (a presentation threshold: a review read "40.0% lies below ... 40.8%", 2% apart, as a
#: finding; the step-time model's held-out rows miss their runs by more than that on average).
POINT_BAND_SHARE = 0.05


def _judged_band(low: float, high: float) -> tuple:
    """The band a bill's MFU is judged against: [low, high] itself, or, where it is one figure,
    ``POINT_BAND_SHARE`` of it either side."""
    return (low, high) if high > low else (low * (1 - POINT_BAND_SHARE),
                                           high * (1 + POINT_BAND_SHARE))


def pilot_band_words(mfu: float, low: float, high: float, drawn=None,
                     fp8_over_bf16: float | None = None) -> str | None:
    """The warning, on the index and under ``llmcost estimate``, when the bill's ``mfu`` lies
    outside [``low``, ``high``], the band an illustrative pilot extrapolates to
    (``calibrate.pilot_study``: a published run like the scenario's, its measured ÷ predicted
    MFU carried to the scenario's plan); None inside it, and None where the range the bill
    draws its MFU from (``drawn``: a ``Range``, the scenario's own or a prediction's band)
    reaches the band between its P10 and P90 (a review: ``mfu: [0.2, 0.6]`` around a
    44.5%-54.6% band was told it "lies below"). One figure where the band has no width
    (a published run of the scenario's own size: a re-trial read "13.6%-13.6%").
    ``fp8_over_bf16``: an FP8 run's r = peak(FP8) ÷ peak(BF16) (``checks.fp8_over_bf16``), whose
    MFUs here are on the FP8 peak: each figure is said on the BF16 peak too (× r), the basis of
    published MFUs and of ``llmcost check``'s verdict (a trial read "24.0% of the BF16 peak"
    there and "the bill's MFU, 12.0%" here, of one run); not where one would pass 100% (an FP8
    MFU above half the FP8 peak), which reads as an error."""
    shown = span_words(low, high, "{:.1%}")
    if fp8_over_bf16 and max(mfu, high) * fp8_over_bf16 > 1:
        fp8_over_bf16 = None   # above the BF16 peak reads as an error: the FP8 basis alone
    if fp8_over_bf16:
        r = fp8_over_bf16
        shown += f" of the FP8 peak, {span_words(low * r, high * r, '{:.1%}')} of the BF16 one"
    low, high = _judged_band(low, high)
    side = band_side(mfu, low, high)
    if side is None:
        return None
    if drawn is not None and drawn.quantile(0.1) <= high and drawn.quantile(0.9) >= low:
        return None
    said = f"{mfu:.1%} of the FP8 peak ({mfu * fp8_over_bf16:.1%} of the BF16 peak)" \
        if fp8_over_bf16 else f"{mfu:.1%}"
    return (f"the bill's MFU, {said}, lies {side} what a published run like this one gives "
            f"for its plan, {shown} (notebook 04b §6): that run, "
            f"carried to this plan, runs {'slower' if side == 'above' else 'faster'} than the "
            "bill assumes; a pilot of your own settles which")


#: The opening of notebook 04b §6 where the report has already carried the scenario's own pilot
#: (``ledger_pilot_tokens_per_s_per_gpu``) to the run's MFU (``report.calibrate_mfu``), so the
#: page receives the MFU and not the throughput: the published run beside it is a comparison,
#: not a stand-in (a trial's page read "the scenario gives none" under its pilot's 38.2%).
CARRIED_PILOT_WORDS = ("PUBLISHED RUN beside the scenario's own pilot (the report carried that "
                       "pilot's throughput to this run's MFU, {mfu:.1%}, before the pages ran: "
                       "`llmcost calibrate` shows its calibration): ")


def _bill_outside_pilot(study, scenario_mfu: float, carried: bool = False) -> str:
    """"; the bill's 14.5% lies above this extrapolation's band ..." when an illustrative
    pilot's full-run band [low, high] (``Extrapolation.mfu_low``, ``mfu_high``) leaves out the
    MFU the bill takes: a published run like the scenario's ran at another MFU than the bill
    assumes (a trial's B200 MoE bill took 14.5%, the regime's median correction, where the same
    model's published B200 run put the band at 10.7%-12.6%, and nothing said so). "" otherwise,
    and for the scenario's own pilots (the bill's MFU is theirs)."""
    x = study.extrapolation
    side = band_side(scenario_mfu, *_judged_band(x.mfu_low, x.mfu_high)) \
        if study.illustrative and x else None
    if side is None:
        return ""
    if carried:  # the bill's MFU is the scenario's own pilot's: a comparison, not a gap to fill
        return (f"; the scenario's pilot, at {scenario_mfu:.1%}, lies {side} this published "
                f"run's band ({span_words(x.mfu_low, x.mfu_high, '{:.1%}')}): that run, carried "
                f"to this plan, runs {'slower' if side == 'above' else 'faster'} than the pilot "
                "gives; the pilot ran this plan's software, so the bill keeps the pilot's "
                "extrapolation")
    return (f"; the bill's {scenario_mfu:.1%} lies {side} this extrapolation's band "
            f"({span_words(x.mfu_low, x.mfu_high, '{:.1%}')}): a published run like this one, "
            "carried to "
            f"this plan, runs {'slower' if side == 'above' else 'faster'} than the bill assumes; "
            "a pilot of your own settles which")


def pilot_band_rows(study, carried: bool = False) -> list:
    """Notebook 04b's summary rows of an illustrative pilot's full-run band, (key, label,
    value, unit, note) for ``report.summary_row``: the MFU a published run like the scenario's,
    carried to its plan, extrapolates to at its band's ends (``Extrapolation.mfu_low``,
    ``mfu_high``), which the report sets against the bill's MFU (``report.pilot_band_warning``:
    a consistency audit found the bill above this band said on page 04b alone). [] for the
    scenario's own pilots (the bill's MFU is theirs; ``carried``: a pilot the report carried to
    the run before the page ran, ``CARRIED_PILOT_WORDS``) or without a published run of its
    class."""
    x = study.extrapolation
    if not study.illustrative or x is None or carried:
        return []
    note = "a published run like this one carried to the scenario's plan (calibrate.pilot_study)"
    return [("pilot_extrapolated_mfu_low", "published run extrapolated: MFU band's low end",
             x.mfu_low, "", note),
            ("pilot_extrapolated_mfu_high", "published run extrapolated: MFU band's high end",
             x.mfu_high, "", note)]


def pilot_study(study, n_gpus: int, price_usd_per_gpu_hour: float, scenario_mfu: float,
                carried: bool = False) -> str:
    """Notebook 04b §6 in lines, from ``calibrate.pilot_study``'s ``PilotStudy``: where the
    pilot comes from (the scenario's, or ILLUSTRATIVE), each pilot's plan and GPUs (of the run's
    ``n_gpus``, or more than it) with its measured and uncalibrated predicted MFU, the
    calibration's factors
    (``Calibration.describe``), the full run's step and MFU with its band
    (``Extrapolation.describe``, ``describe_band``; ``_uncarried``: a correction that does not
    show in it said as such), the main run's ideal GPU-hours and compute
    at ``price_usd_per_gpu_hour`` (central, low–high: ``pilot_study``'s GPU-hours = train_tokens
    ÷ tokens_per_step × step_time_s × n_gpus ÷ 3600, × the price), what the bill does with it
    (an illustrative pilot: the bill keeps the scenario's ``scenario_mfu``) and what the pilot
    does not identify. A study with no calibration (no published run of the scenario's class)
    is its one sentence. ``carried``: the report carried the scenario's own pilot to
    ``scenario_mfu`` before the page ran (``CARRIED_PILOT_WORDS``), so an illustrative study is
    a published run beside it, not the pilot the scenario lacks."""
    c, x, h, usd = study.calibration, study.extrapolation, study.gpu_hours, study.compute_usd
    opening = ("pilot: " if not study.illustrative else CARRIED_PILOT_WORDS.format(
        mfu=scenario_mfu) if carried else "ILLUSTRATIVE pilot (the scenario gives none): ")
    if c is None:  # no published pilot of the scenario's class: nothing calibrated
        return f"{opening}{study.source}."
    off = _uncarried(c, x)
    strength = ("" if off is None else ", not carried to the full run" if x.transfer == 0 else
                f", carried to the full run at {x.transfer:.0%} strength")
    lines = [opening + study.source]
    lines += [f"pilot {q.plan.describe()} on "
              + (f"{q.n_gpus:,} of {fmt_gpus(n_gpus)}" if q.n_gpus <= n_gpus else
                 f"{fmt_gpus(q.n_gpus)} (more than the run's {n_gpus:,})") + ": MFU "
              f"{c.measured_mfu[i]:.1%} {'as if measured' if study.illustrative else 'measured'}"
              f", {c.uncalibrated_mfu[i]:.1%} predicted"
              + (f"; {c.describe()}" if i == len(c.pilots) - 1 else "")
              + (strength if i == len(c.pilots) - 1 else "")
              for i, q in enumerate(c.pilots)]
    lines.append(f"full run {study.plan.describe()}: step {x.step_time_s:.2f} s, "
                 f"{_full_run_mfu(x, off)}; " + x.describe_band())
    bill = (f"its MFU, {scenario_mfu:.1%}, the scenario's pilot's, failures added" if carried
            else f"its own MFU, {scenario_mfu:.1%} (given or predicted), failures added"
            if study.illustrative else "its MFU calibrated on this pilot, failures added")
    at = "that MFU" if off is not None else "the published run's MFU" if carried else \
        "the pilot's MFU"
    hours = span_words(h[1], h[2], lambda v: fmt_count(v, 3))
    lines.append(f"main run at {at}: {fmt_count(h[0], 3)} ideal GPU-hours ({hours}), compute "
                 f"{fmt_usd(usd[0])} ({span_words(usd[1], usd[2], fmt_usd)}) at "
                 f"${price_usd_per_gpu_hour:.2f}/GPU-h; "
                 f"the bill: {bill}" + _bill_outside_pilot(study, scenario_mfu, carried))
    lines.append("not identified by this pilot: " + "; ".join(c.not_identified))
    return "\n".join(lines)

