"""Ranges on cost inputs (llmcost.ranges, scenario.py "Ranges", ledger.simulate_ledger): a point
range gives the point, P10 <= P50 <= P90 on every line, widening a range never narrows the
total's P10-P90, the same seed gives the same figures, ranges on plan integers and GPU counts are
refused, and a hand-computed two-input case (a uniform MFU and a uniform price) matches its
analytic percentiles within the Monte Carlo error."""

import json
import math
import zlib

import numpy as np
import pytest
from _cli import run_cli

from llmcost import ledger, scenario
from llmcost.bill.ranges import RANGEABLE_KEYS, Range, parse_range, point
from llmcost.present.report import _bill, estimate_ledger
from llmcost.bill.scenario import ScenarioError, point_scenario, validate_parameters

# Llama 2 70B (Touvron et al. 2023, Table 1; data/models.csv) as tests/test_ledger.py derives it:
# 80 layers, d_model 8,192, 64 query and 8 KV heads of 128, SwiGLU d_ff 28,672, vocabulary 32,000.
L, H, KV, DH, FF, V = 80, 8192, 8, 128, 28672, 32000
N_MATMUL = L * (2 * H * H + 2 * H * KV * DH) + L * 3 * H * FF + V * H
CORE_FWD_4K = 2 * L * 64 * (DH + DH) * 4096   # QKᵀ and AV, full 4,096 × 4,096 mask
H100_BF16 = 989.4e12                          # dense BF16 peak (H100 SXM datasheet)
#: USD of the main run's ideal GPU-hours per (USD/GPU-h ÷ MFU): 2e12 tokens × 3 × forward FLOPs
#: ÷ peak ÷ 3,600 s, so that line = K × price / mfu
K = 2e12 * 3 * (2 * N_MATMUL + CORE_FWD_4K) / H100_BF16 / 3600
PRICE = {"price_usd_per_gpu_hour": 3.99}
N = 100_000


def _sim(changes, samples=N, seed=0):
    return ledger.simulate_ledger({**PRICE, **changes}, samples=samples, seed=seed)


# ------------------------------------------------------------------------------ what a range is
def test_the_three_forms_and_their_points():
    u = parse_range("mfu", [0.3, 0.5])
    t = parse_range("mfu", {"low": 0.3, "mode": 0.35, "high": 0.5})
    g = parse_range("ledger_egress_bytes", {"dist": "lognormal", "p10": 1e12, "p90": 1e14})
    assert (u.kind, t.kind, g.kind) == ("uniform", "triangular", "lognormal")
    assert point(u) == pytest.approx(0.4)      # midpoint
    assert point(t) == 0.35                    # mode
    assert point(g) == pytest.approx(1e13)     # median √(1e12 · 1e14)
    assert point(0.42) == 0.42 and parse_range("mfu", 0.42) is None
    # inverse CDFs at hand-derived values: uniform 0.3 + 0.1 × 0.2; a symmetric triangle's
    # median is its mode; the lognormal's P10 and P90 are the given ones
    assert u.quantile(0.1) == pytest.approx(0.32)
    assert parse_range("x", {"low": 1, "mode": 2, "high": 3}).quantile(0.5) == pytest.approx(2)
    assert g.quantile(0.1) == pytest.approx(1e12, rel=1e-9)
    assert g.quantile(0.9) == pytest.approx(1e14, rel=1e-9)


def test_a_two_piece_range_has_its_point_as_median_and_mode():
    # Two half-triangles of mass ½ each meet at the mode (ranges.py): F(x) = ½((x − l)/(m − l))²
    # below m, 1 − ½((h − x)/(h − m))² above, so F(m) = ½ and the q-quantile is
    # l + (m − l)√(2q) for q ≤ ½, h − (h − m)√(2(1 − q)) above. By hand on 0.378 / 0.493 /
    # 0.546 (a predicted MFU's band capped above its central estimate, trial 19's compare):
    # P10 = 0.378 + 0.115 √0.2 = 0.42943, P90 = 0.546 − 0.053 √0.2 = 0.52230; the triangle
    # with the same ends and mode has its median at l + √(½ (h − l)(m − l)) = 0.47629, its
    # mode 0.493 above it (the bill's P50 left its point).
    two = parse_range("mfu", {"dist": "two_piece", "low": 0.378, "mode": 0.493, "high": 0.546})
    tri = Range("triangular", low=0.378, mode=0.493, high=0.546)
    assert two.kind == "two_piece" and point(two) == 0.493
    assert float(two.quantile(0.5)) == pytest.approx(0.493, abs=1e-12)
    assert float(two.quantile(0.1)) == pytest.approx(0.378 + 0.115 * math.sqrt(0.2), rel=1e-12)
    assert float(two.quantile(0.9)) == pytest.approx(0.546 - 0.053 * math.sqrt(0.2), rel=1e-12)
    assert float(two.quantile(0.0)) == 0.378 and float(two.quantile(1.0)) == 0.546
    assert float(tri.quantile(0.5)) == pytest.approx(0.378 + math.sqrt(0.5 * 0.168 * 0.115),
                                                     rel=1e-12)
    d = two.draws(N, 0, "mfu")
    assert np.mean(d < 0.493) == pytest.approx(0.5, abs=0.005)   # half the draws each side
    assert two.describe() == ("two-piece triangular 0.378 / 0.493 / 0.546, median 0.493: half "
                              "the draws each side")
    assert parse_range("mfu", two.to_yaml()) == two
    with pytest.raises(ValueError, match="a two_piece range needs low <= mode <= high"):
        parse_range("mfu", {"dist": "two_piece", "low": 0.5, "mode": 0.4, "high": 0.6})
    # a mode at an end would pile half the draws there (the review): refused, a triangle offered
    with pytest.raises(ValueError, match="needs low < mode < high .*a triangular range peaks"):
        parse_range("mfu", {"dist": "two_piece", "low": 0.3, "mode": 0.3, "high": 0.5})


def test_a_cut_two_piece_range_holds_its_draws_above_the_cut_at_it():
    # min(X, cut), X two-piece 0.378 / 0.493 / 0.707 (a predicted band whose uncapped top is
    # 70.7%, capped at 54.6% by the best comparable run): by hand, P90 = min(0.707 − 0.214 √0.2,
    # 0.546) = 0.546; the share at the cut P(X > 0.546) = ½ ((0.707 − 0.546) / 0.214)² = 0.2830;
    # the median stays 0.493 (below the cut), the point
    r = Range("two_piece_cut", low=0.378, mode=0.493, high=0.707, cut=0.546)
    assert point(r) == 0.493 and r.bounds == (0.378, 0.546)
    assert float(r.quantile(0.5)) == pytest.approx(0.493, abs=1e-12)
    assert float(r.quantile(0.9)) == 0.546
    d = r.draws(N, 0, "mfu")
    assert np.mean(d == 0.546) == pytest.approx(0.5 * (0.161 / 0.214) ** 2, abs=0.005)
    assert d.max() == 0.546 and d.min() >= 0.378
    # a central estimate above the cut: the cut is the point and the median
    above = Range("two_piece_cut", low=0.268, mode=0.456, high=0.65, cut=0.35)
    assert point(above) == 0.35 and float(above.quantile(0.5)) == 0.35
    assert parse_range("mfu", r.to_yaml()) == r
    for bad, rule in (({"cut": 0.378}, "low < cut <= high"), ({"cut": 0.8}, "low < cut <= high"),
                      ({"mode": 0.378}, "low < mode < high")):
        with pytest.raises(ValueError, match=rule):
            parse_range("mfu", {**r.to_yaml(), **bad})


def test_a_capped_predicted_band_pairs_one_model_error_in_a_compare():
    # Trial 18/19's compare (Llama 3.1 70B on 1,024 H100, BF16 → FP8, mfu: predict): A's band
    # 37.8%–54.6% capped 12% above its central 49.3% (uncapped top 70.7%), B's 26.6%–41.1%
    # around 33.1% (uncapped 43.6%). Costs K / MFU (K_A = 25.3 × 0.493, K_B = 18.9 × 0.331 $M,
    # the bills' compute lines at their points): drawn squeezed under the caps, the saving's
    # point lay outside its own P10–P90; drawn as each band cut at its cap, one quantile is one
    # model error in both, and the point lies inside
    from llmcost.bill.montecarlo import predicted_mfu_range
    u = (np.arange(100_000) + 0.5) / 100_000
    ka, kb = 25.3 * 0.493, 18.9 * 0.331
    point_saving = kb / 0.331 - ka / 0.493
    squeezed = kb / Range("two_piece", low=0.266, mode=0.331, high=0.411).quantile(u) - \
        ka / Range("two_piece", low=0.378, mode=0.493, high=0.546).quantile(u)
    assert not np.quantile(squeezed, 0.1) <= point_saving <= np.quantile(squeezed, 0.9)
    cut = kb / Range("two_piece_cut", low=0.266, mode=0.331, high=0.436, cut=0.411).quantile(u) \
        - ka / Range("two_piece_cut", low=0.378, mode=0.493, high=0.707, cut=0.546).quantile(u)
    assert np.quantile(cut, 0.1) < point_saving < np.quantile(cut, 0.9)
    # the record report.resolve_mfu writes: uncapped top p / (1 + c − w) = 0.4877 / 0.690
    pred = {"value": 0.493, "predicted": 0.4877, "center": 0.493,
            "band": {"low": 0.378, "high": 0.546, "center": -0.0098, "half_width": 0.3,
                     "capped_above": 0.12}}
    r = predicted_mfu_range(pred)
    assert r.kind == "two_piece_cut" and r.cut == 0.546 and r.point == 0.493
    # both ends widened from the mode by 1 / (1 − √0.1) = 1.46247 (the band is a 90% interval:
    # its ends are the draws' P5 and P95, montecarlo.band_drawn)
    widen = 1 / (1 - 0.1 ** 0.5)
    assert widen == pytest.approx(1.46247, abs=1e-5)
    assert r.high == pytest.approx(0.493 + (0.4877 / (1 - 0.0098 - 0.3) - 0.493) * widen,
                                   rel=1e-9)
    assert r.low == pytest.approx(0.493 - (0.493 - 0.378) * widen, rel=1e-9)
    assert r.quantile(0.05) == pytest.approx(0.378, rel=1e-9)
    # an uncapped band keeps the plain two-piece range
    assert predicted_mfu_range({**pred, "band": {**pred["band"], "capped_above": None}}).kind \
        == "two_piece"


