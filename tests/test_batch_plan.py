"""Notebook 02's plan analysis: the pipeline bubble behind "fills the cluster", the DP
placement shared with notebook 04, and gradient bytes that follow the optimizer recipe."""

import pytest

import llmcost
from llmcost import batch, comm, parallel, step
from llmcost.training import batch_analysis
from llmcost.training.batch_analysis import BatchLayout


def test_low_bubble_batch_by_hand():
    # 1F1B, p = 4: bubble share (p-1)/(m+p-1) <= 10%  <=>  m + p - 1 >= 10·(p-1)
    # <=>  m >= 10·(p-1) - (p-1) = 9·(p-1) = 27
    # (Narayanan et al. 2021 §2.2: bubble time ÷ ideal = (p-1)/m; share = b/(1+b)).
    assert batch.low_bubble_batch_tokens(4, 64, 1, 4096) == 27 * 64 * 4096
    # The code's share at m = 26 is 3/29 = 10.3%, above the target, and 3/30 at m = 27: the
    # answer is the least m, not any m.
    share = parallel.bubble_fraction(4, [26, 27], relative_to="total")
    assert list(share) == pytest.approx([3 / 29, 3 / 30], rel=1e-12)
    assert share[0] > 0.10 >= share[1]
    # Interleaved, p = 4, v = 4: b = 3/(4m) -> m >= 6.75, and m must be a multiple of p -> 8.
    assert batch.low_bubble_batch_tokens(4, 8, 2, 1024, "interleaved", 4) == 8 * 8 * 2 * 1024
    # No pipeline, no bubble: one micro-batch per replica.
    assert batch.low_bubble_batch_tokens(1, 16, 2, 2048) == 16 * 2 * 2048
    with pytest.raises(ValueError, match="target"):
        batch.low_bubble_batch_tokens(4, 8, 1, 4096, target=1.5)


def test_bubble_is_reported_at_the_cluster_filling_batch(h100=None):
    # The batch that gives every GPU work (m = pp) still idles (p-1)/(2p-1) of a 1F1B step:
    # 3/7 = 43% for p = 4, so "fills the cluster" is not "keeps it busy".
    m = llmcost.load_model("llama-2-70b")
    gpu = llmcost.load_accelerator("H100-SXM")
    fill = batch.cluster_fill_batch_tokens(2048, 1, 4096, 8)
    a = batch_analysis.analyse_batch(m, gpu, 2048, 2e12, 4096, fill, 0.4, 3.99,
                                     BatchLayout(tp=8, pp=4))
    assert a.micro_batches_per_step == 4
    assert a.bubble_fraction == pytest.approx(3 / 7)
    assert a.low_bubble_batch_tokens == 27 * 64 * 4096
    text = "\n".join(batch.batch_verdict(a))
    assert "bubble idles 42.9% of each step" in text and "above the 10%" in text
    rows = {r[0]: r[2] for r in batch.headline_figures(a)}
    assert rows["plan_bubble_fraction"] == pytest.approx(3 / 7)
    # a trial read "wall-clock at B_noise 1.37 h — 1,344 GPUs; plan: 0.83 days" for a 64-GPU
    # run as a speed-up on its own cluster: the note names whose GPUs each figure is on
    kb = a.key_batches.set_index("case")
    crit = int(kb.loc["B_noise", "n_gpus"])
    note = {r[0]: r[4] for r in batch.headline_figures(a)}["b_noise_wall_clock_days"]
    # 2,048 GPUs at TP8 · PP4 (batch.gpus_to_fill: ceil(B / (pp · mbs · s)) replicas of 32)
    assert crit != 2048 and (f"on {crit:,} GPUs, the most B_noise keeps at work (4 "
                             "micro-batches per replica), not this run's 2,048 GPUs") in note


def _default():
    return llmcost.load_scenario(llmcost.SCENARIO_DIR / "default.yaml")


