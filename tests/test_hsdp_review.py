"""Fixes from the fresh-eyes review of hybrid sharding (HSDP): plan search with a fixed shard
size, input checks, the routed experts' replica stride, the replica all-reduce's window and
flavours. Expected values are derived by hand in each test from the cited rule.
"""

import numpy as np
import pytest

import llmcost
from llmcost import comm, parallel, shapes, stacks, step
from llmcost.checks import _stack_warnings
from llmcost.hardware import Cluster
from llmcost.parallel import PlanError

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
    # megatron-core-2024 offers ZeRO 0-2 only; a fixed fsdp_shard_size is a ZeRO-3 plan, so it
    # fixes the free zero_stage to 3 (kept and warned, as a fixed zero_stage 3 would be).
    p = _default_scenario(fsdp_shard_size=32)
    plan = parallel.plan_from_parameters(p)
    assert plan.zero_stage == 3 and plan.fsdp_shard_size == 32
    assert (plan.dp * plan.cp) % 32 == 0
    warns = _stack_warnings(p, plan)
    assert any("zero_stage=3" in w and "megatron-core-2024" in w for w in warns)
    assert any("hybrid sharding" in w for w in warns)


def test_fixed_shard_size_with_zero_stage_2_names_the_zero_stage_rule():
    with pytest.raises(PlanError, match=r"needs zero_stage=3 \(got zero_stage=2\)") as e:
        parallel.plan_from_parameters(_default_scenario(fsdp_shard_size=32, zero_stage=2))
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
    # The step engine also prices the ZeRO-0 all-reduce of each plan (groups of 16 dense and 8
    # expert ranks): the replica all-reduces are its calls over the 4 replicas, dense and
    # expert shards (two per step_time call at least).
    step.step_time(mix, cl, plan, 4096, stack="pytorch-fsdp2-2024")
    rep = [st for n, st in calls if n == [4.0]]
    assert len(rep) >= 2 and all(st == [4.0] for st in rep)
    calls.clear()
    comm.comm_volume(mix, cl, plan, 4096)                 # HSDP only: dense + expert shards
    assert len(calls) == 2 and all(n == [4.0] and st == [4.0] for n, st in calls)
