"""Stragglers: a synchronous training step waits for its slowest GPU.

Identical GPUs are not equally fast. Sinha et al., "Not All GPUs Are Created Equal:
Characterizing Variability in Large-Scale, Accelerator-Rich Systems", SC22 (arXiv:2208.11035
v3, abstract): across Summit, Vortex, Frontera, Longhorn and Corona, "8% (max 22%) average
performance variation even though the GPU architecture and vendor SKU are identical within each
cluster, with outliers up to 1.5X slower than the median GPU"; the cause is manufacturing
variability and the chip's power management (same abstract). Every rank of a data-, tensor- or
pipeline-parallel step meets the others at a collective, so the step's compute runs at the pace
of the slowest of its N GPUs.

**What "variation" means.** The authors' analysis code (their artifact repository
``hal-uw/gpu_variability_sc22_artifact``, ``plot_script/plot_aggregated.py``) plots per-GPU
performance normalised to the median as box plots without the outliers and computes the
percent variability as the span of the box plot's whisker fences over the median,
``((Q3 + 1.5·IQR) − (Q1 − 1.5·IQR)) / Q2 = 4·IQR / Q2``. For a normal spread of relative
standard deviation ``σ`` the IQR is ``2·z₀.₇₅·σ`` (z₀.₇₅ = Φ⁻¹(0.75) = 0.6745), so the span is
``8·z₀.₇₅·σ = 5.40·σ`` and

    GPU_SPEED_CV = 8% / (8 · 0.6745) = 1.48%

(if "variation" is read as the whiskers themselves, the extreme GPUs inside the fences, they
come within about 0.1·σ of each fence on clusters of a thousand GPUs or more, and σ would be a
few per cent larger). The
outliers beyond the fences (up to 1.5× slow) are left out on purpose: production clusters find
and drain them (Llama 3, Grattafiori et al. 2024 §3.3.4: "hardware issues may cause
still-functioning but slow stragglers ... Even a single straggler can slow down thousands of
other GPUs", so Meta built tools to find them; MegaScale, Jiang et al. 2024 §6, as summarised
in secondary notes, not read in the paper: about 0.5% of hosts were ~10% slower, and removing
them raised MFU by about 0.7%). The model prices the bulk spread that remains after draining. Had "8%" meant max − min over a cluster of M GPUs,
σ would be 8% / (2·E[max of M normals]) ≈ 1.0% for M ≈ 27,000 (Summit): two thirds of the
figure used here.

**Expected slowdown.** With per-GPU compute times ``t·(1 + σ·Z_i)``, ``Z_i`` standard normal,
the step waits for ``max_i`` of them; over N GPUs the expected excess is ``σ·e(N)``,
``e(N) = E[max of N standard normals] = ∫ x · N φ(x) Φ(x)^(N−1) dx`` (computed here by
quadrature; ``e(1) = 0``, ``e(2) = 1/√π`` and ``e(3) = 3/(2√π)`` exactly, ``e(8) = 1.4236``,
``e(1000) = 3.2414``; Blom's approximation ``Φ⁻¹((N − 0.375)/(N + 0.25))`` is within 0.8% of it
for 8 <= N <= 10⁶). The step-time model's one calibrated constant (``step.KERNEL_EFFICIENCY``)
was fitted to per-layer times measured on 8 A100s with TP = 8 (Korthikanti et al. 2022 Table 4),
whose every layer already waited for the slowest of those 8, so the slowdown the model adds is

    straggler_slowdown(N) = σ · (e(N) − e(8))

on the compute time (GEMMs, attention, memory-bound kernels, recomputation): 0 at 8 GPUs,
+2.7% at 1,024, +3.8% at 16,384, +4.4% at 100,000; negative (a little faster than the
calibration) below 8 GPUs.

**Limits.** Persistent per-GPU speed only: no per-step jitter, no slow links or hosts
(communication stragglers), no data-loader or garbage-collection pauses, no outliers
(drained). The spread was measured on V100 and MI60 clusters
(HPC workloads, SGEMM among them); no H100 figure of the same kind was found (Llama 3 §3.3.4
reports a "diurnal 1-2% throughput variation" of the whole job from temperature-driven DVFS on
H100, a shift of all GPUs together, not a spread), so the one σ is applied to every
generation. The bubble and stage imbalance are not scaled (a slow GPU slows its own stage: the
fill and drain pass it once, a second-order term).
"""

from __future__ import annotations

from functools import lru_cache
from math import erfc, sqrt
from statistics import NormalDist

import numpy as np

from ..core.units import as_array, as_scalar

