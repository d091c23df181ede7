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
import dataclasses
import hashlib
import io
import json
import re
import warnings
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
    matplotlib's own methods back after it, so that no other test of this process sees them.
    Also the two speed-ups a report kernel draws with (``kernels.remember_state``) that act in
    a draw outside a print: ``plots.keep_text_layouts`` (each text laid out once per renderer
    kind within a ``ticks_computed_once`` block, as ``run_in_process`` draws) and
    ``plots.clone_ticks`` (a batch of new ticks made by copying its first): the same layouts,
    ticks and pictures as matplotlib's (tests/test_live_figure.py), in a third of the time for
    the notebooks' log axes' many minor ticks and their labels."""
    from matplotlib.axis import Axis
    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.mathtext import MathTextParser
    from matplotlib.text import Text
    from matplotlib.textpath import TextToPath

    measure, parse = RendererAgg.get_text_width_height_descent, MathTextParser._parse_cached
    vector_measure = TextToPath.get_text_width_height_descent
    layout, major, minor = Text._get_layout, Axis.get_major_ticks, Axis.get_minor_ticks
    try:
        installed = plots.share_text_measures()
        plots.keep_text_layouts()
        plots.clone_ticks()
        yield installed
    finally:
        RendererAgg.get_text_width_height_descent = measure
        TextToPath.get_text_width_height_descent = vector_measure
        MathTextParser._parse_cached = parse
        Text._get_layout = layout
        Axis.get_major_ticks, Axis.get_minor_ticks = major, minor


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


class Shown:
    """What a notebook's Explore panel shows (tests/test_explore_in_process.py): printed text,
    displayed objects as text, figures as digests of their pixels at ``plt.show()``.
    ``on_figure(figure)``, if set, is called with each figure after it is drawn, before it is
    closed."""

    def __init__(self):
        self.stdout = io.StringIO()
        self.on_figure: Callable[[object], None] | None = None
        self.reset()

    def reset(self):
        """Forget what was shown so far."""
        self.items: list[str] = []
        self.mark = len(self.stdout.getvalue())

    def display(self, *objs, **_):
        import ipywidgets as w

        for obj in objs:
            if isinstance(obj, w.Widget):
                continue
            if hasattr(obj, "to_string"):
                self.items.append(obj.to_string())
            elif hasattr(obj, "data"):
                self.items.append(str(obj.data))
            else:
                self.items.append(repr(obj))

    def show(self, *_, **__):
        for num in plt.get_fignums():
            fig = plt.figure(num)
            fig.canvas.draw()
            self.items.append("figure " + hashlib.sha1(
                bytes(fig.canvas.buffer_rgba())).hexdigest())
            if self.on_figure is not None:
                self.on_figure(fig)
        plt.close("all")

    def text(self) -> str:
        return self.stdout.getvalue()[self.mark:] + "\n".join(self.items)


EXPLORE = re.compile(r"^#+\s*Explore\b", re.M)


@dataclasses.dataclass
class DefaultRun:
    """One run of a numbered notebook on its defaults in this process (``default_run``), what
    two tests check of it: every figure's text against the floor (``small``: ``(cell, text,
    points, floor)`` under it; ``drawn``: the figures checked; tests/test_figure_text_floor.py),
    and, for a notebook that declares ``interactive``, its Explore panel
    (tests/test_explore_in_process.py: ``explore``, whether an Explore heading was met;
    ``panel``, the first widget displayed after it; ``before``, what the panel showed then;
    ``warnings``, the warnings recorded; ``shown``, ``ns`` and ``display`` to move the panel's
    control afterwards). ``error``: what the run raised, if it raised (each test raises it)."""

    small: list = dataclasses.field(default_factory=list)
    drawn: list = dataclasses.field(default_factory=list)
    interactive: bool = False
    explore: bool = False
    panel: object = None
    before: str | None = None
    warnings: list = dataclasses.field(default_factory=list)
    shown: Shown | None = None
    ns: dict | None = None
    display: Callable | None = None
    error: BaseException | None = None


#: ``default_run``'s runs kept for the next test that asks (one run per notebook per process).
_DEFAULT_RUNS: dict = {}


def default_run(nb: Path, *, keep: bool) -> DefaultRun:
    """``nb`` run once in this process on its defaults (``DefaultRun``), for every test that
    checks it: tests/test_figure_text_floor.py and tests/test_explore_in_process.py check the
    same run instead of running the default notebooks twice. The run is kept for the next
    caller while ``keep`` (the last caller passes False, and the run is forgotten)."""
    key = Path(nb).resolve()
    run = _DEFAULT_RUNS.pop(key, None)
    if run is None:
        run = _run_default(key)
    if keep:
        _DEFAULT_RUNS[key] = run
    return run


def _run_default(nb: Path) -> DefaultRun:
    """Run ``nb``: every figure drawn and measured against the floor; for an interactive
    notebook, displays and ``plt.show()`` recorded (``Shown``: a shown figure is rasterized,
    its pixels digested, measured, then closed), and warnings recorded under the caller's own
    filters: a UserWarning has no filter there, so Python's default action shows (records) the
    first of each, once-per-location registries emptied on entering the block; no
    ``simplefilter("always")``, which would also key every disk-cached table the notebook
    computes apart from the other in-process tests' (``core.diskcache``)."""
    from llmcost.present import report

    run = DefaultRun(interactive="interactive" in report.declared_parameters(nb))
    cell_at = [None]

    def check(cell, fig):
        run.small.extend((cell, *t) for t in plots.text_under_floor(fig))

    if not run.interactive:
        try:
            run_in_process(nb, draw=run.drawn, on_figure=check)
        except Exception as e:  # noqa: BLE001 (raised again by each test that checks the run)
            run.error = e
        return run
    import IPython.display
    import ipywidgets as w
    import pytest

    shown = run.shown = Shown()

    def on_shown(fig):
        run.drawn.append((nb.stem, cell_at[0]))
        check(cell_at[0], fig)

    def before_cell(i, cell):
        cell_at[0] = i
        if cell["cell_type"] == "markdown" and EXPLORE.search("".join(cell["source"])):
            run.explore = True
        if run.panel is None:
            shown.reset()

    def display(*objs, **kw):
        for obj in objs:
            if run.explore and run.panel is None and isinstance(obj, w.Widget):
                run.panel, run.before = obj, shown.text()
        shown.display(*objs, **kw)

    run.display, run.ns = display, {"__name__": "__main__", "display": display}
    shown.on_figure = on_shown
    with pytest.MonkeyPatch.context() as mp, warnings.catch_warnings(record=True) as caught:
        mp.setattr(IPython.display, "display", display)  # a notebook may import it
        # a function, not the bound method: matplotlib sets plt.show's __signature__
        mp.setattr(plt, "show", lambda *a, **k: shown.show())
        try:
            run_in_process(nb, ns=run.ns, before_cell=before_cell, stdout=shown.stdout,
                           draw=run.drawn, on_figure=check)
        except Exception as e:  # noqa: BLE001 (raised again by each test that checks the run)
            run.error = e
    shown.on_figure = None
    run.warnings = list(caught)
    return run