def test_dp_bandwidth_follows_the_placement_notebook_04_uses():
    p = _default()
    plan, cluster, a = batch.scenario_batch_analysis(p)
    dp_row = comm.placement(plan, cluster).set_index("dimension").loc["DP (dense, with CP)"]
    k = int(dp_row["members_per_domain"])
    # Llama 2 70B at TP4 on 8-GPU H100 nodes (the default stack's ZeRO-1 plan): DP peers have
    # stride 4, so 2 of them share a node and pool 2 NICs of 50 GB/s (400 Gb/s ConnectX-7),
    # capped by NVLink's 450 GB/s per direction.
    assert plan.tp == 4 and k == 8 // plan.tp == 2
    assert a.dp_bandwidth_bytes_per_s == pytest.approx(min(450e9, 2 * 50e9))
    assert a.dp_links == "both" and a.dp_members_per_domain == 2
    # Ring all-reduce by hand: 2·(n-1)/n · G / B, G = 4 bytes (fp32 grads) · N / (tp·pp).
    g = 4 * llmcost.load_model("llama-2-70b").n_params / (plan.tp * plan.pp)
    n = plan.dp * plan.cp
    assert a.allreduce_s == pytest.approx(2 * (n - 1) / n * g / 100e9, rel=1e-9)


def test_gradient_bytes_follow_the_optimizer_recipe():
    p = _default()
    plan, _, fp32 = batch.scenario_batch_analysis(p)
    # the same plan under both recipes (a free search may choose another for bf16_adam)
    fixed = {**p, "tp": plan.tp, "pp": plan.pp, "dp": plan.dp, "zero_stage": plan.zero_stage,
             "micro_batch_size": plan.micro_batch_size, "recompute": plan.recompute,
             "pp_schedule": plan.schedule, "pp_virtual_stages": plan.virtual_stages}
    _, _, bf16 = batch.scenario_batch_analysis({**fixed, "optimizer_recipe": "bf16_adam"})
    grads = {r: llmcost.memory.get_recipe(r).grads_bytes for r in ("bf16_adam_fp32_grads",
                                                                    "bf16_adam")}
    assert grads == {"bf16_adam_fp32_grads": 4, "bf16_adam": 2}
    assert fp32.allreduce_s == pytest.approx(2 * bf16.allreduce_s, rel=1e-9)


def test_plan_is_the_step_time_models_choice():
    p = _default()
    plan, _, _ = batch.scenario_batch_analysis(p)
    assert plan == step.scenario_plan(p)


def test_one_dp_group_inside_a_node_uses_nvlink():
    spec = llmcost.load_model("llama-3.1-8b")
    cluster = llmcost.Cluster(llmcost.load_accelerator("H100-SXM"), 8)
    plan = llmcost.make_plan(spec, 8, 8, tp=1, pp=1, seq_len=4096)
    bw = batch.dp_sync_bandwidth(plan, cluster)
    assert bw["links"] == "scale-up" and bw["bandwidth_bytes_per_s"] == pytest.approx(450e9)


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="plan="):
        batch.dp_sync_bandwidth("tp8", llmcost.Cluster(llmcost.load_accelerator("H100-SXM"), 8))
    spec = llmcost.load_model("llama-3.1-8b")
    plan = llmcost.make_plan(spec, 8, 8, tp=1, pp=1, seq_len=4096)
    with pytest.raises(ValueError, match="cluster="):
        batch.dp_sync_bandwidth(plan, "H100")
    with pytest.raises(ValueError, match="p="):
        batch.scenario_batch_analysis(None)
    p = _default()
    del p["mfu"]
    with pytest.raises(ValueError, match="'mfu'"):
        batch.scenario_batch_analysis(p)


def test_the_headline_activation_memory_is_notebook_03s_count():
    # A new-user trial: the index set notebook 02's "activation memory per GPU 112 GB"
    # (Korthikanti et al.'s count of L layers of one micro-batch, no stack practice) beside
    # notebook 03's "memory per GPU, scenario plan 92.4 GB", of which activations 56.5 GB (the
    # plan's busiest stage as DeepSeek's framework stores them: FP8 saved inputs, recomputed
    # norms). The headline now gives 03's activations, named as such; 02's text keeps both.
    from llmcost.training import step_scenario
    p = _default()
    plan, _, a = batch.scenario_batch_analysis(p)
    mb = step_scenario.scenario_memory(p, plan)
    row = {r[0]: r for r in batch.headline_figures(a)}["activation_gb_per_gpu"]
    assert row[2] == pytest.approx(mb.activations / 1e9, rel=1e-12)
    assert "scenario plan" in row[1] and "notebook 03" in row[4]
    assert 0 < row[2] <= mb.total / 1e9  # a part of the plan's memory, never more than it
    # without the plan's figure (analyse_batch alone) the row says which count it is
    bare = {r[0]: r for r in batch.headline_figures(
        batch_analysis.analyse_batch(llmcost.load_model("llama-2-70b"),
                                     llmcost.load_accelerator("H100-SXM"), 2048, 2e12, 4096,
                                     4194304, 0.4, 3.99, BatchLayout(tp=8, pp=4)))}
    assert "L layers of one micro-batch" in bare["activation_gb_per_gpu"][4]


