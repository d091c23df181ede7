"""Collectives (alpha-beta, two levels), placement and per-step communication volume."""

from dataclasses import fields

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import llmcost
from llmcost import comm, parallel
from llmcost.core.hardware import Cluster
from llmcost.core.shapes import model_shapes

A100 = llmcost.load_accelerator("A100-80GB")
H100 = llmcost.load_accelerator("H100-SXM")


# ---------------------------------------------- test vectors 4.a-4.e (tests/data/test_vectors.csv)
def test_vector_4a_ring_all_reduce():
    # 4.a: S = 1e9 B, n = 8, 450e9 B/s, α = 10 µs -> 140 µs + 3.889 ms = 4.029 ms [computed]
    t = comm.collective_time("all_reduce", 1e9, 8, 450e9, 10e-6)
    assert t == pytest.approx(4.029e-3, rel=1e-3)
    assert comm.algorithm_bandwidth(1e9, t) == pytest.approx(248.2e9, rel=1e-3)
    assert comm.bus_bandwidth("all_reduce", 1e9, t, 8) == pytest.approx(434.4e9, rel=1e-3)


def test_vector_4b_to_4d():
    assert comm.collective_time("all_gather", 1e9, 8, 450e9, 10e-6) == \
        pytest.approx(2.014e-3, rel=1e-3)                                            # 4.b
    ring = comm.collective_time("all_reduce", 1e6, 1024, 50e9, 5e-6)
    assert ring == pytest.approx(10.27e-3, rel=1e-3)                                 # 4.c
    assert 2046 * 5e-6 / ring > 0.99                                                 # latency-bound
    tree = comm.collective_time("all_reduce", 1e6, 1024, 50e9, 5e-6, algorithm="tree")
    assert tree == pytest.approx(0.14e-3, rel=1e-3)                                  # 4.d


def test_vector_4e_busbw_factors():
    # nccl-tests doc/PERFORMANCE.md (4.e, [paper]): n = 8
    assert comm.busbw_factor("all_reduce", 8) == pytest.approx(1.75)
    for op in ("all_gather", "reduce_scatter", "all_to_all"):
        assert comm.busbw_factor(op, 8) == pytest.approx(0.875)
    for op in ("broadcast", "reduce", "send_recv"):
        assert comm.busbw_factor(op, 8) == 1


def test_vector_3f_and_3g():
    # 3.f: TP all-reduce of b·s·h bf16 (67.1 MB), t = 8, 450 GB/s: 0.261 ms, 4 per layer 1.044 ms
    s = 2 * 1 * 4096 * 8192
    assert s == pytest.approx(67.1e6, rel=1e-3)
    assert 4 * comm.collective_time("all_reduce", s, 8, 450e9) == pytest.approx(1.044e-3,
                                                                                rel=1e-3)
    # 3.g: DP all-reduce of 14 GB over 64 ranks at 50 GB/s: 0.551 s
    assert comm.collective_time("all_reduce", 14e9, 64, 50e9) == pytest.approx(0.551, rel=1e-3)


def test_group_of_one_costs_nothing_but_a_send_always_moves_bytes():
    assert comm.collective_time("all_reduce", 1e9, 1, 1e9, 1e-3) == 0
    assert comm.collective_time("send_recv", 1e9, 1, 1e9) == pytest.approx(1.0)


def test_arrays_broadcast():
    t = comm.collective_time("all_gather", np.array([1e6, 1e9]), np.array([[2], [8]]), 100e9)
    assert t.shape == (2, 2)


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("args, message", [
    (("all_reduce", -1.0, 8, 1e9), r"message_bytes=-1.0 must be >= 0"),
    (("all_reduce", 1e6, 0, 1e9), r"group_size=0 must be > 0"),
    (("all_reduce", 1e6, 2.5, 1e9), r"group_size=2.5 must be a whole number"),
    (("all_reduce", 1e6, 8, 0.0), r"bandwidth_bytes_per_s=0.0 must be > 0"),
    (("all_reduce", 1e6, 8, 1e9, -1e-6), r"latency_s=-1e-06 must be >= 0"),
    (("gossip", 1e6, 8, 1e9), r"op='gossip' must be one of"),
])
def test_bad_collective_input(args, message):
    with pytest.raises(ValueError, match=message):
        comm.collective_time(*args)


