"""Warm kernels (llmcost/present/kernels.py): one kernel runs a report's notebooks in turn.

Two notebooks run, one after the other, in one ``WarmKernel`` through papermill, as a report
runs them. The first leaves behind everything a notebook can leave in a kernel (names, an open
figure, a matplotlib setting, a warnings filter, a once-shown warning, a widget, numpy's global
random state); the second checks it sees none of it and shows its figure, as it would in a fresh
kernel, while the modules imported by the warm-up are still imported (the point of a warm kernel)."""

import json
from pathlib import Path

import nbformat
import papermill as pm
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from llmcost.present import kernels, report

pytestmark = pytest.mark.notebook

DIRTY = [
    "import warnings, numpy as np, matplotlib, matplotlib.pyplot as plt, ipywidgets",
    "leftover = 42",
    "fig = plt.figure(); matplotlib.rcParams['font.size'] = 31",
    "warnings.simplefilter('error', UserWarning)",
    "np.random.seed(0); first_draw = float(np.random.rand())",
    "slider = ipywidgets.IntSlider()",
    "def warn(): warnings.warn('shown once per location', RuntimeWarning)",
    # garbage in a cycle: collected at the reset, not frozen with what stays (freeze_what_stays)
    ("import weakref, builtins\nclass Cycle: pass\n"
     "c = Cycle(); c.me = c; builtins._llmcost_cycle = weakref.ref(c); del c"),
    # the full collections asked for from here on are counted (the reset's: collect_once)
    ("import gc, builtins\nbuiltins._llmcost_full = 0\n"
     "def counting(generation=2, full=gc.collect, b=builtins):  # outlives the reset\n"
     "    b._llmcost_full += generation == 2\n    return full(generation)\n"
     "gc.collect = counting"),
]
CHECK = [
    "import sys, warnings, numpy as np, matplotlib, matplotlib.pyplot as plt, ipywidgets",
    "assert 'leftover' not in globals() and 'fig' not in globals()",
    "assert plt.get_fignums() == [] and matplotlib.rcParams['font.size'] != 31",
    "warnings.warn('a UserWarning is no longer an error')",
    "assert len(ipywidgets.Widget.widgets) == 0",
    "plt.plot([1, 2]);",  # shown, as in a fresh kernel (the inline backend's interactive mode)
    ("draws = []; fig = plt.figure(); plt.plot([1, 2]); "
     "fig.canvas.mpl_connect('draw_event', lambda event: draws.append(event))"),
    ("print(len(draws), plt._draw_all_if_interactive in "
     "get_ipython().events.callbacks['post_execute'])"),
    ("import gc, builtins; print(builtins._llmcost_cycle() is None, "
     "gc.get_freeze_count() > 0, builtins._llmcost_full, gc.get_threshold())"),
    "print(get_ipython().history_manager.enabled, _i == In[-2], len(In))",
    ("import json; print(json.dumps({'llmcost': 'llmcost' in sys.modules, "
     "'draw': float(np.random.rand())}))"),
]


def _notebook(path, lines):
    nb = new_notebook(cells=[new_code_cell(line) for line in lines])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nbformat.write(nb, path)
    return path


def _run(kernel, src, dst):
    pm.execute_notebook(str(src), str(dst), kernel_name="python3", progress_bar=False,
                        km=kernel.ready(str(src.parent)), cwd=str(src.parent))
    return nbformat.read(dst, as_version=4)


