"""Warm kernels: one Jupyter kernel runs a report's notebooks in turn, imported once.

A fresh kernel per notebook pays, for every notebook, the kernel's start and the imports of
numpy, pandas, matplotlib, ipywidgets and llmcost (about 2 s of CPU a notebook on a 2-core
machine), and recomputes in every kernel what does not depend on the scenario (the catalogues,
the step model's validation tables). A report instead starts one kernel per worker (``jobs`` of
them), imports those once (``WARM_UP``), and before each notebook after the first runs
``RESET``, which forgets what a notebook leaves behind:

* its names (IPython's ``reset(new_session=True)``, which also restarts the execution count and
  the output history);
* its figures (``plt.close("all")``) and matplotlib settings (``rcParams`` back to their state
  after the warm-up, when the inline backend had set its own);
* the warnings filters it added, and the once-per-location registries (a warning a notebook
  raises is shown in that notebook, whichever notebook raised it before);
* its widgets (``Widget.close_all()``);
* numpy's global random state (reseeded from the operating system, as a new process would be;
  llmcost's own draws use explicit seeded generators).

The warm-up also draws each figure once per cell instead of twice (``draw_figures_once``),
has each axis compute its ticks once per layout and draw instead of three to five times
(``plots.keep_ticks_while_printing``), has every figure of the kernel share one measure of
each text and one parse of each math text (``plots.share_text_measures``), and prints each
figure the inline backend crops with one draw instead of two (``plots.print_with_one_draw``):
the same pixels, a third less drawing, then a quarter less again, then an eighth; and it has
each text lay itself out once per print instead of at each of its measures
(``plots.keep_text_layouts``), the same pixels again; and it has an axis that needs new ticks
make one and copy it for the others (``plots.clone_ticks``), the same ticks; and it reads each
math text's vector layout from the disk cache (``plots.keep_math_layouts_on_disk``), parsed once
for every kernel and report, the same SVG; and it reads each figure's whole SVG from the disk
cache when a kernel of this or an earlier report printed a figure with the same state
(``plots.keep_svg_prints_on_disk``, keyed by the figure's pickle, its arrays by their values,
and the settings): a second report of the default scenario draws none of its 68 figures, or
one, the same SVG. Each cell
is transformed and checked for top-level ``await`` once instead of twice
(``transform_cells_once``), and answered without ipykernel's 0.5 ms sleep
(``no_sleep_after_cells``): the same outputs.

After the warm-up and after each reset, what is alive is moved out of the garbage
collector's reach (``gc.collect()`` then ``gc.freeze()``, ``freeze_what_stays``): the modules,
their caches and the figures' shared text measures are not traversed again by every full
collection a notebook triggers (a tenth of a notebook's CPU went to collections that each
walked the whole warm-up, pandas and matplotlib included). A notebook's own garbage, cycles
included, is collected before the freeze, so it is never kept; collected once per reset, not
twice (IPython's reset collects too: ``collect_once``). And from the warm-up's first line on,
the collector runs its young collections less often (``workers.GC_THRESHOLDS``).

The imported modules and their caches stay: that is the point. What a notebook shows therefore
depends on the scenario and the notebook only, as with a fresh kernel; tests/test_kernels.py
runs two notebooks that change all of the above in one warm kernel and checks the second sees
none of it.

This module is what runs in the kernel. The report process's side (``WarmKernel``, which
starts the kernel, warms it up, resets it between notebooks, and replaces it when it died or
does not answer; ``WARM_UP``, ``RESET``) is ``workers.py``, which imports neither numpy nor
this module's figures so that ``python -m llmcost report`` starts its kernels before it imports
the package; its names are also read here (``kernels.WarmKernel``).
"""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import warnings

import numpy as np

from . import plots
from .workers import (  # noqa: F401 (the report process's side, read as kernels.<name>)
    ENV_IGNORED,
    FIGURE_FORMATS,
    GC_THRESHOLDS,
    RESET,
    WARM_UP,
    WARM_UP_SVG,
    KernelStartError,
    WarmKernel,
    own_session,
    reset_code,
    started_env,
)


_STATE: dict = {}


