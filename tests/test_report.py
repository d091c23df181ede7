"""`llmcost report`: every scenario end to end, bad input from the command line, overwrite rules
and failed notebooks."""

import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

import llmcost
from llmcost import report

SCENARIOS = sorted(llmcost.SCENARIO_DIR.glob("*.yaml"))
TIMEOUT_S = 300


def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "llmcost", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=600)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda p: p.stem)
def test_every_scenario_runs_every_notebook(scenario, tmp_path):
    out = tmp_path / "r"
    lines = []
    res = report.run_report(scenario, out, timeout_s=TIMEOUT_S, progress=lines.append)
    assert not res.failed
    stems = [p.stem for p in report.list_notebooks()]
    for stem in stems:
        assert (out / f"{stem}.ipynb").exists() and (out / f"{stem}.html").exists()
        html = (out / f"{stem}.html").read_text()
        assert "import llmcost" not in html, "report HTML must not show code"
    assert (out / "index.html").exists() and (out / "summary.csv").exists()
    assert any("[1/" in line and "left" in line for line in lines)  # progress was shown
    summary = json.loads((out / "summary.json").read_text())
    rows = {r["key"]: r for r in summary["notebooks"]["01_flops"]}
    assert {"training_flops", "gpu_hours", "wall_clock_days", "compute_cost_usd"} <= set(rows)
    batch_rows = {r["key"]: r for r in summary["notebooks"]["02_batch_size"]}
    assert batch_rows["plan_tokens_over_e_min"]["value"] > 1
    if scenario.stem == "llama-3.1-405b":
        # Table 4: the final 16M-token batch exactly fills 16,384 GPUs at TP 8, PP 16 with one
        # 8K sequence per micro-batch (16 micro-batches per replica).
        assert batch_rows["fill_batch_tokens"]["value"] == 16 * 2**20
        # Llama 3 report §3.3: 3.8e25 FLOPs (rounded).
        assert rows["training_flops"]["value"] == pytest.approx(3.8e25, abs=0.05e25)
        days = rows["wall_clock_days"]["value"]
        assert 50 < days < 80  # 16,384 GPUs at 41% MFU, before failures


@pytest.mark.parametrize("text, message", [
    ("model: llama-2-70b\nunknown_key: 3\n", "'unknown_key'"),
    ("model: llama-2-70b\nn_gpus: many\n", "n_gpus='many' must be a number"),
    ("model: llama-2-70b\nn_gpus: -1\n", "n_gpus=-1 must be > 0"),
    ("model: llama-2-70b\nn_gpus: 0\n", "n_gpus=0 must be > 0"),
    ("model: llama-9-70b\n", "model='llama-9-70b' is not in the catalogue"),
    ("accelerator: H101\n", "accelerator='H101' is not in the catalogue"),
    ("mfu: 1.5\n", r"mfu=1.5 must be in (0, 1]"),
    ("mfu: 0\n", r"mfu=0.0 must be in (0, 1]"),
    ("n_gpus: 2048\ntp: 3\n", "tp=3 × pp=1 = 3 must divide n_gpus=2048"),
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
    assert res.returncode == 2 and "does not exist" in res.stderr


def test_unknown_notebook_selection(tmp_path):
    res = _cli("report", "--scenario", str(SCENARIOS[0]), "--out", str(tmp_path / "o"),
               "--notebooks", "77")
    assert res.returncode == 2 and "'77' matches no notebook" in res.stderr


def test_help_documents_every_option():
    top = _cli("--help").stdout
    for word in ("report", "refresh-notebooks", "list"):
        assert word in top
    rep = _cli("report", "--help").stdout
    for opt in ("--scenario", "--out", "--notebooks", "--overwrite", "--timeout"):
        assert opt in rep


def test_list_command():
    res = _cli("list", "models")
    assert res.returncode == 0 and "llama-3.1-405b" in res.stdout
    assert "mfu" in _cli("list", "parameters").stdout


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


def test_existing_output_is_not_overwritten_silently(tmp_path, monkeypatch):
    _tiny_notebooks(tmp_path / "nbs")
    (tmp_path / "nbs" / "02_fail.ipynb").unlink()
    monkeypatch.setattr(report, "NOTEBOOK_DIR", tmp_path / "nbs")
    sc = tmp_path / "s.yaml"
    sc.write_text("model: llama-2-70b\n")
    out = tmp_path / "out"
    report.run_report(sc, out, timeout_s=TIMEOUT_S, progress=lambda s: None)
    (out / "extra.txt").write_text("mine")
    with pytest.raises(report.ReportError, match="already exists; pass --overwrite"):
        report.run_report(sc, out, progress=lambda s: None)
    assert (out / "extra.txt").exists()
    messages = []
    report.run_report(sc, out, overwrite=True, timeout_s=TIMEOUT_S, progress=messages.append)
    assert not (out / "extra.txt").exists()
    assert any("replacing the earlier report" in m for m in messages)
    # A folder that no report wrote is never deleted, even with --overwrite.
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("years of work")
    with pytest.raises(report.ReportError, match="not an llmcost report folder"):
        report.run_report(sc, precious, overwrite=True, progress=lambda s: None)
    assert (precious / "thesis.tex").exists()
