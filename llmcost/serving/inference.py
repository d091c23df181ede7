"""Serving: what a prefilled and a generated token cost, on a roofline.

One roofline covers both phases of LLM inference (Williams, Waterman, Patterson 2009, "Roofline",
CACM 52(4); applied to transformer inference by Pope et al. 2022, "Efficiently Scaling Transformer
Inference", arXiv:2211.05102, §2):

* **Prefill** (the prompt, all tokens at once) runs large matmuls and is compute-bound once the
  tokens in flight exceed the ridge point (peak FLOP/s ÷ HBM bytes/s ≈ 295 FLOP/B on H100 in
  BF16);
* **decode** (one token per sequence per step) reads every weight once per step for the whole
  batch, plus each sequence's KV cache, and does only 2 FLOP per weight per sequence: it is
  HBM-bandwidth-bound until the batch is very large.

Per engine step on one tensor-parallel replica of ``tp`` GPUs::

    t_step = max(FLOPs / (tp · peak · matmul_fraction),
                 HBM bytes / (tp · HBM bytes/s · hbm_fraction))   + exposed TP all-reduces

with ``matmul_fraction`` and ``hbm_fraction`` from ``data/efficiency.csv`` (the step model's
constants: the best measured GEMM throughput and the achieved bandwidth of large copies). The
roofline is an **upper bound on throughput**: real engines add kernel launches, sampling,
scheduling and attention kernels below the HBM line, so measured figures lie below it
(``serving_validation`` prints by how much).

Conventions, stated once:

* **Weights read per decode step** = every parameter except the input-embedding table (a gather
  of one row per token; read in full when tied to the LM head) and the learned position table;
  for MoE only the routed experts the batch touches (``experts_touched``). Resident weights
  (``weight_bytes``) count every parameter.
* **Weight precision** ``bf16``/``fp16`` 2 bytes, ``fp8``/``int8`` 1, ``nvfp4`` 0.5 + 1/16 and
  ``mxfp4`` 0.5 + 1/32 (block-scaled FP4, run on FP4 tensor cores at the catalogue's FP4 peak
  where the device has one, else dequantised to BF16), ``int4`` 0.5 + 2/128 =
  0.515625: one FP16 scale per group of 128 INT4 weights (GPTQ/AWQ's usual group size) adds
  2 B per 64 B, 3.1% (symmetric scales assumed; an asymmetric checkpoint's zero points, packed
  at 4 bits eight to an int32 by GPTQ and AWQ, would add 0.5 B more per group:
  0.5 + 2.5/128 B, 3.9%).
  FP8 and INT8 are per-channel or per-tensor scaled (negligible bytes). FP8 weights run W8A8
  on the FP8 tensor cores where the device has them; INT8 and INT4 are weight-only
  (dequantised to BF16 for the matmul).
* **KV cache** per token: 2·n_layers·n_kv_heads·d_head·bytes (K and V, MHA/GQA/MQA); MLA caches
  the compressed latent and the shared rotary key, (kv_lora_rank + qk_rope_head_dim)·n_layers·bytes
  (DeepSeek-V2, arXiv:2405.04434, §2.1.2-2.1.3; Table 1, §2.1.4). Sliding-window layers keep
  at most the window's tokens; ``window_layers`` is the share of layers that have the window,
  by default the model's own (``ModelSpec.n_window_layers / n_layers``: 1 for Mistral 7B, 0.5 for
  gpt-oss's and Gemma 2's alternation).
* **FLOPs per token** = 2 × active matmul weights + the attention core, 2·n_heads·(d_qk + d_v)
  per attended key per layer (the conventions of ``llmcost.model``); for MLA decode the
  weight-absorbed form that attends over the cached latent, 2·n_heads·(2·kv_lora_rank +
  qk_rope_head_dim) (DeepSeek-V2 §2.1.2; MLA prefill keeps the expanded form). A decode token
  attends to the whole context (up to the window), a prefill token to (P+1)/2 keys on average
  (causal mask). The LM head runs only on the tokens whose logits are sampled: every token of a
  decode step, each prompt's last token in a prefill (``logit_tokens``).
* **Tensor parallelism** splits weights and KV heads over ``tp`` GPUs (a KV head is replicated
  when ``tp`` exceeds the KV heads; MLA's latent cache is replicated on every rank) and costs two
  all-reduces of the activations (batch tokens × d_model × 2 bytes) per layer (Megatron-LM,
  Shoeybi et al. 2019, §3), on NVLink at the faster of NCCL's low-latency protocol and the
  ring (``tp_allreduce_time``); they are exposed (not overlapped), which at small batch makes
  them latency-bound.
* Prices: GPU-seconds × USD per GPU-hour / 3600. Input tokens are priced at prefill time, output
  tokens at decode time (a replica's GPU-seconds per token: step time × tp / tokens per step).
* **Counts.** A prompt's length (``prefill``'s ``prompt_tokens``, a generation's prompt and
  output tokens), ``tokens_per_sequence`` and ``tp`` are whole numbers: a prefill's attention
  grows with P², so a mean prompt length would not give the mean prefill. A batch and a context
  may be fractional: a step's bytes and FLOPs are affine in them (a fixed part plus a part per
  sequence and per token; a sliding window and MoE's touched experts bend it), so a mean count
  gives about the cost at the mean, and the serving model passes means there: a decode step's
  ``batch`` (continuous batching's mean live sequences, slots × occupancy, > 0) and
  ``context_tokens`` (a generation's mean context, P + R/2, >= 0), a cache's
  ``context_tokens`` (``kv_cache_bytes``, >= 0) and ``max_batch``'s (the mean length of the
  sequences held in RL rollouts, >= 1: a sequence holds at least one token); a prefill's
  ``batch`` (> 0) follows the decode step's. Counts so large that the bytes or FLOPs overflow
  a double are refused by name.
"""

from __future__ import annotations

import math
import os
import re
import warnings
from dataclasses import asdict, dataclass, field, replace
from functools import lru_cache

import numpy as np
import pandas as pd

from ..core.catalog import (DATA_DIR, as_accelerator, as_model, list_models, load_efficiency,
                            name_parts)
from ..core.diskcache import disk_cached
from ..core.hardware import Accelerator, BatchDoesNotFit, DoesNotFit, Efficiency
from ..core.model import ModelSpec
from ..core.units import (SECONDS_PER_HOUR, as_array, as_choice, as_count, as_flag, as_scalar,
                          finite_result, options_with, scalar_or_array)
from ..training.comm import mesh_peers, mesh_scaleup_bandwidth

#: Bytes per weight element by serving precision. INT4 carries one FP16 scale per group of 128
#: weights (group size 128, symmetric: 0.5 + 2/128 B); FP8/INT8 scales are per channel or tensor.
INT4_GROUP_SIZE = 128
#: FP4 block formats: NVFP4 = 4-bit E2M1 + one FP8 E4M3 scale per 16 values (+ an FP32 scale
#: per tensor, negligible): 0.5 + 1/16 = 0.5625 B per weight (NVIDIA NeMo Automodel, nvfp4
#: module docs: "one float8_e4m3fn scale per 16 contiguous columns ... 0.5625 bytes per
#: parameter"); MXFP4 = E2M1 + one E8M0 scale per block of 32 values: 0.5 + 1/32 (OCP
#: Microscaling Formats (MX) Specification v1.0, 2023: block size k = 32, shared scale E8M0;
#: implemented so in Modular MAX fp4_utils: MXFP4_SF_VECTOR_SIZE = 32, float8_e8m0fnu;
#: NVFP4_SF_VECTOR_SIZE = 16, float8_e4m3fn).
NVFP4_BLOCK, MXFP4_BLOCK = 16, 32
WEIGHT_BYTES = {"bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0,
                "int4": 0.5 + 2.0 / INT4_GROUP_SIZE,
                "nvfp4": 0.5 + 1.0 / NVFP4_BLOCK, "mxfp4": 0.5 + 1.0 / MXFP4_BLOCK}
#: Bytes per KV-cache element by precision (vLLM ``--kv-cache-dtype fp8``; TensorRT-LLM FP8 KV).
KV_BYTES = {"bf16": 2.0, "fp16": 2.0, "fp8": 1.0}
#: Bytes per activation element in the TP all-reduces (BF16 activations).
ACTIVATION_BYTES = 2.0
#: Share of HBM that holds neither weights nor KV cache. It stands for two things at once:
#: (1) the 10% vLLM never uses with its default ``gpu_memory_utilization=0.9`` (vLLM engine
#: arguments: the fraction of GPU memory the engine may use; the CUDA context and other
#: processes live outside it), and (2) approximately, the activation workspace and CUDA graphs
#: that vLLM sizes by a profiling run *inside* that 0.9 before giving the rest to the KV cache.
#: (2) is not modelled separately, so the KV capacity here is at or above vLLM's by the
#: profiled activation peak (a few GB per GPU at large ``max_num_batched_tokens``).
SERVING_RESERVE = 0.10


# ------------------------------------------------------------------------------ validation
def serving_model(model) -> ModelSpec:
    """A ``ModelSpec`` from a spec or a catalogue name, refused with the field named when it
    cannot be served (``catalog.as_model(model, needs="serving")``)."""
    return as_model(model, needs="serving")


def serving_accelerator(accelerator) -> Accelerator:
    """An ``Accelerator`` from a device or a catalogue name that has the HBM capacity and
    bandwidth serving needs; a ValueError naming it otherwise."""
    accelerator = as_accelerator(accelerator)
    if not accelerator.hbm_bytes or not accelerator.hbm_bytes_per_s:
        raise ValueError(f"accelerator={accelerator.name!r} has no HBM capacity or bandwidth in "
                         "the catalogue: serving cannot be modelled on it")
    return accelerator


def serving_efficiency(efficiency, accelerator: Accelerator) -> Efficiency:
    """``efficiency``, or the accelerator's catalogue row (``data/efficiency.csv``) when None;
    a ValueError for anything else."""
    if efficiency is None:
        return load_efficiency(accelerator)
    if not isinstance(efficiency, Efficiency):
        raise ValueError(f"efficiency={efficiency!r} must be an Efficiency or None (the "
                         "catalogue's row for the accelerator)")
    return efficiency


def _int(name, value, minimum=1):
    return as_count(value, name, minimum)


def _named(name: str, value) -> str:
    """``name=value`` for an overflow message (the name alone for an array)."""
    return f"{name}={float(value):.6g}" if np.ndim(value) == 0 else name


def _tp(tp, accelerator: Accelerator, model: ModelSpec) -> int:
    """A serving TP degree as vLLM takes it: within one scale-up domain, dividing the attention
    heads (``ModelConfig.verify_with_parallel_config``: "Total number of attention heads ... must
    be divisible by tensor parallel size") and either dividing the KV heads or a multiple of them
    (``QKVParallelLinear``: ``divide(total_num_kv_heads, tp_size)`` below the KV-head count,
    ``divide(tp_size, total_num_kv_heads)`` replicas at or above it; vllm/config.py and
    vllm/model_executor/layers/linear.py)."""
    tp = _int("tp", tp)
    domain = accelerator.scaleup_domain_size or 1
    if tp > domain:
        raise ValueError(f"tp={tp} must be <= {domain}, the GPUs in one {accelerator.name} "
                         "scale-up domain (serving TP stays on NVLink)")
    if tp > 1 and not accelerator.scaleup_bytes_per_s_per_dir:
        raise ValueError(f"tp={tp}: {accelerator.name} has no scale-up bandwidth in the catalogue")
    check_tp_heads(tp, model)
    return tp


def check_tp_heads(tp: int, model: ModelSpec) -> None:
    """``_tp``'s head rules (vLLM's, its docstring): ``tp`` divides the attention heads, and
    divides the KV heads or is a multiple of them; a ValueError naming both otherwise."""
    if model.n_heads % tp:
        raise ValueError(f"tp={tp} must divide n_heads={model.n_heads} of {model.name}")
    kv = int(model.n_kv_heads)
    if tp % kv and kv % tp:  # vLLM's QKVParallelLinear: divide(kv, tp), or divide(tp, kv)
        raise ValueError(f"tp={tp} and n_kv_heads={kv} of {model.name}: one must divide the "
                         "other (each GPU holds a whole share of the KV heads, or whole "
                         "replicas of them)")


def _compute_dtype(weight_dtype: str, accelerator: Accelerator) -> str:
    """FP8 weights run W8A8 on FP8 tensor cores where the device has them; FP4 weights
    (NVFP4, MXFP4) run W4A4 on FP4 tensor cores at the datasheet FP4 peak where the device has
    them (Blackwell), else weight-only, dequantised to BF16 (as on Hopper); others in BF16."""
    if weight_dtype == "fp8" and accelerator.peak_fp8_flops_per_s:
        return "fp8"
    if weight_dtype in ("nvfp4", "mxfp4") and accelerator.peak_fp4_flops_per_s:
        return "fp4"
    return "bf16"


