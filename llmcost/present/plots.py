"""Matplotlib figures. Each function takes data (and an optional ``ax``), draws, labels the axes
with units, and returns the Axes; none calls ``plt.show()`` or computes anything the calculation
modules do not already provide.
"""

from __future__ import annotations

import contextlib
import copy
import copyreg
import functools
import hashlib
import io
import itertools
import pickle
import re
import textwrap
import threading
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from ..core.diskcache import disk_cached
from ..core.units import (SECONDS_PER_HOUR, fmt_count, fmt_fraction_pct, fmt_gpus,
                          fmt_quantity, fmt_signed_pct, fmt_usd, shorten_words)
from ..bill.ledger import OUTSIDE_NOTE, input_range_words, input_words, point_outside
from ..training import memory, step
from ..training import reliability as rel
from ..training.accuracy import MIN_CONFORMAL_ROWS
from ..training.batch import kaplan_critical_batch, steps_to_target, tokens_to_target
from ..training.parallel import bubble_fraction
from ..training.reliability import cluster_mtbf_s
from ..training.step_validation import set_title


#: The floors of a figure's text, in points, so that it reads when projected (the project's
#: rule): tick labels, legends, annotations and the source line at ``SMALL_PT`` or more, axis
#: labels and titles at ``LABEL_PT`` or more. Matplotlib's defaults (``font.size`` 10: ticks,
#: legends and axis labels 10 pt, titles 12 pt) are above them; a figure that sets a size
#: sets one of these or a larger number (``text_under_floor``; tests/test_figure_text_floor.py).
SMALL_PT = 9.0
LABEL_PT = 10.0


def text_under_floor(fig) -> list:
    """The texts of ``fig`` drawn smaller than their floor: ``(text, points, floor)`` for each
    non-empty ``Text`` (tick labels, legend entries, annotations, titles, axis labels, figure
    labels) under ``SMALL_PT``, or under ``LABEL_PT`` for an axis label or a title."""
    import matplotlib.text as mtext

    big = set()
    for ax in fig.get_axes():
        big.update([ax.xaxis.label, ax.yaxis.label, ax.title, ax._left_title, ax._right_title])
    for t in (getattr(fig, "_suptitle", None), getattr(fig, "_supxlabel", None),
              getattr(fig, "_supylabel", None)):
        if t is not None:
            big.add(t)
    ticks = {id(t) for ax in fig.get_axes() for axis in (ax.xaxis, ax.yaxis)
             for t in axis.get_ticklabels(which="both")}
    out = []
    for t in fig.findobj(mtext.Text):
        if not t.get_text() or not t.get_visible():
            continue
        if id(t) not in ticks and t.figure is None:
            continue
        floor = LABEL_PT if t in big and t is not getattr(fig, "_supxlabel", None) else SMALL_PT
        if t.get_fontsize() < floor - 1e-9:
            out.append((t.get_text(), t.get_fontsize(), floor))
    return out


def _ax(ax, figsize=(7, 4)):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


class _TextRecorder:
    """Stands in for an Agg renderer's C renderer while one text is drawn: records the glyph
    bitmaps it is given (``draw_text_image``), and whether anything else was asked of it."""

    def __init__(self, renderer):
        self._renderer, self.calls, self.other = renderer, [], False

    def draw_text_image(self, image, x, y, angle, gc):
        self.calls.append((np.array(image, copy=True), x, y, angle))
        return self._renderer.draw_text_image(image, x, y, angle, gc)

    def __getattr__(self, name):
        self.other = True
        return getattr(self._renderer, name)


@functools.lru_cache(maxsize=1)
def _text_caching_canvas():
    """A ``FigureCanvasAgg`` whose renderer keeps the glyph bitmaps of each text it drew.

    Agg draws a text glyph by glyph (lay out the string, render each glyph with FreeType, blend
    its bitmap into the image with the text's colour and clip): most of a small figure's draw.
    A text drawn again with the same string, font, position (to the subpixel), angle, dpi,
    antialiasing and text settings gives the same bitmaps at the same places, so the renderer
    replays the recorded ``draw_text_image`` calls with the new graphics context (colour,
    alpha, clip) instead. Texts that draw anything else (math text with rules) are not kept.
    """
    import matplotlib as mpl
    from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
    from matplotlib.font_manager import findfont

    # the settings a text's glyphs depend on besides its font properties (hinting, kerning,
    # antialiasing, math-text fonts)
    RC_KEYS = tuple(k for k in mpl.rcParams if k.startswith(("text.hinting", "text.kerning",
                                                             "text.antialiased", "mathtext.")))

    class Renderer(RendererAgg):
        def draw_text(self, gc, x, y, s, prop, angle, ismath=False, mtext=None):
            if ismath not in (False, True):  # TeX
                return super().draw_text(gc, x, y, s, prop, angle, ismath, mtext)
            rc = tuple(mpl.rcParams[k] for k in RC_KEYS)
            key = (s, prop.copy(), findfont(prop), x, y, angle, ismath, gc.get_antialiased(),
                   self.dpi, self.width, self.height, rc,
                   None if mtext is None else (repr(mtext.get_fontfeatures()),
                                               mtext.get_language()))
            calls = self.text_cache.get(key)
            if calls is not None:
                for image, xi, yi, a in calls:
                    self._renderer.draw_text_image(image, xi, yi, a, gc)
                return None
            real, self._renderer = self._renderer, _TextRecorder(self._renderer)
            try:
                result = super().draw_text(gc, x, y, s, prop, angle, ismath, mtext)
            finally:
                rec, self._renderer = self._renderer, real
            if not rec.other:
                if len(self.text_cache) > 4096:
                    self.text_cache.clear()
                self.text_cache[key] = rec.calls
            return result

    class Canvas(FigureCanvasAgg):
        def get_renderer(self):
            renderer = super().get_renderer()
            if not isinstance(renderer, Renderer):
                renderer.__class__ = Renderer
                renderer.text_cache = {}
            return renderer

    return Canvas


class _KeptTicks:
    """One axis's ticks and tick-label boxes, kept while nothing they depend on changes (see
    ``ticks_computed_once``); installed on the axis as its ``_update_ticks`` and
    ``_get_ticklabel_bboxes``."""

    def __init__(self, axis):
        self.axis, self.key, self.ticks, self.boxes = axis, None, None, {}
        self.plain_ticks, self.compute_boxes = axis._update_ticks, axis._get_ticklabel_bboxes
        self.locs = None

    def compute_ticks(self):
        """The axis's ticks to draw (``ticks_in_view``; matplotlib's own for a 3D axis)."""
        ticks = ticks_in_view(self.axis)
        return self.plain_ticks() if ticks is None else ticks

    def update_ticks(self):
        axis = self.axis
        key = (tuple(axis.get_view_interval()), axis.axes.bbox.bounds)
        if key != self.key:  # one answer kept: ticks are objects an axis reuses
            self.key, self.ticks, self.boxes = None, self.compute_ticks(), {}
            self.key, self.locs = key, self._formatter_locs()
        elif any(a is not b for a, b in zip(self._formatter_locs(), self.locs)):
            # a shared axis's formatter was used since: leave it as this axis's answer left it
            for formatter, locs in zip((axis.major.formatter, axis.minor.formatter),
                                       self.locs):
                if locs is not None:
                    formatter.format_ticks(locs)
            self.locs = self._formatter_locs()
        return self.ticks

    def _formatter_locs(self):
        """The tick values each formatter last formatted (``_locs``; ``locs`` before
        Matplotlib 3.11), or None."""
        return tuple(vars(f).get("_locs", vars(f).get("locs"))
                     for f in (self.axis.major.formatter, self.axis.minor.formatter))

    def ticklabel_bboxes(self, ticks, renderer):
        if ticks is not self.ticks:
            return self.compute_boxes(ticks, renderer)
        if id(renderer) not in self.boxes:  # the renderer is kept with its answer
            self.boxes[id(renderer)] = (renderer, self.compute_boxes(ticks, renderer))
        return self.boxes[id(renderer)][1]


def ticks_in_view(axis):
    """``Axis._update_ticks`` of matplotlib 3.11 (the ticks an axis draws, each placed at its
    location with its label), making a tick only for a location it draws; None for an axis of
    a 3D axes (whose view is narrowed by a margin) or a matplotlib without the private helper
    used: matplotlib's own is used there.

    Matplotlib makes one ``Tick`` (two lines, a grid line and two texts, about 0.6 ms) for
    every location its locators return, then draws those inside the view interval: a log
    axis's locators return the whole decades around the view, so a fifth of the locations the
    default scenario's report figures placed (2,697 of 13,493, over every tick update in a
    report's kernels) were ticks made, placed and labelled, and never drawn. Here the locations and labels are
    computed as matplotlib computes them (every location formatted: a formatter's offset and
    its ``locs`` depend on all of them), the same test keeps those inside the view
    (``transforms._interval_contains_close`` on the transformed interval), and ticks are made
    and placed for those only, majors then minors, in matplotlib's order: the same ticks are
    drawn, with the same texts, at the same places (``tests/test_live_figure.py`` compares the
    pictures with matplotlib's). The axis's first ticks hold the drawn locations, where
    matplotlib's held every location in turn; ticks share their properties (``set_tick_params``
    sets them on every tick, a new tick copies the first), and a caller that asks the axis for
    its ticks or labels (``get_ticklabels``) runs matplotlib's own, which places them all."""
    import matplotlib.transforms as mtransforms
    from matplotlib.ticker import NullLocator

    if getattr(axis.axes, "name", None) == "3d" or not hasattr(axis, "_tick_group_visible"):
        return None
    groups = []
    for kw, locator, formatter, locations, make in (
            (axis._major_tick_kw, axis.get_major_locator(), axis.major.formatter,
             axis.get_majorticklocs, axis.get_major_ticks),
            (axis._minor_tick_kw, axis.get_minor_locator(), axis.minor.formatter,
             axis.get_minorticklocs, axis.get_minor_ticks)):
        if axis._tick_group_visible(kw) and not isinstance(locator, NullLocator):
            locs = locations()
            groups.append((locs, formatter.format_ticks(locs), make))
    if not groups:
        return []
    low, high = sorted(axis.get_view_interval())
    transform = axis.get_transform()
    interval = transform.transform([low, high])
    drawn = []
    for locs, labels, make in groups:
        inside = []
        for loc, label in zip(locs, labels):
            try:
                at = transform.transform(loc)
            except AssertionError:  # a masked value some scales make: never drawn
                continue
            if mtransforms._interval_contains_close(interval, at):
                inside.append((loc, label))
        ticks = make(len(inside))
        for tick, (loc, label) in zip(ticks, inside):
            tick.update_position(loc)
            tick.label1.set_text(label)
            tick.label2.set_text(label)
        drawn += ticks
    return drawn


def _all_axes(fig):
    return [*fig.axes, *(ax for sub in getattr(fig, "subfigs", ()) for ax in _all_axes(sub))]


@contextlib.contextmanager
def ticks_computed_once(fig):
    """Within the block, each axis of ``fig`` computes its ticks and their label boxes once
    for as long as its limits and its place in the figure stay the same.

    Matplotlib recomputes an axis's ticks (locator, formatter, tick positions and labels:
    ``Axis._update_ticks``) and its tick labels' boxes (``Axis._get_ticklabel_bboxes``) each
    time it is asked: to place the axis label below its own and its shared siblings' tick
    labels, each title above every twinned axis's tick labels, the constrained layout's margins,
    the tight bounding box, and to draw the axis: three to five times per axis and draw, most
    of a small figure's draw (``benchmarks/profile_notebooks.py``). What they depend on is the
    view interval, the axes' box on the canvas (its size sets how many ticks fit, its place
    where the labels land), and for the boxes the renderer; the answer is kept with these and
    computed anew when one changes (the layout moving an axes, the tight crop shifting the
    canvas, an update's new limits), and forgotten when the block ends, so that a change made
    between draws (a new locator, formatter, font or data) is seen. A formatter shared by
    several axes is left in the state this axis's answer left it (its offset text).

    Both are private methods of ``matplotlib.axis.Axis``; an axis without them is drawn as
    matplotlib draws it. Reentrant: an axis already kept by an outer block stays with it.
    The block is also the one within which ``keep_text_layouts`` keeps each text's layout.
    """
    kept = []
    for ax in _all_axes(fig):
        for axis in (ax.xaxis, ax.yaxis):
            if not (hasattr(axis, "_update_ticks") and hasattr(axis, "_get_ticklabel_bboxes")) \
                    or "_update_ticks" in vars(axis):
                continue
            k = _KeptTicks(axis)
            axis._update_ticks, axis._get_ticklabel_bboxes = k.update_ticks, k.ticklabel_bboxes
            kept.append(axis)
    depth = getattr(_PRINTING, "depth", 0)
    if depth == 0:  # an outer block: the layouts kept by an earlier one are not read
        _PRINTING.block = next(_PRINT_BLOCKS)
    _PRINTING.depth = depth + 1
    try:
        yield
    finally:
        _PRINTING.depth = depth
        for axis in kept:
            del axis._update_ticks, axis._get_ticklabel_bboxes


#: This thread's ``ticks_computed_once`` blocks: ``depth``, how many run, and ``block``, the
#: number of the outermost (``_PRINT_BLOCKS``), under which ``keep_text_layouts`` keeps them.
_PRINTING = threading.local()
_PRINT_BLOCKS = itertools.count()


def keep_text_layouts() -> bool:
    """Make every text of this process lay itself out once per renderer kind within a
    ``ticks_computed_once`` block (the prints of ``keep_ticks_while_printing`` and
    ``print_with_one_draw``), instead of at each of its measures (report kernels:
    ``kernels.remember_state``). Same pixels and the same SVG; returns whether it was
    installed now (False: it already was, or this matplotlib's texts do not hold what is read
    below where it is read here).

    Matplotlib lays a text out (``Text._get_layout``: its lines, their measures, the font's
    ascent and descent from its tables, the box rotated and aligned) each time its extent is
    asked: each of constrained layout's two passes, the tight crop, the draw, and each sibling
    axis's label placement: 10,641 layouts for the default scenario's report figures (counted
    in a report's kernels), about a quarter of their printing time; kept, a six-panel log-log
    figure printed as SVG lays its texts out 78 times instead of 426. What the layout reads is the text's string (unless it wraps, which reads its place
    in the figure: never kept), its font properties (their hash, as matplotlib's own measure
    cache keys them), the figure's dpi, TeX and math-text parsing, line spacing, alignments,
    rotation and rotation mode, and the renderer's measures, which for Agg depend on its dpi
    and for the SVG renderer on nothing of the instance (it measures at 72 dpi with its
    ``TextToPath``; the SVG printer's ``MixedModeRenderer`` measures with it while it draws
    vectors, and with an Agg renderer of its own, its own kind then, in a rasterized
    artist); any other renderer is its own kind. The layout is kept on the text with
    these and the block's number, and laid out anew when one differs; nothing kept is read
    after the block (a setting changed between prints is seen). Callers read the layout and
    never change it (``Text.draw``, ``get_window_extent``, ``offsetbox.TextArea``)."""
    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.backends.backend_mixed import MixedModeRenderer
    from matplotlib.backends.backend_svg import RendererSVG
    from matplotlib.text import Text

    plain = Text._get_layout
    probe = Text()
    if getattr(plain, "_llmcost_kept", False) or not all(
            hasattr(probe, name) for name in ("_fontproperties", "_parse_math", "_linespacing",
                                              "_multialignment", "_horizontalalignment",
                                              "_verticalalignment")):
        return False

    @functools.wraps(plain)
    def _get_layout(self, renderer):
        block = getattr(_PRINTING, "block", None) if getattr(_PRINTING, "depth", 0) else None
        fig = self.get_figure(root=True)
        if block is None or fig is None or self.get_wrap():
            return plain(self, renderer)
        kind = type(renderer)
        drawing = renderer._renderer if kind is MixedModeRenderer else renderer
        measures = (RendererSVG if type(drawing) is RendererSVG else
                    (kind, renderer.dpi) if kind is RendererAgg else renderer)
        key = (block, self.get_text(), hash(self._fontproperties), fig.dpi, self.get_usetex(),
               self._parse_math, self._linespacing, self._multialignment,
               self._horizontalalignment, self._verticalalignment, self.get_rotation_mode(),
               self.get_rotation())
        kept = vars(self).get("_llmcost_layout")
        if kept is not None and kept[0] == measures and kept[1] == key:
            return kept[2]
        layout = plain(self, renderer)
        self._llmcost_layout = (measures, key, layout)
        return layout

    _get_layout._llmcost_kept = True
    Text._get_layout = _get_layout
    return True


#: A tick's artists (``matplotlib.axis.Tick``), each of its own in a tick ``clone_ticks`` makes.
TICK_ARTISTS = ("tick1line", "tick2line", "gridline", "label1", "label2")


def clone_ticks() -> bool:
    """Make every x or y axis of this process make the new ticks it needs at once by making
    one as matplotlib does and copying it for the others (report kernels:
    ``kernels.remember_state``). Same ticks, same pictures; returns whether it was installed
    now (False: it already was, or this matplotlib lacks the private methods read here).

    Matplotlib's ``Axis.get_major_ticks`` (and ``get_minor_ticks``) makes each tick it lacks
    with ``Axis._get_tick`` (five artists built from the axis's tick settings and
    ``rcParams``: two tick lines, a grid line and two labels), then sets it as the axis's
    first tick is (``Axis._copy_tick_props``: each artist's ``update_from``, which deep-copies
    a line's marker style): 1.2 of the 11 CPU-s the default scenario's notebooks take in a
    report's kernel, for some 3,000 ticks (mostly the minor ticks of log axes), made a few to
    a few dozen at a time. Here the first tick of each batch is made so, and the others are
    copies of it (``_cloned_tick``): the same properties, with what matplotlib gives each
    tick of its own (its artists, their callbacks, sticky edges, data and font properties)
    copied; what a tick's artists share after ``_copy_tick_props`` (transforms, clip box,
    path effects) stays shared, as does a line's marker style (immutable since matplotlib
    3.6). The axis's tick update then places and labels each as before. Only the plain
    ``XAxis`` and ``YAxis`` with matplotlib's ``XTick`` and ``YTick`` are served so (a polar
    or 3D axis makes its ticks as matplotlib does)."""
    from matplotlib import axis as maxis

    plain_major, plain_minor = maxis.Axis.get_major_ticks, maxis.Axis.get_minor_ticks
    if getattr(plain_major, "_llmcost_cloned", False) or not all(
            hasattr(maxis.Axis, n) for n in ("_get_tick", "_copy_tick_props", "_tick_class")):
        return False
    plain_ticks = {maxis.XAxis: maxis.XTick, maxis.YAxis: maxis.YTick}

    def cloned(plain, major: bool):
        @functools.wraps(plain)
        def get_ticks(self, numticks=None):
            if plain_ticks.get(type(self)) is not self._tick_class or \
                    type(self)._get_tick is not maxis.Axis._get_tick:
                return plain(self, numticks)
            if numticks is None:
                numticks = len(self.get_majorticklocs() if major else self.get_minorticklocs())
            ticks = self.majorTicks if major else self.minorTicks  # the first made if none
            if len(ticks) < numticks:
                made = self._get_tick(major=major)  # as matplotlib makes each
                ticks.append(made)
                self._copy_tick_props(ticks[0], made)
                while len(ticks) < numticks:
                    ticks.append(_cloned_tick(made))
            return ticks[:numticks]

        get_ticks._llmcost_cloned = True
        return get_ticks

    maxis.Axis.get_major_ticks = cloned(plain_major, True)
    maxis.Axis.get_minor_ticks = cloned(plain_minor, False)
    return True


def _fresh_state(new, old) -> None:
    """Give the copy ``new`` of the artist ``old`` what an artist holds of its own: its
    callbacks (``Artist.__init__``'s registry) and its sticky edges."""
    from matplotlib import cbook
    from matplotlib.artist import _XYPair

    new._callbacks = cbook.CallbackRegistry(signals=["pchanged"])
    if old._sticky_edges is not None:
        new._sticky_edges = _XYPair(list(old._sticky_edges.x), list(old._sticky_edges.y))


def _cloned_artist(artist):
    """A copy of a new tick's ``artist`` (a ``Line2D`` or a ``Text``) for ``_cloned_tick``: its
    state, with its callbacks, sticky edges, data arrays and path (a line's) or font
    properties (a text's) its own."""
    from matplotlib.lines import Line2D

    new = object.__new__(type(artist))
    state = vars(new)
    state.update(vars(artist))
    state.pop("_llmcost_layout", None)  # laid out anew (keep_text_layouts), as a new text is
    _fresh_state(new, artist)
    if isinstance(artist, Line2D):
        for name in ("_xorig", "_yorig", "_x", "_y", "_xy", "_x_filled"):
            value = state.get(name)
            if isinstance(value, (list, np.ndarray)):
                state[name] = value.copy()
        if state.get("_path") is not None:
            new._path = copy.deepcopy(artist._path)
        new._transformed_path = None  # made from its own path when drawn
    else:
        new._fontproperties = artist._fontproperties.copy()
    return new


def _cloned_tick(made):
    """A copy of the tick ``made`` (``clone_ticks``: made by ``Axis._get_tick`` and set as the
    axis's first tick), with artists of its own (``_cloned_artist``)."""
    new = object.__new__(type(made))
    vars(new).update(vars(made))
    _fresh_state(new, made)
    for name in TICK_ARTISTS:
        setattr(new, name, _cloned_artist(getattr(made, name)))
    return new


def figure_description(fig) -> str:
    """A figure in one line, for readers who cannot see it (an SVG's ``<title>``, the page's
    ``alt`` text): its title (``suptitle``), else its axes' titles, else what each axes plots
    ("y against x" from the axis labels); "a figure" when it has none of them. Math text is
    read as its source without the ``$`` delimiters."""
    sup = getattr(fig, "_suptitle", None)
    parts = ([read_as_text(sup.get_text(), sup.get_parse_math())]
             if sup is not None and sup.get_text().strip() else [])
    if not parts:
        for ax in fig.axes:
            title = " ".join(read_as_text(t) for t in (ax.get_title("left"), ax.get_title(),
                                                        ax.get_title("right")) if t.strip())
            if not title and ax.get_ylabel().strip() and ax.get_xlabel().strip():
                title = (f"{read_as_text(ax.get_ylabel())} against "
                         f"{read_as_text(ax.get_xlabel())}")
            if title and title not in parts:
                parts.append(title)
    text = "; ".join(" ".join(p.split()) for p in parts)
    return f"Figure: {text}" if text else "a figure"


def read_as_text(text: str, parse_math: bool = True) -> str:
    """A figure's text as a reader sees it, by matplotlib's own rule (``Text._preprocess_math``):
    drawn as it is with ``parse_math=False`` ("the whole bill $65.3M"); math text (an even,
    non-zero number of unescaped ``$``, ``cbook.is_math_text``) read as its source without its
    ``$`` delimiters; otherwise an escaped ``\\$`` (a price) read as ``$``."""
    if not parse_math:
        return text
    dollars = text.count("$") - text.count("\\$")
    if dollars > 0 and dollars % 2 == 0:
        text = re.sub(r"(?<!\\)\$", "", text)
    return text.replace("\\$", "$")


def _wrapped_with(method, flag: str) -> bool:
    """Whether ``method`` or any method it wraps (``functools.wraps``' ``__wrapped__`` chain)
    carries ``flag``: a print-figure speed-up or description installed already."""
    while method is not None:
        if getattr(method, flag, False):
            return True
        method = getattr(method, "__wrapped__", None)
    return False


def describe_svg_figures() -> bool:
    """Give every SVG this process prints a ``<title>`` (``figure_description``) when its
    metadata has none: matplotlib's SVG backend writes the metadata's ``Title`` as the image's
    title element, which the report's pages read as the image's ``alt`` text
    (``report.accessible_html``). Returns whether it was installed now (False: it already
    was). Report kernels: ``kernels.remember_state``."""
    from matplotlib.backend_bases import FigureCanvasBase

    plain = FigureCanvasBase.print_figure
    if _wrapped_with(plain, "_llmcost_describes"):
        return False

    @functools.wraps(plain)
    def print_figure(self, filename, **kwargs):
        meta = kwargs.get("metadata") or {}
        if kwargs.get("format") == "svg" and "Title" not in meta:
            kwargs["metadata"] = {**meta, "Title": figure_description(self.figure)}
        return plain(self, filename, **kwargs)

    print_figure._llmcost_describes = True
    FigureCanvasBase.print_figure = print_figure
    return True


