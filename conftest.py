"""Repository-wide pytest configuration (applies to tests/ and to the notebooks nbval runs).

nbval compares what a reader sees: the plain-text outputs of ``# NBVAL_CHECK_OUTPUT`` cells, where
headline numbers are printed rounded. The JSON copy that ``llmcost.report.publish_summary`` adds
under ``SUMMARY_MIME`` carries full float precision for the report, so a last-digit change in numpy
would fail the comparison without any visible change: nbval is told to skip that MIME type. Whether
the numbers are right is checked against sourced bands in tests/test_report.py
(tests/data/summary_bands.csv), not by nbval.
"""

import gc
import importlib
import importlib.util
import sys
import types
from pathlib import Path

import pytest


def _rfc3987_syntax_on_first_use() -> None:
    """``rfc3987_syntax`` imported when first used, not when ``jsonschema`` is imported.

    nbval imports nbformat, which imports jsonschema, whose format checkers import
    ``rfc3987_syntax.is_valid_syntax`` if it is installed; importing it builds its Lark parser
    of RFC 3987's grammar, about 1.1 s of CPU in every pytest process (the controller and each
    worker), though no notebook check reads an IRI. In its place stands a module whose
    ``is_valid_syntax`` (and any other name) imports the real one at the first call and
    answers with it: the same answers, built on first use. Nothing is done if it is not
    installed or already imported. nbval is loaded after this (``pytest_plugins`` below; its
    entry point is turned off in pyproject.toml's addopts, ``-p no:nbval``), since a plugin's
    entry point is imported before any conftest."""
    name = "rfc3987_syntax"
    if name in sys.modules or importlib.util.find_spec(name) is None:
        return
    stand_in = types.ModuleType(name)
    real: list = []

    def module():
        if not real:
            if sys.modules.get(name) is stand_in:
                del sys.modules[name]
            real.append(importlib.import_module(name))
        return real[0]

    def is_valid_syntax(term, value):
        return module().is_valid_syntax(term, value)

    def __getattr__(attr):
        if attr.startswith("__"):  # what the import system asks of a module (``__path__``)
            raise AttributeError(attr)
        return getattr(module(), attr)

    stand_in.is_valid_syntax, stand_in.__getattr__ = is_valid_syntax, __getattr__
    sys.modules[name] = stand_in


_rfc3987_syntax_on_first_use()
pytest_plugins = ["nbval.plugin"]

from llmcost.present.kernels import RESET, WARM_UP  # noqa: E402
from llmcost.present.report import SUMMARY_MIME  # noqa: E402


def pytest_collection_modifyitems(items):
    for item in items:
        parent = getattr(item, "parent", None)
        skip = getattr(parent, "skip_compare", None)
        if skip is not None and SUMMARY_MIME not in skip:
            parent.skip_compare = tuple(skip) + (SUMMARY_MIME,)


#: What nbval's kernels run once, after ``kernels.WARM_UP`` (``pytest_configure``): every figure
#: printed is laid out and drawn without rasterizing (``Figure.draw_without_rendering``, inside
#: ``plots.ticks_computed_once`` as a report kernel draws it) and stands as a 1-pixel PNG. The
#: printing function holds what it uses (default arguments), since each later notebook's reset
#: forgets the kernel's names. What is alive then (matplotlib, the package) goes to the
#: collector's permanent generation, as in a report's warm kernel (``llmcost.present.kernels``):
#: full collections skip it.
LAYOUT_ONLY = '''
from matplotlib.backend_bases import FigureCanvasBase as _Canvas
from llmcost.present.plots import ticks_computed_once as _ticks_once
def _print_figure(self, filename, *args, _ticks_once=_ticks_once, _png=bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c63f8ffffff7f0009fb03fd2a86e38a"
        "0000000049454e44ae426082"), **kwargs):
    with _ticks_once(self.figure):
        self.figure.draw_without_rendering()
    filename.write(_png)
_Canvas.print_figure = _print_figure
del _Canvas, _print_figure, _ticks_once
import gc as _gc
_gc.collect()
_gc.freeze()
del _gc
'''


def pytest_configure(config):
    """Each pytest-xdist worker rewrites its share of the test files' asserts first
    (``_rewrite_share``), then nbval's kernels are set up (``_nbval_kernels``)."""
    _rewrite_share(config)
    _nbval_kernels(config)


def _rewrite_share(config) -> None:
    """In a pytest-xdist worker, rewrite the asserts of every n-th test file the run collects
    (n workers, this worker's index the offset) and write pytest's cached ``.pyc`` for it, before collection.
    Rewriting is pytest's slowest step on a fresh clone (about 7 CPU-s for tests/, some 5,000
    asserts): without this both workers rewrite every file at once, each writing the same
    ``.pyc``; with it each rewrites half, and collection reads the other half's ``.pyc`` from
    the other worker (or rewrites a file itself if that is not written yet). pytest checks each
    ``.pyc`` against its source and its own version as it reads it. This uses pytest's assertion
    rewriting module (``_pytest.assertion.rewrite``, the functions its import hook calls); if
    that changes, nothing is done here and collection rewrites as before."""
    worker = getattr(config, "workerinput", None)
    if worker is None or sys.dont_write_bytecode or config.getoption("assertmode") != "rewrite":
        return
    try:
        from _pytest.assertion import rewrite

        index, count = int(worker["workerid"][2:]), int(worker["workercount"])
        files = sorted({f.resolve() for arg in config.args for f in _test_files(Path(
            arg.split("::")[0]))})[index::count]
        for fn in files:
            cache_dir = rewrite.get_cache_dir(fn)
            pyc = cache_dir / (fn.name[:-3] + rewrite.PYC_TAIL)
            if not rewrite.try_makedirs(cache_dir) or \
                    rewrite._read_pyc(fn, pyc, lambda *a: None) is not None:
                continue
            source_hash, co = rewrite._rewrite_test(fn, config)
            rewrite._write_pyc(config.stash[rewrite.assertstate_key], co, source_hash, pyc)
    except Exception:  # noqa: BLE001 (only a speed-up: collection rewrites as before)
        return


