"""When does communication hide behind compute? One roofline per parallelism kind.

Every parallel dimension trades FLOPs for bytes. A collective that can run while independent
compute runs costs nothing if it is shorter; the question is the ratio

    T_compute / T_comm = (FLOPs the GPU does while the bytes move / bytes moved) ÷ (C / W)

with ``C`` the GPU's FLOP/s and ``W`` the per-GPU, per-direction bus bandwidth of the links the
group uses. ``C/W`` is the hardware's *communication ridge* (FLOPs per byte, the roofline of
Williams, Waterman, Patterson 2009, CACM 52(4), applied to a link instead of HBM); the
parallelism's FLOPs per byte is its *intensity*. Above the ridge the traffic can hide, below it
the GPUs wait. This is the argument of the JAX scaling book (Austin et al., *How To Scale Your
Model*, chapters "Sharded matrices" and "Training", github jax-ml/scaling-book at 0819a7d), here
with ring collectives (``llmcost.comm``: a ring all-reduce moves 2(n−1)/n·S, a gather or scatter
(n−1)/n·S per rank) and the workbook's conventions: bf16 weights and activations (2 bytes),
gradients reduced in the recipe's bytes (4 for fp32), ``C`` the dense peak unless stated.

What each kind overlaps with, and the threshold on the quantity the plan controls:

==========  =====================================================  ===============================
kind        compute vs traffic (per GPU)                           hides when
==========  =====================================================  ===============================
DP          backward 4·P·B/C vs all-reduce f·P·β_g/W               B ≥ f·β_g·C/(4W)
FSDP        fwd 2·P·b/C vs (n−1)/n·P·β_w/W; bwd 4·P·b/C vs          b ≥ (n−1)/n·max(β_w/2,
            (n−1)/n·P·(β_w+β_g)/W (per micro-batch)                (β_w+β_g)/4)·C/W
TP          per layer 2·T·P_l/(t·C) vs 2 all-reduces 2·f·T·h·β/W    t·f ≤ P_l·W/(h·β·C)
PP          per stage 2·T·L_s·P_l/(t·C) vs one send T·h·β/(t·W)     L_s ≥ h·β·C/(2·P_l·W)
EP          2·k·m·h·F_e·T/C vs dispatch + combine 2·k·c·T·h·β/W     F_e ≥ c·β·(n−1)/n·C/(m·W)
CP (ring)   per ring step 4·T_c²·h/C (×½ causal) vs K,V 2·T_c·h_kv·β/W  T_c ≥ h_kv·β·C/(2·h·W) (×2 causal)
==========  =====================================================  ===============================

P parameters the GPU computes with, B tokens of the micro-batch whose backward DP's reduction
overlaps (the last of the step: ``dp_roofline``), b tokens per replica per micro-batch, T tokens
per micro-batch, t the TP degree, f = 2(n−1)/n for a ring all-reduce (1 with in-network
reduction), h d_model, P_l parameters of one layer, L_s layers per stage, k
experts per token, m weight matrices per expert (3 for SwiGLU), F_e the expert width, c the
capacity factor, T_c tokens per CP rank, h_kv the K (or V) width (n_kv_heads × d_head).

Sources: DP and FSDP — Rajbhandari et al. 2020, ZeRO, arXiv:1910.02054 §7 (ZeRO-3 moves 1.5×
DP's volume), Zhao et al. 2023, PyTorch FSDP, arXiv:2304.11277 (prefetched gathers), the scaling
book ("Training": DP and FSDP are compute-bound when the per-chip batch exceeds C/W). TP —
Shoeybi et al. 2019, Megatron-LM, arXiv:1909.08053 §3 (two all-reduces per layer and pass). PP —
Narayanan et al. 2021, arXiv:2104.04473 §2.2, §4.1. EP — Lepikhin et al. 2020, GShard,
arXiv:2006.16668; Fedus et al. 2021, Switch Transformer, arXiv:2101.03961 (capacity factor);
DeepSeek-AI 2024, DeepSeek-V3, arXiv:2412.19437 §3.2.1 (cross-node EP at a compute to
communication ratio of about 1:1). CP — Liu, Zaharia, Abbeel 2023, Ring Attention,
arXiv:2310.01889 §3 (overlap needs a block of at least C/W tokens).

In-switch reductions. An NVSwitch of the third generation (H100) and InfiniBand Quantum switches
can add the gradients inside the switch (NVLink SHARP, IB SHARP: Graham et al. 2016, *Scalable
Hierarchical Aggregation Protocol*, COMHPC): each GPU sends its S bytes once and receives the
sum once, so an all-reduce moves S instead of the ring's 2(n−1)/n·S (``all_reduce_factor``).
Measured on an H100 board, NVLS reaches a bus bandwidth of about 480 GB/s against the ring's
370 (nccl-tests issue #212; nccl issue #1442: "a 30% improvement"): 1.3×, of the up to
2(n−1)/n = 1.75× the byte count allows. The
step-time model (``llmcost.step``) uses ring figures only.

Topologies that are not a switch. On an NVSwitch board any group gets each GPU's full link
bandwidth. An MI300X board is a **full mesh** (7 Infinity Fabric links per GPU, one to each
peer) and a TPU pod a **torus** (2 links per axis); ``group_bandwidth`` gives what a group
really gets there, and ``topology_table`` how far the whole-board figure is off
(``data/scaleup_topology.csv``). ``llmcost.comm`` prices a full mesh's groups by their links
(``comm.mesh_scaleup_bandwidth``); a torus it still prices as a switch (the best case).

Every function broadcasts over numpy arrays and raises ``ValueError`` naming a bad argument.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ..core.catalog import as_accelerator, as_model, load_accelerator, load_efficiency
from ..core.diskcache import disk_cached
from ..core.shapes import layer_params, model_shapes
from ..core.units import as_array, as_scalar, options_with, scalar_or_array
from .comm import (TOPOLOGIES, group_layout, load_topologies,  # noqa: F401 (re-exported)
                   mesh_peers, mesh_scaleup_bandwidth)
from .step import KERNEL_EFFICIENCY, PARTS, StepBreakdown

@dataclass(frozen=True)
class Roofline:
    """Compute a collective can hide behind, the collective's time, and the threshold.

    ``compute_s`` and ``comm_s`` are seconds per the unit named in ``per``; ``critical`` is the
    value of ``controls`` at which they are equal (``value`` is the plan's); the collective
    hides when ``ratio = compute_s / comm_s ≥ 1``, which for TP means ``value ≤ critical`` and
    for every other kind ``value ≥ critical``.
    """

    kind: str
    compute_s: float
    comm_s: float
    controls: str
    value: float
    critical: float
    per: str

    @property
    def ratio(self):
        """Compute time ÷ communication time (≥ 1: the traffic can hide)."""
        return np.asarray(self.compute_s) / np.asarray(self.comm_s)

    @property
    def exposed_s(self):
        """max(0, T_comm − T_compute): the wait if the overlap is perfect."""
        return np.maximum(np.asarray(self.comm_s) - np.asarray(self.compute_s), 0.0)

    @property
    def hidden(self):
        """Whether the traffic fits under the compute (ratio ≥ 1)."""
        return self.ratio >= 1.0


def _rates(flops_per_s, bytes_per_s):
    return (as_array(flops_per_s, "flops_per_s", positive=True),
            as_array(bytes_per_s, "bytes_per_s", positive=True))


def ridge(flops_per_s, bytes_per_s):
    """Communication ridge C / W, FLOPs per byte: how many FLOPs a GPU must do per byte it sends
    for the transfer to hide (Williams et al. 2009's ridge point with a link as the memory)."""
    c, w = _rates(flops_per_s, bytes_per_s)
    return scalar_or_array(c / w)


def _group(group_size, name="group_size"):
    """n as an array (``None``: a large group, n → ∞)."""
    if group_size is None:
        return np.asarray(np.inf)
    n = as_array(group_size, name, positive=True, integer=True)
    if np.any(n < 2):
        raise ValueError(f"{name}={float(np.min(n)):g} must be >= 2 (a group that talks)")
    return n


def all_reduce_factor(group_size, in_network: bool = False):
    """Bytes each rank moves per byte of buffer in an all-reduce: ``2(n−1)/n`` for a ring
    (Patarasuk & Yuan 2009), ``1`` with in-switch reduction (NVLink SHARP, IB SHARP: send once,
    receive the sum once; Graham et al. 2016). ``group_size=None`` is a large group (the ring's
    limit 2)."""
    if not isinstance(in_network, (bool, np.bool_)):
        raise ValueError(f"in_network={in_network!r} must be True or False")
    n = _group(group_size)
    if in_network:
        return scalar_or_array(np.ones_like(n, dtype=float))
    return scalar_or_array(2.0 * _gather_factor(n))


def _gather_factor(n):
    """(n−1)/n, 1 for n = ∞."""
    n = np.asarray(n, dtype=float)
    return np.where(np.isinf(n), 1.0, (n - 1) / np.where(np.isinf(n), 1.0, n))


def _bytes(value, name):
    return as_array(value, name, positive=True)


def dp_roofline(params_per_gpu, tokens_per_replica, flops_per_s, bytes_per_s, *,
                group_size=None, grad_bytes=4.0, in_network: bool = False) -> Roofline:
    """Data parallelism: the gradient all-reduce against the backward pass it overlaps.

    Per optimizer step and GPU, with P the parameters the GPU computes with (P/(t·p) under TP
    and PP), B the tokens of the backward the reduction overlaps, β_g the gradient bytes and f
    the all-reduce factor (``all_reduce_factor``)::

        T_compute = 4·P·B / C          (the backward pass: 2/3 of 6·P·B)
        T_comm    = f·P·β_g / W
        hides when B ≥ B* = f·β_g·C / (4·W)

    (Rajbhandari et al. 2020 §7 for the volume; the scaling book's "Training" chapter: with bf16
    gradients and a large group, B* = C/W.) With gradient accumulation over m micro-batches the
    reduction overlaps only the **last** micro-batch's backward: PyTorch DDP skips it inside
    ``no_sync()`` and Megatron-LM's ``overlap_grad_reduce`` launches its buckets during the last
    micro-batch's backward, so B is that micro-batch's tokens (the step's only when m = 1), as in
    the step model (``step.zero_exposure``: the window is the last micro-batch's 2F; a source
    check found notebook 04 reading "hides" off the step's tokens where the step model waited).
    ZeRO-1 splits the all-reduce into a reduce-scatter
    of the gradients, behind the same last backward, and an all-gather of the weights, behind the
    next forward (``step.zero_exposure``): the backward's share is the reduce-scatter's
    (n−1)/n·P·β_g. ZeRO-2 as DeepSpeed runs it reduce-scatters after every micro-batch, the
    same bytes behind each micro-batch's backward. For either, call this with the micro-batch's
    tokens and half the gradient bytes (f·β_g/2 = (n−1)/n·β_g with the ring's f, not the
    in-switch one).
    """
    p = as_array(params_per_gpu, "params_per_gpu", positive=True)
    b = as_array(tokens_per_replica, "tokens_per_replica", positive=True)
    c, w = _rates(flops_per_s, bytes_per_s)
    f = np.asarray(all_reduce_factor(group_size, in_network))
    bg = _bytes(grad_bytes, "grad_bytes")
    return Roofline("DP", scalar_or_array(4 * p * b / c), scalar_or_array(f * p * bg / w),
                    "tokens per replica in the last micro-batch", scalar_or_array(b),
                    scalar_or_array(f * bg * c / (4 * w)), "step")


def fsdp_roofline(params_per_gpu, tokens_per_microbatch, flops_per_s, bytes_per_s, *,
                  group_size=None, weight_bytes=2.0, grad_bytes=4.0) -> Roofline:
    """ZeRO-3 / FSDP: per-layer weight gathers and gradient reduce-scatters, per micro-batch.

    The weights are gathered before each layer's forward and again before its backward, and its
    gradients reduce-scattered after the backward (Rajbhandari et al. 2020 §7; PyTorch FSDP,
    Zhao et al. 2023), every micro-batch. With b the replica's tokens per micro-batch, a ring
    gather factor g = (n−1)/n, β_w weight and β_g gradient bytes::

        forward:  2·P·b / C   vs  g·P·β_w / W
        backward: 4·P·b / C   vs  g·P·(β_w + β_g) / W
        hides when b ≥ b* = g·max(β_w/2, (β_w + β_g)/4)·C / W

    (bf16 weights and gradients: b* = g·C/W, as plain DP; the scaling book's "Training" chapter.)
    ``compute_s`` and ``comm_s`` are those of the tighter pass, the one the threshold holds (the
    backward once β_g ≥ β_w), per micro-batch, so that ``ratio`` = b / b* and ``hidden`` iff
    b ≥ b*: each pass's traffic overlaps its own compute only (a review read a threshold above
    the tokens beside a ratio of the two passes' totals, 0.63 for b / b* = 0.56). ``exposed_s``
    is that pass's shortfall: a lower bound on the micro-batch's wait, the other pass may wait
    too.
    """
    p = as_array(params_per_gpu, "params_per_gpu", positive=True)
    b = as_array(tokens_per_microbatch, "tokens_per_microbatch", positive=True)
    c, w = _rates(flops_per_s, bytes_per_s)
    g = _gather_factor(_group(group_size))
    bw, bg = _bytes(weight_bytes, "weight_bytes"), _bytes(grad_bytes, "grad_bytes")
    crit = g * np.maximum(bw / 2, (bw + bg) / 4) * c / w
    back = (bw + bg) / 4 >= bw / 2  # the tighter pass: backward 4·P·b/C, forward 2·P·b/C
    return Roofline("FSDP", scalar_or_array(np.where(back, 4, 2) * p * b / c),
                    scalar_or_array(g * p * np.where(back, bw + bg, bw) / w),
                    "tokens per replica per micro-batch", scalar_or_array(b),
                    scalar_or_array(crit), "micro-batch")


def tp_roofline(layer_params, d_model, tp, flops_per_s, bytes_per_s, *, tokens=1.0,
                act_bytes=2.0, in_network: bool = False) -> Roofline:
    """Tensor parallelism: two activation all-reduces per layer and pass against the layer's
    GEMMs (Shoeybi et al. 2019 §3; with sequence parallelism an all-gather and a reduce-scatter
    each, the same bytes, Korthikanti et al. 2022 §4.2.2).

    Per layer and forward pass, T tokens, t ranks, f = ``all_reduce_factor(t)``::

        T_compute = 2·T·P_l / (t·C)
        T_comm    = 2·f·T·h·β / W
        ratio     = P_l·W / (t·f·h·β·C)       (independent of T)

    so the traffic hides only while t·f ≤ P_l·W/(h·β·C): the largest such t is ``critical``
    (the backward has twice the compute and twice the traffic: the same ratio). For a dense
    layer P_l ≈ 12·h², so the ratio grows with the model width: wide models tolerate more TP.
    The threshold assumes the collectives overlap GEMMs (Transformer Engine's userbuffers,
    ``comm_tp_overlap="all"``); Megatron's default exposes the forward ones whatever the ratio.
    """
    pl = as_array(layer_params, "layer_params", positive=True)
    h = as_array(d_model, "d_model", positive=True)
    t = _group(tp, "tp")
    c, w = _rates(flops_per_s, bytes_per_s)
    tok = as_array(tokens, "tokens", positive=True)
    a = _bytes(act_bytes, "act_bytes")
    f = np.asarray(all_reduce_factor(tp, in_network))
    budget = pl * w / (h * a * c)      # t·f must not exceed this
    # largest t with t·f(t) ≤ budget: ring t·2(t−1)/t = 2(t−1) → t = 1 + budget/2; in-switch t.
    crit = budget if in_network else 1 + budget / 2
    return Roofline("TP", scalar_or_array(2 * tok * pl / (t * c)),
                    scalar_or_array(2 * f * tok * h * a / w), "TP degree", scalar_or_array(t),
                    scalar_or_array(crit), "layer forward")


def pp_roofline(layer_params, d_model, layers_per_stage, flops_per_s, bytes_per_s, *,
                tokens=1.0, act_bytes=2.0, tp=1) -> Roofline:
    """Pipeline parallelism: one activation send per micro-batch and stage boundary against the
    stage's forward compute (Narayanan et al. 2021 §2.2; 1/t of the activation per GPU with
    Megatron's scatter/gather, §4.1)::

        T_compute = 2·T·L_s·P_l / (t·C)
        T_comm    = T·h·β / (t·W)
        hides when L_s ≥ L* = h·β·C / (2·P_l·W)

    L* is a fraction of a layer for any real model: pipeline sends hide; what pipelining costs
    is the bubble (notebook 03), not bandwidth.
    """
    pl = as_array(layer_params, "layer_params", positive=True)
    h = as_array(d_model, "d_model", positive=True)
    ls = as_array(layers_per_stage, "layers_per_stage", positive=True)
    c, w = _rates(flops_per_s, bytes_per_s)
    tok = as_array(tokens, "tokens", positive=True)
    a = _bytes(act_bytes, "act_bytes")
    t = as_array(tp, "tp", positive=True, integer=True)
    return Roofline("PP", scalar_or_array(2 * tok * ls * pl / (t * c)),
                    scalar_or_array(tok * h * a / (t * w)), "layers per stage",
                    scalar_or_array(ls), scalar_or_array(h * a * c / (2 * pl * w)),
                    "micro-batch forward")


def ep_roofline(d_model, d_ff_expert, top_k, ep, flops_per_s, bytes_per_s, *, tokens=1.0,
                matrices=3, capacity_factor=1.0, dispatch_bytes=2.0,
                combine_bytes=2.0) -> Roofline:
    """Expert parallelism: the dispatch and combine all-to-alls of an MoE layer against its
    experts' GEMMs (Lepikhin et al. 2020; Fedus et al. 2021).

    Per MoE layer and forward pass, T tokens, k experts per token, m matrices of h × F_e per
    expert, capacity factor c (slots per routed token; dropless routing with imbalance: the
    busiest rank's excess), n EP ranks (a share (n−1)/n of the tokens leave the GPU)::

        T_compute = 2·k·m·h·F_e·T / C
        T_comm    = k·c·T·h·(β_dispatch + β_combine)·(n−1)/n / W
        hides when F_e ≥ F* = c·(β_d + β_c)/2·(n−1)/n·C / (m·W)

    Independent of the batch and of h: only the expert width and the link speed matter. Fine-
    grained experts (DeepSeek-V3's F_e = 2048) across nodes sit far below the ridge, which is why
    DeepSeek-V3 limits each token to 4 nodes, dispatches in FP8 and overlaps the all-to-alls with
    another micro-batch's compute (DualPipe, arXiv:2412.19437 §3.2).
    """
    h = as_array(d_model, "d_model", positive=True)
    fe = as_array(d_ff_expert, "d_ff_expert", positive=True)
    k = as_array(top_k, "top_k", positive=True)
    n = _group(ep, "ep")
    c, w = _rates(flops_per_s, bytes_per_s)
    tok = as_array(tokens, "tokens", positive=True)
    m = as_array(matrices, "matrices", positive=True)
    cf = as_array(capacity_factor, "capacity_factor", positive=True)
    beta = _bytes(dispatch_bytes, "dispatch_bytes") + _bytes(combine_bytes, "combine_bytes")
    g = _gather_factor(n)
    return Roofline("EP", scalar_or_array(2 * k * m * h * fe * tok / c),
                    scalar_or_array(k * cf * tok * h * beta * g / w), "expert width F_e",
                    scalar_or_array(fe), scalar_or_array(cf * beta / 2 * g * c / (m * w)),
                    "MoE layer forward")


def cp_roofline(d_model, kv_width, tokens_per_rank, flops_per_s, bytes_per_s, *,
                causal: bool = True, act_bytes=2.0) -> Roofline:
    """Context parallelism as ring attention: each ring step sends one K and one V block to the
    next rank while the attention of the local queries against the current block runs (Liu,
    Zaharia, Abbeel 2023 §3; Megatron-core's CP, with causal load balancing that gives every rank
    half of the masked work)::

        T_compute = 4·T_c²·h / C   (× ½ causal)         QKᵀ and AV of a T_c × T_c block
        T_comm    = 2·T_c·h_kv·β / W                    K and V of T_c tokens
        hides when T_c ≥ T* = h_kv·β·C / (2·h·W)   (× 2 causal)

    With full multi-head attention (h_kv = h) and bf16, T* = C/W: Ring Attention's "block size
    ≥ FLOPs/bandwidth". GQA shrinks K and V by n_kv/n_heads and T* with them. The projections and
    the FFN of the same tokens are further compute the transfers could hide behind; the
    threshold counts only the attention core, as the ring's own schedule does.
    """
    if not isinstance(causal, (bool, np.bool_)):
        raise ValueError(f"causal={causal!r} must be True or False")
    h = as_array(d_model, "d_model", positive=True)
    hk = as_array(kv_width, "kv_width", positive=True)
    tc = as_array(tokens_per_rank, "tokens_per_rank", positive=True)
    c, w = _rates(flops_per_s, bytes_per_s)
    a = _bytes(act_bytes, "act_bytes")
    half = 0.5 if causal else 1.0
    return Roofline("CP", scalar_or_array(4 * tc * tc * h * half / c),
                    scalar_or_array(2 * tc * hk * a / w), "tokens per CP rank",
                    scalar_or_array(tc), scalar_or_array(hk * a * c / (2 * h * w * half)),
                    "ring step")


# ----------------------------------------------------------------------------- a model's table
def model_dims(model) -> dict:
    """The sizes the rooflines read from a catalogue model: d_model ``h``, the parameters a token
    meets in one layer ``layer_params`` (a dense layer; for MoE the attention, router, shared
    experts and k of the E routed experts; ``llmcost.shapes``), the K width ``kv_width`` =
    n_kv_heads × d_head (for MLA the up-projected K, an approximation: a ring could pass the
    compressed latent instead), and for MoE models ``d_ff_expert`` and ``top_k``."""
    spec = as_model(model, needs="a communication roofline")
    c = model_shapes(spec)
    dense, moe, experts = layer_params(c, 1, 1)
    moe_model = spec.n_experts > 1
    # the parameters a token meets in one layer: an MoE layer's attention, router and shared
    # experts plus its k routed experts (of E)
    active = moe + experts * spec.n_experts_active / spec.n_experts if moe_model else dense
    return {"name": spec.name, "d_model": float(spec.d_model),
            "layer_params": float(active),
            "kv_width": float(spec.n_kv_heads * spec.d_head),
            "n_layers": int(spec.n_layers), "params": float(spec.n_params),
            "d_ff_expert": float(spec.d_ff_expert) if moe_model else None,
            "top_k": float(spec.n_experts_active) if moe_model else None}


def dp_bandwidth(dp: int, tp: int, domain_size: int, up: float, out: float,
                 peers: int = 0) -> tuple:
    """The per-direction bandwidth W of a data-parallel group of ``dp`` ranks ``tp`` apart
    (ranks ordered TP innermost) on scale-up domains of ``domain_size``, and its link in words,
    as NCCL's cost model takes it (``comm._nccl_time``): with k members per domain
    (``comm.group_layout``),

        W = B_up                    when the whole group is inside one domain (k = dp),
        W = min(B_up, k · B_out)    otherwise (the NICs of the k members pooled).

    On a full-mesh board (``peers`` links per GPU, ``comm.mesh_peers``) B_up is the k members'
    links among themselves, k links' worth for a ring across boards
    (``comm.mesh_scaleup_bandwidth``). Returns ``(W, link)``: the link
    "scale-up: the whole group in one domain" or "network, k NIC(s) pooled"."""
    k, domains = group_layout(dp, tp, domain_size)
    up = float(mesh_scaleup_bandwidth(float(up), k, peers, int(domains) > 1))
    if int(domains) == 1:
        return up, "scale-up: the whole group in one domain"
    return min(up, float(k) * float(out)), f"network, {int(k)} NIC(s) pooled"


def pp_bandwidth(stride: int, domain_size: int, up: float, out: float,
                 peers: int = 0) -> tuple:
    """The per-direction bandwidth W of a pipeline send between neighbouring stages ``stride``
    ranks apart (ranks ordered TP, CP, DP, PP: stride = tp·cp·dp) on scale-up domains of
    ``domain_size``, and its link in words, as the step model's NCCL model takes it
    (``comm._Figures.time``, ``send_recv``: the pair shares a domain unless the stride reaches
    past it)::

        W = B_up     when stride < domain (both stages in one domain),
        W = B_out    otherwise (one NIC: a send/recv pair cannot pool the domain's NICs).

    On a full-mesh board the pair's one link, ``B_up / peers``. Returns ``(W, link)``."""
    if int(stride) < int(domain_size):
        return (float(mesh_scaleup_bandwidth(float(up), 2, peers)),
                "scale-up: the neighbouring stages in one domain")
    return float(out), "network, 1 NIC"


def ep_bandwidths(ep: int, stride: int, domain_size: int, up: float, out: float,
                  peers: int = 0) -> list:
    """The links of an expert-parallel group of ``ep`` ranks ``stride`` apart (ranks ordered
    TP, CP, EP: stride = tp·cp) on scale-up domains of ``domain_size``, as the step model's
    all-to-all takes them (``comm._Figures.a2a``: the group spans domains when it has more
    members than one domain holds, ``comm.group_layout``): ``[(B_up, "scale-up: the whole
    group in one domain")]`` when it does not; else both of its links, ``[(B_up, "scale-up"),
    (B_out, "network, 1 NIC")]`` (its copies inside a domain ride the scale-up links, the rest
    one NIC each: an all-to-all cannot pool NICs); on a full-mesh board B_up is the k members'
    links (``comm.mesh_scaleup_bandwidth``)."""
    k, domains = group_layout(ep, stride, domain_size)
    up = float(mesh_scaleup_bandwidth(float(up), k, peers))
    if int(domains) == 1:
        return [(float(up), "scale-up: the whole group in one domain")]
    return [(float(up), "scale-up"), (float(out), "network, 1 NIC")]


@dataclass(frozen=True)
class RooflineOptions:
    """How ``roofline_table`` prices its rows: ``grad_bytes`` (bytes per gradient element),
    ``in_network`` (all-reduces reduced in the switch, ``all_reduce_factor``) and ``achieved``
    (the measured fractions of ``data/efficiency.csv`` instead of datasheet rates)."""

    grad_bytes: float = 4.0
    in_network: bool = False
    achieved: bool = False


def roofline_table(model, accelerator, *, tokens_per_microbatch, tp=8, pp=1, dp=64, ep=8, cp=1,
                   virtual_stages: int = 1, seq_len: int | None = None,
                   options: RooflineOptions | None = None, **keywords) -> pd.DataFrame:
    """Every parallelism kind's roofline for one model on one accelerator, over the link the
    plan's group takes in the step model's NCCL model (``llmcost.comm``; on a full-mesh board
    the links among a group's members, ``comm.mesh_scaleup_bandwidth``; ranks ordered TP, CP,
    EP/DP, PP): TP and CP inside the scale-up domain; DP and FSDP (``dp`` the data-parallel
    group, CP included) over the network with the NICs of the group's k members per domain
    pooled, ``W = min(B_up, k·B_out)`` (k = domain ÷ tp), or over the scale-up links when the
    whole group is inside one domain (``dp_bandwidth``); PP over the scale-up links when its
    neighbouring stages, ``tp·dp`` ranks apart, share a domain, else one NIC
    (``pp_bandwidth``); EP (its group ``tp·cp`` ranks apart) inside the domain when the whole
    group is, else both inside it and across it (``ep_bandwidths``). ``cp`` (the CP degree)
    sets only EP's stride; ``tokens_per_microbatch`` is the tokens each rank holds in one
    micro-batch, the window of every row that scales with tokens (DP's reduction overlaps the
    step's last micro-batch's backward only: ``dp_roofline``) but CP's, whose ring passes one
    sequence's K and V blocks: its tokens per rank are ``seq_len`` ÷ cp (``tokens_per_microbatch``
    without ``seq_len``). PP's send follows one model chunk, n_layers ÷ (pp · ``virtual_stages``)
    layers (a teacher: the row counted a stage's layers). Kinds of degree 1 are left out.

    ``C`` is the dense BF16 peak and ``W`` the per-direction datasheet bandwidth; with
    ``achieved`` (``RooflineOptions``, or its fields as keywords: ``grad_bytes``, ``in_network``,
    ``achieved``) both are scaled by the measured fractions of ``data/efficiency.csv`` (matmul
    fraction × ``step.KERNEL_EFFICIENCY``; NCCL bus-bandwidth fractions). Returns one row per kind:
    what it controls, the plan's value, the threshold (``critical``), the compute ÷ comm ratio,
    whether it hides, the link, and the formula's function. MoE rows need an MoE model (a dense
    model gets EP skipped with the reason in ``note``).

    The DP rows are what the plan would meet at each ZeRO stage: "DP (ZeRO-0)" the all-reduce
    behind the last micro-batch's backward; "DP (ZeRO-1/2)" the gradients' reduce-scatter, half
    its bytes, behind the last micro-batch's backward (ZeRO-1) or every micro-batch's (ZeRO-2),
    ``dp_roofline`` with half the gradient bytes (its docstring); FSDP's is ZeRO-3 (a review read
    "DP: hides" for a ZeRO-2 plan whose step model exposed its data-parallel traffic most).
    """
    o = options_with(RooflineOptions, "options", options, keywords)
    grad_bytes, in_network = o.grad_bytes, o.in_network
    d = model_dims(model)
    acc, c, up, out = _peak_and_links(accelerator)
    if o.achieved:
        eff = load_efficiency(acc)
        c, up, out = (c * eff.matmul_fraction * KERNEL_EFFICIENCY, up * eff.scaleup_fraction,
                      out * eff.scaleout_fraction)
    pl, h = d["layer_params"], d["d_model"]
    params_gpu = d["params"] / (tp * pp)
    dom, peers = acc.scaleup_domain_size, mesh_peers(acc.name)
    w_dp, dp_link = dp_bandwidth(dp, tp, dom, up, out, peers)
    rows = []
    if dp > 1:
        ar = dp_roofline(params_gpu, tokens_per_microbatch, c, w_dp, group_size=dp,
                         grad_bytes=grad_bytes, in_network=in_network)
        # ZeRO-1/2: a reduce-scatter, (n−1)/n·P·β_g behind a micro-batch's backward
        rs = dp_roofline(params_gpu, tokens_per_microbatch, c, w_dp, group_size=dp,
                         grad_bytes=grad_bytes / 2)  # the ring's factor: f·β_g/2 = (n−1)/n·β_g
        rows += [(replace(ar, kind="DP (ZeRO-0)"), dp_link, "dp_roofline"),
                 (replace(rs, kind="DP (ZeRO-1/2)", per="micro-batch",
                          controls="tokens per replica per micro-batch"), dp_link, "dp_roofline"),
                 (fsdp_roofline(params_gpu, tokens_per_microbatch, c, w_dp, group_size=dp,
                                grad_bytes=grad_bytes), dp_link, "fsdp_roofline")]
    if tp > 1:
        w_tp = float(mesh_scaleup_bandwidth(up, min(tp, dom), peers))
        rows.append((tp_roofline(pl, h, tp, c, w_tp, in_network=in_network), "scale-up",
                     "tp_roofline"))
    if pp > 1:
        w_pp, pp_link = pp_bandwidth(tp * dp, dom, up, out, peers)
        rows.append((pp_roofline(pl, h, d["n_layers"] / (pp * max(int(virtual_stages), 1)), c,
                                 w_pp, tp=tp), pp_link, "pp_roofline"))
    if d["d_ff_expert"] and ep > 1:
        rows += [(ep_roofline(h, d["d_ff_expert"], d["top_k"], ep, c, w), link, "ep_roofline")
                 for w, link in ep_bandwidths(ep, tp * cp, dom, up, out, peers)]
    if cp > 1:
        w_cp = float(mesh_scaleup_bandwidth(up, group_layout(cp, tp, dom)[0], peers))
        t_c = seq_len / cp if seq_len else tokens_per_microbatch
        rows.append((cp_roofline(h, d["kv_width"], t_c, c, w_cp), "scale-up", "cp_roofline"))
    out_rows = []
    for r, link, fn in rows:
        out_rows.append({"kind": r.kind, "link": link, "controls": r.controls,
                         "value": float(r.value), "critical": float(r.critical),
                         "ratio": float(r.ratio), "hides": bool(r.hidden),
                         "function": f"llmcost.overlap.{fn}"})
    return pd.DataFrame(out_rows)


# ----------------------------------------------------------------------------- topologies
def group_bandwidth(accelerator, group_size, *, torus_axes: int = 1) -> float:
    """Per-GPU, per-direction bandwidth a bandwidth-optimal collective over ``group_size`` GPUs
    of one scale-up domain can use, by topology (``data/scaleup_topology.csv``):

    * switch (NVSwitch): every GPU's full ``links × B_link``, whatever the group;
    * full mesh (MI300X, Gaudi 3): only the direct links among the members,
      ``(g − 1) × links_per_peer × B_link`` (AMD UBB, Intel HLS-3 topologies);
    * torus: a ring along each of ``torus_axes`` axes uses the two neighbour links on it,
      ``2 × axes × B_link`` (Jouppi et al. 2023; the scaling book's "Sharded matrices":
      a bidirectional ring per axis).

    The catalogue's per-GPU figure is a switch's; ``llmcost.comm`` prices a full mesh's groups
    as here (``comm.mesh_scaleup_bandwidth``) and a torus as a switch, whose optimism the ratio
    of the two figures is.
    """
    topo = load_topologies()
    name = getattr(accelerator, "name", accelerator)
    if name not in topo.index:
        raise ValueError(f"accelerator={name!r} has no row in data/scaleup_topology.csv "
                         f"(have: {', '.join(topo.index)})")
    r = topo.loc[name]
    g = as_array(group_size, "group_size", positive=True, integer=True)
    if np.any(g < 2):
        raise ValueError(f"group_size={float(np.min(g)):g} must be >= 2")
    link = r["link_bytes_per_s_per_dir"]
    total = r["links_per_chip"] * link
    if r["topology"] == "switch":
        bw = np.full_like(g, total)
    elif r["topology"] == "full_mesh":
        peers = mesh_peers(name)  # (g − 1) links of links_per_peer each: the engine's figure
        if np.any(g - 1 > peers):
            raise ValueError(f"group_size={float(np.max(g)):g} exceeds the {peers + 1:g} GPUs of "
                             f"{name}'s mesh")
        bw = mesh_scaleup_bandwidth(total, g, peers)
    else:
        dims = int(r["torus_dims"])
        if not isinstance(torus_axes, (int, np.integer)) or not 1 <= torus_axes <= dims:
            raise ValueError(f"torus_axes={torus_axes!r} must be an integer from 1 to {dims} "
                             f"({name} is a {dims}D torus)")
        bw = np.full_like(g, 2 * torus_axes * link)
    return scalar_or_array(bw)


@disk_cached  # the same for every call with these arguments: core.diskcache
def topology_table(group_sizes=(2, 4, 8)) -> pd.DataFrame:
    """For each accelerator of ``data/scaleup_topology.csv``: its topology, the whole board's
    per-GPU figure (``accelerators.csv``: all of a GPU's links), what a group of each size
    really gets (``group_bandwidth``, one torus axis) and how optimistic the whole-board figure
    is for that group (board ÷ real; the step model uses it on a torus only)."""
    rows = []
    for name, r in load_topologies().iterrows():
        acc = load_accelerator(name)
        row = {"accelerator": name, "topology": r["topology"],
               "in-switch reduction": r["in_switch_reduction"],
               "board GB/s": acc.scaleup_bytes_per_s_per_dir / 1e9}
        for g in group_sizes:
            try:
                real = float(group_bandwidth(name, g))
            except ValueError:
                real = np.nan
            row[f"group of {g}: GB/s"] = real / 1e9
            row[f"group of {g}: board ÷ real"] = acc.scaleup_bytes_per_s_per_dir / real
        rows.append(row)
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- a predicted MFU
def mfu_arithmetic(b, accelerator, dtype: str = "bf16") -> dict:
    """The predicted MFU of a step, written out as the division it is::

        MFU = F_step / (T_step × N × C_peak)
        F_step = tokens per step × ModelSpec.flops_per_token(s, causal=False)
        T_step = matmul + attention + memory-bound + recompute + straggler wait + exposed TP
                 + CP + EP + PP + stage imbalance + pipeline bubble + exposed DP + optimizer

    on the workbook's MFU basis (PaLM, Chowdhery et al. 2022 App. B: model FLOPs with the full
    s×s attention core, no recomputation, over the dense peak of ``dtype``). ``b`` is a
    ``step.StepBreakdown`` (its parts are each priced in ``llmcost.step``'s module docstring:
    GEMMs at the achievable matmul rate × ``KERNEL_EFFICIENCY``, the bubble
    (p−1)/v micro-batch slots, communication by ``llmcost.comm``'s alpha-beta model).

    Returns the terms and the quotient (``mfu`` equals ``b.mfu``; a test checks it).
    """
    if not isinstance(b, StepBreakdown):
        raise ValueError(f"b={b!r} must be a llmcost.step.StepBreakdown (step.step_time)")
    peak = as_accelerator(accelerator).peak_flops_per_s(dtype)
    parts = {p.removesuffix("_s"): getattr(b, p) for p in PARTS}
    step = sum(parts.values())
    return {"model_flops": b.model_flops, "step_time_s": step, "n_gpus": b.n_gpus,
            "peak_flops_per_s": peak, "mfu": b.model_flops / (step * b.n_gpus * peak),
            "parts_s": parts}


def roofline_curves(model, accelerator, *, tp=8, pp=4, dp=64, ep=8, moe_model="deepseek-v3",
                    grad_bytes=4.0, n_points=60) -> pd.DataFrame:
    """Compute ÷ communication ratio of each kind against the quantity it is controlled by, for
    a figure (``plots.comm_rooflines``): DP against the tokens of the last micro-batch (the
    backward its reduction overlaps: ``dp_roofline``), FSDP against tokens per
    micro-batch, TP against its degree, PP against layers per stage, EP against the expert width
    (``moe_model``'s dims when ``model`` is dense), CP against tokens per rank; TP, EP and CP
    over the scale-up links and over one NIC, DP, FSDP and PP over the link the plan's group
    takes (``dp_bandwidth``, ``pp_bandwidth``: the links of ``roofline_table``).
    Columns: ``kind``, ``link``, ``x``, ``ratio``, ``xlabel``, ``model``.
    """
    d = model_dims(model)
    acc, c, up, out = _peak_and_links(accelerator)
    n_points = int(as_scalar(n_points, "n_points", positive=True, integer=True))
    dom, peers = acc.scaleup_domain_size, mesh_peers(acc.name)
    w_dp, dp_link = dp_bandwidth(dp, tp, dom, up, out, peers)
    pl, h, p_gpu = d["layer_params"], d["d_model"], d["params"] / (tp * pp)
    tok = np.logspace(2, 6, n_points)
    m = d if d["d_ff_expert"] else model_dims(moe_model)
    curves = [
        ("DP", dp_link, tok,
         overlap_ratio(dp_roofline(p_gpu, tok, c, w_dp, group_size=dp, grad_bytes=grad_bytes)),
         "tokens per replica in the last micro-batch", d["name"]),
        ("FSDP", dp_link, tok,
         overlap_ratio(fsdp_roofline(p_gpu, tok, c, w_dp, group_size=dp, grad_bytes=grad_bytes)),
         "tokens per replica per micro-batch", d["name"]),
    ]
    t = np.arange(2, 65)
    ls = np.logspace(-2, 2, n_points)
    fe = np.logspace(np.log10(256), np.log10(65536), n_points)
    tc = np.logspace(np.log10(64), 5, n_points)
    for link, w in (("scale-up", up), ("network (1 NIC)", out)):
        w_t = mesh_scaleup_bandwidth(w, np.minimum(t, dom), peers) if link == "scale-up" else w
        curves += [
            ("TP", link, t, overlap_ratio(tp_roofline(pl, h, t, c, w_t)), "TP degree",
             d["name"]),
            ("EP", link, fe, overlap_ratio(ep_roofline(m["d_model"], fe, m["top_k"], ep, c, w)),
             "expert FFN width F_e", m["name"]),
            ("CP", link, tc, overlap_ratio(cp_roofline(h, d["kv_width"], tc, c, w)),
             "tokens per CP rank", d["name"]),
        ]
    w_pp, pp_link = pp_bandwidth(tp * dp, dom, up, out, peers)
    curves.append(("PP", "scale-up" if pp_link.startswith("scale-up") else "network (1 NIC)",
                   ls, overlap_ratio(pp_roofline(pl, h, ls, c, w_pp, tp=tp)),
                   "layers per pipeline stage", d["name"]))
    frames = [pd.DataFrame({"kind": k, "link": link, "x": x, "ratio": r, "xlabel": xl,
                            "model": name}) for k, link, x, r, xl, name in curves]
    return pd.concat(frames, ignore_index=True)


def overlap_ratio(r: Roofline):
    """``r.ratio`` as a float array (compute ÷ communication)."""
    return np.asarray(r.ratio, dtype=float)


def _peak_and_links(accelerator):
    """The accelerator, its dense BF16 peak (FLOP/s) and its scale-up and scale-out bandwidths
    (bytes/s per direction); a ValueError when the catalogue lacks either bandwidth."""
    acc = as_accelerator(accelerator)
    up, out = acc.scaleup_bytes_per_s_per_dir, acc.scaleout_bytes_per_s_per_dir
    if up is None or out is None:
        raise ValueError(f"accelerator={acc.name!r} has no scale-up or scale-out bandwidth in the "
                         "catalogue: its rooflines cannot be drawn")
    return acc, acc.peak_flops_per_s("bf16"), up, out
