"""`llmcost report`: every scenario end to end, bad input from the command line, overwrite rules
and failed notebooks."""

import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import nbformat
import pytest
from _cli import run_cli
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

import llmcost
from llmcost import report

SCENARIOS = sorted(llmcost.SCENARIO_DIR.glob("*.yaml"))
BANDS = Path(__file__).parent / "data" / "summary_bands.csv"


def _bands():
    import csv
    with BANDS.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_every_scenario_has_sourced_bands():
    names = {b["scenario"] for b in _bands()}
    assert names == {p.stem for p in SCENARIOS}
    assert all(b["source"] and float(b["low"]) <= float(b["high"]) for b in _bands())
TIMEOUT_S = 120


def _cli(*args, cwd=None):
    return run_cli(*args, cwd=cwd)  # in this process (tests/_cli.py)


from conftest import REPORT_JOBS as JOBS  # noqa: E402 (one notebook at a time under xdist)


@pytest.fixture(scope="module")
def full_report(shared_report):
    """A report of every notebook for a scenario (conftest's ``shared_report``: written once
    per session, shared with the browser tests): returns (out_dir, ReportResult, progress
    lines)."""
    return shared_report


# The default scenario's report is shared with tests/test_browser_report.py (the same xdist
# worker runs both files, tests/conftest.py), written by whichever asks first. It runs the whole
# report path (kernels, papermill, HTML, index, summary.json).
def test_the_default_scenario_report_runs_every_notebook(full_report):
    scenario = llmcost.SCENARIO_DIR / "default.yaml"
    out, res, lines = full_report(scenario)
    assert not res.failed
    stems = [p.stem for p in report.list_notebooks()]
    for stem in stems:
        assert (out / f"{stem}.ipynb").exists() and (out / f"{stem}.html").exists()
        html = (out / f"{stem}.html").read_text()
        assert "import llmcost" not in html, "report HTML must not show code"
    assert (out / "index.html").exists() and (out / "summary.csv").exists()
    assert any("[1/" in line and "left" in line for line in lines)  # progress was shown
    _check_summary(scenario, json.loads((out / "summary.json").read_text()))


def _check_summary(scenario, summary):
    """The checks of a scenario's summary (summary.json's ``notebooks`` and ``bill``)."""
    rows = {r["key"]: r for r in summary["notebooks"]["01_flops"]}
    assert {"training_flops_6nd", "gpu_hours", "wall_clock_days", "compute_cost_usd"} <= set(rows)
    # One bill for every notebook: notebook 01's compute and 07's failures and storage are the
    # bill's lines, and the index notebook publishes the same total.
    lines = summary["bill"]["bill.lines"]
    ck = {r["key"]: r for r in summary["notebooks"]["07_checkpoints"]}
    assert rows["compute_cost_usd"]["value"] == pytest.approx(
        lines["compute.pretraining.main"]["usd"], rel=1e-9)
    assert ck["failure_cost_usd"]["value"] == pytest.approx(lines["compute.failures"]["usd"],
                                                            rel=1e-9)
    assert ck["storage_cost_usd"]["value"] == pytest.approx(lines["storage.checkpoints"]["usd"],
                                                            rel=1e-9)
    idx = {r["key"]: r for r in summary["notebooks"]["00_index"]}
    assert idx["bill_total_usd"]["value"] == pytest.approx(summary["bill"]["bill.total_usd"])
    # RL post-training: the bill's line is notebook 05's campaign (both scenarios describe one).
    rl_rows = {r["key"]: r for r in summary["notebooks"]["05_rl_loop"]}
    assert lines["post.rl"]["status"] == "modelled"
    assert rl_rows["rl_campaign_usd"]["value"] == pytest.approx(lines["post.rl"]["usd"],
                                                                rel=1e-9)
    assert idx["rl_usd"]["value"] == pytest.approx(lines["post.rl"]["usd"], rel=1e-9)
    batch_rows = {r["key"]: r for r in summary["notebooks"]["02_batch_size"]}
    assert batch_rows["plan_tokens_over_e_min"]["value"] > 1
    # A count of parameters is labelled as one (a trial read 06's "inference-adjusted optimum
    # (USD)  74.8M" as dollars: the row is the optimum's parameter count)
    for nb, got in summary["notebooks"].items():
        for r in got:
            if r["key"].endswith("n_params"):
                assert "parameters" in r["label"], (nb, r["key"], r["label"])
    # Every headline figure with a sourced band (tests/data/summary_bands.csv) lies inside it.
    bands = [b for b in _bands() if b["scenario"] == scenario.stem]
    assert {b["notebook"] for b in bands} >= {"01_flops", "02_batch_size", "03_parallelism",
                                              "04b_step_time", "07_checkpoints"}
    for b in bands:
        got = {r["key"]: r["value"] for r in summary["notebooks"][b["notebook"]]}[b["key"]]
        assert float(b["low"]) <= float(got) <= float(b["high"]), (b, got)
    if scenario.stem == "llama-3.1-405b":
        # Table 4: the final 16M-token batch exactly fills 16,384 GPUs at TP 8, PP 16 with one
        # 8K sequence per micro-batch (16 micro-batches per replica).
        assert batch_rows["fill_batch_tokens"]["value"] == 16 * 2**20
        # Llama 3 report §3.3: 3.8e25 FLOPs (rounded).
        assert rows["training_flops_6nd"]["value"] == pytest.approx(3.8e25, abs=0.05e25)
        days = rows["wall_clock_days"]["value"]
        assert 50 < days < 80  # 16,384 GPUs at 41% MFU, before failures
        ckpt = {r["key"]: r for r in summary["notebooks"]["07_checkpoints"]}
        # 405.85B parameters × 14 B (bf16-Adam) + 1 MB of loader/RNG state per GPU; test vector
        # 8.f gives 5.67 TB for 405e9 × 14 B.
        spec = llmcost.load_model("llama-3.1-405b")
        expected = spec.n_params * 14 + 16384 * llmcost.reliability.LOADER_RNG_BYTES_PER_RANK
        assert ckpt["checkpoint_bytes"]["value"] == pytest.approx(expected, rel=1e-9)
        assert ckpt["checkpoint_bytes"]["value"] == pytest.approx(5.67e12, rel=5e-3)
        assert ckpt["job_mtbf_hours"]["value"] == pytest.approx(3.09, abs=0.01)  # 8.d
        # Meta: ">90% effective training time" (arXiv:2407.21783 §3.3.4).
        assert 0.90 < ckpt["goodput"]["value"] < 0.94
        # Llama 3: 405B parameters on 15.6T tokens (§3.3): ~38 tokens per parameter, about
        # twice the compute-optimal ~16-18 of the Epoch fit at 3.8e25 FLOPs (test vector 7.e: 16.5).
        scal = {r["key"]: r for r in summary["notebooks"]["06_chinchilla"]}
        assert scal["run_tokens_per_param"]["value"] == pytest.approx(15.6e12 / 405.85e9, rel=0.01)
        assert scal["optimal_tokens_per_param"]["value"] == pytest.approx(16.5, abs=0.2)
        assert scal["optimal_tokens_per_param_low"]["value"] < 16.5 < \
            scal["optimal_tokens_per_param_high"]["value"]


