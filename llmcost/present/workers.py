"""A report's workers, the report process's side of its warm kernels, and the early start of
``python -m llmcost report``.

``WarmKernel`` starts a Jupyter kernel, warms it up (``WARM_UP``: the imports every notebook
makes, then ``kernels.remember_state``), resets it between notebooks (``RESET``:
``kernels.restore_state``), and replaces it when it died or does not answer; what runs inside
the kernel is ``kernels.py``. A ``Worker`` is a thread with one ``WarmKernel`` that runs what a
report hands it (``report._Workers``).

This module imports no room but ``core.cachedir`` and no library but the standard one (the
Jupyter client is imported where a kernel starts): ``llmcost/__main__.py`` imports it first, and
for ``llmcost report`` starts the report's workers here (``start_early``), right after reading
the command line, so that their kernels start and warm up (processes of their own, about 2 s)
while this process imports the package (pandas, numpy, every room: 0.45 s and more) and
validates the scenario. The report then takes them (``take_early``) instead of starting its
own; the kernels are the same as the report would start (the same arguments, figure format and
environment: ``worker_key``), so the pages are the same. A report that is refused (a bad
scenario, a folder in the way) writes nothing, prints its error as before, and the early
kernels are stopped (``stop_early``: cancelled mid-start, shut down, no process left), as are
any a report did not take.
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import contextlib
import os
import queue
import threading
import time
import uuid

from ..core.cachedir import pin_cache_dir
from .numbering import NOTEBOOK_DIR, numbered_files

#: Quiet the kernel's own log (ipykernel warns about unencrypted local TCP on every start), and
#: keep its input history in memory (``In``, ``_i``) instead of also writing every cell to
#: IPython's history database (a report's kernels ran 5% less CPU without it: 12.4 instead of
#: 13.1 s for the default scenario's notebooks, with a 120 MB history file).
KERNEL_ARGS = ["--IPKernelApp.log_level=CRITICAL", "--HistoryManager.enabled=False"]

#: What a report's notebooks show their figures as (``kernels.svg_figures``): SVG, drawn at any
#: size (a projector, a PDF printed from the page), and printed with less CPU than PNG.
FIGURES = "svg"

#: How long ``start_early`` waits, at most, for its kernels' processes to be launched (a
#: launch takes 0.1-0.5 s; one that fails before, with a broken Jupyter, is not waited for
#: longer).
LAUNCH_WAIT_S = 2
#: How often a kernel's start looks whether it was cancelled (``WarmKernel.cancel``), seconds.
CANCEL_POLL_S = 0.05

#: A report kernel's garbage collector thresholds (``gc.set_threshold``, the warm-up's first
#: line): a young collection once 10,000 more containers are alive than at the last one,
#: instead of Python's 700; the older generations as Python has them (every 10 collections of
#: the one below). What a notebook makes and drops is freed by its reference counts; a young
#: collection walks what is still alive, and a full one everything alive since the last
#: ``kernels.freeze_what_stays``. Measured with ``gc.callbacks`` (thread CPU) over the default
#: scenario's warm-ups and twelve notebooks in a report's two kernels: the automatic
#: collections 0.53 -> 0.22 CPU-s (young 1,227 -> 73, full 3 -> 0). The garbage is the same;
#: cycles among it are freed a little later (at most 10,000 containers later).
GC_THRESHOLDS = (10_000, 10, 10)

#: Run once in a new kernel: the collector's thresholds (``GC_THRESHOLDS``), the imports every
#: notebook makes (the whole public API, as ``import llmcost`` once imported it), then a
#: snapshot of the state ``RESET`` restores (``kernels.remember_state``).
WARM_UP = f"""\
import gc as _llmcost_gc
_llmcost_gc.set_threshold{GC_THRESHOLDS}
del _llmcost_gc
import matplotlib.pyplot, numpy, pandas, ipywidgets
import llmcost, llmcost.present.plots, llmcost.present.widgets
for _llmcost_name in dir(llmcost):  # the public API, which the root imports on first use
    getattr(llmcost, _llmcost_name)
