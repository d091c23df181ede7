"""Every notebook has a jupytext text twin in notebooks/text/ that holds the same cells.

The twins make a notebook change reviewable as a text diff (``llmcost.twins``). Notebooks are
discovered by glob, so a new notebook without a twin fails here until its twin is written.
"""

import nbformat
import pytest

from llmcost import twins
from llmcost.present.report import NOTEBOOK_DIR, list_notebooks

NOTEBOOKS = list_notebooks()
FIX = f"run `{twins.FIX_COMMAND}` (writes every notebook's twin; `make notebooks` does too)"


def test_every_notebook_is_found():
    assert [p.stem for p in NOTEBOOKS][:2] == ["00_index", "01_flops"]


@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=lambda p: p.stem)
def test_twin_agrees_with_its_notebook(nb_path):
    problem = twins.twin_mismatch(nb_path)
    assert problem is None, f"{nb_path.name} and its text twin disagree ({problem}): {FIX}"


def test_no_twin_without_a_notebook():
    orphans = twins.orphan_twins(NOTEBOOK_DIR)
    assert not orphans, f"twins without a notebook: {[o.name for o in orphans]}: {FIX}"


def test_a_changed_cell_is_caught(tmp_path):
    """The check can fail: edit one cell of a copy and the pair no longer agrees."""
    src = NOTEBOOKS[1]
    copy = tmp_path / src.name
    copy.write_bytes(src.read_bytes())
    twins.write_twin(copy)
    assert twins.twin_mismatch(copy) is None
    nb = nbformat.read(copy, as_version=4)
    nb.cells[0].source += "\nOne more sentence."
    nbformat.write(nb, copy)
    assert "cell 0 differs" in twins.twin_mismatch(copy)
    twins.twin_path(copy).unlink()
    assert "missing" in twins.twin_mismatch(copy)


def test_twin_keeps_the_parameters_tag():
    text = twins.twin_path(NOTEBOOKS[1]).read_text(encoding="utf-8")
    assert '# %% tags=["parameters"]' in text
