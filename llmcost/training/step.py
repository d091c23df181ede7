"""Step time and predicted MFU: compute + exposed communication + pipeline bubble.

Notebook 01 multiplied FLOPs by an MFU the user had to guess. This module predicts it from the
model, the cluster and the parallel plan, and says where every second of a step goes.

The model (per optimizer step, on the busiest GPU)
--------------------------------------------------
For each pipeline stage and micro-batch, the time of every operation a Megatron-style transformer
layer runs on one GPU is summed:

* **GEMMs** (QKV and output projections, the FFN, the MoE router and experts, the LM head) at the
  roofline ``max(FLOPs / (peak × matmul_fraction), bytes / (HBM bandwidth × hbm_fraction))``:
  a large GEMM runs at the accelerator's measured *maximum achievable matmul* throughput
  (``Efficiency.matmul_fraction``), one too thin to be compute-bound at HBM speed (Williams,
  Waterman, Patterson 2009, "Roofline"). Backward = 2 × forward (input and weight gradients);
  on Hopper the FP8 backward GEMMs run without fast accumulation, × ``gemm.FP8_SLOW_ACCUMULATION``
  (``fp8_split_accumulator``, on by default).
  By default (``gemm_shape``, on) each GEMM's compute time also pays its shape: a fixed kernel
  cost and an inner-dimension overhead fitted to kernel benchmarks (``llmcost.training.gemm``),
  where a table exists (Hopper, Blackwell).
* **Attention core.** With FlashAttention one fused kernel at ``attention_fraction`` of peak; a
  causal kernel skips the masked half of the score matrix, so it executes (s+1)/2 keys per query
  while the MFU basis counts s; its backward re-computes QKᵀ (5 matmuls against the forward's 2,
  Dao 2023 Alg. 2). By default (``attention_curve="flash"``) a FlashAttention stack's kernel
  on Hopper runs at its measured curve by sequence length, head dimension and mask, forward and
  backward (``llmcost.training.attention``, FlashAttention-3 paper's H100 table), at the
  rank's ``s/cp`` under context parallelism with the ring steps' merges priced; the Transformer
  Engine stacks keep the flat fraction (cuDNN's curve with ``attention_curve=True``). Without
  FlashAttention (Megatron-LM 2021–22) the two batched GEMMs QKᵀ and AV run at the roofline, and
  the s×s scores are written, soft-maxed, dropped out and read back from HBM.
* **Memory-bound element-wise work** (LayerNorm/RMSNorm, bias + dropout + residual add, GeLU or
  SwiGLU, RoPE, softmax and dropout on the scores, MoE token permutation, the fp32 cross-entropy of
  the logits, the embedding) as bytes read + written ÷ (HBM bandwidth × hbm_fraction); each op's
  bytes are listed in ``_elementwise_bytes``. Fused kernels as in Megatron-LM (Narayanan et al.
  2021 §4.2): bias + GeLU and bias + dropout + add are one pass each. Under ``fp8_as_run`` (on
  by default; an FP8 step keeps its LM head and router in BF16) the
  quantize / cast / transpose / amax passes of every FP8 GEMM are added
  (``llmcost.training.elementwise.fp8_cast_bytes``, by scaling recipe; on Megatron-Core's
  Transformer Engine layers ``elementwise.te_layer_cast_bytes``: sequence-parallel shards cast
  before the all-gather, the norm's fused FP8 output or amax). Routed experts with output
  biases (gpt-oss) on the Megatron-Core stacks that add them unfused pay
  ``elementwise.expert_bias_bytes`` (``TEGroupedMLP._apply_bias``: three eager passes, four
  with FP32 probabilities, and their backward over the routed tokens × h, FP32 under DeepEP /
  HybridEP's FP32 probabilities); a clamped gated activation (gpt-oss, ``ModelSpec.glu_limit``)
  on the same stacks pays ``elementwise.clamped_glu_bytes`` (the eager clamp and concatenation
  before the fused activation, and their backward, over the routed tokens × the fc1 width).
* **MoE layers' host-bound cost** (``moe_host_s``): per MoE layer and micro-batch, the router,
  dispatch bookkeeping ending in a host-device sync (dropless routing only: a token-dropping
  router padded to capacity has none, ``moe_layer.sync_applies``), and (on stacks that launch
  per expert) the
  grouped GEMM's per-local-expert launches, serial with the layer's compute
  (``moe_layer.moe_host_overhead_s``: two constants fitted on the MoE calibration rows only,
  ``calibrate_moe_host_overhead``).
* **Recomputation** adds the forward pass of every layer (``full``, and its TP collectives) or of
  the attention core (``selective``) before the backward pass (Korthikanti et al. 2022 §5); on a
  stack whose selective policy is torchtitan's op-level one (``every_other_mm``) selective
  re-runs every second matrix multiply and the element-wise ops instead, the attention core's
  output being saved (``_every_other_mm_time``).
* **Communication** from ``llmcost.comm`` (alpha-beta, two-level topology), with these
  **overlap rules**:

  - TP: forward collectives are exposed; with ``tp_overlap="backward"`` the backward ones that
    Megatron-LM overlaps are hidden behind the column-parallel layers' GEMMs (the input-gradient
    all-reduce, or with sequence parallelism the input re-gather and gradient reduce-scatter,
    against the weight- and input-gradient GEMMs), while sequence parallelism's 2 synchronous
    backward all-gathers stay exposed; ``"all"`` also overlaps the forward (as Transformer
    Engine's userbuffers); ``"none"``: all exposed.
  - CP: all-gather of K and V (Llama 3 §3.3.2), exposed; or, on a stack running Transformer
    Engine's ring (``StepOptions.cp_overlap``), each ring step's transfer hidden behind the
    previous step's attention compute (``cp_exposure``); on a stack running PyTorch's
    ``context_parallel`` (torchtitan) its ring as it runs: one all-gather hidden by the first
    ring step only, fp32 merges and gradient buffers, the dK/dV ring in fp32, K and V of all
    query heads (``torch_ring_exposure``, ``attention.torch_ring_bytes``; traced by
    ``torch.compile``, ``StepOptions.cp_ring_compiled``, every exchange exposed). EP: all-to-all,
    exposed, or with
    ``ep_overlap="dualpipe"`` (DeepSeek-V3's DualPipe) hidden behind the layer's compute at the
    price of the SMs it takes (``ep_exposure``); its bytes and the busiest rank's expert GEMMs
    scale by the routing factor (capacity factor or dropless imbalance,
    ``comm.moe_routing_factor``).
  - PP: each micro-batch sends one activation and one gradient per model chunk; blocking
    (exposed) unless ``pp_overlap``. Either way the pipeline fill and drain wait for them: the
    first micro-batch crosses p·v − 1 chunk boundaries forward and as many backward.
  - DP: every DP / ZeRO collective is timed by NCCL's own cost model
    (``comm.nccl_collective_time``: ring latency growing with ranks and nodes, LL128 / Simple,
    the tree for all-reduce; the bandwidth the message size achieves at that scale). With
    ``dp_overlap`` the gradient reduction overlaps the backward pass (of the last micro-batch
    for ZeRO-0/1, of each micro-batch for ZeRO-2) and the ZeRO-1/2 weight all-gather the first
    forward; on a PyTorch FSDP stack ZeRO-2 is FSDP's SHARD_GRAD_OP, priced as ZeRO-3 whose
    gathered weights stay for the backward (``fsdp_zero_stage``). ZeRO-3 / FSDP is priced layer
    by layer (``comm.fsdp_exposure``): each layer's
    gather (in the stack's ``fsdp_collectives_per_layer`` collectives, over the NICs as the
    stack's ``fsdp_nic_aggregation`` says) hides behind the previous layer's compute when the
    stack prefetches (``fsdp_prefetch_layers`` >= 1), the backward link carries the re-gathers
    and the reduce-scatter, the first gather and the last reduce-scatter are exposed, and the
    overlapped span costs the measured contention ``comm.OVERLAP_SLOWDOWN`` (18.9%). Hybrid
    sharding (HSDP, ``ParallelPlan.fsdp_shard_size``) runs those per-layer collectives inside the
    shard group and adds one all-reduce of each rank's gradient shard across the replicas per
    step, overlapped like ZeRO-0's gradient all-reduce (``zero_exposure``). Without
    ``dp_overlap`` everything is exposed.
* **Pipeline**: the busiest stage sets the pace in the steady state (the last stage also runs the
  LM head and loss, the first the embedding: ``stage_imbalance_s``); the bubble is
  ``bubble_fraction(p, m, schedule, v)`` × m × the average stage's micro-batch time, since the
  fill and drain pass through every stage once ((p−1)/v micro-batch slots for 1F1B and
  interleaved 1F1B, Narayanan et al. 2021 §2.2).
* **Optimizer step**: memory-bound, the bytes of Megatron-LM's optimizer passes per parameter of
  the rank's optimizer shard (``optimizer_bytes_per_param``), once per step.
* **Stragglers**: a synchronous step waits for its slowest GPU. Identical GPUs differ in
  sustained speed by σ = 1.48% (Sinha et al. SC22's 8% spread, ``llmcost.straggler``), so the
  compute time grows by ``σ·(e(N) − e(8))``, e(N) the expected maximum of N standard normals
  and 8 the GPUs on which ``KERNEL_EFFICIENCY`` was fitted (``add_straggler``,
  ``straggler_s``; ``straggler=False`` turns it off).

**The engine in parts.** ``step_arrays`` composes pure, array-valued functions, each with its
formula and source in its docstring and its own test (``tests/test_step_parts.py``):
``layer_compute`` (kernel times of one layer), ``tp_exposure`` (TP overlap rules),
``layer_totals`` (forward + backward + recompute by category), ``zero_exposure`` (DP/ZeRO
windows), ``optimizer_time`` and ``compose_pipeline`` (stage averages, imbalance, bubble, fill
P2P), ``merged_p2p_exposure`` (the steady-state P2P of Megatron-Core's merged 1F1B on an
interleaved pipeline, added to ``pp_comm_s``). The shapes they read (``ModelShapes``, per-rank parameters) are ``llmcost.shapes``.
Every setting of a step (overlap modes, stack features, MoE dispatch, straggler, HSDP, dtype,
efficiency) is one ``options.StepOptions`` (Calculon's ``Execution`` as the model), resolved
once per call for the accelerator (``StepOptions.resolve``) and read by the engine functions;
``step_time`` / ``rank_plans`` / ``step_arrays`` take ``options=`` or the same settings as
keywords.

``step time = matmul + attention + memory-bound + recompute + straggler wait + exposed TP + CP
+ EP + MoE host + PP communication + stage imbalance + bubble + exposed DP communication + optimizer``;
the parts of ``StepBreakdown`` add up to ``step_time_s`` exactly (a test checks it).

**Predicted MFU** = model FLOPs per step ÷ (step time × n_gpus × dense peak), model FLOPs on the
workbook's MFU basis (``ModelSpec.flops_per_token(seq_len, causal=False)``, no recomputation;
``llmcost.compute``). HFU adds the recomputed FLOPs (``flops_per_token(..., recompute=...)``).

Constants: ``data/efficiency.csv`` (``catalog.load_efficiency``), one row per accelerator, each
figure with its source: measured GEMM and NCCL bandwidth fractions, FlashAttention fractions from
its papers (the A100 one a judgement within the published range), Calculon's HBM fraction, and
assumed values, flagged as such, for accelerators without measurements; none fitted to a
training run. And one calibrated, global constant, ``KERNEL_EFFICIENCY``: the share of those burst
kernel rates a real training step sustains, fitted to the per-layer timings of Korthikanti et al.
2022 Table 4 (``calibrate_kernel_efficiency`` re-derives it), never to an end-to-end MFU.
``benchmarks/validate_mfu.py`` and ``mfu_validation`` compare the predictions with every set of
``data/validation_mfu.csv`` (Megatron-LM 2021 Tables 1 and 2, Korthikanti et al. 2022 Table 5,
Llama 3 Table 4 and NeMo AutoModel on H100, DeepSpeed's 2021 ZeRO-3), each row marked
calibration (Korthikanti's 22B row runs the calibration's layer) or held-out; ``set_summary``
gives n, mean and max error per set and split, and ``llmcost.accuracy`` turns the held-out
errors into a band on every prediction. Software features (FlashAttention version, overlaps,
schedules) come from a dated stack profile (``llmcost.stacks``).

**Limits.** ZeRO-3: the held-out DeepSpeed 2021 rows (Narayanan et al. 2021 Table 2, 530B)
are reproduced to −10% … +18% (the 175B rows chose the stack's ``fsdp_nic_aggregation``); where
gathers and compute take about as long (384 and 640 GPUs) the model is 12–18% too fast. For
FSDP2 one H100 row (NeMo AutoModel) is the only evidence, so ``rank_plans`` still marks ZeRO-3
rows ``upper_bound`` and ``choose_plan`` takes ZeRO-3 only when it wins with its step
lengthened by ``parallel.ZERO3_STEP_MARGIN`` (the calibration FSDP rows' 90 % upper error) or
nothing else fits. Data loading,
kernel-launch latency, per-step jitter, slow links and hosts, and failures are not modelled
(notebook 07 prices failures); the straggler term is the bulk spread of persistent per-GPU
speed after outliers are drained, measured on V100 / MI60 clusters and applied to every
generation (``llmcost.straggler``). DualPipe's own bubble,
``(PP/2 − 1)(F&B + B − 3W)``, is not modelled: a DualPipe plan is priced with the schedule it
names. HSDP: the replicas' gradient all-reduce hides behind the last backward pass less the
time the shard group's own traffic holds the same NICs (``zero_exposure``), a bandwidth-sharing
estimate, not a measured one; no published HSDP throughput is in the validation table. The MoE
dispatch follows the stack (``moe_dispatch``: k copies per token, or one network copy per
destination node as DeepSeek-V3 and DeepEP send, with the routing's locality from
``comm.moe_destinations``, node-limited for DeepSeek-V3); FSDP2's ``reshard_after_forward``
(``fsdp_backward_gathers``) and the pipeline schedules per optimizer step
(``pipeline_flushes``, ``compose_pipeline``) are options. torch.distributed.pipelining's
per-schedule FSDP gather and reduce-scatter (it defers the reshard and gradient sync to a
schedule's last backward) is not modelled: with PP and FSDP2 the ZeRO-3 time is an upper bound.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, fields

import numpy as np
import pandas as pd

from ..core import stacks
from ..core.catalog import as_model, load_efficiency
from ..core.hardware import Cluster, Efficiency, as_cluster
from ..core.model import ModelSpec
from ..core.moved import moved_names
from ..core.shapes import (
    SCHEDULES,
    check_plan_arrays,
    edge_params,
    expert_tp,
    kv_fraction,
    layer_params,
    model_shapes,
    plan_axes,
    schedule_code,
    shard_group_arrays,
)
from ..core.stacks import DEFAULT_STACK, GENERATIONS  # noqa: F401  (GENERATIONS re-exported)
from ..core.units import as_array, as_scalar, as_flag, options_with
from . import attention, comm, elementwise, moe_layer
from .memory import (get_recipe, in_flight_microbatches, memory_per_gpu, stage_candidates,
                     stage_layers)
from .options import (KERNEL_EFFICIENCY, ResolvedOptions, StepOptions,  # noqa: F401
                      stack_memory_practice)  # (KERNEL_EFFICIENCY re-exported)
from .parallel import ParallelPlan, bubble_fraction
from .straggler import straggler_slowdown

TP_OVERLAP = ("none", "backward", "all")

#: The parts of a step, in display order. They add up to ``step_time_s``.
PARTS = ("matmul_s", "attention_s", "memory_bound_s", "recompute_s", "straggler_s", "tp_comm_s",
         "cp_comm_s", "ep_comm_s", "moe_host_s", "pp_comm_s", "stage_imbalance_s",
         "pipeline_bubble_s", "dp_comm_s", "optimizer_s")

PART_NOTES = {
    "matmul_s": "GEMMs (projections, FFN, experts, LM head) at the achievable matmul rate",
    "attention_s": "attention core (QKᵀ, AV): FlashAttention kernel or batched GEMMs",
    "memory_bound_s": "element-wise kernels, softmax, cross-entropy at HBM speed",
    "recompute_s": "forward work re-run before the backward pass",
    "straggler_s": "waiting for the slowest GPU beyond the 8-GPU runs the kernel constant was "
                   "fitted on: compute × σ·(e(N) − e(8)), below 0 under 8 GPUs "
                   "(llmcost.straggler)",
    "tp_comm_s": "tensor-parallel collectives not hidden behind GEMMs",
    "cp_comm_s": "context-parallel K/V all-gathers",
    "ep_comm_s": "expert-parallel all-to-all (dispatch and combine)",
    "moe_host_s": "MoE layers' host-bound fixed cost per micro-batch: router, dispatch "
                  "bookkeeping and its sync, per-expert launches (llmcost.training.moe_layer)",
    "pp_comm_s": "activations and gradients sent between pipeline stages",
    "stage_imbalance_s": "the busiest stage's extra work (LM head, embedding, uneven layers)",
    "pipeline_bubble_s": "pipeline fill and drain: (p−1)/v micro-batch slots",
    "dp_comm_s": "data-parallel / ZeRO gradient and weight traffic not hidden",
    "optimizer_s": "the optimizer step (memory-bound)",
}

_COMPUTE_PARTS = ("matmul_s", "attention_s", "memory_bound_s", "recompute_s")

#: ``KERNEL_EFFICIENCY`` (imported from ``options``, where the engine applies it once): the
#: share of the burst kernel rates (``Efficiency`` matmul, attention and HBM fractions,
#: measured on one GPU in short runs) that the kernels of a real training step sustain: clocks
#: settling at the power limit, launch gaps between the ~100 kernels of a layer, shapes that are
#: not the benchmark's best. The one calibrated constant of the model (see
#: ``calibrate_kernel_efficiency``): fitted to the per-layer forward and backward times of
#: Korthikanti et al. 2022 Table 4 (a 22B layer on 8 A100s, five recompute/SP settings), then
#: held fixed for every prediction. No end-to-end MFU is used to set it. **Owner: part 1 of
#: the step-time model III (kernel efficiency and FP8)**, which replaces it by per-operation
#: kernel curves; part 2 (MoE, memory, stacks, hardware) and the pilot calibration's
#: ``Efficiency`` must not count it again.


# ----------------------------------------------------------------------------- building blocks
_BOOLS = (bool, np.bool_)


def _pick(cond, a, b):
    """``np.where(cond, a, b)``. For one plan (``cond`` one bool, ``a`` and ``b`` numbers or 0-d
    arrays) picked in Python: ``a`` or ``b`` itself, the same number without numpy's call (the
    engine prices a single plan through the same array functions as a plan search)."""
    if (cond.__class__ in _BOOLS or (cond.__class__ is np.ndarray and cond.ndim == 0
                                     and cond.dtype == bool)) \
            and getattr(a, "ndim", 0) == 0 and getattr(b, "ndim", 0) == 0:
        return a if cond else b
    return np.where(cond, a, b)


def optimizer_bytes_per_param(recipe) -> float:
    """HBM bytes the optimizer step reads and writes per parameter of its shard.

    The passes of Megatron-LM's mixed-precision optimizer (``optimizer.step``): with a separate
    fp32 main-gradient copy (fp16 training) copy the 16-bit gradients into it (read + write),
    unscale and check for inf/NaN (read + write); compute the gradient norm (read); Adam reads the
    gradient, master weights and moments and writes master weights and moments; copy the master
    weights into the working weights (read the master, write the working-weight bytes); zero the
    gradient buffer (write).

    Parameters
    ----------
    recipe : str or PrecisionRecipe

    Returns
    -------
    float (bytes per parameter).
    """
    r = get_recipe(recipe)
    grad = max(r.grads_bytes, r.main_grads_bytes)
    copy = (r.grads_bytes + r.main_grads_bytes + 2.0 * r.main_grads_bytes) \
        if r.main_grads_bytes else 0.0
    norm = grad
    adam = 2.0 * (r.master_bytes + r.optimizer_bytes) + grad
    # the master-to-working cast (none when the sharded master is the parameter, FSDP2: the
    # all-gather casts; PrecisionRecipe.sharded_master)
    cast = (r.master_bytes + r.weights_bytes) if (r.master_bytes and not r.sharded_master) \
        else 0.0
    zero = r.grads_bytes
    return float(copy + norm + adam + cast + zero)


def _gemm_time(m, k, n, peak, eff: Efficiency, hbm_bw, shape=None, launches=1.0):
    """Roofline time of one (m×k)·(k×n) GEMM with 16-bit operands: ``max(compute, bytes /
    (HBM · hbm_fraction))``, compute ``2mkn / (peak · matmul_fraction)`` or, with a ``shape``
    term (``gemm.GemmShape``), ``t0/launches + 2mkn / (peak · matmul_fraction) · (1 + k0/k)``
    (``gemm.gemm_time_s``; ``launches`` GEMMs of one grouped kernel share its fixed cost)."""
    flops = 2.0 * m * k * n
    bytes_ = 2.0 * (m * k + k * n + m * n)
    compute = flops / (peak * eff.matmul_fraction)
    if shape is not None:
        compute = shape.t0_s / launches + compute * (1.0 + shape.k0 / k)
    return np.maximum(compute, bytes_ / (hbm_bw * eff.hbm_fraction))


def _elementwise_bytes(c, x, xs, tp, s_keys, flash, dropout, rope, kvf):
    """HBM bytes of the element-wise work of one dense layer per micro-batch on one rank.

    x: tokens per micro-batch on the rank (b·s/cp); xs: tokens in the sequence-parallel regions
    (x/tp with SP, else x). Returns (forward, backward, attention-core forward, core backward).
    16-bit activations (2 B), 1-byte dropout masks.

    Forward: two norms (read + write, 4 B per element each); two bias + dropout + residual adds
    (read two inputs, write one: 6 B, + 1 B mask with dropout); the activation function on the
    FFN hidden state (GeLU read + write 4 B; SwiGLU reads gate and up, writes one: 6 B); RoPE on
    Q and K (read + write). Backward: norms read input and output-gradient, write the input
    gradient (6 B each); the residual/dropout backward 4 B (+1 mask); activation backward reads
    its input(s) and the output gradient and writes the input gradient(s) (GeLU 6 B, SwiGLU 10 B).
    Attention core without FlashAttention, per score element: softmax 4 B forward (read, write)
    and 6 B backward; dropout 5 B forward and 5 B backward. With FlashAttention the scores never
    reach HBM.
    """
    h, f = c.h, c.f
    mask = 1.0 if dropout else 0.0
    act_f = (6.0 if c.gated else 4.0) * x * f / tp
    act_b = (10.0 if c.gated else 6.0) * x * f / tp
    qk = x * (c.a * c.dqk / tp + c.g * c.dh * kvf)
    rope_fb = 4.0 * qk if rope else 0.0
    fwd = 2 * 4.0 * xs * h + 2 * (6.0 + mask) * xs * h + act_f + rope_fb
    bwd = 2 * 6.0 * xs * h + 2 * (4.0 + mask) * xs * h + act_b + rope_fb
    if flash:
        core_f = core_b = 0.0 * x
    else:
        scores = x * c.a / tp * s_keys
        core_f = (4.0 + 5.0 * mask) * scores
        core_b = (6.0 + 5.0 * mask) * scores
    return fwd, bwd, core_f, core_b


# ----------------------------------------------------------------------------- the parts
@dataclass(frozen=True)
class LayerGeometry:
    """The arrays of a batch of plans that ``layer_compute`` reads: sequence length ``s``,
    tokens per micro-batch on a rank ``x`` (``xs``: per TP rank under sequence parallelism),
    ``tp``, ``ep``, ``cp`` (floats), micro-batch size ``mbs``, the rank's KV-head share
    ``kvf`` (``shapes.kv_fraction``) and the expert tensor-parallel size ``etp`` (floats,
    ``shapes.expert_tp``; None: ``tp``)."""

    s: float
    x: object
    xs: object
    tp: object
    ep: object
    cp: object
    mbs: object
    kvf: object
    etp: object = None


@dataclass(frozen=True)
class KernelRates:
    """The rates kernels run at: the GEMM ``peak`` (FLOP/s, the step's dtype), ``peak16`` (the
    16-bit peak, attention), ``hbm`` (bytes/s) and ``keff`` (sustained fractions,
    ``Efficiency`` × ``KERNEL_EFFICIENCY``) and ``gemm_shape`` (the GEMMs' shape term,
    ``gemm.GemmShape``, or None for the flat ``matmul_fraction``); ``edge_peak`` and
    ``edge_gemm_shape`` the MoE router's (``StepOptions.fp8_as_run``; None: as the others),
    ``edge_backward_gemm`` its backward GEMMs' time over the forward rate (the step's
    ``fp8_backward_gemm`` when the router runs in FP8, else 1; None: 1 where ``edge_peak`` is
    given, a BF16 router, else ``fp8_backward_gemm``);
    ``attention`` the attention core's curve (``attention.KernelCurve``, sustained; None: the
    flat ``keff.attention_fraction``); ``fp8_casts`` the FP8 recipe whose casts are priced
    (``elementwise.FP8_RECIPES``; None: no casts); ``fp8_weight_share`` the share of the weight
    casts paid per micro-batch (``elementwise.fp8_cast_bytes``), ``fp8_transpose`` whether a
    per-tensor FP8 cast also writes a transposed copy (False on Blackwell,
    ``elementwise.FP8_NATIVE_COLUMNWISE``); ``fp8_te_layers`` whether the layers' casts are
    Transformer Engine's (``elementwise.TE_LINEAR_STACKS``, ``_layer_casts``); ``fp8_backward_gemm`` the backward FP8 GEMMs' time
    over the forward rate (``StepOptions.fp8_split_accumulator``, ``gemm.fp8_backward_slowdown``;
    1: backward = 2 × forward); ``cp_ring`` whether context parallelism runs as a
    ring of attention steps whose partial outputs are merged (``StepOptions.cp_overlap``);
    ``cp_torch_ring`` whether it is PyTorch's ring with its fp32 merges and gradient
    accumulators (``attention.torch_ring_bytes``, ``StepOptions.cp_overlap="torch_ring"``),
    ``cp_repeat_kv`` whether its K and V carry all query heads (``StepOptions.cp_repeat_kv``);
    ``ring_unmasked`` the kernel whose H100 curves price a ring's non-causal calls at their
    unmasked rate (``StepOptions.ring_unmasked``, ``attention.ring_unmasked_factors``; None: every
    call at the causal rate);
    ``expert_bias_probs`` the routing probabilities' bytes (2 or 4) where the experts' output
    bias runs unfused (``expert_bias_probs_bytes``), 0 where it does not; ``glu_clamp`` whether
    the routed experts' gated activation is clamped in eager PyTorch first
    (``elementwise.clamped_glu_bytes``: ``ModelSpec.glu_limit`` on ``CLAMPED_GLU_STACKS``);
    ``attention_unpad`` whether the padding is removed around a variable-length FlashAttention
    call (``StepOptions.attention_unpad``, ``elementwise.unpadded_attention_bytes``)."""

    peak: float
    peak16: float
    hbm: float
    keff: Efficiency
    gemm_shape: object = None
    edge_peak: float | None = None
    edge_gemm_shape: object = None
    edge_backward_gemm: float | None = None
    attention: object = None
    fp8_casts: str | None = None
    fp8_weight_share: object = 1.0
    fp8_transpose: bool = True
    fp8_te_layers: bool = False
    fp8_backward_gemm: float = 1.0
    cp_ring: bool = False
    cp_torch_ring: bool = False
    cp_repeat_kv: bool = False
    ring_unmasked: str | None = None
    expert_bias_probs: float = 0.0
    glu_clamp: bool = False
    attention_unpad: bool = False


def expert_bias_probs_bytes(c, stack: str, moe_dispatch: str) -> float:
    """The bytes of a routing probability in Megatron-Core's unfused expert-bias passes
    (``elementwise.expert_bias_bytes``), or 0 where there are none: 0 without expert biases
    (``c.expert_rep``: the routed experts' replicated fc2 biases, ``bias == "all"``) or on a
    stack that fuses them (not in ``elementwise.UNFUSED_EXPERT_BIAS_STACKS``); 4 (FP32) under
    the DeepEP / HybridEP dispatch (``moe_dispatch == "per_node"``), else 2 (BF16)."""
    if not (c.is_moe and c.expert_rep > 0) or stack not in elementwise.UNFUSED_EXPERT_BIAS_STACKS:
        return 0.0
    return 4.0 if moe_dispatch == "per_node" else 2.0


def layer_compute(model: ModelSpec, c, g: LayerGeometry, rates: KernelRates, *, flash_attention,
                  dropout, moe_factor=1.0) -> dict:
    """Kernel times of one transformer layer for one micro-batch on one rank (no communication).

    Formulas (per layer, ``x = b·s/cp`` tokens on the rank, ``t = tp``):

    * GEMM roofline (Williams, Waterman, Patterson 2009): an (m×k)·(k×n) GEMM with 16-bit
      operands takes ``max(2mkn / (peak·matmul_fraction), 2(mk + kn + mn) / (HBM·hbm_fraction))``
      (``_gemm_time``). Forward GEMMs: QKV ``x × h × (attention weights per rank − a·d_v·h/t)/h``,
      output projection ``x × a·d_v/t × h``, FFN ``x × h × (2 if gated)·f/t`` and ``x × f/t × h``;
      MoE layers add the router ``x × h × E``, the shared experts and ``E/ep`` local experts of
      ``max(x_e·k·ep/E, 1) × moe_factor`` tokens each at width ``f_e/etp`` (``x_e = x·etp/tp``
      the tokens of the rank's expert-TP group, ``_moe_compute``; the busiest EP rank: capacity
      factor or dropless imbalance, ``comm.moe_routing_factor``). Backward = 2 × forward, × the FP8
      backward factor ``f = rates.fp8_backward_gemm`` for the GEMMs that run in FP8 (Hopper's
      split accumulator, ``gemm.FP8_SLOW_ACCUMULATION``; the router's ``f_r =
      rates.edge_backward_gemm``, 1 when it runs in BF16 under ``fp8_as_run``):
      ``gemm_b_dense = 2f·G_dense``, ``gemm_b_moe = 2f·(G_moe − router) + 2·f_r·router``. With ``rates.gemm_shape`` (``StepOptions.gemm_shape``) each GEMM's compute
      time is ``t0 + 2mkn / (peak·matmul_fraction) · (1 + k0/k)`` (``gemm.gemm_time_s``, kernel
      benchmarks by shape), the local experts sharing one ``t0`` (a grouped GEMM).
    * Attention core with FlashAttention: ``2·x·(a/t)·(d_qk + d_v)·keys`` FLOPs at
      ``peak16 · attention_fraction``, ``keys = ModelSpec.mean_attended_keys(s, causal=True)``
      = (s+1)/2 (a causal kernel skips the masked half); backward 2.5 × forward (5 matmuls against
      the forward's 2, Dao 2023 Alg. 2). Without it (Megatron-LM 2021–22) two batched GEMMs QKᵀ
      and AV per head and sequence over all s keys at the roofline, backward 2 × forward.
    * Memory-bound work: ``_elementwise_bytes`` (with ``rates.attention_unpad``, plus
      ``_unpadded``'s copies) ÷ (HBM · hbm_fraction); MoE layers replace the
      dense FFN's activation bytes by the experts' (k + shared) widths and add the token
      permutation, permute + unpermute read + write ``2·2·2·r·h`` bytes, the activations and the
      permutation over the rank's routed tokens ``r`` = its local experts × their tokens, as its
      expert GEMMs count them (``x·k·moe_factor``), and, for experts with
      output biases on a stack that applies them unfused, ``elementwise.expert_bias_bytes`` of
      the rank's routed tokens × h (Megatron-Core ``TEGroupedMLP._apply_bias``), and for a
      clamped gated activation there ``elementwise.clamped_glu_bytes`` of the routed tokens ×
      the fc1 width.

    ``keff`` carries the sustained rates (burst fractions × ``KERNEL_EFFICIENCY``).

    Returns
    -------
    dict of arrays (seconds): ``t_qkv``, ``t_fc1`` (the column-parallel GEMMs), ``t_fc2``
    (the FFN's down projection, the layer's last GEMM),
    ``gemm_f_dense``, ``gemm_b_dense``, ``t_sac_mm`` (``_every_other_mm_time``), ``t_core_f``,
    ``t_core_b``, ``ew_f_t``, ``ew_b_t``, ``core_ew_f_t``, ``core_ew_b_t`` and, for MoE models,
    ``gemm_f_moe``, ``gemm_b_moe``, ``ew_f_moe``, ``ew_b_moe`` (zeros for dense models).
    """
    x, xs, tp, ep, kvf = g.x, g.xs, g.tp, g.ep, g.kvf
    peak, hbm, keff, gs = rates.peak, rates.hbm, rates.keff, rates.gemm_shape
    attn_w = c.attn_split / tp + c.attn_kv * kvf + c.attn_rep      # attention weights per rank
    out_n = c.a * c.dv / tp                                          # output-projection K
    qkv_n = np.maximum(attn_w - out_n * c.h, 1.0) / c.h             # QKV projection's N
    t_qkv = _gemm_time(x, c.h, qkv_n, peak, keff, hbm, gs)
    t_attn_proj = t_qkv + _gemm_time(x, out_n, c.h, peak, keff, hbm, gs)
    ffn_mult = 2.0 if c.gated else 1.0
    t_fc1 = _gemm_time(x, c.h, ffn_mult * c.f / tp, peak, keff, hbm, gs) if c.f else 0.0 * x
    t_fc2 = _gemm_time(x, c.f / tp, c.h, peak, keff, hbm, gs) if c.f else 0.0 * x
    t_ffn = t_fc1 + t_fc2
    t_core_f, t_core_b, keys, ring_f, ring_b = _attention_core(model, c, g, rates,
                                                              flash_attention)
    ew_f, ew_b, core_ew_f, core_ew_b = _elementwise_bytes(
        c, x, xs, tp, keys, flash_attention, dropout, model.pos_encoding == "rope", kvf)
    ew_f, ew_b = _unpadded(c, x, tp, kvf, ew_f, ew_b) if rates.attention_unpad else (ew_f, ew_b)
    core_ew_f, core_ew_b = core_ew_f + ring_f, core_ew_b + ring_b
    casts_attn = _layer_casts(rates, g, (c.h, qkv_n), (out_n, c.h), te=not c.mla)
    casts_ffn = _layer_casts(rates, g, (c.h, ffn_mult * c.f / tp), (c.f / tp, c.h)) \
        if c.f else (0.0, 0.0)
    ew_f, ew_b = ew_f + casts_attn[0] + casts_ffn[0], ew_b + casts_attn[1] + casts_ffn[1]
    bw_e = hbm * keff.hbm_fraction
    out = {"t_qkv": t_qkv, "t_fc1": t_fc1, "t_fc2": t_fc2, "gemm_f_dense": t_attn_proj + t_ffn,
           "gemm_b_dense": 2.0 * rates.fp8_backward_gemm * (t_attn_proj + t_ffn),
           "t_attn_dw": rates.fp8_backward_gemm * t_attn_proj,
           "t_sac_mm": _every_other_mm_time(c, x, kvf, tp, out_n, rates),
           "t_core_f": t_core_f, "t_core_b": t_core_b, "ew_f_t": ew_f / bw_e,
           "ew_b_t": ew_b / bw_e, "core_ew_f_t": core_ew_f / bw_e, "core_ew_b_t": core_ew_b / bw_e}
    if c.is_moe:
        out.update(_moe_compute(c, x, tp, ep, rates, moe_factor, t_attn_proj, (ew_f, ew_b),
                                casts_ffn, tp if g.etp is None else g.etp))
    else:
        out["gemm_f_moe"] = out["gemm_b_moe"] = out["ew_f_moe"] = out["ew_b_moe"] = 0.0 * x
    return out


def _unpadded(c, x, tp, kvf, ew_f, ew_b) -> tuple:
    """A dense or MoE layer's element-wise bytes ``(ew_f, ew_b)`` plus the copies that remove
    and restore the padding around a variable-length FlashAttention call
    (``elementwise.unpadded_attention_bytes``) of the rank's Q (``x·a·d_qk/tp``), K
    (``x·g·d_qk·kvf``), V (``x·g·d_v·kvf``) and output (``x·a·d_v/tp``)."""
    f, b = elementwise.unpadded_attention_bytes(
        x * c.a * c.dqk / tp, x * c.g * c.dqk * kvf, x * c.g * c.dv * kvf, x * c.a * c.dv / tp)
    return ew_f + f, ew_b + b


def _every_other_mm_time(c, x, kvf, tp, out_n, rates: KernelRates):
    """Forward time of the matrix multiplies a dense layer re-runs under torchtitan's op-level
    selective activation checkpointing (``Stack.selective_policy == "every_other_mm"``).

    torchtitan ``parallelize_llama.py`` ``_apply_ac_to_transformer_block`` (selective_ac_option
    ``"op"``): the policy saves the outputs of the ops in ``_save_list`` (``aten.mm``, the SDPA
    flash and efficient kernels, the reduce-scatter, ``aten.max``) "except every second mm",
    counting the block's mm's in forward order: wq (1), wk (2), wv (3), wo (4), w1 (5), w3 (6),
    w2 (7) for a gated FFN (``w2(silu(w1(x)) * w3(x))``), wq, wk, wv, wo, w1, w2 for a plain
    one. Re-run in the backward: wk ``x × h × g·d_h·kvf``, wo ``x × a·d_v/t × h`` and the
    FFN's second mm, w3 ``x × h × f/t`` (gated) or w2 ``x × f/t × h``; every other op (norms,
    RoPE, the activation) is not saved and re-runs too (``layer_totals``); the attention
    core's output is saved and does not. 0 for MLA layers (their projections are counted
    otherwise; ``_layer_parts`` prices the classic selective recomputation there)."""
    if c.mla:
        return 0.0 * x
    peak, hbm, keff, gs = rates.peak, rates.hbm, rates.keff, rates.gemm_shape
    t_wk = _gemm_time(x, c.h, np.maximum(c.g * c.dh * kvf, 1.0), peak, keff, hbm, gs)
    t_wo = _gemm_time(x, out_n, c.h, peak, keff, hbm, gs)
    if not c.f:
        return t_wk + t_wo
    t_ffn = _gemm_time(x, c.h, c.f / tp, peak, keff, hbm, gs) if c.gated \
        else _gemm_time(x, c.f / tp, c.h, peak, keff, hbm, gs)
    return t_wk + t_wo + t_ffn


def _moe_compute(c, x, tp, ep, rates: KernelRates, moe_factor, t_attn_proj, ew, casts_ffn,
                 etp):
    """An MoE layer's GEMM and memory-bound times (``layer_compute``'s docstring gives the
    formulas): ``gemm_f_moe``, ``gemm_b_moe``, ``ew_f_moe``, ``ew_b_moe``; ``ew`` the dense layer's element-wise
    bytes (forward, backward), ``casts_ffn`` its FFN's FP8 cast bytes, both replaced by the
    experts'.

    ``etp``: the routed experts' tensor-parallel size (``shapes.expert_tp``). An expert-TP group
    of ``etp`` ranks holds ``x_e = x·etp/tp`` tokens (the sequence-parallel shards of its
    ranks; ``x`` at etp = tp, each rank's own ``x/tp`` at etp = 1, MoE parallel folding), sends
    them over the EP group, and each local expert receives ``x_e·k·ep/E`` tokens of width
    ``f_e/etp``; the shared experts keep the attention's TP (``f_e/tp`` over ``x`` tokens). The
    rank's expert FLOPs, ``x·k·f_e/tp``, are the same at either size."""
    peak, hbm, keff, gs = rates.peak, rates.hbm, rates.keff, rates.gemm_shape
    ffn_mult = 2.0 if c.gated else 1.0
    fe = c.fe
    x_e = x * etp / tp                       # tokens of the rank's expert-TP group
    # tokens per local expert on the busiest EP rank (comm.moe_routing_factor)
    tok_exp = np.maximum(x_e * c.k * ep / max(c.E, 1), 1.0) * moe_factor
    n_local = max(c.E, 1) / ep
    # the local experts run as one grouped GEMM per projection: one fixed kernel cost
    t_exp = n_local * (_gemm_time(tok_exp, c.h, ffn_mult * fe / etp, peak, keff, hbm, gs,
                                  n_local)
                       + _gemm_time(tok_exp, fe / etp, c.h, peak, keff, hbm, gs, n_local))
    t_shared = c.ns * (_gemm_time(x, c.h, ffn_mult * fe / tp, peak, keff, hbm, gs)
                       + _gemm_time(x, fe / tp, c.h, peak, keff, hbm, gs)) if c.ns else 0.0 * x
    # the router: BF16 under fp8_as_run (DeepSeek-V3 §3.3.1), else as the other GEMMs
    t_router = _gemm_time(x, c.h, max(c.E, 1), rates.edge_peak or peak, keff, hbm,
                          rates.edge_gemm_shape if rates.edge_peak else gs)
    # the routed tokens of the busiest EP rank, as its expert GEMMs count them (x_e·k·moe_factor
    # when x_e·k·ep/E >= 1): its activations and permutations run over the same tokens
    routed = tok_exp * n_local
    # dense FFN activation bytes replaced by the experts' (routed + shared) widths
    act_dense = ((6.0 if c.gated else 4.0) * x * c.f / tp,
                 (10.0 if c.gated else 6.0) * x * c.f / tp)
    act_moe = ((6.0 if c.gated else 4.0) * (routed / etp + x * c.ns / tp) * fe,
               (10.0 if c.gated else 6.0) * (routed / etp + x * c.ns / tp) * fe)
    perm = 2 * 2.0 * 2 * routed * c.h        # permute + unpermute, read + write, 2 B
    # the experts' output bias, unfused (Megatron-Core TEGroupedMLP._apply_bias), over the
    # rank's routed tokens x h
    bias = elementwise.expert_bias_bytes(routed * c.h, rates.expert_bias_probs) \
        if rates.expert_bias_probs else (0.0, 0.0)
    # a clamped gated activation's eager clamp over the routed experts' fc1 output
    clamp = elementwise.clamped_glu_bytes(routed * ffn_mult * fe / etp) \
        if rates.glu_clamp else (0.0, 0.0)
    # FP8 casts: the routed and shared experts' GEMMs replace the dense FFN's
    ce = _fp8_casts(rates, ((tok_exp, c.h, ffn_mult * fe / etp, n_local),
                            (tok_exp, fe / etp, c.h, n_local),
                            (x, c.h, ffn_mult * fe / tp, c.ns), (x, fe / tp, c.h, c.ns)))
    bw_e = hbm * keff.hbm_fraction
    # backward: 2 x forward, x the FP8 factor for the FP8 GEMMs (a BF16 router keeps 2 x)
    f_b = rates.fp8_backward_gemm
    f_router = rates.edge_backward_gemm if rates.edge_backward_gemm is not None else (
        1.0 if rates.edge_peak else f_b)
    return {"gemm_f_moe": t_attn_proj + t_exp + t_shared + t_router,
            "gemm_b_moe": 2.0 * (f_b * (t_attn_proj + t_exp + t_shared) + f_router * t_router),
            "ew_f_moe": (ew[0] - act_dense[0] + act_moe[0] + perm + bias[0] + clamp[0]
                         - casts_ffn[0] + ce[0]) / bw_e,
            "ew_b_moe": (ew[1] - act_dense[1] + act_moe[1] + perm + bias[1] + clamp[1]
                         - casts_ffn[1] + ce[1]) / bw_e}


def _attention_core(model: ModelSpec, c, g: LayerGeometry, rates: KernelRates, flash):
    """The attention core of one layer, one micro-batch, one rank: ``(t_core_f, t_core_b, keys,
    ring_f_bytes, ring_b_bytes)``.

    FlashAttention: ``2·x·(a/t)·(d_qk + d_v)·keys`` FLOPs forward, ``keys =
    ModelSpec.mean_attended_keys(s, causal=True)`` = (s+1)/2, backward 2.5 × the forward FLOPs
    (5 matmuls against 2, Dao 2023 Alg. 2), at ``peak16 · keff.attention_fraction``, or with a
    curve (``rates.attention``, ``StepOptions.attention_curve``) at its forward and backward
    fractions for the rank's sequence length ``s / cp`` and head dimension ``d_qk``
    (``attention.KernelCurve.fractions``); under context parallelism a ring
    (``rates.cp_ring``) adds its steps' output merges (``attention.ring_merge_bytes``), with the
    curve or the flat rate alike; an all-gather computes the local queries' attention in one
    pass, no merge (Llama 3, §3.3.2); PyTorch's ring (``rates.cp_torch_ring``) pays ``attention.torch_ring_bytes``
    instead, its K and V of all the rank's query heads where the model repeats them before SDPA
    (``rates.cp_repeat_kv``: torchtitan's ``repeat_kv``), else of its KV heads. Without
    FlashAttention (Megatron-LM
    2021–22) the two batched GEMMs QKᵀ and AV per head and sequence over all s keys at the
    roofline, backward 2 × forward."""
    s, x, tp, cp, mbs = g.s, g.x, g.tp, g.cp, g.mbs
    peak16, keff, hbm = rates.peak16, rates.keff, rates.hbm
    heads = c.a / tp
    ring = (0.0 * x, 0.0 * x)
    if flash:
        keys = float(model.mean_attended_keys(s, causal=True))
        core_flops_f = 2.0 * x * heads * (c.dqk + c.dv) * keys
        if rates.attention is not None:
            t_core_f, t_core_b = _curve_core_times(model, c, g, rates, core_flops_f, keys)
        else:
            t_core_f = core_flops_f / (peak16 * keff.attention_fraction)
            t_core_b = 2.5 * t_core_f           # FlashAttention-2 backward: 5 matmuls vs 2
        if rates.cp_ring:                       # the ring's per-step output merges
            ring = attention.ring_merge_bytes(x * heads * c.dv, cp)
        if rates.cp_torch_ring:                 # PyTorch's merges and fp32 gradient buffers
            kv_heads = heads if (rates.cp_repeat_kv or c.mla) else c.g * g.kvf
            ring = attention.torch_ring_bytes(x * heads * c.dqk,
                                              x * kv_heads * (c.dqk + c.dv), cp)
        if rates.ring_unmasked and (rates.cp_ring or rates.cp_torch_ring):
            u_f, u_b = attention.ring_unmasked_factors(rates.ring_unmasked, s / cp, cp)
            t_core_f, t_core_b = t_core_f * u_f, t_core_b * u_b
    else:
        keys = s
        seqs = mbs * heads
        q_len = s / cp
        t_core_f = seqs * (_gemm_time(q_len, c.dqk, keys, peak16, keff, hbm)
                           + _gemm_time(q_len, keys, c.dv, peak16, keff, hbm))
        t_core_b = 2.0 * t_core_f
    return t_core_f, t_core_b, keys, ring[0], ring[1]


def _curve_core_times(model: ModelSpec, c, g: LayerGeometry, rates: KernelRates, core_flops_f,
                      keys):
    """Forward and backward times of the attention core at a kernel curve's rates
    (``rates.attention``, ``fractions(s, d_qk, causal, window)``), the layers' mean over their
    two kinds when the model has sliding-window layers: with ``share`` = window layers ÷ layers,
    ``k_f = (s+1)/2`` the keys a query attends in a full causal layer, ``k_w`` in a window
    layer (``(w(w+1)/2 + (s−w)·w)/s``: ``keys``, ``ModelSpec.mean_attended_keys``, is
    ``share·k_w + (1 − share)·k_f``) and
    ``F = core_flops_f / keys`` the forward FLOPs per attended key,
    ``t_f = F·(share·k_w / R_w + (1 − share)·k_f / R_f)``, the backward the same with 2.5 ×
    the FLOPs at the backward rates. The same rate for both kinds (a curve without a window
    series) gives ``core_flops_f / R``."""
    s, cp, peak16 = g.s, g.cp, rates.peak16
    f_f, f_b = rates.attention.fractions(s / cp, c.dqk, causal=True)
    w = int(model.sliding_window or 0)
    if not w or w >= float(np.max(s)):
        return core_flops_f / (peak16 * f_f), 2.5 * core_flops_f / (peak16 * f_b)
    share = model.n_window_layers / model.n_layers
    k_full = (np.asarray(s, dtype=float) + 1.0) / 2.0
    k_win = (keys - (1.0 - share) * k_full) / share      # the window layers' own mean
    w_f, w_b = rates.attention.fractions(s / cp, c.dqk, causal=True, window=w)
    per_key = core_flops_f / keys
    t_f = per_key * (share * k_win / (peak16 * w_f) + (1.0 - share) * k_full / (peak16 * f_f))
    t_b = 2.5 * per_key * (share * k_win / (peak16 * w_b)
                           + (1.0 - share) * k_full / (peak16 * f_b))
    return t_f, t_b


def _fp8_casts(rates: KernelRates, gemms):
    """HBM bytes (forward, backward) of the FP8 casts of ``gemms`` ((m, k, n) each) under
    ``rates.fp8_casts`` (``elementwise.fp8_cast_bytes``); (0, 0) when casts are not priced."""
    if rates.fp8_casts is None or not gemms:
        return 0.0, 0.0
    return elementwise.fp8_cast_bytes(gemms, rates.fp8_casts, rates.fp8_weight_share,
                                      rates.fp8_transpose)


def _layer_casts(rates: KernelRates, g: LayerGeometry, norm_fed, row_parallel, te=True):
    """HBM bytes (forward, backward) of the FP8 casts of a block's two GEMMs, ``norm_fed`` (QKV or
    FC1: ``(k, n)``, its input the norm's output) and ``row_parallel`` (output projection or FC2):
    on a stack of ``elementwise.TE_LINEAR_STACKS`` (``rates.fp8_te_layers``; ``te`` False for an
    MLA block, whose projections are not ``LayerNormLinear``) Transformer Engine's
    (``elementwise.te_layer_cast_bytes``: sequence-parallel shards cast before the all-gather,
    the norm's fused cast or amax), else ``elementwise.fp8_cast_bytes`` of ``(x, k, n)`` each;
    (0, 0) when casts are not priced."""
    if rates.fp8_casts is None:
        return 0.0, 0.0
    if rates.fp8_te_layers and te:
        return elementwise.te_layer_cast_bytes(
            g.x, g.xs, (norm_fed,), (row_parallel,), rates.fp8_casts,
            weight_share=rates.fp8_weight_share, transpose=rates.fp8_transpose)
    return _fp8_casts(rates, ((g.x,) + tuple(norm_fed), (g.x,) + tuple(row_parallel)))


def tp_exposure(t_fwd, t_bwd, gemm_fwd, col_fwd, sequence_parallel, tp_overlap="backward"):
    """Exposed tensor-parallel communication of one layer and micro-batch: (forward, backward).

    ``t_fwd``/``t_bwd`` are the layer's TP collective times (``comm.step_comm_arrays``),
    ``gemm_fwd`` its forward GEMM time and ``col_fwd`` the forward time of its column-parallel
    GEMMs (QKV, FFN up/gate). The rules (Megatron-LM, Korthikanti et al. 2022 §4.2 and Table 4's
    note; ``megatron/core/tensor_parallel/mappings.py``):

    * ``"none"``: ``e_f = t_fwd``, ``e_b = t_bwd``.
    * ``"backward"``: forward exposed; backward ``e_b = sync + max(t_bwd − sync − W, 0)``. Without
      sequence parallelism ``sync = 0`` and the window ``W = col_fwd`` (the input-gradient
      all-reduce runs while the weight-gradient GEMM, as long as the forward GEMM, does); with it
      the 2 synchronous all-gathers of the 6 backward collectives stay exposed,
      ``sync = t_bwd/3``, and ``W = 2·col_fwd`` (re-gather behind the input-gradient GEMM,
      reduce-scatter behind the weight-gradient GEMM).
    * ``"all"``: as ``"backward"`` and ``e_f = max(t_fwd − gemm_fwd, 0)`` (Transformer Engine's
      userbuffers overlap the forward too).

    Raises
    ------
    ValueError
        An unknown ``tp_overlap``.
    """
    if tp_overlap not in TP_OVERLAP:
        raise ValueError(f"tp_overlap={tp_overlap!r} must be one of {TP_OVERLAP}")
    sp = np.asarray(sequence_parallel, dtype=bool)
    e_f = np.maximum(t_fwd - gemm_fwd, 0.0) if tp_overlap == "all" else t_fwd
    if tp_overlap in ("backward", "all"):
        sync = _pick(sp, t_bwd / 3.0, 0.0)
        window = _pick(sp, 2.0 * col_fwd, col_fwd)
        e_b = sync + np.maximum(t_bwd - sync - window, 0.0)
    else:
        e_b = t_bwd
    return e_f, e_b


def cp_exposure(cp_fwd_s, cp_bwd_s, core_fwd_s, core_bwd_s, cp, overlap: bool):
    """Exposed context-parallel K/V exchange of one layer and micro-batch: (forward, backward).

    ``cp_fwd_s`` / ``cp_bwd_s`` are the layer's CP communication times (``comm.step_comm_arrays``:
    K and V forward; K, V and their gradients backward), ``core_fwd_s`` / ``core_bwd_s`` its
    attention-core times on the rank, ``cp`` the CP degree.

    * ``overlap=False``: all exposed (Llama 3, arXiv:2407.21783 §3.3.2: K and V are all-gathered,
      then the attention of the local queries is computed).
    * ``overlap=True``: a ring of ``cp − 1`` point-to-point steps (Liu et al. 2023, Ring
      Attention, arXiv:2310.01889 §3; Transformer Engine's ``AttnFuncWithCPAndKVP2P``, whose
      docstring says it will "Split attention compute into multiple steps, and overlap
      current-step compute with next-step communication", NVIDIA/TransformerEngine@9c61cd7e
      ``transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py``): the
      attention core runs
      in ``cp`` equal steps (load-balanced causal chunks), step i's compute ``a / cp`` hides the
      transfer of the next block ``c / (cp − 1)``, the last step has no transfer. With
      ``comm.overlap_cost`` (the part that does not fit, plus the measured contention
      ``comm.OVERLAP_SLOWDOWN`` of the part that does)::

          e = (cp − 1) · overlap_cost(c / (cp − 1), a / cp)

      forward with ``(c, a) = (cp_fwd_s, core_fwd_s)``, backward with the backward pair; 0 at
      ``cp = 1``. With a = 0 it is ``c``, the exposed case.
    """
    cp = np.asarray(cp, dtype=float)
    if not overlap:
        return cp_fwd_s, cp_bwd_s
    steps = np.maximum(cp - 1.0, 1.0)
    e_f = steps * comm.overlap_cost_unchecked(cp_fwd_s / steps, core_fwd_s / cp)
    e_b = steps * comm.overlap_cost_unchecked(cp_bwd_s / steps, core_bwd_s / cp)
    return _pick(cp > 1, e_f, cp_fwd_s), _pick(cp > 1, e_b, cp_bwd_s)


def torch_ring_exposure(ag_s, dkv_s, core_fwd_s, core_bwd_s, cp, compiled=False):
    """Exposed K/V exchange of PyTorch's ring attention with the all-gather rotation, one layer
    and micro-batch: (forward, backward) (``attention`` module docstring, "PyTorch's ring
    attention as torchtitan runs it"; read at pytorch/pytorch@0123248a4
    ``torch/distributed/tensor/experimental/_attention.py``, a later revision than the torch
    1963fc8 the priced rows ran, as that docstring says).

    ``ag_s`` the all-gather of the rank's K and V (``comm.step_comm_arrays``' ``cp_fwd_s``),
    ``dkv_s`` one ring step's permutation of the fp32 dK, dV (``cp_dkv_s``), ``core_fwd_s`` /
    ``core_bwd_s`` the attention core on the rank, run in ``cp`` steps::

        e_f = overlap_cost(ag, a_f / cp)
        e_b = overlap_cost(ag, a_b / cp) + (cp − 1) · overlap_cost(dkv, a_b / cp) + dkv

    forward: the all-gather is issued before step 0's kernel and waited before step 1's; the
    backward gathers again behind step 0, and the dK/dV buffer sent after step i's kernel is
    waited after step i+1's, the last after the loop (``comm.overlap_cost``: the part that does
    not fit plus the contention ``comm.OVERLAP_SLOWDOWN`` of the part that does). 0 at cp = 1.

    ``compiled`` (``StepOptions.cp_ring_compiled``: the ring traced by ``torch.compile``, whose
    functional collectives wait where they are issued): nothing overlaps, ``e_f = ag`` and
    ``e_b = ag + cp · dkv`` (the backward sends the dK/dV buffer after each of its ``cp``
    steps).

    Raises
    ------
    ValueError
        ``compiled`` other than True or False.
    """
    if not isinstance(compiled, (bool, np.bool_)):
        raise ValueError(f"compiled={compiled!r} must be True or False (PyTorch's ring traced "
                         "by torch.compile, StepOptions.cp_ring_compiled)")
    cp = np.asarray(cp, dtype=float)
    if compiled:
        return _pick(cp > 1, ag_s, 0.0), _pick(cp > 1, ag_s + cp * dkv_s, 0.0)
    step_f, step_b = core_fwd_s / cp, core_bwd_s / cp
    e_f = comm.overlap_cost_unchecked(ag_s, step_f)
    e_b = (comm.overlap_cost_unchecked(ag_s, step_b)
           + (cp - 1.0) * comm.overlap_cost_unchecked(dkv_s, step_b) + dkv_s)
    return _pick(cp > 1, e_f, 0.0), _pick(cp > 1, e_b, 0.0)


#: DualPipe's price for hiding the all-to-all: DeepSeek-V3 (arXiv:2412.19437 §3.2.2) gives 20
#: of the H800's 132 SMs to communication, so the compute it overlaps runs on 112: a slowdown of
#: 20/132 of the overlapped span (``comm.overlap_cost``'s slowdown).
DUALPIPE_SM_SHARE = 20.0 / 132.0


def ep_exposure(ep_fwd_s, ep_bwd_s, fwd_window_s, bwd_window_s, ep_overlap="none",
                unpaired=0.0):
    """Exposed expert-parallel all-to-all of one MoE layer and micro-batch: (forward, backward).

    ``"none"``: all exposed. ``"dualpipe"`` (DeepSeek-V3, arXiv:2412.19437 §3.2.1: each
    forward chunk's dispatch/combine runs during another micro-batch's backward chunk and vice
    versa): ``o(ep, W) = max(ep − W, 0) + DUALPIPE_SM_SHARE · min(ep, W)`` with ``W`` the layer's
    forward (or backward) compute, the SMs given to communication slowing the compute it hides
    behind. ``"merged_1f1b"`` (Megatron-Core's batch-level overlap, which merges the forward of
    one micro-batch with the backward of an earlier one, micro-batch j − (w + 1) for the
    forward of j after a warm-up of w forwards: ``stacks.EP_OVERLAP_MODES``): the
    passes with no partner keep their all-to-all exposed, ``u · ep + (1 − u) · o(ep, W)`` with
    ``u = unpaired`` the share of a stage's passes left unpaired (``unpaired_share``).

    Raises
    ------
    ValueError
        An unknown ``ep_overlap``.
    """
    if ep_overlap not in stacks.EP_OVERLAP_MODES:
        raise ValueError(f"ep_overlap={ep_overlap!r} must be one of {stacks.EP_OVERLAP_MODES}")
    if ep_overlap == "none":
        return ep_fwd_s, ep_bwd_s
    u = unpaired if ep_overlap == "merged_1f1b" else 0.0
    return (u * ep_fwd_s
            + (1 - u) * comm.overlap_cost_unchecked(ep_fwd_s, fwd_window_s, DUALPIPE_SM_SHARE),
            u * ep_bwd_s
            + (1 - u) * comm.overlap_cost_unchecked(ep_bwd_s, bwd_window_s, DUALPIPE_SM_SHARE))


def unpaired_share(schedule, pp, n_microbatches, virtual_stages):
    """The share of the first pipeline stage's forward (and backward) passes that merged 1F1B
    cannot pair with a pass of another micro-batch: ``min(w + 1, m·v) / (m·v)`` chunk passes,
    ``w`` the schedule's warm-up forwards (1F1B ``p − 1``; interleaved ``2(p − 1) + (v − 1)·p``,
    Megatron-LM's warm-up count; without a pipeline 0: the first forward and the last backward
    alone), i.e. ``memory.in_flight_microbatches(…, stage=0) / m``; GPipe (every forward before
    any backward): 1. The first stage has the longest warm-up: the busiest stage's share.
    (Megatron-LM asserts an interleaved schedule whenever pp > 1 under this overlap, so the
    plain-1F1B case is the formula's, not a set-up Megatron-Core runs.)"""
    m = np.asarray(n_microbatches, dtype=float)
    return np.minimum(in_flight_microbatches(schedule, pp, m, virtual_stages, 0) / m, 1.0)


def merged_p2p_exposure(schedule, pp, n_microbatches, virtual_stages, p2p_s, merged,
                        pipeline_flushes=1, hidden_s=0.0):
    """Pipeline P2P left on the critical path in the steady state by Megatron-Core's merged 1F1B
    (``overlap_moe_expert_parallel_comm``, ``ep_overlap="merged_1f1b"``) on an interleaved
    pipeline, seconds per step::

        t = f · max(m_f·v − (w + 1), 0) · max(2·p2p − t_dw, 0),   w = 2(p − 1) + (v − 1)·p

    ``f = pipeline_flushes`` schedules of ``m_f = m/f`` micro-batches, ``w + 1`` the first stage's
    warm-up forwards under the overlap (Megatron-LM ``get_pp_rank_microbatches``: the
    interleaved warm-up ``2(p − r − 1) + (v − 1)·g``, ``g = microbatch_group_size_per_vp_stage``
    = p by default, "+ 1" when ``overlap_moe_expert_parallel_comm``), so ``m_f·v − (w + 1)``
    merged forward+backward units per stage. Each unit waits, before its first layer, for both
    its forward input and its backward gradient (``TransformerModelChunkSchedulePlan.run``:
    ``pre_forward`` and ``pre_backward``, the receive handles' waits, before the loop over the
    layers) and sends both outputs only after its last layer (``post_forward`` on the
    communication stream, then ``post_backward``), where plain interleaved 1F1B sends a forward's
    output before running the backward that follows it. With the depth-first order
    (``get_schedule_table``: groups of p micro-batches per virtual stage) a stage's next unit
    needs what its neighbour's current unit produces, so one transfer lands between consecutive
    units of every stage; replaying the schedule's order with a transfer time ``d`` per
    dependency gives ``≈ (m·v − w − 1)·d`` more than with ``d = 0`` (hand replay in
    tests/test_step_merged_p2p.py), where plain interleaved 1F1B exposes only its fill and drain
    (``compose_pipeline``). ``d = 2·p2p``: the two inputs (an activation and a gradient of the
    same shape) arrive over the stage's one link at once, less ``t_dw = hidden_s``: the unit
    launches its first layer's attention weight-gradient GEMMs after the sends, "for overlapping
    with the p2p comm" (``run``: ``b_schedule_plan.get_layer(0).attn.backward_dw()`` after
    ``post_backward``). 0 where ``merged`` is False, p = 1 or the schedule is not interleaved.

    Sources: NVIDIA/Megatron-LM ``megatron/core/models/common/model_chunk_schedule_plan.py``
    (``TransformerModelChunkSchedulePlan.run``) and
    ``megatron/core/pipeline_parallel/schedules.py`` (``get_pp_rank_microbatches``,
    ``get_schedule_table``, ``forward_backward_pipelining_with_interleaving``) @ 0d8e0714cd29
    (Megatron-Bridge 25.11's pin), the same order @ b0cc2706dd (26.02's pin) and d98e8a64dd;
    ``model_parallel_config.py`` (``microbatch_group_size_per_vp_stage`` defaults to p).
    """
    p = np.asarray(pp)
    v = np.asarray(virtual_stages, dtype=float)
    f = np.asarray(pipeline_flushes, dtype=float)
    m_f = np.maximum(np.asarray(n_microbatches) // np.asarray(pipeline_flushes, dtype=np.int64), 1)
    warm = in_flight_microbatches("interleaved", np.maximum(p, 1), m_f, v, 0) * v
    units = np.maximum(m_f * v - warm, 0.0)
    interleaved = schedule_code(schedule) == SCHEDULES.index("interleaved")
    on = np.asarray(merged, dtype=bool) & (p > 1) & interleaved
    d = np.maximum(2.0 * np.asarray(p2p_s, dtype=float) - hidden_s, 0.0)
    return _pick(on, f * units * d, 0.0)


def layer_totals(lc: dict, gemm_f, ew_f_t, ew_b_t, tp_e_f, tp_e_b, cp_f, cp_b, ep_f, ep_b,
                 recompute_code, sac_mm=None):
    """One layer's forward + backward time for one micro-batch, by category:
    (matmul, attention, memory-bound, recompute, TP, CP, EP), seconds.

    ``matmul = 3·G`` (backward = 2 × forward G; ``_layer_parts`` adds the FP8 backward excess
    ``G_b − 2G``, ``layer_compute``'s ``gemm_b_*``); ``attention = core_f + core_b``;
    ``memory-bound = ew_f + ew_b + core_ew_f + core_ew_b``; recompute (Korthikanti et al. 2022
    §5): full re-runs the forward, ``G + core_f + ew_f + core_ew_f``, selective the attention
    core, ``core_f + core_ew_f``; communication: forward + backward exposure, plus the forward's
    again under full recomputation (CP's K/V all-gather and EP's all-to-all too).
    ``recompute_code`` indexes ``RECOMPUTE_MODES`` (0 none, 1 selective, 2 full).
    ``sac_mm`` (torchtitan's op-level policy, ``_every_other_mm_time``): selective re-runs
    those mm's and every element-wise op of the forward, ``sac_mm + ew_f``, and not the
    attention core (its output is saved); None: Korthikanti's selective recomputation.
    """
    full, sel = recompute_code == 2, recompute_code == 1
    matmul = 3.0 * gemm_f
    attn = lc["t_core_f"] + lc["t_core_b"]
    memb = ew_f_t + ew_b_t + lc["core_ew_f_t"] + lc["core_ew_b_t"]
    sel_t = lc["t_core_f"] + lc["core_ew_f_t"] if sac_mm is None else sac_mm + ew_f_t
    rc_t = _pick(full, gemm_f + lc["t_core_f"] + ew_f_t + lc["core_ew_f_t"],
                 _pick(sel, sel_t, 0.0))
    tp_c = tp_e_f + tp_e_b + _pick(full, tp_e_f, 0.0)
    cp_c = cp_f + cp_b + _pick(full, cp_f, 0.0)
    ep_c = ep_f + ep_b + _pick(full, ep_f, 0.0)
    return matmul, attn, memb, rc_t, tp_c, cp_c, ep_c


def early_stopped(totals: tuple, t_fc2, recompute_code, early_stop: bool) -> tuple:
    """``layer_totals``' parts of a dense layer with a full recomputation that stops once the
    backward's last saved tensors are rebuilt (``StepOptions.recompute_early_stop``: PyTorch's
    non-reentrant checkpoint from v2.1): the re-run ends before the block's last GEMM, the FFN's
    down projection, whose inputs autograd saves before running it, so the recompute part loses
    ``t_fc2`` (its forward time) where ``recompute_code`` is 2 (full); unchanged otherwise or
    without ``early_stop``. ``totals``: (matmul, attention, memory-bound, recompute, TP, CP,
    EP).

    Raises
    ------
    ValueError
        ``early_stop`` other than True or False.
    """
    if not isinstance(early_stop, (bool, np.bool_)):
        raise ValueError(f"early_stop={early_stop!r} must be True or False (a full "
                         "recomputation stopped early, StepOptions.recompute_early_stop)")
    if not early_stop:
        return totals
    rc_t = totals[3] - _pick(np.asarray(recompute_code) == 2, t_fc2, 0.0)
    return totals[:3] + (rc_t,) + totals[4:]


@dataclass(frozen=True)
class ZeroTraffic:
    """The DP / ZeRO collectives of one pipeline stage and what hides them (``zero_exposure``'s
    keywords, one object), seconds unless said.

    Fields
    ------
    gather : ZeRO-3's all-gather of the stage's weights, all its layers once (G)
    z3_rs : ZeRO-3's gradient reduce-scatter of one micro-batch, all layers (RS)
    n_gathers : gathers per micro-batch, forward and backward (and the recomputed forward where
        the stack's recomputation gathers again, ``fsdp_backward_gathers``) (n_g)
    rs : ZeRO-2's gradient reduce-scatter of one micro-batch
    grad : the per-step gradient collective (ZeRO-0 all-reduce, ZeRO-1 reduce-scatter, the HSDP
        replicas' all-reduce), 0 where the stage runs none
    wgather : ZeRO-1/2's per-step weight all-gather, 0 where the stage runs none
    n_layers : the stage's layers (L)
    prefetch_layers : layers gathered ahead (0: none)
    backward_compute : the stage's backward of one micro-batch (B; None: 2F)
    grad_link_busy : the NIC time the last backward's shard-group traffic holds (HSDP)
    replica_per_microbatch : the HSDP all-reduce after every micro-batch (else once per step)
    backward_prefetch : when FSDP issues the next layer's backward gather, "pre" or "post"
        (``comm.fsdp_exposure``; the stack's ``fsdp_backward_prefetch``)
    """

    gather: object
    z3_rs: object
    n_gathers: object
    rs: object
    grad: object
    wgather: object
    n_layers: object = 1.0
    prefetch_layers: object = 1
    backward_compute: object = None
    grad_link_busy: object = 0.0
    replica_per_microbatch: object = False
    backward_prefetch: str = "pre"


def zero_exposure(zero_stage, dp_overlap, fwd_compute, traffic: ZeroTraffic | None = None,
                  **keywords):
    """Exposed data-parallel / ZeRO communication of one pipeline stage: (per micro-batch,
    per step), seconds (``traffic``: a ``ZeroTraffic``, whose fields the keywords may give).

    Windows (Rajbhandari et al. 2020; PyTorch DDP / FSDP overlap), with ``F`` = the stage's
    forward compute of one micro-batch and ``B`` its backward (default ``2F``; with full
    recomputation the caller passes ``3F``):

    * ZeRO-3 and ZeRO-2, per micro-batch: ``zero_micro_batch_exposure``.
    * Per step (ZeRO-0: all-reduce, ZeRO-1: reduce-scatter of the gradients, behind the last
      micro-batch's backward; ZeRO-1/2: the weight all-gather behind the first forward):
      ``max(grad − 2F, 0) + max(wgather − F, 0)``. The window is 2F, the gradient-producing
      backward, even under full recomputation (whose backward lasts 3F): a conservative
      convention kept because the validated Megatron-style rows (notebook 04b) are fitted with
      it. Hybrid sharding (HSDP) all-reduces the gradient shards over the replicas, per step or
      per micro-batch: ``gradient_exposure``.
    * Where ``comm.OVERLAP_SLOWDOWN`` applies: to the ZeRO-3 per-layer gathers and
      reduce-scatters only (``comm.fsdp_exposure_unchecked``). The per-micro-batch ZeRO-2 reduce-scatter
      and the per-step terms (ZeRO-0/1/2 and the HSDP replica all-reduce) pay none: the
      ZeRO-0-2 windows were validated without it (notebook 04b), and a term hidden once per step
      behind a whole backward slows compute by a fraction of one backward, which the fitted
      kernel efficiency already absorbs on those rows.

    Without ``dp_overlap`` every collective is exposed in full. The caller passes ``grad`` and
    ``wgather`` already zero where the stage does not run them.
    """
    t = options_with(ZeroTraffic, "traffic", traffic, keywords)
    z = zero_stage
    bwd_compute = 2.0 * fwd_compute if t.backward_compute is None else t.backward_compute
    per_mb = zero_micro_batch_exposure(z, dp_overlap, fwd_compute, bwd_compute, t)
    grad_exp = gradient_exposure(z, dp_overlap, fwd_compute, bwd_compute, t)
    per_mb_grad = _pick((z == 3) & np.asarray(t.replica_per_microbatch), grad_exp, 0.0)
    per_mb = per_mb + per_mb_grad
    per_step = grad_exp - per_mb_grad + _pick(
        dp_overlap, np.maximum(t.wgather - fwd_compute, 0.0), t.wgather)
    return per_mb, per_step


def zero_micro_batch_exposure(z, dp_overlap, fwd_compute, bwd_compute, t: ZeroTraffic):
    """Exposed ZeRO-3 / ZeRO-2 communication of one micro-batch of a stage (``zero_exposure``),
    seconds; 0 for ZeRO-0/1:

    * ZeRO-3, per micro-batch, layer by layer (``comm.fsdp_exposure``): the stage's ``L`` layers
      each gather ``G/L`` before their forward (``F/L`` to hide behind) and ``(n_g − 1)·G/L``
      before their backward, whose link also carries the layer's gradient reduce-scatter
      ``RS/L`` (``B/L`` to hide behind); the first gather and the last reduce-scatter are
      exposed: ``fwd = G/L + (L − 1)·o(G/L, F/L)``, ``bwd = x + (L − 1)·o(x, B/L)`` with
      ``x = ((n_g − 1)·G + RS)/L`` (``backward_prefetch`` "pre"; under "post" every layer's
      backward gathers are exposed, ``bwd = (n_g − 1)·G + RS/L + (L − 1)·o(RS/L, B/L)``), where
      ``o(c, w) = max(c − w, 0) + σ·min(c, w)`` (``comm.overlap_cost``); with
      ``prefetch_layers = 0`` nothing is prefetched and everything is exposed, ``fwd = G``,
      ``bwd = (n_g − 1)·G + RS``; without ``dp_overlap``, ``n_g·G + RS``.
    * ZeRO-2, per micro-batch: the gradient reduce-scatter behind the backward,
      ``max(RS − 2F, 0)``.
    """
    L = np.maximum(np.asarray(t.n_layers, dtype=float), 1.0)
    z3_comm = t.n_gathers * t.gather + t.z3_rs
    f_e, b_e = comm.fsdp_exposure_unchecked(t.gather / L, t.z3_rs / L, fwd_compute / L,
                                            bwd_compute / L, L, np.asarray(t.prefetch_layers),
                                            t.n_gathers - 1.0,
                                            post=t.backward_prefetch == "post")
    z3_exp = _pick(dp_overlap, f_e + b_e, z3_comm)
    z2_exp = _pick(dp_overlap, np.maximum(t.rs - 2.0 * fwd_compute, 0.0), t.rs)
    return _pick(z == 3, z3_exp, _pick(z == 2, z2_exp, 0.0))


def gradient_exposure(z, dp_overlap, fwd_compute, bwd_compute, t: ZeroTraffic):
    """Exposed gradient collective ``grad`` of a stage (``zero_exposure``), seconds:
    ``max(grad − window, 0)`` (``grad`` without ``dp_overlap``), the window 2F for ZeRO-0/1 and
    ``max(B − busy, 0)`` for HSDP (z = 3):

    Hybrid sharding (HSDP, ZeRO-3 over a shard group of f of the dp·cp ranks, r = dp·cp/f
    replicas): the per-micro-batch terms of ``zero_micro_batch_exposure`` with ``G`` and ``RS``
    timed over the f ranks of the shard group (so a shard group inside one scale-up domain
    gathers over NVLink only), and once per step, after the last micro-batch's reduce-scatter
    has left each rank its accumulated gradient shard of Ψ/f elements, an all-reduce of that
    shard over the r replicas: ``grad = T_allreduce(Ψ·b_g/f, r ranks, stride f·tp)``, moving
    ``2(r − 1)/r · Ψ·b_g/f`` bytes per rank (ring), overlapped like ZeRO-0's gradient
    all-reduce, ``max(grad − max(B − busy, 0), 0)``, where ``busy`` (``grad_link_busy``) is
    the time the last backward's own shard-group traffic, ``(n_g − 1)·G + RS``, holds the same
    NICs (when the shard group spans scale-up domains; 0 inside one, whose gathers ride
    NVLink): concurrent NCCL collectives on one NIC share its bandwidth. The window is the
    whole backward ``B`` (3F under full recomputation), not ZeRO-0's 2F, because ``busy``
    counts the recomputation's re-gather too, and FSDP2 issues each unit's all-reduce after
    its reduce-scatter while later units still compute (PR #121569: the all-reduce overlaps
    the next reduce-scatter). This bandwidth-sharing rule is an estimate: no measured
    source times HSDP's replica all-reduce against its shard traffic. Like ZeRO-0's per-step
    terms it pays no ``comm.OVERLAP_SLOWDOWN`` contention. It is one collective per
    ``fully_shard`` unit (L per step): this rule prices it as one all-reduce of the whole
    shard (one latency, not L; the last unit's, exposed after the backward, is not added),
    an optimistic bound by (L − 1) ring latencies.
    With ``replica_per_microbatch`` (the stack's ``hsdp_all_reduce = "per_microbatch"``,
    FSDP2's default: it all-reduces after every micro-batch's reduce-scatter unless
    ``set_requires_all_reduce(False)``) the same exposure is paid per micro-batch:
    ``max(grad − max(B − busy, 0), 0)`` in the per-micro-batch part (m times per step;
    ``zero_exposure`` moves it there).
    Sources: Zhao et al. 2023, "PyTorch FSDP",
    arXiv:2304.11277 (hybrid sharding: shard within a group, replicate across groups);
    PyTorch PR #89915 (``HYBRID_SHARD``: ZeRO-3 within a node, DDP across nodes) and
    PR #126166 (FSDP2 HSDP reduce-scatters then all-reduces; ``set_requires_all_reduce(False)``
    skips the all-reduce on all but the last micro-batch of gradient accumulation, the
    schedule priced here); Zhang et al. 2022, "MiCS", arXiv:2205.00119 (partition groups, the
    same idea in DeepSpeed).
    """
    # ZeRO-0/1: the gradient backward 2F; HSDP (z = 3): the whole backward less the NIC time
    # the shard group's own traffic holds
    grad_window = _pick(z == 3, np.maximum(bwd_compute - t.grad_link_busy, 0.0),
                        2.0 * fwd_compute)
    return _pick(dp_overlap, np.maximum(t.grad - grad_window, 0.0), t.grad)


def optimizer_time(params_dense, params_expert, zero_stage, zero_group, expert_group,
                   bytes_per_param, hbm_bytes_per_s):
    """Seconds of the optimizer step on one rank: the parameters of its shard × the bytes each
    costs (``optimizer_bytes_per_param``) ÷ the sustained HBM bandwidth. ZeRO-1 and above shard
    the optimizer over the ZeRO group (``dp·cp`` ranks for dense parameters, the
    expert-data-parallel ``tp·dp·cp/(etp·ep)`` for routed experts, ``dp·cp/ep`` at etp = tp;
    Rajbhandari et al. 2020 §5):
    ``(P_dense / g + P_expert / g_e) · bytes_per_param / HBM``, ``g = g_e = 1`` at ZeRO-0."""
    shard_ne = _pick(zero_stage >= 1, zero_group, 1.0)
    shard_ex = _pick(zero_stage >= 1, expert_group, 1.0)
    return (params_dense / shard_ne + params_expert / shard_ex) * bytes_per_param \
        / hbm_bytes_per_s


#: Per-micro-batch categories of a stage (``compose_pipeline``).
_MB_KEYS = ("matmul", "attn", "mem", "rc", "tp", "cp", "ep", "moe", "pp", "dp_mb")


def _check_flushes(pipeline_flushes, n_microbatches):
    """``pipeline_flushes`` as a float array, checked: a whole number >= 1 dividing the
    micro-batches of each plan (``ValueError`` naming the field, the value and the rule)."""
    f = as_array(pipeline_flushes, "pipeline_flushes", positive=True, integer=True)
    f = np.asarray(f, dtype=np.int64)
    bad = np.asarray(n_microbatches) % f != 0
    if np.any(bad):
        fb, mb = np.broadcast_arrays(f, np.asarray(n_microbatches))
        i = np.flatnonzero(bad.reshape(-1))[0] if np.ndim(bad) else 0
        raise ValueError(f"pipeline_flushes={int(fb.reshape(-1)[i])} must divide the plan's "
                         f"n_microbatches={int(mb.reshape(-1)[i])} (each flush runs an equal "
                         "share of the step's micro-batches)")
    return f.astype(float)


def fsdp_backward_gathers(reshard_after_forward, pp, full, recompute_regathers=False):
    """All-gathers of a layer's weights in one micro-batch's backward under ZeRO-3 / FSDP
    (after the forward's one), by the ``reshard_after_forward`` policy and whether a full
    recomputation gathers again (``recompute_regathers``, the stack's
    ``stacks.Stack.recompute_regathers``):

    * ``"true"`` (ZeRO-3; FSDP2's default without a pipeline): the weights freed after the
      forward are gathered again for the backward, ``1`` (PyTorch ``fully_shard`` docs,
      ``reshard_after_forward``; Rajbhandari et al. 2020 §7.2.2). With full recomputation:
      PyTorch's FSDP still ``1``: FSDP2's pre-backward hook unshards the unit once
      (``FSDPParamGroup.pre_backward``: a no-op once the group is in ``PRE_BACKWARD``,
      pytorch/pytorch@62a45b6f4461 ``torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py``)
      and the recomputed forward skips its unshard ("When composing with module-hook-based
      activation checkpointing, the pre-backward hook is responsible for the unshard",
      ``FSDPState._pre_forward``, pytorch/pytorch@1fd469d0c96e ``_fsdp_state.py``), the
      reshard waiting for the post-backward; DeepSpeed ZeRO-3 ``2`` (``recompute_regathers``):
      it fetches a sub-module's weights in every sub-module's forward pre-hook and releases them
      after its forward (microsoft/DeepSpeed@86d3e310d441
      ``deepspeed/runtime/zero/parameter_offload.py`` ``_register_hooks_recursively``), so the
      reentrant recomputation gathers them once more before the backward's own fetch;
    * ``"false"``: the forward's gathered weights stay until the backward, which, and the
      recomputed forward, use them: ``0``;
    * ``"not_pp"`` (torchtitan/distributed/fsdp.py ``get_fsdp_reshard_after_forward_policy``
      "default"; NeMo AutoModel moe/parallelizer.py ``reshard_after_forward = not pp_enabled``):
      ``"true"`` when ``pp == 1``, ``"false"`` with a pipeline.

    ``n = regather · (1 + full · recompute_regathers)``, ``regather`` the policy's.

    >>> import numpy as np
    >>> fsdp_backward_gathers("not_pp", np.array([1, 1, 4]), np.array([False, True, True]))
    array([1., 1., 0.])
    >>> fsdp_backward_gathers("true", 1, np.array([False, True]), recompute_regathers=True)
    array([1., 2.])
    """
    regather = {"true": True, "false": False}.get(reshard_after_forward)
    if regather is None:
        if reshard_after_forward != "not_pp":
            raise ValueError(f"fsdp_reshard_after_forward={reshard_after_forward!r} must be one "
                             f"of {stacks.RESHARD_POLICIES}")
        regather = np.asarray(pp) == 1
    again = _pick(np.asarray(full) & bool(recompute_regathers), 1.0, 0.0)
    return _pick(regather, 1.0 + again, 0.0)


#: HBM bytes per parameter of FSDP2's copy-out of one all-gather: the gathered 16-bit weight
#: read from the all-gather buffer and written to the unsharded parameter (2 + 2). Counted from
#: the source (``fsdp_copies_s``), no kernel measurement.
FSDP_COPY_OUT_BYTES = 4.0


def fsdp_copies_s(params, gathers, grad_bytes, hbm_bytes_per_s):
    """Seconds per micro-batch of FSDP2's copies around its collectives on one rank, serial
    with the layers' kernels (pytorch/pytorch ``torch/distributed/_composable/fsdp/``
    ``_fsdp_param_group.py`` @ 012c62d6, ``_fsdp_collectives.py`` @ 415cc262 and
    ``_fsdp_state.py`` @ 005da465; ``torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py``
    @ 010ae4a8 for the later versions; the ``fully_shard`` torchtitan runs):

    * **copy-out**, after each all-gather of a ``fully_shard`` unit: the gathered buffer is
      copied into the unit's unsharded parameters (``foreach_all_gather_copy_out``:
      ``torch.split_with_sizes_copy``), on the compute stream (``FSDPParamGroup.
      wait_for_unshard``, called by ``pre_forward`` and ``pre_backward``), 16-bit read and
      written, ``FSDP_COPY_OUT_BYTES`` per parameter per gather;
    * **copy-in**, once per backward, before the reduce-scatter: the unsharded gradients are
      concatenated into the reduce-scatter input in the reduce dtype (``foreach_reduce`` →
      ``foreach_reduce_scatter_copy_in``: ``torch._chunk_cat``), 16-bit read and ``grad_bytes``
      written per parameter; it runs on the reduce-scatter stream and the compute stream waits
      for it ("Only after the copy-in finishes can we free the gradients":
      ``current_stream.wait_stream(reduce_scatter_stream)``; later versions run it on the
      compute stream itself), so it is serial too::

        t = (gathers · FSDP_COPY_OUT_BYTES + 2 + grad_bytes) · params / HBM

    ``params`` the unsharded parameters of the rank's stage (all its layers, ÷ TP),
    ``gathers`` the all-gathers FSDP2 issues per micro-batch: the forward's, plus the
    pre-backward's where ``reshard_after_forward`` freed the weights (``fsdp_backward_gathers``
    without recomputation): a recomputed forward re-uses the backward's gather
    (``FSDPState._pre_forward``: "When composing with module-hook-based activation
    checkpointing, the pre-backward hook is responsible for the unshard"); ``grad_bytes`` the
    reduce dtype's bytes (the recipe's reduced gradient: 4 for an fp32 reduce, torchtitan's
    ``mixed_precision_reduce`` default); ``hbm_bytes_per_s`` the sustained HBM bandwidth. Not
    priced, being off the compute stream: the all-gather's copy-in (the sharded parameters
    cast and copied into the all-gather input, ``params / shards`` elements, on its own
    stream), a pre-division of the reduce-scatter input (only when the reduce is not an
    averaging one, e.g. fp16; on the reduce-scatter stream after the compute stream's wait),
    and the sharded gradient's accumulation (``params / shards`` elements, reduce-scatter
    stream)."""
    return (gathers * FSDP_COPY_OUT_BYTES + 2.0 + grad_bytes) * params / hbm_bytes_per_s


def compose_pipeline(per_stage, *, pp, n_microbatches, virtual_stages, schedule, p2p_s,
                     pipeline_flushes=1):
    """The step's parts from per-stage, per-micro-batch times.

    ``per_stage`` holds three stages (first, a middle one, last), each a dict of the
    ``_MB_KEYS`` categories (seconds per micro-batch) plus ``dp_step`` and ``opt`` (once per
    step). With ``m`` micro-batches, ``p`` stages, ``v`` chunks per stage:

    * every category = ``m ×`` its average over the stages (first, (p − 2) middle, last);
    * ``stage_imbalance = m·(t_max − t_avg)``: the busiest stage paces the steady state;
    * ``bubble = f · bubble_fraction(p, m/f, schedule, v) · (m/f) · t_avg`` (without the P2P
      time) for ``f = pipeline_flushes`` schedules per optimizer step of ``m/f`` micro-batches
      each, since every schedule's fill and drain pass through every stage once (Narayanan et
      al. 2021 §2.2: (p − 1)/v micro-batch slots for 1F1B and interleaved, per flush). ``f = 1``:
      one schedule per step (Megatron-LM); NeMo AutoModel's benchmark recipe
      (recipes/llm/benchmark.py) runs one schedule per gradient-accumulation step, ``f = GA``;
    * P2P on each fill and drain's critical path whether or not it overlaps compute in the
      steady state: ``f·2·(p·v − 1)·p2p`` (the first micro-batch crosses p·v − 1 chunk
      boundaries forward and as many backward);
    * the slowest stage's step-level DP time and optimizer finish the step.

    Returns a dict keyed by ``PARTS`` but ``straggler_s`` (``add_straggler`` adds it).
    """
    ppf = pp.astype(float)
    mf = n_microbatches.astype(float)
    per_stage = [{"moe": 0.0, **ps} for ps in per_stage]     # no MoE host part: 0
    t_mb = [sum(ps[k] for k in _MB_KEYS) for ps in per_stage]
    t_max = np.maximum.reduce(t_mb)
    w_first = 1.0 / ppf
    w_last = _pick(ppf > 1, 1.0 / ppf, 0.0)
    w_mid = _pick(ppf > 2, (ppf - 2) / ppf, 0.0)
    avg = {k: w_first * per_stage[0][k] + w_mid * per_stage[1][k] + w_last * per_stage[2][k]
           for k in _MB_KEYS}
    t_avg = sum(avg.values())
    t_avg_no_p2p = t_avg - avg["pp"]
    tail = [ps["dp_step"] + ps["opt"] for ps in per_stage]
    slowest = np.argmax(np.stack(tail), axis=0)
    if np.ndim(slowest) == 0:                   # one plan: its slowest stage's own values
        dp_step, optimizer = per_stage[slowest]["dp_step"], per_stage[slowest]["opt"]
    else:
        dp_step = np.choose(slowest, [ps["dp_step"] for ps in per_stage])
        optimizer = np.choose(slowest, [ps["opt"] for ps in per_stage])
    ff = np.asarray(pipeline_flushes, dtype=float)
    m_flush = np.maximum(n_microbatches // np.asarray(pipeline_flushes, dtype=np.int64), 1)
    bub = np.asarray(bubble_fraction(np.maximum(pp, 1), m_flush, schedule,
                                     np.maximum(virtual_stages, 1)))
    bubble = bub * mf * t_avg_no_p2p
    fill_p2p = _pick(pp > 1, ff * 2.0 * (ppf * virtual_stages - 1) * p2p_s, 0.0)
    return {
        "matmul_s": mf * avg["matmul"], "attention_s": mf * avg["attn"],
        "memory_bound_s": mf * avg["mem"], "recompute_s": mf * avg["rc"],
        "tp_comm_s": mf * avg["tp"], "cp_comm_s": mf * avg["cp"], "ep_comm_s": mf * avg["ep"],
        "moe_host_s": mf * avg["moe"], "pp_comm_s": mf * avg["pp"] + fill_p2p,
        "stage_imbalance_s": mf * (t_max - t_avg), "pipeline_bubble_s": bubble,
        "dp_comm_s": mf * avg["dp_mb"] + dp_step, "optimizer_s": optimizer,
    }


# ----------------------------------------------------------------------------- the engine
#: The plan fields of ``step_arrays`` (integer arrays of one length, or scalars; ``recompute``
#: and ``schedule`` codes or names), and the optional ones with their defaults.
PLAN_ARRAY_FIELDS = ("tp", "pp", "dp", "cp", "ep", "virtual_stages", "micro_batch_size",
                     "n_microbatches", "zero_stage", "recompute", "schedule",
                     "sequence_parallel")
PLAN_ARRAY_DEFAULTS = {"pp_split": "even", "fsdp_shard_size": None, "etp": None}


def step_arrays(model: ModelSpec, cluster: Cluster, *, seq_len=None,
                options: StepOptions | None = None, **plans_and_options) -> dict:
    """Step-time parts of many parallel plans at once (the engine behind ``step_time`` and
    ``rank_plans``): ``layer_compute`` → ``comm.step_comm_arrays`` → ``tp_exposure`` →
    ``layer_totals`` → per stage (``_stage_parts``: layers, embedding / LM head,
    ``zero_exposure``, pipeline P2P, ``optimizer_time``) → ``compose_pipeline``.

    ``plans_and_options``: the plans, ``PLAN_ARRAY_FIELDS`` (integer arrays of one length, or
    scalars; ``recompute`` and ``schedule`` are codes, positions in ``RECOMPUTE_MODES`` and
    ``SCHEDULES``, or names), ``pp_split`` and ``fsdp_shard_size`` (None: ZeRO-3 over the whole
    dp·cp group, or an array of shard-group sizes; 0 is refused, see ``zero_exposure``); and
    any ``StepOptions`` field as a keyword, replacing ``options``'s (``StepOptions.build``).
    ``pipeline_flushes`` (an int or an array like the plans) must divide ``n_microbatches``.
    The plans must satisfy ``ParallelPlan``'s rules; the ones an array engine can check cheaply
    (``shapes.PLAN_ARRAY_RULES``: tp dividing the heads, dp, micro-batches and sizes >= 1; the
    HSDP shard group, ``shapes.shard_group_arrays``) are checked here.

    Returns
    -------
    dict of float arrays: one per ``PARTS`` entry (seconds per step), ``step_time_s``,
    ``model_flops`` and ``hardware_flops`` (per step, whole job), ``mfu``, ``hfu``,
    ``tokens_per_s``, ``exposed_comm_s``, and ``layer_fwd_s`` / ``layer_bwd_s`` (one dense
    layer, one micro-batch, backward including recomputation, with exposed TP communication).

    Raises
    ------
    ValueError
        A missing plan field, a plan breaking a ``PLAN_ARRAY_RULES`` rule (naming field, value
        and rule), an unknown option, an accelerator without an HBM bandwidth or a peak for
        ``dtype``.
    """
    missing = [k for k in PLAN_ARRAY_FIELDS if k not in plans_and_options]
    if missing:
        raise ValueError(f"step_arrays needs the plan field(s) {missing} "
                         f"(PLAN_ARRAY_FIELDS: {PLAN_ARRAY_FIELDS})")
    plans = {k: plans_and_options.pop(k) for k in PLAN_ARRAY_FIELDS}
    plans.update({k: plans_and_options.pop(k, v) for k, v in PLAN_ARRAY_DEFAULTS.items()})
    opts = StepOptions.build(options, **plans_and_options)
    return _engine(model, cluster, plans, seq_len, opts.resolve_on(cluster))


def _engine(model: ModelSpec, cluster: Cluster, plans: dict, seq_len,
            o: ResolvedOptions) -> dict:
    """``step_arrays`` on checked plan arrays ``plans`` and resolved options ``o``."""
    check_plan_arrays(model, **{k: plans[k] for k in (
        "tp", "pp", "dp", "cp", "ep", "virtual_stages", "micro_batch_size", "n_microbatches",
        "zero_stage")})
    shard, replicas = shard_group_arrays(plans["dp"], plans["cp"], plans["ep"],
                                         plans["zero_stage"], plans["fsdp_shard_size"])
    c = model_shapes(model)
    keff = o.keff
    acc = cluster.accelerator
    peak = acc.peak_flops_per_s(o.dtype)
    if not acc.hbm_bytes_per_s:
        raise ValueError(f"{acc.name} has no HBM bandwidth in the catalogue; the step-time model "
                         "needs it")
    hbm = float(acc.hbm_bytes_per_s)
    s = float(model.seq_len if seq_len is None else seq_len)
    tp, pp, dp, cp, ep, v, mbs, m, z, rc, sched, sp, shape = plan_axes(plans)
    z, kept = fsdp_zero_stage(z, o.stack)
    sp = sp & (tp > 1)
    tpf, cpf, epf, dpf = (a.astype(float) for a in (tp, cp, ep, dp))
    etf = _checked_folding(plans, tpf, sp, dpf * cpf, epf, replicas)
    full = rc == 2
    flushes = _check_flushes(o.pipeline_flushes, m)

    x = s / cpf * mbs                       # tokens per micro-batch on one rank
    kvf = kv_fraction(c, tpf)
    lc = layer_compute(model, c,
                       LayerGeometry(s=s, x=x, xs=_pick(sp, x / tpf, x), tp=tpf, ep=epf,
                                     cp=cpf, mbs=mbs, kvf=kvf, etp=etf),
                       KernelRates(peak=peak, peak16=acc.peak_flops_per_s("bf16"), hbm=hbm,
                                   keff=keff, gemm_shape=o.gemm_shape,
                                   edge_peak=acc.peak_flops_per_s(o.edge_dtype),
                                   edge_gemm_shape=o.edge_gemm_shape,
                                   edge_backward_gemm=(o.fp8_backward_gemm
                                                       if o.edge_dtype == "fp8" else 1.0),
                                   attention=o.attention_kernel, fp8_casts=o.fp8_casts,
                                   fp8_weight_share=1.0 / m if o.fp8_weight_cache else 1.0,
                                   fp8_transpose=o.fp8_transpose,
                                   fp8_te_layers=o.stack.name in elementwise.TE_LINEAR_STACKS,
                                   fp8_backward_gemm=o.fp8_backward_gemm, cp_ring=o.cp_overlap,
                                   cp_torch_ring=o.cp_torch_ring,
                                   cp_repeat_kv=o.comm.cp_repeat_kv,
                                   ring_unmasked=o.ring_unmasked,
                                   expert_bias_probs=expert_bias_probs_bytes(
                                       c, o.stack.name, o.comm.moe_dispatch),
                                   glu_clamp=bool(model.glu_limit) and o.stack.name
                                   in elementwise.CLAMPED_GLU_STACKS,
                                   attention_unpad=o.attention_unpad),
                       flash_attention=o.flash_attention, dropout=o.dropout,
                       moe_factor=o.moe_factor)
    cm = comm.step_comm_arrays(c, model, cluster, o.comm, s=s, x=x, tp=tpf, cp=cpf, ep=epf,
                               dp=dpf, sp=sp, etp=etf)
    dense, moe, tp_d = _layer_parts(c, lc, cm, sp, rc, o, epf, 0.0 * x,
                                    unpaired_share(sched, pp, m, v), cpf)
    geometry = StageGeometry(x=x, tp=tp, pp=pp, dp=dpf, cp=cpf, ep=epf, v=v, z=z, full=full,
                             shape=shape, pp_split=plans["pp_split"],
                             sp_tokens=_pick(sp, x / tpf, x), peak=peak, hbm=hbm,
                             shard=shard, replicas=replicas,
                             head_peak=acc.peak_flops_per_s(o.edge_dtype), etp=etf, kept=kept)
    per_stage = _stage_parts(model, c, cm, dense, moe, geometry, o)
    parts = compose_pipeline(per_stage, pp=pp, n_microbatches=m, virtual_stages=v,
                             schedule=sched, p2p_s=cm["pp_p2p_s"], pipeline_flushes=flushes)
    parts["pp_comm_s"] = parts["pp_comm_s"] + merged_p2p_exposure(
        sched, pp, m, v, cm["pp_p2p_s"], (o.ep_overlap == "merged_1f1b") & (ep > 1)
        & bool(model.is_moe), flushes, lc["t_attn_dw"])
    n_gpus = dpf * tpf * pp.astype(float) * cpf
    parts = add_straggler(parts, _shaped(n_gpus, shape), o.straggler)
    out = _step_totals(model, parts, shape, s=s, tokens=s * mbs * m.astype(float) * dpf,
                       n_gpus=n_gpus, peak=peak, rc=rc)
    # one dense layer, one micro-batch: forward and backward (with recompute), exposed TP
    out["layer_fwd_s"] = _shaped(lc["gemm_f_dense"] + lc["t_core_f"] + lc["ew_f_t"]
                                 + lc["core_ew_f_t"] + tp_d[0], shape)
    out["layer_bwd_s"] = _shaped(dense[0] + dense[1] + dense[2] + dense[3] + dense[4]
                                 - out["layer_fwd_s"], shape)
    return out


def _checked_folding(plans: dict, tpf, sp, dp_cp, epf, replicas):
    """The plans' expert tensor-parallel sizes (``shapes.expert_tp``), with the rules MoE
    parallel folding (etp = 1 < tp) adds checked: sequence parallelism (the MoE layer takes the
    rank's own ``x/tp`` tokens, as Megatron-Core's folded layout does), no HSDP shard group
    (not priced), and ``ep`` dividing ``tp·dp·cp`` (ETP × EP × EDP = TP × CP × DP; at etp = tp
    ``ep`` divides dp·cp, ``parallel.RULES["ep_group"]``). ``ValueError`` naming the first
    broken rule."""
    etf = expert_tp(plans, tpf)
    folded = etf < tpf
    if not np.any(folded):
        return etf
    checks = (
        (~np.asarray(sp, dtype=bool), "etp=1 below tp needs sequence_parallel=True (the MoE "
                                      "layer takes each rank's own x/tp tokens)"),
        (np.asarray(replicas) > 1, "etp=1 below tp is not priced with an HSDP shard group "
                                   "(fsdp_shard_size below dp·cp)"),
        (np.fmod(tpf * dp_cp, epf) != 0, "with etp=1, ep must divide tp·dp·cp"),
    )
    for bad, rule in checks:
        bad = np.broadcast_to(folded & bad, np.broadcast(folded, bad).shape)
        if np.any(bad):
            i = int(np.flatnonzero(np.ravel(bad))[0])
            where = f" (plan {i + 1} of {bad.size})" if bad.size > 1 else ""
            raise ValueError(f"etp=1{where} breaks the rule: {rule}")
    return etf


def _with_backward_gemms(totals: tuple, gemm_f, gemm_b) -> tuple:
    """``layer_totals``' parts with the matmul part's backward ``2·G`` replaced by the backward
    GEMMs' time ``G_b`` (``layer_compute``'s ``gemm_b_*``: ``2f·G`` for the FP8 GEMMs on Hopper,
    ``StepOptions.fp8_split_accumulator``): ``matmul = G + G_b``."""
    return (totals[0] + (gemm_b - 2.0 * gemm_f),) + tuple(totals[1:])


def _layer_parts(c, lc, cm, sp, rc, o: ResolvedOptions, epf, zeros, unpaired=0.0,
                 cpf=1.0) -> tuple:
    """One dense and one MoE layer's times per micro-batch (``layer_totals``: matmul, attention,
    memory-bound, recompute, exposed TP, CP, EP, MoE dispatch, and the MoE layer's host cost),
    with TP exposed as ``tp_exposure`` says (the column-parallel share of the layer's GEMMs
    hides the all-gathers), CP as ``cp_exposure`` (``cpf``: the CP degree) and EP as
    ``ep_exposure`` (``unpaired``: ``unpaired_share``). Returns ``(dense, moe, tp_d)``: the
    tuples of parts (zeros for a dense model's MoE layer) and the dense layer's exposed TP
    (forward, backward)."""
    col_f_dense = lc["t_qkv"] + lc["t_fc1"]
    col_frac = col_f_dense / np.maximum(lc["gemm_f_dense"], 1e-30)
    tp_d = tp_exposure(cm["tp_fwd_s"], cm["tp_bwd_s"], lc["gemm_f_dense"], col_f_dense, sp,
                       o.tp_overlap)
    cp_e = (torch_ring_exposure(cm["cp_fwd_s"], cm["cp_dkv_s"], lc["t_core_f"], lc["t_core_b"],
                                cpf, o.cp_ring_compiled) if o.cp_torch_ring else
            cp_exposure(cm["cp_fwd_s"], cm["cp_bwd_s"], lc["t_core_f"], lc["t_core_b"], cpf,
                        o.cp_overlap))
    sac_mm = lc["t_sac_mm"] if (o.stack.selective_policy == "every_other_mm"
                                and not c.mla) else None
    dense = _with_backward_gemms(early_stopped(
        layer_totals(lc, lc["gemm_f_dense"], lc["ew_f_t"], lc["ew_b_t"], *tp_d, *cp_e, zeros,
                     zeros, rc, sac_mm), lc["t_fc2"], rc, o.recompute_early_stop),
        lc["gemm_f_dense"], lc["gemm_b_dense"])
    if not c.is_moe:
        return dense + (zeros,), tuple(zeros for _ in range(8)), tp_d
    tp_m = tp_exposure(cm["tp_moe_fwd_s"], cm["tp_moe_bwd_s"], lc["gemm_f_moe"],
                       col_frac * lc["gemm_f_moe"], sp, o.tp_overlap)
    ep_f, ep_b = ep_exposure(cm["ep_fwd_s"] * o.moe_factor, cm["ep_bwd_s"] * o.moe_factor,
                             lc["gemm_f_moe"] + lc["t_core_f"] + lc["ew_f_moe"],
                             lc["gemm_b_moe"] + lc["t_core_b"] + lc["ew_b_moe"],
                             o.ep_overlap, unpaired)
    moe = _with_backward_gemms(layer_totals(lc, lc["gemm_f_moe"], lc["ew_f_moe"], lc["ew_b_moe"],
                                            *tp_m, *cp_e, ep_f, ep_b, rc),
                               lc["gemm_f_moe"], lc["gemm_b_moe"])
    # the MoE layer's host-bound fixed cost per micro-batch (moe_layer: router, dispatch
    # bookkeeping and its host sync, per-local-expert launches), serial with its compute
    moe = moe + (moe_layer.moe_host_overhead_unchecked(
        max(c.E, 1), epf, rc, o.moe_layer_host_s, o.moe_expert_host_s) + zeros,)
    return dense + (zeros,), moe, tp_d


@dataclass(frozen=True)
class StageGeometry:
    """The arrays of a batch of plans that ``_stage_parts`` reads: tokens per micro-batch on a
    rank ``x``, the sizes (``tp``, ``pp`` integer; ``dp``, ``cp``, ``ep`` float), virtual stages
    ``v``, ZeRO stage ``z``, full recomputation ``full``, the broadcast ``shape``, ``pp_split``,
    the LM head's tokens ``sp_tokens``, the GEMM ``peak`` (FLOP/s) and ``hbm`` (bytes/s), and the
    HSDP ``shard`` / ``replicas`` (None without hybrid sharding), the LM head's
    ``head_peak`` (FLOP/s; None: ``peak``) and the expert tensor-parallel size ``etp``
    (``shapes.expert_tp``; None: ``tp``), and ``kept``: the ZeRO-3 rows that keep each unit's
    gathered weights from the forward to the backward whatever the stack's policy (PyTorch
    FSDP's ZeRO-2, ``fsdp_zero_stage``; None: none)."""

    x: object
    tp: object
    pp: object
    dp: object
    cp: object
    ep: object
    v: object
    z: object
    full: object
    shape: tuple
    pp_split: object
    sp_tokens: object
    peak: float
    hbm: float
    shard: object = None
    replicas: object = None
    head_peak: float | None = None
    etp: object = None
    kept: object = None


def fsdp_zero_stage(zero_stage, stack):
    """``(z, kept)``: the ZeRO stages the engine prices, and which of them keep each unit's
    gathered weights through the backward. On a stack whose sharding is PyTorch FSDP
    (``stacks.Stack.pytorch_fsdp``) ZeRO-2 is FSDP's SHARD_GRAD_OP (FSDP2:
    ``fully_shard(reshard_after_forward=False)``): the parameters are unsharded before the
    forward, kept after it and resharded only after the backward, outside ``no_sync()``
    (PyTorch ``torch/distributed/fsdp/api.py``, ``ShardingStrategy``), and the gradients
    reduce-scattered in each backward. With the defaults (no ``no_sync``; FSDP2 reshards and
    reduce-scatters after every micro-batch's backward unless the run turns that off; Composer's
    ``ddp_sync_context`` acts on DDP models only) each unit is gathered once per micro-batch and
    reduce-scattered in its backward: ZeRO-3's traffic with no backward gather
    (``fsdp_backward_gathers`` of ``"false"``), as the validation table prices llm-foundry's
    SHARD_GRAD_OP runs, not the generic ZeRO-2 (the weights gathered once per step after the
    optimizer). ``kept`` marks those rows (all False elsewhere). Not carried over: the plan
    search's ZeRO-3 margin and ``upper_bound`` flag (``parallel.margin_weighted_step_s``,
    ``ranking._mark_ranking``) still read the ZeRO stage alone."""
    z = np.asarray(zero_stage)
    kept = (z == 2) & bool(stack.pytorch_fsdp)
    return np.where(kept, 3, z), kept


def _stage_parts(model, c, cm, dense, moe, g: StageGeometry, o: ResolvedOptions) -> list:
    """Per-micro-batch and per-step times of the first, a middle (for MoE the busiest middle)
    and the last pipeline stage: their layers (``layer_totals`` × layer counts), the LM head and
    loss (last stage: a ``x × h × V/t`` GEMM ×3, fp32 cross-entropy 14 + 6 bytes per logit) and
    embedding (first stage: 8 bytes per token and channel) with their TP collectives, DP/ZeRO
    traffic through ``zero_exposure`` (and, with ``o.fsdp_copies``, FSDP2's copy-out of each
    gather and copy-in of each reduce-scatter in the memory-bound part, ``fsdp_copies_s``), pipeline P2P (one activation and one
    gradient per model chunk per micro-batch, exposed unless ``pp_overlap``) and
    ``optimizer_time``.

    ``g``: the plans' arrays (``StageGeometry``); ``o``: the resolved options (overlaps, FSDP
    features, recipe, sustained kernel rates ``keff``).

    Hybrid sharding (``shard`` f < dp·cp, ``replicas`` r = dp·cp/f; ``zero_exposure`` gives the
    formulas): ZeRO-3's per-layer gathers and reduce-scatters run over the f consecutive ranks
    of the shard group (stride tp; routed experts over f/ep ranks at stride tp·cp·ep), the
    per-step all-reduce of each rank's gradient shard over the r replicas (stride f·tp; experts
    f·tp·cp), and the optimizer updates a 1/f shard."""
    tp, pp, v, z, shape = g.tp, g.pp, g.v, g.z, g.shape
    tpf, ppf = tp.astype(float), pp.astype(float)
    head_mm, head_mem, emb_mem, edge_tp = _edge_terms(c, cm, g, o, tpf)
    bw_e = g.hbm * o.keff.hbm_fraction
    opt_bytes = optimizer_bytes_per_param(o.recipe)
    # per-rank parameters (for DP traffic and the optimizer): a dense layer, an MoE layer's
    # non-expert part, its routed experts, the embedding and the LM head
    p_dense, p_moe, p_exp = layer_params(c, tpf, g.ep, g.etp)
    p_emb, _, p_head = edge_params(c, tpf, ppf)
    dp = _DPTraffic(cm["fig"], g, o, tpf)

    def pick(p_j, d_arr, m_arr):
        mid = min(1, p_j - 1)
        if p_j > 2 and c.is_moe:
            mid = 1 + int(np.argmax(d_arr[1:-1] + m_arr[1:-1]))
        return (0, mid, p_j - 1)

    stage_r, stage_dense, stage_moe = stage_candidates(model, pp, v, shape, g.pp_split, pick)
    names = ("matmul", "attn", "mem", "rc", "tp", "cp", "ep", "moe")
    mtp, mtp_moe, mtp_proj = mtp_terms(model, c, g, o, tpf)
    # the same for every stage: the last stage's MTP modules, LM head and loss (each module one
    # more head), the pipeline P2P and the groups the optimizer's shards span
    mtp_d, mtp_m = mtp * (1 - mtp_moe), mtp * mtp_moe
    last_mm, last_mem = (1 + mtp) * head_mm, (1 + mtp) * head_mem
    # "interleaved" (stacks.PP_OVERLAP_MODES): overlapped only with v > 1 (stacks.pp_overlap_on)
    pp_on = (v > 1) if isinstance(o.pp_overlap, str) else o.pp_overlap
    pp_part = _pick(pp_on, 0.0, _pick(pp > 1, 2.0 * v * cm["pp_p2p_s"], 0.0))
    opt_ne, opt_ex = _pick(z == 3, dp.f_ne, dp.g_dp), _pick(z == 3, dp.f_ex, dp.g_ex)
    per_stage = []
    for r, nd, nm in zip(stage_r, stage_dense, stage_moe):
        first, last = r == 0, r == pp - 1
        # multi-token prediction on the last stage (Megatron-Core's default placement)
        md, mm = _pick(last, mtp_d, 0.0), _pick(last, mtp_m, 0.0)
        nd, nm = nd + md, nm + mm               # the stage's dense and MoE blocks, MTP's too
        part = {k: nd * dense[j] + nm * moe[j] for j, k in enumerate(names)}
        part["matmul"] = part["matmul"] + _pick(last, last_mm, 0.0) + (md + mm) * mtp_proj
        part["mem"] = part["mem"] + _pick(last, last_mem, 0.0) + _pick(first, emb_mem, 0.0)
        part["tp"] = part["tp"] + _pick(last, edge_tp, 0.0) + _pick(first, edge_tp, 0.0)
        fwd_compute = (part["matmul"] + part["attn"] + part["mem"]) / 3.0
        p_ne = nd * p_dense + nm * p_moe + _pick(first, p_emb, 0.0) \
            + _pick(last, p_head, 0.0) + (md + mm) * 2.0 * c.h * c.h / tpf
        p_ex = nm * p_exp
        part["dp_mb"], part["dp_step"] = dp.exposure(p_ne, p_ex, np.maximum(nd + nm, 1.0),
                                                     fwd_compute)
        if o.fsdp_copies:             # FSDP2's copy-out and copy-in, serial with compute
            part["mem"] = part["mem"] + _pick(
                z == 3, fsdp_copies_s(p_ne + p_ex, dp.own_gathers, dp.gb, bw_e), 0.0)
        part["pp"] = pp_part
        part["opt"] = optimizer_time(p_ne, p_ex, z, opt_ne, opt_ex, opt_bytes, bw_e)
        per_stage.append(part)
    return per_stage


def mtp_terms(model: ModelSpec, c, g: StageGeometry, o: ResolvedOptions, tpf) -> tuple:
    """``(modules, block_is_moe, proj_s)``: the multi-token-prediction modules the last
    pipeline stage runs per micro-batch (``ModelSpec.mtp_depth``; "By default, all MTP layers
    sit on the last pipeline stage", Megatron-Core user guide, Multi-Token Prediction), whether
    each module's transformer block is an MoE layer (1.0) or dense (0.0), and the time of its
    projection ``M_k`` of ``2·d → d``: a ``x × 2h × h/t`` GEMM at the step's dtype, forward and
    backward (× (1 + 2f), ``f`` the FP8 backward factor ``ResolvedOptions.fp8_backward_gemm``,
    1 in BF16: × 3).
    Each module costs the last stage one transformer layer of that kind, one more LM head and
    loss (the shared head recomputes the logits of the whole vocabulary) and the projection, as
    DeepSeek-AI 2024 (arXiv:2412.19437) §2.2 describes the module; its parameters join the
    stage's DP traffic and optimizer."""
    proj_s = (1.0 + 2.0 * o.fp8_backward_gemm) * _gemm_time(g.x, 2.0 * c.h, c.h / tpf, g.peak,
                                                             o.keff, g.hbm, o.gemm_shape)
    return float(model.mtp_depth), float(model.mtp_block_is_moe), proj_s


def _edge_terms(c, cm, g: StageGeometry, o: ResolvedOptions, tpf) -> tuple:
    """The first and last stages' extra work per micro-batch: ``(head matmul, head and loss
    memory-bound, embedding memory-bound, TP collectives of one edge)`` seconds. The LM head is
    a ``x × h × V/t`` GEMM ×3 at the step's dtype, or BF16 under ``fp8_as_run`` (DeepSeek-V3
    §3.3.1); in FP8 its backward pays the FP8 factor, × (1 + 2f)
    (``ResolvedOptions.fp8_backward_gemm``); the fp32 cross-entropy moves 14 + 6 bytes per logit; the embedding 8 bytes per
    token and channel, at the achievable HBM bandwidth."""
    x = g.x
    bw_e = g.hbm * o.keff.hbm_fraction
    t_head = _gemm_time(x, c.h, c.V / tpf, g.head_peak or g.peak, o.keff, g.hbm,
                        o.edge_gemm_shape)
    ce_f, ce_b = 14.0 * x * c.V / tpf / bw_e, 6.0 * x * c.V / tpf / bw_e
    head_mem = ce_f + ce_b + 8.0 * g.sp_tokens * c.h / bw_e
    emb_mem = (4.0 * x * c.h + 4.0 * x * c.h) / bw_e
    f_b = o.fp8_backward_gemm if o.edge_dtype == "fp8" else 1.0
    return (1.0 + 2.0 * f_b) * t_head, head_mem, emb_mem, cm["edge_tp_s"]


class _DPTraffic:
    """A stage's data-parallel and ZeRO traffic (``_stage_parts``): the ZeRO groups of the dense
    parameters (dp·cp ranks at stride tp) and of the routed experts (the expert-data-parallel
    group, ``tp·dp·cp / (etp·ep)`` ranks at stride etp·ep, the experts' own rank order
    etp-ep-edp since Megatron-Core 0.10, ``parallel_state.initialize_model_parallel``'s expert
    rank generator: dp·cp/ep at stride tp·ep at etp = tp, tp·dp·cp/ep at stride ep under MoE
    parallel folding, etp = 1), ZeRO-3's shard groups (HSDP: f < dp·cp) and their replicas,
    and the collectives' times through NCCL's cost model (``comm.nccl_collective_time``)."""

    def __init__(self, fig, g: StageGeometry, o: ResolvedOptions, tpf):
        self.fig, self.o, self.z = fig, o, g.z
        etp = tpf if g.etp is None else g.etp
        self.g_dp = g.dp * g.cp                            # ZeRO group of the dense parameters
        self.g_ex = np.maximum(self.g_dp * tpf / (etp * g.ep), 1.0)   # ... of the routed experts
        self.st_dp, st_ex = tpf, etp * g.ep
        self.gb, self.wb = float(o.recipe.grads_bytes), 2.0  # reduced grad, gathered 16-bit weight
        # ZeRO-3's shard group (HSDP: f < dp·cp ranks; else the ZeRO group) and its replicas
        self.f_ne = self.g_dp if g.shard is None else g.shard
        self.f_ex = np.maximum(self.f_ne * tpf / (etp * g.ep), 1.0)
        self.reps = np.ones_like(self.f_ne) if g.replicas is None else g.replicas
        self.hsdp = bool(np.any(self.reps > 1))
        self.zero_groups = (self.g_dp, self.st_dp, self.g_ex, st_ex)
        self.shard_groups = (self.f_ne, self.st_dp, self.f_ex, st_ex)
        # the replicas of one shard: the next shard group's rank in the same place. With rank
        # order tp-cp-ep-dp a shard group is f·tp consecutive ranks holding whole expert groups,
        # so the replica of a dense or a routed-expert shard is f·tp ranks on (as
        # comm.placement); e.g. tp1, cp2, ep2, dp8, f = 4: rank 0's replica is rank 4
        self.replica_groups = (self.reps, self.f_ne * tpf, self.reps, self.f_ne * tpf)
        kept = False if g.kept is None else g.kept   # FSDP's ZeRO-2 (fsdp_zero_stage)
        self.bwd_gathers = _pick(kept, 0.0, fsdp_backward_gathers(
            o.fsdp_reshard_after_forward, g.pp, g.full, o.stack.recompute_regathers))
        # the gathers FSDP2 itself issues (fsdp_copies_s): the recomputed forward re-uses
        # the backward's
        self.own_gathers = 1.0 + _pick(kept, 0.0, fsdp_backward_gathers(
            o.fsdp_reshard_after_forward, g.pp, np.zeros_like(g.full, dtype=bool)))
        self.full = g.full

    def time(self, op, p_ne, p_ex, nbytes, pieces=1.0, agg=True, groups=None):
        """NCCL's cost model (``comm.nccl_collective_time``): latency growing with the group's
        ranks and nodes, and the bandwidth the message achieves at that scale; ``pieces`` equal
        collectives (ZeRO-3 gathers a layer in the stack's number of collectives); ``agg``:
        whether the rings aggregate a domain's NICs (the stack's ``fsdp_nic_aggregation``);
        ``groups``: (dense size, stride, expert size, stride), the ZeRO groups by default."""
        n_ne, s_ne, n_ex, s_ex = self.zero_groups if groups is None else groups
        return pieces * (self.fig.nccl(op, p_ne * nbytes / pieces, n_ne, s_ne, agg)
                         + _pick(p_ex > 0,
                                 self.fig.nccl(op, p_ex * nbytes / pieces, n_ex, s_ex, agg),
                                 0.0))

    def exposure(self, p_ne, p_ex, n_layers, fwd_compute) -> tuple:
        """``zero_exposure`` of a stage with ``p_ne`` dense and ``p_ex`` routed-expert
        parameters per rank over ``n_layers`` layers: ZeRO-0 all-reduces the gradients, ZeRO-1/2
        reduce-scatter them and all-gather the weights, ZeRO-3 gathers each layer's weights
        before its forward and backward (and, where the stack's recomputation gathers again,
        the recomputed forward: ``fsdp_backward_gathers``) and reduce-scatters its
        gradients every micro-batch; HSDP all-reduces each rank's gradient shard over the
        replicas once per step. Returns ``(per micro-batch, per step)`` seconds.

        Arrays of plans time every stage's collectives (each plan's picked by its stage); one
        plan only its own stage's (``runs``): the others' are 0, which its stage never reads."""
        o, z, gb, wb = self.o, self.z, self.gb, self.wb

        def runs(*stages) -> bool:
            return np.ndim(z) > 0 or int(z) in stages

        rs = self.time("reduce_scatter", p_ne, p_ex, gb) if runs(1, 2) else 0.0
        grad = _pick(z == 0, self.time("all_reduce", p_ne, p_ex, gb) if runs(0) else 0.0,
                     _pick(z == 1, rs, 0.0))
        if self.hsdp:
            grad = _pick((z == 3) & (self.reps > 1),
                         self.time("all_reduce", p_ne / self.f_ne, p_ex / self.f_ex, gb,
                                   groups=self.replica_groups), grad)
        pieces, agg = float(o.fsdp_collectives_per_layer), o.fsdp_nic_aggregation
        z3_gather, z3_rs = (n_layers * self.time(op, p_ne / n_layers, p_ex / n_layers, b, pieces,
                                                 agg, self.shard_groups) if runs(3) else 0.0
                            for op, b in (("all_gather", wb), ("reduce_scatter", gb)))
        return zero_exposure(
            z, o.dp_overlap, fwd_compute,
            gather=z3_gather, z3_rs=z3_rs, n_gathers=1.0 + self.bwd_gathers, rs=rs, grad=grad,
            wgather=_pick((z == 1) | (z == 2), self.time("all_gather", p_ne, p_ex, wb), 0.0)
            if runs(1, 2) else 0.0,
            n_layers=n_layers, prefetch_layers=o.fsdp_prefetch_layers,
            backward_compute=(2.0 + _pick(self.full, 1.0, 0.0)) * fwd_compute,
            # HSDP: the replicas' all-reduce shares the NICs with the last backward's
            # shard-group traffic when the shard group spans scale-up domains
            grad_link_busy=_pick(
                (z == 3) & (self.reps > 1) & (self.f_ne * self.st_dp > self.fig.domain),
                self.bwd_gathers * z3_gather + z3_rs, 0.0) if self.hsdp else 0.0,
            replica_per_microbatch=o.hsdp_all_reduce == "per_microbatch",
            backward_prefetch=o.fsdp_backward_prefetch)


def add_straggler(parts: dict, n_gpus, straggler=True) -> dict:
    """Add ``straggler_s``, the time a synchronous step waits for its slowest GPU, to the parts
    of ``compose_pipeline``::

        straggler_s = (matmul + attention + memory_bound + recompute) × slowdown(N)
        slowdown(N) = σ · (e(N) − e(8))     (``straggler.straggler_slowdown``)

    ``e(N)`` the expected maximum of N standard normals, σ = ``straggler.GPU_SPEED_CV`` (1.48%:
    Sinha et al. SC22's 8% spread of identical GPUs), 8 the GPUs of the kernel-constant fit;
    N = ``n_gpus`` (the plan's dp·tp·pp·cp). ``straggler=False``: 0. Returns a new dict.

    Raises ``ValueError`` unless ``straggler`` is True or False.
    """
    if not isinstance(straggler, (bool, np.bool_)):
        raise ValueError(f"straggler={straggler!r} must be True or False (whether the step "
                         "waits for its slowest GPU, llmcost.straggler)")
    out = dict(parts)
    if straggler:
        compute = sum(np.asarray(parts[k], dtype=float) for k in _COMPUTE_PARTS)
        out["straggler_s"] = compute * straggler_slowdown(np.rint(n_gpus))
    else:
        out["straggler_s"] = 0.0 * np.asarray(parts["matmul_s"], dtype=float)
    return out


def _step_totals(model, parts, shape, *, s, tokens, n_gpus, peak, rc) -> dict:
    """Step time = the sum of ``PARTS``; MFU = model FLOPs per step ÷ (step time × n_gpus ×
    peak), model FLOPs ``tokens × ModelSpec.flops_per_token(s, causal=False)`` (the workbook's
    MFU basis); HFU the same with the recomputed FLOPs (``recompute=...``)."""
    parts = {k: _shaped(val, shape) for k, val in parts.items()}
    total = sum(parts[k] for k in PARTS)
    fpt = float(model.flops_per_token(s, causal=False))
    hw = _pick(rc == 2, float(model.flops_per_token(s, causal=False, recompute="full")),
               _pick(rc == 1, float(model.flops_per_token(s, causal=False, recompute="selective")),
                     fpt))
    out = dict(parts)
    out["step_time_s"] = total
    out["model_flops"] = _shaped(tokens * fpt, shape)
    out["hardware_flops"] = _shaped(tokens * hw, shape)
    out["mfu"] = out["model_flops"] / (total * n_gpus * peak)
    out["hfu"] = out["hardware_flops"] / (total * n_gpus * peak)
    out["tokens_per_s"] = _shaped(tokens / total, shape)
    out["exposed_comm_s"] = sum(parts[k] for k in ("tp_comm_s", "cp_comm_s", "ep_comm_s",
                                                    "pp_comm_s", "dp_comm_s"))
    return out


def _shaped(val, shape: tuple):
    """``val`` as a float array of the plans' ``shape``: a read-only broadcast view
    (``np.broadcast_to``), or for one plan (``shape == ()``) its 0-d array as it is (the same
    value, without the view's cost)."""
    a = np.asarray(val, dtype=float)
    return a if shape == () and a.shape == () else np.broadcast_to(a, shape)


def _load_eff(cluster: Cluster) -> Efficiency:
    eff = load_efficiency(cluster.accelerator)
    if getattr(cluster, "scaleout_latency_s", None) is not None:  # given by the scenario
        eff = eff.replace(scaleout_latency_s=float(cluster.scaleout_latency_s))
    return eff


# ----------------------------------------------------------------------------- one plan
@dataclass(frozen=True)
class StepBreakdown:
    """Where one optimizer step's time goes, on the busiest GPU, in seconds.

    The parts (``PARTS``) add up to ``step_time_s``. ``mfu`` is on the workbook's MFU basis
    (model FLOPs, full attention mask, no recomputation); ``hfu`` counts the recomputed FLOPs.
    ``efficiency_row`` names the ``data/efficiency.csv`` row used (``"default"`` when the
    accelerator has no measurements of its own) and ``stack`` the software-stack profile
    (``llmcost.stacks``).
    """

    matmul_s: float
    attention_s: float
    memory_bound_s: float
    recompute_s: float
    straggler_s: float
    tp_comm_s: float
    cp_comm_s: float
    ep_comm_s: float
    moe_host_s: float
    pp_comm_s: float
    stage_imbalance_s: float
    pipeline_bubble_s: float
    dp_comm_s: float
    optimizer_s: float
    step_time_s: float
    mfu: float
    hfu: float
    tokens_per_s: float
    model_flops: float
    n_gpus: int
    plan: str = ""
    efficiency_row: str = ""
    stack: str = ""

    @property
    def compute_s(self) -> float:
        """Matmul + attention + memory-bound + recompute time."""
        return sum(getattr(self, p) for p in _COMPUTE_PARTS)

    @property
    def exposed_comm_s(self) -> float:
        """Communication not hidden behind compute (TP, CP, EP, PP, DP)."""
        return self.tp_comm_s + self.cp_comm_s + self.ep_comm_s + self.pp_comm_s + self.dp_comm_s

    @property
    def parts(self) -> dict:
        return {p: getattr(self, p) for p in PARTS}

    def to_frame(self) -> pd.DataFrame:
        """One row per part plus ``total``: seconds, share of the step and what it is."""
        rows = [{"part": p.removesuffix("_s"), "seconds": getattr(self, p),
                 "share": getattr(self, p) / self.step_time_s, "note": PART_NOTES[p]}
                for p in PARTS]
        rows.append({"part": "total", "seconds": self.step_time_s, "share": 1.0,
                     "note": f"predicted MFU {self.mfu:.1%} (HFU {self.hfu:.1%})"})
        return pd.DataFrame(rows).set_index("part")


def step_time(model: ModelSpec, cluster: Cluster, plan: ParallelPlan, seq_len=None, *,
              options: StepOptions | None = None, **keywords) -> StepBreakdown:
    """Predicted time of one optimizer step of ``plan`` and where it goes.

    Parameters
    ----------
    model : ModelSpec
    cluster : Cluster
        Accelerator, GPU count, scale-up domain and per-direction link bandwidths. The plan may
        use at most ``cluster.n_gpus`` GPUs.
    plan : ParallelPlan
        Checked against the model's rules (``ParallelPlan.validate``).
    seq_len : int, optional
        Tokens per sequence (default: the model's).
    options : StepOptions, optional
        Every setting below in one object (``options.StepOptions``: built by hand, from a
        scenario with ``scenario_step_options``, or from these keywords). Keywords given too
        replace its fields (``StepOptions.build``).
    recipe : str
        Precision recipe (``llmcost.memory.RECIPES``): gradient bytes reduced by DP and the
        optimizer's memory traffic.
    flash_attention : bool or "auto"
        Fused attention kernel ("auto": the stack has FlashAttention).
    dropout : bool
        Dropout masks (Megatron-LM 2021–22 GPT runs: no FlashAttention, dropout on).
    dtype : {"bf16", "fp8"}
        GEMM precision (the MFU's peak); attention and element-wise work stay 16-bit.
    tp_overlap : {"none", "backward", "all", "auto"}
    pp_overlap, dp_overlap : bool or "auto"
        The overlap rules of the module docstring ("auto": the stack's).
    efficiency : Efficiency, optional
        Achievable fractions, used as given (default: ``catalog.load_efficiency`` with the
        stack's FlashAttention fraction for the hardware generation, ``stacks.step_options``);
        the engine multiplies its kernel fractions by ``kernel_efficiency``.
    kernel_efficiency : float in (0, 1], optional
        Sustained share of the burst kernel rates (default ``KERNEL_EFFICIENCY``).
    stack : str or Stack, optional
        Software-stack profile (``stacks.load_stack``) whose features and overlaps the "auto"
        options take; default ``stacks.DEFAULT_STACK``, whose options are the model's
        historical defaults (FlashAttention-2, backward TP overlap, PP and DP overlap).
    **keywords
        The fields above and ``PHYSICS_OPTIONS`` ("auto" = the stack's): ``fsdp_prefetch_layers``,
        ``fsdp_collectives_per_layer``, ``fsdp_nic_aggregation``, ``ep_overlap``,
        ``moe_routing``, ``moe_capacity_factor``, ``moe_imbalance``; ``moe_dispatch``
        (``comm.MOE_DISPATCH``: k copies per token, one per destination GPU, or one network copy
        per destination node, ``comm.moe_dispatch_copies``), ``moe_gate`` (``comm.MOE_GATES``:
        ``"learned"``, ``"fake_balanced"`` or ``"random"``, ``comm.moe_destinations``), ``moe_node_limit`` (None or nodes per
        token), ``fsdp_reshard_after_forward`` (True, False, ``"not_pp"`` or "auto":
        ``fsdp_backward_gathers``), ``fsdp_backward_prefetch`` ("pre", "post" or "auto": when
        FSDP issues the next layer's backward all-gather, ``comm.fsdp_exposure``;
        ``stacks.stack_backward_prefetch``) and ``pipeline_flushes`` (pipeline schedules per optimizer
        step, >= 1, dividing the micro-batches: ``compose_pipeline``), ``moe_dispatch_dtype``
        (``"bf16"``, ``"fp8"`` or "auto": the dispatch's bytes, ``comm.MOE_DISPATCH_BYTES``; the
        combine is BF16); ``straggler`` (default True: ``straggler_s``, the wait for the slowest
        of the plan's GPUs, ``add_straggler``; False: 0).

    Returns
    -------
    StepBreakdown (parts add up to ``step_time_s``).

    Raises
    ------
    ValueError
        A plan using more GPUs than the cluster, a plan breaking a model rule, an unknown
        option, an accelerator without an HBM bandwidth or a peak for ``dtype``; a feature the
        stack lacks (``stacks.missing_features``: e.g. ZeRO-3 on megatron-core-2024), named,
        unless ``missing_features="price"``, which prices it as if the stack had it and warns
        (``stacks.StackFeatureWarning``).
    """
    model, cluster, s = checked_step_inputs(model, cluster, plan, seq_len, keywords)
    opts = StepOptions.build(options, **keywords)
    o = opts.resolve_on(cluster)
    check_missing_features(o.stack, plan, opts.dtype, model.n_kv_heads, opts.missing_features)
    warn_if_plan_overflows(model, cluster, plan, s, o)
    eff = opts.efficiency if opts.efficiency is not None else _load_eff(cluster)
    return breakdown_of(_engine(model, cluster, plan.to_dict(), s, o), plan, eff.accelerator,
                        o.stack.name)


class PlanDoesNotFitWarning(UserWarning):
    """A plan ``step_time`` prices whose model states per GPU (``memory.memory_per_gpu``'s
    weights, gradients, master weights and optimizer states) are above the accelerator's whole
    HBM: no run with it could start."""


def warn_if_plan_overflows(model: ModelSpec, cluster: Cluster, plan: ParallelPlan, seq_len: int,
                           o: ResolvedOptions) -> None:
    """Warn (``PlanDoesNotFitWarning``) when the plan's model states on the GPU holding most
    of them (``MemoryBreakdown.model_states``: weights + gradients + master weights + optimizer states
    under the plan's TP, PP, EP and ZeRO stage and the options' recipe) exceed the
    accelerator's whole HBM. Model states alone, not activations: what a run keeps of its
    activations depends on practice ``step_time`` is not told (offload, recomputed modules,
    FP8 saved inputs: several published runs fit only with theirs), while no practice shrinks
    the model states below their sharded size (short of CPU offload of the optimizer); and no
    reserve taken off. A new-user trial priced Llama 2 70B at TP8 on 8 H100s (its model states
    155 GB per GPU, 166.6 GB in all, on an 80 GB card) at 46% MFU with no word; the plan search
    (``rank_plans``) and a scenario's plan keep only plans that fit. A warning, not an error:
    an engine is also a calculator of what-ifs."""
    hbm = cluster.accelerator.hbm_bytes
    if not hbm:
        return
    practice = stack_memory_practice(o.stack, o.dtype)
    # the stage with the most model states: the first (embedding), the last (LM head) or the
    # one with the most layers, not the busiest in all (a review: an uneven split's stage of
    # most activations hid a later stage's larger states)
    dense, moe = stage_layers(model, plan.pp, plan.virtual_stages, plan.pp_split)
    heavy = int(np.argmax(np.asarray(dense, dtype=float) + np.asarray(moe, dtype=float)))
    mem = max((memory_per_gpu(model, plan, seq_len, recipe=o.recipe,
                              flash_attention=o.flash_attention, dropout=o.dropout,
                              fsdp_reshard_after_forward=o.fsdp_reshard_after_forward,
                              stage=st, practice=practice)
               for st in sorted({0, plan.pp - 1, heavy})), key=lambda mb: mb.model_states)
    if mem.model_states > hbm:
        warnings.warn(PlanDoesNotFitWarning(
            f"the plan {plan.describe()} keeps {mem.model_states / 1e9:,.1f} GB of model states "
            f"per GPU ({mem.total / 1e9:,.1f} GB in all, llmcost.memory.memory_per_gpu), more "
            f"than the {hbm / 1e9:,.1f} GB of HBM of {cluster.accelerator.name}: a run with it "
            "could not start; the step is priced as if it fit (llmcost.rank_plans lists the "
            "plans that fit, where any does)"), stacklevel=3)


def checked_step_inputs(model, cluster, plan, seq_len, keywords: dict) -> tuple:
    """``step_time``'s inputs, checked: (ModelSpec, Cluster, tokens per sequence, default the
    model's). A ValueError for a model or cluster the catalogue cannot give, a bad ``dropout``
    or ``efficiency`` keyword, a plan that is not a ``ParallelPlan``, uses more GPUs than the
    cluster or breaks a model rule (``ParallelPlan.validate``)."""
    model, cluster = as_model(model, needs="a step time"), as_cluster(cluster)
    check_step_inputs(dropout=keywords.get("dropout", False), efficiency=keywords.get("efficiency"))
    if not isinstance(plan, ParallelPlan):
        raise ValueError(f"plan={plan!r} must be a ParallelPlan (llmcost.make_plan)")
    comm.check_plan_on_cluster(plan, cluster)
    s = model.seq_len if seq_len is None else int(as_scalar(seq_len, "seq_len", positive=True,
                                                           integer=True))
    plan.validate(model, seq_len=s)
    return model, cluster, s


def check_missing_features(stack, plan: ParallelPlan, dtype: str,
                          n_kv_heads: int | None = None, how: str = "refuse") -> None:
    """A plan the stack cannot run (a ZeRO stage, schedule or FP8 it lacks, or a tp that does not
    divide the model's ``n_kv_heads`` where it cannot replicate them, ``stacks.missing_features``)
    is refused (``how`` "refuse": a ValueError naming every missing feature and the stacks that
    have it, as the plan search never picks such a plan), or priced and said (``how`` "price":
    one ``stacks.StackFeatureWarning`` per missing feature, pointing at ``step_time``'s
    caller)."""
    msgs = stacks.missing_features(stack, plan.zero_stage, plan.schedule, plan.pp, dtype,
                                   plan.tp, n_kv_heads)
    if msgs and how == "refuse":
        raise ValueError("; ".join(msgs) + ". Choose a stack that has it (llmcost.stacks), or "
                         "price the step as if this stack had it: missing_features='price'")
    for msg in msgs:
        warnings.warn(stacks.StackFeatureWarning(
            f"{msg}. The step is priced with this stack's other features as if it had this "
            "one; choose a stack that has it (llmcost.stacks).", feature=msg), stacklevel=3)


def breakdown_of(out: dict, plan: ParallelPlan, efficiency_row: str, stack: str) -> StepBreakdown:
    """The engine's parts of one plan (``_engine``'s arrays, first element) as a
    ``StepBreakdown``."""
    vals = {f.name: float(np.asarray(out[f.name]).reshape(-1)[0]) for f in fields(StepBreakdown)
            if f.name in out}
    return StepBreakdown(**vals, n_gpus=plan.n_gpus, plan=plan.describe(),
                         efficiency_row=efficiency_row, stack=stack)


def predict_mfu(model: ModelSpec, cluster: Cluster, plan: ParallelPlan, seq_len=None, *,
                options: StepOptions | None = None, **keywords) -> float:
    """Predicted MFU of a plan (``step_time(...).mfu``; same parameters and errors)."""
    return step_time(model, cluster, plan, seq_len, options=options, **keywords).mfu


# ----------------------------------------------------------------------------- many plans
#: Options of the ZeRO-3, expert-parallel and MoE-routing physics (ZeRO-3 per-layer collectives,
#: EP all-to-all, MoE routing):
#: ``"auto"`` takes the stack's (``stacks.step_options``); ``straggler`` (True/False, default
#: True): add the wait for the slowest GPU (``add_straggler``).
PHYSICS_OPTIONS = ("fsdp_prefetch_layers", "fsdp_collectives_per_layer",
                   "fsdp_nic_aggregation", "ep_overlap",
                   "moe_routing", "moe_capacity_factor", "moe_imbalance",
                   "moe_dispatch", "moe_gate", "moe_node_limit", "fsdp_reshard_after_forward",
                   "fsdp_backward_prefetch",
                   "pipeline_flushes", "moe_dispatch_dtype", "hsdp_all_reduce", "straggler",
                   "gemm_shape", "fp8_as_run", "fp8_recipe", "fp8_split_accumulator",
                   "attention_curve", "attention_blackwell", "fp8_attention", "attention_unpad",
                   "cp_overlap", "cp_repeat_kv", "ring_unmasked", "cp_ring_compiled",
                   "recompute_early_stop", "fa1_length", "fsdp_copies",
                   "moe_layer_host_s", "moe_expert_host_s", "fp8cs_expert_launches")
#: Every option of the step-time model: the fields of ``StepOptions``.
STEP_OPTIONS = StepOptions.names()



# ----------------------------------------------------------------------------- reading a step
def time_budget(b: StepBreakdown) -> pd.DataFrame:
    """Split a step into the model FLOPs at peak speed (what MFU counts) and everything paid for
    on top: kernels running below peak, recomputation, waiting for the slowest GPU
    (``straggler_s``), exposed communication, the MoE layers' host-bound cost (``moe_host_s``:
    router, dispatch bookkeeping and launches per layer and micro-batch), the pipeline (bubble
    and stage imbalance) and the optimizer: every part of ``PARTS``.

    Returns a DataFrame indexed by category with ``seconds`` and ``share`` (of the step); the
    seconds add up to ``b.step_time_s`` and the first share equals ``b.mfu``. (A review: the
    MoE host cost, 26% of a Qwen3-235B B200 step, was left out, so "where the rest goes" summed
    to 60% of the 86% lost.)
    """
    useful = b.mfu * b.step_time_s
    kernels = b.matmul_s + b.attention_s + b.memory_bound_s
    rows = {
        "model FLOPs at peak (MFU)": min(useful, kernels),
        "kernels below peak": max(kernels - useful, 0.0),
        "recomputation": b.recompute_s,
        "waiting for the slowest GPU": b.straggler_s,
        "exposed communication": b.exposed_comm_s,
        "MoE layers' host-bound cost": b.moe_host_s,
        "pipeline bubble and imbalance": b.pipeline_bubble_s + b.stage_imbalance_s,
        "optimizer step": b.optimizer_s,
    }
    out = pd.DataFrame({"seconds": pd.Series(rows)})
    out["share"] = out["seconds"] / b.step_time_s
    return out


#: The keyword options ``rank_plans`` passes on to ``parallel.enumerate_plans``.
ENUMERATE_OPTIONS = ("tp", "pp", "cp", "ep", "virtual_stages", "micro_batch_size", "zero_stage",
                     "recompute", "schedule", "sequence_parallel", "pp_split", "reserve",
                     "hbm_bytes", "include_rejected", "fsdp_shard_size", "etp")


def check_step_inputs(*, dropout=False, efficiency=None, within_scaleup_domain=True,
                      options=None) -> None:
    """The entry checks of ``step_time`` and ``rank_plans`` the engine does not make itself, each
    a ValueError naming the argument: yes/no flags are True or False (``dropout="false"`` is
    refused, not read as true), ``efficiency`` is an ``Efficiency`` or None, and every extra
    keyword of ``rank_plans`` is an ``enumerate_plans`` option, a physics option
    (``PHYSICS_OPTIONS``) or ``prune_dominated``."""
    as_flag(dropout, "dropout")
    as_flag(within_scaleup_domain, "within_scaleup_domain")
    if efficiency is not None and not isinstance(efficiency, Efficiency):
        raise ValueError(f"efficiency={efficiency!r} must be an Efficiency "
                         "(catalog.load_efficiency(accelerator)) or None")
    known = ENUMERATE_OPTIONS + PHYSICS_OPTIONS + ("prune_dominated",)
    for k in options or {}:
        if k not in known:
            raise ValueError(f"{k}={options[k]!r} is not an option of rank_plans; the options "
                             f"are {', '.join(known)}")
    if options and "prune_dominated" in options:
        as_flag(options["prune_dominated"], "prune_dominated")


# ----------------------------------------------------------------------------- moved names
#: Names that moved to their own modules (the plan ranking, the validation against published
#: runs, the scenario's plan and step) -> that module. ``step.rank_plans``,
#: ``step.mfu_validation`` … keep resolving there for notebooks and scripts written against
#: ``step`` (a module ``__getattr__``, PEP 562, read when the name is asked for: those modules
#: import this one, so a top-level import back would be a cycle). New code imports the module.
MOVED = {
    **dict.fromkeys(("rank_by_step_time", "time_ranking", "rank_plans", "fitting_plans",
                     "add_run_cost", "TP_OVERLAP_DOMINANCE", "fastest_trusted",
                     "sharding_study", "hsdp_pays_from", "scaling_study"), "ranking"),
    **dict.fromkeys(("KORTHIKANTI_TABLE4", "gpt_model", "KORTHIKANTI_OPTIONS",
                     "layer_time_table", "calibrate_kernel_efficiency", "calibrate_moe_host_overhead",
                     "VALIDATION_SETS",
                     "OUTSIDE_SETS", "NEWER_SETS", "CALIBRATION_SET", "parallelism_kind",
                     "mfu_validation", "set_summary", "error_summary", "validation_configs"),
                    "step_validation"),
    **dict.fromkeys(("scenario_plan", "SCENARIO_DEFAULTS", "scenario_options",
                     "scenario_step_options", "scenario_step"), "step_scenario"),
}


#: ``step.<name>`` for a name of ``MOVED``: the object in its new module (``core.moved``).
__getattr__, __dir__ = moved_names(__name__, __package__, MOVED, globals())