#: Sinha et al. SC22 (arXiv:2208.11035 v3, abstract): the average performance variation between
#: GPUs of one SKU in one cluster ("8% (max 22%) average performance variation"), the span of
#: the box plot's whisker fences over the median (see the module docstring).
SINHA_VARIATION = 0.08
#: Φ⁻¹(0.75): a normal's upper quartile in standard deviations.
Z_QUARTILE = NormalDist().inv_cdf(0.75)
#: The whisker-fence span ``4·IQR`` in standard deviations of a normal: ``8·Φ⁻¹(0.75)``.
FENCE_SPAN_SIGMAS = 8.0 * Z_QUARTILE
#: Relative standard deviation of the sustained speed of identical GPUs (bulk, outliers
#: drained): ``SINHA_VARIATION / FENCE_SPAN_SIGMAS`` = 1.48%. Global, not fitted to any run.
GPU_SPEED_CV = SINHA_VARIATION / FENCE_SPAN_SIGMAS
#: GPUs of the measurement ``step.KERNEL_EFFICIENCY`` is fitted to (Korthikanti et al. 2022
#: Table 4: one 22B layer with TP = 8 on 8 A100s): the slowest of 8 is already in the fit.
N_CALIBRATION = 8

#: The largest N ``expected_max_normal`` integrates: its grid, [-12, 12], holds the integrand
#: for every N up to 10^12 (e(10^12) = 7.11; the largest clusters hold about 10^5 GPUs).
MAX_N = 10**12

# quadrature grid for e(N): the integrand lives within [-12, 12] for every N up to 10^12
_X = np.linspace(-12.0, 12.0, 12001)
_LOG_CDF = np.log(np.array([0.5 * erfc(-x / sqrt(2.0)) for x in _X]))
_LOG_PDF = -0.5 * _X ** 2 - 0.5 * np.log(2.0 * np.pi)


@lru_cache(maxsize=4096)
def _e_max(n: int) -> float:
    if n == 1:
        return 0.0
    dens = np.exp(np.log(n) + _LOG_PDF + (n - 1) * _LOG_CDF)
    return float(np.trapezoid(_X * dens, _X))


def expected_max_normal(n):
    """``e(N) = E[max of N independent standard normals] = ∫ x · N φ(x) Φ(x)^(N−1) dx``, by the
    trapezoid rule on [−12, 12] (step 0.002; error below 1e-6 for 1 <= N <= 10⁹). ``e(1) = 0``,
    ``e(2) = 1/√π``, ``e(3) = 3/(2√π)``.

    ``n``: an integer >= 1 or an array of them. Returns a float (scalar input) or an array.

    Raises ``ValueError`` naming ``n`` unless every value is a whole number from 1 to
    ``MAX_N`` (10^12, the range the quadrature grid covers).
    """
    arr = _counts(n, "n")
    if arr.ndim == 0:
        return _e_max(int(arr))
    flat = arr.reshape(-1).astype(np.int64)
    uniq, inv = np.unique(flat, return_inverse=True)
    vals = np.array([_e_max(int(u)) for u in uniq])
    return vals[inv].reshape(arr.shape)


def _counts(n, name: str):
    """``n`` as a float array of whole numbers from 1 to ``MAX_N``, else a ValueError naming
    ``name``, the value and the rule (an int beyond int64 included: numpy cannot take its log)."""
    arr = as_array(n, name, positive=True, integer=True)
    if np.any(arr > MAX_N):
        bad = float(np.max(arr))
        raise ValueError(f"{name}={bad:.4g} must be <= {MAX_N:.0e}: the expected maximum of N "
                         "normals is integrated on a grid that holds it up to 10^12 (the "
                         "largest clusters hold about 10^5 GPUs)")
    return arr


def straggler_slowdown(n_gpus, cv: float = GPU_SPEED_CV, n_calibration: int = N_CALIBRATION):
    """Expected fractional slowdown of a synchronous step's compute on ``n_gpus`` GPUs, beyond
    what the calibration already contains::

        slowdown(N) = cv · (e(N) − e(n_calibration))

    ``e`` = ``expected_max_normal`` (the expected maximum of N standard normals); ``cv`` the
    relative standard deviation of identical GPUs' sustained speed (``GPU_SPEED_CV`` = 1.48%,
    from Sinha et al. SC22's 8% whisker-fence span; see the module docstring); ``n_calibration``
    the GPUs of the kernel-constant fit (``N_CALIBRATION`` = 8, Korthikanti et al. 2022 Table
    4). Zero at ``n_calibration``, growing like ``cv·√(2 ln N)``: +2.7% at 1,024 GPUs, +3.8% at
    16,384; negative below ``n_calibration``.

    ``n_gpus``: integer >= 1, or an array of them. Returns a float or an array of that shape.

    Raises
    ------
    ValueError
        ``n_gpus`` or ``n_calibration`` not a whole number from 1 to ``MAX_N`` (10^12);
        ``cv`` not in [0, 1).
    """
    c = as_scalar(cv, "cv", nonnegative=True, upper=1.0, upper_inclusive=False)
    if np.ndim(n_calibration) != 0:
        raise ValueError(f"n_calibration={n_calibration!r} must be one whole number >= 1")
    n_cal = int(_counts(n_calibration, "n_calibration"))
    arr = _counts(n_gpus, "n_gpus")
    out = c * (np.asarray(expected_max_normal(arr)) - _e_max(n_cal))
    return float(out) if np.ndim(out) == 0 else out
