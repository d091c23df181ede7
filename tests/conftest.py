"""Shared fixtures. Notebook kernels are started from this interpreter (--nbval-current-env)."""

import fcntl
import os
import pickle
from pathlib import Path

import pytest

# Headless matplotlib everywhere (tests and the kernels they start inherit the environment).
os.environ.setdefault("MPLBACKEND", "Agg")

import llmcost  # noqa: E402

# How `make test` shares the files between its two pytest-xdist workers: each file is one unit of
# work, sent whole to one worker (as `--dist loadfile` does), in the order below; a file missing
# from this list is still run, the order only spreads the time. (xdist's own `--dist loadgroup`
# would do the grouping, but with pytest 9 its group marks do not reach the scheduler: a
# notebook's cells were split between workers.) Units known to be long go first, so that no
# worker is left running one long file at the end while the other idles; the rest follow in
# collection order.
#
# The four files that run the default scenario's notebooks are one unit, in this order:
# tests/test_figure_text_floor.py and tests/test_explore_in_process.py check the same in-process
# run of each notebook (tests/_inprocess.py: default_run; on two workers each would run the
# notebooks itself), and that run computes the disk-cached tables (core.diskcache) under the
# test's warnings filters before tests/test_report.py's report asks for them: its kernel, whose
# filters hide more, reads them (core.diskcache.usable_under). The other way round the worker
# cannot read the kernel's entries (IPython's kernel turns a warning class into an error, and
# ignores DeprecationWarning), and computes its own copy: measured with the report on the other
# worker, its kernel reached 97 tables first, each then computed twice. tests/test_report.py and
# tests/test_browser_report.py read the same report (``shared_report``); as two units one worker
# would wait on the other's lock.
DEFAULT_SCENARIO = ["test_figure_text_floor.py", "test_explore_in_process.py", "test_report.py",
                    "test_browser_report.py"]
SAME_WORKER = dict.fromkeys(DEFAULT_SCENARIO, "default-scenario")
LONG_FIRST = DEFAULT_SCENARIO + [
    "test_scenarios_in_process.py", "test_live_figure.py", "test_browser_lab_a.py",
    "test_rl_validation.py", "test_small_jobs.py", "test_scenario_matrix_a.py",
    "09_savings.ipynb", "test_kernels.py", "test_early_kernels.py", "test_scenario_trial.py",
    "test_scenario_matrix_b.py", "test_notebooks_in_process.py", "test_diskcache.py",
    "test_step.py", "test_trial_wording.py", "test_scenario_predict.py", "05_rl_loop.ipynb",
    "test_report_glance.py", "test_ranges.py", "04b_step_time.ipynb", "00_index.ipynb",
    "04_communication.ipynb", "test_browser_lab_b.py", "test_benchmark_scripts.py"]


def pytest_configure(config):
    config.addinivalue_line("markers", "cores_default: a test of report.default_jobs itself (it "
                            "keeps the number of cores under pytest-xdist)")
    config.addinivalue_line("markers", "fresh_kernels: its reports start new kernels (none "
                            "kept by report.keep_kernels before or after it)")


def _file_name(nodeid: str) -> str:
    return nodeid.split("::", 1)[0].rsplit("/", 1)[-1]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Long files first (above); within a file the order is kept (a stable sort)."""
    rank = {name: i for i, name in enumerate(LONG_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


@pytest.hookimpl(optionalhook=True)  # only under pytest-xdist
def pytest_xdist_make_scheduler(config, log):
    """Files as units of work, ``SAME_WORKER`` joined, in collection order (above)."""
    from xdist.scheduler import LoadScopeScheduling

    class FileUnits(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            name = _file_name(nodeid)
            return SAME_WORKER.get(name, nodeid.split("::", 1)[0])

    config.option.loadscopereorder = False  # keep the order of pytest_collection_modifyitems
    return FileUnits(config, log)


@pytest.fixture(scope="session")
def h100():
    return llmcost.load_accelerator("H100-SXM")


@pytest.fixture(scope="session")
def a100():
    return llmcost.load_accelerator("A100-80GB")


# Under pytest-xdist the workers already use the cores: reports run one notebook at a time.
REPORT_JOBS = 1 if os.environ.get("PYTEST_XDIST_WORKER") else None


@pytest.fixture(autouse=True)
def _reports_one_notebook_at_a_time(request, monkeypatch):
    """Under pytest-xdist, a report that a test runs without ``jobs`` runs its notebooks one at
    a time in one warm kernel (``REPORT_JOBS``), instead of one kernel per core: the cores are
    the workers' already, and a second kernel's start and imports are CPU the suite waits for.
    A test of the default itself is marked ``cores_default``; the parallel path is tested with
    an explicit ``jobs``."""
    if REPORT_JOBS is not None and request.node.get_closest_marker("cores_default") is None:
        from llmcost.present import report
        monkeypatch.setattr(report, "default_jobs", lambda: REPORT_JOBS)


@pytest.fixture(autouse=True, scope="session")
def _reports_keep_their_kernels():
    """The suite runs some forty reports: each takes the warm kernels the previous one kept
    (``report.keep_kernels``) instead of starting and importing new ones, about 2 s of wall
    time and 1.3 CPU-s a kernel. The kept kernels stop at the end of the session."""
    from llmcost.present import report

    report.keep_kernels(True)
    yield
    report.keep_kernels(False)


@pytest.fixture(autouse=True)
def _fresh_kernels(request, monkeypatch):
    """A test marked ``fresh_kernels`` (one that counts the kernels a report starts) runs its
    reports with new kernels, none kept before or after it."""
    if request.node.get_closest_marker("fresh_kernels") is not None:
        from llmcost.present import report

        monkeypatch.setattr(report, "_KEEP_KERNELS", False)


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
