"""Calibrate the step-time model on a pilot run, then extrapolate to the full run with a band.

Budgeting guides say: measure a small pilot, then scale the estimate up. Copying the pilot's
MFU to the full run assumes MFU does not change between 64 GPUs with one plan and 4,096 with
another; fitting one compute factor and applying it everywhere assumes the model's error does not
change with scale or plan, which the published scaling series contradict (Narayanan et al. 2021
Table 2's DeepSpeed ZeRO-3 rows: the model's error goes from +12 % at 384 GPUs to -1 % at 768).
So this module models **what a pilot identifies and what it does not**:

* ``calibrate(pilots)``: one pilot identifies a **compute factor** ``c`` (the kernels' sustained
  rates: the matmul, attention and memory-bound fractions of the ``Efficiency`` × ``c ** a_j``,
  ``a_j`` how much of the pilot's step the class takes relative to its main class,
  ``kernel_exposure``: a class the pilot barely ran keeps its catalogue rate,
  ``scaled_efficiency``), solved so that the engine's step time on the pilot's plan equals the
  measured one: ``step_time(model, cluster, plan; Efficiency(fractions × c ** a)) =
  tokens_per_step / (tokens_per_s_per_gpu × n_gpus)``, at most the factor that brings the
  pilot's main kernel class (``kernel_exposure``) to its datasheet rate: what a pilot is faster
  than that is a structural
  error of the model at the pilot's plan (FLOP count, recomputation), reported and not carried
  (the bound's factor is). Two pilots at different scales whose plans exercise the
  scale-out network (data-parallel or ZeRO-3 traffic across nodes) identify also a **scale-out
  factor** ``k`` (the achieved bus bandwidth × k): two equations, two unknowns. A pilot inside
  one scale-up domain says nothing about the network: the factor stays 1 and is listed as not
  identified.
* ``extrapolate(calibration, target)``: the engine on the target plan with the calibrated
  ``Efficiency``; the pilot's correction is transferred in proportion to how much the target
  shares the pilot's kernels: a target with the same micro-batch shape, recomputation and tensor
  parallelism keep more of it than a target with other kernels (``transfer_weight``: a
  residual small against the model's pilot-to-target drift, ``PILOT_DRIFT``, is shrunk to
  nothing, so is any residual carried to a kind of target whose drift exceeds the spread of
  the pilots' residuals over the published series (targets running other kernels), and the
  drift widens with each doubling of the sequence length between the pilot and the target,
  ``drift_at``; the mean residual of n pilots with distinct kernels drifts by σ ÷ √n, so a
  scaling test whose pilots agree carries more of it; a pilot across the scale-out network that no
  second scale separated from its kernels carries less the more the target's step differs from
  its own in make-up, ``network_shift``: Narayanan et al. 2021 Table 2's ZeRO-3 rows, where the
  model's error changes sign with scale, carry nothing). The band grows with what the
  pilot did not exercise (``novelties``: scale ratio, new parallel dimensions, scale-out added,
  another model, recomputation; and each doubling of the sequence length) and is sized from the
  published scaling series (``BAND_HALF_WIDTH``, ``BAND_PER_SEQ_DOUBLING``,
  ``benchmarks/validate_pilot.py``, ``pilot_validation.fit_band``).
* ``pilot_study(scenario)``: the scenario's pilot (``ledger_pilot_tokens_per_s_per_gpu`` at
  ``ledger_pilot_n_gpus``), or an illustrative one carrying a published run's measured ÷
  predicted MFU to the scenario's plan (``_illustrative_calibration``), extrapolated to the
  scenario's plan with the main run's GPU-hours and compute cost and their band (notebook 04b).
* Your own GPU: ``run_microbench`` times BF16 and FP8 GEMMs, a causal attention and an HBM copy
  with PyTorch (``llmcost calibrate --microbench``), ``parse_mamf_log`` reads a log of stas00's
  mamf-finder; ``efficiency_from_microbench`` / ``efficiency_from_mamf_log`` turn them into the
  ``Efficiency`` fractions, ``microbench_profile`` / ``mamf_profile`` into an efficiency profile
  the step model reads (``efficiency_profile``, the scenario key ``efficiency_profile``).

Convention: MFU on the workbook's basis (model FLOPs with a full attention mask, no recomputation,
``ModelSpec.flops_per_token(causal=False)``, over the dense peak of the GEMM dtype); a printed MFU
on another basis is converted with the model's FLOP counts (``MFU_BASES``).
"""

from __future__ import annotations

import dataclasses
import datetime
import importlib
import importlib.util
import math
import numbers
import os
import re
import warnings
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from ..core.catalog import (
    as_accelerator,
    as_model,
    list_accelerators,
    load_accelerator,
    load_model,
    load_published_runs,
    scenario_accelerator,
)
from ..core import stacks
from ..core.hardware import Cluster, DoesNotFit, Efficiency
from ..core.model import ModelSpec
from ..core.units import fmt_gpus, noun
from . import memory, step, step_scenario, step_validation
from .accuracy import BLACKWELL_ULTRA, gpu_generation, published_ceiling, same_chip_class
from .efficiency_profile import (
    PROFILE_KIND,
    load_efficiency_profile,  # noqa: F401 (calibrate.load_efficiency_profile)
)
from .options import StepOptions, stack_memory_practice
from .parallel import (
    PLAN_PARAMETER_FIELDS,
    ParallelPlan,
    etp_of_key,
    make_plan,
    plan_from_parameters,
)
from .ranking import time_ranking

#: FLOP conventions a framework may print its MFU on: ``full`` (the workbook's: full attention
#: mask, no recomputation; Korthikanti et al. 2022 Eq. 7; torchtitan and llm-foundry count it),
#: ``causal`` (causal mask: Megatron-LM from Megatron-Core 0.12.0, Megatron-Bridge, NeMo from
#: 2025-08, ``llmcost.model``) and ``hfu_full`` (counting the recomputed forward of full
#: recomputation: Narayanan et al. 2021 Eq. 3).
MFU_BASES = ("full", "causal", "hfu_full")

#: How far the model's error drifts between a pilot and a target of the same series (RMS of
#: log(published ÷ predicted MFU) at the target minus the same at the pilot, uncalibrated
#: engine), for targets that run the pilot's kernels (``same_kernels``) and for the others
#: (``other_kernels``), and how much more per doubling of the sequence length between the pilot
#: and a target (``per_seq_doubling``: RMS of the drift beyond ``other_kernels`` per doubling;
#: ``drift_at``; ``pilot_validation.drift_of``).
#: ``pilot_residual_var`` is the spread of the pilots' own residuals over the series, ``S ÷
#: (k − 2)``, the reciprocal of Efron & Morris's (1973) unbiased estimate ``(k − 2) ÷ S`` of
#: ``1 ÷ E[r²]``, with ``S`` the sum of the ``k`` series' squared pilot residuals
#: ``r = ln(measured ÷ predicted MFU)`` (``pilot_validation.drift_of``): what a
#: correction the size of a typical pilot's is worth against the drift (``transfer_weight``).
#: Measured on the published scaling series by ``benchmarks/validate_pilot.py`` (item 0, which
#: re-measures them and judges the rule leave-one-series-out). A pilot residual within this drift
#: is weak evidence of a systematic error, so its correction is shrunk (``transfer_weight``).
#: Re-measured after Megatron-Bridge 26.04's and 26.06's series and Transformer Engine's FP8
#: casts (0.054 / 0.172 / 0.020 / 0.0174 before; 37 series, 155 targets), and again after
#: Blackwell's attention was priced at cuDNN's measured rates and FSDP2's copies were priced
#: (the pilots' spread 0.0178 -> 0.0152), and after Megatron-Bridge 26.02, 26.02.01, 26.04.01
#: and 26.06.01's series (48 series, 166 targets: 0.055 / 0.170 / 0.020 / 0.0152 before), and
#: after 26.02.01's GB300 Llama 3 70B MXFP8 row was priced with its tag recipe's plan (MBS 1,
#: VP 5) instead of its table line's, and after PyTorch FSDP's one backward all-gather under full
#: recomputation (``stacks.Stack.recompute_regathers``) (0.071 / 0.167 / 0.021 / 0.0164 before),
#: and after Composer's FSDP backward prefetch (BACKWARD_POST, ``comm.fsdp_exposure``) was priced
#: on llm-foundry's 2023 runs (0.056 / 0.166 / 0.021 / 0.0138 before), and after NeMo's
#: long-sequence rows were read on their tokens/s and full-mask FLOP count, 26.02.01's GB300
#: Llama 3.1 405B row on its tag recipe's plan and the expert bias's backward copy was priced
#: (0.058 / 0.156 / 0.017 / 0.0128 before), and after PyTorch's context-parallel ring was priced
#: compiled on torchtitan's CP rows (``StepOptions.cp_ring_compiled``: its exchanges exposed;
#: 0.058 / 0.155 / 0.017 / 0.0126 before), and after llm-foundry's FlashAttention-1 attention
#: was priced by length at each row's head dimension (``StepOptions.fa1_length``; 0.058 / 0.154
#: / 0.017 / 0.0126 before), and after GB300's GEMMs were priced by the Blackwell per-shape table
#: as GB200's are (``gemm.GEMM_FAMILY``; 0.060 / 0.111 / 0.019 / 0.0110 before), and after
#: llm-foundry's two A100 MPT-70B rows (MP Mode PURE) were priced with a bf16 gradient reduce and
#: Megatron-Bridge 26.02.01's GB300 Qwen3-235B-A22B line, 26.02's copied figure for figure, was
#: left out (per-sequence-doubling drift 0.018503 -> 0.018499, across the rounding), and after
#: Hopper's backward split accumulator was priced at its measured share ratio
#: (``gemm.FP8_SLOW_ACCUMULATION`` 1.15 -> 1.133; 0.060 / 0.111 / 0.019 / 0.0118 before both),
#: and after llm-foundry's six SHARD_GRAD_OP rows (MPT 1B and 3B at 128-512 H100) joined the
#: table (0.060 / 0.112 / 0.018 / 0.0118 before), and after llm-foundry's unpadded
#: FlashAttention copies were priced (``StepOptions.attention_unpad``; 0.060 / 0.113 / 0.018 /
#: 0.0118 before), and after the attention kernel's curve was priced on the FlashAttention
#: stacks, scaled by a pilot's correction as the flat fraction is, with each target priced at
#: its own stack's rates (``StepOptions.attention_curve="flash"``, ``StepOptions.
#: _attention_scale``, ``extrapolate``; 0.057 / 0.112 / 0.018 / 0.0118 before, 0.056 / 0.110 /
#: 0.018 / 0.0118 while a target of another stack was priced at its pilot's rates):
#: ``tests/test_pilot_study.py`` holds each figure to the measurement.
PILOT_DRIFT = {"same_kernels": 0.061, "other_kernels": 0.113, "per_seq_doubling": 0.018,
               "pilot_residual_var": 0.0118}

#: The lowest compute factor ``calibrate`` searches (a convention of the search, not a measured
#: figure): kernels at 5% of the catalogue's measured rates. A pilot slower than the engine gives
#: there is refused: a throughput 20× below the measured kernels is a unit slip (per step, per
#: node) rather than a kernel rate.
MIN_COMPUTE_FACTOR = 0.05
#: The least scale-out factor ``calibrate`` reports without a warning (``scaleout_warning``): 1/8.
#: The catalogue's scale-out rate is one NIC per GPU (data/accelerators.csv: H100 SXM 50 GB/s =
#: one 400 Gb/s ConnectX-7 per GPU, DGX H100 user guide "8x ConnectX-7"), at its measured
#: fraction (data/efficiency.csv: 48 of 50 GB/s, nccl-tests issue #267). A factor of 1/8 is that
#: NIC shared by a whole 8-GPU node, the thinnest RDMA fabric of an 8-GPU server; a fit below it
#: asks for a network slower than one NIC per node, where a cause the step model does not price
#: at the larger pilot (stragglers, a data-loader or checkpoint stall, NCCL falling back to TCP
#: sockets) is likelier than the fabric's bandwidth. A stated bound, not a measured one; the
#: published scaling series (``pilot_validation.series_table``: each series' two smallest GPU
#: counts as pilots) fit x0.25 (torchtitan's Llama 3.1 8B FP8 on 32 and 64 H200) to x1.04, none
#: below it.
SCALEOUT_FACTOR_FLOOR = 1.0 / 8

#: What a profile records for a device or torch version its mamf-finder log or timing file does
#: not print (it recorded "?"; the CLI words it, ``cli`` "a device the log does not name").
NOT_PRINTED = "unknown"


#: The limited-translation bound of ``transfer_weight``, in drifts: whatever the shrinkage, a
#: pilot's correction is carried but for at most ``D`` × the drift of the mean of its residuals,
#: ``σ ÷ √n`` (Efron & Morris 1972, "Limiting the risk of Bayes and empirical Bayes estimators,
#: Part II: the empirical Bayes case", J. Am. Stat. Assoc. 67(337): the limited-translation
#: estimator, which never moves a component more than ``D`` standard deviations from its own
#: observation, giving up a little of the ensemble's saving for a bound on each component's
#: risk). ``D`` is a choice of the rule, not a measurement, made on the published series
#: (``benchmarks/validate_pilot.py``, measured 2026-12-06, in-sample: every published series
#: has one pilot, so ``n`` and ``shift`` are exercised by the tests alone): at ``D = 1`` the
#: one-scale pilot's mean is lowest (6.93% against 7.05% at 1.5; 6.97% and 7.06% leave one
#: series out) and seven series move closer, but llm-foundry's MPT-760M A100 series (the
#: engine 28% faster than its 8-GPU pilot, ``r = −0.246``) comes out worse than the
#: uncalibrated engine on its mean (7.0% against 5.9%) and the band's leave-one-series-out
#: coverage drops 94.2% -> 93.6%; at ``D = 1.5``, the next half step, no series is worse than
#: with the shrinkage alone and two are closer (that series 5.9% -> 5.4% mean, 18.9% -> 13.5%
#: worst; Megatron-Bridge 26.06's Llama 3.1 405B on GB300 7.0% -> 5.8%), coverage 94.8%; at
#: ``D = 2`` nothing moves. 1.5 is taken: no series made worse, the published goal's rule.
#: What it is for: a pilot farther from the engine than any published one (|r| at most 0.246
#: there) had its whole correction shrunk away from a run of other kernels (a 13B pilot at
#: 22.0% MFU where the engine predicts 39.5%, ``r = −0.585``, priced its run at 53%).
LIMITED_TRANSLATION_D = 1.5


def transfer_weight(residual: float, same: bool, drift: dict | None = None,
                    n_pilots: int = 1, shift: float = 0.0, doublings: float = 0.0) -> float:
    """Share of a pilot's correction carried to a target: a positive-part James-Stein shrinkage
    (Efron & Morris 1973, J. Am. Stat. Assoc. 68(341): ``(1 − B)₊``, ``B`` the estimated share
    of the residual's mean square that is noise),
    ``w = max(0, 1 − σ² ÷ (n min(r², V)) − shift², 1 − D √(σ² ÷ (n r²) + shift²))`` (the
    last term the limited translation below), with ``r = log(measured ÷ predicted MFU)``
    at the pilot (the mean over the pilots when there are several), ``σ`` the pilot-to-target
    drift of the model's error at the target (``drift_at``: ``PILOT_DRIFT`` by whether the target
    runs the pilot's kernels, widened per doubling of the sequence length between them), ``n``
    the number of pilots with distinct kernels (``distinct_kernel_pilots``: the mean of ``n``
    residuals with independent drifts has variance ``σ² ÷ n``) and ``V`` the pilots' residual
    spread over the published series (``PILOT_DRIFT["pilot_residual_var"]``, Efron & Morris's
    ``S ÷ (k − 2)``; absent: ``V = ∞``, the pilot's own ``r²`` alone). With ``n = 1``, ``r² >= V``
    and no shift this is Efron & Morris's rule ``1 − (k − 2)σ² ÷ S``, their ``σ²`` (the noise
    of the pooled residuals) taken as the drift; ``min(r², V)``, ``n`` and ``shift`` are this
    workbook's, not the paper's.

    Two estimates of the same mean square ``E[r²]`` (signal plus drift) enter, and the smaller
    is used, so the larger noise share ``B``: the pilot's own ``r²`` (one degree of freedom: a
    residual within the drift, ``|r| <= σ``, carries nothing) and the empirical-Bayes pooled one
    ``V`` (a class of targets whose drift exceeds the spread of the pilots' residuals
    themselves, ``σ² >= n V``, has no transferable part a pilot could identify, however large
    this pilot's residual: on the published series the targets running other kernels than the
    pilot's drift by 0.113 against pilots spread by √0.0118 = 0.109, and carrying their pilots'
    corrections to them made them worse in sum). That margin is thin: measured 2026-12-06 (with
    the attention kernel's curve on the FlashAttention stacks), the other-kernel drift's square
    is 0.11321² = 0.012817 against ``V`` = 0.011778 (ratio 1.088; the shipped constants 0.113² =
    0.012769 against 0.0118, 1.08), so a re-measurement that moved ``V`` up by about 8.8 %, or
    the drift down by about 4.1 % (1 − 1/√1.088), would start carrying a single pilot's
    correction to targets of other kernels;
    ``tests/test_pilot_study.py`` pins ``other_kernels² > V``.
    The pooled ``V`` alone carried 83 % of a 3 % pilot residual to same-kernel targets when this
    rule was chosen (2026-12-02: ``1 − 0.054² ÷ 0.0174``; 69.5 % with the constants of
    2026-12-05, ``1 − 0.060² ÷ 0.0118``) and made Narayanan et al. 2021 Table 2's GPT 529.6B
    worse; ``r²`` alone carried 39 % of llm-foundry's MPT-760M A100 512-token residual to its
    2,048-token run (``benchmarks/validate_pilot.py``'s docstring).

    A pilot that finds the model 10 % optimistic (``r = ln(0.423 ÷ 0.464) = −0.0925``) carries
    ``1 − 0.061² ÷ 0.00856 = 57 %`` of its correction to a same-kernel target (its own ``r²``,
    below ``V``); one whose |r| is at most 0.061 (about 6.3 %) carries none.

    Why the drift widens with the sequence length: a one-scale pilot at one sequence length times
    the attention kernels at that length only, and the engine's error moves with the sequence
    length (llm-foundry's MPT sweeps on 8 A100s, README at 495218376: at the flat
    FlashAttention-1 rate the engine is 17 % fast at 512 tokens and 14 % slow at 65,536 on the
    125M model, 31 % fast and 20 % slow on the 760M; with the length curve,
    ``StepOptions.fa1_length``, 13 % fast and 3 % slow, 28 % fast and 12 % slow);
    a residual measured at the pilot's length is weaker evidence the farther the target is from
    it (``per_seq_doubling``). Added after the one-scale pilot was seen worse than the
    uncalibrated engine on those two series (its constant measured on every series by
    ``pilot_validation.drift_of`` and re-measured without the series judged).

    ``shift`` (0 by default) is the change in the step's make-up between the pilot and the target
    when the pilot did not separate its kernels from the scale-out network
    (``network_shift``): the residual may then be the network's as much as the kernels', and the
    target sees that unidentified part ``r × shift`` differently from the pilot, a drift of
    variance ``(r × shift)²`` added to ``σ² ÷ n`` (hence ``− shift²`` in ``w``).
    ``doublings``: ``|log2(target sequence ÷ pilot sequence)|`` (``drift_at``).
    Limited translation (``LIMITED_TRANSLATION_D``): the shrinkage takes away at most ``D``
    times the residual's noise, ``√(σ² ÷ n + (r · shift)²)``; ``r = −0.585`` (a pilot far
    outside the published spread) against an other-kernel drift of 0.113 carries
    ``1 − 1.5 × 0.113 ÷ 0.585 = 71%`` (``_transfer_parts``)."""
    return _transfer(residual, same, drift, n_pilots, shift, doublings)[0]


def _transfer(residual, same, drift, n_pilots, shift, doublings) -> tuple:
    """``transfer_weight``'s inputs checked and its weight worked out, with what
    ``extrapolate`` says of it: ``(w, σ, noise, limited)``, ``σ`` the drift (``drift_at``),
    ``noise`` = √(σ² ÷ n + (r · shift)²) and ``limited`` whether the limited translation set a
    positive ``w`` (its term above the shrinkage's)."""
    r = float(residual)
    if not math.isfinite(r):
        raise ValueError(f"residual={residual!r} must be a finite number (the log of measured ÷ "
                         "predicted MFU at the pilot)")
    if isinstance(n_pilots, bool) or int(n_pilots) != n_pilots or n_pilots < 1:
        raise ValueError(f"n_pilots={n_pilots!r} must be a whole number >= 1")
    if isinstance(shift, bool) or not math.isfinite(float(shift)):
        raise ValueError(f"shift={shift!r} must be a finite number")
    d = PILOT_DRIFT if drift is None else drift
    sig = drift_at(same, doublings, d)
    v = float(d.get("pilot_residual_var", math.inf))
    if not v > 0:
        raise ValueError(f"drift['pilot_residual_var']={v!r} must be > 0 (the pilots' residual "
                         "spread, pilot_validation.drift_of)")
    n, sh = int(n_pilots), float(shift)
    noise = math.sqrt(sig ** 2 / n + (r * sh) ** 2)
    if r == 0:
        return 0.0, sig, noise, False
    shrunk, limited = _transfer_parts(r, sig, v, n, sh)
    w = max(0.0, shrunk, limited)
    return w, sig, noise, w > 0 and limited > shrunk


