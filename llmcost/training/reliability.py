"""Checkpoints, failures and goodput: the cost of the run that does not finish.

On thousands of GPUs for weeks, failures are certain; this module turns the insurance (checkpoints)
and the losses (lost work, restarts, planned interruptions) into seconds, GPU-hours and dollars.

Conventions
-----------
* **Checkpoint bytes** are what is *saved*, not the training state in HBM: gradients are never
  saved, so the bf16-Adam recipe is 14 B/param (bf16 weights 2 + fp32 master 4 + fp32 Adam m, v
  4 + 4), not the 16-18 B/param of training state (ZeRO §3.1 for training state). The recipes are in
  ``CHECKPOINT_RECIPES`` with their sources.
* **Failures** are a Poisson process: each GPU fails at a constant rate λ (failures per
  GPU-year), a synchronous job stops when any of its n GPUs does, so the job's MTBF is
  M = 1 / (n·λ) (series system; Kokolis et al. 2024, "Revisiting Reliability in Large-Scale
  Machine Learning Research Clusters", arXiv:2410.21680, use MTTF = 1/(N_nodes · r_f)).
* **δ** is the time training is *blocked* by one checkpoint; **τ** is the compute time between
  checkpoints; **R** is the restart time (failure to training again, reading the checkpoint
  included); **M** is the job's MTBF.
* **Goodput** is the fraction of wall-clock (and so of paid GPU-hours) spent on training steps
  that are kept. This module's exact form is the expected wall time of Daly (2006), "A higher
  order estimate of the optimum checkpoint interval for restart dumps", Future Generation
  Computer Systems 22(3):303-312, for exponential failures (failures may also strike during a
  checkpoint or a restart):  T_w = M·e^{R/M}·(e^{(τ+δ)/M} − 1)·T_s/τ,  goodput = T_s / T_w.
  For τ, δ, R ≪ M its expansion is T_w/T_s ≈ 1 + δ/τ + τ/(2M) + (δ + R)/M, so the waste is
  δ/τ + (τ/2 + R)/M (Young 1974, with Daly's R/M) up to a δ/M term.

All calculation functions broadcast over numpy arrays; bad input raises ``ValueError`` naming
the field and the rule.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from functools import lru_cache

import numpy as np
import pandas as pd

from ..core.catalog import DATA_DIR
from ..core.units import (
    DAYS_PER_YEAR,
    GIB,
    broadcast_together,
    SECONDS_PER_DAY,
    SECONDS_PER_HOUR,
    TIB,
    as_array, as_count, as_scalar,
    as_flag,
    fmt_bandwidth,
    fmt_duration,
    fmt_gpus,
    options_with,
    scalar_or_array,
)
from .compute import model_flops_per_token

SECONDS_PER_YEAR = DAYS_PER_YEAR * SECONDS_PER_DAY
SECONDS_PER_MONTH = SECONDS_PER_YEAR / 12.0


# ------------------------------------------------------------------------------ constants
@dataclass(frozen=True)
class CheckpointRecipe:
    """Bytes per parameter that one full checkpoint saves, by content.

    ``weights`` is the 16-bit copy of the weights (0 if the recipe keeps only the fp32 master);
    ``master`` the fp32 master weights; ``moments`` the optimizer moments (Adam m and v together).
    """

    name: str
    weights: float
    master: float
    moments: float
    source: str

    @property
    def bytes_per_param(self) -> float:
        return self.weights + self.master + self.moments

    @property
    def weights_only_bytes_per_param(self) -> float:
        """What a weights-only (inference / milestone) checkpoint saves: the 16-bit weights, or
        the fp32 master where the recipe keeps no 16-bit copy."""
        return self.weights if self.weights else self.master


#: What a checkpoint saves, per parameter. Gradients are not saved (they are recomputed by the
#: next step), which is why checkpoints are smaller than training state.
CHECKPOINT_RECIPES: dict[str, CheckpointRecipe] = {r.name: r for r in [
    CheckpointRecipe("bf16-adam", 2, 4, 8,
                     "bf16 weights + fp32 master + fp32 Adam m, v = 14 B/param: mixed-precision "
                     "Adam (Micikevicius et al. 2018; ZeRO, Rajbhandari et al. 2020 §3.1, K=12) "
                     "without the gradients"),
    CheckpointRecipe("fp32-master-adam", 0, 4, 8,
                     "fp32 master + fp32 Adam m, v = 12 B/param: the 16-bit weights are re-derived "
                     "from the master on load (ZeRO K=12 model states)"),
    CheckpointRecipe("bf16-adam-bf16-moments", 2, 4, 4,
                     "bf16 weights + fp32 master + bf16 Adam m, v = 10 B/param (DeepSeek-V3 "
                     "technical report, arXiv:2412.19437 §3.3.3: BF16 optimizer moments, FP32 "
                     "master weights; the saved bf16 copy of the weights is this workbook's "
                     "assumption, the report does not say what a checkpoint holds)"),
    CheckpointRecipe("fp32-adam", 4, 0, 8,
                     "fp32 weights (no separate master) + fp32 Adam m, v = 12 B/param: plain fp32 "
                     "training (Kingma & Ba 2015 Adam state = 2 × parameters)"),
]}

#: Data-loader and RNG state saved per rank, bytes. torch's CPU generator state is 5,056 bytes and
#: a CUDA Philox state 16 bytes; a data-loader state is a few offsets per worker plus at most a
#: partly packed sequence (8,192 int64 tokens = 64 KiB). 1 MB is a generous upper bound, chosen
#: so that the notebook can show the term is negligible (it is an assumption, not a measurement).
LOADER_RNG_BYTES_PER_RANK = 1e6

#: Kokolis et al. 2024 (arXiv:2410.21680, HPCA 2025): failure rate r_f per 1000 node-days (8 A100
#: per node) on Meta's RSC-1 (16k A100) and RSC-2 (8k A100) research clusters, and the measured
#: MTTF of 1,024-GPU jobs. [secondary]: the paper's own text was not reachable here (the stored
#: copy of arxiv.org/html/2410.21680v2 returns only its opening), so no section or page is cited.
#: Three secondary sources that quote or translate the paper agree: (1) commentary notes on the
#: paper (glennklockwood.com/garden/papers/revisiting-reliability-in-large-scale-machine-
#: learning-research-clusters, read in a public copy) quote it: "Figure 7 illustrates that the
#: mean-time-to-failure (MTTF) of 1024-GPU jobs is 7.9 hours—roughly 2 orders-of-magnitude lower
#: than 8-GPU jobs (47.7 days)"; (2) a section-by-section Chinese translation of the paper gives
#: r_f = 6.5 (RSC-1) and 2.34 (RSC-2) failures per 1000 node-days, 7.9 h at 1,024 GPUs and the
#: projections 1.8 h at 16,384 GPUs and 0.23 h at 131,072; (3) a per-paper survey of LLM-training
#: reliability papers in a public repository gives the same five. The projections follow from
#: r_f = 6.50 by MTTF = 1/(N_nodes·r_f) (1.80 h and 0.225 h, test vector 8.e), which ties r_f to
#: them.
KOKOLIS_RATES_PER_1000_NODE_DAYS = {"RSC-1": 6.50, "RSC-2": 2.34}

#: Sustained checkpoint-storage bandwidth per GPU of the job, bytes/s, derived here (Meta states
#: only the whole fabric's figure): Llama 3 405B's Tectonic file system sustained 2 TB/s
#: (Llama Team 2024, arXiv:2407.21783 §3.3.1), divided over the 16,384 H100 of the training
#: cluster (an assumption: the paper trains "on up to 16K" GPUs), 2e12 / 16,384 = 122 MB/s per
#: GPU (0.98 GB/s per 8-GPU node). The one published frontier
#: figure found; used to size a job's storage when a scenario does not state it.
STORAGE_BYTES_PER_S_PER_GPU = 2e12 / 16384
#: A storage bill above this share of the ideal compute cost is called out
#: (``storage_share_warning``). A threshold chosen for this workbook, not a measured figure:
#: with storage sized as above, checkpoints are a fraction of a percent of compute.
STORAGE_SHARE_WARNING = 0.10
#: The least goodput a priced run may have (productive ÷ wall time): below it the run takes over
#: a million times its ideal time, as interruptions come faster than a checkpoint and a restart,
#: and it never finishes. A stated threshold: the bill refuses such a run
#: (``ledger._check_goodput``) and notebook 07's panel says so instead of pricing it.
GOODPUT_FLOOR = 1e-6
GOODPUT_FLOOR_WORDS = f"{GOODPUT_FLOOR:.0e}".replace("e-0", "e-")  # "1e-6", as printed
#: Kokolis et al.'s measured MTTF of 1,024-GPU jobs, hours ([secondary], see
#: ``KOKOLIS_RATES_PER_1000_NODE_DAYS``).
KOKOLIS_MEASURED_MTTF_1024_GPUS_H = 7.9
KOKOLIS_GPUS_PER_NODE = 8
#: Bytes in the "GB" of a storage price per GB-month: AWS meters storage in byte-hours and bills
#: a GB-month as 2^30 bytes for a month of hours (AWS S3 FAQ, storage example:
#: "42,259,901,212,262,400 Byte-Hours x (1 GB / 1,073,741,824 bytes) x (1 month / 744 hours) =
#: 52,900 GB-Months"; its
#: S3 Express One Zone example counts 10 TB as 10,995,116,277,760 bytes, 10 x 2^40). FSx for
#: Lustre provisions capacity in GiB and TiB. So a decimal gigabyte is 0.931 of a billed one.
BILLED_GB = GIB


def job_storage_bytes_per_s(n_gpus, bytes_per_s_per_gpu=STORAGE_BYTES_PER_S_PER_GPU):
    """Checkpoint-storage bandwidth sized from the job: n_gpus × bandwidth per GPU (bytes/s).

    The default per-GPU figure is Llama 3's (``STORAGE_BYTES_PER_S_PER_GPU``: Tectonic, 2 TB/s
    for 16,384 GPUs, arXiv:2407.21783 §3.3.1), so a 2,048-GPU job gets 250 GB/s and a 32-GPU
    job 3.9 GB/s.

    Raises
    ------
    ValueError
        ``n_gpus`` not a whole number >= 1, or a non-positive bandwidth.
    """
    n = as_array(n_gpus, "n_gpus", positive=True, integer=True)
    b = as_array(bytes_per_s_per_gpu, "bytes_per_s_per_gpu", positive=True)
    return scalar_or_array(n * b)


def storage_share_warning(storage_usd, compute_usd, share=STORAGE_SHARE_WARNING):
    """A sentence when checkpoint storage costs more than ``share`` of the compute bill, else None.

    Raises
    ------
    ValueError
        Negative costs or a share outside (0, 1].
    """
    st = as_scalar(storage_usd, "storage_usd", nonnegative=True)
    co = as_scalar(compute_usd, "compute_usd", positive=True)
    sh = as_scalar(share, "share", positive=True, upper=1.0)
    if st <= sh * co:
        return None
    return (f"checkpoint storage costs {st / co:.0%} of the ideal compute bill (above the "
            f"{sh:.0%} this workbook calls out): the hot tier is provisioned for its bandwidth; "
            "check ckpt_storage_bytes_per_s, ckpt_hot_tier and ckpt_keep_last.")


# ------------------------------------------------------------------------------ validation
#: The one rule of failures, stated once: a failure rate is >= 0 and finite, 0 for a job that
#: never fails; an MTBF is its inverse, > 0 seconds, +inf for a job that never fails.
FAILURE_RULE = ("a failure rate is >= 0 and finite (0: a job that never fails); an MTBF is "
                "> 0 seconds (inf: a job that never fails)")


def _mtbf(value, name: str = "mtbf_s") -> np.ndarray:
    """MTBF in seconds: > 0; +inf allowed (a job that never fails; ``FAILURE_RULE``)."""
    if isinstance(value, bool):
        raise ValueError(f"{name}={value!r} must be a number, not a bool")
    if isinstance(value, (str, bytes)) or value is None:
        raise ValueError(f"{name}={value!r} must be a number (seconds)")
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name}={value!r} must be a number") from None
    if np.any(np.isnan(arr)):
        raise ValueError(f"{name}={value!r} must not be NaN")
    if np.any(arr <= 0):
        bad = value if arr.ndim == 0 else float(arr[arr <= 0].flat[0])
        raise ValueError(f"{name}={bad!r} must be > 0: {FAILURE_RULE}")
    return arr


def _recipe(recipe) -> CheckpointRecipe:
    if isinstance(recipe, CheckpointRecipe):
        return recipe
    if not isinstance(recipe, str) or recipe not in CHECKPOINT_RECIPES:
        raise ValueError(f"recipe={recipe!r} must be one of {', '.join(CHECKPOINT_RECIPES)}")
    return CHECKPOINT_RECIPES[recipe]


# ------------------------------------------------------------------------------ checkpoint size
@dataclass(frozen=True)
class CheckpointSize:
    """Bytes of one checkpoint by content; the parts add up to ``total_bytes``.

    Fields are floats, or arrays broadcast from the inputs. ``per_rank_bytes`` is what each of
    the ``n_ranks`` writers saves when the state is sharded evenly across them.
    """

    weights_bytes: object
    master_bytes: object
    optimizer_bytes: object
    loader_rng_bytes: object
    n_ranks: object
    per_rank_bytes: object

    @property
    def total_bytes(self):
        return scalar_or_array(np.asarray(self.weights_bytes) + np.asarray(self.master_bytes)
                               + np.asarray(self.optimizer_bytes)
                               + np.asarray(self.loader_rng_bytes))

    def parts(self) -> dict:
        """The parts (bytes) as a dict: weights, fp32 master, optimizer moments, loader/RNG."""
        return {"weights (16-bit)": self.weights_bytes, "fp32 master weights": self.master_bytes,
                "optimizer moments": self.optimizer_bytes,
                "data-loader + RNG state": self.loader_rng_bytes}


def checkpoint_size(n_params, recipe="bf16-adam", content: str = "full", n_ranks=1,
                    loader_rng_bytes_per_rank=LOADER_RNG_BYTES_PER_RANK) -> CheckpointSize:
    """Size of one checkpoint by content, and per writer when sharded.

    Parameters
    ----------
    n_params : float or array
        Parameters saved (all of them, for MoE too: every expert is saved).
    recipe : str or CheckpointRecipe
        A name in ``CHECKPOINT_RECIPES`` (``"bf16-adam"``: 14 B/param, ...).
    content : {"full", "weights"}
        ``"full"``: everything a restart needs (weights, master, optimizer moments, data-loader
        and RNG state). ``"weights"``: the weights only (a milestone or export for evaluation;
        training cannot resume from it without resetting the optimizer).
    n_ranks : int or array
        Ranks that write distinct shards (with ZeRO/FSDP-sharded optimizer state across every
        GPU, all GPUs; with replicated data-parallel state, one data-parallel replica's GPUs).
    loader_rng_bytes_per_rank : float or array
        Data-loader + RNG state per rank (default ``LOADER_RNG_BYTES_PER_RANK``, an upper bound).

    Returns
    -------
    CheckpointSize (parts add up to ``total_bytes``; ``per_rank_bytes`` = total / n_ranks).

    Raises
    ------
    ValueError
        Non-positive ``n_params`` or ``n_ranks``, an unknown recipe or content, or a size that
        overflows a float (``n_params`` × bytes per parameter above 1.8e308).

    Examples
    --------
    >>> round(checkpoint_size(405e9).total_bytes / 1e12, 2)    # 5.67 TB
    5.67
    """
    r = _recipe(recipe)
    if content not in ("full", "weights"):
        raise ValueError(f"content={content!r} must be 'full' or 'weights'")
    n = as_array(n_params, "n_params", positive=True)
    k = as_array(n_ranks, "n_ranks", positive=True, integer=True)
    extra = as_array(loader_rng_bytes_per_rank, "loader_rng_bytes_per_rank", nonnegative=True)
    zero = np.zeros(np.broadcast(n, k, extra).shape)
    per_param = r.bytes_per_param if content == "full" else r.weights_only_bytes_per_param
    with np.errstate(over="ignore"):
        if not np.all(np.isfinite(n * per_param)):
            raise ValueError(f"n_params={float(np.max(n))!r}: its checkpoint of {per_param:g} "
                             "B/param overflows a float; must be < "
                             f"{np.finfo(float).max / per_param:.3g}")
    if content == "full":
        w, m, o, lr = n * r.weights + zero, n * r.master + zero, n * r.moments + zero, \
            k * extra + zero
    else:
        w = n * r.weights_only_bytes_per_param + zero
        m = o = lr = zero
    total = w + m + o + lr
    return CheckpointSize(*(scalar_or_array(x) for x in (w, m, o, lr, k + zero, total / k)))


# ------------------------------------------------------------------------------ write / restore
def checkpoint_write_time_s(total_bytes, n_nodes, storage_bytes_per_s, node_bytes_per_s=None,
                            imbalance=1.0):
    """Time to write one checkpoint to shared storage, from the two bandwidth limits.

    t = max(total / B_storage, imbalance × (total / n_nodes) / B_node): the storage system's
    aggregate write bandwidth caps the whole job, each node's front-end link caps its own share
    (the busiest node's share is ``imbalance`` × the mean). A bandwidth floor: file creation,
    metadata and serialisation add to it.

    Parameters
    ----------
    total_bytes : float or array
        Bytes written (``CheckpointSize.total_bytes``).
    n_nodes : int or array
        Nodes writing in parallel.
    storage_bytes_per_s : float or array
        Aggregate sustained write bandwidth of the storage system, bytes/s (Llama 3: Tectonic,
        2 TB/s sustained, 7 TB/s peak; arXiv:2407.21783 §3.3.1).
    node_bytes_per_s : float or array, optional
        Per-node bandwidth to storage, bytes/s (None: no per-node limit).
    imbalance : float or array
        Busiest node's bytes ÷ the mean (>= 1; Llama 3 reports per-GPU shards from 1 MB to 4 GB).

    Returns
    -------
    float or ndarray: seconds.

    Raises
    ------
    ValueError
        Negative bytes; zero or negative bandwidth (``storage_bytes_per_s=0 must be > 0``) or
        node count; imbalance < 1.
    """
    b = as_array(total_bytes, "total_bytes", nonnegative=True)
    n = as_array(n_nodes, "n_nodes", positive=True, integer=True)
    s = as_array(storage_bytes_per_s, "storage_bytes_per_s", positive=True)
    imb = as_array(imbalance, "imbalance", positive=True)
    if np.any(imb < 1):
        raise ValueError(f"imbalance={imbalance!r} must be >= 1 (busiest node ÷ mean)")
    t = b / s
    if node_bytes_per_s is not None:
        nb = as_array(node_bytes_per_s, "node_bytes_per_s", positive=True)
        t = np.maximum(t, imb * b / n / nb)
    return scalar_or_array(t)


def snapshot_time_s(per_rank_bytes, d2h_bytes_per_s):
    """Device-to-host copy of one rank's shard: what an asynchronous checkpoint blocks on.

    Asynchronous checkpointing (PyTorch DCP ``async_save``; CheckFreq, Mohan et al. FAST'21;
    ByteCheckpoint, arXiv:2407.20143) copies the shard to pinned host memory, then writes it to
    storage in the background while training continues.

    Parameters
    ----------
    per_rank_bytes : float or array
        Bytes per GPU (``CheckpointSize.per_rank_bytes``).
    d2h_bytes_per_s : float or array
        Device-to-host bandwidth per GPU, bytes/s (PCIe Gen5 x16: 64 GB/s per direction nominal).

    Returns
    -------
    float or ndarray: seconds.
    """
    b = as_array(per_rank_bytes, "per_rank_bytes", nonnegative=True)
    d = as_array(d2h_bytes_per_s, "d2h_bytes_per_s", positive=True)
    return scalar_or_array(b / d)


def checkpoint_stall_s(write_s, snapshot_s, async_: bool = False, interval_s=None):
    """Seconds one checkpoint blocks training.

    Synchronous: snapshot to host, then write, training waits for both (δ = snapshot + write).
    Asynchronous: training waits for the snapshot only; if the next checkpoint comes before the
    background write ends (τ < write), it also waits for the rest of that write:
    δ = snapshot + max(0, write − τ).

    Parameters
    ----------
    write_s, snapshot_s : float or array
        ``checkpoint_write_time_s`` and ``snapshot_time_s``.
    async_ : bool
    interval_s : float or array, optional
        Compute time between checkpoints τ (only used for asynchronous checkpoints).

    Returns
    -------
    float or ndarray: δ, seconds.
    """
    w = as_array(write_s, "write_s", nonnegative=True)
    s = as_array(snapshot_s, "snapshot_s", nonnegative=True)
    if not async_:
        return scalar_or_array(s + w)
    if interval_s is None:
        return scalar_or_array(s + 0 * w)
    t = as_array(interval_s, "interval_s", positive=True)
    return scalar_or_array(s + np.maximum(0.0, w - t))


@dataclass(frozen=True)
class RestartBreakdown:
    """Seconds from a failure to training again, by phase; the parts add up to ``total_s``."""

    overhead_s: object
    read_s: object
    reshard_s: object

    @property
    def total_s(self):
        return scalar_or_array(np.asarray(self.overhead_s) + np.asarray(self.read_s)
                               + np.asarray(self.reshard_s))

    def parts(self) -> dict:
        return {"detect, replace node, relaunch, NCCL init, data-loader restart": self.overhead_s,
                "read the checkpoint": self.read_s, "re-shard to a new layout": self.reshard_s}


def restart_time_s(total_bytes, n_nodes, storage_read_bytes_per_s, overhead_s,
                   node_bytes_per_s=None, reshard_fraction=0.0) -> RestartBreakdown:
    """Restore time: the fixed restart overhead, reading the checkpoint and re-sharding it.

    read = max(total / B_storage, (total / n_nodes) / B_node) (as ``checkpoint_write_time_s``);
    re-sharding, when the restarted job has a different parallel layout (fewer nodes after an
    eviction, another DP size), moves ``reshard_fraction`` of the state a second time over the
    same links (a first-order model: PyTorch DCP and ByteCheckpoint re-shard at load time by
    reading overlapping byte ranges).

    Parameters
    ----------
    total_bytes, n_nodes, node_bytes_per_s
        As ``checkpoint_write_time_s``.
    storage_read_bytes_per_s : float or array
        Aggregate read bandwidth of the storage system, bytes/s.
    overhead_s : float or array
        Failure detection, node replacement, relaunch, communicator (NCCL) initialisation and
        data-loader restart, seconds (Kokolis et al. 2024 assume 5 min of restart overhead;
        MegaScale, arXiv:2402.15627 §6.3, reports diagnosis within 10 min and catching up within
        15 min).
    reshard_fraction : float or array in [0, 1]

    Returns
    -------
    RestartBreakdown.
    """
    o = as_array(overhead_s, "overhead_s", nonnegative=True)
    f = as_array(reshard_fraction, "reshard_fraction", nonnegative=True, upper=1.0)
    read = np.asarray(checkpoint_write_time_s(total_bytes, n_nodes, storage_read_bytes_per_s,
                                              node_bytes_per_s))
    shape = np.broadcast(o, f, read).shape
    z = np.zeros(shape)
    return RestartBreakdown(scalar_or_array(o + z), scalar_or_array(read + z),
                            scalar_or_array(f * read + z))


# ------------------------------------------------------------------------------ failure model
def failure_rate_per_gpu_year(n_failures, days, n_gpus):
    """Per-GPU failure rate (failures per GPU-year) from an observed count.

    λ = failures / (GPUs × years). Llama 3 405B: 419 unexpected interruptions in 54 days on
    16,384 H100 -> 0.173 per GPU-year (arXiv:2407.21783 §3.3.4).

    Raises
    ------
    ValueError
        Negative count, non-positive days or GPUs.
    """
    k = as_array(n_failures, "n_failures", nonnegative=True)
    d = as_array(days, "days", positive=True)
    n = as_array(n_gpus, "n_gpus", positive=True)
    return scalar_or_array(k / (n * d / DAYS_PER_YEAR))


def rate_per_node_days_to_per_gpu_year(rate_per_1000_node_days,
                                       gpus_per_node=KOKOLIS_GPUS_PER_NODE):
    """Convert Kokolis et al.'s r_f (failures per 1000 node-days) to failures per GPU-year,
    spreading each node's rate over its GPUs: λ = r_f / 1000 × 365.25 / gpus_per_node."""
    r = as_array(rate_per_1000_node_days, "rate_per_1000_node_days", nonnegative=True)
    g = as_array(gpus_per_node, "gpus_per_node", positive=True, integer=True)
    return scalar_or_array(r / 1000.0 * DAYS_PER_YEAR / g)


#: Llama 3 405B's pre-training snapshot (arXiv:2407.21783 §3.3.4): a "54-day snapshot" of its
#: "16K GPU training"; 16,384 H100 throughout the 54 days is this workbook's assumption (the paper
#: trains "on up to 16K" GPUs and lists an 8,192-GPU stage in Table 4: fewer GPUs would make
#: the rate higher). Its 419 unexpected interruptions are the counts of
#: data/llama3_interruptions.csv (Table 5).
LLAMA3_SNAPSHOT_DAYS, LLAMA3_SNAPSHOT_GPUS = 54, 16384


def published_failure_rates() -> pd.DataFrame:
    """The per-GPU failure rates (failures per GPU-year) this module's sources publish or
    imply, one row each with ``rate`` and ``source``, lowest first:

    * Llama 3 405B: 419 unexpected interruptions (the counts of data/llama3_interruptions.csv,
      Table 5) in 54 days on 16,384 H100, λ = 419 ÷ (16,384 × 54 ÷ 365.25) = 0.173
      (``failure_rate_per_gpu_year``; arXiv:2407.21783 §3.3.4);
    * Kokolis et al. 2024's RSC-1 and RSC-2 A100 clusters, r_f = 6.50 and 2.34 failures per
      1,000 node-days of 8 GPUs, λ = r_f ÷ 1000 × 365.25 ÷ 8 = 0.297 and 0.107
      (``rate_per_node_days_to_per_gpu_year``; [secondary], ``KOKOLIS_RATES_PER_1000_NODE_DAYS``);
    * Kokolis et al.'s measured MTTF of 1,024-GPU jobs, 7.9 h, read as a series system
      (M = 1 ÷ (n·λ), ``cluster_mtbf_s``): λ = 8,766 h ÷ (1,024 × 7.9 h) = 1.08 (every cause
      that stops a job, not hardware alone; [secondary])."""
    k = int(interruption_table()["count"].sum())
    rows = [(float(failure_rate_per_gpu_year(k, LLAMA3_SNAPSHOT_DAYS, LLAMA3_SNAPSHOT_GPUS)),
             f"Llama 3 405B, {k} unexpected interruptions in {LLAMA3_SNAPSHOT_DAYS} days on "
             f"{LLAMA3_SNAPSHOT_GPUS:,} H100 (arXiv:2407.21783 §3.3.4)")]
    rows += [(float(rate_per_node_days_to_per_gpu_year(r)),
              f"Kokolis et al. 2024, Meta's {name} A100 cluster, {r} failures per 1,000 "
              "node-days (arXiv:2410.21680)")
             for name, r in KOKOLIS_RATES_PER_1000_NODE_DAYS.items()]
    mttf = KOKOLIS_MEASURED_MTTF_1024_GPUS_H
    rows.append((SECONDS_PER_YEAR / (1024 * mttf * SECONDS_PER_HOUR),
                 f"Kokolis et al. 2024, the measured MTTF of 1,024-GPU jobs, {mttf} h "
                 "(arXiv:2410.21680)"))
    return pd.DataFrame(rows, columns=["rate", "source"]).sort_values("rate", ignore_index=True)


def nodes_for(n_gpus, gpus_per_node):
    """Hosts a job of ``n_gpus`` occupies: ⌈n_gpus / gpus_per_node⌉, at least one. A job
    smaller than a host (1, 2 or 4 GPUs of an 8-GPU node) still runs on one node, which writes
    and reads its checkpoint (``checkpoint_write_time_s``'s node count); floor division would
    give 0 nodes below a full host.

    Raises
    ------
    ValueError
        Non-positive or fractional ``n_gpus`` or ``gpus_per_node``.
    """
    n = as_array(n_gpus, "n_gpus", positive=True, integer=True)
    g = as_array(gpus_per_node, "gpus_per_node", positive=True, integer=True)
    nodes = np.maximum(1, -(-np.asarray(n, dtype=np.int64) // np.asarray(g, dtype=np.int64)))
    return int(nodes) if nodes.ndim == 0 else nodes


def cluster_mtbf_s(n_gpus, fail_rate_per_gpu_year):
    """Mean time between failures of a synchronous job on ``n_gpus``: M = 1 / (n·λ).

    A series system with exponential failures (Kokolis et al. 2024: MTTF = 1/(N_nodes·r_f)).

    Parameters
    ----------
    n_gpus : int or array
    fail_rate_per_gpu_year : float or array
        Failures per GPU-year (>= 0; 0 gives an infinite MTBF).

    Returns
    -------
    float or ndarray: seconds (``inf`` where the rate is 0).

    Raises
    ------
    ValueError
        ``fail_rate_per_gpu_year`` negative, or so large that n·λ overflows (an MTBF of 0 s:
        ``FAILURE_RULE``), or ``n_gpus <= 0``.
    """
    n = as_array(n_gpus, "n_gpus", positive=True, integer=True)
    lam = as_array(fail_rate_per_gpu_year, "fail_rate_per_gpu_year", nonnegative=True)
    broadcast_together(n_gpus=n, fail_rate_per_gpu_year=lam)
    with np.errstate(over="ignore"):
        rate_per_s = n * lam / SECONDS_PER_YEAR
    if np.any(np.isinf(rate_per_s)):  # 1/inf = 0: an MTBF of 0 s
        worst = float(np.max(np.asarray(lam, dtype=float)))
        raise ValueError(f"fail_rate_per_gpu_year={worst!r} on {fmt_gpus(int(np.max(n)))} gives "
                         "a job failure rate n·λ that overflows (an MTBF of 0 s): "
                         f"{FAILURE_RULE}")
    with np.errstate(divide="ignore"):
        return scalar_or_array(np.where(rate_per_s > 0, 1.0 / np.where(rate_per_s > 0,
                                                                        rate_per_s, 1.0), np.inf))


def interruption_mtbf_s(mtbf_s, planned_per_day=0.0):
    """Mean time between interruptions of any kind of a job that cannot resume: its failures
    (MTBF ``mtbf_s``) and its planned stops (``planned_per_day`` a wall-clock day, whatever
    the job's size, as ``goodput_breakdown``):

        M_all = 1 / (1/M + p/86,400)

    Two independent Poisson processes merge into one whose rate is the sum of theirs (the
    superposition of Poisson processes: H. C. Tijms, *A First Course in Stochastic Models*, 2003,
    §1.1.2 "Merging and Splitting of Poisson Processes").
    A checkpointed job loses only δ + R to a planned stop (``goodput_breakdown``); a job that
    cannot resume loses all its work to it, as to a failure, so its expected wall time
    (``expected_wall_time_s`` with one segment) takes this M_all. Llama 3 (Dubey et al. 2024,
    arXiv:2407.21783, §3.3.4) counts the two apart: 466 interruptions in 54 days, 47 planned
    ("automated maintenance operations such as firmware upgrades or operator-initiated
    operations like configuration or dataset updates") and 419
    unexpected (its Table 5, ``interruption_table``); the scenario default
    ``fail_planned_per_day`` 0.87 is 47/54. Assumption: planned stops arrive as a Poisson
    process at that average rate (Llama 3 gives only their count); a job short enough to fit
    between scheduled maintenance windows would miss them, which this does not credit.

    Returns
    -------
    float or ndarray: seconds (``inf`` with no failures and no planned stops).

    Raises
    ------
    ValueError
        ``mtbf_s`` not > 0 (``FAILURE_RULE``), or ``planned_per_day`` negative or not finite.
    """
    u = _u(mtbf_s)
    p = as_array(planned_per_day, "planned_per_day", nonnegative=True)
    rate = u + p / SECONDS_PER_DAY
    with np.errstate(divide="ignore", over="ignore"):  # a subnormal rate: M = inf, its limit
        return scalar_or_array(np.where(rate > 0, 1.0 / np.where(rate > 0, rate, 1.0), np.inf))


def probability_failure_free(duration_s, mtbf_s):
    """Probability that a stretch of ``duration_s`` sees no failure: exp(−t / M) (Poisson)."""
    t = as_array(duration_s, "duration_s", nonnegative=True)
    m = _mtbf(mtbf_s)
    return scalar_or_array(np.exp(-t / m))


def interruption_table(by: str | None = None):
    """Llama 3 405B's unexpected interruptions by root cause (arXiv:2407.21783, Table 5).

    Parameters
    ----------
    by : {None, "group", "meta_category"}
        None: one row per component; otherwise summed by this workbook's groups (hardware,
        network, software, maintenance, unknown) or by Meta's categories.

    Returns
    -------
    DataFrame with ``count``, ``share`` (from the counts, which sum to 419) and, per component,
    Meta's ``printed_percent`` (which does not match the counts for "Faulty GPU": 148/419 = 35.3%
    vs 30.1% printed; see ``data/llama3_interruptions.csv``). Data-pipeline and numerical
    (NaN, loss-spike) interruptions are not in Table 5.
    """

    df = pd.read_csv(DATA_DIR / "llama3_interruptions.csv")
    if by is None:
        out = df[["component", "meta_category", "group", "count", "printed_percent"]].copy()
    elif by in ("group", "meta_category"):
        out = df.groupby(by, as_index=False)["count"].sum().sort_values("count",
                                                                        ascending=False)
    else:
        raise ValueError(f"by={by!r} must be None, 'group' or 'meta_category'")
    out["share"] = out["count"] / df["count"].sum()
    return out.reset_index(drop=True)


# ------------------------------------------------------------------------------ intervals
def young_interval(checkpoint_s, mtbf_s):
    """Young's optimum checkpoint interval τ = √(2·δ·M) (Young 1974, CACM 17(9):530-531).

    It minimises the first-order waste δ/τ + τ/(2M) exactly (``waste_fraction_first_order``).

    Parameters
    ----------
    checkpoint_s : float or array
        δ, seconds training is blocked per checkpoint (> 0).
    mtbf_s : float or array
        M, the job's MTBF in seconds (> 0).

    Returns
    -------
    float or ndarray: τ, seconds of compute between checkpoints.

    Examples
    --------
    >>> round(young_interval(60, 10_800), 1)    # δ = 60 s, M = 3 h
    1138.4
    """
    d = as_array(checkpoint_s, "checkpoint_s", positive=True)
    m = _mtbf(mtbf_s)
    broadcast_together(checkpoint_s=d, mtbf_s=m)
    return scalar_or_array(np.sqrt(2.0 * d * m))


def daly_interval(checkpoint_s, mtbf_s):
    """Daly's higher-order optimum interval (Daly 2006, FGCS 22(3):303-312):

    τ = √(2δM)·[1 + (1/3)·√(δ/(2M)) + (1/9)·(δ/(2M))] − δ   for δ < 2M;   τ = M otherwise.

    The published estimate jumps at δ = 2M (from 8M/9 to M); ``optimal_interval`` is the exact
    optimum it approximates.

    Examples
    --------
    >>> round(daly_interval(60, 10_800), 1)    # δ = 60 s, M = 3 h
    1098.8
    """
    d = as_array(checkpoint_s, "checkpoint_s", positive=True)
    m = _mtbf(mtbf_s)
    broadcast_together(checkpoint_s=d, mtbf_s=m)
    x = d / (2.0 * m)
    with np.errstate(invalid="ignore", over="ignore"):
        tau = np.sqrt(2.0 * d * m) * (1.0 + np.sqrt(x) / 3.0 + x / 9.0) - d
    return scalar_or_array(np.where(d < 2.0 * m, tau, m))


#: δ/M below which ``optimal_interval`` takes Daly's series instead of Newton's method.
SMALL_RATIO = 1e-9


def optimal_interval(checkpoint_s, mtbf_s):
    """The exact optimum interval of Daly's complete model for exponential failures.

    Minimising T_w(τ) ∝ (e^{(τ+δ)/M} − 1)/τ gives e^{(τ+δ)/M}·(1 − τ/M) = 1, whose root is
    τ = M·(1 + W₀(−e^{−(1+δ/M)})) with W₀ the principal Lambert W branch (Daly 2006 names the
    Lambert function; his higher-order estimate is its perturbation series). Solved here as
    z − (1 − e^{−z}) = δ/M, τ = M·(1 − e^{−z}), by Newton's method from the right (the function
    is convex and increasing, so the iteration is monotone). The restart time R does not move
    the optimum (it multiplies T_w by e^{R/M}).

    Parameters
    ----------
    checkpoint_s, mtbf_s : float or array
        δ and M in seconds (M may be +inf: the optimum is then +inf).

    Returns
    -------
    float or ndarray: τ in seconds, in (0, M] (→ M when δ ≫ M).

    Where δ/M < ``SMALL_RATIO`` (1e-9) Newton's residual z − (1 − e^{−z}) − δ/M cancels to
    rounding (z ≈ √(2δ/M), its terms are z²/2 apart), so τ is Daly's higher-order estimate
    √(2δM)·(1 + √x/3 + x/9) − δ, x = δ/(2M), whose next term is O(x^{3/2}) < 1e-13 there
    (a denormal δ of 5e-324 s against M = 10 h once gave NaN, and δ/M = 3e-305 a τ 10^135
    times too long).
    """
    d = as_array(checkpoint_s, "checkpoint_s", positive=True)
    m = _mtbf(mtbf_s)
    broadcast_together(checkpoint_s=d, mtbf_s=m)
    d, m = np.broadcast_arrays(d, m)
    finite = np.isfinite(m)
    ratio = np.where(finite, d / np.where(finite, m, 1.0), 1.0)
    small = ratio < SMALL_RATIO
    x = ratio / 2.0
    series = np.sqrt(2.0 * d) * np.sqrt(np.where(finite, m, 1.0)) * (
        1.0 + np.sqrt(x) / 3.0 + x / 9.0) - d
    r = np.where(small, 1.0, ratio)  # Newton on the others
    a = np.sqrt(2.0 * r) + r
    z = np.where(a + np.expm1(-a) - r >= 0, a, r + 1.0)
    z, r, todo = z.ravel().copy(), r.ravel(), np.arange(z.size)  # iterate the unconverged only
    for _ in range(100):
        zt, rt = z[todo], r[todo]
        step = (zt + np.expm1(-zt) - rt) / (-np.expm1(-zt))
        z[todo] = zt - step
        # converged: the step is below 1e-13 of z (h = z − (1 − e^{−z}) − δ/M is computed with a
        # rounding error near 1e-14 of z, below which Newton's steps are noise)
        todo = todo[np.abs(step) > 1e-13 * np.abs(z[todo])]
        if not todo.size:
            break
    z = z.reshape(m.shape)
    tau = np.where(finite, np.where(small, series, m * -np.expm1(-z)), np.inf)
    return scalar_or_array(tau)


# ------------------------------------------------------------------------------ waste / goodput
def waste_fraction_first_order(interval_s, checkpoint_s, mtbf_s, restart_s=0.0):
    """First-order waste W = δ/τ + (τ/2 + R)/M (Young 1974, with the restart time R/M per unit time added as Daly 2006 does).

    A fraction of useful time; valid for τ, δ, R ≪ M (it can exceed 1 outside that range, where
    ``waste_fraction`` should be used). Minimised exactly by ``young_interval``.

    Examples
    --------
    >>> round(waste_fraction_first_order(young_interval(60, 10_800), 60, 10_800, 600), 3)
    0.161
    """
    t = as_array(interval_s, "interval_s", positive=True)
    d = as_array(checkpoint_s, "checkpoint_s", nonnegative=True)
    m = _mtbf(mtbf_s)
    r = as_array(restart_s, "restart_s", nonnegative=True)
    return scalar_or_array(d / t + (t / 2.0 + r) / m)


def _u(mtbf_s):
    """1/M (0 for M = inf), at most the largest float: an MTBF below 1/1.8e308 s (a denormal,
    5e-324) would overflow 1/M to inf and turn the goodput into inf/inf = NaN; its limit, 0, is
    what the clamp gives."""
    m = _mtbf(mtbf_s)
    with np.errstate(divide="ignore", over="ignore"):
        u = np.where(np.isfinite(m), 1.0 / np.where(np.isfinite(m), m, 1.0), 0.0)
    return np.minimum(u, np.finfo(float).max)


def _expm1_over_u(c, u):
    """(e^{c·u} − 1)/u, with the u -> 0 limit c."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.where(u > 0, np.expm1(c * u) / np.where(u > 0, u, 1.0), c)


def goodput(interval_s, checkpoint_s, mtbf_s, restart_s=0.0):
    """Fraction of wall-clock time that produces kept training progress (Daly's complete model).

    goodput = τ / (M·e^{R/M}·(e^{(τ+δ)/M} − 1)) (Daly 2006; exponential failures, failures
    possible during checkpoints and restarts). With no failures (M = inf) it is τ/(τ+δ).

    Parameters
    ----------
    interval_s : float or array
        τ, compute seconds between checkpoints (> 0).
    checkpoint_s : float or array
        δ, seconds blocked per checkpoint (>= 0).
    mtbf_s : float or array
        M, the job's MTBF in seconds (> 0, may be inf).
    restart_s : float or array
        R, seconds from a failure to training again (>= 0).

    Returns
    -------
    float or ndarray in [0, 1] (0.0 where e^{(τ+δ)/M} overflows: failures far faster than a
    checkpoint interval).

    Raises
    ------
    ValueError
        ``interval_s <= 0``, negative times, non-positive MTBF.
    """
    t = as_array(interval_s, "interval_s", positive=True)
    d = as_array(checkpoint_s, "checkpoint_s", nonnegative=True)
    r = as_array(restart_s, "restart_s", nonnegative=True)
    u = _u(mtbf_s)
    broadcast_together(interval_s=t, checkpoint_s=d, restart_s=r, mtbf_s=u)
    with np.errstate(over="ignore"):
        return scalar_or_array(t / (np.exp(r * u) * _expm1_over_u(t + d, u)))


def waste_fraction(interval_s, checkpoint_s, mtbf_s, restart_s=0.0):
    """1 − ``goodput``: the fraction of wall-clock time lost to checkpoints, lost work and
    restarts (Daly's complete model). Minimised exactly by ``optimal_interval``."""
    return scalar_or_array(1.0 - np.asarray(goodput(interval_s, checkpoint_s, mtbf_s,
                                                    restart_s)))


@dataclass(frozen=True)
class GoodputBreakdown:
    """Where wall-clock time goes, as fractions of it; the parts add up to 1.

    ``productive`` is goodput; ``checkpoint`` the blocking checkpoint time of kept segments;
    ``lost_work`` the computation (and interrupted checkpoints) redone after failures;
    ``restart`` time restarting after failures; ``planned`` planned interruptions.
    """

    productive: object
    checkpoint: object
    lost_work: object
    restart: object
    planned: object

    @property
    def total(self):
        return scalar_or_array(sum(np.asarray(getattr(self, f.name)) for f in fields(self)))

    def parts(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


class PlannedStopsTakeAllTime(ValueError):
    """Planned interruptions whose checkpoint and restart, δ + R each, at p per day would take
    all of the wall-clock time (p·(δ + R) ≥ 86,400 s a day): a run that never finishes. A
    what-if of a slower storage may reach it where the scenario does not
    (``scenario_checkpoint_cases`` keeps such a case with its reason, ``words``)."""

    def __init__(self, message: str, per_day: float = math.nan, seconds: float = math.nan):
        super().__init__(message)
        self.per_day, self.seconds = per_day, seconds

    def words(self) -> str:
        """The reason in a reader's words: "0.87 planned stops a day, each a checkpoint and a
        restart of 1.94e+05 s, would take 1.95 days of every day"."""
        days = self.per_day * self.seconds / SECONDS_PER_DAY
        return (f"{self.per_day:g} planned stops a day, each a checkpoint and a restart of "
                f"{self.seconds:,.3g} s, would take {days:,.2f} days of every day")


def _planned_fraction(p, d, r):
    """The share of wall time p planned stops a day take, each a checkpoint δ and a restart R
    (seconds): p·(δ + R) ÷ 86,400; 1 or more never finishes."""
    return p / SECONDS_PER_DAY * (d + r)


def _planned_share(p, d, r, planned_per_day):
    """The share of wall time planned interruptions take, p·(δ + R) per second (p per day, R
    the restart a planned stop takes), or ``PlannedStopsTakeAllTime`` (a ValueError) when they
    would take all of it."""
    planned = _planned_fraction(p, d, r)
    if np.any(planned >= 1):
        worst = float(np.max(d + r))
        raise PlannedStopsTakeAllTime(
            f"planned_per_day={planned_per_day!r}: planned interruptions of δ + R = "
            f"{worst:,.4g} s each would take all of the wall-clock time (the stops must take "
            "under 86,400 s a day)", float(np.max(p)), worst)
    return planned


def goodput_breakdown(interval_s, checkpoint_s, mtbf_s, restart_s=0.0,
                      planned_per_day=0.0, planned_restart_s=None) -> GoodputBreakdown:
    """Split wall-clock time into productive, checkpoint, lost work, restart and planned parts.

    From Daly's complete model (see ``goodput``), per unit of wall time, with g the goodput of
    the unplanned process and u = 1/M: checkpoint = g·δ/τ; restart = 1 − e^{−R·u} (expected
    failures per wall second u × expected restart time per failure M(1 − e^{−R/M}), a restart can
    itself be cut short by a failure); lost work = e^{−R·u} − g·(1 + δ/τ). Planned interruptions
    (firmware upgrades, configuration changes: Llama 3 had 47 in 54 days) happen at
    ``planned_per_day`` per wall-clock day and each costs one checkpoint on demand plus a restart
    (δ + R, no lost work: an assumption, Llama 3 §3.3.4 gives the count, not how each stop was
    taken; R is ``planned_restart_s`` when given, e.g. a restart from in-memory
    copies where a failure's restart also pays a fallback's lost work, ``peer_checkpoint_plan``);
    their share p·(δ + R) scales the other parts by (1 − p·(δ + R)).

    Returns
    -------
    GoodputBreakdown (fractions of wall time, adding up to 1).

    Raises
    ------
    ValueError
        As ``goodput``; planned interruptions that would leave no time to train.
    """
    t = as_array(interval_s, "interval_s", positive=True)
    d = as_array(checkpoint_s, "checkpoint_s", nonnegative=True)
    r = as_array(restart_s, "restart_s", nonnegative=True)
    p = as_array(planned_per_day, "planned_per_day", nonnegative=True)
    u = _u(mtbf_s)
    g = np.asarray(goodput(t, d, mtbf_s, r))
    planned = _planned_share(p, d, r if planned_restart_s is None else as_array(
        planned_restart_s, "planned_restart_s", nonnegative=True), planned_per_day)
    keep = 1.0 - planned
    e = np.exp(-r * u)
    ck = g * d / t
    lost = np.maximum(e - g * (1.0 + d / t), 0.0)  # >= 0 in exact arithmetic (e^x - 1 >= x)
    parts = [g * keep, ck * keep, lost * keep, (1.0 - e) * keep, planned]
    shape = np.broadcast(*parts).shape
    return GoodputBreakdown(*(scalar_or_array(np.broadcast_to(x, shape).astype(float))
                              for x in parts))


def _segment_wall_s(work_s, u, restart_s):
    """Expected wall seconds of one segment of ``work_s`` seconds (its work and, if it ends with
    one, its checkpoint) restarted after every failure: e^{R·u}·(e^{x·u} − 1)/u (Daly 2006's
    segment; x at M = inf)."""
    with np.errstate(over="ignore"):
        return np.exp(restart_s * u) * _expm1_over_u(work_s, u)


def checkpoints_in_run(run_s, interval_s):
    """Checkpoints a run of ``run_s`` seconds of work takes at an interval τ: ⌈T/τ⌉ − 1, one
    after each full interval but none at its end (the run's final save is its product, not
    insurance against a failure; a run shorter than τ takes none)."""
    t = as_array(run_s, "run_s", positive=True)
    tau = as_array(interval_s, "interval_s", positive=True)
    return scalar_or_array(np.maximum(np.ceil(t / tau * (1 - 1e-12)) - 1.0, 0.0))


def run_work_s(ideal_gpu_hours, n_gpus):
    """The work T of a run, in seconds of its job's wall clock without failures or checkpoints:
    ideal GPU-hours × 3,600 ÷ GPUs (``compute.gpu_hours``' hours, all GPUs busy together)."""
    h = as_array(ideal_gpu_hours, "ideal_gpu_hours", positive=True)
    n = as_scalar(n_gpus, "n_gpus", positive=True, integer=True)
    return scalar_or_array(h * SECONDS_PER_HOUR / n)


def checkpoint_interval_words(interval_s, run_s=None, run: str = "the run's") -> str:
    """How often a run checkpoints, in words: "every 149 min (86 checkpoints in the run)" from
    ``checkpoints_in_run``, or "no checkpoint during the run's 54.2 min of work" when it takes
    none, the run's length in the unit that fits (``units.fmt_duration``: a multi-day run read
    "9,527 min"); the interval alone for a run without a stated length. ``run``: how the
    run is named ("the ideal run's": notebook 07's answer, ``answers.checkpoints``)."""
    tau = as_scalar(interval_s, "interval_s", positive=True)
    every = f"every {tau / 60:,.1f} min"
    if run_s is None:
        return every
    run_s = as_scalar(run_s, "run_s", positive=True)
    n = int(checkpoints_in_run(run_s, tau))
    if n == 0:
        return f"no checkpoint during {run} {fmt_duration(float(run_s))} of work"
    return f"{every} ({n:,} checkpoint{'s' if n != 1 else ''} in the run)"


def _run_inputs(run_s, interval_s, checkpoint_s, restart_s, mtbf_s) -> tuple:
    """A finite run's inputs checked (a ValueError naming each): (T, τ, δ, R, u = 1/M)."""
    return (as_array(run_s, "run_s", positive=True),
            as_array(interval_s, "interval_s", positive=True),
            as_array(checkpoint_s, "checkpoint_s", nonnegative=True),
            as_array(restart_s, "restart_s", nonnegative=True), _u(mtbf_s))


def finite_run_breakdown(run_s, interval_s, checkpoint_s, mtbf_s, restart_s=0.0,
                         planned_per_day=0.0, planned_restart_s=None) -> GoodputBreakdown:
    """``goodput_breakdown`` of a run of T = ``run_s`` seconds of work, not of a run without end.

    Daly's (2006) steady state charges δ/τ of every interval, as if the run went on for ever; a
    run of T seconds takes k = ⌈T/τ⌉ − 1 checkpoints (``checkpoints_in_run``: none at its end)
    and so runs k segments of τ + δ and a last one of T − k·τ without a checkpoint, each
    restarted from its start after a failure. With u = 1/M and E(x) = e^{R·u}·(e^{x·u} − 1)/u the
    expected wall time of a segment of x seconds (Daly's, failures striking work, checkpoints
    and restarts alike):

        T_w = k·E(τ + δ) + E(T − k·τ)
        productive = T / T_w,   checkpoint = k·δ / T_w,   restart = 1 − e^{−R·u}
        lost work = 1 − productive − checkpoint − restart

    (the restart share is Daly's: u failures per wall second, each M·(1 − e^{−R/M}) seconds of
    restart). As T/τ grows it tends to ``goodput_breakdown``'s steady state (relative difference
    of order τ/T); a run shorter than τ takes no checkpoint and is restarted from scratch after a
    failure, as ``expected_wall_time_s`` with ``interval_s = work_s`` and no checkpoint. Planned
    interruptions as ``goodput_breakdown`` (each a checkpoint on demand and a restart,
    ``planned_restart_s`` when given).

    Raises
    ------
    ValueError
        As ``goodput_breakdown``; ``run_s <= 0``.
    """
    T, t, d, r, u = _run_inputs(run_s, interval_s, checkpoint_s, restart_s, mtbf_s)
    p = as_array(planned_per_day, "planned_per_day", nonnegative=True)
    k = np.asarray(checkpoints_in_run(T, t))
    with np.errstate(invalid="ignore"):
        wall = np.where(k > 0, k * _segment_wall_s(t + d, u, r), 0.0) + \
            _segment_wall_s(T - k * t, u, r)
    with np.errstate(invalid="ignore", divide="ignore"):
        productive = np.where(np.isfinite(wall), T / wall, 0.0)
        ck = np.where(np.isfinite(wall), k * d / wall, 0.0)
    planned = _planned_share(p, d, r if planned_restart_s is None else as_array(
        planned_restart_s, "planned_restart_s", nonnegative=True), planned_per_day)
    keep, e = 1.0 - planned, np.exp(-r * u)
    lost = np.maximum(e - productive - ck, 0.0)
    parts = [productive * keep, ck * keep, lost * keep, (1.0 - e) * keep, planned]
    shape = np.broadcast(*parts).shape
    return GoodputBreakdown(*(scalar_or_array(np.broadcast_to(x, shape).astype(float))
                              for x in parts))


def finite_run_interval(run_s, interval_s, checkpoint_s, mtbf_s, restart_s=0.0,
                        at_least_s=0.0):
    """The interval T/k of a run of T = ``run_s`` seconds of work split into k equal segments
    (k − 1 checkpoints), k whole, minimising ``finite_run_breakdown``'s expected wall time

        T_w(k) = (k − 1)·E(T/k + δ) + E(T/k)

    among k = 1 and the k near T/τ* (τ* = ``interval_s``, the steady-state optimum,
    ``optimal_interval``: ⌊T/τ*⌋ − 1 to ⌊T/τ*⌋ + 2, at least 1); a run shorter than about τ*
    takes k = 1: no checkpoint. ``at_least_s`` bounds T/k from below (an asynchronous write's
    duty cycle, ``checkpoint_plan``) unless k = 1.

    Returns
    -------
    float or ndarray: seconds, T/k.
    """
    T, tau, d, r, u = _run_inputs(run_s, interval_s, checkpoint_s, restart_s, mtbf_s)
    low = as_array(at_least_s, "at_least_s", nonnegative=True)
    T, tau, d, r, u, low = np.broadcast_arrays(T, tau, d, r, u, low)
    base = np.floor(T / tau)
    with np.errstate(divide="ignore", over="ignore"):  # no bound: any k
        most = np.where(low > 0, np.maximum(np.floor(T / np.where(low > 0, low, 1.0)), 1.0),
                        np.inf)
    ks = np.stack([np.ones_like(base)] + [np.clip(base + j, 1.0, most) for j in (-1, 0, 1, 2)])
    with np.errstate(invalid="ignore", over="ignore"):
        walls = np.where(ks > 1, (ks - 1) * _segment_wall_s(T / ks + d, u, r), 0.0) + \
            _segment_wall_s(T / ks, u, r)
    walls = np.where(np.isnan(walls), np.inf, walls)
    k = np.take_along_axis(ks, np.argmin(walls, axis=0)[None], axis=0)[0]
    return scalar_or_array(T / k)


def expected_wall_time_s(work_s, interval_s, checkpoint_s, mtbf_s, restart_s=0.0):
    """Expected wall-clock seconds to finish ``work_s`` seconds of computation (Daly 2006):
    T_w = M·e^{R/M}·(e^{(τ+δ)/M} − 1)·T_s/τ = T_s / goodput.

    With ``interval_s = work_s`` and ``checkpoint_s = 0`` this is a run that cannot resume and
    must start over after every failure: T_w = M·e^{R/M}·(e^{T_s/M} − 1), which grows
    exponentially with T_s/M (the "spot capacity without resumable training" case).

    An interval longer than the work is the work: one segment, its checkpoint δ counted as
    Daly's formula counts each (``finite_run_breakdown``, the run's finite form, takes none at
    its end); an API trial's 1,000 s job at τ = 10⁶ s and M = 10⁴ s came out at 2.7e44 s.

    Returns
    -------
    float or ndarray: seconds; ``inf`` where e^{(τ+δ)/M} overflows a float (T/M > ~709).
    """
    s = as_array(work_s, "work_s", positive=True)
    tau = np.minimum(as_array(interval_s, "interval_s", positive=True), s)
    g = np.asarray(goodput(tau, checkpoint_s, mtbf_s, restart_s))
    with np.errstate(divide="ignore"):
        return scalar_or_array(np.where(g > 0, s / np.where(g > 0, g, 1.0), np.inf))


# ------------------------------------------------------------------------------ whole run
def run_reliability(ideal_gpu_hours, n_gpus, checkpoint_s, mtbf_s, restart_s,
                    interval_s=None, planned_per_day=0.0, price_usd_per_gpu_hour=None):
    """From ideal GPU-hours to paid GPU-hours: the goodput waterfall of a whole run.

    The ideal GPU-hours (``compute.gpu_hours``: FLOPs at the steady-state MFU, no failures) are
    the productive part; paid GPU-hours = ideal / goodput, because every GPU of the job is held
    (and paid) through checkpoints, recomputation and restarts. The goodput is that of a run of
    T = ideal GPU-hours ÷ GPUs of work (``finite_run_breakdown``: ⌈T/τ⌉ − 1 checkpoints).

    Parameters
    ----------
    ideal_gpu_hours : float
        GPU-hours of the run with no failures, checkpoints or restarts.
    n_gpus : int
    checkpoint_s, mtbf_s, restart_s, planned_per_day
        As ``goodput_breakdown``.
    interval_s : float, optional
        Checkpoint interval τ (default: the run's whole split nearest ``optimal_interval``,
        ``finite_run_interval``).
    price_usd_per_gpu_hour : float, optional
        Adds a ``usd`` column.

    Returns
    -------
    DataFrame with one row per line of the waterfall (``ideal (productive)``, ``checkpoint
    stalls``, ``lost work (recomputed)``, ``restarts``, ``planned interruptions``) and a final
    ``paid`` row equal to their sum; columns ``gpu_hours``, ``share`` (of paid) and ``usd``.
    ``.attrs`` holds ``goodput``, ``interval_s``, ``wall_clock_days``, ``expected_failures``
    and ``mtbf_s``. ``expected_failures`` = (paid wall clock − planned interruptions' time) ÷
    MTBF: restarts, stalls and lost work are running time a failure can strike, a planned
    interruption is not (the paid wall clock ÷ MTBF alone over-counts by the planned share).
    """
    h = as_scalar(ideal_gpu_hours, "ideal_gpu_hours", positive=True)
    n = as_scalar(n_gpus, "n_gpus", positive=True, integer=True)
    work = run_work_s(h, n)
    steady = np.minimum(optimal_interval(checkpoint_s, mtbf_s), 365.25 * SECONDS_PER_DAY)
    tau = finite_run_interval(work, steady, checkpoint_s, mtbf_s, restart_s) \
        if interval_s is None else interval_s  # (no failures: τ* infinite, capped at a year)
    b = finite_run_breakdown(work, tau, checkpoint_s, mtbf_s, restart_s, planned_per_day)
    if not float(b.productive) >= GOODPUT_FLOOR:   # as the bill refuses it (an API trial read
        # 1.2e293 paid GPU-hours)
        raise ValueError(f"goodput={float(b.productive):.2g} on {fmt_gpus(int(n))} (mtbf_s="
                         f"{float(_mtbf(mtbf_s)):.3g}, checkpoint_s={checkpoint_s}, restart_s="
                         f"{restart_s}): interruptions come faster than a checkpoint and a "
                         "restart, so the run never finishes; the rule: goodput >= "
                         f"{GOODPUT_FLOOR_WORDS} (fewer failures, faster restarts or storage)")
    paid = h / float(b.productive)
    labels = {"productive": "ideal (productive)", "checkpoint": "checkpoint stalls",
              "lost_work": "lost work (recomputed)", "restart": "restarts after failures",
              "planned": "planned interruptions"}
    rows = [(labels[k], paid * float(v)) for k, v in b.parts().items()]
    rows.append(("paid", paid))
    df = pd.DataFrame(rows, columns=["line", "gpu_hours"])
    df["share"] = df["gpu_hours"] / paid
    if price_usd_per_gpu_hour is not None:
        df["usd"] = df["gpu_hours"] * as_scalar(price_usd_per_gpu_hour,
                                                      "price_usd_per_gpu_hour", positive=True)
    wall_s = paid / n * SECONDS_PER_HOUR
    u = float(_u(mtbf_s))
    df.attrs.update(goodput=float(b.productive), interval_s=float(tau),
                    wall_clock_days=wall_s / SECONDS_PER_DAY,
                    expected_failures=wall_s * u * (1.0 - float(b.planned)),
                    mtbf_s=float(_mtbf(mtbf_s)))
    return df


def whole_run_mfu(steady_state_mfu, goodput_):
    """Whole-run utilisation = steady-state MFU × goodput: model FLOPs over *paid* GPU-time."""
    m = as_array(steady_state_mfu, "steady_state_mfu", positive=True, upper=1.0)
    g = as_array(goodput_, "goodput", positive=True, upper=1.0)
    return scalar_or_array(m * g)


def mfu_gap(steady_state_mfu, goodput_, published_whole_run_mfu):
    """How much of the gap between a run's steady-state MFU and its published whole-run
    utilisation the reliability model explains.

    Returns
    -------
    dict with ``steady_state``, ``predicted_whole_run`` (= steady × goodput), ``published``,
    ``gap`` (steady − published), ``explained`` (steady − predicted), ``unexplained``
    (predicted − published) and ``explained_share`` (explained ÷ gap). ``explained +
    unexplained == gap``.
    """
    m = as_scalar(steady_state_mfu, "steady_state_mfu", positive=True, upper=1.0)
    pub = as_scalar(published_whole_run_mfu, "published_whole_run_mfu", positive=True,
                         upper=1.0)
    pred = float(whole_run_mfu(m, goodput_))
    gap = m - pub
    return {"steady_state": m, "predicted_whole_run": pred, "published": pub, "gap": gap,
            "explained": m - pred, "unexplained": pred - pub,
            "explained_share": (m - pred) / gap if gap else float("nan")}


# ------------------------------------------------------------------------------ storage cost
def load_storage_prices():
    """Storage tiers and prices per GB-month (``data/storage_prices.csv``, sources per row)."""
    return _storage_prices().copy()


@lru_cache(maxsize=1)
def _storage_prices():

    return pd.read_csv(DATA_DIR / "storage_prices.csv")


def _storage_tier(name: str):
    """The ``data/storage_prices.csv`` row of a tier (a Series, a copy); ValueError for an
    unknown name."""
    rows = _storage_rows()
    if not isinstance(name, str) or name not in rows:
        raise ValueError(f"storage tier {name!r} must be one of "
                         f"{', '.join(_storage_prices()['name'])}")
    return rows[name].copy()


@lru_cache(maxsize=1)
def _storage_rows() -> dict:
    """Each tier's row of ``data/storage_prices.csv`` by name (the first row of a name), read
    once: a bill looks tiers up hundreds of times."""
    df = _storage_prices()
    return {n: df.iloc[i] for i, n in reversed(list(enumerate(df["name"])))}


def storage_price(name: str) -> float:
    """USD per GB-month of a tier in ``data/storage_prices.csv``.

    Raises
    ------
    ValueError
        Unknown tier name.
    """
    return float(_storage_tier(name)["price_usd_per_gb_month"])


def storage_throughput_per_tib(name: str):
    """Bytes/s a tier delivers per TiB provisioned (``data/storage_prices.csv``), or None when its
    throughput is not sold with capacity (object storage).

    Raises
    ------
    ValueError
        Unknown tier name.
    """
    v = _storage_tier(name)["throughput_bytes_per_s_per_tib"]
    return None if v != v else float(v)


def gb_per_s_text(bytes_per_s: float) -> str:
    """A storage bandwidth in GB/s for a sentence: ``units.fmt_bandwidth`` ("56 GB/s",
    "2,000 GB/s", "1.5 GB/s", and "0.12 GB/s": a small job's optimum, which a whole number
    printed as "0 GB/s")."""
    return fmt_bandwidth(float(bytes_per_s))


def hot_average_gb(floor_gb, plateau_gb, held, written):
    """Average GB a hot tier holds over a run whose checkpoints accumulate to ``held`` of the
    ``written`` ones and stay there (the last k: min(k, n·x) at the run's fraction x, the ramp
    r = held ÷ written of the run), never below ``floor_gb`` (a tier provisioned for its
    bandwidth, grown with the bytes above it; 0 for a tier billed by the byte). With P the
    plateau's GB and F the floor:

        F                                  when F ≥ P
        r·(F²/(2P) + P/2) + (1 − r)·P      otherwise (F = 0: P·(1 − r/2), k − k²/(2n) of size)

    (the ramp's part below F costs F, its part above the line it climbs, P·x/r)."""
    f, top = np.asarray(floor_gb, dtype=float), np.asarray(plateau_gb, dtype=float)
    n = np.asarray(written, dtype=float)
    r = np.where(n > 0, np.minimum(np.asarray(held, dtype=float) / np.where(n > 0, n, 1.0),
                                   1.0), 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        climb = r * (f * f / (2 * np.where(top > 0, top, 1.0)) + top / 2) + (1 - r) * top
    return scalar_or_array(np.where(f >= top, f, climb))


def retention_storage_cost(checkpoint_bytes, run_days, interval_s, keep_last,
                           milestone_every_days, retention_months, hot_usd_per_gb_month,
                           cold_usd_per_gb_month, milestone_bytes=None,
                           hot_bandwidth_bytes_per_s=None, hot_bytes_per_s_per_tib=None,
                           n_checkpoints=None):
    """Storage cost of a retention policy: keep the last k checkpoints hot, copy milestones cold.

    * Hot tier (restarts read from it): the last k = ``keep_last`` of the n checkpoints the run
      writes (``n_checkpoints``, e.g. ``CheckpointPlan.n_checkpoints``; default run_s/τ), held
      as they are written: min(k, n·x) at the run's fraction x, k = 0 keeping every one (n),
      so the bytes held average ``hot_average_gb`` of that ramp (k − k²/(2n) checkpoints for
      k < n, n/2 for k ≥ n or k = 0: a trial's k = 1,000 above the 652 written cost twice
      "every checkpoint"). A parallel file system sells throughput with capacity (FSx for
      Lustre: 125 MB/s per TiB): with ``hot_bandwidth_bytes_per_s`` and
      ``hot_bytes_per_s_per_tib`` it holds at least bandwidth ÷ throughput-per-TiB (for fast
      checkpoints far more than the checkpoints held) and grows with what it holds above that
      (its capacity can be increased, not decreased: AWS FSx for Lustre User Guide, "Managing
      storage capacity"), as ``storage_tradeoff`` sizes it.
    * Cold tier: one milestone every ``milestone_every_days`` (full, or ``milestone_bytes`` for
      weights-only milestones), accumulating over the run (on average half held) and then kept
      ``retention_months`` after it; never more milestones than the checkpoints written (a
      milestone is a copy of one: a run that writes none keeps none).

    cost = Σ bytes held ÷ 2^30 × months × price per GB-month (AWS bills a GB-month as 2^30
    bytes: ``BILLED_GB``); the bandwidth floor is TiB provisioned × 1,024 GiB.

    Returns
    -------
    DataFrame with rows ``hot: last k`` (or ``hot: every checkpoint``), ``cold: milestones``
    and ``total``; columns ``checkpoints``, ``gb_months`` and ``usd``. With ``run_days`` or
    ``interval_s`` an array (draws of the bill, ``ledger.simulate_ledger``): a dict with the
    total ``usd`` per element.
    """
    size = as_scalar(checkpoint_bytes, "checkpoint_bytes", positive=True)
    days = scalar_or_array(as_array(run_days, "run_days", positive=True))
    tau = scalar_or_array(as_array(interval_s, "interval_s", positive=True))
    k = as_scalar(keep_last, "keep_last", nonnegative=True, integer=True)
    every = as_scalar(milestone_every_days, "milestone_every_days", positive=True)
    after = as_scalar(retention_months, "retention_months", nonnegative=True)
    hot_p = as_scalar(hot_usd_per_gb_month, "hot_usd_per_gb_month", nonnegative=True)
    cold_p = as_scalar(cold_usd_per_gb_month, "cold_usd_per_gb_month", nonnegative=True)
    ms = size if milestone_bytes is None else as_scalar(milestone_bytes,
                                                             "milestone_bytes", positive=True)
    months = days * SECONDS_PER_DAY / SECONDS_PER_MONTH
    n_all = days * SECONDS_PER_DAY / tau if n_checkpoints is None else \
        as_array(n_checkpoints, "n_checkpoints", nonnegative=True)
    hot_n = n_all if k == 0 else np.minimum(k, n_all)
    hot_label = "hot: every checkpoint" if k == 0 else f"hot: last {k:.0f}"
    floor_gb = 0.0
    if hot_bandwidth_bytes_per_s is not None and hot_bytes_per_s_per_tib is not None:
        bw = as_scalar(hot_bandwidth_bytes_per_s, "hot_bandwidth_bytes_per_s", positive=True)
        dens = as_scalar(hot_bytes_per_s_per_tib, "hot_bytes_per_s_per_tib", positive=True)
        floor_gb = bw / dens * (TIB / BILLED_GB)
        if np.any(floor_gb > hot_n * size / BILLED_GB):
            hot_label += f" (provisioned for {gb_per_s_text(bw)})"
    hot_gbm = scalar_or_array(hot_average_gb(floor_gb, hot_n * size / BILLED_GB, hot_n, n_all)
                              * months)
    n_ms = np.minimum(np.floor(days / every), np.floor(n_all))  # copies of written ones
    cold_gbm = n_ms * ms / BILLED_GB * (months / 2 + after)
    if np.ndim(hot_gbm) or np.ndim(cold_gbm):  # run_days or interval_s as draws: the total only
        return {"usd": hot_gbm * hot_p + cold_gbm * cold_p}
    hot_usd, cold_usd = hot_gbm * hot_p, cold_gbm * cold_p
    return pd.DataFrame({"policy": [hot_label, "cold: milestones", "total"],
                         "checkpoints": [float(hot_n), float(n_ms), float(hot_n + n_ms)],
                         "gb_months": [float(hot_gbm), float(cold_gbm), float(hot_gbm + cold_gbm)],
                         "usd": [float(hot_usd), float(cold_usd), float(hot_usd + cold_usd)]})


# ------------------------------------------------------------------------------ one plan
@dataclass(frozen=True)
class CheckpointPlan:
    """Everything about checkpointing one job, from its size to its goodput (see
    ``checkpoint_plan``). Times in seconds, sizes in bytes."""

    size: CheckpointSize
    write_s: float
    snapshot_s: float
    stall_s: float
    async_: bool
    restart: RestartBreakdown
    restart_s: float
    mtbf_s: float
    interval_s: float
    breakdown: GoodputBreakdown
    storage_bytes_per_s: float | None = None  # the bandwidth used (sized from the job if unset)
    run_s: object = None  # the run's work T in seconds (or its draws) when given, else None

    @property
    def n_checkpoints(self):
        """Checkpoints the run takes, ⌈T/τ⌉ − 1 (``checkpoints_in_run``), or None for a run
        without a stated length (the steady state of ``goodput_breakdown``)."""
        return None if self.run_s is None else checkpoints_in_run(self.run_s, self.interval_s)

    @property
    def goodput(self) -> float:
        return scalar_or_array(self.breakdown.productive)

    @property
    def storage_duty(self) -> float:
        """Share of wall time the storage writes this job's checkpoints, w / (τ + δ)
        (``storage_duty_cycle``)."""
        return storage_duty_cycle(self.write_s, self.interval_s, self.stall_s)

    @property
    def sustained_write_bytes_per_s(self) -> float:
        """Average checkpoint write rate, size / (τ + δ), bytes/s."""
        return scalar_or_array(float(self.size.total_bytes)
                               / (np.asarray(self.interval_s) + np.asarray(self.stall_s)))


@dataclass(frozen=True)
class CheckpointSettings:
    """How a job checkpoints, beyond its size, hardware and failures (``checkpoint_plan``'s
    keywords; checked where ``checkpoint_plan`` uses them, each a ValueError naming it).

    Fields
    ------
    d2h_bytes_per_s : float
        Device-to-host copy bandwidth of the snapshot (``snapshot_time_s``), default 50e9.
    async_ : bool
        Asynchronous checkpoints (``checkpoint_stall_s``): the write runs in the background.
    planned_per_day : float
        Planned interruptions per day (``goodput_breakdown``), default 0.
    interval_s : float, optional
        Checkpoint interval τ (default: the exact optimum ``optimal_interval``; with ``run_s``,
        the whole split of the run nearest it, ``finite_run_interval``).
    reshard_fraction : float
        Share of the checkpoint re-sharded at restart (``restart_time_s``), default 0.
    checkpoint_bytes : float, optional
        Override the checkpoint size (total bytes) instead of deriving it from the recipe.
    max_storage_duty : float in (0, 1]
        Largest share of wall time an asynchronous job may keep the storage busy writing
        (``storage_duty_cycle``); bounds the optimum interval from below. Default 1.
    run_s : float, optional
        The run's work T in seconds (its ideal GPU-hours ÷ GPUs): the goodput of a run of that
        length (``finite_run_breakdown``: ⌈T/τ⌉ − 1 checkpoints, none at its end) and, without
        ``interval_s``, the interval T/k of ``finite_run_interval``. Default None: the steady
        state of a run without end (``goodput_breakdown``).
    """

    d2h_bytes_per_s: float = 50e9
    async_: bool = False
    planned_per_day: float = 0.0
    interval_s: float | None = None
    reshard_fraction: float = 0.0
    checkpoint_bytes: float | None = None
    max_storage_duty: float = 1.0
    run_s: float | None = None

    @classmethod
    def build(cls, settings: CheckpointSettings | None = None, **keywords) -> CheckpointSettings:
        """``settings`` (default ``CheckpointSettings()``) with ``keywords`` replacing its
        fields.

        Raises
        ------
        ValueError
            ``settings`` not a CheckpointSettings, or an unknown name (listing the known ones).
        """
        return options_with(cls, "settings", settings, keywords, lambda bad, names: (
            f"checkpoint_plan: unknown setting(s) {bad}; the settings are {names} (and recipe, "
            "gpus_per_node, node_bytes_per_s)"))


def checkpoint_plan(n_params, n_gpus, fail_rate_per_gpu_year, storage_bytes_per_s,
                    restart_overhead_s, recipe="bf16-adam", gpus_per_node=8,
                    node_bytes_per_s=None, *, settings: CheckpointSettings | None = None,
                    **keywords) -> CheckpointPlan:
    """Checkpoint size, write and stall time, restart time, MTBF, interval and goodput of a job.

    The state is sharded evenly over all ``n_gpus`` (ZeRO/FSDP-style). The
    stall δ is ``checkpoint_stall_s``; the restart time R is ``restart_time_s`` (overhead + read
    at the write bandwidth + re-sharding). For an **asynchronous** checkpoint the newest snapshot
    becomes durable only when its background write w ends, so a failure loses on average w more
    work (for failures uniform over an interval, E[lost] = τ/2 + w): modelled as R + w, and the
    optimum interval is bounded by the storage duty cycle: one write per period, w / (τ + δ) ≤
    ``max_storage_duty`` (1: the write must end before the next begins; less: leave bandwidth to
    the data loader and other jobs), so τ ≥ w / u_max − δ.

    Parameters
    ----------
    n_params : float
        Parameters saved.
    n_gpus : int
    fail_rate_per_gpu_year : float
        Failures per GPU-year (>= 0).
    storage_bytes_per_s : float or None
        Aggregate storage bandwidth (write and read), bytes/s (> 0); None: sized from the job,
        ``job_storage_bytes_per_s(n_gpus)``.
    restart_overhead_s : float
        Restart time excluding reading the checkpoint (see ``restart_time_s``).
    recipe, gpus_per_node, node_bytes_per_s
        As ``checkpoint_size`` and ``checkpoint_write_time_s``.
    settings : CheckpointSettings, optional
        The checkpointing settings in one object; the ``**keywords`` replace its fields.
    **keywords
        ``CheckpointSettings`` fields: ``d2h_bytes_per_s``, ``async_``, ``planned_per_day``,
        ``interval_s``, ``reshard_fraction``, ``checkpoint_bytes``, ``max_storage_duty``,
        ``run_s`` (the run's work: its goodput ``finite_run_breakdown``'s, its default interval
        the whole split of it nearest the optimum, ``finite_run_interval``).

    Returns
    -------
    CheckpointPlan.
    """
    o = CheckpointSettings.build(settings, **keywords)
    d2h_bytes_per_s, async_, planned_per_day, interval_s = (
        o.d2h_bytes_per_s, o.async_, o.planned_per_day, o.interval_s)
    reshard_fraction, checkpoint_bytes, max_storage_duty = (
        o.reshard_fraction, o.checkpoint_bytes, o.max_storage_duty)
    n_gpus_ = int(as_scalar(n_gpus, "n_gpus", positive=True, integer=True))
    async_ = as_flag(async_, "async_")
    gpn = int(as_scalar(gpus_per_node, "gpus_per_node", positive=True, integer=True))
    as_array(restart_overhead_s, "restart_overhead_s", nonnegative=True)
    if np.ndim(n_params):
        raise ValueError(f"n_params={n_params!r} must be a single number for one plan")
    size = checkpoint_size(n_params, recipe, "full", n_gpus_)
    total = float(size.total_bytes) if checkpoint_bytes is None else \
        as_scalar(checkpoint_bytes, "checkpoint_bytes", positive=True)
    n_nodes = int(nodes_for(n_gpus_, gpn))
    if storage_bytes_per_s is None:
        storage_bytes_per_s = job_storage_bytes_per_s(n_gpus_)
    write = float(checkpoint_write_time_s(total, n_nodes, storage_bytes_per_s, node_bytes_per_s))
    snap = float(snapshot_time_s(total / n_gpus_, d2h_bytes_per_s))
    restart = restart_time_s(total, n_nodes, storage_bytes_per_s, restart_overhead_s,
                             node_bytes_per_s, reshard_fraction)
    # the failure rate, restart overhead and planned rate may be arrays (draws of the bill,
    # ledger.simulate_ledger): the figures below are then arrays of the same shape
    m = scalar_or_array(cluster_mtbf_s(n_gpus_, fail_rate_per_gpu_year))
    r = scalar_or_array(np.asarray(restart.total_s) + (write if async_ else 0.0))
    run_s = None if o.run_s is None else scalar_or_array(as_array(o.run_s, "run_s",
                                                                     positive=True))
    tau = _plan_interval(interval_s, run_s, write, snap, async_, max_storage_duty, m, r)
    stall = scalar_or_array(checkpoint_stall_s(write, snap, async_, tau))
    b = goodput_breakdown(tau, stall, m, r, planned_per_day) if run_s is None else \
        finite_run_breakdown(run_s, tau, stall, m, r, planned_per_day)
    return CheckpointPlan(size, write, snap, stall, async_, restart, r, m, tau, b,
                          float(storage_bytes_per_s), run_s)


def _plan_interval(interval_s, run_s, write, snap, async_, max_storage_duty, m, r):
    """``checkpoint_plan``'s interval τ: the one given; else Daly's optimum
    (``optimal_interval`` of the blocking time), bounded below for an asynchronous write by the
    storage duty cycle, at most a year, and for a run of ``run_s`` seconds of work the whole
    split of it nearest in expected wall time (``finite_run_interval``). Arrays broadcast (the
    storage curve's bandwidths, ``_goodput_curve_of``)."""
    if interval_s is not None:
        return as_scalar(interval_s, "interval_s", positive=True)
    blocking = snap if async_ else snap + write
    tau = np.asarray(optimal_interval(np.maximum(blocking, 1e-9), m))
    u_max = as_scalar(max_storage_duty, "max_storage_duty", positive=True, upper=1.0)
    low = np.maximum(write / u_max - snap, write) if async_ else 0.0
    tau = np.maximum(tau, low) if async_ else tau
    tau = scalar_or_array(np.minimum(tau, 365.25 * SECONDS_PER_DAY))  # never fails: 1/year
    if run_s is None:
        return tau
    return finite_run_interval(run_s, tau, blocking, m, r, at_least_s=low)


# ------------------------------------------------------------------------------ scenario helpers
def scenario_storage_bytes_per_s(p: dict, n_params=None, ideal_gpu_hours=None,
                                 price_usd_per_gpu_hour=None, gpus_per_node=8):
    """The scenario's checkpoint-storage bandwidth and where it came from: (bytes/s, source).

    ``p["ckpt_storage_bytes_per_s"]`` when given; otherwise, with the run's ``n_params``,
    ``ideal_gpu_hours`` and price, sized from the checkpoint plan
    (``scenario_storage_tradeoff``: the bandwidth minimising hot-storage cost + the cost of GPU
    time lost to writes and restores); without them, ``job_storage_bytes_per_s(n_gpus)`` =
    n_gpus × 122 MB/s, Llama 3's Tectonic rate (2 TB/s for 16,384 GPUs, arXiv:2407.21783 §3.3.1).
    """
    if p.get("ckpt_storage_bytes_per_s") is not None:
        return float(p["ckpt_storage_bytes_per_s"]), "given as ckpt_storage_bytes_per_s"
    if None not in (n_params, ideal_gpu_hours, price_usd_per_gpu_hour):
        bw = sized_storage_bytes_per_s(**scenario_tradeoff_args(
            p, n_params, ideal_gpu_hours, price_usd_per_gpu_hour, gpus_per_node))
        return bw, ("sized from the checkpoint plan: the bandwidth that minimises hot-storage "
                    "cost + the cost of GPU time lost to writes and restores")
    return (float(job_storage_bytes_per_s(p["n_gpus"])),
            "sized from the job: n_gpus × 122 MB/s, Llama 3's Tectonic rate")


def scenario_tradeoff_args(p: dict, n_params, ideal_gpu_hours, price_usd_per_gpu_hour,
                           gpus_per_node=8) -> dict:
    """The arguments of ``storage_tradeoff`` / ``sized_storage_bytes_per_s`` for a validated
    scenario ``p`` (its ``ckpt_*`` and ``fail_*`` keys)."""
    return dict(n_params=n_params, n_gpus=p["n_gpus"],
                fail_rate_per_gpu_year=p["fail_rate_per_gpu_year"],
                restart_overhead_s=p["ckpt_restart_s"], ideal_gpu_hours=ideal_gpu_hours,
                price_usd_per_gpu_hour=price_usd_per_gpu_hour, hot_tier=p["ckpt_hot_tier"],
                keep_last=p["ckpt_keep_last"], recipe=p["ckpt_recipe"],
                gpus_per_node=gpus_per_node, node_bytes_per_s=p["ckpt_node_bytes_per_s"],
                d2h_bytes_per_s=p["ckpt_d2h_bytes_per_s"], async_=p["ckpt_async"],
                planned_per_day=p["fail_planned_per_day"], interval_s=p["ckpt_interval_s"])


def scenario_storage_tradeoff(p: dict, n_params, ideal_gpu_hours, price_usd_per_gpu_hour,
                              gpus_per_node=8, also=()) -> pd.DataFrame:
    """``storage_tradeoff`` for a validated scenario (notebook 07's figure and table), on
    ``TRADEOFF_BANDWIDTHS`` plus the bandwidths in ``also`` (bytes/s)."""
    grid = np.unique(np.append(TRADEOFF_BANDWIDTHS, np.asarray(also, dtype=float)))
    return storage_tradeoff(**scenario_tradeoff_args(p, n_params, ideal_gpu_hours,
                                                     price_usd_per_gpu_hour, gpus_per_node),
                            bandwidths=grid)


def scenario_checkpoint_plan(p: dict, n_params, gpus_per_node=8, **changes) -> CheckpointPlan:
    """``checkpoint_plan`` for a validated scenario ``p`` (the ``ckpt_*`` and ``fail_*`` keys),
    with keyword arguments of ``checkpoint_plan`` overriding single settings, e.g.
    ``scenario_checkpoint_plan(p, spec.n_params, async_=True, interval_s=None)``; ``run_s``
    (the run's work, ``run_work_s``) prices a run of that length (``finite_run_breakdown``),
    as the bill does.

    The formulas are ``checkpoint_plan``'s (Young 1974 / Daly 2006; see the module docstring).
    """
    need = ("n_gpus", "fail_rate_per_gpu_year", "ckpt_restart_s", "ckpt_recipe",
            "ckpt_node_bytes_per_s", "ckpt_d2h_bytes_per_s", "ckpt_async", "fail_planned_per_day",
            "ckpt_interval_s")
    missing = [k for k in need if k not in p]
    if missing:
        raise ValueError(f"p is missing {missing!r}: pass the validated parameters of notebook 07 "
                         "(llmcost.notebook_parameters)")
    kw = dict(n_params=n_params, n_gpus=p["n_gpus"],
              fail_rate_per_gpu_year=p["fail_rate_per_gpu_year"],
              storage_bytes_per_s=scenario_storage_bytes_per_s(p)[0],
              restart_overhead_s=p["ckpt_restart_s"], recipe=p["ckpt_recipe"],
              gpus_per_node=gpus_per_node, node_bytes_per_s=p["ckpt_node_bytes_per_s"],
              d2h_bytes_per_s=p["ckpt_d2h_bytes_per_s"], async_=p["ckpt_async"],
              planned_per_day=p["fail_planned_per_day"], interval_s=p["ckpt_interval_s"])
    unknown = set(changes) - set(kw) - {"reshard_fraction", "checkpoint_bytes",
                                        "max_storage_duty", "run_s"}
    if unknown:
        raise ValueError(f"changes={sorted(unknown)!r}: not arguments of checkpoint_plan")
    kw.update(changes)
    return checkpoint_plan(**kw)


def scenario_checkpoint_cases(p: dict, n_params, gpus_per_node: int, cases: dict,
                              **common) -> dict:
    """``{label: CheckpointPlan, or the reason it never finishes}``: ``scenario_checkpoint_plan``
    of each case (``label -> {argument: value}``), the ``common`` arguments applied to all
    (notebook 07's what-if storage table). A case whose planned interruptions, a checkpoint
    and a restart each, would take all of the wall-clock time (``PlannedStopsTakeAllTime``: a
    tenth of a slow storage) is kept with that reason, not raised: a trial's report stopped
    on it (100 MB/s of storage for 2,048 H100s, δ + R = 1.9e5 s against 0.87 stops a day)."""
    out = {}
    for label, changes in cases.items():
        try:
            out[label] = scenario_checkpoint_plan(p, n_params, gpus_per_node,
                                                  **{**common, **changes})
        except PlannedStopsTakeAllTime as e:
            out[label] = f"never finishes: {e.words()}"
    return out


def checkpoint_cases_frame(cases: dict) -> pd.DataFrame:
    """``scenario_checkpoint_cases``' result as a table, one row per case: ``write (s)``,
    ``interval (s)``, ``storage duty``, ``restart (s)``, ``goodput`` (NaN for a case that never
    finishes) as floats, and ``note`` (its reason) only when a case never finishes."""
    cols = ("write (s)", "interval (s)", "storage duty", "restart (s)", "goodput")
    rows = {label: ([math.nan] * len(cols) if isinstance(v, str) else
                    [v.write_s, v.interval_s, v.storage_duty, v.restart_s, v.goodput])
            for label, v in cases.items()}
    df = pd.DataFrame.from_dict(rows, orient="index", columns=list(cols)).astype(float)
    notes = {label: v for label, v in cases.items() if isinstance(v, str)}
    if notes:
        df["note"] = [notes.get(label, "") for label in df.index]
    return df


#: The bandwidths ``storage_tradeoff`` tries by default: 100 MB/s to 10 TB/s, 12 per decade.
TRADEOFF_BANDWIDTHS = np.logspace(8, 13, 61)


def _point(x, name):
    """One number for sizing from a value that may be draws of the bill (their median)."""
    return float(np.median(as_array(x, name)))


def storage_tradeoff(n_params, n_gpus, fail_rate_per_gpu_year, restart_overhead_s,
                     ideal_gpu_hours, price_usd_per_gpu_hour, hot_tier="fsx-lustre-ssd",
                     keep_last=3, bandwidths=None, **plan_options) -> pd.DataFrame:
    """The checkpoint-storage throughput that minimises storage cost + the cost of GPU time lost
    to checkpoint writes and restores, and the trade-off around it.

    For each aggregate bandwidth b (``bandwidths``, default ``TRADEOFF_BANDWIDTHS``):

    * the job's goodput g(b) is ``checkpoint_plan(..., storage_bytes_per_s=b)``'s (Daly 2006:
      a faster storage shortens the write δ, the restore read in R, and so the optimal interval
      and the work lost);
    * GPU time lost to checkpoints, failures and restarts: ``H·(1/g − 1)`` GPU-hours for ``H``
      ideal GPU-hours, costing ``lost_usd = H·(1/g − 1)·price``;
    * the hot tier is provisioned for b: a parallel file system sells throughput with capacity
      (``storage_throughput_per_tib``, FSx for Lustre 125 MB/s per TiB), so it holds
      at least b ÷ throughput per TiB and the last ``keep_last`` checkpoints as they
      accumulate above it (``hot_average_gb``; 0: all the run writes) for the run's wall clock
      ``H / (g·n) `` hours: ``storage_usd = bytes/2^30 × months × price per GB-month``
      (``data/storage_prices.csv``). The cold milestones do not depend on b and are left out;
    * ``total_usd = lost_usd + storage_usd``; the row with the smallest total is the optimum
      (``attrs["optimum_bytes_per_s"]``).

    A tier whose throughput is not sold with capacity (object storage) costs the same at every
    b: the fastest b wins, and ``attrs["note"]`` says so. Values given as draws (arrays) are
    sized at their median.

    Parameters
    ----------
    n_params, n_gpus, fail_rate_per_gpu_year, restart_overhead_s
        As ``checkpoint_plan``.
    ideal_gpu_hours : float
        GPU-hours of the run with no failures (``compute.training_run``).
    price_usd_per_gpu_hour : float
    hot_tier : str
        A ``data/storage_prices.csv`` tier.
    keep_last : int
        Checkpoints held in the hot tier (0: every one), at most those the run writes.
    bandwidths : array, optional
        Aggregate bandwidths to try, bytes/s.
    **plan_options
        Passed to ``checkpoint_plan`` (``recipe``, ``gpus_per_node``, ``node_bytes_per_s``,
        ``d2h_bytes_per_s``, ``async_``, ``planned_per_day``, ``interval_s``).

    Returns
    -------
    DataFrame indexed by ``storage_bytes_per_s`` with ``goodput``, ``lost_gpu_hours``,
    ``lost_usd``, ``storage_usd`` and ``total_usd``; ``attrs``: ``optimum_bytes_per_s``,
    ``optimum`` (its row as a dict) and ``note``.
    """
    rows, density = _tradeoff_of(n_params, n_gpus, fail_rate_per_gpu_year, restart_overhead_s,
                                 ideal_gpu_hours, price_usd_per_gpu_hour, hot_tier, keep_last,
                                 bandwidths, plan_options)
    df = pd.DataFrame(rows, columns=["storage_bytes_per_s", "goodput", "lost_gpu_hours",
                                     "lost_usd", "storage_usd"]).set_index("storage_bytes_per_s")
    _mark_optimum(df, hot_tier, density)
    return df


#: The refusal of a job no bandwidth tried gives any goodput (``_tradeoff_of``).
NO_GOODPUT = ("no bandwidth tried gives the job any goodput: interruptions come faster than a "
              "checkpoint and a restart at every bandwidth in bandwidths")


def _tradeoff_of(n_params, n_gpus, fail_rate_per_gpu_year, restart_overhead_s, ideal_gpu_hours,
                 price_usd_per_gpu_hour, hot_tier, keep_last, bandwidths,
                 plan_options: dict) -> tuple:
    """``storage_tradeoff``'s arguments checked (draws at their median) and its rows
    (``_tradeoff_rows``), with the hot tier's throughput per TiB: ``(rows, density)``; the
    ``ValueError`` of ``NO_GOODPUT`` when no row is left. ``plan_options`` is the caller's own
    dict (its ``planned_per_day`` is replaced by its point)."""
    n = int(as_scalar(n_gpus, "n_gpus", positive=True, integer=True))
    h = _point(as_array(ideal_gpu_hours, "ideal_gpu_hours", positive=True), "ideal_gpu_hours")
    price = _point(as_array(price_usd_per_gpu_hour, "price_usd_per_gpu_hour", positive=True),
                   "price_usd_per_gpu_hour")
    rate = _point(as_array(fail_rate_per_gpu_year, "fail_rate_per_gpu_year", nonnegative=True),
                  "fail_rate_per_gpu_year")
    restart = _point(as_array(restart_overhead_s, "restart_overhead_s", nonnegative=True),
                     "restart_overhead_s")
    CheckpointSettings.build(**{k: v for k, v in plan_options.items()      # names checked
                                if k not in ("recipe", "gpus_per_node", "node_bytes_per_s")})
    if "planned_per_day" in plan_options:
        plan_options["planned_per_day"] = _point(plan_options["planned_per_day"],
                                                 "planned_per_day")
    # the goodput of a run of this length, as the bill's (a trial's 1-hour run read 97.92%
    # here against the bill's 98.51%: the steady state)
    plan_options["run_s"] = float(run_work_s(h, n))
    k = int(as_scalar(keep_last, "keep_last", nonnegative=True, integer=True))
    bws = TRADEOFF_BANDWIDTHS if bandwidths is None else np.atleast_1d(
        as_array(bandwidths, "bandwidths", positive=True))
    hot_p = storage_price(hot_tier)
    density = storage_throughput_per_tib(hot_tier)
    curve = _goodput_curve(n_params, n, rate, restart, bws, plan_options)
    rows = _tradeoff_rows(curve, h, n, price, k, hot_p, density)
    if not rows:
        raise ValueError(NO_GOODPUT)
    return rows, density


def optimum_of_rows(rows) -> float:
    """The bandwidth of the row of ``_tradeoff_rows`` with the smallest total, lost $ + storage
    $: what ``_mark_optimum`` reads from the table (``idxmin``: the first of equal totals, a
    NaN total passed over; NaN when every total is NaN), without building it."""
    best, best_total = float("nan"), None
    for b, _, _, lost_usd, storage_usd in rows:
        total = lost_usd + storage_usd
        if total == total and (best_total is None or total < best_total):
            best, best_total = b, total
    return float(best)


def _mark_optimum(df: pd.DataFrame, hot_tier: str, density) -> None:
    """``storage_tradeoff``'s last step, in place: ``total_usd = lost_usd + storage_usd``, the
    bandwidth of the smallest total (``attrs["optimum_bytes_per_s"]``, its row in
    ``attrs["optimum"]``) and a ``note`` on whether ``hot_tier`` sells throughput with capacity
    (``density``: bytes/s per TiB, None when not)."""
    df["total_usd"] = df["lost_usd"] + df["storage_usd"]
    best = df["total_usd"].idxmin()
    df.attrs["optimum_bytes_per_s"] = float(best)
    df.attrs["optimum"] = {"storage_bytes_per_s": float(best), **df.loc[best].to_dict()}
    df.attrs["note"] = (f"{hot_tier} sells throughput with capacity ({density / 1e6:,.0f} MB/s "
                        "per TiB): faster storage costs more capacity" if density is not None
                        else f"{hot_tier} does not sell throughput with capacity: storage cost "
                        "does not depend on the bandwidth, so the fastest tried wins")


def _goodput_curve(n_params, n: int, rate: float, restart: float, bws, plan_options: dict):
    """``(b, goodput g, checkpoint bytes, interval τ)`` of the job's ``checkpoint_plan`` on
    storage of each bandwidth b of ``bws`` (a bandwidth so slow that checkpoints and restarts
    take all the time, or that leaves no goodput, is skipped). The
    curve depends on the job, its checkpoints and (``plan_options``' ``run_s``) the run's length,
    not on the price, so it is computed once per job (``lru_cache``; inputs that cannot be
    hashed, such as draws, are computed each time)."""
    key = (n_params, n, rate, restart, tuple(float(b) for b in bws),
           tuple(sorted(plan_options.items())))
    try:
        return _goodput_curve_cached(*key)
    except TypeError:  # unhashable (an array): no cache
        return _goodput_curve_of(*key)


def _goodput_curve_of(n_params, n, rate, restart, bws: tuple, options: tuple) -> tuple:
    """``_goodput_curve``'s rows. With ``run_s`` among the options, each row is the same job's
    plan for a run of that length (``checkpoint_plan(..., run_s=T)``), computed from the plans
    of the steady state (one per job, cached: every lever's run of another length reuses them)
    by the steps ``checkpoint_plan`` takes, vectorised over the bandwidths: the interval
    (``_plan_interval``, its own function), the stall at it (``checkpoint_stall_s``) and
    ``finite_run_breakdown``'s goodput."""
    opts = dict(options)
    run_s = opts.pop("run_s", None)
    key = (n_params, n, rate, restart, bws, tuple(sorted(opts.items())))
    try:
        plans = _steady_plans(*key)
    except TypeError:  # unhashable (an array): no cache
        plans = _steady_plans.__wrapped__(*key)
    if run_s is None:
        rows = [(b, float(pl.goodput), float(pl.size.total_bytes), float(pl.interval_s))
                for b, pl in plans]
        return tuple(r for r in rows if r[1] > 0)
    if not plans:
        return ()
    snap, write, m, r = (np.array([float(getattr(pl, f)) for _, pl in plans])
                         for f in ("snapshot_s", "write_s", "mtbf_s", "restart_s"))
    async_ = bool(opts.get("async_", False))
    tau = np.broadcast_to(_plan_interval(opts.get("interval_s"), run_s, write, snap, async_,
                                         opts.get("max_storage_duty", 1.0), m, r), write.shape)
    stall = np.asarray(checkpoint_stall_s(write, snap, async_, tau))
    # a bandwidth at which planned stops, a checkpoint and a restart each, take all the time
    # is skipped as a slower one is (a trial's 100,000-GPU sweep stopped on it)
    planned = float(opts.get("planned_per_day", 0.0))
    keep = _planned_fraction(planned, stall, r) < 1
    if not keep.any():
        return ()
    g = np.asarray(finite_run_breakdown(run_s, tau[keep], stall[keep], m[keep], r[keep],
                                        planned).productive)
    return tuple((b, float(gi), float(pl.size.total_bytes), float(ti))
                 for (b, pl), gi, ti in zip([x for x, k in zip(plans, keep) if k],
                                            np.atleast_1d(g), np.atleast_1d(tau[keep]))
                 if gi > 0)


@lru_cache(maxsize=1024)
def _steady_plans(n_params, n, rate, restart, bws: tuple, options: tuple) -> tuple:
    """``(b, checkpoint_plan)`` of the job on storage of each bandwidth b (steady state: no
    ``run_s``); a bandwidth so slow that checkpoints and restarts take all the time is
    skipped."""
    out = []
    for b in bws:
        try:
            out.append((b, checkpoint_plan(n_params, n, rate, b, restart, **dict(options))))
        except ValueError:
            continue
    return tuple(out)


_goodput_curve_cached = lru_cache(maxsize=1024)(_goodput_curve_of)


def _tradeoff_rows(curve, h: float, n: int, price: float, k: int, hot_p: float,
                   density) -> list:
    """``storage_tradeoff``'s rows ``(b, goodput g, lost GPU-hours, lost $, storage $)``, one per
    bandwidth b of the job's goodput ``curve`` (``_goodput_curve``): lost GPU-hours H·(1/g − 1)
    at ``price``; the hot tier holds the last k checkpoints as they accumulate, never below
    b ÷ ``density`` (bytes/s per TiB) where throughput is sold with capacity (``hot_average_gb``;
    k at most the checkpoints the run writes at that bandwidth's interval τ,
    ``checkpoints_in_run`` of its H/n hours of work, k = 0 all of them: a trial's k = 10⁹
    provisioned 10⁹ checkpoints, and "every checkpoint" was sized as one), for H / (g·n) hours
    at ``hot_p`` $
    per GB-month (a GB-month billed as 2^30 bytes, ``BILLED_GB``)."""
    rows = []
    work_s = h / n * SECONDS_PER_HOUR
    for b, g, size, tau in curve:
        lost_h = h * (1.0 / g - 1.0)
        months = h / g / n * SECONDS_PER_HOUR / SECONDS_PER_MONTH
        written = float(checkpoints_in_run(work_s, tau))
        held = written if k == 0 else min(k, written)
        floor = 0.0 if density is None else b / density * TIB / BILLED_GB
        gb = float(hot_average_gb(floor, held * size / BILLED_GB, held, written))
        rows.append((b, g, lost_h, lost_h * price, gb * months * hot_p))
    return rows


def sized_storage_bytes_per_s(n_params, n_gpus, fail_rate_per_gpu_year, restart_overhead_s,
                              ideal_gpu_hours, price_usd_per_gpu_hour, hot_tier="fsx-lustre-ssd",
                              keep_last=3, **plan_options) -> float:
    """The optimum of ``storage_tradeoff`` (same arguments): the aggregate checkpoint-storage
    bandwidth, bytes/s, that minimises storage cost + the cost of the GPU time lost to writes
    and restores. Draws (arrays) are sized at their median; the answer is cached per inputs."""
    point = {k: _point(v, k) if np.ndim(v) else v for k, v in plan_options.items()}
    return _sized(as_scalar(n_params, "n_params", positive=True), n_gpus,
                  _point(fail_rate_per_gpu_year, "fail_rate_per_gpu_year"),
                  _point(restart_overhead_s, "restart_overhead_s"),
                  _point(ideal_gpu_hours, "ideal_gpu_hours"),
                  _point(price_usd_per_gpu_hour, "price_usd_per_gpu_hour"), hot_tier, keep_last,
                  tuple(sorted(point.items())))


@lru_cache(maxsize=1024)
def _sized(n_params, n_gpus, rate, restart, hours, price, hot_tier, keep_last, options):
    """``storage_tradeoff(...).attrs["optimum_bytes_per_s"]`` from its rows, without the table
    (``optimum_of_rows``): the bill sizes its storage at every MFU and price it is built
    with (a hardware sweep, a lever ranking, a budget search: some seventy sizings a report),
    and the table's construction was half of each."""
    rows, _ = _tradeoff_of(n_params, n_gpus, rate, restart, hours, price, hot_tier, keep_last,
                           None, dict(options))
    return optimum_of_rows(rows)


def storage_duty_cycle(write_s, interval_s, stall_s=0.0):
    """Share of wall-clock time the storage system spends writing this job's checkpoints.

    One write of w seconds per checkpoint period τ + δ: duty = w / (τ + δ). The write must end
    before the next checkpoint starts (duty ≤ 1), or asynchronous checkpoints stall on the
    previous write (``checkpoint_stall_s``); below 1 the rest of the storage bandwidth is left
    to the data loader and to other jobs. The sustained write rate is size / (τ + δ).

    Returns
    -------
    float or ndarray in [0, ∞) (above 1 the writes overlap).
    """
    w = as_array(write_s, "write_s", nonnegative=True)
    t = as_array(interval_s, "interval_s", positive=True)
    d = as_array(stall_s, "stall_s", nonnegative=True)
    return scalar_or_array(w / (t + d))


def retention_policies(plan: CheckpointPlan, p: dict, run_days, n_params):
    """Storage cost of three retention policies for a scenario's checkpoint plan, in USD.

    Rows: the scenario's (last ``ckpt_keep_last`` hot + full milestones cold); last 3 hot +
    weights-only milestones cold; every checkpoint and milestone kept hot. Columns ``hot``,
    ``milestones`` and ``total``. Each is ``retention_storage_cost``: Σ bytes held × months ×
    price per GB-month, the hot tier provisioned for at least its bandwidth ÷ throughput per TiB
    (prices and throughput: ``data/storage_prices.csv``).
    """
    hot = storage_price(p["ckpt_hot_tier"])
    cold = storage_price(p["ckpt_cold_tier"])
    size = float(plan.size.total_bytes)
    common = dict(run_days=run_days, interval_s=plan.interval_s,
                  milestone_every_days=p["ckpt_milestone_every_days"],
                  retention_months=p["ckpt_retention_months"], hot_usd_per_gb_month=hot,
                  hot_bandwidth_bytes_per_s=plan.storage_bytes_per_s,
                  hot_bytes_per_s_per_tib=storage_throughput_per_tib(p["ckpt_hot_tier"]),
                  n_checkpoints=plan.n_checkpoints)
    weights = float(checkpoint_size(n_params, p["ckpt_recipe"], "weights").total_bytes)
    policies = {
        (f"scenario: last {p['ckpt_keep_last']} hot + full milestones cold"
         if p["ckpt_keep_last"] else "scenario: every checkpoint hot + full milestones cold"):
            retention_storage_cost(size, keep_last=p["ckpt_keep_last"],
                                   cold_usd_per_gb_month=cold, **common),
        "last 3 hot + weights-only milestones cold":
            retention_storage_cost(size, keep_last=3, cold_usd_per_gb_month=cold,
                                   milestone_bytes=weights, **common),
        "every checkpoint hot, milestones kept hot":
            retention_storage_cost(size, keep_last=0, cold_usd_per_gb_month=hot, **common)}
    return pd.DataFrame({k: v["usd"].values for k, v in policies.items()},
                        index=["hot", "milestones", "total"]).T


def spot_pays(price_usd_per_gpu_hour, goodput_, spot_usd_per_gpu_hour, spot_goodput):
    """Whether spot capacity is cheaper per unit of kept work than the alternative.

    Cost per kept GPU-hour = price ÷ goodput, so spot pays iff p_spot / g_spot < p / g (Daly's
    goodput for both, the spot one with the pre-emption rate added to the failure rate).
    """
    a = as_array(price_usd_per_gpu_hour, "price_usd_per_gpu_hour", positive=True)
    g = as_array(goodput_, "goodput", positive=True, upper=1.0)
    s = as_array(spot_usd_per_gpu_hour, "spot_usd_per_gpu_hour", positive=True)
    gs = as_array(spot_goodput, "spot_goodput", nonnegative=True, upper=1.0)
    with np.errstate(divide="ignore"):
        return scalar_or_array(s / gs < a / g)


def bulk_reclaim_events_per_day(n_nodes, node_reclaims_per_day, nodes_per_event=1):
    """Job interruptions per day when spot capacity is reclaimed k nodes at a time.

    A provider reclaims capacity in blocks (a rack, a placement group, a whole reservation), not
    node by node. With the same node-loss rate r per node-day, events of k nodes arrive at
    n·r / k per day: fewer interruptions than node-by-node reclaims (n·r), each one losing k
    nodes at once (k ≤ n; k = n: the whole job is reclaimed). A block reclaim also takes the
    peers' host memory with it, so in-memory checkpoints of the reclaimed nodes are lost and the
    restart falls back to durable storage (``peer_checkpoint_plan``'s ``fallback_share`` = 1).
    """
    n = as_array(n_nodes, "n_nodes", positive=True, integer=True)
    r = as_array(node_reclaims_per_day, "node_reclaims_per_day", nonnegative=True)
    k = as_array(nodes_per_event, "nodes_per_event", positive=True, integer=True)
    if np.any(k > n):
        raise ValueError(f"nodes_per_event={nodes_per_event!r} must be <= n_nodes={n_nodes!r}")
    return scalar_or_array(n * r / k)


@dataclass(frozen=True)
class PeerCheckpointPlan:
    """An in-memory checkpoint plan (``peer_checkpoint_plan``); times in seconds."""

    snapshot_s: float
    copy_s: float
    interval_s: float
    restart_memory_s: float
    restart_s: float
    mtbf_s: float
    breakdown: GoodputBreakdown

    @property
    def goodput(self) -> float:
        return float(self.breakdown.productive)


def peer_checkpoint_absent(n_gpus: int, gpus_per_node: int, job_mtbf_s: float,
                           planned_per_day: float) -> str:
    """Why peer checkpoints (Gemini, Wang et al. SOSP 2023: each machine's checkpoint copied
    into other machines' CPU memory, restored from there after a failure) do not apply to a
    job, in words; "" when they do. They need a second machine to hold the copy
    (``n_gpus > gpus_per_node``) and a stop to restore from it: a job with no unexpected
    failure (``job_mtbf_s`` infinite) and no planned interruption never restores one, and the
    fallback restart ``peer_checkpoint_plan`` prices for a copy lost with its machine would
    describe a failure that is not expected.

    Raises ValueError on a GPU count below 1, a node of fewer GPUs, a negative MTBF or rate."""
    n, per_node = as_count(n_gpus, "n_gpus"), as_count(gpus_per_node, "gpus_per_node")
    mtbf = float(job_mtbf_s) if isinstance(job_mtbf_s, (int, float, np.number)) \
        and not isinstance(job_mtbf_s, bool) else math.nan
    if not mtbf > 0:  # NaN too
        raise ValueError(f"job_mtbf_s={job_mtbf_s!r} must be > 0 seconds (inf: no failure "
                         "expected)")
    planned = as_scalar(planned_per_day, "planned_per_day", nonnegative=True)
    if n <= per_node:
        return (f"no peer machine for {fmt_gpus(n)} on one node (Gemini keeps copies in other "
                "machines' memory)")
    if math.isinf(mtbf) and planned == 0:
        return ("no failure or planned interruption is expected in this run, so no copy is "
                "ever restored from a peer")
    return ""


def peer_checkpoint_plan(per_rank_bytes, n_gpus, fail_rate_per_gpu_year, peer_bytes_per_s,
                         restart_overhead_s, d2h_bytes_per_s=50e9, peer_copies=1,
                         fallback_share=0.0, fallback_restart_s=0.0, planned_per_day=0.0,
                         interval_s=None, run_s=None) -> PeerCheckpointPlan:
    """Checkpoints held in host memory, the node's own and ``peer_copies`` peers' (Gemini).

    Gemini (Wang et al., SOSP 2023, "Fast Failure Recovery in Distributed Training with
    In-Memory Checkpoints") keeps checkpoints in the CPU memory of the local and of peer
    machines, falling back to persistent storage only when a node and all its peers fail
    together, and reports 13× faster recovery than from remote storage. Model:

    * blocking δ = per-rank bytes / d2h bandwidth (the snapshot to pinned host memory);
    * background copy c = peer_copies × per-rank bytes / peer bandwidth (over the scale-out
      network, per GPU, at full bandwidth: contention with the training traffic is ignored, as
      Gemini schedules the copies into its idle gaps); the copy must end before the next
      snapshot: τ ≥ c;
    * the newest checkpoint is safe only when its copy ends: R_mem = overhead + per-rank bytes /
      peer bandwidth (read back from a peer) + c (the durability lag, as ``checkpoint_plan``);
    * a share f of failures (correlated: a rack, a bulk spot reclaim) loses the peers too and
      restarts from durable storage: R = (1 − f)·R_mem + f·``fallback_restart_s`` (which should
      include the extra lost work of the older durable checkpoint); a planned stop, which
      takes a checkpoint on demand and loses nothing, restarts from memory, R_mem (assumed: a
      firmware upgrade that reboots its hosts would lose their memory's copies);
    * goodput is ``goodput_breakdown`` (Daly 2006) with δ, τ (default ``optimal_interval``,
      kept ≥ c) and R; given the run's work ``run_s``, that of a run of that length
      (``finite_run_breakdown``, τ from ``finite_run_interval``). Durable copies drained in the
      background are assumed not to block.

    Raises
    ------
    ValueError naming the field (negative bytes, bandwidths ≤ 0, fallback_share outside [0, 1]).
    """
    b = as_scalar(per_rank_bytes, "per_rank_bytes", nonnegative=True)
    n = int(as_scalar(n_gpus, "n_gpus", positive=True, integer=True))
    bw = as_scalar(peer_bytes_per_s, "peer_bytes_per_s", positive=True)
    o = as_scalar(restart_overhead_s, "restart_overhead_s", nonnegative=True)
    k = int(as_scalar(peer_copies, "peer_copies", positive=True, integer=True))
    f = as_scalar(fallback_share, "fallback_share", nonnegative=True, upper=1.0)
    fb = as_scalar(fallback_restart_s, "fallback_restart_s", nonnegative=True)
    snap = float(snapshot_time_s(b, d2h_bytes_per_s))
    copy = k * b / bw
    m = float(cluster_mtbf_s(n, fail_rate_per_gpu_year))
    r_mem = o + b / bw + copy
    r = (1.0 - f) * r_mem + f * fb
    work = None if run_s is None else as_scalar(run_s, "run_s", positive=True)
    if interval_s is None:
        tau = max(float(optimal_interval(max(snap, 1e-9), m)), copy)
        tau = min(tau, 365.25 * SECONDS_PER_DAY)
        if work is not None:
            tau = float(finite_run_interval(work, tau, snap, m, r, at_least_s=copy))
    else:
        tau = as_scalar(interval_s, "interval_s", positive=True)
    stall = snap + max(0.0, copy - tau)
    b = goodput_breakdown(tau, stall, m, r, planned_per_day, r_mem) if work is None else \
        finite_run_breakdown(work, tau, stall, m, r, planned_per_day, r_mem)
    return PeerCheckpointPlan(snap, copy, tau, r_mem, r, m, b)


def plan_breakdown(plan, restart_s, planned_per_day=0.0,
                   planned_restart_s=None) -> GoodputBreakdown:
    """A checkpoint plan's goodput breakdown with another restart time R after a failure
    (``planned_restart_s``: a planned stop's, default R): its run's (``finite_run_breakdown``)
    when the plan was made for a run of stated length (``plan.run_s``), else the steady state
    (``goodput_breakdown``, Daly 2006)."""
    if getattr(plan, "run_s", None) is None:
        return goodput_breakdown(plan.interval_s, plan.stall_s, plan.mtbf_s, restart_s,
                                 planned_per_day, planned_restart_s)
    return finite_run_breakdown(plan.run_s, plan.interval_s, plan.stall_s, plan.mtbf_s,
                                restart_s, planned_per_day, planned_restart_s)


def lost_time_words(breakdown: GoodputBreakdown) -> str:
    """Where the wall time a plan does not keep goes, as shares of it: restarts after failures,
    planned interruptions, lost work, checkpoint stalls (``GoodputBreakdown``'s parts ÷ (1 −
    productive)); a plan that loses none says so (a run without failures, planned stops or
    checkpoints: a trial's ``fail_rate_per_gpu_year: 0`` divided 0 by 0)."""
    if not isinstance(breakdown, GoodputBreakdown):
        raise ValueError(f"breakdown={breakdown!r:.60} must be a GoodputBreakdown "
                         "(CheckpointPlan.breakdown)")
    b = breakdown
    lost = 1.0 - float(b.productive)
    if lost <= 1e-12:
        return ("no wall time lost: no failure, planned interruption or checkpoint stall is "
                "expected in this run")
    return (f"of the {lost:.2%} of wall time lost: restarts after failures "
            f"{float(b.restart) / lost:.0%}, planned interruptions (each a checkpoint + a "
            f"restart) {float(b.planned) / lost:.0%}, lost work {float(b.lost_work) / lost:.0%}, "
            f"checkpoint stalls {float(b.checkpoint) / lost:.0%}")


def hot_spare_table(plan: CheckpointPlan, gpus_per_node, replace_s, spare_nodes=(0, 1, 2, 4),
                    hardware_share=0.766, planned_per_day=0.0):
    """Goodput and cost per kept GPU-hour with hot spare nodes standing by.

    Without a spare, a hardware failure waits ``replace_s`` for the scheduler to find and bring
    up a replacement node (part of the restart R); with one, that wait goes: R_spare = R −
    h·replace_s, h the share of failures that need a new node (Llama 3, arXiv:2407.21783, §3.3.4:
    the rows of Table 5 its caption counts as confirmed or suspected hardware issues, GPU, host
    and unplanned host maintenance, add up to 321 of the 419 unexpected interruptions, 76.6%;
    the caption's "About 78% of unexpected interruptions were attributed to confirmed or
    suspected hardware issues" counts more rows than these, e.g. the network switch and cable,
    324 of 419, or the 7 NCCL watchdog timeouts, 328).
    Spares are paid while idle, so the cost per kept
    GPU-hour is (n + s·gpn)/n ÷ goodput (relative to n GPUs at goodput 1). A pool of s spares
    covers the failures until repaired nodes return; that the pool never runs dry is assumed
    here.

    Returns
    -------
    DataFrame, one row per spare count: ``spare_gpus``, ``restart_s``, ``goodput``,
    ``cost_per_kept_gpu_hour`` (× the ideal), ``vs_no_spares`` (ratio to the first row).
    """
    gpn = int(as_scalar(gpus_per_node, "gpus_per_node", positive=True, integer=True))
    t = as_scalar(replace_s, "replace_s", nonnegative=True)
    h = as_scalar(hardware_share, "hardware_share", nonnegative=True, upper=1.0)
    if h * t > plan.restart_s:
        raise ValueError(f"replace_s={replace_s!r}: hardware_share × replace_s must not exceed "
                         f"the plan's restart time {plan.restart_s:.0f} s")
    n = plan.size.n_ranks
    rows = []
    for s in spare_nodes:
        s = int(as_scalar(s, "spare_nodes", nonnegative=True, integer=True))
        r = plan.restart_s - (h * t if s > 0 else 0.0)
        # a spare replaces a failed node; a planned stop replaces none: its restart is kept
        g = float(plan_breakdown(plan, r, planned_per_day, plan.restart_s).productive)
        # goodput 0 (interruptions outpace a checkpoint and a restart): no GPU-hour is kept,
        # so the cost per kept GPU-hour is infinite, not a division error
        rows.append({"spare_nodes": s, "spare_gpus": s * gpn, "restart_s": r, "goodput": g,
                     "cost_per_kept_gpu_hour": (n + s * gpn) / n / g if g > 0 else math.inf})
    df = pd.DataFrame(rows).set_index("spare_nodes")
    base = df["cost_per_kept_gpu_hour"].iloc[0]
    df["vs_no_spares"] = df["cost_per_kept_gpu_hour"] / base if math.isfinite(base) else math.nan
    return df


#: Seconds a restart waits for the scheduler to find and bring up a replacement node, the part a
#: hot spare removes. An assumption (half of the scenario default's 10-minute restart overhead):
#: no run publishes this split; notebook 07 labels it so.
NODE_REPLACEMENT_S_ASSUMED = 300.0
#: The same assumption as a share of any restart overhead (``node_replacement_s``): half of it.
NODE_REPLACEMENT_SHARE_ASSUMED = 0.5


def node_replacement_s(restart_overhead_s) -> float:
    """Seconds of a restart spent waiting for a replacement node, the part a hot spare removes:
    ``NODE_REPLACEMENT_SHARE_ASSUMED`` (half, an assumption: no run publishes the split) of the
    scenario's restart overhead (``ckpt_restart_s``), 300 s of the default 600 s
    (``NODE_REPLACEMENT_S_ASSUMED``). A fixed 300 s exceeded a 120 s restart, which
    ``hot_spare_table`` refuses (a trial's notebook 07 stopped on it)."""
    return NODE_REPLACEMENT_SHARE_ASSUMED * as_scalar(restart_overhead_s, "restart_overhead_s",
                                                      nonnegative=True)
#: Job initialisation (process groups, NCCL communicators) on 2,048 GPUs before and after
#: MegaScale's fixes, seconds. Jiang et al. 2024, MegaScale, arXiv:2402.15627v1 §3.5 "Collective
#: Communication Group Initialization" (read in a transcription of the paper's text): "the
#: initialization time for Megatron-LM on 2,048 NVIDIA Ampere GPUs is approximately 1047 seconds";
#: replacing TCPStore with Redis "reduces the initialization time to 361 seconds on 2,048 GPUs";
#: with fewer global barriers as well "The initialization time is reduced to under 5 seconds on
#: 2048 GPUs, and to under 30 seconds on more than 10,000 GPUs". "after" is that upper bound.
MEGASCALE_INIT_S = {"before": 1047.0, "after": 5.0}

#: Published restart (recovery) times at scale, seconds, by phase where the source gives one.
#: Status per row: MegaScale rows re-read in the paper's text (§3.5 and §6.3, quoted in the
#: notes); FlashRecovery and DeadPool from their arXiv abstracts (arxiv.org/abs/2509.03047,
#: arxiv.org/abs/2607.01646); the Kokolis row [secondary] (paper text not reachable here; a
#: translation of the paper and a quotation of it, "assuming Daly-Young optimal checkpointing
#: with 5 minute restart overhead", agree on 5 min).
RESTART_TIMES_PUBLISHED = [
    {"source": "Kokolis et al. 2024 (arXiv:2410.21680), secondary", "scale": "model assumption",
     "phase": "whole restart overhead", "seconds": 300.0,
     "note": "assumed 5 min per restart (u0; 5-20 min quoted as the range)"},
    {"source": "MegaScale (ByteDance, arXiv:2402.15627 §6.3)", "scale": "more than 10,000 GPUs",
     "phase": "catch up to the pre-crash step from the latest checkpoint", "seconds": 900.0,
     "note": "'within 15 minutes'; detecting the failure and running the diagnostic tests "
             "takes 'less than 10 minutes' on average (production run of several weeks)"},
    {"source": "MegaScale (arXiv:2402.15627 §3.5)", "scale": "2,048 GPUs",
     "phase": "job initialisation (process groups, NCCL)", "seconds": 1047.0,
     "note": "Megatron-LM before their fixes; 361 s with Redis for TCPStore, under 5 s with "
             "fewer global barriers too (under 30 s on more than 10,000 GPUs)"},
    {"source": "FlashRecovery (arXiv:2509.03047, abstract)", "scale": "4,800 devices",
     "phase": "whole restart", "seconds": 150.0,
     "note": "detection in seconds, scale-independent restart, no checkpoint reload"},
    {"source": "DeadPool (arXiv:2607.01646, abstract)", "scale": "up to 512 A100",
     "phase": "hot-swap a failed node", "seconds": 40.0,
     "note": "'under 40 seconds': spare node + in-memory checkpoint, no job restart"},
]


def restart_times_published():
    """``RESTART_TIMES_PUBLISHED`` as a DataFrame (source, scale, phase, seconds, note)."""
    return pd.DataFrame(RESTART_TIMES_PUBLISHED)


def restart_phases_s(scheduler_s, init_s, load_s, warmup_s=0.0):
    """Restart time by phase: R = scheduler (detect the fault, drain and replace the node,
    relaunch) + initialisation (process groups, NCCL communicators, compile) + checkpoint
    load (``restart_time_s``'s read + re-shard) + warm-up (data loader, first steps).

    Returns
    -------
    dict phase -> seconds, with ``total``. Sources for the phases at scale:
    ``RESTART_TIMES_PUBLISHED``.
    """
    parts = {"scheduler: detect, replace node, relaunch": scheduler_s,
             "initialisation: process groups, NCCL": init_s, "checkpoint load": load_s,
             "warm-up: data loader, first steps": warmup_s}
    out = {k: as_scalar(v, k.split(":")[0] + "_s", nonnegative=True)
           for k, v in parts.items()}
    out["total"] = sum(out.values())
    return out


def tier_bandwidth_bytes_per_s(tier: str, provisioned_bytes):
    """Throughput of a parallel-file-system tier sized for ``provisioned_bytes`` of capacity.

    Such tiers sell throughput with capacity: B = provisioned capacity in TiB × throughput per
    TiB (``data/storage_prices.csv``; FSx for Lustre PERSISTENT-125: 125 MB/s per TiB). A tier
    sized only to hold k checkpoints of S bytes writes one in S / B = TiB / (k × throughput per
    TiB), whatever the model size: 2,932 s for k = 3 at 125 MB/s per TiB.

    Raises
    ------
    ValueError if the tier does not sell throughput per TiB (object storage) or the bytes ≤ 0.
    """
    dens = storage_throughput_per_tib(tier)
    if dens is None:
        raise ValueError(f"tier={tier!r} does not sell throughput per TiB (object storage): its "
                         "bandwidth is not set by capacity")
    b = as_array(provisioned_bytes, "provisioned_bytes", positive=True)
    return scalar_or_array(b / TIB * dens)


def _interval_label(plan) -> str:
    """A plan's interval and the checkpoints its run takes: "5 min, 629 checkpoints" (rows past
    the run's end take none and price alike: a review read three equal rows)."""
    n = plan.n_checkpoints
    return fmt_duration(float(plan.interval_s)) + (
        "" if n is None else f", {int(n):,} checkpoint{'s' if int(n) != 1 else ''}")


def interval_sensitivity(p: dict, n_params, gpus_per_node, ideal_gpu_hours,
                         price_usd_per_gpu_hour, multiples=(1, 4, 16)):
    """Goodput and cost of checkpointing k times less often than the optimum (notebook 07 §8).

    For each k: τ = k·τ*, τ* the optimum whatever the scenario sets (its own
    ``ckpt_interval_s``, when set, a row of its own), goodput g_k of the run's length
    (``scenario_checkpoint_plan`` with ``run_s``: ``finite_run_breakdown``, Daly 2006's
    segments), paid GPU-hours = ideal / g_k and the extra cost (ideal/g_k − ideal/g_1) × price.
    """
    h = as_scalar(ideal_gpu_hours, "ideal_gpu_hours", positive=True)
    price = as_scalar(price_usd_per_gpu_hour, "price_usd_per_gpu_hour", positive=True)
    work = run_work_s(h, p["n_gpus"])
    base = scenario_checkpoint_plan(p, n_params, gpus_per_node, run_s=work, interval_s=None)
    rows = []
    for k in multiples:
        k = as_scalar(k, "multiples", positive=True)
        pl = scenario_checkpoint_plan(p, n_params, gpus_per_node, interval_s=k * base.interval_s,
                                      run_s=work)
        rows.append((f"{k:g}x optimum ({_interval_label(pl)})", pl))
    if p.get("ckpt_interval_s"):  # the scenario's own interval beside them (a trial read it as
        pl = scenario_checkpoint_plan(p, n_params, gpus_per_node, run_s=work)  # "1x optimum")
        rows.append((f"the scenario's ({_interval_label(pl)})", pl))
    return pd.DataFrame([{"interval": name, "goodput": pl.goodput,
                          "paid GPU-hours": h / pl.goodput,
                          "extra cost vs optimum": (h / pl.goodput - h / base.goodput) * price}
                         for name, pl in rows])


def long_context_extra_share(model, short_seq_len, long_seq_len, short_mfu, long_mfu,
                             long_tokens, total_tokens):
    """Upper bound on the extra GPU-time of a long-context stage, as a share of an all-short run.

    A token at length s costs F(s)/MFU(s) GPU-seconds per peak FLOP/s, F = model FLOPs per token
    (``compute.model_flops_per_token``: attention-inclusive, the workbook's MFU basis). If
    ``long_tokens`` of ``total_tokens`` ran at the long length, the run needs
        extra = (long_tokens / total_tokens) × (c − 1),   c = [F(s_L)/MFU_L] / [F(s_S)/MFU_S]
    more GPU-time than if all were short: an upper bound when the long stage ramps up in steps
    (Llama 3 §3.4.2: six stages from 8K to 128K over about 800B tokens, lengths unpublished).

    Returns
    -------
    dict with ``ratio_short`` and ``ratio_long`` (F / 6N at each length), ``cost_ratio`` (c) and
    ``extra_share``.
    """
    ms = as_scalar(short_mfu, "short_mfu", positive=True, upper=1.0)
    ml = as_scalar(long_mfu, "long_mfu", positive=True, upper=1.0)
    lt = as_scalar(long_tokens, "long_tokens", nonnegative=True)
    tt = as_scalar(total_tokens, "total_tokens", positive=True)
    if lt > tt:
        raise ValueError(f"long_tokens={long_tokens!r} must be <= total_tokens={total_tokens!r}")
    six_n = 6 * model.n_active_params
    rs = float(model_flops_per_token(model, short_seq_len)) / six_n
    rl = float(model_flops_per_token(model, long_seq_len)) / six_n
    c = (rl / ml) / (rs / ms)
    return {"ratio_short": rs, "ratio_long": rl, "cost_ratio": c, "extra_share": lt / tt * (c - 1)}
