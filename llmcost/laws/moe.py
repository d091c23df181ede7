"""Scaling laws for what frontier runs do: mixture-of-experts models and over-training.

MoE: how big, how many experts, how many tokens?
------------------------------------------------
**Clark et al. 2022** (*Unified Scaling Laws for Routed Language Models*, arXiv:2202.01169,
ICML 2022, Eq. 1 with the saturating transform, Table 3's fits): a routed model built on a
dense base of N parameters (the parameters each token passes through, i.e. the active
parameters, counted as Clark et al. count them) with E experts, every model trained on the same
130B tokens, has the loss

    log₁₀ L(N, E) = a·log₁₀ N + b·log₁₀ Ê + c·log₁₀ N·log₁₀ Ê + d,
    1/Ê = 1/(E − 1 + (1/E_start − 1/E_max)^−1) + 1/E_max,

(Ê saturates: few experts help little, more than E_max no more). The **effective parameter
count** N̄(N, E) is the dense size with the same loss, L(N̄, 1) = L(N, E) (their Eq. 11; at E = 1,
Ê = E_start), so

    log₁₀ N̄ = [(a + c·log₁₀ Ê)·log₁₀ N + b·(log₁₀ Ê − log₁₀ E_start)] / (a + c·log₁₀ E_start).

Because c > 0, the benefit of experts falls as N grows and vanishes at the **cutoff**
∂log L/∂log Ê = b + c·log₁₀ N = 0, N_cutoff = 10^(−b/c) (Clark et al.: 937B for S-BASE). The
fit says nothing about tokens (D was fixed at 130B), so it cannot give a compute-optimal D.

**Krajewski et al. 2024** (*Scaling Laws for Fine-Grained Mixture of Experts*, arXiv:2402.07871,
ICML 2024, Eq. 9 and Table 1): with N the model's (non-embedding) parameters, all experts
included, D tokens and granularity G (the dense FFN width over one expert's width; G = 1 is the
classic expert the size of an FFN), at an expansion rate of 64 (the experts of a layer hold 64×
the parameters of the dense FFN they replace; a token uses one FFN's worth),

    L(N, D, G) = c + (g/G^γ + a)/N^α + b/D^β,

a Chinchilla form whose N coefficient A(G) = g/G^γ + a falls with granularity, so at a fixed G
the compute-optimal (N, D) is Hoffmann's closed form with A = A(G), E = c
(``krajewski_loss_fit``) under their compute, 6 FLOPs per *active* parameter per token. With
d_ff = 4·d_model a block holds 4·d² attention and 8·d² FFN parameters; at expansion 64 the MoE
block holds 4·d² + 64·8·d² = 516·d², of which 12·d² are active: N_active = N·12/516
(``KRAJEWSKI_ACTIVE_FRACTION``), so C = 6·(12/516)·N·D. Their dense fit (Table 1, "Dense") has the same form without G. The
**dense-equivalent** of an MoE optimum is the compute-optimal dense model reaching its loss;
its compute over the MoE's is the MoE's compute multiplier (Krajewski et al.: ~20× at 1e20 FLOPs
with the best G, more beyond).

Where they disagree: Clark's routing benefit shrinks with size and is gone near a trillion
parameters; Krajewski's grows with the budget. Krajewski et al. trace the difference to Clark's
fixed token count (a model of any size on 130B tokens), which undertrains the large ones.

**Ludziejewski et al. 2025** (*Joint MoE Scaling Laws*, arXiv:2502.05172) fit a later, joint
law in (N_act, D, E); its constants are not used here (not read from the paper itself; the copies
read disagree on their signs).

Conventions. Compute for the MoE fits is C = 6·N_active·D (router, attention-score and
embedding FLOPs left out; Krajewski et al.'s own FLOPs count adds a routing term that grows with
G, which is what makes their optimal G finite: with 6·N·D alone a larger G always helps, so G
is the caller's choice here). Losses are in each paper's own nats on its own data (C4 for
Krajewski et al., MassiveText for Clark et al.): compare within a fit, never across.

Over-training: what 10× or 100× past Chinchilla buys
-----------------------------------------------------
**Gadre et al. 2024** (*Language models scale reliably with over-training and on downstream
tasks*, arXiv:2403.08540, §2 Eq. 4-5) rewrite the Chinchilla form with equal exponents
(α = β) in compute C = 6·N·D and the token multiplier M = D/N:

    L(C, M) = E + (a·M^η + b·M^−η)·C^−η,   η = α/2,  a = A·6^η,  b = B·6^η,

so at a fixed M the reducible loss falls as C^−η with the same exponent η whatever the M: a
model over-trained by a constant factor follows a power law parallel to the compute-optimal one.
Their fits predicted a 1.4B model on 900B tokens (32× past their M = 20) from runs with 300× less
compute. The compute-optimal multiplier is M* = (b/a)^(1/(2η)) and reaching the same loss at M
costs more compute by the factor

    C_M / C_M* = [(a·M^η + b·M^−η) / (2·√(a·b))]^(1/η)          (over-training penalty).

``overtraining`` prices this for any ``LossFit`` (α ≠ β too, exactly, from L(N, D)): a model of
N parameters trained k× past its compute-optimal tokens, the loss it reaches, the FLOPs it costs,
the compute-optimal model of the same loss, and the lifetime inference tokens past which the
smaller, over-trained model is the cheaper one (Sardana et al. 2024's trade-off,
``scaling.inference_adjusted_optimum``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.units import as_array, scalar_or_array
from .scaling import (
    INFERENCE_FLOPS_PER_PARAM_TOKEN,
    TRAIN_FLOPS_PER_PARAM_TOKEN,
    LossFit,
    compute_optimal,
    compute_optimal_for_loss,
    get_fit,
    loss,
)


# --------------------------------------------------------------------------- Clark et al. 2022
@dataclass(frozen=True)
class RoutedFit:
    """Clark et al. 2022's Eq. 1 for one routing method: log₁₀ L = a·log₁₀ N + b·log₁₀ Ê +
    c·log₁₀ N·log₁₀ Ê + d, with Ê saturating between ``e_start`` and ``e_max``."""

    name: str
    a: float
    b: float
    c: float
    d: float
    e_start: float
    e_max: float
    source: str


#: Clark et al. 2022 (arXiv:2202.01169) Table 3, the fits of Eq. 1 per routing method:
#: S-BASE (Sinkhorn-BASE), RL-R (reinforcement-learned routing) and HASH layers. Valid for
#: models trained on 130B tokens with up to 512 experts; dense bases from about 15M parameters
#: up to about 1B.
CLARK_FITS = {f.name: f for f in [
    RoutedFit("s-base", -0.082, -0.108, 0.009, 1.104, 1.847, 314.478,
              "Clark et al. 2022, arXiv:2202.01169, Eq. 1, Table 3 (S-BASE)"),
    RoutedFit("rl-r", -0.083, -0.126, 0.012, 1.111, 1.880, 469.982,
              "Clark et al. 2022, arXiv:2202.01169, Eq. 1, Table 3 (RL-R)"),
    RoutedFit("hash", -0.087, -0.136, 0.012, 1.157, 4.175, 477.741,
              "Clark et al. 2022, arXiv:2202.01169, Eq. 1, Table 3 (HASH)"),
]}
#: Clark et al.'s training tokens: every model of their fits saw 130B tokens.
CLARK_TRAIN_TOKENS = 130e9


def _clark(fit) -> RoutedFit:
    if isinstance(fit, RoutedFit):
        return fit
    if isinstance(fit, str) and fit in CLARK_FITS:
        return CLARK_FITS[fit]
    raise ValueError(f"fit={fit!r} must be a RoutedFit or one of {', '.join(CLARK_FITS)}")


def saturated_experts(n_experts, fit="s-base"):
    """Clark et al. 2022's saturating transform of the expert count (Eq. 1):

        1/Ê = 1/(E − 1 + (1/E_start − 1/E_max)^−1) + 1/E_max

    Ê(1) = E_start and Ê → E_max as E → ∞. ``n_experts`` >= 1."""
    f = _clark(fit)
    e = as_array(n_experts, "n_experts", positive=True)
    if np.any(e < 1):
        raise ValueError(f"n_experts={float(e[e < 1].flat[0])!r} must be >= 1 (1 is the dense "
                         "model)")
    inner = e - 1.0 + 1.0 / (1.0 / f.e_start - 1.0 / f.e_max)
    return scalar_or_array(1.0 / (1.0 / inner + 1.0 / f.e_max))


def routed_loss(n_params, n_experts, fit="s-base"):
    """Clark et al. 2022 Eq. 1: L(N, E) = 10^(a·log N + b·log Ê + c·log N·log Ê + d) (log₁₀),
    N the dense base's parameters, E experts, 130B training tokens. Nats per token on their
    data (MassiveText), valid at that token count only."""
    f = _clark(fit)
    ln = np.log10(as_array(n_params, "n_params", positive=True))
    le = np.log10(saturated_experts(n_experts, f))
    return scalar_or_array(10.0 ** (f.a * ln + f.b * le + f.c * ln * le + f.d))


def effective_params(n_params, n_experts, fit="s-base"):
    """Clark et al. 2022's effective parameter count N̄ (Eq. 11): the dense model with the same
    loss, L(N̄, 1) = L(N, E):

        log₁₀ N̄ = [(a + c·log₁₀ Ê)·log₁₀ N + b·(log₁₀ Ê − log₁₀ E_start)] / (a + c·log₁₀ E_start)

    Clark et al.'s example: a 5M base with 128 experts is worth a ~55M dense model (S-BASE)."""
    f = _clark(fit)
    ln = np.log10(as_array(n_params, "n_params", positive=True))
    le = np.log10(saturated_experts(n_experts, f))
    l1 = math.log10(f.e_start)
    return scalar_or_array(10.0 ** (((f.a + f.c * le) * ln + f.b * (le - l1))
                                    / (f.a + f.c * l1)))


