"""A group of GPUs on a full-mesh board moves its bytes over the direct links among its members
only (``comm.mesh_scaleup_bandwidth``), checked against the boards' datasheets by hand.

Sources (``data/scaleup_topology.csv``): AMD Instinct MI300X data sheet and platform (8 GPUs on
a UBB, each with 7 Infinity Fabric links of 64 GB/s per direction, one to each of the other 7;
no switch); Intel Gaudi 3 HLS-3 (3 × 200 GbE ports to each of 7 peers: 75 GB/s per direction per
pair). NVSwitch boards (H100): any group gets each GPU's full link bandwidth.
"""
import pytest

from llmcost import Cluster, load_accelerator, load_efficiency
from llmcost.training import comm, overlap

GB = 1e9
S = 1e9   # one 1 GB buffer: the bandwidth term dwarfs the latency


def _bw_time(name, op, n, stride=1, n_gpus=8):
    """Seconds of the collective minus those of an empty one: the bandwidth term alone."""
    cl = Cluster(load_accelerator(name), n_gpus)
    return float(comm.cluster_collective_time(op, S, n, cl, stride)
                 - comm.cluster_collective_time(op, 0.0, n, cl, stride))


@pytest.mark.parametrize("name, peers", [("MI300X", 7), ("MI325X", 7), ("Gaudi 3", 7),
                                         ("H100-SXM", 0), ("B200", 0), ("TPU v5p", 0),
                                         ("GB200-NVL72", 0)])
def test_mesh_peers_from_the_topology_table(name, peers):
    # MI300X: 7 links, one per peer; Gaudi 3: 21 ports, 3 per peer; switches and tori: 0
    # (a torus is priced as a switch; an accelerator without a row, as GB200 here, too)
    assert comm.mesh_peers(name) == peers


def test_a_pair_on_an_mi300x_board_has_one_link():
    # ring all-reduce of 2 ranks moves 2·(2−1)/2·S = S per rank: over one 64 GB/s link at the
    # board's achievable fraction, not over the catalogue's 7 × 64 = 448 GB/s
    acc = load_accelerator("MI300X")
    frac = load_efficiency(acc).scaleup_fraction
    assert acc.scaleup_bytes_per_s_per_dir == pytest.approx(7 * 64 * GB)
    assert _bw_time("MI300X", "all_reduce", 2) == pytest.approx(S / (64 * GB * frac), rel=1e-9)
    # a group of 4: 3 links; all 8: the whole board, as before
    assert _bw_time("MI300X", "all_reduce", 4) == pytest.approx(
        2 * 3 / 4 * S / (3 * 64 * GB * frac), rel=1e-9)
    assert _bw_time("MI300X", "all_reduce", 8) == pytest.approx(
        2 * 7 / 8 * S / (7 * 64 * GB * frac), rel=1e-9)
    # a point-to-point send within the board (a pipeline stage's neighbour): one link
    assert _bw_time("MI300X", "send_recv", 2) == pytest.approx(S / (64 * GB * frac), rel=1e-9)


def test_a_pair_on_gaudi3_has_three_ports():
    # 3 × 200 GbE = 75 GB/s per direction between two Gaudi 3s of one HLS-3 board
    acc = load_accelerator("Gaudi 3")
    frac = load_efficiency(acc).scaleup_fraction
    assert _bw_time("Gaudi 3", "all_gather", 2) == pytest.approx(
        0.5 * S / (75 * GB * frac), rel=1e-9)


def test_a_switch_gives_any_group_the_whole_bandwidth():
    # H100 on NVSwitch: a pair moves at the GPU's full 450 GB/s per direction
    acc = load_accelerator("H100-SXM")
    frac = load_efficiency(acc).scaleup_fraction
    assert _bw_time("H100-SXM", "all_reduce", 2) == pytest.approx(
        S / (450 * GB * frac), rel=1e-9)


@pytest.mark.parametrize("name", ["MI300X", "Gaudi 3"])
@pytest.mark.parametrize("g", [2, 4, 8])
def test_the_engine_agrees_with_the_topology_table(name, g):
    # the step model's mesh share and notebook 04's group bandwidth (overlap.group_bandwidth,
    # the datasheet's links among the members) are the same figure
    acc = load_accelerator(name)
    share = comm.mesh_scaleup_bandwidth(1.0, g, comm.mesh_peers(name))
    assert acc.scaleup_bytes_per_s_per_dir * share == pytest.approx(
        overlap.group_bandwidth(name, g), rel=1e-9)


