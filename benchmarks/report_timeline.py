"""Where does the wall time of `llmcost report` go? Runs one report in this process, as the CLI
does (``cli.main``), with the report's steps wrapped to log when they start and end, and prints
a timeline: the process's start and imports, the scenario's validation, each worker's kernel
start and warm-up, each notebook's run and page per worker (with its kernel's CPU seconds, read
from the kernel process), the index, the exit; then each worker's idle time and the machine's
load from other processes over the run (every CPU-second the machine spent that was not this
process or its kernels).

The report's workers start before the package is imported, as ``python -m llmcost report``
starts them (``workers.start_early``, ``llmcost/__main__.py``); ``--no-early`` starts them where
an in-process ``cli.main`` does, once the scenario is valid. Seconds are from this process's
creation. Nothing is asserted.

Usage:
    python benchmarks/report_timeline.py [--scenario S] [--out DIR] [--jobs N] [--no-early]
"""
import time

T_IMPORT0 = time.time()

import argparse  # noqa: E402
import os  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402

import psutil  # noqa: E402

ME = psutil.Process()
T0 = ME.create_time()
EVENTS = []  # (seconds since T0, thread name, what, CPU seconds of the thread so far)
LOCK = threading.Lock()


def log(what: str) -> None:
    with LOCK:
        EVENTS.append((time.time() - T0, threading.current_thread().name, what,
                       time.thread_time()))


log("python started; script imports")
from llmcost.present import workers  # noqa: E402 (light: no room, no numpy)

ap = argparse.ArgumentParser()
ap.add_argument("--scenario", default=str(workers.NOTEBOOK_DIR.parent / "data" / "scenarios"
                                          / "default.yaml"))
ap.add_argument("--out", default=None)
ap.add_argument("--jobs", type=int, default=None)
ap.add_argument("--no-early", action="store_true",
                help="start the kernels after the package's imports and the scenario's "
                "validation, as `llmcost report` called in-process does (no workers.start_early)")
args = ap.parse_args()


def wrap(owner, name, label=None, detail=None):
    real = getattr(owner, name)
    label = label or name

    def wrapped(*a, **k):
        d = f" {detail(*a, **k)}" if detail else ""
        log(f"{label}{d} start")
        try:
            return real(*a, **k)
        finally:
            log(f"{label}{d} end")

    setattr(owner, name, wrapped)


def wrap_async(owner, name, label, detail=None):
    real = getattr(owner, name)

    async def wrapped(*a, **k):
        d = f" {detail(*a, **k)}" if detail else ""
        log(f"{label}{d} start")
        try:
            return await real(*a, **k)
        finally:
            log(f"{label}{d} end")

    setattr(owner, name, wrapped)


wrap(workers.WarmKernel, "shutdown", "kernel shutdown")
wrap_async(workers.WarmKernel, "_start", "kernel start+warm-up")
# a reset's code is workers.RESET, or reset_code(cwd): RESET with the folder to move to
wrap_async(workers.WarmKernel, "_run", "kernel code",
           lambda self, code, t: "reset" if code.startswith(workers.RESET[:-1]) else "warm-up")


out = args.out or tempfile.mkdtemp(prefix="timeline-")
argv = ["report", "--scenario", args.scenario, "--out", out, "--overwrite"]
if args.jobs:
    argv += ["--jobs", str(args.jobs)]
if not args.no_early:  # as `python -m llmcost report` does (llmcost/__main__.py)
    log(f"start_early: {workers.start_early(argv)} worker(s)")
from llmcost.present import cli, report  # noqa: E402

log("llmcost imported")

# a new client's wait_for_ready (jupyter_client) waits on the kernel, the kernel idle
# (wrapped once the early workers started: a wait that began before is not counted)
from jupyter_client.asynchronous.client import AsyncKernelClient  # noqa: E402

WAITS = []  # seconds of each wait_for_ready
real_wait = AsyncKernelClient.wait_for_ready


async def wait_for_ready(self, *a, **k):
    t = time.perf_counter()
    try:
        return await real_wait(self, *a, **k)
    finally:
        WAITS.append(time.perf_counter() - t)


AsyncKernelClient.wait_for_ready = wait_for_ready

