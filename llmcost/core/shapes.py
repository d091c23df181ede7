"""The shapes the engines share: per-layer parameter counts of a model split by how TP and EP
divide them, the per-rank parameters of a layer and of the embedding / LM head, the KV-head share
of a TP rank, and the pipeline-schedule codes.

The memory (``llmcost.memory``), communication (``llmcost.comm``), parallelism
(``llmcost.parallel``) and step-time (``llmcost.step``) engines all read a model through
``model_shapes``; nothing here computes bytes or seconds.

Conventions (as ``llmcost.memory``'s module docstring): TP divides the attention and FFN matrices
(Shoeybi et al. 2019) and the vocabulary; norms, the router, the output-projection and FFN
down-projection biases, learned position tables and MLA's down-projections are replicated on every
TP rank; with GQA a TP rank holds ``max(1/tp, 1/n_kv_heads)`` of the KV heads (one head,
replicated, once ``tp`` exceeds ``n_kv_heads``: vLLM's ``QKVParallelLinear``); routed experts are
divided by ``tp·ep``; with tied embeddings and ``pp > 1`` the last stage holds its own copy of the
shared matrix (Megatron-LM keeps both and all-reduces their gradients).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from .model import RECOMPUTE_MODES, ModelSpec

#: Pipeline schedules. Codes used in arrays are the positions in this tuple.
SCHEDULES = ("1f1b", "interleaved", "gpipe", "zb-h1")


@dataclass(frozen=True)
class ModelShapes:
    """Per-layer and per-part counts of one model, split by how TP/EP divide them.

    Sizes: ``L`` layers, ``h`` d_model, ``a`` query heads, ``g`` KV heads, ``dh``/``dqk``/``dv``
    head widths, ``V`` vocabulary, ``f`` dense FFN width, ``fe`` expert width, ``k`` active and
    ``E`` routed experts, ``ns`` shared experts. Parameter counts per layer: ``*_split`` are
    divided by TP, ``*_rep`` replicated on every TP rank, ``attn_kv`` divided by
    ``kv_fraction``.
    """

    L: int
    h: float
    a: float
    g: float
    dh: float
    dqk: float
    dv: float
    V: float
    f: float
    fe: float
    k: float
    ns: float
    E: float
    gated: bool
    mla: bool
    mla_latent: float          # MLA: q_lora + kv_lora + rope width of the replicated latents
    n_dense_prefix: int
    interval: int
    is_moe: bool
    # parameters per layer
    attn_split: float
    attn_kv: float
    attn_rep: float
    norm_layer: float
    ffn_split: float
    ffn_rep: float
    shared_split: float
    shared_rep: float
    router: float
    expert_split: float
    expert_rep: float
    # parameters outside the layers
    emb_split: float
    emb_rep: float
    head_split_untied: float
    tied: bool
    final_norm: float


def model_shapes(model: ModelSpec) -> ModelShapes:
    """The ``ModelShapes`` of a model (cached): ``ModelSpec.param_breakdown`` divided per layer
    and split into the parts TP divides (``*_split``), replicates (``*_rep``) and, for GQA K/V,
    divides by ``kv_fraction``.

    Raises
    ------
    ValueError
        If ``model`` is not a ``ModelSpec``.
    """
    if not isinstance(model, ModelSpec):
        raise ValueError(f"model={model!r} must be a ModelSpec (llmcost.load_model)")
    return _model_shapes(model)


@lru_cache(maxsize=64)
def _model_shapes(model: ModelSpec) -> ModelShapes:
    b = model.param_breakdown
    h, a, g, dh, L = model.d_model, model.n_heads, model.n_kv_heads, model.d_head, model.n_layers
    attn_layer = b["attention"] / L
    if model.attention == "gqa":
        kv = 2 * h * g * dh + (2 * g * dh if model.bias in ("qkv", "all") else 0)
        rep = h if model.bias == "all" else 0
        mla_latent = 0.0
    else:
        kv = 0
        rep = h * (model.kv_lora_rank + model.qk_rope_head_dim) + model.kv_lora_rank
        if model.q_lora_rank:
            rep += h * model.q_lora_rank + model.q_lora_rank
        mla_latent = model.q_lora_rank + model.kv_lora_rank + model.qk_rope_head_dim
    norm_p = h * (2 if model.norm == "layernorm" else 1)
    n_dense = model.n_dense_ffn_layers
    n_moe = model.n_moe_layers
    down_bias = h if model.bias == "all" else 0
    ffn_layer = b["ffn_dense"] / n_dense if n_dense else 0.0
    shared_layer = b["ffn_shared_experts"] / n_moe if n_moe else 0.0
    routed_layer = b["ffn_routed_experts"] / n_moe if n_moe else 0.0
    return ModelShapes(
        L=L, h=h, a=a, g=g, dh=dh, dqk=model.d_qk, dv=model.d_v, V=model.vocab_size,
        f=model.d_ff, fe=model.d_ff_expert, k=model.n_experts_active, ns=model.n_shared_experts,
        E=model.n_experts, gated=model.ffn_type == "gated", mla=model.attention == "mla",
        mla_latent=mla_latent, n_dense_prefix=model.n_dense_layers,
        interval=model.moe_layer_interval, is_moe=model.is_moe,
        attn_split=attn_layer - kv - rep, attn_kv=kv, attn_rep=rep, norm_layer=2 * norm_p,
        ffn_split=ffn_layer - (down_bias if n_dense else 0), ffn_rep=down_bias if n_dense else 0,
        shared_split=shared_layer - model.n_shared_experts * down_bias,
        shared_rep=model.n_shared_experts * down_bias,
        router=b["router"] / n_moe if n_moe else 0.0,
        expert_split=routed_layer - model.n_experts * down_bias,
        expert_rep=model.n_experts * down_bias if n_moe else 0.0,
        emb_split=b["embedding"],
        emb_rep=b["position"] + (norm_p if model.embedding_norm else 0),
        head_split_untied=b["lm_head"], tied=model.tied_embeddings, final_norm=norm_p,
    )


def kv_fraction(c: ModelShapes, tp):
    """Fraction of the KV heads one TP rank holds (1/g when tp > g: one head, replicated)."""
    return np.maximum(1.0 / tp, 1.0 / c.g)


def layer_params(c: ModelShapes, tp, ep, etp=None):
    """Per-rank parameters of one dense-FFN layer, one MoE layer (non-expert part) and one MoE
    layer's routed experts: the experts' matrices divided by ``etp·ep`` (``etp`` the expert
    tensor-parallel size, ``expert_tp``; None: ``tp``), their output biases by ``ep``."""
    attn = c.attn_split / tp + c.attn_kv * kv_fraction(c, tp) + c.attn_rep + c.norm_layer
    dense = attn + c.ffn_split / tp + c.ffn_rep
    moe = attn + c.router + c.shared_split / tp + c.shared_rep
    expert = c.expert_split / ((tp if etp is None else etp) * ep) + c.expert_rep / ep
    return dense, moe, expert


#: What the array engines require of an ``etp`` (expert tensor-parallel size) they are given.
ETP_RULE = ("etp must be tp (Megatron-Core's default, expert_tensor_parallel_size = "
            "tensor_model_parallel_size) or 1 (MoE parallel folding)")


def expert_tp(plans, tp):
    """The expert tensor-parallel size of arrays of plans, as floats: ``plans["etp"]`` where a
    plan gives one, else ``tp`` (Megatron-Core's default: ``expert_tensor_parallel_size``
    defaults to ``tensor_model_parallel_size``, megatron/training/arguments.py). ``tp``: the
    plans' TP sizes (``plan_axes``).

    MoE parallel folding (Liu et al. 2025, "MoE Parallel Folding", arXiv:2504.14960;
    Megatron-Core's MoE README, "MoE Parallel Folding") lays the MoE layers out as
    ETP × EP × EDP over the same ranks as the attention's TP × CP × DP; the engines price
    the two layouts practice uses, ETP = TP and ETP = 1 (``ETP_RULE``).

    Raises
    ------
    ValueError
        An ``etp`` that is neither 1 nor the plan's tp (naming the value, its position and
        ``ETP_RULE``).
    """
    tpf = np.asarray(tp, dtype=float)
    e = plans.get("etp") if hasattr(plans, "get") else None
    if e is None:
        return tpf
    arr = np.asarray(e)
    if arr.dtype == object:            # a table's column: None where the plan gives none
        arr = np.array([np.nan if v is None else v for v in np.ravel(arr)],
                       dtype=float).reshape(arr.shape)
    try:
        arr = arr.astype(float)
    except (TypeError, ValueError):
        raise ValueError(f"etp={e!r} breaks the rule: {ETP_RULE}") from None
    try:
        fits = np.broadcast_shapes(arr.shape, tpf.shape) == tpf.shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"etp: an array of shape {arr.shape} for plans of shape {tpf.shape} "
                         "breaks the rule: one etp per plan, or one for all")
    etp = np.where(np.isnan(arr), tpf, arr)
    bad = (etp != 1.0) & (etp != tpf)
    if np.any(bad):
        flat = np.ravel(np.broadcast_to(bad, np.broadcast(etp, tpf).shape))
        i = int(np.flatnonzero(flat)[0])
        val = np.ravel(np.broadcast_to(etp, flat.shape))[i]
        t = np.ravel(np.broadcast_to(tpf, flat.shape))[i]
        where = f" (plan {i + 1} of {flat.size})" if flat.size > 1 else ""
        raise ValueError(f"etp={val:g}{where} breaks the rule: {ETP_RULE} (tp={t:g})")
    return np.broadcast_to(etp, np.broadcast(etp, tpf).shape).astype(float)


def edge_params(c: ModelShapes, tp, pp):
    """Per-rank parameters outside the layers: (embedding on the first stage, the LM head's
    matrix, the LM head with the final norm on the last stage). A tied head is a second copy of
    the embedding once the pipeline puts them on different stages."""
    emb = c.emb_split / tp + c.emb_rep
    head_mat = np.where(pp > 1, c.head_split_untied if not c.tied else c.V * c.h,
                        c.head_split_untied)
    return emb, head_mat, head_mat / tp + c.final_norm


def schedule_code(schedule):
    """A schedule name, or an array of schedule codes, as an array of codes (``SCHEDULES``)."""
    if isinstance(schedule, str):
        if schedule not in SCHEDULES:
            raise ValueError(f"schedule={schedule!r} must be one of {SCHEDULES}")
        return np.asarray(SCHEDULES.index(schedule))
    code = np.asarray(schedule)
    if code.ndim == 0 and code.dtype.kind in "iu":          # one plan's code, read in Python
        if not 0 <= int(code) < len(SCHEDULES):
            raise ValueError(f"schedule codes must be in 0..{len(SCHEDULES) - 1}")
        return code
    if code.size and (code.min() < 0 or code.max() >= len(SCHEDULES)):
        raise ValueError(f"schedule codes must be in 0..{len(SCHEDULES) - 1}")
    return code


class PlanAxes(NamedTuple):
    """A plan table's fields as the arrays the engines broadcast together (``plan_axes``)."""

    tp: np.ndarray
    pp: np.ndarray
    dp: np.ndarray
    cp: np.ndarray
    ep: np.ndarray
    v: np.ndarray        # virtual stages
    mbs: np.ndarray      # micro-batch size
    m: np.ndarray        # micro-batches per step
    z: np.ndarray        # ZeRO stage
    rc: np.ndarray       # recomputation code (``RECOMPUTE_MODES``)
    sched: np.ndarray    # schedule code (``SCHEDULES``)
    sp: np.ndarray       # sequence parallelism, as given
    shape: tuple         # the shape they broadcast to


