"""Pilots far from the step model: one much slower than the model predicts (its correction is
carried by the limited translation, not shrunk away) and one faster than any comparable
published run (warned of, whatever form the pilot is given in)."""

import dataclasses
import math

import pytest
import yaml

from _cli import run_cli
from llmcost.core.catalog import SCENARIO_DIR
from llmcost.training import calibrate as cal
from llmcost.training.accuracy import published_ceiling


def _scenario(tmp_path, **extra):
    """The shipped default scenario on Llama 2 13B (2,048 H100, 4,096-token sequences, 1,024
    sequences a step) with ``extra`` keys and without its ``mfu`` (a pilot sets it)."""
    sc = yaml.safe_load((SCENARIO_DIR / "default.yaml").read_text())
    sc.pop("mfu")
    sc.update({"model": "llama-2-13b", **extra})
    path = tmp_path / "pilot.yaml"
    path.write_text(yaml.safe_dump(sc))
    return sc, path


def test_a_slow_pilots_correction_reaches_a_run_of_other_kernels(tmp_path):
    """A trial's 64-GPU TP8 pilot at 2,500 tokens/s per GPU (MFU 22.0 %, the model 39.5 %):
    the search moved the run to TP2 (other kernels), the shrinkage carried none of the
    correction and the bill priced 53.0 %, 2.4x what the pilot measured. With the limited
    translation (Efron & Morris 1972, D = 1.5) the share carried is, by hand from the
    extrapolation's own terms, 1 - 1.5 x sqrt(drift^2 / r^2 + shift^2) (drift 0.113, other
    kernels at the pilot's length; shift, the network's share the one-scale pilot did not
    separate): about half, and the bill's MFU sits between the pilot's measurement and the
    uncalibrated model's, well below 53 %."""
    sc, _ = _scenario(tmp_path, pilot=[{"n_gpus": 64, "tokens_per_s_per_gpu": 2500, "tp": 8}])
    c, x, plan = cal.scenario_calibration(sc)
    assert c.measured_mfu[0] == pytest.approx(0.220, abs=5e-4)
    assert c.uncalibrated_mfu[0] == pytest.approx(0.395, abs=5e-3)
    assert plan.tp != 8 and x.drift == pytest.approx(0.113)
    r = math.log(c.measured_mfu[0] / c.uncalibrated_mfu[0])
    assert x.residual == pytest.approx(r, abs=1e-9)
    assert x.transfer == pytest.approx(1 - 1.5 * math.sqrt(0.113 ** 2 / r ** 2 + x.shift ** 2),
                                       abs=1e-9)
    assert 0.1 < x.shift < 0.4 and x.limited and 0.40 < x.transfer < 0.72
    assert c.measured_mfu[0] < x.mfu < 0.75 * x.uncalibrated_mfu
    assert x.uncalibrated_mfu == pytest.approx(0.530, abs=5e-3)