def test_a_data_parallel_group_strided_by_tp_on_the_mesh():
    # TP 2 on 16 MI300X: a DP group of 8 ranks 2 apart has k = 4 members per board. Its ring
    # across boards runs k channels, one entering through each member's NIC and making k − 1
    # hops inside the board: the k(k − 1) directed links among the members carry one channel
    # each, so each member moves k channels, each at most one link (64 GB/s · f_up) and one NIC
    # (50 GB/s · f_out): bus = k · min(64 GB/s · f_up, 50 GB/s · f_out), k = 4
    acc = load_accelerator("MI300X")
    eff = load_efficiency(acc)
    link = 64 * GB * eff.scaleup_fraction
    nic = acc.scaleout_bytes_per_s_per_dir * eff.scaleout_fraction
    bus = 4 * min(link, nic)
    assert _bw_time("MI300X", "all_reduce", 8, stride=2, n_gpus=16) == pytest.approx(
        2 * 7 / 8 * S / bus, rel=1e-9)
    # TP 4 on 32 GPUs: k = 2 members per board, bus = 2 · min(link, NIC)
    assert _bw_time("MI300X", "all_reduce", 8, stride=4, n_gpus=32) == pytest.approx(
        2 * 7 / 8 * S / (2 * min(link, nic)), rel=1e-9)
    # the same group on one board of a switch (H100, its NICs the bound): as before
    assert comm.mesh_scaleup_bandwidth(1.0, 4, 0, True) == 1.0
    # a ring across boards with all 8 members on each: the whole board
    assert comm.mesh_scaleup_bandwidth(1.0, 8, 7, True) == 1.0


def test_tensor_parallel_time_on_the_mesh_in_a_step():
    # the step model prices a TP 2 plan's per-layer collectives on one link: the exposed TP
    # time of Llama 3.1 70B at TP 2 on MI300X is (nearly) 7x what a switch of the same per-GPU
    # bandwidth would give; the same plan's TP time at TP 8 (all links) is unchanged by the mesh
    from llmcost import load_model, make_plan, step_time
    from llmcost.core.hardware import Accelerator
    import dataclasses

    m = load_model("llama-3.1-70b")
    mesh = load_accelerator("MI300X")
    switch = dataclasses.replace(mesh, name="MI300X-as-a-switch")
    eff = load_efficiency(mesh)
    assert isinstance(switch, Accelerator) and comm.mesh_peers(switch.name) == 0
    for tp, ratio in ((2, 7.0), (8, 1.0)):
        plan = make_plan(m, 64, 64, seq_len=8192, tp=tp, pp=1, zero_stage=1,
                         micro_batch_size=1)
        kw = dict(efficiency=eff, tp_overlap="none")
        a = step_time(m, Cluster(mesh, 64), plan, 8192, **kw).tp_comm_s
        b = step_time(m, Cluster(switch, 64), plan, 8192, **kw).tp_comm_s
        assert a / b == pytest.approx(ratio, rel=0.05)


def test_serving_tensor_parallel_all_reduce_on_the_mesh():
    # a prefill-sized all-reduce (1 GB) at TP 2 takes the bandwidth branch: one 64 GB/s link
    # on MI300X (ring: base + 2·α_up + S / (64 GB/s · f_up)); 450 GB/s on H100's NVSwitch
    from llmcost.serving import inference

    for name, link in (("MI300X", 64 * GB), ("H100-SXM", 450 * GB)):
        eff = load_efficiency(load_accelerator(name))
        hand = eff.base_latency_s + 2 * eff.scaleup_latency_s + S / (link * eff.scaleup_fraction)
        assert float(inference.tp_allreduce_time(S, 2, name)) == pytest.approx(hand, rel=1e-9)


def test_notebook_04s_roofline_takes_the_mesh_links_too():
    # a trial: notebook 04's TP roofline on MI300X at TP 2 read "compute ÷ comm 8.95: hides"
    # at the whole board's 448 GB/s while the step model priced the pair's one 64 GB/s link;
    # the table's TP row (overlap.roofline_table) is now tp_roofline at that link: 7× less
    # bandwidth, 7× smaller a ratio; a pipeline send within the board, one link too
    from llmcost import load_model

    m = load_model("llama-3.1-70b")
    t = overlap.roofline_table(m, "MI300X", tokens_per_microbatch=8192,
                               tp=2, pp=2, dp=2).set_index("kind")
    d = overlap.model_dims(m)
    c = load_accelerator("MI300X").peak_flops_per_s("bf16")
    one_link = overlap.tp_roofline(d["layer_params"], d["d_model"], 2, c, 64 * GB)
    tp_row = [k for k in t.index if k.startswith("TP")][0]
    assert t.loc[tp_row, "ratio"] == pytest.approx(float(one_link.ratio), rel=1e-12)
    board = overlap.tp_roofline(d["layer_params"], d["d_model"], 2, c, 448 * GB)
    assert float(board.ratio) / t.loc[tp_row, "ratio"] == pytest.approx(7.0, rel=1e-12)
    w_pp, _ = overlap.pp_bandwidth(4, 8, 448 * GB, 50 * GB, comm.mesh_peers("MI300X"))
    assert w_pp == pytest.approx(64 * GB, rel=1e-12)
