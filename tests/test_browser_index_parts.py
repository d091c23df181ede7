"""Parts of the report's index, in Debian's Chromium (tests/_browser.py), each inside the index's
own style sheet (``report.INDEX_CSS``) without writing a report: the comparison of two bills
(``llmcost report --compare``) as a phone and a laptop show it, and the "Read this first" box
and the parameters table printed (tests/test_browser_report.py prints the default scenario's
index, which has no warning, so no such box).

A new-user trial compared "Llama 2 13B on 256 A100-80GB" with the same run on H100s: on a
390-px phone the difference's column was headed by both titles ("<B> − <A>", nine lines tall)
and the P10-P90 per draw, the figure the comparison is for, sat in a fifth column off the
screen (the table 521 px wide in its 358-px box). The columns are now A, B and B − A (the names
given once above the table, as ``llmcost estimate --compare`` does), each difference's per-draw
range under it."""

from __future__ import annotations

import pytest

from llmcost.bill import ledger
from llmcost.present import glance, report

from _browser import chromium, requires_browser

pytestmark = [requires_browser]

# two bills that range the MFU (so the difference has a per-draw P10-P90): the same run on
# A100-80GB and on H100 SXM, named by titles as long as a trial's
A = {"model": "llama-2-13b", "accelerator": "A100-80GB", "n_gpus": 256, "train_tokens": 2e12,
     "seq_len": 4096, "mfu": [0.35, 0.5], "price_usd_per_gpu_hour": 2.79}
B = {**A, "accelerator": "H100-SXM", "price_usd_per_gpu_hour": 6.16}
NAMES = ("Llama 2 13B on 256 A100-80GB", "Llama 2 13B on 256 H100-SXM")

MEASURE_JS = r"""() => {
  const t = document.querySelector('#compared ~ div table');
  const box = t.getBoundingClientRect();
  const amounts = [...t.querySelectorAll('span.n')].map((s) => ({
    text: s.innerText, lines: [...s.getClientRects()].filter((r) => r.width > 0).length,
    right: s.getBoundingClientRect().right}));
  return {vw: document.documentElement.clientWidth, pageScroll: document.documentElement.scrollWidth,
          boxRight: box.right, tableScroll: t.scrollWidth, tableClient: t.clientWidth,
          head: [...t.querySelectorAll('tr:first-child th')].map((h) => h.innerText),
          amounts, text: document.body.innerText};
}"""


@pytest.fixture(scope="module")
def page_html():
    bills = [ledger.build_ledger(A), ledger.build_ledger(B)]
    df = glance.compare_bills(bills, NAMES, samples=20_000)
    body = glance.compare_html(df, NAMES, bills[1].warnings, "b.yaml",
                               glance.compare_inputs(bills),
                               figure=glance.compare_figure_html(df, NAMES))
    return (f"<!doctype html><html><head><meta name='viewport' content='width=device-width'>"
            f"<style>{report.INDEX_CSS}</style></head><body>{body}</body></html>"), df


@pytest.mark.parametrize("width", [390, 1400])
def test_comparison_shows_a_b_and_the_difference_per_draw_on_screen(page_html, width):
    html, df = page_html
    with chromium() as browser:
        page = browser.new_page(viewport={"width": width, "height": 900})
        page.set_content(html)
        m = page.evaluate(MEASURE_JS)
    where = f"at {width} px"
    assert m["pageScroll"] <= m["vw"], where
    # the whole table on screen: nothing scrolled out of its box
    assert m["tableScroll"] <= m["tableClient"], f"{where}: {m}"
    assert m["boxRight"] <= m["vw"] + 0.5, where
    assert [h.split("\n")[0] for h in m["head"]] == ["line", "A", "B", "B − A"], where
    assert "P10 to P90 per draw" in m["head"][3], where
    assert f"A: {NAMES[0]}; B: {NAMES[1]}." in m["text"], where
    # every amount whole on one line (a "−" never left above its "$9.26k") and on the screen
    assert m["amounts"] and all(a["lines"] == 1 and a["right"] <= m["vw"] + 0.5
                                for a in m["amounts"]), f"{where}: {m['amounts']}"
    # the total's difference and its per-draw P10 and P90 are shown as the table computed them
    total = df.to_dict("records")[-1]
    shown = [a["text"] for a in m["amounts"]][-3:]
    lo, hi = total["difference p10 usd"], total["difference p90 usd"]
    assert lo < total["difference usd"] < hi < 0  # H100 is cheaper in every draw here
    assert shown == [f"−{glance.fmt_usd(abs(v))}" for v in
                     (total["difference usd"], lo, hi)], where