def test_a_band_peaked_at_an_end_stays_a_triangle():
    # A two-piece range whose mode is an end would put half its draws on that end: a bill whose
    # predicted MFU is its band's capped top (the central estimate above the cap) keeps the
    # triangle, every draw at most the top and none piled on it (montecarlo.peaked_at).
    from llmcost.bill.montecarlo import peaked_at, predicted_mfu_range
    assert peaked_at(0.3, 0.4, 0.5).kind == "two_piece"
    assert peaked_at(0.3, 0.5, 0.5).kind == peaked_at(0.3, 0.3, 0.5).kind == "triangular"
    capped = predicted_mfu_range({"value": 0.35, "band": {"low": 0.268, "high": 0.35}})
    # the band's low end its P5: a triangle peaked at its top h has its q-quantile at
    # l + (h − l)√q, so h − l = (h − band low) / (1 − √0.05) = 0.082 × 1.28800
    assert capped.kind == "triangular" and capped.mode == capped.high == 0.35
    assert capped.low == pytest.approx(0.35 - 0.082 / (1 - 0.05 ** 0.5), rel=1e-9)
    assert capped.quantile(0.05) == pytest.approx(0.268, rel=1e-9)
    d = capped.draws(N, 0, "mfu")
    assert np.mean(d >= 0.35 - 1e-12) < 0.001


def test_a_predicted_band_is_drawn_as_the_90_percent_interval_it_is():
    # The step-time model's band is a 90% interval of its held-out errors (accuracy.ALPHA =
    # 0.10: full-conformal, ⌈(n + 1)·0.9⌉-th score): 5% of published runs fall below its low end
    # and 5% above its top. Drawn over the band's own ends no draw fell outside it, and the
    # bill's P10-P90 of the MFU was ±55% of each half-width where a 90% band's P10-P90 is ±81%
    # (two half-triangles: q-quantile l + (m − l)√(2q), P10 at 1 − √0.2 = 0.553 of the way
    # from m when P0 is the end; (1 − √0.2) / (1 − √0.1) = 0.809 when P5 is).
    from llmcost.bill.montecarlo import band_drawn, predicted_mfu_range
    r = predicted_mfu_range({"value": 0.40, "band": {"low": 0.31, "high": 0.55}})
    assert r.kind == "two_piece" and r.mode == 0.40
    d = r.draws(N, 0, "mfu")
    assert np.quantile(d, 0.05) == pytest.approx(0.31, rel=0.01)
    assert np.quantile(d, 0.95) == pytest.approx(0.55, rel=0.01)
    assert np.mean(d < 0.31) == pytest.approx(0.05, abs=0.003)
    assert np.mean(d > 0.55) == pytest.approx(0.05, abs=0.003)
    assert np.median(d) == pytest.approx(0.40, rel=0.005)
    assert (0.40 - np.quantile(d, 0.10)) / 0.09 == pytest.approx(0.809, abs=0.01)
    # a widened top above MFU 1 is cut there, never drawn above it
    wide = band_drawn(0.5, 0.8, 0.95)
    assert wide.kind == "two_piece_cut" and wide.cut == 1.0 and wide.bounds[1] == 1.0
    # an end within a thousandth of the band's width of the mode is the mode: no two-piece
    # range with half its draws in a sliver (the point kept)
    sliver = band_drawn(0.3, 0.4, 0.40005)
    assert sliver.kind == "triangular" and sliver.mode == sliver.high == 0.4
    assert sliver.quantile(0.05) == pytest.approx(0.3, rel=1e-9)
    # a band too wide below for a positive widened low end (0.4 − 0.3 × 1.4625 < 0): its bottom
    # is half the band's low end, the high side still widened; the range is continuous in the
    # band (on each side of where the two rules meet, 0.4 − (0.4 − L) × 1.4625 = L / 2 at
    # L = 0.185 / 0.9625 = 0.1922, bottoms a hair apart), and a band not 0 < low is refused
    low = band_drawn(0.1, 0.4, 0.5)
    assert low.low == 0.05 and low.high == pytest.approx(0.4 + 0.1 / (1 - 0.1 ** 0.5))
    meet = 0.185 / 0.9625
    a, b = band_drawn(meet - 1e-5, 0.4, 0.5), band_drawn(meet + 1e-5, 0.4, 0.5)
    assert abs(a.low - b.low) < 1e-4
    for bad in ((0.0, 0.3, 0.5), (-0.05, 0.3, 0.5), (0.4, 0.3, 0.5)):
        with pytest.raises(ValueError, match="mfu band"):
            band_drawn(*bad)


def test_draws_have_the_distributions_percentiles():
    # lognormal P10 / P90 and the triangle's P10 by hand: low + √(0.1 × (h − l)(m − l)) =
    # 2 + √(0.1 × 3 × 1) = 2.5477; Monte Carlo error of a percentile at 100k draws ≲ 0.5%
    g = Range("lognormal", p10=0.08, p90=0.4).draws(N, 0, "fail_rate_per_gpu_year")
    assert np.quantile(g, 0.1) == pytest.approx(0.08, rel=0.02)
    assert np.quantile(g, 0.9) == pytest.approx(0.4, rel=0.02)
    t = Range("triangular", low=2.0, mode=3.0, high=5.0).draws(N, 0, "price_usd_per_gpu_hour")
    assert np.quantile(t, 0.1) == pytest.approx(2 + math.sqrt(0.3), rel=0.005)
    assert t.min() >= 2.0 and t.max() <= 5.0


@pytest.mark.parametrize("key,value,match", [
    ("n_gpus", [1024, 2048], "n_gpus"), ("tp", [2, 4], "tp"), ("model", ["a", "b"], "model"),
    ("seq_len", {"low": 2048, "mode": 4096, "high": 8192}, "seq_len"),
    ("mfu", [0.5, 0.3], "low <= high"), ("mfu", [0.3, 1.2], "range high"),
    ("mfu", {"dist": "lognormal", "p10": 0.3, "p90": 0.5}, "bounded"),
    ("mfu", {"low": 0.3, "mode": 0.6, "high": 0.5}, "low <= mode <= high"),
    ("mfu", [0.3, 0.4, 0.5], "two numbers"), ("mfu", {"lo": 0.3, "high": 0.5}, "dist"),
    ("price_usd_per_gpu_hour", [-1, 3], "range low"),
    ("fail_rate_per_gpu_year", {"dist": "lognormal", "p10": 0.5, "p90": 0.1}, "p10 <= p90"),
    ("ckpt_restart_s", ["a", 3], "finite number"),
])
def test_bad_ranges_are_refused_naming_the_key(key, value, match):
    with pytest.raises(ScenarioError, match=match) as e:
        scenario.validate_parameter(key, value)
    assert key in str(e.value)


def test_range_on_gpu_count_or_tp_is_refused_everywhere(tmp_path):
    for key, value in (("n_gpus", [1024, 2048]), ("tp", [2, 4])):
        with pytest.raises(ScenarioError, match=key):
            ledger.build_ledger({key: value})
        with pytest.raises(ScenarioError, match=key):
            ledger.simulate_ledger({key: value}, samples=10)
        path = tmp_path / f"{key}.yaml"
        path.write_text(f"model: llama-2-70b\n{key}: {value}\n", encoding="utf-8")
        with pytest.raises(ScenarioError, match=f"{path}: {key}"):
            scenario.load_scenario(path)


def test_rangeable_keys_are_registered_continuous_parameters():
    for k in RANGEABLE_KEYS:
        assert scenario.PARAMETERS[k].kind.split("|")[0] == "float", k


def test_samples_and_seed_are_checked():
    for bad in ({"samples": 0}, {"samples": 2.5}, {"seed": -1}, {"samples": True}):
        with pytest.raises(ScenarioError, match=next(iter(bad))):
            ledger.simulate_ledger({"mfu": [0.3, 0.5]}, **bad)