def remember_state(figures: str = "png") -> None:
    """Keep the matplotlib settings and warnings filters of a freshly warmed-up kernel (runs in
    the kernel); its figures are shown as ``figures`` (``FIGURE_FORMATS``: "png", the inline
    backend's default, or "svg", ``svg_figures``)."""
    import matplotlib
    import matplotlib.pyplot as plt

    if figures not in FIGURE_FORMATS:
        raise ValueError(f"figures={figures!r}: must be one of {', '.join(FIGURE_FORMATS)}")
    # pyplot loads its backend at the first figure; the inline backend then turns interactive
    # mode on (IPython's ``activate_matplotlib``), without which a figure is never queued for
    # display. Load it now, so that the settings kept below, which every reset restores, are
    # the inline backend's (a snapshot taken before would turn interactive mode off again and
    # no later notebook in this kernel would show a figure).
    plt.switch_backend(matplotlib.get_backend())
    if figures == "svg":  # after the backend's own choice of formats, which it makes once
        svg_figures()
    draw_figures_once()
    lighter_cells()
    transform_cells_once()
    no_sleep_after_cells()
    plots.keep_ticks_while_printing()
    plots.print_with_one_draw()
    plots.share_text_measures()
    plots.keep_math_layouts_on_disk()
    plots.keep_text_layouts()
    plots.clone_ticks()
    plots.describe_svg_figures()
    plots.keep_svg_prints_on_disk()  # last: it wraps the other print speed-ups
    _STATE["rc"] = matplotlib.rcParams.copy()
    _STATE["filters"] = list(warnings.filters)
    freeze_what_stays(full=False)


def svg_figures(shell=None) -> None:
    """Have the inline backend show every figure as SVG instead of PNG (runs in a kernel with
    the inline backend loaded; ``shell`` defaults to the running IPython). A report's kernels
    do (``kernels.WARM_UP_SVG``): for the default scenario's 68 figures, printed with the other
    speed-ups of ``remember_state``, 8.3 CPU-s as PNGs and 6.1 as SVGs (no rasterizing and no
    PNG compression), and 2.6 MB of SVG instead of 5.4 MB of PNG (7.2 MB once in base64 in the
    pages). An SVG is drawn at any size, on a projector and in a PDF printed from the page.

    What is printed: text as text (``svg.fonttype: none``: the reader's sans-serif font, the
    figure's layout measured with matplotlib's DejaVu Sans), the ids of clip paths and
    markers from a fixed salt (``svg.hashsalt``: the same figure gives the same bytes in every
    run), no date (``metadata={"Date": None}``), the same crop as a PNG (``bbox_inches="tight"``,
    the inline backend's default); matplotlib's SVG backend lays a figure out at 72 dpi, so a
    7-inch-wide figure is 504 pt (672 CSS px) wide, where the inline backend's PNG, at its 100
    dpi, shows 700 px. The settings are part of the state each reset restores."""
    import matplotlib
    from IPython.core.pylabtools import select_figure_formats

    if shell is None:
        from IPython import get_ipython
        shell = get_ipython()
    matplotlib.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "llmcost"})
    select_figure_formats(shell, {"svg"}, bbox_inches="tight", metadata={"Date": None})


def freeze_what_stays(full: bool = True) -> None:
    """Collect the garbage (cycles included), then move every object still alive to the
    collector's permanent generation (``gc.freeze``): later collections walk only what was
    made since. Runs in the kernel, after the warm-up and after each reset, when what is alive
    is what every later notebook keeps (modules, their caches); what a notebook leaves is
    garbage by then and collected first. A frozen object that becomes garbage later is not
    collected: at most a few cache entries, for the life of a report's kernel.

    ``full=False`` (the warm-up's) collects the young generations only (``gc.collect(1)``): the
    full collection after the warm-up's imports walked every module's objects to free 4 of
    them, 0.06 CPU-s of each kernel's start (measured with ``gc.callbacks``); what an import
    left in a cycle long enough to reach the oldest generation is frozen with the modules."""
    gc.collect(2 if full else 1)
    gc.freeze()


@contextlib.contextmanager
def collect_once():
    """Within the block, a full collection asked for (``gc.collect()``, ``gc.collect(2)``) is
    not made: for IPython's reset (``InteractiveShell.reset`` clears the output cache with
    ``DisplayHook.flush``, which ends with ``gc.collect()``), which ``restore_state`` follows
    with its own collection (``freeze_what_stays``): the same garbage collected, once instead
    of twice. Measured over a report's ten resets: 0.10-0.13 CPU-s of full collections (their
    second walk of what the notebook left alive). The collector's own automatic collections,
    and a younger one asked for (matplotlib's ``gc.collect(1)`` when a figure closes), run as
    before."""
    full = gc.collect

    def young_only(generation=2):
        return 0 if generation == 2 else full(generation)

    gc.collect = young_only
    try:
        yield
    finally:
        gc.collect = full


