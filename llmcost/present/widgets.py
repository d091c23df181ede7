"""ipywidgets panels for the notebooks' Explore sections: thin wiring over the pure functions.

Imported only inside ``if interactive:`` cells; report runs never create widgets.
"""

from __future__ import annotations

import math
import re
import warnings
from dataclasses import replace

import numpy as np
import pandas as pd

from ..bill import levers
from ..bill.checks import rl_context_warning
from ..bill.claims import check_claim
from ..bill.ledger import (PROJECT_MONTHS_BASES, build_ledger, compare,
                           refuse_post_training_only)
from ..bill.pricing import owned_usd_per_gpu_hour
from ..bill.ranges import point
from ..bill.scenario import PRICING, USER_WORDS, scenario_price, validate_parameter
from ..core.catalog import (
    as_accelerator,
    as_model,
    catalogue_price,
    discount_price_cap,
    list_accelerators,
    list_models,
    load_accelerator,
    load_efficiency,
    load_model,
)
from ..core.hardware import Accelerator, Cluster
from ..core.shown import forget_shown
from ..core.stacks import StackFeatureWarning
from ..core.units import fmt_bytes, fmt_count, fmt_duration, fmt_flops, fmt_gpus, fmt_usd
from ..laws import scaling as sc
from ..serving import rl
from ..training import batch, batch_analysis, calibrate
from ..training import comm
from ..training.compute import training_run
from ..training.memory import DEFAULT_RESERVE, fits, memory_per_gpu, memory_table
from ..training.parallel import PlanError, make_plan
from ..training.reliability import (GOODPUT_FLOOR, GOODPUT_FLOOR_WORDS, checkpoint_plan,
                                    checkpoint_size)
from ..training.step import PlanDoesNotFitWarning, step_time
from . import plots
from .glossary import load_glossary


def _checked(**values) -> dict:
    """Each widget argument named after a scenario key, checked by that key's rule
    (``bill.scenario.validate_parameter``): a ``ValueError`` naming the key, the value and the
    rule, as a scenario would get, not a panel computing a clamped or nonsensical value. A
    ``train_tokens`` of 0, a scenario's bill of post-training alone, is refused: every panel
    that takes it shows a pre-training run."""
    out = {k: validate_parameter(k, v) for k, v in values.items()}
    if out.get("train_tokens") == 0:
        raise ValueError("train_tokens=0 must be > 0 here: this panel shows a pre-training run "
                         "(a scenario's train_tokens: 0 bills post-training alone, with no run "
                         "to show)")
    return out


def _span(value, lo, hi) -> tuple:
    """(min, max) of a slider that must show ``value``: [lo, hi] widened to hold it (ipywidgets
    clamps a value outside a slider's range to its end without a word)."""
    v = float(value)
    return min(lo, v), max(hi, v)


def _listed_price_words(accelerator: str) -> str:
    """What a panel that keeps the page's price says of another accelerator's own: "its
    catalogue on-demand median is $7.64" (``catalogue_price``), or that it has none."""
    try:
        return f"its catalogue on-demand median is ${catalogue_price(accelerator)[0]:.2f}"
    except ValueError:
        return "the catalogue has no on-demand price for it"


def _log_span(value, lo_exp, hi_exp) -> tuple:
    """``_span`` of a log slider, in exponents of 10 (floor and ceiling of log10 value)."""
    e = math.log10(float(value))
    return min(lo_exp, math.floor(e)), max(hi_exp, math.ceil(e))


def _misfit_words(total_bytes, hbm_bytes, reserve, on: str = "") -> str:
    """"; does NOT fit: X GB per GPU of the Y GB usable{on}, a run that could not start" when a
    plan's memory passes the usable HBM (``memory.fits``: HBM × (1 − reserve)); "" when it fits.
    The step and pilot panels append it to the line they print."""
    if fits(total_bytes, hbm_bytes, reserve):
        return ""
    return (f"; does NOT fit: {total_bytes / 1e9:,.1f} GB per GPU of the "
            f"{hbm_bytes * (1 - reserve) / 1e9:,.0f} GB usable{on}, a run that could not start")


def _one_plan(model, n_gpus, global_batch_tokens, seq_len, **plan) -> None:
    """``_checked`` for a panel that opens on one plan, which also refuses the scenario's
    "chosen" settings (0 for a size, -1 for the ZeRO stage, "auto" for recomputation): the
    panel shows the notebook's plan, whose fields are settled."""
    _checked(n_gpus=n_gpus, global_batch_tokens=global_batch_tokens, seq_len=seq_len, **plan)
    _catalogue_model(model, "the plan panel")
    for k, v in plan.items():
        settled = v in (0, 1, 2, 3) if k == "zero_stage" else \
            v in ("none", "selective", "full") if k == "recompute" else v >= 1
        if not settled:
            raise ValueError(f"{k}={v!r} is a setting the search chooses; the panel opens on one "
                             f"plan: pass the notebook's plan's {k}")


def _catalogue_model(model, who: str) -> None:
    """A ``ValueError`` when ``model`` is not a catalogue name: the panel's model dropdown (or
    its claim check) offers catalogue models only; a model from a Hugging Face config.json is
    priced on the page around the panel, not in it."""
    if not isinstance(model, str) or model not in set(list_models()["name"]):
        raise ValueError(f"{who}: model={model!r} is not a catalogue model (`llmcost list "
                         "models`); this panel offers catalogue models only (a model from a "
                         "config.json is priced on the page, not in the panel)")


def _rate(price_usd_per_gpu_hour) -> float:
    """The widget's GPU-hour price, checked (``price_usd_per_gpu_hour``'s rule) and required:
    None (the catalogue median) is resolved by the notebook before a widget prices with it."""
    v = validate_parameter("price_usd_per_gpu_hour", price_usd_per_gpu_hour)
    if v is None:
        raise ValueError("price_usd_per_gpu_hour=None: the widget prices with a rate; pass the "
                         "notebook's resolved price (scenario_price)")
    return float(v)


def _needs(p: dict, keys, who: str) -> None:
    """A ``ValueError`` naming the keys ``p`` lacks, and each present value checked by its
    scenario rule (``_checked``)."""
    if not isinstance(p, dict):
        raise ValueError(f"{who}: p={p!r} must be the notebook's validated parameters (a dict: "
                         "llmcost.notebook_parameters(globals()))")
    missing = [k for k in keys if k not in p]
    if missing:
        raise ValueError(f"{who}: p lacks {missing}: pass the notebook's validated parameters "
                         "(llmcost.notebook_parameters(globals())), or the scenario with the "
                         "notebooks' defaults (`llmcost list parameters`)")
    _checked(**{k: p[k] for k in keys})


def _log_int_slider(w, value, lo_exp, hi_exp, description):
    """A slider over powers of two for GPU counts."""
    options = [2**k for k in range(lo_exp, hi_exp + 1)]
    if value not in options:
        options = sorted(set(options) | {int(value)})
    return w.SelectionSlider(options=options, value=int(value), description=description,
                             continuous_update=False)


def device_name(accelerator) -> str:
    """A widget's accelerator (a catalogue name or an ``Accelerator``) by its catalogue name, the
    value its dropdown opens on."""
    return accelerator.name if isinstance(accelerator, Accelerator) else accelerator


def chosen_device(name: str, given) -> Accelerator:
    """The accelerator a widget's dropdown names: ``given`` itself when it is that one (a
    notebook's ``catalog.scenario_accelerator``, with the scale-out bandwidth its scenario's
    ``comm_scaleout_bytes_per_s`` gives), else the catalogue's."""
    if isinstance(given, Accelerator) and given.name == name:
        return given
    return load_accelerator(name)


def mfu_slider_max(accelerator: str) -> float:
    """The largest MFU a widget offers on an accelerator: its measured matmul ceiling
    (``matmul_fraction`` of data/efficiency.csv, e.g. H100 0.80 from stas00's MAMF benchmark),
    rounded down to the slider's 0.01 step; 0.8 where the catalogue has no measurement."""
    try:
        ceiling = float(load_efficiency(accelerator).matmul_fraction)
    except ValueError:
        ceiling = 0.8
    return math.floor(ceiling * 100) / 100


def _clear(out) -> None:
    """Clear an explorer's output before an update, and forget the warnings shown there
    (``core.shown.forget_shown``), which the new inputs may raise again and must say again."""
    out.clear_output(wait=True)
    forget_shown()


