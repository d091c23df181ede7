"""How fast is ranking the plan space by predicted step time? GPT-3 175B on 1,024 A100-80GB,
global batch 1,536 sequences.

``llmcost.rank_plans`` enumerates every combination of TP × PP (DP derived) × virtual stages ×
micro-batch size × ZeRO stage × recomputation × schedule (``enumerate_plans``: rules and memory
as numpy masks over the grid), keeps the plans that fit with TP inside the NVLink domain, and
predicts the step time of all of them in one vectorised call (``step.step_arrays``). It prints
candidates per second. In the same run it measures the naive path, one plan at a time through
the public per-plan API (``make_plan`` + ``memory_per_gpu`` + ``step_time``), on a random sample
of the fitting plans, extrapolates it to the whole space, checks that both paths give the same
step times, and prints the ratio. For scale, Calculon (which models step time per candidate
too, in more detail) was measured in this project's survey of peer tools at about 212 candidate
evaluations per second per core on a 2-core VM.

The same ranking with Calculon's extra dimensions (sequence parallelism on/off,
three TP-overlap modes, DP overlap on/off), pruned (TP above the NVLink domain is not
enumerated; dominated overlap modes are not evaluated, ``step.TP_OVERLAP_DOMINANCE``) against
the unpruned evaluation of every combination, measured in the same run; and the same pruned
ranking with hybrid sharding's shard sizes added (``fsdp_shard_size="auto"``), in the same run.
"""

import os
import time

import numpy as np

import llmcost
from _shared import CALCULON_EVALS_PER_S_PER_CORE, best_of, make_plan_from_row
from llmcost import memory, parallel, step



def per_plan(model, cluster, gb, row):
    """The naive path: build, check memory and predict one plan at a time."""
    plan = make_plan_from_row(model, cluster.n_gpus, gb, row)
    memory.memory_per_gpu(model, plan, model.seq_len)
    return step.step_time(model, cluster, plan,
                          missing_features="price").step_time_s   # every plan, as rank_plans


