"""The Monte Carlo of a bill with ranges: draws, a bill priced over them, and their summaries.

``ledger.simulate_ledger`` draws every ranged input (``scenario_ranges``) ``samples`` times with
common random numbers (``Range.draws``) and prices the bill once with those inputs as numpy
arrays (``price_draws``: the ledger's own arithmetic broadcast over the draws, each draw a
whole bill). ``LedgerDraws`` holds the result: per line and for the total the mean and
P10 / P50 / P90 (``summary``: percentiles do not add), and the tornado (``tornado``: the total
with each input at its P10 and P90, the others at their points). A draw that breaks a rule of
the bill is found by bisection (``draws_error``), which names the input and the part of its
range that does.

This module does not import the ledger: the ledger passes its pricing function in (``build``),
so the ledger can re-export what is here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..training.accuracy import ALPHA, uncapped_high
from ..core.units import fmt_usd
from .ranges import Range, is_ranged, range_words
from .scenario import ScenarioError, ScenarioNeverFinishes, scenario_error

class Draws(np.ndarray):
    """Draws of one quantity while ``simulate_ledger`` prices the bill over many samples at once:
    an ndarray that formats as its first draw, so the 'how' sentences of the lines can still be
    built (``simulate_ledger`` discards them: the point bill's sentences are the ones shown)."""

    def __format__(self, spec):
        return format(float(self.flat[0]), spec) if self.size else "[]"


def number_or_draws(x):
    """A Python float for a single number (the point bill: exactly today's arithmetic), draws
    (a ``Draws`` array) otherwise."""
    return float(x) if np.ndim(x) == 0 else np.asarray(x, dtype=float).view(Draws)


def beyond_rounding(spread: float, amount: float) -> bool:
    """True when a spread of dollars (a tornado row's swing, a total's P90 − P10 or range) is
    more than floating-point rounding of ``amount``, 1e-9 of it: a line netted out of another
    moves money between lines, and the bill's sum then differs only in its last bits (a review
    read "$270M–$270M" of such a total)."""
    return float(spread) > 1e-9 * max(abs(float(amount)), 1.0)


@dataclass
class LedgerDraws:
    """The bill of a scenario with ranges, priced over ``samples`` Monte Carlo draws at once
    (``simulate_ledger``).

    ``line_usd`` maps each priced line's key to its amounts per draw (shape ``(samples,)``; a
    line no ranged input reaches repeats its point amount), ``total_usd`` is their sum per draw,
    ``inputs`` the draws of each ranged input, ``ranges`` their ``llmcost.ranges.Range`` and
    ``point`` the bill at the points (``build_ledger``). Lines sum to the total in every draw,
    hence also at the mean; percentiles do not add (``summary``). The arrays of lines no range
    reaches are read-only broadcasts of one amount (copy one before writing into it).
    """

    line_usd: dict
    total_usd: np.ndarray
    inputs: dict
    point: object  # the point bill, a ledger.Ledger
    ranges: dict = field(default_factory=dict)
    samples: int = 0
    seed: int = 0
    _values: dict = field(default_factory=dict, repr=False)  # the point values, for tornado()
    #: the bill's pricing of validated values (``ledger.simulate_ledger`` passes its own), for
    #: tornado()
    _build: Callable | None = field(default=None, repr=False, compare=False)

    def summary(self):
        """Per line and the total: the point amount, the mean and the P10 / P50 / P90 over the
        draws, in USD (columns ``line``, ``point``, ``mean``, ``p10``, ``p50``, ``p90``; index:
        the line key, last row ``total``).

        The means add up to the total's mean (lines add up in every draw). **The P10 / P50 / P90
        columns do not add**: each is a percentile of one line on its own, and the total's P90
        is less than the sum of the lines' P90s when they do not all peak in the same draws.
        A not-modelled line (no amount) is listed with NaN. ``.attrs['note']`` says so.
        """
        keys = [ln.key for ln in self.point.lines if ln.key in self.line_usd]
        rows = []
        for k in keys + ["total"]:
            ln = self.point.line(k) if k != "total" else None
            x = self.total_usd if ln is None else self.line_usd[k]
            if x.strides and x.strides[0] == 0:  # one amount repeated: no ranged input reaches it
                mean = p10 = p50 = p90 = float(x[0])
            else:
                mean, (p10, p50, p90) = float(x.mean()), np.quantile(x, [0.1, 0.5, 0.9])
            rows.append({"key": k, "line": ln.line if ln else "total",
                         "point": ln.usd if ln else self.point.total_usd,
                         "mean": mean, "p10": float(p10), "p50": float(p50),
                         "p90": float(p90)})
        for ln in self.point.lines:
            if ln.key not in self.line_usd:
                rows.insert(-1, {"key": ln.key, "line": ln.line, "point": None, "mean": np.nan,
                                 "p10": np.nan, "p50": np.nan, "p90": np.nan})
        df = pd.DataFrame(rows).set_index("key")
        df.attrs["note"] = (
            f"{self.samples:,} Monte Carlo draw{'s' * (self.samples != 1)} (seed {self.seed}) of "
            + (", ".join(f"{k} ({range_words(k, r)})" for k, r in self.ranges.items()) or
               "no ranged input (every draw is the point bill)")
            + ". Lines add up to the total in every draw and at the mean; the P10 / P50 / P90 "
            "columns are percentiles of each line on its own and do not add up.")
        return df

    def tornado(self):
        """What drives the spread: for each ranged input, the total with that input at its
        P10 and at its P90 and every other input at its point (the mode, midpoint or median),
        sorted by the swing |total(P90) − total(P10)|, largest first.

        Returns
        -------
        DataFrame with ``input``, ``range``, ``p10`` and ``p90`` (the input's own percentiles),
        ``total_at_p10_usd``, ``total_at_p90_usd`` and ``swing_usd``; ``.attrs['point_usd']``
        is the point bill's total. An input whose P10 and P90 give the same total, to rounding
        (1e-9 of the bill: its line netted against another, say) or to the printed figure
        (``fmt_usd``'s three digits), is left out and named in ``.attrs['no_swing']`` and
        ``['note']``.
        Empty (with ``.attrs['note']``) without ranged inputs, or when none moves the bill.
        """
        cols = ["input", "range", "p10", "p90", "total_at_p10_usd", "total_at_p90_usd",
                "swing_usd"]
        if not self.ranges:
            df = pd.DataFrame(columns=cols)
            df.attrs.update(point_usd=self.point.total_usd,
                            note="no ranged input: nothing drives a spread")
            return df
        keys = list(self.ranges)
        n = 2 * len(keys)
        draws = {}
        for j, k in enumerate(keys):
            col = np.full(n, float(self._values[k]))
            col[2 * j] = float(self.ranges[k].quantile(0.1))
            col[2 * j + 1] = float(self.ranges[k].quantile(0.9))
            draws[k] = col
        total = price_draws(self._build, self._values, draws, n)[1]
        rows = [{"input": k, "range": range_words(k, self.ranges[k]), "p10": draws[k][2 * j],
                 "p90": draws[k][2 * j + 1], "total_at_p10_usd": float(total[2 * j]),
                 "total_at_p90_usd": float(total[2 * j + 1]),
                 "swing_usd": float(abs(total[2 * j + 1] - total[2 * j]))}
                for j, k in enumerate(keys)]
        # a swing within floating-point rounding of the bill is none: a netted line moves
        # money between lines, and the sum differs in its last bits; one the bill's printed
        # figures do not show is none a reader can act on (the RL factor moves the storage
        # priced over the schedule by dollars: a review read "$5.67M–$5.67M" as a driver)
        point = float(self.point.total_usd)
        moves = [beyond_rounding(r["swing_usd"], point) and
                 fmt_usd(r["total_at_p10_usd"]) != fmt_usd(r["total_at_p90_usd"]) for r in rows]
        still = [r["input"] for r, m in zip(rows, moves) if not m]
        df = pd.DataFrame([r for r, m in zip(rows, moves) if m], columns=cols).sort_values(
            "swing_usd", ascending=False, ignore_index=True)
        df.attrs["point_usd"] = self.point.total_usd
        if still:  # a drawn input that moves nothing is no driver (a netted-out line's fraction)
            df.attrs["no_swing"] = still
            df.attrs["note"] = (f"{', '.join(still)}: ranged, but the bill reads the same at "
                                "its P10 and its P90, so not listed")
        return df

    def percentiles(self, key: str = "total") -> dict:
        """``{"p10": ..., "p50": ..., "p90": ...}`` of one line's draws (or the total's), USD."""
        x = self.total_usd if key == "total" else self.line_usd.get(key)
        if x is None:
            raise ValueError(f"key={key!r} must be 'total' or a priced line: "
                             f"{', '.join(self.line_usd)}")
        q = np.quantile(x, [0.1, 0.5, 0.9])
        return {"p10": float(q[0]), "p50": float(q[1]), "p90": float(q[2])}

    def bill_summary(self) -> dict:
        """``summary.json``'s bill with its ranges: the point bill's ``Ledger.summary()``, each
        line with ``mean_usd``, ``p10_usd``, ``p50_usd`` and ``p90_usd`` beside its ``usd`` (the
        point), the total's (``bill.total_p10_usd``, ...), the ranged inputs
        (``bill.ranges``), the tornado (``bill.tornado``), the draws and seed, and the note
        that percentiles do not add (``bill.range_note``). Without ranges every percentile is
        the point amount."""
        out = self.point.summary()
        s = self.summary()
        stats = ("mean", "p10", "p50", "p90")
        for k, ln in out["bill.lines"].items():
            for c in stats:
                v = s.loc[k, c]
                ln[f"{c}_usd"] = None if v != v else float(v)
        for c in stats:
            out[f"bill.total_{c}_usd"] = float(s.loc["total", c])
        out.update({"bill.samples": self.samples, "bill.seed": self.seed,
                    "bill.ranges": {k: range_words(k, r) for k, r in self.ranges.items()},
                    "bill.tornado": (torn := self.tornado()).to_dict("records"),
                    "bill.tornado_note": torn.attrs["note"] if torn.attrs.get("no_swing") else "",
                    "bill.range_note": s.attrs["note"]})
        return out


def price_draws(build: Callable, values: dict, draws: dict, samples: int, ranges=None):
    """Price the bill with some inputs as arrays of draws (the rest at their points): ``build``
    (the ledger's pricing of validated values, the same as the point bill's) with its arithmetic
    broadcast over the draws. Returns (line_usd dict, total_usd array); lines without an amount
    (not modelled) are left out."""
    q = dict(values)
    for k, arr in draws.items():
        q[k] = np.asarray(arr, dtype=float).view(Draws)
    try:
        with np.errstate(all="ignore"):
            led = build(q)
    except ValueError as e:
        raise draws_error(build, values, draws, samples, e, ranges) from None
    line_usd = {}
    for ln in led.lines:
        if ln.usd is None:
            continue
        line_usd[ln.key] = np.broadcast_to(np.asarray(ln.usd, dtype=float), (samples,)).view(
            np.ndarray)
    total = sum(line_usd.values())  # in line order, as Ledger.total_usd adds them
    return line_usd, np.broadcast_to(np.asarray(total, dtype=float), (samples,)).copy()


def scalar_error(build: Callable, values: dict, key: str, x: float):
    """The error of the point bill with ``key`` at ``x`` (None when it prices)."""
    try:
        with np.errstate(all="ignore"):
            build({**values, key: float(x)})
    except ValueError as e:
        return e
    return None


def draws_error(build: Callable, values: dict, draws: dict, samples: int, err: Exception,
                ranges=None):
    """A ScenarioError for a bill that cannot be priced in some draws: for each ranged input
    alone (the others at their points), the draws that break a rule are found by bisection on
    its sorted draws (the rules of the bill are monotone in each input: a higher failure rate,
    restart time or pre-emption rate only lowers goodput); the message names the input, the
    part of its range that breaks the rule, how many of the draws do, and the rule (the error
    of the bill at its worst draw). When no input breaks alone, the combination does. The error
    carries ``draws_words`` (the parts, without the advice) and ``failing_draws`` (how many
    draws break a rule, when a single input is ranged; else None)."""
    parts, causes = [], []
    for k, arr in draws.items():
        xs = np.sort(np.asarray(arr, dtype=float))
        lo_bad, hi_bad = scalar_error(build, values, k, xs[0]), scalar_error(build, values, k, xs[-1])
        causes += [e for e in (lo_bad, hi_bad) if e is not None]
        if lo_bad is None and hi_bad is None:
            continue
        if hi_bad is not None and lo_bad is None:  # bad above a threshold: first bad index
            a, b = 0, len(xs) - 1  # xs[a] good, xs[b] bad
            while b - a > 1:
                m = (a + b) // 2
                a, b = (a, m) if scalar_error(build, values, k, xs[m]) else (m, b)
            n_bad, part, worst = len(xs) - b, f"draws above {xs[a]:.4g}", hi_bad
        elif lo_bad is not None and hi_bad is None:
            a, b = 0, len(xs) - 1  # xs[a] bad, xs[b] good
            while b - a > 1:
                m = (a + b) // 2
                a, b = (m, b) if scalar_error(build, values, k, xs[m]) else (a, m)
            n_bad, part, worst = a + 1, f"draws below {xs[b]:.4g}", lo_bad
        else:
            n_bad, part, worst = len(xs), "its whole range", hi_bad
        r = (ranges or {}).get(k)
        parts.append(f"{k} ({r.describe() if r is not None else 'ranged'}): {part} break a rule "
                     f"in {n_bad:,} of {samples:,} draws (the other inputs at their points); at "
                     f"its worst draw, {xs[-1] if worst is hi_bad else xs[0]:.4g}: {worst}")
    # a draw that never finishes keeps its kind (scenario_error), as the point bill's error does
    cause = next((e for e in causes if isinstance(e, ScenarioNeverFinishes)), err)
    if parts:
        out = scenario_error("the bill cannot be priced in some Monte Carlo draws: "
                             + "; ".join(parts) + ". " + _range_advice(values, ranges), cause)
        out.draws_words = "; ".join(parts)  # the draws that break it, without the advice
        out.failing_draws = n_bad if len(draws) == 1 else None  # exact with one ranged input
        return out
    return scenario_error("the bill cannot be priced in some Monte Carlo draws of the ranged "
                          f"inputs {', '.join(draws)} taken together (each alone prices at "
                          f"every one of its draws): {err}. Narrow the ranges", cause)


def _range_advice(values: Mapping, ranges=None) -> str:
    """What the user can change when some draws of the ranges break a rule. A range the user
    wrote: narrow it. The MFU's band that the bill draws by itself (``predicted_mfu_range``
    around a ``mfu: predict`` prediction, or the pilots' band a report passes with
    ``mfu_band``) is not the user's to narrow: obey the rule at the band's low end (the rule's
    own advice), or give ``mfu`` as a number or a range of one's own."""
    band = (ranges or {}).get("mfu")
    pred = values.get("_mfu_prediction") if isinstance(values, Mapping) else None
    own = values.get("mfu_band") in ("predicted", "pilot") or (
        band is not None and band == predicted_mfu_range(pred))
    if band is None or not own:
        return "Narrow the range(s) so that every draw obeys the rule"
    words = {"pilot": "the pilots' extrapolation band"}.get(
        values.get("mfu_band"), "the step-time model's error band around its prediction")
    low = f" ({band.low:.1%}, below the band's own low end, its P5)" \
        if values.get("mfu_band") != "pilot" else f" ({band.low:.1%})"
    return (f"The range on mfu is not the scenario's: it is {words}, which the bill draws; "
            f"change the scenario so that the rule holds at the drawn range's low end{low} (the "
            "rule's own advice above), or give mfu as a number, or a range of your own, to bill "
            "without the band")


def predicted_mfu_range(pred) -> Range | None:
    """The step-time model's error band on a predicted MFU (``_mfu_prediction``, set by
    ``report.resolve_mfu``) as a range on ``mfu``: two-piece triangular whose P5 and P95 are
    the band's low and high (``band_drawn``: the band is a 90% interval of the model's errors,
    so its ends are widened from the mode by 1 / (1 − √0.1) = 1.46; capped where no run has
    measured more, ``accuracy.band_cap``; never above MFU 1) with its mode and median at the
    bill's MFU (the record's ``value``: the band's central
    estimate, ``accuracy.central_mfu``, the prediction corrected by the median of the model's
    errors, so half the draws lie on each side of it; where the band's top was capped, the
    whole band cut at the cap, ``_capped_band``; else a triangle where that estimate is an end
    of the band: ``peaked_at``, its far end widened by 1 / (1 − √0.05) = 1.29),
    so that the range's point is the figure
    every page prints and the draws' median too. A triangle peaked there had its median
    elsewhere where the band is lopsided (a band 37.8%-54.6% capped above a central 49.3%:
    median 47.6%), so a bill's P50 left its point and `estimate --compare` printed an FP8
    saving outside its own per-draw P10-P90. None without a band of non-zero width."""
    band = pred.get("band", {}) if isinstance(pred, dict) else {}
    if "low" not in band or "high" not in band:
        return None
    low, high = float(band["low"]), min(float(band["high"]), 1.0)
    if not high > low:
        return None
    mode = min(max(float(pred.get("value", low)), low), high)
    cut = _capped_band(pred, low, high, mode)
    return cut if cut is not None else band_drawn(low, mode, high)


def predicted_band_of(values: Mapping) -> Range | None:
    """The range a bill draws on its MFU when that MFU is the step-time model's prediction
    (``mfu: predict``: ``values['mfu']`` is the ``_mfu_prediction`` record's value, not a range
    of the scenario's own): ``predicted_mfu_range`` of the record; None otherwise, or without a
    band of non-zero width."""
    pred = values.get("_mfu_prediction") if isinstance(values, Mapping) else None
    band = predicted_mfu_range(pred)
    if band is None or isinstance(values.get("mfu"), Range) or \
            values.get("mfu") != pred.get("value"):
        return None
    return band


def _capped_band(pred: dict, low: float, cap: float, value: float) -> Range | None:
    """``predicted_mfu_range`` of a band whose top ``accuracy.band_cap`` lowered: the model's
    whole band, two-piece from ``low`` through its central estimate c̃ = p / (1 + c) to its
    uncapped top p / (1 + c − w) (``accuracy.uncapped_high``; at most 1), both ends widened so
    that they are the draws' P5 and P95 (``band_drawn``), every draw above the cap taken at the
    cap (``ranges`` kind two_piece_cut): its median min(c̃, cap), the bill's
    MFU. A quantile of it is then one model error, as in an uncapped band, so two bills drawn on
    common random numbers pair one error, where a band squeezed under its cap paired another
    (a trial's BF16 → FP8 compare, the BF16 band capped 12% above its point and the FP8 one
    24%: the saving's point outside its own P10-P90). None where the band was not capped, or its
    record lacks the prediction (``report.resolve_mfu``'s ``predicted``, ``center``, the band's
    ``center`` and ``half_width``)."""
    b = pred["band"]
    if b.get("capped_above") is None or any(pred.get(k) is None for k in ("predicted", "center")) \
            or any(b.get(k) is None for k in ("center", "half_width")):
        return None
    top = min(float(uncapped_high(float(pred["predicted"]), float(b["center"]),
                                  float(b["half_width"]))), 1.0)
    # the bill's MFU is the central estimate as the record rounds it, or the cap where the
    # estimate is above it (then the estimate itself is the mode, the draws' median the cap)
    center = float(pred["center"])
    if abs(min(center, cap) - value) > 1e-5:
        return None
    mode = value if value < cap else center
    if not low < mode < top or not cap < top:
        return None
    return band_drawn(low, mode, top, cut=cap)


#: Share of the draws the bill puts beyond each end of an MFU band: the band is a 1 − ALPHA =
#: 90% interval of the model's errors (``accuracy.ALPHA``), 5% of runs below it, 5% above.
BAND_TAIL = ALPHA / 2
#: A half-triangle from l to m holding half the draws has its q-quantile (q ≤ ½) at
#: l + (m − l)√(2q): its P5 lies (1 − √(2 × 0.05)) = 68.4% of the way from m to l. Drawn over
#: the band's own ends no draw fell outside the band; the ends are widened by
#: 1 / (1 − √(2 × 0.05)) = 1.4625 so that the band's ends are the draws' P5 and P95.
TWO_PIECE_WIDEN = 1.0 / (1.0 - (2.0 * BAND_TAIL) ** 0.5)
#: The same for a triangle whose mode is its top (or bottom): its P5 lies (1 − √0.05) = 77.6%
#: of the way from the mode to the far end, so the far end is widened by 1 / (1 − √0.05) = 1.288.
TRIANGLE_WIDEN = 1.0 / (1.0 - BAND_TAIL ** 0.5)
#: The lowest a band's drawn range reaches, as a share of the band's low end (``band_drawn``):
#: half the lowest MFU the band allows, a cost twice its dearest end. A judgement, not fitted:
#: it binds only where the band's low end is under ~0.4 of the bill's MFU (no regime's band is,
#: the lowest being 0.62; a given MFU far above a capped band is).
BAND_FLOOR_SHARE = 0.5


def band_drawn(low: float, mode: float, high: float, cut: float | None = None) -> Range:
    """The range the bill draws for a 90% MFU band [``low``, ``high``] around ``mode`` (the
    bill's MFU): peaked at ``mode`` (``peaked_at``: two-piece, half the draws on each side, so
    ``mode`` is their median; a triangle where ``mode`` is an end), its ends widened so that the
    band's ends are the draws' P5 and P95 (``BAND_TAIL``: 5% of runs lie below a 90% band and 5%
    above it; drawn over the band's own ends, none would):

        two-piece:  low' = m − (m − low) / (1 − √0.1),  high' = m + (high − m) / (1 − √0.1)
        (a half-triangle's q-quantile l + (m − l)√(2q) is ``low`` at q = 0.05);
        triangle peaked at its top m:  low' = m − (m − low) / (1 − √0.05), and likewise above.

    Draws above ``cut`` (a cap where no comparable run measured more, ``accuracy.band_cap``;
    MFU 1 at most in any case) are taken at it (``two_piece_cut``); a triangle peaked at its
    low end ends at the cut. The low end is never below ``BAND_FLOOR_SHARE`` (½) of the band's
    own: a given MFU far above a band capped low (the triangle from L up to m has its P5 at L
    only if m − (m − L) / (1 − √0.05) > 0, i.e. L > 0.224 m) would draw MFUs near 0, bills
    hundreds of times the point; there the bottom is L / 2 and the draws' P5 lies above L
    (``band_ends`` and the words read the range as drawn). max() keeps the range continuous in
    the band. ValueError for a band not 0 < low <= mode <= high."""
    if not 0 < low <= mode <= high:
        raise ValueError(f"mfu band low={low!r}, mode={mode!r}, high={high!r} must satisfy "
                         "0 < low <= mode <= high")
    top = 1.0 if cut is None else min(float(cut), 1.0)
    # an end within a thousandth of the band's width of the mode is the mode (the point kept):
    # a two-piece range would put half its draws in that sliver (a pilot's band whose top is
    # its calibrated MFU, the ceiling it measured, differs from it in the fifth digit)
    eps = 1e-3 * (high - low)
    high = mode if 0 < high - mode < eps else high
    low = mode if 0 < mode - low < eps else low
    lo_w = TRIANGLE_WIDEN if mode >= high else TWO_PIECE_WIDEN
    hi_w = TRIANGLE_WIDEN if mode <= low else TWO_PIECE_WIDEN
    low2 = max(mode - (mode - low) * lo_w, BAND_FLOOR_SHARE * low)
    high2 = mode + (high - mode) * hi_w
    if low < mode < high and high2 > top:
        return Range("two_piece_cut", low=low2, mode=mode, high=high2, cut=top)
    return peaked_at(low2, mode, min(high2, top))


def peaked_at(low: float, mode: float, high: float) -> Range:
    """A range over [low, high] whose point is ``mode``: two-piece triangular (``ranges``: half
    the draws on each side, so ``mode`` is the draws' median too) where ``mode`` lies strictly
    inside, a triangle where it is an end (a two-piece range would put half its draws on that
    end: a bill's MFU at its band's capped top, every draw at most that MFU)."""
    kind = "two_piece" if low < mode < high else "triangular"
    return Range(kind, low=low, mode=mode, high=high)


def scenario_ranges(values: dict) -> dict:
    """The ranged inputs of validated scenario values: each ``llmcost.ranges.Range`` of non-zero
    width, plus the step-time model's error band on a predicted MFU (``predicted_mfu_range``)
    on ``mfu`` when ``mfu`` is not ranged already (its point stays the bill's MFU)."""
    if not isinstance(values, Mapping):
        raise ValueError(f"values={values!r} must be a mapping of scenario values")
    out = {k: v for k, v in values.items() if is_ranged(v)}
    band = predicted_mfu_range(values.get("_mfu_prediction"))
    if "mfu" not in out and band is not None and \
            values.get("ledger_pilot_tokens_per_s_per_gpu") is None:
        out["mfu"] = band
    return out


#: Most Monte Carlo draws ``simulate_ledger`` takes: every draw holds each of the bill's ~40
#: lines as a float64 (1,000,000 draws: ~0.3 GB for the lines, more while pricing them).
MAX_SAMPLES = 1_000_000
