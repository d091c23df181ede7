"""``llmcost …`` run in this process, as the tests read it: ``run_cli(*args)`` returns a
``subprocess.CompletedProcess`` (``returncode``, ``stdout``, ``stderr`` as text) like
``subprocess.run([sys.executable, "-m", "llmcost", *args], capture_output=True, text=True)``
would, without paying a new interpreter and the package's imports per call.

``python -m llmcost`` is ``sys.exit(llmcost.present.cli.main())``; here ``main(args)`` runs with
``sys.stdout``/``sys.stderr`` redirected, its return value (or a ``SystemExit``'s code, as
argparse raises) is the return code, and Python warnings are written to stderr in the
interpreter's default format and filter ("default": once per location per call), as a fresh
interpreter prints them. Tests of the process itself (a closed pipe, Ctrl-C, the ``-m`` entry
point) still start one.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import warnings

import pytest

from llmcost.bill.scenario import ScenarioError
from llmcost.present.cli import main
from llmcost.present.report import estimate_ledger


def run_cli(*args: str, cwd=None) -> subprocess.CompletedProcess:
    out, err = io.StringIO(), io.StringIO()

    def show(message, category, filename, lineno, file=None, line=None):
        err.write(warnings.formatwarning(message, category, filename, lineno, line))

    here = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        with warnings.catch_warnings(), contextlib.redirect_stdout(out), \
                contextlib.redirect_stderr(err):
            warnings.simplefilter("default")
            warnings.showwarning = show
            try:
                code = main(list(args))
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
                if not isinstance(e.code, (int, type(None))):
                    err.write(f"{e.code}\n")
    finally:
        os.chdir(here)
    return subprocess.CompletedProcess(["llmcost", *args], code or 0, out.getvalue(),
                                       err.getvalue())


def scenario_refusal(tmp_path, text: str) -> str:
    """The refusal a scenario file's ``text`` gets from ``report.estimate_ledger`` (what
    ``llmcost estimate`` prints after "llmcost: error:"), failing the test if it is accepted."""
    path = tmp_path / "s.yaml"
    path.write_text(text)
    with pytest.raises(ScenarioError) as err:
        estimate_ledger(path)
    return str(err.value)