def main():
    model = llmcost.load_model("gpt-3-175b")
    cluster = llmcost.Cluster(llmcost.load_accelerator("A100-80GB"), 1024)
    gb = 1536

    t_best, t_first, ranked = best_of(lambda: step.rank_plans(model, cluster, gb))
    n_cand, n_valid = ranked.attrs["n_candidates"], ranked.attrs["n_valid"]
    n_rank = len(ranked)

    rng = np.random.default_rng(0)
    sample = ranked.iloc[rng.choice(n_rank, min(300, n_rank), replace=False)]
    t0 = time.perf_counter()
    loop = [per_plan(model, cluster, gb, r) for r in sample.to_dict("records")]
    per = (time.perf_counter() - t0) / len(sample)
    assert np.allclose(loop, sample["step_time_s"], rtol=1e-9)   # both paths agree
    t_loop_ranked = per * n_rank

    # Calculon's dimensions on top (Isaev et al. 2023, Calculon, SC'23): sequence parallelism on/off, three TP-overlap
    # modes, DP overlap on/off. The pruned ranking evaluates only the modes that can win (a
    # dominated overlap mode is never faster, step.TP_OVERLAP_DOMINANCE); the baseline, in the
    # same run, evaluates all six combinations. Both must find the same fastest step time.
    calc = dict(sequence_parallel=(True, False), tp_overlap=("none", "backward", "all"),
                dp_overlap=(True, False))
    t_full, t_full_first, full = best_of(
        lambda: step.rank_plans(model, cluster, gb, prune_dominated=False, **calc))
    t_pruned, t_pruned_first, pruned = best_of(lambda: step.rank_plans(model, cluster, gb, **calc))
    assert np.isclose(full["step_time_s"].iloc[0], pruned["step_time_s"].iloc[0], rtol=1e-12)
    # Hybrid sharding (HSDP) as a further dimension: enumerate_plans(fsdp_shard_size="auto")
    # adds, to every fitting ZeRO-3 row, its power-of-two shard groups that fill a scale-up
    # domain (parallel.hsdp_shard_sizes). Off by default (the rankings above), so it costs the
    # default ranking nothing; timed here on top of the pruned Calculon ranking.
    t_hsdp, t_hsdp_first, hsdp = best_of(
        lambda: step.rank_plans(model, cluster, gb, fsdp_shard_size="auto", **calc))

    # the straggler wait (step.add_straggler) against the same ranking without it,
    # timed alternately (the cores are shared)
    t_on, t_off = [], []
    for _ in range(5):
        t_on.append(best_of(lambda: step.rank_plans(model, cluster, gb), repeat=1)[0])
        t_o, _, nostrag = best_of(lambda: step.rank_plans(model, cluster, gb, straggler=False),
                                  repeat=1)
        t_off.append(t_o)
    t_strag, t_nostrag = min(t_on), min(t_off)

    best = parallel.plan_from_row(ranked.iloc[0])
    print(f"GPT-3 175B on {cluster.n_gpus:,} x {cluster.accelerator.name}, global batch {gb} "
          f"sequences of {model.seq_len} tokens (CPU cores: {os.cpu_count()})")
    print(f"candidates: {n_cand:,}  valid: {n_valid:,}  fitting with TP in the NVLink domain "
          f"and ranked by predicted step time: {n_rank:,}")
    print(f"rank_plans (enumerate + memory + step time, vectorised): {t_best:.3f} s best of 3 "
          f"(first run {t_first:.3f} s) = {n_cand / t_best:,.0f} candidates/s, "
          f"{n_rank / t_best:,.0f} step-time predictions/s")
    print(f"naive per-plan loop (make_plan + memory_per_gpu + step_time, {len(sample)} random "
          f"ranked plans): {per * 1e3:.2f} ms per plan = {1 / per:,.0f} plans/s; "
          f"{t_loop_ranked:,.1f} s for the {n_rank:,} ranked plans")
    print(f"speed-up over the loop on the same plans: {t_loop_ranked / t_best:,.0f}x")
    print(f"the same ranking without the straggler wait (straggler=False): {t_nostrag:.3f} s "
          f"best of 5, with it {t_strag:.3f} s: {t_strag / t_nostrag:.2f}x; the wait is "
          f"{ranked.iloc[0]['straggler_s'] / ranked.iloc[0]['step_time_s']:.1%} of the fastest "
          f"plan's step ({len(nostrag):,} plans either way)")
    print(f"with Calculon's dimensions (sequence parallelism on/off x TP overlap none/backward/"
          f"all x DP overlap on/off):")
    print(f"  baseline, every combination evaluated: {len(full):,} ranked plans in "
          f"{t_full:.3f} s best of 3 (first {t_full_first:.3f} s)")
    skipped = ", ".join(pruned.attrs["pruned_modes"])
    print(f"  pruned (dominated overlap modes not evaluated: {skipped}"
          f"): {len(pruned):,} ranked plans in {t_pruned:.3f} s best of 3 (first "
          f"{t_pruned_first:.3f} s): {t_full / t_pruned:.1f}x faster than the baseline; the same "
          f"fastest plan ({pruned['step_time_s'].iloc[0]:.2f} s per step); "
          f"{t_pruned / t_best:.2f}x the time of the plain ranking above; the budget "
          f"0.25 s on 2 cores: {'met' if t_pruned <= 0.25 else 'NOT met'} in this run (the "
          "cores are shared: compare the ratios)")
    n_h = int((hsdp["fsdp_shard_size"] < hsdp["dp"] * hsdp["cp"]).sum())
    print(f"  + HSDP shard sizes (fsdp_shard_size='auto', {hsdp.attrs['n_hsdp']:,} HSDP plans "
          f"enumerated, {n_h:,} of them ranked): {len(hsdp):,} ranked plans in {t_hsdp:.3f} s "
          f"best of 3 (first {t_hsdp_first:.3f} s): {t_hsdp / t_pruned:.2f}x the pruned ranking "
          f"without it; budget 0.25 s: {'met' if t_hsdp <= 0.25 else 'NOT met'} in this run; "
          f"fastest plan {hsdp['step_time_s'].iloc[0]:.2f} s per step")
    calculon_s = n_cand / CALCULON_EVALS_PER_S_PER_CORE / 2
    print(f"Calculon at ~{CALCULON_EVALS_PER_S_PER_CORE} evaluations/s/core on 2 cores "
          f"(measured, 2-core VM) would need ~{calculon_s / 60:,.0f} min for as many candidates "
          f"({calculon_s / t_best:,.0f}x longer)")
    print(f"fastest plan: {best.describe()}: {ranked.iloc[0]['step_time_s']:.2f} s per step, "
          f"predicted MFU {ranked.iloc[0]['mfu']:.1%}"
          + (" (ZeRO-3: an upper bound, see llmcost.step)" if best.zero_stage == 3 else ""))
    no_z3 = step.fastest_trusted(ranked)
    print(f"what choose_plan picks (ZeRO-3 only if faster with its step lengthened by "
          f"parallel.ZERO3_STEP_MARGIN = {parallel.ZERO3_STEP_MARGIN:.0%}): "
          f"{parallel.plan_from_row(no_z3).describe()}: {no_z3['step_time_s']:.2f} s per step, "
          f"predicted MFU {no_z3['mfu']:.1%} (Korthikanti et al. measured 51.4% for 175B, "
          "Table 5)")


if __name__ == "__main__":
    main()