def plan_axes(plans) -> PlanAxes:
    """``plans``' integer fields as int64 arrays, its recomputation and schedule as codes
    (``RECOMPUTE_MODES``, ``schedule_code``), sequence parallelism as a boolean array, and the
    shape they broadcast to: what the step-time and memory engines read of every plan."""
    tp, pp, dp, cp, ep, v, mbs, m, z = (np.asarray(plans[f], dtype=np.int64) for f in (
        "tp", "pp", "dp", "cp", "ep", "virtual_stages", "micro_batch_size", "n_microbatches",
        "zero_stage"))
    recompute = plans["recompute"]
    rc = np.asarray(RECOMPUTE_MODES.index(recompute) if isinstance(recompute, str) else recompute)
    sched = schedule_code(plans["schedule"])
    sp = np.asarray(plans["sequence_parallel"], dtype=bool)
    shape = np.broadcast(tp, pp, dp, cp, ep, v, mbs, m, z, rc, sched, sp).shape
    return PlanAxes(tp, pp, dp, cp, ep, v, mbs, m, z, rc, sched, sp, shape)


#: What the array engines require of every plan they are given (``check_plan_arrays``).
PLAN_ARRAY_RULES = {
    "tp": "tp must be a positive integer dividing n_heads",
    "pp": "pp must be a positive integer",
    "dp": "dp must be >= 1",
    "cp": "cp must be a positive integer",
    "ep": "ep must be a positive integer",
    "virtual_stages": "virtual_stages must be >= 1",
    "micro_batch_size": "micro_batch_size must be >= 1",
    "n_microbatches": "n_microbatches must be >= 1 (a step runs at least one micro-batch)",
    "zero_stage": "zero_stage must be 0, 1, 2 or 3",
}


