"""llmcost.memory against published values.

Sources of the expected values:
* test vectors 2.a–2.f (tests/data/test_vectors.csv). 2.a is the ZeRO paper's Fig. 1 example
(Rajbhandari et al.
  2020: 7.5B parameters, 64 GPUs, K = 12 -> 120 / 31.4 / 16.6 / 1.9 GB), tagged [paper] there;
  2.b–2.f are [computed] from the stated formulas (ZeRO §5.1, Korthikanti et al. 2022 Table 2), and
  2.d/2.e are also re-derived here from the table itself.
* Megatron-LM's distributed-optimizer guide (docs.nvidia.com/megatron-core, "Distributed
  Optimizer"): bf16 params + fp32 grads 18 B/param, 6 + 12/d sharded; fp16/fp16 20, 4 + 16/d;
  fp32/fp32 16, 8 + 8/d. DeepSpeed deepspeed/runtime/zero/stage_1_and_2.py,
  estimate_zero2_model_states_mem_needs without offload: "gpu_mem = 4 * total_params +
  int(16 * total_params / total_gpus)", i.e. 4 + 16/d (its 16-bit weights and gradients whole).
* Megatron-LM megatron/training/theoretical_memory_usage.py (read from NVIDIA/Megatron-LM):
  activation memory with SP + selective recompute = s·b·h·(18 + 4·f/h)/t per layer × L on the first
  stage, + (8·s·b·p + s·b·h·p)/t for the embedding input and dropout, + 4·s·b·h·(1 + V/h)/t for the
  output layer when pp = 1.
"""

import numpy as np
import pytest

import llmcost
from llmcost import ModelSpec
from llmcost import memory as M
from llmcost.training.parallel import ParallelPlan, make_plan

MIB, GIB = 2**20, 2**30


@pytest.fixture(scope="module")
def gpt3():
    return llmcost.load_model("gpt-3-175b")


@pytest.fixture(scope="module")
def model_2e():
    # test vector 2.e: h = 8192, a = 64, 80 layers, in Korthikanti's setting (MHA, 4h GeLU MLP).
    return ModelSpec(name="korthikanti-2e", n_layers=80, d_model=8192, n_heads=64,
                     vocab_size=32000, d_ff=4 * 8192, ffn_type="mlp", seq_len=4096)


# ----------------------------------------------------------------------------- recipes
@pytest.mark.parametrize("name, bpp", [
    # totals a source states: ZeRO §3.1 (16); Megatron-LM's distributed-optimizer guide (18,
    # 20, and 16 for fp32 parameters and gradients)
    ("bf16_adam", 16), ("bf16_adam_fp32_grads", 18), ("bf16_adam_fp32_grads_copy", 20),
    ("fp32_adam", 16),
    # regression pins: the library's own sums of each recipe's sourced parts (no source states
    # these totals; see each recipe's description)
    ("bf16_adam_bf16_moments", 14), ("fp8_mixed", 19), ("bf16_momentum", 12),
    ("bf16_adam_8bit", 10), ("pure_bf16", 8),
])
def test_recipe_bytes_per_param(name, bpp):
    assert M.RECIPES[name].bytes_per_param == bpp
    assert M.list_recipes().set_index("recipe").loc[name, "bytes_per_param"] == bpp


@pytest.mark.parametrize("recipe, tb", [
    ("bf16_adam", 1.12), ("bf16_adam_bf16_moments", 0.98), ("pure_bf16", 0.56),
    ("bf16_adam_8bit", 0.70)])
def test_vector_2f_70b_model_states(recipe, tb):
    # test vector 2.f: 70e9 parameters, unsharded. 16 B/param is ZeRO §3.1's; 14, 8 and 10 are
    # the library's own recipe sums (regression pins, as in test_recipe_bytes_per_param).
    assert M.zero_model_state_bytes(70e9, 1, 0, recipe) / 1e12 == pytest.approx(tb, rel=1e-9)


# ----------------------------------------------------------------------------- ZeRO
def test_zero_paper_fig1_7_5b_on_64_gpus():
    gb = M.zero_model_state_bytes(7.5e9, 64, [0, 1, 2, 3], "bf16_adam") / 1e9
    # The paper's rounded figures (Fig. 1), to its rounding:
    assert gb == pytest.approx([120, 31.4, 16.6, 1.9], abs=0.05)
    # and the exact values of test vector 2.a:
    assert gb == pytest.approx([120, 31.406, 16.641, 1.875], rel=1e-3)


