"""Plan ranking: every parallel plan that fits, ordered by the predicted step time.

``rank_plans`` enumerates the plan space (``parallel.enumerate_plans``: TP, PP, virtual stages,
micro-batch size, ZeRO stage, recomputation, schedule, as numpy masks), keeps the plans that fit
in memory (``fitting_plans``) and prices them all at once with the step-time engine
(``step.step_arrays`` through ``rank_by_step_time``); ``add_run_cost`` turns tokens/s into days,
GPU-hours and dollars. ZeRO-3 rows are upper bounds (``step``'s **Limits**), so
``fastest_trusted`` and ``parallel.choose_plan`` take ZeRO-3 only when it wins with its step
lengthened by ``parallel.ZERO3_STEP_MARGIN`` or nothing else fits (``parallel.best_ranked_row``).
``time_ranking`` is the ranking a scenario's plan search passes to ``parallel.choose_plan``.

Studies built on the ranking: ``scaling_study`` (the fastest plan per GPU count, strong or weak
scaling) and ``sharding_study`` / ``hsdp_pays_from`` (ZeRO-3 over the whole group against HSDP
shard groups). The formulas are the engine's, in ``llmcost.training.step``.
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pandas as pd

from ..core import stacks
from ..core.catalog import as_accelerator, as_model, load_accelerator
from ..core.diskcache import disk_cached
from ..core.hardware import Cluster, as_cluster
from ..core.model import RECOMPUTE_MODES, ModelSpec
from ..core.shapes import SCHEDULES
from ..core.stacks import DEFAULT_STACK
from ..core.units import SECONDS_PER_HOUR, as_array, as_scalar
from .comm import node_limit_routable
from .memory import PP_SPLITS, memory_per_gpu
from .options import StepOptions, stack_memory_practice
from .parallel import (PP_SPLIT_AUTO, EmptyPlanTable, bare_frame, best_ranked_row,
                       empty_reason, enumerate_plans, make_plan, plan_from_row, recount_memory)
from .step import PARTS, TP_OVERLAP, check_step_inputs, step_arrays, step_time


def rank_by_step_time(plans: pd.DataFrame, model: ModelSpec, cluster: Cluster, seq_len=None, *,
                      options: StepOptions | None = None, **keywords) -> pd.DataFrame:
    """Add the predicted step time (and MFU, tokens/s, the parts) to rows of ``enumerate_plans``
    and sort them, fastest first. ``options`` and ``keywords`` as ``step_time``; ``pp_split`` is
    read from the frame's ``pp_split`` column (each row's split), else its attrs. Used by
    ``rank_plans`` and as ``choose_plan``'s default ranking. Rows whose EP layout the stack's
    node-limited routing cannot serve (``comm.node_limit_routable``: the limited nodes hold
    fewer experts than a token's top-k) are dropped, not priced, and so are rows whose
    micro-batch count the options' ``pipeline_flushes`` f does not divide (each of the step's f
    pipeline schedules runs m / f micro-batches, ``step._check_flushes``'s rule)."""
    opts = StepOptions.build(options, **keywords)
    keep = _routable(plans, model, cluster, opts) & _flushes_divide(plans, opts)
    out = bare_frame(plans)[keep].copy()       # its columns read without copying the attrs
    if out.empty:
        for k in ("step_time_s", "mfu", "hfu", "tokens_per_s", "exposed_comm_s") + PARTS:
            out[k] = pd.Series(dtype=float)
        out.attrs = copy.deepcopy(plans.attrs)     # its own, as a pandas copy's
        return out
    rc = out["recompute"]
    sch = out["schedule"]
    codes_rc = rc.cat.codes.to_numpy() if hasattr(rc, "cat") else \
        np.array([RECOMPUTE_MODES.index(r) for r in rc])
    codes_s = sch.cat.codes.to_numpy() if hasattr(sch, "cat") else \
        np.array([SCHEDULES.index(x) for x in sch])
    shard = out["fsdp_shard_size"].to_numpy() if "fsdp_shard_size" in out else None
    if shard is not None and np.array_equal(shard, (out["dp"] * out["cp"]).to_numpy()):
        shard = None                # no HSDP row: the whole-group engine path, as before HSDP
    res = step_arrays(
        model, cluster, tp=out["tp"].to_numpy(), pp=out["pp"].to_numpy(),
        dp=out["dp"].to_numpy(), cp=out["cp"].to_numpy(), ep=out["ep"].to_numpy(),
        virtual_stages=out["virtual_stages"].to_numpy(),
        micro_batch_size=out["micro_batch_size"].to_numpy(),
        n_microbatches=out["n_microbatches"].to_numpy(),
        zero_stage=out["zero_stage"].to_numpy(), recompute=codes_rc, schedule=codes_s,
        sequence_parallel=out["sequence_parallel"].to_numpy(),
        seq_len=plans.attrs.get("seq_len", seq_len), pp_split=_split_of(out, plans.attrs),
        fsdp_shard_size=shard, etp=out["etp"].to_numpy() if "etp" in out else None,
        options=opts)
    added = ("step_time_s", "mfu", "hfu", "tokens_per_s", "exposed_comm_s") + PARTS
    for k in (k for k in added if k in out):     # a ranked frame ranked again: in place
        out[k] = res[k]
    out = pd.concat([out, pd.DataFrame({k: res[k] for k in added if k not in out},
                                       index=out.index)], axis=1)   # one insert, not one each
    # ties (hidden communication makes ZeRO stages equally fast) go to the plan that moves and
    # shards less: lower ZeRO stage, then less memory
    out.attrs = copy.deepcopy(plans.attrs)
    return out.sort_values(["step_time_s", "zero_stage", "memory_bytes"], kind="stable")


def _routable(plans: pd.DataFrame, model: ModelSpec, cluster: Cluster, opts: StepOptions):
    """The rows of ``plans`` whose EP layout the node limit of ``opts`` (its stack's
    ``moe_node_limit`` or its own) can route (``comm.node_limit_routable``); all for a dense
    model, an empty frame or no limit."""
    limit = opts.resolve_on(cluster).comm.moe_node_limit
    if plans.empty or not model.is_moe or limit is None:
        return np.ones(len(plans), dtype=bool)
    # the EP group's stride: the experts' TP (tp, or an etp column's 1: MoE parallel folding)
    stride = plans["tp"].to_numpy()
    if "etp" in plans:
        stride = np.minimum(plans["etp"].to_numpy(), stride)
    return node_limit_routable(model.n_experts, model.n_experts_active, plans["ep"].to_numpy(),
                               stride, cluster.scaleup_domain_size, limit)


def _flushes_divide(plans: pd.DataFrame, opts: StepOptions) -> np.ndarray:
    """The rows of ``plans`` whose micro-batch count m the options' ``pipeline_flushes`` f
    divides (m mod f = 0); all when f = 1 or the frame is empty."""
    f = opts.pipeline_flushes
    if plans.empty or np.all(np.asarray(f) == 1):
        return np.ones(len(plans), dtype=bool)
    return plans["n_microbatches"].to_numpy() % np.asarray(f, dtype=np.int64) == 0


def _split_of(plans: pd.DataFrame, attrs: dict):
    """The rows' layer splits for ``step_arrays``: the ``pp_split`` column of
    ``enumerate_plans`` (its codes, positions in ``memory.PP_SPLITS``), else the table's
    (``attrs``, the table's ``attrs``)."""
    col = plans.get("pp_split")
    if col is not None and hasattr(col, "cat") and list(col.cat.categories) == list(PP_SPLITS):
        return col.cat.codes.to_numpy().astype(np.int64)
    if col is not None:
        return col.astype(str).to_numpy()
    return attrs.get("pp_split", "even")


def time_ranking(model: ModelSpec, cluster: Cluster, seq_len=None,
                 recipe="bf16_adam_fp32_grads", options: StepOptions | None = None):
    """The ranking a scenario's plan search uses (``scenario_plan`` passes it to
    ``parallel.choose_plan``): a callable ordering an ``enumerate_plans`` frame by
    ``rank_by_step_time`` with ``options`` (``step_scenario.scenario_plan`` passes the
    scenario's own: dtype, stack, overlaps, so that its plan is the first row of ``rank_plans``
    with those options among the plans that keep its fixed fields; None: default overlap
    settings, bf16, FlashAttention). ``recipe`` replaces ``options.recipe``."""
    opts = StepOptions.build(options, recipe=recipe)

    def rank(frame):
        return rank_by_step_time(frame, model, cluster, seq_len, options=opts)
    return rank


def rank_plans(model: ModelSpec, cluster: Cluster, global_batch: int, seq_len=None, *,
               train_tokens=None, price_usd_per_gpu_hour=None, within_scaleup_domain=True,
               options: StepOptions | None = None, **keywords) -> pd.DataFrame:
    """Every parallel plan that fits, ranked by predicted step time (best first).

    Enumerates the plan space with ``parallel.enumerate_plans`` (every combination of TP, PP,
    virtual stages, micro-batch size, ZeRO stage, recomputation and schedule; rules as numpy
    masks), keeps the plans that fit in memory (and, by default, keep TP inside the scale-up
    domain), and evaluates ``step_arrays`` on all of them at once.

    Parameters
    ----------
    model, cluster, global_batch, seq_len
        As ``enumerate_plans`` (``global_batch`` in sequences).
    train_tokens : float, optional
        Tokens to train; adds ``days`` (wall-clock, no failures) and ``gpu_hours``.
    price_usd_per_gpu_hour : float, optional
        Adds ``cost_usd`` (needs ``train_tokens``).
    within_scaleup_domain : bool
        Drop plans whose TP group crosses the scale-up domain.
    options : StepOptions, optional
        The step-time settings in one object (as ``step_time``); the ``StepOptions`` fields
        among ``keywords`` replace its fields, the others are ``enumerate_options``.
    recipe, flash_attention, dropout, dtype, tp_overlap, pp_overlap, dp_overlap, efficiency,
    kernel_efficiency
        As ``step_time`` (``recipe`` also sets the memory check).
    stack : str or Stack, optional
        A named stack also limits the search to its schedules, ZeRO stages, recomputation modes
        and sequence parallelism (``stacks.plan_options``; an option list passed in
        ``enumerate_options`` wins). None: every feature the model knows, with
        ``stacks.DEFAULT_STACK``'s kernels and overlaps.
    tp_overlap, dp_overlap : a mode, or a list of modes to search (Calculon's dimensions)
        Lists are ranked by ``_rank_overlap_modes``: only the dominant mode is evaluated unless
        ``prune_dominated=False`` (``TP_OVERLAP_DOMINANCE``); the frame gains ``tp_overlap``
        and ``dp_overlap`` columns.
    **keywords
        ``StepOptions`` fields, and the enumerate options, passed to ``enumerate_plans`` (``tp``, ``pp``, ``zero_stage``, ``recompute``,
        ``schedule``, ``sequence_parallel``, ``pp_split``, ``reserve``, ``fsdp_shard_size``:
        hybrid-sharding sizes, "auto" with a stack that has HSDP...), and the physics options of
        ``PHYSICS_OPTIONS`` (passed to the step-time engine).

    Returns
    -------
    DataFrame: the ``enumerate_plans`` columns plus ``step_time_s``, ``mfu``, ``hfu``,
    ``tokens_per_s``, ``exposed_comm_s``, one column per ``PARTS`` entry and, when asked,
    ``days``, ``gpu_hours`` and ``cost_usd``; sorted by step time (ties, which hidden
    communication makes common, by lower ZeRO stage, then less memory). ``attrs`` keeps
    ``n_candidates``, ``n_valid``, ``n_fitting`` and ``n_ranked`` (with
    ``within_scaleup_domain`` and no ``tp`` list given, TP sizes above the scale-up domain are
    pruned before enumeration, so the counts are of the pruned space). ZeRO-3 rows are upper
    bounds (see the module's **Limits**) and carry ``upper_bound = True``. ``accuracy.add_bands``
    gives every row's MFU its band (``mfu_low``, ``mfu_high``, ``band_regime``).

    Raises
    ------
    ValueError
        Bad options (see ``enumerate_plans`` and ``step_time``); a price without train_tokens.
    """
    train_tokens = _one_token_count(train_tokens)
    step_kw, enumerate_options, prune = _split_keywords(options, keywords, within_scaleup_domain)
    searched = _overlap_lists(step_kw, options)
    if searched is not None:       # lists of overlap modes: a search over them
        return _rank_overlap_modes(model, cluster, global_batch, seq_len, prune=prune,
                                   train_tokens=train_tokens,
                                   price_usd_per_gpu_hour=price_usd_per_gpu_hour,
                                   within_scaleup_domain=within_scaleup_domain,
                                   tp_overlap=searched[0], dp_overlap=searched[1],
                                   options=options, **step_kw, **enumerate_options)
    model, cluster = as_model(model, needs="ranking plans"), as_cluster(cluster)
    if price_usd_per_gpu_hour is not None and train_tokens is None:
        raise ValueError("price_usd_per_gpu_hour needs train_tokens (the cost is for a run)")
    step_opts = StepOptions.build(options, **step_kw)
    plans, ok = fitting_plans(model, cluster, global_batch, seq_len, step_opts,
                              enumerate_options, within_scaleup_domain)
    reason = _empty_ranking_reason(plans, ok, cluster, within_scaleup_domain, model, seq_len)
    ok.attrs = dict(plans.attrs)
    ranked = rank_by_step_time(ok, model, cluster, options=step_opts)
    add_run_cost(ranked, cluster, train_tokens, price_usd_per_gpu_hour)
    _mark_ranking(ranked, plans, reason)
    return ranked


def _mark_ranking(ranked: pd.DataFrame, plans: pd.DataFrame, reason: str) -> None:
    """``rank_plans``' last step, in place: ZeRO-3 rows flagged ``upper_bound`` (the model hides
    their gathers at full NCCL bandwidth, see the module's **Limits**), the enumeration's
    ``attrs`` with ``n_fitting`` and ``n_ranked``, and an empty ranking's ``empty_reason``
    (also warned, ``EmptyPlanTable``, as from ``rank_plans``' caller)."""
    ranked["upper_bound"] = ranked["zero_stage"] == 3
    ranked.attrs = dict(plans.attrs)
    ranked.attrs.update(n_fitting=int(plans["fits"].sum()), n_ranked=len(ranked))
    if reason:
        ranked.attrs["empty_reason"] = reason
        warnings.warn(reason, EmptyPlanTable, stacklevel=3)


def _overlap_lists(step_kw: dict, options):
    """``(tp_overlap, dp_overlap)`` when either is a list of modes to search (then both are
    taken out of ``step_kw``), else None: ``rank_plans``' first branch."""
    tp_overlap = step_kw.get("tp_overlap", "auto" if options is None else options.tp_overlap)
    dp_overlap = step_kw.get("dp_overlap", "auto" if options is None else options.dp_overlap)
    if not (isinstance(tp_overlap, (tuple, list)) or isinstance(dp_overlap, (tuple, list))):
        return None
    step_kw.pop("tp_overlap", None)
    step_kw.pop("dp_overlap", None)
    return tp_overlap, dp_overlap


def _split_keywords(options, keywords: dict, within_scaleup_domain):
    """``rank_plans``'s keywords split into (``StepOptions`` fields, ``enumerate_plans``
    options, ``prune_dominated``), each checked (``step.check_step_inputs``)."""
    if options is not None and not isinstance(options, StepOptions):
        raise ValueError(f"options={options!r} must be a StepOptions (or None)")
    names = StepOptions.names()
    step_kw = {k: keywords.pop(k) for k in names if k in keywords}
    enumerate_options = keywords
    check_step_inputs(dropout=step_kw.get("dropout", False), efficiency=step_kw.get("efficiency"),
                      within_scaleup_domain=within_scaleup_domain, options=enumerate_options)
    prune = enumerate_options.pop("prune_dominated", True)
    return step_kw, enumerate_options, prune


def fitting_plans(model: ModelSpec, cluster: Cluster, global_batch: int, seq_len,
                  step_opts: StepOptions, enumerate_options: dict, within_scaleup_domain=True):
    """The plans ``rank_plans`` ranks: ``(plans, ok)``, every plan ``parallel.enumerate_plans``
    lists (with ``step_opts``'s recipe, dropout and FlashAttention, and a named stack's
    schedules, ZeRO stages and recomputation modes, ``stacks.plan_options``; with a named
    stack, memory counted as it stores it: ``parallel.recount_memory`` under
    ``options.stack_memory_practice``) and those of them
    that fit in memory (and keep TP inside the scale-up domain when ``within_scaleup_domain``).
    Without a ``pp_split`` option the layer split is searched too (``parallel.PP_SPLIT_AUTO``:
    even where pp·virtual_stages divides the layers, uneven elsewhere) unless the named stack
    places layers only evenly (``stacks.Stack.uneven_pp``).

    With ``within_scaleup_domain`` and no ``tp`` among ``enumerate_options``, TP sizes above the
    scale-up domain are pruned before enumeration (they would never be ranked); when nothing is
    left the whole space is enumerated again, so that ``plans`` says why.
    """
    o = step_opts.resolve_on(cluster)
    stack, recipe, dropout = step_opts.stack, step_opts.recipe, step_opts.dropout
    if stack is not None:
        enumerate_options = {**stacks.plan_options(stack), **enumerate_options}
    if "pp_split" not in enumerate_options:   # searched: even and uneven, where the stack can
        enumerate_options = {**enumerate_options, "pp_split": (
            PP_SPLIT_AUTO if stack is None or stacks.load_stack(stack).uneven_pp else "even")}

    def enumerate_(opts):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", EmptyPlanTable)   # re-issued by rank_plans
            df = enumerate_plans(model, cluster, global_batch, seq_len, recipe=recipe,
                                 flash_attention=o.flash_attention, dropout=dropout, **opts)
        if stack is None:
            return df
        # memory as the stack stores it (its selective policy, ZeRO-3 unit, FP8 saved inputs)
        return recount_memory(df, model, stack_memory_practice(o.stack, o.dtype))

    pruned_tp = within_scaleup_domain and "tp" not in enumerate_options
    opts = dict(enumerate_options)
    if pruned_tp:
        n = int(cluster.n_gpus)
        opts["tp"] = tuple(t for t in range(1, int(cluster.scaleup_domain_size) + 1)
                           if n % t == 0)
    plans = enumerate_(opts)
    ok = plans[plans["fits"]]
    if within_scaleup_domain:
        ok = ok[ok["tp_in_scaleup_domain"]]
    if pruned_tp and ok.empty:         # say why with the whole space
        plans = enumerate_(enumerate_options)
        ok = plans[plans["fits"] & plans["tp_in_scaleup_domain"]]
    return plans, ok


def _one_token_count(train_tokens):
    """``rank_plans``' ``train_tokens``: None, or one positive number, checked before the search
    (an API trial's list raised numpy's TypeError after the whole ranking)."""
    return None if train_tokens is None else as_scalar(train_tokens, "train_tokens",
                                                       positive=True)


def add_run_cost(ranked: pd.DataFrame, cluster: Cluster, train_tokens=None,
                 price_usd_per_gpu_hour=None) -> None:
    """Add a run's length and cost to a ranking, in place: with ``train_tokens`` D,
    ``days`` = D / tokens_per_s / 86,400 (wall clock, no failures) and ``gpu_hours`` =
    D / tokens_per_s × n_gpus / 3,600; with a price too, ``cost_usd`` = gpu_hours × price."""
    if train_tokens is None:
        return
    d = as_array(train_tokens, "train_tokens", positive=True)
    wall = float(d) / ranked["tokens_per_s"]
    ranked["days"] = wall / 86400.0
    ranked["gpu_hours"] = wall * cluster.n_gpus / SECONDS_PER_HOUR
    if price_usd_per_gpu_hour is not None:
        price = as_scalar(price_usd_per_gpu_hour, "price_usd_per_gpu_hour", positive=True)
        ranked["cost_usd"] = ranked["gpu_hours"] * price

#: Overlap modes in order of dominance: a later mode never exposes more communication than an
#: earlier one (``tp_exposure``: ``max(t − W, 0) <= t``; ``zero_exposure`` and
#: ``comm.overlap_cost``: ``max(c − w, 0) + σ·min(c, w) <= c`` for σ < 1), so with every other
#: setting equal it is never slower.
TP_OVERLAP_DOMINANCE = ("none", "backward", "all")


def _rank_overlap_modes(model, cluster, global_batch, seq_len, *, prune, tp_overlap,
                        dp_overlap, **options):
    """``rank_plans`` over several TP / DP overlap modes (Calculon's search dimensions).

    With ``prune`` (the default) only the dominant mode of each list is evaluated
    (``TP_OVERLAP_DOMINANCE``; ``True`` over ``False`` for DP): the dominated ones cannot win
    (``attrs["pruned_modes"]`` lists them). Without it every combination is ranked and the
    frames concatenated (the baseline ``benchmarks/bench_rank_plans.py`` times). Adds the
    columns ``tp_overlap`` and ``dp_overlap``.
    """
    tps = list(tp_overlap) if isinstance(tp_overlap, (tuple, list)) else [tp_overlap]
    dps = list(dp_overlap) if isinstance(dp_overlap, (tuple, list)) else [dp_overlap]
    base = options.get("options")
    stack = options["stack"] if "stack" in options else (None if base is None else base.stack)
    st = stacks.load_stack(DEFAULT_STACK if stack is None else stack)
    tps = [st.tp_overlap if t == "auto" else t for t in tps]
    dps = [st.dp_overlap if d == "auto" else d for d in dps]
    for t in tps:
        if t not in TP_OVERLAP:
            raise ValueError(f"tp_overlap={t!r} must be one of {TP_OVERLAP} or 'auto'")
    for d in dps:
        if not isinstance(d, (bool, np.bool_)):
            raise ValueError(f"dp_overlap={d!r} must be True, False or 'auto'")
    if not tps or not dps:
        raise ValueError("tp_overlap and dp_overlap lists must not be empty")
    pruned = []
    if prune:
        best_t = max(tps, key=TP_OVERLAP_DOMINANCE.index)
        best_d = any(dps)
        pruned = [f"tp_overlap={t}" for t in dict.fromkeys(tps) if t != best_t] + \
            [f"dp_overlap={d}" for d in dict.fromkeys(dps) if d != best_d]
        tps, dps = [best_t], [best_d]
    frames = []
    for t in dict.fromkeys(tps):
        for d in dict.fromkeys(dps):
            r = rank_plans(model, cluster, global_batch, seq_len, tp_overlap=t, dp_overlap=d,
                           **options)
            r["tp_overlap"], r["dp_overlap"] = t, bool(d)
            frames.append(r)
    attrs = dict(frames[0].attrs)
    out = pd.concat(frames, ignore_index=True).sort_values(
        ["step_time_s", "zero_stage", "memory_bytes"], kind="stable")
    attrs.update(n_ranked=len(out), pruned_modes=pruned)
    out.attrs = attrs
    return out


def _empty_ranking_reason(plans, ok, cluster, within_scaleup_domain, model=None,
                          seq_len=None) -> str:
    """Why ``rank_plans`` ranks nothing ("" when it ranks something); a sequence beyond the
    model's declared context (``ModelSpec.max_position_embeddings``) said beside a memory
    refusal (an API trial's 1M-token sequences of Llama 3.1 8B, 131,072 declared, were told
    only of more GPUs, ZeRO-3 or recomputation)."""
    if len(ok):
        return ""
    if plans.empty:
        return empty_reason(plans.attrs)
    a = plans.attrs
    if not plans["fits"].any():
        usable = a["hbm_bytes"] * (1 - a["reserve"])
        ctx = getattr(model, "max_position_embeddings", None)
        beyond = (f"; seq_len={int(seq_len):,} is beyond {model.name}'s declared "
                  f"{ctx:,}-token context" if ctx and seq_len and seq_len > ctx else "")
        return (f"no plan fits: {a['n_valid']:,} valid plans, the smallest needs "
                f"{plans['memory_bytes'].min() / 1e9:,.1f} GB per GPU, more than the "
                f"{usable / 1e9:,.1f} GB usable on {cluster.accelerator.name} "
                f"({a['reserve']:.0%} reserve): " + _misfit_remedy(plans) + beyond)
    return (f"every one of the {int(plans['fits'].sum()):,} fitting plans has tp above the "
            f"{cluster.scaleup_domain_size}-GPU scale-up domain "
            f"(within_scaleup_domain={within_scaleup_domain}); pass within_scaleup_domain=False "
            "to rank them")


def _misfit_remedy(plans: pd.DataFrame) -> str:
    """What to change when no ranked plan fits: more GPUs, and ZeRO-3 or full recomputation
    only where the search did not try them (an infrastructure trial was told "ZeRO-3 or
    recomputation are needed" of a search that had tried both); ZeRO-3 not where no plan has
    data parallelism to shard over (one GPU)."""
    def tried(col, value):
        return col in plans and bool((plans[col] == value).any())
    sharded = "dp" in plans and bool((plans["dp"] > 1).any())
    options = [("ZeRO-3", tried("zero_stage", 3), sharded),
               ("full recomputation", tried("recompute", "full"), True)]
    done = [w for w, t, _ in options if t]
    untried = [w for w, t, useful in options if not t and useful]
    return ("more GPUs" + "".join(f" or {w}" for w in untried)
            + " are needed"
            + (f" ({' and '.join(done)} searched)" if done else ""))


def fastest_trusted(ranked: pd.DataFrame) -> pd.Series:
    """The row of a ``rank_plans`` ranking that ``parallel.choose_plan`` would take
    (``parallel.best_ranked_row``): the fastest, except that a ZeRO-3 row (``upper_bound``) must
    win with its step lengthened by ``parallel.ZERO3_STEP_MARGIN``, or be all that fits.

    Raises
    ------
    ValueError
        If the ranking is empty (no plan fits).
    """
    return best_ranked_row(ranked)


@disk_cached  # the same for every call with these arguments: core.diskcache
def sharding_study(model: ModelSpec, accelerator, n_gpus, fsdp_shard_sizes=(None, 32), *,
                   batch_per_gpu: int = 2, seq_len=None, stack="pytorch-fsdp2-2024",
                   scaleout_bytes_per_s_per_dir=None, recipe="bf16_adam_fp32_grads",
                   hsdp_all_reduce="auto", **plan_options) -> pd.DataFrame:
    """When does hybrid sharding pay? ZeRO-3 over the whole data-parallel group against HSDP
    shard groups, as GPUs are added at a fixed batch per GPU (weak scaling).

    For each GPU count n and shard size f (None = the whole group, plain ZeRO-3), the plan
    ``make_plan(model, n, batch_per_gpu·n, zero_stage=3, fsdp_shard_size=f, **plan_options)``
    (default TP1, PP1: dp = n) is priced by ``step_time`` on ``Cluster(accelerator, n)``: the
    per-layer gathers and reduce-scatters over the f-rank shard group, plus once per step the
    all-reduce of each GPU's Ψ/f gradient shard over the n/f replicas (``zero_exposure``), and
    its per-GPU memory by ``memory.memory_per_gpu`` (states 18·Ψ/f bytes with the default
    recipe). ``scaleout_bytes_per_s_per_dir`` overrides the NIC bandwidth (a slower network);
    ``hsdp_all_reduce`` ("auto" = the stack's, "per_step" or "per_microbatch") how often the
    replicas all-reduce (``stacks.Stack.hsdp_all_reduce``; pytorch-fsdp2-2024: per micro-batch,
    ``batch_per_gpu`` of them at the default micro-batch of 1).

    Returns
    -------
    DataFrame, one row per (n_gpus, shard): ``n_gpus``, ``fsdp_shard_size`` (n for the whole
    group), ``label`` ("ZeRO-3" or "HSDP-f"), ``plan`` (``describe``), ``step_time_s``,
    ``mfu``, ``dp_comm_s`` (exposed), ``memory_gb`` and ``fits``. A valid size f is skipped
    at a GPU count where it is not an HSDP plan: f >= dp·cp (a shard group as large as the
    ZeRO group is plain ZeRO-3, the ``None`` row) or f not dividing dp·cp (the ``fsdp_shard``
    rule, ``parallel.check_fsdp_shard``); so a count may have only its ZeRO-3 row.

    Raises
    ------
    ValueError
        ``n_gpus`` or ``fsdp_shard_sizes`` not a list of whole numbers >= 1 (``None`` allowed
        among the sizes), ``batch_per_gpu`` not a whole number >= 1, each naming the field and
        the value; bad options as ``make_plan`` / ``step_time``.
    """
    model = as_model(model, needs="a sharding study")
    acc = load_accelerator(accelerator) if isinstance(accelerator, str) else accelerator

    def _whole_list(name, vals, none_ok):
        if isinstance(vals, (str, bytes, dict)) or not np.iterable(vals):
            raise ValueError(f"{name}={vals!r} must be a list of whole numbers >= 1"
                             + (" or None" if none_ok else ""))
        for v in vals:
            if v is None and none_ok:
                continue
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"{name}: {v!r} must be a whole number >= 1"
                                 + (" or None (ZeRO-3 over the whole group)" if none_ok else ""))
        return list(vals)

    n_gpus = _whole_list("n_gpus", n_gpus, False)
    fsdp_shard_sizes = _whole_list("fsdp_shard_sizes", fsdp_shard_sizes, True)
    if isinstance(batch_per_gpu, bool) or not isinstance(batch_per_gpu, (int, np.integer)) or \
            batch_per_gpu < 1:
        raise ValueError(f"batch_per_gpu={batch_per_gpu!r} must be a whole number >= 1 "
                         "(sequences per GPU)")
    s = model.seq_len if seq_len is None else int(seq_len)
    opts = {"recompute": "full", **plan_options}
    rows = []
    for n in n_gpus:
        n = int(n)
        cl = Cluster(acc, n, scaleout_bytes_per_s_per_dir=scaleout_bytes_per_s_per_dir)
        for f in fsdp_shard_sizes:
            probe = make_plan(model, n, int(batch_per_gpu) * n, zero_stage=3, seq_len=s, **opts)
            if f is not None and (f >= probe.zero_group_size or probe.zero_group_size % f):
                continue
            plan = make_plan(model, n, int(batch_per_gpu) * n, zero_stage=3, seq_len=s,
                             fsdp_shard_size=f, **opts)
            b = step_time(model, cl, plan, s, stack=stack, recipe=recipe,
                          hsdp_all_reduce=hsdp_all_reduce)
            mem = memory_per_gpu(model, plan, s, recipe)
            rows.append({"n_gpus": n, "fsdp_shard_size": plan.shard_group_size,
                         "label": "ZeRO-3" if f is None else f"HSDP-{f}",
                         "plan": plan.describe(), "step_time_s": b.step_time_s, "mfu": b.mfu,
                         "dp_comm_s": b.dp_comm_s, "memory_gb": mem.total / 1e9,
                         "fits": bool(mem.fits(acc.hbm_bytes))})
    return pd.DataFrame(rows)