def keep_ticks_while_printing() -> bool:
    """Make every ``print_figure`` of this process (what the inline backend and ``savefig``
    call) run inside ``ticks_computed_once`` for its figure: same pixels, about a third less
    drawing time per figure (report kernels: ``kernels.remember_state``). Returns whether it was
    installed now (False: it already was)."""
    from matplotlib.backend_bases import FigureCanvasBase

    plain = FigureCanvasBase.print_figure
    if getattr(plain, "_llmcost_keeps_ticks", False):
        return False

    @functools.wraps(plain)
    def print_figure(self, *args, **kwargs):
        with ticks_computed_once(self.figure):
            return plain(self, *args, **kwargs)

    print_figure._llmcost_keeps_ticks = True
    FigureCanvasBase.print_figure = print_figure
    return True


#: The formats ``print_with_one_draw`` prints with one draw: Agg's PNG and the SVG backend's
#: (which lays the figure out at its fixed 72 dpi, as matplotlib's own print does).
ONE_DRAW_FORMATS = ("png", "svg")


def _one_draw_layout(canvas, kwargs: dict):
    """The figure of ``canvas`` when its ``print_figure`` with ``kwargs`` (keywords only) is
    one ``print_with_one_draw`` makes, or None where matplotlib's own is used: a PNG or an SVG
    (``ONE_DRAW_FORMATS``) with ``bbox_inches="tight"`` of a visible figure without subfigures,
    extra artists or axes of its own with a locator (colorbars; an inset is its axes' child),
    whose layout engine is matplotlib's constrained one or none, with a matplotlib that has the
    private helpers used (3.8 and later)."""
    import matplotlib as mpl
    from matplotlib.figure import Figure
    from matplotlib.layout_engine import ConstrainedLayoutEngine, PlaceHolderLayoutEngine

    fig = canvas.figure
    if not (hasattr(mpl, "_val_or_rc") and kwargs.get("bbox_inches") == "tight"
            and kwargs.get("format") in ONE_DRAW_FORMATS and kwargs.get("backend") is None
            and kwargs.get("bbox_extra_artists") is None
            and type(fig) is Figure and fig.get_visible() and not getattr(fig, "subfigs", [])
            and hasattr(fig, "_get_draw_artists") and hasattr(canvas, "_is_saving")
            and type(fig.get_layout_engine()) in (ConstrainedLayoutEngine,
                                                  PlaceHolderLayoutEngine, type(None))
            and all(ax.get_axes_locator() is None for ax in fig.axes)):
        return None
    return fig


def print_with_one_draw() -> bool:
    """Make every ``print_figure`` of this process that crops a PNG or an SVG to its tight
    bounding box (the inline backend's ``bbox_inches="tight"``) draw the figure once instead of
    twice: same bytes (``tests/test_live_figure.py``; the default scenario's 68 report
    figures, as PNGs and as SVGs), an eighth less printing time (7.9 -> 6.9 CPU-s for those
    figures as PNGs, measured in a report's kernel; report kernels:
    ``kernels.remember_state``). Returns whether it was installed now (False: it already was).

    Matplotlib's ``FigureCanvasBase.print_figure`` (3.11) draws a figure with a layout engine,
    or cropped to ``"tight"``, twice: once with drawing disabled, which runs the layout engine
    (constrained layout) and leaves every artist where the picture will have it, so that
    ``Figure.get_tightbbox`` measures the crop; then, the layout engine off, once to pixels
    inside the crop. The first draw's artists draw nothing; what it computes for the crop is
    the layout and the axes' aspect (``Figure._get_draw_artists`` applies it first), and the
    crop's measure computes the rest itself (``get_tightbbox`` of each text, legend and axis).
    Here those steps run first, without the disabled draw, in matplotlib's order (the renderer
    ``print_figure`` would use, at the resolution it would have: an SVG is laid out at the SVG
    backend's 72 dpi; the aspect, the layout, the crop), then matplotlib's own
    ``print_figure`` runs with its disabled draw doing nothing and its crop's measure
    answering the crop just measured (``_first_draw_done``), so that it pads the crop, sets
    the figure to it and draws once as it would. What it does not cover
    (``_one_draw_layout``: other formats and crops, subfigures, colorbars, whose axes locators
    matplotlib's crop calls with the first draw's renderer) is printed by matplotlib. The
    disabled draw's ``draw_event`` is not sent (no inline figure listens). Each print runs
    inside ``ticks_computed_once``."""
    import matplotlib as mpl
    from matplotlib import cbook
    from matplotlib.backend_bases import FigureCanvasBase, _get_renderer

    plain = FigureCanvasBase.print_figure
    if _wrapped_with(plain, "_llmcost_one_draw"):
        return False

    @functools.wraps(plain)
    def print_figure(self, filename, **kwargs):
        fig = _one_draw_layout(self, kwargs)
        if fig is None:
            return plain(self, filename, **kwargs)
        engine = fig.get_layout_engine()
        dpi = mpl._val_or_rc(kwargs.get("dpi"), "savefig.dpi")
        if dpi == "figure":
            dpi = getattr(fig, "_original_dpi", fig.dpi)
        with ticks_computed_once(fig):
            with (cbook._setattr_cm(self, manager=None),
                  self._switch_canvas_and_return_print_method(kwargs["format"]) as print_method,
                  cbook._setattr_cm(fig, dpi=dpi),
                  cbook._setattr_cm(fig.canvas, _device_pixel_ratio=1),
                  cbook._setattr_cm(fig.canvas, _is_saving=True)):
                renderer = _get_renderer(fig, functools.partial(
                    print_method, orientation=kwargs.get("orientation", "portrait")))
                fig._get_draw_artists(renderer)  # the axes' aspect, as Figure.draw first
                if fig.axes and engine is not None:
                    try:
                        engine.execute(fig)
                    except ValueError:  # as Figure.draw
                        pass
                box = fig.get_tightbbox(renderer)
            with _first_draw_done(fig, box):
                return plain(self, filename, **kwargs)

    print_figure._llmcost_one_draw = True
    FigureCanvasBase.print_figure = print_figure
    return True


@contextlib.contextmanager
def _first_draw_done(fig, box):
    """Within the block, the next ``draw`` of ``fig`` does nothing and its next
    ``get_tightbbox`` answers ``box``, each once: what ``print_figure`` asks of a figure
    before drawing it (its disabled draw and its crop's measure), done before the block
    (``print_with_one_draw``). Its later draw, the picture, is ``Figure.draw``."""
    def draw(renderer):
        vars(fig).pop("draw", None)

    def get_tightbbox(*args, **kwargs):
        vars(fig).pop("get_tightbbox", None)
        return box

    fig.draw, fig.get_tightbbox = draw, get_tightbbox
    try:
        yield
    finally:
        vars(fig).pop("draw", None)
        vars(fig).pop("get_tightbbox", None)


def _text_rc_keys() -> tuple:
    """The settings a text's size and glyphs depend on besides its font properties: the font
    families each generic name stands for, hinting, kerning, antialiasing, the math-text fonts."""
    import matplotlib as mpl

    return tuple(k for k in mpl.rcParams if k.startswith((
        "font.", "text.hinting", "text.kerning", "text.antialiased", "mathtext.",
        "_internal.classic_mode")))


def share_text_measures() -> bool:
    """Make every Agg renderer of this process measure a text, and parse a math text, once, and
    the vector backends (SVG) measure a text once (report kernels: ``kernels.remember_state``).
    Same pixels and the same SVG; returns whether it was installed now (False: it already was).

    Matplotlib keeps a text's size (``RendererAgg.get_text_width_height_descent``) per renderer,
    and its math-text layouts (``MathTextParser._parse_cached``) per parser, in a cache of 50.
    Printing one figure makes two renderers (the tight crop's pass, then the picture at the
    cropped size), and each figure makes its own: every tick label is laid out again by
    FreeType, and every ``$10^{3}$`` parsed again (about 11 ms each), for every figure
    (``benchmarks/profile_notebooks.py``: 3,391 measures and 512 parses for the default
    scenario's 68 figures, a fifth of their drawing time). The SVG backend measures each text
    with ``TextToPath.get_text_width_height_descent`` (FreeType at a fixed size, no hinting),
    with no cache at all: 4,939 measures for the same figures as SVG. What the answer depends on
    is the string, the font properties, whether it is math text, the renderer's dpi (for
    ``TextToPath``, its fixed size and dpi), and the settings of ``_text_rc_keys`` (and, for a
    parse, its output kind, antialiasing and hinting flags); here one answer per key is kept for
    the process (forgotten past 4,096 keys). TeX text and other renderers are measured as
    matplotlib measures them.

    A parse given its font properties (every parse of a figure's text: ``prop`` holds its size)
    does not depend on ``font.size``: matplotlib 3.11's parser reads it only where it builds a
    ``FontProperties`` without a size, the default ``prop`` (a parse without one keeps
    ``font.size`` in its key) and the math font set's lookups (``findfont`` of
    ``mathtext.rm`` …, ``_mathtext.UnicodeFonts``), where a scalable font's size score is 0
    whatever the size asked (``FontManager.score_size``). So a parse is not repeated for a
    notebook that sets another ``font.size``: measured in one warm kernel running the default
    scenario's 12 notebooks, 223 parses of 475 asked, 29 of them repeats of a key but for
    ``font.size`` (0.11 of their 0.84 CPU-s), and 4 repeated measures of 1,448."""
    import matplotlib as mpl
    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.mathtext import MathTextParser
    from matplotlib.textpath import TextToPath

    measure, parse = RendererAgg.get_text_width_height_descent, MathTextParser._parse_cached
    if getattr(measure, "_llmcost_shared", False):
        return False
    keys = _text_rc_keys()
    parse_keys = tuple(k for k in keys if k != "font.size")
    parses: dict = {}

    def settings(keys=keys) -> tuple:  # lists (font families) as tuples, to be part of a key
        get = getattr(mpl.rcParams, "_get", mpl.rcParams.__getitem__)  # _get: without checks
        return tuple([tuple(v) if isinstance(v, list) else v for v in map(get, keys)])

    def shared(measure, resolution):
        """``measure`` with one answer per key; ``resolution(self)``: the renderer's dpi."""
        measures: dict = {}

        @functools.wraps(measure)
        def get_text_width_height_descent(self, s, prop, ismath):
            if ismath not in (False, True):  # TeX
                return measure(self, s, prop, ismath)
            key = (s, prop.copy(), ismath, resolution(self), settings())
            found = measures.get(key)
            if found is None:
                if len(measures) > 4096:
                    measures.clear()
                found = measures[key] = measure(self, s, prop, ismath)
            return found

        get_text_width_height_descent._llmcost_shared = True
        return get_text_width_height_descent

    plain_parse = getattr(parse, "__wrapped__", parse)  # past matplotlib's per-parser cache

    @functools.wraps(plain_parse)
    def _parse_cached(self, s, dpi, prop, antialiased, load_glyph_flags):
        key = (self._output_type, s, dpi, prop, antialiased, load_glyph_flags,
               settings() if prop is None else settings(parse_keys))
        found = parses.get(key)
        if found is None:
            if len(parses) > 4096:
                parses.clear()
            found = parses[key] = plain_parse(self, s, dpi, prop, antialiased,
                                              load_glyph_flags)
        return found

    RendererAgg.get_text_width_height_descent = shared(measure, lambda r: r.dpi)
    TextToPath.get_text_width_height_descent = shared(
        TextToPath.get_text_width_height_descent, lambda t: (t.FONT_SCALE, t.DPI))
    MathTextParser._parse_cached = _parse_cached
    return True


@contextlib.contextmanager
def text_measures_shared():
    """``share_text_measures`` for the block only, where a process draws a few figures outside a
    report kernel (the report's own, which draws the index's glance): within it each text is
    measured once, and after it the methods are those before it, so that nothing else in the
    process (a test's figure, whose reference is matplotlib's own) finds them changed. Already
    installed (a report kernel: ``kernels.remember_state``), it is left as it is. Yields whether
    it was installed for the block."""
    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.mathtext import MathTextParser
    from matplotlib.textpath import TextToPath

    places = ((RendererAgg, "get_text_width_height_descent"),
              (TextToPath, "get_text_width_height_descent"), (MathTextParser, "_parse_cached"))
    before = [vars(cls)[name] for cls, name in places]
    installed = share_text_measures()
    try:
        yield installed
    finally:
        if installed:
            for (cls, name), method in zip(places, before):
                setattr(cls, name, method)


@functools.lru_cache(maxsize=1)
def _fonts_digest() -> str:
    """The fonts matplotlib's font manager knows (their files, sorted), hashed: part of
    ``math_vector_layout``'s and ``svg_print``'s keys (a font installed or removed may change
    what a family finds). A font matplotlib ships is named by its path inside matplotlib's data
    folder, not by the virtual environment's folder (the same fonts reached through another
    checkout or a symlinked environment made another key: a trial); other fonts by their
    absolute path, which is the machine's; a font list another matplotlib cache built (fonts
    installed since) is another digest. Files by name, not content."""
    from matplotlib import font_manager

    names = sorted(f"{font_place(f.fname)}|{f.name}|{f.style}|{f.weight}|{f.stretch}|"
                   f"{f.variant}" for f in font_manager.fontManager.ttflist)
    return hashlib.sha256("\n".join(names).encode()).hexdigest()


#: How ``font_place`` names a font file matplotlib ships: this prefix, then its path inside
#: matplotlib's data folder.
MPL_DATA_PLACE = "mpl-data/"


def font_place(fname: str) -> str:
    """A font file's name that does not depend on where the virtual environment lies: a font
    matplotlib ships by its path inside matplotlib's data folder (``MPL_DATA_PLACE`` + that
    path), any other by its absolute path (the machine's). ``font_file`` reverses it."""
    import matplotlib

    mpl_data = Path(matplotlib.get_data_path()).resolve()
    path = Path(fname).resolve()
    return MPL_DATA_PLACE + path.relative_to(mpl_data).as_posix() \
        if path.is_relative_to(mpl_data) else str(path)


def font_file(place: str) -> str:
    """The file ``font_place`` named, in this process's matplotlib (its data folder for a font it
    ships)."""
    import matplotlib

    if place.startswith(MPL_DATA_PLACE):
        return str(Path(matplotlib.get_data_path()) / place[len(MPL_DATA_PLACE):])
    return place


@disk_cached
def math_vector_layout(s: str, dpi, font: tuple, antialiased: bool, load_glyph_flags: int,
                       settings: tuple, versions: str) -> tuple:
    """Matplotlib's math-text layout of ``s`` for vector output (``MathTextParser("path")``,
    what the SVG backend measures and draws math text with: ``VectorParse`` width, height,
    depth, glyphs and rectangles), with each glyph's font given by its file's place
    (``font_place``: a font matplotlib ships by its path inside its data folder, so that the
    layout reads back in another checkout), kept in the disk cache (``core.diskcache``). It
    depends on its arguments only: the text, the resolution, the font properties (``font``:
    family, style, variant, weight, stretch, size, file, math font family, as
    ``FontProperties`` hashes them), the flags, the math-text and
    font settings (``settings``: the values of ``_text_rc_keys`` but ``font.size``, which a
    parse given its font properties does not read: ``share_text_measures``), and
    ``versions`` (matplotlib's, and the fonts it knows: ``_fonts_digest``)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.ft2font import LoadFlags
    from matplotlib.mathtext import MathTextParser

    family, style, variant, weight, stretch, size, file, math_family = font
    prop = FontProperties(family=list(family), style=style, variant=variant, weight=weight,
                          stretch=stretch, size=size, fname=file, math_fontfamily=math_family)
    parser = MathTextParser("path")
    plain = _PLAIN_PARSE.get("parse") or MathTextParser._parse_cached
    plain = getattr(plain, "__wrapped__", plain)
    # the settings are this process's (the caller read them): they enter the key only
    w, h, d, glyphs, rects = plain(parser, s, dpi, prop, antialiased,
                                   LoadFlags(load_glyph_flags))
    return (w, h, d, [(font_place(f.fname), *rest) for f, *rest in glyphs], list(rects))


#: matplotlib's own ``MathTextParser._parse_cached``, kept by ``keep_math_layouts_on_disk``.
_PLAIN_PARSE: dict = {}


def keep_math_layouts_on_disk() -> bool:
    """Make every vector math-text parse of this process (the SVG figures' ``$10^{3}$`` tick
    labels and other math text, which ``share_text_measures`` parses once per process) read its
    layout from the disk cache (``math_vector_layout``), computed once for every process and
    report (report kernels: ``kernels.remember_state``). Math text is laid out by a pyparsing
    grammar, about 3 ms a text: 0.7-0.9 of the 11 CPU-s the default scenario's notebooks take
    in one kernel, paid by each of a report's kernels for the texts it draws. The layout read
    back is the one computed (its numbers pickled), its glyphs' fonts opened again from their
    files (``font_manager.get_font``, matplotlib's own cache of open fonts: the objects a
    parse finds). Raster parses (PNG) and TeX are left as they are. Returns whether it was
    installed now (False: it already was)."""
    import matplotlib as mpl
    from matplotlib.font_manager import get_font
    from matplotlib.mathtext import MathTextParser

    parse = MathTextParser._parse_cached
    try:
        from matplotlib._mathtext import VectorParse
        from matplotlib.ft2font import LoadFlags  # noqa: F401 (math_vector_layout's)
    except ImportError:  # a matplotlib before 3.10
        return False
    if _wrapped_with(parse, "_llmcost_on_disk"):
        return False
    _PLAIN_PARSE.setdefault("parse", getattr(parse, "__wrapped__", parse))
    keys = tuple(k for k in _text_rc_keys() if k != "font.size")
    kept: dict = {}

    @functools.wraps(parse)
    def _parse_cached(self, s, dpi, prop, antialiased, load_glyph_flags):
        if self._output_type != "vector" or prop is None:
            return parse(self, s, dpi, prop, antialiased, load_glyph_flags)
        get = getattr(mpl.rcParams, "_get", mpl.rcParams.__getitem__)
        settings = tuple([tuple(v) if isinstance(v, list) else v for v in map(get, keys)])
        font = (tuple(prop.get_family()), prop.get_style(), prop.get_variant(),
                prop.get_weight(), prop.get_stretch(), prop.get_size(), prop.get_file(),
                prop.get_math_fontfamily())
        flags = getattr(load_glyph_flags, "value", load_glyph_flags)  # an enum.Flag's number
        key = (s, dpi, font, antialiased, flags, settings)
        found = kept.get(key)
        if found is None:
            # the layout names each glyph's font by its place (font_place), opened here where
            # this matplotlib keeps it (a review: a layout that held the absolute path read in a
            # checkout whose environment lay elsewhere opened a path that was not there)
            w, h, d, glyphs, rects = math_vector_layout(
                s, dpi, font, antialiased, flags, settings,
                f"matplotlib {mpl.__version__}; fonts {_fonts_digest()}; glyph fonts by place")
            if len(kept) > 4096:
                kept.clear()
            found = kept[key] = VectorParse(
                w, h, d, [(get_font(font_file(f)), *rest) for f, *rest in glyphs], rects)
        return found

    _parse_cached._llmcost_on_disk = True
    MathTextParser._parse_cached = _parse_cached
    return True


#: The print ``svg_print`` makes when its entry is missing (``keep_svg_prints_on_disk``): the
#: plain ``print_figure``, the canvas and its keywords, set by the caller for the call's length.
_SVG_PRINT = threading.local()

#: The ``print_figure`` keywords' value types a figure's fingerprint reads (``figure_fingerprint``).
_PLAIN_KWARG_TYPES = (str, int, float, bool, type(None))


def _plain_kwarg(v) -> bool:
    if isinstance(v, (tuple, list)):
        return all(_plain_kwarg(x) for x in v)
    if isinstance(v, dict):
        return all(isinstance(k, str) and _plain_kwarg(x) for k, x in v.items())
    return isinstance(v, _PLAIN_KWARG_TYPES)


def figure_fingerprint(fig, kwargs: dict) -> str | None:
    """sha256 of what printing ``fig`` with ``print_figure`` keywords ``kwargs`` reads: the
    figure's whole state (its pickle: every artist, its data, its transforms, its formatters;
    what ``pickle.loads`` would draw again, matplotlib's own guarantee for a pickled figure),
    the keywords, and every matplotlib setting (``rcParams``, which a draw reads). None when the
    figure cannot be pickled (a formatter that is a lambda, say) or a keyword is not plain data
    (``_plain_kwarg``): such a print is not kept. Pickled as ``_stable_states`` has it, so that
    the same figure built by the same code has the same fingerprint in every kernel, and with
    each plain numpy array as its values (``_FingerprintPickler``), so that it has the same
    fingerprint whether its numbers were computed or read back from the disk cache. The pickle
    is hashed as it is written, never held whole."""
    import matplotlib as mpl

    if not all(isinstance(k, str) and _plain_kwarg(v) for k, v in kwargs.items()):
        return None
    h = hashlib.sha256()
    try:
        with _stable_states():
            _FingerprintPickler(_HashWriter(h), protocol=5).dump(fig)
    except Exception:  # noqa: BLE001 (a lambda, a weak reference: printed, not kept)
        return None
    h.update(repr(sorted(kwargs.items())).encode())
    h.update(repr(sorted(dict.items(mpl.rcParams))).encode())
    return h.hexdigest()


class _HashWriter:
    """A file for a pickler that feeds what it writes to the hash ``h``."""

    def __init__(self, h):
        self.write = h.update


def _array_values(a):
    """A plain numpy array ``a`` pickled as its values: its type's text (``dtype.str``: kind,
    byte order, size, a datetime's unit), its shape and its bytes in C order. numpy pickles an
    array with its ``dtype`` object, which the pickle writes once and then refers to (its memo,
    by identity): an array read back from the disk cache (``core.diskcache``) has a dtype object
    of its own, where a computed one shares numpy's, so the same figure pickled otherwise
    (measured on the default scenario: 4 of 68 figures drawn again by the report after the
    first). Arrays of objects, records or sub-arrays are pickled as numpy does."""
    dt = a.dtype
    if dt.hasobject or dt.fields is not None or dt.subdtype is not None:
        return a.__reduce_ex__(5)
    return _array_values, (dt.str, a.shape, a.tobytes())


class _FingerprintPickler(pickle.Pickler):
    """The pickler of a figure's fingerprint: plain numpy arrays as their values
    (``_array_values``), everything else as ``copyreg`` and the classes have it. A fingerprint is
    never unpickled."""

    def __init__(self, file, protocol):
        self.dispatch_table = {**copyreg.dispatch_table, np.ndarray: _array_values}
        super().__init__(file, protocol=protocol)


@contextlib.contextmanager
def _stable_states():
    """Within the block, a pickled transform names its parents in their order, not by their
    ``id()`` (``TransformNode.__getstate__`` keys them by it, which differs in every process),
    and a pickled artist leaves out the memos of this module (``_llmcost_*`` attributes: a
    text's kept layout, ``keep_text_layouts``, holds a print's number and a font's ``hash()``,
    and is never read after that print). An artist's attributes are searched for that prefix
    in one joined string first: most artists have none, and a test of each name took a third
    of a fingerprint's time."""
    from matplotlib.artist import Artist
    from matplotlib.transforms import TransformNode

    plain_transform = TransformNode.__dict__["__getstate__"]
    plain_artist = Artist.__dict__["__getstate__"]

    def transform_state(self):
        return {**self.__dict__, "_parents": [ref() for ref in self._parents.values()]}

    def artist_state(self):
        state = plain_artist(self)
        if "\0_llmcost_" in "\0" + "\0".join(state):
            return {k: v for k, v in state.items() if not k.startswith("_llmcost_")}
        return state

    TransformNode.__getstate__, Artist.__getstate__ = transform_state, artist_state
    try:
        yield
    finally:
        TransformNode.__getstate__, Artist.__getstate__ = plain_transform, plain_artist


@disk_cached
def svg_print(fingerprint: str, versions: str) -> bytes:
    """The SVG bytes of the print whose figure, keywords and settings have the fingerprint
    ``fingerprint`` (``figure_fingerprint``) with matplotlib and its fonts ``versions``, kept
    in the disk cache (``core.diskcache``, whose key also holds the package's code and data, so
    a formatter or a plotting function that changed makes a new entry). Computed, when its
    entry is missing, by the print its caller set (``keep_svg_prints_on_disk``)."""
    plain, canvas, kwargs = _SVG_PRINT.job
    out = io.BytesIO()
    plain(canvas, out, **kwargs)
    return out.getvalue()


