"""How far to trust a predicted MFU: an error band per regime, sized by leave-one-out.

The step-time model (``llmcost.step``) is checked against published runs
(``step_validation.mfu_validation``: ``data/validation_mfu.csv`` joined to
``data/published_runs.csv``).
Every prediction gets a band from the held-out rows of its **regime** (``regime_of``):

    (GPU generation: Ampere / Hopper / Blackwell) × (sharding: Megatron 3D = TP/PP/DP with
    ZeRO ≤ 2, or FSDP = ZeRO-3 / FSDP / HSDP, and PyTorch FSDP's ZeRO-2, SHARD_GRAD_OP:
    ``sharding_of``) × (dense / MoE) × (GEMM dtype: BF16 / FP8)
    × (context: ≤ 32k tokens, or long, > 32k, usually with CP) × (size: < 10B / ≥ 10B total
    parameters)

**Held-out** means *not used to fit* anything: ``step.KERNEL_EFFICIENCY`` is fitted to
Korthikanti et al. 2022 Table 4's per-layer times, the DeepSpeed ZeRO-3 stack's NIC
setting to three 175B rows, and a quarter of the newer rows (``step_validation.NEWER_SETS``,
chosen by a hash of their id before any error was computed) are kept for the next parts' fits.
It does not mean unseen for the older rows (the constants were written with their errors in view).

**The band (full conformal, sign-following).** With the regime's held-out errors ``e_j``,
j = 1..n (``error`` = predicted / published − 1, MFU basis; a row whose FLOP count is not stated
is also counted on the causal-mask basis, ``e_causal``), the centre ``c`` is their median and the
non-conformity score of a row about a centre m is ``max(|e_j − m|, |e_causal_j − m|)`` (its
largest over its bases). With ``n ≥ MIN_CONFORMAL_ROWS`` rows the band is **full conformal**
(Vovk, Gammerman & Shafer 2005, "Algorithmic Learning in a Random World", Ch. 2; Lei, G'Sell,
Rinaldo, Tibshirani & Wasserman 2018, "Distribution-free predictive inference for regression",
JASA 113, §2.1): a candidate error y is in the band iff, with y added to the rows and the median
m(y) recomputed on all n + 1, y's score ``|y − m(y)|`` is not among the largest fraction α,
p(y) = #{i ≤ n + 1: score_i ≥ score_{n+1}} / (n + 1) > α, i.e. ``|y − m(y)| ≤ Q(m(y))``,
Q(m) the k-th smallest of the n rows' scores about m, k = ⌈(n + 1)(1 − ALPHA)⌉ (it needs n ≥ 9).
For the median that set is the interval (``full_conformal_interval``)

    [L, U] = [m₋ − Q(m₋), m₊ + Q(m₊)],

m₋ and m₊ the median of the rows with one more value far below or far above them (n even:
e_(n/2) and e_(n/2+1); n odd, r = (n + 1)/2: (e_(r−1) + e_(r))/2 and (e_(r) + e_(r+1))/2); every
y in the middle, between e_(n/2) and e_(n/2+1) (n even) or e_(r−1) and e_(r+1) (n odd), is
accepted: every row's score about m(y) is at least y's own (0 for n even, |y − e_(r)| / 2 for n
odd). Under exchangeability a new row's error lies in it with probability
≥ 1 − α (Lei et al. 2018, §2.1's coverage theorem; p(y) counts ties against y, Vovk et al.'s
convention, so the set is closed and the bound holds with ties), and a row with two FLOP bases
is covered when both are in it (the pairs full conformal accepts lie inside [L, U]², since Q
moves by at most the centre's move).
The band is written about the median, ``c ± w`` with the smallest ``w`` containing [L, U],
w = max(c − L, U − c): c stays the median (the bill's central point, below), and a set
containing [L, U] keeps its coverage. The in-sample quantile band c ± Q(c) (the
split-conformal form, Vovk et al. 2005; Angelopoulos & Bates 2021, §1, without a split: c comes
from the same rows) lies inside it; its leave-one-out check fell below 1 − α because
the median moves away from a left-out row, and the full-conformal band recomputes it with the
row in. The published MFU of a run predicted at ``p`` then lies in
``[p / (1 + c + w), p / (1 + c − w)]``:
the band follows the sign of the errors (an optimistic model, c > 0, gets a band that reaches
down). When ``1 + c − w <= UPPER_BOUND_MARGIN`` the upper end is capped at MFU 1 and the
prediction is read as an upper bound (a warning says so).

**The point a bill uses.** Under ``mfu: predict`` the bill's MFU is the band's central
estimate ``p / (1 + c)``, kept inside ``[low, high]`` (``central_mfu``), not the raw prediction
``p``; without held-out rows (c = 0) it is ``p``.

**Fewer rows.** A regime with fewer than ``MIN_CONFORMAL_ROWS`` held-out rows gets the stated
wider default: centre its rows' median shrunk toward 0, c = median × n / (n + k)
(``shift_factor``, k = ``SHIFT_SHRINK_ROWS``; 0 without rows), half-width the wider of
``DEFAULT_BAND_FRACTION`` and its rows' largest score about that centre (so a row the shrunk
centre leaves far off widens the band instead of moving it), and a warning naming n. Reason:
the tool says such a regime has too few runs to measure the model's error from, and a median
of n errors is itself noisy, standard error ≈ √(π/2) σ / √n ≈ 1.25 σ / √n (van der Vaart
1998, Asymptotic Statistics, Cor. 21.5, at p = 1/2 for a normal parent); with σ ≈ 10% (the
conformal regimes' spread) and n = 2 that is ≈ 9%, as large as a typical shift. The shrinkage
is the normal–normal posterior mean of the regime's true shift (Efron & Morris 1975, JASA 70,
311–319, "Data analysis using Stein's estimator and its generalizations"; Gelman et al. 2013,
Bayesian Data Analysis, 3rd ed., §5.4): true shifts μ ~ N(0, τ²) across regimes, the median
m ~ N(μ, π σ² / (2n)) about it, E[μ | m] = m τ² / (τ² + π σ² / (2n)) = m n / (n + k),
k = π σ² / (2 τ²); σ and τ measured on the conformal regimes (``shift_shrink_rows``). With
``MIN_CONFORMAL_ROWS`` or more rows the centre is the median, as before (the conformal band's
coverage holds about it). Judged by leave-one-out on the sub-threshold regimes
(benchmarks/band_rules.py): the full median shift gave 94% coverage, 32.1% mean half-width
and 8.4% mean |error| of the central point; the shrunk shift 96%, 31.9%, 8.4%; no shift at all
98%, 31.4% but 10.2% on the point.

**Coverage is measured, not assumed.** ``regime_table`` builds every held-out row's band without
that row (leave-one-out) and counts how often the published value falls inside, per regime
(``benchmarks/validate_mfu.py`` prints it). With the same rule on the other n − 1 rows, row i
is in their full-conformal set whenever its score about the median of all n rows is at most
the ⌈n(1 − α)⌉-th smallest of the others', which at least ⌈n(1 − α)⌉ of the n rows are; the band
contains that set, so the leave-one-out coverage is at least ⌈n(1 − α)⌉ / n ≥ 1 − α
whenever n − 1 ≥ ``MIN_CONFORMAL_ROWS`` (the split-conformal band's centre, the median of
the others, moves away from row i, and its coverage could fall below). ``exclude_run`` does the
same for one run.

A second warning fires when the prediction exceeds the best MFU published for a comparable run
(``comparable_published_mfu``, the one rule every page uses: the same generation, MoE with MoE
and dense with dense, total parameters within ``SIZE_FACTOR``, the dtype's runs), compared **on
the BF16 basis**: an FP8 step's MFU (on the FP8 peak) is first multiplied by peak(dtype) /
peak(BF16), since every published figure is on the dense BF16 peak.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

import numpy as np
import pandas as pd

from ..core.catalog import as_model, load_accelerator, load_efficiency
from ..core.diskcache import disk_cached
from ..core.stacks import load_stack
from ..core.units import fmt_gpus, with_article
from . import step_validation
from .step import fsdp_zero_stage
from .options import StepOptions

#: Miscoverage of the conformal band: 1 − ALPHA = 90% of held-out runs inside.
ALPHA = 0.10
#: Held-out rows a regime needs for a conformal band: ⌈(n + 1)(1 − α)⌉ <= n ⇔ n >= 9.
MIN_CONFORMAL_ROWS = 9
#: Half-width of the band of a regime with fewer rows (a floor; the rows' own spread when
#: wider). Reason: the one regime with many runs, A100 Megatron 3D (16 held-out rows ≥ 10B),
#: spans −10% to +6%; the model's error with burst kernel rates alone (no calibration) reaches
#: 28% (benchmarks/validate_mfu.py, item 4); a regime never checked can be at least 30% off,
#: and newer regimes were found 20–90% optimistic from outside. A stated default, not fitted.
DEFAULT_BAND_FRACTION = 0.30
#: Pseudo-runs k of the shrinkage of a sub-threshold regime's median error toward 0
#: (``shift_factor``: c = median × n / (n + k) for n < ``MIN_CONFORMAL_ROWS``): the
#: empirical-Bayes k = π σ² / (2 τ²) of ``shift_shrink_rows`` on the conformal regimes' held-out
#: errors (σ 9.9% within a regime, τ 7.1% of regimes' true shifts about 0: k = 3.08, with the
#: attention kernel's curve on the FlashAttention stacks and llm-foundry's unpadded
#: FlashAttention copies priced; 3.07 after the second alone, 3.21 before both, with
#: llm-foundry's six SHARD_GRAD_OP rows (MPT 1B and 3B at 128-512 H100); 2.95 before them, with
#: Megatron-Bridge 25.11's four Qwen3-235B-A22B rows; 2.56 before them, with the three
#: Megatron-Bridge 25.09 Qwen3-235B-A22B rows at TP 2 and EP over DP, MoE parallel folding;
#: 2.43 before those, with GB300's GEMMs priced by the Blackwell table as GB200's are; 2.56
#: before that, with the FlashAttention-1 length curve on; 2.87 before that), rounded.
SHIFT_SHRINK_ROWS = 3.1
#: Below this value of 1 + c − w the band's upper end is unbounded (capped at MFU 1).
UPPER_BOUND_MARGIN = 0.05
#: Context above this many tokens is "long" (> 32k; most such runs use context parallelism).
LONG_CONTEXT_TOKENS = 32768
#: Models at or above this many total parameters are "large".
LARGE_MODEL_PARAMS = 10e9
#: A published model "of the same size" has a parameter count within this factor.
SIZE_FACTOR = 4.0
#: The GPU generation of each accelerator of the catalogue that has validation rows or may.
GPU_GENERATIONS = {"A100-40GB": "Ampere", "A100-80GB": "Ampere", "H100-SXM": "Hopper",
                   "H800": "Hopper", "H200": "Hopper", "H100-96GB-500W": "Hopper",
                   "B200": "Blackwell", "GB200-NVL72": "Blackwell", "GB300-NVL72": "Blackwell"}
#: Published MFU claims that are not validation rows (no full configuration), by generation:
#: (generation, smallest and largest model in parameters, MoE, MFU on the BF16 basis, source,
#: sequence length of the claim's runs).
#: The class (MoE: True) of the Megatron-LM claim: its benchmark table is GPT (dense) models.
MFU_CLAIMS = (
    ("Hopper", 2e9, 462e9, False, 0.47,
     "NVIDIA/Megatron-LM README, 'Performance Benchmarking': models from 2B to 462B parameters "
     "'achieving up to 47% Model FLOP Utilization (MFU) on H100 clusters' (sequence 4096)", 4096),
)
#: A published run is comparable in context when its tokens per sequence are within this
#: factor of the plan's (``comparable_published_mfu``): a 4k-token run for 1k–16k, not 128k.
SEQ_FACTOR = 4.0
#: The words ``comparable_any_hardware``'s rule carries: a cap set on other hardware says so.
ON_ANY_HARDWARE = "on any hardware"
#: The regime's parts, in order (columns of ``validation_table``).
REGIME_PARTS = ("gpu_generation", "sharding", "moe", "precision", "context", "size")


def gpu_generation(accelerator: str) -> str:
    """Ampere, Hopper or Blackwell (``GPU_GENERATIONS``); another accelerator is its own."""
    return GPU_GENERATIONS.get(accelerator, accelerator)


@lru_cache(maxsize=None)
def stack_generations(stack: str) -> dict:
    """The GPU generations (``gpu_generation``) of the published runs priced on the stack
    profile ``stack``: ``{generation: runs}`` over the rows of data/validation_mfu.csv whose
    ``stack`` it is (``step_validation.validation_configs``, excluded rows left out), each
    run's accelerator from data/published_runs.csv. The evidence a profile rests on: e.g.
    megatron-core-2026 is written from Megatron-Bridge's GB200 / GB300 MXFP8 recipes (a
    full-iteration CUDA graph), so ``{"Blackwell": 23}`` and no Hopper run. Empty for a
    profile no published run was priced on."""
    rows = step_validation.validation_configs()
    rows = rows[rows["stack"] == stack].merge(
        step_validation.load_published_runs()[["run_id", "catalog_accelerator"]], on="run_id")
    counts = rows["catalog_accelerator"].map(gpu_generation).value_counts()
    return {str(g): int(n) for g, n in counts.items()}


def sharding_of(zero_stage: int, stack=None) -> str:
    """The regime's sharding part: ``"FSDP"`` for ZeRO-3, and for ZeRO-2 on a stack whose
    sharding is PyTorch FSDP (``stacks.Stack.pytorch_fsdp``: its ZeRO-2 is FSDP's
    SHARD_GRAD_OP, which the validation table holds as FSDP rows, ZeRO-3 with
    ``fsdp_reshard_after_forward`` false: the runs of the stack whose errors the band reads);
    ``"Megatron 3D"`` otherwise (ZeRO ≤ 2 on the other stacks, Megatron-Core's distributed
    optimizer among them, or no stack named). The engine prices such a ZeRO-2 plan as it
    prices those rows (``step.fsdp_zero_stage``: each unit gathered once per micro-batch and
    kept for its backward)."""
    z = int(zero_stage) if stack is None else \
        int(fsdp_zero_stage(int(zero_stage), load_stack(stack))[0])  # the engine's rule
    return "FSDP" if z == 3 else "Megatron 3D"


def regime_of(accelerator: str, *, zero_stage: int = 0, is_moe: bool = False,
              dtype: str = "bf16", seq_len: int | None = None,
              n_params: float | None = None, stack=None) -> dict:
    """The regime of a plan (module docstring): a dict of ``REGIME_PARTS``; ``context`` /
    ``size`` are ``"any"`` when ``seq_len`` / ``n_params`` is None (the band then pools them);
    the sharding from ``zero_stage`` and the plan's ``stack`` (``sharding_of``).
    """
    return {"gpu_generation": gpu_generation(accelerator),
            "sharding": sharding_of(zero_stage, stack),
            "moe": "MoE" if is_moe else "dense",
            "precision": "FP8" if str(dtype).lower().startswith("fp8") else "BF16",
            "context": "any" if seq_len is None else
            ("> 32k" if seq_len > LONG_CONTEXT_TOKENS else "≤ 32k"),
            "size": "any" if n_params is None else
            ("≥ 10B" if n_params >= LARGE_MODEL_PARAMS else "< 10B")}


def regime_label(regime: dict) -> str:
    """``Hopper · FSDP · dense · FP8 · ≤ 32k · < 10B``."""
    return " · ".join(str(regime[k]) for k in REGIME_PARTS)


@lru_cache(maxsize=8)
@disk_cached
def validation_table(gemm_shape: bool | None = None, fp8_as_run: bool | None = None,
                     attention_curve: bool | str | None = None,
                     cp_overlap: bool | None = None,
                     fp8_split_accumulator: bool | None = None,
                     attention_blackwell: bool | None = None,
                     fp8_attention: bool | None = None,
                     fsdp_copies: bool | None = None,
                     ring_unmasked: bool | None = None,
                     fp8cs_expert_launches: bool | None = None,
                     cp_ring_compiled: bool | None = None,
                     recompute_early_stop: bool | None = None) -> pd.DataFrame:
    """``step_validation.mfu_validation`` over every set (target, outside and newer sets),
    computed once per code and data (``core.diskcache.disk_cached``: kept on disk, keyed by the
    package's and the catalogues' hash), with each row's regime (``REGIME_PARTS`` columns and ``regime``, its label).
    ``gemm_shape=True`` prices every row's GEMMs by their shape (``StepOptions.gemm_shape``),
    ``fp8_as_run=True`` keeps the LM head and router of FP8 rows in BF16 and prices the FP8
    casts (``StepOptions.fp8_as_run``), ``attention_curve=True`` prices the attention core by
    the kernel curve of each row's stack (``StepOptions.attention_curve``; ``"flash"``: only
    where that kernel is a FlashAttention one),
    ``cp_overlap=False`` prices every row's context-parallel K/V exchange exposed
    (``StepOptions.cp_overlap``; True or None: each row's own, the stack's ring overlap or the
    run's all-gather), ``fp8_split_accumulator=False`` prices Hopper's backward FP8 GEMMs at the
    forward's rate (``StepOptions.fp8_split_accumulator``; True or None: the shipped setting),
    ``attention_blackwell=False`` prices Blackwell's attention core at the flat fraction
    (``StepOptions.attention_blackwell``; True or None: the shipped setting),
    ``fp8_attention=False`` prices every row's attention core in BF16, the FP8 attention of the
    rows whose recipes ran it ignored (``StepOptions.fp8_attention``,
    ``step_validation.FP8_ATTENTION_OF_ROW``; True or None: each row's own);
    ``fsdp_copies=False`` prices no row's FSDP2 copies (``StepOptions.fsdp_copies``; True
    or None: each row's own, on its FSDP2 stacks);
    ``ring_unmasked`` prices a context-parallel ring's non-causal calls at the kernel's unmasked
    rate (True) or every call at the causal one (False) (``StepOptions.ring_unmasked``);
    ``cp_ring_compiled=False`` prices every row's PyTorch ring as eager, its exchanges overlapped
    (``StepOptions.cp_ring_compiled``; True or None: each row's own, ``step_validation.
    CP_COMPILED_SETS``);
    ``recompute_early_stop=True`` stops the full recomputation of the rows whose runs stop
    it early before each block's last GEMM (``StepOptions.recompute_early_stop``, a candidate
    off by default; the rows of ``step_validation.row_early_stop``; False or None: every row's
    whole forward re-run, the shipped setting);
    ``fp8cs_expert_launches`` as ``StepOptions.fp8cs_expert_launches`` (FP8-CS expert launches);
    None (the default) takes ``StepOptions()``'s value, the setting the bands use. A setting other
    than the shipped defaults re-fits the MoE host-cost constants on the MoE calibration rows
    under it (``step_validation.calibrate_moe_host_overhead(physics=...)``: the fitted constant
    and the kernel mechanisms explain the same rows, so they are fitted together, on the
    calibration rows only) and prices every row with the re-fit."""
    shipped = StepOptions()
    flags = tuple((name, shipped_value(shipped, name) if val is None else val) for name, val in
                  (("gemm_shape", gemm_shape), ("fp8_as_run", fp8_as_run),
                   ("attention_curve", attention_curve)))
    for name, val in flags:
        if not (isinstance(val, (bool, np.bool_))
                or (name == "attention_curve" and val == "flash")):
            raise ValueError(f"{name}={val!r} must be True, False or None"
                             + (" or 'flash'" if name == "attention_curve" else ""))
    physics, refit = _physics_overrides(shipped, flags, {
        "cp_overlap": cp_overlap, "fp8_split_accumulator": fp8_split_accumulator,
        "attention_blackwell": attention_blackwell, "fp8_attention": fp8_attention,
        "fsdp_copies": fsdp_copies, "ring_unmasked": ring_unmasked,
        "fp8cs_expert_launches": fp8cs_expert_launches, "cp_ring_compiled": cp_ring_compiled,
        "recompute_early_stop": recompute_early_stop})
    sv = step_validation
    moe_host = sv.calibrate_moe_host_overhead(physics=physics) if refit else None
    v = sv.mfu_validation(sets=sv.VALIDATION_SETS + sv.OUTSIDE_SETS + sv.NEWER_SETS,
                          physics=physics or None, moe_host=moe_host)
    return _with_regimes(v)


def _with_regimes(v: pd.DataFrame) -> pd.DataFrame:
    """``v`` (rows of ``step_validation.mfu_validation``) with each row's regime: the
    ``REGIME_PARTS`` columns and ``regime``, its label."""
    parts = [regime_of(a, zero_stage=z, is_moe=m, dtype=d, seq_len=s, n_params=p, stack=st)
             for a, z, m, d, s, p, st in zip(v["accelerator"], v["zero_stage"], v["is_moe"],
                                             v["dtype"], v["seq_len"], v["params"], v["stack"])]
    for k in REGIME_PARTS:
        v[k] = [r[k] for r in parts]
    v["regime"] = [regime_label(r) for r in parts]
    return v


#: ``validation_table``'s arguments that turn a mechanism off for every row when False (True or
#: None: each row's own) -> the ``StepOptions`` field they override.
_OFF_FOR_EVERY_ROW = {"cp_overlap": "cp_overlap", "fsdp_copies": "fsdp_copies",
                      "fp8_attention": "fp8_attention", "cp_ring_compiled": "cp_ring_compiled"}

#: ``validation_table``'s arguments that override every row when they differ from the shipped
#: ``StepOptions`` field of the same name.
_SHIPPED_OR_NOT = ("fp8_split_accumulator", "attention_blackwell", "ring_unmasked",
                   "fp8cs_expert_launches", "recompute_early_stop")


def _physics_overrides(shipped: StepOptions, flags: tuple, toggles: dict) -> tuple:
    """``validation_table``'s ``(physics, refit)``: the options every row is priced with
    (``flags``, the mechanisms it sets for every row, and ``toggles``, its other arguments by
    name: ``_OFF_FOR_EVERY_ROW`` when False, ``_SHIPPED_OR_NOT`` when not the shipped value)
    and whether the MoE host-cost constants are re-fitted (any setting other than the shipped).

    Raises
    ------
    ValueError
        A toggle that is not True, False or None.
    """
    for name, val in toggles.items():
        if val is not None and not isinstance(val, (bool, np.bool_)):
            raise ValueError(f"{name}={val!r} must be True, False or None")
    physics = dict(flags)
    refit = any(shipped_value(shipped, k) != shipped_value(val) for k, val in flags)
    for name, field in _OFF_FOR_EVERY_ROW.items():
        if toggles[name] is False:
            physics[field] = False
            refit = True
    for name in _SHIPPED_OR_NOT:
        val = toggles[name]
        if val is not None and bool(val) != bool(getattr(shipped, name)):
            physics[name] = bool(val)
            refit = True
    return physics, refit


def _bases(rows: pd.DataFrame) -> pd.DataFrame:
    """Each row's error on its basis (``e``) and on the causal-mask basis where the FLOP count
    is not stated (``e_causal``, else equal to ``e``)."""
    return pd.DataFrame({"e": rows["error"].to_numpy(),
                         "e_causal": (rows["predicted_mfu"] / rows["causal_basis_mfu"]
                                      - 1).to_numpy()}, index=rows.index)


def _scores_quantile(e: np.ndarray, e_causal: np.ndarray, m: float, k: int) -> float:
    """Q(m): the k-th smallest of the rows' scores max(|e − m|, |e_causal − m|) about m."""
    return float(np.sort(np.maximum(np.abs(e - m), np.abs(e_causal - m)))[k - 1])


def full_conformal_interval(e, e_causal, alpha: float = ALPHA) -> tuple[float, float]:
    """The full-conformal set of a new row's error for the median centre (the module
    docstring's rule; Lei et al. 2018, JASA 113, §2.1; Vovk et al. 2005, §2): ``(L, U)``,

        L = m₋ − Q(m₋),  U = m₊ + Q(m₊),  k = ⌈(n + 1)(1 − alpha)⌉,

    m₋ / m₊ the median of the n errors ``e`` and one more value below / above them all (n
    even: e_(n/2), e_(n/2+1); n odd, r = (n + 1)/2: (e_(r−1) + e_(r))/2, (e_(r) + e_(r+1))/2),
    Q(m) the k-th smallest score max(|e_j − m|, |e_causal_j − m|). ``e_causal``: each row's
    error on the causal-mask basis (equal to ``e`` where the FLOP count is stated).

    Raises
    ------
    ValueError
        ``e`` and ``e_causal`` of different lengths or not finite, ``alpha`` outside (0, 1),
        or fewer rows than k (n < ⌈(n + 1)(1 − alpha)⌉: no finite band), naming the argument.
    """
    e, ec = np.asarray(e, dtype=float), np.asarray(e_causal, dtype=float)
    if e.ndim != 1 or e.shape != ec.shape:
        raise ValueError(f"e_causal has {ec.size} values and e {e.size}: one of each per row")
    if not (np.isfinite(e).all() and np.isfinite(ec).all()):
        raise ValueError("e and e_causal must be finite errors (predicted / published - 1)")
    if isinstance(alpha, bool) or not (isinstance(alpha, numbers.Real) and 0 < alpha < 1):
        raise ValueError(f"alpha={alpha!r} must be in (0, 1)")
    n = len(e)
    k = math.ceil((n + 1) * (1 - alpha))
    if k > n:
        raise ValueError(f"e has {n} rows: {with_article(f'{1 - alpha:.0%}')} "
                         "full-conformal band needs "
                         f"n >= ceil((n + 1)(1 - alpha)) = {k}")
    s = np.sort(e)
    if n % 2 == 0:
        lo, hi = s[n // 2 - 1], s[n // 2]
    else:
        r = (n + 1) // 2            # 1-based rank of the median of the n rows
        lo, hi = (s[r - 2] + s[r - 1]) / 2, (s[r - 1] + s[r]) / 2
    return float(lo - _scores_quantile(e, ec, lo, k)), float(hi + _scores_quantile(e, ec, hi, k))


def shift_factor(n: int) -> float:
    """How much of a regime's median held-out error its band's centre takes (the module
    docstring's "Fewer rows"): 1 with n >= ``MIN_CONFORMAL_ROWS`` held-out rows (the median
    itself), else the empirical-Bayes shrinkage n / (n + k), k = ``SHIFT_SHRINK_ROWS``
    (0 without rows), e.g. n = 2: 2 / 5.2 = 0.385.

    Raises
    ------
    ValueError
        ``n`` not an integer >= 0, naming it.
    """
    if isinstance(n, bool) or not (isinstance(n, numbers.Integral) and n >= 0):
        raise ValueError(f"n={n!r} must be a count of held-out rows (an integer >= 0)")
    return 1.0 if n >= MIN_CONFORMAL_ROWS else n / (n + SHIFT_SHRINK_ROWS)


def median_error(center: float, n: int) -> float:
    """The median held-out error a band's ``center`` was shrunk from: center / ``shift_factor``
    (n), 0 without rows (``center`` is 0 then)."""
    f = shift_factor(n)
    return float(center) / f if f else 0.0


def shift_words(center: float, n: int) -> str:
    """Where a band's centre c comes from, for n > 0 held-out runs: "the median signed error of
    its n held-out runs" (n >= ``MIN_CONFORMAL_ROWS``), or that median shrunk toward 0 below it,
    "the median signed error of its 2 held-out runs, −8.6%, × 2 / (2 + 3.1): too few runs to
    measure it from" (``shift_factor``)."""
    runs = f"its {n} held-out run{'s' if n != 1 else ''}"
    if n >= MIN_CONFORMAL_ROWS:
        return f"the median signed error of {runs}"
    return (f"the median signed error of {runs}, {median_error(center, n):+.1%}, × {n} / ({n} + "
            f"{SHIFT_SHRINK_ROWS:g}): shrunk toward 0, too few runs to measure it from")


def shift_shrink_rows(validation: pd.DataFrame | None = None) -> dict:
    """The empirical-Bayes k of ``SHIFT_SHRINK_ROWS``, measured on the regimes with at least
    ``MIN_CONFORMAL_ROWS`` held-out rows (Efron & Morris 1975; method of moments):

        σ² = Σ_r Σ_j (e_rj − median_r)² / (N − R)   (pooled spread about each regime's
                                                      median; N rows, R regimes)
        τ² = max(0, mean_r(median_r²) − mean_r(π σ² / (2 n_r)))   (true shifts' spread about
                                                      0, the value the centre shrinks to)
        k  = π σ² / (2 τ²)                           (inf when τ² = 0)

    the median's sampling variance π σ² / (2n) under normal errors (van der Vaart 1998,
    Cor. 21.5). Returns
    ``{"k", "sigma", "tau", "regimes"}``; ``validation`` defaults to ``validation_table()``."""
    v = validation_table() if validation is None else validation
    held = v[v["split"] == "held-out"]
    groups = [g["error"].to_numpy(float) for _, g in held.groupby("regime")
              if len(g) >= MIN_CONFORMAL_ROWS]
    if len(groups) < 2:
        raise ValueError(f"validation has {len(groups)} regime(s) with >= "
                         f"{MIN_CONFORMAL_ROWS} held-out rows: k needs 2 or more")
    meds = np.array([np.median(e) for e in groups])
    dev = np.concatenate([e - m for e, m in zip(groups, meds)])
    sigma2 = float(np.sum(dev ** 2)) / (len(dev) - len(groups))
    tau2 = max(0.0, float(np.mean(meds ** 2))
               - float(np.mean([math.pi * sigma2 / (2 * len(e)) for e in groups])))
    k = math.inf if tau2 == 0 else math.pi * sigma2 / (2 * tau2)
    return {"k": k, "sigma": math.sqrt(sigma2), "tau": math.sqrt(tau2), "regimes": len(groups)}


def _center_half_width(e: np.ndarray, e_causal: np.ndarray) -> tuple[float, float]:
    """``band_from_rows``'s c and w from the errors on each row's basis (``e``) and on the
    causal-mask basis (``e_causal``), n >= 1 rows: c = median(e) × ``shift_factor``(n) (the
    median itself when n >= ``MIN_CONFORMAL_ROWS``, shrunk toward 0 below); when n >=
    ``MIN_CONFORMAL_ROWS``, w = max(c − L, U − c), [L, U] the full-conformal interval
    (``full_conformal_interval``); else w = max(``DEFAULT_BAND_FRACTION``, the largest score
    max(|e − c|, |e_causal − c|)) about the shrunk centre, the stated default."""
    c = float(np.median(e)) * shift_factor(len(e))
    if len(e) >= MIN_CONFORMAL_ROWS:
        low, high = full_conformal_interval(e, e_causal)
        return c, max(c - low, high - c)
    return c, max(DEFAULT_BAND_FRACTION,
                  float(np.maximum(np.abs(e - c), np.abs(e_causal - c)).max()))


def band_from_rows(rows: pd.DataFrame) -> dict:
    """The band of a set of held-out rows (module docstring): ``center`` c, ``half_width`` w,
    ``n``, ``conformal`` (n >= ``MIN_CONFORMAL_ROWS``), ``error_min``, ``error_max`` (every
    basis). ``rows``: columns ``error``, ``predicted_mfu`` and ``causal_basis_mfu``.

    Raises
    ------
    ValueError
        ``rows`` lacks one of those columns, naming it.
    """
    missing = sorted({"error", "predicted_mfu", "causal_basis_mfu"} - set(rows.columns))
    if missing:
        raise ValueError(f"rows lacks the columns {missing} (validation_table's)")
    n = len(rows)
    if n == 0:
        return {"center": 0.0, "half_width": DEFAULT_BAND_FRACTION, "n": 0, "conformal": False,
                "error_min": float("nan"), "error_max": float("nan")}
    b = _bases(rows)
    c, w = _center_half_width(b["e"].to_numpy(), b["e_causal"].to_numpy())
    return {"center": c, "half_width": w, "n": n, "conformal": n >= MIN_CONFORMAL_ROWS,
            "error_min": float(b.min().min()), "error_max": float(b.max().max())}


def _loo_bands(e: np.ndarray, e_causal: np.ndarray) -> list[tuple[float, float, bool]]:
    """For each row i: ``(c, w, covered)``, the band c ± w built by the same rule from the other
    rows (``_center_half_width`` without row i; the stated default, c = 0 and w =
    ``DEFAULT_BAND_FRACTION``, when i is the only row) and whether both of its errors are in
    it (to 1e-12 of the band's scale: a row exactly on its edge, as ties put one, is in it, not
    lost to the rounding of c ± w)."""
    out = []
    for i in range(len(e)):
        rest = np.arange(len(e)) != i
        c, w = (_center_half_width(e[rest], e_causal[rest]) if rest.any()
                else (0.0, DEFAULT_BAND_FRACTION))
        tol = 1e-12 * max(1.0, abs(c) + w)  # a row on the band's edge (ties) is in it
        out.append((c, w, bool(c - w - tol <= min(e[i], e_causal[i])
                               and max(e[i], e_causal[i]) <= c + w + tol)))
    return out


def _loo_covered(e: np.ndarray, e_causal: np.ndarray) -> list[bool]:
    """For each row i: are its errors on both bases inside the band c ± w built from the other
    rows (``band_from_rows`` without row i; the stated default band when i is the only row)?"""
    return [covered for _, _, covered in _loo_bands(e, e_causal)]


def _rows_of(v: pd.DataFrame, regime: dict) -> pd.Series:
    mask = (v["split"] == "held-out")
    for k in REGIME_PARTS:
        if regime[k] != "any":
            mask &= v[k] == regime[k]
    return mask


@dataclass(frozen=True)
class MfuBand:
    """A predicted MFU with its error band.

    ``low``/``high``: the range of published MFUs consistent with the regime's held-out errors
    (``p / (1 + center ± half_width)``); ``center`` the median held-out error, ``half_width`` the
    half-width about it of the full-conformal interval (or the stated default); ``n`` held-out
    runs of the regime in ``sets``; ``validated`` True for a conformal band (n >=
    ``MIN_CONFORMAL_ROWS``);
    ``best_published`` (None if no run of that generation and size is published; BF16 basis)
    and its ``best_source``; ``warnings``: sentences for a reader.
    """

    mfu: float
    low: float
    high: float
    half_width: float
    regime: str
    n: int
    validated: bool
    sets: tuple = ()
    center: float = 0.0
    error_min: float = float("nan")
    error_max: float = float("nan")
    best_published: float | None = None
    best_source: str = ""
    warnings: tuple = field(default=())
    #: the highest published MFU (``reported_mfu``, BF16 basis) among the regime's ``n``
    #: held-out runs, its run, and the prediction on that basis (None without held-out runs)
    regime_best: float | None = None
    regime_best_source: str = ""
    mfu_bf16_basis: float | None = None
    #: what capped the top (``band_cap_detail``'s ``reason`` and ``source``; "" when uncapped)
    cap_why: str = ""
    cap_from: str = ""

    def basis(self) -> str:
        """Where the band comes from, in words that do not repeat it (``step_error_words``:
        the error is on the step time; ``mfu_spread_words``: what it means for the MFU)."""
        err = step_error_words(self.center, self.half_width, n_runs=self.n)
        sources = step_validation.set_titles(self.sets)
        if self.validated:
            return (f"the 90% band of its regime, measured on the model's errors on its "
                    f"n = {self.n} held-out published runs ({sources}): {err}")
        if self.n:
            return (f"the stated default, {err}: only n = {self.n} held-out published "
                    f"{'run' if self.n == 1 else 'runs'} "
                    f"of its regime ({sources}), too few to measure the model's error from "
                    f"(that takes {MIN_CONFORMAL_ROWS} or more)")
        return f"the stated default of a regime with no published runs, {err}"

    def error_note(self) -> str:
        """The regime's step-time error in a few words (a summary row's source): centre ±
        half-width on its n held-out runs (below ``MIN_CONFORMAL_ROWS`` of them, their median
        and the centre it is shrunk to, ``shift_factor``), or, with none, that the band is the
        stated default (``DEFAULT_BAND_FRACTION``), not a measured error of 0 on 0 runs."""
        if not self.n:
            return (f"no validation rows in this regime: the stated default band "
                    f"± {self.half_width:.0%}")
        runs = f"{self.n} held-out run{'s' if self.n > 1 else ''}"
        if self.n < MIN_CONFORMAL_ROWS:
            return (f"median step-time error {median_error(self.center, self.n):+.1%} (signed) "
                    f"on {runs}, too few to centre the band on: centre {self.center:+.1%} (× "
                    f"{self.n} / ({self.n} + {SHIFT_SHRINK_ROWS:g})) ± {self.half_width:.1%}")
        return (f"median step-time error {self.center:+.1%} (signed) ± {self.half_width:.1%} "
                f"on {runs}")

    def bill_mfu_label(self) -> str:
        """What the MFU a ``mfu: predict`` bill uses is (``central_mfu``): "the band's central
        estimate", or, when that estimate p / (1 + c) is above the band's capped top, "the band's
        upper end (the central estimate, X%, is above the cap)"."""
        _, central, capped = self.central()
        return (f"the band's upper end (the central estimate, {central:.1%}, is above the cap)"
                if capped else "the band's central estimate")

    def capped_above(self) -> float | None:
        """The band's top over the prediction − 1 when ``band_cap`` lowered it (high below the
        uncapped p / (1 + c − w), at most 1), else None (``mfu_spread_words``)."""
        uncapped = uncapped_high(self.mfu, self.center, self.half_width)
        return self.high / self.mfu - 1 if self.high < uncapped else None

    def cap_reason(self) -> str:
        """What capped the band's top, in ``band_cap_detail``'s own words (the best comparable
        published run, or the matmul ceiling, with its source), or "" when nothing capped it:
        the sentence's parenthesis after "capped at X%" (the field ``cap_why``)."""
        return self.cap_why

    def cap_source(self, bill_is_prediction: bool = True) -> str:
        """What set the band's capped top, in a few words for a figure's note (``cap_reason``
        without its comparison rule; the field ``cap_from``): "the best comparable published
        run"; "the model's own low end: its uncapped band lies wholly above the best comparable
        published run, 31.5%, and so does the bill's MFU" (the model's uncapped band
        p / (1 + c ± w) above every comparable run, so the cap is the model's own figure
        p / (1 + c + w), not a published one); "the best
        published run of its class at any size"; "the matmul ceiling"; "" when nothing capped
        it (``CAP_REFERENCES``). ``bill_is_prediction`` False (a bill whose MFU is given, not
        predicted): the words leave out what they say of the bill's MFU (``BILL_TOO``), which
        holds of a bill priced at the prediction only (a trial's mfu: 0.30 was said to lie above
        a run of 31.5%)."""
        return self.cap_from if bill_is_prediction else self.cap_from.replace(BILL_TOO, "")

    def cap_words(self, bill_is_prediction: bool = True) -> str:
        """The band in a reader's words where its ends were moved (``band_cap``): "its top
        capped at 47.0% (<cap_reason>), below the uncapped 60.8%" and, when the prediction lies
        above that top, that the prediction is outside the band and why; "" when uncapped.
        Formulas: uncapped top p / (1 + c − w) (``uncapped_high``), low end
        p / (1 + c + w) before the cap. ``bill_is_prediction`` False (a bill whose MFU the
        scenario gives): nothing is said of what a bill uses (a trial's bill at a given 40.0%
        was said to use no more than a cap of 37.6%)."""
        if self.capped_above() is None:
            return ""
        top, pred = distinct_percents(self.high, self.mfu)
        out = (f"its top capped at {top} ({self.cap_reason() or 'where no measurement goes'}), "
               f"below the uncapped {uncapped_high(self.mfu, self.center, self.half_width):.1%}")
        if self.floored_below() is not None:  # more decimals where one prints them alike
            low, was = distinct_percents(self.low, self.mfu / (1 + self.center + self.half_width))
            out += f", its low end lowered with it to {low} (from {was})"
        if self.high < self.mfu:
            out += (f"; the prediction, {pred}, lies above that cap, so the band "
                    f"({self.low:.1%}–{top}) lies below the prediction" + (
                        " and a bill uses no more than the cap" if bill_is_prediction else
                        "; a `mfu: predict` bill would use no more than the cap"))
        return out

    def floored_below(self) -> float | None:
        """The band's low end over the prediction − 1 when the cap lowered it too (a cap below
        the central estimate, or the model's whole band above every comparable published run:
        ``_capped_low``), else None."""
        return self.low / self.mfu - 1 if \
            self.low < self.mfu / (1 + self.center + self.half_width) * (1 - 1e-12) else None

    def central(self) -> tuple:
        """``central_mfu`` of this band: ``(point, central, capped)``, point = p / (1 + c)
        kept inside [low, high]."""
        return central_mfu(self.mfu, self.center, self.low, self.high)

    def describe(self) -> str:
        """One line: the MFU, its band (once) and where the band comes from (``basis``)."""
        spread = mfu_spread_words(self.center, self.half_width, self.capped_above(),
                                  self.floored_below())
        return (f"{self.mfu:.1%}, band {self.low:.1%}–{self.high:.1%} ({spread}; "
                f"{self.basis()}; "
                f"regime {self.regime})")


def step_error_words(center: float, half_width: float, n_runs: int = 0) -> str:
    """The band's error in a reader's words. The error e = predicted MFU / published MFU − 1 is,
    for the same FLOPs and GPUs (MFU ∝ 1 / step time), published step time / predicted step
    time − 1: an error on the step time, centre ``center`` ± ``half_width``. With ``n_runs`` > 0
    the centre is named as what it is, the median signed error of those held-out runs, shrunk
    toward 0 below ``MIN_CONFORMAL_ROWS`` of them (``shift_words``; the basis every page that
    quotes the band uses; ``regime_error`` is their mean |error|)."""
    where = f" ({shift_words(center, n_runs)})" if n_runs else ""
    return (f"published step times {center:+.1%}{where} ± {half_width:.0%} from the predicted "
            "(an error on the step time)")


def error_range_words(rows: pd.DataFrame) -> str:
    """The held-out ``rows``' signed errors in a reader's words, one basis at a time: their
    range on the FLOP count as published (the basis of the band's median) and, where a source
    leaves its attention FLOP count unstated, the range on a causal-mask count apart
    (``_bases``), e.g. "−8.7% to −8.5% on the FLOP count as published; −12.3% to −12.0% if
    attention is counted with a causal mask"."""
    b = _bases(rows)

    def span(e):
        lo, hi = float(e.min()), float(e.max())
        return f"{lo:+.1%}" if f"{lo:+.1%}" == f"{hi:+.1%}" else f"{lo:+.1%} to {hi:+.1%}"
    out = f"signed errors {span(b['e'])} on the FLOP count as published"
    if not np.allclose(b["e"], b["e_causal"]):
        out += f"; {span(b['e_causal'])} if attention is counted with a causal mask"
    return out


def mfu_spread_words(center: float, half_width: float, capped_above: float | None = None,
                     floored_below: float | None = None) -> str:
    """What a step-time error of c ± w means for the MFU: a published MFU between
    p / (1 + c + w) and p / (1 + c − w), i.e. 1 − 1 / (1 + c + w) below and
    1 / (1 + c − w) − 1 above the prediction p (before any cap); no upper end when
    1 + c − w <= 0. E.g. c = 0, w = 0.30: 23% below to 43% above. ``capped_above``: the band's
    top after ``band_cap``, cap / p − 1, said beside the uncapped figure when the cap applied
    (negative: the cap, a comparable run's best, lies below the prediction, said "the whole band X%
    to Y% below the prediction"). ``floored_below``: the band's low end after the cap, low / p − 1,
    when the cap lowered it too (``MfuBand.floored_below``: ``_capped_low``). A cap that moves the
    top by less than the rounding is said so, not as two equal figures.

    >>> mfu_spread_words(0.0, 0.30, capped_above=0.428)
    'the MFU 23% below to 43% above the prediction (the cap trims its top by under a percent)'
    """
    below = 1 - 1 / (1 + center + half_width)
    up = 1 + center - half_width
    above = f"{1 / up - 1:.0%} above" if up > 0 else "with no upper end"
    if capped_above is not None and capped_above < 0:  # capped below the prediction itself
        near, far = sorted((-capped_above, below if floored_below is None else -floored_below))
        # low end first, as before; a trial read "41% to 23% below it after it" as garbled
        return (f"the MFU {below:.0%} below to {above} the prediction before the cap; after it, "
                f"the whole band {far:.0%} to {near:.0%} below the prediction")
    if capped_above is not None and floored_below is not None:  # low end lowered too
        return (f"the MFU {below:.0%} below to {above} the prediction before the cap, "
                f"{-floored_below:.0%} below to {capped_above:.0%} above after it")
    if capped_above is not None and up > 0 and f"{capped_above:.0%}" == f"{1 / up - 1:.0%}":
        # a trial read "82% above the prediction before the cap, 82% above after it"
        return (f"the MFU {below:.0%} below to {above} the prediction (the cap trims its top by "
                "under a percent)")
    if capped_above is not None:
        return (f"the MFU {below:.0%} below to {above} the prediction before the cap, "
                f"{capped_above:.0%} above after it")
    return f"the MFU {below:.0%} below to {above} the prediction, before any cap"


def above_bf16_peak_words(mfu_bf16: float, basis: float, dtype: str = "fp8") -> str:
    """Why an MFU on the BF16 dense peak exceeds 100% (a low-precision run: its matmuls run at
    ``basis`` = peak(dtype) ÷ peak(BF16) × the BF16 peak, 2 for FP8 on H100 and B200, NVIDIA
    datasheets), or "" at or below 100% (a trial read "101% of the BF16 one" as an error)."""
    if mfu_bf16 <= 1 or basis <= 1:
        return ""
    return f": above 100% because {dtype.upper()} matmuls run at {basis:.3g}× the BF16 peak"


@dataclass(frozen=True)
class PublishedBest:
    """The best published MFU comparable to a run (``comparable_published_mfu``).

    ``mfu_bf16``: on the dense BF16 peak, the basis every published MFU is reported on (None
    when nothing comparable is published); ``basis`` = peak(dtype) ÷ peak(BF16) of the run's
    accelerator (2 for FP8 on H100, H200 and B200; 1 for BF16); ``mfu``: the same figure on the
    run's own basis, ``mfu_bf16 ÷ basis``; ``source``: the run (or claim) it comes from, or why
    there is none; ``rule``: the comparison rule in words; ``stack``: the software stack the
    run was measured on (``data/stacks.csv``; "" for a claim without one); ``fp8_rows``:
    whether the comparable published runs include an FP8 one; ``run``: the best comparable
    run as published, ``(mfu on the BF16 peak, its name)``, before any FP8 bound and without
    the vendor claims (None: no comparable run); ``n_gpus``: the GPUs of the run the figure
    comes from (None for a claim or none); ``from_bf16``: the figure is a BF16 run's or
    claim's MFU × r, the FP8 bound of its plan (``fp8_bound_of_bf16``), not a measured FP8
    figure."""

    mfu_bf16: float | None
    basis: float
    dtype: str
    source: str
    rule: str
    stack: str = ""
    fp8_rows: bool = False
    run: tuple | None = None
    n_gpus: int | None = None
    from_bf16: bool = False

    @property
    def mfu(self) -> float | None:
        """The figure on the run's own dtype basis: mfu_bf16 × peak(BF16) ÷ peak(dtype)."""
        return None if self.mfu_bf16 is None else self.mfu_bf16 / self.basis

    def on_basis(self) -> str:
        """The figure on the run's basis, and on the BF16 one when they differ."""
        if self.mfu_bf16 is None:
            return "none"
        if self.basis == 1.0:
            return f"{self.mfu_bf16:.1%} of the BF16 dense peak"
        over = above_bf16_peak_words(self.mfu_bf16, self.basis, self.dtype)
        return (f"{self.mfu:.1%} of the {self.dtype.upper()} dense peak "
                f"({self.mfu_bf16:.1%} of the BF16 one, the basis published MFUs are reported "
                f"on{over})")

    def describe(self) -> str:
        """One line: the figure on both bases, its run and the rule (or why none)."""
        if self.mfu_bf16 is None:
            return f"nothing comparable published ({self.source}; rule: {self.rule})"
        # a profile of features, named by the year it describes: a 2026 release's run that
        # used only 2024's features is priced with "megatron-core-2024" (data/stacks.csv)
        on = f", its software priced as the {self.stack} stack profile" if self.stack else ""
        return f"{self.on_basis()}, {self.source}{on} (rule: {self.rule})"


#: The largest scale-up (NVLink) domain of one server: a domain larger is rack-scale (GB200 and
#: GB300 NVL72: 72 GPUs).
NODE_DOMAIN = 8


def scaleup_class(accelerator: str) -> str | None:
    """"rack-scale" when the accelerator's scale-up domain (``Accelerator.scaleup_domain_size``,
    data/accelerators.csv) spans more than one ``NODE_DOMAIN``-accelerator server (GB200/GB300
    NVL72, TPU pods), else "node" (8-GPU servers: H100, B200, MI300X); None for a name the
    catalogue does not hold (rule 6 is then not applied). An MoE step's expert all-to-all stays
    on the scale-up links within the domain and crosses the scale-out network beyond it, so MoE
    runs compare within one class (``comparable_published_mfu``'s rule 6)."""
    try:
        size = load_accelerator(accelerator).scaleup_domain_size or NODE_DOMAIN
    except ValueError:
        return None
    return "rack-scale" if size > NODE_DOMAIN else "node"


def same_scaleup_class(accelerators: pd.Series, accelerator: str, is_moe) -> np.ndarray:
    """Rule 6 of ``comparable_published_mfu`` as a mask over published runs' accelerator names:
    for an MoE (``is_moe`` True), the runs whose ``scaleup_class`` is the accelerator's; every
    run for a dense model, a class-free comparison (None) or an accelerator outside the
    catalogue."""
    mine = scaleup_class(accelerator) if is_moe else None
    if mine is None:
        return np.ones(len(accelerators), dtype=bool)
    return (accelerators.map(scaleup_class) == mine).to_numpy()


#: Blackwell Ultra accelerators (B300 GPUs) in the catalogue: the datasheet dense BF16 peak of
#: Blackwell's (GB300 NVL72 and GB200 NVL72 alike: 2.5 PFLOP/s per GPU in data/accelerators.csv;
#: NVIDIA/dgxc-benchmarking's README @ 80634ad, its table of peaks, "BF16 | 2450 | 2450"), but one
#: published recipe runs faster on them: Megatron-Bridge's GB300 NVL72 rows run 1.15-1.27x the
#: tokens/s of the same release's GB200 NVL72 rows of the same plan (eight pairs of LLAMA3_70B
#: FP8 and GPT-OSS 120B BF16, data/validation_mfu.csv; ``blackwell_ultra_pairs``). A GB300
#: MFU on the shared peak is then no target for a GB200 or B200 step (rule 7 of
#: ``comparable_published_mfu``), nor theirs for it.
BLACKWELL_ULTRA = frozenset({"GB300-NVL72"})


def same_chip_class(accelerators: pd.Series, accelerator: str) -> np.ndarray:
    """Rule 7 of ``comparable_published_mfu`` as a mask over published runs' accelerator names:
    Blackwell Ultra runs (``BLACKWELL_ULTRA``) for a Blackwell Ultra accelerator, every other
    run for any other accelerator."""
    mine = accelerator in BLACKWELL_ULTRA
    return (accelerators.isin(BLACKWELL_ULTRA) == mine).to_numpy()


def generation_scope_words(accelerator: str) -> str:
    """The GPU generation a comparable run is taken from, in words, rule 7 said: "Hopper",
    "Blackwell Ultra" for a Blackwell Ultra accelerator, "Blackwell (not Blackwell Ultra)"
    for another Blackwell one."""
    gen = gpu_generation(accelerator)
    if accelerator in BLACKWELL_ULTRA:
        return "Blackwell Ultra"
    return f"{gen} (not Blackwell Ultra)" if gen == "Blackwell" else gen


def comparable_hardware(accelerators: pd.Series, accelerator: str, is_moe) -> np.ndarray:
    """Rules 6 and 7 of ``comparable_published_mfu`` together: the published runs whose
    accelerator may be compared with ``accelerator`` within its GPU generation (an MoE's
    scale-up class, ``same_scaleup_class``; Blackwell Ultra apart, ``same_chip_class``)."""
    return same_scaleup_class(accelerators, accelerator, is_moe) \
        & same_chip_class(accelerators, accelerator)


def blackwell_ultra_pairs() -> pd.DataFrame:
    """The published runs of one recipe on GB300 NVL72 and GB200 NVL72 (the same set, model,
    precision, GPU count, sequence and plan in data/validation_mfu.csv, Megatron-Bridge's
    performance tables): each pair's ``ratio``, GB300's MFU ÷ GB200's, both on the same
    datasheet BF16 peak, so a ratio of tokens per second (``BLACKWELL_ULTRA``'s evidence)."""
    v = validation_table()
    key = ["set", "model_key", "dtype", "n_gpus", "seq_len", "plan"]
    v = v.assign(model_key=v["run_id"].str.replace(r"-gb[23]00-", "-", regex=True))
    g3 = v[v["accelerator"] == "GB300-NVL72"].set_index(key)["reported_mfu"]
    g2 = v[v["accelerator"] == "GB200-NVL72"].set_index(key)["reported_mfu"]
    both = pd.concat({"gb300": g3, "gb200": g2}, axis=1, join="inner")
    return both.assign(ratio=both["gb300"] / both["gb200"]).reset_index()


def scaleup_words(accelerator: str) -> str:
    """Rule 6's scope in words: "scale-up domains of more than 8 accelerators (NVL72 racks,
    TPU pods)" or "8-accelerator scale-up domains (one server)"."""
    return (f"scale-up domains of more than {NODE_DOMAIN} accelerators (NVL72 racks, TPU pods)"
            if scaleup_class(accelerator) == "rack-scale" else
            f"{NODE_DOMAIN}-accelerator scale-up domains (one server)")


def comparable_rule(accelerator: str, is_moe: bool | None, dtype: str = "bf16",
                    seq_len: int | None = None) -> str:
    """``comparable_published_mfu``'s rule in words, for a page to print."""
    cls = "any dense or MoE" if is_moe is None else ("MoE" if is_moe else "dense")
    prec = f"FP8 runs, and BF16 runs × {FP8_BOUND_WORDS}, compared on the BF16 dense peak" \
        if str(dtype).lower().startswith("fp8") else "BF16 runs"
    seq = "" if seq_len is None else f", sequences of {seq_range_words(seq_len)} tokens"
    domain = f", on {scaleup_words(accelerator)}" if is_moe and scaleup_class(accelerator) \
        else ""
    return (f"{cls} runs on {generation_scope_words(accelerator)}{domain}, total parameters within "
            f"{SIZE_FACTOR:g}×, {prec}{seq}")


def _seq_range(seq_len: int | None) -> tuple:
    """The sequence lengths comparable to ``seq_len``: [seq_len ÷ SEQ_FACTOR, seq_len ×
    SEQ_FACTOR]; [0, ∞) for None (every length counts). ValueError for a length that is not a
    positive whole number."""
    if seq_len is None:
        return 0.0, math.inf
    if isinstance(seq_len, bool) or not (isinstance(seq_len, numbers.Integral) and seq_len >= 1):
        raise ValueError(f"seq_len={seq_len!r} must be a whole number of tokens >= 1")
    return seq_len / SEQ_FACTOR, seq_len * SEQ_FACTOR


def seq_range_words(seq_len: int) -> str:
    """The sequence lengths a comparable run may have (``SEQ_FACTOR``), in words: seq_len ÷ 4
    to × 4, e.g. "1,024–16,384" for 4,096.

    Raises
    ------
    ValueError
        A length that is not a positive whole number.
    """
    if seq_len is None:
        raise ValueError("seq_len=None must be a whole number of tokens >= 1")
    lo, hi = _seq_range(seq_len)
    return f"{lo:,.0f}–{hi:,.0f}"


#: The validation table's columns the comparable-run rules filter on, as numpy arrays, kept
#: with the table they were read from (``_scope_columns``).
_SCOPE_COLUMNS: dict = {}


def _scope_columns(v: pd.DataFrame) -> dict:
    """The columns of ``v`` (the validation table) that ``_published_in_scope`` compares, as
    numpy arrays, read once per table: ``validation_table`` returns the same frame for the
    whole process (its ``lru_cache``), and a hardware sweep asks for the comparable runs of
    every accelerator, twice (the row's ceiling and its band's cap). The table and its columns
    are kept as one pair, replaced at once (a report's index thread may ask meanwhile)."""
    kept = _SCOPE_COLUMNS.get("kept")
    if kept is None or kept[0] is not v:
        kept = (v, {k: v[k].to_numpy() for k in ("run_id", "gpu_generation", "precision",
                                                 "seq_len", "params", "moe")})
        _SCOPE_COLUMNS["kept"] = kept
    return kept[1]


def _published_in_scope(gen: str | None, fp8: bool, seq_range: tuple, is_moe,
                        exclude_runs=(), size_range: tuple = (0.0, math.inf)) -> pd.DataFrame:
    """The validation table's rows, in its order, of GPU generation ``gen`` (None: every one),
    BF16 rows only unless ``fp8``, sequences within ``seq_range`` (low, high: both included),
    total parameters within ``size_range``, class ``is_moe`` (None: both), runs of
    ``exclude_runs`` left out: the scope of ``comparable_published_mfu``'s rules (1)-(5) and of
    ``_best_of_scope``. The comparisons are made on numpy arrays (``_scope_columns``), the same
    element by element as pandas' on the columns, and the table is indexed once."""
    v = validation_table()
    c = _scope_columns(v)
    mask = (c["seq_len"] >= seq_range[0]) & (c["seq_len"] <= seq_range[1]) \
        & (c["params"] >= size_range[0]) & (c["params"] <= size_range[1])
    if gen is not None:
        mask &= c["gpu_generation"] == gen
    if not fp8:
        mask &= c["precision"] == "BF16"
    if is_moe is not None:
        mask &= c["moe"] == ("MoE" if is_moe else "dense")
    excluded = set(exclude_runs)
    if excluded:
        mask &= np.fromiter((r not in excluded for r in c["run_id"]), dtype=bool,
                            count=len(v))
    return v[mask]


def comparable_published_mfu(accelerator: str, n_params: float, *, is_moe: bool | None,
                             dtype: str = "bf16", exclude_runs=(),
                             seq_len: int | None = None, fp8_bound: bool = True) -> PublishedBest:
    """The best published MFU comparable to a run: the one rule every page uses (notebook 04b's
    ceiling, 09's MFU lever and hardware table, ``llmcost check``, notebook 08, the bands' cap).

    Comparable = (1) the same GPU generation (``GPU_GENERATIONS``); (2) the same class, MoE runs
    for an MoE and dense runs for a dense model (``is_moe``; None: both): an MoE step adds the
    all-to-all, the router and small expert GEMMs, and its published MFUs sit well below the
    dense ones of the same generation (Hopper: Megatron-Bridge 25.11 LLAMA3_70B FP8 77.9% of the
    BF16 peak against Qwen3_30B_a3B FP8 14.9%, data/validation_mfu.csv), so a dense run is no
    target for an MoE; (3) **total** parameters within ``SIZE_FACTOR`` (the validation table's
    ``params`` and the regimes' size class are total counts; within a class the active share
    is similar enough, and total parameters set the weights, optimizer state and expert traffic
    a step carries: DeepSeek-V3's 37 B active parameters would otherwise put it beside a 30 B
    dense model); (4) the dtype: a BF16 step against BF16 runs only (an FP8 run's MFU on the
    BF16 peak counts GEMMs that ran at up to twice it), an FP8 step against the FP8 runs as
    published and the BF16 runs × r, whichever is higher (``fp8_bound_of_bf16``, with
    ``fp8_bound``: the same plan in FP8 runs up to r times as fast, FP8 runs published or not;
    a trial's FP8 MoE was capped at a BF16 run's figure, as if FP8 ran no faster);
    (5) with ``seq_len`` given, **the same FLOP basis and context**: runs whose sequences are
    within ``SEQ_FACTOR`` of it (``seq_len`` ÷ 4 to × 4). Every validation row's
    ``reported_mfu`` is on the workbook's full-mask FLOP count, the prediction's
    (``step_validation.mfu_validation`` converts each source's count), but the attention share
    of that count grows with the sequence: at 128k tokens the full mask counts attention work a
    causal kernel skips, so a 128k MFU and a 4k one are not the same measure even on one basis
    (a trial: a 47% prediction at 128k capped by Megatron-LM's 47% at 4,096 tokens). A claim
    (``MFU_CLAIMS``, its basis unstated) counts only within its own sequence range. Without
    ``seq_len`` (None) every length counts, the rule of a page that has no plan.
    (6) for an MoE, **the same scale-up class** (``scaleup_class``): runs on rack-scale NVLink
    domains (GB200/GB300 NVL72) for a rack-scale accelerator, on 8-GPU servers for one of those,
    since the expert all-to-all leaves NVLink at the server's edge (Megatron-Bridge 26.02's
    DeepSeek-V3 MXFP8: 34.9% of the BF16 peak on B200 servers, 46.2% on GB200 NVL72, 53.8% on
    GB300 NVL72 on the workbook's full-mask count, 31.1%, 41.1% and 48.0% on NVIDIA's own Model
    TFLOP/s, data/validation_mfu.csv), so a rack's MoE run is no target for a server's.
    Published MFUs are on the dense BF16 peak; the result carries that figure (``mfu_bf16``)
    and the run's own basis, ``mfu = mfu_bf16 × peak(BF16) ÷ peak(dtype)`` (``basis``).
    Sources: ``reported_mfu`` of the validation table (``data/validation_mfu.csv`` joined to
    ``data/published_runs.csv``) and ``MFU_CLAIMS`` (each with its class); ``exclude_runs``:
    validation ``run_id`` s left out (``claims.best_reference`` leaves out the claimed model's
    own runs).

    Raises
    ------
    ValueError
        If ``n_params`` is not a positive number.
    """
    if isinstance(n_params, bool) or not (isinstance(n_params, numbers.Real) and n_params > 0):
        raise ValueError(f"n_params={n_params!r} must be a positive number of parameters")
    gen = gpu_generation(accelerator)
    fp8 = str(dtype).lower().startswith("fp8")
    lo_s, hi_s = _seq_range(seq_len)
    same = _published_in_scope(gen, fp8, (lo_s, hi_s), is_moe, exclude_runs,
                               (n_params / SIZE_FACTOR, n_params * SIZE_FACTOR))
    same = same[comparable_hardware(same["accelerator"], accelerator, is_moe)]
    cls = "" if is_moe is None else ("MoE " if is_moe else "dense ")
    where = generation_scope_words(accelerator)   # rule 7 said: Blackwell Ultra apart
    best, source, stack = None, (f"no published {cls}{'' if fp8 else 'BF16 '}{where} run of a "
                                 f"model within {SIZE_FACTOR:g}× this size" + (
                                     "" if seq_len is None else " at a comparable sequence "
                                     "length")), ""
    run, fp8_rows, n_gpus, scaled = None, bool((same["precision"] == "FP8").any()), None, False
    if len(same):
        top = same.loc[same["reported_mfu"].idxmax()]
        run = (float(top["reported_mfu"]), str(top["model"]))
        best, source, row = _bounding_row(same, fp8 and fp8_bound, n_params)
        stack, n_gpus = str(row["stack"]), int(row["n_gpus"]) if pd.notna(row["n_gpus"]) else None
        scaled = fp8 and fp8_bound and row["precision"] == "BF16"
    for g, lo, hi, moe, mfu, src, s_claim in MFU_CLAIMS:
        # a claim is BF16 evidence (MFU_CLAIMS): for an FP8 step bounded as the BF16 rows are
        # (rule 4), its MFU × r
        if fp8 and fp8_bound:
            mfu, src = fp8_bound_of_bf16(mfu, src, n_params)
        if g == gen and lo <= n_params <= hi and (is_moe is None or moe == bool(is_moe)) and \
                lo_s <= s_claim <= hi_s and (best is None or mfu > best):
            best, source, stack, n_gpus, scaled = mfu, src, "", None, fp8 and fp8_bound
    return PublishedBest(best, _check_dtype_basis(accelerator, dtype),
                         "fp8" if fp8 else "bf16", source,
                         comparable_rule(accelerator, is_moe, dtype, seq_len), stack,
                         fp8_rows, run, n_gpus, bool(scaled))


def best_published_mfu(accelerator: str, n_params: float, dtype: str = "bf16",
                       is_moe: bool | None = None, seq_len: int | None = None):
    """``comparable_published_mfu`` as ``(mfu on the BF16 basis, source)`` or ``(None,
    reason)``: the best published MFU on that GPU generation for a model within
    ``SIZE_FACTOR`` of ``n_params`` total parameters, of the class ``is_moe`` (None: both).

    Raises
    ------
    ValueError
        If ``n_params`` is not a positive number.
    """
    b = comparable_published_mfu(accelerator, n_params, is_moe=is_moe, dtype=dtype,
                                 seq_len=seq_len)
    return b.mfu_bf16, b.source


def dtype_basis(accelerator, dtype: str = "fp8") -> float:
    """r = peak(dtype) ÷ peak(BF16), the dense peaks of a catalogue accelerator
    (data/accelerators.csv, its datasheet: H100-SXM FP8 1,978.9 ÷ BF16 989.4 TFLOP/s = 2): an
    MFU on the dtype's peak times r is the same throughput on the BF16 peak, the basis
    published MFUs are on. The one source of the ratio (``checks.fp8_over_bf16`` is this for
    FP8; the ``basis`` of the bands and of the best published figure).

    Raises
    ------
    ValueError
        An accelerator not in the catalogue, an unknown dtype, or a dtype without a peak on it
        (FP8 on A100 or TPU v5p).
    TypeError
        ``accelerator`` is not a name (None: a scenario without one)."""
    gpu = load_accelerator(accelerator)
    return gpu.peak_flops_per_s(dtype) / gpu.peak_flops_per_s("bf16")


def _check_dtype_basis(accelerator: str, dtype: str) -> float:
    """``dtype_basis`` of a step, 1 for a BF16 step or an accelerator outside the catalogue."""
    if str(dtype).lower() == "bf16":
        return 1.0
    try:
        load_accelerator(accelerator)
    except ValueError:
        return 1.0
    return dtype_basis(accelerator, dtype)


def fp8_speedup_bound(n_params: float | None = None) -> tuple[float, str]:
    """r, the largest published whole-step speed-up of FP8 over BF16 for one plan among the
    validation's pairs of a model of comparable size, and its pair:

        r = max over ``fp8_bf16_pairs`` of a model within ``SIZE_FACTOR`` of ``n_params``
            of (FP8 reported MFU ÷ BF16 reported MFU)

    both on the dense BF16 peak, so a ratio of tokens per second; a pair is one source, stack,
    accelerator, GPU count, model, sequence length and plan (data/validation_mfu.csv). The
    speed-up is larger for large models, whose GEMMs take more of the step and run nearer the
    FP8 peak, though not monotonically among the small ones: MosaicML llm-foundry's MPT 1B-3B
    1.00-1.35 (scripts/train/benchmarking/README.md @ 495218376; the 1.345 of MPT 1B at 512
    tokens, 70,315 ÷ 52,275 tokens/s/GPU), torchtitan's Llama 3.1 8B 1.28-1.29, NVIDIA's DGX
    Cloud recipes 1.34 at 8B, 1.40 at 70B, 1.51 at 175B, 1.46 at 340B and 1.52-1.60 at 405B
    (NVIDIA/dgxc-benchmarking, the same plan in both tables). So a small
    model's FP8 is not bounded by a 405B's speed-up, nor a large one's by a 1B's. Without
    ``n_params`` every pair counts; where no pair is of a comparable size, the pairs of the
    model nearest in size (log scale) do (a 100M model: MPT 1B's, not the 405B's).

    Raises ValueError for ``n_params`` given and not a positive finite number."""
    if n_params is not None and (isinstance(n_params, bool) or not (
            isinstance(n_params, numbers.Real) and 0 < n_params < math.inf)):
        raise ValueError(f"n_params={n_params!r} must be a positive finite number of parameters")
    return _fp8_speedup_bound(None if n_params is None else float(n_params))


@lru_cache(maxsize=64)
def _fp8_speedup_bound(n_params: float | None) -> tuple[float, str]:
    pairs = fp8_bf16_pairs(validation_table())
    if n_params is not None:
        size = validation_table().set_index("run_id")["params"]
        p = pairs["run_id_fp8"].map(size)
        near = pairs[(p >= n_params / SIZE_FACTOR) & (p <= n_params * SIZE_FACTOR)]
        if not len(near):   # the pairs of the nearest size
            gap = np.abs(np.log(p.to_numpy(dtype=float) / n_params))
            near = pairs[gap == gap.min()]
        pairs = near
    top = pairs.loc[pairs["published"].idxmax()]
    return float(top["published"]), f"{top['run_id_fp8']} ÷ {top['run_id_bf16']}"


#: rule (4)'s factor in words, for the rules' sentences.
FP8_BOUND_WORDS = "r, the largest published FP8 ÷ BF16 speed-up of one plan of a comparable size"


def _bounding_row(rows: pd.DataFrame, fp8_bound: bool, n_params: float | None = None,
                  named_with_accelerator: bool = False):
    """``(best, source, row)``: the row of ``rows`` (validation-table rows, non-empty) whose MFU
    on the BF16 peak bounds a step highest, its figure and its source in words (the model,
    ``named_with_accelerator``: and its accelerator where the name lacks it): each row as
    published, or for an FP8 step (``fp8_bound``) the FP8 rows as published and each BF16 row
    × r (``fp8_bound_of_bf16``: the same plan in FP8 runs up to r times as fast, r =
    ``fp8_speedup_bound`` of the step's ``n_params``, or of each run's own size where the scope
    has no size: None). ``comparable_published_mfu``'s rule (4)."""
    mfu = rows["reported_mfu"].to_numpy(dtype=float)
    bf16 = rows["precision"].to_numpy() == "BF16"
    i = int(np.argmax(mfu))
    if fp8_bound and bf16.any():
        size = rows["params"].astype(float) if n_params is None else \
            pd.Series(float(n_params), index=rows.index)
        r = {n: fp8_speedup_bound(n)[0] for n in set(size)}
        scaled = np.where(bf16, mfu * size.map(r).to_numpy(), 0.0)
        j = int(np.argmax(scaled))
        # a BF16 run × r that only ties an FP8 run (its own pair's) yields to the run
        i = j if bf16[i] or scaled[j] > mfu[i] * (1 + 1e-9) else i
    row = rows.iloc[i]
    best, source = float(row["reported_mfu"]), str(row["model"])
    if named_with_accelerator and str(row["accelerator"]).split("-")[0] not in source:
        source += f" on {row['accelerator']}"  # the hardware named once
    if fp8_bound and row["precision"] == "BF16":
        best, source = fp8_bound_of_bf16(best, source, float(
            row["params"] if n_params is None else n_params))
    return best, source, row


def fp8_bound_of_bf16(mfu_bf16: float, source: str,
                      n_params: float | None = None) -> tuple[float, str]:
    """What a BF16 run bounds an FP8 step of its class at (where no comparable FP8 run is
    published higher):

        bound = MFU of the BF16 run × r      (r: ``fp8_speedup_bound(n_params)``; both on the
                                              BF16 peak)

    An FP8 step runs at most r times as fast as the same plan in BF16 (the published pairs of
    a model of comparable size), so the best BF16 run × r is the most the FP8 step can be
    expected to reach; the BF16 figure alone would hold it to BF16 speed. ``(bound, its source
    in words)``."""
    r, pair = fp8_speedup_bound(n_params)
    return mfu_bf16 * r, (f"{source} (a BF16 run, {mfu_bf16:.1%} of the BF16 peak) × {r:.3g}, "
                          "the largest FP8 ÷ BF16 speed-up of one plan among the published "
                          f"pairs{'' if n_params is None else ' of a comparable size'} ({pair})")


def mfu_band(mfu: float, accelerator: str, n_gpus: int, *, zero_stage: int = 0, stack=None,
             is_moe: bool = False, n_params: float | None = None,
             exclude_run: str | None = None, dtype: str = "bf16",
             seq_len: int | None = None, capped: bool = True) -> MfuBand:
    """The error band of a predicted MFU (see the module docstring for the rule); with
    ``capped`` (default) its upper end is capped where no measurement goes (``band_cap``).

    Parameters
    ----------
    mfu : float in (0, 1]
        The prediction (``StepBreakdown.mfu``, on the peak of ``dtype``).
    accelerator : str
        Catalogue name (its generation picks the regime).
    n_gpus : int >= 1
        The plan's GPUs (a warning when far from the regime's published runs).
    zero_stage, stack, is_moe
        The plan's sharding (ZeRO-3, or ZeRO-2 on a PyTorch FSDP ``stack``, = FSDP:
        ``sharding_of``; no stack: the ZeRO stage alone) and dense / MoE.
    n_params, seq_len : optional
        Model parameters and tokens per sequence (the size and context of the regime; None
        pools both classes). ``n_params`` also drives the best-published check.
    exclude_run : str, optional
        A validation ``run_id`` left out of the regime (leave-one-out check of that run).
    dtype : str
        The step's GEMM precision (``"bf16"`` or ``"fp8"``): the regime's precision, and the
        basis conversion of the best-published check.

    Returns
    -------
    MfuBand

    Raises
    ------
    ValueError
        ``mfu`` outside (0, 1], ``n_gpus`` < 1 or an unknown ``exclude_run``, naming the
        argument.
    """
    _check_band_inputs(mfu, n_gpus, dtype)
    if stack is not None:
        load_stack(stack)  # an unknown profile: its ValueError, naming stack
    accelerator = _catalogue_name(accelerator)
    regime = regime_of(accelerator, zero_stage=zero_stage, is_moe=is_moe, dtype=dtype,
                       seq_len=seq_len, n_params=n_params, stack=stack)
    v = validation_table()
    if exclude_run is not None and exclude_run not in set(v["run_id"]):
        raise ValueError(f"exclude_run={exclude_run!r} is not a validation run_id "
                         "(data/validation_mfu.csv)")
    rows = v[_rows_of(v, regime) & (v["run_id"] != exclude_run)]
    band = band_from_rows(rows)
    c, w = band["center"], band["half_width"]
    label = regime_label(regime)
    low = mfu / (1 + c + w)
    unbounded = 1 + c - w <= UPPER_BOUND_MARGIN
    uncapped = uncapped_high(mfu, c, w)
    basis = _check_dtype_basis(accelerator, dtype)
    cap, best, source = _band_top(mfu, uncapped, accelerator, n_params, dtype, seq_len,
                                  bool(is_moe), low, capped)
    high = cap.high
    low, floored = _floor_below_cap(mfu, low, high, accelerator, best, basis, seq_len, c, w,
                                    bool(is_moe), n_params)
    # the evidence's range said with the capped top beside it, so no page reads the uncapped one
    warnings = _evidence_warnings(band, label, rows, n_gpus,
                                  high / mfu - 1 if high < uncapped else None, floored)
    if unbounded:
        warnings.append(f"the regime's held-out runs were off by {error_range_words(rows)}: "
                        "read the predicted MFU as an upper bound.")
    rule = comparable_rule(accelerator, bool(is_moe), dtype, seq_len)
    warnings.extend(_optimism_warning(mfu, mfu * basis, best, source, rule,
                                      central_mfu(mfu, c, low, high)) + cap.warnings)
    top = rows.loc[rows["reported_mfu"].idxmax()] if len(rows) else None
    return MfuBand(mfu=float(mfu), low=float(low), high=float(high), half_width=float(w),
                   regime=label, n=int(band["n"]), validated=bool(band["conformal"]),
                   sets=tuple(dict.fromkeys(rows["set"])), center=float(c),
                   error_min=band["error_min"], error_max=band["error_max"],
                   best_published=best, best_source=source, warnings=tuple(warnings),
                   regime_best=None if top is None else float(top["reported_mfu"]),
                   regime_best_source="" if top is None else str(top["model"]),
                   mfu_bf16_basis=float(mfu * basis), cap_why=cap.reason, cap_from=cap.source)


def _band_top(mfu, uncapped, accelerator, n_params, dtype, seq_len, is_moe, low, capped):
    """``(BandCap, best, source)`` of ``mfu_band``: the best comparable published MFU (BF16
    basis, ``comparable_published_mfu``; None without ``n_params``) and the band's top capped by
    it (``band_cap_detail``, told where that best is a BF16 run's FP8 bound), or the uncapped
    top where ``capped`` is false."""
    pub = None if n_params is None else comparable_published_mfu(
        accelerator, n_params, is_moe=is_moe, dtype=dtype, seq_len=seq_len)
    best, source = (None, "") if pub is None else (pub.mfu_bf16, pub.source)
    if not capped:
        return BandCap(uncapped, []), best, source
    scaled = source if pub is not None and pub.from_bf16 else None
    cap = band_cap_detail(mfu, uncapped, accelerator, n_params, best,
                          basis=_check_dtype_basis(accelerator, dtype), low=low, seq_len=seq_len,
                          is_moe=is_moe, best_scaled_from=scaled)
    return cap, best, source


def _floor_below_cap(mfu: float, low: float, high: float, accelerator: str, best,
                     basis: float, seq_len, center: float = 0.0,
                     half_width: float = 0.0, is_moe: bool | None = None,
                     n_params: float | None = None) -> tuple:
    """The band's low end once capped (``_capped_low``), and that end over the prediction − 1
    where it moved (else None); ``best`` the best comparable published run, or None for the
    best at any size (``_or_any_size``); ``center``, ``half_width`` the regime's c and w."""
    ref = _or_any_size(best, accelerator, basis, seq_len, is_moe, n_params) \
        if high <= low else None
    floored = float(_capped_low(low, high, None if ref is None else ref / basis,
                                center, half_width))
    return floored, (floored / mfu - 1 if floored < low * (1 - 1e-12) else None)


def _floored_low(low, high, ref):
    """A capped band's low end: ``low`` = p / (1 + c + w), unless the cap brought the top down
    to it (``band_cap``: the model's whole band above the best comparable published run, or
    above the best one at any size when none is comparable). The band then runs from that
    published run ``ref`` (on the step's basis, best ÷ basis; None: none published) to the
    model's low end, rather than shrinking to one point, which pages would read as an MFU given
    rather than predicted: where(high ≤ low, min(low, ref), low). Numbers or arrays."""
    return low if ref is None else np.where(np.asarray(high) <= low, np.minimum(low, ref), low)


def _capped_low(low, high, ref, center, half_width):
    """The low end of a band whose top ``band_cap`` may have lowered: the floor of
    ``_floored_low``, and at most the regime's relative width below the capped top,

        low' = min(floored low, high × (1 + c) / (1 + c + w)).

    Uncapped, high = p / (1 + c − w) and high × (1 + c) / (1 + c + w) ≥ p / (1 + c + w) = low:
    the band is unchanged. A cap below the central estimate p / (1 + c) makes the top the
    point a bill uses (``central_mfu``); the band below that point then keeps the width the
    regime's errors give below the central estimate, (1 + c) / (1 + c + w), instead of
    shrinking to the sliver between the model's low end and the cap (a trial: Mixtral 8x7B on
    512 B200, predicted 37.2%, band 26.5%–26.8% under a cap at the best comparable run's
    26.8%). A prediction above every comparable run is a sign the model is optimistic for this
    run, so its own low end is no floor to trust. The rule follows the point, not the
    prediction: a cap above p but below p / (1 + c) (a regime whose runs were faster than
    predicted, c < 0) also makes the cap the point, and the band below it keeps the same width,
    a little under the model's own low end (Llama 3.1 70B FP8 on 1,024 H100: 31.0% → 30.3%).
    Numbers or arrays (``center``, ``half_width`` broadcast)."""
    width = (1.0 + np.asarray(center, float)) / (1.0 + np.asarray(center, float)
                                                 + np.asarray(half_width, float))
    out = np.minimum(_floored_low(low, high, ref), np.asarray(high, float) * width)
    return float(out) if np.ndim(out) == 0 else out


def _or_any_size(best, accelerator: str, basis: float, seq_len, is_moe: bool | None = None,
                 n_params: float | None = None):
    """``best`` (a published MFU, BF16 basis), else the best published on the GPU generation at
    any size of the class ``is_moe``, or where it has none the best comparable run on any
    hardware (``cap_reference``, for the step's dtype: FP8 where ``basis`` ≠ 1)."""
    return best if best is not None else cap_reference(
        accelerator, n_params, "fp8" if basis != 1.0 else "bf16", seq_len, is_moe).mfu_bf16


def uncapped_high(mfu, center: float, half_width: float):
    """The band's upper end before ``band_cap``: p / (1 + c − w), at most MFU 1, and 1 itself
    when 1 + c − w <= ``UPPER_BOUND_MARGIN`` (the module docstring's rule). ``mfu`` a number or
    an array of predictions (the same shape back)."""
    up = 1 + center - half_width
    if up <= UPPER_BOUND_MARGIN:
        return 1.0
    high = mfu / up
    return min(high, 1.0) if np.ndim(high) == 0 else np.minimum(high, 1.0)


def central_mfu(mfu: float, center: float, low: float, high: float) -> tuple:
    """The band's central estimate of the MFU a run predicted at ``mfu`` will publish, kept
    inside its band: ``(point, central, capped)``.

    central = p / (1 + c),  point = min(max(central, low), high)

    with p the step-time model's prediction and c the median of its regime's held-out errors
    e = predicted MFU / published MFU − 1, shrunk toward 0 by n / (n + ``SHIFT_SHRINK_ROWS``)
    when they are fewer than ``MIN_CONFORMAL_ROWS`` (``shift_factor``: too few to measure the
    model's error from, their median is noise of ≈ 1.25 σ / √n) (``band_from_rows``; the
    band's rule is the module
    docstring's: full conformal, Vovk et al. 2005; Lei et al. 2018, §2.1). The band
    says the published MFU lies in [p / (1 + c + w), p / (1 + c − w)]; at the median error the
    published MFU is p / (1 + c), the band's centre on the error scale, and the estimate a bill
    should carry rather than the raw prediction at the band's edge. The errors are measured on
    the held-out rows of the validation table (``validation_table``:
    ``step_validation.mfu_validation`` over ``data/validation_mfu.csv`` joined to
    ``data/published_runs.csv``, ``split == "held-out"``, the regime's rows). ``capped``: the
    band's upper end (capped by ``band_cap`` where no comparable run has measured more) lies
    below p / (1 + c), so the point is ``high``. A regime without held-out rows has c = 0: the
    point is the prediction. E.g. p = 50%, c = +10% (published step times a median 10% longer
    than predicted): central = 50% / 1.10 = 45.5%.

    Added after seeing the held-out errors (c is computed from them, as the band's centre is):
    a point checked against the rows that set its c is checked in sample. Out of sample is a
    row left out of its regime (``mfu_band(..., exclude_run=...)``): Llama 3.1 405B on 16,384
    H100, c from its regime's four other held-out runs (median −0.5%, shrunk by 4 / (4 + k) to
    −0.3%), gives 37.0% against the published 40.4%, the raw prediction 36.9%
    (tests/test_predict_central.py; while c rested on the 8,192-GPU row alone, −8.5% shrunk to
    −2.5%, it gave 37.8%, and the unshrunk median 40.3%; the same point accuracy pooled over
    every thin regime's rows: benchmarks/band_rules.py).

    Raises
    ------
    ValueError
        ``mfu`` not positive, ``center`` <= −1 or ``low`` > ``high``, naming the argument.
    """
    if not (isinstance(mfu, numbers.Real) and mfu > 0):
        raise ValueError(f"mfu={mfu!r} must be a positive MFU")
    if not (isinstance(center, numbers.Real) and center > -1):
        raise ValueError(f"center={center!r} must be a median error above -1 "
                         "(predicted / published - 1)")
    if not low <= high:
        raise ValueError(f"low={low!r} must be at most high={high!r}")
    central = float(mfu) / (1.0 + float(center))
    point = min(max(central, float(low)), float(high))
    return point, central, bool(central > high)


def central_mfu_words(mfu: float, center: float, n: int, low: float, high: float,
                      plan: str = "this plan", point: float | None = None,
                      cap: str = "") -> str:
    """``central_mfu`` in a reader's words: the prediction, the regime's median held-out error
    on the step time (c = published ÷ predicted step time − 1: c > 0, its runs took more time
    per step than predicted; c = −0.2 is 20 % less time, a 25 % higher speed), the point the
    bill uses
    (``point``, default ``central_mfu``'s; a bill's record gives its rounded value) and the
    band. A regime without held-out rows (n = 0): the prediction is the point, said so; one
    with fewer than ``MIN_CONFORMAL_ROWS``: their median and the shrunk centre both said
    (``shift_factor``). ``cap``: what set the band's capped top (``MfuBand.cap_source``), said
    after the band when the bill uses that top."""
    p, central, capped = central_mfu(mfu, center, low, high)
    point = p if point is None else point
    band = f"(band {low:.1%}–{high:.1%})" + (f", its top set by {cap}" if capped and cap
                                             else "")
    head = f"the step-time model predicts {mfu:.1%} for {plan}"
    if not n:
        if capped:  # the prediction above the band's capped top (``band_cap``)
            return (f"{head}; no held-out published run in its regime to centre it, and the "
                    f"prediction is above the band's capped top, so the bill uses the top, "
                    f"{point:.1%} {band}")
        return (f"{head}; no held-out published run in its regime to centre it, so the bill uses "
                f"the prediction, {point:.1%} {band}")
    med = median_error(center, n)
    how = f"{abs(med):.1%} {'more' if med >= 0 else 'less'} time per step than predicted"
    runs = f"({n} run{'s' if n != 1 else ''})"
    if n < MIN_CONFORMAL_ROWS:  # the median shrunk toward 0 (``shift_factor``)
        runs = (f"({n} run{'s' if n != 1 else ''}, too few to measure the model's error from: "
                f"shrunk toward no error by {n} / ({n} + {SHIFT_SHRINK_ROWS:g}), a prior weighted "
                f"as {SHIFT_SHRINK_ROWS:g} runs by the regimes with enough runs, to "
                f"{abs(center):.1%})")
    if capped:
        return (f"{head}; its held-out runs in this regime took a median {how} {runs}, which puts "
                f"the corrected prediction at {central:.1%}, above the band's capped top, so the "
                f"bill uses the top, {point:.1%} {band}")
    return (f"{head}; its held-out runs in this regime took a median {how} {runs}, so the bill "
            f"uses {point:.1%} {band}")


def _catalogue_name(accelerator) -> str:
    """``accelerator`` as the catalogue spells it (``load_accelerator``: a ValueError naming the
    argument and the close names for one it does not hold, rather than a band built from no
    generation, no ceiling and no published run)."""
    if not isinstance(accelerator, str):
        raise ValueError(f"accelerator={accelerator!r} must be a catalogue name (a string; "
                         "`llmcost list accelerators`)")
    return load_accelerator(accelerator).name


def _check_band_inputs(mfu, n_gpus, dtype) -> None:
    """``mfu_band``'s entry checks, each a ValueError naming the argument."""
    if isinstance(mfu, bool) or not (isinstance(mfu, numbers.Real) and 0 < mfu <= 1):
        raise ValueError(f"mfu={mfu!r} must be in (0, 1]")
    if isinstance(n_gpus, bool) or not (isinstance(n_gpus, numbers.Integral) and n_gpus >= 1):
        raise ValueError(f"n_gpus={n_gpus!r} must be an integer >= 1")
    if not isinstance(dtype, str):
        raise ValueError(f"dtype={dtype!r} must be a string such as 'bf16' or 'fp8'")


def _evidence_warnings(band: dict, label: str, rows: pd.DataFrame, n_gpus: int,
                       capped_above: float | None = None,
                       floored_below: float | None = None) -> list:
    """What the regime's evidence lacks: fewer than ``MIN_CONFORMAL_ROWS`` held-out runs (the
    stated default band), none, or a GPU count more than 4× away from its published runs'.
    ``capped_above``: the band's capped top over the prediction − 1, ``floored_below`` its
    lowered low end over it − 1 (``mfu_spread_words``)."""
    c, w = band["center"], band["half_width"]
    out = []
    if not band["conformal"]:
        if band["n"]:
            out.append(f"only {band['n']} held-out {'run' if band['n'] == 1 else 'runs'} in "
                       f"the regime {label} "
                       f"({error_range_words(rows)}), too few to "
                       "measure the model's error on runs like this one (that takes "
                       f"{MIN_CONFORMAL_ROWS} or more): the band is a stated default, "
                       f"{step_error_words(c, w, band['n'])}, i.e. "
                       f"{mfu_spread_words(c, w, capped_above, floored_below)}.")
        else:
            return [f"no held-out run is published in the regime {label}: the band is "
                    f"the stated default, {step_error_words(c, w)}, i.e. "
                    f"{mfu_spread_words(c, w, capped_above, floored_below)}."]
    # however few its runs, a scale far from all of them is said (a second trial: 131,072
    # GPUs against the 8-16k of its regime's runs went unsaid in a thin regime)
    if len(rows) and not (rows["n_gpus"].min() / 4 <= n_gpus <= rows["n_gpus"].max() * 4):
        lo, hi = int(rows["n_gpus"].min()), int(rows["n_gpus"].max())
        span = f"{lo:,}" if lo == hi else f"{lo:,}–{hi:,}"
        out.append(f"{fmt_gpus(n_gpus)} is more than 4× away from the {span} GPUs of the "
                   "regime's published runs.")
    return out


def distinct_percents(a: float, b: float) -> tuple[str, str]:
    """``a`` and ``b`` as percentages with one decimal, or more (up to three) where one decimal
    prints them alike, so that "47.03% exceeds 47.0%" does not read "47.0% exceeds 47.0%"."""
    for d in (1, 2, 3):
        x, y = f"{a:.{d}%}", f"{b:.{d}%}"
        if x != y:
            break
    return x, y


def _optimism_warning(mfu: float, mfu16: float, best, source: str, rule: str,
                      central: tuple | None = None) -> list:
    """A prediction above the best published MFU of a comparable run (``best_published_mfu``,
    ``rule`` its comparison rule in words; ``mfu16`` the prediction on the BF16 basis): read as
    optimistic. Where the band's central estimate (``central``: ``central_mfu``'s ``(point,
    central, capped)``, the point what a `mfu: predict` bill uses, on the prediction's basis)
    is not above that best (compared on the BF16 basis, to a part in 10⁹: a point capped at the
    best is that best), it is said too, as the corrected prediction or, where ``central_mfu``
    clipped it, as kept inside its band: a trial read the caveat on a 48.8% prediction as the bill's, whose MFU was 45.0%."""
    if best is None or not mfu16 > best:
        return []
    point, _, capped = central if central is not None else (math.nan, math.nan, False)
    how = "the corrected prediction kept inside its band" if capped else \
        "the prediction corrected by its regime's held-out error"
    tail = (f"; the band's central estimate, {point:.1%} ({how}, what a `mfu: predict` bill "
            "uses), is not above it" if point * mfu16 / mfu <= best * (1 + 1e-9) else "")
    mfu_txt, best_txt = distinct_percents(mfu, best)
    basis_txt = "" if mfu16 == mfu else f" ({mfu16:.1%} on the BF16 basis of published MFUs)"
    if mfu16 != mfu:
        mfu_txt, best_txt = f"{mfu:.1%}", \
            f"{best:.1%} on the BF16 basis ({best * mfu / mfu16:.1%} of the FP8 dense peak)"
    return [f"the predicted MFU {mfu_txt}{basis_txt} exceeds the best published MFU "
            f"of a comparable run ({rule}), {best_txt} ({source}): read it as optimistic"
            f"{tail}."]

def regime_table(validation: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per regime with held-out rows: ``n`` (held-out), ``n_calibration``, ``mean_abs_error``,
    ``max_abs_error``, ``mean_signed_error`` (held-out, reported basis), ``center`` and
    ``half_width`` of its band from all its held-out rows, ``conformal`` (n >=
    ``MIN_CONFORMAL_ROWS``), and the leave-one-out ``coverage``: the share of its held-out
    rows whose published MFU (every FLOP basis) lies in the band built without them, and
    ``loo_conformal`` (whether those bands were conformal, n − 1 >= ``MIN_CONFORMAL_ROWS``).
    Without ``validation`` (the package's own table) it is computed once per code and data
    (``core.diskcache.disk_cached``)."""
    if validation is None:
        return _regime_table_of_validation()
    return _regime_table(validation)


@disk_cached
def _regime_table_of_validation() -> pd.DataFrame:
    return _regime_table(validation_table())


def _regime_table(v: pd.DataFrame) -> pd.DataFrame:
    out = []
    for label, g in v.groupby("regime", sort=True):
        held = g[g["split"] == "held-out"]
        if held.empty:
            continue
        full = band_from_rows(held)
        bases = _bases(held)
        hits = _loo_covered(bases["e"].to_numpy(), bases["e_causal"].to_numpy())
        e = held["error"]
        out.append({"regime": label, **{k: g[k].iloc[0] for k in REGIME_PARTS},
                    "n": len(held), "n_calibration": int((g["split"] == "calibration").sum()),
                    "mean_abs_error": float(e.abs().mean()), "max_abs_error": float(e.abs().max()),
                    "mean_signed_error": float(e.mean()), "center": full["center"],
                    "half_width": full["half_width"], "conformal": full["conformal"],
                    "coverage": float(np.mean(hits)),
                    "loo_conformal": len(held) - 1 >= MIN_CONFORMAL_ROWS})
    return pd.DataFrame(out).set_index("regime")


def loo_rows(validation: pd.DataFrame, regime: str) -> pd.DataFrame:
    """The held-out rows of one regime (``regime``: its ``regime_label``) with the band each
    gets when it is left out (``regime_table``'s leave-one-out): ``accelerator``, ``error``
    (reported basis), ``error_causal`` (causal-mask basis where the count is not stated, else
    ``error``), ``center`` c and ``half_width`` w of the band of the regime's other held-out
    rows (``band_from_rows``; the stated default, c = 0 and w = ``DEFAULT_BAND_FRACTION``, when
    it is the only row) and ``covered``: both errors in [c − w, c + w]. Indexed by ``run_id``.

    Raises
    ------
    ValueError
        ``regime`` has no held-out row in ``validation``.
    """
    held = validation[(validation["split"] == "held-out") & (validation["regime"] == regime)]
    if held.empty:
        raise ValueError(f"regime={regime!r} has no held-out row in the validation table")
    b = _bases(held)
    e, ec = b["e"].to_numpy(), b["e_causal"].to_numpy()
    rows = [{"run_id": held["run_id"].iloc[i], "accelerator": held["accelerator"].iloc[i],
             "error": float(e[i]), "error_causal": float(ec[i]), "center": c, "half_width": w,
             "covered": covered} for i, (c, w, covered) in enumerate(_loo_bands(e, ec))]
    return pd.DataFrame(rows).set_index("run_id")


def best_published_any_size(accelerator: str, dtype: str = "bf16", seq_len: int | None = None,
                            is_moe: bool | None = None):
    """``published_any_size`` as ``(mfu on the BF16 basis, source)`` or ``(None, reason)``."""
    b = published_any_size(accelerator, dtype, seq_len, is_moe)
    return b.mfu_bf16, b.source


def _best_of_scope(gen: str | None, fp8: bool, seq_len, is_moe, exclude_runs=(),
                   fp8_bound: bool = False, accelerator: str | None = None,
                   n_params: float | None = None) -> tuple:
    """The best reported MFU (BF16 basis) of the validation table's rows and ``MFU_CLAIMS`` of
    GPU generation ``gen`` (None: every generation, each run named with its accelerator), class
    ``is_moe`` (None: both), BF16 rows only unless ``fp8``, with sequences within
    ``SEQ_FACTOR`` of ``seq_len`` (None: any), total parameters within ``SIZE_FACTOR`` of
    ``n_params`` (None: any size; a claim counts when ``n_params`` lies in its range),
    ``exclude_runs`` left out: ``(mfu, source)`` or ``(None, None)``. With ``fp8_bound`` (an
    FP8 step) the BF16 rows and the claims × r, the FP8 rows as published (rule (4) of
    ``comparable_published_mfu``: ``_bounding_row``, ``fp8_bound_of_bf16``). With
    ``accelerator``, an MoE's rows of its scale-up class only (``same_scaleup_class``, rule 6)
    and, within a generation, Blackwell Ultra apart (``same_chip_class``, rule 7)."""
    lo_s, hi_s = _seq_range(seq_len)
    lo_n, hi_n = (0.0, math.inf) if n_params is None else (n_params / SIZE_FACTOR,
                                                            n_params * SIZE_FACTOR)
    same = _published_in_scope(gen, fp8, (lo_s, hi_s), is_moe, exclude_runs, (lo_n, hi_n))
    if accelerator is not None:  # rule 6; within a generation, rule 7 too
        same = same[comparable_hardware(same["accelerator"], accelerator, is_moe)
                    if gen is not None else
                    same_scaleup_class(same["accelerator"], accelerator, is_moe)]
    best, source = None, None
    if len(same):
        best, source, _ = _bounding_row(same, fp8_bound, n_params, gen is None)
    for g, lo, hi, moe, m, src, s_claim in MFU_CLAIMS:
        if (gen is None or g == gen) and (is_moe is None or moe == bool(is_moe)) \
                and lo_s <= s_claim <= hi_s and (n_params is None or lo <= n_params <= hi):
            if fp8_bound:   # a claim is BF16 evidence, of the sizes it covers
                m, src = fp8_bound_of_bf16(m, src, n_params or math.sqrt(lo * hi))
            if best is None or m > best:
                best, source = m, src
    return best, source


def comparable_any_hardware(accelerator: str, n_params: float, *, is_moe: bool | None,
                            dtype: str = "bf16", seq_len: int | None = None,
                            exclude_runs=()) -> PublishedBest:
    """The best MFU (BF16 basis) published for a run comparable to this one **on any
    hardware**: ``comparable_published_mfu``'s rules (2)–(6) (the class, total parameters
    within ``SIZE_FACTOR``, the dtype's runs, sequences within ``SEQ_FACTOR``, an MoE's
    scale-up class) without rule (1), the GPU generation. The last fallback of ``band_cap``
    (``cap_reference``), for an accelerator on whose generation nothing of the class is
    published (TPU v5p, Gaudi 3, MI300X; A100 for an MoE): its band's top then stops at the
    best that any comparable run has measured anywhere, rather than at the matmul ceiling
    alone, so a prediction on hardware nobody has published on can be billed no higher than
    what a comparable run measured on hardware somebody has. MFU is a fraction of each
    accelerator's own dense peak, so the figures compare across hardware as fractions; the
    bound is loose (an MFU measured on one accelerator is no measurement of another) and the
    rule says so. A BF16 step compares with BF16 runs only, an FP8 step with FP8 runs and BF16
    runs × r (``fp8_bound_of_bf16``), as on its own generation.
    ``source``: the run and its accelerator, or why there is none; ``rule``: the scope in
    words, naming the generation that has none.

    Raises
    ------
    ValueError
        If ``n_params`` is not a positive number.
    """
    if isinstance(n_params, bool) or not (isinstance(n_params, numbers.Real) and n_params > 0):
        raise ValueError(f"n_params={n_params!r} must be a positive number of parameters")
    fp8 = str(dtype).lower().startswith("fp8")
    best, source = _best_of_scope(None, fp8, seq_len, is_moe, exclude_runs, fp8_bound=fp8,
                                  accelerator=accelerator, n_params=float(n_params))
    gen = gpu_generation(accelerator)
    cls = "" if is_moe is None else ("MoE " if is_moe else "dense ")
    seq = "" if seq_len is None else f", sequences of {seq_range_words(seq_len)} tokens"
    domain = f", on {scaleup_words(accelerator)}" if is_moe and scaleup_class(accelerator) \
        else ""
    prec = "FP8 runs and BF16 runs × r (on the BF16 dense peak)" if fp8 else "BF16 runs"
    on_gen = _best_of_scope(gen, True, None, is_moe, accelerator=accelerator)[0] is not None
    fp8_there = not fp8 and _best_of_scope(gen, True, seq_len, is_moe,
                                           accelerator=accelerator)[0] is not None
    where = generation_scope_words(accelerator)   # rule 7 said: Blackwell Ultra apart
    none = (f"no {cls}run is published on {where}" if seq_len is None or not on_gen else
            f"no {cls}BF16 run is published on {where}, only FP8 ones" if fp8_there else
            f"no {cls}run on {where} is at a comparable sequence length")
    rule = (f"{cls}{prec} {ON_ANY_HARDWARE} ({none}){domain}, "
            f"total parameters within {SIZE_FACTOR:g}×{seq}")
    if best is None:
        source = (f"no published {cls}run of a model within {SIZE_FACTOR:g}× this size on any "
                  "hardware" + ("" if seq_len is None else " at a comparable sequence length"))
    return PublishedBest(best, _check_dtype_basis(accelerator, dtype), "fp8" if fp8 else "bf16",
                         source, rule)


def cap_reference(accelerator: str, n_params: float | None, dtype: str = "bf16",
                  seq_len: int | None = None, is_moe: bool | None = None) -> PublishedBest:
    """What a band is capped at when no run within ``SIZE_FACTOR`` of the model is published on
    its GPU generation (``band_cap``'s fallback), in order: the best of the class at any size
    on the generation (``published_any_size``); where the generation has none of the class,
    the best comparable run on any hardware (``comparable_any_hardware``, when ``n_params`` is
    given); else ``published_any_size``'s empty answer (the matmul ceiling then caps alone)."""
    anyb = published_any_size(accelerator, dtype, seq_len, is_moe)
    if anyb.mfu_bf16 is not None or n_params is None:
        return anyb
    elsewhere = comparable_any_hardware(accelerator, n_params, is_moe=is_moe, dtype=dtype,
                                        seq_len=seq_len)
    return elsewhere if elsewhere.mfu_bf16 is not None else anyb


def published_any_size(accelerator: str, dtype: str = "bf16", seq_len: int | None = None,
                       is_moe: bool | None = None, exclude_runs=()) -> PublishedBest:
    """The best MFU (BF16 basis) published on the accelerator's GPU generation for a model of
    **any size** but of the same class (``is_moe``: MoE runs for an MoE, dense for a dense
    model; None: both) and, with ``seq_len``, at sequences within ``SEQ_FACTOR`` of it: the
    fallback of ``band_cap`` and of ``claims.best_reference`` where no run within
    ``SIZE_FACTOR`` of the model is published (``comparable_published_mfu`` rules (1), (2),
    (4), (5) without the size). Sources: the validation table's ``reported_mfu`` and
    ``MFU_CLAIMS``.

    The dtype rule is ``comparable_published_mfu``'s: an FP8 step against FP8 runs and BF16
    runs × r (``fp8_bound_of_bf16``), a BF16 step against BF16 runs
    only (an FP8 run's MFU on the BF16 dense peak counts GEMMs that ran at up to twice it:
    Megatron-Bridge 25.11's Llama 3 8B FP8 on 8 H100 is 84.6% of the BF16 dense peak, 42.3% of
    the FP8 one). Where the generation has **no BF16 run of the class** at that context
    (Blackwell Ultra dense: every published dense run is FP8), a BF16 step is
    bounded by the class's FP8 runs on the BF16 basis: the same step with its GEMMs in FP8 is
    no slower than in BF16 (the published FP8 ÷ BF16 MFU ratios of one plan,
    ``fp8_bf16_pairs``, run 0.997-1.60: MosaicML llm-foundry's MPT 3B at 32k tokens the one
    below 1, by 0.3%), so an FP8 run's MFU on the BF16 peak bounds a BF16 step's from above;
    a loose bound, said so in ``rule``. A step the bound leaves unbounded meets the matmul
    ceiling (``band_cap``). Where a dense BF16 run is published, a dense FP8 run of the class
    counts too, as the least its plan reaches in BF16 (``_fp8_run_in_bf16``: its MFU ÷ r, r the
    largest published FP8 ÷ BF16 speed-up of one plan of that run's size): a review's 8B on B200
    was capped at the 46.0% of NVIDIA's DGX Cloud Llama 3.1 405B BF16 run on 128 GB200, where
    Megatron-Bridge's Llama 3 8B FP8 on 8 B200 (78.8% of the BF16 peak) implies at least
    78.8% ÷ 1.335 = 59.0% in BF16. ``rule``: the scope in words, for the
    sentences that compare with it; ``source``: the run, or why there is none;
    ``exclude_runs``: validation ``run_id`` s left out (``claims.best_reference``'s, a claim's
    own runs)."""
    gen = gpu_generation(accelerator)
    fp8 = str(dtype).lower().startswith("fp8")
    best, source = _best_of_scope(gen, fp8, seq_len, is_moe, exclude_runs, fp8_bound=fp8,
                                  accelerator=accelerator)
    implied = None
    if not fp8 and best is not None and is_moe is False:
        implied = _fp8_run_in_bf16(gen, seq_len, exclude_runs, accelerator)
        if implied is not None and implied[0] > best:
            best, source = implied
        else:
            implied = None
    other = False
    if best is None and not fp8:
        best, source = _best_of_scope(gen, True, seq_len, is_moe, exclude_runs,
                                      accelerator=accelerator)
        other = best is not None
    cls = "" if is_moe is None else ("MoE " if is_moe else "dense ")
    seq = "" if seq_len is None else f", sequences of {seq_range_words(seq_len)} tokens"
    prec = ("FP8 runs and BF16 runs × r" if fp8 else "FP8 runs" if other else
            "BF16 runs, and FP8 runs ÷ r" if implied else "BF16 runs")
    why = (" (on the BF16 dense peak)" if fp8 else
           f" (on the BF16 dense peak: no BF16 {cls}run is published there; the same step in "
           "FP8 is no slower than in BF16, so they bound a BF16 step from above)" if other else "")
    domain = f" on {scaleup_words(accelerator)}" if is_moe and scaleup_class(accelerator) \
        else ""
    where = generation_scope_words(accelerator)
    rule = f"{cls}{prec} on {where}{domain} of any size{seq}{why}"
    if best is None:
        source = f"no published {cls}{where} run" + (
            "" if seq_len is None else " at a comparable sequence length")
    return PublishedBest(best, _check_dtype_basis(accelerator, dtype), "fp8" if fp8 else "bf16",
                         source, rule)


def _fp8_run_in_bf16(gen: str, seq_len, exclude_runs, accelerator: str) -> tuple | None:
    """The dense FP8 runs of the generation at any size, each as the least its plan reaches in
    BF16: its MFU on the BF16 peak u ÷ r, r = ``fp8_speedup_bound`` of its own model's size (an
    FP8 step runs at most r times the same plan in BF16, the published pairs of that size); the
    largest, ``(u ÷ r, words)``, or None without one. Rules 5-7 (context, hardware) as
    ``_best_of_scope``'s."""
    rows = _published_in_scope(gen, True, _seq_range(seq_len), False, exclude_runs)
    rows = rows[(rows["precision"] == "FP8")
                & comparable_hardware(rows["accelerator"], accelerator, False)]
    if not len(rows):
        return None
    r = rows["params"].map(lambda n: fp8_speedup_bound(float(n))[0])
    row = rows.loc[(rows["reported_mfu"] / r).idxmax()]
    u, (r1, pair) = float(row["reported_mfu"]), fp8_speedup_bound(float(row["params"]))
    return u / r1, (f"{row['model']} (an FP8 run, {u:.1%} of the BF16 peak) ÷ {r1:.3g}, the "
                    "least its plan reaches in BF16 (the largest FP8 ÷ BF16 speed-up of one "
                    f"plan among the published pairs of its size, {pair})")


def _ceiling(accelerator: str) -> float:
    """The accelerator's measured matmul ceiling (``matmul_fraction``, data/efficiency.csv; 1 for
    an accelerator without a row)."""
    try:
        return float(load_efficiency(accelerator).matmul_fraction)
    except ValueError:
        return 1.0


def _ceiling_words(accelerator: str, ceiling: float) -> str:
    """``_ceiling`` named for the band's cap sentence: "the measured matmul ceiling 60%
    (data/efficiency.csv)" where the table has the accelerator's own row, "the generic matmul
    ceiling 80% (data/efficiency.csv's 'default' row: none measured on TPU v5p)" where it falls
    back to the default row (the same report warns that its predictions use generic figures)."""
    try:
        own = load_efficiency(accelerator).accelerator != "default"
    except ValueError:
        own = True
    return (f"the measured matmul ceiling {ceiling:.0%} (data/efficiency.csv)" if own else
            f"the generic matmul ceiling {ceiling:.0%} (data/efficiency.csv's 'default' row: "
            f"none measured on {accelerator})")


class BandCap(NamedTuple):
    """``band_cap_detail``'s answer: the band's upper end ``high``, the ``warnings`` that say it,
    ``reason`` (the capped top's parenthesis in the warning, "" when nothing capped it:
    ``MfuBand.cap_reason``) and ``source`` (what set it in a few words: "the matmul ceiling",
    "the best comparable published run", ... ``MfuBand.cap_source``)."""

    high: float
    warnings: list
    reason: str = ""
    source: str = ""


def band_cap(mfu: float, high: float, accelerator: str, n_params=None, best=None,
             basis: float = 1.0, low: float | None = None,
             seq_len: int | None = None, is_moe: bool | None = None) -> tuple:
    """``band_cap_detail``'s ``(high, warnings)``: the upper end of a predicted MFU's band,
    capped where no measurement goes, and the sentences that say so (the rule, its formula and
    sources: ``band_cap_detail``)."""
    got = band_cap_detail(mfu, high, accelerator, n_params, best, basis=basis, low=low,
                          seq_len=seq_len, is_moe=is_moe)
    return got.high, got.warnings


def band_cap_detail(mfu: float, high: float, accelerator: str, n_params=None, best=None,
                    basis: float = 1.0, low: float | None = None,
                    seq_len: int | None = None, is_moe: bool | None = None,
                    best_scaled_from: str | None = None) -> BandCap:
    """The upper end of a predicted MFU's band, capped where no measurement goes, and the
    sentences that say so: ``(high, warnings)``.

    cap = min(matmul ceiling, max(best published ÷ basis, low)): the best MFU published on the
    GPU generation (``best`` for the model's size when given, else at any size of its class
    ``is_moe``, ``published_any_size``, whose scope the sentences name: dense with dense, MoE
    with MoE, the context of ``seq_len``; where the generation has none of the class, the best
    comparable run on any hardware, ``comparable_any_hardware``, said as such:
    ``cap_reference``; on the BF16 basis, so divided by ``basis`` =
    peak(dtype) ÷ peak(BF16) for an FP8 step, whose BF16 comparable runs count × r,
    ``fp8_bound_of_bf16``), never above the accelerator's measured matmul
    ceiling (``matmul_fraction``, data/efficiency.csv). A prediction above the best comparable
    published run is capped at that run, not at itself: a bill's MFU (``central_mfu``, kept
    inside [low, high]) then never exceeds what a comparable run has measured, and the
    sentence says the prediction is above it. Only when the band's own low end ``low`` =
    p / (1 + c + w) lies above the best run too (the model's whole range beyond every
    comparable run) is the cap that low end, said so (``low`` None: 0, no such floor), except
    where the cap is a run on other hardware: the model has no published run of the class on
    that generation to have tested its low end against, so the bill stays at or below what a
    comparable run measured anywhere (a trial: Mixtral 8x7B on A100, predicted 61.0%, its low
    end 46.9%, capped at the 34.0% of Qwen3 MoE 30B-A3B on 8 H100). A
    prediction above the best published figure of its generation is flagged whatever the
    model's size (a 1B model on A100 as a 70B one), within its class. ``best_scaled_from``:
    where ``best`` is a BF16 run's MFU × the FP8 speed-up bound (``fp8_bound_of_bf16``), its
    source, so the sentences say so instead of calling it a measured figure (a trial read
    "no comparable run has measured more" of a bound no run measured)."""
    out = []
    fp8 = basis != 1.0  # an FP8 step: its MFU is on the FP8 dense peak, published ones on BF16's
    anyb = cap_reference(accelerator, n_params, "fp8" if fp8 else "bf16", seq_len, is_moe)
    any_best, any_src = anyb.mfu_bf16, anyb.source
    elsewhere = best is None and any_best is not None and ON_ANY_HARDWARE in anyb.rule
    ref, ref_src = (best, _cap_rule_words(seq_len, bool(best_scaled_from))) \
        if best is not None else (any_best, f"MFU among {anyb.rule} ({any_src})")
    def on(x: float, f: str) -> str:  # x on the BF16 basis, said on the step's (FP8: both)
        return (f"{x / basis:.1%} of the FP8 dense peak ({x:.1%} of the BF16 one"
                f"{above_bf16_peak_words(x, basis)})") if fp8 else format(x, f)
    if best is None and any_best is not None and mfu * basis > any_best:
        out.append(f"the predicted MFU {on(mfu * basis, '.1%')} exceeds the best MFU published "
                   f"among {anyb.rule}, {on(any_best, '.1%')} ({any_src}): read it as "
                   "optimistic.")
    ceiling = _ceiling(accelerator)
    floor = 0.0 if low is None else float(low)
    ref_d = None if ref is None else ref / basis
    # a run on other hardware caps the band outright: the model's own low end, unchecked on
    # this generation, does not lift it
    cap = ceiling if ref_d is None else min(ceiling, ref_d if elsewhere else max(ref_d, floor))
    if ref_d is None and best is None:  # nothing measured to hold the top against: said (a
        # trial's MoE at 32k tokens kept a band to 70% where its 4k twin was capped at 34%)
        out.append(f"the predicted MFU band's upper end, {min(high, cap):.1%}"
                   f"{' of the FP8 dense peak' * fp8}, is untested: "
                   f"{anyb.source[:1].lower()}{anyb.source[1:]} ({anyb.rule}), so it is the "
                   "step-time model's error band alone, held only to the matmul ceiling "
                   f"({ceiling:.1%})")
    if high <= cap:
        return BandCap(high, out)
    above = ref_d is not None and mfu > ref_d  # the prediction beyond every comparable run
    low_end = ref_d is not None and cap == floor and floor > ref_d
    kind = "comparable" if best is not None else \
        "any_hardware" if ON_ANY_HARDWARE in anyb.rule else "any_size"
    why, source = _cap_why(cap, ref, basis, ref_src, low_end, kind, on) if ref_d is not None \
        and (low_end or cap == ref_d) else (_ceiling_words(accelerator, ceiling),
                                            "the matmul ceiling")
    tail = _cap_tail(cap == ceiling, low_end, best is not None, bool(best_scaled_from),
                     elsewhere, accelerator)
    if above and cap < mfu:
        pred_txt, _ = distinct_percents(mfu, cap)
        tail += (f"; the prediction, {pred_txt}{' of the FP8 dense peak' * fp8}, is above "
                 + ("every comparable published run" if best is not None else
                    "every comparable run published on any hardware" if elsewhere else
                    "every published run of that scope") + ", so a bill uses no more than the cap")
    scaled = (f" The FP8 bound: {best_scaled_from}." if best_scaled_from and best is not None
              and ref_d is not None and cap != ceiling else "")
    out.append(f"the band's upper end is capped at {cap:.1%}{' of the FP8 dense peak' * fp8} "
               f"({why}): {tail} (uncapped {high:.1%}).{scaled}")
    return BandCap(cap, out, why, source)


def _cap_rule_words(seq_len, scaled: bool) -> str:
    """What ``band_cap_detail``'s comparable reference is, in words: the best comparable run's
    MFU, or (``scaled``) the FP8 bound of a comparable BF16 run (``FP8_CAP_WORDS``), with the
    comparison rule."""
    seq = "" if seq_len is None else f", sequences of {seq_range_words(seq_len)} tokens"
    scope = (f"(the same GPU generation and class, dense or MoE, total parameters within "
             f"{SIZE_FACTOR:g}×{seq})")
    return (f"{FP8_CAP_WORDS} {scope}, not a measured figure" if scaled else
            f"MFU of a comparable run {scope}")


def _cap_tail(at_ceiling: bool, low_end: bool, comparable: bool, scaled: bool,
              elsewhere: bool, accelerator: str) -> str:
    """Why nothing goes above ``band_cap_detail``'s cap, in words: the matmul ceiling; the
    model's own low end above the comparable runs; a comparable run (``scaled``: a BF16 run's
    FP8 bound); a comparable run on other hardware (``elsewhere``); a run of the class at any
    size."""
    if at_ceiling:
        return "no step runs faster than its matrix multiplies on this GPU"
    if low_end:
        return (("the comparable runs measured less" if comparable else
                 "the published runs of that scope measured less")
                + ", but the top is not set below the model's own low end, the uncapped band's")
    if comparable:
        return "no comparable run has measured more" + (
            ", nor is a BF16 one expected to gain more in FP8" if scaled else "")
    if elsewhere:
        return (f"no comparable run on any hardware has measured more, and none is published "
                f"on {gpu_generation(accelerator)}")
    # a run within the size factor of another precision may set the cap (an FP8 run ÷ r): not
    # "none within 4×", which a trial read beside an 8B run capping a 3B model's band
    return ("no published run of that scope has measured more, and none within "
            f"{SIZE_FACTOR:g}× this model's size is comparable to it (of its GPU generation, "
            "class and precision)")


#: How a cap that is a BF16 run's MFU × the FP8 speed-up bound is named (``band_cap_detail``)
FP8_CAP_WORDS = "FP8 bound of a comparable BF16 run"
#: What ``MfuBand.cap_source`` adds where the model's whole band lies above every comparable
#: run: true of a bill priced at the prediction (its MFU inside that band), left out otherwise.
BILL_TOO = ", and so does the bill's MFU"
#: What a band's capped top was set by, by the kind of published run (``band_cap_detail``)
CAP_REFERENCES = {"comparable": "the best comparable published run",
                  "any_size": "the best published run of its class at any size",
                  "any_hardware": "the best comparable published run on any hardware"}


def _cap_why(cap: float, ref: float, basis: float, ref_src: str, low_end: bool, kind: str,
             on) -> tuple:
    """(the cap sentence's parenthesis, the short source) of ``band_cap_detail`` where a published
    run ``ref`` (BF16 basis; ``ref_src`` its rule and run) set the top, or the band's own low end
    ``cap`` above it (``low_end``); ``kind`` a key of ``CAP_REFERENCES``; ``on(x, fmt)`` says a
    BF16-basis figure on the step's basis (FP8: both)."""
    name = CAP_REFERENCES[kind]
    lead = "the highest" if ref_src.startswith(FP8_CAP_WORDS) else "the best published"
    if low_end:
        figure = f"{ref / basis:.1%} of the FP8 dense peak" if basis != 1.0 else f"{ref:.1%}"
        return (f"the uncapped band's low end, itself above {lead} {ref_src}, "
                f"{on(ref, '.1%')}", "the model's own low end: its uncapped band lies wholly "
                f"above {name}, {figure}{BILL_TOO}")
    if basis != 1.0:
        return (f"{lead} {ref_src}: {ref:.1%} of the BF16 dense peak, the basis "
                f"published MFUs are reported on{above_bf16_peak_words(ref, basis)}", name)
    return f"the best published {ref_src}, {ref:.1%}", name


def published_ceiling(accelerator: str, n_params: float, dtype: str = "bf16",
                      is_moe: bool | None = None, seq_len: int | None = None) -> tuple:
    """The best published MFU comparable to the run (``comparable_published_mfu``, BF16 basis)
    put on the step's own basis, the dense peak of ``dtype``: ceiling = best × peak(BF16) ÷
    peak(dtype). Returns ``(ceiling, sentence)``: the sentence names the run, both bases for
    FP8 and the rule; ``(None, reason)`` when nothing is published to compare with."""
    b = comparable_published_mfu(accelerator, n_params, is_moe=is_moe, dtype=dtype,
                                 seq_len=seq_len)
    if b.mfu_bf16 is None:
        return None, b.describe()
    return b.mfu, f"the best published comparable run, {b.describe()}"


def regime_error(band: MfuBand) -> tuple:
    """The step-time model's error on the published runs of a band's regime (``regime_table``:
    mean |e| over its held-out runs, e = predicted MFU ÷ published MFU − 1): ``(mean_abs_error,
    note)``, or ``(None, note)`` when the regime has no held-out published run, so that a page
    never shows another regime's error as this one's."""
    if not isinstance(band, MfuBand):
        raise ValueError(f"band={band!r} must be an MfuBand (accuracy.mfu_band)")
    t = regime_table()
    if band.regime not in t.index or int(t.loc[band.regime, "n"]) == 0:
        return None, f"no held-out published run in this regime ({band.regime})"
    r = t.loc[band.regime]
    return float(r["mean_abs_error"]), (f"mean |step-time error| (unsigned) on the "
                                        f"{int(r['n'])} held-out published "
                                        f"{'run' if int(r['n']) == 1 else 'runs'} of this "
                                        f"regime ({band.regime}); the band's centre is "
                                        f"{shift_words(band.center, band.n)}, "
                                        f"{band.center:+.1%}")


def like_scenario_error(accelerator: str, *, is_moe: bool, dtype: str, seq_len: int,
                        n_params: float) -> dict:
    """The step-time model's error on the held-out published runs like a scenario's: the rows
    of ``validation_table`` whose regime (``regime_of``) matches the scenario's in every part
    but the sharding, which a scenario need not fix (ZeRO-3 / FSDP and Megatron 3D pooled)::

        mean |e| = Σ |predicted MFU ÷ published MFU − 1| / n    over those n rows

    Returns ``{"label", "words", "n", "mean_abs_error", "max_abs_error"}``: ``label`` the
    regime with "any sharding" in place of the sharding, ``words`` the same for a reader, units
    written out ("Hopper GPUs, dense, BF16, sequences up to 32,768 tokens, 10B parameters or
    more, any sharding"); ``n`` 0 and both errors None when no held-out published run is like it (a page then
    says so, never another regime's error).

    Raises
    ------
    ValueError
        An accelerator not in the catalogue, a ``dtype`` other than bf16 / fp8, ``seq_len`` not
        a whole number >= 1, ``n_params`` not a finite number > 0, ``is_moe`` not a bool.
    """
    if not isinstance(accelerator, str):
        raise ValueError(f"accelerator={accelerator!r} must be a catalogue accelerator name "
                         "(llmcost.list_accelerators())")
    load_accelerator(accelerator)  # an unknown name: its ValueError, with the closest names
    if not isinstance(is_moe, (bool, np.bool_)):
        raise ValueError(f"is_moe={is_moe!r} must be True or False")
    if not isinstance(dtype, str) or dtype.lower() not in ("bf16", "fp8"):
        raise ValueError(f"dtype={dtype!r} must be 'bf16' or 'fp8'")
    if isinstance(seq_len, bool) or not isinstance(seq_len, (int, np.integer)) or seq_len < 1:
        raise ValueError(f"seq_len={seq_len!r} must be a whole number >= 1 (tokens)")
    if isinstance(n_params, bool) or not isinstance(n_params, (int, float, np.integer,
                                                                np.floating)) \
            or not np.isfinite(n_params) or n_params <= 0:
        raise ValueError(f"n_params={n_params!r} must be a finite number > 0")
    want = regime_of(accelerator, is_moe=bool(is_moe), dtype=dtype, seq_len=int(seq_len),
                     n_params=float(n_params))
    v = validation_table()
    held = v[v["split"] == "held-out"]
    keep = np.ones(len(held), dtype=bool)
    for part in REGIME_PARTS:
        if part != "sharding":
            keep &= (held[part] == want[part]).to_numpy()
    e = held.loc[keep, "error"].abs()
    label = regime_label({**want, "sharding": "any sharding"})
    long = want["context"] == "> 32k"
    words = (f"{want['gpu_generation']} GPUs, {want['moe']}, {want['precision']}, sequences "
             f"{'over' if long else 'up to'} {LONG_CONTEXT_TOKENS:,} tokens, "
             + (f"{LARGE_MODEL_PARAMS / 1e9:.0f}B parameters or more" if want["size"] == "≥ 10B"
                else f"under {LARGE_MODEL_PARAMS / 1e9:.0f}B parameters") + ", any sharding")
    if e.empty:
        return {"label": label, "words": words, "n": 0, "mean_abs_error": None,
                "max_abs_error": None}
    return {"label": label, "words": words, "n": int(len(e)), "mean_abs_error": float(e.mean()),
            "max_abs_error": float(e.max())}


def regime_bands() -> pd.DataFrame:
    """The band of every regime with held-out runs (``regime_table``'s ``n``, ``center``,
    ``half_width``, ``conformal``, ``coverage``), with ``validated`` = ``conformal`` and the
    GPU span ``gpus_min`` / ``gpus_max`` and ``error_min`` / ``error_max`` (every basis)."""
    v = validation_table()
    t = regime_table(v)
    held = v[v["split"] == "held-out"]
    g = held.groupby("regime")
    b = {label: band_from_rows(rows) for label, rows in g}
    t["gpus_min"] = g["n_gpus"].min().reindex(t.index).astype(int)
    t["gpus_max"] = g["n_gpus"].max().reindex(t.index).astype(int)
    t["error_min"] = [b[k]["error_min"] for k in t.index]
    t["error_max"] = [b[k]["error_max"] for k in t.index]
    t["validated"] = t["conformal"]
    return t


def band_for_step(b, plan, model, accelerator: str, exclude_run: str | None = None,
                  dtype: str = "bf16", seq_len: int | None = None) -> MfuBand:
    """``mfu_band`` of a ``StepBreakdown`` ``b`` of ``plan`` for ``model`` on ``accelerator``
    (``dtype``: the step's GEMM precision; ``seq_len``: the step's tokens per sequence, default
    ``model.seq_len``; ``exclude_run``: a validation run left out of the regime, for a
    leave-one-out check).

    Raises
    ------
    ValueError
        ``b`` not a step (no ``mfu``: ``step.step_time``'s ``StepBreakdown``), ``plan`` not a
        plan (no ``n_gpus``: ``parallel.make_plan``'s ``ParallelPlan``); as ``mfu_band``.
    """
    if not hasattr(b, "mfu"):
        raise ValueError(f"b={b!r} must be a StepBreakdown (step.step_time's result)")
    if not all(hasattr(plan, k) for k in ("n_gpus", "zero_stage", "cp", "ep")):
        raise ValueError(f"plan={plan!r} must be a ParallelPlan (parallel.make_plan's result)")
    model = as_model(model, needs="an MFU band")
    seq_len = int(seq_len) if seq_len is not None else int(model.seq_len)
    return mfu_band(float(b.mfu), accelerator, int(plan.n_gpus), zero_stage=plan.zero_stage,
                    stack=getattr(b, "stack", None) or None, is_moe=model.is_moe,
                    n_params=float(model.n_params), exclude_run=exclude_run, dtype=dtype,
                    seq_len=seq_len)


def add_bands(ranked, model, cluster, dtype: str = "bf16", stack=None):
    """A ``ranking.rank_plans`` ranking with each row's MFU band: ``mfu_low``, ``mfu_high`` and
    ``band_regime`` columns (``mfu_band``; the band is proportional to the MFU, so one band per
    sharding, ``sharding_of`` the row's ZeRO stage on ``stack``, the ranking's). Returns a new
    DataFrame (attrs kept).

    Raises
    ------
    ValueError
        If ``ranked`` lacks the ``mfu``, ``zero_stage``, ``cp`` or ``ep`` columns.
    """
    missing = {"mfu", "zero_stage", "cp", "ep"} - set(getattr(ranked, "columns", ()))
    if missing:
        raise ValueError(f"ranked lacks the columns {sorted(missing)} (a ranking.rank_plans table)")
    out = ranked.copy()
    out["mfu_low"] = np.nan
    out["mfu_high"] = np.nan
    out["band_regime"] = ""
    if out.empty:
        return out
    seq_len = ranked.attrs.get("seq_len") or model.seq_len
    # one ZeRO stage per sharding: 3 for FSDP, 0 for Megatron 3D (``sharding_of``)
    z3 = pd.Series([3 if sharding_of(z, stack) == "FSDP" else 0 for z in out["zero_stage"]],
                   index=out.index)
    centre, half = pd.Series(0.0, index=out.index), pd.Series(0.0, index=out.index)
    for z, idx in z3.groupby(z3).groups.items():
        unit = mfu_band(1.0, cluster.accelerator.name, int(cluster.n_gpus), zero_stage=int(z),
                        is_moe=model.is_moe, n_params=float(model.n_params), dtype=dtype,
                        seq_len=int(seq_len), capped=False)
        c, w = unit.center, unit.half_width
        m = out.loc[idx, "mfu"]
        centre.loc[idx], half.loc[idx] = c, w
        out.loc[idx, "mfu_low"] = m / (1 + c + w)
        out.loc[idx, "mfu_high"] = uncapped_high(m, c, w)
        out.loc[idx, "band_regime"] = unit.regime
    # each row's upper end capped as ``band_cap`` caps one prediction, and its low end as
    # ``mfu_band`` sets it under a cap (``_capped_low``)
    name, basis = cluster.accelerator.name, _check_dtype_basis(cluster.accelerator.name, dtype)
    low = out["mfu_low"].to_numpy(float)
    cap = band_cap_array(out["mfu"].to_numpy(float), name, float(model.n_params), basis,
                         is_moe=model.is_moe, low=low, seq_len=int(seq_len))
    out["mfu_high"] = high = np.minimum(out["mfu_high"].to_numpy(float), cap)
    ref = _reference_best(name, float(model.n_params), basis, model.is_moe, int(seq_len))
    out["mfu_low"] = _capped_low(low, high, None if ref is None else ref / basis,
                                 centre.to_numpy(), half.to_numpy())
    return out


def _reference_best(accelerator: str, n_params: float, basis: float = 1.0,
                   is_moe: bool | None = None, seq_len: int | None = None):
    """The published MFU (BF16 basis) a band is capped at: the best comparable run
    (``best_published_mfu``), else the best at any size on the GPU generation
    (``published_any_size``, the same class), else the best comparable run on any hardware
    (``cap_reference``); None when none exists."""
    best, _ = best_published_mfu(accelerator, n_params, "fp8" if basis != 1.0 else "bf16",
                                 is_moe=is_moe, seq_len=seq_len)
    return _or_any_size(best, accelerator, basis, seq_len, is_moe, n_params)


def _capped_elsewhere(accelerator: str, n_params: float, basis: float = 1.0,
                      is_moe: bool | None = None, seq_len: int | None = None) -> bool:
    """Whether a band's cap is a run on other hardware (``cap_reference``'s last fallback),
    which the model's low end does not lift (``band_cap``)."""
    dtype = "fp8" if basis != 1.0 else "bf16"
    if best_published_mfu(accelerator, n_params, dtype, is_moe=is_moe, seq_len=seq_len)[0] \
            is not None:
        return False
    ref = cap_reference(accelerator, n_params, dtype, seq_len, is_moe)
    return ref.mfu_bf16 is not None and ON_ANY_HARDWARE in ref.rule


def band_cap_array(mfu, accelerator: str, n_params: float, basis: float = 1.0,
                   is_moe: bool | None = None, low=None, seq_len: int | None = None):
    """``band_cap``'s cap for many predictions at once: min(ceiling, max(best published ÷ basis,
    low)), the best published of the class ``is_moe`` as ``mfu_band`` takes it; ``low`` each
    prediction's band low end (None, or a cap set on other hardware, ``_capped_elsewhere``: 0)."""
    best = _reference_best(accelerator, n_params, basis, is_moe, seq_len)
    mfu = np.asarray(mfu, dtype=float)
    floor = np.zeros_like(mfu) if low is None or _capped_elsewhere(
        accelerator, n_params, basis, is_moe, seq_len) else np.asarray(low, dtype=float)
    return np.minimum(_ceiling(accelerator), np.full_like(mfu, np.inf) if best is None else
                      np.maximum(best / basis, floor))


#: The columns that make two validation rows the same plan (all but the GEMM dtype).
PAIR_KEYS = ("set", "stack", "accelerator", "n_gpus", "params", "seq_len", "plan")


def fp8_bf16_pairs(validation: pd.DataFrame) -> pd.DataFrame:
    """Every published FP8 row with a BF16 row of the same plan (``PAIR_KEYS``: same source set,
    stack, accelerator, GPUs, model size, sequence length and parallel plan): the published
    whole-step speed ratio ``published`` = reported FP8 MFU ÷ reported BF16 MFU (both on the
    dense BF16 peak, so the ratio of tokens per second), the model's ``predicted`` ratio and
    ``error`` = predicted / published − 1. The goal: within 10 % per pair.

    Raises
    ------
    ValueError
        ``validation`` without the columns of ``validation_table``.
    """
    need = set(PAIR_KEYS) | {"dtype", "run_id", "split", "reported_mfu", "predicted_mfu"}
    missing = sorted(need - set(validation.columns))
    if missing:
        raise ValueError(f"validation lacks columns {missing} (use validation_table())")
    keys = list(PAIR_KEYS)
    f8 = validation[validation["dtype"] == "fp8"]
    b16 = validation[validation["dtype"] == "bf16"]
    j = f8.merge(b16, on=keys, suffixes=("_fp8", "_bf16"))
    out = j[["run_id_fp8", "run_id_bf16", "split_fp8", "split_bf16"]].copy()
    out["published"] = j["reported_mfu_fp8"] / j["reported_mfu_bf16"]
    out["predicted"] = j["predicted_mfu_fp8"] / j["predicted_mfu_bf16"]
    out["error"] = out["predicted"] / out["published"] - 1.0
    return out.reset_index(drop=True)


#: The floor of a regime's noise (``regime_noise``): 0.05 percentage point, below the one-decimal
#: figure printed and above the re-fitted MoE constants' rounding (a regime whose rows agree to
#: the decimal has a standard error of ~0).
REGIME_CHANGE_TOLERANCE = 5e-4

#: The kernel mechanisms of ``StepOptions`` judged one by one, as shipped together and all
#: together (``mechanism_comparison``): name -> (gemm_shape, fp8_as_run, attention_curve). The
#: attention curve on is its "flash" form (the kernel's curve on the FlashAttention stacks, the
#: flat fraction on the Transformer Engine stacks and on a stack whose kernel is its own:
#: ``StepOptions.attention_curve``); the curve on every stack, cuDNN's included
#: (``attention_curve=True``), is judged by ``full_curve_comparison``.
MECHANISMS = {"gemm_shape": (True, False, False), "fp8_as_run": (False, True, False),
              "attention_curve": (False, False, "flash"),
              "gemm_shape + fp8_as_run": (True, True, False),
              "gemm_shape + attention_curve": (True, False, "flash"),
              "all three": (True, True, "flash")}
_MECHANISM_FLAGS = ("gemm_shape", "fp8_as_run", "attention_curve")


def shipped_value(options, name: str | None = None):
    """A mechanism's setting as ``validation_table`` takes it: ``getattr(options, name)`` (or
    ``options`` itself without ``name``) as a bool, or as the string it is (``"flash"``)."""
    v = options if name is None else getattr(options, name)
    return v if isinstance(v, str) else bool(v)


def mechanism_parts(name: str) -> list:
    """The mechanisms a setting of ``MECHANISMS`` turns on ("all three": each of them), or the
    parts of a name "a + b" not in it."""
    if name in MECHANISMS:
        return [k for k, v in zip(_MECHANISM_FLAGS, MECHANISMS[name]) if v]
    return name.split(" + ")


def shipped_mechanisms() -> tuple:
    """``StepOptions()``'s settings of the ``MECHANISMS`` flags, in their order (the key of the
    shipped combination in ``MECHANISMS``)."""
    shipped = StepOptions()
    return tuple(shipped_value(shipped, k) for k in _MECHANISM_FLAGS)

#: Mechanisms kept on by default although ``mechanism_comparison``'s rule now fails for them:
#: name -> (the held-out regimes it makes worse beyond their noise, why it stays on). The rule
#: is still printed as failing (``benchmarks/validate_mfu.py``). A test holds each entry to the
#: verdict: it fails when the regimes made worse are not exactly these, and when the rule passes
#: again (then the entry goes: this list only shrinks).
KEPT_ON_AGAINST_THE_RULE = {
    "fp8_as_run": (
        ("Hopper · Megatron 3D · dense · FP8 · ≤ 32k · ≥ 10B",),
        "it prices the FP8 runs as they were configured: the LM head and the router in BF16 "
        "(DeepSeek-V3 Technical Report §3.3.1; Megatron-Core's output layer is not a Transformer "
        "Engine module) and the cast passes Transformer Engine runs. It passed the rule when it "
        "was turned on; Megatron-Bridge's 26.04 and 26.06 rows, added later with their split "
        "fixed before their errors were computed, make one held-out regime worse "
        "beyond its noise. Off, every FP8 GEMM, LM head included, runs at the FP8 peak with no "
        "cast; no calibration regime is worse with it "
        "(mechanism_comparison_calibration)"),
}


def kept_on_words(name: str, verdict: pd.DataFrame | None = None) -> str:
    """Why a mechanism (or a combination, "a + b") of ``MECHANISMS`` is on by default although
    ``mechanism_comparison``'s rule fails for it: "kept on against the rule: " and each of its
    parts' reasons in ``KEPT_ON_AGAINST_THE_RULE``; "" when no part is kept on so. Given
    ``verdict`` (``mechanism_comparison()[1]``), each part's reason ends with what turning it off
    does, computed: the held-out mean |error| and the published FP8:BF16 pairs' largest error
    with the other mechanisms on by default, without the part -> with it (the settings of
    ``MECHANISMS`` whose flags are those; said only where both are priced)."""
    why = []
    for p in mechanism_parts(name):
        if p not in KEPT_ON_AGAINST_THE_RULE:
            continue
        words = f"{p}: {KEPT_ON_AGAINST_THE_RULE[p][1]}"
        pair = None if verdict is None else _without_and_with(p, verdict)
        if pair is not None:
            off, on = pair
            words += (f"; with the other default mechanisms on, without it -> with it, the "
                      f"held-out mean |error| {off['all_mean']:.1%} -> {on['all_mean']:.1%} "
                      f"and the published FP8:BF16 pairs' largest error "
                      f"{off['fp8_pairs_max']:.1%} -> {on['fp8_pairs_max']:.1%}")
        why.append(words)
    return ("kept on against the rule: " + "; ".join(why)) if why else ""


def _without_and_with(part: str, verdict: pd.DataFrame):
    """The verdict rows of the shipped mechanisms without ``part`` and with it (``"off"`` when
    none is left), or None when ``MECHANISMS`` prices either setting not."""
    on = shipped_mechanisms()
    off = tuple(False if k == part else v for k, v in zip(_MECHANISM_FLAGS, on))
    by_flags = {**{f: n for n, f in MECHANISMS.items()}, (False, False, False): "off"}
    names = by_flags.get(off), by_flags.get(on)
    if None in names or not all(n in verdict.index for n in names):
        return None
    return verdict.loc[names[0]], verdict.loc[names[1]]


def regime_noise(validation: pd.DataFrame) -> pd.Series:
    """Per regime, the noise of its held-out mean |error|: the standard error of that mean,
    ``sd(|e|) / √n`` over the regime's ``n`` held-out rows (sample standard deviation), with the
    pooled within-regime standard deviation ``√(Σ (n_r − 1)·sd_r² / Σ (n_r − 1))`` for a regime
    of one row, and never below ``REGIME_CHANGE_TOLERANCE``.

    Why: a regime's mean |error| is an average over the few runs that happen to be published;
    a mechanism that moves it by less than its standard error cannot be told apart from which
    runs were published (a regime of one run moves by as much as one run differs from its
    regime's others, the pooled spread). The rule by which a mechanism is on by default
    (``mechanism_comparison``) counts a regime as worse only above this noise."""
    held = validation[validation["split"] == "held-out"]
    g = held.assign(abs_error=held["error"].abs()).groupby("regime")["abs_error"]
    n, sd = g.size(), g.std(ddof=1)
    many = n > 1
    pooled = float(np.sqrt(((n[many] - 1) * sd[many] ** 2).sum() / (n[many] - 1).sum()))
    se = (sd / np.sqrt(n)).where(many, pooled)
    return se.clip(lower=REGIME_CHANGE_TOLERANCE).rename("noise")


def _regime_change_words(regimes, before: pd.Series, after: pd.Series, noise: pd.Series) -> str:
    """"label before% -> after% (noise n%)" for each regime, joined by "; "."""
    return "; ".join(f"{g} {before[g]:.1%} -> {after[g]:.1%} (noise {noise[g]:.1%})"
                     for g in regimes)


def _setting_row(name, t, per_regime, noise, off_mean, shipped) -> dict:
    """One row of ``mechanism_comparison``'s verdict (its docstring gives the columns)."""
    held = t[t["split"] == "held-out"]
    a100 = held[(held["gpu_generation"] == "Ampere") & (held["sharding"] == "Megatron 3D")]
    delta = per_regime[name] - per_regime["off"]
    worse = per_regime.index[delta > noise.reindex(per_regime.index)]
    flags = MECHANISMS.get(name, (False, False, False))
    all_mean = float(held["error"].abs().mean())
    a100_mean, a100_max = float(a100["error"].abs().mean()), float(a100["error"].abs().max())
    return {"setting": name, "better": int((delta < -REGIME_CHANGE_TOLERANCE).sum()),
            "worse": len(worse), "worse_list": tuple(worse),
            "worse_regimes": _regime_change_words(worse, per_regime["off"], per_regime[name],
                                                  noise),
            "worse_any": int((delta > REGIME_CHANGE_TOLERANCE).sum()),
            "all_mean": all_mean,
            "fp8_pairs_max": float(fp8_bf16_pairs(t)["error"].abs().max()),
            "a100_megatron_mean": a100_mean, "a100_megatron_max": a100_max,
            "passes": (len(worse) == 0 and any(flags) and all_mean < off_mean
                       and a100_mean <= A100_MEGATRON_GOAL[0]
                       and a100_max <= A100_MEGATRON_GOAL[1] + 1e-9),
            "default_on": any(flags) and all(shipped_value(shipped, k) == v for k, v in zip(
                _MECHANISM_FLAGS, flags) if v)}


def flash_curve_comparison(split: str = "held-out") -> tuple:
    """The attention kernel's curve on the stacks whose kernel is a FlashAttention one
    (``StepOptions.attention_curve="flash"``, the shipped setting: FlashAttention-2 / -3 through
    PyTorch's SDPA or the flash-attn package, the FlashAttention-3 paper's H100 bars, checked to
    64k on NVIDIA's measurement, ``attention.check_curves``; the flat fraction kept on the
    Transformer Engine stacks, whose cuDNN curve fails the rule, ``full_curve_comparison``, and
    on a stack whose kernel is its own, ``attention.UNMEASURED_KERNEL_STACKS``) judged by
    ``mechanism_comparison``'s rule against the flat fraction on every stack
    (``validation_table(attention_curve=False)`` against ``validation_table()``, the MoE
    host-cost constants re-fitted under the former), on the rows of ``split``: "held-out" or
    "calibration" (the fit set). Split from ``attention_curve=True`` after its held-out errors
    were seen (the cuDNN curve was what failed; the calibration rows alone show the same: the
    cuDNN curve moves the NeMo 32K row 6.8 % -> 16.8 %). Returns ``(per_regime, verdict)`` as
    ``cp_overlap_comparison``."""
    return _tables_verdict(split, {"attention_curve": False}, {})


def full_curve_comparison(split: str = "held-out") -> tuple:
    """The attention kernel's curve on every stack (``StepOptions.attention_curve=True``:
    cuDNN's fused-attention curve on the Transformer Engine stacks too, the FlashAttention-2
    curve on a stack whose kernel is its own) judged by ``mechanism_comparison``'s rule
    against the shipped setting (``"flash"``), on the rows of ``split`` ("held-out" or
    "calibration"): why the shipped curve stops at the FlashAttention stacks. Returns
    ``(per_regime, verdict)`` as ``cp_overlap_comparison``."""
    return _tables_verdict(split, {}, {"attention_curve": True})


def _calibration_as_held_out(t: pd.DataFrame) -> pd.DataFrame:
    """The table with its splits swapped, so the held-out statistics read the calibration rows."""
    swap = {"held-out": "calibration", "calibration": "held-out"}
    return t.assign(split=t["split"].map(swap))


@disk_cached  # the same for every call with these arguments: core.diskcache
def cp_overlap_comparison() -> tuple:
    """The context-parallel ring overlap (``StepOptions.cp_overlap``, ``step.cp_exposure``)
    judged by ``mechanism_comparison``'s rule, on the shipped kernel mechanisms: every row
    priced with the K/V exchange exposed (``validation_table(cp_overlap=False)``, the MoE
    host-cost constants re-fitted under it) against the rows' own (the stack's ring overlap,
    PyTorch's ring as torchtitan runs it (``cp_overlap="torch_ring"``: added after the
    torchtitan CP rows were seen), or the run's all-gather).

    Returns
    -------
    (per_regime, verdict): ``per_regime`` indexed by regime with ``n``, ``noise``
    (``regime_noise`` of the exposed table), ``off`` and ``on`` (held-out mean |error|);
    ``verdict`` a dict: ``better``, ``worse`` (beyond noise), ``worse_regimes``, ``all_mean``
    (``off``, ``on``), ``a100_megatron_mean`` / ``_max`` (``on``) and ``passes``.
    """
    return _off_on_verdict(validation_table(cp_overlap=False), validation_table())


@disk_cached  # the same for every call with these arguments: core.diskcache
def fsdp_copies_comparison() -> tuple:
    """FSDP2's copies around its collectives (the all-gathered weights' copy-out and the
    gradients' copy-in, ``StepOptions.fsdp_copies``,
    ``step.fsdp_copies_s``) judged by ``mechanism_comparison``'s rule, on the shipped
    mechanisms: every row priced without it (``validation_table(fsdp_copies=False)``, the MoE
    host-cost constants re-fitted under it) against the rows' own (on for the rows of the FSDP2
    stacks, ``options.FSDP_COPIES_STACKS``, off for FSDP1's, ``step_validation.FSDP1_SETS``).
    Added after the held-out torchtitan rows were seen optimistic; nothing is fitted.

    Returns
    -------
    (per_regime, verdict) as ``cp_overlap_comparison``.
    """
    return _off_on_verdict(validation_table(fsdp_copies=False), validation_table())


def _off_on_verdict(off: pd.DataFrame, on: pd.DataFrame) -> tuple:
    """One mechanism judged by ``mechanism_comparison``'s rule from its validation tables
    without (``off``) and with it (``on``): ``(per_regime, verdict)`` as
    ``cp_overlap_comparison`` returns them (a regime is worse when its held-out mean |error|
    rises by more than ``regime_noise`` of ``off``; it passes when no regime is worse, the
    held-out mean falls and the A100 Megatron rows keep ``A100_MEGATRON_GOAL``)."""
    r_off, r_on = regime_table(off), regime_table(on)
    noise = regime_noise(off)
    per_regime = pd.DataFrame({"n": r_off["n"], "noise": noise, "off": r_off["mean_abs_error"],
                               "on": r_on["mean_abs_error"]})
    delta = per_regime["on"] - per_regime["off"]
    worse = per_regime.index[delta > per_regime["noise"]]
    held_off, held_on = (t[t["split"] == "held-out"] for t in (off, on))
    a100 = held_on[(held_on["gpu_generation"] == "Ampere")
                   & (held_on["sharding"] == "Megatron 3D")]["error"].abs()
    means = (float(held_off["error"].abs().mean()), float(held_on["error"].abs().mean()))
    verdict = {"better": int((delta < -REGIME_CHANGE_TOLERANCE).sum()), "worse": len(worse),
               "worse_regimes": list(worse), "all_mean": means,
               "a100_megatron_mean": float(a100.mean()), "a100_megatron_max": float(a100.max()),
               "passes": (len(worse) == 0 and means[1] < means[0]
                          and float(a100.mean()) <= A100_MEGATRON_GOAL[0]
                          and float(a100.max()) <= A100_MEGATRON_GOAL[1] + 1e-9)}
    return per_regime, verdict


def fp8_split_accumulator_comparison() -> tuple:
    """Hopper's backward FP8 GEMMs without fast accumulation (``StepOptions.
    fp8_split_accumulator``, ``gemm.FP8_SLOW_ACCUMULATION``) judged by ``mechanism_comparison``'s
    rule, on the shipped mechanisms: every row priced with the backward FP8 GEMMs at the
    forward's rate (``validation_table(fp8_split_accumulator=False)``, the MoE host-cost
    constants re-fitted under it) against the shipped setting. The term was added after the
    held-out FP8 rows and the FP8:BF16 pairs were seen.

    Returns
    -------
    (per_regime, verdict): ``per_regime`` indexed by regime with ``n``, ``noise``
    (``regime_noise`` of the table without the term), ``off`` and ``on`` (held-out mean
    |error|); ``verdict`` a dict: ``better``, ``worse`` (beyond noise), ``worse_regimes``,
    ``all_mean`` and ``fp8_mean`` (held-out rows, all and FP8: ``(off, on)``),
    ``fp8_pairs_within`` (published FP8:BF16 pairs within 10 %, ``(off, on)``, of
    ``fp8_pairs``), ``a100_megatron_mean`` / ``_max`` (``on``) and ``passes``.
    """
    off = validation_table(fp8_split_accumulator=False)
    on = validation_table(fp8_split_accumulator=True)
    per_regime, verdict = _off_on_verdict(off, on)
    held = [t[t["split"] == "held-out"] for t in (off, on)]
    pairs = [fp8_bf16_pairs(t)["error"].abs() for t in (off, on)]
    fp8 = {"fp8_mean": tuple(float(h[h["dtype"] == "fp8"]["error"].abs().mean()) for h in held),
           "fp8_pairs_within": tuple(int((p <= 0.10).sum()) for p in pairs),
           "fp8_pairs": len(pairs[1])}
    order = ("better", "worse", "worse_regimes", "all_mean", *fp8, "a100_megatron_mean",
             "a100_megatron_max", "passes")  # the order the benchmark prints
    return per_regime, {k: {**verdict, **fp8}[k] for k in order}


def attention_blackwell_comparison(split: str = "held-out") -> tuple:
    """cuDNN's measured attention rates on Blackwell (``StepOptions.attention_blackwell``,
    ``attention.blackwell_curve``: NVIDIA/cudnn-frontend's GB200 / GB300 measurement by
    sequence length, head dimension and sliding window) judged by ``mechanism_comparison``'s
    rule on the shipped mechanisms: every row priced with Blackwell's attention at the flat
    ``attention_fraction`` (``validation_table(attention_blackwell=False)``, the MoE host-cost
    constants re-fitted under it) against the shipped setting, on the rows of ``split``
    ("held-out", or "calibration": the fit set, its regimes' noise from its own rows). Added
    after the held-out Blackwell MoE rows (gpt-oss 120B +29 % to +65 %) were seen; no constant
    is fitted to a training run (the rates are the kernel's published measurement).

    Returns
    -------
    (per_regime, verdict) as ``cp_overlap_comparison``, the verdict with ``blackwell_mean``
    (the split's Blackwell rows' mean |error|, ``(off, on)``).

    Raises
    ------
    ValueError
        ``split`` other than "held-out" or "calibration".
    """
    _check_split(split)
    return _blackwell_verdict(validation_table(attention_blackwell=False),
                              validation_table(attention_blackwell=True), split)


def fp8_attention_comparison(split: str = "held-out") -> tuple:
    """The attention core in FP8 where the rows' recipes ran it (``StepOptions.fp8_attention``,
    ``step_validation.FP8_ATTENTION_OF_ROW``: Megatron-Bridge's 26.06 / 26.08 MXFP8 recipes on
    GB200 / GB300, priced at cuDNN's measured MXFP8 rates, ``attention.blackwell_tflops``)
    judged by ``mechanism_comparison``'s rule: every row's attention in BF16
    (``validation_table(fp8_attention=False)``, the MoE host-cost constants re-fitted under it)
    against the rows as their recipes ran, on the rows of ``split`` ("held-out" or
    "calibration"). Returns ``(per_regime, verdict)`` as ``attention_blackwell_comparison``.

    Raises
    ------
    ValueError
        ``split`` other than "held-out" or "calibration".
    """
    _check_split(split)
    return _blackwell_verdict(validation_table(fp8_attention=False), validation_table(), split)


@disk_cached
def validation_table_without_unpad() -> pd.DataFrame:
    """``validation_table()`` with no row's unpadded FlashAttention copies
    (``StepOptions.attention_unpad`` off for every row; on by default where the rows' code makes
    them, ``step_validation.row_attention_unpad``). The MoE host-cost constants are the shipped
    ones, not re-fitted: no MoE calibration row runs llm-foundry's attention, so the fit sees
    the same steps either way."""
    sv = step_validation
    return _with_regimes(sv.mfu_validation(sets=sv.VALIDATION_SETS + sv.OUTSIDE_SETS
                                           + sv.NEWER_SETS, physics={"attention_unpad": False}))


def attention_unpad_comparison(split: str = "held-out") -> tuple:
    """The copies that remove and restore the padding around llm-foundry's variable-length
    FlashAttention call, where the rows' runs make them (``StepOptions.attention_unpad``,
    ``step_validation.row_attention_unpad``, ``elementwise.unpadded_attention_bytes``), judged
    by ``mechanism_comparison``'s rule: no row's copies (``validation_table_without_unpad``)
    against the rows as their code runs (``validation_table()``), on the rows of ``split``
    ("held-out" or "calibration"). Returns ``(per_regime, verdict)`` as
    ``attention_blackwell_comparison``.

    Raises
    ------
    ValueError
        ``split`` other than "held-out" or "calibration".
    """
    _check_split(split)
    return _blackwell_verdict(validation_table_without_unpad(), validation_table(), split)


def ring_unmasked_comparison(split: str = "held-out") -> tuple:
    """A context-parallel ring's non-causal calls at the kernel's unmasked rate
    (``StepOptions.ring_unmasked``, ``attention.ring_unmasked_factors``) judged by
    ``mechanism_comparison``'s rule on the shipped mechanisms: every ring call at the causal
    rate (``validation_table(ring_unmasked=False)``, the MoE host-cost constants re-fitted
    under it) against the shipped setting, on the rows of ``split`` ("held-out", or
    "calibration": the fit set judged as if held out). Added after the held-out NeMo
    long-sequence rows were seen pessimistic, more so with CP; nothing is fitted (the rate
    ratio is NVIDIA's measurement of the kernels, the call shapes the rings' code).

    Returns
    -------
    (per_regime, verdict) as ``cp_overlap_comparison``.

    Raises
    ------
    ValueError
        ``split`` other than "held-out" or "calibration".
    """
    return _tables_verdict(split, {"ring_unmasked": False}, {})


def ring_compiled_comparison(split: str = "held-out") -> tuple:
    """PyTorch's context-parallel ring traced by ``torch.compile``, its exchanges exposed
    (``StepOptions.cp_ring_compiled``, ``step.torch_ring_exposure``; the rows of
    ``step_validation.CP_COMPILED_SETS``), judged by ``mechanism_comparison``'s rule on the
    shipped mechanisms: every ring priced eager, its exchanges overlapped
    (``validation_table(cp_ring_compiled=False)``, the MoE host-cost constants re-fitted under it)
    against the shipped setting, on the rows of ``split`` ("held-out", or "calibration": the
    fit set judged as if held out). Added after the torchtitan CP rows were seen optimistic;
    nothing is fitted.

    Returns
    -------
    (per_regime, verdict) as ``cp_overlap_comparison``.

    Raises
    ------
    ValueError
        ``split`` other than "held-out" or "calibration".
    """
    return _tables_verdict(split, {"cp_ring_compiled": False}, {})


def early_stop_comparison(split: str = "held-out") -> tuple:
    """A full recomputation that stops before each block's last GEMM
    (``StepOptions.recompute_early_stop``, ``step.early_stopped``; the rows of
    ``step_validation.row_early_stop``: llm-foundry's MPT tables on PyTorch 2.1's non-reentrant
    checkpoint) judged by ``mechanism_comparison``'s rule on the shipped mechanisms: the shipped
    setting, every row's whole forward re-run, against the candidate on
    (``validation_table(recompute_early_stop=True)``, the MoE host-cost constants re-fitted
    under it), on the rows of ``split`` ("held-out", or "calibration": the fit set judged as if
    held out). Read after llm-foundry's checkpointed rows were seen ~20 points below its
    others; nothing is fitted. It fails the rule (the Hopper FSDP ≥ 10B regime worse beyond
    its noise): off by default, printed by ``benchmarks/validate_mfu.py`` item 22.

    Returns
    -------
    (per_regime, verdict) as ``cp_overlap_comparison``.

    Raises
    ------
    ValueError
        ``split`` other than "held-out" or "calibration".
    """
    return _tables_verdict(split, {}, {"recompute_early_stop": True})


def fp8cs_launch_comparison(split: str = "held-out") -> tuple:
    """FP8 current scaling's extra quantize launches per local expert
    (``StepOptions.fp8cs_expert_launches``: the per-expert host constant × 1 + 2·4/18,
    ``moe_layer.fp8_expert_host_factor``, from Transformer Engine v2.9's per-split
    amax / scale / cast) judged by ``mechanism_comparison``'s rule on the shipped mechanisms:
    the shipped setting (off) against it on (``validation_table(fp8cs_expert_launches=True)``,
    the MoE host-cost constants re-fitted under it), on the rows of ``split`` ("held-out", or
    "calibration": the fit set judged as if held out). Read after the worst MoE rows (FP8-CS,
    H100) were seen optimistic.

    Returns
    -------
    (per_regime, verdict) as ``cp_overlap_comparison``.

    Raises
    ------
    ValueError
        ``split`` other than "held-out" or "calibration".
    """
    return _tables_verdict(split, {}, {"fp8cs_expert_launches": True})


def _check_split(split) -> None:
    if split not in ("held-out", "calibration"):
        raise ValueError(f"split={split!r} must be 'held-out' or 'calibration'")


def _tables_verdict(split: str, off: dict, on: dict) -> tuple:
    """``_off_on_verdict`` of ``validation_table(**off)`` against ``validation_table(**on)``
    on the rows of ``split`` ("held-out" or "calibration"; else a ValueError): the body every
    one-switch comparison (``ring_unmasked_comparison`` and its kin) shares."""
    _check_split(split)
    return _off_on_verdict(*_on_split(validation_table(**off), validation_table(**on), split))


def _on_split(off: pd.DataFrame, on: pd.DataFrame, split: str) -> tuple:
    """``(off, on)`` as the rule judges the rows of ``split``: as they are for "held-out", the
    calibration rows in the held-out rows' place for "calibration"
    (``_calibration_as_held_out``)."""
    if split == "calibration":
        return tuple(_calibration_as_held_out(t) for t in (off, on))
    return off, on


def _blackwell_verdict(off: pd.DataFrame, on: pd.DataFrame, split: str) -> tuple:
    """``_off_on_verdict`` of ``off`` against ``on`` on the rows of ``split`` ("held-out", or
    "calibration" judged as if held out), the verdict with ``blackwell_mean``: the split's
    Blackwell rows' mean |error|, ``(off, on)``."""
    off, on = _on_split(off, on, split)
    per_regime, verdict = _off_on_verdict(off, on)
    bw = [t[(t["split"] == "held-out") & (t["gpu_generation"] == "Blackwell")]["error"].abs()
          for t in (off, on)]
    return per_regime, {**verdict, "blackwell_mean": tuple(float(b.mean()) for b in bw)}


#: The held-out A100 Megatron rows' goal (mean, max |error|), which a mechanism must keep.
A100_MEGATRON_GOAL = (0.03, 0.10)


@disk_cached
def mechanism_comparison_calibration() -> pd.DataFrame:
    """Each setting of ``MECHANISMS`` against the mechanisms off on the **calibration** rows (the
    fit set), by ``mechanism_comparison``'s regime test (``_off_on_verdict`` on the tables with
    their splits swapped; each regime's noise from its calibration rows): indexed by setting,
    ``all_off`` / ``all_on`` (the calibration rows' mean |error|), ``better``, ``worse`` and
    ``worse_regimes`` (label, before -> after, noise). The A100 Megatron goal is the held-out
    rows' and is not read here."""
    off = _calibration_as_held_out(validation_table(False, False, False))
    rows = []
    for name, flags in MECHANISMS.items():
        per_regime, v = _off_on_verdict(off, _calibration_as_held_out(validation_table(*flags)))
        rows.append({"setting": name, "all_off": v["all_mean"][0], "all_on": v["all_mean"][1],
                     "better": v["better"], "worse": v["worse"],
                     "worse_regimes": _regime_change_words(
                         v["worse_regimes"], per_regime["off"], per_regime["on"],
                         per_regime["noise"])})
    return pd.DataFrame(rows).set_index("setting")


@disk_cached
def mechanism_comparison() -> tuple:
    """Each kernel mechanism's effect, regime by regime, on the held-out rows, and the rule by
    which a mechanism is on by default: it **passes** when, against the mechanisms off, (1) the
    held-out mean |error| of all rows falls, (2) no regime's held-out mean |error| rises by more
    than its noise (``regime_noise``: the standard error of the regime's mean, pooled for a
    regime of one run), (3) the held-out A100 Megatron rows keep ``A100_MEGATRON_GOAL``. A
    mechanism is on by default only if it passes alone and with the others on by default
    (a test holds the defaults to the verdict).

    Every setting of ``MECHANISMS`` is priced with ``validation_table`` (which re-fits the MoE
    host-cost constants on the calibration rows under that setting) against the mechanisms off.

    Returns
    -------
    (per_regime, verdict): ``per_regime`` indexed by regime, ``n`` (held-out rows), ``noise``
    and, per setting (``"off"`` and each ``MECHANISMS`` name), the held-out mean |error|;
    ``verdict`` indexed by setting: ``better`` (regimes whose mean |error| falls by more than
    ``REGIME_CHANGE_TOLERANCE``), ``worse`` (regimes whose mean |error| rises by more than their
    noise) and ``worse_regimes`` (their labels, before -> after and the noise), ``worse_any``
    (regimes that rise by more than ``REGIME_CHANGE_TOLERANCE``, noise or not), ``all_mean``
    (every held-out row's mean |error|), ``fp8_pairs_max`` (the largest |error| of the
    published FP8:BF16 speed ratios, ``fp8_bf16_pairs``), ``a100_megatron_mean`` / ``_max``
    (the held-out A100 Megatron rows), ``passes`` (the rule above) and ``default_on`` (every
    mechanism of the setting is on in ``StepOptions()``). Computed once per code and data
    (``core.diskcache.disk_cached``: no scenario enters it).
    """
    tables = {"off": validation_table(False, False, False)}
    tables.update({name: validation_table(*flags) for name, flags in MECHANISMS.items()})
    regs = {name: regime_table(t) for name, t in tables.items()}
    noise = regime_noise(tables["off"])
    per_regime = pd.DataFrame({"n": regs["off"]["n"], "noise": noise})
    for name, r in regs.items():
        per_regime[name] = r["mean_abs_error"]
    shipped = StepOptions()
    off_mean = float(tables["off"].query("split == 'held-out'")["error"].abs().mean())
    rows = [_setting_row(name, t, per_regime, noise, off_mean, shipped)
            for name, t in tables.items()]
    return per_regime, pd.DataFrame(rows).set_index("setting")


@disk_cached  # the same for every call: core.diskcache
def straggler_comparison() -> tuple:
    """The straggler wait (``StepOptions.straggler``, ``straggler.straggler_slowdown``: the
    compute × σ·(e(N) − e(8)), σ = 1.48 % from Sinha et al. SC22, not fitted to any row) on the
    published runs of ``step_validation.VALIDATION_SETS + OUTSIDE_SETS`` (notebook 04b's table):
    every row priced without it (``mfu_validation(physics={"straggler": False})``) against the
    rows as shipped. Nothing is fitted; the MoE host-cost constants stay the shipped ones.

    Returns
    -------
    (per_set, per_row): ``per_set`` indexed by (set, split) as ``step_validation.set_summary``,
    with ``n``, ``off_mean`` / ``on_mean`` (mean |error|), ``off_max`` / ``on_max`` and
    ``off_signed`` / ``on_signed`` (mean signed error), without and with the wait; ``per_row``
    indexed by ``run_id``: ``set``, ``split``, ``n_gpus``, ``error_off``, ``error_on`` (signed,
    predicted ÷ published MFU − 1) and ``mfu_change`` (predicted MFU with ÷ without − 1: 0 on
    the calibration's 8 GPUs, negative above).
    """
    sets = step_validation.VALIDATION_SETS + step_validation.OUTSIDE_SETS
    on = step_validation.mfu_validation(sets=sets)
    off = step_validation.mfu_validation(sets=sets, physics={"straggler": False})
    s_on, s_off = step_validation.set_summary(on), step_validation.set_summary(off)
    cols = {"mean_abs_error": "mean", "max_abs_error": "max", "mean_signed_error": "signed"}
    per_set = pd.DataFrame({"n": s_on["n"]})
    for col, short in cols.items():
        per_set[f"off_{short}"], per_set[f"on_{short}"] = s_off[col], s_on[col]
    a, b = off.set_index("run_id"), on.set_index("run_id")
    per_row = pd.DataFrame({"set": b["set"], "split": b["split"], "n_gpus": b["n_gpus"],
                            "error_off": a["error"], "error_on": b["error"],
                            "mfu_change": b["predicted_mfu"] / a["predicted_mfu"] - 1})
    return per_set, per_row


def fp8cs_eager_launch_table() -> tuple:
    """``(off, on)`` validation tables of ``fp8cs_eager_launch_comparison``: the shipped setting,
    and FP8 current scaling's extra quantize launches (``validation_table(
    fp8cs_expert_launches=True)``, the MoE host constants re-fitted under it) on every FP8-CS row
    but those whose layers ran in per-layer CUDA graphs
    (``step_validation.LAYER_GRAPHED_FP8CS_ROWS``: a captured launch costs no host time), which
    keep the factor 1 with the same re-fitted constants. No calibration row is spared, so the
    re-fit is the switch's own."""
    sv = step_validation
    off = validation_table()
    on = validation_table(fp8cs_expert_launches=True).copy()
    flags = dict(zip(_MECHANISM_FLAGS, shipped_mechanisms()))
    moe_host = sv.calibrate_moe_host_overhead(physics={**flags, "fp8cs_expert_launches": True})
    spared = sv.mfu_validation(sets=("megatron-bridge-2509",), physics=flags,
                               moe_host=moe_host).set_index("run_id")
    rows = on["run_id"].isin(sv.LAYER_GRAPHED_FP8CS_ROWS)
    cols = [k for k in on.columns if k in spared.columns and k not in ("run_id",)
            and k in ("error", "predicted_mfu", "predicted_hfu", "step_time_s", *sv.PARTS)]
    on.loc[rows, cols] = spared.loc[on.loc[rows, "run_id"], cols].to_numpy()
    return off, on


def fp8cs_eager_launch_comparison(split: str = "held-out") -> tuple:
    """FP8 current scaling's extra quantize launches per local expert on the eager layers only
    (``fp8cs_eager_launch_table``) judged by ``mechanism_comparison``'s rule against the shipped
    setting, on the rows of ``split`` ("held-out", or "calibration" judged as if held out). Read
    after the worst MoE rows were seen.

    Returns
    -------
    (per_regime, verdict) as ``cp_overlap_comparison``.

    Raises
    ------
    ValueError
        ``split`` other than "held-out" or "calibration".
    """
    _check_split(split)
    return _off_on_verdict(*_on_split(*fp8cs_eager_launch_table(), split))


def _fa1_physics(anchor) -> dict:
    """The options every row is priced with for ``fa1_length_table``: the shipped mechanisms'
    settings (as ``validation_table()`` passes them) and ``fa1_length=anchor``."""
    return {**dict(zip(_MECHANISM_FLAGS, shipped_mechanisms())), "fa1_length": anchor}


@lru_cache(maxsize=2)
@disk_cached
def fa1_length_table(anchor: bool | float = True) -> pd.DataFrame:
    """``validation_table()`` with every row priced with ``StepOptions.fa1_length=anchor``
    (True: the length curve anchored at ``attention.FA1_LENGTH_ANCHOR``, as shipped; False: the
    flat FlashAttention-1 fraction at every length; only the rows of a FlashAttention-1 stack
    move, llm-foundry's 2023-10 tables, all dense), the MoE host-cost constants as shipped: the
    curve moves none of the MoE calibration rows they are fitted on (a re-fit would differ from
    the shipped constants only by their rounding)."""
    sv = step_validation
    return _with_regimes(sv.mfu_validation(
        sets=sv.VALIDATION_SETS + sv.OUTSIDE_SETS + sv.NEWER_SETS, physics=_fa1_physics(anchor)))


#: The anchors ``fa1_anchor_fit`` tries: 1,024 to 16,384 tokens, 16 a doubling.
FA1_ANCHOR_GRID = tuple(float(2.0 ** (10 + k / 16)) for k in range(65))


@disk_cached
def fa1_anchor_fit() -> tuple:
    """The anchor of the FlashAttention-1 length curve (``attention.FA1_LENGTH_ANCHOR``, the
    length at which the flat fraction holds) fitted on the **calibration** rows only: the
    ``FA1_ANCHOR_GRID`` value with the least mean |error| over the calibration rows of
    llm-foundry's tables (the only rows the curve moves), priced with the shipped mechanisms.
    Returns ``(anchor, mean |error| at it, mean |error| with the flat fraction)``."""
    sv = step_validation
    sets = ("llm-foundry-mpt",)

    def cal_mean(physics: dict) -> float:
        v = sv.mfu_validation(sets=sets, physics=physics)
        return float(v[v["split"] == "calibration"]["error"].abs().mean())

    fits = [(cal_mean(_fa1_physics(a)), a) for a in FA1_ANCHOR_GRID]
    best = min(fits)
    return best[1], best[0], cal_mean(_fa1_physics(False))


def fa1_length_comparison(split: str = "held-out") -> tuple:
    """The FlashAttention-1 length curve (``StepOptions.fa1_length``, the series of each row's
    head dimension) judged by ``mechanism_comparison``'s rule: the flat fraction at every length
    (``fa1_length_table(False)``) against the curve (``fa1_length_table(True)``, the shipped
    setting) on the rows of ``split`` ("held-out", or
    "calibration": the fit set judged as if held out). Read after the long-context rows' errors
    were seen (llm-foundry's 64K rows 13-21 % too slow, every one above the flat rate:
    ``benchmarks/validate_mfu.py`` item 17); its one constant, the anchor, is fitted on the
    calibration rows (``fa1_anchor_fit``).

    Returns
    -------
    (per_regime, verdict) as ``cp_overlap_comparison``.

    Raises
    ------
    ValueError
        ``split`` other than "held-out" or "calibration".
    """
    _check_split(split)
    return _off_on_verdict(*_on_split(fa1_length_table(False), fa1_length_table(True), split))
