"""Half 1 of 2 of the JupyterLab browser test (every other notebook, from the first);
the checks, the server and the browser are in tests/_lab.py, whose docstring says what is checked.
"""

import pytest

from llmcost import report

from _browser import requires_browser
from _lab import half, lab, lab_page, run_and_explore  # noqa: F401 (lab, lab_page: fixtures)

pytestmark = [requires_browser, pytest.mark.notebook]


@pytest.mark.parametrize("nb", half(0), ids=lambda p: p.stem)
def test_notebook_runs_and_explores_in_jupyterlab(lab, lab_page, nb):
    seen = run_and_explore(lab, lab_page, nb)
    # a notebook with an `interactive` parameter has an Explore control that moves its output;
    # one without has no widgets; neither leaves an error after the run or the move
    assert seen["explored"] == ("interactive" in report.declared_parameters(nb))
    assert seen["changed"] or not seen["explored"]
    assert seen["errors"] == []
