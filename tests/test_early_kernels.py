"""The early start of ``python -m llmcost report`` (llmcost/present/workers.py,
llmcost/__main__.py): the report's workers start their kernels right after the command line is
read, before the package is imported; the report takes them; a report that is refused leaves
no kernel behind and says what it said before.

The rules checked are the ones ``workers.early_workers`` and ``WarmKernel.cancel`` state in
their docstrings; the kernels are real (``pytest.mark.notebook``)."""

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

from _cli import run_cli
from test_kernels import _count_kernel_starts
from llmcost.present import report, workers

pytestmark = pytest.mark.notebook

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = str(ROOT / "data" / "scenarios" / "default.yaml")
N_NOTEBOOKS = len(report.list_notebooks())


@pytest.mark.parametrize("argv, expected", [
    # a report runs on --jobs or default_jobs() workers, at most one per notebook
    (["report", "--scenario", SCENARIO], min(workers.default_jobs(), N_NOTEBOOKS)),
    (["report", "--scenario", SCENARIO, "--jobs", "1", "--overwrite"], 1),
    (["report", "--scenario", SCENARIO, "--jobs", "40"], N_NOTEBOOKS),
    (["report", "--scenario", SCENARIO, "--notebooks", "00,01", "--jobs", "4"], 2),
    # space-separated, or both (a trial typed `--notebooks 00 03 04b 09`)
    (["report", "--scenario", SCENARIO, "--notebooks", "00", "03", "04b,09", "--jobs", "4"], 4),
    # not a report, or one the CLI refuses at once: none
    (["estimate", "--scenario", SCENARIO], 0),
    ([], 0),
    (["report", "--scenario", SCENARIO, "--help"], 0),
    (["report", "--scenario", "no/such/file.yaml"], 0),
    (["report"], 0),  # --scenario is required
    (["report", "--scenario", SCENARIO, "--jobs", "0"], 0),
    (["report", "--scenario", SCENARIO, "--timeout", "0"], 0),
    (["report", "--scenario", SCENARIO, "--notebooks", ","], 0),
    (["report", "--scenario", SCENARIO, "--no-such-flag"], 0),
])
def test_early_workers_reads_the_command_line_as_the_report_does(argv, expected):
    assert workers.early_workers(argv) == expected


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_a_cancelled_start_stops_its_kernel(tmp_path):
    # cancel() from another thread while the kernel warms up: the start raises at once (no
    # wait for the warm-up), the kernel process is gone and its connection file removed
    kernel = workers.WarmKernel(str(tmp_path), workers.KERNEL_ARGS, figures=workers.FIGURES)
    errors = []

    def start():
        try:
            kernel.warm()
        except workers.KernelStartError as e:
            errors.append(e)

    t = threading.Thread(target=start)
    t.start()
    deadline = time.monotonic() + 60
    while kernel.km is None and time.monotonic() < deadline:
        time.sleep(0.01)
    km = kernel.km
    pid, connection_file = km.provisioner.process.pid, km.connection_file
    kernel.cancel()
    t.join(30)
    assert not t.is_alive()
    assert [str(e) for e in errors] == ["KernelStartError: the start was cancelled"]
    assert kernel.km is None and _gone(pid) and not Path(connection_file).exists()


@pytest.mark.fresh_kernels
def test_a_report_runs_in_the_kernel_started_early(tmp_path, monkeypatch):
    # one early worker (one notebook); the report takes it: one kernel started in all, and the
    # page is written
    starts = _count_kernel_starts(monkeypatch)  # kernels.WarmKernel is workers.WarmKernel
    argv = ["report", "--scenario", SCENARIO, "--out", str(tmp_path / "out"),
            "--notebooks", "10"]
    try:
        assert workers.start_early(argv) == 1
        r = run_cli(*argv)
    finally:
        workers.stop_early()
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out" / "10_glossary.html").exists()
    assert len(starts) == 1


#: Runs ``python -m llmcost <argv>`` (``llmcost/__main__.py``) once its early kernels'
#: processes are up (so that the refusal below stops kernels that exist), and prints how many
#: workers started early, the kernels' process ids, and those still running (not zombies) when
#: the command has returned, before this process exits.
DRIVER = """\
import json, runpy, sys, time
import psutil
from jupyter_client.provisioning.local_provisioner import LocalProvisioner
from llmcost.present import workers

pids, files = [], []
launch = LocalProvisioner.launch_kernel

async def launch_kernel(self, cmd, **kw):
    info = await launch(self, cmd, **kw)
    pids.append(self.process.pid)
    files.extend(cmd[i + 1] for i, a in enumerate(cmd[:-1]) if a == "-f")
    return info

LocalProvisioner.launch_kernel = launch_kernel
argv = sys.argv[1:]
n = workers.start_early(argv)
deadline = time.monotonic() + 60
while len(pids) < n and time.monotonic() < deadline:
    time.sleep(0.01)
sys.argv = ["llmcost", *argv]
try:
    runpy.run_module("llmcost", run_name="__main__", alter_sys=True)
except SystemExit as e:
    code = e.code
running = [p for p in pids if psutil.pid_exists(p)
           and psutil.Process(p).status() != psutil.STATUS_ZOMBIE]
print(json.dumps({"early": n, "pids": pids, "running": running, "files": files}), flush=True)
sys.exit(code)
"""


