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
    curve = attention.kernel_curve("H100-SXM", "fa2")
    rates = KernelRates(PEAK, PEAK, hbm, eff, attention=curve, cp_ring=True)
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
    # an all-gather CP (Llama 3 §3.3.2: K and V gathered, the local queries' attention in one
    # pass) merges nothing, with the curve as with the flat rate
    gather = layer_compute(model, c, LayerGeometry(cp=cp, **args),
                           KernelRates(PEAK, PEAK, hbm, eff, attention=curve),
                           flash_attention=True, dropout=False)
    assert gather["core_ew_f_t"] == flat["core_ew_f_t"]
    assert gather["core_ew_b_t"] == flat["core_ew_b_t"]
    assert gather["t_core_f"] == with_cp["t_core_f"]


def test_step_option_on_hopper_only():
    from llmcost import Cluster
    from llmcost.training.parallel import make_plan
    model = load_model("llama-3.1-8b")
    plan = make_plan(model, 8, 64, tp=1, pp=1, micro_batch_size=1, zero_stage=3, seq_len=8192)
    a100 = Cluster(load_accelerator("A100-80GB"), 8)
    assert step.step_time(model, a100, plan, 8192, attention_curve=True,
                          missing_features="price").step_time_s == \
        step.step_time(model, a100, plan, 8192, attention_curve=False,
                       missing_features="price").step_time_s
    h100 = Cluster(H100, 8)
    flat = step.step_time(model, h100, plan, 8192, stack="pytorch-fsdp2-2024",
                          attention_curve=False)
    fa2 = step.step_time(model, h100, plan, 8192, stack="pytorch-fsdp2-2024",
                         attention_curve=True)
    fa3 = step.step_time(model, h100, plan, 8192, attention_curve="fa3",
                         missing_features="price")
    # FA2's causal curve at 8k runs below the flat 35 %; FlashAttention-3 well above
    assert fa2.attention_s > flat.attention_s > fa3.attention_s
    assert fa2.matmul_s == flat.matmul_s
    # the default stack (Megatron-Core 2024) attends through Transformer Engine, which prefers
    # cuDNN's fused attention on Hopper (TransformerEngine get_attention_backend @ a0b36d0)
    price = {"missing_features": "price"}   # the plan's ZeRO-3: not Megatron-Core 2024's
    assert step.step_time(model, h100, plan, 8192, attention_curve=True, **price).attention_s \
        == step.step_time(model, h100, plan, 8192, attention_curve="cudnn", **price).attention_s


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
    # a stack whose kernel is its own, unmeasured (DeepSeek's HAI-LLM: a modified
    # FlashAttention-2, DeepSeek-V2 §3.1.3) keeps the flat fraction under "flash", stock
    # FlashAttention-2's curve under True
    assert StepOptions(stack="deepseek-hai-llm-2024").resolve("H100-SXM").attention_kernel \
        is None
    assert StepOptions(stack="deepseek-hai-llm-2024", attention_curve=True).resolve(
        "H100-SXM").attention_kernel.kernel == "fa2"
    assert StepOptions(stack="pytorch-fsdp2-2024").resolve(
        "H100-SXM").attention_kernel.kernel == "fa2"  # the default is "flash"
    model = load_model("llama-3.1-8b")
    plan = make_plan(model, 8, 64, tp=1, pp=1, micro_batch_size=1, zero_stage=1, seq_len=8192)
    h100 = Cluster(H100, 8)
    for stack, same_as in (("pytorch-fsdp2-2024", True), ("megatron-core-2024", False)):
        flash = step.step_time(model, h100, plan, 8192, stack=stack, attention_curve="flash",
                               missing_features="price")
        ref = step.step_time(model, h100, plan, 8192, stack=stack,
                             attention_curve=True if same_as else False, missing_features="price")
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


# --- The attention rate a published throughput implies (attention.attention_rate_floor) ---

#: MosaicML llm-foundry scripts/train/benchmarking/README.md (commit 495218376), table "A100 80GB
#: with 1600 Gbps node-node interconnect (RoCE)": MPT-125M, sequence 65,536, 8 GPUs, no
#: activation checkpointing, 20,368 tokens/s/GPU. Shape: d_model 768, 12 layers, 12 heads
#: (head dimension 64), vocabulary 50,368, tied embeddings (scripts/train/yamls/pretrain/
#: mpt-125m.yaml).
MPT125M = dict(layers=12, d=768, heads=12, vocab=50368, s=65536, tokens_per_s=20368.0)


