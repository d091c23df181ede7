"""Attention-kernel efficiency by sequence length, head dimension and mask (training/attention.py).

Source: Shah et al. 2024, FlashAttention-3, arXiv:2407.08608, Fig. 5 (forward) and Fig. 6
(backward): TFLOPs/s of FlashAttention-2, cuDNN and FlashAttention-3 on an H100 80GB SXM5, BF16,
batch × sequence length = 16k tokens, hidden 2048. The curve R(s) = R_inf · s / (s + s_half)
must reproduce every bar within 5 % (stated tolerance).
"""

import numpy as np
import pytest

from llmcost import load_accelerator, load_efficiency, load_model
from llmcost.core.shapes import model_shapes
from llmcost.training import attention, step
from llmcost.training.options import StepOptions
from llmcost.training.step import KernelRates, LayerGeometry, layer_compute

H100 = load_accelerator("H100-SXM")
PEAK = H100.peak_flops_per_s("bf16")


def test_the_table_holds_the_papers_bars():
    d = attention.load_attention_benchmarks()
    assert len(d) == 90
    # a few bars as printed in the paper's figures (head dim 128, 16k tokens)
    pick = d.set_index(["kernel", "pass", "causal", "head_dim", "seq_len"])["tflops"]
    assert pick[("fa2", "forward", False, 128, 16384)] == 370
    assert pick[("fa3", "forward", False, 128, 16384)] == 648
    assert pick[("fa3", "forward", True, 128, 16384)] == 616
    assert pick[("fa3", "backward", False, 128, 16384)] == 561
    assert pick[("fa2", "backward", False, 128, 512)] == 214
    assert d["source"].str.contains("arXiv:2407.08608").all()


def test_curve_reproduces_every_bar_within_5_percent():
    r = attention.reproduce()
    assert r["error"].abs().max() < 0.05
    assert r["error"].abs().mean() < 0.02
    assert r["error"].abs().mean() > 0.0          # a fit, not the table itself


@pytest.mark.parametrize("key", sorted(attention.ATTENTION_CURVES, key=str))
def test_stored_curves_are_the_fit(key):
    r_inf, s_half = attention.fit_curve(*key)
    cv = attention.ATTENTION_CURVES[key]
    assert cv.r_inf_tflops == pytest.approx(r_inf, abs=0.06)
    assert cv.s_half == s_half


def test_the_papers_orderings_hold_on_the_curves():
    s = np.array([512.0, 2048.0, 8192.0, 65536.0])
    fa2 = attention.attention_tflops("fa2", "forward", False, 128, s)
    fa3 = attention.attention_tflops("fa3", "forward", False, 128, s)
    causal = attention.attention_tflops("fa3", "forward", True, 128, s)
    assert np.all(fa3 > fa2) and np.all(np.diff(fa2) > 0)
    assert np.all(causal < fa3)
    # the plateau: FA2's forward at head dim 128 tends to ~38 % of the dense BF16 peak (the
    # FlashAttention-3 abstract's "35 % utilization" for FlashAttention-2 on H100)
    assert attention.ATTENTION_CURVES[("fa2", "forward", False, 128)].r_inf_tflops / 989.4 \
        == pytest.approx(0.38, abs=0.02)


def test_causal_backward_takes_the_forwards_causal_ratio():
    s = 4096.0
    ratio = (attention.attention_tflops("fa2", "forward", True, 128, s)
             / attention.attention_tflops("fa2", "forward", False, 128, s))
    assert attention.attention_tflops("fa2", "backward", True, 128, s) == pytest.approx(
        attention.attention_tflops("fa2", "backward", False, 128, s) * ratio)
    # head dimension 192 (MLA) takes the 128 curves; 80 the 64 ones (nearest on a log scale)
    assert attention.attention_tflops("fa3", "forward", False, 192, s) == \
        attention.attention_tflops("fa3", "forward", False, 128, s)
    assert attention.attention_tflops("fa3", "forward", False, 80, s) == \
        attention.attention_tflops("fa3", "forward", False, 64, s)


def test_curves_exist_only_on_hopper():
    assert attention.kernel_curve("A100-80GB", "fa2") is None
    assert attention.kernel_curve("B200", "fa3") is None
    assert attention.kernel_curve("H800", "fa2").peak_tflops == pytest.approx(PEAK / 1e12)


