"""The report at a glance (llmcost.present.glance, ledger.headline_draws / bill_bars,
plots.bill_at_a_glance): the bill's figure and text bars, the three plain sentences, the caveats
in the reader's words and two scenarios compared.

Numbers are checked against a hand derivation: with ``mfu`` uniform on [0.30, 0.50] and every
other input fixed, a compute line is C / MFU, so its P10 is C / 0.48 (the MFU's P90, 0.30 + 0.9 ×
0.20) and its P90 is C / 0.32: P10 / point = 0.40 / 0.48 = 0.8333 and P90 / point = 0.40 / 0.32 =
1.25 (point at the midpoint 0.40).
"""

from __future__ import annotations

import io
import json
import math
import re

import matplotlib
import numpy as np
import pytest

import llmcost
from llmcost import report
from llmcost.bill import ledger
from llmcost.bill.checks import scenario_warnings
from llmcost.bill.ranges import Range
from llmcost.core.units import fmt_usd
from llmcost.present import answers, glance, plots
from llmcost.training import accuracy

matplotlib.use("Agg")

RANGED = {"model": "llama-2-70b", "n_gpus": 2048, "train_tokens": 2e12, "mfu": [0.3, 0.5],
          "price_usd_per_gpu_hour": 4.0}
POINT = {**RANGED, "mfu": 0.4}


@pytest.fixture(scope="module")
def ranged():
    return ledger.simulate_ledger(RANGED, samples=100_000, seed=0)


def test_bars_are_the_ledgers_percentiles_and_match_a_hand_derivation(ranged):
    bars = ledger.bill_bars(ranged)
    s = ranged.summary()
    assert list(bars.index)[-1] == "total"
    for k in bars.index:  # every bar is the ledger's own P10 / P50 / P90 (no line merged here)
        for c in ("point", "p10", "p50", "p90"):
            assert bars.loc[k, f"{c}_usd"] == pytest.approx(s.loc[k, c], rel=1e-12)
    main = bars.loc["compute.pretraining.main"]
    assert main["p10_usd"] / main["point_usd"] == pytest.approx(0.40 / 0.48, rel=0.005)
    assert main["p90_usd"] / main["point_usd"] == pytest.approx(0.40 / 0.32, rel=0.005)
    points = bars["point_usd"].iloc[:-1].to_numpy()
    assert (np.diff(points) <= 0).all()  # largest first
    assert bars.attrs["zero_lines"] > 0 and bars.attrs["not_modelled"] == []


def test_small_lines_merge_with_the_percentiles_of_their_sum(ranged):
    bars = ledger.bill_bars(ranged, min_share=0.02)
    merged = [k for k in ranged.line_usd
              if k not in bars.index and np.any(np.asarray(ranged.line_usd[k]) != 0)]
    assert len(merged) >= 2 and "other" in bars.index
    x = sum(np.asarray(ranged.line_usd[k], dtype=float) for k in merged)
    assert bars.loc["other", "p90_usd"] == pytest.approx(np.quantile(x, 0.9), rel=1e-12)
    assert bars.loc["other", "line"] == f"{len(merged)} smaller lines"
    with pytest.raises(ValueError, match="min_share"):
        ledger.bill_bars(ranged, min_share=1.5)
    with pytest.raises(ValueError, match="draws"):
        ledger.bill_bars({"total": 1})


def _sourced_spreads(price: float) -> dict:
    """The illustrative spreads by hand from their sources: the price P × (1 ± r), r half the
    P25-P75 of the current on-demand H100-SXM rows of data/prices.csv (numpy's linear
    quantiles) over their median, peaked at the scenario's price P; the exploratory fraction
    as Cottier et al. 2024's log-normal of the multiplier 1 + x, 90% CI 1.2-4.0 (P10 / P90
    exp(μ ∓ z₀.₉ σ), μ = ln 2.19, σ = ln(4 / 1.2) / (2 z₀.₉₅)), x cut to [0, 10]
    (data/ledger_defaults.csv's 0.2-3.0 and the input's rule)."""
    from llmcost.core.catalog import list_prices
    rows = list_prices("H100-SXM", "on_demand", current_only=True)["price_usd_per_gpu_hour"]
    q25, q75 = np.quantile(rows.to_numpy(dtype=float), [0.25, 0.75])
    r = (q75 - q25) / (2 * np.median(rows.to_numpy(dtype=float)))
    mu, sigma = math.log(2.19), math.log(4.0 / 1.2) / (2 * 1.6448536269514722)
    z90 = 1.2815515655446004
    return {"price_usd_per_gpu_hour": ("triangular", price * (1 - r), price, price * (1 + r)),
            "ledger_exploratory_fraction": ("shifted_lognormal", math.exp(mu - z90 * sigma),
                                            math.exp(mu + z90 * sigma), 0.0, 10.0)}


@pytest.mark.parametrize("case", ["scenario", "predicted", "illustrative"])
def test_headline_ranges_price_and_exploration_unless_the_scenario_does(ranged, case):
    # The rule (ledger.HEADLINE_RULE): MFU, price and exploratory compute are ranged, by
    # the scenario where it ranges them (or mfu: predict's band), else by the sourced spread.
    # A predicted-MFU scenario then gets the same price and exploration spreads as a given-MFU
    # one (a new-user trial found it 1.9x narrower without them).
    pred = {"mfu": 0.45, "_mfu_prediction": {"value": 0.45, "band": {"low": 0.4, "high": 0.5}}}
    sc = {"scenario": RANGED, "predicted": {**POINT, **pred}, "illustrative": POINT}[case]
    head = ledger.headline_draws(sc)
    mfu_kind = {"scenario": "scenario", "predicted": "predicted", "illustrative": "illustrative"}
    assert head.kinds == {"mfu": mfu_kind[case], "price_usd_per_gpu_hour": "illustrative",
                          "ledger_exploratory_fraction": "illustrative"}
    assert head.state == case and head.illustrative == (case == "illustrative")
    spreads = _sourced_spreads(4.0)
    r = head.draws.ranges["price_usd_per_gpu_hour"]
    assert (r.kind, r.low, r.mode, r.high) == pytest.approx(spreads["price_usd_per_gpu_hour"])
    r = head.draws.ranges["ledger_exploratory_fraction"]
    assert (r.kind, r.p10, r.p90, r.low, r.high) == pytest.approx(
        spreads["ledger_exploratory_fraction"])
    if case == "predicted":  # the band the prediction carries, as a triangle at the prediction
        r = head.draws.ranges["mfu"]  # the band's ends its P5 and P95 (a 90% band)
        assert (r.quantile(0.05), r.mode, r.quantile(0.95)) == pytest.approx((0.4, 0.45, 0.5))
    if case == "scenario":  # common random numbers: the scenario's own draws of its own range
        assert np.array_equal(head.draws.inputs["mfu"], ranged.inputs["mfu"])
    # the points stay the scenario's: the same point bill
    assert head.point.total_usd == pytest.approx(ledger.build_ledger(sc).total_usd, rel=1e-12)
    assert head.draws.point.total_usd == pytest.approx(head.point.total_usd, rel=1e-9)
    assert all(head.sources[k] for k in head.draws.ranges)
    assert head.basis == {
        "scenario": "the scenario's ranges on the MFU; illustrative spreads on the GPU-hour "
                    "price and the exploratory compute, which the scenario gives as one number",
        "predicted": "the step-time model's band on its predicted MFU; illustrative spreads on "
                     "the GPU-hour price and the exploratory compute, which the scenario gives "
                     "as one number",
        "illustrative": "illustrative ranges: the scenario gives every input as one number"}[case]


def test_range_basis_names_each_source_in_three_states():
    assert ledger.headline_state({}) == "illustrative"
    assert ledger.range_basis({"mfu": "predicted"}) == (
        "the step-time model's band on its predicted MFU (the scenario ranges nothing else)")
    assert ledger.range_basis({"mfu": "scenario", "price_usd_per_gpu_hour": "scenario"}) == (
        "the scenario's ranges on the MFU and the GPU-hour price")
    assert ledger.range_basis({"price_usd_per_gpu_hour": "scenario", "mfu": "predicted"}) == (
        "the scenario's ranges on the GPU-hour price and the step-time model's band on its "
        "predicted MFU")
    with pytest.raises(ValueError, match="kinds"):
        ledger.range_basis({"mfu": "guessed"})


def test_figure_draws_each_bar_at_its_point_and_whisker_at_p10_p90(ranged):
    bars, tor = ledger.bill_bars(ranged), ranged.tornado()
    ax, ax2 = plots.bill_at_a_glance(bars, tor, title="my scenario")
    widths = sorted(p.get_width() for p in ax.patches)
    assert widths == pytest.approx(sorted(bars["point_usd"] / 1e6), rel=1e-9)
    fig = ax.figure
    assert "my scenario" in fig._suptitle.get_text()
    assert fmt_usd(bars.loc["total", "p90_usd"]) in fig._suptitle.get_text()
    assert "USD (millions)" in ax.get_xlabel()
    ends = {round(x, 9) for line in ax.lines for x in np.ravel(line.get_xdata())}
    for k in bars.index:
        assert round(bars.loc[k, "p10_usd"] / 1e6, 9) in ends
        assert round(bars.loc[k, "p90_usd"] / 1e6, 9) in ends
    dots = [ln for ln in ax.lines if ln.get_marker() == "o"]  # each line's P50, a dot
    assert len(dots) == 1 and np.allclose(dots[0].get_xdata(), bars["p50_usd"] / 1e6)
    assert fmt_usd(bars.loc["total", "p50_usd"]) in fig._suptitle.get_text()
    assert len(ax2.patches) == 2 * len(tor)  # the tornado: one bar each side per input
    tall = plots.bill_at_a_glance(bars, tor, title="my scenario", tall=True)
    assert tall[0].get_position().y0 > tall[1].get_position().y1  # the bars above the tornado
    matplotlib.pyplot.close("all")


def test_a_long_scenario_title_stays_inside_the_wide_figure(ranged):
    # A reader's trial: the 65-character title "Qwen3-30B-A3B-style MoE, 20T tokens, 1,024 x
    # B200, FP8, with GRPO" with the bill's range ran past both edges of the 1,080-pt figure
    # ("wen3-30B-A3B-style MoE, ... (P50 $4.73"); wrapped now, every line inside the figure and
    # the axes below the title
    bars, tor = ledger.bill_bars(ranged), ranged.tornado()
    title = "Qwen3-30B-A3B-style MoE, 20T tokens, 1,024 x B200, FP8, with GRPO"
    ax, ax2 = plots.bill_at_a_glance(bars, tor, title=title)
    fig = ax.figure
    sup = fig._suptitle
    assert sup.get_text().count("\n") >= 1 and title.split(",")[0] in sup.get_text()
    fig.canvas.draw()
    box, frame = sup.get_window_extent(), fig.bbox
    assert box.x0 >= frame.x0 and box.x1 <= frame.x1 and box.y1 <= frame.y1
    for a in (ax, ax2):  # the axes' titles under the suptitle
        assert a.title.get_window_extent().y1 <= box.y0
    matplotlib.pyplot.close("all")


def _bar_cells(row: str, width: int) -> str:
    """The ``width`` bar cells of a row of ``glance_text``: from the first bar character."""
    start = min(i for i, ch in enumerate(row) if ch in "█├─┤│")
    return row[start:start + width]


def test_text_bars_scale_and_charsets(ranged):
    bars, tor = ledger.bill_bars(ranged), ranged.tornado()
    text = glance.glance_text(bars, tor, width=40, columns=200)
    total = next(ln for ln in text.splitlines() if ln.strip().startswith("the whole bill"))
    top = max(bars["p90_usd"].max(), tor["total_at_p90_usd"].max(), tor["total_at_p10_usd"].max())
    unit = top / 40
    cells = _bar_cells(total, 40)
    # bar to the point, whisker ends in the cells of the P10 and the P90
    assert cells.index("├") == int(bars.loc["total", "p10_usd"] / unit)
    assert cells.index("┤") == min(39, int(bars.loc["total", "p90_usd"] / unit))
    assert cells.count("█") + 1 == pytest.approx(bars.loc["total", "point_usd"] / unit, abs=1.5)
    assert fmt_usd(bars.loc["total", "p10_usd"]) in total
    ascii_text = glance.glance_text(bars, tor, charset="ascii")
    ascii_text.encode("ascii")  # nothing else
    assert glance.text_charset(type("S", (), {"encoding": "ascii"})()) == "ascii"
    assert glance.text_charset(type("S", (), {"encoding": "utf-8"})()) == "unicode"
    with pytest.raises(ValueError, match="charset"):
        glance.glance_text(bars, tor, charset="emoji")
    with pytest.raises(ValueError, match="columns=10"):
        glance.glance_text(bars, tor, columns=10)


@pytest.mark.parametrize("columns", [50, 60, 80, 120])
def test_text_bars_fit_the_terminal_and_never_cut_a_label(ranged, columns):
    bars, tor = ledger.bill_bars(ranged), ranged.tornado()
    text = glance.glance_text(bars, tor, columns=columns)
    assert max(len(ln) for ln in text.splitlines()) <= columns
    assert "…" not in text
    flat = " ".join(ln.strip() for ln in text.splitlines())
    for label in list(bars["line"]) + [ledger.input_words(k) for k in tor["input"]]:
        # every word of every label is printed, in order (wrapped onto the next line if long)
        assert re.search(r"\s.*?".join(re.escape(w) for w in label.split()), flat), label


def test_text_bars_default_to_80_columns_when_piped(monkeypatch, ranged):
    # shutil.get_terminal_size: COLUMNS when set, else the terminal's size, else the fallback
    monkeypatch.delenv("COLUMNS", raising=False)
    assert glance.terminal_columns() == 80  # pytest captures stdout: not a terminal
    monkeypatch.setenv("COLUMNS", "132")
    assert glance.terminal_columns() == 132


def test_a_point_outside_its_own_range_is_marked_and_explained():
    # A triangular price peaked at its low end, {low 3.99, mode 3.99, high 6}: every draw is
    # dearer than the point, so the compute lines' P10 lies above their point. By hand, with
    # everything else fixed, a compute line is proportional to the price, so its P10 / point is
    # the price's P10 / 3.99: P10 of a right triangle on [a, b] with mode a is
    # b - (b - a)·sqrt(0.9) = 6 - 2.01·0.94868 = 4.0931, a ratio of 1.0258.
    sc = {**POINT, "price_usd_per_gpu_hour": {"low": 3.99, "mode": 3.99, "high": 6.0}}
    d = ledger.simulate_ledger(sc, samples=100_000)  # the price alone ranged
    bars, tor = ledger.bill_bars(d), d.tornado()
    main = bars.loc["compute.pretraining.main"]
    assert main["p10_usd"] / main["point_usd"] == pytest.approx(
        (6 - 2.01 * np.sqrt(0.9)) / 3.99, rel=0.003)
    assert main["point_outside"] and bars.loc["total", "point_outside"]
    assert glance.point_outside(1.0, 1.0, 2.0) is False  # at its P10: inside
    assert glance.point_outside(0.9, 1.0, 2.0) and glance.point_outside(2.1, 1.0, 2.0)
    # within half a percent of its range it reads as inside at three significant figures (a
    # trial: dataset storage "$111*" beside "$111-$111": 111.195 against P10 111.204)
    assert glance.point_outside(111.195, 111.204, 111.344) is False
    assert glance.point_outside(13.35, 13.51, 15.85)  # 1.0% below its P10: marked
    # across a power of ten the third figure is coarser: "$1.00M" beside "$990k-$999k" is out
    assert glance.point_outside(1.003e6, 0.99e6, 0.999e6)
    # the star follows the printed strings: a trial read "$1.08k" beside a P10 of "$1.09k"
    # unstarred (1,084 against 1,087), and compare's "-$5.41M" beside "-$5.40M to -$5.35M"
    assert fmt_usd(1084) == "$1.08k" and fmt_usd(1087) == "$1.09k"
    assert glance.point_outside(1084, 1087, 1200)
    assert fmt_usd(-5.4051e6) == "-$5.41M" and fmt_usd(-5.4049e6) == "-$5.40M"
    assert glance.point_outside(-5.4051e6, -5.4049e6, -5.35e6)
    assert not glance.point_outside(1086, 1087, 1200)  # both print "$1.09k": inside
    text = glance.glance_text(bars, tor, columns=100)
    row = next(ln for ln in text.splitlines() if ln.strip().startswith("pre-training compute"))
    assert f"{fmt_usd(main['point_usd'])}* ({fmt_usd(main['p10_usd'])}" in row
    assert "* point outside its P10–P90: the stated value is at the edge of its range" in \
        " ".join(ln.strip() for ln in text.splitlines())
    # summary.json's bill (the report's) marks such lines as `estimate --format json` does; its
    # headline draws spread a point MFU, so the MFU is ranged here too, its mode at its high
    # end: every draw then costs at least the point
    summary = report._bill({**sc, "mfu": {"low": 0.3, "mode": 0.4, "high": 0.4}},
                           samples=20_000)
    assert summary["bill.lines"]["compute.pretraining.main"]["point_outside"]
    assert "P10–P90" in summary["bill.point_outside_note"]
    assert summary["bill.total_point_outside"] == glance.point_outside(  # the exploratory
        summary["bill.total_usd"], summary["bill.total_p10_usd"],       # spread widens it
        summary["bill.total_p90_usd"])
    # a line whose point lies inside carries no marker, and no footnote without one
    inside = ledger.bill_bars(ledger.simulate_ledger(RANGED, samples=20_000))
    assert not inside["point_outside"].any()
    assert "point outside" not in glance.glance_text(inside, tor.iloc[:0], columns=100)
    # the bill's figure marks the same lines and says why (as the text bars do)
    ax, _ = plots.bill_at_a_glance(bars, tor)
    labels = [t.get_text() for t in ax.texts]
    assert any(t.startswith(f"{fmt_usd(main['point_usd'])}*") for t in labels)
    assert not any(t.startswith(f"{fmt_usd(bars.loc['storage.datasets', 'point_usd'])}*")
                   for t in labels if "storage.datasets" in bars.index)
    notes = " ".join(t.get_text() for t in ax.figure.texts + ax.texts)
    assert "* point outside its P10–P90" in notes.replace("\n", " ")
    ax2, _ = plots.bill_at_a_glance(inside, tor.iloc[:0])
    assert not any("*" in t.get_text() for t in ax2.texts)
    matplotlib.pyplot.close("all")


