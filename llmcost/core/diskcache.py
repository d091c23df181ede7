"""A disk cache for results that depend on the package and its data only, never on a scenario.

Some tables are the same for every scenario and slow to build: the step-time model's
validation over every published run (``accuracy.validation_table``, tens of seconds) is needed
by the report process, by several notebooks' kernels and by the tests' worker processes. Each
process used to rebuild it. ``disk_cached`` keeps the result in a file instead, keyed by

    sha256(function's module and name, its arguments' repr, ``source_fingerprint()``)

where ``source_fingerprint()`` hashes every ``.py`` file of the package and every file of
``data/`` (paths and bytes): any change to the code or to a catalogue makes a new key, so a
stale entry is never read (old files are simply left behind; delete the folder to reclaim
them). The folder is ``$LLMCOST_CACHE_DIR``, else ``$XDG_CACHE_HOME/llmcost``, else
``~/.cache/llmcost``; ``LLMCOST_CACHE_DIR=off`` turns the cache off. A file that cannot be read
is recomputed, and a folder that cannot be written is not an error (the result is returned
uncached). Files are written to a temporary name and renamed, so processes writing the same
entry at once never leave half a file. A process that misses an entry computes it holding a
lock on that entry (``fcntl.flock`` on ``<entry>.lock``, where the system has it): another
process that needs the same entry meanwhile (a report's kernels, a test suite's workers) waits
for it and reads it, instead of computing it a second time.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import pickle
import tempfile
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: entries are computed unlocked (a repeat is possible, never a
    fcntl = None     # half-written file)

PACKAGE_DIR = Path(__file__).resolve().parents[1]
DATA_DIR = PACKAGE_DIR.parent / "data"


def cache_dir() -> Path | None:
    """The cache folder (see the module's docstring), or None when the cache is off."""
    given = os.environ.get("LLMCOST_CACHE_DIR")
    if given:
        return None if given.lower() == "off" else Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "llmcost"


@functools.lru_cache(maxsize=1)
def source_fingerprint() -> str:
    """sha256 over the package's ``.py`` files and every file under ``data/`` (relative path and
    bytes, in sorted order): it changes whenever the code or a catalogue changes."""
    h = hashlib.sha256()
    files = sorted(PACKAGE_DIR.rglob("*.py")) + sorted(
        p for p in DATA_DIR.rglob("*") if p.is_file())
    for f in files:
        h.update(str(f.relative_to(PACKAGE_DIR.parent)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()


def cache_key(fn, args: tuple, kwargs: dict) -> str:
    """The entry's name: sha256 of the function, its arguments and ``source_fingerprint()``."""
    text = repr((fn.__module__, fn.__qualname__, args, sorted(kwargs.items()),
                 source_fingerprint()))
    return hashlib.sha256(text.encode()).hexdigest()


_MISSING = object()


def _read(path: Path):
    """The entry at ``path``, or ``_MISSING`` when it is absent or unreadable."""
    try:
        return pickle.loads(path.read_bytes())
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
        return _MISSING


@contextlib.contextmanager
def _entry_lock(path: Path):
    """Hold an exclusive lock on the entry ``path`` (its ``.lock`` file) while it is computed;
    nothing is held where the system has no ``fcntl`` or the folder cannot be written. The lock
    is per entry, and an entry's computation only ever waits on the entries it calls, so two
    processes never wait on each other."""
    if fcntl is None:
        yield
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path.with_suffix(".lock"), "a+")  # noqa: SIM115 (closed by `with` below)
    except OSError:
        yield
        return
    with handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def disk_cached(fn):
    """Decorate a function of the package's code and data only (arguments with a stable
    ``repr``, a picklable result): its result is read from the disk cache when there, else
    computed and stored. ``fn.uncached`` is the function itself."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        folder = cache_dir()
        if folder is None:
            return fn(*args, **kwargs)
        path = folder / f"{fn.__name__}-{cache_key(fn, args, kwargs)}.pickle"
        found = _read(path)
        if found is not _MISSING:
            return found
        with _entry_lock(path):
            found = _read(path)  # another process may have written it while this one waited
            if found is not _MISSING:
                return found
            result = fn(*args, **kwargs)
            try:
                folder.mkdir(parents=True, exist_ok=True)
                with tempfile.NamedTemporaryFile(dir=folder, delete=False, suffix=".tmp") as fh:
                    fh.write(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
                os.replace(fh.name, path)
            except OSError:  # a read-only or full disk: the result, uncached
                pass
        return result

    wrapper.uncached = fn
    return wrapper
