"""llmcost.overlap: communication rooflines, topologies, the MFU written out.

Expected values come from the JAX scaling book (Austin et al., *How To Scale Your Model*,
github jax-ml/scaling-book at 0819a7d), Ring Attention (Liu et al. 2023), vendor datasheets and
hand derivations written here.
"""

import numpy as np
import pytest

import llmcost
from llmcost import overlap, step

# TPU v5p (Google Cloud docs): 4.59e14 bf16 FLOP/s; the scaling book's "Training" chapter takes
# W_ici = 1.8e11 B/s (bidirectional, one axis) and finds DP and FSDP compute-bound once the
# per-chip batch exceeds C / W_ici ≈ 2,550 tokens.
V5P_C, V5P_W = 4.59e14, 1.8e11


def test_dp_critical_batch_is_the_scaling_books_c_over_w():
    r = overlap.dp_roofline(1e9, 1e4, V5P_C, V5P_W, grad_bytes=2)   # bf16 gradients, large group
    assert r.critical == pytest.approx(2550, rel=0.01)


def test_fsdp_has_the_same_critical_batch_as_dp_with_bf16_gradients():
    # scaling book, "Training": FSDP is compute-bound under the same condition as pure DP.
    r = overlap.fsdp_roofline(1e9, 1e4, V5P_C, V5P_W, weight_bytes=2, grad_bytes=2)
    assert r.critical == pytest.approx(2550, rel=0.01)
    # fp32 gradients: the backward's (2 + 4)/4 = 1.5 × C/W (hand derivation, module docstring).
    r32 = overlap.fsdp_roofline(1e9, 1e4, V5P_C, V5P_W, weight_bytes=2, grad_bytes=4)
    assert r32.critical == pytest.approx(1.5 * 2550, rel=0.01)
    # the ratio and the verdict are the tighter pass's: ratio = b / b*, hides iff b >= b*
    for r_ in (r, r32):
        assert float(r_.ratio) == pytest.approx(1e4 / float(r_.critical), rel=1e-9)
    near = overlap.fsdp_roofline(1e9, 0.95 * float(r32.critical), V5P_C, V5P_W, grad_bytes=4)
    assert not bool(near.hidden)  # by the totals (threshold 8/9 of the backward's) it would hide


def test_dp_roofline_ratio_hand_derivation():
    # P = 1e9 on one GPU, B = 8,192 tokens, C = 1e15 (teaching accelerator), W = 400 GB/s,
    # fp32 gradients, 8 ranks: compute 4·1e9·8192/1e15 = 32.8 ms; all-reduce 1.75·4e9/4e11 =
    # 17.5 ms; ratio 1.872; critical 1.75·4·1e15/(4·4e11) = 4,375 tokens.
    r = overlap.dp_roofline(1e9, 8192, 1e15, 4e11, group_size=8, grad_bytes=4)
    assert r.compute_s == pytest.approx(0.032768)
    assert r.comm_s == pytest.approx(0.0175)
    assert r.critical == pytest.approx(4375)
    assert bool(r.hidden)
    assert float(r.exposed_s) == 0.0


def test_ring_attention_block_size_is_flops_over_bandwidth():
    # Liu, Zaharia, Abbeel 2023 §3: with full multi-head attention, overlap needs a block of at
    # least C/W tokens (bf16; non-causal). H100: 989e12 / 450e9 = 2,198 tokens.
    r = overlap.cp_roofline(8192, 8192, 4096, 989e12, 450e9, causal=False)
    assert r.critical == pytest.approx(989e12 / 450e9, rel=1e-9)
    # GQA with 8 of 64 KV heads: an eighth; the causal load-balanced ring doubles it.
    gqa = overlap.cp_roofline(8192, 1024, 4096, 989e12, 450e9, causal=True)
    assert gqa.critical == pytest.approx(989e12 / 450e9 / 8 * 2, rel=1e-9)


