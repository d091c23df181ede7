"""Software-stack profiles: which training features a dated framework release has, and how well.

A prediction of MFU depends on the software as much as on the hardware: a 2021 Megatron-LM run
had no FlashAttention, no sequence parallelism and blocking pipeline sends; a 2024 stack has all
three. ``data/stacks.csv`` holds named, dated profiles (``load_stack``), each with its sources:
the FlashAttention version, sequence parallelism, selective recomputation, the pipeline
schedules and ZeRO stages it offers, its default TP / PP / DP communication overlap, FSDP
prefetch depth, hybrid sharding (HSDP) and FP8. Boolean and list fields are the stack's
documented features; the one quantitative field, the attention kernel's achieved fraction of
peak, comes from the FlashAttention papers by version and hardware generation
(``data/flash_attention.csv``). No field is fitted to a validation row, but some were chosen
after the validation rows' errors were seen, each said in its row's notes:
``deepspeed-zero3-2021``'s ``fsdp_nic_aggregation`` false and ``fsdp_collectives_per_layer`` 1
(chosen on the calibration rows, Narayanan et al. 2021 Table 2's 175B ZeRO-3 runs), and
``llm-foundry-2023``'s FlashAttention version 1 (set after the held-out llm-foundry rows were
seen optimistic) with ``data/flash_attention.csv``'s H100 stand-in for FlashAttention-1, 0.190
(added after the held-out H100 rows were seen).

A scenario names its stack with the ``stack`` key (default ``DEFAULT_STACK``); the
``comm_*_overlap`` keys default to ``auto`` (the stack's) and override it when set; plan search
(``parallel.plan_from_parameters``) only considers the schedules, ZeRO stages, recomputation
modes and sequence parallelism the stack has (``plan_options``), and uneven pipeline splits
only on a stack that has them (``Stack.uneven_pp``).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .catalog import DATA_DIR, load_efficiency
from .shapes import SCHEDULES
from .units import as_count, as_flag

#: The stack scenarios use unless they name one: Megatron-Core as of 2024, the framework of the
#: H100-era published runs (Megatron-LM README, NeMo). Its options equal the step-time model's
#: historical defaults (FlashAttention-2, backward TP overlap, PP and DP overlap on).
DEFAULT_STACK = "megatron-core-2024"
#: Hardware generations, by catalogue accelerator (FlashAttention fractions and error-band
#: regimes are per generation).
GENERATIONS = {"A100-40GB": "A100 (Ampere)", "A100-80GB": "A100 (Ampere)",
               "H100-SXM": "H100 (Hopper)", "H800": "H100 (Hopper)", "H200": "H100 (Hopper)",
               "H100-96GB-500W": "H100 (Hopper)"}
FLASH_VERSIONS = ("none", "1", "2", "3")
TP_OVERLAP_MODES = ("none", "backward", "all")
#: Expert-parallel all-to-all overlap: ``"none"`` (exposed), ``"dualpipe"`` (DeepSeek-V3's
#: DualPipe, arXiv:2412.19437 §3.2.1: each chunk's all-to-all runs behind another micro-batch's
#: compute; exposed only where it is longer) or ``"merged_1f1b"`` (Megatron-Core's batch-level
#: overlap, ``--overlap-moe-expert-parallel-comm``: "Overlaps All-to-All with computation by
#: merging FWD-BWD passes of adjacent microbatches", NVIDIA/Megatron-LM
#: megatron/core/transformer/moe/README.md; the passes left unpaired, the warm-up forwards and
#: cool-down backwards, keep their all-to-all exposed: ``step.ep_exposure``).
EP_OVERLAP_MODES = ("none", "dualpipe", "merged_1f1b")
#: How often HSDP all-reduces gradient shards across replicas (``Stack.hsdp_all_reduce``).
HSDP_ALL_REDUCE_MODES = ("per_step", "per_microbatch")
#: The MoE dispatch of a stack (``comm.MOE_DISPATCH``: ``per_expert`` k copies, ``per_gpu``,
#: ``per_node`` DeepSeek-V3 / DeepEP).
MOE_DISPATCH_MODES = ("per_expert", "per_gpu", "per_node")
#: The encoding of the MoE dispatch (``comm.MOE_DISPATCH_BYTES``): ``"bf16"`` or ``"fp8"``
#: (DeepSeek-V3 / DeepEP: FP8 dispatch with 1×128-tile scales, BF16 combine).
MOE_DISPATCH_DTYPES = ("bf16", "fp8")
#: FSDP's ``reshard_after_forward`` policy: ``"true"`` (free the gathered weights after the
#: forward, all-gather again for the backward: ZeRO-3), ``"false"`` (keep them: no backward
#: gather), ``"not_pp"`` (torchtitan's default, torchtitan/distributed/fsdp.py
#: ``get_fsdp_reshard_after_forward_policy``: reshard without a pipeline, keep with one).
RESHARD_POLICIES = ("true", "false", "not_pp")
#: When PyTorch FSDP issues the next unit's all-gather in the backward pass
#: (``Stack.fsdp_backward_prefetch``, ``comm.fsdp_exposure``): ``"pre"`` (FSDP1's
#: ``BackwardPrefetch.BACKWARD_PRE``, before the current unit's gradient computation, which hides
#: it; FSDP2's implicit backward prefetch) or ``"post"`` (``BACKWARD_POST``, after it: the
#: gather is exposed). pytorch/pytorch@0aafd810d15f ``torch/distributed/fsdp/api.py``
#: ``BackwardPrefetch``.
BACKWARD_PREFETCH_MODES = ("pre", "post")
#: How a stack runs the routed experts' GEMMs (``Stack.moe_expert_gemm``): ``"per_expert_launch"``
#: (Transformer Engine's ``GroupedLinear``, Megatron-Core's ``TEGroupedMLP``: the host splits,
#: quantizes and launches per local expert, so the MoE layer's host cost grows with the local
#: experts, ``training.moe_layer``) or ``"grouped_kernel"`` (one grouped GEMM kernel per
#: projection: ``grouped_gemm.ops.gmm``, ``torch._grouped_mm``, DeepGEMM).
MOE_EXPERT_GEMMS = ("per_expert_launch", "grouped_kernel")
#: CUDA graphs a stack's runs capture (``Stack.cuda_graphs``): ``"none"`` (eager launches) or
#: ``"full_iteration"`` (the whole forward-backward replayed from one graph: no per-kernel host
#: launch, no host-device sync; Megatron-Core ``--cuda-graph-impl full_iteration``).
CUDA_GRAPHS = ("none", "full_iteration")
#: When a stack overlaps the pipeline's P2P sends and receives with compute (``Stack.pp_overlap``):
#: always (True), never (False), or ``"interleaved"``: only under the interleaved schedule
#: (v > 1). Megatron-Core refuses ``overlap_p2p_comm`` without it: NVIDIA/Megatron-LM@00611e6e
#: ``megatron/core/pipeline_parallel/schedules.py``,
#: ``forward_backward_pipelining_without_interleaving`` raises ``ValueError("Non-interleaved
#: pipeline parallelism does not support overlapping p2p communication")``, and
#: ``megatron/training/arguments.py`` turns the flag off ("Overlap P2P communication is disabled
#: if not using the interleaved schedule").
PP_OVERLAP_MODES = (True, False, "interleaved")


def generation(accelerator: str) -> str:
    """The hardware generation of a catalogue accelerator (its own name when not listed).

    Raises
    ------
    ValueError
        If ``accelerator`` is not a name (a string).
    """
    if not isinstance(accelerator, str):
        raise ValueError(f"accelerator={accelerator!r} must be a catalogue accelerator name")
    return GENERATIONS.get(accelerator, accelerator)


@dataclass(frozen=True)
class Stack:
    """One software-stack profile (a row of ``data/stacks.csv``).

    ``flash_attention``: ``"none"`` or the FlashAttention version; ``schedules`` and
    ``zero_stages``: what plan search may use; ``tp_overlap``, ``pp_overlap``, ``dp_overlap``:
    the communication overlap the stack runs by default (``step`` rules; ``pp_overlap`` True,
    False or ``"interleaved"``, on only with v > 1: ``PP_OVERLAP_MODES``, ``pp_overlap_on``);
    ``zero_max_with_pp``: the highest ZeRO stage the stack runs with pipeline parallelism
    (pp > 1; empty in the CSV = 3, no limit; DeepSpeed's ``PipelineEngine`` refuses ZeRO-2 and
    ZeRO-3, the row's ``zero_max_with_pp_source``); ``fsdp_prefetch_layers``:
    all-gathers issued ahead under FSDP (None when the stack prefetches by another measure);
    ``moe_dispatch`` (``MOE_DISPATCH_MODES``), ``moe_dispatch_dtype`` (``MOE_DISPATCH_DTYPES``:
    the dispatch's encoding; the combine is BF16), ``moe_node_limit`` (nodes a token may reach,
    None for no limit) and ``fsdp_reshard_after_forward`` (``RESHARD_POLICIES``);
    ``hsdp``: the stack offers hybrid sharding (ZeRO-3 over a shard group smaller than the
    data-parallel group, ``ParallelPlan.fsdp_shard_size``), so plan search may try shard sizes;
    ``hsdp_all_reduce``: how often HSDP all-reduces the gradient shard across replicas under
    gradient accumulation, ``"per_step"`` (once, on the last micro-batch: FSDP2's opt-in
    ``set_requires_all_reduce(is_last)``, PyTorch PR #126166) or ``"per_microbatch"`` (FSDP2's
    default, after every micro-batch's reduce-scatter); empty in the CSV = ``"per_step"`` (for
    nemo-automodel-2025, which has HSDP, that is unchecked); ``moe_expert_gemm``
    (``MOE_EXPERT_GEMMS``): per-expert launches or one grouped kernel (empty in the CSV =
    ``"per_expert_launch"``); ``cuda_graphs`` (``CUDA_GRAPHS``; empty = ``"none"``);
    ``uneven_pp``: the stack places a layer count that pp·virtual_stages does not divide on the
    pipeline (Megatron-Core's ``--decoder-first-pipeline-num-layers`` /
    ``--decoder-last-pipeline-num-layers``, NVIDIA/Megatron-LM@fa8bb5921b86 "Uneven Pipeline
    Parallelism", 2024-09-05, first released in core_v0.9.0; empty = false), so plan search may
    choose ``pp_split="uneven"``;
    ``tp_kv_replication``: a tensor-parallel size that is a multiple of the KV heads runs, each
    KV head replicated on tp ÷ n_kv_heads ranks (empty = true, today's rule where no source was
    checked); false where the stack's code requires tp to divide them, as Megatron-Core did
    before core_v0.16.0 (``parallel.check_tp_kv_heads``; the row's
    ``tp_kv_replication_source``), so plan search keeps to such tp; ``model_parallel``: the stack
    has tensor, pipeline and context parallelism (false: data parallelism and ZeRO/FSDP only,
    ``model_parallel_source``), so plan search keeps tp, pp and cp at 1 where it is false;
    ``measured_on``: the accelerator vendors (``data/accelerators.csv``'s ``vendor``) on which
    the runs and benchmarks its ``source`` cites were measured, the hardware family its
    overlaps, kernels and memory practice describe (every profile so far: NVIDIA, CUDA
    frameworks whose cited runs are on NVIDIA GPUs, from the ZeRO paper's V100s and Megatron-LM's
    A100s to DeepSeek-V3's H800s and Megatron-Core's Blackwell recipes; ``foreign_hardware``
    says when a scenario leaves that family);
    ``recompute_modules``: modules the stack's runs recompute to save memory on top of the
    plan's recomputation mode (``STACK_RECOMPUTE_MODULES``, Megatron-Core's
    ``recompute_modules`` names; empty = none), counted by the memory model only
    (``training.options.stack_memory_practice``): DeepSeek's HAI-LLM recomputes every RMSNorm and
    the MLA up-projections (arXiv:2412.19437 §3.2.3) and the SwiGLU output (§3.3.3);
    ``recompute_regathers``: whether a full recomputation all-gathers a ZeRO-3 unit's weights
    again for the recomputed forward (``training.step.fsdp_backward_gathers``): true where the
    gathers hang on every sub-module's forward hooks and a reentrant recomputation re-runs them
    (DeepSpeed ZeRO-3); false for PyTorch's FSDP, whose pre-backward hook unshards a unit once
    and whose recomputed forward runs on those unsharded weights (FSDP2:
    pytorch/pytorch@1fd469d0c96e ``torch/distributed/fsdp/_fully_shard/_fsdp_state.py``
    ``_pre_forward``, "When composing with module-hook-based activation checkpointing, the
    pre-backward hook is responsible for the unshard"; FSDP1 with the checkpoint wrapper inside
    the FSDP unit, as Composer applies it); empty = true;
    ``source`` and ``notes`` say where each field comes from.
    """

    name: str
    date: str
    flash_attention: str
    sequence_parallel: bool
    selective_recompute: bool
    schedules: tuple
    zero_stages: tuple
    tp_overlap: str
    pp_overlap: bool | str
    dp_overlap: bool
    fsdp_prefetch_layers: int | None
    fp8: bool
    source: str
    notes: str = ""
    fsdp_collectives_per_layer: int = 1
    fsdp_nic_aggregation: bool = True
    ep_overlap: str = "none"
    moe_routing: str = "dropless"
    moe_dispatch: str = "per_expert"
    moe_node_limit: int | None = None
    fsdp_reshard_after_forward: str = "true"
    hsdp: bool = False
    moe_dispatch_dtype: str = "bf16"
    hsdp_all_reduce: str = "per_step"
    moe_expert_gemm: str = "per_expert_launch"
    cuda_graphs: str = "none"
    selective_policy: str = "attention_core"
    zero3_gather_unit: str = "layer"
    fp8_saved_inputs: bool = False
    uneven_pp: bool = False
    measured_on: tuple = ()
    recompute_modules: tuple = ()
    recompute_regathers: bool = True
    fsdp_backward_prefetch: str | None = None
    tp_kv_replication: bool = True
    model_parallel: bool = True
    zero_max_with_pp: int = 3

    @property
    def pytorch_fsdp(self) -> bool:
        """Whether the stack's data-parallel sharding is PyTorch FSDP, whose ZeRO-2 is FSDP's
        own machinery: ``ShardingStrategy.SHARD_GRAD_OP`` (FSDP1) or ``fully_shard(...,
        reshard_after_forward=False)`` (FSDP2), the weights all-gathered before the forward and
        kept through the backward, the gradients reduce-scattered, against ``FULL_SHARD`` /
        ``reshard_after_forward=True`` for ZeRO-3 (pytorch/pytorch@0aafd810d15f
        ``torch/distributed/fsdp/api.py`` ``ShardingStrategy``). Read from
        ``fsdp_backward_prefetch``, which data/stacks.csv states for the PyTorch FSDP stacks
        only (tests/test_stacks.py holds the two together)."""
        return self.fsdp_backward_prefetch is not None

    @property
    def recompute_modes(self) -> tuple:
        """Recomputation modes plan search may use."""
        return ("none", "selective", "full") if self.selective_recompute else ("none", "full")

    def _pp_overlap_words(self) -> str:
        if self.pp_overlap == "interleaved":
            return "on with the interleaved schedule"
        return "on" if self.pp_overlap else "off"

    def describe(self) -> str:
        fa = "no FlashAttention" if self.flash_attention == "none" else \
            f"FlashAttention-{self.flash_attention}"
        return (f"{self.name} ({self.date}): {fa}, sequence parallelism "
                f"{'yes' if self.sequence_parallel else 'no'}, schedules "
                f"{'/'.join(self.schedules)}, ZeRO {'/'.join(map(str, self.zero_stages))}, "
                f"TP overlap {self.tp_overlap}, PP overlap {self._pp_overlap_words()}, "
                f"DP overlap {'on' if self.dp_overlap else 'off'}")


def _positive_int(name, field, v):
    try:
        out = int(v)
    except (TypeError, ValueError):
        out = 0
    if out < 1:
        raise ValueError(f"data/stacks.csv: {name}: {field}={v!r} must be a whole number >= 1")
    return out


def _choice(name, field, v, allowed):
    if v not in allowed:
        raise ValueError(f"data/stacks.csv: {name}: {field}={v!r} must be one of {allowed}")
    return v


def _bool(name, field, v):
    if v.lower() not in ("true", "false"):
        raise ValueError(f"data/stacks.csv: {name}: {field}={v!r} must be true or false")
    return v.lower() == "true"


@lru_cache(maxsize=1)
def _stacks() -> dict:
    out = {}
    with open(DATA_DIR / "stacks.csv", newline="") as f:
        for r in csv.DictReader(f):
            n = r["name"]
            if r["flash_attention"] not in FLASH_VERSIONS:
                raise ValueError(f"data/stacks.csv: {n}: flash_attention="
                                 f"{r['flash_attention']!r} must be one of {FLASH_VERSIONS}")
            scheds = tuple(r["schedules"].split("|"))
            if not set(scheds) <= set(SCHEDULES):
                raise ValueError(f"data/stacks.csv: {n}: schedules={r['schedules']!r} must be "
                                 f"among {SCHEDULES}")
            if r["tp_overlap"] not in TP_OVERLAP_MODES:
                raise ValueError(f"data/stacks.csv: {n}: tp_overlap={r['tp_overlap']!r} must be "
                                 f"one of {TP_OVERLAP_MODES}")
            out[n] = Stack(
                name=n, date=r["date"], flash_attention=r["flash_attention"],
                sequence_parallel=_bool(n, "sequence_parallel", r["sequence_parallel"]),
                selective_recompute=_bool(n, "selective_recompute", r["selective_recompute"]),
                schedules=scheds, zero_stages=tuple(int(z) for z in r["zero_stages"].split("|")),
                tp_overlap=r["tp_overlap"], pp_overlap=_pp_overlap(n, r["pp_overlap"]),
                dp_overlap=_bool(n, "dp_overlap", r["dp_overlap"]),
                fsdp_prefetch_layers=int(r["fsdp_prefetch_layers"])
                if r["fsdp_prefetch_layers"] else None,
                fp8=_bool(n, "fp8", r["fp8"]), source=r["source"], notes=r["notes"],
                fsdp_collectives_per_layer=_positive_int(n, "fsdp_collectives_per_layer",
                                                         r.get("fsdp_collectives_per_layer")
                                                         or "1"),
                fsdp_nic_aggregation=_bool(n, "fsdp_nic_aggregation",
                                           r.get("fsdp_nic_aggregation") or "true"),
                ep_overlap=_choice(n, "ep_overlap", r.get("ep_overlap") or "none",
                                   EP_OVERLAP_MODES),
                moe_routing=_choice(n, "moe_routing", r.get("moe_routing") or "dropless",
                                    ("dropless", "capacity")),
                moe_dispatch=_choice(n, "moe_dispatch", r.get("moe_dispatch") or "per_expert",
                                     MOE_DISPATCH_MODES),
                moe_node_limit=_positive_int(n, "moe_node_limit", r["moe_node_limit"])
                if r.get("moe_node_limit") else None,
                fsdp_reshard_after_forward=_choice(
                    n, "fsdp_reshard_after_forward",
                    r.get("fsdp_reshard_after_forward") or "true", RESHARD_POLICIES),
                hsdp=_bool(n, "hsdp", r.get("hsdp") or "false"),
                moe_dispatch_dtype=_choice(n, "moe_dispatch_dtype",
                                           r.get("moe_dispatch_dtype") or "bf16",
                                           MOE_DISPATCH_DTYPES),
                hsdp_all_reduce=_choice(n, "hsdp_all_reduce",
                                        r.get("hsdp_all_reduce") or "per_step",
                                        HSDP_ALL_REDUCE_MODES),
                moe_expert_gemm=_choice(n, "moe_expert_gemm",
                                        r.get("moe_expert_gemm") or "per_expert_launch",
                                        MOE_EXPERT_GEMMS),
                cuda_graphs=_choice(n, "cuda_graphs", r.get("cuda_graphs") or "none",
                                    CUDA_GRAPHS),
                selective_policy=_choice(n, "selective_policy",
                                         r.get("selective_policy") or "attention_core",
                                         ("attention_core", "every_other_mm")),
                zero3_gather_unit=_choice(n, "zero3_gather_unit",
                                          r.get("zero3_gather_unit") or "layer",
                                          ("layer", "module")),
                fp8_saved_inputs=_bool(n, "fp8_saved_inputs",
                                       r.get("fp8_saved_inputs") or "false"),
                uneven_pp=_bool(n, "uneven_pp", r.get("uneven_pp") or "false"),
                measured_on=_vendors(n, r.get("measured_on")),
                recompute_modules=_modules(n, r.get("recompute_modules")),
                recompute_regathers=_bool(n, "recompute_regathers",
                                          r.get("recompute_regathers") or "true"),
                fsdp_backward_prefetch=_choice(n, "fsdp_backward_prefetch",
                                               r["fsdp_backward_prefetch"],
                                               BACKWARD_PREFETCH_MODES)
                if r.get("fsdp_backward_prefetch") else None,
                tp_kv_replication=_bool(n, "tp_kv_replication",
                                        r.get("tp_kv_replication") or "true"),
                model_parallel=_bool(n, "model_parallel", r.get("model_parallel") or "true"),
                zero_max_with_pp=int(_choice(n, "zero_max_with_pp",
                                             r.get("zero_max_with_pp") or "3", tuple("0123")))
            )
    return out


def _pp_overlap(name, v):
    """A ``pp_overlap`` cell: True, False or ``"interleaved"`` (``PP_OVERLAP_MODES``)."""
    if v == "interleaved":
        return v
    if v.lower() not in ("true", "false"):
        raise ValueError(f"data/stacks.csv: {name}: pp_overlap={v!r} must be true, false or "
                         "interleaved")
    return v.lower() == "true"


def pp_overlap_on(stack, virtual_stages: int = 1) -> bool:
    """Whether ``stack`` (a ``Stack`` or its name) overlaps the pipeline's sends and receives
    with compute on a plan of ``virtual_stages`` model chunks per pipeline rank: its
    ``pp_overlap``, where ``"interleaved"`` is on only with the interleaved schedule
    (``virtual_stages`` > 1; Megatron-Core's ``--overlap-p2p-communication``, which
    ``forward_backward_pipelining_without_interleaving`` refuses, ``PP_OVERLAP_MODES``).

    Raises
    ------
    ValueError
        An unknown stack name.
    """
    ppo = load_stack(stack).pp_overlap
    return int(virtual_stages) > 1 if ppo == "interleaved" else bool(ppo)


#: Modules a stack's runs recompute for memory beyond the plan's recomputation mode
#: (``Stack.recompute_modules``), Megatron-Core's names: the list the memory model prices
#: (``training.memory.RECOMPUTE_MODULES`` is this tuple, its meaning and source there).
STACK_RECOMPUTE_MODULES = ("layernorm", "mla_up_proj", "moe_act")


def _modules(name, v) -> tuple:
    mods = tuple(v.split("|")) if v else ()
    bad = [m for m in mods if m not in STACK_RECOMPUTE_MODULES]
    if bad:
        raise ValueError(f"data/stacks.csv: {name}: recompute_modules={v!r}: {bad} not among "
                         f"{STACK_RECOMPUTE_MODULES} ('|'-separated)")
    return mods


def _vendors(name, v) -> tuple:
    if not v or not all(v.split("|")):
        raise ValueError(f"data/stacks.csv: {name}: measured_on={v!r} must name the vendors "
                         "its sources measured on, separated by '|' (e.g. NVIDIA)")
    return tuple(v.split("|"))


#: Catalogue vendors that are no hardware family: the teaching entry's round numbers
#: (data/accelerators.csv, "not a real device") are priced on any stack without a word.
NO_FAMILY_VENDORS = ("teaching",)


def foreign_hardware(stack, accelerator) -> str | None:
    """The vendor of ``accelerator`` (an ``Accelerator``) when ``stack``'s profile was not
    measured on it (``Stack.measured_on``): the step-time model then prices the plan with
    another family's software (its overlaps, attention kernels, memory practice), e.g. a TPU
    on the Megatron-Core profile. None when the vendor is among ``measured_on``, is unknown
    (empty) or is no hardware family (``NO_FAMILY_VENDORS``).

    Raises
    ------
    ValueError
        An unknown stack name.
    """
    st = load_stack(stack)
    vendor = str(getattr(accelerator, "vendor", "") or "")
    if not vendor or vendor in NO_FAMILY_VENDORS or vendor in st.measured_on:
        return None
    return vendor


class StackFeatureWarning(UserWarning):
    """A plan priced on a software stack whose profile lacks one of the plan's features (a ZeRO
    stage, a pipeline schedule, FP8): ``step.step_time`` prices it anyway and says so.
    ``feature``: the sentence of ``missing_features`` that names the feature (the message
    without what follows it), for a caller that words it its own way."""

    def __init__(self, message: str, feature: str | None = None):
        super().__init__(message)
        self.feature = message if feature is None else feature


def missing_features(stack, zero_stage: int, schedule: str, pp: int, dtype: str = "bf16",
                     tp: int = 1, n_kv_heads: int | None = None) -> list:
    """The features a plan uses that ``stack`` (a ``Stack`` or its name) does not have, one
    sentence each naming the feature, the stack and what it has: the ZeRO stage
    (``Stack.zero_stages``; ZeRO-3 is FSDP / Megatron-FSDP), a ZeRO stage above
    ``Stack.zero_max_with_pp`` with ``pp > 1``, the pipeline schedule (with
    ``pp > 1``, ``Stack.schedules``), FP8 GEMMs (``Stack.fp8``) and, given the model's
    ``n_kv_heads`` g, a ``tp`` that does not divide g on a stack that cannot replicate KV heads
    (``Stack.tp_kv_replication``; ``parallel.check_tp_kv_heads`` has the rule's source). Empty
    when it has them all.

    Raises
    ------
    ValueError
        An unknown stack name.
    """
    st = load_stack(stack)
    out = []
    if int(zero_stage) not in st.zero_stages:
        have = stacks_having(lambda s: int(zero_stage) in s.zero_stages)
        out.append(f"zero_stage={int(zero_stage)}: the stack {st.name!r} has no ZeRO-"
                   f"{int(zero_stage)} path (its ZeRO stages: "
                   f"{', '.join(map(str, st.zero_stages))}); stacks with one: {', '.join(have)}")
    if int(pp) > 1 and int(zero_stage) > st.zero_max_with_pp:
        out.append(f"zero_stage={int(zero_stage)} with pp={int(pp)}: the stack {st.name!r} runs "
                   f"pipeline parallelism with ZeRO stages up to {st.zero_max_with_pp} only "
                   "(rule zero_max_with_pp)")
    if int(pp) > 1 and schedule not in st.schedules:
        out.append(f"schedule={schedule!r}: the stack {st.name!r} runs only "
                   f"{', '.join(st.schedules)}")
    if dtype == "fp8" and not st.fp8:
        out.append(f"dtype='fp8': the stack {st.name!r} has no FP8 GEMMs")
    if n_kv_heads and not st.tp_kv_replication and int(n_kv_heads) % int(tp):
        have = stacks_having(lambda s: s.tp_kv_replication)
        out.append(f"tp={int(tp)}: the stack {st.name!r} splits attention by KV heads and needs "
                   f"tp to divide the model's {int(n_kv_heads)} (rule tp_kv_heads); stacks that "
                   f"replicate KV heads: {', '.join(have)}")
    return out


def stacks_having(test) -> list:
    """Names of the profiles (``data/stacks.csv``, in file order) for which ``test(Stack)`` is
    true: the stacks a refusal or a warning names as having what a plan asks for."""
    return [n for n, s in _stacks().items() if test(s)]


def list_stacks() -> list:
    """Names of the profiles in ``data/stacks.csv``, in file order."""
    return list(_stacks())


def load_stack(name) -> Stack:
    """The named software-stack profile (``data/stacks.csv``); a ``Stack`` is returned as is.

    Raises
    ------
    ValueError
        If ``name`` is not a profile (the message lists the profiles).
    """
    if isinstance(name, Stack):
        return name
    stacks = _stacks()
    if not isinstance(name, str) or name not in stacks:
        raise ValueError(f"stack={name!r} is not a profile in data/stacks.csv; "
                         + _profiles_naming(name, stacks) + f"choose one of {list(stacks)}")
    return stacks[name]


def _profiles_naming(word, stacks: dict) -> str:
    """"the profiles whose name or source names 'torchtitan': pytorch-fsdp2-2024; " for a
    framework a user knows by another name (a small lab's `stack: torchtitan` was given the ten
    names alone), or "" when none does."""
    if not isinstance(word, str) or len(word.strip()) < 3:
        return ""
    w = word.strip().casefold()
    hits = [n for n, st in stacks.items() if w in n.casefold() or w in st.source.casefold()]
    return (f"the profiles whose name or source names {word.strip()!r}: {', '.join(hits)}; "
            if hits else "")


@lru_cache(maxsize=1)
def _flash_table() -> dict:
    with open(DATA_DIR / "flash_attention.csv", newline="") as f:
        return {(r["version"], r["generation"]): (float(r["attention_fraction"]), r["source"])
                for r in csv.DictReader(f)}


def attention_fraction(stack, accelerator: str):
    """The attention kernel's achieved fraction of the 16-bit peak for ``stack``'s
    FlashAttention version on ``accelerator``'s generation, with its source
    (``data/flash_attention.csv``): ``(fraction, source)``; ``(None, reason)`` when the stack has
    no FlashAttention or the papers give no figure for that generation (the caller then uses the
    roofline GEMMs, or ``data/efficiency.csv``'s fraction)."""
    st = load_stack(stack)
    if st.flash_attention == "none":
        return None, f"{st.name} has no FlashAttention"
    gen = generation(accelerator)
    got = _flash_table().get((st.flash_attention, gen))
    if got is None:
        return None, (f"no published FlashAttention-{st.flash_attention} figure for {gen}: "
                      "data/efficiency.csv's attention_fraction is used")
    return got


def _is_auto(value) -> bool:
    """Whether an option is the string "auto" (an array or a dict is not, and is then checked)."""
    return isinstance(value, str) and value == "auto"


#: The settings ``step_options`` resolves against a stack, each ``"auto"`` (the stack's value)
#: unless given.
STACK_STEP_OPTIONS = ("tp_overlap", "pp_overlap", "dp_overlap", "flash_attention",
                      "fsdp_prefetch_layers", "fsdp_collectives_per_layer",
                      "fsdp_nic_aggregation", "ep_overlap", "moe_dispatch", "moe_node_limit",
                      "fsdp_reshard_after_forward", "moe_dispatch_dtype",
                      "fsdp_backward_prefetch")


def step_options(stack, accelerator: str, efficiency=None, **requested) -> dict:
    """The ``step.step_time`` options a stack implies on ``accelerator``: ``flash_attention``,
    ``tp_overlap``, ``pp_overlap``, ``dp_overlap`` (each ``"auto"`` argument takes the stack's
    value; any other value overrides it) and ``efficiency`` (``efficiency`` as given, or the
    catalogue row with the stack's FlashAttention fraction for the generation where the papers
    give one), and the MoE / FSDP physics: ``moe_dispatch``, ``moe_dispatch_dtype``
    (``MOE_DISPATCH_DTYPES``), ``moe_node_limit`` (None or an int) and ``fsdp_reshard_after_forward`` (``"true"``, ``"false"`` or ``"not_pp"``; a bool
    given is turned into ``"true"`` / ``"false"``), ``fsdp_backward_prefetch`` (``"pre"`` or
    ``"post"``: ``stack_backward_prefetch``). ``**requested``: the settings of
    ``STACK_STEP_OPTIONS``, each ``"auto"`` when not given; the steps are
    ``_stack_efficiency``, ``_stack_fsdp_pieces``, ``_stack_moe``, ``_stack_reshard`` and
    ``stack_backward_prefetch``.

    Raises
    ------
    ValueError
        An unknown stack or setting name, or an overlap value outside its choices.
    """
    bad = sorted(set(requested) - set(STACK_STEP_OPTIONS))
    if bad:
        raise ValueError(f"step_options: unknown setting(s) {bad}; choose from "
                         f"{STACK_STEP_OPTIONS}")
    q = {name: requested.get(name, "auto") for name in STACK_STEP_OPTIONS}
    st = load_stack(stack)
    for name, ok in (("tp_overlap", TP_OVERLAP_MODES + ("auto",)),
                     ("pp_overlap", PP_OVERLAP_MODES + ("auto",)),
                     ("dp_overlap", (True, False, "auto")),
                     ("flash_attention", (True, False, "auto"))):
        v = q[name]
        if not any(v is o or (isinstance(v, str) and v == o) for o in ok):
            raise ValueError(f"{name}={v!r} must be one of {ok}")
    eff = _stack_efficiency(st, accelerator, efficiency)
    flash = (st.flash_attention != "none") if q["flash_attention"] == "auto" \
        else q["flash_attention"]
    ep_overlap = q["ep_overlap"]
    if ep_overlap != "auto" and ep_overlap not in EP_OVERLAP_MODES:
        raise ValueError(f"ep_overlap={ep_overlap!r} must be one of {EP_OVERLAP_MODES + ('auto',)}")
    prefetch, pieces = _stack_fsdp_pieces(st, q)
    dispatch, ddt, limit = _stack_moe(st, q)
    reshard = _stack_reshard(st, q["fsdp_reshard_after_forward"])
    prefetch_order = stack_backward_prefetch(st, q["fsdp_backward_prefetch"])
    nic = q["fsdp_nic_aggregation"]
    tp_overlap, pp_overlap, dp_overlap = q["tp_overlap"], q["pp_overlap"], q["dp_overlap"]
    return {"flash_attention": bool(flash), "moe_dispatch": dispatch, "moe_dispatch_dtype": ddt,
            "moe_node_limit": None if limit is None else int(limit),
            "fsdp_reshard_after_forward": reshard, "fsdp_backward_prefetch": prefetch_order,
            "fsdp_prefetch_layers": int(prefetch), "fsdp_collectives_per_layer": int(pieces),
            "fsdp_nic_aggregation": st.fsdp_nic_aggregation if _is_auto(nic)
            else as_flag(nic, "fsdp_nic_aggregation"),
            "ep_overlap": st.ep_overlap if ep_overlap == "auto" else ep_overlap,
            "tp_overlap": st.tp_overlap if tp_overlap == "auto" else tp_overlap,
            "pp_overlap": st.pp_overlap if _is_auto(pp_overlap) else
            (pp_overlap if isinstance(pp_overlap, str) else bool(pp_overlap)),
            "dp_overlap": st.dp_overlap if dp_overlap == "auto" else bool(dp_overlap),
            "efficiency": eff}


def catalogue_efficiency(st: Stack, accelerator: str):
    """The ``Efficiency`` ``step_options`` gives ``st`` on ``accelerator`` when the caller
    gives none: the catalogue row with the stack's FlashAttention fraction
    (``_stack_efficiency``)."""
    return _stack_efficiency(st, accelerator, None)


def _stack_efficiency(st: Stack, accelerator: str, efficiency):
    """``step_options``' ``Efficiency``: the caller's as given, else the catalogue row of
    ``accelerator`` with the stack's FlashAttention fraction for the generation
    (``attention_fraction``) where the papers give one."""
    if efficiency is not None:
        return efficiency                  # an Efficiency given by the caller is used as is
    eff = load_efficiency(accelerator)
    frac, _ = attention_fraction(st, accelerator)
    if frac is not None:
        eff = eff.replace(attention_fraction=frac)
    return eff


def _stack_fsdp_pieces(st: Stack, q: dict) -> tuple:
    """``(fsdp_prefetch_layers, fsdp_collectives_per_layer)``: the requested values, or the
    stack's where "auto" (prefetch 1 when the stack does not say); whole numbers >= 0 and >= 1."""
    prefetch = (st.fsdp_prefetch_layers if st.fsdp_prefetch_layers is not None else 1) \
        if _is_auto(q["fsdp_prefetch_layers"]) else q["fsdp_prefetch_layers"]
    pieces = st.fsdp_collectives_per_layer if _is_auto(q["fsdp_collectives_per_layer"]) \
        else q["fsdp_collectives_per_layer"]
    for name, v, lo in (("fsdp_prefetch_layers", prefetch, 0),
                        ("fsdp_collectives_per_layer", pieces, 1)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
            raise ValueError(f"{name}={v!r} must be a whole number >= {lo} or 'auto'")
        as_count(v, name, lo, floats=False)  # and at most 2**53
    return prefetch, pieces


def _stack_moe(st: Stack, q: dict) -> tuple:
    """``(moe_dispatch, moe_dispatch_dtype, moe_node_limit)``: the requested values, or the
    stack's where "auto"; each among its choices (``MOE_DISPATCH_MODES``,
    ``MOE_DISPATCH_DTYPES``; the node limit None or a whole number >= 1)."""
    moe_dispatch, moe_dispatch_dtype = q["moe_dispatch"], q["moe_dispatch_dtype"]
    moe_node_limit = q["moe_node_limit"]
    dispatch = st.moe_dispatch if moe_dispatch == "auto" else moe_dispatch
    if dispatch not in MOE_DISPATCH_MODES:
        raise ValueError(f"moe_dispatch={moe_dispatch!r} must be one of "
                         f"{MOE_DISPATCH_MODES + ('auto',)}")
    ddt = st.moe_dispatch_dtype if (isinstance(moe_dispatch_dtype, str)
                                    and moe_dispatch_dtype == "auto") else moe_dispatch_dtype
    if not isinstance(ddt, str) or ddt not in MOE_DISPATCH_DTYPES:
        raise ValueError(f"moe_dispatch_dtype={moe_dispatch_dtype!r} must be one of "
                         f"{MOE_DISPATCH_DTYPES + ('auto',)}")
    limit = st.moe_node_limit if (isinstance(moe_node_limit, str) and moe_node_limit == "auto") \
        else moe_node_limit
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, (int, np.integer))
                              or limit < 1):
        raise ValueError(f"moe_node_limit={moe_node_limit!r} must be a whole number >= 1, None "
                         "(no limit) or 'auto'")
    if limit is not None:
        as_count(limit, "moe_node_limit", floats=False)  # and at most 2**53
    return dispatch, ddt, limit


def _stack_reshard(st: Stack, fsdp_reshard_after_forward) -> str:
    """``fsdp_reshard_after_forward`` as one of ``RESHARD_POLICIES``: a bool as "true" /
    "false", "auto" as the stack's."""
    reshard = fsdp_reshard_after_forward
    if isinstance(reshard, (bool, np.bool_)):
        reshard = "true" if reshard else "false"
    elif isinstance(reshard, str) and reshard == "auto":
        reshard = st.fsdp_reshard_after_forward
    if not isinstance(reshard, str) or reshard not in RESHARD_POLICIES:
        raise ValueError(f"fsdp_reshard_after_forward={fsdp_reshard_after_forward!r} must be "
                         f"True, False, one of {RESHARD_POLICIES} or 'auto'")
    return reshard


def plan_options(stack) -> dict:
    """The ``parallel.enumerate_plans`` option lists a stack allows: ``schedule``,
    ``zero_stage``, ``recompute``, ``sequence_parallel`` (``(True,)`` with sequence
    parallelism, else ``(False,)``), ``fsdp_shard_size`` (``"auto"``, the pruned hybrid-
    sharding sizes, when the stack has HSDP and ZeRO-3; else ``"full"``, the whole group) and
    ``tp_kv_replication`` (``Stack.tp_kv_replication``: whether tp may be a multiple of the KV
    heads) and ``zero_max_with_pp`` (``Stack.zero_max_with_pp``: the highest ZeRO stage with
    pp > 1); on a stack without model parallelism (``Stack.model_parallel`` false: data
    parallelism and ZeRO/FSDP only), ``tp``, ``pp`` and ``cp`` of 1."""
    st = load_stack(stack)
    out = {"schedule": st.schedules, "zero_stage": st.zero_stages,
           "recompute": st.recompute_modes,
           "sequence_parallel": (True,) if st.sequence_parallel else (False,),
           "fsdp_shard_size": "auto" if st.hsdp and 3 in st.zero_stages else "full",
           "tp_kv_replication": st.tp_kv_replication,
           "zero_max_with_pp": st.zero_max_with_pp}
    return out if st.model_parallel else {**out, "tp": (1,), "pp": (1,), "cp": (1,)}


def stack_backward_prefetch(st: Stack, fsdp_backward_prefetch="auto") -> str:
    """The backward all-gather order a run on ``st`` is priced with (``comm.fsdp_exposure``):
    ``"auto"`` takes the stack's ``fsdp_backward_prefetch``, ``"pre"`` where the stack has none
    (not PyTorch FSDP: its ZeRO-3 path, where it has one, is priced with the gather prefetched);
    ``"pre"`` or ``"post"`` given override it. ``"post"`` is an FSDP1 issue order
    (``BackwardPrefetch.BACKWARD_POST``) and is refused on a stack where the setting does not
    apply.

    Raises
    ------
    ValueError
        A value outside ``BACKWARD_PREFETCH_MODES`` + ``"auto"``; ``"post"`` on a stack whose
        ``fsdp_backward_prefetch`` is None.
    """
    v = fsdp_backward_prefetch
    if isinstance(v, str) and v == "auto":
        return st.fsdp_backward_prefetch or "pre"
    if not isinstance(v, str) or v not in BACKWARD_PREFETCH_MODES:
        raise ValueError(f"fsdp_backward_prefetch={v!r} must be one of "
                         f"{BACKWARD_PREFETCH_MODES + ('auto',)}")
    if v == "post" and st.fsdp_backward_prefetch is None:
        raise ValueError(f"fsdp_backward_prefetch={v!r} does not apply to stack {st.name!r}: "
                         "'post' is PyTorch FSDP1's BackwardPrefetch.BACKWARD_POST, and "
                         f"{st.name!r} is not a PyTorch FSDP stack (data/stacks.csv "
                         "fsdp_backward_prefetch empty; its ZeRO-3 gathers are priced "
                         "prefetched, 'pre')")
    return v