@pytest.mark.parametrize("text, message", [
    ("model: llama-2-70b\nunknown_key: 3\n", "'unknown_key'"),
    ("model: llama-2-70b\nn_gpus: many\n", "n_gpus='many' must be a whole number"),
    ("model: llama-2-70b\nn_gpus: -1\n", "n_gpus=-1 must be > 0"),
    ("model: llama-2-70b\nn_gpus: 0\n", "n_gpus=0 must be > 0"),
    ("model: llama-9-70b\n", "model='llama-9-70b' is not in the catalogue"),
    ("accelerator: H101\n", "accelerator='H101' is not in the catalogue"),
    ("mfu: 1.5\n", r"mfu=1.5 must be in (0, 1]"),
    ("mfu: 0\n", r"mfu=0.0 must be in (0, 1]"),
    ("n_gpus: 2048\ntp: 3\n", "tp=3 must divide n_gpus=2048 (n_gpus = dp × tp × pp × cp); pp left free (0) is chosen by the plan search"),
    ("accelerator: MI325X\n", "the scale-out bandwidth is missing from data/accelerators.csv"),
    # 405.85B × 18 B of training state is 7.3 TB: even fully sharded over 8 GPUs that is 913 GB
    # each, twelve times an H100's 80 GiB (hand derivation from the 18 B/param recipe).
    ("model: llama-3.1-405b\nn_gpus: 8\n", "no parallel plan fits: llama-3.1-405b on 8 × H100-SXM"),
    ("n_gpus: 1.0e+9\n", "n_gpus=1,000,000,000 is more than the scenario's global batch can feed"),
    ("mfu: Predict\n", "the word is `predict` (lower case)"),
])
def test_bad_scenario_exits_with_one_clear_line_and_writes_nothing(tmp_path, text, message):
    sc = tmp_path / "bad.yaml"
    sc.write_text(text)
    out = tmp_path / "out"
    res = _cli("report", "--scenario", str(sc), "--out", str(out))
    assert res.returncode == 2
    err = res.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("llmcost: error:"), res.stderr
    assert message in err[0]
    assert not out.exists()


def test_missing_scenario_file(tmp_path):
    res = _cli("report", "--scenario", str(tmp_path / "nope.yaml"), "--out", str(tmp_path / "o"))
    assert res.returncode == 2 and "no such scenario file" in res.stderr


def test_unknown_notebook_selection(tmp_path):
    res = _cli("report", "--scenario", str(SCENARIOS[0]), "--out", str(tmp_path / "o"),
               "--notebooks", "77")
    assert res.returncode == 2 and "'77' matches no notebook" in res.stderr


def test_help_documents_every_option():
    top = _cli("--help").stdout
    for word in ("report", "refresh-notebooks", "list"):
        assert word in top
    rep = _cli("report", "--help").stdout
    for opt in ("--scenario", "--out", "--notebooks", "--overwrite", "--timeout", "--jobs"):
        assert opt in rep


def test_list_command():
    res = _cli("list", "models")
    assert res.returncode == 0 and "llama-3.1-405b" in res.stdout
    assert "mfu" in _cli("list", "parameters").stdout


def test_list_tables_are_readable_and_machine_readable():
    acc = _cli("list", "accelerators").stdout.splitlines()
    assert acc[0].split()[:3] == ["accelerator", "vendor", "year"]
    h100 = next(line for line in acc if line.startswith("H100-SXM"))
    assert " 989 " in h100 and h100.endswith("all")      # dense BF16 TFLOP/s, all notebooks
    mi = next(line for line in acc if line.startswith("MI325X"))
    assert "00, 01, 07, 08, 10 only" in mi and "the scale-out bandwidth" in mi
    runs = _cli("list", "runs").stdout.splitlines()
    assert max(len(line) for line in runs) < 200
    # the names a scenario takes (a trial typed the published "H100-80GB" and was refused):
    # Llama 3 405B's row (arXiv:2407.21783, Table 4) names llama-3.1-405b and H100-SXM
    row = next(line for line in runs if line.startswith("llama3-405b "))
    assert row.split()[1:3] == ["llama-3.1-405b", "H100-SXM"]
    llmcost.load_model(row.split()[1]), llmcost.load_accelerator(row.split()[2])
    assert any("(V100: not in the catalogue)" in line for line in runs)
    import csv as csv_
    import io
    rows = list(csv_.DictReader(io.StringIO(_cli("list", "prices", "--format", "csv").stdout)))
    assert rows and "source" in rows[0] and float(rows[0]["price_usd_per_gpu_hour"]) > 0
    # the terminal table shows what a procurement trial found only in the csv: a row listed
    # with nothing to sell, the shortest term, a secondary unverified copy, community hosts
    # (data/prices.csv: DigitalOcean's MI300X $2.59 of 2026-10 not available; AWS's B200
    # Capacity Block, 1 day, "[secondary, unverified]"; RunPod's H100 Community Cloud)
    table = _cli("list", "prices").stdout.splitlines()
    assert table[0].split()[-5:] == ["buyable", "min", "term", "(days)", "caveat"]
    mi = next(x for x in table if x.startswith("MI300X") and " 2.59 " in x)
    assert "NO (listed, none to sell)" in mi
    b200 = next(x for x in table if x.startswith("B200") and " reserved " in x)
    assert b200.split()[-4:] == ["1", "unverified", "(secondary", "copy)"]
    runpod = next(x for x in table if " RunPod " in x)
    assert runpod.endswith("community hosts, no data-centre SLA")
    # URLs as they are written (pandas' JSON wrote "https:\/\/", legal but unreadable)
    text = _cli("list", "prices", "--format", "json").stdout
    assert "https://" in text and "\\/" not in text
    assert json.loads(text)[0]["source"] == rows[0]["source"]
    models = json.loads(_cli("list", "models", "--format", "json").stdout)
    assert any(m["name"] == "llama-3.1-8b" and m["n_params"] == 8_030_261_248 for m in models)


