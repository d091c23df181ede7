"""Parallel plans: the valid ways to split a model over GPUs, the pipeline bubble, and the plan
space.

``ParallelPlan`` is one way to run a training step: data parallelism (``dp`` replicas), tensor
parallelism (``tp``, Shoeybi et al. 2019), pipeline parallelism (``pp`` stages, optionally
``virtual_stages`` interleaved chunks per stage, Narayanan et al. 2021), context parallelism
(``cp``, Liu et al. 2023; Llama 3 §3.3.2), expert parallelism (``ep``, Lepikhin et al. 2020), a
micro-batch size and count, a ZeRO stage (Rajbhandari et al. 2020), a recomputation mode
(Korthikanti et al. 2022), a pipeline schedule and, under ZeRO-3, an optional hybrid-sharding
shard group (``fsdp_shard_size``: HSDP, Zhao et al. 2023; MiCS, Zhang et al. 2022).
``make_plan`` builds one from a GPU count and a global batch (deriving ``dp`` and the
micro-batch count); ``enumerate_plans`` evaluates every combination of a grid at once with numpy
and returns a DataFrame with one row per plan, its per-GPU memory (``llmcost.memory``), whether
it fits and its pipeline bubble.

The rules a plan must keep (``RULES``; a broken rule raises ``PlanError``, a ``ValueError`` whose
message names the rule, and ``enumerate_plans`` reports the same rule id for a rejected
combination):

* ``product``: dp·tp·pp·cp = n_gpus (EP is carved out of dp·cp, or of tp·dp·cp when the
  experts are folded, ``etp``: it adds no GPUs);
* ``batch``: global batch = micro_batch_size × n_microbatches × dp (sequences);
* ``schedule``: the interleaved schedule needs ``pp >= 2`` and ``virtual_stages >= 2``; the
  others need ``virtual_stages = 1``;
* ``interleaved_microbatches``: Megatron-LM's interleaved (depth-first) schedule needs
  ``n_microbatches`` divisible by ``pp`` (Llama 3 §3.3.2 names this constraint; Megatron-LM
  since 2024-11 relaxes it with ``--microbatch-group-size-per-virtual-pipeline-stage``, whose
  default, pp, keeps it: ``schedules.py``, ``model_parallel_config.py``);
* ``ep_group``: ``ep`` divides ``dp·cp`` (expert ranks come from the data-parallel group); under
  MoE parallel folding (``etp=1`` below tp) ``ep`` divides ``tp·dp·cp``;
* ``etp``: the experts' tensor-parallel size ``etp`` is tp (None, Megatron-Core's default) or 1
  (MoE parallel folding: Liu et al. 2025, "MoE Parallel Folding", arXiv:2504.14960, the
  attention's TP × CP × DP and the experts' ETP × EP × EDP over the same ranks), with sequence
  parallelism when tp > 1 and no HSDP shard group;
* ``tp_heads``: ``tp`` divides the query heads (Megatron-LM splits attention by heads);
* ``tp_kv_heads``: ``tp`` divides the KV heads, or, on a stack that replicates them
  (``stacks.Stack.tp_kv_replication``), is a multiple of them, in which case each KV head is
  replicated on ``tp / n_kv_heads`` ranks (stated, and counted in memory); Megatron-Core before
  core_v0.16.0 requires ``tp`` to divide them (``check_tp_kv_heads``);
* ``pp_layers``: ``pp`` divides the layers, or, with ``pp_split="embedding_and_loss"``, the
  layers + 2 (Llama 3's explicit uneven split), or, with ``pp_split="uneven"``, any count up
  to one layer per model chunk (``memory.PP_SPLITS``: DeepSeek-V3's 61 layers on 16 stages);
  a search's ``pp_split="auto"`` (``PP_SPLIT_AUTO``) takes, plan by plan, the even split where
  pp·virtual_stages divides the layers and the uneven one elsewhere (at virtual_stages 1);
* ``virtual_stages``: ``virtual_stages`` divides the layers (slots) per stage;
* ``ep_experts``: ``ep`` divides the routed experts (``ep > 1`` needs an MoE model);
* ``cp_seq``: ``2·cp`` divides the sequence (load-balanced causal CP gives each rank two chunks,
  Llama 3 §3.3.2);
* ``sp_seq``: with sequence parallelism, ``tp`` divides the tokens per CP rank;
* ``fsdp_shard``: a hybrid-sharding shard group (``fsdp_shard_size``, HSDP) needs ZeRO-3 and
  divides dp·cp; with ``ep > 1`` it is a multiple of ep·cp (``check_fsdp_shard``).

Pipeline bubble (``bubble_fraction``), as bubble time ÷ ideal compute time, with p stages, m
micro-batches, v chunks per stage and equal forward, input-gradient and weight-gradient times:
GPipe and 1F1B (p−1)/m (= (p−1)/(m+p−1) of the total time; Huang et al. 2019, Narayanan et al.
2021 §2.2); interleaved 1F1B (p−1)/(v·m) (Narayanan et al. 2021 §2.2.2); ZB-H1 (p−1)/(3m) (Qi
et al. 2024, "Zero Bubble Pipeline Parallelism", §3: bubble (p−1)(T_F + T_B − T_W) against
1F1B's (p−1)(T_F + T_B + T_W)). ``pipeline_schedule`` simulates GPipe, 1F1B and interleaved 1F1B
op by op, which checks the first three formulas and the in-flight micro-batch counts of
``llmcost.memory`` (tests do).
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from dataclasses import dataclass, fields
from functools import partial

import numpy as np
import pandas as pd

from ..core.catalog import as_accelerator, as_model, load_model, scenario_cluster
from ..core.diskcache import disk_cached
from ..core.hardware import Cluster, as_cluster
from ..core.model import RECOMPUTE_MODES, ModelSpec
from ..core.shapes import SCHEDULES, schedule_code
from ..core.stacks import DEFAULT_STACK, load_stack, plan_options
from ..core.units import (as_array, as_count, as_scalar, as_flag, fmt_gpus, noun, options_with,
                          scalar_or_array)
from .memory import (
    DEFAULT_PRACTICE,
    DEFAULT_RESERVE,
    PARTS,
    MemoryPractice,
    PP_SPLITS,
    fits,
    get_recipe,
    moe_imbalance_extra_arrays,
    plan_memory_arrays,
    scenario_recipe_name,
)
from .options import stack_memory_practice

#: Rule id -> what it requires. Order = the order checks are made (the first broken rule is
#: reported). The ``duplicate_*`` ids are not errors: ``enumerate_plans`` drops combinations that
#: are the same plan as another row.
RULES = {
    "product": "dp·tp·pp·cp must equal n_gpus",
    "batch": "global batch must equal micro_batch_size × n_microbatches × dp",
    "schedule": "interleaved needs pp >= 2 and virtual_stages >= 2; other schedules need "
                "virtual_stages = 1",
    "interleaved_microbatches": "the interleaved schedule needs n_microbatches divisible by pp",
    "ep_group": "ep must divide dp·cp (tp·dp·cp with etp=1: MoE parallel folding)",
    "etp": "etp (the experts' tensor parallelism) must be tp (a scenario's etp 0) or 1 (MoE "
           "parallel folding, for an MoE model; at tp > 1 it needs sequence parallelism, which "
           "some stacks lack, and no HSDP shard group)",
    "tp_heads": "tp must divide n_heads",
    "tp_kv_heads": "tp must divide n_kv_heads, or be a multiple of it (KV heads replicated) on "
                   "a stack that replicates them",
    "pp_layers": "pp must divide the layers (layers + 2 with pp_split='embedding_and_loss'); "
                 "with pp_split='uneven' (or a search's 'auto' at virtual_stages 1) "
                 "pp·virtual_stages must not exceed them",
    "virtual_stages": "virtual_stages must divide the layers per pipeline stage",
    "ep_experts": "ep must divide n_experts (ep > 1 needs an MoE model)",
    "cp_seq": "2·cp must divide seq_len",
    "sp_seq": "with sequence parallelism tp must divide seq_len / cp",
    "zero_pp": "with pp > 1 the ZeRO stage must not exceed the stack's zero_max_with_pp "
               "(DeepSpeed's pipeline engine refuses ZeRO-2 and ZeRO-3)",
    "fsdp_shard": "fsdp_shard_size (HSDP) needs zero_stage 3 and must divide dp·cp; with "
                  "ep > 1, ep·cp must divide it (a shard group holds whole expert groups)",
    "duplicate_schedule": "duplicate: with pp = 1 there is no pipeline schedule (kept as 1f1b)",
    "duplicate_zero": "duplicate: ZeRO shards nothing when dp·cp = 1 (kept as zero_stage 0)",
    "duplicate_sp": "duplicate: sequence parallelism is a no-op at tp = 1 (kept as True)",
    "searched_shorter": "the sequence split (2·cp, and cp·tp with sequence parallelism) also "
                        "splits a shorter length the search has priced, where the same plan's "
                        "step is shorter (searched_lengths)",
}
_RULE_CODES = {name: i + 1 for i, name in enumerate(RULES)}

#: The search's layer split (``enumerate_plans``, ``choose_plan``), plan by plan (``auto_split``):
#: ``"even"`` where pp·virtual_stages divides the layers; else ``"embedding_and_loss"`` where
#: pp > 1 and pp·virtual_stages divides the layers + 2 (the embedding and the loss each take one
#: layer's slot: Llama 3's split, arXiv:2407.21783 §3.3.2, "we reduce one Transformer layer
#: each from the first and the last stages"; Megatron-Core's
#: ``--account-for-embedding-in-pipeline-split`` / ``--account-for-loss-in-pipeline-split``,
#: NVIDIA/Megatron-LM@ef490839e89c, core_v0.11.0: with virtual stages it requires pp to divide
#: L + 2 and v the slots per stage, the embedding and the loss each one slot of the first and
#: the last chunk, ``get_num_layers_to_build``; at v = 1 core_v0.11.0's check asked pp − 2 to
#: divide L, core_v0.12.0's pp to divide L + 2);
#: else, at virtual_stages 1 only, ``"uneven"`` (``memory.PP_SPLITS``: as evenly as whole
#: layers allow). ``embedding_and_loss`` is taken at every v: its model chunks are equal in
#: slots (one slot of the first chunk is the embedding, one of the last the loss), so the
#: interleaved bubble (p−1)/(v·m), which holds for equal chunks (Narayanan et al. 2021 §2.2.2),
#: applies to it as to the even split. ``uneven`` stays at v = 1: unequal chunks (the larger
#: ones pace the pipeline) do not reach (p−1)/(v·m), so a search would favour them for a gain
#: the model does not have; Megatron-Core's first uneven release refused them too ("Uneven
#: number of layer not compatible with interleaved pipeline schedule",
#: NVIDIA/Megatron-LM@fa8bb5921b86). Where two splits apply (pp = 2, v = 1, an even layer
#: count: both put the embedding and L/2 layers on the first stage) the even one is kept.
#: Without ``embedding_and_loss`` in the search, Llama 3.1 405B's 126 layers split evenly only
#: over pp ≤ 2 on a power-of-two GPU count, and the search missed Meta's PP16 × v8 plan.
#: An explicit ``pp_split="uneven"`` keeps every v. A scenario's ``pp_split: auto`` (the default) becomes this
#: when its stack places layers unevenly (``stacks.Stack.uneven_pp``: Megatron-Core's
#: ``--decoder-first-pipeline-num-layers`` / ``--decoder-last-pipeline-num-layers``,
#: NVIDIA/Megatron-LM@fa8bb59, 2024-09-05, in core_v0.9.0, which at v = 1 also place Llama 3's
#: split; uneven virtual stages came with NVIDIA/Megatron-LM@ef490839e89c, core_v0.11.0), else
#: ``"even"`` (``scenario_pp_split``). A plan itself always has one of ``PP_SPLITS``.
PP_SPLIT_AUTO = "auto"
#: Every value a search takes for ``pp_split``.
SEARCH_PP_SPLITS = PP_SPLITS + (PP_SPLIT_AUTO,)


def auto_split(pp, virtual_stages, n_layers: int):
    """``pp_split="auto"``'s split of each plan as its position in ``PP_SPLITS`` (-1: none
    applies), elementwise: 0 "even" where pp·v divides ``n_layers`` L; else 1
    "embedding_and_loss" where pp > 1 and pp·v divides L + 2; else 2 "uneven" where v = 1 and
    pp <= L (``PP_SPLIT_AUTO``'s comment gives the reasons)."""
    pp, v = np.asarray(pp), np.asarray(virtual_stages)
    chunks = pp * v
    even = n_layers % chunks == 0
    el = (pp > 1) & ((n_layers + 2) % chunks == 0)
    uneven = (v == 1) & (pp <= n_layers)
    return np.where(even, 0, np.where(el, 1, np.where(uneven, 2, -1))).astype(np.int64)


def row_pp_split(pp, virtual_stages, n_layers: int):
    """``pp_split="auto"`` resolved for plans (``auto_split``): "even", "embedding_and_loss"
    or "uneven" (a str for scalars, an object array for arrays); a plan no split places gets
    "embedding_and_loss" where pp divides the layers + 2 and not the layers, else "even", so
    that its validation refuses it for the rule it comes nearest (virtual_stages: v must divide
    the slots per stage; pp_layers)."""
    code = auto_split(pp, virtual_stages, n_layers)
    slots_only = (np.asarray(pp) > 1) & (n_layers % np.asarray(pp) != 0) & \
        ((n_layers + 2) % np.asarray(pp) == 0)
    code = np.where(code >= 0, code, np.where(slots_only, 1, 0))
    names = np.array(PP_SPLITS, dtype=object)[code]
    return str(names) if np.ndim(code) == 0 else names


def scenario_pp_split(p: dict, stack=None) -> str:
    """The ``pp_split`` a scenario's plan search uses: its own value when it fixes one
    (``PP_SPLITS``); for ``"auto"`` (or none), ``PP_SPLIT_AUTO`` when the stack (``stack``, else
    the scenario's, else ``stacks.DEFAULT_STACK``) places layers unevenly
    (``stacks.Stack.uneven_pp``), else ``"even"``.

    Raises
    ------
    ValueError
        A value not in ``SEARCH_PP_SPLITS``.
    """
    v = p.get("pp_split", PP_SPLIT_AUTO)
    if v not in SEARCH_PP_SPLITS:
        raise ValueError(f"pp_split={v!r} must be one of {SEARCH_PP_SPLITS}")
    if v != PP_SPLIT_AUTO:
        return v
    st = load_stack(stack if stack is not None else p.get("stack", DEFAULT_STACK))
    return PP_SPLIT_AUTO if st.uneven_pp else "even"


def stack_plan_search(stack=None, pp_split=PP_SPLIT_AUTO, *, hsdp: bool = False,
                      dtype: str = "bf16") -> dict:
    """The ``choose_plan`` keywords that keep a plan search to what a software stack runs
    (``stack``, default ``stacks.DEFAULT_STACK``), the one rule of every search that picks a
    plan for a stack (a scenario's, ``plan_from_parameters``; the RL update's,
    ``rl.train_step``): ``allowed`` = ``stacks.plan_options`` (its pipeline schedules, ZeRO
    stages, recomputation modes and sequence parallelism; hybrid sharding only with ``hsdp``,
    else ZeRO-3 over the whole dp·cp group), ``pp_split`` = ``scenario_pp_split`` ("auto":
    the uneven splits too where the stack places layers unevenly, ``stacks.Stack.uneven_pp``)
    and ``practice`` = ``options.stack_memory_practice(stack, dtype)``: memory as the stack
    stores it (FP8 saved inputs with ``dtype="fp8"``, its recomputed modules), as
    ``ranking.rank_plans`` counts it, so that a published plan that ran can be found.

    Raises
    ------
    ValueError
        An unknown stack or a ``pp_split`` not in ``SEARCH_PP_SPLITS``.
    """
    st = load_stack(DEFAULT_STACK if stack is None else stack)
    allowed = plan_options(st)
    if not hsdp:
        allowed = {**allowed, FSDP_SHARD_KEY: "full"}
    return {"allowed": allowed, "pp_split": scenario_pp_split({"pp_split": pp_split}, st),
            "practice": stack_memory_practice(st, dtype)}


class PlanError(ValueError):
    """A parallel plan breaks a rule. ``rule`` is the id in ``RULES``; ``values`` the figures
    the rule was broken with, for a caller that says what would meet it (``{}`` if none)."""

    def __init__(self, rule: str, message: str, values: dict | None = None):
        super().__init__(message)
        self.rule = rule
        self.values = dict(values or {})


def check_fsdp_shard(fsdp_shard_size, dp, cp=1, ep=1, zero_stage=3) -> None:
    """The ``fsdp_shard`` rule of a hybrid-sharded (HSDP) plan: ``fsdp_shard_size`` >= 1
    divides the ZeRO group dp·cp, differs from it only under ``zero_stage=3`` (ZeRO-1/2 shard
    over the whole group), and with expert parallelism ep·cp divides it, so that a shard group
    of consecutive ranks (rank order tp-cp-ep-dp) holds whole expert-parallel groups and the
    routed experts are sharded over ``fsdp_shard_size / ep`` of their ranks.

    Not enforced (a documented gap): with cp > 1 and ep = 1, FSDP2 / TorchTitan meshes put
    CP inside the shard dimension (``dp_shard_cp``), so a real shard group is a multiple of cp;
    this rule accepts any divisor of dp·cp, e.g. f = 2 at cp = 4, which no such mesh builds.

    Raises
    ------
    PlanError (a ValueError) naming the field, the value and the rule; a ValueError when
    ``dp``, ``cp`` or ``ep`` is not a whole number >= 1 or ``zero_stage`` not 0-3.
    """
    _whole("fsdp_shard_size", fsdp_shard_size)
    for name, val in (("dp", dp), ("cp", cp), ("ep", ep)):
        _whole(name, val)
    if isinstance(zero_stage, bool) or zero_stage not in (0, 1, 2, 3):
        raise ValueError(f"zero_stage={zero_stage!r} must be 0, 1, 2 or 3")
    f, g = int(fsdp_shard_size), int(dp) * int(cp)
    if g % f:
        raise PlanError("fsdp_shard", f"fsdp_shard_size={f} must divide the data-parallel (ZeRO) "
                                      f"group dp·cp = {dp}·{cp} = {g}")
    if f != g and zero_stage != 3:
        raise PlanError("fsdp_shard", f"fsdp_shard_size={f} (hybrid sharding over fewer ranks "
                                      f"than dp·cp = {g}) needs zero_stage=3 (got zero_stage="
                                      f"{zero_stage}); leave it None for ZeRO-{zero_stage}")
    if f != g and ep > 1 and f % (ep * cp):
        raise PlanError("fsdp_shard", f"fsdp_shard_size={f} must be a multiple of ep·cp = "
                                      f"{ep}·{cp} = {ep * cp} (a shard group must hold whole "
                                      "expert-parallel groups)")


# ----------------------------------------------------------------------------- bubble
def bubble_fraction(pp, n_microbatches, schedule="1f1b", virtual_stages=1,
                    relative_to: str = "ideal"):
    """Pipeline bubble of a schedule.

    Parameters
    ----------
    pp, n_microbatches, virtual_stages : int or array
        p, m and v.
    schedule : {"1f1b", "interleaved", "gpipe", "zb-h1"} or array of codes (positions in
        ``SCHEDULES``)
    relative_to : {"ideal", "total"}
        ``"ideal"``: bubble time ÷ the ideal (bubble-free) compute time, so a step takes
        ``(1 + bubble) ×`` its compute; ``"total"``: bubble time ÷ the step time, b/(1+b).

    Returns
    -------
    float or ndarray. 0 when ``pp = 1``.

    Raises
    ------
    ValueError
        Non-positive sizes, an unknown schedule, or ``relative_to`` not "ideal"/"total".

    Sources: GPipe (Huang et al. 2019 §2.3), 1F1B and interleaved (Narayanan et al. 2021 §2.2),
    ZB-H1 (Qi et al. 2024 §3, with T_F = T_B = T_W, for m >= p; for m < p the schedule at
    unit F, B and W times, B before F before W with 1F1B's in-flight limit, spans 2p + 2m − 1
    slots for 3m of work: (2p − m − 1)/(3m), which meets (p−1)/(3m) at m = p; e.g. p = 2, m = 1
    takes 5 slots for 3 of work, p = 4, m = 2 takes 11 for 6).
    """
    p = as_array(pp, "pp", positive=True, integer=True)
    m = as_array(n_microbatches, "n_microbatches", positive=True, integer=True)
    v = as_array(virtual_stages, "virtual_stages", positive=True, integer=True)
    if not isinstance(schedule, str):
        arr = None if isinstance(schedule, (dict, set)) or schedule is None else np.asarray(
            schedule)
        if arr is None or arr.dtype.kind not in "iu":
            raise ValueError(f"schedule={schedule!r} must be one of {SCHEDULES} or an array of "
                             "their codes (whole numbers)")
    code = schedule_code(schedule)
    if relative_to not in ("ideal", "total"):
        raise ValueError(f"relative_to={relative_to!r} must be 'ideal' or 'total'")
    b = (p - 1) / m
    # ZB-H1 reaches (p-1)/(3m) only once m >= p; with fewer micro-batches the deferred
    # weight-gradient passes cannot fill the warm-up: 2p + 2m - 1 slots for 3m of work
    # (T_F = T_B = T_W; a review's slot-by-slot count), (2p - m - 1)/(3m)
    zb = np.where(m >= p, b / 3, (2 * p - m - 1) / (3 * m))
    b = np.where(code == 1, b / v, np.where(code == 3, zb, b))
    if relative_to == "total":
        b = b / (1 + b)
    return scalar_or_array(b)


# ----------------------------------------------------------------------------- the plan
def _whole(name, v, minimum=1):
    as_count(v, name, minimum, floats=False)


def recompute_words(recompute: str) -> str:
    """An activation-recomputation mode in words: "no recompute", "selective recompute",
    "full recompute" (never "none recompute")."""
    if recompute not in RECOMPUTE_MODES:
        raise ValueError(f"recompute={recompute!r} must be one of {', '.join(RECOMPUTE_MODES)}")
    return f"{'no' if recompute == 'none' else recompute} recompute"


@dataclass(frozen=True)
class ParallelPlan:
    """One way to split a training step over GPUs.

    Parameters
    ----------
    dp, tp, pp, cp, ep : int
        Data-, tensor-, pipeline-, context- and expert-parallel sizes. GPUs = dp·tp·pp·cp; the
        ``ep`` expert ranks are carved out of the dp·cp group (expert TP = tp), or, with
        ``etp=1``, out of the tp·dp·cp ranks.
    virtual_stages : int
        Model chunks per pipeline stage (v; > 1 only with ``schedule="interleaved"``).
    micro_batch_size : int
        Sequences per micro-batch.
    zero_stage : {0, 1, 2, 3}
        ZeRO stage over the dp·cp group (3 = FSDP full sharding).
    recompute : {"none", "selective", "full"}
        Activation recomputation (Korthikanti et al. 2022).
    n_microbatches : int
        Micro-batches per step per data-parallel replica (m; gradient accumulation steps).
    schedule : {"1f1b", "interleaved", "gpipe", "zb-h1"}
        Pipeline schedule (ignored when pp = 1).
    sequence_parallel : bool
        Megatron sequence parallelism alongside TP (no-op at tp = 1).
    pp_split : {"even", "embedding_and_loss", "uneven"}
        How layers are placed on stages (see ``llmcost.memory.PP_SPLITS``).
    fsdp_shard_size : int or None
        Hybrid sharded data parallelism (HSDP; PyTorch FSDP's ``HYBRID_SHARD``, FSDP2's
        ``fully_shard`` on a 2-D (replicate, shard) mesh; MiCS's partition group): the number of
        consecutive data-parallel ranks (of the dp·cp group) that one replica's parameters,
        gradients and optimizer states are sharded over under ZeRO-3; the dp·cp / shard
        replicas all-reduce their gradient shards once per step. ``None`` (the default) = the
        whole dp·cp group, i.e. plain ZeRO-3 / FSDP ``FULL_SHARD``; a value equal to dp·cp is
        stored as ``None``. Only meaningful with ``zero_stage=3``. Rules: ``fsdp_shard``
        (see ``RULES``).
    etp : int or None
        The routed experts' tensor-parallel size (Megatron-Core's
        ``expert_tensor_parallel_size``). ``None`` (the default) = tp, Megatron-Core's default
        (a value equal to tp is stored as None); ``1`` = MoE parallel folding (Liu et al. 2025,
        arXiv:2504.14960; Megatron-Core's MoE README, "MoE Parallel Folding"): the MoE layers
        run as ETP1 × EP × EDP over the same tp·dp·cp ranks as the attention's TP × CP × DP, so
        ``ep`` may exceed dp·cp (e.g. TP4 · CP2 · DP8 allows EP up to 64 instead of dp·cp =
        16), each rank holds whole experts, its EP group is consecutive ranks, and the routed
        tokens need no all-gather over TP (shared experts keep theirs). Rule ``etp`` (see
        ``RULES``).

    Raises
    ------
    PlanError (a ValueError)
        For a rule that does not need the model (``schedule``, ``interleaved_microbatches``,
        ``ep_group``) or an out-of-range field. Rules involving the model, the GPU count and the
        global batch are checked by ``validate``.

    Notes
    -----
    What the step-time model needs is here: the group sizes (``tp`` for TP collectives, ``cp``,
    ``ep`` for all-to-all, ``dp·cp`` = ``zero_group_size`` for gradient reduce-scatter/all-gather),
    tokens per micro-batch (``micro_batch_size`` × the sequence length), ``n_microbatches`` and
    ``schedule``/``virtual_stages`` for the bubble and P2P volume, ``recompute`` for extra FLOPs
    and ``zero_stage`` for parameter gathers.
    """

    dp: int = 1
    tp: int = 1
    pp: int = 1
    cp: int = 1
    ep: int = 1
    virtual_stages: int = 1
    micro_batch_size: int = 1
    zero_stage: int = 0
    recompute: str = "none"
    n_microbatches: int = 1
    schedule: str = "1f1b"
    sequence_parallel: bool = True
    pp_split: str = "even"
    fsdp_shard_size: int | None = None
    etp: int | None = None

    def __post_init__(self):
        for f in ("dp", "tp", "pp", "cp", "ep", "virtual_stages", "micro_batch_size",
                  "n_microbatches"):
            _whole(f, getattr(self, f))
        _whole("zero_stage", self.zero_stage, 0)
        if self.zero_stage > 3:
            raise ValueError(f"zero_stage={self.zero_stage} must be 0, 1, 2 or 3")
        if self.recompute not in RECOMPUTE_MODES:
            raise ValueError(f"recompute={self.recompute!r} must be one of {RECOMPUTE_MODES}")
        if self.schedule not in SCHEDULES:
            raise ValueError(f"schedule={self.schedule!r} must be one of {SCHEDULES}")
        if self.pp_split not in PP_SPLITS:
            raise ValueError(f"pp_split={self.pp_split!r} must be one of {PP_SPLITS}")
        if not isinstance(self.sequence_parallel, (bool, np.bool_)):
            raise ValueError(f"sequence_parallel={self.sequence_parallel!r} must be True or False")
        p, v = self.pp, self.virtual_stages
        if self.schedule == "interleaved" and (p < 2 or v < 2):
            raise PlanError("schedule", f"schedule='interleaved' needs pp >= 2 and "
                                        f"virtual_stages >= 2 (got pp={p}, virtual_stages={v})")
        if self.schedule != "interleaved" and v != 1:
            raise PlanError("schedule", f"virtual_stages={v} needs schedule='interleaved' "
                                        f"(got {self.schedule!r})")
        if self.schedule == "interleaved" and self.n_microbatches % p:
            raise PlanError("interleaved_microbatches",
                            f"n_microbatches={self.n_microbatches} must be divisible by pp={p} "
                            "for the interleaved schedule (Megatron-LM's depth-first order): "
                            "a number of micro-batches per step that pp divides (through the "
                            "global batch, the data-parallel GPUs or the micro-batch size), or "
                            "the 1F1B schedule, which has no such rule",
                            {"n_microbatches": self.n_microbatches, "pp": p})
        if self.etp is not None:
            self._check_etp()
        if self.etp is not None and (self.tp * self.dp * self.cp) % self.ep:
            raise PlanError("ep_group", f"ep={self.ep} must divide tp·dp·cp = {self.tp}·"
                                        f"{self.dp}·{self.cp} = {self.tp * self.dp * self.cp} "
                                        "(etp=1, MoE parallel folding)")
        if self.etp is None and (self.dp * self.cp) % self.ep:
            hint = (f"; with etp=1 (MoE parallel folding) ep may divide tp·dp·cp = "
                    f"{self.tp * self.dp * self.cp}"
                    if self.tp > 1 and (self.tp * self.dp * self.cp) % self.ep == 0 else "")
            raise PlanError("ep_group", f"ep={self.ep} must divide dp·cp = {self.dp}·{self.cp} "
                                        f"= {self.dp * self.cp}{hint}")
        if self.fsdp_shard_size is not None:
            f = self.fsdp_shard_size
            _whole("fsdp_shard_size", f)
            f = int(f)
            object.__setattr__(self, "fsdp_shard_size", f)
            check_fsdp_shard(f, self.dp, self.cp, self.ep, self.zero_stage)
            if f == self.dp * self.cp:          # the whole group: plain ZeRO-3 (the default)
                object.__setattr__(self, "fsdp_shard_size", None)

    def _check_etp(self):
        """``etp``'s rule (``RULES["etp"]``): 1 or tp (tp stored as None); at 1 below tp,
        sequence parallelism and no HSDP shard group."""
        _whole("etp", self.etp)
        e = int(self.etp)
        if e == self.tp:                            # Megatron-Core's default: stored as None
            object.__setattr__(self, "etp", None)
            return
        if e != 1:
            raise PlanError("etp", f"etp={e} must be tp={self.tp} (the default) or 1 (MoE "
                                   "parallel folding)")
        object.__setattr__(self, "etp", 1)
        if not self.sequence_parallel:
            raise PlanError("etp", f"etp=1 below tp={self.tp} needs sequence_parallel=True (each "
                                   "rank dispatches its own x/tp tokens)")
        if self.fsdp_shard_size is not None and self.fsdp_shard_size != self.dp * self.cp:
            raise PlanError("etp", "etp=1 below tp is not priced with an HSDP shard group "
                                   f"(fsdp_shard_size={self.fsdp_shard_size})")

    # ---- derived sizes
    @property
    def expert_tp(self) -> int:
        """The routed experts' tensor-parallel size: ``etp``, or tp where it is None."""
        return self.tp if self.etp is None else self.etp

    @property
    def n_gpus(self) -> int:
        """GPUs the plan uses: dp·tp·pp·cp."""
        return self.dp * self.tp * self.pp * self.cp

    @property
    def global_batch_size(self) -> int:
        """Sequences per optimizer step: micro_batch_size × n_microbatches × dp."""
        return self.micro_batch_size * self.n_microbatches * self.dp

    @property
    def zero_group_size(self) -> int:
        """Ranks that hold the same dense parameters (ZeRO shards over them): dp·cp."""
        return self.dp * self.cp

    @property
    def shard_group_size(self) -> int:
        """Ranks one replica's dense parameters, gradients and optimizer states are sharded
        over: ``fsdp_shard_size`` under HSDP, else the whole ZeRO group (dp·cp)."""
        return self.zero_group_size if self.fsdp_shard_size is None else self.fsdp_shard_size

    @property
    def is_hsdp(self) -> bool:
        """True for hybrid sharding: ZeRO-3 sharded over fewer ranks than the dp·cp group."""
        return self.fsdp_shard_size is not None

    def bubble_fraction(self, relative_to: str = "ideal") -> float:
        """This plan's pipeline bubble (see the module function ``bubble_fraction``)."""
        return bubble_fraction(self.pp, self.n_microbatches, self.schedule, self.virtual_stages,
                               relative_to)

    def describe(self) -> str:
        """A one-line summary, e.g. 'TP8 · PP4 · DP64 · 1F1B m=16 mbs=1 · ZeRO-1 · selective
        recompute'; a pipeline whose layers are split unevenly says so ('PP21 uneven': two plans
        of the same degrees with other splits read alike, a trial's 04b ranking listing the
        slot split's 15.7 s plan under the name of the uneven one's 13.5 s)."""
        dims = [f"TP{self.tp}", f"PP{self.pp}"]
        if self.virtual_stages > 1:
            dims[-1] += f"×v{self.virtual_stages}"
        if self.pp > 1 and self.pp_split == "uneven":
            dims[-1] += " uneven"
        if self.cp > 1:
            dims.append(f"CP{self.cp}")
        dims.append(f"DP{self.dp}")
        if self.ep > 1:
            dims.append(f"EP{self.ep}" + (f"·ETP{self.etp}" if self.etp is not None else ""))
        sched = self.schedule.upper() if self.pp > 1 else "no pipeline"
        zero = f"ZeRO-{self.zero_stage}" if self.zero_stage else "no ZeRO"
        if self.is_hsdp:        # replicas × shard group, as FSDP2's 2-D mesh (replicate, shard)
            zero = (f"HSDP shard {self.fsdp_shard_size} × "
                    f"{self.zero_group_size // self.fsdp_shard_size} replicas")
        return (" · ".join(dims) + f" · {sched} m={self.n_microbatches} "
                f"mbs={self.micro_batch_size} · {zero} · {recompute_words(self.recompute)}")

    def to_dict(self) -> dict:
        """The fields by name: also the plan keyword arguments of the array engines
        (``memory.plan_memory_arrays``, ``step.step_arrays``). The fields are numbers, names and
        flags, so the values themselves (``asdict`` would deep-copy them)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    # ---- rules that need the model, the GPU count or the batch
    def validate(self, model: ModelSpec, n_gpus=None, global_batch_size=None, seq_len=None):
        """Check the rules that involve the model (and, if given, the GPU count, global batch in
        sequences and sequence length). Returns ``self``.

        Raises
        ------
        PlanError (a ValueError)
            Naming the first broken rule (order of ``RULES``).
        """
        if n_gpus is not None and self.n_gpus != n_gpus:
            raise PlanError("product", f"dp·tp·pp·cp = {self.dp}·{self.tp}·{self.pp}·{self.cp} "
                                       f"= {self.n_gpus} must equal n_gpus={n_gpus}")
        if global_batch_size is not None and self.global_batch_size != global_batch_size:
            raise PlanError("batch", f"micro_batch_size × n_microbatches × dp = "
                                     f"{self.micro_batch_size}·{self.n_microbatches}·{self.dp} = "
                                     f"{self.global_batch_size} must equal the global batch "
                                     f"{global_batch_size}")
        _check_model_rules(model, self.tp, self.pp, self.cp, self.ep, self.virtual_stages,
                           self.sequence_parallel, self.pp_split,
                           model.seq_len if seq_len is None else int(seq_len))
        check_etp_model(model, self.etp)
        return self


def check_ep_model(model, ep) -> None:
    """Rule ``ep_experts`` on the model: an expert-parallel size above 1 needs routed experts
    and divides their count (each EP rank holds n_experts ÷ ep whole experts).

    Raises
    ------
    PlanError (a ValueError)
        ``ep`` > 1 for a dense model, or not dividing ``n_experts``, naming the model."""
    if ep > 1 and not model.is_moe:
        raise PlanError("ep_experts", f"ep={ep}: {model.name} is dense (no experts), so ep "
                                      "must be 1")
    if ep > 1 and model.n_experts % ep:
        raise PlanError("ep_experts", f"ep={ep} must divide n_experts={model.n_experts} "
                                      f"({model.name})")


def check_etp_model(model, etp) -> None:
    """Rule ``etp`` on the model: folding the experts (``etp`` 1) needs routed experts.

    Raises
    ------
    PlanError (a ValueError)
        ``etp`` 1 for a dense model, naming it.
    """
    if etp == 1 and not model.is_moe:
        raise PlanError("etp", f"etp=1: {model.name} is dense (no experts to fold): leave the "
                               "experts' TP at tp (etp 0 in a scenario, None in a ParallelPlan)")


def _check_model_rules(model, tp, pp, cp, ep, v, sp, pp_split, seq_len):
    a, g, L = model.n_heads, model.n_kv_heads, model.n_layers
    if a % tp:
        raise PlanError("tp_heads", f"tp={tp} must divide n_heads={a} ({model.name})")
    check_tp_kv_heads(model, tp)
    if pp_split == PP_SPLIT_AUTO and v > 1 and auto_split(pp, v, L) >= 0:
        pp_split = row_pp_split(pp, v, L)              # even or embedding_and_loss
    if pp_split == "uneven" or (pp_split == PP_SPLIT_AUTO and v == 1):  # any split
        if pp * v > L:
            raise PlanError("pp_layers", f"pp·virtual_stages = {pp}·{v} must not exceed "
                                         f"n_layers={L} with pp_split={pp_split!r} "
                                         f"({model.name})")
        slots = None
    else:
        slots = L + 2 if (pp_split == "embedding_and_loss" and pp > 1) else L
    if slots is None:
        pass
    elif slots % pp:
        what = (f"the {slots} pipeline slots (n_layers={L} + embedding + loss)" if slots != L
                else f"n_layers={L}")
        raise PlanError("pp_layers", f"pp={pp} must divide {what}{_split_hint(L, pp, v)} "
                                     f"({model.name})")
    if slots is not None and (slots // pp) % v:
        raise PlanError("virtual_stages", f"virtual_stages={v} must divide the {slots // pp} "
                                          f"layers per pipeline stage ({model.name})")
    check_ep_model(model, ep)
    if cp > 1 and seq_len % (2 * cp):
        raise PlanError("cp_seq", f"2·cp = {2 * cp} must divide seq_len={seq_len}")
    if sp and tp > 1 and seq_len % (cp * tp):
        raise PlanError("sp_seq", f"with sequence parallelism tp={tp} must divide seq_len / cp "
                                  f"= {seq_len}/{cp}")


def stack_runs(plans: pd.DataFrame, allowed: dict, model) -> pd.Series:
    """Which rows of ``enumerate_plans`` a stack runs (``allowed``: ``stacks.plan_options``): a
    ZeRO stage it has (with pp > 1 none above its ``zero_max_with_pp``: DeepSpeed's pipeline
    engine refuses ZeRO-2 and ZeRO-3, ``stacks.Stack.zero_max_with_pp``), a pipeline schedule it
    has (pp 1 needs none), tp that divides the model's
    KV heads or, where the stack replicates them (``tp_kv_replication``), a multiple of them
    (``check_tp_kv_heads``), and tp, pp, cp within its lists where it gives them (a stack
    without model parallelism: 1). A boolean Series on ``plans``' index."""
    g = model.n_kv_heads
    ok = (plans["zero_stage"].isin(allowed["zero_stage"])
          & ((plans["pp"] == 1) | plans["schedule"].isin(allowed["schedule"]))
          & ((plans["pp"] == 1) | (plans["zero_stage"] <= allowed.get("zero_max_with_pp", 3))))
    kv = g % plans["tp"] == 0
    if allowed.get("tp_kv_replication", True):
        kv |= plans["tp"] % g == 0
    ok &= kv
    for k in ("tp", "pp", "cp"):
        if k in allowed:
            ok &= plans[k].isin(allowed[k])
    return ok


def check_tp_kv_heads(model, tp: int, replication: bool = True, stack: str = "") -> None:
    """Rule ``tp_kv_heads``: tensor parallelism splits attention by heads, so ``tp`` must divide
    the g KV heads (each rank holds g/tp of them); where the stack replicates KV heads
    (``replication``, ``stacks.Stack.tp_kv_replication``) a multiple of g also runs, each KV
    head held by tp/g ranks (``memory.kv_heads_per_tp_rank``). Megatron-Core before
    core_v0.16.0 does not replicate: ``TransformerConfig.__post_init__`` raises "num_query_groups
    (g) must be a multiple of tensor_model_parallel_size (tp)" when g % tp != 0, and
    ``Attention`` takes ``divide(num_query_groups, world_size)`` KV heads per rank
    (NVIDIA/Megatron-LM@10ceb4dc4c77, 2024-04-30, megatron/core/transformer/
    transformer_config.py and attention.py; the same in core_v0.15.3); tp a multiple of g came
    with NVIDIA/Megatron-LM@f7dfb9979519 (2025-12-06, "Support TP greater than num_kv_heads",
    first in core_v0.16.0).

    Raises
    ------
    PlanError (a ValueError)
        Rule ``tp_kv_heads``, naming tp, the KV heads, the model and, where it refuses a
        multiple, the stack.
    """
    if isinstance(tp, bool) or not isinstance(tp, (int, np.integer)) or tp < 1:
        raise ValueError(f"tp={tp!r} must be a whole number >= 1")
    g = model.n_kv_heads
    if g % tp == 0 or (replication and tp % g == 0):
        return
    if replication:
        raise PlanError("tp_kv_heads", f"tp={tp} must divide n_kv_heads={g} or be a multiple of "
                                       f"it ({model.name})")
    on = f" on the {stack} stack" if stack else ""
    raise PlanError("tp_kv_heads", f"tp={tp} must divide n_kv_heads={g} ({model.name}){on}: "
                                   "its tensor parallelism splits the KV heads and does not "
                                   "replicate them (rule tp_kv_heads: Megatron-Core before "
                                   f"core_v0.16.0 requires num_query_groups % "
                                   f"tensor_model_parallel_size == 0); use a tp dividing {g}")


def _split_hint(n_layers: int, pp: int, v: int) -> str:
    """What to set when pp does not divide the layers: the splits that place them."""
    works = ["pp_split: uneven"] if pp * v <= n_layers else []
    if (n_layers + 2) % pp == 0 and ((n_layers + 2) // pp) % v == 0:
        works.insert(0, "pp_split: embedding_and_loss")
    if not works:
        return f" (and pp·virtual_stages = {pp * v} exceeds the {n_layers} layers)"
    return f" (for an uneven split set {' or '.join(works)})"


#: The ``ParallelPlan`` fields ``make_plan`` takes as keywords (``dp`` apart, since it is derived
#: when not given; ``n_microbatches`` follows from the global batch).
MAKE_PLAN_FIELDS = ("tp", "pp", "cp", "ep", "virtual_stages", "micro_batch_size", "zero_stage",
                    "recompute", "schedule", "sequence_parallel", "pp_split", "fsdp_shard_size",
                    "etp")


def make_plan(model: ModelSpec, n_gpus: int, global_batch_size: int, *, dp=None, seq_len=None,
              **plan_fields) -> ParallelPlan:
    """Build and validate a ``ParallelPlan`` for ``n_gpus`` GPUs and a global batch.

    ``dp`` defaults to ``n_gpus / (tp·pp·cp)`` and ``n_microbatches`` is
    ``global_batch_size / (micro_batch_size · dp)``.

    Parameters
    ----------
    model : ModelSpec
    n_gpus : int
    global_batch_size : int
        Sequences per optimizer step.
    dp : int, optional
        Data-parallel size (default: derived, ``n_gpus / (tp·pp·cp)``).
    seq_len : int, optional
        Tokens per sequence (default: the model's).
    **plan_fields
        The other ``ParallelPlan`` fields (``MAKE_PLAN_FIELDS``: tp, pp, cp, ep,
        virtual_stages, micro_batch_size, zero_stage, recompute, schedule, sequence_parallel,
        pp_split: also "auto", ``row_pp_split``; fsdp_shard_size; etp), each with
        ``ParallelPlan``'s default (``fsdp_shard_size``:
        hybrid sharding, ZeRO-3 over that many ranks of the dp·cp group; None = the whole
        group).

    Returns
    -------
    ParallelPlan

    Raises
    ------
    PlanError (a ValueError)
        Naming the first broken rule: e.g. ``tp=3 must divide n_heads=64``, ``pp=7 must divide
        n_layers=80``, ``dp·tp·pp·cp = ... must equal n_gpus=...``; a ValueError for a keyword
        that is not a plan field.
    """
    model = as_model(model, needs="a parallel plan")
    bad = sorted(set(plan_fields) - set(MAKE_PLAN_FIELDS))
    if bad:
        raise ValueError(f"make_plan: unknown plan field(s) {bad}; choose from "
                         f"{MAKE_PLAN_FIELDS} (and dp, seq_len)")
    tp, pp, cp, micro_batch_size = (plan_fields.get(k, 1) for k in ("tp", "pp", "cp",
                                                                "micro_batch_size"))
    for name, val in (("n_gpus", n_gpus), ("global_batch_size", global_batch_size), ("tp", tp),
                      ("pp", pp), ("cp", cp), ("micro_batch_size", micro_batch_size)):
        _whole(name, val)
    # Python ints in the plan (an API trial's np.int64 tp came back as ParallelPlan(dp=np.int64
    # (1), tp=np.int64(8), ...))
    n_gpus, global_batch_size, tp, pp, cp, micro_batch_size = (
        int(v) for v in (n_gpus, global_batch_size, tp, pp, cp, micro_batch_size))
    plan_fields.update({k: v for k, v in (("tp", tp), ("pp", pp), ("cp", cp),
                                          ("micro_batch_size", micro_batch_size))
                        if k in plan_fields})
    plan_fields.update({k: int(v) for k, v in plan_fields.items()
                        if isinstance(v, np.integer)})   # ep, virtual_stages, zero_stage...
    if seq_len is not None:
        if np.ndim(seq_len):
            raise ValueError(f"seq_len={seq_len!r} must be one whole number")
        seq_len = int(as_scalar(seq_len, "seq_len", positive=True, integer=True))
    if dp is None:
        if n_gpus % (tp * pp * cp):
            raise PlanError("product", f"tp·pp·cp = {tp}·{pp}·{cp} = {tp * pp * cp} must divide "
                                       f"n_gpus={n_gpus}")
        dp = n_gpus // (tp * pp * cp)
    _whole("dp", dp)
    dp = int(dp)
    if dp * tp * pp * cp != n_gpus:
        raise PlanError("product", f"dp·tp·pp·cp = {dp}·{tp}·{pp}·{cp} = {dp * tp * pp * cp} "
                                   f"must equal n_gpus={n_gpus}")
    if global_batch_size % (micro_batch_size * dp):
        raise PlanError("batch", f"micro_batch_size × dp = {micro_batch_size}·{dp} must divide "
                                 f"the global batch of {global_batch_size} "
                                 f"{noun(global_batch_size, 'sequence')}")
    if plan_fields.get("pp_split") == PP_SPLIT_AUTO:   # a search's split, for this one plan
        plan_fields["pp_split"] = row_pp_split(pp, plan_fields.get("virtual_stages", 1),
                                               model.n_layers)
    plan = ParallelPlan(dp=dp, n_microbatches=global_batch_size // (micro_batch_size * dp),
                        **plan_fields)
    return plan.validate(model, n_gpus, global_batch_size, seq_len)


#: Scenario parameter -> (ParallelPlan field, the value meaning "not fixed: choose it").
PLAN_PARAMETER_FIELDS = {
    "tp": ("tp", 0), "pp": ("pp", 0), "dp": ("dp", 0), "cp": ("cp", 0), "ep": ("ep", 0),
    "micro_batch_size": ("micro_batch_size", 0), "pp_virtual_stages": ("virtual_stages", 0),
    "zero_stage": ("zero_stage", -1), "recompute": ("recompute", "auto"),
    "pp_schedule": ("schedule", "auto"),
}


#: The scenario key of hybrid sharding: ``"full"`` (the default: ZeRO-3 over the whole dp·cp
#: group), ``"auto"`` or 0 (chosen among the stack's HSDP sizes, ``stacks.plan_options``), or
#: a whole number (fixed). Not in ``PLAN_PARAMETER_FIELDS``: absent means "full", not "chosen".
FSDP_SHARD_KEY = "fsdp_shard_size"

#: The scenario key of the experts' tensor parallelism (``ParallelPlan.etp``): 0 (the default:
#: tp, Megatron-Core's default) or 1 (MoE parallel folding, whichever tp the plan has). Not in
#: ``PLAN_PARAMETER_FIELDS``: absent or 0 means tp, not "chosen".
ETP_KEY = "etp"
#: The ``choose_plan(fixed=...)`` keys beside ``PLAN_PARAMETER_FIELDS``' fields.
SEARCH_KEYS = frozenset({FSDP_SHARD_KEY, ETP_KEY})


def etp_of_key(v, name: str = ETP_KEY):
    """The ``ParallelPlan.etp`` a scenario's (or a pilot record's) ``etp`` stands for: 0 ->
    None (the experts' TP equal to tp), 1 -> 1 (MoE parallel folding).

    Raises
    ------
    ValueError
        Anything but 0 or 1 (a bool too), naming ``name``, the value and what each means.
    """
    if isinstance(v, bool) or v not in (0, 1):
        raise ValueError(f"{name}={v!r} must be 0 (the experts' TP equal to tp: Megatron-Core's "
                         "default, what expert_tensor_parallel_size = tensor_model_parallel_size "
                         "means) or 1 (MoE parallel folding: expert_tensor_parallel_size 1)")
    return 1 if v == 1 else None


def _scenario_shard(p: dict):
    """The scenario's ``fsdp_shard_size``: None (whole group), "auto" or an int."""
    v = p.get(FSDP_SHARD_KEY, "full")
    if isinstance(v, str) and v in ("full", "auto"):
        return None if v == "full" else "auto"
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
        raise ValueError(f"fsdp_shard_size={v!r} must be 'full', 'auto', 0 (chosen) or a whole "
                         "number >= 1 (ranks of the dp·cp group ZeRO-3 shards over)")
    return "auto" if v == 0 else int(v)


def fixed_plan_fields(p: dict) -> dict:
    """The ``ParallelPlan`` fields a scenario fixes: every plan parameter present in ``p`` whose
    value is not its "choose" value (0, -1 for ``zero_stage``, "auto"). ``cp`` defaults to 1
    when absent (context parallelism is for long contexts, so it is fixed unless asked for);
    ``fsdp_shard_size`` when the scenario gives a whole number (hybrid sharding; "full", the
    default, and "auto" are search options: ``plan_from_parameters``); ``etp`` when the
    scenario folds the experts (``ETP_KEY`` = 1)."""
    fixed = {} if "cp" in p else {"cp": 1}
    for name, (field, free) in PLAN_PARAMETER_FIELDS.items():
        if name in p and p[name] != free:
            fixed[field] = p[name]
    shard = _scenario_shard(p)
    if shard not in (None, "auto"):
        fixed[FSDP_SHARD_KEY] = shard
    if etp_of_key(p.get(ETP_KEY, 0)) == 1:   # MoE parallel folding (0: the experts' TP is tp)
        fixed[ETP_KEY] = 1
    return fixed


#: The ``enumerate_plans`` axes a scenario's fixed plan fields hold (``scenario_plan_axes``).
GRID_FIXED_AXES = ("tp", "pp", "cp", "ep", "virtual_stages", "micro_batch_size", "zero_stage",
                   "recompute", "schedule")


def scenario_plan_axes(p: dict) -> dict:
    """The ``enumerate_plans`` option lists of notebook 03's "every valid plan": one value for
    each field in ``GRID_FIXED_AXES`` the scenario fixes (``fixed_plan_fields``), and, when it
    leaves ``cp`` free (``cp: 0``), the CP sizes its sequence and GPU count allow
    (``context_parallel_options``, as ``choose_plan``'s search tries them); every other axis
    keeps ``PlanGrid``'s full list. A trial's 128k-token scenario fixing TP 8 and CP 16 was
    shown TP 4 plans without CP, and compared with a plan it forbids."""
    fixed = fixed_plan_fields(p)
    axes = {k: (v,) for k, v in fixed.items() if k in GRID_FIXED_AXES}
    if "cp" not in fixed:
        axes["cp"] = context_parallel_options(int(p["seq_len"]), int(p["n_gpus"]))
    return axes


def free_plan_parameters(p: dict) -> list:
    """The plan parameters a scenario leaves to be chosen (absent or set to their "choose"
    value), ``dp`` excepted (it follows from the others)."""
    fixed = fixed_plan_fields(p)
    return [k for k, (field, _) in PLAN_PARAMETER_FIELDS.items()
            if k != "dp" and field not in fixed]


def choose_plan(model: ModelSpec, cluster, global_batch: int, seq_len=None, *, rank,
                fixed=None, recipe="bf16_adam_fp32_grads", reserve=DEFAULT_RESERVE,
                pp_split="even", allowed=None, practice=DEFAULT_PRACTICE) -> ParallelPlan:
    """The best plan, by ``rank`` (``best_ranked_row``), among those that keep the ``fixed``
    fields and fit (memory counted under ``practice``, ``recount_memory``: a stack's,
    ``stack_plan_search``; default the count as written).

    Searches the free dimensions with ``enumerate_plans`` (fixed fields become one-value option
    lists; a fixed ``dp`` filters the rows). Candidates are the plans that fit; unless ``tp`` is
    fixed, only those with TP inside the scale-up domain; if none fits, the valid plan needing
    the least memory (check it with ``memory_per_gpu(...).fits``).

    Parameters
    ----------
    model, cluster, global_batch, seq_len
        As ``enumerate_plans`` (``global_batch`` in sequences).
    fixed : dict, optional
        ``ParallelPlan`` fields to keep (tp, pp, dp, cp, ep, virtual_stages, micro_batch_size,
        zero_stage, recompute, schedule, fsdp_shard_size: None = ZeRO-3 over the whole group,
        an int = that HSDP shard size, which is a ZeRO-3 plan: it fixes a free ``zero_stage``
        to 3, even when ``allowed`` has no ZeRO-3 (``checks`` warns), and a fixed
        ``zero_stage`` other than 3 raises the ``fsdp_shard`` rule; etp 1: ``PlanGrid.etp``).
    recipe, reserve, pp_split
        As ``enumerate_plans`` (``pp_split="auto"``: the even split where pp·virtual_stages
        divides the layers, the uneven one elsewhere, plan by plan; the returned plan has the
        one of its row).
    allowed : dict, optional
        Option lists for the free fields (``schedule``, ``zero_stage``, ``recompute``,
        ``sequence_parallel``, ``fsdp_shard_size``: "auto" or "full"): a software stack's
        features (``stacks.plan_options``). Fixed fields are kept even when outside them.
    rank : callable
        DataFrame -> DataFrame ordering candidate rows best first: ``ranking.time_ranking(model,
        cluster, seq_len, recipe)`` for the predicted step time (what
        ``step_scenario.scenario_plan`` passes, so every notebook of a scenario shares the
        fastest fitting plan), or
        ``rank_without_time`` for the memory-and-bubble ordering of notebook 03. The plan
        taken from the ranking is ``best_ranked_row``'s: unless ``fixed`` sets ``zero_stage``,
        a ZeRO-3 plan must beat the others with its step lengthened by ``ZERO3_STEP_MARGIN``
        (the step model's 90 % upper error on the calibration split's FSDP runs), or be the only kind that
        fits; without step times (``rank_without_time``), ZeRO-3 only when nothing else fits.

    Raises
    ------
    PlanError (a ValueError)
        If no combination is valid; the message names the deepest rule (in ``RULES`` order)
        that any combination reached before being rejected.
    """
    fixed = dict(fixed or {})
    unknown = set(fixed) - {f for f, _ in PLAN_PARAMETER_FIELDS.values()} - SEARCH_KEYS
    if unknown:
        raise ValueError(f"fixed: unknown plan fields {sorted(unknown)}")
    shard_opt = _shard_option(fixed, allowed)
    opts = _search_options(model, cluster, seq_len, fixed, allowed, shard_opt, pp_split)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EmptyPlanTable)   # the PlanError below says why
        df = recount_memory(enumerate_plans(
            model, cluster, global_batch, seq_len, pp_split=pp_split, recipe=recipe,
            reserve=reserve, fsdp_shard_size=shard_opt, **opts), model, practice)
    if "dp" in fixed:
        df = df[df["dp"] == fixed["dp"]]
    if isinstance(shard_opt, tuple):      # a fixed HSDP size: its rows, where it applies
        hs = df[(df["zero_stage"] == 3) & (df["fsdp_shard_size"] == shard_opt[0])]
        if hs.empty:
            raise PlanError("fsdp_shard", f"fsdp_shard_size={shard_opt[0]}: no valid ZeRO-3 "
                                          "plan has a dp·cp group it divides "
                                          f"({RULES['fsdp_shard']})")
        df = hs
    if df.empty:
        raise _no_plan_error(df.attrs.get("rejected", {}), model, cluster, global_batch, fixed,
                             seq_len, pp_split, opts.get("sequence_parallel", (True,)), opts)
    ok = df[df["fits"]]
    if "tp" not in fixed:
        ok = ok[ok["tp_in_scaleup_domain"]]
    if not callable(rank):
        raise ValueError(f"rank={rank!r} must be callable (DataFrame -> DataFrame), e.g. "
                         "ranking.time_ranking(model, cluster, seq_len) or rank_without_time")
    ok.attrs = dict(df.attrs)
    row = best_ranked_row(rank(ok), "zero_stage" not in fixed) if len(ok) else \
        df.loc[df["memory_bytes"].idxmin()]
    return plan_from_row(row, pp_split)


def imbalance_roomy(rows: pd.DataFrame, model: ModelSpec) -> pd.DataFrame:
    """Of fitting rows of an ``enumerate_plans`` table (its ``attrs``: ``hbm_bytes``,
    ``reserve``, ``seq_len``), for an MoE model, those whose memory leaves room for an
    imbalanced router: ``memory_bytes`` + the extra activations of the busiest experts at
    ``memory.MOE_CHECK_LOAD_FACTOR`` × the mean load (``memory.moe_imbalance_extra_arrays``)
    ≤ HBM × (1 − reserve); every row when none does, and for a dense model. The plan search
    itself counts a balanced router, as practice plans (DeepSeek-V3's published plan, 16-way
    pipeline, no recompute, fits only so: ``step_validation.published_plan_memory``);
    ``step_scenario.roomy_scenario_plan`` searches among these rows, the alternative the
    report's imbalance warning names (``checks.moe_headroom_warning``)."""
    if not model.is_moe or rows.empty:
        return rows
    a = rows.attrs
    extra = moe_imbalance_extra_arrays(
        model, int(a["seq_len"]), **{k: rows[k].to_numpy() for k in (
            "tp", "cp", "pp", "micro_batch_size", "n_microbatches", "virtual_stages")},
        schedule=rows["schedule"].map(SCHEDULES.index).to_numpy(),
        full_recompute=rows["recompute"].to_numpy() == "full",
        etp=rows["etp"].to_numpy() if "etp" in rows else None)
    room = rows["memory_bytes"].to_numpy() + np.asarray(extra) \
        <= float(a["hbm_bytes"]) * (1.0 - float(a["reserve"]))
    return rows[room] if room.any() else rows


#: How much longer than predicted a ZeRO-3 (FSDP) step may run: the 90% upper error of the step
#: model's FSDP rows of the calibration split (``accuracy.validation_table``, sharding "FSDP", split
#: "calibration", the rows that free a unit's gathered weights after its forward, as the ZeRO-3
#: plans the search ranks do (``StepOptions.fsdp_reshard_after_forward`` the stack's: the column
#: ``fsdp_reshard_after_forward`` of data/validation_mfu.csv empty): the ⌈(n + 1)·0.9⌉-th smallest
#: of n = 37 errors, predicted / published MFU − 1, is 0.156; rounded up to two digits;
#: ``accuracy.ALPHA``'s 90%), judged on the held-out FSDP rows of the same policy: 120 of 127 (94%)
#: have an error at or under it. Fitted on the calibration split, not on the held-out rows.
#: llm-foundry's six SHARD_GRAD_OP rows (MPT 1B and 3B at 128-512 H100, reshard_after_forward false,
#: the engine 13-22% fast on them) are left out of this fit, which dates from when the search
#: priced no plan by that policy (it prices FSDP's ZeRO-2 by it now, ``step.fsdp_zero_stage``,
#: and this margin, read by the ZeRO stage alone, does not reach those plans: a margin over
#: both policies, with their calibration row, is left to re-fit); with it the rule's error, the
#: third largest of 38, would be 0.217
#: (0.2787 before the attention kernel's curve on the FlashAttention stacks,
#: ``StepOptions.attention_curve``). It was 0.25 (0.241 measured) before Composer's FSDP backward
#: prefetch was priced on llm-foundry's 2023 runs (``comm.fsdp_exposure``), and 0.18 (0.180) before llm-foundry's
#: FlashAttention-1 attention was priced by length (``StepOptions.fa1_length``).
ZERO3_STEP_MARGIN = 0.16


def sequence_splits(seq_len, tp, cp, sequence_parallel):
    """Whether a sequence of ``seq_len`` tokens splits over a plan's context and tensor ranks,
    the two rules on the sequence ``enumerate_plans`` checks: 2·cp divides it where cp > 1
    (``RULES['cp_seq']``) and, with sequence parallelism and tp > 1, cp·tp divides it
    (``RULES['sp_seq']``). Scalars or arrays (elementwise)."""
    s, t, c = (np.asarray(x, dtype=np.int64) for x in (seq_len, tp, cp))
    sp = np.asarray(sequence_parallel, dtype=bool)
    return ((c == 1) | (s % (2 * c) == 0)) & (~sp | (t == 1) | (s % (c * t) == 0))


def margin_weighted_step_s(step_time_s, zero_stage):
    """The step time a plan search compares: a ZeRO-3 step lengthened by
    ``ZERO3_STEP_MARGIN``, any other as predicted::

        t_ranked = t · (1 + ZERO3_STEP_MARGIN)   if ZeRO-3,   t   otherwise

    Scalars or arrays (elementwise); ``best_ranked_row`` and the RL update's padded-length
    search (``rl.training_mfu``) both rank with it."""
    return np.asarray(step_time_s, dtype=float) * np.where(
        np.asarray(zero_stage) == 3, 1 + ZERO3_STEP_MARGIN, 1.0)


def best_ranked_row(ranked: pd.DataFrame, zero_stage_free: bool = True) -> pd.Series:
    """The plan a search takes from a ranking (best first): its first row, except that, when the
    ZeRO stage is free, a ZeRO-3 row must win with its predicted step lengthened by
    ``ZERO3_STEP_MARGIN``: the row with the least ``step_time_s × (1 + ZERO3_STEP_MARGIN if
    ZeRO-3 else 1)``,
    the ranking's order breaking ties. The margin is the 90 % upper error of the step model's
    ZeRO-3 (FSDP) predictions on the calibration rows (``llmcost.step``, **Limits**), so a
    ZeRO-3 plan is chosen when it is faster by more than that error, or when nothing else fits. Before, ZeRO-3
    was taken only when nothing else fitted, so one GPU count more could move a 405B RL update
    from ZeRO-3 at 38.7 % MFU (128 H100) to a PP2 × v63 CP4 plan at 8.1 % (256 H100). A ranking
    without ``step_time_s`` (``rank_without_time``) keeps that rule: its first non-ZeRO-3 row.

    Raises
    ------
    ValueError
        If the ranking is empty.
    """
    if ranked.empty:
        raise ValueError("no plan fits: the ranking is empty")
    z3 = ranked["zero_stage"].to_numpy() == 3
    if not zero_stage_free or z3.all() or not z3.any():
        return ranked.iloc[0]
    if "step_time_s" not in ranked:
        return ranked[~z3].iloc[0]
    t = margin_weighted_step_s(ranked["step_time_s"].to_numpy(), ranked["zero_stage"].to_numpy())
    return ranked.iloc[int(np.argmin(t))]


def _shard_option(fixed: dict, allowed):
    """``choose_plan``'s hybrid-sharding option, taken out of ``fixed``: a fixed shard size (a
    one-size tuple; None = the whole group) or the ``allowed`` option ("full" by default)."""
    shard_opt = fixed.pop(FSDP_SHARD_KEY) if FSDP_SHARD_KEY in fixed else \
        (allowed or {}).get(FSDP_SHARD_KEY, "full")
    if shard_opt is not None and not isinstance(shard_opt, str):
        _whole("fsdp_shard_size", shard_opt)
        shard_opt = (int(shard_opt),)
    return shard_opt


def _search_options(model, cluster, seq_len, fixed: dict, allowed, shard_opt, pp_split) -> dict:
    """The ``enumerate_plans`` option lists of ``choose_plan``'s search: one value for each
    fixed field, the ``allowed`` lists for the free ones, ZeRO-3 for a fixed HSDP size, and the
    CP sizes the sequence and the GPUs allow when ``cp`` is free. A fixed field impossible on
    its own raises its own rule's ``PlanError`` here, not after a search."""
    seq = model.seq_len if seq_len is None else int(seq_len)
    t, q, c = fixed.get("tp", 1), fixed.get("pp", 1), fixed.get("cp", 1)
    if cluster.n_gpus % (t * q * c):
        raise PlanError("product", f"tp={t} × pp={q} × cp={c} = {t * q * c} must divide "
                                   f"n_gpus={cluster.n_gpus}")
    _check_model_rules(model, t, q, c, fixed.get("ep", 1), fixed.get("virtual_stages", 1), False,
                       pp_split, seq)
    check_etp_model(model, fixed.get(ETP_KEY))
    check_tp_kv_heads(model, t, bool((allowed or {}).get("tp_kv_replication", True)))
    z_max = int((allowed or {}).get("zero_max_with_pp", 3))
    if q > 1 and fixed.get("zero_stage", 0) > z_max:
        raise PlanError("zero_pp", f"zero_stage={fixed['zero_stage']} with pp={q}: the stack "
                                   f"runs at most ZeRO-{z_max} with a pipeline "
                                   f"(zero_max_with_pp; {RULES['zero_pp']}); set zero_stage "
                                   f"<= {z_max}, pp 1, or a stack that pipelines ZeRO-"
                                   f"{fixed['zero_stage']}")
    opts = {k: (fixed[k],) for k in ("tp", "pp", "cp", "ep", "virtual_stages",
                                      "micro_batch_size", "zero_stage", "recompute",
                                      "schedule") if k in fixed}
    if fixed.get(ETP_KEY) is not None:     # MoE parallel folding on every candidate
        opts[ETP_KEY] = fixed[ETP_KEY]
    for k, vals in (allowed or {}).items():
        if k == "tp_kv_replication":     # a stack's rule, not an option list
            opts[k] = bool(vals)
        elif k == "zero_max_with_pp":    # a stack's rule, not an option list
            opts[k] = int(vals)
        elif k not in fixed and k != FSDP_SHARD_KEY:
            opts[k] = tuple(vals)
    if isinstance(shard_opt, tuple):
        # A fixed HSDP shard size is a ZeRO-3 plan: it fixes a free zero_stage to 3 (even on a
        # stack without ZeRO-3, as a fixed zero_stage 3 would be: ``checks`` warns), and a fixed
        # zero_stage other than 3 breaks the fsdp_shard rule.
        if fixed.get("zero_stage", 3) != 3:
            raise PlanError("fsdp_shard", f"fsdp_shard_size={shard_opt[0]} (hybrid sharding) "
                                          f"needs zero_stage=3 (got zero_stage="
                                          f"{fixed['zero_stage']}); leave fsdp_shard_size "
                                          f"'full' for ZeRO-{fixed['zero_stage']}")
        opts["zero_stage"] = (3,)
    if "cp" not in fixed and "cp" not in (allowed or {}):  # a free choice (long sequences
        opts["cp"] = context_parallel_options(seq, cluster.n_gpus)  # need it) unless the stack has none
    return opts


#: The context-parallel sizes a search with ``cp`` free tries (``context_parallel_options``).
CP_SIZES = (1, 2, 4, 8, 16, 32)
#: Pipeline bubbles above this share of the ideal compute time are called out (``checks``, its
#: ``BUBBLE_WARNING``), and a GPU count whose every split has one is not suggested
#: (``split_hint``): a tenth of the compute idle in the pipeline's fill and drain.
BUBBLE_WARNING = 0.10


def context_parallel_options(seq_len: int, n_gpus: int) -> tuple:
    """The CP sizes a plan search with ``cp`` free considers (``choose_plan``'s search when the
    scenario says ``cp: 0``, and notebook 04b's ranking of the same scenario): 1, and each of
    ``CP_SIZES`` that divides ``n_gpus`` and whose ``2·cp`` divides ``seq_len`` (rule
    ``cp_seq``: load-balanced causal CP gives each rank two of 2·cp chunks, Llama 3 §3.3.2)."""
    return tuple(c for c in CP_SIZES
                 if c == 1 or (seq_len % (2 * c) == 0 and n_gpus % c == 0))


def _no_plan_error(counts: dict, model, cluster, global_batch, fixed, seq_len=None,
                   pp_split="even", sp_options=(True,), opts=None) -> PlanError:
    """``choose_plan``'s error when no combination is valid. When the GPU count itself cannot be
    split with the batch (``split_hint``, with sequence parallelism's rule where ``sp_options``,
    the search's, hold no plan without it, and the ``tp_kv_heads`` rule of the search's
    ``opts``), that is the message: it is what a user changes; else
    the deepest rule any combination reached (rules are checked in order) and the three broken
    most often."""
    reached = [r for r in RULES if counts.get(r) and not r.startswith("duplicate")]
    rule = reached[-1] if reached else "product"
    common = sorted(((n, r) for r, n in counts.items() if n and not r.startswith("dup")),
                    reverse=True)[:3]
    tally = ", ".join(f"{r} ({n:,})" for n, r in common)
    # the search's sequence parallelism: its rule counts when no plan may run without it
    sp_only = False not in tuple(sp_options)
    hint = split_hint(model, cluster.n_gpus, global_batch, seq_len, pp_split,
                      {**fixed, "sequence_parallel": sp_only,
                       "tp_kv_replication": (opts or {}).get("tp_kv_replication", True)},
                      tp_max=cluster.accelerator.scaleup_domain_size or None)
    detail = (f"the combinations that get furthest break rule '{rule}' ({RULES[rule]}); rules "
              f"broken most often: {tally}")
    z, split = fixed.get("zero_stage"), [fixed.get(k) for k in ("tp", "pp", "cp")]
    if z and counts.get("duplicate_zero") and None not in split and \
            math.prod(split) == cluster.n_gpus:   # every plan's dp·cp is 1: no ZeRO to shard
        # (a small lab's 1-GPU scenario at zero_stage 3 was told of the pipeline schedule)
        rule, detail = "duplicate_zero", (
            f"zero_stage {z} shards over the data-parallel group, and tp·pp·cp = "
            f"{cluster.n_gpus} leaves dp = 1: ZeRO has nothing to shard; write zero_stage: 0, "
            "or -1 to have it chosen")
    if rule == "ep_group" and fixed.get(ETP_KEY) != 1 and fixed.get("tp", 2) > 1:
        detail += ("; with etp: 1 (MoE parallel folding) ep need only divide tp·dp·cp, so it may "
                   "exceed the data-parallel group")
    if hint:  # the hint says what to change; the rule tally would only repeat it in code terms
        return PlanError("batch", f"no valid plan for {model.name} on {cluster.n_gpus} GPUs: "
                                  f"{hint}")
    return PlanError(rule, f"no valid plan for {model.name} on {cluster.n_gpus} GPUs with a "
                           f"global batch of {global_batch} {noun(global_batch, 'sequence')} "
                           + (f"and {_fixed_words(fixed)} fixed: " if fixed else "(nothing "
                                                                                  "fixed): ")
                           + detail)


def _fixed_words(fixed: dict) -> str:
    """A plan's fixed fields under the names a scenario writes them (``PLAN_PARAMETER_FIELDS``:
    "tp 4, pp 8, pp_schedule 1f1b, pp_virtual_stages 2"), not the plan's field names."""
    key = {field: name for name, (field, _) in PLAN_PARAMETER_FIELDS.items()}
    return ", ".join(f"{key.get(k, k)} {v}" for k, v in fixed.items())


def _rule_products(model, seq_len: int, pp_split: str, fixed: dict) -> set:
    """Every product tp·pp·cp the model's rules allow, whatever the GPU count
    (``_rule_degrees``)."""
    return {t * q * c for t, q, c in _rule_degrees(model, seq_len, pp_split, fixed)}


def _rule_degrees(model, seq_len: int, pp_split: str, fixed: dict) -> set:
    """Every (tp, pp, cp) the model's rules allow, whatever the GPU count (tp divides the
    heads and divides or is a multiple of the KV heads; pp divides the layer slots, layers + 2
    with ``embedding_and_loss``, or is at most the layers with ``uneven`` or ``auto``; 2·cp
    divides the sequence; where ``fixed['sequence_parallel']`` is true, i.e. every plan the
    search may pick runs sequence parallelism, cp·tp divides the sequence too,
    ``RULES['sp_seq']``; where ``fixed['tp_kv_replication']`` is false, tp divides the KV heads,
    ``check_tp_kv_heads``), each field at its fixed value where ``fixed`` gives one."""
    a, g, L = model.n_heads, model.n_kv_heads, model.n_layers
    slots = L + 2 if pp_split == "embedding_and_loss" else L
    repl = bool(fixed.get("tp_kv_replication", True))
    tps = [int(t) for t in _divisors(a) if g % t == 0 or (repl and t % g == 0)]
    pps = list(range(1, L + 1)) if pp_split in ("uneven", PP_SPLIT_AUTO) else \
        [int(q) for q in _divisors(slots)]
    cps = [c for c in CP_SIZES if c == 1 or seq_len % (2 * c) == 0]
    tps, pps, cps = ([fixed[k]] if k in fixed else v for k, v in
                     (("tp", tps), ("pp", pps), ("cp", cps)))
    sp = bool(fixed.get("sequence_parallel", False))   # counted only when the search needs it
    return {(t, q, c) for t in tps for q in pps for c in cps
            if not sp or t == 1 or seq_len % (c * t) == 0}


def _split_products(model, n: int, seq_len: int, pp_split: str, fixed: dict) -> list:
    """The products tp·pp·cp of ``_rule_products`` that divide ``n`` GPUs."""
    return sorted(q for q in _rule_products(model, seq_len, pp_split, fixed) if n % q == 0)


def splitting_gpu_counts(model, global_batch: int, seq_len=None, pp_split: str = "even",
                         fixed: dict | None = None) -> list:
    """Every GPU count a plan can split for ``model`` and a global batch of ``global_batch``
    sequences, sorted: n = dp × tp·pp·cp with dp × micro_batch_size dividing the global batch
    (``RULES['batch']``; dp at its value where ``fixed`` gives one) and tp·pp·cp a product of
    the model's rules (``_rule_products``), each field at its fixed value where given. Memory
    is not checked: a count here can still need a plan that does not fit."""
    fixed = dict(fixed or {})
    seq = model.seq_len if seq_len is None else int(seq_len)
    mbs = int(fixed.get("micro_batch_size", 1))
    dps = [int(d) for d in _divisors(global_batch // mbs)] if global_batch % mbs == 0 else []
    dps = [d for d in dps if "dp" not in fixed or d == fixed["dp"]]
    return sorted({d * q for d in dps for q in _rule_products(model, seq, pp_split, fixed)})


def least_bubble_splits(model, global_batch: int, seq_len=None, pp_split: str = "even",
                        fixed: dict | None = None, tp_max: int | None = None) -> dict:
    """For every GPU count a plan splits (``splitting_gpu_counts``' rule, tp at most ``tp_max``
    unless ``fixed`` gives it: a TP group inside the scale-up domain, as ``choose_plan``
    keeps it), the split with the smallest 1F1B pipeline bubble,

        bubble = (pp − 1) / m,   m = global_batch ÷ (dp × micro_batch_size) micro-batches

    (Narayanan et al. 2021 §2.2; ``bubble_fraction``): ``{n: (bubble, (tp, pp, cp, dp))}``.
    An interleaved schedule can lower the bubble by its virtual stages, so a count whose least
    1F1B bubble is small has a plan that idles little; memory is not checked."""
    fixed = dict(fixed or {})
    seq = model.seq_len if seq_len is None else int(seq_len)
    mbs = int(fixed.get("micro_batch_size", 1))
    if global_batch % mbs:
        return {}
    dps = [int(d) for d in _divisors(global_batch // mbs) if fixed.get("dp", d) == d]
    out: dict = {}
    for t, q, c in _rule_degrees(model, seq, pp_split, fixed):
        if tp_max is not None and "tp" not in fixed and t > tp_max:
            continue
        for d in dps:
            n, b = d * t * q * c, (q - 1) * d * mbs / global_batch
            if n not in out or b < out[n][0]:
                out[n] = (b, (t, q, c, d))
    return out


def fewest_pipeline_stages(model, n_gpus: int, global_batch: int, seq_len=None,
                           pp_split: str = "even", fixed: dict | None = None,
                           tp_max: int | None = None):
    """The fewest pipeline stages of any split of ``n_gpus`` for ``model`` and a global batch of
    ``global_batch`` sequences, and the largest data-parallel degree among the splits with that
    many: ``(pp, dp)``, or None when no split exists. A split is n = dp × tp·pp·cp with
    dp × micro_batch_size dividing the batch (``RULES['batch']``; micro_batch_size 1 unless
    ``fixed`` gives it) and (tp, pp, cp) allowed by the model's rules (``_rule_degrees``, each
    at its fixed value where ``fixed`` gives one), as ``splitting_gpu_counts`` counts them.

    Since dp divides both n and the batch, dp ≤ gcd(n, batch) and tp·pp·cp is a multiple of
    n ÷ gcd(n, batch): a factor of that quotient that no allowed tp·cp holds must be carried by
    pp (576 GPUs = 2⁶·3², a batch of 1,024 = 2¹⁰ sequences: dp ≤ 64, tp·pp·cp a multiple of
    9; with tp and cp powers of two, pp is a multiple of 9). ``tp_max``: tp at most this (the
    scale-up domain, as the plan search keeps it) unless ``fixed`` gives tp (a trial: 64 GPUs
    and a batch of one sequence were said to need "at least 2" stages, with tp 32, where the
    search, tp inside 8-GPU domains, chose 8). Memory is not checked."""
    fixed = dict(fixed or {})
    seq = model.seq_len if seq_len is None else int(seq_len)
    mbs, n = int(fixed.get("micro_batch_size", 1)), int(n_gpus)
    splits = [(q, n // (t * q * c)) for t, q, c in _rule_degrees(model, seq, pp_split, fixed)
              if (tp_max is None or "tp" in fixed or t <= tp_max)
              and n % (t * q * c) == 0 and global_batch % (mbs * (n // (t * q * c))) == 0
              and fixed.get("dp", n // (t * q * c)) == n // (t * q * c)]
    if not splits:
        return None
    pp = min(q for q, _ in splits)
    return pp, max(d for q, d in splits if q == pp)


def fixed_degrees_hint(n_gpus: int, fixed: dict) -> str:
    """Why the degrees a scenario fixes cannot make ``n_gpus`` (``RULES['product']``: dp·tp·pp·cp
    = n_gpus), in the words of what to change, or "" when they can: all four fixed and their
    product is not ``n_gpus``, or some fixed and their product does not divide it. The remedy
    named: the dp that makes the product (``n_gpus ÷ tp·pp·cp``, when whole), or the GPU count
    the four make."""
    degrees = {k: int(fixed[k]) for k in ("tp", "pp", "dp", "cp") if k in fixed}
    prod = int(np.prod(list(degrees.values()))) if degrees else 1
    every = len(degrees) == 4
    if (prod == n_gpus) if every else (n_gpus % prod == 0):
        return ""
    terms = " × ".join(f"{k} {v}" for k, v in degrees.items())
    text = (f"the plan's degrees must multiply to the GPU count ({RULES['product']}), but the "
            f"scenario fixes {terms} = {prod:,}, "
            + (f"not n_gpus={n_gpus:,}" if every else f"which does not divide n_gpus={n_gpus:,}"))
    fixes = []
    rest = prod // degrees["dp"] if "dp" in degrees else prod
    if every and n_gpus % rest == 0:
        fixes.append(f"dp: {n_gpus // rest} (or leave dp out: it is derived as n_gpus ÷ "
                     "tp·pp·cp)")
    if every:
        fixes.append(f"n_gpus: {prod:,}")
    else:
        fixes.append("degrees whose product divides n_gpus (0 leaves a degree to be chosen)")
    return text + "; set " + " or ".join(fixes)


def split_hint(model, n_gpus: int, global_batch: int, seq_len=None, pp_split: str = "even",
               fixed: dict | None = None, tp_max: int | None = None) -> str:
    """Why ``n_gpus`` cannot be split for ``model`` and a global batch of ``global_batch``
    sequences, in the words of what to change, or "" when a split exists. A plan needs
    n_gpus = dp × tp·pp·cp with tp·pp·cp a product of ``_split_products`` (the model's rules)
    and dp × micro_batch_size dividing the global batch (``RULES['batch']``); when no dp that
    divides the batch leaves such a product, the GPU count (or the batch) is what to change:
    the nearest GPU counts below and above (within 4×) that split **with a pipeline bubble of
    at most ``BUBBLE_WARNING``** (``least_bubble_splits``: 1F1B (pp − 1)/m, tp at most
    ``tp_max``, the scale-up domain), and the nearer count that splits only with a larger
    bubble said as such (a count that splits only by a pipeline of a prime number of stages
    and few micro-batches each would idle most of its GPUs), and the batch sizes nearest
    ``global_batch`` that the smallest dp of a valid product divides are named.
    ``fixed['sequence_parallel']`` true (what ``choose_plan`` passes when its stack runs no plan
    without sequence parallelism) adds that rule, cp·tp dividing the sequence."""
    fixed = dict(fixed or {})
    seq = model.seq_len if seq_len is None else int(seq_len)
    mbs = int(fixed.get("micro_batch_size", 1))

    counts = set(splitting_gpu_counts(model, global_batch, seq, pp_split, fixed))
    if n_gpus in counts:
        return ""
    degrees = fixed_degrees_hint(n_gpus, fixed)
    if degrees:  # the scenario's own degrees break the product rule: that is what to change
        return degrees
    prods = _split_products(model, n_gpus, seq, pp_split, fixed)
    batch_dps = [int(d) for d in _divisors(n_gpus) if global_batch % (mbs * d) == 0]
    if not batch_dps:  # the fixed micro-batch itself does not divide the batch
        return (f"micro_batch_size={mbs} does not divide the global batch of {global_batch} "
                f"sequences ({RULES['batch']}); use a micro_batch_size that divides "
                f"{global_batch}, or a global batch that is a multiple of {mbs}")
    near, bad = _sensible_counts(model, n_gpus, global_batch, seq, pp_split, fixed, tp_max)
    text = (f"{fmt_gpus(n_gpus)} do not split with a global batch of {global_batch:,} "
            f"{noun(global_batch, 'sequence')}: "
            f"data parallelism"
            + (f" × micro_batch_size={mbs} (fixed)" if mbs > 1 else "")
            + " must divide the batch, so dp can only be "
            f"{', '.join(map(str, batch_dps))}, leaving tp·pp·cp = "
            f"{', '.join(str(n_gpus // d) for d in batch_dps)}, and no tp (dividing the "
            f"{model.n_heads} heads"
            + ("" if fixed.get("tp_kv_replication", True) else
               f" and, on this stack, the {model.n_kv_heads} KV heads")
            + (f" and, with sequence parallelism, the {seq:,}-token sequence ÷ cp"
               if fixed.get("sequence_parallel", False) else "")
            + "), pp ("
            + (f"at most the {model.n_layers} layers" if pp_split in ("uneven", PP_SPLIT_AUTO)
               else "dividing the "
               f"{model.n_layers + 2 if pp_split == 'embedding_and_loss' else model.n_layers} "
               "layer slots")
            + ") and cp make that product"
            + (f" (the products they make: {', '.join(map(str, prods))})" if prods else ""))
    fixes = [fmt_gpus(n) for n in near if n is not None]
    if fixes:
        fixes[-1] += (f" (the nearest {noun(len(fixes), 'count')} with a split whose pipeline "
                      f"bubble is at most {BUBBLE_WARNING:.0%} of compute time, 1F1B (pp − 1) ÷ "
                      "micro-batches" + (f"; nearer, {'; '.join(bad)}" if bad else "") + ")")
    need = n_gpus // max(prods) if prods else 0   # the smallest dp a product leaves
    if need and mbs > 1 and global_batch % need == 0:  # a smaller micro-batch lets dp be it
        m = max(int(m) for m in _divisors(global_batch // need) if m < mbs)
        fixes.insert(0, f"micro_batch_size={m} (dp {need} × micro_batch_size must divide "
                        f"{global_batch:,})")
    if prods:
        d = mbs * need
        lo, hi = global_batch // d * d, -(-global_batch // d) * d
        batches = [b for b in sorted({lo, hi}) if b > 0]
        # each batch's least bubble on these GPUs (a trial: 2,000 sequences on 100,000 GPUs
        # split only as TP8 · PP125 with 20 micro-batches, 620%)
        bubbles = [least_bubble_splits(model, b, seq, pp_split, fixed, tp_max).get(n_gpus)
                   for b in batches]
        good = [b for b, x in zip(batches, bubbles) if x is not None and x[0] <= BUBBLE_WARNING]
        if good:
            fixes.append(f"a global batch divisible by {d} (e.g. "
                         + " or ".join(f"{b:,}" for b in good) + " sequences)")
        elif any(x is not None for x in bubbles):
            worst = min(x[0] for x in bubbles if x is not None)
            text += (f"; a global batch divisible by {d} would split them, but only with a "
                     f"pipeline bubble of {worst:.0%} or more")
    return text + (f"; use {' or '.join(fixes)}" if fixes else "")


def _sensible_counts(model, n_gpus: int, global_batch: int, seq: int, pp_split: str,
                     fixed: dict, tp_max: int | None) -> tuple:
    """``split_hint``'s suggestions: the nearest GPU counts below and above ``n_gpus`` (above:
    at most 4×) whose least 1F1B bubble (``least_bubble_splits``) is at most
    ``BUBBLE_WARNING``, and, for each side where a count that splits lies nearer, that count and
    its least bubble in words: ``([below, above], [words, ...])``."""
    splits = least_bubble_splits(model, global_batch, seq, pp_split, fixed, tp_max)
    ok = [n for n, (b, _) in splits.items() if b <= BUBBLE_WARNING]
    near = [max((n for n in ok if n < n_gpus), default=None),
            min((n for n in ok if n_gpus < n <= 4 * n_gpus), default=None)]
    nearest = [max((n for n in splits if n < n_gpus), default=None),
               min((n for n in splits if n_gpus < n <= 4 * n_gpus), default=None)]
    bad = []
    for n, good in zip(nearest, near):
        if n is not None and n != good:
            b, (t, q, c, d) = splits[n]
            m = global_batch // (d * int(fixed.get("micro_batch_size", 1)))
            bad.append(f"{fmt_gpus(n)} split at best as TP{t} · PP{q}"
                       + (f" · CP{c}" if c > 1 else "")
                       + f" · DP{d} with {m:,} {noun(m, 'micro-batch', 'micro-batches')}, "
                       f"a bubble of {b:.0%}")
    return near, bad


def plan_from_parameters(p: dict, model: ModelSpec | None = None, *,
                         rank_factory) -> ParallelPlan:
    """The ``ParallelPlan`` described by scenario parameters, chosen where they leave it free.

    Reads ``model``, ``n_gpus``, ``seq_len``, ``global_batch_tokens``, the plan names of
    ``PLAN_PARAMETER_FIELDS``, ``fsdp_shard_size`` (``FSDP_SHARD_KEY``: "full" by default, the
    whole group; "auto" or 0: searched among the stack's HSDP sizes; a whole number: fixed) and
    ``pp_split`` (``scenario_pp_split``: "auto", the default, is the even split where the
    layers divide and the uneven one elsewhere when the stack places layers unevenly, ranked
    with every other choice; "even" on a stack that does not), ``optimizer_recipe``,
    ``mem_reserve_fraction``,
    ``accelerator`` and ``stack`` (for the search). When every plan field is fixed the plan is
    built and validated with ``make_plan`` (``dp`` = 0: derived); otherwise the free fields are
    chosen by ``choose_plan`` among the features of the stack (``stack_plan_search``, default
    ``stacks.DEFAULT_STACK``), ranked by ``rank_factory(model, cluster, seq_len, recipe)``
    (``step_scenario.scenario_plan`` passes ``ranking.time_ranking``).

    Raises
    ------
    PlanError (a ValueError)
        If ``global_batch_tokens`` is not a whole number of sequences or the plan breaks a rule.
    """
    if model is None:
        model = load_model(p["model"])
    seq, tokens = int(p["seq_len"]), int(p["global_batch_tokens"])
    if tokens % seq:
        raise PlanError("batch", f"global_batch_tokens={tokens} must be a whole number of "
                                 f"sequences of seq_len={seq}")
    fixed = fixed_plan_fields(p)
    split = scenario_pp_split(p)
    shard = _scenario_shard(p)         # None ("full"), "auto" or an int (then in ``fixed``)
    stack = load_stack(p.get("stack", DEFAULT_STACK))
    if "tp" in fixed:    # the stack's rule, named with the stack
        check_tp_kv_heads(model, int(fixed["tp"]), stack.tp_kv_replication, stack.name)
    plan_fixed = {k: v for k, v in fixed.items() if k not in (FSDP_SHARD_KEY, ETP_KEY)}
    if set(PLAN_PARAMETER_FIELDS) - {"dp"} <= set(p) and \
            len(set(plan_fixed) - {"dp"}) == len(PLAN_PARAMETER_FIELDS) - 1 and \
            (shard != "auto" or plan_fixed.get("zero_stage") != 3):
        return make_plan(model, int(p["n_gpus"]), tokens // seq, dp=fixed.get("dp"),
                         seq_len=seq, pp_split=split,
                         **{k: v for k, v in fixed.items() if k != "dp"})
    cluster = scenario_cluster(p)
    # the stack's features; "full" (the default shard): ZeRO-3 over the whole group only
    search = stack_plan_search(stack.name, split, hsdp=shard is not None,
                               dtype=p.get("dtype", "bf16"))
    recipe = scenario_recipe_name(p)
    return choose_plan(model, cluster, tokens // seq, seq, fixed=fixed, recipe=recipe,
                       reserve=p.get("mem_reserve_fraction", DEFAULT_RESERVE),
                       rank=rank_factory(model, cluster, seq, recipe), **search)


def duplicate_rule(plan: ParallelPlan, sequence_parallel_options=(True,)):
    """The ``duplicate_*`` rule id if ``enumerate_plans`` would drop this plan as a copy of
    another row, else None."""
    if plan.pp == 1 and plan.schedule != "1f1b":
        return "duplicate_schedule"
    if plan.zero_stage > 0 and plan.dp * plan.cp == 1:
        return "duplicate_zero"
    if plan.tp == 1 and not plan.sequence_parallel and True in sequence_parallel_options:
        return "duplicate_sp"
    return None


# ----------------------------------------------------------------------------- enumeration
def _prime_factors(n: int) -> dict:
    """{prime: exponent} of ``n`` >= 1 by trial division, the candidates tested a block at a
    time in numpy (a Python loop to sqrt(n) took minutes for a batch of 2**70 sequences); a
    divisor found is divided out at once, so the search stops at the square root of what is
    left."""
    factors: dict = {}
    start, block = 2, 1 << 16
    while start * start <= n:
        stop = min(math.isqrt(n) + 1, start + block)
        cand = np.arange(start, stop, dtype=np.int64)
        for p in (int(c) for c in cand[np.int64(n) % cand == 0]):
            while n % p == 0:  # ascending: a composite's primes are already divided out
                factors[p] = factors.get(p, 0) + 1
                n //= p
        start = stop
    if n > 1:
        factors[n] = factors.get(n, 0) + 1
    return factors


def _divisors(n: int) -> np.ndarray:
    """Every divisor of ``n`` >= 1, ascending (from ``_prime_factors``); a ValueError for n < 1
    (a count of GPUs, heads, layers or sequences has none then)."""
    n = as_count(n, "n", floats=False)
    divs = [1]
    for p, k in _prime_factors(n).items():
        divs = [d * p ** e for d in divs for e in range(k + 1)]
    return np.array(sorted(divs), dtype=np.int64)


def _int_axis(name, values, default):
    vals = default if values is None else values
    if isinstance(vals, (str, bytes)) or (
            isinstance(vals, (list, tuple)) and any(isinstance(v, (str, bytes)) for v in vals)):
        raise ValueError(f"{name}={values!r} must be whole numbers, not strings")
    arr = np.atleast_1d(as_array(vals, name, positive=True, integer=True))
    return np.unique(arr.astype(np.int64))


def _name_axis(name, values, allowed):
    if isinstance(values, str):
        vals = [values]
    elif isinstance(values, (list, tuple, np.ndarray)):
        vals = list(values)
    else:
        raise ValueError(f"{name}={values!r} must be one of {allowed} or a list of them")
    if not vals:
        raise ValueError(f"{name} needs at least one value")
    for v in vals:
        if v not in allowed:
            raise ValueError(f"{name}={v!r} must be one of {allowed}")
    return np.array(sorted({allowed.index(v) for v in vals}), dtype=np.int64)


def _flag_axis(name, values):
    """A yes/no axis: True, False or a non-empty list of them (strings refused, as ``as_flag``)."""
    vals = list(values) if isinstance(values, (list, tuple, np.ndarray)) else [values]
    if not vals:
        raise ValueError(f"{name}={values!r} needs at least one value")
    return np.unique(np.asarray([as_flag(v, name) for v in vals], dtype=bool))


@dataclass(frozen=True)
class PlanGrid:
    """The option lists of ``enumerate_plans``' grid: the candidates are their Cartesian product
    (TP × PP × CP × EP × virtual stages × micro-batch size × ZeRO stage × recompute × schedule ×
    sequence parallelism), then the HSDP copies of ``fsdp_shard_size``. Checked and sorted by
    ``plan_axes`` (values) and ``_hsdp_option`` (the shard sizes), where the grid is built.

    Fields
    ------
    tp, pp, virtual_stages, micro_batch_size, ep : sequence of int, optional
        Options per dimension. None = the defaults: all divisors of n_gpus (tp, pp), of the
        layers (or layers + 2 with ``pp_split="embedding_and_loss"``; 1-8 with ``"uneven"``)
        for virtual stages, of the global batch for the micro-batch size, of the routed experts
        for ep (1 for a dense model).
    cp, zero_stage : sequence of int
        Default ``(1,)`` and ``(0, 1, 2, 3)``.
    recompute, schedule : sequence of str
        Default every mode (``RECOMPUTE_MODES``, ``SCHEDULES``).
    sequence_parallel : sequence of bool
        Default ``(True,)``.
    tp_kv_replication : bool
        Default True: a tp that is a multiple of the KV heads is valid (each KV head replicated
        on tp/g ranks); False (a stack that does not replicate them,
        ``stacks.Stack.tp_kv_replication``): tp must divide them (``check_tp_kv_heads``).
    searched_lengths : sequence of int
        Default ``()``: sequence lengths a search has already priced (the RL update's padded-
        length search, ``rl._auto_train_plan``); a plan whose sequence split one of them
        (``sequence_splits``) is rejected (rule ``searched_shorter``) before its memory is
        counted, as its step at the shorter length is shorter.
    zero_max_with_pp : int
        Default 3: the highest ZeRO stage a plan with pp > 1 may use (rule ``zero_pp``;
        ``stacks.Stack.zero_max_with_pp``: DeepSpeed's ``PipelineEngine`` refuses ZeRO-2 and
        ZeRO-3, so 1 on its profile).
    fsdp_shard_size : None, "full", "auto" or a sequence of int / "full"
        Hybrid sharding (HSDP) sizes to add to every valid ZeRO-3 row (``hsdp_shard_sizes``).
        None or "full" (default): ZeRO-3 over the whole dp·cp group only, today's table.
        "auto": the pruned set, powers of two f dividing dp·cp with f·tp at least the scale-up
        domain (a shard group fills a domain; smaller ones only add memory) and f below dp·cp,
        added only to ZeRO-3 rows that fit (a smaller shard group holds more state per GPU, so
        none would fit where the whole group does not). A sequence: those sizes where they
        divide dp·cp (and, with ep > 1, are multiples of ep·cp).
    etp : None or 1
        The experts' tensor parallelism of every candidate: None (default) = tp, Megatron-Core's
        default; 1 = MoE parallel folding on every candidate (``ParallelPlan.etp``: ep divides
        tp·dp·cp, sequence parallelism where tp > 1, no HSDP rows), the table's ``etp``
        column 1.
    """

    tp: object = None
    pp: object = None
    cp: object = (1,)
    ep: object = None
    virtual_stages: object = None
    micro_batch_size: object = None
    zero_stage: object = (0, 1, 2, 3)
    recompute: object = RECOMPUTE_MODES
    schedule: object = SCHEDULES
    sequence_parallel: object = (True,)
    fsdp_shard_size: object = None
    tp_kv_replication: object = True
    zero_max_with_pp: object = 3
    searched_lengths: object = ()
    etp: object = None

    @classmethod
    def build(cls, grid: PlanGrid | None = None, **axes) -> PlanGrid:
        """``grid`` (default ``PlanGrid()``) with ``axes`` replacing its fields: how
        ``enumerate_plans``' keywords become one object.

        Raises
        ------
        ValueError
            ``grid`` not a PlanGrid, or an unknown option name (listing the known ones).
        """
        return options_with(cls, "grid", grid, axes, lambda bad, names: (
            f"enumerate_plans: unknown option(s) {bad}; the grid's are {names} (and seq_len, "
            "pp_split, recipe, flash_attention, dropout, reserve, hbm_bytes, include_rejected)"))

    def choices(self) -> dict:
        """The option lists of the ten plan dimensions (every field but ``fsdp_shard_size``,
        ``tp_kv_replication``, ``zero_max_with_pp``, ``searched_lengths`` and ``etp``), for
        ``plan_axes``."""
        return {f.name: getattr(self, f.name) for f in fields(self)
                if f.name not in ("fsdp_shard_size", "tp_kv_replication", "zero_max_with_pp",
                                  "searched_lengths", "etp")}

    def folds(self) -> bool:
        """Whether every candidate folds the experts (``etp`` 1; None: tp).

        Raises
        ------
        ValueError
            An ``etp`` that is neither None nor 1.
        """
        if self.etp is None:
            return False
        if isinstance(self.etp, (bool, np.bool_)) or self.etp != 1:
            raise ValueError(f"etp={self.etp!r} must be None (the experts' TP = tp, "
                             "Megatron-Core's default) or 1 (MoE parallel folding on every "
                             "candidate)")
        return True


def _zero_max(v) -> int:
    """``PlanGrid.zero_max_with_pp`` checked: a ZeRO stage 0-3.

    Raises
    ------
    ValueError
        Not a whole number 0-3.
    """
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 0 <= v <= 3:
        raise ValueError(f"zero_max_with_pp={v!r} must be a ZeRO stage, 0, 1, 2 or 3")
    return int(v)


def enumerate_plans(model: ModelSpec, cluster, global_batch: int, seq_len=None, *,
                    grid: PlanGrid | None = None, pp_split="even",
                    recipe="bf16_adam_fp32_grads", flash_attention=True, dropout=False,
                    reserve=DEFAULT_RESERVE, hbm_bytes=None, include_rejected=False,
                    **axes) -> pd.DataFrame:
    """Every valid parallel plan of a grid, with per-GPU memory, fits flag and pipeline bubble.

    The candidates are the Cartesian product of the option lists (``PlanGrid``; dp = n_gpus /
    (tp·pp·cp), micro-batches = global_batch / (mbs·dp)); rules as numpy masks over the grid
    (``_grid_rows``), memory over the valid rows (``_plan_frame``: a million candidates in
    well under a second, ``benchmarks/bench_plans.py``), then the HSDP copies and, for a
    model with MTP under ``"auto"``, the uneven rows (``_with_mtp_uneven_rows``).

    Parameters
    ----------
    model : ModelSpec
    cluster : Cluster
        Supplies ``n_gpus`` and the accelerator's ``hbm_bytes``.
    global_batch : int
        Sequences per optimizer step.
    seq_len : int, optional
        Tokens per sequence (default: the model's).
    grid : PlanGrid, optional
        The option lists in one object; the ``**axes`` keywords replace its fields.
    pp_split : {"even", "embedding_and_loss", "uneven", "auto"} (auto: ``PP_SPLIT_AUTO``)
    recipe, flash_attention, dropout
        Memory settings (see ``llmcost.memory``).
    reserve : float
        Fraction of HBM held back when deciding ``fits`` (``memory.DEFAULT_RESERVE``).
    hbm_bytes : float, optional
        Override the accelerator's HBM capacity.
    include_rejected : bool
        Also return the rejected combinations, with ``valid=False`` and the id of the first
        rule they break in ``rejected_rule`` (memory columns NaN).
    **axes
        ``PlanGrid`` fields (their defaults and meaning there): ``tp, pp, cp, ep, virtual_stages,
        micro_batch_size, zero_stage, recompute, schedule, sequence_parallel, fsdp_shard_size``.

    Returns
    -------
    pandas.DataFrame, one row per plan: ``tp, pp, dp, cp, ep, virtual_stages, micro_batch_size,
    n_microbatches, zero_stage, fsdp_shard_size`` (dp·cp unless HSDP), ``recompute, schedule,
    sequence_parallel, pp_split`` (the row's layer split); ``<part>_bytes`` per memory part
    (``memory.PARTS``), ``memory_bytes`` (their sum on the most loaded stage), ``peak_stage``,
    ``fits``, ``bubble_fraction`` (bubble ÷ ideal compute time for the row's schedule); with
    ``include_rejected`` ``valid`` and ``rejected_rule``; ``tp_in_scaleup_domain`` (beyond the
    domain TP's collectives cross the slower scale-out network, unpriced here). ``df.attrs``:
    the settings, the candidate and valid counts, ``rejected`` (rule id -> combinations).

    Raises
    ------
    ValueError
        Bad options, or an accelerator without an HBM capacity and no ``hbm_bytes``.
    """
    g = PlanGrid.build(grid, **axes)
    model, n, gb, s, hbm = _enumerate_inputs(
        model, cluster, global_batch, seq_len, pp_split, recipe, hbm_bytes, reserve,
        {"flash_attention": flash_attention, "dropout": dropout,
         "include_rejected": include_rejected})
    axes_ = plan_axes(model, n, gb, pp_split, g.choices())
    cols, codes, reason, n_total = _grid_rows(model, n, gb, s, axes_, pp_split, include_rejected,
                                              g)
    valid = codes == 0
    frame = partial(_plan_frame, model, s, recipe, pp_split, flash_attention, dropout, hbm,
                    reserve)     # (cols, valid) -> per-GPU memory, fits and bubble of the rows
    hsdp = _folded_rows(g, _hsdp_option(g.fsdp_shard_size), cols, model)
    df, valid, codes, n_hsdp = _with_hsdp_rows(frame(cols, valid), cols, valid, codes,
                                               hsdp, int(cluster.scaleup_domain_size), frame)
    _label_rows(df, int(cluster.scaleup_domain_size), valid, codes, include_rejected)
    df.attrs.update({
        "model": model.name, "n_gpus": n, "global_batch": gb, "seq_len": s,
        "hbm_bytes": float(hbm), "reserve": float(reserve), "recipe": get_recipe(recipe).name,
        "pp_split": pp_split, "flash_attention": flash_attention, "dropout": dropout,
        **_grid_counts(reason, n_total, n_hsdp),
        "fsdp_shard_size": "full" if hsdp is None else hsdp, "n_hsdp": n_hsdp})
    _explain_empty(df, hsdp, n_hsdp, valid, cols)
    return _with_mtp_uneven_rows(df, model, pp_split, g, partial(
        enumerate_plans, model, cluster, global_batch, seq_len, pp_split="uneven", recipe=recipe,
        flash_attention=flash_attention, dropout=dropout, reserve=reserve, hbm_bytes=hbm_bytes,
        include_rejected=include_rejected))


def _with_mtp_uneven_rows(df: pd.DataFrame, model, pp_split, g: PlanGrid,
                          table) -> pd.DataFrame:
    """``enumerate_plans``' ``pp_split="auto"`` table of a model with multi-token prediction
    with the same pipelined plans at v = 1 split ``"uneven"`` beside it, so that every ranking
    of the table (``choose_plan``, ``ranking.rank_plans``, notebook 04b) chooses between the
    splits: only "uneven" counts the MTP modules and the loss as 2·D + 1 slots of the last
    stage (``memory.stage_layers``; Megatron-Bridge's DeepSeek-V3 layout for PP 16: [E + 4,
    4 × 14, 1 + MTP + loss]; DeepSeek's own run, PP 16 over 61 layers, arXiv:2412.19437
    §3.2), where "embedding_and_loss" and "even" place the layers as if the module were not
    there and the last stage carries it on top, which can pace the pipeline (a trial's
    DeepSeek-V3 on 2,016 GB200: 7.2 s of stage imbalance in a 15.7 s step); the uneven split's
    first stages can hold more layers, so it is not always the faster or the one that fits (a
    review: on 2,016 B200 it needed full recomputation). ``table(grid)``: the uneven table of a
    grid (keyword ``grid``). Only rows whose pipeline the auto split places otherwise are added
    (where it already took "uneven" they would repeat its rows); the counts of candidates and
    valid plans include them, the rejections stay the auto table's. ``df`` itself
    for another split, a model without MTP, or a grid without v = 1."""
    if pp_split != PP_SPLIT_AUTO or not model.mtp_depth or not (
            g.virtual_stages is None or 1 in tuple(g.virtual_stages)):
        return df
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EmptyPlanTable)   # none uneven: the auto table's alone
        alt = table(grid=dataclasses.replace(g, virtual_stages=(1,)))
    # where auto already took "uneven" (pp dividing neither L nor L + 2) the rows are the same
    keep = (alt["pp"] > 1) & (auto_split(alt["pp"].to_numpy(), 1, model.n_layers) != 2)
    if "valid" in alt:
        keep &= alt["valid"]
    if not keep.any():
        return df
    out = pd.concat([df, alt[keep]], ignore_index=True)
    out.attrs = dict(df.attrs)   # the counts with the added rows (notebook 03 prints them)
    for k in ("n_candidates", "n_valid"):
        if k in out.attrs:
            out.attrs[k] = int(out.attrs[k]) + int(keep.sum())
    return out


def bare_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A shallow copy of ``frame`` without its ``attrs``, to read many columns from: pandas
    deep-copies a frame's ``attrs`` into every column it hands out (``NDFrame.__finalize__``),
    which in a plan search took longer than the reads themselves. The same rows, columns and
    data (not copied)."""
    out = frame.copy(deep=False)
    out.attrs = {}
    return out


def frame_memory_arrays(rows: pd.DataFrame, model: ModelSpec, practice: MemoryPractice,
                        seq_len: int) -> dict:
    """``memory.plan_memory_arrays`` of rows of an ``enumerate_plans`` table at ``seq_len``
    tokens per sequence, with the table's own recipe, FlashAttention, dropout and layer split
    (``rows.attrs``; a ``pp_split`` column's codes where the table has one; an ``etp`` column's
    expert TP where the table folds the experts, ``PlanGrid.etp``) and ``practice``: the memory
    parts per row (``recount_memory``; the RL update's count at its longest micro-batch,
    ``rl.longest_memory``)."""
    a, rows = rows.attrs, bare_frame(rows)
    return plan_memory_arrays(
        model, **{k: rows[k].to_numpy() for k in ("tp", "pp", "dp", "cp", "ep",
                                                   "virtual_stages", "micro_batch_size",
                                                   "n_microbatches", "zero_stage",
                                                   "sequence_parallel", "fsdp_shard_size")},
        recompute=pd.Categorical(rows["recompute"], categories=RECOMPUTE_MODES).codes,
        schedule=pd.Categorical(rows["schedule"], categories=SCHEDULES).codes,
        pp_split=(rows["pp_split"].cat.codes.to_numpy().astype(np.int64)
                  if "pp_split" in rows else a["pp_split"]),
        seq_len=seq_len, recipe=a["recipe"], flash_attention=a["flash_attention"],
        dropout=a["dropout"], practice=practice,
        etp=rows["etp"].to_numpy() if "etp" in rows else None)


def recount_memory(plans: pd.DataFrame, model: ModelSpec, practice: MemoryPractice
                   ) -> pd.DataFrame:
    """``enumerate_plans``' table with its memory columns (``<part>_bytes``, ``memory_bytes``,
    ``peak_stage``, ``fits``) counted again under ``practice`` (``memory.MemoryPractice``: a
    stack's selective policy, ZeRO-3 gather unit, FP8 saved inputs), with the table's own
    settings (``plans.attrs``: sequence length, recipe, FlashAttention, dropout, layer split,
    HBM and reserve). A copy, whose ``attrs["memory_practice"]`` says the practice; under
    ``DEFAULT_PRACTICE`` (the practice ``enumerate_plans`` counts with), or with no counted
    row, the table itself.

    Raises
    ------
    ValueError
        ``practice`` not a ``MemoryPractice``, or a table without ``enumerate_plans``' attrs.
    """
    if not isinstance(practice, MemoryPractice):
        raise ValueError(f"practice={practice!r} must be a memory.MemoryPractice")
    need = ("seq_len", "recipe", "flash_attention", "dropout", "pp_split", "hbm_bytes",
            "reserve")
    if any(k not in plans.attrs for k in need):
        raise ValueError(f"plans must be a table of parallel.enumerate_plans (attrs {need})")
    done = np.isfinite(plans["memory_bytes"].to_numpy(dtype=float))
    if practice == DEFAULT_PRACTICE or not done.any():
        return plans
    out = plans.copy()
    out.attrs["memory_practice"] = practice.describe()
    a = out.attrs
    arr = frame_memory_arrays(out[done], model, practice, a["seq_len"])
    for p in PARTS:
        out.loc[done, f"{p}_bytes"] = arr[p]
    out.loc[done, "memory_bytes"] = arr["total"]
    out.loc[done, "peak_stage"] = arr["stage"]
    out.loc[done, "fits"] = np.asarray(fits(arr["total"], a["hbm_bytes"], a["reserve"]))
    return out


def _label_rows(df: pd.DataFrame, scaleup_domain: int, valid, codes,
                include_rejected: bool) -> None:
    """``enumerate_plans``' row labels, in place: ``tp_in_scaleup_domain`` (tp divides the
    scale-up domain: with consecutive ranks every TP group then lies within one domain; a tp
    at most the domain that does not divide it, TP 32 on a 72-GPU NVL72 rack, has groups that
    straddle two, as a trial found labelled "inside") and, with ``include_rejected``,
    ``valid`` and ``rejected_rule`` (the ``RULES`` id of each row's rejection code, "" for a
    valid row)."""
    df["tp_in_scaleup_domain"] = (df["tp"] <= scaleup_domain) & (scaleup_domain % df["tp"] == 0)
    if include_rejected:
        df["valid"] = valid
        labels = [""] + list(RULES)
        df["rejected_rule"] = pd.Categorical.from_codes(codes.astype(np.int64), labels)


def _folded_rows(g: PlanGrid, hsdp, cols: dict, model):
    """Under MoE parallel folding (``g.etp`` 1), in place: every row's ``etp`` column 1, and no
    HSDP copies (the option returned None; given sizes refused; a dense ``model`` refused by
    rule ``etp``, ``check_etp_model``). Else ``hsdp`` as it is."""
    if not g.folds():
        return hsdp
    check_etp_model(model, 1)
    if isinstance(hsdp, tuple):
        sizes = ", ".join(str(v) for v in hsdp)
        raise ValueError(f"fsdp_shard_size {sizes} with etp=1: hybrid sharding is not priced "
                         "under MoE parallel folding (leave fsdp_shard_size 'full', or set "
                         "etp 0)")
    cols["etp"] = np.ones(len(cols["tp"]), dtype=np.int64)
    return None


def _with_hsdp_rows(df: pd.DataFrame, cols: dict, valid, codes, hsdp, scaleup_domain: int,
                    frame) -> tuple:
    """Hybrid sharding: ``df`` with the copies of its valid ZeRO-3 rows that have a smaller
    shard group appended (``_hsdp_frame``; only when asked, ``hsdp`` not None: the default
    table is ZeRO-3 over the whole group, as before HSDP), and the ``valid`` flags and rejection
    ``codes`` extended to match (the copies are valid). Returns ``(df, valid, codes,
    n_hsdp)``."""
    hs = None
    if hsdp is not None:
        hs = _hsdp_frame(cols, valid, df, hsdp, scaleup_domain, frame)
    n_hsdp = 0 if hs is None else len(hs)
    if n_hsdp:
        df = pd.concat([df, hs], ignore_index=True)
        valid = np.concatenate([valid, np.ones(n_hsdp, dtype=bool)])
        codes = np.concatenate([codes, np.zeros(n_hsdp, dtype=codes.dtype)])
    return df, valid, codes, n_hsdp


def _explain_empty(df: pd.DataFrame, hsdp, n_hsdp: int, valid, cols) -> None:
    """``enumerate_plans``' last step, in place: an empty table's ``empty_reason``
    (``empty_reason``, warned as ``EmptyPlanTable``); HSDP asked for and none added: its
    ``hsdp_empty_reason`` (warned unless "auto", whose empty set is routine)."""
    if df.attrs["n_valid"] == 0:
        df.attrs["empty_reason"] = empty_reason(df.attrs)
        warnings.warn(df.attrs["empty_reason"], EmptyPlanTable, stacklevel=3)
    elif hsdp is not None and n_hsdp == 0:
        # asked for hybrid sharding, got none: say why (the table itself is not empty)
        df.attrs["hsdp_empty_reason"] = _hsdp_empty_reason(hsdp, valid, cols)
        if hsdp != "auto":
            warnings.warn(df.attrs["hsdp_empty_reason"], EmptyPlanTable, stacklevel=3)


def _enumerate_inputs(model, cluster, global_batch, seq_len, pp_split, recipe, hbm_bytes,
                      reserve, flags: dict):
    """``enumerate_plans``' entry checks, each a ValueError naming the argument; returns
    ``(model, n_gpus, global_batch, seq_len, hbm_bytes)`` as numbers (``hbm_bytes`` defaults
    to the accelerator's)."""
    model = as_model(model, needs="enumerating plans")
    n = int(as_cluster(cluster).n_gpus)
    gb = int(as_scalar(global_batch, "global_batch", positive=True, integer=True))
    s = int(model.seq_len if seq_len is None else as_array(seq_len, "seq_len", positive=True,
                                                            integer=True))
    if pp_split not in SEARCH_PP_SPLITS:
        raise ValueError(f"pp_split={pp_split!r} must be one of {SEARCH_PP_SPLITS}")
    for flag, v in flags.items():
        as_flag(v, flag)
    get_recipe(recipe)
    hbm = hbm_bytes if hbm_bytes is not None else cluster.accelerator.hbm_bytes
    if hbm is None:
        raise ValueError(f"{cluster.accelerator.name} has no hbm_bytes in the catalogue; pass "
                         "hbm_bytes")
    fits(0.0, hbm, reserve)  # validates hbm_bytes and reserve
    return model, n, gb, s, hbm


def _grid_counts(reason, n_total: int, n_hsdp: int) -> dict:
    """The table's counts: candidates and valid plans (HSDP copies included), and ``rejected``
    (rule id -> combinations rejected for it). ``reason`` holds the codes over the axes the
    rules read, with length 1 on the others (``_reject_codes``): each of its codes stands for
    ``n_total / reason.size`` combinations of the grid's ``n_total``, so the counts are
    ``reason``'s times that (the grid itself is never counted element by element)."""
    per_code = n_total // reason.size if reason.size else 0   # an empty axis: no candidate
    counts = np.bincount(np.ravel(reason, order="K"), minlength=len(RULES) + 1) * per_code
    return {"n_candidates": int(n_total) + n_hsdp,
            "n_valid": int(counts[0]) + n_hsdp,
            "rejected": {rule: int(c) for rule, c in zip(RULES, counts[1:])}}


def plan_axes(model: ModelSpec, n: int, gb: int, pp_split: str, choices: dict) -> dict:
    """The option list of each dimension of ``enumerate_plans``' grid, checked and sorted, from
    ``choices`` (``enumerate_plans``' ``tp``, ``pp``, ``cp``, ``ep``, ``virtual_stages``,
    ``micro_batch_size``, ``zero_stage``, ``recompute``, ``schedule``, ``sequence_parallel``;
    None = the defaults: every divisor of ``n`` GPUs for TP and PP, of the layers (or layers + 2
    with ``pp_split="embedding_and_loss"``; 1-8 when uneven) for virtual stages, of the
    global
    batch ``gb`` for the micro-batch size, of the routed experts for EP)."""
    L = model.n_layers
    split_layers = L + 2 if pp_split in ("embedding_and_loss", PP_SPLIT_AUTO) else L
    vs = np.arange(1, 9) if pp_split == "uneven" else \
        np.union1d(_divisors(L), _divisors(split_layers))    # auto: uneven only at v = 1
    return {
        "tp": _int_axis("tp", choices["tp"], _divisors(n)),
        "pp": _int_axis("pp", choices["pp"], _divisors(n)),
        "cp": _int_axis("cp", choices["cp"], (1,)),
        "ep": _int_axis("ep", choices["ep"],
                        _divisors(model.n_experts) if model.is_moe else (1,)),
        "virtual_stages": _int_axis("virtual_stages", choices["virtual_stages"], vs),
        "micro_batch_size": _int_axis("micro_batch_size", choices["micro_batch_size"],
                                      _divisors(gb)),
        "zero_stage": np.unique(as_array(np.atleast_1d(choices["zero_stage"]), "zero_stage",
                                         nonnegative=True, integer=True, upper=3
                                         ).astype(np.int64)),
        "recompute": _name_axis("recompute", choices["recompute"], RECOMPUTE_MODES),
        "schedule": _name_axis("schedule", choices["schedule"], SCHEDULES),
        "sequence_parallel": _flag_axis("sequence_parallel", choices["sequence_parallel"]),
    }


def _grid_rows(model, n, gb, s, axes, pp_split, include_rejected, grid=None):
    """The Cartesian product of ``axes`` with each combination's rejection code (0 = valid,
    else the 1-based index of the first ``RULES`` entry it breaks), as numpy masks over the
    whole grid. Returns ``(cols, codes, reason, n_total)``: the columns of the kept rows (every
    row with ``include_rejected``, else the valid ones, in the grid's C order) with
    ``dp = n / (tp·pp·cp)`` and ``n_microbatches = gb / (mbs·dp)`` (0 for a rejected row), the
    kept rows' codes, the codes over the axes the rules read (``_reject_codes``) and the grid's
    size. ``grid``: the ``PlanGrid`` whose stack rules apply (``tp_kv_replication``,
    ``zero_max_with_pp``; None: the defaults)."""
    grid = PlanGrid() if grid is None else grid
    kv_replication = as_flag(grid.tp_kv_replication, "tp_kv_replication")
    zero_max_with_pp = _zero_max(grid.zero_max_with_pp)
    names = list(axes)
    shape = tuple(len(axes[k]) for k in names)
    g = {k: axes[k].reshape([-1 if i == j else 1 for j in range(len(names))])
         for i, k in enumerate(names)}
    reason = _reject_codes(model, n, gb, s, g, pp_split, True in axes["sequence_parallel"],
                           kv_replication, zero_max_with_pp, grid.folds())
    reason = _reject_searched(reason, g, grid.searched_lengths)
    if include_rejected:
        codes = np.broadcast_to(reason, shape).ravel()
        rows = np.arange(codes.size)
    else:
        rows = _valid_rows(reason, shape)
        codes = np.zeros(rows.size, dtype=np.uint8)
    idx = np.unravel_index(rows, shape)
    cols = {k: axes[k][idx[i]] for i, k in enumerate(names)}
    cols["dp"] = n // (cols["tp"] * cols["pp"] * cols["cp"])
    cols["n_microbatches"] = np.where(codes == 0, gb // np.maximum(
        cols["micro_batch_size"] * np.maximum(cols["dp"], 1), 1), 0)
    return cols, codes, reason, int(np.prod(shape, dtype=np.int64))


def _reject_searched(reason, g, searched) -> np.ndarray:
    """``reason`` with the valid combinations whose sequence split one of the ``searched``
    lengths (``sequence_splits`` of ``g``'s tp, cp and sequence parallelism) coded
    ``searched_shorter``; ``reason`` itself when none is given."""
    lengths = [int(x) for x in (searched or ())]
    if not lengths:
        return reason
    old = np.zeros(1, dtype=bool)
    for x in lengths:
        old = old | sequence_splits(x, g["tp"], g["cp"], g["sequence_parallel"])
    return np.where((reason == 0) & old, np.uint8(_RULE_CODES["searched_shorter"]), reason)


def _valid_rows(reason, shape) -> np.ndarray:
    """The flat C-order indices in the grid of ``shape`` of the combinations whose code is 0,
    without writing out the grid: the valid positions of ``reason`` (length 1 on the axes no
    rule reads), each crossed with every position of those axes, sorted."""
    base = np.ravel_multi_index(_zero_coordinates(reason), shape)
    strides = np.cumprod((shape[1:] + (1,))[::-1])[::-1]
    offsets = np.zeros(1, dtype=np.int64)
    for j, size in enumerate(shape):
        if reason.shape[j] == 1 and size > 1:
            offsets = (offsets[:, None] + np.arange(size) * strides[j]).ravel()
    return np.sort((base[:, None] + offsets[None, :]).ravel())


def _zero_coordinates(a) -> tuple:
    """The coordinates of ``a``'s zeros, as ``np.nonzero(a == 0)`` but in ``a``'s memory order
    (``_reject_codes`` returns a transposed view): the flat positions of the zeros in that
    order, unravelled over the axes so ordered and handed back in ``a``'s own axis order.
    ``np.nonzero`` over a many-axis array, and a C-order copy of a transposed one, are an order
    of magnitude slower."""
    a = np.asarray(a)
    order = sorted(range(a.ndim), key=lambda i: (-a.strides[i], i))
    mem = np.transpose(a, order)
    if not mem.flags.c_contiguous:
        mem = np.ascontiguousarray(mem)
    found = np.unravel_index(np.flatnonzero(mem == 0), mem.shape)
    out = [None] * a.ndim
    for pos, axis in enumerate(order):
        out[axis] = found[pos]
    return tuple(out)


def _hsdp_frame(cols, valid, df, hsdp, scaleup_domain, frame):
    """The HSDP rows ``enumerate_plans`` adds (``_hsdp_rows``: copies of the valid ZeRO-3 rows
    with a smaller shard group; with "auto" only of those that fit, since memory grows as the
    shard shrinks), priced by ``frame`` (``_plan_frame``); None when there is none."""
    base = valid & (cols["zero_stage"] == 3)
    if hsdp == "auto":          # memory grows as the shard shrinks: no fit, no HSDP row
        base = base & df["fits"].to_numpy()
    extra = _hsdp_rows(cols, base, hsdp, scaleup_domain)
    if extra is None:
        return None
    return frame(extra, np.ones(len(extra["tp"]), dtype=bool))


def _hsdp_empty_reason(hsdp, valid, cols) -> str:
    """Why ``enumerate_plans`` added no HSDP row though asked to."""
    n_z3 = int(np.count_nonzero(valid & (cols["zero_stage"] == 3)))
    what = "auto sizes (hsdp_shard_sizes)" if hsdp == "auto" else f"fsdp_shard_size={hsdp}"
    return (f"no HSDP row for {what}: " + (
        "no valid ZeRO-3 plan" + (" that fits" if hsdp == "auto" else "") if not n_z3
        else f"none of the {n_z3:,} valid ZeRO-3 plans has a dp·cp group the size "
             "divides with room to spare (f < dp·cp; with ep > 1, ep·cp dividing f; "
             f"rule 'fsdp_shard': {RULES['fsdp_shard']})"))

def _hsdp_option(value):
    """``enumerate_plans``' ``fsdp_shard_size`` option: None (the whole group only), "auto" or a
    tuple of sizes (ints, "full" = the whole group)."""
    if value is None or (isinstance(value, str) and value == "full"):
        return None
    if isinstance(value, str):
        if value != "auto":
            raise ValueError(f"fsdp_shard_size={value!r} must be None, 'full', 'auto' or a list "
                             "of whole numbers >= 1 ('full' for the whole dp·cp group)")
        return "auto"
    vals = list(value) if isinstance(value, (list, tuple, np.ndarray, set, dict)) else [value]
    if not vals:
        raise ValueError("fsdp_shard_size needs at least one value")
    out = []
    for v in vals:
        if isinstance(v, str) and v == "full":
            continue
        _whole("fsdp_shard_size", v)
        out.append(int(v))
    return tuple(sorted(set(out))) or None


def hsdp_shard_sizes(dp_cp: int, tp: int, domain_size: int, ep: int = 1, cp: int = 1) -> list:
    """The hybrid-sharding shard sizes ``enumerate_plans(fsdp_shard_size="auto")`` tries for a
    ZeRO-3 plan: powers of two f that divide dp·cp, with f·tp >= the scale-up domain (the shard
    group of f ranks at stride tp fills at least one domain: a smaller one keeps the same
    NVLink-only gathers and only holds more state per GPU), f >= 2, f < dp·cp (the whole group
    is plain ZeRO-3, already a row), and, with ep > 1, ep·cp dividing f (``check_fsdp_shard``).

    Examples
    --------
    >>> hsdp_shard_sizes(128, 1, 8)
    [8, 16, 32, 64]

    Raises
    ------
    ValueError
        An argument not a whole number >= 1, naming it.
    """
    for name, val in (("dp_cp", dp_cp), ("tp", tp), ("domain_size", domain_size), ("ep", ep),
                      ("cp", cp)):
        _whole(name, val)
    out, f = [], 2
    while f < dp_cp:
        if dp_cp % f == 0 and f * tp >= domain_size and (ep == 1 or f % (ep * cp) == 0):
            out.append(f)
        f *= 2
    return out


def _hsdp_rows(cols, base, sizes, domain):
    """Columns of the HSDP copies of the rows ``base`` (a mask over ``cols``), one per shard
    size (``hsdp_shard_sizes`` for "auto", else the listed sizes that obey the rule)."""
    idx = np.flatnonzero(base)
    if not len(idx):
        return None
    g = (cols["dp"] * cols["cp"])[idx]
    keys = np.stack([g, cols["tp"][idx], cols["ep"][idx], cols["cp"][idx]], axis=1)
    uniq, inv = np.unique(keys, axis=0, return_inverse=True)
    take, shard = [], []
    for j, (gg, t, e, c) in enumerate(uniq):
        if sizes == "auto":
            fs = hsdp_shard_sizes(int(gg), int(t), domain, int(e), int(c))
        else:
            fs = [f for f in sizes if f < gg and gg % f == 0 and (e == 1 or f % (e * c) == 0)]
        if not fs:
            continue
        members = idx[np.asarray(inv).ravel() == j]
        for f in fs:
            take.append(members)
            shard.append(np.full(len(members), f, dtype=np.int64))
    if not take:
        return None
    sel = np.concatenate(take)
    out = {k: np.asarray(v)[sel] for k, v in cols.items()}
    out["fsdp_shard_size"] = np.concatenate(shard)
    return out


class EmptyPlanTable(UserWarning):
    """``enumerate_plans`` or ``ranking.rank_plans`` returned no row; the message says why (also in
    the frame's ``attrs["empty_reason"]``)."""


def empty_reason(attrs: dict) -> str:
    """Why an ``enumerate_plans`` grid holds no valid plan, from its ``attrs``: the deepest rule
    (in ``RULES`` order) any combination reached before being rejected, and the three rules
    broken most often, with counts."""
    counts = attrs.get("rejected", {})
    reached = [r for r in RULES if counts.get(r) and not r.startswith("duplicate")]
    rule = reached[-1] if reached else "product"
    common = sorted(((n, r) for r, n in counts.items() if n and not r.startswith("dup")),
                    reverse=True)[:3]
    tally = ", ".join(f"{r} ({n:,})" for n, r in common) or "none"
    return (f"no valid plan among {attrs.get('n_candidates', 0):,} combinations for "
            f"{attrs.get('model', 'the model')} on {attrs.get('n_gpus', '?')} GPUs with a global "
            f"batch of {attrs.get('global_batch', '?')} sequences: the combinations that get "
            f"furthest break rule '{rule}' ({RULES[rule]}); rules broken most often: {tally}")


def _reject_codes(model, n, gb, s, g, pp_split, sp_true_in_grid, kv_replication=True,
                  zero_max_with_pp=3, folds=False):
    """First broken rule per candidate (0 = valid), broadcast over the grid axes ``g``
    (``tp_kv_heads`` as ``check_tp_kv_heads`` with ``kv_replication``; ``zero_pp`` with
    ``zero_max_with_pp``, ``PlanGrid.zero_max_with_pp``; ``ep_group`` and ``etp`` under MoE
    parallel folding when ``folds``, ``PlanGrid.etp``). The codes are worked
    out with the axes reordered by size, the longest innermost (``_inner_longest``: numpy's
    broadcast loops over a short innermost axis run an order of magnitude slower), and returned
    as a view in ``g``'s axis order (not C-contiguous: read it with ``np.ravel(order="K")``)."""
    g, back = _inner_longest(g)
    tp, pp, cp, ep = g["tp"], g["pp"], g["cp"], g["ep"]
    v, mbs, z, sched, sp = (g["virtual_stages"], g["micro_batch_size"], g["zero_stage"],
                            g["schedule"], g["sequence_parallel"])
    prod = tp * pp * cp
    product_bad = n % prod != 0
    dp = np.where(product_bad, 1, n // prod)
    batch_bad = gb % (mbs * dp) != 0
    m = np.where(batch_bad, 1, gb // (mbs * dp))
    inter = sched == 1
    slots = np.where((pp > 1) & (pp_split == "embedding_and_loss"), model.n_layers + 2,
                     model.n_layers)
    a, kv = model.n_heads, model.n_kv_heads
    checks = [
        ("product", product_bad),
        ("batch", batch_bad),
        ("schedule", np.where(inter, (pp < 2) | (v < 2), v != 1)),
        ("interleaved_microbatches", inter & (m % pp != 0)),
        ("ep_group", ((tp * dp * cp) if folds else (dp * cp)) % ep != 0),
        ("etp", np.asarray(folds) & (tp > 1) & ~sp),
        ("tp_heads", a % tp != 0),
        ("tp_kv_heads", (kv % tp != 0) & ((tp % kv != 0) | (not kv_replication))),
        ("pp_layers", (pp * v > model.n_layers) if pp_split == "uneven"
         else np.where(v == 1, pp > model.n_layers,
                       (model.n_layers % pp != 0) & ((model.n_layers + 2) % pp != 0))
         if pp_split == PP_SPLIT_AUTO else (slots % pp != 0)),
        ("virtual_stages", np.zeros_like(v, dtype=bool) if pp_split == "uneven"
         else auto_split(pp, v, model.n_layers) < 0 if pp_split == PP_SPLIT_AUTO
         else (slots // pp) % v != 0),
        ("ep_experts", (ep > 1) & ((not model.is_moe) | (max(model.n_experts, 1) % ep != 0))),
        ("cp_seq", (cp > 1) & (s % (2 * cp) != 0)),
        ("sp_seq", sp & (tp > 1) & (s % (cp * tp) != 0)),
        ("zero_pp", (pp > 1) & (z > zero_max_with_pp)),
        ("duplicate_schedule", (pp == 1) & (sched != 0)),
        ("duplicate_zero", (z > 0) & (dp * cp == 1)),
        ("duplicate_sp", (tp == 1) & ~sp & sp_true_in_grid),
    ]
    # The first broken rule is the smallest code among the broken ones: each rule's codes on the
    # axes it reads (code - 1 where broken, 255 where kept), folded with np.minimum from the
    # smallest arrays up, so that few passes run over the whole grid; + 1 wraps 255 to 0.
    parts = sorted((np.where(bad, np.uint8(_RULE_CODES[name] - 1), np.uint8(255))
                    for name, bad in checks), key=np.size)
    code = parts[0]
    for part in parts[1:]:
        code = np.minimum(code, part)
    code = np.asarray(code, dtype=np.uint8).reshape(np.shape(code)) + np.uint8(1)
    return code.transpose(back)


def _inner_longest(g: dict) -> tuple:
    """The grid axes ``g`` (arrays of one shared rank, each long on its own axis) transposed so
    that the axes run from the shortest to the longest (ties in their order), and the
    permutation that puts them back (``np.transpose`` axes)."""
    ndim = max((np.ndim(x) for x in g.values()), default=0)
    sizes = np.broadcast_shapes(*(np.shape(x) for x in g.values()))
    order = sorted(range(ndim), key=lambda i: (sizes[i], i))
    return {k: np.transpose(x, order) for k, x in g.items()}, tuple(np.argsort(order))


def _split_column(model, pp_split: str, cols: dict) -> np.ndarray:
    """Each row's layer split as its position in ``PP_SPLITS``: the table's ``pp_split``, or,
    for ``"auto"``, ``auto_split`` (even, embedding_and_loss or, at v = 1, uneven)."""
    n = len(cols["pp"])
    if pp_split != PP_SPLIT_AUTO:
        return np.full(n, PP_SPLITS.index(pp_split), dtype=np.int64)
    return np.maximum(auto_split(cols["pp"], cols["virtual_stages"], model.n_layers), 0)


def _plan_frame(model, s, recipe, pp_split, flash, dropout, hbm, reserve, cols, valid):
    data = {k: cols[k] for k in ("tp", "pp", "dp", "cp", "ep", "virtual_stages",
                                 "micro_batch_size", "n_microbatches", "zero_stage")}
    # the ZeRO-3 shard group (HSDP when below dp·cp); dp·cp, the whole group, otherwise
    data["fsdp_shard_size"] = cols.get("fsdp_shard_size", cols["dp"] * cols["cp"])
    data["recompute"] = pd.Categorical.from_codes(cols["recompute"], RECOMPUTE_MODES)
    data["schedule"] = pd.Categorical.from_codes(cols["schedule"], SCHEDULES)
    data["sequence_parallel"] = cols["sequence_parallel"]
    if "etp" in cols:            # MoE parallel folding (PlanGrid.etp)
        data["etp"] = cols["etp"]
    split = _split_column(model, pp_split, cols)
    data["pp_split"] = pd.Categorical.from_codes(split, PP_SPLITS)
    n = len(cols["tp"])
    mem = {p: np.full(n, np.nan) for p in PARTS}
    total = np.full(n, np.nan)
    stage = np.full(n, -1, dtype=np.int64)
    bubble = np.full(n, np.nan)
    if valid.any():
        sel = {k: np.asarray(v)[valid] for k, v in cols.items()}
        arr = plan_memory_arrays(
            model, tp=sel["tp"], pp=sel["pp"], dp=sel["dp"], cp=sel["cp"], ep=sel["ep"],
            virtual_stages=sel["virtual_stages"], micro_batch_size=sel["micro_batch_size"],
            n_microbatches=sel["n_microbatches"], zero_stage=sel["zero_stage"],
            recompute=sel["recompute"], schedule=sel["schedule"],
            sequence_parallel=sel["sequence_parallel"], seq_len=s, recipe=recipe,
            pp_split=split[valid], flash_attention=flash, dropout=dropout,
            fsdp_shard_size=sel.get("fsdp_shard_size"), etp=sel.get("etp"))
        for p in PARTS:
            mem[p][valid] = arr[p]
        total[valid] = arr["total"]
        stage[valid] = arr["stage"]
        bubble[valid] = bubble_fraction(sel["pp"], sel["n_microbatches"], sel["schedule"],
                                        sel["virtual_stages"])
    data.update({f"{p}_bytes": mem[p] for p in PARTS})
    data.update(memory_bytes=total, peak_stage=stage,
                fits=np.asarray(fits(np.nan_to_num(total, nan=np.inf), hbm, reserve)) & valid,
                bubble_fraction=bubble)
    return pd.DataFrame(data)      # built at once: a column inserted at a time cost more


def plan_table(plans: pd.DataFrame, n: int = 12, within_scaleup_domain: bool = True
               ) -> pd.DataFrame:
    """A readable table of the best fitting plans of ``enumerate_plans``.

    Keeps the plans that fit (and, by default, keep TP inside the scale-up domain), orders them
    by ``rank_without_time`` and returns the first ``n`` plus the plan with the least memory if it
    is not among them. Columns: ``plan`` (``ParallelPlan.describe``), ``memory_gb``,
    ``bubble_fraction``, ``min_memory`` (True on the fitting plan with the least memory) and
    ``min_bubble`` (True on the first-ranked plan, which has the smallest bubble).
    """
    ok = plans[plans["fits"]]
    if within_scaleup_domain and "tp_in_scaleup_domain" in ok:
        ok = ok[ok["tp_in_scaleup_domain"]]
    if ok.empty:
        return pd.DataFrame(columns=["plan", "memory_gb", "bubble_fraction", "min_memory",
                                     "min_bubble"])
    top = rank_without_time(ok).head(n)
    least = ok.loc[[ok["memory_bytes"].idxmin()]]
    if least.index[0] not in top.index:
        top = pd.concat([top, least])
    split = plans.attrs.get("pp_split", "even")
    out = pd.DataFrame({
        "plan": [plan_from_row(r, split).describe() for _, r in top.iterrows()],
        "memory_gb": top["memory_bytes"].to_numpy() / 1e9,
        "bubble_fraction": top["bubble_fraction"].to_numpy(),
    })
    out["min_memory"] = np.asarray(top.index == least.index[0])
    out["min_bubble"] = np.arange(len(out)) == 0
    return out


def rank_without_time(plans: pd.DataFrame) -> pd.DataFrame:
    """Order plans by the costs known without a step-time model: the pipeline bubble, then the
    extra FLOPs of recomputation (none < selective < full), then the context-parallel size (its
    KV exchange is extra traffic), then the ZeRO stage (higher stages add gather/scatter
    traffic), then per-GPU memory. Notebook 03's table; ``ranking.rank_plans`` (notebook 04b, and
    ``choose_plan``'s default) ranks by predicted step time instead. It ignores communication
    volume, which favours large TP and ZeRO-3 more than a time model would."""
    return plans.sort_values(["bubble_fraction", "recompute", "cp", "zero_stage",
                              "memory_bytes"], kind="stable")


@disk_cached  # the same for every call with these arguments: core.diskcache
def scaling_frontier(model: ModelSpec, accelerator, n_gpus, global_batch: int, seq_len=None, *,
                     reserve=DEFAULT_RESERVE, **options) -> pd.DataFrame:
    """What adding GPUs does at a fixed global batch: for each GPU count, the valid plans with
    TP inside the scale-up domain (``n_valid``: fewer than ``enumerate_plans`` counts over
    every TP), the fitting ones among them and the smallest bubble among those.

    Parameters
    ----------
    model : ModelSpec
    accelerator : Accelerator
    n_gpus : sequence of int
    global_batch : int
        Sequences per step (fixed while GPUs are added).
    seq_len : int, optional
    reserve : float
    **options
        Passed to ``enumerate_plans`` (e.g. ``pp_split``, ``recipe``, ``recompute``, a
        stack's ``stacks.plan_options``); a ``tp`` option (the sizes a scenario fixes) is
        intersected with the divisors of each count inside the scale-up domain.

    Returns
    -------
    DataFrame indexed by ``n_gpus`` with ``n_valid``, ``n_fitting``, ``min_memory_gb`` (over
    valid plans), ``min_bubble`` (over fitting plans; NaN if none fits) and ``best_plan`` (first
    by ``rank_without_time``).
    """
    accelerator = as_accelerator(accelerator)  # a catalogue name or an Accelerator
    fixed_tp = options.pop("tp", None)
    fixed_tp = None if fixed_tp is None else {int(t) for t in np.atleast_1d(fixed_tp)}
    rows = []
    for n in n_gpus:
        cl = Cluster(accelerator, int(n))
        tps = [t for t in _divisors(int(n)) if t <= cl.scaleup_domain_size
               and (fixed_tp is None or t in fixed_tp)]
        if not tps:  # the fixed tp cannot split this count: its row says why
            rows.append({"n_gpus": int(n), "n_valid": 0, "n_fitting": 0,
                         "min_memory_gb": np.nan, "min_bubble": np.nan,
                         "best_plan": f"no valid plan (the fixed tp "
                         f"{'/'.join(map(str, sorted(fixed_tp)))}: no divisor of "
                         f"{fmt_gpus(int(n))} at most the {cl.scaleup_domain_size}-GPU "
                         "scale-up domain)"})
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", EmptyPlanTable)   # the row says "no valid plan"
            df = enumerate_plans(model, cl, global_batch, seq_len, tp=tps, reserve=reserve,
                                 **options)
        ok = df[df["fits"]]
        best = rank_without_time(ok).head(1)
        rows.append({
            "n_gpus": int(n), "n_valid": len(df), "n_fitting": len(ok),
            "min_memory_gb": df["memory_bytes"].min() / 1e9 if len(df) else np.nan,
            "min_bubble": float(best["bubble_fraction"].iloc[0]) if len(best) else np.nan,
            "best_plan": plan_from_row(best.iloc[0], df.attrs["pp_split"]).describe()
            if len(best) else ("no plan fits" if len(df) else "no valid plan"),
        })
    return pd.DataFrame(rows).set_index("n_gpus")


def plan_from_row(row, pp_split="even") -> ParallelPlan:
    """The ``ParallelPlan`` of one row of ``enumerate_plans`` (a Series or a dict; an
    ``fsdp_shard_size`` of None, 0 or dp·cp, or none at all, is the whole group; an ``etp``
    column, MoE parallel folding, its ``etp``). The row's
    own ``pp_split`` column, when it has one, is the plan's layer split; else ``pp_split``."""
    own = row.get("pp_split") if hasattr(row, "get") else None
    if isinstance(own, str):
        pp_split = own
    elif pp_split == PP_SPLIT_AUTO:
        raise ValueError("pp_split='auto' needs the row's own pp_split column (a row of "
                         "enumerate_plans has one); pass one of PP_SPLITS")
    f = row.get("fsdp_shard_size") if hasattr(row, "get") else None
    if f is None or (isinstance(f, (float, np.floating)) and np.isnan(f)):
        f = None
    elif isinstance(f, bool) or not isinstance(f, (int, np.integer, float, np.floating)) or \
            f != int(f) or f < 1:
        raise ValueError(f"fsdp_shard_size={f!r} must be a whole number >= 1 (None or NaN for "
                         "the whole dp·cp group; 0 is refused, not read as the whole group)")
    else:
        f = int(f)
    e = row.get("etp") if hasattr(row, "get") else None
    e = None if e is None or (isinstance(e, (float, np.floating)) and np.isnan(e)) else int(e)
    return ParallelPlan(
        dp=int(row["dp"]), tp=int(row["tp"]), pp=int(row["pp"]), cp=int(row["cp"]),
        ep=int(row["ep"]), virtual_stages=int(row["virtual_stages"]),
        micro_batch_size=int(row["micro_batch_size"]), zero_stage=int(row["zero_stage"]),
        recompute=str(row["recompute"]), n_microbatches=int(row["n_microbatches"]),
        schedule=str(row["schedule"]), sequence_parallel=bool(row["sequence_parallel"]),
        pp_split=pp_split, fsdp_shard_size=f, etp=e)


# ----------------------------------------------------------------------------- scale-up domains
def alltoall_scaleout_share(group_size, domain_size):
    """Share of an all-to-all's bytes that must cross the scale-out network.

    With uniform routing each rank sends 1/g of its data to every rank of the group (itself
    included); when the g ranks are packed into scale-up domains (NVLink islands) of d GPUs, the
    share leaving a rank's domain is ``max(0, 1 − d/g)``. This is why MoE expert parallelism is
    kept inside an NVLink domain where it can be, and why DeepSeek-V3 limits each token to at most
    4 nodes (DeepSeek-V3 report §3.2.2, node-limited routing).

    Parameters
    ----------
    group_size, domain_size : int or array

    Returns
    -------
    float or ndarray in [0, 1).
    """
    gsz = as_array(group_size, "group_size", positive=True, integer=True)
    d = as_array(domain_size, "domain_size", positive=True, integer=True)
    return scalar_or_array(np.maximum(0.0, 1.0 - d / gsz))


# ----------------------------------------------------------------------------- simulation
def pipeline_schedule(pp: int, n_microbatches: int, schedule: str = "1f1b",
                      virtual_stages: int = 1, t_forward: float = 1.0,
                      t_backward: float = 2.0) -> pd.DataFrame:
    """Simulate a pipeline schedule op by op: when each stage runs each forward and backward.

    Each stage runs its ops in the schedule's order and starts an op as soon as the stage is free
    and its input has arrived (no communication time). Forward and backward of one micro-batch
    through one stage's whole layer set take ``t_forward`` and ``t_backward`` (a chunk of an
    interleaved stage takes 1/v of that).

    Orders: GPipe runs all forwards, then all backwards. 1F1B (PipeDream-Flush, Narayanan et al.
    2021 §2.2.1) runs ``p − r − 1`` warm-up forwards on stage r, then alternates one forward and
    one backward, then drains. Interleaved 1F1B follows Megatron-LM's
    ``forward_backward_pipelining_with_interleaving``: warm-up ``2(p − r − 1) + (v − 1)·p``
    chunk-forwards, chunks visited in groups of p micro-batches.

    Parameters
    ----------
    pp, n_microbatches, virtual_stages : int
    schedule : {"gpipe", "1f1b", "interleaved"}
        (ZB-H1 splits the backward pass and is not simulated; use ``bubble_fraction``.)
    t_forward, t_backward : float
        Durations (any time unit).

    Returns
    -------
    DataFrame with one row per op: ``stage, chunk, microbatch, kind`` ("F"/"B"), ``start, end``.
    ``df.attrs`` holds ``makespan``, ``ideal`` (m·(t_F + t_B)), ``bubble_fraction`` (bubble ÷
    ideal) and ``peak_in_flight`` (per stage, in units of the stage's whole layer set).

    Raises
    ------
    ValueError
        Unknown or unsupported schedule, bad sizes, or a plan the interleaved order cannot run
        (``n_microbatches`` not divisible by ``pp``).
    """
    p, m, v = int(pp), int(n_microbatches), int(virtual_stages)
    for name, val in (("pp", p), ("n_microbatches", m), ("virtual_stages", v)):
        _whole(name, val)
    if schedule not in ("gpipe", "1f1b", "interleaved"):
        raise ValueError(f"schedule={schedule!r}: pipeline_schedule simulates 'gpipe', '1f1b' "
                         "and 'interleaved'")
    if (schedule == "interleaved") != (v > 1):
        raise PlanError("schedule", "interleaved needs virtual_stages >= 2; the others need 1")
    if schedule == "interleaved" and m % p:
        raise PlanError("interleaved_microbatches",
                        f"n_microbatches={m} must be divisible by pp={p}",
                        {"n_microbatches": m, "pp": p})
    tf, tb = float(t_forward) / v, float(t_backward) / v
    orders = [_stage_order(schedule, p, m, v, r) for r in range(p)]
    rows = _run_stages(orders, p, v, tf, tb)
    df = pd.DataFrame(rows, columns=["stage", "chunk", "microbatch", "kind", "start", "end"])
    makespan = float(df["end"].max())
    ideal = m * (float(t_forward) + float(t_backward))
    peak = []
    for r in range(p):
        d = df[df.stage == r].sort_values("start")
        live = np.cumsum(np.where(d.kind == "F", 1, -1))
        peak.append(float(live.max()) / v)
    df.attrs.update(makespan=makespan, ideal=ideal, bubble_fraction=(makespan - ideal) / ideal,
                    peak_in_flight=peak)
    return df


def _run_stages(orders: list, p: int, v: int, tf: float, tb: float) -> list:
    """Run each stage's op list (``_stage_order``) in order: an op starts when its stage is free
    and the op it depends on (``_dependency``) has ended, and lasts ``tf`` (forward) or ``tb``
    (backward). Returns ``(stage, chunk, microbatch, kind, start, end)`` rows."""
    done = {}
    pos = [0] * p
    free = [0.0] * p
    rows = []
    remaining = sum(len(o) for o in orders)
    while remaining:
        progressed = False
        for r in range(p):
            while pos[r] < len(orders[r]):
                kind, c, i = orders[r][pos[r]]
                dep = _dependency(kind, c, r, i, p, v)
                if dep is not None and dep not in done:
                    break
                start = max(free[r], done[dep] if dep is not None else 0.0)
                end = start + (tf if kind == "F" else tb)
                done[(kind, c, r, i)] = end
                free[r] = end
                rows.append((r, c, i, kind, start, end))
                pos[r] += 1
                remaining -= 1
                progressed = True
        if not progressed:  # pragma: no cover - the orders above are deadlock-free
            raise RuntimeError("pipeline schedule deadlocked")
    return rows

def _stage_order(schedule, p, m, v, r):
    if schedule == "gpipe":
        return [("F", 0, i) for i in range(m)] + [("B", 0, i) for i in range(m)]
    if schedule == "1f1b":
        w = min(p - r - 1, m)
        order = [("F", 0, i) for i in range(w)]
        for j in range(m - w):
            order += [("F", 0, w + j), ("B", 0, j)]
        return order + [("B", 0, i) for i in range(m - w, m)]
    total = m * v

    def chunk_mb(k, forward):
        within = k % (p * v)
        c = within // p
        return (c if forward else v - 1 - c), (k // (p * v)) * p + within % p

    w = min(2 * (p - r - 1) + (v - 1) * p, total)
    order = [("F", *chunk_mb(k, True)) for k in range(w)]
    for j in range(total - w):
        order += [("F", *chunk_mb(w + j, True)), ("B", *chunk_mb(j, False))]
    return order + [("B", *chunk_mb(k, False)) for k in range(total - w, total)]


def _dependency(kind, c, r, i, p, v):
    if kind == "F":
        if r > 0:
            return ("F", c, r - 1, i)
        return ("F", c - 1, p - 1, i) if c > 0 else None
    if r < p - 1:
        return ("B", c, r + 1, i)
    return ("B", c + 1, 0, i) if c < v - 1 else ("F", c, r, i)
