"""GEMM efficiency by shape (llmcost.training.gemm) against the kernel table it is fitted to.

Source: openxla/xla ``xla/service/gpu/model/default_matmul_perf_table.txtpb`` at commit
ad6eaee1b2f13931e3ceb26dc50bf3ac6b425496 (median CUPTI kernel times, H100 SXM ``sm_90`` and B200
``sm_100_B200``), copied into data/gemm_kernel_benchmarks.csv. Stated tolerance: the curve
reproduces every usable series within 10 % mean |error| over all 375 shapes, and within 8 % mean
and 16 % max on the shapes of >= 2^35 FLOPs (the size of training GEMMs).
"""

import numpy as np
import pytest

from llmcost import Cluster, load_accelerator, load_efficiency, load_model
from llmcost.core.shapes import model_shapes
from llmcost.training import gemm, options, step, step_validation
from llmcost.training.options import StepOptions
from llmcost.training.parallel import make_plan
from llmcost.training.step import KernelRates, LayerGeometry, layer_compute

SERIES = [("hopper", "bf16"), ("blackwell", "bf16"), ("blackwell", "fp8")]


def test_csv_holds_the_source_numbers():
    # three values read from the source file (flops/s), b = 1
    df = gemm.load_gemm_benchmarks(usable_only=False).set_index(
        ["accelerator", "dtype", "b", "m", "n", "k"])
    assert df.loc[("H100-SXM", "bf16", 1, 4096, 4096, 4096), "tflops"] == pytest.approx(
        780.194, abs=1e-3)
    assert df.loc[("H100-SXM", "bf16", 1, 256, 256, 256), "tflops"] == pytest.approx(
        6.7216, abs=1e-3)   # 6721641025641 flops/s
    assert df.loc[("B200", "fp8", 1, 4096, 4096, 4096), "tflops"] == pytest.approx(
        2764.982, abs=1e-3)   # 2764981863158106 flops/s
    assert len(df) == 4 * 375


def test_h100_fp8_series_is_excluded_because_it_exceeds_the_dense_peak():
    raw = gemm.load_gemm_benchmarks(usable_only=False)
    h = raw[(raw.accelerator == "H100-SXM") & (raw.dtype == "fp8")]
    peak_tflops = load_accelerator("H100-SXM").peak_flops_per_s("fp8") / 1e12   # 1978.9 dense
    assert (h.tflops > peak_tflops).sum() > 0
    used = gemm.load_gemm_benchmarks()
    assert used[(used.accelerator == "H100-SXM") & (used.dtype == "fp8")].empty
    assert not gemm.GEMM_SHAPE[("hopper", "fp8")].measured


@pytest.mark.parametrize("family,dtype", SERIES)
def test_curve_reproduces_the_kernel_table(family, dtype):
    r = gemm.reproduce(family, dtype)
    assert len(r) == 375
    big = r.flops >= 2.0 ** 35
    assert r.error.abs().mean() <= 0.10
    assert r.error[big].abs().mean() <= 0.08
    assert r.error[big].abs().max() <= 0.16
    # not one-sided: the curve is neither always above nor always below the table
    assert (r.error > 0).any() and (r.error < 0).any()


@pytest.mark.parametrize("family,dtype", SERIES)
def test_constants_are_the_fit(family, dtype):
    t0, k0 = gemm.fit_gemm_shape(family, dtype)
    s = gemm.GEMM_SHAPE[(family, dtype)]
    assert s.measured
    assert t0 == pytest.approx(s.t0_s, rel=1e-9)
    assert k0 == pytest.approx(s.k0, rel=1e-9)


def test_large_gemm_tends_to_the_measured_ceiling_once():
    # the curve's large-size limit is the catalogue's matmul_fraction (stas00 MAMF, 80.1 % on
    # H100 SXM): the ceiling is not counted a second time
    f = gemm.gemm_fraction(65536, 65536, 65536, "H100-SXM")
    ceiling = load_efficiency("H100-SXM").matmul_fraction
    assert f == pytest.approx(ceiling * 65536 / (65536 + 70), rel=1e-3)
    # small and skinny runs far below it: 256^3 measured 6.72 TFLOPS = 0.68 % of the dense peak;
    # the curve gives 0.54 % there (-20.8 %, inside the module docstring's all-shape max of 52 %)
    small = gemm.gemm_fraction(256, 256, 256, "H100-SXM")
    assert small == pytest.approx(6.7216e12 / 989.4e12, rel=0.25)
    assert small < 0.05 * ceiling