def _summary(g, notebooks=None):
    return {"bill_glance": g, "notebooks": notebooks or {}}


def test_three_sentences_carry_the_summarys_numbers():
    g, bars, tor = glance.bill_glance(RANGED)
    json.dumps(g)  # summary.json keeps it
    point = bars.loc["total", "point_usd"]   # notebook 09's bill, the same when no waste is set
    nine = {"09_savings": [
        {"key": "bill_usd", "label": "bill with waste", "value": point, "unit": "USD",
         "note": ""},
        {"key": "lever_1_saving_usd", "label": "lever 1: FP8 training", "value": point / 4,
         "unit": "USD", "note": "25.0% of the bill; risk: loss divergence"}]}
    first, second, third = glance.plain_sentences(_summary(g, nine))
    detail = glance.lead_details(_summary(g, nine))
    t = bars.loc["total"]
    # the first sentence is short (a trial read a 100-word one): the total, likely P10 to P90
    assert first.endswith(f"{fmt_usd(t['point_usd'])}, likely {fmt_usd(t['p10_usd'])} to "
                          f"{fmt_usd(t['p90_usd'])}.") and len(first.split()) <= 15
    # the final pre-training run, as notebook 00's headline counts it: paid GPU-hours × price
    run = ledger.build_ledger(RANGED).figures["final_run_usd"]
    assert g["final_run"]["point_usd"] == pytest.approx(run, rel=1e-9)
    # the paragraph does not repeat the sentence above it: it says what its figures are
    assert fmt_usd(run) in detail and fmt_usd(t["p10_usd"]) not in detail
    assert detail.startswith('The first figure is the point estimate; "likely" is the P10-P90 '
                             'range of the draws')
    assert "The final pre-training run" in detail and "final training run" not in detail
    assert ("from the scenario's ranges on the MFU; illustrative spreads on the GPU-hour price "
            "and the exploratory compute") in detail
    assert f"median {fmt_usd(t['p50_usd'])}" in detail
    top = tor.iloc[0]
    assert ledger.input_words(top["input"]) in second
    lo, hi = sorted((top["total_at_p10_usd"], top["total_at_p90_usd"]))
    assert fmt_usd(lo) in second and fmt_usd(hi) in second
    # "Most of that range" only when the top input carries over half its variance, s0² / Σ s²
    swings = tor["swing_usd"].to_numpy()
    share = swings[0] ** 2 / (swings ** 2).sum()
    assert glance.top_share(g["tornado"]) == pytest.approx(share, rel=1e-12)
    assert second.startswith("Most of that range" if share > 0.5 else
                             "The largest single part of that range")
    # the saving before the name (a lever's name may end in a clause of its own)
    assert third == (f"The biggest lever (notebook 09) would save about {fmt_usd(point / 4)} "
                     "at the bill's point estimate (25% of the whole bill): FP8 training; its "
                     "risk: loss divergence.")
    # a lever that lengthens the main run says so beside its saving, as notebook 09's lever
    # table has it (answers.lever_days: a new-user trial's cheaper-hardware lever saved $189k
    # and the headline did not say the run took 4.2 days longer)
    slow = {"09_savings": [nine["09_savings"][0], dict(
        nine["09_savings"][1], note="25.0% of the bill" + answers.lever_days(-4.2)
        + "; risk: loss divergence")]}
    assert glance.plain_sentences(_summary(g, slow))[2].endswith(
        ": FP8 training; the main run 4.2 days longer; its risk: loss divergence.")
    assert answers.lever_days(0.02) == "" and answers.lever_days(1.25) == \
        "; the main run 1.2 days shorter"
    # notebook 09's bill with the scenario's waste lines (here 2× the stated bill, the glance's
    # total as the first sentence prints it): the share says whose bill it is of (a trial read
    # a $447k saving as "56% of the whole bill" of $559k); the lever 1/8 of that bill
    big = {"09_savings": [dict(nine["09_savings"][0], value=2 * point), nine["09_savings"][1]]}
    waste = {**_summary(g, big),
             "parameters": {"waste_dataloader_stall_fraction": {"value": 0.3}}}
    first, _, third = glance.plain_sentences(waste)
    stated = glance._span_money(t["p10_usd"], t["p90_usd"])(t["point_usd"])
    assert stated in first
    assert (f"(12% of notebook 09's bill with the scenario's waste, {fmt_usd(2 * point)}, "
            f"which the {stated} above leaves out)") in third
    # no waste key: the bills differ for another reason, said neutrally
    assert f"(12% of notebook 09's bill, {fmt_usd(2 * point)})" in glance.plain_sentences(
        _summary(g, big))[2]
    # a trial's A100 scenario headlined a lever saving "$16.56 (0% of the bill)": a lever under
    # 1% of the bill is no headline (by hand: 16.56 / 2.3e6 = 0.0007%)
    tiny = {"09_savings": [dict(nine["09_savings"][0]),
                           dict(nine["09_savings"][1], label="lever 1: keep milestones 3 months",
                                value=16.56)]}
    assert glance.plain_sentences(_summary(g, tiny))[2] == (
        "No lever of notebook 09 saves 1% of this bill or more (the largest, keep milestones "
        "3 months, saves about $16.56, under 0.01% of it).")
    # notebook 09 not run, failed, or no lever: a sentence that says so, never a made-up lever
    assert "was not run" in glance.plain_sentences(_summary(g))[2]
    assert "failed" in glance.plain_sentences(_summary(g, nine), failed=["09_savings"])[2]
    assert "no lever" in glance.plain_sentences(_summary(g, {"09_savings": []}))[2]
    ill = glance.bill_glance(POINT)[0]
    assert "from illustrative ranges: the scenario gives every input as one number" in \
        glance.lead_details(_summary(ill))
    assert glance.plain_sentences({"bill_glance": None}) == []


def test_a_bill_over_its_budget_says_so_in_the_first_sentence():
    # A trial: a bill 5.5× its budget said so only in the box of warnings. The ratio is the
    # point ÷ the budget, as checks.budget_warning writes it.
    g, bars, _ = glance.bill_glance(RANGED)
    t = bars.loc["total"]
    first = glance.plain_sentences({**_summary(g), "bill": {
        "bill.figures.budget_usd": t["point_usd"] / 5.5}})[0]
    assert f"That is 5.5× the budget of {fmt_usd(t['point_usd'] / 5.5)}." in first
    # a budget between the point and the P90: the draws above it, said
    mid = (t["point_usd"] + t["p90_usd"]) / 2
    assert f"The budget of {fmt_usd(mid)} lies below its P90." in glance.plain_sentences(
        {**_summary(g), "bill": {"bill.figures.budget_usd": mid}})[0]
    # 4% over reads as such, not "1.0× the budget" (a review)
    assert f"That is 4% over the budget of {fmt_usd(t['point_usd'] / 1.04)}." in \
        glance.plain_sentences({**_summary(g), "bill": {
            "bill.figures.budget_usd": t["point_usd"] / 1.04}})[0]
    # above the P90, or none: nothing
    for budget in (t["p90_usd"] * 2, None):
        assert "budget" not in glance.plain_sentences(
            {**_summary(g), "bill": {"bill.figures.budget_usd": budget}})[0]
    assert glance.lead_details({"bill_glance": None}) == ""


def test_the_first_sentence_says_what_the_total_leaves_out_and_its_default_line():
    # A new-user trial: "The whole project costs $1.20M" over a bill whose people, data,
    # evaluation, network, operations and reserve lines were not given ($0), and whose largest
    # line, the exploratory and failed runs, is the workbook's default share of the main run.
    # By the point bill's own statuses: the categories all of whose lines are "not given" are
    # named whole, those with some such lines as "some ... lines", the largest "default" line
    # with its amount.
    g = glance.bill_glance(RANGED)[0]
    bill = ledger.build_ledger(RANGED)
    cats = {}
    for ln in bill.lines:
        cats.setdefault(ln.category, set()).add(ln.status == "not given")
    whole = [c for c, v in cats.items() if v == {True}]
    partly = [c for c, v in cats.items() if v == {True, False}]
    assert g["gaps"]["whole"] == whole and g["gaps"]["partly"] == partly
    assert "people" in whole and "compute" not in whole + partly
    top = max((ln for ln in bill.lines if ln.status == "default"), key=lambda ln: ln.usd)
    first = glance.plain_sentences(_summary(g))[0]
    assert first.startswith("The lines priced for this scenario add up to "
                            f"{fmt_usd(bill.total_usd)}"
                            ", likely ")
    detail = glance.lead_details(_summary(g))
    # each category partly given names its lines left out, each label before its parenthesis
    # (a data lead and a PI read "some post-training lines" and could not tell which)
    names = {c: [ln.line.split(" (")[0].removeprefix(f"{c}: ") for ln in bill.lines
                 if ln.category == c and ln.status == "not given"] for c in partly}
    def both(xs):
        return xs[0] if len(xs) == 1 else ", ".join(xs[:-1]) + " and " + xs[-1]
    left = whole + [f"{c} lines ({both(names[c])})" for c in partly]
    sep = "; " if any("," in x for x in left) else ", "
    last = "; and " if sep == "; " else " and "
    assert ("Not in that total: " + sep.join(left[:-1]) + f"{last}{left[-1]} (not given in the "
            "scenario, counted $0; notebook 00 lists them).") in detail
    # the default line is a sentence of its own: joined to "Not in that total: ..." by a
    # semicolon, a reader took it for one more thing the total leaves out
    assert (f"lists them). The line '{top.line}', {fmt_usd(top.usd)}, is priced from the "
            "workbook's default") in detail
    assert "; the line '" not in detail and "; the GPU-hour price" not in detail
    # the default scenario: its exploratory and failed runs, the largest line, is a default
    d = glance.bill_gaps(report.estimate_ledger("data/scenarios/default.yaml"))
    # (net of its RL campaign, which Cottier et al. 2024's multiplier counts: the label says so)
    assert d["defaults"][0]["line"] == "exploratory and failed runs, net of RL post-training"
    assert g["gaps"]["price_default"] is None and "catalogue's median" not in detail
    # no price given: the bill's GPU-hour price is the catalogue median (a reviewer: the
    # sentence named a $2.29k default line and not the price the whole compute rests on)
    nop = {k: v for k, v in RANGED.items() if k != "price_usd_per_gpu_hour"}
    median = llmcost.catalog.catalogue_price("H100-SXM")[0]
    gn = glance.bill_glance(nop)[0]
    assert gn["gaps"]["price_default"] == pytest.approx(median, rel=1e-12)
    nop_detail = glance.lead_details(_summary(gn))
    assert (f"lists them). The GPU-hour price, ${median:.2f}, is the catalogue's median, not a "
            "quote the scenario gives. The line '") in nop_detail
    # one catalogue row is not a median (a review): H100 SXM reserved is one Hyperstack row,
    # H200's one reserved row (AWS) lies above its on-demand median (data/prices.csv)
    assert glance.bill_gaps(ledger.build_ledger({**nop, "pricing": "reserved"}))[
        "price_default_words"] == "the catalogue's one listed price"
    assert glance.bill_gaps(ledger.build_ledger(
        {**nop, "accelerator": "H200", "pricing": "reserved"}))["price_default_words"] == (
        "the catalogue's on-demand median, which a reserved run takes where its reserved row "
        "lies above it")
    # owned hardware: the price is the amortised purchase, the scenario's when it gives one
    # (a trial's $30,000 H100: $30,000 × 1.64 ÷ 0.81 × 0.14·ln 10 ÷ 8,766 h + energy, $2.33,
    # was called "the catalogue's median"), else the workbook's H100 price amortised
    owned = {**nop, "pricing": "owned"}
    assert glance.bill_gaps(ledger.build_ledger({**owned, "ledger_owned_usd_per_gpu": 30_000})
                            )["price_default"] is None
    ob = ledger.build_ledger(owned)
    go = glance.bill_gaps(ob)
    # the rate the compute lines charge, by hand (Cottier et al. 2024 as data/ledger_defaults.csv
    # holds it): $27,500 × 1.64 (server) ÷ (1 − 0.19) (interconnect) × 0.14·ln 10 ÷ 8,766 h =
    # $2.0476 per GPU-hour, the hardware alone; the energy is the electricity line's, so the
    # index no longer names the price with it ($2.14) beside lines charging $2.05
    hand = 27_500 * 1.64 / (1 - 0.19) * 0.14 * math.log(10) / 8_766
    assert go["price_default"] == pytest.approx(hand, rel=1e-3)
    assert go["price_default"] == pytest.approx(ob.figures["gpu_rate_usd_per_gpu_hour"],
                                                rel=1e-12)
    assert ob.figures["price_usd_per_gpu_hour"] > go["price_default"] + 0.05  # energy apart
    assert ("The GPU-hour price, $2.05, is the workbook's H100 purchase price amortised (the "
            "hardware; its energy is on the electricity line), not a quote") in \
        glance.gaps_sentence(go)
    # compared with a rented bill, the owned one shows the rate its lines charge
    rented = ledger.build_ledger({**nop, "price_usd_per_gpu_hour": 2.5})
    assert "price_usd_per_gpu_hour $2.05/GPU-h hardware (+ energy on its own line) → " \
           "$2.50/GPU-h (given)" in glance.compare_inputs([ob, rented])
    # a bill that leaves nothing out is the whole project's
    full = dict(g, gaps={"whole": [], "partly": [], "defaults": [],
                              "price_default": None})
    assert glance.plain_sentences(_summary(full))[0].startswith("The whole project costs ")
    assert "Not in that total" not in glance.lead_details(_summary(full))


def test_caveats_are_one_line_in_the_readers_words():
    ws = scenario_warnings({"model": "llama-2-70b", "mfu": 0.9, "dtype": "fp8"})
    lines = [glance.caveat_line(w) for w in ws]
    assert "the assumed MFU, 90%, is above any published training run: every cost here is " \
           "optimistic" in lines
    assert any(x.startswith("the MFU counts against the FP8 peak") for x in lines)
    # the step-time model's band on a regime with few held-out runs (accuracy.mfu_band's words)
    # The error e = predicted / published MFU − 1 is one on the step time (MFU ∝ 1 / step
    # time); ±30% around a centre 0 puts the published MFU in [p / 1.3, p / 0.7]: by hand
    # 1 − 1/1.3 = 23.1% below and 1/0.7 − 1 = 42.9% above the prediction, not "±30%".
    assert accuracy.mfu_spread_words(0.0, 0.30) == (
        "the MFU 23% below to 43% above the prediction, before any cap")
    assert accuracy.step_error_words(0.0, 0.30).startswith(
        "published step times +0.0% ± 30% from the predicted")
    band = accuracy.mfu_band(0.25, "H100-SXM", 2048, n_params=69e9, seq_len=4096)
    w = next(x for x in band.warnings if x.startswith("only "))
    c, hw = band.center, band.half_width  # the regime's own centre and stated half-width
    lower, higher = 1 - 1 / (1 + c + hw), 1 / (1 + c - hw) - 1
    assert band.high == pytest.approx(0.25 / (1 + c - hw))  # below the cap (54.6%): not capped
    assert glance.caveat_line(w) == (
        f"the predicted MFU rests on only {band.n} published {'run' if band.n == 1 else 'runs'} like this one, its sharding included, kept out of its fitting: read it as "
        f"{lower:.0%} lower to {higher:.0%} higher than the model's raw prediction")
    # A new-user trial: at 50% (above the best comparable run, then Megatron-LM's 47%) the band
    # was capped at the prediction itself and the bill used 50%. The band's top is now the best
    # comparable run (NVIDIA's DGX Cloud Llama 3.1 70B BF16 on 64 H100, 54.6%): at 58% it is
    # 6% below the prediction (0.546 / 0.58 - 1), and the range said is the capped one.
    best = accuracy.best_published_mfu("H100-SXM", 69e9, seq_len=4096)[0]
    assert best == pytest.approx(0.546, abs=5e-4)
    capped = accuracy.mfu_band(0.58, "H100-SXM", 2048, n_params=69e9, seq_len=4096)
    assert capped.high == best and capped.capped_above() == pytest.approx(best / 0.58 - 1)
    # its low end keeps the regime's width below the capped point: best × (1 + c) / (1 + c + w)
    assert capped.low == pytest.approx(best * (1 + c) / (1 + c + hw))
    w_cap = next(x for x in capped.warnings if x.startswith("only "))
    assert glance.caveat_line(w_cap) == (
        f"the predicted MFU rests on only {capped.n} published {'run' if capped.n == 1 else 'runs'} like this one, its sharding included, kept out of its fitting and is above "
        f"every comparable published run: read it as 6% to {1 - capped.low / 0.58:.0%} lower "
        "(its range is capped)")
    (cap,) = [x for x in capped.warnings if x.startswith("the band's upper end")]
    assert glance.caveat_line(cap) == (
        "the MFU's range is capped at 54.6%, the best comparable published run: the prediction, "
        "58.0%, is above every one, so the bill uses no more than 54.6%")
    # the band once, not again inside nested brackets
    assert band.describe().count(f"{band.low:.1%}") == 1 and "((" not in band.describe()
    # A new-user trial: Mixtral 8x7B on MI300X read "above any published run on this
    # hardware" where no MoE run is published on MI300X (data/validation_mfu.csv holds none):
    # the cap is a run on other hardware, and the line says so.
    assert not any(r.accelerator == "MI300X" for r in accuracy.validation_table().itertuples())
    # (a prediction of 50%: above Megatron-Core's Mixtral 8x7B on 64 H100, 44.3%, the best
    # MoE BF16 run of its class on any hardware since that row joined; 40.2% was above NeMo
    # AutoModel's 34.0% before)
    moe = accuracy.mfu_band(0.50, "MI300X", 512, n_params=46.7e9, seq_len=4096, is_moe=True)
    (over,) = [x for x in moe.warnings if x.startswith("the predicted MFU ")]
    line = glance.caveat_line(over)
    assert moe.high == pytest.approx(438 / 989.4, rel=1e-3)
    assert "this hardware" not in line and line == (
        f"the predicted MFU, 50.0%, is above the best comparable published run on any hardware "
        f"({moe.high:.1%}, among MoE BF16 runs); no MoE run is published on MI300X: read it as "
        "optimistic")
    # a warning of no known family: its first clause
    assert glance.caveat_line("something new happened: the details") == "something new happened"
    # a long first clause is shortened at a word, never cut mid-word (the detail holds it all)
    long = "word " * 40 + "ending"
    line = glance.caveat_line(long)
    assert len(line) <= 140 and line.endswith(" …") and line[:-2].split() == long.split()[:len(
        line[:-2].split())]
    # the catalogue's dear reserved price (checks.catalogue_price_warning) in a reader's words
    (dear,) = [x for x in scenario_warnings({"accelerator": "B200", "pricing": "reserved",
                                             "price_usd_per_gpu_hour": None})
               if x.startswith("pricing=")]
    assert glance.caveat_line(dear) == ("the catalogue's reserved price for B200, $14.21/GPU-h, "
                                        "is above its on-demand median: the bill uses that, "
                                        f"${(6.69 + 8.60) / 2:.2f}/GPU-h (get a quote)")
    page = glance.caveats_html([w])
    assert "<details><summary>the predicted MFU rests" in page and \
        "too few to measure the model&#x27;s error" in page


