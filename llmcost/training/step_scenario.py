"""A scenario's plan and step: scenario parameters turned into the step-time model's inputs.

``scenario_plan`` is the scenario's ``ParallelPlan`` (its fixed fields, the free ones chosen by
predicted step time, ``ranking.time_ranking`` with the scenario's options,
``scenario_ranking``), ``scenario_options`` / ``scenario_step_options``
its ``StepOptions`` (recipe, dtype, stack, the overlap keys resolved against the stack), and
``scenario_step`` both and the predicted step (``step.step_time``), ``scenario_memory`` its
plan's memory as the search counts it (the stack's practice); ``scenario_rank_plans`` is
notebook 04b's ranking of every plan of the stack, ``fastest_versus_scenario`` says how its
fastest plan relates to the scenario's plan, and ``headline_figures`` are notebook 04b's summary.
"""

from __future__ import annotations

import warnings

from ..core import stacks
from ..core.catalog import load_model, scenario_cluster
from ..core.model import ModelSpec
from ..core.stacks import DEFAULT_STACK
from . import memory
from .elementwise import FP8_WEIGHT_CACHE_STACKS
from .accuracy import MfuBand, gpu_generation, regime_error
from .efficiency_profile import load_efficiency_profile
from .options import StepOptions, stack_memory_practice
from .parallel import (
    ETP_KEY,
    FSDP_SHARD_KEY,
    PLAN_PARAMETER_FIELDS,
    ParallelPlan,
    context_parallel_options,
    fixed_plan_fields,
    imbalance_roomy,
    plan_from_parameters,
    plan_from_row,
    scenario_pp_split,
    splitting_gpu_counts,
)
from .ranking import fastest_trusted, rank_plans, time_ranking
from .step import PlanDoesNotFitWarning, step_time

#: The scenario keys ``parallel.plan_from_parameters`` reads (with ``scenario_cluster`` and the
#: ranking's inputs); ``scenario_plan`` memoises its plans on them.
PLAN_KEYS = ("model", "accelerator", "n_gpus", "seq_len", "global_batch_tokens", "pp_split",
             "stack", "optimizer_recipe", "mem_reserve_fraction", "comm_scaleout_bytes_per_s",
             "comm_scaleout_latency_s", FSDP_SHARD_KEY, ETP_KEY, "dtype", "comm_tp_overlap",
             "comm_pp_overlap", "comm_dp_overlap", "fsdp_backward_prefetch", "efficiency_profile",
             "fp8_recipe", *PLAN_PARAMETER_FIELDS)
_PLAN_MEMO: dict = {}


def scenario_plan(p: dict, model: ModelSpec | None = None) -> ParallelPlan:
    """The ``ParallelPlan`` a scenario describes: its fixed fields, the free ones chosen by
    predicted step time (``parallel.plan_from_parameters`` with ``scenario_ranking(p)``: the
    fastest plan that fits with the scenario's own step options, dtype, stack and overlaps, so
    the first row of notebook 04b's ``rank_plans`` among the plans that keep the fixed fields;
    ZeRO-3 only when it wins by more than ``parallel.ZERO3_STEP_MARGIN``, nothing else fits
    or the scenario asks).

    The search takes tenths of a second and a bill, its levers and the scenario checks ask for
    the same plan many times, so plans are memoised on ``model`` and the ``PLAN_KEYS`` of ``p``
    (present or not, and each value's ``repr``): a scenario that differs in any of them is
    searched again. A refused scenario is not memoised (it raises each time).

    Raises
    ------
    PlanError (a ValueError)
        As ``parallel.plan_from_parameters``.
    """
    key = (model, tuple((k, repr(p[k])) if k in p else (k,) for k in PLAN_KEYS))
    try:
        return _PLAN_MEMO[key]
    except KeyError:
        pass
    except TypeError:  # a model that cannot be hashed: not memoised
        return plan_from_parameters(p, model, rank_factory=scenario_ranking(p))
    plan = plan_from_parameters(p, model, rank_factory=scenario_ranking(p))
    if len(_PLAN_MEMO) >= 1024:
        _PLAN_MEMO.clear()
    _PLAN_MEMO[key] = plan
    return plan


