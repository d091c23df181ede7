"""ipywidgets panels for the notebooks' Explore sections: thin wiring over the pure functions.

Imported only inside ``if interactive:`` cells; report runs never create widgets.
"""

from __future__ import annotations

import numpy as np


def _log_int_slider(w, value, lo_exp, hi_exp, description):
    """A slider over powers of two for GPU counts."""
    options = [2**k for k in range(lo_exp, hi_exp + 1)]
    if value not in options:
        options = sorted(set(options) | {int(value)})
    return w.SelectionSlider(options=options, value=int(value), description=description,
                             continuous_update=False)


def flops_explorer(model: str, accelerator: str, train_tokens: float, mfu: float, n_gpus: int,
                   price_usd_per_gpu_hour: float, dtype: str = "bf16"):
    """Model, accelerator, tokens, MFU, GPU count and price widgets updating a table and a figure.

    Returns the ``VBox`` (display it, or let the cell display it).
    """
    import ipywidgets as w
    import matplotlib.pyplot as plt
    import pandas as pd
    from IPython.display import display

    from . import plots
    from .catalog import list_accelerators, list_models, load_accelerator, load_model
    from .compute import training_run
    from .units import fmt_count, fmt_duration, fmt_flops, fmt_usd

    model_w = w.Dropdown(options=list(list_models()["name"]), value=model, description="model")
    acc_w = w.Dropdown(options=list(list_accelerators()["name"]), value=accelerator,
                       description="accelerator")
    tok_w = w.FloatLogSlider(value=train_tokens, base=10, min=9, max=14, step=0.05,
                             description="tokens", readout_format=".3g",
                             continuous_update=False)
    mfu_w = w.FloatSlider(value=mfu, min=0.05, max=0.8, step=0.01, description="MFU",
                          readout_format=".2f", continuous_update=False)
    gpu_w = _log_int_slider(w, n_gpus, 3, 17, "GPUs")
    price_w = w.BoundedFloatText(value=price_usd_per_gpu_hour, min=0.01, max=100, step=0.1,
                                 description="$/GPU-h")
    out = w.Output()

    def update(_=None):
        spec, acc = load_model(model_w.value), load_accelerator(acc_w.value)
        with out:
            out.clear_output(wait=True)
            try:
                run = training_run(spec, acc, tok_w.value, mfu_w.value, gpu_w.value,
                                   price_w.value, dtype=dtype)
            except ValueError as e:  # e.g. no fp8 peak on this accelerator
                print(f"cannot compute: {e}")
                return
            display(pd.DataFrame({
                "training FLOPs (6ND)": [fmt_flops(run["training_flops"])],
                "GPU-hours": [fmt_count(run["gpu_hours"])],
                "wall-clock": [fmt_duration(run["wall_clock_s"])],
                "compute cost": [fmt_usd(run["compute_cost_usd"])],
            }, index=[f"{spec.name} on {gpu_w.value:,} × {acc.name}"]))
            fig, ax = plt.subplots(figsize=(6, 3.2), layout="constrained")
            plots.gpu_hours_vs_mfu(run["training_flops"], run["peak_flops_per_s"],
                                   np.linspace(0.1, 0.8, 71), ax=ax, marks=(mfu_w.value,))
            plt.show()

    for widget in (model_w, acc_w, tok_w, mfu_w, gpu_w, price_w):
        widget.observe(update, names="value")
    update()
    return w.VBox([w.HBox([model_w, acc_w]), w.HBox([tok_w, mfu_w]), w.HBox([gpu_w, price_w]),
                   out])


def memory_explorer(model: str, accelerator: str, n_gpus: int, global_batch_tokens: int,
                    seq_len: int, tp: int, pp: int, zero_stage: int, recompute: str,
                    micro_batch_size: int = 1, recipe: str = "bf16_adam_fp32_grads",
                    reserve: float = 0.1, pp_split: str = "even"):
    """Model, accelerator, GPU count, global batch, TP/PP/ZeRO/recompute widgets updating the
    per-GPU memory bars, the fits verdict and the pipeline bubble (1F1B).

    Returns the ``VBox``. A plan that breaks a rule shows the rule instead of the bars.
    """
    import ipywidgets as w
    import matplotlib.pyplot as plt

    from . import plots
    from .catalog import list_accelerators, list_models, load_accelerator, load_model
    from .memory import memory_table
    from .parallel import make_plan

    pow2 = [2**k for k in range(0, 9)]
    model_w = w.Dropdown(options=list(list_models()["name"]), value=model, description="model")
    acc_w = w.Dropdown(options=list(list_accelerators()["name"]), value=accelerator,
                       description="accelerator")
    gpu_w = _log_int_slider(w, n_gpus, 3, 15, "GPUs")
    batch_w = w.SelectionSlider(options=sorted({2**k for k in range(16, 26)} |
                                               {int(global_batch_tokens)}),
                                value=int(global_batch_tokens), description="batch tokens",
                                continuous_update=False)
    tp_w = w.Dropdown(options=sorted(set(pow2) | {tp}), value=tp, description="TP")
    pp_w = w.Dropdown(options=sorted(set(pow2) | {pp}), value=pp, description="PP")
    zero_w = w.ToggleButtons(options=[0, 1, 2, 3], value=zero_stage, description="ZeRO")
    rc_w = w.ToggleButtons(options=["none", "selective", "full"], value=recompute,
                           description="recompute")
    out = w.Output()

    def update(_=None):
        spec, acc = load_model(model_w.value), load_accelerator(acc_w.value)
        with out:
            out.clear_output(wait=True)
            try:
                plan = make_plan(spec, gpu_w.value, max(batch_w.value // seq_len, 1),
                                 tp=tp_w.value, pp=pp_w.value, zero_stage=zero_w.value,
                                 recompute=rc_w.value, micro_batch_size=micro_batch_size,
                                 pp_split=pp_split if pp_w.value > 1 else "even",
                                 seq_len=seq_len)
                table = memory_table(spec, {plan.describe(): plan}, seq_len, recipe)
            except ValueError as e:
                print(f"not a valid plan: {e}")
                return
            total, hbm = float(table["total"].iloc[0]), acc.hbm_bytes
            verdict = "fits" if total <= hbm * (1 - reserve) else "does NOT fit"
            print(f"{total / 1e9:.1f} GB per GPU on {acc.name} ({hbm / 1e9:.0f} GB, "
                  f"{reserve:.0%} reserve): {verdict}; pipeline bubble "
                  f"{plan.bubble_fraction():.1%} of compute (1F1B)")
            fig, ax = plt.subplots(figsize=(8, 2.2), layout="constrained")
            plots.memory_stack(table, hbm, hbm * (1 - reserve), ax=ax)
            plt.show()

    for widget in (model_w, acc_w, gpu_w, batch_w, tp_w, pp_w, zero_w, rc_w):
        widget.observe(update, names="value")
    update()
    return w.VBox([w.HBox([model_w, acc_w]), w.HBox([gpu_w, batch_w]), w.HBox([tp_w, pp_w]),
                   zero_w, rc_w, out])
