"""Train bigger or train longer? Parametric loss fits, the compute-optimal model, repeated data
and the inference-adjusted optimum.

The loss fits
-------------
**Hoffmann et al. 2022** (*Training Compute-Optimal Large Language Models*, arXiv:2203.15556,
§3.3 Eq. 2, App. D.2): the final pre-training loss of a dense transformer with N parameters
trained once over D tokens is

    L(N, D) = E + A/N^α + B/D^β.

E is the loss of an ideal model (the entropy of text), A/N^α the shortfall of a finite model,
B/D^β that of finite data. **N counts all parameters, embeddings included** (Chinchilla's
convention; Kaplan et al. 2020 exclude them), and training compute is C = 6·N·D FLOPs.

Minimising L at fixed C = 6·N·D (Lagrange: α·A/N^α = β·B/D^β) gives the closed form
(Hoffmann et al. §3.3 Eq. 4)

    N*(C) = G·(C/6)^a,   D*(C) = G^−1·(C/6)^b,   G = (α·A/(β·B))^(1/(α+β)),
    a = β/(α+β),   b = α/(α+β).

and, for a target loss ℓ, the cheapest (N, D) reaching it splits the reducible loss ℓ − E in the
ratio β : α between the two terms: A/N^α = β/(α+β)·(ℓ − E), B/D^β = α/(α+β)·(ℓ − E).

Parameter sets (``LOSS_FITS``): Hoffmann's approach 3 as printed (E 1.69, A 406.4, B 410.7,
α 0.34, β 0.28) and as in the paper's TeX source (E 1.6934, α 0.3392, β 0.2849, per Besiroglu
et al.); the **Epoch AI replication** (Besiroglu, Erdil, Barnett, You 2024, *Chinchilla Scaling:
A replication attempt*, arXiv:2404.10102: E 1.8172, A 482.01, B 2085.43, α 0.3478, β 0.3658,
standard errors 0.03, 124.58, 1293.23, 0.02, 0.02), which fits Hoffmann's own data better and
agrees with his approaches 1 and 2 (≈20 tokens per parameter); Muennighoff et al. 2023's own
refit (below); and any ``LossFit`` a user builds. The printed Hoffmann constants give ≈93
tokens per parameter at Chinchilla's compute, not 20: Besiroglu et al. trace it to an optimizer
stopped early and to rounding of the printed constants.

**Kaplan et al. 2020** (arXiv:2001.08361) use another form and another N (non-embedding
parameters), fitted on other data: Eq. 1.5, L(N, D) = [(N_c/N)^(α_N/α_D) + D_c/D]^α_D, and a
compute-optimal allocation N ∝ C^0.73 (Eq. 1.7 / §6.1; Hoffmann Table 2 lists a = 0.73,
b = 0.27). Its losses are not on Chinchilla's scale (other data and tokenizer), so the workbook
compares the two by their allocation exponents (``allocation_exponents``), not by loss values.

Repeated data
-------------
**Muennighoff et al. 2023** (*Scaling Data-Constrained Language Models*, arXiv:2305.16264,
NeurIPS 2023, §3.1 Eq. 5–7): with U_D unique tokens seen 1 + R_D times, the data term uses the
effective data D′ = U_D + U_D·R*_D·(1 − exp(−R_D/R*_D)), R*_D ≈ 15.4: repeated tokens are worth
less each epoch, and after many epochs more compute buys nothing. Excess parameters decay alike
(R*_N ≈ 5.3) beyond the compute-optimal size for the unique data.

Inference-adjusted optimum
--------------------------
**Sardana, Portes, Doubov, Frankle 2024** (*Beyond Chinchilla-Optimal: Accounting for Inference
in Language Model Scaling Laws*, arXiv:2401.00448, ICML 2024, §2): for a target loss ℓ and a
lifetime inference demand of D_inf tokens, choose (N, D_tr) to minimise

    6·N·D_tr + 2·N·D_inf    subject to L(N, D_tr) = ℓ

(every served token, input or output, costs a forward pass, 2·N FLOPs). In dollars the two terms
are priced separately: training FLOPs at the training MFU and GPU price (``llmcost.compute``), a
served token at a serving price per token that depends on N (decode is memory-bound, so a
generated token does not cost 2·N FLOPs at training MFU; the serving model is notebook 05's).

Conventions: N = total parameters, embeddings included (MoE: the fits do not apply; active
parameters are shown for placement only); C = 6·N·D FLOPs; losses in nats per token on the
fits' own data (MassiveText for Hoffmann and Besiroglu, C4 for Muennighoff), so a loss value
means something only within one fit. Every function broadcasts over numpy arrays.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.catalog import (as_accelerator, as_model, list_models, load_model,
                            load_published_runs)
from ..core.hardware import DoesNotFit
from ..core.units import (as_array, as_count, as_scalar, broadcast_together, finite_result,
                          scalar_or_array)
from ..serving.inference import choose_serving_tp, serving_cost
from ..training.batch import DEEPSEEK_D_OPT, DEEPSEEK_M_OPT
from ..training.compute import compute_cost_usd, gpu_hours, model_flops_per_token

#: Chinchilla's rule of thumb: about 20 training tokens per parameter (Hoffmann et al. 2022:
#: Chinchilla itself, 70B parameters on 1.4T tokens, Table 1 and §4; approaches 1 and 2 project
#: about as many at its budget, Table 3: 67B on 1.5T by approach 1). N counts all parameters,
#: embeddings included.
RULE_OF_THUMB_TOKENS_PER_PARAM = 20.0

#: The range of Hoffmann et al.'s runs behind the fits, in Besiroglu et al.'s reconstruction of
#: Hoffmann Fig. 4 (github:epoch-research/analyzing-chinchilla, data/svg_extracted_data.csv):
#: 5.7e7 to 1.6e10 parameters and at most ~340 tokens per parameter. Beyond these the fits are
#: extrapolations (Sardana et al. 2024, v2 abstract: fits made at typical ratios overstate the value of
#: extra tokens at extreme ratios).
FIT_MAX_TOKENS_PER_PARAM = 340.0

#: FLOPs per parameter per training token (2 forward + 4 backward; Kaplan et al. 2020 §2.1),
#: and per parameter per served token (one forward pass).
TRAIN_FLOPS_PER_PARAM_TOKEN = 6.0
INFERENCE_FLOPS_PER_PARAM_TOKEN = 2.0


# ------------------------------------------------------------------------------ loss fits
@dataclass(frozen=True)
class LossFit:
    """A parametric loss fit L(N, D) = E + A/N^α + B/D^β (Hoffmann et al. 2022 Eq. 2).

    Parameters
    ----------
    name : str
        Short name (the key in ``LOSS_FITS``).
    E, A, B : float
        Irreducible loss (nats/token, >= 0) and the two coefficients (> 0).
    alpha, beta : float
        Exponents of N and D (> 0: loss must fall with size and data).
    source : str
        Where the constants come from.
    notes : str
        Caveats.

    Raises
    ------
    ValueError
        If a constant is not a finite number or breaks its rule (the message names it).
    """

    name: str
    E: float
    A: float
    B: float
    alpha: float
    beta: float
    source: str = "user-supplied"
    notes: str = ""

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"LossFit.name={self.name!r} must be a non-empty string")
        for f in ("source", "notes"):
            if not isinstance(getattr(self, f), str):
                raise ValueError(f"LossFit.{f}={getattr(self, f)!r} must be a string")
        for f in ("E", "A", "B", "alpha", "beta"):
            v = getattr(self, f)
            if isinstance(v, bool) or not isinstance(v, (int, float, np.floating, np.integer)):
                raise ValueError(f"LossFit.{f}={v!r} must be a number")
            if not math.isfinite(v):
                raise ValueError(f"LossFit.{f}={v!r} must be finite")
            if f == "E" and v < 0:
                raise ValueError(f"LossFit.E={v!r} must be >= 0 (a loss in nats)")
            if f != "E" and v <= 0:
                rule = ("an exponent must be > 0: loss must fall as the model or data grow"
                        if f in ("alpha", "beta") else "must be > 0")
                raise ValueError(f"LossFit.{f}={v!r} {rule}")
            object.__setattr__(self, f, float(v))

    @property
    def a(self) -> float:
        """Exponent of N*(C) ∝ C^a: a = β/(α+β) (Hoffmann et al. §3.3 Eq. 4)."""
        return self.beta / (self.alpha + self.beta)

    @property
    def b(self) -> float:
        """Exponent of D*(C) ∝ C^b: b = α/(α+β)."""
        return self.alpha / (self.alpha + self.beta)

    @property
    def G(self) -> float:
        """G = (α·A/(β·B))^(1/(α+β)) of the closed-form optimum."""
        return (self.alpha * self.A / (self.beta * self.B)) ** (1.0 / (self.alpha + self.beta))


#: Named, sourced parameter sets. Keys are the values of the scenario key ``scaling_fit``.
LOSS_FITS: dict[str, LossFit] = {f.name: f for f in [
    LossFit("hoffmann2022", 1.69, 406.4, 410.7, 0.34, 0.28,
            "Hoffmann et al. 2022, arXiv:2203.15556, App. D.2 Eq. 10 (approach 3, as printed)",
            "Printed constants are rounded and the fit stopped early (Besiroglu et al. 2024); "
            "they imply ~93 tokens/parameter at Chinchilla's compute, against ~20 from "
            "approaches 1 and 2, and miss Hoffmann's own approach-3 projections (App. D.3 "
            "Table A3, 400M-67B parameters): the compute they make optimal for those sizes is "
            "57-76% above the table's, the TeX values' 2-10% above."),
    LossFit("hoffmann2022_tex", float(np.exp(0.5267228)), float(np.exp(6.0073404)),
            float(np.exp(6.0179186)), 0.33917084, 0.2849083,
            "Hoffmann et al. 2022 TeX source values (log A 6.0073404, log B 6.0179186, "
            "log E 0.5267228, α 0.33917084, β 0.2849083), as read by Besiroglu et al. 2024 "
            "and in their code (github:epoch-research/analyzing-chinchilla, data_analysis.ipynb, "
            "true_params)",
            "Unrounded (E 1.69337, A 406.401, B 410.723); still ~59 tokens/parameter at "
            "Chinchilla's compute (58.9 at 5.76e23), and N* = 40.4B there, the 40B of "
            "Hoffmann's Fig. 4 caption."),
    # E 1.8172 is the Huber-loss (grid-started) fit's; A, B, α, β are the maximum-likelihood
    # fit's (arXiv:2404.10102 Table 1), whose own E is 1.81686: a mix as published, the two E
    # differ by 3.4e-4, far below E's standard error (0.026).
    LossFit("besiroglu2024", 1.8172, 482.01, 2085.43, 0.3478, 0.3658,
            "Besiroglu, Erdil, Barnett, You 2024, Chinchilla Scaling: A replication attempt, "
            "arXiv:2404.10102 (Epoch AI), refit of Hoffmann's approach 3 on data reconstructed "
            "from Hoffmann Fig. 4; standard errors 0.03, 124.58, 1293.23, 0.02, 0.02",
            "Agrees with Hoffmann's approaches 1-2 (a = 0.513, ~20 tokens/parameter). The "
            "workbook's default fit."),
    LossFit("sardana2024", 1.69, 406.4, 410.7, 0.336, 0.283,
            "Chinchilla coefficients as used by Sardana et al. 2024 (arXiv:2401.00448): the "
            "default coefficients of the authors' code, github:nikhilsardana/beyond-chinchilla "
            "README ('α=0.336, β=0.283, A=406.4, B=410.7, E=1.69', which the README calls the "
            "original Chinchilla coefficients); the package reproduces that README's printed "
            "outputs (tests/test_scaling.py). With them the paper's Fig. 1 example saves 17.4% "
            "(paper: 17%)",
            "Used to reproduce Sardana's figures; the Fig. 1 saving depends on the constants, "
            "9-28%: 9.1% with Hoffmann's printed ones, 16.3% with the TeX ones, 17.4% with "
            "these, 27.8% with the default Epoch fit, whose optimum trains the 13B on 20 "
            "tokens/parameter (2.6e11, against 5.8e11 here): its training is then the "
            "smaller part of the lifetime FLOPs, so the 7B's cheaper inference weighs more."),
    LossFit("muennighoff2023", float(np.exp(0.6254804)), float(np.exp(6.255414)),
            float(np.exp(7.3049974)), 0.3526596, 0.3526596,
            "Muennighoff et al. 2023, arXiv:2305.16264, their refit on C4 (github:huggingface/"
            "datablations README, 'Parametric Fit': a, b, e = 6.255414, 7.3049974, 0.6254804 "
            "in log form, α = β = 0.3526596)",
            "Losses on C4 with the GPT-2 tokenizer, not on MassiveText: compare within the fit."),
]}

#: Kaplan et al. 2020, Eq. 1.5 with Table 2 ("Fits to L(N, D)", the joint fit of the
#: two-variable form): L(N, D) = [(N_c/N)^(α_N/α_D) + D_c/D]^α_D with N non-embedding
#: parameters, D tokens (WebText2, GPT-2 BPE). Not Table 5's single-variable fits (α_D 0.095,
#: D_c 5.4e13, N_c 8.8e13), which belong to L(D) and L(N) alone.
KAPLAN_ALPHA_N = 0.076
KAPLAN_ALPHA_D = 0.103
KAPLAN_N_C = 6.4e13
KAPLAN_D_C = 1.8e13
#: Kaplan et al. 2020 Eq. 1.7 / §6.1: compute-efficient N ∝ C_min^0.73 and D ∝ C^0.27
#: (Hoffmann et al. 2022 Table 2 lists a = 0.73, b = 0.27 for Kaplan).
KAPLAN_ALLOCATION = (0.73, 0.27)

#: Hoffmann et al. 2022 Table 2: a and b of N* ∝ C^a, D* ∝ C^b by estimation approach.
HOFFMANN_TABLE2 = {"approach 1 (training curves)": (0.50, 0.50),
                   "approach 2 (isoFLOP profiles)": (0.49, 0.51),
                   "approach 3 (parametric fit)": (0.46, 0.54)}

#: Muennighoff et al. 2023 §3.1 (Eq. 5-7) and their released fit: the repetition "half-lives"
#: R*_D (data) and R*_N (excess parameters), paper ≈ 15.4 and ≈ 5.3.
MUENNIGHOFF_R_D_STAR = 15.387756
MUENNIGHOFF_R_N_STAR = 5.309743

#: The joint uncertainty of the Besiroglu et al. fit: the covariance of their bootstrap (4,000
#: resamples of the 240 points left after dropping the 5 highest-loss ones, Huber loss
#: δ = 1e-3 on log loss, BFGS from Hoffmann's TeX values), in the space the fit is done in:
#: (log A, log B, log E, α, β). The paper and its notebook publish only the marginal standard
#: errors; this matrix was recomputed with their published method on their published data
#: (github:epoch-research/analyzing-chinchilla, data/svg_extracted_data.csv) and reproduces
#: their standard errors of α, β, E and A within 3%, and the log A and log B ones their notebook
#: prints (0.258, 0.421) within 3% (B's own distribution is heavy-tailed, see
#: tests/test_scaling.py). Correlations: A–α 0.9993, B–β 0.9997. Recomputed with
#: ``scripts/besiroglu_bootstrap.py`` (seed 42; resampling streams differ from theirs).
BESIROGLU_BOOTSTRAP_PARAMS = ("log_A", "log_B", "log_E", "alpha", "beta")
BESIROGLU_BOOTSTRAP_COV = np.array([
    [6.3748637e-02, -2.4088264e-02, 2.1127095e-03, 3.8008106e-03, -1.2118191e-03],
    [-2.4088264e-02, 1.7483570e-01, 3.6391782e-03, -1.5055639e-03, 8.5419928e-03],
    [2.1127095e-03, 3.6391782e-03, 1.9739880e-04, 1.2473022e-04, 1.7706047e-04],
    [3.8008106e-03, -1.5055639e-03, 1.2473022e-04, 2.2692603e-04, -7.5779719e-05],
    [-1.2118191e-03, 8.5419928e-03, 1.7706047e-04, -7.5779719e-05, 4.1761909e-04]])


def get_fit(fit) -> LossFit:
    """A ``LossFit`` from its name in ``LOSS_FITS`` or the object itself.

    Raises
    ------
    ValueError
        If ``fit`` is neither a known name nor a ``LossFit`` (the message lists the names).
    """
    if isinstance(fit, LossFit):
        return fit
    if isinstance(fit, str) and fit in LOSS_FITS:
        return LOSS_FITS[fit]
    raise ValueError(f"fit={fit!r} must be a LossFit or one of {', '.join(LOSS_FITS)}")


# ------------------------------------------------------------------------------ the loss
def loss(n_params, n_tokens, fit="besiroglu2024"):
    """L(N, D) = E + A/N^α + B/D^β (Hoffmann et al. 2022 Eq. 2) in nats per token.

    Parameters
    ----------
    n_params : float or array
        Total parameters N, embeddings included (> 0).
    n_tokens : float or array
        Training tokens D, each seen once (> 0).
    fit : str or LossFit
        Parameter set (``LOSS_FITS`` key).

    Returns
    -------
    float or ndarray, broadcast over the inputs. Chinchilla (70B, 1.4T) under the printed
    Hoffmann constants: 1.9366.
    """
    f = get_fit(fit)
    n = as_array(n_params, "n_params", positive=True)
    d = as_array(n_tokens, "n_tokens", positive=True)
    broadcast_together(n_params=n, n_tokens=d)   # not numpy's message (an API trial)
    return scalar_or_array(f.E + f.A / n ** f.alpha + f.B / d ** f.beta)


def kaplan_loss_nd(n_nonembedding_params, n_tokens):
    """Kaplan et al. 2020 Eq. 1.5: L(N, D) = [(N_c/N)^(α_N/α_D) + D_c/D]^α_D with Table 2's
    joint fit to L(N, D): α_N 0.076, α_D 0.103, N_c 6.4e13, D_c 1.8e13.

    N is Kaplan's: **non-embedding** parameters (``ModelSpec.n_nonembedding_params``); the loss
    is on WebText2 with GPT-2's tokenizer, not on Chinchilla's scale: compare Kaplan with the
    Chinchilla fits by allocation exponents (``allocation_exponents``), not by loss values.
    """
    n = as_array(n_nonembedding_params, "n_nonembedding_params", positive=True)
    d = as_array(n_tokens, "n_tokens", positive=True)
    broadcast_together(n_nonembedding_params=n, n_tokens=d)
    return scalar_or_array(((KAPLAN_N_C / n) ** (KAPLAN_ALPHA_N / KAPLAN_ALPHA_D)
                            + KAPLAN_D_C / d) ** KAPLAN_ALPHA_D)


def _target(target_loss, f: LossFit) -> np.ndarray:
    t = as_array(target_loss, "target_loss", positive=True)
    if np.any(t <= f.E):
        bad = float(t[t <= f.E].flat[0])
        raise ValueError(f"target_loss={bad:.4g} is unreachable: it must be above the fit's "
                         f"irreducible loss E={f.E:.4g} ({f.name}); no model of any size "
                         "trained on any amount of data gets to E")
    return t


def min_params_for_loss(target_loss, fit="besiroglu2024"):
    """The smallest N that can reach ``target_loss`` with unlimited data: (A/(ℓ − E))^(1/α).

    Raises
    ------
    ValueError
        If ``target_loss`` <= E (unreachable).
    """
    f = get_fit(fit)
    t = _target(target_loss, f)
    return scalar_or_array((f.A / (t - f.E)) ** (1.0 / f.alpha))


def tokens_for_loss(target_loss, n_params, fit="besiroglu2024"):
    """Training tokens a model of N parameters needs to reach ``target_loss`` (the iso-loss
    contour): D = (B/(ℓ − E − A/N^α))^(1/β), from L(N, D) = ℓ.

    Returns
    -------
    float or ndarray; ``inf`` where N <= ``min_params_for_loss(ℓ)`` (that model cannot reach
    the loss on any amount of data).

    Raises
    ------
    ValueError
        If ``target_loss`` <= E (unreachable) or N is not positive.
    """
    f = get_fit(fit)
    t = _target(target_loss, f)
    n = as_array(n_params, "n_params", positive=True)
    left = t - f.E - f.A / n ** f.alpha
    with np.errstate(divide="ignore", invalid="ignore"):
        d = np.where(left > 0, (f.B / np.where(left > 0, left, 1.0)) ** (1.0 / f.beta), np.inf)
    return scalar_or_array(d)


# --------------------------------------------------------------------- compute-optimal
def compute_optimal(compute_flops, fit="besiroglu2024"):
    """Compute-optimal N*(C) and D*(C) under C = 6·N·D (Hoffmann et al. 2022 §3.3 Eq. 4).

    N* = G·(C/6)^a, D* = G^−1·(C/6)^b, G = (α·A/(β·B))^(1/(α+β)), a = β/(α+β), b = α/(α+β).

    Parameters
    ----------
    compute_flops : float or array
        Training compute C in FLOPs (> 0).
    fit : str or LossFit

    Returns
    -------
    (n_params, n_tokens): floats or arrays. Besiroglu et al.'s fit at Gopher's/Chinchilla's
    5.76e23 FLOPs: 7.22e10 parameters, 1.33e12 tokens (18.4 tokens per parameter).

    Raises
    ------
    ValueError
        If C <= 0 (the message names ``compute_flops``).
    """
    f = get_fit(fit)
    c = as_array(compute_flops, "compute_flops", positive=True) / TRAIN_FLOPS_PER_PARAM_TOKEN
    return scalar_or_array(f.G * c ** f.a), scalar_or_array(c ** f.b / f.G)


def tokens_per_parameter(compute_flops, fit="besiroglu2024"):
    """D*/N* at compute C: G^−2·(C/6)^(b − a). Same parameters as ``compute_optimal``."""
    n, d = compute_optimal(compute_flops, fit)
    return scalar_or_array(np.asarray(d) / np.asarray(n))


def compute_optimal_for_loss(target_loss, fit="besiroglu2024"):
    """The cheapest (N, D) reaching ``target_loss`` under C = 6·N·D.

    At the optimum α·A/N^α = β·B/D^β, so the reducible loss ℓ − E splits β : α:
    N = (A·(α+β)/(β·(ℓ − E)))^(1/α), D = (B·(α+β)/(α·(ℓ − E)))^(1/β).

    Returns
    -------
    (n_params, n_tokens)

    Raises
    ------
    ValueError
        If ``target_loss`` <= E (unreachable).
    """
    f = get_fit(fit)
    r = _target(target_loss, f) - f.E
    s = f.alpha + f.beta
    return (scalar_or_array((f.A * s / (f.beta * r)) ** (1.0 / f.alpha)),
            scalar_or_array((f.B * s / (f.alpha * r)) ** (1.0 / f.beta)))


def _argmin_log(fun, lo, hi, n_grid: int = 193, iters: int = 48):
    """Minimise ``fun(x)`` over x in [lo, hi] (arrays that broadcast) for unimodal ``fun``:
    a log-spaced grid to bracket the minimum, then golden-section search. Vectorised: ``lo``,
    ``hi`` and ``fun`` broadcast over any leading shape. Returns x at the minimum."""
    lo, hi = np.broadcast_arrays(np.log(lo), np.log(hi))
    grid = lo[..., None] + (hi - lo)[..., None] * np.linspace(0.0, 1.0, n_grid)
    vals = fun(np.exp(grid))
    k = np.clip(np.argmin(vals, axis=-1), 1, n_grid - 2)
    a = np.take_along_axis(grid, (k - 1)[..., None], -1)[..., 0]
    b = np.take_along_axis(grid, (k + 1)[..., None], -1)[..., 0]
    g = (math.sqrt(5) - 1) / 2
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = fun(np.exp(c[..., None]))[..., 0], fun(np.exp(d[..., None]))[..., 0]
    for _ in range(iters):
        left = fc < fd
        b = np.where(left, d, b)
        a = np.where(left, a, c)
        c2, d2 = b - g * (b - a), a + g * (b - a)
        c, d = c2, d2
        fc, fd = fun(np.exp(c[..., None]))[..., 0], fun(np.exp(d[..., None]))[..., 0]
    return np.exp((a + b) / 2)


def _n_where_flops_per_token_reaches(fpt, target, n_lo=1.0, n_hi=1e30, iters=120):
    """The smallest N with f(N) >= ``target`` for an increasing f (bisection on log N), so
    that D = C/f(N) <= cap holds from there on whatever f is (6·N gives C/(6·cap) exactly)."""
    target = np.asarray(target, dtype=float)
    a = np.full(target.shape, math.log(n_lo))
    b = np.full(target.shape, math.log(n_hi))
    if np.any(np.asarray(fpt(np.exp(b)), dtype=float) < target):
        raise ValueError("max_tokens is too small: flops_per_token(N) never reaches "
                         "compute_flops / max_tokens, so no model size keeps D <= max_tokens")
    for _ in range(iters):
        m = (a + b) / 2
        below = np.asarray(fpt(np.exp(m)), dtype=float) < target
        a, b = np.where(below, m, a), np.where(below, b, m)
    return np.exp(b)


def compute_optimal_numerical(compute_flops, fit="besiroglu2024", flops_per_token=None,
                              max_tokens=None):
    """Compute-optimal (N, D) for any FLOP count per token and an optional cap on tokens,
    found numerically: minimise L(N, C/f(N)) over N.

    Parameters
    ----------
    compute_flops : float or array
        Training compute C (> 0).
    fit : str or LossFit
    flops_per_token : callable, optional
        f(N) → training FLOPs per token for a model of N parameters (vectorised); default 6·N,
        which reproduces ``compute_optimal``. Per-token FLOPs that grow more slowly than N
        (attention at a fixed context, ``llmcost.compute``) make tokens dearer relative to
        parameters, so the optimum moves to a slightly larger model on fewer tokens.
    max_tokens : float, optional
        Tokens available (each seen once); the search keeps D <= max_tokens, so a small
        corpus pushes the optimum to a larger model (for repeated data see
        ``data_constrained_optimum``). The feasible range starts at the N where
        f(N) = C/max_tokens (solved for the given f, which must increase with N).

    Returns
    -------
    (n_params, n_tokens)

    Raises
    ------
    ValueError
        If C <= 0, ``max_tokens`` <= 0, or ``flops_per_token`` is not callable.
    """
    f = get_fit(fit)
    c = as_array(compute_flops, "compute_flops", positive=True)
    fpt = ((lambda n: TRAIN_FLOPS_PER_PARAM_TOKEN * n) if flops_per_token is None
           else flops_per_token)
    if not callable(fpt):
        raise ValueError(f"flops_per_token={flops_per_token!r} must be a callable of n_params")
    cap = None if max_tokens is None else as_array(max_tokens, "max_tokens", positive=True)
    n0, _ = compute_optimal(c, f)
    lo, hi = np.asarray(n0) * 1e-4, np.asarray(n0) * 1e4
    if cap is not None:  # D = C/f(N) <= cap  ⇔  f(N) >= C/cap  ⇔  N >= N_min with f(N_min) = C/cap
        lo = np.maximum(lo, _n_where_flops_per_token_reaches(fpt, c / cap))
        hi = np.maximum(hi, lo * 10)

    def objective(n):
        d = c[..., None] / fpt(n)
        val = f.E + f.A / n ** f.alpha + f.B / d ** f.beta
        if cap is not None:
            val = np.where(d > cap[..., None] * (1 + 1e-9), np.inf, val)
        return val

    n = _argmin_log(objective, lo, hi)
    return scalar_or_array(n), scalar_or_array(c / fpt(n))


def isoflop_curve(compute_flops, n_params, fit="besiroglu2024"):
    """Loss along an isoFLOP profile: L(N, C/(6N)) for each N at fixed compute C (Hoffmann et
    al. 2022 approach 2, Fig. 3). ``compute_flops`` and ``n_params`` broadcast (pass
    ``C[:, None]`` and ``N[None, :]`` for a family of curves)."""
    c = as_array(compute_flops, "compute_flops", positive=True)
    n = as_array(n_params, "n_params", positive=True)
    return loss(n, c / (TRAIN_FLOPS_PER_PARAM_TOKEN * n), fit)


def allocation_exponents():
    """How N* and D* grow with compute, by study: a and b of N* ∝ C^a, D* ∝ C^b.

    Rows: Hoffmann et al. 2022 Table 2 (approaches 1-3 as published), a = β/(α+β) computed from
    each ``LOSS_FITS`` parameter set, Kaplan et al. 2020 (0.73, 0.27; non-embedding N, their
    own data) and DeepSeek LLM (arXiv:2401.02954 Eq. 4: M_opt ∝ C^0.5243, D_opt ∝ C^0.4757,
    with M non-embedding FLOPs per token rather than parameters; ``llmcost.batch``).

    Returns
    -------
    DataFrame: ``study``, ``a``, ``b``, ``how`` (published or computed), ``source``.
    """

    rows = [{"study": f"Hoffmann 2022 {k}", "a": a, "b": b, "how": "published (Table 2)",
             "source": "arXiv:2203.15556 Table 2"} for k, (a, b) in HOFFMANN_TABLE2.items()]
    rows += [{"study": f"fit: {f.name}", "a": f.a, "b": f.b, "how": "computed: β/(α+β)",
              "source": f.source.split(",")[0]} for f in LOSS_FITS.values()]
    rows.append({"study": "Kaplan 2020", "a": KAPLAN_ALLOCATION[0], "b": KAPLAN_ALLOCATION[1],
                 "how": "published (Eq. 1.7, §6.1; non-embedding N)",
                 "source": "arXiv:2001.08361"})
    rows.append({"study": "DeepSeek LLM 2024 (M = FLOPs/token)", "a": DEEPSEEK_M_OPT[1],
                 "b": DEEPSEEK_D_OPT[1], "how": "published (Eq. 4)",
                 "source": "arXiv:2401.02954"})
    return pd.DataFrame(rows)


def run_efficiency(n_params, train_tokens, fit="besiroglu2024"):
    """Where a run (N, D) sits against the compute-optimal frontier.

    C = 6·N·D; the compute-optimal run at that C is (N*(C), D*(C)) of ``compute_optimal``; the
    cheapest run reaching the same loss ℓ = L(N, D) is ``compute_optimal_for_loss(ℓ)`` with
    compute C_eq = 6·N_eq·D_eq, and the allocation's overhead is C / C_eq − 1 (zero on the
    frontier, positive off it: Hoffmann et al. 2022 §3, Fig. 1's comparison of Gopher and
    Chinchilla).

    Returns
    -------
    dict of floats/arrays: ``compute_flops`` (6ND), ``tokens_per_param``, ``loss``,
    ``optimal_n_params`` and ``optimal_tokens`` at the same compute, ``optimal_tokens_per_param``,
    ``optimal_loss`` (the best loss that compute buys), ``flops_for_same_loss`` (the compute a
    compute-optimal run needs to reach the run's loss) and ``compute_overhead`` (C / that − 1:
    the share of compute the allocation costs, before any inference).
    """
    f = get_fit(fit)
    n = as_array(n_params, "n_params", positive=True)
    d = as_array(train_tokens, "train_tokens", positive=True)
    c = TRAIN_FLOPS_PER_PARAM_TOKEN * n * d
    l_run = np.asarray(loss(n, d, f))
    n_opt, d_opt = (np.asarray(x) for x in compute_optimal(c, f))
    n_eq, d_eq = (np.asarray(x) for x in compute_optimal_for_loss(l_run, f))
    c_eq = TRAIN_FLOPS_PER_PARAM_TOKEN * n_eq * d_eq
    out = {"compute_flops": c, "tokens_per_param": d / n, "loss": l_run,
           "optimal_n_params": n_opt, "optimal_tokens": d_opt,
           "optimal_tokens_per_param": d_opt / n_opt,
           "optimal_loss": np.asarray(loss(n_opt, d_opt, f)),
           "flops_for_same_loss": c_eq, "compute_overhead": c / c_eq - 1}
    return {k: scalar_or_array(np.asarray(v)) for k, v in out.items()}


# ---------------------------------------------------------------------------- uncertainty
def compute_optimal_band(compute_flops, quantiles=(0.025, 0.5, 0.975), n_draws: int = 4000,
                         seed: int = 0, correlated: bool = True):
    """A band on N*, D* and D*/N* from the joint uncertainty of Besiroglu et al.'s fit.

    Draws (log A, log B, log E, α, β) from a normal distribution centred on the published
    estimates with ``BESIROGLU_BOOTSTRAP_COV`` (their bootstrap's covariance, recomputed:
    see the constant), evaluates the closed-form optimum for each draw and returns quantiles.
    The centre is the published maximum-likelihood fit (18.4 tokens/parameter at 5.76e23
    FLOPs) while the covariance is that of bootstrap refits with the Huber loss, whose own
    point gives about 17.9: centre and spread come from two fits, as in Epoch's notebook,
    whose intervals are built the same way.
    The A–α and B–β estimates are strongly correlated (a larger A with a larger α predicts
    nearly the same losses), so the optimum is much better determined than the marginal errors
    suggest. With ``correlated=False`` the off-diagonal terms are dropped: that is what sampling
    the published standard errors independently does, and it gives a band far too wide to mean
    anything; it is offered only to show that.

    Parameters
    ----------
    compute_flops : float or array
        Compute budgets C (> 0).
    quantiles : sequence of float in (0, 1)
    n_draws : int
        Monte Carlo draws (>= 100); fixed ``seed`` so the result is reproducible.
    correlated : bool

    Returns
    -------
    DataFrame indexed by compute: columns ``n_params_q{q}``, ``n_tokens_q{q}``,
    ``tokens_per_param_q{q}`` for each quantile (q in percent).

    Raises
    ------
    ValueError
        For C <= 0, quantiles outside (0, 1), fewer than 100 draws.
    """
    c = np.atleast_1d(as_array(compute_flops, "compute_flops", positive=True))
    q = as_array(quantiles, "quantiles", positive=True, upper=1.0, upper_inclusive=False)
    n_draws = int(as_scalar(n_draws, "n_draws", positive=True, integer=True))
    if n_draws < 100:
        raise ValueError(f"n_draws={n_draws} must be >= 100 for stable quantiles")
    if not isinstance(correlated, bool):
        raise ValueError(f"correlated={correlated!r} must be True or False")
    f = LOSS_FITS["besiroglu2024"]
    mean = np.array([math.log(f.A), math.log(f.B), math.log(f.E), f.alpha, f.beta])
    cov = BESIROGLU_BOOTSTRAP_COV if correlated else np.diag(np.diag(BESIROGLU_BOOTSTRAP_COV))
    x = np.random.default_rng(seed).multivariate_normal(mean, cov, size=n_draws)
    log_a, log_b, al, be = x[:, 0], x[:, 1], x[:, 3], x[:, 4]
    ok = (al > 0) & (be > 0)
    log_a, log_b, al, be = log_a[ok], log_b[ok], al[ok], be[ok]
    log_g = (np.log(al) + log_a - np.log(be) - log_b) / (al + be)
    lc = np.log(c / TRAIN_FLOPS_PER_PARAM_TOKEN)[:, None]
    log_n = log_g + (be / (al + be)) * lc
    log_d = -log_g + (al / (al + be)) * lc
    out = {}
    for qi in q:
        tag = f"q{100 * qi:g}"
        out[f"n_params_{tag}"] = np.exp(np.quantile(log_n, qi, axis=1))
        out[f"n_tokens_{tag}"] = np.exp(np.quantile(log_d, qi, axis=1))
        out[f"tokens_per_param_{tag}"] = np.exp(np.quantile(log_d - log_n, qi, axis=1))
    return pd.DataFrame(out, index=pd.Index(c, name="compute_flops"))


# ----------------------------------------------------------------------- repeated data
def effective_tokens(n_tokens, unique_tokens, r_star=MUENNIGHOFF_R_D_STAR):
    """Muennighoff et al. 2023 Eq. 5: effective data D′ = U + U·R*·(1 − exp(−R/R*)).

    U = min(unique_tokens, n_tokens) unique tokens seen 1 + R times, R = D/U − 1. Fresh data
    (D <= U) is worth its count; the 4th epoch still adds almost a full epoch's worth (D′ =
    3.73·U at 4 epochs); past ~R* repetitions more epochs add almost nothing, and D′ never
    exceeds U·(1 + R*).

    Parameters
    ----------
    n_tokens : float or array
        Training tokens D, repeats included (> 0).
    unique_tokens : float or array
        Unique tokens U in the corpus (> 0).
    r_star : float
        R*_D (> 0); Muennighoff's fit: 15.39 (paper: ≈ 15.4).
    """
    d = as_array(n_tokens, "n_tokens", positive=True)
    u = np.minimum(as_array(unique_tokens, "unique_tokens", positive=True), d)
    rs = as_array(r_star, "r_star", positive=True)
    r = d / u - 1.0
    return scalar_or_array(u + u * rs * (1.0 - np.exp(-r / rs)))


def effective_params(n_params, unique_tokens, fit="muennighoff2023",
                     r_star=MUENNIGHOFF_R_N_STAR):
    """Muennighoff et al. 2023 Eq. 6-7: parameters beyond U_N, the compute-optimal size for the
    unique data (N at which D*(C) = U_D), are worth less: N′ = U_N + U_N·R*_N·(1 − exp(−R_N/R*_N)),
    R_N = N/U_N − 1, U_N = min(N, G·(U_D·G)^(β/α)). ``unique_tokens`` is U_D, the unique tokens
    the run sees: min(U, D) for a run of D tokens over a corpus of U (``data_constrained_loss``
    passes that)."""
    f = get_fit(fit)
    n = as_array(n_params, "n_params", positive=True)
    u = as_array(unique_tokens, "unique_tokens", positive=True)
    rs = as_array(r_star, "r_star", positive=True)
    un = np.minimum(n, f.G * (u * f.G) ** (f.beta / f.alpha))
    rn = n / un - 1.0
    return scalar_or_array(un + un * rs * (1.0 - np.exp(-rn / rs)))


def data_constrained_loss(n_params, n_tokens, unique_tokens, fit="muennighoff2023"):
    """Muennighoff et al. 2023 Eq. 7: L = E + A/N′^α + B/D′^β with the effective parameters and
    data of ``effective_params`` and ``effective_tokens``, both taken on the unique tokens the
    run sees, U_D = min(U, D) (a run of D tokens over a larger corpus sees D of them; the
    authors' ``optimal_allocation`` passes U = min(U_BASE, D) and their ``scaling_law`` asserts
    U <= D, github:huggingface/datablations README, "Parametric Fit"). Equals ``loss`` for a
    single epoch over fresh data and a model no larger than U_N."""
    f = get_fit(fit)
    d = as_array(n_tokens, "n_tokens", positive=True)
    u = np.minimum(as_array(unique_tokens, "unique_tokens", positive=True), d)
    n_eff = np.asarray(effective_params(n_params, u, f))
    d_eff = np.asarray(effective_tokens(d, u))
    return scalar_or_array(f.E + f.A / n_eff ** f.alpha + f.B / d_eff ** f.beta)


def data_constrained_optimum(compute_flops, unique_tokens, fit="muennighoff2023"):
    """The best (N, D) for compute C when only U unique tokens exist: minimise
    ``data_constrained_loss`` over N with D = C/(6N) (repeats allowed).

    Returns
    -------
    dict: ``n_params``, ``n_tokens``, ``epochs`` (D/U), ``loss``, and for comparison
    ``unconstrained_n_params``, ``unconstrained_tokens``, ``unconstrained_loss`` (fresh data).
    """
    f = get_fit(fit)
    c = as_array(compute_flops, "compute_flops", positive=True)
    u = as_array(unique_tokens, "unique_tokens", positive=True)
    c, u = np.broadcast_arrays(c, u)
    n0, d0 = (np.asarray(x) for x in compute_optimal(c, f))

    def objective(n):
        d = c[..., None] / (TRAIN_FLOPS_PER_PARAM_TOKEN * n)
        return np.asarray(data_constrained_loss(n, d, u[..., None], f))

    n = _argmin_log(objective, n0 * 1e-3, n0 * 1e3)
    d = c / (TRAIN_FLOPS_PER_PARAM_TOKEN * n)
    out = {"n_params": n, "n_tokens": d, "epochs": d / u,
           "loss": np.asarray(data_constrained_loss(n, d, u, f)),
           "unconstrained_n_params": n0, "unconstrained_tokens": d0,
           "unconstrained_loss": np.asarray(loss(n0, d0, f))}
    return {k: scalar_or_array(np.asarray(v)) for k, v in out.items()}


#: The illustrative domain corpus of notebook 06 §5 when a scenario gives none: 100B unique
#: tokens, and at most this fraction of the run's tokens (``illustrative_unique_tokens``).
ILLUSTRATIVE_UNIQUE_TOKENS = 1e11
ILLUSTRATIVE_UNIQUE_SHARE = 0.05


def illustrative_unique_tokens(train_tokens) -> float:
    """The corpus notebook 06 §5 illustrates repeated data with when the scenario gives none
    (``scaling_unique_tokens: null``): U = min(100B, 0.05 × D), D the run's tokens. 100B is a
    domain corpus; 0.05 × D is the default scenario's own ratio (100B against 2T tokens: 20
    epochs at the run's budget), so the illustration binds for any run (a fixed 100B would not
    bind a smaller one: a 1.3B model on 26B tokens would see it 0.3 times at its whole budget).
    An illustration, not a claim about the scenario's data."""
    d = as_scalar(train_tokens, "train_tokens", positive=True)
    return min(ILLUSTRATIVE_UNIQUE_TOKENS, ILLUSTRATIVE_UNIQUE_SHARE * d)


