"""Ranges on continuous cost inputs: what a range is, its point, its percentiles and its draws.

A scenario may give a continuous cost input (``RANGEABLE_KEYS``: the MFU, prices, failure
rates, restart times, overhead fractions, the ledger's line inputs) as a range instead of a
number. Six forms, one meaning each (``parse_range``):

* ``mfu: [0.30, 0.50]``: **uniform** on [low, high]; its point is the midpoint.
* ``mfu: {low: 0.30, mode: 0.40, high: 0.50}``: **triangular** (density rising linearly from
  ``low`` to ``mode`` and falling to ``high``); its point is the mode.
* ``mfu: {dist: two_piece, low: 0.30, mode: 0.40, high: 0.50}``: **two-piece triangular**, each
  side of ``mode`` a half-triangle holding half the draws (density rising linearly from ``low``
  to ``mode``, falling linearly from ``mode`` to ``high``, each part of mass ½): its point,
  ``mode``, is both its mode and its median, where a triangle's median leaves its mode when
  the two sides differ (low 0.378, mode 0.493, high 0.546: median 0.476); ``mode`` strictly
  inside (at an end, half the draws would sit on that end: a triangle peaks there). The bill
  draws a predicted MFU's error band so (``montecarlo.predicted_mfu_range``): its central
  estimate is the median of the model's errors, so half the draws lie on each side.
* ``mfu: {dist: two_piece_cut, low: 0.30, mode: 0.40, high: 0.55, cut: 0.45}``: the two-piece
  range cut at ``cut`` (low < cut <= high), every draw above it taken at it: min(X, cut), X
  two-piece; its point is min(mode, cut), its median too. A predicted MFU whose band's top is
  capped where no comparable published run has measured more (``accuracy.band_cap``) is drawn
  so: the model's whole band, its draws beyond the best published run held there, so that two
  bills' draws of one quantile are the same model error in both (the same fraction of each
  band), capped or not.
* ``x: {dist: lognormal, p10: 1e5, p90: 1e7}``: **lognormal** with those 10th and 90th
  percentiles, for inputs that span orders of magnitude: ln x ~ Normal(μ, σ) with
  μ = (ln p10 + ln p90) / 2 and σ = (ln p90 − ln p10) / (2 z₀.₉), z₀.₉ = Φ⁻¹(0.9) = 1.28155;
  its point is the median, √(p10 · p90).
* ``x: {dist: shifted_lognormal, p10, p90, shift, low, high}``: x + shift lognormal with those
  10th and 90th percentiles, cut to [low, high] (renormalised: the mass outside is redrawn
  inside, not piled at the ends): a multiplier's log-normal carried to the fraction beyond it
  (development compute 1.2-4x the final run, Cottier et al. 2024 App. A.6, is an exploratory
  fraction x = multiplier − 1, cut to its rule's [0, 10]); its point is the uncut median
  √(p10 · p90) − shift (kept inside [low, high]).

A range whose ends are equal is that number. Draws are the range's inverse CDF of a uniform
variate, whatever the kind (so two kinds on one input are paired rank for rank), with the
generator ``numpy.random.default_rng([seed, zlib.crc32(key)])``: the draws of one input depend
only on the seed and the input's name, so two scenarios that range the same input get the same
draws of it (common random numbers), and a difference of their bills is a difference per draw.

This module imports no other part of llmcost (``scenario`` and ``ledger`` import it).
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from statistics import NormalDist
from types import SimpleNamespace

import numpy as np

KINDS = ("uniform", "triangular", "two_piece", "two_piece_cut", "lognormal",
         "shifted_lognormal")
#: What the point of a range of each kind is, in a sentence (``Range.point``; a two-piece
#: range's mode is its median too).
POINT_WORDS = {"uniform": "midpoint", "triangular": "mode", "two_piece": "median",
               "two_piece_cut": "median", "lognormal": "median", "shifted_lognormal": "median"}
#: Every number field a ``Range`` may carry, its kind's (``_FIELDS``) among them.
NUMBER_FIELDS = ("low", "mode", "high", "p10", "p90", "shift", "cut")
#: Φ⁻¹(0.9), the standard normal's 90th percentile (Abramowitz & Stegun 1964, Table 26.5).
Z90 = 1.2815515655446004
#: Φ⁻¹(0.95), its 95th (the same table): the half-width of a 90% interval in σ.
Z95 = 1.6448536269514722

#: Continuous cost inputs that may be given as a range. Plan integers (tp, pp, dp, ...), GPU
#: counts, token counts of the run and names never may: a range there is a ScenarioError.
RANGEABLE_KEYS = (
    "mfu", "price_usd_per_gpu_hour",
    "fail_rate_per_gpu_year", "fail_planned_per_day", "ckpt_restart_s",
    "ledger_spot_preemptions_per_node_day", "ledger_spot_restart_s",
    "ledger_exploratory_fraction", "ledger_rerun_probability", "ledger_reserve_fraction",
    "ledger_sft_tokens", "ledger_cpt_tokens", "ledger_lora_tokens",
    "ledger_data_licensing_usd", "ledger_data_processing_usd",
    "ledger_synthetic_tokens", "ledger_synthetic_usd_per_mtok",
    "ledger_annotation_samples", "ledger_annotation_usd_per_sample",
    "ledger_eval_gpu_hours", "ledger_eval_requests",
    "ledger_human_eval_hours", "ledger_human_eval_usd_per_hour",
    "ledger_dataset_bytes", "ledger_log_bytes", "ledger_egress_bytes",
    "ledger_cross_region_bytes", "ledger_operations_usd_per_month", "ledger_project_months",
    "ledger_owned_usd_per_gpu", "ledger_electricity_usd_per_kwh",
    "ledger_pue", "rl_time_factor",
)
#: Continuous inputs that cannot take a range yet: the RL campaign (notebook 05) and the
#: serving configuration search (llmcost.inference) work on one value at a time, so their
#: arithmetic does not broadcast over draws. A range there is a ScenarioError that says so.
NOT_YET_RANGEABLE_KEYS = (
    "rl_verifier_usd_per_sample", "rl_train_mfu", "serve_occupancy",
)
#: Keys whose scenario rule (``bill.scenario.PARAMETERS``, each key's check) has an upper
#: bound: a lognormal, unbounded above, is refused on them (it would break the bound on some
#: draws: P10 2 and P90 9 on the exploratory fraction put 7.2% of them above its 10). The bounds:
#: ``mfu`` (0, 1], ``ledger_rerun_probability`` [0, 1], ``ledger_reserve_fraction`` [0, 1],
#: ``ledger_exploratory_fraction`` [0, 10], ``ledger_pue`` [1, 3]; and, not rangeable yet,
#: ``rl_train_mfu`` (0, 1] and ``serve_occupancy`` (0, 1]. tests/test_bounded_ranges.py finds
#: the bounded keys from those checks themselves, so a bound added there without a line here
#: fails it.
BOUNDED_KEYS = ("mfu", "ledger_rerun_probability", "ledger_reserve_fraction",
                "ledger_exploratory_fraction", "ledger_pue", "rl_train_mfu", "serve_occupancy")


@dataclass(frozen=True)
class Range:
    """A range on one input: ``kind`` uniform (``low``, ``high``), triangular or two_piece
    (``low``, ``mode``, ``high``), two_piece_cut (those and ``cut``), lognormal (``p10``,
    ``p90``) or shifted_lognormal (``p10``, ``p90`` of x + ``shift``, cut to [``low``,
    ``high``]; module docstring)."""

    kind: str
    low: float | None = None
    mode: float | None = None
    high: float | None = None
    p10: float | None = None
    p90: float | None = None
    shift: float | None = None
    cut: float | None = None

    def __post_init__(self):
        check_range(self)

    # -------------------------------------------------------------------------- summaries
    @property
    def point(self) -> float:
        """Midpoint (uniform), mode (triangular), mode = median (two_piece), median
        √(p10·p90) (lognormal) or the uncut median √(p10·p90) − shift kept inside [low, high]
        (shifted_lognormal)."""
        if self.kind == "uniform":
            return (self.low + self.high) / 2.0
        if self.kind in ("triangular", "two_piece"):
            return self.mode
        if self.kind == "two_piece_cut":
            return min(self.mode, self.cut)
        if self.kind == "shifted_lognormal":
            return min(max(math.sqrt(self.p10 * self.p90) - self.shift, self.low), self.high)
        return math.sqrt(self.p10 * self.p90)

    @property
    def bounds(self) -> tuple:
        """(lowest, highest) value a draw can take (0 and inf bound a lognormal)."""
        if self.kind == "lognormal":
            return (0.0, math.inf)
        if self.kind == "two_piece_cut":
            return (self.low, self.cut)
        return (self.low, self.high)

    def quantile(self, q):
        """The q-quantile (q in [0, 1], array or scalar), from the inverse CDF:
        uniform low + q(high − low); triangular low + √(q(h − l)(m − l)) for q ≤ (m − l)/(h − l),
        else high − √((1 − q)(h − l)(h − m)); two_piece l + (m − l)√(2q) for q ≤ ½, else
        h − (h − m)√(2(1 − q)) (each half-triangle's own inverse CDF, on half the mass: q = ½
        gives m), two_piece_cut its min with the cut; lognormal exp(μ + σ Φ⁻¹(q)), q in (0, 1);
        shifted_lognormal exp(μ + σ Φ⁻¹(a + q(b − a))) − shift, a and b the uncut CDF of
        x + shift at low + shift and high + shift (F(y) = Φ((ln y − μ)/σ), 0 for y <= 0).

        Raises
        ------
        ValueError
            ``q`` not numbers in [0, 1] (in (0, 1) for a lognormal, unbounded at both ends).
        """
        return self._quantile(_quantile_levels(q, open_ends=self.kind == "lognormal"))

    def _quantile(self, q: np.ndarray):
        """``quantile`` of levels already checked (``draws``' uniform draws in [0, 1))."""
        if self.kind == "uniform":
            return self.low + q * (self.high - self.low)
        if self.kind == "triangular":
            lo, m, hi = self.low, self.mode, self.high
            w = hi - lo
            if w == 0:
                return lo + 0 * q
            c = (m - lo) / w
            return np.where(q <= c, lo + np.sqrt(q * w * (m - lo)),
                            hi - np.sqrt((1 - q) * w * (hi - m)))
        if self.kind in ("two_piece", "two_piece_cut"):
            lo, m, hi = self.low, self.mode, self.high
            x = np.where(q <= 0.5, lo + (m - lo) * np.sqrt(2 * q),
                         hi - (hi - m) * np.sqrt(np.maximum(2 * (1 - q), 0.0)))
            return x if self.kind == "two_piece" else np.minimum(x, self.cut)
        if self.kind == "shifted_lognormal":
            return self._cut_quantile(q)
        if q.size == 0:
            return np.empty(q.shape)
        z = np.vectorize(NormalDist().inv_cdf)(q) if q.ndim else NormalDist().inv_cdf(float(q))
        return np.exp(self._mu + self._sigma * z)

    def uncut_cdf(self, x: float) -> float:
        """P(X <= x) of a shifted_lognormal range before its cut: Φ((ln(x + shift) − μ)/σ),
        0 where x + shift <= 0 (so ``uncut_cdf(low)`` is the mass the cut redraws from below)."""
        if self.kind != "shifted_lognormal":
            raise ValueError(f"uncut_cdf: a {self.kind} range has no cut (shifted_lognormal "
                             "only)")
        y = _number("uncut_cdf", "x", x) + self.shift
        return 0.0 if y <= 0 else NormalDist().cdf((math.log(y) - self._mu) / self._sigma)

    def _cut_quantile(self, q: np.ndarray):
        """``_quantile`` of a shifted_lognormal range (its docstring)."""
        nd = NormalDist()
        a, b = self.uncut_cdf(self.low), self.uncut_cdf(self.high)
        if b <= a:                       # a range of zero width, or no mass inside it
            return self.point + 0 * np.asarray(q, dtype=float)
        p = np.clip(a + np.asarray(q, dtype=float) * (b - a), np.nextafter(0.0, 1.0),
                    np.nextafter(1.0, 0.0))
        z = np.vectorize(nd.inv_cdf, otypes=[float])(p) if p.ndim else nd.inv_cdf(float(p))
        return np.clip(np.exp(self._mu + self._sigma * z) - self.shift, self.low, self.high)

    @property
    def _mu(self):
        return (math.log(self.p10) + math.log(self.p90)) / 2.0

    @property
    def _sigma(self):
        return (math.log(self.p90) - math.log(self.p10)) / (2.0 * Z90)

    def draws(self, samples: int, seed: int, key: str) -> np.ndarray:
        """``samples`` draws, from ``default_rng([seed, crc32(key)])`` (common random numbers:
        the same seed and key give the same draws in any scenario), each the range's quantile
        of one uniform draw (inverse-CDF sampling), whatever the kind: a log-normal range and a
        triangular one on the same key are paired draw by draw (rank for rank).

        Raises
        ------
        ValueError
            ``samples`` not a whole number >= 1, ``seed`` not a whole number >= 0 or ``key``
            not a string.
        """
        if not _whole(samples) or samples < 1:
            raise ValueError(f"samples={samples!r} must be a whole number >= 1")
        u = rng_for(seed, key).random(samples)
        if self.kind == "lognormal":   # Φ⁻¹ needs u > 0: a draw of exactly 0 (odds 2^-53) is
            u = np.where(u > 0, u, np.nextafter(0.0, 1.0))   # taken as the smallest double
        return np.asarray(self._quantile(u), dtype=float)

    def describe(self, fmt=None) -> str:
        """'uniform 0.3-0.5', 'triangular 0.3 / 0.4 / 0.5', 'lognormal P10 1e+05, P90 1e+07',
        'lognormal of x + 1, P10 1.37, P90 3.5, cut to 0-10 (x drawn: P10 0.4101, P90 2.512)',
        the drawn quantiles of x after the cut (a trial read P10 1.37 in the text and 0.41 in
        the tornado); ``fmt`` (a function of a number,
        e.g. ``units.fmt_usd``) formats each figure instead of four significant digits."""
        f = fmt or (lambda x: f"{x:.4g}")
        if self.kind == "uniform":
            return f"uniform {f(self.low)}-{f(self.high)}"
        if self.kind == "triangular":
            return f"triangular {f(self.low)} / {f(self.mode)} / {f(self.high)}"
        if self.kind == "two_piece":
            return (f"two-piece triangular {f(self.low)} / {f(self.mode)} / {f(self.high)}, "
                    f"median {f(self.mode)}: half the draws each side")
        if self.kind == "two_piece_cut":
            return (f"two-piece triangular {f(self.low)} / {f(self.mode)} / {f(self.high)} cut "
                    f"at {f(self.cut)} (draws above it taken at it), median {f(self.point)}")
        if self.kind == "shifted_lognormal":  # the cut moves x's own P10 and P90: said too
            lo, hi = (float(self.quantile(q)) for q in (0.1, 0.9))
            return (f"lognormal of x + {f(self.shift)}, P10 {f(self.p10)}, P90 "
                    f"{f(self.p90)}, cut to {f(self.low)}-{f(self.high)} (x drawn: P10 {f(lo)}, "
                    f"P90 {f(hi)})")
        return f"lognormal P10 {f(self.p10)}, P90 {f(self.p90)}"

    def __str__(self):
        return self.describe()

    def to_yaml(self):
        """The scenario-file form of the range (a list or a mapping)."""
        if self.kind == "uniform":
            return [self.low, self.high]
        if self.kind == "triangular":
            return {"low": self.low, "mode": self.mode, "high": self.high}
        if self.kind == "two_piece":
            return {"dist": "two_piece", "low": self.low, "mode": self.mode, "high": self.high}
        if self.kind == "two_piece_cut":
            return {"dist": "two_piece_cut", "low": self.low, "mode": self.mode,
                    "high": self.high, "cut": self.cut}
        if self.kind == "shifted_lognormal":
            return {"dist": "shifted_lognormal", "p10": self.p10, "p90": self.p90,
                    "shift": self.shift, "low": self.low, "high": self.high}
        return {"dist": "lognormal", "p10": self.p10, "p90": self.p90}


def band_ends(r: Range) -> tuple:
    """The 90% band a range drawn by ``montecarlo.band_drawn`` stands for, ``(low, high)``: its
    P5 and P95 (the band's ends, 5% of the draws beyond each), or its mode where the mode is an
    end (a triangle peaked at its top: the band runs up to the mode)."""
    top = r.mode if r.kind == "triangular" and r.mode >= r.high else float(r.quantile(0.95))
    bottom = r.mode if r.kind == "triangular" and r.mode <= r.low else float(r.quantile(0.05))
    return float(bottom), float(top)


#: Inputs whose values are fractions, said as percentages by ``range_words``.
PERCENT_KEYS = ("mfu", "rl_train_mfu", "serve_occupancy", "ledger_rerun_probability",
                "ledger_reserve_fraction")


def range_words(key: str, r: Range) -> str:
    """``r.describe()`` in the unit of input ``key``: a fraction's figures as percentages
    (``PERCENT_KEYS``), and an MFU drawn around a band (two-piece, ``montecarlo.band_drawn``)
    with that band's ends, the draws' P5 and P95 (``band_ends``): a trial read "mfu (two-piece
    triangular 0.06622 / 0.1198 / 0.2579, ...)" in the bill's note beside "band 8.3%–21.4%" in
    its heading, one range, and could not tell."""
    if key not in PERCENT_KEYS:
        return r.describe()
    text = r.describe(fmt=lambda x: f"{x:.1%}")
    if key == "mfu" and r.kind in ("two_piece", "two_piece_cut"):
        lo, hi = band_ends(r)
        text += f"; P5 {lo:.1%}, P95 {hi:.1%}"
    return text


def rng_for(seed: int, key: str) -> np.random.Generator:
    """The generator of input ``key``'s draws: ``default_rng([seed, zlib.crc32(key)])``.

    Raises
    ------
    ValueError
        ``seed`` not a whole number >= 0, or ``key`` not a string.
    """
    if not _whole(seed) or seed < 0:
        raise ValueError(f"seed={seed!r} must be a whole number >= 0")
    if not isinstance(key, str):
        raise ValueError(f"key={key!r} must be the input's name, a string")
    return np.random.default_rng([int(seed), zlib.crc32(key.encode())])


def _whole(v) -> bool:
    """A whole number: an int or numpy integer, not a bool."""
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _quantile_levels(q, open_ends: bool) -> np.ndarray:
    """``q`` as a float array, checked: numbers (not strings or booleans) in [0, 1], or in
    (0, 1) with ``open_ends``; a ``ValueError`` naming the value and the rule otherwise."""
    rule = "in (0, 1)" if open_ends else "in [0, 1]"
    numeric = isinstance(q, np.ndarray) and q.dtype.kind in "iuf" or all(
        isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)
        for x in np.asarray(q, dtype=object).ravel())
    if not numeric:
        raise ValueError(f"q={q!r} must be numbers {rule} (quantile levels)")
    out = np.asarray(q, dtype=float)
    bad = ~np.isfinite(out) | (out <= 0 if open_ends else out < 0) | \
        (out >= 1 if open_ends else out > 1)
    if np.any(bad):
        first = float(out.ravel()[np.argmax(bad.ravel())])
        raise ValueError(f"q={first!r} must be a number {rule} (a quantile level)")
    return out


