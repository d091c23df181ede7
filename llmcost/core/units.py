"""Units, constants and formatting.

Everything inside llmcost is in SI base units: FLOP, byte, second, USD, watt. Decimal prefixes
(1 GB = 1e9 bytes) unless a name says ``gib``. This module holds the conversion constants and the
formatting helpers used at the edges (plots, widgets, printed summaries); calculation modules never
format.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
import textwrap
from numbers import Real

import numpy as np

SECONDS_PER_HOUR = 3600.0
SECONDS_PER_DAY = 86400.0
HOURS_PER_DAY = 24.0
DAYS_PER_YEAR = 365.25
HOURS_PER_YEAR = HOURS_PER_DAY * DAYS_PER_YEAR

GB = 1e9
TB = 1e12
MIB = 2.0**20
GIB = 2.0**30
TIB = 2.0**40

#: Bytes per element of each numeric format used in training.
BYTES_PER_DTYPE = {"fp32": 4, "tf32": 4, "bf16": 2, "fp16": 2, "fp8": 1}


def _number(value, name: str) -> float:
    """A real number for the formatting helpers (NaN and inf are formatted, not refused); a
    ValueError naming ``name`` for strings, None, containers and other types."""
    if isinstance(value, bool) or not isinstance(value, (Real, np.generic)) or \
            isinstance(value, (str, bytes)):
        if isinstance(value, np.ndarray) and value.ndim == 0:
            return float(value)
        raise ValueError(f"{name}={value!r} must be a number")
    return float(value)


def not_finite_text(value: float) -> str:
    """How the formatting helpers show a value that is not a finite number: ``"n/a"`` for NaN
    (nothing was computed), ``"∞"`` / ``"-∞"`` for an unbounded one; never ``nan`` or ``inf``."""
    if math.isnan(value):
        return "n/a"
    return "∞" if value > 0 else "-∞"


def _si(value: float, unit: str, prefixes: list[tuple[float, str]], digits: int) -> str:
    if not math.isfinite(value):
        return not_finite_text(value) if math.isnan(value) else \
            f"{not_finite_text(value)} {unit}"
    mag = abs(value)
    for scale, prefix in prefixes:
        if mag >= scale:
            return f"{value / scale:.{digits}g} {prefix}{unit}"
    return f"{value:.{digits}g} {unit}"


_DECIMAL = [(1e24, "Y"), (1e21, "Z"), (1e18, "E"), (1e15, "P"), (1e12, "T"), (1e9, "G"),
            (1e6, "M"), (1e3, "k")]


def fmt_flops(flops: float, digits: int = 3) -> str:
    """Format a FLOP count in scientific notation, e.g. ``fmt_flops(3.8e25) -> '3.80e+25 FLOP'``.

    Counts of FLOP are shown in scientific notation because that is how papers state them
    (Llama 3: "3.8 × 10^25 FLOPs").
    """
    v = _number(flops, "flops")
    digits = check_digits(digits)
    if not math.isfinite(v):
        return not_finite_text(v) if math.isnan(v) else f"{not_finite_text(v)} FLOP"
    return f"{v:.{digits - 1}e} FLOP"


def fmt_flops_rate(flops_per_s: float, digits: int = 3) -> str:
    """Format a rate in FLOP/s with a decimal prefix, e.g. ``'989 TFLOP/s'``."""
    return _si(_number(flops_per_s, "flops_per_s"), "FLOP/s", _DECIMAL, check_digits(digits))


def fmt_bytes(n_bytes: float, digits: int = 3, binary: bool = False) -> str:
    """Format a byte count with decimal (GB) or, if ``binary``, binary (GiB) prefixes."""
    digits = check_digits(digits)
    if as_flag(binary, "binary"):
        prefixes = [(2.0**60, "Ei"), (2.0**50, "Pi"), (2.0**40, "Ti"), (2.0**30, "Gi"),
                    (2.0**20, "Mi"), (2.0**10, "Ki")]
        return _si(_number(n_bytes, "n_bytes"), "B", prefixes, digits)
    return _si(_number(n_bytes, "n_bytes"), "B", _DECIMAL, digits)


#: ``fmt_duration``'s units: (seconds per unit, name, the printed value it stays below).
_DURATION_UNITS = ((1e-6, "µs", 1000), (1e-3, "ms", 1000), (1.0, "s", 60), (60.0, "min", 60),
                   (SECONDS_PER_HOUR, "h", 48), (SECONDS_PER_DAY, "days", 2 * DAYS_PER_YEAR))


def fmt_duration(seconds: float) -> str:
    """Format a duration in the largest sensible unit: µs, ms, s, min, h, days or years (an
    analyst read a collective's "0.000674 s" where the field says 674 µs); 0 is "0 s"."""
    s = _number(seconds, "seconds")
    if not math.isfinite(s):
        return not_finite_text(s) if math.isnan(s) else f"{not_finite_text(s)} s"
    if s == 0:
        return "0 s"
    # a unit is used while its three digits stay below its limit, as printed (0.9995 s is
    # "1 s", not "1e+03 ms"; 59.99 s is "1 min", not "60 s")
    for scale, unit, limit in _DURATION_UNITS:
        if float(f"{abs(s) / scale:.3g}") < limit:
            return f"{s / scale:.3g} {unit}"
    return f"{s / (DAYS_PER_YEAR * SECONDS_PER_DAY):.3g} years"


def fmt_usd(usd: float) -> str:
    """Format US dollars to three significant digits with a k/M/B/T suffix, trailing zeros kept
    so that a column reads alike: ``$123M``, ``$24.0k``, ``$1.22k``, ``$998``; under $100 to the
    cent (``$12.50``, a price per GPU-hour); under a cent two significant figures (``$0.0041``
    per million input tokens of a small model, which to the cent read ``$0.00``)."""
    v = _number(usd, "usd")
    if not math.isfinite(v):
        return not_finite_text(v) if math.isnan(v) else ("$∞" if v > 0 else "-$∞")
    sign, v = ("-" if v < 0 else ""), abs(v)
    if v >= 1e15:  # beyond trillions a suffix would carry an exponent ("$9e+07T")
        return f"{sign}${v:.3g}"
    for scale, suffix in [(1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")]:
        # a value that rounds up to the next suffix takes it: $999,999 is "$1.00M", not "$1000k"
        if float(f"{v:.3g}") >= scale:
            return f"{sign}${sig3(v / scale)}{suffix}"
    if round(v, 2) >= 100:
        return f"{sign}${v:,.0f}"
    if 0 < v < 0.01:  # under a cent: two significant figures ("$0.0041"), never "$0.00"
        return f"{sign}${fixed_sig2(v)}"
    return f"{sign}${v:,.2f}"


def usd_as_printed(usd: float) -> float:
    """The amount ``fmt_usd`` prints, as a number (the rounding of ``fmt_usd``, its suffix put
    back): three significant figures from $100 up (``$1.08k`` is 1,080; ``$998`` is 998),
    to the cent from a cent to $100, two significant figures under a cent. So two amounts
    compare as a reader compares their printed strings (``ledger.point_outside``)."""
    v = _number(usd, "usd")
    if not math.isfinite(v):
        return v
    a = abs(v)   # each branch rounds as fmt_usd's does, the same operands and formats
    if a >= 1e15:
        r = float(f"{a:.3g}")
    elif float(f"{a:.3g}") >= 1e3:
        scale = next(x for x in (1e12, 1e9, 1e6, 1e3) if float(f"{a:.3g}") >= x)
        r = float(sig3(a / scale)) * scale
    elif round(a, 2) >= 100:
        r = float(f"{a:.0f}")
    elif 0 < a < 0.01:
        r = float(fixed_sig2(a))
    else:
        r = float(f"{a:.2f}")
    return math.copysign(r, v)


def fixed_sig2(x: float) -> str:
    """A small number to two significant figures in fixed point, trailing zeros dropped as the
    ``g`` format drops them, never in scientific notation ("0.0047", "0.01" for 0.00999,
    "0.00001" for 1e-5, where ``.2g`` writes "1e-05")."""
    return np.format_float_positional(x, precision=2, unique=False, fractional=False, trim="-")


def sig3(x: float) -> str:
    """Three significant digits as text, keeping trailing zeros (26.0), not a bare point (968)."""
    return f"{x:#.3g}".rstrip(".")


def fmt_count(n: float, digits: int = 4) -> str:
    """Format a plain count (parameters, tokens, GPU-hours) with k/M/B/T suffixes."""
    v = _number(n, "n")
    digits = check_digits(digits)
    if not math.isfinite(v):
        return not_finite_text(v)
    for scale, suffix in [(1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")]:
        # a value that rounds up to the next suffix takes it: 999,999,999,999.9 is "1T",
        # not "1000B"
        if abs(float(f"{v:.{digits}g}")) >= scale:
            x = float(f"{v / scale:.{digits}g}")
            if abs(x) >= 10 ** digits:  # past the largest suffix: 1,000T, not 1e+03T
                return f"{x:,.0f}{suffix}"
            return f"{v / scale:.{digits}g}{suffix}"
    return f"{v:.{digits}g}"


def noun(n, singular: str, plural: str | None = None) -> str:
    """The noun that agrees with the count ``n``: ``singular`` for exactly 1, else ``plural``
    (default ``singular`` + "s"): f"{n} {noun(n, 'micro-batch', 'micro-batches')}" reads
    "1 micro-batch", "8 micro-batches"; the count itself is formatted by the caller."""
    return singular if float(n) == 1 else (plural if plural is not None else singular + "s")


def fmt_gpus(n) -> str:
    """A GPU count in prose, the noun agreeing with it: "1 GPU", "8 GPUs", "16,384 GPUs"."""
    k = int(as_scalar(n, "n", positive=True, integer=True))
    return f"{k:,} GPU" + ("" if k == 1 else "s")


def article_for(printed: str) -> str:
    """"a" or "an" before a number as printed (text: "8,192", "11000", "18.5%"), read aloud:
    "an" where it starts with a vowel sound, i.e. its leading group of digits (those before the
    first thousands separator, or the first 1-3 digits of a whole part written without
    separators, grouped by three from the right) starts with 8 (eight, eighteen, eighty, eight
    hundred: "an 8,192-token sequence") or is 11 or 18 (eleven, eighteen: "an 11,000-GPU
    cluster", "an 11000-GPU cluster"); else "a" ("a 110-day run", "a 1,800-GPU cluster": one
    hundred, one thousand; "a −8": a minus).

    Raises ``ValueError`` unless ``printed`` is text."""
    if not isinstance(printed, str):
        raise ValueError(f"printed={printed!r} must be a number as printed (text)")
    whole = re.match(r"[0-9,]*", printed.strip()).group(0)  # "18.5%": 18; "−8": none
    lead = whole.split(",")[0] if "," in whole else whole[:len(whole) % 3 or 3]
    return "an" if lead.startswith("8") or lead in ("11", "18") else "a"


def with_article(printed: str) -> str:
    """``printed`` (a number as printed) after its article, ``article_for``: "an 8,192",
    "a 2,048"."""
    return f"{article_for(printed)} {printed}"


def fmt_amount(value: float, digits: int = 4) -> str:
    """A count or amount in a table of mixed quantities: below a million as ``fmt_quantity``
    (whole with thousands separators from 10^(digits−1) up, "12,288" GPUs; else ``digits``
    significant figures, "6.561" days), from a million up as ``fmt_count`` ("1T" tokens,
    "60.99B" parameters), never in exponent form ("1.229e+04")."""
    v = _number(value, "value")
    if math.isfinite(v) and abs(v) >= 1e6:
        return fmt_count(v, digits)
    return fmt_quantity(v, digits)


def fmt_fraction_pct(fraction: float) -> str:
    """A fraction in prose as the percentage it is: whole percents without a decimal ("41%"),
    any other with one ("42.5%": a range's midpoint (0.35 + 0.5) / 2 = 0.425 is not "42%"
    beside a figure computed from 42.5%)."""
    v = _number(fraction, "fraction")
    if not math.isfinite(v):
        return not_finite_text(v)
    return f"{v:.0%}" if abs(v * 100 - round(v * 100)) < 1e-9 else f"{v:.1%}"


def fmt_percent(fraction: float) -> str:
    """A share as a percentage to three significant figures, without an exponent: "0.347%",
    "14.7%", "48.8%", and whole from 100% up, "6,090%" (a review read "6.09e+03%" of an RL
    campaign sixty times a small pre-training run; a lecturer "14.680%" beside "48.83%")."""
    v = _number(fraction, "fraction") * 100
    if not math.isfinite(v):
        return not_finite_text(v)
    return f"{v:,.0f}%" if abs(v) >= 99.95 else \
        np.format_float_positional(float(f"{v:.3g}"), trim="-") + "%"


def fmt_signed_pct(fraction: float) -> str:
    """A change as a signed whole percent, "+5%", "−3%" (a minus sign), and "0%" for any change
    that rounds to zero, never "-0%" (a trial read "changes wall-clock by -0%")."""
    v = _number(fraction, "fraction")
    if not math.isfinite(v):
        return not_finite_text(v)
    r = round(v * 100)
    return "0%" if r == 0 else f"{'+' if r > 0 else '−'}{abs(r)}%"


def fmt_probability(p: float) -> str:
    """A probability in prose: three significant figures of its percentage ("69%", "99.5%",
    "0.00045%"), "over 99.9%" where that would round to 100 and "under 0.0001%" below 1e-6,
    so a near-certain event never reads "1" or "100%" (a trial read "a chance of 1 that the
    whole run passes without one").

    Raises
    ------
    ValueError
        A value that is not a number in [0, 1].
    """
    v = as_scalar(p, "p", nonnegative=True, upper=1.0)
    if v in (0.0, 1.0):
        return f"{v:.0%}"
    pct = f"{v * 100:.3g}"
    if float(pct) >= 100:   # 0.9995 and up round to "100": a near-certainty is not one
        return "over 99.9%"
    if v < 1e-6:            # "1e-05%" reads as a typo in prose
        return "under 0.0001%"
    return f"{pct}%"


def fmt_quantity(value: float, digits: int = 3) -> str:
    """A plain quantity for prose: whole with thousands separators from 10^(digits−1) up
    ("21,588"), else ``digits`` significant figures ("0.317", "42.5"; an exponent only below
    10⁻⁴), so a small run's energy reads "0.317 MWh", not "0 MWh"."""
    v = _number(value, "value")
    digits = check_digits(digits)
    if not math.isfinite(v):
        return not_finite_text(v)
    if v == 0 or abs(v) >= 10 ** (digits - 1):
        return f"{v:,.0f}"
    return f"{v:.{digits}g}" if abs(v) >= 10 ** -4 else f"{v:.{digits - 1}e}"


def fmt_bandwidth(bytes_per_s: float) -> str:
    """A bandwidth in GB/s (decimal) for prose: ``fmt_quantity`` of the GB/s to two significant
    figures, whole from 10 GB/s up ("56 GB/s", "2,000 GB/s", "1.5 GB/s", "0.12 GB/s"), so a
    small job's storage reads "0.12 GB/s", not "0 GB/s" or "0.0 GB/s"."""
    v = _number(bytes_per_s, "bytes_per_s")
    if not math.isfinite(v):
        return not_finite_text(v) if math.isnan(v) else f"{not_finite_text(v)} GB/s"
    if 0 < v / GB < 0.01:  # fmt_quantity would write "5.0e-05"
        return f"{fixed_sig2(v / GB)} GB/s"
    return f"{fmt_quantity(v / GB, 2)} GB/s"


#: The largest whole number every smaller one of which a double holds exactly (IEEE 754 binary64:
#: a 53-bit significand). ``as_array`` converts to float64, so a count beyond it would be
#: silently rounded (and a cast back to int64 may wrap): a whole-number input above it is refused.
MAX_EXACT_INTEGER = 2**53
EXACT_INTEGER_RULE = ("a double, which every calculation here uses, holds whole numbers exactly "
                      "only up to there")


def _brief(value) -> str:
    """``value`` for an error message: a named object (a ``ModelSpec``, an ``Accelerator``) as
    its type and name, anything else its repr cut to 80 characters (a trial read a swapped
    argument as a 600-character ModelSpec repr)."""
    named = getattr(value, "name", None)
    if isinstance(named, str) and not isinstance(value, (str, bytes)):
        return f"{type(value).__name__}(name={named!r})"
    r = repr(value)
    return r if len(r) <= 80 else r[:77] + "..."


def _float_array(value, name: str) -> np.ndarray:
    """``value`` as a float ndarray, or a ValueError naming ``name``: not a number, or text
    inside a list, an array or a Series (numpy would read "0.4" there as 0.4, where the same
    string alone is refused)."""
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError):   # a ragged list
        raise ValueError(f"{name}={_brief(value)} must be a number") from None
    if raw.dtype.kind in "US" or (raw.dtype.kind == "O" and any(
            isinstance(x, (str, bytes)) for x in raw.ravel())):
        raise ValueError(f"{name}={value!r} must hold numbers, not strings")
    # a complex value lost its imaginary part to the cast (numpy's ComplexWarning only), and a
    # bool array read as 0 and 1, where a bool alone is refused (a trial's mfu=np.array([True])
    # billed an MFU of 1); a list's elements are checked as given, since numpy reads
    # [0.4, True] as [0.4, 1.0]
    items = np.asarray(value, dtype=object).ravel() if isinstance(value, (list, tuple)) \
        else raw.ravel() if raw.dtype.kind == "O" else ()
    if raw.dtype.kind == "c" or any(isinstance(x, (complex, np.complexfloating))
                                    for x in items):
        raise ValueError(f"{name}={_brief(value)} must be a real number, not complex")
    if raw.dtype.kind == "b" or any(isinstance(x, (bool, np.bool_)) for x in items):
        raise ValueError(f"{name}={_brief(value)} must hold numbers, not bools")
    try:
        return raw.astype(float)
    except (TypeError, ValueError):
        raise ValueError(f"{name}={_brief(value)} must be a number") from None


def as_array(value, name: str, *, positive: bool = False, nonnegative: bool = False,
             integer: bool = False, upper: float | None = None,
             upper_inclusive: bool = True) -> np.ndarray:
    """Convert a scalar or array input to a float ndarray and validate it.

    Calculation functions call this on every numeric input so that bad values raise a
    ``ValueError`` naming the parameter, the offending value and the rule, instead of a
    NaN or a numpy traceback further down.

    Parameters
    ----------
    value : float or array-like
        The input.
    name : str
        The parameter name used in error messages.
    positive, nonnegative : bool
        Require ``> 0`` or ``>= 0``.
    integer : bool
        Require whole numbers, at most 2**53 in size (``MAX_EXACT_INTEGER``).
    upper : float, optional
        Require ``<= upper`` (or ``< upper`` when ``upper_inclusive`` is False).

    Returns
    -------
    numpy.ndarray of float64 (0-d for scalar input).

    Raises
    ------
    ValueError
        If the value is not numeric (a string inside a list included), empty, not finite, or
        breaks one of the rules.
    """
    if type(value) is float or type(value) is int:  # the common case, checked without numpy
        return _scalar_array(value, name, positive, nonnegative, integer, upper,
                             upper_inclusive)
    if isinstance(value, bool):
        raise ValueError(f"{name}={value!r} must be a number, not a bool")
    if isinstance(value, (str, bytes)):
        raise ValueError(f"{name}={value!r} must be a number, not a string")
    if value is None:  # numpy reads None as NaN: said as what it is
        raise ValueError(f"{name}=None must be a number")
    if integer:
        _exact_integers(value, name)
    if isinstance(value, (np.ndarray, np.generic)) and value.ndim == 0 \
            and value.dtype.kind in "fiu":
        # one number held by numpy (an engine's 0-d plan field): the rules checked in Python,
        # numpy's reductions below only to word a broken rule
        v = float(value)
        if math.isfinite(v) and not (positive and v <= 0) and not (nonnegative and v < 0) \
                and not (integer and not (v.is_integer() and abs(v) <= MAX_EXACT_INTEGER)) \
                and not (
                    upper is not None and (v > upper if upper_inclusive else v >= upper)):
            return np.asarray(v)
    arr = _float_array(value, name)
    if arr.size == 0:  # an empty input would come back as an empty answer, without a reason
        raise ValueError(f"{name}={value!r} must hold at least one number")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}={_show(value, arr, ~np.isfinite(arr))} must be finite")
    if positive and np.any(arr <= 0):
        raise ValueError(f"{name}={_show(value, arr, arr <= 0)} must be > 0")
    if nonnegative and np.any(arr < 0):
        raise ValueError(f"{name}={_show(value, arr, arr < 0)} must be >= 0")
    if integer and np.any(arr != np.round(arr)):
        raise ValueError(f"{name}={_show(value, arr, arr != np.round(arr))} must be a whole number")
    if integer and np.any(np.abs(arr) > MAX_EXACT_INTEGER):
        big = np.abs(arr) > MAX_EXACT_INTEGER
        raise ValueError(f"{name}={_show(value, arr, big)} must be at most 2**53 in size "
                         f"({EXACT_INTEGER_RULE})")
    if upper is not None:
        bad = arr > upper if upper_inclusive else arr >= upper
        if np.any(bad):
            op = "<=" if upper_inclusive else "<"
            raise ValueError(f"{name}={_show(value, arr, bad)} must be {op} {upper:g}")
    return arr


def as_count(value, name: str, minimum: int = 1, floats: bool = True) -> int:
    """A whole number (a count: GPUs, layers, tokens of a sequence, iterations) as an ``int``:
    an ``int`` or numpy integer, or with ``floats`` an integral finite float; at least
    ``minimum`` and at most ``MAX_EXACT_INTEGER`` (2**53: beyond it a double, which the
    calculations use, rounds whole numbers, and an int64 cast may wrap).

    Raises
    ------
    ValueError
        Naming ``name``, the value and the rule broken.
    """
    ok = isinstance(value, (int, np.integer)) or (
        floats and isinstance(value, (float, np.floating)) and math.isfinite(value)
        and float(value).is_integer())
    if isinstance(value, bool) or not ok or value < minimum:
        raise ValueError(f"{name}={value!r} must be a whole number >= {minimum}")
    if abs(value) > MAX_EXACT_INTEGER:
        raise ValueError(f"{name}={value!r} must be at most 2**53 in size ({EXACT_INTEGER_RULE})")
    return int(value)


def broadcast_together(**arrays) -> None:
    """A ValueError naming the arguments and their shapes when ``arrays`` (name → ndarray, as
    ``as_array`` returns them) do not broadcast together, before numpy's "operands could not
    be broadcast" from inside a formula."""
    try:
        np.broadcast_shapes(*(np.shape(a) for a in arrays.values()))
    except ValueError:
        raise ValueError(", ".join(f"{k} (shape {np.shape(a)})" for k, a in arrays.items())
                         + " must broadcast together: give scalars, or arrays of one shape "
                         "(or of length 1)") from None


def shorten_words(text, width: int) -> str:
    """``text`` in at most ``width`` characters, its whitespace collapsed: whole when it fits,
    else cut at a word with " …" (``textwrap.shorten``), or, where the first word alone runs past
    ``width``, that word cut at ``width`` − 1 and "…" (``textwrap.shorten`` would keep the
    placeholder alone: a trial read "960 t…" where a cut mid-word was all there was room for)."""
    t = " ".join(str(text).split())
    if len(t) <= width:
        return t
    return textwrap.shorten(t, width, placeholder=" …") if " " in t[:width - 1] \
        else t[:width - 1] + "…"


def as_scalar(value, name: str, **rules) -> float:
    """``as_array`` (its ``rules``: positive, nonnegative, integer, upper...) for an argument
    that takes one number: the validated value as a float. A 1-element array counts as one
    number.

    Raises
    ------
    ValueError
        As ``as_array``; and for an array of more than one value, naming the argument (numpy's
        "only 0-dimensional arrays can be converted to Python scalars" TypeError before).
    """
    arr = as_array(value, name, **rules)
    if arr.size != 1:
        shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
        raise ValueError(f"{name}={shown} must be one number, not an array of {arr.size} "
                         "values: this argument takes no array")
    return float(arr.reshape(-1)[0])


def _exact_integers(value, name: str) -> None:
    """The 2**53 rule (``MAX_EXACT_INTEGER``) on whole numbers held as integers (a Python int,
    numpy integers, an integer array), compared exactly before ``as_array``'s float cast, which
    would round 2**53 + 1 to 2**53 and pass it; floats are checked after the cast."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        big = abs(int(value)) > MAX_EXACT_INTEGER
    elif isinstance(value, np.ndarray) and value.dtype.kind in "iu" and value.size:
        big = bool(np.any(np.abs(value.astype(object)) > MAX_EXACT_INTEGER))
    else:
        return
    if big:
        raise ValueError(f"{name}={int(value)} must be at most 2**53 in size "
                         f"({EXACT_INTEGER_RULE})" if np.ndim(value) == 0 else f"{name} (an array of shape "
                         f"{np.shape(value)}) holds a whole number above 2**53 "
                         f"({EXACT_INTEGER_RULE})")


def _scalar_array(value, name, positive, nonnegative, integer, upper,
                  upper_inclusive) -> np.ndarray:
    """``as_array`` for a Python float or int: the same rules and messages, compared in Python
    (a scenario's validation calls ``as_array`` on hundreds of thousands of scalars; numpy's
    reductions cost microseconds each). One difference: an int beyond the float range is a
    ValueError ("must be finite") here, where numpy's conversion raised an OverflowError."""
    if integer and type(value) is int:
        _exact_integers(value, name)  # before the float cast rounds 2**53 + 1 to 2**53
    try:
        v = float(value)
    except OverflowError:  # an int beyond the float range
        raise ValueError(f"{name}={value} must be finite") from None
    if not math.isfinite(v):
        raise ValueError(f"{name}={value} must be finite")
    if positive and v <= 0:
        raise ValueError(f"{name}={value} must be > 0")
    if nonnegative and v < 0:
        raise ValueError(f"{name}={value} must be >= 0")
    if integer and not v.is_integer():
        raise ValueError(f"{name}={value} must be a whole number")
    if integer and abs(v) > MAX_EXACT_INTEGER:
        raise ValueError(f"{name}={value} must be at most 2**53 in size ({EXACT_INTEGER_RULE})")
    if upper is not None and (v > upper if upper_inclusive else v >= upper):
        raise ValueError(f"{name}={value} must be {'<=' if upper_inclusive else '<'} {upper:g}")
    return np.asarray(v)


def _show(value, arr: np.ndarray, bad: np.ndarray):
    """The offending value for an error message: the scalar itself, or the first bad element."""
    if arr.ndim == 0:
        return value
    return f"{float(arr[bad].flat[0])!r} (in an array of shape {arr.shape})"


def as_flag(value, name: str) -> bool:
    """A yes/no argument (``causal``, ``async_``, ``dropout``): ``True`` or ``False`` (numpy's
    bools too), else a ValueError naming ``name``. A string is refused rather than read as true
    (``bool("false")`` is ``True``), and so are 0/1, None and containers."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise ValueError(f"{name}={value!r} must be True or False")


def as_text(value, name: str) -> str:
    """A text argument (a name, a source, a note): a ``str``, else a ValueError naming ``name``
    (a number or None is refused rather than printed as text)."""
    if not isinstance(value, str):
        raise ValueError(f"{name}={value!r} must be a string")
    return value


def as_choice(value, name: str, choices):
    """One of ``choices`` (a tuple, or a dict's keys: a dtype, a phase, a metric): a ``str`` in
    them, else a ValueError naming ``name``, the value and the choices."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name}={value!r} must be one of {', '.join(map(repr, choices))}")
    return value


def check_digits(value, name: str = "digits") -> int:
    """A number of significant digits for the formatting helpers: a whole number from 1 to 17."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or \
            not 1 <= value <= 17:
        raise ValueError(f"{name}={value!r} must be a whole number from 1 to 17")
    return int(value)


def finite_result(value, what: str, inputs: str):
    """``value`` (a result) if every element is finite, else a ValueError saying the inputs
    overflow double precision (about 1.8e308): never a silent inf or NaN."""
    arr = np.asarray(value, dtype=float)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{inputs} overflow: {what} is beyond a double's range (1.8e308); "
                         "check the magnitudes")
    return value


def scalar_or_array(arr: np.ndarray):
    """Return a Python float for 0-d arrays, the array otherwise (keeps scalar calls scalar)."""
    arr = np.asarray(arr)
    return float(arr) if arr.ndim == 0 else arr


def is_number(x) -> bool:
    """True for real numbers that are not bools."""
    return isinstance(x, Real) and not isinstance(x, bool)


@functools.lru_cache(maxsize=None)
def _field_names(cls) -> tuple:
    """The field names of the dataclass ``cls``, in order (``options_with``)."""
    return tuple(f.name for f in dataclasses.fields(cls))


def options_with(cls, name: str, obj, keywords: dict, unknown=None):
    """``obj`` (an instance of the frozen dataclass ``cls``, or None for ``cls()``) with
    ``keywords`` replacing its fields: how a function's keyword API becomes one options object
    (``StepOptions``-like ``build`` class methods).

    ``unknown(bad, names)`` writes the message for unknown keywords (``bad``: sorted, ``names``:
    the fields in order); default "unknown <cls> field(s) [...]; choose from [...]".

    Raises
    ------
    ValueError
        ``obj`` not a ``cls`` (named ``name``), or an unknown keyword.
    """
    if obj is not None and not isinstance(obj, cls):
        raise ValueError(f"{name}={obj!r} must be a {cls.__name__} (or None)")
    names = _field_names(cls)
    bad = sorted(set(keywords) - set(names))
    if bad:
        raise ValueError(unknown(bad, names) if unknown is not None else
                         f"unknown {cls.__name__} field(s) {bad}; choose from {list(names)}")
    if obj is None:
        return cls(**keywords)
    return dataclasses.replace(obj, **keywords) if keywords else obj


def json_finite(obj):
    """``obj`` with every non-finite number (inf, −inf, NaN, numpy's too) replaced by None,
    through dicts, lists and tuples: JSON has no Infinity or NaN (RFC 8259 §6), and a trial's
    ``fail_rate_per_gpu_year: 0`` wrote ``"job_mtbf_s": Infinity``, which JSON.parse refuses
    and jq reads as 1.8e308. Dump the result with ``allow_nan=False``."""
    if isinstance(obj, dict):
        return {k: json_finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_finite(v) for v in obj]
    if isinstance(obj, float) or (type(obj).__module__ == "numpy" and hasattr(obj, "dtype")
                                  and getattr(obj, "ndim", 1) == 0
                                  and obj.dtype.kind == "f"):
        return float(obj) if math.isfinite(float(obj)) else None
    return obj


#: Seconds in one of ``fmt_period``'s units.
PERIOD_SECONDS = {"days": SECONDS_PER_DAY, "months": SECONDS_PER_DAY * DAYS_PER_YEAR / 12}


def fmt_period(value: float, unit: str) -> str:
    """A span in ``unit`` ("days" or "months", ``PERIOD_SECONDS``) as a reader says it: "66.2
    days", "1.5 months", "1 month" (``fmt_quantity``), and below one in the unit that fits
    (``fmt_duration``: a trial's small run read "0.0183 days" for 26.4 min and "0.0563
    months" for 41.1 h)."""
    if unit not in PERIOD_SECONDS:
        raise ValueError(f"unit={unit!r} must be one of {sorted(PERIOD_SECONDS)}")
    v = _number(value, "value")
    if math.isfinite(v) and 0 < abs(v) < 1:
        return fmt_duration(v * PERIOD_SECONDS[unit])
    q = fmt_quantity(v)   # "1 month", not "1 months" (a trial's 1.02-month project)
    return f"{q} {unit[:-1] if q == '1' else unit}"
