"""Goodput of a run of finite length (``reliability.finite_run_breakdown``): Daly's (2006)
segments, k = ⌈T/τ⌉ − 1 checkpoints and none at the end, against hand derivations.

A new-user trial: a 32-minute fine-tune was charged checkpoint stalls at a 149-minute interval
(Daly's steady state, as if the run never ended); a run shorter than one interval takes none.
"""
import math

import numpy as np
import pytest

import llmcost
from llmcost.training import reliability as rel


def test_a_run_shorter_than_the_interval_takes_no_checkpoint_and_restarts_from_scratch():
    # By hand (Daly 2006, one segment of T with no checkpoint, R = 0): E[wall] = M·(e^{T/M} − 1),
    # T = 3,600 s, M = 36,000 s: goodput = 0.1 / (e^0.1 − 1) = 0.1 / 0.1051709 = 0.950833
    b = rel.finite_run_breakdown(3600.0, 9000.0, 120.0, 36_000.0)
    assert b.productive == pytest.approx(0.1 / math.expm1(0.1), rel=1e-12)
    assert b.productive == pytest.approx(0.950833, abs=1e-6)
    assert b.checkpoint == 0.0 and rel.checkpoints_in_run(3600.0, 9000.0) == 0
    assert b.total == pytest.approx(1.0, rel=1e-12)
    # the same as expected_wall_time_s with the interval the whole run and no checkpoint
    assert b.productive == pytest.approx(
        3600.0 / rel.expected_wall_time_s(3600.0, 3600.0, 0.0, 36_000.0), rel=1e-12)


def test_without_failures_a_run_pays_one_stall_per_checkpoint_it_takes():
    # M = inf: T = 10,000 s at τ = 3,000 s takes ⌈3.33⌉ − 1 = 3 checkpoints of δ = 100 s:
    # goodput 10,000 / 10,300 = 0.970874; the steady state would charge 100 / 3,100 per interval
    b = rel.finite_run_breakdown(10_000.0, 3000.0, 100.0, math.inf)
    assert rel.checkpoints_in_run(10_000.0, 3000.0) == 3
    assert b.productive == pytest.approx(10_000 / 10_300, rel=1e-12)
    assert b.checkpoint == pytest.approx(300 / 10_300, rel=1e-12)
    assert b.lost_work == pytest.approx(0.0, abs=1e-15) and b.restart == 0.0
    # a whole multiple: T = 3τ takes 2 (none at the end)
    assert rel.checkpoints_in_run(9000.0, 3000.0) == 2


def test_a_long_run_tends_to_dalys_steady_state():
    # T/τ → ∞: the relative difference is of order τ/T
    d, m, r = 60.0, 10_800.0, 600.0
    tau = rel.optimal_interval(d, m)
    steady = rel.goodput_breakdown(tau, d, m, r, 0.5)
    for ratio, tol in ((100, 2e-2), (10_000, 2e-4)):
        long = rel.finite_run_breakdown(ratio * tau, tau, d, m, r, 0.5)
        for part in ("productive", "checkpoint", "restart", "planned"):
            assert getattr(long, part) == pytest.approx(getattr(steady, part), rel=tol), part
        assert long.total == pytest.approx(1.0, rel=1e-12)


def test_the_interval_is_the_whole_split_of_least_expected_wall_time():
    # finite_run_interval against every k from 1 to 40, by brute force on the formula
    # T_w(k) = (k − 1)·E(T/k + δ) + E(T/k), E(x) = e^{R/M}·M·(e^{x/M} − 1)
    d, m, r = 200.0, 20_000.0, 300.0
    tau = rel.optimal_interval(d, m)
    for work in (0.3 * tau, 1.2 * tau, 2.5 * tau, 7.7 * tau, 19.5 * tau):
        def wall(k):
            e = lambda x: math.exp(r / m) * m * math.expm1(x / m)  # noqa: E731
            return (k - 1) * e(work / k + d) + e(work / k)
        best = min(range(1, 41), key=wall)
        assert rel.finite_run_interval(work, tau, d, m, r) == pytest.approx(work / best,
                                                                             rel=1e-12)
    # no failures: every checkpoint is a pure cost, so none
    assert rel.finite_run_interval(50_000.0, 3000.0, 100.0, math.inf) == 50_000.0
    # draws of the MTBF (a bill's Monte Carlo) give one interval each
    taus = rel.finite_run_interval(1e6, np.array([5e3, 9e3]), 60.0, np.array([1e5, 3e5]))
    assert taus.shape == (2,) and np.all(taus > 0)


