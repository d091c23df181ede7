"""Where the disk cache lives (``diskcache``): ``$LLMCOST_CACHE_DIR``, else
``$XDG_CACHE_HOME/llmcost``, else ``~/.cache/llmcost``; ``LLMCOST_CACHE_DIR=off`` turns it off.

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


def pin_cache_dir() -> None:
    """Make a relative ``$LLMCOST_CACHE_DIR`` absolute, against the current folder, in this
    process's environment: the kernels a report starts run in the notebooks' folder and inherit
    the variable, and papermill moves this process there while a notebook runs; a relative
    folder would then be made inside the notebooks' folder, not where it was named."""
    given = os.environ.get("LLMCOST_CACHE_DIR")
    if given and given.lower() != "off" and not os.path.isabs(given):
        os.environ["LLMCOST_CACHE_DIR"] = os.path.abspath(given)
