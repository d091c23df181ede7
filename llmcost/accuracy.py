"""How far to trust a predicted MFU: an error band from the held-out validation sets.

The step-time model (``llmcost.step``) is checked against published runs
(``step.mfu_validation``: ``data/validation_mfu.csv`` joined to ``data/published_runs.csv``).
Every prediction gets a band from the held-out rows of its **regime**:

* hardware generation (``stacks.GENERATIONS``: A100 / H100 class),
* parallelism kind (``step.parallelism_kind``: Megatron-style TP/PP/DP, context parallel, ZeRO-3,
  MoE),
* scale: the plan's GPU count within a factor ``SCALE_FACTOR`` of the regime's published runs.

**The band.** With ``w`` the largest absolute held-out error of the regime (``error`` =
predicted / published − 1, MFU basis; ``n`` rows), the published MFU of a run predicted at ``p``
would lie in ``[p / (1 + w), p / (1 − w)]`` if its error is as large as the worst held-out one,
either way ("± w"). When ``w >= 1`` (ZeRO-3, where every published run is slower than predicted)
the upper end is ``p / (1 + min(error))``: the prediction is an upper bound. A plan outside every
validated regime gets ``DEFAULT_BAND_FRACTION`` (stated below) and a warning.

A second warning fires when the prediction exceeds the best MFU ever published for that
hardware generation and a model of that size (``best_published_mfu``).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from functools import lru_cache

import pandas as pd

#: A plan is in a regime when its GPU count is within this factor of the regime's runs.
SCALE_FACTOR = 4.0
#: Half-width of the band outside every validated regime. Reason: the largest held-out error of a
#: validated regime is 11.4% (Llama 3 Table 4, 128K context) and the model's error with burst
#: kernel rates alone (no calibration) reaches 28% (benchmarks/validate_mfu.py, item 4); a regime
#: never checked can be at least as far off. A stated default, not a fitted one.
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
    from . import step
    return step.mfu_validation(sets=step.VALIDATION_SETS + step.OUTSIDE_SETS)


@dataclass(frozen=True)
class MfuBand:
    """A predicted MFU with its error band.

    ``low``/``high``: the range of published MFUs consistent with the regime's worst held-out
    error; ``half_width`` = that error ``w``; ``n`` held-out runs in ``sets``; ``validated``
    False when the plan is outside every validated regime (``DEFAULT_BAND_FRACTION`` used);
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
        else:
            basis = (f"± {self.half_width:.0%}, the stated default outside every validated "
                     "regime")
        return (f"{self.mfu:.1%} (band {self.low:.1%}–{self.high:.1%}; {basis}; "
                f"regime {self.regime})")


def _generation(accelerator: str) -> str:
    from .stacks import generation
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
             ep: int = 1, is_moe: bool = False, n_params: float | None = None) -> MfuBand:
    """The error band of a predicted MFU (see the module docstring for the rule).

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

    Returns
    -------
    MfuBand

    Raises
    ------
    ValueError
        ``mfu`` outside (0, 1] or ``n_gpus`` < 1, naming the argument.
    """
    from .step import parallelism_kind

    if isinstance(mfu, bool) or not (isinstance(mfu, numbers.Real) and 0 < mfu <= 1):
        raise ValueError(f"mfu={mfu!r} must be in (0, 1]")
    if isinstance(n_gpus, bool) or not (isinstance(n_gpus, numbers.Integral) and n_gpus >= 1):
        raise ValueError(f"n_gpus={n_gpus!r} must be an integer >= 1")
    gen = _generation(accelerator)
    kind = parallelism_kind(int(zero_stage), int(cp), int(ep), bool(is_moe))
    v = validation_table()
    rows = v[(v["split"] == "held-out") & (v["generation"] == gen) & (v["kind"] == kind)]
    in_scale = rows.empty or (rows["n_gpus"].min() / SCALE_FACTOR <= n_gpus
                              <= rows["n_gpus"].max() * SCALE_FACTOR)
    warnings = []
    if len(rows) and in_scale:
        e = rows["error"]
        w = float(e.abs().max())
        low = mfu / (1 + w)
        high = mfu / (1 - w) if w < 1 else mfu / (1 + min(float(e.min()), 0.0))
        regime = (f"{gen} · {kind} · {int(rows['n_gpus'].min()):,}–{int(rows['n_gpus'].max()):,}"
                  f" GPUs published")
        band = dict(low=low, high=high, half_width=w, regime=regime, n=len(rows), validated=True,
                    sets=tuple(dict.fromkeys(rows["set"])), error_min=float(e.min()),
                    error_max=float(e.max()))
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
    return MfuBand(mfu=float(mfu), best_published=best, best_source=source,
                   warnings=tuple(warnings), **band)


def band_for_step(b, plan, model, accelerator: str) -> MfuBand:
    """``mfu_band`` of a ``StepBreakdown`` ``b`` of ``plan`` for ``model`` on ``accelerator``."""
    return mfu_band(float(b.mfu), accelerator, int(plan.n_gpus), zero_stage=plan.zero_stage,
                    cp=plan.cp, ep=plan.ep, is_moe=model.is_moe, n_params=float(model.n_params))


def add_bands(ranked, model, cluster):
    """A ``step.rank_plans`` ranking with each row's MFU band: ``mfu_low``, ``mfu_high`` and
    ``band_regime`` columns (``mfu_band``; the band is proportional to the MFU, so one band per
    parallelism kind). Returns a new DataFrame (attrs kept).

    Raises
    ------
    ValueError
        If ``ranked`` lacks the ``mfu``, ``zero_stage``, ``cp`` or ``ep`` columns.
    """
    import numpy as np

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
                        cp=int(cp), ep=int(ep), is_moe=model.is_moe)
        out.loc[idx, "mfu_low"] = out.loc[idx, "mfu"] * unit.low
        out.loc[idx, "mfu_high"] = out.loc[idx, "mfu"] * unit.high
        out.loc[idx, "band_regime"] = unit.regime
    return out