def test_tp_roofline_llama2_70b_hand_derivation():
    # Llama 2 70B (Touvron et al. 2023; HF config): h 8192, 64 heads, 8 KV heads of 128, FFN 28672
    # (SwiGLU). Layer: attention 8192·(8192 + 2·1024 + 8192) = 150,994,944; FFN 3·8192·28672 =
    # 704,643,072; two RMSNorms 16,384: P_l = 855,654,400. On H100 (989 TFLOP/s, 450 GB/s),
    # TP 8, ring: ratio = P_l·W/(t·f·h·β·C) = 855.65e6·450e9 / (8·1.75·8192·2·989e12) = 1.6966.
    dims = overlap.model_dims("llama-2-70b")
    assert dims["layer_params"] == pytest.approx(855_654_400, rel=1e-6)
    r = overlap.tp_roofline(dims["layer_params"], 8192, 8, 989e12, 450e9)
    assert float(r.ratio) == pytest.approx(1.6966, rel=1e-3)
    # largest TP that hides: t·2(t−1)/t = 2(t−1) ≤ P_l·W/(h·β·C) = 23.75 → t ≤ 12.88.
    assert float(r.critical) == pytest.approx(12.876, rel=1e-3)
    # the ratio does not depend on the tokens per micro-batch
    assert float(overlap.tp_roofline(dims["layer_params"], 8192, 8, 989e12, 450e9,
                                     tokens=4096).ratio) == pytest.approx(float(r.ratio))
    # over a 50 GB/s NIC instead the same TP 8 waits (ratio 9× smaller)
    assert not bool(overlap.tp_roofline(dims["layer_params"], 8192, 8, 989e12, 50e9).hidden)


def test_pp_sends_hide_behind_a_fraction_of_a_layer():
    # L* = h·β·C/(2·P_l·W) = 8192·2·989e12 / (2·855.65e6·50e9) = 0.1894 layers (hand).
    r = overlap.pp_roofline(855_654_400, 8192, 20, 989e12, 50e9, tp=2)
    assert float(r.critical) == pytest.approx(0.1894, rel=1e-3)
    assert bool(r.hidden)


def test_ep_roofline_deepseek_v3_across_nodes_hand_derivation():
    # DeepSeek-V3 (arXiv:2412.19437): h 7168, expert width 2048, 8 routed experts, SwiGLU (3
    # matrices). On H800 over a 50 GB/s NIC, EP 64, bf16 both ways, capacity 1:
    # F* = c·(β_d+β_c)/2·(n−1)/n·C/(m·W) = 2·(63/64)·989e12/(3·50e9) ≈ 12,980 — six times the
    # real expert width: the traffic cannot hide without DeepSeek's node-limited routing, FP8
    # dispatch and DualPipe overlap (its §3.2).
    r = overlap.ep_roofline(7168, 2048, 8, 64, 989e12, 50e9)
    assert float(r.critical) == pytest.approx(2 * 63 / 64 * 989e12 / (3 * 50e9), rel=1e-9)
    assert float(r.ratio) == pytest.approx(2048 / float(r.critical), rel=1e-9)
    # FP8 dispatch (1 byte) moves 3 of 4 bytes: the threshold falls by a quarter
    fp8 = overlap.ep_roofline(7168, 2048, 8, 64, 989e12, 50e9, dispatch_bytes=1)
    assert float(fp8.critical) == pytest.approx(0.75 * float(r.critical))


def test_in_switch_reduction_bound_exceeds_the_measured_gain():
    # nccl-tests issue #212: NVLS all-reduce busbw ~480 GB/s vs ring 370 GB/s on an H100 board
    # (1.30×). The byte count allows at most 2(n−1)/n = 1.75× at n = 8: measured ≤ ideal.
    ideal = overlap.all_reduce_factor(8) / overlap.all_reduce_factor(8, in_network=True)
    assert ideal == pytest.approx(1.75)
    assert 480 / 370 <= ideal
    assert overlap.all_reduce_factor(None) == pytest.approx(2.0)


@pytest.mark.parametrize("name, g, expected", [
    ("MI300X", 2, 64e9),     # AMD: one 128 GB/s (bidirectional) Infinity Fabric link per peer
    ("MI300X", 8, 448e9),    # all 7 links: the catalogue's per-GPU figure
    ("Gaudi 3", 2, 75e9),    # Intel HLS-3: 3 × 200 GbE ports to each peer
    ("TPU v4", 4, 90e9),     # two 45 GB/s one-way ICI links along one torus axis
    ("H100-SXM", 2, 450e9),  # NVSwitch: any group gets the full 18 × 25 GB/s
])
def test_group_bandwidth_by_topology(name, g, expected):
    assert overlap.group_bandwidth(name, g) == pytest.approx(expected)


