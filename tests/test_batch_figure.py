"""Notebook 02's "GPU-hours to the target" figure (``plots.batch_time_and_gpu_hours``) keeps a
huge run readable: a new-user trial's Llama 3.1 405B on 16,384 H100 (about 3e7 GPU-hours at its
plan's 16.8M-token batch) drawn beside 65,536 GPUs idling to 2.8e9 at small batches."""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from llmcost.present import plots


def _sweep() -> pd.DataFrame:
    """Reserved GPU-hours by hand: the run's 3.0e7 compute GPU-hours, and a cluster of n GPUs
    at a batch too small to fill it idles (n ÷ busy GPUs) × those hours, busy GPUs = batch ÷
    the 1,024 tokens each needs (a stand-in for the plan's micro-batch): 65,536 GPUs at a 1M
    batch reserve 3.0e7 × 65,536 ÷ 1,024 = 1.92e9."""
    rows = []
    for n in (16384, 65536):
        for b in 2.0 ** np.arange(20, 27):
            busy = min(n, b / 1024)
            hours = 3.0e7 * n / busy
            rows.append({"n_gpus": n, "batch_tokens": b, "reserved_gpu_hours": hours,
                         "wall_clock_days": hours / n / 24})
    return pd.DataFrame(rows)


def test_the_runs_gpu_hours_stay_visible_beside_a_cluster_100x_idle():
    sweep = _sweep()
    assert sweep.reserved_gpu_hours.max() == pytest.approx(1.92e9, rel=1e-9)  # the docstring's
    fig, axes = plt.subplots(1, 2)
    try:
        plots.batch_time_and_gpu_hours(sweep, 8.0e6, 16.8e6, fill_tokens=16.8e6, axes=axes)
        ax_h = axes[1]
        assert ax_h.get_yscale() == "log"
        lo, hi = ax_h.get_ylim()
        # the run's 3e7 is on the axis, and doubling it moves a line by a tenth of the height
        # or more: log 2 ÷ log(1.92e9 ÷ 3e7) = 1/6 less the margins (a linear axis from 0 to
        # 1.9e9 moved it by 3e7 ÷ 1.9e9 = 1.6%: the run lay on the floor)
        assert lo <= 3.0e7 < hi
        assert 0.1 < np.log(2) / (np.log(hi) - np.log(lo)) < 1 / 6
        # the plan's batch fills the scenario's GPUs: one line, named as both
        labels = [ln.get_label() for ln in ax_h.get_lines()]
        assert "the plan's batch, which fills the scenario's GPUs" in labels
        assert "fills the scenario's GPUs" not in labels and "the plan's batch" not in labels
    finally:
        plt.close(fig)
    fig, axes = plt.subplots(1, 2)
    try:  # apart (4.2M against 16.8M): two lines, each named
        plots.batch_time_and_gpu_hours(sweep, 8.0e6, 4.2e6, fill_tokens=16.8e6, axes=axes)
        labels = [ln.get_label() for ln in axes[1].get_lines()]
        assert "the plan's batch" in labels and "fills the scenario's GPUs" in labels
    finally:
        plt.close(fig)
