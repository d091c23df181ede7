"""The prebuilt cache entries (``prebuilt/``, ``scripts/prebuilt_cache.py``): a report reads an
entry the repository ships where its own cache folder misses, never writes there, reads none of
another code, data or library version (every key holds them), and the entries shipped are those
reports of different scenarios all computed with the same arguments."""

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from llmcost.core import cachedir, diskcache
from llmcost.training import accuracy

ROOT = Path(__file__).resolve().parents[1]
calls = []


@diskcache.disk_cached
def _square(n: int) -> int:
    calls.append(n)
    return n * n


@pytest.fixture
def layers(tmp_path, monkeypatch):
    """(own cache folder, prebuilt folder), both empty, set for this test."""
    own, shipped = tmp_path / "own", tmp_path / "prebuilt"
    monkeypatch.setenv("LLMCOST_CACHE_DIR", str(own))
    monkeypatch.setenv("LLMCOST_PREBUILT_DIR", str(shipped))
    calls.clear()
    return own, shipped


def _fill(folder: Path, monkeypatch, *ns) -> None:
    """Compute ``_square`` of ``ns`` into the cache folder ``folder`` (nothing prebuilt)."""
    monkeypatch.setenv("LLMCOST_CACHE_DIR", str(folder))
    monkeypatch.setenv("LLMCOST_PREBUILT_DIR", "off")
    for n in ns:
        _square(n)


def test_only_what_every_scenario_computed_is_shipped_and_then_read(layers, monkeypatch,
                                                                     tmp_path):
    own, shipped = layers
    # three "reports": 2 and 3 computed by all of them, 5 and 7 by one each
    _fill(tmp_path / "a", monkeypatch, 2, 3, 5)
    _fill(tmp_path / "b", monkeypatch, 3, 2, 7)
    _fill(tmp_path / "c", monkeypatch, 2, 3)
    names = diskcache.shared_entries([tmp_path / "a", tmp_path / "b", tmp_path / "c"])
    assert len(names) == 2 and all(n.startswith("_square-") for n in names)
    manifest = diskcache.write_prebuilt(tmp_path / "a", names, shipped, ["a", "b", "c"])
    assert manifest["entries"] == 2 and manifest["scenarios"] == ["a", "b", "c"]
    assert manifest["bytes"] == sum((shipped / n).stat().st_size for n in names)
    monkeypatch.setenv("LLMCOST_CACHE_DIR", str(own))
    monkeypatch.setenv("LLMCOST_PREBUILT_DIR", str(shipped))
    calls.clear()
    assert (_square(2), _square(3), _square(5)) == (4, 9, 25)
    assert calls == [5]  # 2 and 3 read from prebuilt/, 5 computed
    # the computed one went to the own folder; prebuilt/ is never written
    assert len(list(own.glob("_square-*.pickle"))) == 1
    assert sorted(p.name for p in shipped.glob("*.pickle")) == names
    monkeypatch.setenv("LLMCOST_PREBUILT_DIR", "off")
    _square(2)
    assert calls == [5, 2]


def test_a_rebuild_replaces_the_old_entries(layers, monkeypatch, tmp_path):
    _, shipped = layers
    _fill(tmp_path / "a", monkeypatch, 2, 3)
    _fill(tmp_path / "b", monkeypatch, 3)
    diskcache.write_prebuilt(tmp_path / "a", sorted(p.name for p in (tmp_path / "a").glob(
        "*.pickle")), shipped)
    assert len(list(shipped.glob("*.pickle"))) == 2
    names = diskcache.shared_entries([tmp_path / "a", tmp_path / "b"])
    diskcache.write_prebuilt(tmp_path / "a", names, shipped)
    assert sorted(p.name for p in shipped.glob("*.pickle")) == names and len(names) == 1
    index = [p.read_text().split() for p in shipped.glob("*.entries")]
    assert index == [[names[0].rsplit("-", 1)[1][:-len(".pickle")]]]