# ------------------------------------------------------------ inference-adjusted optimum
@dataclass(frozen=True)
class LifetimeOptimum:
    """The (N, D_tr) that minimise lifetime cost at a target loss, and the Chinchilla point.

    Arrays broadcast over the inputs. Costs are FLOPs (``inference_adjusted_optimum``) or USD
    (``inference_adjusted_optimum_usd``): the unit is ``unit``.
    """

    unit: str
    target_loss: np.ndarray
    inference_tokens: np.ndarray
    n_params: np.ndarray
    train_tokens: np.ndarray
    train_cost: np.ndarray
    inference_cost: np.ndarray
    chinchilla_n_params: np.ndarray
    chinchilla_train_tokens: np.ndarray
    chinchilla_train_cost: np.ndarray
    chinchilla_inference_cost: np.ndarray

    @property
    def total_cost(self):
        return self.train_cost + self.inference_cost

    @property
    def chinchilla_total_cost(self):
        return self.chinchilla_train_cost + self.chinchilla_inference_cost

    @property
    def tokens_per_param(self):
        return self.train_tokens / self.n_params

    @property
    def overtraining_ratio(self):
        """Tokens per parameter against the compute-optimal (Chinchilla) tokens per parameter
        for the same loss."""
        return self.tokens_per_param / (self.chinchilla_train_tokens / self.chinchilla_n_params)

    @property
    def saving_fraction(self):
        """1 − lifetime cost of the optimum / that of the Chinchilla-optimal model."""
        return 1.0 - self.total_cost / self.chinchilla_total_cost

    def to_frame(self):
        cols = {"inference_tokens": self.inference_tokens, "n_params": self.n_params,
                "train_tokens": self.train_tokens, "tokens_per_param": self.tokens_per_param,
                "overtraining_ratio": self.overtraining_ratio,
                f"train_{self.unit}": self.train_cost,
                f"inference_{self.unit}": self.inference_cost,
                f"total_{self.unit}": self.total_cost,
                f"chinchilla_total_{self.unit}": self.chinchilla_total_cost,
                "saving_fraction": self.saving_fraction}
        return pd.DataFrame({k: np.atleast_1d(np.broadcast_to(v, np.broadcast(
            *cols.values()).shape)) for k, v in cols.items()})