def test_compare_is_per_draw_with_common_random_numbers():
    a = ledger.build_ledger(RANGED)
    b = ledger.build_ledger({**RANGED, "price_usd_per_gpu_hour": 8.0})
    same = glance.compare_bills([a, a], ("a", "a2"))
    assert (same[["difference p10 usd", "difference p90 usd"]].abs().to_numpy() < 1e-6).all()
    df = glance.compare_bills([a, b], ("a", "b"))
    row = df[df["line"] == "pre-training compute"].iloc[0]
    # price doubled: B − A of the main run is A's own amount in every draw
    q = np.quantile(ledger.simulate_ledger(RANGED).line_usd["compute.pretraining.main"],
                    [0.1, 0.9])
    assert row["difference p10 usd"] == pytest.approx(q[0], rel=1e-9)
    assert row["difference p90 usd"] == pytest.approx(q[1], rel=1e-9)
    page = glance.compare_html(df, ("a", "b"))
    assert "<h2 id='compared'>Compared: a and b</h2>" in page and "per draw" in page
    assert fmt_usd(b.total_usd) in page
    point = glance.compare_bills([ledger.build_ledger(POINT), ledger.build_ledger(POINT)],
                                 ("x", "y"))
    assert "difference p10 usd" not in point.columns
    assert "one number per line" in glance.compare_html(point, ("x", "y"))


def test_the_difference_figure_draws_b_minus_a_as_derived_by_hand():
    # Half the tokens: the main run's compute is 6·N·D / (peak · MFU) GPU-seconds at a price
    # (Kaplan et al. 2020's C = 6ND), linear in D, so B - A of that line is minus half of A's;
    # lines that do not depend on D (people, operations, data licensing...) are the same in both
    from matplotlib.figure import Figure

    a, b = ledger.build_ledger(POINT), ledger.build_ledger({**POINT, "train_tokens": 1e12})
    names = ("2T tokens", "1T tokens")
    df = glance.compare_bills([a, b], names)
    rows = plots.difference_rows(df)
    main = df.set_index("line").loc["pre-training compute"]
    got = rows.set_index("line").loc["pre-training compute", "diff"]
    assert got == pytest.approx(-main["2T tokens usd"] / 2, rel=1e-9)
    assert rows["line"].iloc[-1] == "total"
    assert rows["diff"].iloc[-1] == pytest.approx(b.total_usd - a.total_usd, rel=1e-9)
    body = rows["diff"].iloc[:-1].abs().to_numpy()
    assert (body > 0).all() and (np.diff(body) <= 0).all()  # largest first, none at $0
    fig = Figure()
    ax = plots.bill_difference(df, names, axes=fig.add_subplot())
    scale = plots.usd_scale(abs(rows["diff"]).max())
    widths = [p.get_width() for p in ax.patches]
    np.testing.assert_allclose(widths, rows["diff"] / scale, rtol=1e-9)
    assert plots.signed_usd(b.total_usd - a.total_usd) in ax.get_title()
    assert f"{len(df) - len(rows)} lines the same in both" in fig._supxlabel.get_text()
    assert not ax.collections  # no ranges in either scenario: no whiskers
    html_ = glance.compare_figure_html(df, names)
    assert html_.count("data:image/svg+xml,") == 2 and "alt='B minus A line by line" in html_


def test_an_input_that_moves_nothing_is_not_named_and_a_fixed_large_line_is():
    # A trial's RL-heavy owned scenario read "next comes exploratory and failed runs, a swing
    # of $0.00", and its RL line, 68% of the bill, showed "$2.99M ($2.99M–$2.99M)" with nothing
    # saying it was held at one number. By hand: lines of $3M (no spread) and $1M (P10-P90
    # $0.9M-$1.2M), total $4M: the $3M line is 75% of it, above FIXED_LINE_SHARE (25%).
    lines = [{"key": "post.rl", "line": "RL post-training", "point_usd": 3e6, "p10_usd": 3e6,
              "p50_usd": 3e6, "p90_usd": 3e6},
             {"key": "compute", "line": "pre-training compute", "point_usd": 1e6,
              "p10_usd": 0.9e6, "p50_usd": 1e6, "p90_usd": 1.2e6},
             {"key": "total", "line": "the whole bill", "point_usd": 4e6, "p10_usd": 3.9e6,
              "p50_usd": 4e6, "p90_usd": 4.2e6}]
    said = glance.fixed_lines_sentence(lines)
    assert said == (" The line “RL post-training”, $3.00M or 75% of the point estimate, is held "
                    "at one number: none of its inputs is ranged, so the range leaves its "
                    "uncertainty out.")
    lines[0] = {**lines[0], "p90_usd": 3.1e6}  # a spread: nothing to say
    assert glance.fixed_lines_sentence(lines) == ""
    # a data lead's bill: licensing and annotation, 13% each (under 25% alone, 25% together),
    # both without a spread; a 2% fixed line beside them is too small to name. By hand on a
    # $24M bill: 3/24 = 12.5% each, 6/24 = 25%
    two = [{"line": name, "point_usd": usd, "p10_usd": usd, "p50_usd": usd, "p90_usd": usd}
           for name, usd in (("data licensing", 3e6), ("annotation", 3e6), ("logs", 0.48e6))]
    rest = {"line": "compute", "point_usd": 17.52e6, "p10_usd": 15e6, "p50_usd": 17.52e6,
            "p90_usd": 21e6}
    total = {"line": "the whole bill", "point_usd": 24e6, "p10_usd": 21e6, "p50_usd": 24e6,
             "p90_usd": 28e6}
    assert glance.fixed_lines_sentence(two + [rest, total]) == (
        " The lines “data licensing”, $3.00M or 12% of the point estimate, and “annotation”, "
        "$3.00M or 12% of the point estimate, are held at one number (25% together): none of "
        "their inputs is ranged, so the range leaves their uncertainty out.")
    assert glance.fixed_lines_sentence(two[1:] + [{**rest, "point_usd": 20.52e6}, total]) == ""
    tornado = [{"input": "mfu", "total_at_p10_usd": 4.2e6, "total_at_p90_usd": 3.9e6,
                "swing_usd": 0.3e6},
               {"input": "ledger_exploratory_fraction", "total_at_p10_usd": 4e6,
                "total_at_p90_usd": 4e6, "swing_usd": 0.0}]
    summary = {"bill_glance": {"lines": lines, "tornado": tornado, "gaps": None}}
    second = glance.plain_sentences(summary)[1]
    assert "next comes" not in second and "$0.00" not in second
    tornado[1]["swing_usd"] = 5e4
    assert "next comes" in glance.plain_sentences(summary)[1]


def test_a_difference_outside_its_own_range_is_starred_in_the_report_as_in_the_terminal():
    # A trial compared MI300X with an H200 `mfu: predict` run: the index showed "+$5.99M" over
    # "+$6.27M to +$7.15M" with no mark, where `estimate --compare` stars it (a point outside
    # its own P10-P90: ledger.point_outside). The trial's figures, by hand: 5.99 < 6.27.
    import pandas as pd

    df = pd.DataFrame([
        {"line": "pre-training compute", "A usd": 5e6, "B usd": 1.099e7, "difference usd": 5.99e6,
         "difference p10 usd": 6.27e6, "difference p50 usd": 6.6e6, "difference p90 usd": 7.15e6},
        {"line": "total", "A usd": 5e6, "B usd": 1.099e7, "difference usd": 5.99e6,
         "difference p10 usd": 5.5e6, "difference p50 usd": 6.1e6, "difference p90 usd": 7.2e6}])
    assert glance.difference_outside(df.iloc[0].to_dict())
    assert not glance.difference_outside(df.iloc[1].to_dict())
    page = glance.compare_html(df, ("A", "B"))
    assert page.count("+$5.99M*</span>") == 1  # the line, not the total, whose point is inside
    assert report.html.escape(glance.COMPARE_OUTSIDE_NOTE) in page
    from llmcost.present import cli
    assert cli.COMPARE_OUTSIDE_NOTE is glance.COMPARE_OUTSIDE_NOTE  # one note for both


def test_compared_sentence_states_b_against_a_by_hand():
    # a hand case: A's whole bill $5M, B's $2M -> B is $3M less; B's $7M -> $2M more
    def summary(b_usd):
        return {"compare": {"names": ["A run", "B run"], "lines": [
            {"line": "pre-training compute", "a_usd": 4e6, "b_usd": 1e6},
            {"line": "total", "a_usd": 5e6, "b_usd": b_usd}]}}
    assert glance.compared_sentence(summary(2e6)) == (
        f"This report also compares B run: its whole bill is {fmt_usd(2e6)}, {fmt_usd(3e6)} "
        f"less than this one's {fmt_usd(5e6)} (point estimates; line by line below the bill).")
    assert f"{fmt_usd(2e6)} more than" in glance.compared_sentence(summary(7e6))
    assert "the same as this one's" in glance.compared_sentence(summary(5e6))
    # a trial: two bills equal but for floating-point noise read "$0.00000000012 less than"
    assert "the same as this one's" in glance.compared_sentence(summary(5e6 - 1.2e-10))
    assert f"{fmt_usd(0.01)} less than" in glance.compared_sentence(summary(5e6 - 0.01))
    assert glance.compared_sentence({"compare": None}) == ""
    assert glance.compared_sentence({}) == ""


def test_report_index_opens_with_the_sentences_figure_and_comparison(tmp_path):
    other = tmp_path / "b.yaml"
    other.write_text("model: llama-2-70b\nn_gpus: 2048\ntrain_tokens: 2.0e12\n"
                     "mfu: [0.35, 0.5]\nprice_usd_per_gpu_hour: 2.0\n"
                     "ledger_budget_usd: 100000\n")  # over budget: a warning of b's own
    sc = tmp_path / "a.yaml"
    sc.write_text("title: my run\nmodel: llama-2-70b\nn_gpus: 2048\ntrain_tokens: 2.0e12\n"
                  "mfu: 0.4\n")
    out = tmp_path / "o"
    said = []
    report.run_report(sc, out, selection=["01"], timeout_s=300, progress=said.append,
                      compare=other)
    summary = json.loads((out / "summary.json").read_text())
    page = (out / "index.html").read_text()
    lead = glance.plain_sentences(summary)
    assert len(lead) == 3 and "was not run" in lead[2]
    first_table = page.index("<table")
    for s in lead:
        assert report.html.escape(s) in page[:first_table]
    # what the total rests on and leaves out, under the three sentences, before any table
    detail = report.html.escape(glance.lead_details(summary))
    assert detail and page.index(report.html.escape(lead[2])) < page.index(detail) < first_table
    assert page.index("<img class='glance'") < first_table
    assert summary["bill_glance"]["illustrative"] is True
    # named by title (a.yaml's "my run"), else by file stem (b.yaml has none); b's warnings
    # shown as a's are, each in the reader's words with the warning under it
    assert summary["compare"]["names"] == ["my run", "b"]
    # its lines keyed as `estimate --compare --format json` keys them, whatever the names
    assert {"key", "line", "a_usd", "b_usd", "difference_usd", "difference_outside"} <= set(
        summary["compare"]["lines"][-1])
    assert summary["compare"]["lines"][-1]["key"] == "total"
    assert "<h2 id='compared'>Compared: my run and b</h2>" in page
    # the first screen says a second scenario is in the report, with its whole bill, and links
    # to the comparison (b's point total from its own ledger, not from the summary)
    pointer = glance.compared_sentence(summary)
    total_b = report.estimate_ledger(other).total_usd
    assert pointer.startswith("This report also compares b: ")
    assert f"its whole bill is {fmt_usd(total_b)}" in pointer
    assert page.index(report.html.escape(pointer)) < first_table
    assert page.index("<a href='#compared'>") < first_table
    warnings_b = report.estimate_ledger(other).warnings
    assert summary["compare"]["warnings"] == list(warnings_b) and warnings_b
    # the terminal says b's warnings too, as b's (a trial saw only a's there)
    assert [f"warning (the scenario to compare with, b.yaml): {w}" for w in warnings_b] == \
        [x for x in said if x.startswith("warning (the scenario to compare with")]
    compared = page[page.index("<h2 id='compared'>Compared"):]
    assert "Read this first about b" in compared
    # the difference as a picture above the comparison's table
    assert compared.index("alt='B minus A line by line") < compared.index("<table")
    for w in warnings_b:   # each in the reader's words, a hyphenated word kept on one line
        assert glance.unbroken_html(glance.caveat_line(w)) in compared
        assert report.html.escape(w) in compared
    assert "overflow-wrap:anywhere" not in page and "@media print" in page
    assert "e+" not in page  # no 2.48e+06 anywhere, the figure's data URI included
    assert len(page) < 400_000  # two SVGs with their text as text, not glyph outlines
    # a bad second scenario: nothing written, and the error says which scenario it is
    with pytest.raises(report.ScenarioError, match=r"^the scenario to compare with \(--compare\)"):
        bad = tmp_path / "bad.yaml"
        bad.write_text("model: no-such-model\n")
        report.run_report(sc, tmp_path / "o2", selection=["01"], compare=bad)
    assert not (tmp_path / "o2").exists()


def test_every_warning_of_a_troubled_scenario_has_its_readers_line(tmp_path):
    # MFU above anything published, FP8, beyond the context, TP across nodes, ZeRO-3 on a stack
    # without it, exposed communication, over budget: each warning a family of glance.CAVEATS.
    # Llama 1 65B (64 heads, all of them KV heads), since the default stack's TP must divide
    # the KV heads (parallel.check_tp_kv_heads): Llama 2 70B's 8 refuse tp 16
    sc = tmp_path / "d.yaml"
    sc.write_text("model: llama-1-65b\naccelerator: MI300X\nn_gpus: 64\ntrain_tokens: 5.0e11\n"
                  "seq_len: 8192\ndtype: fp8\nmfu: 0.6\npp: 1\ntp: 16\nzero_stage: 3\n"
                  "ledger_budget_usd: 1000\n")
    warnings = report.estimate_ledger(sc).warnings
    # one warning per thing wrong, in the order the checks run (each start below is its family:
    # the MFU above 56%, FP8's peak (FP8's weight copy is counted: the recipe of an FP8 run on
    # Megatron-Core, memory.scenario_recipe_name), the stack measured on NVIDIA, the 8,192-token
    # sequences beyond Llama 1's 2,048, MI300X's price listed without capacity, TP16 over 8-GPU domains,
    # ZeRO-3 on a stack without it, ZeRO-3's few runs, exposed communication, the MFU against
    # the model's, Llama 3's planned-stop rate on a 64-GPU job, the MFU against a published run
    # like it carried to this plan, the budget)
    starts = ["mfu=0.60 is above any published", "dtype=fp8: the MFU is a fraction",
              "the step-time model planned and checked this MI300X",
              "seq_len=8,192 is beyond the 2,048",
              "price_usd_per_gpu_hour: the catalogue's on_demand price for MI300X",
              "tp=16 spans more than one 8-GPU", "zero_stage=3 is not offered",
              "the plan uses ZeRO-3", "49% of the predicted step is exposed",
              "the scenario's mfu=0.60 is above what",
              "fail_planned_per_day: 0.87, Llama 3's rate for its whole 16,384-GPU job",
              "the bill's MFU, 60.0%, lies above what a published run like this one gives",
              "the bill, $"]
    assert len(warnings) == len(starts) == 13
    assert [w.startswith(x) for w, x in zip(warnings, starts)] == [True] * 13, warnings
    for w in warnings:
        assert any(re.search(p, w) for p, _ in glance.CAVEATS), f"no reader's line for: {w}"
        line = glance.caveat_line(w)
        assert len(line) < 100 and "\n" not in line
    lines = [glance.caveat_line(w) for w in warnings]
    assert "tensor parallelism (16 GPUs) crosses the slow network between nodes" in lines
    assert any(x.startswith("the bill, $") and "× the budget" in x for x in lines)


