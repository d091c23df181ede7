"""The report at a glance: what the index page of a report says before any table.

* ``bill_glance``: the bill's headline draws (``ledger.headline_draws``: the scenario's ranges,
  or sourced illustrative ones), its bars (``ledger.bill_bars``) and tornado, as ``summary.json``
  keeps them (``summary['bill_glance']``);
* ``glance_figure_html``: ``plots.bill_at_a_glance`` as an inline SVG image (wide, and tall
  for a phone);
* ``plain_sentences``: three sentences a manager reads first (what the run costs, what drives the
  range, the biggest lever of notebook 09), every number from the summary, and ``lead_details``,
  the paragraph under them (the range's basis, the final run's part, what the total leaves out);
* ``caveat_line``: each report warning as one line in the reader's words (the warning itself goes
  under it, in a ``<details>`` element);
* ``glance_text``: the same figure as text bars for ``llmcost estimate`` (plain Unicode, or
  ASCII where the output cannot encode it);
* ``compare_bills`` and ``compare_html``: two scenarios' bills side by side, line by line, with
  the difference per draw (``ledger.compare_draws``: common random numbers), as ``llmcost
  estimate --compare`` prints them.
"""

from __future__ import annotations

import html
import io
import re
import shutil
import textwrap
from pathlib import Path
from urllib.parse import quote

import numpy as np

from ..bill.montecarlo import beyond_rounding
from ..bill.ledger import (
    OUTSIDE_NOTE,
    PROJECT_MONTHS_BASES,
    bill_bars,
    compare,
    compare_draws,
    exploratory_shift_words,
    headline_draws,
    input_words,
    mfu_draw_keys,
    multiplier_counts,
    netting_usd,
    own_ranged_scenario,
    point_outside,
    post_training_only,
    prices_at_mfu,
    simulate_ledger,
)
from ..bill.checks import GIVEN_MFU_PATTERN, RANGE_POINT_WORDS, fp8_over_bf16
from ..bill.pricing import default
from ..bill.ranges import Range
from ..serving.rl import scenario_time_factor
from ..core.catalog import (current_prices, discount_price_cap, load_model, model_words,
                            price_mode_words, runnable_notebooks, scenario_accelerator)
from ..core.diskcache import disk_cached
from ..core.units import (fixed_sig2, fmt_count, fmt_duration, fmt_fraction_pct, fmt_gpus, fmt_usd,
                          shorten_words)
from ..training.accuracy import above_bf16_peak_words, fp8_speedup_bound
from . import plots

#: The Monte Carlo draws behind the glance (as ``llmcost estimate`` and the summary's bill).
SAMPLES = 100_000


#: The label of ``final_run``: the same quantity as notebook 00's ``final_run_usd`` headline.
FINAL_RUN_LABEL = "final pre-training run"


def final_run(draws) -> dict:
    """The final pre-training run of a simulated bill (``LedgerDraws``): its paid GPU-hours ×
    the GPU-hour rate, i.e. the main run's ideal GPU-hours (``compute.pretraining.main``), its
    failures, checkpoints and restarts (``compute.failures``: paid − ideal) and the other
    pre-training phases (``compute.pretraining.<phase>``), summed per draw:

        final run = Σ_phases ideal GPU-h ÷ goodput × rate = ``Ledger.figures['final_run_usd']``

    Returns ``{"label", "point_usd", "p10_usd", "p50_usd", "p90_usd"}`` (percentiles of the
    sum per draw, not sums of percentiles)."""
    keys = [k for k in draws.line_usd
            if k.startswith("compute.pretraining.") or k == "compute.failures"]
    x = sum(np.asarray(draws.line_usd[k], dtype=float) for k in keys)
    q = np.quantile(x, [0.1, 0.5, 0.9]) if keys else (0.0, 0.0, 0.0)
    point = float(sum(ln.usd for ln in draws.point.lines if ln.key in keys))
    return {"label": FINAL_RUN_LABEL, "point_usd": point, "p10_usd": float(q[0]),
            "p50_usd": float(q[1]), "p90_usd": float(q[2])}


def bill_glance(scenario: dict, samples: int = SAMPLES, seed: int = 0):
    """The bill at a glance of a scenario (``build_ledger``'s input): ``(summary dict, bars,
    tornado)``. ``bars`` is ``ledger.bill_bars`` of ``ledger.headline_draws`` (the scenario's
    ranges, or the illustrative ones when it gives every input as a number) with a column
    ``point_outside`` (``point_outside``: the point is not within its own P10-P90),
    ``tornado`` their ``LedgerDraws.tornado()``; the dict is what ``summary.json`` keeps under
    ``bill_glance``: ``illustrative``, ``ranges`` (key -> range, why, and whether it is
    illustrative), ``lines`` (the bars, the total last), ``final_run`` (``final_run``),
    ``gaps`` (``bill_gaps``: what the total leaves out and its default-priced parts),
    ``tornado`` (records), ``samples`` and ``seed``."""
    return glance_summary(headline_draws(scenario, samples=samples, seed=seed))


def glance_summary(head):
    """``bill_glance`` of headline draws already made (``ledger.headline_draws``): notebook 00
    draws them once for its answer, its figure and its section on ranges."""
    bars = bill_bars(head.draws)  # with point_outside (ledger.point_outside)
    tor = head.draws.tornado()
    out = {"illustrative": head.illustrative, "state": head.state, "basis": head.basis,
           "samples": head.draws.samples, "seed": head.draws.seed,
           "ranges": {k: {"range": r.describe(), "why": head.sources.get(k, ""),
                          "kind": head.kinds.get(k, ""),
                          "illustrative": head.kinds.get(k) == "illustrative",
                          # where the point bill takes it against its draws' median
                          "point": float(r.point), "median": float(r.quantile(0.5))}
                      for k, r in head.draws.ranges.items()},
           "lines": bars.reset_index().to_dict("records"),
           "final_run": final_run(head.draws),
           "gaps": bill_gaps(head.point),
           "tornado": tor.to_dict("records")}
    return out, bars, tor


def bill_gaps(bill) -> dict:
    """What a reader must know before calling the bill's total the whole project's, from its
    point bill's lines' ``status``: ``whole``, the categories none of whose lines the scenario
    gives ("not given": $0 in the total), ``partly``, those with some lines not given (their
    lines named in ``partly_lines``, each label before its parenthesis), and
    ``defaults``, the lines priced from the workbook's defaults rather than the scenario's
    figures (status "default", above $0), largest first, as ``{"line", "usd"}``; and
    ``price_default``, the GPU-hour price when the scenario gives none (the catalogue's median,
    ``figures['price_source']`` "default, ..."; owned hardware: the workbook's H100 purchase
    price amortised, the rate its compute lines charge, ``gpu_rate_usd_per_gpu_hour``, its
    energy billed on the electricity line; None when the scenario gives
    ``ledger_owned_usd_per_gpu``, its own), else None, with ``price_default_words`` saying
    which."""
    cats: dict = {}
    for ln in bill.lines:
        cats.setdefault(ln.category, []).append(ln.status == "not given")
    defaults = sorted(({"line": ln.line, "usd": float(ln.usd)} for ln in bill.lines
                       if ln.status == "default" and ln.usd), key=lambda d: -d["usd"])
    owned = bill.figures.get("pricing") == "owned"  # amortised: the scenario's purchase price
    price_default = str(bill.figures.get("price_source", "")).startswith("default") and not (
        owned and bill.scenario.get("ledger_owned_usd_per_gpu") is not None)
    partly = [c for c, v in cats.items() if any(v) and not all(v)]
    return {"whole": [c for c, v in cats.items() if all(v)],
            "partly": partly,
            # the lines left out of a category partly given, named (a data lead and a PI read
            # "some post-training lines, some storage lines" and could not tell which)
            "partly_lines": {c: [ln.line.split(" (")[0].removeprefix(f"{c}: ")
                                 for ln in bill.lines
                                 if ln.category == c and ln.status == "not given"]
                             for c in partly},
            "defaults": defaults,
            "price_default": (float(bill.figures["gpu_rate_usd_per_gpu_hour" if owned else
                                                 "price_usd_per_gpu_hour"])
                              if price_default else None),
            "price_default_words": _price_default_words(bill, owned, price_default)}


def _price_default_words(bill, owned: bool, from_catalogue: bool) -> str:
    """What set a bill's default GPU-hour price, in ``bill_gaps``' words: owned hardware's
    amortised purchase price; the on-demand median where a reserved run's rows lie above it
    (``catalog.discount_price_cap``); the catalogue's one price where one row sets it
    (``catalog.current_prices``: a review read "the catalogue's median" of one Hyperstack row);
    else, or where the price is not the catalogue's (``from_catalogue`` false), the catalogue's
    median."""
    if owned:
        return ("the workbook's H100 purchase price amortised (the hardware; its energy is on "
                "the electricity line)")
    acc, pricing = bill.figures.get("accelerator"), bill.figures.get("pricing")
    try:
        cap = discount_price_cap(acc, pricing) if from_catalogue else None
        rows = len(current_prices(acc, pricing)) if from_catalogue else 0
    except ValueError:   # an accelerator or mode the catalogue does not price
        return "the catalogue's median"
    if cap is not None and pricing == "reserved":
        row = "row lies" if cap["listed_n"] == 1 else "rows lie"
        return (f"the catalogue's on-demand median, which a reserved run takes where its "
                f"reserved {row} above it")
    return "the catalogue's one listed price" if rows == 1 else "the catalogue's median"


def _and(words: list) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def gaps_sentence(gaps: dict | None) -> str:
    """The sentences after the cost: the categories the total leaves out (not given, $0), the
    GPU-hour price when it is not the scenario's, and the largest line priced from a default
    (``bill_gaps``), one sentence each (a reader took the price and the default line, joined to
    "Not in that total: ..." by semicolons, for more things the total leaves out); empty when
    there is none."""
    if not gaps:
        return ""
    parts = []
    if gaps["whole"] or gaps["partly"]:
        named = gaps.get("partly_lines") or {}
        left = gaps["whole"] + [f"{c} lines ({_and(named[c])})" if named.get(c) else
                                f"some {c} lines" for c in gaps["partly"]]
        listed = _and(left) if not any("," in x for x in left) or len(left) == 1 else \
            "; ".join(left[:-1]) + "; and " + left[-1]   # items with commas of their own
        parts.append(f"Not in that total: {listed} (not given in the scenario, counted "
                     "$0; notebook 00 lists them).")
    if gaps.get("price_default"):
        what = gaps.get("price_default_words") or "the catalogue's median"
        parts.append(f"The GPU-hour price, ${gaps['price_default']:.2f}, is {what}, not a "
                     "quote the scenario gives.")
    if gaps["defaults"]:
        # the two largest where the second is a quarter of the first or more (a review: the
        # 405B lead named the exploratory line's default, not the people line's $60.1M)
        top = [d for d in gaps["defaults"][:2] if d["usd"] >= 0.25 * gaps["defaults"][0]["usd"]]
        named = _and([f"'{d['line']}', {fmt_usd(d['usd'])}" for d in top])
        parts.append(f"The line{'s' if len(top) > 1 else ''} {named}, "
                     f"{'are' if len(top) > 1 else 'is'} priced from the workbook's "
                     f"default{'s' if len(top) > 1 else ''}, not from a figure the scenario "
                     "gives.")
    return " ".join(parts)


def with_headline(out: dict, head) -> dict:
    """A JSON bill (``LedgerDraws.bill_summary`` or ``Ledger.summary``: the scenario's points)
    with the P10 / P50 / P90 and mean of the headline draws (``ledger.headline_draws``: one
    range per bill, ``ledger.HEADLINE_RULE``), per line and for the total, their tornado, draws
    and seed, and where each range comes from: ``bill.illustrative`` (every range
    illustrative), ``bill.range_state`` (``ledger.headline_state``), ``bill.range_basis``
    (``ledger.range_basis``, also the start of ``bill.range_note``), ``bill.ranges``,
    ``bill.range_kinds`` and ``bill.range_sources`` (key -> why), ``bill.tornado_note`` and
    ``bill.tornado_no_swing`` (the ranged inputs that move no line). The points (``usd``,
    ``bill.total_usd``) stay the scenario's. What ``llmcost estimate --format json`` prints and
    ``summary.json`` keeps as its bill."""
    s = head.draws.summary()
    out = {**out, "bill.lines": {k: dict(v) for k, v in out["bill.lines"].items()}}
    for k, ln in out["bill.lines"].items():
        for c in ("mean", "p10", "p50", "p90"):
            v = s.loc[k, c] if k in s.index else float("nan")
            ln[f"{c}_usd"] = None if v != v else float(v)
    for c in ("mean", "p10", "p50", "p90"):
        out[f"bill.total_{c}_usd"] = float(s.loc["total", c])
    out.update({"bill.samples": head.draws.samples, "bill.seed": head.draws.seed,
                "bill.illustrative": bool(head.illustrative), "bill.range_state": head.state,
                "bill.range_basis": head.basis,
                "bill.ranges": {k: r.describe() for k, r in head.draws.ranges.items()},
                "bill.range_kinds": dict(head.kinds),
                "bill.range_sources": dict(head.sources),
                "bill.tornado": (torn := head.draws.tornado()).to_dict("records"),
                "bill.tornado_note": torn.attrs["note"] if torn.attrs.get("no_swing") else "",
                "bill.tornado_no_swing": list(torn.attrs.get("no_swing", [])),
                "bill.range_note": f"{head.basis}: {s.attrs['note']}"})
    return out


def mark_points_outside(out: dict) -> dict:
    """Each line of a JSON bill with ``point_outside`` (``glance.point_outside``: its point,
    ``usd``, is not within its own ``p10_usd``-``p90_usd``), the total's as
    ``bill.total_point_outside``, and ``bill.point_outside_note`` when any is."""
    any_ = False
    for ln in out["bill.lines"].values():
        ok = None not in (ln.get("usd"), ln.get("p10_usd"), ln.get("p90_usd"))
        ln["point_outside"] = bool(ok and point_outside(ln["usd"], ln["p10_usd"], ln["p90_usd"]))
        any_ = any_ or ln["point_outside"]
    out["bill.total_point_outside"] = point_outside(
        out["bill.total_usd"], out["bill.total_p10_usd"], out["bill.total_p90_usd"])
    if any_ or out["bill.total_point_outside"]:
        out["bill.point_outside_note"] = OUTSIDE_NOTE
    return out


def glance_figure_html(bars, tornado_df, title: str, illustrative: bool,
                       basis: str | None = None) -> str:
    """``plots.bill_at_a_glance`` as an ``<img>`` holding an SVG (a data URI: the index stays one
    file that reads offline and can be e-mailed), side by side, or one above the other on a
    screen under 40rem (a ``<picture>`` source), with an ``alt`` text saying what it shows.
    The two pictures are kept on disk (``core.diskcache``), keyed by everything they are drawn
    from: the tables, the words, matplotlib's version and settings, and the font it finds."""
    import matplotlib
    from matplotlib import font_manager

    font = font_manager.findfont(font_manager.FontProperties())
    uris = _glance_uris(bars, tornado_df, title, illustrative, basis, matplotlib.__version__,
                        settings_key(), font)
    t = bars.loc["total"]
    alt = (f"The bill line by line with its P10-P90 range: the whole bill "
           f"{fmt_usd(t['point_usd'])} ({fmt_usd(t['p10_usd'])}-{fmt_usd(t['p90_usd'])}); "
           "beside it, which unknown moves the bill most")
    return (f"<picture><source media='(max-width: 40rem)' srcset=\"{uris[True]}\">"
            f"<img class='glance' src=\"{uris[False]}\" alt='{html.escape(alt, quote=True)}'>"
            "</picture>")


def settings_key() -> str:
    """Matplotlib's settings as the glance pictures' key records them: every ``rcParams`` entry
    but the backend (which the SVG output does not use, and which names an object of the running
    process until a backend is chosen), as stored, sorted by name. The same text as long as the
    settings are the same, in any process; read without ``rcParams``' checks of each entry
    (``str(rcParams)`` took 0.15 CPU-s of every report)."""
    import matplotlib

    return repr(sorted((k, v) for k, v in dict.items(matplotlib.rcParams) if k != "backend"))


@disk_cached
def _glance_uris(bars, tornado_df, title: str, illustrative: bool, basis, mpl_version: str,
                 rc: str, font: str) -> dict:
    """The wide (``False``) and tall (``True``) glance pictures as SVG data URIs. The last three
    arguments are not read: they are the key's record of matplotlib's version, its settings
    and the font file it draws with (its bytes enter the key: ``core.diskcache``). Each text
    is measured once while they are drawn (``plots.text_measures_shared``: the same pictures;
    their layout, crop and print measure the same labels again: for one scenario's two
    pictures 684 FreeType layouts, 271 with the measures shared)."""
    from matplotlib.figure import Figure

    n, k = len(bars), len(tornado_df)
    uris = {}
    with plots.text_measures_shared():
        for tall in (False, True):
            fig = Figure(figsize=plots.glance_figsize(n, k, tall))
            axes = fig.subplots(*plots.glance_grid(tall),
                                gridspec_kw=plots.glance_ratios(n, k, tall))
            plots.bill_at_a_glance(bars, tornado_df, title=title, axes=axes,
                                   illustrative=illustrative, tall=tall, basis=basis)
            with plots.ticks_computed_once(fig):  # the same picture, drawn faster
                uris[tall] = svg_uri(fig, tight=False)
    return uris