def _lifetime(target_loss, inference_tokens, fit, train_cost_per_flop, serve_cost, unit):
    f = get_fit(fit)
    t = _target(target_loss, f)
    d_inf = as_array(inference_tokens, "inference_tokens", nonnegative=True)
    t, d_inf = np.broadcast_arrays(t, d_inf)
    n_c, d_c = (np.asarray(x) for x in compute_optimal_for_loss(t, f))
    n_min = np.asarray(min_params_for_loss(t, f))

    def total(n):
        d = np.asarray(tokens_for_loss(t[..., None], n, f))
        return (train_cost_per_flop * TRAIN_FLOPS_PER_PARAM_TOKEN * n * d
                + d_inf[..., None] * serve_cost(n))

    with np.errstate(over="ignore"):  # refused below, by name, if the cost overflows
        finite_result(total(n_c[..., None]), "the lifetime cost at the compute-optimal model",
                      "target_loss, inference_tokens, cost per FLOP or per token")
    # More demand never favours a larger model: the optimum lies in (N_min, N_chinchilla].
    n = _argmin_log(total, n_min * (1 + 1e-6), n_c * 1.0001)
    n = np.minimum(n, n_c)
    # N_chinchilla is a candidate: keep it where the search's point is no cheaper (always at
    # D_inf = 0, where the optimum is the compute-optimal model exactly, saving 0).
    at_c = (d_inf == 0) | (total(n[..., None])[..., 0] >= total(n_c[..., None])[..., 0])
    n = np.where(at_c, n_c, n)
    d = np.where(at_c, d_c, np.asarray(tokens_for_loss(t, n, f)))
    return LifetimeOptimum(
        unit=unit, target_loss=t, inference_tokens=d_inf, n_params=n, train_tokens=d,
        train_cost=train_cost_per_flop * TRAIN_FLOPS_PER_PARAM_TOKEN * n * d,
        inference_cost=d_inf * serve_cost(n), chinchilla_n_params=n_c,
        chinchilla_train_tokens=d_c,
        chinchilla_train_cost=train_cost_per_flop * TRAIN_FLOPS_PER_PARAM_TOKEN * n_c * d_c,
        chinchilla_inference_cost=d_inf * serve_cost(n_c))