def flops_explorer(model: str, accelerator: str, train_tokens: float, mfu: float, n_gpus: int,
                   price_usd_per_gpu_hour: float, dtype: str = "bf16", seq_len=None):
    """Model, accelerator, tokens, MFU, GPU count and price widgets updating a table and a figure.

    GPU-hours use the workbook's MFU basis (``llmcost.compute``) at ``seq_len`` (the page's, so
    that the panel opens on its figures: a re-trial read 26.5 days at the model's 8,192 tokens
    beside the page's 23.5 at 4,096), else each model's pre-training ``seq_len``.

    Returns the ``VBox`` (display it, or let the cell display it).
    """
    import ipywidgets as w
    from IPython.display import display

    _checked(accelerator=accelerator, train_tokens=train_tokens, mfu=mfu, n_gpus=n_gpus,
             price_usd_per_gpu_hour=price_usd_per_gpu_hour, dtype=dtype,
             **({} if seq_len is None else {"seq_len": seq_len}))
    _catalogue_model(model, "flops_explorer")
    model_w = w.Dropdown(options=list(list_models()["name"]), value=model, description="model")
    acc_w = w.Dropdown(options=list(list_accelerators()["name"]), value=accelerator,
                       description="accelerator")
    lo, hi = _log_span(train_tokens, 9, 14)
    tok_w = w.FloatLogSlider(value=train_tokens, base=10, min=lo, max=hi, step=0.05,
                             description="tokens", readout_format=".3g",
                             continuous_update=False)
    ceiling = mfu_slider_max(accelerator)  # no MFU above the measured matmul ceiling: a
    # scenario's MFU above it starts the slider at the ceiling, and the panel says so
    mfu_w = w.FloatSlider(value=min(mfu, ceiling), min=min(0.01, mfu), max=ceiling, step=0.01,
                          description="MFU", readout_format=".2f", continuous_update=False)
    gpu_w = _log_int_slider(w, n_gpus, 3, 17, "GPUs")
    # a plain box, checked by the key's rule on each update: a bounded one turned an
    # analyst's 0 into 0.01 and 250 into 100 without a word
    price_w = w.FloatText(value=_rate(price_usd_per_gpu_hour), step=0.1, description="$/GPU-h")
    out = w.Output()
    live = plots.LiveFigure((6, 3.2))

    def update(_=None):
        spec, acc = load_model(model_w.value), load_accelerator(acc_w.value)
        before = mfu_w.value
        mfu_w.max = mfu_slider_max(acc.name)   # ipywidgets clamps the value to it: said below
        with out:
            _clear(out)
            if mfu_w.value < before and acc.name != accelerator:
                print(f"MFU {before:.0%} is above the slider's ceiling for {acc.name} "
                      f"(mfu_slider_max: its matmul ceiling): the slider moved to it, "
                      f"{mfu_w.value:.0%}")
            try:
                _checked(price_usd_per_gpu_hour=price_w.value)   # > 0, finite: said, not clamped
                run = training_run(spec, acc, tok_w.value, mfu_w.value, gpu_w.value,
                                   price_w.value, seq_len=seq_len, dtype=dtype)
            except ValueError as e:  # e.g. no fp8 peak on this accelerator
                print(f"cannot compute: {e}")
                return
            if acc.name != accelerator:  # the price box stays: said, with the new one's rate
                # (a trial priced B200 and TPU v4 at the page's H100 rate unawares)
                print(f"priced at ${price_w.value:.2f}/GPU-h, the price box's value, not "
                      f"{acc.name}'s own: {_listed_price_words(acc.name)}")
            if mfu > mfu_w.max and acc.name == accelerator:
                print(f"the scenario's MFU, {mfu:.0%}, is above {acc.name}'s measured matmul "
                      f"ceiling, {mfu_w.max:.0%}: the slider stops at the ceiling (the page's "
                      f"bill keeps {mfu:.0%})")
            display(pd.DataFrame({
                "training FLOPs (6ND)": [fmt_flops(run["training_flops_6nd"])],
                "model FLOPs (MFU basis)": [fmt_flops(run["model_flops"])],
                "GPU-hours": [fmt_count(run["gpu_hours"])],
                "wall-clock": [fmt_duration(run["wall_clock_s"])],
                "compute cost": [fmt_usd(run["compute_cost_usd"])],
            }, index=[f"{spec.name} on {gpu_w.value:,} × {acc.name}"]))
            live.clear()
            plots.gpu_hours_vs_mfu(run["model_flops"], run["peak_flops_per_s"],
                                   np.linspace(0.1, 0.8, 71), ax=live.axes, marks=(mfu_w.value,))
            display(live.image())

    for widget in (model_w, acc_w, tok_w, mfu_w, gpu_w, price_w):
        widget.observe(update, names="value")
    update()
    return w.VBox([w.HBox([model_w, acc_w]), w.HBox([tok_w, mfu_w]), w.HBox([gpu_w, price_w]),
                   out])


def reliability_explorer(n_params: float, n_gpus: int, fail_rate_per_gpu_year: float,
                         storage_bytes_per_s: float, async_: bool, restart_s: float,
                         ideal_gpu_hours: float, price_usd_per_gpu_hour: float,
                         recipe: str = "bf16-adam", node_bytes_per_s: float = 50e9,
                         d2h_bytes_per_s: float = 50e9, planned_per_day: float = 0.0,
                         gpus_per_node: int = 8, interval_s: float | None = None):
    """GPU count, failure rate, checkpoint size, storage bandwidth, async, restart-time and
    checkpoint-interval widgets updating a goodput table and the waste-vs-interval curve
    (notebook 07). The interval is the scenario's ``ckpt_interval_s`` (``interval_s``) or, with
    "optimum" ticked (the default where it gives none), Daly's optimum for the panel's values
    (``reliability.optimal_interval``): an analyst could not move it, and the panel opened at
    the optimum beside a page priced at the scenario's 120 minutes.

    Returns the ``VBox``.
    """
    import ipywidgets as w
    from IPython.display import display


    _checked(n_gpus=n_gpus, fail_rate_per_gpu_year=fail_rate_per_gpu_year,
             ckpt_storage_bytes_per_s=storage_bytes_per_s, ckpt_async=async_,
             ckpt_restart_s=restart_s, ckpt_node_bytes_per_s=node_bytes_per_s,
             ckpt_d2h_bytes_per_s=d2h_bytes_per_s, fail_planned_per_day=planned_per_day)
    price = _rate(price_usd_per_gpu_hour)
    # the page's size: its per-rank loader and RNG state counted over the job's ranks, as
    # notebook 07 counts them (a trial read 966 GB here beside the page's 968 GB)
    size0 = float(checkpoint_size(n_params, recipe, n_ranks=n_gpus).total_bytes)
    gpu_w = _log_int_slider(w, n_gpus, 6, 18, "GPUs")
    # a log slider cannot hold 0 failures: it starts at 10^-3 per GPU-year, said above the table
    rate0 = max(fail_rate_per_gpu_year, 1e-3)
    lo, hi = _log_span(rate0, -3, 1)
    rate_w = w.FloatLogSlider(value=rate0, base=10, min=lo, max=hi,
                              step=0.05, description="fail/GPU-yr", readout_format=".3g",
                              continuous_update=False)
    size_w = w.FloatLogSlider(value=size0 / 1e12, base=10, min=-2, max=2, step=0.02,
                              description="ckpt TB", readout_format=".3g",
                              continuous_update=False)
    lo, hi = _log_span(storage_bytes_per_s / 1e9, 0, 4)
    bw_w = w.FloatLogSlider(value=storage_bytes_per_s / 1e9, base=10, min=lo, max=hi, step=0.05,
                            description="storage GB/s", readout_format=".3g",
                            continuous_update=False)
    async_w = w.Checkbox(value=bool(async_), description="asynchronous checkpoints")
    restart_w = w.FloatSlider(value=restart_s / 60, min=0, max=_span(restart_s / 60, 0, 120)[1],
                              step=1, description="restart min", continuous_update=False)
    if interval_s is not None:
        _checked(ckpt_interval_s=interval_s)
    # 0.6 s to about two years; with "optimum" ticked the slider shows the optimum it prices
    # (a review: it opened at an invented 60 min beside a table at 15.4)
    lo, hi = _log_span((interval_s or 3600) / 60, -2, 6)
    interval_w = w.FloatLogSlider(value=(interval_s or 3600) / 60, base=10, min=lo, max=hi,
                                  step=0.05, description="interval min", readout_format=".3g",
                                  continuous_update=False, disabled=interval_s is None)
    optimum_w = w.Checkbox(value=interval_s is None, description="optimum interval")
    syncing = [False]   # the slider set to the optimum by the update itself: not a move

    def follow(_=None):   # the slider moves the interval only with the optimum unticked
        interval_w.disabled = optimum_w.value

    optimum_w.observe(follow, names="value")
    out = w.Output()
    live = plots.LiveFigure((6.5, 3.4))

    def size_bytes() -> float:  # the page's exact size until the slider (log-stepped) moves
        return size0 if abs(size_w.value - size_opened) < 1e-12 else size_w.value * 1e12

    size_opened = size_w.value

    def chosen_s() -> float:   # the scenario's exact interval until the (log) slider moves
        opened = (interval_s or 3600) / 60
        return interval_s if interval_s is not None and abs(interval_w.value - opened) < \
            1e-9 else interval_w.value * 60

    def update(_=None):
        if syncing[0]:
            return
        with out:
            _clear(out)
            try:
                plan = checkpoint_plan(n_params, gpu_w.value, rate_w.value, bw_w.value * 1e9,
                                       restart_w.value * 60, recipe, gpus_per_node,
                                       node_bytes_per_s, d2h_bytes_per_s=d2h_bytes_per_s,
                                       async_=async_w.value, planned_per_day=planned_per_day,
                                       checkpoint_bytes=size_bytes(),
                                       interval_s=None if optimum_w.value else chosen_s())
            except ValueError as e:  # e.g. restarts so slow that planned stops fill the day
                print(f"cannot compute: {e}")
                return
            if not plan.goodput >= GOODPUT_FLOOR:  # as the bill refuses it (a teacher's
                # slider ends printed "$4.77e+29" and a 10.9 s interval under a 17.2 s stall)
                print(f"cannot finish: on {fmt_gpus(gpu_w.value)} an interruption comes every "
                      f"{fmt_duration(plan.mtbf_s)}, a checkpoint stalls "
                      f"{fmt_duration(plan.stall_s)} and a restart takes "
                      f"{fmt_duration(plan.restart_s)}: goodput {plan.goodput:.2g}, below "
                      f"{GOODPUT_FLOOR_WORDS}, so the run takes over a million times its ideal "
                      "time and never finishes (the bill refuses it): fewer GPUs, fewer "
                      "failures, faster storage or faster restarts")
                return
            paid = ideal_gpu_hours / plan.goodput
            if optimum_w.value and math.isfinite(plan.interval_s):   # the slider shows it
                syncing[0] = True
                try:
                    interval_w.value = min(max(plan.interval_s / 60, 10 ** interval_w.min),
                                           10 ** interval_w.max)
                finally:
                    syncing[0] = False
            if fail_rate_per_gpu_year < rate0 and rate_w.value == rate0:
                print(f"the scenario's failure rate, {fail_rate_per_gpu_year:g} per GPU-year, "
                      f"cannot sit on the log slider: the panel starts at its lowest, {rate0:g}")
            display(pd.DataFrame({
                "checkpoint": [fmt_bytes(size_bytes())],
                "stall per checkpoint": [fmt_duration(plan.stall_s)],
                "job MTBF": [fmt_duration(plan.mtbf_s)],
                "interval": [fmt_duration(plan.interval_s)],
                "goodput": [f"{plan.goodput:.1%}"],
                "paid GPU-hours": [fmt_count(paid)],
                "lost to failures": [fmt_usd((paid - ideal_gpu_hours) * price)],
            }, index=[f"{fmt_gpus(gpu_w.value)}"]))
            if plan.mtbf_s != float("inf"):
                live.clear()
                t = plan.interval_s * np.geomspace(0.05, 20, 200)
                plots.waste_vs_interval(t, max(plan.stall_s, 1e-6), plan.mtbf_s,
                                        plan.restart_s, ax=live.axes)
                display(live.image())

    for widget in (gpu_w, rate_w, size_w, bw_w, async_w, restart_w, interval_w, optimum_w):
        widget.observe(update, names="value")
    update()
    return w.VBox([w.HBox([gpu_w, rate_w]), w.HBox([size_w, bw_w]),
                   w.HBox([restart_w, async_w]), w.HBox([interval_w, optimum_w]), out])