def test_vector_2b_and_2c():
    assert M.zero_model_state_bytes(1e12, 1024, 3) / 1e9 == pytest.approx(15.625, rel=1e-9)
    assert M.zero_model_state_bytes(70e9, 64, [0, 1, 2, 3]) / 1e9 == \
        pytest.approx([1120, 293.1, 155.3, 17.5], rel=1e-3)


@pytest.mark.parametrize("recipe, zero, expected", [
    ("bf16_adam_fp32_grads", 0, lambda d: 18),          # Megatron non-distributed
    ("bf16_adam_fp32_grads", 1, lambda d: 6 + 12 / d),  # Megatron distributed optimizer
    ("bf16_adam_fp32_grads_copy", 0, lambda d: 20),
    ("bf16_adam_fp32_grads_copy", 1, lambda d: 4 + 16 / d),
    # ZeRO §5 (Rajbhandari et al. 2020) applied to this recipe: P_os+g also shards the 16-bit
    # gradients (2 + 18/d; hand derivation: 2 B weights whole, 2 + 4 + 4 + 8 = 18 B sharded)
    ("bf16_adam_fp32_grads_copy", 2, lambda d: 2 + 18 / d),
    ("fp32_adam", 1, lambda d: 8 + 8 / d),
])
@pytest.mark.parametrize("d", [2, 8, 64, 1024])
def test_framework_bytes_per_param(recipe, zero, expected, d):
    assert M.zero_model_state_bytes(1.0, d, zero, recipe) == pytest.approx(expected(d))


@pytest.mark.parametrize("d", [2, 8, 64, 1024])
def test_deepspeed_zero2_estimator_is_this_recipe_at_zero1(d):
    # DeepSpeed's estimate_zero2_model_states_mem_needs (cpu_offload=False): 4·N + 16·N/d bytes
    # per GPU, the 16-bit weights and gradients whole (4 B) and fp32 grads, master, m and v
    # sharded (16 B): the 20-byte recipe's ZeRO-1 count, 2·(1 − 1/d) B above its ZeRO-2 count.
    n = 7e9
    deepspeed = 4 * n + int(16 * n / d)
    assert M.zero_model_state_bytes(n, d, 1, "bf16_adam_fp32_grads_copy") == \
        pytest.approx(deepspeed, rel=1e-12)
    zero2 = M.zero_model_state_bytes(n, d, 2, "bf16_adam_fp32_grads_copy")
    assert deepspeed - zero2 == pytest.approx(2 * n * (1 - 1 / d), rel=1e-9)


def test_zero_bad_input():
    with pytest.raises(ValueError, match="zero_stage=4 must be <= 3"):
        M.zero_model_state_bytes(1e9, 8, 4)
    with pytest.raises(ValueError, match="dp=0 must be > 0"):
        M.zero_model_state_bytes(1e9, 0, 1)
    with pytest.raises(ValueError, match="optimizer_recipe='adam16'"):
        M.zero_model_state_bytes(1e9, 8, 1, "adam16")


# ----------------------------------------------------------------------------- activations
# test vector 2.d: GPT-3 175B layer, s = 2048, b = 1, h = 12288, a = 96, t = 8 (MiB per layer)
VECTOR_2D = [
    (1, False, "none", 2736), (8, False, "none", 552), (8, True, "none", 342),
    (8, False, "selective", 312), (8, True, "selective", 102), (8, False, "full", 48),
]


@pytest.mark.parametrize("t, sp, rc, mib", VECTOR_2D)
def test_vector_2d_korthikanti_table2(t, sp, rc, mib, gpt3):
    k = M.korthikanti_activation_bytes_per_layer(2048, 1, 12288, 96, t, sp, rc)
    assert k / MIB == pytest.approx(mib, rel=1e-9)
    # The tensor-by-tensor generalisation reduces to the table in the paper's setting.
    g = M.activation_bytes_per_layer(gpt3, 2048, 1, t, 1, sp, rc, flash_attention=False,
                                     dropout=True)
    assert g == pytest.approx(k, rel=1e-12)


def test_vector_2d_whole_model_gib():
    per = [M.korthikanti_activation_bytes_per_layer(2048, 1, 12288, 96, t, sp, rc)
           for t, sp, rc, _ in VECTOR_2D]
    assert np.array(per) * 96 / GIB == pytest.approx([256.5, 51.75, 32.0625, 29.25, 9.5625, 4.5])