# ------------------------------------------------------------------------------ bytes
def kv_cache_bytes_per_token(model, kv_dtype: str = "bf16") -> float:
    """KV-cache bytes one token adds, summed over all layers (before any sliding window).

    Formula: MHA/GQA/MQA ``2 · n_layers · n_kv_heads · d_head · bytes`` (K and V; Pope et al.
    2022 §2; Ainslie et al. 2023 for GQA); MLA ``(kv_lora_rank + qk_rope_head_dim) · n_layers ·
    bytes`` (DeepSeek-V2, arXiv:2405.04434: the compressed latent c_KV, §2.1.2, and the
    decoupled rotary key k^R, §2.1.3, are cached; Table 1, §2.1.4).

    Parameters
    ----------
    model : ModelSpec or str
    kv_dtype : {"bf16", "fp16", "fp8"}

    Returns
    -------
    float, bytes per token. Llama-3-70B in BF16 (80 layers, 8 KV heads of 128, its config.json): 2·80·8·128·2 =
    327,680 B, by hand.
    """
    m = serving_model(model)
    b = KV_BYTES[as_choice(kv_dtype, "kv_dtype", KV_BYTES)]
    if m.attention == "mla":
        return float((m.kv_lora_rank + m.qk_rope_head_dim) * m.n_layers * b)
    return float(2 * m.n_layers * m.n_kv_heads * m.d_head * b)


def kv_cache_bytes(model, context_tokens, kv_dtype: str = "bf16", window_layers=None):
    """KV-cache bytes of one sequence holding ``context_tokens`` tokens.

    Formula: per-token bytes (``kv_cache_bytes_per_token``) × [f_w · min(ctx, w) + (1 − f_w) ·
    ctx], where w is the model's ``sliding_window`` and f_w the share of layers that use it
    (Mistral 7B: every layer, w = 4096, Jiang et al. 2023 §2; Gemma 2 alternates local and
    global layers, f_w = 0.5, Gemma Team 2024, arXiv:2408.00118, §2).

    Parameters
    ----------
    model : ModelSpec or str
    context_tokens : float or array, >= 0
        Tokens in the cache; a fraction is a mean over sequences (see the module's "Counts").
    kv_dtype : {"bf16", "fp16", "fp8"}
    window_layers : float in [0, 1], optional
        Share of layers with the sliding window (default: the model's own,
        ``ModelSpec.n_window_layers / n_layers``, 0 without a window).

    Returns
    -------
    float or ndarray of bytes.

    Raises
    ------
    ValueError
        A negative or non-finite context, or one whose bytes overflow a double (the message
        names ``context_tokens``).
    """
    m = serving_model(model)
    per_token = kv_cache_bytes_per_token(m, kv_dtype)
    ctx = as_array(context_tokens, "context_tokens", nonnegative=True)
    w, f = m.sliding_window, _window_share(m, window_layers)
    held = f * np.minimum(ctx, w) + (1 - f) * ctx if w else ctx
    with np.errstate(over="ignore"):  # reported by finite_result
        return finite_result(scalar_or_array(per_token * held), "the KV cache's bytes",
                             _named("context_tokens", context_tokens))


def _window_share(m: ModelSpec, window_layers=None) -> float:
    """Share of layers with the sliding window: ``window_layers`` if given, else the model's
    own, ``ModelSpec.n_window_layers / n_layers`` (every layer for Mistral 7B; 18 of 36 for
    gpt-oss, whose model card alternates banded-window and dense layers; half for Gemma 2 and
    five of six for Gemma 3 where the catalogue or the Hugging Face config records their
    ``n_sliding_layers``), and 0 without a window."""
    if window_layers is None:
        return m.n_window_layers / m.n_layers if m.sliding_window else 0.0
    f = as_scalar(window_layers, "window_layers", nonnegative=True, upper=1.0)
    if f and not m.sliding_window:
        raise ValueError(f"window_layers={window_layers!r}: {m.name} has no sliding_window")
    return f


def weight_bytes(model, weight_dtype: str = "bf16") -> float:
    """Resident weight bytes: every parameter × bytes per weight (``WEIGHT_BYTES``)."""
    m = serving_model(model)
    return float(m.n_params * WEIGHT_BYTES[as_choice(weight_dtype, "weight_dtype", WEIGHT_BYTES)])


def experts_touched(model, tokens):
    """Expected distinct routed experts per MoE layer that ``tokens`` tokens activate.

    Formula: with top-k routing spread uniformly over E experts, an expert escapes one token with
    probability 1 − k/E, so E[touched] = E · (1 − (1 − k/E)^T) for T tokens (balls into bins;
    uniform load is what the auxiliary balancing losses aim at, Fedus et al. 2022 Switch
    Transformer §2.2, DeepSeek-V3 §2.1.2). It is k for one token and tends to E for large
    batches: a decode step of a big batch reads nearly every expert, not the active count.

    Returns
    -------
    float or ndarray (0 for dense models).
    """
    m = serving_model(model)
    t = as_array(tokens, "tokens", nonnegative=True)
    if not m.is_moe:
        return scalar_or_array(0.0 * t)
    e, k = m.n_experts, m.n_experts_active
    return scalar_or_array(e * (1 - (1 - k / e) ** t))


def weights_read_bytes(model, tokens, weight_dtype: str = "bf16"):
    """Weight bytes one forward pass over ``tokens`` tokens reads from HBM (whole replica).

    Formula: (n_params − untied input embedding − position table − routed experts + experts
    touched × params per routed expert) × bytes per weight. See the module conventions.
    """
    m = serving_model(model)
    b = WEIGHT_BYTES[as_choice(weight_dtype, "weight_dtype", WEIGHT_BYTES)]
    p = m.param_breakdown
    base = m.n_params - p["position"] - (0 if m.tied_embeddings else p["embedding"]) \
        - p["ffn_routed_experts"]
    touched = np.asarray(experts_touched(m, tokens))
    per_expert = p["ffn_routed_experts"] / m.n_experts if m.is_moe else 0.0  # all MoE layers
    return scalar_or_array((base + touched * per_expert) * b)


def _kv_share(m: ModelSpec, tp: int) -> float:
    """Share of a replica's KV cache one TP rank holds."""
    if m.attention == "mla":
        return 1.0  # latent cache replicated on every rank
    return max(1.0 / tp, 1.0 / m.n_kv_heads)


def kv_share_per_rank(model, tp: int) -> float:
    """Share of a TP replica's KV cache one rank holds: 1/tp, or 1/n_kv_heads when tp exceeds
    the KV heads (a head is then replicated); 1 for MLA (the latent is replicated on every rank
    under tensor parallelism; ``serving.setups`` models attention data-parallelism)."""
    return _kv_share(serving_model(model), _int("tp", tp))


def _lower_dtype_words(weight_dtype: str, weights_fit) -> str:
    """"a lower weight_dtype (…), or " naming the precisions of ``WEIGHT_BYTES`` with fewer
    bytes per weight than ``weight_dtype`` at which the weights fit (``weights_fit(dtype)``);
    "" when none does (INT4 with its group scales is the smallest), so that a refusal never
    suggests what cannot help."""
    now = WEIGHT_BYTES.get(weight_dtype)
    lower = [k for k, v in WEIGHT_BYTES.items()
             if now is not None and v < now and weights_fit(k)]
    return f"a lower weight_dtype ({', '.join(lower)}), or " if lower else ""


def max_batch(model, accelerator, context_tokens, *, weight_dtype: str = "bf16",
              kv_dtype: str = "bf16", tp: int = 1, reserve_fraction: float = SERVING_RESERVE,
              window_layers=None, draft_model=None):
    """The largest number of sequences of ``context_tokens`` tokens whose KV cache fits in HBM
    beside the weights on one TP replica.

    Formula: floor((tp · HBM · (1 − reserve) − weights) / KV bytes per sequence), per rank:
    floor((HBM·(1 − reserve) − weights/tp) / (kv_per_seq · kv_share(tp))). With a speculative
    ``draft_model`` on the same GPUs (as vLLM and TensorRT-LLM run it, sharded at the same tp)
    its weights join the target's and each sequence holds a draft KV cache too:
    floor((HBM·(1 − r) − (W_t + W_d)/tp) / (kv_t·share_t + kv_d·share_d)).
    ``window_layers``: the share of layers with the sliding window (``kv_cache_bytes``).
    ``context_tokens`` >= 1 (a sequence holds at least one token); a fraction is the mean length
    of the sequences held (the module's "Counts").

    Returns
    -------
    int (or ndarray of int over ``context_tokens``).

    Raises
    ------
    ValueError
        A context below one token; the weights do not fit the replica's HBM, or a context's KV
        cache leaves no room for even one sequence (the message names the field and the
        numbers).
    """
    m, acc = serving_model(model), serving_accelerator(accelerator)
    tp = _tp(tp, acc, m)
    r = as_scalar(reserve_fraction, "reserve_fraction", nonnegative=True, upper=1.0,
                       upper_inclusive=False)
    ctx = as_array(context_tokens, "context_tokens", positive=True)
    if np.any(ctx < 1):
        raise ValueError(f"context_tokens={float(np.min(ctx)):g} must be >= 1: a sequence holds "
                         "at least one token (a fraction above 1 is read as a mean length)")
    usable = acc.hbm_bytes * (1 - r)
    d = None if draft_model is None else as_model(draft_model, "draft_model", needs="serving")
    w = (weight_bytes(m, weight_dtype) + (weight_bytes(d, weight_dtype) if d else 0.0)) / tp
    if w >= usable:
        raise DoesNotFit(f"model={m.name!r}: {w / 1e9:.1f} GB of {weight_dtype} weights per GPU "
                         + (f"(with the draft {d.name}) " if d else "")
                         + f"do not fit {acc.name}'s {usable / 1e9:.1f} GB usable HBM at "
                         f"tp={tp}: " + ("raise tp" + (" or lower weight_dtype" if
                                                       _lower_dtype_words(weight_dtype,
                                                                          lambda k: True)
                                                       else "")
                                         if tp < (acc.scaleup_domain_size or 1) else
                                         "tp is already the whole "
                                         f"{acc.scaleup_domain_size}-GPU scale-up domain, and "
                                         "serving across nodes (pipeline or expert parallelism "
                                         "over the network) is not modelled: one replica must "
                                         "fit one scale-up domain. Workarounds: "
                                         + _lower_dtype_words(weight_dtype, lambda k: (
                                             weight_bytes(m, k) + (weight_bytes(d, k) if d
                                                                   else 0.0)) / tp < usable)
                                         + "an accelerator "
                                         "with more HBM per GPU or a larger scale-up domain "
                                         "(data/accelerators.csv)"))

    def per_seq_of(c):
        kv = np.asarray(kv_cache_bytes(m, c, kv_dtype, window_layers)) * _kv_share(m, tp)
        if d is not None:
            kv = kv + np.asarray(kv_cache_bytes(d, c, kv_dtype)) * _kv_share(d, tp)
        return kv

    _window_share(m, window_layers)  # checked first: what follows refuses the context alone
    try:
        per_seq = per_seq_of(ctx)
        n = np.floor((usable - w) / per_seq)
        if np.any(n < 1):
            worst = float(np.max(ctx[n < 1])) if ctx.ndim else float(ctx)
            raise DoesNotFit(f"context_tokens={worst:,.10g}: one sequence's KV cache "
                             f"({float(per_seq_of(worst)) / 1e9:,.4g}"
                             f" GB per GPU) leaves no room for a batch beside the weights on "
                             f"{acc.name} at tp={tp}")
    except ValueError as e:  # the context's own refusal, marked for a caller that sums it
        e.context_refusal = True
        raise
    return int(n) if n.ndim == 0 else n.astype(int)


# ------------------------------------------------------------------------------ step times
@dataclass(frozen=True)
class StepTime:
    """One engine step (prefill or decode) on one TP replica, by bound.

    ``time_s = max(compute_s, memory_s) + comm_s``; ``bound`` names the larger of the two
    roofline terms ("compute" or "HBM bandwidth"). Arrays broadcast over the inputs.
    """

    compute_s: object
    memory_s: object
    comm_s: object
    flops: object
    hbm_bytes: object
    tokens: object
    tp: int

    @property
    def time_s(self):
        return scalar_or_array(np.maximum(self.compute_s, self.memory_s) + self.comm_s)

    @property
    def bound(self):
        b = np.where(np.asarray(self.compute_s) >= np.asarray(self.memory_s), "compute",
                     "HBM bandwidth")
        return str(b) if b.ndim == 0 else b

    def parts(self) -> dict:
        return {"compute_s": self.compute_s, "memory_s": self.memory_s, "comm_s": self.comm_s,
                "time_s": self.time_s}


