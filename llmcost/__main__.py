"""``python -m llmcost ...`` (and the ``llmcost`` command): the command line, ``present.cli``.

For ``llmcost report`` the report's workers are started first (``workers.start_early``: their
kernels start and warm up, processes of their own, while this process imports the package and
validates the scenario); the CLI is imported after that on purpose, which is why its import is
not at the top. The workers no report took (the report was refused, or ran fewer) are stopped
before the process ends (``workers.stop_early``): no kernel outlives the command.
"""

import os
import sys

try:  # Ctrl-C while the package loads: one line and the shell's code, as later
    from .present import workers

    workers.start_early(sys.argv[1:])

    from .present.cli import main, report_written  # noqa: E402 (after the kernels' start)
except KeyboardInterrupt:
    if "workers" in globals():
        workers.stop_early()
    print("llmcost: interrupted", file=sys.stderr)
    sys.exit(130)


def run() -> int:
    """The ``llmcost`` command: ``cli.main()``, then the early workers no report took stop. An
    interrupted command (exit 130: Ctrl-C or SIGTERM, its report's INCOMPLETE marker written,
    its kernels stopped) ends at once once its streams are flushed (``os._exit``): the
    interpreter's teardown could otherwise meet a messaging thread of the stopped kernels'
    clients still running and abort ("terminate called without an active exception", exit -6)
    or wait on it; the early workers no report took are not waited for either (their kernels
    end with this process, ipykernel's parent poller, as the report's own do).

    A report that succeeded (exit 0, ``cli.report_written``: every file written and closed,
    every kernel shut down, the early workers it did not take stopped just above) also ends at
    once once its streams are flushed: the teardown it skips (the atexit handlers, with
    nothing left to stop, and the interpreter's freeing of every module: pandas, matplotlib,
    nbconvert, the Jupyter client) took 0.27-0.37 s of the default scenario's report, measured
    from its last line to the process's end. Any other command, or a report that failed, ends
    through the normal path."""
    code = 1
    try:
        code = main()
    finally:  # interrupted: not waiting for workers (their kernels end with this process)
        workers.stop_early(wait=code != 130)
    if code == 130 or (code == 0 and report_written()):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code


if __name__ == "__main__":
    sys.exit(run())