def test_tree_only_for_all_reduce_and_unknown_algorithm():
    with pytest.raises(ValueError, match="tree"):
        comm.collective_time("all_gather", 1e6, 8, 1e9, algorithm="tree")
    with pytest.raises(ValueError, match="algorithm='butterfly'"):
        comm.collective_time("all_reduce", 1e6, 8, 1e9, algorithm="butterfly")


def test_group_larger_than_the_cluster():
    cl = Cluster(A100, 64)
    with pytest.raises(ValueError, match=r"group_size=128 must be <= the cluster's n_gpus=64"):
        comm.cluster_collective_time("all_reduce", 1e9, 128, cl)
    plan = parallel.ParallelPlan(dp=16, tp=8)
    with pytest.raises(ValueError, match="more than the cluster's n_gpus=64"):
        comm.placement(plan, cl)


def test_zero_bandwidth_cluster_is_rejected():
    with pytest.raises(ValueError, match="scaleout_bytes_per_s_per_dir=0"):
        Cluster(A100, 64, scaleout_bytes_per_s_per_dir=0)


# ----------------------------------------------------------------------------- two levels
def test_inside_one_domain_matches_nccl_tests_busbw():
    # NCCL maintainer, nccl-tests issue #149: ~230 GB/s all-reduce busbw on 8 × A100 NVLink;
    # issue #212: 370 GB/s effective NVLink bandwidth on H100 (ring).
    for acc, expected in ((A100, 230e9), (H100, 370e9)):
        t = comm.cluster_collective_time("all_reduce", 8e9, 8, Cluster(acc, 8))
        assert comm.bus_bandwidth("all_reduce", 8e9, t, 8) == pytest.approx(expected, rel=0.01)


def test_rail_rings_aggregate_the_nics_of_a_domain():
    # NVIDIA (nccl issue #812, quoted in #1576): DGX A100 with 8 × 200 Gb/s IB measures
    # 192 GB/s all-reduce busbw across nodes: 8 NICs × 24 GB/s.
    cl = Cluster(A100, 64)
    t = comm.cluster_collective_time("all_reduce", 8e9, 64, cl)
    assert comm.bus_bandwidth("all_reduce", 8e9, t, 64) == pytest.approx(192e9, rel=0.01)
    # One member per node (the DP group of a TP-8 plan): each ring rides one NIC, 24 GB/s.
    t1 = comm.cluster_collective_time("all_reduce", 8e9, 8, cl, stride=8)
    assert comm.bus_bandwidth("all_reduce", 8e9, t1, 8) == pytest.approx(24e9, rel=0.01)


def test_all_to_all_cannot_aggregate_nics():
    # NCCL maintainer (nccl-tests #130, #267): across N nodes the all-to-all runs at about
    # N/(N−1) × the per-GPU NIC bandwidth.
    cl = Cluster(H100, 32)
    nic = 50e9 * 0.96
    for n in (16, 32):
        t = comm.cluster_collective_time("all_to_all", 8e9, n, cl)
        nodes = n // 8
        assert comm.algorithm_bandwidth(8e9, t) == pytest.approx(nodes / (nodes - 1) * nic,
                                                                rel=0.01)


def test_group_layout():
    assert comm.group_layout(8, 1, 8) == (8, 1)
    assert comm.group_layout(32, 8, 8) == (1, 32)
    assert comm.group_layout(32, 2, 8) == (4, 8)
    assert comm.group_layout(4, 1, 8) == (4, 1)