@pytest.mark.parametrize("sp, rc, mib, gib80", [
    (True, "none", 776, 60.6), (True, "selective", 136, 10.6), (False, "full", 64, 5.0)])
def test_vector_2e(sp, rc, mib, gib80, model_2e):
    b = M.activation_bytes_per_layer(model_2e, 4096, 1, 8, 1, sp, rc, flash_attention=False,
                                     dropout=True)
    assert b / MIB == pytest.approx(mib, rel=1e-9)
    assert b * 80 / GIB == pytest.approx(gib80, abs=0.05)


def test_flash_attention_removes_the_s2_term(gpt3):
    # FlashAttention drops 5·a·s²·b (scores, dropout mask, dropout output) and keeps a 4-byte
    # log-sum-exp per query and head.
    s, a = 2048, 96
    without = M.activation_bytes_per_layer(gpt3, s, 1, flash_attention=False, dropout=True)
    with_fa = M.activation_bytes_per_layer(gpt3, s, 1, flash_attention=True, dropout=True)
    assert without - with_fa == pytest.approx(5 * a * s * s - 4 * a * s)


def test_gated_ffn_and_gqa_adjustments():
    base = ModelSpec(name="mha-gelu", n_layers=2, d_model=4096, n_heads=32, vocab_size=32000,
                     d_ff=11008, ffn_type="mlp")
    s, f, h, dh = 4096, 11008, 4096, 128
    kw = dict(seq_len=s, flash_attention=True, recompute="selective")
    gated = base.replace(ffn_type="gated")
    # SwiGLU keeps the fc1 output [gate, up] (4·s·b·f) and the fc2 input (2·s·b·f): 2·s·b·f more.
    assert M.activation_bytes_per_layer(gated, **kw) - M.activation_bytes_per_layer(base, **kw) \
        == pytest.approx(2 * s * f)
    # GQA with 8 KV heads instead of 32: K and V shrink from 2·s·b·h each to 2·s·b·8·d_head each.
    gqa = base.replace(n_kv_heads=8)
    assert M.activation_bytes_per_layer(base, **kw) - M.activation_bytes_per_layer(gqa, **kw) \
        == pytest.approx(2 * 2 * s * (h - 8 * dh))


def test_context_parallel_divides_activations(gpt3):
    one = M.activation_bytes_per_layer(gpt3, 8192, 1, 8, 1, True, "selective")
    four = M.activation_bytes_per_layer(gpt3, 8192, 1, 8, 4, True, "selective")
    assert four == pytest.approx(one / 4)


def test_activation_bad_input(gpt3):
    with pytest.raises(ValueError, match="recompute='some' must be one of"):
        M.activation_bytes_per_layer(gpt3, 2048, recompute="some")
    with pytest.raises(ValueError, match="layer='moe'"):
        M.activation_bytes_per_layer(gpt3, 2048, layer="moe")
    with pytest.raises(ValueError, match="seq_len=-1 must be > 0"):
        M.activation_bytes_per_layer(gpt3, -1)


# ----------------------------------------------------------------------------- per-plan memory
def test_megatron_theoretical_memory_parity(gpt3):
    """Activations match Megatron-LM's theoretical_memory_usage.py (SP + selective, first stage)."""
    s, b, h, L, V, f = 2048, 1, 12288, 96, 50257, 4 * 12288
    for t, p, m in [(8, 8, 96), (8, 1, 16), (4, 2, 64)]:
        plan = ParallelPlan(dp=1024 // (t * p), tp=t, pp=p, n_microbatches=m,
                            recompute="selective", zero_stage=1)
        mb = M.memory_per_gpu(gpt3, plan, s, flash_attention=False, dropout=True)
        layers = s * b * h * (18 + 4 * f / h) * L * min(1, m / p) / t
        assert mb.activations == pytest.approx(layers, rel=1e-12)
        extra = (8 * s * b * p + s * b * h * p) / t * min(1, m / p)
        if p == 1:
            extra += s * b * h * 4 * (1 + V / h) / t
        # one known difference: Megatron divides the int64 token ids (8·s·b·p) by t, while every
        # TP rank holds them whole (the embedding's input is replicated across the TP group)
        ids_whole = 8 * s * b * p * (1 - 1 / t) * min(1, m / p)
        assert mb.embedding_and_logits == pytest.approx(extra + ids_whole, rel=1e-12)