def inference_adjusted_optimum(target_loss, inference_tokens, fit="besiroglu2024"):
    """Sardana et al. 2024 §2: the (N, D_tr) minimising lifetime FLOPs 6·N·D_tr + 2·N·D_inf
    subject to L(N, D_tr) = ℓ, found numerically over N (D_tr from the iso-loss contour).

    With D_inf = 0 it is the compute-optimal model for that loss (``compute_optimal_for_loss``);
    more demand moves it to a smaller model trained on more tokens.

    Parameters
    ----------
    target_loss : float or array
        ℓ in nats per token on the fit's scale (> E).
    inference_tokens : float or array
        Lifetime inference demand D_inf in tokens (prompt and generated; >= 0).
    fit : str or LossFit

    Returns
    -------
    LifetimeOptimum (unit ``"flops"``). The fit's validity ends near a few hundred tokens per
    parameter (Hoffmann's runs); optima beyond that are extrapolations.

    Raises
    ------
    ValueError
        If ℓ <= E (unreachable) or D_inf < 0, or the lifetime cost overflows a double (a demand
        of 1e308 tokens).
    """
    return _lifetime(target_loss, inference_tokens, fit, 1.0,
                     lambda n: INFERENCE_FLOPS_PER_PARAM_TOKEN * n, "flops")


