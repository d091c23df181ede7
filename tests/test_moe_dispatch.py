"""MoE dispatch deduplication, FSDP2 reshard_after_forward and pipeline flushes (branch
moe-dispatch): hand derivations, the defaults reproducing the earlier model, bad inputs."""

from fractions import Fraction
from math import comb

import numpy as np
import pytest

import llmcost
from llmcost import Cluster, comm, parallel, stacks, step
from llmcost.training import ranking

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
    # a node limit that does not bind (M >= 8 nodes) changes nothing
    assert comm.moe_destinations(256, 8, 64, 8, node_limit=8) == (gpus, nodes)


def test_node_limited_rule_by_hand():
    # DeepSeek-V3 §2.1.2: pick the M nodes with the highest sums of their top K_r/M affinities,
    # then the top-k experts among those nodes' experts (affinities i.i.d.).
    # (a) 16 experts on 4 nodes of 1 GPU, k = 2, M = 2 (top-1 per node): the best expert is in
    # the best node; the second of the two chosen nodes holds the second node maximum, so the
    # token reaches 2 nodes exactly when the overall 2nd-highest affinity lies outside the
    # best expert's node: P = 12/15, nodes = 1 + 12/15 = 1.8 (standard error of the seeded
    # count ~0.4/sqrt(1e5) = 0.0013). Drawing 2 experts uniformly among the 2 chosen nodes'
    # 8 would give 2·(1 − C(4,2)/C(8,2)) = 1.571: the rule spreads more.
    gpus, nodes = comm.moe_destinations(16, 2, 4, 1, node_limit=2)
    assert nodes == pytest.approx(1.8, abs=0.006) and gpus == nodes
    assert nodes > 2 * (1 - comb(4, 2) / comb(8, 2)) + 0.2
    # (b) M = 1 (top-k of one node): every expert on that node, and which k of its 32 is
    # uniform by symmetry: GPUs = 8·(1 − C(28, 8)/C(32, 8)) (hypergeometric), nodes = 1
    gpus, nodes = comm.moe_destinations(256, 8, 64, 8, node_limit=1)
    assert nodes == 1.0
    assert gpus == pytest.approx(8 * (1 - comb(28, 8) / comb(32, 8)), abs=0.01)
    # (c) DeepSeek-V3's layout (256 experts, EP 64 over 8 nodes, M = 4, top-2 per node): a
    # reviewer's independent Monte-Carlo gives 3.95 nodes and 3.46 IB copies; the count lies
    # between the uniform-among-4-nodes draw, 4·(1 − C(96, 8)/C(128, 8)) = 3.63, and the limit
    gpus, nodes = comm.moe_destinations(256, 8, 64, 8, node_limit=4)
    assert nodes == pytest.approx(3.95, abs=0.01)
    assert 4 * (1 - comb(96, 8) / comb(128, 8)) < nodes <= 4
    net, _ = comm.moe_dispatch_copies(256, 8, 64, 8, dispatch="per_node", node_limit=4)
    assert net == pytest.approx(3.46, abs=0.01) and net == pytest.approx(nodes * 7 / 8)
    # deterministic: a fresh computation gives the same figures
    comm._node_limited_destinations.cache_clear()
    assert comm.moe_destinations(256, 8, 64, 8, node_limit=4) == (gpus, nodes)


