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

a Chinchilla form whose N coefficient A(G) = g/G^γ + a falls with granularity
(``krajewski_loss_fit``). Their compute (§6.1 Eq. 10, App. E) counts c_f = 6 FLOPs per active
parameter per token and c_r = 14 per router parameter per token:

    F = (12·d²·c_f + d·E·G·c_r)·D·n_blocks,   d = 64·n_blocks,   N = d²·(8E + 4)·n_blocks,

so a block holds 12·d² active of (8E + 4)·d² = 516·d² parameters at E = 64, N_active =
N·12/516 (``KRAJEWSKI_ACTIVE_FRACTION``), and the routing term, growing with G, makes the best
G finite. ``moe_compute_optimal`` minimises L over N, D and G = 1, 2, 4, ... at a budget F, as
their §6.2 does with Brent's method, and reproduces their Table 2 (G exactly, N_act and D to 3%,
the loss to 1%). Their dense fit (Table 1, "Dense", C = 6·N·D) gives the **dense equivalent**:
the cheapest dense model reaching the MoE's loss; its compute over F is the MoE's compute
multiplier (Krajewski et al. §1: 20× at 1e20 FLOPs, "exceeding 40×" past 1e25; this
implementation gives 21× and 32×, 34× at 1e26). The gap is not a convention: the authors' own
code (github.com/llm-random/llm-random, scaling_laws/compute.py ``flops_save``, with
calculate_params.py's ff_const = 6·12, router_const = 14) takes the same dense baseline (the
compute-optimal dense model of equal loss under the dense fit, 72·d²·n_blocks·D = 6ND, no router)
and, run with the Table 1 constants, gives the same 21×/32×. Table 1 is rounded: the unrounded MoE
fit left in that repository (scaling_laws/plotND.py: a = 18.0712, α = 0.1146, b = 30.8082,
β = 0.1465, g = 2.0760, γ = 0.5843, c = 0.472) reproduces Table 2 to 0.1% in loss, and no dense
fit within Table 1's rounding gives both 20× at 1e20 and 40× at 1e25 (at most ~1.65× growth over
those five decades). The 40× is therefore not reproducible from the published tables.

Where they disagree: Clark's routing benefit shrinks with size and is gone near a trillion
parameters; Krajewski's grows with the budget. Krajewski et al. (§1, §6.3) trace the difference to
Clark's fixed token count (a model of any size on 130B tokens), which undertrains the large
ones, and to Clark's coarse experts (G = 1).

**Ludziejewski et al. 2025** (*Joint MoE Scaling Laws*, arXiv:2502.05172) fit a later, joint
law in (N_act, D, E); its constants are not used here (not read from the paper itself; the copies
read disagree on their signs).

Sources read. Krajewski et al.'s constants, Eq. 9-11, App. E and Table 2 were read from the
paper's text. Clark et al.'s Table 3 constants were read from two independent summaries of the
paper (its own text was not at hand); they reproduce the paper's stated effective-parameter
example (5M base, 128 experts ≈ 55M dense) to 6% and its S-BASE cutoff (937B) to 7%.

Conventions. Losses are in each paper's own nats on its own data (C4 with the GPT-2 tokenizer
for Krajewski et al., MassiveText for Clark et al.): compare ratios across fits, never losses.
Embeddings are excluded from N (both papers).

Over-training: what 10× or 100× past Chinchilla buys
-----------------------------------------------------
**Gadre et al. 2024** (*Language models scale reliably with over-training and on downstream
tasks*, arXiv:2403.08540, §2.2 Eq. 3-4, App. A, App. E Eq. 9-10 and Table 6) rewrite the Chinchilla form with equal exponents
(α = β) in compute C = 6·N·D and the token multiplier M = D/N:

    L(C, M) = E + (a·M^η + b·M^−η)·C^−η,   η = α/2,  a = A·6^η,  b = B·6^η,

