"""ZeRO-3 all-gathers in the backward under full recomputation (step.fsdp_backward_gathers,
stacks.Stack.recompute_regathers).

Sources, read at the commits named:

* FSDP2: pytorch/pytorch@62a45b6f4461 ``torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py``
  ``FSDPParamGroup.pre_backward``: ``if self._training_state == TrainingState.PRE_BACKWARD:
  return`` then ``self.unshard(...)``, ``self.wait_for_unshard()``: one unshard per unit and
  backward; ``post_backward`` reshards after the unit's gradients; and
  pytorch/pytorch@1fd469d0c96e ``torch/distributed/fsdp/_fully_shard/_fsdp_state.py``
  ``FSDPState._pre_forward``: "When composing with module-hook-based activation checkpointing,
  the pre-backward hook is responsible for the unshard" (``return args, kwargs`` while in
  ``PRE_BACKWARD``), and ``_post_forward`` likewise skips the reshard: the recomputed forward
  runs on the weights the pre-backward gathered. Backward gathers: 1, with or without
  recomputation.
* FSDP1 as Composer applies it: mosaicml/composer@12d31ceb9 ``composer/trainer/dist_strategy.py``
  ``prepare_fsdp_module``: ``FullyShardedDataParallel(obj, auto_wrap_policy=...)``, then
  ``apply_activation_checkpointing(fsdp_obj, ...)`` with a ``check_fn`` returning False for
  ``FullyShardedDataParallel`` modules: the checkpoint wrapper sits inside the FSDP unit, whose
  pre-backward hook unshards once; the recomputation re-runs the wrapped block only. 1.
* DeepSpeed ZeRO-3: microsoft/DeepSpeed@86d3e310d441 ``deepspeed/runtime/zero/parameter_offload.py``
  ``_register_hooks_recursively``: every sub-module's forward pre-hook fetches its parameters
  (``pre_sub_module_forward_function`` → ``fetch_sub_module``), its forward hook releases them,
  its pre-backward hook fetches them again: a reentrant recomputation re-runs the forward hooks,
  so the backward gathers twice. 2.
"""

import dataclasses

import numpy as np
import pytest

from llmcost import Cluster, load_accelerator, load_model
from llmcost.core.stacks import load_stack
from llmcost.training import step
from llmcost.training.parallel import make_plan

H100 = load_accelerator("H100-SXM")
MODEL = load_model("llama-3.1-8b")


def test_fsdp_gathers_once_in_the_backward_with_or_without_recomputation():
    # FSDP2 / FSDP1: pre_backward unshards once; the recomputed forward skips its unshard
    full = np.array([False, True])
    assert step.fsdp_backward_gathers("true", 1, full).tolist() == [1.0, 1.0]
    assert step.fsdp_backward_gathers("not_pp", 1, full).tolist() == [1.0, 1.0]
    # with a pipeline torchtitan's default keeps the weights: no backward gather at all
    assert step.fsdp_backward_gathers("not_pp", 4, full).tolist() == [0.0, 0.0]
    # DeepSpeed's per-sub-module hooks: the recomputed forward fetches again
    assert step.fsdp_backward_gathers("true", 1, full, recompute_regathers=True).tolist() \
        == [1.0, 2.0]
    assert step.fsdp_backward_gathers("false", 1, full, recompute_regathers=True).tolist() \
        == [0.0, 0.0]
    with pytest.raises(ValueError, match="fsdp_reshard_after_forward='sometimes'"):
        step.fsdp_backward_gathers("sometimes", 1, True)


def test_the_stacks_say_which_implementation_they_run():
    for name in ("pytorch-fsdp2-2024", "nemo-automodel-2025", "llm-foundry-2023"):
        assert load_stack(name).recompute_regathers is False, name
    assert load_stack("deepspeed-zero3-2021").recompute_regathers is True


def test_engine_exposed_gathers_hand_derivation():
    # dp_overlap off: every ZeRO-3 collective is exposed, per micro-batch n_g·G + RS with
    # n_g = 1 + backward gathers. On the FSDP2 stack full recomputation adds no gather
    # (n_g = 2, as without recomputation: equal DP time); the same stack made to regather
    # (DeepSpeed's rule) has n_g = 3: one whole-model gather more, and only the DP part moves
    kw = dict(tp=1, micro_batch_size=1, zero_stage=3, seq_len=8192)
    plan_full = make_plan(MODEL, 8, 8, recompute="full", **kw)
    plan_none = make_plan(MODEL, 8, 8, recompute="none", **kw)
    cl = Cluster(H100, 8)
    fsdp2 = load_stack("pytorch-fsdp2-2024")
    regather = dataclasses.replace(fsdp2, recompute_regathers=True)
    once = step.step_time(MODEL, cl, plan_full, 8192, stack=fsdp2, dp_overlap=False)
    none = step.step_time(MODEL, cl, plan_none, 8192, stack=fsdp2, dp_overlap=False)
    twice = step.step_time(MODEL, cl, plan_full, 8192, stack=regather, dp_overlap=False)
    assert once.dp_comm_s == pytest.approx(none.dp_comm_s, rel=1e-12)        # 2G + RS
    # 3G + RS against 2G + RS: G, the 16-bit weights' all-gather over 8 ranks, > 0
    assert twice.dp_comm_s - once.dp_comm_s > 0.0
    assert twice.step_time_s - once.step_time_s == pytest.approx(
        twice.dp_comm_s - once.dp_comm_s, rel=1e-9)
