"""Notebook 02's batch-size picture of one scenario, in one call: ``analyse_batch`` gathers the
optimisation side (``batch.batch_target``, ``batch.batch_sweep``, DeepSeek LLM's fits) and the
hardware side (filling the cluster, the pipeline bubble, the gradient all-reduce, activation
memory) of ``llmcost.training.batch`` into a ``BatchAnalysis``; ``batch_verdict`` and
``headline_figures`` say what it means, every sentence and figure computed from it;
``scenario_batch_analysis`` builds it from scenario parameters and the scenario's plan. The
formulas are those of ``llmcost.training.batch``, whose functions each write theirs.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ..core.catalog import as_model, scenario_cluster
from ..core.hardware import Accelerator
from ..core.model import ModelSpec
from ..core.units import fmt_count, fmt_gpus, fmt_quantity, fmt_signed_pct, noun
from .batch import (
    BUBBLE_TARGET,
    BatchTarget,
    accumulation_steps,
    activation_bytes_per_gpu,
    batch_sweep,
    batch_target,
    cluster_fill_batch_tokens,
    data_parallel_degree,
    deepseek_hyperparameters,
    dp_gradient_sync,
    dp_sync_bandwidth,
    gpus_to_fill,
    low_bubble_batch_tokens,
)
from .memory import get_recipe, scenario_recipe_name
from .parallel import bubble_fraction
from .step_scenario import scenario_memory, scenario_plan


@dataclass(frozen=True)
class BatchAnalysis:
    """The batch-size picture for one scenario (build it with ``analyse_batch``).

    Attributes
    ----------
    target : BatchTarget
        The target loss, B_noise, S_min and E_min.
    fill_batch_tokens : float
        The smallest batch that keeps every GPU busy (``cluster_fill_batch_tokens``).
    dp : int
        Data-parallel replicas.
    micro_batches_per_step : int
        Micro-batches per replica per step at the planned batch (``accumulation_steps``).
    allreduce_s : float
        Gradient all-reduce per step (``dp_gradient_sync``), seconds.
    key_batches : DataFrame
        ``batch_sweep`` rows for the planned batch on the scenario's cluster and for B_noise/4,
        B_noise and 4·B_noise with the GPUs that batch can keep busy (at least the scenario's),
        labelled in a ``case`` column.
    deepseek : dict
        ``deepseek_hyperparameters`` for the scenario's model and tokens.
    exposed_fraction : float
        Share of a step the all-reduce takes at the planned batch if not overlapped.
    activation_bytes_per_gpu : float
        ``activation_bytes_per_gpu`` at the scenario's micro-batch (estimate, FlashAttention).
    global_batch_tokens, n_gpus, micro_batch_size, tp, cp, pp : the scenario's values.
    bubble_fraction : float
        Share of a step the pipeline idles at the planned batch: b/(1+b) with b =
        ``parallel.bubble_fraction(pp, m, schedule, v)`` ((p−1)/(v·m) for 1F1B/interleaved).
    low_bubble_batch_tokens : float
        The smallest batch whose bubble is at most ``BUBBLE_TARGET`` of a step
        (``low_bubble_batch_tokens``).
    dp_bandwidth_bytes_per_s, dp_links, dp_members_per_domain
        The data-parallel ring's bandwidth and placement (``dp_sync_bandwidth``).
    plan_activation_bytes_per_gpu : float
        The scenario plan's activations as its stack stores them on its busiest pipeline stage
        (``step_scenario.scenario_memory``: in-flight micro-batches, the stack's recomputation
        and FP8 saved inputs), notebook 03's count; NaN when not computed
        (``scenario_batch_analysis`` computes it).
    """

    target: BatchTarget
    fill_batch_tokens: float
    dp: int
    micro_batches_per_step: int
    allreduce_s: float
    key_batches: object
    deepseek: dict
    exposed_fraction: float
    activation_bytes_per_gpu: float
    global_batch_tokens: float
    n_gpus: int
    micro_batch_size: int
    tp: int
    cp: int = 1
    # ---- the pipeline bubble at the plan's batch and the DP placement
    pp: int = 1
    bubble_fraction: float = 0.0  # share of a step the pipeline idles, at the plan's batch
    low_bubble_batch_tokens: float = float("nan")  # smallest batch with bubble <= BUBBLE_TARGET
    dp_bandwidth_bytes_per_s: float = float("nan")  # per GPU per direction, from the placement
    dp_links: str = ""  # "scale-up", "scale-out" or "both" (comm.placement)
    dp_members_per_domain: int = 1
    plan_activation_bytes_per_gpu: float = float("nan")
    layout: BatchLayout | None = None   # the layout analysed (``plan_sweep`` reads it)
    # the MFU of the plan's compute between its bubbles, MFU ÷ f(m_plan) (``bubble_scaled_mfu``):
    # above 1 the given MFU leaves the plan's bubble no room
    mfu_between_bubbles: float = float("nan")


@dataclass(frozen=True)
class BatchLayout:
    """How a run lays its batch out on the GPUs, as ``analyse_batch`` reads it.

    ``tp``, ``pp``, ``cp``, ``micro_batch_size`` and ``recompute`` describe the parallel plan
    (``llmcost.parallel``): a sequence is split over tp·cp GPUs, so data parallelism is
    n_gpus / (tp·pp·cp) and the batch that fills the cluster counts tp·cp GPUs per micro-batch.
    ``grad_bytes_per_param`` is the gradient format reduced across data-parallel ranks (4 for
    the fp32 reduction of Megatron-LM and Llama 3; ``scenario_batch_analysis`` takes it from
    ``optimizer_recipe``). ``pp_schedule`` and ``virtual_stages`` give the pipeline bubble;
    ``bandwidth_bytes_per_s`` the DP ring's per-GPU bandwidth (``batch.dp_sync_bandwidth``;
    None: the accelerator's scale-out figure, one NIC per GPU). ``analyse_batch`` checks the
    values. ``ep``: the expert-parallel degree, whose groups lie inside the dp·cp ranks
    (Megatron-Core's rule, ``parallel``: ep divides dp·cp), so a GPU count the analysis offers
    (the critical batch's) keeps dp·cp a multiple of it.
    """

    tp: int = 1
    pp: int = 1
    cp: int = 1
    micro_batch_size: int = 1
    recompute: str = "none"
    pp_schedule: str = "1f1b"
    virtual_stages: int = 1
    grad_bytes_per_param: float = 2.0
    bandwidth_bytes_per_s: float | None = None
    ep: int = 1


def _gpus_for_batches(batches, layout: BatchLayout, seq_len: int):
    """The GPUs each global batch in ``batches`` keeps busy on ``layout``, as whole replicas
    with whole expert-parallel groups: ``batch.gpus_to_fill`` (ceil(B / (pp · mbs · s)) · tp·cp
    · pp), its data-parallel degree dp = n / (tp·cp·pp) rounded up to a multiple of ep ÷
    gcd(ep, cp), so that ep divides dp·cp (a trial's EP8 MoE was offered 299 GPUs, dp 299,
    at its critical batch). Raises ValueError for an ``ep`` that is not a whole number >= 1."""
    ep = layout.ep
    if isinstance(ep, bool) or not isinstance(ep, numbers.Integral) or ep < 1:
        raise ValueError(f"layout.ep={ep!r} must be a whole number >= 1 (the expert-parallel "
                         "degree)")
    group = layout.tp * layout.cp
    n = gpus_to_fill(batches, layout.micro_batch_size, seq_len, group, layout.pp)
    step = ep // math.gcd(ep, layout.cp)
    dp = -(-np.asarray(n) // (group * layout.pp))
    return (-(-dp // step) * step) * group * layout.pp


def analyse_batch(model: ModelSpec, accelerator: Accelerator, n_gpus: int, train_tokens,
                  seq_len: int, global_batch_tokens, mfu, price_usd_per_gpu_hour,
                  layout: BatchLayout | None = None, target_loss=None, b_noise_tokens=None,
                  dtype: str = "bf16") -> BatchAnalysis:
    """Everything notebook 02 reports for a scenario, in one call (see ``BatchAnalysis``).

    ``layout`` (a ``BatchLayout``; None: TP 1, PP 1, CP 1, one sequence per micro-batch, 1F1B,
    bf16 gradients, the scale-out bandwidth) is how the batch is laid out on the GPUs;
    ``target_loss`` and ``b_noise_tokens`` as ``batch.batch_target``; ``dtype`` the compute
    format of the peak.

    What each attribute is (m = global_batch_tokens / (dp · micro_batch_size · seq_len) the
    micro-batches per replica, dp = n_gpus / (tp·pp·cp)):

    * ``target``: ``batch_target`` (Kaplan et al. 2020 Eq. 5.3–5.6, McCandlish et al. 2018 §2);
    * ``fill_batch_tokens`` = n_gpus · micro_batch_size · seq_len / (tp·cp): m = pp, every
      pipeline stage has a micro-batch (``cluster_fill_batch_tokens``);
    * ``bubble_fraction`` = b/(1+b), b = (pp−1)/(v·m) (Narayanan et al. 2021 §2.2), and
      ``low_bubble_batch_tokens`` where it falls to ``BUBBLE_TARGET``;
    * ``allreduce_s`` = 2·(n−1)/n · G/B with n = dp·cp, G = grad_bytes_per_param · N/(tp·pp), B
      the ring bandwidth (Patarasuk & Yuan 2009), ``exposed_fraction`` = all-reduce / (all-reduce
      + compute) (``dp_gradient_sync``);
    * ``key_batches``: ``batch_sweep`` rows (S(B), E(B), GPU-hours = model FLOPs/(peak·MFU)),
      each at the plan's MFU carried to its batch's pipeline bubble (``bubble_scaled_mfu``);
    * ``deepseek``: B_opt = 0.2920·C^0.3271, η_opt = 0.3118·C^−0.1250, C = M·D
      (``deepseek_hyperparameters``, DeepSeek-AI 2024 Eq. 1).

    Raises
    ------
    ValueError
        A layout that does not divide (tp·pp·cp and n_gpus, micro-batches and the global batch),
        a target loss below the fit's irreducible term, or any non-positive input.
    """
    lay = BatchLayout() if layout is None else layout
    if not isinstance(lay, BatchLayout):
        raise ValueError(f"layout={layout!r:.60} must be a BatchLayout (or None)")
    tp, pp, cp, micro_batch_size = lay.tp, lay.pp, lay.cp, lay.micro_batch_size
    bandwidth_bytes_per_s = lay.bandwidth_bytes_per_s
    group = tp * cp  # GPUs that share one micro-batch in one pipeline stage
    dp = data_parallel_degree(n_gpus, group, pp)
    m = accumulation_steps(global_batch_tokens, micro_batch_size, seq_len, dp)
    target = batch_target(model, target_loss, train_tokens, global_batch_tokens, b_noise_tokens)
    fill = float(cluster_fill_batch_tokens(n_gpus, micro_batch_size, seq_len, group))
    sync = dp_gradient_sync(model, n_gpus, tp, pp, global_batch_tokens, accelerator, mfu, dtype,
                            grad_bytes_per_param=lay.grad_bytes_per_param, seq_len=seq_len,
                            bandwidth_bytes_per_s=bandwidth_bytes_per_s)
    bubble = float(bubble_fraction(pp, m, lay.pp_schedule, lay.virtual_stages,
                                   relative_to="total"))
    low = float(low_bubble_batch_tokens(pp, dp, micro_batch_size, seq_len, lay.pp_schedule,
                                        lay.virtual_stages))
    bw = float(accelerator.scaleout_bytes_per_s_per_dir if bandwidth_bytes_per_s is None
               else bandwidth_bytes_per_s)
    bn = target.b_noise_tokens
    # the sweep's rows, none below one sequence (B_noise / 4 of a long-context run can be less)
    batches = np.maximum(np.array([global_batch_tokens, bn / 4, bn, 4 * bn], dtype=float),
                         seq_len)
    gpus = np.maximum(n_gpus, _gpus_for_batches(batches, lay, seq_len))
    gpus[0] = n_gpus
    # one micro-batch keeps a replica's tp·cp·pp GPUs working (its stages by turns): a replica
    # without one idles; the pipeline's own idle time (its bubble) is in the MFU, as the bill
    # counts it (a review: a 9-stage plan read "only 44% of them work" and 2.25x the bill's
    # GPU-hours, its bubble counted twice)
    rows = _layout_sweep(target, lay, model, accelerator, batches, gpus, mfu,
                         price_usd_per_gpu_hour, seq_len, dtype, global_batch_tokens, n_gpus)
    rows.insert(0, "case", ["plan", "B_noise / 4", "B_noise", "4 · B_noise"])
    ds = deepseek_hyperparameters(model.n_layers, model.d_model, seq_len, train_tokens)
    act = float(activation_bytes_per_gpu(model, micro_batch_size, seq_len, tp,
                                         recompute=lay.recompute, cp=cp))
    return BatchAnalysis(target=target, fill_batch_tokens=fill, dp=dp, micro_batches_per_step=m,
                         allreduce_s=float(sync["allreduce_s"].iloc[0]),
                         key_batches=pd.DataFrame(rows), deepseek=ds,
                         exposed_fraction=float(sync["exposed_fraction"].iloc[0]),
                         activation_bytes_per_gpu=act,
                         global_batch_tokens=float(global_batch_tokens), n_gpus=int(n_gpus),
                         micro_batch_size=int(micro_batch_size), tp=int(tp), cp=int(cp),
                         pp=int(pp), bubble_fraction=bubble, low_bubble_batch_tokens=low,
                         dp_bandwidth_bytes_per_s=bw, layout=lay,
                         mfu_between_bubbles=float(np.asarray(mfu) / _compute_share(
                             np.array(float(global_batch_tokens)), np.array(float(n_gpus)),
                             lay, seq_len)))


def plan_sweep(analysis: BatchAnalysis, model, accelerator, batch_tokens, n_gpus, mfu,
               price_usd_per_gpu_hour, seq_len: int, dtype: str = "bf16"):
    """``batch.batch_sweep`` on ``analysis``' layout (``BatchAnalysis.layout``, from
    ``analyse_batch``) as its key batches price theirs: a micro-batch keeps a replica's
    tp·cp·pp GPUs working, and each batch and GPU count at the plan's MFU carried to its own
    pipeline bubble (``bubble_scaled_mfu``, the plan being the analysis' batch on its GPUs), so
    notebook 02's figure and its table agree (a review: the table re-priced the bubble, the
    figure beside it held the MFU fixed). Arrays broadcast as ``batch_sweep``'s."""
    if not isinstance(analysis, BatchAnalysis) or analysis.layout is None:
        raise ValueError(f"analysis={analysis!r:.60} must be analyse_batch's result")
    return _layout_sweep(analysis.target, analysis.layout, model, accelerator, batch_tokens,
                         n_gpus, mfu, price_usd_per_gpu_hour, seq_len, dtype,
                         analysis.global_batch_tokens, analysis.n_gpus)


def _layout_sweep(target, lay: BatchLayout, model, accelerator, batch_tokens, n_gpus, mfu,
                  price_usd_per_gpu_hour, seq_len, dtype, plan_batch_tokens, plan_n_gpus):
    """``batch_sweep`` of ``plan_sweep`` and ``analyse_batch``'s key batches."""
    b, n = np.broadcast_arrays(np.asarray(batch_tokens, dtype=float), np.asarray(n_gpus))
    m = bubble_scaled_mfu(mfu, b, n, lay, seq_len, plan_batch_tokens, plan_n_gpus)
    return batch_sweep(target, b, model, accelerator, n.astype(int), m, price_usd_per_gpu_hour,
                       seq_len, lay.micro_batch_size, lay.tp * lay.cp * lay.pp, dtype)


def bubble_scaled_mfu(mfu, batch_tokens, n_gpus, layout: BatchLayout, seq_len: int,
                      plan_batch_tokens=None, plan_n_gpus=None):
    """The plan's MFU carried to other batches and GPU counts of the same layout: the plan's MFU
    holds its own pipeline bubble, a batch of m micro-batches per replica another one::

        m      = B / (dp · mbs · s),   dp = n / (tp · cp · pp),   w = max(m, 1)
        f(m)   = w / (k · (1 + b(k)))   k the slots a replica runs (below)
        MFU(B) = MFU · f(m_B) / f(m_plan)

    b the schedule's bubble over the ideal compute (``parallel.bubble_fraction``: (p − 1)/(v·k)
    for 1F1B and interleaved, Narayanan et al. 2021 §2.2). k = ⌈w⌉: a replica's last, partial
    micro-batch takes a whole slot. The interleaved schedule runs only whole multiples of p
    micro-batches (``parallel`` rule ``interleaved_microbatches``): where ⌈w⌉ is not one, the
    better of 1F1B at ⌈w⌉ and the interleaved schedule padded to ⌈w/p⌉·p slots. Below one
    micro-batch per replica (w = 1) the idle replicas are ``batch_sweep``'s idle GPUs, not
    counted again. The plan is ``plan_batch_tokens`` on ``plan_n_gpus`` (None: the first entry
    of ``batch_tokens`` and ``n_gpus``). A teacher's trial: a batch of 3.4 micro-batches per
    replica on a PP 4 plan was priced at the plan's MFU, cheaper and faster than the plan at 4.
    At most 1: an MFU its plan's bubble leaves no room for (MFU ÷ f(m_plan) > 1, its GPUs
    computing above their peak between bubbles, e.g. 0.4 on PP 4 at one micro-batch, 75% idle)
    is read at the peak for the batches that shrink the bubble. Arrays in (broadcast), an array
    out."""
    b, n = np.broadcast_arrays(np.asarray(batch_tokens, dtype=float),
                               np.asarray(n_gpus, dtype=float))
    b0 = b.flat[0] if plan_batch_tokens is None else float(plan_batch_tokens)
    n0 = n.flat[0] if plan_n_gpus is None else float(plan_n_gpus)
    return np.minimum(mfu * _compute_share(b, n, layout, seq_len) / _compute_share(
        np.array(b0), np.array(n0), layout, seq_len), 1.0)


def _compute_share(b, n, layout: BatchLayout, seq_len: int):
    """``bubble_scaled_mfu``'s f(m): the share of a replica's step that computes."""
    pp, v = layout.pp, layout.virtual_stages
    w = np.maximum(b / (n / (layout.tp * layout.cp * pp) * layout.micro_batch_size * seq_len),
                   1.0)
    k = np.ceil(w - 1e-9)
    plain = "1f1b" if layout.pp_schedule == "interleaved" else layout.pp_schedule
    f = w / (k * (1.0 + np.asarray(bubble_fraction(pp, k.astype(int), plain, 1,
                                                   relative_to="ideal"), dtype=float)))
    if layout.pp_schedule != "interleaved" or pp == 1:
        return f
    slots = np.ceil(k / pp) * pp
    inter = w / (slots * (1.0 + np.asarray(bubble_fraction(
        pp, slots.astype(int), "interleaved", v, relative_to="ideal"), dtype=float)))
    return np.where(k % pp == 0, inter, np.maximum(f, inter))


def _fill_sentence(analysis: BatchAnalysis, busy_gpus: float, fill_dp: float) -> str:
    """``batch_verdict``'s sentence on whether the batch gives the GPUs work: replicas without
    a micro-batch idle (batch below ``fill_dp`` = n·mbs·seq/(tp·cp·pp)); with fewer
    micro-batches than stages every replica works but its stages wait their turn (the bubble,
    which the MFU holds: not counted as idle GPUs a second time); else all work."""
    b, n_gpus, fill = (analysis.global_batch_tokens, analysis.n_gpus,
                       analysis.fill_batch_tokens)
    m = analysis.micro_batches_per_step
    if b < fill_dp * (1 - 1e-9):
        return (f"It is too small to keep {fmt_gpus(n_gpus)} busy: only "
                f"{busy_gpus / n_gpus:.0%} of them work (a replica without a micro-batch "
                f"idles); the smallest batch that gives every replica one is "
                f"{fmt_count(fill_dp, 3)} tokens"
                + (f", and every pipeline stage one at a time {fmt_count(fill, 3)}"
                   if analysis.pp > 1 else "") + ".")
    if b < fill * (1 - 1e-9):
        return (f"It gives every replica work, but {m} {noun(m, 'micro-batch', 'micro-batches')} "
                f"for {analysis.pp} pipeline stages: the stages wait their turn (the bubble, "
                f"below, which the MFU holds); {fmt_count(fill, 3)} tokens give every stage one "
                "at a time.")
    who = f"all {fmt_gpus(n_gpus)}" if n_gpus > 1 else "its one GPU"
    return (f"It gives {who} work ({b / fill:,.3g}× the {fmt_count(fill, 3)}-token minimum; {m} "
            f"{noun(m, 'micro-batch', 'micro-batches')} per replica per step).")


def _regime_sentence(analysis: BatchAnalysis, r: float) -> str:
    """``batch_verdict``'s sentence on the batch B = r·B_noise against the critical batch (the
    regimes of its docstring); near it, the balance is the loss's, steps against tokens, and
    where no batch window exists on these GPUs that is said to come after (a consistency audit
    read "a balanced trade" beside "No good window" on the Llama 3.1 405B page)."""
    if r < 0.5:
        return ("That is well below the critical batch: compute-efficient, and a bigger batch "
                "(with more GPUs) would buy time cheaply.")
    if r > 2:
        return ("That is above the critical batch: the extra batch buys little time and spends "
                "extra tokens.")
    fill = analysis.fill_batch_tokens
    fill = max(fill, analysis.low_bubble_batch_tokens) if analysis.pp > 1 else fill
    return ("That is near the critical batch: for the loss, a balanced trade between time "
            "(steps) and compute (tokens)"
            + ("; whether these GPUs run it without idling is another matter, below."
               if fill > analysis.target.b_noise_tokens else "."))


def batch_verdict(analysis: BatchAnalysis) -> list[str]:
    """The answer to "how big should the batch be?" for a scenario, as sentences computed from
    ``analysis`` (no fixed text: every number and every regime follows from the inputs).

    Regimes around the critical batch (McCandlish et al. 2018 §2; Kaplan et al. 2020 §5.1); the
    factor-of-two boundaries are this workbook's convention, not thresholds from the papers:
    B < B_noise/2 is compute-efficient (≤ 1.5·E_min tokens) but needs ≥ 3·S_min steps;
    B_noise/2 ≤ B ≤ 2·B_noise is the balanced region; B > 2·B_noise buys little time (≤ 1.5·S_min
    steps either way) for ≥ 3·E_min tokens.
    """
    t = analysis.target
    b, n_gpus = analysis.global_batch_tokens, analysis.n_gpus
    bn, fill = t.b_noise_tokens, analysis.fill_batch_tokens
    r = b / bn
    kb = analysis.key_batches.set_index("case")
    plan, crit = kb.loc["plan"], kb.loc["B_noise"]
    lines = [
        f"Target: {t.loss_nats:.3f} nats on Kaplan's scale ({t.loss_source}); critical batch "
        f"B_noise ≈ {fmt_count(bn, 3)} tokens ({t.b_noise_source}).",
        f"The plan's {fmt_count(b, 3)} tokens per step is {r:.2f}·B_noise: it needs "
        f"{plan.tokens_over_e_min:.2f}× the minimum tokens and {plan.steps_over_s_min:.2f}× the "
        "minimum steps.",
    ]
    lines.append(_regime_sentence(analysis, r))
    fill_dp = fill / analysis.pp  # one micro-batch per replica (its stages work by turns)
    lines.append(_fill_sentence(analysis, plan.busy_gpus, fill_dp))
    if analysis.pp > 1:
        ok = analysis.bubble_fraction <= BUBBLE_TARGET + 1e-12
        lines.append(f"The pipeline bubble idles {analysis.bubble_fraction:.1%} of each step at this "
                     f"batch ({'at most' if ok else 'above'} the {BUBBLE_TARGET:.0%} this workbook "
                     f"takes as full); a bubble of at most {BUBBLE_TARGET:.0%} needs at least "
                     f"{fmt_count(analysis.low_bubble_batch_tokens, 3)} tokens per step on these "
                     "GPUs.")
    dt = float(t.steps(2 * b) / t.steps(b)) - 1
    dh = float(t.tokens(2 * b) / t.tokens(b)) - 1
    if 2 * b <= fill_dp * (1 + 1e-9):  # idle replicas take the extra work: same step time
        lines.append(f"Doubling the batch on the same GPUs ({fmt_count(2 * b, 3)} tokens) changes "
                     f"wall-clock and reserved GPU-hours by {fmt_signed_pct(dt)} (compute "
                     f"{fmt_signed_pct(dh)}).")
    else:
        lines.append(f"Doubling batch and GPUs ({fmt_count(2 * b, 3)} tokens on {2 * n_gpus:,} "
                     f"GPUs) changes wall-clock by {fmt_signed_pct(dt)} and compute GPU-hours by "
                     f"{fmt_signed_pct(dh)}.")
    lines.append(f"At B_noise ({fmt_count(bn, 3)} tokens on {fmt_gpus(int(crit.n_gpus))}) the run "
                 f"takes {fmt_quantity(crit.wall_clock_days)} days and "
                 f"{fmt_count(crit.reserved_gpu_hours, 3)} GPU-hours, against "
                 f"{fmt_quantity(plan.wall_clock_days)} days and "
                 f"{fmt_count(plan.reserved_gpu_hours, 3)} for the plan"
                 + (" (each at the plan's MFU carried to its own pipeline bubble)."
                    if analysis.pp > 1 else "."))
    over = analysis.mfu_between_bubbles
    if over > 1:   # a review: key batches at the peak, with no word of why
        lines.append(f"The plan's bubble leaves the scenario's MFU no room: between bubbles its "
                     f"GPUs would compute at {over:.0%} of the peak, so the batches that shrink "
                     "the bubble are priced at the peak itself (their cost a floor); the MFU "
                     "or the plan needs a second look.")
    fill = max(fill, analysis.low_bubble_batch_tokens) if analysis.pp > 1 else fill
    if fill <= bn:
        lines.append(f"Batch window for this run: from {fmt_count(fill, 3)} tokens (fills the GPUs"
                     + (f", bubble ≤ {BUBBLE_TARGET:.0%}" if analysis.pp > 1 else "") + ") "
                     f"to about {fmt_count(bn, 3)} (the critical batch); below it GPUs idle, "
                     "above it compute is wasted.")
    else:
        how = ("filling them with a bubble of at most "
               f"{BUBBLE_TARGET:.0%}" if analysis.pp > 1 and
               analysis.low_bubble_batch_tokens > analysis.fill_batch_tokens else "filling them")
        lines.append(f"No good window: on {fmt_gpus(n_gpus)}, {how} takes {fmt_count(fill, 3)} "
                     f"tokens per step, {fill / bn:.2g}× the critical batch, so the cluster is "
                     "larger than this target can use efficiently (fewer GPUs, more tensor "
                     "parallelism, or a lower loss target, where B_noise is larger).")
    return lines


def _allreduce_note(zero_volume) -> str:
    """The all-reduce row's note; with ``zero_volume`` = (ZeRO stage, micro-batches per step,
    ``batch.zero_volume_ratio``) above 1, what the plan's stage sends beside it (a consistency
    audit read the 405B index's 7.1% "if not overlapped" beside notebook 04b's 17% exposed
    data-parallel time of its ZeRO-2 plan, which sends 8.25× that volume)."""
    note = "at the plan's batch, one all-reduce per step, if not overlapped"
    if zero_volume is None:
        return note
    stage, m, ratio = zero_volume
    if not ratio > 1:
        return note
    about = "about " if stage == 3 else ""   # hybrid sharding (HSDP) sends less
    return (f"{note}; the plan's ZeRO-{stage} at {m:,} micro-batch{'es' if m > 1 else ''} per "
            f"step sends {about}{ratio:.3g}× this volume (notebook 04b prices its exposed part)")


def headline_figures(analysis: BatchAnalysis, zero_volume: tuple | None = None) -> list[tuple]:
    """Notebook 02's headline figures as (key, label, value, unit, note) tuples, for
    ``report.summary_row``. Each figure and its formula (B the planned batch, N Kaplan's
    non-embedding active parameters, m micro-batches per replica, dp replicas):

    * ``batch_target_loss`` L: the fixed point of L = (N_c/N)^0.077 + (S_c/S_min)^0.76 with
      S_min = S(B)/(1 + B_crit(L)/B), S(B) = D/B (Kaplan et al. 2020 Eq. 5.4, 5.6, Table 3), or
      the scenario's ``batch_target_loss``;
    * ``b_noise_tokens`` B_noise = B*/L^(1/α_B), B* = 2·10^8 tokens, α_B = 0.21 (Eq. 5.3), or
      the scenario's ``batch_noise_tokens``;
    * ``plan_over_b_noise`` = B / B_noise;
    * ``fill_batch_tokens`` = n_gpus · micro_batch_size · seq_len / (tp·cp) (m = pp);
    * ``plan_bubble_fraction`` = b/(1+b), b = (pp−1)/(v·m) (Narayanan et al. 2021 §2.2);
      ``low_bubble_batch_tokens``: the least B with that share ≤ ``BUBBLE_TARGET``;
    * ``plan_tokens_over_e_min`` = 1 + B/B_noise; ``plan_steps_over_s_min`` = 1 + B_noise/B
      (McCandlish et al. 2018 §2);
    * ``b_noise_wall_clock_days``, ``b_noise_gpu_hours``: ``batch_sweep`` at B = B_noise on
      n = max(n_gpus, ``_gpus_for_batches``(B_noise)) GPUs (whole EP groups): compute GPU-hours = 2·E_min · F_model /
      (peak · MFU_B · 3600), MFU_B the plan's MFU carried to that batch's pipeline bubble
      (``bubble_scaled_mfu``), wall-clock = compute GPU-hours · 3600 / busy GPUs, and the figure
      is the reserved GPU-hours n · wall-clock (compute plus the hours of GPUs left idle);
    * ``deepseek_b_opt_tokens`` = 0.2920·C^0.3271 and ``deepseek_lr`` = 0.3118·C^−0.1250 with
      C = M·D, M = 72·L·d² + 12·L·d·s (DeepSeek-AI 2024 Eq. 1–2);
    * ``allreduce_exposed_fraction`` = T_ar/(T_ar + T_compute), T_ar = 2·(n−1)/n · G/B_ring
      (``dp_gradient_sync``, ``dp_sync_bandwidth``); its note names what a ZeRO-2/3 plan sends
      beyond it, ``zero_volume`` = (stage, micro-batches, ``batch.zero_volume_ratio``);
    * ``activation_gb_per_gpu``: the plan's activations as its stack stores them
      (``plan_activation_bytes_per_gpu``) where computed, else ``activation_bytes_per_gpu``
      (Korthikanti et al. 2022 Table 2): ``_activation_row``.
    """
    t, kb = analysis.target, analysis.key_batches.set_index("case")
    plan, crit = kb.loc["plan"], kb.loc["B_noise"]
    return [
        ("batch_target_loss", "target loss", t.loss_nats, "nats", "Kaplan et al. 2020 scale"),
        ("b_noise_tokens", "critical batch B_noise", t.b_noise_tokens, "tokens",
         t.b_noise_source),
        ("plan_over_b_noise", "planned batch / B_noise",
         analysis.global_batch_tokens / t.b_noise_tokens, "", "McCandlish et al. 2018"),
        ("fill_batch_tokens", "batch that gives every GPU work", analysis.fill_batch_tokens,
         "tokens", f"{fmt_gpus(analysis.n_gpus)}, micro-batch {analysis.micro_batch_size}, "
         f"TP {analysis.tp}" + (f" × CP {analysis.cp}" if analysis.cp > 1 else "")),
        ("plan_bubble_fraction", "pipeline bubble, share of the step", analysis.bubble_fraction,
         "", f"at the plan's batch, PP {analysis.pp}, {analysis.micro_batches_per_step} "
         f"{noun(analysis.micro_batches_per_step, 'micro-batch', 'micro-batches')}, the "
         "schedule's formula (notebook 04b's step model prices it with the step's waits)"),
        ("low_bubble_batch_tokens", f"batch for a bubble ≤ {BUBBLE_TARGET:.0%}",
         analysis.low_bubble_batch_tokens, "tokens",
         "same cluster and micro-batch" if analysis.pp > 1 else
         "no pipeline in the plan, so no bubble: the batch that gives every GPU work"),
        ("plan_tokens_over_e_min", "plan's tokens / E_min", plan.tokens_over_e_min, "",
         "E/E_min = 1 + B/B_noise, McCandlish et al. 2018 §2 (Kaplan et al. 2020 Eq. 5.5)"),
        ("plan_steps_over_s_min", "plan's steps / S_min", plan.steps_over_s_min, "",
         "S/S_min = 1 + B_noise/B, McCandlish et al. 2018 §2 (Kaplan et al. 2020 Eq. 5.4)"),
        ("b_noise_wall_clock_days", "wall-clock at B_noise", crit.wall_clock_days, "days",
         (f"on this run's {fmt_gpus(analysis.n_gpus)}" if int(crit.n_gpus) == analysis.n_gpus
          else f"on {fmt_gpus(int(crit.n_gpus))}, the most B_noise keeps at work ("
          + (f"{analysis.pp} micro-batches" if analysis.pp > 1 else "one micro-batch")
          + f" per replica), not this run's {fmt_gpus(analysis.n_gpus)}")
         + f"; the plan: {fmt_quantity(plan.wall_clock_days)} days at its batch"),
        ("b_noise_gpu_hours", "GPU-hours at B_noise", crit.reserved_gpu_hours, "GPU-h",
         f"plan: {plan.reserved_gpu_hours:,.0f}"),
        ("deepseek_b_opt_tokens", "DeepSeek LLM B_opt", analysis.deepseek["batch_tokens"],
         "tokens", "C = M·D, DeepSeek LLM Eq. 1"),
        ("deepseek_lr", "DeepSeek LLM η_opt", analysis.deepseek["lr"], "", "AdamW peak"),
        ("allreduce_exposed_fraction", "all-reduce share of a step", analysis.exposed_fraction,
         "", _allreduce_note(zero_volume)),
        _activation_row(analysis),
    ]


def _activation_row(analysis: BatchAnalysis) -> tuple:
    """The headline's activation memory: the plan's as its stack stores them (notebook 03's
    count, ``plan_activation_bytes_per_gpu``) where computed, else Korthikanti et al.'s count of
    L layers of one micro-batch (``activation_bytes_per_gpu``), each said as what it is, so the
    index does not set one beside notebook 03's total of another definition."""
    stored = analysis.plan_activation_bytes_per_gpu
    if np.isfinite(stored):
        return ("activation_gb_per_gpu", "activation memory per GPU, scenario plan",
                stored / 1e9, "GB", "its busiest pipeline stage as its stack stores them, "
                "notebook 03's count (step_scenario.scenario_memory)")
    return ("activation_gb_per_gpu", "activation memory per GPU",
            analysis.activation_bytes_per_gpu / 1e9, "GB",
            "L layers of one micro-batch with FlashAttention, Korthikanti et al.'s count "
            "(llmcost.memory)")


def scenario_batch_analysis(p: dict, model: ModelSpec | None = None,
                            price_usd_per_gpu_hour: float = 1.0, plan=None):
    """Notebook 02's plan analysis from scenario parameters: ``(plan, cluster, analysis)``
    (``plan``: that plan instead of ``scenario_plan``'s, e.g. ``calibrate.priced_plan``'s, the
    one the bill prices when the scenario gives pilot runs).

    ``price_usd_per_gpu_hour`` prices the ``key_batches`` rows (the notebook passes the price
    ``llmcost.resolve_price`` gives for the scenario; default 1, costs in GPU-hours).

    * plan = ``step_scenario.scenario_plan(p)``: the fields the scenario fixes, the free ones
      chosen by ``parallel.choose_plan``, which ranks the plans that fit in memory by the
      step-time model's predicted step time (``llmcost.step``; notebook 04b) — the plan notebooks
      03 and 04 show;
    * gradient bytes per parameter = ``memory.get_recipe(optimizer_recipe).grads_bytes`` (4 for
      ``bf16_adam_fp32_grads``: fp32 gradients reduced across DP, as Megatron-LM does);
    * DP ring bandwidth = ``dp_sync_bandwidth(plan, cluster)`` (the placement of
      ``comm.placement``);
    * analysis = ``analyse_batch(...)`` with the plan's tp, pp, cp, micro-batch, schedule,
      virtual stages and recomputation (its docstring writes every formula).

    Raises
    ------
    ValueError (ScenarioError, PlanError)
        What ``step_scenario.scenario_plan`` or ``analyse_batch`` refuse.
    """
    if not isinstance(p, dict):
        raise ValueError(f"p={p!r:.60} must be a dict of scenario parameters")
    missing = [k for k in ("model", "accelerator", "n_gpus", "train_tokens", "seq_len",
                           "global_batch_tokens", "mfu") if k not in p]
    if missing:
        raise ValueError(f"p has no {missing[0]!r}: scenario_batch_analysis needs it")
    model = as_model(model if model is not None else p["model"], needs="a batch analysis")
    plan = scenario_plan(p, model) if plan is None else plan
    cluster = scenario_cluster(p)
    bw = dp_sync_bandwidth(plan, cluster)
    price = price_usd_per_gpu_hour
    layout = BatchLayout(tp=plan.tp, pp=plan.pp, cp=plan.cp, ep=plan.ep,
                         micro_batch_size=plan.micro_batch_size, recompute=plan.recompute,
                         pp_schedule=plan.schedule, virtual_stages=plan.virtual_stages,
                         grad_bytes_per_param=get_recipe(scenario_recipe_name(p)).grads_bytes,
                         bandwidth_bytes_per_s=bw["bandwidth_bytes_per_s"])
    a = analyse_batch(model, cluster.accelerator, p["n_gpus"], p["train_tokens"], p["seq_len"],
                      p["global_batch_tokens"], p["mfu"], price, layout,
                      p.get("batch_target_loss"), p.get("batch_noise_tokens"),
                      p.get("dtype", "bf16"))
    a = replace(a, dp_links=bw["links"], dp_members_per_domain=bw["members_per_domain"],
                plan_activation_bytes_per_gpu=float(scenario_memory(p, plan, model).activations))
    return plan, cluster, a
