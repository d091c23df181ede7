"""What a data and operations lead's trial found: a role priced at $0 without a word."""

import pytest

from llmcost.bill.scenario import ScenarioError, validate_parameters


@pytest.mark.parametrize("role", [{"role": "r", "fte": 25, "months": 0},
                                  {"role": "r", "fte": 0},
                                  {"role": "r", "fte": 2, "usd_per_year": 0}])
def test_a_role_of_no_people_months_or_pay_is_refused_with_why(role):
    # the trial's `ledger_people: [{role: r, fte: 25, months: 0}]` billed people $0.00 as
    # "modelled": 25 FTE x 0 months x $444k = $0
    key = next(k for k, v in role.items() if v == 0)
    with pytest.raises(ScenarioError, match=rf"^ledger_people\[0\]\.{key}=0\.0 must be > 0: a "
                                            r"role of 0 people, months or pay adds \$0"):
        validate_parameters(ledger_people=[role])
    assert validate_parameters(ledger_people=[{"role": "r", "fte": 0.5, "months": 1}])[
        "ledger_people"] == [{"role": "r", "fte": 0.5, "months": 1.0}]
