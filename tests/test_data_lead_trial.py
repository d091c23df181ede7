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


def test_the_project_lasts_while_its_people_are_paid():
    # the trial's operations were billed for the 2.1-month compute schedule beside 25 staff paid
    # for 9 months; by hand: operations = 9 months x $50,000 = $450,000
    from llmcost.bill import ledger
    sc = {"n_gpus": 1024, "train_tokens": 1e12, "mfu": 0.4, "price_usd_per_gpu_hour": 3.99,
          "ledger_operations_usd_per_month": 5e4,
          "ledger_people": [{"role": "staff", "fte": 25, "months": 9}]}
    bill = ledger.build_ledger(sc)
    assert bill.figures["project_months"] == 9 and bill.figures["project_months_basis"] == "roles"
    assert bill.line("ops.operations").usd == pytest.approx(450_000)
    # a role shorter than the compute schedule leaves it the schedule's
    short = ledger.build_ledger({**sc, "ledger_people": [{"role": "staff", "fte": 25,
                                                          "months": 0.1}]})
    assert short.figures["project_months_basis"] in ("schedule", "run")
    assert short.figures["project_months"] > 0.1
