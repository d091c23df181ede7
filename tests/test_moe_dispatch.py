"""MoE dispatch deduplication, FSDP2 reshard_after_forward and pipeline flushes (branch
moe-dispatch): hand derivations, the defaults reproducing the earlier model, bad inputs."""

from fractions import Fraction
from math import comb

import numpy as np
import pytest

import llmcost
from llmcost import Cluster, comm, parallel, stacks, step

H100 = llmcost.load_accelerator("H100-SXM")
H800 = llmcost.load_accelerator("H800")


def test_uniform_router_distinct_gpus_hypergeometric_by_hand():
    # E = 256 experts over G = 64 GPUs (4 each), k = 8 distinct experts per token drawn
    # uniformly: P(a given GPU gets none) = C(252, 8) / C(256, 8)
    #   = (252·251·250·249·248·247·246·245) / (256·255·254·253·252·251·250·249)
    #   = (248·247·246·245) / (256·255·254·253) = 0.880066...
    miss = Fraction(248 * 247 * 246 * 245, 256 * 255 * 254 * 253)
    assert miss == Fraction(comb(252, 8), comb(256, 8))
    gpus_by_hand = 64 * (1 - float(miss))            # = 7.6758 distinct GPUs
    # nodes: 8 nodes of 32 experts, P(node missed) = C(224, 8) / C(256, 8)
    nodes_by_hand = 8 * (1 - comb(224, 8) / comb(256, 8))   # = 5.2947
    gpus, nodes = comm.moe_destinations(256, 8, 64, 8)
    assert gpus == pytest.approx(gpus_by_hand, rel=1e-12)
    assert gpus == pytest.approx(7.6758, abs=1e-4)
    assert nodes == pytest.approx(nodes_by_hand, rel=1e-12)
    # limited to M = 4 nodes (DeepSeek-V3 §2.1.2): 8 experts among the 128 of 4 nodes
    g4 = 4 * 8 * (1 - comb(124, 8) / comb(128, 8))
    n4 = 4 * (1 - comb(96, 8) / comb(128, 8))
    got = comm.moe_destinations(256, 8, 64, 8, node_limit=4)
    assert got[0] == pytest.approx(g4, rel=1e-12) and got[1] == pytest.approx(n4, rel=1e-12)
    assert n4 <= 4                                   # never more nodes than the limit


def test_fake_balanced_gate_pattern_by_hand():
    # FakeBalancedGate: token i -> experts 8i..8i+7 mod E (NeMo AutoModel moe/layers.py)
    # DeepSeek V3, EP 64: 4 experts per GPU, the 8 experts fill GPUs 2i, 2i+1 (one node)
    assert comm.moe_destinations(256, 8, 64, 8, gate="fake_balanced") == (2.0, 1.0)
    # Kimi K2, EP 32: 12 per GPU; tokens 0, 1, 2 -> experts 0-7 (GPU 0), 8-15 (GPUs 0, 1),
    # 16-23 (GPU 1): 4/3 GPUs on average, one node
    gpus, nodes = comm.moe_destinations(384, 8, 32, 8, gate="fake_balanced")
    assert gpus == pytest.approx(4 / 3) and nodes == 1.0
    # Qwen3 30B-A3B, EP 8: 16 per GPU, 8 consecutive aligned experts on one GPU
    assert comm.moe_destinations(128, 8, 8, 8, gate="fake_balanced") == (1.0, 1.0)


def test_dispatch_copies_by_hand():
    # per_expert: k copies, (G - g)/G of them to other nodes, (g - 1)/G over NVLink
    assert comm.moe_dispatch_copies(256, 8, 64, 8) == pytest.approx((8 * 56 / 64, 8 * 7 / 64))
    # per_node with the fake gate (DeepSeek V3 EP 64): one node per token, another node 7/8 of
    # the time: 7/8 network copies; NVLink: 2 GPUs x 7/64 (own node) + 2 x 56/64 x 7/8 (forward)
    net, nvl = comm.moe_dispatch_copies(256, 8, 64, 8, dispatch="per_node", gate="fake_balanced")
    assert net == pytest.approx(7 / 8)
    assert nvl == pytest.approx(2 * 7 / 64 + 2 * 56 / 64 * 7 / 8)
    # per_gpu: 2 copies, 2 x 56/64 over the network
    net, _ = comm.moe_dispatch_copies(256, 8, 64, 8, dispatch="per_gpu", gate="fake_balanced")
    assert net == pytest.approx(2 * 56 / 64)
    # one node (EP 8): nothing leaves it
    assert comm.moe_dispatch_copies(128, 8, 8, 8, dispatch="per_node")[0] == 0.0