def _transfer_parts(r: float, sig: float, v: float, n: int, shift: float) -> tuple:
    """``transfer_weight``'s two terms, (shrunk, limited): the shrinkage
    ``1 − σ² ÷ (n min(r², V)) − shift²`` and the limited translation
    ``1 − D · noise ÷ |r|``, ``noise = √(σ² ÷ n + (r · shift)²)`` the sd of the residual's part a
    target does not share (the drift of a mean of ``n``, and the network's part the pilot did
    not separate), so both terms count the same noise."""
    shrunk = 1.0 - sig ** 2 / (n * min(r ** 2, v)) - shift ** 2
    limited = 1.0 - LIMITED_TRANSLATION_D * math.sqrt(sig ** 2 / (n * r ** 2) + shift ** 2)
    return shrunk, limited


def drift_at(same: bool, doublings: float = 0.0, drift: dict | None = None) -> float:
    """The pilot-to-target drift ``σ`` of the model's error at a target (``PILOT_DRIFT``):
    ``same_kernels`` for a target running the pilot's kernels, else ``other_kernels +
    per_seq_doubling × doublings``, ``doublings = |log2(target sequence ÷ pilot sequence)|``
    (a target at another sequence length runs other attention kernels, and the engine's error
    moves with each doubling: ``pilot_validation.drift_of`` measures the three)."""
    d = PILOT_DRIFT if drift is None else drift
    x = float(doublings)
    if not math.isfinite(x) or x < 0:
        raise ValueError(f"doublings={doublings!r} must be a finite number >= 0")
    if same:
        return float(d["same_kernels"])
    return float(d["other_kernels"]) + float(d.get("per_seq_doubling", 0.0)) * x


def network_shift(pilot_breakdown, target_breakdown) -> float:
    """How much the step's make-up moves between a pilot and a target, as the pilot's residual
    sees it: ``|ln(ρ)|`` with ``ρ = (compute_s ÷ step_time_s at the target) ÷ (the same at the
    pilot)``, both from the uncalibrated engine (``StepBreakdown.compute_s``: the time a compute
    factor acts on). A calibrated compute factor moves a step's log time in proportion to its
    compute share, so a residual measured at share ``s_p`` and carried to share ``s_t`` is
    rescaled by ``ρ``; when the pilot's residual may as well be the network's
    (``Calibration.network_confounded``), ``|ln ρ|`` is the relative size of the part the pilot
    did not identify at the target (``transfer_weight``'s ``shift``). Narayanan et al. 2021
    Table 2's DeepSpeed ZeRO-3 GPT 529.6B: compute 79 % of the step at 640 GPUs, 43 % at 1,120
    (the exposed ZeRO-3 traffic grows as the micro-batch halves): ``|ln(0.43 ÷ 0.79)| = 0.61``."""
    shares = []
    for name, b in (("pilot_breakdown", pilot_breakdown), ("target_breakdown", target_breakdown)):
        if not isinstance(b, step.StepBreakdown):
            raise ValueError(f"{name}={b!r} must be a StepBreakdown (llmcost.step_time)")
        shares.append(b.compute_s / b.step_time_s if b.step_time_s > 0 else 0.0)
    sp, st = shares
    if not (sp > 0 and st > 0):
        return 0.0
    return abs(math.log(st / sp))


#: Half-width of the band (fraction of the extrapolated MFU) by how many things other than the
#: sequence length the target adds to the pilot (``band_terms``: 0, 1, 2, 3 or more novelties),
#: before the sequence-length widening ``BAND_PER_SEQ_DOUBLING``. Fitted on the published scaling
#: series (``pilot_validation.fit_band``): the split-conformal 90 % quantile of the one-scale
#: pilots' |error| on the targets at the pilot's sequence length with that count, made
#: non-decreasing, rounded up to the half percent (``BAND_ROUNDING``); a test holds these
#: constants to that fit. Judged out of sample by ``benchmarks/validate_pilot.py``, which prints
#: the coverage leave-one-series-out (both constants re-fitted by the same rule without the
#: series judged) and of the ``held-out`` targets with the rule fitted on the ``calibration``
#: split of ``data/validation_mfu.csv`` alone.
#: With Megatron-Bridge 26.04's GB300 series the fit moved from (0.12, 0.125, 0.125, 0.125) to
#: (0.12, 0.21, 0.21, 0.21): its Llama 3 70B FP8 run at another plan than its pilot's was 21 %
#: slow uncalibrated, and a pilot of other kernels carries nothing of its correction there
#: (``transfer_weight``); with Blackwell's attention at cuDNN's measured rates that run is 12 %
#: slow, and the fit is this.
#: With Composer's FSDP backward prefetch priced (llm-foundry's 2023 runs) the first base moved
#: from 0.105 to 0.11; with NeMo's long-sequence rows read on their tokens/s and full-mask FLOP
#: count, 26.02.01's GB300 405B row on its tag recipe's plan and the expert bias's backward copy
#: priced, from (0.11, 0.125, 0.125, 0.125) to this (and the per-doubling widening from 0.035
#: to 0.020: more of the error is now in the base, less beyond it). With llm-foundry's
#: FlashAttention-1 attention priced by length (``StepOptions.fa1_length``, ``PILOT_DRIFT``
#: re-measured with it) the base moved from (0.135, 0.135, 0.135, 0.135) to this and the
#: per-doubling widening from 0.020 to 0.010 (the error that grew with the sequence length is
#: now in the engine). With GB300's GEMMs priced by the Blackwell per-shape table as GB200's
#: are (``gemm.GEMM_FAMILY``) the base moved from (0.135, 0.135, 0.155, 0.155) to this and the
#: per-doubling widening from 0.010 to 0.005. With llm-foundry's six SHARD_GRAD_OP rows (MPT 1B
#: and 3B at 128-512 H100, no activation checkpointing; their series' targets 23-34 % slow) the
#: base moved from (0.15, 0.15, 0.155, 0.155) to (0.15, 0.15, 0.2, 0.2); with llm-foundry's
#: unpadded FlashAttention copies priced (``StepOptions.attention_unpad``: the 2024-01 sweep's
#: MPT 1B, 3B, 7B and 70B rows 1.7-5.7 points less optimistic) to (0.15, 0.15, 0.15, 0.15); with
#: the attention kernel's curve on the FlashAttention stacks (``StepOptions.attention_curve``)
#: to this. The MPT 1B series joins the 2023-10 sweep's 8-GPU pilot (Triton FlashAttention-1,
#: ``llm-foundry-2023``, the engine 6.5 % slow there, unchanged) to the 2024-01 sweep's 128-512
#: GPU targets (FlashAttention-2, ``pytorch-fsdp2-2024``); the pilot path priced a target with
#: the pilot's base efficiency (``Calibration.base``), which put those targets at
#: FlashAttention-1's flat fraction; it now prices each target at its own stack's rates
#: (``extrapolate``), FlashAttention-2's measured curve as the validation table prices them:
#: their uncalibrated errors in the series rose from +7.2 / +9.7 / +14.9 % to +13.7 / +16.2 /
#: +21.7 % (in the table +27.9 % -> +21.7 % at 512 GPUs). The pilot, of other kernels (drift
#: 0.113), carries nothing to them, and the 512-GPU target, two novelties, sets the quantile.
BAND_HALF_WIDTH = (0.15, 0.15, 0.22, 0.22)

#: Widening of the band per doubling (or halving) of the sequence length between the pilot and
#: the target: ``h = BAND_HALF_WIDTH[k] + BAND_PER_SEQ_DOUBLING × |log2(s_target ÷ s_pilot)|``.
#: A pilot at one sequence length times the attention kernels at that length only, and the
#: engine's error moves with the sequence length (llm-foundry's MPT sequence sweeps on A100 and
#: H100, NeMo's long-sequence table). Fitted with the base (``pilot_validation.fit_band``): the
#: split-conformal 90 % quantile, over the targets at another sequence length, of the error
#: beyond the base per doubling, ``max(0, |error| − BAND_HALF_WIDTH[k]) ÷ doublings``, rounded up
#: to the half percent; ``benchmarks/validate_pilot.py`` prints its coverage. Of two measures of
#: what the pilot did not exercise, the doublings followed the error more closely (correlation
#: 0.48 with |error| on those targets when this rule was chosen) than the change in the step's
#: attention share (0.34). With Composer's FSDP backward prefetch priced it moved from 0.040
#: to 0.035, and with the changes named at ``BAND_HALF_WIDTH`` to 0.020, then 0.010, then 0.005.
BAND_PER_SEQ_DOUBLING = 0.005

#: The step the band's constants are rounded up to (half a percent): ``BAND_HALF_WIDTH`` and
#: ``BAND_PER_SEQ_DOUBLING`` are ``pilot_validation.fit_band``'s quantiles rounded up to it, and
#: the leave-one-series-out judgement re-fits them by the same rule.
BAND_ROUNDING = 0.005


def band_terms(pilot: Pilot, model, plan: ParallelPlan, seq_len: int) -> tuple:
    """``(k, doublings)`` of the band: ``k`` the number of ``novelties`` other than the sequence
    length, ``doublings = |log2(seq_len ÷ pilot.seq_len)|``."""
    nov = novelties(pilot, as_model(model), plan, seq_len)
    k = len(nov) - (int(seq_len) != int(pilot.seq_len))
    return k, abs(math.log2(int(seq_len) / int(pilot.seq_len)))


def band_half_width(k: int, doublings: float, base: tuple | None = None,
                    per_doubling: float | None = None) -> float:
    """Half-width of the band (fraction of the MFU):
    ``h = base[min(k, len(base) − 1)] + per_doubling × doublings`` (``BAND_HALF_WIDTH`` and
    ``BAND_PER_SEQ_DOUBLING`` by default; ``band_terms`` gives ``k`` and ``doublings``): a
    ValueError unless ``k`` is a whole number >= 0 and ``doublings`` a finite number >= 0."""
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 0:
        raise ValueError(f"k={k!r} must be a whole number >= 0 (how many novelties the target "
                         "adds to the pilot, band_terms)")
    x = float(doublings)
    if not math.isfinite(x) or x < 0:
        raise ValueError(f"doublings={doublings!r} must be a finite number >= 0 "
                         "(|log2(target sequence ÷ pilot sequence)|, band_terms)")
    b = BAND_HALF_WIDTH if base is None else tuple(base)
    beta = BAND_PER_SEQ_DOUBLING if per_doubling is None else float(per_doubling)
    return float(b[min(int(k), len(b) - 1)] + beta * x)


#: The keys of a scenario's ``pilot:`` records and their kinds (``pilots_from_scenario``).
PILOT_KEYS = {"n_gpus": "int", "tokens_per_s_per_gpu": "float", "tp": "int", "pp": "int",
              "cp": "int", "ep": "int", "zero_stage": "int", "micro_batch_size": "int",
              "virtual_stages": "int", "recompute": "str", "seq_len": "int",
              "global_batch_tokens": "int", "step_time_s": "float", "mfu": "float",
              "mfu_basis": "str", "peak_memory_gb": "float", "etp": "int"}


def ep_dp_unit(plan: ParallelPlan) -> int:
    """The data-parallel ranks a plan's expert parallelism needs a whole number of, for ``ep``
    to divide the ranks it is carved from: ``ep / gcd(ep, cp)`` (dp·cp, the experts' TP equal
    to tp), or, under MoE parallel folding (``etp`` 1: tp·dp·cp), ``ep / gcd(ep, tp·cp)``."""
    if plan.etp == 1:
        return plan.ep // math.gcd(plan.ep, plan.tp * plan.cp)
    return plan.ep // math.gcd(plan.ep, plan.cp)


@dataclass(frozen=True)
class Pilot:
    """What a pilot run measured, and how it ran.

    Parameters
    ----------
    model : ModelSpec or catalogue name
    accelerator : str or Accelerator
        Catalogue name (``llmcost.load_accelerator``), or the device itself: a scenario's pilots
        run on ``catalog.scenario_accelerator``'s (the scale-out bandwidth its
        ``comm_scaleout_bytes_per_s`` gives, for an accelerator the catalogue has none for).
    plan : ParallelPlan
        The pilot's plan (``llmcost.make_plan``); its GPU count is the pilot's.
    seq_len : int
    tokens_per_s_per_gpu : float > 0
        Measured training throughput per GPU (required).
    options : StepOptions
        Dtype, stack, overlaps, precision recipe as the pilot ran (default ``StepOptions()``).
    step_time_s : float > 0, optional
        Measured step time; checked against the throughput (the two must agree within 2 %).
    mfu : float in (0, 1], optional
        The MFU the framework printed, on ``mfu_basis``; checked against the throughput (5 %).
    mfu_basis : one of ``MFU_BASES``
    peak_memory_bytes : float > 0, optional
        Measured peak memory per GPU; must fit in the accelerator's HBM.
    """

    model: object
    accelerator: object
    plan: ParallelPlan
    seq_len: int
    tokens_per_s_per_gpu: float
    options: StepOptions = field(default_factory=StepOptions)
    step_time_s: float | None = None
    mfu: float | None = None
    mfu_basis: str = "full"
    peak_memory_bytes: float | None = None
    label: str = ""

    @property
    def n_gpus(self) -> int:
        return int(self.plan.n_gpus)

    @property
    def tokens_per_step(self) -> float:
        return float(self.plan.global_batch_size * self.seq_len)


def _positive(name, v, upper=None):
    """A ValueError naming ``name`` (the field as the caller's input spells it: ``pilot mfu``,
    ``gemm[0].m``) unless ``v`` is a finite number > 0 (and at most ``upper`` where given)."""
    if isinstance(v, bool) or not isinstance(v, (int, float, np.floating, np.integer)) \
            or not math.isfinite(float(v)) or v <= 0:
        raise ValueError(f"{name}={v!r} must be a positive number")
    if upper is not None and v > upper:
        raise ValueError(f"{name}={v!r} must be at most {upper}")


def measured_mfu(p: Pilot) -> float:
    """The pilot's MFU on the workbook's basis from its tokens/s:
    ``tokens_per_s_per_gpu × flops_per_token(seq_len, causal=False) ÷ peak(dtype)``."""
    model = as_model(p.model)
    peak = as_accelerator(p.accelerator).peak_flops_per_s(p.options.dtype)
    return float(p.tokens_per_s_per_gpu * model.flops_per_token(p.seq_len, causal=False) / peak)


def _cluster(accelerator, n_gpus: int) -> Cluster:
    return Cluster(as_accelerator(accelerator), int(n_gpus))


def accelerator_name(accelerator) -> str:
    """A pilot's accelerator (a catalogue name or an ``Accelerator``) by its name."""
    return as_accelerator(accelerator).name


def base_efficiency(options: StepOptions, accelerator) -> Efficiency:
    """The burst ``Efficiency`` the engine uses for ``options`` on ``accelerator`` (a catalogue
    name or an ``Accelerator``: the catalogue's row with the stack's FlashAttention fraction, or
    the options' own)."""
    return options.resolve(accelerator_name(accelerator)).efficiency


def kernel_exposure(b) -> tuple:
    """How much a step exercises each kernel class, relative to the class it spends most time
    in: ``a_j = s_j ÷ max_k s_k`` over (matmul, attention, memory-bound), ``s_j`` the class's
    seconds in the step breakdown ``b`` (the recomputed forward split between matmul and
    attention in the forward's proportion). The class with ``a = 1`` is the pilot's main kernel:
    a compute factor beyond the one that brings it to its datasheet rate is no kernel rate
    (``calibrate``)."""
    fwd = b.matmul_s + b.attention_s
    mm = b.matmul_s + (b.recompute_s * b.matmul_s / fwd if fwd > 0 else 0.0)
    att = b.attention_s + (b.recompute_s * b.attention_s / fwd if fwd > 0 else 0.0)
    s = (mm, att, b.memory_bound_s)
    top = max(s)
    if top <= 0:
        return (1.0, 1.0, 1.0)
    return tuple(float(x / top) for x in s)


def scaled_efficiency(eff: Efficiency, compute=1.0, scaleup=1.0, scaleout=1.0,
                      exposure=(1.0, 1.0, 1.0)) -> Efficiency:
    """``eff`` with its kernel fractions (matmul, attention, HBM) × ``compute ** a_j``, ``a_j``
    the pilot's ``exposure`` to each class (``kernel_exposure``; 1, 1, 1 by default: every
    class × ``compute``), its scale-up bus-bandwidth fraction × ``scaleup`` and its scale-out
    one × ``scaleout``, each capped at 1 (a burst rate cannot pass the datasheet's).

    Why ``compute ** a_j``: one pilot gives one equation, its step time, in three unknown rate
    corrections ``x_j`` (matmul, attention, memory-bound). To first order ``d ln T = −Σ_j
    (s_j ÷ T) d ln x_j`` (``s_j`` the class's seconds in the pilot's step), and the
    minimum-norm solution of one linear equation (the Moore-Penrose pseudo-inverse A⁺b, the
    minimum-norm best approximate solution: Penrose 1956, "On best approximate solutions of
    linear matrix equations", Proc. Cambridge Philos. Soc. 52(1) 17-19; the inverse itself is
    Penrose 1955, Proc. Cambridge Philos. Soc. 51(3) 406-413; equivalently the posterior mean
    under independent, equal priors on the classes' log-rate errors) gives each class a log
    correction in proportion to its seconds: ``ln x_j = (s_j ÷ s_main) ln x_main = a_j ln c``.
    A class the pilot barely ran (attention in a 512-token pilot: ``a`` about 0.08) keeps its
    catalogue rate, instead of inheriting the correction measured on the GEMMs. That the
    classes' log-rate errors are independent with equal spread is an assumption, named as
    one. Added after the one-scale pilot was seen worse than the uncalibrated engine on
    llm-foundry's MPT-760M A100 sweep (a 512-token pilot, targets to 65,536 tokens); nothing in
    it is fitted (the figures before and after: ``benchmarks/validate_pilot.py``'s docstring).

    Raises
    ------
    ValueError
        A factor that is not positive, or an exposure outside [0, 1], naming it.
    """
    for name, v in (("compute", compute), ("scaleup", scaleup), ("scaleout", scaleout)):
        _positive(f"pilot {name} factor", v)
    a = tuple(float(x) for x in exposure)
    if len(a) != 3 or not all(0.0 <= x <= 1.0 for x in a):
        raise ValueError(f"exposure={exposure!r} must be three numbers in [0, 1] (matmul, "
                         "attention, memory-bound: kernel_exposure)")
    new = {"matmul_fraction": eff.matmul_fraction * compute ** a[0],
           "attention_fraction": eff.attention_fraction * compute ** a[1],
           "hbm_fraction": eff.hbm_fraction * compute ** a[2],
           "scaleup_fraction": eff.scaleup_fraction * scaleup,
           "scaleout_fraction": eff.scaleout_fraction * scaleout}
    # a profile's attention measurement corrected stays one at its shape (Efficiency.replace)
    return eff.replace(**{k: min(v, 1.0) for k, v in new.items()},
                       attention_shape=eff.attention_shape,
                       source=f"calibrated on a pilot: kernels x{compute:.3f}, scale-up "
                              f"x{scaleup:.3f}, scale-out x{scaleout:.3f} of {eff.accelerator}")


@lru_cache(maxsize=8192)
def _step(p_model, accelerator, plan, seq_len, options, eff):
    """The engine's step on ``plan`` with ``eff`` (cached: the model, plan, options and
    efficiency are frozen dataclasses; the validation prices each target several times). A
    published run whose stack data/stacks.csv does not profile (``options.stack`` None, e.g.
    Meta's for Llama 3) is priced on the default profile with the settings it ran, without
    ``stacks.StackFeatureWarning`` for those the profile lacks (``step_validation`` does the
    same); a pilot measured what it ran, so a feature its stack lacks is priced
    (``missing_features="price"``), not refused."""
    with warnings.catch_warnings():
        if options.stack is None:
            warnings.simplefilter("ignore", stacks.StackFeatureWarning)
        return step.step_time(p_model, _cluster(accelerator, plan.n_gpus), plan, seq_len,
                              options=options.replace(efficiency=eff, missing_features="price"))


def _uses_scaleout(plan: ParallelPlan, accelerator: str) -> bool:
    """Whether the plan's data-parallel / ZeRO traffic crosses scale-up domains."""
    dom = _cluster(accelerator, plan.n_gpus).scaleup_domain_size or 8
    return plan.n_gpus > dom and (plan.dp * plan.cp > 1 or plan.pp > 1)