def keep_svg_prints_on_disk() -> bool:
    """Make every SVG print of this process to a file object (what the inline backend asks of
    a report kernel's figures: ``kernels.svg_figures``) read its bytes from the disk cache
    (``svg_print``), keyed by the figure's whole state (``figure_fingerprint``): a figure drawn
    by an earlier report, or by the other kernel, is not laid out and drawn again. Measured on
    the default scenario's 68 figures: a second report draws none of them, or one (matplotlib
    shares one unit rectangle among all rectangles, whose steps of interpolation the last
    ``bar`` or ``axvspan`` of the kernel set, so a figure's state may follow the order its
    kernel ran the notebooks in); fingerprinting them takes 0.27 CPU-s, printing them 7.4
    (an array's values enter its fingerprint, not its dtype object: ``_array_values``, which
    made 4 or 5 of them drawn again by the second report). The bytes are those the print wrote,
    so the same SVG; the figure itself is left as it was before the print, which matters only
    to a figure printed again after it (the inline backend closes each figure it shows; no
    report notebook prints one twice). Returns whether it was installed now (False: it already
    was). Installed last, so that it wraps every other print speed-up and the figure's
    description (``kernels.remember_state``)."""
    import matplotlib as mpl
    from matplotlib.backend_bases import FigureCanvasBase

    plain = FigureCanvasBase.print_figure
    if _wrapped_with(plain, "_llmcost_svg_on_disk"):
        return False

    @functools.wraps(plain)
    def print_figure(self, filename, **kwargs):
        key = None
        if kwargs.get("format") == "svg" and isinstance(filename, io.IOBase):
            key = figure_fingerprint(self.figure, kwargs)
        if key is None:
            return plain(self, filename, **kwargs)
        _SVG_PRINT.job = (plain, self, kwargs)
        try:
            svg = svg_print(key, f"matplotlib {mpl.__version__}; fonts {_fonts_digest()}")
        finally:
            _SVG_PRINT.job = None
        filename.write(svg)
        return None

    print_figure._llmcost_svg_on_disk = True
    FigureCanvasBase.print_figure = print_figure
    return True


class LiveFigure:
    """One figure of a widget panel, built once and redrawn in place on every update.

    A panel that made a new pyplot figure per update paid for new axes and ticks, a layout
    solve (constrained layout) and the inline backend's two draws (``bbox_inches="tight"``
    draws once to crop, then again with new renderers, whose math-text tick labels are parsed
    anew every time). Here the axes, their ticks and the renderer are kept: an update removes
    the data artists (``clear``), draws the new ones with the same plot function, and renders
    with the Agg renderer the inline backend uses, at the figure's resolution (``png``), which
    replays the glyphs of a text drawn before at the same place (``_text_caching_canvas``). The
    layout and the crop are solved once, on the first render, as the inline backend solves
    them (constrained layout, then ``bbox_inches="tight"`` with ``savefig.pad_inches``), then
    kept: the picture keeps its size while the controls move.

    ``axes`` is one Axes, or an array of ``ncols`` Axes; with ``twinx``, ``axes_right`` is the
    twin (right-hand y axis) of the single Axes.
    """

    def __init__(self, figsize, ncols: int = 1, twinx: bool = False):
        from matplotlib.figure import Figure

        self.fig = Figure(figsize=figsize, layout="constrained")
        # kept: its renderer (math-text and glyph caches) outlives an update
        _text_caching_canvas()(self.fig)
        self.axes = self.fig.subplots(1, ncols)
        self.axes_right = self.axes.twinx() if twinx else None
        self._bbox_inches = None

    def clear(self):
        """Remove every data artist, legend and inversion, and turn autoscaling back on, on
        every Axes of the figure (twins included); labels, scales and ticks stay."""
        for ax in self.fig.axes:
            for art in [*ax.lines, *ax.patches, *ax.texts, *ax.collections, *ax.images]:
                art.remove()
            ax.containers.clear()
            if ax.legend_ is not None:
                ax.legend_.remove()
            for axis in (ax.xaxis, ax.yaxis):
                if axis.get_inverted():
                    axis.set_inverted(False)
            ax.relim()
            ax.set_autoscale_on(True)

    def png(self) -> bytes:
        """The figure as PNG bytes, as the inline backend renders it (Agg, ``figure.dpi``);
        the first call solves the layout and the crop, later calls keep them."""
        import matplotlib as mpl

        fig = self.fig
        if self._bbox_inches is None:  # solve the layout and the crop once, then keep them
            with ticks_computed_once(fig):
                fig.draw_without_rendering()
                pad = mpl.rcParams["savefig.pad_inches"]
                pad = 0.1 if pad == "layout" else pad
                self._bbox_inches = fig.get_tightbbox(fig.canvas.get_renderer()).padded(pad)
            fig.set_layout_engine(None)  # no layout engine: print_figure draws once
            if fig.get_layout_engine() is not None:  # rcParams ask for one by default
                fig.set_layout_engine("none")
        buf = io.BytesIO()
        with ticks_computed_once(fig):
            fig.canvas.print_figure(buf, format="png", dpi=fig.dpi,
                                    bbox_inches=self._bbox_inches, facecolor=fig.get_facecolor(),
                                    edgecolor=fig.get_edgecolor(),
                                    pil_kwargs={"compress_level": 1})  # same pixels, faster zlib
        return buf.getvalue()

    def image(self):
        """The figure as an ``IPython.display.Image`` to display in a panel's ``Output``."""
        from IPython.display import Image

        return Image(data=self.png(), format="png")


def _source(ax, text: str):
    """The figure's source line at its foot, at ``SMALL_PT``, grey, from the figure's left edge:
    the figure's ``supxlabel``, which matplotlib's constrained layout places at the figure's
    foot and leaves room for below every axes' drawn content (tick labels, axis labels, legends
    below the plot), and the crop to the drawn content (``bbox_inches="tight"``) keeps; each
    line of ``text`` wrapped to the figure's width (about 0.6 em a character), so that it does
    not widen the picture. Tight layout (``readable``) leaves it room too. Returns the
    ``Text``.

    One per figure: a second call replaces the first's text, where the layout left it (a
    widget panel's figure, laid out once, calls it on every update: ``LiveFigure``)."""
    fig = ax.figure
    room = max(40, int(fig.get_figwidth() * 72 / (0.6 * SMALL_PT)))
    text = "\n".join(textwrap.fill(line, room, break_long_words=False) if line else line
                     for line in text.split("\n"))
    placed = fig._supxlabel.get_position()[1] if fig._supxlabel is not None else None
    note = fig.supxlabel(text, x=4 / 72 / fig.get_figwidth(), ha="left", fontsize=SMALL_PT,
                         color="0.4")
    if placed is not None:  # still placed by a layout engine, if the figure has one
        note.set_y(placed)
    note._llmcost_source = True
    return note


def flops_ratio_vs_seq_len(models, seq_lens, ax=None, causal: bool = True):
    """Detailed training FLOPs per token ÷ 6·N_active against sequence length, one line per model.

    Parameters
    ----------
    models : list of ModelSpec
    seq_lens : array of int
        Context lengths (tokens).
    causal : bool
        Attention mask convention of the detailed count.
    """
    ax = _ax(ax)
    s = np.asarray(seq_lens)
    for m in models:
        ratio = np.asarray(m.flops_per_token(s, causal=causal)) / (6.0 * m.n_active_params)
        ax.plot(s, ratio, label=m.name)
    ax.set_xscale("log", base=2)
    ax.axhline(1.0, color="0.5", lw=0.8, ls=":")
    ax.set_xlabel("sequence length (tokens)")
    ax.set_ylabel("detailed FLOPs ÷ 6·N per token")
    mask = "causal mask" if causal else "full s×s mask"
    ax.set_title(f"How far 6ND undercounts as context grows ({mask})")
    ax.legend(fontsize=SMALL_PT)
    _source(ax, "llmcost.model: matmuls from active weights incl. LM head + attention core "
                "per query head; training = 3 × forward")
    return ax


def gpu_hours_vs_mfu(flops: float, peak_flops_per_s: float, mfus, ax=None, marks=(0.3, 0.5),
                     label: str = ""):
    """GPU-hours to execute ``flops`` against MFU (a 1/MFU hyperbola), with marked points."""
    ax = _ax(ax)
    m = np.asarray(mfus, dtype=float)
    hours = flops / (peak_flops_per_s * m) / SECONDS_PER_HOUR
    ax.plot(m, hours, color="C0", label=label or None)
    for mk in marks:
        h = flops / (peak_flops_per_s * mk) / SECONDS_PER_HOUR
        ax.plot([mk], [h], "o", color="C3")
        # the mark's own MFU, its decimal kept (a lecturer read "MFU 10%" at 10.4%)
        ax.annotate(f"MFU {fmt_fraction_pct(mk)}: {fmt_quantity(h)} GPU-h", (mk, h),
                    textcoords="offset points",
                    xytext=(6, 6), fontsize=SMALL_PT)
    ax.set_xlabel("MFU (model FLOPs utilisation)")
    ax.set_ylabel("GPU-hours")
    ax.set_ylim(bottom=0)
    ax.set_title("GPU-hours ∝ 1 / MFU")
    _source(ax, "GPU-hours = C / (peak × MFU × 3600) (llmcost.gpu_hours; Narayanan et al. 2021 "
                "§5.1, arXiv:2104.04473); C and the dense peak as given")
    if label:
        ax.legend(fontsize=SMALL_PT)
    return ax


def bar_h(labels, values, ax=None, xlabel: str = "", title: str = "", log: bool = False,
          reference=None, reference_label: str = "", fmt="{:,.3g}"):
    """Horizontal bars with value labels; optional vertical reference line. ``fmt``: a format
    string of one value, or a function of it (``lambda v: fmt_usd(v * 1e6)`` for amounts in
    millions: "$110M", where "{:,.2g}" printed "1.1e+02")."""
    ax = _ax(ax, figsize=(7, 0.35 * len(labels) + 1.2))
    y = np.arange(len(labels))
    vals = np.asarray(values, dtype=float)
    ax.barh(y, vals, color="C0")
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    if log:
        ax.set_xscale("log")
    for yi, v in zip(y, vals):
        if np.isfinite(v):
            ax.annotate(fmt(v) if callable(fmt) else fmt.format(v), (v, yi), xytext=(3, 0),
                        textcoords="offset points",
                        va="center", fontsize=SMALL_PT)
    if reference is not None:
        ax.axvline(reference, color="C3", ls="--", lw=1, label=reference_label or None)
        if reference_label:
            ax.legend(fontsize=SMALL_PT, loc="lower right")
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    return ax


def implied_mfu(df, ax=None):
    """Implied MFU of published runs: from reported GPU-hours, from throughput, and as reported.

    ``df`` is ``compute.published_run_mfu()``. A run with a whole-run MFU (from its GPU-hours)
    or an MFU its authors reported gets its own bars; the runs known only from a throughput
    (vendors' performance tables: dozens per accelerator) are one strip per accelerator, a tick
    per run (no median: BF16 and FP8 runs share a strip, two clusters on the BF16 basis), so
    that the figure stays a page tall however many table rows the catalogue holds. The MFU
    axis reaches the largest value (an FP8 run may pass 1 on the BF16 basis). Every implied
    figure is on the MFU basis (the detailed count with the full attention matrix, the
    ``*_detailed`` columns), not 6ND, which undercounts long-context runs several-fold (a
    lecturer read NeMo's 1M-token run at 1.3% by 6ND, 54% on the MFU basis).
    """
    named = df["mfu_from_gpu_hours_detailed"].notna() | df["reported_mfu"].notna()
    runs = df[named]
    rest = df[~named & df["mfu_from_throughput_detailed"].notna()]
    strips = list(rest.groupby("accelerator", sort=False)["mfu_from_throughput_detailed"])
    ax = _ax(ax, figsize=(7, 0.4 * (len(runs) + len(strips)) + 1.6))
    y = np.arange(len(runs))
    series = [("mfu_from_gpu_hours_detailed", "whole run, from GPU-hours", "C0"),
              ("mfu_from_throughput_detailed", "steady state, from tokens/s", "C1"),
              ("reported_mfu", "reported by the authors", "C3")]
    h = 0.27
    for i, (col, lab, color) in enumerate(series):
        vals = runs[col].to_numpy(dtype=float)
        ax.barh(y + (i - 1) * h, np.nan_to_num(vals), height=h, color=color, label=lab)
    labels = list(runs["run_id"])
    for j, (acc, vals) in enumerate(strips):
        row = len(runs) + j
        ax.scatter(vals, np.full(len(vals), row), marker="|", s=160, color="C1", alpha=0.7,
                   label=None if j else "steady state, runs known only from tokens/s "
                                        "(a tick each)")
        labels.append(f"{acc}: {len(vals)} runs")
    ax.set_yticks(np.arange(len(labels)), labels)
    ax.set_ylim(len(labels) - 0.5, -0.5)   # first row on top, no empty margin rows
    ax.set_xlabel("MFU (fraction of dense BF16 peak; MFU basis: full-mask count)")
    top = np.nanmax(df[[c for c, _, _ in series]].to_numpy(dtype=float), initial=0.0)
    ax.set_xlim(0, max(0.7, 1.05 * top))
    ax.set_title("Implied MFU of published training runs")
    ax.legend(fontsize=SMALL_PT, loc="lower right")
    _source(ax, "data/published_runs.csv (sources per row); peaks from data/accelerators.csv")
    return ax


#: Column names of the package's tables in a reader's words (``table(..., words=COLUMN_WORDS)``):
#: notebook 09's lever, false-economy and hardware tables (``levers.hardware_sweep`` columns).
COLUMN_WORDS = {
    "lever": "lever", "group": "group", "saving_usd": "saving", "saving_p10_usd": "saving, P10",
    "saving_p50_usd": "saving, P50", "saving_p90_usd": "saving, P90",
    "share_of_bill": "share of the bill", "gpu_hours_saved": "GPU-hours saved",
    "days_saved": "days saved", "within_uncertainty": "may save nothing (P10–P90 spans 0)",
    "risk": "risk", "assumptions": "assumptions", "note": "note", "recompute": "recomputation",
    "plan": "plan", "false economy": "false economy", "apparent_saving_usd": "apparent saving",
    "net_saving_usd": "net saving", "loss_if_it_happens_usd": "loss if it happens",
    "break_even_probability": "break-even probability",
    "sourced_probability": "sourced probability", "probability_source": "probability source",
    "how": "how", "accelerator": "accelerator", "predicted_mfu": "predicted MFU",
    # "the sweep's MFU", not "the MFU billed": a lecturer read the bill's own MFU there
    "mfu": "the sweep's MFU (the prediction's central estimate; on the pilots' hardware, their "
           "calibration: basis of the sweep's MFU)",
    "billed_mfu_basis": "basis of the sweep's MFU", "mfu_basis": "basis of the calibrated MFU",
    "rollout_tp": "RL rollout TP", "plan_basis": "parallel plan",
    "price_basis": "price basis", "price_usd_per_gpu_hour": "price per accelerator-hour",
    "bill_usd": "bill at the sweep's MFU", "bill_low_usd": "bill, low end (MFU band high)",
    "bill_high_usd": "bill, high end (MFU band low)",
    "bill_calibrated_usd": "bill at the scenario's MFU × the predicted ratio (central "
                           "estimates)",
    "days": "days (main run, at the sweep's MFU)", "scenario": "this scenario's hardware",
    "calibrated_mfu": "calibrated MFU", "mfu_ceiling": "best comparable published MFU",
    "mfu_check": "MFU check", "price_available": "price buyable", "rankable": "rankable",
    # notebook 05's RL tables (``rl.RLIteration.parts``, ``rl.scenario_variants``) and its
    # chunked-prefill table (``setups.chunked_prefill_budgets``)
    "part": "part", "gpu_s": "GPU-seconds", "gpu_hours": "GPU-hours",
    "share": "share of the GPU-time", "usd": "USD", "wall_s": "wall time per iteration (s)",
    "usd_per_iteration": "USD per iteration",
    "generation_time_share": "generation's share of the time",
    "tail_share": "tail's share of the time", "idle_share": "idle share of the GPU-time",
    "token_budget": "token budget per step", "chunks": "prefill chunks",
    "tpot_during_prefill_s": "time per output token during the prefill",
    "decode_stall_unchunked_s": "decode stall without chunking",
    "expected_ttft_s": "expected TTFT", "expected_ttft_unchunked_s": "expected TTFT unchunked",
    "expected_speedup": "expected speed-up",
    # notebook 03's plan tables (``parallel.plan_table``, ``parallel.scaling_frontier``)
    "memory_gb": "memory per GPU (GB)", "bubble_fraction": "pipeline bubble",
    "min_memory": "least memory", "min_bubble": "smallest bubble",
    # scaling_frontier's counts are of plans with TP inside the scale-up domain (a trial read
    # its 20,328 beside notebook 03's 31,734 valid plans of every TP)
    "n_valid": "valid plans, TP in the scale-up domain", "n_fitting": "of them, plans that fit",
    "min_memory_gb": "least memory per GPU (GB)",
    "best_plan": "first plan (smallest bubble, then least recomputation)",
    # notebook 07's hot spares (``reliability.hot_spare_table``)
    "spare_gpus": "spare GPUs", "restart_s": "restart (s)", "n_gpus": "GPUs",
    "cost_per_kept_gpu_hour": "paid GPU-hours per useful one", "vs_no_spares": "vs no spares"}


def signed_tenths(value) -> str:
    """A signed figure to one decimal for a table cell ("+1.2", "-0.3"), "0.0" where it rounds
    to zero (Python's "{:+.1f}" writes −0.01 as "-0.0", read as a loss), "–" for NaN."""
    v = float(value)
    if v != v:
        return "–"
    return "0.0" if round(v, 1) == 0 else f"{v:+.1f}"


def table(df, formats=None, precision: int = 3, index: bool = False, na_rep: str = "–",
          row_style=None, words: dict | None = None):
    """A DataFrame as a formatted HTML table for notebooks and reports.

    Unlike a bare ``Styler``, the markup is stable (ids derive from the columns and shape, not a
    random uuid, and no object address appears), so re-executing a notebook does not churn its
    diff.

    Parameters
    ----------
    df : DataFrame
    formats : dict or str, optional
        ``Styler.format`` formatter(s), e.g. ``{"cost": "${:,.0f}"}``.
    precision : int
        Digits for floats without a formatter.
    index : bool
        Show the index.
    row_style : callable, optional
        ``Styler.apply(row_style, axis=1)``: a row -> list of CSS strings, to highlight rows.
    words : dict, optional
        Column names in a reader's words (e.g. ``COLUMN_WORDS``); ``formats`` keeps the
        columns' own names, and a True/False column reads "yes"/"no".

    The markup is kept in the disk cache (``table_html``), keyed by the table, these
    arguments and pandas' ``styler.*`` options: a table an earlier report showed is read back,
    not rendered again (the default scenario's 96 tables: 0.30 CPU-s of its kernels' time,
    0.23 of it ``Styler.to_html``). A ``formats`` or ``row_style`` that is a module-level
    function of the package (``signed_tenths``, ``levers.break_even_words``) is keyed by its
    name; any other function (a lambda, a notebook's own) is not part of a key: such a table is
    rendered every time.
    """
    from IPython.display import HTML

    options = tuple((k, pd.get_option(k)) for k in STYLER_OPTIONS)
    return HTML(table_html(df, formats, precision, index, na_rep, row_style, words, options))


#: The pandas options ``Styler`` reads when it formats and renders (``table_html``'s key).
STYLER_OPTIONS = ("styler.format.decimal", "styler.format.escape", "styler.format.formatter",
                  "styler.format.na_rep", "styler.format.precision", "styler.format.thousands",
                  "styler.html.mathjax", "styler.render.encoding", "styler.render.max_columns",
                  "styler.render.max_elements", "styler.render.max_rows",
                  "styler.sparse.columns", "styler.sparse.index")


@disk_cached
def table_html(df, formats, precision: int, index: bool, na_rep: str, row_style, words,
               options: tuple) -> str:
    """``table``'s markup (its arguments, and ``options``: the ``STYLER_OPTIONS`` in force,
    as (name, value) pairs, part of the disk cache's key), kept in the disk cache. A
    ``row_style`` reads a row by the columns' own names, ``words`` or not."""
    if words and row_style is not None:
        back = {words.get(c, c): c for c in df.columns}
        row_style = functools.partial(_row_by_own_names, row_style, back)
    if words:
        df = df.copy()
        flags = {c: lambda x: "yes" if x else "no" for c in df.columns
                 if len(df) and df[c].map(lambda x: isinstance(x, (bool, np.bool_))).all()}
        formats = {**flags, **(formats if isinstance(formats, dict) else {})} \
            if isinstance(formats, dict) or formats is None else formats
        if isinstance(formats, dict):
            formats = {words.get(k, k): v for k, v in formats.items()}
        df = df.rename(columns=words)
    if index and df.index.nlevels == 1 and df.index.name is not None \
            and df.columns.nlevels == 1 and df.columns.name is None:
        # one named index: its name heads the index column in the header row, not a second
        # header row of its own (a trial read a stray "name" row under notebook 06's header)
        df = df.copy()
        df.columns.name, df.index.name = (words or {}).get(df.index.name, df.index.name), None
    sty = df.style.format(_small_aware(formats), precision=precision, na_rep=na_rep)
    if row_style is not None:
        sty = sty.apply(row_style, axis=1)
    if not index:
        sty = sty.hide(axis="index")
    key = hashlib.sha1(f"{list(df.columns)}{df.shape}".encode()).hexdigest()[:8]
    return sty.set_uuid(key).to_html()


def whole_usd(v) -> str:
    """A USD amount as ``"${:,.0f}"`` writes it from $100 up ("$623,963"), to the cent below
    ("$48.32", "$0.14": a $48 bill's checkpoint line read "$0"); zero as "$0"."""
    try:
        x = float(v)
    except (TypeError, ValueError):
        return str(v)
    return f"${x:,.0f}" if x == 0 or not abs(x) < 100 else f"${x:,.2f}"


def whole_quantity(v) -> str:
    """A quantity as ``units.fmt_quantity`` writes it: as ``"{:,.0f}"`` from 100 up ("623,963"
    GPU-hours), three significant figures below ("8.46", where a 1-GPU run read "8")."""
    try:
        x = float(v)
    except (TypeError, ValueError):
        return str(v)
    return fmt_quantity(x) if np.isfinite(x) else f"{x:,.0f}"


#: The whole-number formats ``table`` reads as their small-amount-aware functions.
_SMALL_AWARE = {"${:,.0f}": whole_usd, "{:,.0f}": whole_quantity}


def _small_aware(formats):
    """``formats`` with its whole-number format strings as ``whole_usd`` / ``whole_quantity``
    (which write them alike from 100 up, and keep the digits of a small run below)."""
    if isinstance(formats, str):
        return _SMALL_AWARE.get(formats, formats)
    if isinstance(formats, dict):
        return {k: _SMALL_AWARE.get(v, v) if isinstance(v, str) else v
                for k, v in formats.items()}
    return formats


def _row_by_own_names(row_style, back: dict, row):
    """``row_style`` of ``row`` with its labels set back to the columns' own names."""
    return row_style(row.rename(back))


#: ``accuracy.regime_table``'s columns notebook 04b shows, in a reader's words (``regime_bands``).
REGIME_WORDS = {
    "regime": "regime", "n": "held-out runs", "n_calibration": "calibration runs",
    "mean_abs_error": "mean |error|", "max_abs_error": "max |error|",
    "center": f"band centre: median signed error (shrunk below {MIN_CONFORMAL_ROWS} runs)",
    "half_width": "band half-width",
    "conformal": f"measured band (≥ {MIN_CONFORMAL_ROWS} runs)",
    "coverage": "leave-one-out coverage"}


def regime_bands(regimes):
    """``accuracy.regime_table`` as notebook 04b's table: one row per regime, the columns of
    ``REGIME_WORDS`` in its words, errors and centre as percentages (the centre signed), the
    half-width as ±, ``conformal`` as yes/no. Presentation only: every figure is the table's
    (its docstring gives each one's rule)."""
    rows = regimes.reset_index().assign(
        conformal=lambda t: t["conformal"].map({True: "yes", False: "no"}))
    formats = {"mean_abs_error": "{:.1%}", "max_abs_error": "{:.1%}", "center": "{:+.1%}",
               "half_width": "±{:.1%}", "coverage": "{:.0%}"}
    return table(rows[list(REGIME_WORDS)].rename(columns=REGIME_WORDS),
                 {REGIME_WORDS[k]: f for k, f in formats.items()})


