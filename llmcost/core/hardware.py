"""Accelerators and clusters: the hardware side of every estimate.

``Accelerator`` holds one device's datasheet figures (dense peak FLOP/s per dtype, HBM capacity and
bandwidth, scale-up and scale-out bandwidth per direction, TDP); ``Cluster`` is a number of them
with a scale-up domain (NVLink/NVSwitch island, TPU ICI slice) and a scale-out network.

Peak FLOP/s are always **dense** (NVIDIA datasheets print 2:4-sparse figures, twice the dense
ones, next to them). Bandwidths are per accelerator and per direction.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from .units import as_array, as_count, as_scalar, as_text

DTYPES = ("fp32", "tf32", "bf16", "fp8", "fp4")


class DoesNotFit(ValueError):
    """A model, batch or plan that does not fit the hardware: weights, KV cache or model states
    above the usable HBM, or no set-up (tensor-parallel size, weight precision) that serves the
    model at all. Raised where the check finds it (``inference.max_batch``,
    ``inference.choose_serving_tp``, ``setups.ep_step``, ``calibrate.check_pilot`` …); a
    caller that skips such a case (a table row saying why) catches this type, never the text
    of the message, which names the field, the figures and the rule as any ValueError does."""


class BatchDoesNotFit(DoesNotFit):
    """A batch past the KV-cache capacity left beside the weights (the weights themselves fit):
    the case a table over batch sizes keeps as a row that says why."""


@dataclass(frozen=True)
class Accelerator:
    """One accelerator's datasheet figures (SI units, dense peaks, per direction).

    Parameters
    ----------
    name : str
        Catalogue name, e.g. ``"H100-SXM"``.
    peak_bf16_flops_per_s : float
        Dense BF16 tensor-core peak, FLOP/s. Required.
    peak_fp32_flops_per_s, peak_tf32_flops_per_s, peak_fp8_flops_per_s, peak_fp4_flops_per_s : float or None
        Dense peaks for the other formats (None where the device has none or it is unpublished).
    hbm_bytes, hbm_bytes_per_s : float or None
        HBM capacity (bytes) and bandwidth (bytes/s).
    scaleup_bytes_per_s_per_dir : float or None
        NVLink / Infinity Fabric / ICI bandwidth per accelerator per direction, bytes/s: all
        of its links (on a full-mesh board, MI300X or Gaudi 3, a group of k of its GPUs gets
        only its members' k − 1 links: ``comm.mesh_scaleup_bandwidth``).
    scaleup_domain_size : int or None
        Accelerators in one scale-up domain (8 on an HGX board).
    scaleout_bytes_per_s_per_dir : float or None
        NIC bandwidth per accelerator per direction (InfiniBand / RoCE), bytes/s.
    tdp_w : float or None
        Thermal design power, watts.
    accelerators_per_host : int or None
        Accelerators one host (a server, an NVL72 compute tray, a TPU VM) holds, its NICs and
        storage link shared by them; None: the scale-up domain up to 8 (an HGX board's 8 GPUs,
        ``per_host``).

    Raises
    ------
    ValueError
        If a figure is not positive.
    """

    name: str
    peak_bf16_flops_per_s: float
    peak_fp32_flops_per_s: float | None = None
    peak_tf32_flops_per_s: float | None = None
    peak_fp8_flops_per_s: float | None = None
    peak_fp4_flops_per_s: float | None = None
    hbm_bytes: float | None = None
    hbm_bytes_per_s: float | None = None
    scaleup_bytes_per_s_per_dir: float | None = None
    scaleup_domain_size: int | None = None
    scaleout_bytes_per_s_per_dir: float | None = None
    tdp_w: float | None = None
    vendor: str = ""
    year: int | None = None
    accelerators_per_host: int | None = None
    source: str = field(default="", compare=False)
    notes: str = field(default="", compare=False)

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name={self.name!r} must be a non-empty string")
        for f in ("peak_bf16_flops_per_s", "peak_fp32_flops_per_s", "peak_tf32_flops_per_s",
                  "peak_fp8_flops_per_s", "peak_fp4_flops_per_s", "hbm_bytes", "hbm_bytes_per_s",
                  "scaleup_bytes_per_s_per_dir", "scaleup_domain_size",
                  "scaleout_bytes_per_s_per_dir", "tdp_w"):
            v = getattr(self, f)
            if v is None and f != "peak_bf16_flops_per_s":
                continue
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v < float("inf"):
                raise ValueError(f"{self.name}: {f}={v!r} must be a finite positive number")
        if self.scaleup_domain_size is not None and int(self.scaleup_domain_size) != \
                self.scaleup_domain_size:
            raise ValueError(f"{self.name}: scaleup_domain_size={self.scaleup_domain_size} must be"
                             " a whole number")
        if self.scaleup_domain_size is not None:
            as_count(self.scaleup_domain_size, f"{self.name}: scaleup_domain_size")
        for f in ("vendor", "source", "notes"):
            as_text(getattr(self, f), f)
        if self.year is not None:
            as_array(self.year, "year", positive=True, integer=True)
        if self.accelerators_per_host is not None:
            as_count(self.accelerators_per_host, f"{self.name}: accelerators_per_host")

    @property
    def per_host(self) -> int:
        """Accelerators per host: ``accelerators_per_host`` (4 on a TPU v5p VM or an NVL72
        compute tray), else the scale-up domain up to 8 (an HGX board)."""
        if self.accelerators_per_host is not None:
            return int(self.accelerators_per_host)
        return int(min(self.scaleup_domain_size or 8, 8))

    def peak_flops_per_s(self, dtype: str = "bf16") -> float:
        """Dense peak FLOP/s for a compute format.

        Raises
        ------
        ValueError
            If ``dtype`` is unknown, or the catalogue has no peak for it on this device (e.g. FP8
            on A100, which has no FP8 tensor cores).
        """
        if dtype not in DTYPES:
            raise ValueError(f"dtype={dtype!r} must be one of {DTYPES}")
        v = getattr(self, f"peak_{dtype}_flops_per_s")
        if v is None:
            raise ValueError(f"dtype={dtype!r}: {self.name} has no {dtype} peak in the catalogue "
                             "(the device lacks that format or no datasheet figure was found)")
        return float(v)

    def ridge_point(self, dtype: str = "bf16") -> float:
        """Roofline ridge point, FLOP per byte of HBM traffic: peak FLOP/s ÷ HBM bytes/s.

        A kernel whose arithmetic intensity is below this is memory-bound (Williams, Waterman,
        Patterson 2009, "Roofline", CACM 52(4)).
        """
        if not self.hbm_bytes_per_s:
            raise ValueError(f"{self.name} has no HBM bandwidth in the catalogue")
        return self.peak_flops_per_s(dtype) / self.hbm_bytes_per_s

    def replace(self, **changes) -> "Accelerator":
        return replace(self, **changes)


def within_one_domain(n_gpus: int, scaleup_domain_size) -> bool:
    """True when a job of ``n_gpus`` fits in one scale-up domain of ``scaleup_domain_size``
    accelerators (None: unknown, False): no byte of its step crosses a NIC, so it needs no
    scale-out bandwidth (``Cluster``, ``catalog.scenario_cluster``, ``report``'s checks)."""
    return scaleup_domain_size is not None and int(n_gpus) <= int(scaleup_domain_size)


@dataclass(frozen=True)
class Cluster:
    """A training cluster: ``n_gpus`` accelerators in scale-up domains joined by a network.

    Parameters
    ----------
    accelerator : Accelerator
        A device: ``llmcost.load_accelerator("H100-SXM")`` turns a catalogue name into one
        (``Cluster(load_accelerator("H100-SXM"), 8)``).
    n_gpus : int
        Accelerators in the job.
    scaleup_domain_size : int, optional
        Accelerators per scale-up domain (default: the accelerator's, e.g. 8 for HGX H100).
    scaleup_bytes_per_s_per_dir, scaleout_bytes_per_s_per_dir : float, optional
        Override the accelerator's per-direction bandwidths (bytes/s): the scale-up figure is
        the whole board's, all of a GPU's links (on a full-mesh accelerator, MI300X or Gaudi 3,
        a group of k GPUs gets (k − 1)/peers of it, ``comm.mesh_scaleup_bandwidth``).
    scaleout_latency_s : float, optional
        Per-step latency of a ring step across scale-up domains, seconds; overrides the
        ``scaleout_latency_s`` of the accelerator's ``data/efficiency.csv`` row in the step-time
        model (for an accelerator whose network is not in the catalogue).

    Raises
    ------
    ValueError
        If a count or bandwidth is not positive, or a figure is missing from both the arguments
        and the accelerator. A job within one scale-up domain (``n_gpus`` <=
        ``scaleup_domain_size``) needs no scale-out bandwidth (it stays None: no byte of the
        step crosses a NIC, ``comm`` prices none), so a single-server job on an accelerator
        without a sourced NIC figure (L40S) can be priced.
    """

    accelerator: Accelerator
    n_gpus: int
    scaleup_domain_size: int | None = None
    scaleup_bytes_per_s_per_dir: float | None = None
    scaleout_bytes_per_s_per_dir: float | None = None
    scaleout_latency_s: float | None = None

    def __post_init__(self):
        acc = self.accelerator
        if isinstance(acc, str):
            raise ValueError(f"accelerator={acc!r} must be an Accelerator: a catalogue name "
                             f"becomes one with llmcost.load_accelerator({acc!r}) "
                             "(llmcost.list_accelerators() lists the names)")
        if not isinstance(acc, Accelerator):
            raise ValueError(f"accelerator={acc!r} must be an Accelerator "
                             "(llmcost.load_accelerator(name); llmcost.list_accelerators())")
        # any whole number, numpy's floats included (an API trial: 8.0 was accepted,
        # np.float32(8) refused): as_count's rule, the name and the value said
        object.__setattr__(self, "n_gpus", as_count(self.n_gpus, "n_gpus"))
        for f in ("scaleup_domain_size", "scaleup_bytes_per_s_per_dir",
                  "scaleout_bytes_per_s_per_dir"):
            v = getattr(self, f)
            if v is None:
                v = getattr(acc, f)
                object.__setattr__(self, f, v)
            if f == "scaleup_domain_size" and isinstance(v, int) and not isinstance(v, bool):
                as_count(v, f)  # a Python int beyond a double: refused before numpy sees it
            if v is None and f == "scaleout_bytes_per_s_per_dir" and \
                    within_one_domain(self.n_gpus, self.scaleup_domain_size):
                continue  # no byte crosses a NIC (comm prices none)
            if v is None:
                raise ValueError(f"{f}: {acc.name} has no value in the catalogue; pass it "
                                 "explicitly")
            if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) \
                    or not np.isfinite(v) or not v > 0:
                raise ValueError(f"{f}={v!r} must be a finite number > 0")
            if f == "scaleup_domain_size" and float(v) != int(v):
                raise ValueError(f"{f}={v!r} must be a whole number of accelerators")
        lat = self.scaleout_latency_s
        if lat is not None and (isinstance(lat, bool) or not isinstance(
                lat, (int, float, np.integer, np.floating)) or not 0 <= lat < float("inf")):
            raise ValueError(f"scaleout_latency_s={lat!r} must be a finite number >= 0")

    @property
    def peak_flops_per_s(self) -> float:
        """Cluster dense BF16 peak, FLOP/s."""
        return self.n_gpus * self.accelerator.peak_bf16_flops_per_s


def as_cluster(cluster, name: str = "cluster") -> Cluster:
    """``cluster`` if it is a ``Cluster``; a ValueError naming ``name`` otherwise (for the public
    entry points that take one)."""
    if not isinstance(cluster, Cluster):
        raise ValueError(f"{name}={cluster!r} must be a Cluster, e.g. "
                         "llmcost.Cluster(llmcost.load_accelerator('H100-SXM'), "
                         "64)")
    return cluster


@dataclass(frozen=True)
class Efficiency:
    """Achievable fractions of an accelerator's datasheet figures: the step-time model's constants.

    One row per accelerator in ``data/efficiency.csv`` (``catalog.load_efficiency``), each figure
    with its source (measured GEMM, attention-kernel and NCCL figures; see the CSV's ``source``
    column). They are global constants of the device and its communication library, never fitted
    to a training run; some choices between published figures were made with the validation
    rows' errors in view, each said in its row's notes (GB200-NVL72 keeps B200's matmul fraction
    rather than GB200's own published 0.729, not adopted after the held-out GB200 rows were
    seen; ``data/flash_attention.csv``'s H100 FlashAttention-1 stand-in, added after the held-out
    llm-foundry rows were seen).

    Parameters
    ----------
    accelerator : str
        Catalogue name (``"default"`` for the generic row).
    matmul_fraction : float in (0, 1]
        Largest achievable dense-GEMM throughput ÷ dense peak (the "maximum achievable matmul
        FLOPS"). Applied to every compute-bound GEMM; a GEMM whose arithmetic intensity is below
        the roofline ridge runs at the HBM bound instead (``llmcost.step``).
    attention_fraction : float in (0, 1]
        Throughput of a fused (FlashAttention) attention kernel, forward and backward, ÷ peak.
    hbm_fraction : float in (0, 1]
        Achieved ÷ datasheet HBM bandwidth for large memory-bound kernels.
    scaleup_fraction, scaleout_fraction : float in (0, 1]
        Achieved bus bandwidth ÷ per-direction link bandwidth (nccl-tests ``busbw``) inside the
        scale-up domain (NVLink) and across it (one NIC per GPU).
    base_latency_s, scaleup_latency_s, scaleout_latency_s : float >= 0
        Collective start-up latency and per-step latency (α) of a ring step inside and across
        scale-up domains.
    ll_base_latency_s, ll_step_latency_s : float >= 0
        Small-message all-reduce inside the scale-up domain with NCCL's low-latency (LL)
        protocol: start-up latency and per-ring-step latency on NVLink (NCCL's ``baseLat`` and
        ``hwLat`` for Ring/LL); its bandwidth is a quarter of the bus bandwidth (NCCL
        tuning.cc). Used by the serving model's TP all-reduces (``llmcost.inference``).
    attention_shape : (seq_len, head_dim) or None
        Where ``attention_fraction`` was measured at one shape, a causal forward + backward of
        that length and head dimension (an efficiency profile's microbenchmark,
        ``efficiency_profile.load_efficiency_profile``): a measured attention curve is then
        scaled to pass through it there (``StepOptions._attention_scale``). None for a
        catalogue row's fraction, a kernel's rate across lengths.
    source, notes : str

    Raises
    ------
    ValueError
        A fraction outside (0, 1], a negative latency, or an ``attention_shape`` that is not
        two whole numbers >= 1.
    """

    accelerator: str
    matmul_fraction: float
    attention_fraction: float
    hbm_fraction: float
    scaleup_fraction: float
    scaleout_fraction: float
    base_latency_s: float = 0.0
    scaleup_latency_s: float = 0.0
    scaleout_latency_s: float = 0.0
    ll_base_latency_s: float = 0.0
    ll_step_latency_s: float = 0.0
    attention_shape: tuple | None = None
    source: str = field(default="", compare=False)
    notes: str = field(default="", compare=False)

    def __post_init__(self):
        for f in ("matmul_fraction", "attention_fraction", "hbm_fraction", "scaleup_fraction",
                  "scaleout_fraction"):
            v = getattr(self, f)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v <= 1:
                raise ValueError(f"{self.accelerator}: {f}={v!r} must be in (0, 1]")
        for f in ("base_latency_s", "scaleup_latency_s", "scaleout_latency_s",
                  "ll_base_latency_s", "ll_step_latency_s"):
            v = getattr(self, f)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v < float("inf"):
                raise ValueError(f"{self.accelerator}: {f}={v!r} must be a finite number >= 0")
        for f in ("accelerator", "source", "notes"):
            as_text(getattr(self, f), f)
        shape = self.attention_shape
        if shape is not None and not (isinstance(shape, tuple) and len(shape) == 2 and all(
                isinstance(x, int) and not isinstance(x, bool) and x >= 1 for x in shape)):
            raise ValueError(f"{self.accelerator}: attention_shape={shape!r} must be None or "
                             "(seq_len, head_dim), two whole numbers >= 1")

    def replace(self, **changes) -> "Efficiency":
        """A copy with some figures changed (validated again), e.g. to model FlashAttention-3.
        A new ``attention_fraction`` is no longer the measurement at ``attention_shape``: the
        shape is dropped unless given too (a pilot's correction of a profile's measurement keeps
        it: ``calibrate.scaled_efficiency``)."""
        if "attention_fraction" in changes and "attention_shape" not in changes:
            changes = {**changes, "attention_shape": None}
        return replace(self, **changes)
