"""Write the byte-code (.pyc) of the modules the suite imports, once, before `make test` starts
its workers.

A fresh virtual environment holds no .pyc files (uv does not compile on install), so every
process the suite starts (two pytest-xdist workers, then the report kernels) compiles the same
libraries from source until one of them has written their .pyc: measured on a fresh clone, the
suite took 324 s with an empty byte-code cache and 279 s with a full one (7m41 against 8m56 of
CPU). This script imports them in one process while lint-imports runs on the other core, so that
each module is compiled once. Run with PYTHONDONTWRITEBYTECODE empty (the Makefile does).
"""

import importlib
import sys

import llmcost

#: What a worker, a report kernel (``llmcost.present.workers.WARM_UP``: the package's public API
#: and its kernels module) and the browser and notebook tests import first.
MODULES = ("llmcost.present.report", "llmcost.present.kernels", "llmcost.present.widgets",
           "matplotlib.pyplot", "matplotlib_inline.backend_inline", "pandas", "numpy",
           "ipykernel.kernelapp", "ipykernel.ipkernel", "jupyter_client", "nbclient", "nbformat",
           "papermill", "nbconvert", "ipywidgets", "yaml", "hypothesis", "playwright.sync_api",
           "nbval.plugin", "xdist", "pytest")


def main() -> int:
    for name in dir(llmcost):  # the public API, imported on first use (as a kernel warms up)
        getattr(llmcost, name)
    missing = []
    for module in MODULES:
        try:
            importlib.import_module(module)
        except ImportError:  # an optional library not installed: its tests skip, saying so
            missing.append(module)
    if missing:
        print(f"warm_bytecode: not installed (their tests skip): {', '.join(missing)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