def _mpt125m():
    from llmcost.training.step_validation import gpt_model
    m = MPT125M
    return gpt_model("mpt-125m", m["layers"], m["d"], m["heads"], m["vocab"], m["s"])


def test_attention_rate_floor_by_hand():
    m = MPT125M
    # by hand: matmul weights per layer 4·d² (QKV, output) + 8·d² (4h MLP), the tied LM head V·d
    layer_w = 12 * m["d"] ** 2
    other = 6.0 * (m["layers"] * layer_w + m["vocab"] * m["d"])       # training FLOPs per token
    assert other == 741_703_680.0
    # the attention core's causal forward: 2·L·a·(d_qk + d_v)·(s+1)/2, × 3.5 fwd + bwd (Dao 2023)
    core = 2.0 * m["layers"] * m["heads"] * 128 * (m["s"] + 1) / 2.0
    assert core == 1_207_977_984.0
    by_hand = 3.5 * core / (1.0 / m["tokens_per_s"] - other / 312e12)
    got = float(attention.attention_rate_floor(_mpt125m(), m["s"], m["tokens_per_s"], 312e12))
    assert got == pytest.approx(by_hand, rel=1e-9)
    assert got / 1e12 == pytest.approx(90.5, abs=0.05)
    # full recomputation: the attention forward once more, and the layers' other forward FLOPs
    # (2 per matmul weight; the LM head is not recomputed)
    by_hand_full = 4.5 * core / (1.0 / m["tokens_per_s"]
                                 - (other + 2.0 * m["layers"] * layer_w) / 312e12)
    assert float(attention.attention_rate_floor(_mpt125m(), m["s"], m["tokens_per_s"], 312e12,
                                                "full")) == pytest.approx(by_hand_full, rel=1e-9)


def test_the_foundry_a100_row_needs_more_than_the_derated_flashattention_1():
    """A record of what the published row implies, against Dao 2023 Fig. 4(c): MPT-125M at 64K on
    A100 ran its causal head-dimension-64 attention at >= 90.5 TFLOP/s, above FlashAttention-1's
    best measured burst rate (97 TFLOP/s at 16K) times the engine's sustained share
    (KERNEL_EFFICIENCY): no FlashAttention-1-class kernel derated by the constant reaches it,
    while FlashAttention-2 (171) would leave room to spare."""
    from llmcost.training.options import KERNEL_EFFICIENCY
    m = MPT125M
    floor = float(attention.attention_rate_floor(_mpt125m(), m["s"], m["tokens_per_s"],
                                                 312e12)) / 1e12
    fa1 = max(attention.A100_FWD_BWD_CAUSAL_HD64["fa1"].values())
    fa2 = max(attention.A100_FWD_BWD_CAUSAL_HD64["fa2"].values())
    assert (fa1, fa2) == (97.0, 171.0)
    assert KERNEL_EFFICIENCY * fa1 < floor < fa1 < fa2
    # the engine's flat FlashAttention-1 fraction on A100 (data/flash_attention.csv), sustained
    flat = 0.325 * 312.0 * KERNEL_EFFICIENCY
    assert flat < floor


def test_attention_rate_floor_edges():
    model = _mpt125m()
    # other FLOPs alone longer than the published time per token: no attention rate suffices
    assert np.isinf(attention.attention_rate_floor(model, 65536, 1e9, 312e12))
    with pytest.raises(ValueError, match="tokens_per_s"):
        attention.attention_rate_floor(model, 65536, 0.0, 312e12)
    with pytest.raises(ValueError, match="recompute"):
        attention.attention_rate_floor(model, 65536, 20368.0, 312e12, "some")


def test_forward_backward_rate_reproduces_the_bars_combined():
    """Shah et al. 2024 Figs. 5-6 at 16K, head dimension 128, no mask: forward and backward bars
    combined on the 3.5 × forward basis, 3.5 / (1/R_f + 2.5/R_b), within the curves' 5 %."""
    for kernel, r_f, r_b in (("fa2", 370.0, 322.0), ("cudnn", 595.0, 516.0),
                             ("fa3", 648.0, 561.0)):
        bars = 3.5 / (1.0 / r_f + 2.5 / r_b)
        got = float(attention.fwd_bwd_tflops(kernel, False, 128, 16384))
        assert got == pytest.approx(bars, rel=0.05)