def test_no_table_keeps_the_flat_fraction():
    assert gemm.gemm_shape("A100-80GB") is None
    assert float(gemm.gemm_fraction(4096, 4096, 4096, "A100-80GB")) == pytest.approx(
        load_efficiency("A100-80GB").matmul_fraction)


def test_hand_derived_time():
    # t = t0 + 2mnk / (f · peak) · (1 + k0/k), H100 SXM BF16: 989.4 TFLOP/s, f = 0.801
    t = gemm.gemm_time_s(8192, 4096, 2048, 989.4e12, 0.801, gemm.GEMM_SHAPE[("hopper", "bf16")])
    hand = 6.25e-6 + 2 * 8192 * 4096 * 2048 / (0.801 * 989.4e12) * (1 + 70 / 2048)
    assert float(t) == pytest.approx(hand, rel=1e-12)


def test_layer_compute_prices_the_ffn_gemm_by_its_shape():
    model = load_model("llama-3.1-8b")
    c = model_shapes(model)
    x = 4096.0
    g = LayerGeometry(s=4096.0, x=x, xs=x, tp=1.0, ep=1.0, cp=1.0, mbs=1, kvf=1.0)
    eff = load_efficiency("H100-SXM")
    shape = gemm.GEMM_SHAPE[("hopper", "bf16")]
    rates = KernelRates(peak=989.4e12, peak16=989.4e12, hbm=3.35e12, keff=eff, gemm_shape=shape)
    flat = layer_compute(model, c, g, KernelRates(989.4e12, 989.4e12, 3.35e12, eff),
                         flash_attention=True, dropout=False)
    shaped = layer_compute(model, c, g, rates, flash_attention=True, dropout=False)
    # FFN up+gate GEMM: (x × h) · (h × 2f), inner dimension h
    fl = 2 * x * c.h * 2 * c.f
    assert float(flat["t_fc1"]) == pytest.approx(fl / (989.4e12 * eff.matmul_fraction))
    assert float(shaped["t_fc1"]) == pytest.approx(
        shape.t0_s + fl / (989.4e12 * eff.matmul_fraction) * (1 + shape.k0 / c.h))


def test_step_option_changes_hopper_and_not_ampere():
    model = load_model("llama-3.1-8b")
    for acc, moves in (("A100-80GB", False), ("H100-SXM", True)):
        cl = Cluster(load_accelerator(acc), 8)
        plan = make_plan(model, 8, 64, tp=1, pp=1, micro_batch_size=1, zero_stage=3,
                              seq_len=4096)
        off = step.step_time(model, cl, plan, 4096, gemm_shape=False, missing_features="price")
        on = step.step_time(model, cl, plan, 4096, gemm_shape=True, missing_features="price")
        if moves:
            # the GEMMs' rate part runs at the residual KERNEL_EFFICIENCY_SHAPE (faster by its
            # ratio to KERNEL_EFFICIENCY); the fixed cost and the k0 term more than pay it back
            ratio = options.KERNEL_EFFICIENCY / options.KERNEL_EFFICIENCY_SHAPE
            assert on.matmul_s > off.matmul_s * ratio * 1.005
            # and by hand from above: each GEMM's on / off = ratio·(1 + k0/k) + t0 / t_off, the
            # shortest inner dimension h = 4,096 and the shortest GEMM the output projection
            # (4,096 tokens × 4,096 × 4,096 at the flat sustained rate), so the step's matmul
            # time grows by at most that ratio (backward GEMMs are 2 × the forward, same ratio)
            shape = gemm.GEMM_SHAPE[("hopper", "bf16")]
            flat_rate = 989.4e12 * load_efficiency(acc).matmul_fraction \
                * options.KERNEL_EFFICIENCY
            t_min = 2 * 4096.0 ** 3 / flat_rate
            bound = ratio * (1 + shape.k0 / 4096) + shape.t0_s / t_min
            assert on.matmul_s < off.matmul_s * bound
            # the shape term prices GEMM losses only: attention and memory-bound work keep
            # KERNEL_EFFICIENCY (the residual does not speed them up)
            assert on.attention_s == pytest.approx(off.attention_s, rel=1e-12)
            assert on.memory_bound_s == pytest.approx(off.memory_bound_s, rel=1e-12)
        else:
            assert on.step_time_s == off.step_time_s