def routing_cutoff_params(fit="s-base") -> float:
    """The base size past which more experts no longer lower the loss: ∂log L/∂log Ê =
    b + c·log₁₀ N = 0, N_cutoff = 10^(−b/c) (Clark et al. 2022 §5: 937B for S-BASE at 130B
    tokens; the three-decimal Table 3 constants give 1.0e12)."""
    f = _clark(fit)
    return float(10.0 ** (-f.b / f.c))


# --------------------------------------------------------------------- Krajewski et al. 2024
@dataclass(frozen=True)
class GranularFit:
    """Krajewski et al. 2024 Eq. 9: L(N, D, G) = c + (g/G^γ + a)/N^α + b/D^β (``g`` = 0 for
    their dense fit). N non-embedding parameters (all experts), D tokens, G granularity."""

    name: str
    a: float
    alpha: float
    b: float
    beta: float
    g: float
    gamma: float
    c: float
    source: str


#: Krajewski et al. 2024 (arXiv:2402.07871) Table 1. Valid over their runs: 129M-3.7B
#: parameters, 16B-130B tokens, G from 1 to 16, expansion rate 64 (their §5).
KRAJEWSKI_MOE = GranularFit("krajewski2024_moe", 18.1, 0.115, 30.8, 0.147, 2.1, 0.58, 0.47,
                            "Krajewski et al. 2024, arXiv:2402.07871, Eq. 9, Table 1 (MoE)")
