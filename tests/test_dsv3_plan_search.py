"""The plan search on DeepSeek-V3's published set-up finds a plan as good as the published one.

A new-user trial priced DeepSeek-V3 FP8 on 2,048 H800 (`mfu: predict`, the published 14.8T tokens
and batch of 15,360 × 4,096) at 12.6 % MFU and 106 days against DeepSeek's ≈ 54 days (2.664M
H800 GPU-hours of pre-training over 2,048 GPUs, arXiv:2412.19437 Table 1): the search chose
TP1 · PP16 · EP8 with full recomputation, not the published plan (TP1, PP16, EP64, ZeRO-1, no
recomputation, DualPipe; §3.2). Three causes, each checked here against the report:

1. the search counted memory as Korthikanti et al. write it (125 GB per GPU for the published
   plan), not as the stack stores it: FP8 copies of the linear layers' inputs (§3.3.3) and
   DeepSeek's recomputation of every RMSNorm and MLA up-projection (§3.2.3) and of the SwiGLU
   output (§3.3.3), with which the plan ran in 80 GB;
2. on DeepSeek's own stack (``deepseek-hai-llm-2024``) the search raised: an EP layout whose
   nodes hold fewer than a token's top-8 experts under the 4-node routing limit (§2.1.2) was
   priced, and the dispatch refused it;
3. the trial's scenario named no stack, so it ran on ``megatron-core-2024`` (no EP overlap,
   BF16 dispatch to every expert): that stack, not the search, prices the published plan at
   12.9 % (left as is: the default stack is not DeepSeek's framework).
"""

import pytest

import llmcost
from llmcost.bill.scenario import load_scenario
from llmcost.core import stacks
from llmcost.core.catalog import SCENARIO_DIR, load_model, scenario_cluster
from llmcost.training import comm, memory, parallel, step_scenario
from llmcost.training.step import step_time

# arXiv:2412.19437 §3.1 (2,048 H800), §4.2 (sequence 4,096; batch 15,360 after the ramp), §3.3
# (FP8 GEMMs); the published framework's profile (data/stacks.csv)
DSV3 = {"model": "deepseek-v3", "accelerator": "H800", "n_gpus": 2048, "seq_len": 4096,
        "global_batch_tokens": 15360 * 4096, "dtype": "fp8", "train_tokens": 14.8e12,
        "stack": "deepseek-hai-llm-2024"}
# §3.2: "16-way Pipeline Parallelism (PP), 64-way Expert Parallelism (EP) spanning 8 nodes, and
# ZeRO-1 Data Parallelism"; no TP; no recomputation beyond §3.2.3's; micro-batch not published
PUBLISHED = dict(tp=1, pp=16, cp=1, ep=64, virtual_stages=1, micro_batch_size=1, zero_stage=1,
                 recompute="none", schedule="1f1b")
# the search's plan against the published plan, both priced by the same engine: at least 98 %
# of the published plan's MFU (the published plan is in the searched space, so the search can
# only fall short of it by the ZeRO-3 margin rule, which does not apply here) and at most
# 105 % (a far faster plan would mean the plan space around the published plan is mispriced)
SEARCH_TOLERANCE = (0.98, 1.05)


def _scenario(**extra):
    p = {k: v for k, v in load_scenario(SCENARIO_DIR / "default.yaml").items()
         if k not in ("title", "description", "mfu")}
    return {**p, **DSV3, **extra}


def _published_plan():
    return parallel.make_plan(load_model("deepseek-v3"), 2048, 15360, seq_len=4096,
                              pp_split="uneven", **PUBLISHED)


def test_deepseek_stack_recomputes_what_the_report_says():
    """§3.2.3: "we recompute all RMSNorm operations and MLA up-projections during
    back-propagation"; §3.3.3: "we cache the inputs of the SwiGLU operator and recompute its
    output in the backward pass" (Megatron-Core's names layernorm, mla_up_proj, moe_act), and the
    linear layers' inputs cached in FP8 (the stack's fp8_saved_inputs, with FP8 GEMMs only)."""
    st = stacks.load_stack("deepseek-hai-llm-2024")
    assert st.recompute_modules == ("layernorm", "mla_up_proj", "moe_act")
    pr = step_scenario.scenario_memory_practice(_scenario())
    assert pr.recompute_modules == st.recompute_modules and pr.fp8_saved_inputs
    assert not step_scenario.scenario_memory_practice(_scenario(dtype="bf16")).fp8_saved_inputs
    # a run's own modules join the stack's, once each
    both = llmcost.training.options.stack_memory_practice(st, "fp8", ("mla_up_proj",))
    assert both.recompute_modules == st.recompute_modules
    # no other stack recomputes modules of its own
    assert all(not stacks.load_stack(n).recompute_modules
               for n in stacks.list_stacks() if n != st.name)
    with pytest.raises(ValueError, match="recompute_modules='norms'"):
        stacks._modules("x", "norms")