def test_an_input_without_a_sourced_spread_is_named_with_why():
    # data/prices.csv holds A100-80GB at AWS and Lambda on demand and CoreWeave spot: no reserved
    # row at all, so a reserved A100-80GB scenario's price has no spread to take, and the
    # headline ranges two inputs, not three (a new-user trial's index said "three inputs are
    # ranged" above a list of two). The reason counts the catalogue's rows.
    from llmcost.core.catalog import list_prices
    assert list_prices("A100-80GB", "reserved", current_only=True).empty
    sc = {**POINT, "accelerator": "A100-80GB", "pricing": "reserved",
          "price_usd_per_gpu_hour": 1.60}
    head = ledger.headline_draws(sc, samples=1_000)
    assert sorted(head.draws.ranges) == ["ledger_exploratory_fraction", "mfu"]
    why = ledger.unranged_inputs(head.point, head.draws.ranges)
    assert why == {"price_usd_per_gpu_hour": "no sourced spread: 0 current reserved catalogue "
                   "prices for A100-80GB in data/prices.csv, and a spread needs two"}
    # listed exploratory runs take no fraction's spread; the H100 point scenario ranges all three
    runs = {**POINT, "ledger_exploratory_runs": [{"name": "ablations", "gpu_hours": 1e4}]}
    assert ledger.unranged_inputs(ledger.build_ledger(runs), ["mfu", "price_usd_per_gpu_hour"]) \
        == {"ledger_exploratory_fraction": "the scenario lists its exploratory runs "
                                           "(ledger_exploratory_runs)"}
    h100 = ledger.headline_draws(POINT, samples=1_000)
    assert ledger.unranged_inputs(h100.point, h100.draws.ranges) == {}


def test_a_reserved_price_taken_at_the_on_demand_median_is_spread_over_those_rows():
    # A trial: a reserved H200 bill took the on-demand median of two rows (CoreWeave $6.305,
    # Hyperstack $3.99: the one reserved row, AWS's $7.89 block, lies above it, no discount:
    # catalog.discount_price_cap) and was then said to have no price spread for want of a second
    # reserved row. The spread is that of the rows the price came from: half their IQR relative
    # to their median, by hand (numpy's linear quantiles of {3.99, 6.305}): P25 = 3.99 + 0.25 x
    # 2.315 = 4.56875, P75 = 5.72625, median 5.1475 -> r = 1.1575 / 10.295 = 11.24%
    from llmcost.core.catalog import current_prices, discount_price_cap
    assert discount_price_cap("H200", "reserved") is not None
    od = current_prices("H200", "on_demand")["price_usd_per_gpu_hour"].astype(float)
    assert sorted(od) == [3.99, 6.305]
    sc = {**{k: v for k, v in POINT.items() if k != "price_usd_per_gpu_hour"},
          "accelerator": "H200", "pricing": "reserved"}   # the catalogue's price
    r, why = ledger.illustrative_ranges(ledger.build_ledger(sc))["price_usd_per_gpu_hour"]
    assert r.mode == pytest.approx(5.1475)
    assert r.high / r.mode - 1 == pytest.approx(1.1575 / 10.295, rel=1e-9)
    assert "of 2 current on_demand prices for H200" in why
    assert "the reserved price is their median" in why
    # a reserved price the scenario gives is not their median (a review): its own mode's rows,
    # one here, so no spread, and the reason counts them
    given = ledger.build_ledger({**sc, "price_usd_per_gpu_hour": 2.5})
    assert "price_usd_per_gpu_hour" not in ledger.illustrative_ranges(given)
    assert ledger.unranged_inputs(given, [])["price_usd_per_gpu_hour"].startswith(
        "no sourced spread: 1 current reserved catalogue price for H200")


def test_the_index_bill_table_marks_a_point_outside_its_range():
    # A new-user trial: the index's bill table showed pre-training at $2.64M beside a P10-P90 of
    # $2.70M-$3.69M with no mark (the figure marked it). By hand: a line whose point is below its
    # P10 gets "*" and the footnote; one inside does not.
    from llmcost.bill.ledger import OUTSIDE_NOTE
    from llmcost.present.report import _bill_html

    def line(label, usd, p10, p90):
        return {"label": label, "usd": usd, "status": "modelled", "p10_usd": p10,
                "p50_usd": (p10 + p90) / 2, "p90_usd": p90}
    bill = {"bill.ranges": {"mfu": "triangular"}, "bill.range_note": "illustrative",
            "bill.tornado": [],
            "bill.lines": {"a": line("pre-training compute", 2.64e6, 2.70e6, 3.69e6),
                           "b": line("storage", 1.0e5, 0.9e5, 1.1e5)},
            "bill.total_usd": 2.74e6, "bill.total_p10_usd": 2.60e6, "bill.total_p50_usd": 3.0e6,
            "bill.total_p90_usd": 3.8e6}
    page = _bill_html({"bill": bill})
    assert "$2.64M*" in page and "$100k*" not in page and "$2.74M*" not in page
    assert f"* {OUTSIDE_NOTE}" in page
    inside = {**bill, "bill.lines": {"b": bill["bill.lines"]["b"]}}
    assert OUTSIDE_NOTE not in _bill_html({"bill": inside})
    # the $0 lines are pointed at notebook 00 only where the report holds it (a trial's
    # `report --notebooks 01` linked a page it did not write)
    assert "href='00_index.html'" not in page and "which this report does not hold" in page
    with_00 = _bill_html({"bill": bill, "notebooks": {"00_index": []}})
    assert "href='00_index.html'" in with_00 and "does not hold" not in with_00


def test_a_context_extension_is_not_called_beyond_the_models_context():
    # A new-user trial: Llama 3.1 70B at 131,072 tokens read "the 131,072-token sequences are
    # longer than the model's context" in the index's first box, while the detail (and the
    # world: Llama 3.1 was pre-trained at 8K, then extended to 128K, arXiv:2407.21783 §3.4.2)
    # says the catalogue records only the 8,192-token pre-training length: an extension. A
    # model whose max_position_embeddings the length passes keeps the stronger words.
    ext = scenario_warnings({"model": "llama-3.1-70b", "seq_len": 131072})
    w = next(x for x in ext if x.startswith("seq_len="))
    assert glance.caveat_line(w) == ("the 131,072-token sequences extend the model's "
                                     "8,192-token pre-training context")
    past = ("seq_len=131,072 is beyond phi-3-mini-4k's context of 4,096 tokens "
            "(max_position_embeddings): the model cannot attend that far")
    assert glance.caveat_line(past) == ("the 131,072-token sequences are longer than the "
                                        "model's context")
    # the CP-default warning (checks.cp_default_warning) in one line with both MFUs
    cp = ("cp is the notebooks' default 1 (the scenario sets no cp), so no GPU shares a "
          "131,072-token sequence: the step-time model predicts 18.1% MFU for TP8 · PP2 · DP128 "
          "· 1F1B m=1 mbs=1 · ZeRO-1 · full recompute, and 46.4% for TP4 · PP2×v40 · CP16 · "
          "DP16 · INTERLEAVED m=8 mbs=1 · ZeRO-2 · no recompute, the fastest plan with context "
          "parallelism chosen (a step 2.57× shorter); cp: 0 lets the plan search choose it, "
          "cp: 1 keeps it off.")
    assert glance.caveat_line(cp) == ("context parallelism is off by default: with it the plan "
                                      "search predicts 46.4% MFU, not 18.1% (cp: 0 lets it "
                                      "choose)")


def test_the_figures_foot_stays_below_the_axis_labels_when_cropped(ranged):
    """The inline backend and ``savefig(bbox_inches="tight")`` crop a figure to
    ``Figure.get_tightbbox``, which skips an artist out of the layout: a foot (the source line,
    the figure's ``supxlabel``: ``plots._source``) left out of the crop, or out of the band
    ``plots.readable`` keeps for it, is drawn over both axes' labels (a scenario whose ranges
    note wraps to two lines, five bars). Measured in the draw that makes the picture: every line
    of the foot lies below every axis label."""
    # a long basis, as a predicted MFU's: the foot wraps to two lines on the 15-inch figure
    basis = ("the step-time model's band on its predicted MFU; illustrative spreads on the "
             "GPU-hour price and the exploratory compute, which the scenario gives as one number")
    bars, tor = ledger.bill_bars(ranged, min_share=0.02), ranged.tornado()
    for tall in (False, True):
        ax, ax2 = plots.bill_at_a_glance(bars, tor, title="my scenario", basis=basis,
                                         tall=tall)
        fig = ax.figure
        foot = next(t for t in fig.texts if t.get_text().startswith("Bars: "))
        # a manager's figure says where its numbers come from in words; the function names
        # stay in notebook 00's cell (``ledger.bill_bars``, ``LedgerDraws.tornado``)
        words = " ".join(foot.get_text().split())
        assert "llmcost." not in words and "Monte Carlo draws of the bill over" in words
        assert "one input at its P10, then at its P90" in words
        drawn = {}

        def measure(event, foot=foot, ax=ax, ax2=ax2):
            r = event.renderer
            drawn["foot"] = foot.get_window_extent(r)
            drawn["labels"] = [a.xaxis.label.get_window_extent(r) for a in (ax, ax2)]

        fig.canvas.mpl_connect("draw_event", measure)
        fig.savefig(io.BytesIO(), format="png", bbox_inches="tight")  # the last draw: the crop
        assert "\n" in foot.get_text()  # wrapped: the case that overlapped
        for label in drawn["labels"]:
            assert drawn["foot"].y1 < label.y0, (tall, drawn["foot"], label)
    matplotlib.pyplot.close("all")


def test_the_glance_key_records_every_setting_and_is_the_same_in_another_process():
    """``glance.settings_key``: a changed matplotlib setting is a new key; the same settings are
    the same key in a new process (no object of the running process in it), so a second report
    reads the glance pictures from the disk cache."""
    import subprocess
    import sys

    with matplotlib.rc_context():
        matplotlib.rcdefaults()  # what another test left in this process is not the question
        key = glance.settings_key()
        with matplotlib.rc_context({"font.size": matplotlib.rcParams["font.size"] + 1}):
            assert glance.settings_key() != key
        with matplotlib.rc_context({"svg.fonttype": "none"}):  # the default is "path"
            assert glance.settings_key() != key
        assert glance.settings_key() == key
    other = subprocess.run(
        [sys.executable, "-c", "import matplotlib; matplotlib.use('Agg'); "
         "matplotlib.rcdefaults(); from llmcost.present import glance; "
         "print(glance.settings_key())"],
        capture_output=True, text=True, check=True).stdout.strip()
    assert other == key


def test_own_stack_and_phase_extension_caveats_in_the_readers_words():
    # A new-user trial: DeepSeek-V3 on the default stack's hint (checks.own_stack_hint) and a
    # long-context phase priced at the main run's MFU read in the index's box as the warnings'
    # first clauses, "... stack (data/validation_mfu.csv" and "phases[0] ('long-context',
    # seq_len=32,768)": cut at an open bracket. Each now has its line, with the warning's own
    # computed numbers.
    from llmcost.bill.checks import own_stack_hint
    v = {"model": "deepseek-v3", "accelerator": "H800", "n_gpus": 512, "seq_len": 4096,
         "global_batch_tokens": 4096 * 15360, "dtype": "fp8", "mfu": 0.2}
    hint = own_stack_hint(v, True, defaults={"stack"})
    # where a bill's MFU is not the prediction (the band's centre) the line gives the bills'
    here, own = re.search(r"a bill takes ([\d.]+%) and ([\d.]+%)", hint).groups()
    assert glance.caveat_line(hint) == (
        f"deepseek-v3 is priced on the megatron-core-2024 software, not on its own "
        f"(deepseek-hai-llm-2024), where its bill would take {own} MFU, not {here}: set "
        "`stack: deepseek-hai-llm-2024`")
    raw = hint.split(" (TP")[0] + " (a plan; the same run in 0.5× the time)"  # bill = prediction
    p_here, p_own = re.search(r"predicts ([\d.]+%), on deepseek-hai-llm-2024 ([\d.]+%)",
                              raw).groups()
    assert glance.caveat_line(raw) == (
        f"deepseek-v3 is priced on the megatron-core-2024 software, not on its own "
        f"(deepseek-hai-llm-2024), which the model predicts at {p_own} MFU, not {p_here}: set "
        "`stack: deepseek-hai-llm-2024`")
    ws = scenario_warnings({"model": "deepseek-v3", "seq_len": 4096, "train_tokens": 14.8e12,
                            "phases": [{"name": "long-context", "tokens": 1.2e11,
                                        "seq_len": 32768}]})
    (w,) = [x for x in ws if x.startswith("phases[0]")]
    assert glance.caveat_line(w) == (
        "the long-context phase's 32,768-token sequences extend the model's 4,096-token "
        "pre-training context, at the main run's MFU and plan")


def test_a_band_wholly_above_every_comparable_run_in_the_readers_words():
    # Llama 3.1 8B at 131,072 tokens on 256 H100s, predicted 44.1% (no held-out run in its
    # regime: ±30% on the step time, low end 44.1% / 1.3 = 33.9%), above the best comparable
    # run (31.5%, llm-foundry's MPT-13B at 32k-64k): the range is capped at 33.9%, said so; an
    # FP8 band says its numbers on the FP8 basis (a review read "22.8% (BF16 basis)" for 22.8%
    # of the FP8 dense peak, 45.5% of the BF16 one)
    for kw, unit in ((dict(mfu=0.441, n_params=8.03e9, seq_len=131072), "%"),
                     (dict(mfu=0.6, n_params=671e9, is_moe=True, seq_len=4096, dtype="fp8"),
                      "% of the FP8 dense peak")):
        b = accuracy.mfu_band(accelerator="H100-SXM", n_gpus=2048, **kw)
        (cap,) = [x for x in b.warnings if x.startswith("the band's upper end")]
        best = b.best_published / (2 if kw.get("dtype") == "fp8" else 1)  # on the step's basis
        if kw.get("dtype") != "fp8":
            assert glance.caveat_line(cap) == (
                f"the MFU's range is capped at {b.high:.1%}{unit[1:]}, the low end of the "
                f"model's own range, itself above the best comparable published run ({best:.1%}"
                f"{unit[1:]}): the prediction, {kw['mfu']:.1%}{unit[1:]}, is above every "
                f"comparable run, so the bill uses no more than {b.high:.1%}{unit[1:]}")
            continue
        # the FP8 reference is a BF16 run's MFU × the FP8 speed-up bound (DeepSeek-V3 on H100:
        # no FP8 run of the class published higher): said as a bound, not a measured figure (a
        # trial read "no comparable run has measured more" of a figure no run measured)
        assert "the highest FP8 bound of a comparable BF16 run" in cap
        assert "The FP8 bound: " in cap and "(a BF16 run, " in cap
        assert glance.caveat_line(cap) == (
            f"the MFU's range is capped at {b.high:.1%}{unit[1:]}, the low end of the model's "
            f"own range, itself above the FP8 bound of the best comparable BF16 run ({best:.1%}"
            f"{unit[1:]}: that run's MFU × the largest published FP8 speed-up, not a measured "
            f"figure): the prediction, {kw['mfu']:.1%}{unit[1:]}, is above it, so the bill uses "
            f"no more than {b.high:.1%}{unit[1:]}")


def test_a_capped_prediction_says_so_beside_an_uncapped_one():
    # A trial: `estimate --compare` of H200 (predicted 55.9%, the bill at the best comparable
    # published run's 47.0%) and B200 (predicted 54.2%, billed as predicted) read "mfu 47.0%
    # (predicted) → 54.2% (predicted)": one side capped, the other not, unsaid
    capped = {"mfu_band": "predicted", "_mfu_prediction": {
        "value": 0.47, "predicted": 0.559, "center_capped": True,
        "cap": "the best comparable published run"}}
    free = {"mfu_band": "predicted", "_mfu_prediction": {
        "value": 0.542, "predicted": 0.542, "center_capped": False, "cap": ""}}
    assert glance.mfu_source_words(capped) == (
        " (predicted 55.9%, capped at the best comparable published run)")
    assert glance.mfu_source_words(free) == " (predicted)"
    assert glance.mfu_source_words({"mfu_band": "pilot"}) == " (from the pilots)"
    assert glance.mfu_source_words({}) == ""