def inference_adjusted_optimum_usd(target_loss, inference_tokens, train_usd_per_flop,
                                   serve_usd_per_token, fit="besiroglu2024"):
    """Sardana et al. 2024 §4 in dollars: minimise c_tr·6·N·D_tr + D_inf·s(N) at L(N, D_tr) = ℓ.

    Parameters
    ----------
    target_loss, inference_tokens, fit
        As ``inference_adjusted_optimum``.
    train_usd_per_flop : float
        Training price of one model FLOP, price per GPU-hour / (3600 · peak · MFU)
        (``train_usd_per_flop``; > 0).
    serve_usd_per_token : callable
        s(N): USD per served token (input and output blended) for a model of N parameters,
        vectorised over N and non-decreasing in N (e.g. ``serving_cost_per_token``).

    Returns
    -------
    LifetimeOptimum (unit ``"usd"``).

    Raises
    ------
    ValueError
        As ``inference_adjusted_optimum``; if the price is not positive or ``serve_usd_per_token``
        is not callable or returns negative or non-finite costs.
    """
    c = as_scalar(train_usd_per_flop, "train_usd_per_flop", positive=True)
    if not callable(serve_usd_per_token):
        raise ValueError(f"serve_usd_per_token={serve_usd_per_token!r} must be a callable of "
                         "n_params returning USD per served token")

    def serve(n):
        try:
            s = np.asarray(serve_usd_per_token(n), dtype=float)
        except (TypeError, ValueError) as e:
            raise ValueError(f"serve_usd_per_token failed on n_params arrays: {e}") from None
        if not np.all(np.isfinite(s)) or np.any(s < 0):
            raise ValueError("serve_usd_per_token must return finite costs >= 0, got "
                             f"{s.ravel()[:3]}")
        return s

    probe = serve(np.geomspace(1e6, 1e13, 29))
    if np.any(np.diff(probe) < -1e-12 * np.max(probe)):
        raise ValueError("serve_usd_per_token must not fall as n_params grows (a bigger model "
                         "cannot be cheaper to serve per token); the search assumes it")

    return _lifetime(target_loss, inference_tokens, fit, c, serve, "usd")