def test_placement_puts_tp_inside_the_domain():
    spec = llmcost.load_model("llama-3.1-405b")
    plan = parallel.make_plan(spec, 16384, 2048, tp=8, pp=16, zero_stage=2,
                              schedule="interleaved", virtual_stages=8,
                              pp_split="embedding_and_loss", seq_len=8192)
    pl = comm.placement(plan, Cluster(H100, 16384)).set_index("dimension")
    assert pl.loc["TP", "links"] == "scale-up"
    assert pl.loc["DP (dense, with CP)", "links"] == "scale-out"
    assert pl.loc["PP", "links"] == "scale-out"
    small = parallel.ParallelPlan(dp=32, tp=2)
    assert comm.placement(small, Cluster(A100, 64)).set_index("dimension").loc[
        "DP (dense, with CP)", "links"] == "both"


# ----------------------------------------------------------------------------- properties
@settings(max_examples=150, deadline=None)
@given(st.sampled_from(comm.OPS), st.floats(0, 1e11), st.integers(1, 4096),
       st.floats(1e8, 1e12), st.floats(1.0, 10.0), st.floats(0, 1e-4))
def test_more_bandwidth_never_slows_a_collective(op, s, n, bw, factor, alpha):
    slow = comm.collective_time(op, s, n, bw, alpha)
    assert comm.collective_time(op, s, n, bw * factor, alpha) <= slow * (1 + 1e-12)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(comm.OPS), st.floats(0, 1e10), st.sampled_from([2, 8, 16, 64, 256]),
       st.sampled_from([1, 2, 8]), st.floats(1.0, 8.0), st.floats(1.0, 8.0))
def test_more_link_bandwidth_never_slows_a_cluster_collective(op, s, n, stride, up, out):
    base = Cluster(A100, 256)
    fast = Cluster(A100, 256, scaleup_bytes_per_s_per_dir=3e11 * up,
                   scaleout_bytes_per_s_per_dir=2.5e10 * out)
    t0 = comm.cluster_collective_time(op, s, n, base, stride)
    assert comm.cluster_collective_time(op, s, n, fast, stride) <= t0 * (1 + 1e-12)


# ----------------------------------------------------------------------------- volumes
def _gpt(h=4096, layers=32, heads=32):
    return llmcost.step.gpt_model("g", layers, h, heads)


def test_tp_volume_per_layer_is_four_ring_all_reduces():
    # Megatron-LM §3 (Shoeybi et al. 2019): per GPU per layer (no recompute, ring) 4 · 2(t−1)/t ·
    # 2·b·s·h bytes.
    m = _gpt()
    plan = parallel.make_plan(m, 64, 64, tp=8, sequence_parallel=False, seq_len=2048)
    v = comm.comm_volume(m, Cluster(A100, 64), plan, 2048)
    per_layer = v.loc["TP", "bytes_per_gpu"] / (m.n_layers * plan.n_microbatches)
    assert per_layer == pytest.approx(4 * 2 * 7 / 8 * 2 * 2048 * 4096)
    assert v.loc["TP", "per_step"] == 4 * m.n_layers * plan.n_microbatches


def test_zero_volumes():
    # ZeRO §7 (Rajbhandari et al. 2020): ZeRO-1/2 move the same bytes as the all-reduce; ZeRO-3
    # 1.5×.
    m = _gpt()
    cl = Cluster(A100, 64)
    vols = {z: comm.comm_volume(m, cl, parallel.make_plan(m, 64, 64, zero_stage=z,
                                                          seq_len=2048), 2048,
                                recipe="bf16_adam").loc["DP", "bytes_per_gpu"]
            for z in (0, 1, 2, 3)}
    assert vols[1] == pytest.approx(vols[0])
    assert vols[2] == pytest.approx(vols[0])          # one micro-batch per step
    assert vols[3] == pytest.approx(1.5 * vols[0])


