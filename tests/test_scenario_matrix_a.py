"""The scenario matrix, rows 0-9 (rows 10-19 in test_scenario_matrix_b.py, so that the suite's
two workers share it): every notebook's computations run on each scenario the report accepts,
and a scenario it refuses gets one line naming the key (tests/scenario_matrix.py)."""

import pytest
from scenario_matrix import FACTORS, all_pairs, check_row, pairwise_rows, row_pairs

from llmcost.present.numbering import notebook_number
from llmcost.present.report import list_notebooks
from llmcost.present.results import NOTEBOOK_RESULTS

ROWS = range(10)


def test_the_matrix_covers_every_pair_in_at_most_20_scenarios():
    rows = pairwise_rows()
    assert len(rows) <= 20
    assert all_pairs() - set().union(*map(row_pairs, rows)) == set()
    for k, levels in FACTORS.items():  # every level of every factor appears
        assert {r[k] for r in rows} == set(levels)


def test_every_notebook_has_its_computations():
    assert sorted(NOTEBOOK_RESULTS) == [notebook_number(nb.stem) for nb in list_notebooks()]


@pytest.mark.parametrize("i", ROWS)
def test_matrix_row(i, tmp_path):
    check_row(i, tmp_path)