def test_layer_attention_core_by_hand():
    model = load_model("llama-3.1-8b")
    c = model_shapes(model)
    s = 8192.0
    g = LayerGeometry(s=s, x=s, xs=s, tp=1.0, ep=1.0, cp=1.0, mbs=1, kvf=1.0)
    eff = load_efficiency("H100-SXM")
    curve = attention.kernel_curve("H100-SXM", "fa2")
    lc = layer_compute(model, c, g, KernelRates(PEAK, PEAK, H100.hbm_bytes_per_s, eff,
                                                attention=curve),
                       flash_attention=True, dropout=False)
    # forward FLOPs 2·s·a·(d_qk + d_v)·(s+1)/2 (causal); FA2 causal forward curve at s
    fwd, unm = (attention.ATTENTION_CURVES[("fa2", "forward", m, 128)] for m in (True, False))
    bwd = attention.ATTENTION_CURVES[("fa2", "backward", False, 128)]
    r_f = fwd.r_inf_tflops * s / (s + fwd.s_half) * 1e12
    r_b = bwd.r_inf_tflops * s / (s + bwd.s_half) * 1e12 * r_f / (
        unm.r_inf_tflops * s / (s + unm.s_half) * 1e12)
    flops = 2 * s * c.a * (c.dqk + c.dv) * (s + 1) / 2
    assert lc["t_core_f"] == pytest.approx(flops / r_f, rel=1e-9)
    assert lc["t_core_b"] == pytest.approx(2.5 * flops / r_b, rel=1e-9)


def test_ring_merges_under_context_parallelism():
    model = load_model("llama-3.1-8b")
    c = model_shapes(model)
    eff = load_efficiency("H100-SXM")
    hbm = H100.hbm_bytes_per_s
    rates = KernelRates(PEAK, PEAK, hbm, eff, attention=attention.kernel_curve("H100-SXM", "fa2"))
    s, cp = 131072.0, 4.0
    x = s / cp
    args = {"s": s, "x": x, "xs": x, "tp": 1.0, "ep": 1.0, "mbs": 1, "kvf": 1.0}
    with_cp = layer_compute(model, c, LayerGeometry(cp=cp, **args), rates,
                            flash_attention=True, dropout=False)
    flat = layer_compute(model, c, LayerGeometry(cp=cp, **args),
                         KernelRates(PEAK, PEAK, hbm, eff), flash_attention=True, dropout=False)
    # (cp − 1) merges of the rank's output x·a·d_v: 10 B forward, 4 B backward per element
    out = x * c.a * c.dv
    bw = hbm * eff.hbm_fraction
    assert with_cp["core_ew_f_t"] - flat["core_ew_f_t"] == pytest.approx(10 * 3 * out / bw)
    assert with_cp["core_ew_b_t"] - flat["core_ew_b_t"] == pytest.approx(4 * 3 * out / bw)


def test_step_option_on_hopper_only():
    from llmcost import Cluster
    from llmcost.training.parallel import make_plan
    model = load_model("llama-3.1-8b")
    plan = make_plan(model, 8, 64, tp=1, pp=1, micro_batch_size=1, zero_stage=3, seq_len=8192)
    a100 = Cluster(load_accelerator("A100-80GB"), 8)
    assert step.step_time(model, a100, plan, 8192, attention_curve=True).step_time_s == \
        step.step_time(model, a100, plan, 8192, attention_curve=False).step_time_s
    h100 = Cluster(H100, 8)
    flat = step.step_time(model, h100, plan, 8192, stack="pytorch-fsdp2-2024",
                          attention_curve=False)
    fa2 = step.step_time(model, h100, plan, 8192, stack="pytorch-fsdp2-2024",
                         attention_curve=True)
    fa3 = step.step_time(model, h100, plan, 8192, attention_curve="fa3")
    # FA2's causal curve at 8k runs below the flat 35 %; FlashAttention-3 well above
    assert fa2.attention_s > flat.attention_s > fa3.attention_s
    assert fa2.matmul_s == flat.matmul_s
    # the default stack (Megatron-Core 2024) attends through Transformer Engine, which prefers
    # cuDNN's fused attention on Hopper (TransformerEngine get_attention_backend @ a0b36d0)
    assert step.step_time(model, h100, plan, 8192, attention_curve=True).attention_s == \
        step.step_time(model, h100, plan, 8192, attention_curve="cudnn").attention_s