def plan_zero_stage(p: dict) -> int:
    """The ZeRO stage of the plan a scenario runs, for the regime its MFU band is read from
    (``accuracy.sharding_of``): ``zero_stage`` where the scenario fixes it (>= 0), else the one
    its plan search chooses (``scenario_plan``), 0 where no plan is found (the search's refusal
    is said by the scenario's checks). A review found a free ZeRO stage banded as 0 (Megatron
    3D) by the bill while the checks banded the ZeRO-2 plan the search chose on FSDP2."""
    z = p.get("zero_stage")
    if z is not None and int(z) >= 0:
        return int(z)
    try:
        return int(scenario_plan(p).zero_stage)
    except (ValueError, KeyError):
        return 0


def scenario_ranking(p: dict):
    """The ``rank_factory`` of a scenario's plan search: ``ranking.time_ranking`` with the
    scenario's ``StepOptions`` (``scenario_step_options``: its dtype, stack, overlaps and
    efficiency profile), so the plan chosen is the fastest by the very step-time model the
    scenario's step and notebook 04b's ranking (``rank_plans`` with ``scenario_options``) use.
    Before, the search ranked with BF16 and default overlaps: an FP8 scenario's chosen plan was
    not the fastest of its own ranking (Mixtral 8x7B FP8 on 512 H200: m=2 mbs=1 ZeRO-1 chosen at
    37.6 % MFU, m=1 mbs=2 ZeRO-2 first in the ranking at 38.9 %)."""
    opts = scenario_step_options(p)

    def factory(model, cluster, seq_len, recipe):
        return time_ranking(model, cluster, seq_len, recipe, options=opts)
    return factory


def roomy_scenario_plan(p: dict, model: ModelSpec | None = None) -> ParallelPlan:
    """The plan ``scenario_plan`` would choose among those with room for an imbalanced router
    (``parallel.imbalance_roomy``: memory + the busiest experts' extra activations at
    ``memory.MOE_CHECK_LOAD_FACTOR`` × the mean load within the usable HBM), ranked by the same
    predicted step time (``scenario_ranking``); the scenario's own plan when none has that room
    (or for a dense model). Not memoised: only the imbalance warning asks for it.

    Raises
    ------
    PlanError (a ValueError)
        As ``parallel.plan_from_parameters``.
    """
    ranking = scenario_ranking(p)

    def factory(model_, cluster, seq_len, recipe):
        rank = ranking(model_, cluster, seq_len, recipe)
        return lambda rows: rank(imbalance_roomy(rows, model_))
    model = model if model is not None else load_model(p["model"])
    return plan_from_parameters(p, model, rank_factory=factory)


#: Scenario parameters of the step-time model (notebook 04b) and their defaults: the stack and
#: the overlap keys, "auto" = the stack's (``stacks.step_options``).
SCENARIO_DEFAULTS = {"stack": DEFAULT_STACK, "comm_tp_overlap": "auto",
                     "comm_pp_overlap": "auto", "comm_dp_overlap": "auto"}


def scenario_options(p: dict) -> dict:
    """The ``step_time`` / ``rank_plans`` options of scenario parameters: ``recipe``
    (``optimizer_recipe``), ``dtype``, ``fp8_recipe`` (the FP8 scaling whose casts
    ``elementwise.fp8_cast_bytes`` prices; default ``"current"``), ``stack`` (default
    ``stacks.DEFAULT_STACK``) and the
    overlap keys ``comm_tp_overlap``, ``comm_pp_overlap``, ``comm_dp_overlap`` resolved against
    the stack ("auto", the default, takes the stack's; true/false or a mode overrides it);
    ``fsdp_backward_prefetch`` ("auto", the default: the stack's; "pre" or "post",
    ``stacks.stack_backward_prefetch``); and
    ``efficiency``, the ``Efficiency`` of an ``efficiency_profile`` file measured on one's own
    GPU (``efficiency_profile.load_efficiency_profile``: its fractions for the scenario's dtype,
    the catalogue's for the fields it did not measure) when the scenario names one. The plan
    search (``scenario_plan``) ranks plans with the catalogue's fractions either way. A plan
    field the scenario fixes that its stack lacks is kept and said (``checks._stack_warnings``)
    and priced as if the stack had it (``missing_features="price"``): the search itself only
    picks what the stack has."""
    st = stacks.load_stack(p.get("stack", DEFAULT_STACK))
    o = {k: p.get(k, v) for k, v in SCENARIO_DEFAULTS.items() if k != "stack"}
    so = stacks.step_options(st, p.get("accelerator", "H100-SXM"), tp_overlap=o["comm_tp_overlap"],
                             pp_overlap=o["comm_pp_overlap"], dp_overlap=o["comm_dp_overlap"])
    out = {"recipe": memory.scenario_recipe_name(p),
           "dtype": p.get("dtype", "bf16"), "fp8_recipe": p.get("fp8_recipe", "current"),
           "stack": st.name,
           "tp_overlap": so["tp_overlap"], "pp_overlap": so["pp_overlap"],
           "dp_overlap": so["dp_overlap"],
           "fsdp_backward_prefetch": p.get("fsdp_backward_prefetch", "auto"),
           "missing_features": "price"}
    if p.get("efficiency_profile"):
        out["efficiency"] = load_efficiency_profile(
            p["efficiency_profile"], accelerator=p.get("accelerator", "H100-SXM"),
            dtype=out["dtype"])
    return out