def test_compared_mfus_on_different_peaks_say_their_basis():
    # A trial: `estimate --compare` between a BF16 run at 40% and an FP8 one printed "mfu 40.0%
    # → 40.5%", the second on the FP8 peak, twice the BF16 one on an H100 (data/accelerators.csv:
    # 1,978.9 / 989.4 TFLOP/s): 81.0% of the BF16 peak. Two BF16 bills keep the bare figures.
    from llmcost.bill import ledger
    base = {"model": "llama-2-70b", "accelerator": "H100-SXM", "price_usd_per_gpu_hour": 2.0}
    a = ledger.build_ledger({**base, "mfu": 0.40})
    b = ledger.build_ledger({**base, "mfu": 0.405, "dtype": "fp8"})
    r = 1978.9 / 989.4
    (mfu,) = [x for x in glance.compare_inputs([a, b]) if x.startswith("mfu ")]
    assert mfu == (f"mfu 40.0% of the BF16 peak → 40.5% of the FP8 peak "
                   f"({0.405 * r:.1%} of the BF16 one)")
    c = ledger.build_ledger({**base, "mfu": 0.45})
    assert "mfu 40.0% → 45.0%" in glance.compare_inputs([a, c])
    # 55% of the FP8 peak is 110.0% of the BF16 one: said why, not left to read as an error
    d = ledger.build_ledger({**base, "mfu": 0.55, "dtype": "fp8"})
    (mfu,) = [x for x in glance.compare_inputs([a, d]) if x.startswith("mfu ")]
    assert mfu.endswith(f"55.0% of the FP8 peak ({0.55 * r:.1%} of the BF16 one: above 100% "
                        f"because FP8 matmuls run at {r:.3g}× the BF16 peak)")


def test_a_capped_predicted_mfu_says_the_estimate_is_at_its_optimistic_end():
    # A trial: a `mfu: predict` bill whose central estimate (41.5% of the FP8 peak) lies above
    # its band's capped top (40.5%, the best comparable published run) read "$12.6M as
    # estimated, likely $10.8M to $20.8M (median $15.2M)" with no word that the point is the
    # band's top, so every draw of the MFU is at or below it and the cost at or above it.
    # The top is named as what set it (MfuBand.cap_source, the record's "cap"): a second trial
    # read "Its MFU, 37.6%, is the best a comparable published run has measured" where that
    # run was 31.5% and 37.6% the model's own low end above it.
    pred = {"value": 0.405, "center": 0.415, "center_capped": True,
            "cap": "the best comparable published run"}
    s = {"mfu_prediction": pred, "parameters": {"dtype": {"value": "fp8", "from": "scenario"}}}
    # "The bill's MFU", not "Its MFU": the sentence follows "... is $X of the point estimate", so
    # "Its" read as the total's
    assert glance.capped_mfu_sentence(s) == (
        " The bill's MFU, 40.5% of the FP8 peak, is its range's capped top (the best comparable "
        "published run; the step-time model's central estimate, 41.5%, is above it), so the "
        "estimate sits at the optimistic end of its range.")
    low_end = ("the model's own low end: its uncapped band lies wholly above the best comparable "
               "published run, 31.5%, and so does the bill's MFU")
    got = glance.capped_mfu_sentence({"mfu_prediction": {"value": 0.376, "center": 0.489,
                                                         "center_capped": True, "cap": low_end}})
    assert f"37.6%, is its range's capped top ({low_end}; " in got
    assert "the best a comparable published run has measured" not in got
    assert glance.capped_mfu_sentence({"mfu_prediction": {**pred, "center_capped": False}}) == ""
    assert glance.capped_mfu_sentence({}) == ""


def test_the_new_warnings_read_as_one_line_each():
    # The warnings added after two trials (the bill above its model's own published run,
    # asynchronous checkpoints that keep the storage busy, a low goodput, a pilot's network
    # factor below one NIC per node) gave their first clause in the index's box: "mfu",
    # "ckpt_async", "goodput 41%", "pilot". Each now reads as a sentence with its figures.
    own = ("mfu: the catalogue holds Llama 2 13B's own published run on A100-80GB: 368,640 "
           "GPU-hours for 2T tokens, a whole-run MFU of 42.1% (failures, restarts and every "
           "phase included; notebook 08); the bill's 60.0% is 1.43× it, more than goodput "
           "explains")
    assert glance.caveat_line(own) == (
        "the bill's MFU, 60.0%, is 1.43× the whole-run MFU of Llama 2 13B's own published run "
        "on A100-80GB (42.1%): read the bill as optimistic against its own model's run (the "
        "claim row sets it against the best comparable run instead)")   # a trial read the
    # index's "optimistic" beside its claim row's "plausible" as one page saying both
    # an FP8 bill's MFU is set against the run on the BF16 basis: the short line keeps the basis
    # (a trial read "the bill's MFU, 60.0%" beside a table saying 30.0%)
    fp8 = own.replace("the bill's 60.0% is", "the bill's 60.0% (on the BF16 basis) is")
    assert glance.caveat_line(fp8).startswith(
        "the bill's MFU, 60.0% (on the BF16 basis), is 1.43× the whole-run MFU")
    # and against a BF16 run, the FP8 figure it is set against (the run × the FP8 bound)
    bound = fp8.replace("notebook 08);", "notebook 08), 56.8% in FP8 at most (× 1.35, the "
                        "largest published FP8 ÷ BF16 speed-up of one plan: the run was BF16);")
    assert glance.caveat_line(bound) == (
        "the bill's MFU, 60.0% (on the BF16 basis), is 1.43× the most Llama 2 13B's own "
        "published run on A100-80GB would reach in FP8, 56.8% (the run: 42.1%): read the bill "
        "as optimistic against its own model's run (the claim row sets it against the best "
        "comparable run instead)")
    # a run over 9 months has its own line (validation._long_run_warning)
    long = ("the training run's wall clock is 14.9 months (454 days on 512 GPUs), over 9 months: "
            "a run that long may be inefficient")
    assert glance.caveat_line(long) == (
        "the training run takes 14.9 months (454 days), past the 9 after which a later start "
        "on better hardware may finish first: more GPUs shorten it")
    duty = ("ckpt_async: the bill checkpoints every 52.4 s, each write taking 52.4 s at "
            "2.15 GB/s, so the storage writes checkpoints 100% of the time (186 TB a day) and")
    assert glance.caveat_line(duty) == (
        "asynchronous checkpoints, one every 52.4 s, keep the storage writing 100% of the time "
        "(186 TB a day): set the checkpoint interval or the storage bandwidth")
    low = ("goodput 41%: the pre-training run pays 2.41× its ideal GPU-hours, interrupted by a "
           "failure or pre-emption every 38.4 min on 2,048 GPUs; "
           "the exploratory line")
    assert glance.caveat_line(low) == (
        "goodput 41%: interrupted by a failure or pre-emption every 38.4 min on 2,048 GPUs, the "
        "run pays 2.41× its ideal GPU-hours")
    net = ("pilot: scale-out x0.075: the fit puts the network across nodes at 3.6 GB/s per GPU, "
           "7.5% of the catalogue's")
    assert glance.caveat_line(net) == (
        "the pilots fit the network at 7.5% of the catalogue's bandwidth (3.6 GB/s per GPU), below "
        "one NIC per node: check the pilots' figures")


def test_headline_notes_read_in_words_with_the_function_behind_a_detail():
    # A new-user trial read the index's headline table as "accuracy.central_mfu: prediction ÷
    # ...", "(step_scenario.scenario_memory, notebook 03's count)" and, for the bill with waste,
    # only "llmcost.levers.bill": the package's names as the first text a reader sees. The
    # index shows the words and puts each function in a <details> (one click, then its
    # docstring: the formula within two hops); file names and numbers stay in the words.
    cases = {
        "accuracy.central_mfu: prediction ÷ (1 + median held-out error), kept inside the band":
            ("prediction ÷ (1 + median held-out error), kept inside the band",
             ["accuracy.central_mfu"]),
        "its busiest pipeline stage as its stack stores them (step_scenario.scenario_memory, "
        "notebook 03's count)": ("its busiest pipeline stage as its stack stores them "
                                 "(notebook 03's count)", ["step_scenario.scenario_memory"]),
        "predicted (mfu: predict) by llmcost.step on the megatron-core-2024 stack":
            ("predicted (mfu: predict) on the megatron-core-2024 stack", ["llmcost.step"]),
        "global batch tokens ÷ step time (llmcost.step_time)":
            ("global batch tokens ÷ step time", ["llmcost.step_time"]),
        "median of 2 catalogue price(s): CoreWeave 2026-09 $8.60 (data/prices.csv), e.g. 1.5":
            ("median of 2 catalogue price(s): CoreWeave 2026-09 $8.60 (data/prices.csv), "
             "e.g. 1.5", []),
    }
    for note, (words, names) in cases.items():
        assert glance.note_parts(note) == (words, names), note
    h = glance.note_html("every line of the bill plus the GPU-hours of failed and forgotten "
                         "jobs (levers.bill)")
    assert h.startswith("every line of the bill plus the GPU-hours of failed and forgotten jobs"
                        "<details class='fn'><summary>function</summary><code>levers.bill"
                        "</code>")
    assert glance.note_html("ideal / goodput") == "ideal / goodput"
    assert glance.note_html("llmcost.levers.bill") == "llmcost.levers.bill"  # only a name


def test_compared_inputs_are_written_as_a_scenario_file_writes_them():
    # a trial read "mfu_band None → predicted" and "rl_async False → True" from
    # `estimate --compare`: the scenario files say null, false and true (YAML 1.1 core schema)
    class Bill:
        def __init__(self, sc, mfu=0.4):
            self.scenario, self.figures = sc, {"mfu": mfu}
    a, b = Bill({"rl_async": False, "mfu_band": None}), Bill({"rl_async": True,
                                                             "mfu_band": "predicted"}, 0.47)
    # a later trial read "mfu_band null → predicted", a key no scenario file writes (the report
    # sets it): where the MFU came from is said beside the MFU instead
    assert glance.other_inputs_differing([a, b]) == ["rl_async false → true"]
    # two bills that price no RL campaign (ledger_rl false in both): their rl_ keys, a report's
    # defaults per model, are one item, not differences the bills carry (a trial read "rl_gpus
    # 64 → 128; rl_rollout_tp 4 → 8" comparing two pre-training runs)
    off = [Bill({**x.scenario, "ledger_rl": False, "rl_gpus": g}) for x, g in ((a, 64), (b, 128))]
    assert glance.other_inputs_differing(off) == [
        "rl_async, rl_gpus: differ, unused (neither bill prices an RL campaign; where a scenario "
        "does not set the RL settings, they are filled in per model)"]
    off[1].scenario["ledger_rl"] = True
    # one bill with a campaign: the other's rl_ keys are defaults it does not bill, said (a
    # trial read "rl_iterations 1,000 → 500" against a bill with no campaign)
    assert glance.other_inputs_differing(off) == [
        "RL campaign billed (ledger_rl: true where the scenario gives rl_iterations and rl_runs) "
        "false → true", "rl_async false (not billed) → true", "rl_gpus 64 (not billed) → 128"]
    # the rollouts' own precision left null is the serving one's, said (a review read
    # "rl_rollout_weight_dtype null → fp8")
    fp8 = [Bill({"serve_weight_dtype": "bf16", "rl_rollout_weight_dtype": v}) for v in (None,
                                                                                          "fp8")]
    assert glance.other_inputs_differing(fp8) == [
        "rl_rollout_weight_dtype null (serve_weight_dtype's: bf16) → fp8"]
    # past `most` keys, the rest by name (a trial's "and 2 more" hid the keys it had changed)
    many = [Bill({f"k{i}": 0 for i in range(4)}), Bill({f"k{i}": 1 for i in range(4)})]
    assert glance.other_inputs_differing(many, most=2)[-1] == "and 2 more: k2, k3"
    assert glance.compare_inputs([a, b]) == ["mfu 40.0% → 47.0% (predicted)",
                                             "rl_async false → true"]
    # a list (a trial read a Python dict cut at 40 characters for phases): its count and names,
    # a phase with its tokens (a review: two phases of different tokens read alike)
    c = Bill({"phases": [{"name": "long-context", "tokens": 8e11, "seq_len": 131072}]})
    assert glance.other_inputs_differing([Bill({"phases": []}), c]) == [
        "phases none → 1 (long-context 800B tokens …)"]
    # two lists that read alike once cut are shown whole, each phase with its length and MFU
    # (a trial changed a phase's seq_len and mfu and read the same words on both sides)
    d = Bill({"phases": [{"name": "long-context", "tokens": 8e11, "seq_len": 65536,
                          "mfu": 0.35}]})
    assert glance.other_inputs_differing([c, d]) == [
        "phases 1 (long-context 800B tokens (131,072-token seq)) → 1 (long-context 800B "
        "tokens (65,536-token seq, mfu 35.0%))"]
    # items whose words still read alike name the keys that differ (a review: two pilots that
    # differ only in tp)
    p1 = Bill({"pilot": [{"n_gpus": 64, "tokens_per_s_per_gpu": 960, "tp": 2}]})
    p2 = Bill({"pilot": [{"n_gpus": 64, "tokens_per_s_per_gpu": 960, "tp": 4}]})
    assert glance.other_inputs_differing([p1, p2]) == ["pilot[0].tp 2 → 4"]
    # a long list is cut at a word (a trial read "64 GPUs 960 t…")
    pilots = Bill({"pilot": [{"n_gpus": n, "tokens_per_s_per_gpu": t}
                             for n, t in ((32, 980), (64, 960), (128, 930))]})
    (said,) = glance.other_inputs_differing([Bill({"pilot": []}), pilots])
    cut = said.split(" → ")[1]
    # closed where the cut fell inside its "(" (a trial read "2 (research 6 FTE × 6 mo, …")
    assert cut.startswith("3 (") and cut.endswith(" …)") and not cut.endswith("t …)")
    assert len(cut) <= 41
    # two RL campaigns billed at different factors say so, even where rl_time_factor is null
    # in both (a trial changed rl_framework, or GRPO for DPO, and was not told): the generic
    # path's median (rl.RL_TIME_FACTOR_MEDIAN) against a NeMo RL release's, and DPO's 1
    from llmcost.serving import rl
    rl_a = Bill({"rl_time_factor": None, "rl_framework": "generic"})
    rl_b = Bill({"rl_time_factor": None, "rl_framework": "nemo-rl-0.6"})
    rl_a.figures["rl_gpu_hours"] = rl_b.figures["rl_gpu_hours"] = 10.0
    assert glance.other_inputs_differing([rl_a, rl_b]) == [
        "rl_framework generic → nemo-rl-0.6",
        f"the RL time factor billed {rl.RL_TIME_FACTOR_MEDIAN:g} → "
        f"{rl.RL_FRAMEWORK_TIME_FACTOR_MEDIAN:g}"]
    dpo = Bill({"rl_time_factor": None, "rl_algorithm": "dpo"})
    dpo.figures["rl_gpu_hours"] = 10.0
    assert glance.other_inputs_differing([rl_a, dpo])[-1] == \
        f"the RL time factor billed {rl.RL_TIME_FACTOR_MEDIAN:g} → 1"


def test_compared_bills_say_their_main_runs_wall_clock():
    # A trial compared spot with on demand: the table had no days, and spot's run is longer
    # (pre-emptions). By hand: half the GPUs, the same tokens and MFU: about twice the days.
    a = ledger.build_ledger(POINT)
    b = ledger.build_ledger({**POINT, "n_gpus": 1024})
    words = glance.compare_days_words([a, b])
    da, db = a.figures["wall_clock_days"], b.figures["wall_clock_days"]
    assert 1.9 < db / da < 2.1
    assert words.startswith("main run's wall clock, failures included: A ")
    assert f"(B − A +{llmcost.fmt_duration((db - da) * 86400)})" in words
    df = glance.compare_bills([a, b], ("a", "b"))
    assert report.html.escape("Main run's wall clock") in glance.compare_html(df, ("a", "b"), days=words)
    assert glance.compare_days_words([a]) == ""


def test_a_table_in_words_styles_rows_by_their_own_names():
    # notebook 03's plan table: its colour reads r.min_bubble; shown in a reader's words
    # ("smallest bubble"), the row style still finds its columns, and the headers are the words
    import pandas as pd

    from llmcost.present import plots
    df = pd.DataFrame({"plan": ["a", "b"], "memory_gb": [70.0, 60.0],
                       "min_bubble": [True, False], "min_memory": [False, True]})
    colour = lambda r: ["color: red" if r.min_bubble else ""] * len(r)  # noqa: E731
    html = plots.table(df, {"memory_gb": "{:.1f}"}, row_style=colour,
                       words=plots.COLUMN_WORDS).data
    assert "memory per GPU (GB)" in html and "smallest bubble" in html and "70.0" in html
    assert html.count("color: red") == 1 and ">yes<" in html


def test_a_pilot_smaller_than_the_run_keeps_its_band_in_the_index(tmp_path):
    # A pilot of the scenario's plan measured on 64 GPUs of a 2,048-GPU run (Llama 2 70B, H100,
    # 900 tokens/s per GPU, no mfu): the report calibrates the MFU once (report.calibrate_mfu)
    # and leaves the notebooks no throughput to extrapolate again. The index's MFU range is then
    # the pilot's extrapolation band (bill.pilot.pilot_mfu on the same scenario: its low and high
    # ends, peaked at the calibrated MFU), not the regime's illustrative error band, whose top
    # (47%) lay above the pilot's own ceiling (the MFU it measured at fewer replicas).
    from llmcost.bill.pilot import pilot_mfu
    sc = tmp_path / "pilot.yaml"
    sc.write_text("model: llama-2-70b\naccelerator: H100-SXM\nn_gpus: 2048\ntrain_tokens: 2e12\n"
                  "seq_len: 4096\nglobal_batch_tokens: 4194304\nprice_usd_per_gpu_hour: 3.0\n"
                  "ledger_pilot_tokens_per_s_per_gpu: 900\nledger_pilot_n_gpus: 64\n")
    plan = report.plan_report(sc, None, notebook_setups=False)
    assert plan.scenario["ledger_pilot_tokens_per_s_per_gpu"] is None  # calibrated away
    g = glance.bill_glance(report.bill_inputs(plan.values, plan.scenario))[0]
    mfu = g["ranges"]["mfu"]
    assert mfu["kind"] == "pilot" and mfu["illustrative"] is False
    got = pilot_mfu({**plan.values, "ledger_pilot_tokens_per_s_per_gpu": 900.0,
                     "ledger_pilot_n_gpus": 64, "pilot": []})
    # drawn as the model's band is (montecarlo.band_drawn): its top is the calibrated MFU, the
    # pilots' own ceiling, so a triangle peaked there whose P5 is the band's low end
    assert got["high"] - got["value"] < 1e-3 * (got["high"] - got["low"])
    assert mfu["range"].startswith("triangular"), mfu["range"]
    low, mode, high = (float(x) for x in re.findall(r"\d+\.\d+", mfu["range"])[:3])
    drawn = Range("triangular", low=low, mode=mode, high=high)
    assert drawn.quantile(0.05) == pytest.approx(got["low"], abs=3e-4)
    assert mode == high == pytest.approx(got["value"], abs=5e-5) and low < mode
    assert got["high"] < 0.47  # below the comparable runs' cap the illustrative band reached


