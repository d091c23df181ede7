"""FP8 as run: which GEMMs run in FP8 (StepOptions.fp8_as_run).

Source: DeepSeek-AI 2024, DeepSeek-V3 Technical Report, arXiv:2412.19437 §3.3.1: "we maintain
the original precision (e.g., BF16 or FP32) for the following components: the embedding module,
the output head, MoE gating modules, normalization operators, and attention operators". The
checks below derive by hand what keeping the output head (LM head) and the gate (router) in BF16
adds to the GEMM time, at the compute roofline.
"""

import pytest

from llmcost import Cluster, load_accelerator, load_efficiency, load_model
from llmcost.core.shapes import model_shapes
from llmcost.training import gemm, step
from llmcost.training.options import StepOptions
from llmcost.training.parallel import make_plan
from llmcost.training.step import KernelRates, LayerGeometry, layer_compute

H100 = load_accelerator("H100-SXM")
BF16, FP8 = H100.peak_flops_per_s("bf16"), H100.peak_flops_per_s("fp8")   # 989.4, 1978.9 TFLOP/s


def test_lm_head_runs_at_the_bf16_rate():
    model = load_model("llama-3.1-8b")
    c = model_shapes(model)
    plan = make_plan(model, 8, 64, tp=1, pp=1, micro_batch_size=1, zero_stage=3, seq_len=4096)
    cl = Cluster(H100, 8)
    flat = {"gemm_shape": False, "attention_curve": False}
    fp8 = step.step_time(model, cl, plan, 4096, dtype="fp8", fp8_as_run=False, **flat,
                         missing_features="price")
    as_run = step.step_time(model, cl, plan, 4096, dtype="fp8", fp8_as_run=True, **flat,
                            missing_features="price")
    # LM head per micro-batch: (x × h)·(h × V), forward + 2 × backward, x = 4096 tokens, 8
    # micro-batches; sustained matmul rate = peak × matmul_fraction × KERNEL_EFFICIENCY
    f = load_efficiency("H100-SXM").matmul_fraction * step.KERNEL_EFFICIENCY
    head = 2 * 4096 * c.h * c.V / f
    # the FP8 head's input- and weight-gradient GEMMs run without fast accumulation on Hopper
    # (gemm.FP8_SLOW_ACCUMULATION, StepOptions.fp8_split_accumulator): (1 + 2f) x forward
    f_b = gemm.fp8_backward_slowdown("H100-SXM")
    hand = 8 * (3 * head / BF16 - (1 + 2 * f_b) * head / FP8)
    assert as_run.matmul_s - fp8.matmul_s == pytest.approx(hand, rel=1e-6)
    # attention already ran at the 16-bit peak: unchanged
    assert as_run.attention_s == fp8.attention_s


def test_bf16_steps_are_unchanged():
    model = load_model("llama-3.1-8b")
    plan = make_plan(model, 8, 64, tp=1, pp=1, micro_batch_size=1, zero_stage=3, seq_len=4096)
    cl = Cluster(H100, 8)
    assert (step.step_time(model, cl, plan, 4096, fp8_as_run=True,
                           missing_features="price").step_time_s
            == step.step_time(model, cl, plan, 4096, fp8_as_run=False,
                              missing_features="price").step_time_s)


def test_moe_router_runs_at_the_bf16_rate():
    model = load_model("mixtral-8x7b")
    c = model_shapes(model)
    x = 4096.0
    g = LayerGeometry(s=4096.0, x=x, xs=x, tp=1.0, ep=1.0, cp=1.0, mbs=1, kvf=1.0)
    eff = load_efficiency("H100-SXM")
    # the router (x × h)·(h × E) is a thin GEMM, HBM-bound on a real H100 (E = 8 FLOPs per
    # byte read): price it on a device with 100× the HBM bandwidth so its compute shows
    hbm_raw = 3.35e14
    fp8 = layer_compute(model, c, g, KernelRates(FP8, BF16, hbm_raw, eff),
                        flash_attention=True, dropout=False)
    as_run = layer_compute(model, c, g, KernelRates(FP8, BF16, hbm_raw, eff, edge_peak=BF16),
                           flash_attention=True, dropout=False)
    flops = 2 * x * c.h * c.E
    bytes_ = 2 * (x * c.h + c.h * c.E + x * c.E)
    hbm = hbm_raw * eff.hbm_fraction

    def t(peak):
        return max(flops / (peak * eff.matmul_fraction), bytes_ / hbm)

    assert t(BF16) > t(FP8) * 1.5          # compute-bound here: the check can fail
    assert float(as_run["gemm_f_moe"] - fp8["gemm_f_moe"]) == pytest.approx(
        t(BF16) - t(FP8), rel=1e-9)
    assert float(as_run["gemm_f_dense"]) == float(fp8["gemm_f_dense"])


