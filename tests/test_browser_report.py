"""The HTML report as a reader opens it: from a folder (``file://``), with no network, in
Debian's Chromium at a laptop's and a phone's width (tests/_browser.py launches it).

One report of the default scenario is written (every notebook, found by glob through
``report.list_notebooks``, so notebooks added later are checked too); each page is opened at
1280 px and 390 px. A page that does not fit the screen is screenshot (full page) into the
test's temporary folder, named in the failure message; pages that fit are not (each full-page
screenshot costs about a second).

What a page must do:
* every figure the executed notebook holds (an ``image/png`` or ``image/svg+xml`` output) is an
  ``<img>`` that loaded;
  no figure left as its text repr (``<Figure size ...>``);
* every link between the pages resolves to a file of the report (and its ``#anchor`` to an id on
  that page); nothing is fetched from the network (requests other than ``file:`` are blocked and
  any such request is a failure: a report read offline must not depend on a CDN);
* the headline numbers the notebook published (``publish_summary``) appear as text;
* no code cells, no tracebacks, no warnings (stderr outputs);
* at both widths: the page's scroll width is at most the viewport's (wide tables scroll in their
  own box), every image fits inside the viewport, body text is at least 14 px;
* math: no raw TeX in the page's text (``$$``, ``\\frac{``-style commands); a page whose notebook
  writes TeX math in its markdown shows ``<math>`` elements (MathML, rendered by the browser
  with no MathJax) and reports no formula that failed to convert;
* the index links every notebook page and shows the scenario, the whole bill and each notebook's
  headline figures;
* geometry (the index and notebook 00, at 390 px and 1,400 px): the bill table's USD column is
  on screen without scrolling its box, and no word inside a heading or a table header is broken
  across lines (a break after a hyphen is allowed); printed (``@media print``, an A4 page's
  794 px): nothing wider than the page, no table clipped in a scroll box, the bill's figure
  loaded and within the page, and Chromium writes a PDF of it.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

import llmcost
from llmcost import SCENARIO_DIR, report

from _browser import chromium, requires_browser

pytestmark = [requires_browser, pytest.mark.notebook]

WIDTHS = {"laptop": 1280, "phone": 390}
MIN_TEXT_PX = 14

# Everything measured on a page in one pass (returned to Python as JSON).
MEASURE_JS = r"""() => {
  const vw = document.documentElement.clientWidth;
  const visible = (el) => {
    const s = getComputedStyle(el);
    const r = el.getBoundingClientRect();
    return s.display !== 'none' && s.visibility !== 'hidden' && r.width > 0 && r.height > 0;
  };
  // An image "fits" when it is no wider than the viewport and does not stick out of it; an image
  // inside a box that scrolls sideways is measured by that box instead.
  const scroller = (el) => {
    for (let p = el.parentElement; p; p = p.parentElement) {
      const ox = getComputedStyle(p).overflowX;
      if ((ox === 'auto' || ox === 'scroll') && p !== document.documentElement
          && p !== document.body) return p;
    }
    return null;
  };
  const imgs = [...document.images].map((im) => {
    const box = scroller(im) || im;
    const r = box.getBoundingClientRect();
    return {src: im.src.slice(0, 60), loaded: im.complete && im.naturalWidth > 0,
            left: r.left, right: r.right, width: r.width};
  });
  const small = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || !n.textContent.trim() || !visible(el)) continue;
    if (el.closest('script,style,noscript')) continue;
    // MathML sets sub/superscripts, limits and fraction parts smaller by design (math-depth)
    if (el.closest('msub,msup,msubsup,munder,mover,munderover,mfrac,mroot,mmultiscripts'))
      continue;
    const px = parseFloat(getComputedStyle(el).fontSize);
    if (px < %MIN%) small.push({tag: el.tagName, cls: el.className.toString().slice(0, 60),
                                px: px, text: n.textContent.trim().slice(0, 50)});
  }
  const ids = new Set([...document.querySelectorAll('[id]')].map((e) => e.id));
  [...document.querySelectorAll('a[name]')].forEach((a) => ids.add(a.name));
  return {
    viewport: vw,
    scrollWidth: document.documentElement.scrollWidth,
    imgs: imgs,
    small: small.slice(0, 12), nSmall: small.length,
    links: [...document.querySelectorAll('a[href]')].map((a) => a.getAttribute('href')),
    ids: [...ids],
    maths: document.querySelectorAll('math').length,
    mathsRendered: [...document.querySelectorAll('math')].filter(visible).length,
    texFailures: (document.querySelector('meta[name="llmcost-tex-failures"]') || {}).content,
    text: document.body.innerText,
    codeCells: document.querySelectorAll(
      '.jp-CodeCell .jp-InputArea, .jp-InputArea-editor, .jp-CodeMirrorEditor, .cm-editor, ' +
      'div.input_area, .jp-InputPrompt').length,
    stderr: [...document.querySelectorAll('[data-mime-type="application/vnd.jupyter.stderr"],' +
                                           '.output_stderr')]
            .map((e) => e.innerText.slice(0, 200)),
  };
}""".replace("%MIN%", str(MIN_TEXT_PX))


@pytest.fixture(scope="module")
def written_report(shared_report):
    if os.environ.get("LLMCOST_TEST_REPORT_DIR"):  # working on the pages: reuse a written report
        return Path(os.environ["LLMCOST_TEST_REPORT_DIR"])
    out, res, _ = shared_report(SCENARIO_DIR / "default.yaml")  # the one test_report reads
    assert not res.failed
    return out


@pytest.fixture(scope="module")
def pages(written_report, tmp_path_factory):
    """Every page of the report measured at both widths: {(page, width name): (measures,
    screenshot path or None, blocked network requests)}; a page is screenshot when
    ``screen_problems`` finds one (the checks of ``test_page_fits_the_screen``)."""
    shots = tmp_path_factory.mktemp("screenshots")
    names = ["index.html"] + [nb.stem + ".html" for nb in report.list_notebooks()]
    found = {}
    with chromium() as browser:
        for wname, width in WIDTHS.items():
            ctx = browser.new_context(viewport={"width": width, "height": 900},
                                      device_scale_factor=1)
            blocked = []

            def block(route, request, sink=blocked):
                sink.append(request.url)
                route.abort()

            ctx.route(re.compile(r"^(?!file:).*"), block)
            page = ctx.new_page()
            for name in names:
                start = len(blocked)
                page.goto((written_report / name).as_uri(), wait_until="load")
                measures = page.evaluate(MEASURE_JS)
                shot = None  # a full-page screenshot costs about a second: only for a failure
                if screen_problems(measures):
                    shot = shots / f"{Path(name).stem}-{width}px.png"
                    page.screenshot(path=str(shot), full_page=True)
                found[(name, wname)] = (measures, shot, blocked[start:])
            ctx.close()
    return found


def _image_outputs(ipynb: Path) -> int:
    """The figures of an executed notebook: its PNG and SVG outputs (``report.FIGURES``)."""
    cells = json.loads(ipynb.read_text(encoding="utf-8"))["cells"]
    return sum(any(m in o.get("data", {}) for m in ("image/png", "image/svg+xml"))
               for c in cells for o in c.get("outputs", []))


PAGES = ["index.html"] + [nb.stem + ".html" for nb in report.list_notebooks()]


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", PAGES)
def test_page_fits_the_screen(pages, name, width):
    m, shot, _ = pages[(name, width)]
    problems = screen_problems(m)
    assert not problems, f"{name} at {WIDTHS[width]} px (screenshot: {shot}): " + "; ".join(problems)


def screen_problems(m: dict) -> list[str]:
    """What keeps a page from fitting the screen, from its measures (``MEASURE_JS``): sideways
    scrolling, an image wider than the viewport, text below ``MIN_TEXT_PX``."""
    vw, problems = m["viewport"], []
    if m["scrollWidth"] > vw:
        problems.append(f"the page scrolls sideways ({m['scrollWidth']} > {vw})")
    too_wide = [i for i in m["imgs"] if i["width"] > vw + 0.5 or i["left"] < -0.5
                or i["right"] > vw + 0.5]
    if too_wide:
        problems.append(f"images wider than the viewport: {too_wide[:3]}")
    if m["small"]:
        problems.append(f"{m['nSmall']} text runs below {MIN_TEXT_PX} px, e.g. {m['small'][:4]}")
    return problems


@pytest.mark.parametrize("name", PAGES)
def test_page_content(pages, written_report, name):
    m, shot, blocked = pages[(name, "laptop")]
    where = name + (f" (screenshot: {shot})" if shot else "")
    assert not blocked, f"{where}: the page fetches from the network: {sorted(set(blocked))}"
    assert m["codeCells"] == 0, f"{where}: {m['codeCells']} code cells shown"
    assert "import llmcost" not in m["text"], where
    text = m["text"]
    for bad in ("Traceback", "Warning:", "<Figure size", "Error displaying widget"):
        assert bad not in text, f"{where}: the page shows {bad!r}: " \
            f"...{text[max(0, text.find(bad) - 150):text.find(bad) + 150]}..."
    assert not m["stderr"], f"{where}: stderr output (warnings) on the page: {m['stderr'][:3]}"
    assert all(i["loaded"] for i in m["imgs"]), f"{where}: images that did not load"
    # links: every relative link is a file of the report, every anchor an id on its target page
    ids = {n: set(pages[(n, "laptop")][0]["ids"]) for n in PAGES}
    for href in m["links"]:
        url = urlparse(href)
        if url.scheme in ("http", "https", "mailto"):
            continue
        target = unquote(url.path) or name
        assert (written_report / target).is_file(), f"{where}: broken link {href!r}"
        if url.fragment and target in ids:
            # as the HTML spec finds a fragment: the raw text, then its percent-decoding
            assert {url.fragment, unquote(url.fragment)} & ids[target], \
                f"{where}: link {href!r}: no such anchor"
    summary = json.loads((written_report / "summary.json").read_text())
    if name == "index.html":
        _check_index(m, summary, where)
        return
    stem = Path(name).stem
    _check_math(m, stem, where)
    n_fig = _image_outputs(written_report / f"{stem}.ipynb")
    assert len(m["imgs"]) == n_fig, f"{where}: {n_fig} figures in the notebook, " \
        f"{len(m['imgs'])} images on the page"
    rows = summary["notebooks"].get(stem, [])
    words = _words(text)
    missing = [r["label"] for r in rows if _words(report.index_value(r))
               not in words or _words(r["label"]) not in words]  # as summary_text prints it
    assert not missing, f"{where}: headline figures not on the page: {missing}"


# TeX left as text: a display delimiter, or a command with a braced argument (\frac{, \text{)
RAW_TEX = re.compile(r"\$\$|\\[A-Za-z]+\s*\{")


def _check_math(m, stem, where):
    nb = next(nb for nb in report.list_notebooks() if nb.stem == stem)
    markdown = "\n".join(c["source"] if isinstance(c["source"], str) else "".join(c["source"])
                         for c in json.loads(nb.read_text(encoding="utf-8"))["cells"]
                         if c["cell_type"] == "markdown")
    raw = RAW_TEX.search(m["text"])
    assert not raw, f"{where}: raw TeX on the page: " \
        f"...{m['text'][max(0, raw.start() - 80):raw.end() + 80]}..."
    assert m["texFailures"] == "0", f"{where}: {m['texFailures']} formulas did not convert"
    if "$$" in markdown or re.search(r"\$\\[A-Za-z]|\\frac", markdown):
        assert m["maths"] > 0, f"{where}: the notebook writes TeX math, the page has no <math>"
        assert m["mathsRendered"] == m["maths"], \
            f"{where}: {m['maths'] - m['mathsRendered']} <math> elements not laid out"


def _words(s: str) -> str:
    return " ".join(str(s).split())


def _check_index(m, summary, where):
    text = _words(m["text"])
    linked = {urlparse(h).path for h in m["links"]}
    for nb in report.list_notebooks():
        assert f"{nb.stem}.html" in linked, f"{where}: no link to {nb.stem}.html"
    scenario = summary["scenario"]
    assert scenario.get("title", "") in text and summary["scenario_file"] in text, where
    assert "the whole bill" in text, where
    total = report.format_value(summary["bill"]["bill.total_usd"], "USD")
    assert total in text, f"{where}: the bill's total {total} is not shown"
    for stem, rows in summary["notebooks"].items():
        for r in rows:
            assert _words(r["label"]) in text and _words(report.index_value(r)) in text, \
                f"{where}: headline figure {stem}/{r['key']} ({report.index_value(r)}) not shown"


# ---- geometry: the USD column on a phone, unbroken headings, a printed handout
GEOMETRY_PAGES = ["index.html", "00_index.html"]
GEOMETRY_WIDTHS = (390, 1400)
A4_PX = (794, 1123)  # 210 × 297 mm at 96 px per inch

# The first table with a USD column (the index's "USD (point)", notebook 00's "usd"): its
# header's box; every word of a heading or table header split over two line boxes.
GEOMETRY_JS = r"""() => {
  const vw = document.documentElement.clientWidth;
  let usd = null;
  for (const t of document.querySelectorAll('table')) {
    const th = [...t.querySelectorAll('th')].find(
      (h) => /^(usd|USD \(point\))$/.test(h.innerText.trim()));
    if (th) {
      const r = th.getBoundingClientRect();
      usd = {text: th.innerText.trim(), left: r.left, right: r.right};
      break;
    }
  }
  const broken = [];
  for (const el of document.querySelectorAll('h1,h2,h3,h4,th')) {
    const w = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let n = w.nextNode(); n; n = w.nextNode()) {
      const re = /[^\s\-\u2010\u2013\u2014]+/g;
      let m;
      while ((m = re.exec(n.textContent))) {
        const range = document.createRange();
        range.setStart(n, m.index);
        range.setEnd(n, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0)
                             .map((r) => Math.round(r.top)));
        if (tops.size > 1) broken.push(m[0]);
      }
    }
  }
  const scrollWidth = document.documentElement.scrollWidth;  // before the copy below
  // the bill's figure: its drawn width, and its text's sizes in the SVG's user units (pt);
  // a copy of the picture shown (the phone's or the wide one) laid out at the drawn width, its
  // texts' boxes measured: any past the picture's edges is cut off in the <img>
  const im = document.querySelector('img.glance');
  let glance = null;
  if (im) {
    const r = im.getBoundingClientRect();
    const src = im.currentSrc || im.src;
    const svg = decodeURIComponent(src.slice(src.indexOf(',') + 1));
    const viewW = +svg.match(/viewBox="[\d.]+ [\d.]+ ([\d.]+)/)[1];
    const sizes = [...svg.matchAll(/font-size:\s*([\d.]+)px/g)].map((x) => +x[1]);
    const box = document.createElement('div');
    box.style.cssText = `position:absolute;left:0;top:0;width:${r.width}px`;
    box.innerHTML = svg.slice(svg.indexOf('<svg'));
    document.body.appendChild(box);
    const el = box.querySelector('svg');
    el.style.width = `${r.width}px`;
    el.style.height = 'auto';
    const s = el.getBoundingClientRect();
    const cut = [...el.querySelectorAll('text')].filter((t) => {
      const b = t.getBoundingClientRect();
      return b.width > 0 && (b.left < s.left - 0.5 || b.right > s.right + 0.5
                             || b.top < s.top - 0.5 || b.bottom > s.bottom + 0.5);
    }).map((t) => t.textContent.trim().slice(0, 40));
    box.remove();
    glance = {left: r.left, right: r.right, width: r.width, viewW: viewW, sizes: sizes,
              cut: cut, phone: src !== im.src};
  }
  return {vw: vw, usd: usd, broken: broken.slice(0, 10), nBroken: broken.length,
          scrollWidth: scrollWidth, glance: glance};
}"""

PRINT_JS = r"""() => {
  const vw = document.documentElement.clientWidth;
  const clipped = [...document.querySelectorAll('table')].filter(
    (t) => t.scrollWidth > t.clientWidth + 1 && getComputedStyle(t).overflowX !== 'visible')
    .map((t) => t.innerText.slice(0, 60));
  const wide = [...document.querySelectorAll('body *')].filter(
    (e) => e.getBoundingClientRect().right > vw + 1)
    .map((e) => e.tagName + '.' + e.className.toString().slice(0, 40));
  const glance = document.querySelector('img.glance');
  const g = glance ? glance.getBoundingClientRect() : null;
  return {vw: vw, scrollWidth: document.documentElement.scrollWidth, clipped: clipped,
          wide: wide.slice(0, 6), nWide: wide.length,
          glance: glance ? {loaded: glance.complete && glance.naturalWidth > 0,
                            left: g.left, right: g.right, height: g.height} : null};
}"""


@pytest.fixture(scope="module")
def geometry(written_report, tmp_path_factory):
    """{(page, width or 'print' or 'pdf'): measures} for GEOMETRY_PAGES."""
    shots = tmp_path_factory.mktemp("geometry")
    found = {}
    with chromium() as browser:
        for width in GEOMETRY_WIDTHS:
            ctx = browser.new_context(viewport={"width": width, "height": 900},
                                      device_scale_factor=1)
            page = ctx.new_page()
            for name in GEOMETRY_PAGES:
                page.goto((written_report / name).as_uri(), wait_until="load")
                found[(name, width)] = page.evaluate(GEOMETRY_JS)
            ctx.close()
        ctx = browser.new_context(viewport={"width": A4_PX[0], "height": A4_PX[1]},
                                  device_scale_factor=1)
        page = ctx.new_page()
        page.emulate_media(media="print")
        for name in GEOMETRY_PAGES:
            page.goto((written_report / name).as_uri(), wait_until="load")
            found[(name, "print")] = page.evaluate(PRINT_JS)
            pdf = shots / f"{Path(name).stem}.pdf"
            page.pdf(path=str(pdf), format="A4")
            found[(name, "pdf")] = pdf.read_bytes()
        ctx.close()
    return found


@pytest.mark.parametrize("width", GEOMETRY_WIDTHS)
@pytest.mark.parametrize("name", GEOMETRY_PAGES)
def test_usd_column_on_screen_and_headings_unbroken(geometry, name, width):
    m = geometry[(name, width)]
    where = f"{name} at {width} px"
    assert m["usd"] is not None, f"{where}: no bill table with a USD column"
    assert 0 <= m["usd"]["left"] and m["usd"]["right"] <= m["vw"], \
        f"{where}: the USD column is off screen: {m['usd']} (viewport {m['vw']} px)"
    assert m["nBroken"] == 0, f"{where}: words broken inside headings: {m['broken']}"



@pytest.mark.parametrize("width", GEOMETRY_WIDTHS)
def test_bill_figure_labels_readable_when_projected(geometry, width):
    """The index's bill figure on a wide (projected) screen: its axis and bar labels (11 pt in
    the SVG, matplotlib's user unit being the point) are drawn at least 13.3 CSS px, i.e. 10 pt
    (1 pt = 4/3 CSS px, CSS 2.1 §4.3.2 absolute lengths), and the figure stays inside the
    screen with no sideways scroll. Hand check at 1,400 px: in the 60rem (960 px) column the
    1,080 pt (1,440 px) figure is drawn at 960/1,080 px per pt, 11 pt -> 9.8 px (fails); across
    the screen less 4rem, 1,336/1,080 -> 13.6 px. At 390 px (the tall figure) only the fit is
    checked here (its text's size: ``test_phone_bill_figure_readable_and_uncut``)."""
    m = geometry[("index.html", width)]
    g = m["glance"]
    where = f"index.html at {width} px"
    assert g is not None, f"{where}: no bill figure"
    assert 0 <= g["left"] and g["right"] <= m["vw"] + 0.5 and m["scrollWidth"] <= m["vw"], \
        f"{where}: the bill figure sticks out of the screen: {g} (viewport {m['vw']} px)"
    if width >= 1400:
        label_pt = sorted(g["sizes"])[len(g["sizes"]) // 2]  # the median text: the labels
        drawn_px = label_pt * g["width"] / g["viewW"]
        assert label_pt >= 10 and drawn_px >= 10 * 4 / 3, \
            f"{where}: the figure's {label_pt} pt labels are drawn at {drawn_px:.1f} px (< 10 pt)"


def test_phone_bill_figure_readable_and_uncut(geometry):
    """On a 390-px phone the index shows the bill's tall picture (``plots.glance_figsize(...,
    tall=True)``, ``plots.GLANCE_TALL_WIDTH_IN`` = 4.5 in = 324 pt wide): its labels (the median
    text, 11 pt) are drawn at 10 CSS px or more, its smallest text (the source line, 9 pt) at 9
    px or more, and no text reaches past the picture's edges (measured on a copy of the SVG laid
    out at the drawn width). Hand check: the picture is drawn about 358 px wide (390 px less the
    page's margins), 358/324 px per pt: 11 pt -> 12.2 px, 9 pt -> 9.9 px; the 8-in (576 pt)
    picture it replaced drew its 11 pt labels at 358/576 x 11 = 6.8 px."""
    m = geometry[("index.html", 390)]
    g = m["glance"]
    where = "index.html at 390 px"
    assert g is not None and g["phone"], f"{where}: the phone's picture is not the one shown"
    per_pt = g["width"] / g["viewW"]
    label_pt = sorted(g["sizes"])[len(g["sizes"]) // 2]
    assert label_pt * per_pt >= 10, \
        f"{where}: the figure's {label_pt} pt labels are drawn at {label_pt * per_pt:.1f} px"
    assert min(g["sizes"]) * per_pt >= 9, \
        f"{where}: its smallest text ({min(g['sizes'])} pt) is drawn at " \
        f"{min(g['sizes']) * per_pt:.1f} px"
    assert not g["cut"], f"{where}: texts cut off at the picture's edge: {g['cut']}"


PRINT_TABLES_JS = r"""() => {
  const vw = document.documentElement.clientWidth;
  const past = [...document.querySelectorAll('table')].filter(
    (t) => t.getBoundingClientRect().right > vw + 0.5)
    .map((t) => Math.round(t.getBoundingClientRect().right) + ' px: '
                + t.rows[0].innerText.slice(0, 40).replace(/\s+/g, ' '));
  const cut = [...document.querySelectorAll('div')].filter(
    (d) => d.querySelector('table') && d.scrollWidth > d.clientWidth + 1
           && ['auto', 'scroll', 'hidden'].includes(getComputedStyle(d).overflowX))
    .map((d) => d.className.toString().slice(0, 50) + ' ' + d.scrollWidth + '/' + d.clientWidth);
  return {past: past, cut: cut};
}"""


def test_printed_notebook_tables_fit_the_page(written_report):
    """Every notebook page printed on A4 (``@media print``, 794 px): no table reaches past the
    page's edge and none sits in a box that scrolls or clips it (paper does not scroll: what is
    past the edge is lost). Before the print CSS set cells at 8 pt, the default scenario printed
    18 tables cut, the widest 2,077 px (notebook 05's API prices)."""
    bad = {}
    with chromium() as browser:
        ctx = browser.new_context(viewport={"width": A4_PX[0], "height": A4_PX[1]},
                                  device_scale_factor=1)
        page = ctx.new_page()
        page.emulate_media(media="print")
        for name in PAGES[1:]:
            page.goto((written_report / name).as_uri(), wait_until="load")
            m = page.evaluate(PRINT_TABLES_JS)
            if m["past"] or m["cut"]:
                bad[name] = m
        ctx.close()
    assert not bad, f"tables cut when printed on A4: {bad}"

@pytest.mark.parametrize("name", GEOMETRY_PAGES)
def test_printed_page_is_a_clean_handout(geometry, name):
    m = geometry[(name, "print")]
    where = f"{name} printed on A4"
    assert m["scrollWidth"] <= m["vw"] and m["nWide"] == 0, \
        f"{where}: wider than the page: {m['wide']}"
    assert not m["clipped"], f"{where}: tables cut off in a scroll box: {m['clipped']}"
    if name == "index.html":
        g = m["glance"]
        assert g and g["loaded"] and g["height"] > 100, f"{where}: the bill's figure: {g}"
        assert 0 <= g["left"] and g["right"] <= m["vw"] + 0.5, f"{where}: figure off the page"
    pdf = geometry[(name, "pdf")]
    pages = len(re.findall(rb"/Type\s*/Page(?!s)", pdf))
    assert pdf.startswith(b"%PDF") and pages >= 1, f"{where}: no PDF page written"


def test_index_opens_with_plain_words_and_the_figure(written_report):
    page = (written_report / "index.html").read_text(encoding="utf-8")
    summary = json.loads((written_report / "summary.json").read_text())
    first_table = page.index("<table")
    leads = re.findall(r"<p class='lead'>(.*?)</p>", page)
    assert len(leads) == 3 and page.index("<p class='lead'>") < first_table
    assert page.index("<img class='glance'") < first_table
    assert "notebook 09" in leads[2]  # the lever from 09's results (09 runs in this report)
    total = summary["bill_glance"]["lines"][-1]
    assert llmcost.fmt_usd(total["p10_usd"]) in leads[0]