def test_the_state_says_current_stale_or_absent(tmp_path, monkeypatch):
    assert diskcache.prebuilt_state(tmp_path) == (False, f"no prebuilt entries in {tmp_path}")
    _fill(tmp_path / "a", monkeypatch, 2)
    diskcache.write_prebuilt(tmp_path / "a", [p.name for p in (tmp_path / "a").glob(
        "*.pickle")], tmp_path / "p", ["default.yaml", "other.yaml"])
    current, sentence = diskcache.prebuilt_state(tmp_path / "p")
    assert current and sentence.startswith("1 prebuilt entries current") \
        and "default.yaml, other.yaml" in sentence
    manifest_path = tmp_path / "p" / diskcache.PREBUILT_MANIFEST
    manifest = json.loads(manifest_path.read_text())
    manifest_path.write_text(json.dumps({**manifest, "source_fingerprint": "0" * 64}))
    current, sentence = diskcache.prebuilt_state(tmp_path / "p")
    assert not current and "other code or data" in sentence
    manifest_path.write_text(json.dumps({**manifest, "runtime_versions": "python 2.7"}))
    current, sentence = diskcache.prebuilt_state(tmp_path / "p")
    assert not current and "python 2.7" in sentence


def test_shared_entries_refuses_what_cannot_tell_scenario_free_results(tmp_path):
    with pytest.raises(ValueError, match=r"folders=1 folder\(s\)"):
        diskcache.shared_entries([tmp_path])
    with pytest.raises(ValueError, match="is not a folder"):
        diskcache.shared_entries([tmp_path, tmp_path / "missing"])


def test_off_and_no_cache_read_nothing_prebuilt(monkeypatch, tmp_path):
    monkeypatch.setenv("LLMCOST_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("LLMCOST_PREBUILT_DIR", raising=False)
    assert cachedir.prebuilt_dir() == cachedir.PREBUILT_DIR == ROOT / "prebuilt"
    monkeypatch.setenv("LLMCOST_PREBUILT_DIR", "OFF")
    assert cachedir.prebuilt_dir() is None
    monkeypatch.setenv("LLMCOST_PREBUILT_DIR", str(tmp_path / "p"))
    monkeypatch.setenv("LLMCOST_CACHE_DIR", "off")  # no cache at all: nothing read either
    assert cachedir.prebuilt_dir() is None


def test_the_key_names_the_libraries_that_pickle_the_figures():
    # matplotlib's math-text layouts are kept as its own objects (plots.math_vector_layout)
    import matplotlib
    assert f"matplotlib {matplotlib.__version__}" in diskcache.runtime_versions()


@pytest.mark.skipif(not diskcache.prebuilt_state()[0],
                    reason="prebuilt/ is not current for this code (make prebuilt)")
def test_the_shipped_validation_table_is_the_one_the_code_computes(monkeypatch, tmp_path):
    # the repository's own prebuilt/, where current: its validation table (read, not computed,
    # by a fresh clone's first report) equals the step model's fresh computation
    fn = accuracy.validation_table.__wrapped__.uncached
    base = diskcache.base_key(fn, (), {})
    shipped = sorted(cachedir.PREBUILT_DIR.glob(f"validation_table-{base}-*.pickle"))
    assert shipped, "prebuilt/ holds no entry of validation_table()"
    # computed from nothing kept: an empty cache folder, nothing prebuilt read
    monkeypatch.setenv("LLMCOST_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("LLMCOST_PREBUILT_DIR", "off")
    fresh = fn()
    entry = diskcache._read(shipped[0])
    assert entry[0] == diskcache._FORMAT
    pd.testing.assert_frame_equal(entry[2], fresh)


def test_check_says_whether_prebuilt_is_current():
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "prebuilt_cache.py"),
                          "--check"], capture_output=True, text=True, cwd=ROOT)
    current, sentence = diskcache.prebuilt_state()
    assert run.returncode == (0 if current else 1), run.stderr
    assert sentence in run.stdout


def test_write_prebuilt_refuses_what_would_lose_entries(tmp_path, monkeypatch):
    _fill(tmp_path / "a", monkeypatch, 2, 3)
    names = sorted(p.name for p in (tmp_path / "a").glob("*.pickle"))
    with pytest.raises(ValueError, match="is the source folder"):
        diskcache.write_prebuilt(tmp_path / "a", names, tmp_path / "a")
    diskcache.write_prebuilt(tmp_path / "a", names[:1], tmp_path / "p")
    with pytest.raises(ValueError, match="names: 1 not in"):
        diskcache.write_prebuilt(tmp_path / "a", ["_square-0-0.pickle"], tmp_path / "p")
    # nothing was removed: the source and the earlier prebuilt folder as they were
    assert len(list((tmp_path / "a").glob("*.pickle"))) == 2
    assert [p.name for p in (tmp_path / "p").glob("*.pickle")] == names[:1]
    with pytest.raises(ValueError, match="given twice"):
        diskcache.shared_entries([tmp_path / "a", tmp_path / "a" / "."])
    with pytest.raises(ValueError, match="must be a list"):
        diskcache.shared_entries(tmp_path / "a")