KRAJEWSKI_DENSE = GranularFit("krajewski2024_dense", 16.3, 0.126, 26.7, 0.127, 0.0, 0.0, 0.47,
                              "Krajewski et al. 2024, arXiv:2402.07871, Table 1 (Dense)")
KRAJEWSKI_PARAMS_RANGE = (129e6, 3.7e9)
KRAJEWSKI_TOKENS_RANGE = (16e9, 130e9)
KRAJEWSKI_GRANULARITY_RANGE = (1.0, 16.0)
#: Krajewski et al.'s expansion rate (total expert parameters over the dense FFN's) and the
#: active share of the non-embedding parameters it implies, with d_ff = 4·d_model (attention
#: 4·d², FFN 8·d² per block): 12·d² active of 4·d² + 64·8·d² = 516·d².
KRAJEWSKI_EXPANSION = 64
KRAJEWSKI_ACTIVE_FRACTION = 12.0 / (4.0 + 8.0 * KRAJEWSKI_EXPANSION)


def krajewski_loss_fit(granularity=1.0, dense: bool = False) -> LossFit:
    """Krajewski et al.'s fit at a fixed granularity G as a Chinchilla ``LossFit``:
    E = c, A = g/G^γ + a, B = b (``dense``: their dense fit, G ignored). Every function of
    ``llmcost.scaling`` then applies in N (total) and D; for an MoE the compute is
    C = 6·f·N·D, f = ``KRAJEWSKI_ACTIVE_FRACTION`` (pass C/f to ``scaling.compute_optimal``)."""
    f = KRAJEWSKI_DENSE if dense else KRAJEWSKI_MOE
    g = float(as_array(granularity, "granularity", positive=True))
    if g < 1:
        raise ValueError(f"granularity={g!r} must be >= 1 (G = 1: one expert the size of the "
                         "dense FFN)")
    return LossFit(f"{f.name}_G{g:g}" if not dense else f.name, f.c, f.a + f.g / g ** f.gamma,
                   f.b, f.alpha, f.beta, f.source,
                   "N = non-embedding parameters, all experts; loss on C4 (Krajewski et al.'s data)")


