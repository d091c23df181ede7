"""An efficiency profile: the ``Efficiency`` fields measured on one's own GPU, in a YAML file the
engine reads back.

``llmcost calibrate --microbench --out profile.yaml`` writes one (``write_efficiency_profile``,
from ``calibrate.microbench_profile``); a scenario names it with the key ``efficiency_profile``
and the step-time model (``step_scenario.scenario_options``, hence ``mfu: predict``) prices the
scenario's step with it (``load_efficiency_profile``). The file holds::

    kind: llmcost efficiency profile
    accelerator: H100-SXM          # the catalogue row the fractions are of
    device: NVIDIA H100 80GB HBM3  # what PyTorch called the GPU
    date: 2026-12-02T07:30:00Z
    torch: 2.5.1+cu124
    matmul_fraction: {bf16: 0.79, fp8: 0.66}   # max GEMM FLOP/s ÷ that dtype's dense peak
    attention_fraction: 0.52       # causal fwd+bwd FLOP/s ÷ dense BF16 peak
    hbm_fraction: 0.91             # copy bytes read + written per s ÷ datasheet HBM bandwidth
    scaleup_fraction: 0.82         # (under torchrun) all-reduce busbw ÷ NVLink per direction
    timings: {...}                 # the raw timings the fractions come from

The fields not in the file keep the accelerator's catalogue values (``data/efficiency.csv``):
a profile measured on one GPU says nothing about the scale-out network.
"""

from __future__ import annotations

import difflib
import math
from pathlib import Path

import yaml

from ..core.catalog import load_accelerator
from ..core.hardware import Efficiency
from .options import StepOptions

#: The ``kind`` line that marks a file as an efficiency profile.
PROFILE_KIND = "llmcost efficiency profile"
#: The ``Efficiency`` fields a profile may set; ``matmul_fraction`` per GEMM dtype.
PROFILE_FRACTIONS = ("attention_fraction", "hbm_fraction", "scaleup_fraction")
PROFILE_DTYPES = ("bf16", "fp8")
#: Every key a profile may hold (``calibrate.microbench_profile`` writes them): the fractions,
#: then what records where they came from. Any other key is refused (``check_profile``): a
#: misspelt fraction (a trial's ``hbm_fractoin: 0.01``) was silently ignored, as a scenario's
#: misspelt key is not.
PROFILE_KEYS = ("kind", "accelerator", "device", "date", "torch", "matmul_fraction",
                *PROFILE_FRACTIONS, "not_measured", "source", "catalogue_row", "timings",
                "warnings")


def _fraction(where: str, v) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) \
            or not 0 < v <= 1:
        raise ValueError(f"{where}={v!r} must be a fraction in (0, 1]")
    return float(v)