def test_dp_volume_counts_every_parameter_of_the_stage():
    # A trial: Llama 3.1 8B's DP row counted 6.98e9 of its 8.03e9 parameters (the layers'
    # alone). Llama 3.1 8B: 8.03e9 parameters, 128,256 × 4,096 untied embedding and LM head
    # (Meta, config.json of meta-llama/Llama-3.1-8B). ZeRO-1 on one stage (TP1 · PP1 · DP64,
    # 4-byte gradients, 2-byte weights): a reduce-scatter of the gradients and an all-gather of
    # the weights, (g − 1)/g · N · (4 + 2) bytes per GPU (ZeRO §7, Rajbhandari et al. 2020).
    m = llmcost.load_model("llama-3.1-8b")
    assert m.n_params == pytest.approx(8.03e9, rel=2e-3)
    plan = parallel.make_plan(m, 64, 256, tp=1, pp=1, zero_stage=1, seq_len=4096)
    v = comm.comm_volume(m, Cluster(H100, 64), plan, 4096)
    assert v.loc["DP", "bytes_per_gpu"] == pytest.approx(63 / 64 * m.n_params * 6, rel=1e-6)
    # two stages: the first holds half the layers and the embedding, the last the other half
    # and the LM head; the table's stage is the first, with N/2 less the head (4,096 × 128,256)
    two = parallel.make_plan(m, 64, 256, tp=1, pp=2, zero_stage=1, seq_len=4096)
    head = 128_256 * 4_096
    first = (m.n_params - 2 * head - 4_096) / 2 + head   # the final norm (4,096) is last
    assert comm.comm_volume(m, Cluster(H100, 64), two, 4096).loc["DP", "bytes_per_gpu"] == \
        pytest.approx(31 / 32 * first * 6, rel=1e-6)


def test_zero1_has_no_per_microbatch_weight_gathers():
    # llm-analysis charges FSDP all-gathers under ZeRO-1 (its get_latency_fwd_per_layer); here
    # ZeRO-1 traffic does
    # not grow with the number of micro-batches, ZeRO-3 traffic does.
    m = _gpt()
    cl = Cluster(A100, 64)
    def dp_bytes(z, gb):
        plan = parallel.make_plan(m, 64, gb, tp=8, zero_stage=z, seq_len=2048)
        return comm.comm_volume(m, cl, plan, 2048).loc["DP", "bytes_per_gpu"]
    assert dp_bytes(1, 64) == pytest.approx(dp_bytes(1, 8))
    assert dp_bytes(3, 64) == pytest.approx(8 * dp_bytes(3, 8))


def test_ep_and_cp_volumes_reproduce_formulas_md():
    # 3.h: T = 8192 tokens, k = 8, h = 7168, E_p = 64: combine (bf16) 924.8 MB per GPU per layer
    # forward; dispatch + combine forward and backward = 4 all-to-alls.
    ds = llmcost.load_model("deepseek-v3")
    plan = parallel.make_plan(ds, 64, 128, ep=64, micro_batch_size=2, seq_len=4096)
    v = comm.comm_volume(ds, Cluster(H100, 64), plan, 4096)
    nm = max(llmcost.memory.stage_layers(ds, 1)[1])
    assert v.loc["EP", "bytes_per_gpu"] / (nm * plan.n_microbatches) == \
        pytest.approx(4 * 924.8e6, rel=1e-3)
    # 3.i: s = 131072, 8 KV heads of 128, cp = 16, TP 8 shards the heads: 62.9 MB received per
    # layer forward (503.3 MB without TP).
    l8 = llmcost.load_model("llama-3.1-8b")
    for tp, expected in ((8, 62.9e6), (1, 503.3e6)):
        plan = parallel.make_plan(l8, 16 * tp, 1, tp=tp, cp=16, seq_len=131072)
        v = comm.comm_volume(l8, Cluster(H100, 16 * tp), plan, 131072)
        fwd = v.loc["CP", "bytes_per_gpu"] / (l8.n_layers * 3)   # AG fwd, AG + RS bwd
        assert fwd == pytest.approx(expected, rel=1e-3)