def check_pilot(p: Pilot) -> None:
    """Every rule a pilot must meet, one ``ValueError`` naming the field: positive throughput,
    step time and memory; an MFU in (0, 1] on a known basis; the throughput below the roofline
    (MFU ≤ 1 and HFU ≤ 1 on the datasheet peak); step time and printed MFU consistent with the
    throughput; the plan valid for the model (``ParallelPlan.validate``) and its weights,
    gradients and optimizer states within the accelerator's HBM (``memory.memory_per_gpu``)."""
    if not isinstance(p, Pilot):
        raise ValueError(f"pilot={p!r} must be a Pilot")
    model = as_model(p.model, name="pilot model")
    acc = as_accelerator(p.accelerator)
    if not isinstance(p.plan, ParallelPlan):
        raise ValueError(f"pilot plan={p.plan!r} must be a ParallelPlan (llmcost.make_plan)")
    _positive("pilot seq_len", p.seq_len)
    p.plan.validate(model, seq_len=int(p.seq_len))
    _positive("pilot tokens_per_s_per_gpu", p.tokens_per_s_per_gpu)
    m = measured_mfu(p)
    hw = m * float(model.flops_per_token(p.seq_len, causal=False, recompute=p.plan.recompute)) \
        / float(model.flops_per_token(p.seq_len, causal=False))
    if m > 1 or hw > 1:
        raise ValueError(f"pilot tokens_per_s_per_gpu={p.tokens_per_s_per_gpu:,.0f} is above the "
                         f"roofline: it implies MFU {m:.1%} / HFU {hw:.1%} of the "
                         f"{acc.name}'s {p.options.dtype} peak (must be <= 100%)")
    if p.step_time_s is not None:
        _positive("pilot step_time_s", p.step_time_s)
        implied = p.tokens_per_step / (p.tokens_per_s_per_gpu * p.n_gpus)
        if abs(p.step_time_s / implied - 1) > 0.02:
            raise ValueError(f"pilot step_time_s={p.step_time_s} disagrees with "
                             f"tokens_per_s_per_gpu: the plan's {p.tokens_per_step:,.0f} tokens "
                             f"per step on {p.n_gpus} GPUs take {implied:.3f} s (must agree "
                             "within 2%)")
    if p.mfu_basis not in MFU_BASES:  # checked with or without an mfu: a typo is refused
        raise ValueError(f"pilot mfu_basis={p.mfu_basis!r} must be one of {MFU_BASES}")
    if p.mfu is not None:
        _positive("pilot mfu", p.mfu, upper=1.0)
        num = {"full": model.flops_per_token(p.seq_len, causal=False),
               "causal": model.flops_per_token(p.seq_len, causal=True),
               "hfu_full": model.flops_per_token(p.seq_len, causal=False, recompute="full")}
        full = float(model.flops_per_token(p.seq_len, causal=False))
        on = {basis: m * float(count) / full for basis, count in num.items()}
        if abs(p.mfu / on[p.mfu_basis] - 1) > 0.05:
            other = [b for b in MFU_BASES if b != p.mfu_basis and abs(p.mfu / on[b] - 1) <= 0.05]
            hint = "" if not other else (
                f"; it agrees with the {other[0]} basis ({on[other[0]]:.1%}): set mfu_basis: "
                f"{other[0]}" + (" (Megatron-LM from Megatron-Core 0.12, Megatron-Bridge and "
                                 "NeMo from 2025-08 log a causal count)"
                                 if other[0] == "causal" else ""))
            raise ValueError(f"pilot mfu={p.mfu} ({p.mfu_basis} basis) disagrees with "
                             f"tokens_per_s_per_gpu, which gives {on[p.mfu_basis]:.1%} on that "
                             f"basis (must agree within 5%){hint}")
    hbm = acc.hbm_bytes
    if p.peak_memory_bytes is not None:
        _positive("pilot peak_memory_bytes", p.peak_memory_bytes)
        if hbm and p.peak_memory_bytes > hbm:
            raise ValueError(f"pilot peak_memory_bytes={p.peak_memory_bytes:.3g} exceeds the "
                             f"{acc.name}'s HBM ({hbm:.3g} bytes)")
    if hbm:
        mem = memory.memory_per_gpu(model, p.plan, int(p.seq_len), recipe=p.options.recipe)
        usable = hbm * (1 - memory.PUBLISHED_PLAN_RESERVE)  # a pilot ran: the whole HBM
        if mem.model_states > usable:
            raise DoesNotFit(
                f"pilot plan {p.plan.describe()} does not fit: weights, gradients and optimizer "
                f"states need {mem.model_states / 1e9:.1f} GB per GPU, above the {acc.name}'s "
                f"{usable / 1e9:.0f} GB usable by a plan that ran (its whole HBM: "
                f"memory.PUBLISHED_PLAN_RESERVE; a planned run keeps {memory.DEFAULT_RESERVE:.0%} "
                f"back, {hbm * (1 - memory.DEFAULT_RESERVE) / 1e9:.0f} GB usable); give the "
                "pilot's zero_stage (ZeRO shards them over data parallelism), tp or pp as it ran")


@dataclass(frozen=True)
class Calibration:
    """The fitted factors and what the pilots identified.

    ``efficiency`` is the calibrated ``Efficiency`` (pass it as ``StepOptions(efficiency=...)``);
    ``compute_factor``, ``scaleup_factor``, ``scaleout_factor`` the multipliers of the burst
    fractions (1 where not identified; the compute factor is the main kernel class's, class
    ``j`` takes ``compute_factor ** exposure[j]``, ``scaled_efficiency``); ``identified`` /
    ``not_identified`` say what in words;
    ``exposure`` the smallest pilot's ``kernel_exposure``; ``saturated`` how much slower than
    the pilot the engine still is with its main kernels at the datasheet rate (0: the fit
    reproduces the pilot); ``network_confounded`` whether a pilot's plan crosses the scale-out
    network and no second scale identified it (the compute factor then stands for the kernels
    and the network together: ``extrapolate`` shrinks it with ``network_shift``); ``warnings``
    a fitted factor outside what is physically plausible, in words (``scaleout_warning``).
    """

    pilots: tuple
    base: Efficiency
    efficiency: Efficiency
    compute_factor: float
    scaleup_factor: float
    scaleout_factor: float
    identified: tuple
    not_identified: tuple
    uncalibrated_mfu: tuple
    measured_mfu: tuple
    exposure: tuple = (1.0, 1.0, 1.0)
    saturated: float = 0.0
    network_confounded: bool = False
    warnings: tuple = ()

    def describe(self) -> str:
        p = self.pilots
        gpus = ", ".join(str(x.n_gpus) for x in p)
        gpus += " GPU" if gpus == "1" else " GPUs"
        return (f"calibrated on {len(p)} pilot{'' if len(p) == 1 else 's'} at {gpus}: "
                f"compute x{self.compute_factor:.3f}, scale-up x{self.scaleup_factor:.3f}, "
                f"scale-out x{self.scaleout_factor:.3f}")


def _solve(f, lo, hi, what):
    """Root of the increasing-or-decreasing ``f`` on [lo, hi]: false position with the Illinois
    modification (Dowell & Jarratt 1971, BIT 11: the retained end's value halved when the same
    end is kept twice, superlinear and always bracketed), until ``|f| < 1e-9`` or the bracket is
    narrower than 1e-5 (at most 60 steps). Raises ``ValueError(what)`` when ``f`` does not change
    sign on the bracket."""
    flo, fhi = f(lo), f(hi)
    if flo * fhi > 0:
        raise ValueError(what)
    if flo == 0:
        return lo
    if fhi == 0:
        return hi
    side = 0
    x = 0.5 * (lo + hi)
    for _ in range(60):
        x = (lo * fhi - hi * flo) / (fhi - flo)
        fx = f(x)
        if abs(fx) < 1e-9 or hi - lo < 1e-5:
            break
        if (fx > 0) == (flo > 0):
            lo, flo = x, fx
            if side == -1:
                fhi *= 0.5
            side = -1
        else:
            hi, fhi = x, fx
            if side == 1:
                flo *= 0.5
            side = 1
    return x


def _least_squares_factor(loss, lo, hi, iterations=40) -> float:
    """The ``x`` in [lo, hi] minimising ``loss`` (golden-section search on log x)."""
    a, b = math.log(lo), math.log(hi)
    g = (math.sqrt(5) - 1) / 2
    x1, x2 = b - g * (b - a), a + g * (b - a)
    f1, f2 = loss(math.exp(x1)), loss(math.exp(x2))
    for _ in range(iterations):
        if f1 < f2:
            b, x2, f2 = x2, x1, f1
            x1 = b - g * (b - a)
            f1 = loss(math.exp(x1))
        else:
            a, x1, f1 = x1, x2, f2
            x2 = a + g * (b - a)
            f2 = loss(math.exp(x2))
    return math.exp(0.5 * (a + b))


def _too_slow_message(p0: Pilot) -> str:
    """``calibrate``'s refusal of a pilot slower than every kernel at ``MIN_COMPUTE_FACTOR`` of
    its measured rate explains, naming the field (a scenario's pilot by its record,
    "pilot[1].tokens_per_s_per_gpu", others as a pilot's)."""
    field = (f"{p0.label}.tokens_per_s_per_gpu" if p0.label.startswith("pilot[")
             else "pilot tokens_per_s_per_gpu")
    if " and " in p0.label:  # repeats merged (merge_repeats): their mean is in no record
        field = f"the geometric mean of {p0.label}'s tokens_per_s_per_gpu"
    return (f"{field}={p0.tokens_per_s_per_gpu:,.4g} (the {p0.n_gpus}-GPU "
            f"pilot, MFU {measured_mfu(p0):.2%}) is below what the step-time model gives with "
            f"every kernel at {MIN_COMPUTE_FACTOR:.0%} of its measured rate on the "
            f"{accelerator_name(p0.accelerator)} (the rule: kernel rates of at least "
            f"{MIN_COMPUTE_FACTOR:.0%} of "
            f"the catalogue's must explain a pilot); check that it is tokens per second per GPU "
            f"(not per step, per node or per hour)")


def calibrate(pilots) -> Calibration:
    """Fit the ``Efficiency`` a pilot (or a small scaling test) identifies.

    One pilot: the compute factor ``c`` with
    ``step_time(pilot; fractions × c ** a) = tokens_per_step ÷ (tokens_per_s_per_gpu × n_gpus)``
    (``a`` the pilot's ``kernel_exposure``: each kernel class corrected in proportion to its time
    in the pilot's step, ``scaled_efficiency``)
    (bisection; the engine's step time falls monotonically with ``c``), capped where the
    pilot's main kernel class reaches its datasheet rate (``saturated``: how much slower the
    engine then still is; ``extrapolate`` carries the bound's factor, not the excess). Two or
    more
    pilots whose
    GPU counts differ and whose largest plan crosses scale-up domains: ``c`` from the smallest
    pilot and the scale-out factor ``k`` from the largest (each solved with the other fixed,
    alternated to convergence). The pilots must share model, accelerator and options.

    Raises
    ------
    ValueError
        A bad pilot (``check_pilot``), pilots of different models / accelerators, or a pilot
        faster than the datasheet rates allow.
    """
    pilots = (pilots,) if isinstance(pilots, Pilot) else tuple(pilots)
    if not pilots:
        raise ValueError("pilots=() must hold at least one Pilot")
    for p in pilots:
        check_pilot(p)
    fast = above_published_warning(pilots)   # each record as given, before repeats merge
    pilots, repeats = merge_repeats(pilots)
    p0 = min(pilots, key=lambda p: p.n_gpus)
    for p in pilots:
        a, a0 = as_accelerator(p.accelerator), as_accelerator(p0.accelerator)
        if a != a0:
            what = (f"{a.name!r} differs from {a0.name!r}" if a.name != a0.name else
                    f"{a.name!r} with a scale-out bandwidth of {a.scaleout_bytes_per_s_per_dir} "
                    f"bytes/s differs from {a0.scaleout_bytes_per_s_per_dir}")
            raise ValueError(f"pilot accelerator={what}: calibrate one accelerator at a time")
    base = base_efficiency(p0.options, p0.accelerator)
    expo = kernel_exposure(_step(as_model(p0.model), p0.accelerator, p0.plan, p0.seq_len,
                                 p0.options, base))
    # the pilot's main kernel class (exposure 1) at its datasheet rate: a faster pilot is not
    # explained by kernel rates (the remainder is reported, not carried)
    cmax = min(1.0 / f for f, a in zip(
        (base.matmul_fraction, base.attention_fraction, base.hbm_fraction), expo) if a >= 1.0)
    omax = 1.0 / base.scaleout_fraction

    def resid(p, c, k):
        b = _step(as_model(p.model), p.accelerator, p.plan, p.seq_len, p.options,
                  scaled_efficiency(base, c, 1.0, k, expo))
        t_meas = p.tokens_per_step / (p.tokens_per_s_per_gpu * p.n_gpus)
        return b.step_time_s / t_meas - 1

    big = max(pilots, key=lambda p: p.n_gpus)
    two_scale = big.n_gpus > p0.n_gpus and _uses_scaleout(big.plan, big.accelerator)
    msg = _too_slow_message(p0)
    c, k, net_ok, saturated = _fit_factors(resid, pilots, p0, big, two_scale, cmax, omax, msg)
    eff = scaled_efficiency(base, c, 1.0, k, expo)
    ident, not_ident = _identified(pilots, p0, big, two_scale, net_ok, c, k, expo, saturated)
    unc = tuple(_step(as_model(p.model), p.accelerator, p.plan, p.seq_len, p.options,
                      base).mfu for p in pilots)
    warn = scaleout_warning(p0, big, base, k, (resid(p0, c, 1.0), resid(big, c, 1.0))) \
        if two_scale and net_ok else None
    unfit = unfitted_pilots_warning(pilots, p0, big if two_scale else p0)
    return Calibration(pilots=pilots, base=base, efficiency=eff, compute_factor=c,
                       scaleup_factor=1.0, scaleout_factor=k, identified=tuple(ident),
                       not_identified=tuple(not_ident), uncalibrated_mfu=unc,
                       measured_mfu=tuple(measured_mfu(p) for p in pilots), exposure=expo,
                       saturated=saturated,
                       warnings=tuple(w for w in (repeats, warn, unfit, fast,
                                                  pilot_memory_warning(pilots)) if w),
                       network_confounded=bool(
                           any(_uses_scaleout(p.plan, p.accelerator) for p in pilots)
                           and not (two_scale and net_ok)))


def pilot_memory_warning(pilots) -> str | None:
    """A sentence naming each pilot whose plan, as recorded, needs more memory per GPU than its
    accelerator holds (``memory.memory_per_gpu`` on its most loaded stage, with the pilot's
    recipe, attention kernel and stack practice, ``options.stack_memory_practice``; against the
    whole HBM, no reserve taken off), with the GB and the plan; None when every one fits. A
    pilot that gives its measured peak memory (checked against the HBM by ``check_pilot``) is
    not judged by the model. A pilot ran, so its record likely leaves out what made it fit (a
    ZeRO stage or the recomputation a record takes from the scenario, or 0 and none, when not
    given): the calibration prices the plan as recorded, and the sentence says which keys to
    check. A warning, not an error: the memory model's activations may also exceed what a stack's
    practice keeps. Two trials: a 32,768-token TP8 · CP4 pilot read as "no ZeRO" needed 90 GB
    on an 80 GB H100 without a word, and an 8B TP1 pilot at 8,192 tokens 95 GB."""
    out = []
    for q in pilots:
        try:
            model = as_model(q.model)
            acc = as_accelerator(q.accelerator)
            o = q.options.resolve(acc.name)
            mb = memory.memory_per_gpu(model, q.plan, int(q.seq_len), recipe=o.recipe,
                                       flash_attention=o.flash_attention, dropout=o.dropout,
                                       fsdp_reshard_after_forward=o.fsdp_reshard_after_forward,
                                       practice=stack_memory_practice(o.stack, o.dtype))
        except (ValueError, KeyError, TypeError, AttributeError):
            continue
        if acc.hbm_bytes and mb.total > acc.hbm_bytes and q.peak_memory_bytes is None:
            out.append(f"{q.label or 'a pilot'} ({q.plan.describe()}) needs {mb.total / 1e9:,.0f} "
                       f"GB per GPU by the memory model, more than the {acc.name}'s "
                       f"{acc.hbm_bytes / 1e9:,.1f} GB ({acc.hbm_bytes / 2 ** 30:,.0f} GiB)")
    if not out:
        return None
    return ("; ".join(out) + ": a pilot that ran fitted, so check the record's zero_stage, "
            "recompute and micro_batch_size (a record takes the scenario's zero_stage and "
            "recompute where it fixes them, else 0 and none); the calibration prices the plan "
            "as recorded (llmcost.memory.memory_per_gpu)")


def merge_repeats(pilots) -> tuple:
    """``(pilots, warning)``: pilots that ran the same run (model, accelerator, plan, sequence
    length and options all equal) merged into one at the geometric mean of their throughputs,
    ``exp(mean(log tokens/s))`` (the calibration fits the log of measured ÷ predicted, so
    repeats enter as the mean of their logs; the merged pilot keeps the first's other fields and
    both labels), in the order of the first of each; a sentence naming each merge with its
    throughputs, or None when there is none. A trial listed two pilots of one plan on 8 GPUs at
    5,000 and 3,000 tokens/s per GPU: the calibration solved on whichever came first (MFU 27.5%
    or 17.3% for the same run)."""
    groups = {}
    for q in pilots:
        key = (as_model(q.model), q.accelerator, q.plan, int(q.seq_len), q.options)
        groups.setdefault(key, []).append(q)
    out, said = [], []
    for same in groups.values():
        if len(same) == 1:
            out.append(same[0])
            continue
        tps = float(np.exp(np.mean([math.log(q.tokens_per_s_per_gpu) for q in same])))
        labels = [q.label or "a pilot" for q in same]
        out.append(dataclasses.replace(same[0], tokens_per_s_per_gpu=tps, step_time_s=None,
                                       mfu=None, label=" and ".join(labels)))
        said.append(f"{' and '.join(labels)} ran the same plan on {fmt_gpus(same[0].n_gpus)} "
                    f"({', '.join(f'{q.tokens_per_s_per_gpu:,.0f}' for q in same)} tokens/s per "
                    f"GPU): fitted as one at their geometric mean, {tps:,.0f}")
    if not said:
        return tuple(pilots), None
    top = max(max(q.tokens_per_s_per_gpu for q in g) / min(q.tokens_per_s_per_gpu for q in g)
              for g in groups.values())
    return tuple(out), "; ".join(said) + (
        f" (repeats {top:.2f}x apart: check them, as the bill's MFU moves with them)"
        if top > 1.1 else "")


def unfitted_pilots_warning(pilots, p0: Pilot, big: Pilot) -> str | None:
    """A sentence naming the pilots ``calibrate`` does not fit: it solves the compute factor on
    the smallest pilot ``p0`` (the first listed of those at its GPU count) and the scale-out
    factor on the largest ``big`` (where two scales cross nodes), so a pilot at a middle scale,
    or a second one at the same count, enters only the mean residual (a trial: two pilots at 64
    GPUs, 900 and 700 tokens/s per GPU, gave the first one's calibration in either order);
    each with its throughput and measured MFU. Repeats of one plan are merged before
    (``merge_repeats``), so a second pilot at a fitted scale here ran another plan. None when
    every pilot is fitted."""
    unused = [q for q in pilots if q is not p0 and q is not big]
    if not unused:
        return None
    said = "; ".join(f"{q.label or 'a pilot'} on {fmt_gpus(q.n_gpus)}, "
                     f"{q.tokens_per_s_per_gpu:,.4g} tokens/s per GPU (MFU {measured_mfu(q):.1%})"
                     for q in unused)
    fitted = f"{p0.label or 'the smallest pilot'} ({fmt_gpus(p0.n_gpus)}, " \
        f"{p0.tokens_per_s_per_gpu:,.4g}, MFU {measured_mfu(p0):.1%})" + (
            "" if big is p0 else f" and {big.label or 'the largest'} ({fmt_gpus(big.n_gpus)})")
    repeats = any(q.n_gpus in (p0.n_gpus, big.n_gpus) for q in unused)
    return (f"{len(unused)} of {len(pilots)} pilots not fitted: {said}. The calibration solves "
            f"on {fitted} and counts the others in the mean residual only"
            + ("; pilots of another plan at a fitted scale enter the mean residual only: list "
               "first the one whose plan is nearest the run's" if repeats else
               "; a middle scale checks the fit (its residual is the mean's), it does not set "
               "it"))


def above_published_warning(pilots) -> str | None:
    """A sentence naming each pilot whose measured MFU (``measured_mfu``: on the dense peak of
    its dtype) is above the best published run comparable to it (``accuracy.published_ceiling``:
    the same accelerator class, size, dtype and sequence length, on the same basis), with both
    figures; None when none is. Such a pilot is calibrated as given (a compute factor above 1,
    or the fit at its bound), so the run is priced faster than any published run: a figure
    whose unit slipped (tokens per node, or per step, or a count with padding) is the likelier
    cause, and the sentence asks to check it. A trial gave pilots at 79-97% MFU without a word,
    where a given ``mfu`` of that size is warned of."""
    out = [measured_above_published(f"{q.label or 'a pilot'} ({q.tokens_per_s_per_gpu:,.0f} "
                                    f"tokens/s per GPU on {fmt_gpus(q.n_gpus)})",
                                    measured_mfu(q), q.accelerator, as_model(q.model),
                                    q.options.dtype, int(q.seq_len)) for q in pilots]
    out = [w for w in out if w]
    if not out:
        return None
    return ("; ".join(out) + ": check that the throughput is tokens per second per GPU of the "
            "pilot's own model and sequence length (not per node or per step, nor counting "
            "padding); the calibration takes it as given")