def test_warnings_of_six_families_read_as_their_own_lines_not_a_cut_clause(tmp_path):
    # A price above every listed one, a project over ten years, owned-hardware keys a given price
    # ignores, money keys ten times from the catalogue, an RL campaign over ten years, a plan the
    # catalogue cannot check, a run over ten years and more tokens than the public text there
    # is: each warning, as its own function writes it, has a family of glance.CAVEATS (before,
    # the first clause was cut at a colon inside a parenthesis: "... for H100-SXM (11 row(s)").
    def warnings(name, body):
        path = tmp_path / f"{name}.yaml"
        path.write_text("model: llama-2-7b\nseq_len: 4096\nmfu: 0.4\n" + body)
        return report.estimate_ledger(path).warnings
    got = (warnings("six", "accelerator: H100-SXM\nn_gpus: 64\ntrain_tokens: 1e11\n"
                    "pricing: owned\nprice_usd_per_gpu_hour: 31.92\n"
                    "ledger_owned_usd_per_gpu: 15\nledger_electricity_usd_per_kwh: 12\n"
                    "ledger_project_months: 1.0e9\nledger_people:\n"
                    "  - {role: researcher, fte: 2, usd_per_year: 5.0e7}\n")
           + warnings("rl", "accelerator: H100-SXM\nn_gpus: 64\ntrain_tokens: 1e11\n"
                      "price_usd_per_gpu_hour: 2.5\nrl_gpus: 8\nrl_rollout_tp: 1\nrl_runs: 1\n"
                      "rl_iterations: 1.0e9\n")
           + warnings("l40s", "accelerator: L40S\nn_gpus: 16\ntrain_tokens: 1e10\n"
                      "price_usd_per_gpu_hour: 1.0\n")
           + warnings("long", "accelerator: H100-SXM\nn_gpus: 512\ntrain_tokens: 2e15\n"
                      "price_usd_per_gpu_hour: 2.5\n"))
    # (eleven; and the given 40% MFU below the band of the model's 7B prediction on H100, now
    # that its regime holds a published run, NVIDIA's DGX Cloud Llama 3.1 8B: three more; and
    # below what that run, carried to each H100 plan, gives: three more; and Llama 3's
    # planned-stop rate outweighing the failures of the three jobs of 64 GPUs or fewer: three)
    assert len(got) == 20
    for w in got:
        assert any(re.search(p, w) for p, _ in glance.CAVEATS), f"no reader's line for: {w}"
        line = glance.caveat_line(w)
        assert line.count("(") == line.count(")") and "\n" not in line
    got = [w for w in got if "expects of this plan" not in w   # the eleven, in their order
           and "a published run like this one gives" not in w and "Llama 3's rate" not in w]
    lines = [glance.caveat_line(w) for w in got]
    assert lines[0] == ("the project lasts 83.3M years (ledger_project_months=1e+09), over "
                        "120 months: no one dated GPU-hour price describes it; check the unit")
    assert lines[1] == ("the GPU-hour price, $31.92, is above every listed price for H100-SXM "
                        "(the dearest $12.29): check the unit (one GPU, one hour, dollars)")
    assert lines[2].startswith("ledger_owned_usd_per_gpu, ledger_electricity_usd_per_kwh change "
                               "nothing: the given price, $31.92/GPU-h, is the whole GPU-hour")
    assert lines[3:6] == [
        "ledger_owned_usd_per_gpu=15 is below the catalogue's sourced figure by more than 10×: "
        "check the unit (the key is the purchase price of one accelerator in USD)",
        "ledger_electricity_usd_per_kwh=12 is above the catalogue's sourced figure by more than "
        "10×: check the unit (the key is USD per kWh)",
        "ledger_people[0].usd_per_year=5e+07 is above the catalogue's sourced figure by more than "
        "10×: check the unit (the key is USD per full-time person per year)"]
    # the bill above world GDP from inputs each below it (1e9 months of a $5e7/yr staff)
    assert re.fullmatch(r"the bill, \$[\d.e+]+, is above world GDP: check the inputs' "
                        r"exponents and units", lines[6])
    assert lines[7].startswith("the RL campaign alone runs ") and lines[7].endswith(
        " years on its 8 GPUs: check rl_iterations and rl_runs")
    assert lines[8] == ("the parallel plan is not checked: data/accelerators.csv has no "
                        "scale-out bandwidth for L40S")
    assert re.fullmatch(r"the training run alone takes \d\d\.\d years \([\d,]+ days\): no one "
                        r"dated GPU-hour price describes it; check the tokens, GPUs and MFU",
                        lines[9])
    assert lines[10] == ("the 2,000T training tokens exceed the estimated stock of public human "
                         "text (about 300T): repeated further, data are worth less and less")
    # a warning of no family: its first clause, without a parenthesis it never closes
    assert glance.caveat_line("x is above every price (11 row(s): the key") == \
        "x is above every price"


def test_only_an_mfu_fraction_reads_as_a_percentage():
    # "ledger_project_months=0.5" read "the project (50% months)", and 0.07 months of staff
    # "7% months": a figure is a fraction only where the warning writes it as mfu=...; months
    # keep their own digits, thousands separators and exponents included.
    assert glance.caveat_line("ledger_project_months=0.5 is shorter than the run's wall clock") \
        == "the project (0.5 months) is shorter than the training run itself"
    assert glance.caveat_line("ledger_project_months=1e-05 is shorter than the run's") == \
        "the project (1e-05 months) is shorter than the training run itself"
    for months in ("0.07", "1,234.50"):
        assert glance.caveat_line(f"ledger_people: a, b without months are priced for {months} "
                                  "months, the final run's wall clock only") == (
            f"staff are priced for {months} months, the training run alone: give the project's "
            "length")
    # the convention's compute schedule (exploration, the run, post-training) is said so
    assert glance.caveat_line("ledger_people: a without months are priced for 1.20 months, the "
                              "compute schedule (exploration, the final run and post-training) "
                              "only") == ("staff are priced for 1.20 months, the compute "
                                          "schedule alone: give the project's length")
    # an MFU after mfu= is a percentage: 0.5649 is 56.49%, 1e-05 is 0.001%
    assert glance.caveat_line("mfu=0.5649 is above any published run").startswith(
        "the assumed MFU, 56.5%,")
    assert glance.caveat_line("mfu=1e-05 is below every published run's MFU").startswith(
        "the MFU, 0.001%, is lower")


def test_most_of_the_range_is_said_only_when_one_input_carries_over_half_of_it():
    # A trial's swings of $55k, $48k and $44k: the price's share of the variance is
    # 55² / (55² + 48² + 44²) = 3,025 / 7,265 = 41.6%, so "Most of that range" was false; it
    # reads "The largest single part". Swings of $90k, $30k and $20k: 8,100 / 9,400 = 86.2%.
    def g(swings):
        tor = [{"input": k, "swing_usd": s, "total_at_p10_usd": 1e6 - s / 2,
                "total_at_p90_usd": 1e6 + s / 2}
               for k, s in zip(("price_usd_per_gpu_hour", "mfu", "ledger_exploratory_fraction"),
                               swings)]
        total = {"key": "total", "point_usd": 1e6, "p10_usd": 9e5, "p50_usd": 1e6,
                 "p90_usd": 1.1e6}
        return {"lines": [total], "tornado": tor}
    assert glance.top_share(g([55e3, 48e3, 44e3])["tornado"]) == pytest.approx(0.4164, abs=1e-4)
    second = glance.plain_sentences(_summary(g([55e3, 48e3, 44e3])))[1]
    assert second.startswith("The largest single part of that range comes from the GPU-hour "
                             "price: between its P10 and P90 the bill rises from "
                             "$972k to $1.03M; next comes")
    # the tornado's totals are at the input's P10 and P90, the others at their points
    # (glance_text's words), not at the range's ends: the sentence says so, in that order, so
    # an input that lowers the bill (a higher MFU) reads as moving it down ("falls": a trial
    # read "moves from $32.5M to $26.9M" as a range whose low end is above its high)
    assert "low and high ends" not in second
    down = g([55e3, 48e3, 44e3])
    down["tornado"][0].update(total_at_p10_usd=1.03e6, total_at_p90_usd=0.97e6)
    assert "between its P10 and P90 the bill falls from $1.03M to $970k" in \
        glance.plain_sentences(_summary(down))[1]
    assert glance.top_share(g([90e3, 30e3, 20e3])["tornado"]) == pytest.approx(0.8617, abs=1e-4)
    assert glance.plain_sentences(_summary(g([90e3, 30e3, 20e3])))[1].startswith(
        "Most of that range comes from the GPU-hour price:")
    assert glance.top_share([{"swing_usd": 0.0}]) == 0.0


def test_every_rangeable_input_has_a_readers_name_and_unit():
    # 19 of the keys a scenario may range printed as raw keys in the index ("ledger_sft_tokens"
    # drives the range): each now has its words and unit, and an egress range reads in bytes.
    from llmcost.bill.ranges import RANGEABLE_KEYS
    assert set(RANGEABLE_KEYS) <= set(ledger.INPUT_WORDS)
    assert set(RANGEABLE_KEYS) <= set(ledger.INPUT_UNITS)
    assert all(ledger.input_words(k) != k for k in RANGEABLE_KEYS)
    assert ledger.input_words("ledger_egress_bytes") == "the data sent to the internet"
    assert ledger.input_range_words("ledger_egress_bytes", 1e12, 1e14) == \
        "P10–P90: 1e+12–1e+14 bytes"
    # compact, no "$" (a figure's text reads two as TeX's ends; a finance trial read
    # "773,861–1,612,702 USD" as raw numbers)
    assert ledger.input_range_words("ledger_data_licensing_usd", 1e5, 2.5e6) == \
        "P10–P90: 100k–2.50M USD"
    assert ledger.input_range_words("ledger_data_licensing_usd", 773_861, 1_612_702) == \
        "P10–P90: 774k–1.61M USD"


def test_a_total_outside_its_own_range_says_why_in_the_first_sentence():
    # A trial: "add up to $712k, likely $135k to $481k" read as a contradiction. The point bill
    # takes each range at its mode: MFU triangular 0.15/0.15/0.6 (its mode the slowest, dearest
    # end) and price 1/8/8 (its mode the dearest), so the point lies above the P90; mirrored
    # (MFU mode 0.6, price mode 1) below the P10. The clause's side comes from the comparison.
    dear = {**POINT, "mfu": {"dist": "triangular", "low": 0.15, "mode": 0.15, "high": 0.6},
            "price_usd_per_gpu_hour": {"dist": "triangular", "low": 1, "mode": 8, "high": 8}}
    g, bars, _ = glance.bill_glance(dear, samples=20_000)
    t = bars.loc["total"]
    assert t["point_usd"] > t["p90_usd"]
    first = glance.plain_sentences(_summary(g))[0]
    assert first.endswith(f"likely {fmt_usd(t['p10_usd'])} to {fmt_usd(t['p90_usd'])}; the "
                          "point lies above that range because it takes each input at its "
                          "point, and the GPU-hour price and how fast the GPUs really run (the "
                          "MFU) are given at the dear end of their ranges.")
    cheap = {**dear, "mfu": {"dist": "triangular", "low": 0.15, "mode": 0.6, "high": 0.6},
             "price_usd_per_gpu_hour": {"dist": "triangular", "low": 1, "mode": 1, "high": 8},
             "ledger_exploratory_fraction": 0.2}
    g, bars, _ = glance.bill_glance(cheap, samples=20_000)
    t = bars.loc["total"]
    assert t["point_usd"] < t["p10_usd"]
    first = glance.plain_sentences(_summary(g))[0]
    assert "; the point lies below that range because it takes each input at its point, and " \
           in first and first.endswith("at the cheap end of their ranges.")
    assert "how fast the GPUs really run (the MFU)" in first and "GPU-hour price" in first
    # a point inside its range: no clause (the RANGED scenario's symmetric MFU range)
    assert ";" not in glance.plain_sentences(_summary(glance.bill_glance(RANGED)[0]))[0]


def test_a_given_mfu_above_its_capped_band_says_what_is_drawn_and_claims_no_p10():
    # A trial's mfu 0.9: the MFU's source read "cut to 47.0%-69.2% by a cap ... drawn as a
    # triangle from 47.0% to 90.0%" and "the bill's point is ... below its own P10", while the
    # pre-training line's point lay inside its P10-P90 (the price's range moves it too). The
    # words now say the triangle runs from below the capped band's low end (its P5) up to the
    # bill's MFU, and that the point is the cheapest end on the MFU alone; the figures stated
    # are those drawn.
    sc = {**POINT, "model": "llama-2-7b", "n_gpus": 64, "train_tokens": 1e11, "mfu": 0.9,
          "price_usd_per_gpu_hour": 2.5}
    g, bars, _ = glance.bill_glance(sc, samples=20_000)
    mfu = g["ranges"]["mfu"]
    low, mode, high = (float(x) for x in mfu["range"].split()[1::2])
    assert mode == high == pytest.approx(0.9, abs=1e-9) and low < 0.9
    why = mfu["why"]
    p5 = 0.9 - (0.9 - low) * (1 - 0.05 ** 0.5)  # the triangle's P5: the capped band's low end
    assert f"drawn as a triangle peaked at the bill's 90.0%, from {low:.1%} to 90.0% so that " \
           f"{p5:.1%} is the draws' P5 (the band read as a 90% interval of the model's " \
           "errors: 5% of runs like this one below it, 5% above): the bill's MFU lies above " \
           "the capped band (" in why
    assert "so the triangle runs from below the band's low end (its P5) up to the bill's MFU, " \
           "its top; every draw's MFU is at most the bill's, so on the MFU alone the bill's " \
           "point is the cheapest end of its range" in why
    assert "below its own P10" not in why
    main = bars.loc["compute.pretraining.main"]
    assert main["p10_usd"] <= main["point_usd"] <= main["p90_usd"]  # as the trial saw it


def test_the_parameters_table_splits_an_owned_price_as_the_sentences_do():
    # A trial: the index's sentence named the $2.05 the compute lines charge (the H100 purchase
    # amortised) while its parameter table said "$2.14/GPU-h, the bill's (owned)", hardware and
    # energy together: the table now gives both parts, $2.05 + $0.09 = $2.14
    bill = {"bill.figures.price_usd_per_gpu_hour": 2.1375, "bill.figures.pricing": "owned",
            "bill.figures.gpu_rate_usd_per_gpu_hour": 2.0475}
    got = report._resolved("price_usd_per_gpu_hour", {"value": None}, {"bill": bill})
    assert got == (" → $2.05/GPU-h of hardware, the compute lines' rate, + $0.09 of energy = "
                   "$2.14, the bill's (owned)")
    rented = {"bill.figures.price_usd_per_gpu_hour": 3.99, "bill.figures.pricing": "on_demand",
              "bill.figures.gpu_rate_usd_per_gpu_hour": 3.99}
    assert report._resolved("price_usd_per_gpu_hour", {"value": None}, {"bill": rented}) == \
        " → $3.99/GPU-h, the bill's (on_demand)"


def test_the_glance_pictures_share_text_measures_and_leave_matplotlib_as_it_was(ranged):
    """``glance._glance_uris`` draws its two pictures with each text measured once
    (``plots.text_measures_shared``): the same SVG bytes as matplotlib's own measures give,
    and after it (and after a block where the measures were installed already, as in a report
    kernel) matplotlib's methods are those before it."""
    import contextlib
    from unittest import mock

    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.mathtext import MathTextParser
    from matplotlib.textpath import TextToPath

    def methods():
        return (RendererAgg.get_text_width_height_descent,
                TextToPath.get_text_width_height_descent, MathTextParser._parse_cached)

    bars, tor = ledger.bill_bars(ranged), ranged.tornado()
    args = (bars, tor, "my scenario", True, None, "", "", "")
    before = methods()
    with mock.patch.object(plots, "text_measures_shared", contextlib.nullcontext):
        plain = glance._glance_uris.uncached(*args)  # matplotlib's own measures
    with mock.patch.object(plots, "share_text_measures", wraps=plots.share_text_measures) as w:
        shared = glance._glance_uris.uncached(*args)
    assert w.call_count == 1 and shared == plain and methods() == before
    with plots.text_measures_shared() as installed:
        assert installed and methods() != before
        inside = methods()
        with plots.text_measures_shared() as again:  # installed already: left as it is
            assert not again
        assert methods() == inside
    assert methods() == before