# ----------------------------------------------------------------------------- scale
def test_nccl_all_gather_at_scale_is_the_tuning_model_by_hand():
    # NVIDIA/nccl src/graph/tuning.cc (baseLat, hwLat, ll128MaxBwPerCh): an all-gather of a 175B
    # layer (3.6 GB) over 1,536 A100s on 192 HGX nodes. Ring steps n-1 = 1535, of which N-1 = 191
    # cross the network. Bus bandwidth: min(NVLink 300 GB/s x 0.767, 8 NICs x 25 GB/s x 0.96)
    # = 192 GB/s (data/efficiency.csv). Simple: 8.4 + 1344 x 3.4 + 191 x 9.6 us = 6411.6 us, plus
    # 3.6e9 x 1535/1536 / 192e9 = 18.74 ms. LL128: 10 + 1344 x 1.9 + 191 x 4.0 = 3327.6 us
    # (baseLat Ring/LL128 10.0 us at commit 01afd20, NCCL 2.7.5),
    # bandwidth min(0.92 x 192, 8 channels x 18.3) = 146.4 GB/s: 24.57 ms. NCCL picks Simple.
    c = comm.Cluster(llmcost.load_accelerator("A100-80GB"), 1536)
    s = 3.6e9
    simple = 6411.6e-6 + s * 1535 / 1536 / 192e9
    ll128 = 3327.6e-6 + s * 1535 / 1536 / 146.4e9
    assert comm.nccl_collective_time("all_gather", s, 1536, c) == pytest.approx(
        min(simple, ll128), rel=2e-3)
    assert simple < ll128


def test_nccl_latency_grows_with_ranks_and_efficiency_falls():
    # At a fixed 100 MB message, a ring's latency grows with the ranks: the achieved share of the
    # large-message bus bandwidth falls from one node to 2,048 GPUs (nccl-tests busbw vs n).
    c = comm.Cluster(llmcost.load_accelerator("A100-80GB"), 2048)
    eff = [float(comm.scale_efficiency("all_gather", 100e6, n, c)) for n in (8, 64, 512, 2048)]
    assert all(a > b for a, b in zip(eff, eff[1:]))
    assert 0.85 < eff[0] <= 1.0 and eff[-1] < 0.15
    # and a large enough message reaches the bus bandwidth at any scale
    assert float(comm.scale_efficiency("all_gather", 1e12, 2048, c)) > 0.99
    assert comm.scale_efficiency("all_gather", 1e6, 1, c) == 1.0


def test_tree_all_reduce_caps_the_bus_bandwidth_beyond_two_nodes():
    # tuning.cc: the tree's bus bandwidth is min(0.9 x ring, 80 GB/s) beyond two nodes, so for
    # a large message across 64 nodes the ring (192 GB/s) wins: t = 2 x S x 511/512 / 192 GB/s
    # + Simple ring latency (8.4 + 2 x 448 x 3.4 + 2 x 63 x 9.6 us)
    c = comm.Cluster(llmcost.load_accelerator("A100-80GB"), 512)
    s = 10e9
    ring = (8.4 + 2 * 448 * 3.4 + 2 * 63 * 9.6) * 1e-6 + 2 * s * 511 / 512 / 192e9
    assert comm.nccl_collective_time("all_reduce", s, 512, c) == pytest.approx(ring, rel=2e-3)


def test_nccl_time_rejects_bad_input():
    c = comm.Cluster(llmcost.load_accelerator("A100-80GB"), 64)
    with pytest.raises(ValueError, match="group_size=128 must be <="):
        comm.nccl_collective_time("all_gather", 1e6, 128, c)
    with pytest.raises(ValueError, match="message_bytes"):
        comm.nccl_collective_time("all_gather", -1.0, 8, c)
    with pytest.raises(ValueError, match="op="):
        comm.scale_efficiency("gather", 1e6, 8, c)


# ----------------------------------------------------------------------------- FSDP
def test_fsdp_exposure_by_hand():
    # Per layer: gather 30 ms, reduce-scatter 30 ms, forward 20 ms, backward 40 ms, 96 layers,
    # contention 0.189 (arXiv:2507.03114). Forward: 0.030 + 95 x (0.010 + 0.189 x 0.020) =
    # 1.3391 s; backward link 0.060 per layer: 0.060 + 95 x (0.020 + 0.189 x 0.040) = 2.6782 s.
    f, b = comm.fsdp_exposure(0.030, 0.030, 0.020, 0.040, 96)
    assert f == pytest.approx(0.030 + 95 * (0.010 + 0.189 * 0.020))
    assert b == pytest.approx(0.060 + 95 * (0.020 + 0.189 * 0.040))
    # no prefetch: every collective waits (96 x 30 ms forward, 96 x 60 ms backward)
    f0, b0 = comm.fsdp_exposure(0.030, 0.030, 0.020, 0.040, 96, prefetch_layers=0)
    assert (f0, b0) == pytest.approx((96 * 0.030, 96 * 0.060))
    # two backward gathers (full recomputation re-gathers) put 2G + R on the backward link
    _, b2 = comm.fsdp_exposure(0.010, 0.010, 0.020, 0.040, 10, backward_gathers=2)
    assert b2 == pytest.approx(0.030 + 9 * (0.0 + 0.189 * 0.030))
    with pytest.raises(ValueError, match="prefetch_layers"):
        comm.fsdp_exposure(0.01, 0.01, 0.02, 0.04, 8, prefetch_layers=-1)