def optimum_across_engine_gap(target_loss, inference_tokens, train_usd_per_flop,
                              serve_usd_per_token, gaps, fit="besiroglu2024") -> pd.DataFrame:
    """The dollar optimum (``inference_adjusted_optimum_usd``) when serving costs ``g`` times the
    roofline price, for each engine gap ``g`` in ``gaps``: s_g(N) = g · s(N).

    A roofline serving price is a lower bound on cost (an engine is slower than the roofline by
    a measured factor, notebook 05); a larger g weighs serving more against training, so the
    optimum moves to a smaller model trained on more tokens. Each row also gives the FLOP
    optimum (``inference_adjusted_optimum``) and says on which side of it the dollar optimum
    falls.

    Returns
    -------
    DataFrame, one row per gap: ``engine_gap``, ``n_params``, ``train_tokens``,
    ``tokens_per_param``, ``total_usd``, ``flop_optimum_n_params``, ``vs_flop_optimum``
    ("larger" / "smaller" / "equal", within 1%).
    """
    g = np.atleast_1d(as_array(gaps, "gaps", positive=True))
    if not callable(serve_usd_per_token):
        raise ValueError(f"serve_usd_per_token={serve_usd_per_token!r} must be a callable of "
                         "n_params returning USD per served token")
    flop = inference_adjusted_optimum(target_loss, inference_tokens, fit)
    rows = []
    for gap in g:
        o = inference_adjusted_optimum_usd(target_loss, inference_tokens, train_usd_per_flop,
                                           lambda n, k=float(gap): k * serve_usd_per_token(n),
                                           fit)
        r = o.n_params / flop.n_params
        rows.append({"engine_gap": float(gap), "n_params": o.n_params,
                     "train_tokens": o.train_tokens, "tokens_per_param": o.tokens_per_param,
                     "total_usd": o.total_cost, "flop_optimum_n_params": flop.n_params,
                     "vs_flop_optimum": "equal" if abs(r - 1) <= 0.01 else
                     "larger" if r > 1 else "smaller"})
    return pd.DataFrame(rows)


def train_usd_per_flop(accelerator, mfu, price_usd_per_gpu_hour, dtype: str = "bf16",
                       model=None, seq_len=None) -> float:
    """USD per training FLOP counted as 6·N·D (the unit the loss fits and this module use).

    Without ``model``: c = price / 3600 / (peak FLOP/s × MFU), i.e. as if the MFU were on the
    6ND basis. With ``model`` (and ``seq_len``, default the model's): the workbook's MFU basis
    (``compute.MFU_METHOD``, attention over the full matrix, the count ``compute.gpu_hours``
    and notebook 01 use), so one 6ND FLOP costs

        c = price / 3600 / (peak × MFU) × F(model, seq_len) / (6·N_active),

    where F is ``compute.model_flops_per_token``. Then c·6·N·D equals notebook 01's compute
    cost of the same run. For other model sizes at the same shape ratio the factor is an
    approximation (the attention share F/6N − 1 grows with s/d_model). Conventions:
    dense peak of ``dtype``, MFU without recomputation.
    """
    c = float(compute_cost_usd(gpu_hours(1.0, accelerator, mfu, dtype), price_usd_per_gpu_hour))
    if model is None:
        if seq_len is not None:
            raise ValueError(f"seq_len={seq_len!r} needs model (the 6ND-to-model-FLOPs factor "
                             "depends on its shape)")
        return c
    return c * model_flops_per_token_ratio(model, seq_len)


def model_flops_per_token_ratio(model, seq_len=None) -> float:
    """F / (6·N_active): the workbook's model FLOPs per token (``compute.model_flops_per_token``,
    full attention matrix) over the 6N count the loss fits use; > 1 by the attention and
    LM-head terms (Narayanan et al. 2021 App.; Kaplan et al. 2020 Table 1)."""
    m = as_model(model, "model")
    return float(model_flops_per_token(m, seq_len)) / (6.0 * m.n_active_params)


