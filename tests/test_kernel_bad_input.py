"""Bad input to the step-time kernels is refused: a ValueError naming the field, its value and
the rule, where the function used to return a number (a negative or zero size read as no work, a
string read as True, an unknown recipe read as the default)."""

import numpy as np
import pytest

from llmcost.training import attention, elementwise, moe_layer


def test_attention_flags_and_sizes():
    # causal="no" was read as True (a non-empty string)
    with pytest.raises(ValueError, match=r"causal='no' must be True or False"):
        attention.attention_tflops("fa2", "forward", "no", 128, 4096)
    # seq_len 0 read the curve's 2k end point through log(0) = -inf
    with pytest.raises(ValueError, match=r"seq_len=0 must be > 0"):
        attention.blackwell_tflops("GB200", "forward", 128, 0)
    with pytest.raises(ValueError, match=r"head_dim=-64 must be > 0"):
        attention.blackwell_tflops("GB200", "forward", -64, 4096)
    with pytest.raises(ValueError, match=r"window=-1 must be >= 0"):
        attention.blackwell_tflops("GB200", "forward", 64, 4096, window=-1)
    with pytest.raises(ValueError, match=r"fraction=-1 must be > 0"):
        attention.fa1_length_curve("A100-80GB", -1)
    with pytest.raises(ValueError, match=r"fraction=1.5 must be <= 1"):
        attention.fa1_length_curve("A100-80GB", 1.5)
    # good input still answers: numpy's bool is a flag
    assert float(attention.attention_tflops("fa2", "forward", np.bool_(True), 128, 4096)) > 0


def test_ring_bytes_need_a_context_parallel_size_of_one_or_more():
    # cp 0 and -1 returned 0 bytes, as cp = 1 (no ring)
    with pytest.raises(ValueError, match=r"cp=0 must be > 0"):
        attention.ring_merge_bytes(1e6, 0)
    with pytest.raises(ValueError, match=r"cp=-1 must be > 0"):
        attention.torch_ring_bytes(1e6, 1e6, -1)
    with pytest.raises(ValueError, match=r"cp=2.5 must be a whole number"):
        attention.ring_merge_bytes(1e6, 2.5)
    with pytest.raises(ValueError, match=r"out_elements=-1.0 must be >= 0"):
        attention.ring_merge_bytes(-1.0, 2)
    # by hand: cp 4, (cp - 1) merges of 10 / 4 B per output element
    f, b = attention.ring_merge_bytes(100.0, 4)
    assert (float(f), float(b)) == (10 * 3 * 100.0, 4 * 3 * 100.0)
    assert [float(v) for v in attention.torch_ring_bytes(1.0, 1.0, 1)] == [0.0, 0.0]


def test_cast_bytes_refuse_bad_shares_and_sizes():
    # weight_share is the share of the weight cast paid per micro-batch, in (0, 1]
    with pytest.raises(ValueError, match=r"weight_share=2 must be <= 1"):
        elementwise.fp8_cast_bytes([(4096, 4096, 4096)], weight_share=2)
    with pytest.raises(ValueError, match=r"weight_share=0 must be > 0"):
        elementwise.fp8_cast_bytes([(4096, 4096, 4096)], weight_share=0)
    with pytest.raises(ValueError, match=r"m=-4096 must be >= 0"):
        elementwise.fp8_cast_bytes([(-4096, 4096, 4096)])
    with pytest.raises(ValueError, match=r"count=-1 must be >= 0"):
        elementwise.fp8_cast_bytes([(4096, 4096, 4096, -1)])
    # xs is the rank's sequence shard: at most its x tokens
    with pytest.raises(ValueError, match=r"xs=.* must be <= x="):
        elementwise.te_layer_cast_bytes(1024.0, 4096.0, [(4096, 4096)], [(4096, 4096)])
    with pytest.raises(ValueError, match=r"elements=-1 must be >= 0"):
        elementwise.expert_bias_bytes(-1, 2)
    with pytest.raises(ValueError, match=r"elements=-1 must be >= 0"):
        elementwise.clamped_glu_bytes(-1)
    # by hand: current scaling, 6 B per element, (m·k + k·n) forward and m·n backward
    f, b = elementwise.fp8_cast_bytes([(2, 3, 5)], "current")
    assert (float(f), float(b)) == (6 * (2 * 3 + 3 * 5), 6 * 2 * 5)


def test_moe_host_cost_refuses_more_ep_ranks_than_experts_and_unknown_recipes():
    with pytest.raises(ValueError, match=r"ep=16 must be <= n_experts=8"):
        moe_layer.moe_host_overhead_s(8, 16)
    # an unknown recipe used to read as "no extra launches" (1.0)
    with pytest.raises(ValueError, match=r"fp8_recipe='bogus' must be one of"):
        moe_layer.fp8_expert_host_factor("fp8", "bogus")
    # by hand: EP 8 of 8 experts, one local expert, no recompute: (1 + 2)/3 · (layer + expert)
    assert float(moe_layer.moe_host_overhead_s(8, 8)) == pytest.approx(
        moe_layer.MOE_LAYER_HOST_S + moe_layer.MOE_EXPERT_HOST_S, rel=1e-12)