def _bounds(name: str) -> tuple:
    """``(lowest, highest or None)`` a ``PLAN_ARRAY_RULES`` field may take: ZeRO stages 0-3,
    every other field at least 1 (tp also divides the heads: ``check_plan_arrays``)."""
    return (0, 3) if name == "zero_stage" else (1, None)


def _keeps_rule(name: str, v: int, heads: int) -> bool:
    """Whether one plan's whole number ``v`` of field ``name`` keeps its ``PLAN_ARRAY_RULES``
    rule (``check_plan_arrays``, which words a broken one)."""
    lo, hi = _bounds(name)
    if v < lo or (hi is not None and v > hi):
        return False
    return name != "tp" or heads % v == 0


def check_plan_arrays(model: ModelSpec, **plan) -> None:
    """Reject invalid plans given to a vectorised engine (``step.step_arrays``,
    ``memory.plan_memory_arrays``) before any arithmetic, so that a broken plan raises instead
    of returning a finite MFU or byte count.

    ``plan`` holds the engines' integer arrays (or scalars): ``tp``, ``pp``, ``dp``, ``cp``,
    ``ep``, ``virtual_stages``, ``micro_batch_size``, ``n_microbatches``, ``zero_stage``; a
    missing field is not checked. The rules are ``PLAN_ARRAY_RULES``; the full plan rules
    (``parallel.RULES``: product, batch, schedule...) are the enumerator's and
    ``ParallelPlan.validate``'s.

    Raises
    ------
    ValueError
        Naming the first field that breaks its rule, the first offending value and (for
        arrays) its position: e.g. ``tp=3 (plan 5 of 12) breaks the rule: tp must be a
        positive integer dividing n_heads (n_heads=32)``.
    """
    heads = int(model.n_heads)
    for name, rule in PLAN_ARRAY_RULES.items():
        if name not in plan:
            continue
        arr = np.asarray(plan[name])
        if arr.ndim == 0 and arr.dtype.kind in "iu" and _keeps_rule(name, int(arr), heads):
            continue                                     # one plan's size, checked in Python
        if arr.dtype.kind not in "iub":
            if arr.dtype.kind != "f" or not np.all(np.isfinite(arr)) or \
                    np.any(arr != np.round(arr)):
                flat = np.ravel(arr)
                bad = flat[0] if arr.dtype.kind != "f" else \
                    flat[np.flatnonzero(~np.isfinite(flat) | (flat != np.round(flat)))[0]]
                bad = bad.item() if hasattr(bad, "item") else bad
                raise ValueError(f"{name}={bad!r} breaks the rule: {rule} (an integer)")
        lo, hi = _bounds(name)
        bad = (arr < lo) | (arr > hi) if hi is not None else arr < lo
        if name == "tp":
            bad = bad | (heads % np.maximum(arr, 1) != 0)
        if np.any(bad):
            i = int(np.flatnonzero(np.ravel(np.broadcast_to(bad, arr.shape)))[0])
            val = np.ravel(arr)[i]
            where = f" (plan {i + 1} of {arr.size})" if arr.size > 1 else ""
            extra = f" (n_heads={heads})" if name == "tp" else ""
            raise ValueError(f"{name}={val.item()!r}{where} breaks the rule: {rule}{extra}")