so at a fixed M the reducible loss falls as C^−η with the same exponent η whatever the M: a
model over-trained by a constant factor follows a power law parallel to the compute-optimal one.
Their fits (Table 6, ``GADRE_FITS``: C4, RedPajama, RefinedWeb; models of 0.011B-0.411B,
M = 20 and 320) predicted a 1.4B model on 900B tokens (M = 640, 32× past M = 20) and a 6.9B on
138B. Table 6 prints the parameters of the authors' code (github.com/mlfoundations/scaling,
``powlaw_ours``), not Eq. 4's: its η is the exponent on N and D (Eq. 4's is η/2, ~0.12-0.14 as
their Fig. 17 shows) and its a is A; refitting their released losses with that code reproduces
every Table 6 entry, and only this reading reproduces the losses (``_gadre_fit``). The
compute-optimal multiplier is M* = (b/a)^(1/(2η)) in Eq. 4's terms (their Eq. 10): 3.37, 7.55 and
5.87 (the paper's 2.87, 4.30 and 3.79 plug Table 6 into Eq. 10 as printed; either way below the
M = 20 they found near-optimal in their runs), and reaching the same loss at M costs more compute
by the factor

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

from ..core.units import as_array, as_scalar, scalar_or_array
from .scaling import (
    INFERENCE_FLOPS_PER_PARAM_TOKEN,
    TRAIN_FLOPS_PER_PARAM_TOKEN,
    LossFit,
    compute_optimal_for_loss,
    frontier_models,
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
    tokens; the three-decimal Table 3 constants give 1.0e12. For RL-R and HASH (cutoffs of 85B
    and 83B in the summaries of the paper read here, not checked against its text) the rounded
    b/c gives 32B and 215B: −b/c is too sensitive to the third decimal of c to be read from
    Table 3)."""
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


#: Krajewski et al. 2024 (arXiv:2402.07871) Table 1. The MoE fit is valid over their MoE runs:
#: 129M-3.7B parameters, 16B-130B tokens, G from 1 to 16, expansion rate 64 (their §5 and
#: App. A Table 3, 64x3M-64x85M); the dense fit over their dense runs: 3M-85M non-embedding
#: parameters, 16B-66B tokens (App. A Table 4), at least 188 tokens per parameter, where the
#: dense fit's own compute-optimal models take 41-46: no dense equivalent of
#: ``moe_compute_optimal`` lies inside those runs.
KRAJEWSKI_MOE = GranularFit("krajewski2024_moe", 18.1, 0.115, 30.8, 0.147, 2.1, 0.58, 0.47,
                            "Krajewski et al. 2024, arXiv:2402.07871, Eq. 9, Table 1 (MoE)")
KRAJEWSKI_DENSE = GranularFit("krajewski2024_dense", 16.3, 0.126, 26.7, 0.127, 0.0, 0.0, 0.47,
                              "Krajewski et al. 2024, arXiv:2402.07871, Table 1 (Dense)")
KRAJEWSKI_PARAMS_RANGE = (129e6, 3.7e9)
KRAJEWSKI_TOKENS_RANGE = (16e9, 130e9)
KRAJEWSKI_DENSE_PARAMS_RANGE = (3e6, 85e6)
KRAJEWSKI_DENSE_TOKENS_RANGE = (16e9, 66e9)
KRAJEWSKI_GRANULARITY_RANGE = (1.0, 16.0)
#: Krajewski et al.'s expansion rate (total expert parameters over the dense FFN's) and the
#: active share of the non-embedding parameters it implies, with d_ff = 4·d_model (attention
#: 4·d², FFN 8·d² per block): 12·d² active of 4·d² + 64·8·d² = 516·d².
KRAJEWSKI_EXPANSION = 64
KRAJEWSKI_ACTIVE_FRACTION = 12.0 / (4.0 + 8.0 * KRAJEWSKI_EXPANSION)
#: FLOPs per router parameter per token (Krajewski et al. 2024 App. E: c_r = 14, 6-20 by
#: implementation); c_f = 6 for the rest of the network.
KRAJEWSKI_ROUTING_FLOPS = 14.0


def krajewski_loss_fit(granularity=1.0, dense: bool = False) -> LossFit:
    """Krajewski et al.'s fit at a fixed granularity G as a Chinchilla ``LossFit``:
    E = c, A = g/G^γ + a, B = b (``dense``: their dense fit, G ignored), in N (total
    non-embedding parameters) and D. For the MoE's compute use ``krajewski_flops_per_token``
    (``scaling.compute_optimal`` assumes 6·N·D, right for the dense fit only)."""
    f = KRAJEWSKI_DENSE if dense else KRAJEWSKI_MOE
    g = as_scalar(granularity, "granularity", positive=True)
    if g < 1:
        raise ValueError(f"granularity={g!r} must be >= 1 (G = 1: one expert the size of the "
                         "dense FFN)")
    return LossFit(f"{f.name}_G{g:g}" if not dense else f.name, f.c, f.a + f.g / g ** f.gamma,
                   f.b, f.alpha, f.beta, f.source,
                   "N = non-embedding parameters, all experts; loss on C4 (Krajewski et al.'s data)")


def krajewski_flops_per_token(n_params, granularity, expansion: int = KRAJEWSKI_EXPANSION,
                              c_r: float = KRAJEWSKI_ROUTING_FLOPS):
    """Training FLOPs per token of a (granular) MoE, Krajewski et al. 2024 Eq. 10-11 and
    App. E: F/D = (12·d²·c_f + d·E·G·c_r)·n_blocks, c_f = 6 (2 forward + 4 backward per active
    parameter), c_r = 14 (routing FLOPs per router parameter and token, their App. E; between 6
    and 20 by implementation), with their shape rule d_model = 64·n_blocks and
    N = d²·(8E + 4)·n_blocks (non-embedding, all experts, §6.1). Embeddings are excluded."""
    n = as_array(n_params, "n_params", positive=True)
    g = as_array(granularity, "granularity", positive=True)
    e = as_scalar(expansion, "expansion", positive=True)
    cr = as_scalar(c_r, "c_r", nonnegative=True)
    d = (64.0 * n / (8.0 * e + 4.0)) ** (1.0 / 3.0)
    return scalar_or_array((12.0 * d ** 2 * 6.0 + d * e * g * cr) * d / 64.0)


def _krajewski_best_n(c, g, cr):
    """For each budget c (1-d array) at granularity g: the N minimising Eq. 9 with
    D = c / F_token(N, G), over d_model (a log grid, then golden-section refinement)."""
    f, e = KRAJEWSKI_MOE, KRAJEWSKI_EXPANSION

    def loss_of_d(d, cc):
        n = d ** 3 * (8 * e + 4) / 64.0
        fpt = (12.0 * d ** 2 * 6.0 + d * e * g * cr) * d / 64.0
        return f.c + (f.g / g ** f.gamma + f.a) / n ** f.alpha + f.b / (cc / fpt) ** f.beta

    grid = np.geomspace(8.0, 1e7, 600)
    k = np.argmin(loss_of_d(grid[None, :], c[:, None]), axis=1)
    lo, hi = np.log(grid[np.clip(k - 1, 0, None)]), np.log(grid[np.clip(k + 1, None, 599)])
    phi = (math.sqrt(5.0) - 1.0) / 2.0
    for _ in range(60):
        x1, x2 = hi - phi * (hi - lo), lo + phi * (hi - lo)
        left = loss_of_d(np.exp(x1), c) < loss_of_d(np.exp(x2), c)
        lo, hi = np.where(left, lo, x1), np.where(left, x2, hi)
    d = np.exp((lo + hi) / 2.0)
    return d ** 3 * (8 * e + 4) / 64.0


def moe_compute_optimal(compute_flops, granularity=None, c_r: float | None = None):
    """The compute-optimal MoE at a budget, Krajewski et al. 2024 §6 (Eq. 9-11, Table 1): minimise
    L(N, D, G) subject to F = (12·d²·c_f + d·E·G·c_r)·D·n_blocks, d = 64·n_blocks,
    N = d²·(8E + 4)·n_blocks, E = 64; and its dense equivalent under their dense fit.

    ``granularity`` None: the best of G = 1, 2, 4, ..., 256 (their Table 2 reports powers of 2);
    a number: that G. Active parameters N_act = 12·d²·n_blocks = N·12/516. The dense equivalent
    is the cheapest dense (N, D) reaching the MoE's loss under the dense fit (C = 6·N·D, their
    c_f = 6); ``compute_multiplier`` = its compute / F. The paper's Table 2 is reproduced to 3%
    in N_act and D, exactly in G and to 1% in loss (tests/test_moe_laws.py). The dense fit rests
    on dense runs of 3M-85M non-embedding parameters and 16B-66B tokens (their App. A Table 4,
    ``KRAJEWSKI_DENSE_PARAMS_RANGE``, ``KRAJEWSKI_DENSE_TOKENS_RANGE``): the dense equivalent of
    Table 2's smallest optimum (64x100M at 2.95e18 FLOPs) already has 448M parameters, and at no
    budget does a compute-optimal dense model (41-46 tokens per parameter) fall inside runs of
    >= 188: ``dense_in_fit_range`` is False, the dense side and with it ``compute_multiplier``
    an extrapolation of that fit.

    Returns
    -------
    DataFrame, one row per budget: ``compute_flops``, ``granularity``, ``total_params``,
    ``active_params``, ``train_tokens``, ``tokens_per_active_param``, ``flops_per_token``,
    ``loss``, ``dense_params``, ``dense_tokens``, ``dense_compute_flops``,
    ``compute_multiplier``, ``dense_to_active_params``, ``moe_in_fit_range`` (total parameters
    and tokens both inside the MoE runs behind the MoE fit), ``dense_in_fit_range`` (the dense
    equivalent's parameters and tokens inside the dense runs behind the dense fit) and
    ``in_fit_range`` (both).
    """
    c = np.atleast_1d(as_array(compute_flops, "compute_flops", positive=True)).astype(float)
    cr = KRAJEWSKI_ROUTING_FLOPS if c_r is None else as_scalar(c_r, "c_r",
                                                                     nonnegative=True)
    if granularity is None:
        gs = 2.0 ** np.arange(0, 9)
    else:
        gs = np.atleast_1d(as_array(granularity, "granularity", positive=True))
        if np.any(gs < 1):
            raise ValueError(f"granularity={float(gs.min())!r} must be >= 1 (G = 1: one expert "
                             "the size of the dense FFN)")
    best = None
    for g in gs:
        n = _krajewski_best_n(c, g, cr)
        d = c / np.asarray(krajewski_flops_per_token(n, g, c_r=cr), dtype=float)
        ell = np.asarray(loss(n, d, krajewski_loss_fit(g)), dtype=float)
        row = (ell, np.full_like(ell, g), n, d)
        best = row if best is None else tuple(np.where(ell < best[0], x, y)
                                              for x, y in zip(row, best))
    ell, g, n, d = best
    na = n * KRAJEWSKI_ACTIVE_FRACTION
    nd, dd = (np.asarray(x, dtype=float) for x in
              compute_optimal_for_loss(ell, krajewski_loss_fit(dense=True)))
    cd = TRAIN_FLOPS_PER_PARAM_TOKEN * nd * dd
    ok = _inside(n, d, KRAJEWSKI_PARAMS_RANGE, KRAJEWSKI_TOKENS_RANGE)
    ok_dense = _inside(nd, dd, KRAJEWSKI_DENSE_PARAMS_RANGE, KRAJEWSKI_DENSE_TOKENS_RANGE)
    return pd.DataFrame({"compute_flops": c, "granularity": g, "total_params": n,
                         "active_params": na, "train_tokens": d,
                         "tokens_per_active_param": d / na, "flops_per_token": c / d,
                         "loss": ell, "dense_params": nd, "dense_tokens": dd,
                         "dense_compute_flops": cd, "compute_multiplier": cd / c,
                         "dense_to_active_params": nd / na, "moe_in_fit_range": ok,
                         "dense_in_fit_range": ok_dense, "in_fit_range": ok & ok_dense})


def _inside(n, d, params_range, tokens_range):
    """True where parameters n and tokens d both lie inside the runs' ranges."""
    return ((n >= params_range[0]) & (n <= params_range[1])
            & (d >= tokens_range[0]) & (d <= tokens_range[1]))


def moe_fits_compared(active_params, n_experts: int = 64, clark_fit="s-base"):
    """Where the MoE fits disagree: how many times bigger a dense model must be to match an MoE
    of N active parameters, by each fit.

    * Clark et al. 2022: N̄(N, E)/N at their fixed 130B tokens (``effective_params``).
    * Krajewski et al. 2024: the compute-optimal MoE with N active parameters (the budget at
      which it is optimal, found on a grid of budgets and interpolated in log-log) against the
      compute-optimal dense model of the same loss: dense N / active N
      (``moe_compute_optimal``'s ``dense_to_active_params``) and the compute multiplier.

    Returns
    -------
    DataFrame: ``active_params``, ``clark_dense_equivalent_ratio``,
    ``krajewski_dense_equivalent_ratio``, ``krajewski_compute_multiplier``,
    ``krajewski_compute_flops``.
    """
    n = np.atleast_1d(as_array(active_params, "active_params", positive=True))
    clark = np.asarray(effective_params(n, n_experts, clark_fit), dtype=float) / n
    grid = moe_compute_optimal(np.geomspace(1e14, 1e31, 120))
    ln = np.log(grid.active_params.to_numpy())
    if np.any(np.log(n) < ln[0]) or np.any(np.log(n) > ln[-1]):
        raise ValueError(f"active_params={n.min():.3g}..{n.max():.3g} must lie in "
                         f"{math.exp(ln[0]):.3g}..{math.exp(ln[-1]):.3g} (the budgets searched)")
    c = np.exp(np.interp(np.log(n), ln, np.log(grid.compute_flops.to_numpy())))
    k = moe_compute_optimal(c)
    return pd.DataFrame({"active_params": n, "clark_dense_equivalent_ratio": clark,
                         "krajewski_dense_equivalent_ratio": k["dense_to_active_params"].values,
                         "krajewski_compute_multiplier": k["compute_multiplier"].values,
                         "krajewski_compute_flops": c})


def moe_runs_vs_optimum():
    """Published MoE runs against Krajewski et al.'s compute-optimal MoE at the same compute.

    For every MoE of ``scaling.frontier_models`` (catalogue and published runs with total and
    active parameters and tokens): its compute C = 6·N_active·D (the runs' own convention; the
    routing FLOPs of ``krajewski_flops_per_token`` are not counted for them), its expansion
    N_total/N_active, tokens per active parameter, and ``moe_compute_optimal(C)``'s active
    parameters, tokens and G. The fit is at expansion 64 (total/active ≈ 43 with attention);
    the catalogue's runs use 9-31, so the comparison places them, it does not grade them.

    Returns
    -------
    DataFrame: ``name``, ``total_params``, ``active_params``, ``train_tokens``,
    ``expansion``, ``tokens_per_active_param``, ``compute_flops``, ``optimal_active_params``,
    ``optimal_train_tokens``, ``optimal_granularity``, ``active_vs_optimal``.
    """
    runs = frontier_models()
    runs = runs[runs.moe].reset_index(drop=True)
    c = TRAIN_FLOPS_PER_PARAM_TOKEN * runs.n_active_params.to_numpy() * runs.train_tokens.to_numpy()
    opt = moe_compute_optimal(c)
    return pd.DataFrame({"name": runs.name, "total_params": runs.n_params,
                         "active_params": runs.n_active_params, "train_tokens": runs.train_tokens,
                         "expansion": runs.n_params / runs.n_active_params,
                         "tokens_per_active_param": runs.train_tokens / runs.n_active_params,
                         "compute_flops": c, "optimal_active_params": opt.active_params.values,
                         "optimal_train_tokens": opt.train_tokens.values,
                         "optimal_granularity": opt.granularity.values,
                         "active_vs_optimal": runs.n_active_params.values
                         / opt.active_params.values})


# -------------------------------------------------------------------- Gadre et al. 2024
def _gadre_fit(name, e, a, b, eta, data):
    # Table 6 prints the raw parameters of the authors' fitting code (github.com/mlfoundations/
    # scaling, scaling/laws.py ``powlaw_ours``: L = E + a·N^b' + b·6^(b'/2)·D^b', b' = −η), not
    # Eq. 4's: its "η" is the exponent on N and D (α = β = η), its "a" is A and its "b" is
    # Eq. 4's b. Read literally in Eq. 4 the table predicts L ≈ E for every model in their
    # testbed (1.84 for the 0.411B RedPajama model at M = 20, measured 3.15); read this way it
    # reproduces their released losses (3.17) and their Figure 17 exponent (η of Eq. 4 ≈ 0.12-0.14).
    return LossFit(name, e, a, b * 6.0 ** (-eta / 2.0), eta, eta,
                   f"Gadre et al. 2024, arXiv:2403.08540, App. E Table 6 (trained on {data}, "
                   f"evaluated on C4 eval), read as the authors' code fits it: "
                   f"L(N, D) = {e} + {a}·N^-{eta} + {b}·6^-{eta / 2:g}·D^-{eta}",
                   "Fitted on models of 0.011B-0.411B parameters at M = 20 plus 0.011B at "
                   "M = 320 (their Table 1), C = 6ND. Table 6's η is the N and D exponent; "
                   "Eq. 4's compute exponent is η/2. Its own M* is 3-8 (the paper's Eq. 10 "
                   "figures 2.87/4.30/3.79 plug Table 6 into Eq. 10 as if it were Eq. 4's), "
                   "below the M = 20 the authors found near compute-optimal (App. E): use it "
                   "for the shape in M, not for M*.")


#: Gadre et al. 2024 App. E Table 6: E, a, b, η per training set, as ``LossFit``s
#: (A = a, B = b·6^(−η/2), α = β = η: the table's numbers are the authors' code's fit of
#: L = E + A·N^−η + B·D^−η, see ``_gadre_fit``; Eq. 4's a, b, η are then a·6^(η/2), b, η/2).
GADRE_FITS = {f.name: f for f in [
    _gadre_fit("gadre2024_c4", 1.51, 114.0, 190.0, 0.242, "C4"),
    _gadre_fit("gadre2024_redpajama", 1.84, 166.0, 367.0, 0.272, "RedPajama"),
    _gadre_fit("gadre2024_refinedweb", 1.73, 125.0, 246.0, 0.254, "RefinedWeb"),
]}


def _fit(fit) -> LossFit:
    if isinstance(fit, str) and fit in GADRE_FITS:
        return GADRE_FITS[fit]
    return get_fit(fit)


def gadre_form(fit="gadre2024_redpajama") -> dict:
    """Gadre et al. 2024 §2.2 Eq. 4 (derivation App. A): a Chinchilla fit with α = β in compute
    and token multiplier, L(C, M) = E + (a·M^η + b·M^−η)·C^−η with η = α/2, a = A·6^η, b = B·6^η.

    Returns
    -------
    dict with ``E``, ``a``, ``b``, ``eta`` and ``optimal_multiplier`` M* = (b/a)^(1/(2η)).

    Raises
    ------
    ValueError
        If the fit's α and β differ by more than 1e-9 (the form needs them equal; use
        ``overtraining``, which is exact for any fit).
    """
    f = _fit(fit)
    if abs(f.alpha - f.beta) > 1e-9:
        raise ValueError(f"fit={f.name!r} has alpha={f.alpha} != beta={f.beta}: Gadre et al.'s "
                         "L(C, M) form needs equal exponents (use overtraining(), exact for "
                         "any fit)")
    eta = f.alpha / 2.0
    a, b = f.A * 6.0 ** eta, f.B * 6.0 ** eta
    return {"E": f.E, "a": a, "b": b, "eta": eta, "optimal_multiplier": (b / a) ** (0.5 / eta)}


def gadre_loss(compute_flops, token_multiplier, fit="gadre2024_redpajama"):
    """L(C, M) = E + (a·M^η + b·M^−η)·C^−η (Gadre et al. 2024 Eq. 4; ``gadre_form``). The fit
    is one of ``GADRE_FITS`` (their Table 6), a ``LOSS_FITS`` name with α = β, or a
    ``LossFit``."""
    g = gadre_form(fit)
    c = as_array(compute_flops, "compute_flops", positive=True)
    m = as_array(token_multiplier, "token_multiplier", positive=True)
    return scalar_or_array(g["E"] + (g["a"] * m ** g["eta"] + g["b"] * m ** -g["eta"])
                           * c ** -g["eta"])


def overtraining_penalty(token_multiplier, fit="gadre2024_redpajama"):
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
    f = _fit(fit)
    n = as_scalar(n_params, "n_params", positive=True)
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
    "KRAJEWSKI_DENSE_PARAMS_RANGE", "KRAJEWSKI_DENSE_TOKENS_RANGE",
    "KRAJEWSKI_GRANULARITY_RANGE", "KRAJEWSKI_EXPANSION", "KRAJEWSKI_ACTIVE_FRACTION",
    "KRAJEWSKI_ROUTING_FLOPS", "krajewski_flops_per_token", "GADRE_FITS",
    "krajewski_loss_fit", "moe_compute_optimal",
    "moe_fits_compared", "moe_runs_vs_optimum", "gadre_form", "gadre_loss", "overtraining_penalty", "overtraining",
]
