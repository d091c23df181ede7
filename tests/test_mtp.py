"""Multi-token prediction (DeepSeek-AI 2024, DeepSeek-V3 Technical Report, arXiv:2412.19437
§2.2): parameters, training FLOPs and the step time of its modules."""

import json
from pathlib import Path

import pytest

import llmcost
from llmcost import Cluster, ModelSpec, make_plan, step_time

HF = Path(__file__).parent / "data" / "hf_configs"

# DeepSeek-V3's shapes (report §4.2; config.json): d = 7168, 128 heads, MLA ranks 1536 / 512,
# qk_nope 128, rope 64, v 128, 256 routed + 1 shared expert of width 2048, top-8, V = 129,280.
D, H, QR, KVR, NOPE, ROPE, VH = 7168, 128, 1536, 512, 128, 64, 128
E, K, NS, FE, V = 256, 8, 1, 2048, 129280
# one MLA layer's matrices (DeepSeek-V2 §2.1): W_DQ, W_UQ, W_DKV + W_KR, W_UK + W_UV, W_O
ATTN = D * QR + QR * H * (NOPE + ROPE) + D * (KVR + ROPE) + KVR * H * (NOPE + VH) + H * VH * D
EXPERT = 3 * D * FE                    # SwiGLU: gate, up, down


def test_mtp_parameters_hand_count_and_the_weights_readme():
    m = llmcost.load_model("deepseek-v3")
    assert m.mtp_depth == 1            # report §4.2: "we set the MTP depth D to 1"
    # the module: one transformer block (MLA + MoE with its router), M_k of d x 2d, and
    # RMSNorm weights: two in the block, hnorm, enorm, the norm before the shared head; MLA's
    # two latent norms (q_a, kv_a)
    hand = ATTN + QR + KVR + (E + NS) * EXPERT + E * D + 2 * D * D + 5 * D
    assert m.n_mtp_params == hand
    # README_WEIGHTS.md (deepseek-ai/DeepSeek-V3): "11.5B unique parameters, excluding the
    # shared 0.9B Embedding and 0.9B output Head"; the count gives 11.61B
    assert m.n_mtp_params == pytest.approx(11.5e9, rel=0.015)
    # the 671B stays the main model's
    assert m.n_params == pytest.approx(671e9, rel=0.002)


def test_mtp_training_flops_hand_count():
    m = llmcost.load_model("deepseek-v3")
    s = 4096
    # forward per token: M_k (2·2d·d), the block's projections, its attention core over the
    # full s keys (2·H·(d_qk + d_v) per key), 9 experts and the router, and the shared head
    fwd = (2 * 2 * D * D + 2 * ATTN + 2 * H * (NOPE + ROPE + VH) * s + 2 * (K + NS) * EXPERT
           + 2 * E * D + 2 * V * D)
    b = m.flops_per_token_breakdown(s, causal=False)
    assert b["mtp"] == pytest.approx(3 * fwd, rel=1e-12)
    no_mtp = m.replace(mtp_depth=0)
    assert b["total"] - no_mtp.flops_per_token(s, causal=False) == pytest.approx(3 * fwd)
    # discarded at inference (§2.2): the forward count has no MTP
    assert m.flops_per_token(s, training=False) == no_mtp.flops_per_token(s, training=False)
    # full recomputation re-runs the block, not M_k or the head
    full = m.flops_per_token_breakdown(s, causal=False, recompute="full")["recompute"]
    assert full - no_mtp.flops_per_token_breakdown(s, causal=False, recompute="full")[
        "recompute"] == pytest.approx(fwd - 2 * 2 * D * D - 2 * V * D)


def test_mtp_share_against_nvidias_model_flops():
    # NVIDIA's Megatron-Bridge 25.11 performance summary prices DeepSeek-V3 at 782 model TFLOP/s
    # for 3,139 tokens/s/GPU "w/o MTP" (GB200) and 557 TFLOP/s for 2,139 "w/ MTP" (B200):
    # 249.1 and 260.4 GFLOP per token, MTP +4.53% on its count (causal attention at 4,096).
    published = (557 / 2139) / (782 / 3139)
    m = llmcost.load_model("deepseek-v3")
    ours = m.flops_per_token(4096) / m.replace(mtp_depth=0).flops_per_token(4096)
    assert ours == pytest.approx(published, abs=0.01)     # 1.041 against 1.045


def test_hf_config_reads_num_nextn_predict_layers():
    cfg = json.loads((HF / "deepseek-v3.json").read_text())
    assert ModelSpec.from_hf_config(cfg).mtp_depth == 1
    cfg["num_nextn_predict_layers"] = 0
    assert ModelSpec.from_hf_config(cfg).mtp_depth == 0


def test_mtp_depth_is_checked():
    m = llmcost.load_model("deepseek-v3")
    with pytest.raises(ValueError, match="mtp_depth=-1 must be >= 0"):
        m.replace(mtp_depth=-1)
    with pytest.raises(ValueError, match="mtp_depth=1.5 must be a whole number"):
        m.replace(mtp_depth=1.5)


