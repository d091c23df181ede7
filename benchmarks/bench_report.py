"""How fast is `llmcost report`? The whole command for the default scenario (a fresh interpreter:
validation, any `mfu: predict` step, every notebook, the HTML export and the index) against the
goal below, measured in the same run:

    goal = 1.5 × (number of notebooks × one papermill run of an almost empty notebook) ÷ cores

The empty notebook has a parameters cell and one print, run by papermill with the report's kernel
arguments: it costs a kernel start, a round trip and a shutdown, what no report can avoid per
notebook. Also printed: `--jobs 1` (one notebook at a time) for the speed-up of the parallel run.

Prints seconds and ratios; asserts nothing about time. Usage:
    python benchmarks/bench_report.py [--repeat N]
"""
import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import papermill as pm
from nbformat.v4 import new_code_cell, new_notebook

from llmcost import SCENARIO_DIR, report

ap = argparse.ArgumentParser()
ap.add_argument("--repeat", type=int, default=1, help="runs of each command (best is kept)")
ap.add_argument("--scenario", default=str(SCENARIO_DIR / "default.yaml"))
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


def report_run(*extra) -> float:
    out = work / "out"
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "llmcost", "report", "--scenario", args.scenario,
                    "--out", str(out), "--overwrite", *extra], check=True,
                   capture_output=True, text=True)
    return time.perf_counter() - t0


empty_run()  # warm the file cache once; not counted
n_nb = len(report.list_notebooks())
cores = report.default_jobs()
t_empty = min(empty_run() for _ in range(3))
t_report = min(report_run() for _ in range(args.repeat))
t_serial = min(report_run("--jobs", "1") for _ in range(args.repeat))
t_empty_after = min(empty_run() for _ in range(3))  # the machine's load may have changed
t_empty = min(t_empty, t_empty_after)
goal = 1.5 * n_nb * t_empty / cores
print(f"empty notebook (papermill): {t_empty:.2f} s; {n_nb} notebooks, {cores} cores")
print(f"`llmcost report` (--jobs {cores}): {t_report:.1f} s; --jobs 1: {t_serial:.1f} s "
      f"(parallel speed-up {t_serial / t_report:.2f}x)")
verdict = "meets the goal" if t_report <= goal else \
    f"misses it by {100 * (t_report / goal - 1):.0f}%"
print(f"goal 1.5 × {n_nb} × {t_empty:.2f} s ÷ {cores} = {goal:.1f} s: report / goal = "
      f"{t_report / goal:.2f} ({verdict}); each notebook costs "
      f"{t_report * cores / n_nb / t_empty:.2f} empty-notebook runs of core time")
