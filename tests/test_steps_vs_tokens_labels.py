"""Notebook 02's steps-against-tokens figure, readable: every label clear of the others (on the
curve's flat tail, B > B_noise, the points sit within a few pixels in height, and a label per
point overlapped its neighbours'), each label at its own point's ratio."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.text import Annotation  # noqa: E402

from llmcost import plots  # noqa: E402


def test_labels_do_not_overlap_and_name_their_points():
    ax = plots.steps_vs_tokens(plan_ratio=0.3)
    try:
        fig = ax.figure
        fig.canvas.draw()
        r = fig.canvas.get_renderer()
        labels = [t for t in ax.texts if isinstance(t, Annotation) and "B_noise" in t.get_text()]
        assert [t.get_text() for t in labels] == [f"B = {k:g}·B_noise" for k in (0.125, 0.5, 2, 8)]
        boxes = [t.get_window_extent(r) for t in labels]
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                assert not boxes[i].overlaps(boxes[j]), (labels[i].get_text(), labels[j].get_text())
        # McCandlish et al. 2018 eq. 2.11 at B = k·B_noise: S/S_min = 1 + 1/k, E/E_min = 1 + k
        for t, k in zip(labels, (0.125, 0.5, 2, 8)):
            e, s = t.xy
            assert abs(e - (1 + k)) < 1e-12 and abs(s - (1 + 1 / k)) < 1e-12
    finally:
        plt.close(ax.figure)