def test_a_point_low_in_its_range_is_said_with_its_median():
    # A trial: "add up to $3.73M, likely $3.68M to $5.70M" with a median of $4.32M: the point
    # sat at its draws' 12th percentile, (4.32 - 3.73) / (5.70 - 3.68) = 0.29 of the span from
    # the median, and a manager took it for the central figure. From a quarter of the span on
    # (glance.OFF_CENTRE_SHARE) the median is said; a centred point is not.
    low = {"point_usd": 3.73e6, "p10_usd": 3.68e6, "p50_usd": 4.32e6, "p90_usd": 5.70e6}
    assert (low["p50_usd"] - low["point_usd"]) / (low["p90_usd"] - low["p10_usd"]) == \
        pytest.approx(0.292, abs=1e-3)
    assert glance.median_clause(low) == ", median $4.32M"
    centred = {**low, "point_usd": 4.40e6}
    assert glance.median_clause(centred) == ""
    assert glance.median_clause({**low, "p50_usd": None}) == ""
    g = {"lines": [{"key": "total", **low, "point_outside": False}], "tornado": [],
         "ranges": {}}
    first = glance.plain_sentences({"bill_glance": g})[0]
    assert first == "The whole project costs $3.73M, likely $3.68M to $5.70M, median $4.32M."


def test_a_narrow_range_keeps_the_digits_that_tell_its_ends_apart():
    # A trial's $100k team with a small GPU bill: "likely $100k to $100k" and "moves from $100k
    # to $100k". Where three significant figures read alike, whole dollars; where those do too,
    # the range is said to be under a dollar.
    assert glance.usd_span(3.68e6, 5.70e6) == "$3.68M to $5.70M"
    assert glance.usd_span(100_163.0, 100_412.0) == "$100,163 to $100,412"
    assert glance.usd_span(100.2, 100.4) == "$100 either way (a range under a dollar)"
    # the point and the median in the same digits as their range ("add up to $100k, likely
    # $100,179 to $100,234, median $100k" read as a point below its range)
    t = {"key": "total", "point_usd": 100_190.0, "p10_usd": 100_179.0, "p50_usd": 100_215.0,
         "p90_usd": 100_234.0, "point_outside": False}
    first = glance.plain_sentences({"bill_glance": {"lines": [t], "tornado": [],
                                                    "ranges": {}}})[0]
    assert first == ("The whole project costs $100,190, likely $100,179 to $100,234, median "
                     "$100,215.")


def test_compared_people_say_their_fte_and_months():
    # A trial: "ledger_people 1 (research) → 1 (research)" for 4 FTE × 3 months against 10 × 6
    from types import SimpleNamespace as B
    a = B(scenario={"ledger_people": [{"role": "research", "fte": 4, "months": 3}]})
    b = B(scenario={"ledger_people": [{"role": "research", "fte": 10, "months": 6}]})
    assert glance.other_inputs_differing([a, b]) == [
        "ledger_people 1 (research 4 FTE × 3 mo) → 1 (research 10 FTE × 6 mo)"]


def test_compared_inputs_say_a_range_beside_its_point():
    # A trial: `estimate --compare` listed a ranged B's MFU and price by their points alone
    # ("mfu 45.0% → 42.5%"); the midpoint of uniform 0.35-0.5 is 0.425
    from llmcost.bill import ledger
    from llmcost.bill.ranges import Range
    base = {"model": "llama-3.1-8b", "accelerator": "H100-SXM", "n_gpus": 64,
            "train_tokens": 1e11, "price_usd_per_gpu_hour": 2.0}
    a = ledger.build_ledger({**base, "mfu": 0.45})
    b = ledger.build_ledger({**base, "mfu": 0.425})
    b.scenario["mfu"] = Range("uniform", low=0.35, high=0.5)
    assert glance.compare_inputs([a, b])[0] == (
        "mfu 45.0% → 42.5% (the point of its range, uniform 0.35-0.5)")


def test_the_plain_lever_sentence_leaves_a_levers_long_detail_to_notebook_09():
    # A trial's MoE report: the third plain sentence ran to 90 words, the lever's name with its
    # source's citation and a clause after a semicolon, and filled a phone's first screen. The
    # index keeps the first clause and short parentheses; notebook 09's table keeps the rest.
    long = ("raise MFU to 17% of the FP8 peak, the best published MoE run on Blackwell within 4× "
            "this size (Qwen3_30B_a3B (Megatron-Bridge 26.04.01 pre-training benchmark, 8 B200), "
            "its software priced as the megatron-core-2025 stack profile); measured on 8 GPUs")
    assert glance._lever_short(long) == ("raise MFU to 17% of the FP8 peak, the best published "
                                         "MoE run on Blackwell within 4× this size")
    assert glance._lever_short("use spot instances (price x0.4)") == \
        "use spot instances (price x0.4)"
    # the caveat that the target is no run like this one stays (a review: it went with the
    # clause after the semicolon)
    caveat = ("raise MFU to 31%, the best published dense run on Hopper within 4× this size; "
              "measured on 8 GPUs (no published run like this one)")
    assert glance._lever_short(caveat).endswith("4× this size (no published run like this one)")


def test_the_plain_lever_sentence_keeps_the_levers_whole_risk():
    # A trial: the index read "half the GPUs (no recomputation needed); its risk: no risk to
    # the run itself." where notebook 09's headline goes on "; fewer GPUs mean a longer run, so
    # its results come later" (the run 88% longer). The risk is read whole, up to 09's "; it"
    # clause on where else the saving lands.
    note = ("5.7% of the bill; risk: no risk to the run itself; fewer GPUs mean a longer run, "
            "so its results come later; it saves more than the line it acts on")
    summary = {"notebooks": {"09_savings": [
        {"key": "bill_usd", "label": "bill with waste", "value": 6.0e6, "unit": "USD",
         "note": ""},
        {"key": "lever_1_saving_usd", "label": "lever 1: half the GPUs", "value": 3.4e5,
         "unit": "USD", "note": note}]}}
    said = glance.lever_sentence(summary)
    assert said.endswith("its risk: no risk to the run itself; fewer GPUs mean a longer run, "
                         "so its results come later.")


def _assumed_summary(mfu: float, band_value=None) -> dict:
    """A report summary with notebook 04b's prediction (14.1%) and band (12.3%-20.6%, central
    15.4%), the bill's MFU, a final run of $2.72M, an exploratory line of $3.24M and a total of
    $6.01M (a trial's Qwen3-235B FP8 B200 report)."""
    rows = [{"key": k, "label": k, "value": v, "unit": "", "note": ""} for k, v in (
        ("predicted_mfu", 0.1414), ("predicted_mfu_low", 0.1228),
        ("predicted_mfu_high", 0.2057), ("predicted_mfu_central", 0.1541))]
    return {"parameters": {"mfu_band": {"value": band_value}},
            "bill": {"bill.figures.mfu": mfu},
            "bill_glance": {"final_run": {"point_usd": 2.722e6},
                            "lines": [{"key": "compute.exploratory", "point_usd": 3.239e6},
                                      {"key": "total", "point_usd": 6.011e6}]},
            "notebooks": {"04b_step_time": rows}}


def test_an_assumed_mfu_outside_the_predicted_band_is_said_with_the_index_range():
    # A trial: 30% assumed where 04b predicts 14.1% (central 15.4%) for the plan; the index
    # read "likely $4.30M to $10.9M" and the same file with `mfu: predict` billed $11.7M. The
    # first plain sentence now says so, with the whole bill at the central estimate, by hand
    # $6.011M + ($2.722M + $3.239M) x (0.30 / 0.1541 - 1) = $11.66M (the final run and the
    # exploratory runs priced from it grow as 1 / MFU). Inside the band, or a predicted or
    # piloted MFU: nothing.
    said = glance.assumed_mfu_sentence(_assumed_summary(0.30))
    assert said == (" That assumes the scenario's MFU of 30.0%; the step-time model expects "
                    "15.4% for its plan (its prediction, 14.1%, corrected by its regime's "
                    "held-out error; band 12.3%–20.6%, notebook 04b), at which the whole bill "
                    "would be about $11.7M (the final run, $2.72M at the assumed MFU, and the "
                    "exploratory runs priced from it both grow as 1 ÷ MFU, with the reserves on "
                    "them).")
    assert 6.011e6 + (2.722e6 + 3.239e6) * (0.30 / 0.1541 - 1) == pytest.approx(11.66e6,
                                                                               rel=1e-3)
    # one decimal: 20.7% just above a 20.6% top must not read as inside "12%–21%"
    assert "20.7%" in glance.assumed_mfu_sentence(_assumed_summary(0.207))
    assert glance.assumed_mfu_sentence(_assumed_summary(0.18)) == ""
    assert glance.assumed_mfu_sentence(_assumed_summary(0.30, "predicted")) == ""
    assert glance.assumed_mfu_sentence(_assumed_summary(0.30, "pilot")) == ""
    no_04b = {**_assumed_summary(0.30), "notebooks": {}}
    assert glance.assumed_mfu_sentence(no_04b) == ""
    # a central estimate at the band's capped top is the top, not the corrected prediction (a
    # trial: 63.8% predicted, 64.2% corrected, above the cap 64.1%): said as kept inside the band
    capped = _assumed_summary(0.30)
    capped["notebooks"]["04b_step_time"][3]["value"] = 0.2057
    assert "(its prediction, 14.1%, corrected by its regime's held-out error and kept inside " \
        "its band; band 12.3%–20.6%" in glance.assumed_mfu_sentence(capped)
    floored = _assumed_summary(0.30)   # at the band's floor likewise
    floored["notebooks"]["04b_step_time"][3]["value"] = 0.1228
    assert "held-out error and kept inside its band;" in glance.assumed_mfu_sentence(floored)


def test_the_assumed_mfu_bill_carries_the_reserves_on_the_scaled_lines():
    # A teacher's trial: Llama 3.1 8B on 512 H100 at an assumed 37.5% (a range 0.30-0.45), 10%
    # contingency; the index said "about $3.28M" at the model's 52.5% where notebook 09's bill at
    # 52.5% was $3,213,653: the contingency on the final run's change was left out. By hand, with
    # a contingency of 10% of the lines above and P(rerun) 0.1: S = (F · 1.1 + E) · 1.1.
    s = _assumed_summary(0.30)
    s["bill_glance"]["lines"] = [{"key": "compute.exploratory", "point_usd": 3.239e6},
                                 {"key": "reserve.contingency", "point_usd": 0.601e6},
                                 {"key": "total", "point_usd": 6.611e6}]
    s["parameters"]["ledger_rerun_probability"] = {"value": 0.1}
    whole = 6.611e6 + (2.722e6 * 1.1 + 3.239e6) * (1 + 0.601 / 6.010) * (0.30 / 0.1541 - 1)
    assert f"would be about {llmcost.fmt_usd(whole)} (" in glance.assumed_mfu_sentence(s)
    # against the whole ledger: the trial's scenario billed at 37.5% and at 52.5%; the
    # sentence's rule from the first bill's lines lands within 1% of the second bill
    sc = {"model": "llama-3.1-8b", "accelerator": "H100-SXM", "n_gpus": 512,
          "train_tokens": 15e12, "seq_len": 8192, "mfu": 0.375, "price_usd_per_gpu_hour": 2.2,
          "pricing": "reserved", "global_batch_tokens": 4194304,
          "ledger_exploratory_fraction": 0.5, "ledger_reserve_fraction": 0.1,
          "ledger_people": [{"role": "research", "fte": 6, "months": 6}]}
    at, then = ledger.build_ledger(sc), ledger.build_ledger({**sc, "mfu": 0.525})
    final = at.line("compute.pretraining.main").usd
    lines = {k: {"point_usd": at.line(k).usd} for k in ("compute.exploratory",
                                                          "reserve.contingency")}
    lines["total"] = {"point_usd": at.total_usd}
    rule = at.total_usd + glance._scaled_with_mfu({}, lines, final) * (0.375 / 0.525 - 1)
    assert rule == pytest.approx(then.total_usd, rel=0.01)


def test_the_lead_names_the_two_largest_default_lines():
    # A review: the 405B index named the exploratory line ($98.3M... ) as priced from a default
    # and not the people line ($60.1M, 22% of the bill), a default too. The two largest are
    # named where the second is a quarter of the first or more; a small second is left to 00.
    two = {"whole": [], "partly": [], "price_default": None,
           "defaults": [{"line": "exploratory and failed runs", "usd": 98.3e6},
                        {"line": "people", "usd": 60.1e6}]}
    assert glance.gaps_sentence(two) == ("The lines 'exploratory and failed runs', $98.3M and "
                                         "'people', $60.1M, are priced from the workbook's "
                                         "defaults, not from a figure the scenario gives.")
    one = {**two, "defaults": [two["defaults"][0], {"line": "dataset storage", "usd": 2.07e3}]}
    assert glance.gaps_sentence(one) == ("The line 'exploratory and failed runs', $98.3M, is "
                                         "priced from the workbook's default, not from a figure "
                                         "the scenario gives.")


def test_the_lead_lever_keeps_its_scale_and_its_exploratory_share():
    # A review: the index's lever read "raise MFU to 55%, ..." without 09's "measured on 64
    # GPUs, this run is 1,024 GPUs", and without the $3.42M of the $6.33M that comes through
    # the exploratory runs the bill prices from the final run. Both kept, in short.
    name = ("lever 1: raise MFU to 55%, the best published dense run on Hopper within 4× this "
            "size at 8,192–131,072-token sequences (Llama 3.1 70B BF16 (NVIDIA DGX Cloud "
            "benchmarking, 64 H100), on the megatron-core-2024 stack profile); measured on 64 "
            "GPUs, this run is 1,024 GPUs: the larger job's scale-out communication is not in "
            "that figure")
    note = ("60.3% of the bill; risk: engineering time; it saves more than the line it acts "
            "on, 'pre-training compute' ($4,643,889): $2,800,269 there, $3,424,151 through "
            "'exploratory and failed runs'")
    summary = {"notebooks": {"09_savings": [
        {"key": "bill_usd", "label": "bill", "value": 10.5e6, "unit": "USD", "note": ""},
        {"key": "lever_1_saving_usd", "label": name, "value": 6.33e6, "unit": "USD",
         "note": note}]}}
    said = glance.lever_sentence(summary)
    assert "(60% of the whole bill), $3.42M of it through the exploratory runs the bill prices " \
        "from the final run: raise MFU to 55%" in said
    assert "8,192–131,072-token sequences (measured on 64 GPUs; this run is 1,024 GPUs); its " \
        "risk: engineering time." in said


def test_the_lead_says_when_post_training_adds_nothing_to_the_total():
    # Two trials read an RL campaign that left the total unchanged as a bill that ignored it:
    # the exploratory line is max(0, fraction x final run - netted GPU-h) x rate (Cottier et
    # al. 2024's multiplier counts fine-tuning and evaluation), so 12,811 GPU-h of RL at
    # $3.99 = $51.1k move out of it and add $0 until they pass the multiplier's 767,466 GPU-h
    n = {"fraction": 1.19, "gross_gpu_hours": 767466.4, "netted": {"RL post-training": 12811.2},
         "netted_gpu_hours": 12811.2, "clamped": False, "usd_per_gpu_hour": 3.99}
    said = glance.netting_sentence({"bill": {"bill.figures.exploratory_netting": n}})
    assert 12811.2 * 3.99 == pytest.approx(51.1e3, rel=1e-3)
    assert said == (" The RL post-training line ($51.1k) is deducted from the exploratory "
                    "runs' line, whose multiplier of the final run (Cottier et al. 2024) "
                    "already counts fine-tuning and evaluation, so it adds no compute to the "
                    "total.")
    # past the multiplier the line is $0 and the excess adds: (800,000 - 767,466.4) x $3.99
    big = {**n, "netted": {"RL post-training": 8e5}, "netted_gpu_hours": 8e5, "clamped": True}
    said = glance.netting_sentence({"bill": {"bill.figures.exploratory_netting": big}})
    assert "only the excess, $130k, adds compute to the total" in said and "($3.19M)" in said
    assert glance.netting_sentence({"bill": {}}) == ""


def test_a_hyphenated_name_is_not_broken_at_its_hyphen_in_a_heading_or_a_caveat():
    # A teacher read "256 x A100-" / "80GB" in the index's heading at 1,400 px and "pre-" /
    # "training" in a caveat's summary at 390 px: a browser breaks a line after any hyphen.
    # Each hyphenated word is kept whole by the index's own nowrap span (span.n)
    from llmcost.present.report import INDEX_CSS
    assert "span.n{white-space:nowrap}" in INDEX_CSS
    assert glance.unbroken_html("Llama 2 13B, 256 x A100-80GB <x>") == (
        'Llama 2 13B, 256 x <span class="n">A100-80GB</span> &lt;x&gt;')
    box = glance.caveats_html(["the pre-training run: a detail"])
    assert '<summary>the <span class="n">pre-training</span> run</summary>' in box
    # a word too long to keep on one line of a phone (over 24 characters) may still break
    long = "a-very-long-hyphenated-identifier-name"
    assert glance.unbroken_html(long) == long


