"""How fast is `llmcost report`? The whole command for the default scenario (a fresh interpreter:
validation, any `mfu: predict` step, every notebook, the HTML export and the index) against the
goal below, measured in the same run:

    goal = 1.5 × (number of notebooks × one papermill run of an almost empty notebook) ÷ cores

The empty notebook has a parameters cell and one print, run by papermill with the report's kernel
arguments: it costs a kernel start, a round trip and a shutdown, what no report can avoid per
notebook.

The report runs with a disk cache of its own (``LLMCOST_CACHE_DIR``, a new temporary folder):
first cold (the cache empty and the repository's prebuilt entries off, as after any change to
the code or data, which changes every entry's key: ``core.diskcache``); then cold with the
prebuilt entries (``prebuilt/``, where current: a fresh clone's first report, which reads the
results every scenario shares instead of computing them; not run when they are stale); then
**another scenario** with the same code: the scenario with 3/4 of its training tokens and half
its GPUs where its plan leaves the data-parallel degree free, reported with a copy of the cache
the cold run filled, so it reads the scenario-free tables (validation, kernel tables) and
computes every result of its own (hardware sweep, lever ranking, RL variants, scaling studies),
as a team's second report of a new run would; then warm (the cold run's cache: a second report
of the same scenario, its slow results kept too, keyed by their arguments). The ratios are
printed, with the CPU seconds of each run (the report's process and its kernels:
``resource.getrusage(RUSAGE_CHILDREN)``), which depend far less on what else the machine runs
than the seconds do. Also printed: `--jobs 1` (one notebook at a time, warm) for the speed-up of
the parallel run (``--no-serial`` skips it).

Prints seconds and ratios; asserts nothing about time. Usage:
    python benchmarks/bench_report.py [--repeat N] [--no-serial]
"""
import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import papermill as pm
from nbformat.v4 import new_code_cell, new_notebook

from _shared import other_scenario
from llmcost import SCENARIO_DIR, report
from llmcost.core import diskcache

ap = argparse.ArgumentParser()
ap.add_argument("--repeat", type=int, default=1, help="runs of each command (best is kept)")
ap.add_argument("--scenario", default=str(SCENARIO_DIR / "default.yaml"))
ap.add_argument("--no-serial", action="store_true", help="skip the --jobs 1 run")
args = ap.parse_args()

work = Path(tempfile.mkdtemp(prefix="bench-report-"))
params = new_code_cell("n_gpus: int = 8  # a parameter, as every notebook has")
params.metadata["tags"] = ["parameters"]
empty = new_notebook(cells=[params, new_code_cell("print(n_gpus)")])
empty.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                "language": "python"}
nbformat.write(empty, work / "empty.ipynb")


def empty_run() -> float:
    t0 = time.perf_counter()
    pm.execute_notebook(str(work / "empty.ipynb"), str(work / "empty-out.ipynb"),
                        parameters={"n_gpus": 16}, kernel_name="python3", progress_bar=False,
                        log_output=False, extra_arguments=report.KERNEL_ARGS)
    return time.perf_counter() - t0


def children_cpu() -> float:
    """CPU seconds (user + system) of the finished child processes, theirs included."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def report_run(cache: Path, *extra, scenario: str = args.scenario,
               prebuilt: bool = False) -> tuple[float, float]:
    """(seconds, CPU seconds) of one `llmcost report` of ``scenario`` with the disk cache
    ``cache``, and the repository's prebuilt entries where ``prebuilt``."""
    out = work / "out"
    env = {**os.environ, "LLMCOST_CACHE_DIR": str(cache)}
    env.pop("LLMCOST_PREBUILT_DIR", None)
    if not prebuilt:
        env["LLMCOST_PREBUILT_DIR"] = "off"
    c0, t0 = children_cpu(), time.perf_counter()
    subprocess.run([sys.executable, "-m", "llmcost", "report", "--scenario", scenario,
                    "--out", str(out), "--overwrite", *extra], check=True,
                   capture_output=True, text=True, env=env)
    return time.perf_counter() - t0, children_cpu() - c0


def other_run(filled: Path, i: int) -> tuple[float, float]:
    """``report_run`` of ``other`` (``_shared.other_scenario``) with a copy of the cache
    ``filled`` (a cold run's):
    each repeat starts from the same state."""
    cache = work / f"cache-other-{i}"
    shutil.copytree(filled, cache)
    return report_run(cache, scenario=other)


def best(runs: list) -> tuple[float, float]:
    """The fastest of (seconds, CPU seconds) runs, and the least CPU."""
    return min(r[0] for r in runs), min(r[1] for r in runs)


empty_run()  # warm the file cache once; not counted
n_nb = len(report.list_notebooks())
cores = report.default_jobs()
t_empty = min(empty_run() for _ in range(3))
caches = [work / f"cache-{i}" for i in range(args.repeat)]
cold = best([report_run(c) for c in caches])  # each its own empty cache
prebuilt_current, prebuilt_sentence = diskcache.prebuilt_state()
cold_prebuilt = best([report_run(work / f"cache-prebuilt-{i}", prebuilt=True)
                      for i in range(args.repeat)]) if prebuilt_current else None
other = other_scenario(args.scenario, work)
another = best([other_run(caches[0], i) for i in range(args.repeat)])
warm = best([report_run(caches[0]) for _ in range(args.repeat)])
serial = None if args.no_serial else best(
    [report_run(caches[0], "--jobs", "1") for _ in range(args.repeat)])
t_empty_after = min(empty_run() for _ in range(3))  # the machine's load may have changed
t_empty = min(t_empty, t_empty_after)
goal = 1.5 * n_nb * t_empty / cores
print(f"empty notebook (papermill): {t_empty:.2f} s; {n_nb} notebooks, {cores} cores")
print(f"goal 1.5 × {n_nb} × {t_empty:.2f} s ÷ {cores} = {goal:.1f} s")
print(("prebuilt/: " if prebuilt_current else "prebuilt/ not read (stale): ")
      + prebuilt_sentence)
runs = [("cold cache, nothing prebuilt", cold)]
if cold_prebuilt:
    runs.append(("cold cache, prebuilt/ current", cold_prebuilt))
runs += [("another scenario, tables cached", another), ("warm cache", warm)]
for name, (t, cpu) in runs:
    verdict = "meets the goal" if t <= goal else f"misses it by {100 * (t / goal - 1):.0f}%"
    print(f"`llmcost report` (--jobs {cores}, {name}): {t:.1f} s, {cpu:.1f} CPU-s; "
          f"report / goal = {t / goal:.2f} ({verdict}); each notebook costs "
          f"{t * cores / n_nb / t_empty:.2f} empty-notebook runs of core time")
if serial:
    print(f"`llmcost report` (--jobs 1, warm cache): {serial[0]:.1f} s, {serial[1]:.1f} CPU-s "
          f"(parallel speed-up {serial[0] / warm[0]:.2f}x)")
