"""Where does each notebook's kernel spend its time? Runs the report's notebooks for a scenario
one after the other in one warm kernel (``kernels.WarmKernel``, as a report's worker does: the
imports are paid once, before the first notebook, and not counted), with the parameters a report
injects, under cProfile started by a cell put before the first and stopped by one put after the
last. Prints, per notebook, the wall time and the functions with the largest cumulative time
(the package's, matplotlib's drawing, the inline backend's PNG rendering), and writes each
profile to ``--dump`` (a folder) for ``python -m pstats``.

The executed notebooks go to a temporary folder; nothing of the report is written. cProfile
slows Python-heavy code more than numpy-heavy code: read the shares, not the seconds.

Usage:
    python benchmarks/profile_notebooks.py [--scenario S] [--notebooks 00 04] [--top 25]
"""
import argparse
import cProfile  # noqa: F401  (the cells below import it in the kernel)
import io
import pstats
import tempfile
import time
from pathlib import Path

import nbformat
import papermill as pm
from nbformat.v4 import new_code_cell

from llmcost import SCENARIO_DIR
from llmcost.present import report
from llmcost.present.kernels import WarmKernel

ap = argparse.ArgumentParser()
ap.add_argument("--scenario", default=str(SCENARIO_DIR / "default.yaml"))
ap.add_argument("--notebooks", nargs="*", default=None)
ap.add_argument("--top", type=int, default=25)
ap.add_argument("--dump", default=None, help="folder for the .prof files")
ap.add_argument("--filter", default="llmcost|matplotlib|backend_inline|pandas|scipy",
                help="regular expression on the printed functions' file names")
args = ap.parse_args()

plan = report.plan_report(args.scenario, args.notebooks)
work = Path(tempfile.mkdtemp(prefix="profile-nb-"))
dump = Path(args.dump) if args.dump else work
dump.mkdir(parents=True, exist_ok=True)
kernel = WarmKernel(str(plan.notebooks[0].parent), report.KERNEL_ARGS)
total = 0.0
try:
    for nb in plan.notebooks:
        node = nbformat.read(nb, as_version=4)
        prof = dump / f"{nb.stem}.prof"
        node.cells.insert(0, new_code_cell(
            "import cProfile as _cp\n_llmcost_prof = _cp.Profile()\n_llmcost_prof.enable()"))
        node.cells.append(new_code_cell(
            f"_llmcost_prof.disable()\n_llmcost_prof.dump_stats({str(prof)!r})"))
        src = work / nb.name
        nbformat.write(node, src)
        params = report.notebook_parameters_for(nb, plan)
        t0 = time.perf_counter()
        pm.execute_notebook(str(src), str(work / f"out-{nb.name}"), parameters=params,
                            kernel_name="python3", cwd=str(nb.parent), progress_bar=False,
                            log_output=False, extra_arguments=report.KERNEL_ARGS,
                            km=kernel.ready(str(nb.parent)))
        wall = time.perf_counter() - t0
        total += wall
        out = io.StringIO()
        st = pstats.Stats(str(prof), stream=out)
        print(f"\n=== {nb.stem}: {wall:.2f} s wall, {st.total_tt:.2f} s profiled ===")
        st.sort_stats("cumulative").print_stats(args.filter, args.top)
        lines = out.getvalue().splitlines()
        start = next((i for i, s in enumerate(lines) if "ncalls" in s), 0)
        print("\n".join(s for s in lines[start:] if s.strip()))
finally:
    kernel.shutdown()
print(f"\ntotal {total:.1f} s wall for {len(plan.notebooks)} notebooks; profiles in {dump}")
