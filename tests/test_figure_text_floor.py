"""Figures readable when projected (the project's rule): no text of a figure smaller than its
floor, ``plots.SMALL_PT`` (9 pt: tick labels, legends, annotations, the source line) or
``plots.LABEL_PT`` (10 pt: axis labels and titles). The rule's measure, ``plots.text_under_floor``,
is checked on hand-made figures first (it must find a 7-pt annotation and a 9-pt title); then
every figure every notebook draws, run in this process on its default parameters
(tests/_inprocess.py: each cell exec'd, each figure drawn without rasterizing), and every font
size the package and the notebooks write as a number."""

import ast
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
from _inprocess import default_run  # noqa: E402

from llmcost.present import plots, report  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
#: The notebooks whose tables take longest to compute run first (04b's step-time tables, about
#: 10 CPU-s, then 05's, 09's and 04's), so that a failure in them shows early. The tables this
#: file's runs compute are read by the default report's kernel later on the same worker
#: (tests/conftest.py: DEFAULT_SCENARIO). The order changes no check.
FIRST = ("04b_step_time", "05_rl_loop", "09_savings", "04_communication")
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9]*.ipynb"),
                   key=lambda p: (FIRST.index(p.stem) if p.stem in FIRST else len(FIRST), p.name))
#: the notebooks whose run tests/test_explore_in_process.py checks after this file (same worker:
#: tests/conftest.py's DEFAULT_SCENARIO)
EXPLORED = {nb.resolve() for nb in NOTEBOOKS
            if "interactive" in report.declared_parameters(nb)}


def test_floors_are_the_rule():
    # the rule as the brief states it: 9 pt for ticks and annotations, 10 for labels and titles
    assert plots.SMALL_PT == 9.0 and plots.LABEL_PT == 10.0


def test_text_under_floor_finds_small_text_and_passes_text_at_the_floor():
    fig, ax = plt.subplots(layout="constrained")
    try:
        ax.plot([1, 2], [1, 2], label="a line")
        ax.annotate("seven points", (1, 1), fontsize=7)
        ax.set_title("a title at nine", fontsize=9)
        ax.set_xlabel("an axis label at ten", fontsize=10)
        ax.legend(fontsize=9)
        fig.draw_without_rendering()
        found = {(text, size, floor) for text, size, floor in plots.text_under_floor(fig)}
        assert found == {("seven points", 7.0, 9.0), ("a title at nine", 9.0, 10.0)}
        ax.tick_params(labelsize=8)  # tick labels count too
        fig.draw_without_rendering()
        assert any(size == 8.0 and floor == 9.0 for _, size, floor in
                   plots.text_under_floor(fig))
    finally:
        plt.close(fig)


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_notebook_figure_keeps_the_floor(nb):
    # the run is kept for tests/test_explore_in_process.py, which checks the same run's Explore
    # panel (tests/_inprocess.py: default_run; a figure a notebook shows is measured when shown)
    run = default_run(nb, keep=nb.resolve() in EXPLORED)
    if run.error is not None:
        raise run.error
    small, drawn = run.small, run.drawn
    assert not small, f"{nb.stem}: text under the floor (cell, text, points, floor): {small[:10]}"
    if nb.stem != "10_glossary":  # the glossary draws nothing; every other page draws figures
        assert drawn, f"{nb.stem} drew no figure: the check above checked nothing"


def _small_sizes(tree, where: str) -> list:
    """Every ``fontsize=``/``labelsize=``/``title_fontsize=`` keyword written as a number below
    ``SMALL_PT``, or as a named size smaller than matplotlib's 'medium' (10 pt)."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in ("fontsize", "labelsize",
                                                          "title_fontsize", "size"):
            v = node.value
            if isinstance(v, ast.Constant) and (
                    (isinstance(v.value, (int, float)) and not isinstance(v.value, bool)
                     and v.value < plots.SMALL_PT and node.arg != "size")
                    or v.value in ("xx-small", "x-small", "small", "smaller")):
                out.append(f"{where}:{node.lineno} {node.arg}={v.value!r}")
    return out


def test_no_font_size_under_the_floor_is_written():
    found = []
    for path in sorted((ROOT / "llmcost" / "present").glob("*.py")):
        found += _small_sizes(ast.parse(path.read_text(encoding="utf-8")), path.name)
    for nb in NOTEBOOKS:
        for i, cell in enumerate(json.loads(nb.read_text(encoding="utf-8"))["cells"]):
            if cell["cell_type"] == "code":
                src = "\n".join(line for line in "".join(cell["source"]).splitlines()
                                if not line.lstrip().startswith(("%", "!")))
                found += _small_sizes(ast.parse(src), f"{nb.name} cell {i}")
    assert not found, found
    # and the scan can fail: a planted size is found
    assert _small_sizes(ast.parse("ax.text(0, 0, 's', fontsize=7)"), "x") == ["x:1 fontsize=7"]