def batch_explorer(model: str, accelerator, n_gpus: int, train_tokens: float, seq_len: int,
                   global_batch_tokens: int, mfu: float, price_usd_per_gpu_hour: float,
                   tp: int = 1, pp: int = 1, micro_batch_size: int = 1, target_loss=None,
                   b_noise_tokens=None, dtype: str = "bf16", grad_bytes_per_param: float = 2.0,
                   pp_schedule: str = "1f1b", virtual_stages: int = 1):
    """Target loss, B_noise, accelerator, micro-batch and GPU-count widgets updating the
    time/GPU-hours-to-target curves and the key figures of notebook 02.

    ``accelerator``: a catalogue name, or the notebook's ``Accelerator`` (its scenario's network
    figure kept while the dropdown shows it: ``chosen_device``).
    ``grad_bytes_per_param`` (the recipe's), ``pp_schedule`` and ``virtual_stages`` keep the
    widget's all-reduce and bubble on the notebook's basis. The data-parallel ring is placed
    for the accelerator and GPU count the widgets show, as ``batch.dp_sync_bandwidth`` places
    the page's plan (``comm.group_layout``: dp = GPUs ÷ (tp·pp) ranks at stride tp on the
    chosen accelerator's scale-up domains): a trial's TPU v5p page kept its 256 DP peers per
    ICI pod when the dropdown moved to MI300X, whose 8-GPU boards then carried the whole ring.

    Returns the ``VBox``.
    """
    import ipywidgets as w
    from IPython.display import display


    spec = load_model(model)
    base = batch.batch_target(spec, target_loss, train_tokens, global_batch_tokens,
                              b_noise_tokens)
    floor = float(batch.kaplan_loss_floor(base.n_params))
    loss_w = w.FloatSlider(value=base.loss_nats, min=round(floor + 0.01, 2),
                           max=max(3.5, base.loss_nats), step=0.005, readout_format=".3f",
                           description="target loss", continuous_update=False)
    kaplan_w = w.Checkbox(value=b_noise_tokens is None, description="B_noise from Kaplan B_crit")
    noise_w = w.FloatLogSlider(value=base.b_noise_tokens, base=10, min=5, max=9, step=0.05,
                               description="B_noise", readout_format=".3g",
                               continuous_update=False)
    acc_w = w.Dropdown(options=list(list_accelerators()["name"]),
                       value=device_name(accelerator), description="accelerator")
    mbs_w = w.SelectionSlider(options=sorted({1, 2, 4, 8, 16, int(micro_batch_size)}),
                              value=int(micro_batch_size),
                              description="micro-batch", continuous_update=False)
    gpu_w = _log_int_slider(w, n_gpus, 6, 18, "GPUs")
    out = w.Output()
    live = plots.LiveFigure((10, 3.6), ncols=2)

    def update(_=None):
        noise_w.disabled = kaplan_w.value
        with out:
            _clear(out)
            try:
                acc = chosen_device(acc_w.value, accelerator)
                dp = gpu_w.value // (tp * pp)
                k, nd = comm.group_layout(max(dp, 1), tp,
                                          Cluster(acc, gpu_w.value).scaleup_domain_size)
                bw = batch.ring_bandwidth(acc, int(k), int(nd))
                layout = batch_analysis.BatchLayout(
                    tp=tp, pp=pp, micro_batch_size=mbs_w.value, pp_schedule=pp_schedule,
                    virtual_stages=virtual_stages, grad_bytes_per_param=grad_bytes_per_param,
                    bandwidth_bytes_per_s=bw)
                # the page's MFU is its plan's on its GPUs: on others, carried to the plan's
                # bubble there (an analyst's slider priced 8,192 GPUs at the MFU of 2,048, and
                # the B_noise row moved with a slider that changes none of its inputs)
                here = float(batch_analysis.bubble_scaled_mfu(
                    mfu, global_batch_tokens, gpu_w.value, layout, seq_len,
                    plan_batch_tokens=global_batch_tokens, plan_n_gpus=n_gpus))
                a = batch_analysis.analyse_batch(spec, acc, gpu_w.value, train_tokens, seq_len,
                                                 global_batch_tokens, here, price_usd_per_gpu_hour,
                                                 layout, loss_w.value,
                                                 None if kaplan_w.value else noise_w.value, dtype)
                util = batch.matmul_utilisation(spec, mbs_w.value * seq_len, acc, dtype, tp)
                act = batch.activation_bytes_per_gpu(spec, mbs_w.value, seq_len, tp)
            except ValueError as e:  # a layout that does not divide, a loss below the floor...
                print(f"cannot compute: {e}")
                return
            t = a.target
            if acc.name != device_name(accelerator):   # as the FLOPs panel says it (a re-trial
                # read B200 rows at the page's H100 price and MFU, unsaid)
                print(f"priced at the page's ${price_usd_per_gpu_hour:.2f}/GPU-h and MFU, not "
                      f"{acc.name}'s own: {_listed_price_words(acc.name)}")
            if abs(here - mfu) > 1e-12:
                print(f"MFU {here:.1%} on {fmt_gpus(gpu_w.value)}: the page's {mfu:.1%} on "
                      f"{fmt_gpus(n_gpus)} carried to the plan's pipeline bubble at "
                      f"{a.micro_batches_per_step:,} micro-batch"
                      f"{'es' if a.micro_batches_per_step != 1 else ''} per replica")
            print(f"B_noise {fmt_count(t.b_noise_tokens)} tokens ({t.b_noise_source}); "
                  f"fills {fmt_gpus(gpu_w.value)} from {fmt_count(a.fill_batch_tokens)} tokens; "
                  f"plan = {global_batch_tokens / t.b_noise_tokens:.2f}·B_noise")
            # activations alone above the HBM: no plan of this micro-batch runs unrecomputed
            over = "" if act <= acc.hbm_bytes else (
                f", more than the {fmt_bytes(acc.hbm_bytes)} of HBM on {acc.name} before any "
                "weight: this micro-batch does not fit without recomputation, and the costs "
                "below assume it ran")
            print(f"micro-batch {mbs_w.value}: matmuls reach ≤ {util:.0%} of peak (roofline), "
                  f"activations ≈ {fmt_bytes(act)} per GPU (estimate{over}); all-reduce "
                  f"{a.allreduce_s:.2f} s per step")
            kb = a.key_batches
            display(kb[["case", "batch_tokens", "n_gpus", "steps_over_s_min",
                        "tokens_over_e_min", "wall_clock_days", "reserved_gpu_hours",
                        "compute_cost_usd"]].style.format({
                            "batch_tokens": "{:.3g}", "n_gpus": "{:,}",
                            "steps_over_s_min": "{:.2f}", "tokens_over_e_min": "{:.2f}",
                            "wall_clock_days": "{:.1f}", "reserved_gpu_hours": "{:,.0f}",
                            "compute_cost_usd": lambda v: fmt_usd(v)}).hide(axis="index"))
            b = batch.batch_grid(t.b_noise_tokens, seq_len, 80)   # from one sequence up
            sweep = batch_analysis.plan_sweep(a, spec, acc, b, gpu_w.value, here,
                                              price_usd_per_gpu_hour, seq_len, dtype)
            live.clear()
            plots.batch_time_and_gpu_hours(sweep, t.b_noise_tokens, global_batch_tokens,
                                           a.fill_batch_tokens, axes=live.axes)
            display(live.image())

    for widget in (loss_w, kaplan_w, noise_w, acc_w, mbs_w, gpu_w):
        widget.observe(update, names="value")
    update()
    return w.VBox([w.HBox([loss_w, noise_w, kaplan_w]), w.HBox([acc_w, mbs_w, gpu_w]), out])


def _run_shape_widgets(w, model, accelerator, n_gpus, global_batch_tokens, tp, pp, *,
                       max_gpus_log2, min_batch_log2):
    """Model, accelerator, GPU-count, global-batch, TP and PP widgets opening on the given
    values (which are added to the options when they are not powers of two)."""
    pow2 = [2**k for k in range(0, 9)]
    model_w = w.Dropdown(options=list(list_models()["name"]), value=model, description="model")
    acc_w = w.Dropdown(options=list(list_accelerators()["name"]), value=accelerator,
                       description="accelerator")
    gpu_w = _log_int_slider(w, n_gpus, 3, max_gpus_log2, "GPUs")
    batch_w = w.SelectionSlider(options=sorted({2**k for k in range(min_batch_log2, 26)} |
                                               {int(global_batch_tokens)}),
                                value=int(global_batch_tokens), description="batch tokens",
                                continuous_update=False)
    tp_w = w.Dropdown(options=sorted(set(pow2) | {tp}), value=tp, description="TP")
    pp_w = w.Dropdown(options=sorted(set(pow2) | {pp}), value=pp, description="PP")
    return model_w, acc_w, gpu_w, batch_w, tp_w, pp_w