def test_flash_choice_keeps_the_flat_fraction_on_transformer_engine_stacks():
    # attention_curve="flash": the stack's kernel where it is a FlashAttention one (PyTorch's
    # SDPA: FlashAttention-2's curve), the flat fraction where it is cuDNN's (Transformer Engine)
    from llmcost import Cluster
    from llmcost.training.options import StepOptions
    from llmcost.training.parallel import make_plan
    assert StepOptions(stack="pytorch-fsdp2-2024", attention_curve="flash").resolve(
        "H100-SXM").attention_kernel.kernel == "fa2"
    assert StepOptions(stack="megatron-core-2024", attention_curve="flash").resolve(
        "H100-SXM").attention_kernel is None
    model = load_model("llama-3.1-8b")
    plan = make_plan(model, 8, 64, tp=1, pp=1, micro_batch_size=1, zero_stage=1, seq_len=8192)
    h100 = Cluster(H100, 8)
    for stack, same_as in (("pytorch-fsdp2-2024", True), ("megatron-core-2024", False)):
        flash = step.step_time(model, h100, plan, 8192, stack=stack, attention_curve="flash")
        ref = step.step_time(model, h100, plan, 8192, stack=stack,
                             attention_curve=True if same_as else False)
        assert flash.attention_s == ref.attention_s, stack
    with pytest.raises(ValueError, match="attention_curve='fa4'"):
        StepOptions(attention_curve="fa4")


def test_bad_input_names_the_field():
    with pytest.raises(ValueError, match="kernel"):
        attention.attention_tflops("fa4", "forward", False, 128, 4096)
    with pytest.raises(ValueError, match="pass_"):
        attention.attention_tflops("fa2", "sideways", False, 128, 4096)
    with pytest.raises(ValueError, match="seq_len"):
        attention.attention_tflops("fa2", "forward", False, 128, 0)
    with pytest.raises(ValueError, match="attention_curve"):
        StepOptions(attention_curve="flash9")
    with pytest.raises(ValueError, match="kernel"):
        attention.kernel_curve("H100-SXM", "nope")


def test_stack_kernel_is_the_flash_version():
    assert attention.stack_kernel("2") == "fa2"
    assert attention.stack_kernel("3") == "fa3"
    assert attention.stack_kernel("none") is None


def test_transformer_engine_stacks_run_cudnn_and_sdpa_stacks_flashattention_2():
    # Transformer Engine's DotProductAttention prefers FusedAttention (cuDNN) on Hopper
    # (get_attention_backend, TransformerEngine @ a0b36d0): Megatron-Core's default layer spec
    # and NeMo AutoModel's te attention backend; PyTorch SDPA made cuDNN opt-in after 2.5
    # (pytorch/pytorch#138649), so its FlashAttention-2 backend runs
    from llmcost import stacks
    for name in ("megatron-core-2024", "megatron-core-2025", "megatron-core-2026",
                 "nemo-automodel-2025"):
        assert attention.stack_kernel(stacks.load_stack(name).flash_attention, name) == "cudnn"
    for name in ("pytorch-fsdp2-2024", "deepseek-hai-llm-2024"):
        assert attention.stack_kernel(stacks.load_stack(name).flash_attention, name) == "fa2"
    # no fused attention, no kernel, whatever the stack
    assert attention.stack_kernel("none", "megatron-core-2024") is None
    r = StepOptions(attention_curve=True, stack="pytorch-fsdp2-2024").resolve("H100-SXM")
    assert r.attention_kernel.kernel == "fa2"
    r = StepOptions(attention_curve=True, stack="megatron-core-2025").resolve("H100-SXM")
    assert r.attention_kernel.kernel == "cudnn"


def test_validation_table_names_a_bad_curve_setting():
    from llmcost.training import accuracy
    with pytest.raises(ValueError, match="attention_curve='fa9'.*'flash'"):
        accuracy.validation_table(attention_curve="fa9")