def test_list_into_a_closed_pipe_is_quiet():
    # `llmcost list prices | head -2`: the reader closes the pipe; no BrokenPipeError traceback.
    res = subprocess.run(f"{sys.executable} -m llmcost list prices | head -2", shell=True,
                         capture_output=True, text=True, timeout=120)
    assert len(res.stdout.splitlines()) == 2
    assert "Traceback" not in res.stderr and "BrokenPipe" not in res.stderr


def test_a_report_into_a_closed_pipe_finishes_its_folder(tmp_path):
    # `llmcost report ... 2>&1 | head -1`: the reader closes the pipe after the first line; the
    # report used to die at its next progress line, leaving half a notebook, no index.html and
    # no INCOMPLETE marker. It now writes its whole folder and exits 0.
    out = tmp_path / "r"
    res = subprocess.run(f"{sys.executable} -m llmcost report --scenario "
                         f"{llmcost.SCENARIO_DIR / 'default.yaml'} --notebooks 10 --out {out} "
                         "2>&1 | head -1; exit ${PIPESTATUS[0]}", shell=True,
                         executable="/bin/bash", capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout
    assert (out / "index.html").exists() and (out / "10_glossary.html").exists()
    assert not (out / "INCOMPLETE.txt").exists()


def test_a_stream_whose_reader_left_takes_writes_quietly():
    from llmcost.present.cli import _ReaderGone

    class Closed:
        def write(self, text):
            raise BrokenPipeError

        def flush(self):
            raise BrokenPipeError

    s = _ReaderGone(Closed())
    assert s.write("progress line\n") == len("progress line\n")  # swallowed, counted
    s.flush()
    assert s.write("next") == 4  # and every later write is dropped without trying


def _tiny_notebooks(folder: Path):
    folder.mkdir()
    params = new_code_cell('model: str = "llama-2-70b"  # catalogue model name')
    params.metadata["tags"] = ["parameters"]
    ok = new_notebook(cells=[new_markdown_cell("# 01 · ok?"), params,
                             new_code_cell("print(model)")])
    bad = new_notebook(cells=[new_markdown_cell("# 02 · fails?"), params,
                              new_code_cell("raise ValueError('deliberate failure')")])
    for nb in (ok, bad):
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                     "language": "python"}
    nbformat.write(ok, folder / "01_ok.ipynb")
    nbformat.write(bad, folder / "02_fail.ipynb")


def test_failed_notebook_is_kept_and_named(tmp_path, monkeypatch):
    _tiny_notebooks(tmp_path / "nbs")
    monkeypatch.setattr(report, "NOTEBOOK_DIR", tmp_path / "nbs")
    sc = tmp_path / "s.yaml"
    sc.write_text("model: llama-2-70b\n")
    out = tmp_path / "out"
    with pytest.raises(report.ReportError, match="02_fail.ipynb"):
        report.run_report(sc, out, timeout_s=TIMEOUT_S, progress=lambda s: None)
    failed = nbformat.read(out / "02_fail.ipynb", as_version=4)
    errors = [o for c in failed.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.output_type == "error"]
    assert errors and errors[0].evalue == "deliberate failure"
    assert (out / "01_ok.html").exists() and (out / "02_fail.html").exists()
    assert "failed" in (out / "index.html").read_text()
    assert json.loads((out / "summary.json").read_text())["failed"] == ["02_fail.ipynb"]
    # The page says what went wrong in one sentence, not with a traceback.
    page = (out / "02_fail.html").read_text()
    assert "This notebook stopped with an error" in page
    assert "ValueError: deliberate failure" in page and "Traceback" not in page
    assert "raise ValueError" not in page


