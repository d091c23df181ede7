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
