"""Serving set-ups beyond one tensor-parallel replica: expert parallelism with attention data
parallelism across nodes, disaggregated prefill and decode pools with the KV transfer between
them, prefix caching with cached-input pricing, multi-node TP × PP replicas of a dense model,
and chunked prefill.

**Expert parallelism with DP attention** (SGLang's large-scale EP, DeepSeek's inference system;
"Deploying DeepSeek with PD Disaggregation and Large-scale Expert Parallelism on 96 H100 GPUs",
The SGLang Team, lmsys.org blog, 2025-05-05). ``ep`` GPUs serve one model. Attention, the dense
FFN layers, the shared experts and the LM head run data-parallel: every GPU holds them whole and
runs its own sequences (so the MLA latent cache is *not* copied on every rank: each GPU holds
only its own sequences' cache). The routed experts are spread over the GPUs, ``(E + redundant)
/ ep`` slots each (EPLB's redundant experts: 256 + 32 = 288 slots make EP sizes such as 72
possible, same blog). Per engine step on one GPU holding T tokens (decode: T = its batch B, one
token each; prefill: T prompt tokens)::

    weights read = (N − N_routed − N_embedding) · w + slots_per_gpu · N_expert · w · u(ep·T)
    compute      = (T · (2 · (N_active_matmul − N_lm_head) + a · keys)
                    + 2 · N_lm_head · T_logit) / (peak · matmul_fraction)
    memory       = (weights read + KV read + KV written) / (HBM bytes/s · hbm_fraction)
    all-to-all   = L_moe · (dispatch + combine of T tokens × top-k over ep GPUs)
    step         = max(compute, memory, all-to-all)       with two-batch overlap (TBO)
                 = max(compute, memory) + all-to-all       without

with u(n) = 1 − (1 − k/E)^n the share of an expert's weights the n tokens of the step touch
(``inference.experts_touched``), N_expert the parameters of one routed expert summed over the
MoE layers, a the attention FLOPs per key (MLA decode weight-absorbed,
``inference.attention_flops_per_key``), keys = context + 1 (decode) or (P + 1)/2 (causal
prefill), T_logit the tokens whose logits are sampled (decode: T; prefill: T ÷ P, each
prompt's last token: ``inference.logit_tokens``), the KV read B·ctx·kv bytes per token
(decode only). The all-to-all is
``training.comm.moe_all_to_all_time`` on a cluster of ``ep`` GPUs (NVLink inside a node, the
GPU's own NIC across nodes): decode in DeepEP's low-latency mode (each token's k copies sent to
each expert's GPU, FP8 dispatch, BF16 combine), prefill in DeepEP's normal mode (one copy per
destination node, at most 4 nodes per token: DeepSeek-V3's node-limited routing). The expected
time on an engine applies ``inference.EngineEfficiency`` to the GPU part (η_d / η_kv / η_p and
the per-step overhead o); the all-to-all is taken as the bound models it (the engine
constants were not fitted on multi-node rows).

Limits of the all-to-all term (review 2026-12-01): its latency is the ring figure of
``training.comm`` (base + (ep − 1) · α, α = 2.5 µs from NCCL's LL128 tuning), counted once per
dispatch and once per combine of the whole step. DeepEP's low-latency kernels post all sends at
once (IBGDA) rather than in ep − 1 steps; their README (H800, CX7 400 Gb/s, 128 tokens per
rank, 7168 hidden, top-8, FP8 dispatch / BF16 combine) reports 173 µs dispatch and 314 µs
combine at EP64, 192 / 369 µs at EP128. For the SGLang EP72 decode row (256 tokens per GPU as
two micro-batches of 128, 58 MoE layers) that is about 58 × 2 × (0.18 + 0.33) ms ≈ 57–59 ms per
step against 68.8 ms here, so the row's 22 % agreement leans on the ring latency; with DeepEP's
figures the expected decode throughput would be ≈ 4,200–4,400 tokens/s per GPU against 2,785
measured. Expert-load imbalance (the blog's EPLB ablation: 2.54× in decode) is not modelled
(``imbalance = 1``); with two-batch overlap each micro-batch pays its own latency, also not
modelled.

**Disaggregated prefill and decode** (same blog; DistServe, Zhong et al. 2024, OSDI): prefill
and decode run on separate GPU pools; each request's KV cache (P · kv bytes per token) crosses
the network once, from a prefill GPU to a decode GPU, over RDMA (the NIC of one GPU), adding
``P · kv / (NIC bytes/s · scale-out fraction)`` to the time to first token. For a workload of P
input and R output tokens per request the pools are sized so neither waits:
prefill GPUs ÷ decode GPUs = (P / prefill tokens/s per GPU) ÷ (R / decode tokens/s per GPU).

**Prefix caching** (vLLM automatic prefix caching; SGLang RadixAttention, Zheng et al. 2024,
arXiv:2312.07104): a cached prompt prefix skips its prefill; its tokens are still attended to
by the rest of the prompt and by decode. A cached input token costs only its share of the
remaining prefill (the attention of later tokens over it), priced as ``usd_per_m_cached_input``.

**List prices** (``api_price_comparison``): dated, sourced API prices of open-weight models
(``data/api_prices.csv``) beside the modelled cost of serving them, and the margin each implies
over the GPU-hour price. A set-up that names its accelerator (SGLang's DeepSeek-V3 deployment on
H100, the TP8 replica on H200) is priced on it at its price (``named_setup_price``): the
scenario's where it is the scenario's accelerator, the catalogue's for the pricing mode
otherwise, so one set-up has one price in every table that shows it.

**Multi-node dense replicas** (``pipeline_replica``): TP inside a node (or across whole nodes),
PP across stages (and nodes), pp micro-batches in flight; each decode cycle is pp stage passes plus the hidden-state
hops between stages (d_model · 2 B per token per hop, over the NIC between nodes). The formula
and its limits are in the function's docstring. Against NVIDIA's Llama 3.1 405B H200 TP8-vs-PP8
comparison it reproduces TP's lower latency (≈ 5.4× vs 5.6×) but not PP's 1.5× higher maximum
throughput (the model puts PP below TP there).

**Chunked prefill** (``chunked_prefill``; Sarathi-Serve, Agrawal et al. 2024, OSDI): a prompt
split into chunks that fill each engine step's token budget (vLLM's ``max_num_batched_tokens``,
``VLLM_TOKEN_BUDGET``) beside the running decodes, one weight read for the hybrid batch; it
bounds the decodes' time between tokens during a prefill and costs the prompt some TTFT.

**Colocated EP deployments** (``colocated_ep_throughput``): prefill and decode on the same
expert-parallel GPUs (in-flight batching). TensorRT-LLM's published DeepSeek-R1 max-throughput
runs (attention DP 8 + EP8, ISL 1K / OSL 2K) are rows of ``data/serving_setups.csv``. With
attention DP and no ADP balancing, an iteration lasts as long as its slowest rank, so a context
(prefill) on one rank stalls the decode of all the others (TensorRT-LLM tech blog 10, "ADP
Balance Strategy": time_i = max over ranks; its baseline scheduler processes the ranks' contexts
in different iterations); the expected throughput counts it (``colocated_ep_throughput``), the
bound does not (a balanced scheduler can avoid it). Still not separated: grouped-GEMM efficiency
at ~100 tokens per expert, FP4 kernels below the BF16 matmul fraction, the scheduler's mixed
steps.

FP4 weights (``nvfp4``, ``mxfp4``) are a weight precision
of ``inference`` (FP4 tensor cores at the catalogue's FP4 peak on Blackwell). A quantized
checkpoint rarely holds every module in its format: ``EPOptions.kept_weight_dtype`` names the
modules it keeps wider (NVIDIA's NVFP4 DeepSeek-R1: attention, router, LM head and embedding
in BF16, ``NVFP4_MODELOPT_KEPT``), whose bytes and matmuls are then priced at their own
precision (``_module_dtypes``, ``_matmul_s``). Under DP attention every GPU holds and reads the
kept modules whole: for DeepSeek-R1 on 8 B200s that is 13.4e9 BF16 parameters, 19.2 GB more
resident per GPU than an all-NVFP4 pricing and 17.9 GB more read per decode step (the token
embedding's 0.93e9 parameters are resident but not read whole).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace

import pandas as pd

from ..core.catalog import DATA_DIR, PRICING_MODES, catalogue_price, price_mode_words
from ..core.hardware import BatchDoesNotFit, Cluster, DoesNotFit, Efficiency
from ..core.units import SECONDS_PER_HOUR, as_array, as_count, as_scalar, as_choice, options_with
from ..training.comm import moe_all_to_all_time, nccl_collective_time
from .engines import cheapest_setup
from .inference import (
    ACTIVATION_BYTES,
    KV_BYTES,
    SERVING_RESERVE,
    WEIGHT_BYTES,
    attention_flops_per_key,
    attention_peak_flops,
    check_tp_heads,
    compute_dtype,
    decode_kv_read_s,
    decode_step,
    experts_touched,
    kv_cache_bytes,
    kv_cache_bytes_per_token,
    kv_share_per_rank,
    load_engine_efficiency,
    prefill,
    serving_accelerator,
    serving_cost,
    serving_efficiency,
    serving_model,
    tp_allreduce_time,
    weight_bytes,
    weights_read_bytes,
)

#: DeepSeek-V3's node-limited routing: each token's experts span at most 4 nodes
#: (DeepSeek-V3 Technical Report, arXiv:2412.19437, §2.1.2); DeepEP's normal (prefill) mode
#: sends one copy per destination node and forwards on NVLink.
PREFILL_NODE_LIMIT = 4

#: The modules NVIDIA's NVFP4 DeepSeek-R1 checkpoint (``nvidia/DeepSeek-R1-FP4``, quantized with
#: TensorRT Model Optimizer v0.23.0, its model card) keeps out of NVFP4, and their precision:
#: the attention modules in BF16 (TensorRT-LLM tech blog 1, "Pushing Latency Boundaries:
#: Optimizing DeepSeek-R1 Performance on NVIDIA B200 GPUs", NVIDIA/TensorRT-LLM
#: docs/source/blogs/tech_blog/blog1_Pushing_Latency_Boundaries_Optimizing_DeepSeek-R1_\
#: Performance_on_NVIDIA_B200_GPUs.md @5685103, "Precision Strategy": "64x Attention Modules bf16", "3x Dense FFN Layers nvfp4",
#: "58x MoE FFN Layers nvfp4", "RouterGEMM bf16"; the later ``nvidia/DeepSeek-R1-FP4-v2`` model
#: card: "Compared to nvidia/DeepSeek-R1-FP4, this checkpoint additionally quantizes the wo
#: module in attention layers"); the LM head and the MoE router unquantized (ModelOpt's
#: ``_default_disabled_quantizer_cfg``, part of every NVFP4 config: ``"*lm_head*"`` and
#: ``"*mlp.gate.*"`` ``{"enable": False}``, NVIDIA/TensorRT-Model-Optimizer
#: modelopt/torch/quantization/config.py @103b1bb); the token embedding is a lookup table, not a
#: linear layer, and is not quantized. The checkpoint's own ``hf_quant_config.json`` was not
#: read (Hugging Face, not in the searchable corpus): the list is the blog's and ModelOpt's.
NVFP4_MODELOPT_KEPT = {"attention": "bf16", "router": "bf16", "lm_head": "bf16",
                       "embedding": "bf16"}
#: The modules DeepSeek's own FP8 release (DeepSeek-V3, DeepSeek-R1) keeps in BF16: every
#: ``Linear`` of the blocks is FP8 (``Linear.dtype = torch.float8_e4m3fn``), but the LM head
#: (``ColumnParallelLinear(..., dtype=torch.get_default_dtype())``, BF16), the token embedding
#: (``ParallelEmbedding``, default dtype) and the MoE router (``Gate.weight``, default dtype)
#: are not (deepseek-ai/DeepSeek-V3 inference/model.py @1ea5a1a; default dtype BF16).
FP8_DEEPSEEK_KEPT = {"router": "bf16", "lm_head": "bf16", "embedding": "bf16"}


def _whole(name, value, minimum=1):
    return as_count(value, name, minimum)


@dataclass(frozen=True)
class EPStep:
    """One engine step of an expert-parallel, DP-attention set-up, per GPU (``ep_step``)."""

    phase: str
    ep: int
    tokens_per_gpu: float
    compute_s: float
    memory_s: float
    kv_read_s: float
    all_to_all_s: float
    time_s: float
    expected_s: float
    tokens_per_s_per_gpu: float
    expected_tokens_per_s_per_gpu: float
    expected_band: tuple
    resident_bytes_per_gpu: float
    max_batch_per_gpu: int
    engine: str

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class EPOptions:
    """How an expert-parallel, DP-attention set-up serves (``ep_step``'s and
    ``disaggregated_serving``'s settings, one object; their keywords give the fields). Each value
    is checked where it is used, the message naming the field.

    Fields
    ------
    weight_dtype : {"bf16", "fp16", "fp8", "int8", "int4", "nvfp4", "mxfp4"}
    kv_dtype : {"bf16", "fp16", "fp8"}
    redundant_experts : int
        Extra expert replicas (EPLB), spread with the others.
    two_batch_overlap : bool
        Overlap the all-to-all with computation (two micro-batches), as SGLang and DeepSeek do.
    engine : str or None
        The engine family whose fitted constants give the expected time
        (``inference.load_engine_efficiency``).
    reserve_fraction : float in [0, 1)
        HBM left unused (``inference.SERVING_RESERVE``).
    efficiency : Efficiency, optional
        Achievable fractions (default: the accelerator's ``data/efficiency.csv`` row).
    kept_weight_dtype : dict or None
        Modules the checkpoint keeps at another precision than ``weight_dtype``,
        ``{module: dtype}``, module one of the model's ``param_breakdown`` groups except the
        routed experts (``"attention"``, ``"lm_head"``, ``"embedding"``, ``"router"``,
        ``"ffn_dense"``, ``"ffn_shared_experts"``, ``"norms"``): their bytes are resident and
        read at that precision and their matmuls run at its peak (``_module_dtypes``). For
        NVIDIA's ModelOpt NVFP4 DeepSeek-R1 checkpoint use ``NVFP4_MODELOPT_KEPT``.
        None: every module in ``weight_dtype``.
    """

    weight_dtype: str = "fp8"
    kv_dtype: str = "bf16"
    redundant_experts: int = 0
    two_batch_overlap: bool = True
    engine: str | None = None
    reserve_fraction: float = SERVING_RESERVE
    efficiency: Efficiency | None = None
    kept_weight_dtype: dict | None = None


def ep_step(model, accelerator, *, ep: int, phase: str, tokens_per_gpu, context_tokens: int,
            options: EPOptions | None = None, **keywords) -> EPStep:
    """One decode or prefill step of an MoE model served with expert parallelism over ``ep``
    GPUs and data-parallel attention (the module docstring has the formulas and sources).

    Parameters
    ----------
    model : ModelSpec or str
        An MoE model.
    accelerator : Accelerator or str
    ep : int
        GPUs of the expert-parallel group (may span nodes); (n_experts + redundant_experts)
        must divide by it.
    phase : {"decode", "prefill"}
    tokens_per_gpu : int
        Decode: the sequences each GPU decodes (its batch). Prefill: the prompt tokens each
        GPU processes in one step.
    context_tokens : int
        Decode: tokens in each sequence's KV cache. Prefill: the prompt length P.
    options : EPOptions, optional
        Precisions, redundant experts, two-batch overlap, engine, HBM reserve, efficiency
        (default ``EPOptions()``: FP8 weights, BF16 KV, overlap on); keywords given too replace
        its fields.

    Returns
    -------
    EPStep (bound and expected step time and tokens/s per GPU, the all-to-all, the resident
    bytes and the largest decode batch per GPU that fits).

    Raises
    ------
    ValueError
        A dense model, bad sizes, expert slots not divisible by ``ep``, an ``ep`` larger than
        the routed experts allow, the weights not fitting, or a decode batch past the KV
        capacity (the capacity in the message).
    """
    o = options_with(EPOptions, "options", options, keywords)
    m, acc = serving_model(model), serving_accelerator(accelerator)
    eff = serving_efficiency(o.efficiency, acc)
    eng = load_engine_efficiency(o.engine)
    if not m.is_moe:
        raise ValueError(f"model={m.name!r} is dense: expert parallelism needs an MoE model")
    as_choice(phase, "phase", ("decode", "prefill"))
    dtypes = _module_dtypes(m, o.weight_dtype, o.kept_weight_dtype)
    as_choice(o.kv_dtype, "kv_dtype", KV_BYTES)
    ep = _whole("ep", ep)
    red = _whole("redundant_experts", o.redundant_experts, minimum=0)
    t = as_scalar(tokens_per_gpu, "tokens_per_gpu", positive=True)
    ctx = _whole("context_tokens", context_tokens)
    r = as_scalar(o.reserve_fraction, "reserve_fraction", nonnegative=True, upper=1.0,
                       upper_inclusive=False)
    resident, read = _ep_weight_bytes(m, ep, red, dtypes, t)
    kv_tok = kv_cache_bytes_per_token(m, o.kv_dtype)
    cap = _ep_kv_capacity(m, acc, ep, resident, kv_tok, ctx, r, o.weight_dtype)
    if phase == "decode" and t > cap:
        raise BatchDoesNotFit(f"tokens_per_gpu={tokens_per_gpu!r} does not fit: the KV cache holds at "
                         f"most {cap:,} sequences of {ctx + 1:,} tokens per GPU beside the weights "
                         f"at ep={ep}")
    compute, memory, kv_read = _ep_gpu_terms(m, acc, eff, phase, t, ctx, dtypes, o.kv_dtype,
                                             read, kv_tok)
    a2a = _ep_all_to_all_s(m, acc, eff, phase, ep, t)
    gpu = max(compute, memory)
    bound = max(gpu, a2a) if o.two_batch_overlap else gpu + a2a
    if phase == "decode":
        gpu_exp = float(eng.decode_s(gpu, kv_read))
    else:
        gpu_exp = float(eng.prefill_s(gpu))
    expected = max(gpu_exp, a2a + eng.step_overhead_s) if o.two_batch_overlap \
        else gpu_exp + a2a
    return EPStep(phase=phase, ep=ep, tokens_per_gpu=t, compute_s=compute, memory_s=memory,
                  kv_read_s=kv_read, all_to_all_s=a2a, time_s=bound, expected_s=expected,
                  tokens_per_s_per_gpu=t / bound, expected_tokens_per_s_per_gpu=t / expected,
                  expected_band=(t / expected * eng.band[0], t / expected * eng.band[1]),
                  resident_bytes_per_gpu=resident, max_batch_per_gpu=cap, engine=eng.family)


def _module_dtypes(m, weight_dtype, kept) -> dict:
    """The weight precision of each ``param_breakdown`` group of ``m``: ``kept[group]`` where
    given (``EPOptions.kept_weight_dtype``), else ``weight_dtype`` (the routed experts always);
    a ValueError naming ``weight_dtype`` or ``kept_weight_dtype`` for a bad name."""
    as_choice(weight_dtype, "weight_dtype", WEIGHT_BYTES)
    kept = {} if kept is None else kept
    groups = [g for g in m.param_breakdown if g != "ffn_routed_experts"]
    if not isinstance(kept, dict) or any(g not in groups or d not in WEIGHT_BYTES
                                         for g, d in kept.items()):
        raise ValueError(f"kept_weight_dtype={kept!r} must map modules among {groups} to "
                         f"precisions among {list(WEIGHT_BYTES)}")
    return {g: kept.get(g, weight_dtype) for g in m.param_breakdown} \
        | {"ffn_routed_experts": weight_dtype}


def _ep_weight_bytes(m, ep, red, dtypes, tokens):
    """(resident, read per step) weight bytes of one GPU: the non-routed weights whole, each
    group at its precision (``dtypes``, ``_module_dtypes``), plus (E + redundant)/ep expert
    slots, of which the share u(ep·T) is touched (module docstring); the position and untied
    token embeddings are resident but not read whole. A ValueError when ``ep`` does not divide
    the slots."""
    slots = m.n_experts + red
    if slots % ep:
        raise ValueError(f"ep={ep} must divide the {slots} expert slots of {m.name} "
                         f"(n_experts {m.n_experts} + redundant_experts {red})")
    per_gpu = slots // ep
    p = m.param_breakdown
    n_expert = p["ffn_routed_experts"] / m.n_experts
    wb = WEIGHT_BYTES[dtypes["ffn_routed_experts"]]
    shared = {g: n * WEIGHT_BYTES[dtypes[g]] for g, n in p.items() if g != "ffn_routed_experts"}
    unread = ("position",) + (() if m.tied_embeddings else ("embedding",))
    read_shared = sum(b for g, b in shared.items() if g not in unread)
    touched = float(experts_touched(m, ep * tokens)) / m.n_experts
    return (sum(shared.values()) + per_gpu * n_expert * wb,
            read_shared + per_gpu * n_expert * wb * touched)


def _matmul_s(m, acc, eff, t, dtypes, logit_t=None) -> float:
    """Seconds of the linear layers' matmuls for t tokens, each group at the peak of its
    precision's compute format (``inference.compute_dtype``):

        Σ_groups 2 · N_group,active · t_group / (peak(group) · matmul_fraction)

    with the active FFN split into the dense FFN layers, the shared experts (at their own
    precisions) and the k routed experts (at the routed experts' precision); t_group = t but
    for the LM head, which runs on the ``logit_t`` tokens whose logits are sampled from
    (``inference.logit_tokens``: a prefill's last prompt token of each sequence; t when None)."""
    a = m.matmul_params_active
    p = m.param_breakdown
    own = {g: p.get(g, 0.0) for g in ("ffn_dense", "ffn_shared_experts")}
    lm_t = t if logit_t is None else logit_t
    parts = [(n, dtypes.get(g, dtypes["ffn_routed_experts"]), lm_t if g == "lm_head" else t)
             for g, n in a.items() if g != "ffn"]
    parts += [(n, dtypes[g], t) for g, n in own.items()]
    parts.append((max(a.get("ffn", 0.0) - sum(own.values()), 0.0), dtypes["ffn_routed_experts"],
                  t))
    return sum(2.0 * n * tg / (acc.peak_flops_per_s(compute_dtype(d, acc)) * eff.matmul_fraction)
               for n, d, tg in parts)


def _ep_kv_capacity(m, acc, ep, resident, kv_tok, ctx, reserve, weight_dtype) -> int:
    """Sequences of ctx + 1 tokens whose KV cache fits one GPU beside its weights:
    floor((HBM · (1 − reserve) − resident) / (kv per token · (ctx + 1))); a ValueError when
    the weights alone do not fit."""
    usable = acc.hbm_bytes * (1 - reserve)
    if resident >= usable:
        raise DoesNotFit(f"ep={ep}: {resident / 1e9:.1f} GB of {weight_dtype} weights per GPU do "
                         f"not fit {acc.name}'s {usable / 1e9:.1f} GB usable HBM: raise ep")
    return int((usable - resident) // (kv_tok * (ctx + 1)))


def _ep_gpu_terms(m, acc, eff, phase, t, ctx, dtypes, kv_dtype, read, kv_tok):
    """(compute, memory, KV read) seconds of one GPU's step (the module docstring's compute
    and memory lines; the matmuls by ``_matmul_s``, each module group at its precision)."""
    # a prefill samples from each sequence's last prompt token: t ÷ ctx sequences per GPU
    matmul = _matmul_s(m, acc, eff, t, dtypes,
                       None if phase == "decode" else t / max(float(ctx), 1.0))
    # the attention core in the KV cache's precision, capped by the routed experts' matmul
    # format (inference.attention_peak_flops: the one rule of prefill and decode)
    attn_peak = attention_peak_flops(acc, compute_dtype(dtypes["ffn_routed_experts"], acc),
                                     kv_dtype)
    if phase == "decode":
        attn = attention_flops_per_key(m, True) * (ctx + 1) * t
        compute = matmul + attn / (attn_peak * eff.matmul_fraction)
        kv_bytes = t * ctx * kv_tok + t * kv_tok
    else:
        attn = attention_flops_per_key(m, False) * (ctx + 1) / 2 * t
        compute = matmul + attn / (attn_peak * eff.attention_fraction)
        kv_bytes = t * kv_tok
    bw = acc.hbm_bytes_per_s * eff.hbm_fraction
    memory = (read + kv_bytes) / bw
    kv_read = min(t * ctx * kv_tok / bw, max(compute, memory)) if phase == "decode" else 0.0
    return compute, memory, kv_read


def _ep_all_to_all_s(m, acc, eff, phase, ep, t) -> float:
    """Dispatch + combine of every MoE layer (``training.comm.moe_all_to_all_time``): decode
    in DeepEP's low-latency mode, prefill across nodes one copy per destination node."""
    if ep == 1:
        return 0.0
    cl = Cluster(acc, ep)
    a2a_kw = dict(efficiency=eff, dispatch_dtype="fp8")
    if phase == "prefill" and ep > (acc.scaleup_domain_size or 1):
        a2a_kw.update(dispatch="per_node", n_experts=m.n_experts, node_limit=PREFILL_NODE_LIMIT)
    moe_layers = m.n_layers - m.n_dense_layers
    return moe_layers * float(
        moe_all_to_all_time(t, m.n_experts_active, m.d_model, ep, cl, 1, phase="dispatch",
                            **a2a_kw)
        + moe_all_to_all_time(t, m.n_experts_active, m.d_model, ep, cl, 1, phase="combine",
                              **a2a_kw))


@dataclass(frozen=True)
class DisaggregatedServing:
    """A prefill pool and a decode pool sized for a workload (``disaggregated_serving``)."""

    prefill_gpus_per_decode_gpu: float
    prefill: EPStep
    decode: EPStep
    kv_transfer_s: float
    expected_ttft_s: float
    expected_tpot_s: float
    expected_output_tokens_per_s_per_gpu: float
    expected_input_tokens_per_s_per_gpu: float
    usd_per_m_input: float
    usd_per_m_output: float
    usd_per_m_blended: float

    def to_dict(self) -> dict:
        return asdict(self)


def kv_transfer_time(model, accelerator, prompt_tokens, kv_dtype: str = "bf16",
                     efficiency=None):
    """Seconds to move one request's KV cache from a prefill GPU to a decode GPU over RDMA.

    Formula: P · kv bytes per token / (NIC bytes/s per direction · scale-out fraction), one
    GPU's NIC (``accelerators.csv`` scale-out bandwidth, ``efficiency.csv`` fraction); the
    transfer is non-blocking (SGLang, Mooncake, NIXL) so it adds to the time to first token,
    not to either pool's step.
    """
    m, acc = serving_model(model), serving_accelerator(accelerator)
    eff = serving_efficiency(efficiency, acc)
    p = as_array(prompt_tokens, "prompt_tokens", positive=True)
    if not acc.scaleout_bytes_per_s_per_dir:
        raise ValueError(f"accelerator={acc.name!r} has no scale-out bandwidth in the catalogue")
    bw = acc.scaleout_bytes_per_s_per_dir * eff.scaleout_fraction
    out = p * kv_cache_bytes_per_token(m, kv_dtype) / bw
    return float(out) if out.ndim == 0 else out


def disaggregated_serving(model, accelerator, price_usd_per_gpu_hour, *, prompt_tokens: int,
                          output_tokens: int, prefill_ep: int, prefill_tokens_per_gpu,
                          decode_ep: int, decode_batch_per_gpu, options: EPOptions | None = None,
                          **keywords) -> DisaggregatedServing:
    """Prefill and decode on separate expert-parallel pools, sized for P input and R output
    tokens per request, and what a token costs.

    Formula (module docstring): prefill tokens/s per GPU x_p and decode tokens/s per GPU x_d
    from ``ep_step`` (expected, on ``engine``); prefill GPUs per decode GPU
    ρ = (P / x_p) / (R / x_d); output tokens/s per GPU of the whole deployment
    = x_d / (1 + ρ); USD per M input = price / 3600 / x_p · 1e6, per M output likewise with
    x_d; TTFT = one prefill step plus the KV transfer (``kv_transfer_time``); TPOT = one
    decode step (at the mean context P + R/2).

    ``options`` (an ``EPOptions``, whose fields the keywords may also give) applies to both
    pools, except ``redundant_experts``: the decode pool's (the prefill pool holds the routed
    experts only).
    """
    o = options_with(EPOptions, "options", options, keywords)
    price = as_scalar(price_usd_per_gpu_hour, "price_usd_per_gpu_hour", positive=True)
    p = _whole("prompt_tokens", prompt_tokens)
    r = _whole("output_tokens", output_tokens)
    pre = ep_step(model, accelerator, ep=prefill_ep, phase="prefill",
                  tokens_per_gpu=prefill_tokens_per_gpu, context_tokens=p,
                  options=replace(o, redundant_experts=0))
    dec = ep_step(model, accelerator, ep=decode_ep, phase="decode",
                  tokens_per_gpu=decode_batch_per_gpu, context_tokens=p + r // 2, options=o)
    x_p, x_d = pre.expected_tokens_per_s_per_gpu, dec.expected_tokens_per_s_per_gpu
    rho = (p / x_p) / (r / x_d)
    kv = kv_transfer_time(model, accelerator, p, o.kv_dtype, o.efficiency)
    usd_in = price / SECONDS_PER_HOUR / x_p * 1e6
    usd_out = price / SECONDS_PER_HOUR / x_d * 1e6
    return DisaggregatedServing(
        prefill_gpus_per_decode_gpu=rho, prefill=pre, decode=dec, kv_transfer_s=kv,
        expected_ttft_s=pre.expected_s + kv, expected_tpot_s=dec.expected_s,
        expected_output_tokens_per_s_per_gpu=x_d / (1 + rho),
        expected_input_tokens_per_s_per_gpu=x_p * rho / (1 + rho),
        usd_per_m_input=usd_in, usd_per_m_output=usd_out,
        usd_per_m_blended=(p * usd_in + r * usd_out) / (p + r))


def load_serving_setups() -> pd.DataFrame:
    """Published set-up measurements (``data/serving_setups.csv``, one source per row)."""
    return pd.read_csv(DATA_DIR / "serving_setups.csv")


def colocated_ep_throughput(model, accelerator, *, ep: int, batch_per_gpu,
                            prompt_tokens: int, output_tokens: int, adp_balance: bool = False,
                            options: EPOptions | None = None, **keywords) -> dict:
    """Output tokens/s per GPU of an expert-parallel, DP-attention deployment whose GPUs run
    both prefill and decode (in-flight batching, as TensorRT-LLM's and SGLang's
    ``enable_attention_dp`` without P/D disaggregation), for requests of P input and R output
    tokens.

    Formula, per iteration of one rank decoding M = ``batch_per_gpu`` sequences at the mean
    context P + R/2 (t_d = M / x_d, x_d = ``ep_step`` decode) and prefilling, when a request
    ends, the next one's P-token prompt (t_c = P / x_p, x_p = ``ep_step`` prefill of one prompt
    per GPU): each rank starts k = M / R contexts per iteration, and

        tokens/s per GPU = M / (t_d + f · t_c)

    * **bound** (and ``adp_balance``: contexts synchronised across ranks): f = k, i.e.
      1 / (1/x_d + (P/R)/x_p), every GPU paying only its own prefills;
    * **expected**, unbalanced (TensorRT-LLM's round-robin baseline, the default): an
      iteration lasts as long as its slowest rank (TensorRT-LLM tech blog 10, "ADP Balance
      Strategy", NVIDIA/TensorRT-LLM docs/source/blogs/tech_blog/blog10_ADP_Balance_Strategy.md:
      time_i = max over the N DP ranks; its baseline runs the ranks' contexts in different
      iterations, a total time(ctx) × N), so each rank waits for every other rank's contexts:
      f = 1 − (1 − k)^N, the share of iterations in which at least one of the N = ``ep`` ranks
      prefills, taking each rank's contexts as independent of the others' (this model's
      assumption; f → N·k for rare contexts, the blog's serialised baseline, and → 1 when every
      rank prefills in every iteration). Added after the two TensorRT-LLM rows' errors had been
      seen; nothing fitted.

    The expected band is the decode step's, scaled with the expected value. ``options`` (an
    ``EPOptions``; default ``EPOptions(two_batch_overlap=False)``, in-flight batching without
    two-batch overlap) sets the precisions (with ``kept_weight_dtype``), redundant experts,
    overlap and engine of both phases; keywords given too replace its fields.

    Returns
    -------
    dict: bound_per_gpu, expected_per_gpu, band_low, band_high, decode (EPStep), prefill
    (EPStep).
    """
    p, r = _whole("prompt_tokens", prompt_tokens), _whole("output_tokens", output_tokens)
    o = options_with(EPOptions, "options", EPOptions(two_batch_overlap=False)
                     if options is None else options, keywords)
    kw = dict(ep=ep, options=o)
    if not isinstance(adp_balance, bool):
        raise ValueError(f"adp_balance={adp_balance!r} must be True or False")
    d = ep_step(model, accelerator, phase="decode", tokens_per_gpu=batch_per_gpu,
                context_tokens=p + r // 2, **kw)
    pre = ep_step(model, accelerator, phase="prefill", tokens_per_gpu=p, context_tokens=p, **kw)
    m, n = d.tokens_per_gpu, d.ep
    k = min(1.0, m / r)                        # contexts a rank starts per iteration
    f = k if adp_balance else 1 - (1 - k) ** n  # iterations stalled by a context, per iteration
    bound = 1 / (1 / d.tokens_per_s_per_gpu + (p / r) / pre.tokens_per_s_per_gpu)
    exp = m / (m / d.expected_tokens_per_s_per_gpu + f * p / pre.expected_tokens_per_s_per_gpu)
    lo, hi = (b / d.expected_tokens_per_s_per_gpu for b in d.expected_band)
    return {"bound_per_gpu": bound, "expected_per_gpu": exp, "band_low": exp * lo,
            "band_high": exp * hi, "decode": d, "prefill": pre}


def _kept_weight_dtype(cell):
    """A ``serving_setups.csv`` ``kept_weight_dtype`` cell: empty (every module in the row's
    ``weight_dtype``), or the name of a checkpoint's module precisions
    (``"nvfp4_modelopt"``: ``NVFP4_MODELOPT_KEPT``; ``"deepseek_fp8"``: ``FP8_DEEPSEEK_KEPT``)."""
    if cell is None or (isinstance(cell, float) and math.isnan(cell)) or cell == "":
        return None
    table = {"nvfp4_modelopt": NVFP4_MODELOPT_KEPT, "deepseek_fp8": FP8_DEEPSEEK_KEPT}
    return table[as_choice(cell, "kept_weight_dtype", table)]


def _setup_row_throughput(r, acc) -> tuple:
    """(bound, expected, band low, band high) tokens/s per GPU of one ``serving_setups.csv``
    row: ``ep_step`` for a decode or prefill phase measured alone, ``colocated_ep_throughput``
    for a deployment running both."""
    kw = dict(ep=int(r["ep"]), weight_dtype=r["weight_dtype"], kv_dtype=r["kv_dtype"],
              redundant_experts=int(r["redundant_experts"]),
              two_batch_overlap=bool(r["two_batch_overlap"]), engine=r["engine_family"],
              kept_weight_dtype=_kept_weight_dtype(r.get("kept_weight_dtype")))
    if r["phase"] == "colocated":
        c = colocated_ep_throughput(r["model"], acc, batch_per_gpu=float(r["tokens_per_gpu"]),
                                    prompt_tokens=int(r["prompt_tokens"]),
                                    output_tokens=int(r["output_tokens"]), **kw)
        return c["bound_per_gpu"], c["expected_per_gpu"], c["band_low"], c["band_high"]
    st = ep_step(r["model"], acc, phase=r["phase"], tokens_per_gpu=float(r["tokens_per_gpu"]),
                 context_tokens=int(r["context_tokens"]), **kw)
    return (st.tokens_per_s_per_gpu, st.expected_tokens_per_s_per_gpu) + tuple(st.expected_band)


def setup_validation() -> pd.DataFrame:
    """Every published set-up row reproduced: ``ep_step`` at the row's set-up (a decode or
    prefill pool measured alone) or ``colocated_ep_throughput`` (prefill and decode on the same
    GPUs), its bound and expected tokens/s per GPU against the measurement (per node ÷ GPUs per
    node).

    Returns
    -------
    DataFrame: setup_id, setup, weight_dtype, measured_per_gpu, bound_per_gpu,
    expected_per_gpu, band_low, band_high, ratio (measured ÷ expected), abs_error, bound_ok,
    in_band.
    """
    rows = []
    for _, r in load_serving_setups().iterrows():
        acc = serving_accelerator(r["accelerator"])
        if r["metric"] != "tokens_per_s_per_node":
            raise ValueError(f"serving_setups.csv: metric {r['metric']!r} must be "
                             "'tokens_per_s_per_node'")
        per_gpu = float(r["measured"]) / (acc.scaleup_domain_size or 1)
        bound, expected, lo, hi = _setup_row_throughput(r, acc)
        ratio = per_gpu / expected
        rows.append({"setup_id": r["setup_id"], "setup": r["setup"],
                     "weight_dtype": r["weight_dtype"], "measured_per_gpu": per_gpu,
                     "bound_per_gpu": bound, "expected_per_gpu": expected,
                     "band_low": lo, "band_high": hi, "ratio": ratio,
                     "abs_error": abs(ratio - 1), "bound_ok": per_gpu <= bound,
                     "in_band": lo <= per_gpu <= hi})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------ prefix caching
def prefix_cached_prefill(model, accelerator, price_usd_per_gpu_hour, *, prompt_tokens: int,
                          cached_tokens: int, batch: int = 1, weight_dtype: str = "bf16",
                          kv_dtype: str = "bf16", tp: int = 1, engine: str | None = None,
                          efficiency=None) -> dict:
    """Prefill of prompts whose first ``cached_tokens`` tokens are already in the KV cache
    (prefix caching), and what an uncached and a cached input token cost.

    Formula (one TP replica, B prompts of P tokens, C of them cached, S = P − C computed):

        t(S | C) = prefill(S) + B·S·a·C / (tp·peak·attention_fraction)        (compute side)
                   or + B·C·kv·share / (tp·HBM·hbm_fraction)                  (memory side)

    i.e. ``inference.prefill`` of the S new tokens plus their attention over the C cached keys
    (a FLOPs per key, ``attention_flops_per_key``; peak the attention core's,
    ``inference.attention_peak_flops``, as in ``prefill``) and the read of the cached KV, added to
    whichever roofline term bounds the step. Uncached input: t(S alone) · tp / (B·S) GPU-s
    per token; cached input: the marginal [t(S | C) − t(S)] · tp / (B·C); USD = GPU-s ×
    price / 3600. Expected times apply the engine's prefill fraction and overhead to both.
    Keeping the cache resident (HBM or host memory between requests) is not priced.

    Returns
    -------
    dict: roofline and expected seconds of the cached and uncached prefill, usd_per_m_input
    (uncached), usd_per_m_cached_input, their expected values, cached_share (cached ÷
    uncached expected price).

    Raises
    ------
    ValueError
        Bad input (the field named); ``cached_tokens`` must leave at least one token to
        compute.
    """
    m, acc = serving_model(model), serving_accelerator(accelerator)
    eff = serving_efficiency(efficiency, acc)
    eng = load_engine_efficiency(engine, acc)
    price = as_scalar(price_usd_per_gpu_hour, "price_usd_per_gpu_hour", positive=True)
    p = _whole("prompt_tokens", prompt_tokens)
    c = _whole("cached_tokens", cached_tokens, minimum=1)
    if c >= p:
        raise ValueError(f"cached_tokens={cached_tokens!r} must be < prompt_tokens={p}: at least "
                         "one prompt token is computed")
    b = _whole("batch", batch)
    s = p - c
    base = prefill(m, acc, s, b, weight_dtype=weight_dtype, kv_dtype=kv_dtype, tp=tp,
                   efficiency=eff)
    attn = b * s * attention_flops_per_key(m, False) * c \
        / (tp * attention_peak_flops(acc, compute_dtype(weight_dtype, acc), kv_dtype)
           * eff.attention_fraction)
    kv = b * c * kv_cache_bytes_per_token(m, kv_dtype) * kv_share_per_rank(m, tp) \
        / (acc.hbm_bytes_per_s * eff.hbm_fraction)
    compute, memory = float(base.compute_s) + attn, float(base.memory_s) + kv
    t_alone = float(base.time_s)
    t_cached = max(compute, memory) + float(base.comm_s)
    e_alone = float(eng.prefill_s(t_alone, float(base.compute_s) >= float(base.memory_s)))
    e_cached = float(eng.prefill_s(t_cached, compute >= memory))
    k = price / SECONDS_PER_HOUR * 1e6 * tp
    return {"prefill_alone_s": t_alone, "prefill_with_cache_s": t_cached,
            "expected_prefill_alone_s": e_alone, "expected_prefill_with_cache_s": e_cached,
            "usd_per_m_input": k * t_alone / (b * s),
            "usd_per_m_cached_input": k * (t_cached - t_alone) / (b * c),
            "expected_usd_per_m_input": k * e_alone / (b * s),
            "expected_usd_per_m_cached_input": k * (e_cached - e_alone) / (b * c),
            "cached_share": (e_cached - e_alone) / c / (e_alone / s), "engine": eng.family}


# ------------------------------------------------------------------------------ list prices
def load_api_prices() -> pd.DataFrame:
    """Dated, sourced list prices of open-weight models' APIs (``data/api_prices.csv``)."""
    return pd.read_csv(DATA_DIR / "api_prices.csv")


#: The set-ups the list prices are compared with: a dense model on the cheapest TP replica of
#: one node meeting ``max_tpot_s``, or the fastest where none does, said so
#: (``engines.cheapest_setup`` with ``unmet="fastest"``); an MoE model as SGLang's
#: DeepSeek-V3 deployment (lmsys.org blog 2025-05-05: prefill EP32 at 16,384 tokens per GPU,
#: decode EP72 at 256 sequences per GPU with 32 redundant experts), FP8 weights, on the H100s
#: it ran on (``MOE_DEPLOYMENT_ACCELERATOR``).
MOE_DEPLOYMENT = {"prefill_ep": 32, "prefill_tokens_per_gpu": 16384, "decode_ep": 72,
                  "decode_batch_per_gpu": 256, "redundant_experts": 32}
#: The accelerator of SGLang's 96-GPU DeepSeek-V3 deployment (``MOE_DEPLOYMENT``, same blog:
#: "96 H100 GPUs"), the one its set-up names, whatever the scenario's accelerator.
MOE_DEPLOYMENT_ACCELERATOR = "H100-SXM"
#: The accelerator of ``setups_side_by_side``'s DeepSeek-V3 TP8 replica: 8 H200 hold its 671 B
#: FP8 parameters in one node (8 × 141 GB), 8 H100 (8 × 80 GB) do not beside a KV cache.
MOE_TP_ACCELERATOR = "H200"
#: How a price the caller gave is named beside a catalogue one (``named_setup_price``).
OWN_PRICE_WORDS = "the scenario's price"
#: The pricing modes a named set-up's price follows: the catalogue's, and owned hardware.
PRICING_CHOICES = PRICING_MODES + ("owned",)


def named_setup_price(named, accelerator, price_usd_per_gpu_hour,
                      pricing: str = "on_demand") -> tuple:
    """The accelerator and GPU-hour price of a set-up that names its accelerator (``named``:
    "EP72 decode on H100"), for a scenario on ``accelerator`` at ``price_usd_per_gpu_hour``.

    Rule: where ``named`` is the scenario's accelerator (same catalogue name), the scenario's
    ``accelerator`` (its network figure too, ``catalog.scenario_accelerator``) at its price;
    otherwise the catalogue's ``named`` at its catalogue price for ``pricing``
    (``catalog.catalogue_price``: the median of the current rows of that mode, capped at the
    on-demand median, ``catalog.discount_price_cap``, data/prices.csv). ``pricing="owned"``
    amortises the scenario's own hardware only (``pricing.owned_usd_per_gpu_hour``): a set-up
    on another accelerator is priced as rented, at its on-demand catalogue median, its basis
    saying so. A set-up on another accelerator at the scenario's rate would change price with
    the scenario's GPU (a trial: notebook 05's H100 deployment at an A100's $2.79, where the
    H100 scenario's $3.99 gave 1.43× the price), and so would its margin against a list price.

    Returns
    -------
    (Accelerator, USD per GPU-hour, basis in a reader's words: ``OWN_PRICE_WORDS`` or
    "H100-SXM on-demand catalogue median").

    Raises
    ------
    ValueError
        Naming the field: an unknown accelerator, a price not positive, a pricing mode not one
        of ``catalog.PRICING_MODES`` or "owned", a catalogue without a price of that mode.
    """
    acc = serving_accelerator(accelerator)
    price = as_scalar(price_usd_per_gpu_hour, "price_usd_per_gpu_hour", positive=True)
    pricing = as_choice(pricing, "pricing", PRICING_CHOICES)
    on = serving_accelerator(named)
    if on.name == acc.name:
        return acc, price, OWN_PRICE_WORDS
    mode = "on_demand" if pricing == "owned" else pricing
    usd, _ = catalogue_price(on.name, mode)
    words = price_mode_words(on.name, mode)  # the mode, or the on-demand median capping it
    words = (f"{mode.replace('_', '-')} catalogue median" if words == mode else
             words.replace(" median", " catalogue median", 1))   # capped at on-demand
    rented = " (pricing owned: another accelerator is rented)" if pricing == "owned" else ""
    return on, usd, f"{on.name} {words}{rented}"


SIDE_COLUMNS = ["set-up", "batch per replica or GPU",
                "expected output tok/s per GPU (whole deployment)", "USD per M output",
                "USD per GPU-hour", "price basis"]


def setups_side_by_side(model, accelerator, price_usd_per_gpu_hour, *, prompt_tokens: int,
                        output_tokens: int, max_tpot_s: float, weight_dtype: str = "fp8",
                        pricing: str = "on_demand") -> pd.DataFrame:
    """A dense and a mixture-of-experts model served three ways, one row each, at the expected
    throughput (the formulas are the called functions'):

    1. ``model`` on its cheapest tensor-parallel replica of one node, ``weight_dtype`` weights
       (FP8 by default; used as given, never narrowed: a model that fits no replica in it
       raises ``cheapest_setup``'s error) and FP8 KV, under ``max_tpot_s`` on ``accelerator``
       (``engines.cheapest_setup``; the fastest set-up where none meets it, its name saying so);
    2. DeepSeek-V3 on TP8 of 8 H200, FP8 weights, the BF16 MLA latent cache copied on every
       rank (``inference.serving_cost``);
    3. DeepSeek-V3 disaggregated on H100: EP32 prefill and EP72 decode pools with DP attention
       (``disaggregated_serving`` with ``MOE_DEPLOYMENT``, SGLang's 96-GPU deployment).

    Each row is priced on the accelerator it names at that accelerator's price
    (``named_setup_price``): ``price_usd_per_gpu_hour`` where it is ``accelerator``, the
    catalogue's price for ``pricing`` otherwise; USD per M output = GPUs × USD per GPU-hour ÷
    (output tokens/s × 3600) × 1e6, the called functions' formula.

    Columns (``SIDE_COLUMNS``): set-up, batch per replica or GPU, expected output tok/s per GPU
    of the whole deployment, USD per M output, USD per GPU-hour and its price basis;
    ``attrs["disaggregated"]`` holds the third set-up's ``DisaggregatedServing``. A DeepSeek-V3
    example that does not fit at these lengths (the EP72 decode pool's 256 sequences per GPU
    beside its weights: a 3,000-token prompt leaves room for 227) keeps its row, its figures NaN
    and its set-up saying why, and ``attrs["disaggregated"]`` is then None (a report of a
    long-prompt scenario stopped on it, naming no model the scenario had).
    """
    kw = dict(prompt_tokens=prompt_tokens, output_tokens=output_tokens)
    m, acc = serving_model(model), serving_accelerator(accelerator)
    dense = cheapest_setup(m, acc, price_usd_per_gpu_hour, max_tpot_s=max_tpot_s,
                           weight_dtype=weight_dtype, kv_dtype="fp8", unmet="fastest", **kw)
    missed = "" if dense["meets_target"] else (
        f" (the fastest: none meets {max_tpot_s * 1e3:.3g} ms per token on an engine)")
    rows = [(f"{m.name}: TP{int(dense['tp'])} replica, {weight_dtype.upper()}, one node of "
             f"{acc.name}{missed}", dense["batch"],
             dense["expected_output_tokens_per_s_per_gpu"], dense["expected_usd_per_m_output"],
             float(price_usd_per_gpu_hour), OWN_PRICE_WORDS)]
    tp_on, tp_usd, tp_basis = named_setup_price(MOE_TP_ACCELERATOR, acc,
                                                price_usd_per_gpu_hour, pricing)
    ep_on, ep_usd, ep_basis = named_setup_price(MOE_DEPLOYMENT_ACCELERATOR, acc,
                                                price_usd_per_gpu_hour, pricing)
    tp_name = f"deepseek-v3: TP8 on 8 {tp_on.name} (latent cache on every rank)"
    ep_name = (f"deepseek-v3: P/D disaggregated, EP32 prefill + EP72 decode on {ep_on.name}, "
               "DP attention")
    try:
        moe_tp = serving_cost("deepseek-v3", tp_on, tp_usd, tp=8, weight_dtype="fp8",
                              kv_dtype="bf16", **kw)
        rows.append((tp_name, moe_tp.batch, moe_tp.expected_output_tokens_per_s_per_gpu,
                     moe_tp.expected_usd_per_m_output, tp_usd, tp_basis))
    except DoesNotFit as e:
        rows.append((f"{tp_name}: not at {prompt_tokens:,} in / {output_tokens:,} out: "
                     f"{e}", math.nan, math.nan, math.nan, tp_usd, tp_basis))
    try:
        moe_ep = disaggregated_serving("deepseek-v3", ep_on, ep_usd, **kw, **MOE_DEPLOYMENT)
        rows.append((ep_name, moe_ep.decode.tokens_per_gpu,
                     moe_ep.expected_output_tokens_per_s_per_gpu, moe_ep.usd_per_m_output,
                     ep_usd, ep_basis))
    except DoesNotFit as e:
        moe_ep = None
        rows.append((f"{ep_name}: not at {prompt_tokens:,} in / {output_tokens:,} out: "
                     f"{e}", math.nan, math.nan, math.nan, ep_usd, ep_basis))
    out = pd.DataFrame(rows, columns=SIDE_COLUMNS)
    out.attrs["disaggregated"] = moe_ep
    return out


def api_price_comparison(accelerator="H100-SXM", price_usd_per_gpu_hour: float = 2.0, *,
                         prompt_tokens: int = 2000, output_tokens: int = 500,
                         max_tpot_s: float = 0.05, engine: str | None = None,
                         pricing: str = "on_demand") -> pd.DataFrame:
    """Each list price of ``data/api_prices.csv`` beside the modelled cost of serving that model,
    and the margin it implies: a dense model on ``accelerator`` (a catalogue name or an
    ``Accelerator``: a scenario's, ``catalog.scenario_accelerator``) at
    ``price_usd_per_gpu_hour``; an MoE model on the deployment it is compared with
    (``MOE_DEPLOYMENT`` on ``MOE_DEPLOYMENT_ACCELERATOR``, the set-up ``setups_side_by_side``
    prices too) at that accelerator's price (``named_setup_price``: ``price_usd_per_gpu_hour``
    where it is ``accelerator``, the catalogue's for ``pricing`` otherwise).

    Formula: margin = 1 − modelled USD per M ÷ list USD per M, for input, output and (where
    listed) cached input. Modelled: a dense model at ``engines.cheapest_setup`` (FP8 weights
    and KV, expected throughput, TPOT ≤ ``max_tpot_s``, or the fastest set-up where none meets
    it, its set-up saying so); an MoE model at
    ``disaggregated_serving`` with ``MOE_DEPLOYMENT``; cached input at
    ``prefix_cached_prefill`` (half the prompt cached, tp 8 for an MoE model's attention
    replica is not modelled: an MoE model's cached-input cost is left empty).

    A listed model whose deployment does not fit (DeepSeek-V3's 256 sequences per decode GPU
    beside its weights at a 3,000-token prompt) keeps its row, the modelled figures NaN and
    ``set_up`` saying why.

    Returns
    -------
    DataFrame: provider, model, dated, list and modelled USD per M input / cached input /
    output, margin_input, margin_cached_input, margin_output, accelerator, usd_per_gpu_hour,
    price_basis (the modelled set-up's accelerator, its price and where that comes from),
    set_up, source.
    """
    rows, acc = [], serving_accelerator(accelerator)  # a scenario's, with its own network figure
    pricing = as_choice(pricing, "pricing", PRICING_CHOICES)
    price_usd_per_gpu_hour = as_scalar(price_usd_per_gpu_hour, "price_usd_per_gpu_hour",
                                       positive=True)
    for _, r in load_api_prices().iterrows():
        m = serving_model(r["model"])
        on, usd_h, basis = acc, price_usd_per_gpu_hour, OWN_PRICE_WORDS
        try:
            if m.is_moe:  # the deployment's accelerator at its price (named_setup_price)
                on = serving_accelerator(MOE_DEPLOYMENT_ACCELERATOR)
                on, usd_h, basis = named_setup_price(on, acc, price_usd_per_gpu_hour, pricing)
            usd_in, cached, usd_out, how = _api_row_cost(m, on, usd_h, prompt_tokens,
                                                         output_tokens, max_tpot_s, engine)
        except DoesNotFit as e:  # the deployment does not fit this GPU: said, not priced
            usd_in = cached = usd_out = math.nan
            how = f"not modelled on {on.name}: {e}"
        except ValueError as e:  # no catalogue price of the mode for the named accelerator
            usd_in = cached = usd_out = usd_h = math.nan
            basis, how = "no catalogue price", f"not priced on {on.name}: {e}"
        lc = r["usd_per_m_cached_input"]
        rows.append({"provider": r["provider"], "model": m.name, "dated": r["dated"],
                     "list_usd_per_m_input": r["usd_per_m_input"],
                     "list_usd_per_m_cached_input": lc,
                     "list_usd_per_m_output": r["usd_per_m_output"],
                     "modelled_usd_per_m_input": usd_in,
                     "modelled_usd_per_m_cached_input": cached,
                     "modelled_usd_per_m_output": usd_out,
                     "margin_input": 1 - usd_in / r["usd_per_m_input"],
                     "margin_cached_input": (1 - cached / lc if not (math.isnan(lc) or
                                                                      math.isnan(cached))
                                             else math.nan),
                     "margin_output": 1 - usd_out / r["usd_per_m_output"],
                     "accelerator": on.name, "usd_per_gpu_hour": float(usd_h),
                     "price_basis": basis, "set_up": how, "source": r["source"]})
    return pd.DataFrame(rows)


def _api_row_cost(m, accelerator, price_usd_per_gpu_hour, prompt_tokens, output_tokens,
                  max_tpot_s, engine) -> tuple:
    """``api_price_comparison``'s modelled (USD per M input, cached input, output, set-up) of
    one listed model on ``accelerator`` at ``price_usd_per_gpu_hour`` (see there), the cached
    input NaN for a prompt of one token (no prefix to cache; a trial's
    ``inference_prompt_tokens: 1`` stopped notebook 05); ``DoesNotFit`` when its deployment
    does not fit the GPU."""
    cached = math.nan
    if m.is_moe:
        d = disaggregated_serving(m, accelerator, price_usd_per_gpu_hour,
                                  prompt_tokens=prompt_tokens, output_tokens=output_tokens,
                                  engine=engine, **MOE_DEPLOYMENT)
        usd_in, usd_out = d.usd_per_m_input, d.usd_per_m_output
        how = (f"P/D disaggregated on {accelerator.name}, prefill "
               f"EP{MOE_DEPLOYMENT['prefill_ep']}, decode EP{MOE_DEPLOYMENT['decode_ep']}, "
               f"TPOT {d.expected_tpot_s * 1e3:.0f} ms")
    else:
        best = cheapest_setup(m, accelerator, price_usd_per_gpu_hour,
                              prompt_tokens=prompt_tokens, output_tokens=output_tokens,
                              max_tpot_s=max_tpot_s, engine=engine, weight_dtype="fp8",
                              kv_dtype="fp8", unmet="fastest")
        usd_in, usd_out = best["expected_usd_per_m_input"], best["expected_usd_per_m_output"]
        if prompt_tokens >= 2:  # half the prompt cached; a 1-token prompt has no prefix to cache
            pc = prefix_cached_prefill(m, accelerator, price_usd_per_gpu_hour,
                                       prompt_tokens=prompt_tokens,
                                       cached_tokens=prompt_tokens // 2,
                                       batch=int(best["batch"]), weight_dtype="fp8",
                                       kv_dtype="fp8", tp=int(best["tp"]), engine=engine)
            cached = pc["expected_usd_per_m_cached_input"]
        how = (f"TP{int(best['tp'])} batch {int(best['batch'])} on {accelerator.name}, TPOT "
               f"{best['expected_tpot_s'] * 1e3:.0f} ms"
               + ("" if best["meets_target"] else
                  f", the fastest set-up: none meets {max_tpot_s * 1e3:.3g} ms on an engine"))
    return usd_in, cached, usd_out, how


# ------------------------------------------------------------------------------ multi-node dense
@dataclass(frozen=True)
class PipelineReplica:
    """A dense model on ``tp × pp`` GPUs, TP inside a node and PP across stages
    (``pipeline_replica``); times in seconds, throughput per GPU of the replica."""

    tp: int
    pp: int
    nodes: int
    batch: int
    micro_batch: float
    stage_s: float
    hop_s: float
    inter_node_hops: int
    inter_node_bytes_per_token: float
    tpot_s: float
    expected_tpot_s: float
    ttft_s: float
    expected_ttft_s: float
    tokens_per_s_per_gpu: float
    expected_tokens_per_s_per_gpu: float
    expected_band: tuple
    stage_utilisation: float
    max_batch: int
    engine: str

    def to_dict(self) -> dict:
        return asdict(self)


def pipeline_hop_time(model, accelerator, tokens, *, inter_node: bool, efficiency=None):
    """Seconds to pass ``tokens`` tokens' hidden states from one pipeline stage to the next.

    Formula: latency + tokens · d_model · 2 B / (bandwidth · fraction): across nodes the
    GPU's own NIC (``scaleout_bytes_per_s_per_dir`` × ``scaleout_fraction``, latency
    ``base_latency_s + scaleout_latency_s`` of ``data/efficiency.csv``), inside a node NVLink
    (``scaleup_*``). Each TP rank of a stage holds the whole hidden state after its
    all-reduce and sends it to the same rank of the next stage (vLLM's and TensorRT-LLM's
    point-to-point send/recv), so the ranks' transfers run in parallel, one NIC each.
    """
    m, acc = serving_model(model), serving_accelerator(accelerator)
    eff = serving_efficiency(efficiency, acc)
    t = as_array(tokens, "tokens", nonnegative=True)
    if inter_node:
        bw, lat = acc.scaleout_bytes_per_s_per_dir, eff.scaleout_latency_s
        frac, link = eff.scaleout_fraction, "scale-out"
    else:
        bw, lat = acc.scaleup_bytes_per_s_per_dir, eff.scaleup_latency_s
        frac, link = eff.scaleup_fraction, "scale-up"
    if not bw:
        raise ValueError(f"accelerator={acc.name!r} has no {link} bandwidth in the catalogue")
    out = eff.base_latency_s + lat + t * m.d_model * ACTIVATION_BYTES / (bw * frac)
    return float(out) if out.ndim == 0 else out


def _tp_pass(m, acc, eff, tp, st, weight_dtype) -> tuple:
    """(seconds, KV-read seconds) of a whole-model pass at ``tp``, from ``st``, the same pass
    at min(tp, GPUs per node) (``inference.decode_step`` or ``prefill``). Inside a node: ``st``
    itself. Across nodes (tp = k × GPUs per node)::

        compute = compute(node) · tp_node / tp
        memory  = (W + KV · share(tp) · tp) / (tp · HBM bytes/s · hbm_fraction)
        comm    = 2 · L · all-reduce of tokens · d_model · 2 B over tp GPUs on k nodes
                  (``training.comm.nccl_collective_time``: NCCL's cost model, the fastest of
                  ring and tree with LL128 or Simple; NCCL's LL protocol, which the one-node
                  path takes for decode's small messages, is not in it, so a decode step's
                  all-reduce may be overstated: 48 µs for 32 kB over 2×8 H100 here)

    with W the weight bytes read and KV the replica's cache bytes counted once (recovered from
    ``st``'s HBM bytes: KV = (HBM − W) / (share(tp_node) · tp_node)).
    """
    w = float(weights_read_bytes(m, st.tokens, weight_dtype))
    hbm = float(st.hbm_bytes)
    if tp == st.tp:
        kv = float(st.memory_s) * (hbm - w) / hbm
        return float(st.time_s), min(kv, float(st.time_s))
    kv_once = (hbm - w) / (kv_share_per_rank(m, st.tp) * st.tp)
    hbm_tp = w + kv_once * kv_share_per_rank(m, tp) * tp
    memory = hbm_tp / (tp * acc.hbm_bytes_per_s * eff.hbm_fraction)
    compute = float(st.compute_s) * st.tp / tp
    msg = float(st.tokens) * m.d_model * ACTIVATION_BYTES
    comm = 2 * m.n_layers * float(nccl_collective_time("all_reduce", msg, tp, Cluster(acc, tp),
                                                       efficiency=eff))
    time = max(compute, memory) + comm
    return time, min(memory * (hbm_tp - w) / hbm_tp, time)


def _pipeline_hops_s(m, acc, eff, pp, inter, tokens) -> float:
    """The pp − 1 forward hops of ``tokens`` tokens' hidden states: ``inter`` of them across
    the NIC, the rest on NVLink (``pipeline_hop_time``)."""
    if pp == 1:
        return 0.0
    return inter * pipeline_hop_time(m, acc, tokens, inter_node=True, efficiency=eff) \
        + (pp - 1 - inter) * pipeline_hop_time(m, acc, tokens, inter_node=False, efficiency=eff)


def pipeline_replica(model, accelerator, *, tp: int, pp: int, batch: int, prompt_tokens: int,
                     context_tokens: int, weight_dtype: str = "bf16", kv_dtype: str = "bf16",
                     engine: str | None = None, reserve_fraction: float = SERVING_RESERVE,
                     efficiency=None) -> PipelineReplica:
    """Decode and prefill of a dense model served with TP inside a node and PP across stages
    (vLLM ``--tensor-parallel-size 8 --pipeline-parallel-size 2`` on two nodes: vLLM's
    "Distributed inference and serving" docs; the vLLM blog "Announcing Llama 3.1 Support in
    vLLM", 2024-07-23: the BF16 405B "on multiple nodes by placing different layers of the
    model on different nodes").

    Formulas (one replica of ``tp·pp`` GPUs; a stage holds ⌈L/pp⌉ of the L layers and the
    weights and KV cache of its layers, the embedding and LM head counted pro rata)::

        b       = B / min(B, pp)               the batch split into min(B, pp) micro-batches
                                               (vLLM's PP runs pp virtual engines, one
                                               micro-batch each; a mean when pp ∤ B)
        stage   = decode_step(b, ctx, tp).time_s · ⌈L/pp⌉ / L       (TP all-reduces included)
        hop     = pipeline_hop_time(b tokens)  on NVLink or the NIC; the return hop carries
                                               the sampled token ids (latency only)
        cycle   = pp · stage + Σ hops          stage 0 finishes its pp micro-batches after
                                               pp·stage and waits for the first to come back
        TPOT    = cycle;   tokens/s per GPU = B / (cycle · tp · pp)
        TTFT    = pp · prefill(P, tp)·⌈L/pp⌉/L + (pp − 1) hops of P tokens

    Expected (engine ``engine``, ``inference.EngineEfficiency``): each stage pass at
    (stage − KV read)/η_d + KV read/η_kv, prefill at stage/η_p, the per-step overhead o once
    per micro-batch round trip; the hops as the bound models them. Inter-node bytes per
    token: d_model · 2 B per node boundary crossed. Capacity: per GPU HBM·(1 − reserve) −
    W/(tp·pp) ≥ B · KV(ctx + 1) · share(tp) · ⌈L/pp⌉/L; past it the batch is refused.

    ``tp`` larger than a node (a multiple of its GPUs: vLLM's TP16 on two nodes) puts the 2·L
    all-reduces per pass across the NIC (``_tp_pass``: NCCL's cost model in
    ``training.comm``); the stages then each span tp/node nodes and every PP hop crosses one.

    Not modelled: more micro-batches than stages (TensorRT-LLM may run them and hide the
    hops), the LM head's imbalance on the last stage.

    Raises
    ------
    ValueError
        An MoE model (``ep_step``), tp past one node and not a multiple of it, tp not dividing
        the heads, pp past the layers, a batch past the KV capacity (the capacity in the message), weights that do
        not fit.
    """
    m, acc = serving_model(model), serving_accelerator(accelerator)
    eff = serving_efficiency(efficiency, acc)
    eng = load_engine_efficiency(engine)
    tp, pp = _replica_layout(m, acc, tp, pp)
    b, p = _whole("batch", batch), _whole("prompt_tokens", prompt_tokens)
    ctx = _whole("context_tokens", context_tokens)
    share, cap = _replica_capacity(m, acc, tp, pp, b, ctx, weight_dtype, kv_dtype,
                                   reserve_fraction)
    domain = acc.scaleup_domain_size or 1
    kw = dict(weight_dtype=weight_dtype, kv_dtype=kv_dtype, tp=min(tp, domain), efficiency=eff)
    mb = b / min(b, pp)
    nodes, inter = _replica_nodes(tp, pp, domain)
    stage, hops, cycle, e_cycle = _replica_decode_cycle(m, acc, eff, eng, tp, pp, mb, ctx,
                                                        share, inter, kw)
    ttft, e_ttft = _replica_ttft(m, acc, eff, eng, tp, pp, p, share, inter, kw)
    gpus = tp * pp
    x, e_x = b / (cycle * gpus), b / (e_cycle * gpus)
    return PipelineReplica(
        tp=tp, pp=pp, nodes=nodes, batch=b, micro_batch=mb, stage_s=stage,
        hop_s=hops / pp if pp > 1 else 0.0, inter_node_hops=inter,
        inter_node_bytes_per_token=inter * m.d_model * ACTIVATION_BYTES, tpot_s=cycle,
        expected_tpot_s=e_cycle, ttft_s=ttft, expected_ttft_s=e_ttft, tokens_per_s_per_gpu=x,
        expected_tokens_per_s_per_gpu=e_x, expected_band=(e_x * eng.band[0], e_x * eng.band[1]),
        stage_utilisation=pp * stage / cycle, max_batch=cap, engine=eng.family)


def _replica_layout(m, acc, tp, pp) -> tuple:
    """(tp, pp) checked for ``pipeline_replica``: a dense model, tp inside a node or whole
    nodes, tp dividing the heads, pp at most the layers (each refusal names the field)."""
    if m.is_moe:
        raise ValueError(f"model={m.name!r} is an MoE model: serve it with ep_step "
                         "(expert parallelism)")
    tp, pp = _whole("tp", tp), _whole("pp", pp)
    domain = acc.scaleup_domain_size or 1
    if tp > domain and tp % domain:
        raise ValueError(f"tp={tp} must be <= {domain}, the GPUs of one {acc.name} node, or a "
                         f"multiple of {domain} (whole nodes, TP across nodes)")
    check_tp_heads(tp, m)
    if pp > m.n_layers:
        raise ValueError(f"pp={pp} must be <= n_layers={m.n_layers} of {m.name}")
    return tp, pp


def _replica_capacity(m, acc, tp, pp, b, ctx, weight_dtype, kv_dtype, reserve_fraction) -> tuple:
    """(layer share ⌈L/pp⌉/L, KV capacity in sequences) of one GPU of a ``pipeline_replica``::

        usable = HBM · (1 − reserve);  W_gpu = N · w · share / tp   (must be < usable)
        cap    = ⌊(usable − W_gpu) / (KV(ctx + 1) · share_kv(tp) · share)⌋ ≥ B

    Raises naming the field: weights that do not fit, a batch past the capacity (named)."""
    wb = WEIGHT_BYTES[as_choice(weight_dtype, "weight_dtype", WEIGHT_BYTES)]
    as_choice(kv_dtype, "kv_dtype", KV_BYTES)
    r = as_scalar(reserve_fraction, "reserve_fraction", nonnegative=True, upper=1.0,
                       upper_inclusive=False)
    share = math.ceil(m.n_layers / pp) / m.n_layers
    usable = acc.hbm_bytes * (1 - r)
    w = m.n_params * wb * share / tp
    if w >= usable:
        raise DoesNotFit(f"tp={tp}, pp={pp}: {w / 1e9:.1f} GB of {weight_dtype} weights per GPU "
                         f"do not fit {acc.name}'s {usable / 1e9:.1f} GB usable HBM: raise pp")
    per_seq = float(kv_cache_bytes(m, ctx + 1, kv_dtype)) * kv_share_per_rank(m, tp) * share
    cap = int((usable - w) // per_seq)
    if b > cap:
        raise BatchDoesNotFit(f"batch={b} does not fit: the KV cache holds at most {cap} sequences "
                         f"of {ctx + 1} tokens beside the weights at tp={tp}, pp={pp}")
    return share, cap


def _replica_nodes(tp, pp, domain) -> tuple:
    """(nodes, node boundaries a forward pass crosses) of a tp × pp replica on nodes of
    ``domain`` GPUs: tp ≥ domain: tp/domain · pp nodes, pp − 1 boundaries; else
    ⌈pp / (domain / tp)⌉ nodes, one fewer boundaries."""
    if tp >= domain:
        return tp // domain * pp, pp - 1
    nodes = math.ceil(pp / (domain // tp))
    return nodes, nodes - 1


def _replica_decode_cycle(m, acc, eff, eng, tp, pp, mb, ctx, share, inter, kw) -> tuple:
    """(stage s, hops s, cycle s, expected cycle s) of a ``pipeline_replica``'s decode::

        stage  = pass(mb, ctx, tp) · share                (``_tp_pass``: TP all-reduces in it)
        cycle  = pp · stage + (pp − 1) forward hops of mb tokens + the return hop (latency)
        e_cycle = pp · ((stage − KV read)/η_d + KV read/η_kv) + hops + o   (o once per cycle)
    """
    full, kv_full = _tp_pass(m, acc, eff, tp, decode_step(m, acc, mb, ctx, **kw),
                             kw["weight_dtype"])
    stage, kv_read = full * share, kv_full * share
    hops = _pipeline_hops_s(m, acc, eff, pp, inter, mb) \
        + (pipeline_hop_time(m, acc, 0, inter_node=inter > 0, efficiency=eff) if pp > 1 else 0.0)
    e_stage = float(eng.decode_s(stage, kv_read)) - eng.step_overhead_s
    return stage, hops, pp * stage + hops, pp * e_stage + hops + eng.step_overhead_s


def _replica_ttft(m, acc, eff, eng, tp, pp, p, share, inter, kw) -> tuple:
    """(TTFT s, expected TTFT s) of a ``pipeline_replica``: the prompt's P tokens through the
    pp stages one after another::

        TTFT   = pp · prefill(P, tp) · share + (pp − 1) hops of P tokens
        e_TTFT = pp · (prefill stage / η_p) + hops + o
    """
    pre = _tp_pass(m, acc, eff, tp, prefill(m, acc, p, 1, **kw), kw["weight_dtype"])[0] * share
    p_hops = _pipeline_hops_s(m, acc, eff, pp, inter, p)
    e_ttft = pp * (float(eng.prefill_s(pre)) - eng.step_overhead_s) + p_hops \
        + eng.step_overhead_s
    return pp * pre + p_hops, e_ttft


#: NVIDIA's measured minimum-latency ratio of PP8 to TP8 (batch 1) for Llama 3.1 405B in FP8 on
#: an HGX H200 node with TensorRT-LLM: in the minimum-latency scenario TP8 outperforms PP8 5.6
#: times (the blog's Table 1, as its restatements give it: blockchain.news 2024-10-11; the
#: stored copies of the blog hold its text but not the table). A reader's comment on the blog's
#: NVIDIA developer-forum thread says Table 1 swaps the TP and PP minimum-latency figures; no
#: answer is stored, so the ratio is kept as the restatements give it (TP the faster).
NVIDIA_PP8_OVER_TP8_LATENCY = 5.6
NVIDIA_PP8_OVER_TP8_SOURCE = (
    "NVIDIA technical blog 'Boosting Llama 3.1 405B Throughput by Another 1.5x on NVIDIA H200 "
    "Tensor Core GPUs and NVLink Switch' (2024-10-09, developer.nvidia.com/blog/boosting-llama-"
    "3-1-405b-throughput-by-another-1-5x-on-nvidia-h200-tensor-core-gpus-and-nvlink-switch), "
    "Table 1 as restated by blockchain.news (2024-10-11); a reader on the blog's developer-forum "
    "thread reports that the table swaps TP's and PP's minimum latencies")


def replica_layouts(model, accelerator, *, layouts, batches, prompt_tokens: int,
                    context_tokens: int, weight_dtype: str = "bf16", kv_dtype: str = "bf16",
                    engine: str | None = None) -> pd.DataFrame:
    """``pipeline_replica`` of ``model`` for every (tp, pp) layout and batch, one row each: the
    time per output token (bound and expected on ``engine``), expected output tokens/s per GPU
    with its band, nodes, the hidden-state bytes per token crossing nodes between pipeline
    stages (TP across nodes moves its all-reduces instead) and the KV capacity (formulas in
    ``pipeline_replica``'s docstring). A batch past a layout's KV capacity is a row whose
    ``note`` gives the refusal (no number); any other bad input raises."""
    pairs = list(layouts) if isinstance(layouts, (list, tuple)) else None
    if not pairs or any(not isinstance(x, (list, tuple)) or len(x) != 2 for x in pairs):
        raise ValueError(f"layouts={layouts!r} must be a non-empty list of (tp, pp) pairs")
    rows = []
    for tp, pp in pairs:
        for b in batches:
            try:
                r = pipeline_replica(model, accelerator, tp=tp, pp=pp, batch=b,
                                     prompt_tokens=prompt_tokens, context_tokens=context_tokens,
                                     weight_dtype=weight_dtype, kv_dtype=kv_dtype, engine=engine)
            except BatchDoesNotFit as e:   # past the layout's KV capacity: a row saying so
                rows.append({"layout": f"TP{tp}·PP{pp}", "tp": tp, "pp": pp, "batch": b,
                             "note": str(e)})
                continue
            rows.append({"layout": f"TP{tp}·PP{pp}", "tp": tp, "pp": pp, "batch": b,
                         "nodes": r.nodes,
                         "tpot_bound_s": r.tpot_s, "tpot_expected_s": r.expected_tpot_s,
                         "expected_tokens_per_s_per_gpu": r.expected_tokens_per_s_per_gpu,
                         "band_low": r.expected_band[0], "band_high": r.expected_band[1],
                         "inter_node_bytes_per_token": r.inter_node_bytes_per_token,
                         "max_batch": r.max_batch, "note": ""})
    return pd.DataFrame(rows)


def pp_over_tp_latency(model="llama-3.1-405b", accelerator="H200", *, n: int = 8,
                       prompt_tokens: int = 2048, context_tokens: int = 2112,
                       weight_dtype: str = "fp8", kv_dtype: str = "fp8",
                       engine: str = "TensorRT-LLM") -> float:
    """Expected time per output token at batch 1 of ``n`` GPUs as one pipeline (PP n, TP 1)
    ÷ the same GPUs as one tensor-parallel group (TP n, PP 1), both by ``pipeline_replica``:

        ratio = TPOT(pp=n) / TPOT(tp=n)

    Defaults: NVIDIA's comparison (``NVIDIA_PP8_OVER_TP8_LATENCY``, its source in
    ``NVIDIA_PP8_OVER_TP8_SOURCE``): Llama 3.1 405B, FP8, 8 H200, TensorRT-LLM; the prompt and
    context lengths are this module's assumption (the summary does not state them)."""
    kw = dict(batch=1, prompt_tokens=prompt_tokens, context_tokens=context_tokens,
              weight_dtype=weight_dtype, kv_dtype=kv_dtype, engine=engine)
    n = _whole("n", n)
    tp = pipeline_replica(model, accelerator, tp=n, pp=1, **kw)
    pp = pipeline_replica(model, accelerator, tp=1, pp=n, **kw)
    return pp.expected_tpot_s / tp.expected_tpot_s


# ------------------------------------------------------------------------------ chunked prefill
#: vLLM's default token budget per engine step (``max_num_batched_tokens``) for its OpenAI
#: server on GPUs with >= 70 GiB that are not A100s (H100, H200, MI300X): 8,192; 2,048 on
#: smaller GPUs and A100; the offline ``LLM`` class 16,384 / 8,192 (vllm-project/vllm
#: vllm/engine/arg_utils.py, ``EngineArgs.get_batch_defaults``, V1 engine, chunked prefill on).
VLLM_TOKEN_BUDGET = 8192


@dataclass(frozen=True)
class ChunkedPrefill:
    """A prompt prefilled in chunks beside a running decode batch (``chunked_prefill``)."""

    token_budget: int
    chunk_tokens: int
    chunks: int
    decode_step_s: float
    hybrid_step_s: float
    prefill_alone_s: float
    ttft_s: float
    ttft_unchunked_s: float
    decode_stall_unchunked_s: float
    tpot_during_prefill_s: float
    speedup: float
    expected_hybrid_step_s: float
    expected_ttft_s: float
    expected_ttft_unchunked_s: float
    expected_speedup: float
    hybrid_bound: str
    engine: str

    def to_dict(self) -> dict:
        return asdict(self)


def _hybrid_step_terms(m, acc, d, c, prior, kw) -> tuple:
    """(compute, memory, TP all-reduce, earlier chunks' KV read) seconds of a decode step ``d``
    joined by a prefill chunk of ``c`` tokens over ``prior`` earlier keys (``chunked_prefill``'s
    formula: the weights read once for the hybrid batch)."""
    eff, tp, wdt = kw["efficiency"], kw["tp"], kw["weight_dtype"]
    b = float(d.tokens)
    pc = prefill(m, acc, c, 1, **kw)
    bw = acc.hbm_bytes_per_s * eff.hbm_fraction
    kv_prior = prior * kv_cache_bytes_per_token(m, kw["kv_dtype"]) * kv_share_per_rank(m, tp) \
        / bw
    attn = c * attention_flops_per_key(m, False) * prior \
        / (tp * attention_peak_flops(acc, compute_dtype(wdt, acc), kw["kv_dtype"])
           * eff.attention_fraction)
    w = weights_read_bytes
    compute = float(d.compute_s) + float(pc.compute_s) + attn
    hbm = float(d.hbm_bytes) + float(pc.hbm_bytes) - float(w(m, b, wdt)) \
        - float(w(m, c, wdt)) + float(w(m, b + c, wdt))
    memory = hbm / (tp * bw) + kv_prior
    comm = 2 * m.n_layers * float(tp_allreduce_time((b + c) * m.d_model * ACTIVATION_BYTES,
                                                    tp, acc, eff))
    return compute, memory, comm, kv_prior


def chunked_prefill(model, accelerator, *, prompt_tokens: int, decode_batch: int,
                    context_tokens: int, token_budget: int = VLLM_TOKEN_BUDGET, tp: int = 1,
                    weight_dtype: str = "bf16", kv_dtype: str = "bf16",
                    engine: str | None = None, efficiency=None) -> ChunkedPrefill:
    """One prompt of P tokens prefilled in chunks that ride with a running decode batch of B
    sequences (Sarathi-Serve's chunked prefills and stall-free hybrid batches, Agrawal et al.
    2024, OSDI, arXiv:2403.02310; vLLM's and SGLang's default scheduler), against the same
    prompt prefilled in one pass that stalls the decodes.

    Formulas (one TP replica; τ = ``token_budget``, vLLM's ``max_num_batched_tokens``)::

        chunk budget C₀ = τ − B           (each decoding sequence takes one token of it)
        chunks       n = ⌈P / C₀⌉,  chunk c = ⌈P / n⌉
        hybrid step  t_h = max(compute_d + compute_c + c·a·prior / (tp·peak·attention_fraction),
                               (HBM_d + HBM_c − W(B) − W(c) + W(B + c) + prior·kv·share)
                               / (tp·HBM bytes/s·hbm_fraction))
                           + 2·L TP all-reduces of (B + c) tokens
        prior        = c·(n − 1)/2        the earlier chunks' keys a chunk attends to (mean)

    with compute_d, HBM_d from ``inference.decode_step`` (B sequences at ``context_tokens``),
    compute_c, HBM_c from ``inference.prefill`` of c tokens, W(T) the weight bytes a pass over
    T tokens reads (``weights_read_bytes``: the weights are read once for the hybrid batch),
    a the attention FLOPs per key. Then TTFT = n · t_h (the chunks in consecutive steps);
    unchunked TTFT = the prefill of P alone, during which the decodes stall: the longest gap
    between two of their tokens is prefill(P) + one decode step; TPOT while the prompt is
    prefilled = t_h. Speedup = (n · t_d + prefill(P)) / (n · t_h): the same work (P prompt
    tokens and n decode steps) done as hybrid steps rather than decode steps and one prefill;
    > 1 when the decodes ride in the prefill's compute-bound pass for free. Expected times
    apply the engine's prefill fraction to a compute-bound step and its decode fractions to a
    memory-bound one (``inference.EngineEfficiency``; on an Ampere GPU a compute-bound step at
    its generation's scale, ``inference.PREFILL_COMPUTE_SCALE``).

    Not modelled: a partial last chunk (the chunks are taken equal), several prompts sharing
    one step's budget, and the kernel tiles that make some chunk sizes faster (Sarathi-Serve
    §4.3).

    Raises
    ------
    ValueError
        Bad input (the field named); ``token_budget`` not above the decode batch (no room for
        a chunk); a decode batch past the KV capacity left beside the weights and the
        prompt's cache (HBM × (1 − ``SERVING_RESERVE``); the capacity named).
    """
    m, acc = serving_model(model), serving_accelerator(accelerator)
    eff = serving_efficiency(efficiency, acc)
    eng = load_engine_efficiency(engine, acc)
    p, b = _whole("prompt_tokens", prompt_tokens), _whole("decode_batch", decode_batch)
    ctx, tau = _whole("context_tokens", context_tokens), _whole("token_budget", token_budget)
    if tau <= b:
        raise ValueError(f"token_budget={tau} must exceed decode_batch={b}: each decoding "
                         "sequence takes one token of the budget, leaving none for a chunk")
    kw = dict(weight_dtype=weight_dtype, kv_dtype=kv_dtype, tp=tp, efficiency=eff)
    share = kv_share_per_rank(m, tp)
    room = acc.hbm_bytes * (1 - SERVING_RESERVE) - weight_bytes(m, weight_dtype) / tp \
        - float(kv_cache_bytes(m, p, kv_dtype)) * share
    cap = max(int(room // (float(kv_cache_bytes(m, ctx + 1, kv_dtype)) * share)), 0)
    if b > cap:
        raise BatchDoesNotFit(f"decode_batch={b} does not fit beside the prompt: the KV cache holds "
                         f"at most {cap} sequences of {ctx + 1} tokens beside the weights and "
                         f"the {p}-token prompt at tp={tp}")
    n = math.ceil(p / (tau - b))
    c = math.ceil(p / n)
    d = decode_step(m, acc, b, ctx, **kw)
    compute, memory, comm, kv_prior = _hybrid_step_terms(m, acc, d, c, c * (n - 1) / 2, kw)
    t_h, t_d = max(compute, memory) + comm, float(d.time_s)
    pst = prefill(m, acc, p, 1, **kw)
    pre = float(pst.time_s)
    kv_read = min(float(decode_kv_read_s(d, m, weight_dtype)) + kv_prior, t_h)
    e_h = float(eng.prefill_s(t_h, True)) if compute >= memory \
        else float(eng.decode_s(t_h, kv_read))
    e_d = float(eng.decode_s(t_d, decode_kv_read_s(d, m, weight_dtype)))
    e_pre = float(eng.prefill_s(pre, float(pst.compute_s) >= float(pst.memory_s)))
    return ChunkedPrefill(
        token_budget=tau, chunk_tokens=c, chunks=n, decode_step_s=t_d, hybrid_step_s=t_h,
        prefill_alone_s=pre, ttft_s=n * t_h, ttft_unchunked_s=pre,
        decode_stall_unchunked_s=pre + t_d, tpot_during_prefill_s=t_h,
        speedup=(n * t_d + pre) / (n * t_h), expected_hybrid_step_s=e_h,
        expected_ttft_s=n * e_h, expected_ttft_unchunked_s=e_pre,
        expected_speedup=(n * e_d + e_pre) / (n * e_h),
        hybrid_bound="compute" if compute >= memory else "HBM bandwidth", engine=eng.family)


def chunked_prefill_budgets(model, accelerator, *, budgets, prompt_tokens: int,
                            decode_batch: int, context_tokens: int, tp: int = 1,
                            weight_dtype: str = "bf16", kv_dtype: str = "bf16",
                            engine: str | None = None) -> pd.DataFrame:
    """``chunked_prefill`` of one prompt beside a running decode batch at every token budget in
    ``budgets``, one row each (formulas in ``chunked_prefill``'s docstring): chunks, the
    decodes' time per token while the prompt is prefilled (chunked) against their stall
    (unchunked: prefill(P) + one decode step), TTFT chunked and unchunked, and the speedup,
    bound and expected on ``engine``."""
    rows = []
    for tau in budgets:
        c = chunked_prefill(model, accelerator, prompt_tokens=prompt_tokens,
                            decode_batch=decode_batch, context_tokens=context_tokens,
                            token_budget=tau, tp=tp, weight_dtype=weight_dtype,
                            kv_dtype=kv_dtype, engine=engine)
        rows.append({"token_budget": tau, "chunks": c.chunks, "chunk_tokens": c.chunk_tokens,
                     "tpot_during_prefill_s": c.tpot_during_prefill_s,
                     "decode_stall_unchunked_s": c.decode_stall_unchunked_s,
                     "ttft_s": c.ttft_s, "ttft_unchunked_s": c.ttft_unchunked_s,
                     "expected_ttft_s": c.expected_ttft_s,
                     "expected_ttft_unchunked_s": c.expected_ttft_unchunked_s,
                     "speedup": c.speedup, "expected_speedup": c.expected_speedup,
                     "hybrid_bound": c.hybrid_bound})
    return pd.DataFrame(rows)


def load_chunked_prefill_benchmarks() -> pd.DataFrame:
    """Published chunked-prefill measurements (``data/serving_chunked_prefill.csv``, one source
    per row): a hybrid step's time or a chunked prompt's TTFT, with the set-up that produced it."""
    return pd.read_csv(DATA_DIR / "serving_chunked_prefill.csv")


#: What ``chunked_prefill_validation`` compares each metric of ``serving_chunked_prefill.csv``
#: with: (the ``ChunkedPrefill`` field of the roofline, that of the engine's expectation).
CHUNKED_METRICS = {"hybrid_step_s": ("hybrid_step_s", "expected_hybrid_step_s"),
                   "ttft_s": ("ttft_s", "expected_ttft_s")}


def chunked_prefill_validation() -> pd.DataFrame:
    """Every published chunked-prefill row (``data/serving_chunked_prefill.csv``) reproduced by
    ``chunked_prefill`` on its stated set-up: the roofline (bound) and the expected time on the
    pooled engine constants (the rows' engine, Sarathi-Serve, has no constants of its own; a
    compute-bound step on an A100 at the Ampere scale, ``inference.PREFILL_COMPUTE_SCALE``),
    against the measured seconds.

    ratio = measured ÷ expected seconds; abs_error = |ratio − 1|; bound_ok: measured ≥ the
    roofline time (no row beats the bound); in_band: the measured time inside the expected
    time's band (the engine band is on throughput, so on time it is expected / band_high …
    expected / band_low).

    Returns
    -------
    DataFrame: row_id, setup, metric, measured_s, bound_s, expected_s, band_low_s, band_high_s,
    ratio, abs_error, bound_ok, in_band.
    """
    lo, hi = load_engine_efficiency(None).band
    rows = []
    for _, r in load_chunked_prefill_benchmarks().iterrows():
        bound_f, exp_f = CHUNKED_METRICS[as_choice(r["metric"], "metric", CHUNKED_METRICS)]
        c = chunked_prefill(r["model"], r["accelerator"], prompt_tokens=int(r["prompt_tokens"]),
                            decode_batch=int(r["decode_batch"]),
                            context_tokens=int(r["context_tokens"]),
                            token_budget=int(r["token_budget"]), tp=int(r["tp"]),
                            weight_dtype=r["weight_dtype"], kv_dtype=r["kv_dtype"])
        meas, bound, exp = float(r["measured"]), getattr(c, bound_f), getattr(c, exp_f)
        rows.append({"row_id": r["row_id"], "setup": r["setup"], "metric": r["metric"],
                     "measured_s": meas, "bound_s": bound, "expected_s": exp,
                     "band_low_s": exp / hi, "band_high_s": exp / lo, "ratio": meas / exp,
                     "abs_error": abs(meas / exp - 1), "bound_ok": meas >= bound,
                     "in_band": exp / hi <= meas <= exp / lo})
    return pd.DataFrame(rows)