def test_the_assumed_mfu_bill_is_the_bill_rebuilt_at_the_central_mfu():
    # A trial: a 3B model on 64 H100s at an assumed 40% with a long-context phase at its own
    # mfu 0.3; the index said "about $198k" at the model's 52.7% where notebook 09's own row
    # said $207k: the index's rule scaled the whole final run, phase included, by 1 ÷ MFU. The
    # report now rebuilds the bill at the central MFU (report._bill_at_central_mfu), as 09's
    # own-hardware row does (levers.hardware_sweep: bill({**s, "mfu": point})). By hand: the
    # main run's GPU-hours scale as 0.40 / 0.527 (hours = C / (peak × MFU)); the phase, at its
    # own 0.3, does not move.
    from llmcost.present import report
    sc = {"model": "llama-3.1-8b", "accelerator": "H100-SXM", "n_gpus": 64,
          "train_tokens": 2e11, "mfu": 0.40, "price_usd_per_gpu_hour": 2.5,
          "phases": [{"name": "long-context", "tokens": 2e10, "seq_len": 32768, "mfu": 0.3}]}
    rows = [{"key": k, "label": k, "value": v, "unit": "", "note": ""} for k, v in (
        ("predicted_mfu", 0.50), ("predicted_mfu_low", 0.45), ("predicted_mfu_high", 0.60),
        ("predicted_mfu_central", 0.527))]
    at = ledger.build_ledger(sc)
    summary = {"parameters": {"mfu_band": {"value": None}}, "bill": {"bill.figures.mfu": 0.40},
               "bill_glance": {"final_run": {"point_usd": at.figures["final_run_usd"]},
                               "lines": [{"key": "compute.exploratory",
                                          "point_usd": at.line("compute.exploratory").usd},
                                         {"key": "total", "point_usd": at.total_usd}]},
               "notebooks": {"04b_step_time": rows}}
    exact = report._bill_at_central_mfu(sc, sc, summary)
    then = ledger.build_ledger({**sc, "mfu": 0.527})
    assert exact == {"mfu": 0.527, "total_usd": pytest.approx(then.total_usd), "waste": False}
    main, phase = "compute.pretraining.main", next(
        ln.key for ln in at.lines if ln.key.startswith("compute.pretraining.") and
        ln.key != "compute.pretraining.main" and ln.usd)
    assert then.line(main).usd == pytest.approx(at.line(main).usd * 0.40 / 0.527, rel=1e-6)
    assert then.line(phase).usd == pytest.approx(at.line(phase).usd, rel=1e-9)
    said = glance.assumed_mfu_sentence({**summary, "bill_at_central_mfu": exact})
    assert f"would be about {llmcost.fmt_usd(then.total_usd)} (the bill rebuilt at that MFU" \
        in said and "a phase that gives its own MFU keeps it" in said
    # the rule it replaces scales the phase too: below the rebuilt bill here
    rule = glance.assumed_mfu_sentence(summary)
    assert "grow as 1 ÷ MFU" in rule and llmcost.fmt_usd(then.total_usd) not in rule
    # an MFU that is the prediction already: nothing to rebuild
    assert report._bill_at_central_mfu(sc, sc, {**summary, "parameters": {
        "mfu_band": {"value": "predicted"}}}) is None
    # with a waste_ key the index's bill leaves the waste out and notebook 09's row adds it
    # (levers.bill: a whole-session review read "as notebook 09 prices" at $29.0k beside 09's
    # $44.7k): said so, and the rebuilt bill is still this page's, without the waste
    wasted = {**sc, "waste_failed_job_gpu_hours": 5000.0}
    w = report._bill_at_central_mfu(wasted, wasted, summary)
    assert w["waste"] is True and w["total_usd"] == pytest.approx(then.total_usd)
    assert "less the scenario's waste, which its row adds" in glance.assumed_mfu_sentence(
        {**summary, "bill_at_central_mfu": w})
    assert exact["waste"] is False


def test_a_compare_says_when_the_projects_differ_in_length():
    # A finance trial: "people +$4.40M" between an option priced over the final run's 3.52
    # months (the convention then; now the compute schedule, exploration included) and one over
    # a given 12-month project, the total's difference unsaid. The people line is roles × FTE ×
    # months × loaded cost: 14 FTE × (12 − A's months) / 12 × $444,245 (data/ledger_defaults.csv
    # staff_usd_per_fte_year_mean), A's months the schedule's days ÷ (365.25 / 12).
    from llmcost.present.glance import compare_days_words, compare_months_words
    sc = {"model": "llama-3.1-70b", "accelerator": "H100-SXM", "n_gpus": 2048,
          "train_tokens": 15e12, "seq_len": 8192, "mfu": 0.40, "pricing": "reserved",
          "price_usd_per_gpu_hour": 2.40,
          "ledger_people": [{"role": "research", "fte": 10}, {"role": "infra", "fte": 4}]}
    a = ledger.build_ledger(sc)
    c = ledger.build_ledger({**sc, "pricing": "owned", "price_usd_per_gpu_hour": None,
                             "ledger_project_months": 12})
    run = a.figures["project_months"]
    assert run == pytest.approx(sum(a.figures["schedule_days"].values()) / (365.25 / 12))
    assert c.line("people.staff").usd - a.line("people.staff").usd == pytest.approx(
        14 * (12 - run) / 12 * 444_245, rel=1e-6)
    said = compare_months_words([a, c])
    assert said == (f"; people, operations and storage priced over A {run:.4g} months (the "
                    "compute schedule), B 12 months (given)")
    # the convention's: nothing but the run scheduled, its wall clock
    alone = ledger.build_ledger({**sc, "ledger_exploratory_fraction": 0.0})
    assert "A {:.4g} months (the final run's wall clock)".format(
        alone.figures["project_months"]) in compare_months_words([alone, c])
    # under the published defaults, which of Epoch's median and the schedule it took
    pub = ledger.build_ledger({**sc, "ledger_published_defaults": True})
    assert pub.figures["project_months"] == pytest.approx(10.15)
    assert "B 10.15 months (Epoch's median project)" in compare_months_words([a, pub])
    assert compare_days_words([a, c]).endswith(said)
    assert compare_months_words([a, a]) == ""   # the same project: nothing to say
    bare = {k: v for k, v in sc.items() if k != "ledger_people"}   # no people or operations
    assert compare_months_words([ledger.build_ledger(bare), ledger.build_ledger(
        {**bare, "ledger_project_months": 12})]) == ""


def test_a_bill_outside_the_published_runs_extrapolation_is_read_first():
    # a consistency audit: a MoE on B200 billed at 11.1% where notebook 04b's illustrative
    # pilot (Megatron-Bridge's Qwen3-235B-A22B on B200, carried to the scenario's plan) gives
    # 8.2%-10.1%; page 04b said so, the index's "Read this first" did not
    from types import SimpleNamespace
    from llmcost.present import answers
    study = SimpleNamespace(illustrative=True,
                            extrapolation=SimpleNamespace(mfu_low=0.082, mfu_high=0.101))
    rows = answers.pilot_band_rows(study)
    assert [r[0] for r in rows] == ["pilot_extrapolated_mfu_low", "pilot_extrapolated_mfu_high"]
    assert [r[2] for r in rows] == [0.082, 0.101]
    summary = {"notebooks": {
        "00_index": [{"key": "bill_mfu", "value": 0.111}],
        "04b_step_time": [{"key": k, "value": v} for k, _, v, _, _ in rows]}}
    said = report.pilot_band_warning(summary)
    assert said == ("the bill's MFU, 11.1%, lies above what a published run like this one "
                    "gives for its plan, 8.2%-10.1% (notebook 04b §6): that run, carried to this "
                    "plan, runs slower than the bill assumes; a pilot of your own settles which")
    assert glance.caveat_line(said) == ("the bill's MFU, 11.1%, is above the 8.2%-10.1% a "
                                        "published run like it gives on this plan")
    # an FP8 run's MFUs are on the FP8 peak: each is said on the BF16 peak too, the basis of
    # `llmcost check`'s verdict (a trial read "24.0% of the BF16 peak" there and "the bill's
    # MFU, 12.0%" here, of one run); H100: r = 1,978.9 / 989.4 TFLOP/s (its datasheet)
    fp8 = report.pilot_band_warning(summary, {"dtype": "fp8", "accelerator": "H100-SXM"})
    assert fp8.startswith("the bill's MFU, 11.1% of the FP8 peak (22.2% of the BF16 peak), lies "
                          "above what a published run like this one gives for its plan, "
                          "8.2%-10.1% of the FP8 peak, 16.4%-20.2% of the BF16 one (notebook "
                          "04b §6): ")
    assert glance.caveat_line(fp8) == glance.caveat_line(said)
    # not where a figure would pass the BF16 peak (MFU 60% of the FP8 peak is 120% of BF16's)
    assert answers.pilot_band_words(0.60, 0.30, 0.40, fp8_over_bf16=2.0).startswith(
        "the bill's MFU, 60.0%, lies above what a published run like this one gives for its "
        "plan, 30.0%-40.0% (notebook 04b §6)")
    # a published run of the scenario's own size gives one figure, not "13.6%-13.6%" (a
    # re-trial's DeepSeek-V3 on 256 B200)
    one = {"notebooks": {"00_index": [{"key": "bill_mfu", "value": 0.162}],
                         "04b_step_time": [{"key": "pilot_extrapolated_mfu_low", "value": 0.136},
                                           {"key": "pilot_extrapolated_mfu_high",
                                            "value": 0.136}]}}
    single = report.pilot_band_warning(one)
    assert "gives for its plan, 13.6% (notebook 04b §6)" in single and "13.6%-" not in single
    # one figure is judged with POINT_BAND_SHARE (5%) either side: a review read "40.0% lies
    # below ... 40.8%" (2% apart) as a finding; 16.2% is 19% above 13.6%, said
    assert answers.POINT_BAND_SHARE == 0.05
    assert answers.pilot_band_words(0.400, 0.408, 0.408) is None
    assert answers.pilot_band_words(0.380, 0.408, 0.408).startswith("the bill's MFU, 38.0%, "
                                                                    "lies below")
    assert glance.caveat_line(single).startswith("the bill's MFU, 16.2%, is above the 13.6% a "
                                                 "published run like it gives")
    # inside the band, the scenario's own pilots, or no page 00 / 04b: nothing
    summary["notebooks"]["00_index"][0]["value"] = 0.09
    assert report.pilot_band_warning(summary) is None
    assert answers.pilot_band_rows(SimpleNamespace(illustrative=False,
                                                   extrapolation=study.extrapolation)) == []
    assert report.pilot_band_warning({"notebooks": {}}) is None
    # a throughput pilot the report carried to the run's MFU before the pages ran: page 04b
    # receives the MFU alone, and its published run is a comparison, not a band to warn on (a
    # trial's page read "the scenario gives none" under its own pilot's 38.2%)
    assert answers.pilot_band_rows(study, carried=True) == []


def test_estimate_sets_the_bill_against_the_published_runs_extrapolation_as_04b_does(tmp_path):
    # a long-context trial read "lies below what a published run like this one gives" in the
    # report and nothing of it under `llmcost estimate`: the default scenario's 40% against the
    # band the committed notebook 04b (run with the defaults) prints for the same plan
    from pathlib import Path
    import yaml
    root = Path(__file__).resolve().parents[1]
    nb = (root / "notebooks" / "04b_step_time.ipynb").read_text()
    (band,) = set(re.findall(r"lies below this extrapolation's band \(([\d.%-]+)\)", nb))
    path = root / "data" / "scenarios" / "default.yaml"
    said = [w for w in report.estimate_ledger(path).warnings
            if "a published run like this one gives" in w]
    assert said == [f"the bill's MFU, 40.0%, lies below what a published run like this one gives "
                    f"for its plan, {band} (notebook 04b §6): that run, carried to this plan, "
                    "runs faster than the bill assumes; a pilot of your own settles which"]
    # a scenario's own pilot sets the bill's MFU: no published run is set against it
    sc = yaml.safe_load(path.read_text())
    sc.pop("mfu")
    own = tmp_path / "own.yaml"
    own.write_text(yaml.safe_dump({**sc, "ledger_pilot_tokens_per_s_per_gpu": 850.0,
                                   "ledger_pilot_n_gpus": 64}))
    assert not [w for w in report.estimate_ledger(own).warnings
                if "a published run like this one gives" in w]


def test_one_given_mfu_on_two_accelerators_and_dtypes_is_one_item():
    # a lecturer compared a BF16 A100 run with an FP8 H100 one, both at mfu 0.35, and read mfu
    # twice: "35.0% of the BF16 peak → 35.0% of the FP8 peak", then "mfu 35.0% on both, as
    # given: a fraction of each accelerator's own peak"; one item says both
    from llmcost import ledger
    a = ledger.build_ledger({"model": "llama-3.1-8b", "accelerator": "A100-80GB", "n_gpus": 8,
                             "train_tokens": 1e10, "mfu": 0.35, "price_usd_per_gpu_hour": 2.0})
    b = ledger.build_ledger({"model": "llama-3.1-8b", "accelerator": "H100-SXM", "n_gpus": 8,
                             "train_tokens": 1e10, "mfu": 0.35, "dtype": "fp8",
                             "price_usd_per_gpu_hour": 3.0})
    items = glance.compare_inputs([a, b])
    mfu = [x for x in items if x.startswith("mfu ")]
    assert len(mfu) == 1 and "→ 35.0% of the FP8 peak (70.0% of the BF16 one)" in mfu[0]
    assert mfu[0].endswith("; 35.0% on both, as given: a fraction of each accelerator's own "
                           "peak, which does not carry over between accelerators (`mfu: "
                           "predict` predicts each)")
    # one accelerator, BF16 against FP8 (a review: still two items): the FP8 note kept whole
    c = ledger.build_ledger({"model": "llama-3.1-8b", "accelerator": "H100-SXM", "n_gpus": 8,
                             "train_tokens": 1e10, "mfu": 0.35, "price_usd_per_gpu_hour": 3.0})
    mfu = [x for x in glance.compare_inputs([c, b]) if x.startswith("mfu ")]
    assert len(mfu) == 1 and "; 35.0% on both, as given, each of its own dtype's dense peak: " \
        "the FP8 bill runs 2× the BF16 one's rate" in mfu[0]
    # two ranges of one point: no "on both" (each range said with its point)
    r1, r2 = ({"low": 0.3, "mode": 0.35, "high": 0.4}, {"low": 0.25, "mode": 0.35, "high": 0.5})
    d, e = (ledger.build_ledger({"model": "llama-3.1-8b", "accelerator": acc, "n_gpus": 8,
                                 "train_tokens": 1e10, "mfu": r, "price_usd_per_gpu_hour": 3.0})
            for acc, r in (("A100-80GB", r1), ("H100-SXM", r2)))
    assert not any("on both" in x for x in glance.compare_inputs([d, e]))


def test_counted_makes_run_s_agree_with_its_count():
    # a startup's trial read "only 1 held-out run(s)" on an index: the reader's lines say
    # "1 published run", "3 held-out runs"
    assert glance.counted("rests on only 1 published run(s) like this one") == \
        "rests on only 1 published run like this one"
    assert glance.counted("only 3 held-out run(s); 2 pilot(s); 1,200 price(s)") == \
        "only 3 held-out runs; 2 pilots; 1,200 prices"
    assert glance.counted("no count before run(s)") == "no count before run(s)"


def test_a_given_mfu_far_above_a_low_cap_is_drawn_without_widening_below():
    # A review: Mixtral 8x7B in FP8 on 256 B200, mfu 0.9: the capped band's low end (16.8%) is
    # under 0.224 × 90%, so a triangle peaked at 90% whose P5 is that low end would reach below
    # MFU 0 (90% − 73.2% × 1.288); the glance could not be drawn and notebook 00 failed. The low
    # side is not widened: the band's low end is the draws' bottom, said so.
    sc = {**POINT, "model": "mixtral-8x7b", "accelerator": "B200", "n_gpus": 256,
          "dtype": "fp8", "mfu": 0.9, "price_usd_per_gpu_hour": 5.0, "train_tokens": 1e12}
    r, words = ledger.given_mfu_range(ledger.build_ledger(sc))
    band_low = 2 * r.low  # the bottom kept at half the band's low end (montecarlo.band_drawn)
    assert r.kind == "triangular" and r.mode == r.high == 0.9 and 0 < band_low < 0.224 * 0.9
    assert 0.9 - (0.9 - band_low) / (1 - 0.05 ** 0.5) < 0   # widened, it would reach MFU 0
    # its P5 by hand: l + (h − l)√0.05 for a triangle peaked at its top h
    p5 = r.low + (0.9 - r.low) * 0.05 ** 0.5
    assert f"(its bottom kept at half the band's low end, {band_low:.1%}: widened so that the " \
           "band's low end were the draws' P5 it would reach MFUs near 0; the draws' P5 is " \
           f"{p5:.1%})" in words
    g, _, _ = glance.bill_glance(sc, samples=2_000)
    assert g["ranges"]["mfu"]["range"].startswith("triangular")


def test_a_pilot_band_below_the_bill_says_when_the_models_own_run_reads_it_the_other_way():
    # A procurement trial read, under "Read this first" of one 40% MFU bill, "read the bill as
    # optimistic" (Llama 3.1 70B's own published run, validation.own_published_run_warning) and
    # "lies below what a published run like this one gives, 43.8%-54.6%" (04b's pilot band),
    # and could not tell which to act on: a whole run's history against a steady state.
    from llmcost.bill.validation import OWN_RUN_WORDS
    from llmcost.present import answers
    band = answers.pilot_band_words(0.40, 0.438, 0.546)
    own = OWN_RUN_WORDS + "a published whole run ... : read the bill as optimistic (...)"
    said = report.beside_own_run(band, [own, band])
    assert said == band.replace("; a pilot of your own settles which",
                                report.OWN_RUN_OTHER_WAY + "; a pilot of your own settles which")
    assert report.beside_own_run(band, [band]) == band          # no own-run warning
    above = answers.pilot_band_words(0.60, 0.438, 0.546)        # the same direction: as it was
    assert report.beside_own_run(above, [own, above]) == above
    assert report.beside_own_run(None, [own]) is None
