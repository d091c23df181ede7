"""``memory.MemoryPractice``: what stacks and runs do to stored activations and ZeRO-3's gather
buffer, each checked against a hand count from its source (the counts are written out here)."""

import pytest

from llmcost import load_model, make_plan
from llmcost.training import memory

S = 8192


def _act(model, practice=None, recompute="none", **kw):
    plan = make_plan(model, 8, 8, tp=1, pp=1, micro_batch_size=1, recompute=recompute,
                     **kw)
    return memory.memory_per_gpu(model, plan, S, practice=practice)


def test_torchtitan_op_selective_keeps_every_other_mm():
    # torchtitan's op-level SAC ("Saves output of all compute ops, except every second mm",
    # _save_list = aten.mm + SDPA): on a Llama 3 8B block (h 4096, 32 heads of 128, 8 KV heads,
    # SwiGLU f 14336) the forward's mms are wq, wk, wv, wo, w1, w3, w2: it keeps wq (2·4096),
    # wv (2·1024), w1 (2·14336), w2 (2·4096), the SDPA output (2·4096) and its log-sum-exp
    # (4·32 bytes), plus the block's input (2·4096): 63,616 bytes per token.
    m = load_model("llama-3.1-8b")
    per_token = 2 * 4096 + 2 * 1024 + 2 * 14336 + 2 * 4096 + 2 * 4096 + 4 * 32 + 2 * 4096
    assert per_token == 63_616      # the sum above written out (arithmetic, not a check)
    op = memory.MemoryPractice(selective_policy="every_other_mm")
    got = _act(m, op, "selective").activations
    assert got == pytest.approx(32 * S * per_token, rel=1e-9)
    # Megatron's selective policy keeps everything but the attention core (Korthikanti et al.
    # 2022 §5): the two norms' inputs and outputs (4 · 2h), Q and the attention output (2 · 2h),
    # K and V (2 · 2 · 1024), SwiGLU's gate and up outputs (2 · 2f) and their product (2f):
    # 12·4096 + 4·1024 + 6·14336 = 139,264 bytes per token and layer, 2.19x torchtitan's
    megatron = 12 * 4096 + 4 * 1024 + 6 * 14336
    assert megatron == 139_264      # arithmetic
    assert _act(m, None, "selective").activations == pytest.approx(32 * S * megatron, rel=1e-12)


def test_fp8_saved_inputs_hand_count():
    # Transformer Engine under FP8 saves the QKV and fc1 inputs (the norms' outputs, h each)
    # and the fc2 input (f) as 1-byte casts instead of 2-byte tensors, and the output
    # projection keeps an FP8 cast of the attention output (a·d_v = h) beside the 16-bit one
    # the attention's backward needs: h + h + f - h = h + f bytes fewer per token and layer.
    m = load_model("llama-3.1-70b")                     # h 8192, f 28672, 80 layers
    base = _act(m).activations
    fp8 = _act(m, memory.MemoryPractice(fp8_saved_inputs=True)).activations
    assert base - fp8 == pytest.approx(80 * S * (8192 + 28672), rel=1e-9)


def test_offload_keeps_the_rest_and_one_layer_in_transit():
    # Megatron-Core cpu_offloading_num_layers n of L: (1 - n/L) of a micro-batch's stored
    # activations stay, plus one layer in transit (L = 80, n = 40: 41 layers' worth).
    m = load_model("llama-3.1-70b")
    base = _act(m).activations
    off = _act(m, memory.MemoryPractice(offload_layers=40)).activations
    assert off == pytest.approx(base * 41 / 80, rel=1e-9)
    with pytest.raises(ValueError, match="pp = 1"):
        plan = make_plan(m, 16, 16, tp=1, pp=2, micro_batch_size=1)
        memory.memory_per_gpu(m, plan, S, practice=memory.MemoryPractice(offload_layers=4))


