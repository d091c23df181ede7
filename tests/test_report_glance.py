"""The report at a glance (llmcost.present.glance, ledger.headline_draws / bill_bars,
plots.bill_at_a_glance): the bill's figure and text bars, the three plain sentences, the caveats
in the reader's words and two scenarios compared.

Numbers are checked against a hand derivation: with ``mfu`` uniform on [0.30, 0.50] and every
other input fixed, a compute line is C / MFU, so its P10 is C / 0.48 (the MFU's P90, 0.30 + 0.9 ×
0.20) and its P90 is C / 0.32: P10 / point = 0.40 / 0.48 = 0.8333 and P90 / point = 0.40 / 0.32 =
1.25 (point at the midpoint 0.40).
"""

from __future__ import annotations

import json
import re

import matplotlib
import numpy as np
import pytest

from llmcost import report
from llmcost.bill import ledger
from llmcost.bill.checks import scenario_warnings
from llmcost.core.units import fmt_usd
from llmcost.present import glance, plots

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


def test_headline_uses_the_scenarios_ranges_or_says_they_are_illustrative(ranged):
    own = ledger.headline_draws(RANGED)
    assert not own.illustrative and set(own.draws.ranges) == {"mfu"}
    # draw for draw the bill of simulate_ledger (same seed and samples): one range per bill
    assert np.array_equal(own.draws.total_usd, ranged.total_usd)
    ill = ledger.headline_draws(POINT)
    assert ill.illustrative
    assert set(ill.draws.ranges) == set(ledger.illustrative_ranges(ledger.build_ledger(POINT)))
    assert all(ill.sources[k] for k in ill.draws.ranges)


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
    assert len(ax2.patches) == 2 * len(tor)  # the tornado: one bar each side per input
    tall = plots.bill_at_a_glance(bars, tor, title="my scenario", tall=True)
    assert tall[0].get_position().y0 > tall[1].get_position().y1  # the bars above the tornado
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


@pytest.mark.parametrize("columns", [60, 80, 120])
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
    _, bars, tor = glance.bill_glance(sc, samples=100_000)
    main = bars.loc["compute.pretraining.main"]
    assert main["p10_usd"] / main["point_usd"] == pytest.approx(
        (6 - 2.01 * np.sqrt(0.9)) / 3.99, rel=0.003)
    assert main["point_outside"] and bars.loc["total", "point_outside"]
    assert glance.point_outside(1.0, 1.0, 2.0) is False  # at its P10: inside
    assert glance.point_outside(0.9, 1.0, 2.0) and glance.point_outside(2.1, 1.0, 2.0)
    text = glance.glance_text(bars, tor, columns=100)
    row = next(ln for ln in text.splitlines() if ln.strip().startswith("pre-training compute"))
    assert f"{fmt_usd(main['point_usd'])}* ({fmt_usd(main['p10_usd'])}" in row
    assert "* point outside its P10–P90: the stated value is at the edge of its range" in \
        " ".join(ln.strip() for ln in text.splitlines())
    # a line whose point lies inside carries no marker, and no footnote without one
    inside = glance.bill_glance(RANGED, samples=20_000)
    assert not inside[1]["point_outside"].any()
    assert "point outside" not in glance.glance_text(inside[1], inside[2], columns=100)


def _summary(g, notebooks=None):
    return {"bill_glance": g, "notebooks": notebooks or {}}


def test_three_sentences_carry_the_summarys_numbers():
    g, bars, tor = glance.bill_glance(RANGED)
    json.dumps(g)  # summary.json keeps it
    nine = {"09_savings": [
        {"key": "bill_usd", "label": "bill with waste", "value": 8e6, "unit": "USD", "note": ""},
        {"key": "lever_1_saving_usd", "label": "lever 1: FP8 training", "value": 2e6,
         "unit": "USD", "note": "25.0% of the bill; risk: loss divergence"}]}
    first, second, third = glance.plain_sentences(_summary(g, nine))
    t = bars.loc["total"]
    # the final pre-training run, as notebook 00's headline counts it: paid GPU-hours × price
    run = ledger.build_ledger(RANGED).figures["final_run_usd"]
    assert g["final_run"]["point_usd"] == pytest.approx(run, rel=1e-9)
    for v in (t["point_usd"], t["p10_usd"], t["p90_usd"], run):
        assert fmt_usd(v) in first
    assert "the final pre-training run" in first and "final training run" not in first
    assert "from the scenario's ranges" in first
    top = tor.iloc[0]
    assert ledger.input_words(top["input"]) in second
    lo, hi = sorted((top["total_at_p10_usd"], top["total_at_p90_usd"]))
    assert fmt_usd(lo) in second and fmt_usd(hi) in second
    assert third == ("The biggest lever (notebook 09): FP8 training, which would save about $2M "
                     "(25% of the bill with its waste); its risk: loss divergence.")
    # notebook 09 not run, failed, or no lever: a sentence that says so, never a made-up lever
    assert "was not run" in glance.plain_sentences(_summary(g))[2]
    assert "failed" in glance.plain_sentences(_summary(g, nine), failed=["09_savings"])[2]
    assert "no lever" in glance.plain_sentences(_summary(g, {"09_savings": []}))[2]
    ill = glance.bill_glance(POINT)[0]
    assert "illustration" in glance.plain_sentences(_summary(ill))[0]
    assert glance.plain_sentences({"bill_glance": None}) == []