def _node_limited_by_selection(E, k, G, g, M):
    """The node-limited count as first written (each token's top k selected over all E
    experts, the others masked to -1), which ``comm._node_limited_destinations`` (a comparison
    against each token's k-th largest affinity) must reproduce exactly."""
    N, per_node, e = G // g, E // (G // g), E // G
    top = max(k // M, 1)
    rng = np.random.default_rng(comm.NODE_LIMITED_SEED)
    gpus = nodes = 0.0
    chunk = 10_000
    for _ in range(comm.NODE_LIMITED_TOKENS // chunk):
        a = rng.random((chunk, N, per_node), dtype=np.float32)
        score = np.partition(a, per_node - top, axis=2)[:, :, per_node - top:].sum(axis=2)
        keep = np.argpartition(-score, M - 1, axis=1)[:, :M]
        masked = np.full_like(a, -1.0)
        rows = np.arange(chunk)[:, None]
        masked[rows, keep] = a[rows, keep]
        chosen = np.argpartition(-masked.reshape(chunk, E), k - 1, axis=1)[:, :k]
        gpus += (1.0 + (np.diff(np.sort(chosen // e, axis=1), axis=1) != 0).sum(axis=1)).sum()
        nodes += (1.0 + (np.diff(np.sort(chosen // per_node, axis=1), axis=1) != 0)
                  .sum(axis=1)).sum()
    total = (comm.NODE_LIMITED_TOKENS // chunk) * chunk
    return gpus / total, nodes / total


@pytest.mark.parametrize("layout", [(256, 8, 64, 8, 4), (256, 8, 128, 8, 4), (256, 8, 256, 8, 4),
                                    (16, 2, 4, 1, 2), (256, 8, 64, 8, 1), (128, 8, 32, 4, 3)])
def test_node_limited_count_equals_the_selection_over_all_experts(layout):
    # the layouts the default report prices (DeepSeek-V3's 256 experts, top 8, M = 4, at EP
    # 64, 128 and 256 over 8-GPU nodes) and the hand-derived ones above: the same figures to
    # the last bit as selecting each token's top 8 among all 256 experts; (256, 8, 64, 8, 4)
    # has one token whose 8th-largest affinity is tied (float32 draws), taken as the
    # selection takes it (comm._node_limited_tied)
    fast = comm._node_limited_destinations.__wrapped__.uncached(*layout)
    slow = _node_limited_by_selection(*layout)
    assert fast == slow
    assert all(type(x) is type(y) for x, y in zip(fast, slow))


def test_node_limited_tie_is_the_selections_pick():
    # one token, two nodes of four experts (one per GPU), both nodes kept, top 2: the largest
    # affinity 0.9 on node 0 and a tie at 0.5 between node 0's expert 1 and node 1's expert 4.
    # All affinities at or above the 2nd largest would be three experts; the selection over
    # all experts (np.argpartition) takes one of the two, and the count must take the same
    # one: 1 node if it is expert 1, 2 nodes if it is expert 4
    a = np.array([[[0.9, 0.5, 0.1, 0.2], [0.5, 0.3, 0.0, 0.4]]], dtype=np.float32)
    keep = np.array([[0, 1]])
    picked = np.argpartition(-a.reshape(1, 8), 1, axis=1)[0, :2]
    nodes_by_selection = len(set(picked // 4))
    gpus, nodes = comm._node_limited_counts(a, keep, 2, 1)
    assert (gpus, nodes) == (2.0, float(nodes_by_selection))


def test_fp8_dispatch_bytes_by_hand():
    # DeepEP README (Performance): "FP8 dispatching and BF16 combining"; DeepSeek-V3 §3.3.3.
    # FP8: 1 byte per element + one FP32 scale (4 bytes) per 1x128 tile: 1 + 4/128 = 1.03125
    assert comm.MOE_DISPATCH_BYTES == {"bf16": 2.0, "fp8": 1.03125}
    c = Cluster(H800, 2048)
    # per_expert, EP 64 over 8 nodes: the uniform all-to-all of 1.03125·k·x·h bytes
    t8 = comm.moe_all_to_all_time(4096, 8, 7168, 64, c, 1, dispatch_dtype="fp8")
    ref = comm.cluster_collective_time("all_to_all", 1.03125 * 4096 * 8 * 7168, 64, c, 1)
    assert t8 == pytest.approx(ref, rel=1e-12)
    # the combine stays BF16 whatever the dispatch dtype
    comb16 = comm.moe_all_to_all_time(4096, 8, 7168, 64, c, 1, phase="combine",
                                      dispatch_dtype="fp8")
    assert comb16 == pytest.approx(comm.moe_all_to_all_time(4096, 8, 7168, 64, c, 1),
                                   rel=1e-12)
    # per_node (DeepSeek-V3): the bandwidth term scales by 1.03125/2; latency terms stay
    kw = dict(dispatch="per_node", n_experts=256, node_limit=4)
    e = llmcost.load_efficiency("H800")
    lat = e.base_latency_s + 63 * e.scaleout_latency_s
    t16 = comm.moe_all_to_all_time(4096, 8, 7168, 64, c, 1, **kw)
    t8 = comm.moe_all_to_all_time(4096, 8, 7168, 64, c, 1, dispatch_dtype="fp8", **kw)
    assert t8 - lat == pytest.approx((t16 - lat) * 1.03125 / 2, rel=1e-9)
    # stacks: DeepSeek's HAI-LLM dispatches in FP8, NeMo AutoModel's BF16 runs in BF16
    assert stacks.load_stack("deepseek-hai-llm-2024").moe_dispatch_dtype == "fp8"
    assert stacks.load_stack("nemo-automodel-2025").moe_dispatch_dtype == "bf16"
    # in a step, FP8 dispatch cuts the EP part: one FP8 dispatch + one BF16 combine each way,
    # (1.03125 + 2) / 4 = 0.758 of the BF16 pair's bandwidth time
    spec = llmcost.load_model("deepseek-v3")
    plan = parallel.make_plan(spec, 2048, 15360, tp=1, pp=16, ep=64, zero_stage=1,
                              seq_len=4096, pp_split="uneven", micro_batch_size=1)
    a = step.step_time(spec, c, plan, 4096, stack="deepseek-hai-llm-2024", ep_overlap="none",
                       moe_dispatch_dtype="bf16")
    b = step.step_time(spec, c, plan, 4096, stack="deepseek-hai-llm-2024", ep_overlap="none")
    assert 0.74 < b.ep_comm_s / a.ep_comm_s < 0.77
    with pytest.raises(ValueError, match="moe_dispatch_dtype='fp4'"):
        step.step_time(spec, c, plan, 4096, moe_dispatch_dtype="fp4")


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


def test_megatron_force_load_balancing_gate_is_uniform_random():
    # Megatron-Core's --moe-router-force-load-balancing replaces the logits by i.i.d. normal
    # values (router.py apply_random_logits, moe_utils.py RandomSTE): every k-subset is equally
    # likely. GPT-OSS 120B on GB300 (Megatron-Bridge 26.08: 128 experts, top-4, EP 16, 8 per
    # GPU): a GPU receives a token unless all 4 experts miss its 8, C(120, 4) / C(128, 4)
    hand = 16 * (1 - comb(120, 4) / comb(128, 4))
    gpus, nodes = comm.moe_destinations(128, 4, 16, 16, gate="random")
    assert gpus == pytest.approx(hand, rel=1e-12) and nodes == 1.0
    assert (gpus, nodes) == comm.moe_destinations(128, 4, 16, 16, gate="learned")
    # the consecutive pattern of NeMo AutoModel's fake gate would put the 4 experts on one GPU
    # (aligned blocks of 4 inside 8): 3.7 times fewer copies than the benchmark's random gate
    assert comm.moe_destinations(128, 4, 16, 16, gate="fake_balanced") == (1.0, 1.0)
    assert hand == pytest.approx(3.68, abs=0.01)


def test_megatron_bridge_rows_price_the_random_gate():
    # every Megatron-Bridge MoE row ran --moe-router-force-load-balancing (its recipe)
    cfg = llmcost.training.step_validation.validation_configs(include_excluded=True)
    mb = cfg[cfg["set"].str.startswith("megatron-bridge") & cfg["moe_gate"].notna()
             & (cfg["moe_gate"] != "")]
    # 14 rows of 25.09-26.08, the 26.02 re-run of Qwen3-30B-A3B on H100, the 25 MoE rows of the
    # 26.04 (14) and 26.06 (11) tables, the patch tables' 50 (the rest of 26.02: 13;
    # 26.02.01: 14; 26.04.01: 15; 26.06.01: 8) and 25.11's four Qwen3-235B-A22B rows
    assert len(mb) == 15 + 25 + 50 + 4 and set(mb["moe_gate"]) == {"random"}


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
    # per_node, 4-node limit: the network carries 3.46 of 7 copies, the time falls by ~that
    t = comm.moe_all_to_all_time(4096, 8, 7168, 64, c, 1, dispatch="per_node", n_experts=256,
                                 node_limit=4)
    net, _ = comm.moe_dispatch_copies(256, 8, 64, 8, dispatch="per_node", node_limit=4)
    assert 0.95 * net / 7 < t / old < 1.1 * net / 7


def test_bad_moe_inputs():
    c = Cluster(H800, 2048)
    with pytest.raises(ValueError, match="moe_dispatch"):
        comm.moe_dispatch_copies(256, 8, 64, 8, dispatch="per_token")
    with pytest.raises(ValueError, match="moe_gate"):
        comm.moe_destinations(256, 8, 64, 8, gate="round_robin")
    with pytest.raises(ValueError, match="n_experts"):
        comm.moe_destinations(256, 8, 48, 8)
    with pytest.raises(ValueError, match="top_k"):
        comm.moe_destinations(4, 8, 2, 2)
    with pytest.raises(ValueError, match="moe_node_limit"):
        comm.moe_destinations(64, 8, 64, 8, node_limit=0)
    with pytest.raises(ValueError, match="n_experts"):
        comm.moe_all_to_all_time(4096, 8, 7168, 64, c, dispatch="per_node")


def test_all_to_all_checks_gate_and_limit_with_every_dispatch():
    c = Cluster(H800, 2048)
    # per_expert ignores the gate and the limit in its price, but a bad one is still refused
    with pytest.raises(ValueError, match=r"moe_gate='x' must be one of"):
        comm.moe_all_to_all_time(4096, 8, 7168, 64, c, gate="x")
    with pytest.raises(ValueError, match="moe_node_limit"):
        comm.moe_all_to_all_time(4096, 8, 7168, 64, c, node_limit=0)
    with pytest.raises(ValueError, match="moe_dispatch_dtype='int8'"):
        comm.moe_all_to_all_time(4096, 8, 7168, 64, c, dispatch_dtype="int8")
    with pytest.raises(ValueError, match="phase='both'"):
        comm.moe_all_to_all_time(4096, 8, 7168, 64, c, phase="both")
    with pytest.raises(ValueError, match="bytes_per_element=1.0 conflicts"):
        comm.moe_all_to_all_time(4096, 8, 7168, 64, c, bytes_per_element=1.0,
                                 dispatch_dtype="fp8")
    with pytest.raises(ValueError, match="top_k=8 must be <= n_experts=4"):
        comm.moe_all_to_all_time(4096, 8, 7168, 64, c, n_experts=4)


def test_layout_errors_name_the_offending_value():
    # ep = [8, 48, 64]: 256 experts do not divide over 48 (named: 48, not the max 64)
    with pytest.raises(ValueError, match=r"^ep=48: the experts"):
        comm.moe_destinations(256, 8, np.array([8, 48, 64]), 8)
    # ep [16, 32, 64] with ranks_per_node [8, 12, 8]: 12 does not divide 32 (named with its
    # ep, 32; not the arrays' maxima 12 and 64)
    with pytest.raises(ValueError, match=r"^ranks_per_node=12 must divide ep=32"):
        comm.moe_destinations(256, 8, np.array([16, 32, 64]), np.array([8, 12, 8]))
    # E = 16 over EP 8 on nodes of 1 GPU: 2 experts per node; limits [4, 1]: one node holds
    # 2 < top_k = 4 experts; the limit named is 1, the offending element
    with pytest.raises(ValueError, match=r"^moe_node_limit=1: the limited nodes hold 2 experts"):
        comm.moe_destinations(16, 4, 8, 1, node_limit=np.array([4, 1]))


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
    base = step.step_time(spec, cl, plan, 4096, stack="megatron-core-2024",
                          missing_features="price")
    same = step.step_time(spec, cl, plan, 4096, stack="megatron-core-2024",
                          moe_dispatch="per_expert", pipeline_flushes=1,
                          fsdp_reshard_after_forward=True, moe_gate="fake_balanced",
                          missing_features="price")
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
        step.step_time(spec, cl, plan, 4096, pipeline_flushes=3, missing_features="price")
    with pytest.raises(ValueError, match="pipeline_flushes"):
        step.step_time(spec, cl, plan, 4096, pipeline_flushes=0, missing_features="price")


def test_reshard_false_removes_exactly_the_backward_gathers():
    # ZeRO-3: n_g = 1 + backward gathers (1, or 2 with full recompute where the recomputation
    # gathers again, DeepSpeed's hooks); False: 0
    assert step.fsdp_backward_gathers("true", np.array([1, 4]), np.array([True, False]),
                                      recompute_regathers=True).tolist() == [2.0, 1.0]
    assert step.fsdp_backward_gathers("false", 4, True, recompute_regathers=True) == 0.0
    assert step.fsdp_backward_gathers("not_pp", np.array([1, 4]), True,
                                      recompute_regathers=True).tolist() == [2.0, 0.0]
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
        step.step_time(spec, cl, plan, 4096, moe_gate="round_robin")


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


def test_all_to_all_options_object_is_the_keywords():
    """``moe_all_to_all_time``'s router and dispatcher as one ``MoeA2AOptions`` or as keywords
    (which replace its fields) give the same time, exactly; an unknown name is a ValueError
    naming it. The DeepSeek-V3 case of the docstring (H800, 64-way EP, <= 4 nodes per token)."""
    c = Cluster(llmcost.load_accelerator("H800"), 2048)
    kw = {"dispatch": "per_node", "n_experts": 256, "node_limit": 4, "dispatch_dtype": "fp8"}
    by_keywords = comm.moe_all_to_all_time(4096, 8, 7168, 64, c, 1, **kw)
    by_object = comm.moe_all_to_all_time(4096, 8, 7168, 64, c, 1,
                                         options=comm.MoeA2AOptions(**kw))
    mixed = comm.moe_all_to_all_time(4096, 8, 7168, 64, c, 1,
                                     options=comm.MoeA2AOptions(dispatch="per_node"),
                                     n_experts=256, node_limit=4, dispatch_dtype="fp8")
    assert by_keywords == by_object == mixed
    assert by_keywords == pytest.approx(2.34e-3, abs=0.005e-3)   # the docstring's 2.34 ms
    with pytest.raises(ValueError, match="dispatch_mode"):
        comm.moe_all_to_all_time(4096, 8, 7168, 64, c, 1, dispatch_mode="per_node")


def test_merged_1f1b_leaves_the_unpaired_passes_exposed():
    # Megatron-Core's batch-level EP overlap merges the forward of micro-batch i+1 with the
    # backward of micro-batch i (Megatron-LM moe/README.md: "merging FWD-BWD passes of adjacent
    # microbatches"). Without a pipeline and m = 5 (GPT-OSS 120B's 26.08 recipe, GA 5):
    # F0 | F1+B0 | F2+B1 | F3+B2 | F4+B3 | B4: one forward and one backward of five unpaired
    assert step.unpaired_share("1f1b", 1, 5, 1) == pytest.approx(1 / 5)
    # 1F1B on 4 stages, m = 16: stage 0 warms up with 3 forwards, then its first steady forward
    # has no backward before it either: 4 of 16
    assert step.unpaired_share("1f1b", 4, 16, 1) == pytest.approx(4 / 16)
    # interleaved, p = 4, v = 12, m = 64 (Qwen3-235B-A22B on GB300): Megatron-LM's warm-up
    # 2(p - 1) + (v - 1)p = 50 chunk passes, + 1, of m·v = 768
    assert step.unpaired_share("interleaved", 4, 64, 12) == pytest.approx(51 / 768)
    # GPipe runs every forward before any backward: nothing pairs
    assert step.unpaired_share("gpipe", 4, 16, 1) == 1.0
    # the exposure: u·ep + (1 − u)·(max(ep − W, 0) + share·min(ep, W))
    ep, w, u = 2.0, 5.0, 0.2
    f, b = step.ep_exposure(ep, ep, w, w, "merged_1f1b", u)
    hidden = step.DUALPIPE_SM_SHARE * ep
    assert f == b == pytest.approx(u * ep + (1 - u) * hidden)
    assert step.ep_exposure(ep, ep, w, w, "dualpipe", u) == pytest.approx((hidden, hidden))
    assert step.ep_exposure(ep, ep, w, w, "none", u) == (ep, ep)


def test_megatron_core_2026_runs_merged_1f1b():
    # the 26.08 recipes set CommOverlapConfig(overlap_moe_expert_parallel_comm=True)
    assert stacks.load_stack("megatron-core-2026").ep_overlap == "merged_1f1b"
    assert stacks.load_stack("deepseek-hai-llm-2024").ep_overlap == "dualpipe"


def test_plan_search_drops_plans_the_flushes_do_not_divide():
    # the step's rule (each of f flushes runs m / f micro-batches) applied to a search: a plan
    # whose micro-batch count m is odd cannot run 2 flushes, so the ranking drops it instead of
    # refusing the whole search (it raised 'pipeline_flushes=2 must divide ...' before)
    spec = llmcost.load_model("llama-3.1-8b")
    cl = Cluster(H100, 32)
    free = ranking.rank_plans(spec, cl, 96, 4096)
    two = ranking.rank_plans(spec, cl, 96, 4096, pipeline_flushes=2)
    assert (free["n_microbatches"] % 2 == 1).any()      # 96 sequences: odd counts exist
    assert len(two) > 0 and (two["n_microbatches"] % 2 == 0).all()
    assert len(two) == (free["n_microbatches"] % 2 == 0).sum()
