"""plots.LiveFigure, the figure an Explore panel keeps and redraws in place: its first picture is
the one the inline backend would show for a new figure (constrained layout, then
``print_figure(bbox_inches="tight")`` at the figure's resolution, as matplotlib_inline calls
it), pixel for pixel; and ``clear`` leaves nothing behind, so that going back to the first state
gives the first picture again, byte for byte."""

from __future__ import annotations

import contextlib
import io
from unittest import mock

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")
pytest.importorskip("IPython")
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from PIL import Image

from llmcost.present import plots
from llmcost.training import memory


def _inline_png(fig, fmt: str = "png") -> bytes:
    """What matplotlib_inline shows for ``fig`` (its default ``print_figure_kwargs``), as a PNG
    or (``fmt="svg"``) as the SVG a report's kernel prints (``kernels.svg_figures``: text as
    text, fixed ids, no date)."""
    buf = io.BytesIO()
    svg = {"metadata": {"Date": None}} if fmt == "svg" else {}
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "llmcost"}):
        fig.canvas.print_figure(buf, format=fmt, bbox_inches="tight", dpi=fig.dpi,
                                facecolor=fig.get_facecolor(), edgecolor=fig.get_edgecolor(),
                                **svg)
    plt.close(fig)
    return buf.getvalue()


#: ``_matplotlibs``'s pictures, one per figure maker and format.
_REFERENCES: dict = {}


def _matplotlibs(make, fmt: str = "png") -> bytes:
    """What matplotlib itself prints for the figure ``make()`` draws (``_inline_png``), with
    matplotlib's own methods (none of ``plots``' speed-ups installed: checked against the
    methods this module found at import), drawn once per maker, format and settings in this
    process and kept: the tests below compare several speed-ups' pictures of the same figures
    with the same reference."""
    key = (make, fmt, tuple(sorted((k, repr(v)) for k, v in matplotlib.rcParams.items())))
    if key not in _REFERENCES:
        assert _plain_methods() == _PLAIN, "a speed-up of plots is still installed"
        _REFERENCES[key] = _inline_png(make(), fmt)
    return _REFERENCES[key]


def _plain_methods() -> tuple:
    """The matplotlib methods ``plots``' speed-ups replace while installed."""
    from matplotlib.axis import Axis
    from matplotlib.backend_bases import FigureCanvasBase
    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.mathtext import MathTextParser
    from matplotlib.text import Text
    from matplotlib.textpath import TextToPath

    return (RendererAgg.get_text_width_height_descent, TextToPath.get_text_width_height_descent,
            MathTextParser._parse_cached, FigureCanvasBase.print_figure, Text._get_layout,
            Axis.get_major_ticks, Axis.get_minor_ticks)


_PLAIN = _plain_methods()


def _svg_and_one_png(makers, png_maker):
    """``(make, fmt)`` parameters: every figure maker as SVG, the format a report's and a
    refresh's kernels print (``workers.FIGURES``, "svg": their constrained layout still
    measures texts with Agg's renderer, the canvas's), and one of them as PNG, the format
    ``kernels.remember_state`` defaults to and no kernel of the package prints."""
    return [(m, "svg") for m in makers] + [(png_maker, "png")]


def _pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGBA"))


def _memory(total_gb):
    """A one-row memory table (``memory.PARTS`` columns), every part a share of ``total_gb``."""
    shares = np.linspace(1, 2, len(memory.PARTS))
    row = total_gb * 1e9 * shares / shares.sum()
    return pd.DataFrame([row], columns=list(memory.PARTS), index=["TP8 PP4"])


class _Sweep:
    """The two fields of a ``scaling.LifetimeOptimum`` that ``optimum_vs_demand`` reads."""

    def __init__(self, scale):
        d = np.geomspace(1e9, 1e16, 40)
        self.n_params = scale * 7e10 / (1 + d / 1e13) ** 0.3
        self.tokens_per_param = 20 * (1 + d / 1e12) ** 0.5


CASES = {
    # bars on an inverted y axis: clear() must undo the inversion
    "memory_stack": ({"figsize": (8, 2.2)},
                     lambda lf, s: plots.memory_stack(_memory(s), 80e9, 72e9, ax=lf.axes)),
    # a twin axis kept across updates
    "optimum_vs_demand": ({"figsize": (6.5, 3.4), "twinx": True},
                          lambda lf, s: plots.optimum_vs_demand(
                              np.geomspace(1e9, 1e16, 40), _Sweep(s), ax=lf.axes,
                              ax_right=lf.axes_right)),
}