def test_bad_input():
    with pytest.raises(ValueError, match="fp8_as_run"):
        StepOptions(fp8_as_run="yes")


#: Tokens per micro-batch of the hand-counted layer below.
X = 8192.0


def _llama8b_layer(**rate_options):
    """A Llama 3.1 8B layer of ``X`` tokens at TP 1 on an H100 SXM with FP8 GEMMs (BF16
    elsewhere): its shapes, its ``layer_compute`` parts with ``rate_options`` (``KernelRates``'
    keywords) and the achievable HBM bandwidth the casts run at."""
    model = load_model("llama-3.1-8b")
    c = model_shapes(model)
    g = LayerGeometry(s=X, x=X, xs=X, tp=1.0, ep=1.0, cp=1.0, mbs=1, kvf=1.0)
    eff = load_efficiency("H100-SXM")
    parts = layer_compute(model, c, g, KernelRates(FP8, BF16, H100.hbm_bytes_per_s, eff,
                                                   **rate_options),
                          flash_attention=True, dropout=False)
    return c, parts, H100.hbm_bytes_per_s * eff.hbm_fraction


def test_fp8_casts_by_hand():
    """The quantize / cast / transpose passes of a Llama 3.1 8B layer's four FP8 GEMMs, counted
    by hand (llmcost.training.elementwise): forward casts the input (x × k) and the weight
    (k × n), backward the output gradient (x × n), each 6 B per element under current scaling
    (read 2, write rowwise + columnwise 1 + 1, amax read 2)."""
    c, base, bw = _llama8b_layer()
    _, cast, _ = _llama8b_layer(fp8_casts="current")
    h, f, x = c.h, c.f, X
    qkv = (c.a * c.dqk + 2 * c.g * c.dh)             # 4096 + 2·8·128 = 6144
    gemms = [(h, qkv), (c.a * c.dv, h), (h, 2 * f), (f, h)]          # (k, n)
    fwd = 6 * sum(x * k + k * n for k, n in gemms)
    bwd = 6 * sum(x * n for _, n in gemms)
    assert cast["ew_f_t"] - base["ew_f_t"] == pytest.approx(fwd / bw, rel=1e-9)
    assert cast["ew_b_t"] - base["ew_b_t"] == pytest.approx(bwd / bw, rel=1e-9)
    assert cast["gemm_f_dense"] == base["gemm_f_dense"]


def test_fp8_recipes_order_and_step_effect():
    from llmcost.training import elementwise
    r = elementwise.FP8_RECIPES
    assert r["delayed"] < r["mxfp8"] < r["current"]
    model = load_model("llama-3.1-8b")
    plan = make_plan(model, 8, 64, tp=1, pp=1, micro_batch_size=1, zero_stage=3, seq_len=4096)
    cl = Cluster(H100, 8)
    off = step.step_time(model, cl, plan, 4096, dtype="fp8", fp8_as_run=False,
                         missing_features="price")
    cur = step.step_time(model, cl, plan, 4096, dtype="fp8", fp8_as_run=True,
                         missing_features="price")
    dly = step.step_time(model, cl, plan, 4096, dtype="fp8", fp8_as_run=True,
                         fp8_recipe="delayed", missing_features="price")
    assert cur.memory_bound_s > dly.memory_bound_s > off.memory_bound_s
    with pytest.raises(ValueError, match="fp8_recipe"):
        StepOptions(fp8_recipe="nvfp4")
    with pytest.raises(ValueError, match="recipe"):
        elementwise.fp8_cast_bytes([(1, 1, 1)], "e8m0")


