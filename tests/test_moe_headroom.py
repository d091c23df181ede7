"""A MoE plan that fits only with a perfectly balanced router is said so (a new-user trial: Mixtral
8x7B on 512 B200 was planned at 173.7 of 174 GB usable, with nothing said of the router).

By hand (``memory.moe_capacity_extra_bytes_per_layer``, the formula of notebook 03's lesson):
Mixtral 8x7B, h = 4,096, k = 2 experts per token, gated expert FFN of width f_e = 14,336, 32 MoE
layers; a micro-batch of 4 sequences of 4,096 tokens, TP 1: x = 16,384 tokens, and at a load factor
of 1.25 each MoE layer keeps (1.25 − 1) · x · k · (2h + 2·3·f_e) bytes more =
0.25 · 16,384 · 2 · (8,192 + 86,016) = 771,751,936 bytes; no pipeline, no recompute: one micro-batch
in flight holding all 32 layers, 24.70 GB. With full recompute only the layer being recomputed
holds them: 0.77 GB.
"""

from __future__ import annotations

import re

import pytest

import llmcost
from llmcost.bill import checks
from llmcost.training import memory
from llmcost.training.parallel import ParallelPlan

MIXTRAL = llmcost.load_model("mixtral-8x7b")
PER_LAYER = 0.25 * 16_384 * 2 * (2 * 4096 + 6 * 14_336)


def test_the_extra_activations_of_a_busy_router_by_hand():
    assert (MIXTRAL.d_model, MIXTRAL.n_moe_layers) == (4096, 32)
    plan = ParallelPlan(dp=512, ep=8, micro_batch_size=4, n_microbatches=1, zero_stage=1)
    assert memory.moe_imbalance_extra_bytes(MIXTRAL, plan, 4096) == pytest.approx(
        32 * PER_LAYER, rel=1e-12)
    full = ParallelPlan(dp=512, ep=8, micro_batch_size=4, n_microbatches=1, zero_stage=1,
                        recompute="full")
    assert memory.moe_imbalance_extra_bytes(MIXTRAL, full, 4096) == pytest.approx(PER_LAYER)
    assert memory.moe_imbalance_extra_bytes(MIXTRAL, plan, 4096, load_factor=1.0) == 0.0
    with pytest.raises(ValueError, match="dense"):
        memory.moe_imbalance_extra_bytes(llmcost.load_model("llama-2-7b"), plan, 4096)


def test_a_plan_at_the_memory_limit_is_warned_of_and_one_with_room_is_not():
    # the rule by hand: warned when the usable HBM (here 192 GB × 0.9) minus the plan's memory
    # is below the extra activations, 24.70 GB; the plan's memory set to leave 0.2 GB, then
    # 30 GB (MemoryBreakdown's parts add up to its total)
    from dataclasses import replace

    gpu = llmcost.load_accelerator("B200")
    plan = ParallelPlan(dp=512, ep=8, micro_batch_size=4, n_microbatches=1, zero_stage=1)
    usable = gpu.hbm_bytes * 0.9
    extra = memory.moe_imbalance_extra_bytes(MIXTRAL, plan, 4096)
    base = memory.MemoryBreakdown(weights=0, gradients=0, master_weights=0, optimizer_states=0,
                                  zero3_buffer=0, activations=0, activation_working_set=0,
                                  embedding_and_logits=0)
    values = {"seq_len": 4096, "mem_reserve_fraction": 0.1}
    tight = checks.moe_headroom_warning(values, MIXTRAL, gpu, plan,
                                        replace(base, weights=usable - 0.2e9))
    assert tight.startswith(f"the plan {plan.describe()} fits mixtral-8x7b in ")
    assert f"grow by about {extra / 1e9:,.1f} GB" in tight and "more than the 0.2 GB left" in tight
    assert checks.moe_headroom_warning(values, MIXTRAL, gpu, plan,
                                       replace(base, weights=usable - 30e9)) is None


def test_the_array_form_is_the_formula_row_by_row():
    # moe_imbalance_extra_arrays over three plans at once: the hand figures above, and a
    # pipeline: PP 2 (16 MoE layers a stage), 1F1B, m = 8 micro-batches: stage 0 holds
    # min(m, p) = 2 in flight, 16 × 2 × PER_LAYER
    extra = memory.moe_imbalance_extra_arrays(
        MIXTRAL, 4096, tp=[1, 1, 1], cp=[1, 1, 1], pp=[1, 1, 2], micro_batch_size=[4, 4, 4],
        n_microbatches=[1, 1, 8], virtual_stages=[1, 1, 1], schedule=[0, 0, 0],
        full_recompute=[False, True, False])
    assert extra == pytest.approx([32 * PER_LAYER, PER_LAYER, 16 * 2 * PER_LAYER], rel=1e-12)


def test_the_warning_names_the_fastest_plan_with_room_for_a_busy_router(tmp_path):
    # A trial: Qwen3-30B-A3B on 64 H200 was planned at TP1 · DP64 · EP8, mbs 4, no recompute, at
    # 129.5 of the 136 GB usable, then warned that a router at 1.25x the mean load needs 13.7 GB
    # more, with no plan offered that has the room. The search keeps counting a balanced router
    # (DeepSeek-V3's published plan fits only so, tests/test_dsv3_plan_search.py); the warning
    # now names the fastest plan with that room (step_scenario.roomy_scenario_plan) and both
    # predicted MFUs. By hand: the alternative's memory + its extra fits the usable HBM.
    from llmcost.present.report import estimate_ledger, plan_report
    from llmcost.training import parallel, step_scenario
    f = tmp_path / "q.yaml"
    f.write_text("model: qwen3-30b-a3b\naccelerator: H200\nn_gpus: 64\ntrain_tokens: 1.0e12\n"
                 "mfu: predict\nseq_len: 4096\n")
    bill = estimate_ledger(f)
    (w,) = [x for x in bill.warnings if "only with a perfectly balanced router" in x]
    got = re.search(r"the fastest plan with that room is (.+?), at a predicted MFU of "
                    r"([\d.]+)% against this plan's ([\d.]+)%", w)
    assert got, w
    values = plan_report(f, None, notebook_setups=False).values   # what the checks read
    model, gpu = llmcost.load_model("qwen3-30b-a3b"), llmcost.load_accelerator("H200")
    alt = step_scenario.roomy_scenario_plan(values, model)
    assert got.group(1) == alt.describe() and alt != step_scenario.scenario_plan(values, model)
    mem = step_scenario.scenario_memory(values, alt, model)
    usable = gpu.hbm_bytes * (1 - memory.DEFAULT_RESERVE)
    assert mem.total + memory.moe_imbalance_extra_bytes(model, alt, 4096) <= usable
    assert float(got.group(2)) < float(got.group(3))   # the room costs speed
    # the rows' filter: some fitting rows have the room, not all; a dense model's rows as they are
    from llmcost.core.hardware import Cluster
    cluster = Cluster(gpu, 64)
    df = parallel.enumerate_plans(model, cluster, 256, 4096)
    ok = df[df["fits"]]
    assert 0 < len(parallel.imbalance_roomy(ok, model)) < len(ok)
    dense = llmcost.load_model("llama-2-7b")
    rows = parallel.enumerate_plans(dense, cluster, 256, 4096)
    assert parallel.imbalance_roomy(rows, dense) is rows
