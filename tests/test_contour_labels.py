"""Notebook 06's iso-loss figure, readable: each labelled contour's value written once, on its
own curve, clear of the other labels, the budget labels and the legend (the labels used to
crowd where the high-loss contours bunch at the lower left and to sit on the budget labels at
the right edge)."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from llmcost import plots  # noqa: E402
from llmcost import scaling as sc  # noqa: E402


def _figure():
    # the grid and budgets notebook 06 draws
    fit = sc.LOSS_FITS["besiroglu2024"]
    n_g, d_g = np.geomspace(1e8, 1e13, 160), np.geomspace(1e9, 1e15, 160)
    grid = sc.loss(n_g[None, :], d_g[:, None], fit)
    ax = plots.loss_contours(n_g, d_g, grid, sc.compute_optimal(np.geomspace(1e19, 1e28, 50), fit),
                             budgets=[1e21, 1e23, 1e25], fit_name=fit.name)
    ax.figure.canvas.draw()
    return ax, fit


def test_each_even_level_is_labelled_once_on_its_own_contour():
    ax, fit = _figure()
    try:
        labels = [t for t in ax.texts if t.get_text()[:1].isdigit() and "FLOPs" not in t.get_text()]
        values = sorted(float(t.get_text()) for t in labels)
        # 2.0, 2.2, ..., 3.0 all cross D = 2N inside N in [1e8, 1e13], D in [1e9, 1e15]
        assert values == [2.0, 2.2, 2.4, 2.6, 2.8, 3.0]
        for t in labels:
            n, d = t.get_position()
            # the label's point is on its contour: the fit's loss there is the label's value
            assert abs(float(sc.loss(n, d, fit)) - float(t.get_text())) < 0.01
    finally:
        plt.close(ax.figure)


def test_no_label_overlaps_another_or_the_legend():
    ax, _ = _figure()
    try:
        r = ax.figure.canvas.get_renderer()
        # the texts placed in data coordinates (the source line sits under the axes)
        boxes = [t.get_window_extent(r) for t in ax.texts
                 if t.get_text() and t.get_transform() == ax.transData]
        boxes.append(ax.get_legend().get_window_extent(r))
        assert len(boxes) >= 9 + 1  # six contour labels, three budget labels, the legend
        inside = ax.get_window_extent(r)
        for i, a in enumerate(boxes):
            assert inside.x0 - 1 <= a.x0 and a.x1 <= inside.x1 + 1
            for b in boxes[i + 1:]:
                assert not a.overlaps(b), (a, b)
    finally:
        plt.close(ax.figure)
