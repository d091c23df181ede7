"""Where does each notebook's kernel spend its time? Runs the report's notebooks for a scenario
one after the other in one warm kernel (``kernels.WarmKernel``, as a report's worker does: the
imports are paid once, before the first notebook, and not counted), with the parameters a report
injects, under cProfile started by a cell put before the first and stopped by one put after the
last. Prints, per notebook, the wall time and the functions with the largest cumulative time
(the package's, matplotlib's drawing, the inline backend's PNG rendering), and writes each
profile to ``--dump`` (a folder) for ``python -m pstats``.

The executed notebooks go to a temporary folder; nothing of the report is written. cProfile
slows Python-heavy code more than numpy-heavy code: read the shares, not the seconds.

``--cpu`` runs without cProfile and prints the kernel's CPU seconds instead (``time.process_time``
in the kernel, read by IPython's ``pre_run_cell``/``post_run_cell`` events, so a cell's time
includes the inline backend's PNG rendering after it): per notebook, its slowest cells, and the
total. CPU seconds depend far less on what else the machine runs than wall time does.

Usage:
    python benchmarks/profile_notebooks.py [--scenario S] [--notebooks 00 04] [--top 25] [--cpu]
"""
import argparse
import cProfile  # noqa: F401  (the cells below import it in the kernel)
import io
import json
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
ap.add_argument("--cpu", action="store_true",
                help="no cProfile: the kernel's CPU seconds per notebook and per cell")
args = ap.parse_args()

#: ``--cpu``: the first cell starts the per-cell clock, the last writes what it read.
CPU_START = """\
import time as _t
_llmcost_cpu = {"cells": [], "t0": _t.process_time()}
def _llmcost_pre(info, _c=_llmcost_cpu):
    _c["start"] = _t.process_time()
def _llmcost_post(result, _c=_llmcost_cpu):
    if "start" in _c:  # not this cell's own end (its pre_run_cell ran before it registered)
        src = result.info.raw_cell.strip().splitlines()
        _c["cells"].append((_t.process_time() - _c.pop("start"), src[0][:70] if src else ""))
get_ipython().events.register("pre_run_cell", _llmcost_pre)
get_ipython().events.register("post_run_cell", _llmcost_post)
"""
CPU_STOP = """\
get_ipython().events.unregister("pre_run_cell", _llmcost_pre)
get_ipython().events.unregister("post_run_cell", _llmcost_post)
_llmcost_cpu["total"] = _t.process_time() - _llmcost_cpu["t0"]
import json as _json
open({path!r}, "w").write(_json.dumps(_llmcost_cpu))
"""

plan = report.plan_report(args.scenario, args.notebooks)
work = Path(tempfile.mkdtemp(prefix="profile-nb-"))
dump = Path(args.dump) if args.dump else work
dump.mkdir(parents=True, exist_ok=True)
kernel = WarmKernel(str(plan.notebooks[0].parent), report.KERNEL_ARGS, figures=report.FIGURES)
total = total_cpu = 0.0
try:
    for nb in plan.notebooks:
        node = nbformat.read(nb, as_version=4)
        prof = dump / f"{nb.stem}.{'cpu.json' if args.cpu else 'prof'}"
        if args.cpu:
            node.cells.insert(0, new_code_cell(CPU_START))
            node.cells.append(new_code_cell(CPU_STOP.format(path=str(prof))))
        else:
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
        if args.cpu:
            cpu = json.loads(prof.read_text())
            total_cpu += cpu["total"]
            print(f"\n=== {nb.stem}: {wall:.2f} s wall, {cpu['total']:.2f} CPU-s in the kernel ===")
            for secs, first in sorted(cpu["cells"], reverse=True)[:args.top]:
                print(f"  {secs:6.2f}  {first}")
            continue
        out = io.StringIO()
        st = pstats.Stats(str(prof), stream=out)
        print(f"\n=== {nb.stem}: {wall:.2f} s wall, {st.total_tt:.2f} s profiled ===")
        st.sort_stats("cumulative").print_stats(args.filter, args.top)
        lines = out.getvalue().splitlines()
        start = next((i for i, s in enumerate(lines) if "ncalls" in s), 0)
        print("\n".join(s for s in lines[start:] if s.strip()))
finally:
    kernel.shutdown()
cpu_words = f", {total_cpu:.1f} CPU-s in the kernel" if args.cpu else ""
print(f"\ntotal {total:.1f} s wall{cpu_words} for {len(plan.notebooks)} notebooks; profiles in "
      f"{dump}")
