"""The test vectors the tests cite live in tests/data/test_vectors.csv, each with its inputs, the
expected values and their source, so a reader of the repository can check them. This test keeps
the citations and the file in step."""

import csv
import re
from pathlib import Path

HERE = Path(__file__).parent
VECTORS = HERE / "data" / "test_vectors.csv"


def _rows():
    with VECTORS.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_every_vector_has_inputs_values_and_a_source():
    rows = _rows()
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids))
    for r in rows:
        assert r["inputs"] and r["expected"] and r["tag"] and r["source"], r["id"]


def test_every_cited_vector_is_in_the_file():
    known = {r["id"] for r in _rows()}
    cited = set()
    for path in HERE.glob("test_*.py"):
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"test vectors? (\d\.[a-z])((?:[-/–]\d?\.?[a-z])*)", text):
            cited.add(m.group(1))
            for extra in re.findall(r"[-/–](\d?\.?[a-z])", m.group(2)):
                cited.add(extra if "." in extra else m.group(1)[:2] + extra)
        if path.name != "test_vectors.py":
            assert "formulas" + ".md" not in text, f"{path.name} cites a file outside the repo"
    assert cited, "no test vector is cited"
    assert cited <= known, sorted(cited - known)