@pytest.mark.parametrize("case", CASES)
def test_the_first_picture_is_the_inline_backends(case):
    kw, draw = CASES[case]
    fresh = plots.LiveFigure(**kw)
    draw(fresh, 60)
    # the reference: a new pyplot figure of the same size, drawn and shown by the inline path
    fig = plt.figure(figsize=kw["figsize"], layout="constrained")
    ax = fig.add_subplot()

    class _Axes:
        axes, axes_right = ax, (ax.twinx() if kw.get("twinx") else None)

    draw(_Axes, 60)
    mine, inline = _pixels(fresh.png()), _pixels(_inline_png(fig))
    assert mine.shape == inline.shape
    assert np.array_equal(mine, inline)


@pytest.mark.parametrize("case", CASES)
def test_an_update_changes_the_picture_and_going_back_restores_it(case):
    kw, draw = CASES[case]
    live = plots.LiveFigure(**kw)
    draw(live, 60)
    first = live.png()
    live.clear()
    draw(live, 30)
    second = live.png()
    live.clear()
    draw(live, 60)
    again = live.png()
    assert second != first
    assert _pixels(second).shape == _pixels(first).shape  # the picture keeps its size
    assert again == first
    n_axes = 2 if kw.get("twinx") else 1
    assert len(live.fig.axes) == n_axes  # no axes added by an update
    # after an update the limits (and their order: an inverted axis) are those of a new figure
    # drawn at the second state: autoscaled on the new data only (to the last bit or so: a
    # line across the axes, axvline, reaches the data limits through the inverse of the axes'
    # transform, which the kept layout makes another, so its rounding may differ by an ulp)
    live.clear()
    draw(live, 30)
    new = plots.LiveFigure(**kw)
    draw(new, 30)
    np.testing.assert_allclose([(a.get_xlim(), a.get_ylim()) for a in live.fig.axes],
                               [(a.get_xlim(), a.get_ylim()) for a in new.fig.axes],
                               rtol=1e-12, atol=0)


