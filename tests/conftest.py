"""Shared fixtures. Notebook kernels are started from this interpreter (--nbval-current-env)."""

import fcntl
import os
import pickle
from pathlib import Path

import pytest

# Headless matplotlib everywhere (tests and the kernels they start inherit the environment).
os.environ.setdefault("MPLBACKEND", "Agg")

import llmcost  # noqa: E402


@pytest.fixture(scope="session")
def h100():
    return llmcost.load_accelerator("H100-SXM")


@pytest.fixture(scope="session")
def a100():
    return llmcost.load_accelerator("A100-80GB")


# Under pytest-xdist the workers already use the cores: reports run one notebook at a time.
REPORT_JOBS = 1 if os.environ.get("PYTEST_XDIST_WORKER") else None


@pytest.fixture(scope="session")
def shared_report(tmp_path_factory):
    """``get(scenario)``: the full report of a scenario (every notebook), written once per test
    session and shared by every pytest-xdist worker (tests/test_report.py and
    tests/test_browser_report.py read the same report of the default scenario). The first
    worker to ask writes it under a file lock; the others wait for it and read the result.
    Returns ``(out_dir, ReportResult, progress lines)``; a report that raised raises again."""
    from llmcost import report

    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the folder every worker's base folder is in
    root = root / "shared-reports"
    root.mkdir(exist_ok=True)

    def get(scenario: Path):
        out = root / Path(scenario).stem
        done = out.with_suffix(".pickle")
        with open(out.with_suffix(".lock"), "a+") as lock:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
            if not done.exists():
                lines, outcome = [], None
                try:
                    outcome = report.run_report(scenario, out, timeout_s=300,
                                                progress=lines.append, jobs=REPORT_JOBS)
                except report.ReportError as e:
                    outcome = e
                done.write_bytes(pickle.dumps((outcome, lines)))
            outcome, lines = pickle.loads(done.read_bytes())
        if isinstance(outcome, Exception):
            raise outcome
        return out, outcome, lines
    return get
