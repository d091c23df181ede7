"""How ``llmcost report`` ends (``llmcost/__main__.py``, ``run``): a report that succeeded ends
its process at once (``os._exit(0)``, once its streams are flushed) instead of tearing the
interpreter down; any other outcome ends through the normal path (the atexit handlers run).

The rule checked is the one ``run``'s docstring states: the fast end comes only after
``cli.report_written`` (every file written and closed, every kernel shut down), so the folder
is whole, the exit code is 0, and no kernel process outlives the command; a report with a
failed notebook exits 1 through the interpreter's own teardown. The processes are real
``python -m llmcost report`` runs (``pytest.mark.notebook``)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import psutil
import pytest

from llmcost.present import report

pytestmark = pytest.mark.notebook

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = str(ROOT / "data" / "scenarios" / "default.yaml")

#: Runs ``python -m llmcost <argv>`` with an atexit handler that says it ran (on stderr: the
#: normal teardown runs the atexit handlers, ``os._exit`` does not), recording the kernels'
#: process ids (written to the file named by ``$PIDS``, one a line, when each is launched).
#: With ``$FAIL`` set, every notebook's papermill run raises (a failed notebook: the report
#: writes the rest and exits 1).
DRIVER = """\
import atexit, os, runpy, sys
from jupyter_client.provisioning.local_provisioner import LocalProvisioner

launch = LocalProvisioner.launch_kernel

async def launch_kernel(self, cmd, **kw):
    info = await launch(self, cmd, **kw)
    with open(os.environ["PIDS"], "a") as fh:
        fh.write(f"{self.process.pid}\\n")
    return info

LocalProvisioner.launch_kernel = launch_kernel
if os.environ.get("FAIL"):
    import papermill

    def fail(*args, **kwargs):
        raise RuntimeError("a notebook that fails (test stand-in)")

    papermill.execute_notebook = fail
atexit.register(lambda: print("atexit handlers ran", file=sys.stderr, flush=True))
sys.argv = ["llmcost", *sys.argv[1:]]
runpy.run_module("llmcost", run_name="__main__", alter_sys=True)
"""


def _run(tmp_path: Path, fail: bool) -> tuple[subprocess.CompletedProcess, Path, list[int]]:
    out, pids = tmp_path / "out", tmp_path / "pids.txt"
    env = {**os.environ, "LLMCOST_CACHE_DIR": str(tmp_path / "cache"), "PIDS": str(pids),
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    env.pop("FAIL", None)
    if fail:
        env["FAIL"] = "1"
    r = subprocess.run([sys.executable, "-c", DRIVER, "report", "--scenario", SCENARIO,
                        "--out", str(out), "--notebooks", "08", "--jobs", "1"],
                       capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    started = [int(s) for s in pids.read_text().split()] if pids.exists() else []
    return r, out, started


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_a_report_that_succeeds_ends_at_once_with_every_file_written(tmp_path):
    r, out, kernels = _run(tmp_path, fail=False)
    assert r.returncode == 0, r.stderr
    assert "atexit handlers ran" not in r.stderr  # the fast end (os._exit), not the teardown
    assert r.stderr.splitlines()[-1].startswith(f"report written to {out}")
    stems = ["08_published_runs"]
    expected = {report.MARKER, report.LOCK, "index.html", "summary.json", "summary.csv"}
    expected |= {f"{s}.ipynb" for s in stems} | {f"{s}.html" for s in stems}
    assert {p.name for p in report.report_files(out)} == expected
    for stem in stems:  # each file whole: a page ends its document, a notebook parses
        assert (out / f"{stem}.html").read_text(encoding="utf-8").rstrip().endswith("</html>")
        nb = nbformat.read(out / f"{stem}.ipynb", as_version=4)
        assert any(c.get("outputs") for c in nb.cells)  # executed, outputs kept
    assert (out / "index.html").read_text(encoding="utf-8").rstrip().endswith("</html>")
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert sorted(summary["notebooks"]) == stems and summary["failed"] == []
    assert len((out / "summary.csv").read_text(encoding="utf-8").splitlines()) >= 2
    assert len(kernels) == 1 and all(_gone(pid) for pid in kernels)  # its kernel shut down


def test_a_report_with_a_failed_notebook_exits_1_through_the_normal_teardown(tmp_path):
    r, out, kernels = _run(tmp_path, fail=True)
    assert r.returncode == 1, r.stderr
    assert "atexit handlers ran" in r.stderr  # the interpreter's own teardown
    assert "1 notebook(s) failed" in r.stderr
    assert (out / "index.html").exists() and (out / "summary.json").exists()
    assert all(_gone(pid) for pid in kernels)