def test_curves_reproduce_nvidias_measurement_to_64k_within_10_percent():
    # An independent source, nothing fitted to it: NVIDIA/cudnn-frontend
    # benchmark/benchmark_results.csv @ b740542 (cuDNN 9.1.0 and PyTorch SDPA's FlashAttention-2
    # backend, BF16, head dim 128, hidden 2048, 4k-64k tokens, with and without a causal mask).
    # Stated tolerance 10 % per point (the curves were fitted to another paper's bars, to 16k).
    r = attention.check_curves()
    assert len(r) == 40
    assert set(r["kernel"]) == {"fa2", "cudnn"} and r["seq_len"].max() == 65536
    assert r["error"].abs().max() < 0.10
    assert r["error"].abs().mean() < 0.05
    # the causal backward pass, a stated stand-in (unmasked backward x the forward's causal /
    # unmasked ratio), holds at the lengths of the long-context rows (32k, 64k per rank)
    long = r[r["causal"] & (r["pass"] == "backward") & (r["seq_len"] >= 32768)]
    assert len(long) == 4 and long["error"].abs().max() < 0.07


def test_the_checks_file_counts_flops_as_the_module_does():
    # the source's own forward + backward column (cuDNN, causal, 32k: 519.64 TFLOP/s) is the
    # module's 3.5 / (1/R_f + 2.5/R_b) of its forward 577.35 and backward 499.66 columns
    d = attention.check_curves().set_index(["kernel", "pass", "causal", "seq_len"])["measured"]
    f, b = d[("cudnn", "forward", True, 32768)], d[("cudnn", "backward", True, 32768)]
    assert 3.5 / (1.0 / f + 2.5 / b) == pytest.approx(519.64, rel=1e-3)
    # and the curve's combined rate there is within 5 % of it
    assert float(attention.fwd_bwd_tflops("cudnn", True, 128, 32768)) == pytest.approx(
        519.64, rel=0.05)


def test_the_foundry_a100_head_dim_128_rows_need_more_than_flashattention_1_measured():
    """Dao 2023, FlashAttention-2, arXiv:2307.08691, Fig. 4(d) (A100, causal, head dim 128):
    FlashAttention-1's forward + backward bars run 55 to 83 TFLOP/s (512 to 16k), FlashAttention-2's
    99 to 189. MPT-1B at 64K on 8 A100 (llm-foundry's benchmark table, the validation row
    foundry-a100-mpt-1b-s65536-8gpu-bf16) implies an attention rate (a floor: every other FLOP at
    the 312 TFLOP/s peak) above FlashAttention-1's best bar even unreduced."""
    fa1, fa2 = (attention.A100_FWD_BWD_CAUSAL_HD128[k] for k in ("fa1", "fa2"))
    assert (fa1[512], fa1[16384], fa2[512], fa2[16384]) == (55.0, 83.0, 99.0, 189.0)
    assert all(np.diff(list(fa1.values())) > 0) and all(np.diff(list(fa2.values())) > 0)
    floor = _published_attention_floor("foundry-a100-mpt-1b-s65536-8gpu-bf16", 312e12)
    assert max(fa1.values()) < floor < min(fa2[8192], fa2[16384])


def test_the_foundry_h100_rows_need_more_than_flashattention_1_measured():
    """Dao 2023, arXiv:2307.08691, Fig. 7(d) (H100 SXM5, causal, head dim 128): FlashAttention-1's
    forward + backward bars 98 to 137 TFLOP/s. MPT-7B at 64K on 8 H100 (llm-foundry's table,
    validation row foundry-h100-mpt-7b-s65536-8gpu-bf16) implies an attention rate above 137
    TFLOP/s even with every other FLOP at the 989.4 TFLOP/s dense peak."""
    fa1 = attention.H100_FWD_BWD_CAUSAL_HD128["fa1"]
    assert (fa1[512], fa1[16384]) == (98.0, 137.0)
    assert attention.H100_FWD_BWD_CAUSAL_HD128["fa2"][16384] == 328.0
    floor = _published_attention_floor("foundry-h100-mpt-7b-s65536-8gpu-bf16", PEAK)
    assert max(fa1.values()) < floor < attention.H100_FWD_BWD_CAUSAL_HD128["fa2"][16384]