def measured_above_published(what: str, mfu: float, accelerator, model, dtype: str,
                             seq_len: int) -> str | None:
    """"``what`` measures MFU m%, above the best published run comparable to it (c%)" when the
    measured ``mfu`` (on the dense peak of ``dtype``) is above ``accuracy.published_ceiling``
    for the accelerator, model size, dtype and sequence length (same basis); None when it is
    not, or nothing comparable is published."""
    ceiling, _ = published_ceiling(accelerator_name(accelerator), model.n_params, dtype=dtype,
                                   is_moe=model.is_moe, seq_len=int(seq_len))
    if ceiling is None or not mfu > ceiling:
        return None
    return (f"{what} measures MFU {mfu:.1%}, above the best published run comparable to it "
            f"({ceiling:.1%}" + ("" if dtype == "bf16" else f" on the {dtype} dense peak")
            + ", llmcost.training.accuracy.published_ceiling)")


def scaleout_warning(p0: Pilot, big: Pilot, base: Efficiency, k: float,
                     at_catalogue: tuple) -> str | None:
    """A sentence when the fitted scale-out factor ``k`` is below ``SCALEOUT_FACTOR_FLOOR``: the
    bandwidth it puts on the network per GPU (catalogue rate × measured fraction × k), the bound
    and why, and the two pilots that drive it: the drop in tokens per GPU from the smallest
    ``p0`` to the largest ``big``, 1 − T_big ÷ T_p0, against the drop the step model gives with
    the fitted compute factor and the catalogue's network (``at_catalogue``: each pilot's
    predicted ÷ measured step time − 1 at k = 1, so its predicted tokens per GPU are
    T ÷ (1 + r)); the rest of the drop is what k puts on the network. None above the bound."""
    if not k < SCALEOUT_FACTOR_FLOOR:
        return None
    acc = as_accelerator(big.accelerator)
    rate = acc.scaleout_bytes_per_s_per_dir or 0.0
    fitted = rate * base.scaleout_fraction * k
    t0, t1 = p0.tokens_per_s_per_gpu, big.tokens_per_s_per_gpu
    m0, m1 = t0 / (1 + at_catalogue[0]), t1 / (1 + at_catalogue[1])
    # the network's figure: the catalogue's (one NIC per GPU), or the scenario's own
    nic = (f"the catalogue's measured {rate * base.scaleout_fraction / 1e9:.3g} GB/s "
           f"({acc.name}: one NIC per GPU)" if rate ==
           load_accelerator(acc.name).scaleout_bytes_per_s_per_dir else
           f"the measured {rate * base.scaleout_fraction / 1e9:.3g} GB/s of the scenario's "
           f"comm_scaleout_bytes_per_s ({rate / 1e9:.3g} GB/s per GPU on {acc.name})")
    return (f"scale-out x{k:.3f}: the fit puts the network across nodes at {fitted / 1e9:.2g} GB/s "
            f"per GPU, {k:.1%} of {nic}, below the bound of "
            f"{SCALEOUT_FACTOR_FLOOR:.3f} (that NIC shared by a whole 8-GPU node, the thinnest "
            f"RDMA fabric of such a server). It is driven by {p0.label or 'the smallest pilot'} "
            f"({fmt_gpus(p0.n_gpus)}, {t0:,.4g} tokens/s per GPU) and "
            f"{big.label or 'the largest'} ({fmt_gpus(big.n_gpus)}, {t1:,.4g}): "
            f"{1 - t1 / t0:.1%} fewer tokens per GPU, where the "
            f"step model with the fitted compute factor and the catalogue's network gives "
            f"{m0:,.4g} and {m1:,.4g} ({1 - m1 / m0:.1%} fewer); the rest is put on the network. "
            "Something the step model does not price at the larger pilot (stragglers, a "
            "data-loader or checkpoint stall, NCCL over TCP sockets rather than RDMA) is likelier "
            "than so slow a fabric: check the pilot records; the MFU extrapolated carries the "
            "factor whole")


def _fit_factors(resid, pilots, p0, big, two_scale: bool, cmax: float, omax: float, msg: str):
    """``calibrate``'s fit: ``(c, k, net_ok, saturated)``. The compute factor c solves
    ``resid(p0, c, k) = 0`` on the smallest pilot (in [MIN_COMPUTE_FACTOR, cmax]; at ``cmax``, with
    ``saturated = resid(p0, cmax, k)``, when even that leaves the engine slower than the
    pilot); with two scales the
    scale-out factor k solves ``resid(big, c, k) = 0`` on the largest (in [0.02, omax]),
    alternated until c moves by < 1e-4 (at most 6 rounds). When no k within the datasheet bound
    explains the largest pilot (``net_ok`` False), k = 1 and c is the least-squares factor of
    every pilot in log step time (golden section on log c)."""
    c, k, net_ok, saturated = 1.0, 1.0, True, 0.0
    for _ in range(6 if two_scale else 1):
        if resid(p0, cmax, k) > 0:
            c_new, saturated = cmax, resid(p0, cmax, k)
        else:
            c_new, saturated = _solve(lambda x, k=k: resid(p0, x, k), MIN_COMPUTE_FACTOR, cmax,
                                      msg), 0.0
        if two_scale:
            try:
                k = _solve(lambda x, c=c_new: resid(big, c, x), 0.02, omax, "")
            except ValueError:
                net_ok = False
                break
        done = abs(c_new - c) < 1e-4
        c = c_new
        if done:
            break
    if two_scale and not net_ok:
        # the network within its datasheet bound cannot explain the scales' difference: one
        # compute factor for all pilots, least squares in log step time (golden section on
        # log c)
        k = 1.0
        c = _least_squares_factor(lambda x: sum(math.log1p(resid(p, x, 1.0)) ** 2
                                                for p in pilots), MIN_COMPUTE_FACTOR, cmax)
    return c, k, net_ok, saturated


def _identified(pilots, p0, big, two_scale: bool, net_ok: bool, c: float, k: float,
                expo: tuple, saturated: float):
    """What the pilots identify and what they do not, as ``calibrate`` reports it:
    ``(identified, not_identified)`` lists of sentences."""
    main_class = ("matmul", "attention", "memory-bound")[expo.index(1.0)]
    ident = [(f"compute (kernels' sustained rate) at the pilot's shapes: x{c:.3f} (its main "
              f"kernel class: {main_class}; matmul, attention, memory-bound x"
              + ", x".join(f"{c ** a:.3f}" for a in expo)
              + ", each in proportion to its time in the pilot's step)")]
    not_ident = []
    if saturated > 0:
        not_ident.append(f"compute: the engine with the pilot's main kernels at the datasheet "
                         f"rate is still {saturated:.1%} slower than the pilot, which no kernel "
                         "rate explains (check the FLOP count and recomputation); the fit is at "
                         "its bound, and at most the bound's factor is carried")
    if any(_uses_scaleout(p.plan, p.accelerator) for p in pilots):
        if two_scale and net_ok:
            ident.append(f"scale-out network (bus bandwidth across nodes) from {p0.n_gpus} -> "
                         f"{big.n_gpus} GPUs: x{k:.3f}")
        elif two_scale:
            not_ident.append(f"scale-out network: the change from {p0.n_gpus} to {big.n_gpus} "
                             "GPUs is not explained by the network within its datasheet "
                             "bandwidth; one compute factor fitted to all pilots (least squares "
                             "in log step time)")
        else:
            not_ident.append("scale-out network: one scale cannot separate it from compute "
                             "(a second pilot at another GPU count can); the compute factor is "
                             "carried less to a run whose step differs more from the pilot's in "
                             "its compute share")
    else:
        not_ident.append("scale-out network: the pilot stays inside one scale-up domain")
    not_ident.append("scale-up (NVLink) bandwidth: kept at the catalogue's measured fraction")
    dims = {"tp": "tensor", "pp": "pipeline", "cp": "context", "ep": "expert"}
    for d, name in dims.items():
        if max(getattr(p.plan, d) for p in pilots) == 1:
            not_ident.append(f"{name} parallelism ({d.upper()}): not exercised by the pilot")
    return ident, not_ident


def same_model(a, b, positions: bool = True) -> bool:
    """Whether two models have the same shape (every ``ModelSpec`` field but the name and the
    default sequence length, and whether the source states it, ``context_stated``;
    ``positions=False`` skips ``max_position_embeddings`` too: a learned
    position table sized to the sequence length, as llm-foundry's MPT benchmarks size it,
    follows the sequence length, which ``novelties`` counts on its own)."""
    a, b = as_model(a), as_model(b)
    skip = {"name", "seq_len", "context_stated"} | (set() if positions
                                                     else {"max_position_embeddings"})
    return all(getattr(a, f.name) == getattr(b, f.name) for f in dataclasses.fields(a)
               if f.name not in skip)


def novelties(pilot: Pilot, model: ModelSpec, plan: ParallelPlan, seq_len: int) -> tuple:
    """What the target adds to the pilot, in words: each doubling of the GPU count beyond 8×,
    each parallel dimension (TP, PP, CP, EP, ZeRO-3) the pilot did not use, the scale-out network
    added, another sequence length, recomputation or model (``same_model`` without the position
    table: a learned table sized to the sequence length is the sequence-length novelty)."""
    out = []
    ratio = plan.n_gpus / pilot.n_gpus
    if ratio > 8:
        out.append(f"{ratio:.0f}x the pilot's GPUs")
    for d in ("tp", "pp", "cp", "ep"):
        if getattr(plan, d) > 1 and getattr(pilot.plan, d) == 1:
            out.append(f"{d.upper()} not in the pilot")
    if plan.zero_stage == 3 and pilot.plan.zero_stage != 3:
        out.append("ZeRO-3 not in the pilot")
    if _uses_scaleout(plan, pilot.accelerator) and not _uses_scaleout(pilot.plan,
                                                                      pilot.accelerator):
        out.append("scale-out network not in the pilot")
    if seq_len != pilot.seq_len:
        out.append(f"sequence length {seq_len:,} vs the pilot's {pilot.seq_len:,}")
    if plan.recompute != pilot.plan.recompute:
        out.append(f"recompute {plan.recompute} vs the pilot's {pilot.plan.recompute}")
    if not same_model(model, pilot.model, positions=False):
        out.append("another model")
    return tuple(out)


def same_kernels(pilot: Pilot, model, plan: ParallelPlan, seq_len: int) -> bool:
    """Whether the target runs the pilot's kernels: same model, micro-batch × sequence per TP
    rank, recomputation and TP (then the pilot's compute factor transfers whole)."""
    return (same_model(model, pilot.model)
            and plan.micro_batch_size * seq_len // plan.cp
            == pilot.plan.micro_batch_size * pilot.seq_len // pilot.plan.cp
            and plan.recompute == pilot.plan.recompute and plan.tp == pilot.plan.tp)


def runs_pilot_kernels(pilots, model, plan: ParallelPlan, seq_len: int) -> bool:
    """Whether the target runs the kernels of any of ``pilots`` (``same_kernels``): a scaling
    test whose second pilot ran the target's micro-batch measured those very kernels, so the
    target's drift from the pilots' residual is the same-kernel one (``drift_at``), whichever
    pilot is the smallest. (llm-foundry's MPT-1B on H100, README at 495218376: the 8-GPU pilot
    runs micro-batch 14, the 16-GPU one micro-batch 20 like the 32- and 64-GPU runs; before
    this only the smallest pilot's kernels counted, a rule that left the two pilots' agreeing
    -10 % uncarried. Changed after that two-scale error was seen.)"""
    return any(same_kernels(p, model, plan, seq_len) for p in pilots)


def distinct_kernel_pilots(pilots) -> int:
    """How many of ``pilots`` run kernels no other pilot runs (``same_kernels``: model,
    micro-batch × sequence per TP rank, recomputation, TP): pilots sharing kernels see the same
    kernel error, so they count once in the shrinkage of ``transfer_weight``."""
    groups = []
    for p in pilots:
        if not any(same_kernels(q, p.model, p.plan, p.seq_len) for q in groups):
            groups.append(p)
    return len(groups)


@dataclass(frozen=True)
class Extrapolation:
    """The calibrated prediction for a target plan: ``mfu`` with its band ``[mfu_low,
    mfu_high]``, ``step_time_s``, ``uncalibrated_mfu``, the ``transfer`` weight of the pilot's
    correction and the ``novelties`` that widen the band; ``contrary`` when the pilots' mean
    residual and the fitted factor disagree in sign (nothing carried: ``extrapolate``)."""

    mfu: float
    mfu_low: float
    mfu_high: float
    step_time_s: float
    uncalibrated_mfu: float
    transfer: float
    half_width: float
    novelties: tuple
    breakdown: object = None
    residual: float = 0.0
    drift: float = 0.0
    shift: float = 0.0
    capped_at: float | None = None
    noise: float = 0.0
    limited: bool = False
    saturated: bool = False
    contrary: bool = False

    def gpu_hours(self, train_tokens: float, n_gpus: int, tokens_per_step: float) -> tuple:
        """GPU-hours (central, low, high) for ``train_tokens`` at this step time:
        ``train_tokens ÷ tokens_per_step × step_time_s × n_gpus ÷ 3600`` (the band's MFU
        bounds scale the step time inversely)."""
        h = train_tokens / tokens_per_step * self.step_time_s * n_gpus / 3600
        return h, h * self.mfu / self.mfu_high, h * self.mfu / self.mfu_low

    def describe(self) -> str:
        return (f"MFU {self.mfu:.1%} [{self.mfu_low:.1%}, {self.mfu_high:.1%}] "
                f"(uncalibrated {self.uncalibrated_mfu:.1%})")

    def describe_transfer(self, compute_factor: float) -> str:
        """How much of the pilots' compute correction (``compute_factor``) this prediction
        carries and why, in one sentence (``transfer_weight``'s terms: the pilots' mean
        residual ``residual`` against the drift ``drift``, less ``shift²`` for a pilot that did
        not separate its kernels from the scale-out network), and the cap of
        ``data_parallel_cap`` when it applied."""
        if self.half_width == 0:
            return "a pilot ran this very plan: its measurement is the figure"
        head = f"the pilots' compute correction (x{compute_factor:.3f}) applied at " \
               f"{self.transfer:.0%} strength"
        return head + self._transfer_reason() + (
            "" if self.capped_at is None else
            f"; capped at the measured MFU {self.capped_at:.1%} of the pilot that ran this "
            "plan at fewer data-parallel replicas (more replicas add gradient traffic "
            "and never raise the MFU)")

    def _transfer_reason(self) -> str:
        """``describe_transfer``'s why, by the term of ``transfer_weight`` that set the share:
        the limited translation (``limited``: the part of the residual beyond ``D`` times its
        ``noise``), or the shrinkage (the share the drift could explain taken away; all of it
        where the drift is at least the published pilots' spread and the residual within ``D``
        noises; less ``shift²`` for a pilot that did not separate its kernels from the
        network); and, for a fit at its bound (``saturated``), that the factor is the bound's."""
        why = self._share_reason()
        if self.saturated:
            why += ("; the pilots' fit is at its bound (their main kernels at the datasheet "
                    "rate leave the step model still slower than the pilots): the factor is "
                    "the bound's, and what lies beyond it, no kernel rate, is not carried")
        return why

    def _share_reason(self) -> str:
        """``_transfer_reason`` but the bound: the term of ``transfer_weight`` that set the
        share, or the pilots' disagreement (``contrary``)."""
        if self.contrary:
            return (f": the pilots' mean residual ({self.residual:+.1%} in log MFU) and the "
                    "factor fitted on the smallest pilot point opposite ways, so neither is "
                    "carried")
        if self.residual == 0 or self.drift == 0:
            return ""
        d = LIMITED_TRANSLATION_D
        if self.limited:
            return (f": the pilots' mean residual ({self.residual:+.1%} in log MFU) is more than "
                    f"{d:g} times its noise for a run like this one (±{self.noise:.1%}: the step "
                    f"model's drift from a pilot, ±{self.drift:.1%}"
                    + (", and the network the pilot did not separate" if self.shift else "")
                    + f"), and the part beyond {d:g} times is carried (a limited translation, "
                    "Efron & Morris 1972)")
        why = (f": the pilots' mean residual ({self.residual:+.1%} in log MFU) is shrunk "
               f"by the share of it the step model's drift from a pilot to a run like this "
               f"one (±{self.drift:.1%}) could explain")
        v = PILOT_DRIFT["pilot_residual_var"]
        if self.transfer == 0:
            return why + (f", all of it: that drift is at least the spread of pilots' residuals "
                          f"over the published series (±{math.sqrt(v):.1%})"
                          if self.drift ** 2 >= v else ", all of it") + (
                f", and the residual is within {d:g} times its noise (±{self.noise:.1%})")
        if round(self.shift ** 2, 2) > 0:  # said when it takes a whole point
            why += (f", less {self.shift ** 2:.0%} because the pilot's correction mixes its "
                    "kernels with the scale-out network it did not separate and this run's "
                    "step has another compute share")
        return why

    def describe_band(self) -> str:
        """Why the band is as wide as it is, in words (``novelties``), and, where its top is
        under ``mfu × (1 + half_width)``, that ``data_parallel_cap`` held it (a trial read
        "[35.8%, 42.2%] ... band ±15%" with the top at the point and no reason)."""
        if self.half_width == 0:
            return "no band: the target is the pilot's own run (its measurement)"
        held = "" if self.mfu_high >= self.mfu * (1 + self.half_width) * (1 - 1e-9) else (
            f"; its top held at {self.mfu_high:.1%} by the pilot of this plan at fewer "
            "data-parallel replicas (its MFU, raised only as far as the engine itself predicts "
            "this plan faster: more replicas add gradient traffic)")
        if not self.novelties:
            return (f"band ±{self.half_width:.0%}, the narrowest: the target adds nothing the "
                    "pilot did not exercise" + held)
        return f"band ±{self.half_width:.0%} for: " + "; ".join(self.novelties) + held


def extrapolate(cal: Calibration, model, plan: ParallelPlan, seq_len: int,
                options: StepOptions | None = None,
                drift: dict | None = None) -> Extrapolation:
    """The target's step time and MFU with the calibrated ``Efficiency``, and its band.

    A target identical to a pilot (model, plan, sequence length, options; any pilot, not only
    the smallest) is that pilot's own measurement, with no band. Otherwise the compute factor
    carried is ``c^w``
    with ``w = transfer_weight(mean over the pilots of log(measured ÷ predicted MFU),
    runs_pilot_kernels(...), drift, distinct_kernel_pilots(pilots), shift, |log2(seq_len ÷ pilot
    seq_len)|)`` (the residual of a fit at its bound, and pilots that disagree:
    ``_pilots_residual``; ``shift = network_shift(pilot, target)`` when the
    pilots crossed the scale-out network without identifying it,
    ``Calibration.network_confounded``, else 0);
    each kernel class ``j`` takes ``c^(w × a_j)``, ``a_j`` the pilot's exposure to it
    (``Calibration.exposure``, ``scaled_efficiency``); the scale-out factor is carried whole.
    Band: ``mfu × (1 ± h)``, ``h =
    band_half_width(*band_terms(...))`` = ``BAND_HALF_WIDTH[min(k, 3)] + BAND_PER_SEQ_DOUBLING ×
    |log2(seq_len ÷ pilot seq_len)|``, ``k`` the novelties other than the sequence length.
    A target that is a pilot's plan at more data-parallel replicas is held (MFU and band top)
    at ``data_parallel_cap``.

    Raises
    ------
    ValueError
        A target smaller than the smallest pilot (``plan.n_gpus``), a ``plan`` that is not a
        ``ParallelPlan``, or a plan breaking a model rule.
    """
    if not isinstance(cal, Calibration):
        raise ValueError(f"cal={cal!r} must be a Calibration (llmcost.calibrate)")
    if not isinstance(plan, ParallelPlan):
        raise ValueError(f"target plan={plan!r} must be a ParallelPlan (llmcost.make_plan)")
    p0 = min(cal.pilots, key=lambda p: p.n_gpus)
    model = as_model(model)
    n = plan.n_gpus
    if n < p0.n_gpus:
        raise ValueError(f"target n_gpus={n} is smaller than the pilot's {p0.n_gpus}: a pilot "
                         "must be smaller than (or as large as) the run it extrapolates to")
    opts = p0.options if options is None else options
    for i, q in enumerate(cal.pilots):
        if plan == q.plan and int(seq_len) == int(q.seq_len) and opts == q.options \
                and same_model(model, q.model):
            # the target is a pilot's own run: its measurement is the figure, nothing to carry
            b = _step(model, q.accelerator, plan, seq_len, opts, cal.efficiency)
            t = q.tokens_per_step / (q.tokens_per_s_per_gpu * q.n_gpus)
            m = cal.measured_mfu[i]
            return Extrapolation(mfu=m, mfu_low=m, mfu_high=m, step_time_s=t,
                                 uncalibrated_mfu=cal.uncalibrated_mfu[i], transfer=1.0,
                                 half_width=0.0, novelties=(), breakdown=b)
    r, contrary = _pilots_residual(cal)
    # the target's own burst efficiency (its stack's: a validation series may join a pilot of
    # one stack to targets of another), uncalibrated and as the correction's base
    base = cal.base if opts == p0.options else base_efficiency(opts, p0.accelerator)
    u = _step(model, p0.accelerator, plan, seq_len, opts, base)
    shift = network_shift(_step(as_model(p0.model), p0.accelerator, p0.plan, p0.seq_len,
                                p0.options, cal.base), u) if cal.network_confounded else 0.0
    same = runs_pilot_kernels(cal.pilots, model, plan, seq_len)
    dbl = abs(math.log2(int(seq_len) / int(p0.seq_len)))
    n = distinct_kernel_pilots(cal.pilots)
    w, sig, noise, limited = _transfer(r, same, drift, n, shift, dbl)
    if contrary:
        w, limited = 0.0, False
    c = cal.compute_factor ** w   # a fit at its bound: the bound's factor (the docstring)
    eff = base if c == 1.0 and cal.scaleup_factor == 1.0 and cal.scaleout_factor == 1.0 \
        else scaled_efficiency(base, c, cal.scaleup_factor, cal.scaleout_factor, cal.exposure)
    b = _step(model, p0.accelerator, plan, seq_len, opts, eff)
    nov = novelties(p0, model, plan, seq_len)
    h = band_half_width(*band_terms(p0, model, plan, seq_len))
    cap = data_parallel_cap(cal, model, plan, seq_len, opts, u.mfu)
    m = b.mfu if cap is None else min(b.mfu, cap)
    return Extrapolation(mfu=m, mfu_low=m * (1 - h), mfu_high=min(m * (1 + h), cap or math.inf),
                         step_time_s=b.step_time_s * b.mfu / m, uncalibrated_mfu=u.mfu,
                         transfer=w, half_width=h, novelties=nov, breakdown=b, residual=r,
                         drift=sig, shift=shift,
                         capped_at=cap if cap is not None and b.mfu > cap else None,
                         noise=noise, limited=limited, saturated=cal.saturated > 0,
                         contrary=bool(contrary))


