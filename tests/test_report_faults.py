"""`llmcost report` under faults: two reports into one folder, --overwrite beside the user's
files, an unwritable --out, Ctrl-C, a kernel that fails to start, and failures listed where a
reader looks first. papermill is replaced by a stand-in that copies the notebook (no kernel), so
these run in a second; tests/test_report.py runs the real papermill path."""

import fcntl
import json
import os
from pathlib import Path

import nbformat
import papermill
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from llmcost.present import cli, report


def _notebooks(folder: Path) -> Path:
    folder.mkdir()
    params = new_code_cell('model: str = "llama-2-70b"  # catalogue model name')
    params.metadata["tags"] = ["parameters"]
    for stem in ("01_one", "02_two"):
        nb = new_notebook(cells=[new_markdown_cell(f"# {stem[:2]} · {stem}?"), params,
                                 new_code_cell("print(model)")])
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                     "language": "python"}
        nbformat.write(nb, folder / f"{stem}.ipynb")
    return folder


@pytest.fixture
def setup(tmp_path, monkeypatch):
    """Two tiny notebooks, a scenario, and papermill replaced by a copy (``calls`` records each
    start; ``fail_starts`` lists how many starts of a notebook raise a kernel-start error)."""
    monkeypatch.setattr(report, "NOTEBOOK_DIR", _notebooks(tmp_path / "nbs"))
    sc = tmp_path / "s.yaml"
    sc.write_text("model: llama-2-7b\n")
    calls, fail_starts = [], {}

    def fake_execute(src, dst, **kw):
        stem = Path(src).stem
        calls.append(stem)
        if fail_starts.get(stem, 0) > 0:
            fail_starts[stem] -= 1
            raise RuntimeError("ZMQError: Address already in use (addr='tcp://127.0.0.1:5555')")
        nbformat.write(nbformat.read(src, as_version=4), dst)

    monkeypatch.setattr(papermill, "execute_notebook", fake_execute)
    monkeypatch.setattr(report, "WarmKernel", _NoKernel)
    return sc, calls, fail_starts


class _NoKernel:
    """Stands in for the report's warm kernel beside the papermill stand-in (no kernel runs)."""

    def __init__(self, *args, **kwargs):
        pass

    def ready(self, cwd=None):
        return None

    def warm(self, cwd=None):
        pass

    def shutdown(self):
        pass