def test_mtp_adds_its_layer_and_head_to_the_last_stage():
    # Megatron-Core places every MTP layer on the last pipeline stage by default (user guide,
    # Multi-Token Prediction).
    m = llmcost.load_model("deepseek-v3")
    no = m.replace(mtp_depth=0)
    cl = Cluster(llmcost.load_accelerator("H100-SXM"), 1024)

    def ratio(pp):
        plan = make_plan(m, 1024, 1024, tp=1, pp=pp, ep=64, micro_batch_size=1,
                         seq_len=4096, pp_split="uneven")
        a, b = step_time(m, cl, plan, 4096), step_time(no, cl, plan, 4096)
        # the model FLOPs of the step count the module (the MFU basis includes it)
        assert a.model_flops / b.model_flops == pytest.approx(
            m.flops_per_token(4096, causal=False) / no.flops_per_token(4096, causal=False))
        return a.step_time_s / b.step_time_s

    # Without a pipeline the step grows by about the module's share of the FLOPs (3.8%, full
    # mask); its MoE layer also pays its all-to-all and host cost, its head and loss are
    # memory-bound in part: within a factor of two of the FLOP share either way.
    share = m.flops_per_token(4096, causal=False) / no.flops_per_token(4096, causal=False) - 1
    assert 1 + share / 2 < ratio(1) < 1 + 2 * share
    # With PP 16 the module and the loss take three layer slots of the last stage
    # (Megatron-Bridge's layout [E + 4, 4 x 14, 1 + MTP + loss]; memory.PP_SPLITS), so the last
    # stage stays no busier than the others: the step grows by less than the FLOP share, and
    # the predicted MFU rises.
    r16 = ratio(16)
    assert 1.0 < r16 < 1 + share
    # a model without MTP: the field's default changes nothing
    llama = llmcost.load_model("llama-3.1-8b")
    assert llama.mtp_depth == 0 and llama.flops_per_token_breakdown(4096)["mtp"] == 0


def test_mtp_module_memory_on_the_last_stage_hand_count():
    # Megatron-Core keeps every MTP layer on the last pipeline stage (user guide, Multi-Token
    # Prediction); its module is one MoE block, M_k (d x 2d) and norms (report §2.2).
    m = llmcost.load_model("deepseek-v3")
    no = m.replace(mtp_depth=0)
    plan = make_plan(m, 64, 64, tp=1, pp=1, ep=8, micro_batch_size=1, seq_len=4096)
    a = llmcost.memory_per_gpu(m, plan, 4096)
    b = llmcost.memory_per_gpu(no, plan, 4096)
    # per rank: the block's attention, router and shared expert whole, the routed experts / EP,
    # M_k and five norm vectors (two of the block, hnorm, enorm, the head's norm; MLA's
    # latent norms q_a, kv_a); 2 bytes each as BF16 working weights
    hand = ATTN + QR + KVR + NS * EXPERT + E * D + 2 * D * D + 5 * D + E * EXPERT / 8
    assert (a.weights - b.weights) / 2 == pytest.approx(hand, rel=1e-12)
    # Adam's two fp32 moments of the same parameters (no ZeRO: the default plan's stage 0)
    assert (a.optimizer_states - b.optimizer_states) / 8 == pytest.approx(hand, rel=1e-12)
    # at TP = EP = 1 the rank holds the whole module: ModelSpec.n_mtp_params (11.61B)
    one = make_plan(m, 8, 8, tp=1, pp=1, ep=1, micro_batch_size=1, seq_len=4096)
    w = (llmcost.memory_per_gpu(m, one, 4096).weights
         - llmcost.memory_per_gpu(no, one, 4096).weights) / 2
    assert w == pytest.approx(m.n_mtp_params, rel=1e-12)


def test_mtp_memory_sits_on_the_last_stage_only():
    # a dense model given one MTP module, evenly split on 4 stages: the first stage is
    # unchanged, the last holds the module's layer, projection, norms, activations and logits
    m = llmcost.load_model("llama-3.1-8b")
    mt = m.replace(mtp_depth=1)
    s, h, V = 4096, m.d_model, m.vocab_size
    plan = make_plan(m, 32, 64, tp=1, pp=4, micro_batch_size=1, seq_len=s)
    first = [llmcost.memory_per_gpu(x, plan, s, stage=0) for x in (mt, m)]
    assert first[0].total == first[1].total
    a, b = (llmcost.memory_per_gpu(x, plan, s, stage=3) for x in (mt, m))
    # parameters: one layer (attention, SwiGLU, its two norms), M_k and three norm vectors
    hd, g, f = m.d_head, m.n_kv_heads, m.d_ff
    hand_params = (h * m.n_heads * hd + 2 * h * g * hd + m.n_heads * hd * h + 3 * h * f
                   + 2 * h + 2 * h * h + 3 * h)
    assert (a.weights - b.weights) / 2 == pytest.approx(hand_params, rel=1e-12)
    # activations (1F1B: one micro-batch in flight on the last stage): one dense layer's as
    # the memory model counts it, plus the module's inputs 8·s·h bytes (two norm inputs and
    # the concatenated projection input, 16-bit); its logits 4·s·V bytes (fp32)
    layer = llmcost.memory.activation_bytes_per_layer(m, s, 1)
    assert a.activations - b.activations == pytest.approx(layer + 8 * s * h, rel=1e-12)
    assert a.embedding_and_logits - b.embedding_and_logits == pytest.approx(4 * s * V,
                                                                            rel=1e-12)