FIGURE_JS = r"""() => {
  const img = document.querySelector('#compared ~ picture img');
  const r = img.getBoundingClientRect();
  const src = document.querySelector('#compared ~ picture source').srcset;
  return {vw: document.documentElement.clientWidth, left: r.left, right: r.right,
          width: r.width, natural: img.naturalWidth, phone: img.currentSrc === src,
          complete: img.complete, pageScroll: document.documentElement.scrollWidth};
}"""


@pytest.mark.parametrize("width", [390, 1400])
def test_comparison_figure_is_on_screen_with_the_phone_picture_on_a_phone(page_html, width):
    html, _ = page_html
    with chromium() as browser:
        page = browser.new_page(viewport={"width": width, "height": 900})
        page.set_content(html)
        page.wait_for_function("document.querySelector('#compared ~ picture img').complete")
        m = page.evaluate(FIGURE_JS)
    where = f"at {width} px: {m}"
    assert m["natural"] > 0, where  # the SVG decoded
    assert m["left"] >= 0 and m["right"] <= m["vw"] + 0.5 and m["pageScroll"] <= m["vw"], where
    assert m["phone"] is (width == 390), where  # the one-column picture on a phone only
    if width == 390:  # the picture drawn 4.5 in wide (324 pt) fills the phone's column
        assert 0.8 * m["vw"] <= m["width"] <= m["vw"], where


# The "Read this first" box printed: a trial's PDF of the Llama 3.1 405B report showed
# "(open a line for the detail)" and a ▶ before every line, the details closed on paper (the
# print rule `details>p{display:block}` does not open a closed <details> in Chromium); and the
# parameters table broke its names mid-word ("pp_virtual_stage / s", "mem_reserve_frac /
# tion") beside a wide value column. Printed, the box now holds each warning under its line.
WARNINGS = [
    "the plan's pipeline bubble adds 12% to the compute time (the stages idle 10% of each step; 16 "
    "stages, 16 micro-batches, interleaved): the mfu must already include it, or GPU-hours are "
    "understated by as much.",
    "phases[0] ('long-context', seq_len=131,072): seq_len=131,072 is beyond the 8,192-token "
    "sequence length of llama-3.1-405b's main pre-training: the phase prices the attention "
    "FLOPs and activation memory of that length for each of its tokens."]
NAMES_LONG = ["pp_virtual_stages", "mem_reserve_fraction", "waste_dataloader_stall_fraction",
              "inference_tokens_lifetime"]
PRINT_JS = r"""() => {
  const vw = document.documentElement.clientWidth;
  const shown = (el) => el.getClientRects().length > 0 && getComputedStyle(el).display !== 'none';
  const hints = [...document.querySelectorAll('span.hint')].filter(shown).length;
  const boxes = [...document.querySelectorAll('div.caveats details')].map((d) => ({
    summary: d.querySelector('summary').getBoundingClientRect().height,
    whole: d.getBoundingClientRect().height,
    marker: getComputedStyle(d.querySelector('summary')).listStyleType}));
  const broken = [...document.querySelectorAll('td:first-child > code')].filter((c) =>
    new Set([...c.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size > 1)
    .map((c) => c.innerText);
  return {vw, scrollWidth: document.documentElement.scrollWidth, hints, boxes, broken,
          text: document.body.innerText};
}"""


def test_printed_caveats_and_parameter_names_read_on_paper():
    rows = "".join(f"<tr><td><code>{k}</code></td><td>{v}</td><td>scenario</td></tr>"
                   for k, v in zip(NAMES_LONG, ["8", "0.1", "0", "1e13"]))
    rows += ("<tr><td><code>phases</code></td><td>" + "[{'name': 'long-context', 'tokens': "
             "800000000000.0, 'seq_len': 131072, 'mfu': 0.38}, {'name': 'annealing', "
             "'tokens': 40000000.0, 'seq_len': 131072, 'mfu': 0.38}]" + "</td><td>scenario"
             "</td></tr>")
    html = (f"<!doctype html><html><head><style>{report.INDEX_CSS}</style></head><body>"
            f"{glance.caveats_html(WARNINGS)}<table><tr><th>parameter</th><th>value</th>"
            f"<th>from</th></tr>{rows}</table></body></html>")
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 794, "height": 1123})  # A4 at 96 px/in
        page.set_content(html)
        screen = page.evaluate(PRINT_JS)
        page.emulate_media(media="print")
        printed = page.evaluate(PRINT_JS)
    # on screen: the hint shown, each warning closed under its line (the box as it was)
    assert screen["hints"] == 1 and all(b["whole"] < b["summary"] + 2 for b in screen["boxes"])
    # printed: no hint to click, no disclosure triangle, every warning's text under its line
    assert printed["hints"] == 0 and "open a line" not in printed["text"]
    assert len(printed["boxes"]) == 2 and all(
        b["whole"] > b["summary"] + 10 and b["marker"] == "none" for b in printed["boxes"])
    for w in WARNINGS:
        assert w in printed["text"]
    assert printed["broken"] == [], printed["broken"]
    assert printed["scrollWidth"] <= printed["vw"]