def test_an_entry_of_other_code_is_not_read(layers, monkeypatch, tmp_path):
    own, shipped = layers
    _fill(tmp_path / "a", monkeypatch, 2)
    _fill(tmp_path / "b", monkeypatch, 2)
    diskcache.write_prebuilt(tmp_path / "a", diskcache.shared_entries(
        [tmp_path / "a", tmp_path / "b"]), shipped)
    monkeypatch.setenv("LLMCOST_CACHE_DIR", str(own))
    monkeypatch.setenv("LLMCOST_PREBUILT_DIR", str(shipped))
    calls.clear()
    monkeypatch.setattr(diskcache, "source_fingerprint", lambda: "f" * 64)  # the code changed
    assert _square(2) == 4 and calls == [2]
    assert not diskcache.prebuilt_state(shipped)[0]


def test_a_users_scenario_or_a_hidden_file_leaves_the_fingerprint():
    # a scenario saved beside the shipped ones, or a .DS_Store, made every entry stale; the
    # catalogues and the one scenario the code reads by itself (default.yaml) enter it
    data = diskcache.DATA_DIR
    assert diskcache.fingerprinted(data / "prices.csv")
    assert diskcache.fingerprinted(data / "scenarios" / "default.yaml")
    assert not diskcache.fingerprinted(data / "scenarios" / "my_run.yaml")
    assert not diskcache.fingerprinted(data / "scenarios" / "llama-3.1-405b.yaml")
    assert not diskcache.fingerprinted(data / ".DS_Store")
    assert not diskcache.fingerprinted(data / "scenarios" / ".default.yaml.swp")


def test_the_figures_keys_name_matplotlibs_own_fonts_by_their_place_in_it(tmp_path, monkeypatch):
    # a checkout whose virtual environment lies elsewhere (CI's clone, a symlinked .venv) has
    # the same matplotlib fonts at another absolute path: the same key, so that the figures'
    # prebuilt entries are read there; a font outside matplotlib keeps its absolute path
    import matplotlib
    from matplotlib import font_manager

    from llmcost.present import plots
    own = Path(matplotlib.get_data_path())

    def digest(data_path: Path, fname: Path) -> str:
        monkeypatch.setattr(matplotlib, "get_data_path", lambda: str(data_path))
        monkeypatch.setattr(font_manager.fontManager, "ttflist",
                            [font_manager.FontEntry(fname=str(fname), name="DejaVu Sans")])
        return plots._fonts_digest.__wrapped__()  # the process's memo left aside

    here = digest(own, own / "fonts" / "ttf" / "DejaVuSans.ttf")
    other = tmp_path / "clone" / ".venv" / "mpl-data"
    assert digest(other, other / "fonts" / "ttf" / "DejaVuSans.ttf") == here
    assert digest(other, tmp_path / "fonts" / "DejaVuSans.ttf") != here


def test_a_math_layout_reads_back_where_the_environment_lies_elsewhere(tmp_path, monkeypatch):
    # a kept layout names each glyph's font by its place (a font matplotlib ships by its path in
    # matplotlib's data folder), opened where this process's matplotlib keeps it: a layout that
    # held the builder's absolute path failed 10 of 12 notebooks of a checkout whose virtual
    # environment lay elsewhere (a review)
    import matplotlib
    from matplotlib.ft2font import LoadFlags

    from llmcost.present import plots
    own = Path(matplotlib.get_data_path())
    w, h, d, glyphs, rects = plots.math_vector_layout.uncached(
        r"$10^{3}$", 72, (("DejaVu Sans",), "normal", "normal", "normal", "normal", 10.0, None,
                          "dejavusans"), True, LoadFlags.NO_HINTING.value, (), "v")
    assert {g[0] for g in glyphs} == {"mpl-data/fonts/ttf/DejaVuSans.ttf"} and w > 0
    assert plots.font_file(glyphs[0][0]) == str(own / "fonts" / "ttf" / "DejaVuSans.ttf")
    other = tmp_path / "elsewhere" / "mpl-data"
    monkeypatch.setattr(matplotlib, "get_data_path", lambda: str(other))
    assert plots.font_file(glyphs[0][0]) == str(other / "fonts" / "ttf" / "DejaVuSans.ttf")
    assert plots.font_file("/usr/share/fonts/x.ttf") == "/usr/share/fonts/x.ttf"