def test_weight_casts_once_per_step_on_megatron_core():
    """Transformer Engine caches the FP8 weights across the micro-batches of a step
    (``is_first_microbatch``: "during FP8 training, it allows caching of the FP8 versions of the
    weights", TransformerEngine module/linear.py) and Megatron-Core passes it: the weight cast
    is paid once per step. By hand, a Llama 3.1 8B layer with 4 micro-batches per step: the
    forward cast bytes fall by 3/4 of the weights' 6 B per element."""
    from llmcost.training import elementwise
    c, every, bw = _llama8b_layer(fp8_casts="current")
    _, cached, _ = _llama8b_layer(fp8_casts="current", fp8_weight_share=0.25)
    qkv = (c.a * c.dqk + 2 * c.g * c.dh)
    weights = c.h * qkv + c.a * c.dv * c.h + c.h * 2 * c.f + c.f * c.h
    assert every["ew_f_t"] - cached["ew_f_t"] == pytest.approx(6 * 0.75 * weights / bw, rel=1e-9)
    assert every["ew_b_t"] == cached["ew_b_t"]
    assert elementwise.fp8_cast_bytes([(10, 20, 30)], "delayed", 0.5)[0] == 4 * (200 + 300)
    assert StepOptions(stack="megatron-core-2024").resolve("H100-SXM").fp8_weight_cache
    assert not StepOptions(stack="pytorch-fsdp2-2024").resolve("H100-SXM").fp8_weight_cache


def test_blockwise_recipe_bytes_by_hand():
    # DeepSeek-V3 §3.3.2: 1x128 activation tiles / 128x128 weight blocks, scales computed in the
    # cast: read 2 B, write two 1-byte copies, one fp32 scale per 128 elements on each copy
    from llmcost.training import elementwise
    assert elementwise.FP8_RECIPES["blockwise"] == pytest.approx(2 + 1 + 1 + 2 * 4 / 128)


def test_validation_rows_take_their_sets_fp8_recipe():
    # the recipe each FP8 source ran: Megatron-Bridge's FP8-CS / FP8-MX column, torchao's
    # tensorwise (current) scaling, Transformer Engine 1.x's delayed scaling (llm-foundry 2024,
    # NeMo 24.03), DeepSeek-V3's blocks
    from llmcost.training import step_validation as sv
    cfg = sv.validation_configs().set_index("run_id", drop=False)
    want = {"mb2511-h100-llama-3.1-8b-fp8cs": "current", "mb2511-b200-deepseek-v3-fp8mx": "mxfp8",
            "mb2608-gb200-qwen3-30b-a3b-mxfp8": "mxfp8",
            "torchtitan-h100-8b-8gpu-1-fsdp-compile-float8": "current",
            "foundry-h100-mpt-1b-s512-8gpu-fp8": "delayed",
            "nemo2403-h100-llama2-7b-32k-cp2": "delayed", "deepseek-v3-pretrain": "blockwise"}
    for run, recipe in want.items():
        assert sv.row_fp8_recipe(cfg.loc[run]) == recipe, run
        assert sv.row_options(cfg.loc[run]).fp8_recipe == recipe, run


def test_blackwell_per_tensor_casts_write_one_copy():
    """Blackwell reads FP8 operands column-wise natively ("Blackwell: supports columnwise access
    natively, so no transpose is needed", NVIDIA Transformer Engine docs, Low precision training,
    Performance considerations): a per-tensor cast writes one 1-byte copy, by hand 5 B per
    element under current scaling (read 2, amax read 2, write 1) and 3 B under delayed; MXFP8's
    block scales run along one dimension, so both copies stay (4 + 2/32 B)."""
    from llmcost.training import elementwise
    assert elementwise.cast_bytes_per_element("current", transpose=False) == 5.0
    assert elementwise.cast_bytes_per_element("delayed", transpose=False) == 3.0
    assert elementwise.cast_bytes_per_element("mxfp8", transpose=False) == 4.0 + 2.0 / 32.0
    assert elementwise.cast_bytes_per_element("current") == 6.0
    assert StepOptions(fp8_as_run=True, dtype="fp8").resolve("B200").fp8_transpose is False
    assert StepOptions(fp8_as_run=True, dtype="fp8").resolve("H100-SXM").fp8_transpose is True
    fwd, bwd = elementwise.fp8_cast_bytes([(8192, 4096, 6144)], "current", transpose=False)
    assert (fwd, bwd) == (5.0 * (8192 * 4096 + 4096 * 6144), 5.0 * 8192 * 6144)
    with pytest.raises(ValueError, match="recipe"):
        elementwise.cast_bytes_per_element("e8m0")