KERNEL_CPU = {}  # thread -> the kernel process's CPU seconds at the last reading


def kernel_cpu(kernel) -> float:
    try:
        p = psutil.Process(kernel.km.provisioner.process.pid)
        t = p.cpu_times()
        return t.user + t.system
    except Exception:  # noqa: BLE001
        return float("nan")


real_run_one = report._run_one


def run_one(nb, out_nb, params, title, written, timeout_s, kernel=None):
    import papermill  # imported by now (report._import_runners); not imported early here

    with LOCK:
        if not hasattr(papermill.execute_notebook, "__wrapped_by_timeline__"):
            wrap(papermill, "execute_notebook", "papermill")
            papermill.execute_notebook.__wrapped_by_timeline__ = True
    name = threading.current_thread().name
    c0 = kernel_cpu(kernel)
    log(f"notebook {nb.stem} start")
    try:
        return real_run_one(nb, out_nb, params, title, written, timeout_s, kernel)
    finally:
        c1 = kernel_cpu(kernel)
        log(f"notebook {nb.stem} end (kernel {c1 - c0:.2f} CPU-s)")
        KERNEL_CPU[name] = c1


report._run_one = run_one
wrap(report, "take_early", "take early workers")
wrap(report, "plan_report")
wrap(report, "_prepare_out_dir")
wrap(report, "_import_runners")
wrap(report, "scenario_warnings")
wrap(report, "magnitude_warnings")
wrap(report, "_run_notebooks")
wrap(report, "_to_html", "page", lambda node, title, *a, **k: title.split(" ")[0])
wrap(report, "_write_index")
wrap(report, "_write_summary")
wrap(report, "_glance_and_compare")
wrap(report.IndexWork, "_work", "index work (bill, glance)")


machine0 = psutil.cpu_times()
tree0 = ME.cpu_times()
log("report start")
code = cli.main(argv)
log("report end")
workers.stop_early()
machine1 = psutil.cpu_times()
tree1 = ME.cpu_times()
t_end = time.time() - T0

busy = lambda c: sum(c) - c.idle - getattr(c, "iowait", 0)  # noqa: E731
ours = (tree1.user + tree1.system + tree1.children_user + tree1.children_system) - (
    tree0.user + tree0.system + tree0.children_user + tree0.children_system)
machine = busy(machine1) - busy(machine0)
t_report = next(t for t, _, w, _ in EVENTS if w == "report end") - next(
    t for t, _, w, _ in EVENTS if w == "report start")
print(f"{'s':>7} {'thread CPU':>10}  thread: event")
for t, thread, what, cpu in EVENTS:
    print(f"{t:7.2f} {cpu:10.2f}  {thread}: {what}")
print(f"\nexit code {code}; report {t_report:.2f} s; our CPU (process + kernels) {ours:.1f} s, "
      f"the machine's {machine:.1f} CPU-s, so others used {machine - ours:.1f} CPU-s "
      f"({(machine - ours) / t_report:.2f} cores on average); this process alone "
      f"{(tree1.user + tree1.system) - (tree0.user + tree0.system):.1f} CPU-s")
# each worker's busy span: its kernel's start to its last notebook's end, and its gaps
for thread in sorted({th for _, th, _, _ in EVENTS if th.startswith("llmcost-report-")}):
    ev = [(t, w) for t, th, w, _ in EVENTS if th == thread]
    nb = [(t, w) for t, w in ev if w.startswith("notebook ")]
    run = sum(b[0] - a[0] for a, b in zip(nb[::2], nb[1::2]))
    first = ev[0][0]
    last = nb[-1][0] if nb else first
    print(f"{thread}: first event {first:.2f} s, last notebook end {last:.2f} s, notebooks "
          f"{run:.2f} s, other (kernel start, resets, waits) {last - first - run:.2f} s; idle "
          f"until the report's end {t_end - last:.2f} s")
print(f"wait_for_ready (a new kernel client): {len(WAITS)} waits, {sum(WAITS):.2f} s in all "
      f"(the kernels' starts among them, but for those of the early start, begun before this "
      f"count was set up)")
print(f"load average now: {os.getloadavg()}")