def test_mla_up_proj_recompute_drops_qkv():
    # Megatron-Core recompute_modules ["mla_up_proj"]: DeepSeek-V3's up-projected Q and K
    # (128 heads x 192) and V (128 x 128) are discarded after the attention core and
    # recomputed from the latents: 2·128·(2·192 + 128) = 131,072 bytes per token and layer.
    m = load_model("deepseek-v3")
    plan = make_plan(m, 64, 64, tp=1, pp=1, ep=64, micro_batch_size=1, recompute="none")
    kw = dict(seq_len=4096, recipe="bf16_adam_fp32_grads")
    base = memory.memory_per_gpu(m, plan, **kw).activations
    up = memory.memory_per_gpu(m, plan, **kw, practice=memory.MemoryPractice(
        recompute_modules=("mla_up_proj",))).activations
    # 61 layers and the multi-token-prediction module's block (mtp_depth 1, arXiv:2412.19437
    # §2.2), which the last stage holds
    assert m.mtp_depth == 1
    assert base - up == pytest.approx((61 + 1) * 4096 * 131_072, rel=1e-9)


def test_deepspeed_gathers_one_module():
    # DeepSpeed ZeRO-3's buffer is 4 bytes x the largest module's parameters
    # (estimate_zero3_model_states_mem_needs; model_to_params counts recurse=False): for
    # Llama 2 70B (h 8192, SwiGLU f 28672, vocab 32000) the fused gate-and-up linear,
    # 2·8192·28672 = 469.8M parameters, not the whole layer (~856M).
    m = load_model("llama-2-70b")
    plan = make_plan(m, 64, 64, tp=1, pp=1, micro_batch_size=1, zero_stage=3,
                     recompute="full")
    mod = memory.memory_per_gpu(m, plan, 4096, practice=memory.MemoryPractice(
        zero3_gather_unit="module")).zero3_buffer
    assert mod == pytest.approx(4 * 2 * 8192 * 28672, rel=1e-9)
    # the default unit is the whole layer: attention 4·8192² − 2·8192·(8192 − 1024) (8 KV
    # heads of 128) + SwiGLU 3·8192·28672 + two norms 2·8192 = 855,654,400 parameters, 4 B each
    layer_params = 4 * 8192**2 - 2 * 8192 * (8192 - 1024) + 3 * 8192 * 28672 + 2 * 8192
    assert layer_params == 855_654_400          # arithmetic
    layer = memory.memory_per_gpu(m, plan, 4096).zero3_buffer
    assert layer == pytest.approx(4 * layer_params, rel=1e-12)


def test_default_practice_changes_nothing():
    m = load_model("llama-3.1-8b")
    assert _act(m).total == _act(m, memory.DEFAULT_PRACTICE).total


@pytest.mark.parametrize("kw, field", [
    ({"recompute_modules": ("mlp_all",)}, "recompute_modules"),
    ({"offload_layers": -1}, "offload_layers"),
    ({"selective_policy": "op"}, "selective_policy"),
    ({"zero3_gather_unit": "param"}, "zero3_gather_unit"),
    ({"fp8_saved_inputs": "yes"}, "fp8_saved_inputs"),
])
def test_bad_practice_names_the_field(kw, field):
    with pytest.raises(ValueError, match=field):
        memory.MemoryPractice(**kw)


def test_the_search_counts_memory_as_the_stack_stores_it():
    # rank_plans on a named stack counts each plan's memory under the stack's practice
    # (options.stack_memory_practice; parallel.recount_memory): Transformer Engine's FP8 saved
    # inputs for an FP8 run on Megatron-Core, the same bytes memory_per_gpu gives the plan
    from llmcost import Cluster, load_accelerator, parallel
    from llmcost.core.stacks import load_stack
    from llmcost.training import options, ranking

    m = load_model("llama-3.1-70b")
    cl = Cluster(load_accelerator("H100-SXM"), 64)
    ranked = ranking.rank_plans(m, cl, 128, S, stack="megatron-core-2024", dtype="fp8")
    row = ranked.iloc[0]
    plan = parallel.plan_from_row(row)
    pr = options.stack_memory_practice(load_stack("megatron-core-2024"), "fp8")
    assert pr == memory.MemoryPractice(fp8_saved_inputs=True)
    assert row["memory_bytes"] == pytest.approx(
        memory.memory_per_gpu(m, plan, S, practice=pr).total, rel=1e-12)
    assert row["memory_bytes"] < memory.memory_per_gpu(m, plan, S).total
    # BF16 on the same stack: the default practice, the table as enumerate_plans counts it
    assert options.stack_memory_practice(load_stack("megatron-core-2024"), "bf16") \
        == memory.DEFAULT_PRACTICE
    with pytest.raises(ValueError, match="practice"):
        parallel.recount_memory(ranked, m, "fp8")