def _pilots_residual(cal: Calibration) -> tuple:
    """``(r, contrary)`` for ``extrapolate``: the pilots' mean residual r = mean ln(measured ÷
    predicted MFU), in which a fit at its bound (``Calibration.saturated``: the smallest pilot
    faster than the model with its main kernels at the datasheet rate) counts of the smallest
    pilot's only what the bound explains, ``ln(measured ÷ predicted) − ln(1 + saturated)``:
    the bound's factor is carried (c is the bound's), the excess, no kernel rate, is not; so with
    one pilot a faster pilot never bills a slower run (a trial saw 9,600 tokens/s per GPU bill
    51.9% and 9,700, at the bound, the uncalibrated 46.5%, when a fit at its bound carried
    nothing). ``contrary``: r and ln c (fitted on the smallest pilot) disagree in sign, pilots
    that contradict each other, and nothing is carried (a review saw the run slow as the small
    pilot grew faster)."""
    r = float(np.mean([math.log(m / u) for m, u in zip(cal.measured_mfu,
                                                        cal.uncalibrated_mfu)]))
    r -= math.log1p(cal.saturated) / len(cal.pilots) if cal.saturated > 0 else 0.0
    return r, bool(r * math.log(cal.compute_factor) < 0)


def data_parallel_cap(cal: Calibration, model, plan: ParallelPlan, seq_len: int,
                      options: StepOptions, target_mfu: float) -> float | None:
    """The most MFU a target can have when a pilot ran its very plan at fewer data-parallel
    replicas: that pilot's measured MFU (the least of them when several did), or None when no
    pilot did.

    "Its very plan": every ``ParallelPlan`` field but ``dp`` and the micro-batches per replica
    equal (TP, PP, CP, EP, micro-batch, schedule, virtual stages, ZeRO stage, recomputation,
    layer placement: ``_same_but_replicas``), with the same model, sequence length, step
    options and accelerator, and ``dp`` at the target at least the pilot's. Each GPU then runs
    the same kernels on the same micro-batches; a fixed global batch over more replicas gives
    each fewer of them, whose pipeline bubble and overlap the engine prices (the ratio below;
    a trial's CP 8 pilot, 8 micro-batches per replica against the run's 1, was billed above its
    own measurement when the count had to match); what more replicas add is the gradient
    reduction's traffic, whose ring bytes per GPU, ``2 (d − 1) ÷ d`` × the gradient bytes
    (Thakur, Rabenseifner & Gropp 2005; Patarasuk & Yuan 2009, J. Parallel Distrib. Comput.
    69(2): the bandwidth lower bound of an all-reduce; ``comm``), grow with the ``d`` replicas
    and cross more of the scale-out network: the step is no faster, the MFU no higher. The
    one term that shrinks with ``d``, a ZeRO-sharded optimizer update (1 ÷ d of the states per
    GPU), is the engine's to price: the cap is the measured MFU × ``max(1, target_mfu ÷ the
    pilot's uncalibrated MFU)``, so it moves above the measurement only where the uncalibrated
    engine itself predicts the target faster than the pilot."""
    caps, p0 = [], min(cal.pilots, key=lambda q: q.n_gpus)  # extrapolate prices on p0's GPU
    for q, meas, unc in zip(cal.pilots, cal.measured_mfu, cal.uncalibrated_mfu):
        if (plan.dp >= q.plan.dp and _same_but_replicas(q.plan, plan)
                and int(seq_len) == int(q.seq_len) and options == q.options
                and same_model(model, q.model)
                and accelerator_name(q.accelerator) == accelerator_name(p0.accelerator)):
            caps.append(meas * max(1.0, target_mfu / unc))
    return min(caps) if caps else None


def _same_but_replicas(a: ParallelPlan, b: ParallelPlan) -> bool:
    """Whether plans ``a`` and ``b`` differ at most in ``dp`` and the micro-batches each replica
    runs (``data_parallel_cap``'s "its very plan")."""
    skip = ("dp", "n_microbatches")
    return all(getattr(a, f.name) == getattr(b, f.name) for f in dataclasses.fields(a)
               if f.name not in skip)


@lru_cache(maxsize=1)
def _validation_configs():
    """``step_validation.validation_configs()`` indexed by run, read once (read-only here)."""
    return step_validation.validation_configs().set_index("run_id")


@lru_cache(maxsize=1)
def _published_runs():
    """``load_published_runs()`` indexed by run, read once (read-only here: ``published_pilot``
    reads one row per call, 296 calls in ``pilot_validation.validate``)."""
    return load_published_runs().set_index("run_id")


def published_pilot(run_id: str, reported_mfu: float | None = None) -> Pilot:
    """A published run of ``data/validation_mfu.csv`` as a ``Pilot``: the plan and settings
    ``step_validation.mfu_validation`` prices it with, and its measured throughput, tokens/s per
    GPU = reported MFU (workbook basis, dense BF16 peak) × peak ÷ ``flops_per_token(causal=False)``
    (``reported_mfu``: the row's ``step_validation.mfu_validation`` value, computed when not
    given).

    Raises
    ------
    ValueError
        ``run_id`` not in the validation table.
    """
    cfg = _validation_configs()
    if run_id not in cfg.index:
        raise ValueError(f"run_id={run_id!r} is not in data/validation_mfu.csv")
    c = cfg.loc[run_id].copy()
    c["run_id"] = run_id
    r = _published_runs().loc[run_id]
    s = int(r["seq_len"])
    model = step_validation.row_model(c, r, s)
    acc = load_accelerator(r["catalog_accelerator"])
    plan = step_validation.row_plan(c, r, model, s)
    options = step_validation.row_options(c)
    if reported_mfu is None:
        reported_mfu = step_validation.mfu_validation(sets=(c["set"],)).set_index("run_id").loc[
            run_id, "reported_mfu"]
    peak = acc.peak_flops_per_s("bf16")
    tps = float(reported_mfu) * peak / float(model.flops_per_token(s, causal=False))
    return Pilot(model=model, accelerator=acc.name, plan=plan, seq_len=s,
                 tokens_per_s_per_gpu=tps, options=options, label=run_id)


def _reworded(e: ValueError, message: str) -> ValueError:
    """``e``'s error in other words, of its kind where a caller tells them apart: a plan that
    does not fit stays a ``DoesNotFit`` (``pilot_study`` searches on it), any other a
    ``ValueError``."""
    return (DoesNotFit if isinstance(e, DoesNotFit) else ValueError)(message)


def pilots_from_scenario(p: dict) -> list:
    """The ``Pilot`` runs of a scenario's ``pilot:`` records: the scenario's model, accelerator
    (``catalog.scenario_accelerator``: with the scale-out bandwidth ``comm_scaleout_bytes_per_s``
    gives, where it does) and ``StepOptions`` (``step_scenario.scenario_step_options``: dtype,
    stack, recipe, overlaps), each
    record's plan (``make_plan``; TP, PP, CP, EP, micro-batch, virtual stages default 1; ZeRO
    stage and recompute default to the scenario's ``zero_stage`` and ``recompute`` where it
    fixes them, else 0 and none; sequence length, global batch tokens, the layer placement
    ``pp_split`` and the experts' TP ``etp`` (1 where the scenario folds) the scenario's).

    Raises
    ------
    ValueError
        No ``pilot`` records, or a record's plan breaking a rule (``pilot[i]: ...``).
    """
    recs = p.get("pilot") or []
    if not recs:
        raise ValueError("pilot: the scenario has no pilot runs; add a list of {n_gpus, "
                         "tokens_per_s_per_gpu, tp?, pp?, ...}")
    model, acc = load_model(p["model"]), scenario_accelerator(p)
    options = step_scenario.scenario_step_options(p)
    # a record's missing ZeRO stage and recomputation are the run's where the scenario fixes
    # them (not -1 / "auto": chosen by the search): a pilot runs the run's memory plan
    zero = p.get("zero_stage") if p.get("zero_stage") in (0, 1, 2, 3) else 0
    recompute = p.get("recompute") if p.get("recompute") in ("none", "selective", "full") \
        else "none"
    out = []
    for i, r in enumerate(recs):
        s = int(r.get("seq_len", p["seq_len"]))
        tokens = int(r.get("global_batch_tokens", p["global_batch_tokens"]))
        v = int(r.get("virtual_stages", 1))
        try:
            if tokens % s:
                raise ValueError(f"global_batch_tokens={tokens} must be a whole number of "
                                 f"{s}-token sequences")
            plan = make_plan(model, int(r["n_gpus"]), tokens // s, tp=int(r.get("tp", 1)),
                             pp=int(r.get("pp", 1)), cp=int(r.get("cp", 1)),
                             ep=int(r.get("ep", 1)), virtual_stages=v,
                             schedule="interleaved" if v > 1 else "1f1b",
                             micro_batch_size=int(r.get("micro_batch_size", 1)),
                             zero_stage=int(r.get("zero_stage", zero)),
                             recompute=r.get("recompute", recompute), seq_len=s,
                             pp_split=r.get("pp_split", p.get("pp_split", "even")),
                             etp=etp_of_key(r.get("etp", p.get("etp", 0))))
            mem = r.get("peak_memory_gb")
            hbm = acc.hbm_bytes
            if mem is not None and hbm and float(mem) * 1e9 > hbm:
                raise ValueError(f"peak_memory_gb={mem} exceeds the {p['accelerator']}'s HBM "
                                 f"({hbm / 1e9:.1f} GB per GPU)")
            out.append(Pilot(model=model, accelerator=acc, plan=plan, seq_len=s,
                             tokens_per_s_per_gpu=float(r["tokens_per_s_per_gpu"]),
                             options=options, step_time_s=r.get("step_time_s"),
                             mfu=r.get("mfu"), mfu_basis=r.get("mfu_basis", "full"),
                             peak_memory_bytes=None if mem is None else float(mem) * 1e9,
                             label=f"pilot[{i}]"))
            check_pilot(out[-1])
        except ValueError as e:
            raise _reworded(e, _record_error(i, e)) from None
    return out


def _record_error(i: int, e: Exception) -> str:
    """A pilot's error in the scenario's spelling: ``check_pilot``'s "pilot mfu=1.3 ..." is the
    record's field, "pilot[0].mfu=1.3 ..."; any other rule is prefixed "pilot[0]: ..."."""
    msg = str(e)
    return f"pilot[{i}].{msg[len('pilot '):]}" if msg.startswith("pilot ") else \
        f"pilot[{i}]: {msg}"


def scenario_calibration(p: dict, plan: ParallelPlan | None = None) -> tuple:
    """Calibrate on the scenario's pilots and extrapolate to its plan (``plan``, by default
    ``calibrated_plan``: the scenario's search ranked by the calibrated model).

    Returns
    -------
    (Calibration, Extrapolation, ParallelPlan)

    Raises
    ------
    ValueError
        As ``pilots_from_scenario``, ``calibrate`` and ``extrapolate`` (a pilot larger than the
        scenario's run).
    """
    # before the pilots' plans are built: a pilot larger than the run is named as such, not as
    # the batch or memory rule its plan may break first
    sizes = [(r.get("n_gpus"), i) for i, r in enumerate(p.get("pilot") or [])
             if isinstance(r, dict) and isinstance(r.get("n_gpus"), (int, float))
             and not isinstance(r.get("n_gpus"), bool)]
    if sizes and min(sizes)[0] > int(p["n_gpus"]):
        n, i = min(sizes)
        raise ValueError(f"pilot[{i}].n_gpus={n:,} is above the scenario's n_gpus="
                         f"{int(p['n_gpus']):,}: a pilot must be smaller than (or as large as) "
                         "the run it extrapolates to")
    pilots = pilots_from_scenario(p)
    c = calibrate(pilots)
    model = load_model(p["model"])
    plan = calibrated_plan(p, model, c) if plan is None else plan
    x = extrapolate(c, model, plan, int(p["seq_len"]),
                    options=step_scenario.scenario_step_options(p))
    return c, x, plan


def calibrated_plan(p: dict, model, cal: Calibration) -> ParallelPlan:
    """The scenario's plan chosen by the calibrated step-time model: the search of
    ``step_scenario.scenario_plan`` (its fixed fields kept, the free ones by predicted step
    time, ``parallel.plan_from_parameters``) ranked with the scenario's step options at the
    calibrated efficiency ``scaled_efficiency(base, c, scale-up, scale-out, exposure)``, the
    network factors carried whole as ``extrapolate`` carries them and the compute factor ``c``
    at full strength. ``extrapolate`` then carries a share ``w`` of ``c`` that depends on
    whether a plan runs the pilots' kernels (``transfer_weight``), so the plan priced is the
    fastest at ``c`` whole, not always at the share carried: a known gap, a hair in practice
    (0.08% between ZeRO stages in ``tests/test_bill_pilot.py``).

    Before, the plan was searched with the uncalibrated engine and priced calibrated: Llama 3.1
    70B on 128 H100 between pilots at 64 and 256 GPUs (450 and 430 tokens/s per GPU, scale-out
    fitted at x0.059) chose ZeRO-2, whose data-parallel traffic at the calibrated network made
    the step 1,337 s (MFU 4.8%); the calibrated search chooses ZeRO-1 at 238 s (26.8%).

    Raises
    ------
    ValueError
        As ``parallel.plan_from_parameters`` (a divisibility or memory rule, named).
    """
    eff = scaled_efficiency(cal.base, cal.compute_factor, cal.scaleup_factor,
                            cal.scaleout_factor, cal.exposure)
    opts = step_scenario.scenario_step_options(p).replace(efficiency=eff)

    def factory(m, cluster, seq_len, recipe):
        return time_ranking(m, cluster, seq_len, recipe, options=opts)
    return plan_from_parameters(p, model, rank_factory=factory)


def priced_plan(p: dict, model: ModelSpec | None = None) -> tuple:
    """(plan, words): the plan the bill prices for the scenario ``p``, and how it was chosen.

    With ``pilot:`` records, ``calibrated_plan``: the scenario's search ranked by the step-time
    model calibrated on them (``calibrate(pilots_from_scenario(p))``), the plan
    ``scenario_calibration`` extrapolates the bill's MFU to (``bill.pilot.pilot_mfu``); the words
    say so, with the plan the uncalibrated search (``step_scenario.scenario_plan``) finds where
    it differs. Without, ``step_scenario.scenario_plan`` and "" (nothing to add). Notebooks 02,
    03, 04 and 04b show this plan, so that they show the plan the bill prices.

    Raises
    ------
    ValueError
        As ``pilots_from_scenario``, ``calibrate`` and ``calibrated_plan``.
    """
    model = load_model(p["model"]) if model is None else model
    searched = step_scenario.scenario_plan(p, model)
    if not p.get("pilot"):
        return searched, ""
    cal = calibrate(pilots_from_scenario(p))
    plan = calibrated_plan(p, model, cal)
    sizes = ", ".join(f"{q.n_gpus:,}" for q in cal.pilots)
    other = "" if plan == searched else (
        f"; the uncalibrated step-time model alone would choose {searched.describe()}")
    return plan, (f"the plan the bill prices: chosen by the step-time model calibrated on the "
                  f"scenario's {len(cal.pilots)} {noun(len(cal.pilots), 'pilot run')} at "
                  f"{sizes} GPUs "
                  f"(llmcost.training.calibrate.calibrated_plan){other}")


def pilots_plan_at(p: dict, cal: Calibration) -> ParallelPlan:
    """The plan the pilots' kernels were measured on, at the run's scale: the largest pilot's
    TP, PP, CP, EP, micro-batch, virtual stages, schedule, ZeRO stage, recomputation and layer
    placement fixed in the scenario ``p`` (its GPU count and global batch), data parallelism
    derived (``step_scenario.scenario_plan``, which checks it fits in memory).

    Raises
    ------
    ValueError
        The pilots' plan cannot run the scenario (a divisibility or memory rule, named).
    """
    big = max(cal.pilots, key=lambda q: q.n_gpus)
    fixed = {k: getattr(big.plan, f) for k, (f, _) in PLAN_PARAMETER_FIELDS.items()}
    fixed["etp"] = 1 if big.plan.etp == 1 else 0      # MoE parallel folding, as the pilots ran
    return step_scenario.scenario_plan({**p, **fixed, "dp": 0, "pp_split": big.plan.pp_split},
                                       load_model(p["model"]))


#: An extrapolated MFU below this fraction of the largest pilot's measured one is said with its
#: sensitivity to that pilot (``extrapolation_sensitivity``): a reader's threshold, a fifth of
#: the MFU lost between the pilots and the run, not a constant of the model.
EXTRAPOLATION_DROP_WARNING = 0.8


def extrapolation_sensitivity(p: dict, cal: Calibration, x: Extrapolation) -> str | None:
    """A sentence when the MFU extrapolated to the scenario's run, m, is below
    ``EXTRAPOLATION_DROP_WARNING`` × the MFU its largest pilot measured, m_big, with the
    network fitted below the catalogue's (``Calibration.scaleout_factor`` < 1): the fit puts
    the pilots' decline on the network and carries it whole to the run, so the answer rests on
    small differences between the pilots. Said with m recomputed (``scenario_calibration``)
    with that pilot's tokens/s 1 % higher, a measurement's noise: a trial saw 27.5 % move to
    31.1 %, 35.8 % and 41.4 % as one pilot's throughput rose by 1 % steps, each band ±15 %.
    None otherwise (no pilot records, one pilot, or no such drop)."""
    recs = p.get("pilot") or []
    if len(cal.pilots) < 2 or not cal.scaleout_factor < 1 or not recs:
        return None
    i_big = max(range(len(cal.pilots)), key=lambda i: cal.pilots[i].n_gpus)
    m_big, n_big = cal.measured_mfu[i_big], cal.pilots[i_big].n_gpus
    if not x.mfu < EXTRAPOLATION_DROP_WARNING * m_big:
        return None
    j = max(range(len(recs)), key=lambda i: recs[i].get("n_gpus", 0))
    moved = [dict(r) for r in recs]
    moved[j]["tokens_per_s_per_gpu"] = 1.01 * float(moved[j]["tokens_per_s_per_gpu"])
    try:
        x2 = scenario_calibration({**p, "pilot": moved})[1]
    except ValueError:
        return None
    return (f"the MFU extrapolated to the run, {x.mfu:.1%}, is {1 - x.mfu / m_big:.0%} below "
            f"the {m_big:.1%} the largest pilot measured on {fmt_gpus(n_big)}: the fit puts the "
            f"pilots' decline on the network (x{cal.scaleout_factor:.3g} of its bandwidth) and "
            f"carries it whole; with that pilot's tokens/s 1% higher the run's MFU would be "
            f"{x2.mfu:.1%}, so it rests on small differences between the pilots, more than its "
            "band says: a pilot nearer the run's scale would settle it")


def pilot_plan_warning(p: dict, cal: Calibration, x: Extrapolation,
                       plan: ParallelPlan) -> str | None:
    """A warning, in words, when the run's ``plan`` runs none of the pilots' kernels
    (``runs_pilot_kernels``: model, micro-batch × sequence per TP rank, recomputation, TP), so
    that the pilots' compute correction is carried only in part (``x.transfer``,
    ``transfer_weight``) and the bill's MFU rests on the uncalibrated model for that plan: it
    names both plans, the share carried, the pilots' measured MFUs and the MFU the run would
    have with the pilots' own plan (``pilots_plan_at``, ``extrapolate``), and says how to pin
    it. None when the run runs a pilot's kernels.

    The plan search is kept (a choice, not a measurement): the records' unstated micro-batch,
    schedule and ZeRO stage are defaults (1, 1F1B, the scenario's), not facts about the pilots,
    and a scenario that pins nothing asks for the fastest plan; the warning gives the figure a
    reader needs to choose.
    """
    model, s = load_model(p["model"]), int(p["seq_len"])
    if runs_pilot_kernels(cal.pilots, model, plan, s):
        return None
    big = max(cal.pilots, key=lambda q: q.n_gpus)
    try:
        theirs = pilots_plan_at(p, cal)
        y = extrapolate(cal, model, theirs, s, options=step_scenario.scenario_step_options(p))
        alt = (f"with the pilots' plan at {fmt_gpus(plan.n_gpus)} ({theirs.describe()}) the MFU "
               f"would be {y.mfu:.1%} (band {y.mfu_low:.1%}-{y.mfu_high:.1%})")
        keys = ", ".join(f"{k}: {getattr(theirs, f)}" for k, (f, _) in
                         PLAN_PARAMETER_FIELDS.items() if k != "dp")
    except ValueError as e:
        alt = f"the pilots' plan cannot run the {plan.n_gpus:,}-GPU job ({e})"
        keys = None
    measured = ", ".join(f"{m:.1%}" for m in cal.measured_mfu)
    return (f"pilot: the run's plan ({plan.describe()}) runs none of the pilots' kernels "
            f"(theirs: {big.plan.describe()}; {kernel_differences(big, plan, s)}), so "
            f"{x.transfer:.0%} of the pilots' compute correction (x{cal.compute_factor:.3f}) "
            f"is carried: the bill's MFU {x.mfu:.1%} (uncalibrated model {x.uncalibrated_mfu:.1%}"
            f") is {_versus_measured(x.mfu, cal.measured_mfu)} what the pilots measured "
            f"({measured}); {alt}" + (
                f". Pin the plan the pilots ran ({keys}) to bill it, or, if the pilots ran the "
                "run's plan, give its keys (tp, pp, micro_batch_size, ...) in the pilot "
                "records" if keys else ""))