def hsdp_pays_from(study: pd.DataFrame, label: str = "HSDP-32", gain: float = 1.05):
    """The first GPU count of a ``sharding_study`` table at which the ``label`` rows' MFU is
    more than ``gain`` × plain ZeRO-3's (MFU ratio ``mfu[label] / mfu["ZeRO-3"] > gain``), or
    None when no count gains that much (or the label has no rows).

    Raises
    ------
    ValueError
        ``gain`` not a positive number, or a table without the ``n_gpus``, ``label`` and
        ``mfu`` columns.
    """
    if isinstance(gain, bool) or not isinstance(gain, (int, float)) or not gain > 0:
        raise ValueError(f"gain={gain!r} must be a positive number (an MFU ratio)")
    missing = {"n_gpus", "label", "mfu"} - set(getattr(study, "columns", ()))
    if missing:
        raise ValueError(f"study lacks the columns {sorted(missing)} (a sharding_study table)")
    z3, hs = (study[study["label"] == k].set_index("n_gpus")["mfu"] for k in ("ZeRO-3", label))
    ratio = (hs / z3).dropna()
    pays = ratio[ratio > gain]
    return int(pays.index.min()) if len(pays) else None



@disk_cached  # the same for every call with these arguments: core.diskcache
def scaling_study(model: ModelSpec, accelerator, n_gpus, seq_len=None, *, global_batch=None,
                  batch_per_gpu=None, **options) -> pd.DataFrame:
    """What adding GPUs buys: the fastest fitting plan (``rank_plans``) at each GPU count (ZeRO-3
    only when nothing else fits, as ``parallel.choose_plan`` decides).

    Give ``global_batch`` (sequences, fixed: **strong scaling**) or ``batch_per_gpu``
    (sequences per GPU, the global batch grows with the GPUs: **weak scaling**).

    Returns
    -------
    DataFrame indexed by ``n_gpus``: ``global_batch``, ``plan``, ``step_time_s``,
    ``tokens_per_s``, ``mfu``, ``speedup`` (tokens/s over the first count's) and ``efficiency``
    (tokens/s per GPU over the first count's); NaN where no plan fits, or where the count
    needs a network figure the catalogue lacks ("not priced: ...", the reason).

    Raises
    ------
    ValueError
        Neither or both of ``global_batch`` and ``batch_per_gpu``.
    """
    if (global_batch is None) == (batch_per_gpu is None):
        raise ValueError("give exactly one of global_batch (strong scaling) and batch_per_gpu "
                         "(weak scaling)")
    accelerator = as_accelerator(accelerator)  # a catalogue name or an Accelerator
    rows = []
    for n in n_gpus:
        n = int(n)
        gb = int(global_batch) if global_batch is not None else round(batch_per_gpu * n)
        row = {"n_gpus": n, "global_batch": gb, "plan": "no plan fits"}
        try:
            cluster = Cluster(accelerator, n)
        except ValueError as e:  # a network figure the count needs and the catalogue lacks
            # (L40S past one 8-GPU domain): said as that, not "no plan fits" (a review)
            rows.append({**row, "plan": f"not priced: {e}"})
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", EmptyPlanTable)   # the row says "no plan fits"
                ranked = rank_plans(model, cluster, gb, seq_len, **options)
        except ValueError:
            ranked = pd.DataFrame()
        if len(ranked):
            top = fastest_trusted(ranked)
            row.update(plan=plan_from_row(top, ranked.attrs.get("pp_split", "even")).describe(),
                       step_time_s=top["step_time_s"], tokens_per_s=top["tokens_per_s"],
                       mfu=top["mfu"])
        rows.append(row)
    df = pd.DataFrame(rows).set_index("n_gpus")
    for col in ("step_time_s", "tokens_per_s", "mfu"):
        if col not in df:
            df[col] = np.nan
    first = df["tokens_per_s"].dropna()
    base = first.iloc[0] if len(first) else np.nan
    base_n = first.index[0] if len(first) else np.nan
    df["speedup"] = df["tokens_per_s"] / base
    df["efficiency"] = (df["tokens_per_s"] / df.index) / (base / base_n)
    return df
