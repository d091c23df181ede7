"""Batch size: what a bigger batch buys (fewer steps), what it costs (more tokens), and what the
hardware needs (enough tokens per GPU to stay busy and compute-bound).

The optimisation side
---------------------
* **McCandlish et al. 2018** (*An Empirical Model of Large-Batch Training*, arXiv:1812.06162, §2):
  to reach a fixed loss, a run at batch B needs

      S = S_min · (1 + B_noise / B)   optimizer steps,   E = E_min · (1 + B / B_noise)   tokens,

  so (S/S_min − 1)·(E/E_min − 1) = 1 and the *critical batch size* B_crit = E_min / S_min. Below
  B_crit a bigger batch cuts steps (wall-clock) at almost no extra tokens (compute); above it,
  every doubling of the batch buys little time and wastes tokens. At B = B_crit the run needs
  2·S_min steps and 2·E_min tokens. McCandlish et al. find B_crit ≈ the gradient noise scale
  B_noise (§2), which is why the workbook uses the two names for one number.
* **Kaplan et al. 2020** (*Scaling Laws for Neural Language Models*, arXiv:2001.08361, §5.1):
  B_crit depends on the loss reached, not on the model: B_crit(L) ≈ B*/L^(1/α_B) with
  B* ≈ 2·10^8 tokens and α_B ≈ 0.21 (Eq. 5.3; L in nats per token on WebText2 with GPT-2's BPE);
  and the loss after S_min steps of a model with N non-embedding parameters follows
  L(N, S_min) = (N_c/N)^α_N + (S_c/S_min)^α_S with α_N = 0.077, α_S = 0.76, N_c = 6.5·10^13,
  S_c = 2.1·10^3 (Eq. 5.6, Table 3). The first term is the fit's irreducible loss for a model of
  that size: no number of steps gets below it.
* **DeepSeek LLM** (DeepSeek-AI 2024, arXiv:2401.02954, §3.1 Eq. 1, §3.2 Eq. 2 and 4): fitted
  near-optimal batch and learning rate as functions of compute C = M·D, with M the non-embedding
  FLOPs per token including attention.

Learning-rate rules when the batch changes: linear (Goyal et al. 2017, arXiv:1706.02677, §2.1,
with gradual warm-up §2.2; derived for SGD) and square root for Adam/RMSprop (Malladi et al. 2022,
arXiv:2205.10287). Which rule holds depends on the optimizer, the model and the objective, and
both break down above the critical batch size.

The hardware side
-----------------
* Arithmetic intensity of a training matmul against the accelerator's roofline ridge point
  (Williams, Waterman, Patterson 2009): a GPU that feeds too few tokens per micro-batch to a
  weight matrix is memory-bound.
* Gradient accumulation against data-parallel communication: the gradient all-reduce happens once
  per optimizer step, so more tokens per GPU per step amortise it.
* Activation memory against micro-batch: ``activation_bytes_per_gpu``, the memory model's
  per-layer count (``memory.activation_bytes_per_layer``; Korthikanti et al. 2022,
  arXiv:2205.05198, Table 2) for one micro-batch size.

Conventions: batches and B_noise are in **tokens** per optimizer step; losses in **nats per token**;
training FLOPs by ``llmcost.compute`` (6·N_active·D unless a function says otherwise); MFU against
the dense peak of the training dtype and assumed not to change with the batch unless a function
says so. Every function broadcasts over numpy arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.catalog import as_accelerator, as_model, load_model, load_published_runs
from ..core.hardware import Accelerator, Cluster
from ..core.model import ModelSpec
from ..core.moved import moved_names
from ..core.units import (
    BYTES_PER_DTYPE,
    SECONDS_PER_DAY,
    SECONDS_PER_HOUR,
    as_array, as_flag, as_scalar,
    finite_result,
    fmt_count,
    noun,
    scalar_or_array,
)
from .comm import collective_time, placement
from .compute import (
    MFU_CAUSAL,
    MFU_METHOD,
    compute_cost_usd,
    gpu_hours,
    model_flops_per_token,
    training_flops,
)
from .memory import model_activation_bytes
from .parallel import ParallelPlan, bubble_fraction

# ------------------------------------------------------------------------------------ constants
#: Kaplan et al. 2020 Eq. 5.3: B_crit(L) ≈ B*/L^(1/α_B). B* in tokens, L in nats (WebText2, GPT-2
#: BPE). Confirmed against a full-text copy of the paper (§5.1) and an independent summary.
KAPLAN_B_STAR_TOKENS = 2e8
KAPLAN_ALPHA_B = 0.21
#: Kaplan et al. 2020 Table 3, fit of L(N, S_min) (Eq. 5.6); N = non-embedding parameters.
KAPLAN_ALPHA_N = 0.077
KAPLAN_N_C = 6.5e13
KAPLAN_ALPHA_S = 0.76
KAPLAN_S_C = 2.1e3

#: DeepSeek LLM (arXiv:2401.02954) Eq. 1: η_opt = 0.3118·C^−0.1250, B_opt = 0.2920·C^0.3271
#: (B in tokens), and Eq. 4: M_opt = 0.1715·C^0.5243, D_opt = 5.8316·C^0.4757. Fitted on their
#: data with AdamW (β1 0.9, β2 0.95) and a multi-step schedule, on budgets 1e17–2e19 FLOPs.
DEEPSEEK_LR = (0.3118, -0.1250)
DEEPSEEK_BATCH = (0.2920, 0.3271)
DEEPSEEK_M_OPT = (0.1715, 0.5243)
DEEPSEEK_D_OPT = (5.8316, 0.4757)
#: DeepSeek LLM Table 2 (7B, 67B pre-training; batch in sequences of 4096 tokens, 2T tokens).
DEEPSEEK_PUBLISHED = {
    "DeepSeek LLM 7B": {"n_layers": 30, "d_model": 4096, "seq_len": 4096, "train_tokens": 2e12,
                        "batch_sequences": 2304, "lr": 4.2e-4},
    "DeepSeek LLM 67B": {"n_layers": 95, "d_model": 8192, "seq_len": 4096, "train_tokens": 2e12,
                         "batch_sequences": 4608, "lr": 3.2e-4},
}

#: Goyal et al. 2017 §5.1: η = 0.1 · batch / 256 for ResNet-50 with SGD momentum (§5.2: 3.2 at
#: a batch of 8k); the linear scaling rule itself is §2.1.
GOYAL_BASE_LR = 0.1
GOYAL_BASE_BATCH = 256

#: Korthikanti et al. 2022 Table 2: activation bytes per layer = s·b·h·(34 + 5·a·s/h) with 16-bit
#: activations, MHA and a 4h GeLU MLP; FlashAttention (or selective recomputation) removes the
#: 5·a·s/h term; full recomputation keeps only the layer input, 2·s·b·h.


# ------------------------------------------------------------------ McCandlish trade-off
def steps_to_target(batch_tokens, s_min, b_noise_tokens):
    """Optimizer steps to reach a target loss at batch ``B``: S = S_min·(1 + B_noise/B).

    McCandlish et al. 2018, §2; Kaplan et al. 2020 Eq. 5.4.

    Parameters
    ----------
    batch_tokens : float or array
        Global batch B, tokens per optimizer step (> 0).
    s_min : float or array
        Minimum steps, reached in the limit B ≫ B_noise (> 0).
    b_noise_tokens : float or array
        Gradient noise scale / critical batch, tokens (> 0).

    Returns
    -------
    float or ndarray: steps, broadcast over the inputs.

    Raises
    ------
    ValueError
        If an input is not positive and finite, or the steps overflow a double (a batch of
        5e-324 tokens).
    """
    b = as_array(batch_tokens, "batch_tokens", positive=True)
    s = as_array(s_min, "s_min", positive=True)
    bn = as_array(b_noise_tokens, "b_noise_tokens", positive=True)
    with np.errstate(over="ignore"):
        steps = s * (1.0 + bn / b)
    return scalar_or_array(finite_result(steps, "S = S_min·(1 + B_noise/B)",
                                         "batch_tokens, s_min, b_noise_tokens"))


def tokens_to_target(batch_tokens, e_min_tokens, b_noise_tokens):
    """Tokens processed to reach a target loss at batch ``B``: E = E_min·(1 + B/B_noise).

    McCandlish et al. 2018, §2; Kaplan et al. 2020 Eq. 5.5 (C_min = C/(1 + B/B_crit)).

    Parameters
    ----------
    batch_tokens : float or array
        Global batch B, tokens per optimizer step (> 0).
    e_min_tokens : float or array
        Minimum tokens, reached in the limit B ≪ B_noise (> 0).
    b_noise_tokens : float or array
        Gradient noise scale / critical batch, tokens (> 0).

    Returns
    -------
    float or ndarray: tokens.

    Raises
    ------
    ValueError
        If an input is not positive and finite, or the tokens overflow a double.
    """
    b = as_array(batch_tokens, "batch_tokens", positive=True)
    e = as_array(e_min_tokens, "e_min_tokens", positive=True)
    bn = as_array(b_noise_tokens, "b_noise_tokens", positive=True)
    with np.errstate(over="ignore"):
        tokens = e * (1.0 + b / bn)
    return scalar_or_array(finite_result(tokens, "E = E_min·(1 + B/B_noise)",
                                         "batch_tokens, e_min_tokens, b_noise_tokens"))


def critical_batch_size(e_min_tokens, s_min):
    """B_crit = E_min / S_min (McCandlish et al. 2018 §2; Kaplan et al. 2020 Eq. 5.2).

    At B = B_crit a run needs exactly 2·S_min steps and 2·E_min tokens: the knee of the trade-off.

    Returns
    -------
    float or ndarray: tokens per step.
    """
    e = as_array(e_min_tokens, "e_min_tokens", positive=True)
    s = as_array(s_min, "s_min", positive=True)
    with np.errstate(over="ignore"):  # an overflow is reported by finite_result
        return finite_result(scalar_or_array(e / s), "the critical batch", "e_min_tokens ÷ s_min")


def kaplan_critical_batch(loss_nats):
    """Kaplan et al. 2020 Eq. 5.3: B_crit(L) ≈ B*/L^(1/α_B), B* = 2e8 tokens, α_B = 0.21.

    The critical batch depends on the loss reached, not on model size; it roughly doubles for
    every 13% fall in loss (Kaplan Fig. 10). The constants are for Kaplan's WebText2 data and
    GPT-2 tokenizer: another dataset or tokenizer shifts the loss scale, so treat the result as an
    order-of-magnitude estimate, or measure the noise scale of your own run.

    Parameters
    ----------
    loss_nats : float or array
        Cross-entropy loss in nats per token (> 0).

    Returns
    -------
    float or ndarray: critical batch size in tokens. L = 3.0 nats gives 1.07e6 tokens.
    """
    loss = as_array(loss_nats, "loss_nats", positive=True)
    with np.errstate(over="ignore", divide="ignore"):  # reported by finite_result
        return finite_result(scalar_or_array(KAPLAN_B_STAR_TOKENS / loss ** (1.0 / KAPLAN_ALPHA_B)),
                             "the critical batch", "loss_nats")


def kaplan_loss_floor(n_params):
    """The irreducible term (N_c/N)^α_N of Kaplan et al. 2020's L(N, S_min) fit (Eq. 5.6, Table 3).

    The loss a model of N non-embedding parameters approaches as S_min → ∞; no batch or number of
    steps gets below it under that fit.

    Parameters
    ----------
    n_params : float or array
        Non-embedding parameters N (Kaplan's convention; ``ModelSpec.n_nonembedding_params``).

    Returns
    -------
    float or ndarray: nats per token.
    """
    n = as_array(n_params, "n_params", positive=True)
    return scalar_or_array((KAPLAN_N_C / n) ** KAPLAN_ALPHA_N)


def kaplan_loss(n_params, s_min):
    """Kaplan et al. 2020 Eq. 5.6: L(N, S_min) = (N_c/N)^α_N + (S_c/S_min)^α_S (Table 3 constants).

    Parameters
    ----------
    n_params : float or array
        Non-embedding parameters.
    s_min : float or array
        Minimum steps (steps a run at B ≫ B_crit would take; see ``steps_to_target``).

    Returns
    -------
    float or ndarray: loss in nats per token.
    """
    s = as_array(s_min, "s_min", positive=True)
    return scalar_or_array(np.asarray(kaplan_loss_floor(n_params))
                           + (KAPLAN_S_C / s) ** KAPLAN_ALPHA_S)


def kaplan_min_steps(loss_nats, n_params):
    """S_min to reach ``loss_nats`` with N non-embedding parameters: Eq. 5.6 solved for S_min,
    S_min = S_c / (L − (N_c/N)^α_N)^(1/α_S).

    Raises
    ------
    ValueError
        If the loss is at or below the fit's irreducible term for that model size (the message
        names the loss, the floor and N).
    """
    loss = as_array(loss_nats, "loss_nats", positive=True)
    floor = np.asarray(kaplan_loss_floor(n_params))
    loss, floor = np.broadcast_arrays(loss, floor)
    bad = loss <= floor
    if np.any(bad):
        i = np.argmax(bad.ravel())
        n = np.broadcast_to(as_array(n_params, "n_params", positive=True), loss.shape).ravel()[i]
        raise ValueError(
            f"loss_nats={loss.ravel()[i]:.4g} must be above the irreducible term "
            f"(N_c/N)^alpha_N = {floor.ravel()[i]:.4g} nats of Kaplan et al. 2020's L(N, S_min) "
            f"fit for n_params={n:.3g}: a model of this size cannot reach it under that fit")
    return scalar_or_array(KAPLAN_S_C / (loss - floor) ** (1.0 / KAPLAN_ALPHA_S))


def check_planned_run(train_tokens, global_batch_tokens) -> None:
    """The rules of a planned run, else a ValueError naming the count, its first offending value
    and the rule: a batch of at least one token, and at least one optimizer step (train_tokens
    >= global_batch_tokens). Without them the steps D/B overflow (B = 5e-324 gave a NaN loss) or
    fall below one (B = 1e308: a loss of 3e227 nats). Each must be a finite number > 0 (a
    sweep found NaN, None and "3" waved through)."""
    d, b = np.broadcast_arrays(as_array(train_tokens, "train_tokens", positive=True),
                               as_array(global_batch_tokens, "global_batch_tokens",
                                        positive=True))
    if np.any(b < 1):
        raise ValueError(f"global_batch_tokens={float(b[b < 1].flat[0]):g} must be >= 1: an "
                         "optimizer step trains on at least one token")
    if np.any(d < b):
        i = np.argmax((d < b).ravel())
        raise ValueError(f"train_tokens={float(d.ravel()[i]):g} must be >= "
                         f"global_batch_tokens={float(b.ravel()[i]):g}: a run takes at least one "
                         "optimizer step")


def loss_of_planned_run(n_params, train_tokens, global_batch_tokens, b_noise_tokens=None,
                        iterations: int = 200):
    """The loss a run of ``train_tokens`` at a constant batch reaches under Kaplan et al.'s fits.

    Solves L = (N_c/N)^α_N + (S_c/S_min)^α_S with S_min = S/(1 + B_crit(L)/B) and S = D/B
    (Kaplan Eq. 5.4 and 5.6), where B_crit(L) is Eq. 5.3 or, if given, a fixed ``b_noise_tokens``.
    The right-hand side falls as L rises, so the root is unique; it is found by bisection,
    vectorised over the inputs.

    This puts a planned run on Kaplan's loss scale so that ``kaplan_critical_batch`` can be
    evaluated where the run ends. Kaplan's fits come from models up to 1.5B parameters on WebText2;
    far outside that range the loss value is an extrapolation, not a prediction of a real run's
    loss.

    Parameters
    ----------
    n_params : float or array
        Non-embedding parameters.
    train_tokens, global_batch_tokens : float or array
        Planned tokens D and batch B (tokens per step): B >= 1 (a step trains on at least one
        token) and D >= B (a run takes at least one step).
    b_noise_tokens : float or array, optional
        Noise scale to use instead of Kaplan's B_crit(L).
    iterations : int
        Bisection steps (200 halves the bracket far below float precision).

    Returns
    -------
    float or ndarray: loss in nats per token.

    Raises
    ------
    ValueError
        A count that breaks its rule, named with its value.
    """
    n = as_array(n_params, "n_params", positive=True)
    d = as_array(train_tokens, "train_tokens", positive=True)
    b = as_array(global_batch_tokens, "global_batch_tokens", positive=True)
    check_planned_run(d, b)
    iterations = int(as_scalar(iterations, "iterations", positive=True, integer=True))
    bn = None if b_noise_tokens is None else as_array(b_noise_tokens, "b_noise_tokens",
                                                      positive=True)
    steps = d / b
    floor = np.asarray(kaplan_loss_floor(n))

    def rhs(loss):
        noise = KAPLAN_B_STAR_TOKENS / loss ** (1.0 / KAPLAN_ALPHA_B) if bn is None else bn
        return floor + (KAPLAN_S_C * (1.0 + noise / b) / steps) ** KAPLAN_ALPHA_S

    lo = np.broadcast_to(floor, np.broadcast_shapes(floor.shape, steps.shape)).astype(float)
    hi = rhs(lo)  # rhs(lo) >= root because rhs falls as the loss rises
    lo, hi = np.broadcast_arrays(lo, hi)
    lo, hi = lo.copy(), hi.copy()
    for _ in range(iterations):
        mid = 0.5 * (lo + hi)
        above = rhs(mid) > mid
        lo = np.where(above, mid, lo)
        hi = np.where(above, hi, mid)
    return scalar_or_array(0.5 * (lo + hi))


def kaplan_n_params(model: ModelSpec) -> int:
    """Kaplan's N for a catalogue model: active parameters without embeddings (for a dense model,
    ``n_nonembedding_params``; for MoE, the activated ones, an approximation Kaplan did not fit)."""
    model = as_model(model)
    return int(model.n_active_params - model.n_embedding_params)


@dataclass(frozen=True)
class BatchTarget:
    """A target loss and what reaching it takes: B_noise, S_min and E_min = B_noise·S_min.

    Build it with ``batch_target``. ``steps(B)`` and ``tokens(B)`` give McCandlish's S and E.

    Attributes
    ----------
    loss_nats : float
        The target, on Kaplan's loss scale.
    n_params : float
        Kaplan's N (non-embedding, active) of the model.
    b_noise_tokens : float
        Noise scale / critical batch, tokens.
    s_min : float
        Minimum optimizer steps.
    e_min_tokens : float
        Minimum tokens (= b_noise_tokens · s_min).
    b_noise_source : str
        Where B_noise comes from ("Kaplan et al. 2020 Eq. 5.3 at the target loss" or "given").
    loss_source : str
        Where the target loss comes from.
    """

    loss_nats: float
    n_params: float
    b_noise_tokens: float
    s_min: float
    e_min_tokens: float
    b_noise_source: str
    loss_source: str

    def steps(self, batch_tokens):
        """Steps to the target at ``batch_tokens`` (see ``steps_to_target``)."""
        return steps_to_target(batch_tokens, self.s_min, self.b_noise_tokens)

    def tokens(self, batch_tokens):
        """Tokens to the target at ``batch_tokens`` (see ``tokens_to_target``)."""
        return tokens_to_target(batch_tokens, self.e_min_tokens, self.b_noise_tokens)


def batch_target(model_or_n_params, loss_nats=None, train_tokens=None, global_batch_tokens=None,
                 b_noise_tokens=None) -> BatchTarget:
    """What reaching a target loss takes, from Kaplan et al. 2020's fits (§5.1–5.2).

    * B_noise: ``b_noise_tokens`` if given (e.g. measured in a pilot run with McCandlish et al.'s
      B_simple estimator), else Kaplan's B_crit(L) = B*/L^(1/α_B) at the target, B* = 2·10⁸
      tokens, α_B = 0.21 (Eq. 5.3, ``kaplan_critical_batch``).
    * S_min: Kaplan Eq. 5.6, L = (N_c/N)^α_N + (S_c/S_min)^α_S, solved for S_min at the
      target: S_min = S_c / (L − (N_c/N)^α_N)^(1/α_S), α_N = 0.077, N_c = 6.5·10¹³,
      α_S = 0.76, S_c = 2.1·10³ (Table 3, ``kaplan_min_steps``); E_min = B_noise · S_min
      (Eq. 5.2). At a batch B the run then takes S = S_min·(1 + B_noise/B) steps and
      E = E_min·(1 + B/B_noise) tokens (McCandlish et al. 2018 §2; Kaplan Eq. 5.4).
    * The target: ``loss_nats`` if given; else the loss a planned run of ``train_tokens`` at
      ``global_batch_tokens`` reaches (``loss_of_planned_run``), so that the target is "what the
      plan achieves" and ``tokens(global_batch_tokens)`` equals ``train_tokens`` exactly.

    Parameters
    ----------
    model_or_n_params : ModelSpec or float
        A model (Kaplan's N is taken as ``kaplan_n_params(model)``) or N directly.
    loss_nats : float, optional
        Target loss in nats per token, on Kaplan's scale.
    train_tokens, global_batch_tokens : float, optional
        The planned run, used when ``loss_nats`` is None.
    b_noise_tokens : float, optional
        Noise scale in tokens (> 0).

    Returns
    -------
    BatchTarget

    Raises
    ------
    ValueError
        A non-positive input; ``loss_nats`` at or below the irreducible term of the fit for this
        model; neither a loss nor a planned run given.
    """
    if isinstance(model_or_n_params, str):  # a catalogue name, as training_flops takes one
        model_or_n_params = as_model(model_or_n_params, "model_or_n_params",
                                     needs="a batch target")
    n = kaplan_n_params(model_or_n_params) if isinstance(model_or_n_params, ModelSpec) \
        else as_scalar(model_or_n_params, "model_or_n_params", positive=True)
    if n < 1:
        raise ValueError(f"model_or_n_params={n:g} must be >= 1: a parameter count (or a "
                         "ModelSpec)")
    bn = None if b_noise_tokens is None else as_scalar(b_noise_tokens, "b_noise_tokens",
                                                            positive=True)
    if loss_nats is None:
        if train_tokens is None or global_batch_tokens is None:
            raise ValueError("loss_nats=None needs train_tokens and global_batch_tokens (the "
                             "planned run whose final loss becomes the target)")
        loss = float(loss_of_planned_run(n, train_tokens, global_batch_tokens, bn))
        if loss <= float(kaplan_loss_floor(n)):
            raise ValueError(
                f"train_tokens={float(train_tokens):g} at global_batch_tokens="
                f"{float(global_batch_tokens):g}: the planned run's loss under Kaplan et al. "
                f"2020's fit is within rounding of its irreducible term ({loss:.4g} nats for "
                f"n_params={n:.3g}), so it sets no target; plan fewer tokens or give loss_nats")
        loss_source = (f"the loss a run of {fmt_count(float(train_tokens), 3)} tokens at "
                       f"{fmt_count(float(global_batch_tokens), 3)} tokens per step reaches under "
                       "Kaplan et al. 2020 Eq. 5.3-5.6")
    else:
        loss = as_scalar(loss_nats, "loss_nats", positive=True)
        loss_source = "given"
    s_min = float(kaplan_min_steps(loss, n))
    if bn is None:
        bn = float(kaplan_critical_batch(loss))
        bn_source = "Kaplan et al. 2020 Eq. 5.3 at the target loss"
    else:
        bn_source = "given"
    return BatchTarget(loss_nats=loss, n_params=n, b_noise_tokens=bn, s_min=s_min,
                       e_min_tokens=bn * s_min, b_noise_source=bn_source, loss_source=loss_source)


# ------------------------------------------------------------------ filling the cluster
def data_parallel_degree(n_gpus, tp: int = 1, pp: int = 1) -> int:
    """Data-parallel replicas: n_gpus / (tp·pp) (context and expert parallelism not modelled).

    Raises
    ------
    ValueError
        If tp·pp does not divide n_gpus.
    """
    n = int(as_scalar(n_gpus, "n_gpus", positive=True, integer=True))
    t = int(as_scalar(tp, "tp", positive=True, integer=True))
    p = int(as_scalar(pp, "pp", positive=True, integer=True))
    if n % (t * p):
        raise ValueError(f"tp={t} × pp={p} = {t * p} must divide n_gpus={n} (every data-parallel "
                         "replica holds tp·pp GPUs)")
    return n // (t * p)


def accumulation_steps(global_batch_tokens, micro_batch_size, seq_len, dp):
    """Micro-batches each data-parallel replica runs per optimizer step:
    m = global batch sequences / (dp · micro_batch_size).

    With pipeline parallelism these are the pipeline's micro-batches; without, they are gradient
    accumulation steps. Either way the gradient is synchronised once per step.

    Parameters
    ----------
    global_batch_tokens : int or array
        Tokens per optimizer step.
    micro_batch_size : int or array
        Sequences per micro-batch per replica.
    seq_len : int
        Tokens per sequence.
    dp : int
        Data-parallel replicas.

    Returns
    -------
    int or ndarray of int.

    Raises
    ------
    ValueError
        If the global batch is not a whole number of sequences, or dp·micro_batch_size does not
        divide the sequences of the global batch.
    """
    b = as_array(global_batch_tokens, "global_batch_tokens", positive=True, integer=True)
    mbs = as_array(micro_batch_size, "micro_batch_size", positive=True, integer=True)
    s = as_array(seq_len, "seq_len", positive=True, integer=True)
    d = as_array(dp, "dp", positive=True, integer=True)
    seqs = b / s
    if np.any(seqs != np.round(seqs)):
        bad = np.broadcast_to(b, seqs.shape)[seqs != np.round(seqs)].flat[0]
        raise ValueError(f"global_batch_tokens={bad:.0f} must be a whole number of seq_len="
                         f"{float(np.max(s)):.0f}-token sequences")
    m = seqs / (d * mbs)
    if np.any(m != np.round(m)):
        i = np.argmax((m != np.round(m)).ravel())
        sq = np.broadcast_to(seqs, m.shape).ravel()[i]
        mb = np.broadcast_to(mbs, m.shape).ravel()[i]
        dd = np.broadcast_to(d, m.shape).ravel()[i]
        raise ValueError(f"micro_batch_size={mb:.0f} × dp={dd:.0f} = {mb * dd:.0f} sequences must "
                         f"divide the global batch of {sq:.0f} {noun(sq, 'sequence')} "
                         "(global_batch_tokens / "
                         "seq_len), so that every replica runs a whole number of micro-batches")
    return m.astype(np.int64) if m.ndim else int(m)


def cluster_fill_batch_tokens(n_gpus, micro_batch_size, seq_len, tp: int = 1):
    """The smallest global batch that keeps ``n_gpus`` busy: n_gpus · micro_batch_size · seq_len / tp.

    Each data-parallel replica of tp·pp GPUs needs at least pp micro-batches per step to fill its
    pipeline (1F1B), i.e. pp·micro_batch_size·seq_len tokens; with n/(tp·pp) replicas the pp
    cancels. A smaller batch leaves GPUs idle (or forces smaller micro-batches). The pipeline
    bubble itself is not modelled here (notebook 03).

    Returns
    -------
    float or ndarray: tokens per step.
    """
    n = as_array(n_gpus, "n_gpus", positive=True)
    mbs = as_array(micro_batch_size, "micro_batch_size", positive=True, integer=True)
    s = as_array(seq_len, "seq_len", positive=True)
    t = as_array(tp, "tp", positive=True, integer=True)
    return scalar_or_array(n * mbs * s / t)


def gpus_to_fill(batch_tokens, micro_batch_size, seq_len, tp: int = 1, pp: int = 1):
    """The GPUs a global batch can keep busy, rounded up to whole replicas of tp·pp GPUs:
    ceil(B / (pp · micro_batch_size · seq_len)) · tp · pp (the inverse of
    ``cluster_fill_batch_tokens``).

    Returns
    -------
    int or ndarray of int.
    """
    b = as_array(batch_tokens, "batch_tokens", positive=True)
    mbs = as_array(micro_batch_size, "micro_batch_size", positive=True, integer=True)
    s = as_array(seq_len, "seq_len", positive=True, integer=True)
    t = as_array(tp, "tp", positive=True, integer=True)
    p = as_array(pp, "pp", positive=True, integer=True)
    n = np.ceil(b / (p * mbs * s) * (1 - 1e-12)) * t * p
    return n.astype(np.int64) if n.ndim else int(n)


def busy_gpus(batch_tokens, n_gpus, micro_batch_size, seq_len, tp=1):
    """GPUs a batch can keep working: min(n, B·tp / (micro_batch_size · seq_len)), one
    micro-batch per tp GPUs (``cluster_fill_batch_tokens``; continuous, for ``batch_sweep``)."""
    return np.minimum(as_array(n_gpus, "n_gpus", positive=True, integer=True),
                      as_array(batch_tokens, "batch_tokens", positive=True)
                      * as_array(tp, "tp", positive=True, integer=True)
                      / (as_array(micro_batch_size, "micro_batch_size", positive=True,
                                  integer=True)
                         * as_array(seq_len, "seq_len", positive=True)))


def batch_grid(b_noise_tokens, seq_len, n: int = 80, below: float = 64.0,
               above: float = 16.0) -> np.ndarray:
    """Global batches for a sweep around the critical batch: ``n`` points log-spaced from
    B_noise ÷ ``below`` to B_noise × ``above``, starting no lower than one sequence (a batch is
    whole sequences; at 131,072 tokens B_noise ÷ 64 can be a quarter of one, which
    ``batch_sweep`` refuses)."""
    bn = as_scalar(b_noise_tokens, "b_noise_tokens", positive=True)
    s = as_scalar(seq_len, "seq_len", positive=True, integer=True)
    lo = max(bn / as_scalar(below, "below", positive=True), s)
    return np.geomspace(lo, max(bn * as_scalar(above, "above", positive=True), 2 * lo),
                        int(as_scalar(n, "n", positive=True, integer=True)))


def check_whole_sequence(batch_tokens: np.ndarray, seq_len) -> np.ndarray:
    """``batch_tokens``, or a ValueError when a global batch holds less than one sequence (a
    batch is whole sequences: 1,000 tokens of 4,096-token ones would be 0.24 of one, and a
    trial's ``batch_sweep`` priced it at 0.24 busy GPUs and $5.1B)."""
    s = as_scalar(seq_len, "seq_len", positive=True, integer=True)
    if np.any(batch_tokens < s):
        raise ValueError(f"batch_tokens={float(np.min(batch_tokens)):,.6g} must be at least one "
                         f"sequence, seq_len={s:,.0f} tokens")
    return batch_tokens


def _check_sweep_tp(tp, n_gpus: np.ndarray) -> None:
    """``batch_sweep``'s ``tp``, the GPUs one replica's micro-batch spreads over (a plan's
    tp·cp·pp, ``batch_analysis``): a whole number dividing every GPU count, each replica whole
    (an API trial priced tp=128 on 64 GPUs eight times cheaper than tp=1, and tp=3). The
    heads' rule is the plan's (``parallel``'s ``tp_heads``): this tp holds pipeline stages
    too."""
    t = int(as_scalar(tp, "tp", positive=True, integer=True))
    bad = n_gpus[np.asarray(n_gpus) % t != 0]
    if bad.size:
        raise ValueError(f"tp={t} must divide n_gpus={int(bad.flat[0]):,} (every data-parallel "
                         "replica holds tp GPUs)")


def batch_sweep(target: BatchTarget, batch_tokens, model: ModelSpec, accelerator: Accelerator,
                n_gpus, mfu, price_usd_per_gpu_hour, seq_len, micro_batch_size=1, tp=1,
                dtype: str = "bf16", comm_s_per_step=0.0):
    """Time, GPU-hours and cost to reach ``target`` against the global batch, on a cluster.

    For each batch B and cluster size n:

    * steps S(B) and tokens E(B) from McCandlish's model (``target.steps``, ``target.tokens``);
    * training FLOPs = ``compute.training_flops(model, E)`` (6ND, reported); compute GPU-hours =
      ``compute.gpu_hours(model FLOPs, accelerator, mfu)`` with the model FLOPs of the workbook's
      MFU basis (``compute.MFU_METHOD``: attention over the full matrix), the compute the
      tokens need;
    * GPUs that can work: busy = min(n, B·tp/(micro_batch_size·seq_len)) (see
      ``cluster_fill_batch_tokens``); wall-clock = FLOPs / (busy · peak · MFU) + S ·
      ``comm_s_per_step`` (communication not hidden behind compute, e.g. ``dp_gradient_sync``'s
      ``allreduce_s`` for a run that does not overlap it; 0 by default);
    * reserved GPU-hours = n · wall-clock (what a reservation of n GPUs pays) = compute + comm
      (busy GPUs waiting for communication) + idle (GPUs the batch is too small to use);
    * cost = reserved GPU-hours × price.

    Assumptions: MFU is the same at every batch (the roofline and communication sections show
    when it is not); busy GPU counts are continuous; no failures (notebook 07).

    Parameters
    ----------
    target : BatchTarget
    batch_tokens : float or array
        Global batch sizes, tokens per step.
    model : ModelSpec
    accelerator : Accelerator
    n_gpus : int or array
        Cluster sizes (broadcast against ``batch_tokens``).
    mfu : float
        Model FLOPs utilisation in (0, 1].
    price_usd_per_gpu_hour : float
    seq_len : int
        Training sequence length.
    micro_batch_size, tp : int
        Sequences per micro-batch; tensor-parallel degree.
    dtype : str
        Compute format of the peak.

    Returns
    -------
    DataFrame, one row per broadcast (batch, n_gpus) point: ``batch_tokens``, ``n_gpus``,
    ``batch_over_b_noise``, ``steps``, ``steps_over_s_min``, ``tokens``, ``tokens_over_e_min``,
    ``training_flops``, ``busy_gpus``, ``step_time_s``, ``wall_clock_s``, ``wall_clock_days``,
    ``compute_gpu_hours``, ``comm_gpu_hours``, ``idle_gpu_hours``, ``reserved_gpu_hours``
    (= compute + comm + idle), ``compute_cost_usd``.
    """
    if not isinstance(target, BatchTarget):
        raise ValueError(f"target={target!r} must be a BatchTarget (llmcost.batch_target(...))")
    model = as_model(model, needs="a batch sweep")
    b = check_whole_sequence(as_array(batch_tokens, "batch_tokens", positive=True), seq_len)
    b, n = np.broadcast_arrays(b, as_array(n_gpus, "n_gpus", positive=True, integer=True))
    _check_sweep_tp(tp, n)
    steps = np.asarray(target.steps(b))
    tokens = np.asarray(target.tokens(b))
    flops = np.asarray(training_flops(model, tokens))
    model_flops = np.asarray(training_flops(model, tokens, seq_len, method=MFU_METHOD,
                                            causal=MFU_CAUSAL))
    compute_hours = np.asarray(gpu_hours(model_flops, accelerator, mfu, dtype))
    busy = busy_gpus(b, n, micro_batch_size, seq_len, tp)
    comm = steps * as_array(comm_s_per_step, "comm_s_per_step", nonnegative=True)
    wall = compute_hours * SECONDS_PER_HOUR / busy + comm
    reserved = n * wall / SECONDS_PER_HOUR
    comm_hours = busy * comm / SECONDS_PER_HOUR
    return pd.DataFrame({
        "batch_tokens": b.ravel(), "n_gpus": n.ravel().astype(int),
        "batch_over_b_noise": (b / target.b_noise_tokens).ravel(),
        "steps": steps.ravel(), "steps_over_s_min": (steps / target.s_min).ravel(),
        "tokens": tokens.ravel(), "tokens_over_e_min": (tokens / target.e_min_tokens).ravel(),
        "training_flops": flops.ravel(), "busy_gpus": busy.ravel(),
        "step_time_s": (wall / steps).ravel(), "wall_clock_s": wall.ravel(),
        "wall_clock_days": (wall / SECONDS_PER_DAY).ravel(),
        "compute_gpu_hours": compute_hours.ravel(), "comm_gpu_hours": comm_hours.ravel(),
        "idle_gpu_hours": (reserved - compute_hours - comm_hours).ravel(),
        "reserved_gpu_hours": reserved.ravel(),
        "compute_cost_usd": np.asarray(compute_cost_usd(reserved, price_usd_per_gpu_hour)).ravel(),
    })


# ------------------------------------------------------------------ DeepSeek LLM fits
def deepseek_flops_per_token(n_layers, d_model, seq_len):
    """DeepSeek LLM's model scale M: non-embedding training FLOPs per token, attention included,
    vocabulary excluded: M = 72·n_layer·d_model² + 12·n_layer·d_model·l_seq (arXiv:2401.02954 §3.2,
    Eq. 2).

    The attention term 12·n_layer·d_model·l_seq counts the full s×s score matrix (it equals
    Megatron's 72·l·h²·s/(6h)). Some secondary notes record a coefficient of 6 (the causal-halved
    count); a text copy of the paper's Eq. 2 and an independent implementation of it both read 12,
    and 12 reproduces the paper's Table 3 (e.g. 8 layers, d_model 512, 4096 tokens: M = 352M), so
    12 is used here. The two differ by 4–8% of M for the 7B and 67B models.

    Returns
    -------
    float or ndarray: FLOPs per token.
    """
    n = as_array(n_layers, "n_layers", positive=True)
    d = as_array(d_model, "d_model", positive=True)
    s = as_array(seq_len, "seq_len", positive=True)
    return scalar_or_array(72.0 * n * d**2 + 12.0 * n * d * s)


def _power(c, coef_exp, name="compute_flops"):
    coef, exp = coef_exp
    return scalar_or_array(coef * as_array(c, name, positive=True) ** exp)


def deepseek_optimal_batch_tokens(compute_flops):
    """DeepSeek LLM Eq. 1: B_opt = 0.2920 · C^0.3271 tokens, C = M·D in FLOPs.

    Caveats: fitted on DeepSeek's data, tokenizer and AdamW multi-step schedule over budgets of
    1e17–2e19 FLOPs (checked at 1e20); the authors note the optimum also depends on factors other
    than C, and that near-optimal batches lie in a wide band. Far beyond 1e24 FLOPs it is an
    extrapolation.
    """
    return _power(compute_flops, DEEPSEEK_BATCH)


def deepseek_optimal_lr(compute_flops):
    """DeepSeek LLM Eq. 1: η_opt = 0.3118 · C^−0.1250 (AdamW peak learning rate); caveats as
    ``deepseek_optimal_batch_tokens``."""
    return _power(compute_flops, DEEPSEEK_LR)


def deepseek_optimal_scale(compute_flops):
    """DeepSeek LLM Eq. 4: M_opt = 0.1715·C^0.5243 FLOPs/token, D_opt = 5.8316·C^0.4757 tokens.

    Returns
    -------
    (m_opt, d_opt); m_opt·d_opt ≈ C.
    """
    return _power(compute_flops, DEEPSEEK_M_OPT), _power(compute_flops, DEEPSEEK_D_OPT)


def deepseek_hyperparameters(n_layers, d_model, seq_len, train_tokens) -> dict:
    """DeepSeek LLM's fitted batch and learning rate for one model and token budget.

    Returns
    -------
    dict: ``flops_per_token`` (M), ``compute_flops`` (C = M·D), ``batch_tokens``,
    ``batch_sequences`` (B_opt / seq_len), ``lr``.
    """
    m = deepseek_flops_per_token(n_layers, d_model, seq_len)
    c = np.asarray(m) * as_array(train_tokens, "train_tokens", positive=True)
    b = deepseek_optimal_batch_tokens(c)
    return {"flops_per_token": m, "compute_flops": scalar_or_array(c), "batch_tokens": b,
            "batch_sequences": scalar_or_array(np.asarray(b) / np.asarray(seq_len)),
            "lr": deepseek_optimal_lr(c)}


def deepseek_published_check():
    """DeepSeek LLM 7B and 67B: the fitted formulas against the hyper-parameters they used.

    Returns
    -------
    DataFrame: ``model``, ``flops_per_token``, ``compute_flops``, ``batch_sequences_fit``,
    ``batch_sequences_used``, ``batch_error``, ``lr_fit``, ``lr_used``, ``lr_error`` (relative).
    Source of the used values: DeepSeek LLM Table 2.
    """
    rows = []
    for name, p in DEEPSEEK_PUBLISHED.items():
        h = deepseek_hyperparameters(p["n_layers"], p["d_model"], p["seq_len"], p["train_tokens"])
        rows.append({"model": name, "flops_per_token": h["flops_per_token"],
                     "compute_flops": h["compute_flops"],
                     "batch_sequences_fit": h["batch_sequences"],
                     "batch_sequences_used": p["batch_sequences"],
                     "batch_error": h["batch_sequences"] / p["batch_sequences"] - 1,
                     "lr_fit": h["lr"], "lr_used": p["lr"], "lr_error": h["lr"] / p["lr"] - 1})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ learning-rate rules
def linear_scaled_lr(base_lr, batch_ratio):
    """Linear scaling rule (Goyal et al. 2017 §2.1): batch × k → learning rate × k.

    Derived and validated for SGD with momentum (ImageNet, up to 8k images per batch) together
    with a gradual warm-up (§2.2); it breaks down past the critical batch size.

    Returns
    -------
    float or ndarray.
    """
    lr = as_array(base_lr, "base_lr", positive=True)
    k = as_array(batch_ratio, "batch_ratio", positive=True)
    return scalar_or_array(lr * k)


def goyal_lr(batch_size):
    """Goyal et al. 2017's ResNet-50 reference: η = 0.1 · batch / 256 (8192 images → 3.2)."""
    return linear_scaled_lr(GOYAL_BASE_LR, as_array(batch_size, "batch_size", positive=True)
                            / GOYAL_BASE_BATCH)


def sqrt_scaled_adam(base_lr, batch_ratio, beta1: float = 0.9, beta2: float = 0.95,
                     eps: float = 1e-8) -> dict:
    """Square-root scaling rule for Adam/RMSprop (Malladi et al. 2022, arXiv:2205.10287):
    batch × κ → η × √κ, (1 − β1) × κ, (1 − β2) × κ, ε / √κ.

    The paper's abstract states that it derives a square root scaling rule for the
    hyperparameters of RMSprop and Adam from their SDE approximations; the rule's four parts as
    written here are taken from the first author's blog summary of the paper (Malladi, "How to
    Scale Hyperparameters as Batch Size Increases", 2024), a secondary source. The approximation
    holds when gradient noise dominates, i.e. below the critical batch size.

    Returns
    -------
    dict of float or ndarray: ``lr``, ``beta1``, ``beta2``, ``eps``.

    Raises
    ------
    ValueError
        If κ·(1 − β) ≥ 1 for β1 or β2: the rule would give a momentum coefficient ≤ 0, i.e. the
        batch grew past what the rule can describe.
    """
    lr = as_array(base_lr, "base_lr", positive=True)
    k = as_array(batch_ratio, "batch_ratio", positive=True)
    out = {"lr": lr * np.sqrt(k)}
    for name, beta in (("beta1", beta1), ("beta2", beta2)):
        bt = as_array(beta, name, nonnegative=True, upper=1.0, upper_inclusive=False)
        new = 1.0 - k * (1.0 - bt)
        if np.any(new <= 0):
            kk = np.broadcast_to(k, new.shape)[new <= 0].flat[0]
            raise ValueError(f"batch_ratio={kk:g} breaks the square-root rule: {name} = 1 − κ·(1 − "
                             f"{float(np.max(bt)):g}) ≤ 0; it only holds for batch_ratio < "
                             f"{1.0 / (1.0 - float(np.max(bt))):g}")
        out[name] = new
    out["eps"] = as_array(eps, "eps", positive=True) / np.sqrt(k)
    return {key: scalar_or_array(v) for key, v in out.items()}


def noise_scale_lr(base_lr, base_batch_tokens, batch_tokens, b_noise_tokens):
    """McCandlish et al. 2018 §2: ε_opt(B) = ε_max/(1 + B_noise/B), normalised so that the
    learning rate equals ``base_lr`` at ``base_batch_tokens``:
    lr(B) = base_lr · (1 + B_noise/B_base) / (1 + B_noise/B).

    Linear in B well below B_noise, flat well above it: the reason linear scaling over-shoots past
    the critical batch. Derived for SGD on a locally quadratic loss.
    """
    lr = as_array(base_lr, "base_lr", positive=True)
    b0 = as_array(base_batch_tokens, "base_batch_tokens", positive=True)
    b = as_array(batch_tokens, "batch_tokens", positive=True)
    bn = as_array(b_noise_tokens, "b_noise_tokens", positive=True)
    return scalar_or_array(lr * (1.0 + bn / b0) / (1.0 + bn / b))


def lr_scaling_table(base_lr, base_batch_tokens, batch_tokens, b_noise_tokens,
                     beta1: float = 0.9, beta2: float = 0.95, eps: float = 1e-8):
    """Learning rates for other batch sizes under each rule, with the warnings that apply.

    Columns: ``batch_tokens``, ``batch_ratio`` (κ), ``lr_linear`` (Goyal), ``lr_sqrt``, ``beta1_sqrt``,
    ``beta2_sqrt``, ``eps_sqrt`` (Malladi; empty where the rule breaks), ``lr_noise_scale``
    (McCandlish), ``warnings`` (text).

    No rule is universal: which one holds depends on the optimizer (SGD: linear; Adam: square
    root), the model and the objective, and all of them need re-tuning or a longer warm-up when
    the learning rate rises (Goyal et al. §2.2). Treat the table as starting points for a sweep.

    Raises
    ------
    ValueError
        A batch, learning rate or ``eps`` that is not a finite number > 0, or an Adam β outside
        (0, 1) (a sweep found β = 1.5 turned into a "rule breaks" row, and β = 0 into
        non-finite columns).
    """
    as_scalar(base_lr, "base_lr", positive=True)
    for name, beta in (("beta1", beta1), ("beta2", beta2)):
        v = as_scalar(beta, name)
        if not 0 < v < 1:
            raise ValueError(f"{name}={beta!r} must be in (0, 1): Adam's decay rate")
    as_scalar(eps, "eps", positive=True)
    b = np.atleast_1d(as_array(batch_tokens, "batch_tokens", positive=True))
    b0 = as_scalar(base_batch_tokens, "base_batch_tokens", positive=True)
    bn = as_scalar(b_noise_tokens, "b_noise_tokens", positive=True)
    rows = []
    for bi in b:
        k = bi / b0
        warn = []
        try:
            sq = sqrt_scaled_adam(base_lr, k, beta1, beta2, eps)
        except ValueError:
            sq = {"lr": None, "beta1": None, "beta2": None, "eps": None}
            tight = "β1" if beta1 <= beta2 else "β2"  # the smaller β breaks first
            warn.append(f"square-root rule breaks (κ ≥ 1/(1−{tight}) = "
                        f"{1 / (1 - min(beta1, beta2)):g})")
        if bi > bn:
            warn.append("above B_noise: a bigger batch buys few steps, linear scaling over-shoots")
        if k > 1:
            warn.append("LR rises: lengthen the warm-up (Goyal §2.2)")
        if k > 1 and bi > bn:
            warn.append("expect to re-tune")
        rows.append({"batch_tokens": bi, "batch_ratio": k,
                     "lr_linear": float(linear_scaled_lr(base_lr, k)),
                     "lr_sqrt": sq["lr"], "beta1_sqrt": sq["beta1"], "beta2_sqrt": sq["beta2"],
                     "eps_sqrt": sq["eps"],
                     "lr_noise_scale": float(noise_scale_lr(base_lr, b0, bi, bn)),
                     "warnings": "; ".join(warn) if warn else "—"})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ roofline
def matmul_intensity(tokens, d_in, d_out, bytes_per_element=2):
    """Arithmetic intensity of Y = X·W with X tokens × d_in and W d_in × d_out, FLOP per byte:
    I = 2·t·d_in·d_out / (β·(t·d_in + d_in·d_out + t·d_out)) (each operand read or written once).

    For t ≪ d it is ≈ t (bf16): a GPU that feeds a weight matrix few tokens re-reads the whole
    matrix for little work. In training the two backward matmuls (input and weight gradients)
    have the same intensity. Williams et al. 2009 (roofline).

    Returns
    -------
    float or ndarray: FLOP/byte.
    """
    t = as_array(tokens, "tokens", positive=True)
    a = as_array(d_in, "d_in", positive=True)
    o = as_array(d_out, "d_out", positive=True)
    beta = as_array(bytes_per_element, "bytes_per_element", positive=True)
    return scalar_or_array(2.0 * t * a * o / (beta * (t * a + a * o + t * o)))


def model_matmul_shapes(model: ModelSpec, tp: int = 1):
    """The weight matmuls of a model's transformer layers, as one GPU of a tensor-parallel group
    sees them (column-parallel outputs and row-parallel inputs divided by ``tp``).

    Returns
    -------
    DataFrame: ``name``, ``d_in``, ``d_out``, ``count`` (matrices of that shape in the model),
    ``token_fraction`` (share of the micro-batch's tokens each matrix sees: k/E for routed experts,
    1 otherwise). The LM head and embedding are excluded.
    """
    t = int(as_scalar(tp, "tp", positive=True, integer=True))
    model = as_model(model)
    h, a, g, dh = model.d_model, model.n_heads, model.n_kv_heads, model.d_head
    rows = []
    if model.attention == "gqa":
        rows += [("attention QKV", h, (a + 2 * g) * dh / t, model.n_layers, 1.0),
                 ("attention out", a * dh / t, h, model.n_layers, 1.0)]
    else:  # MLA: low-rank Q and joint KV compression (DeepSeek-V2 §2.1)
        if model.q_lora_rank:
            rows += [("MLA q down", h, model.q_lora_rank, model.n_layers, 1.0),
                     ("MLA q up", model.q_lora_rank, a * model.d_qk / t, model.n_layers, 1.0)]
        else:
            rows += [("MLA q", h, a * model.d_qk / t, model.n_layers, 1.0)]
        rows += [("MLA kv down", h, model.kv_lora_rank + model.qk_rope_head_dim, model.n_layers,
                  1.0),
                 ("MLA kv up", model.kv_lora_rank, a * (dh + model.d_v) / t, model.n_layers, 1.0),
                 ("attention out", a * model.d_v / t, h, model.n_layers, 1.0)]
    up = 2 if model.ffn_type == "gated" else 1
    if model.n_dense_ffn_layers:
        rows += [("FFN up/gate", h, up * model.d_ff / t, model.n_dense_ffn_layers, 1.0),
                 ("FFN down", model.d_ff / t, h, model.n_dense_ffn_layers, 1.0)]
    if model.is_moe:
        moe = model.n_moe_layers
        frac = model.n_experts_active / model.n_experts
        rows += [("routed expert up/gate", h, up * model.d_ff_expert / t, moe * model.n_experts,
                  frac),
                 ("routed expert down", model.d_ff_expert / t, h, moe * model.n_experts, frac)]
        if model.n_shared_experts:
            rows += [("shared expert up/gate", h, up * model.d_ff_expert * model.n_shared_experts
                      / t, moe, 1.0),
                     ("shared expert down", model.d_ff_expert * model.n_shared_experts / t, h, moe,
                      1.0)]
    return pd.DataFrame(rows, columns=["name", "d_in", "d_out", "count", "token_fraction"])


def matmul_utilisation(model: ModelSpec, tokens_per_microbatch, accelerator: Accelerator,
                       dtype: str = "bf16", tp: int = 1):
    """Roofline bound on the fraction of peak a GPU reaches on a model's weight matmuls, against
    the tokens it feeds them per micro-batch (micro_batch_size · seq_len).

    Each matmul takes max(FLOPs/peak, bytes/HBM bandwidth) (roofline; operands read once from
    HBM); the result is total FLOPs / (peak · total time), i.e. a FLOP-weighted roofline over
    the shapes of ``model_matmul_shapes``. Forward and both backward matmuls share the same
    intensity, so the fraction holds for a training step. Excludes attention scores, norms and
    communication: it is an upper bound on MFU from matmul shapes alone.

    Parameters
    ----------
    model : ModelSpec
    tokens_per_microbatch : float or array
        Tokens one GPU feeds each weight matrix per micro-batch.
    accelerator : Accelerator
    dtype : str
        Compute and storage format (bytes per element from ``units.BYTES_PER_DTYPE``).
    tp : int
        Tensor-parallel degree.

    Returns
    -------
    float or ndarray in (0, 1].
    """
    t = as_array(tokens_per_microbatch, "tokens_per_microbatch", positive=True)
    shapes = model_matmul_shapes(model, tp)
    accelerator = as_accelerator(accelerator)
    peak = accelerator.peak_flops_per_s(dtype)
    if not accelerator.hbm_bytes_per_s:
        raise ValueError(f"{accelerator.name} has no HBM bandwidth in the catalogue")
    beta = BYTES_PER_DTYPE[dtype]
    tok = t[..., None] * shapes["token_fraction"].to_numpy()
    din, dout = shapes["d_in"].to_numpy(float), shapes["d_out"].to_numpy(float)
    count = shapes["count"].to_numpy(float)
    flops = 2.0 * tok * din * dout * count
    byts = beta * (tok * din + din * dout + tok * dout) * count
    time = np.maximum(flops / peak, byts / accelerator.hbm_bytes_per_s)
    return scalar_or_array(flops.sum(-1) / (peak * time.sum(-1)))


# ------------------------------------------------------------------ data-parallel communication
def zero_volume_ratio(zero_stage: int, n_microbatches: int, grads_bytes: float,
                      weights_bytes: float = 2.0, weight_gathers: int = 2) -> float:
    """The data-parallel bytes one GPU sends per optimizer step under ``zero_stage``, as a
    multiple of the once-per-step gradient all-reduce's 2·(n−1)/n·P·β_g (``dp_gradient_sync``),
    with the collectives ``comm.comm_volume`` counts (Rajbhandari et al. 2020, ZeRO §7; a
    reduce-scatter or an all-gather moves (n−1)/n·P·β, half an all-reduce), m micro-batches,
    β_g gradient and β_w weight bytes per parameter::

        ZeRO-0: 1                         (the all-reduce)
        ZeRO-1: (β_g + β_w) / (2·β_g)     (a reduce-scatter, then the updated weights gathered)
        ZeRO-2: (m·β_g + β_w) / (2·β_g)   (a reduce-scatter after every micro-batch)
        ZeRO-3: m·(β_g + k·β_w) / (2·β_g) (per micro-batch k weight gathers, forward and
                                           backward, 3 where the recompute gathers again)

    E.g. fp32 gradients, bf16 weights: ZeRO-1 0.75; ZeRO-2 at m = 16, (64 + 2) / 8 = 8.25.

    Raises
    ------
    ValueError
        A stage outside 0-3, or a count or byte size that is not positive.
    """
    if zero_stage not in (0, 1, 2, 3):
        raise ValueError(f"zero_stage={zero_stage!r} must be 0, 1, 2 or 3")
    m = as_scalar(n_microbatches, "n_microbatches", positive=True, integer=True)
    bg = as_scalar(grads_bytes, "grads_bytes", positive=True)
    bw = as_scalar(weights_bytes, "weights_bytes", positive=True)
    k = as_scalar(weight_gathers, "weight_gathers", positive=True, integer=True)
    return float({0: 2 * bg, 1: bg + bw, 2: m * bg + bw, 3: m * (bg + k * bw)}[zero_stage]
                 / (2 * bg))


def dp_gradient_sync(model: ModelSpec, n_gpus: int, tp: int, pp: int, global_batch_tokens,
                     accelerator: Accelerator, mfu, dtype: str = "bf16",
                     grad_bytes_per_param: float = 2.0, bandwidth_bytes_per_s=None,
                     seq_len=None):
    """Gradient synchronisation per optimizer step against the compute of that step.

    * Compute per step = B · model FLOPs per token / (n_gpus · peak · MFU), with the model FLOPs
      of the workbook's MFU basis at ``seq_len`` (default: the model's) (``compute``
      conventions).
    * Gradient all-reduce per step, ring, bandwidth term only: 2·(dp−1)/dp · G / bw with
      G = grad_bytes_per_param · N / (tp·pp) the gradient bytes one GPU holds (parameters split
      evenly over the tensor and pipeline ranks; the bytes follow the optimizer recipe, 4 for
      fp32 gradients) and bw the ring's per-GPU bandwidth per direction (Patarasuk & Yuan 2009):
      ``bandwidth_bytes_per_s``, which ``scenario_batch_analysis`` takes from
      ``dp_sync_bandwidth`` (the plan's placement, ``comm.placement``: peers sharing a node pool
      their NICs); by default one NIC per GPU (the accelerator's scale-out figure). The ZeRO
      stages move other volumes (``zero_volume_ratio``: ZeRO-1 0.75× this with fp32 gradients
      and bf16 weights; ZeRO-2 and -3 grow with the micro-batches, 0.75× and 1× at one).

    The all-reduce runs once per step whatever the number of micro-batches, so a larger global
    batch at a fixed cluster (more gradient accumulation) amortises it. ``exposed_fraction`` is
    the share of the step it takes if it is not overlapped with the backward pass (an upper bound;
    frameworks overlap most of it). The all-reduce is ``llmcost.comm.collective_time`` with no
    latency and the datasheet bandwidth; ``llmcost.step.step_time`` (notebook 04b) times the same
    traffic with per-step latency, achieved (nccl-tests) bandwidth, hierarchical rings over the
    scale-up domains, ZeRO stages and the overlap rules.

    Parameters
    ----------
    model : ModelSpec
    n_gpus, tp, pp : int
        Cluster size and model-parallel degrees (dp = n_gpus / (tp·pp)).
    global_batch_tokens : float or array
        Tokens per optimizer step.
    accelerator : Accelerator
    mfu : float
    dtype : str
    grad_bytes_per_param : float
        2 for bf16 gradient reduction, 4 for fp32.
    bandwidth_bytes_per_s : float, optional
        Per-GPU bandwidth per direction (default: the accelerator's scale-out figure).

    Returns
    -------
    DataFrame: ``global_batch_tokens``, ``dp``, ``tokens_per_gpu_per_step``, ``compute_s``,
    ``allreduce_s``, ``comm_over_compute``, ``exposed_fraction``.
    """
    model, accelerator = as_model(model), as_accelerator(accelerator)
    dp = data_parallel_degree(n_gpus, tp, pp)
    b = np.atleast_1d(as_array(global_batch_tokens, "global_batch_tokens", positive=True))
    bw = accelerator.scaleout_bytes_per_s_per_dir if bandwidth_bytes_per_s is None \
        else as_scalar(bandwidth_bytes_per_s, "bandwidth_bytes_per_s", positive=True)
    if not bw:
        raise ValueError(f"{accelerator.name} has no scale-out bandwidth in the catalogue; pass "
                         "bandwidth_bytes_per_s")
    g = as_array(grad_bytes_per_param, "grad_bytes_per_param", positive=True) \
        * model.n_params / (tp * pp)
    allreduce = collective_time("all_reduce", g, dp, bw) * np.ones_like(b)
    fpt = model_flops_per_token(model, seq_len)  # the MFU basis
    compute = b * fpt / (n_gpus * accelerator.peak_flops_per_s(dtype)
                         * as_array(mfu, "mfu", positive=True, upper=1.0))
    return pd.DataFrame({"global_batch_tokens": b, "dp": dp, "tokens_per_gpu_per_step": b / n_gpus,
                         "compute_s": compute, "allreduce_s": allreduce,
                         "comm_over_compute": allreduce / compute,
                         "exposed_fraction": allreduce / (allreduce + compute)})


# ------------------------------------------------------------------ activation memory
def activation_bytes_per_gpu(model: ModelSpec, micro_batch_size, seq_len, tp: int = 1,
                             flash_attention: bool = True, recompute: str = "none",
                             dropout: bool = False, sequence_parallel=None, cp: int = 1):
    """Activation memory per GPU for one micro-batch size: ``memory.activation_bytes_per_layer``
    (Korthikanti et al. 2022 Table 2 generalised to GQA, gated FFNs and MoE) summed over the
    model's layers.

    Under 1F1B the first pipeline stage holds pp micro-batches of L/pp layers, i.e. L layers'
    worth of one micro-batch, whatever pp is (``memory.in_flight_microbatches``), so the figure
    does not depend on pp. Sequence parallelism is assumed when tp > 1 unless
    ``sequence_parallel`` says otherwise. Weights, gradients,
    optimizer states and buffers are not included (``memory.memory_breakdown`` has them).

    Parameters
    ----------
    model : ModelSpec
    micro_batch_size : int or array
        Sequences per micro-batch b.
    seq_len : int
        Tokens per sequence s.
    tp : int
        Tensor-parallel degree t.
    flash_attention : bool
        FlashAttention: the s×s scores are not stored.
    cp : int
        Context-parallel degree: each GPU holds s/cp tokens of a sequence.
    recompute : {"none", "selective", "full"}
    dropout : bool
        Dropout masks stored (Korthikanti et al. count them; most current pre-training has none).
    sequence_parallel : bool, optional
        Default: tp > 1.

    Returns
    -------
    float or ndarray: bytes.
    """
    model = as_model(model)
    flash_attention, dropout = (as_flag(flash_attention, "flash_attention"),
                                as_flag(dropout, "dropout"))
    if sequence_parallel is None:
        sequence_parallel = bool(np.all(np.asarray(tp) > 1))
    else:
        sequence_parallel = as_flag(sequence_parallel, "sequence_parallel")
    return model_activation_bytes(model, seq_len, micro_batch_size, tp, cp, sequence_parallel,
                                  recompute, flash_attention, dropout)


# ------------------------------------------------------------------ published runs
def published_batch_comparison(runs=None):
    """What published runs used against the critical-batch estimates for where they ended.

    For every run in ``data/published_runs.csv`` with a catalogue model, a token count and a
    global batch: the loss the run reaches on Kaplan's scale (``loss_of_planned_run``, at the
    run's final batch), Kaplan's B_crit at that loss, and DeepSeek LLM's B_opt for the run's
    compute (C = M·D).

    Runs that ramped their batch (GPT-3, BLOOM, Llama 3, DeepSeek-V3: 3,072 to 15,360 sequences
    over the first 469B tokens, arXiv:2412.19437 §4.2) are evaluated at the final batch.

    Returns
    -------
    DataFrame sorted by compute: ``run_id``, ``model``, ``train_tokens``, ``global_batch_tokens``,
    ``kaplan_loss``, ``kaplan_b_crit_tokens``, ``batch_over_b_crit``, ``deepseek_b_opt_tokens``,
    ``batch_over_deepseek``, ``compute_flops`` (DeepSeek's C).
    """

    runs = load_published_runs() if runs is None else runs
    rows = []
    for r in runs.itertuples():
        if not isinstance(r.catalog_model, str) or not (r.global_batch_tokens > 0) \
                or not (r.train_tokens > 0):
            continue
        m = load_model(r.catalog_model)
        seq = int(r.seq_len) if r.seq_len == r.seq_len else m.seq_len
        n = kaplan_n_params(m)
        loss = float(loss_of_planned_run(n, r.train_tokens, r.global_batch_tokens))
        bcrit = float(kaplan_critical_batch(loss))
        ds = deepseek_hyperparameters(m.n_layers, m.d_model, seq, r.train_tokens)
        rows.append({"run_id": r.run_id, "model": m.name, "train_tokens": r.train_tokens,
                     "global_batch_tokens": r.global_batch_tokens, "kaplan_loss": loss,
                     "kaplan_b_crit_tokens": bcrit,
                     "batch_over_b_crit": r.global_batch_tokens / bcrit,
                     "deepseek_b_opt_tokens": ds["batch_tokens"],
                     "batch_over_deepseek": r.global_batch_tokens / ds["batch_tokens"],
                     "compute_flops": ds["compute_flops"]})
    return pd.DataFrame(rows).sort_values("compute_flops").reset_index(drop=True)


# ---- the batch for a full pipeline and the DP ring's placement (notebooks 02 and 04)
#: The pipeline bubble (share of a step) below which this workbook calls a pipeline full: a
#: convention for the "low-bubble batch", not a threshold from a paper.
BUBBLE_TARGET = 0.10


def low_bubble_batch_tokens(pp, dp, micro_batch_size, seq_len, schedule: str = "1f1b",
                            virtual_stages: int = 1, target: float = BUBBLE_TARGET):
    """The smallest global batch whose pipeline bubble is at most ``target`` of a step.

    m micro-batches per replica give a bubble of b/(1+b) of the step, b =
    ``parallel.bubble_fraction(pp, m, schedule, v)`` = (p−1)/(v·m) for 1F1B and interleaved
    (Narayanan et al. 2021 §2.2), (p−1)/(3m) for ZB-H1 once m ≥ p (Qi et al. 2024 §3). The least
    whole m ≥ p (every stage busy in the steady state; a multiple of p for the interleaved
    schedule, Megatron-LM's rule) with b/(1+b) ≤ target (for 1F1B: m ≥ (p−1)·(1−target)/(v·target),
    27 for p = 4 at 10%) gives B = m · dp · micro_batch_size · seq_len tokens. With pp = 1 there
    is no bubble and the answer is one micro-batch per replica.

    Raises
    ------
    ValueError
        Non-positive sizes, an unknown schedule, or ``target`` outside (0, 1).
    """
    t = as_scalar(target, "target", positive=True, upper=1.0)
    if t >= 1.0:
        raise ValueError(f"target={target!r} must be below 1 (a share of the step)")
    for name, v in (("pp", pp), ("dp", dp), ("micro_batch_size", micro_batch_size),
                    ("seq_len", seq_len), ("virtual_stages", virtual_stages)):
        as_array(v, name, positive=True, integer=True)
    # m >= pp: every stage has a micro-batch in flight (the formulas assume it); the
    # interleaved schedule also needs m to be a multiple of pp (Megatron-LM's rule).
    # The candidates are m = pp, pp + step, ... (a million of them), searched in chunks that
    # grow 16-fold: the first chunk (256) holds the answer for p <= 33 at the 10 % target
    # (1F1B needs m >= 9·(p − 1); the chunk's last candidate is m = p + 255, so 8p − 9 < 256).
    step = int(pp) if schedule == "interleaved" else 1
    tokens = int(dp) * int(micro_batch_size) * int(seq_len)
    start, size, n = 0, 256, 1_000_000
    while start < n:
        m = int(pp) + step * np.arange(start, min(start + size, n))
        ok = np.asarray(bubble_fraction(int(pp), m, schedule, int(virtual_stages),
                                        relative_to="total")) <= t + 1e-12
        if ok.any():
            return float(m[np.argmax(ok)]) * tokens
        start, size = start + size, size * 16
    return float(pp) * tokens  # no candidate reaches the target: the first one, m = pp


def dp_sync_bandwidth(plan, cluster) -> dict:
    """Per-GPU bandwidth of the data-parallel gradient ring, from where the plan puts the DP
    peers: the placement ``llmcost.comm.placement`` derives from the plan (rank order TP, CP,
    EP/DP, PP), the same one notebook 04b's step-time model uses.

    With k = DP peers per scale-up domain (the "DP (dense, with CP)" row) and datasheet
    per-direction bandwidths B_up (NVLink) and B_out (one NIC per GPU):

        B_ring = B_up                   if the DP group sits in one domain,
        B_ring = min(B_up, k · B_out)   otherwise: a hierarchical ring in which the k peers of a
                                        node pool their k NICs (NCCL's rings; ``comm`` module
                                        docstring, the same rule as ``cluster_collective_time``).

    Datasheet figures, no latency: notebook 04 applies achievable fractions (nccl-tests) and
    per-step latencies to the same placement.

    Returns
    -------
    dict: ``bandwidth_bytes_per_s``, ``members_per_domain`` (k), ``domains``, ``links``.

    Raises
    ------
    ValueError
        A plan larger than the cluster, or a cluster without scale-up or scale-out figures.
    """
    if not isinstance(plan, ParallelPlan):
        raise ValueError(f"plan={plan!r:.60} must be a ParallelPlan (llmcost.make_plan)")
    if not isinstance(cluster, Cluster):
        raise ValueError(f"cluster={cluster!r:.60} must be a Cluster (llmcost.Cluster)")
    row = placement(plan, cluster).set_index("dimension").loc["DP (dense, with CP)"]
    k, nd = int(row["members_per_domain"]), int(row["domains"])
    return {"bandwidth_bytes_per_s": ring_bandwidth(cluster.accelerator, k, nd),
            "members_per_domain": k, "domains": nd, "links": str(row["links"])}


def ring_bandwidth(accelerator: Accelerator, members_per_domain: int, domains: int) -> float:
    """Datasheet per-GPU bandwidth of a ring over ``domains`` scale-up domains with
    ``members_per_domain`` members in each: B_up if ``domains`` = 1, else min(B_up, k · B_out)
    (see ``dp_sync_bandwidth``).

    Raises
    ------
    ValueError
        Sizes below 1, or an accelerator without the bandwidth figure the ring needs.
    """
    k = int(as_scalar(members_per_domain, "members_per_domain", positive=True, integer=True))
    nd = int(as_scalar(domains, "domains", positive=True, integer=True))
    accelerator = as_accelerator(accelerator)
    up, out = accelerator.scaleup_bytes_per_s_per_dir, accelerator.scaleout_bytes_per_s_per_dir
    if nd == 1:
        if not up:
            raise ValueError(f"{accelerator.name} has no scale-up bandwidth in the catalogue")
        return float(up)
    if not out:
        raise ValueError(f"{accelerator.name} has no scale-out bandwidth in the catalogue; set "
                         "comm_scaleout_bytes_per_s")
    return float(min(up, k * out)) if up else float(out)


# ----------------------------------------------------------------------------- moved names
#: Names that moved to ``batch_analysis`` (notebook 02's analysis of one scenario) -> that
#: module. ``batch.analyse_batch`` … keep resolving there for notebooks and scripts written
#: against ``batch`` (a module ``__getattr__``, PEP 562: ``batch_analysis`` imports this module,
#: so a top-level import back would be a cycle). New code imports ``batch_analysis``.
MOVED = dict.fromkeys(("BatchAnalysis", "BatchLayout", "analyse_batch", "batch_verdict",
                       "headline_figures", "scenario_batch_analysis"), "batch_analysis")


#: ``batch.<name>`` for a name of ``MOVED``: the object in its new module (``core.moved``).
__getattr__, __dir__ = moved_names(__name__, __package__, MOVED, globals())