def _published_attention_floor(run: str, peak: float) -> float:
    """The attention rate (TFLOP/s) validation row ``run`` implies with every other FLOP at
    ``peak`` (``attention.attention_rate_floor``; tokens/s from its published MFU on the
    full-mask count), for a head dimension of 128."""
    from llmcost.core.catalog import load_published_runs
    from llmcost.training import accuracy, step_validation
    v = accuracy.validation_table().set_index("run_id").loc[run]
    c = step_validation.validation_configs().set_index("run_id", drop=False).loc[run]
    pr = load_published_runs().set_index("run_id").loc[run]
    s = int(v["seq_len"])
    model = step_validation.row_model(c, pr, s)
    assert model.d_qk == 128
    tokens = v["reported_mfu"] * peak / float(model.flops_per_token(s, causal=False))
    return float(attention.attention_rate_floor(model, s, tokens, peak, "full")) / 1e12


def _ring_pairs(cp: int, c: int) -> tuple:
    """The load-balanced causal ring enumerated pair by pair, as PyTorch's
    ``_templated_ring_attention`` (pytorch/pytorch@0123248a4
    ``torch/distributed/tensor/experimental/_attention.py``) and Transformer Engine v1.4's
    ``AttnFuncWithCP`` run it: the sequence in 2·cp chunks of c tokens, rank r holding chunks
    r and 2cp−1−r; at step i rank r attends with the keys of rank (r − i) mod cp: step 0
    causally over its own two chunks, later steps without a mask, over the first half of the
    keys (i <= r) or with the second half of the queries (i > r). Returns (every rank's causal
    pairs, every rank's pairs in all, each global (query, key) pair's count)."""
    def tokens(rank):
        return [*range(rank * c, (rank + 1) * c),
                *range((2 * cp - 1 - rank) * c, (2 * cp - rank) * c)]
    covered: dict = {}
    causal, total = [], []
    for r in range(cp):
        q = tokens(r)
        n_causal = n_all = 0
        for i in range(cp):
            k = tokens((r - i) % cp)
            if i == 0:
                pairs = [(a, b) for a in q for b in k if b <= a]
            elif i <= r:
                pairs = [(a, b) for a in q for b in k[:c]]
            else:
                pairs = [(a, b) for a in q[c:] for b in k]
            for pair in pairs:
                covered[pair] = covered.get(pair, 0) + 1
            n_all += len(pairs)
            n_causal += len(pairs) if i == 0 else 0
        causal.append(n_causal)
        total.append(n_all)
    return causal, total, covered


@pytest.mark.parametrize("cp", [2, 3, 4, 8])
def test_ring_call_shares_from_the_rings_pairs(cp):
    """Enumerating the ring's (query, key) pairs (``_ring_pairs``): every pair of the global
    causal triangle is computed once and no other; each rank does the same work; the causal
    call's share is (2c² + c) / (2c²·cp + c) exactly (its diagonal's c pairs), which
    ``ring_call_shares``' 1/cp approaches within 1/(2c) (c = 5 here; at c = 16,384 under
    3·10⁻⁵)."""
    c = 5
    causal, total, covered = _ring_pairs(cp, c)
    s = 2 * cp * c
    assert set(covered) == {(a, b) for a in range(s) for b in range(a + 1)}
    assert set(covered.values()) == {1}
    assert len(set(total)) == 1 and len(set(causal)) == 1
    exact = causal[0] / total[0]
    assert exact == pytest.approx((2 * c * c + c) / (2 * c * c * cp + c), rel=1e-12)
    share, rest = attention.ring_call_shares(cp)
    assert share + rest == pytest.approx(1.0, rel=1e-12)
    assert abs(share - exact) <= 1 / (2 * c)
    assert share == pytest.approx(1 / cp, rel=1e-12)


def test_ring_call_shares_edges():
    assert attention.ring_call_shares(1) == (1.0, 0.0)
    with pytest.raises(ValueError, match="cp"):
        attention.ring_call_shares(0.5)


def test_ring_time_split_recovers_a_known_split():
    """Times written by hand from a causal call at 1.0 and non-causal calls at 0.8 per unit
    (t = 1.0/cp + 0.8·(cp − 1)/cp: CP 2 → 0.9, CP 4 → 0.85, CP 8 → 0.825) give back (1.0, 0.8);
    times that one rate explains give equal parts."""
    t_c, t_n = attention.ring_time_split([0.9, 0.85, 0.825], [2, 4, 8])
    assert (t_c, t_n) == (pytest.approx(1.0), pytest.approx(0.8))
    t_c, t_n = attention.ring_time_split([1.2, 1.2], [2, 16])
    assert (t_c, t_n) == (pytest.approx(1.2), pytest.approx(1.2))


