"""One rule for the attention core's peak in every serving path (llmcost.serving.inference and
llmcost.serving.setups), and the set-up figures the setups module docstring quotes.

Sources of the expected values:
* H100 SXM peaks: NVIDIA H100 datasheet, dense BF16 989.4 TFLOP/s and FP8 1,978.9 TFLOP/s
  (data/accelerators.csv); attention_fraction 0.35 (FlashAttention-3, arXiv:2407.08608,
  abstract: "FlashAttention-2 achieves only 35% utilization on the H100 GPU"; data/efficiency.csv).
* Llama 3.1 70B: 80 layers x 64 query heads x (128 + 128) head dims (Meta's config), so
  2 x 80 x 64 x 256 = 2,621,440 attention FLOPs per attended key per token.
* DeepSeek-V3 / R1 module sizes: its config (arXiv:2412.19437), the catalogue's
  ``param_breakdown``; NVFP4 0.5 + 1/16 B per weight (NVIDIA NeMo Automodel nvfp4 docs), BF16 2 B.
"""

import pytest

from llmcost import inference as inf
from llmcost.serving import setups

A_70B = 2 * 80 * 64 * 256          # attention FLOPs per key per token, Llama 3.1 70B
FP8, BF16, F_ATTN = 1978.9e12, 989.4e12, 0.35


def test_the_attention_peak_is_the_kv_precision_capped_by_the_matmul_format():
    # FP8 cache on FP8 tensor cores only when the linear layers run FP8 (or FP4) too; a BF16
    # cache, or BF16 activations, keep the attention at the BF16 peak.
    assert inf.attention_peak_flops("H100-SXM", "fp8", "fp8") == pytest.approx(FP8)
    assert inf.attention_peak_flops("H100-SXM", "fp8", "bf16") == pytest.approx(BF16)
    assert inf.attention_peak_flops("H100-SXM", "bf16", "fp8") == pytest.approx(BF16)
    # A100 has no FP8 tensor cores: 312 TFLOP/s dense BF16 (A100 datasheet) whatever the cache
    assert inf.attention_peak_flops("A100-80GB", "bf16", "fp8") == pytest.approx(312e12)
    with pytest.raises(ValueError, match="kv_dtype"):
        inf.attention_peak_flops("H100-SXM", "fp8", "int3")


def test_a_cached_prefix_is_attended_at_the_same_peak_as_the_prefill():
    # Llama 3.1 70B, TP 4 on H100, a 32,768-token prompt with 30,000 tokens cached: the 2,768
    # new tokens' attention over the cached keys, compute-bound, adds by hand
    # 2,768 x 2,621,440 x 30,000 / (4 x peak x 0.35): 78.6 ms at the FP8 peak (FP8 weights and
    # cache, the rule of inference.prefill), 157.2 ms at BF16 (a BF16 cache). Before the one
    # rule it was 157.2 ms in both.
    by_hand = {"fp8": 2768 * A_70B * 30000 / (4 * FP8 * F_ATTN),
               "bf16": 2768 * A_70B * 30000 / (4 * BF16 * F_ATTN)}
    assert by_hand["fp8"] == pytest.approx(78.57e-3, rel=1e-3)
    for kv, hand in by_hand.items():
        pc = setups.prefix_cached_prefill("llama-3.1-70b", "H100-SXM", 2.0, prompt_tokens=32768,
                                          cached_tokens=30000, weight_dtype="fp8", kv_dtype=kv,
                                          tp=4)
        assert pc["prefill_with_cache_s"] - pc["prefill_alone_s"] == pytest.approx(hand, rel=1e-6)


