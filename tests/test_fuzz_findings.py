"""A trial that fuzzed every scenario key (1,432 scenarios through `estimate` and `check`, about
60 reports): values both accepted made a report's notebook fail, wrote JSON that is not JSON,
or skipped a rule. Each test below is one finding, checked against a hand derivation or the
rule it breaks."""
import json
import math
import subprocess
import sys

import pytest

from llmcost.bill import ledger
from llmcost.bill.scenario import ScenarioError, validate_parameters
from llmcost.core.units import json_finite
from llmcost.training import reliability as rel


def test_a_planned_stop_of_a_peer_plan_restarts_from_memory():
    # fail_rate_per_gpu_year: 0 stopped notebook 07: with no failures the durable plan takes no
    # checkpoint, the peer plan's fallback restart (durable restart + half a run-long interval)
    # grew to 1.4e5 s and its planned stops, each charged δ + that R, took "all of the wall
    # time". A planned stop checkpoints on demand and loses nothing: it restarts from the
    # in-memory copies, R_mem. By hand: 1e9 B per rank at 50 GB/s is a 0.02 s snapshot; over a
    # 25 GB/s peer link a 0.04 s copy and a 0.04 s read, R_mem = 600 + 0.04 + 0.04 s; 0.87
    # planned stops a day then take 0.87 / 86,400 × (0.02 + 600.08) = 0.6043% of wall time.
    pc = rel.peer_checkpoint_plan(1e9, 64, 0.0, 25e9, 600.0, fallback_share=0.25,
                                  fallback_restart_s=2e5, planned_per_day=0.87, run_s=1e6)
    assert pc.restart_memory_s == pytest.approx(600.08, rel=1e-9)
    assert pc.breakdown.planned == pytest.approx(0.87 / 86400 * (0.02 + 600.08), rel=1e-9)
    assert pc.breakdown.total == pytest.approx(1.0, rel=1e-12)


def test_a_run_that_loses_no_time_says_so():
    # the same scenario with fail_planned_per_day: 0 divided 0 by 0 in 07 (a ZeroDivisionError)
    plan = rel.checkpoint_plan(8e9, 64, 0.0, None, 600.0, planned_per_day=0.0, run_s=1e5)
    assert plan.goodput == 1.0 and plan.n_checkpoints == 0
    assert rel.lost_time_words(plan.breakdown).startswith("no wall time lost")
    lossy = rel.checkpoint_plan(8e9, 64, 0.173, None, 600.0, planned_per_day=0.87, run_s=1e6)
    assert rel.lost_time_words(lossy.breakdown).startswith("of the ")


def test_hot_spares_assume_half_of_any_restart():
    # ckpt_restart_s: 120 stopped notebook 07: a fixed 300-s node replacement exceeded the
    # restart; half of the scenario's overhead is the assumption (300 s of the default 600)
    assert rel.node_replacement_s(600.0) == rel.NODE_REPLACEMENT_S_ASSUMED == 300.0
    plan = rel.checkpoint_plan(8e9, 64, 0.173, None, 120.0, planned_per_day=0.87, run_s=1e6)
    df = rel.hot_spare_table(plan, 8, rel.node_replacement_s(120.0), planned_per_day=0.87)
    # a spare removes 0.766 × 60 s of the restart (Llama 3's hardware share, Table 5)
    assert df.loc[1, "restart_s"] == pytest.approx(plan.restart_s - 0.766 * 60, rel=1e-2)


