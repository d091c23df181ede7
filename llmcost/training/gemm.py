"""GEMM efficiency by shape: the share of the dense peak one GEMM achieves, from kernel benchmarks.

The engine's GEMM time used to be ``FLOPs / (peak × matmul_fraction)``, the fraction being the
best a large, well-shaped GEMM reaches on that accelerator (stas00/ml-engineering's "maximum
achievable matmul FLOPS", ``data/efficiency.csv``). Small and skinny GEMMs run far below that
ceiling. This module adds the shape.

The curve
---------
For a batched GEMM ``b × (m×k)·(k×n)`` (``k`` the inner, reduced dimension), FLOPs
``F = 2·b·m·n·k``, the kernel time is::

    t = t0 + F / (f_max × peak) × (1 + k0 / k)

* ``f_max`` is the accelerator's ``Efficiency.matmul_fraction`` (the measured large-GEMM ceiling,
  not re-fitted here: the curve tends to it as the GEMM grows, so the ceiling is counted once);
* ``t0`` (seconds) is the kernel's fixed cost: the shortest kernel the GPU runs (prologue, the
  first tile's load, the epilogue's write and drain of the last wave), paid once per launch;
* ``k0`` (elements of the inner dimension) is the per-output-tile overhead expressed as extra
  inner-dimension work: each output tile loads its operands through a software pipeline that has
  to fill and writes its result once, a cost that does not shrink with ``k``; a GEMM with a short
  inner dimension runs below the ceiling even when it is large.

In the engine the rate part also carries the sustained share of the burst rate: with the shape
term on it is ``options.KERNEL_EFFICIENCY_SHAPE``, the calibrated share re-fitted with the shape
term applied, not the flat fit's ``KERNEL_EFFICIENCY`` (whose fit had to absorb the shape losses
of its layer's GEMMs): each loss is counted once.

The achieved fraction of the dense peak is ``F / (t × peak)``. Wave quantization (output tiles
over SMs) was tried and left out: with a fixed 64-256 tile it reproduced the table no better
(mean error 5.5-47 % against 6.8-8.1 %) since cuBLAS picks tiles and split-K per shape.

The data and the fit
--------------------
``data/gemm_kernel_benchmarks.csv``: XLA's default GEMM performance table (openxla/xla,
``xla/service/gpu/model/default_matmul_perf_table.txtpb`` at commit ``ad6eaee1b2f1``, the median
CUPTI kernel time of 5 runs by ``xla/tools/matmul_perf_table_gen.cc``), 375 shapes per device and
dtype, ``b ∈ {1, 2, 4}``, ``m, n, k ∈ {256, …, 4096}``: H100 SXM (``sm_90``) and B200
(``sm_100_B200``), BF16 and FP8 (e4m3 × e4m3 → bf16). The H100 FP8 series is not used: it reaches
2,593 TFLOPS, above the H100 SXM's dense FP8 peak (1,978.9 TFLOPS), so it cannot be a dense FP8
kernel time; Hopper FP8 GEMMs take the Hopper BF16 shape (``t0``, ``k0``) with the FP8 peak and
FP8 ceiling (``GEMM_SHAPE`` says which), stated, not measured.

``fit_gemm_shape`` re-derives ``t0`` and ``k0`` on a fixed grid (``t0`` in 0.25 µs steps up to
10 µs, ``k0`` in steps of 10 up to 1,000) by least squares on the log of the kernel time, with
``f_max`` held at the catalogue's ``matmul_fraction``; ``GEMM_SHAPE`` stores the result. Global
constants per GPU generation and dtype, fitted to kernel measurements only, never to a training
run. ``reproduce`` prints the table against the curve: mean |error| 7.0 % (H100 BF16), 8.1 % (B200
BF16), 6.8 % (B200 FP8) on all 375 shapes (max 52 / 54 / 33 %, on the smallest GEMMs of a few
µs); on the 65 shapes of ≥ 2³⁵ FLOPs (the range of training GEMMs) 4.3 / 7.0 / 6.1 % mean and
11.6 / 10.5 / 15.2 % max (``tests/test_gemm.py`` holds these bounds).

No per-shape table was found for Ampere (A100) or AMD GPUs: ``gemm_shape`` returns ``None`` there
and the engine keeps the flat ``matmul_fraction``.

Stand-ins where no table is measured (``stand_in_shape``), one rule, stated: ``t0`` is kept (the
measured fixed costs do not move with the math rate: 6.25 µs on H100 BF16, 6.25 / 6.0 µs on B200
BF16 / FP8) and ``k0`` is scaled by the ratio of the dense math rate **per SM**: ``k0`` is a
fixed per-tile pipeline time counted in inner-dimension elements, and a faster SM consumes more
of them in that time. The tables bear out the direction, not the proportion: B200 BF16 →
FP8, the same SMs at twice the rate, ``k0`` 220 → 410 (× 1.86, 7 % below the rule's × 2);
H100 → B200 BF16, a per-SM rate × 2.03 ((2,250 / 148) / (989.4 / 132): B200's 148 SMs, 74 per
die, Chips and Cheese, "Nvidia's B200: Keeping the CUDA Juggernaut Rolling", 2025-12), but
``k0`` 70 → 220 (× 3.14, 55 % above the rule). A stand-in's ``k0`` is therefore uncertain by
about that much (the rule is what is stated, not what the tables fit). Hopper FP8 (the
table's H100 FP8 series is unusable) takes Hopper BF16's ``t0`` and ``k0`` × 2 (the FP8 tensor-core rate per SM is twice BF16's); a measured sweep of one
kernel generator in FP8 and FP16 on an H800 (tilelang, ``hopper_fp8_stand_in_check``) gives the
FP8:BF16 speed ratio by K within 5 % of this stand-in, and the same ceiling share of the peak
for both dtypes (77.9 % and 77.4 %); the A100 stand-in of
the ``KERNEL_EFFICIENCY_SHAPE`` calibration takes ``k0`` × (312 / 108) / (989.4 / 132) = 0.385
(``SM_COUNT``). Borrowing the BF16 ``k0`` unchanged, as before, put Hopper FP8's per-tile
overhead at half its time and A100's at 2.6 × its time (which raised the residual fitted on
the A100 layer and sped every Hopper GEMM up by it).

Limits. Backward GEMMs (input and weight gradient) are priced as 2 × the forward one with the
forward's inner dimension (the weight gradient's is the token count, larger, so this slightly
overstates its ``k0`` term). The table's largest GEMM is 4 × 4096³; training GEMMs beyond it are
extrapolated along the curve, whose large-size limit is the separately measured ceiling.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.catalog import DATA_DIR, load_accelerator, load_efficiency, load_gemm_mamf
from ..core.hardware import DTYPES
from ..core.units import as_array, as_scalar

#: The kernel table (``data/gemm_kernel_benchmarks.csv``).
GEMM_BENCHMARKS_CSV = DATA_DIR / "gemm_kernel_benchmarks.csv"

#: Accelerator catalogue name -> (GPU generation, the table's device it is measured on).
GEMM_FAMILY = {
    "H100-SXM": "hopper", "H800": "hopper", "H200": "hopper", "H100-96GB-500W": "hopper",
    "B200": "blackwell", "GB200-NVL72": "blackwell", "GB300-NVL72": "blackwell",
}

#: The benchmarked accelerator of each generation (its peak and ceiling turn TFLOPS into shares).
FAMILY_DEVICE = {"hopper": "H100-SXM", "blackwell": "B200"}

#: Streaming multiprocessors of the accelerators whose per-SM rate a stand-in shape uses
#: (``stand_in_shape``): A100 108 (NVIDIA A100 Tensor Core GPU Architecture whitepaper, 2020:
#: "108 SMs" on A100), H100 SXM5 132 (NVIDIA H100 Tensor Core GPU Architecture whitepaper,
#: 2022: "132 SMs" on H100 SXM5).
SM_COUNT = {"A100-40GB": 108, "A100-80GB": 108, "H100-SXM": 132}


@dataclass(frozen=True)
class GemmShape:
    """The shape term of one generation and dtype: ``t0_s`` (s) the fixed kernel cost, ``k0``
    the inner-dimension overhead; ``measured`` False when borrowed from another dtype."""

    t0_s: float
    k0: float
    measured: bool
    source: str


def per_sm_rate_ratio(accelerator: str, reference: str, dtype: str = "bf16",
                      reference_dtype: str = "bf16") -> float:
    """Dense ``dtype`` FLOP/s per SM of ``accelerator`` over ``reference_dtype``'s of
    ``reference`` (``SM_COUNT``, the catalogue's peaks)."""
    for name in (accelerator, reference):
        if name not in SM_COUNT:
            raise ValueError(f"accelerator={name!r}: no SM count (known: {sorted(SM_COUNT)})")
    a, r = load_accelerator(accelerator), load_accelerator(reference)
    return (a.peak_flops_per_s(dtype) / SM_COUNT[accelerator]) / (
        r.peak_flops_per_s(reference_dtype) / SM_COUNT[reference])


def stand_in_shape(shape: GemmShape, rate_ratio: float, source: str) -> GemmShape:
    """The shape term of an unmeasured accelerator or dtype from a measured one (module
    docstring, "Stand-ins"): ``t0`` kept, ``k0 × rate_ratio`` (the per-SM dense rate ratio),
    ``measured`` False."""
    r = as_scalar(rate_ratio, "rate_ratio", positive=True)
    return GemmShape(shape.t0_s, shape.k0 * r, False, source)


_SRC = ("fitted by fit_gemm_shape to data/gemm_kernel_benchmarks.csv (openxla/xla "
        "default_matmul_perf_table.txtpb @ ad6eaee1b2f1, {dev} {dt}, 375 shapes)")

#: (generation, dtype) -> shape term. Re-derived by ``fit_gemm_shape`` (a test checks it).
_HOPPER_BF16 = GemmShape(6.25e-6, 70.0, True, _SRC.format(dev="H100 SXM", dt="BF16"))
GEMM_SHAPE = {
    ("hopper", "bf16"): _HOPPER_BF16,
    # FP8 tensor cores run twice BF16's rate per SM (H100 SXM: 1978.9 / 989.4 TFLOPS)
    ("hopper", "fp8"): stand_in_shape(
        _HOPPER_BF16, 2.0, "Hopper BF16's t0 and k0 x 2, the FP8:BF16 rate per SM (module "
        "docstring, 'Stand-ins'): the table's H100 FP8 series exceeds the dense FP8 peak and is "
        "not used"),
    ("blackwell", "bf16"): GemmShape(6.25e-6, 220.0, True, _SRC.format(dev="B200", dt="BF16")),
    ("blackwell", "fp8"): GemmShape(6.0e-6, 410.0, True, _SRC.format(dev="B200", dt="FP8")),
}

#: Hopper FP8 GEMMs of the backward pass run without "fast accumulation": the partial sums of
#: the tensor cores are promoted to FP32 periodically ("split accumulator"), which the forward
#: GEMM skips. Transformer Engine sets ``_2X_ACC_FPROP = False``, ``_2X_ACC_DGRAD = True``,
#: ``_2X_ACC_WGRAD = True`` (NVIDIA/TransformerEngine ``transformer_engine/pytorch/module/base.py``
#: at v0.10, the version llm-foundry's FP8 benchmarks installed, and at d0067d0da, 2026; passed
#: as ``use_split_accumulator`` to every FP8 GEMM of ``Linear``, ``LayerNormLinear``,
#: ``LayerNormMLP``), torchao's float8 training the same (``torchao/float8/config.py``:
#: ``use_fast_accum=True`` for the output GEMM only, the grad-input and grad-weight GEMMs
#: without; pytorch/ao issue #2377, maintainer: "The default setting we have reflect a perf vs
#: accuracy tradeoff"). cuBLASLt documents the cost qualitatively
#: (``CUBLASLT_MATMUL_DESC_FAST_ACCUM``: "When enabled, problem execution might be faster but at
#: the cost of lower accuracy because intermediate results will not periodically be promoted to
#: a higher precision").
#:
#: The measurement (``HOPPER_MAMF``, ``hopper_mamf_ratios``): stas00/ml-engineering's MAMF table
#: runs its FP8 GEMMs through ``torch._scaled_mm`` without ``use_fast_accum`` (PyTorch's default,
#: False: ``compute/accelerator/benchmarks/mamf-finder.py`` @ 744d01e, line 349), the split
#: accumulator, and its BF16 ones through ``torch.mm``. The BF16 share of the dense peak over the
#: FP8 one is the slow accumulation's time over the forward rate, the forward's fast-accumulation
#: FP8 GEMMs reaching BF16's share (the assumption ``matmul_fraction`` on the FP8 peak makes,
#: which a same-kernel sweep supports: ``fp8_ceiling_words``): H100 SXM 80.3 % / 70.9 % = 1.133,
#: H200 73.4 % against H100's BF16 row ("H200 is the same") 1.094, GH200 83.8 % / 77.6 % = 1.080.
#: ``FP8_SLOW_ACCUMULATION`` is the H100 SXM's, the generation's benchmarked device
#: (``FAMILY_DEVICE``: its BF16 and FP8 rows on the same torch, 2.7.0+cu126), rounded to 0.001;
#: the other two Hopper parts measure less, so it is the top of the measured 1.08-1.13. The one
#: other quantified report, pytorch/ao issue #2377 (2025-06-14, a user, no GPU named):
#: "enabling fast accumulation can lead to a 1.1x to 1.2x speedup", brackets it. A ceiling ratio
#: at each dtype's best shape, not a sweep by shape. Hopper only: the imprecise accumulation is
#: the Hopper tensor cores' (DeepSeek-AI 2024, arXiv:2412.19437 §3.3.2: "the accumulation
#: precision of FP8 GEMM on NVIDIA H800 GPUs is limited to retaining around 14 bits";
#: triton-lang/triton PR #2300: "This only affect Hopper fp8 dot"), and the same table's
#: Blackwell rows show no such loss (BF16 / FP8 share: B200 SXM 77.6 % / 76.3 % = 1.017, GB200
#: SXM 72.9 % / 72.3 % = 1.008; ``data/gemm_mamf_blackwell.csv``). The mechanism was added after
#: the held-out FP8 rows' errors and the published FP8:BF16 pairs were seen (the pairs'
#: predicted FP8 gains were all too large); its value is a kernel measurement, not fitted to a
#: run. How much rests on the choice within 1.08-1.13: the held-out FP8 rows' mean |error| is
#: 9.995 % at 1.133, 10.004 % at 1.10 and 10.03 % at 1.08 (``benchmarks/validate_mfu.py``'s FP8
#: bucket), so the FP8 bucket's 10 % aim is met only at the H100 SXM's own figure; the H100 SXM
#: is taken because the validation's Hopper FP8 rows ran on it, not for that. The factor
#: multiplies the whole backward GEMM's time, its launch term and a memory-bound GEMM's time
#: too (where the accumulator costs nothing: small on the plans' large GEMMs).
FP8_SLOW_ACCUMULATION = 1.133

#: stas00/ml-engineering ``compute/accelerator/README.md`` @ 744d01e18b79 (2026-08-22),
#: "Maximum Achievable Matmul FLOPS comparison table", Hopper rows: (GPU, dtype) ->
#: (MAMF TFLOPS, the table's theoretical dense TFLOPS). BF16 by ``torch.mm``, FP8
#: (``float8_e4m3fn``) by ``torch._scaled_mm`` without fast accumulation; mean of 100
#: iterations after 50 warm-up at the best shape found. H100 SXM 2.7.0+cu126 (both dtypes; its
#: BF16 row notes "H200 is the same"), H200 SXM FP8 2.7.1+cu128, GH200 SXM (900 W) 2.6.0+cu126.
HOPPER_MAMF = {
    ("H100 SXM", "bf16"): (794.5, 989.0), ("H100 SXM", "fp8"): (1402.6, 1979.0),
    ("H200 SXM", "fp8"): (1453.4, 1979.0),
    ("GH200 SXM", "bf16"): (828.6, 989.0), ("GH200 SXM", "fp8"): (1535.0, 1979.0),
}


def hopper_mamf_share(gpu: str, dtype: str) -> float:
    """The MAMF share of the dense peak of ``gpu`` ("H100 SXM", "H200 SXM", "GH200 SXM") in
    ``dtype`` (``HOPPER_MAMF``); H200's BF16 is H100 SXM's row, as the table notes."""
    key = ("H100 SXM", dtype) if (gpu, dtype) == ("H200 SXM", "bf16") else (gpu, dtype)
    if key not in HOPPER_MAMF:
        raise ValueError(f"gpu={gpu!r}, dtype={dtype!r}: not in HOPPER_MAMF "
                         f"(known: {sorted(HOPPER_MAMF)})")
    mamf, theory = HOPPER_MAMF[key]
    return mamf / theory


def hopper_mamf_ratios() -> dict:
    """BF16 share over the FP8 (split-accumulator) share of each Hopper GPU of ``HOPPER_MAMF``:
    the slow accumulation's time over the forward rate it measures (``FP8_SLOW_ACCUMULATION``
    is the H100 SXM's, rounded to 0.001)."""
    return {gpu: hopper_mamf_share(gpu, "bf16") / hopper_mamf_share(gpu, "fp8")
            for gpu in ("H100 SXM", "H200 SXM", "GH200 SXM")}

#: GPU generations (``GEMM_FAMILY`` values) whose backward FP8 GEMMs pay ``FP8_SLOW_ACCUMULATION``.
FP8_SLOW_ACCUMULATION_FAMILIES = frozenset({"hopper"})


def fp8_backward_slowdown(accelerator: str) -> float:
    """The backward FP8 GEMMs' time over the forward rate on ``accelerator`` (catalogue name):
    ``FP8_SLOW_ACCUMULATION`` on a generation of ``FP8_SLOW_ACCUMULATION_FAMILIES`` (Hopper), 1
    elsewhere (Blackwell, and devices without a kernel table)."""
    fam = GEMM_FAMILY.get(str(accelerator))
    return FP8_SLOW_ACCUMULATION if fam in FP8_SLOW_ACCUMULATION_FAMILIES else 1.0


_T0_GRID_S = np.arange(0.0, 10.0 + 1e-9, 0.25) * 1e-6
_K0_GRID = np.arange(0.0, 1000.0 + 1e-9, 10.0)


def gemm_shape(accelerator: str, dtype: str = "bf16") -> GemmShape | None:
    """The shape term for ``accelerator`` (catalogue name) and GEMM ``dtype``; ``None`` where no
    kernel table exists (Ampere, AMD, TPUs: the engine keeps the flat ``matmul_fraction``)."""
    if dtype not in DTYPES:
        raise ValueError(f"dtype={dtype!r}: must be one of {DTYPES}")
    fam = GEMM_FAMILY.get(str(accelerator))
    return None if fam is None else GEMM_SHAPE.get((fam, dtype))


def gemm_time_s(m, n, k, peak_flops_per_s, matmul_fraction, shape: GemmShape | None, batch=1.0):
    """Kernel time (s) of ``batch × (m×k)·(k×n)``:
    ``t = t0 + 2·b·m·n·k / (matmul_fraction × peak) × (1 + k0/k)`` (``shape=None``: ``t0 = k0 =
    0``, the flat ceiling). Compute only: the engine takes the max with the HBM roofline.

    Raises
    ------
    ValueError
        A non-positive ``m``, ``n``, ``k``, ``batch`` or ``peak_flops_per_s``; a
        ``matmul_fraction`` outside (0, 1]."""
    m, n, k, b = (as_array(v, name, positive=True)
                  for v, name in ((m, "m"), (n, "n"), (k, "k"), (batch, "batch")))
    peak = as_array(peak_flops_per_s, "peak_flops_per_s", positive=True)
    frac = as_array(matmul_fraction, "matmul_fraction", positive=True, upper=1.0)
    base = 2.0 * b * m * n * k / (peak * frac)
    if shape is None:
        return base
    return shape.t0_s + base * (1.0 + shape.k0 / k)


def gemm_fraction(m, n, k, accelerator: str, dtype: str = "bf16", batch=1.0):
    """Achieved share of the dense ``dtype`` peak of one GEMM on ``accelerator``:
    ``2·b·m·n·k / (t × peak)``, ``t`` from ``gemm_time_s`` with the catalogue's
    ``matmul_fraction`` and ``gemm_shape``; the flat ``matmul_fraction`` where no table exists."""
    acc = load_accelerator(accelerator)
    peak = acc.peak_flops_per_s(dtype)
    t = gemm_time_s(m, n, k, peak, load_efficiency(accelerator).matmul_fraction,
                    gemm_shape(accelerator, dtype), batch)
    return 2.0 * np.asarray(batch, float) * np.asarray(m, float) * n * k / (t * peak)


def load_gemm_benchmarks(usable_only: bool = True) -> pd.DataFrame:
    """The kernel table (``data/gemm_kernel_benchmarks.csv``), one row per (accelerator, dtype,
    b, m, n, k) with the measured ``tflops``; ``usable_only`` drops rows whose ``note`` says why
    they are not used (the H100 FP8 series)."""
    df = pd.read_csv(GEMM_BENCHMARKS_CSV, keep_default_na=False)
    return df[df["note"] == ""].reset_index(drop=True) if usable_only else df


def _series(family: str, dtype: str):
    if family not in FAMILY_DEVICE:
        raise ValueError(f"family={family!r} must be one of {tuple(FAMILY_DEVICE)} (the "
                         "generations with a kernel table)")
    dev = FAMILY_DEVICE[family]
    df = load_gemm_benchmarks()
    d = df[(df.accelerator == dev) & (df.dtype == dtype)]
    if d.empty:
        raise ValueError(f"no usable kernel measurements for family={family!r}, dtype={dtype!r}")
    return d, load_accelerator(dev).peak_flops_per_s(dtype), load_efficiency(dev).matmul_fraction


def fit_gemm_shape(family: str, dtype: str = "bf16") -> tuple[float, float]:
    """Re-derive ``(t0_s, k0)`` for ``family`` ("hopper", "blackwell") and ``dtype`` from the
    kernel table: the grid point minimising ``Σ (ln t_model − ln t_measured)²`` with ``f_max``
    held at the benchmarked accelerator's ``matmul_fraction`` (see the module docstring).

    Raises
    ------
    ValueError
        A ``family`` not in ``FAMILY_DEVICE``; no usable measurements for ``dtype``."""
    d, peak, fmax = _series(family, dtype)
    flops = 2.0 * d.b.to_numpy() * d.m.to_numpy() * d.n.to_numpy() * d.k.to_numpy()
    t = flops / (d.tflops.to_numpy() * 1e12)
    base = flops / (fmax * peak)
    pred = _T0_GRID_S[:, None, None] + base * (1.0 + _K0_GRID[None, :, None] / d.k.to_numpy())
    loss = (np.log(pred / t) ** 2).sum(-1)
    i, j = np.unravel_index(loss.argmin(), loss.shape)
    return float(_T0_GRID_S[i]), float(_K0_GRID[j])


def reproduce(family: str, dtype: str = "bf16") -> pd.DataFrame:
    """The kernel table of ``family`` / ``dtype`` beside the curve: measured and predicted share of
    the dense peak and the relative error ``predicted / measured − 1``, per shape."""
    d, peak, fmax = _series(family, dtype)
    shape = GEMM_SHAPE[(family, dtype)]
    t = gemm_time_s(d.m.to_numpy(), d.n.to_numpy(), d.k.to_numpy(), peak, fmax, shape,
                    d.b.to_numpy())
    flops = 2.0 * d.b.to_numpy() * d.m.to_numpy() * d.n.to_numpy() * d.k.to_numpy()
    out = d[["accelerator", "dtype", "b", "m", "n", "k"]].copy()
    out["flops"] = flops
    out["measured_fraction"] = d.tflops.to_numpy() * 1e12 / peak
    out["predicted_fraction"] = flops / (t * peak)
    out["error"] = out.predicted_fraction / out.measured_fraction - 1.0
    return out.reset_index(drop=True)


#: A Hopper FP8 and FP16 GEMM sweep by one kernel generator on one machine
#: (``data/gemm_hopper_fp8_sweep.csv``: tile-ai/tilelang ``benchmark/matmul/README.md`` and
#: ``benchmark/matmul_fp8/README.md`` at b2acfc379, 2025-10-19: H800 SXM, M = N = 8192,
#: K = 256 ... 16384, autotuned tilelang kernels, e4m3 and FP16 operands). Not a cuBLAS table,
#: so not fitted: it checks the Hopper FP8 stand-in (``GEMM_SHAPE[("hopper", "fp8")]``) on
#: what a same-kernel FP8:BF16 ratio by shape looks like (``hopper_fp8_stand_in_check``).
HOPPER_FP8_SWEEP_CSV = DATA_DIR / "gemm_hopper_fp8_sweep.csv"


def fp8_ceiling_words(accelerator: str) -> str:
    """What stands behind applying ``matmul_fraction`` (data/efficiency.csv, measured on BF16
    GEMMs) to an FP8 peak, in words. On a Hopper GPU (``GEMM_FAMILY``): the FP8 and FP16 shares
    of their dense peaks at the tilelang sweep's largest K (``HOPPER_FP8_SWEEP_CSV``: H800,
    M = N = 8,192; share = TFLOPS ÷ the H100 SXM's dense peak of that dtype, FP16 at BF16's
    rate), which the same fraction assumes equal, and the MAMF table's FP8 rows without fast
    accumulation below BF16's share (``HOPPER_MAMF``: the backward GEMMs' loss,
    ``FP8_SLOW_ACCUMULATION``). On a Blackwell GPU: the MAMF table's FP8 and BF16 rows of that
    GPU (``core.catalog.load_gemm_mamf``, data/gemm_mamf_blackwell.csv), or, where it has none
    (GB300), of the Blackwell GPUs it measures. Elsewhere: that no FP8 GEMM ceiling is in the
    catalogue."""
    fam = GEMM_FAMILY.get(accelerator)
    if fam == "blackwell":
        return _blackwell_fp8_words(accelerator)
    if fam != "hopper":
        return (f"no FP8 GEMM ceiling measured for {accelerator}: data/efficiency.csv measures "
                "BF16 GEMMs, and the FP8 measurements (data/gemm_hopper_fp8_sweep.csv, "
                "data/gemm_mamf_blackwell.csv) are Hopper's and Blackwell's")
    d = pd.read_csv(HOPPER_FP8_SWEEP_CSV)
    top = d[d["k"] == d["k"].max()].set_index("dtype")["tflops"]
    acc = load_accelerator(FAMILY_DEVICE["hopper"])
    f8 = float(top["fp8"]) * 1e12 / acc.peak_flops_per_s("fp8")
    f16 = float(top["fp16"]) * 1e12 / acc.peak_flops_per_s("bf16")
    sh = {g: (hopper_mamf_share(g, "fp8"), hopper_mamf_share(g, "bf16"))
          for g in ("H100 SXM", "H200 SXM", "GH200 SXM")}
    return (f"data/gemm_hopper_fp8_sweep.csv, an FP8 and FP16 GEMM sweep on H800 (tilelang, "
            f"M = N = 8,192), reaches {f8:.1%} of the FP8 peak and {f16:.1%} of the FP16 one at "
            f"K = {int(d['k'].max()):,}: about the same share, as the assumption takes it; "
            "stas00/ml-engineering's MAMF table (compute/accelerator/README.md @ 744d01e), FP8 "
            "without fast accumulation, measures less: H100 SXM "
            f"{sh['H100 SXM'][0]:.1%} of the FP8 peak against {sh['H100 SXM'][1]:.1%} in BF16, "
            f"H200 SXM {sh['H200 SXM'][0]:.1%} (BF16 as H100's), GH200 "
            f"{sh['GH200 SXM'][0]:.1%} against {sh['GH200 SXM'][1]:.1%}: the backward GEMMs' "
            f"split accumulator, priced at x{FP8_SLOW_ACCUMULATION} their forward time")


def _blackwell_fp8_words(accelerator: str) -> str:
    """``fp8_ceiling_words`` on a Blackwell GPU: the MAMF rows of ``accelerator``, else (no row
    of its own) of every Blackwell GPU with a catalogue row."""
    m = load_gemm_mamf()
    own = m[m["catalogue_accelerator"] == accelerator]
    rows = own if not own.empty else m[m["catalogue_accelerator"] != ""]

    def share(gpu, dtype):
        r = rows[(rows["accelerator_measured"] == gpu) & (rows["dtype"] == dtype)].iloc[0]
        return r["mamf_tflops"], r["theory_tflops"], r["mamf_tflops"] / r["theory_tflops"]

    parts = []
    for gpu in dict.fromkeys(rows["accelerator_measured"]):
        (f8, p8, s8), (_, _, s16) = share(gpu, "fp8"), share(gpu, "bf16")
        parts.append(f"{gpu} FP8 {f8:,.1f} of {p8:,.0f} TFLOPS ({s8:.1%}) against "
                     f"{s16:.1%} in BF16")
    head = ("" if not own.empty else
            f"no GEMM measurement of {accelerator} is published; of the Blackwell GPUs it "
            "has, ")
    return (head + "stas00/ml-engineering's MAMF table (data/gemm_mamf_blackwell.csv) measures "
            + " and ".join(parts) + ": about the same share, as the assumption takes it")


def hopper_fp8_stand_in_check() -> pd.DataFrame:
    """The Hopper FP8 stand-in against a measured FP8:FP16 sweep (``HOPPER_FP8_SWEEP_CSV``; FP16
    and BF16 share Hopper's dense tensor-core rate): per ``k``, the measured speed ratio
    ``tflops_fp8 / tflops_fp16`` and the curve's ``t_bf16 / t_fp8`` (``gemm_time_s`` with
    Hopper's BF16 and FP8 shape terms and the H100 SXM's ``matmul_fraction`` for both), and
    ``error`` = predicted / measured − 1. The sweep also measures the ceilings: at K = 16,384
    FP8 reaches 1,541 of 1,978.9 TFLOPS (77.9 %) and FP16 766 of 989.4 (77.4 %), the same
    share of the peak, as the stand-in assumes. Limits: tilelang's FP8 kernel writes an FP8
    output where training writes BF16 (the smallest ``k`` is the most output-bound)."""
    d = pd.read_csv(HOPPER_FP8_SWEEP_CSV)
    p = d.pivot_table(index=["m", "n", "k"], columns="dtype", values="tflops").reset_index()
    acc = load_accelerator(FAMILY_DEVICE["hopper"])
    fmax = load_efficiency(FAMILY_DEVICE["hopper"]).matmul_fraction
    t16, t8 = (gemm_time_s(p.m.to_numpy(), p.n.to_numpy(), p.k.to_numpy(),
                           acc.peak_flops_per_s(dt), fmax, GEMM_SHAPE[("hopper", dt)])
               for dt in ("bf16", "fp8"))
    out = p[["m", "n", "k"]].copy()
    out["measured"] = p["fp8"] / p["fp16"]
    out["predicted"] = t16 / t8
    out["error"] = out["predicted"] / out["measured"] - 1.0
    return out


def fp8_speedup(family: str = "blackwell") -> pd.DataFrame:
    """FP8 over BF16 kernel speed of the same shapes, measured (the kernel table) and by the
    curve: one row per shape with ``flops``, ``measured`` and ``predicted`` ratios of achieved
    FLOP/s. The FP8 peak is twice the BF16 one; small GEMMs get far less (fixed kernel cost,
    a longer ``k0``), which is why the engine never prices FP8 GEMMs at a flat 2×."""
    a, b = reproduce(family, "fp8"), reproduce(family, "bf16")
    key = ["b", "m", "n", "k"]
    j = a.merge(b, on=key, suffixes=("_fp8", "_bf16"))
    dev = load_accelerator(FAMILY_DEVICE[family])
    peaks = dev.peak_flops_per_s("fp8") / dev.peak_flops_per_s("bf16")
    out = j[key].copy()
    out["flops"] = j["flops_fp8"]
    out["measured"] = peaks * j["measured_fraction_fp8"] / j["measured_fraction_bf16"]
    out["predicted"] = peaks * j["predicted_fraction_fp8"] / j["predicted_fraction_bf16"]
    return out