def test_a_short_fine_tune_is_billed_no_checkpoint_stall():
    # the trial's kind of run: Llama 3.1 8B on 8 H100s for 2e8 tokens, under an hour of work
    bill = llmcost.build_ledger({"model": "llama-3.1-8b", "accelerator": "H100-SXM",
                                 "n_gpus": 8, "train_tokens": 2e8, "seq_len": 4096,
                                 "mfu": 0.4})
    work_s = bill.figures["main_ideal_gpu_hours"] * 3600 / 8
    assert work_s < 3600  # by hand: 2e8 × ~5.2e10 FLOP / (8 × 989.4e12 × 0.4) ≈ 3,300 s
    plan = rel.checkpoint_plan(llmcost.load_model("llama-3.1-8b").n_params, 8, 0.173,
                               bill.figures["ckpt_storage_bytes_per_s"], 600.0,
                               planned_per_day=0.87, node_bytes_per_s=5e10, run_s=work_s)
    assert plan.n_checkpoints == 0 and plan.breakdown.checkpoint == 0.0
    assert plan.interval_s == pytest.approx(work_s, rel=1e-12)  # k = 1: the whole run
    assert bill.figures["goodput"] == pytest.approx(float(plan.goodput), rel=1e-9)
    assert rel.checkpoint_interval_words(plan.interval_s, work_s).startswith(
        "no checkpoint during the run's")
    # the steady state (no run length) would have charged a stall every interval
    steady = rel.checkpoint_plan(llmcost.load_model("llama-3.1-8b").n_params, 8, 0.173,
                                 bill.figures["ckpt_storage_bytes_per_s"], 600.0,
                                 planned_per_day=0.87, node_bytes_per_s=5e10)
    assert steady.breakdown.checkpoint > 0 and steady.interval_s > work_s


def test_bad_run_lengths_are_refused_with_the_field_named():
    with pytest.raises(ValueError, match="run_s"):
        rel.finite_run_breakdown(0.0, 100.0, 10.0, 1e5)
    with pytest.raises(ValueError, match="run_s"):
        rel.checkpoint_plan(8e9, 8, 0.173, None, 600.0, run_s=-5.0)
    with pytest.raises(ValueError, match="run_s"):
        rel.finite_run_interval(float("nan"), 100.0, 10.0, 1e5)


def test_a_short_fine_tune_line_has_its_own_runs_goodput():
    # A review: a minute-long SFT on the default scenario's 2,048 GPUs was charged the main
    # run's goodput (96.7%: its checkpoint stalls and lost work over 13 days). By hand: the
    # line is ideal ÷ g, ideal = tokens × F ÷ (peak × MFU) ÷ 3600, g the goodput of a run of
    # ideal ÷ 2,048 hours of work on the bill's checkpoint plan (no checkpoint in a minute)
    from llmcost.bill import ledger
    bill = ledger.build_ledger({"price_usd_per_gpu_hour": 3.0, "ledger_sft_tokens": 1e8})
    spec = llmcost.load_model(bill.scenario["model"])
    fpt = llmcost.model_flops_per_token(spec, bill.scenario["seq_len"])
    ideal = 1e8 * fpt / (989.4e12 * bill.figures["mfu"]) / 3600
    plan = rel.checkpoint_plan(spec.n_params, 2048, 0.173,
                               bill.figures["ckpt_storage_bytes_per_s"], 600.0,
                               gpus_per_node=8, node_bytes_per_s=5e10, planned_per_day=0.87,
                               run_s=ideal * 3600 / 2048)
    assert plan.n_checkpoints == 0
    g = float(plan.goodput)
    assert bill.line("post.sft").usd == pytest.approx(ideal / g * 3.0, rel=1e-6)
    assert g > bill.figures["goodput"]   # the main run's, with its stalls and lost work