@pytest.mark.parametrize("case", CASES)
def test_redrawn_texts_are_the_pixels_agg_draws(case):
    """LiveFigure's renderer replays the glyphs of a text it drew before at the same place; every
    picture of a sequence of updates (tick labels moving, titles and legends changing, texts
    coming back) is byte for byte the one a plain Agg canvas draws for the same state."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    kw, draw = CASES[case]
    cached, plain = plots.LiveFigure(**kw), plots.LiveFigure(**kw)
    FigureCanvasAgg(plain.fig)  # the same figure on matplotlib's own canvas
    for state in (60, 30, 60, 45, 30, 60):
        pictures = []
        for live in (cached, plain):
            live.clear()
            draw(live, state)
            pictures.append(live.png())
        assert pictures[0] == pictures[1], f"state {state}"


@pytest.mark.parametrize("case", CASES)
def test_ticks_computed_once_per_draw_give_matplotlibs_pixels(case):
    """LiveFigure keeps each axis's ticks and tick-label boxes for the rest of a draw
    (``plots.ticks_computed_once``); every picture of a sequence of updates (limits, ticks and
    labels changing) is byte for byte the one matplotlib draws computing them on every request,
    and the block leaves no patched method behind."""
    kw, draw = CASES[case]
    live = plots.LiveFigure(**kw)
    for state in (60, 30, 60, 45, 30, 60, 5, 600):
        live.clear()
        draw(live, state)
        kept = live.png()
        assert all("_update_ticks" not in vars(axis) and "_get_ticklabel_bboxes" not in vars(axis)
                   for ax in live.fig.axes for axis in (ax.xaxis, ax.yaxis))
        buf = io.BytesIO()  # the same canvas and settings, matplotlib's own tick calls
        live.fig.canvas.print_figure(buf, format="png", dpi=live.fig.dpi,
                                     bbox_inches=live._bbox_inches,
                                     facecolor=live.fig.get_facecolor(),
                                     edgecolor=live.fig.get_edgecolor(),
                                     pil_kwargs={"compress_level": 1})
        assert kept == buf.getvalue(), f"state {state}"


def _figure_with_every_kind_of_axis(colorbar: bool = True):
    """Constrained layout; shared x axes of different widths whose tick values need an offset
    (one ScalarFormatter shared by axes that may place different ticks); a twin axis; log axes
    with minor labels; a colorbar (not with ``readable``: matplotlib's tight layout refuses
    one made under constrained layout); an inverted axis."""
    fig = plt.figure(figsize=(9, 5), layout="constrained")
    gs = fig.add_gridspec(2, 3)
    a = fig.add_subplot(gs[0, :2])
    b = fig.add_subplot(gs[1, 0], sharex=a)
    c = fig.add_subplot(gs[:, 2])
    x = 1e6 + np.linspace(0, 5, 50)
    a.plot(x, np.sin(x), label="sin")
    a.legend()
    b.plot(x, 1e-7 * np.cos(x))
    b.invert_yaxis()
    a.twinx().plot(x, np.exp(x - 1e6), color="C1")
    im = c.imshow(np.outer(np.arange(20), np.arange(20)))
    if colorbar:
        fig.colorbar(im, ax=c)
    c.set_title("an image")
    d = fig.add_subplot(gs[1, 1])
    d.loglog(np.geomspace(1, 30, 20), np.geomspace(2, 3, 20))
    d.set_xlabel("log, minor labels")
    fig.suptitle("every kind of axis")
    return fig


@pytest.mark.parametrize("readable", [False, True])
def test_printing_with_ticks_kept_draws_matplotlibs_pixels(readable):
    """``plots.keep_ticks_while_printing`` (what the report's kernels install) prints every
    figure as matplotlib does, byte for byte: constrained layout, the tight crop, shared and twin
    axes, offsets, log and colorbar axes, and ``plots.readable``'s tight layout."""
    from matplotlib.backend_bases import FigureCanvasBase

    def picture(keep: bool) -> bytes:
        fig = _figure_with_every_kind_of_axis(colorbar=not readable)
        if readable:
            plots.readable(fig)
        if not keep:
            return _inline_png(fig)
        plain = FigureCanvasBase.print_figure
        try:
            assert plots.keep_ticks_while_printing()
            assert not plots.keep_ticks_while_printing()  # once
            return _inline_png(fig)
        finally:
            FigureCanvasBase.print_figure = plain

    if readable:  # readable lays the figure out inside a kept block: compare with a plain one
        from unittest import mock

        @contextlib.contextmanager
        def plain_block(fig):
            yield

        with mock.patch.object(plots, "ticks_computed_once", plain_block):
            reference = picture(keep=False)
    else:  # the same figure as picture(keep=False) draws: matplotlib's picture of it
        reference = _matplotlibs(_figure_with_every_kind_of_axis)
    assert picture(keep=True) == reference


@contextlib.contextmanager
def _sharing_text_measures():
    """``plots.share_text_measures`` installed for the block, matplotlib's own methods after."""
    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.mathtext import MathTextParser
    from matplotlib.textpath import TextToPath

    measure, parse = RendererAgg.get_text_width_height_descent, MathTextParser._parse_cached
    vector_measure = TextToPath.get_text_width_height_descent
    try:
        assert plots.share_text_measures()
        assert not plots.share_text_measures()  # once
        yield
    finally:
        RendererAgg.get_text_width_height_descent = measure
        TextToPath.get_text_width_height_descent = vector_measure
        MathTextParser._parse_cached = parse


def _math_figure():
    """Math text everywhere: log axes' ``$10^{k}$`` tick labels, a math title and labels, a
    rotated math text and a legend with math entries."""
    fig, (a, b) = plt.subplots(1, 2, figsize=(8, 3.5), layout="constrained")
    x = np.geomspace(1, 1e5, 30)
    a.loglog(x, x ** 0.5, label=r"$\sqrt{x}$")
    a.loglog(x, x ** 0.25, label=r"$x^{1/4}$")
    a.legend()
    a.set_title(r"$\alpha \cdot \beta_{t} = \frac{1}{2}$")
    b.semilogy(np.arange(10), 2.0 ** np.arange(10))
    b.set_ylabel(r"$2^{n}$ (GB)")
    b.text(3, 40, r"$\mathrm{MFU} \approx 40\,\%$", rotation=30)
    return fig


@pytest.mark.parametrize("fmt", ["png", "svg"])
def test_shared_text_measures_draw_matplotlibs_pixels(fmt):
    """``plots.share_text_measures`` (what the report's kernels install) prints a figure as
    matplotlib does, byte for byte, as a PNG (Agg's measures: ``RendererAgg``'s) and as an SVG
    (the vector backends' measures: ``TextToPath``'s), the first time and again once its
    measures are shared (the second figure's renderers find every text measured and every math
    text parsed). ``_math_figure`` holds both kinds of text each measure reads (plain tick
    labels, math labels, titles, legend entries and a rotated math text); every other figure
    maker, and the combination with ``keep_ticks_while_printing`` and the kernels' other print
    speed-ups, is printed with shared measures by
    ``test_printing_with_one_draw_gives_matplotlibs_bytes`` (as SVG, and one figure as PNG)."""
    reference = _matplotlibs(_math_figure, fmt)
    with _sharing_text_measures():
        assert _inline_png(_math_figure(), fmt) == reference
        assert _inline_png(_math_figure(), fmt) == reference  # from the shared measures


def test_shared_text_measures_follow_the_settings():
    """A change of the settings a text's size depends on (the math-text font set, the sans-serif
    family, hinting) between two figures is seen: each picture is matplotlib's under its own
    settings, not the measures kept from the first; and going back to the first settings after
    the others gives the first picture again."""
    settings = [{}, {"mathtext.fontset": "stix"}, {"mathtext.fontset": "cm"},
                {"font.sans-serif": ["DejaVu Serif"]}, {"text.hinting": "none"}]
    reference = []
    for rc in settings:
        with matplotlib.rc_context(rc):
            reference.append(_matplotlibs(_small_math_figure))
    assert len(set(reference)) == len(settings)  # each setting changes the picture
    with _sharing_text_measures():
        for rc, expected in zip(settings + settings[:1], reference + reference[:1]):
            with matplotlib.rc_context(rc):
                assert _inline_png(_small_math_figure()) == expected, rc


def _small_math_figure():
    """The kinds of text of ``_math_figure`` on one small axes (a print at a third of its
    cost): a log axis's ``$\\mathdefault{10^{k}}$`` tick labels (math in the sans-serif
    family), plain tick labels, a math title and a label mixing math and plain text."""
    fig, ax = plt.subplots(figsize=(4, 2.5), layout="constrained")
    ax.semilogy(np.arange(10), 2.0 ** np.arange(10))
    ax.set_title(r"$\alpha \cdot \beta_{t} = \frac{1}{2}$")
    ax.set_ylabel(r"$2^{n}$ (GB)")
    return fig


@contextlib.contextmanager
def _installed(install, owner, name: str):
    """``install`` (a report-kernel speed-up of ``plots`` that replaces ``owner.name``, once)
    installed for the block, matplotlib's own method after."""
    plain = getattr(owner, name)
    try:
        assert install()
        assert not install()  # once
        yield
    finally:
        setattr(owner, name, plain)


def _printing_with_one_draw():
    """``plots.print_with_one_draw`` installed for the block, matplotlib's own method after."""
    from matplotlib.backend_bases import FigureCanvasBase

    return _installed(plots.print_with_one_draw, FigureCanvasBase, "print_figure")


def _aspect_and_overflow_figure():
    """Constrained layout with what the crop must reach past the canvas: an equal-aspect axes,
    a legend placed outside its axes, a text past the right edge, the foot's source line
    (``plots._source``) and a long figure title; a second axes with a bar chart."""
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4), layout="constrained")
    a.plot(np.arange(5), np.arange(5) ** 2, label="squares")
    a.set_aspect("equal", adjustable="datalim")
    a.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    b.barh(["one", "two", "three"], [3, 1, 2])
    b.text(1.02, 0.5, "a note past the edge", transform=b.transAxes)
    plots._source(a, "source: the foot line of every llmcost figure")
    fig.suptitle("a title as long as the figure is wide, and a little longer still, to the end")
    return fig


