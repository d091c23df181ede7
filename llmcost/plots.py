"""Matplotlib figures. Each function takes data (and an optional ``ax``), draws, labels the axes
with units, and returns the Axes; none calls ``plt.show()`` or computes anything the calculation
modules do not already provide.
"""

from __future__ import annotations

import numpy as np

from .units import SECONDS_PER_HOUR


def _ax(ax, figsize=(7, 4)):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def _source(ax, text: str):
    ax.annotate(text, xy=(0, 0), xycoords="figure fraction", xytext=(4, 2),
                textcoords="offset points", fontsize=7, color="0.4", va="bottom")


def flops_ratio_vs_seq_len(models, seq_lens, ax=None, causal: bool = True):
    """Detailed training FLOPs per token ÷ 6·N_active against sequence length, one line per model.

    Parameters
    ----------
    models : list of ModelSpec
    seq_lens : array of int
        Context lengths (tokens).
    causal : bool
        Attention mask convention of the detailed count.
    """
    ax = _ax(ax)
    s = np.asarray(seq_lens)
    for m in models:
        ratio = np.asarray(m.flops_per_token(s, causal=causal)) / (6.0 * m.n_active_params)
        ax.plot(s, ratio, label=m.name)
    ax.set_xscale("log", base=2)
    ax.axhline(1.0, color="0.5", lw=0.8, ls=":")
    ax.set_xlabel("sequence length (tokens)")
    ax.set_ylabel("detailed FLOPs ÷ 6·N per token")
    mask = "causal mask" if causal else "full s×s mask"
    ax.set_title(f"How far 6ND undercounts as context grows ({mask})")
    ax.legend(fontsize=8)
    _source(ax, "llmcost.model: matmuls from active weights incl. LM head + attention core "
                "per query head; training = 3 × forward")
    return ax


def gpu_hours_vs_mfu(flops: float, peak_flops_per_s: float, mfus, ax=None, marks=(0.3, 0.5),
                     label: str = ""):
    """GPU-hours to execute ``flops`` against MFU (a 1/MFU hyperbola), with marked points."""
    ax = _ax(ax)
    m = np.asarray(mfus, dtype=float)
    hours = flops / (peak_flops_per_s * m) / SECONDS_PER_HOUR
    ax.plot(m, hours, color="C0", label=label or None)
    for mk in marks:
        h = flops / (peak_flops_per_s * mk) / SECONDS_PER_HOUR
        ax.plot([mk], [h], "o", color="C3")
        ax.annotate(f"MFU {mk:.0%}: {h:,.3g} GPU-h", (mk, h), textcoords="offset points",
                    xytext=(6, 6), fontsize=8)
    ax.set_xlabel("MFU (model FLOPs utilisation)")
    ax.set_ylabel("GPU-hours")
    ax.set_ylim(bottom=0)
    ax.set_title("GPU-hours ∝ 1 / MFU")
    if label:
        ax.legend(fontsize=8)
    return ax


def bar_h(labels, values, ax=None, xlabel: str = "", title: str = "", log: bool = False,
          reference=None, reference_label: str = "", fmt: str = "{:,.3g}"):
    """Horizontal bars with value labels; optional vertical reference line."""
    ax = _ax(ax, figsize=(7, 0.35 * len(labels) + 1.2))
    y = np.arange(len(labels))
    vals = np.asarray(values, dtype=float)
    ax.barh(y, vals, color="C0")
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    if log:
        ax.set_xscale("log")
    for yi, v in zip(y, vals):
        if np.isfinite(v):
            ax.annotate(fmt.format(v), (v, yi), xytext=(3, 0), textcoords="offset points",
                        va="center", fontsize=8)
    if reference is not None:
        ax.axvline(reference, color="C3", ls="--", lw=1, label=reference_label or None)
        if reference_label:
            ax.legend(fontsize=8, loc="lower right")
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    return ax


