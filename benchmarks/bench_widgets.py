"""How fast does each notebook's Explore panel answer a change? Goal: 100 ms per update,
figure included.

For each notebook, its code cells run in this process (the parameters a report injects for the
scenario, ``interactive = True``, matplotlib's Agg backend), and the panel each Explore cell
displays (a ``VBox``) is kept, every one of them (04b has two). Then each panel's first
``--widgets`` value widgets
(sliders, dropdowns, number boxes, check boxes) is moved one step (a log slider: one step of its
exponent), twice (up then back, or to the next option then back), and the callback is timed,
figure included: every figure it shows
(``plt.show()`` or ``display(fig)``) is rendered to PNG as the inline backend renders it
(``print_figure``, ``bbox_inches="tight"``, the inline backend's resolution); a panel that
renders its figure to PNG itself and displays the image (``plots.LiveFigure``) is timed with
that rendering, inside its callback. The first
callback after the panel is built is timed apart (``first``): it may fill caches.

Prints, per panel, the median and worst update's CPU time (this process's, so that other
processes on a loaded machine do not count) against the 100 ms goal, which widget was slowest,
and the wall times; asserts nothing about time. Usage:
    python benchmarks/bench_widgets.py [--notebooks 00 09] [--widgets 3] [--scenario S]
"""
import argparse
import contextlib
import io
import math
import os
import statistics
import time

os.environ["MPLBACKEND"] = "Agg"

import matplotlib
import matplotlib.pyplot as plt
import nbformat
from matplotlib.figure import Figure

from llmcost import SCENARIO_DIR
from llmcost.present import report

GOAL_S = 0.100
#: The inline backend's figure resolution (matplotlib_inline's ``figure.dpi`` default, 'retina'
#: off) and its ``print_figure`` keywords.
INLINE_DPI = 100

ap = argparse.ArgumentParser()
ap.add_argument("--scenario", default=str(SCENARIO_DIR / "default.yaml"))
ap.add_argument("--notebooks", nargs="*", default=None)
ap.add_argument("--widgets", type=int, default=3, help="value widgets moved per panel")
args = ap.parse_args()
matplotlib.rcParams["figure.dpi"] = INLINE_DPI


def render(fig) -> None:
    fig.canvas.print_figure(io.BytesIO(), format="png", bbox_inches="tight", dpi=INLINE_DPI)


def show(*_, **__):
    for num in plt.get_fignums():
        render(plt.figure(num))
    plt.close("all")


shown = []


def display(*objs, **_):
    for o in objs:
        if isinstance(o, Figure):
            render(o)
        shown.append(o)


plt.show = show
import IPython.display

IPython.display.display = display


def value_widgets(box, out):
    import ipywidgets as w

    for child in getattr(box, "children", ()):
        if isinstance(child, (w.Box,)):
            value_widgets(child, out)
        elif isinstance(child, w.ValueWidget) and not isinstance(
                child, (w.Output, w.Label, w.HTML, w.Text, w.Textarea)):
            out.append(child)
    return out


def moves(wid):
    """Two new values for ``wid``: one step away and back."""
    v = wid.value
    if hasattr(wid, "options") and wid.options:
        labels = [o[1] if isinstance(o, tuple) else o for o in wid.options]
        vals = list(getattr(wid, "_options_values", labels))
        i = vals.index(v) if v in vals else 0
        return [vals[(i + 1) % len(vals)], v]
    if isinstance(v, bool):
        return [not v, v]
    step = getattr(wid, "step", None) or 1
    if hasattr(wid, "base"):  # a log slider: min, max and step are exponents of its base
        e, lo, hi = math.log(v, wid.base), wid.min, wid.max
        up = e + step if e + step <= hi else e - step
        return [wid.base ** max(up, lo), v]
    hi, lo = getattr(wid, "max", None), getattr(wid, "min", None)
    up = v + step if hi is None or v + step <= hi else v - step
    if lo is not None and up < lo:
        up = lo
    return [type(v)(up), v]


def run_notebook(nb) -> list:
    """Exec the notebook's code cells; return every panel its Explore cells build (a cell that
    calls a ``*_explorer(`` under ``if interactive``), in order: notebook 04b has two, the
    pilot's and the step's (a trial found only the first, the lightest, timed)."""
    plan = report.plan_report(args.scenario, [nb.stem[:3].rstrip("_")])
    params = report.notebook_parameters_for(nb, plan)
    params["interactive"] = True
    node = nbformat.read(nb, as_version=4)
    code = [c.source for c in node.cells if c.cell_type == "code"]
    g = {"__name__": "__main__", "display": display}
    cwd, panels = os.getcwd(), []
    os.chdir(nb.parent)
    try:
        exec(code[0], g)
        g.update(params)
        for src in code[1:]:
            shown.clear()
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(src, nb.name, "exec"), g)
            plt.close("all")
            if "_explorer(" in src and "if interactive" in src and shown:
                panels.append(shown[-1])
    finally:
        os.chdir(cwd)
    if not panels:
        raise RuntimeError(f"{nb.name}: no Explore panel found")
    return panels


def time_panel(panel) -> tuple:
    """``(wall seconds, CPU seconds, first wall seconds, slowest (name, CPU s))`` of moving each
    value widget of ``panel`` (``moves``), the first update's wall time kept apart."""
    times, cpu, first, slowest = [], [], None, ("", 0.0)
    for wid in value_widgets(panel, [])[:args.widgets]:
        for new in moves(wid):
            t, c = time.perf_counter(), time.process_time()
            with contextlib.redirect_stdout(io.StringIO()):
                wid.value = new
            dt, dc = time.perf_counter() - t, time.process_time() - c
            if first is None:
                first = dt
                continue
            times.append(dt)
            cpu.append(dc)
            if dc > slowest[1]:
                slowest = (wid.description or type(wid).__name__, dc)
    plt.close("all")
    return times, cpu, first, slowest


rows = []
for nb in report.plan_report(args.scenario, args.notebooks).notebooks:
    t0 = time.perf_counter()
    try:
        panels = run_notebook(nb)
    except Exception as e:
        print(f"{nb.stem}: could not build the panel ({type(e).__name__}: {e})", flush=True)
        continue
    built = time.perf_counter() - t0
    for i, panel in enumerate(panels):
        name = nb.stem if len(panels) == 1 else f"{nb.stem} [{i + 1}/{len(panels)}]"
        times, cpu, first, slowest = time_panel(panel)
        if not times:
            print(f"{name}: no value widget moved", flush=True)
            continue
        med, worst = statistics.median(cpu), max(cpu)
        verdict = "meets" if worst <= GOAL_S else "misses"
        print(f"{name:<22} CPU per update: median {med * 1e3:5.0f} ms, worst "
              f"{worst * 1e3:5.0f} ms ({slowest[0]}) over {len(cpu)} updates: {verdict} the "
              f"{GOAL_S * 1e3:.0f} ms goal; wall median {statistics.median(times) * 1e3:5.0f} ms, "
              f"first {first * 1e3:5.0f} ms (notebook run in-process {built:.1f} s)", flush=True)
        rows.append((name, med, worst))
if rows:
    ok = sum(w <= GOAL_S for _, _, w in rows)
    print(f"{ok} of {len(rows)} panels meet the goal on their worst update; load average "
          f"{os.getloadavg()[0]:.1f}")