def test_a_refused_report_leaves_no_kernel_and_says_what_it_said_before(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("model: no-such-model\n")
    argv = ["report", "--scenario", str(bad), "--out", str(tmp_path / "out"), "--jobs", "2"]
    runtime = tmp_path / "runtime"
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(runtime),
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    r = subprocess.run([sys.executable, "-c", DRIVER, *argv], capture_output=True, text=True,
                       env=env, cwd=tmp_path, timeout=300)
    seen = json.loads(r.stdout.splitlines()[-1])
    assert seen["early"] == 2 and len(seen["pids"]) == 2  # two kernels were up ...
    assert seen["running"] == []  # ... stopped by the command (workers.stop_early) ...
    assert all(_gone(pid) for pid in seen["pids"])  # ... and none outlived its process
    # the kernels' connection files (the "-f" of their command lines, jupyter_client's
    # temporary files) are gone with them
    assert len(seen["files"]) == 2 and [f for f in seen["files"] if Path(f).exists()] == []
    before = run_cli(*argv)  # the CLI in-process: no early start
    assert r.returncode == before.returncode == 2 and r.stderr == before.stderr
    assert "no-such-model" in r.stderr and not (tmp_path / "out").exists()


@pytest.mark.parametrize("how", ["SIGTERM", "Ctrl-C"])
def test_an_interrupted_report_leaves_no_kernel_and_no_connection_file(tmp_path, how):
    # `timeout 60 llmcost report ...` (SIGTERM to the report) and Ctrl-C (SIGINT to the
    # terminal's whole process group, the kernels included) while the notebooks run: the
    # report stops as it says (exit 130, an INCOMPLETE marker), its kernels end, and their
    # connection files (jupyter_client's temporary /tmp/tmp*.json, written before each launch)
    # are removed: they were left behind (WarmKernel.remove_connection_file)
    import signal
    env = {**os.environ, "LLMCOST_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    out = tmp_path / "out"
    p = subprocess.Popen([sys.executable, "-m", "llmcost", "report", "--scenario", SCENARIO,
                          "--out", str(out), "--notebooks", "04b,05", "--jobs", "2"],
                         stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path,
                         start_new_session=True)
    lines = []  # read in a thread: a report that never gets there fails the test, not hangs it
    reader = threading.Thread(target=lambda: lines.extend(p.stderr), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 240
        while not any("[2/2] started" in s for s in list(lines)) and p.poll() is None \
                and time.monotonic() < deadline:  # both notebooks handed to their workers
            time.sleep(0.05)
        assert any("[2/2] started" in s for s in list(lines)), "".join(lines)
        kernels = {}
        deadline = time.monotonic() + 60
        while len(kernels) < 2 and time.monotonic() < deadline:
            for child in psutil.Process(p.pid).children():
                try:
                    cmd = child.cmdline()
                except psutil.Error:  # a short-lived child (git, for the summary) gone
                    continue
                if "-f" in cmd:
                    kernels[child.pid] = cmd[cmd.index("-f") + 1]
            time.sleep(0.05)
        assert len(kernels) == 2 and all(Path(f).exists() for f in kernels.values())
        if how == "SIGTERM":
            p.send_signal(signal.SIGTERM)
        else:
            os.killpg(p.pid, signal.SIGINT)
        assert p.wait(120) == 130, "".join(lines)
        reader.join(30)
        err = "".join(lines)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait(30)
    assert "incomplete" in err and (out / report.INCOMPLETE).exists()
    deadline = time.monotonic() + 30  # a kernel sees its parent gone within a second or so
    while not all(_gone(pid) for pid in kernels) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert all(_gone(pid) for pid in kernels)
    assert [f for f in kernels.values() if Path(f).exists()] == []


def test_an_interrupt_inside_the_import_system_is_sent_again_not_raised(monkeypatch):
    # A SIGTERM whose KeyboardInterrupt was raised inside importlib's module-lock callback was
    # ignored ("Exception ignored in: <function _get_module_lock.<locals>.cb>") and left the
    # lock held: the report's threads deadlocked on their next import and it never ended (a
    # fault-handler dump of the hung report). There the handler sends the signal again later;
    # anywhere else it raises
    import signal
    import types

    from llmcost.present import cli
    sent = []

    class Timer:
        def __init__(self, delay, fn, args):
            sent.append((delay, fn, args))

        def start(self):
            pass

    monkeypatch.setattr(cli.threading, "Timer", Timer)
    frame = types.SimpleNamespace(f_code=types.SimpleNamespace(
        co_filename="<frozen importlib._bootstrap>"))
    assert cli.report_interrupt(signal.SIGTERM, frame) is None
    assert sent == [(0.05, os.kill, (os.getpid(), signal.SIGTERM))]
    here = types.SimpleNamespace(f_code=types.SimpleNamespace(co_filename=__file__))
    with pytest.raises(KeyboardInterrupt, match="terminated"):
        cli.report_interrupt(signal.SIGTERM, here)
    with pytest.raises(KeyboardInterrupt, match="interrupted"):
        cli.report_interrupt(signal.SIGINT, here)