def svg_uri(fig, tight: bool = True) -> str:
    """A Matplotlib figure as an SVG data URI (``tight``: cropped to what it draws; else at its
    size, laid out by the figure's own function): its text as SVG text (the browser's
    sans-serif, a few kB per figure, not glyph outlines), percent-encoded with no whitespace or
    comma (a ``srcset`` candidate), no "#" (a fragment) and no "+"."""
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "llmcost"}):
        fig.savefig(buf, format="svg", metadata={"Date": None},
                    bbox_inches="tight" if tight else None)
    return "data:image/svg+xml," + quote(buf.getvalue(), safe="=:/;.-_()")


def compare_figure_html(df, names: tuple) -> str:
    """``plots.bill_difference`` of a comparison (``compare_bills``) as the glance figure is
    shown (``glance_figure_html``): an ``<img>`` of an SVG data URI, its phone picture (one
    column, the labels wrapped) on a screen under 40rem, with an ``alt`` text giving the whole
    difference and the lines that differ most."""
    from matplotlib.figure import Figure

    uris = {}
    with plots.text_measures_shared():  # each text measured once, as the glance's
        for tall in (False, True):
            fig = Figure()
            plots.bill_difference(df, names, tall=tall, axes=fig.add_subplot())
            uris[tall] = svg_uri(fig)
    rows = plots.difference_rows(df)
    top = "; ".join(f"{r.line} {plots.signed_usd(r.diff)}" for r in rows.iloc[:-1].head(3)
                    .itertuples())
    alt = (f"B minus A line by line: the whole bill {plots.signed_usd(rows['diff'].iloc[-1])}"
           + (f"; most: {top}" if top else ""))
    return (f"<picture><source media='(max-width: 40rem)' srcset=\"{uris[True]}\">"
            f"<img class='difference' src=\"{uris[False]}\" alt='{html.escape(alt, quote=True)}'>"
            "</picture>")


#: The characters of ``glance_text``: bar, whisker, whisker ends, the point on a tornado row.
BAR_CHARS = {"unicode": ("█", "─", "├", "┤", "│"), "ascii": ("#", "-", "|", "|", "+")}


def _cells(lo: float, hi: float, unit: float, width: int) -> tuple:
    """The first and last cell (of ``width``, each ``unit`` USD wide) an interval covers."""
    first = min(width - 1, max(0, int(lo / unit)))
    return first, min(width - 1, max(first, int(hi / unit)))


def text_charset(stream) -> str:
    """'unicode' when ``stream`` (a text file such as ``sys.stdout``, a terminal or a pipe)
    encodes the bars' characters, else 'ascii'."""
    try:
        "".join(BAR_CHARS["unicode"] + ("–", "×")).encode(getattr(stream, "encoding", None)
                                                           or "ascii")
    except (UnicodeEncodeError, LookupError):
        return "ascii"
    return "unicode"


def _plain(text: str, charset: str) -> str:
    """``text`` in ASCII for 'ascii' (× as x, – and — as -, curly quotes as straight ones,
    other characters as ?), else itself."""
    if charset == "ascii":
        for a, b in (("×", "x"), ("–", "-"), ("—", "-"), ("“", '"'), ("”", '"'), ("‘", "'"),
                     ("’", "'")):
            text = text.replace(a, b)
        return text.encode("ascii", "replace").decode()
    return text


def terminal_columns(stream=None) -> int:
    """The width of the terminal in characters (``shutil.get_terminal_size``: the ``COLUMNS``
    variable, else the terminal's size), 80 when the output is not a terminal (a pipe, a file)."""
    return shutil.get_terminal_size((80, 24)).columns