def _number(name, field, v) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) \
            or not math.isfinite(float(v)):
        raise ValueError(f"{name}: range {field}={v!r} must be a finite number")
    return float(v)


_FIELDS = {"uniform": ("low", "high"), "triangular": ("low", "mode", "high"),
           "two_piece": ("low", "mode", "high"), "two_piece_cut": ("low", "mode", "high", "cut"),
           "lognormal": ("p10", "p90"),
           "shifted_lognormal": ("p10", "p90", "shift", "low", "high")}


def check_range(r: Range, name: str = "range", shown=None) -> None:
    """Refuse a malformed range, however it was made (a scenario value or ``Range(...)``): the
    kind, exactly its fields as finite numbers, and their order (low <= high; low <= mode <=
    high; 0 < p10 <= p90). The message names ``name``, the value and the rule."""
    if r.kind not in KINDS:
        raise ValueError(f"{name}: kind={r.kind!r} must be one of {', '.join(KINDS)}")
    need = _FIELDS[r.kind]
    given = {f: getattr(r, f, None) for f in NUMBER_FIELDS}
    if shown is None:
        shown = {"kind": r.kind, **{f: v for f, v in given.items() if v is not None}}
    missing = [f for f in need if given[f] is None]
    extra = [f for f in given if f not in need and given[f] is not None]
    if missing or extra:
        raise ValueError(f"{name}={shown!r}: a {r.kind} range has exactly the keys "
                         f"{', '.join(need)}" + (f" (missing {', '.join(missing)})"
                                                if missing else "")
                         + (f" (unknown {', '.join(extra)})" if extra else ""))
    v = {f: _number(name, f, given[f]) for f in need}
    if r.kind == "uniform" and not v["low"] <= v["high"]:
        raise ValueError(f"{name}={shown!r}: a uniform range [low, high] needs low <= high")
    if r.kind in ("triangular", "two_piece") and not v["low"] <= v["mode"] <= v["high"]:
        raise ValueError(f"{name}={shown!r}: a {r.kind} range needs low <= mode <= high")
    if r.kind in ("two_piece", "two_piece_cut") and v["low"] < v["high"] \
            and v["mode"] in (v["low"], v["high"]):
        raise ValueError(f"{name}={shown!r}: a {r.kind} range needs low < mode < high (a mode "
                         "at an end would put half the draws on that end; a triangular range "
                         "peaks there without it)")
    if r.kind == "two_piece_cut" and not v["low"] < v["cut"] <= v["high"]:
        raise ValueError(f"{name}={shown!r}: a two_piece_cut range needs low < cut <= high")
    if r.kind in ("lognormal", "shifted_lognormal") and not 0 < v["p10"] <= v["p90"]:
        raise ValueError(f"{name}={shown!r}: a {r.kind} range needs 0 < p10 <= p90")
    if r.kind == "shifted_lognormal" and not -v["shift"] <= v["low"] <= v["high"]:
        raise ValueError(f"{name}={shown!r}: a shifted_lognormal range needs -shift <= low <= "
                         "high (x + shift is positive)")