def plan_with_pipeline(make, pp: int, schedule: str, virtual_stages: int) -> tuple:
    """``make(schedule, virtual_stages)`` (a ``make_plan`` with the panel's other widgets) with
    the pipeline settings a panel's other widgets leave valid, and a note of what changed
    ("" when nothing did): without a pipeline (PP 1) 1F1B with one chunk; a schedule other than
    the interleaved one with one chunk; an interleaved one with the largest v at most the
    chosen one that divides the layers per stage (v ≥ 2), else 1F1B; 1F1B too where the
    micro-batches are no whole round of the stages (``make_plan``'s interleaved rule: an
    analyst doubled a pilot's GPUs and read a refusal). A teacher's trial changed
    the model on a page planned at v 20 and read "virtual_stages=20 must divide the 24 layers
    per pipeline stage" at almost every position; the schedule and v could not be changed one
    at a time. Other rules raise as ``make_plan`` does."""
    if pp == 1:
        note = "" if (schedule, virtual_stages) == ("1f1b", 1) else \
            "no pipeline (PP 1): the schedule and its chunks do not apply"
        return make("1f1b", 1), note
    if schedule != "interleaved":
        note = "" if virtual_stages == 1 else \
            f"virtual stages apply to the interleaved schedule only: 1 with {schedule}"
        return make(schedule, 1), note
    if virtual_stages < 2:
        return make("1f1b", 1), "interleaving needs 2 or more virtual stages: 1F1B here"
    for v in range(virtual_stages, 1, -1):
        try:
            plan = make("interleaved", v)
        except PlanError as e:
            if e.rule == "interleaved_microbatches":   # fewer micro-batches than a whole round
                # of the stages (an analyst doubled a pilot's GPUs and read a refusal)
                return make("1f1b", 1), ("the interleaved schedule needs micro-batches in "
                                         f"multiples of PP {pp}: 1F1B here")
            if e.rule != "virtual_stages":
                raise
            continue
        note = "" if v == virtual_stages else \
            f"virtual stages {virtual_stages} do not divide the layers per stage: {v} here"
        return plan, note
    return make("1f1b", 1), "no interleaving divides the layers per stage: 1F1B here"


