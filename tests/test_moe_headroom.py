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