@pytest.mark.parametrize("stem, fails", [("01_ok", False), ("02_fail", True)])
def test_each_executed_notebook_is_written_once_and_its_page_is_of_the_file(
        tmp_path, monkeypatch, stem, fails):
    """papermill writes the executed notebook once, whether a cell fails or not (the report's
    engine leaves the write to ``papermill.execute_notebook``'s last step on a run that
    returns); the page and the headline rows are the ones the notebook on disk gives. Each
    cell that ran has papermill's times: its start, its end and the seconds between them,
    read without dateutil's parser (the report's engine reads the start time papermill wrote
    with ``datetime.fromisoformat``)."""
    from datetime import datetime

    import dateutil.parser
    import papermill.engines
    import papermill.execute

    def no_dateutil(*args, **kwargs):
        raise AssertionError("dateutil's parser is not needed for papermill's own times")

    monkeypatch.setattr(dateutil.parser, "parse", no_dateutil)

    _tiny_notebooks(tmp_path / "nbs")
    src = tmp_path / "nbs" / f"{stem}.ipynb"
    nb = nbformat.read(src, as_version=4)
    nb.cells.insert(2, new_code_cell(
        "from llmcost.report import publish_summary, summary_row\n"
        f"publish_summary({stem!r}, [summary_row('k', 'a figure', 1.5, 's')])"))
    nbformat.write(nb, src)
    writes = []
    for module in (papermill.execute, papermill.engines):
        real = module.write_ipynb
        monkeypatch.setattr(module, "write_ipynb",
                            lambda nb, path, real=real: (writes.append(path), real(nb, path))[1])
    out = tmp_path / f"{stem}.ipynb"
    run, failure = report._run_one(src, out, {}, "a title", {stem}, TIMEOUT_S)
    assert len(writes) == 1 and (failure is not None) == fails
    kept = nbformat.read(out, as_version=4)
    assert run.rows == report._collect_summary(kept) and run.rows[0]["value"] == 1.5
    times = [c.metadata.papermill for c in kept.cells  # the note of a failure has none
             if c.metadata.get("papermill", {}).get("start_time")]
    assert len(times) >= 3  # the parameters, the injected ones, the summary cell at least
    for meta in times:
        ran = (datetime.fromisoformat(meta["end_time"])
               - datetime.fromisoformat(meta["start_time"])).total_seconds()
        assert meta["duration"] == ran and 0 <= ran < TIMEOUT_S
    assert [m["status"] for m in times] == ["completed"] * (len(times) - fails) + \
        ["failed"] * fails

    def page(text):  # the note a failed page gets is a new cell: a new random id each time
        return re.sub(r"cell-id=[0-9a-f-]+", "cell-id=", text)

    assert page(run.html.read_text(encoding="utf-8")) == page(
        report._to_html(kept, "a title", {stem}))


def test_parallel_report_names_each_notebook_and_keeps_the_failed_one(tmp_path, monkeypatch):
    # --jobs 2: both notebooks start before either finishes (two kernels at once); each start,
    # finish and failure is one line naming the notebook with how many are left; the failure
    # behaviour is that of one-at-a-time runs (failed notebook kept and named, the rest written).
    _tiny_notebooks(tmp_path / "nbs")
    monkeypatch.setattr(report, "NOTEBOOK_DIR", tmp_path / "nbs")
    sc = tmp_path / "s.yaml"
    sc.write_text("model: llama-2-70b\n")
    lines, cwd = [], os.getcwd()
    with pytest.raises(report.ReportError, match="1 notebook\\(s\\) failed: .*02_fail.ipynb"):
        report.run_report(sc, tmp_path / "out", timeout_s=TIMEOUT_S, progress=lines.append,
                          jobs=2)
    # overlapping papermill runs each chdir; the working folder is the caller's again
    assert os.getcwd() == cwd
    runs = [line for line in lines if line.startswith("[")]
    assert runs[0].startswith("[1/2] started 01_ok (1 left to start")
    assert runs[1].startswith("[2/2] started 02_fail (0 left to start; running: 01_ok, 02_fail")
    finished = runs[2:]
    assert len(finished) == 2
    assert any(" 01_ok done in " in line for line in finished)
    failed = next(line for line in finished if "02_fail FAILED" in line)
    assert "ValueError: deliberate failure" in failed and "kept at" in failed
    assert finished[0].endswith("(1 left)") and finished[1].endswith("(0 left)")
    out = tmp_path / "out"
    assert (out / "01_ok.html").exists() and (out / "02_fail.ipynb").exists()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["failed"] == ["02_fail.ipynb"] and list(summary["notebooks"]) == [
        "01_ok", "02_fail"]                                # reading order, not finishing order


def test_kernels_run_their_first_notebooks_while_the_warnings_are_computed(tmp_path,
                                                                          monkeypatch):
    # with a cold disk cache the scenario's warnings take a second (the step model's validation
    # table): the kernels, warm before that, run their first notebooks meanwhile, and the
    # warnings still read before the lines that say the notebooks started
    _tiny_notebooks(tmp_path / "nbs")
    monkeypatch.setattr(report, "NOTEBOOK_DIR", tmp_path / "nbs")
    sc = tmp_path / "s.yaml"
    sc.write_text("model: llama-2-70b\n")
    running, seen, real_run, real_warn = threading.Event(), {}, report._run_one, \
        report.scenario_warnings

    def run_one(*args, **kwargs):  # a worker's run of one notebook, in its own thread
        running.set()
        return real_run(*args, **kwargs)

    def warn(*args, **kwargs):  # waits for a notebook to run (it never would, run after)
        seen["running"] = running.wait(timeout=30)
        return real_warn(*args, **kwargs) + ["a warning of this test"]

    monkeypatch.setattr(report, "_run_one", run_one)
    monkeypatch.setattr(report, "scenario_warnings", warn)
    lines = []
    with pytest.raises(report.ReportError, match="02_fail"):
        report.run_report(sc, tmp_path / "out", timeout_s=TIMEOUT_S, progress=lines.append,
                          jobs=2)
    assert seen["running"]
    first = next(i for i, line in enumerate(lines) if line.startswith("[1/2] started"))
    assert lines.index("warning: a warning of this test") < first
    assert [line[:6] for line in lines[first:first + 2]] == ["[1/2] ", "[2/2] "]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert "a warning of this test" in summary["warnings"]


def test_notebooks_start_costliest_first():
    """Longest processing time first (Graham 1969): by ``NOTEBOOK_CPU_S`` (cold, then warm),
    a notebook the table does not know first, in reading order. Hand-ordered from the table:
    04b (20.1 cold CPU-s), 05 (5.8), 04 (5.0), 09 (4.7), 00 (3.7), 03 (2.8), 06 (2.3),
    01 (2.2), 02 (2.1), 07 (1.3), 08 (0.8), 10 (0.2)."""
    nbs = [Path(f"{s}.ipynb") for s in (
        "00_index", "01_flops", "02_batch_size", "03_parallelism", "04_communication",
        "04b_step_time", "05_rl_loop", "06_chinchilla", "07_checkpoints", "08_published_runs",
        "09_savings", "10_glossary", "11_new", "12_newer")]
    assert [nb.stem[:3].rstrip("_") for nb in report.start_order(nbs)] == [
        "11", "12", "04b", "05", "04", "09", "00", "03", "06", "01", "02", "07", "08", "10"]
    assert {nb.stem for nb in report.list_notebooks()} <= set(report.NOTEBOOK_CPU_S)


