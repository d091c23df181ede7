"""How fast is the plan space? GPT-3 175B on 1,024 A100-80GB, global batch 1,536 sequences.

Enumerates TP × PP (DP derived) × virtual stages × micro-batch size × ZeRO stage × recompute
mode × pipeline schedule, every candidate checked against the plan rules, with per-GPU memory,
fits flag and pipeline bubble for every valid plan (``llmcost.enumerate_plans``), and prints
candidates per second. In the same run it measures a naive per-plan Python loop (build each
``ParallelPlan`` with ``make_plan``, catch the broken rule, ``memory_per_gpu`` and the bubble) on
a random sample, extrapolates it to the whole grid, checks that both paths agree, and prints the
ratio. For scale, Calculon was measured at about 212 candidate evaluations per second per
core (4.7 ms each, 2-core VM); Calculon's per-candidate model (time as well as memory) does more
work than memory alone, so that comparison is indicative, not like for like.
"""

import os
import time

import numpy as np

import llmcost
from _shared import CALCULON_EVALS_PER_S_PER_CORE, best_of, make_plan_from_row
from llmcost import memory, parallel



def per_plan(model, n_gpus, gb, row):
    """The naive path: one plan at a time through the public per-plan API."""
    try:
        plan = make_plan_from_row(model, n_gpus, gb, row)
    except parallel.PlanError as e:
        return e.rule, None, None
    dup = parallel.duplicate_rule(plan)
    if dup:
        return dup, None, None
    mb = memory.memory_per_gpu(model, plan, model.seq_len)
    return "", mb.total, plan.bubble_fraction()


def main():
    model = llmcost.load_model("gpt-3-175b")
    cluster = llmcost.Cluster(llmcost.load_accelerator("A100-80GB"), 1024)
    gb = 1536

    t_best, t_first, plans = best_of(lambda: parallel.enumerate_plans(model, cluster, gb))
    n_cand, n_valid = plans.attrs["n_candidates"], plans.attrs["n_valid"]
    t_rej_best, t_rej_first, grid = best_of(
        lambda: parallel.enumerate_plans(model, cluster, gb, include_rejected=True))

    rng = np.random.default_rng(0)
    k = 5_000
    sample = rng.choice(len(grid), k, replace=False)
    rows = grid.iloc[sample].to_dict("records")
    t0 = time.perf_counter()
    loop = [per_plan(model, cluster.n_gpus, gb, r) for r in rows]
    t_loop = (time.perf_counter() - t0) * n_cand / k
    for r, (rule, total, bubble) in zip(rows, loop):  # both paths must agree
        assert rule == r["rejected_rule"], (r, rule)
        if total is not None:
            assert np.isclose(total, r["memory_bytes"], rtol=1e-12)
            assert np.isclose(bubble, r["bubble_fraction"], rtol=1e-12)

    # The same loop over valid plans only (each one pays for memory and bubble).
    valid_rows = plans.iloc[rng.choice(len(plans), 2_000, replace=False)].to_dict("records")
    t0 = time.perf_counter()
    for r in valid_rows:
        per_plan(model, cluster.n_gpus, gb, r)
    t_valid_loop = (time.perf_counter() - t0) / len(valid_rows)

    fits = int(plans["fits"].sum())
    print(f"GPT-3 175B on {cluster.n_gpus:,} x {cluster.accelerator.name}, global batch {gb} "
          f"sequences of {model.seq_len} tokens (CPU cores: {os.cpu_count()})")
    print(f"candidates: {n_cand:,}  valid plans: {n_valid:,}  fitting in "
          f"{cluster.accelerator.hbm_bytes / 1e9:.0f} GB with a "
          f"{memory.DEFAULT_RESERVE:.0%} reserve: {fits:,}")
    print(f"vectorised, valid plans with memory: {t_best:.3f} s best of 3 (first run "
          f"{t_first:.3f} s) = {n_cand / t_best:,.0f} candidates/s, {n_valid / t_best:,.0f} "
          "valid plans/s")
    print(f"vectorised, every candidate with its rejection rule: {t_rej_best:.3f} s best of 3 "
          f"(first run {t_rej_first:.3f} s) = {n_cand / t_rej_best:,.0f} candidates/s")
    print(f"naive per-plan Python loop (extrapolated from {k:,} random candidates): "
          f"{t_loop:,.1f} s = {n_cand / t_loop:,.0f} candidates/s")
    print(f"naive loop over valid plans only: {t_valid_loop * 1e6:,.0f} us per plan = "
          f"{1 / t_valid_loop:,.0f} valid plans/s ({n_valid * t_valid_loop:.1f} s for the "
          f"{n_valid:,}); vectorised: {n_valid / t_best:,.0f} valid plans/s "
          f"({t_valid_loop * n_valid / t_best:,.0f}x)")
    print(f"speed-up over the loop: {t_loop / t_best:,.0f}x (valid plans), "
          f"{t_loop / t_rej_best:,.0f}x (with rejection rules)")
    calculon_s = n_cand / CALCULON_EVALS_PER_S_PER_CORE / 2
    print(f"Calculon at ~{CALCULON_EVALS_PER_S_PER_CORE} evaluations/s/core on 2 cores "
          f"(measured, 2-core VM) would need ~{calculon_s / 60:,.0f} min for as many candidates "
          f"({calculon_s / t_best:,.0f}x longer; it also models step time)")


if __name__ == "__main__":
    main()