#: NCCL's low-latency (LL) protocol moves 8-byte lines of 4 data bytes and 4 flag bytes, and
#: NCCL's cost model gives a ring all-reduce on LL a quarter of the bus bandwidth in NCCL
#: 2.7.3 to 2.20 (NVIDIA/nccl src/graph/tuning.cc: in 2.7.3-2.7.5 ``busBw *= (comm->nNodes > 1
#: || coll == ncclCollAllReduce || coll == ncclCollReduce) ? 1.0/4.0 : 1.0/3.0``; from 2.8.3
#: the same share under a per-node cap, ``busBw = std::min(llMaxBw, busBw * (... ? 1.0/4.0 :
#: 1.0/3.0))``); from 2.21.5 it is half (``std::min(llMaxBw, busBw * .5)``). The cap llMaxBw
#: (87.7 GB/s on one Ampere or Hopper node) is not modelled.
LL_BANDWIDTH_SHARE = 0.25


def tp_allreduce_time(message_bytes, tp: int, accelerator, efficiency: Efficiency | None = None):
    """Seconds of one tensor-parallel all-reduce of ``message_bytes`` inside the scale-up domain.

    Formula: NCCL picks the fastest protocol for the size (NVIDIA/nccl src/graph/tuning.cc,
    ``ncclTopoGetAlgoTime``: time = latency + bytes / algorithm bandwidth), so::

        t_LL   = ll_base + 2(n−1)·ll_step + 2(n−1)/n · S / (B_w · f_up · 1/4)
        t_ring = base + 2(n−1)·α_up + 2(n−1)/n · S / (B_w · f_up)
        t      = min(t_LL, t_ring)

    with n = ``tp``, B_w the per-direction scale-up bandwidth (on a full-mesh board, MI300X or
    Gaudi 3, the links among the n members only: ``B_w · (n − 1)/peers``,
    ``comm.mesh_scaleup_bandwidth``), f_up its achievable fraction and
    the latencies of ``data/efficiency.csv`` (Ring/LL 3.6 µs + 0.47 µs per step on NVLink). A
    decode step's activations (KB) take the LL branch, whose latency terms alone are 4.5 µs at
    TP2, 6.4 µs at TP4, 10.2 µs at TP8 (an 8 KB message on an H100: 4.6, 6.6, 10.3 µs);
    prefill's (MB) the bandwidth branch. Engine-specific one-shot all-reduces
    (TensorRT-LLM's and vLLM's custom kernels) and NVLink SHARP can be faster: not modelled.
    """
    acc = serving_accelerator(accelerator)
    eff = serving_efficiency(efficiency, acc)
    n = _int("tp", tp)
    s = as_array(message_bytes, "message_bytes", nonnegative=True)
    if n == 1:
        return scalar_or_array(0.0 * s)
    bw = (acc.scaleup_bytes_per_s_per_dir or 0.0) * eff.scaleup_fraction
    if not bw:
        raise ValueError(f"tp={n}: {acc.name} has no scale-up bandwidth in the catalogue")
    bw = float(mesh_scaleup_bandwidth(bw, n, mesh_peers(acc.name)))
    vol = 2 * (n - 1) / n * s
    ll = eff.ll_base_latency_s + 2 * (n - 1) * eff.ll_step_latency_s \
        + vol / (bw * LL_BANDWIDTH_SHARE)
    ring = eff.base_latency_s + 2 * (n - 1) * eff.scaleup_latency_s + vol / bw
    return scalar_or_array(np.minimum(ll, ring))


def _tp_allreduce_s(m: ModelSpec, acc: Accelerator, eff: Efficiency, tp: int, tokens):
    """Two all-reduces of tokens × d_model activations per layer (Megatron-LM TP), each at
    ``tp_allreduce_time``."""
    s = np.asarray(tokens, dtype=float) * m.d_model * ACTIVATION_BYTES
    if tp == 1:
        return 0.0 * s
    return 2 * m.n_layers * np.asarray(tp_allreduce_time(s, tp, acc, eff))


def _attention_flops_per_key(m: ModelSpec, decode: bool) -> float:
    """Attention-core FLOPs per query token per attended key, summed over layers.

    MHA/GQA/MQA (and MLA prefill, run in its expanded form): 2·L·n_heads·(d_qk + d_v) (QKᵀ and
    AV). MLA decode with weight absorption (DeepSeek-V2 §2.1.2: W_UK folds into the query and
    W_UV into the output, so attention runs on the cached latent directly, as vLLM's and
    SGLang's MLA decode kernels do): scores over the latent and rotary key, 2·n_heads·(d_c +
    d_R), plus the weighted sum of latents, 2·n_heads·d_c, i.e. 2·L·n_heads·(2·d_c + d_R);
    DeepSeek-V3: 2·128·(512 + 64 + 512) = 278,528 per key per layer (vs 81,920 expanded).
    """
    if decode and m.attention == "mla":
        return 2.0 * m.n_layers * m.n_heads * (2 * m.kv_lora_rank + m.qk_rope_head_dim)
    return 2.0 * m.n_layers * m.n_heads * (m.d_qk + m.d_v)


def attention_flops_per_key(model, decode: bool) -> float:
    """Attention-core FLOPs per query token per attended key, summed over layers (decode in
    MLA's weight-absorbed form; see ``_attention_flops_per_key`` for the formula)."""
    return _attention_flops_per_key(serving_model(model), bool(decode))


def compute_dtype(weight_dtype: str, accelerator) -> str:
    """The matmul format of a weight precision: FP8 weights run W8A8 on FP8 tensor cores
    where the device has them (``"fp8"``), NVFP4 and MXFP4 weights W4A4 on FP4 tensor cores
    where the device has them (``"fp4"``, Blackwell); every other case in BF16."""
    as_choice(weight_dtype, "weight_dtype", WEIGHT_BYTES)
    return _compute_dtype(weight_dtype, serving_accelerator(accelerator))


def attention_peak_flops(accelerator, matmul_dtype: str, kv_dtype: str) -> float:
    """Peak FLOP/s of the attention core (QKᵀ and AV), one rule for prefill and decode: the
    KV cache's precision (FP8 tensor cores for an FP8 cache where the device has them, else
    BF16), capped by the linear layers' format ``matmul_dtype`` (``compute_dtype``; BF16
    activations stay BF16). Never the weights' FP8/FP4 format alone: FP8 and FP4 weight
    formats quantise the linear layers only (FlashMLA and FlashAttention-2/3 decode a BF16
    cache in BF16)."""
    acc = serving_accelerator(accelerator)
    as_choice(kv_dtype, "kv_dtype", KV_BYTES)
    kv_fmt = "fp8" if kv_dtype == "fp8" and acc.peak_fp8_flops_per_s else "bf16"
    return min(acc.peak_flops_per_s(matmul_dtype), acc.peak_flops_per_s(kv_fmt))


def logit_tokens(seqs, q_tokens, prefill):
    """Tokens whose logits a step computes (the LM head's matmul runs on these only), for
    ``seqs`` sequences of ``q_tokens`` each:

    * a decode step (``prefill`` None): every token, seqs · q (each of the q tokens of a
      speculative verification pass needs its logits);
    * a prefill, ``"last"``: seqs, the last prompt token of each sequence, the one the next
      token is sampled from (vLLM, vllm/v1/worker/gpu_model_runner.py ``_prepare_inputs``:
      ``logits_indices = query_start_loc[1:] - 1``; Hugging Face ``generate`` for the models
      that take ``num_logits_to_keep``, transformers pull request 31292, Llama and Mistral
      first, in releases from v4.45.0, others later);
    * a prefill, ``"all"``: seqs · q, every prompt position (Hugging Face ``generate`` before
      it: the first forward ran the LM head on the whole prompt and kept the last row; the RL
      rows' HF generate, ``rl._static_batches``, as their 2023-2024 releases ran it).

    A training or scoring forward keeps every token's logits (the loss and the
    log-probabilities read them all)."""
    return seqs if prefill == "last" else seqs * q_tokens


def _step(m, acc, eff, tp, weight_dtype, kv_dtype, seqs, q_tokens, keys, kv_held_tokens,
          prefill_logits, f_w):
    """Shared roofline: seqs sequences, q_tokens query tokens each (each writes its KV entry),
    attending ``keys`` keys (mean over layers) beside ``kv_held_tokens`` cached tokens read; a
    share ``f_w`` of the layers holds a sliding-window cache. ``prefill_logits`` None: a decode
    step; "last" or "all": a causal prefill whose LM head runs on each prompt's last token or
    on all of them (``logit_tokens``)."""
    causal_prefill = prefill_logits is not None
    mm = sum(m.matmul_params_active.values())
    tokens = seqs * q_tokens
    attn = _attention_flops_per_key(m, not causal_prefill) * keys * tokens
    matmul_flops = 2.0 * (mm * tokens - m.matmul_params_active["lm_head"]
                          * (tokens - logit_tokens(seqs, q_tokens, prefill_logits)))
    flops = matmul_flops + attn
    cdt = _compute_dtype(weight_dtype, acc)
    peak = acc.peak_flops_per_s(cdt)
    attn_peak = attention_peak_flops(acc, cdt, kv_dtype)
    if causal_prefill:
        compute = matmul_flops / (tp * peak * eff.matmul_fraction) \
            + attn / (tp * attn_peak * eff.attention_fraction)
    else:
        compute = matmul_flops / (tp * peak * eff.matmul_fraction) \
            + attn / (tp * attn_peak * eff.matmul_fraction)
    kv_tok = kv_cache_bytes_per_token(m, kv_dtype) * _kv_share(m, tp) * tp
    hbm = weights_read_bytes(m, tokens, weight_dtype) \
        + seqs * (np.asarray(kv_cache_bytes(m, kv_held_tokens, kv_dtype, f_w))
                  * _kv_share(m, tp) * tp
                  + q_tokens * kv_tok)
    memory = hbm / (tp * acc.hbm_bytes_per_s * eff.hbm_fraction)
    comm = _tp_allreduce_s(m, acc, eff, tp, tokens)
    return StepTime(scalar_or_array(compute), scalar_or_array(memory), scalar_or_array(comm),
                    scalar_or_array(flops), scalar_or_array(hbm), scalar_or_array(tokens), tp)


def decode_step(model, accelerator, batch, context_tokens, *, weight_dtype: str = "bf16",
                kv_dtype: str = "bf16", tp: int = 1, tokens_per_sequence: int = 1,
                efficiency: Efficiency | None = None, window_layers=None) -> StepTime:
    """One decode step: every sequence of the batch adds ``tokens_per_sequence`` tokens.

    Formula (per TP replica; Pope et al. 2022, arXiv:2211.05102 §2: decode at small batch is
    bound by reading the weights and the KV cache from HBM)::

        compute = B·q·(2·N_matmul + a·keys) / (tp · peak · matmul_fraction)
        memory  = (weights read for B·q tokens + B·KV(ctx) + B·q·KV per token)
                  / (tp · HBM bytes/s · hbm_fraction)
        time    = max(compute, memory) + 2·L TP all-reduces of B·q·d_model·2 bytes
                  (``tp_allreduce_time``)

    with q = ``tokens_per_sequence`` (1 for plain decoding, γ + 1 for the verification pass of
    speculative decoding), ctx the tokens already in each sequence's cache, keys = f_w·min(ctx
    + q, w) + (1 − f_w)·(ctx + q) for a share f_w (``window_layers``) of layers with a window
    of w tokens, and a the attention FLOPs per key: 2·L·n_heads·(d_qk + d_v), or for MLA the
    weight-absorbed 2·L·n_heads·(2·d_c + d_R) (``_attention_flops_per_key``: the cache holds the
    latent, so decode attends over it).

    Parameters
    ----------
    model : ModelSpec or str
    accelerator : Accelerator or str
    batch : float or array, > 0
        Sequences decoding together (may be fractional: a mean occupancy, the module's
        "Counts").
    context_tokens : float or array, >= 0
        Tokens in each sequence's KV cache (0: ignore KV reads, as the ridge-point
        hand count below does; may be fractional: a mean context).
    weight_dtype : {"bf16", "fp16", "fp8", "int8", "int4", "nvfp4", "mxfp4"}
    kv_dtype : {"bf16", "fp16", "fp8"}
    tp : int
        Tensor-parallel GPUs per replica (within one scale-up domain).
    tokens_per_sequence : int >= 1
    efficiency : Efficiency, optional
        Achievable fractions (default: ``data/efficiency.csv`` for the accelerator). Pass
        ``Efficiency(..., 1, 1, 1, 1, 1)`` for the ideal roofline.
    window_layers : float in [0, 1], optional
        Share of layers with the model's sliding window (``kv_cache_bytes``; default the
        model's own, ``ModelSpec.n_window_layers / n_layers``).

    Returns
    -------
    StepTime (``time_s``, ``compute_s``, ``memory_s``, ``comm_s``, ``bound``, ``flops``,
    ``hbm_bytes``).
    """
    m, acc = serving_model(model), serving_accelerator(accelerator)
    tp = _tp(tp, acc, m)
    eff = serving_efficiency(efficiency, acc)
    as_choice(weight_dtype, "weight_dtype", WEIGHT_BYTES)
    b = as_array(batch, "batch", positive=True)
    ctx = as_array(context_tokens, "context_tokens", nonnegative=True)
    q = _int("tokens_per_sequence", tokens_per_sequence)
    f = _window_share(m, window_layers)
    keys = f * np.minimum(ctx + q, m.sliding_window) + (1 - f) * (ctx + q) \
        if m.sliding_window else ctx + q
    inputs = f"{_named('batch', batch)} × {_named('context_tokens', context_tokens)}"
    with np.errstate(over="ignore", invalid="ignore"):  # reported by finite_result
        finite_result(b * q, "the tokens of the step", inputs)
        st = _step(m, acc, eff, tp, weight_dtype, kv_dtype, b, q, keys, ctx, None, f)
    return _finite_step(st, inputs)