def test_a_second_report_into_a_folder_being_written_is_refused(setup, tmp_path):
    sc, calls, _ = setup
    out = tmp_path / "out"
    out.mkdir()
    with open(out / report.LOCK, "a+") as held:  # another report holds the folder
        fcntl.flock(held.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(report.UsageError, match="another llmcost report is writing"):
            report.run_report(sc, out, progress=lambda s: None)
    assert calls == []  # nothing ran, nothing mixed in
    report.run_report(sc, out, progress=lambda s: None)  # once released, it runs
    assert (out / "index.html").exists()


def test_overwrite_deletes_only_what_a_report_wrote(setup, tmp_path):
    sc, _, _ = setup
    out = tmp_path / "out"
    report.run_report(sc, out, progress=lambda s: None)
    (out / "notes.md").write_text("mine")
    (out / "03_mine.html").write_text("not a notebook of this workbook")
    lines = []
    report.run_report(sc, out, overwrite=True, progress=lines.append)
    assert (out / "notes.md").read_text() == "mine"
    assert (out / "03_mine.html").exists()
    assert (out / "01_one.html").exists() and (out / "index.html").exists()
    assert any("keeping 2 file(s)" in m for m in lines)


@pytest.mark.parametrize("where", ["file", "proc"])
def test_unwritable_out_is_one_line_and_exit_2(setup, tmp_path, capsys, where):
    # Paths root cannot write either (CI runs as root): a folder under a regular file, /proc.
    sc, calls, _ = setup
    if where == "file":
        (tmp_path / "a_file").write_text("x")
        out = tmp_path / "a_file" / "report"
    else:
        out = Path("/proc/llmcost-report")
    assert cli.main(["report", "--scenario", str(sc), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("llmcost: error: --out")
    assert "Traceback" not in err and calls == []


def test_ctrl_c_leaves_an_incomplete_marker_one_line_and_exit_130(setup, tmp_path, capsys,
                                                                  monkeypatch):
    sc, calls, _ = setup
    out = tmp_path / "out"

    def progress(line):  # Ctrl-C as the second notebook is about to start
        if "[2/2] started" in line:
            raise KeyboardInterrupt

    with pytest.raises(report.ReportInterrupted, match="incomplete"):
        report.run_report(sc, out, progress=progress, jobs=1)
    marker = (out / report.INCOMPLETE).read_text()
    assert "interrupted" in marker and "finished: 01_one" in marker
    assert "not finished: 02_two" in marker and calls == ["01_one"]
    # the command line: one line, exit 130 (the shell's code for SIGINT)
    monkeypatch.setattr(cli, "run_report", lambda *a, **k: (_ for _ in ()).throw(
        KeyboardInterrupt()))
    assert cli.main(["report", "--scenario", str(sc), "--out", str(tmp_path / "o2")]) == 130
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err


def test_a_termination_stops_the_report_as_ctrl_c_does(setup, tmp_path, capsys, monkeypatch):
    # `timeout 6 llmcost report ...` (SIGTERM) left a folder with no INCOMPLETE marker and no
    # word: during a report, SIGTERM takes the Ctrl-C path (exit 130, one line); the handler in
    # place before is put back after
    import signal
    sc, calls, _ = setup
    before = signal.getsignal(signal.SIGTERM)

    def terminated(*a, **k):
        os.kill(os.getpid(), signal.SIGTERM)  # delivered to this (main) thread
        raise AssertionError("SIGTERM did not stop the report")

    monkeypatch.setattr(cli, "run_report", terminated)
    assert cli.main(["report", "--scenario", str(sc), "--out", str(tmp_path / "o")]) == 130
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "terminated (signal 15)" in err
    assert signal.getsignal(signal.SIGTERM) is before


def test_a_kernel_that_fails_to_start_is_retried_once(setup, tmp_path):
    sc, calls, fail_starts = setup
    fail_starts["01_one"] = 1
    out = tmp_path / "out"
    report.run_report(sc, out, progress=lambda s: None, jobs=1)
    assert calls == ["01_one", "01_one", "02_two"]
    assert json.loads((out / "summary.json").read_text())["failed"] == []


def test_a_kernel_that_never_starts_keeps_its_page_and_is_listed_first(setup, tmp_path):
    sc, calls, fail_starts = setup
    fail_starts["02_two"] = 2
    out = tmp_path / "out"
    lines = []
    with pytest.raises(report.ReportError, match="02_two"):
        report.run_report(sc, out, progress=lines.append, jobs=1)
    assert calls.count("02_two") == 2
    page = (out / "02_two.html").read_text()
    assert "kernel failed to start" in page and "Address already in use" in page
    assert "Traceback" not in page
    index = (out / "index.html").read_text()
    box = index[index.index("Read this first"):]
    assert box.index("02_two FAILED") < box.index("</ul>")  # in the box at the top
    assert index.index("Read this first") < index.index("<h2>Notebooks</h2>")
    summary = json.loads((out / "summary.json").read_text())
    assert summary["warnings"][0].startswith("02_two FAILED")
    assert sum("FAILED" in m and "02_two" in m for m in lines) == 1
    assert not os.path.exists(out / report.INCOMPLETE)


def test_the_runners_are_imported_before_the_index_thread_and_the_runs(setup, tmp_path,
                                                                       monkeypatch):
    """The report imports nbconvert, nbformat and papermill (``report._import_runners``) before
    it starts its index's thread (``IndexWork``) and hands out the first notebook: the import
    adds bleach's ``ignore`` filter to the warnings filters, which the disk cache's keys include,
    and run beside the index's thread it made the keys of the index figure and of the pages'
    markdown depend on the threads' timing (the first warm report after a cold one computed
    them again)."""
    sc, calls, _ = setup
    order = []
    real_imports, real_index = report._import_runners, report.IndexWork

    def imports():
        order.append("imports")
        real_imports()

    class Index(real_index):
        def __init__(self, *args, **kwargs):
            order.append("index")
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(report, "_import_runners", imports)
    monkeypatch.setattr(report, "IndexWork", Index)
    report.run_report(sc, tmp_path / "out", progress=lambda s: None)
    assert order == ["imports", "index"] and len(calls) == 2


def test_the_collector_is_left_as_the_report_found_it(setup, tmp_path):
    """The report's process keeps its imports out of full collections while the notebooks run
    (``report._import_runners``: ``gc.freeze``) and undoes it when the report ends, also when it
    fails; a caller that froze objects itself keeps its frozen generation (not unfrozen by the
    report; its count moves only as frozen objects are freed)."""
    import gc

    sc, _, fail_starts = setup
    gc.unfreeze()  # the suite freezes between files (conftest.py); a process that froze nothing
    seen = []
    real = report._import_runners

    def watched():
        real()
        seen.append(gc.get_freeze_count())

    report._import_runners = watched
    try:
        report.run_report(sc, tmp_path / "a", progress=lambda s: None)
        assert seen[-1] > 0 and gc.get_freeze_count() == 0  # frozen during the runs, not after
        fail_starts["02_two"] = 2  # a kernel that never starts: a failed report
        with pytest.raises(report.ReportError):
            report.run_report(sc, tmp_path / "b", progress=lambda s: None)
        assert seen[-1] > 0 and gc.get_freeze_count() == 0
        gc.freeze()  # the caller's own frozen generation
        mine = gc.get_freeze_count()
        report.run_report(sc, tmp_path / "c", progress=lambda s: None)
        assert gc.get_freeze_count() == pytest.approx(mine, rel=0.01)
    finally:
        report._import_runners = real
        gc.unfreeze()