def test_an_expert_parallel_prefill_attends_at_the_rule_of_inference():
    # DeepSeek-V3 prefill on EP32 H100s, 4,096 tokens per GPU at a 4,096-token context, FP8
    # weights: the FP8 cache moves only the attention core from the BF16 to the FP8 peak, so the
    # compute term drops by attention FLOPs x (1/BF16 - 1/FP8) / 0.35 (the matmuls and the
    # MLA cache bytes aside: FP8 halves the KV written, a memory term).
    kw = dict(ep=32, phase="prefill", tokens_per_gpu=4096, context_tokens=4096)
    s8 = setups.ep_step("deepseek-v3", "H100-SXM", options=setups.EPOptions(kv_dtype="fp8"), **kw)
    s16 = setups.ep_step("deepseek-v3", "H100-SXM", options=setups.EPOptions(kv_dtype="bf16"),
                         **kw)
    attn = inf.attention_flops_per_key("deepseek-v3", False) * (4096 + 1) / 2 * 4096
    assert s16.compute_s - s8.compute_s == pytest.approx(attn * (1 / BF16 - 1 / FP8) / F_ATTN,
                                                         rel=1e-6)


def test_a_prefill_chunk_attends_to_earlier_chunks_at_the_rule_of_inference():
    # Llama 3.1 8B on one H100, FP8 weights and cache: a 2,048-token chunk over 6,144 earlier
    # keys beside 64 decodes (chunked_prefill's hybrid step). Its compute is the decode step's,
    # the chunk's own prefill's (inference.prefill, whose causal attention runs at the FP8 peak)
    # and the attention over the earlier keys, by hand 2,048 x 2 x 32 x 32 x 256 x 6,144 /
    # (FP8 x 0.35) = 9.52 ms at the same FP8 peak (19.05 ms at the BF16 peak used before).
    m, acc = inf.serving_model("llama-3.1-8b"), inf.serving_accelerator("H100-SXM")
    kw = dict(weight_dtype="fp8", kv_dtype="fp8", tp=1,
              efficiency=inf.serving_efficiency(None, acc))
    d = inf.decode_step(m, acc, 64, 1024, **kw)
    pc = inf.prefill(m, acc, 2048, 1, **kw)
    compute = setups._hybrid_step_terms(m, acc, d, 2048, 6144, kw)[0]
    prior = 2048 * (2 * 32 * 32 * 256) * 6144 / (FP8 * F_ATTN)
    assert prior == pytest.approx(9.525e-3, rel=1e-3)
    assert compute - float(d.compute_s) - float(pc.compute_s) == pytest.approx(prior, rel=1e-6)


def test_the_docstring_figures_of_the_setups_module():
    # "TP's lower latency (~5.4x vs 5.6x)": pp_over_tp_latency, the figure notebook 05 prints
    assert setups.pp_over_tp_latency() == pytest.approx(5.4, abs=0.05)
    assert "5.4×" in setups.__doc__
    # NVFP4 DeepSeek-R1 on 8 B200s under DP attention: the kept BF16 modules (attention
    # 11.4135e9, router 0.1064e9, LM head 0.9267e9, embedding 0.9267e9 = 13.37e9 parameters)
    # cost (2 - 0.5625) B each more than NVFP4: 19.2 GB resident, but the embedding is a
    # gather, not read whole: (11.4135 + 0.1064 + 0.9267)e9 x 1.4375 = 17.9 GB read per step.
    p = inf.serving_model("deepseek-v3").param_breakdown
    kept = sum(p[g] for g in setups.NVFP4_MODELOPT_KEPT)
    assert kept == pytest.approx(13.37e9, rel=1e-3)
    dtypes_kept = setups._module_dtypes(inf.serving_model("deepseek-v3"), "nvfp4",
                                        setups.NVFP4_MODELOPT_KEPT)
    dtypes_all = setups._module_dtypes(inf.serving_model("deepseek-v3"), "nvfp4", None)
    m = inf.serving_model("deepseek-v3")
    res_k, read_k = setups._ep_weight_bytes(m, 8, 0, dtypes_kept, 1.0)
    res_a, read_a = setups._ep_weight_bytes(m, 8, 0, dtypes_all, 1.0)
    assert res_k - res_a == pytest.approx(19.22e9, rel=1e-3)
    assert read_k - read_a == pytest.approx((11.4135 + 0.1064 + 0.9267) * 1.4375e9, rel=1e-3)
    assert "19.2 GB more\nresident" in setups.__doc__ and "17.9 GB more read" in setups.__doc__
