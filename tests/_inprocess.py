"""Run a real notebook's code cells in this process (no kernel), as tests/test_notebooks_in_process.py
and tests/test_explore_in_process.py do.

Each code cell is ``exec``'d in one namespace, in order; IPython line magics (``%…``) and shell
lines (``!…``) are dropped; the report's parameters are injected right after the parameters cell,
as papermill injects them. Figures use the Agg backend and are closed after each cell; with
``draw``, each is drawn first (sharing text measures between figures, as a report kernel does:
``plots.share_text_measures``) without rasterizing (``Figure.draw_without_rendering``: the layout,
the ticks, the text's extents and every artist's draw code run, the pixel operations do not; half
the CPU of a drawn Llama 3.1 405B run). The pixels themselves are rendered where a kernel runs the
notebook: nbval and the default scenario's report (tests/test_report.py).
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Callable

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from llmcost.present import plots  # noqa: E402
from llmcost.present.plots import ticks_computed_once  # noqa: E402


@contextlib.contextmanager
def sharing_text_measures():
    """``plots.share_text_measures`` installed for the block (as a report kernel has it), and
    matplotlib's own methods back after it, so that no other test of this process sees them."""
    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.mathtext import MathTextParser
    from matplotlib.textpath import TextToPath

    measure, parse = RendererAgg.get_text_width_height_descent, MathTextParser._parse_cached
    vector_measure = TextToPath.get_text_width_height_descent
    try:
        installed = plots.share_text_measures()
        yield installed
    finally:
        RendererAgg.get_text_width_height_descent = measure
        TextToPath.get_text_width_height_descent = vector_measure
        MathTextParser._parse_cached = parse


def code_cells(nb: Path) -> list[tuple[int, str, dict]]:
    """``(index, source, metadata)`` of every cell (markdown included, source as one string)."""
    cells = json.loads(Path(nb).read_text(encoding="utf-8"))["cells"]
    return [(i, "".join(c["source"]), c) for i, c in enumerate(cells)]


def run_in_process(nb: Path, params: dict | None = None, *, ns: dict | None = None,
                   before_cell: Callable[[int, dict], None] | None = None,
                   stdout: io.StringIO | None = None, draw: list | None = None,
                   on_figure: Callable[[int, object], None] | None = None) -> str:
    """Execute ``nb``'s code cells in one namespace; returns what they printed.

    ``ns`` is the namespace to use (default: a fresh one whose ``display`` does nothing);
    ``before_cell(index, cell)`` is called before every cell, markdown cells included;
    ``stdout`` receives what the cells print (default: a new buffer); ``draw``, a list: every
    figure a cell leaves open is drawn once without rasterizing (module docstring) before it is
    closed, and ``(notebook, cell index)`` appended for each, so that a figure whose artists
    cannot be laid out or drawn fails here; ``on_figure(cell index, figure)`` is then called
    with each drawn figure (``draw`` given).
    """
    if ns is None:
        ns = {"__name__": "__main__", "display": lambda *a, **k: None}
    out = io.StringIO() if stdout is None else stdout
    # a notebook's rcParams changes (04 and 04b set the font size) end with it, as its kernel
    # would: without this they leaked into the next notebook run in this process. Drawn figures
    # share one measure of each text, as a report kernel's do (``plots.share_text_measures``)
    with matplotlib.rc_context(), \
            (sharing_text_measures() if draw is not None else contextlib.nullcontext()):
        for i, src, cell in code_cells(nb):
            if before_cell is not None:
                before_cell(i, cell)
            if cell["cell_type"] != "code":
                continue
            src = "\n".join(line for line in src.splitlines()
                            if not line.lstrip().startswith(("%", "!")))
            with contextlib.redirect_stdout(out):
                exec(compile(src, f"{Path(nb).name} cell {i}", "exec"), ns)  # noqa: S102
            if params and "parameters" in cell.get("metadata", {}).get("tags", []):
                ns.update(params)
            if draw is not None:
                for num in plt.get_fignums():
                    fig = plt.figure(num)
                    # each axis's ticks worked out once per draw, as a report kernel prints a
                    # figure (plots.ticks_computed_once)
                    with ticks_computed_once(fig):
                        fig.draw_without_rendering()
                    draw.append((Path(nb).stem, i))
                    if on_figure is not None:
                        on_figure(i, fig)
            plt.close("all")
    return out.getvalue()
