"""Serving set-ups (llmcost.serving.setups) against published multi-node measurements and hand
derivations.

Sources: data/serving_setups.csv (The SGLang Team, lmsys.org blog 2025-05-05, DeepSeek-V3 on 96
H100s: decode EP72 22,282 tok/s per node at batch 256 and KV length 2,000; prefill EP32 50,302
tok/s per node at 16,384 tokens per device and 4,096-token prompts). DeepSeek-V3 MLA cache:
(512 + 64) × 61 layers × 2 B = 70,272 B per token (DeepSeek-V2 §2.1.2). H100 SXM NIC: 400 Gb/s
= 50 GB/s, 96% achievable (data/efficiency.csv).
"""

import pandas as pd
import pytest

import llmcost
from llmcost import inference as inf
from llmcost.core.hardware import DoesNotFit
from llmcost.serving import setups


def test_published_set_ups_respect_the_bound_and_are_reproduced():
    v = setups.setup_validation().set_index("setup_id")
    assert v["bound_ok"].all()
    # Decode, EP72 + DP attention + low-latency all-to-all: within the 25 % goal (21 % when
    # written).
    assert v.loc["sglang-dsv3-decode-ep72", "abs_error"] <= 0.25
    # Prefill, EP32: 26 % when written, just outside the goal (the blog's default expert
    # distribution is imbalanced: its perfect-EPLB run reached 59,337, 18 % faster).
    assert v.loc["sglang-dsv3-prefill-ep32-4k", "abs_error"] <= 0.30
    # Colocated (in-flight batching), TensorRT-LLM's DeepSeek-R1 max-throughput runs, ISL 1K /
    # OSL 2K, attention DP 8 + EP8 (NVIDIA/TensorRT-LLM Best_perf_practice_on_DeepSeek-R1 doc):
    # NVFP4 on B200 4,548 tok/s/GPU and FP8 on H200 1,436; the bound holds. Errors 55 % and
    # 38 % before the attention-DP imbalance (an iteration waits for the slowest rank's context:
    # TensorRT-LLM tech blog 10), 26 % and 6 % with it (ratio = measured ÷ expected 0.74 and
    # 1.06); pricing the FP4 checkpoint's BF16 attention, router and LM head at their precision
    # (setups.NVFP4_MODELOPT_KEPT) brings the FP4 row to 5 % (ratio 0.95); the TensorRT-LLM
    # constants refitted once the pre-XQA rows read their KV cache g times
    # (engines.kv_reads_per_decode_step) move both to 0.88 and 0.92; the FP8 release's BF16
    # LM head, embedding and router (setups.FP8_DEEPSEEK_KEPT) the FP8 row to 0.94; the
    # TensorRT-LLM constants refitted with the Ampere compute-bound prefill scale
    # (inference.PREFILL_COMPUTE_SCALE: η_p 0.69 → 0.60 for the Hopper/Blackwell reference)
    # to 0.88 and 0.99; the prefill's LM head on each prompt's last token only
    # (inference.logit_tokens), the constants refitted, to 0.91 and 0.98. Tracked two-sided so a
    # change of the model shows here.
    assert 0.83 <= v.loc["trtllm-dsr1-nvfp4-b200-tp8ep8-dp", "ratio"] <= 0.95
    assert v.loc["trtllm-dsr1-nvfp4-b200-tp8ep8-dp", "abs_error"] <= 0.25
    assert 0.90 <= v.loc["trtllm-dsr1-fp8-h200-tp8ep8-dp", "ratio"] <= 1.05
    assert v.loc["trtllm-dsr1-fp8-h200-tp8ep8-dp", "abs_error"] <= 0.25


def test_colocated_throughput_combines_the_phases_by_hand():
    # Per output token a GPU spends 1/x_d decoding and (P/R)/x_p prefilling: P = 1,024,
    # R = 2,048 → 1 / (1/x_d + 0.5/x_p), x_d at the mean context 1,024 + 1,024 = 2,048.
    kw = dict(ep=8, weight_dtype="nvfp4", kv_dtype="bf16", two_batch_overlap=False,
              engine="TensorRT-LLM")
    c = setups.colocated_ep_throughput("deepseek-v3", "B200", batch_per_gpu=384,
                                       prompt_tokens=1024, output_tokens=2048, **kw)
    d = setups.ep_step("deepseek-v3", "B200", phase="decode", tokens_per_gpu=384,
                       context_tokens=2048, **kw)
    p = setups.ep_step("deepseek-v3", "B200", phase="prefill", tokens_per_gpu=1024,
                       context_tokens=1024, **kw)
    assert c["bound_per_gpu"] == pytest.approx(
        1 / (1 / d.tokens_per_s_per_gpu + 0.5 / p.tokens_per_s_per_gpu), rel=1e-12)
    # Expected, attention DP without ADP balancing: an iteration lasts as long as its slowest
    # rank (TensorRT-LLM tech blog 10). Each rank starts k = M/R = 384/2048 = 0.1875 contexts
    # per iteration; the share of iterations in which one of the 8 ranks prefills is
    # 1 − 0.8125^8: 0.8125² = 0.66016, ⁴ = 0.43581, ⁸ = 0.18993, so f = 0.81007, and each such
    # iteration adds one prompt's prefill, 1,024 / x_p, to every rank's 384 / x_d.
    assert 1 - 0.8125 ** 8 == pytest.approx(0.81007, abs=1e-5)
    assert c["expected_per_gpu"] == pytest.approx(
        384 / (384 / d.expected_tokens_per_s_per_gpu
               + 0.81007 * 1024 / p.expected_tokens_per_s_per_gpu), rel=1e-4)
    assert c["band_low"] < c["expected_per_gpu"] < c["band_high"] < c["bound_per_gpu"]
    # with the ranks' contexts synchronised (adp_balance), each rank pays only its own share
    bal = setups.colocated_ep_throughput("deepseek-v3", "B200", batch_per_gpu=384,
                                         prompt_tokens=1024, output_tokens=2048,
                                         adp_balance=True, **kw)
    assert bal["expected_per_gpu"] == pytest.approx(
        1 / (1 / d.expected_tokens_per_s_per_gpu + 0.5 / p.expected_tokens_per_s_per_gpu),
        rel=1e-12)
    assert bal["bound_per_gpu"] == c["bound_per_gpu"] > bal["expected_per_gpu"] \
        > c["expected_per_gpu"]
    with pytest.raises(ValueError, match="adp_balance"):
        setups.colocated_ep_throughput("deepseek-v3", "B200", batch_per_gpu=384,
                                       prompt_tokens=1024, output_tokens=2048,
                                       adp_balance="yes", **kw)