def _readable_figure():
    """``plots.readable``'s tight layout (no layout engine left: a place holder)."""
    return plots.readable(_figure_with_every_kind_of_axis(colorbar=False))


def _inset_figure():
    """An inset axes (a child of its axes, placed by its own locator at each draw)."""
    fig, ax = plt.subplots(figsize=(5, 3), layout="constrained")
    ax.plot([1, 2, 3])
    ax.inset_axes([0.6, 0.1, 0.3, 0.3]).plot([3, 1, 2])
    return fig


@pytest.mark.parametrize("make, draws, fmt", [
    (_math_figure, 1, "svg"), (_aspect_and_overflow_figure, 1, "svg"), (_readable_figure, 1, "svg"),
    (lambda: _figure_with_every_kind_of_axis(colorbar=False), 1, "svg"),
    (_figure_with_every_kind_of_axis, 2, "svg"),  # a colorbar: its axes have a locator
    (_inset_figure, 1, "svg"), (_figure_with_every_kind_of_axis, 2, "png")])
def test_printing_with_one_draw_gives_matplotlibs_bytes(make, draws, fmt):
    """``plots.print_with_one_draw`` (what the report's kernels install) prints every figure as
    matplotlib's ``print_figure`` does, byte for byte, as an SVG (``_svg_and_one_png``; one
    figure as a PNG) (the inline
    backend's crop, constrained layout and its aspect, texts past the canvas, shared, twin and
    log axes, math text, an inset, ``plots.readable``'s tight layout), with one draw where it
    applies and matplotlib's two where it does not (a colorbar's axes locator); also with the
    report kernels' other four print speed-ups installed (``clone_ticks`` among them: its own
    test below leaves the combination to this one)."""
    from matplotlib.backend_bases import FigureCanvasBase
    from matplotlib.figure import Figure

    reference = _matplotlibs(make, fmt)
    count = [0]
    draw = Figure.draw

    def counted(self, renderer):
        count[0] += 1
        return draw(self, renderer)

    with _printing_with_one_draw():
        with mock.patch.object(Figure, "draw", counted):
            assert _inline_png(make(), fmt) == reference
        assert count[0] == draws
        plain = FigureCanvasBase.print_figure
        try:
            with _sharing_text_measures(), _keeping_text_layouts(), _cloning_ticks():
                plots.keep_ticks_while_printing()
                assert _inline_png(make(), fmt) == reference
        finally:
            FigureCanvasBase.print_figure = plain