def kernel_differences(pilot: Pilot, plan: ParallelPlan, seq_len: int) -> str:
    """What differs between the pilot's kernels and the target plan's, of the settings
    ``same_kernels`` compares (micro-batch × sequence per TP rank, recomputation, TP), in words:
    "differs: micro-batch × sequence per CP rank 16,384 tokens against 4,096"; the model is compared
    elsewhere."""
    q = pilot.plan
    got = []
    mine, theirs = (plan.micro_batch_size * seq_len // plan.cp,
                    q.micro_batch_size * pilot.seq_len // q.cp)
    if mine != theirs:
        got.append(f"micro-batch × sequence per CP rank {mine:,} tokens against {theirs:,}")
    if plan.recompute != q.recompute:
        got.append(f"recomputation {plan.recompute} against {q.recompute}")
    if plan.tp != q.tp:
        got.append(f"TP {plan.tp} against {q.tp}")
    return ("differs: " + ", ".join(got)) if got else "the model differs"


def _versus_measured(mfu: float, measured) -> str:
    """Where ``mfu`` sits against the pilots' ``measured`` MFUs, in words (to the 0.1 % the
    warning prints): "above", "below", "within the range of" or "equal to"."""
    m = [round(v, 3) for v in measured]
    x = round(mfu, 3)
    if x > max(m):
        return "above"
    if x < min(m):
        return "below"
    return "equal to" if min(m) == max(m) == x else "within the range of"


def shorthand_pilot(p: dict, plan: ParallelPlan) -> tuple:
    """The ``pilot:`` record the one-number shorthand ``ledger_pilot_tokens_per_s_per_gpu``
    stands for, and the assumption in words.

    The pilot ran the scenario's plan ``plan`` (TP, PP, CP, EP, ZeRO stage, micro-batch,
    virtual stages, recomputation, sequence length) at ``ledger_pilot_n_gpus`` GPUs with the
    same micro-batches per data-parallel rank (global batch × DP_pilot ÷ DP_target: the bubble
    and the kernels are the run's; weak scaling of the batch, as a pilot of a plan is run).
    Without ``ledger_pilot_n_gpus`` the stated assumption is that the pilot *is* the run's plan at
    its GPU count (a measurement of its first steps): the extrapolation is then the measurement.

    Raises
    ------
    ValueError
        ``ledger_pilot_n_gpus`` above the scenario's ``n_gpus`` or not a whole number of
        model-parallel groups (TP × PP × CP GPUs).
    """
    tps = p["ledger_pilot_tokens_per_s_per_gpu"]
    n = p.get("ledger_pilot_n_gpus")
    group = plan.tp * plan.pp * plan.cp
    if n is None:
        n, said = plan.n_gpus, (f"assumed to have run the scenario's plan at its {plan.n_gpus:,} "
                                "GPUs (ledger_pilot_n_gpus not given)")
    else:
        n = int(n)
        said = f"run at ledger_pilot_n_gpus={n:,} with the scenario's plan"
        if n > plan.n_gpus:
            raise ValueError(f"ledger_pilot_n_gpus={n} is above the scenario's n_gpus="
                             f"{plan.n_gpus}: a pilot must be smaller than (or as large as) the "
                             "run it extrapolates to")
        if n % group or (n // group) % ep_dp_unit(plan):
            raise ValueError(f"ledger_pilot_n_gpus={n} must be a whole number of the plan's "
                             f"model-parallel groups (TP x PP x CP = {group} GPUs, DP a multiple "
                             f"of {ep_dp_unit(plan)} for EP={plan.ep}) to run "
                             f"{plan.describe()}")
    dp = n // group
    seqs = plan.global_batch_size // plan.dp * dp
    rec = {"n_gpus": n, "tokens_per_s_per_gpu": float(tps), "tp": plan.tp, "pp": plan.pp,
           "cp": plan.cp, "ep": plan.ep, "zero_stage": plan.zero_stage,
           "micro_batch_size": plan.micro_batch_size, "virtual_stages": plan.virtual_stages,
           "recompute": plan.recompute, "pp_split": plan.pp_split, "seq_len": int(p["seq_len"]),
           "global_batch_tokens": int(seqs * int(p["seq_len"]))}
    if plan.etp is not None:
        rec["etp"] = plan.etp
    return rec, said


def shorthand_calibration(p: dict, plan: ParallelPlan | None = None) -> tuple:
    """``ledger_pilot_tokens_per_s_per_gpu`` through the ``pilot:`` path: the pilot of
    ``shorthand_pilot`` calibrated (``calibrate``) and extrapolated to the scenario's plan
    (``extrapolate``), so a pilot at fewer GPUs gives the run's MFU with a band, not the pilot's
    MFU copied. ``plan``: the scenario's plan when already resolved (else
    ``step_scenario.scenario_plan``).

    Returns
    -------
    (Calibration, Extrapolation, ParallelPlan, assumption in words)

    Raises
    ------
    ValueError
        Naming ``ledger_pilot_tokens_per_s_per_gpu`` (above the roofline, a plan that does not
        fit at the pilot's scale) or ``ledger_pilot_n_gpus``.
    """
    model = load_model(p["model"])
    plan = step_scenario.scenario_plan(p, model) if plan is None else plan
    rec, said = shorthand_pilot(p, plan)
    try:
        c, x, plan = scenario_calibration({**p, "pilot": [rec]}, plan=plan)
    except ValueError as e:
        raise _reworded(e, f"ledger_pilot_tokens_per_s_per_gpu={rec['tokens_per_s_per_gpu']:,.0f}"
                        f" (a pilot {said}): "
                        f"{str(e).removeprefix('pilot[0]: ').removeprefix('pilot[0].')}") from None
    # its warnings name the scenario's key, not a pilot: record the scenario does not have
    named = tuple(w.replace("pilot[0] (", "ledger_pilot_tokens_per_s_per_gpu (", 1)
                  for w in c.warnings)
    return dataclasses.replace(c, warnings=named), x, plan, said


def illustrative_pilot_row(accelerator: str, dtype: str, n_params: float,
                           is_moe: bool | None = None, seq_len: int | None = None) -> str | None:
    """The published run whose error an illustrative pilot carries when a scenario gives no pilot
    (``illustrative_pilot_match``'s run; None where no run of the scenario's class is
    published)."""
    return illustrative_pilot_match(accelerator, dtype, n_params, is_moe, seq_len)[0]


#: Models whose parameter counts are within this of the closest one's (|Δ log N|, 2 %) are one
#: size to ``illustrative_pilot_match``: the same model counted at another context.
SAME_SIZE_LOG = 0.02


def illustrative_pilot_match(accelerator: str, dtype: str, n_params: float,
                             is_moe: bool | None = None, seq_len: int | None = None) -> tuple:
    """The published run whose error (measured ÷ predicted MFU) an illustrative pilot carries, and
    how well it matches the scenario: among the rows of ``data/validation_mfu.csv``
    (``step_validation.validation_configs``) of the scenario's class (``is_moe``: dense or
    mixture-of-experts, where given) the first non-empty of

        1. the scenario's accelerator and dtype;
        2. its GPU generation (``accuracy.gpu_generation``: Ampere, Hopper, Blackwell; Blackwell
           Ultra apart, ``accuracy.same_chip_class``) and dtype;
        3. its accelerator, any dtype;   4. its generation, any dtype;
        5. any accelerator, its dtype;   6. any row,

    the one whose model is closest in parameters (|log N_row − log N|; rows within
    ``SAME_SIZE_LOG`` of the closest count as one size: llm-foundry's MPT-13B is 12.85e9 to
    13.01e9 parameters at 1k to 32k tokens, its position table's), among those the one whose
    sequence length is closest to ``seq_len`` (|log S_row − log S|, where given: a run at 8× the
    scenario's context spends another share of its FLOPs in attention; a review found an A100
    13B scenario at 4,096 tokens given the 32,768-token run of the same model), then the nearest
    in parameters, then the fewest GPUs.
    A generation's kernels, memory bandwidth and FP8 support set its MFU, so a run of another
    generation or precision is a late resort (an FP8 Blackwell run's MFU is not an A100 BF16
    pilot's); an MoE step's dispatch and grouped GEMMs are no dense model's, so a run of the
    other class is never taken (a trial's DeepSeek-V3 on H200 took a dense 8B H200 run's MFU,
    where DeepSeek's own H800 FP8 run is published). Returns ``(run_id, words)``: ``words`` is
    "" in tier 1, else says which match failed and what was taken; ``(None, words)`` when no
    run of the class is published, ``words`` saying so in one sentence."""
    cfg = step_validation.validation_configs()
    runs = load_published_runs().set_index("run_id")
    cfg = cfg[cfg["run_id"].isin(runs.index)].copy()
    cfg["accelerator"] = cfg["run_id"].map(runs["catalog_accelerator"])
    cfg["params"] = cfg["run_id"].map(runs["params_total"]).astype(float)
    cfg["n_gpus"] = cfg["run_id"].map(runs["n_accelerators"]).astype(float)
    cfg["seq"] = cfg["run_id"].map(runs["seq_len"]).astype(float)
    active = cfg["run_id"].map(runs["params_active"]).astype(float)
    cfg = cfg[(cfg["params"] > 0) & ((active < cfg["params"]) == bool(is_moe)
                                     if is_moe is not None else True)]
    kind = "" if is_moe is None else "mixture-of-experts " if is_moe else "dense "
    gen = gpu_generation(accelerator)
    same_gen = (cfg["accelerator"].map(gpu_generation) == gen) \
        & same_chip_class(cfg["accelerator"], accelerator)
    same_acc, same_dtype = cfg["accelerator"] == accelerator, cfg["dtype"] == dtype
    for tier, mask in enumerate((same_acc & same_dtype, same_gen & same_dtype, same_acc,
                                 same_gen, same_dtype, same_acc | ~same_acc), start=1):
        pick = cfg[mask]
        if len(pick):
            d = (np.log(pick["params"]) - math.log(float(n_params))).abs()
            ds = (np.log(pick["seq"]) - math.log(float(seq_len))).abs() if seq_len else 0.0
            near = d <= d.min() + SAME_SIZE_LOG  # one model counted at several contexts
            row = pick[near].assign(d=d[near], ds=ds[near] if seq_len else 0.0).sort_values(
                ["ds", "d", "n_gpus"]).iloc[0]
            said = "Blackwell Ultra" if accelerator in BLACKWELL_ULTRA else gen  # rule 7's class
            return str(row["run_id"]), _match_words(tier, accelerator, said, dtype, row, kind)
    if kind:
        return None, (f"no published {kind}run is in data/validation_mfu.csv, so no "
                      "illustrative pilot of this scenario's class is calibrated here")
    raise ValueError("data/validation_mfu.csv has no published run with a parameter count")


def _match_words(tier: int, accelerator: str, gen: str, dtype: str, row, kind: str = "") -> str:
    """What ``illustrative_pilot_match``'s tier says: "" on the scenario's accelerator and dtype;
    else the match that failed (of the scenario's class ``kind``, "dense " or
    "mixture-of-experts ", where known) and the run taken (its accelerator and dtype)."""
    taken = f"taken from {row['accelerator']} in {row['dtype']}"
    run = f"no published {kind}run"
    return {1: "",
            2: f"{run} on {accelerator} in {dtype}: one of the same generation "
               f"({gen}) and precision, {taken}",
            3: f"{run} of the {gen} generation in {dtype}: {taken}",
            4: f"{run} on {accelerator} nor of the {gen} generation in {dtype}: {taken}",
            5: f"{run} of the {gen} generation: {taken}",
            6: f"{run} of the {gen} generation nor in {dtype}: {taken}"}[tier]


#: The largest share of the run's GPUs an illustrative pilot takes (an illustration's choice,
#: not a measured figure): a pilot runs on a few nodes, so that the full run extrapolates from it
#: (a pilot on every GPU of the run would be the run itself, with no band to carry).
ILLUSTRATIVE_PILOT_MAX_SHARE = 1 / 8


def illustrative_pilot_gpus(plan: ParallelPlan, published_gpus: int) -> int:
    """The GPU count of an illustrative pilot of ``plan``: the published run's count rounded up
    to whole model-parallel groups of g = TP × PP × CP × u GPUs (u = ``ep_dp_unit``: EP, or
    under MoE parallel folding EP ÷ gcd(EP, TP·CP)), and at most
    ``ILLUSTRATIVE_PILOT_MAX_SHARE`` of the run's GPUs in whole groups (at least one group):

        n = g × max(1, min(⌈n_published ÷ g⌉, ⌊share × n_gpus ÷ g⌋)).

    Smaller than the run unless one model-parallel group is the whole run."""
    if isinstance(published_gpus, bool) or not isinstance(published_gpus, numbers.Integral) \
            or published_gpus < 1:
        raise ValueError(f"published_gpus={published_gpus!r} must be a whole number >= 1")
    group = plan.tp * plan.pp * plan.cp * ep_dp_unit(plan)
    most = math.floor(ILLUSTRATIVE_PILOT_MAX_SHARE * plan.n_gpus / group)
    return group * max(1, min(math.ceil(published_gpus / group), most))


@dataclass(frozen=True)
class PilotStudy:
    """A pilot calibrated and extrapolated to a scenario's run (``pilot_study``):
    ``calibration``, ``extrapolation``, the target ``plan``, the assumption ``said``, whether the
    pilot is ``illustrative`` and where its throughput comes from (``source``); ``gpu_hours`` and
    ``compute_usd`` are the main run's (central, low, high) at the band's MFU bounds. With no
    published run of the scenario's class (``illustrative_pilot_match``) ``calibration`` and
    ``extrapolation`` are None, the figures NaN and ``source`` says why."""

    calibration: Calibration
    extrapolation: Extrapolation
    plan: ParallelPlan
    said: str
    illustrative: bool
    source: str
    gpu_hours: tuple
    compute_usd: tuple

    @property
    def pilot(self) -> Pilot | None:
        return None if self.calibration is None else self.calibration.pilots[0]


def _illustrative_calibration(p: dict, q: dict, plan, model, row: str, match: str) -> tuple:
    """``pilot_study``'s illustrative pilot, ``(calibration, extrapolation, plan, said,
    source)``: the scenario's plan on ``illustrative_pilot_gpus`` of the published run ``row``
    (doubled, up to the run's count, while the plan's model states do not fit there), at the
    MFU the step-time model predicts for it (uncalibrated, ``u``) × the published run's
    measured ÷ predicted MFU (``r``, its row of ``step_validation.mfu_validation``: the
    model's error on that run as it ran, its stack, plan and precision), held at the best
    comparable published run (``accuracy.published_ceiling``, on the dtype's peak: a pilot
    measures no more than every published run like it; said in ``source``), so

        tokens/s per GPU = min(u × r, ceiling) × peak(dtype) ÷ flops_per_token(seq_len,
        causal=False).

    The published MFU itself was taken before: a new-user trial's 3B run without
    recomputation took a 2021 full-recompute run's 33.5%, called the kernels 0.46 of the
    model's and priced the main run at twice the bill. A pilot measures this plan, not
    another run's, so what carries over is the error."""
    pub = published_pilot(row)
    v = step_validation.mfu_validation(sets=(str(_validation_configs().loc[row, "set"]),))
    v = v.set_index("run_id").loc[row]
    if not (float(v["predicted_mfu"]) > 0 and math.isfinite(float(v["reported_mfu"]))):
        raise ValueError(f"illustrative pilot: the published run {row} has no usable predicted "
                         f"and measured MFU ({v['predicted_mfu']!r}, {v['reported_mfu']!r})")
    r = float(v["reported_mfu"]) / float(v["predicted_mfu"])
    q["ledger_pilot_n_gpus"] = illustrative_pilot_gpus(plan, pub.n_gpus)
    peak = load_accelerator(p["accelerator"]).peak_flops_per_s(p.get("dtype", "bf16"))
    per_token = float(model.flops_per_token(int(p["seq_len"]), causal=False))
    q["ledger_pilot_tokens_per_s_per_gpu"] = measured_mfu(pub) * peak / per_token  # a first look
    while True:  # a plan whose ZeRO shards fit only over more data-parallel ranks: double
        try:
            c, _, _, _ = shorthand_calibration(q, plan=plan)
            break
        except DoesNotFit:
            if q["ledger_pilot_n_gpus"] >= plan.n_gpus:
                raise
            q["ledger_pilot_n_gpus"] = min(2 * q["ledger_pilot_n_gpus"], plan.n_gpus)
    u = float(c.uncalibrated_mfu[0])
    dtype = p.get("dtype", "bf16")
    top, where = published_ceiling(p["accelerator"], float(model.n_params), dtype,
                                   is_moe=model.is_moe, seq_len=int(p["seq_len"]))
    held = top is not None and u * r > top   # no pilot measures above every comparable run
    mfu = top if held else u * r
    tps = mfu * peak / per_token
    q["ledger_pilot_tokens_per_s_per_gpu"] = tps
    c, x, plan, said = shorthand_calibration(q, plan=plan)
    source = (f"illustrative: the published run {row} ({pub.n_gpus} x {pub.accelerator}, "
              f"data/validation_mfu.csv) measured {float(v['reported_mfu']):.1%} of the BF16 "
              f"peak where the step-time model predicts {float(v['predicted_mfu']):.1%} for it "
              f"as it ran (measured ÷ predicted {r:.3f}); the pilot is this scenario's plan at "
              f"the model's {u:.1%} × {r:.3f}"
              + (f" = {u * r:.1%}, held at {top:.1%}, {where}" if held else "")
              + f", {tps:,.0f} tokens/s per GPU, as if it had measured that: the published run's "
              "error carried, not its MFU (its stack, plan and precision are its own)"
              + (f"; {match}" if match else ""))
    return c, x, plan, said, source


def pilot_study(p: dict, plan: ParallelPlan | None = None,
                price_usd_per_gpu_hour: float | None = None) -> PilotStudy:
    """What a pilot says about the full run: the scenario's own pilots (its ``pilot:`` records,
    calibrated and extrapolated by ``scenario_calibration``, as the bill uses them; else
    ``ledger_pilot_tokens_per_s_per_gpu`` at ``ledger_pilot_n_gpus``) or, when it gives none,
    an **illustrative** one (none, said in ``source``, where no run of the scenario's class,
    dense or MoE, is published): the scenario's plan at the GPU count of the published run
    ``illustrative_pilot_row`` picks, in whole model-parallel groups and at most an eighth of the
    run (``illustrative_pilot_gpus``; doubled, up to the run's count, while the plan's model
    states do not fit at it: a ZeRO plan on 8 GPUs shards them over 8 ranks, not over the one
    an eighth leaves), measuring the step-time model's prediction for it × that run's
    measured ÷ predicted MFU (``_illustrative_calibration``: the published run's error carried
    to this plan, not its MFU).
    ``plan``: the target (by default, or when it is ``step_scenario.scenario_plan``'s, the
    scenario's plan; with ``pilot:`` records that is the plan the calibrated model finds
    fastest, ``calibrated_plan``, the plan the bill prices).
    The shorthand and the illustrative pilot are calibrated and extrapolated by
    ``shorthand_calibration``; the main run's

        GPU-hours = train_tokens ÷ tokens_per_step × step_time_s × n_gpus ÷ 3600

    (``Extrapolation.gpu_hours``: the band's MFU bounds scale the step time inversely) and its
    compute cost at ``price_usd_per_gpu_hour`` (NaN when not given).

    Raises
    ------
    ValueError
        As ``shorthand_calibration`` (naming ``ledger_pilot_tokens_per_s_per_gpu`` or
        ``ledger_pilot_n_gpus``).
    """
    model = load_model(p["model"])
    searched = step_scenario.scenario_plan(p, model)
    q = dict(p)
    records = q.get("pilot") or []
    # the pilots' scenario: its plan is the calibrated search's (calibrated_plan), as the bill's
    plan = (None if records else searched) if plan is None or plan == searched else plan
    illustrative = not records and q.get("ledger_pilot_tokens_per_s_per_gpu") is None
    if records:  # the scenario's pilot runs, as the bill calibrates on them
        c, x, plan = scenario_calibration(q, plan=plan)
        said, source = "", (f"the scenario's {len(c.pilots)} {noun(len(c.pilots), 'pilot run')}, "
                            + "; ".join(
            f"{fmt_gpus(r.n_gpus)} at {r.tokens_per_s_per_gpu:,.0f} tokens/s per GPU"
            for r in c.pilots))
    elif illustrative:
        row, match = illustrative_pilot_match(p["accelerator"], p.get("dtype", "bf16"),
                                              float(model.n_params), model.is_moe,
                                              p.get("seq_len"))
        if row is None:  # no published run of the scenario's class: no calibration
            return PilotStudy(calibration=None, extrapolation=None, plan=plan, said="",
                              illustrative=True, source=match, gpu_hours=(math.nan,) * 3,
                              compute_usd=(math.nan,) * 3)
        c, x, plan, said, source = _illustrative_calibration(p, q, plan, model, row, match)
    else:
        source = (f"the scenario's ledger_pilot_tokens_per_s_per_gpu "
                  f"{q['ledger_pilot_tokens_per_s_per_gpu']:,.0f}")
        c, x, plan, said = shorthand_calibration(q, plan=plan)
    tokens_per_step = plan.global_batch_size * int(p["seq_len"])
    h = x.gpu_hours(float(p["train_tokens"]), plan.n_gpus, tokens_per_step)
    price = math.nan if price_usd_per_gpu_hour is None else float(price_usd_per_gpu_hour)
    return PilotStudy(calibration=c, extrapolation=x, plan=plan, said=said,
                      illustrative=illustrative, source=source, gpu_hours=h,
                      compute_usd=tuple(v * price for v in h))


# ------------------------------------------------------------------ your own GPU: microbenchmarks
#: Attention FLOPs of one causal forward + backward pass ÷ its forward's: the backward runs 5
#: matmuls against the forward's 2 (Dao 2023, FlashAttention-2, arXiv:2307.08691, Alg. 2; its
#: benchmarks/benchmark_flash_attention.py counts ``fwd_bwd`` = 3.5 × ``fwd``), the same 2.5 ×
#: the engine's ``step._attention_core`` gives the backward.
ATTENTION_FWD_BWD_OVER_FWD = 3.5


def attention_flops(batch, heads, seq_len, head_dim, causal: bool = True,
                    backward: bool = True) -> float:
    """FLOPs of one scaled-dot-product attention of ``batch × heads`` sequences of ``seq_len``
    tokens with head dimension ``head_dim`` (queries, keys and values alike), as the engine counts
    them (``step._attention_core``): forward ``2 · b · h · s · (d_qk + d_v) · keys`` with
    ``keys`` = (s + 1) ÷ 2 under a causal mask (query i attends keys 1..i,
    ``ModelSpec.mean_attended_keys``) or s without one, i.e. ``4 · b · h · s · d · keys``
    (QKᵀ and PV, one multiply-add = 2 FLOP); forward + backward ``3.5 ×`` the forward
    (``ATTENTION_FWD_BWD_OVER_FWD``)."""
    for name, v in (("batch", batch), ("heads", heads), ("seq_len", seq_len),
                    ("head_dim", head_dim)):
        _positive(f"attention.{name}", v)
    keys = (seq_len + 1) / 2.0 if causal else float(seq_len)
    fwd = 2.0 * batch * heads * seq_len * (2.0 * head_dim) * keys
    return fwd * (ATTENTION_FWD_BWD_OVER_FWD if backward else 1.0)


def _timing_rows(name, rows, width, what):
    rows = list(rows)
    for i, row in enumerate(rows):
        if not isinstance(row, (tuple, list)) or len(row) != width:
            raise ValueError(f"{name}[{i}]={row!r} must be a {what} tuple")
    return rows


def efficiency_from_microbench(accelerator: str, gemm, allreduce=(), dtype: str = "bf16",
                               base: Efficiency | None = None, attention=(),
                               hbm_copy=()) -> Efficiency:
    """The ``Efficiency`` GEMM, attention, HBM-copy and all-reduce timings imply, on top of
    ``base`` (the catalogue's row for ``accelerator`` by default; the fields not measured stay).

    * ``gemm``: ``(m, n, k, seconds)`` timings of ``(m × k) · (k × n)`` products in ``dtype``
      (``"bf16"`` or ``"fp8"``): achieved rate ``2 m n k ÷ seconds`` (one multiply-add = 2 FLOP),
      and ``matmul_fraction = max over shapes (rate) ÷ peak(dtype)`` (the dtype's dense datasheet
      peak, ``Accelerator.peak_flops_per_s``): the best matmul FLOP/s over the shapes, as
      stas00's mamf-finder reports it (ml-engineering,
      compute/accelerator/benchmarks/mamf-finder.py). The catalogue's fraction is the best over
      shapes of each shape's mean time (stas00's MAMF table, "a mean of 100 iterations after 50
      warmup iterations"): give each shape's mean (or median) time, not its fastest iteration,
      for the fraction to be the same quantity (``run_microbench`` gives the median).
      The engine applies ``matmul_fraction`` to the peak of the run's dtype: an FP8 fraction is
      for FP8 runs, a BF16 one for BF16 runs.
    * ``attention``: ``(batch, heads, seq_len, head_dim, seconds)`` timings of a causal BF16
      fused attention, forward + backward (``torch.nn.functional.scaled_dot_product_attention``
      with ``is_causal=True``): ``attention_fraction = max (attention_flops(b, h, s, d) ÷
      seconds) ÷ peak(bf16)``, the FLOPs of a causal mask (keys (s + 1) ÷ 2 per query, backward
      2.5 × forward, ``attention_flops``) over the dense BF16 peak: the engine's convention
      (``step._attention_core`` divides the same FLOPs by ``peak16 · attention_fraction``).
    * ``hbm_copy``: ``(bytes, seconds)`` timings of a device-to-device copy of ``bytes``:
      achieved bandwidth ``2 · bytes ÷ seconds`` (each byte read once and written once, as the
      STREAM benchmark's Copy kernel counts it: 16 bytes per 8-byte element, McCalpin 1995,
      "Memory Bandwidth and Machine Balance in Current High Performance Computers") and
      ``hbm_fraction = max bandwidth ÷ hbm_bytes_per_s`` (the datasheet HBM bandwidth), the
      achieved ÷ datasheet ratio the engine prices memory-bound kernels at.
    * ``allreduce``: ``(bytes, n_gpus, seconds)`` timings of all-reduces inside one scale-up
      domain: algorithm bandwidth ``bytes ÷ seconds``, bus bandwidth ``algbw × 2 (n − 1) ÷ n``
      (nccl-tests doc/PERFORMANCE.md, the ring's per-link traffic), and
      ``scaleup_fraction = max busbw ÷ scaleup_bytes_per_s_per_dir`` (per-direction datasheet
      link bandwidth, the catalogue's convention).

    Raises
    ------
    ValueError
        An empty ``gemm``, a row of the wrong length, a non-positive size or time, ``n_gpus`` <
        2, a dtype without a datasheet peak, or a rate above the datasheet (naming the timing and
        the field it would set).
    """
    acc = load_accelerator(accelerator)
    eff = base if base is not None else load_efficiency_row(accelerator)
    new, said = {}, []
    for field, step in (("matmul_fraction", lambda: _gemm_fraction(acc, gemm, dtype)),
                        ("attention_fraction", lambda: _attention_fraction(acc, attention)),
                        ("hbm_fraction", lambda: _hbm_fraction(acc, hbm_copy)),
                        ("scaleup_fraction", lambda: _scaleup_fraction(acc, allreduce))):
        value, words = step()
        if value is not None:
            new[field] = value
            said.append(words)
    return eff.replace(**new, source="microbenchmarked on this machine: " + ", ".join(said)
                       + f"; other fields from {eff.accelerator}'s catalogue row")


def _gemm_fraction(acc, gemm, dtype: str) -> tuple:
    """``efficiency_from_microbench``'s ``matmul_fraction`` (its docstring gives the formula):
    ``(fraction, words)``."""
    if dtype not in ("bf16", "fp8"):
        raise ValueError(f"dtype={dtype!r} must be 'bf16' or 'fp8' (the workbook's GEMM dtypes)")
    peak = acc.peak_flops_per_s(dtype)
    gemm = _timing_rows("gemm", gemm, 4, "(m, n, k, seconds)")
    if not gemm:
        raise ValueError("gemm=[] must hold at least one (m, n, k, seconds) timing")
    best = 0.0
    for i, row in enumerate(gemm):
        m, n, k, t = row
        for name, v in (("m", m), ("n", n), ("k", k), ("seconds", t)):
            _positive(f"gemm[{i}].{name}", v)
        rate = 2.0 * m * n * k / t
        if rate > peak:
            raise ValueError(f"gemm[{i}]={tuple(row)!r} gives {rate / 1e12:.1f} TFLOP/s, above the "
                             f"{acc.name}'s {dtype} dense peak {peak / 1e12:.1f} TFLOP/s "
                             "(matmul_fraction would exceed 1)")
        best = max(best, rate)
    return best / peak, (f"matmul {best / 1e12:.1f} TFLOP/s ({best / peak:.1%} of the {dtype} "
                         "peak)")


def _attention_fraction(acc, attention) -> tuple:
    """``efficiency_from_microbench``'s ``attention_fraction``: ``(fraction, words)``, or
    ``(None, None)`` without a timing."""
    peak16 = acc.peak_flops_per_s("bf16")
    att = 0.0
    for i, row in enumerate(_timing_rows("attention", attention, 5,
                                         "(batch, heads, seq_len, head_dim, seconds)")):
        b, h, s, d, t = row
        _positive(f"attention[{i}].seconds", t)
        rate = attention_flops(b, h, s, d) / t
        if rate > peak16:
            raise ValueError(f"attention[{i}]={tuple(row)!r} gives {rate / 1e12:.1f} TFLOP/s of "
                             f"causal attention, above the {acc.name}'s bf16 dense peak "
                             f"{peak16 / 1e12:.1f} TFLOP/s (attention_fraction would exceed 1)")
        att = max(att, rate)
    if not att:
        return None, None
    return att / peak16, (f"causal attention fwd+bwd {att / 1e12:.1f} TFLOP/s "
                          f"({att / peak16:.1%} of the bf16 peak)")


def _hbm_fraction(acc, hbm_copy) -> tuple:
    """``efficiency_from_microbench``'s ``hbm_fraction``: ``(fraction, words)``, or
    ``(None, None)`` without a timing."""
    hbm = 0.0
    for i, row in enumerate(_timing_rows("hbm_copy", hbm_copy, 2, "(bytes, seconds)")):
        size, t = row
        _positive(f"hbm_copy[{i}].bytes", size)
        _positive(f"hbm_copy[{i}].seconds", t)
        bw = 2.0 * size / t
        if not acc.hbm_bytes_per_s:
            raise ValueError(f"accelerator={acc.name!r} has no HBM bandwidth in the catalogue: "
                             "an HBM-copy timing has nothing to be a fraction of")
        if bw > acc.hbm_bytes_per_s:
            raise ValueError(f"hbm_copy[{i}]={tuple(row)!r} moves {bw / 1e9:,.0f} GB/s (read + "
                             f"written), above the {acc.name}'s {acc.hbm_bytes_per_s / 1e9:,.0f} "
                             "GB/s HBM (hbm_fraction would exceed 1)")
        hbm = max(hbm, bw)
    if not hbm:
        return None, None
    frac = hbm / acc.hbm_bytes_per_s
    return frac, f"HBM copy {hbm / 1e9:,.0f} GB/s ({frac:.1%} of the datasheet)"


def _scaleup_fraction(acc, allreduce) -> tuple:
    """``efficiency_from_microbench``'s ``scaleup_fraction``: ``(fraction, words)``, or
    ``(None, None)`` without a timing."""
    bus = 0.0
    for i, row in enumerate(_timing_rows("allreduce", allreduce, 3, "(bytes, n_gpus, seconds)")):
        size, n_gpus, t = row
        for name, v in (("bytes", size), ("n_gpus", n_gpus), ("seconds", t)):
            _positive(f"allreduce[{i}].{name}", v)
        if n_gpus < 2:
            raise ValueError(f"allreduce[{i}].n_gpus={n_gpus} must be at least 2")
        bus = max(bus, size / t * 2.0 * (n_gpus - 1) / n_gpus)
    if not bus:
        return None, None
    link = acc.scaleup_bytes_per_s_per_dir
    if not link:
        raise ValueError(f"accelerator={acc.name!r} has no scale-up bandwidth in the "
                         "catalogue: an all-reduce timing has nothing to be a fraction of")
    if bus > link:
        raise ValueError(f"allreduce bus bandwidth {bus / 1e9:.0f} GB/s is above the "
                         f"{acc.name}'s {link / 1e9:.0f} GB/s per direction "
                         "(scaleup_fraction would exceed 1)")
    return bus / link, f"all-reduce busbw {bus / 1e9:.0f} GB/s"


#: mamf-finder's ``--dtype`` (a torch dtype name) as the workbook's GEMM dtype: FP8 in either
#: OCP format or AMD's ``fnuz`` variants is priced at the FP8 dense peak.
MAMF_DTYPES = {"bfloat16": "bf16", "float8_e4m3fn": "fp8", "float8_e4m3fnuz": "fp8",
               "float8_e5m2": "fp8", "float8_e5m2fnuz": "fp8"}
#: mamf-finder's result lines, the first present read (``parse_mamf_log``), each with its basis:
#: what the catalogue's matmul fractions are (data/efficiency.csv: stas00's MAMF table,
#: compute/accelerator/README.md, "Reporting a mean of 100 iterations after 50 warmup
#: iterations for each shape") is the best over shapes of each shape's mean, the ``mean:`` line
#: of the versions that print mean, median and max (mamf-finder.py at 744d01e, benchmark version
#: 2: ``max:`` is each shape's fastest single iteration, ``np.amin(times)``, a burst above the
#: mean). Version 4's headline (the median of a shape's 5 fastest boost-clock iterations) is read
#: when present; a log without a ``mean:`` line falls back to its ``median:``, then ``max:``
#: line, then the first versions' ``The best outcome was X(max)/Y(median)`` (its median) or
#: ``The best outcome was X``, each named.
_MAMF_MAX = (
    ("MAMF headline",
     re.compile(r"^MAMF \(max achievable,\s*boost burst\):\s*(\S+?)\s*TFLOPS\s*@\s*"
                r"(\d+)x(\d+)x(\d+)", re.M)),
    ("mean", re.compile(r"^mean:\s*(\S+?)\s*TFLOPS\s*@\s*(\d+)x(\d+)x(\d+)", re.M)),
    ("median", re.compile(r"^median:\s*(\S+?)\s*TFLOPS\s*@\s*(\d+)x(\d+)x(\d+)", re.M)),
    ("median", re.compile(r"The best outcome was\s*\S+?\(max\)/(\S+?)\(median\)\s*TFLOPS\s*@\s*"
                          r"(\d+)x(\d+)x(\d+)")),
    ("max",
     re.compile(r"^max:\s*(\S+?)\s*TFLOPS\s*@\s*(\d+)x(\d+)x(\d+)", re.M)),
    ("max",
     re.compile(r"The best outcome was\s*(\S+?)\s*TFLOPS\s*@\s*(\d+)x(\d+)x(\d+)")))
#: Each basis of ``_MAMF_MAX`` in a profile's source.
MAMF_BASIS_WORDS = {
    "MAMF headline": "its MAMF headline, the median of the best shape's 5 fastest boost "
                     "iterations",
    "mean": "its mean line, as the catalogue's fractions",
    "median": "its median line: no mean line in the log",
    "max": "its max line, each shape's fastest iteration: above the per-shape mean the "
           "catalogue's fractions are; no mean or median line in the log"}
_MSMF = re.compile(r"^MSMF \(max sustainable,\s*saturated\):\s*(\S+?)\s*TFLOPS\s*@\s*"
                   r"(\d+)x(\d+)x(\d+)", re.M)
#: The chip a device or catalogue name names: NVIDIA's (A100, H100, H200, B200, GB200, L40S,
#: GH200), AMD's (MI300X) and Intel's (Gaudi 3) model numbers.
_CHIP = re.compile(r"(?<![A-Za-z0-9])(G[BH]\d{3}|[ABHLV]\d{2,3}S?|MI\d{3}X?|Gaudi ?\d)(?![0-9])",
                   re.I)
#: Device names whose GPU is another catalogue chip: a GH200 Grace Hopper Superchip's GPU is an
#: H100 (NVIDIA GH200 Grace Hopper Superchip datasheet: "NVIDIA H100 Tensor Core GPU").
MAMF_CHIP_ALIASES = {"GH200": "H100"}

#: The lowest fraction of the dtype's dense peak a mamf-finder log is taken at. The published
#: MAMF table (stas00/ml-engineering, compute/accelerator/README.md, "Maximum Achievable Matmul
#: FLOPS comparison table", its version with B300 and MI355X rows) runs from 51.4% (AMD MI300X,
#: BF16, torch 2.5.1 on ROCm 6.3) to 96.9% (Intel Gaudi 2) in BF16 and from 70.9% (H100 SXM) in
#: FP8; the lowest figure its notes mention is the MI300X's 450 TFLOPS on ROCm 6.1, 34.6% of its
#: 1,300. A log under a tenth of the peak (5x below the least efficient published device) is
#: from another device than the one named, a throttled or shared GPU, a scan of tiny shapes, or
#: a unit slip; priced, it would stretch every matmul of the run as much: refused, with the
#: reason.
MAMF_MIN_FRACTION = 0.10


def parse_mamf_log(text: str) -> dict:
    """The result of a mamf-finder log (stas00/ml-engineering,
    compute/accelerator/benchmarks/mamf-finder.py): ``{"tflops", "m", "n", "k", "dtype", "line",
    "device", "torch", "shapes_tried", "basis"}``. ``tflops`` is the best over the shapes tried
    (10^12 FLOP/s, the script's legend), at the ``M × N × K`` shape printed beside it, of the
    first result line ``_MAMF_MAX`` finds, ``basis`` naming which: the script's
    ``MAMF (max achievable,  boost burst): X TFLOPS @ MxNxK`` headline (its version
    that measures the sustainable rate too, stas00/ml-engineering branch fast-mamf, commit
    082816f9be8aeb6b65b074c33cb354a7ca1e7087, compute/accelerator/benchmarks/mamf-finder.py
    lines 1236-1237 and ``format_headline``; its ``MSMF (max sustainable, saturated)`` rate is
    kept as ``msmf_tflops``, else None: the catalogue's fractions are burst rates, so the MAMF is
    the one priced), its ``mean:`` line (its versions since 2025 print mean, median and max; the
    catalogue's fractions are means of 100 iterations), else its ``median:`` or ``max:`` line,
    or its earlier ``The best outcome was ... TFLOPS @ MxNxK`` line; ``shapes_tried`` from ``Tried N
    shapes`` (any spacing: a log printed ``Tried  4913 shapes``); ``dtype`` from its ``** Dtype: torch.X``
    header (``MAMF_DTYPES``; ``"bf16"``, the script's default, when the header is absent);
    ``device`` and ``torch`` from its header where printed, else None; ``line`` the result line
    as printed (whitespace collapsed), quoted in errors.

    Raises
    ------
    ValueError
        ``text`` is not a string, holds no result line, its TFLOPS is not a number > 0 or a
        dimension of its shape is not >= 1 (naming the line), or it names a dtype the workbook
        has no peak for.
    """
    if not isinstance(text, str):
        raise ValueError(f"text={type(text).__name__} must be the text of a mamf-finder log")
    hit = basis = None
    for basis, pattern in _MAMF_MAX:
        hit = pattern.search(text)
        if hit:
            break
    if hit is None:
        raise ValueError("no mamf-finder result line ('MAMF (max achievable, boost burst): X "
                         "TFLOPS @ MxNxK', 'mean: X TFLOPS @ MxNxK', 'median: ...', 'max: ...' "
                         "or 'The best outcome was X TFLOPS @ MxNxK') in the log")
    tflops, shape = _mamf_result(hit)
    d = re.search(r"\*\* Dtype:\s*torch\.(\w+)", text)
    dtype = d.group(1) if d else "bfloat16"
    if dtype not in MAMF_DTYPES:
        raise ValueError(f"mamf-finder dtype torch.{dtype} is not one the workbook prices "
                         f"(one of {', '.join('torch.' + k for k in MAMF_DTYPES)})")
    dev = re.search(r"_\w*DeviceProperties\(name='([^']+)'", text)
    tv = re.search(r"^(?:- )?torch=(\S+)", text, re.M)
    tried = re.search(r"[Tt]ried\s+(\d+)\s+shapes", text)
    ms = _MSMF.search(text)
    return {"tflops": tflops, "m": shape[0], "n": shape[1], "k": shape[2], "basis": basis,
            "dtype": MAMF_DTYPES[dtype], "line": " ".join(hit.group(0).split()),
            "device": dev.group(1) if dev else None, "torch": tv.group(1) if tv else None,
            "shapes_tried": int(tried.group(1)) if tried else None,
            "msmf_tflops": _mamf_result(ms)[0] if ms else None}


def _mamf_result(hit) -> tuple:
    """``(tflops, (m, n, k))`` of a mamf-finder result line (``parse_mamf_log``'s match): a
    ValueError quoting the line unless TFLOPS is a finite number > 0 and M, N, K are >= 1."""
    line = " ".join(hit.group(0).split())
    raw = hit.group(1)
    try:
        tflops = float(raw)
    except ValueError:
        tflops = None
    if tflops is None or not math.isfinite(tflops) or tflops <= 0:
        raise ValueError(f"TFLOPS={raw} in its result line {line!r} must be a number > 0 (the "
                         "maximum achievable matmul rate, 10^12 FLOP/s)")
    shape = tuple(int(hit.group(j)) for j in (2, 3, 4))
    for name, v in zip("MNK", shape):
        if v < 1:
            raise ValueError(f"{name}={v} in its result line {line!r} must be at least 1 (the "
                             "M x N x K shape of the fastest matmul)")
    return tflops, shape


def _mamf_fraction(accelerator, r: dict) -> float:
    """The matmul fraction of a parsed mamf-finder log ``r`` (``parse_mamf_log``) on
    ``accelerator``: ``TFLOPS × 10^12 ÷ peak(dtype)``, the dtype's dense datasheet peak
    (``Accelerator.peak_flops_per_s``); mamf-finder's "Efficiency" column (MAMF ÷ Theory).

    Raises
    ------
    ValueError
        A fraction above 1 (a faster device's log) or below ``MAMF_MIN_FRACTION`` (its reason
        there), naming the TFLOPS, the line, the peak and the rule; a dtype the catalogue has no
        peak for on ``accelerator``.
    """
    acc = load_accelerator(accelerator) if isinstance(accelerator, str) else accelerator
    peak = acc.peak_flops_per_s(r["dtype"])
    frac = r["tflops"] * 1e12 / peak
    said = (f"TFLOPS={r['tflops']:g} in its result line {r['line']!r} is {frac:.1%} of the "
            f"{acc.name}'s {r['dtype']} dense peak {peak / 1e12:,.1f} TFLOPS")
    if frac > 1.0:
        raise ValueError(f"{said}: it must be at most the peak (a matmul fraction above 1: a log "
                         "of a faster device?)")
    if frac < MAMF_MIN_FRACTION:
        raise ValueError(f"{said}: it must be at least {MAMF_MIN_FRACTION:.0%} of the peak "
                         "(published MAMFs are 51-97% of it): a log of another device, a "
                         "throttled or shared GPU, a scan of tiny shapes, or a unit slip "
                         "(mamf-finder prints TFLOPS)")
    return frac


def efficiency_from_mamf_log(accelerator: str, text: str,
                             base: Efficiency | None = None) -> Efficiency:
    """The ``Efficiency`` a mamf-finder log implies for ``accelerator`` (``parse_mamf_log``):
    ``matmul_fraction = TFLOPS × 10^12 ÷ peak(dtype)`` in the log's dtype (``_mamf_fraction``),
    as ``efficiency_from_microbench`` would take its maximum rate as one GEMM timing:
    mamf-finder's "Efficiency" column (MAMF ÷ Theory) on the catalogue's datasheet peak. The
    other fields stay ``base``'s (the catalogue row by default).

    Raises
    ------
    ValueError
        As ``parse_mamf_log``, ``mamf_device_check`` (a log of another chip) and
        ``_mamf_fraction`` (a rate above the dtype's peak, or below ``MAMF_MIN_FRACTION`` of it).
    """
    r = parse_mamf_log(text)
    acc = load_accelerator(accelerator)
    mamf_device_check(acc.name, r["device"])
    frac = _mamf_fraction(acc, r)
    eff = base if base is not None else load_efficiency_row(accelerator)
    return eff.replace(matmul_fraction=frac, source=(
        f"mamf-finder log ({r['device'] or 'device not printed'}, torch "
        f"{r['torch'] or 'not printed'}): "
        f"{r['dtype']} MAMF {r['tflops']:.1f} TFLOPS @ {r['m']}x{r['n']}x{r['k']} "
        f"({MAMF_BASIS_WORDS.get(r.get('basis'), r.get('basis') or 'max')}) = {frac:.1%} of "
        f"the {r['dtype']} peak"
        + (f" (its MSMF, the sustained rate, {r['msmf_tflops']:.1f} TFLOPS, is not priced: the "
           "catalogue's fractions are burst rates)" if r.get("msmf_tflops") else "")
        + f"; other fields from {eff.accelerator}'s catalogue row"))


def mamf_chip(name: str | None) -> str | None:
    """The chip a device or catalogue accelerator name names (``_CHIP``, upper case, through
    ``MAMF_CHIP_ALIASES``): "NVIDIA A100-SXM4-80GB" -> "A100", "H100-SXM" -> "H100", "NVIDIA
    GH200 480GB" -> "H100"; None when it names none."""
    hit = _CHIP.search(name or "")
    if hit is None:
        return None
    chip = hit.group(1).upper().replace(" ", "")
    return MAMF_CHIP_ALIASES.get(chip, chip)


#: The form factor a device or catalogue name states: PCIe card, NVL (NVIDIA's dual-slot PCIe
#: card bridged by NVLink, "H100 NVL", not a rack's "NVL72") or SXM module (any generation,
#: "A100-SXM4"). One chip at two form factors runs at two clocks and power limits: the H100 SXM's
#: dense BF16 peak is 989.4 TFLOPS, the H100 PCIe's about 756 (NVIDIA H100 datasheet: 1,979 and
#: 1,513 TFLOPS with sparsity): a PCIe log priced on the SXM row would read its matmul rate as a
#: fraction of the wrong peak (600 TFLOPS: 0.606 of the SXM's peak, 0.79 of the PCIe's).
_FORM = re.compile(r"(?<![A-Za-z])(PCIE|SXM\d?|NVL(?!\d))(?![A-Za-z])", re.I)
#: Catalogue rows whose name states no form factor though their source does (data/accelerators.csv:
#: H200's figures are the H200 SXM's, H800's the H800 SXM's, both A100 rows the SXM module's: 400 W
#: and NVLink at 600 GB/s, the datasheet's SXM column).
MAMF_CATALOGUE_FORM = {"H200": "SXM", "H800": "SXM", "A100-40GB": "SXM", "A100-80GB": "SXM"}


def mamf_form_factor(name: str | None) -> str | None:
    """The form factor a device or catalogue name states (``_FORM``): "PCIe", "NVL" or "SXM"
    ("NVIDIA H100 PCIe" -> "PCIe", "NVIDIA A100-SXM4-80GB" -> "SXM", "H100-SXM" -> "SXM",
    "GB200-NVL72" -> None, a rack, not the NVL card), through ``MAMF_CATALOGUE_FORM`` for a
    catalogue name; None when it states none."""
    hit = _FORM.search(name or "")
    if hit is None:
        return MAMF_CATALOGUE_FORM.get((name or "").strip().upper())
    form = hit.group(1).upper()
    return "SXM" if form.startswith("SXM") else "PCIe" if form == "PCIE" else form


def mamf_device_check(accelerator: str, device: str | None) -> str | None:
    """Whether a mamf-finder log's ``device`` (its header's device name, ``parse_mamf_log``) is
    the catalogue ``accelerator`` it is priced on: a ValueError naming both when their chips
    differ (``mamf_chip``: a log of an A100 read as an H100's would price the H100's matmuls at
    the A100's rate) or when both state a form factor and they differ (``mamf_form_factor``:
    an H100 PCIe or NVL log read as the H100-SXM's would be a fraction of the SXM's higher
    peak), a warning in words when the log names no device or either name no chip (nothing to
    compare), None when they agree."""
    if not device:
        return (f"the mamf-finder log names no device (its header's device line is absent): "
                f"it is taken as the {accelerator}'s, unchecked")
    mine, theirs = mamf_chip(accelerator), mamf_chip(device)
    if mine is None or theirs is None:
        return (f"the mamf-finder log's device {device!r} cannot be compared with the catalogue's "
                f"{accelerator}: it is taken as the {accelerator}'s, unchecked")
    if mine != theirs:
        raise ValueError(f"device={device!r} in the log's header is chip {theirs}, not the "
                         f"{accelerator}'s chip {mine} it would be priced on: give a log of the "
                         f"{mine}, or the {theirs}'s catalogue name as --accelerator (llmcost "
                         "list accelerators)")
    form, their_form = mamf_form_factor(accelerator), mamf_form_factor(device)
    if form and their_form and form != their_form:
        rows = [n for n in list_accelerators()["name"]
                if mamf_chip(n) == theirs and mamf_form_factor(n) == their_form]
        fix = (f"give its catalogue name {rows[0]} as --accelerator" if rows else
               f"the catalogue has no {theirs} {their_form} row (llmcost list accelerators): give "
               f"a log of an {theirs} {form}, or leave --mamf-log out and price the "
               f"{accelerator} at its catalogue fractions")
        raise ValueError(
            f"device={device!r} in the log's header is an {theirs} {their_form}, not the "
            f"{accelerator}'s {form} it would be priced on (the rule: when both names state a "
            "form factor, PCIe, NVL or SXM, they must agree; one chip's forms run at other "
            f"clocks and peaks): {fix}")
    return None


def mamf_profile(accelerator: str, texts, date: str | None = None, names=None) -> dict:
    """The efficiency profile (as ``microbench_profile``) of one or more mamf-finder logs
    (``parse_mamf_log``; say a BF16 and an FP8 scan): ``matmul_fraction`` of each log's dtype
    (``efficiency_from_mamf_log``: MAMF ÷ the dtype's dense peak), the device and torch version
    the logs print, ``date`` (UTC, now by default: when the profile was made, not the scan); the
    other fields are listed as not measured (the catalogue's stay). ``names``: what each log is
    called in an error (the files ``llmcost calibrate --mamf-log`` read); ``texts[i]`` without.

    Raises
    ------
    ValueError
        An unknown accelerator, no log, two logs of one dtype, or as ``efficiency_from_mamf_log``
        (naming the log).
    """
    texts = [texts] if isinstance(texts, str) else list(texts) if texts is not None else []
    if not texts:
        raise ValueError("texts=[] must hold at least one mamf-finder log")
    names = [f"texts[{i}]" for i in range(len(texts))] if names is None else \
        [names] if isinstance(names, str) else [str(n) for n in names]
    if len(names) != len(texts):
        raise ValueError(f"names={names!r} must name each of the {len(texts)} log(s) once")
    acc = load_accelerator(accelerator)  # an unknown name is refused before any log is read
    mm, logs, sources, warnings = {}, [], [], []
    for name, text in zip(names, texts):
        try:
            r = parse_mamf_log(text)
            eff = efficiency_from_mamf_log(acc.name, text)
        except ValueError as e:
            raise ValueError(f"mamf-finder log {name}: {e}") from None
        if r["dtype"] in mm:
            raise ValueError(f"mamf-finder log {name}: a second {r['dtype']} log (one per dtype)")
        mm[r["dtype"]] = round(eff.matmul_fraction, 4)
        said = mamf_device_check(acc.name, r["device"])
        warnings += [f"mamf-finder log {name}: {said}"] if said else []
        logs.append(r)
        sources.append(eff.source.split("; other fields")[0])
    return {"kind": PROFILE_KIND, "accelerator": acc.name,
            "device": " / ".join(sorted({r["device"] or NOT_PRINTED for r in logs})),
            "torch": " / ".join(sorted({r["torch"] or NOT_PRINTED for r in logs})),
            "date": date or datetime.datetime.now(datetime.timezone.utc).strftime(
                "%Y-%m-%dT%H:%M:%SZ"),
            "matmul_fraction": mm,
            "not_measured": ["attention_fraction", "hbm_fraction", "scaleup_fraction",
                             "scaleout_fraction"] + [f"matmul_fraction.{d}"
                                                     for d in ("bf16", "fp8") if d not in mm],
            "source": "; ".join(sources) + "; fields not measured keep the catalogue's",
            "timings": {"mamf": logs}, "warnings": warnings}


def microbench_profile(accelerator: str, timings: dict, date: str | None = None) -> dict:
    """The efficiency profile (``efficiency_profile``: a YAML mapping the engine reads back with
    ``load_efficiency_profile``) of ``run_microbench``'s ``timings`` on ``accelerator``: the
    fractions ``efficiency_from_microbench`` derives (``matmul_fraction`` per GEMM dtype: BF16,
    and FP8 where timed; ``attention_fraction``, ``hbm_fraction``; ``scaleup_fraction`` under
    torchrun), the device and torch version the timings report, ``date`` (UTC, ISO 8601; now by
    default) and the timings themselves, so that a reader can redo the arithmetic.

    Raises
    ------
    ValueError
        As ``efficiency_from_microbench`` (naming the timing), or ``timings`` not a mapping.
    """
    if not isinstance(timings, dict):
        raise ValueError(f"timings={timings!r} must be run_microbench's mapping")
    eff = efficiency_from_microbench(accelerator, timings.get("gemm", ()),
                                     timings.get("allreduce", ()), dtype="bf16",
                                     attention=timings.get("attention", ()),
                                     hbm_copy=timings.get("hbm_copy", ()))
    base = load_efficiency_row(accelerator)
    out = {"kind": PROFILE_KIND, "accelerator": load_accelerator(accelerator).name,
           "device": str(timings.get("device", NOT_PRINTED)),
           "torch": str(timings.get("torch", NOT_PRINTED)),
           "date": date or datetime.datetime.now(datetime.timezone.utc).strftime(
               "%Y-%m-%dT%H:%M:%SZ"),
           "matmul_fraction": {"bf16": round(eff.matmul_fraction, 4)}}
    fp8_note = timings.get("fp8_note")
    if timings.get("gemm_fp8"):
        if load_accelerator(accelerator).peak_fp8_flops_per_s:
            out["matmul_fraction"]["fp8"] = round(efficiency_from_microbench(
                accelerator, timings["gemm_fp8"], dtype="fp8").matmul_fraction, 4)
        else:
            fp8_note = f"the catalogue has no FP8 peak for {accelerator}"
    measured = {"attention_fraction": "attention", "hbm_fraction": "hbm_copy",
                "scaleup_fraction": "allreduce"}
    for f, key in measured.items():
        if timings.get(key):
            out[f] = round(getattr(eff, f), 4)
    out["not_measured"] = [f for f in ("attention_fraction", "hbm_fraction", "scaleup_fraction",
                                       "scaleout_fraction") if f not in out] \
        + ([] if "fp8" in out["matmul_fraction"] else
           [f"matmul_fraction.fp8 ({fp8_note})" if fp8_note else "matmul_fraction.fp8"])
    out["source"] = eff.source.replace("; other fields from", "; fields not measured keep")
    out["catalogue_row"] = {f: getattr(base, f) for f in ("matmul_fraction", "attention_fraction",
                                                        "hbm_fraction", "scaleup_fraction")}
    out["timings"] = {k: [[*map(int, row[:-1]), float(row[-1])] for row in timings.get(k, ())]
                      for k in ("gemm", "gemm_fp8", "attention", "hbm_copy", "allreduce")
                      if timings.get(k)}
    return out


def load_efficiency_row(accelerator: str) -> Efficiency:
    """The catalogue's burst ``Efficiency`` of ``accelerator`` (no stack)."""
    return StepOptions().resolve(accelerator).efficiency


def microbench_missing() -> str | None:
    """What ``llmcost calibrate --microbench`` lacks here, in one line, or None: PyTorch
    (``importlib.util.find_spec``) and a CUDA device (``torch.cuda.is_available``)."""
    if importlib.util.find_spec("torch") is None:
        return ("PyTorch is not installed (pip install torch), so no GEMM or all-reduce can be "
                "timed on this machine")
    torch = importlib.import_module("torch")
    if not torch.cuda.is_available():
        return "PyTorch sees no CUDA GPU on this machine, so no GEMM or all-reduce can be timed"
    return None


#: Shapes ``run_microbench`` times: two large square GEMMs (seconds, not mamf-finder's search
#: over shapes: the maximum over two shapes is a lower bound of the device's; stas00's
#: compute/accelerator/benchmarks/README.md says its own one-minute quick scan "should give
#: around 80-90% of the maximum achievable result"; for the full figure run mamf-finder and read
#: its log with ``efficiency_from_mamf_log``), one causal attention of 8 sequences × 16 heads ×
#: 4,096 tokens × head dimension 128 (a 2,048-wide model's layer), and a 1 GiB device-to-device
#: copy (Calculon's HBM efficiency 0.90 is for transfers of 100 MB and more).
MICROBENCH_GEMM_SIZES = (4096, 8192)
MICROBENCH_ATTENTION = (8, 16, 4096, 128)
MICROBENCH_COPY_BYTES = 2 ** 30


def _fp8_supported(torch) -> bool:
    """FP8 tensor-core GEMMs through ``torch._scaled_mm``: compute capability 8.9 (Ada) or more
    (Hopper 9.0, Blackwell 10.0) and a PyTorch that has the FP8 dtype and the op."""
    return (hasattr(torch, "float8_e4m3fn") and hasattr(torch, "_scaled_mm")
            and tuple(torch.cuda.get_device_capability()) >= (8, 9))


def run_microbench(sizes=MICROBENCH_GEMM_SIZES, repeats: int = 20) -> dict:
    """Time, on the current CUDA device (CUDA events, after a warm-up, the median of ``repeats``:
    the catalogue's matmul fractions are means over iterations, stas00's MAMF table, not a
    fastest iteration, and the median is that mean robust to an outlier):
    square BF16 GEMMs of ``sizes``; the same in FP8 (``torch._scaled_mm``, e4m3 operands, BF16
    output, unit scales) where the device has FP8 tensor cores (``_fp8_supported``); a causal BF16
    ``scaled_dot_product_attention`` forward + backward (``MICROBENCH_ATTENTION``); a
    ``MICROBENCH_COPY_BYTES`` device-to-device copy; and, when launched with ``torchrun`` on
    several GPUs of one node (``torch.distributed`` initialised from its environment), 256 MiB
    all-reduces. Returns ``{"gemm": [(m, n, k, s)], "gemm_fp8": [...], "attention": [(b, h, s,
    d, s)], "hbm_copy": [(bytes, s)], "allreduce": [(bytes, n_gpus, s)], "device": name,
    "torch": version, "fp8_note": why no FP8 GEMM was timed, or None}`` for
    ``efficiency_from_microbench`` / ``microbench_profile``.

    Raises
    ------
    ValueError
        What is missing (``microbench_missing``).
    """
    missing = microbench_missing()
    if missing:
        raise ValueError(missing)
    torch = importlib.import_module("torch")

    def median_time(fn):
        fn()
        torch.cuda.synchronize()
        out = []
        for _ in range(repeats):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            fn()
            b.record()
            torch.cuda.synchronize()
            out.append(a.elapsed_time(b) / 1e3)
        return float(np.median(out))

    gemm, gemm_fp8 = [], []
    fp8 = _fp8_supported(torch)
    fp8_note = None if fp8 else "no FP8 tensor cores (compute capability < 8.9) or no _scaled_mm"
    for s in sizes:
        x = torch.randn(s, s, device="cuda", dtype=torch.bfloat16)
        y = torch.randn(s, s, device="cuda", dtype=torch.bfloat16)
        gemm.append((s, s, s, median_time(lambda x=x, y=y: x @ y)))
        if fp8 and fp8_note is None:
            one = torch.ones((), device="cuda", dtype=torch.float32)
            x8 = x.to(torch.float8_e4m3fn)
            y8 = y.to(torch.float8_e4m3fn).t().contiguous().t()  # column-major, as cuBLASLt wants
            try:  # _scaled_mm is a private op whose signature changed across PyTorch 2.x
                gemm_fp8.append((s, s, s, median_time(lambda x8=x8, y8=y8, one=one: (
                    torch._scaled_mm(x8, y8, scale_a=one, scale_b=one,
                                     out_dtype=torch.bfloat16)))))
            except (RuntimeError, TypeError) as e:
                fp8_note = f"torch._scaled_mm failed: {str(e).splitlines()[0] if str(e) else e!r}"
                gemm_fp8 = []
    b, h, sl, d = MICROBENCH_ATTENTION
    q, k, v = (torch.randn(b, h, sl, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
               for _ in range(3))
    grad = torch.randn(b, h, sl, d, device="cuda", dtype=torch.bfloat16)
    sdpa = torch.nn.functional.scaled_dot_product_attention
    attention = [(b, h, sl, d, median_time(  # autograd.grad: no .grad accumulation timed
        lambda: torch.autograd.grad(sdpa(q, k, v, is_causal=True), (q, k, v), grad)))]
    src = torch.empty(MICROBENCH_COPY_BYTES, device="cuda", dtype=torch.uint8)
    dst = torch.empty_like(src)
    hbm_copy = [(MICROBENCH_COPY_BYTES, median_time(lambda: dst.copy_(src)))]
    allreduce = []
    dist = torch.distributed
    if dist.is_available() and "WORLD_SIZE" in os.environ and int(os.environ["WORLD_SIZE"]) > 1:
        if not dist.is_initialized():
            dist.init_process_group("nccl")
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
        buf = torch.empty(128 * 2 ** 20, device="cuda", dtype=torch.bfloat16)
        allreduce.append((buf.numel() * 2, dist.get_world_size(),
                          median_time(lambda: dist.all_reduce(buf))))
    return {"gemm": gemm, "gemm_fp8": gemm_fp8, "fp8_note": fp8_note, "attention": attention,
            "hbm_copy": hbm_copy, "allreduce": allreduce,
            "device": torch.cuda.get_device_name(), "torch": str(torch.__version__)}