def scenario_memory_practice(p: dict) -> memory.MemoryPractice:
    """How the scenario's stack stores memory (``options.stack_memory_practice`` of its
    ``stack`` and ``dtype``: FP8 saved inputs under FP8 on a Transformer Engine stack, the
    modules the stack recomputes, its selective policy and ZeRO-3 gather unit): the count the
    plan search fits plans with (``parallel.stack_plan_search``), notebook 03 shows and the
    report's ``checks.plan_does_not_fit`` checks (``scenario_memory``)."""
    return stack_memory_practice(stacks.load_stack(p.get("stack", DEFAULT_STACK)),
                                 p.get("dtype", "bf16"))


def scenario_memory(p: dict, plan: ParallelPlan, model: ModelSpec | None = None):
    """The per-GPU memory of ``plan`` for the scenario ``p`` (``memory.memory_per_gpu`` with its
    ``seq_len``, ``optimizer_recipe`` and ``scenario_memory_practice``): the figure its plan
    search fitted the plan by, so a plan the search chose fits by it."""
    model = model if model is not None else load_model(p["model"])
    return memory.memory_per_gpu(model, plan, int(p["seq_len"]),
                                 memory.scenario_recipe_name(p),
                                 practice=scenario_memory_practice(p))


def fixed_degrees_ceiling(p: dict, model: ModelSpec | None = None):
    """When the scenario fixes both ``tp`` and ``pp``: the most GPUs its plan can split over,
    and that plan's memory per GPU. More GPUs then only add data-parallel ranks, and a global
    batch of B sequences in micro-batches of ``micro_batch_size`` (1 when free) has at most
    B ÷ micro_batch_size of them (``RULES['batch']``), so the largest count is

        n_max = max over the splits of dp × tp·pp·cp   (``parallel.splitting_gpu_counts``,
                tp and pp at the scenario's values, cp at its or searched with ``cp: 0``)

    and a plan that does not fit on n_max GPUs fits on none (Rajbhandari et al. 2020, ZeRO §5:
    stages 1 and 2 shard the optimizer states and gradients over dp, only stage 3 the weights).
    Returns (n_max, plan at n_max, its ``scenario_memory``), or None when ``tp`` or ``pp`` is
    left free, the batch is not a whole number of sequences, or no plan splits at n_max."""
    fixed = fixed_plan_fields(p)
    seq, tokens = int(p.get("seq_len") or 0), p.get("global_batch_tokens")
    if "tp" not in fixed or "pp" not in fixed or not seq or not tokens or tokens % seq:
        return None
    model = model if model is not None else load_model(p["model"])
    counts = splitting_gpu_counts(model, int(tokens) // seq, seq, scenario_pp_split(p), fixed)
    if not counts:
        return None
    at = {**p, "n_gpus": int(counts[-1])}
    try:
        plan = scenario_plan(at, model)
    except ValueError:
        return None
    return int(counts[-1]), plan, scenario_memory(at, plan, model)


def scenario_step_options(p: dict) -> StepOptions:
    """The scenario's ``StepOptions`` (``scenario_options``: recipe, dtype, stack, overlaps)."""
    return StepOptions(**scenario_options(p))


def scenario_step(p: dict, model: ModelSpec | None = None, plan: ParallelPlan | None = None):
    """The scenario's plan and its predicted step (``step_time``) from scenario parameters
    (``plan``: that plan instead, e.g. ``calibrate.priced_plan``'s, the one the bill prices).

    Reads ``model``, ``accelerator``, ``n_gpus``, ``seq_len``, ``global_batch_tokens``, the plan
    parameters (``scenario_plan``: fixed where the scenario fixes them, chosen by
    predicted step time among the stack's features where it leaves them free), and
    ``scenario_options`` (``optimizer_recipe``, ``dtype``, ``stack``, the overlap keys). No
    dropout (the memory model's default); FlashAttention as the stack has it.

    Returns
    -------
    (ParallelPlan, StepBreakdown)
    """
    model = model if model is not None else load_model(p["model"])
    cluster = scenario_cluster(p)
    plan = scenario_plan(p, model) if plan is None else plan
    with warnings.catch_warnings():
        # a scenario's plan that does not fit is said by its own checks ("no parallel plan
        # fits", bill.checks.plan_does_not_fit), in the scenario's words, once
        warnings.simplefilter("ignore", PlanDoesNotFitWarning)
        b = step_time(model, cluster, plan, int(p["seq_len"]), options=scenario_step_options(p))
    return plan, b



def fastest_versus_scenario(ranked, plan: ParallelPlan, p: dict,
                            model: ModelSpec | None = None) -> str:
    """How the first non-ZeRO-3 row of notebook 04b's ranking (``ranking.fastest_trusted`` of
    ``rank_plans`` with ``scenario_options(p)``, every plan of the stack) relates to the
    scenario's plan ``plan`` (``scenario_plan``, the one every other notebook prices), in words
    (the row read as a plan with the layer split ``parallel.scenario_pp_split(p)``, as notebook
    04b and ``headline_figures`` read it, where the row has no split of its own): the same plan;
    or why the scenario's search did not choose it, the first that applies:

    1. it changes a field the scenario fixes (``parallel.fixed_plan_fields``);
    2. otherwise the two searches disagree (a defect: both rank by ``scenario_options`` and
       count memory as the stack stores it, ``scenario_memory_practice``).

    Raises
    ------
    ValueError
        If the ranking is empty (``ranking.fastest_trusted``).
    """
    best = fastest_trusted(ranked)
    fast = plan_from_row(best, scenario_pp_split(p))   # read as notebook 04b reads it
    if fast.describe() == plan.describe() and fast.pp_split == plan.pp_split:  # the label
        return "the scenario's plan: the one the other notebooks use"  # leaves out the split
    fixed = {k: v for k, v in fixed_plan_fields(p).items() if k not in (FSDP_SHARD_KEY, ETP_KEY)}
    changed = [f"{k} {getattr(fast, k)} (fixed at {v})" for k, v in fixed.items()
               if getattr(fast, k, v) != v]
    head = f"not the scenario's plan ({plan.describe()}, which the other notebooks use): "
    if changed:
        return head + "it changes what the scenario fixes: " + ", ".join(changed)
    return head + "the two searches disagree (a defect: both rank by the scenario's options)"


def scenario_rank_plans(p: dict, model: ModelSpec | None = None,
                        price_usd_per_gpu_hour: float | None = None):
    """Notebook 04b §5's ranking: every plan of the scenario's stack that fits, by predicted step
    time (``ranking.rank_plans`` with ``scenario_options(p)``, the layer placement
    ``parallel.scenario_pp_split(p)``, the memory reserve ``mem_reserve_fraction``, a global
    batch of ``global_batch_tokens // seq_len`` sequences, and ``train_tokens`` and the price for
    each plan's days and cost), with TP inside the scale-up domain; when no fitting plan keeps
    it there, the plans beyond it. A scenario that leaves ``cp`` to be chosen (``cp: 0``) is
    ranked over the CP sizes its plan search tries (``parallel.context_parallel_options``), so
    the scenario's plan is among the rows; one that fixes ``cp`` above 1 over CP 1 and its own
    CP (without it the "fastest ranked" plan of a long-context scenario could be slower than
    the scenario's own CP plan); otherwise over CP 1, as ``rank_plans``. ``attrs['tp_domain']`` says which ranking this is:
    ``"inside"`` or ``"beyond"``.

    Raises
    ------
    ValueError
        As ``ranking.rank_plans`` (an empty ranking is returned, not raised).
    """
    model = model if model is not None else load_model(p["model"])
    kw = dict(train_tokens=p["train_tokens"], price_usd_per_gpu_hour=price_usd_per_gpu_hour,
              pp_split=scenario_pp_split(p), reserve=p["mem_reserve_fraction"],
              **scenario_options(p))
    cluster, seq_len = scenario_cluster(p), p["seq_len"]
    if p.get("cp") == 0:  # cp chosen: the CP sizes the scenario's own plan search tries
        kw["cp"] = context_parallel_options(int(seq_len), cluster.n_gpus)
    elif int(p.get("cp") or 1) > 1:  # cp fixed: its plans beside CP 1's, the scenario's among
        kw["cp"] = (1, int(p["cp"]))
    if p.get(ETP_KEY) == 1:  # MoE parallel folding, as the scenario's own plan search
        kw[ETP_KEY] = 1
    gb = p["global_batch_tokens"] // seq_len   # sequences per step
    ranked, where = rank_plans(model, cluster, gb, seq_len, **kw), "inside"
    if not len(ranked):  # every fitting plan has TP beyond the scale-up domain: rank those
        ranked = rank_plans(model, cluster, gb, seq_len, within_scaleup_domain=False, **kw)
        where = "beyond"
    ranked.attrs["tp_domain"] = where
    return ranked


#: Bytes per parameter of the FP8 weight copy that ``optimizer_recipe: fp8_mixed`` counts
#: (``memory.RECIPES``: its 3-byte working weights, the 16-bit copy and the 1-byte FP8 cache).
FP8_CACHE_RECIPES = ("fp8_mixed",)
#: The recipe that counts Hopper's transposed FP8 copy too (2 B/param of caches).
FP8_TRANSPOSE_RECIPES = ("fp8_mixed_transpose",)


def scenario_recipe(p: dict) -> memory.PrecisionRecipe:
    """The scenario's precision recipe (``memory.scenario_recipe_name``: its
    ``optimizer_recipe``, else ``fp8_mixed`` for FP8 on a stack that caches FP8 weights, else
    ``bf16_adam_fp32_grads``; ``memory.RECIPES``).

    Raises
    ------
    ValueError
        An unknown ``optimizer_recipe``.
    """
    return memory.get_recipe(memory.scenario_recipe_name(p))


def fp8_weight_copy_warning(p: dict) -> str | None:
    """What the memory per GPU leaves out under ``dtype: fp8`` on a stack that caches the FP8
    weights (``elementwise.FP8_WEIGHT_CACHE_STACKS``: Megatron-Core with Transformer Engine's
    ``is_first_microbatch``, "during FP8 training, it allows caching of the FP8 versions of the
    weights", NVIDIA/TransformerEngine ``transformer_engine/pytorch/module/linear.py``), the
    cache the step-time model's once-per-step weight cast assumes: a recipe that counts 16-bit
    working weights only omits the 1-byte FP8 copy per parameter (2 bytes on Hopper, which also
    keeps its transposed copy), unless the run keeps FP8 primary weights instead (Megatron-Core
    ``--fp8-param-gather``, off by default: "Keep the compute param in fp8 ... and perform the
    param all-gather in fp8"). ``optimizer_recipe: fp8_mixed`` counts the 1-byte copy; on a
    Hopper accelerator the sentence then names the transposed copy it leaves out (Hopper's FP8
    GEMMs take their operands in one layout only, so Transformer Engine caches the transpose for
    the backward; Blackwell's MXFP8 GEMMs do not need it). None for a BF16 run, another stack,
    or a recipe that counts every copy on that generation; ``p`` the scenario's values (its
    ``dtype``, ``stack``, ``optimizer_recipe`` and ``accelerator``, defaults where absent).

    Raises
    ------
    ValueError
        An unknown ``optimizer_recipe``.
    """
    left = fp8_copy_bytes_left_out(p)
    if not left:
        return None
    recipe = scenario_recipe(p)
    stack = p.get("stack") or DEFAULT_STACK
    if recipe.name in FP8_CACHE_RECIPES:   # Hopper's transpose only (fp8_copy_bytes_left_out)
        return (f"the memory per GPU leaves out the FP8 weights' transposed copy: "
                f"optimizer_recipe={recipe.name} counts the 1-byte FP8 copy of the weights, but "
                f"on Hopper ({p.get('accelerator')}) Transformer Engine also keeps its transpose "
                "for the backward GEMMs (1 more byte per parameter), which is not counted.")
    return (f"the memory per GPU leaves out the FP8 weight copy: dtype=fp8 with optimizer_recipe="
            f"{recipe.name} counts {recipe.weights_bytes:g}-byte working weights only; on {stack} "
            "Transformer "
            "Engine also keeps the FP8 copy of the weights across a step's micro-batches "
            "(1 byte per parameter, 2 on Hopper with its transposed copy), which is not "
            "counted. optimizer_recipe: fp8_mixed counts the 1-byte copy; a run that keeps FP8 "
            "primary weights instead (Megatron-Core --fp8-param-gather) needs less.")


def fp8_copy_bytes_left_out(p: dict) -> int:
    """Bytes per parameter of the FP8 weight copies Transformer Engine caches that the
    scenario's memory count leaves out (``fp8_weight_copy_warning``'s rule, the figure
    ``checks`` sets against a plan's headroom): 0 for a BF16 run or a stack that caches none
    (``elementwise.FP8_WEIGHT_CACHE_STACKS``) or a recipe that counts both copies
    (``FP8_TRANSPOSE_RECIPES``); under a recipe that counts the 1-byte copy
    (``FP8_CACHE_RECIPES``) Hopper's transposed copy, 1, else 0; under any other recipe the
    copy, 1, and on Hopper its transpose too, 2.

    Raises
    ------
    ValueError
        An unknown ``optimizer_recipe`` of an FP8 run.
    """
    if p.get("dtype") != "fp8":
        return 0
    recipe = scenario_recipe(p)
    if (p.get("stack") or DEFAULT_STACK) not in FP8_WEIGHT_CACHE_STACKS:
        return 0
    hopper = gpu_generation(str(p.get("accelerator", ""))) == "Hopper"
    if recipe.name in FP8_TRANSPOSE_RECIPES:
        return 0
    if recipe.name in FP8_CACHE_RECIPES:
        return 1 if hopper else 0
    return 2 if hopper else 1


def fp8_copy_bytes_per_gpu(p: dict, mem) -> float:
    """Per-GPU bytes of the FP8 weight copies the scenario's memory count leaves out, on a plan
    whose memory is ``mem`` (``scenario_memory``): the plan's working weights ÷ the recipe's
    bytes per parameter × ``fp8_copy_bytes_left_out(p)`` (2 on Hopper, 1 elsewhere, Hopper's
    transpose alone under ``fp8_mixed``; 0 for a BF16 run or a stack that caches none).

    Raises
    ------
    ValueError
        An unknown ``optimizer_recipe`` of an FP8 run.
    """
    left = fp8_copy_bytes_left_out(p)
    if not left:
        return 0.0
    per_param = scenario_recipe(p).weights_bytes
    return float(mem.weights) / per_param * left


def _bill_step_rows(b, bill_mfu: float | None) -> list[tuple]:
    """``headline_figures``' step time and throughput at the bill's MFU (the same FLOPs per step
    at that rate: step time × predicted MFU ÷ bill MFU), where it differs from the prediction by
    more than 0.5%; [] otherwise."""
    if bill_mfu is None or not bill_mfu > 0 or abs(bill_mfu / b.mfu - 1) <= 0.005:
        return []
    t = b.step_time_s * b.mfu / float(bill_mfu)
    return [("bill_step_time_s", "step time at the bill's MFU", t, "s",
             f"the predicted step × {b.mfu:.1%} ÷ {float(bill_mfu):.1%}: what the bill's days "
             "and GPU-hours count"),
            ("bill_tokens_per_s", "throughput at the bill's MFU", b.tokens_per_s * b.step_time_s
             / t, "tokens/s", "global batch tokens ÷ that step time")]


def headline_figures(b, plan: ParallelPlan, band: MfuBand, best, pp_split: str,
                     bill_mfu: float | None = None, bill_is_prediction: bool = True
                     ) -> list[tuple]:
    """Notebook 04b's headline figures as (key, label, value, unit, note) tuples, for
    ``report.summary_row``: the scenario's step ``b`` (``scenario_step``) of ``plan``, its MFU
    band ``band`` (``accuracy.band_for_step``) and the fastest ranked row ``best``
    (``ranking.fastest_trusted`` of ``scenario_rank_plans``; ``pp_split`` the placement its plan
    is read with, ``parallel.scenario_pp_split``). Each figure and its formula:

    * ``predicted_mfu`` MFU = model FLOPs per step ÷ (step time × n_gpus × peak), model FLOPs
      = tokens × ``ModelSpec.flops_per_token(seq_len, causal=False)`` (``step.step_time``);
    * ``predicted_mfu_low``, ``predicted_mfu_high``: the band [p / (1 + c + w), p / (1 + c − w)],
      c the median (shrunk toward 0 below 9 rows, ``accuracy.shift_factor``) and w the
      full-conformal half-width (or the stated default) of the regime's held-out errors
      e = predicted ÷ published MFU − 1 (``accuracy.mfu_band``; the top capped by ``band_cap``,
      said in the notes with the cap's source, ``MfuBand.cap_words``, and on the prediction's
      row when the prediction lies above the capped top, with what set it,
      ``MfuBand.cap_source``, which says nothing of the bill's MFU unless
      ``bill_is_prediction``: a bill whose MFU the scenario gives is not the prediction's);
    * ``predicted_mfu_central``: min(max(p / (1 + c), low), high) (``accuracy.central_mfu``);
    * ``step_time_s``: the sum of the step's parts on the busiest GPU; ``tokens_per_s`` = global
      batch tokens ÷ step time (``step.step_time``), both the prediction's, said so;
    * with ``bill_mfu`` (the MFU the bill takes: given, a pilot's, or the band's central
      estimate) more than 0.5% from the prediction, ``bill_step_time_s`` = step time × predicted
      MFU ÷ bill MFU and ``bill_tokens_per_s`` = global batch tokens ÷ that (the same FLOPs per
      step at the bill's rate): the step the bill's days and GPU-hours count (a trial read a
      16.4 s step and 1.02M tokens/s beside a bill whose MFU made it 30.4 s);
    * ``best_plan_mfu``: the fastest ranked plan's MFU (same formula), its note saying whether
      that plan is the scenario's;
    * ``regime_mfu_mean_abs_error``: mean |e| over the regime's held-out published runs
      (``accuracy.regime_error``; None with no such run).
    """
    err, err_note = regime_error(band)   # this regime's runs only, or none
    best_plan = plan_from_row(best, pp_split).describe()
    best_plan += (" (ZeRO-3 aside; the scenario's plan)" if best_plan == plan.describe() else
                  " (ZeRO-3 aside; not the scenario's plan: memory or a fixed field, 04b §5)")
    # the capped top named as what it is: a comparable run's figure, the matmul ceiling, or
    # the band's own low end where the whole band lies above every comparable run
    above = (f"; {b.mfu:.1%}, above its band's capped top, {band.high:.1%} "
             f"({band.cap_source(bill_is_prediction) or 'where no measurement goes'}): "
             f"the band, "
             f"{band.low:.1%}–{band.high:.1%}, lies below the prediction"
             if band.high < b.mfu else "")
    capped = band.cap_words(bill_is_prediction)
    return [
        ("predicted_mfu", "predicted MFU, scenario plan", b.mfu, "", plan.describe() + above),
        ("predicted_mfu_low", "predicted MFU, low end of its band", band.low, "", band.regime),
        ("predicted_mfu_high", "predicted MFU, high end of its band", band.high, "",
         band.error_note() + (f"; {capped}" if capped else "")),
        ("predicted_mfu_central", f"MFU a `mfu: predict` bill uses ({band.bill_mfu_label()})",
         band.central()[0], "", "prediction ÷ (1 + median held-out error, shrunk toward 0 below "
         "9 runs), kept inside the band (accuracy.central_mfu)"),
        ("step_time_s", "predicted step time, scenario plan", b.step_time_s, "s",
         "busiest GPU, at the predicted MFU"),
        ("tokens_per_s", "predicted throughput, scenario plan", b.tokens_per_s, "tokens/s",
         "global batch tokens ÷ step time (llmcost.step_time)"),
        *_bill_step_rows(b, bill_mfu),
        ("best_plan_mfu", "predicted MFU, fastest ranked plan", best["mfu"], "", best_plan),
        ("regime_mfu_mean_abs_error", "mean |step-time error| on this regime's published runs",
         err, "", err_note)]