def moe_compute_optimal(compute_flops, granularity=8.0):
    """The compute-optimal MoE at a budget under Krajewski et al. 2024 (Eq. 9, Table 1) at
    granularity G, and its dense equivalent under their dense fit.

    MoE: with N the total (non-embedding) parameters and C = 6·f·N·D, f =
    ``KRAJEWSKI_ACTIVE_FRACTION`` (12/516 at expansion 64), the optimum is Hoffmann's closed
    form with A = g/G^γ + a at the compute C/f (``krajewski_loss_fit``); active parameters
    f·N. Dense equivalent: the cheapest dense (N, D) under their dense fit reaching the MoE's
    loss; ``compute_multiplier`` = its compute / C.

    Returns
    -------
    DataFrame, one row per budget: ``compute_flops``, ``granularity``, ``total_params``,
    ``active_params``, ``train_tokens``, ``tokens_per_active_param``, ``loss``,
    ``dense_params``, ``dense_tokens``, ``dense_compute_flops``, ``compute_multiplier``,
    ``dense_to_active_params`` and ``in_fit_range`` (total parameters and tokens both inside
    the runs behind the fit).
    """
    c = np.atleast_1d(as_array(compute_flops, "compute_flops", positive=True))
    fm, fd = krajewski_loss_fit(granularity), krajewski_loss_fit(dense=True)
    n, d = (np.asarray(x, dtype=float) for x in compute_optimal(c / KRAJEWSKI_ACTIVE_FRACTION,
                                                                fm))
    na = n * KRAJEWSKI_ACTIVE_FRACTION
    ell = np.asarray(loss(n, d, fm), dtype=float)
    nd, dd = (np.asarray(x, dtype=float) for x in compute_optimal_for_loss(ell, fd))
    cd = TRAIN_FLOPS_PER_PARAM_TOKEN * nd * dd
    ok = ((n >= KRAJEWSKI_PARAMS_RANGE[0]) & (n <= KRAJEWSKI_PARAMS_RANGE[1])
          & (d >= KRAJEWSKI_TOKENS_RANGE[0]) & (d <= KRAJEWSKI_TOKENS_RANGE[1]))
    return pd.DataFrame({"compute_flops": c, "granularity": float(granularity),
                         "total_params": n, "active_params": na, "train_tokens": d,
                         "tokens_per_active_param": d / na, "loss": ell, "dense_params": nd,
                         "dense_tokens": dd, "dense_compute_flops": cd,
                         "compute_multiplier": cd / c, "dense_to_active_params": nd / na,
                         "in_fit_range": ok})