def memory_explorer(model: str, accelerator: str, n_gpus: int, global_batch_tokens: int,
                    seq_len: int, tp: int, pp: int, zero_stage: int, recompute: str,
                    micro_batch_size: int = 1, recipe: str = "bf16_adam_fp32_grads",
                    reserve: float = DEFAULT_RESERVE, pp_split: str = "even", cp: int = 1,
                    ep: int = 1,
                    schedule: str = "1f1b", virtual_stages: int = 1, etp=None, practice=None):
    """Model, accelerator, GPU count, global batch, TP/PP/ZeRO/recompute widgets updating the
    per-GPU memory bars, the fits verdict and the pipeline bubble.

    ``cp``, ``ep``, ``etp``, ``schedule`` and ``virtual_stages`` are kept from the notebook's
    plan where the panel's widgets leave them valid (``plan_with_pipeline``: else the nearest
    valid pipeline, said in a note), and ``practice`` is how the scenario's stack stores memory
    (``step_scenario.scenario_memory_practice``: FP8 saved inputs under FP8, say), so the panel
    opens on exactly the plan and the count above it.

    Returns the ``VBox``. A plan that breaks a rule shows the rule instead of the bars.
    """
    import ipywidgets as w
    from IPython.display import display

    _one_plan(model, n_gpus, global_batch_tokens, seq_len, tp=tp, pp=pp,
              zero_stage=zero_stage, recompute=recompute, micro_batch_size=micro_batch_size,
              cp=cp, ep=ep)
    model_w, acc_w, gpu_w, batch_w, tp_w, pp_w = _run_shape_widgets(
        w, model, accelerator, n_gpus, global_batch_tokens, tp, pp, max_gpus_log2=15,
        min_batch_log2=16)
    zero_w = w.ToggleButtons(options=[0, 1, 2, 3], value=zero_stage, description="ZeRO")
    rc_w = w.ToggleButtons(options=["none", "selective", "full"], value=recompute,
                           description="recompute")
    out = w.Output()
    live = plots.LiveFigure((8, 2.2))

    def update(_=None):
        spec, acc = load_model(model_w.value), load_accelerator(acc_w.value)
        with out:
            _clear(out)
            try:
                same_model = model_w.value == model   # its experts: the page's EP, else 1
                plan, note = plan_with_pipeline(lambda sch, v: make_plan(
                    spec, gpu_w.value, max(batch_w.value // seq_len, 1),
                    tp=tp_w.value, pp=pp_w.value, cp=cp, ep=ep if same_model else 1,
                    etp=etp if same_model else None, zero_stage=zero_w.value,
                    recompute=rc_w.value, micro_batch_size=micro_batch_size, schedule=sch,
                    virtual_stages=v, pp_split=pp_split if pp_w.value > 1 else "even",
                    seq_len=seq_len), pp_w.value, schedule, virtual_stages)
                table = memory_table(spec, {plan.describe(): plan}, seq_len, recipe,
                                     practice=practice)
            except ValueError as e:
                print(f"not a valid plan: {e}")
                return
            total, hbm = float(table["total"].iloc[0]), acc.hbm_bytes
            verdict = "fits" if total <= hbm * (1 - reserve) else "does NOT fit"
            if note:
                print(f"note: {note}")
            print(f"{total / 1e9:.1f} GB per GPU on {acc.name} ({hbm / 1e9:.0f} GB, "
                  f"{reserve:.0%} reserve): {verdict}; pipeline bubble "
                  f"{plan.bubble_fraction():.1%} of compute ({plan.schedule})")
            live.clear()
            plots.memory_stack(table, hbm, hbm * (1 - reserve), ax=live.axes)
            display(live.image())

    for widget in (model_w, acc_w, gpu_w, batch_w, tp_w, pp_w, zero_w, rc_w):
        widget.observe(update, names="value")
    update()
    return w.VBox([w.HBox([model_w, acc_w]), w.HBox([gpu_w, batch_w]), w.HBox([tp_w, pp_w]),
                   zero_w, rc_w, out])


def step_explorer(model: str, accelerator, n_gpus: int, global_batch_tokens: int,
                  seq_len: int, tp: int, pp: int, micro_batch_size: int, zero_stage: int,
                  recompute: str, recipe: str = "bf16_adam_fp32_grads",
                  tp_overlap: str = "backward", pp_overlap: bool = True,
                  dp_overlap: bool = True, schedule: str = "1f1b", virtual_stages: int = 1,
                  pp_split: str = "even", cp: int = 1, stack=None, ep: int = 1, etp=None,
                  options=None, practice=None, reserve: float = DEFAULT_RESERVE):
    """Cluster size, interconnect, TP/PP (DP derived), micro-batch, ZeRO, recompute, pipeline
    schedule and overlap widgets updating the step-time breakdown and the predicted MFU
    (``llmcost.step``), and whether the plan fits the usable HBM (``memory_per_gpu`` under
    ``practice``, HBM × (1 − ``reserve``)): a plan that does not fit is priced and said so.

    The panel opens on the plan it is given (pass the notebook's ``schedule``,
    ``virtual_stages``, ``pp_split``, ``cp``, ``ep``, ``etp`` and ``stack``, and the
    scenario's ``options`` (``step_scenario.scenario_step_options``: its dtype, efficiency
    profile...; the panel's own widgets replace their fields) and memory ``practice``, so that
    it shows the notebook's prediction; ``accelerator`` a catalogue name or the notebook's
    ``Accelerator``, whose scale-out figure, a scenario's, the panel keeps while its dropdown
    shows it). The interconnect sliders scale the accelerator's NVLink and NIC bandwidth per
    direction (×1 = the datasheet, or the scenario's figure). Returns the ``VBox``; a plan that
    breaks a rule shows the rule instead of the bars.
    """
    import ipywidgets as w
    from IPython.display import display

    _one_plan(model, n_gpus, global_batch_tokens, seq_len, tp=tp, pp=pp,
              zero_stage=zero_stage, recompute=recompute, micro_batch_size=micro_batch_size,
              cp=cp, ep=ep)
    model_w, acc_w, gpu_w, batch_w, tp_w, pp_w = _run_shape_widgets(
        w, model, device_name(accelerator), n_gpus, global_batch_tokens, tp, pp,
        max_gpus_log2=16, min_batch_log2=18)
    mbs_w = w.Dropdown(options=sorted({1, 2, 4, 8} | {micro_batch_size}), value=micro_batch_size,
                       description="micro-batch")
    zero_w = w.ToggleButtons(options=[0, 1, 2, 3], value=zero_stage, description="ZeRO")
    rc_w = w.ToggleButtons(options=["none", "selective", "full"], value=recompute,
                           description="recompute")
    up_w = w.FloatLogSlider(value=1.0, base=2, min=-3, max=3, step=0.5,
                            description="scale-up ×", continuous_update=False)
    out_bw_w = w.FloatLogSlider(value=1.0, base=2, min=-3, max=3, step=0.5,
                                description="network ×", continuous_update=False)
    tpo_w = w.ToggleButtons(options=["none", "backward", "all"], value=tp_overlap,
                            description="TP overlap")
    ppo_w = w.Checkbox(value=pp_overlap, description="PP overlap")
    dpo_w = w.Checkbox(value=dp_overlap, description="DP overlap")
    sched_w = w.ToggleButtons(options=["1f1b", "interleaved", "gpipe", "zb-h1"], value=schedule,
                              description="schedule")
    v_w = w.Dropdown(options=sorted({1, 2, 4, 5, 8, 10, 20} | {virtual_stages}),
                     value=virtual_stages, description="virtual stages")
    out = w.Output()
    live = plots.LiveFigure((9, 2.2))  # built once, redrawn in place on every update

    def update(_=None):
        spec, acc = load_model(model_w.value), chosen_device(acc_w.value, accelerator)
        # the page's expert layout while the panel shows the page's model (another model, dense
        # or with other experts, starts at EP 1); the page's step options while it shows the
        # page's accelerator (a measured efficiency profile is that GPU's only)
        same_model = model_w.value == model
        opts = options if options is None or acc_w.value == device_name(accelerator) else \
            replace(options, efficiency=None)
        with out:
            _clear(out)
            try:
                plan, note = plan_with_pipeline(lambda sch, v: make_plan(
                    spec, gpu_w.value, max(batch_w.value // seq_len, 1), tp=tp_w.value,
                    pp=pp_w.value, zero_stage=zero_w.value, recompute=rc_w.value,
                    micro_batch_size=mbs_w.value, schedule=sch, virtual_stages=v,
                    pp_split=pp_split, cp=cp, ep=ep if same_model else 1,
                    etp=etp if same_model else None, seq_len=seq_len),
                    pp_w.value, sched_w.value, v_w.value)
                cl = Cluster(acc, gpu_w.value)
                out_bw = cl.scaleout_bytes_per_s_per_dir  # None within one domain (Cluster)
                cl = Cluster(acc, gpu_w.value,
                             scaleup_bytes_per_s_per_dir=cl.scaleup_bytes_per_s_per_dir
                             * up_w.value,
                             scaleout_bytes_per_s_per_dir=None if out_bw is None else
                             out_bw * out_bw_w.value)
                # a what-if: a feature the stack lacks (ZeRO-3 on Megatron-Core 2024) is priced
                # as if the stack had it, and said below, not refused as step_time would
                with warnings.catch_warnings(record=True) as said:
                    warnings.simplefilter("always", StackFeatureWarning)
                    b = step_time(spec, cl, plan, seq_len, options=opts, recipe=recipe,
                                  tp_overlap=tpo_w.value, pp_overlap=ppo_w.value,
                                  dp_overlap=dpo_w.value, missing_features="price",
                                  **({} if stack is None else {"stack": stack}))
                mem = memory_per_gpu(spec, plan, seq_len, recipe, practice=practice)
            except ValueError as e:  # a catalogue gap in a scenario's words, not Cluster's
                print("cannot predict: " + re.sub(
                    r"^(\w+): (.+) has no value in the catalogue; pass it explicitly",
                    lambda m: f"{m[2]} has no {m[1]} in the catalogue, which this panel "
                              f"scales; in a scenario, give {USER_WORDS.get(m[1], m[1])}",
                    str(e)))
                return
            fit = _misfit_words(mem.total, acc.hbm_bytes, reserve, f" on {acc.name}")
            for x in said:   # and said, one line each
                if isinstance(x.message, StackFeatureWarning):
                    print(f"note: {x.message.feature}: priced as if the stack had it")
                elif isinstance(x.message, PlanDoesNotFitWarning) and fit:
                    continue  # the plan's line below says it, on the usable HBM (a trial read
                    # both, on two bases); a stage the line does not count is still said
                else:  # another warning the block recorded: shown as it would have been
                    warnings.showwarning(x.message, x.category, x.filename, x.lineno)
            if note:
                print(f"note: {note}")
            print(f"{plan.describe()}: {b.step_time_s:.3g} s per step, predicted MFU "
                  f"{b.mfu:.1%}, exposed communication {b.exposed_comm_s / b.step_time_s:.0%}"
                  f", bubble {b.pipeline_bubble_s / b.step_time_s:.0%} of the step{fit}")
            live.clear()
            plots.step_breakdown({"this plan": b}, ax=live.axes)
            display(live.image())

    widgets = (model_w, acc_w, gpu_w, batch_w, tp_w, pp_w, mbs_w, zero_w, rc_w, up_w, out_bw_w,
               tpo_w, ppo_w, dpo_w, sched_w, v_w)
    for widget in widgets:
        widget.observe(update, names="value")
    update()
    return w.VBox([w.HBox([model_w, acc_w]), w.HBox([gpu_w, batch_w]),
                   w.HBox([tp_w, pp_w, mbs_w]), zero_w, rc_w, w.HBox([up_w, out_bw_w]),
                   tpo_w, w.HBox([ppo_w, dpo_w]), w.HBox([sched_w, v_w]), out])


def pilot_explorer(study, seq_len: int, options=None, practice=None,
                   reserve: float = DEFAULT_RESERVE,
                   recipe: str = "bf16_adam_fp32_grads"):
    """Move the target of a pilot's extrapolation (``calibrate.pilot_study``'s ``PilotStudy``):
    its GPU count, TP, PP and micro-batch (the rest of the run's plan kept, its global batch
    included; ``seq_len`` the run's tokens per sequence); each update prints
    the target plan's calibrated MFU with its band and the reasons the band is as wide as it is
    (``calibrate.extrapolate``: the engine with the pilot's correction carried at weight ``w``,
    band ``mfu × (1 ± h)``, h = ``BAND_HALF_WIDTH[k] + BAND_PER_SEQ_DOUBLING × doublings``), and
    the uncalibrated prediction beside it. ``options``: the step options the study extrapolated
    with (``step_scenario.scenario_step_options`` of the scenario), so that the panel opens on
    the study's own figure; the run's expert parallelism (``ep``, ``etp``) is kept. A target
    plan that does not fit the usable HBM (``memory_per_gpu`` under ``practice`` and
    ``recipe``, HBM × (1 − ``reserve``)) is extrapolated and said so. Returns the ``VBox``."""
    import ipywidgets as w

    base, cal = study.plan, study.calibration
    if cal is None:  # no published pilot of the scenario's class: nothing to move
        return w.VBox([w.Label(study.source)])
    model = as_model(cal.pilots[0].model)
    smallest = min(q.n_gpus for q in cal.pilots)
    # doublings of the smallest pilot and the run's own count: an analyst's slider in steps
    # of 64 was refused at 250 of its 256 positions (a data-parallel size that does not
    # divide the global batch)
    # and at most the GPUs the global batch gives a micro-batch each at the run's TP, PP, CP
    # and micro-batch size (dp × mbs ≤ the batch's sequences)
    fed = base.global_batch_size // base.micro_batch_size * base.tp * base.pp * base.cp
    top = max(min(base.n_gpus * 8, fed), smallest)
    counts = sorted({smallest * 2 ** k for k in range(64) if smallest * 2 ** k <= top}
                    | {base.n_gpus})
    gpu_w = w.SelectionSlider(options=counts, value=base.n_gpus, description="GPUs",
                              continuous_update=False)
    tp_w = w.Dropdown(options=sorted({1, 2, 4, 8} | {base.tp}), value=base.tp, description="TP")
    pp_w = w.Dropdown(options=sorted({1, 2, 4, 8, 16} | {base.pp}), value=base.pp,
                      description="PP")
    mbs_w = w.Dropdown(options=sorted({1, 2, 4, 8} | {base.micro_batch_size}),
                       value=base.micro_batch_size, description="micro-batch")
    out = w.Output()

    def update(_=None):
        with out:
            _clear(out)
            try:
                plan, note = plan_with_pipeline(
                    lambda sched, v: make_plan(
                        model, gpu_w.value, base.global_batch_size, tp=tp_w.value,
                        pp=pp_w.value, zero_stage=base.zero_stage, recompute=base.recompute,
                        micro_batch_size=mbs_w.value, schedule=sched, virtual_stages=v,
                        pp_split=base.pp_split, cp=base.cp, ep=base.ep, etp=base.etp,
                        seq_len=seq_len),
                    pp_w.value, base.schedule, base.virtual_stages)
                with warnings.catch_warnings(record=True) as said:
                    warnings.simplefilter("always", PlanDoesNotFitWarning)
                    x = calibrate.extrapolate(cal, model, plan, seq_len, options=options)
                mem = memory_per_gpu(model, plan, seq_len, recipe, practice=practice)
            except ValueError as e:
                print(f"cannot extrapolate: {e}")
                return
            fit = _misfit_words(mem.total, as_accelerator(cal.pilots[0].accelerator).hbm_bytes,
                                reserve)
            for x_w in said:   # the plan's misfit is said once, in the panel's line (a re-trial
                # read Python's PlanDoesNotFitWarning beside it)
                if not (isinstance(x_w.message, PlanDoesNotFitWarning) and fit):
                    warnings.showwarning(x_w.message, x_w.category, x_w.filename, x_w.lineno)
            if note:   # the pipeline settings the other controls left valid, said
                print(f"note: {note}")
            print(f"{plan.describe()} on {fmt_gpus(gpu_w.value)}: {x.describe()}; "
                  f"{x.describe_band()}; pilot's correction carried at "
                  f"{x.transfer:.0%} strength{fit}")

    for widget in (gpu_w, tp_w, pp_w, mbs_w):
        widget.observe(update, names="value")
    update()
    return w.VBox([w.HBox([gpu_w, tp_w, pp_w, mbs_w]), out])


#: The parameters ``rl_explorer`` reads from its ``p`` (notebook 05's).
RL_EXPLORER_KEYS = ("rl_algorithm", "rl_prompts_per_step", "rl_samples_per_prompt",
                    "rl_prompt_tokens", "rl_response_tokens", "rl_response_tokens_max",
                    "rl_gpus", "rl_rollout_gpus", "rl_rollout_tp", "rl_async", "rl_train_mfu")


def rl_explorer(model: str, accelerator, p: dict, price_usd_per_gpu_hour: float):
    """Algorithm, G, response length, tail ratio, rollout GPUs, async and accelerator widgets
    updating the per-iteration ledger of ``llmcost.rl.scenario_iteration``, the iteration page
    05 prices (other settings from ``p``, the notebook's validated parameters, its ``model``
    taking precedence over ``model``, e.g. a Hugging Face config.json's path; ``accelerator`` a
    catalogue name or the notebook's ``Accelerator``, its scenario's network figure kept while
    the dropdown shows it: ``chosen_device``). Returns the ``VBox``."""
    import ipywidgets as w
    from IPython.display import display

    _needs(p, RL_EXPLORER_KEYS, "rl_explorer")
    if not isinstance(accelerator, Accelerator):
        _checked(accelerator=accelerator)
    price = _rate(price_usd_per_gpu_hour)
    alg = w.Dropdown(options=["grpo", "ppo", "dpo"], value=p["rl_algorithm"], description="algorithm")
    # a new G re-searches the trainer's plan (rl.training_mfu, near a tenth of a second):
    # priced when the slider is let go, as the response sliders are, not at every value
    # dragged past; every slider's range holds the scenario's own value (_span)
    g_lo, g_hi = _span(p["rl_samples_per_prompt"], 2, 64)
    g = w.IntSlider(value=p["rl_samples_per_prompt"], min=g_lo, max=g_hi, description="G",
                    continuous_update=False)
    r_lo, r_hi = _span(p["rl_response_tokens"], 128, 32768)
    resp = w.IntSlider(value=p["rl_response_tokens"], min=r_lo, max=r_hi, step=128,
                       description="mean resp.", continuous_update=False)
    ratio = p["rl_response_tokens_max"] / p["rl_response_tokens"]
    t_lo, t_hi = _span(ratio, 1.0, 16.0)
    tail = w.FloatSlider(value=ratio, min=t_lo, max=t_hi, step=0.5, description="tail ×",
                         continuous_update=False)
    # its end a whole number of rollout replicas below the job's GPUs (a trial's max 63 at TP 4
    # could not be priced)
    tp_r = p["rl_rollout_tp"]
    roll = w.IntSlider(value=p["rl_rollout_gpus"], min=0,
                       max=max((p["rl_gpus"] - 1) // tp_r * tp_r, p["rl_rollout_gpus"], 0),
                       step=tp_r, description="rollout GPUs", continuous_update=False)
    asyn = w.Checkbox(value=p["rl_async"], description="asynchronous")
    acc = w.Dropdown(options=list(list_accelerators()["name"]),
                     value=device_name(accelerator), description="accelerator")
    out = w.Output()

    def update(_=None):
        with out:
            _clear(out)
            # page 05's iteration (rl.scenario_iteration: the scenario's rollout precision,
            # stack, reward, epochs...) with the panel's values; the scenario's network figure
            # is in chosen_device's accelerator while the dropdown shows it
            moved = {"rl_algorithm": alg.value, "rl_samples_per_prompt": g.value,
                     "rl_response_tokens": resp.value,
                     "rl_response_tokens_max": resp.value * tail.value,
                     "rl_rollout_gpus": roll.value, "rl_async": asyn.value and roll.value > 0,
                     "accelerator": chosen_device(acc.value, accelerator),
                     "comm_scaleout_bytes_per_s": None}
            if asyn.value and not roll.value:
                print("asynchronous needs rollout GPUs of its own (rollout GPUs > 0): priced "
                      "synchronous, as generation and training share the GPUs")
            try:
                it = rl.scenario_iteration({"model": model, **p, **moved})
            except ValueError as e:
                print(f"cannot compute: {e}")
                return
            longer = rl_context_warning({**p, **moved, "ledger_rl": True,  # as estimate says it
                                         "rl_response_tokens_max": round(resp.value * tail.value)})
            if longer:  # (a trial priced 114,688-token rollouts of a 4,096-token model unwarned)
                print(f"note: {longer}")
            print(f"iteration {it.wall_s:,.0f} s; generation {it.generation_flops_share:.0%} of "
                  f"FLOPs, {it.generation_time_share:.0%} of time; "
                  f"{fmt_usd(it.gpu_hours * price)} per iteration")
            billed, how = rl.billed_iteration_s(it.wall_s, {**p, **moved})
            if billed != it.wall_s:  # an analyst read 85 s here, 144 s on the page and the bill
                print(f"as the bill prices it: {billed:,.0f} s ({how}), "
                      f"{fmt_usd(it.gpu_hours * price * billed / it.wall_s)} per iteration")
            display(plots.table(it.parts(price),
                                {"gpu_s": "{:,.0f}", "gpu_hours": "{:,.2f}", "share": "{:.1%}",
                                 "usd": "${:,.2f}"}))

    for x in (alg, g, resp, tail, roll, asyn, acc):
        x.observe(update, names="value")
    update()
    return w.VBox([w.HBox([alg, g, acc]), w.HBox([resp, tail]), w.HBox([roll, asyn]), out])


def collective_explorer(accelerator, n_gpus: int):
    """How long one collective takes on ``n_gpus`` × ``accelerator`` (notebook 04; a catalogue
    name or the notebook's ``Accelerator``, a scenario's with its own scale-out figure):
    the collective, the message size (log slider, bytes), the group size and where its ranks
    sit (consecutive ranks, NVLink first; or one rank per scale-up domain, every hop on the
    network) on controls, and ``comm.cluster_collective_time`` (the alpha-beta model of the
    two-level cluster) printed with the algorithm and bus bandwidth (nccl-tests definitions,
    ``comm.bus_bandwidth``) and the share of the time that is latency (the time of an empty
    message). Returns the ``VBox``."""
    import ipywidgets as w

    acc = accelerator if isinstance(accelerator, Accelerator) else load_accelerator(accelerator)
    cluster = Cluster(acc, n_gpus)
    dom = int(cluster.scaleup_domain_size)
    # the default, one domain or the whole cluster if smaller (TPU v5p: 6,144 chips), among them
    sizes = sorted({n for n in (2, 4, 8, 16, 64, 256, 1024, dom) if n <= n_gpus}
                   | {min(dom, n_gpus)})
    op_w = w.Dropdown(options=["all_reduce", "all_gather", "reduce_scatter", "all_to_all"],
                      value="all_reduce", description="collective")
    size_w = w.FloatLogSlider(value=2 ** 27, base=2, min=10, max=34, step=1,
                              description="bytes", continuous_update=False)
    group_w = w.Dropdown(options=sizes, value=min(dom, n_gpus), description="ranks")
    place_w = w.ToggleButtons(options=["consecutive ranks", "one per domain"],
                              value="consecutive ranks", description="placement")
    out = w.Output()

    def update(_=None):
        with out:
            _clear(out)
            n = int(group_w.value)
            stride = 1 if place_w.value == "consecutive ranks" else dom
            if stride > 1 and n * dom > n_gpus:
                print(f"{n} ranks one per domain need {fmt_gpus(n * dom)}; the cluster has "
                      f"{n_gpus:,}")
                return
            t = float(comm.cluster_collective_time(op_w.value, size_w.value, n, cluster, stride))
            t0 = float(comm.cluster_collective_time(op_w.value, 0.0, n, cluster, stride))
            bus = float(comm.bus_bandwidth(op_w.value, size_w.value, t, n))
            print(f"{op_w.value} of {fmt_bytes(size_w.value)} over {n} ranks "
                  f"({place_w.value}): {fmt_duration(t)}")
            print(f"algorithm bandwidth {size_w.value / t / 1e9:,.1f} GB/s, bus bandwidth "
                  f"{bus / 1e9:,.1f} GB/s; latency {t0 / t:.0%} of the time "
                  f"({'latency' if t0 / t > 0.5 else 'bandwidth'}-bound)")

    for x in (op_w, size_w, group_w, place_w):
        x.observe(update, names="value")
    update()
    return w.VBox([w.HBox([op_w, group_w]), w.HBox([size_w, place_w]), out])


def claim_explorer(model: str, accelerator: str, dtype: str = "bf16", tokens: float = 2e12,
                   n_gpus: int = 2048, days: float = 30.0, goodput: float | None = None,
                   price_usd_per_gpu_hour: float | None = None):
    """A claim of one's own, "``model`` trained on ``tokens`` with ``n_gpus`` × ``accelerator``
    in ``days``", checked as ``llmcost.claims.check_claim`` checks it (notebook 08; ``llmcost
    check`` in a terminal), with the tokens (trillions), the GPU count and the days on sliders.
    ``goodput``: the one the check divides by (default: its own, ``claims.goodput_for``);
    notebook 08 opens the panel at its scenario's paid hours and the bill's goodput, so that it
    starts where the cell above it judged the scenario (a trial read 30 days beside it).
    ``price_usd_per_gpu_hour``: the run's own GPU-hour price, which prices the hours (default:
    the catalogue's median; notebook 08 passes its bill's rate: a trial read the scenario's
    hours at $6.16 in the panel and at the scenario's $3.99 on 00). A claim the check refuses
    prints the reason. Returns the ``VBox``."""
    import ipywidgets as w

    _checked(accelerator=accelerator, dtype=dtype, train_tokens=tokens, n_gpus=n_gpus)
    _catalogue_model(model, "claim_explorer")
    if isinstance(days, bool) or not isinstance(days, (int, float)) or not days > 0 \
            or not math.isfinite(days):
        raise ValueError(f"days={days!r} must be a finite number > 0 (the claimed wall-clock)")
    if goodput is not None and (isinstance(goodput, bool) or not isinstance(goodput, (int, float))
                                or not 0 < goodput <= 1):
        raise ValueError(f"goodput={goodput!r} must be a fraction in (0, 1] or None")
    price = price_usd_per_gpu_hour
    if price is not None and (isinstance(price, bool) or not isinstance(price, (int, float))
                              or not 0 < price < math.inf):
        raise ValueError(f"price_usd_per_gpu_hour={price!r} must be a finite number > 0 (USD "
                         "per GPU-hour) or None (the catalogue's median)")
    spec, gpu = load_model(model), load_accelerator(accelerator)
    tok = w.FloatSlider(value=tokens / 1e12, min=min(0.1, tokens / 1e12),
                        max=max(20.0, tokens / 1e12), step=0.1, description="tokens (T)",
                        continuous_update=False)
    gpus = w.IntSlider(value=n_gpus, min=min(8, n_gpus), max=max(16384, n_gpus), step=8,
                       description="GPUs", continuous_update=False)
    # a step of a tenth of a day: back to the page's 13.1 days after a move (an analyst's
    # slider in whole days could not return to the page's 13.12)
    d = w.FloatSlider(value=days, min=min(1.0, days), max=max(180.0, days), step=0.1,
                      description="days", readout_format=".1f", continuous_update=False)
    out = w.Output()

    def update(_=None):
        with out:
            _clear(out)
            try:
                own = {**({} if goodput is None else {"goodput": goodput}),
                       **({} if price is None else {"price_usd_per_gpu_hour": price})}
                print(check_claim(spec, tok.value * 1e12, gpu, n_gpus=gpus.value, days=d.value,
                                  dtype=dtype, left_out=False, **own).describe())
            except ValueError as e:
                print(f"refused: {e}")

    for x in (tok, gpus, d):
        x.observe(update, names="value")
    update()
    return w.VBox([w.HBox([tok, gpus, d]), out])


#: The parameters ``ledger_explorer`` reads from its scenario (notebook 00's).
LEDGER_EXPLORER_KEYS = ("n_gpus", "mfu", "price_usd_per_gpu_hour", "pricing",
                        "ledger_exploratory_fraction", "ledger_reserve_fraction")


def _hour_of(scenario: dict, pricing: str) -> float:
    """The hour ``ledger_explorer``'s price slider shows for ``pricing`` when the scenario gives
    no price: owned hardware's all-in hour, capex and energy (``pricing.owned_usd_per_gpu_hour``:
    what a moved slider gives the bill as its price; an analyst's slider opened at the
    hardware-only $3.35 and moving it up to $3.40 dropped the electricity line, the bill fell),
    else the mode's catalogue rate (``scenario_price``). Where the mode has no rate, the
    scenario's own mode's (the bill then says why it cannot price the mode)."""
    try:
        if pricing == "owned":
            return float(owned_usd_per_gpu_hour(
                load_accelerator(scenario["accelerator"]),
                scenario.get("ledger_owned_usd_per_gpu"),
                scenario.get("ledger_electricity_usd_per_kwh"),
                scenario.get("ledger_pue"))["usd_per_gpu_hour"])
        return float(scenario_price({**scenario, "pricing": pricing})[0])
    except ValueError:
        if pricing == scenario["pricing"]:
            raise
        return _hour_of(scenario, scenario["pricing"])


def _rate_words(accelerator: str, pricing: str) -> str:
    """Which rate ``ledger_explorer``'s bill used when no price is given, in words: owned
    hardware's amortised hour with its energy; a discount mode capped at the on-demand median
    (``catalog.discount_price_cap``: an analyst read "the catalogue's reserved rate" at the
    on-demand median); else the catalogue's rate of ``pricing``."""
    if pricing == "owned":
        return "the owned hardware's amortised hour with its energy"
    if discount_price_cap(accelerator, pricing) is not None:
        return f"the catalogue's on-demand median, the most a {pricing} hour is taken to cost"
    return f"the catalogue's {pricing} rate"


def ledger_explorer(scenario: dict):
    """The main inputs of the bill (GPUs, MFU, price, pricing mode, exploratory fraction,
    reserve, people) with the bill's table and waterfall updating (``llmcost.ledger``).

    Returns the ``VBox``.
    """
    import ipywidgets as w
    from IPython.display import display


    _needs(scenario, LEDGER_EXPLORER_KEYS, "ledger_explorer")
    refuse_post_training_only(scenario, "the panel moves a pre-training run's inputs (its "
                              "GPUs, MFU and exploratory multiplier)")
    gpus = _log_int_slider(w, scenario["n_gpus"], 6, 15, "GPUs")
    lo, hi = _span(scenario["mfu"], 0.1, 0.7)
    mfu = w.FloatSlider(value=scenario["mfu"], min=lo, max=hi, step=0.01, description="MFU",
                        continuous_update=False)
    # the bill's own rate when the scenario leaves the price to the catalogue (its median), so
    # that the panel opens on the page's bill; given back to the bill as None until moved
    given = scenario["price_usd_per_gpu_hour"]
    price0 = float(given) if given is not None else _hour_of(scenario, scenario["pricing"])
    lo, hi = _span(price0, 0.5, 12)
    price = w.FloatSlider(value=price0, min=lo, max=hi, step=0.05, description="$/GPU-h",
                          continuous_update=False)
    # spot only where the scenario gives its pre-emption rate (an analyst picked it and read
    # "cannot price this" at every position): said under the panel instead
    spot_rate = scenario.get("ledger_spot_preemptions_per_node_day")
    modes = [m for m in PRICING if m != "spot" or spot_rate is not None
             or scenario["pricing"] == "spot"]
    pricing = w.Dropdown(options=modes, value=scenario["pricing"], description="pricing")
    f0 = scenario["ledger_exploratory_fraction"]
    f0 = 1.19 if f0 is None else f0
    explore = w.FloatSlider(value=f0, min=0, max=_span(f0, 0, 3)[1], step=0.05,
                            description="explore ×", continuous_update=False)
    r0 = scenario["ledger_reserve_fraction"]
    reserve = w.FloatSlider(value=r0, min=0, max=_span(r0, 0, 0.5)[1], step=0.01,
                            description="reserve", continuous_update=False)
    # the scenario's people as one figure until moved (a re-trial: the slider opened at 0
    # beside 10 research FTE, and moving it to 5 replaced them)
    roles = [r for r in (scenario.get("ledger_people") or []) if isinstance(r, dict)]
    fte0 = float(sum(float(point(r.get("fte")) or 0) for r in roles))   # a range: its point
    fte = w.FloatSlider(value=fte0, min=0, max=_span(fte0, 0, 200)[1], step=1,
                        description="staff FTE", continuous_update=False)
    out = w.Output()
    live = plots.LiveFigure((8, 4))

    def update(*_):
        # a control left where it opened gives the bill the scenario's own input back (its
        # price or none, its exploratory runs, its people), so the panel opens on the page's
        # bill; a moved one gives its value
        changes = dict(n_gpus=gpus.value, mfu=mfu.value, pricing=pricing.value,
                       ledger_reserve_fraction=reserve.value)
        if abs(price.value - price0) >= price.step / 2:
            changes["price_usd_per_gpu_hour"] = price.value
        elif pricing.value != scenario["pricing"]:
            changes["price_usd_per_gpu_hour"] = None   # the new mode's own rate
        if abs(explore.value - f0) >= explore.step / 2:
            changes.update(ledger_exploratory_fraction=explore.value,
                           ledger_exploratory_runs=[])
        if abs(fte.value - fte0) >= fte.step / 2:   # moved: one staff role of that size
            changes["ledger_people"] = [{"role": "staff", "fte": fte.value}] if fte.value else []
        _clear(out)
        with out:
            try:
                bill = build_ledger({**scenario, **changes})
            except ValueError as e:
                print(f"cannot price this: {e}")
                return
            rate = bill.figures["price_usd_per_gpu_hour"]  # which rate the bill used, said (a
            # trial moved the mode beside a given price and read no change)
            used = ("the given price, whatever the pricing mode"
                    if changes.get("price_usd_per_gpu_hour") is not None or
                    (given is not None and "price_usd_per_gpu_hour" not in changes)
                    else _rate_words(bill.figures["accelerator"], pricing.value))
            print(f"total {fmt_usd(bill.total_usd)}; final run {fmt_usd(bill.figures['final_run_usd'])}"
                  f"; {bill.figures['wall_clock_days']:.1f} days; at ${rate:.2f}/GPU-h, {used}")
            people = bill.scenario.get("ledger_people") or []
            if bill.scenario.get("ledger_project_months") is None and not bill.scenario.get(
                    "ledger_published_defaults") and any(  # (else Epoch's median project)
                    isinstance(r, dict) and "months" not in r for r in people):
                # a teacher moved GPUs 512 -> 32,768 and watched the staff line fall 30-fold
                span = PROJECT_MONTHS_BASES[bill.figures["project_months_basis"]]
                print(f"staff are paid for {bill.figures['project_months']:.2f} months, {span} "
                      "(ledger_project_months not set): more GPUs shorten its pre-training "
                      "part (an RL campaign keeps its own rl_gpus), and the staff line with it")
            live.clear()
            plots.bill_waterfall(bill.table(), ax=live.axes)
            display(live.image())

    def on_mode(*_):
        # a price left where it opened follows the mode: the slider shows the new mode's own
        # rate (a review moved an unmoved slider after a switch to owned and read the bill
        # fall as the price rose: it had kept the on-demand rate)
        nonlocal price0
        new = None if given is not None or abs(price.value - price0) >= price.step / 2 \
            else _hour_of(scenario, pricing.value)
        if new is None or abs(new - price.value) < price.step / 2:
            price0 = price0 if new is None else new
            update()
            return
        price0 = new
        price.min, price.max = min(price.min, new / 2), max(price.max, new * 2)
        price.value = new   # its observer prices the bill (unmoved: the mode's own rate)

    for wid in (gpus, mfu, price, explore, reserve, fte):
        wid.observe(update, names="value")
    pricing.observe(on_mode, names="value")
    update()
    said = [] if "spot" in modes else [w.Label(
        "spot is not offered here: the scenario gives no ledger_spot_preemptions_per_node_day "
        "(pre-emptions per node per day, your provider's)")]
    return w.VBox([w.HBox([gpus, mfu, price]), w.HBox([pricing, explore, reserve, fte]),
                   *said, out])


def scaling_explorer(compute_flops: float, fit: str, inference_tokens: float,
                     price_usd_per_gpu_hour: float, serve_usd_per_m_tokens_per_b_params: float,
                     accelerator: str, mfu: float, dtype: str = "bf16", model=None,
                     seq_len=None, target_loss: float | None = None):
    """Compute budget, loss fit, lifetime demand, training GPU price and serving price widgets
    updating the Chinchilla-optimal and inference-adjusted optima of a target loss (notebook 06).

    With ``model`` (and ``seq_len``) training is priced on the workbook's MFU basis, as the page
    (``scaling.train_usd_per_flop``).

    The target loss is ``target_loss`` (the page's: its scenario's model at its tokens) while the
    budget and the fit stay where the panel opened, so that it opens on the page's numbers (a
    trial read other ones), else that of the compute-optimal model at the chosen budget; the
    serving price is USD per million served tokens per billion parameters
    (``scaling.serving_cost_per_token`` scales it with N). Returns the ``VBox``.
    """
    if target_loss is not None and (isinstance(target_loss, bool) or not isinstance(
            target_loss, (int, float)) or not math.isfinite(target_loss) or target_loss <= 0):
        raise ValueError(f"target_loss={target_loss!r} must be a finite loss > 0 or None")
    import ipywidgets as w
    from IPython.display import display


    # every slider's range holds the page's own value (_span, _log_span: ipywidgets clamps a
    # value outside it without a word; a trial opened 3e27 FLOPs at 1e27, $12.5 at $10)
    c_lo, c_hi = _log_span(compute_flops, 19, 27)
    c_w = w.FloatLogSlider(value=compute_flops, base=10, min=c_lo, max=c_hi, step=0.1,
                           description="FLOPs", readout_format=".2e", continuous_update=False)
    fit_w = w.Dropdown(options=list(sc.LOSS_FITS), value=fit, description="fit")
    d_lo, d_hi = _log_span(max(inference_tokens, 1e9), 9, 16)
    d_w = w.FloatLogSlider(value=max(inference_tokens, 1e9), base=10, min=d_lo, max=d_hi,
                           step=0.1, description="served tokens", readout_format=".2e",
                           continuous_update=False)
    p_lo, p_hi = _span(price_usd_per_gpu_hour, 0.5, 10)
    price_w = w.FloatSlider(value=price_usd_per_gpu_hour, min=p_lo, max=p_hi, step=0.05,
                            description="$/GPU-h", continuous_update=False)
    s_lo, s_hi = _log_span(serve_usd_per_m_tokens_per_b_params, -4, 0)
    serve_w = w.FloatLogSlider(value=serve_usd_per_m_tokens_per_b_params, base=10, min=s_lo,
                               max=s_hi, step=0.05, description="$/M tok/B",
                               readout_format=".3g", continuous_update=False)
    if inference_tokens < 1e9:   # a log slider has no 0: the panel starts at its floor, said
        print(f"served tokens {inference_tokens:.3g} is below the slider's floor, 1e9: the "
              "panel starts there (the page above prices the scenario's own demand)")
    out = w.Output()
    live = plots.LiveFigure((6.5, 3.4), twinx=True)

    def update(_=None):
        with out:
            _clear(out)
            f = sc.get_fit(fit_w.value)
            # where the panel opened: the budget within half a slider step of the page's (a
            # slider moved away and back lands on its grid, not on the page's exact figure: a
            # teacher read two optima at one position)
            opened = abs(math.log10(c_w.value / compute_flops)) <= c_w.step / 2 + 1e-9 \
                and fit_w.value == fit
            if target_loss is not None and opened:
                target = float(target_loss)
                print(f"target loss {target:.4g}: the page's (its scenario's model at its tokens)")
            else:
                target = float(sc.loss(*sc.compute_optimal(c_w.value, f), f))
                print(f"target loss {target:.4g}: the compute-optimal model's at this budget")
            usd_flop = sc.train_usd_per_flop(accelerator, mfu, price_w.value, dtype, model,
                                            seq_len)
            serve = sc.serving_cost_per_token(serve_w.value, serve_w.value, 1.0, 1e9)
            o = sc.inference_adjusted_optimum_usd(target, d_w.value, usd_flop, serve, f)
            n_c, d_c = float(o.chinchilla_n_params), float(o.chinchilla_train_tokens)
            display(pd.DataFrame({
                "N": [fmt_count(n_c), fmt_count(o.n_params)],
                "D": [fmt_count(d_c), fmt_count(o.train_tokens)],
                "tokens/param": [f"{d_c / n_c:,.1f}", f"{o.tokens_per_param:,.0f}"],
                "lifetime cost": [fmt_usd(o.chinchilla_total_cost), fmt_usd(o.total_cost)],
            }, index=["Chinchilla-optimal", "inference-adjusted (USD)"]))
            demand = np.geomspace(1e9, 1e16, 40)
            sweep = sc.inference_adjusted_optimum_usd(target, demand, usd_flop, serve, f)
            live.clear()
            ax, ax_right = live.axes, live.axes_right
            plots.optimum_vs_demand(demand, sweep, ax=ax, fit_limit=sc.FIT_MAX_TOKENS_PER_PARAM,
                                    ax_right=ax_right)
            ax.axvline(d_w.value, color="C3", ls="--", lw=1)
            display(live.image())

    for widget in (c_w, fit_w, d_w, price_w, serve_w):
        widget.observe(update, names="value")
    update()
    return w.VBox([w.HBox([c_w, fit_w]), w.HBox([d_w, price_w, serve_w]), out])


# ---------------------------------------------------------------- savings levers (notebook 09)
def levers_explorer(scenario: dict):
    """Toggle the scenario → scenario levers (``levers.LEVERS``) and see the bill change:
    the bill before, after the ticked levers (applied in order, ``levers.apply_levers``) and the
    saving, with the lines that moved.

    Returns the ``VBox``.
    """
    import ipywidgets as w


    boxes = {k: w.Checkbox(value=False, description=name, indent=False)
             for k, (name, _, _) in levers.LEVERS.items()}
    out = w.Output()
    before = levers.bill(scenario)

    def alone(k):
        """The bill with lever ``k`` alone, or why this scenario cannot price it (a str)."""
        try:
            return levers.bill(levers.apply_levers(scenario, [k]))
        except ValueError as e:
            return str(e)

    def update(*_):
        keys = [k for k, b in boxes.items() if b.value]
        _clear(out)
        with out:
            each = {k: alone(k) for k in keys}   # each ticked lever priced once on its own
            # a lever this scenario cannot price is left out and said, the others priced (an
            # analyst ticked spot without a pre-emption rate and lost every combination)
            for k in [k for k in keys if isinstance(each[k], str)]:
                print(f"{levers.LEVERS[k][0]}: not priced on this scenario, so left out "
                      f"({each[k]})")
                keys.remove(k)
            try:
                after = levers.bill(levers.apply_levers(scenario, keys))
            except ValueError as e:
                print(f"cannot price this combination: {e}")
                return
            saving = before.total_usd - after.total_usd
            print("levers on: " + (", ".join(levers.LEVERS[k][0] for k in keys) or "none"))
            for k in keys:  # a lever with nothing to act on in this scenario says why
                if abs(each[k].total_usd - before.total_usd) < 0.5:
                    # the lever's own reason (an analyst read "its input is already at the
                    # lever's setting" for a reservation no provider prices a term of)
                    why = levers.LEVERS[k][2](scenario).note or \
                        "its input is already at the lever's setting"
                    print(f"  {levers.LEVERS[k][0]}: no change on this scenario on its own "
                          f"({why})")
            print(f"bill {fmt_usd(before.total_usd)} → {fmt_usd(after.total_usd)}: saving "
                  f"{fmt_usd(saving)} ({saving / before.total_usd:.1%}); main run "
                  f"{before.figures['wall_clock_days']:.1f} → "
                  f"{after.figures['wall_clock_days']:.1f} days")
            df = compare(before, after, names=("before", "after"))
            moved = df[df["difference usd"].fillna(0).abs() > 0.5]
            print(moved.to_string(index=False, float_format=lambda v: f"{v:,.0f}") if len(moved)
                  else "no line of the bill moved")

    for b in boxes.values():
        b.observe(update, names="value")
    update()
    items = list(boxes.values())
    return w.VBox([w.GridBox(items, layout=w.Layout(grid_template_columns="repeat(3, 1fr)")),
                   out])


# ---- the glossary's search box (notebook 10)
def glossary_explorer():
    """A text box that filters the glossary (``llmcost.glossary``) by term, alias, Chinese term
    or definition, showing the matching rows as a table."""
    import ipywidgets as w
    from IPython.display import display


    g = load_glossary()
    box = w.Text(placeholder="e.g. bubble, MFU, 显存", description="search")
    out = w.Output()

    def show(_=None):
        q = box.value.strip().lower()
        hit = g[g[["term", "aliases", "chinese", "definition"]].apply(
            lambda col: col.str.lower().str.contains(q, regex=False)).any(axis=1)] if q else g
        with out:
            out.clear_output()
            if hit.empty:   # not a bare "Empty DataFrame" (an analyst's search)
                print(f"no glossary term, alias, Chinese term or definition contains "
                      f"{box.value.strip()!r}")
                return
            display(hit[["term", "chinese", "definition", "formula", "notebook", "function"]])

    box.observe(show, names="value")
    show()
    return w.VBox([box, out])