# ------------------------------------------------------------------------------ notebook 07
def mtbf_vs_gpus(n_gpus, curves: dict, points=(), ax=None):
    """Job MTBF (hours) against GPU count for per-GPU failure rates, log-log.

    Parameters
    ----------
    n_gpus : array of int
    curves : dict
        label -> failures per GPU-year (M = 1 / (n·λ), ``reliability.cluster_mtbf_s``).
    points : iterable of (n_gpus, hours, label)
        Reported or measured MTBFs to mark.
    """
    ax = _ax(ax)
    n = np.asarray(n_gpus, dtype=float)
    for i, (label, rate) in enumerate(curves.items()):
        ax.plot(n, np.asarray(cluster_mtbf_s(n, rate)) / SECONDS_PER_HOUR, color=f"C{i}",
                label=f"{label} ({rate:.3g} per GPU-year)")
    for j, (x, hours, label) in enumerate(points):
        ax.plot([x], [hours], "o", color="C3", ms=6)
        ax.annotate(label, (x, hours), textcoords="offset points", xytext=(6, 4 - 12 * (j % 2)),
                    fontsize=11)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("GPUs in the job")
    ax.set_ylabel("job MTBF (hours)")
    ax.set_title("A synchronous job fails when any GPU does: MTBF = 1 / (n·λ)")
    ax.legend(fontsize=11)
    ax.grid(True, which="major", alpha=0.3)
    _source(ax, "Llama 3: arXiv:2407.21783 §3.3.4; Kokolis et al. 2024, arXiv:2410.21680 "
                "(8 GPUs per node)")
    return ax


def waste_vs_interval(intervals_s, checkpoint_s: float, mtbf_s: float, restart_s: float = 0.0,
                      ax=None):
    """Wasted fraction of wall-clock time against the checkpoint interval, with Young's,
    Daly's and the exact optimum marked (``reliability.waste_fraction`` and the first-order
    ``waste_fraction_first_order``)."""
    ax = _ax(ax)
    t = np.asarray(intervals_s, dtype=float)
    exact = np.asarray(rel.waste_fraction(t, checkpoint_s, mtbf_s, restart_s))
    first = np.asarray(rel.waste_fraction_first_order(t, checkpoint_s, mtbf_s, restart_s))
    ax.plot(t / 60, exact, color="C0", label="exact (Daly's complete model)")
    ax.plot(t / 60, first / (1 + first), color="C0", ls=":",
            label="first order δ/τ + (τ/2 + R)/M, as a share of wall time")
    marks = [("Young √(2δM)", rel.young_interval(checkpoint_s, mtbf_s), "C1"),
             ("Daly", rel.daly_interval(checkpoint_s, mtbf_s), "C2"),
             ("exact optimum", rel.optimal_interval(checkpoint_s, mtbf_s), "C3")]
    for k, (label, tau, color) in enumerate(marks):
        w = float(rel.waste_fraction(tau, checkpoint_s, mtbf_s, restart_s))
        ax.plot([tau / 60], [w], "o", color=color, ms=7 - 2 * k,
                label=f"{label}: τ = {tau / 60:.1f} min, waste {w:.2%}")
    ax.set_xscale("log")
    ax.set_xlabel("checkpoint interval τ (minutes of compute)")
    ax.set_ylabel("wasted share of wall-clock time")
    ax.set_ylim(0, min(1.0, max(0.05, float(np.nanmax(exact[np.isfinite(exact)])) * 1.05)))
    ax.set_title(f"How often to checkpoint? δ = {checkpoint_s:.3g} s, "
                 f"M = {mtbf_s / SECONDS_PER_HOUR:.3g} h, R = {restart_s / 60:.3g} min")
    ax.legend(fontsize=11)
    _source(ax, "Young 1974 (CACM 17(9)); Daly 2006 (FGCS 22(3)); exponential failures; "
            "planned interruptions not included")
    return ax


def goodput_waterfall(df, ax=None, unit: str = "GPU-hours", scale: float | None = None,
                      scale_label: str | None = None):
    """Waterfall from ideal to paid GPU-hours (``reliability.run_reliability``), in
    ``scale`` (default: the power of 1,000 that fits the paid hours, ``usd_scale``)."""
    ax = _ax(ax, figsize=(7, 3.6))
    parts = df[df["line"] != "paid"]
    paid = float(df.loc[df["line"] == "paid", "gpu_hours"].iloc[0])
    scale = _scale_of(scale, paid)
    if scale_label is None:
        scale_label = "" if scale == 1.0 else scale_words(scale)
    x = np.arange(len(parts) + 1)
    bottom = 0.0
    for i, (label, h) in enumerate(zip(parts["line"], parts["gpu_hours"])):
        ax.bar(i, h / scale, bottom=bottom / scale, color="C0" if i == 0 else "C3")
        ax.annotate(f"{h / scale:,.3g}", (i, (bottom + h) / scale), ha="center",
                    va="bottom", fontsize=11, textcoords="offset points", xytext=(0, 2))
        bottom += h
    ax.bar(len(parts), paid / scale, color="0.4")
    ax.annotate(f"{paid / scale:,.3g}", (len(parts), paid / scale), ha="center", va="bottom",
                fontsize=11, textcoords="offset points", xytext=(0, 2))

    ax.set_xticks(x, [textwrap.fill(s, 13, break_long_words=False) for s in [*parts["line"], "paid"]], fontsize=11)
    ax.set_ylabel(f"{unit} ({scale_label})" if scale_label else unit)
    ideal = float(parts["gpu_hours"].iloc[0])
    # zoom on the losses: they are a few percent; none (a failure-free job): from zero
    lo = max(0.0, ideal - 1.5 * (paid - ideal)) if paid > ideal else 0.0
    ax.set_ylim(lo / scale, (paid + 0.35 * (paid - lo)) / scale)
    if lo > 0:
        ax.annotate("y axis does not start at zero", xy=(0, 1), xycoords="axes fraction",
                    xytext=(4, -4), textcoords="offset points", ha="left", va="top",
                    fontsize=10, color="0.4")
    ax.set_title(f"From ideal to paid {unit}: goodput {df.attrs.get('goodput', float('nan')):.1%}")
    _source(ax, "llmcost.reliability.run_reliability: paid = ideal ÷ goodput; checkpoints every "
                "τ (Young 1974, Daly 2006), exponential failures at the job's MTBF, planned "
                "interruptions at Llama 3's rate (arXiv:2407.21783 §3.3.4) unless given")
    return ax


def steps_vs_tokens(marks=(0.125, 0.25, 0.5, 1, 2, 4, 8), plan_ratio=None, ax=None):
    """McCandlish et al. 2018's trade-off: S/S_min against E/E_min as B/B_noise varies, with the
    critical batch (B = B_noise: 2·S_min, 2·E_min) and optionally the plan marked. A dot per
    ratio in ``marks``, every other one labelled (on the curve's flat tail the labels of
    neighbours would overlap)."""
    ax = _ax(ax, figsize=(6, 4.5))
    r = np.geomspace(1 / 64, 64, 400)
    ax.plot(tokens_to_target(r, 1, 1), steps_to_target(r, 1, 1), color="C0")
    for k in marks:
        e, s = tokens_to_target(k, 1, 1), steps_to_target(k, 1, 1)
        ax.plot([e], [s], "o", color="C0", ms=4)
        if k in marks[::2]:  # every other mark named: neighbours on the flat tail overlap
            ax.annotate(f"B = {k:g}·B_noise", (e, s), xytext=(5, 3), textcoords="offset points",
                        fontsize=SMALL_PT)
    ax.plot([2], [2], "*", color="C3", ms=14, label="critical batch: 2·S_min steps, 2·E_min tokens")
    if plan_ratio is not None:
        ax.plot([tokens_to_target(plan_ratio, 1, 1)], [steps_to_target(plan_ratio, 1, 1)], "D",
                color="C2", ms=8, label=f"the plan (B = {plan_ratio:.2f}·B_noise)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("tokens to reach the target ÷ E_min  (compute)")
    ax.set_ylabel("optimizer steps ÷ S_min  (time)")
    ax.set_title("Steps against tokens: (S/S_min − 1)(E/E_min − 1) = 1")
    ax.legend(fontsize=SMALL_PT, loc="upper right")
    _source(ax, "McCandlish et al. 2018, An Empirical Model of Large-Batch Training, §2")
    return ax


LABELLED_RUNS = ("gpt3-175b", "opt-175b", "llama1-7b", "llama2-70b", "bloom-176b", "llama3-405b")


def critical_batch_vs_loss(losses, runs=None, ax=None, labels=LABELLED_RUNS):
    """Kaplan et al. 2020's B_crit(L) against loss, with published runs' final batches at the loss
    each reaches on Kaplan's scale (``batch.published_batch_comparison``); runs in ``labels`` are
    named."""
    ax = _ax(ax)
    loss = np.asarray(losses, dtype=float)
    ax.plot(loss, kaplan_critical_batch(loss), color="C0", label="B_crit(L) = 2e8 / L^(1/0.21)")
    if runs is not None:
        ax.scatter(runs["kaplan_loss"], runs["global_batch_tokens"], color="C3", s=18, zorder=3,
                   label="batch the run used (at its final loss)")
        for r in runs.itertuples():
            if r.run_id in labels:
                ax.annotate(r.run_id, (r.kaplan_loss, r.global_batch_tokens), fontsize=SMALL_PT,
                            xytext=(3, -9), textcoords="offset points")
    ax.set_yscale("log")
    ax.invert_xaxis()
    ax.set_xlabel("loss reached (nats per token, Kaplan's WebText2 scale) → training progresses")
    ax.set_ylabel("batch (tokens per step)")
    ax.set_title("The critical batch grows as the loss falls")
    ax.legend(fontsize=SMALL_PT)
    _source(ax, "Kaplan et al. 2020 Eq. 5.3 and 5.6; batches from data/published_runs.csv")
    return ax


def batch_time_and_gpu_hours(sweep, b_noise_tokens, plan_tokens, fill_tokens=None, axes=None,
                             elastic=None):
    """Wall-clock and reserved GPU-hours to reach the target against the global batch, one line
    per cluster size in ``sweep`` (``batch.batch_sweep``), with B_noise and the plan marked, both
    on log axes; the plan's batch and ``fill_tokens`` (the batch that fills the scenario's GPUs)
    one line, labelled as both, when they are within 2% of each other.

    ``elastic`` (optional): a sweep whose GPU count grows with the batch (every GPU busy), drawn
    in black: the lower envelope of time, and pure compute in GPU-hours.
    """
    if axes is None:
        import matplotlib.pyplot as plt

        _, axes = plt.subplots(1, 2, figsize=(11, 4), layout="constrained")
    ax_t, ax_h = axes
    if elastic is not None:
        e = elastic.sort_values("batch_tokens")
        for ax, col in ((ax_t, "wall_clock_days"), (ax_h, "reserved_gpu_hours")):
            ax.plot(e.batch_tokens, e[col], color="k", lw=2.5, alpha=0.35,
                    label="GPUs grow with the batch")
    for i, (n, g) in enumerate(sweep.groupby("n_gpus")):
        g = g.sort_values("batch_tokens")
        lab = f"{fmt_gpus(n)}"
        ax_t.plot(g.batch_tokens, g.wall_clock_days, color=f"C{i}", label=lab)
        ax_h.plot(g.batch_tokens, g.reserved_gpu_hours, color=f"C{i}", label=lab)
    # the plan's batch and the one that fills the scenario's GPUs drawn as one line when they
    # coincide (within 2%: a 405B plan's 16.8M tokens fill its 16,384 GPUs), so both are seen
    same = fill_tokens is not None and abs(fill_tokens / plan_tokens - 1) <= 0.02
    for ax in axes:
        ax.set_xscale("log")
        ax.axvline(b_noise_tokens, color="C3", ls="--", lw=1, label="B_noise (critical batch)")
        ax.axvline(plan_tokens, color="0.3", ls=":", lw=1.5 if same else 1,
                   label="the plan's batch, which fills the scenario's GPUs" if same
                   else "the plan's batch")
        if fill_tokens is not None and not same:
            ax.axvline(fill_tokens, color="C2", ls="-.", lw=0.8,
                       label="fills the scenario's GPUs")
        ax.set_xlabel("global batch (tokens per step)")
    ax_t.set_yscale("log")
    ax_t.set_ylabel("wall-clock to the target (days)")
    ax_t.set_title("Time to the target")
    ax_h.set_ylabel("GPU-hours reserved (busy + idle, log scale)")
    # log: the largest cluster's idle hours at small batches run to 100x the run's own (a 405B
    # run's 3e7 beside 65,536 GPUs' 2.8e9), and a linear axis from 0 flattens the run onto it
    ax_h.set_yscale("log")
    ax_h.set_title("GPU-hours to the target")
    ax_h.legend(fontsize=SMALL_PT)
    _source(ax_t, "McCandlish et al. 2018 trade-off; Kaplan et al. 2020 B_crit; llmcost.compute "
                  "GPU-hours at a fixed MFU")
    return axes


def roofline_vs_tokens(tokens, curves: dict, ridge: float, marks: dict | None = None, ax=None):
    """Attainable fraction of peak on the weight matmuls against tokens per micro-batch, one line
    per label in ``curves`` (``batch.matmul_utilisation``), with the ridge point and marks."""
    ax = _ax(ax)
    t = np.asarray(tokens, dtype=float)
    for i, (label, u) in enumerate(curves.items()):
        ax.plot(t, u, color=f"C{i}", label=label)
    ax.axvline(ridge, color="0.5", ls=":", lw=1, label=f"ridge point ≈ {ridge:.0f} FLOP/byte")
    for label, (x, y) in (marks or {}).items():
        ax.plot([x], [y], "o", color="C3")
        ax.annotate(label, (x, y), xytext=(5, -12), textcoords="offset points", fontsize=SMALL_PT)
    ax.set_xscale("log")
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("tokens per micro-batch each weight matrix sees (micro-batch × sequence)")
    ax.set_ylabel("attainable fraction of peak (roofline bound)")
    ax.set_title("Small micro-batches leave the matmuls memory-bound")
    ax.legend(fontsize=SMALL_PT, loc="lower right")
    _source(ax, "Williams et al. 2009 roofline; I = 2·t·d_in·d_out/(2·(t·d_in + d_in·d_out + "
                "t·d_out)); peaks and HBM bandwidth from data/accelerators.csv")
    return ax


def activation_vs_micro_batch(micro_batches, curves: dict, hbm_bytes: float, ax=None):
    """Activation bytes per GPU against micro-batch size (``batch.activation_bytes_per_gpu``,
    i.e. ``llmcost.memory``), one line per label, with the GPU's HBM capacity."""
    ax = _ax(ax)
    b = np.asarray(micro_batches)
    for i, (label, byts) in enumerate(curves.items()):
        ax.plot(b, np.asarray(byts) / 1e9, "o-", color=f"C{i}", label=label, ms=4)
    ax.axhline(hbm_bytes / 1e9, color="C3", ls="--", lw=1, label="HBM capacity")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("micro-batch (sequences)")
    ax.set_ylabel("activation memory per GPU (GB)")
    ax.set_title("Activation memory grows linearly with the micro-batch")
    ax.legend(fontsize=SMALL_PT)
    _source(ax, "llmcost.memory (Korthikanti et al. 2022 Table 2 generalised to GQA, gated FFN, "
                "MoE); first pipeline stage under 1F1B; weights and optimizer states excluded")
    return ax


def published_batches(df, ax=None, labels=LABELLED_RUNS):
    """Published runs' global batch against the Kaplan and DeepSeek estimates, by compute
    (``batch.published_batch_comparison``); runs in ``labels`` are named."""
    ax = _ax(ax, figsize=(7, 4.5))
    c = df["compute_flops"]
    ax.scatter(c, df["global_batch_tokens"], color="C3", label="batch used (final)", zorder=3)
    ax.scatter(c, df["kaplan_b_crit_tokens"], marker="x", color="C0",
               label="Kaplan B_crit at the run's final loss")
    ax.scatter(c, df["deepseek_b_opt_tokens"], marker="^", color="C2",
               label="DeepSeek LLM B_opt(C)")
    for r in df.itertuples():
        if r.run_id in labels:
            ax.annotate(r.run_id, (r.compute_flops, r.global_batch_tokens), fontsize=SMALL_PT,
                        xytext=(3, -10), textcoords="offset points")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("compute C = M·D (FLOPs, DeepSeek's convention)")
    ax.set_ylabel("batch (tokens per step)")
    ax.set_title("What published runs used against the critical-batch estimates")
    ax.legend(fontsize=SMALL_PT)
    _source(ax, "data/published_runs.csv; Kaplan et al. 2020 Eq. 5.3/5.6; DeepSeek LLM Eq. 1")
    return ax


def exposed_comm_vs_batch(df, ax=None):
    """Share of a step the gradient all-reduce takes if not overlapped, against the global batch
    (``batch.dp_gradient_sync``)."""
    ax = _ax(ax, figsize=(6, 3.5))
    ax.plot(df["global_batch_tokens"], df["exposed_fraction"], "o-", ms=3)
    ax.set_xscale("log")
    ax.set_ylim(0, 1)
    ax.set_xlabel("global batch (tokens per step)")
    ax.set_ylabel("all-reduce share of the step (no overlap)")
    ax.set_title("More tokens per step amortise the gradient all-reduce")
    _source(ax, "ring all-reduce, bandwidth term, per-GPU scale-out bandwidth (Patarasuk & Yuan 2009; Thakur et al. 2005)")
    return ax


PART_COLORS = {
    "weights": "#4C72B0", "gradients": "#55A868", "master_weights": "#8172B2",
    "optimizer_states": "#C44E52", "zero3_buffer": "#CCB974", "activations": "#DD8452",
    "activation_working_set": "#F1B27A", "embedding_and_logits": "#937860",
}


def parallelism_pictures(axes=None):
    """One small picture per way of splitting a model over 4 GPUs: DP, TP, PP, EP and CP.

    Each box is a GPU; the four bars inside are the model's four layers (grey: a full copy of a
    layer; coloured: the part this GPU holds); the strip underneath is the data it processes.
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    if axes is None:
        _, axes = plt.subplots(1, 5, figsize=(16, 4.8), layout="constrained")
    colors = ["#4C72B0", "#DD8452", "#55A868", "#C44E52"]
    titles = {
        "DP": "Data parallel\nfull copy each, own data",
        "TP": "Tensor parallel\n1/4 of every matrix, same data",
        "PP": "Pipeline parallel\n1/4 of the layers each",
        "EP": "Expert parallel\n2 of 8 experts each",
        "CP": "Context parallel\n1/4 of each sequence",
    }
    for ax, kind in zip(axes, titles):
        ax.set_xlim(0, 4)
        ax.set_ylim(-1.2, 5.0)
        ax.axis("off")
        ax.set_title(titles[kind], fontsize=13)
        for g in range(4):
            x0 = g + 0.08
            ax.add_patch(Rectangle((x0, -0.05), 0.84, 4.3, fill=False, lw=1, ec="0.3"))
            ax.text(g + 0.5, 4.3, f"GPU {g}", ha="center", va="bottom", fontsize=10)
            for layer in range(4):
                y = 0.2 + layer
                if kind in ("DP", "CP"):
                    ax.add_patch(Rectangle((x0 + 0.08, y), 0.68, 0.7, color="0.6"))
                elif kind == "TP":
                    ax.add_patch(Rectangle((x0 + 0.08, y), 0.68, 0.7, fill=False, ec="0.8"))
                    ax.add_patch(Rectangle((x0 + 0.08 + g * 0.17, y), 0.17, 0.7,
                                           color=colors[g]))
                elif kind == "PP":
                    if layer == g:
                        ax.add_patch(Rectangle((x0 + 0.08, y), 0.68, 0.7, color=colors[g]))
                elif kind == "EP":
                    if layer % 2 == 0:  # attention: replicated (data-parallel)
                        ax.add_patch(Rectangle((x0 + 0.08, y), 0.68, 0.7, color="0.6"))
                    else:               # MoE layer: 8 experts, 2 on this GPU
                        for e in range(8):
                            held = e // 2 == g
                            ax.add_patch(Rectangle((x0 + 0.08 + e * 0.085, y), 0.08, 0.7,
                                                   color=colors[g] if held else "0.92"))
            # the data this GPU sees
            if kind in ("DP", "EP"):
                ax.add_patch(Rectangle((x0 + 0.08, -0.9), 0.68, 0.5, color=colors[g], alpha=0.5))
                ax.text(g + 0.5, -0.65, f"batch {g}", ha="center", va="center", fontsize=10)
            elif kind == "CP":
                for c in range(4):
                    ax.add_patch(Rectangle((x0 + 0.08 + c * 0.17, -0.9), 0.17, 0.5,
                                           color=colors[c] if c == g else "0.92"))
            else:
                ax.add_patch(Rectangle((x0 + 0.08, -0.9), 0.68, 0.5, color="0.75"))
                ax.text(g + 0.5, -0.65, "batch 0", ha="center", va="center", fontsize=10)
        if kind == "PP":
            for g in range(3):
                ax.annotate("", xy=(g + 1.15, 1.55 + g), xytext=(g + 0.85, 0.55 + g),
                            arrowprops=dict(arrowstyle="->", color="0.2", lw=0.8))
    return axes


def memory_stack(table, hbm_bytes=None, usable_bytes=None, ax=None, title: str = "",
                 horizontal: bool = True, labels: bool = True, legend: bool = True,
                 source: bool = True):
    """Stacked bars of per-GPU memory parts (GB), one bar per row of ``table`` (columns =
    ``memory.PARTS``), with the HBM capacity and the usable capacity after the reserve.
    ``labels``, ``legend`` and ``source`` switch off the bar labels, legend and source line (for
    panels that share them)."""
    ax = _ax(ax, figsize=(8, 0.42 * len(table) + 1.6) if horizontal else (8, 4))
    pos = np.arange(len(table))
    left = np.zeros(len(table))
    for part in memory.PARTS:
        vals = table[part].to_numpy(dtype=float) / 1e9
        if not np.any(vals > 0):
            continue
        lab = part.replace("_", " ")
        if horizontal:
            ax.barh(pos, vals, left=left, color=PART_COLORS[part], label=lab)
        else:
            ax.bar(pos, vals, bottom=left, color=PART_COLORS[part], label=lab)
        left += vals
    line = ax.axvline if horizontal else ax.axhline
    if hbm_bytes:
        line(hbm_bytes / 1e9, color="k", lw=1, label=f"HBM {hbm_bytes / 1e9:.0f} GB")
    if usable_bytes:
        line(usable_bytes / 1e9, color="k", lw=1, ls="--", label="usable after reserve")
    names = [str(i) for i in table.index]
    if horizontal:
        ax.set_yticks(pos, names)
        ax.tick_params(labelleft=labels)
        ax.invert_yaxis()
        ax.set_xlabel("memory per GPU (GB), most loaded stage")
    else:
        ax.set_xticks(pos, names, rotation=45, ha="right")
        ax.set_ylabel("memory per GPU (GB)")
    ax.set_title(title)
    if legend:
        ax.legend(fontsize=10, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    if source:
        _source(ax, "llmcost.memory: ZeRO (Rajbhandari et al. 2020), activations (Korthikanti et "
                    "al. 2022 Table 2, generalised)")
    return ax


def activations_vs_seq_len(curves, ax=None, mark=None, hbm_bytes=None, title: str = ""):
    """Activation memory (GB per GPU, all layers, one micro-batch) against sequence length, one
    line per setting (``memory.activations_vs_seq_len``)."""
    ax = _ax(ax)
    styles = ["-", "--", ":", "-"]
    for col, ls in zip(curves.columns, styles * 2):
        ax.plot(curves.index, curves[col] / 1e9, marker="o", ms=3, ls=ls, lw=2 if ls != "-"
                else 1.5, label=col)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    if mark:
        ax.axvline(mark, color="0.6", lw=0.8)
    if hbm_bytes:
        ax.axhline(hbm_bytes / 1e9, color="k", lw=0.8, ls="--", label="HBM capacity")
    ax.set_xlabel("sequence length (tokens)")
    ax.set_ylabel("activations per micro-batch (GB per GPU)")
    ax.set_title(title or "Activation memory grows with context; recomputation and "
                          "FlashAttention bend the curve")
    ax.legend(fontsize=11)
    _source(ax, "Korthikanti et al. 2022 Table 2 generalised (llmcost.memory); "
                "FlashAttention: Dao et al. 2022")
    return ax


def pipeline_timeline(schedule_df, ax=None, title: str = ""):
    """Gantt chart of a simulated pipeline schedule (``parallel.pipeline_schedule``): one row per
    stage, forward ops light, backward ops dark, idle time white."""
    ax = _ax(ax, figsize=(9, 2.4))
    chunks = int(schedule_df["chunk"].max()) + 1
    for _, op in schedule_df.iterrows():
        shade = 0.35 + 0.5 * op["chunk"] / max(chunks - 1, 1)
        color = (0.3, 0.5, 0.8, 0.35 + 0.4 * shade) if op["kind"] == "F" \
            else (0.85, 0.45, 0.2, 0.35 + 0.4 * shade)
        ax.barh(op["stage"], op["end"] - op["start"], left=op["start"], color=color,
                edgecolor="white", lw=0.5)
        ax.text((op["start"] + op["end"]) / 2, op["stage"], str(int(op["microbatch"])),
                ha="center", va="center", fontsize=9)
    ax.set_yticks(sorted(schedule_df["stage"].unique()),
                  [f"stage {s}" for s in sorted(schedule_df["stage"].unique())])
    ax.invert_yaxis()
    ax.set_xlabel("time (forward of one micro-batch through one stage = 1)")
    att = schedule_df.attrs
    ax.set_title(title + f"  (bubble = {att['bubble_fraction']:.1%} of ideal compute)")
    return ax


def bubble_vs_microbatches(pp: int, ms, virtual_stages: int = 2, ax=None, mark=None):
    """Bubble fraction (of ideal compute time) against micro-batches per step, per schedule."""
    ax = _ax(ax)
    m = np.asarray(ms)
    for sched, label in [("gpipe", "GPipe / 1F1B: (p−1)/m"),
                         ("interleaved", f"interleaved 1F1B, v={virtual_stages}: (p−1)/(v·m)"),
                         ("zb-h1", "ZB-H1: (p−1)/(3m), m ≥ p; (2p−m−1)/(3m) below")]:
        v = virtual_stages if sched == "interleaved" else 1
        ax.plot(m, bubble_fraction(pp, m, sched, v), label=label)
    if mark is not None:
        ax.axvline(mark, color="0.6", lw=0.8)
        ax.annotate("scenario m", (mark, ax.get_ylim()[1] * 0.9), fontsize=11, ha="left")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("micro-batches per step m")
    ax.set_ylabel("bubble time ÷ ideal compute time")
    ax.set_title(f"Pipeline bubble with p = {pp} stages")
    ax.legend(fontsize=11)
    _source(ax, "Huang et al. 2019; Narayanan et al. 2021 §2.2; Qi et al. 2024 (T_F = T_B = T_W)")
    return ax


def scaling_frontier(frontier, ax=None, title: str = ""):
    """Smallest pipeline bubble among fitting plans (TP inside the scale-up domain) against GPU
    count at a fixed global batch (``parallel.scaling_frontier``); shaded where no plan fits."""
    ax = _ax(ax)
    n = frontier.index.to_numpy()
    b = frontier["min_bubble"].to_numpy(dtype=float)
    ax.plot(n, np.where(np.isnan(b), np.nan, 100 * b), marker="o", color="C0")
    for x, bb, plan in zip(n, b, frontier["best_plan"]):
        if np.isnan(bb):
            ax.axvspan(x / 1.4, x * 1.4, color="C3", alpha=0.15)
            ax.annotate(plan, (x, 2), rotation=90, fontsize=10, ha="center", va="bottom")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("GPUs")
    ax.set_ylabel("smallest bubble among fitting plans (% of compute)")
    ax.set_title(title)
    _source(ax, "llmcost.parallel.scaling_frontier (memory and bubble only; no communication)")
    return ax


# ----------------------------------------------------------------------------- notebook 04
STEP_COLORS = {
    "matmul_s": "#4C72B0", "attention_s": "#64B5CD", "memory_bound_s": "#8172B2",
    "recompute_s": "#CCB974", "straggler_s": "#8C564B", "tp_comm_s": "#C44E52",
    "cp_comm_s": "#E17C7E", "ep_comm_s": "#F1A1A3", "moe_host_s": "#DA8BC3", "pp_comm_s": "#DD8452",
    "stage_imbalance_s": "#937860",
    "pipeline_bubble_s": "#BBBBBB", "dp_comm_s": "#55A868", "optimizer_s": "#2F4F4F",
}


def collective_times(sweep, ax=None, title: str = ""):
    """Collective time against message size, one line per link and op
    (``comm.collective_sweep``): latency-bound on the left, bandwidth-bound on the right."""
    ax = _ax(ax, figsize=(8.5, 5))
    styles = {"scale-up": "-", "scale-out": "--"}
    for (link, op), g in sweep.groupby(["link", "op"], sort=False):
        ax.plot(g["message_bytes"], g["time_s"] * 1e6, styles.get(link, "-"),
                label=f"{op.replace('_', '-')}, {link}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("message size S (bytes)")
    ax.set_ylabel("time (µs)")
    ax.set_title(title or "Collective time: latency-bound, then bandwidth-bound")
    ax.legend(fontsize=11)
    _source(ax, "α-β model, ring; achieved busbw from nccl-tests; NCCL tuning.cc latencies "
                "(data/efficiency.csv)")
    return ax


def comm_volume_bars(volumes: dict, ax=None, unit: float = 1e9):
    """Bytes each GPU sends per step, stacked by parallel dimension, one bar per plan
    (``{label: comm.comm_volume(...)}``)."""
    ax = _ax(ax, figsize=(8, 0.6 * len(volumes) + 1.6))
    labels = list(volumes)
    y = np.arange(len(labels))
    left = np.zeros(len(labels))
    colors = {"TP": "#C44E52", "CP": "#E17C7E", "EP": "#F1A1A3", "PP": "#DD8452",
              "DP": "#55A868"}
    for dim in ("TP", "CP", "EP", "PP", "DP"):
        vals = np.array([float(volumes[k].loc[dim, "bytes_per_gpu"]) / unit for k in labels])
        if vals.any():
            ax.barh(y, vals, left=left, color=colors[dim], label=dim)
            left += vals
    ax.set_yticks(y, labels, fontsize=11)
    ax.invert_yaxis()
    ax.set_xlim(0, left.max() * 1.05)
    ax.set_xlabel("GB sent per GPU per optimizer step")
    ax.set_title("Communication volume per step, by parallel dimension")
    ax.legend(fontsize=11, ncol=5, loc="upper center", bbox_to_anchor=(0.5, -0.3))
    _source(ax, "llmcost.comm.comm_volume (16-bit activations, ring collectives)")
    return ax


def step_breakdown(breakdowns: dict, ax=None, normalise: bool = True):
    """Where each step's time goes, one stacked bar per plan (``{label: StepBreakdown}``)."""
    ax = _ax(ax, figsize=(11, 0.6 * len(breakdowns) + 2.0))
    labels = list(breakdowns)
    y = np.arange(len(labels))
    left = np.zeros(len(labels))
    for part in step.PARTS:
        vals = np.array([getattr(breakdowns[k], part) / (breakdowns[k].step_time_s
                                                          if normalise else 1.0)
                         for k in labels])
        if vals.any():
            ax.barh(y, vals, left=left, color=STEP_COLORS[part],
                    label=part.removesuffix("_s").replace("_", " "))
            left += vals
    for yi, k in zip(y, labels):
        b = breakdowns[k]
        ax.annotate(f"{b.step_time_s:.3g} s, MFU {b.mfu:.0%}", (left[yi], yi),
                    xytext=(4, 0), textcoords="offset points", va="center", fontsize=11)
    ax.set_yticks(y, labels, fontsize=11)
    ax.invert_yaxis()
    ax.set_xlim(0, left.max() * (1.3 if normalise else 1.35))
    ax.set_xlabel("share of the step" if normalise else "seconds per step")
    ax.set_title("Where the step time goes (busiest GPU)")
    ax.legend(fontsize=10, ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.25))
    _source(ax, "llmcost.step.step_time")
    return ax