def parse_range(name: str, value) -> Range | None:
    """A scenario value as a ``Range``, or None when it is not a range (a plain number, a
    string, None).

    ``[low, high]`` is uniform; ``{low, mode, high}`` triangular; ``{dist: lognormal, p10,
    p90}`` lognormal (``{dist: uniform, low, high}`` and ``{dist: triangular, ...}`` are the
    long forms). A ``Range`` is returned as it is.

    Raises
    ------
    ValueError
        A malformed range: the message names ``name``, the value and the rule (low ≤ mode ≤
        high; 0 < p10 ≤ p90; exactly two numbers in a list).
    """
    if isinstance(value, Range):
        check_range(value, name)  # checked when made; checked again to name the key
        return value
    if isinstance(value, (list, tuple)):
        if len(value) != 2:
            raise ValueError(f"{name}={value!r}: a range as a list is [low, high] (uniform), "
                             "two numbers")
        lo, hi = (_number(name, f, v) for f, v in zip(("low", "high"), value))
        return _made(name, value, "uniform", low=lo, high=hi)
    if isinstance(value, dict):
        dist = value.get("dist", "triangular" if "mode" in value else
                         "uniform" if "low" in value else None)
        fields = _FIELDS
        if dist not in fields:
            raise ValueError(f"{name}={value!r}: a range is [low, high], {{low, mode, high}} or "
                             "{dist: lognormal, p10, p90} (dist must be uniform, triangular, "
                             "two_piece, two_piece_cut, lognormal or shifted_lognormal)")
        extra = set(value) - set(fields[dist]) - {"dist"}
        missing = [f for f in fields[dist] if f not in value]
        if extra or missing:
            raise ValueError(f"{name}={value!r}: a {dist} range has exactly the keys "
                             f"{', '.join(fields[dist])}" + (f" (missing {', '.join(missing)})"
                                                            if missing else "")
                             + (f" (unknown {', '.join(sorted(map(str, extra)))})"
                                if extra else ""))
        v = {f: _number(name, f, value[f]) for f in fields[dist]}
        return _made(name, value, dist, **v)
    return None