def _keeping_text_layouts():
    """``plots.keep_text_layouts`` installed for the block, matplotlib's own method after."""
    from matplotlib.text import Text

    return _installed(plots.keep_text_layouts, Text, "_get_layout")


@pytest.mark.parametrize("make, fmt", _svg_and_one_png(
    [_math_figure, _aspect_and_overflow_figure, _readable_figure,
     _figure_with_every_kind_of_axis, _inset_figure], _math_figure))
def test_kept_text_layouts_print_matplotlibs_bytes(make, fmt):
    """``plots.keep_text_layouts`` (what the report's kernels install) prints every figure as
    matplotlib does, byte for byte, as an SVG (one figure as a PNG: ``_svg_and_one_png``),
    with the prints that keep them
    (``keep_ticks_while_printing``, then also ``print_with_one_draw``), twice each (a text's
    layout is not read in a later print)."""
    from matplotlib.backend_bases import FigureCanvasBase

    reference = _matplotlibs(make, fmt)
    plain = FigureCanvasBase.print_figure
    try:
        with _keeping_text_layouts():
            plots.keep_ticks_while_printing()
            assert _inline_png(make(), fmt) == reference
            assert _inline_png(make(), fmt) == reference
            plots.print_with_one_draw()
            assert _inline_png(make(), fmt) == reference
            assert _inline_png(make(), fmt) == reference
    finally:
        FigureCanvasBase.print_figure = plain


@pytest.mark.parametrize("fmt", ["svg"])  # the kernels' format (``_svg_and_one_png``)
def test_kept_text_layouts_see_a_change_between_prints(fmt):
    """A figure printed, then changed where its texts' layouts are read (a title's string and
    size, the tick labels' rotation and alignment, a label's line spacing, the figure's dpi),
    then printed again, also under another sans-serif family (a setting the layout reads and
    no text holds), prints as matplotlib prints it after the same steps: nothing kept in one
    print is read in the next."""
    from matplotlib.backend_bases import FigureCanvasBase

    def printed_then_changed():
        fig = _math_figure()
        fig.canvas.print_figure(io.BytesIO(), format=fmt, bbox_inches="tight")
        a = fig.axes[0]
        a.set_title(r"another title, $\alpha^{2}$", fontsize=15)
        for label in a.get_xticklabels():
            label.set_rotation(30)
            label.set_horizontalalignment("right")
        a.yaxis.label.set_linespacing(2.0)
        fig.set_dpi(80)
        return fig

    def print_in_serif(fig):  # a setting no text holds: read where the font is looked up
        with matplotlib.rc_context({"font.sans-serif": ["DejaVu Serif"]}):
            return _inline_png(fig, fmt)

    reference = _matplotlibs(printed_then_changed, fmt)
    assert reference != _matplotlibs(_math_figure, fmt)  # the changes change the picture
    assert _plain_methods() == _PLAIN
    serif = print_in_serif(printed_then_changed())
    assert serif != reference
    plain = FigureCanvasBase.print_figure
    try:
        with _keeping_text_layouts():
            plots.keep_ticks_while_printing()
            plots.print_with_one_draw()
            assert _inline_png(printed_then_changed(), fmt) == reference
            assert print_in_serif(printed_then_changed()) == serif
    finally:
        FigureCanvasBase.print_figure = plain


def test_printing_with_one_draw_leaves_other_prints_to_matplotlib():
    """``savefig`` gives the same bytes as without, the figure keeping its layout engine:
    uncropped (matplotlib's print), cropped to PDF (matplotlib's), and cropped to SVG and to
    PNG with a pad of its own (one draw)."""
    def outputs():
        out = []
        for kw in ({"format": "png"}, {"format": "pdf", "bbox_inches": "tight"},
                   {"format": "svg", "bbox_inches": "tight", "pad_inches": 0.3},
                   {"format": "png", "bbox_inches": "tight", "pad_inches": 0.3}):
            fig = _aspect_and_overflow_figure()
            buf = io.BytesIO()
            with matplotlib.rc_context({"svg.hashsalt": "llmcost"}):
                fig.savefig(buf, metadata={"svg": {"Date": None},  # no clock time
                                           "pdf": {"CreationDate": None}}.get(kw["format"]),
                            **kw)
            out.append((buf.getvalue(), type(fig.get_layout_engine()).__name__))
            plt.close(fig)
        return out

    reference = outputs()
    with _printing_with_one_draw():
        assert outputs() == reference