def test_the_critical_batchs_gpus_hold_whole_expert_parallel_groups():
    # A trial: Qwen3-30B-A3B on 256 H200, TP1 · DP256 · EP8, micro-batch 4 of 4,096 tokens, was
    # offered its critical batch B_noise ≈ 4.9M tokens "on 299 GPUs": B / (4 · 4,096) ≈ 299
    # micro-batches, dp 299, which no EP8 plan runs (Megatron-Core: ep divides dp·cp); here the
    # round 4.9M gives 299.07, dp 300, and the next multiple of 8 is 304. By hand, dp = ceil(B / (pp · mbs · s)) rounded up to a multiple of ep / gcd(ep, cp)
    lay = BatchLayout(tp=1, pp=1, cp=1, micro_batch_size=4, ep=8)
    b = [4.9e6, 19.6e6, 4 * 4096 * 256]
    assert list(batch_analysis._gpus_for_batches(b, lay, 4096)) == [304, 1200, 256]
    # with CP 2 the EP group may span the two CP ranks: dp a multiple of 8 / 2 = 4, times tp·cp
    lay2 = BatchLayout(tp=2, pp=2, cp=2, micro_batch_size=1, ep=8)
    # 1e6 / (2 · 1 · 4,096) = 122.07 -> 123 -> 124 (a multiple of 4), × tp·cp·pp = 8
    assert int(batch_analysis._gpus_for_batches([1e6], lay2, 4096)[0]) == 124 * 8
    for bad in (0, 2.5, True, "8"):
        with pytest.raises(ValueError, match="layout.ep="):
            batch_analysis._gpus_for_batches([1e6], BatchLayout(ep=bad), 4096)


def test_key_batches_carry_the_mfu_to_each_batchs_bubble():
    # By hand, PP 4 1F1B (v 1), b(m) = 3/m over the ideal compute (Narayanan et al. 2021 §2.2):
    # the plan at m = 4 runs f = 4 / (4 · (1 + 3/4)) = 0.5714 of its time computing; a batch of
    # 3.4 micro-batches per replica takes 4 slots, f = 3.4 / (4 · 1.75) = 0.4857 (MFU × 0.85);
    # 8 micro-batches, f = 8 / (8 · (1 + 3/8)) = 0.7273 (× 1.2727); half a micro-batch per
    # replica, a working replica runs one, f = 1 / (1 + 3) = 0.25 (× 0.4375; the idle replicas
    # are batch_sweep's idle GPUs)
    lay = BatchLayout(tp=8, pp=4)
    n, s = 2048, 4096            # dp = 2048 / 32 = 64 replicas, one sequence a micro-batch
    per_m = 64 * s
    got = batch_analysis.bubble_scaled_mfu(0.4, [4 * per_m, 3.4 * per_m, 8 * per_m,
                                                 0.5 * per_m], [n] * 4, lay, s)
    assert got == pytest.approx([0.4, 0.4 * 0.85, 0.4 * (8 / 11) / (4 / 7), 0.4 * 0.4375],
                                rel=1e-9)
    # an MFU its plan's bubble leaves no room for: 0.4 at one micro-batch on PP 4 (f = 1/4)
    # would compute at 160% of the peak between bubbles; a batch of 64 micro-batches reads the
    # peak, not 0.4 × (64 / (64 · (1 + 3/64))) / (1/4) = 1.53
    top = batch_analysis.bubble_scaled_mfu(0.4, [per_m, 64 * per_m], [n, n], lay, s)
    assert top == pytest.approx([0.4, 1.0], rel=1e-12)
    # and the verdict says so (a review: key batches priced at the peak without a word)
    m = llmcost.load_model("llama-2-70b")
    a = batch_analysis.analyse_batch(m, llmcost.load_accelerator("H100-SXM"), n, 2e12, s,
                                     per_m, 0.4, 3.99, lay)
    assert a.mfu_between_bubbles == pytest.approx(0.4 * 4, rel=1e-12)
    assert any("between bubbles its GPUs would compute at 160% of the peak" in line
               for line in batch.batch_verdict(a))
    # no pipeline: only the partial micro-batch counts (3.4 of 4 slots)
    flat = batch_analysis.bubble_scaled_mfu(0.4, [4 * 256 * s, 3.4 * 256 * s], [n] * 2,
                                            BatchLayout(tp=8), s)
    assert flat == pytest.approx([0.4, 0.4 * 0.85], rel=1e-9)


