"""Fixes from the fresh-eyes review of hybrid sharding (HSDP): plan search with a fixed shard
size, input checks, the routed experts' replica stride, the replica all-reduce's window and
flavours. Expected values are derived by hand in each test from the cited rule.
"""

import numpy as np
import pytest

import llmcost
from llmcost import comm, parallel, shapes, stacks, step
from llmcost.bill.checks import _stack_warnings
from llmcost.core.hardware import Cluster
from llmcost.training.parallel import PlanError

H100 = llmcost.load_accelerator("H100-SXM")
M70 = llmcost.load_model("llama-3.1-70b")
M8 = llmcost.load_model("llama-3.1-8b")


def _default_scenario(**kw):
    """data/scenarios/default.yaml's plan keys: every plan field free, megatron-core-2024."""
    p = dict(model="llama-2-70b", accelerator="H100-SXM", n_gpus=2048, seq_len=4096,
             global_batch_tokens=4194304, tp=0, pp=0, dp=0, cp=1, ep=0, zero_stage=-1,
             recompute="auto", micro_batch_size=0, pp_schedule="auto", pp_virtual_stages=0,
             pp_split="even", stack="megatron-core-2024")
    p.update(kw)
    return p


# ----------------------------------------------------------------------------- finding 1
def test_fixed_shard_size_with_free_zero_stage_fixes_zero_stage_3_and_warns():
    # megatron-core-2024 offers ZeRO 0-1 only; a fixed fsdp_shard_size is a ZeRO-3 plan, so it
    # fixes the free zero_stage to 3 (kept and warned, as a fixed zero_stage 3 would be).
    p = _default_scenario(fsdp_shard_size=32)
    plan = step.scenario_plan(p)
    assert plan.zero_stage == 3 and plan.fsdp_shard_size == 32
    assert (plan.dp * plan.cp) % 32 == 0
    warns = _stack_warnings(p, plan)
    assert any("zero_stage=3" in w and "megatron-core-2024" in w for w in warns)
    assert any("hybrid sharding" in w for w in warns)


def test_fixed_shard_size_with_zero_stage_2_names_the_zero_stage_rule():
    with pytest.raises(PlanError, match=r"needs zero_stage=3 \(got zero_stage=2\)") as e:
        step.scenario_plan(_default_scenario(fsdp_shard_size=32, zero_stage=2))
    assert e.value.rule == "fsdp_shard"


# ----------------------------------------------------------------------------- finding 2
@pytest.mark.parametrize("kw, words", [
    (dict(fsdp_shard_sizes=(None, 0)), "fsdp_shard_sizes: 0"),
    (dict(fsdp_shard_sizes=("abc",)), "fsdp_shard_sizes"),
    (dict(fsdp_shard_sizes="abc"), "fsdp_shard_sizes='abc'"),
    (dict(fsdp_shard_sizes=([32],)), r"fsdp_shard_sizes: \[32\]"),
    (dict(fsdp_shard_sizes=(7.5,)), "fsdp_shard_sizes: 7.5"),
    (dict(fsdp_shard_sizes=(-8,)), "fsdp_shard_sizes: -8"),
    (dict(batch_per_gpu=1.5), "batch_per_gpu=1.5"),
    (dict(batch_per_gpu=0), "batch_per_gpu=0"),
    (dict(n_gpus=(0,)), "n_gpus: 0"),
    (dict(n_gpus=64), "n_gpus=64"),
])
def test_sharding_study_rejects_bad_input_naming_field_and_value(kw, words):
    args = dict(n_gpus=(64,), fsdp_shard_sizes=(None, 32))
    args.update(kw)
    with pytest.raises(ValueError, match=words):
        step.sharding_study(M8, H100, args.pop("n_gpus"), args.pop("fsdp_shard_sizes"),
                            seq_len=4096, **args)


def test_sharding_study_skips_sizes_that_are_not_hsdp_at_a_count():
    # 64 GPUs at TP1 PP1: dp·cp = 64. 32 divides 64 (HSDP-32 row); 64 is the whole group (plain
    # ZeRO-3, the None row); 24 does not divide 64 (fsdp_shard rule): two rows.
    df = step.sharding_study(M8, H100, (64,), (None, 32, 64, 24), seq_len=4096)
    assert list(df["label"]) == ["ZeRO-3", "HSDP-32"]
    assert list(df["fsdp_shard_size"]) == [64, 32]


