"""The error band of a predicted MFU (llmcost.accuracy) and the validation split (issue 9)."""

import pandas as pd
import pytest

import llmcost
from llmcost import accuracy, parallel, step
from llmcost.hardware import Cluster


@pytest.fixture(scope="module")
def table():
    return accuracy.validation_table()


def test_validation_rows_share_the_published_runs_id_space(table):
    runs = set(llmcost.load_published_runs()["run_id"])
    assert set(table["run_id"]) <= runs
    assert set(table["split"]) == {"calibration", "held-out"}
    # the calibration set is Korthikanti et al. 2022 Table 4's layer; the one MFU row on that
    # layer (their 22B run) is the only in-sample row
    assert list(table.loc[table["split"] == "calibration", "run_id"]) == ["korthikanti22-22b"]


def test_summary_names_every_set_with_its_split(table):
    summary = step.set_summary(table)
    assert set(summary.index.get_level_values("set")) == set(step.VALIDATION_SETS
                                                              + step.OUTSIDE_SETS)
    held = summary.xs("held-out", level="split")
    assert (held["n"] >= 1).all() and not held["in_sample"].any()
    assert summary.loc[("korthikanti22-table5", "calibration"), "in_sample"]


def test_band_is_the_regimes_largest_held_out_error(table):
    # H100, Megatron-style plan at 8,192-16,384 GPUs: Llama 3 Table 4's two 8K rows are the
    # regime (n = 2); the band is ± their largest |error|.
    rows = table[(table["set"] == "llama3-table4") & (table["kind"] == "tp-pp-dp")]
    w = rows["error"].abs().max()
    band = accuracy.mfu_band(0.40, "H100-SXM", 16384, n_params=405e9)
    assert band.validated and band.n == 2 and band.half_width == pytest.approx(w)
    assert band.low == pytest.approx(0.40 / (1 + w)) and band.high == pytest.approx(0.40 / (1 - w))
    assert "n = 2" in band.describe()


def test_zero3_band_says_upper_bound(table):
    band = accuracy.mfu_band(0.45, "A100-80GB", 768, zero_stage=3)
    assert band.validated and band.n == 6 and band.half_width > 1
    assert band.high == pytest.approx(0.45) and band.low < 0.45 / 2
    assert any("upper bound" in w for w in band.warnings)


def test_outside_every_regime_gets_the_wide_default_and_a_warning():
    band = accuracy.mfu_band(0.40, "MI300X", 1024)
    assert not band.validated and band.half_width == accuracy.DEFAULT_BAND_FRACTION
    assert any("outside every validated regime" in w for w in band.warnings)
    far = accuracy.mfu_band(0.40, "H100-SXM", 8)   # 8 GPUs: 1,024x below Llama 3's runs
    assert not far.validated and "more than 4× away" in far.warnings[0]


def test_above_the_best_published_mfu_is_flagged():
    # Megatron-LM README: "up to 47% MFU on H100 clusters" (2B-462B parameters).
    assert accuracy.best_published_mfu("H100-SXM", 70e9)[0] == 0.47
    band = accuracy.mfu_band(0.52, "H100-SXM", 2048, n_params=70e9)
    assert any("exceeds the best published MFU" in w and "47%" in w for w in band.warnings)
    assert not any("exceeds" in w for w in accuracy.mfu_band(0.40, "H100-SXM", 2048,
                                                             n_params=70e9).warnings)
    # A100, 175B: Korthikanti et al. 2022's 530B run at 56.0% is within 4x of the size
    best, src = accuracy.best_published_mfu("A100-80GB", 175e9)
    assert best == 0.56 and "korthikanti22-table5" in src


@pytest.mark.parametrize("kwargs, message", [
    (dict(mfu=0.0), "mfu=0.0 must be in"), (dict(mfu=1.5), "mfu=1.5 must be in"),
    (dict(n_gpus=0), "n_gpus=0 must be an integer >= 1"),
])
def test_bad_band_input(kwargs, message):
    args = dict(mfu=0.4, accelerator="H100-SXM", n_gpus=64)
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        accuracy.mfu_band(**args)
    with pytest.raises(ValueError, match="n_params=-1 must be a positive"):
        accuracy.best_published_mfu("H100-SXM", -1)


def test_band_for_a_step():
    spec = llmcost.load_model("llama-3.1-405b")
    plan = parallel.make_plan(spec, 16384, 2048, tp=8, pp=16, zero_stage=2, seq_len=8192,
                              schedule="interleaved", virtual_stages=8,
                              pp_split="embedding_and_loss")
    b = step.step_time(spec, Cluster(llmcost.load_accelerator("H100-SXM"), 16384), plan, 8192)
    band = accuracy.band_for_step(b, plan, spec, "H100-SXM")
    # Llama 3 Table 4 reports 41% for this plan; the band must contain it
    assert band.low <= 0.41 <= band.high


def test_every_ranked_plan_carries_its_band():
    spec = llmcost.load_model("llama-2-70b")
    cl = Cluster(llmcost.load_accelerator("H100-SXM"), 2048)
    r = accuracy.add_bands(step.rank_plans(spec, cl, 1024, 4096), spec, cl)
    assert r["mfu_low"].notna().all() and (r["mfu_low"] < r["mfu"]).all()
    assert (r["mfu_high"] >= r["mfu"]).all()
    row = r.iloc[0]
    band = accuracy.mfu_band(float(row["mfu"]), "H100-SXM", 2048, zero_stage=int(row["zero_stage"]),
                             cp=int(row["cp"]), ep=int(row["ep"]))
    assert row["mfu_low"] == pytest.approx(band.low) and row["band_regime"] == band.regime


def test_add_bands_needs_a_ranking():
    with pytest.raises(ValueError, match=r"ranked lacks the columns \['cp', 'ep', 'mfu', "
                                         r"'zero_stage'\]"):
        accuracy.add_bands(pd.DataFrame({"x": [1]}), None, None)
