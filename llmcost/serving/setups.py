"""Serving set-ups beyond one tensor-parallel replica: expert parallelism with attention data
parallelism across nodes, disaggregated prefill and decode pools with the KV transfer between
them, prefix caching with cached-input pricing, and chunked prefill.

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
    compute      = T · (2 · N_active_matmul + a · keys) / (peak · matmul_fraction)
    memory       = (weights read + KV read + KV written) / (HBM bytes/s · hbm_fraction)
    all-to-all   = L_moe · (dispatch + combine of T tokens × top-k over ep GPUs)
    step         = max(compute, memory, all-to-all)       with two-batch overlap (TBO)
                 = max(compute, memory) + all-to-all       without

with u(n) = 1 − (1 − k/E)^n the share of an expert's weights the n tokens of the step touch
(``inference.experts_touched``), N_expert the parameters of one routed expert summed over the
MoE layers, a the attention FLOPs per key (MLA decode weight-absorbed,
``inference.attention_flops_per_key``), keys = context + 1 (decode) or (P + 1)/2 (causal
prefill), the KV read B·ctx·kv bytes per token (decode only). The all-to-all is
``training.comm.moe_all_to_all_time`` on a cluster of ``ep`` GPUs (NVLink inside a node, the
GPU's own NIC across nodes): decode in DeepEP's low-latency mode (each token's k copies sent to
each expert's GPU, FP8 dispatch, BF16 combine), prefill in DeepEP's normal mode (one copy per
destination node, at most 4 nodes per token: DeepSeek-V3's node-limited routing). The expected
time on an engine applies ``inference.EngineEfficiency`` to the GPU part (η_d / η_kv / η_p and
the per-step overhead o); the all-to-all is taken as the bound models it (the engine
constants were not fitted on multi-node rows).

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

**Chunked prefill** (Sarathi-Serve, Agrawal et al. 2024, OSDI): a prompt is split into chunks of
``chunk_tokens`` that ride along with decode steps; each chunk rereads the weights (a decode
step's weight read is shared with the chunk) and attends to the earlier chunks' KV cache.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from ..core.catalog import DATA_DIR
from ..core.hardware import Cluster
from ..core.units import SECONDS_PER_HOUR, as_array
from ..training.comm import moe_all_to_all_time
from .inference import (
    KV_BYTES,
    SERVING_RESERVE,
    WEIGHT_BYTES,
    attention_flops_per_key,
    compute_dtype,
    experts_touched,
    kv_cache_bytes_per_token,
    load_engine_efficiency,
    serving_accelerator,
    serving_efficiency,
    serving_model,
)

#: DeepSeek-V3's node-limited routing: each token's experts span at most 4 nodes
#: (DeepSeek-V3 Technical Report, arXiv:2412.19437, §2.1.2); DeepEP's normal (prefill) mode
#: sends one copy per destination node and forwards on NVLink.
PREFILL_NODE_LIMIT = 4


def _whole(name, value, minimum=1):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer)) \
            or not math.isfinite(value) or value != int(value) or value < minimum:
        raise ValueError(f"{name}={value!r} must be a whole number >= {minimum}")
    return int(value)


def _choice(name, value, table):
    if not isinstance(value, str) or value not in table:
        raise ValueError(f"{name}={value!r} must be one of {', '.join(map(repr, table))}")
    return value


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


def ep_step(model, accelerator, *, ep: int, phase: str, tokens_per_gpu, context_tokens: int,
            weight_dtype: str = "fp8", kv_dtype: str = "bf16", redundant_experts: int = 0,
            two_batch_overlap: bool = True, engine: str | None = None,
            reserve_fraction: float = SERVING_RESERVE, efficiency=None) -> EPStep:
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
    weight_dtype : {"bf16", "fp16", "fp8", "int8", "int4"}
    kv_dtype : {"bf16", "fp16", "fp8"}
    redundant_experts : int
        Extra expert replicas (EPLB), spread with the others.
    two_batch_overlap : bool
        Overlap the all-to-all with computation (two micro-batches), as SGLang and DeepSeek do.
    engine : str or None
        The engine family whose fitted constants give the expected time
        (``inference.load_engine_efficiency``).

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
    m, acc = serving_model(model), serving_accelerator(accelerator)
    eff = serving_efficiency(efficiency, acc)
    eng = load_engine_efficiency(engine)
    if not m.is_moe:
        raise ValueError(f"model={m.name!r} is dense: expert parallelism needs an MoE model")
    _choice("phase", phase, ("decode", "prefill"))
    wb = WEIGHT_BYTES[_choice("weight_dtype", weight_dtype, WEIGHT_BYTES)]
    _choice("kv_dtype", kv_dtype, KV_BYTES)
    ep = _whole("ep", ep)
    red = _whole("redundant_experts", redundant_experts, minimum=0)
    t = float(as_array(tokens_per_gpu, "tokens_per_gpu", positive=True))
    ctx = _whole("context_tokens", context_tokens)
    r = float(as_array(reserve_fraction, "reserve_fraction", nonnegative=True, upper=1.0,
                       upper_inclusive=False))
    slots = m.n_experts + red
    if slots % ep:
        raise ValueError(f"ep={ep} must divide the {slots} expert slots of {m.name} "
                         f"(n_experts {m.n_experts} + redundant_experts {red})")
    per_gpu = slots // ep
    p = m.param_breakdown
    n_expert = p["ffn_routed_experts"] / m.n_experts
    shared = m.n_params - p["ffn_routed_experts"]
    resident = (shared + per_gpu * n_expert) * wb
    read_shared = (shared - p["position"] - (0 if m.tied_embeddings else p["embedding"])) * wb
    touched = float(experts_touched(m, ep * t)) / m.n_experts
    read = read_shared + per_gpu * n_expert * wb * touched
    kv_tok = kv_cache_bytes_per_token(m, kv_dtype)
    usable = acc.hbm_bytes * (1 - r)
    if resident >= usable:
        raise ValueError(f"ep={ep}: {resident / 1e9:.1f} GB of {weight_dtype} weights per GPU do "
                         f"not fit {acc.name}'s {usable / 1e9:.1f} GB usable HBM: raise ep")
    cap = int((usable - resident) // (kv_tok * (ctx + 1))) if phase == "decode" else 0
    if phase == "decode" and t > cap:
        raise ValueError(f"tokens_per_gpu={tokens_per_gpu!r} does not fit: the KV cache holds at "
                         f"most {cap} sequences of {ctx + 1} tokens per GPU beside the weights "
                         f"at ep={ep}")
    peak = acc.peak_flops_per_s(compute_dtype(weight_dtype, acc))
    mm = sum(m.matmul_params_active.values())
    if phase == "decode":
        attn = attention_flops_per_key(m, True) * (ctx + 1) * t
        compute = (2.0 * mm * t + attn) / (peak * eff.matmul_fraction)
        kv_bytes = t * ctx * kv_tok + t * kv_tok
    else:
        attn = attention_flops_per_key(m, False) * (ctx + 1) / 2 * t
        compute = 2.0 * mm * t / (peak * eff.matmul_fraction) \
            + attn / (acc.peak_flops_per_s("bf16") * eff.attention_fraction)
        kv_bytes = t * kv_tok
    bw = acc.hbm_bytes_per_s * eff.hbm_fraction
    memory = (read + kv_bytes) / bw
    kv_read = min(t * ctx * kv_tok / bw, max(compute, memory)) if phase == "decode" else 0.0
    moe_layers = m.n_layers - m.n_dense_layers
    cl = Cluster(acc, ep)
    a2a_kw = dict(efficiency=eff, dispatch_dtype="fp8")
    if phase == "prefill" and ep > (acc.scaleup_domain_size or 1):
        a2a_kw.update(dispatch="per_node", n_experts=m.n_experts, node_limit=PREFILL_NODE_LIMIT)
    a2a = 0.0
    if ep > 1:
        a2a = moe_layers * float(
            moe_all_to_all_time(t, m.n_experts_active, m.d_model, ep, cl, 1, phase="dispatch",
                                **a2a_kw)
            + moe_all_to_all_time(t, m.n_experts_active, m.d_model, ep, cl, 1, phase="combine",
                                  **a2a_kw))
    gpu = max(compute, memory)
    bound = max(gpu, a2a) if two_batch_overlap else gpu + a2a
    if phase == "decode":
        gpu_exp = float(eng.decode_s(gpu, kv_read))
    else:
        gpu_exp = float(eng.prefill_s(gpu))
    expected = max(gpu_exp, a2a + eng.step_overhead_s) if two_batch_overlap else gpu_exp + a2a
    return EPStep(phase=phase, ep=ep, tokens_per_gpu=t, compute_s=compute, memory_s=memory,
                  kv_read_s=kv_read, all_to_all_s=a2a, time_s=bound, expected_s=expected,
                  tokens_per_s_per_gpu=t / bound, expected_tokens_per_s_per_gpu=t / expected,
                  expected_band=(t / expected * eng.band[0], t / expected * eng.band[1]),
                  resident_bytes_per_gpu=resident,
                  max_batch_per_gpu=cap if phase == "decode" else
                  int((usable - resident) // (kv_tok * (ctx + 1))),
                  engine=eng.family)


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
                          decode_ep: int, decode_batch_per_gpu, weight_dtype: str = "fp8",
                          kv_dtype: str = "bf16", redundant_experts: int = 0,
                          engine: str | None = None) -> DisaggregatedServing:
    """Prefill and decode on separate expert-parallel pools, sized for P input and R output
    tokens per request, and what a token costs.

    Formula (module docstring): prefill tokens/s per GPU x_p and decode tokens/s per GPU x_d
    from ``ep_step`` (expected, on ``engine``); prefill GPUs per decode GPU
    ρ = (P / x_p) / (R / x_d); output tokens/s per GPU of the whole deployment
    = x_d / (1 + ρ); USD per M input = price / 3600 / x_p · 1e6, per M output likewise with
    x_d; TTFT = one prefill step plus the KV transfer (``kv_transfer_time``); TPOT = one
    decode step (at the mean context P + R/2).
    """
    price = float(as_array(price_usd_per_gpu_hour, "price_usd_per_gpu_hour", positive=True))
    p = _whole("prompt_tokens", prompt_tokens)
    r = _whole("output_tokens", output_tokens)
    kw = dict(weight_dtype=weight_dtype, kv_dtype=kv_dtype, engine=engine)
    pre = ep_step(model, accelerator, ep=prefill_ep, phase="prefill",
                  tokens_per_gpu=prefill_tokens_per_gpu, context_tokens=p, **kw)
    dec = ep_step(model, accelerator, ep=decode_ep, phase="decode",
                  tokens_per_gpu=decode_batch_per_gpu, context_tokens=p + r // 2,
                  redundant_experts=redundant_experts, **kw)
    x_p, x_d = pre.expected_tokens_per_s_per_gpu, dec.expected_tokens_per_s_per_gpu
    rho = (p / x_p) / (r / x_d)
    kv = kv_transfer_time(model, accelerator, p, kv_dtype)
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


def setup_validation() -> pd.DataFrame:
    """Every published set-up row reproduced: ``ep_step`` at the row's set-up, its bound and
    expected tokens/s per GPU against the measurement (per node ÷ GPUs per node).

    Returns
    -------
    DataFrame: setup_id, setup, measured_per_gpu, bound_per_gpu, expected_per_gpu, band_low,
    band_high, ratio (measured ÷ expected), abs_error, bound_ok, in_band.
    """
    rows = []
    for _, r in load_serving_setups().iterrows():
        acc = serving_accelerator(r["accelerator"])
        if r["metric"] != "tokens_per_s_per_node":
            raise ValueError(f"serving_setups.csv: metric {r['metric']!r} must be "
                             "'tokens_per_s_per_node'")
        per_gpu = float(r["measured"]) / (acc.scaleup_domain_size or 1)
        st = ep_step(r["model"], acc, ep=int(r["ep"]), phase=r["phase"],
                     tokens_per_gpu=float(r["tokens_per_gpu"]),
                     context_tokens=int(r["context_tokens"]), weight_dtype=r["weight_dtype"],
                     kv_dtype=r["kv_dtype"], redundant_experts=int(r["redundant_experts"]),
                     two_batch_overlap=bool(r["two_batch_overlap"]), engine=r["engine_family"])
        ratio = per_gpu / st.expected_tokens_per_s_per_gpu
        rows.append({"setup_id": r["setup_id"], "setup": r["setup"],
                     "measured_per_gpu": per_gpu, "bound_per_gpu": st.tokens_per_s_per_gpu,
                     "expected_per_gpu": st.expected_tokens_per_s_per_gpu,
                     "band_low": st.expected_band[0], "band_high": st.expected_band[1],
                     "ratio": ratio, "abs_error": abs(ratio - 1),
                     "bound_ok": per_gpu <= st.tokens_per_s_per_gpu,
                     "in_band": st.expected_band[0] <= per_gpu <= st.expected_band[1]})
    return pd.DataFrame(rows)