# ----------------------------------------------------------------------------- finding 3
def test_routed_expert_replicas_sit_f_tp_ranks_apart(monkeypatch):
    # Rank order tp-cp-ep-dp: rank = tp_i + tp·(cp_i + cp·(ep_i + ep·dp_i)). With tp1, cp2,
    # ep2, dp8 (dp·cp = 16) and f = 4, rank 0's shard group is ranks 0-3 (cp_i, ep_i in {0, 1},
    # dp_i = 0); the next group is ranks 4-7, and rank 4 (cp_i 0, ep_i 0, dp_i 1) holds the same
    # dense and expert shard as rank 0: the replica stride is f·tp = 4 (not f·tp·cp = 8), and
    # the 16 / 4 = 4 replicas are ranks 0, 4, 8, 12: two per 8-GPU NVLink domain.
    mix = llmcost.load_model("mixtral-8x7b")
    plan = parallel.ParallelPlan(dp=8, tp=1, pp=1, cp=2, ep=2, micro_batch_size=1,
                                 n_microbatches=2, zero_stage=3, recompute="full",
                                 fsdp_shard_size=4)
    cl = Cluster(H100, 16)
    place = comm.placement(plan, cl).set_index("dimension")
    assert place.loc["HSDP replicas", "stride"] == 4
    calls = []
    real = comm._Figures.nccl

    def spy(self, op, s, n, stride, nic_aggregation=True):
        if op == "all_reduce":
            calls.append((np.atleast_1d(n).astype(float).tolist(),
                          np.atleast_1d(stride).astype(float).tolist()))
        return real(self, op, s, n, stride, nic_aggregation)

    monkeypatch.setattr(comm._Figures, "nccl", spy)
    # The replica all-reduces are the engine's all-reduce calls over the 4 replicas, dense and
    # expert shards (two per step_time call at least; an array of plans also prices each
    # plan's ZeRO-0 all-reduce, over groups of 16 dense and 8 expert ranks).
    step.step_time(mix, cl, plan, 4096, stack="pytorch-fsdp2-2024")
    rep = [st for n, st in calls if n == [4.0]]
    assert len(rep) >= 2 and all(st == [4.0] for st in rep)
    calls.clear()
    comm.comm_volume(mix, cl, plan, 4096)                 # HSDP only: dense + expert shards
    assert len(calls) == 2 and all(n == [4.0] and st == [4.0] for n, st in calls)


# ----------------------------------------------------------------------------- finding 4 / 6
def test_replica_all_reduce_window_is_the_whole_backward_less_busy():
    # zero_exposure's HSDP rule (hand numbers, seconds): F = 1 and full recomputation, so the
    # last backward lasts B = 3F = 3; the shard group's own traffic holds the NICs for busy =
    # 1, leaving B − busy = 2 to hide the 2.5 s replica all-reduce: 0.5 exposed (ZeRO-0's 2F
    # window would leave 2 − 1 = 1 and expose 1.5). Per micro-batch (FSDP2's default) the same
    # 0.5 moves into the per-micro-batch part, paid m times.
    kw = dict(gather=np.asarray(0.0), z3_rs=np.asarray(0.0), n_gathers=np.asarray(3.0),
              rs=np.asarray(0.0), grad=np.asarray(2.5), wgather=np.asarray(0.0),
              backward_compute=np.asarray(3.0), grad_link_busy=1.0)
    per_mb, per_step = step.zero_exposure(np.asarray(3), True, np.asarray(1.0), **kw)
    assert float(per_mb) == 0.0 and float(per_step) == pytest.approx(0.5)
    per_mb, per_step = step.zero_exposure(np.asarray(3), True, np.asarray(1.0),
                                          replica_per_microbatch=True, **kw)
    assert float(per_mb) == pytest.approx(0.5) and float(per_step) == 0.0
    # ZeRO-0 keeps its 2F window (unchanged): 2.5 − 2 = 0.5 with no busy term
    kw.update(grad_link_busy=0.0)
    _, z0 = step.zero_exposure(np.asarray(0), True, np.asarray(1.0), **kw)
    assert float(z0) == pytest.approx(0.5)


def _captured_zero_exposure(monkeypatch, plan, cluster, **kw):
    rec = []
    real = step.zero_exposure

    def spy(*a, **k):
        out = real(*a, **k)
        rec.append((a, k, out))
        return out

    monkeypatch.setattr(step, "zero_exposure", spy)
    b = step.step_time(M70, cluster, plan, 4096, stack="pytorch-fsdp2-2024", **kw)
    monkeypatch.setattr(step, "zero_exposure", real)
    return b, rec[0]