def test_a_parse_given_its_size_is_kept_whatever_the_font_size(monkeypatch):
    """A math text parsed with its font properties (its size in them) is parsed once for every
    ``font.size`` (which, for a scalable font, it does not read: ``share_text_measures``),
    and gives what matplotlib's own parser gives under each; parsed without them (the size
    then ``font.size``'s), once per ``font.size``."""
    from matplotlib import _mathtext
    from matplotlib.font_manager import FontProperties
    from matplotlib.mathtext import MathTextParser

    runs = []
    real = _mathtext.Parser.parse

    def counted(self, *args, **kwargs):
        runs.append(1)
        return real(self, *args, **kwargs)

    text, prop, sizes = r"$\mathdefault{4\times10^{9}}$", FontProperties(size=10), (10, 14, 10)
    reference = []
    for size in sizes:
        with matplotlib.rc_context({"font.size": size}):
            reference.append(MathTextParser("path").parse(text, 72, prop))
    monkeypatch.setattr(_mathtext.Parser, "parse", counted)
    with _sharing_text_measures():
        parser = MathTextParser("path")
        for size, expected in zip(sizes, reference):
            with matplotlib.rc_context({"font.size": size}):
                assert parser.parse(text, 72, prop) == expected
        assert len(runs) == 1
        for size in sizes:
            with matplotlib.rc_context({"font.size": size}):
                parser.parse(text, 72)
        assert len(runs) == 3  # font.size 10, then 14; 10 again is kept


@contextlib.contextmanager
def _cloning_ticks():
    """``plots.clone_ticks`` installed for the block, matplotlib's own methods after."""
    from matplotlib.axis import Axis

    major, minor = Axis.get_major_ticks, Axis.get_minor_ticks
    try:
        assert plots.clone_ticks()
        assert not plots.clone_ticks()  # once
        yield
    finally:
        Axis.get_major_ticks, Axis.get_minor_ticks = major, minor


def _ticks_set_by_hand_figure():
    """Ticks set on the first ticks by hand (``setp`` on the labels: rotation, alignment and a
    rotation mode that matplotlib does not copy to a tick made later), tick parameters on one
    axis, many minor ticks on a log axis zoomed after a first draw (new ticks made then), and a
    polar axes (whose ticks matplotlib makes itself)."""
    fig = plt.figure(figsize=(10, 4), layout="constrained")
    a = fig.add_subplot(1, 3, 1)
    a.bar(["one", "two", "three"], [1, 3, 2])
    plt.setp(a.get_xticklabels(), rotation=40, ha="right", rotation_mode="anchor")
    a.tick_params(axis="y", labelsize=11, colors="C3", length=6)
    a.set_ylim(0, 35)  # more y ticks than when the labels were set
    b = fig.add_subplot(1, 3, 2)
    b.loglog(np.geomspace(1, 1e3, 20), np.geomspace(1, 1e2, 20))
    b.grid(True, which="both")
    fig.canvas.draw()
    b.set_xlim(1e-2, 1e7)  # new minor ticks, made after the first ones were drawn
    p = fig.add_subplot(1, 3, 3, projection="polar")
    p.plot(np.linspace(0, 6, 30), np.linspace(0, 1, 30))
    return fig


@pytest.mark.parametrize("make, fmt", _svg_and_one_png(
    [_figure_with_every_kind_of_axis, _ticks_set_by_hand_figure], _ticks_set_by_hand_figure))
def test_cloned_ticks_print_matplotlibs_bytes(make, fmt):
    """``plots.clone_ticks`` (what the report's kernels install) prints a figure as matplotlib
    does, byte for byte, as an SVG (one figure as a PNG: ``_svg_and_one_png``), on the two
    figures whose ticks it copies in kinds no other figure has (shared, twin, log axes with
    minor labels, an offset, a colorbar; ticks set by hand, minor ticks made after a first
    draw, a polar axes; the other figure makers are printed with ``clone_ticks`` installed by
    ``test_printing_with_one_draw_gives_matplotlibs_bytes``): alone, and (for the figure whose
    ticks are set by hand, which the combined test of ``print_with_one_draw`` above does not
    draw) with the report kernels' other speed-ups installed; and a tick it copies holds what
    matplotlib's own new tick holds (its properties, its artists and their own font properties
    and callbacks)."""
    from matplotlib.backend_bases import FigureCanvasBase

    reference = _matplotlibs(make, fmt)
    plain = FigureCanvasBase.print_figure
    with _cloning_ticks():
        assert _inline_png(make(), fmt) == reference
        if make is not _ticks_set_by_hand_figure:
            return
        try:
            with _sharing_text_measures(), _keeping_text_layouts():
                plots.keep_ticks_while_printing()
                plots.print_with_one_draw()
                assert _inline_png(make(), fmt) == reference
        finally:
            FigureCanvasBase.print_figure = plain