def test_topology_table_marks_where_the_switch_figure_is_optimistic():
    t = overlap.topology_table().set_index("accelerator")
    assert t.loc["MI300X", "group of 2: board ÷ real"] == pytest.approx(7.0)
    assert t.loc["TPU v4", "group of 8: board ÷ real"] == pytest.approx(3.0)
    assert t.loc["H100-SXM", "group of 8: board ÷ real"] == pytest.approx(1.0)
    # every catalogue figure agrees with links × per-link bandwidth (the CSVs are consistent)
    topo = overlap.load_topologies()
    for name, r in topo.iterrows():
        acc = llmcost.load_accelerator(name)
        assert r["links_per_chip"] * r["link_bytes_per_s_per_dir"] == pytest.approx(
            acc.scaleup_bytes_per_s_per_dir), name


def test_roofline_table_rows_and_links():
    t = overlap.roofline_table("llama-2-70b", "H100-SXM",
                               tokens_per_microbatch=4096, tp=2, pp=4, dp=256)
    assert list(t["kind"]) == ["DP (ZeRO-0)", "DP (ZeRO-1/2)", "FSDP", "TP", "PP"]  # cp 1
    # TP 2 leaves 4 DP members per 8-GPU board: 4 NICs pooled, min(450, 4·50) = 200 GB/s, so
    # DP's critical batch = 2·(255/256)·4·989.4e12/(4·200e9) (hand; H100 datasheet 989.4
    # TFLOP/s), in tokens of the last micro-batch, the one backward the all-reduce overlaps (DDP's no_sync,
    # Megatron-LM's overlap_grad_reduce; a source check: the table had read the step's tokens
    # where the step model, step.zero_exposure, waited): 4,096 < 9,855 waits
    dp = t.set_index("kind").loc["DP (ZeRO-0)"]
    assert dp["critical"] == pytest.approx(2 * 255 / 256 * 4 * 989.4e12 / (4 * 200e9), rel=1e-3)
    assert dp["value"] == 4096 and not dp["hides"]
    # ZeRO-1/2 reduce-scatter the gradients behind the last (ZeRO-1) or every (ZeRO-2)
    # micro-batch's backward: (n−1)/n·P·β_g, so the threshold is half the all-reduce's,
    # (255/256)·4·989.4e12/(4·200e9) = 4,927 (hand, as above): 4,096 waits
    rs = t.set_index("kind").loc["DP (ZeRO-1/2)"]
    assert rs["critical"] == pytest.approx(255 / 256 * 4 * 989.4e12 / (4 * 200e9), rel=1e-3)
    assert rs["value"] == 4096 and not rs["hides"] and rs["controls"].endswith("micro-batch")
    moe = overlap.roofline_table("mixtral-8x7b", "H100-SXM",
                                 tokens_per_microbatch=4096, tp=2, pp=4, dp=32, ep=8)
    assert (moe["kind"] == "EP").sum() == 2
    achieved = overlap.roofline_table("llama-2-70b", "H100-SXM",
                                      tokens_per_microbatch=4096, tp=2, pp=4, dp=256,
                                      achieved=True)
    assert (achieved["critical"] != t["critical"]).all()
    assert t.set_index("kind").loc["DP (ZeRO-0)", "link"] == "network, 4 NIC(s) pooled"
    # TP 4 · DP 2 on one 8-GPU board: the group never leaves the board, so DP runs at NVLink's
    # 450 GB/s (as NCCL's model in comm._nccl_time), not min(450, 2·50) = 100 GB/s of two NICs:
    # critical = 2·(1/2)·4·989.4e12/(4·450e9)
    one = overlap.roofline_table("llama-2-70b", "H100-SXM",
                                 tokens_per_microbatch=4096, tp=4, pp=1, dp=2).set_index("kind")
    assert one.loc["DP (ZeRO-0)", "link"] == "scale-up: the whole group in one domain"
    assert one.loc["DP (ZeRO-0)", "critical"] == pytest.approx(
        2 * 1 / 2 * 4 * 989.4e12 / (4 * 450e9), rel=1e-3)
    # a teacher's trial: DP 256 on TPU v5p, whose 6,144-chip ICI slice holds the whole group,
    # was labelled "network, 256 NIC(s) pooled"
    assert overlap.dp_bandwidth(256, 8, 6144, 1.0, 0.1) == (
        1.0, "scale-up: the whole group in one domain")
    assert overlap.dp_bandwidth(256, 8, 8, 450e9, 50e9) == (50e9, "network, 1 NIC(s) pooled")


