"""Half 1 of 2 of the JupyterLab browser test (every other notebook, from the first);
the checks, the server and the browser are in tests/_lab.py, whose docstring says what is checked.
"""

import pytest

from _browser import requires_browser
from _lab import half, lab, lab_page, run_and_explore  # noqa: F401 (lab, lab_page: fixtures)

pytestmark = [requires_browser, pytest.mark.notebook]


@pytest.mark.parametrize("nb", half(0), ids=lambda p: p.stem)
def test_notebook_runs_and_explores_in_jupyterlab(lab, lab_page, nb):
    run_and_explore(lab, lab_page, nb)