def test_overlap_cost_is_never_more_than_the_collective():
    # o(c, w) = max(c − w, 0) + σ·min(c, w) <= c for σ < 1: overlapping never loses (the
    # dominance rank_plans prunes by)
    c = np.linspace(0, 3, 31)
    for w in (0.0, 0.5, 1.0, 5.0):
        o = np.asarray(comm.overlap_cost(c, w))
        assert (o <= c + 1e-15).all() and (o >= np.maximum(c - w, 0) - 1e-15).all()
    assert comm.overlap_cost(1.0, 3.0) == pytest.approx(0.189)
    assert comm.overlap_cost(3.0, 1.0) == pytest.approx(2.189)


# ----------------------------------------------------------------------------- MoE
def test_moe_all_to_all_by_hand_and_capacity_factor():
    # 4,096 tokens x top-8 x d_model 7168 x 2 B = 470 MB per rank; EP 64 over 8 H800 nodes
    # (stride 1: 8 members per node). 56/64 of it leaves the node through the rank's own NIC
    # (400 Gb/s x 0.96 = 48 GB/s): 0.4113 GB / 48 GB/s = 8.57 ms, plus 63 ring steps of
    # 2.5 us and the 3.6 us base (data/efficiency.csv).
    c = comm.Cluster(llmcost.load_accelerator("H800"), 2048)
    buf = 2.0 * 4096 * 8 * 7168
    hand = 3.6e-6 + 63 * 2.5e-6 + buf * 56 / 64 / 48e9
    t = comm.moe_all_to_all_time(4096, 8, 7168, 64, c, 1)
    assert t == pytest.approx(hand, rel=1e-3)
    # a token-dropping router pads every buffer to the capacity factor (Switch Transformer 1.25)
    t125 = comm.moe_all_to_all_time(4096, 8, 7168, 64, c, 1, routing="capacity",
                                    capacity_factor=1.25)
    assert t125 == pytest.approx(3.6e-6 + 63 * 2.5e-6 + 1.25 * buf * 56 / 64 / 48e9, rel=1e-3)
    with pytest.raises(ValueError, match="moe_imbalance=0.9 must be >= 1"):
        comm.moe_all_to_all_time(4096, 8, 7168, 64, c, 1, imbalance=0.9)
    with pytest.raises(ValueError, match="moe_routing="):
        comm.moe_routing_factor("random")


# ---------------------------------------------- one plan's collectives from the memo
def _one_plan_comm(options, as_arrays):
    """DeepSeek-V3 on 256 H800 (TP 2, CP 2, EP 8, DP 64, SP), per-node dispatch: the times of
    ``step_comm_arrays`` for one plan, as one-element arrays (computed) or as numbers (memo)."""
    spec = llmcost.load_model("deepseek-v3")
    wrap = (lambda v: np.array([v])) if as_arrays else np.asarray
    return comm.step_comm_arrays(
        model_shapes(spec), spec, Cluster(llmcost.load_accelerator("H800"), 256), options,
        s=4096.0, x=wrap(2048.0), tp=wrap(2.0), cp=wrap(2.0), ep=wrap(8.0), dp=wrap(64.0),
        sp=wrap(True))


