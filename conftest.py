"""Repository-wide pytest configuration (applies to tests/ and to the notebooks nbval runs).

nbval compares what a reader sees: the plain-text outputs of ``# NBVAL_CHECK_OUTPUT`` cells, where
headline numbers are printed rounded. The JSON copy that ``llmcost.report.publish_summary`` adds
under ``SUMMARY_MIME`` carries full float precision for the report, so a last-digit change in numpy
would fail the comparison without any visible change: nbval is told to skip that MIME type. Whether
the numbers are right is checked against sourced bands in tests/test_report.py
(tests/data/summary_bands.csv), not by nbval.
"""

import gc

import pytest

from llmcost.present.report import SUMMARY_MIME


def pytest_collection_modifyitems(items):
    for item in items:
        parent = getattr(item, "parent", None)
        skip = getattr(parent, "skip_compare", None)
        if skip is not None and SUMMARY_MIME not in skip:
            parent.skip_compare = tuple(skip) + (SUMMARY_MIME,)


#: What nbval's kernels run before a notebook (``_layout_only_kernels``): every figure printed
#: is laid out and drawn without rasterizing (``Figure.draw_without_rendering``, inside
#: ``plots.ticks_computed_once`` as a report kernel draws it) and stands as a 1-pixel PNG. What
#: is alive then (matplotlib, the package) goes to the collector's permanent generation, as in a
#: report's warm kernel (``llmcost.present.kernels``): full collections skip it.
LAYOUT_ONLY = '''
from matplotlib.backend_bases import FigureCanvasBase as _Canvas
from llmcost.present.plots import ticks_computed_once as _ticks_once
_ONE_PIXEL_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c63f8ffffff7f0009fb03fd2a86e38a"
    "0000000049454e44ae426082")
def _print_figure(self, filename, *args, **kwargs):
    with _ticks_once(self.figure):
        self.figure.draw_without_rendering()
    filename.write(_ONE_PIXEL_PNG)
_Canvas.print_figure = _print_figure
del _Canvas, _print_figure
import gc as _gc
_gc.collect()
_gc.freeze()
'''


def pytest_configure(config):
    """nbval's kernels draw each figure without rasterizing it (``LAYOUT_ONLY``). nbval compares
    no image (``image/png`` is in its ``skip_compare`` without ``--nbdime``): what it checks of a
    figure is that it is made, laid out and drawn, and every artist's draw code still runs (a bad
    label or a layout that cannot be solved fails the cell). The pixels are rendered where the
    default scenario's report runs the same notebooks (tests/test_report.py), and the report
    pages' images are what the browser tests look at. About a third of a notebook kernel's CPU
    is rasterizing PNGs."""
    try:
        from nbval.plugin import IPyNbFile
    except ImportError:
        return
    if getattr(IPyNbFile.setup, "_llmcost_layout_only", False):
        return
    plain = IPyNbFile.setup

    def setup(self):
        plain(self)
        msg_id = self.kernel.kc.execute(LAYOUT_ONLY, silent=True, store_history=False)
        self.kernel.await_idle(msg_id, 60)

    setup._llmcost_layout_only = True
    IPyNbFile.setup = setup


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