def implied_mfu(df, ax=None):
    """Implied MFU of published runs: from reported GPU-hours, from throughput, and as reported.

    ``df`` is ``compute.published_run_mfu()``.
    """
    ax = _ax(ax, figsize=(7, 0.45 * len(df) + 1.4))
    y = np.arange(len(df))
    series = [("mfu_from_gpu_hours_6nd", "whole run, from GPU-hours (6ND)", "C0"),
              ("mfu_from_throughput_6nd", "steady state, from tokens/s (6ND)", "C1"),
              ("reported_mfu", "reported by the authors", "C3")]
    h = 0.27
    for i, (col, lab, color) in enumerate(series):
        vals = df[col].to_numpy(dtype=float)
        ax.barh(y + (i - 1) * h, np.nan_to_num(vals), height=h, color=color, label=lab)
    ax.set_yticks(y, df["run_id"])
    ax.invert_yaxis()
    ax.set_xlabel("MFU (fraction of dense BF16 peak)")
    ax.set_xlim(0, 0.7)
    ax.set_title("Implied MFU of published training runs")
    ax.legend(fontsize=8, loc="lower right")
    _source(ax, "data/published_runs.csv (sources per row); peaks from data/accelerators.csv")
    return ax


# ----------------------------------------------------------------------------- notebook 03
PART_COLORS = {
    "weights": "#4C72B0", "gradients": "#55A868", "master_weights": "#8172B2",
    "optimizer_states": "#C44E52", "zero3_buffer": "#CCB974", "activations": "#DD8452",
    "activation_working_set": "#F1B27A", "embedding_and_logits": "#937860",
}


