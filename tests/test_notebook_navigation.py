"""Every numbered notebook links, at its top and at its end, to the index, the notebook before it
and the one after it, in reading order (a reader who finishes 09 goes to 10, not back to 07);
and every code cell but the parameters cell is short enough to follow."""

import json
import re
from pathlib import Path

import pytest

from llmcost.present.numbering import numbered_files

NOTEBOOKS = numbered_files(Path(__file__).parent.parent / "notebooks")


def _cells(path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _links(text):
    return re.findall(r"\]\((\d\d[a-z]?_[a-z_]+\.ipynb)\)", text)


def _nav(text):
    paras = [p for p in text.split("\n\n") if p.lstrip().startswith("[← 00 · Index]")]
    assert len(paras) == 1, text[-300:]
    return paras[0]


@pytest.mark.parametrize("i", range(1, len(NOTEBOOKS)), ids=[p.stem for p in NOTEBOOKS[1:]])
def test_header_and_footer_link_in_order(i):
    cells = _cells(NOTEBOOKS[i])
    want = ["00_index.ipynb", NOTEBOOKS[i - 1].name] + (
        [NOTEBOOKS[i + 1].name] if i + 1 < len(NOTEBOOKS) else [])
    head = "".join(cells[0]["source"])
    foot = "".join(cells[-1]["source"])
    assert cells[-1]["cell_type"] == "markdown"
    assert _links(_nav(head)) == want
    assert _links(_nav(foot)) == want


def test_part_headings_match_their_takeaways():
    # a "Takeaways of Part X" needs a "Part X" heading in the same notebook
    for path in NOTEBOOKS:
        text = "\n".join("".join(c["source"]) for c in _cells(path) if c["cell_type"] == "markdown")
        for part in re.findall(r"Takeaways of Part ([IVX]+)", text):
            assert re.search(rf"^#+ Part {part}\b", text, re.M), (path.name, part)


def test_a_lettered_notebook_reads_after_its_number():
    # 04b (the step-time model) follows 04 (communication): in the listing, in `--notebooks`,
    # and in the numbers the report and the scenario matrix key notebooks by
    from llmcost.present.numbering import notebook_number
    from llmcost.present.report import list_notebooks

    stems = [p.stem for p in NOTEBOOKS]
    assert stems.index("04b_step_time") == stems.index("04_communication") + 1
    assert stems.index("05_rl_loop") == stems.index("04b_step_time") + 1
    assert [nb.stem for nb in list_notebooks(["04b"])] == ["04b_step_time"]
    assert [nb.stem for nb in list_notebooks(["04"])] == ["04_communication"]
    assert [nb.stem for nb in list_notebooks(["4"])] == ["04_communication"]
    # as a reader writes them: "4b" as "4" is 04, and the name after the number
    assert [nb.stem for nb in list_notebooks(["4b", "savings", "step_time"])] == [
        "04b_step_time", "09_savings"]
    assert notebook_number("04b_step_time") == "04b" and notebook_number("10_glossary") == "10"
    with pytest.raises(ValueError, match="stem='notes'"):
        notebook_number("notes")


#: The notebook conventions' limit on a code cell: a reader follows one step at a time and the
#: package computes. The parameters cell is exempt: papermill's convention is one parameter per
#: line, each with its comment, and a notebook takes every scenario key it reads.
MAX_CELL_LINES = 15


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_code_cells_stay_short(path):
    cells = _cells(path)
    long = [(i, len("".join(c["source"]).splitlines())) for i, c in enumerate(cells)
            if c["cell_type"] == "code" and "parameters" not in c["metadata"].get("tags", [])
            and len("".join(c["source"]).splitlines()) > MAX_CELL_LINES]
    assert not long, f"{path.name}: code cells over {MAX_CELL_LINES} lines (index, lines): {long}"
