"""Figures a new user met in a trial run of the workbook (tests/test_trial_wording.py has the
words): notebook 01's published-runs figure drew one bar row per row of
``compute.published_run_mfu()``, 187 rows once the Megatron-Bridge performance tables were
catalogued: an 85-inch-tall picture with nine empty rows above the first bar; and a headline
figure of notebook 06 shown as a bare ratio beside the percentage its prose gives."""

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import llmcost  # noqa: E402
from llmcost.present import plots  # noqa: E402

COLS = ["mfu_from_gpu_hours_detailed", "mfu_from_throughput_detailed", "reported_mfu"]


def _bars(ax):
    """(row label, series colour index, width) of every bar drawn."""
    labels = [t.get_text() for t in ax.get_yticklabels()]
    out = []
    for i, cont in enumerate(ax.containers):
        for patch in cont.patches:
            y = patch.get_y() + patch.get_height() / 2
            out.append((labels[round(y)], i, patch.get_width()))
    return out


def test_implied_mfu_by_hand():
    # two runs with a whole-run or reported MFU get their bars; five known only from their
    # throughput make one strip per accelerator, a tick each
    df = pd.DataFrame({
        "run_id": ["a", "b", "t1", "t2", "t3", "t4", "t5"],
        "accelerator": ["H100-SXM", "A100-80GB", "B200", "B200", "B200", "H100-SXM", "H100-SXM"],
        "mfu_from_gpu_hours_detailed": [0.40, np.nan, np.nan, np.nan, np.nan, np.nan, np.nan],
        "mfu_from_throughput_detailed": [0.45, np.nan, 0.30, 0.35, 0.80, 0.41, 0.42],
        "reported_mfu": [np.nan, 0.50, np.nan, np.nan, np.nan, np.nan, np.nan],
    })
    ax = plots.implied_mfu(df)
    try:
        labels = [t.get_text() for t in ax.get_yticklabels()]
        assert labels == ["a", "b", "B200: 3 runs", "H100-SXM: 2 runs"]
        bars = {(lab, i): w for lab, i, w in _bars(ax) if w > 0}
        assert bars == {("a", 0): 0.40, ("a", 1): 0.45, ("b", 2): 0.50}
        ticks = [tuple(p) for coll in ax.collections for p in coll.get_offsets()]
        assert sorted(ticks) == sorted([(0.30, 2), (0.35, 2), (0.80, 2), (0.41, 3), (0.42, 3)])
        lo, hi = ax.get_ylim()
        assert (lo, hi) == (3.5, -0.5)  # first row on top, no empty rows around them
    finally:
        plt.close(ax.figure)


def test_implied_mfu_of_the_catalogue_stays_a_page_tall_and_shows_every_run():
    df = llmcost.published_run_mfu()
    ax = plots.implied_mfu(df)
    try:
        width, height = ax.figure.get_size_inches()
        named = df["mfu_from_gpu_hours_detailed"].notna() | df["reported_mfu"].notna()
        strips = df.loc[~named, "accelerator"].nunique()
        assert height == 0.4 * (named.sum() + strips) + 1.6
        assert height <= 16, height  # a page, not the 0.45 in × 187 rows it was
        # every run is drawn: its bars, or a tick in its accelerator's strip
        ticks = sum(len(c.get_offsets()) for c in ax.collections)
        assert ticks == (~named & df["mfu_from_throughput_detailed"].notna()).sum()
        bars = _bars(ax)
        # the world: PaLM 540B's reported MFU, 46.2% (Chowdhery et al. 2022, Table 3)
        assert math.isclose(dict(((lab, i), w) for lab, i, w in bars)[("palm-540b", 2)],
                            0.462, rel_tol=1e-9)
        # an FP8 run may pass 1 on the BF16 basis (compute.published_run_mfu): the axis
        # reaches the largest value instead of cutting it off
        top = np.nanmax(df[COLS].to_numpy(dtype=float))
        assert top > 1.0
        assert ax.get_xlim()[1] >= top
        # on the MFU basis, not 6ND: NeMo's 1M-token Llama 2 7B run (CP32) sits near its
        # published 54.3% (a lecturer read 1.3% by 6ND, the basis section 3 warns against)
        ticks_x = [float(p[0]) for c in ax.collections for p in c.get_offsets()]
        x = df.set_index("run_id").loc["nemo2403-h100-llama2-7b-1024k-cp32",
                                       "mfu_from_throughput_detailed"]
        assert 0.45 < x < 0.65 and any(math.isclose(t, x) for t in ticks_x)
    finally:
        plt.close(ax.figure)


def test_notebook_06_states_the_allocation_overhead_as_its_prose_does():
    # Notebook 06 said "the run's allocation costs 75.3% extra training compute" in its prose
    # and "extra training compute of the allocation  0.753" in its headline table (and the
    # report's index): the row now carries the unit "fraction", shown as a percentage
    import re
    from pathlib import Path

    from _inprocess import run_in_process

    nb = Path(__file__).resolve().parents[1] / "notebooks" / "06_chinchilla.ipynb"
    out = run_in_process(nb)
    prose = re.search(r"the run's allocation costs ([\d.]+%) extra training compute", out)
    table = re.search(r"extra training compute vs compute-optimal \(same loss\) +(\S+)", out)
    assert prose and table, out[-2000:]
    assert table.group(1) == prose.group(1)


def test_storage_tradeoff_axis_fits_the_curves_near_the_optimum():
    # A teacher's trial: Llama 3.1 405B on 100,000 B200s. Slow storage collapses the goodput and
    # the sum grows to 1e31 USD at 0.1 GB/s; the axis, sized to the sums' 90th percentile, ran to
    # 5e8 millions and drew every curve flat at 0. By hand: optimum sum $3.0M, so the axis runs to
    # 10 × 3.0 = 30 millions (× 1.1 headroom = 33), in millions.
    bw = np.geomspace(1e8, 1e13, 11)
    total = np.array([1e31, 1e23, 1e15, 1e10, 3e7, 6e6, 3.5e6, 3.1e6, 3.0e6, 3.05e6, 3.2e6])
    storage = np.linspace(1e3, 5e5, 11)
    t = pd.DataFrame({"storage_usd": storage, "lost_usd": total - storage, "total_usd": total},
                     index=pd.Index(bw, name="storage_bytes_per_s"))
    t.attrs["optimum_bytes_per_s"] = bw[8]
    ax = plots.storage_tradeoff_curve(t)
    assert ax.get_ylim() == (0, 33.0) or np.allclose(ax.get_ylim(), (0, 33.0))
    assert ax.get_ylabel() == "USD (millions) over the run"
    plt.close("all")
    # a small run: optimum $115k, and the sums' 90th percentile (linear, the 10th of 11 sorted
    # values: $300k) is below 10 × $115k: the axis runs to $300k × 1.1 = 330 thousands
    small = t.assign(total_usd=[4e5, 3e5, 2.5e5, 2e5, 1.5e5, 1.2e5, 1.15e5, 1.2e5, 1.3e5,
                                1.4e5, 1.5e5])
    small.attrs["optimum_bytes_per_s"] = bw[6]
    ax = plots.storage_tradeoff_curve(small)
    assert np.allclose(ax.get_ylim(), (0, 330.0))
    assert ax.get_ylabel() == "USD (thousands) over the run"
    plt.close("all")