def test_shard_group_across_nodes_busy_time_decides_the_replica_exposure(monkeypatch):
    # Llama 3.1 70B (Ψ ≈ 70.6e9), 512 H100, TP1, ZeRO-3, full recompute, HSDP f = 32 (4 nodes
    # per shard group, 16 replicas one per node), NIC cut to a quarter: 12.5 GB/s per GPU.
    # By hand, at the nominal bandwidth (efficiencies < 1 only lengthen these):
    # * one 16-bit gather over 4 nodes through each node's 8 NICs moves (3/4)·2Ψ/8 = 13.2 GB
    #   per GPU: >= 1.06 s; the reduce-scatter (fp32 gradients) twice that: >= 2.12 s. Under
    #   full recompute the backward re-gathers twice, so busy = 2G + RS >= 4.2 s.
    # * the replica all-reduce of the Ψ/32 fp32 shard (8.8 GB) over 16 ranks, ring:
    #   2·15/16·8.8 GB = 16.5 GB at 12.5 GB/s >= 1.32 s.
    # * the backward, 3F (F = the forward of one 4,096-token sequence, ~1 s), is shorter than
    #   busy, so the window B − busy is empty and the whole all-reduce is exposed; with the
    #   busy time not wired (0) it would hide entirely behind B > grad.
    quarter = H100.scaleout_bytes_per_s_per_dir / 4
    assert quarter == pytest.approx(12.5e9)
    cl = Cluster(H100, 512, scaleout_bytes_per_s_per_dir=quarter)
    plan = parallel.make_plan(M70, 512, 1024, zero_stage=3, recompute="full", seq_len=4096,
                              fsdp_shard_size=32)
    assert plan.n_microbatches == 2
    b, (a, k, (per_mb, per_step)) = _captured_zero_exposure(
        monkeypatch, plan, cl, hsdp_all_reduce="per_step")
    F, grad, busy, B = float(a[2]), float(k["grad"]), float(k["grad_link_busy"]), \
        float(k["backward_compute"])
    assert B == pytest.approx(3 * F)
    assert busy == pytest.approx((float(k["n_gathers"]) - 1) * float(k["gather"])
                                 + float(k["z3_rs"]))           # the documented busy rule
    assert busy >= 4.2 and 1.32 <= grad <= 1.32 / 0.8
    assert grad < B < busy
    assert float(per_step) == pytest.approx(grad)               # max(grad − max(B − busy, 0), 0)
    # FSDP2's default (pytorch-fsdp2-2024 = per_microbatch): the same exposure on each of the
    # m = 2 micro-batches: (m − 1)·grad more DP time per step
    b2, _ = _captured_zero_exposure(monkeypatch, plan, cl)
    extra = b2.dp_comm_s - b.dp_comm_s
    assert extra == pytest.approx((plan.n_microbatches - 1) * grad, rel=1e-9)
    print(f"\nHSDP-32 70B 512 H100 quarter NIC: MFU per_step {b.mfu:.3f}, per_microbatch "
          f"{b2.mfu:.3f} ({b2.mfu / b.mfu - 1:+.1%}); replica all-reduce {grad:.2f} s, "
          f"busy {busy:.2f} s, backward {B:.2f} s")


# ----------------------------------------------------------------------------- finding 8
_ARR = dict(tp=1, pp=1, dp=64, cp=1, ep=1, virtual_stages=1, micro_batch_size=1,
            n_microbatches=1, recompute="none", schedule="1f1b", sequence_parallel=True,
            seq_len=4096)


