"""A stack without model parallelism keeps plan search to data parallelism and ZeRO/FSDP.

A new-user trial ran Llama 2 7B on 8 A100 at 65,536 tokens on the llm-foundry-2023 stack with the
plan left free and was billed for "TP8 · PP1 · DP1 · no ZeRO", a plan llm-foundry could not run:
at b2a43a147 (the commit of its 2023-10 benchmark tables) MPT trains through Composer's FSDP only
(the README's Sharding Strategy column, FULL_SHARD), and llm-foundry's first tensor-parallel layer
plan (llmfoundry/models/utils/tp_strategies.py, "Copyright 2024") came later.
"""

from __future__ import annotations

import llmcost
from llmcost.bill import checks
from llmcost.core.stacks import load_stack, plan_options

FOUNDRY = {"model": "llama-2-7b", "accelerator": "A100-80GB", "n_gpus": 8, "seq_len": 65536,
           "global_batch_tokens": 1_048_576, "stack": "llm-foundry-2023"}


def test_the_foundry_stack_has_no_model_parallelism_and_others_do():
    assert load_stack("llm-foundry-2023").model_parallel is False
    assert "tp" not in plan_options("megatron-core-2024")
    assert load_stack("megatron-core-2024").model_parallel is True
    opts = plan_options("llm-foundry-2023")
    assert (opts["tp"], opts["pp"], opts["cp"]) == ((1,), (1,), (1,))


def test_a_free_plan_on_it_is_data_parallel_and_a_fixed_split_is_said():
    spec, _, plan, _ = checks.scenario_plan_memory(FOUNDRY)
    assert (plan.tp, plan.pp, plan.cp, plan.dp) == (1, 1, 1, 8), plan.describe()
    values = llmcost.validate_parameters(**FOUNDRY, tp=2, pp=1, dp=4, cp=1)
    said = [w for w in checks.scenario_warnings(values) if "model_parallel" in w]
    assert said and said[0].startswith("tp=2: the llm-foundry-2023 stack has no tensor")