def test_kernel_efficiency_residual_is_fitted_where_no_shape_applies():
    # KERNEL_EFFICIENCY is fitted on Korthikanti et al.'s A100 layer with flat GEMMs (no A100
    # kernel table): the engine uses it where no shape term applies
    assert gemm.gemm_shape("A100-80GB") is None
    assert step.calibrate_kernel_efficiency() == pytest.approx(step.KERNEL_EFFICIENCY, abs=0.002)
    assert StepOptions(gemm_shape=True).resolve("A100-80GB").keff.matmul_fraction == \
        pytest.approx(load_efficiency("A100-80GB").matmul_fraction * step.KERNEL_EFFICIENCY)


def test_kernel_efficiency_shape_is_the_residual_of_the_same_fit():
    """Part of the 22B layer's loss is a shape loss (its output projection's inner dimension is
    6144 / 8 = 768 at TP 8): fitted again with the shape term applied (Hopper BF16's standing in
    for A100's), the sustained share rises, and that residual is what the engine uses wherever
    the shape term prices those losses, so they are not counted twice."""
    k_shape = step.calibrate_kernel_efficiency(gemm_shape=True)
    assert k_shape == pytest.approx(options.KERNEL_EFFICIENCY_SHAPE, abs=0.002)
    assert options.KERNEL_EFFICIENCY < options.KERNEL_EFFICIENCY_SHAPE < 1.0
    # the same ten Korthikanti Table 4 layer times are reproduced as well with it (within 8 %)
    t = step.layer_time_table(k_shape, gemm_shape=True)
    assert t[["forward_error", "backward_error"]].abs().max().max() < 0.08
    r = StepOptions(gemm_shape=True).resolve("H100-SXM")
    eff = load_efficiency("H100-SXM")
    assert r.keff.matmul_fraction == pytest.approx(
        eff.matmul_fraction * options.KERNEL_EFFICIENCY_SHAPE)
    # the residual is the GEMMs' only: attention and HBM rates keep KERNEL_EFFICIENCY
    assert r.keff.attention_fraction == pytest.approx(
        eff.attention_fraction * options.KERNEL_EFFICIENCY)
    assert r.keff.hbm_fraction == pytest.approx(eff.hbm_fraction * options.KERNEL_EFFICIENCY)
    # a given kernel_efficiency is every kernel's (1: the burst rates), unless the GEMMs' is given
    burst = StepOptions(gemm_shape=True, kernel_efficiency=1.0).resolve("H100-SXM")
    assert burst.keff.matmul_fraction == pytest.approx(eff.matmul_fraction)
    own = StepOptions(gemm_shape=True, kernel_efficiency=1.0,
                      gemm_kernel_efficiency=0.5).resolve("H100-SXM")
    assert own.keff.matmul_fraction == pytest.approx(eff.matmul_fraction * 0.5)
    assert own.keff.hbm_fraction == pytest.approx(eff.hbm_fraction)
    assert StepOptions(gemm_shape=False).resolve("H100-SXM").keff.matmul_fraction == \
        pytest.approx(eff.matmul_fraction * options.KERNEL_EFFICIENCY)