def moe_fits_compared(active_params, n_experts: int = 64, granularity=8.0,
                      clark_fit="s-base"):
    """Where the MoE fits disagree: how many times bigger a dense model must be to match an MoE
    of N active parameters, by each fit.

    * Clark et al. 2022: N̄(N, E)/N at their fixed 130B tokens (``effective_params``).
    * Krajewski et al. 2024: the compute-optimal MoE with N active parameters (the budget
      C = 6·N·D*(N) at which N is optimal) against the compute-optimal dense model of the same
      loss: dense N / active N (``moe_compute_optimal``'s ``dense_to_active_params``).

    Returns
    -------
    DataFrame: ``active_params``, ``clark_dense_equivalent_ratio``,
    ``krajewski_dense_equivalent_ratio``, ``krajewski_compute_flops``.
    """
    n = np.atleast_1d(as_array(active_params, "active_params", positive=True))
    clark = np.asarray(effective_params(n, n_experts, clark_fit), dtype=float) / n
    fm = krajewski_loss_fit(granularity)
    # total N*(C/f) = G·(C/(6f))^a with N = N_act/f  ⇒  C = 6·f·(N_act/(f·G))^(1/a)
    f = KRAJEWSKI_ACTIVE_FRACTION
    c = TRAIN_FLOPS_PER_PARAM_TOKEN * f * (n / (f * fm.G)) ** (1.0 / fm.a)
    k = moe_compute_optimal(c, granularity)
    return pd.DataFrame({"active_params": n, "clark_dense_equivalent_ratio": clark,
                         "krajewski_dense_equivalent_ratio": k["dense_to_active_params"].values,
                         "krajewski_compute_flops": c})


# -------------------------------------------------------------------- Gadre et al. 2024
def gadre_form(fit="muennighoff2023") -> dict:
    """Gadre et al. 2024 §2 (Eq. 4-5): a Chinchilla fit with α = β in compute and token
    multiplier, L(C, M) = E + (a·M^η + b·M^−η)·C^−η with η = α/2, a = A·6^η, b = B·6^η.

    Returns
    -------
    dict with ``E``, ``a``, ``b``, ``eta`` and ``optimal_multiplier`` M* = (b/a)^(1/(2η)).

    Raises
    ------
    ValueError
        If the fit's α and β differ by more than 1e-9 (the form needs them equal; use
        ``overtraining``, which is exact for any fit).
    """
    f = get_fit(fit)
    if abs(f.alpha - f.beta) > 1e-9:
        raise ValueError(f"fit={f.name!r} has alpha={f.alpha} != beta={f.beta}: Gadre et al.'s "
                         "L(C, M) form needs equal exponents (use overtraining(), exact for "
                         "any fit)")
    eta = f.alpha / 2.0
    a, b = f.A * 6.0 ** eta, f.B * 6.0 ** eta
    return {"E": f.E, "a": a, "b": b, "eta": eta, "optimal_multiplier": (b / a) ** (0.5 / eta)}


def gadre_loss(compute_flops, token_multiplier, fit="muennighoff2023"):
    """L(C, M) = E + (a·M^η + b·M^−η)·C^−η (Gadre et al. 2024 Eq. 5; ``gadre_form``)."""
    g = gadre_form(fit)
    c = as_array(compute_flops, "compute_flops", positive=True)
    m = as_array(token_multiplier, "token_multiplier", positive=True)
    return scalar_or_array(g["E"] + (g["a"] * m ** g["eta"] + g["b"] * m ** -g["eta"])
                           * c ** -g["eta"])


def overtraining_penalty(token_multiplier, fit="muennighoff2023"):
    """Compute needed at token multiplier M over the compute-optimal M* for the same loss
    (Gadre et al. 2024's form): [(a·M^η + b·M^−η)/(2·√(a·b))]^(1/η) (>= 1, = 1 at M*)."""
    g = gadre_form(fit)
    m = as_array(token_multiplier, "token_multiplier", positive=True)
    k = (g["a"] * m ** g["eta"] + g["b"] * m ** -g["eta"]) / (2.0 * math.sqrt(g["a"] * g["b"]))
    return scalar_or_array(k ** (1.0 / g["eta"]))


