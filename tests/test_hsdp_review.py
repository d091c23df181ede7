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