del _llmcost_name
from llmcost.present import kernels as _llmcost_kernels
_llmcost_kernels.remember_state()
del _llmcost_kernels
"""

#: The warm-up of a report's kernels: ``WARM_UP`` with the figures shown as SVG
#: (``kernels.svg_figures``).
WARM_UP_SVG = WARM_UP.replace("remember_state()", 'remember_state(figures="svg")')
#: What a kernel's figures may be shown as (``WarmKernel``'s ``figures``).
FIGURE_FORMATS = ("png", "svg")

#: Environment variables that change while a process runs and that no notebook reads: a kernel
#: started under another value of them is used again (``WarmKernel``, ``started_env``).
#: pytest names the running test in ``PYTEST_CURRENT_TEST``.
ENV_IGNORED = frozenset({"PYTEST_CURRENT_TEST"})


def started_env() -> dict:
    """This process's environment as a kernel started now would inherit it, less
    ``ENV_IGNORED``: a kernel started under another one is not used again."""
    return {k: v for k, v in os.environ.items() if k not in ENV_IGNORED}


def reset_code(cwd: str | None = None) -> str:
    """The code run before each notebook after a kernel's first (``kernels.restore_state``);
    with ``cwd``, it also moves the kernel to that working folder (the next notebook's, which a
    fresh kernel would have been started in)."""
    moved = "" if cwd is None else f", cwd={str(cwd)!r}"
    return f"from llmcost.present import kernels as _k; _k.restore_state(get_ipython(){moved})"


#: Run before each notebook after a kernel's first.
RESET = reset_code()


def own_session(session):
    """A copy of a ``jupyter_client`` session (the same key and signature scheme, so the kernel
    accepts its messages) with a new session id: a client using it connects its sockets under
    an identity no other client of the kernel manager shares."""
    copy = session.clone()
    copy.session = str(uuid.uuid4())  # also sets bsession, the sockets' identity
    return copy


class KernelStartError(RuntimeError):
    """A kernel did not start, or did not answer its warm-up (no notebook cell ran)."""


class WarmKernel:
    """One kernel that runs notebooks in turn (the report's side).

    ``ready()`` returns a started, warmed-up ``jupyter_client`` kernel manager, reset if a
    notebook ran in it before; pass it to papermill as ``km=``. ``figures`` is what the inline
    backend shows figures as: "png" (``WARM_UP``) or "svg" (``WARM_UP_SVG``, a report's). Use
    one ``WarmKernel`` per thread: its kernel manager is bound to that thread's event loop.
    ``shutdown()`` stops it. ``warm()`` starts and warms up the kernel (or resets the running
    one) without counting it as used (the next ``ready()`` does not reset it). A notebook in
    another folder runs in the same kernel, moved there by its reset (``reset_code``).

    ``kc`` is the kernel's one client, connected once when the kernel starts and used for the
    warm-up, every reset and, when the caller hands it on (``report._run_one``), every notebook:
    a new client's ``wait_for_ready`` (jupyter_client 8) sends ``kernel_info`` and waits 0.2 s
    for a message on IOPub, which a socket subscribed a moment ago misses (the kernel's status
    message goes out before the subscription reaches it), so nearly every new client waited
    those 0.2 s and asked again: measured, 0.20-0.21 s per new client, two per notebook (the
    reset's and nbclient's), 0.4 s of each notebook's wall time with the kernel idle.
    Messages a client reads are matched to the request that caused them (jupyter_client's
    ``execute_interactive``, nbclient's polls), so one client serves them all in turn. It has
    a session of its own (``own_session``): a client made later by ``km.client()`` (nbclient's,
    when it is not handed ``kc``) shares the kernel manager's session, and so its socket
    identity, and the kernel's shell socket gives an identity to its newest connection
    (ipykernel sets ``ROUTER_HANDOVER``), so ``kc`` would no longer receive its replies.
    ``kc`` runs no heartbeat channel: a client made by its kernel manager asks the manager
    whether the kernel lives (jupyter_client 8, ``KernelClient._async_is_alive``), and the
    heartbeat's thread, stopped before it ran (a start cancelled at once: ``cancel``), made and
    dropped sockets until the process ran out of file descriptors (``HBChannel.stop`` clears
    ``_running`` before ``run`` sets it).
    """

    def __init__(self, cwd: str, extra_arguments: list[str] | None = None,
                 start_timeout_s: float = 60, reset_timeout_s: float = 60,
                 figures: str = "png"):
        if figures not in FIGURE_FORMATS:
            raise ValueError(f"figures={figures!r}: must be one of {', '.join(FIGURE_FORMATS)}")
        self.warm_up = WARM_UP_SVG if figures == "svg" else WARM_UP
        self.cwd = str(cwd)
        self.extra_arguments = list(extra_arguments or [])
        self.start_timeout_s = start_timeout_s
        self.reset_timeout_s = reset_timeout_s
        self.km = None
        self.kc = None
        self.starting = None  # the kernel manager of a start under way (``remove_connection_file``)
        self.used = False
        self.starts = 0
        self.env = {}  # the environment the running kernel was started under
        self.cancelled = threading.Event()  # ``cancel()``
        self.launched = threading.Event()  # set once a start has launched its process, or failed

    def ready(self, cwd: str | None = None):
        """The kernel manager, ready for a notebook whose working folder is ``cwd``."""
        from jupyter_core.utils import run_sync

        return run_sync(self._ready)(str(cwd or self.cwd))

    def warm(self, cwd: str | None = None) -> None:
        """Start and warm up the kernel (if none runs) for notebooks whose working folder is
        ``cwd``, without counting it as used: the next ``ready()`` hands it over as it is."""
        from jupyter_core.utils import run_sync

        run_sync(self._ready)(str(cwd or self.cwd))
        self.used = False  # started, or reset by ``_ready``: as a new kernel

    async def _ready(self, cwd: str):
        """A kernel for a notebook in ``cwd``: the running one, reset if a notebook ran in it
        and moved to ``cwd`` if it runs elsewhere (``reset_code``), else a new one. A kernel
        that died, does not answer its reset, or was started under another environment
        (``os.environ``, which a kernel inherits when it starts: ``LLMCOST_CACHE_DIR``, say)
        is replaced."""
        if self.km is not None and (self.env != started_env()
                                   or not await self.km.is_alive()):
            await self._stop()
        if self.km is not None and (self.used or cwd != self.cwd):
            try:
                await self._run(reset_code(cwd), self.reset_timeout_s)
                self.cwd = cwd
            except Exception:  # a kernel that does not answer is replaced
                await self._stop()
        if self.km is None:
            self.cwd = cwd
            await self._start()
        self.used = True
        return self.km

    async def _start(self):
        from jupyter_client.manager import AsyncKernelManager

        self.starts += 1
        km = self.starting = AsyncKernelManager(kernel_name="python3")
        self.env = started_env()
        try:
            try:
                await km.start_kernel(extra_arguments=self.extra_arguments, cwd=self.cwd)
            finally:
                self.launched.set()
                self.starting = None
            self.km, self.used = km, False
            self.kc = km.client(session=own_session(km.session))
            self.kc.start_channels(hb=False)
            await self._unless_cancelled(wait_until_ready(self.kc, self.start_timeout_s))
            await self._unless_cancelled(self._run(self.warm_up, self.start_timeout_s * 2))
        except Exception as e:
            await self._stop(km)
            raise KernelStartError(f"{type(e).__name__}: {e}") from e

    def cancel(self) -> None:
        """Stop, from another thread, a start under way and every later one: the kernel being
        started is shut down as soon as it is launched and the start raises
        ``KernelStartError`` (within ``CANCEL_POLL_S``); a kernel already warm is left for
        ``shutdown()``. For an early kernel no report will use (``stop_early``)."""
        self.cancelled.set()

    async def _unless_cancelled(self, aw):
        """``aw``'s result, unless ``cancel()`` is called first: ``aw`` is then cancelled and
        ``KernelStartError`` raised."""
        task = asyncio.ensure_future(aw)
        while not self.cancelled.is_set():
            done, _ = await asyncio.wait({task}, timeout=CANCEL_POLL_S)
            if done:
                return task.result()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
        raise KernelStartError("the start was cancelled")

    async def _run(self, code: str, timeout_s: float) -> None:
        reply = await self.kc.execute_interactive(code, silent=True, store_history=False,
                                                  timeout=timeout_s,
                                                  output_hook=lambda msg: None)
        content = reply["content"]
        if content["status"] != "ok":
            raise RuntimeError(f"{content.get('ename')}: {content.get('evalue')}")

    async def _stop(self, km=None):
        km = km or self.km
        kc = self.kc if km is self.km else None
        self.km, self.kc, self.used = None, None, False
        if kc is not None:
            kc.stop_channels()
        if km is None:
            return
        try:
            await _kill_and_reap(km)
        except Exception:  # noqa: BLE001 (already gone: the shutdown below says nothing more)
            pass
        try:
            await km.shutdown_kernel(now=True)
        except Exception:  # already gone
            pass

    def shutdown(self) -> None:
        """Stop the kernel (if one runs)."""
        from jupyter_core.utils import run_sync

        if self.km is not None:
            run_sync(self._stop)()

    def remove_connection_file(self) -> None:
        """Remove, from any thread, the connection file of the running kernel and of one being
        started (jupyter_client writes it to a temporary file, ``/tmp/tmp*.json``, before the
        launch, and removes it when the kernel is shut down), for a report that is interrupted:
        its process ends without waiting for its workers to shut their kernels down (a notebook
        may be running), and the kernels end when it does (ipykernel's parent poller; Ctrl-C
        reaches them too), which left their files behind. The kernel keeps running on the
        sockets it opened; a shutdown later removes nothing more (``cleanup_connection_file``
        removes a file it wrote once, and ignores one already gone)."""
        for km in (self.km, self.starting):
            if km is not None:
                with contextlib.suppress(Exception):
                    km.cleanup_connection_file()


#: How long ``wait_until_ready`` waits for a reply to each ``kernel_info`` request, and then
#: for a first message on IOPub, seconds (jupyter_client 8's ``wait_for_ready``'s).
READY_REPLY_S, READY_IOPUB_S = 1.0, 0.2


async def wait_until_ready(kc, timeout_s: float) -> None:
    """Return once the kernel of client ``kc`` (made by its kernel manager) answers: jupyter_client
    8's ``KernelClient.wait_for_ready`` without its last step. Both ask ``kernel_info`` until a
    reply comes on the shell channel (``READY_REPLY_S`` per asking) and a message on IOPub
    follows within ``READY_IOPUB_S`` (the IOPub socket is then connected; else it asks again),
    and raise ``RuntimeError`` if the kernel dies or ``timeout_s`` passes (the same words, which
    ``report.KERNEL_START_ERRORS`` reads). ``wait_for_ready`` then reads IOPub until it has
    been silent for 0.2 s, which took 0.200-0.203 s of every kernel start (measured: the reply
    0.53-0.86 s after the launch, the end 0.2 s later), with the kernel idle, before the
    warm-up. What that read discarded (the kernel's "starting" status, the "busy" and "idle"
    of the ``kernel_info`` requests) is left to the next reader, and every reader of this
    client skips a message that answers another request than its own (jupyter_client's
    ``execute_interactive``, the warm-up's and resets': its IOPub loop; nbclient's
    ``_async_poll_output_msg`` and ``_async_poll_for_reply``), as it skips one of another
    client's."""
    from jupyter_core.utils import ensure_async

    deadline = time.monotonic() + timeout_s
    while True:
        kc.kernel_info()
        try:
            msg = await ensure_async(kc.shell_channel.get_msg(timeout=READY_REPLY_S))
        except queue.Empty:
            pass
        else:
            if msg["msg_type"] == "kernel_info_reply":
                try:
                    await ensure_async(kc.iopub_channel.get_msg(timeout=READY_IOPUB_S))
                except queue.Empty:
                    pass
                else:
                    kc._handle_kernel_info_reply(msg)
                    return
        if not await ensure_async(kc.is_alive()):
            raise RuntimeError("Kernel died before replying to kernel_info")
        if time.monotonic() > deadline:
            raise RuntimeError(f"Kernel didn't respond in {timeout_s:g} seconds")


#: How long ``_kill_and_reap`` waits, at most, for a killed kernel's process to end, seconds.
REAP_WAIT_S = 5


async def _kill_and_reap(km) -> None:
    """Kill the kernel of ``km`` as ``shutdown_kernel(now=True)`` does (its provisioner's
    ``kill``: SIGKILL to the kernel's process group) and wait for its process to end
    (``Popen.wait``, at most ``REAP_WAIT_S``), so that the shutdown that follows finds it ended.
    ``shutdown_kernel(now=True)`` (jupyter_client 8, ``KernelManager._async_kill_kernel``)
    kills, then asks whether the process lives every 0.1 s (``_async_wait``), and a killed
    process is still there at the first asking: each stop of a kernel took 0.113-0.116 s, the
    last of a report's on its critical path (its last notebook's end to its index); here the
    wait returns once the process has ended, a few milliseconds after the signal. The shutdown
    then interrupts and kills nothing (its signals go to a process that has ended) and cleans
    up as before: its connection file, its ports, its process's pipes. A kernel without a
    local process (another provisioner) is left to ``shutdown_kernel``."""
    provisioner = getattr(km, "provisioner", None)
    process = getattr(provisioner, "process", None)
    if process is None or not hasattr(process, "wait") or process.poll() is not None:
        return
    await provisioner.kill()
    process.wait(timeout=REAP_WAIT_S)


def default_jobs() -> int:
    """How many notebooks a report runs at once by default: the cores this process may use
    (``os.sched_getaffinity`` where the system has it, else ``os.cpu_count()``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS, Windows
        return max(1, os.cpu_count() or 1)


def warm_early(kernel: WarmKernel, cwd) -> None:
    """Start and warm up a worker's kernel as soon as the worker starts: the kernel starts (its
    own process) while the report's process finishes its checks and imports papermill and
    nbformat on the way to the first notebook. The kernel is not counted as used: the first
    notebook runs in it without a reset. A kernel that fails to start here is started again
    by the first notebook's run (``report._run_one``, which starts it twice before the page
    says it could not)."""
    try:
        kernel.warm(str(cwd))
    except Exception:  # noqa: BLE001 (the first notebook's run starts it again, and says so)
        kernel.shutdown()


def worker_key(kernel_class, kernel_args, figures) -> tuple:
    """What a worker's kernel must share with a report that takes it (a kept one,
    ``report.keep_kernels``, or an early one, ``take_early``): its class, arguments, figure
    format and the environment it was started under (``started_env``)."""
    return (kernel_class, tuple(kernel_args), figures, started_env())


class Worker:
    """A thread with its own warm kernel (``kernel``, a ``WarmKernel``: started and imported
    once, reset between notebooks), made under ``key`` (``worker_key``). Its ``inbox`` takes
    ``("warm", cwd, events)``: start the kernel early (``warm_early``); ``("run", (nb, run),
    events)``: call ``run(kernel)`` and put ``(inbox, nb, result)`` on ``events``, or
    ``(inbox, None, exception)`` if it raises, which ends the worker; ``None``: stop the kernel
    and end. ``failed`` says whether its kernel is not fit to keep."""

    def __init__(self, key: tuple, name: str, kernel):
        self.key, self.kernel, self.inbox, self.failed = key, kernel, queue.Queue(), False
        self.thread = threading.Thread(target=self._work, name=name, daemon=True)
        self.thread.start()

    def _work(self) -> None:
        kernel, events = self.kernel, None
        try:
            for kind, arg, events in iter(self.inbox.get, None):
                if kind == "warm":
                    warm_early(kernel, arg)
                else:
                    nb, run = arg
                    result = run(kernel)
                    # a kernel that timed out or died (shut down by the run) is not kept; said
                    # before the result, which the report's thread may answer by stopping
                    self.failed = getattr(kernel, "km", None) is None
                    events.put((self.inbox, nb, result))
        except BaseException as e:  # noqa: BLE001 (handed to the caller's thread, raised there)
            self.failed = True
            if events is not None:
                events.put((self.inbox, None, e))
        finally:
            kernel.shutdown()


# ------------------------------------------------------------------ the early start (-m llmcost)
def report_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the flags of ``llmcost report`` to ``parser`` (``cli``'s report command, and
    ``early_workers``' reading of them)."""
    r = parser
    r.add_argument("--scenario", required=True, metavar="YAML",
                   help="scenario file (see data/scenarios/ and the README)")
    r.add_argument("--out", metavar="DIR",
                   help="output folder (default: build/reports/<scenario file stem>); "
                   "must not exist unless --overwrite")
    r.add_argument("--notebooks", metavar="LIST", nargs="+", action=_JoinedList,
                   help="notebook numbers or names to run, comma- or space-separated, e.g. "
                   "00,01,04b or 00 01 04b (default: all)")
    r.add_argument("--overwrite", action="store_true",
                   help="replace an earlier llmcost report in --out")
    r.add_argument("--timeout", type=int, default=120, metavar="SECONDS",
                   help="per-cell timeout, so a stalled kernel fails in minutes (default 120)")
    r.add_argument("--compare", metavar="YAML",
                   help="a second scenario: the index shows both bills side by side, line by "
                   "line, with the difference per draw (its notebooks are not run)")
    r.add_argument("--jobs", type=int, default=None, metavar="N",
                   help="notebooks run at once, each in its own kernel (default: the number of "
                   f"cores, here {default_jobs()}); a failed notebook does not stop the others")