@pytest.mark.parametrize("jobs", [0, -1, 1.5, True])
def test_jobs_must_be_a_positive_whole_number(tmp_path, jobs):
    with pytest.raises(report.UsageError, match=f"jobs={jobs!r} must be a whole number >= 1"):
        report.run_report(SCENARIOS[0], tmp_path / "o", jobs=jobs, progress=lambda s: None)
    assert not (tmp_path / "o").exists()
    res = _cli("report", "--scenario", str(SCENARIOS[0]), "--out", str(tmp_path / "o"),
               "--jobs", "0")
    assert res.returncode == 2 and "--jobs=0 must be >= 1" in res.stderr


@pytest.mark.cores_default
def test_default_jobs_is_the_number_of_usable_cores():
    expected = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") \
        else os.cpu_count()
    assert report.default_jobs() == expected
    assert f"here {expected}" in " ".join(_cli("report", "--help").stdout.split())


def test_existing_output_is_not_overwritten_silently(tmp_path, monkeypatch):
    _tiny_notebooks(tmp_path / "nbs")
    (tmp_path / "nbs" / "02_fail.ipynb").unlink()
    monkeypatch.setattr(report, "NOTEBOOK_DIR", tmp_path / "nbs")
    sc = tmp_path / "s.yaml"
    sc.write_text("model: llama-2-70b\n")
    out = tmp_path / "out"
    report.run_report(sc, out, timeout_s=TIMEOUT_S, progress=lambda s: None)
    (out / "extra.txt").write_text("mine")
    with pytest.raises(report.ReportError, match="already holds a report; pass --overwrite"):
        report.run_report(sc, out, progress=lambda s: None)
    assert (out / "extra.txt").exists()
    messages = []
    report.run_report(sc, out, overwrite=True, timeout_s=TIMEOUT_S, progress=messages.append)
    # --overwrite deletes only what a report wrote: the user's file stays, and is named
    assert (out / "extra.txt").read_text() == "mine"
    assert any("replacing the earlier report" in m and "extra.txt" in m for m in messages)
    # A folder that no report wrote is never deleted, even with --overwrite.
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("years of work")
    with pytest.raises(report.ReportError, match="not an llmcost report folder"):
        report.run_report(sc, precious, overwrite=True, progress=lambda s: None)
    assert (precious / "thesis.tex").exists()
    # without --overwrite it is not told to pass one, which would be refused (a newcomer's
    # trial followed the hint into the second refusal)
    with pytest.raises(report.ReportError, match="holds files that are not an llmcost report") \
            as e:
        report.run_report(sc, precious, progress=lambda s: None)
    assert "--overwrite" not in str(e.value)
    # a mistyped 'title' is told 'title' first (it was told 'ckpt_interval_s')
    bad = tmp_path / "t.yaml"
    bad.write_text("titel: x\nmodel: llama-2-7b\n")
    with pytest.raises(ValueError, match="did you mean 'title'"):
        llmcost.load_scenario(bad)


def test_selection_accepts_keys_of_other_notebooks_and_shows_defaults(tmp_path):
    sc = tmp_path / "s.yaml"
    sc.write_text("model: llama-3.1-8b\nmfu: 0.35\n")  # mfu belongs to 01, not 00
    out = tmp_path / "o"
    lines = []
    res = report.run_report(sc, out, selection=["00"], timeout_s=TIMEOUT_S,
                            progress=lines.append)
    assert [p.name for p in res.notebooks] == ["00_index.ipynb"]
    used = json.loads((out / "summary.json").read_text())["parameters"]
    assert used["model"] == {"value": "llama-3.1-8b", "from": "scenario"}
    assert used["n_gpus"]["from"] == "notebook default"
    # mfu_band takes its notebook default too, but no scenario file can set it (a report does:
    # `llmcost list parameters`, "not in a scenario file"), so it is no default the scenario
    # left out: neither counted nor listed (a new-user trial read "mfu_band = null" there)
    assert used["mfu_band"] == {"value": None, "from": "notebook default"}
    n_defaults = sum(v["from"] == "notebook default" for k, v in used.items()
                     if k != "mfu_band")
    assert any(f"{n_defaults} parameter(s) not in the scenario take the notebooks' defaults" in
               line for line in lines)
    index = (out / "index.html").read_text()
    assert "notebook default" in index
    assert f"Defaults used ({n_defaults})" in index and "<code>accelerator</code> = H100-SXM" \
        in index
    listed = index.split("<h2>Defaults used")[1].split("</ul>")[0]
    assert "<code>accelerator</code>" in listed and "<code>mfu_band</code>" not in listed
    assert "<p></p>" not in index  # a scenario without a description gets no empty paragraph


def test_defaults_used_leave_out_what_a_scenario_file_cannot_set(tmp_path):
    """The index's "Defaults used" list: the parameters the scenario leaves out, not those no
    scenario file can set (``scenario.REPORT_SET_KEYS``), which a report sets itself."""
    from llmcost.bill.scenario import REPORT_SET_KEYS, ScenarioError
    declared = {nb: report.declared_parameters(nb) for nb in report.list_notebooks()}
    used = report.effective_parameters({"model": "llama-3.1-8b"}, declared)
    assert used["mfu_band"]["from"] == "notebook default"
    defaults = report._defaults_used(used)
    assert "n_gpus" in defaults and "accelerator" in defaults
    assert not set(REPORT_SET_KEYS) & set(defaults)
    assert len(defaults) == sum(v["from"] == "notebook default" for v in used.values()) - 1
    # the world: a scenario file that sets either is refused (`llmcost list parameters`:
    # mfu_band is "not in a scenario file"; reports always run without widgets)
    for key, value in (("mfu_band", "predicted"), ("interactive", "false")):
        sc = tmp_path / f"{key}.yaml"
        sc.write_text(f"model: llama-3.1-8b\n{key}: {value}\n")
        with pytest.raises(ScenarioError, match=f"{key} cannot be set in a scenario"):
            llmcost.load_scenario(sc)


