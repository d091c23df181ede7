"""The eager clamp before a clamped gated activation of the routed experts
(``elementwise.clamped_glu_bytes``, ``ModelSpec.glu_limit``).

Sources: NVIDIA/Megatron-LM ``megatron/core/fusions/fused_bias_geglu.py``,
``weighted_bias_quick_geglu_impl`` (the same at b0cc2706d, d7288711b, 2edffadb5, d0b3b7754 and
458c8d0ec, the Megatron-Core pins of Megatron-Bridge v0.3.0 to v0.5.1)::

    x_glu, x_linear = input.chunk(2, -1)
    input = torch.cat((x_glu.clamp(min=None, max=clamp_value),
                       x_linear.clamp(min=-clamp_value, max=clamp_value)), -1)

called by ``TEGroupedMLP.bias_act_func`` with ``bias_activation_fusion`` and ``quick_gelu``,
which Megatron-Bridge's GPT-OSS bridge sets with ``activation_func_clamp_value = 7.0``
(``src/megatron/bridge/models/gpt_oss/gpt_oss_bridge.py`` at c81012934 = v0.4.2); with the
Transformer Engine op fuser (``megatron/core/transformer/moe/experts.py`` at 458c8d0ec,
``_make_fused_ops``: ``limit=clamp``) the clamp is inside Transformer Engine's fused op. The
autograd formulas: pytorch/pytorch ``torch/csrc/autograd/FunctionsManual.cpp`` ``clamp_backward``
(``where`` over one or two comparisons) and ``split_backward`` (an ``at::cat``).
"""

import pytest
from test_expert_bias import _with_and_without  # gpt-oss 120B on 8 H100, with and without

import llmcost
from llmcost import load_accelerator, load_model
from llmcost.training import elementwise, step
from llmcost.training.options import StepOptions


def test_bytes_per_element_by_hand():
    # forward, per element of the [tokens, 2 x d_ff_expert] fc1 output: each half clamped into a
    # new tensor (read 2, write 2), then torch.cat (read 2, write 2) -> 8 B
    # backward: cat's gradient is slices; the gate half's clamp (max only):
    # where(self <= max, grad, 0): compare read 2 write 1, where read 1 + 2 write 2 -> 8 B;
    # the linear half's (min and max): two compares 3 B each, logical_and_ read 2 write 1,
    # where 5 -> 14 B; the halves average (8 + 14) / 2 = 11 B; chunk's gradient concatenates
    # the halves (read 2, write 2) -> 15 B
    assert elementwise.clamped_glu_bytes(1) == ((2 + 2) + (2 + 2), (8 + 14) / 2 + (2 + 2))
    f, b = elementwise.clamped_glu_bytes([1.0, 10.0])
    assert list(f) == [8.0, 80.0] and list(b) == [15.0, 150.0]


def test_the_engine_adds_the_passes_by_hand(monkeypatch):
    # gpt-oss 120B on 8 H100, EP 8, one micro-batch of 4,096 tokens per GPU, no recompute, on
    # megatron-core-2024: per MoE layer the rank's routed tokens x the fc1 width,
    # x·k·(routing factor)·2·d_ff_expert elements, 8 + 15 B each at the sustained HBM rate,
    # x 36 layers
    spec, on, off, o, c, bw = _with_and_without(monkeypatch, "CLAMPED_GLU_STACKS")
    elements = 4096 * c.k * o.moe_factor * 2 * spec.d_ff_expert
    by_hand = spec.n_layers * 23.0 * elements / bw
    assert on.memory_bound_s - off.memory_bound_s == pytest.approx(by_hand, rel=1e-9)
    assert on.step_time_s - off.step_time_s == pytest.approx(by_hand, rel=1e-6)
    # the routed fc1 output is 2 x 2,880 / 2,880 = 2x the expert-bias passes' tokens x h, and
    # 23 B against their 28 B per element (BF16 probabilities): about 1.6x their time
    assert 0.01 < by_hand / on.step_time_s < 0.15


def _memory_bound_s(spec, stack):
    cl = llmcost.Cluster(load_accelerator("H100-SXM"), 8)
    plan = llmcost.make_plan(spec, 8, 8, tp=1, pp=1, ep=8, micro_batch_size=1, seq_len=4096,
                             zero_stage=1)
    return step.step_time(spec, cl, plan, 4096,
                          options=StepOptions(straggler=False, stack=stack)).memory_bound_s


def test_who_pays():
    # a clamped model on the eager Megatron-Core stacks pays; the op-fuser stack
    # (megatron-core-2026) and a non-Megatron stack do not; a model without a clamp (Qwen3's
    # SwiGLU) pays once given one
    assert elementwise.CLAMPED_GLU_STACKS == {"megatron-core-2024", "megatron-core-2025"}
    gpt = load_model("gpt-oss-120b")
    qwen = load_model("qwen3-30b-a3b")
    for stack in ("megatron-core-2024", "megatron-core-2025"):
        assert _memory_bound_s(gpt, stack) > _memory_bound_s(gpt.replace(glu_limit=0.0), stack)
        assert _memory_bound_s(qwen.replace(glu_limit=7.0), stack) > _memory_bound_s(qwen, stack)
    for stack in ("megatron-core-2026", "deepspeed-zero3-2021"):
        assert _memory_bound_s(gpt, stack) == _memory_bound_s(gpt.replace(glu_limit=0.0), stack)