def test_json_has_no_infinity(tmp_path):
    # fail_rate_per_gpu_year: 0 wrote "job_mtbf_s": Infinity (RFC 8259 §6 has no such value)
    assert json_finite({"a": math.inf, "b": [1.0, float("nan")], "c": "x"}) == \
        {"a": None, "b": [1.0, None], "c": "x"}
    f = tmp_path / "never_fails.yaml"
    f.write_text("model: llama-3.1-8b\nn_gpus: 64\ntrain_tokens: 1e12\n"
                 "fail_rate_per_gpu_year: 0\n")
    r = subprocess.run([sys.executable, "-m", "llmcost", "estimate", "--scenario", str(f),
                        "--format", "json"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout, parse_constant=lambda c: pytest.fail(f"{c} in the JSON"))
    assert out["bill.figures.job_mtbf_s"] is None  # an infinite MTBF: no failure expected


def test_values_that_stopped_a_page_are_refused_before_it_runs():
    base = dict(model="llama-3.1-8b", n_gpus=64, train_tokens=1e12)
    # Kaplan et al. 2020's floor (N_c/N)^0.076 for 6.98e9 non-embedding parameters: 2.021 nats
    with pytest.raises(ScenarioError, match=r"batch_target_loss=1.5 must be above 2.021 nats"):
        validate_parameters(**base, batch_target_loss=1.5)
    validate_parameters(**base, batch_target_loss=2.5)
    with pytest.raises(ScenarioError, match=r"batch_noise_tokens=1e\+30 is above 1e\+16"):
        validate_parameters(**base, batch_noise_tokens=1e30)
    with pytest.raises(ScenarioError, match=r"phases\[0\].name='' must name the phase"):
        validate_parameters(**base, phases=[{"name": "", "tokens": 1e11, "seq_len": 4096}])


def test_each_end_of_a_range_obeys_the_magnitude_rule():
    with pytest.raises(ScenarioError, match=r"ledger_sft_tokens: range high: "
                                            r"ledger_sft_tokens=1e\+30 is above 1e\+16"):
        validate_parameters(model="llama-3.1-8b", n_gpus=64, train_tokens=1e12,
                            ledger_sft_tokens={"low": 0, "mode": 1e9, "high": 1e30})
    with pytest.raises(ScenarioError, match=r"price_usd_per_gpu_hour: range high"):
        validate_parameters(model="llama-3.1-8b", n_gpus=64, train_tokens=1e12,
                            price_usd_per_gpu_hour={"low": 1, "mode": 2, "high": 1e6})


def test_a_one_token_prompt_has_no_cached_price():
    # inference_prompt_tokens: 1 stopped notebook 05 (cached_tokens = 1 // 2 = 0)
    from llmcost.serving.setups import api_price_comparison
    df = api_price_comparison("H100-SXM", 2.0, prompt_tokens=1, output_tokens=100)
    dense = df[df["set_up"].str.startswith("TP")]
    assert len(dense) and dense["modelled_usd_per_m_cached_input"].isna().all()
    assert dense["modelled_usd_per_m_input"].notna().all()


def test_keeping_more_checkpoints_than_written_costs_what_is_written():
    # A trial: every checkpoint hot cost $28.8k, the last 1,000 (of ~650 written) $56.1k, the
    # last 10^9 $55.3B. Rule: a hot tier holds at most what the run writes, so keeping more than
    # that is keeping every one, priced the same; keeping 3 costs less
    usd = {k: ledger.build_ledger({"price_usd_per_gpu_hour": 3.0, "ckpt_keep_last": k})
           .line("storage.checkpoints").usd for k in (0, 3, 10**9)}
    assert usd[10**9] == pytest.approx(usd[0], rel=1e-12)
    assert usd[3] < usd[0]


def test_a_given_scale_out_latency_reaches_the_engine():
    # comm_scaleout_latency_s: 1e30 left the predicted step unchanged: the engine read the
    # catalogue's efficiency row again (StepOptions.resolve_on now takes the cluster's). By
    # hand, a lower bound: a pipeline of p = 8 stages across nodes sends each boundary's
    # activations serially through its fill and drain, 2(p − 1) = 14 sends on the critical path,
    # so 10 ms per step across nodes adds at least 0.14 s
    from llmcost.training.step import scenario_step
    base = dict(model="llama-3.1-70b", accelerator="H100-SXM", n_gpus=512, train_tokens=1e12,
                seq_len=8192, tp=8, pp=8, global_batch_tokens=16777216, comm_pp_overlap=False)
    _, b0 = scenario_step(validate_parameters(**base))
    _, b1 = scenario_step(validate_parameters(**base, comm_scaleout_latency_s=1e-2))
    assert b1.step_time_s - b0.step_time_s >= 2 * 7 * 1e-2


def test_absurd_magnitudes_and_a_one_token_sequence_are_refused():
    base = dict(model="llama-3.1-8b", n_gpus=64, train_tokens=1e12)
    # 1e30 kg CO2e/kWh printed a 37-digit tCO2e; coal's lifecycle median is 0.82 (IPCC AR5)
    with pytest.raises(ScenarioError, match=r"ledger_grid_kg_co2e_per_kwh=1e\+30 is above 10:"):
        validate_parameters(**base, ledger_grid_kg_co2e_per_kwh=1e30)
    validate_parameters(**base, ledger_grid_kg_co2e_per_kwh=1.1)   # lignite-heavy grids pass
    with pytest.raises(ScenarioError, match=r"ckpt_retention_months=2e\+12 is above 1,200"):
        validate_parameters(**base, ckpt_retention_months=2e12)
    # n tokens give n − 1 next-token targets: one token gives none
    with pytest.raises(ScenarioError, match=r"seq_len=1 must be >= 2"):
        validate_parameters(**base, seq_len=1)
    with pytest.raises(ScenarioError, match=r"phases\[0\]\.seq_len=1 must be >= 2"):
        validate_parameters(**base, phases=[{"name": "x", "tokens": 1e11, "seq_len": 1}])


def test_a_predicted_mfu_below_a_millionth_names_the_prediction(tmp_path):
    # mfu: predict with comm_scaleout_bytes_per_s: 1000 (1 kB/s) ended "mfu=0.0 must be in
    # (0, 1]", a value the file never had: the prediction and the part that drove it are named
    f = tmp_path / "slow_network.yaml"
    f.write_text("mfu: predict\ncomm_scaleout_bytes_per_s: 1000\n")
    r = subprocess.run([sys.executable, "-m", "llmcost", "estimate", "--scenario", str(f)],
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert "the step-time model predicts an MFU of" in r.stderr and "mfu=0.0" not in r.stderr


def test_refusals_name_the_scenario_keys_not_the_layers_fields(tmp_path):
    # pp_virtual_stages: 1000 was refused as "virtual_stages=1000", rl_prompts_per_step as
    # "prompts_per_step": names the scenario file never had
    for body, key in (("pp_virtual_stages: 1000\n", "pp_virtual_stages=1000"),
                      ("rl_prompts_per_step: 100000000\nrl_iterations: 10\n",
                       "rl_prompts_per_step ×")):
        f = tmp_path / "f.yaml"
        f.write_text("model: llama-3.1-8b\nn_gpus: 64\ntrain_tokens: 1e12\n" + body)
        r = subprocess.run([sys.executable, "-m", "llmcost", "estimate", "--scenario", str(f)],
                           capture_output=True, text=True)
        assert r.returncode == 2 and key in r.stderr, r.stderr


def test_a_phase_on_too_few_gpus_to_hold_the_model_is_refused():
    # A phase's n_gpus skipped the main run's memory rule: a 3-GPU phase of Llama 2 70B was
    # billed. By hand: 68.98e9 parameters × 18 B (BF16 weights, FP32 gradients, Adam) = 1.24 TB,
    # 414 GB per GPU over 3 H100s, above the 77 GB usable (80 GiB less the 10% reserve)
    with pytest.raises(ScenarioError, match=r"phases\[0\] \('ext'\) on n_gpus=3: no parallel "
                                            r"plan can fit: .* use at least 17 GPUs"):
        ledger.build_ledger({"phases": [{"name": "ext", "tokens": 1e11, "seq_len": 4096,
                                         "n_gpus": 3}]})
    ok = ledger.build_ledger({"phases": [{"name": "ext", "tokens": 1e11, "seq_len": 4096,
                                          "n_gpus": 64}]})
    assert ok.line("compute.pretraining.ext").usd > 0