def test_dp_attention_keeps_one_copy_of_the_mla_cache():
    # TP-8 on 8 H200s copies the latent cache on every rank (inference.max_batch); DP attention
    # holds each sequence's cache once. Hand derivation, FP8 weights, BF16 KV, 4,096 tokens:
    # TP-8: per rank usable 0.9 × 141 GB − 671.0e9 / 8 B = 42.9 GB; a sequence costs the whole
    # 70,272 × 4,096 = 287.8 MB on every rank: 149 sequences for the replica.
    acc = llmcost.load_accelerator("H200")
    usable = 0.9 * acc.hbm_bytes
    m = llmcost.load_model("deepseek-v3")
    per_seq = 70_272 * 4096
    tp_cap = int((usable - m.n_params / 8) // per_seq)
    assert inf.max_batch(m, acc, 4096, weight_dtype="fp8", tp=8) == tp_cap
    # DP attention: each GPU holds the non-routed weights whole (17.1e9) plus 32 of the 256
    # experts (653.9e9 / 8), and its own sequences' cache: 8 × that per GPU.
    resident = (m.n_params - 653_908_770_816) + 653_908_770_816 / 8
    dp_cap = 8 * int((usable - resident) // (70_272 * 4097))
    st = setups.ep_step(m, acc, ep=8, phase="decode", tokens_per_gpu=1, context_tokens=4096)
    assert 8 * st.max_batch_per_gpu == dp_cap
    assert dp_cap >= 5 * tp_cap


def test_kv_transfer_time_by_hand():
    # 2,000 tokens × 70,272 B / (50e9 B/s × 0.96) = 2.928 ms.
    assert setups.kv_transfer_time("deepseek-v3", "H100-SXM", 2000) == pytest.approx(
        2000 * 70_272 / (50e9 * 0.96), rel=1e-9)


def test_disaggregated_pools_balance_prefill_and_decode():
    d = setups.disaggregated_serving(
        "deepseek-v3", "H100-SXM", 2.0, prompt_tokens=2000, output_tokens=500, prefill_ep=32,
        prefill_tokens_per_gpu=16384, decode_ep=72, decode_batch_per_gpu=256,
        redundant_experts=32)
    x_p = d.prefill.expected_tokens_per_s_per_gpu
    x_d = d.decode.expected_tokens_per_s_per_gpu
    # Time to prefill 2,000 tokens on ρ GPUs equals time to decode 500 on one.
    assert 2000 / (x_p * d.prefill_gpus_per_decode_gpu) == pytest.approx(500 / x_d)
    assert d.expected_ttft_s == pytest.approx(d.prefill.expected_s + d.kv_transfer_s)
    assert d.usd_per_m_output == pytest.approx(2.0 / 3600 / x_d * 1e6)


@pytest.mark.parametrize("kw, field", [
    ({"ep": 7}, "ep=7"), ({"ep": 0}, "ep"), ({"phase": "verify"}, "phase"),
    ({"tokens_per_gpu": 10_000}, "tokens_per_gpu"), ({"tokens_per_gpu": -1}, "tokens_per_gpu"),
    ({"redundant_experts": 1.5}, "redundant_experts"), ({"engine": "TGI"}, "engine"),
    ({"weight_dtype": "fp4"}, "weight_dtype"),
])
def test_bad_input_is_refused_with_the_field(kw, field):
    args = dict(ep=72, phase="decode", tokens_per_gpu=256, context_tokens=2000,
                redundant_experts=32)
    args.update(kw)
    with pytest.raises(ValueError, match=field):
        setups.ep_step("deepseek-v3", "H100-SXM", **args)


def test_a_dense_model_is_refused():
    with pytest.raises(ValueError, match="dense"):
        setups.ep_step("llama-3.1-70b", "H100-SXM", ep=8, phase="decode", tokens_per_gpu=8,
                       context_tokens=1000)


def test_decode_batch_past_capacity_names_the_capacity():
    st = setups.ep_step("deepseek-v3", "H100-SXM", ep=72, phase="decode", tokens_per_gpu=1,
                        context_tokens=2000, redundant_experts=32)
    cap = st.max_batch_per_gpu
    with pytest.raises(ValueError, match=f"at most {cap} sequences"):
        setups.ep_step("deepseek-v3", "H100-SXM", ep=72, phase="decode",
                       tokens_per_gpu=cap + 1, context_tokens=2000, redundant_experts=32)


def test_prefix_cached_prefill_adds_the_attention_over_the_cached_keys():
    # Llama 3.1 70B (80 layers, 64 heads, d_head 128): attention FLOPs per query token per key
    # 2·80·64·(128 + 128) = 2,621,440. Eight prompts of 2,000 tokens, 1,000 cached, TP 4 on H100
    # (FP8 weights and cache: the attention core at the 1,978.9 TFLOP/s dense FP8 peak, the rule
    # of inference.prefill (inference.attention_peak_flops); FlashAttention-2 at 35%,
    # data/efficiency.csv): the 1,000 new tokens of each prompt also attend to 1,000 cached keys:
    # 8 · 1000 · 2,621,440 · 1000 / (4 · 1978.9e12 · 0.35) = 7.57 ms more prefill, which is
    # compute-bound (8,000 tokens at 2 × 70.6e9 FLOP each outrun the 17.6 GB FP8 weight read).
    pc = setups.prefix_cached_prefill("llama-3.1-70b", "H100-SXM", 2.0, prompt_tokens=2000,
                                      cached_tokens=1000, batch=8, weight_dtype="fp8",
                                      kv_dtype="fp8", tp=4)
    extra = 8 * 1000 * 2_621_440 * 1000 / (4 * 1978.9e12 * 0.35)
    assert pc["prefill_with_cache_s"] - pc["prefill_alone_s"] == pytest.approx(extra, rel=1e-3)
    # A cached token costs that marginal time spread over the 8,000 cached tokens, at $2/GPU-h
    # on 4 GPUs: a few per cent of an uncached token (list prices charge 25-50 %: the
    # provider also keeps the cache resident, which is not priced here).
    assert pc["usd_per_m_cached_input"] == pytest.approx(
        2.0 / 3600 * 4 * extra / 8000 * 1e6, rel=1e-3)
    assert 0 < pc["cached_share"] < 0.2
    with pytest.raises(ValueError, match="cached_tokens"):
        setups.prefix_cached_prefill("llama-3.1-70b", "H100-SXM", 2.0, prompt_tokens=100,
                                     cached_tokens=100)


def test_list_price_margins_follow_their_definition():
    t = setups.api_price_comparison("H100-SXM", 2.0).set_index("model")
    prices = setups.load_api_prices().set_index("model")
    for model, r in t.iterrows():
        assert r["list_usd_per_m_output"] == prices.loc[model, "usd_per_m_output"]
        assert r["margin_output"] == pytest.approx(
            1 - r["modelled_usd_per_m_output"] / r["list_usd_per_m_output"])
        assert r["margin_input"] == pytest.approx(
            1 - r["modelled_usd_per_m_input"] / r["list_usd_per_m_input"])
    assert {"llama-3.1-70b", "deepseek-v3"} <= set(t.index)
    assert prices["source"].str.len().min() > 40 and prices["dated"].notna().all()


@pytest.mark.parametrize("call, field", [
    (lambda: setups.kv_transfer_time("deepseek-v3", "H100-SXM", -5), "prompt_tokens"),
    (lambda: setups.kv_transfer_time("deepseek-v3", "H100-SXM", 100, kv_dtype="int2"), "kv_dtype"),
    (lambda: setups.disaggregated_serving("deepseek-v3", "H100-SXM", 2.0, prompt_tokens=0,
                                          output_tokens=10, prefill_ep=32,
                                          prefill_tokens_per_gpu=1024, decode_ep=32,
                                          decode_batch_per_gpu=8), "prompt_tokens"),
    (lambda: setups.disaggregated_serving("deepseek-v3", "H100-SXM", -1.0, prompt_tokens=10,
                                          output_tokens=10, prefill_ep=32,
                                          prefill_tokens_per_gpu=1024, decode_ep=32,
                                          decode_batch_per_gpu=8), "price_usd_per_gpu_hour"),
    (lambda: setups.prefix_cached_prefill("llama-3.1-8b", "H100-SXM", 2.0, prompt_tokens=100,
                                          cached_tokens=0), "cached_tokens"),
    (lambda: setups.prefix_cached_prefill("llama-3.1-8b", "H100-SXM", 2.0, prompt_tokens=100,
                                          cached_tokens=10, batch=0), "batch"),
    (lambda: setups.api_price_comparison("no-such-gpu"), "accelerator"),
])
def test_new_entry_points_refuse_bad_input_with_the_field(call, field):
    with pytest.raises(ValueError, match=field):
        call()


# ------------------------------------------------------------------------------ multi-node dense
def test_405b_bf16_needs_two_h100_nodes_and_fits_tp8_pp2():
    # vLLM blog "Announcing Llama 3.1 Support in vLLM" (2024-07-23): the BF16 405B runs "on
    # multiple nodes by placing different layers of the model on different nodes"; FP8 on one
    # 8×H100 node. By hand: 405.9e9 × 2 B / 8 = 101.5 GB per GPU > 0.9 × 85.9 GB usable.
    with pytest.raises(ValueError, match="do not fit"):
        inf.max_batch("llama-3.1-405b", "H100-SXM", 2048, tp=8)
    assert inf.max_batch("llama-3.1-405b", "H100-SXM", 2048, tp=8, weight_dtype="fp8") > 0
    r = setups.pipeline_replica("llama-3.1-405b", "H100-SXM", tp=8, pp=2, batch=64,
                                prompt_tokens=1024, context_tokens=1536)
    # Capacity by hand: per GPU 0.9 × 85,899,345,920 − 405,853,388,800 (the architecture's
    # count) × 2 × (63/126) / 8 bytes; a sequence of 1,537 tokens: 2·126·8·128·2 = 516,096 B
    # per token × 1/8 (TP) × 1/2 (PP).
    usable = 0.9 * 85_899_345_920 - 405_853_388_800 * 2 * 0.5 / 8
    assert r.max_batch == int(usable // (516_096 * 1537 / 16))
    assert r.nodes == 2 and r.inter_node_hops == 1
    # One hidden state per token crosses the node boundary: d_model 16,384 × 2 B.
    assert r.inter_node_bytes_per_token == 16384 * 2


def test_pipeline_cycle_is_stages_plus_hops_by_hand():
    # TP8 · PP2 on two H100 nodes, batch 64: two micro-batches of 32; the cycle is two stage
    # passes + the activation hop across the NIC (3.6 + 2.5 µs + 32 × 16,384 × 2 B /
    # (50 GB/s × 0.96)) + the sampled tokens' return hop (latency only).
    r = setups.pipeline_replica("llama-3.1-405b", "H100-SXM", tp=8, pp=2, batch=64,
                                prompt_tokens=1024, context_tokens=1536)
    stage = float(inf.decode_step("llama-3.1-405b", "H100-SXM", 32, 1536, tp=8).time_s) / 2
    hop = 6.1e-6 + 32 * 16384 * 2 / (50e9 * 0.96)
    assert r.stage_s == pytest.approx(stage, rel=1e-9)
    assert r.tpot_s == pytest.approx(2 * stage + hop + 6.1e-6, rel=1e-9)
    assert r.tokens_per_s_per_gpu == pytest.approx(64 / (r.tpot_s * 16), rel=1e-9)
    # the bound is respected by the expected figures
    assert r.expected_tpot_s > r.tpot_s and r.expected_ttft_s > r.ttft_s


def test_tp_beats_pp_at_minimum_latency_as_nvidia_measured():
    # NVIDIA technical blog "Boosting Llama 3.1 405B Throughput by Another 1.5x on NVIDIA H200
    # Tensor Core GPUs and NVLink Switch" (2024-10-09), TensorRT-LLM, FP8, HGX H200: at minimum
    # latency (batch 1) TP8 is 5.6x faster than PP8 (as summarised by blockchain.news,
    # 2024-10-11: "tensor parallelism outperforms pipeline parallelism by 5.6 times"; the
    # blog's table itself was not read). Its other claim, PP8 1.5x above TP8 at maximum
    # throughput, is NOT reproduced: the model puts PP8 below TP8 there (each stage re-reads
    # its weights for every micro-batch; TensorRT-LLM's exposed all-reduce cost is larger than
    # the modelled NVLink all-reduce).
    kw = dict(batch=1, prompt_tokens=2048, context_tokens=2112, weight_dtype="fp8",
              kv_dtype="fp8", engine="TensorRT-LLM")
    tp8 = setups.pipeline_replica("llama-3.1-405b", "H200", tp=8, pp=1, **kw)
    pp8 = setups.pipeline_replica("llama-3.1-405b", "H200", tp=1, pp=8, **kw)
    assert pp8.expected_tpot_s / tp8.expected_tpot_s == pytest.approx(5.6, rel=0.25)
    assert pp8.nodes == 1 and pp8.inter_node_hops == 0


def test_pp_over_tp_latency_is_nvidias_comparison():
    # the same NVIDIA comparison as above through the notebook's one call (5.6x, 25 % two-sided)
    r = setups.pp_over_tp_latency()
    assert r == pytest.approx(setups.NVIDIA_PP8_OVER_TP8_LATENCY, rel=0.25)
    assert setups.NVIDIA_PP8_OVER_TP8_LATENCY == 5.6


def test_replica_layouts_rows_are_pipeline_replica_and_refusals_are_named():
    kw = dict(prompt_tokens=1024, context_tokens=1536, engine="vLLM")
    t = setups.replica_layouts("llama-3.1-405b", "H100-SXM", layouts=[(8, 2), (16, 1)],
                               batches=(64, 100000), **kw)
    r = setups.pipeline_replica("llama-3.1-405b", "H100-SXM", tp=8, pp=2, batch=64, **kw)
    row = t[(t["layout"] == "TP8·PP2") & (t["batch"] == 64)].iloc[0]
    assert row["tpot_expected_s"] == r.expected_tpot_s and row["nodes"] == 2
    # by hand: one node boundary, d_model 16,384 × 2 B per token
    assert row["inter_node_bytes_per_token"] == 16384 * 2
    far = t[t["batch"] == 100000]
    assert len(far) == 2 and far["note"].str.contains("holds at most").all()
    assert far["tpot_expected_s"].isna().all()
    with pytest.raises(ValueError, match="layouts"):
        setups.replica_layouts("llama-3.1-405b", "H100-SXM", layouts=[(8,)], batches=(1,), **kw)


def test_chunked_prefill_budgets_trade_stall_for_ttft():
    # Sarathi-Serve (Agrawal et al. 2024, §3-4): smaller chunks bound the decodes' time between
    # tokens during a prefill and cost the prompt some TTFT
    t = setups.chunked_prefill_budgets("llama-3.1-8b", "H100-SXM", budgets=(512, 2048, 8192),
                                       prompt_tokens=8192, decode_batch=64,
                                       context_tokens=1024, engine="vLLM")
    assert t["tpot_during_prefill_s"].is_monotonic_increasing
    assert (t["tpot_during_prefill_s"] < t["decode_stall_unchunked_s"]).all()
    assert (t["ttft_s"] >= t["ttft_unchunked_s"]).all()
    c = setups.chunked_prefill("llama-3.1-8b", "H100-SXM", prompt_tokens=8192, decode_batch=64,
                               context_tokens=1024, token_budget=2048, engine="vLLM")
    assert t.loc[1, "chunks"] == c.chunks == 5   # by hand: ⌈8192 / (2048 − 64)⌉ = 5


@pytest.mark.parametrize("kw, field", [
    (dict(model="deepseek-v3"), "model"),
    (dict(tp=12), "tp"),
    (dict(pp=0), "pp"),
    (dict(pp=200), "pp"),
    (dict(batch=10**6), "batch"),
    (dict(weight_dtype="fp5"), "weight_dtype"),
    (dict(tp=8, pp=1), "tp=8, pp=1"),
])
def test_pipeline_replica_refuses_bad_input(kw, field):
    args = dict(model="llama-3.1-405b", accelerator="H100-SXM", tp=8, pp=2, batch=8,
                prompt_tokens=1024, context_tokens=1536)
    args.update(kw)
    with pytest.raises(ValueError, match=field):
        setups.pipeline_replica(args.pop("model"), args.pop("accelerator"), **args)


# ------------------------------------------------------------------------------ chunked prefill
def test_chunked_prefill_hybrid_step_by_hand():
    # Llama 3.1 8B BF16 on one H100, 64 sequences decoding at 1,024 tokens, a 1,024-token
    # prompt, token budget 512 (Sarathi-Serve's strict-SLO budget, Agrawal et al. 2024 §5):
    # chunk budget 512 − 64 = 448 → n = ⌈1024/448⌉ = 3 chunks of ⌈1024/3⌉ = 342 tokens; a chunk
    # attends on average to 342·(3 − 1)/2 = 342 earlier keys.
    m, acc = "llama-3.1-8b", "H100-SXM"
    r = setups.chunked_prefill(m, acc, prompt_tokens=1024, decode_batch=64,
                               context_tokens=1024, token_budget=512)
    assert (r.chunks, r.chunk_tokens) == (3, 342)
    d = inf.decode_step(m, acc, 64, 1024)
    c = inf.prefill(m, acc, 342, 1)
    eff = llmcost.load_efficiency(acc)
    a = inf.attention_flops_per_key(m, False)
    compute = d.compute_s + c.compute_s + 342 * a * 342 / (989.4e12 * eff.attention_fraction)
    # weights read once for the 406 tokens (dense: W(64) = W(342) = W(406), so one copy less)
    hbm = d.hbm_bytes + c.hbm_bytes - inf.weights_read_bytes(m, 64)
    memory = hbm / (3.35e12 * 0.9) + 342 * 131_072 / (3.35e12 * 0.9)
    assert r.hybrid_step_s == pytest.approx(max(compute, memory), rel=1e-9)
    assert r.ttft_s == pytest.approx(3 * r.hybrid_step_s, rel=1e-12)
    assert r.speedup == pytest.approx((3 * d.time_s + r.prefill_alone_s) / r.ttft_s, rel=1e-12)


def test_chunked_prefill_trades_ttft_for_decode_stalls_as_sarathi_serve_reports():
    # Sarathi-Serve (Agrawal et al. 2024, OSDI, arXiv:2403.02310): chunked prefills bound the
    # time between tokens of the running decodes (no "generation stall"), smaller chunks cost
    # time to first token (each re-reads the earlier chunks' KV cache and the weights).
    kw = dict(prompt_tokens=8192, decode_batch=64, context_tokens=1024)
    small = setups.chunked_prefill("llama-3.1-8b", "H100-SXM", token_budget=512, **kw)
    large = setups.chunked_prefill("llama-3.1-8b", "H100-SXM", token_budget=2048, **kw)
    for r in (small, large):
        assert r.tpot_during_prefill_s < r.decode_stall_unchunked_s / 4
        assert r.ttft_s >= r.ttft_unchunked_s
    assert small.tpot_during_prefill_s < large.tpot_during_prefill_s
    assert small.ttft_s > large.ttft_s
    # regression pin beside the checks above: vLLM's server default on ≥ 70 GiB GPUs
    # (vllm/engine/arg_utils.py get_batch_defaults: OPENAI_API_SERVER 8192)
    assert setups.VLLM_TOKEN_BUDGET == 8192


def test_chunked_prefill_reproduces_sarathi_serve_measurements():
    # Published rows (data/serving_chunked_prefill.csv, each cited to Sarathi-Serve's artifact,
    # microsoft/sarathi-serve osdi-experiments @02d2567): Yi-34B FP16 at TP 2 on A100 80 GB,
    # a hybrid step of a 1,021-token chunk + 3 decodes (217.65 ms, table-2/results.csv) and
    # prompts of 2,047-16,383 tokens prefilled in 512-token chunks (435.7-4,512.8 ms,
    # figure-9/chunking-overhead.csv). Goal of the serving issue: within 25 %; no row beats
    # the roofline. Errors 2-7 % when the rows were added (pooled constants, one prefill
    # fraction for every GPU); with the Ampere compute-bound prefill scale fitted on
    # TensorRT-LLM's A100 SXM rows (inference.PREFILL_COMPUTE_SCALE, added afterwards) the model
    # runs these A100 PCIe (300 W) steps 19-26 % faster than measured: ratio = measured ÷
    # expected seconds 1.19-1.26, the 16,383-token prompt just past 25 %; with the prefill's LM
    # head on each prompt's last token and the constants refitted (s 1.45 → 1.40), 1.13-1.19.
    # Tracked two-sided.
    v = setups.chunked_prefill_validation().set_index("row_id")
    assert len(v) == 5
    assert v["bound_ok"].all()
    assert ((v["ratio"] >= 1.10) & (v["ratio"] <= 1.30)).all(), v["ratio"]
    hybrid = v.loc["sarathi-yi34b-a100-tp2-hybrid-1021p-3d"]
    assert hybrid["measured_s"] == pytest.approx(0.2176499, rel=1e-6)
    assert hybrid["abs_error"] <= 0.25


def test_piggybacked_decodes_ride_free_in_a_compute_bound_chunk():
    # Sarathi-Serve's artifact (table-2/results.csv @02d2567, Yi-34B TP 2 on A100): a hybrid
    # batch of 1,021 prefill + 3 decode tokens took 217.650 ms, a prefill-only batch of 1,024
    # tokens 217.236 ms: ratio 1.0019. chunked_prefill prices the hybrid step with one weight
    # read for the 1,024 tokens, so it must match inference.prefill of 1,024 tokens to about
    # the same ratio (the 3 decodes' attention over ~1,032 keys is the only difference).
    kw = dict(weight_dtype="fp16", kv_dtype="fp16", tp=2)
    c = setups.chunked_prefill("yi-34b", "A100-80GB", prompt_tokens=1021, decode_batch=3,
                               context_tokens=1032, token_budget=1024, **kw)
    pre = inf.prefill("yi-34b", "A100-80GB", 1024, 1, **kw)
    assert c.chunks == 1 and c.chunk_tokens == 1021 and c.hybrid_bound == "compute"
    assert c.hybrid_step_s / float(pre.time_s) == pytest.approx(217.6499 / 217.2360, abs=0.01)


@pytest.mark.parametrize("kw, field", [
    (dict(token_budget=64), "token_budget"),
    (dict(token_budget=0), "token_budget"),
    (dict(decode_batch=0), "decode_batch"),
    (dict(prompt_tokens=1.5), "prompt_tokens"),
    (dict(decode_batch=100_000), "decode_batch"),
    (dict(engine="llama.cpp"), "engine"),
])
def test_chunked_prefill_refuses_bad_input(kw, field):
    args = dict(prompt_tokens=1024, decode_batch=64, context_tokens=1024)
    args.update(kw)
    with pytest.raises(ValueError, match=field):
        setups.chunked_prefill("llama-3.1-8b", "H100-SXM", **args)


def test_tp_across_nodes_by_hand():
    # vLLM's other multi-node layout (blog 2024-07-23: "sharding the model across multiple
    # nodes"): TP16 over 2×8 H100, no PP. Compute halves against TP8; HBM bytes = weights read
    # + the KV cache at its per-rank share (8 KV heads over 16 ranks: each head on 2 ranks, so
    # the cache is held twice); 2·126 all-reduces of 64 × 16,384 × 2 B across the two nodes at
    # NCCL's cost model.
    from llmcost.core.hardware import Cluster
    from llmcost.training.comm import nccl_collective_time

    m, acc = "llama-3.1-405b", llmcost.load_accelerator("H100-SXM")
    r = setups.pipeline_replica(m, acc, tp=16, pp=1, batch=64, prompt_tokens=1024,
                                context_tokens=1536)
    st8 = inf.decode_step(m, acc, 64, 1536, tp=8)
    w = inf.weights_read_bytes(m, 64)
    kv_once = (st8.hbm_bytes - w) / (1 / 8 * 8)
    memory = (w + kv_once * (1 / 8) * 16) / (16 * 3.35e12 * 0.9)
    comm = 2 * 126 * nccl_collective_time("all_reduce", 64 * 16384 * 2, 16, Cluster(acc, 16))
    assert r.tpot_s == pytest.approx(max(st8.compute_s / 2, memory) + comm, rel=1e-9)
    assert (r.nodes, r.inter_node_hops, r.inter_node_bytes_per_token) == (2, 0, 0)
    # the replicated KV heads halve the capacity against TP8·PP2 (per sequence, every rank
    # holds 1/8 of all 126 layers' cache instead of 1/8 of 63 layers')
    pp2 = setups.pipeline_replica(m, acc, tp=8, pp=2, batch=64, prompt_tokens=1024,
                                  context_tokens=1536)
    assert r.max_batch == pytest.approx(pp2.max_batch / 2, abs=1)


def test_setups_side_by_side_rows_are_the_called_set_ups():
    # consistency with the three calls it names; the SGLang deployment's agreement with its
    # published rows is checked by the setup_validation tests above
    kw = dict(prompt_tokens=1000, output_tokens=250)
    t = setups.setups_side_by_side("llama-2-70b", "H100-SXM", 3.0, max_tpot_s=0.05, **kw)
    tp8 = inf.serving_cost("deepseek-v3", "H200", 3.0, tp=8, weight_dtype="fp8",
                           kv_dtype="bf16", **kw)
    ep = setups.disaggregated_serving("deepseek-v3", "H100-SXM", 3.0, **kw,
                                      **setups.MOE_DEPLOYMENT)
    col = "expected output tok/s per GPU (whole deployment)"
    assert t.loc[1, col] == tp8.expected_output_tokens_per_s_per_gpu
    assert t.loc[2, col] == ep.expected_output_tokens_per_s_per_gpu
    assert t.attrs["disaggregated"].usd_per_m_output == t.loc[2, "USD per M output"]
    assert t.loc[0, "set-up"].startswith("llama-2-70b: TP")


def test_setups_side_by_side_keeps_an_example_that_does_not_fit_as_a_row():
    # A trial: a scenario with inference_prompt_tokens 3000 stopped notebook 05 (and its
    # report) on "tokens_per_gpu=256 does not fit", the EP72 decode pool of DeepSeek-V3 that
    # MOE_DEPLOYMENT fixes: 256 sequences of 3,000 + 126 tokens per GPU overflow the KV cache
    # beside its weights (the error's own figure: room for 227). The example row stays, priced
    # NaN, its set-up saying why and naming the model; the scenario's own row is priced.
    kw = dict(prompt_tokens=3000, output_tokens=250)
    with pytest.raises(DoesNotFit, match="tokens_per_gpu=256 does not fit"):
        setups.disaggregated_serving("deepseek-v3", "H100-SXM", 3.0, **kw,
                                     **setups.MOE_DEPLOYMENT)
    t = setups.setups_side_by_side("llama-2-70b", "H100-SXM", 3.0, max_tpot_s=0.05, **kw)
    assert len(t) == 3 and t.attrs["disaggregated"] is None
    assert t.loc[2, "set-up"].startswith("deepseek-v3: P/D disaggregated") and \
        "not at 3,000 in / 250 out: tokens_per_gpu=256 does not fit" in t.loc[2, "set-up"]
    assert t.loc[2, ["batch per replica or GPU", "USD per M output"]].isna().all()
    assert t.loc[0, "USD per M output"] > 0 and t.loc[1, "USD per M output"] > 0


def test_ep_options_object_and_keywords_give_the_same_set_up():
    # One EPOptions carries ep_step's and disaggregated_serving's settings; keywords replace its
    # fields; a keyword of another set-up (tp) or a misspelt one is refused by name.
    pools = dict(prompt_tokens=2000, output_tokens=500, **setups.MOE_DEPLOYMENT)
    by_keywords = setups.disaggregated_serving("deepseek-v3", "H100-SXM", 2.0, **pools)
    opts = setups.EPOptions(weight_dtype="fp8", redundant_experts=0)
    pools.pop("redundant_experts")
    same = setups.disaggregated_serving("deepseek-v3", "H100-SXM", 2.0, options=opts,
                                        redundant_experts=32, **pools)
    assert same == by_keywords
    # redundant_experts is the decode pool's: 288 slots over EP72 = 4 per GPU; prefill holds
    # the 256 routed experts over EP32 = 8 per GPU either way.
    assert same.prefill == setups.ep_step("deepseek-v3", "H100-SXM", ep=32, phase="prefill",
                                          tokens_per_gpu=16384, context_tokens=2000)
    # the options reach the KV transfer too: at ideal fractions 2,000 × 70,272 B / 50e9 B/s
    ideal = llmcost.Efficiency("ideal", 1.0, 1.0, 1.0, 1.0, 1.0)
    fast = setups.disaggregated_serving("deepseek-v3", "H100-SXM", 2.0, options=opts,
                                        redundant_experts=32, efficiency=ideal, **pools)
    assert fast.kv_transfer_s == pytest.approx(2000 * 70_272 / 50e9, rel=1e-9)
    assert fast.expected_output_tokens_per_s_per_gpu > same.expected_output_tokens_per_s_per_gpu
    for bad in ("tp", "redundant_expert"):
        with pytest.raises(ValueError, match=rf"\['{bad}'\]"):
            setups.ep_step("deepseek-v3", "H100-SXM", ep=72, phase="decode", tokens_per_gpu=8,
                           context_tokens=2000, **{bad: 8})


def test_fp4_checkpoint_prices_its_kept_modules_at_their_precision():
    # NVIDIA's NVFP4 DeepSeek-R1 keeps attention, router and LM head in BF16 (TensorRT-LLM tech
    # blog 1 "Precision Strategy"; ModelOpt's default disabled quantizers) and the embedding
    # table unquantized. Hand derivation, DeepSeek-V3 shapes, EP8 on B200, decode of 384
    # sequences: the kept groups hold N_kept = 11,413,547,008 (attention) + 106,430,464
    # (router) + 926,679,040 (LM head) + 926,679,040 (embedding) parameters; each costs
    # 2 − (0.5 + 1/16) = 1.4375 B more than in NVFP4, resident on every GPU (DP attention).
    acc = llmcost.load_accelerator("B200")
    m = llmcost.load_model("deepseek-v3")
    kw = dict(ep=8, phase="decode", tokens_per_gpu=384, context_tokens=2048,
              weight_dtype="nvfp4")
    fp4 = setups.ep_step(m, acc, **kw)
    kept = setups.ep_step(m, acc, kept_weight_dtype=setups.NVFP4_MODELOPT_KEPT, **kw)
    n_read = 11_413_547_008 + 106_430_464 + 926_679_040   # the embedding is looked up, not read
    n_kept = n_read + 926_679_040
    assert kept.resident_bytes_per_gpu - fp4.resident_bytes_per_gpu == pytest.approx(
        n_kept * 1.4375, rel=1e-9)                     # 19.9 GB more per GPU
    # the step reads n_read × 1.4375 B = 19.2 GB more at HBM bytes/s × hbm_fraction
    eff = inf.serving_efficiency(None, acc)
    assert kept.memory_s - fp4.memory_s == pytest.approx(
        n_read * 1.4375 / (acc.hbm_bytes_per_s * eff.hbm_fraction), rel=1e-9)
    # prefill of 1,024 tokens: the kept matmuls (attention, router, LM head; the active
    # attention count 11,413,422,080 omits the norms inside attention) run at the BF16 peak
    # rather than the FP4 one: Δcompute = 2 · (T · N + T_logit · N_lm) · (1/peak_bf16 −
    # 1/peak_fp4) / matmul_fraction, the LM head on the one prompt's last token (T_logit = 1:
    # inference.logit_tokens)
    pk = dict(kw, phase="prefill", tokens_per_gpu=1024, context_tokens=1024)
    n_mm = 11_413_422_080 + 106_430_464
    d = setups.ep_step(m, acc, kept_weight_dtype=setups.NVFP4_MODELOPT_KEPT, **pk).compute_s \
        - setups.ep_step(m, acc, **pk).compute_s
    assert d == pytest.approx(2 * (1024 * n_mm + 926_679_040) * (1 / acc.peak_flops_per_s("bf16")
                                                 - 1 / acc.peak_flops_per_s("fp4"))
                              / eff.matmul_fraction, rel=1e-9)
    # DeepSeek's own FP8 release keeps LM head, embedding and router in BF16 (its inference
    # code): (926,679,040 × 2 + 106,430,464) parameters × (2 − 1) B more resident per GPU
    f8 = dict(kw, weight_dtype="fp8")
    assert setups.ep_step(m, acc, kept_weight_dtype=setups.FP8_DEEPSEEK_KEPT, **f8) \
        .resident_bytes_per_gpu - setups.ep_step(m, acc, **f8).resident_bytes_per_gpu \
        == pytest.approx(926_679_040 * 2 + 106_430_464, rel=1e-9)
    # every module in the weights' own format is the old pricing, exactly
    assert setups.ep_step(m, acc, kept_weight_dtype={}, **kw) == fp4
    for bad in ({"ffn_routed_experts": "bf16"}, {"attention": "fp6"}, ["attention"]):
        with pytest.raises(ValueError, match="kept_weight_dtype"):
            setups.ep_step(m, acc, kept_weight_dtype=bad, **kw)


def test_api_prices_keep_a_model_whose_deployment_does_not_fit_the_gpu():
    # A new-user trial: notebook 05 stopped on a 40 GB A100 scenario, DeepSeek-V3's decode pool
    # modelled on it. DeepSeek-V3 is now modelled on the H100 deployment its set-up names
    # (setups.named_setup_price, tests/test_named_setup_price.py), so the A100 no longer
    # decides whether it fits; a prompt does. By hand (test_setups_side_by_side_keeps_...):
    # 256 sequences of 3,000 + 125 tokens per EP72 decode GPU overflow an H100's KV cache
    # beside its weights, so the row is kept, not priced, and says which GPU it was on.
    d = setups.api_price_comparison("A100-40GB", 0.9, prompt_tokens=3000, output_tokens=250)
    ds = d[d["model"] == "deepseek-v3"].iloc[0]
    assert ds["set_up"].startswith("not modelled on H100-SXM: ") and "does not fit" in ds["set_up"]
    assert pd.isna(ds["modelled_usd_per_m_output"]) and pd.isna(ds["margin_output"])
    dense = d[d["model"] != "deepseek-v3"]
    assert dense["modelled_usd_per_m_output"].notna().all()
    assert (dense["accelerator"] == "A100-40GB").all() and (dense["usd_per_gpu_hour"] == 0.9).all()