def serving_cost_per_token(usd_per_m_output_tokens, usd_per_m_input_tokens, output_fraction,
                           reference_params):
    """s(N): USD per served token for a model of N parameters, from prices measured (or
    modelled) for one reference size, scaled in proportion to N.

    s(N) = (f·p_out + (1 − f)·p_in) / 1e6 · N / N_ref.

    The proportionality is the memory-bound decode model at a fixed batch and hardware: each
    decode step reads all weights once, so time per generated token grows with N (prefill is
    compute-bound, 2·N FLOPs per token, also ∝ N). KV-cache traffic, which grows with context
    rather than N, is left out, so the scaling is approximate; the prices themselves come from
    the serving model (notebook 05) or a measurement and are the caller's to source.

    Returns
    -------
    callable N → USD per token.
    """
    p_out = as_scalar(usd_per_m_output_tokens, "usd_per_m_output_tokens", nonnegative=True)
    p_in = as_scalar(usd_per_m_input_tokens, "usd_per_m_input_tokens", nonnegative=True)
    frac = as_scalar(output_fraction, "output_fraction", nonnegative=True, upper=1.0)
    n_ref = as_scalar(reference_params, "reference_params", positive=True)
    blended = (frac * p_out + (1.0 - frac) * p_in) / 1e6

    def s(n):
        return blended * np.asarray(n, dtype=float) / n_ref

    return s


def expected_engine_gap(ref, prompt_tokens: int, output_tokens: int) -> float:
    """The engine fit's expected serving price over the roofline's for a request of P tokens in
    and R out, on the blend ``serving_cost_per_token`` prices (f = R ÷ (P + R))::

        g = (f·e_out + (1 − f)·e_in) ÷ (f·r_out + (1 − f)·r_in)

    with e and r the expected and roofline USD per M tokens of ``ref`` (an
    ``inference.ServingCost``: ``expected_usd_per_m_*``, ``usd_per_m_*``). The output tokens'
    ratio alone understates it where prefill runs further below its roofline than decode (an
    economist's trial: 8B at 1,000 in / 250 out, 1.19× on output, 1.84× on input, 1.54×
    blended, where notebook 06 weighed the blend at 1.19×).

    Raises
    ------
    ValueError
        A token count below 1, or a roofline blend of 0.
    """
    n_in = as_scalar(prompt_tokens, "prompt_tokens", positive=True)
    n_out = as_scalar(output_tokens, "output_tokens", positive=True)
    f = n_out / (n_in + n_out)
    roof = f * ref.usd_per_m_output + (1.0 - f) * ref.usd_per_m_input
    if not roof > 0:
        raise ValueError(f"ref: its roofline blend, {roof!r} USD per M tokens, must be > 0")
    return float((f * ref.expected_usd_per_m_output + (1.0 - f) * ref.expected_usd_per_m_input)
                 / roof)


def reference_serving_cost(model, accelerator, price_usd_per_gpu_hour, prompt_tokens: int,
                           output_tokens: int, *, tp: int = 0, batch: int = 0,
                           weight_dtypes=("bf16",), kv_dtype: str = "bf16",
                           occupancy: float = 1.0, max_tpot_s=None):
    """The serving cost of one model with the scenario's serving set-up (notebook 05's keys
    ``serve_*`` and ``inference_prompt_tokens`` / ``inference_output_tokens``), from
    ``llmcost.inference``: ``serving_cost`` at ``tp``, or ``choose_serving_tp`` (the cheapest
    tensor-parallel size per token) when ``tp`` is 0; ``batch`` 0 is the largest that fits.

    ``weight_dtypes`` are tried in order and the first that fits is used (pass
    ``("bf16", "fp8")`` to fall back to FP8 for a model whose BF16 weights do not fit one node,
    such as 405B on 8 H100s).

    Returns
    -------
    ``inference.ServingCost``; its ``usd_per_m_blended`` weighs input and output tokens as
    P : R.

    Raises
    ------
    ValueError
        From ``llmcost.inference`` (naming the argument) for bad input, or when the weights fit
        at none of the precisions (the last reason is given).
    """
    if isinstance(weight_dtypes, str) or not weight_dtypes or \
            not all(isinstance(d, str) for d in weight_dtypes):
        raise ValueError(f"weight_dtypes={weight_dtypes!r} must be a non-empty sequence of "
                         "dtype names, e.g. ('bf16', 'fp8')")
    tp = int(as_scalar(tp, "tp", nonnegative=True, integer=True))
    batch = int(as_scalar(batch, "batch", nonnegative=True, integer=True))
    kw = dict(prompt_tokens=prompt_tokens, output_tokens=output_tokens, batch=batch or None,
              kv_dtype=kv_dtype, occupancy=occupancy, max_tpot_s=max_tpot_s)
    why = None
    for dtype in weight_dtypes:
        try:
            if tp:
                return serving_cost(model, accelerator, price_usd_per_gpu_hour, tp=tp,
                                    weight_dtype=dtype, **kw)
            return choose_serving_tp(model, accelerator, price_usd_per_gpu_hour,
                                     weight_dtype=dtype, **kw)
        except ValueError as e:
            why = e
    raise DoesNotFit(f"weight_dtypes={tuple(weight_dtypes)!r}: the model cannot be served at any "
                     f"of these precisions: {why}")


def serving_cost_by_size(models, accelerator, price_usd_per_gpu_hour, prompt_tokens: int,
                         output_tokens: int, **serving) -> tuple:
    """``reference_serving_cost`` of each of ``models`` (names or specs; ``serving``: its
    keywords), as one table of USD per M blended tokens and per 1e9 parameters, the
    "cost ∝ N" check of notebook 06. A model the set-up cannot hold on one scale-up domain of
    ``accelerator`` at any of ``weight_dtypes`` is left out of the table and named.

    Returns
    -------
    (DataFrame: ``model``, ``N``, ``TP``, ``batch``, ``weights``, ``USD per M tokens``,
    ``USD per M tokens per 1e9 params``; list of the names left out). A table with no row says
    why in ``attrs['note']``.

    Raises
    ------
    ValueError
        An unknown accelerator or model, a price that is not a finite number > 0, or token
        counts that are not whole numbers >= 1 (checked before any model is tried, so a bad
        input is not read as a model that does not fit).
    """
    as_accelerator(accelerator)
    as_scalar(price_usd_per_gpu_hour, "price_usd_per_gpu_hour", positive=True)
    as_count(prompt_tokens, "prompt_tokens")
    as_count(output_tokens, "output_tokens")
    rows, left_out = [], []
    for model in models:
        m = as_model(model)
        try:
            c = reference_serving_cost(m, accelerator, price_usd_per_gpu_hour, prompt_tokens,
                                       output_tokens, **serving)
        except DoesNotFit:
            left_out.append(m.name)
            continue
        rows.append({"model": m.name, "N": m.n_params, "TP": c.tp, "batch": c.batch,
                     "weights": c.notes.split(",")[0], "USD per M tokens": c.usd_per_m_blended,
                     "USD per M tokens per 1e9 params": c.usd_per_m_blended / m.n_params * 1e9})
    table = pd.DataFrame(rows)
    if not rows:
        table.attrs["note"] = (f"no model of {', '.join(left_out) or 'the list'} fits the set-up "
                               "on one scale-up domain" if left_out else "no models given")
    return table, left_out


def cost_per_param_by_precision(family, base_dtype: str, other=None) -> dict:
    """How constant is the serving cost per token per parameter across ``family``
    (``serving_cost_by_size``'s table), precision by precision, and what another precision
    does to the same models; c_i = ``USD per M tokens per 1e9 params``:

        spread(p) = max_i c_i / min_i c_i − 1     over the models ``family`` serves in weights p
        change_i  = 1 − c_i(other) / c_i(base_dtype)   for each model served in both
        change    = median_i change_i

    ``other``: the same sizes served in another precision (``serving_cost_by_size`` with that
    ``weight_dtypes`` alone; an empty table where none can be served in it, e.g. under a latency
    target only a narrower precision meets), or None. ``change`` compares each model with itself (> 0: the
    other precision cuts its cost per token), None when no model is in ``family`` in
    ``base_dtype`` and in ``other``: ``family``'s own rows in another precision are the sizes
    whose ``base_dtype`` weights do not fit, so comparing them with the others would mix size
    with precision. The median, not the mean: one size can move far more than the others (a
    trial's 405B in BF16 under a 30 ms target, +4,580% beside +35% and +113%, made a mean of
    +1,577% that described none of them).

    Returns a dict: ``spreads`` (a list of {``weights``, ``models``, ``spread``}, the spread None
    for a single model), ``base``, ``other`` (``other``'s precision or None), ``compared`` (the
    models in both), ``changes`` (``change_i`` of each, in that order), ``change``."""
    need = {"model", "weights", "USD per M tokens per 1e9 params"}
    for name, t in (("family", family), ("other", other)):
        if (t is not None or name == "family") and not (
                isinstance(t, pd.DataFrame)
                and (need <= set(t.columns) or (name == "other" and t.empty))):
            raise ValueError(f"{name}={t!r:.80} must be serving_cost_by_size's table (columns "
                             f"{sorted(need)})")
    if not isinstance(base_dtype, str) or not base_dtype:
        raise ValueError(f"base_dtype={base_dtype!r} must be a weight precision name")
    dtype = family["weights"].str.split().str[0]
    c = family["USD per M tokens per 1e9 params"].astype(float)
    spreads = [{"weights": w, "models": list(family.loc[dtype == w, "model"]),
                "spread": (float(c[dtype == w].max() / c[dtype == w].min() - 1)
                           if (dtype == w).sum() > 1 else None)}
               for w in dict.fromkeys(dtype)]
    out = {"spreads": spreads, "base": base_dtype, "other": None, "compared": [],
           "changes": [], "change": None}
    if other is None or not len(other):
        return out
    o_dtype = other["weights"].str.split().str[0]
    base = dict(zip(family.loc[dtype == base_dtype, "model"], c[dtype == base_dtype]))
    mine = {m: float(v) for m, v, d in zip(other["model"], other[
        "USD per M tokens per 1e9 params"], o_dtype) if d != base_dtype and m in base}
    if mine:
        changes = [float(1 - mine[m] / base[m]) for m in mine]
        out.update(other=str(o_dtype.iloc[0]), compared=list(mine), changes=changes,
                   change=float(np.median(changes)))
    return out


