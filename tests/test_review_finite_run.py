"""Review of the finite-run goodput change (h57-review): places that still price a run as if
it never ended, although its length T is known. Both tests fail on 1cf2e718.

By hand (Daly 2006): the bill's goodput is ``finite_run_breakdown``'s, ⌈T/τ⌉ − 1 checkpoints;
the storage trade-off that sizes the bill's bandwidth (and notebook 07 §7's table) and the
retention policy that sizes its hot tier should use the same run.
"""
import math

import pytest

import llmcost
from llmcost import ledger
from llmcost.bill import levers
from llmcost.training import reliability as rel

# Llama 2 7B on 64 H100s for 2e10 tokens: 647 ideal GPU-hours, about 10 h of work (36,390 s),
# two segments of ~303 min and one checkpoint between them.
SHORT = {"model": "llama-2-7b", "accelerator": "H100-SXM", "n_gpus": 64,
         "train_tokens": 2.0e10, "seq_len": 4096, "mfu": 0.4,
         "price_usd_per_gpu_hour": 3.99, "global_batch_tokens": 4194304}


def test_the_storage_tradeoff_row_at_the_bills_bandwidth_has_the_bills_goodput():
    bill = ledger.build_ledger(SHORT)
    bw = bill.figures["ckpt_storage_bytes_per_s"]
    spec = llmcost.load_model("llama-2-7b")
    p = ledger.failure_values(ledger._values(SHORT), 8)
    t = rel.scenario_storage_tradeoff(p, spec.n_params, bill.figures["main_ideal_gpu_hours"],
                                      bill.figures["price_usd_per_gpu_hour"], 8, also=[bw])
    # the same job, the same storage: one goodput (seen: 98.38% steady state against the
    # bill's 98.61%, so 07 §7 prints a lost-GPU-time figure the bill's failures line does not)
    assert t.loc[bw, "goodput"] == pytest.approx(bill.figures["goodput"], rel=1e-9)
    assert t.loc[bw, "lost_usd"] == pytest.approx(bill.line("compute.failures").usd, rel=1e-9)


def test_every_checkpoint_kept_hot_holds_what_the_run_writes():
    # keep_last 0: the hot tier holds every checkpoint; the plan writes ⌈T/τ⌉ − 1 of them (plus
    # at most one per planned stop); retention_storage_cost counted wall days × 86,400 / τ
    s = {**SHORT, "ckpt_keep_last": 0, "fail_rate_per_gpu_year": 2.0}
    bill = ledger.build_ledger(s)
    plan = levers.checkpoint_plan_of(s)
    days = bill.figures["wall_clock_days"]
    written = float(plan.n_checkpoints) + 0.87 * days  # planned stops checkpoint on demand
    # the bill passes the plan's count (ledger._checkpoint_storage_line: n_checkpoints); without
    # it the function's own default, wall days × 86,400 / τ, counts restarts' rework too
    st = rel.retention_storage_cost(float(plan.size.total_bytes), days, plan.interval_s, 0, 7.0,
                                    12.0, 0.1, 0.001, n_checkpoints=plan.n_checkpoints)
    assert float(st["checkpoints"].iloc[0]) == float(plan.n_checkpoints) <= written + 1e-9
    steady = rel.retention_storage_cost(float(plan.size.total_bytes), days, plan.interval_s, 0,
                                        7.0, 12.0, 0.1, 0.001)
    assert float(steady["checkpoints"].iloc[0]) > written


def test_new_helpers_refuse_bad_input_by_name():
    with pytest.raises(ValueError, match="interval_s"):
        rel.checkpoint_interval_words(-5)
    with pytest.raises(ValueError, match="run_s"):
        rel.checkpoint_interval_words(60.0, run_s=0.0)
    with pytest.raises(ValueError, match="breakdown"):
        rel.lost_time_words(None)


def test_a_waterfall_without_failures_takes_no_checkpoint():
    # run_reliability at M = inf asked optimal_interval for an infinite τ* and refused it; by
    # hand: no failures, so every checkpoint is a cost and the run takes none (k = 1): goodput 1
    wf = rel.run_reliability(1e5, 1024, 60.0, math.inf, 600.0)
    assert wf.attrs["goodput"] == 1.0
    assert wf.attrs["interval_s"] == pytest.approx(1e5 * 3600 / 1024, rel=1e-12)


def test_the_interval_table_counts_each_rows_checkpoints():
    # rows past the run's end took none and priced alike, unlabelled
    p = {"n_gpus": 64, "fail_rate_per_gpu_year": 0.173, "ckpt_restart_s": 600.0,
         "ckpt_recipe": "bf16-adam", "ckpt_node_bytes_per_s": 5e10,
         "ckpt_d2h_bytes_per_s": 5e10, "ckpt_async": False, "fail_planned_per_day": 0.87,
         "ckpt_interval_s": None, "ckpt_storage_bytes_per_s": 1e9}
    df = rel.interval_sensitivity(p, 6.74e9, 8, 647.0, 3.99)
    assert all("checkpoint" in x for x in df["interval"])
    assert df["interval"].iloc[-1].endswith(", 0 checkpoints)")


@pytest.mark.parametrize("async_", [False, True])
def test_the_storage_curve_of_a_finite_run_is_checkpoint_plans(async_):
    # the curve for a run of T is computed from the steady-state plans, vectorised over the
    # bandwidths (one cached set per job); each row must be checkpoint_plan(..., run_s=T)'s
    opts = {"recipe": "bf16-adam", "gpus_per_node": 8, "node_bytes_per_s": 5e10,
            "d2h_bytes_per_s": 5e10, "async_": async_, "planned_per_day": 0.87,
            "interval_s": None, "run_s": 3.6e4}
    bws = (3e8, 1e9, 1e10, 1e11)
    curve = rel._goodput_curve_of(6.74e9, 64, 0.173, 600.0, bws, tuple(sorted(opts.items())))
    assert len(curve) == len(bws)
    for b, g, size, tau in curve:
        plan = rel.checkpoint_plan(6.74e9, 64, 0.173, b, 600.0, **opts)
        assert g == pytest.approx(float(plan.goodput), rel=1e-12)
        assert tau == pytest.approx(float(plan.interval_s), rel=1e-12)