def test_transformer_engine_layer_casts_by_hand():
    """Transformer Engine's casts in Megatron-Core's layers (NVIDIA/TransformerEngine @ 71bbefbf1,
    2.14.0, Megatron-Bridge v0.4.0's pin): under sequence parallelism the norm-fed input
    (``_LayerNormLinear.forward``) and the row-parallel output gradient
    (``grad_output_preprocess``) are cast on the rank's shard, row-wise only (per-tensor FP8 is
    gathered row-wise: ``supports_only_rowwise_all_gather``), and the gathered tensor transposed
    on Hopper (``_all_gather_fp8`` / ``update_usage``: read 1 + write 1 B); the norm computes
    current scaling's amax (``normalization.cpp`` ``FUSED_NORM_AMAX_FP8``) and writes delayed
    scaling's FP8 itself (``FULLY_FUSED``; without sequence parallelism its transpose is
    ``nvte_transpose``, 2 B). By hand: x = 8192 tokens, TP 4 (xs = 2048), QKV k = 8192,
    n = 2560, FC2 k = 7168, n = 8192, weights cached (share 0)."""
    from llmcost.training import elementwise as ew
    x, xs = 8192.0, 2048.0
    qkv, fc2 = (8192, 2560), (7168, 8192)
    # current scaling, Hopper: QKV input 3 B per shard element (read 2, write 1; amax in the
    # norm) + 2 B per gathered element; FC2 input read 2 (amax) + 2 + write 1 + 1 = 6 B; QKV
    # output gradient 6 B; FC2 output gradient 5 B per shard element + 2 B per gathered one
    fwd, bwd = ew.te_layer_cast_bytes(x, xs, [qkv], [fc2], "current", weight_share=0.0)
    assert fwd == pytest.approx(3 * xs * 8192 + 6 * x * 7168, rel=1e-12)
    assert bwd == pytest.approx(2 * x * 8192 + 6 * x * 2560 + 5 * xs * 8192 + 2 * x * 8192,
                                rel=1e-12)
    # delayed scaling, no sequence parallelism (xs = x): the norm writes FP8, its transpose 2 B;
    # the other casts 4 B (read 2, write 1 + 1)
    fwd, bwd = ew.te_layer_cast_bytes(x, x, [qkv], [fc2], "delayed", weight_share=0.0)
    assert fwd == pytest.approx(2 * x * 8192 + 4 * x * 7168, rel=1e-12)
    assert bwd == pytest.approx(4 * x * 2560 + 4 * x * 8192, rel=1e-12)
    # Blackwell (no transpose), current scaling with sequence parallelism: shard casts only
    fwd, bwd = ew.te_layer_cast_bytes(x, xs, [qkv], [fc2], "current", weight_share=0.0,
                                      transpose=False)
    assert fwd == pytest.approx(3 * xs * 8192 + 5 * x * 7168, rel=1e-12)
    assert bwd == pytest.approx(5 * x * 2560 + 5 * xs * 8192, rel=1e-12)
    # MXFP8: both copies quantized on the shard before the gather (_all_gather_mxfp8)
    m = 4.0 + 2.0 / 32.0
    fwd, bwd = ew.te_layer_cast_bytes(x, xs, [qkv], [fc2], "mxfp8", weight_share=0.0,
                                      transpose=False)
    assert fwd == pytest.approx(m * (xs * 8192 + x * 7168), rel=1e-12)
    assert bwd == pytest.approx(m * (x * 2560 + xs * 8192), rel=1e-12)
    # weights: the generic count, weight_share x bpe x k x n
    f1, _ = ew.te_layer_cast_bytes(x, xs, [qkv], [fc2], "current", weight_share=1.0)
    assert f1 == pytest.approx(
        3 * xs * 8192 + 6 * x * 7168 + 6 * (8192 * 2560 + 7168 * 8192), rel=1e-12)
    with pytest.raises(ValueError, match="recipe"):
        ew.te_cast_parts("e8m0", True, norm_fed=True, gathered=True)
    assert StepOptions().resolve("H100-SXM").stack.name in ew.TE_LINEAR_STACKS