class ServingDoesNotFitWarning(UserWarning):
    """A decode or prefill step priced whose weights and KV cache per GPU exceed the HBM, or
    whose context runs past the model's declared one (``serving_fit_warnings``)."""


def serving_fit_warnings(m: ModelSpec, acc, tp: int, weight_dtype: str, kv_dtype: str, batch,
                         tokens, window_layers=None) -> None:
    """Warn (``ServingDoesNotFitWarning``) when a roofline step is priced for a set-up that
    cannot run it: the weights ÷ tp plus ``batch`` sequences' KV cache of ``tokens`` ÷ tp
    (``weight_bytes``, ``kv_cache_bytes``) above the GPU's whole HBM (no reserve: ``max_batch``
    refuses with its reserve), or ``tokens`` beyond the model's context
    (``ModelSpec.max_position_embeddings`` where declared, else its pre-training ``seq_len``
    where its source states one: ``bill.checks.context_warning``'s rule). A new-user trial
    priced Llama 2 70B's decode at tp 1 (138 GB of weights on an 80 GB H100) and a
    100,000-token prompt of a 4,096-token model with no word, where ``max_batch`` and
    ``serving_cost`` refuse the first. Warnings, not errors: the roofline is also a calculator
    of what-ifs."""
    tok = np.asarray(tokens, dtype=float)
    held = weight_bytes(m, weight_dtype) / tp + np.asarray(batch, dtype=float) * np.asarray(
        kv_cache_bytes(m, tok, kv_dtype, window_layers), dtype=float) / tp
    if acc.hbm_bytes and np.any(held > acc.hbm_bytes):
        warnings.warn(ServingDoesNotFitWarning(
            f"model={m.name!r} at tp={tp}: {float(np.max(held)) / 1e9:,.1f} GB of {weight_dtype} "
            f"weights and KV cache per GPU, more than the {acc.hbm_bytes / 1e9:,.1f} GB of HBM "
            f"of {acc.name}: no engine could hold it (llmcost.max_batch gives the batch that "
            "fits); the step is priced as if it did"), stacklevel=4)
    ctx, what = model_context(m)
    if ctx and np.any(tok > ctx):
        warnings.warn(ServingDoesNotFitWarning(
            f"model={m.name!r}: {float(np.max(tok)):,.0f} tokens of context, beyond its "
            f"{ctx:,}-token {what}: the step is priced as if it served them"), stacklevel=4)


def model_context(model) -> tuple[int, str]:
    """``(tokens, what)``: the longest context the model (a ``ModelSpec`` or a catalogue name,
    ``serving_model``) is known to hold and where that comes from:
    ``ModelSpec.max_position_embeddings`` where declared ("declared context
    (max_position_embeddings)"), else its pre-training ``seq_len`` where its source states one
    ("pre-training context (no longer one declared)"), else ``(0, "")``: unknown
    (``bill.checks.context_warning``'s rule). A scenario that trains the model longer extends
    it (``bill.checks.served_context_warning`` takes the longest of this and its lengths)."""
    m = serving_model(model)
    if m.max_position_embeddings:
        return int(m.max_position_embeddings), "declared context (max_position_embeddings)"
    if m.context_stated and m.seq_len:
        return int(m.seq_len), "pre-training context (no longer one declared)"
    return 0, ""


def _finite_step(st: StepTime, inputs: str) -> StepTime:
    """``st`` if its FLOPs, HBM bytes and time are finite, else a ValueError naming ``inputs``
    (counts so large that a step's FLOPs or bytes overflow a double): never a silent inf or
    NaN."""
    for value in (st.flops, st.hbm_bytes, st.time_s):
        finite_result(value, "the step's FLOPs, bytes or time", inputs)
    return st


def decode_step_time(model, accelerator, batch, context_tokens, *, weight_dtype: str = "bf16",
                     kv_dtype: str = "bf16", tp: int = 1, tokens_per_sequence: int = 1,
                     efficiency: Efficiency | None = None, window_layers=None):
    """Seconds of one decode step: ``decode_step(...).time_s`` (its docstring has the formula:
    max(compute, HBM bytes / achievable bandwidth) + exposed TP all-reduces, and the
    parameters: ``batch`` > 0 and ``context_tokens`` >= 0 may be fractional, means). Warns
    (``serving_fit_warnings``) when the set-up cannot hold the batch or the context exceeds
    the model's; the package's own sweeps call ``decode_step``, which does not."""
    st = decode_step(model, accelerator, batch, context_tokens, weight_dtype=weight_dtype,
                     kv_dtype=kv_dtype, tp=tp, tokens_per_sequence=tokens_per_sequence,
                     efficiency=efficiency, window_layers=window_layers)
    m, acc = serving_model(model), serving_accelerator(accelerator)
    serving_fit_warnings(m, acc, _tp(tp, acc, m), weight_dtype, kv_dtype, batch,
                         np.asarray(context_tokens, dtype=float) + tokens_per_sequence,
                         window_layers)
    return st.time_s


def prefill(model, accelerator, prompt_tokens, batch=1, *, weight_dtype: str = "bf16",
            kv_dtype: str = "bf16", tp: int = 1, efficiency: Efficiency | None = None,
            window_layers=None, all_logits: bool = False) -> StepTime:
    """Prefill of ``batch`` prompts of ``prompt_tokens`` tokens in one pass.

    Formula (per TP replica)::

        compute = (T·2·(N_matmul − N_lm_head) + batch·2·N_lm_head)
                  / (tp·peak·matmul_fraction)
                  + T·2·L·n_heads·(d_qk + d_v)·(P+1)/2 / (tp·peak·attention_fraction)
        memory  = (weights read for T tokens + T·KV per token written) / (tp·HBM·hbm_fraction)
        time    = max(compute, memory) + 2·L TP all-reduces of T·d_model·2 bytes,   T = batch·P

    (the LM head runs on each prompt's last token only, ``logit_tokens``, or with
    ``all_logits`` on every prompt position, batch·2·N_lm_head becoming T·2·N_lm_head, as
    Hugging Face ``generate`` did before transformers v4.45.0; causal mask: a
    prompt token attends to (P+1)/2 keys on average, ``ModelSpec``'s
    convention, or ``mean_attended_keys`` on the share ``window_layers`` of windowed layers;
    MLA prefill is counted in its expanded form, d_qk + d_v per key; the attention core runs
    at the fused-attention fraction of ``efficiency.csv``).
    Compute-bound once T exceeds about the ridge point ÷ (2 / bytes per weight).

    Returns
    -------
    StepTime; ``time_s`` is the time to first token of a request prefilled alone (batch=1).
    """
    m, acc = serving_model(model), serving_accelerator(accelerator)
    tp = _tp(tp, acc, m)
    eff = serving_efficiency(efficiency, acc)
    as_choice(weight_dtype, "weight_dtype", WEIGHT_BYTES)
    p = as_array(prompt_tokens, "prompt_tokens", positive=True, integer=True)
    b = as_array(batch, "batch", positive=True)
    f = _window_share(m, window_layers)
    keys = f * np.asarray(m.mean_attended_keys(p, causal=True)) + (1 - f) * (p + 1) / 2
    inputs = f"{_named('prompt_tokens', prompt_tokens)} × {_named('batch', batch)}"
    with np.errstate(over="ignore", invalid="ignore"):  # reported by finite_result
        finite_result(b * p, "the tokens of the step", inputs)
        st = _step(m, acc, eff, tp, weight_dtype, kv_dtype, b, p, keys, 0.0,
                   "all" if as_flag(all_logits, "all_logits") else "last", f)
    return _finite_step(st, inputs)


def prefill_time(model, accelerator, prompt_tokens, batch=1, *, weight_dtype: str = "bf16",
                 kv_dtype: str = "bf16", tp: int = 1, efficiency: Efficiency | None = None,
                 window_layers=None):
    """Seconds to prefill ``batch`` prompts: ``prefill(...).time_s`` (its docstring has the
    formula: max(compute, HBM bytes / bandwidth) + TP all-reduces; the TTFT at batch=1).
    Warns (``serving_fit_warnings``) as ``decode_step_time`` does; the package's own sweeps
    call ``prefill``."""
    st = prefill(model, accelerator, prompt_tokens, batch, weight_dtype=weight_dtype,
                 kv_dtype=kv_dtype, tp=tp, efficiency=efficiency, window_layers=window_layers)
    m, acc = serving_model(model), serving_accelerator(accelerator)
    serving_fit_warnings(m, acc, _tp(tp, acc, m), weight_dtype, kv_dtype, batch, prompt_tokens,
                         window_layers)
    return st.time_s


def decode_crossover_batch(model, accelerator, context_tokens, *, weight_dtype: str = "bf16",
                           kv_dtype: str = "bf16", tp: int = 1,
                           efficiency: Efficiency | None = None, window_layers=None) -> float:
    """The batch at which a decode step turns compute-bound (``inf`` if it never does).

    Formula: compute = B·F·c and memory = (W + B·K)·m, so B* = W·m / (F·c − K·m) with F the
    FLOPs per token, W the weight bytes read, K the KV bytes per sequence, c =
    1/(peak·matmul_fraction) seconds per FLOP and m = 1/(HBM·hbm_fraction) seconds per byte,
    per GPU. Ignoring KV (``context_tokens=0``) and at ideal fractions
    for a dense model this is the ridge point ÷ (2 / bytes per weight): 295 on H100 in BF16
    (989.4e12 FLOP/s ÷ 3.35e12 B/s = 295 FLOP/B, by hand; Williams et al. 2009's roofline). When a sequence's KV reads cost more time than its FLOPs
    (K·m ≥ F·c: long contexts) no batch makes decode compute-bound. The MoE weights read are
    taken at the batch's expected touched experts (solved by fixed-point iteration).

    Returns
    -------
    float (not rounded; compare it with ``max_batch`` to see whether HBM fills first).
    """
    m, acc = serving_model(model), serving_accelerator(accelerator)
    tp = _tp(tp, acc, m)
    eff = serving_efficiency(efficiency, acc)
    ctx = as_scalar(context_tokens, "context_tokens", nonnegative=True)
    kw = dict(weight_dtype=weight_dtype, kv_dtype=kv_dtype, tp=tp, efficiency=eff,
              window_layers=window_layers)
    one = decode_step(m, acc, 1.0, ctx, **kw)
    f_s = float(one.compute_s)                     # compute seconds per sequence
    per_s = 1.0 / (tp * acc.hbm_bytes_per_s * eff.hbm_fraction)
    k_s = float(one.memory_s) - float(weights_read_bytes(m, 1.0, weight_dtype)) * per_s
    if f_s <= k_s:
        return math.inf                            # KV reads alone outrun the FLOPs
    b = 1.0
    for _ in range(200):                           # B = W(B)·m / (F·c − K·m), W(B) for MoE
        nb = float(weights_read_bytes(m, b, weight_dtype)) * per_s / (f_s - k_s)
        if abs(nb - b) <= 1e-9 * nb:
            break
        b = nb
    return nb