class _JoinedList(argparse.Action):
    """``--notebooks 00 01,04b``: the words given, joined into the one comma-separated list the
    report reads (a trial typed them space-separated and was told "unrecognized arguments")."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, ",".join(values))


class _Refused(Exception):
    """The command line is not one ``start_early`` starts kernels for."""


class _QuietParser(argparse.ArgumentParser):
    def error(self, message):  # the CLI's own parser says it, once the package is imported
        raise _Refused(message)


#: The workers ``start_early`` started that no report took yet (``take_early``).
_EARLY: list = []
#: Workers told to stop and not yet ended (``stop_early`` waits for them).
_STOPPING: list = []


def early_workers(argv: list[str]) -> int:
    """How many workers ``llmcost <argv>`` will run its notebooks on, if it is a report that
    may run (its flags read as the CLI reads them, ``report_arguments``; its scenario file
    there), else 0: ``--jobs`` or ``default_jobs()``, at most one per notebook (those named
    by ``--notebooks``, else all of ``NOTEBOOK_DIR``)."""
    if not argv or argv[0] != "report" or {"-h", "--help"} & set(argv[1:]):
        return 0
    parser = _QuietParser(add_help=False)
    report_arguments(parser)
    try:
        args = parser.parse_args(argv[1:])
    except _Refused:
        return 0
    if args.timeout < 1 or (args.jobs is not None and args.jobs < 1) or \
            not os.path.isfile(args.scenario):
        return 0
    chosen = [s for s in (args.notebooks or "").split(",") if s.strip()]
    if args.notebooks is not None and not chosen:
        return 0
    n_notebooks = len(chosen) if chosen else len(numbered_files(NOTEBOOK_DIR))
    return min(args.jobs or default_jobs(), n_notebooks)


def start_early(argv: list[str]) -> int:
    """For ``llmcost report`` (``argv``: the command line after ``llmcost``), start the
    report's workers now (``early_workers`` of them), each warming its kernel up in the
    notebooks' folder; returns how many. Called by ``llmcost/__main__.py`` before it imports
    the package, once per process (a second call starts none). A relative
    ``$LLMCOST_CACHE_DIR`` is made absolute first, as the report does (``pin_cache_dir``).

    Returns once the kernels' processes are launched (``WarmKernel.launched``, at most
    ``LAUNCH_WAIT_S``): a worker imports the Jupyter client (0.13 s of CPU) before it can
    launch, and this process's imports, run meanwhile, share one interpreter lock with it;
    measured on the 2-core machine, the launches came 0.1-0.3 s sooner (0.36-0.75 s after the
    process started, against 0.54-1.04 s), and the kernels were ready sooner in 3 of 4
    alternating runs."""
    if _EARLY or _STOPPING:
        return 0
    n = early_workers(argv)
    if not n:
        return 0
    pin_cache_dir()
    key = worker_key(WarmKernel, KERNEL_ARGS, FIGURES)
    for i in range(n):
        w = Worker(key, f"llmcost-report-{i}",
                   WarmKernel(str(NOTEBOOK_DIR), KERNEL_ARGS, figures=FIGURES))
        w.inbox.put(("warm", str(NOTEBOOK_DIR), None))
        _EARLY.append(w)
    atexit.register(stop_early)
    for w in _EARLY:  # the launches first: this thread's imports would slow them (one GIL)
        w.kernel.launched.wait(LAUNCH_WAIT_S)
    return n


def take_early(key: tuple, n: int) -> list:
    """Up to ``n`` of the early workers made under ``key`` (``worker_key``), for a report to
    use; the others are told to stop (``stop_early(wait=False)``)."""
    taken = [w for w in _EARLY if w.key == key][:max(0, n)]
    for w in taken:
        _EARLY.remove(w)
    stop_early(wait=False)
    return taken


def stop_early(wait: bool = True) -> None:
    """Stop the early workers no report took: each kernel's start is cancelled
    (``WarmKernel.cancel``) and the kernel shut down; with ``wait``, return once every one has
    ended (also run at exit)."""
    while _EARLY:
        w = _EARLY.pop()
        w.kernel.cancel()
        w.inbox.put(None)
        _STOPPING.append(w)
    while wait and _STOPPING:
        _STOPPING.pop().thread.join()