def test_mla_up_projection_saving_by_hand():
    """Dropping MLA's up-projected queries, keys and values (§3.2.3) saves, per token and layer,
    2 bytes × a·(2·d_qk + d_v) = 2 × 128 × (2 × 192 + 128) = 131,072 bytes (a = 128 heads,
    d_qk = 128 + 64 with the decoupled RoPE key, d_v = 128; §4.2), on every layer a stage holds,
    times the micro-batches in flight: on stage 1 of 16 under 1F1B, 15 (p − r) of 4,096 tokens."""
    m = load_model("deepseek-v3")
    plan = _published_plan()
    per_token = 2 * 128 * (2 * (128 + 64) + 128)
    assert per_token == 131072
    dense, moe = memory.stage_layers(m, 16, 1, "uneven")
    layers = int(dense[1] + moe[1])
    base = memory.MemoryPractice(fp8_saved_inputs=True)
    up = memory.MemoryPractice(recompute_modules=("mla_up_proj",), fp8_saved_inputs=True)
    a = memory.memory_per_gpu(m, plan, 4096, practice=base, stage=1).activations
    b = memory.memory_per_gpu(m, plan, 4096, practice=up, stage=1).activations
    assert a - b == pytest.approx(per_token * 4096 * layers * 15, rel=1e-9)


def test_published_plan_fits_as_deepseek_stores_it():
    """The plan ran on 80 GB H800s (§3.1-3.2): as the stack stores it (``scenario_memory``), it
    fits under the planning reserve (10 %); counted as Korthikanti et al. write it, or with the
    FP8 saved inputs alone, it does not fit even the whole HBM, which is why the search could not
    choose it."""
    p = _scenario()
    plan, hbm = _published_plan(), llmcost.load_accelerator("H800").hbm_bytes
    m = step_scenario.scenario_memory(p, plan)
    assert m.fits(hbm, memory.DEFAULT_RESERVE)
    model = load_model("deepseek-v3")
    assert memory.memory_per_gpu(model, plan, 4096).total > hbm
    fp8_only = memory.MemoryPractice(fp8_saved_inputs=True)
    assert memory.memory_per_gpu(model, plan, 4096, practice=fp8_only).total > hbm
    # the validation row's own count (its stack and run modules) agrees
    row = llmcost.training.step_validation.published_plan_memory().loc["deepseek-v3-pretrain"]
    assert row["fits"] and row["memory_bytes"] == pytest.approx(m.total, rel=1e-9)


def test_node_limit_layouts_by_hand():
    """256 experts, top-8, at most 4 nodes per token (§2.1.2, §4.2), 8-GPU nodes: EP64 at TP1
    spans 8 nodes of 32 experts, 4 × 32 = 128 >= 8; EP256 at TP·CP = 8 puts one rank, one expert,
    on each of 256 nodes, 4 × 1 = 4 < 8: no router with that limit runs on it; EP8 on one node,
    256 >= 8; no limit, every layout."""
    ok = comm.node_limit_routable(256, 8, [64, 256, 256, 8], [1, 8, 1, 1], 8, 4)
    assert list(ok) == [True, False, True, True]
    assert comm.node_limit_routable(256, 8, [256], [8], 8, None).all()
    with pytest.raises(ValueError, match="fewer than top_k=8"):
        comm.moe_dispatch_copies(256, 8, 256, 1, dispatch="per_node", node_limit=4)


def test_search_on_the_published_setup_finds_the_published_plans_mfu():
    """The search with the plan left free on the published set-up and stack (it raised before)
    finds a plan within ``SEARCH_TOLERANCE`` of the published plan's predicted MFU, both priced
    by ``step_time`` with the scenario's options; its throughput is within ±10 % of the
    published 14.8T tokens / (2.664M GPU-h × 3,600 s) / 2,048 × 2,048 = 1,543 tokens/s per GPU
    (Table 1; a whole-run average, batch ramp and downtime included)."""
    p = _scenario()
    plan, b = step_scenario.scenario_step(p)
    opts = step_scenario.scenario_step_options(p)
    pub = step_time(load_model("deepseek-v3"), scenario_cluster(p), _published_plan(), 4096,
                    options=opts)
    lo, hi = SEARCH_TOLERANCE
    assert lo <= b.mfu / pub.mfu <= hi
    assert (plan.tp, plan.pp, plan.zero_stage, plan.recompute) == (1, 16, 1, "none")
    published = 14.8e12 / (2.664e6 * 3600)
    assert published == pytest.approx(1543.2, abs=0.1)
    assert b.tokens_per_s / 2048 == pytest.approx(published, rel=0.10)


def test_the_trials_default_stack_is_what_costs():
    """The trial's scenario (no stack: ``megatron-core-2024``): the search's plan is within 5 %
    (two-sided) of the published plan priced on that stack, which it cannot choose (it does not
    fit as that stack stores it: no recomputed modules; 2.2 % faster in this engine, 2026-12-03),
    and there the EP all-to-all the stack does not
    overlap takes over 40 % of the published plan's step (DeepSeek: "the computation-to-
    communication ratio is approximately 1:1" for cross-node EP without DualPipe, §3.2.1)."""
    p = _scenario(stack="megatron-core-2024")
    plan, b = step_scenario.scenario_step(p)
    pub = step_time(load_model("deepseek-v3"), scenario_cluster(p), _published_plan(), 4096,
                    options=step_scenario.scenario_step_options(p))
    assert b.mfu / pub.mfu == pytest.approx(1.0, abs=0.05)
    assert not step_scenario.scenario_memory(p, _published_plan()).fits(
        llmcost.load_accelerator("H800").hbm_bytes)
    assert pub.ep_comm_s / pub.step_time_s > 0.4