def _made(name, shown, kind, **fields) -> Range:
    """``Range(kind, **fields)``, its ValueError naming ``name`` and the scenario value."""
    unchecked = SimpleNamespace(kind=kind, **{f: fields.get(f) for f in NUMBER_FIELDS})
    check_range(unchecked, name, shown)
    return Range(kind, **fields)


def lognormal_mean(p5: float, p95: float) -> float:
    """The mean of the log-normal whose 5th and 95th percentiles are ``p5`` and ``p95`` (the
    "90% CI" of Epoch AI's ``lognorm_from_90_ci``, training-cost-trends ``utils.py``):

        σ = ln(p95 / p5) / (2·z₉₅),  median = √(p5·p95),  mean = median · exp(σ² / 2)

    with z₉₅ = Φ⁻¹(0.95) (``Z95``). The mean lies above the median by exp(σ²/2): a sum over
    many independent draws (a cost per contributor summed over a paper's authors) is near the
    count × the mean, not × the median.

    Raises
    ------
    ValueError
        ``p5`` or ``p95`` not a finite positive number, or ``p5 > p95``.
    """
    lo, hi = _number("lognormal_mean", "p5", p5), _number("lognormal_mean", "p95", p95)
    if not (lo > 0 and hi > 0):
        raise ValueError(f"lognormal_mean: p5={p5!r} and p95={p95!r} must be positive")
    if lo > hi:
        raise ValueError(f"lognormal_mean: p5={p5!r} must be <= p95={p95!r}")
    sigma = math.log(hi / lo) / (2.0 * Z95)
    return math.sqrt(lo * hi) * math.exp(sigma * sigma / 2.0)


def point(value):
    """The point of a value: a ``Range``'s midpoint (uniform), mode (triangular; two_piece, its
    median too) or median (lognormal); any other value itself."""
    return value.point if isinstance(value, Range) else value


def is_ranged(value) -> bool:
    return isinstance(value, Range) and not is_point_range(value)


def is_point_range(r: Range) -> bool:
    """A range of zero width (low = high, or p10 = p90): it is its point."""
    if r.kind == "shifted_lognormal":
        return r.p10 == r.p90 or r.low == r.high
    if r.kind == "two_piece_cut":
        return r.low == r.high or r.low == r.cut
    return (r.p10 == r.p90) if r.kind == "lognormal" else (r.low == r.high)