def test_pp_and_ep_rows_take_the_step_models_links():
    # A review: notebook 04 said "network, 1 NIC" for PP and for the cross-domain EP row on TPU
    # v5p, whose 6,144-chip ICI slice holds the whole plan, where the step model's NCCL model
    # keeps that traffic on the scale-up links (comm._Figures: a send/recv pair shares a domain
    # unless its stride reaches past it; an all-to-all spans domains only when its group does).
    v5p = llmcost.load_accelerator("TPU v5p")
    # the domain: 6,144 chips, the largest single ICI slice of the 8,960-chip pod (Google Cloud
    # TPU v5p docs, data/accelerators.csv)
    assert v5p.scaleup_domain_size == 6144 and v5p.scaleup_bytes_per_s_per_dir == 600e9
    t = overlap.roofline_table("llama-2-70b", "TPU v5p",
                               tokens_per_microbatch=4096, tp=4, pp=4, dp=256).set_index("kind")
    # stages 4 · 256 = 1,024 chips apart, inside one 6,144-chip slice: W = 600 GB/s (TPU v5p
    # ICI per direction, Google Cloud TPU v5p docs in data/accelerators.csv). By hand (Llama 2
    # 70B layer: 8192·(8192 + 2·1024 + 8192) attention + 3·8192·28672 MLP = 8.556e8
    # parameters; β = 2 bytes; C = 459 TFLOP/s BF16): L* = h·β·C / (2·P_l·W)
    pl = 8192 * (8192 + 2 * 1024 + 8192) + 3 * 8192 * 28672
    assert t.loc["PP", "link"] == "scale-up: the neighbouring stages in one domain"
    assert t.loc["PP", "critical"] == pytest.approx(8192 * 2 * 459e12 / (2 * pl * 600e9),
                                                    rel=1e-4)
    moe = overlap.roofline_table("mixtral-8x7b", "TPU v5p",
                                 tokens_per_microbatch=4096, tp=2, pp=4, dp=32, ep=8)
    ep = moe[moe["kind"] == "EP"]
    assert list(ep["link"]) == ["scale-up: the whole group in one domain"]
    assert "network, 1 NIC" not in set(moe["link"])
    # on an 8-GPU H100 board the same plan's stages are 64 GPUs apart and its EP group of 8 at
    # stride 2 spans two boards: one NIC for PP, both links for EP (as before)
    h = overlap.roofline_table("mixtral-8x7b", "H100-SXM",
                               tokens_per_microbatch=4096, tp=2, pp=4, dp=32, ep=8)
    assert list(h.loc[h["kind"] == "EP", "link"]) == ["scale-up", "network, 1 NIC"]
    assert h.set_index("kind").loc["PP", "link"] == "network, 1 NIC"
    # CP 2 doubles the EP stride (ranks ordered TP, CP, EP): EP 4 at stride 2 fits one board,
    # at stride 4 it spans two
    for cp, n in ((1, 1), (2, 2)):
        e = overlap.roofline_table("mixtral-8x7b", "H100-SXM",
                                   tokens_per_microbatch=4096, tp=2, pp=1, dp=8, ep=4, cp=cp)
        assert (e["kind"] == "EP").sum() == n
    # the links agree with the step model's send/recv: inside the domain, the pipeline send at
    # stride tp·dp costs what a neighbour's does; past it, what a send across domains does
    for name, tp, dp in (("TPU v5p", 4, 256), ("H100-SXM", 2, 2), ("H100-SXM", 2, 32)):
        acc = llmcost.load_accelerator(name)
        cl = llmcost.Cluster(acc, 16384 if name == "TPU v5p" else 1024)
        near, far = (llmcost.comm.cluster_collective_time("send_recv", 1e9, 2, cl, stride=st)
                     for st in (1, acc.scaleup_domain_size))
        at = llmcost.comm.cluster_collective_time("send_recv", 1e9, 2, cl, stride=tp * dp)
        _, link = overlap.pp_bandwidth(tp * dp, acc.scaleup_domain_size, 1.0, 0.1)
        assert at == (near if link.startswith("scale-up") else far), (name, tp, dp)
        assert near != far