def test_plan_rules_apply_only_when_a_selected_notebook_builds_the_plan(tmp_path):
    # MI325X has no sourced scale-out bandwidth: the FLOP and cost notebooks run, the
    # parallelism notebooks are refused with a message that says what to do.
    sc = tmp_path / "s.yaml"
    # (a price is given: the catalogue has no MI325X price, and an omitted price is its median)
    sc.write_text("model: llama-3.1-8b\naccelerator: MI325X\nn_gpus: 64\n"
                  "price_usd_per_gpu_hour: 4.0\n")
    nbs = report.plan_report(sc, ["00", "01"]).notebooks
    assert [nb.stem for nb in nbs] == ["00_index", "01_flops"]
    # the notebooks it can run, as `llmcost list accelerators` names them
    with pytest.raises(report.ScenarioError, match=r"00, 01, 07, 08, 10 only"):
        report.plan_report(sc, ["00", "02"])
    # A value that breaks its own rule is refused whichever notebooks are selected.
    sc.write_text("model: llama-3.1-8b\ntp: -1\n")
    with pytest.raises(report.ScenarioError, match="tp=-1 must be >= 0"):
        report.plan_report(sc, ["00"])


def test_html_links_point_to_html_pages(full_report):
    out = full_report(SCENARIOS[0])[0]
    page = (out / "01_flops.html").read_text()
    # "← 00 · Index" goes to the report's own index page; other notebooks to their HTML pages.
    assert 'href="index.html">← 00 · Index' in page and 'href="00_index.ipynb"' not in page
    assert 'href="02_batch_size.html"' in page
    index = (out / "index.html").read_text()
    assert "$" in index and "e+" not in index  # $2.48M, not 2.48e+06 USD


@pytest.mark.parametrize("value, unit, text", [
    (9.93e7, "USD", "$99.3M"), (2.6e7, "GPU-h", "26.0M GPU-h"), (3.8e25, "FLOP", "3.80e25 FLOP"),
    (580964.3, "GPU-h", "580,964 GPU-h"), (66.15, "days", "66.2 days"), (412.0, "USD", "$412"), (41.2, "USD", "$41.20"),
    # a rate keeps its unit on the index (a trial read "price | $1.13" beside the bill's totals)
    (1.13, "USD/GPU-h", "$1.13/GPU-h"), (3.99, "USD/GPU-h", "$3.99/GPU-h"),
    # below one day or month, in the unit that fits (a trial read "0.0183 days"): 0.0183 × 1,440
    # = 26.4 min; 0.0563 months × 30.44 days × 24 = 41.1 h
    (0.0183, "days", "26.4 min"), (0.0563, "months", "41.1 h"), (1.5, "months", "1.5 months"),
])
def test_format_value(value, unit, text):
    assert report.format_value(value, unit) == text


@pytest.mark.parametrize("value, unit, text", [
    (9.68e11, "B", "968 GB"), (9.68e8, "USD", "$968M"), (2.5e6, "GPU-h", "2.50M GPU-h"),
    # rounding up to the next suffix (hand-rounded to three significant figures)
    (999.6e6, "GPU-h", "1.00B GPU-h"), (999_999.7, "GPU-h", "1.00M GPU-h"),
    (-999.6e9, "tokens", "-1.00T tokens"), (2.5e15, "tokens", "2.50e15 tokens"),
    # terabytes in the unit that fits (a lecturer read "0.00651 TB" of a 360M model's states:
    # 361.8M parameters × 18 B = 6.51 GB)
    (0.00651, "TB", "6.51 GB"), (1.24, "TB", "1.24 TB"),
])
def test_format_value_more(value, unit, text):
    assert report.format_value(value, unit) == text


@pytest.fixture(scope="module")
def subset_report(tmp_path_factory):
    """Notebooks 01 and 07 of a 70B model on 17 GPUs at an MFU of 0.9 (its states fit, 1.24 TB
    over 17 GPUs is 73 GB of 77 usable, but no plan does, an MFU above any published run): one
    report read by the two tests below. Returns (out_dir, progress lines)."""
    folder = tmp_path_factory.mktemp("subset")
    sc = folder / "s.yaml"
    sc.write_text("model: llama-2-70b\nn_gpus: 17\nmfu: 0.9\n")
    out, lines = folder / "o", []
    report.run_report(sc, out, selection=["01", "07"], timeout_s=TIMEOUT_S, progress=lines.append)
    return out, lines


def test_subset_report_links_only_to_pages_it_wrote(subset_report):
    out = subset_report[0]
    import re
    written = {p.name for p in out.iterdir()}
    for page in ("01_flops.html", "07_checkpoints.html", "index.html"):
        text = (out / page).read_text()
        targets = {t for t in re.findall(r'href="([^"#]+)', text) if not t.startswith("http")}
        assert targets <= written, (page, targets - written)
    seven = (out / "07_checkpoints.html").read_text()
    assert seven.count('href="index.html"') >= 2     # back link at the top and at the end
    assert "06 · Train bigger or train longer? (not in this report)" in seven  # previous
    index = (out / "index.html").read_text()
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in index
    assert "overflow-x:auto" in index                  # wide tables scroll at phone width
    assert ">True<" not in index and ">False<" not in index
    goodput = re.search(r"<td>goodput</td><td class='v'>([^<]+)<", index).group(1)
    assert goodput.endswith("%")                       # fractions shown as percentages