def time_budget(budget, ax=None, gpu_hours: float | None = None, cost_usd: float | None = None):
    """One bar of a predicted step's time split into model FLOPs at peak (MFU) and what else is
    paid for (``step.time_budget``); with ``gpu_hours``/``cost_usd`` the axis reads in those
    units: the run's ideal GPU time at the step's predicted speed, GPU-hours = tokens ÷
    (tokens/s) × GPUs ÷ 3,600, with no failures or restarts (goodput 1), so not the bill's
    paid GPU-hours, which divide by goodput (notebook 07) and may use another MFU (the band's
    central estimate with ``mfu: predict``); the axis says so."""
    ax = _ax(ax, figsize=(11, 2.6))
    colors = ["#4C72B0", "#A6BDDB", "#CCB974", "#8C564B", "#C44E52", "#DD8452", "#BBBBBB",
              "#2F4F4F"]
    if len(budget) > len(colors):  # every part drawn: a zip would drop the last ones silently
        raise ValueError(f"budget has {len(budget)} rows, more than the {len(colors)} colours "
                         "of plots.time_budget: add one per part of step.time_budget")
    left = 0.0
    for (name, row), c in zip(budget.iterrows(), colors):
        if row["share"] <= 0 and name != budget.index[0]:  # a part this step does not have
            continue                                       # (no MoE layer): no legend entry
        ax.barh(0, row["share"], left=left, color=c, label=f"{name} ({row['share']:.0%})")
        left += row["share"]
    ax.set_xlim(0, 1)
    ax.set_yticks([])
    mfu = float(budget["share"].iloc[0])
    what = f"of the ideal GPU time at the predicted MFU {mfu:.1%}"
    if gpu_hours is not None:
        what += f" ({fmt_count(gpu_hours, 3)} GPU-h"
        what += f", {fmt_usd(cost_usd)}" if cost_usd is not None else ""
        what += "; no failures or restarts)"
    ax.set_xlabel(f"share {what}")
    ax.set_title(f"At the predicted {mfu:.0%} MFU you pay for {1 / mfu:.1f}× the compute you "
                 "get")
    ax.legend(fontsize=10, loc="center left", bbox_to_anchor=(1.01, 0.5))
    _source(ax, "llmcost.step.time_budget")
    return ax


def scaling_curves(strong, weak=None, ax=None, threshold: float = 0.5, title: str = ""):
    """Parallel efficiency (tokens/s per GPU relative to the smallest count) against GPUs, for
    strong (fixed global batch) and weak (batch grows with GPUs) scaling
    (``step.scaling_study``); marks where strong-scaling efficiency falls below ``threshold``."""
    ax = _ax(ax, figsize=(8.5, 5))
    ax.plot(strong.index, strong["efficiency"], "o-", color="C0", label="strong scaling "
            f"(global batch {int(strong['global_batch'].iloc[0]):,} sequences)")
    if weak is not None:
        ax.plot(weak.index, weak["efficiency"], "s--", color="C2",
                label="weak scaling (batch grows with GPUs)")
    low = strong[strong["efficiency"] < threshold]
    if len(low):
        x = low.index[0]
        ax.axvline(x, color="C3", lw=0.8, ls=":")
        ax.annotate(f"below {threshold:.0%}: adding GPUs\nstops paying", (x, threshold),
                    xytext=(6, 10), textcoords="offset points", fontsize=11, color="C3")
    ax.axhline(threshold, color="0.7", lw=0.6)
    ax.set_xscale("log", base=2)
    ax.set_ylim(0, 1.15)
    ax.set_xlabel("GPUs")
    ax.set_ylabel("efficiency (tokens/s per GPU ÷ smallest count's)")
    ax.set_title(title or "What adding GPUs buys")
    ax.legend(fontsize=11, loc="lower left")
    _source(ax, "llmcost.step.scaling_study: fastest fitting plan at each GPU count")
    return ax