def draw_figures_once(shell=None) -> bool:
    """Skip the draw after a cell that nobody sees (runs in a kernel with pyplot loaded).

    In IPython, pyplot registers ``_draw_all_if_interactive`` on the shell's ``post_execute``
    event (``matplotlib.pyplot.install_repl_displayhook``): after every cell it draws every
    stale figure, as an interactive window needs. With the inline backend, matplotlib-inline's
    ``flush_figures`` then renders each figure to the PNG the notebook keeps (a draw without
    rendering for the tight bounding box, then the draw to pixels); the hook's draw is never
    shown. Removing the hook saves one of the three draws (constrained layout included) per
    figure, a third of the profiled time of a figure-heavy notebook
    (``benchmarks/profile_notebooks.py``: 5.1 of 17.7 s in 03, 8.5 of 21.4 s in 04, for the
    Llama 3.1 405B scenario). A PNG may differ from a twice-drawn one by a few pixels (the
    layout runs once instead of twice); printed and text outputs are the same. Returns
    whether the hook was there and was removed; ``shell`` defaults to the running IPython."""
    import matplotlib.pyplot as plt

    if shell is None:
        from IPython import get_ipython
        shell = get_ipython()
    hook = getattr(plt, "_draw_all_if_interactive", None)
    if shell is None or hook is None:
        return False
    try:
        shell.events.unregister("post_execute", hook)
    except ValueError:  # not registered (pyplot not installed in this shell)
        return False
    return True


def lighter_cells(shell=None) -> dict:
    """Take two costs off every cell the kernel runs that change nothing it sends (runs in a
    kernel; ``shell`` defaults to the running IPython). Returns what was done.

    * ipykernel 7 asks, for every ``execute_request``, which of ``cell_id`` and ``cell_meta``
      the shell's ``run_cell_async`` accepts, with ``inspect.signature``
      (``ipykernel.kernelbase._accepts_parameters``, called from ``IPythonKernel.do_execute``):
      the answer for a given function never changes, so it is kept per function and names.
    * The kernel application's logger is at DEBUG while its one handler is at the level the
      command line sets (a report's: CRITICAL, ``report.KERNEL_ARGS``), so each of the four
      or so ``log.debug`` calls per message made a log record that the handler then dropped.
      The logger is raised to the lowest level of the handlers its records reach (its own,
      and its ancestors' while it propagates): what the handlers emit is unchanged.

    Measured with ``cProfile`` on the kernel's main thread (thread CPU time), 300 one-line
    cells: the two were 0.19 of 1.39 s in ``dispatch_shell``."""
    if shell is None:
        from IPython import get_ipython
        shell = get_ipython()
    done = {}
    try:
        from ipykernel import ipkernel
    except ImportError:  # not in a kernel
        return done
    accepts = getattr(ipkernel, "_accepts_parameters", None)
    if accepts is not None and not hasattr(accepts, "_llmcost_kept"):
        kept = {}

        def accepts_kept(meth, param_names):
            key = (getattr(meth, "__func__", meth), tuple(param_names))
            if key not in kept:
                kept[key] = accepts(meth, param_names)
            return dict(kept[key])

        accepts_kept._llmcost_kept = True
        ipkernel._accepts_parameters = accepts_kept
        done["accepts_parameters"] = True
    log = getattr(getattr(shell, "kernel", None), "log", None)
    if isinstance(log, logging.Logger):
        levels, node = [], log
        while node is not None:
            levels += [h.level for h in node.handlers]
            node = node.parent if node.propagate else None
        if levels and min(levels) > log.getEffectiveLevel():
            log.setLevel(min(levels))
            done["log_level"] = min(levels)
    return done


def _last_only(fn, key):
    """``fn(x)`` keeping its last result for ``key(x)``: called again with the same key (the
    same cell, at once), the result is read back instead of computed again. An ``fn`` that
    raises keeps nothing (it raises again on the next call, as before)."""
    last: list = []

    def once(x):
        k = key(x)
        if not last or last[0] != k:
            last[:] = [k, fn(x)]
        return last[1]

    return once


