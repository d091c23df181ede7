"""Collectives on a two-level topology: how long GPUs spend talking, and over which links.

The alpha-beta model (Hockney 1994)
-----------------------------------
Sending S bytes over a link of bandwidth B_w takes ``α + S/B_w``: a start-up latency α and a
bandwidth term. A collective over n ranks is a sequence of such steps; the classic costs
(Thakur, Rabenseifner, Gropp 2005; Patarasuk & Yuan 2009), with S the message
(for reduce-scatter and all-gather the full, gathered size; for all-to-all each rank's send
buffer)::

    ring all-reduce                2(n−1)·α + 2·(n−1)/n · S/B_w      (bandwidth-optimal)
    ring reduce-scatter, all-gather (n−1)·α +   (n−1)/n · S/B_w
    pairwise all-to-all             (n−1)·α +   (n−1)/n · S/B_w
    double binary tree all-reduce  2·log2(n)·α + 2·S/B_w              (Sanders, Speck, Träff 2009)
    send/recv                      α + S/B_w
    ring broadcast / reduce        (n−1)·α + S/B_w                    (pipelined)

**Algorithm vs bus bandwidth** (NVIDIA nccl-tests ``doc/PERFORMANCE.md``): ``algbw = S/t``;
``busbw = algbw × factor`` with factor 2(n−1)/n for all-reduce, (n−1)/n for reduce-scatter,
all-gather and all-to-all, 1 for broadcast, reduce and send/recv. busbw is what compares with
the per-GPU, per-direction link bandwidth, whatever n is; ``bus_bandwidth`` computes it.

Two levels: scale-up domains and the scale-out network
------------------------------------------------------
A cluster is made of **scale-up domains** (the NVLink/NVSwitch island of an HGX board, 8 GPUs)
joined by a **scale-out** network (one InfiniBand/RoCE NIC per GPU). Each link is used at an
*achievable* fraction of its datasheet bandwidth (``Efficiency.scaleup_fraction`` and
``scaleout_fraction``, measured nccl-tests bus bandwidths; ``data/efficiency.csv``).

**Placement.** Ranks are numbered with TP innermost, then CP, then EP/DP, then PP outermost
(Megatron-LM's default order ``tp-cp-ep-dp-pp``): TP groups are consecutive ranks, so TP sits
inside a domain when ``tp`` ≤ the domain size, as practice does (Narayanan et al. 2021,
Takeaway #1). A group of n ranks whose members are ``stride`` ranks apart has
``k = clip(domain // stride, 1, n)`` members per domain and spans ``n / k`` domains
(``group_layout``).

**Hierarchical collectives.** When a group spans N > 1 domains with k members in each, NCCL's
rings run one channel per NIC: every ring crosses each domain boundary once, on a different NIC,
so the k NICs of a domain work in parallel and the bus bandwidth is
``min(B_up·f_up, k·B_out·f_out)`` (NVIDIA reports 192 GB/s all-reduce busbw on DGX A100 with
8 × 200 Gb/s NICs, i.e. 8 × 24 GB/s: nccl issue #812). An all-to-all cannot aggregate NICs
(NCCL maintainer, nccl-tests issue #267): its bytes leaving the domain, (n−k)/n of the buffer,
go through the rank's own NIC while the (k−1)/n staying inside ride NVLink in parallel. Latency:
a base start-up plus one per-step α per ring step (NCCL's own tuning model, ``tuning.cc``), the
scale-out α when the group spans domains.

Per-step communication of a training step
------------------------------------------
``step_comm_arrays`` (used by ``llmcost.step``) gives, for arrays of plans, the time of each
parallel dimension's collectives per layer, micro-batch or step; ``comm_volume`` tabulates bytes
and times per dimension for one plan. What each dimension sends (16-bit activations):

* **TP** (Shoeybi et al. 2019 §3; Korthikanti et al. 2022 §4.2.2): per layer and micro-batch two
  all-reduces of the layer's activations (b·s/cp·h elements) forward and two backward; with
  sequence parallelism two all-gathers + two reduce-scatters forward, the transposed pair
  backward and two more all-gathers backward to re-gather the LayerNorm output for the weight
  gradient (Megatron-LM saves it sequence-sharded). Full recomputation repeats the forward ones.
* **CP** (Llama 3 §3.3.2, all-gather based): per layer and micro-batch an all-gather of K and V
  forward, and in the backward pass an all-gather of K, V and a reduce-scatter of their gradients.
* **EP** (Lepikhin et al. 2020; Fedus et al. 2021): per MoE layer and micro-batch an all-to-all
  dispatch and combine forward and the two transposed backward, k·tokens·h elements each.
* **PP** (Narayanan et al. 2021 §2.2, §4.1): per micro-batch and model chunk, one activation
  forward and one gradient backward between neighbouring stages (b·s/cp·h elements; 1/t of it
  with sequence parallelism or Megatron's scatter/gather optimisation, the rest re-gathered over
  NVLink).
* **DP** (ZeRO §7): ZeRO-0 all-reduces the gradients once per step; ZeRO-1
  reduce-scatters them and all-gathers the updated 16-bit weights (the same volume with 16-bit
  gradients, 0.75 of it with fp32 ones: ``batch.zero_volume_ratio``); ZeRO-2 reduce-scatters
  after every micro-batch (gradients are kept sharded) and all-gathers the weights once; ZeRO-3
  (FSDP) all-gathers the weights before every forward and backward (and the recomputed forward)
  of every micro-batch and reduce-scatters the gradients after it, per micro-batch 1.5× the
  all-reduce's volume with 16-bit gradients and two gathers (1× with fp32 gradients). Hybrid sharding (HSDP, ``ParallelPlan.fsdp_shard_size`` = f) runs
  those gathers and reduce-scatters inside a shard group of f ranks and adds, once per step, an
  all-reduce of each rank's gradient shard (Ψ/f elements) over the dp·cp/f replicas (Zhao et
  al. 2023, PyTorch FSDP, arXiv:2304.11277; Zhang et al. 2022, MiCS, arXiv:2205.00119). The
  optimizer-state-only stages never gather weights per micro-batch (llm-analysis, github
  cli99/llm-analysis at d841e40, charges FSDP all-gathers under ZeRO-1 in
  ``get_latency_fwd_per_layer``: this module does not).

Scale, FSDP and MoE
------------------------------
``nccl_collective_time`` is NCCL's own cost model (``src/graph/tuning.cc``): the ring's latency
grows with the ranks and the nodes it spans, so the bandwidth a message achieves depends on its
size and the job's size (``scale_efficiency``); the step engine times every DP / ZeRO collective
with it. ``fsdp_exposure`` prices ZeRO-3 / FSDP's per-layer gathers and reduce-scatters against
the compute they hide behind, with the stack's prefetch depth and the measured contention of
overlapped compute (``OVERLAP_SLOWDOWN``, ``overlap_cost``). ``moe_all_to_all_time`` is one
expert-parallel all-to-all with a capacity factor or a dropless imbalance
(``moe_routing_factor``), sending k copies per token or, with a deduplicating dispatcher, the
copies of ``moe_dispatch_copies`` (one per destination GPU, or one network copy per destination
node forwarded over NVLink: DeepSeek-V3 §3.2.2, DeepEP), the destinations counted by
``moe_destinations`` (uniform top-k, node-limited, or NeMo AutoModel's fake balanced gate).

All functions broadcast over numpy arrays.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from ..core.catalog import DATA_DIR, load_efficiency
from ..core.diskcache import disk_cached
from ..core.hardware import Cluster, Efficiency
from ..core.shapes import edge_params, kv_fraction, layer_params, model_shapes
from ..core.stacks import BACKWARD_PREFETCH_MODES
from ..core.units import as_array, as_scalar, options_with, scalar_or_array
from .memory import get_recipe, stage_layers

OPS = ("all_reduce", "reduce_scatter", "all_gather", "all_to_all", "send_recv", "broadcast",
       "reduce")
ALGORITHMS = ("ring", "tree")

#: nccl-tests ``doc/PERFORMANCE.md``: bus bandwidth = algorithm bandwidth × this factor.
_BUS_FACTORS = {
    "all_reduce": lambda n: 2 * (n - 1) / n,
    "reduce_scatter": lambda n: (n - 1) / n,
    "all_gather": lambda n: (n - 1) / n,
    "all_to_all": lambda n: (n - 1) / n,
    "send_recv": lambda n: np.ones_like(n),
    "broadcast": lambda n: np.ones_like(n),
    "reduce": lambda n: np.ones_like(n),
}


#: The scale-up topologies of ``data/scaleup_topology.csv``.
TOPOLOGIES = ("switch", "full_mesh", "torus_2d", "torus_3d")


def load_topologies() -> pd.DataFrame:
    """``data/scaleup_topology.csv``: per accelerator, the scale-up topology (switch, full mesh,
    2D or 3D torus), links per chip and their per-direction bandwidth, links to each mesh peer,
    torus dimensions, in-switch reduction, with sources."""
    with (DATA_DIR / "scaleup_topology.csv").open(newline="", encoding="utf-8") as fh:
        df = pd.DataFrame(list(csv.DictReader(fh)))
    for col in ("links_per_chip", "link_bytes_per_s_per_dir", "links_per_peer", "torus_dims"):
        df[col] = pd.to_numeric(df[col].replace("", np.nan))
    bad = sorted(set(df["topology"]) - set(TOPOLOGIES))
    if bad:
        raise ValueError(f"data/scaleup_topology.csv: unknown topology {bad} (one of {TOPOLOGIES})")
    return df.set_index("accelerator")


@lru_cache(maxsize=None)
def mesh_peers(accelerator_name: str) -> int:
    """The peers each GPU of a **full-mesh** scale-up domain links to directly
    (``links_per_chip / links_per_peer`` of ``data/scaleup_topology.csv``: 7 on an MI300X or
    MI325X board, AMD UBB; 7 on Gaudi 3, Intel HLS-3), or 0 for a switch (NVSwitch), a torus or
    an accelerator the table does not list (priced as a switch).

    On a full mesh a group of k GPUs of one board moves its bytes over the k − 1 direct links
    among its members only, ``(k − 1)/peers`` of the catalogue's per-GPU figure (which is all
    the links, what a collective over the whole board reaches): ``mesh_scaleup_bandwidth``."""
    topo = load_topologies()
    if accelerator_name not in topo.index:
        return 0
    r = topo.loc[accelerator_name]
    if r["topology"] != "full_mesh":
        return 0
    return int(round(r["links_per_chip"] / r["links_per_peer"]))


def mesh_scaleup_bandwidth(up_bw, k, peers: int, spans=False):
    """The scale-up bandwidth per GPU of a group with ``k`` members on each board::

        switch (peers = 0):            B_up
        full mesh, inside one board:   B_up · min(max(k − 1, 1), peers) / peers
        full mesh, a ring across boards (``spans``):
                                       B_up · min(k, peers) / peers

    ``B_up`` the board's per-GPU figure (all ``peers`` links, achievable fraction applied);
    a member reaches the others of its board over its direct links to them only (AMD Instinct
    MI300X platform: each GPU linked directly to the 7 others, 64 GB/s per direction each, "up
    to 64 GB/s for each point-to-point link": AMD ROCm blog, Understanding RCCL Bandwidth and
    xGMI Performance on AMD Instinct MI300X, 2025-03-02; ROCm/rccl README: "When using less
    than 8 GPUs, one can only achieve a fraction of the potential bandwidth"). A pair (k = 2,
    or a send/recv) has one link; ``k`` ≥ the board's GPUs, all of them. A ring across boards
    runs k channels, one entering through each member's NIC, each making k − 1 hops inside the
    board: the k(k − 1) directed links among the members carry one channel each, so every
    member moves k channels at the link's rate, k links' worth (the whole board at k ≥ peers),
    against k NICs (``_nccl_time``'s min(B_up, k·B_out))."""
    if not peers:
        return up_bw
    k = np.asarray(k, dtype=float)
    return up_bw * np.clip(np.where(spans, k, k - 1.0), 1.0, peers) / peers


def _check_op(op):
    if op not in OPS:
        raise ValueError(f"op={op!r} must be one of {', '.join(OPS)}")


def busbw_factor(op: str, group_size):
    """nccl-tests' bus-bandwidth factor for a collective over ``group_size`` ranks.

    all-reduce 2(n−1)/n; reduce-scatter, all-gather, all-to-all (n−1)/n; broadcast, reduce,
    send/recv 1 (NVIDIA nccl-tests ``doc/PERFORMANCE.md``).
    """
    _check_op(op)
    n = as_array(group_size, "group_size", positive=True, integer=True)
    return scalar_or_array(_BUS_FACTORS[op](n))


def algorithm_bandwidth(message_bytes, time_s):
    """nccl-tests' algorithm bandwidth ``algbw = S / t`` (bytes/s)."""
    s = as_array(message_bytes, "message_bytes", nonnegative=True)
    t = as_array(time_s, "time_s", positive=True)
    return scalar_or_array(s / t)


def bus_bandwidth(op: str, message_bytes, time_s, group_size):
    """nccl-tests' bus bandwidth ``busbw = algbw × busbw_factor(op, n)`` (bytes/s): the figure to
    compare with a GPU's per-direction link bandwidth, independent of n for ring algorithms."""
    return scalar_or_array(np.asarray(algorithm_bandwidth(message_bytes, time_s))
                           * np.asarray(busbw_factor(op, group_size)))


def _bw_term(op, s, n, algorithm):
    """Bytes a rank must move (in units of S/B_w) and the number of α steps, per op: ring
    all-reduce 2(n − 1) steps and 2(n − 1)/n·S; reduce-scatter, all-gather and all-to-all
    n − 1 steps and (n − 1)/n·S; send/recv one step and S; broadcast and reduce n − 1 steps and
    S (only the asked op's arrays are computed)."""
    if op == "all_reduce":
        ring_steps, ring_bytes = 2 * (n - 1), 2 * (n - 1) / n * s
    elif op in ("reduce_scatter", "all_gather", "all_to_all"):
        ring_steps, ring_bytes = n - 1, (n - 1) / n * s
    elif op == "send_recv":
        ring_steps, ring_bytes = np.ones_like(n), s
    elif op in ("broadcast", "reduce"):
        ring_steps, ring_bytes = n - 1, s
    else:
        raise KeyError(op)
    if algorithm == "tree":
        if op != "all_reduce":
            raise ValueError(f"algorithm='tree' is modelled for all_reduce only (got op={op!r})")
        steps = 2 * np.log2(np.maximum(n, 1))
        return np.where(n > 1, 2 * s, 0.0), steps
    return ring_bytes, ring_steps


def collective_time(op: str, message_bytes, group_size, bandwidth_bytes_per_s, latency_s=0.0,
                    algorithm: str = "ring"):
    """Alpha-beta time of one collective on one level of links.

    Parameters
    ----------
    op : {"all_reduce", "reduce_scatter", "all_gather", "all_to_all", "send_recv", "broadcast",
        "reduce"}
    message_bytes : float or array, >= 0
        S: the full buffer (gathered size for all-gather and reduce-scatter, each rank's send
        buffer for all-to-all).
    group_size : int or array, >= 1
        n ranks. A group of one takes no time (except send/recv, which always moves S).
    bandwidth_bytes_per_s : float or array, > 0
        B_w per rank per direction (apply an achievable fraction before calling).
    latency_s : float or array, >= 0
        α per step.
    algorithm : {"ring", "tree"}
        "tree" (double binary tree, all-reduce only): 2·log2(n)·α + 2·S/B_w.

    Returns
    -------
    float or ndarray of seconds.

    Raises
    ------
    ValueError
        Unknown op or algorithm, negative message size, group size below 1 or not whole,
        bandwidth not > 0, negative latency. The message names the field and the rule.

    Sources: Hockney 1994; Thakur, Rabenseifner, Gropp 2005; Patarasuk & Yuan 2009; Sanders,
    Speck, Träff 2009.

    Examples
    --------
    >>> round(collective_time("all_reduce", 1e9, 8, 450e9, 10e-6) * 1e3, 3)  # 1 GB on 8 GPUs
    4.029
    """
    _check_op(op)
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm={algorithm!r} must be one of {ALGORITHMS}")
    s = as_array(message_bytes, "message_bytes", nonnegative=True)
    n = as_array(group_size, "group_size", positive=True, integer=True)
    bw = as_array(bandwidth_bytes_per_s, "bandwidth_bytes_per_s", positive=True)
    a = as_array(latency_s, "latency_s", nonnegative=True)
    moved, steps = _bw_term(op, s, n, algorithm)
    t = steps * a + moved / bw
    if op != "send_recv":
        t = np.where(n > 1, t, 0.0)
    return scalar_or_array(t)


# ----------------------------------------------------------------------------- placement
def group_layout(group_size, stride, domain_size):
    """How a group of ranks falls on scale-up domains.

    Parameters
    ----------
    group_size : int or array
        n ranks in the group.
    stride : int or array
        Distance between consecutive members in rank order (1 for TP; tp for the DP group; the
        product of the inner dimensions in general).
    domain_size : int or array
        GPUs per scale-up domain.

    Returns
    -------
    (members_per_domain, domains) : arrays of int. ``members_per_domain · domains = n`` when the
    sizes divide (they do on 8-GPU domains; a 72-GPU NVL72 domain is not divided by every
    stride, and the deduplicating MoE dispatch then takes ``even_domain_members``).
    """
    n = as_array(group_size, "group_size", positive=True, integer=True)
    st = as_array(stride, "stride", positive=True, integer=True)
    d = as_array(domain_size, "domain_size", positive=True, integer=True)
    k = np.clip(np.floor(d / st), 1, n)
    return scalar_or_array(k), scalar_or_array(np.ceil(n / k))


def even_domain_members(n, k):
    """Members per scale-up domain of an EP group for the deduplicating MoE dispatch
    (``moe_dispatch_copies``, which needs equal shares): the largest divisor of ``n`` not above
    ``k`` (``group_layout``'s members per domain).

    Equal shares hold whenever ``stride`` divides the domain into whole groups, as on 8-GPU
    HGX nodes; a 72-GPU NVL72 domain does not divide by every stride: an EP group of 32 ranks
    4 apart (TP·CP = 4) spans 128 GPUs, 18 members in one rack and 14 in the next. That group is
    priced as 2 domains of 16: the fewest domains the group's members could fill in equal
    shares (its network copies ``(n − g)/n`` = 0.5 against the uneven layout's 0.44 and 0.56
    per rank: the mean, not the busiest rank). Arrays of plans: evaluated per distinct
    ``(n, k)``.

    Examples
    --------
    >>> [int(v) for v in even_domain_members(np.array([32, 64, 64, 8]), np.array([18, 36, 72, 8]))]
    [16, 32, 64, 8]
    """
    n = np.asarray(n, dtype=float)
    k = np.asarray(k, dtype=float)
    nb, kb = np.broadcast_arrays(n, k)
    pairs, inverse = np.unique(np.stack([nb.ravel(), kb.ravel()]), axis=1, return_inverse=True)
    best = np.array([max(d for d in range(1, int(min(kk, nn)) + 1) if int(nn) % d == 0)
                     for nn, kk in pairs.T], dtype=float)
    return best[inverse.ravel()].reshape(nb.shape)


def _hier_time(op, s, n, k, up_bw, out_bw, eff: Efficiency, peers: int = 0):
    """Two-level collective time (arrays already validated); on a full mesh of ``peers`` links
    per GPU, the scale-up bandwidth of ``k`` members per board (``mesh_scaleup_bandwidth``)."""
    spans = n > k
    ring_up = mesh_scaleup_bandwidth(up_bw, k, peers, spans)  # a ring across boards: k links
    up_bw = mesh_scaleup_bandwidth(up_bw, k, peers)
    if op == "all_to_all":
        inter = s * (n - k) / n / out_bw
        intra = s * (k - 1) / n / up_bw
        moved_t = np.where(spans, np.maximum(inter, intra), (n - 1) / n * s / up_bw)
        steps = n - 1
    elif op == "send_recv":
        moved_t = np.where(spans, s / out_bw, s / up_bw)
        steps = np.ones_like(n)
    else:
        bus = np.where(spans, np.minimum(ring_up, k * out_bw), up_bw)
        moved, steps = _bw_term(op, s, n, "ring")
        moved_t = moved / bus
    alpha = np.where(spans, eff.scaleout_latency_s, eff.scaleup_latency_s)
    t = eff.base_latency_s + steps * alpha + moved_t
    if op != "send_recv":
        t = np.where(n > 1, t, 0.0)
    return t


def cluster_collective_time(op: str, message_bytes, group_size, cluster: Cluster, stride=1,
                            efficiency: Efficiency | None = None):
    """Time of one collective for a group placed on a cluster (two-level, hierarchical).

    Parameters
    ----------
    op : str
        As ``collective_time``.
    message_bytes : float or array, >= 0
    group_size : int or array, >= 1
        Must not exceed the cluster's GPU count.
    cluster : Cluster
        Supplies the scale-up domain size and the per-direction NVLink and NIC bandwidths.
    stride : int or array
        Rank distance between group members (see ``group_layout``); send/recv uses it to decide
        whether the peer is in the same domain (``stride`` ≥ domain size: it is not).
    efficiency : Efficiency, optional
        Achievable fractions and latencies (default: ``catalog.load_efficiency`` for the
        cluster's accelerator).

    Returns
    -------
    float or ndarray of seconds: base latency + steps × α + bytes ÷ the bottleneck bandwidth
    (see the module docstring for the hierarchical bus bandwidth ``min(B_up, k·B_out)`` and the
    all-to-all rule).

    Raises
    ------
    ValueError
        Unknown op; negative message size; a group larger than the cluster; bad stride.
    """
    _check_op(op)
    s = as_array(message_bytes, "message_bytes", nonnegative=True)
    n = as_array(group_size, "group_size", positive=True, integer=True)
    if np.any(n > cluster.n_gpus):
        bad = float(np.max(n))
        raise ValueError(f"group_size={bad:g} must be <= the cluster's n_gpus={cluster.n_gpus}")
    st = as_array(stride, "stride", positive=True, integer=True)
    fig = _Figures(cluster, efficiency)
    fig.within_domain(2 if op == "send_recv" else n, st)
    return scalar_or_array(fig.time(op, s, n, st))


def check_plan_on_cluster(plan, cluster: Cluster) -> None:
    """Raise ``ValueError`` if ``plan`` uses more GPUs (dp·tp·pp·cp) than ``cluster`` has, or
    either is not what it names (a ``ParallelPlan``, a ``Cluster``)."""
    _check_cluster(cluster)
    if not all(hasattr(plan, a) for a in ("n_gpus", "tp", "pp", "dp", "cp", "ep")):
        raise ValueError(f"plan={plan!r} must be a ParallelPlan (llmcost.make_plan)")
    if plan.n_gpus > cluster.n_gpus:
        raise ValueError(f"the plan uses dp·tp·pp·cp = {plan.n_gpus} GPUs, more than the "
                         f"cluster's n_gpus={cluster.n_gpus}")


def placement(plan, cluster: Cluster) -> pd.DataFrame:
    """Which parallel dimensions sit inside a scale-up domain and which cross the network.

    Rank order TP, CP, DP, PP (Megatron-LM's ``tp-cp-ep-dp-pp``) for the attention; the experts
    have their own order, etp-ep-edp (Megatron-Core since core 0.10,
    ``parallel_state.initialize_model_parallel``'s expert rank generator), so the EP group's
    ranks are the experts' TP (``etp``: tp, or 1 under MoE parallel folding) apart. Returns one
    row per
    dimension with ``group_size``, ``stride``, ``members_per_domain``, ``domains`` and ``links``
    ("scale-up" when the whole group fits in one domain, "scale-out" when it has one member per
    domain, "both" otherwise; PP lists where its neighbouring stages are). A hybrid-sharded plan
    (HSDP) adds its shard group (``fsdp_shard_size`` ranks at stride tp) and its replicas
    (dp·cp / shard ranks at stride shard·tp).

    Raises
    ------
    ValueError
        If the plan uses more GPUs than the cluster has.
    """
    check_plan_on_cluster(plan, cluster)
    dom = int(cluster.scaleup_domain_size)
    dims = [("TP", plan.tp, 1), ("CP", plan.cp, plan.tp),
            ("EP", plan.ep, getattr(plan, "expert_tp", plan.tp)),
            ("DP (dense, with CP)", plan.dp * plan.cp, plan.tp),
            ("PP", plan.pp, plan.tp * plan.cp * plan.dp)]
    if getattr(plan, "fsdp_shard_size", None) is not None:     # HSDP: shard group, replicas
        f = plan.fsdp_shard_size
        dims[-1:-1] = [("FSDP shard group (HSDP)", f, plan.tp),
                       ("HSDP replicas", plan.dp * plan.cp // f, f * plan.tp)]
    rows = []
    for name, size, stride in dims:
        k, nd = group_layout(size, stride, dom)
        k, nd = int(k), int(nd)
        if name == "PP":
            links = "scale-up" if stride < dom and size * stride <= dom else \
                ("scale-out" if stride >= dom else "both")
        else:
            links = "none" if size == 1 else ("scale-up" if nd == 1 else
                                              ("scale-out" if k == 1 else "both"))
        rows.append({"dimension": name, "group_size": int(size), "stride": int(stride),
                     "members_per_domain": k, "domains": nd, "links": links})
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- per-step traffic
def _is_number(v) -> bool:
    """``np.ndim(v) == 0`` for the engine's values (Python numbers, numpy scalars and arrays),
    without numpy's dispatch."""
    return v.__class__ in (float, int, bool) or getattr(v, "ndim", None) == 0


def _check_cluster(cluster) -> None:
    """ValueError unless ``cluster`` is a ``Cluster`` (a sweep found None and numbers
    answered with AttributeError from inside)."""
    if not isinstance(cluster, Cluster):
        raise ValueError(f"cluster={cluster!r} must be a Cluster (llmcost.Cluster(accelerator, "
                         "n_gpus))")


class _Figures:
    """Achievable link figures of a cluster, resolved once for an array evaluation."""

    def __init__(self, cluster: Cluster, efficiency: Efficiency | None):
        _check_cluster(cluster)
        if efficiency is not None and not isinstance(efficiency, Efficiency):
            raise ValueError(f"efficiency={efficiency!r} must be an Efficiency "
                             "(llmcost.load_efficiency) or None")
        if efficiency is None:
            efficiency = load_efficiency(cluster.accelerator)
        self.eff = efficiency
        self.up_bw = float(cluster.scaleup_bytes_per_s_per_dir) * efficiency.scaleup_fraction
        out = cluster.scaleout_bytes_per_s_per_dir  # None only within one domain (Cluster):
        # no group of it spans domains, so the scale-out terms are never the ones taken; a
        # group placed past the domain (a stride beyond it) is refused (``within_domain``)
        self.no_nic = out is None
        self.out_bw = float("inf") if out is None else float(out) * efficiency.scaleout_fraction
        self.domain = int(cluster.scaleup_domain_size)
        self.peers = mesh_peers(cluster.accelerator.name)
        self.name = cluster.accelerator.name

    def within_domain(self, n, stride) -> None:
        """ValueError when a cluster without a scale-out bandwidth (one scale-up domain,
        ``Cluster``) is asked, at a public entry point (``cluster_collective_time``,
        ``nccl_collective_time``, ``moe_all_to_all_time``), for a group whose ranks, n at
        ``stride``, reach past the domain: (n − 1)·stride + 1 > domain size (a review: an
        all-to-all at stride 8 on 4 L40S was priced as if the NIC were infinitely fast). The
        engine's own plans stay within the cluster; a term it prices for a degree of 1 (a
        pipeline send at PP 1) is not its concern."""
        if not self.no_nic:
            return
        nn, st = np.broadcast_arrays(np.asarray(n, dtype=float), np.asarray(stride, dtype=float))
        bad = (nn > 1) & ((nn - 1) * st + 1 > self.domain)
        if np.any(bad):
            i = np.flatnonzero(bad)[0]  # the first offending pair, not the largest of each
            nn, st = float(nn.reshape(-1)[i]), float(st.reshape(-1)[i])
            raise ValueError(f"stride={st:g}: a group of {nn:g} GPUs at this stride spans "
                             f"{self.name}'s {self.domain}-GPU scale-up domains, and the "
                             "cluster has no scale-out bandwidth "
                             "(scaleout_bytes_per_s_per_dir: none in the catalogue; a cluster "
                             "of one domain needs none); pass it to Cluster")

    def nccl(self, op, s, n, stride, nic_aggregation=True):
        """NCCL's cost model (``_nccl_time``) for arrays, members per domain as ``time``;
        without ``nic_aggregation`` a group spanning domains moves every GPU's bytes through
        its own NIC (k = 1). Scalars only: answered from ``_nccl_scalar``'s memo."""
        if _is_number(s) and _is_number(n) and _is_number(stride) \
                and _is_number(nic_aggregation):
            return _nccl_scalar(op, float(s), float(n), float(stride), bool(nic_aggregation),
                                self.domain, self.up_bw, self.out_bw, self.peers)
        return _nccl_group_time(op, s, n, stride, nic_aggregation, self.domain, self.up_bw,
                                self.out_bw, self.peers)

    def a2a(self, token_bytes, n, stride, n_experts, top_k, dispatch, gate, node_limit):
        """One MoE all-to-all of ``token_bytes`` per token-copy slot (bytes × tokens × h) with
        ``moe_dispatch_copies`` network and NVLink copies: base + (n − 1)·α +
        max(net / B_out, nvl / B_up); zero for one rank."""
        n = np.asarray(n, dtype=float)
        k = even_domain_members(n, np.clip(np.floor(self.domain / np.asarray(stride,
                                                                           dtype=float)), 1, n))
        net, nvl = moe_dispatch_copies(n_experts, top_k, n, k, dispatch=dispatch, gate=gate,
                                       node_limit=node_limit)
        spans = n > k
        alpha = np.where(spans, self.eff.scaleout_latency_s, self.eff.scaleup_latency_s)
        t = self.eff.base_latency_s + (n - 1) * alpha \
            + np.maximum(token_bytes * net / self.out_bw,
                         token_bytes * nvl / mesh_scaleup_bandwidth(self.up_bw, k, self.peers))
        return np.where(n > 1, t, 0.0)

    def time(self, op, s, n, stride):
        """Collective time for arrays (no validation: ``cluster_collective_time`` validates, the
        engine passes valid plans). Members per domain as ``group_layout``; a send/recv pair
        shares a domain unless ``stride`` reaches past it."""
        n = np.asarray(n, dtype=float)
        s = np.asarray(s, dtype=float)
        st = np.asarray(stride, dtype=float)
        if op == "send_recv":
            k = np.where(st >= self.domain, 1.0, 2.0)
            return _hier_time(op, s, np.full_like(k * n, 2.0), k * np.ones_like(n), self.up_bw,
                              self.out_bw, self.eff, self.peers)
        k = np.clip(np.floor(self.domain / st), 1, n)
        return _hier_time(op, s, n, k, self.up_bw, self.out_bw, self.eff, self.peers)


def _cp_kv_bytes(c, x, tp, cp, repeat_kv=False):
    """Bytes of K and V one context-parallel all-gather collects on a rank: the whole sequence's
    (x·cp tokens), 16-bit, for the rank's share of the KV heads (all query heads' for MLA, whose
    K and V are per query head, and with ``repeat_kv``: the KV heads repeated to the query heads
    before the attention, as torchtitan's Llama does, ``CommOptions.cp_repeat_kv``)."""
    if c.mla or repeat_kv:
        return 2.0 * x * cp * c.a * (c.dqk + c.dv) / tp
    return 2.0 * x * cp * c.g * 2 * c.dh * kv_fraction(c, tp)


@dataclass(frozen=True)
class CommOptions:
    """The comm engine's settings (``step_comm_arrays``), a part of the step-time options
    (``options.StepOptions.resolve`` builds it): the achievable fractions ``efficiency`` and the
    MoE all-to-all's ``moe_dispatch`` (``MOE_DISPATCH``), ``moe_gate`` (``MOE_GATES``),
    ``moe_node_limit`` (None or nodes per token) and ``moe_dispatch_dtype``
    (``MOE_DISPATCH_BYTES``; the combine is BF16); ``cp_repeat_kv`` whether the
    context-parallel exchange carries K and V of all the rank's query heads (PyTorch's ring as
    torchtitan runs it, ``attention.TORCH_RING_STACKS``: its Llama repeats the KV heads before
    SDPA) instead of the GQA heads."""

    efficiency: Efficiency
    moe_dispatch: str = "per_expert"
    moe_gate: str = "learned"
    moe_node_limit: int | None = None
    moe_dispatch_dtype: str = "bf16"
    cp_repeat_kv: bool = False


def step_comm_arrays(c, model, cluster: Cluster, options: CommOptions, *, s, x, tp, cp, ep, dp,
                     sp, etp=None) -> dict:
    """Raw (before overlap) communication times of one layer, micro-batch or step, for arrays of
    plans. Used by ``llmcost.step.step_arrays``; see the module docstring for what each
    dimension sends. ``options``: the link efficiency and MoE dispatch (``CommOptions``). Keys:
    ``tp_fwd_s``/``tp_bwd_s`` (per layer per micro-batch), ``edge_tp_s``
    (embedding or LM-head boundary collectives of the first/last stage), ``cp_fwd_s``/
    ``cp_bwd_s``, ``cp_dkv_s`` (one ring step's point-to-point send of the rank's dK and dV in
    fp32, PyTorch's ring backward: ``step.torch_ring_exposure``), ``ep_fwd_s``/``ep_bwd_s``
    (per MoE layer), ``tp_moe_fwd_s``/``tp_moe_bwd_s`` (an MoE layer's TP collectives),
    ``pp_p2p_s`` (one transfer between stages), and ``fig`` (the link figures, to time DP
    collectives of the caller's sizes).

    ``etp``: the routed experts' tensor-parallel size (``shapes.expert_tp``; None: ``tp``).
    An MoE layer as Megatron-Core's alltoall dispatcher runs it (``token_dispatcher.py``
    ``MoEAlltoAllTokenDispatcher``, NVIDIA/Megatron-LM @ d98e8a64; its experts' own rank
    generator since core 0.10, ``parallel_state.initialize_model_parallel``, orders them
    etp-ep-edp): with sequence parallelism each rank sends its own ``x/tp`` tokens' ``k``
    copies over an EP group of ranks ``etp`` apart, then the expert-TP group all-gathers what
    its ranks received (``2·k·x·h`` bytes gathered; reduce-scattered on the way back), none at
    etp = 1 (MoE parallel folding); the layer's other TP collectives are its attention's
    all-gather and reduce-scatter (half the dense layer's) and, with shared experts, theirs
    (the other half: ``SharedExpertMLP`` keeps the attention's TP).

    One plan (``s`` a float, ``x`` … ``dp`` float64 numbers, ``sp`` a bool: what ``step_time``
    passes) is answered from a memo (``_step_comm_scalar``: the same values, each a
    ``np.float64``); arrays of plans are computed (``_step_comm_times``)."""
    etp = tp if etp is None else etp
    key = _scalar_plan_key(s, x, tp, cp, ep, dp, sp, etp)
    if key is not None:
        return _step_comm_scalar(c, cluster, options, key)
    return _step_comm_times(c, cluster, options, s, x, tp, cp, ep, dp, sp, etp)


def _scalar_plan_key(s, x, tp, cp, ep, dp, sp, etp):
    """``(s, x, tp, cp, ep, dp, sp, etp)`` as Python floats and a bool when every size is one
    float64 number (a Python float, ``np.float64`` or a 0-d float64 array) and ``sp`` one bool;
    else None."""
    vals = []
    for v in (s, x, tp, cp, ep, dp, etp):
        if type(v) is float or (isinstance(v, (np.ndarray, np.float64)) and v.ndim == 0
                                and v.dtype == np.float64):
            vals.append(float(v))
        else:
            return None
    if not (isinstance(sp, (bool, np.bool_))
            or (isinstance(sp, np.ndarray) and sp.ndim == 0 and sp.dtype == bool)):
        return None
    return (*vals[:6], bool(sp), vals[6])


#: ``_step_comm_scalar``'s memo (emptied when it holds ``_STEP_COMM_MEMO_SIZE`` plans) and what
#: its key reads of the options: every ``CommOptions`` field but the efficiency (of which the
#: link figures, ``STEP_COMM_EFFICIENCY_FIELDS``); a test holds them to ``CommOptions``.
_STEP_COMM_MEMO: dict = {}
_STEP_COMM_MEMO_SIZE = 1 << 12
STEP_COMM_OPTION_FIELDS = ("moe_dispatch", "moe_gate", "moe_node_limit", "moe_dispatch_dtype",
                           "cp_repeat_kv")
STEP_COMM_EFFICIENCY_FIELDS = ("scaleup_fraction", "scaleout_fraction", "base_latency_s",
                               "scaleup_latency_s", "scaleout_latency_s")


def _step_comm_scalar(c, cluster: Cluster, options: CommOptions, key: tuple) -> dict:
    """``_step_comm_times`` of one plan (``key``: ``_scalar_plan_key``'s numbers), its times
    memoised (each 0-d array as the immutable ``np.float64`` of the same value) by the model's
    shapes, the cluster, the plan and what the times read of ``options``: the MoE dispatch
    settings, ``cp_repeat_kv`` and the efficiency's link fractions and latencies (``_Figures``),
    not its kernel fractions, which a pilot's calibration varies (``calibrate``) and the
    kernel mechanisms' comparison re-prices. ``fig`` is the caller's own (``_Figures`` of
    ``options.efficiency``)."""
    e = options.efficiency
    memo_key = (c, cluster, *(getattr(options, f) for f in STEP_COMM_OPTION_FIELDS),
                *(getattr(e, f) for f in STEP_COMM_EFFICIENCY_FIELDS), key)
    times = _STEP_COMM_MEMO.get(memo_key)
    if times is None:
        s, x, tp, cp, ep, dp, sp, etp = key
        out = _step_comm_times(c, cluster, options, s, np.float64(x), np.asarray(tp),
                               np.asarray(cp), np.asarray(ep), np.asarray(dp), np.asarray(sp),
                               np.asarray(etp))
        times = tuple((k, v[()] if isinstance(v, np.ndarray) and v.ndim == 0 else v)
                      for k, v in out.items() if k != "fig")
        if len(_STEP_COMM_MEMO) >= _STEP_COMM_MEMO_SIZE:
            _STEP_COMM_MEMO.clear()
        _STEP_COMM_MEMO[memo_key] = times
    return {**dict(times), "fig": _Figures(cluster, e)}


def _step_comm_times(c, cluster: Cluster, options: CommOptions, s, x, tp, cp, ep, dp,
                     sp, etp) -> dict:
    """``step_comm_arrays``' times, computed (its docstring gives the keys)."""
    o = options
    moe_dispatch, moe_gate, moe_node_limit, moe_dispatch_dtype = (
        o.moe_dispatch, o.moe_gate, o.moe_node_limit, o.moe_dispatch_dtype)
    fig = _Figures(cluster, o.efficiency)
    act = 2.0 * x * c.h                                  # one layer's activations, 16-bit
    ar = fig.time("all_reduce", act, tp, 1)
    ag = fig.time("all_gather", act, tp, 1)
    rs = fig.time("reduce_scatter", act, tp, 1)
    tp_fwd = np.where(sp, 2 * ag + 2 * rs, 2 * ar)
    tp_bwd = np.where(sp, 2 * rs + 4 * ag, 2 * ar)
    edge = np.where(sp, ag + rs, ar)
    kv_bytes = _cp_kv_bytes(c, x, tp, cp, o.cp_repeat_kv)
    cp_ag = fig.time("all_gather", kv_bytes, cp, tp)
    cp_rs = fig.time("reduce_scatter", kv_bytes, cp, tp)
    # the rank's own dK, dV in fp32 (twice its 16-bit K/V) to its ring neighbour; the ring waits
    # for its slowest hop, the wrap-around one spanning (cp − 1)·tp ranks
    cp_dkv = fig.time("send_recv", 2.0 * kv_bytes / cp, 2.0 * np.ones_like(x), (cp - 1) * tp)
    # EP: all-to-all of the k routed copies of each token (dispatch, combine), or of the copies
    # a deduplicating dispatcher sends (moe_dispatch_copies); the dispatch in
    # MOE_DISPATCH_BYTES[moe_dispatch_dtype] per element, the combine in BF16 (forward and
    # backward alike, DeepSeek-V3 §3.3.3): one dispatch + one combine each way
    # each rank's own x/tp tokens (sequence parallelism) over an EP group etp ranks apart
    x_e, ep_stride = np.where(sp, x / tp, x), etp
    if not c.is_moe:
        a2a_pair = 0.0 * x
    else:
        b_d = MOE_DISPATCH_BYTES[moe_dispatch_dtype]
        if moe_dispatch == "per_expert":
            a2a_pair = fig.time("all_to_all", b_d * x_e * c.k * c.h, ep, ep_stride) \
                + fig.time("all_to_all", 2.0 * x_e * c.k * c.h, ep, ep_stride)
        else:
            a2a_pair = sum(fig.a2a(b * x_e * c.h, ep, ep_stride, c.E, c.k, moe_dispatch,
                                   moe_gate, moe_node_limit) for b in (b_d, 2.0))
    # PP: activation (1/tp of it with SP or Megatron's scatter/gather), peer in another domain
    # when the inner dimensions fill one; without SP the receiver re-gathers it over NVLink
    p2p_bytes = np.where(tp > 1, act / tp, act)
    pp_stride = tp * cp * dp
    p2p = fig.time("send_recv", p2p_bytes, 2.0 * np.ones_like(x), pp_stride)
    regather = np.where((tp > 1) & ~sp, fig.time("all_gather", act, tp, 1), 0.0)
    return {
        "tp_fwd_s": tp_fwd, "tp_bwd_s": tp_bwd, "edge_tp_s": edge,
        "cp_fwd_s": cp_ag, "cp_bwd_s": cp_ag + cp_rs, "cp_dkv_s": np.where(cp > 1, cp_dkv, 0.0),
        "ep_fwd_s": a2a_pair, "ep_bwd_s": a2a_pair,
        **_moe_tp_times(c, fig, act, tp, etp, sp, tp_fwd, tp_bwd),
        "pp_p2p_s": p2p + regather, "fig": fig,
    }


def _moe_tp_times(c, fig, act, tp, etp, sp, tp_fwd, tp_bwd) -> dict:
    """An MoE layer's TP collectives per micro-batch, forward and backward
    (``step_comm_arrays``' docstring): the attention's half of the dense layer's
    (``tp_fwd``, ``tp_bwd``), the shared experts' other half where the model has them, and,
    with sequence parallelism (``sp``), the expert-TP group's all-gather and reduce-scatter of
    the routed copies (``k · act`` bytes over ``etp`` ranks) each way; without it every rank
    already dispatches all x tokens and gathers none (Megatron-Core refuses MoE with TP > 1
    and no sequence parallelism in training, ``moe_layer.py``; other stacks replicate the
    tokens): ``{"tp_moe_fwd_s", "tp_moe_bwd_s"}``."""
    share = 1.0 if c.ns else 0.5
    if not c.is_moe:
        return {"tp_moe_fwd_s": share * tp_fwd, "tp_moe_bwd_s": share * tp_bwd}
    routed = fig.time("all_gather", c.k * act, etp, 1) + fig.time("reduce_scatter", c.k * act,
                                                                  etp, 1)
    routed = np.where((etp > 1) & np.asarray(sp, dtype=bool), routed, 0.0)
    return {"tp_moe_fwd_s": share * tp_fwd + routed, "tp_moe_bwd_s": share * tp_bwd + routed}


def comm_volume(model, cluster: Cluster, plan, seq_len=None, recipe="bf16_adam_fp32_grads",
                efficiency: Efficiency | None = None) -> pd.DataFrame:
    """Bytes each GPU sends per optimizer step, and the time they take, per parallel dimension.

    For the pipeline stage holding the most layers of ``plan`` (see the module docstring for what
    each dimension sends): TP and CP per layer and micro-batch, EP per MoE layer and
    micro-batch, PP per micro-batch and model chunk, DP per step or per micro-batch by ZeRO
    stage over the stage's parameters (its layers, the embedding on the first stage, the LM
    head and final norm on the last: ``shapes.edge_params``). Times are before any overlap
    (``llmcost.step`` applies the overlap rules); bytes are what a rank puts on its links
    (ring all-reduce 2(n−1)/n·S, reduce-scatter and all-gather (n−1)/n·S, all-to-all
    (n−1)/n·S, send S).

    Parameters
    ----------
    model : ModelSpec
    cluster : Cluster
    plan : ParallelPlan
    seq_len : int, optional
    recipe : str
        Gradient bytes reduced by DP (``grads_bytes`` of the recipe).
    efficiency : Efficiency, optional

    Returns
    -------
    DataFrame indexed by dimension (TP, CP, EP, PP, DP) with ``collectives`` (what runs),
    ``per_step`` (how many), ``bytes_per_gpu``, ``time_s`` and ``links``.

    Raises
    ------
    ValueError
        A plan using more GPUs than the cluster.
    """
    check_plan_on_cluster(plan, cluster)
    c = model_shapes(model)
    rcp = get_recipe(recipe)
    fig = _Figures(cluster, efficiency)
    s = float(model.seq_len if seq_len is None else
              as_scalar(seq_len, "seq_len", positive=True, integer=True))
    st = _volume_stage(model, plan, s)
    cm = step_comm_arrays(c, model, cluster, CommOptions(fig.eff), s=s, x=np.asarray(st.x),
                          tp=np.asarray(st.t), cp=np.asarray(st.cp), ep=np.asarray(st.ep),
                          dp=np.asarray(st.dp), sp=np.asarray(st.sp), etp=np.asarray(st.etp))
    p_dense, p_moe, p_exp = (float(np.asarray(a)) for a in layer_params(c, st.t, st.ep,
                                                                          st.etp))
    # the stage's non-expert parameters: its layers', and the embedding on the first stage and
    # the LM head with the final norm on the last (``edge_params``), as the step engine's DP
    # traffic counts them (a trial: Llama 3.1 8B's DP row counted 6.98e9 of its 8.03e9); the
    # step engine also counts the multi-token-prediction modules on the last stage and times
    # the costliest of the first, a middle and the last stage, which this table does not
    p_emb, _, p_head = edge_params(c, st.t, st.pp)
    p_ne = (st.nd * p_dense + st.nm * p_moe + (float(p_emb) if st.stage == 0 else 0.0)
            + (float(p_head) if st.stage == st.pp - 1 else 0.0))
    p_ex = st.nm * p_exp
    dpb, dpt, what, per = _dp_volume(fig, plan, float(rcp.grads_bytes), p_ne, p_ex, st.layers,
                                     st.full)
    place = _volume_links(plan, cluster)
    g = st.dp * st.cp
    rows = [_tp_volume(st, cm, c, place), _cp_volume(st, cm, c, place),
            _ep_volume(st, cm, c, place), _pp_volume(st, cm, c, place),
            ("DP", what, per if g > 1 else 0, dpb if g > 1 else 0.0, dpt if g > 1 else 0.0,
             place["DP (dense, with CP)"])]
    return pd.DataFrame(rows, columns=["dimension", "collectives", "per_step", "bytes_per_gpu",
                                       "time_s", "links"]).set_index("dimension")


@dataclass(frozen=True)
class _VolumeStage:
    """``comm_volume``'s plan sizes as floats (t, cp, ep, dp, pp, v, m), its flags (``sp``:
    sequence parallelism with tp > 1; ``full``: full recomputation; ``rc`` = 1 under it, else
    0), tokens per micro-batch on a rank ``x = s/cp·b``, the layers of the most loaded
    pipeline stage (``nd`` dense, ``nm`` MoE, ``layers`` = nd + nm), the experts'
    tensor-parallel size ``etp`` (``ParallelPlan.expert_tp``; None: t) and that stage's rank
    ``stage`` (0 the first, with the embedding; pp − 1 the last, with the LM head)."""

    t: float
    cp: float
    ep: float
    dp: float
    pp: float
    v: float
    m: float
    sp: bool
    full: bool
    rc: float
    x: float
    nd: float
    nm: float
    layers: float
    etp: float | None = None
    stage: int = 0

    @property
    def et(self) -> float:
        """The experts' TP: ``etp``, else t."""
        return self.t if self.etp is None else self.etp


def _volume_stage(model, plan, s: float) -> _VolumeStage:
    """The ``_VolumeStage`` of ``plan`` at sequence length ``s``: the stage holding the most
    layers (``memory.stage_layers``, first such stage)."""
    t, cp, ep, dp, pp, v, m = (float(plan.tp), float(plan.cp), float(plan.ep), float(plan.dp),
                               float(plan.pp), float(plan.virtual_stages),
                               float(plan.n_microbatches))
    full = plan.recompute == "full"
    dense, moe = stage_layers(model, plan.pp, plan.virtual_stages, plan.pp_split)
    r = int(np.argmax(dense + moe))
    nd, nm = float(dense[r]), float(moe[r])
    return _VolumeStage(t, cp, ep, dp, pp, v, m, sp=plan.sequence_parallel and plan.tp > 1,
                        full=full, rc=1.0 if full else 0.0, x=s / cp * plan.micro_batch_size,
                        nd=nd, nm=nm, layers=nd + nm,
                        etp=float(getattr(plan, "expert_tp", plan.tp)), stage=r)


def _tp_volume(st: _VolumeStage, cm: dict, c, place) -> tuple:
    """``comm_volume``'s TP row. With the activation ``A = 2·x·h`` bytes (16-bit) and one unit
    = one ring pass of ``(t−1)/t·A`` (an all-reduce is 2 units, an all-gather or reduce-scatter
    1; Shoeybi et al. 2019 §3, Korthikanti et al. 2022 §4.2.2): forward 4 units per layer and
    micro-batch (two all-reduces, or two all-gathers + two reduce-scatters with SP), ×(1 + rc)
    under full recomputation; backward 4 units (6 with SP: the LayerNorm output re-gathered).
    ``bytes = (t−1)/t · A · (4·(1 + rc) + 4 or 6) · layers · m``; collectives per step
    ``((4 or 2)·(1 + rc) + (6 or 2)) · layers · m``; time from ``step_comm_arrays``. An MoE
    layer counts half a layer (its attention's collectives), a whole one with shared experts,
    ``layers = nd + nm·(1/2 or 1)``, and its expert-TP group (``e = etp`` ranks, above 1)
    all-gathers and reduce-scatters the routed copies each way, ``(e−1)/e · k·A · (2·(1 + rc)
    + 2) · nm · m`` bytes more (Megatron-Core's alltoall dispatcher; ``_moe_tp_times``)."""
    t, rc, sp, e = st.t, st.rc, st.sp, st.et
    act = 2.0 * st.x * c.h
    tp_units_f = 4.0
    tp_units_b = (6.0 if sp else 4.0)
    layers = st.nd + (1.0 if c.ns else 0.5) * st.nm if c.is_moe else st.layers
    routed = (e - 1) / e * c.k * act * (2.0 * (1 + rc) + 2.0) * st.nm * st.m \
        if c.is_moe else 0.0
    tp_bytes = (t - 1) / t * act * (tp_units_f * (1 + rc) + tp_units_b) * layers * st.m + routed
    tp_time = ((float(cm["tp_fwd_s"]) * (1 + rc) + float(cm["tp_bwd_s"])) * st.nd
               + (float(cm["tp_moe_fwd_s"]) * (1 + rc) + float(cm["tp_moe_bwd_s"])) * st.nm) * st.m
    count = ((4.0 if sp else 2.0) * (1 + rc) + (6.0 if sp else 2.0)) * layers * st.m \
        + ((2.0 * (1 + rc) + 2.0) * st.nm * st.m if c.is_moe and e > 1 else 0.0)
    return ("TP", "all-gather + reduce-scatter (SP)" if sp else "all-reduce",
            count if t > 1 else 0, tp_bytes, tp_time, place["TP"])


def _cp_volume(st: _VolumeStage, cm: dict, c, place) -> tuple:
    """``comm_volume``'s CP row (Llama 3 §3.3.2, all-gather based): per layer and micro-batch
    an all-gather of K, V forward (again under full recomputation) and an all-gather of K, V
    plus a reduce-scatter of dK, dV backward: ``bytes = (cp−1)/cp · KV · (3 + rc) · layers ·
    m``, KV the rank's K and V bytes (``_cp_kv_bytes``); ``(2 + rc) · layers · m``
    collectives."""
    cp, rc = st.cp, st.rc
    kv = float(_cp_kv_bytes(c, st.x, st.t, cp))
    cp_bytes = (cp - 1) / cp * kv * (3.0 + rc) * st.layers * st.m
    cp_time = (float(cm["cp_fwd_s"]) * (1 + rc) + float(cm["cp_bwd_s"])) * st.layers * st.m
    return ("CP", "all-gather K, V (+ reduce-scatter dK, dV)", (2.0 + rc) * st.layers * st.m
            if cp > 1 else 0, cp_bytes, cp_time, place["CP"])


def _ep_volume(st: _VolumeStage, cm: dict, c, place) -> tuple:
    """``comm_volume``'s EP row (Lepikhin et al. 2020; Fedus et al. 2021): per MoE layer and
    micro-batch a dispatch and a combine all-to-all forward and the transposed pair backward,
    the k routed copies of each token, ``2·x·k·h`` bytes each: ``bytes = (ep−1)/ep · 2xkh ·
    (4 + 2·rc) · nm · m`` (0 for a dense model); ``(4 + 2·rc) · nm · m`` collectives. With
    sequence parallelism the rank sends its own ``x/t`` tokens (Megatron-Core's alltoall
    dispatcher, at either expert TP)."""
    ep, rc = st.ep, st.rc
    a2a = 2.0 * (st.x / st.t if st.sp else st.x) * c.k * c.h
    ep_bytes = (ep - 1) / ep * a2a * (4.0 + 2 * rc) * st.nm * st.m if c.is_moe else 0.0
    ep_time = (float(cm["ep_fwd_s"]) * (1 + rc) + float(cm["ep_bwd_s"])) * st.nm * st.m \
        if c.is_moe else 0.0
    return ("EP", "all-to-all dispatch + combine", (4.0 + 2 * rc) * st.nm * st.m if ep > 1 else 0,
            ep_bytes, ep_time, place["EP"])


def _pp_volume(st: _VolumeStage, cm: dict, c, place) -> tuple:
    """``comm_volume``'s PP row (Narayanan et al. 2021 §2.2, §4.1): per micro-batch and model
    chunk one activation forward and one gradient backward, ``A/t`` bytes with TP (Megatron's
    scatter/gather), ``A = 2·x·h`` without: ``bytes = 2 · v · A/t · m`` when pp > 1."""
    t, pp, v = st.t, st.pp, st.v
    act = 2.0 * st.x * c.h
    p2p = act / t if t > 1 else act
    pp_bytes = 2.0 * v * p2p * st.m if pp > 1 else 0.0
    pp_time = 2.0 * v * float(cm["pp_p2p_s"]) * st.m if pp > 1 else 0.0
    return ("PP", "send/recv activations and gradients", 2.0 * v * st.m if pp > 1 else 0,
            pp_bytes, pp_time, place["PP"])


def _dp_volume(fig, plan, grads_bytes: float, p_ne: float, p_ex: float, layers: float,
               full: bool):
    """``comm_volume``'s DP row: ``(bytes, seconds, what runs, how many per step)`` of the
    data-parallel / ZeRO collectives of one GPU holding ``p_ne`` non-expert and ``p_ex`` expert
    parameters (``layers`` layers): ZeRO-0 one gradient all-reduce, ZeRO-1 a gradient
    reduce-scatter and a weight all-gather, ZeRO-2 the reduce-scatter per micro-batch, ZeRO-3
    per micro-batch a gather of the weights for the forward and the backward pass (and the
    recomputed forward under ``full``, the default stack's convention, as DeepSpeed's ZeRO-3
    runs it; PyTorch's FSDP gathers once for both: ``step.fsdp_backward_gathers``, which the
    step engine prices by the stack) and a gradient reduce-scatter, over the shard group; with
    HSDP once per step an all-reduce of each rank's gradient shard over the replicas. Bytes per
    collective as the module docstring's ring formulas, times by NCCL's cost model
    (``fig.nccl``), as the step engine times them. The routed experts' group is the
    expert-data-parallel one, ``g·t/(etp·ep)`` ranks at stride etp·ep (the experts' rank order
    etp-ep-edp: ``g/ep`` at stride t·ep at etp = t; ``g·t/ep`` at stride ep under MoE parallel
    folding)."""
    t, cp, ep, dp = float(plan.tp), float(plan.cp), float(plan.ep), float(plan.dp)
    et = float(getattr(plan, "expert_tp", plan.tp))
    m = float(plan.n_microbatches)
    g = dp * cp
    gx = max(g * t / (et * ep), 1.0)
    stx0 = et * ep

    def dp_bytes_time(op, nbytes, g=g, gx=gx, st=t, stx=stx0, p_ne=p_ne, p_ex=p_ex):
        units = 2.0 if op == "all_reduce" else 1.0
        b = units * ((g - 1) / g * p_ne + ((gx - 1) / gx * p_ex if p_ex else 0.0)) * nbytes
        # NCCL's cost model, as the step engine times DP / ZeRO collectives
        tt = float(fig.nccl(op, p_ne * nbytes, g, st)) + (
            float(fig.nccl(op, p_ex * nbytes, gx, stx)) if p_ex else 0.0)
        return b, tt

    gb, wb = grads_bytes, 2.0
    z = plan.zero_stage
    if z == 0:
        (dpb, dpt), what, per = dp_bytes_time("all_reduce", gb), "all-reduce (gradients)", 1
    elif z == 1:
        b1, t1 = dp_bytes_time("reduce_scatter", gb)
        b2, t2 = dp_bytes_time("all_gather", wb)
        dpb, dpt, what, per = b1 + b2, t1 + t2, "reduce-scatter + all-gather (weights)", 2
    elif z == 2:
        b1, t1 = dp_bytes_time("reduce_scatter", gb)
        b2, t2 = dp_bytes_time("all_gather", wb)
        dpb, dpt = m * b1 + b2, m * t1 + t2
        what, per = "reduce-scatter per micro-batch + all-gather (weights)", m + 1
    else:
        # ZeRO-3 over the shard group (the whole group unless HSDP: f ranks, r = g/f replicas)
        f = float(plan.shard_group_size)
        fx, r = max(f * t / (et * ep), 1.0), g / f
        sh = dict(g=f, gx=fx)
        b1, t1 = dp_bytes_time("reduce_scatter", gb, **sh)
        b2, t2 = dp_bytes_time("all_gather", wb, **sh)
        n_g = 3.0 if full else 2.0
        dpb, dpt = m * (b1 + n_g * b2), m * (t1 + n_g * t2)
        what, per = "per micro-batch: all-gather weights (fwd, bwd) + reduce-scatter", \
            m * (1 + n_g) * max(layers, 1)
        # HSDP: once per step, all-reduce of each rank's gradient shard over replicas, which
        # sit f·tp ranks apart for dense and routed-expert shards alike (rank order tp-cp-ep-dp)
        if r > 1:
            b3, t3 = dp_bytes_time("all_reduce", gb, g=r, gx=r, st=f * t, stx=f * t,
                                   p_ne=p_ne / f, p_ex=p_ex / fx)
            dpb, dpt, per = dpb + b3, dpt + t3, per + 1
            what += f" in the {int(f)}-rank shard group; all-reduce of the gradient shard " \
                f"over {int(r)} replicas"
    return dpb, dpt, what, per


def _volume_links(plan, cluster: Cluster) -> pd.Series:
    """The links each dimension's collectives cross (``placement``), by dimension; with HSDP
    the DP row names the shard group's and the replicas' links."""
    place = placement(plan, cluster).set_index("dimension")["links"]
    if plan.zero_stage == 3 and plan.fsdp_shard_size is not None:
        place["DP (dense, with CP)"] = (f"{place['FSDP shard group (HSDP)']} (shard group), "
                                        f"{place['HSDP replicas']} (replicas)")
    return place

def collective_sweep(cluster: Cluster, message_bytes, ops=("all_reduce",), group_size=None,
                     efficiency: Efficiency | None = None) -> pd.DataFrame:
    """Collective time against message size, inside one scale-up domain and across domains.

    The same group size runs twice: as consecutive ranks of one domain (NVLink) and as one rank
    per domain (every hop on the scale-out network), so the two curves differ only by the link.

    Parameters
    ----------
    cluster : Cluster
        Needs at least ``group_size`` scale-up domains for the scale-out curve.
    message_bytes : array of float, >= 0
    ops : sequence of str
    group_size : int, optional
        Ranks per group (default: the domain size).

    Returns
    -------
    DataFrame with ``link`` ("scale-up" / "scale-out"), ``op``, ``message_bytes``, ``time_s``,
    ``algbw`` and ``busbw`` (bytes/s, nccl-tests definitions).
    """
    s = as_array(message_bytes, "message_bytes", nonnegative=True).ravel()
    dom = int(cluster.scaleup_domain_size)
    n = dom if group_size is None else int(group_size)
    rows = []
    for op in ops:
        for link, stride in (("scale-up", 1), ("scale-out", dom)):
            if link == "scale-up" and n > dom:
                continue
            if link == "scale-out" and n * dom > cluster.n_gpus:
                continue
            t = np.asarray(cluster_collective_time(op, s, n, cluster, stride, efficiency))
            with np.errstate(divide="ignore", invalid="ignore"):
                alg = np.where(t > 0, s / np.where(t > 0, t, 1.0), 0.0)
            rows.append(pd.DataFrame({"link": link, "op": op, "message_bytes": s, "time_s": t,
                                      "algbw": alg,
                                      "busbw": alg * np.asarray(busbw_factor(op, n))}))
    return pd.concat(rows, ignore_index=True)


# ----------------------------------------------------------------------------------------- scale
#: NCCL's own cost model of a collective (``NVIDIA/nccl src/graph/tuning.cc``, the revision of
#: NCCL 2.7.5 at commit 01afd20, copyright 2016-2020, ``baseLat`` and ``hwLat``, microseconds):
#: per protocol, a base latency and a per-ring-step latency on NVLink and on the network. A ring
#: collective over
#: n ranks on N nodes takes ``base + (steps − inter)·nvlink + inter·net`` (steps: 2(n−1) for
#: all-reduce, n−1 for all-gather / reduce-scatter; inter: 2(N−1) or N−1); the double binary
#: tree (all-reduce only) ``base + 2·((n/N − 1)·nvlink + log2(N)·net)``. LL128's bandwidth is
#: 0.92 of the bus bandwidth, capped at 18.3 (all-gather), 15.2 (reduce-scatter) or 16.7
#: (all-reduce) GB/s per channel; the tree's bus bandwidth is 0.9 of the ring's, capped at
#: 80 GB/s beyond two nodes (105 with LL128: NCCL's A100 value, applied here to every GPU;
#: simplified: NCCL's LL128 tree rule, its caps within two nodes and its one-GPU-per-node
#: factor are not modelled). NCCL picks the fastest (algorithm, protocol) per call;
#: ``nccl_collective_time`` does the same over these.
NCCL_TUNING = {
    # protocol: (ring base, ring NVLink step, ring network step,
    #            tree base, tree NVLink step, tree network step), seconds
    "ll128": (10.0e-6, 1.9e-6, 4.0e-6, 4.4e-6, 1.2e-6, 8.5e-6),
    "simple": (8.4e-6, 3.4e-6, 9.6e-6, 0.0, 28e-6, 50e-6),
}
NCCL_LL128_MAX_BW_PER_CHANNEL = {"all_gather": 18.3e9, "reduce_scatter": 15.2e9,
                                 "all_reduce": 16.7e9}
NCCL_TREE_MAX_BUSBW = 80e9          # beyond two nodes (tuning.cc maxTreeBw, Simple protocol)
NCCL_TREE_MAX_BUSBW_LL128_A100 = 105e9


def _nccl_group_time(op, s, n, stride, nic_aggregation, domain, up_bw, out_bw, peers=0):
    """``_nccl_time`` of a group of ``n`` ranks ``stride`` apart on scale-up domains of
    ``domain`` GPUs (``_Figures.nccl``), arrays."""
    n = np.asarray(n, dtype=float)
    st = np.asarray(stride, dtype=float)
    k = np.clip(np.floor(domain / st), 1, n)
    if not np.all(nic_aggregation):
        k = np.where(np.asarray(nic_aggregation) | (k >= n), k, 1.0)
    return _nccl_time(op, s, n, k, up_bw, out_bw, peers)


@lru_cache(maxsize=1 << 16)
def _nccl_scalar(op, s, n, stride, nic_aggregation, domain, up_bw, out_bw,
                 peers=0) -> np.float64:
    """``_nccl_group_time`` of scalars, memoised, as an immutable ``np.float64`` (the value the
    array path gives as a 0-d array). The engine prices one plan at a time with the same
    collectives again and again: a pilot's calibration solves for a compute factor that leaves
    every collective unchanged (the published series' pilot validation: 58,620 calls, 5,379
    distinct)."""
    return np.float64(_nccl_group_time(op, s, n, stride, nic_aggregation, domain, up_bw,
                                       out_bw, peers))


def _nccl_time(op, s, n, k, up_bw, out_bw, peers=0):
    """NCCL's cost model (``NCCL_TUNING``), arrays: ring with LL128 or Simple, and for
    all-reduce the tree, the fastest of them. Ops other than all-reduce, all-gather and
    reduce-scatter fall back to the ring Simple latency with their ring byte counts. On a full
    mesh of ``peers`` links per GPU the scale-up bandwidth is that of the ``k`` members per
    board (``mesh_scaleup_bandwidth``)."""
    n = np.asarray(n, dtype=float)
    k = np.minimum(np.asarray(k, dtype=float), n)
    nodes = np.ceil(n / k)
    spans = nodes > 1
    up_bw = mesh_scaleup_bandwidth(up_bw, k, peers, spans)
    bus = np.where(spans, np.minimum(up_bw, k * out_bw), up_bw)
    moved, steps = _bw_term(op, np.asarray(s, dtype=float), n, "ring")
    inter = {"all_reduce": 2 * (nodes - 1)}.get(op, nodes - 1)
    best = None
    for proto, (b, lat_up, lat_net, tb, tlat_up, tlat_net) in NCCL_TUNING.items():
        lat = b + (steps - inter) * lat_up + inter * lat_net
        bw = bus
        if proto == "ll128":
            cap = NCCL_LL128_MAX_BW_PER_CHANNEL.get(op)
            bw = 0.92 * bus if cap is None else np.minimum(0.92 * bus, cap * np.maximum(k, 1))
        t = lat + moved / bw
        if op == "all_reduce":
            tcap = NCCL_TREE_MAX_BUSBW_LL128_A100 if proto == "ll128" else NCCL_TREE_MAX_BUSBW
            tbus = np.where(nodes > 2, np.minimum(0.9 * bus, tcap), 0.9 * bus)
            tlat = tb + 2 * ((n / nodes - 1) * tlat_up + np.log2(np.maximum(nodes, 1)) * tlat_net)
            t = np.where(spans, np.minimum(t, tlat + 2.0 * s / tbus), t)
        best = t if best is None else np.minimum(best, t)
    return np.where(n > 1, best, 0.0)


def nccl_collective_time(op: str, message_bytes, group_size, cluster: Cluster, stride=1,
                         efficiency: Efficiency | None = None):
    """Time of one collective by NCCL's own cost model: latency that grows with the job's rank
    and node count, and the bandwidth the message size achieves at that scale.

    ``t = min over (algorithm, protocol) of latency + bytes moved ÷ bus bandwidth``, with the
    latencies of ``NCCL_TUNING`` (NVIDIA/nccl ``src/graph/tuning.cc``): a ring over n ranks on N
    scale-up domains pays ``base + (steps − inter)·α_NVLink + inter·α_net``, so an all-gather over
    1,536 A100s (192 nodes) pays 3.3 ms of latency before a byte moves (LL128) and a 100 MB
    message reaches about an eighth of the large-message bus bandwidth (``scale_efficiency``);
    all-reduce may take the double binary tree, ``base + 2·((n/N − 1)·α_NVLink + log2(N)·α_net)``, whose bus bandwidth is
    capped at 80 GB/s beyond two nodes. The bus bandwidth of a ring is the hierarchical
    ``min(B_up·f_up, k·B_out·f_out)`` of ``cluster_collective_time`` (k members per domain).

    Parameters
    ----------
    op : {"all_reduce", "all_gather", "reduce_scatter"} (others: ring Simple latency)
    message_bytes : float or array, >= 0
        The full buffer (gathered size for all-gather and reduce-scatter).
    group_size : int or array, >= 1, at most the cluster's GPUs
    cluster : Cluster
    stride : int or array
        Rank distance between members (``group_layout``).
    efficiency : Efficiency, optional
        Link fractions (default ``catalog.load_efficiency``).

    Returns
    -------
    float or ndarray, seconds.

    Raises
    ------
    ValueError
        Unknown op, negative size, a group larger than the cluster, a bad stride.

    Examples
    --------
    >>> from llmcost import Cluster, load_accelerator
    >>> c = Cluster(load_accelerator("A100-80GB"), 1536)
    >>> round(nccl_collective_time("all_gather", 3.6e9, 1536, c) * 1e3, 1)   # a 175B layer
    25.1
    """
    _check_op(op)
    s = as_array(message_bytes, "message_bytes", nonnegative=True)
    n = as_array(group_size, "group_size", positive=True, integer=True)
    if np.any(n > cluster.n_gpus):
        raise ValueError(f"group_size={float(np.max(n)):g} must be <= the cluster's "
                         f"n_gpus={cluster.n_gpus}")
    st = as_array(stride, "stride", positive=True, integer=True)
    fig = _Figures(cluster, efficiency)
    fig.within_domain(n, st)
    return scalar_or_array(fig.nccl(op, s, n, st))


def scale_efficiency(op: str, message_bytes, group_size, cluster: Cluster, stride=1,
                     efficiency: Efficiency | None = None):
    """Share of the large-message bus bandwidth a collective achieves at this message size and
    job size: ``busbw(S, n) / busbw(∞, n)`` under ``nccl_collective_time`` (nccl-tests' busbw,
    ``doc/PERFORMANCE.md``), in (0, 1]. Falls as the rank count grows at a fixed message size
    (ring latency ∝ n) and as the message shrinks at a fixed scale.

    Returns
    -------
    float or ndarray in (0, 1] (1.0 for a group of one).

    Raises
    ------
    ValueError
        As ``nccl_collective_time``.

    Examples
    --------
    >>> from llmcost import Cluster, load_accelerator
    >>> c = Cluster(load_accelerator("A100-80GB"), 2048)
    >>> [round(float(scale_efficiency("all_gather", 100e6, n, c)), 2) for n in (64, 512, 2048)]
    [0.66, 0.29, 0.1]
    """
    t = np.asarray(nccl_collective_time(op, message_bytes, group_size, cluster, stride,
                                        efficiency), dtype=float)
    s = np.asarray(as_array(message_bytes, "message_bytes", nonnegative=True), dtype=float)
    n = np.asarray(as_array(group_size, "group_size", positive=True, integer=True), dtype=float)
    fig = _Figures(cluster, efficiency)
    st = np.asarray(as_array(stride, "stride", positive=True, integer=True), dtype=float)
    k = np.clip(np.floor(fig.domain / st), 1, n)
    up = mesh_scaleup_bandwidth(fig.up_bw, k, fig.peers, n > k)
    bus = np.where(n > k, np.minimum(up, k * fig.out_bw), up)
    moved, _ = _bw_term(op, s, n, "ring")
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where((n > 1) & (t > 0), (moved / bus) / np.where(t > 0, t, 1.0), 1.0)
    return scalar_or_array(np.clip(out, 0.0, 1.0))


#: The backward prefetch orders of ``fsdp_exposure`` (``stacks.BACKWARD_PREFETCH_MODES``):
#: ``backward_prefetch`` is when the next layer's backward gather is issued (PyTorch FSDP1's
#: ``BackwardPrefetch``,
#: pytorch/pytorch@0aafd810d15f ``torch/distributed/fsdp/api.py``): ``"pre"`` (``BACKWARD_PRE``:
#: "prefetches the next set of parameters *before* the current set of parameters' gradient
#: computation. This overlaps the *next all-gather* and the *current gradient computation*"; FSDP2
#: prefetches so implicitly; the engine's pricing of every ZeRO-3 stack) or ``"post"``
#: (``BACKWARD_POST``: "*after* the current set of parameters' gradient computation. This overlaps
#: the *current reduce-scatter* and the *next gradient computation*"; Composer's default,
#: mosaicml/composer@12d31ceb9 ``composer/trainer/dist_strategy.py``). Under ``"post"`` layer i −
#: 1's gathers start when layer i's gradients are done and layer i − 1's backward waits for them,
#: so each of the L layers' ``g·G`` is exposed; layer i's reduce-scatter runs behind layer i − 1's
#: backward (``o(R, B)``, the last one exposed). FSDP1's post-backward hook issues the prefetch
#: (``_post_backward_reshard``) before the reduce-scatter (``_reduce_grad``;
#: pytorch/pytorch@3ade90a6aaa9 ``torch/distributed/fsdp/_runtime_utils.py``
#: ``_post_backward_hook``), and collectives of one process group run in issue order ("any
#: collectives, even if issued from different streams, contend for the same per-device NCCL
#: stream", the same docstring), so the gather does not wait behind that reduce-scatter. Since
#: ``o(c, w)`` rises by at most 1 per unit of ``c``, "post" is never below "pre", equal when ``g =
#: 0`` (nothing re-gathered). Convention: the exposed gather is charged at its bare time, with no
#: contention term.
FSDP_BACKWARD_PREFETCH = BACKWARD_PREFETCH_MODES


def fsdp_exposure(gather_s, reduce_scatter_s, forward_s, backward_s, n_layers,
                  prefetch_layers=1, backward_gathers=1, backward_prefetch="pre"):
    """Exposed seconds, per micro-batch, of ZeRO-3 / FSDP's per-layer collectives:
    ``(forward, backward)``.

    ZeRO-3 (Rajbhandari et al. 2020 §5.3) and PyTorch FSDP (Zhao et al. 2023, VLDB, §3.3–3.4:
    backward and forward prefetching) gather each layer's parameters just before it runs and
    reduce-scatter its gradients just after its backward. The link and the compute form a
    two-stage pipeline over the L layers: with a prefetch depth d >= 1 the gather of layer i + 1
    runs during layer i's compute, so only what does not fit behind it is exposed, and the first
    gather (and the last reduce-scatter) has nothing to hide behind. Per micro-batch, with G the
    time of one layer's gather, R its reduce-scatter, F and B one layer's forward and backward
    compute (backward including any recomputed forward), and the backward carrying
    ``backward_gathers`` re-gathers per layer::

        forward  = G + (L − 1)·o(G, F)                          (d >= 1)
        backward = g·G + R + (L − 1)·o(g·G + R, B)              (link shared by both; "pre")
        backward = L·g·G + R + (L − 1)·o(R, B)                  ("post")
        o(c, w) = max(c − w, 0) + σ·min(c, w)                   (``overlap_cost``)
        d = 0 (no prefetch): forward = L·G, backward = L·(g·G + R)

    ``backward_prefetch``: when the next layer's backward gather is issued, ``"pre"`` (before
    the current layer's gradient computation, hidden behind it) or ``"post"`` (after it,
    exposed): ``FSDP_BACKWARD_PREFETCH`` gives the sources and the derivation.

    σ = ``OVERLAP_SLOWDOWN`` (0.189, measured: compute beside a collective runs slower).
    For layers of equal size a depth beyond one layer changes the steady state no further (it
    only smooths uneven layers, at the memory cost of more gathered layers), so ``d`` enters as
    on/off; ``stacks.Stack.fsdp_prefetch_layers`` gives the stack's.

    Parameters
    ----------
    gather_s, reduce_scatter_s, forward_s, backward_s : float or array, >= 0
        Per layer, seconds (``nccl_collective_time`` for the collectives).
    n_layers : int or array, >= 1
    prefetch_layers : int or array, >= 0
    backward_gathers : int or array, >= 0
        Re-gathers per layer in the backward pass (1; 2 when full recomputation re-gathers for
        the recomputed forward as well, as DeepSpeed's 2021 ZeRO-3 did).
    backward_prefetch : {"pre", "post"}
        When the next layer's backward gather is issued (``stacks.BACKWARD_PREFETCH_MODES``;
        a stack's is ``stacks.Stack.fsdp_backward_prefetch``).

    Returns
    -------
    (forward_s, backward_s): exposed seconds per micro-batch.

    Raises
    ------
    ValueError
        A negative time or prefetch depth, fewer than one layer, a ``backward_prefetch``
        other than "pre" or "post".

    Examples
    --------
    >>> [round(x, 4) for x in fsdp_exposure(0.010, 0.010, 0.020, 0.040, 96)]  # fits: contention
    [0.1895, 0.3791]
    >>> [round(x, 3) for x in fsdp_exposure(0.030, 0.030, 0.020, 0.040, 96)]  # does not fit
    [1.339, 2.678]
    >>> [round(x, 3) for x in fsdp_exposure(0.030, 0.030, 0.020, 0.040, 96, 0)]  # no prefetch
    [2.88, 5.76]
    """
    g = as_array(gather_s, "gather_s", nonnegative=True)
    r = as_array(reduce_scatter_s, "reduce_scatter_s", nonnegative=True)
    f = as_array(forward_s, "forward_s", nonnegative=True)
    b = as_array(backward_s, "backward_s", nonnegative=True)
    L = as_array(n_layers, "n_layers", positive=True)
    d = as_array(prefetch_layers, "prefetch_layers", nonnegative=True)
    gb = as_array(backward_gathers, "backward_gathers", nonnegative=True)
    if not isinstance(backward_prefetch, str) or backward_prefetch not in FSDP_BACKWARD_PREFETCH:
        raise ValueError(f"backward_prefetch={backward_prefetch!r} must be one of "
                         f"{FSDP_BACKWARD_PREFETCH} (when FSDP issues the next layer's backward "
                         "all-gather)")
    fwd, bwd = fsdp_exposure_unchecked(g, r, f, b, L, d, gb, post=backward_prefetch == "post")
    return scalar_or_array(fwd), scalar_or_array(bwd)


#: Compute slowed by communication running beside it: Sharma et al. 2025, "Characterizing
#: Compute-Communication Overlap in GPU-Accelerated Distributed Deep Learning: Performance and
#: Power Implications", arXiv:2507.03114, abstract: overlapping computation and communication
#: slows the computation by 18.9% on average (40.0% at most) against the same kernels alone
#: (GPT and Llama layers on A100, H100, MI250, MI210: SMs, HBM and L2 are shared). Applied to the
#: overlapped span, ``min(comm, window)``, of the ZeRO-3 / FSDP per-layer all-gathers and
#: reduce-scatters (``fsdp_exposure_unchecked``, ``fsdp_exposure``) and wherever ``overlap_cost`` is
#: called. NOT applied (``step.zero_exposure``) to the ZeRO-2 per-micro-batch reduce-scatter or
#: to the per-step terms: the ZeRO-0 gradient all-reduce, the ZeRO-1/2 reduce-scatter and weight
#: all-gather, and the HSDP replica all-reduce, which follows ZeRO-0's convention. The ZeRO-0-2
#: windows are the ones notebook 04b validates on Megatron-style runs without it. Not applied to
#: the TP overlap either, whose cost is inside the per-layer times ``step.KERNEL_EFFICIENCY`` is
#: fitted to (Korthikanti et al. 2022 Table 4 overlaps its backward all-reduce).
OVERLAP_SLOWDOWN = 0.189


def overlap_cost(comm_s, window_s, slowdown=OVERLAP_SLOWDOWN):
    """Seconds a collective overlapped with a compute window adds to the step:
    ``max(comm − window, 0) + slowdown · min(comm, window)`` (the part that does not fit, plus
    the contention of the part that does: ``OVERLAP_SLOWDOWN``). Arrays broadcast.

    Raises
    ------
    ValueError
        A negative time or slowdown.

    Examples
    --------
    >>> round(float(overlap_cost(1.0, 3.0)), 3), round(float(overlap_cost(3.0, 1.0)), 3)
    (0.189, 2.189)
    """
    c = as_array(comm_s, "comm_s", nonnegative=True)
    w = as_array(window_s, "window_s", nonnegative=True)
    sd = as_array(slowdown, "slowdown", nonnegative=True)
    return scalar_or_array(overlap_cost_unchecked(c, w, sd))


def overlap_cost_unchecked(c, w, sd=OVERLAP_SLOWDOWN):
    """``overlap_cost`` without its input checks, for the step engine's arrays (already
    validated): exposed = max(c − w, 0) + sd · min(c, w)."""
    return np.maximum(c - w, 0.0) + sd * np.minimum(c, w)


def fsdp_exposure_unchecked(g, r, f, b, L, d, gb, sd=OVERLAP_SLOWDOWN, post=False):
    """``fsdp_exposure`` without its input checks, for the step engine's arrays (already
    validated): the (forward, backward) exposed ZeRO-3 times; formula in ``fsdp_exposure``
    (``post``: bool or bool array, the ``"post"`` backward order)."""
    link_b = gb * g + r
    fwd = np.where(d >= 1, g + (L - 1) * overlap_cost_unchecked(g, f, sd), L * g)
    pre_b = link_b + (L - 1) * overlap_cost_unchecked(link_b, b, sd)
    post_b = L * gb * g + r + (L - 1) * overlap_cost_unchecked(r, b, sd)
    bwd = np.where(d >= 1, np.where(post, post_b, pre_b), L * link_b)
    return fwd, bwd


#: The per-GPU routing factor of an MoE layer's all-to-all and expert GEMMs: the busiest
#: expert-parallel rank's tokens ÷ the average. Token-dropping routers pad every expert's buffer
#: to ``capacity_factor`` × the average (Fedus et al. 2022, Switch Transformer §2.2 Eq. 3; §2.3
#: and Table 1: best at 1.0–1.25, 2.0 also run; Lepikhin et al. 2021, GShard §3.2); dropless routers
#: (Gale et al. 2023, MegaBlocks; DeepSeek-V3, arXiv:2412.19437 §2.1.2) send every token, so
#: the busiest rank carries the routing imbalance. Default imbalance 1.0: perfectly balanced, a
#: lower bound (no published per-rank imbalance figure was found for DeepSeek-V3's
#: auxiliary-loss-free balancing); pass your own.
MOE_ROUTING = ("dropless", "capacity")


def moe_routing_factor(routing="dropless", capacity_factor=1.0, imbalance=1.0):
    """The busiest EP rank's load ÷ the balanced load (see ``MOE_ROUTING``): ``capacity_factor``
    for a token-dropping router (every buffer is padded to it), ``imbalance`` for a dropless one.

    Raises
    ------
    ValueError
        Unknown routing; a factor below 1.
    """
    if routing not in MOE_ROUTING:
        raise ValueError(f"moe_routing={routing!r} must be one of {MOE_ROUTING}")
    cf = as_scalar(capacity_factor, "moe_capacity_factor", positive=True)
    im = as_scalar(imbalance, "moe_imbalance", positive=True)
    for name, v in (("moe_capacity_factor", cf), ("moe_imbalance", im)):
        if v < 1.0:
            raise ValueError(f"{name}={v} must be >= 1 (the busiest rank carries at least the "
                             "average load)")
    return cf if routing == "capacity" else im


#: How a stack's dispatcher sends a token to its experts (``moe_dispatch_copies``):
#: ``"per_expert"``: one row per (token, expert) pair, k copies (Megatron-Core's
#: ``MoEAlltoAllTokenDispatcher``, DeepSpeed-MoE); ``"per_gpu"``: one copy per distinct
#: destination GPU; ``"per_node"``: one network copy per distinct destination node, forwarded
#: over NVLink to that node's destination GPUs (DeepSeek-V3, arXiv:2412.19437 §3.2.2; DeepEP's
#: internode kernels).
MOE_DISPATCH = ("per_expert", "per_gpu", "per_node")
#: Which gate chose the experts (``moe_destinations``): ``"learned"`` (modelled as uniform random
#: top-k without replacement), ``"fake_balanced"`` (NVIDIA-NeMo/Automodel
#: ``components/moe/layers.py`` ``FakeBalancedGate``: token i to experts ``(k·i + j) mod E``) or
#: ``"random"``: Megatron-Core's benchmark gate ``--moe-router-force-load-balancing``, which
#: replaces the router's logits by i.i.d. normal values before the top-k (NVIDIA/Megatron-LM
#: ``megatron/core/transformer/moe/router.py`` ``apply_random_logits`` and ``moe_utils.py``
#: ``RandomSTE``: "random logits of router for load-balanced benchmark", since 022bcb5, 2025-05):
#: every k-subset of experts equally likely, exactly the uniform top-k ``"learned"`` is priced as,
#: for a model without expert groups (Qwen3, GPT-OSS). A grouped model (DeepSeek-V3:
#: ``moe_router_num_groups`` 8, ``group_topk`` 4 in Megatron-Bridge) still routes the random logits
#: within its best groups; that limit is not priced here, so its random-gate rows count slightly
#: more destination GPUs than run (7.68 against 7.49 at EP 64, 7.27 against 6.86 at EP 32, by
#: ``_node_limited_destinations`` with groups as nodes).
MOE_GATES = ("learned", "fake_balanced", "random")
#: Bytes per element of a token's hidden vector in the MoE dispatch, by ``moe_dispatch_dtype``:
#: ``"bf16"`` 2; ``"fp8"`` 1 + 4/128 (E4M3 values plus one FP32 scale per 1×128 tile of
#: channels: DeepSeek-V3, arXiv:2412.19437 §3.3.2 fine-grained 1×128 activation tiles and §3.3.3
#: "we quantize the activation before MoE up-projections into FP8 and then apply dispatch
#: components ... A similar strategy is applied to the activation gradient before MoE
#: down-projections. For both the forward and backward combine components, we retain them in
#: BF16"; deepseek-ai/DeepEP README, Performance: "FP8 dispatching and BF16 combining").
#: The combine is always BF16 (2 bytes).
MOE_DISPATCH_BYTES = {"bf16": 2.0, "fp8": 1.0 + 4.0 / 128.0}
#: The phases of one MoE all-to-all (``moe_all_to_all_time``).
MOE_A2A_PHASES = ("dispatch", "combine")


def _miss_probability(pool, held, k):
    """P(none of k draws without replacement from ``pool`` experts falls among ``held`` of them)
    = C(pool − held, k) / C(pool, k) = Π_{i<k} (pool − held − i) / (pool − i)."""
    pool = np.asarray(pool, dtype=float)
    held = np.asarray(held, dtype=float)
    p = np.ones(np.broadcast(pool, held).shape)
    for i in range(int(k)):
        p = p * np.maximum(pool - held - i, 0.0) / (pool - i)
    return p


#: Tokens and seed of the node-limited routing count (``_node_limited_destinations``): a
#: fixed-seed Monte-Carlo, so results are deterministic; its standard error is about
#: 0.7/sqrt(tokens) = 0.002 nodes.
NODE_LIMITED_TOKENS = 100_000
NODE_LIMITED_SEED = 20241227


@lru_cache(maxsize=None)
@disk_cached
def _node_limited_destinations(E, k, G, g, M):
    """Mean distinct GPUs and nodes of a token under DeepSeek-V3's node-limited routing
    (arXiv:2412.19437 §2.1.2: the M nodes with the highest sums of their ``K_r/M`` largest
    affinities, then the top-k experts among those nodes' experts), affinities i.i.d. across
    experts (only their ranks matter, so any continuous distribution gives the same counts).
    A seeded Monte-Carlo over ``NODE_LIMITED_TOKENS`` tokens, computed once per layout and per
    code (``core.diskcache.disk_cached``: it does not depend on the scenario); each chunk's
    top k by ``_node_limited_counts``."""
    N, per_node = G // g, E // (G // g)
    top = max(k // M, 1)
    rng = np.random.default_rng(NODE_LIMITED_SEED)
    gpus = nodes = 0.0
    chunk = 10_000
    for _ in range(NODE_LIMITED_TOKENS // chunk):
        a = rng.random((chunk, N, per_node), dtype=np.float32)
        score = np.partition(a, per_node - top, axis=2)[:, :, per_node - top:].sum(axis=2)
        keep = np.argpartition(-score, M - 1, axis=1)[:, :M]
        n_gpus, n_nodes = _node_limited_counts(a, keep, k, E // G)
        gpus += n_gpus
        nodes += n_nodes
    total = (NODE_LIMITED_TOKENS // chunk) * chunk
    return gpus / total, nodes / total


def _node_limited_counts(a, keep, k: int, e: int) -> tuple:
    """(distinct GPUs, distinct nodes) summed over the tokens of ``a`` (affinities, tokens ×
    nodes × experts per node) sent to their nodes ``keep`` (tokens × M) and there to their top
    ``k`` affinities, ``e`` experts per GPU. The top k is the affinities at or above each
    token's k-th largest among its M nodes' (a comparison, not a selection over all E
    experts); a token whose k-th largest is tied has no unique top k, and takes the one
    ``_node_limited_tied`` picks."""
    rows = np.arange(len(a))[:, None]
    flat = a[rows, keep].reshape(len(a), -1)  # the kept nodes' affinities, node by node
    cut = flat.shape[1] - k
    chosen = flat >= np.partition(flat, cut, axis=1)[:, cut:cut + 1]
    tied = np.flatnonzero(chosen.sum(axis=1) != k)
    if tied.size:
        chosen[tied] = _node_limited_tied(a[tied], keep[tied], k)
    chosen = chosen.reshape(len(a), keep.shape[1], -1)
    gpus = chosen.reshape(*chosen.shape[:2], -1, e).any(axis=3).sum()
    return np.float64(gpus), np.float64(chosen.any(axis=2).sum())


def _node_limited_tied(a, keep, k: int):
    """The top ``k`` (a mask over the kept nodes' experts, node by node, as
    ``_node_limited_counts`` lays them) of tokens whose k-th largest affinity is tied: the k
    experts ``np.argpartition`` picks over all experts, the others' affinities masked to −1,
    as the count was first written (an affinity is in [0, 1))."""
    n, N, per_node = a.shape
    masked = np.full_like(a, -1.0)
    rows = np.arange(n)[:, None]
    masked[rows, keep] = a[rows, keep]
    picked = np.argpartition(-masked.reshape(n, N * per_node), k - 1, axis=1)[:, :k]
    mask = np.zeros((n, N, per_node), dtype=bool)
    np.put_along_axis(mask.reshape(n, -1), picked, True, axis=1)
    return mask[rows, keep].reshape(n, -1)


def _check_moe_layout(n_experts, top_k, ep, ranks_per_node, gate, node_limit):
    E = int(as_scalar(n_experts, "n_experts", positive=True, integer=True))
    k = int(as_scalar(top_k, "top_k", positive=True, integer=True))
    G = np.asarray(as_array(ep, "ep", positive=True, integer=True), dtype=float)
    g = np.asarray(as_array(ranks_per_node, "ranks_per_node", positive=True, integer=True),
                   dtype=float)
    if gate not in MOE_GATES:
        raise ValueError(f"moe_gate={gate!r} must be one of {MOE_GATES}")
    if k > E:
        raise ValueError(f"top_k={k} must be <= n_experts={E}")
    bad = np.flatnonzero(np.broadcast_to(E % G, G.shape).reshape(-1))
    if bad.size:
        raise ValueError(f"ep={G.reshape(-1)[bad[0]]:g}: the experts (n_experts={E}) must divide "
                         "evenly over the EP ranks")
    Gb, gb = np.broadcast_arrays(G, np.minimum(g, G))
    bad = np.flatnonzero((Gb % gb).reshape(-1))
    if bad.size:
        i = bad[0]
        raise ValueError(f"ranks_per_node={gb.reshape(-1)[i]:g} must divide "
                         f"ep={Gb.reshape(-1)[i]:g} (whole nodes)")
    g = np.minimum(g, G)
    if node_limit is not None:
        M = as_array(node_limit, "moe_node_limit", positive=True, integer=True)
        Mb, nb = np.broadcast_arrays(np.asarray(M, dtype=float), G / g)
        bad = np.flatnonzero((np.minimum(Mb, nb) * E / nb < k).reshape(-1))
        if bad.size:
            i = bad[0]
            raise ValueError(f"moe_node_limit={Mb.reshape(-1)[i]:g}: the limited nodes hold "
                             f"{np.minimum(Mb, nb).reshape(-1)[i] * E / nb.reshape(-1)[i]:g} "
                             f"experts, fewer than top_k={k}")
    return E, k, G, g


def moe_destinations(n_experts, top_k, ep, ranks_per_node, *, gate="learned",
                     node_limit=None):
    """Expected distinct destination GPUs and nodes of one token's k experts: ``(gpus, nodes)``
    (the source's own GPU and node included).

    Layout: ``E / ep`` consecutive experts per EP rank, ``g = ranks_per_node`` consecutive EP
    ranks per node (Megatron-Core and NeMo AutoModel put EP innermost after TP·CP),
    ``N = ep / g`` nodes.

    * ``gate="learned"``: the k experts drawn uniformly without replacement (a balanced router's
      expectation). Without a node limit a GPU holding ``e = E/ep`` experts is hit with
      probability ``q_g = 1 − C(E − e, k) / C(E, k)`` (hypergeometric), a node holding ``E/N``
      with ``q_n = 1 − C(E − E/N, k) / C(E, k)``: ``gpus = ep·q_g``, ``nodes = N·q_n``. With
      node-limited routing (DeepSeek-V3, arXiv:2412.19437 §2.1.2: each token is sent to at most
      M nodes, chosen by the sum of the highest ``K_r/M`` affinities of the experts on each
      node, then its top k experts among those nodes'; M = 4, §4.2) and ``M < N``, the rule
      itself is counted with i.i.d. affinities (``_node_limited_destinations``: a fixed-seed
      Monte-Carlo of 100,000 tokens computed once per layout, deterministic, standard error
      about 0.002 nodes). Its tokens reach more nodes than k experts drawn uniformly from M
      random nodes would (``n = M`` nodes, ``E' = M·E/N`` experts:
      ``nodes = M·(1 − C(E' − E/N, k)/C(E', k))``): DeepSeek-V3's layout 3.95 nodes against
      3.63, since a node chosen for its top two affinities holds at least two of the token's
      strongest experts, so the top 8 among the four chosen nodes' spread over them.
    * ``gate="random"`` (Megatron-Core's ``--moe-router-force-load-balancing``: i.i.d. normal
      logits, so a uniform random k-subset for a model without expert groups): as
      ``"learned"`` (a grouped model's group limit is not priced: ``MOE_GATES``).
    * ``gate="fake_balanced"`` (NeMo AutoModel's ``FakeBalancedGate``, ``indices =
      arange(tokens·k).view(-1, k) % E``): token i goes to experts ``(k·i + j) mod E``,
      ``j < k``; the exact mean over one period of ``E / gcd(E, k)`` tokens of the distinct
      ranks ``⌊expert / e⌋`` and nodes ``⌊rank / g⌋``.

    Raises
    ------
    ValueError
        Sizes below 1, ``top_k > n_experts``, experts not dividing over ``ep``, ``ranks_per_node``
        not dividing ``ep``, an unknown gate, a node limit whose nodes hold fewer than k experts.

    Examples
    --------
    DeepSeek-V3's EP 64 over 8 nodes, uniform routing, then limited to 4 nodes:

    >>> [round(float(v), 2) for v in moe_destinations(256, 8, 64, 8)]
    [7.68, 5.29]
    >>> [round(float(v), 2) for v in moe_destinations(256, 8, 64, 8, node_limit=4)]
    [7.49, 3.95]
    >>> [round(float(v), 2) for v in moe_destinations(256, 8, 64, 8, gate="fake_balanced")]
    [2.0, 1.0]
    """
    E, k, G, g = _check_moe_layout(n_experts, top_k, ep, ranks_per_node, gate, node_limit)
    N = G / g
    e = E / G
    if gate == "fake_balanced":
        gpus = np.empty(np.broadcast(G, g).shape)
        nodes = np.empty_like(gpus)
        Gb, gb = np.broadcast_arrays(G, g)
        period = E // int(np.gcd(E, k))
        experts = (np.arange(period * k).reshape(period, k)) % E
        cache = {}
        for idx in np.ndindex(gpus.shape):
            key = (int(Gb[idx]), int(gb[idx]))
            if key not in cache:
                rank = experts // (E // key[0])
                cache[key] = (np.mean([len(set(r)) for r in rank]),
                              np.mean([len(set(r // key[1])) for r in rank]))
            gpus[idx], nodes[idx] = cache[key]
        return scalar_or_array(gpus), scalar_or_array(nodes)
    gpus = G * (1.0 - _miss_probability(E, e, k))
    nodes = N * (1.0 - _miss_probability(E, E / N, k))
    if node_limit is not None:
        Mb, Gb, gb = np.broadcast_arrays(np.asarray(node_limit, dtype=float), G, g)
        gpus, nodes = np.broadcast_to(gpus, Mb.shape).copy(), np.broadcast_to(nodes, Mb.shape).copy()
        for idx in np.ndindex(Mb.shape):
            if Mb[idx] < Gb[idx] / gb[idx]:         # the limit binds: fewer nodes than the EP's
                gpus[idx], nodes[idx] = _node_limited_destinations(
                    E, k, int(Gb[idx]), int(gb[idx]), int(Mb[idx]))
    return scalar_or_array(gpus), scalar_or_array(nodes)


def node_limit_routable(n_experts, top_k, ep, stride, domain_size, node_limit):
    """Whether node-limited routing can reach a token's ``top_k`` experts on an EP layout,
    elementwise (a bool array; all True without a limit).

    DeepSeek-V3 (arXiv:2412.19437 §2.1.2) sends each token to at most ``M = node_limit``
    nodes and picks its k experts among theirs, so the M nodes must hold at least k experts::

        min(M, N) · E / N >= k,    N = ep / g,   g = even_domain_members(ep, ⌊D / stride⌋)

    with ``E`` routed experts spread evenly over the ``ep`` ranks, ``g`` EP ranks per
    scale-up domain of ``D = domain_size`` GPUs (EP innermost after TP·CP = ``stride``, as
    ``_Figures.a2a`` lays it out) and ``N`` the nodes the group spans. DeepSeek-V3's published
    layout (EP 64 over 8 nodes, M = 4) holds 4 × 32 = 128 experts; an EP 256 group one rank
    per node (TP·CP = 8) holds 4 × 1 = 4 < 8: no router with that limit runs on it, and
    ``moe_dispatch_copies`` refuses it (``_check_moe_layout``), so a plan search drops it
    (``ranking.rank_by_step_time``).
    """
    ep = np.asarray(ep, dtype=float)
    if node_limit is None:
        return np.ones(ep.shape, dtype=bool)
    g = np.minimum(even_domain_members(ep, np.clip(np.floor(
        float(domain_size) / np.asarray(stride, dtype=float)), 1, ep)), ep)
    nodes = ep / g
    return np.minimum(float(node_limit), nodes) * float(n_experts) / nodes >= float(top_k)


def moe_dispatch_copies(n_experts, top_k, ep, ranks_per_node, *, dispatch="per_expert",
                        gate="learned", node_limit=None):
    """Copies of one token a rank sends in one all-to-all (dispatch; the combine returns as
    many): ``(network, nvlink)``, the copies leaving the node through the rank's NIC and the ones
    moving over NVLink.

    With ``D_g``, ``D_n`` the token's distinct destination GPUs and nodes (``moe_destinations``),
    ``G = ep`` ranks, ``g`` per node, ``N = G/g`` nodes, and destinations independent of the
    source rank (true of the uniform router and of the fake gate, whose pattern depends on the
    token's index only), a destination is another node with probability ``(G − g)/G`` and
    another GPU of the source's node with ``(g − 1)/G``:

    * ``per_expert`` (k copies): ``network = k·(G − g)/G``, ``nvlink = k·(g − 1)/G`` (the
      uniform all-to-all of ``cluster_collective_time``);
    * ``per_gpu``: ``network = D_g·(G − g)/G``, ``nvlink = D_g·(g − 1)/G``;
    * ``per_node`` (DeepSeek-V3 §3.2.2: "tokens will be transmitted via IB to the GPUs with the
      same in-node index on their target nodes ... instantly forwarded via NVLink to specific
      GPUs that host their target experts"): ``network = D_n·(N − 1)/N``; NVLink carries the
      source node's copies, ``D_g·(g − 1)/G``, and the forwarding on the destination nodes,
      ``D_g·(G − g)/G · (g − 1)/g`` (a remote destination GPU is the receiving GPU itself
      with probability 1/g).

    Raises
    ------
    ValueError
        As ``moe_destinations``, or an unknown dispatch.

    Examples
    --------
    >>> [round(float(v), 2) for v in moe_dispatch_copies(256, 8, 64, 8)]
    [7.0, 0.88]
    >>> [round(float(v), 2) for v in moe_dispatch_copies(256, 8, 64, 8, dispatch="per_node",
    ...                                                  node_limit=4)]
    [3.46, 6.56]
    """
    if dispatch not in MOE_DISPATCH:
        raise ValueError(f"moe_dispatch={dispatch!r} must be one of {MOE_DISPATCH}")
    E, k, G, g = _check_moe_layout(n_experts, top_k, ep, ranks_per_node, gate, node_limit)
    N = G / g
    if dispatch == "per_expert":
        return scalar_or_array(k * (G - g) / G), scalar_or_array(k * (g - 1) / G)
    d_g, d_n = moe_destinations(E, k, G, g, gate=gate, node_limit=node_limit)
    if dispatch == "per_gpu":
        return scalar_or_array(d_g * (G - g) / G), scalar_or_array(d_g * (g - 1) / G)
    return (scalar_or_array(d_n * (N - 1) / N),
            scalar_or_array(d_g * (g - 1) / G + d_g * (G - g) / G * (g - 1) / g))


@dataclass(frozen=True)
class MoeA2AOptions:
    """How an MoE layer's tokens travel in ``moe_all_to_all_time``: the router and the
    dispatcher, checked when built (each a ValueError naming the scenario's key).

    Fields
    ------
    routing, capacity_factor, imbalance
        The busiest rank's load factor (``moe_routing_factor``: the capacity factor's padding,
        or a dropless router's imbalance). Defaults "dropless", 1.0, 1.0.
    dispatch : {"per_expert", "per_gpu", "per_node"}
        ``MOE_DISPATCH``; ``per_expert`` (k copies of each token) is the default. A
        deduplicating dispatcher (``per_gpu``, ``per_node``; needs ``n_experts``) sends
        ``moe_dispatch_copies`` copies instead of k.
    n_experts, gate, node_limit
        The routed experts, the gate (``MOE_GATES``) and the node limit, for
        ``moe_dispatch_copies`` (used by the deduplicating dispatches; the gate and the node
        limit are checked with every dispatch).
    dispatch_dtype : {"bf16", "fp8"}
        The dispatch's encoding (``MOE_DISPATCH_BYTES``); the combine is BF16 whatever it is.
    """

    routing: str = "dropless"
    capacity_factor: float = 1.0
    imbalance: float = 1.0
    dispatch: str = "per_expert"
    n_experts: int | None = None
    gate: str = "learned"
    node_limit: int | None = None
    dispatch_dtype: str = "bf16"

    @classmethod
    def build(cls, options: MoeA2AOptions | None = None, **keywords) -> MoeA2AOptions:
        """``options`` (default ``MoeA2AOptions()``) with ``keywords`` replacing its fields.

        Raises
        ------
        ValueError
            ``options`` not a MoeA2AOptions, or an unknown name (listing the known ones).
        """
        return options_with(cls, "options", options, keywords, lambda bad, names: (
            f"moe_all_to_all_time: unknown option(s) {bad}; the options are {names} (and "
            "phase, bytes_per_element, efficiency)"))

    def routing_factor(self) -> float:
        """The busiest rank's load ÷ the balanced load (``moe_routing_factor``)."""
        return moe_routing_factor(self.routing, self.capacity_factor, self.imbalance)

    def check(self) -> None:
        """The dispatch, gate, node limit and dispatch encoding among their choices."""
        if self.dispatch not in MOE_DISPATCH:
            raise ValueError(f"moe_dispatch={self.dispatch!r} must be one of {MOE_DISPATCH}")
        if self.gate not in MOE_GATES:
            raise ValueError(f"moe_gate={self.gate!r} must be one of {MOE_GATES}")
        if self.node_limit is not None:
            as_array(self.node_limit, "moe_node_limit", positive=True, integer=True)


def moe_all_to_all_time(tokens, top_k, d_model, ep, cluster: Cluster, stride=1, *,
                        phase="dispatch", bytes_per_element=None,
                        efficiency: Efficiency | None = None,
                        options: MoeA2AOptions | None = None, **keywords):
    """One expert-parallel all-to-all (dispatch or combine) of an MoE layer, seconds.

    Each rank sends the k routed copies of its ``tokens`` tokens, ``bytes × k × tokens × h``,
    spread over the ``ep`` ranks (Lepikhin et al. 2021; Fedus et al. 2022), times the routing
    factor of the busiest rank (``moe_routing_factor``: the capacity factor's padding, or a
    dropless router's imbalance). The all-to-all cannot aggregate a domain's NICs: the
    ``(n − k)/n`` of the buffer leaving the domain goes through the rank's own NIC
    (``cluster_collective_time``).

    A deduplicating dispatcher (``dispatch`` ``"per_gpu"`` or ``"per_node"``, needs
    ``n_experts``) sends ``moe_dispatch_copies`` copies instead of k: the time is
    ``base + (n − 1)·α + max(b·x·h·net / B_out, b·x·h·nvl / B_up)`` (NIC and NVLink transfers
    concurrent, as the uniform all-to-all's), ``net`` and ``nvl`` the network and NVLink copies,
    ``B_out``, ``B_up`` the cluster's achievable per-GPU NIC and NVLink bandwidths
    (``_dedup_a2a_time``).

    Bytes per element ``b`` (``a2a_bytes_per_element``): the combine (``phase="combine"``) is
    BF16, 2 bytes; the dispatch carries ``MOE_DISPATCH_BYTES[dispatch_dtype]``: 2 for
    ``"bf16"``, ``1 + 4/128`` for ``"fp8"`` (E4M3 plus an FP32 scale per 1×128 tile:
    DeepSeek-V3 §3.3.2-3.3.3, DeepEP's "FP8 dispatching and BF16 combining"). The backward
    runs the same pair: the activation gradient before the down-projection travels in the
    dispatch direction in FP8, the backward combine in BF16 (§3.3.3).

    Parameters
    ----------
    tokens : float or array, > 0
        Tokens on the rank per micro-batch (b·s/cp).
    top_k, d_model : int, >= 1
    ep : int or array, >= 1
    stride : int or array
        Rank distance between EP members (tp·cp in Megatron's order).
    phase : {"dispatch", "combine"}
        ``MOE_A2A_PHASES``: which of the pair this all-to-all is.
    bytes_per_element : float, optional
        Overrides the bytes per element (default: from ``phase`` and ``dispatch_dtype``; may not
        be combined with an FP8 dispatch).
    efficiency : Efficiency, optional
    options : MoeA2AOptions, optional
        The router and dispatcher in one object; the ``**keywords`` replace its fields.
    **keywords
        ``MoeA2AOptions`` fields: ``routing``, ``capacity_factor``, ``imbalance``, ``dispatch``,
        ``n_experts``, ``gate``, ``node_limit``, ``dispatch_dtype``.

    Returns
    -------
    float or ndarray, seconds (one all-to-all; a layer runs two forward and two backward).
    A ValueError for bad sizes or routing options.

    Examples
    --------
    >>> from llmcost import Cluster, load_accelerator
    >>> c = Cluster(load_accelerator("H800"), 2048)
    >>> round(moe_all_to_all_time(4096, 8, 7168, 64, c, 1) * 1e3, 2)  # k copies, 8 nodes
    8.72
    >>> round(moe_all_to_all_time(4096, 8, 7168, 64, c, 1, dispatch="per_node", n_experts=256,
    ...                           node_limit=4) * 1e3, 2)  # DeepSeek-V3: <= 4 nodes per token
    4.39
    >>> round(moe_all_to_all_time(4096, 8, 7168, 64, c, 1, dispatch="per_node", n_experts=256,
    ...                           node_limit=4, dispatch_dtype="fp8") * 1e3, 2)  # FP8 dispatch
    2.34
    """
    x = as_array(tokens, "tokens", positive=True)
    k = as_array(top_k, "top_k", positive=True, integer=True)
    h = as_array(d_model, "d_model", positive=True)
    o = MoeA2AOptions.build(options, **keywords)
    factor = o.routing_factor()
    o.check()
    b = a2a_bytes_per_element(phase, o.dispatch_dtype, bytes_per_element, o.n_experts, k, o.gate)
    if o.dispatch == "per_expert":
        return cluster_collective_time("all_to_all", b * x * k * h * factor, ep, cluster, stride,
                                       efficiency)
    return _dedup_a2a_time(b * x * h * factor, k, ep, cluster, stride, efficiency, o)


def a2a_bytes_per_element(phase, dispatch_dtype, bytes_per_element=None, n_experts=None,
                          top_k=1, gate="learned") -> float:
    """Bytes per element of one MoE all-to-all: ``bytes_per_element`` when given (not with an
    FP8 dispatch, which sets its own), else ``MOE_DISPATCH_BYTES[dispatch_dtype]`` for the
    dispatch and 2 (BF16) for the combine (DeepSeek-V3 §3.3.2-3.3.3). Also checks ``phase``,
    ``dispatch_dtype`` and, when given, the ``n_experts`` / ``top_k`` layout.

    Raises
    ------
    ValueError
        An unknown phase or dispatch encoding, top_k above n_experts, a bytes_per_element
        with an FP8 dispatch or not positive.
    """
    if phase not in MOE_A2A_PHASES:
        raise ValueError(f"phase={phase!r} must be one of {MOE_A2A_PHASES}")
    if dispatch_dtype not in MOE_DISPATCH_BYTES:
        raise ValueError(f"moe_dispatch_dtype={dispatch_dtype!r} must be one of "
                         f"{tuple(MOE_DISPATCH_BYTES)}")
    if n_experts is not None:
        _check_moe_layout(n_experts, int(np.asarray(top_k).reshape(-1)[0]), 1, 1, gate, None)
    if bytes_per_element is None:
        return MOE_DISPATCH_BYTES[dispatch_dtype if phase == "dispatch" else "bf16"]
    if phase == "dispatch" and dispatch_dtype == "fp8":
        raise ValueError(f"bytes_per_element={bytes_per_element!r} conflicts with "
                         "dispatch_dtype='fp8' (which sets 1 + 4/128): give one of them")
    return as_scalar(bytes_per_element, "bytes_per_element", positive=True)


def _dedup_a2a_time(nbytes, k, ep, cluster: Cluster, stride, efficiency, o: MoeA2AOptions):
    """``moe_all_to_all_time`` of a deduplicating dispatcher (``o.dispatch`` per GPU or per
    node) sending ``nbytes`` = ``b·x·h·factor`` per token copy: ``base + (n − 1)·α +
    max(nbytes·net / B_out, nbytes·nvl / B_up)``, ``net`` and ``nvl`` the copies of
    ``moe_dispatch_copies`` (``_Figures.a2a``)."""
    if o.n_experts is None:
        raise ValueError(f"moe_dispatch={o.dispatch!r} needs n_experts (the routed experts)")
    n = as_array(ep, "ep", positive=True, integer=True)
    if np.any(n > cluster.n_gpus):
        raise ValueError(f"ep={float(np.max(n)):g} must be <= the cluster's "
                         f"n_gpus={cluster.n_gpus}")
    st = as_array(stride, "stride", positive=True, integer=True)
    if np.size(k) != 1:
        raise ValueError("top_k must be one number with a deduplicating dispatch")
    fig = _Figures(cluster, efficiency)
    fig.within_domain(n, st)
    return scalar_or_array(fig.a2a(nbytes, n, st, o.n_experts, int(np.asarray(k).reshape(-1)[0]),
                                   o.dispatch, o.gate, o.node_limit))
