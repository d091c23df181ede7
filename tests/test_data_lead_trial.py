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


def test_a_role_without_pay_is_told_the_frontier_lab_figure_it_takes(tmp_path):
    # a PI's 3 PhD students and a postdoc, no usd_per_year, were billed $3.55M at $444,245 per
    # FTE-year (data/ledger_defaults.csv: Epoch's mean loaded cost, Cottier et al. 2024) with
    # no word; by hand 3 FTE x 2 years x $444,245 = $2,665,470
    from llmcost.present import glance
    from llmcost.present.report import estimate_ledger
    path = tmp_path / "pi.yaml"
    path.write_text("model: llama-2-7b\naccelerator: A100-40GB\nn_gpus: 64\ntrain_tokens: 1e12\n"
                    "mfu: 0.4\nledger_rl: false\nledger_people:\n"
                    "  - {role: phd, fte: 3, months: 24}\n"
                    "  - {role: postdoc, fte: 1, months: 24, usd_per_year: 90000}\n")
    bill = estimate_ledger(path)
    (w,) = [x for x in bill.warnings if x.startswith("ledger_people: phd without usd_per_year")]
    assert "is paid $444k per FTE-year" in w
    assert glance.caveat_line(w) == ("phd: paid $444k per FTE-year, frontier-lab pay, unless "
                                     "usd_per_year is given")
    assert bill.line("people.staff").usd == pytest.approx(3 * 2 * 444_245 + 2 * 90_000)
    paid = tmp_path / "paid.yaml"
    paid.write_text(path.read_text().replace("{role: phd, fte: 3, months: 24}",
                                             "{role: phd, fte: 3, months: 24, usd_per_year: 4e4}"))
    assert not [x for x in estimate_ledger(paid).warnings if "without usd_per_year" in x]