# ------------------------------------------------------------------------------ speculative
def speculative_tokens_per_pass(acceptance_rate, draft_tokens):
    """Expected tokens a target-model pass yields with speculative decoding.

    Formula (Leviathan, Kalman, Matias 2023, "Fast Inference from Transformers via Speculative
    Decoding", ICML, Eq. 1): E = (1 − α^(γ+1)) / (1 − α) for acceptance rate α and γ draft
    tokens (γ + 1 when α = 1). Each pass runs γ draft steps and one target pass over γ + 1 tokens.

    Parameters
    ----------
    acceptance_rate : float or array in [0, 1]
    draft_tokens : int >= 0 (γ)
    """
    a = as_array(acceptance_rate, "acceptance_rate", nonnegative=True, upper=1.0)
    g = as_array(draft_tokens, "draft_tokens", nonnegative=True, integer=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        e = np.where(a < 1, (1 - a ** (g + 1)) / np.where(a < 1, 1 - a, 1), g + 1)
    return scalar_or_array(e)


def example_draft(model) -> tuple:
    """A catalogue draft model for ``model``'s speculative decoding, for an example:
    ``(name, words)``, or ``(None, words)`` saying why there is none.

    Rule: a draft proposes tokens the target accepts by comparing both models' probabilities of
    the same token (Leviathan, Kalman, Matias 2023, arXiv:2211.17192, §2.3, Algorithm 1), so it
    must share the target's tokenizer; and it must be smaller than the target in the parameters
    a token's pass computes with, active ones for a MoE (``serving_cost`` refuses one that is
    not: it would add its own passes and save none; a dense 4B draft costs a 3.3B-active MoE
    more per token than its own pass), and smaller in all its parameters too (its weights sit
    in HBM beside the target's: a trial's Qwen3-8B, 8.2B parameters, was offered Qwen3-30B-A3B,
    3.3B active but 30.5B in all, which then did not fit). Same tokenizer here:
    the same vocabulary size and the same family name, the name's leading letters ("llama",
    "qwen", "opt": sizes alone mix tokenizers, Llama 2's and Mistral 7B's both have 32,000
    entries). Of those smaller than the target, the smallest (the cheapest proposals; Leviathan
    et al.'s drafts for T5-XXL are the small, base and large T5 of the same family, Table 2),
    ties to the name sharing the longest start with the target's (``llama-2-7b`` for
    ``llama-2-70b``, over ``llama-1-7b`` of the same count and tokenizer). The same major
    version too, where both names give one (``catalog.name_parts``): Qwen2.5 and Qwen3 share
    151,936 embedding rows but not their special tokens (Qwen3's thinking tokens), so Qwen3-235B
    is drafted by Qwen3-30B-A3B, not Qwen2.5-1.5B. A model with no such catalogue model (Llama
    3.2 1B: no smaller Llama 3 here) gets ``None``.

    Raises
    ------
    ValueError
        ``model`` not a ``ModelSpec`` or catalogue name.
    """
    m = as_model(model, "model", needs="a draft's choice")
    family = re.match(r"[a-z]*", m.name.lower()).group()
    t = list_models()
    major = name_parts(m.name)[1]

    def same_major(name) -> bool:   # where both names give a version
        v = name_parts(name)[1]
        return major is None or v is None or int(v) == int(major)

    t = t[(t["vocab_size"] == m.vocab_size) & (t["n_active_params"] < m.n_active_params)
          & (t["n_params"] < m.n_params)
          & (t["name"].str.lower().str.match(re.escape(family) + r"(?![a-z])") if family
             else False)
          & t["name"].map(same_major)]
    if not len(t):
        return None, (f"no catalogue model smaller than {m.name} ({m.n_active_params:.3g} "
                      f"{'active ' if m.is_moe else ''}parameters"
                      + (f", {m.n_params:.3g} in all" if m.is_moe else "") + ") "
                      f"shares its tokenizer (vocabulary {m.vocab_size:,}"
                      + (f", family {family}" if family else "") + ")")
    common = t["name"].map(lambda n: len(os.path.commonprefix([n, m.name])))
    best = t.assign(c=common).sort_values(["n_active_params", "c"],
                                          ascending=[True, False]).iloc[0]
    return str(best["name"]), (f"{best['name']}, the smallest catalogue model of {m.name}'s "
                               f"tokenizer (vocabulary {m.vocab_size:,}, family {family})")


# ------------------------------------------------------------------------------ generation
def generation_time(model, accelerator, batch, prompt_tokens, output_tokens, *,
                    weight_dtype: str = "bf16", kv_dtype: str = "bf16", tp: int = 1,
                    efficiency: Efficiency | None = None, window_layers=None,
                    reserve_fraction: float = SERVING_RESERVE) -> dict:
    """A static batch end to end: prefill ``batch`` prompts, then decode to ``output_tokens``.

    Formula: t = prefill(batch·P) + Σ_{i=1}^{R−1} t_decode(batch, ctx = P + i) (the first output
    token comes out of the prefill, as TensorRT-LLM's and vLLM's benchmarks count it).
    A batch past the KV capacity (``max_batch`` at context P + R with ``reserve_fraction`` of
    HBM kept free, vLLM's 10% by default) is refused, as ``serving_cost`` refuses it.

    Returns
    -------
    dict: ``prefill_s``, ``decode_s``, ``total_s``, ``output_tokens_per_s`` (whole replica),
    ``output_tokens_per_s_per_gpu``, ``tpot_s`` (mean decode step).
    """
    m, acc = serving_model(model), serving_accelerator(accelerator)
    b = as_scalar(batch, "batch", positive=True)
    p = _int("prompt_tokens", prompt_tokens)
    r = _int("output_tokens", output_tokens)
    kw = dict(weight_dtype=weight_dtype, kv_dtype=kv_dtype, tp=tp, efficiency=efficiency,
              window_layers=window_layers)
    cap = max_batch(m, acc, p + r, weight_dtype=weight_dtype, kv_dtype=kv_dtype, tp=tp,
                    window_layers=window_layers, reserve_fraction=reserve_fraction)
    if b > cap:
        raise BatchDoesNotFit(f"batch={batch!r} does not fit: the KV cache holds at most {cap} "
                         f"sequences of {p + r} tokens beside the weights on {acc.name} at "
                         f"tp={tp} (max_batch)")
    pre = float(prefill(m, acc, p, b, **kw).time_s)
    steps = np.asarray(decode_step(m, acc, b, p + np.arange(1, r), **kw).time_s) if r > 1 \
        else np.zeros(0)
    dec = float(steps.sum())
    total = pre + dec
    return {"prefill_s": pre, "decode_s": dec, "total_s": total,
            "output_tokens_per_s": b * r / total,
            "output_tokens_per_s_per_gpu": b * r / total / tp,
            "tpot_s": float(steps.mean()) if r > 1 else float("nan")}


# ------------------------------------------------------------------------------ engines
@dataclass(frozen=True)
class EngineEfficiency:
    """What one engine family achieves against the roofline, per pass::

        decode  = (roofline − KV read) / decode_fraction + KV read / kv_read_fraction + o
        prefill = roofline / prefill_fraction + o                      (memory-bound prefill)
                = roofline / min(1, prefill_fraction · s_gen) + o     (compute-bound prefill)

    with o = ``step_overhead_s`` (scheduler, input preparation, kernel launches: a fixed cost
    per engine step), the fractions in (0, 1] (so the expected time is never below the
    roofline) and ``band`` = (low, high) factors on throughput, the 10th and 90th percentile
    of measured ÷ expected over the fitted rows. The constants are fitted by
    ``llmcost.serving.engines.fit_engine_efficiency`` on the ``train`` rows of
    ``data/serving_benchmarks.csv`` and stored in ``data/engine_efficiency.csv``;
    ``fitted_on`` names the family whose rows were fitted ("pooled": every family's).
    s_gen = ``compute_prefill_scale``: the GPU generation's scale on a compute-bound prefill
    (``PREFILL_COMPUTE_SCALE``; 1 unless ``load_engine_efficiency`` was given an Ampere GPU).
    """

    family: str
    decode_fraction: float
    kv_read_fraction: float
    prefill_fraction: float
    step_overhead_s: float
    band: tuple
    fitted_on: str
    n_train: int
    compute_prefill_scale: float = 1.0

    def decode_s(self, roofline_s, kv_read_s=0.0):
        """Expected decode pass: (roofline − KV read) / η_d + KV read / η_kv + o."""
        kv = np.asarray(kv_read_s)
        return (np.asarray(roofline_s) - kv) / self.decode_fraction \
            + kv / self.kv_read_fraction + self.step_overhead_s

    def prefill_s(self, roofline_s, compute_bound=False):
        """Expected prefill pass: roofline / η_p + o; a compute-bound one (``compute_bound``,
        the roofline's compute term ≥ its memory term) at min(1, η_p · s_gen)."""
        eta = np.where(np.asarray(compute_bound),
                       min(1.0, self.prefill_fraction * self.compute_prefill_scale),
                       self.prefill_fraction)
        return np.asarray(roofline_s) / eta + self.step_overhead_s


#: Engine families (``engine_family`` of data/serving_benchmarks.csv); ``None`` is the pooled fit.
#: NVIDIA NIM is a family of its own (its backend is not stated on its benchmark pages; NIM's
#: support matrix lists TensorRT-LLM-optimised profiles for these models, but a 2025 NIM is not
#: the 2023 TensorRT-LLM v0.5 / v0.6.1 of that family's rows); listed after its 55 rows were
#: added, when the held-out NIM errors had been seen (``engines`` module docstring).
ENGINE_FAMILIES = ("TensorRT-LLM", "vLLM", "SGLang", "HF generate", "NVIDIA NIM")
POOLED = "pooled"


@lru_cache(maxsize=1)
def _engine_table() -> pd.DataFrame:
    return pd.read_csv(DATA_DIR / "engine_efficiency.csv").set_index("family")


def engine_family(engine) -> str:
    """``engine`` checked: one of ``ENGINE_FAMILIES``, or None for the pooled fit ("pooled")."""
    if engine is None:
        return POOLED
    if not isinstance(engine, str) or engine not in ENGINE_FAMILIES:
        raise ValueError(f"engine={engine!r} must be None (pooled) or one of "
                         f"{', '.join(map(repr, ENGINE_FAMILIES))}")
    return engine


#: GPU generations whose compute-bound prefill runs at a share of the roofline of its own
#: (``PREFILL_COMPUTE_SCALE``); every other accelerator is the reference (scale 1).
GPU_GENERATION = {"A100-40GB": "Ampere", "A100-80GB": "Ampere"}
#: Scale on the prefill fraction of a *compute-bound* prefill, per GPU generation: η_p(gen) =
#: min(1, η_p · s). Global (one value for every engine family), fitted by
#: ``engines.fit_prefill_compute_scale`` on the pooled *train* rows of
#: data/serving_benchmarks.csv (1-D grid, step 0.05, each point a pooled refit of (η_d, η_kv,
#: η_p, o)); the family constants of data/engine_efficiency.csv are then fitted with it held
#: fixed. The reference fraction η_p is calibrated mostly on Hopper FP8 rows (52 of 92 train
#: rows); A100 FP16 prefills of 2,048 tokens ran ~1.2× faster than it predicted. A memory-bound
#: prefill (short prompts: the weight read dominates) keeps η_p: the scale is on tensor-core
#: efficiency, not on bandwidth. DECIDED AFTER SEEING THE HELD-OUT ROWS (review 2026-12-02):
#: a first variant that scaled every Ampere prefill (fitted s = 1.30) was judged on the held-out
#: rows and made them worse (43 → 42 of 45 within 25 %, median 8.3 → 8.7 %: the short-prompt
#: TTFT row trtllm05-a100-70b-ttft-128 went from 17 % to 27 %); restricting the scale to
#: compute-bound prefills was chosen after that, then refitted on the train rows only (s = 1.45):
#: held-out 44 of 45, median 6.7 %. Refitted (s = 1.40, 1.45 a near tie) when the prefill's LM
#: head moved to the last prompt token only (``logit_tokens``): held-out 45 of 45, median 6.2 %
#: (``engines`` module docstring). Applied by ``load_engine_efficiency(engine, accelerator)``
#: where the prefill's bound is known (``serving_cost``, ``engines``' rows, ``setups``'
#: chunked and prefix-cached prefills); the EP set-ups and pipeline replicas use η_p.
PREFILL_COMPUTE_SCALE = {"Ampere": 1.40}


def prefill_compute_scale(accelerator) -> float:
    """s_gen of ``accelerator`` (a catalogue name or an ``Accelerator``): its generation's
    ``PREFILL_COMPUTE_SCALE``, 1 for an accelerator of no listed generation."""
    name = serving_accelerator(accelerator).name
    return PREFILL_COMPUTE_SCALE.get(GPU_GENERATION.get(name, ""), 1.0)


def load_engine_efficiency(engine=None, accelerator=None) -> EngineEfficiency:
    """The stored fit of one engine family (``data/engine_efficiency.csv``, written from
    ``engines.fit_engine_efficiency``; a family without enough published rows of its own
    carries the pooled constants and says so in ``fitted_on``); with ``accelerator``, its GPU
    generation's scale on a compute-bound prefill (``prefill_compute_scale``)."""
    fam = engine_family(engine)
    r = _engine_table().loc[fam]
    scale = 1.0 if accelerator is None else prefill_compute_scale(accelerator)
    return EngineEfficiency(fam, float(r["decode_fraction"]), float(r["kv_read_fraction"]),
                            float(r["prefill_fraction"]), float(r["step_overhead_s"]),
                            (float(r["band_low"]), float(r["band_high"])), str(r["fitted_on"]),
                            int(r["n_train"]), scale)


def decode_kv_read_s(step: StepTime, model, weight_dtype: str = "bf16"):
    """The KV-cache read inside a decode step's roofline time: memory_s × (HBM bytes − weight
    bytes) / HBM bytes, capped at the step time (the part ``kv_read_fraction`` applies to)."""
    m = serving_model(model)
    w = np.asarray(weights_read_bytes(m, step.tokens, weight_dtype))
    hbm = np.asarray(step.hbm_bytes)
    kv = np.asarray(step.memory_s) * (hbm - w) / hbm
    return scalar_or_array(np.minimum(kv, np.asarray(step.time_s)))


# ------------------------------------------------------------------------------ cost
@dataclass(frozen=True)
class ServingCost:
    """What a served token costs on one replica (see ``serving_cost`` for the formulas).

    ``latency_warning``: "" unless the set-up misses its latency target (``max_tpot_s``) on
    the expected TPOT; then a sentence saying by how much, in a reader's words (``limit`` is
    then "latency target missed", or "as given" for a given batch).
    """

    model: str
    accelerator: str
    tp: int
    batch: int
    live_batch: float
    max_batch: int
    limit: str
    decode_bound: str
    prompt_tokens: int
    output_tokens: int
    ttft_s: float
    tpot_s: float
    output_tokens_per_s_per_gpu: float
    input_tokens_per_s_per_gpu: float
    usd_per_m_input: float
    usd_per_m_output: float
    usd_per_m_blended: float
    price_usd_per_gpu_hour: float
    crossover_batch: float
    notes: str = field(default="", compare=False)
    engine: str = POOLED
    expected_tpot_s: float = math.nan
    expected_ttft_s: float = math.nan
    expected_output_tokens_per_s_per_gpu: float = math.nan
    expected_output_tokens_per_s_per_gpu_band: tuple = (math.nan, math.nan)
    expected_usd_per_m_input: float = math.nan
    expected_usd_per_m_output: float = math.nan
    expected_usd_per_m_output_band: tuple = (math.nan, math.nan)
    expected_usd_per_m_blended: float = math.nan
    expected_usd_per_m_blended_band: tuple = (math.nan, math.nan)
    latency_warning: str = field(default="", compare=False)

    def to_dict(self) -> dict:
        return asdict(self)


def _price(price):
    return as_scalar(price, "price_usd_per_gpu_hour", positive=True)


# ------------------------------------------------------------------------------ latency target
def tpot_target(max_tpot_s) -> float | None:
    """``max_tpot_s`` checked: None (no target) or a number of seconds per output token > 0;
    a ValueError naming it otherwise."""
    if max_tpot_s is None:
        return None
    t = as_array(max_tpot_s, "max_tpot_s", positive=True)
    if t.ndim:
        raise ValueError(f"max_tpot_s={max_tpot_s!r} must be one number of seconds > 0")
    return float(t)


def meets_tpot_target(expected_tpot_s, max_tpot_s):
    """Whether a serving set-up meets a latency target: the one rule of ``serving_cost``,
    ``choose_serving_tp`` and ``engines.cheapest_setup``.

    Rule: expected TPOT ≤ ``max_tpot_s`` (None: every set-up meets it). The expected TPOT is
    the one the expected prices are paid at and the pages print (an engine's), not the
    roofline's. Each decode pass takes its roofline time (``decode_step``) below an engine's
    achieved fractions plus a fixed per-step cost (``EngineEfficiency.decode_s``)::

        expected pass = (roofline − KV read) / η_d + KV read / η_kv + o

    and the expected TPOT is its mean over the request's decode steps (with speculation the
    target pass plus γ draft passes, ÷ tokens per pass). (η_d, η_kv, o) are fitted by
    ``engines.fit_engine_efficiency`` on the train rows of ``data/serving_benchmarks.csv``
    (each row's source there; the per-step host cost as the vLLM team measured it, "vLLM
    v0.6.0: 2.7x Throughput Improvement and 5x Latency Reduction", 2024-09-05) and stored in
    ``data/engine_efficiency.csv``. As η ≤ 1 and o ≥ 0 the expected TPOT is at or above the
    roofline's: a target the expected TPOT meets the roofline meets too, not the reverse.

    Returns
    -------
    bool or ndarray of bool, over ``expected_tpot_s``.
    """
    target = tpot_target(max_tpot_s)
    t = np.asarray(expected_tpot_s, dtype=float)
    ok = np.ones(t.shape, dtype=bool) if target is None else t <= target
    return bool(ok) if ok.ndim == 0 else ok


def largest_batch_meeting(expected_tpot_of, cap: int, max_tpot_s) -> int:
    """The largest batch in 1 … ``cap`` whose expected TPOT (``expected_tpot_of(batches)``,
    vectorised over an array of batches) meets ``max_tpot_s`` (``meets_tpot_target``); 0 when
    none does."""
    ok = np.nonzero(meets_tpot_target(expected_tpot_of(np.arange(1, cap + 1)), max_tpot_s))[0]
    return int(ok[-1] + 1) if len(ok) else 0


@dataclass(frozen=True)
class ServingOptions:
    """How one tensor-parallel replica serves (``serving_cost``'s settings, one object; its
    keywords give the fields). Each value is checked where it is used, the message naming the
    field (``tp=3 must divide n_heads=32 ...``).

    Fields
    ------
    batch : int, optional
        Batch slots (default: the largest that fits, lowered to meet ``max_tpot_s``).
    weight_dtype : {"bf16", "fp16", "fp8", "int8", "int4", "nvfp4", "mxfp4"}
    kv_dtype : {"bf16", "fp16", "fp8"}
    tp : int
        Tensor-parallel GPUs per replica (within one scale-up domain).
    occupancy : float in (0, 1]
        Mean share of the batch slots decoding (continuous batching).
    max_tpot_s : float, optional
        Latency target on the expected TPOT, the engine's (``meets_tpot_target``): the time
        per output token the expected prices are paid at.
    draft_model, draft_tokens, acceptance_rate
        Speculative decoding: the draft (smaller than the target), γ >= 1 tokens per pass and
        the acceptance rate α (``speculative_tokens_per_pass``); ``draft_tokens`` 0: none.
    reserve_fraction : float in [0, 1)
        HBM left unused (``SERVING_RESERVE``).
    efficiency : Efficiency, optional
        Achievable fractions (default: the accelerator's ``data/efficiency.csv`` row).
    window_layers : float in [0, 1], optional
        Share of layers with the sliding window (``kv_cache_bytes``).
    engine : str, optional
        The engine family of the expected fields (None: the pooled fit).
    """

    batch: int | None = None
    weight_dtype: str = "bf16"
    kv_dtype: str = "bf16"
    tp: int = 1
    occupancy: float = 1.0
    max_tpot_s: float | None = None
    draft_model: object = None
    draft_tokens: int = 0
    acceptance_rate: float | None = None
    reserve_fraction: float = SERVING_RESERVE
    efficiency: Efficiency | None = None
    window_layers: object = None
    engine: str | None = None

    def engine_keywords(self) -> dict:
        """The keywords of ``decode_step`` and ``prefill`` these options set."""
        return dict(weight_dtype=self.weight_dtype, kv_dtype=self.kv_dtype, tp=self.tp,
                    efficiency=self.efficiency, window_layers=self.window_layers)


def serving_cost(model, accelerator, price_usd_per_gpu_hour, *, prompt_tokens: int,
                 output_tokens: int, options: ServingOptions | None = None,
                 **keywords) -> ServingCost:
    """USD per million input and output tokens, TTFT and TPOT for one serving set-up
    (``options``: a ``ServingOptions``, whose fields the keywords may also give).

    Two throughputs: the **bound** (the roofline, every field without ``expected_``) and the
    **expected** throughput on an engine (``engine``: a family of ``ENGINE_FAMILIES``, or None
    for the pooled fit; ``load_engine_efficiency``): every pass at its expected time,
    expected TPOT = ((TPOT_roof − KV read)/η_d + KV read/η_kv + o·passes) / tokens per pass,
    expected prefill = prefill_roof/η_p + o (of the batch's prompts: the input price; of one
    prompt: ``expected_ttft_s``), with the engine's band on throughput (reciprocal on USD).
    A ``max_tpot_s`` target is met by the expected TPOT, the one the expected prices are paid
    at (``meets_tpot_target``: its formula and source; ``engines.cheapest_setup``'s rule too).

    Formulas (one TP replica of ``tp`` GPUs at ``price`` USD per GPU-hour):

    * batch: ``batch`` slots (default: the largest that fits, ``max_batch`` at context P + R,
      every sequence's cache reserved for its full length, no preemption; lowered to the largest
      whose expected TPOT meets ``max_tpot_s``: ``_serving_batch``); continuous batching /
      PagedAttention enter as the mean ``occupancy`` of the slots, live = occupancy × batch
      (Kwon et al. 2023, vLLM, SOSP);
    * TPOT = mean over the R−1 decode steps (ctx = P+1 … P+R−1) of the step time at the live
      batch, divided by the tokens per target pass with speculative decoding
      (``speculative_tokens_per_pass``; the draft model's γ steps are added to each pass, and
      its weights and KV cache share the replica's HBM in ``max_batch``);
    * output GPU-s per token = TPOT × tp / live;  USD/M output = that × price / 3600 × 1e6;
    * input GPU-s per token = prefill(batch prompts) × tp / (batch · P); USD/M input likewise;
    * TTFT = prefill of one prompt alone;
    * blended USD/M = (P·USD_in + R·USD_out) / (P + R) for the stated input:output ratio P:R.

    ``limit`` says what stops the batch: "HBM capacity" (the KV cache of the next sequence does
    not fit), "latency target", "latency target missed" (no batch meets it on an engine:
    batch 1, and ``latency_warning`` says so), "compute" (the batch is past the compute-bound
    crossover, so larger batches no longer lower the cost) or "as given".

    Raises
    ------
    ValueError
        Bad input; a given batch larger than fits; a latency target the roofline misses at
        batch 1 (or at the given batch); a ``draft_model`` not smaller than the target (active
        parameters).
    """
    o = options_with(ServingOptions, "options", options, keywords)
    m, acc = serving_model(model), serving_accelerator(accelerator)
    price = _price(price_usd_per_gpu_hour)
    p = _int("prompt_tokens", prompt_tokens)
    r = _int("output_tokens", output_tokens)
    occ = as_scalar(o.occupancy, "occupancy", positive=True, upper=1.0)
    kw, tp = o.engine_keywords(), o.tp
    spec = _speculation(m, o.draft_model, o.draft_tokens, o.acceptance_rate)
    cap = _request_capacity(m, acc, p, r, o, spec[0])
    ctx = p + np.arange(1, max(r, 2))
    eng = load_engine_efficiency(o.engine, acc)

    def tpot(bs, engine_eff=None):
        return _mean_tpot(m, acc, bs, ctx, occ, spec, kw, engine_eff)

    b, limit, late = _serving_batch(tpot, eng, o.batch, cap, o.max_tpot_s, acc, tp, p + r)
    cross = decode_crossover_batch(m, acc, p + r / 2, **kw)
    limit = "compute" if limit == "HBM capacity" and cross < b else limit
    live, t_out = occ * b, float(tpot(b))
    pst, one = prefill(m, acc, p, b, **kw), prefill(m, acc, p, 1, **kw)
    pre_b = float(pst.time_s)
    in_gpu_s, out_gpu_s, usd_in, usd_out = _token_prices(t_out, pre_b, tp, b, live, p, price)
    bound = decode_step(m, acc, live, p + r / 2, **kw).bound
    g = spec[1]
    base = ServingCost(
        model=m.name, accelerator=acc.name, tp=tp, batch=int(b), live_batch=live, max_batch=cap,
        limit=limit, decode_bound=bound, prompt_tokens=p, output_tokens=r,
        ttft_s=float(one.time_s), tpot_s=t_out,
        output_tokens_per_s_per_gpu=1 / out_gpu_s, input_tokens_per_s_per_gpu=1 / in_gpu_s,
        usd_per_m_input=usd_in, usd_per_m_output=usd_out,
        usd_per_m_blended=(p * usd_in + r * usd_out) / (p + r), price_usd_per_gpu_hour=price,
        crossover_batch=cross,
        notes=f"{o.weight_dtype} weights, {o.kv_dtype} KV, occupancy {occ:g}"
              + (f", speculative γ={g}, α={o.acceptance_rate}" if g else "")
              + _setup_caveats(m, acc, o.weight_dtype, eng, p + r))
    return replace(_with_expected(base, eng, float(tpot(b, eng)), pst, one),
                   latency_warning=late)


def _setup_caveats(m, acc, weight_dtype: str, eng, request_tokens: int) -> str:
    """What ``serving_cost``'s notes must say of a set-up priced otherwise than it reads (a
    trial read "fp8 weights" on an A100, the pooled fit under "HF generate", and a request
    longer than the model's context, each priced without a word): low-bit weights a device has
    no tensor cores for run weight-only, dequantised to BF16 (``_compute_dtype``); an engine
    family without a fit of its own carries the pooled one (``EngineEfficiency.fitted_on``);
    a request longer than the model's known context (``model_context``)."""
    out = []
    if weight_dtype not in ("bf16", "fp16", "int8", "int4") and \
            _compute_dtype(weight_dtype, acc) == "bf16":
        out.append(f"{weight_dtype} weights weight-only, dequantised to BF16 ({acc.name} has "
                   f"no {weight_dtype} peak)")
    if eng.family != POOLED and eng.fitted_on != eng.family:
        out.append(f"engine {eng.family}: too few published rows for a fit of its own, priced "
                   f"with the {eng.fitted_on} fit (continuous batching"
                   + (": HF generate has none, so read it as a floor)" if eng.family ==
                      "HF generate" else ")"))
    context = model_context(m)[0]
    if context and request_tokens > context:
        out.append(f"the request's {request_tokens:,} tokens are beyond {m.name}'s {context:,}"
                   "-token context: a KV cache and attention the model cannot use")
    return "".join(f"; {x}" for x in out)


def _token_prices(t_out, pre_b, tp, b, live, p, price) -> tuple:
    """(input GPU-s per token, output GPU-s per token, USD/M input, USD/M output) of
    ``serving_cost``::

        output GPU-s per token = TPOT · tp / live        input = prefill(b prompts) · tp / (b · P)
        USD per M tokens       = GPU-s per token · price / 3600 · 1e6
    """
    in_gpu_s = pre_b * tp / (b * p)
    out_gpu_s = t_out * tp / live
    return (in_gpu_s, out_gpu_s, in_gpu_s * price / SECONDS_PER_HOUR * 1e6,
            out_gpu_s * price / SECONDS_PER_HOUR * 1e6)


def _speculation(m: ModelSpec, draft_model, draft_tokens, acceptance_rate) -> tuple:
    """(draft ModelSpec or None, γ, expected tokens per target pass) of ``serving_cost``'s
    speculative-decoding keywords, checked (``speculative_tokens_per_pass``)."""
    g = _int("draft_tokens", draft_tokens, minimum=0)
    if not g:
        if draft_model is not None or acceptance_rate is not None:
            raise ValueError("draft_model and acceptance_rate need draft_tokens >= 1")
        return None, 0, 1.0
    if draft_model is None or acceptance_rate is None:
        raise ValueError(f"draft_tokens={g} needs draft_model and acceptance_rate")
    dm = as_model(draft_model, "draft_model", needs="serving")
    if dm.n_active_params >= m.n_active_params:  # the parameters a token's pass computes with
        raise ValueError(f"draft_model={dm.name!r} ({dm.n_active_params:.3g} active parameters) "
                         f"must be smaller than the target {m.name!r} "
                         f"({m.n_active_params:.3g} active): a draft as large as the target "
                         "adds its own passes and saves none")
    return dm, g, float(speculative_tokens_per_pass(acceptance_rate, g))


def _request_capacity(m, acc, p: int, r: int, o, draft) -> int:
    """``max_batch`` at a request's whole context, prompt + output tokens; its refusal of that
    context (one sequence's KV cache beyond the HBM, or its bytes beyond a double) says the
    ``prompt_tokens`` and ``output_tokens`` the caller gave, which sum to it."""
    try:
        return max_batch(m, acc, p + r, weight_dtype=o.weight_dtype, kv_dtype=o.kv_dtype,
                         tp=o.tp, reserve_fraction=o.reserve_fraction,
                         window_layers=o.window_layers, draft_model=draft)
    except ValueError as e:
        if not getattr(e, "context_refusal", False):
            raise
        raise type(e)(f"prompt_tokens={_count(p)} + output_tokens={_count(r)} tokens per "
                      f"request: {e}") from None


def _count(n: int) -> str:
    """A whole count for a message: every digit up to 10^15 (1,000,000), else 3 figures."""
    return f"{n:,}" if n < 10**15 else f"{float(n):.3g}"


def _mean_tpot(m, acc, bs, ctx, occ, spec, kw, eng=None):
    """Mean TPOT over the decode contexts ``ctx`` at ``bs`` batch slots × occupancy: the
    roofline (``eng`` None) or the engine's expected passes; with speculation the target's
    verification pass plus γ draft passes, divided by the tokens per pass."""
    dm, g, e_tok = spec
    live = np.asarray(bs, dtype=float)[..., None] * occ
    st = decode_step(m, acc, live, ctx, tokens_per_sequence=g + 1, **kw)
    t = st.time_s if eng is None else eng.decode_s(st.time_s,
                                                   decode_kv_read_s(st, m, kw["weight_dtype"]))
    t = np.asarray(t)
    if g:
        sd = decode_step(dm, acc, live, ctx, tp=kw["tp"], weight_dtype=kw["weight_dtype"],
                         kv_dtype=kw["kv_dtype"], efficiency=kw["efficiency"])
        d = sd.time_s if eng is None else eng.decode_s(
            sd.time_s, decode_kv_read_s(sd, dm, kw["weight_dtype"]))
        t = (t + g * np.asarray(d)) / e_tok
    return t.mean(axis=-1)


def _serving_batch(tpot, eng, batch, cap, max_tpot_s, acc, tp, seq_tokens) -> tuple:
    """(batch, limit, latency warning) of ``serving_cost``: the largest batch that fits
    (``cap``), lowered until its expected TPOT (``tpot(bs, eng)``) meets ``max_tpot_s``
    (``meets_tpot_target``), or the given batch checked against both.

    A target the expected TPOT misses at every batch while the roofline's (``tpot(bs)``, a
    floor no engine beats) meets it at batch 1: batch 1, the fastest, limit "latency target
    missed" and a warning; a given batch that misses it on the expected TPOT only: kept, with
    a warning. A target the roofline misses (at batch 1, or at the given batch) is refused.
    """
    target = tpot_target(max_tpot_s)
    where, words = f"{acc.name} at tp={tp}", f"{tp} × {acc.name}"
    if batch is None:
        if target is None:
            return cap, "HBM capacity", ""
        b = largest_batch_meeting(lambda bs: tpot(bs, eng), cap, target)
        if b:
            return (b, "latency target", "") if b < cap else (cap, "HBM capacity", "")
        if float(tpot(1)) > target:
            raise ValueError(f"max_tpot_s={target!r}: even one sequence takes "
                             f"{float(tpot(1)):.4g} s per output token on {where} on the "
                             "roofline, a floor no engine beats")
        return 1, "latency target missed", _missed_words(
            target, float(tpot(1, eng)), float(tpot(1)), 1, 0, eng, words)
    b = _int("batch", batch)
    if b > cap:
        raise BatchDoesNotFit(f"batch={b} does not fit: at most {cap} sequences of "
                              f"{seq_tokens} tokens fit beside the weights on {where}")
    if target is None or meets_tpot_target(float(tpot(b, eng)), target):
        return b, "as given", ""
    if float(tpot(b)) > target:
        raise ValueError(f"batch={b} misses max_tpot_s={target!r} "
                         f"({float(tpot(b)):.4g} s per token on the roofline, a floor no "
                         "engine beats)")
    best = largest_batch_meeting(lambda bs: tpot(bs, eng), b, target)
    return b, "as given", _missed_words(target, float(tpot(b, eng)), float(tpot(b)), b, best,
                                        eng, words)


def _missed_words(target, expected, roofline, batch, best, eng, where) -> str:
    """The warning of a set-up whose expected TPOT misses the latency target, in words."""
    at = ("even one sequence at a time" if batch == 1 and not best else f"batch {batch}")
    fix = (f"; the largest batch that meets it is {best}" if best else
           "; no batch meets it on this set-up (a faster accelerator, more GPUs per replica "
           "or narrower weights may)")
    return (f"the latency target of {target * 1e3:.3g} ms per output token is missed: {at} "
            f"on {where} is expected to take {expected * 1e3:.3g} ms per output token on an "
            f"engine ({eng.family} constants; the roofline floor, which no engine beats, "
            f"{roofline * 1e3:.3g} ms){fix}")


def _with_expected(c: ServingCost, eng: EngineEfficiency, e_out: float,
                   prefill_batch: StepTime, prefill_one: StepTime) -> ServingCost:
    """``c`` with the engine's expected fields: expected TPOT ``e_out``, the prefill of the
    batch (input price) and of one prompt (expected TTFT) at ``eng.prefill_s`` (compute-bound
    when its roofline's compute term leads), and the band on throughput (its reciprocal on
    USD)."""
    p, r, tp, k = c.prompt_tokens, c.output_tokens, c.tp, c.price_usd_per_gpu_hour

    def expected_s(st: StepTime) -> float:
        return float(eng.prefill_s(float(st.time_s), float(st.compute_s) >= float(st.memory_s)))

    e_in_gpu_s = expected_s(prefill_batch) * tp / (c.batch * p)
    e_out_gpu_s = e_out * tp / c.live_batch
    e_usd_in = e_in_gpu_s * k / SECONDS_PER_HOUR * 1e6
    e_usd_out = e_out_gpu_s * k / SECONDS_PER_HOUR * 1e6
    e_blend = (p * e_usd_in + r * e_usd_out) / (p + r)
    lo, hi = eng.band
    return replace(
        c, engine=eng.family, expected_tpot_s=e_out, expected_ttft_s=expected_s(prefill_one),
        expected_output_tokens_per_s_per_gpu=1 / e_out_gpu_s,
        expected_output_tokens_per_s_per_gpu_band=(lo / e_out_gpu_s, hi / e_out_gpu_s),
        expected_usd_per_m_input=e_usd_in, expected_usd_per_m_output=e_usd_out,
        expected_usd_per_m_output_band=(e_usd_out / hi, e_usd_out / lo),
        expected_usd_per_m_blended=e_blend,
        expected_usd_per_m_blended_band=(e_blend / hi, e_blend / lo))


def cost_vs_batch(model, accelerator, price_usd_per_gpu_hour, batches, *, prompt_tokens: int,
                  output_tokens: int, weight_dtype: str = "bf16", kv_dtype: str = "bf16",
                  tp: int = 1, efficiency: Efficiency | None = None,
                  window_layers=None) -> pd.DataFrame:
    """USD per million output tokens and TPOT against batch (the figure of notebook 05).

    Formula: TPOT(B) = mean over ctx = P+1 … P+R−1 of ``decode_step_time(B, ctx)``;
    USD/M output = price / 3600 × 1e6 × TPOT · tp / B (as ``serving_cost``, occupancy 1, no
    speculation); batches above
    ``max_batch`` are kept with ``fits = False`` so a plot can show where HBM runs out.

    Returns
    -------
    DataFrame: batch, tpot_s, output_tokens_per_s_per_gpu, usd_per_m_output, bound, fits.
    """
    m, acc = serving_model(model), serving_accelerator(accelerator)
    price = _price(price_usd_per_gpu_hour)
    p = _int("prompt_tokens", prompt_tokens)
    r = _int("output_tokens", output_tokens)
    bs = as_array(batches, "batches", positive=True, integer=True).reshape(-1)
    if not bs.size:
        raise ValueError("batches=[] must hold at least one batch size")
    kw = dict(weight_dtype=weight_dtype, kv_dtype=kv_dtype, tp=tp, efficiency=efficiency,
              window_layers=window_layers)
    cap = max_batch(m, acc, p + r, weight_dtype=weight_dtype, kv_dtype=kv_dtype, tp=tp,
                    window_layers=window_layers)
    ctx = p + np.arange(1, max(r, 2))
    st = decode_step(m, acc, bs[:, None], ctx[None, :], **kw)
    t = np.asarray(st.time_s).mean(axis=1)
    mid = decode_step(m, acc, bs, p + r / 2, **kw)
    out = pd.DataFrame({"batch": bs.astype(int), "tpot_s": t,
                        "output_tokens_per_s_per_gpu": bs / t / tp})
    out["usd_per_m_output"] = price / SECONDS_PER_HOUR * 1e6 / out["output_tokens_per_s_per_gpu"]
    out["bound"] = np.atleast_1d(mid.bound)
    out["fits"] = bs <= cap
    out.attrs.update(max_batch=cap, model=m.name, accelerator=acc.name)
    return out


# ------------------------------------------------------------------------------ validation
#: Metrics of serving_benchmarks.csv that are times (the others are throughputs).
TIME_METRICS = ("ttft_s", "tpot_s", "latency_s")


@lru_cache(maxsize=1)
def _benchmarks() -> pd.DataFrame:
    return pd.read_csv(DATA_DIR / "serving_benchmarks.csv", comment=None)


def load_serving_benchmarks() -> pd.DataFrame:
    """Published serving measurements (``data/serving_benchmarks.csv``, one source per row)."""
    return _benchmarks().copy()


#: Published rows are checked against the whole HBM: the engines that measured them did not
#: all keep vLLM's 10% free (TensorRT-LLM v0.6.1 ran Llama-2-7B at batch 60 × 2,176 tokens in
#: FP16 on one A100 80GB: 68 GB of KV cache beside 13.5 GB of weights, 95% of the HBM).
BENCHMARK_RESERVE = 0.0


def _predict_row(row) -> float:
    kw = dict(weight_dtype=row["weight_dtype"], kv_dtype=row["kv_dtype"], tp=int(row["tp"]))
    m, acc = row["model"], row["accelerator"]
    b, p, r = float(row["batch"]), int(row["input_tokens"]), int(row["output_tokens"])
    metric = row["metric"]
    if metric == "ttft_s":
        return float(prefill(m, acc, p, b, **kw).time_s)
    if metric == "tpot_s":
        return float(np.mean(decode_step(m, acc, b, p + np.arange(1, max(r, 2)), **kw).time_s))
    g = generation_time(m, acc, b, p, r, reserve_fraction=BENCHMARK_RESERVE, **kw)
    if metric == "latency_s":
        return g["total_s"]
    if metric == "output_tokens_per_s_per_gpu":
        return g["output_tokens_per_s_per_gpu"]
    if metric == "output_tokens_per_s":
        return g["output_tokens_per_s"]
    raise ValueError(f"serving_benchmarks.csv: unknown metric {metric!r}")


#: Why the engines sit below the roofline, by regime (``serving_validation``'s ``regime``). Each
#: rule names a mechanism the sources describe, applied to every row alike; the factor is a
#: ceiling set just above the widest roofline speed-up in that regime over
#: ``data/serving_benchmarks.csv`` (widest 1.96, 3.18, 4.10, 2.80 and 3.54 in the order below;
#: the rows: the Llama rows of the cited TensorRT-LLM v0.5 / v0.6.1 tables, NeMo's Llama-2-7B
#: table, NVIDIA NIM 1.8.0's Llama ITL tables (55 rows), vLLM's performance benchmark (9 rows:
#: Llama-3.1-8B, Llama-3.1-70B and Mixtral-8x7B on H200, H100 and A100), OCI's MI300X vLLM runs
#: (9 rows) and one vLLM 0.23 figure).
SERVING_REGIMES = {
    "roofline": ("large-batch throughput, long-prompt prefill, TP-1 small-batch latency: the "
                 "HBM or compute line with kernel losses on top", 2.0),
    "short-prompt TTFT": ("first token of a 128-token prompt: a few ms of weight read, "
                          "dominated by per-request fixed costs (kernel launches of every "
                          "layer, context set-up, sampling) the roofline leaves out", 3.3),
    "small-batch latency, TP >= 2": ("batch 1-8 end-to-end latency on 2-8 GPUs: the roofline's "
                                     "step shrinks with tp, the engine's per-step fixed costs "
                                     "do not (NeMo's TP 1 -> 8 gains 1.6x where the roofline "
                                     "gains 3.5x)", 4.2),
    "closed-loop decode with prompt chunks": ("inter-token latency at a fixed concurrency C > 1 "
                                              "(NIM's AIPerf runs): each decode step also "
                                              "carries (C - 1)·P/R prompt tokens of the other "
                                              "requests, which the decode-only roofline leaves "
                                              "out (engines.closed_loop_chunk_tokens prices "
                                              "them)", 2.9),
    "GQA decode before XQA": ("Llama-70B (GQA) long generation in TensorRT-LLM v0.5/v0.6.1: its "
                              "decode attention predates the XQA kernel, which NVIDIA reported "
                              "gave '2.4x more Llama-70B throughput within the same latency "
                              "budget' (TensorRT-LLM README news, 2024/01/30)", 3.6),
}


def _regime(row) -> str:
    m = serving_model(row["model"])
    if row["metric"] == "ttft_s" and int(row["input_tokens"]) <= 128:
        return "short-prompt TTFT"
    if str(row.get("closed_loop", "")).lower() == "true" and float(row["batch"]) > 1:
        return "closed-loop decode with prompt chunks"
    if row["metric"] in ("latency_s", "tpot_s") and int(row["tp"]) >= 2:
        return "small-batch latency, TP >= 2"
    if str(row["engine"]).startswith(("TensorRT-LLM v0.5", "TensorRT-LLM v0.6")) \
            and m.n_kv_heads < m.n_heads \
            and int(row["output_tokens"]) >= 2048:
        return "GQA decode before XQA"
    return "roofline"


@disk_cached  # the same for every call with these arguments: core.diskcache
def serving_validation() -> pd.DataFrame:
    """The roofline against every published serving figure in ``data/serving_benchmarks.csv``.

    Nothing is fitted: the fractions are ``data/efficiency.csv``'s. For a throughput the
    roofline must be at or above the measurement; for a time (TTFT, TPOT, latency) at or below.
    ``speedup`` = how much faster the roofline is than the engine (predicted ÷ measured
    throughput, or measured ÷ predicted time): ≥ 1 when the roofline is an upper bound.
    ``regime`` names why the engine is slower (``SERVING_REGIMES``: the rule, the mechanism and
    its ceiling factor). Over the 137 rows the speed-up runs from 1.03x to 4.1x (median
    1.71x): within 1.96x in the roofline regime, up to 2.8x for closed-loop inter-token latency
    (prompt chunks the decode-only roofline leaves out), 3.2x for short-prompt TTFT, 3.5x for
    Llama-70B long generation before TensorRT-LLM's XQA kernel and 4.1x for batch 1-8 latency
    at TP 8.

    Returns
    -------
    DataFrame: the CSV's columns plus ``predicted``, ``speedup`` and ``regime``.
    """
    df = load_serving_benchmarks()
    df["predicted"] = [_predict_row(r) for _, r in df.iterrows()]
    is_time = df["metric"].isin(TIME_METRICS)
    df["speedup"] = np.where(is_time, df["measured"] / df["predicted"],
                             df["predicted"] / df["measured"])
    df["regime"] = [_regime(r) for _, r in df.iterrows()]
    return df


def tp_trend(fit_on: str = "nemo-h100-7b-b1") -> pd.DataFrame:
    """NeMo's Llama-2-7B latency rows against tp: the roofline alone, and the roofline plus one
    per-pass overhead fitted on a single row (``fit_on``), beside the measurement.

    Formula: overhead per pass o = (measured − roofline) / R for the fitted row (R = 20 passes:
    the prefill and 19 decode steps of a 128-in / 20-out request); every other row is predicted
    as roofline + R·o, the same o for every tp, batch and GPU. If that reproduces the trend,
    the gap that grows with tp is a fixed per-step cost (kernel launches, sampling), not
    bandwidth or communication.

    Returns
    -------
    DataFrame: benchmark_id, accelerator, tp, batch, measured, roofline, with_overhead,
    ratio_roofline (measured ÷ roofline), ratio_overhead (measured ÷ with_overhead), fitted
    (True for the fitted row); ``attrs["overhead_per_pass_s"]``.
    """
    v = serving_validation()
    v = v[v["engine"].str.startswith("NeMo")].copy()
    if fit_on not in set(v["benchmark_id"]):
        raise ValueError(f"fit_on={fit_on!r} must be a NeMo row of serving_benchmarks.csv")
    passes = v["output_tokens"].astype(float)
    row = v[v["benchmark_id"] == fit_on].iloc[0]
    o = (row["measured"] - row["predicted"]) / float(row["output_tokens"])
    out = pd.DataFrame({"benchmark_id": v["benchmark_id"], "accelerator": v["accelerator"],
                        "tp": v["tp"], "batch": v["batch"], "measured": v["measured"],
                        "roofline": v["predicted"], "with_overhead": v["predicted"] + passes * o})
    out["ratio_roofline"] = out["measured"] / out["roofline"]
    out["ratio_overhead"] = out["measured"] / out["with_overhead"]
    out["fitted"] = out["benchmark_id"] == fit_on
    out.attrs["overhead_per_pass_s"] = o
    return out.sort_values(["accelerator", "batch", "tp"]).reset_index(drop=True)


def choose_serving_tp(model, accelerator, price_usd_per_gpu_hour, *, prompt_tokens: int,
                      output_tokens: int, batch: int | None = None, weight_dtype: str = "bf16",
                      kv_dtype: str = "bf16", occupancy: float = 1.0,
                      max_tpot_s: float | None = None,
                      efficiency: Efficiency | None = None, window_layers=None) -> ServingCost:
    """The cheapest tensor-parallel size for serving: ``serving_cost`` at tp = 1, 2, 4, … up to
    the scale-up domain (dividing the heads), the lowest blended USD per million tokens kept.
    ``batch`` None: each tp at its largest batch (or the latency target's); a given batch must fit
    the chosen tp. A set-up whose expected TPOT meets ``max_tpot_s`` (``meets_tpot_target``) is
    preferred to one that misses it (``latency_warning``), whatever their prices; when every
    tp misses it, the one of the lowest expected TPOT (the nearest the target) is kept.

    Raises
    ------
    DoesNotFit (a ValueError)
        If no tp fits the weights and a batch, or the roofline misses ``max_tpot_s`` at every
        tp (the message gives the largest tp's reason).
    ValueError
        A precision not in ``WEIGHT_BYTES`` / ``KV_BYTES`` (checked before any tp is tried).
    """
    m, acc = serving_model(model), serving_accelerator(accelerator)
    as_choice(weight_dtype, "weight_dtype", WEIGHT_BYTES)
    as_choice(kv_dtype, "kv_dtype", KV_BYTES)
    best, last = None, None
    tp = 1
    while tp <= (acc.scaleup_domain_size or 1):
        if m.n_heads % tp == 0:
            try:
                c = serving_cost(m, acc, price_usd_per_gpu_hour, prompt_tokens=prompt_tokens,
                                 output_tokens=output_tokens, batch=batch,
                                 weight_dtype=weight_dtype, kv_dtype=kv_dtype, tp=tp,
                                 occupancy=occupancy,
                                 max_tpot_s=max_tpot_s, efficiency=efficiency,
                                 window_layers=window_layers)
                if best is None or _tp_rank(c) < _tp_rank(best):
                    best = c
            except ValueError as e:
                last = e
        tp *= 2
    if best is None:
        raise DoesNotFit(f"model={m.name!r} cannot be served on {acc.name} with {weight_dtype} "
                         f"weights at any tp up to {acc.scaleup_domain_size}: {last}")
    return best


def _tp_rank(c: ServingCost) -> tuple:
    """``choose_serving_tp``'s order: set-ups meeting the latency target first, by blended
    USD per million tokens; then those missing it, by expected TPOT (nearest the target)."""
    return (1, c.expected_tpot_s) if c.latency_warning else (0, c.usd_per_m_blended)


def compare_accelerators(model, prices: dict, batches, *, prompt_tokens: int,
                         output_tokens: int, weight_dtype: str = "bf16", kv_dtype: str = "bf16",
                         occupancy: float = 1.0, max_tpot_s: float | None = None,
                         unservable: str = "raise") -> tuple:
    """``model`` served on each accelerator of ``prices`` (name -> USD per GPU-hour) at its
    cheapest tensor-parallel size (``choose_serving_tp``; the formulas are ``serving_cost``'s),
    and the cost of output tokens against batch at that size (``cost_vs_batch``).

    Returns (table, curves): one table row per accelerator (its price, tp, batch, TTFT and TPOT
    in ms, USD per M input, output and blended tokens, what limits the batch) and, per
    accelerator, the ``cost_vs_batch`` frame over ``batches`` keyed "name, tp N, $X/GPU-h".
    An accelerator on which no tp up to its scale-up domain holds the model (``choose_serving_tp``
    raises): ``unservable="raise"`` raises that error; ``"row"`` keeps its row with the figures
    NaN and ``limit`` saying why, and no curve (the first accelerator must serve it).
    """
    if not isinstance(prices, dict) or not prices:
        raise ValueError(f"prices={prices!r} must map accelerator names to USD per GPU-hour")
    if unservable not in ("raise", "row"):
        raise ValueError(f"unservable={unservable!r} must be 'raise' or 'row'")
    kw = dict(prompt_tokens=prompt_tokens, output_tokens=output_tokens,
              weight_dtype=weight_dtype, kv_dtype=kv_dtype)
    rows, curves = [], {}
    for i, (name, pr) in enumerate(prices.items()):
        try:
            q = choose_serving_tp(model, name, pr, occupancy=occupancy, max_tpot_s=max_tpot_s,
                                  **kw)
        except ValueError as e:
            if unservable == "raise" or i == 0 or not isinstance(e, DoesNotFit):
                raise
            rows.append({"accelerator": name, "$/GPU-h": pr, "limit": f"cannot serve it: {e}"})
            continue
        rows.append({"accelerator": name, "$/GPU-h": pr, "tp": q.tp, "batch": q.batch,
                     "TTFT (ms)": q.ttft_s * 1e3, "TPOT (ms)": q.tpot_s * 1e3,
                     "$/M input": q.usd_per_m_input, "$/M output": q.usd_per_m_output,
                     "$/M blended": q.usd_per_m_blended, "limit": q.limit})
        curves[f"{name}, tp {q.tp}, ${pr:.2f}/GPU-h"] = cost_vs_batch(model, name, pr, batches,
                                                                       tp=q.tp, **kw)
    return pd.DataFrame(rows), curves