def test_stand_in_shapes_scale_k0_by_the_per_sm_rate():
    """The stand-in rule (gemm module docstring) against the tables it is read from: t0 does
    not move with the rate (6.25 us H100 BF16, 6.25 / 6.0 us B200 BF16 / FP8, fitted), k0 grows
    with it (B200 BF16 -> FP8, twice the rate on the same SMs: 220 -> 410, x 1.86)."""
    b16, b8 = gemm.GEMM_SHAPE[("blackwell", "bf16")], gemm.GEMM_SHAPE[("blackwell", "fp8")]
    assert b8.t0_s == pytest.approx(b16.t0_s, rel=0.05)
    assert 1.5 < b8.k0 / b16.k0 < 2.5
    # Hopper FP8: BF16's t0, k0 x 2 (H100 SXM dense FP8 / BF16 = 1978.9 / 989.4 TFLOPS, same SMs)
    h16, h8 = gemm.GEMM_SHAPE[("hopper", "bf16")], gemm.GEMM_SHAPE[("hopper", "fp8")]
    acc = load_accelerator("H100-SXM")
    assert acc.peak_flops_per_s("fp8") / acc.peak_flops_per_s("bf16") == pytest.approx(2.0,
                                                                                        rel=1e-3)
    assert (h8.t0_s, h8.k0) == (h16.t0_s, 2 * h16.k0) and not h8.measured
    # A100 stand-in: 312 TFLOPS over 108 SMs against 989.4 over 132 (the two whitepapers)
    ratio = gemm.per_sm_rate_ratio("A100-80GB", "H100-SXM")
    assert ratio == pytest.approx((312 / 108) / (989.4 / 132), rel=1e-3)
    assert step_validation.A100_SHAPE_STAND_IN.k0 == pytest.approx(70 * 0.3854, rel=1e-3)
    with pytest.raises(ValueError, match="SM count"):
        gemm.per_sm_rate_ratio("MI300X", "H100-SXM")
    with pytest.raises(ValueError, match="rate_ratio"):
        gemm.stand_in_shape(h16, 0.0, "x")


def test_bad_input():
    with pytest.raises(ValueError, match="gemm_shape"):
        StepOptions(gemm_shape="yes")
    with pytest.raises(ValueError, match="gemm_kernel_efficiency"):
        StepOptions(gemm_kernel_efficiency=1.5)
    with pytest.raises(ValueError, match="m"):
        gemm.gemm_time_s(0, 4096, 4096, 989.4e12, 0.8, None)
    with pytest.raises(ValueError, match="dtype"):
        gemm.gemm_shape("H100-SXM", "int8")
    with pytest.raises(ValueError, match="family"):
        gemm.fit_gemm_shape("hopper", "fp4")
    # each bad argument named, with its value and rule
    with pytest.raises(ValueError, match=r"peak_flops_per_s=-1.*> 0"):
        gemm.gemm_time_s(4096, 4096, 4096, -1.0, 0.8, None)
    with pytest.raises(ValueError, match=r"matmul_fraction=0.*> 0"):
        gemm.gemm_time_s(4096, 4096, 4096, 989.4e12, 0, None)
    with pytest.raises(ValueError, match=r"matmul_fraction=1.5.*<= 1"):
        gemm.gemm_time_s(4096, 4096, 4096, 989.4e12, 1.5, None)
    with pytest.raises(ValueError, match=r"family='ampere' must be one of \('hopper', 'blackwell'\)"):
        gemm.fit_gemm_shape("ampere")
    assert np.isfinite(gemm.gemm_fraction(256, 256, 256, "B200", "fp8"))


def test_fp8_over_bf16_kernel_speedup_by_size():
    # The B200 table's FP8:BF16 speed ratio of the same shapes grows with size (median 1.05 below
    # 2^30 FLOPs, 1.11 to 2^33, 1.36 to 2^35, 1.76 above): never a flat 2x. The curves reproduce
    # each size bin's median within 10 %.
    r = gemm.fp8_speedup("blackwell")
    assert len(r) == 375
    bins = np.digitize(r.flops, [0, 2 ** 30, 2 ** 33, 2 ** 35, 2 ** 41])
    med = r.groupby(bins)[["measured", "predicted"]].median()
    assert med["measured"].iloc[0] == pytest.approx(1.05, abs=0.01)
    assert med["measured"].iloc[-1] == pytest.approx(1.76, abs=0.01)
    assert med["measured"].is_monotonic_increasing
    assert ((med["predicted"] / med["measured"] - 1).abs() <= 0.10).all()
    assert (r.measured < 2.2).all()
