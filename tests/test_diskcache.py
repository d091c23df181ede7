"""The disk cache (llmcost/core/diskcache.py): a result kept on disk is read back instead of
recomputed, a change to the code or data fingerprint or to the arguments (a scenario's values,
an array's bytes, a named file's bytes) is a new entry, an unreadable entry is recomputed, a
result that showed a warning is not kept (nor recomputed in that process and kept), processes that miss an entry at once compute it once,
an entry written under other warnings filters is read only where the reader's filters hide
every warning the writer's hid (Python's first-matching-filter rule, warnings module docs),
and ``LLMCOST_CACHE_DIR=off`` turns it off."""

import os
import pickle
import re
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pandas as pd
import pytest

from llmcost.core import diskcache
from llmcost.training import accuracy

calls = []


@diskcache.disk_cached
def _table(n: int) -> pd.DataFrame:
    calls.append(n)
    return pd.DataFrame({"x": range(n)})


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("LLMCOST_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("LLMCOST_PREBUILT_DIR", "off")  # every miss computed (test_prebuilt.py)
    calls.clear()
    return tmp_path


def test_a_result_is_read_back_not_recomputed(folder):
    first = _table(3)
    again = _table(3)
    assert calls == [3] and again.equals(first)
    assert len(list(folder.glob("_table-*.pickle"))) == 1
    _table(4)  # other arguments: another entry
    assert calls == [3, 4]


def test_a_result_is_kept_under_the_command_lines_warnings_filters(folder):
    """``llmcost``'s command line shows every warning of the package (``cli.main``'s filter on
    the module pattern ``llmcost(\\.|$)``): the filters' text enters the key as text, not as
    an argument that might name a file, whose check a long text with a backslash failed (the
    name too long for the system), which made every cached call of a report's process
    uncacheable."""
    with warnings.catch_warnings():
        warnings.filterwarnings("always", category=UserWarning, module=r"llmcost(\.|$)")
        for i in range(40):  # a long filter list, as the libraries a report imports add
            warnings.filterwarnings("ignore", message=rf"a message\s+number {i}")
        first = _table(5)
        again = _table(5)
    assert calls == [5] and again.equals(first)
    assert len(list(folder.glob("_table-*.pickle"))) == 1


class _Mine(UserWarning):
    pass


class _Both(_Mine, RuntimeWarning):  # a warning of two families at once
    pass


def _filters(*specs) -> list:
    """A filter list as ``warnings.filters`` holds it: (action, message regex or None, category,
    module regex or None, line)."""
    return [(a, None if m is None else re.compile(m, re.I), c, None, 0) for a, m, c in specs]


# Python's defaults (``-W`` none, not __main__), then what pytest puts in front of them for a
# test, then what a notebook kernel adds (IPython's and numpy's filters, abridged)
DEFAULTS = _filters(("ignore", None, DeprecationWarning), ("ignore", None, ImportWarning))
PYTEST = _filters(("always", None, DeprecationWarning)) + DEFAULTS
KERNEL = _filters(("ignore", "numpy.ndarray size changed", Warning),
                  ("error", None, _Mine)) + DEFAULTS


def test_an_entry_is_read_under_filters_that_hide_all_its_writer_hid():
    # the writer's reachable ignores: pytest's ``ignore DeprecationWarning`` comes after its
    # ``always DeprecationWarning`` (the first matching filter decides), so only ImportWarning
    # (each ignore keeps the reachable filters ahead of it, which no warning it hid matched)
    assert diskcache.writer_ignores(PYTEST) == ((None, ("builtins", "ImportWarning"), None, 0, (
        ("always", None, ("builtins", "DeprecationWarning"), None, 0),)),)
    ignores = diskcache.writer_ignores(PYTEST)
    assert diskcache.usable_under(ignores, PYTEST)
    assert diskcache.usable_under(ignores, KERNEL)  # the kernel hides ImportWarning too
    assert diskcache.usable_under(diskcache.writer_ignores(DEFAULTS), DEFAULTS)
    assert not diskcache.usable_under(diskcache.writer_ignores(DEFAULTS), PYTEST)  # shows more
    shows_all = diskcache.writer_ignores(_filters(("always", None, Warning)) + DEFAULTS)
    assert shows_all == () and diskcache.usable_under(shows_all, KERNEL)
    # a writer with an error filter shares nothing (its computation may have caught one)
    assert diskcache.writer_ignores(KERNEL) is None and not diskcache.usable_under(None, PYTEST)
    # a reader that ignores only some of the messages, or shows a subclass first, or errors
    only_one = _filters(("ignore", "one message", UserWarning))
    assert not diskcache.usable_under(diskcache.writer_ignores(
        _filters(("ignore", None, UserWarning))), only_one)
    assert diskcache.usable_under(diskcache.writer_ignores(only_one), _filters(
        ("ignore", "another", UserWarning), ("ignore", None, Warning)))
    assert not diskcache.usable_under(diskcache.writer_ignores(
        _filters(("ignore", None, UserWarning))), _filters(("always", None, _Mine),
                                                           ("ignore", None, UserWarning)))
    assert not diskcache.usable_under(diskcache.writer_ignores(
        _filters(("ignore", None, UserWarning))), _filters(("error", None, UserWarning)))
    # a class of both families: a RuntimeWarning filter may meet an ignored UserWarning
    assert not diskcache.usable_under(diskcache.writer_ignores(
        _filters(("ignore", None, _Mine))), _filters(("default", None, RuntimeWarning),
                                                     ("ignore", None, Warning)))


# Python's own first filter (``python -W`` none): deprecations of ``__main__`` shown, its module
# a plain string, matched whole (warnings module docs, "Default Warning Filter")
MAIN = [("default", None, DeprecationWarning, "__main__", 0)]


def test_a_kernel_reads_what_a_report_process_computed():
    """A report's process (the command line's ``always`` filter for the package's warnings in
    front of Python's defaults) and a notebook's kernel (IPython's and numpy's filters, an
    ``error`` filter among them, in front of the same defaults) both show the deprecations of
    ``__main__`` and hide the others: the kernel reads what the process wrote. The filter
    both have ahead of the writer's ``ignore DeprecationWarning`` decided no warning that
    ignore hid, and is passed over; a reader that has it and the writer did not is not."""
    report = [("always", None, UserWarning, re.compile(r"llmcost(\.|$)"), 0)] + MAIN + DEFAULTS
    kernel = KERNEL[:2] + MAIN + DEFAULTS
    assert diskcache.usable_under(diskcache.writer_ignores(report), kernel)
    # the writer hid the deprecations of __main__ too: a reader that shows them may not read
    assert not diskcache.usable_under(diskcache.writer_ignores(DEFAULTS), kernel)
    # the same module as a pattern (matched at the start: __main__x too) is another filter
    as_pattern = [("default", None, DeprecationWarning, re.compile("__main__"), 0)]
    assert not diskcache.usable_under(diskcache.writer_ignores(MAIN + DEFAULTS),
                                      as_pattern + DEFAULTS)
    # a reader whose other filter comes first (shows every deprecation of the package) may not
    shows_ours = [("always", None, DeprecationWarning, re.compile("llmcost"), 0)]
    assert not diskcache.usable_under(diskcache.writer_ignores(report),
                                      shows_ours + MAIN + DEFAULTS)


def test_a_kernels_call_reads_what_a_test_process_computed_and_not_back(folder):
    with warnings.catch_warnings():
        warnings.filters[:] = PYTEST
        first = _table(6)
    with warnings.catch_warnings():
        warnings.filters[:] = _filters(("ignore", None, DeprecationWarning),
                                       ("ignore", None, ImportWarning))
        again = _table(6)  # hides what the writer hid: read
        assert calls == [6] and again.equals(first)
        _table(7)  # written under these filters, which hide DeprecationWarning
    with warnings.catch_warnings():
        warnings.filters[:] = PYTEST
        _table(7)  # would show a DeprecationWarning the writer hid: computed
    assert calls == [6, 7, 7]


def test_a_process_waits_for_an_entry_under_other_filters_only_if_it_could_read_it(tmp_path):
    # a process that shows deprecations computes an entry (slowly); one that asks while it does,
    # whose filters hide deprecations (a notebook kernel's), waits for it and reads it; the
    # other way round, each computes its own (the first's entry may lack a deprecation)
    log = tmp_path / "computed.txt"
    code = textwrap.dedent(f"""
        import os, sys, time, warnings
        from llmcost.core import diskcache

        @diskcache.disk_cached
        def slow(n):
            with open({str(log)!r}, "a") as f:
                f.write(f"{{sys.argv[1]}} {{n}}\\n")
            time.sleep(1.0)
            return n * 2

        role, n = sys.argv[1], int(sys.argv[3])
        while sys.argv[2] == "second" and not (os.path.exists({str(log)!r}) and
                                                f" {{n}}" in open({str(log)!r}).read()):
            time.sleep(0.02)  # until the first process is computing
        warnings.resetwarnings()
        warnings.simplefilter("ignore", ImportWarning)
        warnings.simplefilter("ignore" if role == "hides" else "always", DeprecationWarning)
        assert slow(n) == 2 * n
    """)
    assert _at_once(code, tmp_path / "cache", [("shows", "first", "1"), ("hides", "second", "1"),
                                               ("hides", "first", "2"), ("shows", "second", "2")]) \
        == [0, 0, 0, 0]
    assert sorted(log.read_text().splitlines()) == ["hides 2", "shows 1", "shows 2"]


def test_a_new_fingerprint_is_a_new_entry(folder, monkeypatch):
    _table(3)
    monkeypatch.setattr(diskcache, "source_fingerprint", lambda: "another version of the code")
    _table(3)
    assert calls == [3, 3] and len(list(folder.glob("_table-*.pickle"))) == 2


def test_other_library_versions_are_a_new_entry(folder, monkeypatch):
    # a cache folder shared by two environments (~/.cache/llmcost is per user, not per venv):
    # a result computed and pickled by another NumPy or pandas is not read back
    _table(3)
    assert "numpy " in diskcache.runtime_versions() and "pandas " in diskcache.runtime_versions()
    monkeypatch.setattr(diskcache, "runtime_versions", lambda: "python 3; numpy 0; pandas 0")
    _table(3)
    assert calls == [3, 3] and len(list(folder.glob("_table-*.pickle"))) == 2


class _RebuiltWithAnError:
    """Pickles fine; unpickling raises ValueError (int('x')), as a class another version of its
    library rebuilds with other arguments may."""

    def __reduce__(self):
        return (int, ("x",))


def test_an_unreadable_entry_is_recomputed(folder):
    _table(3)
    (entry,) = folder.glob("_table-*.pickle")
    entry.write_bytes(b"not a pickle")
    assert _table(3)["x"].tolist() == [0, 1, 2] and calls == [3, 3]
    entry.write_bytes(pickle.dumps(_RebuiltWithAnError()))
    assert _table(3)["x"].tolist() == [0, 1, 2] and calls == [3, 3, 3]


def test_off_and_an_unwritable_folder(tmp_path, monkeypatch):
    calls.clear()
    monkeypatch.setenv("LLMCOST_CACHE_DIR", "off")
    _table(2), _table(2)
    assert calls == [2, 2]
    (tmp_path / "a_file").write_text("x")  # a folder under a regular file cannot be made
    monkeypatch.setenv("LLMCOST_CACHE_DIR", str(tmp_path / "a_file" / "cache"))
    assert _table(2)["x"].tolist() == [0, 1] and calls == [2, 2, 2]


def test_a_relative_cache_folder_is_of_the_folder_a_report_starts_in(tmp_path, monkeypatch):
    # found on 2026-12-02: `cd run && LLMCOST_CACHE_DIR=relcache llmcost report ...` made
    # notebooks/relcache (the kernels run in the notebooks' folder), not run/relcache
    from llmcost.present import report

    class Planned(Exception):
        pass

    def plan_report(*args):
        raise Planned(os.environ["LLMCOST_CACHE_DIR"])

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LLMCOST_CACHE_DIR", "relcache")
    monkeypatch.setattr(report, "plan_report", plan_report)
    with pytest.raises(Planned, match="^" + re.escape(str(tmp_path / "relcache")) + "$"):
        report.run_report("s.yaml", tmp_path / "out")
    assert diskcache.cache_dir() == tmp_path / "relcache"
    monkeypatch.setenv("LLMCOST_CACHE_DIR", "off")
    diskcache.pin_cache_dir()
    assert diskcache.cache_dir() is None


def test_the_fingerprint_covers_code_and_data():
    files = [p.name for p in diskcache.PACKAGE_DIR.rglob("*.py")]
    assert "diskcache.py" in files and (diskcache.DATA_DIR / "validation_mfu.csv").exists()
    assert len(diskcache.source_fingerprint()) == 64


def test_the_validation_table_from_disk_equals_the_computed_one(folder):
    # the cached table is the very table the step model computes (no stale or partial copy)
    fresh = accuracy.validation_table.__wrapped__.uncached()
    accuracy.validation_table.__wrapped__()           # computes and stores
    stored = accuracy.validation_table.__wrapped__()  # reads back
    pd.testing.assert_frame_equal(stored, fresh)
    assert len(list(folder.glob("validation_table-*.pickle"))) == 1


def _at_once(code: str, cache, argvs) -> list:
    """Start one Python process per ``argvs`` item running ``code`` with it as arguments, all at
    once and sharing the disk cache folder ``cache``; their exit codes."""
    env = {**os.environ, "LLMCOST_CACHE_DIR": str(cache)}
    runs = [subprocess.Popen([sys.executable, "-c", code, *argv], env=env) for argv in argvs]
    return [r.wait(timeout=60) for r in runs]


def test_processes_that_miss_one_entry_at_once_compute_it_once(tmp_path):
    # Two processes ask for the same absent entry together (a report's kernels, the suite's
    # workers): the second waits for the first's result instead of computing it again.
    log = tmp_path / "computed.txt"
    code = textwrap.dedent(f"""
        import time
        from llmcost.core import diskcache

        @diskcache.disk_cached
        def slow(n):
            with open({str(log)!r}, "a") as f:
                f.write("computed\\n")
            time.sleep(1.0)
            return list(range(n))

        assert slow(3) == [0, 1, 2]
    """)
    assert _at_once(code, tmp_path / "cache", [(), ()]) == [0, 0]
    assert log.read_text().splitlines() == ["computed"]


# ------------------------------------------------------------------ arguments enter exactly
scenario_calls = []


@diskcache.disk_cached
def _priced(scenario: dict, counts=None) -> float:
    scenario_calls.append(dict(scenario))
    extra = 0.0 if counts is None else float(sum(counts))
    return scenario["n_gpus"] * scenario["price"] + extra


def test_a_changed_input_misses_and_the_same_input_hits(folder):
    from llmcost.bill.ranges import Range

    scenario_calls.clear()
    base = {"n_gpus": 8, "price": 2.5, "mfu": Range("triangular", 0.3, 0.4, 0.5)}
    assert _priced(base) == 20.0 and _priced(dict(base)) == 20.0  # an equal dict: read back
    assert len(scenario_calls) == 1
    _priced({**base, "price": 2.5000000001})  # the last digit of a float
    _priced({**base, "mfu": Range("triangular", 0.3, 0.4, 0.51)})  # a field of a dataclass
    _priced({**base, "n_gpus": 8.0})  # 8.0 is not 8
    assert len(scenario_calls) == 4
    # numpy arrays by their bytes, not their repr (which elides the middle of a long array)
    a = np.arange(5000)
    b = a.copy()
    b[2500] = -1
    assert repr(a) == repr(b)  # what a repr-based key would have confused
    assert _priced(base, a) != _priced(base, b) and len(scenario_calls) == 6
    assert _priced(base, a.copy()) == _priced(base, a) and len(scenario_calls) == 6


def test_a_file_named_by_an_argument_enters_with_its_bytes(folder, tmp_path):
    scenario_calls.clear()
    profile = tmp_path / "profile.yaml"
    profile.write_text("gemm: 0.7\n")
    sc = {"n_gpus": 8, "price": 1.0, "efficiency_profile": str(profile)}
    _priced(sc), _priced(sc)
    assert len(scenario_calls) == 1
    profile.write_text("gemm: 0.8\n")  # the same path, another profile: a new entry
    _priced(sc)
    assert len(scenario_calls) == 2


def test_an_argument_it_cannot_encode_is_computed_and_not_kept(folder):
    class Opaque:  # no exact encoding: its state is not known to the key
        pass

    scenario_calls.clear()
    sc = {"n_gpus": 8, "price": 1.0, "how": Opaque()}
    _priced(sc), _priced(sc)
    assert len(scenario_calls) == 2 and not list(folder.glob("_priced-*.pickle"))
    with pytest.raises(diskcache.Uncacheable):
        diskcache.input_digest(lambda: 0)


def test_a_module_level_function_of_the_package_is_keyed_by_its_name():
    # A review: page 09's tables formatted with plots.signed_tenths and levers.break_even_words
    # were rendered every report (a function kept a table out of the cache). A module-level
    # function of the package is keyed by its name (its code is in source_fingerprint); two
    # different ones differ; a lambda, a nested function or another package's still refuse.
    import math

    from llmcost.bill import levers
    from llmcost.present import plots
    one = diskcache.input_digest({"days_saved": plots.signed_tenths})
    assert one == diskcache.input_digest({"days_saved": plots.signed_tenths})
    assert one != diskcache.input_digest({"days_saved": levers.break_even_words})

    def nested(v):
        return str(v)
    for f in (nested, lambda v: v, math.sqrt):
        with pytest.raises(diskcache.Uncacheable):
            diskcache.input_digest({"x": f})


warned_calls = []


@diskcache.disk_cached
def _warns(n: int) -> int:
    warned_calls.append(n)
    warnings.warn(f"a warning about {n}", UserWarning, stacklevel=2)
    return n + 1


def test_a_result_that_showed_a_warning_is_not_kept_so_it_shows_again(folder):
    warned_calls.clear()
    shown_by = warnings.showwarning
    for _ in range(2):
        with pytest.warns(UserWarning, match="a warning about 3"):
            assert _warns(3) == 4
    assert warned_calls == [3, 3] and not list(folder.glob("_warns-*.pickle"))
    # silenced by the caller: nothing is shown, the result is kept under those filters only
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _warns(4), _warns(4)
    assert warned_calls == [3, 3, 4]
    with pytest.warns(UserWarning, match="a warning about 4"):  # other filters: computed, shown
        _warns(4)
    assert warned_calls == [3, 3, 4, 4]
    assert warnings.showwarning is shown_by and diskcache._HOOK["users"] == 0  # hook removed


def test_a_warning_hidden_by_the_once_per_location_registry_still_shows_next_process(tmp_path):
    # Python shows a warning once per location (the "default" action, the filters of a script
    # or a notebook's kernel): a second call in the same process computes the entry again and
    # shows nothing. Kept then, the next process would read it back and never show the warning
    # an uncached run shows (found on 2026-12-02: the first process printed it, the second not).
    code = textwrap.dedent("""
        import sys, warnings
        from llmcost.core import diskcache

        @diskcache.disk_cached
        def careful(n):
            warnings.warn(f"careful with {n}", UserWarning)
            return n + 1

        for _ in range(int(sys.argv[1])):
            assert careful(3) == 4
    """)
    env = {**os.environ, "LLMCOST_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("PYTHONWARNINGS", None)
    runs = [subprocess.run([sys.executable, "-c", code, n], env=env, capture_output=True,
                           text=True, timeout=60) for n in ("2", "1")]
    assert [r.returncode for r in runs] == [0, 0], [r.stderr for r in runs]
    assert [r.stderr.count("careful with 3") for r in runs] == [1, 1]
    assert not list((tmp_path / "cache").glob("careful-*.pickle"))


def test_processes_that_miss_one_scenario_entry_at_once_compute_it_once(tmp_path):
    # as above, with a scenario-like argument (a dict holding a range), and a third process
    # asking for another scenario, which is computed on its own
    log = tmp_path / "computed.txt"
    code = textwrap.dedent(f"""
        import sys, time
        from llmcost.bill.ranges import Range
        from llmcost.core import diskcache

        @diskcache.disk_cached
        def slow(scenario):
            with open({str(log)!r}, "a") as f:
                f.write(f"computed {{scenario['n_gpus']}}\\n")
            time.sleep(1.0)
            return scenario["n_gpus"] * 2

        n = int(sys.argv[1])
        assert slow({{"n_gpus": n, "mfu": Range("uniform", 0.3, None, 0.5)}}) == 2 * n
    """)
    assert _at_once(code, tmp_path / "cache", [("8",), ("8",), ("16",)]) == [0, 0, 0]
    assert sorted(log.read_text().splitlines()) == ["computed 16", "computed 8"]


def test_a_scenarios_hardware_sweep_from_disk_equals_the_computed_one(folder):
    # the cached sweep is the very table levers computes for the scenario, and a changed
    # scenario is computed anew (its own entry)
    from llmcost.bill import levers
    from llmcost.bill.scenario import validate_parameters

    sc = validate_parameters(model="llama-2-7b", accelerator="H100-SXM", n_gpus=64,
                             train_tokens=1e11)
    fresh = levers.hardware_sweep.uncached(sc)
    levers.hardware_sweep(sc)
    stored = levers.hardware_sweep(sc)
    pd.testing.assert_frame_equal(stored, fresh)
    levers.hardware_sweep({**sc, "n_gpus": 128})
    assert len(list(folder.glob("hardware_sweep-*.pickle"))) == 2


def test_an_rl_iteration_is_read_from_disk_by_a_scenario_that_changes_only_the_run(
        folder, monkeypatch):
    # rl.scenario_iteration reads only rl.ITERATION_KEYS (the RL set-up, model and hardware):
    # a scenario with other training tokens and GPUs, in another process (its memo empty),
    # reads the iteration the first computed, the same numbers; a changed RL key is computed
    from llmcost.bill.scenario import LEDGER_DEFAULTS
    from llmcost.serving import rl

    p = {**LEDGER_DEFAULTS, "model": "llama-3.1-8b", "accelerator": "H100-SXM", "rl_gpus": 8,
         "rl_rollout_tp": 1}
    rl._iteration_cached.cache_clear()
    first = rl.scenario_iteration(p)
    assert len(list(folder.glob("_iteration_of-*.pickle"))) == 1
    rl._iteration_cached.cache_clear()  # a new process
    with monkeypatch.context() as m:
        m.setattr(rl, "rl_iteration", lambda *a, **k: pytest.fail("computed again"))
        again = rl.scenario_iteration({**p, "n_gpus": p["n_gpus"] // 2,
                                       "train_tokens": 0.75 * p["train_tokens"]})
    assert again == first and again is not first
    longer = rl.scenario_iteration({**p, "rl_response_tokens": 2 * p["rl_response_tokens"],
                                    "rl_response_tokens_max": 4 * p["rl_response_tokens"]})
    assert longer.wall_s > first.wall_s
    assert len(list(folder.glob("_iteration_of-*.pickle"))) == 2
    rl._iteration_cached.cache_clear()


@diskcache.disk_cached
def _inner(n: int) -> float:
    total = 0.0
    for i in range(n):  # CPU work of its own
        total += i ** 0.5
    return total


@diskcache.disk_cached
def _outer(n: int) -> float:
    return _inner(n) + 1.0


def test_the_compute_log_names_each_computed_entry_with_its_own_cpu(folder, monkeypatch):
    """``LLMCOST_CACHE_LOG``: one line per entry computed (process id, function, own CPU
    seconds, wall seconds), the nested entry's CPU counted in its own line and not again in
    its caller's; an entry read back writes none, and without the variable nothing is
    written."""
    log = folder / "computed.log"
    monkeypatch.setenv("LLMCOST_CACHE_LOG", str(log))
    assert _outer(1_000_000) == _outer.uncached(1_000_000)
    lines = [line.split("\t") for line in log.read_text().splitlines()]
    assert [f[1] for f in lines] == [f"{__name__}._inner", f"{__name__}._outer"]
    assert all(f[0] == str(os.getpid()) and len(f) == 4 for f in lines)
    inner_cpu, outer_cpu = float(lines[0][2]), float(lines[1][2])
    assert inner_cpu > 0 and 0 <= outer_cpu < inner_cpu / 2  # the loop is _inner's alone
    _outer(1_000_000)  # read back: no line
    assert len(log.read_text().splitlines()) == 2
    monkeypatch.delenv("LLMCOST_CACHE_LOG")
    _outer(7)
    assert len(log.read_text().splitlines()) == 2


def test_value_key_is_exact_and_ignores_how_values_share_objects():
    # a float bit for bit, a type by name: 0.0 and -0.0, 1 and 1.0 and True are other keys
    k = diskcache.value_key
    assert k(0.0) != k(-0.0) and len({k(1), k(1.0), k(True)}) == 3
    assert k(np.arange(3)) != k(np.arange(3.0)) and k(np.arange(3)) == k(np.arange(3))
    # a value written twice or an equal copy: the same bytes (no pickle memo)
    s = "bf16" * 3
    assert k((s, s)) == k((s, "".join(["bf16"] * 3)))
    # a dataclass by its fields: a cached_property read in between changes nothing
    from llmcost import load_model
    m = load_model("llama-2-7b")
    before = k(m)
    _ = m.param_breakdown
    assert "param_breakdown" in vars(m) and k(m) == before
    assert k(m) != k(load_model("llama-2-13b"))
    assert k(lambda: 0) is None  # a lambda does not pickle: no key


def test_kept_if_quiet_keeps_quiet_results_only():
    store, calls = {}, []

    def quiet():
        calls.append(1)
        return 2.0

    def loud():
        calls.append(1)
        warnings.warn("a warning", UserWarning)
        return 3.0

    assert diskcache.kept_if_quiet(store, b"q", quiet) == 2.0
    assert diskcache.kept_if_quiet(store, b"q", quiet) == 2.0 and len(calls) == 1
    with pytest.warns(UserWarning, match="a warning"):
        assert diskcache.kept_if_quiet(store, b"l", loud) == 3.0
    assert b"l" not in store and len(calls) == 3  # computed again under the caller's filters

    def loud_error():
        calls.append(1)
        warnings.warn("before the error", UserWarning)
        raise ValueError("bad input")

    with pytest.warns(UserWarning, match="before the error"), \
            pytest.raises(ValueError, match="bad input"):
        diskcache.kept_if_quiet(store, b"e", loud_error)
    assert b"e" not in store and len(calls) == 5
    assert diskcache.kept_if_quiet(store, None, quiet) == 2.0 and len(calls) == 6
