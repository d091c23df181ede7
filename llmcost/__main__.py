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

    from .present.cli import main  # noqa: E402 (after the kernels' start: see above)
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
    end with this process, ipykernel's parent poller, as the report's own do)."""
    code = 1
    try:
        code = main()
    finally:  # interrupted: not waiting for workers (their kernels end with this process)
        workers.stop_early(wait=code != 130)
    if code == 130:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(130)
    return code


if __name__ == "__main__":
    sys.exit(run())