def test_ring_time_split_bad_input_names_the_field():
    with pytest.raises(ValueError, match="distinct"):
        attention.ring_time_split([1.0, 1.1], [4, 4])
    with pytest.raises(ValueError, match="same length"):
        attention.ring_time_split([1.0, 1.1], [2, 4, 8])
    with pytest.raises(ValueError, match="attention_s"):
        attention.ring_time_split([1.0, -1.0], [2, 4])


def test_a_calibrated_efficiency_scales_the_measured_curve():
    """A pilot's calibration multiplies each kernel class's fraction by its correction
    (calibrate.scaled_efficiency); where a measured curve replaces the flat attention fraction
    the curve follows the same factor (StepOptions._attention_scale): the stack's catalogue
    efficiency with attention_fraction × 0.5 halves FlashAttention-2's curve at every length,
    by hand fraction_scaled / fraction = 0.5, and the catalogue efficiency itself leaves it as
    it is. A trial's 128k-token FSDP2 scenario (mostly attention) failed notebook 04b: its
    illustrative pilot could not be explained by any kernel rate while the curve ignored the
    correction."""
    from llmcost.core import stacks
    st = stacks.load_stack("pytorch-fsdp2-2024")
    base = stacks.catalogue_efficiency(st, "H100-SXM")
    plain = StepOptions(stack="pytorch-fsdp2-2024").resolve("H100-SXM").attention_kernel
    same = StepOptions(stack="pytorch-fsdp2-2024", efficiency=base).resolve(
        "H100-SXM").attention_kernel
    half = StepOptions(stack="pytorch-fsdp2-2024", efficiency=base.replace(
        attention_fraction=base.attention_fraction * 0.5)).resolve("H100-SXM").attention_kernel
    for s in (4096, 32768, 131072):
        f0, f1, f2 = (k.fractions(s, 128) for k in (plain, same, half))
        assert f1 == pytest.approx(f0, rel=1e-12)
        assert np.array(f2) / np.array(f0) == pytest.approx([0.5, 0.5], rel=1e-12)


def test_a_long_context_fsdp2_scenarios_illustrative_pilot_is_calibrated():
    # the trial's scenario: Llama 3.1 8B at 131,072 tokens on 64 H100 under FSDP2, no pilot
    # of its own: the illustrative pilot (a published run's error carried to the scenario's
    # plan on 8 GPUs) is now explained by a kernel rate below the catalogue's, not refused
    from llmcost.training import calibrate as cal
    p = {"model": "llama-3.1-8b", "accelerator": "H100-SXM", "n_gpus": 64,
         "train_tokens": 2.0e10, "seq_len": 131072, "mfu": 0.35,
         "global_batch_tokens": 4194304, "stack": "pytorch-fsdp2-2024"}
    s = cal.pilot_study(p, price_usd_per_gpu_hour=2.0)
    c, x = s.calibration, s.extrapolation
    assert s.illustrative and c.compute_factor < 1.0 and not c.saturated
    assert x.mfu_low <= x.mfu <= x.mfu_high


def test_a_scaled_curve_stops_at_the_datasheet_peak():
    # a pilot's correction scales the measured curves (StepOptions._attention_scale); no scale
    # takes a BF16 kernel past the dense BF16 peak, nor an MXFP8 one past the FP8 peak (2x the
    # BF16 one on Blackwell: data/accelerators.csv B200 4.5e15 / 2.25e15), as the flat
    # fractions are capped at 1 (calibrate.scaled_efficiency)
    h100 = attention.kernel_curve("H100-SXM", "fa2", 10.0)
    assert max(h100.fractions(131072, 128)) == 1.0
    assert max(attention.kernel_curve("H100-SXM", "fa2", 0.5).fractions(131072, 128)) < 1.0
    b200 = load_accelerator("B200")
    assert b200.peak_flops_per_s("fp8") / b200.peak_flops_per_s("bf16") == \
        attention.MXFP8_OVER_BF16
    for dtype, top in (("bf16", 1.0), ("mxfp8", attention.MXFP8_OVER_BF16)):
        big = attention.blackwell_curve("B200", 10.0, dtype).fractions(8192, 128)
        assert max(big) == top, dtype