def test_caveats_are_one_line_in_the_readers_words():
    ws = scenario_warnings({"model": "llama-2-70b", "mfu": 0.9, "dtype": "fp8"})
    lines = [glance.caveat_line(w) for w in ws]
    assert "the assumed MFU, 90%, is above any published training run: every cost here is " \
           "optimistic" in lines
    assert any(x.startswith("the MFU counts against the FP8 peak") for x in lines)
    # the step-time model's band on a regime with few held-out runs (accuracy.mfu_band's words)
    w = ("only 2 held-out run(s) in the regime Hopper · Megatron 3D (errors -3.0% to +8.0%), "
         "fewer than 5 for a conformal band: the stated default, median error +0.0% ± 30%.")
    assert glance.caveat_line(w) == ("the predicted MFU rests on only 2 published run(s) like "
                                     "this one: read it as ±30%")
    # a warning of no known family: its first clause
    assert glance.caveat_line("something new happened: the details") == "something new happened"
    page = glance.caveats_html([w])
    assert "<details><summary>the predicted MFU rests" in page and "conformal band" in page


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
    assert "<h2>Compared: a and b</h2>" in page and "per draw" in page
    assert fmt_usd(b.total_usd) in page
    point = glance.compare_bills([ledger.build_ledger(POINT), ledger.build_ledger(POINT)],
                                 ("x", "y"))
    assert "difference p10 usd" not in point.columns
    assert "one number per line" in glance.compare_html(point, ("x", "y"))


def test_report_index_opens_with_the_sentences_figure_and_comparison(tmp_path):
    other = tmp_path / "b.yaml"
    other.write_text("model: llama-2-70b\nn_gpus: 2048\ntrain_tokens: 2.0e12\n"
                     "mfu: [0.35, 0.5]\nprice_usd_per_gpu_hour: 2.0\n"
                     "ledger_budget_usd: 100000\n")  # over budget: a warning of b's own
    sc = tmp_path / "a.yaml"
    sc.write_text("title: my run\nmodel: llama-2-70b\nn_gpus: 2048\ntrain_tokens: 2.0e12\n"
                  "mfu: 0.4\n")
    out = tmp_path / "o"
    report.run_report(sc, out, selection=["01"], timeout_s=300, progress=lambda s: None,
                      compare=other)
    summary = json.loads((out / "summary.json").read_text())
    page = (out / "index.html").read_text()
    lead = glance.plain_sentences(summary)
    assert len(lead) == 3 and "was not run" in lead[2]
    first_table = page.index("<table")
    for s in lead:
        assert report.html.escape(s) in page[:first_table]
    assert page.index("<img class='glance'") < first_table
    assert summary["bill_glance"]["illustrative"] is True
    # named by title (a.yaml's "my run"), else by file stem (b.yaml has none); b's warnings
    # shown as a's are, each in the reader's words with the warning under it
    assert summary["compare"]["names"] == ["my run", "b"]
    assert "<h2>Compared: my run and b</h2>" in page
    warnings_b = report.estimate_ledger(other).warnings
    assert summary["compare"]["warnings"] == list(warnings_b) and warnings_b
    compared = page[page.index("<h2>Compared"):]
    assert "Read this first about b" in compared
    for w in warnings_b:
        assert report.html.escape(glance.caveat_line(w)) in compared
        assert report.html.escape(w) in compared
    assert "overflow-wrap:anywhere" not in page and "@media print" in page
    assert "e+" not in page  # no 2.48e+06 anywhere, the figure's data URI included
    assert len(page) < 400_000  # two SVGs with their text as text, not glyph outlines
    with pytest.raises(report.ScenarioError):  # a bad second scenario: nothing written
        bad = tmp_path / "bad.yaml"
        bad.write_text("model: no-such-model\n")
        report.run_report(sc, tmp_path / "o2", selection=["01"], compare=bad)
    assert not (tmp_path / "o2").exists()


def test_every_warning_of_a_troubled_scenario_has_its_readers_line(tmp_path):
    # MFU above anything published, FP8, beyond the context, TP across nodes, ZeRO-3 on a stack
    # without it, exposed communication, over budget: each warning a family of glance.CAVEATS
    sc = tmp_path / "d.yaml"
    sc.write_text("model: llama-2-70b\naccelerator: MI300X\nn_gpus: 64\ntrain_tokens: 5.0e11\n"
                  "seq_len: 8192\ndtype: fp8\nmfu: 0.6\npp: 1\ntp: 16\nzero_stage: 3\n"
                  "ledger_budget_usd: 1000\n")
    warnings = report.estimate_ledger(sc).warnings
    assert len(warnings) >= 8
    for w in warnings:
        assert any(re.search(p, w) for p, _ in glance.CAVEATS), f"no reader's line for: {w}"
        line = glance.caveat_line(w)
        assert len(line) < 100 and "\n" not in line
    lines = [glance.caveat_line(w) for w in warnings]
    assert "tensor parallelism (16 GPUs) crosses the slow network between nodes" in lines
    assert any(x.startswith("the bill, $") and "× the budget" in x for x in lines)
