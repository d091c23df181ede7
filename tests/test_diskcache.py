"""The disk cache (llmcost/core/diskcache.py): a result kept on disk is read back instead of
recomputed, a change to the code or data fingerprint or to the arguments is a new entry, an
unreadable entry is recomputed, and ``LLMCOST_CACHE_DIR=off`` turns it off."""

import os
import subprocess
import sys
import textwrap

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
    calls.clear()
    return tmp_path


def test_a_result_is_read_back_not_recomputed(folder):
    first = _table(3)
    again = _table(3)
    assert calls == [3] and again.equals(first)
    assert len(list(folder.glob("_table-*.pickle"))) == 1
    _table(4)  # other arguments: another entry
    assert calls == [3, 4]


def test_a_new_fingerprint_is_a_new_entry(folder, monkeypatch):
    _table(3)
    monkeypatch.setattr(diskcache, "source_fingerprint", lambda: "another version of the code")
    _table(3)
    assert calls == [3, 3] and len(list(folder.glob("_table-*.pickle"))) == 2


def test_an_unreadable_entry_is_recomputed(folder):
    _table(3)
    (entry,) = folder.glob("_table-*.pickle")
    entry.write_bytes(b"not a pickle")
    assert _table(3)["x"].tolist() == [0, 1, 2] and calls == [3, 3]


def test_off_and_an_unwritable_folder(tmp_path, monkeypatch):
    calls.clear()
    monkeypatch.setenv("LLMCOST_CACHE_DIR", "off")
    _table(2), _table(2)
    assert calls == [2, 2]
    (tmp_path / "a_file").write_text("x")  # a folder under a regular file cannot be made
    monkeypatch.setenv("LLMCOST_CACHE_DIR", str(tmp_path / "a_file" / "cache"))
    assert _table(2)["x"].tolist() == [0, 1] and calls == [2, 2, 2]


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
    env = {**os.environ, "LLMCOST_CACHE_DIR": str(tmp_path / "cache")}
    runs = [subprocess.Popen([sys.executable, "-c", code], env=env) for _ in range(2)]
    assert [r.wait(timeout=60) for r in runs] == [0, 0]
    assert log.read_text().splitlines() == ["computed"]