def write_efficiency_profile(path, profile: dict, overwrite: bool = False) -> Path:
    """Write ``profile`` (``calibrate.microbench_profile``) to ``path`` as YAML, after checking
    it reads back (``check_profile``). An existing file is refused unless ``overwrite``.

    Raises
    ------
    ValueError
        ``path`` exists and ``overwrite`` is false, or the profile is malformed.
    """
    if not isinstance(path, (str, Path)) or not str(path):
        raise ValueError(f"path={path!r} must be a file path")
    p = Path(path)
    if p.exists() and not overwrite:
        raise ValueError(f"path={str(p)!r} exists: give another path, or overwrite it "
                         "(overwrite=True, --overwrite)")
    check_profile(profile, str(p))
    p.write_text(yaml.safe_dump(profile, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return p


def check_profile(profile, where: str = "efficiency_profile") -> dict:
    """``profile`` if it is a well-formed profile (``kind``, a catalogue ``accelerator``,
    ``matmul_fraction`` a mapping of ``bf16`` / ``fp8`` to fractions in (0, 1], the other
    fractions in (0, 1] where given); a ValueError naming ``where`` and the field otherwise."""
    if not isinstance(profile, dict):
        raise ValueError(f"{where}: an efficiency profile must be a YAML mapping, not "
                         f"{type(profile).__name__}")
    if profile.get("kind") != PROFILE_KIND:
        raise ValueError(f"{where}: kind={profile.get('kind')!r} must be {PROFILE_KIND!r} (a file "
                         "written by `llmcost calibrate --microbench --out`)")
    unknown = [k for k in profile if k not in PROFILE_KEYS]
    if unknown:
        near = {k: difflib.get_close_matches(str(k), PROFILE_KEYS, n=1) for k in unknown}
        raise ValueError(f"{where}: unknown key(s) {unknown}"
                         + "".join(f"; {k!r}: did you mean {m[0]!r}?" for k, m in near.items() if m)
                         + f" (a profile's keys: {', '.join(PROFILE_KEYS)})")
    acc = profile.get("accelerator")
    if not isinstance(acc, str):
        raise ValueError(f"{where}: accelerator={acc!r} must be a catalogue accelerator name")
    load_accelerator(acc)
    mm = profile.get("matmul_fraction")
    if not isinstance(mm, dict) or not mm:
        raise ValueError(f"{where}: matmul_fraction={mm!r} must map a GEMM dtype "
                         f"({', '.join(PROFILE_DTYPES)}) to a fraction")
    for k, v in mm.items():
        if k not in PROFILE_DTYPES:
            raise ValueError(f"{where}: matmul_fraction has dtype {k!r}, not one of "
                             f"{PROFILE_DTYPES}")
        _fraction(f"{where}: matmul_fraction.{k}", v)
    for f in PROFILE_FRACTIONS:
        if profile.get(f) is not None:
            _fraction(f"{where}: {f}", profile[f])
    return profile


def attention_shape(profile: dict) -> tuple | None:
    """``(seq_len, head_dim)`` of the attention timing a profile's ``attention_fraction`` was
    taken from: the fastest of its ``timings.attention`` rows ``[batch, heads, seq_len,
    head_dim, seconds]`` (``calibrate.efficiency_from_microbench`` keeps the fastest), by causal
    FLOPs per second, ∝ batch · heads · seq_len · head_dim · (seq_len + 1) ÷ seconds
    (``calibrate.attention_flops``, whose other factors are the same for every row); None
    when the profile holds no such timing (a fraction written by hand, of no one shape)."""
    rows = (profile.get("timings") or {}).get("attention") if isinstance(
        profile.get("timings"), dict) else None
    good = [r for r in rows or () if isinstance(r, (list, tuple)) and len(r) == 5
            and all(isinstance(x, (int, float)) and not isinstance(x, bool) and x > 0
                    for x in r)]
    if not good:
        return None
    b, h, s, d, t = max(good, key=lambda r: r[0] * r[1] * r[2] * r[3] * (r[2] + 1) / r[4])
    return int(s), int(d)


def load_efficiency_profile(path, accelerator: str | None = None,
                            dtype: str = "bf16") -> Efficiency:
    """The ``Efficiency`` an efficiency profile file describes: the catalogue's row of the
    profile's accelerator (``StepOptions().resolve(accelerator).efficiency``) with the measured
    fractions in place: ``matmul_fraction`` of ``dtype`` (the run's GEMM dtype: a BF16 fraction
    is of the BF16 peak and says nothing of FP8, so a profile without ``dtype`` keeps the
    catalogue's, and the source says so), ``attention_fraction``, ``hbm_fraction`` and
    ``scaleup_fraction`` where measured.

    Raises
    ------
    ValueError
        A missing or unreadable file, a malformed profile (``check_profile``), or an
        ``accelerator`` other than the profile's (its fractions are of another datasheet).
    """
    if not isinstance(path, (str, Path)) or not str(path):
        raise ValueError(f"efficiency_profile={path!r} must be the path of a profile YAML file")
    if dtype not in PROFILE_DTYPES:
        raise ValueError(f"dtype={dtype!r} must be one of {PROFILE_DTYPES}")
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"efficiency_profile={str(p)!r}: no such file (write one with `llmcost "
                         "calibrate --microbench --out PATH`)")
    try:
        profile = yaml.safe_load(p.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as e:
        raise ValueError(f"efficiency_profile={str(p)!r} is not readable YAML: "
                         f"{str(e).splitlines()[0]}") from None
    where = f"efficiency_profile={str(p)!r}"
    check_profile(profile, where)
    acc = profile["accelerator"]
    if accelerator is not None and load_accelerator(accelerator).name != \
            load_accelerator(acc).name:
        raise ValueError(f"{where} was measured as accelerator={acc!r}, not {accelerator!r}: its "
                         "fractions are of another datasheet")
    base = StepOptions().resolve(acc).efficiency
    new = {f: float(profile[f]) for f in PROFILE_FRACTIONS if profile.get(f) is not None}
    if "attention_fraction" in new:
        new["attention_shape"] = attention_shape(profile)
    measured = profile["matmul_fraction"]
    if dtype in measured:
        new["matmul_fraction"] = float(measured[dtype])
        mm = f"matmul {dtype}"
    else:
        mm = f"no {dtype} GEMM in the profile: matmul_fraction is the catalogue's"
    said = ", ".join([mm, *sorted(k.replace("_fraction", "") for k in new
                                  if k != "matmul_fraction")])
    return base.replace(**new, source=f"efficiency profile {p.name} ({profile.get('device', '?')}"
                        f", {profile.get('date', '?')}, torch {profile.get('torch', '?')}): "
                        f"{said}; other fields from {acc}'s catalogue row")