def test_megatron_weight_and_optimizer_parity(gpt3):
    """Model states of the most loaded shard vs Megatron-LM's compute_weight_and_optimizer_memory.

    Megatron's estimate leaves out GPT-3's learned position table (2048 × h, replicated on every
    TP rank of the first stage), which is added here; it also ignores biases and divides the
    norms by t, which this module does not: agreement to 0.05% (measured 1.8e-4 to 3.3e-4 above)."""
    h, L, V, f = 12288, 96, 50257, 4 * 12288
    block = L * (2 * h * (f + 2) + 4 * h * h) + 2 * h
    for t, p, d in [(8, 8, 16), (8, 16, 8), (4, 4, 64)]:
        shard = (block / p + V * h) / t + 2048 * h
        plan = ParallelPlan(dp=d, tp=t, pp=p, n_microbatches=1536 // d, zero_stage=1)
        mb = M.memory_per_gpu(gpt3, plan, 2048)
        assert mb.stage == 0
        assert mb.model_states == pytest.approx(shard * (6 + 12 / d), rel=5e-4)


@pytest.mark.parametrize("name", ["gpt-3-175b", "llama-3.1-8b", "mixtral-8x7b", "deepseek-v3",
                                  "bloom-176b", "qwen2.5-72b", "gopher-280b"])
def test_one_gpu_holds_every_parameter_once(name):
    m = llmcost.load_model(name)
    mb = M.memory_per_gpu(m, ParallelPlan(), recipe="bf16_adam")
    # and DeepSeek-V3's MTP module, trained beside the 671B (arXiv:2412.19437 §2.2): 0 elsewhere
    n = m.n_params + m.n_mtp_params
    assert mb.weights == pytest.approx(2 * n, rel=1e-12)
    assert mb.model_states == pytest.approx(16 * n, rel=1e-12)


def test_tp_replicates_only_norms_and_kv_heads():
    m = llmcost.load_model("llama-3.1-8b")  # 32 heads, 8 KV heads, no biases, RoPE
    norms = m.param_breakdown["norms"]
    w8 = M.memory_per_gpu(m, ParallelPlan(tp=8), recipe="bf16_adam").weights / 2
    assert w8 * 8 == pytest.approx(m.n_params + 7 * norms)
    # tp = 16 > 8 KV heads: each rank holds one KV head, so the K/V weights are stored twice.
    kv = 2 * m.d_model * m.n_kv_heads * m.d_head * m.n_layers
    w16 = M.memory_per_gpu(m, ParallelPlan(tp=16), recipe="bf16_adam").weights / 2
    assert w16 * 16 == pytest.approx(m.n_params + 15 * norms + kv)


def test_tied_embedding_is_copied_to_the_last_stage(gpt3):
    # GPT-3 ties its embedding; with pp > 1 the last stage holds its own copy (Megatron-LM).
    one = M.memory_per_gpu(gpt3, ParallelPlan(), recipe="bf16_adam").weights
    assert one == pytest.approx(2 * gpt3.n_params)
    table = gpt3.vocab_size * gpt3.d_model
    plan = ParallelPlan(pp=96, n_microbatches=1)
    # Stage 0: 1 layer + table + positions; the last stage: 1 layer + its table copy + final norm.
    d, mo = M.stage_layers(gpt3, 96)
    assert list(d) == [1] * 96 and mo.sum() == 0
    mb = M.memory_per_gpu(gpt3, plan, recipe="bf16_adam")
    layer = gpt3.param_breakdown["attention"] / 96 + gpt3.param_breakdown["ffn_dense"] / 96 \
        + 2 * 2 * gpt3.d_model
    last = layer + table + 2 * gpt3.d_model
    # The last stage is the most loaded one: the same weights as the first stage but fp32 logits.
    assert mb.stage == 95
    assert mb.weights == pytest.approx(2 * last)
    # the last stage's final-norm input 4·s·h and fp32 logits 4·s·V (one micro-batch in flight,
    # tp 1; Megatron-LM theoretical_memory_usage.py): 100,663,296 + 411,705,344 bytes
    assert mb.embedding_and_logits == 4 * 2048 * 12288 + 4 * 2048 * 50257 == 512_368_640


def test_stage_layers_cover_the_model():
    for name in ("llama-3.1-405b", "deepseek-v3", "mixtral-8x7b", "gpt-3-175b"):
        m = llmcost.load_model(name)
        for pp in (1, 2, 4, 8):
            for split in M.PP_SPLITS:
                slots = m.n_layers + (2 if split == "embedding_and_loss" and pp > 1 else 0)
                if slots % pp and split != "uneven":
                    with pytest.raises(ValueError, match="must divide"):
                        M.stage_layers(m, pp, 1, split)
                    continue
                d, mo = M.stage_layers(m, pp, 1, split)
                assert d.sum() + mo.sum() == m.n_layers and mo.sum() == m.n_moe_layers


def test_deepseek_v3_uneven_split():
    # DeepSeek-V3 (arXiv:2412.19437 §3.2.1): 61 layers (3 dense, 58 MoE) on 16 pipeline stages.
    # 61 = 3·16 + 13 (memory.PP_SPLITS "uneven"): stages 1..13 hold 4 layers, stages 0, 14, 15
    # hold 3; stage 0 holds the three dense layers (the model without its MTP module).
    m = llmcost.load_model("deepseek-v3")
    d, mo = M.stage_layers(m.replace(mtp_depth=0), 16, 1, "uneven")
    assert list(d + mo) == [3] + [4] * 13 + [3, 3]
    assert d[0] == 3 and d.sum() == 3 and mo.sum() == 58
    # With its MTP module (mtp_depth 1), the module and the loss take 3 slots at the end, as
    # Megatron-Bridge's DeepSeek-V3 layouts place them (recipes/deepseek/h100/deepseek_v3.py,
    # _get_deepseek_v3_pipeline_layout): PP 16 [E + 4, 4 x 14, 1 + MTP + loss], PP 8
    # [E + 8, 8 x 6, 5 + MTP + loss], PP 4 [E + 16, 16, 16, 13 + MTP + loss].
    for pp, layout in ((16, [4] * 15 + [1]), (8, [8] * 7 + [5]), (4, [16, 16, 16, 13])):
        d, mo = M.stage_layers(m, pp, 1, "uneven")
        assert list(d + mo) == layout, pp
    # (PP 4, VP 4): chunks of [E + 4, 4 x 14, 1 + MTP + loss], stage r holding r, r + 4, ...
    d, mo = M.stage_layers(m, 4, 4, "uneven")
    assert list(d + mo) == [16, 16, 16, 13]
    with pytest.raises(ValueError, match="must not exceed"):
        M.stage_layers(m, 64, 1, "uneven")


def test_llama3_405b_split():
    # Llama 3 §3.3.2: 126 layers on 16 stages, one layer fewer on the first and last stages.
    m = llmcost.load_model("llama-3.1-405b")
    d, _ = M.stage_layers(m, 16, 1, "embedding_and_loss")
    assert list(d) == [7] + [8] * 14 + [7]
    d8, _ = M.stage_layers(m, 16, 8, "embedding_and_loss")   # V = 8: one slot per chunk
    assert list(d8) == [7] + [8] * 14 + [7]


def test_expert_parallel_and_expert_zero_group():
    m = llmcost.load_model("mixtral-8x7b")
    routed = m.param_breakdown["ffn_routed_experts"]
    res = {}
    for ep in (1, 2, 4, 8):
        plan = make_plan(m, 64, 512, ep=ep, zero_stage=1, seq_len=4096)
        res[ep] = M.memory_per_gpu(m, plan, 4096, recipe="bf16_adam")
    for ep in (2, 4, 8):
        # EP divides the routed experts' 16-bit weights...
        assert res[1].weights - res[ep].weights == pytest.approx(2 * routed * (1 - 1 / ep))
        # ...while their ZeRO-1 optimizer shards stay 12·routed/(dp·cp): the expert ZeRO group
        # shrinks by the same factor ep.
        assert res[ep].optimizer_states == pytest.approx(res[1].optimizer_states)


def test_breakdown_table_smoke():
    # A smoke test of the table's layout: its total is the parts' sum and its shares the parts
    # over that total by construction (no outside count); the parts are checked elsewhere.
    m = llmcost.load_model("llama-2-70b")
    plan = make_plan(m, 2048, 1024, tp=8, pp=4, zero_stage=3, recompute="full", seq_len=4096)
    df = M.memory_breakdown(m, plan, 4096)
    assert list(df.index) == list(M.PARTS) + ["total"]
    assert df.loc[list(M.PARTS), "bytes"].sum() == pytest.approx(df.loc["total", "bytes"])
    assert df.loc[list(M.PARTS), "share"].sum() == pytest.approx(1.0)
    assert df.loc["zero3_buffer", "bytes"] > 0 and df.loc["activation_working_set", "bytes"] > 0
    mb = M.memory_per_gpu(m, plan, 4096)
    assert mb.total == pytest.approx(df.loc["total", "bytes"])


def test_fits_and_reserve():
    assert M.fits(72e9, 80e9) and not M.fits(72.1e9, 80e9)
    assert M.fits(80e9, 80e9, reserve=0.0)
    assert list(M.fits(np.array([1e9, 79e9]), 80e9)) == [True, False]
    with pytest.raises(ValueError, match="reserve=1.0 must be < 1"):
        M.fits(1e9, 80e9, reserve=1.0)
    with pytest.raises(ValueError, match="hbm_bytes=0 must be > 0"):
        M.fits(1e9, 0)
    mb = M.memory_per_gpu(llmcost.load_model("llama-3.1-8b"), ParallelPlan(tp=8), 8192)
    assert mb.fits(80e9) == (mb.total <= 72e9)


def test_interleaving_penalty_matches_korthikanti(gpt3):
    # First stage with m large: L·(1 + (p−1)/(p·v)) layers' worth of activations (§4.3).
    for p, v in [(8, 2), (8, 4), (4, 3), (16, 2)]:
        plan = ParallelPlan(dp=1024 // (8 * p), tp=8, pp=p, virtual_stages=v,
                            schedule="interleaved", n_microbatches=8 * p, recompute="selective")
        mb = M.memory_per_gpu(gpt3, plan, 2048)
        per_layer = M.activation_bytes_per_layer(gpt3, 2048, 1, 8, 1, True, "selective")
        assert mb.activations == pytest.approx(96 * (1 + (p - 1) / (p * v)) * per_layer)


def test_memory_per_gpu_rejects_plans_that_break_rules(gpt3):
    with pytest.raises(ValueError, match="tp=5 must divide n_heads=96"):
        M.memory_per_gpu(gpt3, ParallelPlan(tp=5))
    with pytest.raises(ValueError, match="recipe='x' must be one of"):
        M.memory_per_gpu(gpt3, ParallelPlan(), recipe="x")


def test_memory_per_gpu_reports_any_stage_and_validates_seq_len():
    import llmcost
    from llmcost import memory
    m = llmcost.load_model("llama-2-70b")
    plan = llmcost.make_plan(m, 64, 64, tp=8, pp=4)
    by_stage = [memory.memory_per_gpu(m, plan, 4096, stage=r) for r in range(4)]
    worst = memory.memory_per_gpu(m, plan, 4096)
    assert [b.stage for b in by_stage] == [0, 1, 2, 3]
    # The default is the most loaded stage; 1F1B's first stage holds pp micro-batches in flight.
    assert worst.total == max(b.total for b in by_stage) == by_stage[0].total
    for bad, message in ((4096.7, "seq_len=4096.7 must be a whole number"),
                         ("4096", "seq_len='4096' must be a number, not a string"),
                         (float("nan"), "seq_len=nan must be finite")):
        with pytest.raises(ValueError, match=message):
            memory.memory_per_gpu(m, plan, bad)
    with pytest.raises(ValueError, match=r"stage=4 must be a whole number in \[0, pp=4\)"):
        memory.memory_per_gpu(m, plan, 4096, stage=4)


def test_plan_memory_arrays_names_a_wrong_plan_field():
    """The array engine takes the plan's fields as keywords (``ParallelPlan.to_dict``): a name
    that is no plan field, or a needed field left out, is a ValueError naming it, and the
    defaults of ``pp_split`` and ``fsdp_shard_size`` are those of ``ParallelPlan``."""
    mem = M
    model = llmcost.load_model("llama-2-7b")
    plan = llmcost.make_plan(model, 8, 8, tp=2, pp=2, zero_stage=1).to_dict()
    full = mem.plan_memory_arrays(model, **plan)
    short = {k: v for k, v in plan.items() if k not in ("pp_split", "fsdp_shard_size")}
    assert mem.plan_memory_arrays(model, **short)["total"] == full["total"]
    with pytest.raises(ValueError, match="tensor_parallel"):
        mem.plan_memory_arrays(model, **plan, tensor_parallel=2)
    with pytest.raises(ValueError, match="n_microbatches"):
        mem.plan_memory_arrays(model, **{k: v for k, v in plan.items()
                                         if k != "n_microbatches"})