def _test_files(path: Path) -> list:
    """The test files (``test_*.py``) a collection argument names: itself, or those under it."""
    if path.is_dir():
        return list(path.rglob("test_*.py"))
    return [path] if path.name.startswith("test_") and path.suffix == ".py" else []


def _nbval_kernels(config) -> None:
    """nbval's kernels draw each figure without rasterizing it (``LAYOUT_ONLY``). nbval compares
    no image (``image/png`` is in its ``skip_compare`` without ``--nbdime``): what it checks of a
    figure is that it is made, laid out and drawn, and every artist's draw code still runs (a bad
    label or a layout that cannot be solved fails the cell). The pixels are rendered where the
    default scenario's report runs the same notebooks (tests/test_report.py), and the report
    pages' images are what the browser tests look at. About a third of a notebook kernel's CPU
    is rasterizing PNGs.

    Each worker's notebooks run in turn in one warm kernel, as a report's do
    (``llmcost.present.kernels``): started and imported once (``kernels.WARM_UP``, then
    ``LAYOUT_ONLY``), and reset before each later notebook (``kernels.RESET``: names, figures,
    matplotlib settings, warnings filters and registries, widgets, numpy's random state; what
    tests/test_kernels.py checks a later notebook does not see). A kernel that died, or whose
    reset failed, is replaced by a new one, and one that fails to start or warm up is started
    once more; the last is stopped when the session ends. A fresh
    kernel per notebook paid its start and imports (about 2 s of CPU) for each of the twelve."""
    try:
        from nbval.plugin import IPyNbFile
    except ImportError:
        return
    if getattr(IPyNbFile.setup, "_llmcost_layout_only", False):
        return
    plain_setup, plain_teardown = IPyNbFile.setup, IPyNbFile.teardown

    def setup(self):
        cwd = str(self.fspath.dirname)
        kept = _KEPT.get("kernel")
        if kept is not None and _KEPT.get("cwd") == cwd and kept.is_alive() \
                and _ran_ok(kept, RESET):
            self.kernel = kept
            self.setup_sanitize_files()
            return
        _stop_kept()
        for attempt in (1, 2):  # a kernel that fails to start or warm up is started once more
            try:
                plain_setup(self)
            except RuntimeError:  # nbval's own: no kernel info or IOPub within its timeout
                if attempt == 2:
                    raise
                continue
            if _ran_ok(self.kernel, WARM_UP + LAYOUT_ONLY, timeout_s=120):
                break
            if self.kernel.is_alive():
                self.kernel.stop()
            if attempt == 2:
                raise RuntimeError(f"{self.fspath}: the kernel's warm-up failed twice")
        _KEPT.update(kernel=self.kernel, cwd=cwd)

    def teardown(self):
        if self.kernel is not None and self.kernel is _KEPT.get("kernel") \
                and self.kernel.is_alive():
            return  # kept for the worker's next notebook, reset before it
        plain_teardown(self)

    setup._llmcost_layout_only = True
    IPyNbFile.setup, IPyNbFile.teardown = setup, teardown


#: The worker's warm nbval kernel and its working folder (``pytest_configure``).
_KEPT: dict = {}


def _ran_ok(kernel, code: str, timeout_s: float = 60) -> bool:
    """Run ``code`` silently in an nbval kernel; whether it ran without an error (its output
    is drained up to the kernel's idle status, so that no message of it reaches a cell)."""
    try:
        msg_id = kernel.kc.execute(code, silent=True, store_history=False)
        while True:
            reply = kernel.kc.get_shell_msg(timeout=timeout_s)
            if reply["parent_header"].get("msg_id") == msg_id:
                break
        kernel.await_idle(msg_id, timeout_s)
    except Exception:  # noqa: BLE001 (a kernel that does not answer is replaced)
        return False
    return reply["content"]["status"] == "ok"


def _stop_kept() -> None:
    kernel = _KEPT.pop("kernel", None)
    _KEPT.pop("cwd", None)
    if kernel is not None and kernel.is_alive():
        kernel.stop()


def pytest_sessionfinish(session):
    _stop_kept()


def pytest_collection_finish(session):
    """Everything alive after collection (the package, pandas, matplotlib, the collected items)
    goes to the collector's permanent generation (``gc.collect()`` then ``gc.freeze()``), and
    again after each file (``pytest_runtest_teardown``): a full collection then walks only what
    the tests made since, not every module of the process. Measured on five test files in one
    process: the collector's time 3.1 s → 1.7 s of about 40 s. A file's garbage is collected
    before each freeze, so none is kept; a module-scoped fixture alive at the freeze stays in
    memory until the worker ends. The report does the same in its own process and kernels
    (``llmcost.present.kernels``)."""
    gc.collect()
    gc.freeze()


@pytest.hookimpl(trylast=True)  # after the file's fixtures are torn down
def pytest_runtest_teardown(item, nextitem):
    if nextitem is None or nextitem.path != item.path:
        gc.collect()
        gc.freeze()