def transform_cells_once(shell=None) -> dict:
    """Have each cell the kernel runs transformed and checked for top-level ``await`` once
    instead of twice (runs in a kernel; ``shell`` defaults to the running IPython). Returns
    what was done.

    ipykernel 7's ``IPythonKernel.do_execute`` transforms a cell (``shell.transform_cell``:
    IPython's static input transformations, ``%magic``, ``!cmd``, ``?`` and the rest,
    ``IPython.core.inputtransformer2.TransformerManager.transform_cell``, which tokenizes the
    whole cell) and compiles the result to ask whether it awaits at top level
    (``should_run_async``: ``async_helpers._should_be_async`` compiles it with
    ``PyCF_ALLOW_TOP_LEVEL_AWAIT``); a cell that does not, every notebook cell here, is then
    handed to ``shell.run_cell``, whose ``_run_cell`` does both again on the same text before
    parsing it a third time to run it. Both are functions of the text alone: the static
    transformations of the cell and the manager's lists of transformations (part of the
    key: a transformation added or removed is applied), the check of the transformed text.
    Each keeps its last result (``_last_only``), so the second call of a cell reads the
    first's. IPython's dynamic transformations (``prefilter_lines``, for one-line cells: they
    read the namespace) still run at every call. Measured with ``cProfile`` on the kernels'
    main threads over the default scenario's twelve notebooks (421 cells): the two were
    0.76 of 32.0 profiled seconds, half of them the second calls."""
    if shell is None:
        from IPython import get_ipython
        shell = get_ipython()
    done = {}
    manager = getattr(shell, "input_transformer_manager", None)
    transform = getattr(manager, "transform_cell", None)
    if transform is not None and not hasattr(transform, "_llmcost_once"):
        def key(cell, m=manager):
            return (cell, tuple(m.cleanup_transforms), tuple(m.line_transforms),
                    tuple(m.token_transformers))

        once = _last_only(transform, key)
        once._llmcost_once = True
        manager.transform_cell = once
        done["transform_cell"] = True
    try:
        from IPython.core import async_helpers, interactiveshell
    except ImportError:  # not in IPython
        return done
    if not hasattr(interactiveshell._should_be_async, "_llmcost_once"):
        # looked up at each call, so that the check is IPython's own
        once = _last_only(lambda cell: async_helpers._should_be_async(cell), lambda cell: cell)
        once._llmcost_once = True
        interactiveshell._should_be_async = once
        done["should_be_async"] = True
    return done


def no_sleep_after_cells(shell=None) -> bool:
    """Have the kernel answer each cell without first sleeping 0.5 ms (runs in a kernel;
    ``shell`` defaults to the running IPython). Returns whether it slept before.

    ipykernel 7's ``Kernel.execute_request`` flushes the cell's standard output and error,
    then sleeps ``Kernel._execute_sleep`` (0.5 ms: "on rare occasions, the flush doesn't seem
    to make it to the clients... This seems to mitigate the problem") before it sends the
    reply. The flushes return once the kernel's IOPub thread has sent the cell's output
    (``OutStream.flush`` waits for it), and a report's client reads a cell's outputs until the
    kernel's "idle" status, sent on the same IOPub socket after them (nbclient's
    ``_async_poll_output_msg``), not until the reply: the outputs are the same without the
    sleep. Measured: 0.67 ms of each cell's wall time in a report's kernels (0.28 s over the
    default scenario's 421 cells: ``time.sleep`` in the kernels' profile)."""
    if shell is None:
        from IPython import get_ipython
        shell = get_ipython()
    kernel = getattr(shell, "kernel", None)
    if kernel is None or not getattr(kernel, "_execute_sleep", 0):
        return False
    kernel._execute_sleep = 0
    return True


def restore_state(shell, cwd: str | None = None) -> None:
    """Forget what the previous notebook left in this kernel (runs in the kernel; see the
    module's docstring for the list). ``shell`` is the kernel's IPython shell; ``cwd``, when
    given, the working folder the next notebook runs in (``os.chdir``)."""
    import ipywidgets
    import matplotlib
    import matplotlib.pyplot as plt

    if not _STATE:
        raise RuntimeError("restore_state() before remember_state(): the kernel was not warmed "
                           "up with kernels.WARM_UP")
    plt.close("all")
    ipywidgets.Widget.close_all()
    with collect_once():  # freeze_what_stays collects below
        shell.reset(new_session=True)
    with warnings.catch_warnings():  # some rcParams are deprecated aliases: set them quietly
        warnings.simplefilter("ignore")
        matplotlib.rcParams.update(_STATE["rc"])
    warnings.resetwarnings()  # also invalidates every module's once-per-location registry
    warnings.filters[:] = _STATE["filters"]
    np.random.seed()
    if cwd is not None:
        os.chdir(cwd)
    freeze_what_stays()