def test_mfu_arithmetic_is_the_division_of_the_step():
    spec = llmcost.load_model("llama-2-7b")
    cl = llmcost.Cluster(llmcost.load_accelerator("H100-SXM"), 64)
    plan = llmcost.parallel.make_plan(spec, 64, 256, tp=1, pp=1, zero_stage=1, seq_len=4096)
    b = step.step_time(spec, cl, plan, 4096)
    m = overlap.mfu_arithmetic(b, "H100-SXM")
    assert m["mfu"] == pytest.approx(b.mfu, rel=1e-12)
    assert m["step_time_s"] == pytest.approx(b.step_time_s, rel=1e-12)
    # model FLOPs = tokens × flops_per_token(full mask), as the docstring writes
    assert m["model_flops"] == pytest.approx(256 * 4096 * spec.flops_per_token(4096, causal=False))


@pytest.mark.parametrize("call, field", [
    (lambda: overlap.dp_roofline(-1, 1, 1, 1), "params_per_gpu"),
    (lambda: overlap.dp_roofline(1, 1, 1, 1, group_size=1), "group_size"),
    (lambda: overlap.tp_roofline(1, 1, 1, 1, 1), "tp"),
    (lambda: overlap.tp_roofline(1, 1, 2, float("nan"), 1), "flops_per_s"),
    (lambda: overlap.ep_roofline(1, 1, 1, 2, 1, 0), "bytes_per_s"),
    (lambda: overlap.cp_roofline(1, 1, 1, 1, 1, causal="yes"), "causal"),
    (lambda: overlap.all_reduce_factor(8, in_network=1), "in_network"),
    (lambda: overlap.group_bandwidth("MI300X", 9), "group_size"),
    (lambda: overlap.group_bandwidth("TPU v4", 4, torus_axes=4), "torus_axes"),
    (lambda: overlap.group_bandwidth("nope", 2), "accelerator"),
    (lambda: overlap.mfu_arithmetic(0.5, "H100-SXM"), "b="),
])
def test_bad_input_names_the_field(call, field):
    with pytest.raises(ValueError, match=field):
        call()


def test_arrays_broadcast():
    r = overlap.dp_roofline(1e9, np.array([1e3, 1e4, 1e5]), 1e15, 4e11, grad_bytes=4)
    assert r.ratio.shape == (3,)
    assert list(r.hidden) == [False, True, True]


# --- the worked exercises of notebook 04 (answers derived by hand in the notebook)
TEACH = llmcost.load_accelerator("Teaching-1PF")


def test_exercise_1_dp_all_reduce():
    c = TEACH.peak_flops_per_s()
    w = min(TEACH.scaleup_bytes_per_s_per_dir, 8 * TEACH.scaleout_bytes_per_s_per_dir)
    assert w == pytest.approx(400e9)                                   # (a)
    bf16 = overlap.dp_roofline(1e10, 4096, c, w, group_size=64, grad_bytes=2)
    fp32 = overlap.dp_roofline(1e10, 4096, c, w, group_size=64, grad_bytes=4)
    assert float(bf16.critical) == pytest.approx(2461, abs=1)          # (b)
    assert float(fp32.critical) == pytest.approx(4922, abs=1)
    assert float(bf16.ratio) == pytest.approx(1.66, abs=0.005)
    assert float(fp32.ratio) == pytest.approx(0.83, abs=0.005)
    assert float(fp32.compute_s) == pytest.approx(0.164, abs=5e-4)     # (c)
    assert float(fp32.comm_s) == pytest.approx(0.197, abs=5e-4)
    assert float(fp32.exposed_s) == pytest.approx(0.033, abs=5e-4)