def _forgets_the_previous_notebook(kernel, tmp_path):
    """The first two notebooks a warm kernel runs (module docstring): the second sees nothing
    the first left, in the same kernel."""
    dirty = _notebook(tmp_path / "dirty.ipynb", DIRTY)
    check = _notebook(tmp_path / "check.ipynb", CHECK)
    first = _run(kernel, dirty, tmp_path / "dirty_out.ipynb")
    pid = kernel.km.provisioner.process.pid
    out = _run(kernel, check, tmp_path / "check_out.ipynb")
    assert kernel.km.provisioner.process.pid == pid and kernel.starts == 1  # same kernel
    last = json.loads(out.cells[-1].outputs[0]["text"])
    assert last["llmcost"]  # the warm-up's imports stayed
    first_draw = next(c for c in first.cells if "first_draw" in c.source)
    assert first_draw.outputs == []
    assert last["draw"] != pytest.approx(0.5488135039273248)  # seed(0)'s first draw
    # execution counts restart at 1, as in a fresh kernel
    assert [c.execution_count for c in out.cells] == list(range(1, len(CHECK) + 1))
    # the warning is shown in the second notebook (stderr), not turned into an error
    warned = out.cells[3].outputs
    assert warned and warned[0]["name"] == "stderr" and "no longer an error" in (
        warned[0]["text"])
    # a figure made in the second notebook is displayed (a PNG output of its cell)
    assert any("image/png" in o.get("data", {}) for o in out.cells[5].outputs)
    # ... drawn once (its pixels: the tight bounding box is measured without a draw,
    # plots.print_with_one_draw; matplotlib's own print draws twice), not twice or three
    # times: pyplot's redraw after the cell is off (kernels.draw_figures_once)
    assert any("image/png" in o.get("data", {}) for o in out.cells[6].outputs)
    assert out.cells[7].outputs[0]["text"] == "1 False\n"
    # the first notebook's garbage was collected, by one full collection (IPython's reset
    # collects no more: kernels.collect_once); what stays after the reset is frozen; the
    # collector runs with the report kernels' thresholds (workers.GC_THRESHOLDS)
    assert out.cells[8].outputs[0]["text"] == f"True True 1 {kernels.GC_THRESHOLDS}\n"
    # the report's kernels keep their input history in memory only (report.KERNEL_ARGS)
    assert out.cells[9].outputs[0]["text"] == f"False True {len(CHECK)}\n"


def _transforms_each_cell_once_and_answers_without_sleeping(kernel, tmp_path):
    """In a warm kernel each cell's static transformations run once per execution, not twice
    (ipykernel's ``do_execute``, then IPython's ``_run_cell``: ``transform_cells_once``), and
    what the cells do is unchanged: a transformation counts the cells it sees, by text. The
    kernel answers without its 0.5 ms sleep (``no_sleep_after_cells``), and every cell's
    printed output is still in the notebook, in order. (Its counting transformation stays in
    the kernel: the last notebook that kernel runs.)"""
    count = ("from collections import Counter\n_seen = Counter()\n"
             "def _count(lines):\n    _seen[''.join(lines)] += 1\n    return lines\n"
             "get_ipython().input_transformer_manager.cleanup_transforms.append(_count)")
    show = "print(sorted(_seen.values()), captured.stdout.strip(), echoed, y)"
    prints = [f"print({i}); print({i} + 1)" for i in range(20)]
    src = _notebook(tmp_path / "count.ipynb", [count, "x = 1", *TRANSFORMED, show,
                                               "print(get_ipython().kernel._execute_sleep)",
                                               *prints])
    out = _run(kernel, src, tmp_path / "count_out.ipynb")
    # the six cells after the counting one, and the body the %%capture cell runs, each seen
    # once (twice each without transform_cells_once)
    assert out.cells[len(TRANSFORMED) + 2].outputs[0]["text"] == \
        "[1, 1, 1, 1, 1, 1, 1] 2 ['hi'] 2\n"
    assert out.cells[len(TRANSFORMED) + 3].outputs[0]["text"] == "0.0\n"  # ipykernel's: 0.0005
    texts = ["".join(o["text"] for o in c.outputs) for c in out.cells[-len(prints):]]
    assert texts == [f"{i}\n{i + 1}\n" for i in range(20)]


def _a_dead_kernel_is_replaced(kernel, tmp_path):
    """A kernel killed between notebooks is started again for the next one."""
    check = _notebook(tmp_path / "ran.ipynb", CHECK[:1] + ["print('ran')"])
    km = kernel.ready(str(tmp_path))
    km.provisioner.process.kill()
    km.provisioner.process.wait()
    out = _run(kernel, check, tmp_path / "ran_out.ipynb")
    assert out.cells[-1].outputs[0]["text"] == "ran\n" and kernel.starts == 2