def shard_group_arrays(dp, cp, ep, zero_stage, fsdp_shard_size=None):
    """The ZeRO-3 shard group of arrays of plans, checked: ``(shard, replicas)``, float arrays.

    ``shard`` = the ranks one replica's dense parameters, gradients and optimizer states are
    sharded over (``fsdp_shard_size``; the whole dp·cp group where it is None, and for
    ZeRO-0/1/2 rows, whose group is always dp·cp; 0 is refused: pass None or dp·cp for the
    whole group); ``replicas`` = dp·cp / shard (1 without
    hybrid sharding). The array form of ``parallel.check_fsdp_shard``'s rule.

    Raises
    ------
    ValueError
        A shard size below 0 or not whole, not dividing dp·cp, differing from dp·cp on a row
        whose ZeRO stage is not 3, or (ep > 1) not a multiple of ep·cp: naming the field, the
        first offending value, its position and the rule.
    """
    g = np.asarray(dp, dtype=np.int64) * np.asarray(cp, dtype=np.int64)
    if fsdp_shard_size is None:
        gf = g.astype(float)
        return gf, np.ones_like(gf)
    f = np.asarray(fsdp_shard_size)
    if f.dtype.kind == "f" and np.all(np.isfinite(f)) and np.all(f == np.round(f)):
        f = f.astype(np.int64)
    if f.dtype.kind not in "iu":
        flat = np.ravel(f)
        raise ValueError(f"fsdp_shard_size={flat[0].item() if flat.size else f!r} breaks the "
                         "rule: fsdp_shard_size must be a whole number >= 1 (None: the whole "
                         "dp·cp group)")
    z = np.asarray(zero_stage)
    e = np.asarray(ep, dtype=np.int64)
    c = np.asarray(cp, dtype=np.int64)
    safe = np.maximum(f, 1)
    rules = (
        (f < 1, "fsdp_shard_size must be a whole number >= 1 (None, not 0, for the whole dp·cp "
                "group)"),
        (g % safe != 0, "fsdp_shard_size must divide dp·cp"),
        ((f != g) & (z != 3), "fsdp_shard_size below dp·cp (hybrid sharding) needs zero_stage 3"),
        ((f != g) & (e > 1) & (safe % np.maximum(e * c, 1) != 0),
         "with ep > 1, ep·cp must divide fsdp_shard_size"),
    )
    shape = np.broadcast(f, g, z, e).shape
    for bad, rule in rules:
        bad = np.broadcast_to(bad, shape)
        if np.any(bad):
            i = int(np.flatnonzero(np.ravel(bad))[0])
            val = np.ravel(np.broadcast_to(f, shape))[i]
            grp = np.ravel(np.broadcast_to(g, shape))[i]
            where = f" (plan {i + 1} of {bad.size})" if bad.size > 1 else ""
            raise ValueError(f"fsdp_shard_size={val.item()!r}{where} breaks the rule: {rule} "
                             f"(dp·cp = {grp.item()})")
    ff = np.broadcast_to(f, shape).astype(float)
    return ff, np.broadcast_to(g, shape).astype(float) / ff
