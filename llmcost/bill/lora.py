"""LoRA fine-tuning: adapter parameters, FLOPs per token and GPU-hours (Hu et al. 2021).

The bill's LoRA line (``ledger``) prices its GPU-hours with ``lora_gpu_hours``: the full
fine-tune's time at the measured LoRA time ratio (``lora_time_ratio`` in
``data/ledger_defaults.csv``). ``llmcost.ledger`` re-exports these names.
"""

from __future__ import annotations

import numpy as np

from ..core.catalog import as_model
from ..core.units import SECONDS_PER_HOUR, as_array, as_scalar
from ..training.compute import model_flops_per_token
from .montecarlo import number_or_draws
from .pricing import default


def lora_adapter_params(model, rank: int) -> int:
    """Trainable parameters of LoRA adapters of rank r on the attention projections W_q, W_k,
    W_v, W_o of every layer: Σ r·(d_in + d_out) (Hu et al. 2021, arXiv:2106.09685, §4: ΔW = BA
    with B ∈ R^{d_out×r}, A ∈ R^{r×d_in}; §7.1 adapts these four matrices).

    Raises
    ------
    ValueError
        A rank that is not a positive whole number, or an MLA model (its projections are
        low-rank already; give the count yourself).
    """
    r = int(as_scalar(rank, "rank", positive=True, integer=True))
    model = as_model(model)
    if model.attention != "gqa":
        raise ValueError(f"model={model.name!r}: LoRA adapter counts are implemented for GQA/MHA "
                         f"attention, not {model.attention!r}")
    check_lora_rank(model, r, "rank")
    h, a, g, dh = model.d_model, model.n_heads, model.n_kv_heads, model.d_head
    per_layer = (h + a * dh) + 2 * (h + g * dh) + (a * dh + h)
    return int(model.n_layers * r * per_layer)


def max_lora_rank(model) -> int:
    """The largest meaningful LoRA rank on the attention projections: the smallest dimension of
    the matrices adapted, min(d_model, g·d_head) (ΔW = BA of rank r ≤ min(d_in, d_out), Hu et
    al. 2021 §4.1; W_k and W_v map d_model to the g KV heads' g·d_head): a higher r adds
    parameters and FLOPs but no rank (Llama 3.1 8B: min(4,096, 8 × 128) = 1,024)."""
    model = as_model(model)
    return int(min(model.d_model, model.n_kv_heads * model.d_head))


def check_lora_rank(model, rank, field: str = "rank") -> None:
    """A ValueError naming ``field`` (the caller's name for the rank, e.g. a scenario key) when
    ``rank`` is not a positive whole number or exceeds ``max_lora_rank(model)``."""
    if not isinstance(field, str):
        raise ValueError(f"field={field!r} must be the rank's name, a string")
    if isinstance(rank, str):
        raise ValueError(f"{field}={rank!r} must be a whole number >= 1")
    rank = int(as_scalar(rank, field, positive=True, integer=True))
    top = max_lora_rank(model)
    if rank > top:
        raise ValueError(f"{field}={int(rank)} must be at most {top:,} for {as_model(model).name} "
                         f"(a LoRA rank beyond the smallest adapted matrix's dimension, "
                         f"min(d_model, KV heads × head dim), adds no rank)")


def lora_flops_per_token(model, rank: int, seq_len=None):
    """Training FLOPs per token of LoRA fine-tuning, on the workbook's MFU basis.

    Full training is forward + backward = 3 × forward because the backward pass computes two
    matmuls per weight matrix, one for the gradient with respect to the activations and one for
    the gradient with respect to the weights (Kaplan et al. 2020 §2.1; Narayanan et al. 2021).
    With frozen base weights the weight-gradient matmul is skipped, so each frozen matmul costs
    forward 2 + backward 2 = **4 FLOP per weight** instead of 6: about **4·N per token instead of
    6·N**. The adapters (N_A parameters, ``lora_adapter_params``) are trained, 6·N_A. The
    attention core (QKᵀ, AV) has no weights and keeps 3 × its forward:

        F_LoRA = 4·N_matmul + 3·F_core,fwd(s) + 6·N_A

    This is the FLOP count only. Hu et al. 2021 (§4.2, footnote 5) measure on GPT-3 175B 43.1
    tokens/s per V100 with LoRA against 32.5 for full fine-tuning: LoRA takes 0.754 of the time
    (their "25% speedup"), more than the FLOP ratio (0.68 for GPT-3 175B) because the optimizer
    step, memory traffic and communication do not shrink with it. The bill prices LoRA *time*
    at that measured ratio (``lora_gpu_hours``); the optimizer keeps state only for the N_A
    adapter parameters.
    """
    model = as_model(model)
    if seq_len is not None:
        as_array(seq_len, "seq_len", positive=True, integer=True)
    fwd = model.flops_per_token_breakdown(seq_len, training=False, causal=False)
    frozen = fwd["attention_proj"] + fwd["ffn"] + fwd["router"] + fwd["lm_head"]  # 2·N_matmul
    return float(2.0 * frozen + 3.0 * fwd["attention_core"]
                 + 6.0 * lora_adapter_params(model, rank))


def lora_gpu_hours(model, rank: int, tokens, seq_len, peak_flops_per_s, mfu, goodput=1.0) -> dict:
    """GPU-hours of LoRA fine-tuning priced from the measured time ratio (Hu et al. 2021 §4.2,
    footnote 5; ``lora_time_ratio`` in ``data/ledger_defaults.csv``, 0.754):

        hours_LoRA = tokens × F_full(s) ÷ (peak × MFU) × 0.754 ÷ goodput

    where F_full is the full fine-tuning count (``compute.model_flops_per_token``) at the run's
    MFU. On the LoRA FLOP count (``lora_flops_per_token``) that is a lower MFU,
    MFU_LoRA = MFU × (F_LoRA / F_full) ÷ 0.754, which the result reports as ``mfu_lora``.

    Returns
    -------
    dict with ``gpu_hours``, ``flops_per_token`` (LoRA count), ``full_flops_per_token``,
    ``time_ratio`` and ``mfu_lora``.
    """
    model = as_model(model)
    t = number_or_draws(as_array(tokens, "tokens", nonnegative=True))
    peak = as_scalar(peak_flops_per_s, "peak_flops_per_s", positive=True)
    m = number_or_draws(as_array(mfu, "mfu", positive=True))
    g = number_or_draws(as_array(goodput, "goodput", positive=True))
    if np.any(m > 1) or np.any(g > 1):
        raise ValueError(f"mfu={m!r} and goodput={g!r} must be in (0, 1]")
    full = float(model_flops_per_token(model, seq_len))
    lora = lora_flops_per_token(model, rank, seq_len)
    ratio = default("lora_time_ratio")
    return {"gpu_hours": t * full / (peak * m) / SECONDS_PER_HOUR * ratio / g,
            "flops_per_token": lora, "full_flops_per_token": full, "time_ratio": ratio,
            "mfu_lora": m * lora / full / ratio}