def same_loss_options(target_loss, n_params, inference_tokens, fit="besiroglu2024",
                      train_usd_per_flop=None, serve_usd_per_token=None):
    """Lifetime cost of several model sizes that all reach the same loss.

    For each N: the tokens it needs (``tokens_for_loss``), tokens per parameter, training and
    inference FLOPs (6·N·D, 2·N·D_inf) and, when prices are given, dollars.

    Returns
    -------
    DataFrame, one row per N (rows for models too small to reach the loss are dropped, with
    their N listed in ``.attrs["unreachable"]``).
    """
    f = get_fit(fit)
    n = np.atleast_1d(as_array(n_params, "n_params", positive=True))
    d_inf = as_scalar(inference_tokens, "inference_tokens", nonnegative=True)
    d = np.asarray(tokens_for_loss(target_loss, n, f))
    ok = np.isfinite(d)
    n, d = n[ok], d[ok]
    df = pd.DataFrame({"n_params": n, "train_tokens": d, "tokens_per_param": d / n,
                       "train_flops": TRAIN_FLOPS_PER_PARAM_TOKEN * n * d,
                       "inference_flops": INFERENCE_FLOPS_PER_PARAM_TOKEN * n * d_inf})
    df["total_flops"] = df.train_flops + df.inference_flops
    if (train_usd_per_flop is None) != (serve_usd_per_token is None):
        raise ValueError("train_usd_per_flop and serve_usd_per_token must be given together "
                         "(both for dollar columns, neither for FLOPs only)")
    if train_usd_per_flop is not None:
        c = as_scalar(train_usd_per_flop, "train_usd_per_flop", positive=True)
        if not callable(serve_usd_per_token):
            raise ValueError(f"serve_usd_per_token={serve_usd_per_token!r} must be a callable "
                             "of n_params returning USD per served token")
        df["train_usd"] = df.train_flops * c
        df["inference_usd"] = d_inf * np.asarray(serve_usd_per_token(n), dtype=float)
        df["total_usd"] = df.train_usd + df.inference_usd
    df.attrs["unreachable"] = list(np.atleast_1d(as_array(n_params, "n_params"))[~ok])
    return df


def replace_with_smaller(n_large, n_small, inference_tokens, fit="sardana2024"):
    """Sardana et al. 2024 Fig. 1: take the compute-optimal model of ``n_large`` parameters,
    find the tokens a ``n_small`` model needs for the same loss, and compare lifetime FLOPs.

    Returns
    -------
    dict: ``loss``, ``large_tokens``, ``small_tokens``, ``large_total_flops``,
    ``small_total_flops``, ``saving_flops``, ``saving_fraction``. With the ``sardana2024``
    constants, 13B → 7B at 2e12 inference tokens saves 1.69e22 FLOPs (17.4%; paper: 1.7e22,
    17%).

    Raises
    ------
    ValueError
        If ``n_small`` cannot reach the large model's loss, is not below ``n_large`` (a trial
        swapped the two and read a saving of -64% without a word), or an input is not positive.
    """
    f = get_fit(fit)
    nl = as_scalar(n_large, "n_large", positive=True)
    ns = as_scalar(n_small, "n_small", positive=True)
    if not ns < nl:
        raise ValueError(f"n_small={ns:.3g} must be below n_large={nl:.3g}: the smaller model "
                         "replaces the compute-optimal larger one")
    d_inf = as_scalar(inference_tokens, "inference_tokens", nonnegative=True)
    # compute-optimal D for N = nl: invert N*(C) = G·(C/6)^a  ⇒  C/6 = (N/G)^(1/a)
    c6 = (nl / f.G) ** (1.0 / f.a)
    dl = c6 ** f.b / f.G
    ell = float(loss(nl, dl, f))
    ds = float(tokens_for_loss(ell, ns, f))
    if not math.isfinite(ds):
        raise ValueError(f"n_small={ns:.3g} cannot reach the loss {ell:.4f} of the "
                         f"compute-optimal {nl:.3g}-parameter model under {f.name}")
    tl = TRAIN_FLOPS_PER_PARAM_TOKEN * nl * dl + INFERENCE_FLOPS_PER_PARAM_TOKEN * nl * d_inf
    ts = TRAIN_FLOPS_PER_PARAM_TOKEN * ns * ds + INFERENCE_FLOPS_PER_PARAM_TOKEN * ns * d_inf
    return {"loss": ell, "large_tokens": dl, "small_tokens": ds, "large_total_flops": tl,
            "small_total_flops": ts, "saving_flops": tl - ts, "saving_fraction": 1 - ts / tl}


# ------------------------------------------------------------------------- real models
def _is_estimate(r) -> bool:
    notes = r.notes if isinstance(r.notes, str) else ""
    return "-est-" in str(r.run_id) or notes.lstrip().lower().startswith("estimate, not a run")


def frontier_models():
    """Real models by training tokens per parameter, from the catalogues.

    Rows: every ``data/models.csv`` model with published training tokens, plus
    ``data/published_runs.csv`` runs with tokens that are not catalogue models (OLMo, MPT,
    Pythia, ...). Rows that are estimates, not runs (a run id containing ``-est-`` or notes
    starting "Estimate, not a run", e.g. Narayanan et al. 2021's projected GPT-3 and 1T
    training times), are skipped. N is total parameters (embeddings included, as in Chinchilla); MoE models
    also get active parameters, and their compute is 6·N_active·D.

    Returns
    -------
    DataFrame: ``name``, ``n_params``, ``n_active_params``, ``train_tokens``,
    ``tokens_per_param`` (total N; active N for MoE), ``compute_flops``, ``moe``, ``source``.
    """

    rows, seen = [], set()
    for name in list_models()["name"]:
        m = load_model(name)
        if not m.train_tokens:
            continue
        seen.add(name)
        n, na = float(m.n_params), float(m.n_active_params)
        rows.append({"name": name, "n_params": n, "n_active_params": na,
                     "train_tokens": float(m.train_tokens), "moe": bool(m.is_moe),
                     "source": m.source})
    runs = load_published_runs()
    for _, r in runs.iterrows():
        if r.catalog_model in seen or pd.isna(r.train_tokens) or pd.isna(r.params_total):
            continue
        if _is_estimate(r):  # a paper's projection of a run, not a trained model
            continue
        n = float(r.params_total)
        na = float(r.params_active) if not pd.isna(r.params_active) else n
        rows.append({"name": r.run_id, "n_params": n, "n_active_params": na,
                     "train_tokens": float(r.train_tokens), "moe": na < n, "source": r.source})
    df = pd.DataFrame(rows)
    basis = np.where(df.moe, df.n_active_params, df.n_params)
    df["tokens_per_param"] = df.train_tokens / basis
    df["compute_flops"] = TRAIN_FLOPS_PER_PARAM_TOKEN * df.n_active_params * df.train_tokens
    return df[["name", "n_params", "n_active_params", "train_tokens", "tokens_per_param",
               "compute_flops", "moe", "source"]].sort_values("compute_flops",
                                                               ignore_index=True)


__all__ = [
    "RULE_OF_THUMB_TOKENS_PER_PARAM", "LossFit", "LOSS_FITS", "get_fit", "loss",
    "kaplan_loss_nd", "min_params_for_loss", "tokens_for_loss", "compute_optimal",
    "tokens_per_parameter", "compute_optimal_for_loss", "compute_optimal_numerical",
    "isoflop_curve", "allocation_exponents", "run_efficiency", "compute_optimal_band",
    "effective_tokens", "effective_params", "data_constrained_loss", "data_constrained_optimum",
    "LifetimeOptimum", "inference_adjusted_optimum", "inference_adjusted_optimum_usd",
    "train_usd_per_flop", "serving_cost_per_token", "reference_serving_cost", "same_loss_options",
    "replace_with_smaller",
    "frontier_models",
]
