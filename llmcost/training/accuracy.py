"""How far to trust a predicted MFU: an error band from the held-out validation sets.

The step-time model (``llmcost.step``) is checked against published runs
(``step.mfu_validation``: ``data/validation_mfu.csv`` joined to ``data/published_runs.csv``).
Every prediction gets a band from the held-out rows of its **regime**:

* hardware generation (``stacks.GENERATIONS``: A100 / H100 class),
* parallelism kind (``step.parallelism_kind``: Megatron-style TP/PP/DP, context parallel, ZeRO-3,
  MoE; an MoE plan is "moe" whatever its ZeRO stage, since its all-to-all dominates the error:
  H100 MoE holds DeepSeek-V3's pre-training at −4% and NeMo AutoModel's FSDP2 MoE benchmarks,
  whose fake balanced gate the model does not price, at −20% to −38%),
* scale: the plan's GPU count within a factor ``SCALE_FACTOR`` of the regime's published runs.

**Held-out** means *not used to fit* ``step.KERNEL_EFFICIENCY`` (fitted to Korthikanti et al.
2022 Table 4's per-layer times only); it does not mean unseen: the shipped constants and the
regression pins were written with these rows' errors in view, so the bands describe how well
the model reproduces the published runs, not a blind forecast.

**The band.** With ``w`` the largest absolute held-out error of the regime (``error`` =
predicted / published − 1, MFU basis; ``n`` rows), the published MFU of a run predicted at ``p``
would lie in ``[p / (1 + w), p / (1 − w)]`` if its error is as large as the worst held-out one,
either way ("± w"). A row whose FLOP basis is not stated (Llama 3: full-mask or causal count)
counts on both bases: its error against ``causal_basis_mfu`` enters ``w`` too. When ``w >= 1``
(a regime where every published run is far slower than predicted; ZeRO-3 on A100 was one until
issue 14 modelled it) the upper end is ``p / (1 + min(error))``: the prediction is an upper
bound.

**Minimum evidence.** A regime needs at least ``MIN_REGIME_ROWS`` held-out runs for a band of
its own (one or two runs give a largest error that is a single draw: H100 ZeRO-3 has one NeMo
row at −3.8%, while the same kind is −9% to +20% off on A100). With fewer, the band is the
wider of ``DEFAULT_BAND_FRACTION`` and the few runs' own largest error (both bases), with a
warning that names them; ``validated`` is False. A plan outside every regime with runs gets
``DEFAULT_BAND_FRACTION`` and a warning.

**Leave-one-out.** ``exclude_run`` drops one ``run_id`` from the regime, so a published run can
be checked against a band that did not see it (``benchmarks/validate_mfu.py`` item 5).

A second warning fires when the prediction exceeds the best MFU ever published for that
hardware generation and a model of that size (``best_published_mfu``).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import pandas as pd

from ..core.catalog import load_efficiency
from ..core.stacks import generation
from . import step
from .step import parallelism_kind

#: A plan is in a regime when its GPU count is within this factor of the regime's runs.
SCALE_FACTOR = 4.0
#: Held-out runs a regime needs for a band of its own (see the module docstring).
MIN_REGIME_ROWS = 3
#: Half-width of the band outside every validated regime (and the floor of one with fewer than
#: ``MIN_REGIME_ROWS`` runs). Reason: the one regime with many runs, A100 Megatron-style
#: TP/PP/DP (19 held-out rows), has a largest held-out error of 8.2% (Korthikanti et al. 1T);
#: the H100 rows are 5-10% off on their published basis but +55% for the 128K row under a
#: causal count; the model's error with burst kernel rates alone (no calibration) reaches 28%
#: (benchmarks/validate_mfu.py, item 4); and a kind the model does not capture can be far worse
#: (ZeRO-3 on A100: +37% to +348%, a regime of its own with an upper-bound band). A regime
#: never checked, or checked once or twice, can be at least 30% off. A stated default, not a
#: fitted one.
DEFAULT_BAND_FRACTION = 0.30
#: A published model "of the same size" has a parameter count within this factor.
SIZE_FACTOR = 4.0
#: Published MFU claims that are not validation rows (no full configuration), by generation:
#: (generation, smallest and largest model in parameters, MFU, source).
MFU_CLAIMS = (
    ("H100 (Hopper)", 2e9, 462e9, 0.47,
     "NVIDIA/Megatron-LM README, 'Performance Benchmarking': models from 2B to 462B parameters "
     "'achieving up to 47% Model FLOP Utilization (MFU) on H100 clusters' (sequence 4096)"),
)


@lru_cache(maxsize=1)
def validation_table() -> pd.DataFrame:
    """``step.mfu_validation`` over every set (target and outside sets), computed once."""
    return step.mfu_validation(sets=step.VALIDATION_SETS + step.OUTSIDE_SETS)


@dataclass(frozen=True)
class MfuBand:
    """A predicted MFU with its error band.

    ``low``/``high``: the range of published MFUs consistent with the regime's worst held-out
    error; ``half_width`` = that error ``w``; ``n`` held-out runs in ``sets``; ``validated``
    False when the plan is outside every validated regime or its regime has fewer than
    ``MIN_REGIME_ROWS`` runs (``DEFAULT_BAND_FRACTION`` or wider used);
    ``best_published`` (None if no run of that generation and size is published) and its
    ``best_source``; ``warnings``: sentences for a reader.
    """

    mfu: float
    low: float
    high: float
    half_width: float
    regime: str
    n: int
    validated: bool
    sets: tuple = ()
    error_min: float = float("nan")
    error_max: float = float("nan")
    best_published: float | None = None
    best_source: str = ""
    warnings: tuple = field(default=())

    def describe(self) -> str:
        """One line: the MFU, its band and where the band comes from."""
        if self.validated:
            basis = (f"± the largest held-out error of its regime, {self.half_width:.1%} "
                     f"(n = {self.n}: {', '.join(self.sets)})")
        elif self.n:
            basis = (f"± {self.half_width:.1%}, the wider of the stated default and the largest "
                     f"error of only n = {self.n} held-out run(s) ({', '.join(self.sets)}; "
                     f"fewer than {MIN_REGIME_ROWS})")
        else:
            basis = (f"± {self.half_width:.0%}, the stated default outside every validated "
                     "regime")
        return (f"{self.mfu:.1%} (band {self.low:.1%}–{self.high:.1%}; {basis}; "
                f"regime {self.regime})")


def _generation(accelerator: str) -> str:
    return generation(accelerator)


def best_published_mfu(accelerator: str, n_params: float):
    """The best published MFU on that hardware generation for a model within ``SIZE_FACTOR`` of
    ``n_params`` parameters: the validation table's reported MFUs (``reported_mfu``, MFU basis)
    and ``MFU_CLAIMS``. Returns ``(mfu, source)`` or ``(None, reason)``.

    Raises
    ------
    ValueError
        If ``n_params`` is not a positive number.
    """
    if isinstance(n_params, bool) or not (isinstance(n_params, numbers.Real) and n_params > 0):
        raise ValueError(f"n_params={n_params!r} must be a positive number of parameters")
    gen = _generation(accelerator)
    v = validation_table()
    same = v[(v["generation"] == gen) & (v["params"] <= n_params * SIZE_FACTOR)
             & (v["params"] >= n_params / SIZE_FACTOR)]
    best, source = None, f"no published {gen} run of a model within {SIZE_FACTOR:g}× this size"
    if len(same):
        row = same.loc[same["reported_mfu"].idxmax()]
        best, source = float(row["reported_mfu"]), f"{row['model']} ({row['set']})"
    for g, lo, hi, mfu, src in MFU_CLAIMS:
        if g == gen and lo <= n_params <= hi and (best is None or mfu > best):
            best, source = mfu, src
    return best, source


def mfu_band(mfu: float, accelerator: str, n_gpus: int, *, zero_stage: int = 0, cp: int = 1,
             ep: int = 1, is_moe: bool = False, n_params: float | None = None,
             exclude_run: str | None = None, capped: bool = True) -> MfuBand:
    """The error band of a predicted MFU (see the module docstring for the rule); with
    ``capped`` (default) its upper end is capped where no measurement goes (``band_cap``).

    Parameters
    ----------
    mfu : float in (0, 1]
        The prediction (``StepBreakdown.mfu``).
    accelerator : str
        Catalogue name (its generation picks the regime).
    n_gpus : int >= 1
    zero_stage, cp, ep, is_moe
        The plan's parallelism kind (``step.parallelism_kind``).
    n_params : float, optional
        Model parameters, for the best-published check (skipped when None).
    exclude_run : str, optional
        A validation ``run_id`` left out of the regime (leave-one-out check of that run).

    Returns
    -------
    MfuBand

    Raises
    ------
    ValueError
        ``mfu`` outside (0, 1] or ``n_gpus`` < 1, naming the argument.
    """
    if isinstance(mfu, bool) or not (isinstance(mfu, numbers.Real) and 0 < mfu <= 1):
        raise ValueError(f"mfu={mfu!r} must be in (0, 1]")
    if isinstance(n_gpus, bool) or not (isinstance(n_gpus, numbers.Integral) and n_gpus >= 1):
        raise ValueError(f"n_gpus={n_gpus!r} must be an integer >= 1")
    gen = _generation(accelerator)
    kind = parallelism_kind(int(zero_stage), int(cp), int(ep), bool(is_moe))
    v = validation_table()
    if exclude_run is not None and exclude_run not in set(v["run_id"]):
        raise ValueError(f"exclude_run={exclude_run!r} is not a validation run_id "
                         "(data/validation_mfu.csv)")
    rows = v[(v["split"] == "held-out") & (v["generation"] == gen) & (v["kind"] == kind)
             & (v["run_id"] != exclude_run)]
    in_scale = rows.empty or (rows["n_gpus"].min() / SCALE_FACTOR <= n_gpus
                              <= rows["n_gpus"].max() * SCALE_FACTOR)
    warnings = []
    if len(rows) and in_scale:
        e = _errors_on_every_basis(rows)
        w_rows = float(e.abs().max())
        sets = tuple(dict.fromkeys(rows["set"]))
        span = f"{int(rows['n_gpus'].min()):,}–{int(rows['n_gpus'].max()):,} GPUs published"
        enough = len(rows) >= MIN_REGIME_ROWS
        w = w_rows if enough else max(DEFAULT_BAND_FRACTION, w_rows)
        low = mfu / (1 + w)
        high = mfu / (1 - w) if w < 1 else mfu / (1 + min(float(e.min()), 0.0))
        regime = f"{gen} · {kind} · {span}" + ("" if enough else " (too few runs)")
        band = dict(low=low, high=high, half_width=w, regime=regime, n=len(rows),
                    validated=enough, sets=sets, error_min=float(e.min()),
                    error_max=float(e.max()))
        if not enough:
            other = v[(v["split"] == "held-out") & (v["kind"] == kind) & (v["generation"] != gen)]
            elsewhere = (f"; the held-out {kind} runs on other hardware were "
                         f"{other['error'].min():+.0%} to {other['error'].max():+.0%} off"
                         if len(other) else "")
            warnings.append(f"only {len(rows)} held-out {kind} run(s) on {gen} (errors "
                            f"{e.min():+.1%} to {e.max():+.1%} on every FLOP basis), fewer than "
                            f"{MIN_REGIME_ROWS}: the band is ±{w:.0%}, the wider of the stated "
                            f"default and those errors{elsewhere}.")
        if w >= 1:
            warnings.append(f"the held-out {kind} runs on {gen} were {e.min():+.0%} to "
                            f"{e.max():+.0%} off: read the predicted MFU as an upper bound.")
    else:
        w = DEFAULT_BAND_FRACTION
        why = (f"no held-out {kind} run on {gen} is published" if rows.empty else
               f"{n_gpus:,} GPUs is more than {SCALE_FACTOR:g}× away from the "
               f"{int(rows['n_gpus'].min()):,}–{int(rows['n_gpus'].max()):,} GPUs of the "
               f"held-out {kind} runs on {gen}")
        band = dict(low=mfu / (1 + w), high=mfu / (1 - w), half_width=w,
                    regime=f"{gen} · {kind} · {n_gpus:,} GPUs (not validated)", n=0,
                    validated=False)
        warnings.append(f"the predicted MFU {mfu:.1%} lies outside every validated regime "
                        f"({why}): its band is the stated default ±{w:.0%}.")
    best, source = (None, "") if n_params is None else best_published_mfu(accelerator, n_params)
    if best is not None and mfu > best:
        warnings.append(f"the predicted MFU {mfu:.1%} exceeds the best published MFU for "
                        f"{gen} and a model of this size, {best:.0%} ({source}): read it as "
                        "optimistic.")
    if capped:
        band["high"], said = band_cap(mfu, band["high"], accelerator, n_params, best)
        warnings.extend(said)
    return MfuBand(mfu=float(mfu), best_published=best, best_source=source,
                   warnings=tuple(warnings), **band)


def best_published_any_size(accelerator: str):
    """The best MFU published on the accelerator's hardware generation for a model of any size
    (the validation table's ``reported_mfu`` and ``MFU_CLAIMS``): ``(mfu, source)`` or
    ``(None, reason)``."""
    gen = _generation(accelerator)
    v = validation_table()
    same = v[v["generation"] == gen]
    best, source = None, f"no published {gen} run"
    if len(same):
        row = same.loc[same["reported_mfu"].idxmax()]
        best, source = float(row["reported_mfu"]), f"{row['model']} ({row['set']})"
    for g, _, _, m, src in MFU_CLAIMS:
        if g == gen and (best is None or m > best):
            best, source = m, src
    return best, source


def band_cap(mfu: float, high: float, accelerator: str, n_params=None, best=None) -> tuple:
    """The upper end of a predicted MFU's band, capped where no measurement goes, and the
    sentences that say so: ``(high, warnings)``.

    cap = min(matmul ceiling, max(best published, prediction)): the best MFU published on the
    hardware generation (``best`` for the model's size when given, else at any size,
    ``best_published_any_size``) or the prediction itself when it is above that, and never above
    the accelerator's measured matmul ceiling (``matmul_fraction``, data/efficiency.csv). A
    prediction above the best published figure of its generation is flagged whatever the model's
    size (a 1B model on A100 as a 70B one)."""
    out = []
    any_best, any_src = best_published_any_size(accelerator)
    ref, ref_src = (best, "for a model of this size") if best is not None else (
        any_best, f"at any size ({any_src})")
    if best is None and any_best is not None and mfu > any_best:
        out.append(f"the predicted MFU {mfu:.1%} exceeds the best MFU published on "
                   f"{_generation(accelerator)} for a model of any size, {any_best:.0%} "
                   f"({any_src}): read it as optimistic.")
    try:
        ceiling = float(load_efficiency(accelerator).matmul_fraction)
    except ValueError:
        ceiling = 1.0
    cap = min(ceiling, max(ref, mfu)) if ref is not None else ceiling
    if high <= cap:
        return high, out
    why = (f"the best published {ref:.0%} {ref_src}" if ref is not None and cap == ref else
           "the prediction itself, above the best published figure" if cap == mfu else
           f"the measured matmul ceiling {ceiling:.0%} (data/efficiency.csv)")
    out.append(f"the band's upper end is capped at {cap:.1%} ({why}): no run has measured more "
               f"(uncapped {high:.1%}).")
    return cap, out


def _errors_on_every_basis(rows: pd.DataFrame) -> pd.Series:
    """The rows' errors, plus, for rows whose FLOP basis is not stated (``causal_basis_mfu``
    differs from ``reported_mfu``), the error against the causal-mask basis."""
    unknown = rows["causal_basis_mfu"] != rows["reported_mfu"]
    alt = rows.loc[unknown, "predicted_mfu"] / rows.loc[unknown, "causal_basis_mfu"] - 1
    return pd.concat([rows["error"], alt], ignore_index=True)


def regime_bands() -> pd.DataFrame:
    """The band of every regime with held-out runs, by the module docstring's rule: one row per
    (``generation``, ``kind``) with ``n``, ``gpus_min``, ``gpus_max``, ``error_min``,
    ``error_max`` (every FLOP basis of a row whose basis is not stated), ``half_width`` (the
    largest |error|; with fewer than ``MIN_REGIME_ROWS`` runs the wider of that and
    ``DEFAULT_BAND_FRACTION``) and ``validated`` (n >= ``MIN_REGIME_ROWS``)."""
    v = validation_table()
    rows = []
    for (gen, kind), g in v[v["split"] == "held-out"].groupby(["generation", "kind"]):
        e = _errors_on_every_basis(g)
        enough = len(g) >= MIN_REGIME_ROWS
        w = float(e.abs().max())
        rows.append({"generation": gen, "kind": kind, "n": len(g),
                     "gpus_min": int(g["n_gpus"].min()), "gpus_max": int(g["n_gpus"].max()),
                     "error_min": float(e.min()), "error_max": float(e.max()),
                     "half_width": w if enough else max(w, DEFAULT_BAND_FRACTION),
                     "validated": enough})
    return pd.DataFrame(rows)


def band_for_step(b, plan, model, accelerator: str, exclude_run: str | None = None) -> MfuBand:
    """``mfu_band`` of a ``StepBreakdown`` ``b`` of ``plan`` for ``model`` on ``accelerator``
    (``exclude_run``: a validation run left out of the regime, for a leave-one-out check)."""
    return mfu_band(float(b.mfu), accelerator, int(plan.n_gpus), zero_stage=plan.zero_stage,
                    cp=plan.cp, ep=plan.ep, is_moe=model.is_moe, n_params=float(model.n_params),
                    exclude_run=exclude_run)


def add_bands(ranked, model, cluster):
    """A ``step.rank_plans`` ranking with each row's MFU band: ``mfu_low``, ``mfu_high`` and
    ``band_regime`` columns (``mfu_band``; the band is proportional to the MFU, so one band per
    parallelism kind). Returns a new DataFrame (attrs kept).

    Raises
    ------
    ValueError
        If ``ranked`` lacks the ``mfu``, ``zero_stage``, ``cp`` or ``ep`` columns.
    """
    missing = {"mfu", "zero_stage", "cp", "ep"} - set(getattr(ranked, "columns", ()))
    if missing:
        raise ValueError(f"ranked lacks the columns {sorted(missing)} (a step.rank_plans table)")
    out = ranked.copy()
    out["mfu_low"] = np.nan
    out["mfu_high"] = np.nan
    out["band_regime"] = ""
    if out.empty:
        return out
    keys = pd.DataFrame({"z": np.where(out["zero_stage"] == 3, 3, 0),
                         "cp": np.where(out["cp"] > 1, 2, 1),
                         "ep": np.where(out["ep"] > 1, 2, 1)}, index=out.index)
    for (z, cp, ep), idx in keys.groupby(["z", "cp", "ep"]).groups.items():
        unit = mfu_band(1.0, cluster.accelerator.name, int(cluster.n_gpus), zero_stage=int(z),
                        cp=int(cp), ep=int(ep), is_moe=model.is_moe, capped=False)
        out.loc[idx, "mfu_low"] = out.loc[idx, "mfu"] * unit.low
        out.loc[idx, "mfu_high"] = out.loc[idx, "mfu"] * unit.high
        out.loc[idx, "band_regime"] = unit.regime
    # each row's upper end capped as ``band_cap`` caps one prediction
    cap = band_cap_array(out["mfu"].to_numpy(float), cluster.accelerator.name,
                         float(model.n_params))
    out["mfu_high"] = np.minimum(out["mfu_high"].to_numpy(float), cap)
    return out


def band_cap_array(mfu, accelerator: str, n_params: float):
    """``band_cap``'s cap for many predictions at once: min(ceiling, max(best published, mfu))."""
    best, _ = best_published_mfu(accelerator, n_params)
    if best is None:
        best, _ = best_published_any_size(accelerator)
    try:
        ceiling = float(load_efficiency(accelerator).matmul_fraction)
    except ValueError:
        ceiling = 1.0
    mfu = np.asarray(mfu, dtype=float)
    return np.minimum(ceiling, mfu if best is None else np.maximum(best, mfu))
