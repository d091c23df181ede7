"""The scenario matrix, rows 10-19 (rows 0-9 in test_scenario_matrix_a.py, so that the suite's
two workers share it): every notebook's computations run on each scenario the report accepts,
and a scenario it refuses gets one line naming the key (tests/scenario_matrix.py)."""

import pytest
from scenario_matrix import check_row

ROWS = range(10, 20)


@pytest.mark.parametrize("i", ROWS)
def test_matrix_row(i, tmp_path):
    check_row(i, tmp_path)