def validation_scatter(validation, ax=None):
    """Predicted against reported MFU for published runs (``step.mfu_validation``), ±10%
    band."""
    ax = _ax(ax, figsize=(9.5, 5.5))
    markers = {"megatron21-table1": "o", "korthikanti22-table5": "s", "megatron21-table2": "^",
               "megatron21-table2-zero3": "x", "llama3-table4": "D", "nemo-automodel-h100": "v",
               "deepseek-v3-h800": "P", "nemo-automodel-h100-moe": "*"}
    lim = [0, 70]
    x = np.linspace(*lim, 50)
    ax.fill_between(x, 0.9 * x, 1.1 * x, color="0.9", label="±10%", zorder=0)
    ax.plot(x, x, color="0.4", lw=0.8, zorder=1)
    for s, g in validation.groupby("set", sort=False):
        mk, label = markers.get(s, "o"), set_title(s)
        ax.scatter(100 * g["reported_mfu"], 100 * g["predicted_mfu"], marker=mk, label=label,
                   s=55, zorder=2)
    ax.set_xlim(lim)
    ax.set_ylim(lim)
    ax.set_xlabel("reported MFU (%)")
    ax.set_ylabel("predicted MFU (%)")
    ax.set_title("Predicted vs reported MFU, published runs")
    ax.legend(fontsize=10, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    _source(ax, "llmcost.step.mfu_validation; MFU basis, Megatron HFU converted")
    return ax


def regime_scatter(validation, ax=None):
    """Predicted against published MFU for every validation row, one colour per regime
    (``accuracy.validation_table``'s ``regime``): held-out rows filled, calibration rows hollow;
    the diagonal and ±10%. Both MFUs on the dense BF16 peak (FP8 runs included)."""
    import matplotlib.pyplot as plt

    ax = _ax(ax, figsize=(11, 6.5))
    hi = float(100 * max(validation["reported_mfu"].max(), validation["predicted_mfu"].max()))
    lim = [0, 10 * np.ceil(hi / 10)]
    x = np.linspace(*lim, 50)
    ax.fill_between(x, 0.9 * x, 1.1 * x, color="0.9", label="±10%", zorder=0)
    ax.plot(x, x, color="0.4", lw=0.8, zorder=1)
    cmap = plt.get_cmap("tab20")
    for i, (label, g) in enumerate(validation.groupby("regime", sort=True)):
        color, marker = cmap(i % 20), "os^D"[(i // 20) % 4]   # 20 colours, then a new marker
        held = g[g["split"] == "held-out"]
        cal = g[g["split"] != "held-out"]
        ax.scatter(100 * held["reported_mfu"], 100 * held["predicted_mfu"], color=color, s=40,
                   marker=marker, label=f"{label} (n = {len(held)})", zorder=2)
        if len(cal):
            ax.scatter(100 * cal["reported_mfu"], 100 * cal["predicted_mfu"], s=40, marker=marker,
                       facecolors="none", edgecolors=[color], zorder=2)
    ax.set_xlim(lim)
    ax.set_ylim(lim)
    ax.set_xlabel("published MFU (%, dense BF16 peak)", fontsize=12)
    ax.set_ylabel("predicted MFU (%, dense BF16 peak)", fontsize=12)
    ax.set_title("Predicted vs published MFU by regime\n(hollow: calibration rows)", fontsize=13)
    ax.legend(fontsize=SMALL_PT, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    _source(ax, "llmcost.accuracy.validation_table (data/validation_mfu.csv with its sources)")
    return ax


# ---------------------------------------------------------------- serving and RL (notebook 05)
def decode_roofline_vs_batch(steps, ax=None, title: str = ""):
    """Decode step time and its two roofline terms against batch (``inference.decode_step``).

    ``steps``: DataFrame with ``batch``, ``compute_s``, ``memory_s``, ``comm_s``, ``time_s``.
    """
    ax = _ax(ax)
    b = steps["batch"]
    ax.loglog(b, steps["memory_s"] * 1e3, color="C0", label="HBM term: (weights + KV) / bandwidth")
    ax.loglog(b, steps["compute_s"] * 1e3, color="C1", label="compute term: FLOPs / achievable peak")
    ax.loglog(b, steps["time_s"] * 1e3, color="k", lw=2, label="step time (max + TP all-reduces)")
    if (steps["comm_s"] > 0).any():
        ax.loglog(b, steps["comm_s"] * 1e3, color="C2", ls=":", label="exposed TP all-reduces")
    ax.set_xlabel("sequences decoding together (batch)")
    ax.set_ylabel("time per decode step (ms)")
    ax.set_title(title or "Decode stays HBM-bound: the step time barely grows with batch")
    ax.legend(fontsize=SMALL_PT)
    _source(ax, "llmcost.inference.decode_step: roofline with data/efficiency.csv fractions")
    return ax


def cost_per_token_vs_batch(curves: dict, ax=None):
    """USD per million output tokens against batch, one line per label (``cost_vs_batch``
    frames); batches beyond the HBM capacity are drawn dashed."""
    ax = _ax(ax)
    for i, (label, df) in enumerate(curves.items()):
        fit, over = df[df["fits"]], df[~df["fits"]]
        ax.loglog(fit["batch"], fit["usd_per_m_output"], color=f"C{i}", lw=2, label=label)
        if len(over):
            ax.loglog(over["batch"], over["usd_per_m_output"], color=f"C{i}", ls="--", lw=1)
            ax.plot(fit["batch"].iloc[-1], fit["usd_per_m_output"].iloc[-1], "o", color=f"C{i}")
    ax.set_xlabel("sequences per replica (batch)")
    ax.set_ylabel("USD per million output tokens")
    ax.set_title("Batching cuts the cost of a token until HBM is full (dot; dashed: does not fit)")
    ax.legend(fontsize=SMALL_PT)
    _source(ax, "llmcost.inference.cost_vs_batch; prices from the scenario / data/prices.csv")
    return ax


def engine_gap(val, ax=None):
    """Published serving figures against the roofline bound and the expected engine throughput,
    as throughputs (a time metric inverted), log-log: ``serving.engines.engine_validation``."""
    ax = _ax(ax, figsize=(7, 5.5))
    is_time = val["metric"].isin(("ttft_s", "tpot_s", "latency_s"))

    def thr(x):
        return np.where(is_time, 1 / x, x)

    measured, roof, exp = thr(val["measured"]), thr(val["roofline"]), thr(val["expected"])
    for split, marker in (("train", "o"), ("test", "s")):
        k = (val["split"] == split).to_numpy()
        ax.scatter(measured[k], roof[k], marker=marker, facecolors="none",
                   edgecolors="C3", label=f"roofline bound ({split} rows)")
        ax.scatter(measured[k], exp[k], marker=marker, color="C0",
                   label=f"expected on the engine ({split} rows)")
    lo, hi = float(np.min(measured)) / 2, float(np.max(roof)) * 2
    ax.loglog([lo, hi], [lo, hi], color="0.3", lw=1, label="measured = model")
    ax.fill_between([lo, hi], [lo * 0.75, hi * 0.75], [lo * 1.25, hi * 1.25], color="0.85",
                    label="within 25 %")
    ax.set_xlabel("measured (throughput, or 1 / time), per the row's unit")
    ax.set_ylabel("model (same unit)")
    ax.set_title("Engines run below the roofline; the fitted engine model lands near them")
    ax.legend(fontsize=SMALL_PT, loc="upper left")
    _source(ax, "data/serving_benchmarks.csv (TensorRT-LLM v0.5/v0.6.1, NeMo, vLLM); "
                "llmcost.serving.engines")
    return ax


def latency_throughput(curve, ax=None, target_s=None):
    """Expected output tokens/s per GPU against time per output token, one line per
    tensor-parallel size, the Pareto front bold, the band shaded
    (``serving.engines.latency_throughput_curve``)."""
    ax = _ax(ax, figsize=(8, 5))
    for i, (tp, g) in enumerate(curve.groupby("tp")):
        g = g.sort_values("expected_tpot_s")
        ax.plot(g["expected_tpot_s"] * 1e3, g["expected_output_tokens_per_s_per_gpu"], "o-",
                color=f"C{i}", ms=3, lw=1, label=f"TP {tp}")
        ax.fill_between(g["expected_tpot_s"] * 1e3, g["band_low"], g["band_high"],
                        color=f"C{i}", alpha=0.12)
    front = curve[curve["pareto"]].sort_values("expected_tpot_s")
    ax.plot(front["expected_tpot_s"] * 1e3, front["expected_output_tokens_per_s_per_gpu"],
            color="k", lw=2.5, label="Pareto front")
    if target_s is not None:
        ax.axvline(target_s * 1e3, color="C3", ls="--", lw=1, label="latency target")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("expected time per output token (ms)")
    ax.set_ylabel("expected output tokens/s per GPU")
    ax.set_title(f"Throughput against latency: {curve.attrs.get('model', '')} on "
                 f"{curve.attrs.get('accelerator', '')} (band shaded)")
    ax.legend(fontsize=SMALL_PT)
    _source(ax, "llmcost.serving.engines.latency_throughput_curve (roofline / η + per-step "
                "overhead, fitted on data/serving_benchmarks.csv)")
    return ax


def rl_loop_diagram(ax=None):
    """The RL post-training loop as boxes and arrows: generate → score → update → sync."""
    ax = _ax(ax, figsize=(8, 2.6))
    boxes = [("generate\n(inference: prefill +\nHBM-bound decode)", 0.10, 0.095),
             ("score\n(reward model or verifier,\nreference, critic)", 0.38, 0.115),
             ("update\n(policy and critic:\nforward + backward)", 0.65, 0.10),
             ("sync weights\nto the rollout\nengine", 0.91, 0.07)]
    for text, x, _ in boxes:
        ax.text(x, 0.55, text, ha="center", va="center", fontsize=9,
                bbox=dict(boxstyle="round,pad=0.5", fc="#eef3fb", ec="C0"))
    for (_, x0, w0), (_, x1, w1) in zip(boxes, boxes[1:]):
        ax.annotate("", xy=(x1 - w1 - 0.005, 0.55), xytext=(x0 + w0 + 0.005, 0.55),
                    arrowprops=dict(arrowstyle="->", lw=1.5))
    ax.annotate("", xy=(0.10, 0.18), xytext=(0.91, 0.18),
                arrowprops=dict(arrowstyle="->", lw=1.2, connectionstyle="arc3,rad=0"))
    ax.text(0.52, 0.08, "next iteration: new prompts, the updated policy", ha="center",
            fontsize=SMALL_PT)
    ax.set_xlim(0, 1.04)
    ax.set_ylim(0, 1)
    ax.axis("off")
    ax.set_title("One RL iteration: the inference and training ledgers cross")
    return ax


def rl_parts_bars(parts: dict, ax=None):
    """Stacked horizontal bars of GPU-time shares by part, one bar per label (``RLIteration
    .parts()`` frames)."""
    ax = _ax(ax, figsize=(9.5, 1.4 + 0.6 * len(parts)))
    names = list(next(iter(parts.values()))["part"])
    left = np.zeros(len(parts))
    for j, name in enumerate(names):
        vals = np.array([float(df.set_index("part").loc[name, "share"]) for df in parts.values()])
        if not vals.any():
            continue
        ax.barh(list(parts), vals, left=left, color=f"C{j % 10}", label=name.replace("_", " "))
        left += vals
    ax.set_xlim(0, 1)
    ax.invert_yaxis()
    ax.set_xlabel("share of the iteration's GPU-time")
    ax.set_title("Where an RL iteration's GPU-hours go")
    ax.legend(fontsize=SMALL_PT, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    _source(ax, "llmcost.rl.rl_iteration (parts sum to the total)")
    return ax


def generation_shares(df, ax=None):
    """Generation's share of FLOPs and of time per source: the source's figure beside the
    model of its set-up (``rl.published_generation_shares``)."""
    ax = _ax(ax, figsize=(9.5, 3.8))
    t = df[df["quantity"] == "generation share of time"].reset_index(drop=True)
    y = np.arange(len(t))
    ax.barh(y - 0.27, t["model_flops_share"], 0.26, color="C7", label="model: share of FLOPs")
    ax.barh(y, t["model"], 0.26, color="C0", label="model: share of time")
    ax.barh(y + 0.27, t["measured"].fillna(0), 0.26, color="C3", label="source: share of time")
    ax.set_yticks(y, t["source"])
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of the iteration")
    ax.set_title("Generation: a small share of the FLOPs, a large share of the time")
    ax.legend(fontsize=SMALL_PT, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    _source(ax, "DeepSpeed-Chat blog §5; OpenRLHF README and benchmark table; APRIL "
                "arXiv:2509.18521; llmcost.rl.PUBLISHED_SHARES")
# ---- the whole bill (notebook 00, llmcost.ledger)
def bill_waterfall(table, ax=None, scale: float | None = None, min_share: float = 0.001):
    """Waterfall of a bill (``Ledger.table()``): each line stacked on the ones before it, the
    total last. Lines below ``min_share`` of the total are merged into "other lines"; lines that
    are not modelled are listed in the title, not drawn."""
    ax = _ax(ax, figsize=(8, 4))
    body = table[table["key"] != "total"]
    total = float(table.loc[table["key"] == "total", "usd"].iloc[0])
    scale = _scale_of(scale, total)
    missing = body[body["usd"].isna()]["line"].tolist()
    body = body.dropna(subset=["usd"])
    big = body[body["usd"] >= min_share * total]
    rest = float(body[body["usd"] < min_share * total]["usd"].sum())
    labels, values = list(big["line"]), list(big["usd"])
    if rest > 0:
        labels.append("other lines")
        values.append(rest)
    bottom = 0.0
    colours = {"compute": "C0", "post-training": "C1", "data": "C2", "evaluation": "C4",
               "storage": "C5", "network": "C6", "energy": "C8", "people": "C9",
               "operations": "C7", "reserve": "C3"}
    cats = list(big["category"]) + (["other"] if rest > 0 else [])
    named = set()   # each colour's category in the legend once (a trial read an unlabelled bar)
    for i, (v, c) in enumerate(zip(values, cats)):
        ax.bar(i, v / scale, bottom=bottom / scale, color=colours.get(c, "0.6"),
               label="_nolegend_" if c in named else ("other" if c not in colours else c))
        named.add(c)
        ax.annotate(f"{v / scale:,.3g}", (i, (bottom + v) / scale), ha="center", va="bottom",
                    fontsize=SMALL_PT, textcoords="offset points", xytext=(0, 2))
        bottom += v
    ax.bar(len(values), total / scale, color="0.3")
    ax.annotate(f"{total / scale:,.3g}", (len(values), total / scale), ha="center",
                va="bottom", fontsize=SMALL_PT, textcoords="offset points", xytext=(0, 2))
    ax.set_xticks(range(len(values) + 1),
                  [textwrap.fill(s, 14, break_long_words=False) for s in labels + ["total"]],
                  fontsize=SMALL_PT)
    ax.set_ylabel(usd_unit(scale))
    if len(named) > 1:
        ax.legend(fontsize=SMALL_PT, loc="best", title="category",  # where the bars leave room
                  title_fontsize=SMALL_PT)
    title = "Where does the money go? The whole bill, line by line"
    if missing:
        title += f"\n(not modelled yet: {', '.join(missing)})"
    ax.set_title(title, fontsize=10)
    _source(ax, "llmcost.ledger.build_ledger; defaults: data/ledger_defaults.csv")
    return ax


def spend_vs_budget(timeline, ax=None, scale: float | None = None):
    """Expected cumulative spend (``ledger.spend_timeline``) against the budget's alert
    thresholds, with the day each alert fires."""
    ax = _ax(ax, figsize=(7, 3.6))
    scale = _scale_of(scale, timeline["cumulative_usd"], timeline.attrs["budget_usd"])
    ax.plot(timeline["day"], timeline["cumulative_usd"] / scale, color="C0",
            label="expected cumulative spend")
    budget = timeline.attrs["budget_usd"]
    for i, (t, day) in enumerate(timeline.attrs["alerts"].items()):
        ax.axhline(t * budget / scale, color="C3", ls=":", lw=1)
        when = f"day {day:,.1f}" if day is not None else "never"
        ax.annotate(f"{t:.0%} alert: {when}", (timeline["day"].iloc[0], t * budget / scale),
                    fontsize=SMALL_PT, va="bottom", color="C3")
    ax.set_xlabel("days from the start of the project")
    ax.set_ylabel(usd_unit(scale))
    ax.set_title("When do the budget alerts fire?")
    ax.legend(fontsize=SMALL_PT, loc="lower right")
    _source(ax, "llmcost.ledger.spend_timeline")
    return ax


# ----------------------------------------------------------------------------- notebook 06
def isoflop_curves(n_params, curves: dict, optima: dict, ax=None, fit_name: str = ""):
    """Loss against model size at fixed compute (isoFLOP profiles), one line per budget, with
    the compute-optimal point of each marked.

    Parameters
    ----------
    n_params : array
        Model sizes N on the x axis.
    curves : dict
        label (budget) -> loss array over ``n_params`` (``scaling.isoflop_curve``).
    optima : dict
        label -> (N*, L*) to mark.
    """
    ax = _ax(ax)
    for i, (label, y) in enumerate(curves.items()):
        ax.plot(n_params, y, color=f"C{i}", label=label)
        n_opt, l_opt = optima[label]
        ax.plot([n_opt], [l_opt], "o", color=f"C{i}", ms=7, mec="k")
    ax.set_xscale("log")
    ax.set_xlabel("parameters N (total, embeddings included)")
    ax.set_ylabel("predicted loss (nats/token)")
    ax.set_title("At fixed compute, a model too small or too big loses: the optimum (dots)")
    ax.legend(fontsize=SMALL_PT, title="compute C = 6ND", title_fontsize=SMALL_PT)
    ax.grid(True, which="major", alpha=0.3)
    _source(ax, f"L(N, D) = E + A/N^α + B/D^β, fit {fit_name}; D = C/(6N)")
    return ax


def loss_contours(n_grid, d_grid, loss_grid, frontier, budgets=(), ax=None, fit_name: str = ""):
    """Iso-loss contours in the (N, D) plane, the compute-optimal frontier, isoFLOP lines.

    Parameters
    ----------
    n_grid, d_grid : 1-D arrays (log-spaced) and ``loss_grid`` of shape (len(d), len(n)).
    frontier : (N array, D array) of the compute-optimal path.
    budgets : iterable of FLOPs for dotted lines D = C/(6N).
    """
    ax = _ax(ax, figsize=(7, 5))
    levels = np.arange(1.9, 3.01, 0.1)
    cs = ax.contour(n_grid, d_grid, loss_grid, levels=levels, cmap="viridis")
    labels = ax.clabel(cs, levels[1::2], fmt="%.1f", fontsize=SMALL_PT, inline=False,
                       manual=_contour_label_points(cs, levels[1::2], n_grid, d_grid))
    for t in labels:
        t.set_bbox({"facecolor": "white", "edgecolor": "none", "pad": 0.5})
    ax.plot(*frontier, color="C3", lw=2, label="compute-optimal N*(C), D*(C)")
    ax.plot(n_grid, 20 * n_grid, color="0.3", ls="--", lw=1, label="20 tokens per parameter")
    for c in budgets:
        ax.plot(n_grid, c / (6 * n_grid), color="0.6", ls=":", lw=1)
        # The label sits where the line leaves the axes: the right edge, or the bottom edge.
        n_at = min(n_grid[-1], c / (6 * d_grid[0] * 1.5))
        ax.annotate(f"{c:.0e} FLOPs", (n_at, c / (6 * n_at)), fontsize=SMALL_PT,
                    color="0.4", ha="right", va="bottom")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(d_grid[0], d_grid[-1])
    ax.set_xlabel("parameters N")
    ax.set_ylabel("training tokens D")
    ax.set_title("Iso-loss contours: the frontier crosses each at its cheapest point")
    ax.legend(fontsize=SMALL_PT, loc="upper left")
    _source(ax, f"fit {fit_name}; contours every 0.1 nats/token, labelled every 0.2; "
                "dotted: C = 6ND")
    return ax


def _contour_label_points(cs, levels, n_grid, d_grid, tokens_per_param: float = 2.0) -> list:
    """Where to write each contour's label: where it crosses the line D = 2N (well under the
    frontier's ~20 tokens per parameter), which runs from the bunched high-loss contours at
    the lower left to the low-loss ones at the upper right, so the labels sit apart in a row
    and clear of the legend and the budget labels at the edges. A level whose contour misses
    that line inside the axes gets no label."""
    # the N range over which the line D = 2N is inside the axes
    n_lo = max(n_grid[0], d_grid[0] / tokens_per_param)
    n_hi = min(n_grid[-1], d_grid[-1] / tokens_per_param)
    points = []
    for level, segs in zip(cs.levels, cs.allsegs):
        if not np.isclose(levels, level).any() or not segs:
            continue
        path = np.concatenate(segs)
        # The contour's point nearest the line, in decades.
        gap = np.abs(np.log10(path[:, 1]) - np.log10(tokens_per_param * path[:, 0]))
        x, y = path[np.argmin(gap)]
        if gap.min() < 0.05 and n_lo <= x <= n_hi:
            points.append((x, y))
    return points


FRONTIER_LABELS = ("gpt-3-175b", "gopher-280b", "chinchilla-70b", "palm-540b", "llama-2-7b",
                   "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "deepseek-v3", "olmo2-7b",
                   "bloom-176b")
#: Label offsets (points) where two labelled models sit close together.
_FRONTIER_OFFSETS = {"gopher-280b": (4, -11), "llama-3.1-70b": (4, -11),
                     "chinchilla-70b": (-20, -14), "deepseek-v3": (-20, 8),
                     "llama-3.1-8b": (4, -11), "gpt-3-175b": (-70, -12)}


def models_on_frontier(models, frontier, ax=None, mark=None, fit_name: str = "",
                       labels=FRONTIER_LABELS):
    """Real models by parameters and training tokens against the compute-optimal frontier.

    Parameters
    ----------
    models : DataFrame from ``scaling.frontier_models`` (MoE placed by active parameters).
    frontier : (N array, D array).
    mark : (N, D, label), optional: the scenario's run.
    labels : names to label (the rest are unlabelled dots, so that labels stay readable).
    """
    ax = _ax(ax, figsize=(7.5, 5))
    n = np.where(models.moe, models.n_active_params, models.n_params)
    dense = ~models.moe.to_numpy()
    ax.scatter(n[dense], models.train_tokens[dense], s=22, color="C0", label="dense")
    ax.scatter(n[~dense], models.train_tokens[~dense], s=40, marker="D", color="C1",
               label="MoE (active parameters; outside the fits)")
    for x, y, name in zip(n, models.train_tokens, models.name):
        if name in labels:
            ax.annotate(name, (x, y), fontsize=SMALL_PT, xytext=_FRONTIER_OFFSETS.get(name, (4, 3)),
                        textcoords="offset points")
    ax.plot(*frontier, color="C3", lw=2, label=f"compute-optimal ({fit_name})")
    grid = np.geomspace(5e7, 2e12, 50)
    for k, ls in ((20, "--"), (200, ":"), (2000, "-.")):
        ax.plot(grid, k * grid, color="0.5", ls=ls, lw=1, label=f"{k} tokens per parameter")
    if mark is not None:
        ax.plot([mark[0]], [mark[1]], "*", color="C3", ms=12, mec="k", alpha=0.8, label=mark[2])
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("parameters N (total; active for MoE)")
    ax.set_ylabel("training tokens D")
    ax.set_title("Since Llama, models train far past the compute-optimal point")
    # below the axes, in two columns: at 9 pt, inside the lower right it covered the labels
    # of runs (gopher-280b), and beside the axes it left them too narrow for their labels
    ax.legend(fontsize=SMALL_PT, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncols=2)
    ax.grid(True, which="major", alpha=0.3)
    _source(ax, "data/models.csv, data/published_runs.csv (sources per row)")
    return ax


def general_number_label(v, pos=None) -> str:
    """A tick label written as Python's ``g`` format does (``FuncFormatter``'s function): a
    module-level function, so that a figure using it can be pickled (``figure_fingerprint``)."""
    return f"{v:g}"


def no_label(v, pos=None) -> str:
    """No tick label (``FuncFormatter``'s function, pickled by name as
    ``general_number_label``)."""
    return ""


def optimum_vs_demand(demand, optimum, ax=None, title: str = "", fit_limit: float = 340.0,
                      ax_right=None):
    """Optimal size and tokens per parameter against lifetime inference demand.

    ``optimum`` is a ``scaling.LifetimeOptimum`` over ``demand``; two axes share x (the tokens
    per parameter on ``ax_right``, ``ax.twinx()`` when not given). Demand where the optimum
    trains on more than ``fit_limit`` tokens per parameter (beyond the fit's data) is shaded as
    an extrapolation.
    """
    from matplotlib.ticker import FuncFormatter, LogLocator

    ax = _ax(ax)
    demand = np.asarray(demand, dtype=float)
    tpp = np.asarray(optimum.tokens_per_param, dtype=float)
    beyond = demand[tpp > fit_limit]
    if beyond.size:
        ax.axvspan(beyond[0], demand[-1], color="0.92", zorder=0)
        # inside the shaded band, against the axes' right edge (clear of the twin's ticks)
        ax.annotate(f"extrapolation:\n> {fit_limit:.0f} tokens/param\n(beyond Hoffmann's\nruns)",
                    (1.0, 0.97), xycoords="axes fraction", xytext=(-4, 0),
                    textcoords="offset points", fontsize=SMALL_PT, color="0.35", va="top",
                    ha="right")
    ax.plot(demand, np.asarray(optimum.n_params) / 1e9, color="C0", lw=2)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(general_number_label))
    ax.yaxis.set_minor_formatter(FuncFormatter(no_label))
    ax.set_xlabel("lifetime inference demand D_inf (tokens)")
    ax.set_ylabel("optimal parameters (billions)", color="C0")
    ax2 = ax.twinx() if ax_right is None else ax_right
    ax2.plot(demand, tpp, color="C1", lw=2)
    ax2.set_yscale("log")
    ax2.set_ylabel("training tokens per parameter", color="C1")
    ax.set_title(title or "More demand: a smaller model trained longer")
    ax.grid(True, which="major", alpha=0.3)
    _source(ax, "Sardana et al. 2024: minimise 6·N·D_tr + 2·N·D_inf at L(N, D_tr) = ℓ")
    return ax


# ---------------------------------------------------------------- notebook 04: rooflines
def comm_rooflines(curves, marks: dict | None = None, axes=None, title: str = ""):
    """One panel per parallelism kind: compute ÷ communication against the quantity the plan
    controls (``overlap.roofline_curves``); above 1 the traffic can hide. ``marks``:
    ``{kind: x}`` or ``{kind: (x, label)}``, a vertical line at the scenario's value."""
    import matplotlib.pyplot as plt

    order = ("DP", "FSDP", "TP", "PP", "EP", "CP")
    kinds = [k for k in order if k in set(curves["kind"])]
    if axes is None:
        _, axes = plt.subplots(2, 3, figsize=(13, 7.5), layout="constrained")
    for ax, kind in zip(np.ravel(axes), kinds):
        g = curves[curves["kind"] == kind]
        for link, gl in g.groupby("link", sort=False):  # scale-up solid, the network dashed
            ls, col = ("-", "C0") if link.startswith("scale-up") else ("--", "C3")
            ax.plot(gl["x"], gl["ratio"], ls, color=col, lw=2, label=link)
        ax.axhline(1.0, color="0.3", lw=1)
        ax.axhspan(1e-3, 1.0, color="C3", alpha=0.06)
        if marks and kind in marks:
            x, label = marks[kind] if isinstance(marks[kind], tuple) else (marks[kind], "scenario")
            ax.axvline(x, color="C2", lw=2, ls=":", label=label)
        ax.set_xscale("log", base=2 if kind == "TP" else 10)
        ax.set_yscale("log")
        ax.set_ylim(1e-2, 1e3)
        ax.set_xlabel(g["xlabel"].iloc[0], fontsize=12)
        ax.set_title(f"{kind} ({g['model'].iloc[0]})", fontsize=13)
        ax.tick_params(labelsize=11)
        ax.legend(fontsize=10, loc="best")
    np.ravel(axes)[0].set_ylabel("compute ÷ communication", fontsize=12)
    np.ravel(axes)[3].set_ylabel("compute ÷ communication", fontsize=12)
    fig = np.ravel(axes)[0].figure
    fig.suptitle(title or "When does each kind of traffic hide behind compute? (above 1: it can)",
                 fontsize=14)
    fig.supxlabel("llmcost.overlap (ring collectives, dense BF16 peak, datasheet links); shaded: "
                  "below 1 the GPUs wait", fontsize=10, color="0.4")
    return axes


def zero3_scaling(rows, peak_flops_per_s: float, ax=None, title: str = ""):
    """Hardware TFLOP/s per GPU against GPUs for ZeRO-3 runs at a fixed global batch: published
    (markers) and predicted (lines), one colour per model (``step.mfu_validation`` rows with
    ``reported`` and ``predicted_hfu`` on the hardware-FLOPs basis)."""
    ax = _ax(ax, figsize=(8, 5))
    for i, (_, g) in enumerate(rows.groupby("model", sort=False)):
        g = g.sort_values("n_gpus")
        col, name = f"C{i}", f"GPT {g['params'].iloc[0] / 1e9:.0f}B"
        ax.plot(g["n_gpus"], g["reported"] * peak_flops_per_s / 1e12, "o", ms=10, color=col,
                label=f"{name}: published")
        ax.plot(g["n_gpus"], g["predicted_hfu"] * peak_flops_per_s / 1e12, "--", lw=2,
                color=col, label=f"{name}: model")
    ax.set_xscale("log", base=2)
    ax.set_ylim(bottom=0)
    ax.set_xlabel("GPUs (fixed global batch)", fontsize=12)
    ax.set_ylabel("TFLOP/s per GPU (hardware FLOPs)", fontsize=12)
    ax.set_title(title or "ZeRO-3 at a fixed batch: throughput per GPU as GPUs are added",
                 fontsize=13)
    ax.legend(fontsize=11, loc="lower left")
    _source(ax, "Narayanan et al. 2021 Table 2 (DeepSpeed ZeRO-3, A100); llmcost.step.mfu_validation")
    return ax


def hsdp_scaling(studies: dict, ax=None, title: str = ""):
    """Predicted MFU against GPUs (weak scaling) for ZeRO-3 over the whole data-parallel group
    and hybrid sharding, one colour per study (``{label: step.sharding_study(...)}``), solid
    for ZeRO-3 and dashed for HSDP; plans that do not fit in memory are not drawn."""
    ax = _ax(ax, figsize=(8, 5))
    for i, (name, df) in enumerate(studies.items()):
        for j, (lab, g) in enumerate(df[df["fits"]].groupby("label", sort=False)):
            ax.plot(g["n_gpus"], 100 * g["mfu"], "o-" if lab == "ZeRO-3" else "s--", lw=2,
                    color=f"C{i}", label=f"{name}: {lab}")
    ax.set_xscale("log", base=2)
    return _finish_axes(ax, "GPUs (fixed batch per GPU)", "predicted MFU (%)",
                        title or "When does hybrid sharding pay?", "lower left",
                        "llmcost.step.sharding_study (NCCL tuning.cc latencies; FSDP "
                        "arXiv:2304.11277, MiCS arXiv:2205.00119)")


def pilot_validation_errors(summary, ax=None, goal_mean: float = 0.05):
    """Mean |MFU error| on each published scaling series' other runs, one row per series:
    uncalibrated, one-scale pilot and two-scale pilot (the two smallest GPU counts), both
    leave-one-series-out (``pilot_validation.PilotValidation.series_summary``: columns
    ``uncal``, ``one_scale_loso``, ``two_scale_loso``, ``n``); a dashed line at ``goal_mean``."""
    ax = _ax(ax, figsize=(10, 0.28 * len(summary) + 1.8))
    y = np.arange(len(summary))
    for dy, (col, mark, label) in zip((-0.22, 0.0, 0.22), (
            ("uncal", "o", "uncalibrated engine"),
            ("one_scale_loso", "s", "one-scale pilot (LOSO)"),
            ("two_scale_loso", "D", "two-scale pilot (LOSO)"))):   # offset: equal ones visible
        ax.scatter(100 * summary[col], y + dy, marker=mark, s=28, label=label, zorder=3)
    ax.axvline(100 * goal_mean, color="0.3", ls="--", lw=1,
               label=f"two-scale goal: mean {goal_mean:.0%}")
    names = [s.replace("llm-foundry-mpt · ", "MPT tables · ").replace(" · bf16", "")
             .replace(", no model parallelism", "")[:58] + f" ({n} run{'s' * (n != 1)})"
             for s, n in zip(summary.index, summary["n"])]
    ax.set_yticks(y, names, fontsize=SMALL_PT)
    ax.invert_yaxis()
    ax.set_xlim(left=0)
    ax.grid(axis="x", alpha=0.3)
    ax.set_xlabel("mean |predicted ÷ published MFU − 1| on the series' other runs (%)",
                  fontsize=11)
    ax.set_title("What does a pilot buy? Error on each published series' other runs",
                 fontsize=12)
    ax.legend(fontsize=9, loc="lower right")
    _source(ax, "data/validation_mfu.csv (Narayanan 2021 T1-2, Korthikanti 2022 T5, Llama 3 T4, "
                "llm-foundry MPT, torchtitan, NeMo); llmcost.training.pilot_validation")
    return ax


def pilot_band_coverage(errors, base, per_doubling: float, ax=None):
    """|MFU error| of the one-scale pilots on the published series' other runs against the
    doublings of the sequence length between pilot and run (``|log2(s ÷ s_pilot)|``), with the
    band's half-width ``base[k] + per_doubling × doublings`` (``calibrate.band_half_width``) for
    the fewest and the most other novelties; runs outside the band fitted without their series
    (``inside_loso`` False) marked. ``errors``: ``PilotValidation.errors``."""
    ax = _ax(ax, figsize=(9, 5))
    e = errors
    out = ~e["inside_loso"].astype(bool)
    x = e["doublings"] + 0.06 * e["k"].clip(upper=3)   # offset: the counts side by side
    ax.scatter(x[~out], 100 * e.loc[~out, "one_scale"].abs(), s=22, alpha=0.7,
               label="run inside its band (fitted without its series)")
    ax.scatter(x[out], 100 * e.loc[out, "one_scale"].abs(), s=40, marker="x", color="C3",
               label="run outside it")
    d = np.linspace(0, max(1.0, float(e["doublings"].max())), 50)
    for k, ls in ((0, "-"), (len(base) - 1, "--")):
        ax.plot(d, 100 * (base[k] + per_doubling * d), ls, color="0.3", lw=1.5,
                label=f"band half-width, {k}{'+' if k == len(base) - 1 else ''} other novelties")
    _finish_axes(ax, "doublings of the sequence length, |log2(run ÷ pilot)|",
                 "|predicted ÷ published MFU − 1| (%)",
                 "Does the pilot's band cover the published runs?", "upper left",
                 "data/validation_mfu.csv (llm-foundry MPT, NeMo, torchtitan, Megatron-LM, "
                 "Llama 3); llmcost.training.pilot_validation")
    top = 100 * max(float(e["one_scale"].abs().max()), base[-1] + per_doubling * d[-1])
    ax.set_ylim(0, 1.6 * top)   # room above the points for the legend
    return ax


def _finish_axes(ax, xlabel: str, ylabel: str, title: str, legend_loc: str, source: str):
    """The y axis from zero, axis labels, title, legend and source line of a line figure."""
    ax.set_ylim(bottom=0)
    ax.set_xlabel(xlabel, fontsize=12)
    ax.set_ylabel(ylabel, fontsize=12)
    ax.set_title(title, fontsize=13)
    ax.legend(fontsize=10, loc=legend_loc)
    _source(ax, source)
    return ax


def scale_efficiency_curves(group_sizes, curves: dict, ax=None, title: str = ""):
    """Share of the large-message bus bandwidth against the number of ranks, one line per
    collective and message size (``{label: comm.scale_efficiency(...)}``)."""
    ax = _ax(ax, figsize=(8, 5))
    for i, (label, eff) in enumerate(curves.items()):
        ax.plot(group_sizes, eff, "o-" if "reduce" in label else "-", lw=2, color=f"C{i}",
                label=label)
    ax.set_xscale("log", base=2)
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("ranks in the collective", fontsize=12)
    ax.set_ylabel("bus bandwidth ÷ large-message bus bandwidth", fontsize=12)
    ax.set_title(title or "Why collectives slow down as jobs grow", fontsize=13)
    ax.legend(fontsize=10, loc="lower left")
    _source(ax, "llmcost.comm.scale_efficiency (NCCL tuning.cc latencies, ring and tree)")
    return ax


def straggler_slowdown_curves(n_gpus, curves: dict, ax=None, title: str = "",
                              marks=(1024, 16384)):
    """The compute time a synchronous step adds waiting for its slowest GPU, in per cent,
    against the job's GPU count (log axis), one line per spread of GPU speed
    (``{label: straggler.straggler_slowdown(n_gpus, cv)}``); the first line's value is written
    at the GPU counts in ``marks``."""
    ax = _ax(ax, figsize=(8, 5))
    for i, (label, s) in enumerate(curves.items()):
        ax.plot(n_gpus, np.asarray(s) * 100, "-" if i == 0 else "--", lw=2.5 if i == 0 else 1.5,
                color=f"C{i}", label=label)
    first = np.asarray(next(iter(curves.values())))
    for n in marks:
        y = float(np.interp(np.log(n), np.log(np.asarray(n_gpus, float)), first)) * 100
        ax.plot([n], [y], "o", color="C0")
        ax.annotate(f"{fmt_gpus(n)}: +{y:.1f}%", (n, y), xytext=(-10, 12),
                    textcoords="offset points", ha="right", fontsize=11)
    ax.set_xscale("log")
    return _finish_axes(ax, "GPUs in the job (log scale)", "added compute time (%)",
                        title or "How much does the slowest GPU cost as the job grows?",
                        "upper left", "llmcost.straggler.straggler_slowdown: σ·(E[max of N "
                        "normals] − E[max of 8]); σ from Sinha et al. SC22 (arXiv:2208.11035)")


def moe_all_to_all_vs_ep(ep, curves: dict, compute_s: float, ax=None, title: str = ""):
    """An MoE layer's forward all-to-all time (dispatch + combine) against the expert-parallel
    degree, one line per placement or routing (``{label: seconds}``), with the layer's expert
    GEMM time (``compute_s``) as a reference line."""
    ax = _ax(ax, figsize=(8, 5))
    for i, (label, t) in enumerate(curves.items()):
        ax.plot(ep, np.asarray(t) * 1e3, "o-", lw=2, color=f"C{i}", label=label)
    ax.axhline(compute_s * 1e3, color="0.3", lw=1.5, ls=":",
               label=f"the layer's expert GEMMs at peak ({compute_s * 1e3:.2g} ms)")
    ax.set_xscale("log", base=2)
    ax.set_ylim(bottom=0)
    ax.set_xlabel("expert-parallel ranks", fontsize=12)
    ax.set_ylabel("ms per MoE layer, forward", fontsize=12)
    ax.set_title(title or "MoE all-to-all: cheap inside the board, NIC-bound across it",
                 fontsize=13)
    ax.legend(fontsize=10, loc="center right")
    _source(ax, "llmcost.comm.moe_all_to_all_time (×2: dispatch + combine); "
                "llmcost.overlap.ep_roofline (GEMMs)")
    return ax


# ---------------------------------------------------------------- savings levers (notebook 09)
_GROUP_COLOURS = {"waste": "C2", "utilisation": "C0", "plan": "C9", "checkpoints": "C4",
                  "pricing": "C1", "hardware": "C5", "process": "C7", "strategy": "C8",
                  "RL": "C6"}


#: The most characters of a lever's name on ``lever_savings``' axis (two wrapped lines of 44).
LEVER_LABEL_CHARS = 86


def lever_savings(ranked, ax=None, scale: float | None = None, title: str = ""):
    """Net saving of each lever (``levers.rank_levers``) in ``scale`` USD (default: the unit
    that fits the largest, ``usd_scale``), with its P10-P90
    range as an error bar, coloured by group; a loss shows left of zero (an unbounded one, a run
    that never finishes, as an arrow at the left edge). Levers that change nothing on this bill
    (a saving of 0 in every draw: "already", "none given", not applicable) are left out of the
    figure, counted in its source line; the table lists each with why (a lecturer's figure had
    15 of 19 rows at $0)."""
    df = ranked.dropna(subset=["saving_usd"]).iloc[::-1]
    nothing = (df["saving_usd"] == 0) & (df["saving_p10_usd"] == 0) & (df["saving_p90_usd"] == 0)
    left_out = int(nothing.sum()) if not nothing.all() else 0
    df = df[~nothing] if left_out else df
    # two lines at most (a tick per lever: a lecturer's trial read a 330-character name
    # wrapped over seven lines and printed over its neighbour); the table has the whole name
    names = [textwrap.fill(shorten_words(s, LEVER_LABEL_CHARS), 44, break_long_words=False)
             for s in df["lever"]]
    ax = _ax(ax, figsize=(9, 0.3 * sum(n.count("\n") + 1 for n in names) + 1.6))
    y = np.arange(len(df))
    finite = np.isfinite(df["saving_usd"].to_numpy(dtype=float))
    scale = _scale_of(scale, df["saving_usd"], df["saving_p10_usd"], df["saving_p90_usd"])
    vals = np.where(finite, df["saving_usd"].to_numpy(dtype=float), 0.0) / scale
    lo = np.where(finite, df["saving_p10_usd"].to_numpy(dtype=float), 0.0) / scale
    hi = np.where(finite, df["saving_p90_usd"].to_numpy(dtype=float), 0.0) / scale
    left = min(vals.min(), lo.min(), 0.0)
    colours = [_GROUP_COLOURS.get(g, "0.5") for g in df["group"]]
    ax.barh(y, vals, color=colours)
    ax.errorbar(vals, y, xerr=[np.maximum(vals - lo, 0), np.maximum(hi - vals, 0)], fmt="none",
                ecolor="0.2", capsize=2, lw=0.8)
    for yi, ok in zip(y, finite):
        if not ok:
            ax.annotate("never finishes (loss without bound)", (left, yi), fontsize=SMALL_PT,
                        va="center", color="C3")
    ax.set_yticks(y, names)  # long names (a lever that names its target) wrapped
    ax.axvline(0, color="0.3", lw=0.8)
    ax.set_xlabel(f"net saving, {usd_unit(scale)} (bill before − after; bar: P10-P90)")
    ax.set_title(title or "Which changes save the most on this bill?")
    handles = [ax.bar(0, 0, color=c, label=g) for g, c in _GROUP_COLOURS.items()
               if g in set(df["group"])]
    ax.legend(handles=handles, fontsize=SMALL_PT, loc="lower right")
    _source(ax, "llmcost.levers.rank_levers, priced by llmcost.ledger" + (
        f"; {left_out} {'lever' if left_out == 1 else 'levers'} that change nothing on this "
        "bill left out (the table lists them)" if left_out else ""))
    return ax


def _own_bill_line(ax, df, scale: float) -> None:
    """``hardware_bills``' reference: a dashed line at the scenario's own bill, its own row at
    its own price billed at its own MFU (``bill_calibrated_usd``: the scenario's MFU × the
    predicted ratio, 1 on its own hardware), where the sweep has that row (a trial read the
    hatched bar, at the predicted MFU, as the scenario's bill, which the page's text states)."""
    own = df[df["scenario"].astype(bool) & (df["price_basis"] == "the scenario's price")] \
        if "price_basis" in df and "bill_calibrated_usd" in df else df.iloc[0:0]
    if own.empty or not np.isfinite(float(own["bill_calibrated_usd"].iloc[0])):
        return
    x = float(own["bill_calibrated_usd"].iloc[0])
    ax.axvline(x / scale, color="C3", ls="--", lw=1,
               label=f"this scenario's bill at its own MFU, {fmt_usd(x)}")
    ax.legend(fontsize=SMALL_PT, loc="upper right")  # the cheapest rows, short bars, on top


def hardware_bills(sweep, ax=None, scale: float | None = None):
    """The bill on each accelerator (``levers.hardware_sweep``) at the central estimate of its
    predicted MFU (``mfu``; ``accuracy.central_mfu``), with the
    MFU band's bills as the error bar; the scenario's accelerator hatched, and its own bill at
    its own MFU as a dashed line (``_own_bill_line``)."""
    df = sweep.iloc[::-1]
    ax = _ax(ax, figsize=(7.5, 0.4 * len(df) + 1.4))
    y = np.arange(len(df))
    scale = _scale_of(scale, df["bill_usd"])
    v = df["bill_usd"].to_numpy(dtype=float) / scale
    lo = df["bill_low_usd"].to_numpy(dtype=float) / scale
    hi = df["bill_high_usd"].to_numpy(dtype=float) / scale
    bars = ax.barh(y, v, color="C0")
    for b, own in zip(bars, df["scenario"]):
        if own:
            b.set_hatch("//")
            b.set_facecolor("C1")
    ax.errorbar(v, y, xerr=[v - np.nan_to_num(lo, nan=v.min()), hi - v], fmt="none",
                ecolor="0.2", capsize=2, lw=0.8)
    _own_bill_line(ax, df, scale)
    def flag(r):
        if r.get("scenario") or r.get("rankable", True):
            return ""
        return " †price" if not r.get("price_available", True) else " *MFU"
    def basis(r):  # the scenario's accelerator may appear at its own price and the catalogue's
        if not r.get("scenario"):
            return ""
        return ", your price" if r.get("price_basis") == "the scenario's price" else ", catalogue"
    ax.set_yticks(y, [f"{r['accelerator']} (central MFU {r.get('mfu', r['predicted_mfu']):.0%}"
                      f"{basis(r)}){flag(r)}" for _, r in df.iterrows()])
    ax.set_xlabel(f"whole bill, {usd_unit(scale)} (at the predicted MFU's central estimate; "
                  "bar: the MFU band)")
    ax.set_title("Which hardware is cheapest for this run?")
    _source(ax, "llmcost.levers.hardware_sweep; every row at the catalogue median price "
            "(data/prices.csv), the scenario's accelerator (hatched) also at its own price;\n"
            "†price listed as not available, *MFU unverified or above published: not ranked")
    return ax


# ---- ranges on the bill (llmcost.ledger.simulate_ledger)
def usd_unit(scale: float) -> str:
    """The axis unit of amounts divided by ``scale``: 'USD (millions)' for 1e6, 'USD' for 1,
    'USD (× 2e+06)' for a scale without a name (``scale_words``)."""
    return "USD" if float(scale) == 1.0 else f"USD ({scale_words(scale)})"


def scale_words(scale: float) -> str:
    """The words of a power-of-1,000 axis scale: 'thousands', 'millions', 'billions', else
    '× <scale>'."""
    return {1e3: "thousands", 1e6: "millions", 1e9: "billions"}.get(float(scale),
                                                                    f"× {scale:g}")


def bill_distribution(draws, ax=None, scale: float | None = None, bins: int = 80):
    """Histogram of the whole bill over its Monte Carlo draws (``ledger.simulate_ledger``),
    with its P10, P50 and P90 and the point bill marked."""
    ax = _ax(ax, figsize=(7, 3.6))
    scale = _scale_of(scale, draws.point.total_usd)
    unit = usd_unit(scale)
    x = np.asarray(draws.total_usd) / scale
    ax.hist(x, bins=bins, color="C0", alpha=0.6, density=True)
    q = np.quantile(x, [0.1, 0.5, 0.9])
    for v, name, ls in zip(q, ("P10", "P50", "P90"), (":", "-", "-.")):
        ax.axvline(v, color="C3", ls=ls, lw=1.4, label=f"{name} {v:,.3g}")
    point = draws.point.total_usd / scale
    ax.axvline(point, color="0.2", ls="--", lw=1.2, label=f"point bill {point:,.3g}")
    ax.legend(fontsize=SMALL_PT, loc="upper right")
    ax.set_xlabel(f"whole bill, {unit}")
    ax.set_ylabel(f"probability density (per {scale:,.0f} USD)")
    ax.set_title(f"How wide is the bill? {draws.samples:,} draws of "
                 f"{len(draws.ranges)} ranged input(s)", fontsize=10)
    _source(ax, "llmcost.ledger.simulate_ledger (seed "
            f"{draws.seed}); ranges: {', '.join(draws.ranges) or 'none'}")
    return ax


def _range_label(row) -> str:
    """A tornado row's range in words: its P10 and P90 in the input's unit where the row has
    them (``ledger.input_range_words``), else its ``range`` column as it stands."""
    if "p10" in row.index and "p90" in row.index and isinstance(row["input"], str):
        return input_range_words(row["input"], float(row["p10"]), float(row["p90"]))
    return str(row["range"])


def tornado(tornado_df, ax=None, scale: float | None = None, source: bool = True):
    """Tornado chart of ``LedgerDraws.tornado()``: for each ranged input (largest swing on
    top), the bill with that input at its P10 and at its P90, the others at their points
    (``source=False``: no source line, for a figure that writes one of its own). Each row is
    labelled with the input and its P10 and P90 in its unit (``ledger.input_range_words``, from
    the ``p10`` and ``p90`` columns; the ``range`` column where they are absent)."""
    ax = _ax(ax, figsize=(7, 0.6 * max(len(tornado_df), 1) + 1.4))
    scale = _scale_of(scale, tornado_df.attrs.get("point_usd", 0.0),
                      tornado_df["total_at_p10_usd"], tornado_df["total_at_p90_usd"])
    unit = usd_unit(scale)
    point = tornado_df.attrs.get("point_usd", 0.0) / scale
    rows = tornado_df.iloc[::-1].reset_index(drop=True)
    for i, r in rows.iterrows():
        lo, hi = r["total_at_p10_usd"] / scale, r["total_at_p90_usd"] / scale
        for v, colour in ((lo, "C0"), (hi, "C3")):
            ax.barh(i, v - point, left=point, color=colour, alpha=0.8)
        ax.annotate(f"{min(lo, hi):,.3g}", (min(lo, hi), i), ha="right", va="center",
                    fontsize=SMALL_PT, xytext=(-3, 0), textcoords="offset points")
        ax.annotate(f"{max(lo, hi):,.3g}", (max(lo, hi), i), ha="left", va="center",
                    fontsize=SMALL_PT, xytext=(3, 0), textcoords="offset points")
    ax.axvline(point, color="0.2", lw=1, label=f"point bill {point:,.3g}")
    ax.legend(fontsize=SMALL_PT, loc="lower right")
    ax.set_yticks(range(len(rows)), [f"{r['input']}\n{_range_label(r)}"
                                     for _, r in rows.iterrows()], fontsize=SMALL_PT)
    ax.set_xlabel(f"whole bill, {unit}: blue = input at its P10, red = at its P90")
    ax.set_title("Which unknown to pin down first? The bill with one input at its P10 / P90",
                 fontsize=10)
    ax.use_sticky_edges = False  # room for the labels beside bars that start at the point
    ax.margins(x=0.25)
    if source:
        _source(ax, "llmcost.ledger.LedgerDraws.tornado (others at their points)")
    return ax


def usd_scale(amount: float) -> float:
    """The axis scale of an amount in USD: 1e9, 1e6, 1e3 or 1 (the largest not above it)."""
    for scale in (1e9, 1e6, 1e3):
        if abs(amount) >= scale:
            return scale
    return 1.0


def _scale_of(scale, *amounts) -> float:
    """``scale`` if given, else ``usd_scale`` of the largest finite |amount| (a $48 bill drawn
    in USD, a $48M one in millions: an axis in millions made a small bill read 4.8e-05)."""
    if scale is not None:
        if not float(scale) > 0:
            raise ValueError(f"scale={scale!r} must be > 0 (the amounts are divided by it)")
        return float(scale)
    a = np.abs(np.concatenate([np.ravel(np.asarray(x, dtype=float)) for x in amounts]))
    a = a[np.isfinite(a)]
    return usd_scale(float(a.max()) if a.size else 0.0)


#: The width (inches) of ``bill_at_a_glance``'s phone picture: drawn in a 390-px-wide screen's
#: 358 px, its 11-pt text reads at 11 × 358 ÷ (72 × 4.5) = 12.2 px (an SVG is laid out at
#: 72 dpi; 8 inches gave 6.8 px); tests/test_browser_report.py measures it.
GLANCE_TALL_WIDTH_IN = 4.5


def glance_figsize(n_lines: int, n_inputs: int, tall: bool = False) -> tuple:
    """The size (inches) of ``bill_at_a_glance`` for ``n_lines`` bars and ``n_inputs`` tornado
    rows: side by side (15 wide), or ``tall``, one above the other for a phone
    (``GLANCE_TALL_WIDTH_IN`` wide, each row taller: its labels wrap on more lines)."""
    if tall:
        return (GLANCE_TALL_WIDTH_IN, 0.8 * n_lines + 1.4 * max(n_inputs, 1) + 6.0)
    return (15.0, max(4.5, 0.62 * max(n_lines, n_inputs * 1.5) + 2.4))


def glance_grid(tall: bool = False) -> tuple:
    """Rows and columns of ``bill_at_a_glance``'s two axes."""
    return (2, 1) if tall else (1, 2)


def glance_ratios(n_lines: int, n_inputs: int, tall: bool = False) -> dict:
    """``gridspec_kw`` of ``bill_at_a_glance``: the bars wider than the tornado side by side, or
    each as tall as its rows one above the other."""
    if tall:
        return {"height_ratios": (n_lines + 1, 1.8 * max(n_inputs, 1) + 1)}
    return {"width_ratios": (1.25, 1)}


#: Characters per line of the wide glance figure's title (``bill_at_a_glance``): its 15-pt bold
#: title spans the figure's width at about 120 (a trial's 65-character scenario title with the
#: bill's range, 130, lost its first and last characters); wrapped below that with room to spare.
GLANCE_TITLE_CHARS = 95


def bill_at_a_glance(bars, tornado_df, title: str = "", scale: float | None = None,
                     axes=None, illustrative: bool = False, tall: bool = False,
                     basis: str | None = None):
    """The bill as one picture. Left: each line of ``ledger.bill_bars`` (largest on top) as a
    bar at its point with a whisker from its P10 to its P90, the whole bill last in dark grey;
    right: which unknown to pin down first (``tornado`` of ``LedgerDraws.tornado()``). The
    figure's title names the scenario (``title``) and the whole bill with its range; amounts in
    ``scale`` (chosen from the total when None). Made readable when projected (``readable``).
    Each bar's label reads ``point (P10–P90)``, a dot marks its P50 (the median, also in the
    title for the whole bill); a line whose point lies outside its
    own P10-P90 (``bars['point_outside']``, ``ledger.point_outside``) carries a ``*`` and the
    figure's footnote says why (``ledger.OUTSIDE_NOTE``), as the text bars do. ``basis``: what
    the ranges come from (``ledger.range_basis``, said in the source line); without it,
    ``illustrative`` says they are all ``ledger.illustrative_ranges``. ``tall``: the tornado
    below the bars (a phone's page). Returns the two Axes."""
    total = bars.loc["total"]
    scale = scale or usd_scale(max(total["p90_usd"], total["point_usd"]))
    unit = usd_unit(scale)
    n = len(bars)
    if axes is None:
        import matplotlib.pyplot as plt

        _, axes = plt.subplots(*glance_grid(tall), figsize=glance_figsize(
            n, len(tornado_df), tall), gridspec_kw=glance_ratios(n, len(tornado_df), tall))
    ax, ax2 = axes
    fig = ax.figure
    y = np.arange(n)[::-1].astype(float)  # the first row on top
    pt, lo, hi = (bars[c].to_numpy(dtype=float) / scale for c in ("point_usd", "p10_usd",
                                                                      "p90_usd"))
    colours = ["0.25" if k == "total" else "C0" for k in bars.index]
    ax.barh(y, pt, color=colours, alpha=0.85, height=0.6)
    ax.hlines(y, lo, hi, color="C3", lw=2)
    for x in (lo, hi):
        ax.plot(x, y, "|", color="C3", ms=14, mew=2)
    right = float(np.nanmax(np.maximum(hi, pt)))
    outside = (bars["point_outside"].astype(bool).tolist() if "point_outside" in bars else
               [point_outside(r.point_usd, r.p10_usd, r.p90_usd) for r in bars.itertuples()])
    if "p50_usd" in bars:  # the median of each line, a dot on its whisker
        ax.plot(bars["p50_usd"].to_numpy(dtype=float) / scale, y, "o", color="k", ms=5)
    gap = "\n" if tall else "  "  # a phone's narrow picture: the range under the point
    for yi, p, a, b, out in zip(y, bars["point_usd"], bars["p10_usd"], bars["p90_usd"],
                                outside):
        x = max(p, b) / scale
        ax.annotate(f"{fmt_usd(p)}{'*' if out else ''}{gap}({fmt_usd(a)}–{fmt_usd(b)})",
                    (x, yi), xytext=(6, 0), textcoords="offset points", va="center",
                    fontsize=11, parse_math=False)  # dollar amounts, never TeX between two "$"
    ax.set_xlim(0, right * (2.1 if tall else 1.75))
    ax.set_yticks(y, [textwrap.fill(str(s), 15 if tall else 26, break_long_words=False,
                                    break_on_hyphens=False) for s in bars["line"]])
    ax.set_xlabel(textwrap.fill(f"{unit}: bar = point estimate, red whisker = P10–P90"
                                + (", dot = P50 (median)" if "p50_usd" in bars else ""),
                                22 if tall else 200))
    ax.set_title("Where does the money go, and how sure is each line?" if not tall else
                 "Where does the money go,\nand how sure is each line?")
    if len(tornado_df):
        width = 16 if tall else 24
        named = tornado_df.assign(
            input=[textwrap.fill(input_words(k), width) for k in tornado_df["input"]],
            range=[textwrap.fill(_range_label(r), width, break_long_words=False)
                   for _, r in tornado_df.iterrows()]).drop(columns=["p10", "p90"],
                                                           errors="ignore")
        named.attrs = dict(tornado_df.attrs)
        tornado(named, ax=ax2, scale=scale, source=False)
        ax2.set_title("Which unknown to pin down\nfirst? (the bill with one\ninput at its P10 "
                      "and at its P90)" if tall else "Which unknown to pin down first?\n(the "
                      "bill with one input\nat its P10 and at its P90)")
        ax2.set_xlabel(f"whole bill, {unit}\nblue: input at its P10; red: at its P90")
        if tall and ax2.get_legend() is not None:  # a narrow picture: no room for a legend
            ax2.get_legend().remove()
            ax2.set_xlabel(f"whole bill, {unit}; line: the point bill, "
                           f"{tornado_df.attrs.get('point_usd', 0.0) / scale:,.3g}\n"
                           "blue: input at its P10; red: at its P90")
            ax2.margins(x=0.4)  # room for the amounts beside the bars
    else:
        ax2.axis("off")
        ax2.text(0.5, 0.5, "no ranged input:\nnothing drives a spread", ha="center",
                 va="center", transform=ax2.transAxes)
    head = (f"{title}: " if title else "") + (
        f"the whole bill {fmt_usd(total['point_usd'])}, P10–P90 {fmt_usd(total['p10_usd'])}–"
        f"{fmt_usd(total['p90_usd'])}"
        + (f" (P50 {fmt_usd(total['p50_usd'])})" if "p50_usd" in total else ""))
    head = textwrap.fill(head, 30 if tall else GLANCE_TITLE_CHARS, break_long_words=False)
    fig.suptitle(head, fontsize=15, fontweight="bold", parse_math=False)
    if basis is None:
        basis = ("illustrative ranges: the scenario gives every input as one number"
                 if illustrative else "the scenario's ranges")
    merged = bars.attrs.get("merged") or []   # the "smaller lines" row, named (a lecturer)
    notes = ([f"* {OUTSIDE_NOTE}"] if any(outside) else []) + [
        "Bars: this scenario's bill, line by line; whiskers and dots: the P10, P50 and P90 of "
        f"Monte Carlo draws of the bill over {basis}; tornado: the whole bill recomputed with "
        "one input at its P10, then at its P90, the others at their point values"] + (
        [f"The {len(merged)} smaller lines: {', '.join(merged)}"] if merged else [])
    _source(ax, "\n\n".join(notes))  # one paragraph each (readable wraps them)
    _glance_layout(fig, head, tall)
    for _ in range(2):  # a phone's rows: a label wrapped on many lines must not reach the next
        grow = _row_overlap_in(ax, GLANCE_ROW_GAP_PT) if tall else 0.0
        if grow <= 0:
            break
        fig.set_figheight(fig.get_figheight() + grow)
        _glance_layout(fig, head, tall)
    return axes


#: The least space (points) between two bar labels of ``bill_at_a_glance``'s phone picture, one
#: above the other (a presentation choice: half the 11-pt labels' line).
GLANCE_ROW_GAP_PT = 5.5


def _glance_layout(fig, head: str, tall: bool) -> None:
    """``bill_at_a_glance``'s layout: readable text, tight layout with the foot's room, and the
    title's height (about 0.45 in a line at 15 pt) kept free at the top."""
    readable(fig)  # tight layout leaves the foot room
    lines = head.count("\n") + 1
    room = (0.45 * lines + 0.4) if tall else max(0.9, 0.45 * lines + 0.45)
    fig.subplots_adjust(top=min(fig.subplotpars.top, 1 - room / fig.get_figheight()))


def _row_overlap_in(ax, gap_pt: float) -> float:
    """How much taller (inches) ``ax``'s figure must be for its y tick labels, one per row, to
    stand ``gap_pt`` apart (0 when they do): the rows are evenly spaced, so the closest pair of
    neighbours decides, and each of the axis' rows (its y range) grows by that pair's shortfall;
    the figure grows by the axes' growth over the axes' share of its height (the margins grow
    too, so this errs on the roomy side). A phone's bill labels wrap at 15 characters: "exploratory
    and failed runs, net of RL post-training and benchmark runs" is six lines, and at the evenly
    spaced rows of ``glance_figsize`` it reached into the row below (a trial measured its box
    2.9 px into the next label's at 390 px)."""
    fig = ax.figure
    fig.draw_without_rendering()  # the labels' extents as drawn
    boxes = sorted((t.get_window_extent() for t in ax.get_yticklabels() if t.get_text()),
                   key=lambda b: -b.y1)
    if len(boxes) < 2:
        return 0.0
    short_px = max(low.y1 - high.y0 for high, low in zip(boxes, boxes[1:])) \
        + gap_pt * fig.dpi / 72  # display px, y upward: > 0 when too close
    if short_px <= 0:
        return 0.0
    rows = abs(ax.get_ylim()[1] - ax.get_ylim()[0])
    return rows * short_px / fig.dpi / ax.get_position().height


# ---- two bills compared (llmcost report --compare, estimate --compare)
def signed_usd(amount) -> str:
    """A difference in USD with its sign, as every comparison writes it (the index's table and
    figure, ``estimate --compare``): "−$36.4k", "+$863k", "$0.00"; "not modelled" for None or
    NaN (a line one bill does not price)."""
    if amount is None or amount != amount:
        return "not modelled"
    return ("−" if amount < 0 else "+" if amount > 0 else "") + fmt_usd(abs(float(amount)))


#: The width (inches) of ``bill_difference``'s phone picture (as ``GLANCE_TALL_WIDTH_IN``).
DIFFERENCE_TALL_WIDTH_IN = GLANCE_TALL_WIDTH_IN


def difference_rows(df) -> pd.DataFrame:
    """The lines ``bill_difference`` draws from a comparison (``glance.compare_bills``: ``line``,
    ``<A> usd``, ``<B> usd``, ``difference usd``, with ranges ``difference p10 usd`` and
    ``difference p90 usd``): each line whose difference B - A, or its P10 or P90 per draw, is not
    zero, largest |difference| first, then the total (the table's last row). Columns ``line``,
    ``diff``, ``p10``, ``p90`` (the difference itself where there are no ranges)."""
    diff = df["difference usd"].astype(float)
    lo = df["difference p10 usd"].astype(float) if "difference p10 usd" in df else diff
    hi = df["difference p90 usd"].astype(float) if "difference p90 usd" in df else diff
    out = pd.DataFrame({"line": df["line"], "diff": diff, "p10": lo, "p90": hi})
    body, total = out.iloc[:-1], out.iloc[-1:]
    body = body[(body[["diff", "p10", "p90"]] != 0).any(axis=1)]
    body = body.reindex(body["diff"].abs().sort_values(ascending=False, kind="stable").index)
    return pd.concat([body, total], ignore_index=True)


def bill_difference(df, names: tuple, tall: bool = False, axes=None):
    """What changes from bill A to bill B (``glance.compare_bills``; ``names``: A's and B's):
    one bar per line of B - A (``difference_rows``: lines that differ, largest first, the whole
    bill last in dark grey), blue where B costs less, orange where it costs more, with the
    P10-P90 of the difference per draw as a black whisker when either scenario has ranges
    (both bills drawn with the same random numbers: ``ledger.compare_draws``). Each bar is
    labelled with its signed amount. ``tall``: a phone's narrow picture. Returns the Axes."""
    rows = difference_rows(df)
    total_a = float(df[f"{names[0]} usd"].iloc[-1])
    scale = _scale_of(None, rows[["diff", "p10", "p90"]].to_numpy(dtype=float))
    unit = usd_unit(scale)
    n = len(rows)
    size = (DIFFERENCE_TALL_WIDTH_IN if tall else 11.0,
            (0.9 if tall else 0.55) * n + (4.2 if tall else 2.6))
    ax = _ax(axes, figsize=size)
    fig = ax.figure
    fig.set_size_inches(size)  # an Axes given in a figure of another size too
    y = np.arange(n)[::-1].astype(float)  # the first row on top, the total at the foot
    d, lo, hi = (rows[c].to_numpy(dtype=float) / scale for c in ("diff", "p10", "p90"))
    last = np.arange(n) == n - 1
    colours = np.where(last, "0.25", np.where(d < 0, "C0", "C1"))
    ax.barh(y, d, color=list(colours), alpha=0.85, height=0.6)
    ranged = bool(np.any(lo != d) or np.any(hi != d))
    if ranged:
        ax.hlines(y, lo, hi, color="k", lw=1.5)
    ax.axvline(0, color="k", lw=0.8)
    gap = "\n" if tall else " "
    starred = False
    for yi, r, v in zip(y, rows.itertuples(), d):
        star = ranged and point_outside(r.diff, r.p10, r.p90)  # as the table marks it
        starred = starred or star
        text = signed_usd(r.diff) + ("*" if star else "") + (
            f"{gap}({signed_usd(r.p10)} to {signed_usd(r.p90)})" if ranged else "")
        # each amount in a column right of the bars, on its row: beside a bar it ran into the
        # line names (a negative bar) or off the picture (a trial's phone at 390 px)
        ax.annotate(text, (1.0, yi), xycoords=("axes fraction", "data"), xytext=(8, 0),
                    textcoords="offset points", ha="left", va="center", fontsize=11,
                    parse_math=False)
    left, right = min(0.0, np.nanmin([d, lo, hi])), max(0.0, np.nanmax([d, lo, hi]))
    pad = 0.05 * (right - left or 1.0)
    ax.set_xlim(left - pad, right + pad)
    ax.set_yticks(y, [textwrap.fill(str(s), 13 if tall else 30, break_long_words=False)
                      for s in rows["line"]])
    ax.set_xlabel(f"B − A, {unit}" + (": bar = difference of the point bills, whisker = its "
                                      "P10–P90 per draw" if ranged else ""))
    t = float(rows["diff"].iloc[-1])
    share = f" ({fmt_signed_pct(t / total_a)} of A)" if total_a else ""
    head = f"What changes from A to B? B\u00a0−\u00a0A\u00a0= {signed_usd(t)}{share}"
    # a phone's picture: the title right-aligned over the bars, wrapped, reaching over the labels
    ax.set_title(textwrap.fill(head, 28) if tall else head, fontweight="bold", parse_math=False,
                 loc="right" if tall else "center")
    same = len(df) - n
    _source(ax, f"A: {names[0]}; B: {names[1]}. Each bar: B's line minus A's "
            "(llmcost.ledger.compare)" + ("; whiskers: the P10 and P90 of the difference, "
                                          "draw by draw over the same random numbers "
                                          "(ledger.compare_draws)" if ranged else "")
            + (f". {same} line{'s' if same > 1 else ''} the same in both, not drawn"
               if same else "") + "."
            + (" * B − A outside its own P10–P90: a stated value sits at the edge of its "
               "range." if starred else ""))
    readable(fig)
    return ax


# ---- published runs (notebook 08, llmcost.claims)
def published_runs_scatter(errors, band: float = 0.20, ax=None):
    """Predicted against published accelerator-hours on log axes with the ±``band`` band, one
    marker per prediction method (``claims.published_run_errors`` rows that are scored; its
    ``plot_*_hours`` columns put steady-state rows on the same axes as hours of 10^21 FLOPs)."""
    ax = _ax(ax, figsize=(7, 5.2))
    d = errors[errors["scored"] != ""]
    by_plan = d["method"].str.startswith("step-time")
    whole = d["scored"] == "gpu_hours"
    for mask, label, mk in ((whole & by_plan, "whole run, step-time model on its plan", "s"),
                            (whole & ~by_plan, "whole run, leave-one-out median", "o"),
                            (~whole, "steady-state benchmark (hours of 1e21 FLOP)", "^")):
        ax.scatter(d.loc[mask, "plot_published_hours"], d.loc[mask, "plot_predicted_hours"],
                   marker=mk, label=label, alpha=0.8)
    lo = float(np.nanmin(d["plot_published_hours"])) / 2
    hi = float(np.nanmax(d["plot_published_hours"])) * 2
    x = np.geomspace(lo, hi, 10)
    ax.plot(x, x, "k-", lw=1)
    ax.fill_between(x, (1 - band) * x, (1 + band) * x, color="grey", alpha=0.2,
                    label=f"±{band:.0%}")
    ax.set(xscale="log", yscale="log", xlabel="published accelerator-hours",
           ylabel="predicted accelerator-hours")
    ax.set_title("How close are the predicted hours to the published ones?", fontsize=10)
    ax.legend(fontsize=SMALL_PT)
    _source(ax, "data/published_runs.csv (sources per row); llmcost.claims.published_run_errors")
    return ax

# ---- figures readable when projected (used by notebooks 01, 02, 10)
#: The smallest text size (points) a projected figure keeps: ticks, legends and annotations.
PROJECTOR_MIN_FONTSIZE = 11.0


def readable(obj, min_fontsize: float = PROJECTOR_MIN_FONTSIZE):
    """Make a figure readable on a projector: every text of the figure (tick labels, legends,
    annotations, titles) grows to at least ``min_fontsize`` points, axis labels and titles to
    ``min_fontsize + 2``; the source line at the foot wraps at ``min_fontsize - 2`` (each
    paragraph of it, separated by a blank line, on lines of its own); and the
    layout is redone (``tight_layout``) with room for it (for ``_source``'s ``supxlabel``, which
    tight layout places itself, or a band at the figure's foot for a source line that is an
    annotation in figure fraction), so that no text overlaps an axis label.
    Takes an Axes, an array of Axes or a Figure; returns it.
    """
    import matplotlib.text as mtext

    first = np.ravel(obj)[0] if isinstance(obj, np.ndarray) else obj
    fig = first if hasattr(first, "get_axes") and not hasattr(first, "figure") or \
        first.__class__.__name__ == "Figure" else first.figure
    big, notes = set(), []
    for ax in fig.get_axes():
        big.update([ax.xaxis.label, ax.yaxis.label, ax.title])
    for t in fig.findobj(mtext.Text):
        if getattr(t, "_llmcost_source", False) or (isinstance(t, mtext.Annotation)
                                                    and t.xycoords == "figure fraction"):
            notes.append(t)  # the source line at the foot of the figure (``_source``)
            continue
        floor = min_fontsize + 2 if t in big else min_fontsize
        if t.get_text() and t.get_fontsize() < floor:
            t.set_fontsize(floor)
    for ax in fig.get_axes():  # larger text: wrap axis labels that no longer fit their side
        pos = ax.get_position()
        for label, inches in ((ax.xaxis.label, pos.width * fig.get_figwidth()),
                              (ax.yaxis.label, pos.height * fig.get_figheight())):
            room = max(12, int(inches * 72 / (0.58 * label.get_fontsize())))
            lines = label.get_text().split("\n")  # a line break written is kept
            if max(map(len, lines)) > room:
                label.set_text("\n".join(textwrap.fill(s, room, break_long_words=False)
                                         for s in lines))
    right = max((a.get_position().x1 for a in fig.get_axes()), default=1.0)
    for ax in fig.get_axes():  # larger text: legends move off the data
        leg = ax.get_legend()
        if leg is None or not hasattr(leg, "set_loc"):
            continue
        if len(leg.get_texts()) >= 4 and ax.get_position().x1 >= right - 1e-9:
            leg.set_bbox_to_anchor((1.01, 1.0), transform=ax.transAxes)  # beside the plot
            leg.set_loc("upper left")
        else:
            leg.set_loc("best")  # the emptiest corner at the new text size
    width_in = fig.get_figwidth()
    room = max(40, int(width_in * 72 / (0.6 * (min_fontsize - 2))))  # characters per line
    lines = 0
    for t in notes:  # wrap the source line by hand, so that its height is known
        t.set_fontsize(min_fontsize - 2)
        t.set_text("\n".join(textwrap.fill(" ".join(par.split()), room, break_long_words=False)
                             for par in t.get_text().split("\n\n")))  # a blank line: a paragraph
        if t.get_in_layout() and getattr(t, "_llmcost_source", False):
            continue  # the figure's supxlabel (``_source``): tight_layout leaves it room itself
        lines = max(lines, t.get_text().count("\n") + 1)
    foot = min(0.3, (lines * 1.25 * (min_fontsize - 2) + 4) / 72 / fig.get_figheight())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "layout has changed to tight" for constrained figures
        fig.set_layout_engine("none")
        with ticks_computed_once(fig):
            fig.tight_layout(rect=(0, foot, 1, 1))
    return obj


def moe_dense_equivalent(compared, ax=None, cutoff_params=None, fit_range=None,
                         n_experts: int = 64):
    """How many times bigger a dense model must be to match an MoE, by each MoE fit, against
    the MoE's active parameters (``laws.moe.moe_fits_compared``): Clark et al. 2022's effective
    parameter count at their 130B tokens, Krajewski et al. 2024's compute-optimal dense
    equivalent. ``cutoff_params``: Clark's routing cutoff; ``fit_range``: (lo, hi) active
    parameters of the runs behind Krajewski's fit, shaded."""
    ax = _ax(ax, figsize=(7.5, 4.5))
    n = compared.active_params
    ax.plot(n, compared.clark_dense_equivalent_ratio, lw=2, color="C0",
            label=f"Clark et al. 2022 (S-BASE, {n_experts} experts, 130B tokens)")
    ax.plot(n, compared.krajewski_dense_equivalent_ratio, lw=2, color="C1",
            label="Krajewski et al. 2024 (compute-optimal N, D, G)")
    ax.axhline(1.0, color="0.5", lw=1, ls=":")
    if cutoff_params is not None:
        ax.axvline(cutoff_params, color="C0", ls="--", lw=1, label="Clark's routing cutoff")
    if fit_range is not None:
        ax.axvspan(*fit_range, color="C1", alpha=0.08, label="Krajewski's runs (active)")
    ax.set_xscale("log")
    return _finish_axes(ax, "MoE active parameters", "dense-equivalent parameters ÷ active "
                        "parameters", "Is an MoE worth a bigger dense model? The fits disagree",
                        "upper right", "Clark et al. 2022 (arXiv:2202.01169) Table 3; Krajewski "
                        "et al. 2024 (arXiv:2402.07871) Table 1; llmcost.laws.moe")


def overtraining_tradeoff(table, ax=None, usd_per_flop=None):
    """Over-training a model of fixed size (``laws.moe.overtraining``): the loss it reaches and
    the training compute it costs (× the compute-optimal model of the same loss), against the
    factor k past its compute-optimal tokens. ``usd_per_flop``: a second axis in dollars."""
    ax = _ax(ax, figsize=(7.5, 4.5))
    k = table.factor
    ax.plot(k, table.loss, "o-", color="C0", lw=2, label="loss reached (left)")
    ax.set_xscale("log")
    ax.set_xlabel("tokens ÷ compute-optimal tokens for this size (k)", fontsize=12)
    ax.set_ylabel("pre-training loss (nats/token, the fit's data)", fontsize=12)
    ax2 = ax.twinx()
    y = table.train_flops * (usd_per_flop or 1.0)
    ax2.plot(k, y, "s--", color="C3", lw=2, label="training " + ("USD" if usd_per_flop
                                                                  else "FLOPs") + " (right)")
    ax2.plot(k, table.optimal_train_flops * (usd_per_flop or 1.0), "^:", color="0.4", lw=1.5,
             label="compute-optimal model of the same loss (right)")
    ax2.set_yscale("log")
    ax2.set_ylabel("training USD" if usd_per_flop else "training FLOPs", fontsize=12)
    lines = ax.get_legend_handles_labels()
    more = ax2.get_legend_handles_labels()
    ax.legend(lines[0] + more[0], lines[1] + more[1], fontsize=9, loc="upper center")
    ax.set_title("Over-training: a little loss for a lot of compute", fontsize=13)
    _source(ax, "llmcost.laws.moe.overtraining (Hoffmann-form fit; Gadre et al. 2024, "
                "arXiv:2403.08540; Sardana et al. 2024, arXiv:2401.00448)")
    return ax


def route_bills(routes, ax=None, scale: float | None = None):
    """Train, fine-tune, distil or retrieve? One stacked bar per route
    (``bill.alternatives.price_routes``): one-off cost and lifetime serving, in ``scale`` USD."""
    ax = _ax(ax, figsize=(8, 4.5))
    y = np.arange(len(routes))[::-1]
    scale = _scale_of(scale, routes.one_off_usd + routes.serving_usd)
    one, serve = routes.one_off_usd / scale, routes.serving_usd / scale
    ax.barh(y, one, color="C0", label="one-off (training, data, index)")
    ax.barh(y, serve, left=one, color="C1", alpha=0.8, label="lifetime serving")
    ax.set_yticks(y, routes.route)
    ax.set_xlim(0, 1.5 * float((one + serve).max()))  # room for the legend beside the bars
    ax.set_xlabel(f"cost, {usd_unit(scale)}", fontsize=12)
    ax.set_title("The bill of each route to the same goal (quality not modelled)", fontsize=13)
    ax.legend(fontsize=9, loc="center right")
    _source(ax, "llmcost.bill.alternatives.price_routes (ledger lines; serving: "
                "llmcost.inference.serving_cost, a lower bound)")
    return ax


# ---- what the bill guesses: Epoch's decomposition and hardware over time
def epoch_shares(decomposition, ax=None):
    """The bill's hardware, staff and energy shares (``published.epoch_decomposition``) as
    bars, Cottier et al. 2024's ranges as grey spans behind them."""
    ax = _ax(ax, figsize=(7, 3.2))
    d = decomposition
    y = np.arange(len(d))
    for i, r in enumerate(d.itertuples()):
        ax.barh(i, (r.epoch_high - r.epoch_low) * 100, left=r.epoch_low * 100, height=0.8,
                color="0.85", label="Cottier et al. 2024 range" if i == 0 else None)
    ax.barh(y, d["share"].to_numpy(dtype=float) * 100, height=0.35, color="C0",
            label="this bill (owned pricing)")
    for i, r in enumerate(d.itertuples()):
        inside = r.share > 0.85  # a label past the axis end goes inside the bar
        ax.annotate(f"{r.share:.0%}", (r.share * 100, i), xytext=(-30 if inside else 4, 0),
                    textcoords="offset points", va="center", fontsize=10,
                    color="white" if inside else "black")
    ax.set_yticks(y, list(d["component"]))
    ax.set_xlim(0, 100)
    ax.set_ylim(-0.6, len(d) + 0.4)
    ax.set_xlabel("share of hardware + staff + energy (%)", fontsize=12)
    ax.set_title("Where does this bill fall in Epoch's decomposition?", fontsize=13)
    ax.legend(fontsize=9, loc="upper right", ncols=2)
    ax.figure.supxlabel("Cottier et al. 2024, arXiv:2405.21015 (GPT-3, OPT-175B, GPT-4, Gemini "
                        "Ultra); bill: llmcost.published.epoch_decomposition",
                        x=0.01, ha="left", fontsize=SMALL_PT, color="0.4")
    return ax


def hardware_price_performance(series, forecast, axes=None, scale: float | None = None):
    """Left: dense peak FLOP/s per dollar of each generation over time (purchase and the first
    on-demand GPU-hour), log scale. Right: the bill's GPU-hour lines re-priced on the trend
    (``published.repriced_forecast``), the band from the slowest to the fastest generation
    step, Epoch's 0.14 OOM/year dashed."""
    if axes is None:
        import matplotlib.pyplot as plt

        _, axes = plt.subplots(1, 2, figsize=(11, 4), layout="constrained")
    left, right = axes
    for kind, marker, unit in (("purchase", "o", "FLOP/s per $ of purchase"),
                               ("rent_on_demand", "s", "FLOP/s per $/GPU-h of rent ÷ 1e4")):
        d = series[series["kind"] == kind].sort_values("year")
        v = d["flops_per_usd"] / (1e4 if kind == "rent_on_demand" else 1.0)
        left.plot(d["year"], v, marker=marker, label=unit)
        for r, val in zip(d.itertuples(), v):
            left.annotate(r.accelerator.split("-")[0], (r.year, val), xytext=(3, 3),
                          textcoords="offset points", fontsize=SMALL_PT)
    left.set_yscale("log")
    left.set_xlabel("date of the price", fontsize=12)
    left.set_ylabel("dense peak FLOP/s per USD (log)", fontsize=12)
    left.set_title("What does a FLOP/s cost, per generation?", fontsize=13)
    left.legend(fontsize=9, loc="upper left")
    f = forecast
    scale = _scale_of(scale, f["gpu_usd_high"], f["gpu_usd_trend"])
    right.fill_between(f["years"], f["gpu_usd_low"] / scale, f["gpu_usd_high"] / scale,
                       color="C0", alpha=0.2, label="slowest to fastest generation step")
    right.plot(f["years"], f["gpu_usd_trend"] / scale, "C0-o", label="fitted trend")
    right.plot(f["years"], f["gpu_usd_epoch"] / scale, "k--", label="Epoch: 0.14 OOM/year")
    right.set_ylim(bottom=0)
    right.set_xticks(list(f["years"]))
    right.set_xlabel("years from now", fontsize=12)
    right.set_ylabel(f"GPU-hour lines, {usd_unit(scale)}", fontsize=12)
    right.set_title("What will this run cost next year?", fontsize=13)
    right.legend(fontsize=9, loc="lower left")
    # the source line as the figure's footer: the layout keeps room for it below both axes
    left.figure.supxlabel("prices: data/hardware_price_series.csv (Epoch AI's price dataset, "
                          "AWS, Barron's); trend: llmcost.published.price_performance_trend",
                          x=0.01, ha="left", fontsize=SMALL_PT, color="0.4")
    return axes


#: the storage trade-off figure's y axis runs to this many times the optimum's sum
TRADEOFF_Y_SPAN = 10.0


def storage_tradeoff_curve(tradeoff, ax=None, marks=()):
    """Checkpoint storage against the GPU time it saves: hot-storage cost, the cost of GPU time
    lost to writes and restores, and their sum, against the aggregate storage bandwidth
    (``reliability.storage_tradeoff``); the optimum marked, and ``marks`` ({label: bytes/s}) as
    vertical lines. The y axis runs to ``TRADEOFF_Y_SPAN`` × the optimum's sum (or the sums' 90th
    percentile if lower), in the USD unit that fits it: on a cluster whose goodput collapses on
    slow storage the sum grows by orders of magnitude there, and an axis sized to those values
    would flatten every curve near the optimum."""
    ax = _ax(ax, figsize=(8, 5))
    gbs = tradeoff.index.values / 1e9
    best = tradeoff.attrs["optimum_bytes_per_s"]
    total = np.asarray(tradeoff["total_usd"], dtype=float)
    top = min(float(np.nanpercentile(total[np.isfinite(total)], 90)),
              TRADEOFF_Y_SPAN * float(tradeoff.loc[best, "total_usd"]))
    scale = next(s for s in (1e9, 1e6, 1e3, 1.0) if top >= s or s == 1.0)
    for col, label, style in (("storage_usd", "hot storage, provisioned for the bandwidth", "--"),
                              ("lost_usd", "GPU time lost to checkpoints and restores", ":"),
                              ("total_usd", "sum", "-")):
        ax.plot(gbs, tradeoff[col] / scale, style, lw=2, label=label)
    ax.plot([best / 1e9], [tradeoff.loc[best, "total_usd"] / scale], "ko",
            label=f"optimum: {rel.gb_per_s_text(best)}")
    for i, (label, b) in enumerate(dict(marks).items()):
        ax.axvline(b / 1e9, color=f"C{i + 3}", lw=1, label=label)
    ax.set_xscale("log")
    ax.set_ylim(0, top / scale * 1.1)
    ax.set_xlabel("aggregate checkpoint-storage bandwidth (GB/s)", fontsize=12)
    ax.set_ylabel(f"{usd_unit(scale)} over the run", fontsize=12)
    ax.set_title("How fast should checkpoint storage be?", fontsize=13)
    ax.legend(fontsize=9, loc="upper center")
    _source(ax, "llmcost.reliability.storage_tradeoff (Daly 2006 goodput; storage prices and "
            "throughput per TiB: data/storage_prices.csv)")
    return ax
def gemm_efficiency_by_shape(series: dict, curves: dict, ceilings: dict, ax=None):
    """Achieved share of the dense peak of one GEMM against its FLOPs: the measured kernel table
    (``series``: label -> ``gemm.reproduce`` frame, points) and the curve ``gemm.gemm_fraction``
    (``curves``: label -> (flops, fraction) lines, e.g. square and short-inner-dimension GEMMs),
    with each accelerator's large-GEMM ceiling (``ceilings``: label -> matmul_fraction, dotted).
    """
    import matplotlib.pyplot as plt

    ax = _ax(ax, figsize=(9, 5))
    cmap = plt.get_cmap("tab10")
    for i, (label, r) in enumerate(series.items()):
        ax.scatter(r["flops"], 100 * r["measured_fraction"], s=8, alpha=0.45, color=cmap(i),
                   label=f"{label}: measured ({len(r)} shapes)")
    for j, (label, (flops, frac)) in enumerate(curves.items()):
        ax.plot(flops, 100 * np.asarray(frac), color=cmap(j // 2), lw=1.6,
                ls="-" if j % 2 == 0 else "--", label=label)
    for i, (label, f) in enumerate(ceilings.items()):
        ax.axhline(100 * f, color=cmap(i), ls=":", lw=1, label=f"{label} ceiling {f:.1%}")
    ax.set_xscale("log")
    ax.set_xlabel("GEMM FLOPs (2·b·m·n·k)", fontsize=12)
    ax.set_ylabel("achieved share of the dense peak (%)", fontsize=12)
    ax.set_title("How fast does one GEMM run? Kernel table and curve", fontsize=13)
    ax.legend(fontsize=SMALL_PT, loc="upper left")
    _source(ax, "openxla/xla default_matmul_perf_table.txtpb @ ad6eaee1b2f1 (CUPTI kernel times); "
                "ceilings: stas00/ml-engineering MAMF; curve: llmcost.training.gemm")
    return ax