def test_index_value_formats_fractions_and_booleans():
    assert report.index_value({"key": "goodput", "value": 0.9231, "unit": ""}) == "92.3%"
    assert report.index_value({"key": "fits", "value": True, "unit": ""}) == "yes"
    assert report.index_value({"key": "gpu_hours", "value": 2.5e6, "unit": "GPU-h"}) == \
        "2.50M GPU-h"
    # notebook 08's count of held-out rows is a count, not a fraction ("29", never "2900.0%")
    assert report.index_value({"key": "heldout_mfu_rows_within_20pct", "value": 29,
                               "unit": "", "note": "of 29 rows"}) == "29"
    # a value not computed is "n/a", never "nan" or "$nan"
    assert report.index_value({"key": "cost", "value": float("nan"), "unit": "USD"}) == "n/a"
    assert report.index_value({"key": "mfu", "value": float("nan"), "unit": ""}) == "n/a"


def test_a_notebooks_summary_table_shows_values_as_the_index_does():
    # a trial read "predicted MFU, scenario plan  0.488" in 04b's closing table against 48.8% on
    # the index: both print index_value's form
    rows = [report.summary_row("predicted_mfu", "predicted MFU", 0.488, ""),
            report.summary_row("fits", "fits in memory", True, ""),
            report.summary_row("gpu_hours", "GPU-hours", 2.5e6, "GPU-h")]
    assert report.summary_text(rows).splitlines() == [
        "predicted MFU   48.8%", "fits in memory  yes", "GPU-hours       2.50M GPU-h"]


def test_warnings_and_bill_on_the_index(subset_report):
    out, lines = subset_report
    summary = json.loads((out / "summary.json").read_text())
    text = " ".join(summary["warnings"])
    assert "mfu=0.90 is above any published" in text
    assert "no parallel plan fits" in text  # a 70B model on 17 GPUs
    assert any(line.startswith("warning: no parallel plan fits") for line in lines)
    index = (out / "index.html").read_text()
    assert "Read this first" in index and "<h2>The bill</h2>" in index
    assert "the whole bill" in index and "Not modelled yet" not in index
    bill = summary["bill"]
    # the scenario describes no RL campaign: 0 and "not given", not the notebooks' example
    assert bill["bill.lines"]["post.rl"]["status"] == "not given"
    assert bill["bill.lines"]["post.rl"]["usd"] == 0.0
    assert bill["schema_version"] == llmcost.ledger.SCHEMA_VERSION
    assert bill["bill.total_usd"] == pytest.approx(
        llmcost.ledger.build_ledger({"n_gpus": 17, "mfu": 0.9}).total_usd, rel=1e-9)


def test_a_scenario_can_give_the_missing_scale_out_figures(tmp_path):
    # MI325X has no sourced scale-out bandwidth in data/accelerators.csv: the parallelism
    # notebooks are refused (test above) unless the scenario states the figure itself.
    sc = tmp_path / "s.yaml"
    sc.write_text("model: llama-3.1-8b\naccelerator: MI325X\nn_gpus: 64\n"
                  "price_usd_per_gpu_hour: 4.0\n"  # no catalogue price for MI325X
                  "comm_scaleout_bytes_per_s: 5.0e+10\ncomm_scaleout_latency_s: 1.0e-5\n")
    plan = report.plan_report(sc)
    assert "04_communication" in [nb.stem for nb in plan.notebooks]
    from llmcost import catalog
    cluster = catalog.scenario_cluster(plan.values)
    assert cluster.scaleout_bytes_per_s_per_dir == 5e10 and cluster.scaleout_latency_s == 1e-5
    from llmcost.training.step import _load_eff
    assert _load_eff(cluster).scaleout_latency_s == 1e-5
    sc.write_text("model: llama-3.1-8b\naccelerator: MI325X\nn_gpus: 64\n")
    with pytest.raises(report.ScenarioError, match="or give comm_scaleout_bytes_per_s"):
        report.plan_report(sc)


def test_every_notebook_that_chooses_a_plan_reads_the_stack():
    # Issue 9: the plan search follows the scenario's `stack`; a notebook choosing a plan from
    # the plan fields without declaring `stack` would search the default stack's features and
    # could show another plan than notebook 04 (report.stack_warnings used to warn; with 02 and
    # 03 declaring it, this test replaces the warning).
    from llmcost import report
    nbs = report.list_notebooks()
    choosing = [nb.stem for nb in nbs if "tp" in report.declared_parameters(nb)]
    assert {"02_batch_size", "03_parallelism", "04_communication", "04b_step_time"} <= set(choosing)
    for nb in nbs:
        declared = report.declared_parameters(nb)
        if "tp" in declared:
            assert "stack" in declared, nb.name
    assert not hasattr(report, "stack_warnings")


def test_timed_out_notebook_page_names_the_timeout(tmp_path, monkeypatch):
    # nbclient interrupts the kernel on a cell timeout, so the cell's own error reads
    # KeyboardInterrupt; the page must say what the CLI says: the --timeout was hit.
    _tiny_notebooks(tmp_path / "nbs")
    (tmp_path / "nbs" / "02_fail.ipynb").unlink()
    slow = nbformat.read(tmp_path / "nbs" / "01_ok.ipynb", as_version=4)
    slow.cells[0].source = "# 02 · slow?"
    slow.cells.append(nbformat.v4.new_code_cell("import time\ntime.sleep(60)"))
    nbformat.write(slow, tmp_path / "nbs" / "02_slow.ipynb")
    monkeypatch.setattr(report, "NOTEBOOK_DIR", tmp_path / "nbs")
    sc = tmp_path / "s.yaml"
    sc.write_text("model: llama-2-70b\n")
    lines = []
    with pytest.raises(report.ReportError, match="02_slow.ipynb"):
        report.run_report(sc, tmp_path / "out", timeout_s=2, progress=lines.append)
    assert any("02_slow FAILED (CellTimeoutError" in s for s in lines), lines
    page = (tmp_path / "out" / "02_slow.html").read_text()
    assert "CellTimeoutError: a cell ran longer than the 2 s timeout" in page
    assert "KeyboardInterrupt" not in page


def test_no_command_prints_the_commands_and_exits_2():
    # `llmcost` alone exited 0 as if it had done something; a usage error is exit 2 (argparse's
    # convention for a missing argument), with the commands listed on stderr
    res = _cli()
    assert res.returncode == 2 and "report" in res.stderr and "estimate" in res.stderr


