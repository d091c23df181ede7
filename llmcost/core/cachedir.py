"""Where the disk cache lives (``diskcache``): ``$LLMCOST_CACHE_DIR``, else
``$XDG_CACHE_HOME/llmcost``, else ``~/.cache/llmcost``; ``LLMCOST_CACHE_DIR=off`` turns it off.
Beside it, read-only, the prebuilt entries the repository ships (``prebuilt_dir``).

Apart from ``diskcache`` (which imports numpy and pandas) so that ``python -m llmcost report``
can settle the folder its kernels inherit before it imports them (``present.workers``)."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path | None:
    """The cache folder (see the module's docstring), or None when the cache is off."""
    given = os.environ.get("LLMCOST_CACHE_DIR")
    if given:
        return None if given.lower() == "off" else Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "llmcost"


#: The repository's folder of prebuilt entries: the results every report computes whatever its
#: scenario, built by ``scripts/prebuilt_cache.py`` for the code and data of one commit.
PREBUILT_DIR = Path(__file__).resolve().parents[2] / "prebuilt"


def prebuilt_dir() -> Path | None:
    """The folder of prebuilt entries ``diskcache`` reads where its own folder misses:
    ``$LLMCOST_PREBUILT_DIR``, else ``PREBUILT_DIR``; ``LLMCOST_PREBUILT_DIR=off`` turns it off
    (as does ``LLMCOST_CACHE_DIR=off``: no cache at all). Never written by a computation."""
    if cache_dir() is None:
        return None
    given = os.environ.get("LLMCOST_PREBUILT_DIR")
    if given:
        return None if given.lower() == "off" else Path(given)
    return PREBUILT_DIR


def pin_cache_dir() -> None:
    """Make a relative ``$LLMCOST_CACHE_DIR`` (and ``$LLMCOST_PREBUILT_DIR``) absolute, against
    the current folder, in this process's environment: the kernels a report starts run in the
    notebooks' folder and inherit the variables, and papermill moves this process there while a
    notebook runs; a relative folder would then be made inside the notebooks' folder, not where
    it was named."""
    for name in ("LLMCOST_CACHE_DIR", "LLMCOST_PREBUILT_DIR"):
        given = os.environ.get(name)
        if given and given.lower() != "off" and not os.path.isabs(given):
            os.environ[name] = os.path.abspath(given)