def test_per_expert_time_is_the_uniform_all_to_all():
    c = Cluster(H800, 2048)
    old = comm.cluster_collective_time("all_to_all", 2.0 * 4096 * 8 * 7168, 64, c, 1)
    assert comm.moe_all_to_all_time(4096, 8, 7168, 64, c, 1) == pytest.approx(old, rel=1e-12)
    # per_node, 4-node limit: the network carries 3.18 of 7 copies, the time falls by ~that
    t = comm.moe_all_to_all_time(4096, 8, 7168, 64, c, 1, dispatch="per_node", n_experts=256,
                                 node_limit=4)
    net, _ = comm.moe_dispatch_copies(256, 8, 64, 8, dispatch="per_node", node_limit=4)
    assert 0.95 * net / 7 < t / old < 1.1 * net / 7


def test_bad_moe_inputs():
    c = Cluster(H800, 2048)
    with pytest.raises(ValueError, match="moe_dispatch"):
        comm.moe_dispatch_copies(256, 8, 64, 8, dispatch="per_token")
    with pytest.raises(ValueError, match="moe_gate"):
        comm.moe_destinations(256, 8, 64, 8, gate="random")
    with pytest.raises(ValueError, match="n_experts"):
        comm.moe_destinations(256, 8, 48, 8)
    with pytest.raises(ValueError, match="top_k"):
        comm.moe_destinations(4, 8, 2, 2)
    with pytest.raises(ValueError, match="moe_node_limit"):
        comm.moe_destinations(64, 8, 64, 8, node_limit=0)
    with pytest.raises(ValueError, match="n_experts"):
        comm.moe_all_to_all_time(4096, 8, 7168, 64, c, dispatch="per_node")


def _dsv3_plan():
    spec = llmcost.load_model("deepseek-v3")
    plan = parallel.make_plan(spec, 256, 512, tp=1, pp=4, ep=64, zero_stage=3,
                              virtual_stages=8, schedule="interleaved", recompute="full",
                              seq_len=4096, pp_split="uneven", micro_batch_size=1)
    return spec, plan


def test_defaults_reproduce_the_per_expert_model():
    # stacks that keep per_expert dispatch, one flush and reshard True: options spelled out
    # give the same step as the defaults
    spec, plan = _dsv3_plan()
    cl = Cluster(H100, 256)
    base = step.step_time(spec, cl, plan, 4096, stack="megatron-core-2024")
    same = step.step_time(spec, cl, plan, 4096, stack="megatron-core-2024",
                          moe_dispatch="per_expert", pipeline_flushes=1,
                          fsdp_reshard_after_forward=True, moe_gate="fake_balanced")
    assert same.step_time_s == pytest.approx(base.step_time_s, rel=1e-12)
    st = stacks.load_stack("megatron-core-2024")
    assert (st.moe_dispatch, st.moe_node_limit, st.fsdp_reshard_after_forward) == \
        ("per_expert", None, "true")
    assert stacks.load_stack("deepspeed-zero3-2021").fsdp_reshard_after_forward == "true"
    assert stacks.load_stack("deepseek-hai-llm-2024").moe_node_limit == 4


def test_flushes_multiply_the_bubble_and_fill_p2p():
    spec, plan = _dsv3_plan()          # pp 4, v 8, m 8
    cl = Cluster(H100, 256)
    one = step.step_time(spec, cl, plan, 4096, stack="nemo-automodel-2025")
    two = step.step_time(spec, cl, plan, 4096, stack="nemo-automodel-2025", pipeline_flushes=2)
    # bubble per flush (p-1)/v slots of m/f micro-batches: f·(p-1)/v·t_avg, twice the bubble
    assert two.pipeline_bubble_s == pytest.approx(2 * one.pipeline_bubble_s, rel=1e-12)
    # P2P (blocking in this stack): m·2v·p2p in the steady state plus 2·(p·v − 1)·p2p per
    # flush's fill and drain: (8·16 + 62)·p2p with one flush, (8·16 + 2·62)·p2p with two
    assert two.pp_comm_s / one.pp_comm_s == pytest.approx((128 + 124) / (128 + 62), rel=1e-12)
    assert two.matmul_s == one.matmul_s and two.dp_comm_s == one.dp_comm_s
    with pytest.raises(ValueError, match="pipeline_flushes=3 must divide"):
        step.step_time(spec, cl, plan, 4096, pipeline_flushes=3)
    with pytest.raises(ValueError, match="pipeline_flushes"):
        step.step_time(spec, cl, plan, 4096, pipeline_flushes=0)


