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


def table(df, formats=None, precision: int = 3, index: bool = False, na_rep: str = "–"):
    """A DataFrame as a formatted HTML table for notebooks and reports.

    Unlike a bare ``Styler``, the markup is stable (ids derive from the columns and shape, not a
    random uuid, and no object address appears), so re-executing a notebook does not churn its
    diff.

    Parameters
    ----------
    df : DataFrame
    formats : dict or str, optional
        ``Styler.format`` formatter(s), e.g. ``{"cost": "${:,.0f}"}``.
    precision : int
        Digits for floats without a formatter.
    index : bool
        Show the index.
    """
    import hashlib

    from IPython.display import HTML

    sty = df.style.format(formats, precision=precision, na_rep=na_rep)
    if not index:
        sty = sty.hide(axis="index")
    key = hashlib.sha1(f"{list(df.columns)}{df.shape}".encode()).hexdigest()[:8]
    return HTML(sty.set_uuid(key).to_html())