def overtraining(n_params, factors=(1.0, 10.0, 100.0), fit="besiroglu2024"):
    """What training a model of N parameters k× past its compute-optimal tokens buys and costs.

    For each factor k: D = k·D_opt(N) with D_opt(N) the tokens at which N is compute-optimal
    (N = G·(C/6)^a ⇒ C/6 = (N/G)^(1/a), D_opt = C/(6N)); the loss L(N, D); training FLOPs
    6·N·D; the compute-optimal model (N*, D*) reaching the same loss
    (``scaling.compute_optimal_for_loss``) and its FLOPs; the penalty 6ND / 6N*D*; and the
    lifetime inference tokens at which the two cost the same FLOPs,

        6·N·D + 2·N·D_inf = 6·N*·D* + 2·N*·D_inf  ⇒  D_inf = 3·(N·D − N*·D*)/(N* − N),

    past which the over-trained model is cheaper over its life (Sardana et al. 2024 §2).

    Returns
    -------
    DataFrame: ``factor``, ``n_params``, ``train_tokens``, ``tokens_per_param``, ``loss``,
    ``loss_gain`` (vs k = 1), ``train_flops``, ``optimal_n_params``, ``optimal_train_tokens``,
    ``optimal_train_flops``, ``penalty`` (training FLOPs over the optimum's),
    ``params_ratio`` (N*/N) and ``break_even_inference_tokens`` (NaN at k = 1).
    """
    f = get_fit(fit)
    n = float(as_array(n_params, "n_params", positive=True))
    k = np.atleast_1d(as_array(factors, "factors", positive=True))
    if np.any(k < 1):
        raise ValueError(f"factors={k.tolist()!r} must be >= 1 (1 = compute-optimal tokens)")
    c6 = (n / f.G) ** (1.0 / f.a)
    d_opt = c6 / n
    d = k * d_opt
    ell = np.asarray(loss(n, d, f), dtype=float)
    ns, ds = (np.asarray(x, dtype=float) for x in compute_optimal_for_loss(ell, f))
    train, opt = TRAIN_FLOPS_PER_PARAM_TOKEN * n * d, TRAIN_FLOPS_PER_PARAM_TOKEN * ns * ds
    with np.errstate(divide="ignore", invalid="ignore"):
        be = np.where(ns > n * (1 + 1e-9), (train - opt) / (INFERENCE_FLOPS_PER_PARAM_TOKEN
                                                            * (ns - n)), np.nan)
    return pd.DataFrame({"factor": k, "n_params": n, "train_tokens": d,
                         "tokens_per_param": d / n, "loss": ell, "loss_gain": ell[0] - ell
                         if k[0] == 1 else float(loss(n, d_opt, f)) - ell,
                         "train_flops": train, "optimal_n_params": ns,
                         "optimal_train_tokens": ds, "optimal_train_flops": opt,
                         "penalty": train / opt, "params_ratio": ns / n,
                         "break_even_inference_tokens": be})


__all__ = [
    "RoutedFit", "CLARK_FITS", "CLARK_TRAIN_TOKENS", "saturated_experts", "routed_loss",
    "effective_params", "routing_cutoff_params", "GranularFit", "KRAJEWSKI_MOE",
    "KRAJEWSKI_DENSE", "KRAJEWSKI_PARAMS_RANGE", "KRAJEWSKI_TOKENS_RANGE",
    "KRAJEWSKI_GRANULARITY_RANGE", "KRAJEWSKI_EXPANSION", "KRAJEWSKI_ACTIVE_FRACTION",
    "krajewski_loss_fit", "moe_compute_optimal",
    "moe_fits_compared", "gadre_form", "gadre_loss", "overtraining_penalty", "overtraining",
]