def glance_text(bars, tornado_df, width: int | None = None, charset: str = "unicode",
                illustrative: bool = False, columns: int | None = None,
                basis: str | None = None, outside_note: str = OUTSIDE_NOTE) -> str:
    """``plots.bill_at_a_glance`` as text for a terminal: one row per line of
    ``ledger.bill_bars`` (a bar to its point, a whisker from its P10 to its P90, on one scale
    from 0 to the largest P90), the whole bill last, then the tornado (each input's P10-P90
    swing of the whole bill around the point bill, on the same scale). ``charset`` 'unicode'
    (block and box-drawing characters) or 'ascii' (for an output that cannot encode them).
    Each line's value reads ``point (P10–P90, P50 median)``. ``basis``: what the ranges come
    from (``ledger.range_basis``, said in the first line); without it, ``illustrative`` says
    the ranges are all illustrative.

    Every row fits in ``columns`` characters (default ``terminal_columns()``: the terminal's
    width, 80 when piped): a label longer than its column is wrapped onto the next lines, never
    cut, and where the value does not fit beside a bar it goes on the line below;
    ``width`` fixes the bars' width instead of fitting them. A line at least
    ``FIXED_LINE_SHARE`` of the point with no spread is named under the bars
    (``fixed_lines_sentence``). A line whose point lies
    outside its own P10-P90 (``point_outside``) carries a ``*`` and a footnote says why
    (``outside_note``: ``ledger.OUTSIDE_NOTE``, or ``cli.ONE_DRAW_NOTE`` for a single draw)."""
    if charset not in BAR_CHARS:
        raise ValueError(f"charset={charset!r} must be 'unicode' or 'ascii'")
    if width is not None and (isinstance(width, bool) or not isinstance(width, int)
                              or not 8 <= width <= 200):
        raise ValueError(f"width={width!r} must be a whole number of characters from 8 to 200")
    if columns is None:
        columns = terminal_columns()
    if isinstance(columns, bool) or not isinstance(columns, int) or not 20 <= columns <= 1000:
        raise ValueError(f"columns={columns!r} must be a whole number of characters from 20 "
                         "to 1000")
    full, rule, left, right, mark = BAR_CHARS[charset]
    dash = "–" if charset == "unicode" else "-"
    tops = [float(v) for v in bars["p90_usd"]] + [float(v) for v in bars["point_usd"]]
    if len(tornado_df):
        tops += [float(v) for c in ("total_at_p10_usd", "total_at_p90_usd")
                 for v in tornado_df[c]]
    outside = [bool(r["point_outside"]) if "point_outside" in r else
               point_outside(r["point_usd"], r["p10_usd"], r["p90_usd"])
               for _, r in bars.iterrows()]
    star = {True: "*", False: " " if any(outside) else ""}
    rows = []  # (label, kind, record, value text)
    for (_, r), out_ in zip(bars.iterrows(), outside):
        value = (f"{fmt_usd(r['point_usd'])}{star[out_]} "
                 f"({fmt_usd(r['p10_usd'])}{dash}{fmt_usd(r['p90_usd'])}"
                 + (f", P50 {fmt_usd(r['p50_usd'])})" if "p50_usd" in r else ")"))
        rows.append((str(r["line"]), "bill", r, value))
    tor_rows = []
    for r in tornado_df.to_dict("records") if len(tornado_df) else []:
        lo, hi = sorted((r["total_at_p10_usd"], r["total_at_p90_usd"]))
        tor_rows.append((input_words(r["input"]), "tornado", (lo, hi),
                         f"{fmt_usd(lo)}{dash}{fmt_usd(hi)}"))
    value_w = max(len(v) for *_, v in rows + tor_rows)
    longest = max(len(lbl) for lbl, *_ in rows + tor_rows)
    avail = columns - 2 - 2 - value_w  # indent, two gaps
    below = avail - 12 < (8 if width is None else width)  # no room beside: the value below
    if below:
        avail = columns - 2 - 1
    if width is None:
        label_w = min(longest, max(12, avail // 2))
        width = max(8, avail - label_w)
    else:
        label_w = min(longest, max(12, avail - width))
    unit = max(max(tops), 1e-9) / width
    point = float(tornado_df.attrs.get("point_usd", bars.loc["total", "point_usd"])) \
        if len(tornado_df) else 0.0

    def cells_of(kind, rec):
        if kind == "bill":
            cells = [full if (i + 0.5) * unit <= rec["point_usd"] else " " for i in range(width)]
            a, b = _cells(min(rec["p10_usd"], rec["p90_usd"]),
                          max(rec["p10_usd"], rec["p90_usd"]), unit, width)
            for i in range(a, b + 1):
                cells[i] = rule if cells[i] == " " else cells[i]
            if b > a:  # a range narrower than one cell shows as the bar or one rule
                cells[a], cells[b] = left, right
            return "".join(cells)
        a, b = _cells(rec[0], rec[1], unit, width)
        cells = [full if a <= i <= b else " " for i in range(width)]
        cells[_cells(point, point, unit, width)[0]] = mark
        return "".join(cells)

    def emit(label, kind, rec, value):
        parts = textwrap.wrap(_plain(label, charset), label_w, break_long_words=True) or [""]
        lines = [(f"  {parts[0]:<{label_w}} {cells_of(kind, rec)}"
                  + ("" if below else f" {value:<{value_w}}")).rstrip()]
        lines += [f"  {x}" for x in parts[1:]]  # the rest of a long label, never cut
        if below:  # a terminal too narrow for the value beside the bar: on the next line(s)
            lines += textwrap.wrap(value, columns - 1, initial_indent="    ",
                                   subsequent_indent="    ")
        return lines

    def para(text, indent=""):
        return textwrap.wrap(_plain(text, charset), columns - 1, initial_indent=indent,
                             subsequent_indent=indent + "  ")

    if basis is None and illustrative:
        basis = "illustrative ranges: the scenario gives every input as one number"
    out = para("the bill at a glance (bar: point estimate; whisker: P10 to P90; P50: the median"
               + (f"; from {basis})" if basis else ")"))
    for row in rows:
        out += emit(*row)
    # a large line with no spread named, as the index names it (a trial read a ±3% range on a
    # bill three quarters people, held at one number)
    fixed = fixed_lines_sentence(bars.to_dict("records")).strip()
    if fixed:
        out += para(fixed, "  ")
    if tor_rows:
        out += para(f"which unknown to pin down first? the whole bill with one input at its "
                    f"P10 and at its P90 ({mark}: the point bill, {fmt_usd(point)})", "  ")
        for row in tor_rows:
            out += emit(*row)
    if any(outside):
        out += para(f"* {outside_note}", "  ")
    return "\n".join(_plain(x, charset) for x in out)


def _row(summary: dict, stem: str, key: str):
    for r in summary.get("notebooks", {}).get(stem, []):
        if r.get("key") == key:
            return r
    return None


#: The least share of the bill a lever must save to be the index's headline lever: the index
#: gives a lever's share in whole percent, so one below 1% would read "0% of the bill" (a
#: presentation threshold, not a sourced figure).
LEVER_HEADLINE_SHARE = 0.01


def _cannot_run_savings(summary: dict) -> str | None:
    """Why notebook 09 cannot run on the report's accelerator ("L40S (00, 01, 07, 08, 10 only:
    ... need the scale-out bandwidth ...)", ``catalog.runnable_notebooks``), or None when it
    can: a report of such an accelerator leaves 09 out, and "add it with --notebooks 09" would
    be refused."""
    params = {k: v.get("value") for k, v in summary.get("parameters", {}).items()
              if isinstance(v, dict)}
    if not isinstance(params.get("accelerator"), str):
        return None
    try:
        acc = scenario_accelerator(params)
    except (ValueError, KeyError, TypeError):
        return None
    words = runnable_notebooks(acc)
    return None if words == "all" else f"{acc.name} ({words})"


def lever_sentence(summary: dict, failed=()) -> str:
    """The biggest lever notebook 09 ranked (its ``lever_1_saving_usd`` headline, as a share of
    its ``bill_usd``; a saving at the inputs' points, said so), or why there is none: 09 not
    run, failed, or no lever saves money. Where 09's bill differs from the one the first
    sentence states (the glance's total; 09 adds the scenario's ``waste_`` lines), the share
    says whose bill it is of (``_nine_bill_words``)."""
    if "09_savings" in failed:
        return ("Which lever saves the most is not known here: notebook 09 (savings) failed in "
                "this report (its page says where).")
    if "09_savings" not in summary.get("notebooks", {}):
        why = _cannot_run_savings(summary)
        if why:
            return ("Which lever saves the most is not in this report: notebook 09 (savings) "
                    f"cannot run on {why}.")
        return ("Which lever saves the most is not in this report: notebook 09 (savings) was not "
                "run (add it with --notebooks 09).")
    lever, bill = _row(summary, "09_savings", "lever_1_saving_usd"), \
        _row(summary, "09_savings", "bill_usd")
    if lever is None or not isinstance(lever.get("value"), (int, float)):
        return "Notebook 09 found no lever that saves money on this bill."
    name = re.sub(r"^lever 1:\s*", "", lever["label"])
    whole = bill["value"] if bill and isinstance(bill.get("value"), (int, float)) else None
    if whole and lever["value"] < LEVER_HEADLINE_SHARE * whole:
        part = lever["value"] / whole
        of = _nine_bill_words(summary, whole) or "this bill"
        return (f"No lever of notebook 09 saves {LEVER_HEADLINE_SHARE:.0%} of {of} or more "
                f"(the largest, {_lever_short(name)}, saves about {fmt_usd(lever['value'])}, "
                f"{f'{part:.2%}' if part >= 1e-4 else 'under 0.01%'} of it).")
    share = f" ({lever['value'] / whole:.0%} of the whole bill)" if whole else ""
    other = _nine_bill_words(summary, whole)
    if other:
        share = f" ({lever['value'] / whole:.0%} of {other})"
    # the risk as notebook 09 writes it, whole ("...; risk: <risk>[; it <beyond the line>]"):
    # a trial read "its risk: no risk to the run itself." where 09 goes on "; fewer GPUs mean a
    # longer run, so its results come later"
    risk = re.search(r"risk:\s*(.+?)(?:; it |$)", lever.get("note", ""))
    # a lever's saving is bill(before) − bill(after) at the inputs' points (levers.Lever),
    # while the first sentence gives the bill's range: said, so the two are not read alike
    # the saving first: a lever's name may end in a clause of its own (a trial read "... not in
    # that figure, which would save about $31.6M", the "which" on the wrong noun)
    # two of 09's words the short name leaves out and a budget needs (a review): where the
    # lever's target was measured against this run's scale, and how much of the saving comes
    # through the exploratory line the bill prices from the final run
    scale = re.search(r"measured on ([\d,]+ GPUs), this run is ([\d,]+ GPUs)", name)
    through = re.search(r"\$([\d,]+) through 'exploratory and failed runs'",
                        lever.get("note", ""))
    # how the lever moves the main run's wall clock (answers.lever_days): a cheaper but slower
    # run says so beside its saving (a new-user trial)
    days = re.search(r"; (the main run [\d,.]+ days (?:longer|shorter)); risk:",
                     lever.get("note", ""))
    return (f"The biggest lever (notebook 09) would save about {fmt_usd(lever['value'])} at "
            f"the bill's point estimate{share}"
            + (f", {fmt_usd(float(through.group(1).replace(',', '')))} of it through the "
               "exploratory runs the bill prices from the final run" if through else "")
            + f": {_lever_short(name)}"
            + (f" (measured on {scale.group(1)}; this run is {scale.group(2)})" if scale else "")
            + (f"; {days.group(1)}" if days else "")
            + (f"; its risk: {risk.group(1).strip().rstrip('.')}" if risk else "") + ".")


def _nine_bill_words(summary: dict, whole) -> str:
    """Notebook 09's bill in words where it differs from the one the first sentence states
    (the glance's total point, as that sentence prints it): "notebook 09's bill with the
    scenario's waste, $8.00M, which the $5.59M above leaves out" where the scenario sets a
    ``waste_`` key (09 adds those lines), "notebook 09's bill, $X" otherwise; "" when they
    agree (within 0.5%) or either is missing (a trial read a $447k saving as "56% of the whole
    bill" of a $559k bill)."""
    g = summary.get("bill_glance") or {}
    t = _total_line(g) if whole and g.get("lines") else None
    if t is None:
        return ""
    stated = t["point_usd"]
    if not stated or abs(whole / stated - 1) <= 0.005:
        return ""
    params = summary.get("parameters") or {}
    waste = any(k.startswith("waste_") and isinstance(v, dict) and v.get("value")
                for k, v in params.items())
    money = _span_money(t["p10_usd"], t["p90_usd"])   # as the first sentence prints it
    return (f"notebook 09's bill with the scenario's waste, {fmt_usd(whole)}, which the "
            f"{money(stated)} above leaves out" if waste else
            f"notebook 09's bill, {fmt_usd(whole)}")


def _lever_short(name: str) -> str:
    """A lever's name for the index's plain sentence: its first clause (up to a semicolon outside
    parentheses), its parenthesised detail left out, which notebook 09's table keeps (a trial's
    MoE lever ran to 90 words and filled a phone's first screen)."""
    depth, cut = 0, len(name)
    for i, ch in enumerate(name):
        depth += (ch == "(") - (ch == ")")
        if ch == ";" and depth == 0:
            cut = i
            break
    first, out, depth, group = name[:cut], [], 0, []
    for ch in first:  # a parenthesis of more than LEVER_DETAIL_CHARS is detail: left out
        depth += ch == "("
        (group if depth else out).append(ch)
        if ch == ")" and depth:
            depth -= 1
            if not depth:
                out += group if len(group) <= LEVER_DETAIL_CHARS else []
                group = []
    out += group
    short = re.sub(r"\s+([,.])", r"\1", re.sub(r"\s{2,}", " ", "".join(out))).strip()
    caveat = " (no published run like this one)"  # levers.raise_mfu's: never left out
    return short + caveat if name.endswith(caveat) and not short.endswith(caveat) else short


#: A lever name's parenthesis longer than this (characters) is detail the index's plain sentence
#: leaves to notebook 09 (``_lever_short``): "(price x0.4)" stays, a source's citation goes.
LEVER_DETAIL_CHARS = 40


def compared_sentence(summary: dict) -> str:
    """The index's pointer, under its three sentences, to the comparison a ``--compare`` report
    holds below the bill (``summary['compare']``, its last line the total): a reader of the
    first screen learns that a second scenario is in the report, and what its whole bill is
    against this one's, both point estimates (``ledger.compare``: B − A). Empty without a
    comparison."""
    c = summary.get("compare")
    if not c or not c.get("lines"):
        return ""
    b = c["names"][1]
    total = c["lines"][-1]
    usd_a, usd_b = total.get("a_usd"), total.get("b_usd")
    if usd_a is None or usd_b is None:
        return ""
    diff = usd_b - usd_a  # under half a cent: floating-point noise ("$0.00000000012 less")
    how = ("the same as" if abs(diff) < 0.005 else
           f"{fmt_usd(abs(diff))} {'more' if diff > 0 else 'less'} than")
    return (f"This report also compares {b}: its whole bill is {fmt_usd(usd_b)}, {how} this "
            f"one's {fmt_usd(usd_a)} (point estimates; line by line below the bill).")


def capped_mfu_sentence(summary: dict) -> str:
    """" ..." when the bill's MFU is a ``mfu: predict`` whose central estimate lies above its
    band's capped top (``accuracy.central_mfu``: the bill uses the top), so the estimate sits at
    the optimistic end of its range (a trial read "$12.6M as estimated, likely $10.8M to
    $20.8M, median $15.2M" as the likely cost); "" otherwise. The top is named as what set it
    (the record's ``cap``, ``MfuBand.cap_source``: the best comparable published run, the
    matmul ceiling, or the model's own low end above every comparable run; a trial read
    "37.6%, the best a comparable published run has measured" where that run was 31.5%).
    Numbers from ``summary['mfu_prediction']``."""
    pred = summary.get("mfu_prediction") or {}
    if not pred.get("center_capped"):
        return ""
    dtype = (summary.get("parameters") or {}).get("dtype")
    fp8 = (dtype.get("value") if isinstance(dtype, dict) else dtype) == "fp8"
    peak = " of the FP8 peak" if fp8 else ""
    cap = f"{pred['cap']}; " if pred.get("cap") else ""
    return (f" The bill's MFU, {pred['value']:.1%}{peak}, is its range's capped top ({cap}the "
            f"step-time model's central estimate, {pred['center']:.1%}, is above it), so the "
            "estimate sits at the optimistic end of its range.")


def outside_clause(g: dict) -> str:
    """Why the total's point lies outside its own P10-P90, when it does (``point_outside``): the
    point bill takes each ranged input at its point (a triangle's mode), and the inputs whose
    points sit at the dear end of their ranges (above the bill's P90) or the cheap end (below
    its P10) pull it there. An input's point is at the dear end when it lies on the side of its
    draws' median that raises the bill (the tornado: the total at the input's P90 above the
    total at its P10 means more of it costs more). "" when the point is inside."""
    t = _total_line(g)
    if not t.get("point_outside", point_outside(t["point_usd"], t["p10_usd"], t["p90_usd"])):
        return ""
    dear = t["point_usd"] > t["p90_usd"]
    ranges = g.get("ranges") or {}
    names = []
    for row in g.get("tornado") or []:
        r = ranges.get(row["input"], {})
        pt, med = r.get("point"), r.get("median")
        if pt is None or med is None or pt == med:
            continue
        raises = row["total_at_p90_usd"] > row["total_at_p10_usd"]
        if ((pt > med) == raises) == dear:
            names.append(input_words(row["input"]))
    end, side = ("dear", "above") if dear else ("cheap", "below")
    who = (f"{_and(names)} {'is' if len(names) == 1 else 'are'} given at the {end} end of "
           f"{'its range' if len(names) == 1 else 'their ranges'}" if names else
           f"the inputs' points sit at the {end} end of their ranges")
    return (f"; the point lies {side} that range because it takes each input at its point, "
            f"and {who}")


def usd_span(a: float, b: float) -> str:
    """"$A to $B" in ``fmt_usd``'s three significant figures, in whole dollars where those read
    alike ("$100,163 to $100,512", where a trial's small team read "$100k to $100k")."""
    money = _span_money(a, b)
    return f"{money(a)} to {money(b)}" if money(a) != money(b) else \
        f"{fmt_usd(a)} either way (a range under a dollar)"


def _span_money(a: float, b: float):
    """The USD format that tells ``a`` and ``b`` apart: ``fmt_usd``, else whole dollars where
    those differ; ``fmt_usd`` when nothing does (a range under a dollar, P10 = P90)."""
    if fmt_usd(a) != fmt_usd(b) or f"{a:,.0f}" == f"{b:,.0f}":
        return fmt_usd
    return lambda v: f"${v:,.0f}"


#: The point bill is said with its median when it lies this share of its P10-P90 span or more
#: away from it (a presentation threshold: a trial read a point at its draws' 12th percentile,
#: $3.73M against a median of $4.32M, as the central figure).
OFF_CENTRE_SHARE = 0.25


def median_clause(t: dict, money=fmt_usd) -> str:
    """", median $X" when the total's point lies inside its P10-P90 but ``OFF_CENTRE_SHARE`` of
    that span or more from its P50 (the point takes each ranged input at its point, and skewed
    ranges leave it low or high among the draws), written by ``money``; "" otherwise or without
    a P50."""
    p50 = t.get("p50_usd")
    span = t["p90_usd"] - t["p10_usd"]
    if p50 is None or not span > 0 or abs(t["point_usd"] - p50) < OFF_CENTRE_SHARE * span:
        return ""
    return f", median {money(p50)}"


def _total_line(g: dict) -> dict | None:
    """The ``total`` row of a glance's ``lines`` (``bill_glance``'s JSON), None without one."""
    return next((r for r in g["lines"] if r["key"] == "total"), None)


def plain_sentences(summary: dict, failed=()) -> list:
    """Three short sentences a manager reads first, every number from ``summary``
    (``summary['bill_glance']`` and notebook 09's headlines): what the run costs, its point
    estimate and P10-P90 range (the whole project's only when no line is "not given"), what
    drives the range (the tornado's top input), the biggest lever (``lever_sentence``). What
    the total rests on and leaves out follows them in ``lead_details``. Empty without a glance
    (the bill could not be built)."""
    g = summary.get("bill_glance")
    if not g:
        return []
    t = _total_line(g)
    gaps = g.get("gaps")
    # a trial read "What this scenario prices costs $3.70M as estimated" as broken English
    what = ("The lines priced for this scenario add up to" if gaps and
            (gaps["whole"] or gaps["partly"]) else "The whole project costs")
    money = _span_money(t["p10_usd"], t["p90_usd"])  # the point in its range's digits
    first = (f"{what} {money(t['point_usd'])}, likely {usd_span(t['p10_usd'], t['p90_usd'])}"
             f"{outside_clause(g) or median_clause(t, money)}." + budget_sentence(summary)
             + assumed_mfu_sentence(summary))
    tor = g["tornado"]
    if tor:
        top = tor[0]
        at10, at90 = top["total_at_p10_usd"], top["total_at_p90_usd"]  # in that order: an
        # input that lowers the bill (the MFU) moves it down from its P10 to its P90
        lead = "Most of" if top_share(tor) > 0.5 else "The largest single part of"
        moves = "falls" if at90 < at10 else "rises"  # a trial read "from $32.5M to $26.9M"
        second = (f"{lead} that range comes from {input_words(top['input'])}: between its P10 "
                  f"and P90 the bill {moves} from {usd_span(at10, at90)}")
        if len(tor) > 1 and tor[1]["swing_usd"] > 0:  # an input that moves nothing is no driver
            nxt = tor[1]
            second += (f"; next comes {input_words(nxt['input'])}, a swing of "
                       f"{fmt_usd(nxt['swing_usd'])}")
        second += "."
    else:
        second = "No input of this bill is uncertain in the scenario, so nothing drives a range."
    return [first, second, lever_sentence(summary, failed)]


def budget_sentence(summary: dict) -> str:
    """" That is 5.5× the budget of $1.00M." (under 2×: " That is 4% over the budget of ...")
    when the scenario's ``ledger_budget_usd`` (``summary['bill']['bill.figures.budget_usd']``)
    lies below the bill's point estimate (point ÷ budget, as ``checks.budget_warning``),
    " The budget of $X lies below its P10." (or P90) when it lies below the headline draws'
    P10 (or P90) but not the point, else "" (a trial found a bill 5.5× its budget said only in
    the box of warnings below the first sentences)."""
    bill = summary.get("bill") or {}
    budget, g = bill.get("bill.figures.budget_usd"), summary.get("bill_glance") or {}
    if not isinstance(budget, (int, float)) or not budget > 0 or not g.get("lines"):
        return ""
    t = _total_line(g)
    over = t["point_usd"] / budget
    if over > 1:   # under 2×, in per cent: "1.0× the budget" read as on budget (a review)
        said = (f"{over:.1f}× the budget" if over >= 1.995 else
                f"{over - 1:.0%} over the budget" if over >= 1.005 else "just over the budget")
        return f" That is {said} of {fmt_usd(budget)}."
    for q in ("p10", "p90"):   # a point may lie below its own P10 (outside_clause)
        if (t.get(f"{q}_usd") or 0) > budget:
            return f" The budget of {fmt_usd(budget)} lies below its {q.upper()}."
    return ""


def assumed_mfu_sentence(summary: dict) -> str:
    """" That assumes ..." when the scenario gives its MFU as a number (neither ``mfu:
    predict`` nor a pilot's) and that number lies outside the band notebook 04b predicts for
    the scenario's plan (its ``predicted_mfu``, ``_low`` / ``_high`` / ``_central``
    headlines): the assumed MFU, the model's central estimate (its raw prediction corrected by
    the regime's held-out error) and band, and the whole bill at that estimate: the bill
    rebuilt there (``summary['bill_at_central_mfu']``, ``report._bill_at_central_mfu``: every
    line, a phase's own MFU kept, as notebook 09's own-hardware row; a trial read $198k on the
    index and $207k in 09, the index having scaled a long-context phase priced at its own MFU),
    else about total + S × (m ÷ central − 1), S the part of the bill that scales as 1 ÷ MFU
    (``_scaled_with_mfu``: the final run, the exploratory line priced from its GPU-hours, and
    the reserves on them). "" otherwise (04b not run, or the MFU
    within the band). A trial's Qwen3-235B FP8 run on B200 assumed 30% where the model predicts
    14.1% (15.4% corrected): the index read "likely $4.30M to $10.9M", and the same file with
    `mfu: predict` bills $11.7M, the figure this sentence gives."""
    band = summary.get("parameters", {}).get("mfu_band") or {}
    if band.get("value") in ("predicted", "pilot") or _row(
            summary, "04b_step_time", "pilot_calibrated_mfu") is not None:
        return ""
    rows = [_row(summary, "04b_step_time", k) for k in
            ("predicted_mfu_low", "predicted_mfu_high", "predicted_mfu_central",
             "predicted_mfu")]
    m = summary.get("bill", {}).get("bill.figures.mfu")
    lines = {r.get("key"): r for r in (summary.get("bill_glance") or {}).get("lines", [])}
    final = ((summary.get("bill_glance") or {}).get("final_run") or {}).get("point_usd")
    if any(r is None or not isinstance(r.get("value"), (int, float)) for r in rows) or \
            not isinstance(m, (int, float)) or not isinstance(final, (int, float)) or \
            "total" not in lines:
        return ""
    low, high, central, raw = (float(r["value"]) for r in rows)
    if low <= m <= high or not central > 0:
        return ""
    exact = summary.get("bill_at_central_mfu") or {}
    if isinstance(exact.get("total_usd"), (int, float)) and exact.get("mfu") == central:
        whole, how = float(exact["total_usd"]), (
            "the bill rebuilt at that MFU, as notebook 09 prices the scenario's own hardware"
            + (" less the scenario's waste, which its row adds" if exact.get("waste") else "")
            + f": the final run, {fmt_usd(final)} at the assumed MFU, and the lines priced "
            "from it move; a phase that gives its own MFU keeps it")
    else:   # a summary without the rebuilt bill (report._bill_at_central_mfu): the rule
        whole = float(lines["total"]["point_usd"]) + _scaled_with_mfu(summary, lines, final) \
            * (m / central - 1)
        how = (f"the final run, {fmt_usd(final)} at the assumed MFU, and the exploratory runs "
               "priced from it both grow as 1 ÷ MFU, with the reserves on them")
    # a central estimate at an end of the band is that end, not the corrected prediction (a
    # trial read "its prediction, 63.8%, corrected" of 64.1%, the capped top: 64.2% corrected)
    kept = " and kept inside its band" if not low < central < high else ""
    return (f" That assumes the scenario's MFU of {m:.1%}; the step-time model expects "
            f"{central:.1%} for its plan (its prediction, {raw:.1%}, corrected by its "
            f"regime's held-out error{kept}; band {low:.1%}–{high:.1%}, notebook 04b), at which "
            f"the whole bill would be about {fmt_usd(whole)} ({how}).")


def _scaled_with_mfu(summary: dict, lines: dict, final: float) -> float:
    """The USD of a bill that scales as 1 ÷ MFU (``assumed_mfu_sentence``): the final run F,
    the exploratory runs E priced from its GPU-hours, the rerun reserve P(rerun) × F, and the
    contingency's fraction f of all of them (``ledger._reserve_lines``; f read back from the
    bill as contingency ÷ (total − contingency))::

        S = (F · (1 + P(rerun)) + E) · (1 + f)

    A trial's index said $3.28M at the model's MFU where notebook 09's bill at it is $3.21M: the
    10% contingency on the final run's change was left out. Approximate: lines priced over the
    compute schedule (people, operations and storage where no project length is given) also
    move with it and are left out (a review: 6% on such a bill); a ranged P(rerun) is taken at
    its midpoint."""
    expl = float(lines.get("compute.exploratory", {}).get("point_usd") or 0.0)
    cont = float(lines.get("reserve.contingency", {}).get("point_usd") or 0.0)
    total = float(lines["total"]["point_usd"])
    f = cont / (total - cont) if total > cont > 0 else 0.0
    rerun = (summary.get("parameters", {}).get("ledger_rerun_probability") or {}).get("value")
    if isinstance(rerun, (list, tuple)) and rerun and all(
            isinstance(x, (int, float)) for x in rerun):
        rerun = sum(rerun) / len(rerun)   # a range as the summary lists it: its midpoint
    p = float(rerun) if isinstance(rerun, (int, float)) else 0.0
    return (final * (1 + p) + expl) * (1 + f)


def top_share(tornado: list) -> float:
    """The tornado's top input's share of the range, s₀² ÷ Σ sᵢ² over its swings sᵢ (each the
    bill's move between that input's P10 and P90, the others at their points): the share of
    the total's variance it carries when the inputs are independent and the bill is near-linear
    in each (variances of independent terms add; a swing is proportional to its term's standard
    deviation). "Most of that range" is said only above one half. 0 when nothing swings."""
    sq = [float(r["swing_usd"]) ** 2 for r in tornado]
    return sq[0] / sum(sq) if sq and sum(sq) > 0 else 0.0


#: Lines held at one number are named under the sentences when together they are at least
#: this share of the point estimate (a presentation threshold: lines that large with no spread
#: make the range read narrower than the bill's uncertainty) ...
FIXED_LINE_SHARE = 0.25
#: ... each of them at least this share (a data lead's licensing and annotation lines, 13% each
#: and 25% together, had no spread and no word, where the people line beside them was named).
FIXED_LINE_MIN_SHARE = 0.05


def fixed_lines_sentence(lines: list) -> str:
    """A sentence naming the lines of the glance (``bill_glance``'s ``lines``, or the records of
    ``ledger.bill_bars``: ``line``, ``point_usd``, ``p10_usd``, ``p90_usd`` per line, the total
    last) that have no spread (P10 = P90 = the point: none of their inputs is ranged, given or
    illustrative) and are each at least ``FIXED_LINE_MIN_SHARE`` of the point estimate, when
    together they are at least ``FIXED_LINE_SHARE`` of it, so that the range is read as leaving
    their uncertainty out; "" otherwise."""
    total = lines[-1]["point_usd"]
    fixed = [r for r in lines[:-1] if total > 0
             and r["point_usd"] >= FIXED_LINE_MIN_SHARE * total
             and r["p10_usd"] == r["p90_usd"] == r["point_usd"]]
    together = sum(r["point_usd"] for r in fixed)
    if not fixed or together < FIXED_LINE_SHARE * total:
        return ""
    named = " and ".join(f"“{r['line']}”, {fmt_usd(r['point_usd'])} or "
                         f"{r['point_usd'] / total:.0%} of the point estimate," for r in fixed)
    one = len(fixed) == 1
    return (f" The line{'' if one else 's'} {named} {'is' if one else 'are'} held at one "
            f"number{'' if one else f' ({together / total:.0%} together)'}: none of "
            f"{'its' if one else 'their'} inputs is ranged, so the range leaves "
            f"{'its' if one else 'their'} uncertainty out.")


def lead_details(summary: dict) -> str:
    """The paragraph under ``plain_sentences`` (a trial read one 100-word first sentence
    holding all of this): what the total's range is and where it comes from (P10-P90 and
    median of the headline draws; ``ledger.range_basis``), the final pre-training run's part
    (``final_run``), its MFU when that is a capped ``mfu: predict`` (``capped_mfu_sentence``),
    and what the total leaves out and its largest default line (``gaps_sentence``). Empty
    without a glance."""
    g = summary.get("bill_glance")
    if not g:
        return ""
    t = _total_line(g)
    run = g.get("final_run")
    how = g.get("basis") or ("illustrative ranges: the scenario gives every input as one "
                             "number" if g["illustrative"] else "the scenario's ranges")
    out = (f"The first figure is the point estimate; \"likely\" is the P10-P90 range of the "
           f"draws (median {fmt_usd(t['p50_usd'])}), from {how}.")
    if run and run["point_usd"]:
        out += (f" The {run['label']} (its paid GPU-hours, failures and restarts included, at "
                f"the GPU-hour price) is {fmt_usd(run['point_usd'])} of the point estimate.")
    out += capped_mfu_sentence(summary) + fixed_lines_sentence(g["lines"]) + \
        netting_sentence(summary)
    gap = gaps_sentence(g.get("gaps"))
    return out + (f" {gap}" if gap else "")


def netting_sentence(summary: dict) -> str:
    """" The RL post-training line ($51.1k) is deducted from the exploratory runs' line ..."
    when the bill nets post-training, benchmark or rerun-reserve lines out of its exploratory
    line (the
    bill's ``exploratory_netting``: ``ledger.exploratory_words`` has the rule, max(0,
    fraction × final run − netted GPU-h), from Cottier et al. 2024, whose development-compute
    multiplier counts fine-tuning, evaluation and failed attempts), so that they add $0 to the
    total until they
    exceed the multiplier, then only the excess; "" otherwise. Two trials read an RL campaign
    that left the total unchanged as a bill that ignored it."""
    n = (summary.get("bill") or {}).get("bill.figures.exploratory_netting") or {}
    if not n.get("netted"):
        return ""
    usd, excess = netting_usd(n)
    parts = [f"{k.removeprefix('the ')} line ({fmt_usd(v)})" for k, v in usd.items()]
    one = len(parts) == 1
    what = " and the ".join(parts)
    counted = multiplier_counts(usd)
    if not n.get("clamped"):
        return (f" The {what} {'is' if one else 'are'} deducted from the exploratory runs' "
                "line, whose multiplier of the final run (Cottier et al. 2024) already counts "
                f"{counted}, so {'it adds' if one else 'they add'} no compute to the total.")
    return (f" The {what} exceed{'s' if one else ''} the exploratory runs' whole budget "
            f"beyond the final run (Cottier et al. 2024's multiplier includes {counted}), so "
            f"that line is $0 and only the excess, {fmt_usd(excess)}, adds compute to the "
            "total.")


#: The start of ``checks``' bubble warning, its idle share of the step captured (CAVEATS).
_BUBBLE = r"pipeline bubble adds \d+% to the compute time \(the stages idle (\d+%)"

#: Each report warning family (a pattern of its text) as one line in a reader's words; the
#: numbers are the warning's own (computed for the scenario). The first that matches is used.
#: The parts of ``validation.own_published_run_warning``'s sentence the ``CAVEATS`` below read:
#: the model and accelerator of the run, its FP8 bound (an FP8 bill against a BF16 run), the
#: bill's MFU and multiple, and ``validation.with_step_model_beside_history``'s clause (the given
#: mfu and the step-time model's figure).
_OWN_RUN = r"^mfu: the catalogue holds (.+?)'s own published run on (.+?): .*?a whole-run MFU of "
_OWN_FP8 = r"([\d.]+%) \([^)]*\), ([\d.]+%) in FP8 at most"
_OWN_BILL = r".*?the bill's ([\d.]+%(?: \(on the BF16 basis\))?) is ([\d.]+)× it"
_BESIDE_MODEL = (r".*?; the step-time model expects more of this plan than the given "
                 + GIVEN_MFU_PATTERN + r", (\d+%) on the same peak")
CAVEATS = [
    # a last host partly used (checks.partial_host_warning)
    (r"^n_gpus=([\d,]+) fills ([\d.]+) of (\S+)'s (\d+)-GPU hosts",
     "{0} GPUs fill {1} of {2}'s {3}-GPU hosts: the idle GPUs of the last host are paid and "
     "not in this bill"),
    # GEMMs priced flat on a GPU without a per-shape table (checks.flat_gemm_warning)
    (r"^the step-time model holds no per-shape GEMM table for (.+?), so .*? it would run at "
     r"([\d.]+%) of that ceiling",
     "the predicted MFU reads optimistic: {0}'s GEMMs are priced at the large-GEMM rate, and "
     "this plan's are small (by H100's table, about {1} of that rate)"),
    # serving over the model's life, not a line of the bill (checks.serving_outside_bill_warning)
    (r"^inference_tokens_lifetime=([^ ]+) is not a line of the bill",
     "the {0} tokens served over the model's life are not in this bill: notebooks 05, 06 and 09 "
     "price them"),
    # RL sequences beyond the model's own context (checks._beyond_model_context)
    (r"^the RL campaign's longest rollout, .*?= ([\d,]+) tokens, is beyond the ([\d,]+) tokens "
     r"(\S+) can attend",
     "the RL rollouts reach {0} tokens, longer than the {1} tokens {2} can attend: the RL line "
     "prices a KV cache and attention the model cannot use"),
    (r"^the RL campaign's preference pairs, .*?= ([\d,]+) tokens, are beyond the ([\d,]+) "
     r"tokens (\S+) can attend",
     "the DPO pairs reach {0} tokens, longer than the {1} tokens {2} can attend: the RL line "
     "prices passes the model cannot run"),
    # an RL rollout longer than the model is trained at (checks, the RL context check)
    (r"^the RL campaign's longest rollout, .*?= ([\d,]+) tokens, is beyond the ([\d,]+) tokens "
     r"the scenario trains its model at .*?the policy needs (a long-context phase|its longest "
     r"phase at seq_len >= [\d,]+) first",
     "the RL rollouts reach {0} tokens, beyond the {1} tokens the model is trained at: it needs "
     "{2} first"),
    (r"^the RL campaign's preference pairs, .*?= ([\d,]+) tokens, are beyond the ([\d,]+) tokens "
     r"the scenario trains its model at .*?the policy needs (a long-context phase|its longest "
     r"phase at seq_len >= [\d,]+) first",
     "the DPO pairs reach {0} tokens, beyond the {1} tokens the model is trained at: it needs "
     "{2} first"),
    # a given reserved price, the project longer than the run (validation.reserved_project_...)
    (r"^pricing: reserved bills the [\d.,]+[kMBT]? GPU-hours this bill prices \(([\d.,]+) "
     r"days of its .*?reserved for the project's ([\d.]+) months, ([\d,]+ GPUs) cost .*? = "
     r"(\$\S+) \(the idle part, (\$\S+),",
     "the bill charges {0} days of its reserved GPUs; reserved for the project's {1} months, "
     "{2} cost {3}, {4} of it idle and unpriced"),
    # owned GPUs held for a project longer than the bill's hours (validation.owned_project_...)
    (r"^pricing: owned GPUs held for the project's ([\d.]+) months are charged .*? = (\$\S+) "
     r"at .*?"
     r"\(([\d,]+ GPUs)\), where the bill charges .*?\(([\d.,]+) days of them\).*?\(the idle "
     r"part, (\$\S+),",
     "the bill charges {3} days of the owned GPUs; held for the project's {0} months, "
     "{2} cost {1} at its amortisation rate, {4} of it idle and unpriced"),
    # a reserved price whose term outlasts the run (validation.reserved_term_warning)
    (r"^pricing: reserved takes the catalogue's committed rate, (\$[\d.]+)/GPU-h, whose rows "
     r"commit to ([\d,.]+) days or more, .*?= (\$\S+): give",
     "the reserved price, {0}/GPU-h, is a {1}-day commitment the bill charges only for the "
     "hours this run uses; bought for this run alone the term costs {2}: give a quote"),
    (r"^pricing: reserved takes the catalogue's rate, (\$[\d.]+)/GPU-h, from (?:a row that "
     r"states|rows of which \d+ states?) no term",
     "the reserved price, {0}/GPU-h, comes from rows that state no term: a term that outlasts "
     "the run is not priced; give a quote"),
    # owned GPUs charged for the hours used (validation.owned_cluster_warning)
    (r"^pricing: owned charges the .*?GPU-hours the bill prices .*?, (\$\S+) of hardware: "
     r"buying the ([\d,]+ GPUs?) as a cluster \(servers and network\) costs (\$\S+),",
     "owned GPUs are charged only for the hours this bill uses, {0} of hardware; buying the "
     "{1} costs {2}: the rest of their value is taken to serve other work or be resold"),
    # a run too short for the loss-based pages (validation.short_run_warning)
    (r"^train_tokens=(\S+) at global_batch_tokens=\S+ is ([\d,]+) optimizer steps, too few for "
     r"the loss-based pages: .*? ends at ([\d.]+) nats",
     "{0} tokens in {1} optimizer steps are too few for the loss-based pages (a run that short "
     "ends at {2} nats, above a uniform guess): pages 02 and 06 describe no real run; the bill "
     "prices the tokens as given"),
    # a bill above world GDP from inputs each below it (validation._world_bill_warning)
    (r"^the bill, \$(\S+), is above world GDP",
     "the bill, ${0}, is above world GDP: check the inputs' exponents and units"),
    # a served request longer than the model attends (checks.served_context_warning)
    (r"^a served request, inference_prompt_tokens \+ inference_output_tokens = .*? = ([\d,]+) "
     r"tokens, is beyond the ([\d,]+) tokens (\S+) can attend",
     "a served request of {0} tokens is longer than the {1} tokens {2} can attend: its serving "
     "cost describes a model that does not exist"),
    (r"^a served request, inference_prompt_tokens \+ inference_output_tokens = .*? = ([\d,]+) "
     r"tokens, is beyond the ([\d,]+) tokens (\S+) was pre-trained at",
     "a served request of {0} tokens is longer than the {1} tokens {2} was pre-trained at: "
     "check the released model's context"),
    # partial rollouts priced at the best measured gain (validation._partial_rollouts_warning)
    (r"^rl_partial_rollouts: the RL line prices partial rollouts at the best gain measured",
     "the RL line prices partial rollouts at the best gain measured: read the RL cost as "
     "optimistic"),
    # the bill set against its model's own published run (validation.own_published_run_warning)
    # beside the step-time model's line on the same given MFU, below what it expects
    # (validation.with_step_model_beside_history): both references said, one line; an FP8
    # bill's multiple is of the run's FP8 bound, the model's figure on the FP8 peak as the
    # given mfu is
    (_OWN_RUN + _OWN_FP8 + _OWN_BILL + _BESIDE_MODEL,
     "the bill's MFU, {4}, is {5}× the most {0}'s own published run on {1} would reach in FP8, "
     "{3} (the run: {2}), while the step-time model expects {7} of this plan's steps where the "
     "scenario gives {6} (both of the FP8 peak): the two bracket the MFU; a budget with margin "
     "takes the lower"),
    (_OWN_RUN + r"([\d.]+%)" + _OWN_BILL + _BESIDE_MODEL,
     "the bill's MFU, {3}, is {4}× the whole-run MFU of {0}'s own published run on {1} ({2}), "
     "while the step-time model expects {6} of this plan's steps where the scenario gives {5}: "
     "the two bracket the MFU; a budget with margin takes the lower"),
    # an FP8 bill against a BF16 own run: the multiple is of the run's FP8 bound
    (_OWN_RUN + _OWN_FP8 + _OWN_BILL,
     "the bill's MFU, {4}, is {5}× the most {0}'s own published run on {1} would reach in FP8, "
     "{3} (the run: {2}): read the bill as optimistic against its own model's run (the "
     "claim row sets it against the best comparable run instead)"),
    (_OWN_RUN + r"([\d.]+%)" + _OWN_BILL,
     "the bill's MFU, {3}, is {4}× the whole-run MFU of {0}'s own published run on {1} "
     "({2}): read the bill as optimistic against its own model's run (the claim row sets it "
     "against the best comparable run instead)"),
    # a MoE plan at its memory limit (checks.moe_headroom_warning)
    (r"^the plan .+? fits .+? in ([\d.,]+ GB) of the ([\d,]+ GB) usable on each (.+?) only with a "
     r"perfectly balanced router: with its busiest experts at ([\d.]+)× .*?grow by about "
     r"([\d.,]+ GB)",
     "the plan fits in memory ({0} of {1} on each {2}) only if the router balances perfectly: "
     "busier experts ({3}× the mean load) would add about {4}"),
    # a band with no published run of its scope to hold its top (accuracy.band_cap_detail)
    (r"^the predicted MFU band's upper end, ([\d.]+%(?: of the FP8 dense peak)?), is untested: "
     r"(no published .+?) \(",
     "the MFU band's top, {0}, is untested: {1}"),
    # checkpoints and failures (bill.validation)
    (r"^ckpt_async: the bill checkpoints every (.+?), each write taking .*?checkpoints (\d+%) "
     r"of the time \((.+?) a day\)",
     "asynchronous checkpoints, one every {0}, keep the storage writing {1} of the time ({2} "
     "a day): set the checkpoint interval or the storage bandwidth"),
    (r"^goodput (\d+%): the pre-training run pays ([\d.]+)× its ideal GPU-hours, interrupted "
     r"((?:by a failure (?:or pre-emption )?)?)every (.+?) on (.+?)"
     r"((?: \(besides planned stops, [^)]*\))?)(?: \([^)]*planned stops\))?"
     r"((?:, and stalled \d+% of its time by checkpoints)?)(?: \([^)]*\))?;",
     "goodput {0}: interrupted {2}every {3} on {4}{5}{6}, the run pays {1}× its ideal "
     "GPU-hours"),
    # a pilot calibration's network factor (training.calibrate.scaleout_warning)
    (r"^(?:pilot: )?scale-out x[\d.]+: the fit puts the network across nodes at (.+?) per "
     r"GPU, ([\d.]+%) of the catalogue's",
     "the pilots fit the network at {1} of the catalogue's bandwidth ({0} per GPU), below one "
     "NIC per node: check the pilots' figures"),
    (r"^(waste_.*?): the waste keys are priced in notebook 09's bill with waste",
     "the waste you gave ({0}) is priced in notebook 09's bill with waste, not in this bill"),
    (r"^pilot: the run's plan .*? runs none of the pilots' kernels .*?, so (\d+%) of the "
     r"pilots' compute correction .*?the bill's MFU ([\d.]+%)",
     "the pilots ran other kernels than the run's plan: {0} of their correction is carried, so "
     "the MFU, {1}, rests on the step-time model; pin the pilots' plan to bill what they "
     "measured"),
    # a capped band: its range as the bill draws it, after the cap (accuracy.mfu_spread_words)
    (r"only (\d+) held-out runs? in the regime .*?before the cap; after it, the whole band "
     r"(\d+%) to (\d+%) below the prediction",
     "the predicted MFU rests on only {0} published run(s) like this one, its sharding included, kept out of its fitting and is above every "
     "comparable published run: read it as {2} to {1} lower (its range is capped)"),
    (r"no held-out run is published in the regime .*?before the cap; after it, the whole band "
     r"(\d+%) to (\d+%) below the prediction",
     "no published run kept out of the model's fitting matches this plan in GPU generation, sharding, model kind, precision, length and size together, and the prediction is above every comparable "
     "published run: read it as {1} to {0} lower (its range capped)"),
    (r"only (\d+) held-out runs? in the regime .*?before the cap, (\d+%) below to (\d+%) "
     r"above after it",
     "the predicted MFU rests on only {0} published run(s) like this one, its sharding included, kept out of its fitting: read it as {1} "
     "lower to {2} higher than the model's raw prediction (its range is capped)"),
    (r"no held-out run is published in the regime .*?before the cap, (\d+%) below to (\d+%) "
     r"above after it",
     "no published run kept out of the model's fitting matches this plan in GPU generation, sharding, model kind, precision, length and size together: the predicted MFU is a rough guess ({0} lower to "
     "{1} higher, its range capped)"),
    (r"only (\d+) held-out runs? in the regime .*?the MFU (\d+%) below to .*? before the "
     r"cap, (\d+%) above after it",
     "the predicted MFU rests on only {0} published run(s) like this one, its sharding included, kept out of its fitting: read it as {1} "
     "lower to {2} higher than the model's raw prediction (its range is capped)"),
    (r"no held-out run is published in the regime .*?the MFU (\d+%) below to .*? before the "
     r"cap, (\d+%) above after it",
     "no published run kept out of the model's fitting matches this plan in GPU generation, sharding, model kind, precision, length and size together: the predicted MFU is a rough guess ({0} lower to "
     "{1} higher, its range capped)"),
    (r"only (\d+) held-out runs? in the regime .*?the MFU (\d+%) below to (\d+%) above",
     "the predicted MFU rests on only {0} published run(s) like this one, its sharding included, kept out of its fitting: read it as {1} "
     "lower to {2} higher than the model's raw prediction"),
    (r"only (\d+) held-out runs? in the regime .*?the MFU (\d+%) below to with no upper",
     "the predicted MFU rests on only {0} published run(s) like this one, its sharding included, kept out of its fitting: read it as {1} "
     "lower, or much higher"),
    (r"no held-out run is published in the regime .*?the MFU (\d+%) below to (\d+%) above",
     "no published run kept out of the model's fitting matches this plan in GPU generation, sharding, model kind, precision, length and size together: the predicted MFU is a rough guess ({0} lower to "
     "{1} higher)"),
    (r"no held-out run is published in the regime",
     "no published run kept out of the model's fitting matches this plan in GPU generation, sharding, model kind, precision, length and size together: the predicted MFU is a rough guess"),
    (r"^([\d,]+ GPUs?) is more than 4× away",
     "{0} is far from the cluster sizes of the published runs: the MFU is extrapolated"),
    (r"read the predicted MFU as an upper bound",
     "the predicted MFU is an upper bound: published runs like this one fell short of it"),
    # an FP8 prediction and best on the FP8 peak (its BF16-basis figures in the detail), then
    # BF16; each with the band's central estimate where it is not above the best
    (r"^the predicted MFU ([\d.]+%).*?exceeds the best published MFU of a comparable run "
     r"\(.*?\), [\d.]+% on the BF16 basis \(([\d.]+%) of the FP8 dense peak\).*the band's "
     r"central estimate, ([\d.]+%)",
     "the predicted MFU, {0} of the FP8 peak, is above the best comparable published run "
     "({1}): read it as optimistic; the central estimate a `mfu: predict` bill uses, {2}, is "
     "not above it"),
    (r"^the predicted MFU ([\d.]+%).*?exceeds the best published MFU of a comparable run "
     r"\(.*?\), [\d.]+% on the BF16 basis \(([\d.]+%) of the FP8 dense peak\)",
     "the predicted MFU, {0} of the FP8 peak, is above the best comparable published run "
     "({1}): read it as optimistic"),
    (r"^the predicted MFU ([\d.]+%).*?exceeds the best published MFU of a comparable run "
     r"\(.*?\), ([\d.]+%) \(.*the band's central estimate, ([\d.]+%)",
     "the predicted MFU, {0}, is above the best comparable published run ({1}): read it as "
     "optimistic; the central estimate a `mfu: predict` bill uses, {2}, is not above it"),
    (r"^the predicted MFU ([\d.]+%).*?exceeds the best published MFU of a comparable run "
     r"\(.*?\), ([\d.]+%) \(",
     "the predicted MFU, {0}, is above the best comparable published run ({1}): read it as "
     "optimistic"),
    (r"^the predicted MFU ([\d.]+%).*exceeds the best MFU published among (.+?) of any size",
     "the predicted MFU, {0}, is above the best of the published {1} of any size: read it as "
     "optimistic"),
    # a run on other hardware (none published on this one): said so, not "on this hardware"
    (r"^the predicted MFU ([\d.]+%).*?exceeds the best MFU published among (.+?) on any "
     r"hardware \((no .+? is published on [^)]+)\).*?, ([\d.]+%) \(",
     "the predicted MFU, {0}, is above the best comparable published run on any hardware "
     "({3}, among {1}); {2}: read it as optimistic"),
    (r"^the predicted MFU ([\d.]+%).*exceeds the best",
     "the predicted MFU, {0}, is above the best comparable published run: read it as "
     "optimistic"),
    # the cap and its reason (accuracy.band_cap); first where it is the FP8 bound of a BF16 run
    # (accuracy.FP8_CAP_WORDS), which no run measured
    (r"^the band's upper end is capped at ([\d.]+%(?: of the FP8 dense peak)?) \(the uncapped "
     r"band's low end, itself above the highest FP8 bound of a comparable BF16 run .*?, "
     r"([\d.]+%(?: of the FP8 dense peak)?).*?the "
     r"prediction, ([\d.]+%(?: of the FP8 dense peak)?), is above every",
     "the MFU's range is capped at {0}, the low end of the model's own range, itself above the "
     "FP8 bound of the best comparable BF16 run ({1}: that run's MFU × the largest published "
     "FP8 speed-up, not a measured figure): the prediction, {2}, is above it, so the bill uses "
     "no more than {0}"),
    (r"^the band's upper end is capped at ([\d.]+%(?: of the FP8 dense peak)?) \(the highest "
     r"FP8 bound of a comparable BF16 run .*?the prediction, ([\d.]+%(?: of the FP8 dense "
     r"peak)?), is above every comparable",
     "the MFU's range is capped at {0}, the FP8 bound of the best comparable BF16 run (its MFU "
     "× the largest published FP8 speed-up, not a measured figure): the prediction, {1}, is "
     "above it, so the bill uses no more than {0}"),
    (r"^the band's upper end is capped at ([\d.]+%(?: of the FP8 dense peak)?) \(the highest "
     r"FP8 bound of a comparable BF16 run ",
     "the MFU's range is capped at {0}, the FP8 bound of the best comparable BF16 run (its MFU "
     "× the largest published FP8 speed-up, not a measured figure): no FP8 run like this one "
     "has measured more"),
    (r"^the band's upper end is capped at ([\d.]+%(?: of the FP8 dense peak)?) \(the uncapped "
     r"band's low end, itself above the best published .*?, "
     r"([\d.]+%(?: of the FP8 dense peak)?).*?the "
     r"prediction, ([\d.]+%(?: of the FP8 dense peak)?), is above every (?:comparable|published "
     r"run of that scope)",
     "the MFU's range is capped at {0}, the low end of the model's own range, itself above "
     "the best comparable published run ({1}): the prediction, {2}, is above every "
     "comparable run, so the bill uses no more than {0}"),
    (r"^the band's upper end is capped at ([\d.]+%(?: of the FP8 dense peak)?) .*?the "
     r"prediction, ([\d.]+%(?: of the FP8 dense peak)?), is above every comparable",
     "the MFU's range is capped at {0}, the best comparable published run: the prediction, "
     "{1}, is above every one, so the bill uses no more than {0}"),
    (r"^the band's upper end is capped at ([\d.]+%(?: of the FP8 dense peak)?) \(the measured "
     r"matmul ceiling",
     "the MFU's range is capped at {0}, this GPU's measured matrix-multiply ceiling: no step "
     "runs faster than its matrix multiplies"),
    (r"^the band's upper end is capped at ([\d.]+%(?: of the FP8 dense peak)?) \(the best "
     r"published MFU among (.+?) of any size",
     "the MFU's range is capped at {0}, the best MFU published by {1} of any size: no run "
     "like this one (of its size) is published"),
    (r"^the band's upper end is capped at ([\d.]+%(?: of the FP8 dense peak)?)",
     "the MFU's range is capped at {0}: no comparable published run has measured more"),
    (r"^mfu: predict -> ([\d.]+%): the step-time model predicts ([\d.]+%)[^;]*; its held-out "
     r"runs in this regime took a median ([\d.]+%) (more|less) time per step than predicted"
     r".*?corrected "
     r"prediction at ([\d.]+%), above the band's capped top.*?\(band ([\d.]+%)–([\d.]+%)\)",
     "the MFU is the step-time model's: it predicts {1}; published runs like this one took a "
     "median {2} {3} time per step than it predicted, which would give {4}, above the band's "
     "capped top, so the "
     "bill uses {0} (its band {5}-{6}), not measured"),
    (r"^mfu: predict -> ([\d.]+%): the step-time model predicts ([\d.]+%)[^;]*; its held-out "
     r"runs in this regime took a median ([\d.]+%) (more|less) time per step.*?\(band "
     r"([\d.]+%)–([\d.]+%)\)",
     "the MFU is the step-time model's: it predicts {1}; published runs like this one took a "
     "median {2} {3} time per step than it predicted, so the bill uses {0} (its band {4}-{5}), "
     "not measured"),
    (r"^mfu: predict -> ([\d.]+%).*?band ([\d.]+%)[-–]([\d.]+%)",
     "the MFU is predicted by the step-time model, {0} (its band {1}-{2}), not measured"),
    (r"^seq_len=([\d,]+): the MFU is on the full attention-matrix count .*?, ([\d.]+)× the "
     r"causal work",
     "at {0} tokens the MFU counts the full attention matrix, {1}× the causal work: a causal "
     "count reads it {1}× lower"),
    (r"^" + GIVEN_MFU_PATTERN + r" is above the best comparable published run, ([\d.]+%)",
     "the assumed MFU, {0}, is above the best comparable published run ({1}): every cost here "
     "is optimistic"),
    (r"^mfu=([\d.]+)(?: \([^)]*\))? is above any published",
     "the assumed MFU, {0}, is above any published training run: every cost here is optimistic"),
    (r"^the scenario's " + GIVEN_MFU_PATTERN + r" is above the band's capped top, ([\d.]+%) "
     r"\((.+?)\), of what the step-time model expects.*?; the raw prediction, (\d+%), is above "
     r"that cap",
     "the assumed MFU, {0}, is above the band's capped top, {1} ({2}); the raw prediction, "
     "{3}, is above that cap"),
    (r"^the scenario's " + GIVEN_MFU_PATTERN + r" is (below|above) what the step-time model "
     r"expects.*?: (\d+%),.*above every one of the (\d+) held-out",
     "the assumed MFU, {0}, is {1} the model's {2}, a prediction above all {3} published "
     "runs its error band was measured on (held-out runs of its regime; the MFU lever's best "
     "comparable run is another set)"),
    (r"^the scenario's " + GIVEN_MFU_PATTERN + r" is (below|above) what the step-time model "
     r"expects.*?: (\d+%),.*no held-out published run in its regime",
     "the assumed MFU, {0}, is {1} the model's {2}, a prediction no published run of its "
     "regime checks"),
    (r"^the scenario's " + GIVEN_MFU_PATTERN + r" is below what the step-time model expects"
     r"(?!.*in FP8 at most).*?: (\d+%),.*; (.+?)'s own published run on (.+?): .*?a whole-run "
     r"MFU of ([\d.]+%)",
     "the assumed MFU, {0}, is below what the model predicts for this plan ({1}); {2}'s own "
     "published run on {3} averaged {4} over the whole run, failures and restarts included"),
    (r"^the scenario's " + GIVEN_MFU_PATTERN + r" is (below|above) what the step-time model "
     r"expects.*?: (\d+%)",
     "the assumed MFU, {0}, is {1} what the model predicts for this plan ({2})"),
    (r"^mfu=([\d.e-]+) is below every published run's MFU.*typed as a fraction",
     "the MFU, {0}, is lower than any published run: a percentage typed as a fraction?"),
    (r"^mfu=([\d.e-]+) is below every published run's MFU",
     "the MFU, {0}, is lower than any published run: every cost here is pessimistic"),
    (r"^dtype=fp8: the MFU is a fraction of .*FP8 peak.*the step-time model predicts it",
     "the predicted MFU counts against the FP8 peak, published ones against BF16's: compare "
     "them on one basis"),
    (r"^dtype=fp8: the MFU is a fraction of .*FP8 peak",
     "the MFU counts against the FP8 peak: one copied from a BF16 run understates the cost"),
    (r"^the memory per GPU leaves out the FP8 weight copy: .*optimizer_recipe=(\S+) counts",
     "memory leaves out the FP8 weight copy (1-2 B/param): fp8_mixed counts it"),
    (r"^the memory per GPU leaves out the FP8 weights' transposed copy",
     "memory leaves out Hopper's transposed FP8 weight copy (1 B/param)"),
    (r"^dtype=fp8 but the (.+?) stack has no FP8",
     "the {0} software has no FP8 training, yet the run is priced at FP8 speed"),
    (r"^the step-time model (?:priced|planned and checked) this (.+?) \((.+?)\) run on the "
     r"(\S+) stack profile",
     "the speed model uses {2}, software measured on other hardware than {1}'s"),
    (r"^price_usd_per_gpu_hour: the catalogue's \w+ price for (.+?), (\$[\d.]+) per GPU-hour, "
     r"rests on \d+ row\(s\) listed, not available",
     "the GPU price for {0}, {1}/GPU-h, was listed with no capacity to sell: get a quote"),
    (r"^stack: (\S+) rests on published runs on (.+?) hardware only .*?none on (\S+) such as "
     r".*?; on (\S+), the newest .*?a bill takes ([\d.]+%) against ([\d.]+%)",
     "{0} has no published {2} run: {3} would bill {4} MFU, not {5}"),
    (r"^(\S+) has no measured efficiency figures",
     "{0} has no measured efficiency figures: its predicted speed is rough"),
    (r"^stack: the scenario sets none, so it is priced on (\S+) \(dated [\d-]+\), older than "
     r"(.+?) \(\d+\); on (\S+) .*?a bill takes ([\d.]+%) against ([\d.]+%)",
     "priced on the {0} software, older than {1}: on {2} its bill would take {3} MFU, not {4} "
     "(set `stack: {2}` if the run uses it)"),
    (r"^(\S+)'s own published pre-training ran on the (\S+) stack .*?so it is priced on (\S+): "
     r".*?a bill takes ([\d.]+%) and ([\d.]+%)",
     "{0} is priced on the {2} software, not on its own ({1}), where its bill would take {4} "
     "MFU, not {3}: set `stack: {1}`"),
    (r"^(\S+)'s own published pre-training ran on the (\S+) stack .*?so it is priced on (\S+): "
     r"there the step-time model predicts ([\d.]+%), on \S+ ([\d.]+%)",
     "{0} is priced on the {2} software, not on its own ({1}), which the model predicts at {4} "
     "MFU, not {3}: set `stack: {1}`"),
    (r"^phases\[\d+\] \('(.+?)', seq_len=[\d,]+\): seq_len=([\d,]+) is beyond the ([\d,]+)-token "
     r"sequence length.*?The bill prices the phase at the main run's MFU",
     "the {0} phase's {1}-token sequences extend the model's {2}-token pre-training context, at "
     "the main run's MFU and plan"),
    (r"^phases\[\d+\] \('(.+?)', seq_len=[\d,]+\): seq_len=([\d,]+) is beyond the ([\d,]+)-token "
     r"sequence length.*?The bill prices the phase at its own mfu",
     "the {0} phase's {1}-token sequences extend the model's {2}-token pre-training context, at "
     "the phase's own MFU, whose plan is not checked"),
    (r"^phases\[\d+\] \('(.+?)', seq_len=[\d,]+\): seq_len=([\d,]+) is beyond .+?'s declared "
     r"context of ([\d,]+) tokens .*?The bill prices the phase at the main run's MFU",
     "the {0} phase's {1}-token sequences extend the model's declared {2}-token context, at the "
     "main run's MFU and plan"),
    (r"^phases\[\d+\] \('(.+?)', seq_len=[\d,]+\): seq_len=([\d,]+) is beyond .+?'s declared "
     r"context of ([\d,]+) tokens .*?The bill prices the phase at its own mfu",
     "the {0} phase's {1}-token sequences extend the model's declared {2}-token context, at the "
     "phase's own MFU, whose plan is not checked"),
    (r"^seq_len=([\d,]+) is beyond the ([\d,]+)-token sequence length",
     "the {0}-token sequences extend the model's {1}-token pre-training context"),
    (r"^seq_len=([\d,]+) is beyond",
     "the {0}-token sequences are longer than the model's context"),
    (r"^cp is the notebooks' default 1 .*?predicts ([\d.]+%) MFU for .*?, and ([\d.]+%) for",
     "context parallelism is off by default: with it the plan search predicts {1} MFU, not "
     "{0} (cp: 0 lets it choose)"),
    (r"^no parallel plan fits",
     "the model does not fit in the GPUs' memory: this run could not start"),
    (_BUBBLE + r" .*?: the predicted MFU includes it.*?the GPU count forces it.*?; without it \(",
     "the GPU count forces a pipeline that leaves the GPUs idle {0} of the time (in the "
     "predicted MFU): other GPU counts or batches avoid it"),
    (_BUBBLE + r" .*?: the predicted MFU includes it",
     "the pipeline leaves the GPUs idle {0} of the time (in the predicted MFU)"),
    (_BUBBLE + r" .*?the GPU count forces it.*?; without it \(",
     "the pipeline leaves the GPUs idle {0} of the time: the MFU must already include it; "
     "other GPU counts or batches avoid it"),
    (_BUBBLE,
     "the pipeline leaves the GPUs idle {0} of the time: the MFU must already include it"),
    (r"^the plan's pipeline stages carry unequal work .*?wait for the busiest about (\d+%) "
     r"of each step .*?: the predicted MFU includes it.*?; without it \(",
     "the pipeline's stages carry unequal work: the GPUs wait about {0} of the time for the "
     "busiest (in the predicted MFU): other GPU counts or batches avoid it"),
    (r"^the plan's pipeline stages carry unequal work .*?wait for the busiest about (\d+%) "
     r"of each step .*?: the predicted MFU includes it",
     "the pipeline's stages carry unequal work: the GPUs wait about {0} of the time for the "
     "busiest (in the predicted MFU)"),
    (r"^the plan's pipeline stages carry unequal work .*?wait for the busiest about (\d+%) "
     r"of each step",
     "the pipeline's stages carry unequal work: the GPUs wait about {0} of the time for the "
     "busiest; the MFU must already include it"),
    (r"^tp=(\d+) spans more than one",
     "tensor parallelism ({0} GPUs) crosses the slow network between nodes"),
    (r"^the plan uses ZeRO-3 .*?checked on (\d+) held-out published ZeRO-3 runs \(predicted "
     r"÷ published MFU − 1 from (\S+) to (\S+),",
     "ZeRO-3's speed is checked on {0} published runs ({1} to {2}): read the MFU with its band"),
    (r"^the plan uses ZeRO-3",
     "ZeRO-3's speed rests on few published runs: read the predicted MFU with its band"),
    (r"^(\d+%) of the predicted step is exposed communication",
     "{0} of each predicted step waits for communication"),
    (r"^(\S+)=.* is not offered by the (.+?) stack",
     "the plan's {0} is not offered by the {1} software"),
    (r"^the bill, (\$[\d,]+), is ([\d.]+×) the budget",
     "the bill, {0}, is {1} the budget"),
    (r"^ckpt_interval_s=([\d.e+-]+) pays ([\d.]+%) more GPU time than the optimum interval "
     r"for this job and run, (.+?) \(",
     "the checkpoint interval set, {0} s, pays {1} more GPU time than the optimum, {2}"),
    (r"^ledger_project_months=([\d.e+-]+) is shorter than the compute schedule",
     "the project ({0} months) is shorter than its compute schedule: people, operations and "
     "storage are priced over less time than the compute takes"),
    (r"^ledger_project_months=([\d.e+-]+) is shorter",
     "the project ({0} months) is shorter than the training run itself"),
    (r"^ledger_people: .*? are priced for ([\d.,]+) months, Epoch",
     "staff are priced for {0} months, Epoch's median project or the compute schedule: give "
     "the project's length"),
    (r"^ledger_people: .*? are priced for ([\d.,]+) months, the compute schedule",
     "staff are priced for {0} months, the compute schedule alone: give the project's length"),
    (r"^ledger_people: .*? are priced for ([\d.,]+) months",
     "staff are priced for {0} months, the training run alone: give the project's length"),
    # a run, a project or an RL campaign longer than ten years (bill.validation)
    (r"^the training run's wall clock is ([\d.,e+]+[kMBT]?) years \(([\d,]+) days",
     "the training run alone takes {0} years ({1} days): no one dated GPU-hour price describes "
     "it; check the tokens, GPUs and MFU"),
    # a run over 9 months (validation._long_run_warning, Emberson and Edelman 2025)
    (r"^the training run's wall clock is ([\d.,]+) months \(([\d,]+) days",
     "the training run takes {0} months ({1} days), past the 9 after which a later start on "
     "better hardware may finish first: more GPUs shorten it"),
    (r"^ledger_project_months=([\d.e+-]+) is over ([\d,]+) months \(\d+ years; this is "
     r"([\d.,e+]+[kMBT]?) years\)",
     "the project lasts {2} years (ledger_project_months={0}), over {1} months: no one dated "
     "GPU-hour price describes it; check the unit"),
    (r"^rl_time_factor=(\S+) lies outside the measured ÷ predicted RL iteration times of the "
     r"published runs, (\S+) \(",
     "the RL line is billed at rl_time_factor={0}, outside the published runs' {1}: check it"),
    (r"^the RL campaign runs ([\d.,e+]+[kMBT]?) years on its ([\d,]+) GPUs",
     "the RL campaign alone runs {0} years on its {1} GPUs: check rl_iterations and rl_runs"),
    # more training tokens than the public text there is (bill.validation)
    (r"^train_tokens=\S+ \(([\d.,]+[kMBT]?) tokens\) is above the estimated effective stock "
     r"of public human text, about ([\d.,]+[kMBT]?) tokens",
     "the {0} training tokens exceed the estimated stock of public human text (about {1}): "
     "repeated further, data are worth less and less"),
    # prices and money keys that look like unit slips (bill.validation)
    (r"^price_usd_per_gpu_hour=([\d.e+-]+) is above every price data/prices\.csv lists for "
     r"(\S+) \(.*?the dearest (\$[\d.,]*\d)",
     "the GPU-hour price, ${0}, is above every listed price for {1} (the dearest {2}): check the "
     "unit (one GPU, one hour, dollars)"),
    (r"^price_usd_per_gpu_hour=([\d.e+-]+) is [\d.]+× or more below every price "
     r"data/prices\.csv lists for (\S+) \(.*?the cheapest (\$[\d.,]*\d)",
     "the GPU-hour price, ${0}, is far below every listed price for {1} (the cheapest {2}): "
     "check the unit (one GPU, one hour, dollars)"),
    (r"^(.+?) (?:is|are) ignored: pricing: owned with price_usd_per_gpu_hour=([\d.e+-]+)",
     "{0} change nothing: the given price, ${1}/GPU-h, is the whole GPU-hour, hardware and "
     "energy included"),
    (r"^(\S+?)=([\d.e+-]+) is (below|above) (?:1/)?([\d.]+)(?: times)? .*?: (the key is "
     r"[^;]+); check the unit",
     "{0}={1} is {2} the catalogue's sourced figure by more than {3}×: check the unit ({4})"),
    (r"^(\S+?)=([\d.e+-]+) is above world GDP, about (\$[\d,]+ trillion)",
     "{0}={1} is more than the world's GDP ({2} a year): check the exponent and the unit"),
    (r"^ledger_people\[(\d+)\]\.fte=([\d.e+-]+) is more people than the world's largest",
     "staff record {0} counts {1} full-time people, more than the world's largest employer: "
     "check the exponent"),
    # a bill whose plan could not be checked (report.estimate_ledger)
    (r"^the parallel plan is not checked: accelerator='(.+?)': the (.+?) is missing from "
     r"data/accelerators\.csv",
     "the parallel plan is not checked: data/accelerators.csv has no {1} for {0}"),
    (r"^(\d\d_\w+) FAILED", "notebook {0} failed: its figures are missing from this report"),
    (r"^the bill could not be built", "the bill could not be built for this scenario"),
    (r"^ckpt_storage_bytes_per_s=\S+ \(([^)]+)\) is above what the job's ([\d,]+ nodes?) can "
     r"send it, ([\d,.]+ \S+)",
     "checkpoint storage of {0} is billed where the job's {1} can send it {2}"),
    (r"^ckpt_hot_tier='([^']+)' sells no throughput",
     "{0}'s checkpoint bandwidth is the sizing's fastest guess: give a measured rate"),
    (r"^fail_planned_per_day: (\S+), Llama 3's rate .*? this ([\d,]+-GPU job): its planned stops "
     r"take (\S+) of the wall clock, more than its failures \((\S+)\)",
     "planned stops at Llama 3's {0} a day take {2} of this {1}, more than failures ({3})"),
    (r"^ledger_people: (.+?) without usd_per_year (?:is|are) paid (\S+) per FTE-year",
     "{0}: paid {1} per FTE-year, frontier-lab pay, unless usd_per_year is given"),
    (r"^(title and description|title|description): the default scenario's own text",
     "the scenario's {0}: the default scenario's text, which describes another run"),
    (r"checkpoint storage.*?(\d+%)", "checkpoint storage is {0} of the compute bill"),
    (r"^the bill's MFU, ([\d.]+%)(?: of the FP8 peak \([\d.]+% of the BF16 peak\))?, lies "
     r"(above|below) what a published run like this one gives for its plan, ([\d.%-]+)"
     r"(?: of the FP8 peak, [\d.%-]+ of the BF16 one)? \(",
     "the bill's MFU, {0}, is {1} the {2} a published run like it gives on this plan"),
    (r"^pricing=(\w+): the catalogue's \w+ price for (\S+), (\$[\d.]+) per GPU-hour.*?is "
     r"above its on-demand median, (\$[\d.]+)",
     "the catalogue's {0} price for {1}, {2}/GPU-h, is above its on-demand median: the bill "
     "uses that, {3}/GPU-h (get a quote)"),
]


def _balanced(text: str) -> str:
    """``text`` cut before the first parenthesis it opens and never closes (a first clause cut at
    a colon inside it: "x is above every price (11 row(s)" reads "x is above every price")."""
    opened = []
    for i, c in enumerate(text):
        if c == "(":
            opened.append(i)
        elif c == ")" and opened:
            opened.pop()
    return text[:opened[0]].rstrip(" ,;") if opened else text


def _reader_number(s: str, mfu: bool = False) -> str:
    """An MFU fraction as the warning writes it after ``mfu=`` (0.40, 0.425, 1e-05) as a
    percentage (40%, 42.5%, 0.001%); any other figure (months, prices, factors) itself. A
    range's point said with its range (``checks.GIVEN_MFU_PATTERN``: "0.375 (the point of its
    range 0.30–0.45)") has each of its three figures so written."""
    ranged = re.fullmatch(r"([\d.]+) \((" + RANGE_POINT_WORDS + r") ([\d.]+)–([\d.]+)\)", s)
    if mfu and ranged:
        v, words, lo, hi = ranged.groups()
        return (f"{_reader_number(v, True)} ({words} {_reader_number(lo, True)}–"
                f"{_reader_number(hi, True)})")
    try:
        v = float(s)
    except ValueError:
        return s
    if not mfu or not 0 < v <= 1:
        return s
    return fmt_fraction_pct(v) if v >= 1e-3 else f"{v * 100:.2g}%"


def counted(text: str) -> str:
    """``text`` with each "N <up to two words> run(s)" (or price(s), pilot(s)) in agreement
    with its count: "only 1 published run(s)" → "only 1 published run", "3 held-out run(s)" →
    "3 held-out runs" (a startup's trial read "only 1 held-out run(s)" on an index)."""
    def agree(m):
        n = float(m[1].replace(",", ""))
        return f"{m[1]} {m[2]}{m[3]}{'' if n == 1 else 's'}"
    return re.sub(r"\b(\d[\d,]*(?:\.\d+)?) ((?:[\w-]+ ){0,2})(run|price|pilot)\(s\)", agree,
                  str(text))


def caveat_line(warning: str) -> str:
    """One line in the reader's words for a report warning (``CAVEATS``, fractions given as
    percentages); a warning of no known family gives its first clause (up to a colon or
    semicolon)."""
    w = str(warning)
    for pattern, words in CAVEATS:
        m = re.search(pattern, w)
        if m:
            return counted(words.format(*(_reader_number(g, w[:m.start(i)].endswith("mfu="))
                                          for i, g in enumerate(m.groups(), 1))))
    parts = re.split(r"[:;] ", w, maxsplit=2)
    first = parts[0].strip().rstrip(".")
    if re.fullmatch(r"[a-z_][a-z0-9_.]*", first) and len(parts) > 1:  # a bare key: its rule
        first = f"{first}: {parts[1].strip().rstrip('.')}"
    return shorten_words(_balanced(first), 140)  # the detail holds it all


def unbroken_html(text: str) -> str:
    """``text`` escaped for HTML, each word with a hyphen in it (up to 24 characters: "A100-80GB",
    "pre-training") kept on one line (``<span class="n">``, the index's ``white-space: nowrap``):
    a browser breaks a line after any hyphen, and a teacher read "A100-" / "80GB" in a heading at
    1,400 px and "pre-" / "training" in a caveat at 390 px. Longer words may still break."""
    return re.sub(r"\S*-\S*", lambda m: f'<span class="n">{m[0]}</span>' if len(m[0]) <= 24
                  else m[0], html.escape(str(text)))


def caveats_html(warnings: list) -> str:
    """The index's "Read this first" box: one line per warning in the reader's words
    (``caveat_line``), the warning itself under it in a ``<details>`` element."""
    if not warnings:
        return ""
    items = "".join(f"<li><details><summary>{unbroken_html(caveat_line(w))}</summary>"
                    f"<p>{html.escape(str(w))}</p></details></li>" for w in warnings)
    return (f"<div class='caveats'><b>Read this first</b> <span class='hint'>(open a line for "
            "the detail)</span>"
            f"<ul>{items}</ul></div>")


#: The package's module names (its rooms' files): a dotted name that starts with one of them
#: (or with ``llmcost.``), e.g. ``accuracy.central_mfu``, is a function of the package.
PACKAGE_MODULES = frozenset(
    ["llmcost"] + [f.stem for f in Path(__file__).resolve().parents[1].glob("*/*.py")
                   if not f.stem.startswith("_")])
_NAME = r"[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)+"


def note_parts(note: str) -> tuple:
    """``(words, names)`` of a headline figure's note: the package functions it names
    (``PACKAGE_MODULES``: ``accuracy.central_mfu``, ``llmcost.levers.bill``) and the note
    without them, in the reader's words ("prediction ÷ (1 + median held-out error), kept inside
    the band"): a name is removed with a "by", "see" or "in" before it and the punctuation it
    leaves (an empty or bare pair of parentheses, a leading colon or comma). File names
    (``data/prices.csv``) and dotted numbers stay."""
    text = str(note)
    names = [m.group(0) for m in re.finditer(rf"(?<![\w./-]){_NAME}(?![\w/-])", text)
             if m.group(0).split(".")[0] in PACKAGE_MODULES
             and not re.search(r"\.(csv|yaml|json|py|md|html)$", m.group(0))]
    for n in names:
        text = re.sub(rf"(?:\s*\b(?:by|see|in)\s+)?{re.escape(n)}", "", text, count=1)
    for pattern, repl in ((r"\(\s*[,;:]\s*", "("), (r"\s*[,;:]\s*\)", ")"),
                          (r"\(\s*\)", ""), (r"^\s*[,;:]\s*", ""), (r"\s+([,;:)])", r"\1"),
                          (r"\s{2,}", " ")):
        text = re.sub(pattern, repl, text)
    return text.strip().rstrip(",;:").strip(), list(dict.fromkeys(names))


def note_html(note: str) -> str:
    """A headline figure's note on the index: its words first (``note_parts``), the package
    functions it names behind a ``<details>`` element ("function", each in ``<code>``): the
    reader sees words, and one click then the function's docstring give the formula. A note
    that is nothing but a function's name is shown as it is (no empty words beside it)."""
    words, names = note_parts(note)
    if not names or not words:  # a note that is only a name keeps it visible
        return html.escape(str(note))
    codes = ", ".join(f"<code>{html.escape(n)}</code>" for n in names)
    return (f"{html.escape(words)}<details class='fn'><summary>function</summary>{codes} (its "
            "docstring has the formula)</details>")


def compare_labels(a: str, b: str) -> tuple:
    """Distinct column labels for two scenario files: their stems, or, when the stems are the
    same (data/scenarios/default.yaml against /tmp/x/default.yaml), their paths."""
    sa, sb = Path(a).stem, Path(b).stem
    if sa != sb:
        return sa, sb
    if str(a) != str(b):
        return str(a), str(b)
    return f"{sa} (1)", f"{sb} (2)"


def scenario_names(a: str, b: str, title_a: str | None = None,
                   title_b: str | None = None) -> tuple:
    """The names two compared scenarios go by: their titles (a scenario file's ``title``), else
    their file stems; when both come out the same, ``compare_labels`` of their paths."""
    na = str(title_a).strip() if title_a and str(title_a).strip() else Path(a).stem
    nb = str(title_b).strip() if title_b and str(title_b).strip() else Path(b).stem
    return (na, nb) if na != nb else compare_labels(a, b)


def compare_bills(bills: list, names: tuple, samples: int = SAMPLES, seed: int = 0,
                  draws: list | None = None):
    """Two bills (``Ledger``) line by line (``ledger.compare``), with the P10 / P50 / P90 of the
    difference B - A per draw when either scenario has ranges (``ledger.compare_draws``: both
    simulated with the same seed and samples, so draw i sees the same values of the inputs they
    both range). What ``llmcost estimate --compare`` prints and the report's index shows.
    ``.attrs['exploratory_note']``: why the exploratory line moved with the post-training lines
    it nets out (``ledger.exploratory_shift_words``), or None, the bills called A and B as
    ``estimate --compare``'s table calls them; ``'exploratory_note_named'``: with ``names``.
    ``draws``: the two bills' own-range draws a caller already took with these ``samples`` and
    ``seed`` (``estimate`` takes them to check ``--samples``, with ``ledger.mfu_draw_keys``),
    reused rather than drawn again. ``.attrs['mfu_draw_note']``: why the two MFUs are drawn on
    their own random numbers (predictions on two GPU generations), or None."""
    if len(bills) != 2:
        raise ValueError(f"bills={bills!r} must be two ledgers")
    keys_a, keys_b, apart = mfu_draw_keys(*bills)
    if draws is None:
        draws = [simulate_ledger(own_ranged_scenario(b), samples=samples, seed=seed, keys=k)
                 for b, k in zip(bills, (keys_a, keys_b))]
    df = (compare_draws(*draws, names=names) if draws[0].ranges or draws[1].ranges
          else compare(*bills, names=names))
    # each bill's own total over these draws (a finance trial read the difference's range
    # but neither option's own): (P10, P50, P90) per bill, None for one that ranges nothing
    # (None too where its ranges move no total: the RL model's factor netted out of the
    # exploratory line read "$270M–$270M", a review)
    df.attrs["own_totals"] = [tuple(float(x) for x in np.quantile(d.total_usd, [0.1, 0.5, 0.9]))
                              if d.ranges and beyond_rounding(np.ptp(d.total_usd),
                                                              np.max(d.total_usd))
                              else None for d in draws]
    df.attrs["mfu_draw_note"] = apart  # B's MFU drawn apart (ledger.mfu_draw_keys), or None
    df.attrs["exploratory_note"] = exploratory_shift_words(*bills)
    # the same words with the scenarios' names, as the index's columns have them
    df.attrs["exploratory_note_named"] = exploratory_shift_words(*bills, names=tuple(names))
    return df


def own_totals_words(df, names) -> str:
    """Each bill's own total, P10 to P90 over the compare's draws (``compare_bills``'
    ``own_totals``), "" where neither ranges anything: "each bill's own total, P10 to P90 over
    these draws (...): A $5.10M–$6.40M; B $5.90M–$7.20M (one number: ...)", said to be narrower
    than each bill's headline range (a finance trial read two ranges for one bill)."""
    own = df.attrs.get("own_totals") or []
    if not any(own):
        return ""
    def one(tag, name, t):
        if not t:
            return f"{tag} ({name}) one number (no range of its own moves its total)"
        if fmt_usd(t[0]) == fmt_usd(t[2]):  # a range narrower than the figures' digits: the RL
            # factor moves the schedule and the storage priced over it by dollars, which read
            # "$5.67M–$5.67M"
            return (f"{tag} ({name}) {fmt_usd(t[1])} (its own ranges move it by "
                    f"{fmt_usd(t[2] - t[0])} from P10 to P90)")
        return f"{tag} ({name}) {fmt_usd(t[0])}–{fmt_usd(t[2])} (P50 {fmt_usd(t[1])})"

    said = [one(tag, name, t) for tag, name, t in zip("AB", names, own)]
    return ("each bill's own total, P10 to P90 over these draws (the scenarios' own ranges "
            "alone; each bill's headline range adds illustrative spreads and is wider): "
            + "; ".join(said))


#: The ``*`` of a B − A outside its own P10 to P90 (``ledger.point_outside``), in the terminal's
#: comparison (``cli.compare_text``) and the report's (``compare_html``).
COMPARE_OUTSIDE_NOTE = ("* B − A of the two bills' points lies outside the P10 to P90 of B − A "
                        "per draw: the two bills draw each uncertain input from the same random "
                        "numbers (a draw is the same quantile of both MFU ranges, say), so "
                        "where a point sits at another place in its range in one bill than in "
                        "the other, or at an edge, or where the two ranges have other shapes "
                        "(one capped where no published run has measured more, the other not, "
                        "so that the difference is at its extreme where both sit at their "
                        "points), most differences fall on one side of the points' difference")


#: How ``compare_inputs`` says where a bill's MFU came from (the ``mfu_band`` a report sets:
#: ``scenario.PARAMETERS``), in place of that key, which no scenario file writes.
MFU_BAND_WORDS = {"predicted": " (predicted)", "pilot": " (from the pilots)"}

def mfu_source_words(scenario: dict) -> str:
    """Where a bill's MFU came from, after the figure (``MFU_BAND_WORDS`` by the report's
    ``mfu_band``): " (predicted)", or, when the prediction's central estimate lies above its
    band's capped top and the bill uses the top (``_mfu_prediction``'s ``center_capped``,
    ``report.resolve_mfu``), " (predicted 55.9%, capped at the best comparable published
    run)": two predicted bills, one capped, are not on one footing, and the words say so."""
    band = scenario.get("mfu_band")
    pred = scenario.get("_mfu_prediction") or {}
    if band == "predicted" and pred.get("center_capped") and "predicted" in pred:
        return (f" (predicted {pred['predicted']:.1%}, capped at "
                f"{pred.get('cap') or 'its band’s top'})")
    return MFU_BAND_WORDS.get(band, "")


#: The inputs ``compare_inputs`` sets side by side: what sizes and prices a run (the MFU and the
#: price are the bills' own figures, a predicted or catalogue value included).
COMPARE_INPUTS = ("model", "accelerator", "n_gpus", "train_tokens", "seq_len", "dtype", "mfu",
                  "pricing", "price_usd_per_gpu_hour")


def compare_inputs(bills, most: int | None = 8) -> list:
    """The inputs of ``COMPARE_INPUTS`` on which two bills (``Ledger``) differ, as
    ``"name a → b"`` strings in that order: the MFU and the GPU-hour price as each bill priced
    them (``Ledger.figures``), the rest from each bill's scenario. What the difference of two
    bills comes from, said beside it (``estimate --compare`` and the report's comparison).
    ``most``: the other keys listed (``other_inputs_differing``) before "and k more"; None
    lists every one (the JSON outputs: a trial's JSON ended "and 4 more", the keys lost)."""
    if len(bills) != 2:
        raise ValueError(f"bills={bills!r} must be two ledgers")

    def shown(key, v, figures):
        if key == "mfu":
            return f"{v:.1%}"
        if key == "price_usd_per_gpu_hour":  # owned: the compute lines' rate, energy apart
            rate = figures.get("gpu_rate_usd_per_gpu_hour", v)
            return (f"${v:.2f}/GPU-h" if rate is None or abs(rate - v) < 5e-3 else
                    f"${rate:.2f}/GPU-h hardware (+ energy on its own line)")
        if key == "train_tokens":
            return fmt_count(v, 3)
        if key == "model":
            return model_words(v)
        return f"{v:,}" if isinstance(v, int) else str(v)

    fp8 = any(getattr(x, "scenario", {}).get("dtype") == "fp8" for x in bills)
    out = []
    for key in COMPARE_INPUTS:
        a, b = (getattr(x, "figures" if key in ("mfu", "price_usd_per_gpu_hour")
                        else "scenario", {}).get(key) for x in bills)
        if a is None or b is None:
            continue
        sa, sb = (shown(key, v, getattr(x, "figures", {}) or {})
                  for x, v in zip(bills, (a, b)))
        if key == "mfu" and fp8:  # two peaks: each MFU said on its own and the BF16 basis
            sa, sb = (_mfu_on_basis(x, v) for x, v in zip(bills, (a, b)))
        if key == "mfu":  # where each came from, in words (the report's mfu_band, not a key
            sa, sb = (v + mfu_source_words(getattr(x, "scenario", {}) or {})  # a file writes)
                      for x, v in zip(bills, (sa, sb)))
        # a range the scenario gives: its point is priced, the range drawn (a trial read a
        # ranged B by its point alone)
        sa, sb = (v + _given_range_words(x, key) for x, v in zip(bills, (sa, sb)))
        if key == "price_usd_per_gpu_hour":   # the bases, where they differ
            ba, bb = (_price_basis_words(x) for x in bills)
            if ba != bb:
                sa, sb = sa + ba, sb + bb
        if sa != sb:
            out.append(f"{key} {sa} → {sb}")
    same = _same_given_mfu(bills)
    said = next((i for i, x in enumerate(out) if x.startswith("mfu ")), None)
    if same and said is not None:
        # one mfu item (a lecturer read mfu twice: its two peaks, then "on both"), the second
        # sentence whole after the first: how the figure was set, and what it means
        out[said] += "; " + same[0].removeprefix("mfu ")
        same = []
    return out + _predicted_plans(bills) + _predicted_corrections(bills) + same + \
        other_inputs_differing(bills, most)


def _price_basis_words(bill) -> str:
    """" (catalogue reserved median)", " (catalogue on-demand median: no reserved price below
    it)" or " (given)": what a compared bill's GPU-hour price is (``catalog.price_mode_words``),
    said where A's and B's differ (a trial compared H100's reserved $2.72 with B200's $7.64,
    its on-demand median, under one "price_usd_per_gpu_hour" heading); "" for owned hardware
    or a bill without a scenario."""
    sc = getattr(bill, "scenario", {}) or {}
    mode, acc = sc.get("pricing", "on_demand"), sc.get("accelerator")
    if mode == "owned" or not acc:
        return ""
    if sc.get("price_usd_per_gpu_hour") is not None:
        return " (given)"
    words = price_mode_words(acc, mode)
    return f" (catalogue {mode.replace('_', '-')} median)" if words == mode else \
        f" (catalogue {words.replace(' (', ': ').rstrip(')')})"


def _given_range_words(bill, key: str) -> str:
    """" (the point of its range, <the range>)" where the bill's scenario gives ``key`` as a
    range of its own (a report's predicted or pilot band on ``mfu`` is said by
    ``mfu_source_words``), else ""."""
    sc = getattr(bill, "scenario", {}) or {}
    v = sc.get(key)
    if not isinstance(v, Range) or (key == "mfu" and sc.get("mfu_band")):
        return ""
    return f" (the point of its range, {v.describe()})"


def _predicted_plans(bills) -> list:
    """``["plan the MFU was predicted for A → B"]`` when both bills predicted their MFU (the
    report's ``_mfu_prediction``) on different parallel plans, else []: a trial compared a BF16
    405B and its FP8 copy, whose plan searches chose PP64×v2 and PP32×v4, and read only "dtype"
    and "mfu" among the inputs that differ."""
    plans = [((getattr(x, "scenario", {}) or {}).get("_mfu_prediction") or {}).get("plan")
             for x in bills]
    if all(plans) and plans[0] != plans[1]:
        return [f"the plan the MFU was predicted for {plans[0]} → {plans[1]}"]
    return []


def _predicted_corrections(bills) -> list:
    """``["the step-time model's raw predictions a → b; ..."]`` when both bills predicted their
    MFU (``_mfu_prediction``) and their corrections (each bill's MFU ÷ its raw prediction, the
    central estimate's regime correction, ``accuracy.central_mfu``) differ by more than 1%:
    part of the MFU's change is then the two regimes' held-out errors (or a band's capped top,
    said where it holds a bill's estimate: ``center_capped``), not the plan. A trial
    compared ZeRO-2 and ZeRO-3 of one 8B run: "mfu 54.9% → 44.4%" where the model's
    predictions were 54.0% → 48.2%, the rest two regimes' corrections (+1.6%, −8.5%)."""
    preds = [((getattr(x, "scenario", {}) or {}).get("_mfu_prediction") or {}) for x in bills]
    if not all(p.get("predicted") and p.get("value") for p in preds):
        return []
    raw = [float(p["predicted"]) for p in preds]
    billed = [float(p["value"]) for p in preds]
    c = [b / r for b, r in zip(billed, raw)]
    if abs(c[1] / c[0] - 1) <= 0.01:
        return []
    # a bill held at its band's capped top takes the cap, not its regime's correction (a
    # trial's MoE bill at ×0.775 was the cap, its corrected estimate 38.0% above it)
    held = [bool(p.get("center_capped")) for p in preds]
    if not any(held):
        return [f"the step-time model's raw predictions {raw[0]:.1%} → {raw[1]:.1%} (each bill "
                f"takes its regime's corrected central estimate, ×{c[0]:.3f} and ×{c[1]:.3f}: "
                "part of the MFU's change is the two regimes' held-out errors, not the run)"]
    # what set each bill's MFU, said once (the cap's own words are in the mfu entry)
    took = [f"{n} its band's capped top (×{x:.3f})" if h else
            f"{n} its regime's corrected central estimate (×{x:.3f})"
            for n, x, h in zip("AB", c, held)]
    why = "the caps" if all(held) else "the regimes' held-out errors and the cap"
    return [f"the step-time model's raw predictions {raw[0]:.1%} → {raw[1]:.1%} (the bills "
            f"take: {took[0]}; {took[1]}: part of the MFU's change is {why}, not the run)"]


def _same_given_mfu(bills) -> list:
    """``["mfu 40.0% on both: ..."]`` when two bills on different accelerators run at one MFU
    neither predicted nor measured (no ``mfu_band`` from a report, no ``_mfu_prediction`` or
    ``_mfu_calibration`` from estimate's resolution): a fraction of each GPU's own
    peak that does not carry over between accelerators (a trial compared H100 and MI300X at one
    given 40%); [] otherwise."""
    sc = [getattr(x, "scenario", {}) or {} for x in bills]
    acc = [x.get("accelerator") for x in sc]
    mfu = [getattr(x, "figures", {}).get("mfu") for x in bills]
    given = [x.get("mfu") for x in sc]
    if any(isinstance(g, Range) for g in given) and given[0] != given[1]:
        return []   # two ranges of one point are not "one figure on both" (a review)
    if not all(prices_at_mfu(x) for x in sc):
        return []   # an RL campaign alone prices nothing at the MFU (a trial read "the same
        #             compute cost" of two such bills)
    # predicted or measured by a report (its mfu_band; estimate's private keys)
    derived = any(x.get(k) for x in sc for k in ("mfu_band", "_mfu_prediction",
                                                  "_mfu_calibration"))
    if None in acc or None in mfu or mfu[0] != mfu[1] or derived:
        return []
    how = ("the notebooks' default" if all(x.get("_mfu_default") for x in sc) else "as given")
    if acc[0] == acc[1]:
        return _same_mfu_other_dtype(sc, mfu[0], how)
    return [f"mfu {mfu[0]:.1%} on both, {how}: a fraction of each accelerator's own peak, "
            "which does not carry over between accelerators (`mfu: predict` predicts each)"]


def _same_mfu_other_dtype(sc: list, mfu: float, how: str) -> list:
    """``_same_given_mfu`` on one accelerator: where the two bills differ in GPU count at one
    MFU, that the compute then costs the same; where one bill is FP8 and the other BF16 at one
    MFU, that MFU is of each dtype's own peak, so the FP8 bill runs peak(FP8) ÷ peak(BF16)
    times as fast (2× on H100), beyond the published whole-step FP8 ÷ BF16 speed-ups of one
    plan (``accuracy.fp8_speedup_bound``, r), where notebook 09's FP8 lever holds it: said
    with both figures (a trial read −50% on the index beside the lever's −30% with nothing to
    tell them apart); [] otherwise."""
    dtypes = [x.get("dtype") for x in sc]
    gpus = [x.get("n_gpus") for x in sc]
    if dtypes[0] == dtypes[1] and None not in gpus and gpus[0] != gpus[1]:
        # a trial doubled the GPUs at one given MFU and read the same compute cost unexplained
        return [f"mfu {mfu:.1%} on both, {how}, at {fmt_gpus(gpus[0])} and "
                f"{fmt_gpus(gpus[1])}: the same compute cost, where a larger job usually runs "
                "at a lower MFU (more of its step waits on communication; `mfu: predict` "
                "predicts each)"]
    if sorted(map(str, dtypes)) != ["bf16", "fp8"]:
        return []
    fp8 = sc[dtypes.index("fp8")]
    try:
        peaks = fp8_over_bf16(fp8["accelerator"])
        r = fp8_speedup_bound(float(load_model(fp8["model"]).n_params))[0]
    except (ValueError, KeyError, TypeError):
        return []
    return [f"mfu {mfu:.1%} on both, {how}, each of its own dtype's dense peak: the FP8 bill "
            f"runs {peaks:.2g}× the BF16 one's rate, where published FP8 ÷ BF16 whole-step "
            f"speed-ups of one plan of a comparable size reach {r:.2f}× at most (notebook 09's "
            "FP8 lever holds the saving there; `mfu: predict` predicts each)"]


def _owned_default(key: str):
    """The default an owned bill takes for ``key`` left null, in words, or None (the H100's
    purchase price only on an H100: another accelerator needs its own)."""
    def words(d: dict):
        if key == "ledger_owned_usd_per_gpu":
            return fmt_usd(default("h100_acquisition_usd")) \
                if (d.get("accelerator") or "H100-SXM") == "H100-SXM" else None
        if key == "ledger_pue":
            return f"{default('pue'):g}"
        return f"${default('electricity_usd_per_kwh'):.4g}/kWh"
    return words


#: The owned-hardware keys whose null ``other_inputs_differing`` says as the default it bills.
OWNED_DEFAULTS = {k: _owned_default(k) for k in
                  ("ledger_owned_usd_per_gpu", "ledger_pue", "ledger_electricity_usd_per_kwh")}


def other_inputs_differing(bills, most: int | None = 8) -> list:
    """The scenario keys outside ``COMPARE_INPUTS`` (and the title and description) on which
    two bills' scenarios differ, ``"key a → b"`` in key order, each value cut to 40 characters
    unless the two read alike once cut (a list, such as ``phases``, as its count and its items'
    words; where those still read alike, the items' keys that differ, ``_item_differences``),
    at most ``most`` of them and the rest by name (a trial compared two RL scenarios that
    differ only in ``rl_partial_rollouts`` and was told no input differed). A key one scenario
    does not hold reads "default"; ``None`` and booleans as a scenario file writes them
    (``null``, ``true``, ``false``). The ``rl_`` keys are left out when neither bill prices
    an RL campaign (``ledger_rl`` false in both: a report's defaults for each model, which a
    trial read as differences the bills carry), said in one item."""
    sa, sb = (getattr(x, "scenario", {}) or {} for x in bills)
    skip = set(COMPARE_INPUTS) | {"title", "description", "mfu_band"}  # mfu_band: in mfu's words
    keys = sorted(k for k in set(sa) | set(sb)
                  if not str(k).startswith("_") and k not in skip and sa.get(k) != sb.get(k))
    unbilled = [k for k in keys if str(k).startswith("rl_")] if (
        sa.get("ledger_rl") is False and sb.get("ledger_rl") is False) else []
    keys = [k for k in keys if k not in unbilled]

    def cut(d, k, cut_at=True):
        x = d.get(k, "default")
        if k == "rl_time_factor" and x is None:  # what null bills (a trial read "null → 1")
            x = f"null ({scenario_time_factor(d):g}: " + (
                "published runs' median)" if scenario_time_factor(d) != 1 else "the model's)")
        if k == "rl_rollout_weight_dtype" and x is None:   # null: the serving precision's
            x = f"null (serve_weight_dtype's: {d.get('serve_weight_dtype') or 'bf16'})"
        # what an owned null bills (a trial read "ledger_pue null → 1.3"); a given hourly
        # price amortises no purchase, so its nulls bill nothing
        if x is None and k in OWNED_DEFAULTS and d.get("pricing") == "owned" and \
                d.get("price_usd_per_gpu_hour") is None:
            got = OWNED_DEFAULTS[k](d)
            x = x if got is None else f"null ({got}, the default)"
        if "usd" in str(k) and isinstance(x, Range):  # dollars as dollars (a trial read
            x = x.describe(fmt=fmt_usd)                # "triangular 1e+04 / 1.5e+04 / 2e+04")
        elif "usd" in str(k) and isinstance(x, (int, float)) and not isinstance(x, bool):
            x = fmt_usd(x)                             # and "15k" for $15,000
        if isinstance(x, (list, tuple)):  # phases, people, runs: their count and names
            x = "none" if not x else f"{len(x)} (" + ", ".join(
                _item_words(i) if isinstance(i, dict) else str(i) for i in x) + ")"
        v = ("null" if x is None else str(x).lower() if isinstance(x, bool) else  # YAML's words
             f"{x:,}" if isinstance(x, int) else
             fmt_count(x, 3) if isinstance(x, float) and abs(x) >= 1e4 else
             fixed_sig2(x) if isinstance(x, float) and 0 < abs(x) < 1e-3 else
             f"{x:.4g}" if isinstance(x, float) else str(x))  # never "2e+12"
        short = shorten_words(v, 40) if cut_at else v   # at a word (or mid-word)
        short += ")" * max(short.count("(") - short.count(")"), 0)  # a cut list closes its "("
        # an rl_ key of a bill without an RL campaign is a default it does not bill (a trial
        # read "rl_iterations 1,000 → 500" against a bill with no campaign)
        return short + (" (not billed)" if str(k).startswith("rl_") and d.get("ledger_rl")
                        is False else "")

    def change(k):   # values that read alike once cut are shown whole (a trial's phases),
        a, b = cut(sa, k), cut(sb, k)   # and where they still do, the items' keys that differ
        if a == b:
            a, b = cut(sa, k, False), cut(sb, k, False)
        if a == b:
            return "; ".join(_item_differences(k, sa.get(k), sb.get(k))) or f"{k} {a} → {b}"
        return f"{k} {a} → {b}"

    out = [(f"RL campaign billed (ledger_rl: true where the scenario gives rl_iterations and "
            f"rl_runs) {cut(sa, k)} → {cut(sb, k)}" if k == "ledger_rl" else  # a trial never
            change(k)) for k in keys[:most]]                                 # wrote ledger_rl
    out += _rl_factor_moved(bills, "rl_time_factor" in keys)
    # the rest by name (a trial's "and 2 more" hid rl_iterations and rl_runs, the change it
    # had made, which only --format json listed)
    out += ([f"and {len(keys) - most} more: {', '.join(map(str, keys[most:]))}"]
            if most is not None and len(keys) > most else [])
    # a lecturer read "1 rl_ key(s) (rl_rollout_tp)" that neither file set: a report fills
    # the RL settings in per model where a scenario does not
    return out + ([f"{', '.join(unbilled)}: differ{'s' * (len(unbilled) == 1)}, unused (neither "
                   "bill prices an RL campaign; where a scenario does not set the RL settings, "
                   "they are filled in per model)"] if unbilled else [])


def _rl_factor_moved(bills, listed: bool) -> list:
    """``["the RL time factor billed 1.29 → 1.69"]`` when two bills that both price an RL
    campaign bill it at different factors (``rl.scenario_time_factor``) and the difference is
    not already said by ``rl_time_factor`` itself (a trial compared an ``rl_framework`` change,
    and a GRPO and a DPO campaign, and was not told the factor moved); else []."""
    if listed:
        return []
    ks = []
    for b in bills:
        h = (getattr(b, "figures", {}) or {}).get("rl_gpu_hours", 0.0)
        if not isinstance(h, (int, float)) or h <= 0:
            return []
        try:
            ks.append(scenario_time_factor(b.scenario))
        except ValueError:  # a ranged factor: said by rl_time_factor's own line
            return []
    return [f"the RL time factor billed {ks[0]:g} → {ks[1]:g}"] if ks[0] != ks[1] else []


def _item_differences(key: str, a, b) -> list:
    """``["pilot[0].tp 2 → 4", ...]``: the keys of a listed input's items that differ between
    two scenarios (the items' words alike: a review read "1 (64 GPUs 960 tok/s/GPU) → 1 (64
    GPUs 960 tok/s/GPU)" for two pilots that differ in tp); [] when the lists are not two lists
    of mappings of one length."""
    if not (isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b)):
        return []
    out = []
    for i, (x, y) in enumerate(zip(a, b)):
        if isinstance(x, dict) and isinstance(y, dict):
            out += [f"{key}[{i}].{k} {x.get(k, 'default')} → {y.get(k, 'default')}"
                    for k in sorted(set(x) | set(y), key=str) if x.get(k) != y.get(k)]
    return out


def _item_words(item: dict) -> str:
    """An item of a listed key in a comparison: a ``ledger_people`` role with its FTE and
    months ("research 4 FTE × 3 mo": a trial read "1 (research) → 1 (research)" for 4 FTE × 3
    months against 10 × 6), a phase or run by its name with its tokens or GPU-hours ("long-context
    100B tokens")."""
    if "tokens_per_s_per_gpu" in item and "name" not in item:  # a pilot (read "…" before)
        n, tps = item.get("n_gpus"), item.get("tokens_per_s_per_gpu")
        return (f"{fmt_gpus(n)} " if isinstance(n, int) else "") + (
            f"{tps:,.0f} tok/s/GPU" if isinstance(tps, (int, float)) else str(tps))
    if "role" in item and "name" not in item:
        fte, months = item.get("fte"), item.get("months")
        return (str(item["role"]) + (f" {fte:g} FTE" if isinstance(fte, (int, float)) else "")
                + (f" × {months:g} mo" if isinstance(months, (int, float)) else ""))
    size = next(((k, item[k]) for k in ("tokens", "gpu_hours")
                 if isinstance(item.get(k), (int, float))), None)
    # a phase's own length, GPUs and MFU (a trial changed a phase's seq_len and mfu and read
    # "1 (long-context 200B tokens) → 1 (long-context 200B tokens)")
    more = [w for k, w in (("seq_len", "{:,}-token seq"), ("n_gpus", "{:,} GPUs"),
                           ("mfu", "mfu {:.1%}")) if isinstance(v := item.get(k), (int, float))
            for w in [w.format(v)]]
    return str(item.get("name", item.get("role", "…"))) + (
        f" {fmt_count(size[1], 3)} {size[0].replace('gpu_hours', 'GPU-h')}" if size else "") + (
        f" ({', '.join(more)})" if more else "")


def _mfu_on_basis(bill, mfu: float) -> str:
    """A bill's MFU with its peak when two compared bills are not both BF16: an FP8 bill's on
    its FP8 peak and on the BF16 one (× ``checks.fp8_over_bf16``, the basis published MFUs use),
    a BF16 bill's "of the BF16 peak" (a trial read "mfu 40.0% → 40.5%" for a BF16 run against
    an FP8 one at 81% of the BF16 peak); above 100% of the BF16 one, why
    (``training.accuracy.above_bf16_peak_words``)."""
    if bill.scenario.get("dtype") != "fp8":
        return f"{mfu:.1%} of the BF16 peak"
    try:
        r = fp8_over_bf16(bill.figures.get("accelerator") or bill.scenario.get("accelerator"))
    except (ValueError, TypeError):
        return f"{mfu:.1%} of the FP8 peak"
    return (f"{mfu:.1%} of the FP8 peak ({mfu * r:.1%} of the BF16 one"
            f"{above_bf16_peak_words(mfu * r, r)})")


def compare_days_words(bills) -> str:
    """The two bills' main-run wall clock side by side (``Ledger.figures['wall_clock_days']``,
    failures and restarts included), what a price comparison leaves out when one bill runs longer
    (spot against on demand): "main run's wall clock, failures included: A 416.8 days, B 374.0
    days (B − A −42.8 days)"; a bill of post-training alone (``scenario.post_training_only``)
    has "no pre-training run", and both bills' post-training schedules are said
    (``figures['schedule_days']``, the draws' longest); "" when either bill has no such
    figure."""
    days = [getattr(b, "figures", {}).get("wall_clock_days") for b in bills]
    if len(days) != 2 or any(d is None or d != d for d in days):
        return ""
    a, b = (float(d) for d in days)
    alone = [post_training_only(getattr(x, "scenario", None) or {}) for x in bills]
    if any(alone):  # a bill of post-training alone has no main run (train_tokens: 0): its
        # post-training schedule instead (a trial compared 64 GPUs on demand with 32 on spot
        # and read dollars alone)
        post = [fmt_duration(float(np.max(x.figures["schedule_days"]["post_training"]))
                             * 86400) for x in bills]
        words = ["no pre-training run" if no else fmt_duration(d * 86400)
                 for no, d in zip(alone, (a, b))]
        head = ("post-training schedule (its compute one part after another): "
                f"A {post[0]}, B {post[1]}" if all(alone) else
                f"main run's wall clock, failures included: A {words[0]}, B {words[1]}; "
                f"post-training schedule: A {post[0]}, B {post[1]}")
        return head + compare_months_words(bills)
    diff = b - a
    sign = "−" if diff < 0 else "+" if diff > 0 else ""
    return (f"main run's wall clock, failures included: A {fmt_duration(a * 86400)}, "
            f"B {fmt_duration(b * 86400)} (B − A {sign}{fmt_duration(abs(diff) * 86400)})"
            + compare_months_words(bills))


def compare_months_words(bills) -> str:
    """"; people, operations and storage priced over A 3.52 months (the final run's wall
    clock), B 12 months (given)" when the two bills price their project-long lines over
    project lengths that differ by more than 1% and either has a people or operations line:
    the difference of those lines is then the projects' lengths as much as the options' (a
    finance trial read "people +$4.40M" between a 3.52- and a 12-month project, unsaid); ""
    otherwise."""
    months = [getattr(b, "figures", {}).get("project_months") for b in bills]
    if len(months) != 2 or any(not isinstance(m, (int, float)) for m in months):
        return ""
    a, b = (float(m) for m in months)
    paid = any(float(x.usd(k)) > 0 for x in bills for k in ("people.", "ops."))
    if not paid or abs(b - a) <= 0.01 * max(a, b):
        return ""
    basis = [PROJECT_MONTHS_BASES[x.figures["project_months_basis"]] for x in bills]
    return (f"; people, operations and storage priced over A {a:.4g} months ({basis[0]}), "
            f"B {b:.4g} months ({basis[1]})")


def compare_columns(df, names) -> dict:
    """``compare_bills``' columns -> short stable names, the same in ``estimate --compare
    --format json`` and the report's ``summary.json``: ``line``, ``a_usd``, ``b_usd``,
    ``difference_usd``, ``difference_p10_usd``, ... (the scenarios' names are in ``names``)."""
    out = {"line": "line", f"{names[0]} usd": "a_usd", f"{names[1]} usd": "b_usd"}
    for c in df.columns:
        if c.startswith("difference"):
            out[c] = c.replace(" ", "_")
    return out


def compare_keys(df) -> list:
    """Each row's line key of a ``compare_bills`` table (``ledger.compare``'s
    ``attrs['keys']``, "total" last), the key a single bill's outputs have; None for each row of
    a table that lost them."""
    return df.attrs.get("keys", [None] * len(df))


def compare_records(df, names) -> list[dict]:
    """A ``compare_bills`` table as records, as ``estimate --compare --format json`` and the
    report's ``summary.json`` give its lines: ``key`` (``compare_keys``), then the columns
    under ``compare_columns``' names."""
    return [{"key": key, **r} for key, r in zip(
        compare_keys(df), df.rename(columns=compare_columns(df, names)).to_dict("records"))]


def difference_outside(r: dict) -> bool:
    """A compared line (a record of ``compare_bills``: ``difference usd`` and its P10 and P90 per
    draw, or the same with underscores, ``estimate --compare``'s) whose point difference lies
    outside its own P10-P90 (``ledger.point_outside``); False without ranges or when any of
    the three is not modelled."""
    v = [r.get(k, r.get(k.replace(" ", "_"))) for k in ("difference usd", "difference p10 usd",
                                                      "difference p90 usd")]
    if any(x is None or x != x for x in v):
        return False
    return bool(point_outside(*(float(x) for x in v)))


def compare_html(df, names: tuple, warnings_b=(), file_b: str = "", inputs=(),
                 figure: str = "", days: str = "") -> str:
    """The comparison (``compare_bills``) as the index's table: each line's amount in A and in B,
    B - A, and under it the P10-P90 of the difference per draw when there are ranges; the
    columns are headed A and B as ``estimate --compare`` heads them, the two ``names`` said once
    above the table (a phone has no room for a title in each header). Lines at $0 in
    both are left out. ``warnings_b``: the second scenario's warnings (``Ledger.warnings`` of
    ``report.estimate_ledger``), shown as the index shows the first's (``caveats_html``), under
    its name and file ``file_b``. ``figure``: the HTML of the difference's picture
    (``compare_figure_html``), shown above the table; ``days``: the two main runs' wall clock
    (``compare_days_words``), said under it."""
    a, b = (f"{n} usd" for n in names)
    ranged = "difference p10 usd" in df.columns

    def usd(v):
        return "not modelled" if v is None or v != v else fmt_usd(float(v))

    rows, flagged = [], False
    records = df.to_dict("records")
    for i, r in enumerate(records):
        total = i == len(records) - 1  # ledger.compare's last row is the total
        if not total and not (r.get(a) or r.get(b)):
            continue
        tag = "th" if total else "td"
        star = ranged and difference_outside(r)  # flagged as the terminal's table flags it
        flagged = flagged or star
        # the per-draw range under the difference, free to wrap on a phone (an amount is one
        # word): a column of its own did not fit a 390-px screen beside A, B and B − A
        lo, hi = (plots.signed_usd(r.get(f"difference {q} usd")) for q in ("p10", "p90"))
        unmodelled = r.get("difference p10 usd") != r.get("difference p10 usd")   # NaN
        rng = ("" if not ranged else   # one figure where every draw gives it (a trial)
               f"<span class='rg'><span class='n'>{lo}</span></span>" if unmodelled else
               f"<span class='rg'><span class='n'>{lo}</span> in every draw</span>" if lo == hi
               else f"<span class='rg'><span class='n'>{lo}</span> to "
               f"<span class='n'>{hi}</span></span>")
        rows.append(f"<tr><{tag}>{html.escape(str(r['line']))}</{tag}>"
                    f"<{tag} class='v'>{usd(r.get(a))}</{tag}><{tag} class='v'>{usd(r.get(b))}"
                    f"</{tag}><{tag} class='v r'><span class='n'>"
                    f"{plots.signed_usd(r.get('difference usd'))}"
                    f"{'*' if star else ''}</span>{rng}</{tag}>"
                    f"</tr>")
    # the columns called A and B as `estimate --compare` calls them, named once above the table:
    # a trial's phone showed a 9-line header "<B's title> − <A's title>" and the per-draw
    # column off the screen
    head = ("<th>line</th><th class='v'>A</th><th class='v'>B</th><th class='v r'>B − A"
            + ("<span class='rg'>P10 to P90 per draw</span>" if ranged else "") + "</th>")
    legend = (f"<p><b>A</b>: {html.escape(names[0])}; <b>B</b>: {html.escape(names[1])}.</p>")
    note = ("The P10 and P90 of the difference are taken draw by draw, over the ranges each "
            "scenario gives itself (a predicted MFU's band, a pilot's or the RL model's error "
            "on a predicted RL iteration time included) and only "
            "those, not the illustrative spreads the bill above adds on inputs given as one "
            "number: both bills see the same draws of the inputs they both range (common "
            "random numbers), so the "
            "spread is that of the difference, not of two bills apart." if ranged else
            "Neither scenario gives a range of its own, so the difference is one number per "
            "line (the illustrative spreads of the bill above are not drawn here).")
    own = own_totals_words(df, names)
    if own:  # each option's own range beside the difference's (a finance trial)
        note += " " + html.escape(own[:1].upper() + own[1:]) + "."
    if df.attrs.get("mfu_draw_note"):  # but the MFU: two generations' errors, drawn apart
        note += " " + html.escape(f"But the MFU: {df.attrs['mfu_draw_note']}.")
    # compare_bills: what the netting moved, the bills named as this table's columns name them
    if flagged:
        note = html.escape(COMPARE_OUTSIDE_NOTE) + ". " + note
    moved = df.attrs.get("exploratory_note_named") or df.attrs.get("exploratory_note")
    if moved:
        note = html.escape(f"Exploratory and failed runs: {moved}. ") + note
    src = f" (<code>{html.escape(str(file_b))}</code>)" if file_b else ""
    if warnings_b:
        items = "".join(f"<li><details><summary>{unbroken_html(caveat_line(w))}</summary>"
                        f"<p>{html.escape(str(w))}</p></details></li>" for w in warnings_b)
        said = (f"<div class='caveats'><b>Read this first about {html.escape(names[1])}</b>"
                f"{src} <span class='hint'>(open a line for the detail)</span><ul>{items}</ul>"
                "</div>")
    else:
        said = f"<p>{html.escape(names[1])}{src}: no warning.</p>"
    differ = (f"<p><b>Inputs that differ</b> (A → B): {html.escape('; '.join(inputs))}.</p>"
              if inputs else "")
    return (f"<h2 id='compared'>Compared: {html.escape(names[0])} and {html.escape(names[1])}"
            f"</h2>{legend}{said}{differ}{figure}"
            f"<div class='scroll'><table><tr>{head}</tr>{''.join(rows)}</table></div>"
            + (f"<p>{html.escape(days[0].upper() + days[1:])}.</p>" if days else "")
            + f"<p class='note'>{note}</p>")