# The bill's phone picture (``plots.bill_at_a_glance(..., tall=True)``, the index's <picture>
# source under 40rem), drawn for the Llama 3.1 405B scenario, whose first bar is labelled
# "exploratory and failed runs, net of RL post-training and benchmark runs": wrapped at 15
# characters it is six lines, and at evenly spaced rows it reached 2.9 px into the label of the
# row below (a trial at 390 px). Each label's box now stands clear of its neighbours'.
LABELS_JS = r"""(svg) => {
  const box = document.createElement('div');
  box.style.cssText = 'width:358px';  // 390 px less the page's margins, as the index draws it
  box.innerHTML = svg.slice(svg.indexOf('<svg'));
  document.body.appendChild(box);
  const el = box.querySelector('svg');
  el.style.width = '358px';
  el.style.height = 'auto';
  const axis = el.querySelector('g[id^="matplotlib.axis_2"]');  // the bars' y axis
  return [...axis.querySelectorAll('g[id^="text_"]')].map((g) => {
    const r = g.getBoundingClientRect();
    return {text: g.textContent.trim().replace(/\s+/g, ' '), top: r.top, bottom: r.bottom};
  }).filter((b) => b.text);
}"""


def test_phone_bill_figure_labels_stand_apart():
    import re
    from urllib.parse import unquote

    import llmcost
    from llmcost import SCENARIO_DIR

    sc = llmcost.load_scenario(SCENARIO_DIR / "llama-3.1-405b.yaml")
    out, bars, tor = glance.bill_glance(sc, samples=20_000)
    labels = list(bars["line"])
    assert labels[0] == "exploratory and failed runs, net of RL post-training and benchmark runs"
    fig_html = glance.glance_figure_html(bars, tor, "Llama 3.1 405B", out["illustrative"],
                                         basis=out["basis"])
    tall = unquote(re.search(r"srcset=\"data:image/svg\+xml,([^\"]+)\"", fig_html).group(1))
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 390, "height": 900})
        page.set_content("<!doctype html><html><body style='margin:16px'></body></html>")
        boxes = sorted(page.evaluate(LABELS_JS, tall), key=lambda b: b["top"])
    assert len(boxes) == len(labels), boxes
    gaps = [(a["text"][:30], b["top"] - a["bottom"]) for a, b in zip(boxes, boxes[1:])]
    # at least 3 px apart (GLANCE_ROW_GAP_PT, 5.5 pt, is 6.1 px at 358 px over the picture's
    # 324 pt: Chromium's glyph boxes are a little taller than matplotlib's, so less is asked)
    assert min(g for _, g in gaps) >= 3, gaps


# The bill table printed: a finance trial's A4 PDF of a compare report broke the bill after two
# rows ("pre-training compute", "failures ...") and carried the other 14 to the next page
# without a header. The table has a head of its own and is kept whole where it fits a page.
def test_the_printed_bill_table_is_kept_whole_with_its_head(tmp_path):
    import shutil
    import subprocess
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) is not installed: the PDF's pages are not read")
    bill = ledger.build_ledger({"model": "llama-2-70b", "n_gpus": 2048, "train_tokens": 2e12,
                                "mfu": 0.4, "price_usd_per_gpu_hour": 3.99})
    rows = "".join(f"<tr><td>{ln.line}</td><td class='v'>$1</td><td>modelled</td></tr>"
                   for ln in bill.lines)
    table = report.bill_table_html(rows)  # the index's own markup
    # 600 px above the bill leaves less than its 23 rows of the first A4 page: the old markup
    # (no table rule, no head) split there, its first row on page 1 and its last on page 2
    filler = "<p style='height:600px'>text above the bill</p>"
    page_html = (f"<!doctype html><html><head><style>{report.INDEX_CSS}</style></head><body>"
                 f"{filler}{table}</body></html>")
    pdf = tmp_path / "bill.pdf"
    with chromium() as browser:
        page = browser.new_page()
        page.set_content(page_html)
        page.pdf(path=str(pdf), format="A4")
    pages = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True,
                           text=True, check=True).stdout.split("\f")
    with_rows = [i for i, t in enumerate(pages) if bill.lines[0].line in t
                 or bill.lines[-1].line in t]
    assert len(set(with_rows)) == 1, with_rows  # the first and last rows on one page
    on = pages[with_rows[0]]
    assert "USD (point)" in on and all(ln.line.split(" (")[0] in on for ln in bill.lines)