def parallelism_pictures(axes=None):
    """One small picture per way of splitting a model over 4 GPUs: DP, TP, PP, EP and CP.

    Each box is a GPU; the four bars inside are the model's four layers (grey: a full copy of a
    layer; coloured: the part this GPU holds); the strip underneath is the data it processes.
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    if axes is None:
        _, axes = plt.subplots(1, 5, figsize=(13, 3.2), layout="constrained")
    colors = ["#4C72B0", "#DD8452", "#55A868", "#C44E52"]
    titles = {
        "DP": "Data parallel\nfull copy each, own data",
        "TP": "Tensor parallel\n1/4 of every matrix, same data",
        "PP": "Pipeline parallel\n1/4 of the layers each",
        "EP": "Expert parallel\n2 of 8 experts each",
        "CP": "Context parallel\n1/4 of each sequence",
    }
    for ax, kind in zip(axes, titles):
        ax.set_xlim(0, 4)
        ax.set_ylim(-1.2, 4.4)
        ax.axis("off")
        ax.set_title(titles[kind], fontsize=9)
        for g in range(4):
            x0 = g + 0.08
            ax.add_patch(Rectangle((x0, -0.05), 0.84, 4.3, fill=False, lw=1, ec="0.3"))
            ax.text(g + 0.5, 4.3, f"GPU {g}", ha="center", va="bottom", fontsize=7)
            for layer in range(4):
                y = 0.2 + layer
                if kind in ("DP", "CP"):
                    ax.add_patch(Rectangle((x0 + 0.08, y), 0.68, 0.7, color="0.6"))
                elif kind == "TP":
                    ax.add_patch(Rectangle((x0 + 0.08, y), 0.68, 0.7, fill=False, ec="0.8"))
                    ax.add_patch(Rectangle((x0 + 0.08 + g * 0.17, y), 0.17, 0.7,
                                           color=colors[g]))
                elif kind == "PP":
                    if layer == g:
                        ax.add_patch(Rectangle((x0 + 0.08, y), 0.68, 0.7, color=colors[g]))
                elif kind == "EP":
                    if layer % 2 == 0:  # attention: replicated (data-parallel)
                        ax.add_patch(Rectangle((x0 + 0.08, y), 0.68, 0.7, color="0.6"))
                    else:               # MoE layer: 8 experts, 2 on this GPU
                        for e in range(8):
                            held = e // 2 == g
                            ax.add_patch(Rectangle((x0 + 0.08 + e * 0.085, y), 0.08, 0.7,
                                                   color=colors[g] if held else "0.92"))
            # the data this GPU sees
            if kind in ("DP", "EP"):
                ax.add_patch(Rectangle((x0 + 0.08, -0.9), 0.68, 0.5, color=colors[g], alpha=0.5))
                ax.text(g + 0.5, -0.65, f"batch {g}", ha="center", va="center", fontsize=6)
            elif kind == "CP":
                for c in range(4):
                    ax.add_patch(Rectangle((x0 + 0.08 + c * 0.17, -0.9), 0.17, 0.5,
                                           color=colors[c] if c == g else "0.92"))
            else:
                ax.add_patch(Rectangle((x0 + 0.08, -0.9), 0.68, 0.5, color="0.75"))
                ax.text(g + 0.5, -0.65, "same batch", ha="center", va="center", fontsize=6)
        if kind == "PP":
            for g in range(3):
                ax.annotate("", xy=(g + 1.15, 1.55 + g), xytext=(g + 0.85, 0.55 + g),
                            arrowprops=dict(arrowstyle="->", color="0.2", lw=0.8))
    return axes


def memory_stack(table, hbm_bytes=None, usable_bytes=None, ax=None, title: str = "",
                 horizontal: bool = True, labels: bool = True, legend: bool = True,
                 source: bool = True):
    """Stacked bars of per-GPU memory parts (GB), one bar per row of ``table`` (columns =
    ``memory.PARTS``), with the HBM capacity and the usable capacity after the reserve.
    ``labels``, ``legend`` and ``source`` switch off the bar labels, legend and source line (for
    panels that share them)."""
    from .memory import PARTS

    ax = _ax(ax, figsize=(8, 0.42 * len(table) + 1.6) if horizontal else (8, 4))
    pos = np.arange(len(table))
    left = np.zeros(len(table))
    for part in PARTS:
        vals = table[part].to_numpy(dtype=float) / 1e9
        if not np.any(vals > 0):
            continue
        lab = part.replace("_", " ")
        if horizontal:
            ax.barh(pos, vals, left=left, color=PART_COLORS[part], label=lab)
        else:
            ax.bar(pos, vals, bottom=left, color=PART_COLORS[part], label=lab)
        left += vals
    line = ax.axvline if horizontal else ax.axhline
    if hbm_bytes:
        line(hbm_bytes / 1e9, color="k", lw=1, label=f"HBM {hbm_bytes / 1e9:.0f} GB")
    if usable_bytes:
        line(usable_bytes / 1e9, color="k", lw=1, ls="--", label="usable after reserve")
    names = [str(i) for i in table.index]
    if horizontal:
        ax.set_yticks(pos, names)
        ax.tick_params(labelleft=labels)
        ax.invert_yaxis()
        ax.set_xlabel("memory per GPU (GB), most loaded stage")
    else:
        ax.set_xticks(pos, names, rotation=45, ha="right")
        ax.set_ylabel("memory per GPU (GB)")
    ax.set_title(title)
    if legend:
        ax.legend(fontsize=7, loc="best")
    if source:
        _source(ax, "llmcost.memory: ZeRO (Rajbhandari et al. 2020), activations (Korthikanti et "
                    "al. 2022 Table 2, generalised)")
    return ax


def activations_vs_seq_len(curves, ax=None, mark=None, hbm_bytes=None, title: str = ""):
    """Activation memory (GB per GPU, all layers, one micro-batch) against sequence length, one
    line per setting (``memory.activations_vs_seq_len``)."""
    ax = _ax(ax)
    styles = ["-", "--", ":", "-"]
    for col, ls in zip(curves.columns, styles * 2):
        ax.plot(curves.index, curves[col] / 1e9, marker="o", ms=3, ls=ls, lw=2 if ls != "-"
                else 1.5, label=col)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    if mark:
        ax.axvline(mark, color="0.6", lw=0.8)
    if hbm_bytes:
        ax.axhline(hbm_bytes / 1e9, color="k", lw=0.8, ls="--", label="HBM capacity")
    ax.set_xlabel("sequence length (tokens)")
    ax.set_ylabel("activations per micro-batch (GB per GPU)")
    ax.set_title(title or "Activation memory grows with context; recomputation and "
                          "FlashAttention bend the curve")
    ax.legend(fontsize=8)
    _source(ax, "Korthikanti et al. 2022 Table 2 generalised (llmcost.memory); "
                "FlashAttention: Dao et al. 2022")
    return ax


def pipeline_timeline(schedule_df, ax=None, title: str = ""):
    """Gantt chart of a simulated pipeline schedule (``parallel.pipeline_schedule``): one row per
    stage, forward ops light, backward ops dark, idle time white."""
    ax = _ax(ax, figsize=(9, 2.4))
    chunks = int(schedule_df["chunk"].max()) + 1
    for _, op in schedule_df.iterrows():
        shade = 0.35 + 0.5 * op["chunk"] / max(chunks - 1, 1)
        color = (0.3, 0.5, 0.8, 0.35 + 0.4 * shade) if op["kind"] == "F" \
            else (0.85, 0.45, 0.2, 0.35 + 0.4 * shade)
        ax.barh(op["stage"], op["end"] - op["start"], left=op["start"], color=color,
                edgecolor="white", lw=0.5)
        ax.text((op["start"] + op["end"]) / 2, op["stage"], str(int(op["microbatch"])),
                ha="center", va="center", fontsize=6)
    ax.set_yticks(sorted(schedule_df["stage"].unique()),
                  [f"stage {s}" for s in sorted(schedule_df["stage"].unique())])
    ax.invert_yaxis()
    ax.set_xlabel("time (forward of one micro-batch through one stage = 1)")
    att = schedule_df.attrs
    ax.set_title(title + f"  (bubble = {att['bubble_fraction']:.1%} of ideal compute)")
    return ax


def bubble_vs_microbatches(pp: int, ms, virtual_stages: int = 2, ax=None, mark=None):
    """Bubble fraction (of ideal compute time) against micro-batches per step, per schedule."""
    from .parallel import bubble_fraction

    ax = _ax(ax)
    m = np.asarray(ms)
    for sched, label in [("gpipe", "GPipe / 1F1B: (p−1)/m"),
                         ("interleaved", f"interleaved 1F1B, v={virtual_stages}: (p−1)/(v·m)"),
                         ("zb-h1", "ZB-H1: (p−1)/(3m)")]:
        v = virtual_stages if sched == "interleaved" else 1
        ax.plot(m, bubble_fraction(pp, m, sched, v), label=label)
    if mark is not None:
        ax.axvline(mark, color="0.6", lw=0.8)
        ax.annotate("scenario m", (mark, ax.get_ylim()[1] * 0.9), fontsize=8, ha="left")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("micro-batches per step m")
    ax.set_ylabel("bubble time ÷ ideal compute time")
    ax.set_title(f"Pipeline bubble with p = {pp} stages")
    ax.legend(fontsize=8)
    _source(ax, "Huang et al. 2019; Narayanan et al. 2021 §2.2; Qi et al. 2024 (T_F = T_B = T_W)")
    return ax


def scaling_frontier(frontier, ax=None, title: str = ""):
    """Smallest pipeline bubble among fitting plans (TP inside the scale-up domain) against GPU
    count at a fixed global batch (``parallel.scaling_frontier``); shaded where no plan fits."""
    ax = _ax(ax)
    n = frontier.index.to_numpy()
    b = frontier["min_bubble"].to_numpy(dtype=float)
    ax.plot(n, np.where(np.isnan(b), np.nan, 100 * b), marker="o", color="C0")
    for x, bb, plan in zip(n, b, frontier["best_plan"]):
        if np.isnan(bb):
            ax.axvspan(x / 1.4, x * 1.4, color="C3", alpha=0.15)
            ax.annotate(plan, (x, 2), rotation=90, fontsize=7, ha="center", va="bottom")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("GPUs")
    ax.set_ylabel("smallest bubble among fitting plans (% of compute)")
    ax.set_title(title)
    _source(ax, "llmcost.parallel.scaling_frontier (memory and bubble only; no communication)")
    return ax
