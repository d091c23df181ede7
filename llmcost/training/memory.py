"""Bytes per GPU: weights, gradients, optimizer states, activations, and what ZeRO and
recomputation do to them.

Everything here is per GPU, in bytes (decimal GB = 1e9 bytes unless a name says ``gib``), and
broadcasts over numpy arrays, so a million parallel plans are one call (``parallel.enumerate_plans``
uses the array engine ``plan_memory_arrays`` directly).

Model states (Rajbhandari et al. 2020, "ZeRO", §3.1 and §5)
------------------------------------------------------------
A *precision recipe* (``RECIPES``) says how many bytes each parameter costs in each of five
buffers: the working **weights** the forward pass reads, the **gradients** the backward pass
writes, a **main-gradient** copy some frameworks keep on the optimizer side, the fp32 **master
weights** and the **optimizer states** (Adam's m and v). ZeRO shards them across the ranks that
hold the same parameters (the *ZeRO group*):

* ZeRO-1 shards master weights, main gradients and optimizer states,
* ZeRO-2 also the gradients,
* ZeRO-3 (= PyTorch FSDP's FULL_SHARD) also the weights, and then needs a working buffer holding
  one gathered unit (DeepSpeed's ``estimate_zero3_model_states_mem_needs``: 4 bytes × the largest
  layer's parameters, i.e. its 16-bit weights and gradients).
* Hybrid sharding (HSDP: PyTorch FSDP's ``HYBRID_SHARD``, Zhao et al. 2023, arXiv:2304.11277;
  FSDP2 ``fully_shard`` on a 2-D mesh; MiCS's partition groups, Zhang et al. 2022,
  arXiv:2205.00119) is ZeRO-3 over a *shard group* of f ranks (``ParallelPlan.fsdp_shard_size``)
  replicated dp·cp/f times: per GPU ``(w + g + o)·Ψ/f`` instead of ``(w + g + o)·Ψ/(dp·cp)``
  (w, g, o the recipe's weight, gradient and optimizer-side bytes per parameter), routed experts
  over f/ep ranks; the gathered-unit buffer is the same.

**Which group.** Dense parameters are replicated over the data-parallel *and* context-parallel
ranks (CP ranks hold the same weights and all-reduce their gradients, as in Megatron-LM's
``get_data_parallel_group(with_context_parallel=True)``), so their ZeRO group has ``dp·cp`` ranks.
Routed-expert parameters are divided by ``ep`` ranks carved out of that group, so their ZeRO group
has ``dp·cp/ep`` ranks (Megatron-LM's expert-data-parallel group with expert TP = TP). Under MoE
parallel folding (``ParallelPlan.etp`` = 1 below tp; Liu et al. 2025, arXiv:2504.14960) the
experts are laid out as ETP × EP × EDP over all tp·dp·cp ranks of a stage: each rank holds
``E/ep`` whole experts, and their ZeRO group has ``tp·dp·cp/ep`` ranks.

**What each rank holds** (exact per part, from ``ModelSpec.param_breakdown``): TP divides the
attention and FFN matrices (Shoeybi et al. 2019), and the vocabulary of the embedding and output
layer (vocab-parallel embedding); norms, the router, the output-projection and FFN down-projection
biases, learned position tables and MLA's down-projections are replicated on every TP rank.
With GQA, TP divides the KV heads when ``tp`` divides ``n_kv_heads``; when ``tp`` is a multiple
of ``n_kv_heads`` each rank holds one KV head, replicated ``tp/n_kv_heads`` times (vLLM's
``QKVParallelLinear``; Megatron-LM itself requires ``tp | n_kv_heads``). Routed experts are divided
by ``etp·ep`` (``etp`` = tp unless the plan folds, above). PP gives each stage its layers; the first stage also holds the token embedding
(and learned positions), the last the output layer and final norm, and the multi-token-prediction
modules (``ModelSpec.mtp_depth``; DeepSeek-V3 §2.2: each a transformer block, a 2d → d
projection and three norms, with their states and activations: ``mtp_stage_params``). With
tied embeddings and ``pp > 1`` the last stage holds its own copy of the shared matrix
(Megatron-LM keeps both copies and all-reduces their gradients).

Activations (Korthikanti et al. 2022, "Reducing Activation Recomputation", §4, Table 2)
--------------------------------------------------------------------------------------
Per transformer layer and micro-batch of ``b`` sequences of ``s`` tokens, in bytes, with 16-bit
activations and 1-byte dropout masks, MHA, a 4h GeLU MLP and no FlashAttention::

    no parallelism                 s·b·h·(34 + 5·a·s/h)
    tensor parallel (t)            s·b·h·(10 + 24/t + 5·a·s/(h·t))
    TP + sequence parallel         s·b·h/t·(34 + 5·a·s/h)
    TP + selective recompute       s·b·h·(10 + 24/t)
    TP + SP + selective recompute  34·s·b·h/t
    full recompute                 2·s·b·h  (the layer input only)

``korthikanti_activation_bytes_per_layer`` is that table verbatim. ``activation_bytes_per_layer``
rebuilds the same count tensor by tensor so that it generalises; with MHA, a 4h GeLU MLP,
dropout and no FlashAttention it reduces exactly to the table (a test checks this):

* attention: LayerNorm output 2sbh, Q and K 2·s·b·a·d_qk each ... generalised to GQA: K and V are
  ``2·s·b·g·d_head`` each (Ainslie et al. 2023), fewer than Q's; output-projection input
  ``2·s·b·a·d_v``; dropout mask sbh;
* attention core: softmax output 2·a·s²·b, its dropout mask a·s²·b and output 2·a·s²·b (the
  ``5·a·s²·b`` term; 2·a·s²·b without dropout). **FlashAttention** (Dao et al. 2022) never
  materialises the s×s matrix: the term disappears and only the softmax log-sum-exp,
  4 bytes per query per head, is kept (FlashAttention-2, Dao 2023, Alg. 1);
* MLP: input 2sbh, and for a plain MLP of width f the activation input and output, 2·s·b·f each
  (4·s·b·f; 16sbh at f = 4h); for a **gated FFN** (SwiGLU) the fc1 output [gate, up] (4·s·b·f) and
  the fc2 input (2·s·b·f), 6·s·b·f, as Megatron-LM's fused ``bias_swiglu`` keeps and as the
  Ultra-Scale Playbook's memory widget counts; dropout mask sbh;
* two LayerNorm inputs, 4sbh;
* **MoE layers** (an estimate; balanced routing, capacity factor 1): the router input 2sbh, fp32
  router probabilities 4·s·b·E, the k dispatched copies of each token 2·s·b·h·k, and the FFN
  activations of the k routed and the shared experts of width ``d_ff_expert``.

Which tensors TP divides follows Korthikanti §4.2: everything inside the column/row-parallel
region (Q, K, V, scores, projection input, MLP hidden) is divided by t; the LayerNorm inputs,
their outputs and the dropout masks (10sbh in the table) are not, unless sequence parallelism
divides them along the sequence. Context parallelism (Liu et al. 2023; Llama 3 §3.3.2) gives each
rank ``s/cp`` tokens of every sequence; its queries still see all ``s`` keys.

**Recomputation.** *Selective* (Korthikanti §5) recomputes the attention core, dropping the s²
term (and FlashAttention's log-sum-exp). *Full* keeps only each layer's input, 2sbh per layer
(2sbh/t with sequence parallelism, where the layer input is already split along the sequence; this
is why Megatron-LM refuses ``distribute_saved_activations`` together with SP). During the backward
pass one layer is re-run and held whole; that **working set** is its own part of the breakdown
(the recomputed layer's activations minus its checkpoint for full recomputation, the recomputed
attention core for selective), so that "full never needs more than selective" holds exactly.
Activation gradients and other transient buffers are not counted; they are covered by the
``reserve`` allowance of ``fits``.

**Pipeline.** A stage holds activations for every micro-batch it has run forward but not yet
backward (Narayanan et al. 2021 §2.2; Korthikanti §4.3): GPipe all ``m``; 1F1B ``min(m, p − r)`` on
stage r, so the first stage holds ``min(m, p)``; ZB-H1 the same as 1F1B (Qi et al. 2024 design it
not to exceed 1F1B's peak); interleaved 1F1B with ``v`` chunks ``min(m·v, 2(p−r−1) + (v−1)p + 1)``
chunk-micro-batches (Megatron-LM's warm-up count + 1), i.e. ``L·(1 + (p−1)/(p·v))`` layers' worth on
the first stage once ``m ≥ p + (p−1)/v``, Korthikanti's interleaving penalty. The first stage adds
the token ids (int64, whole on every TP rank: the embedding's input is replicated across the TP
group, where Megatron-LM's formula divides them by t) and the embedding dropout mask per
micro-batch in flight, and the last stage the final-LayerNorm and output-layer inputs (4sbh) and
**fp32 logits for the loss** (4·s·b·V/t), as Megatron-LM's ``theoretical_memory_usage.py``
counts them (GPipe keeps them for all m).

**As practised** (``MemoryPractice``). Stacks and runs store less than the count above says,
and a published plan that ran is the proof: Megatron-Core's ``recompute_modules`` (the norms,
MLA's up-projections, the experts' activation function), Transformer Engine's FP8 casts of the
linear layers' saved inputs (1 byte instead of 2), CPU activation offload
(``cpu_offloading_num_layers``), torchtitan's op-level selective checkpointing (every other
matrix multiply's output kept, the rest recomputed) and DeepSpeed ZeRO-3's per-module gathers.
The default practice (``DEFAULT_PRACTICE``) is the count as written; a stack's
(``options.stack_memory_practice``) is what the plan search uses with a named stack, and a
validation row's (``step_validation.row_practice``) adds its run's configs.

The reported per-GPU figure is the largest over the first, second and last stage (and, for MoE
models, the first stage holding the most MoE layers); for dense models this is the true maximum.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from ..core.catalog import load_model
from ..core.model import RECOMPUTE_MODES, ModelSpec
from ..core.stacks import DEFAULT_STACK, STACK_RECOMPUTE_MODULES, generation
from ..core.shapes import (  # noqa: F401  (SCHEDULES re-exported)
    SCHEDULES,
    check_plan_arrays,
    expert_tp,
    plan_axes,
)
from ..core.shapes import ModelShapes as _Consts
from ..core.shapes import edge_params as _edge_params
from ..core.shapes import kv_fraction as _kv_fraction
from ..core.shapes import layer_params as _layer_params
from ..core.shapes import model_shapes as _consts
from ..core.shapes import schedule_code as _schedule_code
from ..core.shapes import shard_group_arrays as _shard_group_arrays
from ..core.units import GB, GIB, as_array, as_scalar, as_flag, scalar_or_array
from .elementwise import FP8_WEIGHT_CACHE_STACKS

#: Layer placement across pipeline stages: ``"even"`` splits the layers evenly;
#: ``"embedding_and_loss"`` counts the embedding and the output layer + loss as one layer each
#: (Llama 3 §3.3.2: "we reduce one Transformer layer each from the first and the last stages";
#: Megatron-LM ``--account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split``,
#: NVIDIA/Megatron-LM@ef490839e89c, core_v0.11.0, with or without virtual stages).
#: ``"uneven"`` places any layer count on any number of chunks, as evenly as whole
#: layers allow (DeepSeek-V3's 61 layers on 16 stages; Megatron-LM's
#: ``--decoder-first-pipeline-num-layers`` / ``--decoder-last-pipeline-num-layers``): with
#: ``C = pp·v`` chunks and ``L = q·C + r``, chunks 1..r hold ``q + 1`` layers and the others
#: ``q``, so the first chunk (the embedding) and, while ``r < C − 1``, the last (the LM head)
#: hold the fewer. The busiest stage then paces the pipeline (``step``'s stage imbalance).
#: With multi-token prediction (``ModelSpec.mtp_depth`` D), its modules and the loss count as
#: ``2·D + 1`` slots at the end (Megatron-Bridge's DeepSeek-V3 layouts: PP 16 holds
#: [E + 4, 4 × 14, 1 + MTP + loss]), taken off the last chunks.
PP_SPLITS = ("even", "embedding_and_loss", "uneven")

#: Default fraction of HBM held back for what the model does not count: CUDA context and cuBLAS
#: workspaces, NCCL buffers, activation gradients and other transients, allocator fragmentation.
#: 0.10 is an unsourced planning allowance, not a measurement: no public source sizes it. The
#: nearest tools leave it to the user or apply it narrowly: the EleutherAI cookbook's
#: calc_transformer_mem.py takes it as ``--misc-mem-gib`` ("Miscellaneous memory overhead per GPU
#: by DL framework(s), communication libraries, etc"), default 0; Megatron-LM's
#: theoretical_memory_usage.py multiplies activations by 1.05, and only in
#: ``compute_activation_memory_without_sp``. Pass your own ``reserve`` if you have profiled your
#: stack.
DEFAULT_RESERVE = 0.10

#: The reserve policy, stated: ``DEFAULT_RESERVE`` is a *planning* margin, held back when a plan
#: is chosen before it has run (the plan search, ``parallel.enumerate_plans``; the scenario
#: checks). A *published* plan ran: the run is the evidence that what the model does not count
#: (the list above) fitted in the HBM its counted bytes left free, so a published plan is judged
#: against the whole HBM (reserve 0) and a "does not fit" there is the memory model
#: overcounting, not a missing margin. No public source sizes that margin for training: PyTorch
#: documents fragmentation and ``expandable_segments`` (CUDA semantics, "Optimizing memory
#: usage with PYTORCH_CUDA_ALLOC_CONF") without a figure, and the published plans themselves
#: leave as little as 2.4-4% of HBM to it under this model (the smallest,
#: mb2511-gb200-llama-3.1-70b-fp8cs, 2.4%; Llama 3 405B's stage-1 plan on 8,192 GPUs, 4.1%: TP 8 ·
#: PP 16 · DP 64 from arXiv:2407.21783 Table 4, m = 32 micro-batches, v = 8 assumed, 76.7 GiB of
#: 80 being this model's count of it; notebook 03 shows the 16,384-GPU row's plan, DP 128 and
#: m = 16).
PUBLISHED_PLAN_RESERVE = 0.0

#: The parts of a per-GPU memory breakdown, in display order.
PARTS = ("weights", "gradients", "master_weights", "optimizer_states", "zero3_buffer",
         "activations", "activation_working_set", "embedding_and_logits")

PART_NOTES = {
    "weights": "working weights the forward pass reads (16-bit; + FP8 cache in fp8_mixed)",
    "gradients": "gradient buffer the backward pass writes (+ main-grad copy where kept)",
    "master_weights": "fp32 master copy the optimizer updates",
    "optimizer_states": "optimizer moments (Adam m and v; one momentum for SGD/Muon)",
    "zero3_buffer": "ZeRO-3: 2 × weight bytes × largest layer (DeepSpeed), or the kept stage",
    "activations": "activations of every micro-batch in flight on this stage",
    "activation_working_set": "the one layer re-run (or attention core) during backward",
    "embedding_and_logits": "token ids and embedding mask (first stage), fp32 logits (last)",
}

_MODEL_STATE_PARTS = ("weights", "gradients", "master_weights", "optimizer_states")


#: Modules Megatron-Core's ``--recompute-modules`` may name that the memory model prices (on top
#: of the plan's ``recompute`` mode "none" or "selective"): ``"layernorm"`` (the two norms'
#: outputs are discarded and recomputed), ``"mla_up_proj"`` (MLA's up-projected queries, keys
#: and values are discarded after the attention core and recomputed from the latents) and
#: ``"moe_act"`` (the routed experts' activation-function output, the fc2 input, is recomputed).
#: Source: Megatron-Core ``TransformerConfig.recompute_modules`` (megatron/core/transformer/
#: transformer_config.py: "layernorm", "mla_up_proj", "moe_act", ... each "recompute the
#: module's output"; ``CheckpointWithoutOutput.discard_output_and_register_recompute``).
RECOMPUTE_MODULES = STACK_RECOMPUTE_MODULES   # one list: a stack may name them too

#: What a stack's selective recomputation keeps: ``"attention_core"`` (Megatron-LM's
#: selective recomputation, Korthikanti et al. 2022 §5: everything but the attention core) or
#: ``"every_other_mm"`` (torchtitan's op-level selective activation checkpointing: "Saves output
#: of all compute ops, except every second mm", the saved ops being ``aten.mm`` and the SDPA
#: kernels; torchtitan/parallelisms/parallelize_llama.py ``_apply_ac_to_transformer_block``,
#: ``_save_list``).
SELECTIVE_POLICIES = ("attention_core", "every_other_mm")

#: The unit ZeRO-3 gathers at a time: ``"layer"`` (PyTorch FSDP2 ``fully_shard`` per
#: transformer block, torchtitan; Megatron-FSDP) or ``"module"`` (DeepSpeed ZeRO-3 gathers each
#: ``nn.Module``'s own parameters in its pre-forward hook, and
#: ``estimate_zero3_model_states_mem_needs`` sizes its buffer by the largest module:
#: deepspeed/runtime/zero/stage3.py ``model_to_params``: ``sum(p.numel() for p in
#: m.parameters(recurse=False))``, the largest over ``model.modules()``).
ZERO3_GATHER_UNITS = ("layer", "module")


@dataclass(frozen=True)
class MemoryPractice:
    """How a stack and a run store activations and gather ZeRO-3 weights, beyond the plan's
    recomputation mode: what published runs do that Korthikanti et al.'s count does not.

    Parameters
    ----------
    recompute_modules : tuple of str
        Megatron-Core's ``recompute_modules`` (``RECOMPUTE_MODULES``) the run recomputes.
    fp8_saved_inputs : bool
        Linear layers keep their input for the weight-gradient GEMM as the FP8 cast (1 byte per
        element) instead of the 16-bit tensor: Transformer Engine's ``Linear`` /
        ``LayerNormLinear`` / ``GroupedLinear`` save the quantized input when FP8 is on
        (transformer_engine/pytorch/module/linear.py, ``saved_inputmat = inputmat`` after
        ``input_quantizer``); DeepSeek-V3: "it is a natural choice to cache activations in FP8
        format for the backward pass of the Linear operator" (arXiv:2412.19437 §3.3.3). See ``_layer_activations``.
    offload_layers : int
        Layers whose stored activations go to host memory after their forward and return for
        their backward (Megatron-Core ``cpu_offloading_num_layers`` through Transformer Engine's
        ``get_cpu_offload_context``; Megatron-Core refuses it with pipeline parallelism). The
        GPU keeps the other layers' activations and one offloaded layer in transit.
    selective_policy : str
        ``SELECTIVE_POLICIES``: what ``recompute="selective"`` keeps on this stack.
    zero3_gather_unit : str
        ``ZERO3_GATHER_UNITS``: the unit ZeRO-3's gather buffer holds.

    The default (nothing recomputed beyond the plan's mode, 16-bit saved inputs, no offload,
    Megatron's selective policy, one layer gathered) is the memory model of Korthikanti et al.
    2022 and ZeRO that ``parallel.enumerate_plans`` prices.

    Raises
    ------
    ValueError naming the field, for a module, policy or unit not in its list, or a negative
    ``offload_layers``.
    """

    recompute_modules: tuple = ()
    fp8_saved_inputs: bool = False
    offload_layers: int = 0
    selective_policy: str = "attention_core"
    zero3_gather_unit: str = "layer"

    def __post_init__(self):
        mods = tuple(self.recompute_modules)
        bad = [m for m in mods if m not in RECOMPUTE_MODULES]
        if bad:
            raise ValueError(f"recompute_modules={mods!r}: {bad} not among {RECOMPUTE_MODULES}")
        object.__setattr__(self, "recompute_modules", mods)
        if isinstance(self.offload_layers, bool) or int(self.offload_layers) != \
                self.offload_layers or self.offload_layers < 0:
            raise ValueError(f"offload_layers={self.offload_layers!r} must be a whole number "
                             ">= 0")
        if self.selective_policy not in SELECTIVE_POLICIES:
            raise ValueError(f"selective_policy={self.selective_policy!r} must be one of "
                             f"{SELECTIVE_POLICIES}")
        if self.zero3_gather_unit not in ZERO3_GATHER_UNITS:
            raise ValueError(f"zero3_gather_unit={self.zero3_gather_unit!r} must be one of "
                             f"{ZERO3_GATHER_UNITS}")
        if not isinstance(self.fp8_saved_inputs, (bool, np.bool_)):
            raise ValueError(f"fp8_saved_inputs={self.fp8_saved_inputs!r} must be True or "
                             "False")


    def describe(self) -> str:
        """The practice in words: what differs from ``DEFAULT_PRACTICE`` ("as written" if
        nothing does)."""
        out = []
        if self.recompute_modules:
            out.append("recomputes " + ", ".join(self.recompute_modules))
        if self.fp8_saved_inputs:
            out.append("FP8 saved inputs")
        if self.offload_layers:
            out.append(f"{self.offload_layers} layers' activations offloaded")
        if self.selective_policy != "attention_core":
            out.append(f"selective policy {self.selective_policy}")
        if self.zero3_gather_unit != "layer":
            out.append(f"ZeRO-3 gathers per {self.zero3_gather_unit}")
        return "; ".join(out) if out else "as written"


#: Korthikanti et al. 2022 and ZeRO as written: the memory model's default practice.
DEFAULT_PRACTICE = MemoryPractice()


# ----------------------------------------------------------------------------- precision recipes
@dataclass(frozen=True)
class PrecisionRecipe:
    """Bytes per parameter in each model-state buffer for one training-precision recipe.

    Parameters
    ----------
    name : str
    weights_bytes : float
        Working weights read by forward and backward (2 for bf16; 3 with an FP8 cache; 4 when the
        fp32 weights are used directly).
    grads_bytes : float
        The gradient buffer the backward pass accumulates into (2 for bf16, 4 for fp32).
    main_grads_bytes : float
        A second, fp32 gradient copy held on the optimizer side (sharded with the optimizer from
        ZeRO-1 on, as DeepSpeed and Megatron-LM's fp16 path do); 0 when the gradient buffer itself
        is fp32.
    master_bytes : float
        fp32 master weights (0 when the working weights are fp32 or there is no master copy).
    optimizer_bytes : float
        Optimizer states (Adam: m and v).
    description, source : str
    sharded_master : bool
        Under ZeRO-3 the sharded fp32 parameter *is* the master copy and the 16-bit working
        weights exist only gathered, one layer at a time (PyTorch FSDP2's
        ``MixedPrecisionPolicy``: "FSDP ... keeps the high-precision sharded parameters in
        memory anyway ... does not require any extra memory to keep a high-precision copy of
        the parameters for the optimizer step"; "the optimizer step uses the sharded parameter
        in the original dtype", torch/distributed/fsdp/_fully_shard/_fsdp_api.py): no
        persistent working-weight bytes at ZeRO-3 (the ``zero3_buffer`` holds the gathered
        layer), and no master-to-working cast pass in the optimizer step (the all-gather
        casts).
    """

    name: str
    weights_bytes: float
    grads_bytes: float
    main_grads_bytes: float
    master_bytes: float
    optimizer_bytes: float
    description: str = ""
    source: str = ""
    sharded_master: bool = False

    @property
    def bytes_per_param(self) -> float:
        """Total bytes per parameter without sharding."""
        return (self.weights_bytes + self.grads_bytes + self.main_grads_bytes + self.master_bytes
                + self.optimizer_bytes)

    @property
    def optimizer_side_bytes(self) -> float:
        """Bytes per parameter that ZeRO-1 shards: master weights, main grads, optimizer states."""
        return self.main_grads_bytes + self.master_bytes + self.optimizer_bytes


RECIPES: dict[str, PrecisionRecipe] = {r.name: r for r in [
    PrecisionRecipe(
        "bf16_adam", 2, 2, 0, 4, 8,
        "bf16 mixed precision with Adam: bf16 weights and gradients, fp32 master weights, m and v "
        "(K = 12): 16 B/param",
        "Rajbhandari et al. 2020 (ZeRO) §3.1; Micikevicius et al. 2018"),
    PrecisionRecipe(
        "bf16_adam_fp32_grads", 2, 4, 0, 4, 8,
        "bf16 weights, gradients accumulated and reduced in fp32, fp32 master, m and v: 18 B/param "
        "(ZeRO-1: 6 + 12/d)",
        "Megatron-LM distributed-optimizer guide (docs/source/api-guide/dist_optimizer.md @ "
        "46736de11f, 2024-08: 'float16 param, fp32 grads | 18 | 6 + 12/d'; from 6701e08337 "
        "'bf16 parameters, fp32 gradients | 18 | 6 + 12/d'); "
        "Llama 3 §3.3.2 (FP32 gradient accumulation and reduce-scatter)"),
    PrecisionRecipe(
        "bf16_adam_fp32_grads_copy", 2, 2, 4, 4, 8,
        "16-bit weights and gradients plus an fp32 gradient copy on the optimizer side, fp32 "
        "master, m and v: 20 B/param (ZeRO-1: 4 + 16/d; ZeRO-2, ZeRO §5 partitioning the "
        "16-bit gradients too: 2 + 18/d)",
        "Megatron-LM distributed-optimizer guide (@ 46736de11f: 'float16 param, float16 grads "
        "| 20 | 4 + 16/d'); DeepSpeed stage_1_and_2.py estimate_zero2_model_states_mem_needs "
        "without offload ('gpu_mem = 4 * total_params + int(16 * total_params / "
        "total_gpus)': 4 + 16/d, the 16-bit weights and gradients left whole); Ultra-Scale "
        "Playbook (+4Ψ with fp32 accumulation)"),
    PrecisionRecipe(
        "bf16_adam_bf16_moments", 2, 4, 0, 4, 4,
        "DeepSeek-V3 style: bf16 weights, fp32 gradients and master weights, AdamW m and v in "
        "bf16: 14 B/param",
        "DeepSeek-AI 2024, DeepSeek-V3 Technical Report §3.3.3 (BF16 optimizer moments; FP32 "
        "master weights and gradients)"),
    PrecisionRecipe(
        "fp8_mixed", 3, 4, 0, 4, 8,
        "FP8 GEMMs (Transformer Engine): bf16 weights plus the FP8 copy cached across "
        "micro-batches (1 B), fp32 main gradients, fp32 master, m and v: 19 B/param. A transposed "
        "FP8 copy that Hopper GEMMs also keep is not counted (fp8_mixed_transpose counts it); "
        "activations are counted in bf16",
        "NVIDIA Transformer Engine docs, 'Performance Optimizations: FP8 weight caching' and "
        "'gradient accumulation fusion' (fp32 main_grad); Micikevicius et al. 2022 (FP8 formats)"),
    PrecisionRecipe(
        "fp8_mixed_transpose", 4, 4, 0, 4, 8,
        "fp8_mixed on Hopper: bf16 weights plus the FP8 copy and its transpose cached across "
        "micro-batches (2 B; Hopper's FP8 GEMMs take their operands in one layout, so the "
        "backward needs the transposed copy), fp32 main gradients, fp32 master, m and v: "
        "20 B/param",
        "NVIDIA Transformer Engine docs, 'Performance Optimizations: FP8 weight caching' and "
        "'Handling transposes' (Hopper keeps the transposed FP8 copy; Blackwell's MXFP8 GEMMs "
        "read either layout)"),
    PrecisionRecipe(
        "bf16_momentum", 2, 2, 0, 4, 4,
        "SGD with momentum or Muon: one fp32 momentum buffer, fp32 master: 8-byte optimizer, "
        "12 B/param",
        "EleutherAI, Transformer Math 101 (SGD-momentum: 8 bytes of optimizer state); Jordan et "
        "al. 2024 (Muon keeps one momentum buffer)"),
    PrecisionRecipe(
        "bf16_adam_8bit", 2, 2, 0, 4, 2,
        "8-bit Adam: bf16 weights and gradients, fp32 master, 8-bit m and v: 10 B/param",
        "Dettmers et al. 2022, 8-bit Optimizers via Block-wise Quantization (ICLR)"),
    PrecisionRecipe(
        "pure_bf16", 2, 2, 0, 0, 4,
        "pure bf16: weights, gradients, m and v all bf16, no master copy (needs stochastic "
        "rounding or Kahan summation): 8 B/param",
        "Zamirai et al. 2020 (bf16 training with stochastic rounding)"),
    PrecisionRecipe(
        "fsdp2_bf16_fp32", 2, 4, 0, 4, 8,
        "PyTorch FSDP2 mixed precision (MixedPrecisionPolicy(param_dtype=bf16, "
        "reduce_dtype=fp32), torchtitan's default): fp32 sharded parameters (the master), fp32 "
        "sharded gradients, fp32 m and v: 16 B/param under ZeRO-3, the bf16 weights only "
        "gathered per layer (zero3_buffer); 18 B/param at ZeRO-0-2, where a bf16 working copy "
        "persists",
        "PyTorch torch/distributed/fsdp/_fully_shard/_fsdp_api.py, MixedPrecisionPolicy "
        "docstring ('FSDP ... keeps the high-precision sharded parameters in memory anyway'; "
        "'The optimizer step uses the sharded parameter in the original dtype'); torchtitan "
        "torchtitan/config/job_config.py (mixed_precision_param = 'bfloat16', "
        "mixed_precision_reduce = 'float32')", sharded_master=True),
    PrecisionRecipe(
        "fp32_adam", 4, 4, 0, 0, 8,
        "fp32 weights and gradients (the weights are the master copy), m and v: 16 B/param "
        "(ZeRO-1: 8 + 8/d)",
        "Megatron-LM distributed-optimizer guide ('fp32 parameters, fp32 gradients: 16, 8 + 8/d')"),
]}


def get_recipe(recipe) -> PrecisionRecipe:
    """A ``PrecisionRecipe`` by name (or the recipe itself).

    Raises
    ------
    ValueError
        If the name is not in ``RECIPES``.
    """
    if isinstance(recipe, PrecisionRecipe):
        return recipe
    if not isinstance(recipe, str) or recipe not in RECIPES:
        raise ValueError(f"optimizer_recipe={recipe!r} must be one of {', '.join(RECIPES)}")
    return RECIPES[recipe]


#: The recipe a scenario's memory is counted with when it gives no ``optimizer_recipe``
#: (``scenario_recipe_name``): BF16 weights and gradients, FP32 master and Adam moments.
DEFAULT_RECIPE = "bf16_adam_fp32_grads"


def scenario_recipe_name(p: dict) -> str:
    """The precision recipe a scenario's memory, plan search and communication are counted with:
    its ``optimizer_recipe`` where it gives one; else, for ``dtype: fp8`` on a stack that caches
    the FP8 weights across a step's micro-batches (``elementwise.FP8_WEIGHT_CACHE_STACKS``:
    Megatron-Core with Transformer Engine's ``is_first_microbatch``, "during FP8 training, it
    allows caching of the FP8 versions of the weights", NVIDIA/TransformerEngine
    ``transformer_engine/pytorch/module/linear.py``), ``fp8_mixed``, which counts that 1-byte
    copy (a trial's FP8 scenario was given a plan the memory count said fit and its own warning
    said might not, the copy left out), on Hopper ``fp8_mixed_transpose``, which counts its
    transposed copy too (2 B: the plan searched then fits as Transformer Engine runs it, which a
    second trial found not so with 1 B); else ``DEFAULT_RECIPE``. Conservative for a run that
    keeps FP8 primary weights instead (Megatron-Core ``--fp8-param-gather``, off by default,
    but switched on by Megatron-Bridge's FP8 presets: ``bf16_with_fp8_current_scaling_mixed``
    and its siblings set ``fp8_param_gather = True``, src/megatron/bridge/training/
    mixed_precision.py @ 067f987df): no 16-bit working copy then, about 2 B per parameter
    fewer than ``fp8_mixed`` counts; such a run names its own recipe."""
    given = p.get("optimizer_recipe")
    if given:
        return given
    if p.get("dtype") == "fp8" and (p.get("stack") or DEFAULT_STACK) in FP8_WEIGHT_CACHE_STACKS:
        hopper = "(Hopper)" in generation(str(p.get("accelerator", "")))
        return "fp8_mixed_transpose" if hopper else "fp8_mixed"
    return DEFAULT_RECIPE


def list_recipes() -> pd.DataFrame:
    """The precision recipes as a table (bytes per parameter in each buffer, and the source)."""
    rows = []
    for r in RECIPES.values():
        rows.append({"recipe": r.name, "weights": r.weights_bytes, "gradients": r.grads_bytes,
                     "main_grads": r.main_grads_bytes, "master": r.master_bytes,
                     "optimizer": r.optimizer_bytes, "bytes_per_param": r.bytes_per_param,
                     "description": r.description, "source": r.source})
    return pd.DataFrame(rows)


def _zero_scales(zero_stage, group):
    """Divisors applied by ZeRO to (optimizer side, gradients, weights)."""
    z = np.asarray(zero_stage)
    g = np.asarray(group, dtype=float)
    s1 = np.where(z >= 1, g, 1.0)
    s2 = np.where(z >= 2, g, 1.0)
    s3 = np.where(z >= 3, g, 1.0)
    return s1, s2, s3


def zero_model_state_bytes(n_params, dp, zero_stage, recipe="bf16_adam"):
    """Per-GPU model-state bytes for ``n_params`` parameters replicated on ``dp`` ranks under ZeRO.

    The ZeRO paper's formulas (Rajbhandari et al. 2020 §5.1, Fig. 1): with Ψ parameters, K
    optimizer bytes and N_d ranks, DP ``(2+2+K)Ψ``, ZeRO-1 ``4Ψ + KΨ/N_d``, ZeRO-2
    ``2Ψ + (2+K)Ψ/N_d``, ZeRO-3 ``(4+K)Ψ/N_d``, generalised to any recipe. No activations, no
    ZeRO-3 working buffer.

    Parameters
    ----------
    n_params : float or array
        Parameters held by the group (Ψ; with TP/PP, the parameters of one model shard).
    dp : int or array
        Ranks that hold the same parameters (the ZeRO group, N_d).
    zero_stage : int or array in {0, 1, 2, 3}
    recipe : str or PrecisionRecipe

    Returns
    -------
    float or ndarray of bytes.

    Raises
    ------
    ValueError
        Bad counts, an unknown recipe, or a ZeRO stage outside 0–3.
    """
    n = as_array(n_params, "n_params", nonnegative=True)
    d = as_array(dp, "dp", positive=True, integer=True)
    z = as_array(zero_stage, "zero_stage", nonnegative=True, integer=True, upper=3)
    r = get_recipe(recipe)
    s1, s2, s3 = _zero_scales(z, d)
    per = (r.weights_bytes / s3 + r.grads_bytes / s2 + r.optimizer_side_bytes / s1)
    return scalar_or_array(n * per)


# ----------------------------------------------------------------------------- activations
def korthikanti_activation_bytes_per_layer(seq_len, micro_batch_size, d_model, n_heads, tp=1,
                                           sequence_parallel=False, recompute="none"):
    """Activation bytes per transformer layer, exactly as Korthikanti et al. 2022 Table 2.

    Assumes 16-bit activations, 1-byte dropout masks, multi-head attention, a 4h GeLU MLP and no
    FlashAttention (the paper's GPT setting). Use ``activation_bytes_per_layer`` for a real
    architecture (GQA, gated FFN, MoE, FlashAttention).

    Parameters
    ----------
    seq_len, micro_batch_size, d_model, n_heads : int or array
        s, b, h, a.
    tp : int or array
        Tensor-parallel size t.
    sequence_parallel : bool
        Megatron sequence parallelism (divides the non-TP part by t).
    recompute : {"none", "selective", "full"}

    Returns
    -------
    float or ndarray of bytes per layer per GPU.

    Source: Korthikanti et al. 2022, arXiv:2205.05198, Table 2 (full recomputation: 2sbh, the
    table's row, without any division by t).
    """
    s = as_array(seq_len, "seq_len", positive=True)
    b = as_array(micro_batch_size, "micro_batch_size", positive=True)
    h = as_array(d_model, "d_model", positive=True)
    a = as_array(n_heads, "n_heads", positive=True)
    t = as_array(tp, "tp", positive=True, integer=True)
    _check_recompute(recompute)
    sbh = s * b * h
    if recompute == "full":
        return scalar_or_array(2 * sbh * np.ones_like(t))
    score = 0.0 if recompute == "selective" else 5 * a * s / h
    if sequence_parallel:
        return scalar_or_array(sbh / t * (34 + score))
    return scalar_or_array(sbh * (10 + 24 / t + score / t))


def _check_recompute(recompute):
    if recompute not in RECOMPUTE_MODES:
        raise ValueError(f"recompute={recompute!r} must be one of {RECOMPUTE_MODES}")


def _layer_activations(c: _Consts, x, s, tp, sp, flash, dropout,
                       practice: MemoryPractice = DEFAULT_PRACTICE, etp=None):
    """Per-rank activation bytes of one layer per micro-batch: (dense stored by recompute mode,
    moe stored by mode, score term, lse term, checkpoint, the selective working set).

    ``x`` = tokens per micro-batch on this rank before TP (s/cp·b); ``s`` = keys per query.
    The routed token copies an MoE layer keeps (its experts' fc1 input, ``k·h`` per token): with
    sequence parallelism each rank dispatches its own ``x/tp`` tokens, and the expert-TP group
    (``etp`` ranks; None: tp) all-gathers what its ranks received, so a rank holds
    ``x·k·h·etp/tp`` of them (Megatron-Core ``MoEAlltoAllTokenDispatcher``: all-to-all over EP,
    then all-gather over the expert-TP group); without it, ``x·k·h``.
    Returns dicts keyed by recompute mode for dense and MoE layers, and the per-layer working set
    for each mode.

    ``practice`` (``MemoryPractice``) changes, per token (bytes; ``/t`` inside the TP region,
    ``/div`` outside it):

    * ``fp8_saved_inputs``: the norms' outputs (the QKV and fc1 inputs, ``2h`` each) and the
      fc2 inputs (``2f``; experts ``2·f_e`` per copy, and the dispatched token copies ``2h``
      each) are kept as FP8 casts (1 byte per element); the attention output stays 16-bit for
      the attention's own backward and the output projection keeps its FP8 cast beside it
      (``+ a·d_v``); the router's input (an MoE layer's second norm output) stays 16-bit;
    * ``recompute_modules``: ``"layernorm"`` drops the norm outputs (the FP8 casts the linears
      keep remain); ``"mla_up_proj"`` drops MLA's up-projected Q, K, V (``2·a·(2·d_qk + d_v)``),
      keeping the attention output; ``"moe_act"`` drops the routed experts' fc2 inputs (their FP8
      casts remain);
    * ``selective_policy="every_other_mm"`` (dense, non-MLA layers): selective recomputation
      keeps the layer input ``2h``, the SDPA output ``2·a·d_v`` and its log-sum-exp, and the
      outputs of the 1st, 3rd, ... matrix multiplies in forward order (wq, wk, wv, wo, w1,
      [w3], w2): wq ``2·a·d_qk``, wv ``2·g·d_h``, w1 ``2f`` and, for a gated FFN, w2 ``2h``.
    """
    h = c.h
    pr = practice
    fp8 = bool(pr.fp8_saved_inputs)
    mods = pr.recompute_modules
    div = np.where(sp, tp, 1)
    mask = x * h if dropout else 0.0
    # bytes per element kept of a norm output that feeds FP8 linears (QKV, dense fc1)
    ln_b = 0.0 if ("layernorm" in mods and not fp8) else (1.0 if fp8 else 2.0)
    # an MoE layer's second norm output also feeds the 16-bit router (and the shared experts)
    ln2_moe_b = (0.0 if "layernorm" in mods else 2.0) + (1.0 if fp8 and c.ns else 0.0)
    proj_fp8 = (c.a * c.dv / tp) if fp8 else 0.0
    # attention
    rep_attn = ln_b * x * h + mask + 2 * x * c.mla_latent
    if c.mla:
        qkv = 0.0 if "mla_up_proj" in mods else 2 * c.a * (2 * c.dqk + c.dv)
        split_attn = x * (qkv + 2 * c.a * c.dv) / tp + x * proj_fp8
    else:
        split_attn = (2 * x * c.a * c.dqk + 2 * x * c.a * c.dv) / tp \
            + 2 * x * c.g * (c.dh + c.dh) * _kv_fraction(c, tp) + x * proj_fp8
    score = (5 if dropout else 2) * c.a * x * s / tp
    lse = 4 * c.a * x / tp
    norms = 4 * x * h
    act_in = 4 if c.gated else 2            # fc1 output kept for the activation's backward
    fc2_b = 1.0 if fp8 else 2.0
    moe_fc2_b = (1.0 if fp8 else 0.0) if "moe_act" in mods else fc2_b
    rep_dense = rep_attn + norms + ln_b * x * h + mask
    split_dense = split_attn + (act_in + fc2_b) * x * c.f / tp
    tok_b = 1.0 if fp8 else 2.0             # each dispatched token copy, the experts' fc1 input
    rep_moe = rep_attn + norms + ln2_moe_b * x * h + mask + 4 * x * c.E
    copies = tok_b * x * h * c.k * np.where(sp, (tp if etp is None else etp) / tp, 1.0)
    split_moe = split_attn + copies + x * c.fe * ((act_in + moe_fc2_b) * c.k
                                                  + (act_in + fc2_b) * c.ns) / tp
    core = lse if flash else score          # what selective recomputation drops
    sel_dense = rep_dense / div + split_dense
    sel_moe = rep_moe / div + split_moe
    ckpt = 2 * x * h / div
    none_dense = sel_dense + core
    ws_dense = core
    if pr.selective_policy == "every_other_mm" and not c.mla:
        kvf = _kv_fraction(c, tp)
        sel_dense = ckpt + x * (2 * c.a * c.dqk / tp + 2 * c.g * c.dh * kvf + 2 * c.f / tp
                                + 2 * c.a * c.dv / tp) + lse \
            + (2 * x * h / div if c.gated else 0.0)
        ws_dense = np.maximum(none_dense - sel_dense, 0.0)
    return {
        "sel_dense": sel_dense, "sel_moe": sel_moe, "none_dense": none_dense,
        "none_moe": sel_moe + core, "core": core, "ckpt": ckpt, "ws_sel_dense": ws_dense,
    }


def _micro_batch_arrays(model: ModelSpec, seq_len, micro_batch_size, tp, cp):
    """The model's shapes and one micro-batch's sizes as checked arrays: (shapes, s, b, tp, cp),
    s the tokens per sequence (default: the model's ``seq_len``), b the sequences per
    micro-batch; a GPU holds s/cp·b of its tokens."""
    c = _consts(model)
    s = as_array(model.seq_len if seq_len is None else seq_len, "seq_len", positive=True)
    b = as_array(micro_batch_size, "micro_batch_size", positive=True)
    t = as_array(tp, "tp", positive=True, integer=True)
    cpa = as_array(cp, "cp", positive=True, integer=True)
    return c, s, b, t, cpa


def activation_bytes_per_layer(model: ModelSpec, seq_len=None, micro_batch_size=1, tp=1, cp=1,
                               sequence_parallel=False, recompute="none", flash_attention=True,
                               dropout=False, layer="dense"):
    """Activation bytes one transformer layer keeps per micro-batch on one GPU.

    The generalisation of Korthikanti et al. 2022 Table 2 described in the module docstring:
    GQA/MQA and MLA attention, gated or plain FFN of the model's width, MoE layers, FlashAttention,
    dropout on or off, tensor, sequence and context parallelism. With MHA, a 4h GeLU MLP,
    ``dropout=True`` and ``flash_attention=False`` it equals
    ``korthikanti_activation_bytes_per_layer``.

    Parameters
    ----------
    model : ModelSpec
    seq_len : int or array, optional
        Tokens per sequence (default: the model's ``seq_len``).
    micro_batch_size : int or array
        Sequences per micro-batch.
    tp, cp : int or array
        Tensor- and context-parallel sizes.
    sequence_parallel : bool
    recompute : {"none", "selective", "full"}
        Stored activations under that mode (the transient working set of the one layer being
        recomputed is not included; see ``memory_breakdown``).
    flash_attention : bool
        FlashAttention: no s×s score matrix, a log-sum-exp per query and head instead.
    dropout : bool
        Dropout masks (1 byte per element) after attention, MLP and in the attention core
        (Korthikanti: yes; most current pre-training: no).
    layer : {"dense", "moe"}
        Which kind of layer (``"moe"`` only for MoE models).

    Returns
    -------
    float or ndarray of bytes.

    Raises
    ------
    ValueError
        Bad sizes, an unknown recompute mode or layer kind.
    """
    _check_recompute(recompute)
    if layer not in ("dense", "moe") or (layer == "moe" and not model.is_moe):
        raise ValueError(f"layer={layer!r} must be 'dense' or, for an MoE model, 'moe'")
    c, s, b, t, cpa = _micro_batch_arrays(model, seq_len, micro_batch_size, tp, cp)
    act = _layer_activations(c, s / cpa * b, s, t, bool(sequence_parallel), flash_attention,
                             dropout)
    if recompute == "full":
        out = act["ckpt"]
    else:
        out = act[("sel_" if recompute == "selective" else "none_") + layer]
    return scalar_or_array(np.broadcast_to(out, np.broadcast(s, b, t, cpa).shape))


def model_activation_bytes(model: ModelSpec, seq_len=None, micro_batch_size=1, tp=1, cp=1,
                           sequence_parallel=False, recompute="none", flash_attention=True,
                           dropout=False):
    """Activation bytes of all the model's layers for one micro-batch on one GPU:
    ``activation_bytes_per_layer`` × the dense-FFN layers + its ``layer="moe"`` value × the MoE
    layers. Same parameters, return value and errors as ``activation_bytes_per_layer``."""
    kw = dict(seq_len=seq_len, micro_batch_size=micro_batch_size, tp=tp, cp=cp,
              sequence_parallel=sequence_parallel, recompute=recompute,
              flash_attention=flash_attention, dropout=dropout)
    total = np.asarray(activation_bytes_per_layer(model, **kw)) * model.n_dense_ffn_layers
    if model.is_moe:
        total = total + np.asarray(activation_bytes_per_layer(model, layer="moe", **kw)) \
            * model.n_moe_layers
    return scalar_or_array(total)


# ----------------------------------------------------------------------------- pipeline stages
def in_flight_microbatches(schedule, pp, n_microbatches, virtual_stages=1, stage=0):
    """Micro-batches whose activations a pipeline stage holds at its peak, in units of the stage's
    whole layer set (for interleaving: chunk-micro-batches ÷ v).

    GPipe: m. 1F1B and ZB-H1: min(m, p − r). Interleaved 1F1B:
    min(m·v, 2(p−r−1) + (v−1)·p + 1) / v (Megatron-LM's warm-up micro-batches + 1). No pipeline
    (p = 1): 1 (gradient accumulation runs micro-batches one after another).

    Parameters
    ----------
    schedule : str or array of schedule codes (positions in ``SCHEDULES``)
    pp, n_microbatches, virtual_stages, stage : int or array
        p, m, v and the stage index r (0 = first).

    Returns
    -------
    float or ndarray.

    Sources: Narayanan et al. 2021 §2.2 (1F1B, interleaved); Korthikanti et al. 2022 §4.3;
    Megatron-LM ``forward_backward_pipelining_with_interleaving`` warm-up count; Qi et al. 2024
    (ZB-H1's peak memory equals 1F1B's).
    """
    code = _schedule_code(schedule)
    p = np.asarray(pp, dtype=float)
    m = np.asarray(n_microbatches, dtype=float)
    v = np.asarray(virtual_stages, dtype=float)
    r = np.asarray(stage, dtype=float)
    one_f_one_b = np.minimum(m, p - r)
    inter = np.minimum(m * v, 2 * (p - r - 1) + (v - 1) * p + 1) / v
    out = np.where(p == 1, 1.0, np.where(code == 2, m, np.where(code == 1, inter, one_f_one_b)))
    return scalar_or_array(out)


def _moe_layers_before(c: _Consts, x):
    """MoE layers among the first x layers: after the dense prefix, the last layer of each
    interval is MoE (reproduces ``ModelSpec.n_moe_layers`` for x = L). This is Hugging Face
    Qwen2-MoE's ``decoder_sparse_step`` rule (layer i is MoE when ``(i + 1) % step == 0``);
    Megatron-Core's integer ``moe_layer_freq`` and DeepSeek's ``moe_layer_freq`` put the MoE
    layer first in its interval (``i % freq == 0``). The choice moves which stage holds an MoE
    layer only when the interval is above 1 (every catalogued MoE model has interval 1)."""
    if not c.is_moe:
        return 0
    return max(0, x - c.n_dense_prefix) // c.interval


def _layers_per_stage(c: _Consts, edges, pp: int, virtual_stages: int):
    """(dense-FFN layers, MoE layers) on each of the ``pp`` stages when model chunk ``ch`` holds
    layers ``edges[ch]`` to ``edges[ch + 1]`` and stage r holds chunks r, r + pp, r + 2·pp, ...
    (Megatron's interleaved assignment, Narayanan et al. 2021 §2.2.2); the MoE layers among them
    by ``_moe_layers_before``."""
    dense = np.zeros(pp, dtype=np.int64)
    moe = np.zeros(pp, dtype=np.int64)
    for r in range(pp):
        for k in range(virtual_stages):
            lo, hi = int(edges[r + k * pp]), int(edges[r + k * pp + 1])
            nm = _moe_layers_before(c, hi) - _moe_layers_before(c, lo)
            moe[r] += nm
            dense[r] += hi - lo - nm
    return dense, moe


@lru_cache(maxsize=4096)
def stage_layers(model: ModelSpec, pp: int, virtual_stages: int = 1, pp_split: str = "even"):
    """Transformer layers on each pipeline stage: (n_dense_ffn_layers, n_moe_layers) per stage.

    Parameters
    ----------
    model : ModelSpec
    pp, virtual_stages : int
        Stages and model chunks per stage (stage r holds chunks r, r + p, r + 2p, ...).
    pp_split : {"even", "embedding_and_loss", "uneven"}
        See ``PP_SPLITS``.

    Returns
    -------
    tuple of two int ndarrays of length ``pp``.

    Raises
    ------
    ValueError
        If the layers (or layers + 2) are not divisible by ``pp·virtual_stages``.
    """
    if pp_split not in PP_SPLITS:
        raise ValueError(f"pp_split={pp_split!r} must be one of {PP_SPLITS}")
    c = _consts(model)
    L = c.L
    chunks = pp * virtual_stages
    if pp_split == "uneven":
        # multi-token prediction: its modules and the loss take the last chunk's slots, 2 per
        # module (its layer and its head) and 1 for the loss, as Megatron-Bridge's DeepSeek-V3
        # layouts place them (_get_deepseek_v3_pipeline_layout: PP 16 holds [E + 4, 4 x 14,
        # 1 + MTP + loss], PP 4 [E + 16, 16, 16, 13 + MTP + loss]: 61 + 3 slots, even)
        tail = 2 * model.mtp_depth + 1 if model.mtp_depth else 0
        if chunks > L:
            raise ValueError(f"pp·virtual_stages={pp}·{virtual_stages} must not exceed the {L} "
                             "layers (pp_split='uneven': at least one layer per chunk)")
        q, rem = divmod(L + tail, chunks)
        sizes = np.full(chunks, q, dtype=np.int64)
        sizes[1:1 + rem] += 1
        # the tail's slots come off the last chunks, each keeping at least one layer
        for i in range(chunks - 1, -1, -1):
            take = min(tail, int(sizes[i]) - 1)
            sizes[i] -= take
            tail -= take
        return _layers_per_stage(c, np.concatenate([[0], np.cumsum(sizes)]), pp, virtual_stages)
    extra = 2 if (pp_split == "embedding_and_loss" and pp > 1) else 0
    slots = L + extra
    if slots % chunks:
        what = f"{L} layers + embedding + loss" if extra else f"{L} layers"
        raise ValueError(f"pp·virtual_stages={pp}·{virtual_stages} must divide the {slots} "
                         f"pipeline slots ({what})")
    per = slots // chunks
    offset = extra // 2  # the embedding's slot comes before layer 0, the loss's after layer L
    edges = np.clip(np.arange(chunks + 1) * per - offset, 0, L)
    return _layers_per_stage(c, edges, pp, virtual_stages)


def split_codes(pp_split, shape) -> np.ndarray:
    """The layer split of each plan as its position in ``PP_SPLITS`` (an int array of
    ``shape``), from one name, an array of names or of codes (one per plan, as the
    ``pp_split`` column of ``parallel.enumerate_plans`` with ``pp_split="auto"``).

    Raises
    ------
    ValueError
        A name not in ``PP_SPLITS``.
    """
    if hasattr(pp_split, "cat"):            # a pandas categorical column: its names
        pp_split = pp_split.astype(str).to_numpy()
    arr = np.asarray(pp_split)
    if arr.dtype.kind in "iu":              # codes already (positions in PP_SPLITS)
        if arr.size and (arr.min() < 0 or arr.max() >= len(PP_SPLITS)):
            raise ValueError(f"pp_split codes must be in [0, {len(PP_SPLITS)})")
        return np.broadcast_to(arr.astype(np.int64), shape)
    names = arr.astype(object)
    uniq = set(names.ravel().tolist())
    if not uniq <= set(PP_SPLITS):
        raise ValueError(f"pp_split={sorted(map(str, uniq - set(PP_SPLITS)))} must be among "
                         f"{PP_SPLITS}")
    if names.ndim == 0:
        return np.full(shape, PP_SPLITS.index(names.item()), dtype=np.int64)
    codes = np.zeros(names.shape, dtype=np.int64)
    for i, n in enumerate(PP_SPLITS):
        codes[names == n] = i
    return np.broadcast_to(codes, shape)


def _stage_keys(pp, virtual_stages, shape, pp_split) -> tuple:
    """``(keys, inverse)``: the distinct ``(split code, pp, virtual_stages)`` of the plans
    (``stage_candidates``) and each plan's position among them; one plan (``shape == ()``):
    its own."""
    if shape == ():
        return [(int(split_codes(pp_split, shape)), int(pp), int(virtual_stages))], \
            np.zeros(1, dtype=np.int64)
    ppb = np.broadcast_to(pp, shape).ravel()
    vb = np.broadcast_to(virtual_stages, shape).ravel()
    sb = split_codes(pp_split, shape).ravel()
    # one integer key per (split, pp, v): a 1-D unique is ~10x faster than np.unique(..., axis=1)
    width = int(vb.max(initial=1)) + 1
    key = (sb * (int(ppb.max(initial=1)) + 1) + ppb.astype(np.int64)) * width + vb
    codes, inverse = np.unique(key, return_inverse=True)
    keys = []
    for j in range(codes.size):
        sp_j, v_j = divmod(int(codes[j]), width)
        s_j, p_j = divmod(sp_j, int(ppb.max(initial=1)) + 1)
        keys.append((s_j, p_j, v_j))
    return keys, inverse.ravel()


@lru_cache(maxsize=1024)
def _read_only_stage_layers(model: ModelSpec, pp: int, virtual_stages: int,
                            pp_split: str) -> tuple:
    """``stage_layers``, memoised for ``stage_candidates`` (which only reads them), its arrays
    read-only."""
    out = stage_layers(model, pp, virtual_stages, pp_split)
    for a in out:
        a.flags.writeable = False
    return out


def stage_candidates(model: ModelSpec, pp, virtual_stages, shape, pp_split, pick):
    """The few pipeline stages an array engine evaluates for each distinct (pp_split, pp,
    virtual_stages): ``pp_split`` one name of ``PP_SPLITS`` or an array of them, one per plan.

    A plan's busiest stage is one of a handful (the first holds the embedding, the last the LM
    head, a middle stage the most MoE layers), so the engines evaluate those and take the max.
    ``pick(p, dense, moe)`` returns the stage indices to evaluate for a pipeline of ``p`` stages
    with the per-stage layer counts of ``stage_layers``; it must return the same number of
    indices for every ``p``.

    Returns
    -------
    (stage, n_dense, n_moe): three lists, one entry per picked position, each an array of
    ``shape`` (the stage index, and its dense-FFN and MoE layer counts, for every candidate).
    """
    keys, inverse = _stage_keys(pp, virtual_stages, shape, pp_split)
    rows = []
    for s_j, p_j, v_j in keys:
        d_arr, m_arr = _read_only_stage_layers(model, p_j, v_j, PP_SPLITS[s_j])
        rows.append([(r, d_arr[r], m_arr[r]) for r in pick(p_j, d_arr, m_arr)])
    table = np.array(rows, dtype=np.int64)           # (n_keys, n_picked, 3)
    n_picked = table.shape[1]
    stage = [table[:, i, 0][inverse].reshape(shape) for i in range(n_picked)]
    n_dense = [table[:, i, 1][inverse].reshape(shape).astype(float) for i in range(n_picked)]
    n_moe = [table[:, i, 2][inverse].reshape(shape).astype(float) for i in range(n_picked)]
    return stage, n_dense, n_moe


# ----------------------------------------------------------------------------- the array engine
def zero3_kept_weights(fsdp_reshard_after_forward, pp):
    """Whether ZeRO-3 / FSDP keeps a stage's gathered weights from each layer's forward to its
    backward (bool array over the plans' ``pp``): FSDP2's ``reshard_after_forward`` False keeps
    them, True frees them after the forward (``"not_pp"``, torchtitan's default policy and NeMo
    AutoModel's ``not pp_enabled``: kept with a pipeline).

    Memory modelled (``zero3_buffer``, with ``b_w`` the recipe's working-weight bytes): reshard
    True: ``2·b_w·unit``, DeepSpeed's ``estimate_zero3_model_states_mem_needs`` (4 bytes × the
    largest layer's parameters, i.e. ``2·b_w`` at ``b_w = 2``); kept: the whole stage's
    working weights stay gathered, ``b_w·(P_ne·(1 − 1/g) + P_ex·(1 − 1/g_e))`` beyond the
    rank's own shard where ``weights`` holds that shard, ``b_w·(P_ne + P_ex)`` with a sharded
    master (FSDP2 at ZeRO-3, where ``weights`` is 0), plus one layer's unsharded gradient
    buffer ``b_w·unit``. Not modelled: torch.distributed.pipelining also defers the backward's
    reshard and gradient reduce-scatter to a schedule's last micro-batch (stage.py,
    ``backward_maybe_with_nosync``), which keeps unsharded gradients too.

    Raises
    ------
    ValueError
        A policy other than True, False, "true", "false", "not_pp".
    """
    v = fsdp_reshard_after_forward
    if isinstance(v, (bool, np.bool_)):
        return np.full(np.shape(pp), not bool(v))
    if v == "true" or v == "false":
        return np.full(np.shape(pp), v == "false")
    if v == "not_pp":
        return np.asarray(pp) > 1
    raise ValueError(f"fsdp_reshard_after_forward={v!r} must be True, False, 'true', 'false' "
                     "or 'not_pp'")


#: The plan fields ``plan_memory_arrays`` takes as keyword arrays (``ParallelPlan.to_dict``'s
#: names): all needed but ``pp_split`` ("even"), ``fsdp_shard_size`` (None: the whole group)
#: and ``etp`` (None: tp, ``shapes.expert_tp``).
PLAN_ARRAY_FIELDS = ("tp", "pp", "dp", "cp", "ep", "virtual_stages", "micro_batch_size",
                     "n_microbatches", "zero_stage", "recompute", "schedule",
                     "sequence_parallel", "pp_split", "fsdp_shard_size", "etp")


def plan_memory_arrays(model: ModelSpec, *, seq_len=None, recipe="bf16_adam_fp32_grads",
                       flash_attention=True, dropout=False, stage=None,
                       fsdp_reshard_after_forward=True, practice=None, **plan) -> dict:
    """Per-GPU memory parts of many parallel plans at once (the engine behind ``memory_per_gpu``,
    ``memory_breakdown`` and ``parallel.enumerate_plans``). ``stage``: evaluate that pipeline
    stage only, instead of the most loaded of the candidate stages.
    ``fsdp_reshard_after_forward``: see ``zero3_kept_weights``. ``practice``: a
    ``MemoryPractice`` (None: ``DEFAULT_PRACTICE``, Korthikanti et al. and ZeRO as written).

    ``**plan``: the plan fields (``PLAN_ARRAY_FIELDS``, e.g. ``**plan.to_dict()``), integer
    arrays of one length (or scalars) that must already be valid (``ParallelPlan`` rules);
    ``recompute`` and ``schedule`` are codes (positions in ``RECOMPUTE_MODES`` and
    ``SCHEDULES``) or names. ``fsdp_shard_size`` (None, or an array with dp·cp for the whole
    group; 0 is refused): hybrid sharding, ZeRO-3's states sharded over that many ranks
    (``shapes.shard_group_arrays``). Returns a dict with one float array per part of
    ``PARTS``, ``total``, and ``stage`` (the stage index whose total is the largest).

    Steps: the plan's per-rank sizes (``_plan_memory_inputs``), the candidate stages (first,
    second, last and, for MoE, the first stage with the most MoE layers;
    ``stage_candidates``), each stage's parts (``_stage_state_parts``,
    ``_stage_activation_parts``), and per plan the stage whose total is largest.
    """
    plan = _plan_array_fields(plan)
    check_plan_arrays(model, **{k: plan[k] for k in PLAN_ARRAY_FIELDS[:9]})
    practice = DEFAULT_PRACTICE if practice is None else practice
    if not isinstance(practice, MemoryPractice):
        raise ValueError(f"practice={practice!r} must be a MemoryPractice or None")
    k = _plan_memory_inputs(model, plan, seq_len, recipe, flash_attention, dropout,
                            fsdp_reshard_after_forward, practice)

    def pick(p_j, d_arr, m_arr):
        if stage is not None:  # one stage asked for (memory_per_gpu(stage=...))
            return (int(stage),)
        r_moe = (1 + int(np.argmax(m_arr[1:-1]))) if p_j > 2 else 0
        return (0, min(1, p_j - 1), r_moe, p_j - 1)

    best = None
    for r, nd, nm in zip(*stage_candidates(model, k.pp, k.v, k.shape, plan["pp_split"], pick)):
        parts = {**_stage_state_parts(k, r, nd, nm), **_stage_activation_parts(k, r, nd, nm)}
        parts = {key: np.broadcast_to(np.asarray(val, dtype=float), k.shape) for key, val in
                 parts.items()}
        total = sum(parts.values())
        if best is None:
            best = dict(parts, total=total, stage=np.broadcast_to(r, k.shape).astype(np.int64))
        else:
            better = total > best["total"]
            for key in PARTS:
                best[key] = np.where(better, parts[key], best[key])
            best["stage"] = np.where(better, r, best["stage"])
            best["total"] = np.where(better, total, best["total"])
    return best


def _plan_array_fields(plan: dict) -> dict:
    """``plan_memory_arrays``' plan keywords checked by name (a ValueError for an unknown or a
    missing one), with the defaults of ``pp_split``, ``fsdp_shard_size`` and ``etp``."""
    bad = sorted(set(plan) - set(PLAN_ARRAY_FIELDS))
    missing = [f for f in PLAN_ARRAY_FIELDS[:12] if f not in plan]
    if bad or missing:
        what = "; ".join(([f"unknown plan field(s) {bad}"] if bad else [])
                         + ([f"missing plan field(s) {missing}"] if missing else []))
        raise ValueError(f"plan_memory_arrays: {what}; the plan fields are {PLAN_ARRAY_FIELDS}")
    return {"pp_split": "even", "fsdp_shard_size": None, "etp": None, **plan}


@dataclass(frozen=True)
class _PlanMemory:
    """The per-rank sizes of ``plan_memory_arrays``' plans that every pipeline stage shares
    (``_plan_memory_inputs`` builds it; arrays broadcast to ``shape``)."""

    c: _Consts
    rcp: PrecisionRecipe
    shape: tuple
    pp: np.ndarray
    v: np.ndarray
    m: np.ndarray
    z: np.ndarray
    rc: np.ndarray
    sched: np.ndarray
    tpf: np.ndarray
    x: object
    act: dict
    dropout: bool
    zero_scales: tuple
    expert_scales: tuple
    p_dense: object
    p_moe: object
    p_expert: object
    emb: object
    head: object
    unit: object
    keep: object
    keep_any: bool
    div: object
    mtp: float = 0.0
    mtp_moe: bool = False
    p_mtp: object = 0.0
    p_mtp_expert: object = 0.0
    offload: float = 0.0


def zero3_module_unit(c: _Consts, tp, ep, head_mat, etp=None):
    """The largest single module's parameters per rank: what DeepSpeed ZeRO-3 gathers at a time
    (``MemoryPractice.zero3_gather_unit="module"``; DeepSpeed
    ``estimate_zero3_model_states_mem_needs`` sizes its buffer as 4 bytes × this count). The
    modules, as Megatron-DeepSpeed's GPT builds them: the fused QKV projection ``h·(a·d_qk +
    2·g·d_h)/t`` (MLA: all attention matrices, an upper bound), the output projection
    ``a·d_v·h/t``, the FFN's first linear ``h·f·(2 if gated)/t`` (gate and up fused) and second
    ``f·h/t``, one expert's first linear ``h·f_e·(2 if gated)/etp`` (``etp`` the expert
    tensor-parallel size, None: ``t``), the embedding split ``/t`` and the LM head's matrix
    ``/t``."""
    gate = 2.0 if c.gated else 1.0
    qkv = c.attn_split if c.mla else c.h * (c.a * c.dqk + 2 * c.g * c.dh)
    mods = [qkv / tp, c.a * c.dv * c.h / tp, gate * c.h * c.f / tp, c.f * c.h / tp,
            c.emb_split / tp, head_mat / tp]
    if c.is_moe:
        mods.append(gate * c.h * c.fe / (tp if etp is None else etp) + 0.0 * ep)
    return np.maximum.reduce([np.broadcast_to(np.asarray(m, dtype=float), np.shape(tp))
                              for m in mods])


def mtp_stage_params(model: ModelSpec, c: _Consts, p_dense, p_moe, p_expert, tp):
    """Per-rank parameters of the ``mtp_depth`` multi-token-prediction modules, which
    Megatron-Core places on the last pipeline stage ("By default, all MTP layers sit on the last
    pipeline stage", Megatron-Core user guide, Multi-Token Prediction): ``(non-expert,
    routed-expert)``.

    Module k (DeepSeek-AI 2024, arXiv:2412.19437 §2.2) is one transformer block of the kind of
    the model's last layer (``ModelSpec.mtp_block_is_moe``), a projection ``M_k`` of ``d × 2d``
    (Megatron-Core's ``eh_proj``, a column-parallel linear: divided by TP) and three norm
    vectors (the two input RMSNorms and the norm before the shared head); the embedding and
    output head are the main model's (shared, not counted again)::

        non-expert = D · (P_layer + 2·d²/tp + 3·norm),   experts = D · P_experts / (tp·ep)

    with ``P_layer`` the rank's share of one dense or MoE layer (``shapes.layer_params``). At
    tp = ep = 1 it is ``ModelSpec.n_mtp_params`` (DeepSeek-V3: 11.61B; Megatron-LM's
    ``theoretical_memory_usage.py`` counts the block alone). 0 without MTP."""
    d = float(model.mtp_depth)
    if not d:
        return 0.0, 0.0
    moe = model.mtp_block_is_moe
    layer = p_moe if moe else p_dense
    ne = d * (layer + 2.0 * c.h * c.h / tp + 3.0 * c.final_norm)
    return ne, (d * p_expert if moe else 0.0 * ne)


def _plan_memory_inputs(model, plan: dict, seq_len, recipe, flash_attention, dropout,
                        fsdp_reshard_after_forward,
                        practice: MemoryPractice = DEFAULT_PRACTICE) -> _PlanMemory:
    """The plans' per-rank sizes: parameters per dense / MoE layer and per expert block
    (``shapes.layer_params``: 1/tp of the matrices, the experts over etp·ep, ``etp`` the expert
    tensor-parallel size, ``shapes.expert_tp``), activations per layer of ``x = s/cp · mbs``
    tokens (``_layer_activations``: the same under MoE parallel folding, etp = 1, whose rank
    takes x/tp tokens at the experts' full width where etp = tp takes x at 1/tp of it), the
    ZeRO divisors of the dense states over the shard group and of the expert states over the
    expert-data-parallel group, group·tp/(etp·ep) (``_zero_scales``;
    under HSDP the group is the f ranks of a replica, ``shapes.shard_group_arrays``), the
    embedding and head parameters of the edge stages (``shapes.edge_params``), ZeRO-3's
    gathered unit (the largest of a dense layer, an MoE layer, the embedding split and the head
    matrix, per tp; with ``practice.zero3_gather_unit="module"`` the largest single module,
    ``zero3_module_unit``) and the weights it keeps after the forward (``zero3_kept_weights``);
    ``practice`` (``MemoryPractice``) also shapes the per-layer activations and sets the
    offloaded layers (refused with a pipeline, as Megatron-Core does)."""
    c = _consts(model)
    s = float(model.seq_len if seq_len is None else seq_len)
    tp, pp, dp, cp, ep, v, mbs, m, z, rc, sched, sp, shape = plan_axes(plan)
    tpf, ppf = tp.astype(float), pp.astype(float)
    etf = expert_tp(plan, tpf)
    p_dense, p_moe, p_expert = _layer_params(c, tpf, ep.astype(float), etf)
    x = s / cp * mbs
    group, _ = _shard_group_arrays(dp, cp, ep, z, plan["fsdp_shard_size"])
    emb, head_mat, head = _edge_params(c, tpf, ppf)
    if practice.zero3_gather_unit == "module":
        unit = zero3_module_unit(c, tpf, ep.astype(float), head_mat, etf)
    else:
        unit = np.maximum.reduce([np.where(c.L - model.n_moe_layers > 0, p_dense, 0.0),
                                  np.where(c.is_moe, p_moe + p_expert, 0.0),
                                  c.emb_split / tpf, head_mat / tpf])
    if practice.offload_layers and np.any(pp > 1):
        raise ValueError(f"offload_layers={practice.offload_layers} needs pp = 1 (Megatron-Core "
                         "refuses CPU activation offloading with pipeline parallelism)")
    if practice.offload_layers >= c.L:
        raise ValueError(f"offload_layers={practice.offload_layers} must be below the model's "
                         f"{c.L} layers")
    keep = zero3_kept_weights(fsdp_reshard_after_forward, pp)
    p_mtp, p_mtp_ex = mtp_stage_params(model, c, p_dense, p_moe, p_expert, tpf)
    return _PlanMemory(
        c=c, rcp=get_recipe(recipe), shape=shape, pp=pp, v=v, m=m, z=z, rc=rc, sched=sched,
        tpf=tpf, x=x, act=_layer_activations(c, x, s, tpf, sp, flash_attention, dropout,
                                             practice, etp=etf),
        dropout=dropout, zero_scales=_zero_scales(z, group),
        expert_scales=_zero_scales(z, group * tpf / (etf * ep)), p_dense=p_dense, p_moe=p_moe,
        p_expert=p_expert, emb=emb, head=head, unit=unit, keep=keep,
        keep_any=bool(np.any(keep)), div=np.where(sp, tpf, 1.0), mtp=float(model.mtp_depth),
        mtp_moe=bool(model.mtp_block_is_moe), p_mtp=p_mtp, p_mtp_expert=p_mtp_ex,
        offload=float(practice.offload_layers))


def _kept_gathered(rcp: PrecisionRecipe, p_ne, p_ex, s3, e3):
    """Parameters per rank a kept ZeRO-3 stage holds gathered beyond what ``weights`` counts:
    the whole stage ``P + P_e`` with a sharded master (FSDP2: ``weights`` is 0, the rank's
    own shard is fp32 master, not a working copy), else ``P·(1 − 1/s3) + P_e·(1 − 1/e3)``
    (the rank's own working shard is already in ``weights``)."""
    if rcp.sharded_master:
        return p_ne + p_ex
    return p_ne * (1 - 1 / s3) + p_ex * (1 - 1 / e3)


def _stage_state_parts(k: _PlanMemory, r, nd, nm) -> dict:
    """The model states on pipeline stage ``r`` (``nd`` dense and ``nm`` MoE layers; the
    embedding on the first stage, the head and the multi-token-prediction modules on the last,
    ``mtp_stage_params``), bytes per GPU: with ``P`` the stage's
    non-expert and ``P_e`` its expert parameters per rank, the recipe's bytes per parameter
    (``PrecisionRecipe``) and ZeRO divisors ``s_i`` (dense) and ``e_i`` (experts) of stage i
    (Rajbhandari et al. 2020, ZeRO §5): weights ``b_w·(P/s3 + P_e/e3)`` (0 at ZeRO-3 with a
    sharded master: FSDP2 keeps only gathered working weights), gradients ``b_g·(P/s2 +
    P_e/e2) + b_mg·(P/s1 + P_e/e1)``, master weights ``b_m·(P/s1 + P_e/e1)``, optimizer states
    ``b_o·(P/s1 + P_e/e1)``, and ZeRO-3's gather buffer: the kept weights ``b_w·(P·(1 − 1/s3) +
    P_e·(1 − 1/e3) + unit)`` where the forward keeps them (``b_w·(P + P_e + unit)`` with a
    sharded master, ``_kept_gathered``), else ``2·b_w·unit`` (DeepSpeed's estimator,
    ``zero3_kept_weights``)."""
    rcp, z = k.rcp, k.z
    s1, s2, s3 = k.zero_scales
    e1, e2, e3 = k.expert_scales
    first = r == 0
    last = r == k.pp - 1
    p_ne = nd * k.p_dense + nm * k.p_moe + np.where(first, k.emb, 0.0) \
        + np.where(last, k.head + k.p_mtp, 0.0)
    p_ex = nm * k.p_expert + np.where(last, k.p_mtp_expert, 0.0)
    unit = k.unit
    return {
        # FSDP2 (sharded_master): at ZeRO-3 the working weights exist only gathered
        "weights": np.where((z == 3) & rcp.sharded_master, 0.0,
                            rcp.weights_bytes * (p_ne / s3 + p_ex / e3)),
        "gradients": rcp.grads_bytes * (p_ne / s2 + p_ex / e2)
        + rcp.main_grads_bytes * (p_ne / s1 + p_ex / e1),
        "master_weights": rcp.master_bytes * (p_ne / s1 + p_ex / e1),
        "optimizer_states": rcp.optimizer_bytes * (p_ne / s1 + p_ex / e1),
        "zero3_buffer": np.where(z == 3, np.where(
            k.keep, rcp.weights_bytes * (_kept_gathered(rcp, p_ne, p_ex, s3, e3) + unit),
            2 * rcp.weights_bytes * unit) if k.keep_any else 2 * rcp.weights_bytes * unit,
            0.0),
    }


def _stage_activation_parts(k: _PlanMemory, r, nd, nm) -> dict:
    """The activations on pipeline stage ``r`` (``nd`` dense, ``nm`` MoE layers), bytes per
    GPU (Korthikanti et al. 2022 §4): ``activations`` = the micro-batches in flight
    (``in_flight_microbatches``) × the stored activations of one micro-batch by recomputation
    mode (none, selective, or the full-recomputation checkpoints ``(nd + nm)·ckpt``);
    ``activation_working_set``: what one layer's recomputation or backward holds on top (the
    attention core under selective, the largest layer minus its checkpoint under full);
    ``embedding_and_logits``: on the first stage the token and position buffers ``8x`` (and the
    dropout mask ``x·h/div``) per micro-batch in flight, on the last the logits' ``4·x·h/div +
    4·x·V/tp`` (× m under GPipe, which keeps every micro-batch's). The last stage adds the
    multi-token-prediction modules' activations and logits (``_mtp_activations``). With
    ``MemoryPractice.offload_layers`` n (no pipeline), a micro-batch's stored activations
    (modes none and selective) are ``per_mb·(1 − n/L)`` plus one layer in transit (its
    stored activations); the selective working set is the largest of the attention core and,
    under ``selective_policy="every_other_mm"``, one dense layer's recomputed tensors."""
    c, act, x, pp, m, rc, sched = k.c, k.act, k.x, k.pp, k.m, k.rc, k.sched
    first = r == 0
    last = r == pp - 1
    fl = in_flight_microbatches(sched, pp, m, k.v, r)
    sel = nd * act["sel_dense"] + nm * act["sel_moe"]
    none = nd * act["none_dense"] + nm * act["none_moe"]
    full = (nd + nm) * act["ckpt"]
    per_mb = np.select([rc == 0, rc == 1], [none, sel], full)
    biggest = np.maximum(np.where(nd > 0, act["none_dense"], 0.0),
                         np.where(nm > 0, act["none_moe"], 0.0))
    has_layers = (nd + nm) > 0
    ws_sel = np.maximum(np.where(nd > 0, act["ws_sel_dense"], 0.0), act["core"])
    ws = np.select([rc == 0, rc == 1], [0.0, ws_sel], biggest - act["ckpt"])
    if k.offload:
        # offloaded layers' stored activations live in host memory; one is in transit
        transit = np.where(rc == 0, biggest, np.maximum(np.where(nd > 0, act["sel_dense"], 0.0),
                                                        np.where(nm > 0, act["sel_moe"], 0.0)))
        per_mb = np.where(rc == 2, per_mb, per_mb * (1.0 - k.offload / k.c.L) + transit)
    gpipe = sched == 2
    emb_buf = (8 * x + (x * c.h / k.div if k.dropout else 0.0)) * fl
    head_buf = (4 * x * c.h / k.div + 4 * x * c.V / k.tpf) * np.where(gpipe & (pp > 1), m, 1)
    mtp_act, mtp_logits = _mtp_activations(k, rc)
    return {"activations": fl * (per_mb + np.where(last, mtp_act, 0.0)),
            "activation_working_set": np.where(has_layers, ws, 0.0),
            "embedding_and_logits": np.where(first, emb_buf, 0.0)
            + np.where(last, head_buf + mtp_logits * np.where(gpipe & (pp > 1), m, 1), 0.0)}


def _mtp_activations(k: _PlanMemory, rc):
    """Per micro-batch, the activations of the ``mtp_depth`` multi-token-prediction modules on
    the last stage, bytes per GPU: ``(stored, logits)``. Each module (DeepSeek-AI 2024,
    arXiv:2412.19437 §2.2) keeps what one layer of its kind keeps under the recomputation mode
    (``_layer_activations``), plus its inputs: the two RMSNorm inputs (the previous depth's
    hidden state and the embedding of the shifted tokens) and the projection's concatenated
    input, ``2·x·h + 2·x·h + 2·x·2h = 8·x·h`` bytes (``/tp`` under sequence parallelism); under
    full recomputation the layer's checkpoint plus the embedding input ``2·x·h``. Its loss
    computes logits of the whole vocabulary through the shared head: ``4·x·V/tp`` fp32, as the
    main head's."""
    if not k.mtp:
        return 0.0, 0.0
    act, x, h = k.act, k.x, k.c.h
    kind = "moe" if k.mtp_moe else "dense"
    layer = np.select([rc == 0, rc == 1], [act[f"none_{kind}"], act[f"sel_{kind}"]],
                      act["ckpt"])
    inputs = np.where(rc == 2, 2.0, 8.0) * x * h / k.div
    return k.mtp * (layer + inputs), k.mtp * 4.0 * x * k.c.V / k.tpf


# ----------------------------------------------------------------------------- one plan
@dataclass(frozen=True)
class MemoryBreakdown:
    """Per-GPU memory of one plan on its most loaded pipeline stage, in bytes.

    The parts (``PARTS``) add up to ``total``. ``stage`` is the pipeline stage (0 = first) whose
    total is the largest. Fields broadcast if the breakdown was computed for arrays.
    """

    weights: float
    gradients: float
    master_weights: float
    optimizer_states: float
    zero3_buffer: float
    activations: float
    activation_working_set: float
    embedding_and_logits: float
    stage: int = 0

    @property
    def total(self):
        return sum(getattr(self, p) for p in PARTS)

    @property
    def model_states(self):
        """Weights + gradients + master weights + optimizer states (no buffers, no activations)."""
        return sum(getattr(self, p) for p in _MODEL_STATE_PARTS)

    def fits(self, hbm_bytes, reserve=DEFAULT_RESERVE):
        """True where the total fits in ``hbm_bytes`` after holding back ``reserve`` of it.

        See ``fits`` (module function) and ``DEFAULT_RESERVE`` for the allowance.
        """
        return fits(self.total, hbm_bytes, reserve)

    def to_frame(self) -> pd.DataFrame:
        """One row per part plus a ``total`` row: bytes, GB, GiB, share of the total, note."""
        vals = {p: float(getattr(self, p)) for p in PARTS}
        total = sum(vals.values())
        df = pd.DataFrame({"bytes": vals})
        df.loc["total", "bytes"] = total
        df["GB"] = df["bytes"] / GB
        df["GiB"] = df["bytes"] / GIB
        df["share"] = df["bytes"] / total if total else 0.0
        df["note"] = [PART_NOTES.get(p, f"sum of the parts, pipeline stage {self.stage}")
                      for p in df.index]
        df.index.name = "part"
        return df


def fits(total_bytes, hbm_bytes, reserve=DEFAULT_RESERVE):
    """Whether ``total_bytes`` fit in ``hbm_bytes`` with a fraction ``reserve`` held back.

    ``total_bytes <= hbm_bytes · (1 − reserve)``. The reserve covers what the model does not count
    (CUDA context, NCCL buffers, activation gradients and transients, fragmentation); the default
    ``DEFAULT_RESERVE`` = 10% and its sources are documented there.

    Raises
    ------
    ValueError
        If ``hbm_bytes`` is not positive or ``reserve`` is outside [0, 1).
    """
    hbm = as_array(hbm_bytes, "hbm_bytes", positive=True)
    res = as_array(reserve, "reserve", nonnegative=True, upper=1.0, upper_inclusive=False)
    out = np.asarray(total_bytes) <= hbm * (1.0 - res)
    return bool(out) if out.ndim == 0 else out


def _check_entry(model, plan, seq_len, stage=None):
    """Validate the public memory entry points' arguments: a ValueError naming the argument."""
    if isinstance(model, str):
        model = load_model(model)
    if not isinstance(model, ModelSpec):
        if isinstance(model, (int, float, np.integer, np.floating)) and not isinstance(model,
                                                                                         bool):
            raise ValueError(f"model={model!r} is a parameter count, but per-GPU memory needs a "
                             "ModelSpec (layers, widths, heads): llmcost.load_model(name) or "
                             "ModelSpec.from_hf_config(path)")
        raise ValueError(f"model={model!r} must be a ModelSpec or a catalogue model name")
    # a ParallelPlan, by its interface (memory must not import parallel, which imports memory)
    if not all(hasattr(plan, a) for a in ("validate", "to_dict", "pp", "tp")):
        raise ValueError(f"plan={plan!r} must be a ParallelPlan (llmcost.make_plan(...))")
    if seq_len is None:
        s = model.seq_len
    else:
        s = int(as_scalar(seq_len, "seq_len", positive=True, integer=True))
        if np.ndim(seq_len):
            raise ValueError(f"seq_len={seq_len!r} must be one whole number (use "
                             "activations_vs_seq_len for many)")
    if stage is not None:
        if isinstance(stage, bool) or not isinstance(stage, (int, np.integer)) \
                or not 0 <= stage < plan.pp:
            raise ValueError(f"stage={stage!r} must be a whole number in [0, pp={plan.pp}) or "
                             "None (the most loaded stage)")
    return model, s


def memory_per_gpu(model: ModelSpec, plan, seq_len=None, recipe="bf16_adam_fp32_grads",
                   flash_attention=True, dropout=False, stage=None,
                   fsdp_reshard_after_forward=True, practice=None) -> MemoryBreakdown:
    """Per-GPU memory of one ``ParallelPlan`` on its most loaded pipeline stage, or on ``stage``.

    The parts add up to the total (the module docstring details each)::

        M = model states + ZeRO-3 gather buffer + activations + working set + embedding/logits
        model states (Rajbhandari et al. 2020 §5.1; w, g, o the recipe's weight, gradient and
        optimizer-side bytes per parameter, Ψ the stage's parameters per rank, N_d its ZeRO
        group): ZeRO-0 (w + g + o)·Ψ; ZeRO-1 (w + g)·Ψ + o·Ψ/N_d;
        ZeRO-2 w·Ψ + (g + o)·Ψ/N_d; ZeRO-3 (w + g + o)·Ψ/N_d     (zero_model_state_bytes)
        activations = micro-batches in flight (1F1B: min(m, p − r) on stage r, Narayanan 2021)
        × layers on the stage × one layer's bytes (Korthikanti et al. 2022 Table 2; TP + SP:
        s·b·h/t·(34 + 5·a·s/h), 34·s·b·h/t with selective recomputation)
                                                             (activation_bytes_per_layer)

    Parameters
    ----------
    model : ModelSpec
    plan : ParallelPlan
        Validated against ``model`` here (``plan.validate(model, seq_len=...)``).
    seq_len : int, optional
        Tokens per sequence (default: the model's ``seq_len``).
    recipe : str or PrecisionRecipe
        Precision recipe (``RECIPES``); the default is bf16 with fp32 gradients (18 B/param), what
        Megatron-LM and Llama 3 use.
    flash_attention, dropout : bool
        See ``activation_bytes_per_layer``.
    stage : int, optional
        Pipeline stage to report (0 = first, ``pp - 1`` = last); default: the most loaded one.
    fsdp_reshard_after_forward : bool or {"true", "false", "not_pp"}
        ZeRO-3 only: whether the gathered weights are freed after each forward
        (``zero3_kept_weights``; a stack's policy is ``stacks.Stack.fsdp_reshard_after_forward``).
        Default True (ZeRO-3's one-layer buffer). ``parallel.enumerate_plans`` checks memory
        with the default.
    practice : MemoryPractice, optional
        What the stack and the run do beyond the plan (recomputed modules, FP8 saved inputs,
        activation offload, the selective policy, ZeRO-3's gather unit); None:
        ``DEFAULT_PRACTICE``.

    Returns
    -------
    MemoryBreakdown (``stage`` says which stage it describes)

    Raises
    ------
    ValueError
        If the plan breaks a rule for this model (the message names the rule), a setting is
        unknown, ``seq_len`` is not a whole number, ``stage`` is outside [0, pp), or ``model``
        is a bare parameter count.
    """
    model, s = _check_entry(model, plan, seq_len, stage)
    flash_attention, dropout = as_flag(flash_attention, "flash_attention"), as_flag(dropout,
                                                                                  "dropout")
    if not isinstance(recipe, PrecisionRecipe) and (not isinstance(recipe, str)
                                                     or recipe not in RECIPES):
        raise ValueError(f"recipe={recipe!r} must be one of {', '.join(RECIPES)}")
    plan.validate(model, seq_len=s)
    keep = zero3_kept_weights(fsdp_reshard_after_forward, plan.pp)   # checks the value
    arr = plan_memory_arrays(model, **plan.to_dict(), seq_len=s, recipe=recipe,
                             flash_attention=flash_attention, dropout=dropout, stage=stage,
                             fsdp_reshard_after_forward=not bool(keep), practice=practice)
    return MemoryBreakdown(**{p: float(arr[p]) for p in PARTS}, stage=int(arr["stage"]))


def memory_breakdown(model: ModelSpec, plan, seq_len=None, recipe="bf16_adam_fp32_grads",
                     flash_attention=True, dropout=False, stage=None) -> pd.DataFrame:
    """The per-GPU memory of one plan as a table: one row per part and a ``total`` row.

    Same arguments as ``memory_per_gpu``. Columns: ``bytes``, ``GB``, ``GiB``, ``share`` (of the
    total) and ``note`` (what the part holds). The parts sum to the ``total`` row.
    """
    return memory_per_gpu(model, plan, seq_len, recipe, flash_attention, dropout,
                          stage).to_frame()


def memory_table(model: ModelSpec, plans: dict, seq_len=None, recipe="bf16_adam_fp32_grads",
                 flash_attention=True, dropout=False, practice=None) -> pd.DataFrame:
    """Per-GPU memory of several plans side by side: one row per plan (the dict's labels), one
    column per part (bytes), plus ``total`` and ``stage``. Parts add up to ``total``.
    ``practice``: how a stack stores memory (``memory_per_gpu``'s; None: the count as
    written)."""
    rows = {}
    for label, plan in plans.items():
        mb = memory_per_gpu(model, plan, seq_len, recipe, flash_attention, dropout,
                            practice=practice)
        rows[label] = {**{p: getattr(mb, p) for p in PARTS}, "total": mb.total,
                       "stage": mb.stage}
    return pd.DataFrame.from_dict(rows, orient="index")


def activations_vs_seq_len(model: ModelSpec, seq_lens, tp=1, cp=1, micro_batch_size=1,
                           sequence_parallel=True, dropout=False) -> pd.DataFrame:
    """Activation bytes of the whole model (all layers, one micro-batch, per GPU) against sequence
    length, for four settings: no recomputation without and with FlashAttention, selective and
    full recomputation (both with FlashAttention). Index: ``seq_len``.

    Source: ``activation_bytes_per_layer`` (Korthikanti et al. 2022 Table 2, generalised).
    """
    s = as_array(seq_lens, "seq_lens", positive=True, integer=True)

    def whole(recompute, flash):
        return np.asarray(model_activation_bytes(model, s, micro_batch_size, tp, cp,
                                                 sequence_parallel, recompute, flash, dropout),
                          dtype=float)

    return pd.DataFrame({
        "no recompute, no FlashAttention": whole("none", False),
        "no recompute, FlashAttention": whole("none", True),
        "selective recompute": whole("selective", True),
        "full recompute": whole("full", True),
    }, index=pd.Index(np.atleast_1d(s).astype(int), name="seq_len"))


# ----------------------------------------------------------------------------- parallelism limits
def kv_heads_per_tp_rank(n_kv_heads, tp):
    """KV heads one tensor-parallel rank holds, and how many ranks hold each KV head.

    Megatron-style TP splits attention by heads, so with grouped-query attention (g KV heads) a
    rank holds g/t KV heads while t ≤ g (t must divide g). Past t = g there is nothing left to
    split: each rank keeps one KV head, replicated on t/g ranks (vLLM's ``QKVParallelLinear``;
    Megatron-LM requires t | g), so K/V weights and activations per rank stop shrinking. GQA's
    KV heads thus cap useful TP at g for the attention's K/V part (Llama-2-70B, Llama 3 70B/405B:
    g = 8, the size of an H100 NVLink domain).

    Returns
    -------
    (kv_heads_per_rank, replication) as floats or arrays: max(g/t, 1) and max(t/g, 1).

    Raises
    ------
    ValueError if t neither divides g nor is a multiple of it.
    """
    g = as_array(n_kv_heads, "n_kv_heads", positive=True, integer=True)
    t = as_array(tp, "tp", positive=True, integer=True)
    if np.any((g % t != 0) & (t % g != 0)):
        raise ValueError(f"tp={tp!r} must divide n_kv_heads={n_kv_heads!r} or be a multiple of "
                         "it")
    return scalar_or_array(np.maximum(g / t, 1.0)), scalar_or_array(np.maximum(t / g, 1.0))


def expert_capacity_tokens(tokens, top_k, n_experts, capacity_factor):
    """Token slots per expert: C = ⌈capacity_factor × tokens × k / E⌉.

    GShard (Lepikhin et al. 2020, §2.2 "expert capacity") and Switch Transformer (Fedus et al.
    2021, arXiv:2101.03961 §2.2 Eq. 3: expert capacity = tokens per batch / experts × capacity
    factor, k = 1) size each expert's buffer so; tokens routed beyond it are dropped (pass
    through the residual). A factor of 1 holds exactly the mean load. Switch ran 1.0, 1.25 and
    2.0 and found the lower two better (§2.3, Table 1); GShard's top-2 capacity, 2N/(G·E) per
    group of N/G tokens (§2.2, local group dispatching), is factor 1 with k = 2 here (a factor
    of 2 only when capacity is written without k).
    """
    t = as_array(tokens, "tokens", positive=True)
    k = as_array(top_k, "top_k", positive=True, integer=True)
    e = as_array(n_experts, "n_experts", positive=True, integer=True)
    cf = as_array(capacity_factor, "capacity_factor", positive=True)
    return scalar_or_array(np.ceil(cf * t * k / e))


def moe_capacity_extra_bytes_per_layer(model: ModelSpec, seq_len=None, micro_batch_size=1,
                                       tp=1, cp=1, load_factor=1.25, etp=None):
    """Extra activation bytes one MoE layer keeps per micro-batch on one GPU when the routed
    experts' buffers hold ``load_factor`` × the mean load instead of the mean.

    ``activation_bytes_per_layer(layer="moe")`` counts a perfectly balanced router: x·k token
    copies per GPU (x tokens per micro-batch on the rank, k experts per token), each keeping its
    dispatch copy (2·h bytes) and the expert FFN's activations (2·(3 if gated else 2)·f_e bytes,
    ÷ tp). Under EP each GPU's experts receive (E/ep) × C tokens, C = ``expert_capacity_tokens``
    over the ep ranks' x·ep tokens, i.e. capacity_factor × x·k, independent of ep. So the extra
    is (load_factor − 1) × x·k × (2h + 2·m·f_e/tp), m = 3 gated, 2 plain. With the experts' own
    tensor parallelism ``etp`` (None: tp; 1 under MoE parallel folding) a rank holds x·k·etp/tp
    copies (sequence parallelism: its own x/tp tokens' copies, all-gathered over the etp
    ranks) at width f_e/etp: (load_factor − 1) × x·k × (2h·etp/tp + 2·m·f_e/tp).
    ``load_factor`` is the
    capacity factor with token dropping, or the busiest GPU's load ÷ the mean for dropless
    routing (whose buffers follow the real load: memory peaks on the most loaded rank).

    Raises
    ------
    ValueError for a dense model, load_factor < 1, bad sizes.
    """
    if not model.is_moe:
        raise ValueError(f"model={model.name!r} is dense: no expert capacity")
    lf = as_array(load_factor, "load_factor", positive=True)
    if np.any(lf < 1):
        raise ValueError(f"load_factor={load_factor!r} must be >= 1 (buffers at least the mean)")
    c, s, b, t, cpa = _micro_batch_arrays(model, seq_len, micro_batch_size, tp, cp)
    e = expert_tp({"etp": etp}, t)
    x = s / cpa * b
    ffn_mult = 6 if c.gated else 4
    return scalar_or_array((lf - 1) * x * c.k * (2 * c.h * e / t + ffn_mult * c.fe / t))


#: The load factor ``moe_imbalance_extra_bytes`` checks a plan against by default: 1.25, the
#: larger of the two capacity factors Switch Transformer found best (Fedus et al. 2021,
#: arXiv:2101.03961 §2.3 and Table 1: "Switch Transformers perform better at lower capacity
#: factors (1.0, 1.25)"; 2.0 also run; the capacity itself is §2.2's Eq. 3) and the one notebook
#: 03's lesson draws; for a dropless router, the busiest GPU's load a quarter above the mean. A
#: presentation threshold for a warning, not a measured imbalance of any run.
MOE_CHECK_LOAD_FACTOR = 1.25


def moe_imbalance_extra_bytes(model: ModelSpec, plan, seq_len: int,
                              load_factor: float = MOE_CHECK_LOAD_FACTOR) -> float:
    """Extra activation bytes a MoE plan's most loaded pipeline stage holds when its routed
    experts take ``load_factor`` × the mean load, beyond the balanced router ``plan_memory``
    counts: ``moe_imbalance_extra_arrays`` (its formula) of one ``ParallelPlan``.

    Raises
    ------
    ValueError for a dense model or a load factor below 1 (``moe_capacity_extra_bytes_per_layer``).
    """
    return float(moe_imbalance_extra_arrays(
        model, seq_len, tp=plan.tp, cp=plan.cp, pp=plan.pp,
        micro_batch_size=plan.micro_batch_size, n_microbatches=plan.n_microbatches,
        virtual_stages=plan.virtual_stages, schedule=plan.schedule,
        full_recompute=plan.recompute == "full", etp=getattr(plan, "expert_tp", plan.tp),
        load_factor=load_factor))


def moe_imbalance_extra_arrays(model: ModelSpec, seq_len: int, *, tp, cp, pp, micro_batch_size,
                               n_microbatches, virtual_stages, schedule, full_recompute,
                               etp=None, load_factor: float = MOE_CHECK_LOAD_FACTOR):
    """Extra activation bytes the most loaded pipeline stage of MoE plans (scalars or arrays,
    elementwise) holds when the routed experts take ``load_factor`` × the mean load:

        extra = E × ⌈L_moe ÷ pp⌉ × in-flight micro-batches (``in_flight_microbatches``, stage 0)

    E per MoE layer per micro-batch (``moe_capacity_extra_bytes_per_layer``), with no recompute
    or selective recompute (the routed experts' activations are stored); with full recompute
    (``full_recompute`` True), E once (only the one layer being recomputed holds them). An
    upper bound in that every MoE layer is taken at the same imbalance at once. ``etp``: the
    experts' TP (None: tp); ``schedule``: a name, or codes (``SCHEDULES``).

    Raises
    ------
    ValueError for a dense model or a load factor below 1 (``moe_capacity_extra_bytes_per_layer``).
    """
    per_layer = np.asarray(moe_capacity_extra_bytes_per_layer(
        model, seq_len, micro_batch_size, tp, cp, load_factor, etp), dtype=float)
    p = np.asarray(pp, dtype=float)
    layers = np.ceil(model.n_moe_layers / p)
    held = np.asarray(in_flight_microbatches(schedule, pp, n_microbatches, virtual_stages, 0),
                      dtype=float)
    return scalar_or_array(np.where(np.asarray(full_recompute, dtype=bool), per_layer,
                                    per_layer * layers * held))


def cp_kv_buffer_bytes(model: ModelSpec, seq_len=None, micro_batch_size=1, cp=2, tp=1,
                       method="ring"):
    """Transient K/V bytes one GPU holds in one attention layer under context parallelism.

    * ``"all_gather"`` (Llama 3 §3.3.2): every rank gathers the whole sequence's K and V before
      its attention: 2 (K, V) × s·b × g·d_head × 2 bytes (× the share of KV heads on this TP
      rank, ``kv_heads_per_tp_rank``);
    * ``"ring"`` (Ring Attention, Liu et al. 2023; Megatron-LM CP): K/V blocks of s/cp tokens
      circulate round the ring, one being computed on while the next arrives: 2 blocks
      (double buffering) of 2 × (s/cp)·b × g·d_head × 2 bytes.

    With GQA the all-gather is affordable (g ≪ heads); ring attention's buffer falls as 1/cp.

    Raises
    ------
    ValueError for an unknown method or bad sizes.
    """
    if method not in ("ring", "all_gather"):
        raise ValueError(f"method={method!r} must be 'ring' or 'all_gather'")
    c = _consts(model)
    s = as_array(model.seq_len if seq_len is None else seq_len, "seq_len", positive=True)
    b = as_array(micro_batch_size, "micro_batch_size", positive=True)
    n = as_array(cp, "cp", positive=True, integer=True)
    t = as_array(tp, "tp", positive=True, integer=True)
    kv_token = 2 * c.g * c.dh * 2 * _kv_fraction(c, t)  # K and V, 16-bit, this rank's heads
    tokens = s * b if method == "all_gather" else 2 * s / n * b
    return scalar_or_array(tokens * kv_token)


def cp_causal_imbalance(cp, load_balanced=True):
    """Busiest context-parallel rank's attention work ÷ the mean, with a causal mask.

    Cut a sequence into cp contiguous chunks: under a causal mask chunk r attends to r + ½
    chunks' worth of keys, so the last rank does (cp − ½) / (cp/2) = 2 − 1/cp times the mean.
    Load-balanced CP (Megatron-LM; Llama 3 §3.3.2) cuts the sequence into 2·cp chunks and gives
    rank r chunks r and 2cp − 1 − r, whose work adds up to the same for every rank: 1.
    """
    n = as_array(cp, "cp", positive=True, integer=True)
    return scalar_or_array(np.ones_like(n, dtype=float) if load_balanced else 2 - 1 / n)