def test_a_pilot_faster_than_any_comparable_published_run_is_warned_of(tmp_path):
    """10,800 tokens/s per GPU of Llama 2 13B on H100 is an MFU of about 95 % (the measured
    MFU, calibrate.measured_mfu), above the best comparable published run
    (accuracy.published_ceiling): `llmcost estimate` says so and asks to check the unit, for
    pilot records, for ledger_pilot_* keys with a pilot scale, and for the run's own
    measurement; 2,500 tokens/s (22 %) is not warned of."""
    fast = "measures MFU 95.2%, above the best published run comparable to it"
    for extra, who in (
            ({"pilot": [{"n_gpus": 64, "tokens_per_s_per_gpu": 10800, "tp": 8}]},
             "pilot[0] (10,800 tokens/s per GPU on 64 GPUs)"),
            ({"ledger_pilot_tokens_per_s_per_gpu": 10800, "ledger_pilot_n_gpus": 64},
             "ledger_pilot_tokens_per_s_per_gpu (10,800 tokens/s per GPU on 64 GPUs)"),
            ({"ledger_pilot_tokens_per_s_per_gpu": 10800},
             "ledger_pilot_tokens_per_s_per_gpu=10,800")):
        sc, path = _scenario(tmp_path, **extra)
        r = run_cli("estimate", "--scenario", str(path))
        assert r.returncode == 0, r.stderr
        out = " ".join(r.stdout.split())
        assert f"warning: pilot: {who} {fast}" in out, (extra, out[-3000:])
        assert out.count(fast) == 1
    ceiling, _ = published_ceiling("H100-SXM", 13.0e9, dtype="bf16", is_moe=False,
                                   seq_len=4096)
    assert 0.30 < ceiling < 0.952
    sc, path = _scenario(tmp_path, pilot=[{"n_gpus": 64, "tokens_per_s_per_gpu": 2500,
                                           "tp": 8}])
    assert cal.above_published_warning(cal.pilots_from_scenario(sc)) is None
    sc["pilot"][0]["tokens_per_s_per_gpu"] = 10800
    said = cal.above_published_warning(cal.pilots_from_scenario(sc))
    assert f"({ceiling:.1%}, llmcost.training.accuracy.published_ceiling)" in said


def test_repeated_pilots_of_one_plan_are_fitted_at_their_geometric_mean(tmp_path):
    """A trial: two pilots of one plan on 8 H100 at 5,000 and 3,000 tokens/s per GPU gave the
    64-GPU run MFU 27.5 % listed one way and 17.3 % the other (the calibration solved on the
    first listed). Repeats are now one pilot at the geometric mean of their throughputs (the fit
    is on the log of measured / predicted), by hand sqrt(5,000 x 3,000) = 3,873: the same bill
    in either order, the same as one pilot at 3,873, and the merge said with both figures."""
    runs = []
    for first, second in ((5000, 3000), (3000, 5000)):
        sc, _ = _scenario(tmp_path, model="llama-3.1-8b", n_gpus=64, train_tokens=1e11,
                          seq_len=8192, zero_stage=1,
                          pilot=[{"n_gpus": 8, "tokens_per_s_per_gpu": first, "zero_stage": 1},
                                 {"n_gpus": 8, "tokens_per_s_per_gpu": second,
                                  "zero_stage": 1}])
        runs.append(cal.scenario_calibration(sc))
    (c1, x1, _), (c2, x2, _) = runs
    assert x1.mfu == pytest.approx(x2.mfu, rel=1e-12) and len(c1.pilots) == 1
    assert c1.pilots[0].tokens_per_s_per_gpu == pytest.approx(math.sqrt(5000 * 3000), rel=1e-12)
    one = {**sc, "pilot": [{"n_gpus": 8, "tokens_per_s_per_gpu": math.sqrt(5000 * 3000),
                            "zero_stage": 1}]}
    assert cal.scenario_calibration(one)[1].mfu == pytest.approx(x1.mfu, rel=1e-12)
    said = " ".join(c1.warnings)
    assert ("pilot[0] and pilot[1] ran the same plan on 8 GPUs (5,000, 3,000 tokens/s per "
            "GPU): fitted as one at their geometric mean, 3,873 (repeats 1.67x apart") in said
    # pilots of different plans at one count are not merged
    other = {**sc, "pilot": [{"n_gpus": 8, "tokens_per_s_per_gpu": 5000, "zero_stage": 1},
                             {"n_gpus": 8, "tokens_per_s_per_gpu": 3000, "zero_stage": 1,
                              "tp": 2}]}
    assert len(cal.scenario_calibration(other)[0].pilots) == 2