def test_a_cloned_tick_has_artists_of_its_own():
    """Two ticks made by one batch of ``plots.clone_ticks``: the second is a copy of the first
    new one, with its own artists, their own font properties and callbacks, and the same
    properties as matplotlib's own new tick (``Axis._get_tick`` then ``_copy_tick_props``)."""
    fig, ax = plt.subplots()
    ax.set_xscale("log")
    ax.set_xlim(1, 1e6)
    with _cloning_ticks():
        ticks = ax.xaxis.get_minor_ticks(3)
    made, copied = ticks[1], ticks[2]
    reference = ax.xaxis._get_tick(major=False)
    ax.xaxis._copy_tick_props(ticks[0], reference)
    for name in plots.TICK_ARTISTS:
        a, b = getattr(made, name), getattr(copied, name)
        assert a is not b and a._callbacks is not b._callbacks
        assert a.properties().keys() == b.properties().keys()
        for key, value in getattr(reference, name).properties().items():
            if key in ("children", "path", "xydata", "transformed_clip_path_and_affine"):
                continue
            got = b.properties()[key]
            assert repr(got) == repr(value) or got == value, (name, key)
    copied.label1.set_fontsize(20)
    assert made.label1.get_fontsize() != 20
    plt.close(fig)


@pytest.mark.parametrize("make, fmt", _svg_and_one_png(
    [_math_figure, _figure_with_every_kind_of_axis], _math_figure))
def test_math_layouts_read_from_disk_print_matplotlibs_bytes(make, fmt, tmp_path, monkeypatch):
    """``plots.keep_math_layouts_on_disk`` (what the report's kernels install) prints every
    figure as matplotlib does, byte for byte, whether its math texts' layouts are computed
    (and kept in the disk cache) or read back from it by a later process (here: after this
    process's own copies are forgotten), alone and with the report kernels' other speed-ups;
    PNG (raster parses) is left to matplotlib. The two figures with math text: math labels,
    titles, legend entries and a rotated math text; a log axis's ``$\\mathdefault{10^{k}}$``
    tick labels with minor labels and an offset beside plain text."""
    from matplotlib.backend_bases import FigureCanvasBase
    from matplotlib.mathtext import MathTextParser

    monkeypatch.setenv("LLMCOST_CACHE_DIR", str(tmp_path))

    monkeypatch.setenv("LLMCOST_PREBUILT_DIR", "off")  # computed here, not read
    reference = _matplotlibs(make, fmt)
    plain = FigureCanvasBase.print_figure
    for run in ("computed", "read back"):
        with _installed(plots.keep_math_layouts_on_disk, MathTextParser, "_parse_cached"):
            assert _inline_png(make(), fmt) == reference, run
        try:
            with _sharing_text_measures(), _keeping_text_layouts():
                with _installed(plots.keep_math_layouts_on_disk, MathTextParser,
                                "_parse_cached"):
                    plots.keep_ticks_while_printing()
                    plots.print_with_one_draw()
                    assert _inline_png(make(), fmt) == reference, run
        finally:
            FigureCanvasBase.print_figure = plain
    if fmt == "svg" and make is _math_figure:  # read back: kept by the first run
        assert list(tmp_path.glob("math_vector_layout-*.pickle"))


def _svg_prints_on_disk():
    """``plots.keep_svg_prints_on_disk`` installed for the block, matplotlib's own method
    after."""
    from matplotlib.backend_bases import FigureCanvasBase

    return _installed(plots.keep_svg_prints_on_disk, FigureCanvasBase, "print_figure")


@pytest.mark.parametrize("make", [_math_figure, _aspect_and_overflow_figure, _readable_figure,
                                  _figure_with_every_kind_of_axis, _inset_figure])
def test_svg_prints_read_from_disk_are_matplotlibs_bytes(make, tmp_path, monkeypatch):
    """``plots.keep_svg_prints_on_disk`` (what the report's kernels install, over their other
    print speed-ups) prints every figure as matplotlib does, byte for byte, when the print is
    made (and kept in the disk cache) and when a later figure with the same state reads it
    back without drawing (``Figure.draw`` not called: each figure kind's fingerprint is the
    same for two figures built alike); a PNG is left to matplotlib (checked on one figure:
    the PNG path does not depend on the figure)."""
    from matplotlib.backend_bases import FigureCanvasBase
    from matplotlib.figure import Figure

    monkeypatch.setenv("LLMCOST_CACHE_DIR", str(tmp_path))

    monkeypatch.setenv("LLMCOST_PREBUILT_DIR", "off")  # computed here, not read
    reference = _matplotlibs(make, "svg")
    plain = FigureCanvasBase.print_figure
    draw = Figure.draw
    try:
        plots.keep_ticks_while_printing()
        plots.print_with_one_draw()
        with _svg_prints_on_disk():
            for run, drawn in (("printed", True), ("read back", False)):
                with mock.patch.object(Figure, "draw", autospec=True, side_effect=draw) as d:
                    assert _inline_png(make(), "svg") == reference, run
                assert (d.call_count > 0) == drawn, run
            assert len(list(tmp_path.glob("svg_print-*.pickle"))) == 1
            if make is _math_figure:
                assert _inline_png(make(), "png") == _matplotlibs(make, "png")
    finally:
        FigureCanvasBase.print_figure = plain