def test_a_warm_kernel_forgets_transforms_once_and_is_replaced_when_dead(tmp_path, monkeypatch):
    """One warm kernel's life (each step was a test starting a kernel of its own): it forgets
    the previous notebook (``_forgets_the_previous_notebook``), transforms each cell once and
    answers without sleeping (``_transforms_each_cell_once_and_answers_without_sleeping``),
    then, killed, is replaced (``_a_dead_kernel_is_replaced``)."""
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel's own (inline), as in a report
    kernel = kernels.WarmKernel(str(tmp_path), report.KERNEL_ARGS)
    try:
        _forgets_the_previous_notebook(kernel, tmp_path)
        _transforms_each_cell_once_and_answers_without_sleeping(kernel, tmp_path)
        _a_dead_kernel_is_replaced(kernel, tmp_path)
    finally:
        kernel.shutdown()
    assert kernel.km is None


def test_restore_before_remember_is_an_error():
    saved = dict(kernels._STATE)
    kernels._STATE.clear()
    try:
        with pytest.raises(RuntimeError, match="warmed up"):
            kernels.restore_state(None)
    finally:
        kernels._STATE.update(saved)


_FREEZE_IN_A_PROCESS = """
import gc, weakref
from llmcost.present import kernels

class Cycle:
    pass

def old_garbage():  # a cycle that reached the oldest generation alive, then was dropped
    c = Cycle(); c.me = c
    gc.collect(1)
    return weakref.ref(c)

def young_garbage():
    c = Cycle(); c.me = c
    return weakref.ref(c)

old, young = old_garbage(), young_garbage()
kernels.freeze_what_stays(full=False)
print(old() is not None, young() is None, gc.get_freeze_count() > 0)
gc.unfreeze()
old, young = old_garbage(), young_garbage()
kernels.freeze_what_stays()
print(old() is None, young() is None, gc.get_freeze_count() > 0)
"""