# ------------------------------------------------------------------------------ the computation
@pytest.mark.parametrize("changes", [
    {"mfu": [0.4, 0.4]},
    {"price_usd_per_gpu_hour": {"low": 3.99, "mode": 3.99, "high": 3.99}},
    {"fail_rate_per_gpu_year": {"dist": "lognormal", "p10": 0.173, "p90": 0.173}},
    {"pricing": "owned", "price_usd_per_gpu_hour": None, "ledger_owned_usd_per_gpu": [3e4, 3e4]},
    {"pricing": "spot", "ledger_spot_preemptions_per_node_day": 1 / 7,
     "ledger_spot_restart_s": [1800, 1800], "ckpt_restart_s": [600, 600]},
])
def test_a_point_range_gives_the_point_bill(changes):
    """A range of zero width draws its point every time: every line of every draw is the point
    bill's amount (build_ledger of the plain numbers, which tests/test_ledger.py derives by
    hand), to rounding."""
    plain = {k: point(parse_range(k, v)) if isinstance(v, (list, dict)) else v
             for k, v in changes.items()}
    bill = ledger.build_ledger({**PRICE, **plain})
    d = _sim(changes, samples=50)
    for ln in bill.lines:
        if ln.usd is not None:
            np.testing.assert_allclose(d.line_usd[ln.key], ln.usd, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(d.total_usd, bill.total_usd, rtol=1e-12)
    assert d.point.total_usd == pytest.approx(bill.total_usd, rel=1e-12)


def test_a_zero_width_range_is_said_to_be_its_number():
    # Trial 20: `mfu: [0.4, 0.4]` was said to be "the midpoint of the range uniform 0.4-0.4 ...;
    # the P10–P90 draw from the range", while the headline drew the illustrative spread a
    # number given alone gets: the words now say it is that number
    bill = ledger.build_ledger({**PRICE, "mfu": [0.4, 0.4]})
    assert bill.figures["mfu_source"].startswith("the range uniform 0.4-0.4 has zero width: the "
                                                 "number 0.4, treated as a number given alone")
    assert "draw from the range" not in bill.figures["mfu_source"]


#: REGRESSION PIN (not a sourced value): the whole bill of the defaults at $3.99/GPU-h as main
#: priced it before ranges existed (commit 4cc2239^1, main just before ranges merged:
#: ledger.build_ledger({"price_usd_per_gpu_hour": 3.99}).total_usd). Ranges must not move it;
#: a change of the cost model elsewhere (a new line, new physics) re-pins it, saying why.
#: Re-pinned when checkpoint storage came to be sized from the checkpoint plan
#: (reliability.sized_storage_bytes_per_s: 56 GB/s here instead of 2,048 × 122 MB/s = 250 GB/s);
#: with ckpt_storage_bytes_per_s = 2.5e11 the bill is still the old pin, 5,713,299.41 USD
#: (test_the_old_pin_at_the_old_storage below). Re-pinned when storage came to be billed per
#: 2^30 bytes, the GB of AWS's GB-month (reliability.BILLED_GB, AWS S3 FAQ): 5,668,767.19 USD
#: before, every storage line 6.9% lower (the old storage pin 5,713,299.41 likewise).
#: Re-pinned when the goodput came to be a run's of its own length (reliability.
#: finite_run_breakdown: ⌈T/τ⌉ − 1 checkpoints, none at the end, instead of Daly's steady
#: state): 5,666,485.85 USD before (−1.6e-5; the old storage pin 5,703,802.78, −3.5e-6).
#: Re-pinned when the convention's project (no ledger_project_months) came to be the compute
#: schedule (exploration, the run, post-training: ledger._project_months), not the final
#: run's wall clock alone: the dataset storage line is priced over those months, +$87.91
#: (test_the_repin_is_the_dataset_storage_over_the_schedule); 5,666,396.96 USD before (the
#: old storage pin 5,703,782.61).
PRE_RANGES_TOTAL_USD = 5666484.865561072


def test_the_old_pin_at_the_old_storage():
    bill = ledger.build_ledger({**PRICE, "ckpt_storage_bytes_per_s": 2048 * 2e12 / 16384})
    assert bill.total_usd == pytest.approx(5703869.572911405, rel=1e-12)


def test_the_repin_is_the_dataset_storage_over_the_schedule():
    # the last re-pin moved only the dataset storage line, by its monthly rate × the months the
    # schedule adds to the run: (schedule days − run days) ÷ (365.25 / 12) months
    bill = ledger.build_ledger(PRICE)
    run = ledger.build_ledger({**PRICE, "ledger_exploratory_fraction": 0.0,
                               "ledger_rl": False})   # nothing scheduled beside the run
    f = bill.figures
    months = sum(f["schedule_days"].values()) / (365.25 / 12)
    assert f["project_months"] == pytest.approx(months, rel=1e-12)
    assert run.figures["project_months"] == pytest.approx(
        f["schedule_days"]["final_run"] / (365.25 / 12), rel=1e-12)
    ds, ds_run = bill.line("storage.datasets"), run.line("storage.datasets")
    per_month = ds_run.usd / (run.figures["project_months"] + PRICE.get(
        "ledger_dataset_retention_months", ledger.LEDGER_DEFAULTS[
            "ledger_dataset_retention_months"]))
    assert ds.usd - ds_run.usd == pytest.approx(
        per_month * (months - run.figures["project_months"]), rel=1e-9)
    assert ds.usd - ds_run.usd == pytest.approx(87.91, abs=0.01)


def test_no_ranges_gives_exactly_todays_bill():
    bill = ledger.build_ledger(PRICE)
    assert bill.total_usd == pytest.approx(PRE_RANGES_TOTAL_USD, rel=1e-12)
    d = _sim({}, samples=10)
    assert d.ranges == {} and d.point.total_usd == bill.total_usd
    s = d.summary()
    assert (s.loc["total", ["p10", "p50", "p90"]] == bill.total_usd).all()
    assert d.tornado().empty


WIDE = {"mfu": {"low": 0.3, "mode": 0.4, "high": 0.55},
        "price_usd_per_gpu_hour": [2.5, 6.0],
        "fail_rate_per_gpu_year": {"dist": "lognormal", "p10": 0.08, "p90": 0.5},
        "ckpt_restart_s": [300, 1800], "ledger_exploratory_fraction": [0.2, 3.0],
        "ledger_rerun_probability": [0.0, 0.3], "ledger_reserve_fraction": [0.05, 0.15],
        "ledger_sft_tokens": {"dist": "lognormal", "p10": 1e9, "p90": 5e10},
        "ledger_egress_bytes": {"dist": "lognormal", "p10": 1e12, "p90": 1e14},
        "ledger_project_months": [6, 12], "ledger_operations_usd_per_month": [2e4, 6e4],
        "ledger_people": [{"role": "research", "fte": 5}]}


def test_lines_sum_to_the_total_in_every_draw_and_percentiles_are_ordered():
    d = _sim(WIDE)
    stack = sum(d.line_usd.values())
    np.testing.assert_allclose(stack, d.total_usd, rtol=1e-12)
    s = d.summary()
    assert (s["p10"] <= s["p50"]).all() and (s["p50"] <= s["p90"]).all()
    body = s.drop(index="total")
    assert body["mean"].sum() == pytest.approx(s.loc["total", "mean"], rel=1e-10)
    # percentiles do not add, and the table says so: the lines' P90s sum above the total's
    assert body["p90"].sum() > s.loc["total", "p90"]
    assert "do not add" in s.attrs["note"]


@pytest.mark.parametrize("key,narrow,wide", [
    ("mfu", [0.35, 0.45], [0.25, 0.55]),
    ("price_usd_per_gpu_hour", [3.5, 4.5], [2.0, 6.0]),
    ("fail_rate_per_gpu_year", {"dist": "lognormal", "p10": 0.15, "p90": 0.2},
     {"dist": "lognormal", "p10": 0.05, "p90": 0.6}),
    ("ledger_exploratory_fraction", {"low": 1.0, "mode": 1.19, "high": 1.5},
     {"low": 0.2, "mode": 1.19, "high": 3.0}),
])
def test_widening_one_range_never_narrows_the_total(key, narrow, wide):
    others = {"ckpt_restart_s": [300, 1200], "price_usd_per_gpu_hour": [3.0, 5.0]}
    others.pop(key, None)
    spreads = []
    for r in (narrow, wide):
        q = _sim({**others, key: r}, samples=20_000).percentiles()
        spreads.append(q["p90"] - q["p10"])
    assert spreads[1] > spreads[0]


def test_the_same_seed_gives_the_same_figures_and_another_seed_others():
    a, b, c = (_sim(WIDE, samples=5_000, seed=s) for s in (7, 7, 8))
    np.testing.assert_array_equal(a.total_usd, b.total_usd)
    assert a.summary().equals(b.summary())
    assert not np.array_equal(a.total_usd, c.total_usd)


def test_common_random_numbers_across_scenarios():
    """The draws of an input come from default_rng([seed, crc32(key)]) (the contract), so a
    scenario and its variant draw the same MFUs and their difference is a difference per
    draw: a change that only lowers the price lowers every draw's bill."""
    u = np.random.default_rng([0, zlib.crc32(b"mfu")]).random(1000)
    before = _sim({"mfu": [0.3, 0.5], "price_usd_per_gpu_hour": 4.0}, samples=1000)
    after = _sim({"mfu": [0.3, 0.5], "price_usd_per_gpu_hour": 3.0,
                  "ckpt_restart_s": [300, 900]}, samples=1000)
    np.testing.assert_allclose(before.inputs["mfu"], 0.3 + 0.2 * u, rtol=1e-15)
    np.testing.assert_array_equal(before.inputs["mfu"], after.inputs["mfu"])
    main = "compute.pretraining.main"  # = K × price / mfu per draw: the ratio is 3/4 exactly
    np.testing.assert_allclose(after.line_usd[main] / before.line_usd[main], 0.75, rtol=1e-12)


def _ratio_cdf(z, a, b, c, d):
    """P(K·X/Y <= z) for X ~ U[a, b] (price) and Y ~ U[c, d] (MFU), independent, by hand:
    (1/(d − c)) ∫_c^d clip((z·y/K − a)/(b − a), 0, 1) dy, the integrand linear between
    y0 = aK/z and y1 = bK/z, 1 above y1."""
    alpha, beta = z / (K * (b - a)), -a / (b - a)
    y0, y1 = a * K / z, b * K / z
    lo, hi = max(c, y0), min(d, y1)
    part = alpha / 2 * (hi ** 2 - lo ** 2) + beta * (hi - lo) if hi > lo else 0.0
    return (part + max(0.0, d - max(c, y1))) / (d - c)


def _ratio_quantile(q, *abcd):
    lo, hi = K * abcd[0] / abcd[3], K * abcd[1] / abcd[2]
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _ratio_cdf(mid, *abcd) < q else (lo, mid)
    return (lo + hi) / 2


def test_two_uniform_inputs_match_their_analytic_percentiles():
    """The main run's line is K × price / MFU (K by hand above). With the price uniform on
    [2, 4] USD/GPU-h and the MFU uniform on [0.3, 0.5], its P10 / P50 / P90 are those of the
    ratio distribution, computed here from its CDF. The Monte Carlo error of a q-quantile of n
    draws is √(q(1 − q)/n) / f(z_q) (f the density, by finite difference of the CDF); the
    simulated percentiles must lie within 4 such errors."""
    abcd = (2.0, 4.0, 0.3, 0.5)
    d = _sim({"price_usd_per_gpu_hour": [2.0, 4.0], "mfu": [0.3, 0.5]})
    x = d.line_usd["compute.pretraining.main"]
    for q in (0.1, 0.5, 0.9):
        z = _ratio_quantile(q, *abcd)
        h = z * 1e-4
        density = (_ratio_cdf(z + h, *abcd) - _ratio_cdf(z - h, *abcd)) / (2 * h)
        se = math.sqrt(q * (1 - q) / N) / density
        assert abs(np.quantile(x, q) - z) < 4 * se, (q, np.quantile(x, q), z, se)
        assert se / z < 0.005  # the test can tell a 2% error apart
    # the mean: E[price] × E[1/MFU] = 3 × ln(0.5/0.3)/0.2, by hand
    assert x.mean() == pytest.approx(K * 3 * math.log(0.5 / 0.3) / 0.2, rel=0.005)


def test_tornado_sorts_inputs_by_swing_against_the_point_bill():
    d = _sim({"mfu": [0.3, 0.5], "price_usd_per_gpu_hour": [3.5, 4.5],
              "ckpt_restart_s": [300, 900]}, samples=2_000)
    t = d.tornado()
    assert list(t["swing_usd"]) == sorted(t["swing_usd"], reverse=True)
    assert t.iloc[0]["input"] == "mfu" and t.iloc[-1]["input"] == "ckpt_restart_s"
    row = t.set_index("input").loc["mfu"]
    # the MFU at its P10 (0.32) and P90 (0.48), the price and restart at their midpoints:
    # the same totals as the point bill of those numbers
    for col, mfu in (("total_at_p10_usd", 0.32), ("total_at_p90_usd", 0.48)):
        plain = ledger.build_ledger({"mfu": mfu, "price_usd_per_gpu_hour": 4.0,
                                     "ckpt_restart_s": 600.0})
        assert row[col] == pytest.approx(plain.total_usd, rel=1e-12)


def test_predicted_mfu_band_enters_as_a_range_with_the_prediction_as_its_mode():
    pred = {"value": 0.45, "from": "predicted", "plan": "tp8",
            "band": {"low": 0.40, "high": 0.52, "text": "±12%"}}
    d = _sim({"mfu": 0.45, "_mfu_prediction": pred}, samples=20_000)
    # two-piece: the prediction is the draws' median as well as their mode (half each side);
    # the band's ends its P5 and P95 (ends widened from the mode by 1 / (1 − √0.1))
    w = 1 / (1 - 0.1 ** 0.5)
    assert d.ranges["mfu"] == Range("two_piece", low=0.45 - 0.05 * w, mode=0.45,
                                    high=0.45 + 0.07 * w)
    assert np.mean(d.inputs["mfu"] < 0.45) == pytest.approx(0.5, abs=0.01)
    assert d.point.figures["mfu"] == 0.45  # the point stays the prediction
    assert np.mean(d.inputs["mfu"] < 0.40) == pytest.approx(0.05, abs=0.005)
    assert np.mean(d.inputs["mfu"] > 0.52) == pytest.approx(0.05, abs=0.005)
    assert "band 40.0%-52.0%" in d.point.figures["mfu_source"]


# ------------------------------------------------------------------------------ where it shows
def test_notebooks_use_the_point_and_say_so(capsys):
    p = validate_parameters(mfu=[0.3, 0.5], price_usd_per_gpu_hour={"low": 2, "mode": 3,
                                                                    "high": 5},
                            interactive=False)
    assert p["mfu"] == pytest.approx(0.4) and p["price_usd_per_gpu_hour"] == 3.0
    out = capsys.readouterr().out
    assert "mfu is a range (uniform 0.3-0.5): this page uses its midpoint 0.4" in out
    assert "its mode 3" in out and "notebook 00" in out
    assert point_scenario({"mfu": Range("uniform", low=0.2, high=0.4)})["mfu"] == \
        pytest.approx(0.3)


def test_a_reports_mfu_band_is_said_as_what_it_is(capsys):
    # A trial: every page of a `mfu: predict` report opened with "mfu is a range (triangular
    # 0.1844 / 0.2175 / 0.2652): this page uses its mode 0.2175" though the file said predict.
    # The pages that declare mfu all declare mfu_band, which the report sets with the band
    # (drawn widened, montecarlo.band_drawn: the band's ends are the draws' P5 and P95)
    from llmcost.bill.montecarlo import band_drawn
    band = {"low": 0.1844, "mode": 0.2175, "high": 0.2652}
    drawn = band_drawn(0.1844, 0.2175, 0.2652).to_yaml()
    assert drawn["low"] < 0.1844 and drawn["high"] > 0.2652
    validate_parameters(mfu=drawn, mfu_band="predicted", interactive=False)
    out = capsys.readouterr().out
    assert ("mfu is the step-time model's prediction (mfu: predict), 21.8% (its band 18.4% to "
            "26.5%): this page uses 21.8%") in out and "is a range" not in out
    validate_parameters(mfu=band, mfu_band="pilot", interactive=False)
    assert "mfu is the pilots' MFU extrapolated to this plan (pilot), 21.8%" in \
        capsys.readouterr().out
    validate_parameters(mfu=band, interactive=False)  # the scenario's own range: its words
    assert "mfu is a range (triangular 0.1844 / 0.2175 / 0.2652)" in capsys.readouterr().out
    from llmcost.present.report import declared_parameters, list_notebooks
    for nb in list_notebooks():
        if "mfu" in declared_parameters(nb):
            assert "mfu_band" in declared_parameters(nb), nb.stem


def test_ranged_bill_labels_the_point_it_prices():
    bill = ledger.build_ledger({"mfu": [0.3, 0.5], **PRICE})
    assert bill.figures["mfu"] == pytest.approx(0.4)
    assert bill.figures["mfu_source"] == ("midpoint of the range uniform 0.3-0.5, priced in the "
                                          "point bill; the P10–P90 draw from the range")
    assert isinstance(bill.scenario["mfu"], Range)
    assert ledger.with_changes(bill, price_usd_per_gpu_hour=2.0).figures["mfu"] == \
        pytest.approx(0.4)


def _cli(*args):
    return run_cli(*args)  # in this process (tests/_cli.py)


@pytest.fixture
def ranged_yaml(tmp_path):
    path = tmp_path / "ranged.yaml"
    path.write_text("model: llama-2-70b\nmfu: [0.3, 0.5]\nprice_usd_per_gpu_hour: "
                    "{low: 2.0, mode: 3.0, high: 4.5}\nfail_rate_per_gpu_year: "
                    "{dist: lognormal, p10: 0.08, p90: 0.4}\n", encoding="utf-8")
    return path


def test_estimate_prints_percentiles_and_the_tornado(ranged_yaml):
    r = _cli("estimate", "--scenario", str(ranged_yaml), "--samples", "2000")
    assert r.returncode == 0, r.stderr
    assert "P10" in r.stdout and "P90" in r.stdout and "do not add up" in r.stdout
    assert "what drives the spread" in r.stdout
    tornado = r.stdout.split("what drives the spread")[1]  # the largest swing first
    assert tornado.index("price_usd_per_gpu_hour") < tornado.index("fail_rate_per_gpu_year")
    bad = _cli("estimate", "--scenario", str(ranged_yaml), "--samples", "0")
    assert bad.returncode != 0 and "samples=0" in bad.stderr


def test_estimate_json_and_csv_carry_percentiles_per_line(ranged_yaml):
    js = json.loads(_cli("estimate", "--scenario", str(ranged_yaml), "--samples", "2000",
                         "--format", "json").stdout)
    main = js["bill.lines"]["compute.pretraining.main"]
    assert main["p10_usd"] < main["p50_usd"] < main["p90_usd"]
    assert js["bill.total_p10_usd"] < js["bill.total_p90_usd"] and js["bill.samples"] == 2000
    # the scenario's three ranges, and the exploratory fraction it gives as a number gets
    # Cottier et al. 2024's spread (ledger.HEADLINE_RULE), said so
    assert set(js["bill.ranges"]) == {"mfu", "price_usd_per_gpu_hour", "fail_rate_per_gpu_year",
                                      "ledger_exploratory_fraction"}
    assert js["bill.range_kinds"] == {"mfu": "scenario", "price_usd_per_gpu_hour": "scenario",
                                      "fail_rate_per_gpu_year": "scenario",
                                      "ledger_exploratory_fraction": "illustrative"}
    # Cottier et al.'s own; by hand, the cut at x = 0 (x + 1 = 1) removes Φ(−μ/σ) = 1.6% of
    # the mass (μ = ln √(1.37 · 3.501) = 0.784, σ = ln(3.501 / 1.37) / 2.563 = 0.366), so x's
    # own P10 is e^{μ + σ Φ⁻¹(0.016 + 0.1 × 0.984)} − 1 = 0.41, its P90 2.51 (the tornado's)
    assert js["bill.ranges"]["ledger_exploratory_fraction"] == (
        "lognormal of x + 1, P10 1.37, P90 3.501, cut to 0-10 (x drawn: P10 0.4101, P90 2.512)")
    csv = _cli("estimate", "--scenario", str(ranged_yaml), "--samples", "2000", "--format",
               "csv").stdout.splitlines()
    assert csv[0].endswith("mean_usd,p10_usd,p50_usd,p90_usd,bill_range_state")


def test_report_bill_carries_the_ranges(ranged_yaml):
    bill = estimate_ledger(ranged_yaml)
    s = _bill({k: point(v) for k, v in bill.scenario.items()}, bill.scenario, samples=2000)
    assert s["bill.total_usd"] == pytest.approx(bill.total_usd)  # the point bill
    assert s["bill.total_p10_usd"] < bill.total_usd < s["bill.total_p90_usd"]
    assert {r["input"] for r in s["bill.tornado"]} == set(s["bill.ranges"])
    assert s["bill.range_state"] == "scenario"


@pytest.mark.parametrize("extra", [{}, {"pricing": "spot", "ledger_spot_restart_s": [900, 3600],
                                        "ledger_spot_preemptions_per_node_day": 1 / 7},
                                   {"pricing": "owned", "price_usd_per_gpu_hour": None,
                                    "ledger_owned_usd_per_gpu": [2.5e4, 3.5e4],
                                    "ledger_electricity_usd_per_kwh": [0.05, 0.12]},
                                   {"ledger_lora_tokens": [1e9, 1e10], "rl_iterations": 200,
                                    "ledger_eval_requests": [1e5, 1e6],
                                    "ledger_synthetic_tokens": [1e8, 1e9]}])
def test_each_draw_is_the_scalar_bill_of_its_inputs(extra):
    """The broadcast bill is the point bill's arithmetic: draw i of every line equals
    build_ledger with the inputs set to draw i's numbers (checked on 4 draws)."""
    sc = {**WIDE, **extra}
    if sc.get("pricing") == "owned":
        sc.pop("price_usd_per_gpu_hour")
        sc["price_usd_per_gpu_hour"] = None
    d = ledger.simulate_ledger(sc, samples=200, seed=3)
    # checkpoint storage is provisioned once, from the point bill's plan: every draw uses it
    bw = d.point.figures["ckpt_storage_bytes_per_s"]
    for i in (0, 1, 57, 199):
        plain = ledger.build_ledger({**sc, **{k: float(v[i]) for k, v in d.inputs.items()},
                                     "ckpt_storage_bytes_per_s": bw})
        for ln in plain.lines:
            if ln.usd is not None:
                assert d.line_usd[ln.key][i] == pytest.approx(ln.usd, rel=1e-12, abs=1e-9), ln.key


def test_illustrative_ranges_come_from_the_sources():
    # data/prices.csv, current H100 SXM on-demand rows: $2.69, 3.99, 6.155, 6.88, 12.29 (RunPod
    # ... Azure, as tests/test_cli_estimate.py lists them): by hand, P25 = 3.99 and P75 = 6.88
    # (linear quantiles of five values: the 2nd and 4th), median 6.155, so r = (6.88 - 3.99) /
    # (2 × 6.155) = 0.23477 and the range is 3.99 × (1 ± r) = 3.0533-4.9267 around the
    # scenario's $3.99, which stays in its middle. Cottier et al. 2024 (App. A.6): development
    # compute "a log-normal distribution ... defined by a 90% CI of 1.2x to 4x, leading to a
    # median of 2.2x": the multiplier 1 + x drawn so, x cut to its rule's [0, 10]; by hand the
    # uncut multiplier's median is 1 + 1.19 (data/ledger_defaults.csv: √(1.2 × 4) = 2.191
    # rounded) and its P5 and P95 2.19 × (4 / 1.2)^∓½ = 1.1995 and 3.998
    bill = ledger.build_ledger(PRICE)
    ill = ledger.illustrative_ranges(bill)
    price, why = ill["price_usd_per_gpu_hour"]
    assert (price.low, price.mode, price.high) == pytest.approx((3.0533, 3.99, 4.9267), abs=1e-4)
    assert "interquartile" in why and "$12.29" in why and "±23%" in why
    # the triangle's own P10-P90, which the sentence says (a finance trial read ±23% and drew
    # less): a symmetric triangle of half-width w has P90 = mode + w·(1 − √0.2), by hand
    # 0.23477 × 0.55279 = 0.1298
    assert "whose own P10-P90 is ±13%" in why
    assert price.quantile(0.9) == pytest.approx(3.99 * (1 + 0.23477 * 0.55279), rel=1e-4)
    frac, why = ill["ledger_exploratory_fraction"]
    assert frac.kind == "shifted_lognormal" and (frac.shift, frac.low, frac.high) == (1, 0, 10)
    assert frac.point == pytest.approx(1.19, rel=1e-12)   # the bill's default, exactly
    mu = math.log(2.19)
    sigma = math.log(4.0 / 1.2) / (2 * 1.6448536269514722)
    assert (frac.p10, frac.p90) == pytest.approx(
        (math.exp(mu - 1.2815515655446004 * sigma), math.exp(mu + 1.2815515655446004 * sigma)),
        rel=1e-12)
    # the cut removes Φ((ln 1 − μ)/σ) = 1.6% below 0 (and 5e-6 above 10), drawn inside: the
    # drawn x's P5 and P95 sit near the source's 0.2 and 3.0, a little above (1.6% redrawn)
    d = frac.draws(200_000, 0, "ledger_exploratory_fraction")
    assert d.min() >= 0 and d.max() <= 10
    assert np.percentile(d, [5, 95]) == pytest.approx([0.26, 3.01], abs=0.03)
    assert "1.6% of the log-normal below 0 is left out" in why and "1.2-4 times" in why
    mfu = ill["mfu"][0]
    assert mfu.mode == 0.4 and mfu.low < 0.4 < mfu.high <= 1.0


def test_a_given_exploratory_fraction_keeps_its_range_around_it():
    # Cottier et al. 2024 (data/ledger_defaults.csv exploratory_fraction: median 1.19, 90%
    # interval 0.2-3.0): a fraction the scenario gives keeps that interval's spread relative to
    # the median, by hand for 0.01: 0.01 × 0.2 / 1.19 = 0.00168 and 0.01 × 3.0 / 1.19 = 0.0252,
    # so the headline's exploratory line stays around the scenario's number (a triangle from
    # 0.01 to 3.0 had put nine tenths of its draws above it)
    bill = ledger.build_ledger({**PRICE, "ledger_exploratory_fraction": 0.01})
    frac, why = ledger.illustrative_ranges(bill)["ledger_exploratory_fraction"]
    assert (frac.low, frac.mode, frac.high) == pytest.approx((0.01 * 0.2 / 1.19, 0.01,
                                                              0.01 * 3.0 / 1.19), rel=1e-9)
    assert "0.00168-0.0252" in why and "scenario's 0.01" in why
    head = ledger.headline_draws({**PRICE, "ledger_exploratory_fraction": 0.01}, samples=2000)
    line = head.draws.percentiles("compute.exploratory")
    point_usd = bill.line("compute.exploratory").usd
    assert point_usd == pytest.approx(0.01 * bill.figures["paid_gpu_hours"] * 3.99, rel=1e-9)
    # the line's P10-P90 brackets its point, within the hand-derived ends (the price's spread
    # on top: ±23% here, test_illustrative_ranges_come_from_the_sources)
    assert line["p10"] < point_usd < line["p90"]
    assert line["p90"] < point_usd * 3.0 / 1.19 * 1.3
    # a given 0 is one number: no range, and the reason says so
    zero = ledger.build_ledger({**PRICE, "ledger_exploratory_fraction": 0})
    assert "ledger_exploratory_fraction" not in ledger.illustrative_ranges(zero)
    assert ledger.unranged_inputs(zero, ["mfu", "price_usd_per_gpu_hour"])[
        "ledger_exploratory_fraction"] == ("the scenario sets ledger_exploratory_fraction: 0 "
                                           "(no exploratory compute)")
    # the same relative spread at any given fraction: 2.5 → 0.42-6.3 (a cap at the interval's
    # 3.0 made a given 5 the top of its own range, every draw below the point)
    assert ledger.exploratory_fraction_bounds({"ledger_exploratory_fraction": 2.5}) == \
        pytest.approx((2.5 * 0.2 / 1.19, 2.5, 2.5 * 3.0 / 1.19), rel=1e-9)
    # but never above the key's own bound, 10 (a trial's 5 drew to 5 × 3.0 / 1.19 = 12.6, a
    # range ledger_exploratory_fraction refuses, and stopped notebook 00)
    assert ledger.exploratory_fraction_bounds({"ledger_exploratory_fraction": 5.0}) == \
        pytest.approx((5.0 * 0.2 / 1.19, 5.0, 10.0), rel=1e-9)
    assert ledger.exploratory_fraction_bounds({"ledger_exploratory_fraction": 10.0})[2] == 10.0
    # a range of zero width is its number (a trial's [0.5, 0.5] drew Cottier et al.'s default
    # log-normal, P50 $282 on a $118 line, while 0.5 drew 0.084 / 0.5 / 1.26): the same spread
    pin = scenario.validate_parameter("ledger_exploratory_fraction", [0.5, 0.5])
    assert ledger.exploratory_fraction_bounds({"ledger_exploratory_fraction": pin}) == \
        pytest.approx((0.5 * 0.2 / 1.19, 0.5, 0.5 * 3.0 / 1.19), rel=1e-9)
    drawn = ledger.illustrative_ranges(ledger.build_ledger(
        {**PRICE, "ledger_exploratory_fraction": pin}))["ledger_exploratory_fraction"][0]
    assert (drawn.kind, drawn.low, drawn.mode) == ("triangular", pytest.approx(0.5 * 0.2 / 1.19),
                                                   0.5)
    # so are a zero-width price and a zero-width 0 (a review: [2.99, 2.99] lost the price's
    # catalogue spread, said to have fewer than two prices; [0, 0] was said priced otherwise)
    for key, v in (("price_usd_per_gpu_hour", 3.99), ("ledger_exploratory_fraction", 0.0)):
        num = ledger.build_ledger({**PRICE, key: v})
        pinned = ledger.build_ledger({**PRICE, key: scenario.validate_parameter(key, [v, v])})
        assert ledger.illustrative_ranges(pinned).get(key) == \
            ledger.illustrative_ranges(num).get(key)
        assert ledger.unranged_inputs(pinned, ["mfu"]).get(key) == \
            ledger.unranged_inputs(num, ["mfu"]).get(key)
    high = ledger.build_ledger({**PRICE, "ledger_exploratory_fraction": 5.0})
    assert ledger.headline_draws(high.scenario, samples=200, seed=0) is not None
    # no fraction given: the source's own log-normal (test_illustrative_ranges_come_from_the_
    # sources), its point the median 1.19
    base = ledger.illustrative_ranges(ledger.build_ledger(PRICE))["ledger_exploratory_fraction"][0]
    assert base.kind == "shifted_lognormal" and base.point == pytest.approx(1.19, abs=0.001)


def test_predicted_mfu_band_reaches_estimate(tmp_path):
    path = tmp_path / "predict.yaml"
    path.write_text("model: llama-2-70b\nn_gpus: 2048\nmfu: predict\n", encoding="utf-8")
    bill = estimate_ledger(path)
    pred = bill.scenario["_mfu_prediction"]
    d = ledger.simulate_ledger(bill.scenario, samples=1000)
    r = d.ranges["mfu"]
    # its band capped where no comparable run measured more: the whole band cut at the cap,
    # its low end the draws' P5 (montecarlo.band_drawn)
    assert r.kind == "two_piece_cut" and r.quantile(0.05) == pytest.approx(pred["band"]["low"])
    assert r.cut == pytest.approx(pred["band"]["high"]) and r.point == pytest.approx(pred["value"])
    assert d.point.total_usd == pytest.approx(bill.total_usd, rel=1e-12)


def test_report_pages_use_the_point_and_the_summary_carries_the_ranges(ranged_yaml, tmp_path):
    from llmcost import report

    out = tmp_path / "out"
    report.run_report(ranged_yaml, out, selection=["01"], progress=lambda s: None)
    page = (out / "01_flops.html").read_text(encoding="utf-8")
    assert "mfu is a range (uniform 0.3-0.5): this page uses its midpoint 0.4" in page
    # the page opens with its answer, the note after it (core.shown.print_after_answer; a
    # trial read eight pages that each opened on the note)
    answer = page.index("(counted as MFU counts them")
    assert answer < page.index("mfu is a range") < page.index("Every training bill starts")
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["scenario"]["mfu"] == [0.3, 0.5]  # the scenario-file form
    bill = summary["bill"]
    assert bill["bill.ranges"]["mfu"] == "uniform 0.3-0.5"
    assert bill["bill.total_p10_usd"] < bill["bill.total_usd"] < bill["bill.total_p90_usd"]
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "<th>P10</th>" in index and "do not add up" in index


def test_compare_draws_pairs_the_draws():
    """Before: MFU uniform 0.3-0.5 at $4/GPU-h; after: the same MFU draws at $3. The main
    line's saving per draw is K × (4 − 3) / MFU, whose P10 and P90 are K/0.48 and K/0.32 (the
    MFU's P90 and P10, by hand): paired draws, not two independent spreads (which would give a
    difference spreading both ways)."""
    # storage fixed: a lower GPU price would otherwise size a slower storage (less worth buying)
    bw = {"ckpt_storage_bytes_per_s": 2.5e11}
    before = _sim({"mfu": [0.3, 0.5], "price_usd_per_gpu_hour": 4.0, **bw})
    after = _sim({"mfu": [0.3, 0.5], "price_usd_per_gpu_hour": 3.0, **bw})
    df = ledger.compare_draws(before, after, names=("before", "after")).set_index("line")
    row = df.loc["pre-training compute"]
    assert -row["difference p90 usd"] == pytest.approx(K / 0.48, rel=0.003)
    assert -row["difference p10 usd"] == pytest.approx(K / 0.32, rel=0.003)
    assert (df["difference p90 usd"] <= 1e-6).all()  # a lower price saves in every line
    with pytest.raises(ValueError, match="samples and seed"):
        ledger.compare_draws(before, _sim({"mfu": [0.3, 0.5]}, samples=10))


# ------------------------------------------------------------------------------ review fixes
@pytest.mark.parametrize("kwargs, rule", [
    (dict(kind="uniform", low=0.5, high=0.3), "low <= high"),
    (dict(kind="triangular", low=0.3, mode=0.9, high=0.5), "low <= mode <= high"),
    (dict(kind="lognormal", p10=0.5, p90=0.1), "0 < p10 <= p90"),
    (dict(kind="lognormal", p10=-0.1, p90=0.1), "0 < p10 <= p90"),
    (dict(kind="uniform"), "exactly the keys low, high"),
    (dict(kind="uniform", low=0.1, high=0.2, p10=0.1), "unknown p10"),
    (dict(kind="uniform", low=float("nan"), high=0.2), "finite number"),
    (dict(kind="normal", low=0.1, high=0.2), "must be one of"),
])
def test_a_range_object_is_checked_like_the_scenario_forms(kwargs, rule):
    """Range(...) made directly obeys the rules of the list and mapping forms (a triangle with
    its mode outside [low, high] would draw outside its bounds)."""
    with pytest.raises(ValueError, match=rule.replace("(", r"\(").replace(")", r"\)")):
        Range(**kwargs)


def test_the_list_and_mapping_forms_give_the_same_rule_as_range_objects():
    for value, rule in (([0.5, 0.3], "low <= high"),
                        ({"low": 0.3, "mode": 0.9, "high": 0.5}, "low <= mode <= high"),
                        ({"dist": "lognormal", "p10": 0.5, "p90": 0.1}, "0 < p10 <= p90")):
        with pytest.raises(ValueError, match=f"mfu=.*{rule}"):
            parse_range("mfu", value)


def test_a_pilot_replaces_a_ranged_mfu():
    """A pilot measures the MFU: calibrating a bill whose mfu is a range gives the pilot's MFU
    (900 tokens/s per GPU on Llama 2 70B at 4,096 tokens on H100 SXM: MFU = 900 × FLOPs per
    token ÷ 989.4e12, the hand count of this file's header), no longer a range."""
    bill = ledger.build_ledger({**PRICE, "mfu": [0.3, 0.5]})
    cal = ledger.with_changes(bill, ledger_pilot_tokens_per_s_per_gpu=900.0)
    flops_per_token = 3 * (2 * N_MATMUL + CORE_FWD_4K)
    assert cal.figures["mfu"] == pytest.approx(900.0 * flops_per_token / H100_BF16, rel=1e-9)
    assert "pilot" in cal.figures["mfu_source"]
    assert ledger.scenario_ranges(cal.scenario).get("mfu") is None
    with pytest.raises(ScenarioError, match="mfu is a range and ledger_pilot"):  # both at once
        ledger.build_ledger({"mfu": [0.3, 0.5], "ledger_pilot_tokens_per_s_per_gpu": 900.0})


def test_notebook_00_runs_its_ranged_branch(ranged_yaml, tmp_path):
    """Notebook 00 with a scenario of ranges (a ranged mfu among them) runs to the end in a
    report: its Monte Carlo cells take the scenario's own ranges and Step 6's pilot replaces
    the ranged MFU."""
    from llmcost import report

    out = tmp_path / "out"
    res = report.run_report(ranged_yaml, out, selection=["00"], progress=lambda s: None)
    assert res.failed == [], res.failed
    nb = json.loads((out / "00_index.ipynb").read_text(encoding="utf-8"))
    text = "".join("".join(o.get("text", "")) for c in nb["cells"] if c["cell_type"] == "code"
                   for o in c.get("outputs", []))
    assert "Error" not in text and "FAILED" not in text
    # counted, not typed: the scenario's MFU, price and failure rate, and exploration's spread
    assert "4 input(s) ranged, from the scenario's ranges on the MFU" in text
    assert "mfu: uniform 0.3-0.5" in text
    assert "tokens/s per GPU -> MFU" in text


@pytest.mark.parametrize("changes, key, rule", [
    ({"ledger_resumable": False,
      "fail_rate_per_gpu_year": {"dist": "lognormal", "p10": 0.001, "p90": 0.5}},
     "fail_rate_per_gpu_year", "never finishes"),
    ({"pricing": "spot", "price_usd_per_gpu_hour": 2.0, "ledger_spot_restart_s": 1800.0,
      "ledger_spot_preemptions_per_node_day": [0.1, 4.0]},
     "ledger_spot_preemptions_per_node_day", "goodput >= 1e-6"),
    ({"pricing": "spot", "price_usd_per_gpu_hour": 2.0,
      "ledger_spot_preemptions_per_node_day": 1 / 7,
      "ledger_spot_restart_s": {"dist": "lognormal", "p10": 600, "p90": 1e6}},
     "ledger_spot_restart_s", "all of the wall-clock time"),
])
def test_an_error_in_some_draws_names_the_key_the_part_and_the_count(changes, key, rule):
    """The message names the ranged key, the part of its range that breaks the rule and how
    many draws do; the count is checked against the scalar bill of each draw."""
    with pytest.raises(ScenarioError) as ei:
        ledger.simulate_ledger({**PRICE, **changes}, samples=400, seed=0)
    msg = str(ei.value)
    assert f"{key} (" in msg and "draws above" in msg and rule in msg and "in (" not in msg
    # a draw that never finishes keeps its kind through the draws' message (the type a lever's
    # saving reads: −inf), and only such a draw
    from llmcost.bill.scenario import ScenarioNeverFinishes
    assert isinstance(ei.value, ScenarioNeverFinishes) == ("never finishes" in msg)
    n_bad = int(msg.split(" break a rule in ")[1].split(" of 400")[0].replace(",", ""))
    r = parse_range(key, changes[key])
    # checkpoint storage is provisioned once, at the point bill's plan: every draw uses it
    bw = ledger.build_ledger(ledger.point_scenario({**PRICE, **changes})).figures[
        "ckpt_storage_bytes_per_s"]
    fixed = {"ckpt_storage_bytes_per_s": bw} if bw is not None else {}
    bad = 0
    for x in r.draws(400, 0, key):
        try:
            ledger.build_ledger({**PRICE, **changes, key: float(x), **fixed})
        except ScenarioError:
            bad += 1
    assert n_bad == bad and 0 < bad < 400


def test_spot_that_never_progresses_is_a_value_error_naming_the_rule():
    spot = {"pricing": "spot", "price_usd_per_gpu_hour": 2.0}
    with pytest.raises(ScenarioError, match="ledger_spot_preemptions_per_node_day=200.*goodput >= 1e-6"):
        ledger.build_ledger({**spot, "ledger_spot_preemptions_per_node_day": 200})
    # a range whose point already breaks the rule says the point is the range's midpoint
    with pytest.raises(ScenarioError, match=r"goodput >= 1e-6.*ledger_spot_preemptions_per_node_day"
                       r" = 100(\.\d)?, the midpoint of uniform 0\.1-200"):
        ledger.simulate_ledger({**spot, "ledger_spot_preemptions_per_node_day": [0.1, 200]},
                               samples=10)


def test_samples_have_a_stated_cap():
    with pytest.raises(ScenarioError, match="from 1 to 1,000,000"):
        ledger.simulate_ledger({"mfu": [0.3, 0.5]}, samples=300_000_000)
    from llmcost import SCENARIO_DIR
    out = _cli("estimate", "--scenario", str(SCENARIO_DIR / "default.yaml"), "--samples",
               "300000000")
    assert out.returncode != 0 and "from 1 to 1,000,000" in out.stderr
    assert "Traceback" not in out.stderr


def test_one_sample_warns_that_its_percentiles_are_the_draw(ranged_yaml):
    out = _cli("estimate", "--scenario", str(ranged_yaml), "--samples", "1")
    assert out.returncode == 0 and "percentiles of one draw" not in out.stdout
    assert "of one draw are that draw" in out.stderr


def test_range_plots_label_their_scale_and_the_point_bill():
    import matplotlib
    matplotlib.use("Agg")
    from llmcost import plots

    d = _sim({"mfu": [0.3, 0.5]}, samples=1000)
    ax = plots.bill_distribution(d, scale=1e3)
    assert ax.get_xlabel() == "whole bill, USD (thousands)"
    assert ax.get_ylabel() == "probability density (per 1,000 USD)"
    ax = plots.tornado(d.tornado(), scale=1e9)
    assert ax.get_xlabel().startswith("whole bill, USD (billions)")
    assert any(ln.get_label().startswith("point bill") for ln in ax.get_lines())


def test_pue_takes_a_range_and_each_draw_is_its_scalar_bill():
    """ledger_pue 1.1-1.25 (data/ledger_defaults.csv's sourced range) on owned hardware, where
    energy is paid: every draw is the scalar bill at that PUE, and the bill rises with PUE."""
    sc = {"pricing": "owned", "ledger_pue": [1.1, 1.25]}
    d = ledger.simulate_ledger(sc, samples=200)
    xs = d.inputs["ledger_pue"]
    for i in (0, 57, 199):
        b = ledger.build_ledger({**sc, "ledger_pue": float(xs[i])})
        assert d.total_usd[i] == pytest.approx(b.total_usd, rel=1e-9)
    order = np.argsort(xs)
    assert np.all(np.diff(d.total_usd[order]) >= -1e-6)


@pytest.mark.parametrize("key, value", [("rl_train_mfu", [0.3, 0.5]),
                                        ("rl_verifier_usd_per_sample", [0.0, 0.01]),
                                        ("serve_occupancy", [0.7, 0.95])])
def test_not_yet_rangeable_keys_say_so(key, value):
    with pytest.raises(ScenarioError, match=f"{key} cannot take a range yet"):
        ledger.build_ledger({key: value})


def test_notebook_00_prints_whole_sentences_for_its_ranges():
    """The ranges cell of notebook 00 (as committed, executed) prints each range's source
    sentence whole: every listed range ends with its closing parenthesis, none is cut."""
    from llmcost.present.report import list_notebooks

    nb = json.loads(next(p for p in list_notebooks(["00"])).read_text(encoding="utf-8"))
    cell = next(c for c in nb["cells"] if c["cell_type"] == "code"
                and "draws.ranges.items()" in "".join(c["source"]))
    assert "[:" not in "".join(cell["source"])
    lines = "".join("".join(o.get("text", "")) for o in cell["outputs"]).splitlines()
    listed = [ln for ln in lines if ln.startswith("  ")]
    assert listed and all(ln.endswith(")") for ln in listed)


def test_one_range_per_bill_the_index_and_notebook_00_draw_the_same(tmp_path):
    """A scenario with a predicted MFU and a price range: the report's bill (index.html,
    summary.json) and notebook 00's headline P10/P50/P90 come from the same draws: notebook 00
    receives the predicted MFU with its band as a range (mode: the prediction), as the bill
    draws it, not the price range alone."""
    import llmcost
    from llmcost import report
    from llmcost.bill.scenario import LEDGER_DEFAULTS

    text = (llmcost.SCENARIO_DIR / "default.yaml").read_text(encoding="utf-8")
    text = text.replace("\nmfu: 0.4\n", "\nmfu: predict\n")
    text = "\n".join("price_usd_per_gpu_hour: [2.5, 4.5]" if ln.startswith(
        "price_usd_per_gpu_hour:") else ln for ln in text.splitlines())
    path = tmp_path / "predict.yaml"
    path.write_text(text, encoding="utf-8")
    plan = report.plan_report(path, ["00"])
    nb = plan.notebooks[0]
    params = report._notebook_parameters(nb, plan.scenario, plan.declared)
    pred = plan.scenario["_mfu_prediction"]
    # the mode is the prediction, inside its band even where the band's top is capped at it
    from llmcost.bill.montecarlo import predicted_mfu_range
    assert params["mfu"] == predicted_mfu_range(pred).to_yaml()
    assert predicted_mfu_range(pred).quantile(0.05) == pytest.approx(pred["band"]["low"]) \
        and params["mfu"]["mode"] == pred["value"]
    # notebook 00's draws (its own cells: build_ledger of its parameters, then headline_draws)
    own = ledger.build_ledger({k: v for k, v in params.items() if k in LEDGER_DEFAULTS})
    page = ledger.headline_draws(own.scenario, samples=20_000, seed=0).draws.percentiles()
    index = report._bill(plan.values, plan.scenario, samples=20_000)
    for k in ("p10", "p50", "p90"):
        assert page[k] == pytest.approx(index[f"bill.total_{k}_usd"], rel=1e-9), k
    assert own.total_usd == pytest.approx(index["bill.total_usd"], rel=1e-9)


def test_a_pilot_scenarios_notebook_00_draws_the_index_range(tmp_path):
    """A new-user trial: with two pilots, the index gave P10-P90 $70.9M-$141M and notebook 00
    $61.7M-$132M (the notebook received the calibrated MFU as a plain number and drew an
    illustrative spread around it). Notebook 00 now receives the pilots' band as the range the
    bill draws (low-high, peaked at the calibrated MFU), so both pages give the same figures."""
    import yaml

    from llmcost import report
    from llmcost.bill.scenario import LEDGER_DEFAULTS

    sc = {"model": "llama-3.1-70b", "accelerator": "H100-SXM", "n_gpus": 2048,
          "train_tokens": 15e12, "seq_len": 8192, "global_batch_tokens": 16777216, "tp": 8,
          "pp": 4, "pilot": [{"n_gpus": 64, "tokens_per_s_per_gpu": 800, "tp": 8, "pp": 4},
                             {"n_gpus": 256, "tokens_per_s_per_gpu": 760, "tp": 8, "pp": 4}]}
    path = tmp_path / "pilot.yaml"
    path.write_text(yaml.safe_dump(sc), encoding="utf-8")
    plan = report.plan_report(path, ["00"])
    params = report._notebook_parameters(plan.notebooks[0], plan.scenario, plan.declared)
    cal = plan.scenario["_mfu_calibration"]
    assert params["pilot"] == [] and params["mfu"]["mode"] == pytest.approx(cal["value"])
    assert params["mfu"]["low"] <= cal["low"] and params["mfu"]["high"] >= cal["high"]
    own = ledger.build_ledger({k: v for k, v in params.items() if k in LEDGER_DEFAULTS})
    page = ledger.headline_draws(own.scenario, samples=20_000, seed=0).draws.percentiles()
    index = report._bill(plan.values, plan.scenario, samples=20_000)
    for k in ("p10", "p50", "p90"):
        assert page[k] == pytest.approx(index[f"bill.total_{k}_usd"], rel=1e-9), k


def _page_00(path):
    """Notebook 00's headline as its own cells compute it from the parameters the report passes
    it (``report._notebook_parameters``), and the index's (``estimate_ledger``, the same rule)."""
    from llmcost import report
    from llmcost.bill.scenario import LEDGER_DEFAULTS

    plan = report.plan_report(path, ["00"])
    params = report._notebook_parameters(plan.notebooks[0], plan.scenario, plan.declared)
    own = ledger.build_ledger({k: v for k, v in params.items() if k in LEDGER_DEFAULTS})
    page = ledger.headline_draws(own.scenario, samples=2_000, seed=0)
    index = ledger.headline_draws(estimate_ledger(path).scenario, samples=2_000, seed=0)
    return params, own, page, index


def test_notebook_00_names_a_predicted_or_pilot_band_as_such(tmp_path):
    """A new-user trial: under mfu: predict notebook 00 said its P10-P90 came from 'the
    scenario's ranges on the MFU' (the report passes the model's band as a range on mfu), and
    under pilots the same of the pilots' band; the index said which band. The report now tells
    the page what the range is (mfu_band), and the page words it as the index does."""
    import llmcost
    from llmcost.present import answers

    text = (llmcost.SCENARIO_DIR / "default.yaml").read_text(encoding="utf-8")
    path = tmp_path / "predict.yaml"
    path.write_text(text.replace("\nmfu: 0.4\n", "\nmfu: predict\n"), encoding="utf-8")
    params, own, page, index = _page_00(path)
    # the bill's MFU is the mode and median of the two-piece range drawn on it (the words
    # below say so), its band cut at its capped top
    assert own.scenario["mfu"].kind == "two_piece_cut"
    assert own.scenario["mfu"].mode == own.figures["mfu"]
    assert params["mfu_band"] == "predicted"
    assert page.kinds["mfu"] == index.kinds["mfu"] == "predicted"
    assert page.basis == index.basis and "the scenario's ranges" not in page.basis
    assert page.basis.startswith("the step-time model's band on its predicted MFU")
    assert own.figures["mfu_source"].startswith("predicted (mfu: predict) by llmcost.step")
    line = answers.pilot_calibration(900.0, 0.41, own.figures["mfu"], page.kinds["mfu"])
    # the bill's MFU is the band's central estimate, not the raw prediction, and the mode of
    # the two-piece range drawn (montecarlo.predicted_mfu_range), its median too: "peak" read as
    # the band's top
    assert line.endswith("the step-time model's, as mfu: predict bills it, the mode and median "
                         "of its band)")
    pilot = tmp_path / "pilot.yaml"
    pilot.write_text(
        "model: llama-3.1-70b\naccelerator: H100-SXM\nn_gpus: 2048\ntrain_tokens: 1.5e13\n"
        "seq_len: 8192\nglobal_batch_tokens: 16777216\ntp: 8\npp: 4\npilot:\n"
        "- {n_gpus: 64, tokens_per_s_per_gpu: 800, tp: 8, pp: 4}\n"
        "- {n_gpus: 256, tokens_per_s_per_gpu: 760, tp: 8, pp: 4}\n", encoding="utf-8")
    params, own, page, index = _page_00(pilot)
    assert params["mfu_band"] == "pilot" and page.kinds["mfu"] == index.kinds["mfu"] == "pilot"
    assert page.basis == index.basis and page.sources["mfu"].startswith("the pilots'")
    # the scenario's own range is still the scenario's, and an MFU given as one number assumed
    mine = tmp_path / "mine.yaml"
    mine.write_text(text.replace("\nmfu: 0.4\n", "\nmfu: [0.35, 0.45]\n"), encoding="utf-8")
    params, own, page, index = _page_00(mine)
    assert "mfu_band" not in params or params["mfu_band"] is None
    assert page.kinds["mfu"] == "scenario" and page.basis == index.basis
    assert answers.pilot_calibration(900.0, 0.41, 0.4, "illustrative").endswith(
        "(the scenario assumes 40.0%)")
    with pytest.raises(ScenarioError, match="mfu_band cannot be set in a scenario"):
        bad = tmp_path / "bad.yaml"
        bad.write_text(text + "mfu_band: predicted\n", encoding="utf-8")
        scenario.load_scenario(bad)


def test_the_headline_says_which_input_it_holds_at_one_number():
    # data/prices.csv holds one current H200 spot row (CoreWeave's pricing page): a price
    # spread needs two (illustrative_ranges), so the headline holds the price, and says why
    # (a trial read a spot bill's range without learning the price was not varied)
    sc = {"accelerator": "H200", "pricing": "spot", "n_gpus": 1024,
          "ledger_spot_preemptions_per_node_day": 1 / 7}
    head = ledger.headline_draws(sc, samples=500)
    assert "price_usd_per_gpu_hour" not in head.kinds
    assert head.held == ("the GPU-hour price held at one number (no sourced spread: 1 current "
                         "spot catalogue price for H200 in data/prices.csv, and a spread "
                         "needs two)")
    # the default scenario ranges all three: nothing held
    assert ledger.headline_draws(PRICE, samples=500).held == ""


def test_range_quantile_and_draws_refuse_bad_input():
    # Range is public (llmcost.Range): its quantile levels, sample count, seed and key are
    # checked with a ValueError naming the value and the rule, not numpy's or statistics' own
    # errors, a NaN or a value outside the range
    tri = Range("triangular", low=1.0, mode=2.0, high=4.0)
    logn = Range("lognormal", p10=1.0, p90=4.0)
    uni = Range("uniform", low=0.0, high=1.0)
    for call, message in ((lambda: tri.quantile("0.1"), r"q='0\.1' must be numbers in \[0, 1\]"),
                          (lambda: uni.quantile(1.5), r"q=1\.5 must be a number in \[0, 1\]"),
                          (lambda: tri.quantile(-0.2), r"q=-0\.2 must be a number in \[0, 1\]"),
                          (lambda: tri.quantile(float("nan")), r"q=nan must be a number"),
                          (lambda: logn.quantile(0), r"q=0\.0 must be a number in \(0, 1\)"),
                          (lambda: tri.draws(-5, 0, "mfu"), r"samples=-5 must be a whole"),
                          (lambda: tri.draws(2.5, 0, "mfu"), r"samples=2\.5 must be a whole"),
                          (lambda: tri.draws(0, 0, "mfu"), r"samples=0 must be a whole"),
                          (lambda: tri.draws(10, -1, "mfu"), r"seed=-1 must be a whole"),
                          (lambda: tri.draws(10, 0, None), r"key=None must be the input's name")):
        with pytest.raises(ValueError, match=message):
            call()
    # by hand: the triangle 1 / 2 / 4 has F(2) = (2 − 1) / (4 − 1) = 1/3, so its 1/3-quantile
    # is the mode and its ends are the 0- and 1-quantiles; the lognormal's P10 is its p10
    assert tri.quantile([0.0, 1 / 3, 1.0]) == pytest.approx([1.0, 2.0, 4.0])
    assert logn.quantile(0.1) == pytest.approx(1.0)
    assert len(tri.draws(np.int64(5), np.int64(3), "mfu")) == 5


def test_draws_of_every_kind_are_paired_rank_for_rank():
    # Common random numbers across kinds: a log-normal and a triangular range on the same key
    # and seed are the quantiles of the same uniform draws, so they rise and fall together (an
    # audit measured a rank correlation of -0.003 when the log-normal drew its own normals);
    # the log-normal still draws its own distribution: P10 and P90 of 200,000 draws within 2%
    # of the given p10 and p90 (by definition of the range; a sample quantile's standard error
    # is √(0.09 / n) / f(x) = 0.34% of P90 here, so 2% is about 6 of them: the uniform draws'
    # own P90 at this seed is 0.897, 3.9 errors low)
    logn = Range("lognormal", p10=0.05, p90=0.5)
    tri = Range("triangular", low=0.05, mode=0.1, high=0.5)
    a = logn.draws(200_000, 7, "fail_rate_per_gpu_year")
    b = tri.draws(200_000, 7, "fail_rate_per_gpu_year")
    assert (np.argsort(a) == np.argsort(b)).all()
    assert np.percentile(a, [10, 90]) == pytest.approx([0.05, 0.5], rel=0.02)


def test_a_shifted_lognormal_range_is_a_scenario_form_bounded_by_its_cut():
    # {dist: shifted_lognormal, p10, p90, shift, low, high}: x + shift lognormal, cut to
    # [low, high]; its ends obey the key's rule (the exploratory fraction's [0, 10]) and it is
    # allowed on a bounded key (a plain lognormal is not); by hand its point is the uncut
    # median √(1.37 × 3.5) − 1 = 1.1897 and its quantile 0 and 1 are its cut's ends
    from llmcost.bill.scenario import validate_ranged_parameters
    r = validate_ranged_parameters(ledger_exploratory_fraction={
        "dist": "shifted_lognormal", "p10": 1.37, "p90": 3.5, "shift": 1, "low": 0,
        "high": 10})["ledger_exploratory_fraction"]
    assert r.point == pytest.approx(math.sqrt(1.37 * 3.5) - 1, rel=1e-12)
    assert r.quantile([0.0, 1.0]) == pytest.approx([0.0, 10.0], abs=1e-12)
    assert r.to_yaml()["dist"] == "shifted_lognormal"
    with pytest.raises(ScenarioError, match=r"range high: ledger_exploratory_fraction=20\.0 "
                                            r"must be in \[0, 10\]"):
        validate_parameters(ledger_exploratory_fraction={
            "dist": "shifted_lognormal", "p10": 1.37, "p90": 3.5, "shift": 1, "low": 0,
            "high": 20})
    with pytest.raises(ValueError, match=r"needs -shift <= low <= high"):
        Range("shifted_lognormal", p10=1.37, p90=3.5, shift=1.0, low=-2.0, high=10.0)


def test_uncut_cdf_is_the_mass_the_cut_redraws():
    # By hand (the exploratory default): μ = ln 2.19, σ = ln(4 / 1.2) / (2 × 1.64485) = 0.36598,
    # Φ((ln 1 − μ)/σ) = Φ(−2.1419) = 0.0161 below x = 0, the share ledger's sentence states
    r = Range("shifted_lognormal", p10=2.19 * math.exp(-1.2815515655446004 * 0.365976),
              p90=2.19 * math.exp(1.2815515655446004 * 0.365976), shift=1.0, low=0.0,
              high=10.0)
    assert r.uncut_cdf(0.0) == pytest.approx(0.0161, abs=5e-4)
    assert r.uncut_cdf(-2.0) == 0.0 and r.uncut_cdf(10.0) > 0.99999
    with pytest.raises(ValueError, match=r"uncut_cdf: a triangular range has no cut"):
        Range("triangular", low=0.0, mode=1.0, high=2.0).uncut_cdf(1.0)
    with pytest.raises(ValueError, match=r"uncut_cdf: range x='1' must be a finite number"):
        r.uncut_cdf("1")


def test_the_index_draws_its_headline_once_for_the_bill_and_the_glance(monkeypatch):
    """The report's index work (``report.IndexWork``: summary.json's bill and the glance with its
    figure) draws the headline draws once and gives both what each gave drawing its own
    (``_bill``, ``_glance``: the same 100,000 draws, seed 0); a scenario whose headline cannot
    be drawn still has its bill, from its own ranges (``simulate_ledger``), as before."""
    from llmcost import SCENARIO_DIR, report
    from llmcost.present import glance

    plan = report.plan_report(SCENARIO_DIR / "default.yaml", ["00"])
    alone_bill = report._bill(plan.values, plan.scenario)
    alone_glance = report._glance(plan.values, plan.scenario, "t")
    calls = []
    real = report.headline_draws

    def counted(*args, **kwargs):
        calls.append(kwargs.get("samples"))
        return real(*args, **kwargs)

    for module in (report, glance):  # the bill draws with the report's, the glance with its own
        monkeypatch.setattr(module, "headline_draws", counted)
    work = report.IndexWork(plan.values, plan.scenario, "t")
    assert work.result("bill") == alone_bill
    assert work.result("glance") == alone_glance
    assert calls == [100_000]  # one draw of the glance's SAMPLES, not one each

    def refused(*args, **kwargs):
        raise ValueError("a sourced spread breaks a rule in some draws")

    for module in (report, glance):
        monkeypatch.setattr(module, "headline_draws", refused)
    work = report.IndexWork(plan.values, plan.scenario, "t")
    fallback = work.result("bill")  # the scenario's own ranges: none, so the point bill
    assert fallback["bill.total_usd"] == pytest.approx(alone_bill["bill.total_usd"], rel=1e-12)
    with pytest.raises(ValueError, match="sourced spread"):
        work.result("glance")


def test_a_page_bill_at_its_bands_cut_top_says_the_top():
    # a new-user trial's MoE on GB300: the page's bill read "25.3%, ... the median of its band
    # two-piece triangular 0.2018 / 0.2528 / 0.3998 cut at 0.2528": the band is cut at its mode,
    # so the median (half its mass is above the mode, taken at the cut) is its top too
    from llmcost import ledger
    from llmcost.bill.ranges import Range
    cut = Range("two_piece_cut", low=0.2018, mode=0.2528, high=0.3998, cut=0.2528)
    said = ledger.scenario_mfu_source({"mfu_band": "predicted", "_ranged": {"mfu": cut}})
    assert said.startswith("predicted (mfu: predict) by llmcost.step, as the report resolved "
                           "it, the median and top of its band two-piece triangular")
    whole = Range("two_piece", low=0.3983, mode=0.4429, high=0.4988)
    said = ledger.scenario_mfu_source({"mfu_band": "predicted", "_ranged": {"mfu": whole}})
    assert ", the median of its band two-piece triangular 0.3983 / 0.4429 / 0.4988" in said


def test_a_compare_across_gpu_generations_draws_each_mfu_apart(tmp_path):
    # A procurement trial: Llama 3.1 70B, mfu: predict, on 4,096 H100 against 4,096 B200: both
    # MFU bands drawn at one quantile, as if the model's error on Blackwell were its error on
    # Hopper, the saving's P10-P90 came out $23M-$29M beside bills of $52M-$67M and $27M-$38M.
    # Predictions on two generations are drawn on their own random numbers
    # (ledger.mfu_draw_keys), so the difference's spread holds both bands': by hand, for
    # independent X and Y, Var(Y − X) = Var(X) + Var(Y), against (σ_Y − σ_X)² for one quantile.
    from llmcost.present import glance
    body = ("model: llama-3.1-70b\nn_gpus: 4096\ntrain_tokens: 1.5e13\nseq_len: 8192\n"
            "global_batch_tokens: 16777216\nmfu: predict\nprice_usd_per_gpu_hour: 4.0\n")
    bills = {}
    for acc in ("H100-SXM", "H200", "B200"):
        path = tmp_path / f"{acc}.yaml"
        path.write_text(body + f"accelerator: {acc}\n")
        bills[acc] = estimate_ledger(path)
    h100, h200, b200 = bills["H100-SXM"], bills["H200"], bills["B200"]
    ka, kb, words = ledger.mfu_draw_keys(h100, b200)
    assert ka is None and kb["mfu"].startswith("mfu, Blackwell")
    assert words.startswith("the two MFUs are the step-time model's predictions on different "
                            "GPU generations (Hopper in A, Blackwell in B)")
    assert ledger.mfu_draw_keys(h100, h200) == (None, None, None)   # one generation: paired
    df = glance.compare_bills([h100, b200], ("H100", "B200"), samples=20_000)
    assert df.attrs["mfu_draw_note"] == words
    apart = [ledger.simulate_ledger(ledger.own_ranged_scenario(b), samples=20_000, keys=k)
             for b, k in ((h100, ka), (b200, kb))]
    paired = [ledger.simulate_ledger(ledger.own_ranged_scenario(b), samples=20_000)
              for b in (h100, b200)]
    d_apart = apart[1].total_usd - apart[0].total_usd
    d_paired = paired[1].total_usd - paired[0].total_usd
    sa, sb = np.std(apart[0].total_usd), np.std(apart[1].total_usd)
    assert np.std(d_apart) == pytest.approx(math.hypot(sa, sb), rel=0.05)
    assert np.std(d_paired) < 0.6 * np.std(d_apart)
    total = df.iloc[-1]
    p10, p90 = np.quantile(d_apart, [0.1, 0.9])
    assert total["difference p10 usd"] == pytest.approx(p10, rel=1e-9)
    assert total["difference p90 usd"] == pytest.approx(p90, rel=1e-9)
    # the terminal says so
    a_path, b_path = tmp_path / "H100-SXM.yaml", tmp_path / "B200.yaml"
    out = run_cli("estimate", "--scenario", str(a_path), "--compare", str(b_path),
                  "--samples", "2000").stdout
    assert "but the MFU: the two MFUs are the step-time model's predictions" in " ".join(
        out.split())


def test_an_mfu_range_is_said_in_percent_with_the_band_it_was_drawn_for():
    # A trial read the bill's note "mfu (two-piece triangular 0.06622 / 0.1198 / 0.2579, ...)"
    # beside its heading's "band 8.3%–21.4%", one range in two forms. By hand, a two-piece
    # range around m = 12% whose P5 and P95 are 8.3% and 21.4% has its ends at
    # m − (m − 8.3%) / (1 − √0.1) = 6.59% and m + (21.4% − m) / (1 − √0.1) = 25.7%.
    import math

    from llmcost.bill.montecarlo import band_drawn
    from llmcost.bill.ranges import range_words
    r = band_drawn(0.083, 0.12, 0.214)
    k = 1 - math.sqrt(0.1)
    lo, hi = 0.12 - (0.12 - 0.083) / k, 0.12 + (0.214 - 0.12) / k
    assert (r.low, r.high) == (pytest.approx(lo), pytest.approx(hi))
    assert range_words("mfu", r) == (f"two-piece triangular {lo:.1%} / 12.0% / {hi:.1%}, median "
                                     "12.0%: half the draws each side; P5 8.3%, P95 21.4%")
    # another fraction in percent, without a band; any other input as before
    tri = Range("triangular", low=0.0, mode=0.1, high=0.3)
    assert range_words("ledger_reserve_fraction", tri) == "triangular 0.0% / 10.0% / 30.0%"
    assert range_words("price_usd_per_gpu_hour", tri) == tri.describe()