def test_one_plan_memo_gives_the_computed_times():
    # regression: a plan priced alone (memo, _step_comm_scalar) and as an array of one plan
    # (computed) give the same seconds, bit for bit, on a miss and on a hit
    eff = llmcost.load_efficiency("H800")
    o = comm.CommOptions(efficiency=eff, moe_dispatch="per_node", moe_node_limit=4)
    arr = _one_plan_comm(o, True)
    for _ in range(2):
        one = _one_plan_comm(o, False)
        assert list(one) == list(arr)
        for k in arr:
            if k != "fig":
                assert float(one[k]) == float(arr[k][0]), k
        assert one["fig"].eff is eff


def test_memo_key_holds_what_the_times_read():
    # the memo is keyed by every CommOptions field but the efficiency, and of the efficiency by
    # exactly the figures a time reads: halving one of them changes a time, any other none
    names = {f.name for f in fields(comm.CommOptions)}
    assert names == {"efficiency", *comm.STEP_COMM_OPTION_FIELDS}
    eff = llmcost.load_efficiency("H800")
    base = _one_plan_comm(comm.CommOptions(efficiency=eff), True)

    def times(o):
        out = _one_plan_comm(o, True)
        return [float(out[k][0]) for k in base if k != "fig"]

    ref = times(comm.CommOptions(efficiency=eff))
    numeric = [f.name for f in fields(eff) if isinstance(getattr(eff, f.name), float)]
    assert set(comm.STEP_COMM_EFFICIENCY_FIELDS) <= set(numeric)
    for f in numeric:
        other = comm.CommOptions(efficiency=eff.replace(**{f: getattr(eff, f) * 0.5}))
        assert (times(other) != ref) == (f in comm.STEP_COMM_EFFICIENCY_FIELDS), f
        assert _one_plan_comm(other, False)["fig"].eff == other.efficiency  # the caller's own


def test_nccl_ll128_base_latencies_are_the_cited_commits():
    # NVIDIA/nccl src/graph/tuning.cc @ 01afd20 (NCCL 2.7.5): baseLat Ring/LL128 10.0 us,
    # Tree/LL128 4.4 us; hwLat Ring/LL128 NVLink 1.9, net 4.0; Tree/LL128 NVLink 1.2, net 8.5.
    # Messages small enough that LL128 wins, so the base latency is in the figure (the 3.6 GB
    # all-gather above is won by Simple and does not see it). A100-80GB, 8 GPUs per node;
    # ring bus bandwidth min(300 x 0.767, 8 x 25 x 0.96) = 192 GB/s (data/efficiency.csv).
    c = comm.Cluster(llmcost.load_accelerator("A100-80GB"), 512)
    # Ring: all-gather of 1 MB over 16 GPUs (2 nodes): 15 steps, 1 across the network.
    # LL128: 10.0 + 14 x 1.9 + 1 x 4.0 = 40.6 us + 1e6 x 15/16 / min(0.92 x 192,
    # 8 x 18.3 = 146.4) GB/s = 6.40 us -> 47.0 us; Simple: 8.4 + 14 x 3.4 + 9.6 = 65.6 us
    # + 4.88 us. With the 14.0 us of NCCL 2.18 it would be 51.0 us.
    ring = (10.0 + 14 * 1.9 + 4.0) * 1e-6 + 1e6 * 15 / 16 / 146.4e9
    assert comm.nccl_collective_time("all_gather", 1e6, 16, c) == pytest.approx(ring, rel=1e-3)
    # Tree: all-reduce of 64 KiB over 512 GPUs (64 nodes): 4.4 + 2 x (7 x 1.2 + log2(64) x
    # 8.5) = 123.2 us + 2 x 65,536 / min(0.9 x 192, 105) GB/s = 1.25 us -> 124.4 us; the
    # ring LL128 pays 10 + 896 x 1.9 + 126 x 4.0 = 2,216 us, the tree Simple 992 us.
    tree = (4.4 + 2 * (7 * 1.2 + 6 * 8.5)) * 1e-6 + 2 * 65536 / 105e9
    assert comm.nccl_collective_time("all_reduce", 65536, 512, c) == pytest.approx(tree,
                                                                                   rel=1e-3)