OWNED_KEYS = ("ledger_owned_usd_per_gpu", "ledger_pue", "ledger_electricity_usd_per_kwh")


def test_every_page_that_prices_gpu_hours_declares_the_owned_keys(tmp_path, monkeypatch):
    # A trial's owned A100-80GB lab (purchase price $15,000, $0.12/kWh, PUE 1.3) passed the
    # report's checks, then failed in notebook 04's kernel: 04 declared `pricing` and the price
    # but not the purchase price, so its own first check asked for the key the scenario gave.
    # Every page declaring `pricing` declares the owned keys, and the report checks each page on
    # the keys it declares before anything is written.
    for nb in report.list_notebooks(None):
        keys = report.declared_parameters(nb)
        if "pricing" in keys:
            assert set(OWNED_KEYS) <= set(keys), nb.stem
    lab = tmp_path / "lab.yaml"
    lab.write_text("model: llama-2-13b\naccelerator: A100-80GB\nn_gpus: 64\n"
                   "train_tokens: 3.0e11\nmfu: 0.45\npricing: owned\n"
                   "ledger_owned_usd_per_gpu: 15000\nledger_electricity_usd_per_kwh: 0.12\n"
                   "ledger_pue: 1.3\n")
    plan = report.plan_report(str(lab), ["04"])
    assert report.notebook_parameters_for(plan.notebooks[0], plan)[
        "ledger_owned_usd_per_gpu"] == 15000
    # a page without them is refused by name before a report is written
    real = report.declared_parameters

    def without_owned(nb):
        keys = real(nb)
        return {k: v for k, v in keys.items() if k not in OWNED_KEYS} \
            if nb.stem.startswith("04_") else keys
    monkeypatch.setattr(report, "declared_parameters", without_owned)
    with pytest.raises(ValueError, match=r"notebook 04_communication cannot run it: "
                                         r"pricing='owned' on A100-80GB needs "
                                         r"ledger_owned_usd_per_gpu"):
        report.plan_report(str(lab), ["01", "04"])   # 01 declares them: the union passes


def test_notebook_00_runs_with_the_served_lines_priced_by_the_scenario(tmp_path):
    # A trial: notebook 00 failed ("line='eval.benchmarks' must be a line priced as served
    # tokens") whenever a scenario gave ledger_eval_gpu_hours or ledger_synthetic_usd_per_mtok,
    # both documented overrides: its served-token illustration kept them. It sets them aside.
    sc = tmp_path / "s.yaml"
    sc.write_text("model: llama-2-70b\nmfu: 0.4\nledger_eval_gpu_hours: 100\n"
                  "ledger_synthetic_usd_per_mtok: 5.0\nledger_synthetic_tokens: 1.0e9\n")
    out = tmp_path / "o"
    res = report.run_report(sc, out, selection=["00"], timeout_s=TIMEOUT_S,
                            progress=lambda s: None)
    assert not res.failed
    page = (out / "00_index.html").read_text(encoding="utf-8")
    assert "expected on an engine" in page and "Traceback" not in page
    # the bill itself keeps the scenario's prices: 100 GPU-h, and 1e9 tokens at $5 per million
    bill = llmcost.build_ledger(llmcost.load_scenario(sc))
    assert bill.line("data.synthetic").usd == pytest.approx(1e9 / 1e6 * 5.0)
    assert bill.line("eval.benchmarks").usd == pytest.approx(
        100 * bill.figures["price_usd_per_gpu_hour"])


def test_the_served_illustration_sets_aside_what_the_scenario_prices_itself():
    # notebook 00's served-token illustration (ledger.served_illustration): a given price and
    # GPU-hours set aside and said; a synthetic-data model the hardware cannot serve (a review:
    # Llama 3.1 405B in BF16 on a Llama 2 70B run's H100 set-up) replaced by the scenario's
    # own model, said; the bill itself unchanged
    from llmcost.bill import ledger
    sc = {**llmcost.load_scenario(llmcost.SCENARIO_DIR / "default.yaml"),
          "ledger_synthetic_usd_per_mtok": 2.0, "ledger_synthetic_tokens": 1e9,
          "ledger_eval_gpu_hours": 5000.0}
    bill = llmcost.build_ledger(sc)
    counts = {"ledger_synthetic_tokens": 1e10, "ledger_eval_requests": 1e6}
    served, note = ledger.served_illustration(bill, counts)
    assert note == ("the scenario's ledger_synthetic_usd_per_mtok and ledger_eval_gpu_hours set "
                    "aside here: the lines are priced as served tokens")
    for key in ("data.synthetic", "eval.benchmarks"):
        assert ledger.served_amounts(served.line(key))["expected_usd"] > 0
    assert bill.line("data.synthetic").usd == pytest.approx(1e9 / 1e6 * 2.0)
    # 405B in BF16: 2 B × 405.9e9 ÷ 8 = 101.5 GB per GPU at TP 8 (one 8-GPU NVLink domain),
    # above an H100's 80 GiB: it cannot be served, and the note gives that reason whole (a
    # review: with serve_tp 4 the reason was cut to its label)
    for tp, why in ((0, "cannot be served on H100-SXM with bf16 weights at any serve_tp up to "
                        "8"), (4, "202.9 GB of bf16 weights per GPU do not fit")):
        big = llmcost.build_ledger({**sc, "ledger_synthetic_model": "llama-3.1-405b",
                                    "serve_tp": tp})
        with pytest.raises(ValueError):
            ledger.with_changes(big, **counts, ledger_synthetic_usd_per_mtok=None)
        served, note = ledger.served_illustration(big, counts)
        assert ledger.served_amounts(served.line("data.synthetic"))["expected_usd"] > 0
        assert "the synthetic-data model llama-3.1-405b cannot be served here (" in note and \
            why in note and note.endswith("): the scenario's own model instead")
    _, plain = ledger.served_illustration(llmcost.build_ledger(
        llmcost.load_scenario(llmcost.SCENARIO_DIR / "default.yaml")), counts)
    assert plain == ""