def _fingerprint(fig, **rc) -> str | None:
    kwargs = {"format": "svg", "bbox_inches": "tight", "dpi": fig.dpi,
              "metadata": {"Date": None}}
    with matplotlib.rc_context(rc):
        key = plots.figure_fingerprint(fig, kwargs)
    plt.close(fig)
    return key


def test_a_figure_fingerprint_reads_the_figure_and_the_settings():
    """Two figures built alike have one fingerprint; a changed point, title or setting makes
    another; a figure that cannot be pickled (a lambda for a formatter) has none, and is
    printed, not kept."""
    from matplotlib.ticker import FuncFormatter

    key = _fingerprint(_readable_figure())
    assert key == _fingerprint(_readable_figure())
    moved = _readable_figure()
    moved.axes[0].lines[0].set_ydata(moved.axes[0].lines[0].get_ydata() * 1.001)
    titled = _readable_figure()
    titled.axes[0].set_title("another title")
    assert len({key, _fingerprint(moved), _fingerprint(titled),
                _fingerprint(_readable_figure(), **{"lines.linewidth": 3})}) == 4
    fig = _readable_figure()
    fig.axes[0].xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    assert _fingerprint(fig) is None


def _two_lines(second_y) -> plt.Figure:
    """A figure of two lines, the first through ``[0, 1, 4, 9]``, the second through
    ``second_y`` (set as it is: ``Line2D.set_ydata`` keeps the array it is given)."""
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot(np.arange(4.0), np.arange(4.0) ** 2)
    (line,) = ax.plot(np.arange(4.0), np.zeros(4))
    line.set_ydata(second_y)
    return fig


def test_a_figure_fingerprint_reads_arrays_by_their_values():
    """An array read back from a pickle (the disk cache's) has a dtype object of its own, where a
    computed one shares numpy's: the same figure has one fingerprint either way (pickled as
    numpy does, the dtype is written once and referred to, or written twice: measured, 4 of
    the default report's 68 figures drawn again by the report after the first). Equal bytes
    under another dtype or shape, or another value, make another fingerprint; an array of
    objects is still read (as numpy pickles it)."""
    import pickle

    y = np.array([5.0, 6.0, 7.0, 8.0])
    read_back = pickle.loads(pickle.dumps(y))
    assert read_back.dtype is not y.dtype and read_back.dtype == y.dtype  # the case at hand
    key = _fingerprint(_two_lines(y))
    assert key is not None and _fingerprint(_two_lines(read_back)) == key
    assert _fingerprint(_two_lines(y[::-1].copy()[::-1])) == key  # a view: the same values
    as_ints = y.view(np.int64)  # the same 32 bytes, read as integers
    others = {_fingerprint(_two_lines(as_ints)), _fingerprint(_two_lines(y * 1.001)),
              _fingerprint(_two_lines(y.astype(np.float32))),
              _fingerprint(_two_lines(np.array([5, 6, 7, 8], dtype=object)))}
    assert None not in others and len(others | {key}) == 5


_FINGERPRINT_IN_A_PROCESS = """
import matplotlib
matplotlib.use("Agg")
import io, matplotlib.pyplot as plt, numpy as np
from llmcost.present import plots
plots.keep_ticks_while_printing(); plots.keep_text_layouts()
fig, ax = plt.subplots(figsize=(5, 3), layout="constrained")
x = np.geomspace(1, 1e5, 30)
ax.loglog(x, x ** 0.5, label=r"$\\sqrt{x}$"); ax.legend(); ax.set_title("a title")
fig.canvas.print_figure(io.BytesIO(), format="svg", bbox_inches="tight")  # texts keep layouts
print(plots.figure_fingerprint(fig, {"format": "svg", "bbox_inches": "tight"}))
"""


def test_a_figure_has_one_fingerprint_in_every_process():
    """The same figure built by the same code in two processes, under two string-hash seeds,
    has the same fingerprint, after a print that left its texts' kept layouts on them
    (``plots.keep_text_layouts``, which hold a font's ``hash()``) and with its transforms'
    parents, which matplotlib pickles keyed by their ``id()``."""
    import os
    import subprocess
    import sys

    keys = set()
    for seed in ("1", "2"):
        out = subprocess.run([sys.executable, "-c", _FINGERPRINT_IN_A_PROCESS], check=True,
                             capture_output=True, text=True,
                             env={**os.environ, "PYTHONHASHSEED": seed})
        keys.add(out.stdout.strip())
    assert len(keys) == 1 and len(keys.pop()) == 64