def test_key_batches_respect_the_interleaved_schedules_whole_rounds():
    # A review: Llama 3.1 405B's plan, PP 16 × v 8 interleaved at m = 16 (Llama 3 Table 4), put
    # a batch of 6.91 micro-batches per replica at (p − 1)/(v·7), a schedule Megatron's
    # interleaving refuses (m a multiple of p: parallel's rule interleaved_microbatches). By
    # hand: 1F1B at 7 slots computes 6.91 / (7 + 15) = 0.314 of its step; interleaved padded to
    # 16 slots 6.91 / (16 · (1 + 15/128)) = 0.387, the better; the plan 16 / (16 · (1 + 15/128))
    # = 0.895: MFU × 0.387 / 0.895.
    lay = BatchLayout(tp=8, pp=16, pp_schedule="interleaved", virtual_stages=8)
    n, s = 16384, 8192            # dp = 16,384 / 128 = 128 replicas
    per_m = 128 * s
    got = batch_analysis.bubble_scaled_mfu(0.41, [16 * per_m, 6.91 * per_m], [n, n], lay, s)
    plan = 16 / (16 * (1 + 15 / 128))
    padded = 6.91 / (16 * (1 + 15 / 128))
    assert padded > 6.91 / 22
    assert got == pytest.approx([0.41, 0.41 * padded / plan], rel=1e-9)
    # a whole round of 32 interleaves without padding: 32 / (32 · (1 + 15/256))
    at32 = batch_analysis.bubble_scaled_mfu(0.41, [32 * per_m], [n], lay, s,
                                            plan_batch_tokens=16 * per_m, plan_n_gpus=n)
    assert at32 == pytest.approx([0.41 * (1 / (1 + 15 / 256)) / plan], rel=1e-9)


def test_the_figures_sweep_and_the_key_batches_agree():
    # A review: notebook 02's table re-priced each batch's bubble while the figure beside it held
    # the MFU fixed (default.yaml, B_noise / 4: 14.5 days in the table, 12.2 on the curve). Both
    # are now batch_analysis.plan_sweep of the analysis' layout: at the table's batches and GPU
    # counts the sweep gives the table's days and GPU-hours.
    p = llmcost.load_scenario(llmcost.SCENARIO_DIR / "default.yaml")
    plan, cluster, a = batch.scenario_batch_analysis(p)
    kb = a.key_batches
    spec, gpu = llmcost.load_model(p["model"]), cluster.accelerator
    sw = batch_analysis.plan_sweep(a, spec, gpu, kb["batch_tokens"].to_numpy(),
                                   kb["n_gpus"].to_numpy(), p["mfu"],
                                   p["price_usd_per_gpu_hour"], p["seq_len"], p["dtype"])
    assert sw["wall_clock_days"].to_numpy() == pytest.approx(kb["wall_clock_days"].to_numpy(),
                                                            rel=1e-12)
    assert sw["reserved_gpu_hours"].to_numpy() == pytest.approx(
        kb["reserved_gpu_hours"].to_numpy(), rel=1e-12)
    with pytest.raises(ValueError, match="analysis="):
        batch_analysis.plan_sweep("not an analysis", spec, gpu, 1e6, 64, 0.4, 2.0, 4096)
