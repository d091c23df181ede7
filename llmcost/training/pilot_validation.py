"""From pilot to production, judged on published scaling series: calibrate the step-time model
on the smallest run(s) of each series (``llmcost.training.calibrate``), predict the others.

A series is one source measuring one model on one stack and accelerator in one dtype at several
GPU counts, plans or sequence lengths, from ``data/validation_mfu.csv`` (sources in its ``source``
column and ``data/published_runs.csv``): Narayanan et al. 2021 Table 1 (weak scaling: the model
grows with the GPUs) and Table 2 (strong scaling, PTD-P and DeepSpeed ZeRO-3 rows), Korthikanti
et al. 2022 Table 5, Llama 3 Table 4, MosaicML llm-foundry's MPT tables (8-512 GPUs, sequence
sweeps at 8 GPUs), torchtitan's H100 / H200 benchmarks, NeMo AutoModel's DeepSeek-V3 rows, NeMo's
long-sequence table. The one-scale pilot is the series' smallest GPU count at its most common
sequence length (the shortest where none repeats); the two-scale pilot its two smallest GPU
counts at the first pilot's sequence length (series with >= 3 counts), a small scaling test whose
goal is judged on the runs of the same model, sequence length and recomputation
(``TWO_SCALE_DEFINITION``; the series' other runs are reported beside them).

Error of a target run = predicted MFU ÷ published MFU − 1 (workbook basis on both sides).
"Leave-one-series-out" (LOSO): the pilot-to-target drift and the pilots' residual spread that
set how much of a pilot's correction is carried (``calibrate.PILOT_DRIFT``) are re-measured
without the series judged, and
the band (``fit_band``: a half-width by novelty count plus a widening per doubling of the
sequence length, split-conformal 90 % quantiles rounded up to the half percent) too. The shipped
band is that rule fitted on every series (``calibrate.BAND_HALF_WIDTH``); the same rule fitted on
the targets of the ``calibration`` split of ``data/validation_mfu.csv`` alone is judged on the
``held-out`` ones.
``benchmarks/validate_pilot.py`` prints it all; notebook 04b draws ``PilotValidation.errors``.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.diskcache import disk_cached
from . import accuracy, step_validation
from . import calibrate as cal

#: What a two-scale pilot is (a "small scaling test") and which runs its goal (<= 5 %
#: mean, <= 10 % max) is judged on: ``scale_only`` in ``predict``.
TWO_SCALE_DEFINITION = ("a small scaling test: the series' two smallest GPU counts at one "
                        "sequence length, predicting runs of the same model, sequence length and "
                        "recomputation at other GPU counts and plans")
#: The published sets the series are drawn from.
SETS = step_validation.VALIDATION_SETS + step_validation.NEWER_SETS
#: Zero drift: every pilot correction carried whole (the naive one-factor fit; ``validate`` also
#: lifts the network confounding, ``calibrate.network_shift``, for it).
NAIVE = {"same_kernels": 0.0, "other_kernels": 0.0, "per_seq_doubling": 0.0}


def series_table(sets=SETS) -> dict:
    """The scaling series: {"set · model · accelerator · dtype": rows sorted pilot first} (rows
    of ``step_validation.mfu_validation``; Narayanan's Table 1 and Korthikanti's Table 5 are one
    weak-scaling series each)."""
    v = step_validation.mfu_validation(sets=sets)
    v["base"] = v["model"].str.replace(r" \(.*", "", regex=True)
    v.loc[v["set"].isin(["megatron21-table1", "korthikanti22-table5"]), "base"] = "weak scaling"
    out = {}
    for key, g in v.groupby(["set", "base", "accelerator", "dtype"]):
        if len(g) >= 2 and (g["n_gpus"].nunique() > 1 or g["plan"].nunique() > 1
                            or g["seq_len"].nunique() > 1):
            s = g["seq_len"].mode().min()
            g = g.assign(other_s=g["seq_len"] != s)
            out[" · ".join(key)] = g.sort_values(["n_gpus", "other_s"]).reset_index(drop=True)
    return out


def pilots_of(series: pd.DataFrame, idx) -> list:
    """The rows ``idx`` of a series as ``calibrate.Pilot`` runs (``calibrate.published_pilot``)."""
    return [cal.published_pilot(series.loc[i, "run_id"], series.loc[i, "reported_mfu"])
            for i in idx]


def targets_of(series: pd.DataFrame, idx) -> list:
    """The other rows of a series: ``[(run_id, Pilot)]``."""
    return [(r["run_id"], cal.published_pilot(r["run_id"], r["reported_mfu"]))
            for i, r in series.iterrows() if i not in idx]


def predict(c: cal.Calibration, targets, drift: dict | None = None) -> pd.DataFrame:
    """Each target's MFU error with calibration ``c``: ``uncal`` (the engine as shipped) and
    ``pilot`` (``calibrate.extrapolate``), as predicted ÷ published − 1; ``n_novel`` its novelty
    count, ``k`` and ``doublings`` its band terms (``calibrate.band_terms``), ``transfer`` the
    weight carried, ``same`` whether it runs the pilot's kernels,
    ``scale_only`` whether it differs from the pilot only in GPU count and plan (same model,
    sequence length and recomputation), ``drift`` log(published ÷ uncalibrated) at the target
    minus the same at the pilot, ``pilot_residual`` the latter, ``r_p = log(measured ÷
    uncalibrated MFU)`` at the smallest pilot."""
    p0 = min(c.pilots, key=lambda p: p.n_gpus)
    i0 = c.pilots.index(p0)
    r_p = math.log(c.measured_mfu[i0] / c.uncalibrated_mfu[i0])
    rows = []
    for run, t in targets:
        x = cal.extrapolate(c, t.model, t.plan, t.seq_len, options=t.options, drift=drift)
        meas = cal.measured_mfu(t)
        k, dbl = cal.band_terms(p0, t.model, t.plan, t.seq_len)
        rows.append({"run_id": run, "uncal": x.uncalibrated_mfu / meas - 1,
                     "pilot": x.mfu / meas - 1, "n_novel": len(x.novelties), "k": k,
                     "doublings": dbl,
                     "transfer": x.transfer,
                     "same": cal.runs_pilot_kernels(c.pilots, t.model, t.plan, t.seq_len),
                     "scale_only": bool(cal.same_model(t.model, p0.model)
                                        and t.seq_len == p0.seq_len
                                        and t.plan.recompute == p0.plan.recompute),
                     "drift": math.log(meas / x.uncalibrated_mfu) - r_p,
                     "pilot_residual": r_p})
    return pd.DataFrame(rows)


def drift_of(frames) -> dict:
    """``calibrate.PILOT_DRIFT`` measured on ``predict`` frames: ``same_kernels`` and
    ``other_kernels`` the RMS of ``drift`` over the targets running the pilot's kernels and over
    the others; ``per_seq_doubling`` the RMS, over the other targets at another sequence length,
    of their drift beyond ``other_kernels`` per doubling, ``max(0, |drift| − other_kernels) ÷
    doublings`` (the rule of the band's sequence-length widening, ``fit_band``, applied to the
    drift); ``pilot_residual_var`` ``S ÷ (k − 2)``, the reciprocal of Efron & Morris's (1973)
    unbiased estimate ``(k − 2) ÷ S`` of one over the pilots' mean square residual, ``S`` the
    sum of ``pilot_residual²`` over the ``k`` series
    (one pilot each: a frame's ``series`` column, else one series per frame; ``∞``, no pooled
    estimate, below 3 series)."""
    frames = list(frames)
    d = pd.concat(frames)
    same = d["same"].astype(bool)
    o = _rms(d[~same]["drift"])
    seq = d[~same & (d["doublings"] > 0)]
    if "series" in d:
        r = d.groupby("series", sort=False)["pilot_residual"].first().to_numpy()
    else:
        r = np.array([f["pilot_residual"].iloc[0] for f in frames if len(f)])
    return {"same_kernels": _rms(d[same]["drift"]), "other_kernels": o,
            "per_seq_doubling": _rms(np.maximum(0.0, seq["drift"].abs().to_numpy() - o)
                                     / seq["doublings"].to_numpy()),
            "pilot_residual_var": float((r ** 2).sum() / (len(r) - 2)) if len(r) >= 3
            else math.inf}


def _loso_drifts(frames: dict) -> dict:
    """For each name of ``frames`` (name -> ``predict`` frame), ``drift_of`` the other frames (in
    their order): the same figures, the same values in the same order through the same NumPy
    reductions (``_drift_of_columns``), from each frame's columns read once instead of a
    concatenation of the others per name (49 series: 0.23 of ``validate``'s 2.3 CPU-s)."""
    cols = {n: (f["same"].astype(bool).to_numpy(), f["drift"].to_numpy(dtype=float),
                f["doublings"].to_numpy(dtype=float),
                f["pilot_residual"].iloc[0] if len(f) else None) for n, f in frames.items()}
    return {name: _drift_of_columns([c for k, c in cols.items() if k != name])
            for name in frames}


def _drift_of_columns(cols: list) -> dict:
    """``drift_of`` of frames given as ``(same, drift, doublings, first pilot_residual or
    None)`` columns (``_loso_drifts``), one series per frame."""
    same = np.concatenate([c[0] for c in cols])
    drift = np.concatenate([c[1] for c in cols])
    doublings = np.concatenate([c[2] for c in cols])
    o = _rms(drift[~same])
    seq = ~same & (doublings > 0)
    r = np.array([c[3] for c in cols if c[3] is not None])
    return {"same_kernels": _rms(drift[same]), "other_kernels": o,
            "per_seq_doubling": _rms(np.maximum(0.0, np.abs(drift[seq]) - o) / doublings[seq]),
            "pilot_residual_var": float((r ** 2).sum() / (len(r) - 2)) if len(r) >= 3
            else math.inf}


def _rms(x) -> float:
    """Root mean square of ``x`` (0 for no value)."""
    x = np.asarray(x, dtype=float)
    return float(np.sqrt((x ** 2).mean())) if len(x) else 0.0


@dataclass
class PilotValidation:
    """``validate``'s result. ``errors``: one row per target run with ``series``, ``run_id``,
    ``n_gpus``, ``seq_len``, ``uncal``, ``one_scale`` (shipped drift), ``naive``,
    ``pilot_residual`` (the series' one-scale pilot's, ``predict``),
    ``one_scale_loso``,
    ``two_scale`` / ``two_scale_loso`` (NaN where the series has < 3 GPU counts or the row is a
    two-scale pilot), ``two_scale_only`` (the row differs from the two-scale pilots only in GPU
    count and plan), ``n_novel``, ``same``; ``calibrations`` the one-scale fits; ``skipped`` the
    series no pilot calibrates, with the reason; ``drift`` the drift measured on every series;
    ``coverage`` / ``coverage_loso`` the share of one-scale errors inside the shipped bands and
    inside the bands re-sized without the series (``fit_band``); ``coverage_split`` the share of
    the ``held-out`` targets inside the bands fitted on the ``calibration`` targets
    (``coverage_split_fit`` on those), ``split_band`` that fit's ``(base, per_doubling)``;
    ``k`` and ``doublings`` each target's band terms, ``inside_loso`` whether it is inside the
    band fitted without its series."""

    errors: pd.DataFrame
    calibrations: dict
    skipped: dict
    drift: dict
    coverage: float
    coverage_loso: float
    coverage_split: float = float("nan")
    coverage_split_fit: float = float("nan")
    split_band: tuple = ()

    def series_summary(self) -> pd.DataFrame:
        """Mean |error| per series of each column (uncalibrated, one-scale LOSO, two-scale LOSO)."""
        cols = ["uncal", "one_scale", "one_scale_loso", "naive", "two_scale", "two_scale_loso"]
        g = self.errors.groupby("series", sort=False)
        out = g[cols].agg(lambda x: x.abs().mean() if x.notna().any() else np.nan)
        out["n"] = g.size()
        return out

    def headlines(self) -> list:
        """The figures in words: mean / max |error| uncalibrated and one-scale (LOSO) on every
        target; two-scale (LOSO) on the targets in its definition (``TWO_SCALE_DEFINITION``:
        same model, sequence length and recomputation as the pilots, another GPU count or plan)
        and on all its series' other runs, with the worst of each; the band's coverage."""
        e = self.errors

        def mm(x):
            return f"mean {x.abs().mean():.1%}, max {x.abs().max():.1%}"

        def worst(t):
            w = t.loc[t["two_scale_loso"].abs().idxmax()]
            return (f"worst {w['run_id']} ({int(w['n_gpus'])} GPUs, sequence "
                    f"{int(w['seq_len']):,}): {w['two_scale_loso']:+.1%} (uncalibrated "
                    f"{w['uncal']:+.1%})")

        t2 = e[e["two_scale_loso"].notna()]
        only = t2["two_scale_only"].astype(bool)
        out = [(f"{len(e)} runs in {e['series'].nunique()} series: uncalibrated "
                f"{mm(e['uncal'])}; one-scale pilot {mm(e['one_scale_loso'])}")]
        if len(t2):
            out += [(f"two-scale pilot ({TWO_SCALE_DEFINITION}), {int(only.sum())} runs in "
                     f"its definition: {mm(t2[only]['two_scale_loso'])} (uncalibrated "
                     f"{mm(t2[only]['uncal'])}); {worst(t2[only])}"),
                    (f"  all {len(t2)} other runs of its {t2['series'].nunique()} series, "
                     f"{int((~only).sum())} of them at another sequence length, recomputation "
                     f"or model: {mm(t2['two_scale_loso'])} (uncalibrated {mm(t2['uncal'])}); "
                     f"{worst(t2)}")]
        _, h = inside_band(e)
        out.append(f"one-scale band coverage: {self.coverage:.0%} in-sample, "
                   f"{self.coverage_loso:.0%} leave-one-series-out, "
                   f"{self.coverage_split:.0%} of the held-out runs with the band fitted on the "
                   f"calibration runs ({self.coverage_split_fit:.0%} of those); median "
                   f"half-width ±{np.median(h):.0%}")
        return out


def conformal_quantile(scores, alpha: float = accuracy.ALPHA) -> float:
    """The split-conformal quantile of ``scores``: the ``⌈(n + 1)(1 − alpha)⌉``-th smallest of
    the ``n`` scores (the largest when that rank passes ``n``) (Vovk et al. 2005; Angelopoulos &
    Bates 2021, "A Gentle Introduction to Conformal Prediction", §1: a new exchangeable score is
    below it with probability ``>= 1 − alpha``, for exchangeable scores). The scores here have
    no fitted centre, but they are not exchangeable: the rows of one series share its pilot,
    and so its residual, so the guarantee is not claimed, only the rule; and below
    ``⌈1 ÷ alpha⌉ − 1`` scores (9 at 90 %) the rank passes ``n`` and the largest score is
    taken, with no guarantee at all. The check of the band is its leave-one-series-out
    coverage (``PilotValidation.coverage_loso``: each series judged by a band fitted without
    it; ``benchmarks/validate_pilot.py`` prints it). ``accuracy``'s MFU bands, centred on a
    median, take the full-conformal set instead."""
    x = np.sort(np.asarray(scores, dtype=float))
    if not len(x):
        raise ValueError("scores=[] must hold at least one score")
    return float(x[min(len(x), math.ceil((len(x) + 1) * (1 - alpha))) - 1])


def fit_band(e: pd.DataFrame, col: str = "one_scale") -> tuple:
    """The band's constants fitted on the error rows ``e`` (``k``, ``doublings``, ``col``):
    ``(base, per_doubling)`` with

    * ``base[k]`` = the conformal quantile (``conformal_quantile``, 90 %) of ``|error|`` over the
      rows at the pilot's sequence length (``doublings = 0``) with ``min(k, 3)`` novelties, made
      non-decreasing in ``k`` (a count with no row takes the one below; none at all:
      ``calibrate.BAND_HALF_WIDTH``);
    * ``per_doubling`` = the conformal quantile, over the rows at another sequence length, of
      the error beyond the base per doubling, ``max(0, |error| − base[k]) ÷ doublings``.

    Each quantile is rounded up to ``calibrate.BAND_ROUNDING`` (half a percent; the base before
    the excess is measured against it), the rule the shipped constants follow, so a
    leave-one-series-out re-fit judges the rule as shipped. Either part with no row keeps the
    shipped constant."""
    top = len(cal.BAND_HALF_WIDTH) - 1
    k = e["k"].clip(upper=top)
    same = e["doublings"] == 0
    base, prev = [], None
    for i in range(top + 1):
        x = e.loc[same & (k == i), col].abs()
        v = _round_up(conformal_quantile(x)) if len(x) else (
            prev if prev is not None else cal.BAND_HALF_WIDTH[i])
        prev = v if prev is None else max(prev, v)
        base.append(prev)
    other = e[~same]
    if not len(other):
        return tuple(base), cal.BAND_PER_SEQ_DOUBLING
    b = np.array([base[i] for i in k[~same]])
    excess = np.maximum(0.0, other[col].abs().to_numpy() - b) / other["doublings"].to_numpy()
    return tuple(base), _round_up(conformal_quantile(excess))


def _round_up(x: float, step: float = cal.BAND_ROUNDING) -> float:
    """``x`` rounded up to a whole number of ``step`` (a multiple already is kept: the ratio is
    rounded to 9 decimals first, so 0.1 ÷ 0.005 is 20, not 20.000000000000004)."""
    return math.ceil(round(x / step, 9)) * step


def inside_band(e: pd.DataFrame, base=None, per_doubling=None, col: str = "one_scale"):
    """Whether each row's ``|error|`` is within its band (``calibrate.band_half_width``), and
    the half-widths: ``(inside, h)`` as arrays."""
    h = np.array([cal.band_half_width(k, d, base, per_doubling)
                  for k, d in zip(e["k"], e["doublings"])])
    return e[col].abs().to_numpy() <= h, h


def _coverage(e: pd.DataFrame, col: str = "one_scale") -> dict:
    """The band's coverage of the ``col`` errors: ``in_sample`` (the shipped constants),
    ``loso`` (each series inside the band fitted without it, ``fit_band``), ``split`` (fitted
    on the targets of the ``calibration`` split of ``data/validation_mfu.csv``, covering the
    ``held-out`` targets) and ``split_fit`` (the same fit's coverage of its own targets), with
    the split fit's constants ``split_band`` and each row's leave-one-series-out verdict
    ``inside_loso``."""
    inside, _ = inside_band(e, col=col)
    cover = np.zeros(len(e), dtype=bool)
    for s in e["series"].unique():
        held = (e["series"] == s).to_numpy()
        cover[held] = inside_band(e[held], *fit_band(e[~held], col), col=col)[0]
    split = e["run_id"].map(_row_split())
    fit = fit_band(e[split == "calibration"], col)
    return {"in_sample": float(inside.mean()), "loso": float(np.mean(cover)),
            "inside_loso": cover,
            "split": float(inside_band(e[split != "calibration"], *fit, col=col)[0].mean()),
            "split_fit": float(inside_band(e[split == "calibration"], *fit, col=col)[0].mean()),
            "split_band": fit}


def _row_split() -> pd.Series:
    """The ``split`` column of ``data/validation_mfu.csv`` by run."""
    return step_validation.validation_configs().set_index("run_id")["split"]


def validate(sets=SETS, table: dict | None = None, extras: bool = True) -> PilotValidation:
    """Calibrate on each series' pilot(s), predict its other runs: uncalibrated, one-scale pilot
    (shipped drift, zero drift = naive, drift re-measured without the series = LOSO) and
    two-scale pilot (shipped and LOSO drift), and the band's coverage (``PilotValidation``).
    ``table``: ``series_table(sets)`` when already built; ``extras=False`` skips the naive fit and
    the two-scale pilot with the shipped drift (NaN: the LOSO columns are what a figure needs)."""
    table = series_table(sets) if table is None else table
    one, naive, two, two_idx, facts, targets, skipped = {}, {}, {}, {}, {}, {}, {}
    for name, g in table.items():
        try:
            c = cal.calibrate(pilots_of(g, [0]))
        except ValueError as err:
            skipped[name] = str(err)
            continue
        facts[name], targets[name] = c, targets_of(g, [0])
        one[name] = predict(c, targets[name])
        # the naive fit carries every correction whole: no shrinkage, no network confounding
        naive[name] = predict(dataclasses.replace(c, network_confounded=False), targets[name],
                              NAIVE) if extras else one[name].assign(pilot=np.nan)
        same_s = g[g["seq_len"] == g.loc[0, "seq_len"]].drop_duplicates("n_gpus")
        if len(same_s) >= 3:
            idx = list(same_s.index[:2])
            two_idx[name] = (cal.calibrate(pilots_of(g, idx)), targets_of(g, idx))
            two[name] = predict(*two_idx[name]) if extras else None
    frames, loso = [], _loso_drifts(one)
    for name, e in one.items():
        d = loso[name]   # drift_of without the series
        g = table[name].set_index("run_id")
        f = pd.DataFrame({"series": name, "run_id": e["run_id"],
                          "n_gpus": g.loc[e["run_id"], "n_gpus"].to_numpy(),
                          "seq_len": g.loc[e["run_id"], "seq_len"].to_numpy(),
                          "uncal": e["uncal"], "one_scale": e["pilot"],
                          "naive": naive[name]["pilot"],
                          "one_scale_loso": predict(facts[name], targets[name], d)["pilot"],
                          "n_novel": e["n_novel"], "k": e["k"], "doublings": e["doublings"],
                          "same": e["same"], "drift": e["drift"],
                          "pilot_residual": e["pilot_residual"], "two_scale": np.nan,
                          "two_scale_loso": np.nan, "two_scale_only": None})
        if name in two:
            tl = predict(*two_idx[name], d).set_index("run_id")
            t = tl if two[name] is None else two[name].set_index("run_id")
            f["two_scale"] = f["run_id"].map(t["pilot"]) if two[name] is not None else np.nan
            f["two_scale_loso"] = f["run_id"].map(tl["pilot"])
            f["two_scale_only"] = f["run_id"].map(tl["scale_only"])
        frames.append(f)
    errors = pd.concat(frames, ignore_index=True)
    for col in ("two_scale", "two_scale_loso"):
        errors[col] = errors[col].astype(float)
    errors["two_scale_only"] = errors["two_scale_only"].astype("boolean")
    cov = _coverage(errors)
    errors["inside_loso"] = cov["inside_loso"]
    return PilotValidation(errors=errors, calibrations=facts, skipped=skipped,
                           drift=drift_of(one.values()), coverage=cov["in_sample"],
                           coverage_loso=cov["loso"], coverage_split=cov["split"],
                           coverage_split_fit=cov["split_fit"], split_band=cov["split_band"])


@disk_cached
def validate_lean(sets=SETS) -> PilotValidation:
    """``validate(sets, extras=False)``, kept on disk (``core.diskcache``: keyed by the package's
    code and data, never by a scenario): the published series do not depend on the scenario, and
    the validation takes seconds, so the notebooks, the report's kernels and the tests compute it
    once."""
    return validate(sets, extras=False)
