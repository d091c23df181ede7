"""The first line of the ledger: training FLOPs, GPU-hours, wall-clock and compute cost.

Conventions
-----------
* ``method="6ND"``: C = 6·N·D (Kaplan et al. 2020 §2.1) with N the *active* parameters (all
  parameters for a dense model, activated ones for MoE), embeddings included as Hoffmann et al.
  2022 count N. Kaplan et al. use non-embedding N; ``ModelSpec.n_nonembedding_params`` gives
  that count. (For Llama 3 405B both give 3.8e25 after rounding: 3.80e25 and 3.76e25.)
* ``method="detailed"``: ``ModelSpec.flops_per_token`` × D, attention included (causal mask by
  default; see ``llmcost.model`` for every convention).
* **MFU** (model FLOPs utilisation, Chowdhery et al. 2022 §4.1 and App. B): model FLOPs (no
  recomputation) ÷ (time × n_gpus × dense peak). **HFU** (hardware FLOPs utilisation, same
  source) counts the FLOPs actually executed, recomputation included, so HFU ≥ MFU.
* Peaks are the accelerator's dense peak for the training dtype (never 2:4-sparse).
* **The MFU basis.** An MFU only means something together with the FLOP count it divides.
  Throughout the workbook an ``mfu`` is a fraction of peak measured in *model FLOPs* =
  ``ModelSpec.flops_per_token(seq_len, causal=False)``: matmuls of the active weights plus the
  attention core over the full s×s matrix, no recomputation. That is the convention of PaLM
  (App. B, 6N + 12·L·H·Q·T), Megatron's MFU (Korthikanti et al. 2022, App. A Eq. 7,
  72·B·L·s·h²(1 + s/6h + V/12hL); the Megatron-LM paper, Narayanan et al. 2021, counts the same
  full matrix with the recomputed forward added, Eq. 3's 96: hardware FLOPs), torchtitan and
  llm-foundry, under which most published MFUs are stated (``MFU_METHOD``, ``MFU_CAUSAL``;
  Megatron-LM's own logged TFLOP/s from Megatron-Core 0.12.0, Megatron-Bridge's and NeMo's from
  2025-08 count a causal mask: ``llmcost.model``). GPU-hours are therefore computed from that
  count, not from 6ND, which undercounts it (by 7.4% for Llama 2 70B at 4K context, and by a
  factor of 5.2 for Llama 3.1 8B at 128K; 3.5% and 3.1× on a causal count). 6ND remains the
  headline "training FLOPs" because papers quote it.

GPU-seconds = C / (peak × MFU): a restatement of Narayanan et al. 2021's end-to-end estimate
t ≈ 8·T·P/(n·X) (§5.1, Eq. 4: T tokens, P parameters, n GPUs, X the achieved hardware FLOP/s
under full recomputation; 6·T·P/(n·peak·MFU) without it, in model FLOPs), written with model
FLOPs and MFU so that recomputation is a cost rather than throughput;
GPU-hours = GPU-seconds / 3600; wall-clock = GPU-seconds / n_gpus; compute cost = GPU-hours ×
price per GPU-hour.

All functions broadcast over numpy arrays.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.catalog import (
    as_accelerator,
    as_model,
    as_published_runs,
    list_models,
    load_accelerator,
    load_model,
)
from ..core.hardware import Accelerator
from ..core.model import ModelSpec
from ..core.units import (SECONDS_PER_HOUR, as_array, as_flag, broadcast_together,
                          finite_result, scalar_or_array)

METHODS = ("6ND", "detailed")
#: The FLOP count an MFU is measured in (see the module docstring).
MFU_METHOD = "detailed"
MFU_CAUSAL = False


def _peak(accelerator, dtype: str) -> np.ndarray:
    if isinstance(accelerator, Accelerator):
        return np.asarray(accelerator.peak_flops_per_s(dtype))
    if isinstance(accelerator, str):
        return np.asarray(load_accelerator(accelerator).peak_flops_per_s(dtype))
    if isinstance(accelerator, (bool, dict, list, tuple, set)) or accelerator is None:
        raise ValueError(f"accelerator={accelerator!r} must be an Accelerator, a catalogue name "
                         "or a peak FLOP/s")
    return as_array(accelerator, "accelerator", positive=True)


def _mfu(mfu) -> np.ndarray:
    return as_array(mfu, "mfu", positive=True, upper=1.0)


def _spec(model, name: str = "model", needs: str = "this count") -> ModelSpec:
    """``model.as_model``: a ModelSpec or a catalogue name, else a ValueError naming ``name``."""
    return as_model(model, name, needs)


def check_count_conventions(seq_len, causal) -> None:
    """Check the counting conventions every FLOP count takes, whichever method ignores them
    (6ND reads neither): ``seq_len`` a whole number of tokens >= 1 or None, ``causal`` True or
    False (a string such as ``"false"`` is refused, not read as true). A ValueError names the
    argument."""
    if seq_len is not None:
        as_array(seq_len, "seq_len", positive=True, integer=True)
    as_flag(causal, "causal")


def training_flops(model_or_n_params, n_tokens, seq_len=None, method: str = "6ND",
                   causal: bool = True, recompute: str = "none"):
    """Total training FLOPs for ``n_tokens`` tokens.

    Parameters
    ----------
    model_or_n_params : ModelSpec or str or float or array
        A model (or its catalogue name), or a parameter count N (only with ``method="6ND"``).
    n_tokens : float or array
        Training tokens D.
    seq_len : int or array, optional
        Context for ``method="detailed"`` (default: the model's pre-training ``seq_len``).
    method : {"6ND", "detailed"}
        ``"6ND"``: 6·N·D (Kaplan et al. 2020 §2.1) with N = active parameters, embeddings
        included. ``"detailed"``: exact matmul + attention count per token × D.
    causal : bool
        Attention mask convention for ``"detailed"`` (see ``ModelSpec.mean_attended_keys``).
    recompute : {"none", "selective", "full"}
        For ``"detailed"`` only: count recomputed FLOPs (hardware FLOPs, for HFU).

    Returns
    -------
    float or ndarray
        FLOP.

    Raises
    ------
    ValueError
        Unknown method; non-positive N or D; ``"detailed"`` without a ModelSpec.

    Examples
    --------
    >>> training_flops(70e9, 2e12)    # 70B parameters on 2T tokens
    8.4e+23
    """
    if method not in METHODS:
        raise ValueError(f"method={method!r} must be one of {METHODS}")
    check_count_conventions(seq_len, causal)
    d = as_array(n_tokens, "n_tokens", positive=True)
    if isinstance(model_or_n_params, str):
        model_or_n_params = as_model(model_or_n_params, "model_or_n_params")
    if isinstance(model_or_n_params, ModelSpec):
        model = model_or_n_params
        if method == "6ND":
            if recompute != "none":
                raise ValueError("recompute applies to method='detailed' only (6ND counts model "
                                 "FLOPs)")
            return finite_result(scalar_or_array(6.0 * model.n_active_params * d), "6·N·D",
                                 "n_tokens")
        with np.errstate(over="ignore", invalid="ignore"):  # reported by finite_result
            per_token = np.asarray(model.flops_per_token(seq_len, training=True, causal=causal,
                                                         recompute=recompute))
            broadcast_together(seq_len=per_token, n_tokens=d)
            return finite_result(scalar_or_array(per_token * d), "the FLOP count",
                                 "n_tokens × FLOPs per token (seq_len)")
    if method == "detailed":
        raise ValueError(f"model_or_n_params={model_or_n_params!r}: method='detailed' needs a "
                         "ModelSpec (load_model(name)), not a parameter count")
    if recompute != "none":
        raise ValueError(f"recompute={recompute!r} needs method='detailed' and a ModelSpec: 6ND "
                         "counts model FLOPs, with no recomputation")
    n = as_array(model_or_n_params, "model_or_n_params", positive=True)
    broadcast_together(model_or_n_params=n, n_tokens=d)
    with np.errstate(over="ignore"):
        return finite_result(scalar_or_array(6.0 * n * d), "6·N·D", "model_or_n_params × n_tokens")


def gpu_seconds(flops, accelerator, mfu, dtype: str = "bf16"):
    """Accelerator-seconds to execute ``flops`` model FLOPs at a given MFU.

    Parameters
    ----------
    flops : float or array
        Model FLOPs (no recomputation; that is what MFU is defined against), on the count the
        MFU is stated on: this workbook's MFUs count the full attention matrix
        (``training_flops(..., method="detailed", causal=False)``, ``model_flops_per_token``);
        the detailed count's own default is causal (``training_flops(..., method="detailed")``,
        ``ModelSpec.flops_per_token``), which gives fewer GPU-hours at one MFU, 1.7× fewer at
        131,072 tokens for Llama 3.1 8B (a trial's script mixed the two), and ``training_flops``'
        default, 6·N·D, counts no attention core at all.
    accelerator : Accelerator or str or float
        A device (or its catalogue name) whose dense peak for ``dtype`` is used, or a peak
        FLOP/s directly.
    mfu : float or array in (0, 1]
        Model FLOPs utilisation.
    dtype : str
        Compute format for the peak (``"bf16"``, ``"fp8"``, ...).

    Returns
    -------
    float or ndarray: GPU-seconds = flops / (peak × mfu).

    Raises
    ------
    ValueError
        If ``flops`` is negative, ``mfu`` is outside (0, 1], or the device has no ``dtype`` peak.
    """
    c = as_array(flops, "flops", nonnegative=True)
    peak, m = _peak(accelerator, dtype), _mfu(mfu)
    broadcast_together(flops=c, accelerator=peak, mfu=m)
    with np.errstate(over="ignore"):  # an overflow is reported by finite_result
        return finite_result(scalar_or_array(c / (peak * m)), "GPU-seconds",
                             "flops ÷ (peak × mfu)")


def gpu_hours(flops, accelerator, mfu, dtype: str = "bf16"):
    """Accelerator-hours: ``gpu_seconds(...) / 3600``. Same parameters and errors."""
    return scalar_or_array(np.asarray(gpu_seconds(flops, accelerator, mfu, dtype))
                           / SECONDS_PER_HOUR)


def wall_clock_s(flops, accelerator, mfu, n_gpus, dtype: str = "bf16"):
    """Wall-clock seconds on ``n_gpus`` accelerators at a steady MFU (no failures or restarts).

    Parameters as ``gpu_seconds``, plus ``n_gpus`` (int or array, >= 1).
    """
    n = as_array(n_gpus, "n_gpus", positive=True, integer=True)
    return scalar_or_array(np.asarray(gpu_seconds(flops, accelerator, mfu, dtype)) / n)


def compute_cost_usd(gpu_hours_, price_usd_per_gpu_hour):
    """Compute cost = GPU-hours × price per GPU-hour (USD).

    Raises
    ------
    ValueError
        If GPU-hours are negative or the price is not positive.
    """
    h = as_array(gpu_hours_, "gpu_hours_", nonnegative=True)
    p = as_array(price_usd_per_gpu_hour, "price_usd_per_gpu_hour", positive=True)
    broadcast_together(gpu_hours_=h, price_usd_per_gpu_hour=p)
    with np.errstate(over="ignore"):  # an overflow is reported by finite_result
        return finite_result(scalar_or_array(h * p), "the cost",
                             "gpu_hours_ × price_usd_per_gpu_hour")


def model_flops_per_token(model, seq_len=None, method: str = MFU_METHOD,
                          causal: bool = MFU_CAUSAL):
    """Model FLOPs per training token under a counting method (6·N_active or detailed); the
    defaults give the workbook's MFU basis.

    ``model`` is a ModelSpec or a catalogue name; with ``method="6ND"`` a bare count of active
    parameters N also works (6·N). Anything else raises a ValueError naming ``model``."""
    if method not in METHODS:
        raise ValueError(f"method={method!r} must be one of {METHODS}")
    check_count_conventions(seq_len, causal)
    if method == "6ND":
        if isinstance(model, ModelSpec) or isinstance(model, str):
            return 6.0 * _spec(model).n_active_params
        with np.errstate(over="ignore"):  # an overflow is reported by finite_result
            return finite_result(scalar_or_array(6.0 * as_array(model, "model", positive=True)),
                                 "6·N", "model")
    with np.errstate(over="ignore", invalid="ignore"):  # reported by finite_result
        return finite_result(_spec(model, needs=f"method={method!r}").flops_per_token(
            seq_len, training=True, causal=causal), "the FLOPs per token", "model × seq_len")


def mfu_from_throughput(tokens_per_s_per_gpu, model: ModelSpec, accelerator, seq_len=None,
                        dtype: str = "bf16", method: str = MFU_METHOD,
                        causal: bool = MFU_CAUSAL):
    """MFU implied by a measured training throughput (calibration from a pilot run).

    MFU = tokens/s per GPU × model FLOPs per token ÷ dense peak (PaLM, Chowdhery et al. 2022,
    App. B). With ``method="detailed", causal=False`` the FLOPs per token are PaLM's
    6N + 12·L·H·Q·T with N the matmul parameters: the input embedding, a lookup and no matmul,
    left out of N (Llama 2 70B: 0.35% fewer than 6 × all parameters).

    Parameters
    ----------
    tokens_per_s_per_gpu : float or array
        Measured training throughput per accelerator.
    model : ModelSpec
    accelerator : Accelerator or str or float
        Device, catalogue name or peak FLOP/s.
    seq_len : int, optional
        Training context (default: the model's).
    dtype : str
        Compute format of the peak.
    method : {"6ND", "detailed"}
    causal : bool
        Attention mask convention for ``"detailed"`` (default: the workbook's MFU basis,
        full mask).

    Returns
    -------
    float or ndarray: MFU in (0, 1].

    Raises
    ------
    ValueError
        A throughput above the dense peak (MFU > 1: inconsistent inputs, often a per-GPU rate
        given per node), or a bare parameter count with ``method="detailed"``.
    """
    t = as_array(tokens_per_s_per_gpu, "tokens_per_s_per_gpu", positive=True)
    mfu, fpt, peak = _throughput_mfu(t, model, accelerator, seq_len, dtype, method, causal)
    check_implied_mfu(mfu, t, "tokens_per_s_per_gpu",
                      _subject(model, accelerator, seq_len, dtype),
                      "at most {} tokens/s per GPU reach it (often a per-node or per-replica "
                      "rate given per GPU)", peak / fpt)
    return scalar_or_array(mfu)


def check_implied_mfu(mfu, given, field: str, subject: str, bound: str, bound_value) -> None:
    """The one rule of an MFU inferred from a measurement (``mfu_from_throughput``,
    ``mfu_from_gpu_hours``): at most 1, since no GPU does more model FLOPs than its dense peak
    (Chowdhery et al. 2022 App. B define MFU as a fraction of that peak), and above 0 (an input
    so small that the ratio underflows is refused too). An implied MFU above 1
    means inconsistent inputs, and is refused with a ValueError naming ``field``, its first
    offending value, the MFU it implies, ``subject`` (model, accelerator, sequence length) and
    ``bound`` filled with that element of ``bound_value`` (what the peak allows)."""
    mfu = np.asarray(mfu)
    if np.any(mfu <= 0):  # a subnormal input: the ratio underflows
        value = float(np.broadcast_to(given, mfu.shape)[mfu <= 0].flat[0])
        raise ValueError(f"{field}={value:g} implies an MFU of 0 for {subject} (below the "
                         "smallest double): an MFU must be > 0")
    bad = mfu > 1
    if not np.any(bad):
        return
    i = int(np.argmax(bad.ravel()))
    value = float(np.broadcast_to(given, bad.shape).ravel()[i])
    limit = float(np.broadcast_to(bound_value, bad.shape).ravel()[i])
    raise ValueError(f"{field}={value:,.6g} is impossible for {subject}: it implies an MFU of "
                     f"{float(mfu.ravel()[i]):,.3g}, and an MFU must be at most 1 (no GPU does "
                     f"more model FLOPs than its dense peak); "
                     + bound.format(f"{limit:,.0f}" if limit >= 1000 else f"{limit:.3g}"))


def _subject(model, accelerator, seq_len, dtype) -> str:
    """What an implied MFU is about, for its error message: the model, the accelerator and its
    dense ``dtype`` peak, and the sequence length when one is given."""
    name = model.name if isinstance(model, ModelSpec) else (
        model if isinstance(model, str) else "the given parameter count")
    acc = f"{accelerator.name}'s dense {dtype} peak" if isinstance(accelerator, Accelerator) \
        else (f"{accelerator}'s dense {dtype} peak" if isinstance(accelerator, str)
              else f"a dense peak of {float(np.max(_peak(accelerator, dtype))):.4g} FLOP/s")
    seq = "" if seq_len is None else (
        f" at seq_len={float(np.asarray(seq_len).ravel()[0]):,.6g}" if np.ndim(seq_len) == 0
        else " at the given seq_len")
    return f"{name} on {acc}{seq}"


def _throughput_mfu(t, model, accelerator, seq_len, dtype, method, causal):
    """``(MFU, FLOPs per token, peak)`` of throughput ``t``: t · F(s) ÷ P (``mfu_from_throughput``
    without its check that the MFU is at most 1)."""
    fpt = np.asarray(model_flops_per_token(model, seq_len, method, causal))
    peak = _peak(accelerator, dtype)
    return t * fpt / peak, fpt, peak


def mfu_from_gpu_hours(n_tokens, reported_gpu_hours, model: ModelSpec, accelerator,
                       seq_len=None, dtype: str = "bf16", method: str = MFU_METHOD,
                       causal: bool = MFU_CAUSAL):
    """Whole-run MFU implied by reported GPU-hours: training FLOPs ÷ (GPU-seconds × peak),

        MFU = D · F(s) / (H · 3600 · P),

    with D = ``n_tokens``, F(s) = ``model_flops_per_token(model, seq_len, method, causal)``
    (6·N_active for ``method="6ND"``), H = ``reported_gpu_hours`` and P the dense ``dtype`` peak
    (the inverse of ``gpu_hours``; Chowdhery et al. 2022 App. B).

    This is a *whole-run* utilisation: failures, restarts, evaluation and idle time reported in
    the GPU-hours all lower it below the steady-state MFU.

    Parameters
    ----------
    n_tokens : float or array
        Training tokens.
    reported_gpu_hours : float or array
        Accelerator-hours the run used.
    model, accelerator, seq_len, dtype, method, causal
        As ``mfu_from_throughput``.

    Returns
    -------
    float or ndarray: implied MFU.

    Raises
    ------
    ValueError
        Hours too few for the tokens (an MFU above 1, the rule ``mfu_from_throughput`` applies:
        the message gives the GPU-hours the dense peak needs), or inputs whose FLOP count
        overflows.
    """
    d = as_array(n_tokens, "n_tokens", positive=True)
    h = as_array(reported_gpu_hours, "reported_gpu_hours", positive=True)
    broadcast_together(n_tokens=d, reported_gpu_hours=h)
    mfu, flops, peak = _gpu_hours_mfu(d, h, model, accelerator, seq_len, dtype, method, causal)
    tokens = f"n_tokens={float(d):,.6g} of " if np.ndim(d) == 0 else ""
    check_implied_mfu(mfu, h, "reported_gpu_hours",
                      tokens + _subject(model, accelerator, seq_len, dtype),
                      "training them at the dense peak takes at least {} GPU-hours",
                      flops / (SECONDS_PER_HOUR * peak))
    return scalar_or_array(mfu)


def _gpu_hours_mfu(d, h, model, accelerator, seq_len, dtype, method, causal):
    """``(MFU, FLOPs, peak)`` of ``d`` tokens in ``h`` GPU-hours: D·F(s) ÷ (H·3600·P)
    (``mfu_from_gpu_hours`` without its check that the MFU is at most 1)."""
    peak = _peak(accelerator, dtype)
    with np.errstate(over="ignore", invalid="ignore"):  # reported by finite_result
        flops = finite_result(np.asarray(model_flops_per_token(model, seq_len, method, causal))
                              * d, "the FLOP count", "n_tokens × FLOPs per token")
        capacity = finite_result(h * SECONDS_PER_HOUR * peak,
                                 "the GPU FLOP capacity", "reported_gpu_hours × peak")
        return flops / capacity, flops, peak


class HfuAbovePeak(ValueError):
    """``hfu_from_mfu``'s refusal of an MFU whose hardware FLOPs, recomputation counted, would
    exceed the peak: a ValueError its callers can tell from the others."""


def hfu_from_mfu(mfu, model: ModelSpec, seq_len=None, recompute: str = "full",
                 causal: bool = MFU_CAUSAL):
    """Hardware FLOPs utilisation for a run at ``mfu`` that recomputes activations.

    HFU = MFU × hardware FLOPs per token ÷ model FLOPs per token (Chowdhery et al. 2022 §4.1).
    Full recomputation of every layer makes HFU ≈ 4/3 × MFU (Narayanan et al. 2021's 96/72).

    Selective recomputation here re-executes the attention core's forward once (the operations
    Korthikanti et al. 2022 §5 recompute). Korthikanti et al.'s own HFU (App. A,
    72·B·s·l·h²·(1 + s/(3h) + V/(12·l·h))) doubles the whole attention term instead, so their
    published HFU is about 1 point higher than this function gives for the same MFU
    (175B: 52.8% vs 51.9%); tests/test_compute.py shows both.

    Returns
    -------
    float or ndarray.

    Raises
    ------
    HfuAbovePeak (a ValueError)
        An MFU whose HFU would exceed 1 (faster than the hardware's peak), naming the largest
        MFU the recomputation allows.
    ValueError
        As ``_mfu`` and ``check_count_conventions``.
    """
    m = _mfu(mfu)
    model = _spec(model, needs="HFU (recomputed FLOPs)")
    check_count_conventions(seq_len, causal)
    with np.errstate(over="ignore", invalid="ignore"):  # reported by finite_result
        hw = finite_result(np.asarray(model.flops_per_token(
            seq_len, training=True, causal=causal, recompute=recompute)),
            "the FLOPs per token", f"seq_len={seq_len!r}" if np.ndim(seq_len) == 0
            else "seq_len")
        base = np.asarray(model.flops_per_token(seq_len, training=True, causal=causal))
    hfu = m * hw / base
    if np.any(hfu > 1.0):
        # the recomputed FLOPs run on the same peak: an HFU above 1 is a run faster than the
        # hardware (a trial's hfu_from_mfu(0.9, 70B, recompute="full") returned 1.199)
        i = np.unravel_index(np.argmax(hfu), np.shape(hfu)) if np.ndim(hfu) else ()
        ratio = float(np.broadcast_to(hw / base, np.shape(hfu))[i])
        raise HfuAbovePeak(f"mfu={float(np.broadcast_to(m, np.shape(hfu))[i]):.3g} with "
                         f"recompute={recompute!r} gives an HFU of {float(hfu[i]):.3g} (MFU × "
                         f"{ratio:.3f}, the recomputed FLOPs): above the peak; with that "
                         f"recomputation the MFU is at most {1 / ratio:.1%}")
    return scalar_or_array(hfu)


def training_run(model: ModelSpec, accelerator: Accelerator, n_tokens, mfu, n_gpus,
                 price_usd_per_gpu_hour, seq_len=None, dtype: str = "bf16",
                 method: str = MFU_METHOD, causal: bool = MFU_CAUSAL) -> dict:
    """The first ledger line in one call: FLOPs, GPU-hours, wall-clock days and cost.

    The formulas, with D = ``n_tokens``, N = the active parameters, s = ``seq_len``, L layers,
    h_q·d_head = the query width, P = the dense ``dtype`` peak FLOP/s of ``accelerator``:

    * training FLOPs (headline, papers' convention): C_6ND = 6·N·D (Kaplan et al. 2020 §2.1:
      2 FLOP per weight forward, 4 backward);
    * model FLOPs (the MFU basis): C_model = D · F_model(s), with F_model(s) =
      ``ModelSpec.flops_per_token(s, causal=False)`` = 6·(matmul weights a token passes through)
      + 6·L·h_q·(d_qk + d_v)·s (the attention core over the full s×s matrix, 12·L·h_q·d_head·s
      where d_qk = d_v = d_head; PaLM, Chowdhery et al. 2022 App. B: 6N + 12·L·H·Q·T);
    * GPU-hours = C_model / (P · MFU · 3600) (Narayanan et al. 2021 §5.1 Eq. 4,
      t ≈ 8·T·N/(n·X) with X the hardware FLOP/s under full recomputation, written with model
      FLOPs and MFU: 6·T·N/(n·P·MFU) without recomputation);
    * wall-clock = GPU-hours · 3600 / n_gpus (no failures, restarts or evaluation);
    * compute cost = GPU-hours × ``price_usd_per_gpu_hour``.

    Which count feeds which number: C_6ND is reported (compute-optimal fits and papers quote it);
    GPU-hours, wall-clock and cost come from C_model, because a published MFU is a fraction of
    peak measured in that count, and hours = C / (P·MFU) holds only when C and MFU share a basis.
    (A causal kernel executes about half the attention core; its utilisation measured in the
    causal count is lower by the same ratio, and the hours come out the same.)

    Parameters
    ----------
    model : ModelSpec
    accelerator : Accelerator
    n_tokens, mfu, n_gpus, price_usd_per_gpu_hour : float or array
        Training tokens, steady-state MFU in (0, 1], accelerators in the job, USD per GPU-hour.
    seq_len, dtype
        As ``training_flops`` and ``gpu_seconds``.
    method, causal
        The FLOP count the ``mfu`` is measured in (default: the workbook's MFU basis, detailed
        with a full attention mask; see the module docstring).

    Returns
    -------
    dict with ``training_flops_6nd`` (the headline 6·N·D), ``model_flops`` (the count on the MFU
    basis), ``gpu_hours``, ``wall_clock_s``, ``wall_clock_days``, ``compute_cost_usd`` (floats or
    arrays, broadcast together), plus ``method``, ``causal``, ``dtype`` and
    ``peak_flops_per_s``.
    """
    model = _spec(model, needs="training_run")
    accelerator = as_accelerator(accelerator)
    flops = training_flops(model, n_tokens, seq_len, method, causal)
    hours = gpu_hours(flops, accelerator, mfu, dtype)
    wall = wall_clock_s(flops, accelerator, mfu, n_gpus, dtype)
    return {
        "training_flops_6nd": training_flops(model, n_tokens),
        "model_flops": flops,
        "gpu_hours": hours,
        "wall_clock_s": wall,
        "wall_clock_days": scalar_or_array(np.asarray(wall) / 86400.0),
        "compute_cost_usd": compute_cost_usd(hours, price_usd_per_gpu_hour),
        "method": method,
        "causal": causal,
        "dtype": dtype,
        "peak_flops_per_s": accelerator.peak_flops_per_s(dtype),
    }


def published_run_mfu(runs=None):
    """Implied MFU of the published runs that name a catalogue model and accelerator.

    For each run with reported GPU-hours, the whole-run MFU they imply (6ND, and the detailed
    count of the MFU basis: full attention mask); for each run with a reported throughput, the
    steady-state MFU it implies; and the MFU the authors reported, where they did. Every MFU is
    on the dense BF16 peak, so a run that trained in FP8 can exceed 1 on it: NVIDIA's
    Megatron-Bridge 26.04 Llama 3 70B on 64 GB300 in FP8 ran 5,243 tokens/s and 2,355 model
    TFLOP/s per GPU (0.94 of the 2.5 PFLOP/s BF16 peak by NVIDIA's count; 1.01 by the full-mask
    count), about half of the FP8 peak (``mfu_from_throughput``, which refuses an MFU above 1 as
    an input error, is not used here). A throughput that only restates the GPU-hours
    (tokens ÷ (GPU-hours × 3600) within 0.01%: DeepSeek-V3's 180K H800 GPU-hours per trillion
    tokens, a whole-run average) is not a steady state: its throughput MFU is left empty, the
    GPU-hours column holding it.

    Parameters
    ----------
    runs : DataFrame, optional
        Rows shaped like ``load_published_runs()`` (the default).

    Returns
    -------
    DataFrame, one row per usable run: ``run_id``, ``model``, ``accelerator``, ``train_tokens``,
    ``reported_gpu_hours``, ``mfu_from_gpu_hours_6nd``, ``mfu_from_gpu_hours_detailed``,
    ``mfu_from_throughput_6nd``, ``mfu_from_throughput_detailed``, ``reported_mfu``.
    """

    runs = as_published_runs(runs)
    out = []
    for r in runs.itertuples():
        if not isinstance(r.catalog_model, str) or not isinstance(r.catalog_accelerator, str):
            continue
        has_hours = r.reported_gpu_hours == r.reported_gpu_hours and r.train_tokens == \
            r.train_tokens
        tput = r.reported_tokens_per_sec_per_gpu
        has_tput = tput == tput and not (has_hours and _restates_hours(r))
        if not (has_hours or has_tput):
            continue
        model = load_model(r.catalog_model)
        acc = load_accelerator(r.catalog_accelerator)
        seq = int(r.seq_len) if r.seq_len == r.seq_len else model.seq_len
        row = {"run_id": r.run_id, "model": model.name, "accelerator": acc.name,
               "seq_len": seq, "train_tokens": r.train_tokens,
               "reported_gpu_hours": r.reported_gpu_hours}
        for method in METHODS:
            key = "6nd" if method == "6ND" else "detailed"
            row[f"mfu_from_gpu_hours_{key}"] = float(_gpu_hours_mfu(
                as_array(r.train_tokens, "train_tokens", positive=True),
                as_array(r.reported_gpu_hours, "reported_gpu_hours", positive=True), model, acc,
                seq, "bf16", method, MFU_CAUSAL)[0]) if has_hours else float("nan")
            row[f"mfu_from_throughput_{key}"] = float(_throughput_mfu(
                tput, model, acc, seq, "bf16", method, MFU_CAUSAL)[0]) if has_tput else \
                float("nan")
        row["reported_mfu"] = r.reported_mfu
        out.append(row)
    return pd.DataFrame(out)


def _restates_hours(r) -> bool:
    """True when a published run's throughput per GPU is its GPU-hours restated: tokens ÷
    (GPU-hours × 3600) within 0.01% (``published_run_mfu``; LLaMA 65B's independent 380
    tokens/s and 1,022,362 GPU-hours differ by 0.1%)."""
    whole = r.train_tokens / (r.reported_gpu_hours * SECONDS_PER_HOUR)
    return abs(r.reported_tokens_per_sec_per_gpu / whole - 1.0) < 1e-4


def flops_per_token_conventions(model: ModelSpec, seq_len=None):
    """Training FLOPs per token of one model under the conventions found in the literature.

    Returns
    -------
    DataFrame with ``convention``, ``flops_per_token``, ``ratio_to_6nd`` and ``used_by``:
    6·N_active (Hoffmann et al. 2022, Llama 3); 6·N non-embedding (Kaplan et al. 2020 §2.1);
    detailed with a causal mask (the detailed count's default, ``ModelSpec.flops_per_token``);
    detailed with a full mask (the MFU basis of this workbook's GPU-hours; the Megatron-LM paper,
    Narayanan et al. 2021, PaLM App. B, torchtitan); detailed with full recomputation (hardware
    FLOPs, Narayanan et al. 2021's 96-form, for HFU).
    """
    model = as_model(model, needs="the conventions table")
    s = model.seq_len if seq_len is None else seq_len
    six = 6.0 * model.n_active_params
    nonemb = 6.0 * (model.n_active_params - model.n_embedding_params)
    rows = [
        ("6·N (active parameters, embeddings included)", six,
         "Hoffmann et al. 2022; Llama 3 report (3.8e25)"),
        ("6·N (non-embedding parameters)", nonemb, "Kaplan et al. 2020 §2.1"),
        ("detailed, causal mask", model.flops_per_token(s, causal=True),
         "the detailed count's default (causal=True); FlashAttention causal kernels"),
        ("detailed, full s×s mask", model.flops_per_token(s, causal=False),
         "the MFU basis of the bill's GPU-hours; Megatron's MFU (Korthikanti et al. 2022, "
         "App. A Eq. 7); PaLM MFU (App. B); torchtitan"),
        ("detailed, full mask + full recomputation", model.flops_per_token(
            s, causal=False, recompute="full"), "hardware FLOPs for HFU (Megatron's 96-form)"),
    ]
    df = pd.DataFrame(rows, columns=["convention", "flops_per_token", "used_by"])
    df.insert(2, "ratio_to_6nd", df["flops_per_token"] / six)
    return df


def catalogue_training_costs(accelerator: Accelerator, mfu: float,
                             price_usd_per_gpu_hour: float, dtype: str = "bf16"):
    """Training FLOPs (6ND), GPU-hours and compute cost of every catalogue model on its published
    token count (at its pre-training ``seq_len``), all on one accelerator at one MFU and price (a
    like-for-like comparison, not the hardware each model was trained on). GPU-hours use the MFU
    basis (detailed, full mask).

    Returns
    -------
    DataFrame sorted by FLOPs: ``model``, ``n_active_params``, ``train_tokens``,
    ``tokens_per_param``, ``training_flops``, ``gpu_hours``, ``compute_cost_usd``.
    """

    rows = []
    for name in list_models()["name"]:
        m = load_model(name)
        if not m.train_tokens:
            continue
        flops = training_flops(m, m.train_tokens)
        hours = gpu_hours(training_flops(m, m.train_tokens, method=MFU_METHOD,
                                         causal=MFU_CAUSAL), accelerator, mfu, dtype)
        rows.append({"model": m.name, "n_active_params": m.n_active_params,
                     "train_tokens": m.train_tokens,
                     "tokens_per_param": m.train_tokens / m.n_active_params,
                     "training_flops": flops, "gpu_hours": hours,
                     "compute_cost_usd": compute_cost_usd(hours, price_usd_per_gpu_hour)})
    return pd.DataFrame(rows).sort_values("training_flops").reset_index(drop=True)


def tokens_per_s_per_gpu_at_mfu(mfu, model: ModelSpec, accelerator, seq_len=None,
                                dtype: str = "bf16", method: str = MFU_METHOD,
                                causal: bool = MFU_CAUSAL):
    """The training throughput (tokens/s per GPU) that a given MFU corresponds to: the inverse
    of ``mfu_from_throughput`` (what a pilot run must measure to reach that MFU)."""
    m = _mfu(mfu)
    fpt = np.asarray(model_flops_per_token(model, seq_len, method, causal))
    return scalar_or_array(m * _peak(accelerator, dtype) / fpt)
