"""The disk cache finds a call's entries written under other warnings filters through the
call's index (``<name>-<base key>.entries``), not by listing the cache folder, which took 5 ms
for a folder of 7,500 files (measured), twice for every entry missing, and grew with it."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

from llmcost.core import diskcache

calls = []


@diskcache.disk_cached
def _cube(n: int) -> int:
    calls.append(n)
    return n ** 3


def test_an_entry_under_other_filters_is_found_without_listing_the_folder(tmp_path,
                                                                          monkeypatch):
    monkeypatch.setenv("LLMCOST_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("LLMCOST_PREBUILT_DIR", "off")  # computed here, not read
    calls.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("always")  # shows everything: an entry anyone may read
        assert _cube(3) == 27
    (index,) = tmp_path.glob("_cube-*.entries")
    (entry,) = tmp_path.glob("_cube-*.pickle")
    assert index.read_text().split() == [entry.name[:-len(".pickle")].rsplit("-", 1)[1]]

    def refused(*a, **k):
        raise AssertionError("the cache folder was listed")

    monkeypatch.setattr(Path, "glob", refused)
    monkeypatch.setattr(Path, "iterdir", refused)
    monkeypatch.setattr(os, "scandir", refused)
    monkeypatch.setattr(os, "listdir", refused)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # other filters: another key, which reads the first
        assert _cube(3) == 27
    assert calls == [3]


def test_a_line_cut_short_in_the_index_is_passed_over(tmp_path, monkeypatch):
    monkeypatch.setenv("LLMCOST_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("LLMCOST_PREBUILT_DIR", "off")  # computed here, not read
    calls.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a writer with an error filter shares nothing
        _cube(4)
    (index,) = tmp_path.glob("_cube-*.entries")
    with open(index, "a") as fh:
        fh.write("0123\n")  # a digest cut short: names no file
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _cube(4) == 64
    assert calls == [4, 4]
    assert len(index.read_text().split()) == 3  # two writes and the cut line