def test_engines_refuse_a_shard_size_of_0_naming_the_field():
    # 0 is not the whole group in the engines (None is); the scenario's 0 = "chosen" stays.
    cl = Cluster(H100, 64)
    with pytest.raises(ValueError, match=r"fsdp_shard_size=0 .*None, not 0"):
        step.step_arrays(M8, cl, zero_stage=3, fsdp_shard_size=np.array([0]), **_ARR)
    with pytest.raises(ValueError, match=r"fsdp_shard_size=0 .*None, not 0"):
        llmcost.memory.plan_memory_arrays(M8, zero_stage=3, fsdp_shard_size=0, **_ARR)
    with pytest.raises(ValueError, match=r"fsdp_shard_size=0 .*None, not 0"):
        shapes.shard_group_arrays(64, 1, 1, 3, np.array([0]))
    row = parallel.make_plan(M8, 64, 64, zero_stage=3, seq_len=4096).to_dict()
    for bad in (0, 7.5, -8, "8"):
        with pytest.raises(ValueError, match=f"fsdp_shard_size={bad!r}"):
            parallel.plan_from_row({**row, "fsdp_shard_size": bad})
    assert parallel.plan_from_row({**row, "fsdp_shard_size": 8.0}).fsdp_shard_size == 8
    assert parallel.plan_from_row({**row, "fsdp_shard_size": float("nan")}).fsdp_shard_size \
        is None
    assert step.scenario_plan(
        dict(model="llama-3.1-8b", accelerator="H100-SXM", n_gpus=64, seq_len=4096,
             global_batch_tokens=64 * 4096, tp=1, pp=1, cp=1, ep=1, zero_stage=3,
             recompute="none", micro_batch_size=1, pp_schedule="1f1b", pp_virtual_stages=1,
             stack="pytorch-fsdp2-2024", fsdp_shard_size=0)).zero_stage == 3   # 0 = chosen


@pytest.mark.parametrize("args, words", [
    ((0, 1, 8), "dp_cp=0"), ((64, -1, 8), "tp=-1"), ((64, 1, 8.0), "domain_size=8.0"),
    ((64, 1, "8"), "domain_size='8'"), ((64, 1, 8, 0), "ep=0"), ((64, 1, 8, 1, 1.5), "cp=1.5"),
])
def test_hsdp_shard_sizes_validates_its_arguments(args, words):
    with pytest.raises(ValueError, match=words):
        parallel.hsdp_shard_sizes(*args)


@pytest.mark.parametrize("kw, words", [
    (dict(dp=0), "dp=0"), (dict(dp=64.0), "dp=64.0"), (dict(cp=-2), "cp=-2"),
    (dict(ep="2"), "ep='2'"), (dict(zero_stage=4), "zero_stage=4"),
    (dict(fsdp_shard_size=0), "fsdp_shard_size=0"),
])
def test_check_fsdp_shard_validates_its_arguments(kw, words):
    args = dict(fsdp_shard_size=8, dp=64, cp=1, ep=1, zero_stage=3)
    args.update(kw)
    with pytest.raises(ValueError, match=words):
        parallel.check_fsdp_shard(**args)


def test_enumerate_plans_says_why_a_shard_size_gives_no_hsdp_row():
    # 64 GPUs: every dp·cp group is a power of two, which 3 never divides
    with pytest.warns(parallel.EmptyPlanTable, match=r"no HSDP row for fsdp_shard_size=\(3,\)"):
        df = parallel.enumerate_plans(M8, Cluster(H100, 64), 64, 4096, zero_stage=(3,),
                                      fsdp_shard_size=[3])
    assert len(df) and df.attrs["n_hsdp"] == 0 and "divides" in df.attrs["hsdp_empty_reason"]


def test_validate_parameters_none_shard_size_names_full_and_auto():
    # a scenario's null is said as the scenario file wrote it, "null", not Python's None
    with pytest.raises(ValueError, match=r"fsdp_shard_size=null .*'full'.*'auto'"):
        llmcost.validate_parameters(fsdp_shard_size=None)


# ----------------------------------------------------------------------------- finding 5
def test_hsdp_pays_from_says_none_when_no_count_gains_enough():
    import pandas as pd
    rows = [(64, "ZeRO-3", 0.40), (64, "HSDP-32", 0.40), (1024, "ZeRO-3", 0.40),
            (1024, "HSDP-32", 0.41), (4096, "ZeRO-3", 0.30), (4096, "HSDP-32", 0.40)]
    d = pd.DataFrame(rows, columns=["n_gpus", "label", "mfu"])
    # ratios 1.0, 1.025, 1.333: 5% first at 4,096; nothing gains 50% (idxmax alone said 64)
    assert step.hsdp_pays_from(d, "HSDP-32", 1.05) == 4096
    assert step.hsdp_pays_from(d, "HSDP-32", 1.5) is None
    assert step.hsdp_pays_from(d, "HSDP-8", 1.05) is None
    with pytest.raises(ValueError, match="gain=0"):
        step.hsdp_pays_from(d, "HSDP-32", 0)
    with pytest.raises(ValueError, match="columns"):
        step.hsdp_pays_from(d.drop(columns="mfu"))
