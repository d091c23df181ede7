"""On spot, notebook 07 prices the bill's own pre-emptions: one goodput, one failures cost and one
checkpoint storage on every page. A new-user trial (Qwen3-30B-A3B on 128 H100s, `pricing: spot`)
read goodput 97.3%, failures $77.0k and storage $34.4k in notebook 07 (and the index's rows taken
from it) beside the bill's 87.9%, $382k and $120k on the same index: 07 built its checkpoint plan
from the failure rate alone, and its spot verdict compared the spot bill with itself."""

import pytest
from _inprocess import run_in_process

import llmcost
from llmcost import ledger
from llmcost import reliability as rel
from llmcost.bill.scenario import LEDGER_DEFAULTS, ScenarioError
from llmcost.present.numbering import NOTEBOOK_DIR

YEAR_S = 365.25 * 86400
#: A user's spot figures (the workbook has no default: no provider publishes a per-node rate):
#: each 8-GPU node pre-empted once a week, 30 minutes to regain capacity and restart
WEEKLY, SPOT_RESTART_S = 0.142857, 1800.0
SPOT_RATE = {"ledger_spot_preemptions_per_node_day": WEEKLY,
             "ledger_spot_restart_s": SPOT_RESTART_S}
#: data/prices.csv: CoreWeave's H100 spot list price, $19.71 per 8-GPU node-hour / 8, the only
#: current spot row (the catalogue median); its on-demand HGX H100 node $49.24/h / 8 = $6.155
H100_SPOT = 19.71 / 8


def test_failure_values_by_hand():
    p = llmcost.validate_parameters(**{**LEDGER_DEFAULTS, "pricing": "spot",
                                       "price_usd_per_gpu_hour": None, **SPOT_RATE})
    q = ledger.failure_values(p, 8)
    # λ = 0.173 per GPU-year (Llama 3) + 0.142857 pre-emptions per node-day × 365.25 ÷ 8 GPUs
    assert q["fail_rate_per_gpu_year"] == pytest.approx(0.173 + WEEKLY * 365.25 / 8, rel=1e-9)
    assert q["fail_rate_per_gpu_year"] == pytest.approx(6.695, abs=5e-4)
    assert q["ckpt_restart_s"] == SPOT_RESTART_S and p["ckpt_restart_s"] == 600.0  # a copy
    given = ledger.failure_values({**p, "ledger_spot_preemptions_per_node_day": 0.5,
                                   "ledger_spot_restart_s": 900.0}, 4)
    assert given["fail_rate_per_gpu_year"] == pytest.approx(0.173 + 0.5 * 365.25 / 4, rel=1e-12)
    assert given["ckpt_restart_s"] == 900.0
    on = {**p, "pricing": "on_demand", "price_usd_per_gpu_hour": 3.99}
    assert ledger.failure_values(on, 8) == on  # off spot: the scenario's own failure model
    assert ledger.spot_preemptions_per_node_day(on) == pytest.approx(WEEKLY, rel=1e-12)
    # without the rate a spot bill is refused, naming the key (no published per-node rate)
    with pytest.raises(ScenarioError, match="needs ledger_spot_preemptions_per_node_day"):
        ledger.failure_model({**p, "ledger_spot_preemptions_per_node_day": None}, 8)


@pytest.fixture(scope="module")
def spot_07():
    """Notebook 07 run in process on the default scenario (Llama 2 70B, 2,048 H100s, 2T tokens,
    MFU 40%) rented on spot at the catalogue median, and the bill of the same scenario."""
    ns = {"__name__": "__main__", "display": lambda *a, **k: None}
    printed = run_in_process(NOTEBOOK_DIR / "07_checkpoints.ipynb",
                             {"pricing": "spot", "price_usd_per_gpu_hour": None,
                              "interactive": False, **SPOT_RATE}, ns=ns)
    return ns, printed, ledger.build_ledger(ns["scenario"])


def test_notebook_07_prices_the_bills_own_preemptions(spot_07):
    ns, _, bill = spot_07
    plan, f = ns["plan"], bill.figures
    assert ns["price"] == pytest.approx(H100_SPOT, rel=1e-9) == f["price_usd_per_gpu_hour"]
    # the job's MTBF at the spot rate: 1 year ÷ (2,048 × 6.6953) = 2,301.5 s, not the 89,069 s
    # of the failure rate alone
    lam = 0.173 + WEEKLY * 365.25 / 8
    assert plan.mtbf_s == pytest.approx(YEAR_S / (2048 * lam), rel=1e-6)
    assert plan.mtbf_s == pytest.approx(2301.5, abs=0.5)
    assert plan.restart.overhead_s == SPOT_RESTART_S
    # one goodput, one failures cost, one storage cost: notebook 07's are the bill's lines
    assert ns["run"]["gpu_hours"] == pytest.approx(f["main_ideal_gpu_hours"], rel=1e-9)
    assert plan.goodput == pytest.approx(f["goodput"], rel=1e-9)
    assert ns["wf"].attrs["goodput"] == pytest.approx(f["goodput"], rel=1e-9)
    assert ns["paid"]["gpu_hours"] == pytest.approx(f["paid_gpu_hours"], rel=1e-9)
    assert ns["lost_usd"] == pytest.approx(bill.line("compute.failures").usd, rel=1e-9)
    assert ns["scen_storage"] == pytest.approx(bill.line("storage.checkpoints").usd, rel=1e-9)
    assert ns["p"]["ckpt_storage_bytes_per_s"] == pytest.approx(f["ckpt_storage_bytes_per_s"],
                                                                rel=1e-12)
    # and the pre-emptions cost: spot's goodput is below the same run's on demand
    assert f["goodput"] < ledger.with_changes(bill, pricing="on_demand").figures["goodput"] - 0.05


def test_spot_verdict_on_a_spot_bill_compares_with_on_demand(spot_07):
    _, printed, bill = spot_07
    od = ledger.with_changes(bill, pricing="on_demand", price_usd_per_gpu_hour=None).figures
    assert od["price_usd_per_gpu_hour"] == pytest.approx(49.24 / 8, rel=1e-9)  # CoreWeave's
    lines = ledger.spot_verdict(bill)
    assert lines[0].startswith("without resumable training") and "never finishes" in lines[0]
    f = bill.figures
    assert lines[1].startswith("the scenario is already on spot: ")
    assert f"goodput {f['goodput']:.1%}" in lines[1] and f"goodput {od['goodput']:.1%}" in lines[1]
    assert f"at ${H100_SPOT:.2f}/GPU-h" in lines[1] and "catalogue spot median" not in lines[1]
    # spot pays iff its final run costs less than the same run on demand
    pays = f["final_run_usd"] < od["final_run_usd"]
    assert pays == rel.spot_pays(od["price_usd_per_gpu_hour"], od["goodput"],
                                 f["price_usd_per_gpu_hour"], f["goodput"])
    assert lines[1].endswith("spot pays here" if pays else "spot does not pay here")
    assert lines[1] in printed  # notebook 07 prints the bill's verdict


def test_notebook_07s_computations_without_jupyter_agree(spot_07):
    # results.notebook_results mirrors 07's set-up (the scenario matrix tests it): the same plan
    from llmcost.present.results import notebook_results
    ns, _, bill = spot_07
    got = notebook_results("07", ns["scenario"])
    assert got["plan_goodput"] == pytest.approx(bill.figures["goodput"], rel=1e-9)
    assert got["interval_s"] == pytest.approx(ns["plan"].interval_s, rel=1e-9)