def test_freeze_what_stays_collects_before_it_freezes():
    """What is alive is frozen, and the garbage collected first: all of it after a reset
    (``freeze_what_stays()``); after the warm-up's imports (``full=False``), what is young
    only, an old cycle being frozen with the modules (in a process of its own: the test
    process's frozen objects are left alone)."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _FREEZE_IN_A_PROCESS], check=True,
                         capture_output=True, text=True).stdout
    assert out == "True True True\nTrue True True\n"


def _count_kernel_starts(monkeypatch) -> list:
    """A list that gets one item per kernel ``kernels.WarmKernel`` starts, once started: a
    launch that failed and was retried (a kernel whose port another test worker's kernel took
    between its choice and its bind, "ZMQError: Address already in use", seen once in CI) is not
    a kernel the report kept or replaced."""
    starts = []
    real = kernels.WarmKernel._start

    async def counted(self):
        got = await real(self)
        starts.append(1)
        return got

    monkeypatch.setattr(kernels.WarmKernel, "_start", counted)
    return starts


@pytest.mark.fresh_kernels
def test_a_notebook_after_a_failed_one_runs_in_the_same_kernel(tmp_path, monkeypatch):
    # A cell that raises leaves its warm kernel idle: the next notebook is reset into it and
    # runs (the kernel is not replaced); its names are not the failed notebook's.
    folder = tmp_path / "nbs"
    folder.mkdir()
    params = nbformat.v4.new_code_cell('model: str = "llama-2-70b"  # catalogue model name')
    params.metadata["tags"] = ["parameters"]
    cells = {"01_fail": ["leftover = 1", "raise ValueError('deliberate failure')"],
             "02_ok": ["print('leftover' in globals(), model)"]}
    for stem, lines in cells.items():
        nb = new_notebook(cells=[nbformat.v4.new_markdown_cell(f"# {stem[:2]} · {stem}?"),
                                 params] + [new_code_cell(line) for line in lines])
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                     "language": "python"}
        nbformat.write(nb, folder / f"{stem}.ipynb")
    monkeypatch.setattr(report, "NOTEBOOK_DIR", folder)
    starts = _count_kernel_starts(monkeypatch)
    sc = tmp_path / "s.yaml"
    sc.write_text("model: llama-2-70b\n")
    with pytest.raises(report.ReportError, match="01_fail"):
        report.run_report(sc, tmp_path / "out", jobs=1, progress=lambda s: None)
    ok = nbformat.read(tmp_path / "out" / "02_ok.ipynb", as_version=4)
    assert ok.cells[-1].outputs[0]["text"] == "False llama-2-70b\n"
    assert starts == [1]


FIGURE = ["import matplotlib.pyplot as plt",
          ("fig, ax = plt.subplots(figsize=(4, 3), layout='constrained'); "
           "ax.plot([1, 2, 3], label='$x^2$'); ax.set_yscale('log'); ax.legend(); "
           "ax.set_title('a title');")]


def test_a_report_kernel_shows_its_figures_as_svg(tmp_path, monkeypatch):
    """A report's kernel (``figures=report.FIGURES``, ``kernels.svg_figures``) shows a figure as
    SVG only, its text as text (``svg.fonttype: none``), with no date and ids from a fixed salt:
    the same figure, in the next notebook after a reset, gives the same bytes."""
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel's own (inline), as in a report
    assert report.FIGURES == "svg"
    src = _notebook(tmp_path / "figure.ipynb", FIGURE)
    kernel = kernels.WarmKernel(str(tmp_path), report.KERNEL_ARGS, figures=report.FIGURES)
    try:
        outs = [_run(kernel, src, tmp_path / f"out{i}.ipynb").cells[1].outputs for i in (1, 2)]
        assert kernel.starts == 1
    finally:
        kernel.shutdown()
    for outputs in outs:
        assert len(outputs) == 1 and "image/png" not in outputs[0]["data"]
    svg = outs[0][0]["data"]["image/svg+xml"]
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert ">a title</text>" in svg  # text as text, not glyph outlines
    assert "<dc:date>" not in svg
    assert outs[1][0]["data"]["image/svg+xml"] == svg


def test_a_kernel_figure_format_must_be_known(tmp_path):
    with pytest.raises(ValueError, match="figures='jpeg'"):
        kernels.WarmKernel(str(tmp_path), figures="jpeg")


def test_lighter_cells_keeps_what_the_kernel_answers_and_logs(monkeypatch):
    """``kernels.lighter_cells``: ipykernel's check of which parameters ``run_cell_async``
    accepts gives the answer ipykernel's own function gives (asked once per function), and the
    kernel's logger drops only what its handler dropped (a DEBUG logger with a CRITICAL
    handler: the logger is raised to CRITICAL; one with a DEBUG handler is left alone)."""
    import logging
    import types

    from ipykernel import ipkernel

    monkeypatch.setattr(ipkernel, "_accepts_parameters", ipkernel._accepts_parameters)
    real = ipkernel._accepts_parameters
    calls = []

    class Shell:
        async def run_cell_async(self, raw_cell, store_history=False, *, cell_id=None):
            calls.append(raw_cell)

    def logger(name, handler_level):
        log = logging.getLogger(name)
        log.setLevel(logging.DEBUG)
        log.propagate = False
        handler = logging.StreamHandler()
        handler.setLevel(handler_level)
        log.handlers[:] = [handler]
        return log

    quiet = logger("llmcost-test-quiet", logging.CRITICAL)
    shell = Shell()
    shell.kernel = types.SimpleNamespace(log=quiet)
    done = kernels.lighter_cells(shell)
    assert done == {"accepts_parameters": True, "log_level": logging.CRITICAL}
    assert quiet.level == logging.CRITICAL
    names = ["cell_id", "cell_meta"]
    expected = real(shell.run_cell_async, names)
    assert expected == {"cell_id": True, "cell_meta": False}  # cell_id is keyword-only above
    for _ in range(2):
        assert ipkernel._accepts_parameters(shell.run_cell_async, names) == expected
    assert ipkernel._accepts_parameters(Shell().run_cell_async, ["raw_cell"]) == real(
        shell.run_cell_async, ["raw_cell"])
    # a second call patches nothing twice; a logger whose handler shows DEBUG keeps DEBUG
    loud = logger("llmcost-test-loud", logging.DEBUG)
    shell.kernel = types.SimpleNamespace(log=loud)
    assert kernels.lighter_cells(shell) == {}
    assert loud.level == logging.DEBUG


#: Cells whose static transformations IPython rewrites (a cell magic, a shell capture, a line
#: magic) and one it leaves as it is.
TRANSFORMED = ["%%capture captured\nprint(x + 1)\n", "echoed = !echo hi\n",
               "%config InlineBackend.rc = {}\n", "x = 1\ny = 2\n"]


def test_transform_cells_once_gives_ipythons_transformations_once_per_cell(monkeypatch):
    """``kernels.transform_cells_once``: a cell asked for twice in a row (as ipykernel's
    ``do_execute`` and IPython's ``_run_cell`` ask) is transformed once, with IPython's own
    result; a transformation added since applies; the top-level-``await`` check is IPython's
    own answer, computed once per transformed text."""
    import types

    from IPython.core import async_helpers, interactiveshell
    from IPython.core.inputtransformer2 import TransformerManager

    monkeypatch.setattr(interactiveshell, "_should_be_async", interactiveshell._should_be_async)
    real_check = async_helpers._should_be_async
    checked = []
    monkeypatch.setattr(async_helpers, "_should_be_async",
                        lambda cell: checked.append(cell) or real_check(cell))
    manager, seen = TransformerManager(), []
    manager.cleanup_transforms.append(lambda lines: seen.append("".join(lines)) or lines)
    shell = types.SimpleNamespace(input_transformer_manager=manager)
    expected = {c: TransformerManager().transform_cell(c) for c in TRANSFORMED}
    assert expected[TRANSFORMED[0]].startswith("get_ipython().run_cell_magic('capture'")
    assert kernels.transform_cells_once(shell) == {"transform_cell": True,
                                                   "should_be_async": True}
    for cell in TRANSFORMED:
        assert [manager.transform_cell(cell) for _ in range(2)] == [expected[cell]] * 2
    assert seen == TRANSFORMED  # each transformed once
    manager.line_transforms.append(lambda lines: lines + ["z = 3\n"])  # a new one applies
    assert manager.transform_cell(TRANSFORMED[-1]) == "x = 1\ny = 2\nz = 3\n"
    for cell in ("await sleep(0)\n", "x = 1\n"):
        assert [interactiveshell._should_be_async(cell) for _ in range(2)] == \
            [real_check(cell)] * 2
    assert real_check("await sleep(0)\n") and not real_check("x = 1\n")
    assert checked == ["await sleep(0)\n", "x = 1\n"]  # each checked once
    assert kernels.transform_cells_once(shell) == {}  # nothing wrapped twice


def test_no_sleep_after_cells_sets_the_kernels_sleep_to_zero_once():
    import types

    shell = types.SimpleNamespace(kernel=types.SimpleNamespace(_execute_sleep=0.0005))
    assert kernels.no_sleep_after_cells(shell) is True
    assert shell.kernel._execute_sleep == 0
    assert kernels.no_sleep_after_cells(shell) is False  # nothing left to do
    assert kernels.no_sleep_after_cells(types.SimpleNamespace()) is False  # not in a kernel


def test_a_stopped_kernel_ends_with_its_children_before_the_shutdown_polls(tmp_path,
                                                                          monkeypatch):
    """``WarmKernel.shutdown`` kills the kernel's process group and waits for the kernel's
    process to end (``workers._kill_and_reap``) before jupyter_client's shutdown, whose wait
    (``_async_wait``: asks whether it lives every 0.1 s) then finds it ended at its first
    asking; the kernel, a process it started, and its connection file are gone, as with
    jupyter_client's own shutdown."""
    import psutil
    from jupyter_client.manager import AsyncKernelManager

    real_alive = AsyncKernelManager._async_is_alive
    answers = []

    async def is_alive(self):
        answers.append(await real_alive(self))
        return answers[-1]

    monkeypatch.setattr(AsyncKernelManager, "_async_is_alive", is_alive)
    src = _notebook(tmp_path / "child.ipynb", [
        "import os, subprocess; child = subprocess.Popen(['sleep', '60'])",
        "print(os.getpid(), child.pid)"])
    kernel = kernels.WarmKernel(str(tmp_path), report.KERNEL_ARGS)
    try:
        out = _run(kernel, src, tmp_path / "out.ipynb")
        connection_file = kernel.km.connection_file
        answers.clear()
    finally:
        kernel.shutdown()
    pids = [int(p) for p in out.cells[1].outputs[0]["text"].split()]

    def gone(pid):
        try:
            return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            return True

    assert answers and not any(answers)  # ended before the shutdown first asked
    assert all(gone(pid) for pid in pids) and not Path(connection_file).exists()


def test_a_report_runs_its_notebooks_through_the_kernels_one_client(tmp_path, monkeypatch):
    """A report's notebooks run through the warm kernel's one client (``WarmKernel.kc``, made
    when the kernel starts), not a new client per notebook and per reset, each of which waited
    0.2 s for its IOPub socket; the notebooks still see a fresh namespace."""
    monkeypatch.delenv("MPLBACKEND", raising=False)
    from jupyter_client.manager import AsyncKernelManager

    made = []
    real_client = AsyncKernelManager.client

    def counted(self, **kwargs):
        made.append(kwargs.get("session") is not None)
        return real_client(self, **kwargs)

    monkeypatch.setattr(AsyncKernelManager, "client", counted)
    first = _notebook(tmp_path / "first.ipynb", ["leftover = 1", "print('one')"])
    second = _notebook(tmp_path / "second.ipynb", ["print('leftover' in globals())"])
    kernel = kernels.WarmKernel(str(tmp_path), report.KERNEL_ARGS)
    try:
        kernel.warm(str(tmp_path))
        kc = kernel.kc
        runs = [report._run_one(src, tmp_path / f"out-{src.name}", {}, "t", {src.stem},
                                60, kernel)[0] for src in (first, second)]
        assert kernel.kc is kc and kernel.starts == 1
    finally:
        kernel.shutdown()
    assert made == [True]  # one client, with a session of its own (kernels.own_session)
    assert not any(r.failed for r in runs)
    outs = [nbformat.read(r.out_nb, as_version=4) for r in runs]
    assert outs[0].cells[1].outputs[0]["text"] == "one\n"
    assert outs[1].cells[0].outputs[0]["text"] == "False\n"


def _cwd_notebooks(folder: Path) -> None:
    """One notebook in ``folder`` that prints its working folder and an environment variable."""
    folder.mkdir()
    params = nbformat.v4.new_code_cell('model: str = "llama-2-70b"  # catalogue model name')
    params.metadata["tags"] = ["parameters"]
    nb = new_notebook(cells=[nbformat.v4.new_markdown_cell("# 01 · where?"), params,
                             new_code_cell("import os; print(os.getcwd()); "
                                           "print(os.environ.get('LLMCOST_PROBE'))")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nbformat.write(nb, folder / "01_where.ipynb")


@pytest.mark.fresh_kernels
def test_kept_kernels_serve_the_next_report_in_its_folder_and_environment(tmp_path, monkeypatch):
    # report.keep_kernels: the second report starts no kernel; its notebook runs in its own
    # folder, as in a new kernel; a changed environment variable (which a kernel inherits only
    # when it starts) gets a new kernel; keep_kernels(False) stops what was kept.
    starts = _count_kernel_starts(monkeypatch)
    monkeypatch.setattr(report, "_IDLE_WORKERS", [])  # none of the session's kept kernels
    sc = tmp_path / "s.yaml"
    sc.write_text("model: llama-2-70b\n")
    seen = []
    report.keep_kernels(True)
    try:
        for i, probe in enumerate(["a", "a", "b"]):
            folder = tmp_path / f"nbs{i}"
            _cwd_notebooks(folder)
            monkeypatch.setattr(report, "NOTEBOOK_DIR", folder)
            monkeypatch.setenv("LLMCOST_PROBE", probe)
            report.run_report(sc, tmp_path / f"out{i}", jobs=1, progress=lambda s: None)
            out = nbformat.read(tmp_path / f"out{i}" / "01_where.ipynb", as_version=4)
            printed = "".join(o["text"] for o in out.cells[-1].outputs  # stdout only: a new
                              if o.get("name") == "stdout")  # kernel may warn on stderr
            seen.append((printed, len(starts)))
        # the kernel under LLMCOST_PROBE=a waits, idle, for a report under that environment
        assert len(report._IDLE_WORKERS) == 2
    finally:
        report.keep_kernels(False)
    assert report._IDLE_WORKERS == []
    with pytest.raises(ValueError, match="keep='yes' must be True or False"):
        report.keep_kernels("yes")
    assert seen == [(f"{tmp_path / 'nbs0'}\na\n", 1), (f"{tmp_path / 'nbs1'}\na\n", 1),
                    (f"{tmp_path / 'nbs2'}\nb\n", 2)]


class _FakeChannel:
    """A channel whose ``get_msg`` hands out ``replies`` in turn (``None``: nothing came in
    the time asked, ``queue.Empty``), counting the calls."""

    def __init__(self, replies):
        self.replies, self.asked = list(replies), 0

    async def get_msg(self, timeout=None):
        from queue import Empty

        self.asked += 1
        reply = self.replies.pop(0) if self.replies else None
        if reply is None:
            raise Empty
        return reply


class _FakeClient:
    def __init__(self, shell, iopub, alive=True):
        self.shell_channel, self.iopub_channel = _FakeChannel(shell), _FakeChannel(iopub)
        self.alive, self.requests, self.handled = alive, 0, []

    def kernel_info(self):
        self.requests += 1

    async def is_alive(self):
        return self.alive

    def _handle_kernel_info_reply(self, msg):
        self.handled.append(msg)


INFO_REPLY = {"msg_type": "kernel_info_reply", "content": {"protocol_version": "5.3"}}
STATUS = {"msg_type": "status", "content": {"execution_state": "idle"}}


def test_wait_until_ready_asks_until_reply_and_iopub_and_does_not_drain_iopub():
    """``workers.wait_until_ready``: jupyter_client's ``wait_for_ready`` rule (a reply to
    ``kernel_info``, then any IOPub message, else ask again; an error if the kernel died or the
    time ran out, in the words ``report.KERNEL_START_ERRORS`` reads), without reading IOPub
    until 0.2 s of silence afterwards: one IOPub read once the kernel answered."""
    import asyncio

    from llmcost.present import workers

    # the first asking gets no reply (the kernel still starting), the second a reply whose
    # IOPub message was missed (a subscription not yet made), the third both
    kc = _FakeClient(shell=[None, INFO_REPLY, INFO_REPLY], iopub=[None, STATUS, STATUS, STATUS])
    asyncio.run(workers.wait_until_ready(kc, timeout_s=60))
    assert kc.requests == 3 and kc.handled == [INFO_REPLY]
    assert kc.iopub_channel.asked == 2  # the missed one and the one that came; no draining
    assert kc.iopub_channel.replies == [STATUS, STATUS]  # left for the next reader
    dead = _FakeClient(shell=[None], iopub=[], alive=False)
    with pytest.raises(RuntimeError, match="Kernel died before replying to kernel_info"):
        asyncio.run(workers.wait_until_ready(dead, timeout_s=60))
    mute = _FakeClient(shell=[None, None], iopub=[])
    with pytest.raises(RuntimeError, match="Kernel didn't respond in 0 seconds"):
        asyncio.run(workers.wait_until_ready(mute, timeout_s=0))
    for words in ("Kernel died before replying", "Kernel didn't respond", "kernel_info"):
        assert words in report.KERNEL_START_ERRORS
