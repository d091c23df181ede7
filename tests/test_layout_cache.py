"""``plots.readable`` lays a figure out once per state: ``plots.tight_layout_kept`` keeps the
subplot parameters a tight layout computes in the disk cache, and a figure whose parameters are
read back is placed, and printed, as ``Figure.tight_layout`` places and prints it."""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from llmcost.present import plots  # noqa: E402


@pytest.fixture
def layouts(tmp_path, monkeypatch):
    """The number of tight layouts computed, with a disk cache of the test's own."""
    monkeypatch.setenv("LLMCOST_CACHE_DIR", str(tmp_path))
    calls = []
    plain = plots._tight_layout_of

    def counted(fig, engine):
        calls.append(1)
        return plain(fig, engine)

    monkeypatch.setattr(plots, "_tight_layout_of", counted)
    return calls


def _figure(label: str = "GPU-hours (millions)"):
    fig, ax = plt.subplots(figsize=(6, 3.5), layout="constrained")
    ax.plot([1, 2, 3], [3, 1, 2], label="a line")
    ax.set_xlabel("global batch size (tokens)")
    ax.set_ylabel(label)
    ax.set_title("A title that takes room")
    ax.legend()
    fig.set_layout_engine("none")
    return fig


def _svg(fig) -> bytes:
    out = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": "llmcost"}):  # the same ids in every print
        fig.savefig(out, format="svg", metadata={"Date": None})
    plt.close(fig)
    return out.getvalue()


def test_a_layout_read_back_places_and_prints_the_figure_as_tight_layout_does(layouts):
    rect = (0, 0.08, 1, 1)
    plain = _figure()
    plain.tight_layout(rect=rect)
    want = vars(plain.subplotpars).copy(), [a.get_position().bounds for a in plain.axes]
    for _ in range(2):  # computed, then read back
        fig = _figure()
        plots.tight_layout_kept(fig, rect)
        assert (vars(fig.subplotpars), [a.get_position().bounds for a in fig.axes]) == want
        assert fig.get_layout_engine().adjust_compatible  # "none" after a tight engine, as
        assert type(fig.get_layout_engine()) is type(plain.get_layout_engine())  # tight_layout
        assert _svg(fig) == _svg(_figure_laid_out(rect))
    assert layouts == [1]
    # the tight layout moved the axes: it is not a no-op that happens to compare equal
    assert want[0]["bottom"] > 0.08 and want[0]["left"] > matplotlib.rcParams["figure.subplot.left"] / 2


def _figure_laid_out(rect):
    fig = _figure()
    fig.tight_layout(rect=rect)
    return fig


def test_another_figure_or_rectangle_is_laid_out_again(layouts):
    for fig, rect in ((_figure(), (0, 0.08, 1, 1)), (_figure("a longer label, in hours"),
                                                     (0, 0.08, 1, 1)),
                      (_figure(), (0, 0.2, 1, 1))):
        plots.tight_layout_kept(fig, rect)
        assert fig.subplotpars.bottom > rect[1]
        plt.close(fig)
    assert len(layouts) == 3