def test_a_pilot_whose_recorded_plan_cannot_fit_is_warned_of(tmp_path):
    """Two trials: pilot records whose plans, as recorded, need more memory than the GPU holds
    were calibrated without a word (the model states alone are refused before; the activations
    were not looked at). By hand, a lower bound: Llama 3.1 8B (32 layers, d_model 4,096) at
    32,768 tokens, micro-batch 1, TP1 without recomputation keeps at least s·b·h·34 bytes per
    layer of activations (Korthikanti et al. 2022 Eq. 2, the a·s/h term gone with
    FlashAttention), 32,768 x 4,096 x 34 x 32 = 146 GB, over the 80 GiB (85.9 GB) card: warned,
    naming the keys to check; with full recomputation at TP8 it fits and nothing is said."""
    assert 32768 * 4096 * 34 * 32 > 80 * 2 ** 30
    sc, _ = _scenario(tmp_path, model="llama-3.1-8b", n_gpus=64, seq_len=32768,
                      global_batch_tokens=32768 * 64,
                      pilot=[{"n_gpus": 8, "tokens_per_s_per_gpu": 1500, "tp": 1,
                              "zero_stage": 1, "recompute": "none"}])
    said = " ".join(cal.calibrate(cal.pilots_from_scenario(sc)).warnings)
    assert "pilot[0] (TP1 · PP1 · DP8" in said and "more than the H100-SXM's 85.9 GB (80 GiB)" \
        in said and "check the record's zero_stage, recompute and micro_batch_size" in said
    sc["pilot"][0].update({"tp": 8, "recompute": "full"})
    assert cal.pilot_memory_warning(cal.pilots_from_scenario(sc)) is None


def test_merged_repeats_keep_each_records_checks(tmp_path):
    """A review: repeats merged at their geometric mean hid a record faster than any comparable
    published run (8B pilots at 6,000 and 13,000 tokens/s: the second alone is warned of), and
    a refusal named 'pilot[0] and pilot[1].tokens_per_s_per_gpu' with a mean no record holds.
    Each record is judged as given; the merged one is named as a mean."""
    sc, _ = _scenario(tmp_path, model="llama-3.1-8b", n_gpus=64, train_tokens=1e11,
                      seq_len=8192, zero_stage=1,
                      pilot=[{"n_gpus": 8, "tokens_per_s_per_gpu": 6000, "zero_stage": 1},
                             {"n_gpus": 8, "tokens_per_s_per_gpu": 13000, "zero_stage": 1}])
    said = " ".join(cal.calibrate(cal.pilots_from_scenario(sc)).warnings)
    assert "pilot[1] (13,000 tokens/s per GPU on 8 GPUs) measures MFU" in said
    assert "pilot[0] (6,000" not in said and "fitted as one at their geometric mean" in said
    slow = {**sc, "pilot": [{**r, "tokens_per_s_per_gpu": t} for r, t in
                            zip(sc["pilot"], (20, 30))]}
    with pytest.raises(ValueError, match=r"the geometric mean of pilot\[0\] and pilot\[1\]'s "
                                         r"tokens_per_s_per_gpu=24\.49"):
        cal.calibrate(cal.pilots_from_scenario(slow))
    assert math.sqrt(20 * 30) == pytest.approx(24.49, abs=5e-3)


def test_a_pilot_with_its_measured_memory_is_not_judged_by_the_model(tmp_path):
    """A pilot record that states its measured peak memory (within the HBM, check_pilot) ran in
    it: the memory model's larger figure is not held against it."""
    sc, _ = _scenario(tmp_path, model="llama-3.1-8b", n_gpus=64, seq_len=32768,
                      global_batch_tokens=32768 * 64,
                      pilot=[{"n_gpus": 8, "tokens_per_s_per_gpu": 1500, "tp": 1,
                              "zero_stage": 1, "recompute": "none"}])
    pilots = cal.pilots_from_scenario(sc)
    assert cal.pilot_memory_warning(pilots) is not None
    measured = [dataclasses.replace(q, peak_memory_bytes=70e9) for q in pilots]
    assert cal.pilot_memory_warning(measured) is None
