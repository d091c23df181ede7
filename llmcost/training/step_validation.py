"""The step-time model held to published runs: predicted against reported MFU.

``mfu_validation`` prices every row of ``data/validation_mfu.csv`` (joined on ``run_id`` to
``data/published_runs.csv``) with ``step.step_time`` and compares the predicted MFU with the
reported one, on one basis (the conventions are in its docstring); ``set_summary`` and
``error_summary`` give the error per set and split, and ``llmcost.training.accuracy`` turns the
held-out errors into a band on every prediction. ``layer_time_table`` and
``calibrate_kernel_efficiency`` hold the model's one calibrated constant,
``options.KERNEL_EFFICIENCY``, to the per-layer times of Korthikanti et al. 2022 Table 4 (no
end-to-end MFU enters that fit). ``gpt_model`` builds the Megatron-LM GPT models those papers
benchmark.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import fields
from functools import lru_cache

import numpy as np
import pandas as pd

from ..core.catalog import DATA_DIR, load_accelerator, load_model, load_published_runs
from ..core.diskcache import disk_cached, kept_if_quiet, value_key
from ..core.hardware import Cluster
from ..core.model import ModelSpec
from ..core.stacks import DEFAULT_STACK, GENERATIONS, StackFeatureWarning, load_stack
from . import memory, moe_layer
from .gemm import GEMM_SHAPE, per_sm_rate_ratio, stand_in_shape
from .options import StepOptions, stack_memory_practice, stack_moe_host_s
from .parallel import ParallelPlan, make_plan
from .step import PARTS, PHYSICS_OPTIONS, STEP_OPTIONS, step_arrays, step_time

#: Korthikanti et al. 2022 Table 4: forward and backward time of one transformer layer of their
#: 22B GPT model (h 6144, 64 heads, s 2048, micro-batch 4, TP 8 on one DGX A100), in ms. Values
#: confirmed in two independent transcriptions of the paper. The calibration data of
#: ``KERNEL_EFFICIENCY``.
KORTHIKANTI_TABLE4 = (
    # label, sequence parallel, recompute, forward ms, backward ms
    ("baseline, no recompute", False, "none", 7.7, 11.9),
    ("sequence parallelism", True, "none", 7.2, 11.8),
    ("full recompute", False, "full", 7.7, 19.5),
    ("selective recompute", False, "selective", 7.7, 13.2),
    ("selective + sequence parallelism", True, "selective", 7.2, 13.1),
)


def gpt_model(name: str, n_layers: int, d_model: int, n_heads: int, vocab_size: int = 51200,
              seq_len: int = 2048) -> ModelSpec:
    """A Megatron-LM GPT model as Narayanan et al. 2021 and Korthikanti et al. 2022 benchmark it:
    4h GeLU MLP, LayerNorm, biases, learned positions, tied input and output embeddings, MHA,
    vocabulary 51,200, sequence 2,048 (Narayanan §5.1; parameters = Eq. 2 + the final LayerNorm)."""
    return ModelSpec(name=name, n_layers=n_layers, d_model=d_model, n_heads=n_heads,
                     vocab_size=vocab_size, d_ff=4 * d_model, ffn_type="mlp",
                     tied_embeddings=True, norm="layernorm", bias="all",
                     pos_encoding="learned", max_position_embeddings=seq_len, seq_len=seq_len,
                     source="Narayanan et al. 2021 §5.1 (GPT architecture, V = 51,200, s = 2048)")


#: The settings of Korthikanti et al. 2022 Table 4's layer timings: fp16 with fp32 main
#: gradients, no FlashAttention, dropout, backward TP overlap, nothing else overlapped.
#: The GEMM shape term the Table 4 calibration applies to A100 for ``KERNEL_EFFICIENCY_SHAPE``:
#: no per-shape kernel table was found for A100, so Hopper BF16's (``gemm.GEMM_SHAPE``) stands
#: in by the stated rule of ``gemm.stand_in_shape``: its fixed cost ``t0`` kept, its ``k0``
#: scaled by the per-SM dense BF16 rate, A100 / H100 = (312 / 108) / (989.4 / 132) = 0.385.
A100_SHAPE_STAND_IN = stand_in_shape(
    GEMM_SHAPE[("hopper", "bf16")], per_sm_rate_ratio("A100-80GB", "H100-SXM"),
    "Hopper BF16's t0, k0 x the A100:H100 dense BF16 rate per SM (gemm.stand_in_shape)")

KORTHIKANTI_OPTIONS = StepOptions(recipe="bf16_adam_fp32_grads_copy", flash_attention=False,
                                  dropout=True, tp_overlap="backward", pp_overlap=False,
                                  dp_overlap=False)


def layer_time_table(kernel_efficiency: float | None = None,
                     gemm_shape: bool = False) -> pd.DataFrame:
    """Modelled vs measured time of one 22B layer (Korthikanti et al. 2022 Table 4).

    Returns a DataFrame indexed by the setting: measured and predicted forward and backward ms
    and their relative errors. Backward TP collectives overlap the weight-gradient GEMM, as the
    paper states; fp16, dropout, no FlashAttention. ``gemm_shape=True`` prices the GEMMs by
    shape with ``A100_SHAPE_STAND_IN`` (no A100 kernel table exists), ``kernel_efficiency``
    then being the GEMMs' sustained share only (``StepOptions.gemm_kernel_efficiency``; the
    attention and memory-bound work at ``KERNEL_EFFICIENCY``).
    """
    # with the shape term, ``kernel_efficiency`` is the GEMMs' residual (KERNEL_EFFICIENCY_SHAPE):
    # attention and memory-bound work keep KERNEL_EFFICIENCY
    opts = KORTHIKANTI_OPTIONS.replace(gemm_shape=A100_SHAPE_STAND_IN,
                                       gemm_kernel_efficiency=kernel_efficiency) if gemm_shape \
        else KORTHIKANTI_OPTIONS.replace(kernel_efficiency=kernel_efficiency)
    model = gpt_model("korthikanti-22b", 48, 6144, 64)
    cluster = Cluster(load_accelerator("A100-80GB"), 8)
    rows = []
    for label, sp, rc, f_ms, b_ms in KORTHIKANTI_TABLE4:
        r = step_arrays(model, cluster, tp=8, pp=1, dp=1, cp=1, ep=1, virtual_stages=1,
                        micro_batch_size=4, n_microbatches=1, zero_stage=0, recompute=rc,
                        schedule="1f1b", sequence_parallel=sp, options=opts)
        pf, pb = float(r["layer_fwd_s"]) * 1e3, float(r["layer_bwd_s"]) * 1e3
        rows.append({"setting": label, "forward_ms": f_ms, "predicted_forward_ms": pf,
                     "forward_error": pf / f_ms - 1, "backward_ms": b_ms,
                     "predicted_backward_ms": pb, "backward_error": pb / b_ms - 1})
    return pd.DataFrame(rows).set_index("setting")


@disk_cached
def calibrate_kernel_efficiency(resolution: float = 0.001, gemm_shape: bool = False) -> float:
    """Re-derive ``KERNEL_EFFICIENCY``: the value in [0.5, 1] that minimises the squared log
    error of the ten per-layer times of Korthikanti et al. 2022 Table 4 (``layer_time_table``),
    to ``resolution`` (a 0.01 grid, then a fine grid around its best point). No end-to-end MFU
    enters the fit. ``gemm_shape=True`` re-derives the residual ``KERNEL_EFFICIENCY_SHAPE``
    instead: the same fit with the GEMMs priced by shape (``A100_SHAPE_STAND_IN``) and only the
    GEMMs' sustained share free (the attention and memory-bound rates at ``KERNEL_EFFICIENCY``),
    so that the shape losses the curve prices are not counted again in the sustained share. Computed once
    per code and data (``core.diskcache``)."""
    def loss(k):
        t = layer_time_table(float(k), gemm_shape=gemm_shape)
        return float(np.sum(np.log1p(t["forward_error"]) ** 2
                            + np.log1p(t["backward_error"]) ** 2))

    coarse = np.round(np.arange(0.5, 1.0 + 1e-9, 0.01), 6)
    best = coarse[int(np.argmin([loss(k) for k in coarse]))]
    fine = np.round(np.arange(max(0.5, best - 0.01), min(1.0, best + 0.01) + 1e-9, resolution), 6)
    return float(fine[int(np.argmin([loss(k) for k in fine]))])


@disk_cached
def calibrate_moe_host_overhead(sets=None, physics: dict | None = None) -> tuple:
    """Re-derive ``moe_layer.MOE_LAYER_HOST_S`` and ``MOE_EXPERT_HOST_S``: the per-MoE-layer
    and per-local-expert host costs (seconds per layer per micro-batch, forward + backward) that
    make the predicted step time of the MoE rows marked ``calibration`` in
    ``data/validation_mfu.csv`` equal their published one, and only those rows (every other MoE
    row stays held out). The step time is linear in the two constants (the host time enters each
    micro-batch additively; the bubble and stage imbalance scale it): least squares on the
    relative step-time error of ``T0 + a·A + b·B = T_published``, ``A``, ``B`` the step-time
    slopes, over the calibration rows (Megatron-Bridge 25.11, dropless: DeepSeek-V3 on 256 GB200
    at EP 32 and Qwen3-30B-A3B on 8 B200 at EP 8; 25.09, token-dropping padded to capacity, where
    the per-layer sync term is 0 (``moe_layer.sync_applies``) so ``A = 0``: Qwen3-30B-A3B on 8
    GB200, DeepSeek-V3 on 256 B200, Qwen3-235B-A22B on 64 B200). Rows of a stack that captures the whole iteration
    in a CUDA graph (``Stack.cuda_graphs = "full_iteration"``, no host cost) do not enter it.
    Both constants are host times, so the fit is
    constrained to ``a, b >= 0`` (non-negative least squares: where the unconstrained solution
    has a negative constant, that constant is 0 and the other is fitted alone).

    ``physics``: ``PHYSICS_OPTIONS`` applied to the calibration rows (as ``mfu_validation``),
    e.g. the kernel mechanisms off, to see what the fit gives under another engine setting;
    None: the shipped defaults, the setting the constants are used with.

    ``sets``: the validation sets searched for MoE calibration rows (default
    ``MOE_HOST_FIT_SETS``: the sets the shipped constants were fitted on), less the calibration
    rows written into them after the fit (``MOE_HOST_FIT_LATER_ROWS``). Returns
    ``(layer_s, expert_s)``. Computed once per code and data (``core.diskcache``).

    Raises
    ------
    ValueError
        A name that is not a validation set (``checked_sets``); fewer than two MoE calibration
        rows.
    """
    sets = MOE_HOST_FIT_SETS if sets is None else checked_sets(sets)
    # only the sets holding an MoE calibration row (the others do not enter the fit)
    cfg = validation_configs()
    runs = load_published_runs().set_index("run_id")
    cal = cfg[(cfg["split"] == "calibration") & cfg["set"].isin(list(sets))
              & (cfg["model_spec"] == "catalog") & ~cfg["run_id"].isin(MOE_HOST_FIT_LATER_ROWS)]
    sets = tuple(sorted({c["set"] for _, c in cal.iterrows()
                         if load_model(runs.loc[c["run_id"], "catalog_model"]).is_moe}))
    if not sets:
        raise ValueError("the sets named hold no MoE calibration row; the fit needs two (one per "
                         f"constant), e.g. the shipped fit's sets {MOE_HOST_FIT_SETS}")

    extra = _check_physics(dict(physics or {}))
    # the fit reads the calibration rows only: the sets' other rows are not priced
    fit_rows = tuple(cfg[(cfg["split"] == "calibration")
                         & ~cfg["run_id"].isin(MOE_HOST_FIT_LATER_ROWS)]["run_id"])

    def run(a, b):
        v = _validation_table(sets, {**extra, "moe_layer_host_s": a, "moe_expert_host_s": b},
                              rows=fit_rows)
        # only the rows of eager stacks: a full-iteration CUDA graph has no host cost to fit
        eager = v["stack"].map(lambda name: load_stack(name).cuda_graphs == "none")
        v = v[(v["kind"] == "moe") & (v["split"] == "calibration") & eager
              & ~v["run_id"].isin(MOE_HOST_FIT_LATER_ROWS)].set_index("run_id")
        return v["step_time_s"], v["step_time_s"] * (1.0 + v["error"])

    t0, published = run(0.0, 0.0)
    if len(t0) < 2:
        raise ValueError(f"the sets {sets} hold {len(t0)} MoE calibration row(s); the fit needs "
                         "two (one per constant)")
    unit = 1e-3
    slope_a = (run(unit, 0.0)[0] - t0) / unit
    slope_b = (run(0.0, unit)[0] - t0) / unit
    # relative residual (T0 + a·A + b·B) / T_pub − 1, least squares (exact with two rows)
    mat = np.stack([slope_a / published, slope_b / published], axis=1)
    rhs = 1.0 - t0 / published
    rhs = np.asarray(rhs)
    (a, b), *_ = np.linalg.lstsq(mat, rhs, rcond=None)
    if a < 0 or b < 0:
        # non-negative least squares with two unknowns: the better of the one-constant fits
        fits = []
        for j in (0, 1):
            col = mat[:, j]
            x = max(float(col @ rhs / (col @ col)), 0.0)
            fits.append((float(np.sum((col * x - rhs) ** 2)), j, x))
        _, j, x = min(fits)
        a, b = (x, 0.0) if j == 0 else (0.0, x)
    return float(a), float(b)


def checked_sets(sets, name: str = "sets") -> tuple:
    """``sets`` as a tuple of validation-set names, each a ``set`` of ``data/validation_mfu.csv``
    (``VALIDATION_SETS``, ``NEWER_SETS``, ``OUTSIDE_SETS``), checked.

    Raises
    ------
    ValueError
        ``sets`` not a list or tuple of strings, empty, or naming a set the file does not hold
        (the unknown names and the known ones listed)."""
    if isinstance(sets, str) or not isinstance(sets, (list, tuple)):
        raise ValueError(f"{name}={sets!r} must be a list or tuple of validation-set names, "
                         f"e.g. {VALIDATION_SETS[:2]}")
    if not sets or not all(isinstance(x, str) for x in sets):
        raise ValueError(f"{name}={sets!r} must name at least one validation set, each a string")
    known = set(_validation_configs()["set"])
    unknown = [x for x in sets if x not in known]
    if unknown:
        raise ValueError(f"{name}: {unknown} not a validation set of data/validation_mfu.csv "
                         f"(its sets: {', '.join(sorted(known))})")
    return tuple(sets)


def validation_configs(include_excluded: bool = False) -> pd.DataFrame:
    """``data/validation_mfu.csv``: each published run's split, micro-batch, schedule,
    recomputation, ZeRO stage, overlap and precision settings, the yes/no columns as booleans;
    the rows its ``excluded`` column gives a reason for are left out unless
    ``include_excluded`` (``excluded_configs``: a figure its own source flags as not what the
    stack does, e.g. hit by a known regression, measures no model and enters no statistic,
    band or fit; the row stays in the file with the reason, and its settings stay readable).
    Read once per process (``_validation_configs``: the file is data, fixed while it runs);
    each call gets its own copy."""
    df = _validation_configs()
    return (df if include_excluded else df[df["excluded"] == ""]).reset_index(drop=True)


def excluded_configs() -> pd.DataFrame:
    """The rows of ``data/validation_mfu.csv`` left out of ``validation_configs`` (a non-empty
    ``excluded`` column: the reason, from the row's source), as ``validation_configs`` gives
    rows, with that column."""
    df = _validation_configs()
    return df[df["excluded"] != ""].reset_index(drop=True)


@lru_cache(maxsize=1)
def _validation_configs() -> pd.DataFrame:
    """``data/validation_mfu.csv`` read, every row, ``excluded`` as text ("" where empty)."""
    df = pd.read_csv(DATA_DIR / "validation_mfu.csv")
    for col in ("sequence_parallel", "flash_attention", "dropout", "comm_pp_overlap",
                "comm_dp_overlap"):
        df[col] = df[col].astype(str).str.lower().eq("true")
    df["excluded"] = df["excluded"].fillna("").astype(str).str.strip()
    return df


def published_stack(model_name: str) -> tuple[str, str] | None:
    """The software stack a model's own published pre-training ran on: the ``stack`` of a row of
    ``data/validation_mfu.csv`` whose published run (``data/published_runs.csv``, joined on
    ``run_id``) is that catalogue model's and gives its training tokens (a whole pre-training
    run, not a benchmark of a few steps); e.g. DeepSeek-V3 on ``deepseek-hai-llm-2024``
    (DeepSeek-AI 2024, arXiv:2412.19437 §3.2: the HAI-LLM framework).

    Returns
    -------
    (stack name, the published run's label), or None when no such row names a stack.
    """
    if not isinstance(model_name, str):
        return None
    runs = load_published_runs()
    v = validation_configs()
    rows = v.merge(runs[["run_id", "model", "catalog_model", "train_tokens"]], on="run_id")
    rows = rows[(rows["catalog_model"] == model_name) & rows["train_tokens"].notna()
                & rows["stack"].notna()]
    if rows.empty:
        return None
    return str(rows["stack"].iloc[0]), str(rows["model"].iloc[0])


#: The validation sets of ``data/validation_mfu.csv`` the model is held to (its target).
VALIDATION_SETS = ("megatron21-table1", "korthikanti22-table5", "megatron21-table2",
                   "llama3-table4", "nemo-automodel-h100", "megatron21-table2-zero3",
                   "deepseek-v3-h800",
                   "nemo-automodel-h100-moe")
#: Published runs the model is known not to reproduce (kept visible, not in the target). Empty
#: since the engine models DeepSpeed's 2021 ZeRO-3 (its rows are in ``VALIDATION_SETS``: the
#: 175B rows calibrate the stack's ``fsdp_nic_aggregation``, the 530B rows are held out).
OUTSIDE_SETS = ()
#: Public end-to-end runs of the newer regimes (H100 / H200 / B200 / GB200; FSDP2 1-8B; FP8;
#: MoE; long context with CP), added with their calibration / held-out split before their
#: errors were computed: NVIDIA Megatron-Bridge's 25.11 performance tables, torchtitan's H100 and
#: H200 benchmarks, NeMo's long-sequence table, MosaicML llm-foundry's MPT throughput tables
#: (PyTorch FSDP, 125M-70B, H100 and A100); Megatron-Bridge's 26.08, 25.09 and 26.02 tables (the
#: last, one H100 MoE row: a second point of the 25.11 H100 row's recipe, added after that row's
#: error was seen and before its own was computed), 26.04 and 26.06 (every pre-training row of a
#: catalogue model and accelerator, with the recipe at the release tag), and the archive's patch
#: releases 26.02.01, 26.04.01 and 26.06.01 with the rest of 26.02 (the same rule, their recipes
#: at the patch tags v0.3.1, v0.4.2, v0.5.1), NVIDIA's DGX Cloud benchmarking recipes':
#: same-plan BF16 and FP8 pairs of 70B-405B models on H100 and GB200 (NeMo 24.11-25.04), the
#: published FP8 speed-ups at scale, and Megatron-Core's MoE README (v0.8, 2024-08): Mixtral 8x7B
#: on 64 H100, its headline 438 TFLOP/s read as its reference mapping's (the README ties them by
#: place, not in words; the VP column read as interleaving, the row's notes give the other
#: reading), held out (added after an infrastructure trial reported the prediction for its plan;
#: no constant fitted on it; out of ``MOE_HOST_FIT_SETS``). Measured and printed per regime
#: (``accuracy.regime_table``) and part of the error bands; not yet a target of the model (the
#: step-time model III's parts 1 and 2 work on them).
NEWER_SETS = ("megatron-bridge-2511", "torchtitan-h100-2412", "torchtitan-h200-2506",
              "nemo-long-sequence-h100", "llm-foundry-mpt", "megatron-bridge-2608",
              "megatron-bridge-2509", "megatron-bridge-2602", "megatron-bridge-2604",
              "megatron-bridge-2606", "megatron-bridge-260201", "megatron-bridge-260401",
              "megatron-bridge-260601", "dgxc-benchmarking", "mcore-moe-readme")
#: The validation sets whose MoE calibration rows ``moe_layer.MOE_LAYER_HOST_S`` and
#: ``MOE_EXPERT_HOST_S`` were fitted on (``calibrate_moe_host_overhead``'s default). Megatron-Bridge
#: 26.04's and 26.06's rows came after the fit: their calibration rows are priced and reported
#: with their split, not fitted on. Refitted on every set (``sets=VALIDATION_SETS + NEWER_SETS``)
#: the constants would be 1.716 ms per layer and 0.197 ms per local expert, and the engine would
#: miss the published micro-batch 1 → 4 pair (predicted 1.98× against 2.56×, tests/test_moe_layer)
#: and put a 25.09 calibration row 28 % off: the 26.04 eager rows (HybridEP on megatron-core-2025)
#: do not share the older rows' per-expert host cost, and what differs is not modelled yet.
#: The sets written after the fit are left out the same way: 26.02.01, 26.04.01, 26.06.01, and
#: 26.02, whose only row at the fit was held out (its calibration rows came with the rest of its
#: table, after the fit; the set gave the fit no row, so leaving it out changes nothing).
MOE_HOST_FIT_SETS = VALIDATION_SETS + tuple(
    s for s in NEWER_SETS if s not in ("megatron-bridge-2602", "megatron-bridge-2604",
                                       "megatron-bridge-2606", "megatron-bridge-260201",
                                       "megatron-bridge-260401", "megatron-bridge-260601",
                                       "mcore-moe-readme"))
#: Calibration rows written into a set of ``MOE_HOST_FIT_SETS`` after the constants were fitted,
#: left out of the fit as the sets written after it are (priced and reported with their split,
#: not fitted on; by the md5 rule, fixed before their errors were computed): Megatron-Bridge
#: 25.11's Qwen3-235B-A22B on 256 GB300 (BF16, HybridEP on megatron-core-2025, a stack no fitted
#: row runs) and on 256 H100 (FP8-CS, TP 2 with the experts' TP 1, the batch-level EP overlap),
#: added with the catalogue's Qwen3-235B-A22B and the plans' ``etp``.
MOE_HOST_FIT_LATER_ROWS = frozenset({"mb2511-gb300-qwen3-235b-a22b-bf16",
                                     "mb2511-h100-qwen3-235b-a22b-fp8cs"})
#: Each validation set as a reader knows it: the publication its rows come from (each row's
#: ``source`` in ``data/validation_mfu.csv`` cites it in full). Warnings and figures name a set so.
SET_TITLES = {
    "megatron21-table1": "Narayanan et al. 2021 Table 1",
    "korthikanti22-table5": "Korthikanti et al. 2022 Table 5",
    "megatron21-table2": "Narayanan et al. 2021 Table 2 (PTD-P)",
    "megatron21-table2-zero3": "Table 2, DeepSpeed ZeRO-3 (2021)",
    "llama3-table4": "Llama 3 2024 Table 4 (H100)",
    "nemo-automodel-h100": "NeMo AutoModel FSDP2 (H100)",
    "deepseek-v3-h800": "DeepSeek-V3 pre-training (H800)",
    "nemo-automodel-h100-moe": "NeMo AutoModel FSDP2 MoE (H100)",
    "megatron-bridge-2509": "NVIDIA Megatron-Bridge 25.09 performance tables",
    "megatron-bridge-2511": "NVIDIA Megatron-Bridge 25.11 performance tables",
    "megatron-bridge-2602": "NVIDIA Megatron-Bridge 26.02 performance tables",
    "megatron-bridge-2604": "NVIDIA Megatron-Bridge 26.04 performance tables",
    "megatron-bridge-2606": "NVIDIA Megatron-Bridge 26.06 performance tables",
    "megatron-bridge-2608": "NVIDIA Megatron-Bridge 26.08 performance tables",
    "megatron-bridge-260201": "NVIDIA Megatron-Bridge 26.02.01 performance tables",
    "megatron-bridge-260401": "NVIDIA Megatron-Bridge 26.04.01 performance tables",
    "megatron-bridge-260601": "NVIDIA Megatron-Bridge 26.06.01 performance tables",
    "torchtitan-h100-2412": "torchtitan's H100 benchmarks (2024-12)",
    "torchtitan-h200-2506": "torchtitan's H200 benchmarks (Trainy, 2025-06)",
    "nemo-long-sequence-h100": "NeMo's long-sequence table (H100)",
    "llm-foundry-mpt": "MosaicML llm-foundry's MPT benchmarks",
    "dgxc-benchmarking": "NVIDIA DGX Cloud benchmarking recipes (BF16 and FP8 pairs)",
    "mcore-moe-readme": "Megatron-Core's MoE README (v0.8 reference mapping)",
}


def set_title(set_id: str) -> str:
    """A validation set's publication (``SET_TITLES``), or its id when it has no title."""
    return SET_TITLES.get(str(set_id), str(set_id))


def set_titles(set_ids) -> str:
    """Several validation sets' publications in one phrase, "; "-separated in the order given,
    the releases of one publication series said once: titles "<series> <release> <rest>" that
    share series and rest (NVIDIA's Megatron-Bridge performance tables, nine releases) become
    "<series> <rest> (<release>, <release>, ...)", releases in version order, where the series
    comes first. A title of no series stays as it is (``set_title``)."""
    groups: dict = {}
    for sid in set_ids:
        title = set_title(sid)
        m = re.fullmatch(r"(\D+?) (\d+(?:\.\d+)+) (.+)", title)
        key = (m.group(1), m.group(3)) if m else title
        groups.setdefault(key, []).append(m.group(2) if m else None)
    out = []
    for key, releases in groups.items():
        if isinstance(key, str):
            out.append(key)
        elif len(releases) == 1:
            out.append(f"{key[0]} {releases[0]} {key[1]}")
        else:
            order = sorted(set(releases), key=lambda r: tuple(int(x) for x in r.split(".")))
            out.append(f"{key[0]} {key[1]} ({', '.join(order)})")
    return "; ".join(out)


#: What ``KERNEL_EFFICIENCY`` is fitted on (``calibrate_kernel_efficiency``): per-layer times, not
#: an MFU; rows of ``data/validation_mfu.csv`` with ``split = calibration`` share its layer.
CALIBRATION_SET = "korthikanti22-table4 (per-layer forward/backward times, 22B layer, 8 A100s)"


def parallelism_kind(zero_stage: int, cp: int, ep: int, is_moe: bool) -> str:
    """The parallelism regime of a plan, as the error band groups plans: ``"moe"`` (an MoE model
    or ep > 1, whatever its ZeRO stage: the expert all-to-all dominates such plans' error, as
    NeMo AutoModel's FSDP2 MoE rows show), ``"zero3"`` (ZeRO-3 / FSDP of a dense model),
    ``"cp"`` (context parallel), otherwise ``"tp-pp-dp"`` (Megatron-style TP, PP and DP with
    ZeRO 0-2)."""
    if is_moe or ep > 1:
        return "moe"
    if zero_stage == 3:
        return "zero3"
    if cp > 1:
        return "cp"
    return "tp-pp-dp"


@disk_cached
def mfu_validation(kernel_efficiency: float | None = None, sets=VALIDATION_SETS,
                   physics: dict | None = None, moe_host: tuple | None = None) -> pd.DataFrame:
    """Predicted vs reported MFU for published runs (computed once per code, data and arguments:
    ``core.diskcache.disk_cached``; it does not depend on a scenario).

    Rows: ``data/validation_mfu.csv`` (each run's split, micro-batch, schedule, recomputation,
    ZeRO stage, overlap and precision settings, with sources) joined on ``run_id`` to
    ``data/published_runs.csv`` (one id space: model shape, GPUs, TP, PP, DP, CP, global batch,
    reported figures). Sets: Narayanan et al. 2021 Table 1 (``megatron21-table1``) and
    Table 2's PTD-P rows (``megatron21-table2``, interleaving assumed), Korthikanti et al. 2022
    Table 5 (``korthikanti22-table5``), Llama 3 Table 4 (``llama3-table4``, H100, the catalogue's
    Llama 3.1 405B), NeMo AutoModel's H100 BF16 table (``nemo-automodel-h100``: Llama 3 70B with
    PyTorch FSDP2 and CP 2; ``nemo-automodel-h100-moe``: DeepSeek V3 on 1,024 and 256 GPUs, Kimi
    K2 on 256, Qwen3 30B-A3B on 8, FSDP2 with EP and a fake balanced gate; tokens/s converted to
    MFU on the workbook's basis), DeepSeek-V3's pre-training (``deepseek-v3-h800``) and, only when
    Table 2's DeepSpeed ZeRO-3 rows (``megatron21-table2-zero3``, the ``deepspeed-zero3-2021``
    stack). ``split`` is ``calibration`` for the row whose layer is ``CALIBRATION_SET``'s
    (Korthikanti's 22B) and for the three 175B ZeRO-3 rows (on which the stack's one data-chosen
    setting, ``fsdp_nic_aggregation = false``, was chosen), ``held-out`` otherwise.

    **Convention.** Narayanan et al. report "% of peak" with their Eq. 3, which counts the
    recomputed forward pass (full recomputation: the 96-form of Narayanan et al. 2021, Eq. 3),
    i.e. an HFU. It is converted to the workbook's MFU basis exactly: reported MFU = TFLOP/s ÷
    312 × model FLOPs ÷ hardware FLOPs (72-form ÷ 96-form, from ``ModelSpec.flops_per_token``),
    so the relative error is the same on either basis. The TFLOP/s column is used (the % column
    is rounded to whole percent). Korthikanti et al. report MFU on the same basis as this
    workbook (their Eq. 7 = ``flops_per_token(causal=False)``). **One basis for every row: the
    TFLOP/s column where one is published** (``metric`` ``hfu_full`` or ``tflops``: TFLOP/s ÷
    the dense BF16 peak, 312 for A100, 989.4 for H100), since the percentages are rounded; the
    MFU column only where no TFLOP/s is given (Korthikanti's Table 5, one decimal). Llama 3
    Table 4 gives both (430/400/380 TFLOP/s, 43/41/38%): its TFLOP/s give 43.5/40.4/38.4%. Llama 3
    does not state its FLOP count: its TFLOP/s are taken as published (``causal_basis_mfu``
    gives the value it would have if Meta counted a causal mask: the same TFLOP/s over fewer
    FLOPs per token are more tokens/s, reported × full ÷ causal FLOPs). NeMo AutoModel
    publishes tokens/s and model TFLOP/s on its own (causal) count:
    ``reported`` is its TFLOP/s ÷ peak (as published), ``reported_mfu`` its tokens/s on the
    workbook's full-mask count.

    ``physics``: ``PHYSICS_OPTIONS`` applied to every row over the row's and its stack's
    settings (a what-if, e.g. ``{"moe_dispatch": "per_expert", "pipeline_flushes": 1}`` prices
    the MoE rows without the per-node dispatch and per-step flush features); None: the rows as sourced.
    ``moe_host``: ``(layer_s, expert_s)`` replacing the fitted MoE host-cost constants, each row's
    stack paying them as it pays the shipped ones (``options.stack_moe_host_s``: none under a
    full-iteration CUDA graph); a re-fit under another engine setting
    (``calibrate_moe_host_overhead(physics=...)``). None: the shipped constants.

    A row whose engine inputs an earlier call in this process priced (another ``physics`` that
    leaves them unchanged) takes that step (``_KEPT_STEPS``): the same figures, not priced twice.

    ``split``: ``held-out`` means **not used to fit ``KERNEL_EFFICIENCY``** (which is fitted to
    Korthikanti's per-layer times only); it does not mean unseen: the shipped constants and the
    regression pins were written with these rows' errors in view.

    Returns
    -------
    DataFrame: ``run_id``, ``set``, ``split``, ``stack`` (the row's software-stack profile;
    the row's own sourced settings override its "auto" options), ``model``, ``accelerator``,
    ``generation``,
    ``kind`` (``parallelism_kind``), ``params``, ``n_gpus``, ``plan``, ``reported`` (as
    published, fraction of peak), ``reported_metric``, ``reported_mfu``, ``causal_basis_mfu``,
    ``predicted_mfu``, ``predicted_hfu``, ``error`` ((predicted − reported) / reported, MFU
    basis; ``causal_basis_mfu`` differs from ``reported_mfu`` for rows whose ``flop_basis`` is
    ``unstated``), ``zero_stage``, ``cp``, ``ep``, ``is_moe``, ``seq_len`` (the plan's, for the
    regime), ``moe_gate`` and ``pipeline_flushes`` (the values priced: the row's, or
    ``physics``'s where it sets them), ``step_time_s`` and its parts (one column per ``PARTS`` entry, seconds per step).
    """
    return _validation_table(checked_sets(sets), physics, kernel_efficiency, moe_host)


def _validation_table(sets, physics: dict | None = None, kernel_efficiency=None,
                      moe_host: tuple | None = None, rows=None) -> pd.DataFrame:
    """``mfu_validation``'s table, computed; ``rows``: only the rows of these run ids (None:
    every row of ``sets``), each priced as in the whole table (a row depends on itself only)."""
    over = _check_physics(dict(physics or {}))
    cfg = validation_configs()
    cfg = cfg[cfg["set"].isin(list(sets))]
    if rows is not None:
        cfg = cfg[cfg["run_id"].isin(list(rows))]
    runs = load_published_runs().set_index("run_id")
    return pd.DataFrame([_validation_row(c, r, over, kernel_efficiency, moe_host, keep=True)
                         for c, r in _config_run_rows(cfg, runs)])


def _config_run_rows(cfg: pd.DataFrame, runs: pd.DataFrame):
    """Each row of ``cfg`` (``validation_configs``) and its run in ``runs`` (published runs
    indexed by ``run_id``) as dicts of column -> value, the values ``cfg.iterrows()`` and
    ``runs.loc[run_id]`` give: the row readers (``row_model``, ``row_plan``, ``row_options``,
    ``_validation_row``) read a dict as they read a Series, without pandas' per-element
    lookup."""
    cols = list(cfg.columns)
    run_cols = {k: runs[k].to_numpy() for k in runs.columns}
    at = {rid: i for i, rid in enumerate(runs.index)}
    for vals in cfg.to_numpy(dtype=object):
        c = dict(zip(cols, vals))
        i = at[c["run_id"]]
        yield c, {k: a[i] for k, a in run_cols.items()}


def mfu_validation_on(accelerator: str | None, run_ids, stack: str | None = None) -> pd.DataFrame:
    """The rows ``run_ids`` of ``mfu_validation`` priced on another catalogue ``accelerator``
    and / or software ``stack`` (None: the row's own). A what-if: which device or stack a run
    is priced on; e.g. torchtitan's 2024-12 rows, run on power-capped 96 GB H100s
    (``H100-96GB-500W``), priced on the 700 W ``H100-SXM``, or llm-foundry's 2023-10 rows (Triton
    FlashAttention, ``llm-foundry-2023``) priced with FlashAttention-2 (``pytorch-fsdp2-2024``).
    Both MFUs are on the device's dense BF16 peak, so ``error`` is the ratio of predicted to
    published tokens/s, whatever the device. Columns as ``mfu_validation``'s.

    Computed once per code, data and arguments (``core.diskcache.disk_cached``: no scenario
    enters it).

    Raises
    ------
    ValueError
        An accelerator or stack not in the catalogue, or a run id that is not a validation row.
    """
    if accelerator is not None:
        load_accelerator(accelerator)
    if stack is not None:
        load_stack(stack)
    ids = tuple(str(i) for i in run_ids)  # a tuple of names: its repr is the whole key
    cfg = validation_configs().set_index("run_id", drop=False)
    missing = sorted(set(ids) - set(cfg.index))
    if missing:
        raise ValueError(f"run_ids {missing} are not validation rows (data/validation_mfu.csv)")
    return _mfu_validation_on(accelerator, ids, stack)


@disk_cached
def _mfu_validation_on(accelerator: str | None, ids: tuple, stack: str | None) -> pd.DataFrame:
    """``mfu_validation_on`` once its arguments are checked."""
    cfg = validation_configs().set_index("run_id", drop=False)
    runs = load_published_runs().set_index("run_id")
    rows = []
    for rid in ids:
        r, c = runs.loc[rid].copy(), cfg.loc[rid].copy()
        if accelerator is not None:
            r["catalog_accelerator"] = accelerator
        if stack is not None:
            c["stack"] = stack
        rows.append(_validation_row(c, r, {}, None, keep=True))
    return pd.DataFrame(rows)


def _check_physics(options: dict) -> dict:
    """Check the names of ``step.PHYSICS_OPTIONS`` passed to ``mfu_validation``."""
    bad = sorted(set(options) - set(PHYSICS_OPTIONS))
    if bad:
        raise ValueError(f"unknown step-time option(s) {bad}; choose from "
                         f"{STEP_OPTIONS}")
    return options


def row_model(c: pd.Series, r: pd.Series, s: int) -> ModelSpec:
    """The model of a validation row (``c`` a row of ``validation_configs``, ``r`` its run in
    ``data/published_runs.csv``, ``s`` the sequence length): the catalogue's, or Megatron-LM's
    GPT of the run's shape (``gpt_model``). A number in the row's ``mtp_depth`` column sets
    the multi-token-prediction modules the run trained (0: a run without MTP of a model whose
    catalogue entry has it); empty keeps the catalogue's."""
    if c["model_spec"] == "catalog":
        model = load_model(r["catalog_model"])
        mtp = c.get("mtp_depth", np.nan)
        return model if not np.isfinite(mtp) else model.replace(mtp_depth=int(mtp))
    return gpt_model(c["run_id"], int(r["layers"]), int(r["d_model"]), int(r["n_heads"]),
                     int(r["vocab"]) if np.isfinite(r["vocab"]) else 51200, s)


def row_plan(c: pd.Series, r: pd.Series, model: ModelSpec, s: int) -> ParallelPlan:
    """The ``ParallelPlan`` of a validation row (``make_plan`` with the run's TP, PP, CP, EP,
    the experts' TP ``etp``, global batch and the row's micro-batch, interleaving,
    recomputation, SP and ZeRO stage)."""
    v = int(c["pp_virtual_stages"])
    cp = int(r["cp"]) if np.isfinite(r["cp"]) else 1
    ep = int(r["ep"]) if np.isfinite(r["ep"]) else 1
    etp = r.get("etp", np.nan)        # the experts' TP (1: MoE parallel folding); empty: tp
    return make_plan(model, int(r["n_accelerators"]), int(r["global_batch_tokens"]) // s,
                     tp=int(r["tp"]), pp=int(r["pp"]), cp=cp, ep=ep,
                     micro_batch_size=int(c["micro_batch_size"]),
                     virtual_stages=v, schedule="interleaved" if v > 1 else "1f1b",
                     recompute=c["recompute"], sequence_parallel=bool(c["sequence_parallel"]),
                     zero_stage=int(c["zero_stage"]), seq_len=s, pp_split=c["pp_split"],
                     etp=int(etp) if np.isfinite(etp) else None)


#: The FP8 scaling recipe each FP8 validation set ran (``StepOptions.fp8_recipe``, the casts
#: ``fp8_as_run`` prices): torchtitan's Float8 is torchao's tensorwise dynamic scaling, per-tensor
#: current scaling (pytorch/torchtitan benchmarks page, "Float8" with torchao eab345c);
#: llm-foundry's ``amp_fp8`` and NeMo 24.03 run Transformer Engine's default recipe of their
#: time, ``DelayedScaling`` (Composer's ``fp8_autocast``; Transformer Engine before 2.0 had no
#: other). llm-foundry's H100 FP8 rows: ``submit_benchmarks.py`` at b2a43a147 (2023-10-19, the
#: commit that wrote the tables) installs Transformer Engine v0.10 and sets ``fc_type: te``, so
#: the four linear layers of each block (``Wqkv``, ``out_proj``, ``up_proj``, ``down_proj``:
#: ``FC_CLASS_REGISTRY['te'] = te.Linear``, ``llmfoundry/models/layers/fc.py``) run in FP8 with
#: their norms unfused (each GEMM input cast by its own kernel, as priced) and the tied LM
#: head (``F.linear`` on the embedding) in BF16, as ``fp8_as_run`` prices it; Composer's
#: ``amp_fp8`` recipe is ``DelayedScaling(Format.HYBRID, amax_history_len=16,
#: amax_compute_algo='max')`` (``composer/core/precision.py`` at 02c872e43, a later commit); DeepSeek-V3 its 1×128 / 128×128 block scaling (arXiv:2412.19437 §3.3.2).
#: Megatron-Bridge's tables give each row's precision, FP8-CS (current scaling) or FP8-MX
#: (MXFP8), kept in the row's id (``…-fp8cs``, ``…-fp8mx`` / ``…-mxfp8``): ``row_fp8_recipe``.
FP8_RECIPE_OF_SET = {"torchtitan-h100-2412": "current", "torchtitan-h200-2506": "current",
                     "llm-foundry-mpt": "delayed", "nemo-long-sequence-h100": "delayed",
                     "deepseek-v3-h800": "blockwise", "dgxc-benchmarking": "delayed"}


def row_fp8_recipe(c: pd.Series) -> str:
    """The FP8 recipe of a validation row (``FP8_RECIPE_OF_SET``; a Megatron-Bridge row's by its
    table's FP8-CS / FP8-MX precision, in its id); ``"current"`` where no set says."""
    if str(c["set"]).startswith("megatron-bridge"):
        return "mxfp8" if str(c["run_id"]).endswith(("fp8mx", "mxfp8")) else "current"
    return FP8_RECIPE_OF_SET.get(str(c["set"]), "current")


#: What a validation row measures, for ``calibration_twins``: the system, the model, the
#: precision (``dtype``, and for FP8 ``row_fp8_recipe``), the GPUs, the plan (TP, PP, CP, EP,
#: micro-batch, virtual stages) and the batch (global batch tokens, sequence length); not the
#: release, its stack or its recipe's other settings, which is what a re-measurement changes.
CONFIGURATION_KEY = ("catalog_accelerator", "model", "precision", "n_accelerators", "tp", "pp",
                     "cp", "ep", "global_batch_tokens", "seq_len", "micro_batch_size",
                     "pp_virtual_stages")

#: Held-out rows whose priced plan was corrected, from the published table's plan columns to the
#: plan of the release's recipe, after their error under the table's plan had been seen (each
#: row's notes in data/validation_mfu.csv give the sources; only rows with large errors were
#: re-read so): run id -> the correction.
PLAN_CORRECTED_AFTER_ERROR = {
    "mb2511-h100-qwen3-30b-a3b-fp8cs": "table MBS 2, VP 24 -> the dropless recipe's MBS 1, VP 12",
    "mb260201-h100-qwen3-30b-a3b-fp8cs": "table PP 2, VP 12, EP 8 -> the v0.3.1 recipe's PP 1, "
                                         "EP 16",
    "mb260201-gb300-llama-3.1-70b-mxfp8": "table MBS 2, no VP -> the v0.3.1 recipe's MBS 1, VP 5",
    "mb260201-gb300-llama-3.1-405b-fp8cs": "table TP 2, CP 2 -> the v0.3.1 recipe's TP 4, CP 1",
}


def row_configuration(c, r) -> tuple:
    """A validation row's ``CONFIGURATION_KEY`` (``c`` its row of ``validation_configs``, ``r``
    its run in ``data/published_runs.csv``): a run id's measurement, whatever its release. CP and
    EP empty count as 1; the model is the catalogue's, or the run's label for a model built from
    its shape."""
    def whole(x):
        return 1 if x is None or (isinstance(x, float) and not np.isfinite(x)) else int(x)

    model = r["catalog_model"] if isinstance(r["catalog_model"], str) else r["model"]
    precision = str(c["dtype"]) + ("-" + row_fp8_recipe(c) if c["dtype"] == "fp8" else "")
    return (str(r["catalog_accelerator"]), str(model), precision, whole(r["n_accelerators"]),
            whole(r["tp"]), whole(r["pp"]), whole(r["cp"]), whole(r["ep"]),
            whole(r["global_batch_tokens"]), whole(r["seq_len"]), whole(c["micro_batch_size"]),
            whole(c["pp_virtual_stages"]))


def calibration_twins() -> pd.DataFrame:
    """The held-out rows of ``validation_configs`` that have a calibration twin: a calibration
    row of the same ``row_configuration`` (the same system, model, precision, GPUs, plan and
    batch), e.g. the same Megatron-Bridge table line re-measured at another release. The split
    is by row (md5 of the run id), not by configuration, so such a held-out row is not
    independent of the calibration rows its constants were written with.

    Returns
    -------
    DataFrame indexed by the held-out rows' ``run_id``: ``twins`` (the calibration twins' run
    ids, "; "-separated, "" for none), ``has_twin``, and ``plan_corrected_after_error``
    (``PLAN_CORRECTED_AFTER_ERROR``'s correction, "" for none).
    """
    cfg = validation_configs()
    runs = load_published_runs().set_index("run_id")
    key = {rid: row_configuration(c, runs.loc[rid]) for rid, c in
           zip(cfg["run_id"], cfg.to_dict("records"))}
    cal = {}
    for rid in cfg.loc[cfg["split"] == "calibration", "run_id"]:
        cal.setdefault(key[rid], []).append(rid)
    held = cfg.loc[cfg["split"] == "held-out", "run_id"]
    twins = ["; ".join(sorted(cal.get(key[rid], []))) for rid in held]
    return pd.DataFrame({"twins": twins, "has_twin": [t != "" for t in twins],
                         "plan_corrected_after_error": [PLAN_CORRECTED_AFTER_ERROR.get(rid, "")
                                                        for rid in held]},
                        index=pd.Index(held, name="run_id"))


#: Validation sets whose runs exchanged K and V for context parallelism by one all-gather before
#: the attention (``StepOptions.cp_overlap=False``) whatever their stack profile: Llama 3's
#: (arXiv:2407.21783 §3.3.2: "we first all-gather the key (K) and value (V) tensors, and then
#: compute attention output for the local query (Q) tensor chunk"; its rows are priced on the
#: default Megatron-Core profile, whose CP is Transformer Engine's overlapped ring).
CP_ALL_GATHER_SETS = frozenset({"llama3-table4"})

#: Validation sets whose runs call SDPA with the GQA K/V heads under PyTorch's context
#: parallelism (``StepOptions.cp_repeat_kv=False``) where their stack profile (torchtitan's
#: ``pytorch-fsdp2-2024``) repeats them: NeMo AutoModel's Llama 3 70B with CP 2 runs its own
#: SDPA attention (``backend.attn: sdpa``, the benchmark's
#: ``examples/llm_pretrain/llama3_1_70b_pretrain_benchmark_8nodes_tp1cp2pp1_0410.yaml``), which
#: passes ``enable_gqa`` with the model's GQA groups and no mask
#: (``nemo_automodel/components/attention/utils.py`` ``initialize_attn_module_and_func``,
#: NVIDIA-NeMo/Automodel@0d693e8, a later commit than the benchmark's). Recorded after that row
#: was seen priced with the repeated heads (-8.2 % against -4.6 % without PyTorch's ring).
CP_GQA_SDPA_SETS = frozenset({"nemo-automodel-h100"})

#: Validation sets whose runs compiled the blocks that hold PyTorch's context-parallel ring
#: (``StepOptions.cp_ring_compiled``: its exchanges exposed, ``step.torch_ring_exposure``):
#: torchtitan's 2024-12 table of CP runs is "FSDP + CP + torch.compile + Float8" (Table 2 of
#: pytorch/torchtitan@31a17bfd ``benchmarks/llama3_h100_202412_torchtitan.md``), and
#: torchtitan@9dec370 compiles each TransformerBlock with ``fullgraph=True``
#: (``torchtitan/parallelisms/parallelize_llama.py`` ``apply_compile``); NeMo AutoModel's CP row
#: runs eager (``enable_compile: False``). Recorded after the torchtitan CP 4 / CP 8 rows were
#: seen optimistic (+29 % / +35 %); nothing is fitted.
CP_COMPILED_SETS = frozenset({"torchtitan-h100-2412"})

#: Validation sets whose runs shard with PyTorch's FSDP1 (``FullyShardedDataParallel``) whatever
#: their stack profile (``StepOptions.fsdp_copies=False``): llm-foundry's MPT tables ran
#: Composer's FSDP (``fsdp_config`` ``sharding_strategy: FULL_SHARD``, the README's "Sharding
#: Strategy" column; mosaicml/composer ``composer/distributed/mosaic_parallelism.py``
#: ``SHARDING_MAP`` → ``torch.distributed.fsdp.ShardingStrategy``), including the 2024-01 rows
#: priced on ``pytorch-fsdp2-2024`` for their FlashAttention-2. FSDP1 all-gathers into the flat
#: parameter's own storage and views the parameters in it (no copy-out) and casts the gradients
#: to the reduce dtype on its post-backward stream, overlapped (``options.FSDP_COPIES_STACKS``).
FSDP1_SETS = frozenset({"llm-foundry-mpt"})

#: Validation sets whose runs call FlashAttention through llm-foundry's ``flash_attn_fn``, which
#: removes the padding from Q, K and V and puts it back into the output around a variable-length
#: kernel call (``StepOptions.attention_unpad``, ``elementwise.unpadded_attention_bytes``): the
#: rows of these sets priced with FlashAttention-2 (``UNPADDED_FLASH_STACKS``), the 2024-01 sweep's
#: ``--attn_impl flash`` runs (mosaicml/llm-foundry@5e85bd62d ``scripts/train/benchmarking/
#: sweep.py``: 1b, 3b, 7b and 70b; 13b and 30b ran ``triton``, whose ``triton_flash_attn_fn``
#: takes the padded tensors, as did every 2023-10 row, ``llm-foundry-2023``). Recorded after
#: those held-out rows were seen optimistic (1B, 3B and 7B +19 % to +28 %, 70B +2 % to +4 %);
#: nothing is fitted.
UNPADDED_FLASH_SETS = frozenset({"llm-foundry-mpt"})
UNPADDED_FLASH_STACKS = frozenset({"pytorch-fsdp2-2024"})


def row_attention_unpad(c) -> bool:
    """Whether a validation row's run removes the padding around its FlashAttention call
    (``UNPADDED_FLASH_SETS`` on ``UNPADDED_FLASH_STACKS``)."""
    return c["set"] in UNPADDED_FLASH_SETS and c.get("stack") in UNPADDED_FLASH_STACKS


#: Validation sets whose full recomputation stops before each block's last GEMM
#: (``StepOptions.recompute_early_stop``): llm-foundry's MPT tables ran Composer's
#: ``activation_checkpointing`` with ``activation_checkpointing_reentrant: false``
#: (scripts/train/yamls/pretrain/mpt-*.yaml at b2a43a147 and at 5e85bd62d), which Composer turns
#: into ``checkpoint_wrapper(module, checkpoint_impl=CheckpointImpl.NO_REENTRANT)`` around each
#: ``MPTBlock`` (mosaicml/composer v0.16.4 ``composer/trainer/dist_strategy.py``
#: ``prepare_fsdp_module``; ``MPTForCausalLM.activation_checkpointing_fn``: ``isinstance(module,
#: MPTBlock)``), on PyTorch 2.1: the 2023-10 sweep's image ``mosaicml/pytorch:2.1.0_cu121``
#: (``scripts/train/benchmarking/sweep.sh`` at b2a43a147, ``--image $IMAGE``), the 2024-01
#: sweep on llm-foundry main with ``torch>=2.1,<2.1.1`` (setup.py at 5e85bd62d). PyTorch 2.1's
#: non-reentrant checkpoint stops the recomputation once every saved tensor is rebuilt; an
#: ``MPTBlock`` ends ``x + ffn(norm_2(x))`` with ``ffn = down_proj(act(up_proj(x)))``
#: (llmfoundry/models/layers/blocks.py and ffn.py at b2a43a147), so the down projection is not
#: re-run. Not the rows of ``EARLY_STOP_EXCLUDED_ROWS``. Read after the rows' errors by
#: checkpointing were seen (the checkpointed rows ~20 points below the others); nothing is
#: fitted. A candidate, off by default (``mfu_validation(physics={"recompute_early_stop":
#: True})`` turns it on for these rows only): it fails the project's rule
#: (``accuracy.early_stop_comparison``, ``benchmarks/validate_mfu.py`` item 22).
EARLY_STOP_SETS = frozenset({"llm-foundry-mpt"})

#: Rows of ``EARLY_STOP_SETS`` that ran before PyTorch 2.1: llm-foundry's A100-80GB 70B rows
#: (``mixed_precision`` PURE) are in the README since 300cc5c58 (2023-05-03) with the same
#: figures, from the 2023-05 sweep (sweep.sh at c6cfb4284: ``IMAGE=
#: "mosaicml/pytorch:1.13.1_cu117-python3.10-ubuntu20.04"``); PyTorch 1.13's non-reentrant
#: checkpoint re-runs the whole function (no early stop).
EARLY_STOP_EXCLUDED_ROWS = frozenset({"foundry-a100-mpt-70b-s2048-64gpu-bf16",
                                      "foundry-a100-mpt-70b-s2048-32gpu-bf16"})


def row_early_stop(c) -> bool:
    """Whether a validation row's full recomputation stops early (``EARLY_STOP_SETS`` less
    ``EARLY_STOP_EXCLUDED_ROWS``)."""
    return c["set"] in EARLY_STOP_SETS and str(c["run_id"]) not in EARLY_STOP_EXCLUDED_ROWS


#: The MoE routing each validation set ran where it is not the stack's (``StepOptions.moe_routing``,
#: ``moe_capacity_factor``): Megatron-Bridge 25.09's '(tokendrop)' rows drop tokens past a capacity
#: factor of 1.0 and pad every expert's input to that capacity (scripts/performance/run_script.py
#: at fa0315ae2 applies ``apply_moe_token_drop``: ``moe_expert_capacity_factor = 1.0``,
#: ``moe_pad_expert_input_to_capacity = True``); the other sets run their stack's routing.
MOE_ROUTING_OF_SET = {"megatron-bridge-2509": ("capacity", 1.0)}

#: Rows whose run overlapped the expert all-to-all with another micro-batch's compute
#: (``StepOptions.ep_overlap``) where their stack profile does not: Megatron-Bridge's
#: Qwen3-30B-A3B on 16 H100 (FP8-CS), 25.11 and 26.02 (the 26.02 recipe at v0.3.0 = 21b02e0cf,
#: scripts/performance/configs/qwen/qwen3_workload_base_configs.py
#: ``QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_FP8_CS_V1``: ``moe_a2a_overlap=True`` too). The 25.11 recipe sets ``moe_a2a_overlap=True``
#: (NVIDIA-NeMo/Megatron-Bridge at the 25.11 release tag v0.2.0 = 7af9601c9:
#: scripts/performance/configs/qwen3/workload_base_configs.py
#: ``QWEN3_30B_A3B_H100_FP8_CS_BASE_CONFIG``; at the table's commit 97ad8cc6f, with the same
#: content: scripts/performance/configs/qwen/qwen3_workload_base_configs.py
#: ``QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_FP8_CS_BASE_CONFIG``), which
#: ``scripts/performance/utils/overrides.py`` ``_set_moe_a2a_overlap_overrides`` turns into
#: ``overlap_moe_expert_parallel_comm = True`` and ``delay_wgrad_compute = True``:
#: Megatron-Core's batch-level overlap, ``"merged_1f1b"``. Its other 25.11 and 25.09 rows ran
#: without it (their recipes: ``moe_a2a_overlap`` False or unset; the 25.09 run_script.py at
#: fa0315ae2 sets the overlap for DeepSeek-V3 on H100 only). Recorded, with the recipe's plan
#: (the row's notes), after seeing the row's error as its table states it (+71 %):
#: ``MB2511_H100_TABLE_READINGS`` prices that reading beside it. Megatron-Bridge 26.04's GPT-OSS
#: 120B on 64 GB200 (BF16, HybridEP, eager): ``GPT_OSS_120B_PRETRAIN_CONFIG_GB200_BF16_V2`` in
#: scripts/performance/configs/gpt_oss/gpt_oss_workload_base_configs.py at v0.4.0 = 0fbfe7d3e
#: sets ``moe_a2a_overlap=True`` (recorded with the row, before its error was computed; the
#: 26.06 rows with the overlap run a full-iteration graph, whose stack has it). Recorded with
#: their rows, before their errors were computed: 26.04.01's GPT-OSS 120B on 64 GB200
#: (``GPT_OSS_120B_PRETRAIN_CONFIG_GB200_BF16_V2`` at v0.4.2 = c81012934: ``moe_a2a_overlap=True``,
#: no flex backend) and DeepSeek-V3 on 256 B200 (``DEEPSEEK_V3_PRETRAIN_CONFIG_B200_FP8_MX_V2`` at
#: v0.4.2: DeepEP with ``moe_a2a_overlap=True``). Not 26.02.01's Qwen3-30B-A3B on 16 H100: its
#: table repeats 26.02's plan columns (PP 2, VP 12, EP 8), but the recipe at its release tag
#: v0.3.1 = 9c9dd8489 (``QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_FP8_CS_V1``) is PP 1, EP 16, HybridEP,
#: ``moe_a2a_overlap=False``, and the row prices that (its notes). Recorded with their rows, before
#: their errors were computed: 25.11's Qwen3-235B-A22B on 256 H100 (FP8-CS) and 64 B200 (FP8-MX),
#: ``QWEN3_235B_A22B_PRETRAIN_CONFIG_H100_FP8_CS_BASE_CONFIG`` and
#: ``QWEN3_235B_A22B_PRETRAIN_CONFIG_B200_FP8_CS_BASE_CONFIG`` (= ``..._FP8_MX_...``) in
#: scripts/performance/configs/qwen/qwen3_workload_base_configs.py at 5776a6d90 (the table's
#: reading; at v0.2.0 the same settings in scripts/performance/configs/qwen3/
#: workload_base_configs.py, ``QWEN3_235B_A22B_{H100,B200}_FP8_CS_BASE_CONFIG``):
#: ``moe_a2a_overlap=True``, added with the dropless recipes (cb62f8620).
EP_OVERLAP_OF_ROW = {"mb2511-h100-qwen3-30b-a3b-fp8cs": "merged_1f1b",
                     "mb2511-h100-qwen3-235b-a22b-fp8cs": "merged_1f1b",
                     "mb2511-b200-qwen3-235b-a22b-fp8mx": "merged_1f1b",
                     "mb2602-h100-qwen3-30b-a3b-fp8cs": "merged_1f1b",
                     "mb2604-gb200-gpt-oss-120b-bf16": "merged_1f1b",
                     "mb260401-gb200-gpt-oss-120b-bf16": "merged_1f1b",
                     "mb260401-b200-deepseek-v3-mxfp8": "merged_1f1b"}


#: Rows whose run computed the attention core in FP8 (``StepOptions.fp8_attention``:
#: ``mixed_precision.fp8_dot_product_attention = True``, under the MXFP8 recipe Transformer
#: Engine's MXFP8 attention), from their recipes. Megatron-Bridge 26.08 (perf recipes at
#: 067f987df): ``src/megatron/bridge/perf_recipes/qwen/common.py``
#: ``_enable_hybridep_full_iteration_mxfp8`` (Qwen3-30B-A3B and Qwen3-235B-A22B MXFP8 on GB200
#: and GB300), ``gpt_oss/common.py`` ``_apply_gpt_oss_120b_full_iter_fp8mx_configs`` (GPT-OSS
#: 120B MXFP8 on GB200 and GB300), ``deepseek/gb300/deepseek_v3.py``
#: ``deepseek_v3_pretrain_256gpu_gb300_fp8mx_config`` (``_enable_deepseek_full_iteration_mxfp8(cfg,
#: fp8_dot_product_attention=True, ...)``; its GB200 recipe leaves the default, False).
#: Megatron-Bridge 26.06 (v0.5.0, ``scripts/performance/configs``): ``fp8_dot_product_attention=
#: True`` in ``QWEN3_30B_A3B_PRETRAIN_CONFIG_GB{200,300}_FP8_MX_V1``,
#: ``QWEN3_235B_A22B_PRETRAIN_CONFIG_GB{200,300}_FP8_MX_V2``,
#: ``GPT_OSS_120B_PRETRAIN_CONFIG_GB{200,300}_FP8_MX_V2`` and
#: ``DEEPSEEK_V3_PRETRAIN_CONFIG_GB300_FP8_MX_V1`` (whence ``_V2`` and ``_GBS15360``), not in
#: ``DEEPSEEK_V3_PRETRAIN_CONFIG_GB200_FP8_MX_V1``. Recorded after the rows' errors were seen
#: (the gpt-oss rows' +28 % to +35 %); the rows' other settings are their stack's.
#: Megatron-Bridge 26.06.01 (v0.5.1 = 5cb3444c4, the same configs):
#: ``fp8_dot_product_attention=True`` in the same six Qwen3 and GPT-OSS configs and in
#: ``DEEPSEEK_V3_PRETRAIN_CONFIG_GB300_FP8_MX_V2``, not in
#: ``DEEPSEEK_V3_PRETRAIN_CONFIG_GB200_FP8_MX_V2``; recorded with the rows, before their errors
#: were computed.
FP8_ATTENTION_OF_ROW = frozenset({
    "mb2608-gb200-qwen3-30b-a3b-mxfp8", "mb2608-gb300-qwen3-30b-a3b-mxfp8",
    "mb2608-gb200-qwen3-235b-a22b-mxfp8", "mb2608-gb300-qwen3-235b-a22b-mxfp8",
    "mb2608-gb200-gpt-oss-120b-mxfp8", "mb2608-gb300-gpt-oss-120b-mxfp8",
    "mb2608-gb300-deepseek-v3-mxfp8",
    "mb2606-gb200-qwen3-30b-a3b-mxfp8", "mb2606-gb300-qwen3-30b-a3b-mxfp8",
    "mb2606-gb200-qwen3-235b-a22b-mxfp8", "mb2606-gb300-qwen3-235b-a22b-mxfp8",
    "mb2606-gb200-gpt-oss-120b-mxfp8", "mb2606-gb300-gpt-oss-120b-mxfp8",
    "mb2606-gb300-deepseek-v3-mxfp8", "mb2606-gb300-deepseek-v3-gbs15360-mxfp8",
    "mb260601-gb200-qwen3-30b-a3b-mxfp8", "mb260601-gb300-qwen3-30b-a3b-mxfp8",
    "mb260601-gb200-qwen3-235b-a22b-mxfp8", "mb260601-gb300-qwen3-235b-a22b-mxfp8",
    "mb260601-gb200-gpt-oss-120b-mxfp8", "mb260601-gb300-gpt-oss-120b-mxfp8",
    "mb260601-gb300-deepseek-v3-mxfp8"})


def row_options(c: pd.Series, kernel_efficiency=None) -> StepOptions:
    """The ``StepOptions`` of a validation row: its recipe, FlashAttention, dropout, overlaps,
    stack and dtype, its CP exchange (``CP_ALL_GATHER_SETS``, ``CP_GQA_SDPA_SETS``,
    ``CP_COMPILED_SETS``), its unpadded FlashAttention (``row_attention_unpad``), its EP overlap
    (``EP_OVERLAP_OF_ROW``);
    the benchmark's gate and its pipeline schedules per optimizer step (GA),
    from the row's source; a learned gate and one schedule per step where the column is
    empty; its FSDP backward prefetch order (column ``fsdp_backward_prefetch``, "pre" or
    "post", from the row's source; empty: the stack's, ``stacks.stack_backward_prefetch``) and
    whether FSDP frees a unit's gathered weights after its forward (column
    ``fsdp_reshard_after_forward``, "false" for PyTorch FSDP's SHARD_GRAD_OP, which keeps them
    through the backward; empty: the stack's, ``StepOptions.fsdp_reshard_after_forward``)."""
    dtype = c["dtype"] if isinstance(c.get("dtype"), str) and c["dtype"] else "bf16"
    gate = c["moe_gate"] if isinstance(c.get("moe_gate"), str) and c["moe_gate"] \
        else "learned"
    flushes = int(c["pipeline_flushes"]) if np.isfinite(c.get("pipeline_flushes", np.nan)) \
        else 1
    prefetch = c.get("fsdp_backward_prefetch")
    reshard = c.get("fsdp_reshard_after_forward")
    return StepOptions(
        recipe=c["optimizer_recipe"], flash_attention=bool(c["flash_attention"]),
        dropout=bool(c["dropout"]), tp_overlap=c["comm_tp_overlap"],
        pp_overlap=bool(c["comm_pp_overlap"]), dp_overlap=bool(c["comm_dp_overlap"]),
        kernel_efficiency=kernel_efficiency,
        stack=c["stack"] if isinstance(c["stack"], str) and c["stack"] else None,
        dtype=dtype, moe_gate=gate, pipeline_flushes=flushes, fp8_recipe=row_fp8_recipe(c),
        cp_overlap=False if c["set"] in CP_ALL_GATHER_SETS else "auto",
        cp_repeat_kv=False if c["set"] in CP_GQA_SDPA_SETS else "auto",
        cp_ring_compiled=c["set"] in CP_COMPILED_SETS,
        fsdp_copies=False if c["set"] in FSDP1_SETS else "auto",
        fsdp_backward_prefetch=prefetch if isinstance(prefetch, str) and prefetch else "auto",
        fsdp_reshard_after_forward=_row_reshard(reshard),
        ep_overlap=EP_OVERLAP_OF_ROW.get(str(c["run_id"]), "auto"),
        fp8_attention=str(c["run_id"]) in FP8_ATTENTION_OF_ROW,
        attention_unpad=row_attention_unpad(c), **_row_routing(c))


def _row_reshard(value) -> object:
    """A row's ``fsdp_reshard_after_forward`` cell as ``StepOptions`` takes it: "auto" where
    empty, else its policy ("true", "false" or "not_pp"; pandas reads a column of booleans as
    bool)."""
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    return str(value).lower() if isinstance(value, str) and value else "auto"


def _row_routing(c: pd.Series) -> dict:
    """The ``moe_routing`` / ``moe_capacity_factor`` options of a row's set
    (``MOE_ROUTING_OF_SET``), none where the set runs its stack's routing."""
    routing = MOE_ROUTING_OF_SET.get(str(c["set"]))
    return {} if routing is None else {"moe_routing": routing[0],
                                       "moe_capacity_factor": routing[1]}


def _reported(c: pd.Series, r: pd.Series, model: ModelSpec, s: int, peak: float):
    """``(reported, reported_mfu, metric)`` of a validation row, by its ``metric`` column (the
    conventions of ``mfu_validation``): ``hfu_full`` TFLOP/s ÷ peak converted from the 96-form
    to the 72-form; ``tokens_per_s`` tokens/s × full-mask FLOPs per token ÷ peak; ``tflops``
    TFLOP/s ÷ peak; otherwise the published MFU."""
    full_f = float(model.flops_per_token(s, causal=False))
    if c["metric"] == "hfu_full":
        reported = float(r["reported_tflops_per_gpu"]) * 1e12 / peak
        reported_mfu = reported * full_f / float(
            model.flops_per_token(s, causal=False, recompute="full"))
        metric = "HFU, full recompute (Eq. 3): TFLOP/s ÷ 312"
    elif c["metric"] == "tokens_per_s":
        reported_mfu = float(r["reported_tokens_per_sec_per_gpu"]) * full_f / peak
        tf = r["reported_tflops_per_gpu"]
        reported = float(tf) * 1e12 / peak if np.isfinite(tf) else reported_mfu
        metric = ("as published: model TFLOP/s ÷ peak (the publisher's own FLOP count); "
                  "reported_mfu: tokens/s/GPU × model FLOPs per token (full mask) ÷ peak")
    elif c["metric"] == "tflops":
        reported = reported_mfu = float(r["reported_tflops_per_gpu"]) * 1e12 / peak
        metric = "model TFLOP/s ÷ peak (the publisher's FLOP count, taken as the MFU basis)"
    else:
        reported = reported_mfu = float(r["reported_mfu"])
        metric = "MFU"
    return reported, reported_mfu, metric


def _validation_row(c: pd.Series, r: pd.Series, over: dict, kernel_efficiency,
                    moe_host=None, keep: bool = False) -> dict:
    """One row of ``mfu_validation``: the row's run priced by ``step.step_time`` and set against
    its reported figure. ``keep``: the step is taken from, or kept for, the other rows of the
    process with the same engine inputs (``_KEPT_STEPS``; only for the disk-cached tables,
    which like it do not see a module constant changed at run time)."""
    s = int(r["seq_len"])
    model = row_model(c, r, s)
    acc = load_accelerator(r["catalog_accelerator"])
    peak = acc.peak_flops_per_s("bf16")
    n = int(r["n_accelerators"])
    plan = row_plan(c, r, model, s)
    opts = row_options(c, kernel_efficiency)
    if moe_host is not None:
        a_s, b_s = stack_moe_host_s(load_stack(opts.stack or DEFAULT_STACK), *moe_host)
        over = {"moe_layer_host_s": a_s, "moe_expert_host_s": b_s, **over}
    if over.get("recompute_early_stop"):
        # the candidate stops early only where the row's run did (row_early_stop)
        over = {**over, "recompute_early_stop": row_early_stop(c)}
    # a published run ran what it ran: a feature its stack's profile lacks is priced, not refused
    priced, cluster = opts.replace(**{"missing_features": "price", **over}), Cluster(acc, n)

    def step():
        with warnings.catch_warnings():
            if opts.stack is None:
                # a run on a stack data/stacks.csv does not profile (its stack column empty:
                # Meta's for Llama 3) is priced on the default profile with the settings it ran
                # (its ZeRO stage among them), which that profile's features need not include;
                # ignored inside the step, so that kept_if_quiet keeps it (a review: 3 of 35
                # rows were never kept, their ignored warning recorded as shown)
                warnings.simplefilter("ignore", StackFeatureWarning)
            return step_time(model, cluster, plan, s, options=priced)

    key = _engine_inputs(model, cluster, plan, s, priced) if keep else None
    b = kept_if_quiet(_KEPT_STEPS, key, step)
    # the values priced: a physics override replaces the row's
    gate = over.get("moe_gate", opts.moe_gate)
    flushes = over.get("pipeline_flushes", opts.pipeline_flushes)
    # one MFU basis for every row: the dense BF16 peak, whatever precision the GEMMs ran in
    pred_mfu = b.model_flops / (b.step_time_s * n * peak)
    pred_hfu = b.hfu * pred_mfu / b.mfu
    reported, reported_mfu, metric = _reported(c, r, model, s, peak)
    # a publisher that counted a causal mask counted fewer FLOPs per token for the same TFLOP/s:
    # its tokens/s, hence its MFU on the workbook's full-mask count, are larger by full / causal
    causal = reported_mfu * float(model.flops_per_token(s, causal=False)) / float(
        model.flops_per_token(s, causal=True))
    # a FLOP count the publisher does not state: the causal-mask basis is as likely
    basis = c.get("flop_basis")
    unstated = isinstance(basis, str) and basis == "unstated"
    return {"run_id": c["run_id"], "set": c["set"], "split": c["split"], "stack": b.stack,
            "model": r["model"], "accelerator": acc.name,
            "generation": GENERATIONS.get(acc.name, acc.name),
            "kind": parallelism_kind(plan.zero_stage, plan.cp, plan.ep, model.is_moe),
            "params": float(model.n_params), "n_gpus": n, "plan": plan.describe(),
            "reported": reported, "reported_metric": metric, "reported_mfu": reported_mfu,
            "causal_basis_mfu": causal if unstated else reported_mfu,
            "predicted_mfu": pred_mfu, "predicted_hfu": pred_hfu,
            "dtype": opts.dtype,
            "error": pred_mfu / reported_mfu - 1, "moe_gate": gate,
            "pipeline_flushes": flushes, "zero_stage": plan.zero_stage,
            "cp": plan.cp, "ep": plan.ep, "is_moe": bool(model.is_moe), "seq_len": s,
            "step_time_s": b.step_time_s,
            **{part: getattr(b, part) for part in PARTS}}

#: The steps of ``mfu_validation``'s rows priced in this process, by their engine inputs
#: (``_engine_inputs``; ``core.diskcache.kept_if_quiet``): a what-if (``physics``, ``moe_host``)
#: leaves many rows' inputs as they were (an FP8 setting on a BF16 row, the MoE host constants
#: on a dense model), and those rows are not priced again.
_KEPT_STEPS: dict = {}


def _engine_inputs(model: ModelSpec, cluster: Cluster, plan: ParallelPlan, s: int,
                  options: StepOptions) -> bytes | None:
    """What ``step.step_time`` prices a step from, as a key (``core.diskcache.value_key``: equal
    keys, equal values of equal types): the model, cluster, plan, sequence length, the
    options' ``efficiency`` (its efficiency row's name) and the options resolved for the
    accelerator (``StepOptions.resolve``: what the engine reads; ``step._engine`` reads no raw
    option), NumPy's floating-point error handling. Left out, as the engine never reads them:
    the raw options the resolved ones carry, and for a dense model the MoE layer's host costs
    (``step._layer_parts`` returns a dense model's parts before it reads them). Equal keys,
    equal steps. None for inputs that do not pickle."""
    o = options.resolve_on(cluster)
    skip = {"options"} | (set() if model.is_moe else {"moe_layer_host_s", "moe_expert_host_s"})
    return value_key(model, cluster, plan, s, options.efficiency,
                     [(f.name, getattr(o, f.name)) for f in fields(o) if f.name not in skip],
                     sorted(np.geterr().items()))


def set_summary(validation: pd.DataFrame) -> pd.DataFrame:
    """Per validation set and split: ``n``, ``mean_abs_error``, ``max_abs_error``,
    ``mean_signed_error``, ``in_sample`` (True for the calibration split) and, for held-out
    sets, how far they are from the goal (mean <= 5%, max <= 10%):
    ``mean_over_goal`` and ``max_over_goal`` (percentage points above it, 0 when met)."""
    rows = []
    for (name, split), g in validation.groupby(["set", "split"], sort=False):
        e = g["error"].abs()
        rows.append({"set": name, "split": split, "n": len(g), "mean_abs_error": e.mean(),
                     "max_abs_error": e.max(), "mean_signed_error": g["error"].mean(),
                     "in_sample": split == "calibration",
                     "mean_over_goal": max(e.mean() - 0.05, 0.0) if split != "calibration"
                     else np.nan,
                     "max_over_goal": max(e.max() - 0.10, 0.0) if split != "calibration"
                     else np.nan})
    return pd.DataFrame(rows).set_index(["set", "split"])


def error_summary(validation: pd.DataFrame) -> pd.DataFrame:
    """Mean and max absolute relative error per validation set and over the two sets
    (Narayanan Table 1 + Korthikanti Table 5)."""
    rows = []
    groups = [(s, validation[validation["set"] == s]) for s in validation["set"].unique()]
    main = validation[validation["set"].isin(VALIDATION_SETS[:2])]
    if len(main) and len(groups) > 1:
        groups.append(("table1+table5", main))
    for name, g in groups:
        e = g["error"].abs()
        rows.append({"set": name, "rows": len(g), "mean_abs_error": e.mean(),
                     "max_abs_error": e.max(), "mean_signed_error": g["error"].mean()})
    return pd.DataFrame(rows).set_index("set")



def row_practice(c) -> memory.MemoryPractice:
    """The memory practice of a validation row (``memory.MemoryPractice``): from its stack
    (``data/stacks.csv``: ``selective_policy``, ``zero3_gather_unit``, ``fp8_saved_inputs``,
    the latter only for a row whose ``dtype`` is fp8; a row without a stack keeps
    ``memory.DEFAULT_PRACTICE``'s) and from the row's own columns
    ``recompute_modules`` (Megatron-Core's names, ``|``-separated) and
    ``activation_offload_layers`` (Megatron-Core ``cpu_offloading_num_layers``), as the run's
    source configs set them (each row's ``notes`` / ``source``)."""
    name = c["stack"] if isinstance(c["stack"], str) and c["stack"] else None
    mods = c.get("recompute_modules")
    mods = () if not isinstance(mods, str) or not mods else tuple(mods.split("|"))
    off = c.get("activation_offload_layers")
    off = 0 if off is None or pd.isna(off) or off == "" else int(off)
    if name is None:
        return memory.MemoryPractice(recompute_modules=mods, offload_layers=off)
    return stack_memory_practice(load_stack(name), c["dtype"], mods, off)


def published_plan_memory(sets=None) -> pd.DataFrame:
    """Does each validation row's published plan fit under the memory model? Per row of
    ``data/validation_mfu.csv`` in ``sets`` (default ``VALIDATION_SETS + NEWER_SETS``; the MPT
    rows of llm-foundry, whose plans the tables do not give, left out): the most loaded stage's
    bytes (``memory.memory_per_gpu`` of ``row_plan`` with the row's recipe, FlashAttention and
    dropout) against the accelerator's HBM, judged under the stated policy
    (``memory.PUBLISHED_PLAN_RESERVE``: a plan that ran is held to the whole HBM) and, for
    comparison, under the planning margin ``memory.DEFAULT_RESERVE``.

    Returns
    -------
    DataFrame indexed by ``run_id``: ``accelerator``, ``memory_bytes``, ``hbm_bytes``,
    ``share`` (of HBM), ``headroom_bytes`` (HBM − counted bytes: what the run left to the
    uncounted parts, an upper bound on them under this model), ``fits`` (policy),
    ``fits_planning_reserve``, ``plan``, ``practice`` (``MemoryPractice.describe``) and
    ``memory_bytes_as_written`` / ``share_as_written``: the same plan under
    ``memory.DEFAULT_PRACTICE`` (Korthikanti et al.'s count and ZeRO as written).

    Each row is counted under its ``row_practice`` (its stack's selective policy, ZeRO-3
    gather unit and FP8 saved inputs; the run's recomputed modules and offloaded layers).
    Computed once per code, data and ``sets`` (``core.diskcache.disk_cached``: no scenario
    enters it).
    """
    if sets is None:
        return _published_plan_memory(VALIDATION_SETS + NEWER_SETS)
    sets = checked_sets(sets)
    if all(x == "llm-foundry-mpt" for x in sets):
        raise ValueError(f"sets={sets!r}: llm-foundry's MPT rows are left out of this table (its "
                         "tables give no parallel plan to count); name another set")
    return _published_plan_memory(sets)


@disk_cached
def _published_plan_memory(sets: tuple) -> pd.DataFrame:
    """``published_plan_memory`` of the validation sets ``sets`` (a tuple of names)."""
    cfg = validation_configs()
    cfg = cfg[cfg["set"].isin(list(sets)) & (cfg["set"] != "llm-foundry-mpt")]
    runs = load_published_runs().set_index("run_id")
    rows = []
    for _, c in cfg.iterrows():
        m = row_memory(c, runs.loc[c["run_id"]])
        total, hbm, as_written = m["memory_bytes"], m["hbm_bytes"], m["memory_bytes_as_written"]
        rows.append({"run_id": c["run_id"], "accelerator": m["accelerator"],
                     "memory_bytes": total,
                     "hbm_bytes": hbm, "share": total / hbm, "headroom_bytes": hbm - total,
                     "fits": memory.fits(total, hbm, memory.PUBLISHED_PLAN_RESERVE),
                     "fits_planning_reserve": memory.fits(total, hbm, memory.DEFAULT_RESERVE),
                     "plan": m["plan"], "practice": m["practice"],
                     "memory_bytes_as_written": as_written,
                     "share_as_written": as_written / hbm})
    return pd.DataFrame(rows).set_index("run_id")


def row_memory(c: pd.Series, r: pd.Series) -> dict:
    """The bytes per GPU of a validation row's most loaded stage (``c`` a row of
    ``validation_configs``, ``r`` its run in ``data/published_runs.csv``):
    ``memory.memory_per_gpu`` of ``row_plan`` with the row's recipe, FlashAttention and dropout,
    under ``row_practice`` (``memory_bytes``) and under ``memory.DEFAULT_PRACTICE``
    (``memory_bytes_as_written``), with ``hbm_bytes`` and ``accelerator`` (the catalogue's),
    ``plan`` (``ParallelPlan.describe``) and ``practice`` (``MemoryPractice.describe``)."""
    s = int(r["seq_len"])
    model = row_model(c, r, s)
    plan = row_plan(c, r, model, s)
    acc = load_accelerator(r["catalog_accelerator"])
    kw = dict(recipe=c["optimizer_recipe"], flash_attention=bool(c["flash_attention"]),
              dropout=bool(c["dropout"]))
    practice = row_practice(c)
    total = memory.memory_per_gpu(model, plan, s, practice=practice, **kw).total
    as_written = memory.memory_per_gpu(model, plan, s, **kw).total
    return {"accelerator": acc.name, "memory_bytes": float(total),
            "hbm_bytes": float(acc.hbm_bytes), "plan": plan.describe(),
            "practice": practice.describe(), "memory_bytes_as_written": float(as_written)}


#: Published runs of one plan dropless and token-dropping (Megatron-Bridge performance summary,
#: read at 5776a6d90: the 25.11 tables dropless and force-balanced, the 25.09 tables
#: '(tokendrop)', capacity factor 1.0 padded): ``(dropless run, token-dropping run)``. The B200
#: Qwen3-30B-A3B pair differs in FP8 recipe too (MXFP8 against per-tensor FP8); the H100 pair in
#: plan too: the dropless run is priced with its shipped recipe (MBS 1, VP 12, the EP overlap),
#: the token-dropping run with the 25.09 table's MBS 2 (``MB2511_H100_TABLE_READINGS``).
DROPLESS_PAIRS = (("mb2511-gb200-qwen3-30b-a3b-fp8mx", "mb2509-gb200-qwen3-30b-a3b-fp8mx"),
                  ("mb2511-b200-deepseek-v3-fp8mx", "mb2509-b200-deepseek-v3-fp8mx"),
                  ("mb2511-b200-qwen3-30b-a3b-fp8mx", "mb2509-b200-qwen3-30b-a3b-fp8"),
                  ("mb2511-h100-qwen3-30b-a3b-fp8cs", "mb2509-h100-qwen3-30b-a3b-fp8"))


def dropless_pairs(validation: pd.DataFrame | None = None) -> pd.DataFrame:
    """The cost of dropless routing per system, published and predicted, on ``DROPLESS_PAIRS``.

    Per pair (index: the dropless run): ``accelerator``, ``moe_layer_mbs`` (MoE layers of the
    busiest stage × micro-batches per step), the tokens/s ratio dropless ÷ token-dropping
    published (``published_ratio``) and predicted (``predicted_ratio`` = published ×
    (1 + error_dropless) ÷ (1 + error_dropping)), and the step-time difference per MoE layer per
    micro-batch, published and predicted (``published_ms``, ``predicted_ms``:
    ``(T_dropless − T_dropping) ÷ moe_layer_mbs``, T the step time, ``moe_layer_mbs`` the
    dropless run's; the two runs of a pair have one global batch, so one token count per step,
    and one plan but for the H100 pair's, ``DROPLESS_PAIRS``).

    ``validation``: an ``mfu_validation`` table holding both sets (default: the shipped engine on
    Megatron-Bridge 25.11 and 25.09)."""
    v = mfu_validation(sets=("megatron-bridge-2511", "megatron-bridge-2509")) \
        if validation is None else validation
    v = v.set_index("run_id")
    missing = [r for pair in DROPLESS_PAIRS for r in pair if r not in v.index]
    if missing:
        raise ValueError(f"validation lacks the rows {missing}: price the sets "
                         "megatron-bridge-2511 and megatron-bridge-2509")
    cfg = validation_configs().set_index("run_id")
    runs = load_published_runs().set_index("run_id")
    rows = {}
    for d, t in DROPLESS_PAIRS:
        c, r = cfg.loc[d].copy(), runs.loc[d]
        c["run_id"] = d
        s = int(r["seq_len"])
        model = row_model(c, r, s)
        plan = row_plan(c, r, model, s)
        n = int(round(model.n_moe_layers / plan.pp)) * plan.n_microbatches
        published = r["reported_tokens_per_sec_per_gpu"] / runs.loc[
            t, "reported_tokens_per_sec_per_gpu"]
        t_pub = [v.loc[x, "step_time_s"] * (1.0 + v.loc[x, "error"]) for x in (d, t)]
        rows[d] = {"token_dropping_run": t, "accelerator": v.loc[d, "accelerator"],
                   "moe_layer_mbs": n, "published_ratio": float(published),
                   "predicted_ratio": float(published * (1.0 + v.loc[d, "error"])
                                            / (1.0 + v.loc[t, "error"])),
                   "published_ms": (t_pub[0] - t_pub[1]) / n * 1e3,
                   "predicted_ms": (v.loc[d, "step_time_s"] - v.loc[t, "step_time_s"]) / n * 1e3}
    return pd.DataFrame.from_dict(rows, orient="index")


#: Megatron-Bridge 25.11's Qwen3-30B-A3B on 16 H100 (FP8-CS) as its table states it, against the
#: shipped dropless recipe it is priced with (MBS 1, VP 12, the EP overlap: the row's notes in
#: ``data/validation_mfu.csv`` and ``EP_OVERLAP_OF_ROW`` give the sources): the table's plan
#: whole and each difference alone, for ``row_readings``.
MB2511_H100_TABLE_READINGS = {
    "the table's plan (MBS 2, VP 24, GA 32), no EP overlap": {
        "micro_batch_size": 2, "pp_virtual_stages": 24, "ep_overlap": "none"},
    "the table's MBS 2 alone": {"micro_batch_size": 2},
    "the table's VP 24 alone": {"pp_virtual_stages": 24},
    "no EP overlap alone": {"ep_overlap": "none"},
}


#: The plan columns of ``data/published_runs.csv`` a reading of ``row_readings`` may replace
#: (``row_plan`` derives DP from them and the run's GPU count).
READING_RUN_COLUMNS = ("tp", "pp", "cp", "ep")


def row_readings(run_id: str, readings: dict) -> pd.DataFrame:
    """One validation row priced as recorded and under other readings of its sources.

    ``readings``: label → a dict of ``data/validation_mfu.csv`` columns (``micro_batch_size``,
    ``pp_virtual_stages``, ``recompute``, …), of the run's plan columns in
    ``data/published_runs.csv`` (``READING_RUN_COLUMNS``: ``tp``, ``pp``, ``cp``, ``ep``; DP
    follows as GPUs / (TP × PP × CP)) and / or ``PHYSICS_OPTIONS`` (``ep_overlap``, …)
    replacing the row's values. Returns one row per reading, ``"as priced"`` first (index: the
    label): ``plan``, ``error``, ``step_time_s`` and its parts (``PARTS``), as
    ``mfu_validation``'s columns, and the plan's ``memory_bytes`` and the GPU's ``hbm_bytes``
    (``row_memory``: the step options do not change them).

    Raises
    ------
    ValueError
        ``run_id`` not a row of ``data/validation_mfu.csv``, or a key that is none of its
        columns, ``READING_RUN_COLUMNS`` or ``PHYSICS_OPTIONS``.
    """
    cfg = validation_configs().set_index("run_id")
    if run_id not in cfg.index:
        raise ValueError(f"run_id={run_id!r} is not a row of data/validation_mfu.csv")
    run = load_published_runs().set_index("run_id").loc[run_id]
    out = {}
    for label, reading in {"as priced": {}, **readings}.items():
        c, r = cfg.loc[run_id].copy(), run.copy()
        c["run_id"] = run_id
        bad = sorted(k for k in reading if k not in c.index and k not in PHYSICS_OPTIONS
                     and k not in READING_RUN_COLUMNS)
        if bad:
            raise ValueError(f"reading {label!r}: {bad} are none of the columns of "
                             f"data/validation_mfu.csv, the plan columns {READING_RUN_COLUMNS} "
                             f"of data/published_runs.csv or the step options {PHYSICS_OPTIONS}")
        over = {k: v for k, v in reading.items() if k in PHYSICS_OPTIONS}
        for k, v in reading.items():
            if k in READING_RUN_COLUMNS:
                r[k] = v
            elif k not in over:
                c[k] = v
        row = _validation_row(c, r, over, None)
        m = row_memory(c, r)
        out[label] = {**{k: row[k] for k in ("plan", "error", "step_time_s", *PARTS)},
                      "memory_bytes": m["memory_bytes"], "hbm_bytes": m["hbm_bytes"]}
    return pd.DataFrame.from_dict(out, orient="index")


#: Megatron-Bridge 26.02.01's Llama 3 70B MXFP8 on 64 GB300
#: (``mb260201-gb300-llama-3.1-70b-mxfp8``): its table line (docs/performance-summary-archive.md
#: at 067f987df, section '26.02.01 NeMo Container') states MBS 2, PP 4, VP n/a; the row is
#: priced with the plan of its recipe at the release tag, MBS 1, PP 4, VP 5
#: (``LLAMA3_70B_PRETRAIN_CONFIG_GB300_FP8_MX_V2`` in
#: scripts/performance/configs/llama/llama3_workload_base_configs.py and
#: ``WorkloadBaseConfig.micro_batch_size = 1`` in scripts/performance/utils/utils.py, both at
#: v0.3.1 = 9c9dd8489), the reasons in the row's notes (the table's MBS and VP are its FP8
#: line's, which its GB300 NVFP4 line carries too). Corrected after the row's error under the
#: table's plan was seen; the table's reading, whole and each difference alone, for
#: ``row_readings`` (``memory_bytes``: the table's plan overflows the HBM under the memory model).
MB260201_GB300_70B_TABLE_READINGS = {
    "the table's plan (MBS 2, no VP, 1F1B, GA 8)": {
        "micro_batch_size": 2, "pp_virtual_stages": 1},
    "the table's MBS 2 alone (VP 5, GA 8)": {"micro_batch_size": 2},
    "the table's VP n/a alone (MBS 1, 1F1B, GA 16)": {"pp_virtual_stages": 1},
}


#: Megatron-Bridge 26.02.01's Llama 3.1 405B FP8 (current scaling) on 256 GB300
#: (``mb260201-gb300-llama-3.1-405b-fp8cs``): its table line (docs/performance-summary-archive.md
#: at 067f987df, section '26.02.01 NeMo Container') states TP 2, PP 8, CP 2, VP 4, the plan
#: columns of the MXFP8 line above it; the row is priced with the plan of its recipe at the
#: release tag, TP 4, PP 8, CP 1, VP 4 (``LLAMA31_405B_PRETRAIN_CONFIG_GB300_FP8_CS_V2`` in
#: scripts/performance/configs/llama/llama31_workload_base_configs.py at v0.3.1 = 9c9dd8489, the
#: FP8 line's plan in the 26.02, 26.04, 26.04.01 and 26.06 tables), the reasons in the row's
#: notes. Corrected after the row's error under the table's plan was seen; the table's reading,
#: whole and each difference alone (TP 2 alone: DP 16; CP 2 alone: DP 4), for ``row_readings``.
MB260201_GB300_405B_TABLE_READINGS = {
    "the table's plan (TP 2, CP 2, DP 8)": {"tp": 2, "cp": 2},
    "the table's TP 2 alone (CP 1, DP 16)": {"tp": 2},
    "the table's CP 2 alone (TP 4, DP 4)": {"cp": 2},
}

#: Published runs of Qwen3-30B-A3B on 16 H100 under the recipe that replaced the one of the
#: worst MoE rows (``mb2511-h100-qwen3-30b-a3b-fp8cs``, ``mb2602-h100-qwen3-30b-a3b-fp8cs``:
#: PP 2 × VP 12, EP 8, alltoall or DeepEP, ``moe_a2a_overlap``). NVIDIA-NeMo/Megatron-Bridge
#: PR #2477 (commit 4a6450755 on main, 2026-02-23, "Update Qwen3 30B H100 Base Configs with
#: HybridEP"; on the r0.3.0 branch as f29a269f8, after the v0.3.0 tag, so first released in
#: v0.3.1 = 26.02.01, whose table row ``mb260201-h100-qwen3-30b-a3b-fp8cs`` ran it) changed
#: ``QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_FP8_CS_V1`` and ``..._H100_BF16_V1`` in
#: scripts/performance/configs/qwen/qwen3_workload_base_configs.py to PP 1, EP 16,
#: ``moe_flex_dispatcher_backend="hybridep"``, ``moe_a2a_overlap=False`` (the
#: BF16 one with Transformer Engine CUDA graphs of ``moe_router`` and ``moe_preprocess``, the
#: FP8-CS one with none). Not validation rows (added after the worst rows' errors were seen,
#: and the engine has no partial-graph mode): checks of the engine on the same model and GPUs,
#: ``later_h100_qwen3_checks``. The two table runs were later added as validation rows with the
#: whole 26.04 and 26.06 tables (``mb2604-h100-qwen3-30b-a3b-fp8cs``,
#: ``mb2606-h100-qwen3-30b-a3b-fp8cs``; their errors as checks seen before, their notes say
#: so). Each: (label, dtype, EP overlap, published step time s, source).
#: The FP8 step times are GBS 1024 × 4096 tokens / (16 GPUs × the table's tokens/s/GPU).
LATER_H100_QWEN3_RUNS = (
    ("26.04 table, FP8-CS, EP 16, HybridEP", "fp8", "none", 1024 * 4096 / (16 * 8901),
     "docs/performance-summary-archive.md at 067f987df, '26.04 NeMo Container', DGX-H100, 16 "
     "GPUs, FP8, GBS 1024, MBS 1, TP 1, PP 1, EP 16: 8,901 tokens/s/GPU; recipe at v0.4.0"),
    ("26.06 table, FP8-CS, EP 16, HybridEP", "fp8", "none", 1024 * 4096 / (16 * 8826),
     "docs/performance-summary-archive.md at 067f987df, '26.06 NeMo Container', DGX-H100, 16 "
     "GPUs, FP8, GBS 1024, MBS 1, TP 1, PP 1, EP 16: 8,826 tokens/s/GPU"),
    ("BF16, EP 16, HybridEP, no EP overlap", "bf16", "none", 24.7138,
     "skills/nemo-mbridge-perf-expert-parallel-overlap/SKILL.md at 067f987df (PR #5094), "
     "'HybridEP Production-Shape Benchmark': 16 H100, GBS 1024, MBS 1, EP 16, TE graphs of "
     "moe_router + moe_preprocess, overlap off, iterations 5-20: 24.7138 s (GPU-active "
     "interval union 22.821 s)"),
    ("BF16, EP 16, HybridEP, EP overlap", "bf16", "merged_1f1b", 20.9920,
     "the same page: overlap_moe_expert_parallel_comm on, delay_wgrad_compute off, "
     "independent validation, iterations 41-50: 20.9920 s (a separate matched Nsight "
     "Systems comparison on the page: GPU-active union 22.821 s without overlap, 21.221 s "
     "with)"),
)


def later_h100_qwen3_checks() -> pd.DataFrame:
    """The engine on ``LATER_H100_QWEN3_RUNS``: Qwen3-30B-A3B on 16 H100, TP 1, PP 1, EP 16,
    DP 16, MBS 1, GBS 1024, sequence 4096, ZeRO-1, no recomputation, priced with the options of
    ``mb2602-h100-qwen3-30b-a3b-fp8cs`` (stack ``megatron-core-2025``, dropless, random gate)
    and each run's dtype and EP overlap. Returns one row per run (index: the label):
    ``published_step_s``, ``predicted_step_s``, ``error`` (predicted / published MFU − 1 =
    published / predicted step − 1), ``moe_host_s``, ``ep_comm_s``, ``source``."""
    base = row_options(_row_config("mb2602-h100-qwen3-30b-a3b-fp8cs"))
    model, s, n = load_model("Qwen3-30B-A3B"), 4096, 16
    plan = make_plan(model, n, 1024, tp=1, pp=1, cp=1, ep=16, micro_batch_size=1,
                     virtual_stages=1, schedule="1f1b", recompute="none",
                     sequence_parallel=False, zero_stage=1, seq_len=s, pp_split="even")
    out = {}
    for label, dtype, overlap, published, source in LATER_H100_QWEN3_RUNS:
        b = step_time(model, Cluster(load_accelerator("H100-SXM"), n), plan, s,
                      options=base.replace(dtype=dtype, ep_overlap=overlap))
        out[label] = {"published_step_s": published, "predicted_step_s": b.step_time_s,
                      "error": published / b.step_time_s - 1.0, "moe_host_s": b.moe_host_s,
                      "ep_comm_s": b.ep_comm_s, "source": source}
    return pd.DataFrame.from_dict(out, orient="index")


#: A published single-knob A/B of Megatron-Core's batch-level EP overlap on an eager stack:
#: NVIDIA-NeMo/Megatron-Bridge PR #1760 (commit a6e92de5f, "Improving Qwen3-235B-A22B B200
#: performance", 2026-01-09): ``QWEN3_235B_A22B_PRETRAIN_CONFIG_B200_BF16`` (64 B200, PP 8 ×
#: VP 4, EP 8, GBS 1024, MBS 1, BF16, alltoall, force-balanced, no CUDA graphs) changed only
#: ``moe_a2a_overlap`` True → False, "BF16 step time improved from 17.2s to 16s", the PR's
#: reason: "Disable ``moe_a2a_overlap`` due to CPU overhead". (overlap on s, overlap off s).
PR1760_B200_BF16_OVERLAP_STEP_S = (17.2, 16.0)


def _price(model_name, acc, n, plan_kw, options):
    """``step_time`` of ``model_name`` on ``n`` ``acc`` with ``make_plan(**plan_kw)`` (seq 4096)."""
    model = load_model(model_name)
    plan = make_plan(model, n, plan_kw.pop("gbs"), cp=1, recompute="none",
                     sequence_parallel=False, zero_stage=1, seq_len=4096, **plan_kw)
    return step_time(model, Cluster(load_accelerator(acc), n), plan, 4096, options=options)


def _pr1760_steps() -> tuple:
    """Megatron-LM PR #1760's B200 BF16 recipe (Qwen3-235B-A22B on 64 GPUs, TP1 · PP8×v4 ·
    EP8, uneven split, dropless, random gate), priced with ``merged_1f1b`` and with no EP
    overlap: the two step breakdowns ``(on, off)``."""
    opts = row_options(_row_config("mb2509-b200-qwen3-235b-a22b-fp8")).replace(
        dtype="bf16", moe_routing="dropless", moe_gate="random")
    kw = dict(gbs=1024, tp=1, pp=8, ep=8, micro_batch_size=1, virtual_stages=4,
              schedule="interleaved", pp_split="uneven")
    on, off = (_price("Qwen3-235B-A22B", "B200", 64, dict(kw), opts.replace(ep_overlap=o))
               for o in ("merged_1f1b", "none"))
    return on, off


def overlap_host_cost_reading() -> dict:
    """What PR #1760's A/B (``PR1760_B200_BF16_OVERLAP_STEP_S``) implies if read as a host cost
    of the batch-level EP overlap per MoE layer per micro-batch, and what that cost would do
    elsewhere. A reading, not an engine term: made after the worst MoE rows' errors were seen.

    ``H = (Δt_published + Δt_hidden) / N``: ``Δt_published`` = 17.2 − 16.0 s, ``Δt_hidden`` the
    all-to-all the engine hides on that recipe (its step without − with ``merged_1f1b``),
    ``N`` the MoE layer-micro-batches of the busiest stage the engine prices
    (``moe_host_s`` / the per-layer host cost). Returns ``H`` (``h_s``, seconds), and the
    errors (predicted / published MFU − 1) of the two validation rows that ran the overlap
    (``EP_OVERLAP_OF_ROW``) and of the overlap-on H100 check (``LATER_H100_QWEN3_RUNS``)
    without and with ``H × N`` added to their step."""
    on, off = _pr1760_steps()
    n_1760 = on.moe_host_s / moe_host_per_layer_s(128, 8)
    h = (PR1760_B200_BF16_OVERLAP_STEP_S[0] - PR1760_B200_BF16_OVERLAP_STEP_S[1]
         + off.step_time_s - on.step_time_s) / n_1760
    out = {"h_s": h}
    for run_id in EP_OVERLAP_OF_ROW:
        r = row_readings(run_id, {}).iloc[0]
        n_mb = r["moe_host_s"] / float(moe_host_per_layer_s(128, 8))
        e = float(r["error"])
        out[run_id] = (e, (1 + e) * r["step_time_s"] / (r["step_time_s"] + h * n_mb) - 1)
    chk = later_h100_qwen3_checks().loc["BF16, EP 16, HybridEP, EP overlap"]
    n_mb = chk["moe_host_s"] / float(moe_host_per_layer_s(128, 16))
    out["h100 bf16 ep16 overlap check"] = (
        chk["error"], chk["published_step_s"] / (chk["predicted_step_s"] + h * n_mb) - 1)
    return out


def merged_units(pp: int, n_microbatches: int, virtual_stages: int) -> float:
    """Merged forward+backward chunk units of the first pipeline stage per pipeline schedule under
    Megatron-Core's batch-level EP overlap: ``m·v − (w + 1)`` on an interleaved pipeline, ``w =
    2(p − 1) + (v − 1)·p`` the warm-up forwards (``memory.in_flight_microbatches`` × v, as in
    ``step.merged_p2p_exposure``); ``m − 1`` without a pipeline (the first forward and the last
    backward have no partner). Source: NVIDIA/Megatron-LM
    ``megatron/core/models/common/model_chunk_schedule_plan.py``
    (``TransformerModelChunkSchedulePlan.run``: one call per forward chunk of one micro-batch
    merged with a backward chunk of another) @ 0d8e0714cd29."""
    if pp <= 1:
        return float(max(n_microbatches - 1, 0))
    warm = float(memory.in_flight_microbatches("interleaved", pp, n_microbatches,
                                               virtual_stages, 0)) * virtual_stages
    return max(n_microbatches * virtual_stages - warm, 0.0)


def overlap_unit_cost_reading() -> dict:
    """PR #1760's A/B (``PR1760_B200_BF16_OVERLAP_STEP_S``) read as a host cost per merged chunk
    unit (``merged_units``) rather than per MoE layer (``overlap_host_cost_reading``). A reading,
    not an engine term: the unit was chosen after the worst rows' errors and the H100 check
    (one pipeline stage, few units) had been seen; NVIDIA's words are "due to CPU overhead"
    (PR #1760) and "moe_a2a_overlap and VP degraded perf" (Megatron-Bridge issue #3399, Qwen3
    235B on B300), which say neither per what.

    ``H_u = (Δt_published + Δt_hidden) / U``: ``Δt_hidden`` the all-to-all the engine hides on
    PR #1760's recipe (its step without − with ``merged_1f1b``), ``U = merged_units(8, 128, 4)``
    = 473. Returns ``h_unit_s`` and, per overlap row (``EP_OVERLAP_OF_ROW``), ``(error without,
    error with H_u × U_row, U_row)``."""
    on, off = _pr1760_steps()
    h = (PR1760_B200_BF16_OVERLAP_STEP_S[0] - PR1760_B200_BF16_OVERLAP_STEP_S[1]
         + off.step_time_s - on.step_time_s) / merged_units(8, 1024 // 8, 4)
    out = {"h_unit_s": h}
    for run_id in EP_OVERLAP_OF_ROW:
        r = row_readings(run_id, {}).iloc[0]
        plan = _row_setup(run_id)[3]
        u = merged_units(int(plan.pp), int(plan.n_microbatches), int(plan.virtual_stages))
        e, t = float(r["error"]), float(r["step_time_s"])
        out[run_id] = (e, (1 + e) * t / (t + h * u) - 1, u)
    return out


def _row_config(run_id: str) -> pd.Series:
    """A row of ``validation_configs`` with its ``run_id`` (for ``row_options``)."""
    c = validation_configs().set_index("run_id").loc[run_id].copy()
    c["run_id"] = run_id
    return c


def _row_setup(run_id: str) -> tuple:
    """``(c, run, model, plan)`` of a validation row: its config (``_row_config``), its run in
    ``data/published_runs.csv``, and ``row_model`` / ``row_plan`` at the run's sequence length:
    the set-up every reading of a row starts from."""
    c = _row_config(run_id)
    run = load_published_runs().set_index("run_id").loc[run_id]
    s = int(run["seq_len"])
    model = row_model(c, run, s)
    return c, run, model, row_plan(c, run, model, s)


def moe_host_per_layer_s(n_experts: int, ep: int) -> float:
    """The engine's dropless host cost of one MoE layer per micro-batch, no recomputation
    (``moe_layer.moe_host_overhead_s``), seconds."""
    return float(moe_layer.moe_host_overhead_s(n_experts, ep))



#: Transformer Engine's grouped linear layer on Hopper: one cuBLAS GEMM per local expert, GEMM
#: ``i`` on compute stream ``i % num_streams``, ``num_streams = 4``
#: (NVIDIA/TransformerEngine transformer_engine/common/include/transformer_engine/gemm.h,
#: ``nvte_multi_tensor_gemm``: "Compute multiple pairs of matrix multiplication ... on multiple
#: streams"; ``constexpr int num_streams = 4``); its one-kernel grouped GEMM
#: (``nvte_grouped_gemm``) "Requires cuBLAS 13.2+ (CUDA 13.1+) and Blackwell (SM100)" (the same
#: header at 01effccad). The engine prices a rank's local experts as one grouped kernel per
#: projection (one fixed cost ``t0``, ``step._moe_compute``).
TE_GEMM_STREAMS = 4

#: Grouped expert GEMMs per MoE layer per micro-batch: forward fc1 and fc2, backward the data
#: and weight gradient of each.
EXPERT_GEMM_GROUPS = 6


def per_expert_launch_reading(run_id: str) -> float:
    """The fixed GEMM cost a validation row's step would add (seconds) if its local experts' GEMMs
    ran as Transformer Engine runs them on Hopper (``TE_GEMM_STREAMS``) rather than as one
    grouped kernel: ``EXPERT_GEMM_GROUPS · (⌈E_loc / 4⌉ − 1) · t0 · N``, ``t0`` the Hopper FP8
    kernel fixed cost (``gemm.GEMM_SHAPE``), ``N`` the busiest stage's MoE layer-micro-batches
    (``moe_host_s`` over the per-layer host cost). An upper bound on the streams' overlap of
    fixed costs being 4-way, not an engine term."""
    r = row_readings(run_id, {}).iloc[0]
    _, run, model, _ = _row_setup(run_id)
    ep = int(run["ep"])
    n_mb = r["moe_host_s"] / moe_host_per_layer_s(model.n_experts, ep)
    e_loc = model.n_experts // ep
    t0 = GEMM_SHAPE[("hopper", "fp8")].t0_s
    return EXPERT_GEMM_GROUPS * (-(-e_loc // TE_GEMM_STREAMS) - 1) * t0 * n_mb


#: FP8 current scaling's launches per expert tensor beyond MXFP8's one, the expert tensors
#: quantized per local expert and the launches behind ``moe_layer.MOE_EXPERT_HOST_S``: the engine's
#: constants (``moe_layer``, where their Transformer Engine sources are cited).
FP8CS_EXTRA_LAUNCHES_PER_TENSOR = moe_layer.FP8CS_EXTRA_LAUNCHES_PER_TENSOR
EXPERT_QUANTIZED_TENSORS = moe_layer.EXPERT_QUANTIZED_TENSORS
EXPERT_LAUNCHES = moe_layer.EXPERT_LAUNCHES


def fp8cs_quantize_launch_reading() -> pd.DataFrame:
    """A reading, not an engine term: the FP8 current-scaling MoE rows on eager stacks priced with
    the extra quantize launches per local expert that Transformer Engine makes under current
    scaling (``FP8CS_EXTRA_LAUNCHES_PER_TENSOR`` × ``EXPERT_QUANTIZED_TENSORS`` = 8 per local
    expert per MoE layer and micro-batch), each at the engine's own host time per launch
    (``MOE_EXPERT_HOST_S / EXPERT_LAUNCHES``, ≈ 28 µs): the per-expert host constant becomes
    ``b · (1 + 8 / 10)``. The calibration rows it was fitted on run MXFP8, BF16 or
    token-dropping FP8; the rows it adds to are those whose ``row_fp8_recipe`` is ``current``.

    Returns one row per such row (index: ``run_id``): ``split``, ``local_experts``,
    ``error`` (as priced), ``error_with`` (with the launches), ``extra_s`` (the step time added).
    """
    cfg = validation_configs().set_index("run_id", drop=False)
    runs = load_published_runs().set_index("run_id")
    out = {}
    for run_id, c in cfg.iterrows():
        stack = load_stack(c["stack"] if isinstance(c["stack"], str) and c["stack"]
                           else DEFAULT_STACK)
        if c.get("dtype") != "fp8" or row_fp8_recipe(c) != "current" \
                or stack.cuda_graphs != "none":
            continue
        run = runs.loc[run_id]
        model = row_model(c, run, int(run["seq_len"]))
        if not model.is_moe:
            continue
        b = stack_moe_host_s(stack)[1]
        extra = b * FP8CS_EXTRA_LAUNCHES_PER_TENSOR * EXPERT_QUANTIZED_TENSORS / EXPERT_LAUNCHES
        t = row_readings(run_id, {"with": {"moe_expert_host_s": b + extra}})
        out[run_id] = {"split": c["split"], "local_experts": model.n_experts // int(run["ep"]),
                       "error": t.loc["as priced", "error"], "error_with": t.loc["with", "error"],
                       "extra_s": t.loc["with", "step_time_s"] - t.loc["as priced",
                                                                         "step_time_s"]}
    return pd.DataFrame.from_dict(out, orient="index")


#: GPT-OSS 120B on 64 GB300 and 64 GB200 in one Megatron-Bridge table, the same plan (EP 64,
#: MBS 4, GBS 1280) and stack (``megatron-core-2024``): the GB300 recipe captures Transformer
#: Engine CUDA graphs of ``attn``, ``moe_router`` and ``moe_preprocess``
#: (``GPT_OSS_120B_PRETRAIN_CONFIG_GB300_BF16_V1``: ``cuda_graph_impl="transformer_engine"``,
#: ``cuda_graph_scope=["attn", "moe_router", "moe_preprocess"]``), the GB200 one runs eagerly
#: (``..._GB200_BF16_V1``: none; scripts/performance/configs/gpt_oss/
#: gpt_oss_workload_base_configs.py at v0.4.0 = 0fbfe7d3e; the rows' notes cite each table's
#: release). The engine prices both eagerly (it has no partial-graph mode).
TE_SCOPED_GRAPH_PAIRS = (("mb2602-gb300-gpt-oss-120b-bf16", "mb2602-gb200-gpt-oss-120b-bf16"),
                         ("mb260201-gb300-gpt-oss-120b-bf16", "mb260201-gb200-gpt-oss-120b-bf16"),
                         ("mb260401-gb300-gpt-oss-120b-bf16", "mb260401-gb200-gpt-oss-120b-bf16"))


def te_scoped_graph_reading() -> pd.DataFrame:
    """A reading, not an engine term: per ``TE_SCOPED_GRAPH_PAIRS`` pair, the published and
    predicted step times (the published one ``predicted · (1 + error)``, the error being on the
    MFU at a fixed token count) and the GB200 − GB300 step-time difference the engine does not
    predict, in seconds and in ms per MoE layer per micro-batch (``moe_host_s`` ÷ the per-layer
    host cost gives the layer-micro-batches). Both GPUs have the same dense BF16 peak and HBM
    bandwidth in the catalogue; what the engine leaves is the host time the GB300 recipe's
    graphs remove, and cuDNN's faster attention on GB300 beyond what its table prices."""
    rows = {}
    for a, b in TE_SCOPED_GRAPH_PAIRS:
        ra, rb = row_readings(a, {}).iloc[0], row_readings(b, {}).iloc[0]
        pub = [r["step_time_s"] * (1.0 + r["error"]) for r in (ra, rb)]
        _, run, model, _ = _row_setup(b)
        n = rb["moe_host_s"] / moe_host_per_layer_s(model.n_experts, int(run["ep"]))
        gap = (pub[1] - pub[0]) - (rb["step_time_s"] - ra["step_time_s"])
        rows[b.split("-")[0]] = {"published_gb300_s": pub[0], "published_gb200_s": pub[1],
                                 "predicted_gb300_s": ra["step_time_s"],
                                 "predicted_gb200_s": rb["step_time_s"], "unexplained_s": gap,
                                 "unexplained_ms_per_layer_mb": gap / n * 1e3}
    return pd.DataFrame.from_dict(rows, orient="index")


#: Qwen3-30B-A3B in Megatron-Bridge's 25.09 table (token-dropping, capacity factor 1.0, padded)
#: and its 25.11 table (dropless), one system and plan per pair: ``(25.09 run, 25.11 run)``. The
#: 25.09 recipe YAML (scripts/performance/configs/qwen3/qwen3_30b_a3b_llm_pretrain.yaml at
#: fa0315ae2) sets ``cuda_graphs: true`` on GB200 (with the table's plan, MBS 4, EP 8) and on
#: B200 (whose YAML plan, PP 8 × VP 12, cannot run EP 8 on 8 GPUs: the table's PP 1 ran, its
#: graphs not certain); scripts/performance/utils/helpers.py ``set_cuda_graph_overrides`` makes it
#: ``model.enable_cuda_graph``: in Megatron-Core 0.14 (``transformer_layer.py`` at core_v0.14.0)
#: one ``CudaGraphManager`` graph per transformer layer, scope "full", the MoE layer included
#: once a capacity factor and padding are set (Megatron-Core MoE README, "CUDA Graph Support").
#: The 25.11 recipes (scripts/performance/configs/qwen/qwen3_workload_base_configs.py at
#: 97ad8cc6f) graph ``moe_router`` and ``moe_preprocess`` only (Transformer Engine graphs): the
#: dropless experts run eagerly. The GB200 pair is one precision (MXFP8 in both tables); the
#: B200 pair is not: 25.09's B200 row has no MXFP8 figure (per-tensor FP8), 25.11's is FP8-MX.
#: Read after the rows' errors were seen; not an engine term.
LAYER_GRAPH_PAIRS = (("mb2509-gb200-qwen3-30b-a3b-fp8mx", "mb2511-gb200-qwen3-30b-a3b-fp8mx"),
                     ("mb2509-b200-qwen3-30b-a3b-fp8", "mb2511-b200-qwen3-30b-a3b-fp8mx"))


def moe_gpu_gap(run_ids) -> pd.DataFrame:
    """A reading, not an engine term: MoE validation rows priced as shipped and with no MoE host
    time (``moe_layer_host_s = moe_expert_host_s = 0``), and the time the engine's GPU-side step
    lacks per MoE layer per micro-batch, ``gap_ms = (T_published − T_without_host) ÷
    moe_layer_mbs`` (``T_published`` = predicted × (1 + error): one token count per step;
    ``moe_layer_mbs`` the MoE layers of the busiest stage × micro-batches per step). The host
    term stands for the whole gap where it is host time.

    Returns one row per run (index: ``run_id``): ``set``, ``moe_layer_mbs``, ``published_s``,
    ``priced_s``, ``without_host_s``, ``error``, ``error_without_host``, ``gap_ms``.

    Raises
    ------
    ValueError
        A run id that is not a row of ``data/validation_mfu.csv``.
    """
    cfg = validation_configs().set_index("run_id")
    bad = [r for r in run_ids if r not in cfg.index]
    if bad:
        raise ValueError(f"run_ids {bad} are not rows of data/validation_mfu.csv")
    sets = tuple(sorted({cfg.loc[r, "set"] for r in run_ids}))
    priced = mfu_validation(sets=sets).set_index("run_id")
    bare = mfu_validation(sets=sets, physics={"moe_layer_host_s": 0.0,
                                              "moe_expert_host_s": 0.0}).set_index("run_id")
    rows = {}
    for run_id in run_ids:
        c, _, model, plan = _row_setup(run_id)
        n = int(round(model.n_moe_layers / plan.pp)) * plan.n_microbatches
        p, b = priced.loc[run_id], bare.loc[run_id]
        published = p["step_time_s"] * (1.0 + p["error"])
        rows[run_id] = {"set": c["set"], "moe_layer_mbs": n, "published_s": published,
                        "priced_s": p["step_time_s"], "without_host_s": b["step_time_s"],
                        "error": p["error"], "error_without_host": b["error"],
                        "gap_ms": (published - b["step_time_s"]) / n * 1e3}
    return pd.DataFrame.from_dict(rows, orient="index")


def layer_graph_reading() -> pd.DataFrame:
    """``moe_gpu_gap`` on the rows of ``LAYER_GRAPH_PAIRS``, with ``layer_graphs`` (True: the
    25.09 recipe's per-layer CUDA graphs; False: the 25.11 run, experts eager). If the host term
    were host time, a run whose layers ran in CUDA graphs would need none of it (``gap_ms`` near
    0)."""
    g = moe_gpu_gap([r for pair in LAYER_GRAPH_PAIRS for r in pair])
    g.insert(1, "layer_graphs", g["set"] == "megatron-bridge-2509")
    return g


#: The worst H100 rows' recipe (PP 2 × VP 12, EP 8, EP overlap, FP8-CS: 25.11 and 26.02), the
#: one that replaced it (PP 1, EP 16, HybridEP, no overlap: 26.04, 26.06) and 25.09's
#: token-dropping one (PP 2 × VP 24, MBS 2, no overlap), for ``moe_gpu_gap``.
H100_QWEN3_GAP_ROWS = ("mb2511-h100-qwen3-30b-a3b-fp8cs", "mb2602-h100-qwen3-30b-a3b-fp8cs",
                       "mb2604-h100-qwen3-30b-a3b-fp8cs", "mb2606-h100-qwen3-30b-a3b-fp8cs",
                       "mb2509-h100-qwen3-30b-a3b-fp8")


#: The Megatron-Bridge tables holding GPT-OSS 120B BF16 and Llama 3.1 70B FP8-CS on the same
#: systems (26.02, 26.02.01, 26.04, 26.04.01), for ``gpt_oss_dense_reading``. On GB200 and GB300
#: both models run one plan per model on the two systems (Llama 3.1 70B: TP 1, PP 1, Megatron
#: FSDP, MBS 2, recipes ``LLAMA3_70B_PRETRAIN_CONFIG_GB{200,300}_FP8_CS_V1`` in
#: scripts/performance/configs/llama/llama3_workload_base_configs.py at v0.4.2 = c81012934,
#: which differ only in the CPU-offloaded layers, 40 and 20, priced, and set no CUDA graphs).
GPT_OSS_DENSE_SETS = ("megatron-bridge-2602", "megatron-bridge-260201", "megatron-bridge-2604",
                      "megatron-bridge-260401")


def gpt_oss_dense_reading() -> pd.DataFrame:
    """A reading, not an engine term: per system, the mean error of the GPT-OSS 120B BF16 rows
    and of the Llama 3.1 70B FP8-CS rows of ``GPT_OSS_DENSE_SETS`` (calibration and held-out
    alike) and their ratio ``(1 + e_gpt_oss) / (1 + e_llama)``: how much faster the engine
    prices GPT-OSS than the dense model of the same tables on the same GPUs. Index: the system
    as the run ids spell it (gb200, gb300, b200, h100); NaN where a table has no such row."""
    v = mfu_validation(sets=GPT_OSS_DENSE_SETS)
    rows = {}
    for system in ("gb200", "gb300", "b200", "h100"):
        e = {m: v.loc[v["run_id"].str.contains(f"-{system}-{m}", regex=False), "error"]
             for m in ("gpt-oss-120b-bf16", "llama-3.1-70b-fp8cs")}
        oss, dense = (float(x.mean()) if len(x) else np.nan for x in e.values())
        rows[system] = {"gpt_oss_error": oss, "gpt_oss_rows": len(e["gpt-oss-120b-bf16"]),
                        "llama_70b_error": dense,
                        "llama_70b_rows": len(e["llama-3.1-70b-fp8cs"]),
                        "ratio": (1.0 + oss) / (1.0 + dense)}
    return pd.DataFrame.from_dict(rows, orient="index")


#: Whether the grouped MLP's explicit FP8 padding (``moe_layer.fp8_padding_cost_s``) pads on a
#: Qwen3-30B-A3B row, by the dispatch its recipe ran (no Megatron-Bridge Qwen3 performance recipe
#: sets ``moe_router_padding_for_fp8`` / ``moe_router_padding_for_quantization``: ``git grep`` at
#: 7af9601c9 (25.11), 97ad8cc6f, 21b02e0cf (26.02), c81012934 (26.04.01) and fa0315ae2 (25.09)
#: finds it only in DeepSeek / GLM library recipes, set False, and one Nemotron-3 recipe). True:
#: the alltoall dispatcher (25.11 H100 FP8-CS and B200 FP8-MX: scripts/performance/configs/qwen3/
#: workload_base_configs.py at 7af9601c9, no flex backend) and DeepEP (26.02 H100:
#: ``moe_flex_dispatcher_backend="deepep"``, QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_FP8_CS_V1 at
#: 21b02e0cf) hand unaligned splits. False: HybridEP pads in its dispatch (26.04 and later H100
#: recipes, QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_FP8_CS_V1 at c81012934; the 25.11 GB200 recipe,
#: QWEN3_30B_A3B_GB200_FP8_MX_BASE_CONFIG at 7af9601c9: ``moe_flex_dispatcher_backend=
#: "hybridep"``),
#: and 25.09's token-dropping router pads every expert to its capacity (4096 · MBS · 8 / 128: a
#: multiple of 16 and 32). Read after the rows' errors were seen.
FP8_PADDING_OF_ROW = {"mb2511-h100-qwen3-30b-a3b-fp8cs": True,
                      "mb2602-h100-qwen3-30b-a3b-fp8cs": True,
                      "mb2604-h100-qwen3-30b-a3b-fp8cs": False,
                      "mb2606-h100-qwen3-30b-a3b-fp8cs": False,
                      "mb260201-h100-qwen3-30b-a3b-fp8cs": False,
                      "mb260401-h100-qwen3-30b-a3b-fp8cs": False,
                      "mb2509-h100-qwen3-30b-a3b-fp8": False,
                      "mb2511-b200-qwen3-30b-a3b-fp8mx": True,
                      "mb2511-gb200-qwen3-30b-a3b-fp8mx": False,
                      "mb2509-b200-qwen3-30b-a3b-fp8": False,
                      "mb2509-gb200-qwen3-30b-a3b-fp8": False}


def fp8_padding_reading() -> pd.DataFrame:
    """A reading, not an engine term: the rows of ``FP8_PADDING_OF_ROW`` priced with the grouped
    MLP's explicit FP8 padding where their dispatch leaves it to run
    (``moe_layer.fp8_padding_cost_s`` per MoE layer per micro-batch, × the busiest stage's MoE
    layer-micro-batches, added to the step): ``T' = T + pads · n · t_pad``, error
    ``T_published / T' − 1``. Returns one row per run (index ``run_id``): ``split``, ``pads``,
    ``routed_tokens``, ``pad_ms`` (per MoE layer per micro-batch), ``added_s``, ``gap_ms``
    (``moe_gpu_gap``), ``error``, ``error_with``."""
    ids = tuple(FP8_PADDING_OF_ROW)
    gap = moe_gpu_gap(ids)
    cfg = validation_configs().set_index("run_id")
    rows = {}
    for run_id in ids:
        _, run, model, plan = _row_setup(run_id)
        s = int(run["seq_len"])
        x = plan.micro_batch_size * s * model.n_experts_active / (plan.tp * plan.cp)
        acc = load_accelerator(run["catalog_accelerator"])
        t_pad = float(moe_layer.fp8_padding_cost_s(x, model.d_model, acc.hbm_bytes_per_s))
        g = gap.loc[run_id]
        added = FP8_PADDING_OF_ROW[run_id] * g["moe_layer_mbs"] * t_pad
        rows[run_id] = {"split": cfg.loc[run_id, "split"], "pads": FP8_PADDING_OF_ROW[run_id],
                        "routed_tokens": x, "pad_ms": t_pad * 1e3, "added_s": added,
                        "gap_ms": g["gap_ms"], "error": g["error"],
                        "error_with": g["published_s"] / (g["priced_s"] + added) - 1.0}
    return pd.DataFrame.from_dict(rows, orient="index")


#: The 25.09 FP8-CS rows whose recipe YAML captures every transformer layer in a CUDA graph
#: (NVIDIA-NeMo/Megatron-Bridge at fa0315ae2, scripts/performance/configs: ``cuda_graphs: true``
#: for the row's system, in ``common`` or in the ``fp8_cs`` entry; helpers.py
#: ``set_cuda_graph_overrides`` → ``model.enable_cuda_graph``, one graph per layer, the MoE layer
#: included under the token-dropping padding: ``LAYER_GRAPH_PAIRS``): qwen3/
#: qwen3_30b_a3b_llm_pretrain.yaml ``gb200.num_gpus_8.common`` and ``b200.num_gpus_8.common``
#: (the B200 plan there, PP 8 × VP 12, is not the table's PP 1), deepseek/
#: deepseek_v3_llm_pretrain.yaml ``b200.num_gpus_256.fp8_cs`` (plan TP 2 there, TP 1 in the
#: table). Not graphed by the same files: DeepSeek-V3 on GB200 (``common.cuda_graphs: false``),
#: Qwen3-235B-A22B on B200 (``common.cuda_graphs: false``), every H100 row. The table's
#: unparenthesised Blackwell figures are FP8-CS: its Llama 3 8B on GB200 reads 31,357 (29,925)
#: in 25.09 and 31,508 (29,789) as 'FP8-CS (FP8-MX)' in 25.11 (docs/performance-summary.md at
#: 5776a6d90). No calibration row is among them (the graphed 25.09 calibration rows are MXFP8).
#: Read after the rows' errors were seen, for ``accuracy.fp8cs_eager_launch_comparison``.
LAYER_GRAPHED_FP8CS_ROWS = frozenset({"mb2509-gb200-qwen3-30b-a3b-fp8",
                                      "mb2509-b200-qwen3-30b-a3b-fp8",
                                      "mb2509-b200-deepseek-v3-fp8"})


#: Megatron-Bridge's Qwen3-30B-A3B FP8 recipe on 16 H100 at each release whose table an H100 row
#: cites (read after the rows' errors were seen; a reading, no engine term). Release → (row,
#: NVIDIA-NeMo/Megatron-Bridge commit of the recipe, its 3rdparty/Megatron-LM submodule commit,
#: its pyproject.toml Transformer Engine pin: a version range, or NVIDIA/TransformerEngine @ a
#: commit). 25.11: the release tag v0.2.0 = 7af9601c9
#: (scripts/performance/configs/qwen3/workload_base_configs.py
#: ``QWEN3_30B_A3B_H100_FP8_CS_BASE_CONFIG``; the table's commit 97ad8cc6f holds the same recipe
#: as ``QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_FP8_CS_BASE_CONFIG``); 26.02: v0.3.0 = 21b02e0cf;
#: 26.02.01: v0.3.1 = 9c9dd8489; 26.04: v0.4.0 = 0fbfe7d3e; 26.06: v0.5.0 = fcbb60311 (each
#: scripts/performance/configs/qwen/qwen3_workload_base_configs.py
#: ``QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_FP8_CS_V1`` and qwen3_llm_pretrain.py
#: ``qwen3_30b_a3b_pretrain_config_h100``).
H100_QWEN3_RELEASES = {
    "25.11": ("mb2511-h100-qwen3-30b-a3b-fp8cs", "7af9601c9", "0d8e0714cd29",
              ">=2.9,<2.10"),
    "26.02": ("mb2602-h100-qwen3-30b-a3b-fp8cs", "21b02e0cf", "b0cc2706ddc6",
              "@5671fd367590"),
    "26.02.01": ("mb260201-h100-qwen3-30b-a3b-fp8cs", "9c9dd8489", "55ac70825175",
                 "@5671fd367590"),
    "26.04": ("mb2604-h100-qwen3-30b-a3b-fp8cs", "0fbfe7d3e", "d7288711ba27",
              "@71bbefbf1534"),
    "26.06": ("mb2606-h100-qwen3-30b-a3b-fp8cs", "fcbb60311", "d0b3b775498a",
              "@4220403e831d"),
}

#: Every setting of that recipe, release by release (the order of ``H100_QWEN3_RELEASES``):
#: (setting, values, source at the release's commit, how the engine carries it). The last field
#: names the priced value ``h100_qwen3_priced_setting`` reads from the row (``pp``, ``vp``,
#: ``ep``, ``dp``, ``gbs``, ``mbs``, ``ep_overlap``, ``dispatch``, ``cuda_graphs``,
#: ``recompute``), or says why it is not priced. Sources: scripts/performance/utils/utils.py
#: ``WorkloadBaseConfig`` (defaults: micro_batch_size 1, cuda_graph_impl None, moe_a2a_overlap
#: False), utils/overrides.py ``_set_moe_a2a_overlap_overrides`` (moe_a2a_overlap →
#: overlap_moe_expert_parallel_comm and delay_wgrad_compute), perf_plugins.py ``PerfEnvPlugin``
#: (``_set_num_cuda_device_max_connections``: 8, 32 with a flex backend; layernorm SM margin
#: 20 with a flex backend, else 16, ``enable_layernorm_sm_margin`` True; ``_set_nvl_domain_size``
#: for HybridEP), src/megatron/bridge/training/comm_overlap.py (PP > 1 with VP > 1:
#: overlap_p2p_comm True, batch_p2p_comm False; tp_comm_overlap off at TP 1),
#: training/flex_dispatcher_backend.py ``apply_flex_dispatcher_backend`` (DeepEP on major 8 / 9:
#: flex), recipes/qwen/qwen3_moe.py and the perf script's ``set_qwen3_common_configs``.
H100_QWEN3_RECIPE_SETTINGS = (
    ("pipeline_model_parallel_size", (2, 2, 1, 1, 1), "qwen3_workload_base_configs.py", "pp"),
    ("virtual_pipeline_model_parallel_size", (12, 12, None, None, None),
     "qwen3_workload_base_configs.py", "vp"),
    ("expert_model_parallel_size", (8, 8, 16, 16, 16), "qwen3_workload_base_configs.py", "ep"),
    ("data parallel (16 / (TP x PP))", (8, 8, 16, 16, 16), "num_gpus 16, TP 1", "dp"),
    ("global_batch_size", (512, 1024, 1024, 1024, 1024), "qwen3_workload_base_configs.py",
     "gbs"),
    ("micro_batch_size", (1, 1, 1, 1, 1), "utils.py WorkloadBaseConfig default", "mbs"),
    ("moe_a2a_overlap (overlap_moe_expert_parallel_comm)", (True, True, False, False, False),
     "qwen3_workload_base_configs.py; overrides.py", "ep_overlap"),
    ("delay_wgrad_compute", (True, True, False, False, False), "overrides.py",
     "not priced: the EP overlap's A/B with and without it, 31.31 vs 31.20 s (0.4 %), "
     "skills/nemo-mbridge-perf-expert-parallel-overlap/SKILL.md at 067f987df"),
    ("moe_token_dispatcher_type / flex backend",
     ("alltoall", "flex/deepep", "flex/hybridep", "flex/hybridep", "flex/hybridep"),
     "qwen3_workload_base_configs.py; flex_dispatcher_backend.py; qwen3_llm_pretrain.py",
     "dispatch"),
    ("overlap_p2p_comm / batch_p2p_comm", ("True/False", "True/False", "no PP", "no PP",
                                            "no PP"), "training/comm_overlap.py",
     "priced with the plan: the P2P overlapped (comm_pp_overlap), one transfer per merged "
     "unit exposed (step.merged_p2p_exposure)"),
    ("CUDA_DEVICE_MAX_CONNECTIONS", (8, 32, 32, 32, 32), "perf_plugins.py",
     "not priced: 26.02 (+41 %) and 26.02.01 (-9 %) both 32"),
    ("NVTE_FWD/BWD_LAYERNORM_SM_MARGIN", (16, 20, 20, 20, 20), "perf_plugins.py",
     "not priced: 26.02 and 26.02.01 both 20"),
    ("HybridEP env (NVLINK_DOMAIN_SIZE 8, USE_MNNVL 0, RANKS_PER_NVLINK_DOMAIN 8)",
     ("-", "-", "set", "set", "set"), "perf_plugins.py _set_nvl_domain_size",
     "not priced: HybridEP's own settings (its all-to-all is priced per node)"),
    ("NUM_OF_TOKENS_PER_CHUNK_COMBINE_API", ("-", "-", "-", 128, 128),
     "perf_plugins.py (a HybridEP combine workaround)", "not priced: the well-priced rows only"),
    ("moe_hybridep_num_sms", ("-", "-", 16, 16, 16), "recipes/qwen/qwen3_moe.py",
     "not priced: HybridEP only"),
    ("Megatron-LM submodule", tuple(r[2] for r in H100_QWEN3_RELEASES.values()),
     "3rdparty/Megatron-LM", "not priced (26.02 -> 26.02.01: 13 commits on core_r0.16.0, "
     "none in MoE, dispatch, FP8 or the schedules)"),
    ("Transformer Engine pin", tuple(r[3] for r in H100_QWEN3_RELEASES.values()),
     "pyproject.toml", "not priced (26.02 and 26.02.01 the same pin)"),
    ("CUDA graphs (cuda_graph_impl)", ("none",) * 5, "WorkloadBaseConfig; recipe", "cuda_graphs"),
    ("recompute_granularity", ("none",) * 5, "set_qwen3_common_configs", "recompute"),
)

#: Settings the H100 FP8 recipe sets alike at every release above (same sources): the perf
#: script's common settings and the recipe's MoE kernels, with the environment of
#: executors.py ``PERF_ENV_VARS``.
H100_QWEN3_COMMON_SETTINGS = (
    "TP 1 (tp_comm_overlap requested, off at TP 1)", "CP 1", "sequence 4096",
    "FP8 current scaling (FP8-CS)", "moe_router_fusion True", "moe_permute_fusion True",
    "moe_grouped_gemm True", "moe_router_force_load_balancing True (dropless)",
    "moe_router_padding_for_fp8 unset / False", "manual_gc True, interval 100",
    "grad_reduce_in_fp32 False", "distributed optimizer, overlap_grad_reduce and "
    "overlap_param_gather True", "cross_entropy_loss_fusion True (TE)",
    "NCCL_NVLS_ENABLE 0, TORCH_NCCL_AVOID_RECORD_STREAMS 1, TORCH_NCCL_HIGH_PRIORITY 1",
    "NVTE_NORM_FWD/BWD_USE_CUDNN removed (PerfEnvPlugin, not the Llama rows)",
    "dataloader num_workers 8")

#: Recipe values as the engine's fields name them (``h100_qwen3_priced_setting``).
_RECIPE_AS_PRICED = {"ep_overlap": {True: "merged_1f1b", False: "none"},
                     "dispatch": {"alltoall": "per_expert", "flex/deepep": "per_node",
                                  "flex/hybridep": "per_node"},
                     "vp": {None: 1}}


def h100_qwen3_priced_setting(run_id: str, key: str):
    """The value the engine prices for a recipe setting of a validation row: ``pp``, ``vp``
    (virtual stages, 1 without interleaving), ``ep``, ``dp``, ``gbs`` (sequences), ``mbs``,
    ``ep_overlap`` (the row's, else its stack's), ``dispatch`` (the stack's ``moe_dispatch``:
    ``per_expert`` is Megatron-Core's all-to-all dispatcher, ``per_node`` DeepEP / HybridEP),
    ``cuda_graphs`` (the stack's) or ``recompute``.

    Raises
    ------
    ValueError
        An unknown key, or a run id that is not a row of ``data/validation_mfu.csv``.
    """
    keys = ("pp", "vp", "ep", "dp", "gbs", "mbs", "ep_overlap", "dispatch", "cuda_graphs",
            "recompute")
    if key not in keys:
        raise ValueError(f"key={key!r} must be one of {keys}")
    c, _, _, plan = _row_setup(run_id)
    opts = row_options(c)
    stack = load_stack(opts.stack or DEFAULT_STACK)
    return {"pp": plan.pp, "vp": plan.virtual_stages, "ep": plan.ep, "dp": plan.dp,
            "gbs": plan.dp * plan.micro_batch_size * plan.n_microbatches,
            "mbs": plan.micro_batch_size,
            "ep_overlap": stack.ep_overlap if opts.ep_overlap == "auto" else opts.ep_overlap,
            "dispatch": stack.moe_dispatch, "cuda_graphs": stack.cuda_graphs,
            "recompute": plan.recompute}[key]


def h100_qwen3_recipe_table() -> pd.DataFrame:
    """Every setting of the H100 Qwen3-30B-A3B FP8 recipe by release
    (``H100_QWEN3_RECIPE_SETTINGS``), with ``differs`` (not one value at every release),
    ``engine`` (the priced field, or why none) and ``priced_as_run`` (for a priced setting:
    the value each release's row is priced with is the recipe's, ``h100_qwen3_priced_setting``;
    None otherwise). Index: the setting."""
    releases = tuple(H100_QWEN3_RELEASES)
    rows = {}
    for name, values, source, engine in H100_QWEN3_RECIPE_SETTINGS:
        priced = None
        if " " not in engine:
            to = _RECIPE_AS_PRICED.get(engine, {})
            priced = all(h100_qwen3_priced_setting(H100_QWEN3_RELEASES[r][0], engine)
                         == to.get(v, v) for r, v in zip(releases, values))
        rows[name] = {**dict(zip(releases, values)), "differs": len(set(map(str, values))) > 1,
                      "engine": engine, "priced_as_run": priced, "source": source}
    return pd.DataFrame.from_dict(rows, orient="index")


#: The 26.02 H100 Qwen3-30B-A3B row (``mb2602-h100-qwen3-30b-a3b-fp8cs``) moved one recipe setting
#: at a time to 26.02.01's recipe (``H100_QWEN3_RECIPE_SETTINGS``; the same Megatron-Core and
#: Transformer Engine pin), for ``row_readings``: where the engine puts the published 1.77x. The
#: last reading is 26.02.01's recipe as ``mb260201-h100-qwen3-30b-a3b-fp8cs`` is priced (the
#: dispatcher, DeepEP → HybridEP, is one engine dispatch, ``per_node``, in both).
MB2602_TO_260201_READINGS = {
    "no EP overlap alone": {"ep_overlap": "none"},
    "PP 1, no interleaving (DP 16, EP 8)": {"pp": 1, "pp_virtual_stages": 1},
    "and EP 16 (8 local experts)": {"pp": 1, "pp_virtual_stages": 1, "ep": 16},
    "and no EP overlap: 26.02.01's recipe": {"pp": 1, "pp_virtual_stages": 1, "ep": 16,
                                              "ep_overlap": "none"},
}
