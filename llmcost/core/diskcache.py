"""A disk cache for results that depend on the package, its data and their arguments only.

Some results are the same for every report of a scenario, or for every scenario, and slow to
build: the step-time model's validation over every published run (``accuracy.validation_table``,
tens of seconds), needed by the report process, by several notebooks' kernels and by the tests'
worker processes; a scenario's hardware sweep and lever ranking (``levers``), its RL variants
(``rl.scenario_variants``), its scaling studies. Each process used to rebuild them, and every
report of the same scenario again. ``disk_cached`` keeps the result in a file instead, keyed by

    sha256(function's module and name, its arguments, the warnings filters, ``source_fingerprint()``,
           ``runtime_versions()``)

where ``source_fingerprint()`` hashes every ``.py`` file of the package and every catalogue of
``data/`` (paths and bytes; ``fingerprinted``): any change to the code or to a catalogue makes a
new key, so a stale entry is never read (old files are simply left behind; delete the folder to
reclaim them); ``runtime_versions()`` names Python's version, NumPy, pandas and matplotlib,
which compute and pickle the results (another virtual environment sharing the folder, or an
upgrade, is a new key: a result of other arithmetic, or a pickle another pandas may not read).
The arguments enter exactly (``input_digest``): numbers, text, containers, dataclasses field by
field, numpy arrays by their bytes, pandas objects by their pickle; a string naming an
existing file or folder (a model's ``config.json``, an efficiency profile) enters with its
bytes, so an edited file is a new key. A call with an argument of any other kind is computed and
not kept. The warnings filters enter too (a caller that silences a warning gets its own entry),
and a result whose computation showed a warning is not kept, so that the next call shows it
again, as an uncached call would; nor is a later computation of that entry in the same process,
whose warning Python's once-per-location registry may hide (a second call of a notebook's
kernel): kept then, the entry would read back without the warning in the next process.
A caller whose own entry is missing may read the entry another caller wrote under other
filters when that is what its own call would give (``usable_under``): the entry keeps the
writer's reachable ``ignore`` filters (a warning its computation raised was hidden by one of
them, or shown and the entry not kept), and the reader's filters must ignore every warning
those ignore (checked conservatively: the reader's first filter that may match such a warning,
by category, must be an ``ignore`` that covers it; a filter that stood ahead of the writer's
ignore in the writer's own list matched none of the warnings that ignore hid, and is passed
over). A writer with an ``error`` filter shares nothing (a warning raised as an exception may
have been caught inside the computation). So a notebook's kernel, whose filters hide
deprecations, reads what a test process that shows them computed, and not the other way round;
and what a report's process computed (both show the deprecations of ``__main__`` only, by
Python's own filter), the validation table of its scenario's checks: measured, 1.4 CPU-s of a
cold report's kernels.

The folder is ``$LLMCOST_CACHE_DIR``, else ``$XDG_CACHE_HOME/llmcost``, else
``~/.cache/llmcost``; ``LLMCOST_CACHE_DIR=off`` turns the cache off (a relative folder is of the
folder a report starts in: ``pin_cache_dir``; both in ``cachedir``). Where that folder misses an
entry, it is looked for, read-only, among the repository's prebuilt entries
(``cachedir.prebuilt_dir``: ``prebuilt/``, or ``$LLMCOST_PREBUILT_DIR``, ``off`` for none): the
results every report computes whatever its scenario, which ``scripts/prebuilt_cache.py`` finds
as the entries reports of three different scenarios all wrote (``shared_entries``) and ships
with a manifest (``write_prebuilt``, ``prebuilt_state``). Their keys are built as above, so they
are read only by the code, data and libraries that computed them: a fresh clone's first report
reads them (measured 2026-12-06 on the default scenario, 2 cores: 12.2 s and 23 CPU-s without
them, 6.1 s and 12 CPU-s with them, ``benchmarks/bench_report.py``); after any change they are
simply not found, never read wrong. A file that cannot be read is recomputed, and a folder that
cannot be written is not an error (the result is returned uncached). Files are written to a
temporary name and renamed, so processes writing the same entry at once never leave half a file;
each written entry's filters digest is appended to its call's index
(``<name>-<base key>.entries``), where a caller whose own entry is missing finds the others
(``_other_entries``) without listing the folder. A process that misses an entry computes it
holding a lock on that entry (``fcntl.flock`` on ``<entry>.lock``, where the system has it): another
process that needs the same entry meanwhile (a report's kernels, a test suite's workers) waits
for it and reads it, instead of computing it a second time; so does a process under other
filters that could read the entry being computed (``_computing``).

``LLMCOST_CACHE_LOG=<file>`` appends one line per computed entry to ``<file>`` (``_logged``: the
process, the function, its own CPU seconds, its wall seconds): what a report computed, and
what it cost, where its cache was cold.

What the key cannot see: a module constant changed at run time (``step.KERNEL_EFFICIENCY = x``
in a session) is not an argument; a function is cached only if it reads no such state that a
caller is meant to change.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import functools
import hashlib
import importlib.metadata
import io
import json
import os
import pickle
import platform
import sys
import tempfile
import types
import threading
import time
import warnings
from pathlib import Path

import numpy
import pandas

from .cachedir import (PREBUILT_DIR, cache_dir,  # noqa: F401 (diskcache.pin_cache_dir)
                       pin_cache_dir, prebuilt_dir)

try:
    import fcntl
except ImportError:  # Windows: entries are computed unlocked (a repeat is possible, never a
    fcntl = None     # half-written file)

PACKAGE_DIR = Path(__file__).resolve().parents[1]
DATA_DIR = PACKAGE_DIR.parent / "data"


def fingerprinted(path: Path) -> bool:
    """Whether a file under ``data/`` enters ``source_fingerprint``: every catalogue, but not a
    hidden file (``.DS_Store``, an editor's swap file) nor a scenario other than
    ``scenarios/default.yaml``, the one the code reads by itself (``bill.levers``,
    ``bill.pilot``, ``bill.claims``, ``bill.alternatives``). A scenario a user saves beside it
    is read through the path given, and its values enter the keys of what is computed from it
    as arguments: saving or editing it made every entry stale (a review)."""
    rel = Path(path).relative_to(DATA_DIR)
    if any(part.startswith(".") for part in rel.parts):
        return False
    return not (rel.parts[0] == "scenarios" and rel.as_posix() != "scenarios/default.yaml")


@functools.lru_cache(maxsize=1)
def source_fingerprint() -> str:
    """sha256 over the package's ``.py`` files and the catalogues under ``data/``
    (``fingerprinted``; relative path and bytes, in sorted order): it changes whenever the code
    or a catalogue changes."""
    h = hashlib.sha256()
    files = sorted(PACKAGE_DIR.rglob("*.py")) + sorted(
        p for p in DATA_DIR.rglob("*") if p.is_file() and fingerprinted(p))
    for f in files:
        h.update(str(f.relative_to(PACKAGE_DIR.parent)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()


@functools.lru_cache(maxsize=1)
def runtime_versions() -> str:
    """The versions of Python (implementation and version number, not the build: one version's
    pickles are the same whoever compiled it; its arithmetic may differ in a last bit across
    platforms' maths libraries, far below any printed figure), NumPy, pandas and matplotlib: the
    libraries the cached results are computed and pickled with (matplotlib lays out the
    figures' math texts, kept as its own objects: read from its installed metadata, not
    imported)."""
    try:
        mpl = importlib.metadata.version("matplotlib")
    except importlib.metadata.PackageNotFoundError:
        mpl = "absent"
    return (f"{platform.python_implementation()} {platform.python_version()}; numpy "
            f"{numpy.__version__}; pandas {pandas.__version__}; matplotlib {mpl}")


class Uncacheable(TypeError):
    """An argument ``input_digest`` cannot encode exactly: the call is computed, not kept."""


#: Strings that may name a file or folder whose bytes are then part of the key.
_PATH_HINTS = ("/", "\\", ".json", ".yaml", ".yml", ".csv")


def _path_bytes(h, text: str) -> None:
    """The bytes of the file or folder ``text`` names, when it names one (else nothing)."""
    if not any(hint in text for hint in _PATH_HINTS):
        return
    try:
        path = Path(text)
        if path.is_file():
            h.update(b"file:" + path.read_bytes())
        elif path.is_dir():
            for f in sorted(p for p in path.rglob("*") if p.is_file()):
                h.update(b"dir-file:" + str(f.relative_to(path)).encode() + b":" + f.read_bytes())
    except OSError as e:  # unreadable: the call is computed, not kept
        raise Uncacheable(f"{text!r}: {e}") from None


def _encode(h, obj) -> None:
    """Feed ``obj`` to the hash ``h`` exactly and unambiguously (a type tag, then its value),
    or raise ``Uncacheable``."""
    if obj is None or isinstance(obj, (bool, int, float, complex)):
        h.update(f"{type(obj).__name__}:{obj!r};".encode())
    elif isinstance(obj, str):
        h.update(f"str:{len(obj)}:".encode() + obj.encode("utf-8", "surrogatepass"))
        _path_bytes(h, obj)
    elif isinstance(obj, bytes):
        h.update(f"bytes:{len(obj)}:".encode() + obj)
    elif isinstance(obj, enum.Enum):
        h.update(f"enum:{type(obj).__module__}.{type(obj).__qualname__}:".encode())
        _encode(h, obj.value)
    elif isinstance(obj, (tuple, list)):
        h.update(f"{type(obj).__name__}:{len(obj)}(".encode())
        for x in obj:
            _encode(h, x)
        h.update(b")")
    elif isinstance(obj, dict):
        h.update(f"dict:{len(obj)}{{".encode())
        for k, v in obj.items():  # in order: a dict's order may matter to the function
            _encode(h, k)
            _encode(h, v)
        h.update(b"}")
    elif isinstance(obj, (set, frozenset)):
        parts = []
        for x in obj:
            sub = hashlib.sha256()
            _encode(sub, x)
            parts.append(sub.digest())
        h.update(f"{type(obj).__name__}:{len(obj)}:".encode() + b"".join(sorted(parts)))
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        h.update(f"dataclass:{type(obj).__module__}.{type(obj).__qualname__}(".encode())
        for f in dataclasses.fields(obj):
            _encode(h, f.name)
            _encode(h, getattr(obj, f.name))
        h.update(b")")
    elif type(obj).__module__ == "numpy" and hasattr(obj, "dtype") and \
            getattr(obj.dtype, "hasobject", True) is False:  # an array or scalar of numbers
        h.update(f"numpy:{type(obj).__name__}:{obj.dtype.str}:{getattr(obj, 'shape', ())}:".encode()
                 + obj.tobytes())
    elif isinstance(obj, types.FunctionType) and obj.__module__.split(".")[0] == "llmcost" \
            and "<" not in obj.__qualname__:
        # a module-level function of the package (a table's formatter, plots.signed_tenths): its
        # name, its code being in source_fingerprint(); a lambda or a nested function is not
        h.update(f"function:{obj.__module__}.{obj.__qualname__};".encode())
    elif type(obj).__module__.split(".")[0] == "pandas" and hasattr(obj, "to_pickle"):
        try:  # a DataFrame or Series, whole (values, index, dtypes, attrs)
            data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as e:  # noqa: BLE001
            raise Uncacheable(f"{type(obj).__name__}: {e}") from None
        h.update(f"pandas:{type(obj).__name__}:{len(data)}:".encode() + data)
    else:
        raise Uncacheable(f"an argument of type {type(obj).__module__}.{type(obj).__qualname__}")


def input_digest(*parts) -> str:
    """sha256 of ``parts`` encoded exactly (``_encode``); raises ``Uncacheable`` for a kind of
    value it cannot encode."""
    h = hashlib.sha256()
    for part in parts:
        _encode(h, part)
    return h.hexdigest()


class _FieldsPickler(pickle.Pickler):
    """A pickler that writes a dataclass as its class and its fields' values only (not what a
    ``functools.cached_property`` added to it once read, as ``ModelSpec.param_breakdown``):
    ``value_key``'s bytes, never read back."""

    def reducer_override(self, obj):
        cls = type(obj)
        names = _FIELD_NAMES.get(cls)
        if names is None:
            names = _FIELD_NAMES[cls] = (tuple(f.name for f in dataclasses.fields(cls))
                                         if dataclasses.is_dataclass(cls) else ())
        if names:
            return cls, tuple([getattr(obj, n) for n in names])
        return NotImplemented


#: The field names of each class ``_FieldsPickler`` met (``()`` for a class that is no
#: dataclass, or one without fields, pickled as usual).
_FIELD_NAMES: dict = {}


def value_key(*parts) -> bytes | None:
    """A key of ``parts`` for a memo within one process: the sha256 of their pickle, a
    dataclass by its fields (``_FieldsPickler``), a value shared twice written twice (no pickle
    memo, so that equal values give equal bytes however they share objects). Equal keys, equal
    values of equal types (a float bit for bit, ``1`` neither ``1.0`` nor ``True``, an array by
    its dtype, shape and bytes); equal values may give different keys (a dict's order), a
    memo's miss, never a wrong hit. Faster than ``input_digest`` (no file is read: a string is
    its text). None for parts that do not pickle."""
    out = io.BytesIO()
    pickler = _FieldsPickler(out, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.fast = True  # no memo
    try:
        pickler.dump(parts)
    except (pickle.PicklingError, TypeError, AttributeError, ValueError):
        return None
    return hashlib.sha256(out.getvalue()).digest()


def kept_if_quiet(store: dict, key, compute, limit: int = 4096):
    """``compute()`` read from, or kept in, the in-process memo ``store`` under ``key`` (a
    ``value_key``; None: computed, not kept), at most ``limit`` entries (then emptied). A
    computation that shows any warning under ``warnings.simplefilter("always")`` is not kept
    and is computed again under the caller's filters, so its warnings show as they would
    without the memo (a kept one showed none: a hit shows none either), whether it returns or
    raises. ``compute`` must be a function of what ``key`` encodes, and return something never
    changed in place (or the caller copies it)."""
    if key is None:
        return compute()
    if key in store:
        return store[key]
    try:
        with warnings.catch_warnings(record=True) as shown:
            warnings.simplefilter("always")
            value = compute()
    except Exception:
        if shown:
            return compute()
        raise
    if shown:
        return compute()
    if len(store) >= limit:
        store.clear()
    store[key] = value
    return value


def cache_key(fn, args: tuple, kwargs: dict) -> str:
    """The entry's name: sha256 of the function, its arguments (``input_digest``),
    ``source_fingerprint()`` and ``runtime_versions()``, then ``-`` and the warnings filters'
    digest (``filters_digest``). Raises ``Uncacheable`` (see ``input_digest``)."""
    return base_key(fn, args, kwargs) + "-" + filters_digest()


def base_key(fn, args: tuple, kwargs: dict) -> str:
    """``cache_key`` without the warnings filters: what every entry of one call shares."""
    return input_digest(fn.__module__, fn.__qualname__, args, sorted(kwargs.items()),
                        source_fingerprint(), runtime_versions())


def filters_digest() -> str:
    """sha256 (first 16 hex digits) of the warnings filters' text, hashed as bytes: their text
    is no argument that may name a file (``_path_bytes``); `llmcost`'s own filter,
    ``llmcost(\\.|$)``, has a backslash, and a name longer than the system allows is an error
    there, which left every call of the command line uncacheable."""
    return input_digest(repr(warnings.filters).encode())[:16]


def _category_name(cls) -> tuple[str, str]:
    return cls.__module__, cls.__qualname__


def _category(name: tuple[str, str]):
    """The warning class ``name`` (module, qualified name) names in this process, else None."""
    obj = sys.modules.get(name[0])
    for part in name[1].split("."):
        obj = getattr(obj, part, None)
    return obj if isinstance(obj, type) and issubclass(obj, Warning) else None


def _pattern(regex) -> tuple | None:
    """A filter's message or module pattern as data: ``(pattern, flags)`` for a regular
    expression (matched at the start), ``(text, None)`` for a plain string (matched whole: the
    interpreter's own ``default::DeprecationWarning:__main__`` holds its module so)."""
    if regex is None:
        return None
    if isinstance(regex, str):
        return (regex, None)
    return (regex.pattern, regex.flags)


def _filter_key(action, msg, cat, mod, line) -> tuple:
    """A filter as data: ``(action, message pattern, category name, module pattern, line)``."""
    return (action, _pattern(msg), _category_name(cat), _pattern(mod), line)


def writer_ignores(filters=None) -> tuple | None:
    """The ``ignore`` filters a warning can reach under ``filters`` (default: the current ones),
    as ``(message pattern, category name, module pattern, line, ahead)`` tuples, ``ahead`` the
    reachable filters before it (``_filter_key``s: a warning this ignore decides matches none
    of them); a filter is out of reach when an earlier one matches every message, module and
    line of a superclass of its category (Python's first matching filter decides). None when
    an ``error`` filter is within reach: such an entry is read only under its own filters."""
    found, seen, ahead = [], [], []
    for action, msg, cat, mod, line in (warnings.filters if filters is None else filters):
        if any(issubclass(cat, c) for c in seen):
            continue
        if action == "error":
            return None
        if action == "ignore":
            found.append((_pattern(msg), _category_name(cat), _pattern(mod), line,
                          tuple(ahead)))
        ahead.append(_filter_key(action, msg, cat, mod, line))
        if msg is None and mod is None and line == 0:
            seen.append(cat)
    return tuple(found)


def _may_share_a_class(a, b) -> bool:
    """Whether a warning can be of both classes: one is a subclass of the other, or a class
    defined in this process is a subclass of both."""
    if issubclass(a, b) or issubclass(b, a):
        return True
    todo = list(a.__subclasses__())
    while todo:
        cls = todo.pop()
        if issubclass(cls, b):
            return True
        todo.extend(cls.__subclasses__())
    return False


def _ignored_by(ignore: tuple, filters) -> bool:
    """Whether ``filters`` ignore every warning the ``ignore`` filter (``writer_ignores``'s
    form) decided: the first of them that may match such a warning (its category may share a
    class) is an ``ignore`` covering it (a superclass, any or the same message, module and
    line), or an ``ignore`` covering part of it, the rest decided by the later ones. A filter
    that was ahead of the ignore in the writer's list is passed over: no warning the ignore
    decided matched it: a report's process and its notebooks' kernels both show the
    deprecations of ``__main__`` (Python's own filter) and ignore the others, and a kernel
    reads the scenario-free tables the report's process computed while the kernel started."""
    msg, name, mod, line, ahead = ignore
    cat = _category(name)
    if cat is None:
        return False
    for action, f_msg, f_cat, f_mod, f_line in filters:
        if not _may_share_a_class(cat, f_cat):
            continue
        if _filter_key(action, f_msg, f_cat, f_mod, f_line) in ahead:
            continue
        if action != "ignore":
            return False
        if issubclass(cat, f_cat) and (f_msg is None or _pattern(f_msg) == msg) \
                and (f_mod is None or _pattern(f_mod) == mod) and f_line in (0, line):
            return True
    return False


def usable_under(ignores: tuple | None, filters=None) -> bool:
    """Whether an entry written under filters whose reachable ``ignore`` filters were
    ``ignores`` (``writer_ignores``) is what a call under ``filters`` (default: the current
    ones) would give: these ignore every warning those did (module docstring)."""
    if ignores is None:
        return False
    current = warnings.filters if filters is None else filters
    return all(_ignored_by(ignore, current) for ignore in ignores)


_SHOWN = threading.local()  # per thread: a list counting the warnings shown while recording
_HOOK_LOCK = threading.Lock()
_HOOK = {"users": 0, "saved": None}


@contextlib.contextmanager
def _noting_warnings():
    """Yield a list that gets one item per warning shown in this thread inside the block
    (``warnings.showwarning`` wrapped for as long as some thread records; the warning is shown
    as before)."""
    with _HOOK_LOCK:
        if _HOOK["users"] == 0:
            shown_by = _HOOK["saved"] = warnings.showwarning

            def showwarning(*args, **kwargs):
                for seen in getattr(_SHOWN, "stack", ()):
                    seen.append(args[1] if len(args) > 1 else None)
                return shown_by(*args, **kwargs)

            warnings.showwarning = showwarning
        _HOOK["users"] += 1
    seen: list = []
    stack = _SHOWN.__dict__.setdefault("stack", [])
    stack.append(seen)
    try:
        yield seen
    finally:
        # by identity: list.remove compares by value, and an enclosing block's list that saw
        # the same warnings is equal to this one (removing it broke the enclosing block's exit)
        del stack[max(i for i, x in enumerate(stack) if x is seen)]
        with _HOOK_LOCK:
            _HOOK["users"] -= 1
            if _HOOK["users"] == 0:
                warnings.showwarning = _HOOK["saved"]


_MISSING = object()
#: The entries whose computation showed a warning in this process: never written from it (a
#: repeat computation's warning may be hidden by the once-per-location registry, not absent).
_WARNED: set = set()


def _read(path: Path):
    """The entry at ``path``, or ``_MISSING`` when it is absent or unreadable (any error while
    unpickling: a damaged file, or a class whose pickled form another version rebuilds with a
    ``TypeError`` or ``ValueError``)."""
    try:
        data = path.read_bytes()
    except OSError:
        return _MISSING
    try:
        return pickle.loads(data)
    except Exception:  # noqa: BLE001 (an entry that cannot be rebuilt is recomputed)
        return _MISSING


#: The first item of an entry: (``_FORMAT``, the writer's ``writer_ignores()``, the result).
_FORMAT = "llmcost-entry-3"


def _result(path: Path, ignores_ok) -> object:
    """The result kept at ``path`` when its writer's ignores pass ``ignores_ok``, else
    ``_MISSING`` (also for a file of another form)."""
    entry = _read(path)
    if isinstance(entry, tuple) and len(entry) == 3 and entry[0] == _FORMAT \
            and ignores_ok(entry[1]):
        return entry[2]
    return _MISSING


def _read_usable(path: Path):
    """The result of the entry ``path`` names (written under the current filters), else of an
    entry of the same call written under other filters that ``usable_under`` the current ones,
    else ``_MISSING``. ``path`` is ``<name>-<base key>-<filters digest>.pickle``."""
    found = _result(path, lambda ignores: True)
    if found is not _MISSING:
        return found
    for other in _other_entries(path):
        found = _result(other, usable_under)
        if found is not _MISSING:
            return found
    return _MISSING


def _read_kept(path: Path):
    """``_read_usable`` of the entry ``path`` names, else of the same entry among the prebuilt
    ones (``prebuilt_dir``: read, never written), else ``_MISSING``."""
    found = _read_usable(path)
    shipped = prebuilt_dir()
    if found is _MISSING and shipped is not None and shipped != path.parent:
        found = _read_usable(shipped / path.name)
    return found


def _call_and_digest(path: Path) -> tuple[str, str]:
    """An entry's file name ``<name>-<base key>-<filters digest>.pickle`` split into the call's
    stem (``<name>-<base key>``) and the filters digest."""
    stem, digest = path.name[:-len(".pickle")].rsplit("-", 1)
    return stem, digest


def _entries_index(path: Path) -> Path:
    """The file that names the filters digest of every entry written of the call ``path`` is an
    entry of (``<name>-<base key>.entries``, one digest a line, appended by ``_write``)."""
    return path.parent / (_call_and_digest(path)[0] + ".entries")


def _other_entries(path: Path) -> list[Path]:
    """The entries of the same call as ``path`` under other filters, in sorted order: those
    its index names (``_entries_index``; read instead of listing the folder, which took 5 ms
    for a folder of 7,500 files, twice for every entry missing, and grew with the cache).
    A line cut short by a writer names no file and is passed over."""
    try:
        lines = _entries_index(path).read_text(encoding="utf-8").split()
    except (OSError, UnicodeDecodeError):
        return []
    stem = _call_and_digest(path)[0]
    return sorted(p for p in {path.parent / f"{stem}-{digest}.pickle" for digest in lines}
                  if p != path)


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


@contextlib.contextmanager
def _computing(path: Path):
    """While this process computes the entry ``path``, hold the lock that the entries of the
    same call under every filters share (``<name>-<base key>.computing``), with this process's
    ``writer_ignores()`` written in it. Yields whether it waited for another process: one that
    holds the lock, under filters whose entry this process could read (``usable_under``), is
    waited for (its entry is then read, or computed here if it was not kept); one whose entry
    this process could not read is not, and the entry is computed here at the same time."""
    if fcntl is None:
        yield False
        return
    try:
        handle = open(path.parent / (_call_and_digest(path)[0] + ".computing"),
                      "a+b")  # noqa: SIM115 (closed below)
    except OSError:
        yield False
        return
    with handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            waited = False
        except OSError:  # another process computes this call
            try:
                handle.seek(0)
                holder = pickle.loads(handle.read())
            except Exception:  # noqa: BLE001 (not written yet, or unreadable: not waited for)
                holder = None
            if not usable_under(holder):
                yield False
                return
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            waited = True
        try:
            handle.truncate(0)
            handle.write(pickle.dumps(writer_ignores()))
            handle.flush()
            yield waited
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _write(folder: Path, path: Path, result) -> None:
    """Store ``result`` at ``path`` (a temporary file renamed); a folder that cannot be written
    is not an error."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, delete=False, suffix=".tmp") as fh:
            fh.write(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
        os.replace(fh.name, path)
        with open(_entries_index(path), "a", encoding="utf-8") as index:  # one short append:
            index.write(_call_and_digest(path)[1] + "\n")  # not interleaved
    except OSError:  # a read-only or full disk: the result, uncached
        pass


_NESTED = threading.local()  # per thread: the CPU seconds of the computations nested in each


def _logged(fn, args: tuple, kwargs: dict):
    """``fn(*args, **kwargs)``; where ``$LLMCOST_CACHE_LOG`` names a file, one line is appended
    to it per computed entry: the process id, the function (module and qualified name), the
    CPU seconds of this thread spent in it less those of the entries computed inside it (which
    have lines of their own), and its wall seconds, tab-separated. A benchmark reads it
    (``benchmarks/cold_breakdown.py``: where a cold report's CPU goes)."""
    log = os.environ.get("LLMCOST_CACHE_LOG")
    if not log:
        return fn(*args, **kwargs)
    stack = _NESTED.__dict__.setdefault("stack", [])
    stack.append(0.0)
    c0, w0 = time.thread_time(), time.perf_counter()
    try:
        result = fn(*args, **kwargs)
    finally:
        cpu, nested = time.thread_time() - c0, stack.pop()
        if stack:
            stack[-1] += cpu
    line = (f"{os.getpid()}\t{fn.__module__}.{fn.__qualname__}\t{cpu - nested:.4f}\t"
            f"{time.perf_counter() - w0:.4f}\n")
    try:
        with open(log, "a", encoding="utf-8") as fh:  # one short append: not interleaved
            fh.write(line)
    except OSError:  # a log that cannot be written is not the computation's error
        pass
    return result


def disk_cached(fn):
    """Decorate a function of its arguments and the package's code and data only (a picklable
    result; see the module's docstring for the key): its result is read from the disk cache
    when there, else computed and stored. ``fn.uncached`` is the function itself."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        folder = cache_dir()
        if folder is None:
            return fn(*args, **kwargs)
        try:
            key = cache_key(fn, args, kwargs)
        except Uncacheable:  # an argument the key cannot hold exactly: computed, not kept
            return fn(*args, **kwargs)
        path = folder / f"{fn.__name__}-{key}.pickle"
        found = _read_kept(path)
        if found is not _MISSING:
            return found
        with _entry_lock(path), _computing(path):
            found = _read_kept(path)  # another process may have written it meanwhile
            if found is not _MISSING:
                return found
            with _noting_warnings() as shown:
                result = _logged(fn, args, kwargs)
            if shown:  # a result that showed a warning shows it again next time
                _WARNED.add(path)
            elif path not in _WARNED:
                _write(folder, path, (_FORMAT, writer_ignores(), result))
        return result

    wrapper.uncached = fn
    return wrapper


#: The prebuilt folder's description of what it holds (``write_prebuilt``, ``prebuilt_state``).
PREBUILT_MANIFEST = "MANIFEST.json"


def shared_entries(folders) -> list[str]:
    """The names of the entries (``*.pickle``) every one of ``folders`` holds, sorted: the calls
    that reports of different scenarios, each run with an empty cache folder of its own, made
    with the same arguments under the same filters (the same name is the same key), i.e. the
    results that depend on none of what the scenarios differ in. Raises ``ValueError`` for
    fewer than two folders, one given twice, one that is not a folder, or a single path in
    place of the list."""
    if isinstance(folders, (str, Path)) or not hasattr(folders, "__iter__"):
        raise ValueError(f"folders={folders!r} must be a list of cache folders")
    folders = [Path(f) for f in folders]
    if len({f.resolve() for f in folders}) < len(folders):
        raise ValueError(f"folders={[str(f) for f in folders]}: a folder given twice would make "
                         "every one of its entries look shared by two scenarios")
    if len(folders) < 2:
        raise ValueError(f"folders={len(folders)} folder(s): shared_entries needs at least two "
                         "cache folders to tell the results that depend on no scenario")
    for f in folders:
        if not f.is_dir():
            raise ValueError(f"folders: {str(f)!r} is not a folder")
    names = [{p.name for p in f.glob("*.pickle")} for f in folders]
    return sorted(set.intersection(*names))


def write_prebuilt(source, names, dest, scenarios=()) -> dict:
    """Make ``dest`` the prebuilt folder of the entries ``names`` copied from the cache folder
    ``source`` (``shared_entries``): the entries it held before are removed, each call's index
    (``_entries_index``) names the copied entries only, and ``PREBUILT_MANIFEST`` records the
    ``source_fingerprint()`` and ``runtime_versions()`` they were computed under (of this
    process: build them with the same code and libraries), the ``scenarios`` they were read
    from, their count and bytes. Returns the manifest.

    Raises
    ------
    ValueError
        ``dest`` the same folder as ``source``, or a name ``source`` does not hold (before
        anything is removed or written)."""
    source, dest, names = Path(source), Path(dest), list(names)
    if dest.resolve() == source.resolve():
        raise ValueError(f"dest={str(dest)!r} is the source folder: its entries would be removed "
                         "before they are copied")
    missing = [n for n in names if not (source / n).is_file()]
    if missing:
        raise ValueError(f"names: {len(missing)} not in {str(source)!r} (e.g. {missing[0]!r}); "
                         "nothing was written")
    dest.mkdir(parents=True, exist_ok=True)
    for old in [*dest.glob("*.pickle"), *dest.glob("*.entries")]:
        old.unlink()
    total = 0
    for name in names:
        data = (source / name).read_bytes()
        (dest / name).write_bytes(data)
        total += len(data)
        with open(_entries_index(dest / name), "a", encoding="utf-8") as index:
            index.write(_call_and_digest(dest / name)[1] + "\n")
    manifest = {"format": _FORMAT, "source_fingerprint": source_fingerprint(),
                "runtime_versions": runtime_versions(), "scenarios": list(scenarios),
                "entries": len(names), "bytes": total}
    (dest / PREBUILT_MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n",
                                          encoding="utf-8")
    return manifest


def prebuilt_state(folder=None) -> tuple[bool, str]:
    """``(current, sentence)``: whether the prebuilt folder (``folder``, else
    ``cachedir.PREBUILT_DIR``) holds entries of this code, data and libraries, which a report
    then reads instead of computing them; a stale folder is never read wrong (every entry's key
    holds the fingerprint), only not at all."""
    folder = Path(folder) if folder is not None else PREBUILT_DIR
    try:
        manifest = json.loads((folder / PREBUILT_MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False, f"no prebuilt entries in {folder}"
    n = manifest.get("entries", 0)
    if manifest.get("format") != _FORMAT:
        return False, f"the prebuilt entries in {folder} are of another format"
    if manifest.get("source_fingerprint") != source_fingerprint():
        return False, (f"the {n} prebuilt entries in {folder} are of other code or data "
                       "(scripts/prebuilt_cache.py rebuilds them): none will be read")
    if manifest.get("runtime_versions") != runtime_versions():
        return False, (f"the {n} prebuilt entries in {folder} were computed with "
                       f"{manifest.get('runtime_versions')}, not {runtime_versions()}: none "
                       "will be read")
    return True, (f"{n} prebuilt entries current ({manifest.get('bytes', 0) / 1e6:.1f} MB, "
                  f"shared by the reports of {', '.join(manifest.get('scenarios', [])) or '?'})")