def test_reshard_false_removes_exactly_the_backward_gathers():
    # ZeRO-3: n_g = 1 + backward gathers (1, or 2 with full recompute); False: 0
    assert step.fsdp_backward_gathers("true", np.array([1, 4]), np.array([True, False])).tolist() \
        == [2.0, 1.0]
    assert step.fsdp_backward_gathers("false", 4, True) == 0.0
    assert step.fsdp_backward_gathers("not_pp", np.array([1, 4]), True).tolist() == [2.0, 0.0]
    # zero_exposure with dp_overlap off: ZeRO-3 per micro-batch = n_g·G + RS, so dropping the
    # two backward gathers (full recompute) removes exactly 2·G
    g, rs, f = 0.3, 0.5, 1.0
    kw = dict(z3_rs=rs, rs=0.0, grad=0.0, wgather=0.0, n_layers=10.0)
    on, _ = step.zero_exposure(3, False, f, gather=g, n_gathers=3.0, **kw)
    off, _ = step.zero_exposure(3, False, f, gather=g, n_gathers=1.0, **kw)
    assert on - off == pytest.approx(2 * g)
    # in the engine: with a pipeline, reshard False lowers only the DP/ZeRO part
    spec, plan = _dsv3_plan()
    cl = Cluster(H100, 256)
    t = step.step_time(spec, cl, plan, 4096, stack="pytorch-fsdp2-2024",
                       fsdp_reshard_after_forward=True)
    k = step.step_time(spec, cl, plan, 4096, stack="pytorch-fsdp2-2024")   # not_pp, pp 4
    assert k.dp_comm_s < t.dp_comm_s
    assert (k.matmul_s, k.ep_comm_s, k.recompute_s) == (t.matmul_s, t.ep_comm_s, t.recompute_s)
    with pytest.raises(ValueError, match="fsdp_reshard_after_forward"):
        step.step_time(spec, cl, plan, 4096, fsdp_reshard_after_forward="sometimes")
    with pytest.raises(ValueError, match="moe_node_limit"):
        step.step_time(spec, cl, plan, 4096, moe_node_limit=0)
    with pytest.raises(ValueError, match="moe_gate"):
        step.step_time(spec, cl, plan, 4096, moe_gate="random")


def test_rank_plans_accepts_the_new_options():
    spec = llmcost.load_model("qwen3-30b-a3b")
    r = step.rank_plans(spec, Cluster(H100, 64), 512, 4096, stack="nemo-automodel-2025",
                        moe_gate="fake_balanced", ep=[8])
    assert len(r) > 0 and (r["ep"] == 8).all()


def test_kept_weights_memory_by_hand():
    # dense model, ZeRO-3 over g = dp = 32, PP 2: the rank's shard is weights = b_w·P/g; with the
    # gathered weights kept (reshard_after_forward False) the stage's other (g − 1)/g stay, i.e.
    # weights·(g − 1), plus one layer's gradient buffer (half of reshard True's 2·b_w·unit)
    from llmcost import memory
    spec = llmcost.load_model("llama-2-70b")
    plan = parallel.make_plan(spec, 64, 256, tp=1, pp=2, zero_stage=3, recompute="full",
                              seq_len=4096)
    a = memory.memory_per_gpu(spec, plan, 4096)
    b = memory.memory_per_gpu(spec, plan, 4096, fsdp_reshard_after_forward="not_pp")
    g = plan.dp * plan.cp
    assert b.zero3_buffer == pytest.approx(a.weights * (g - 1) + a.zero3_buffer / 2, rel=1e-9)
    assert b.weights == a.weights and b.activations == a.activations
    # without a pipeline "not_pp" reshards: the one-layer buffer
    flat = parallel.make_plan(spec, 64, 256, tp=1, pp=1, zero_stage=3, recompute="full",
                              seq_len=4096)
    assert memory.memory_per_gpu(spec, flat, 4096, fsdp_reshard_after_forward="not_pp") == \
        memory.memory_per_gpu(spec, flat, 4096)
    with pytest.raises(ValueError, match="fsdp_reshard_after_forward"):
        memory.memory_per_gpu(spec, plan, 4096, fsdp_reshard_after_forward="maybe")