def test_exercise_2_tp_on_nvlink():
    h = 8192
    pl, c = 12 * h * h, TEACH.peak_flops_per_s()
    nvl = overlap.tp_roofline(pl, h, 8, c, TEACH.scaleup_bytes_per_s_per_dir)
    nic = overlap.tp_roofline(pl, h, 8, c, TEACH.scaleout_bytes_per_s_per_dir)
    assert float(nvl.ratio) == pytest.approx(1.58, abs=0.005)          # (a)
    assert float(nic.ratio) == pytest.approx(0.176, abs=0.0005)
    assert float(nvl.critical) == pytest.approx(12.06, abs=0.01)       # (b): t <= 12
    sharp = overlap.tp_roofline(pl, h, 8, c, TEACH.scaleup_bytes_per_s_per_dir, in_network=True)
    assert float(sharp.ratio) == pytest.approx(2.76, abs=0.005)        # (c)


def test_exercise_3_expert_width():
    c = TEACH.peak_flops_per_s()
    big = 1_000_000   # "many EP ranks": (n−1)/n ≈ 1
    nic = overlap.ep_roofline(4096, 2048, 8, big, c, TEACH.scaleout_bytes_per_s_per_dir,
                              capacity_factor=1.25)
    nvl = overlap.ep_roofline(4096, 2048, 8, big, c, TEACH.scaleup_bytes_per_s_per_dir,
                              capacity_factor=1.25)
    assert float(nic.critical) == pytest.approx(16_667, rel=1e-3)      # (a)
    assert float(nvl.critical) == pytest.approx(1_852, rel=1e-3)
    assert float(nic.ratio) == pytest.approx(0.12, abs=0.005)          # (b)
    fp8 = overlap.ep_roofline(4096, 2048, 8, big, c, TEACH.scaleout_bytes_per_s_per_dir,
                              capacity_factor=1.25, dispatch_bytes=1)
    assert float(fp8.critical) == pytest.approx(12_500, rel=1e-3)      # (c)


def test_roofline_curves_cross_one_at_the_tables_threshold():
    # the figure's DP curve and the table's DP threshold are the same formula: interpolating the
    # curve's crossing of ratio 1 (log-log straight line) gives the table's critical batch
    t = overlap.roofline_table("llama-2-70b", "H100-SXM",
                               tokens_per_microbatch=4096, tp=2, pp=4, dp=256)
    c = overlap.roofline_curves("llama-2-70b", "H100-SXM", tp=2, pp=4, dp=256)
    dp = c[c["kind"] == "DP"]
    crossing = np.exp(np.interp(0.0, np.log(dp["ratio"]), np.log(dp["x"])))
    assert crossing == pytest.approx(t.set_index("kind").loc["DP (ZeRO-0)", "critical"], rel=1e-6)
    assert set(c["kind"]) == {"DP", "FSDP", "TP", "PP", "EP", "CP"}


def test_the_table_counts_a_chunk_for_pp_and_one_sequence_for_cp():
    # A teacher: the PP row counted a stage's 20 layers (80 / 4) where an interleaved schedule
    # sends after each chunk of 80 / (4 × 20) = 1 layer (Narayanan et al. 2021 §2.2.2), and the
    # CP row was printed for a plan without CP, at micro-batch × sequence tokens where ring
    # attention passes one sequence's K and V: seq_len ÷ cp per rank (Liu et al. 2023 §3).
    # Llama 2 70B: 80 layers (Touvron et al. 2023).
    t = overlap.roofline_table("llama-2-70b", "H100-SXM", tokens_per_microbatch=8192, tp=4, pp=4,
                               dp=8, virtual_stages=20, seq_len=4096).set_index("kind")
    assert t.loc["PP", "value"] == pytest.approx(80 / (4 * 20)) and "CP" not in t.index
    cp = overlap.roofline_table("llama-2-70b", "H100-SXM", tokens_per_microbatch=8192, tp=4,
                                pp=4, dp=8, cp=2, seq_len=8192).set_index("kind")
    assert cp.loc["CP", "value"] == pytest.approx(8192 / 2)
    assert cp.loc["PP", "value"] == pytest.approx(80 / 4)          # v = 1: the stage's layers
