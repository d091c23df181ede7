"""``mfu: predict`` in a scenario: resolved once by the report, from the scenario's own plan."""

import json

import pytest

import llmcost
from llmcost import report, step
from llmcost.bill.scenario import ScenarioError, load_scenario, validate_parameter

LLAMA = llmcost.SCENARIO_DIR / "llama-3.1-405b.yaml"


def _predict_scenario(tmp_path, source=LLAMA):
    text = source.read_text().replace("\nmfu: 0.41\n", "\nmfu: predict\n")
    assert "mfu: predict" in text
    f = tmp_path / "predicted.yaml"
    f.write_text(text)
    return f


def test_the_loader_keeps_predict_and_a_notebook_gets_a_clear_error(tmp_path):
    sc = load_scenario(_predict_scenario(tmp_path))
    assert sc["mfu"] == "predict"
    with pytest.raises(ScenarioError, match="mfu='predict' is only understood in a scenario "
                                            "file"):
        validate_parameter("mfu", "predict")
    with pytest.raises(ScenarioError, match="mfu='predicted' must be a number"):
        validate_parameter("mfu", "predicted")


def test_plan_report_resolves_it_once_from_the_scenario_plan(tmp_path):
    plan = report.plan_report(_predict_scenario(tmp_path))
    scenario, declared = plan.scenario, plan.declared
    pred = scenario["_mfu_prediction"]
    plan, b = step.scenario_step(load_scenario(LLAMA))
    # the bill's MFU is the band's central estimate of the prediction (accuracy.central_mfu;
    # tests/test_predict_central.py derives it by hand), the raw prediction kept beside it
    assert pred["predicted"] == pytest.approx(b.mfu, abs=1e-9)
    assert scenario["mfu"] == pred["value"]
    assert pred["plan"] == plan.describe()
    assert pred["from"] == f"predicted by llmcost.step for {plan.describe()}"
    # Llama 3 report Table 4: 400 TFLOP/s per GPU at this scale ("41%" rounded; 400 / 989.4 =
    # 40.4% on the workbook's TFLOP/s basis), an out-of-sample check of the raw prediction (the
    # central estimate's c counts this run among its regime's held-out rows: not out of sample)
    assert pred["predicted"] == pytest.approx(400 / 989.4, rel=0.10)
    used = report.effective_parameters(scenario, declared)
    assert used["mfu"]["from"].startswith("predicted by llmcost.step: the step-time model "
                                          "predicts")
    assert used["mfu"]["from"].count(plan.describe()) == 1  # the plan named once, not twice


def test_a_capped_prediction_says_so_where_the_mfu_comes_from(tmp_path):
    # A trial (Llama 3.1 8B at 131,072 tokens, TP4 CP8 on 128 H100): the bill used 37.6% while
    # the model predicted 48.9%, and summary.json's mfu "from" read "predicted by llmcost.step
    # for TP4 ..." with no word of the cap. No held-out run in that regime (c = 0, w = 0.30):
    # by accuracy.band_cap the cap is the model's own low end p / 1.3, itself above the best
    # comparable published run; the "from" names the prediction, the bill's figure and that.
    f = tmp_path / "longctx.yaml"
    f.write_text("model: llama-3.1-8b\naccelerator: H100-SXM\nn_gpus: 128\n"
                 "train_tokens: 1e11\nseq_len: 131072\nmfu: predict\ndtype: bf16\n"
                 "price_usd_per_gpu_hour: 2.2\nglobal_batch_tokens: 4194304\n"
                 "tp: 4\ncp: 8\npp: 1\n")
    plan = report.plan_report(f)
    pred = plan.scenario["_mfu_prediction"]
    assert pred["center_capped"] and pred["band"]["n"] == 0
    assert pred["value"] == pytest.approx(pred["predicted"] / 1.3, abs=1e-6)
    said = report.effective_parameters(plan.scenario, plan.declared)["mfu"]["from"]
    assert said != pred["from"] and said.count(pred["plan"]) == 1
    assert f"predicts {pred['predicted']:.1%}" in said
    assert f"so the bill uses the top, {pred['value']:.1%}" in said
    assert said.endswith(f"its top set by {pred['cap']}")
    assert pred["cap"].startswith("the model's own low end: its uncapped band lies wholly above "
                                  "the best comparable published run, ")


def test_a_report_with_mfu_predict_shows_where_it_came_from(tmp_path):
    out = tmp_path / "r"
    res = report.run_report(_predict_scenario(tmp_path), out, selection=["01", "04b"],
                            timeout_s=300, progress=lambda s: None)
    assert not res.failed
    summary = json.loads((out / "summary.json").read_text())
    pred = summary["mfu_prediction"]
    assert summary["parameters"]["mfu"]["value"] == pred["value"]
    assert "predicted by llmcost.step" in summary["parameters"]["mfu"]["from"]
    assert summary["parameters"]["mfu"]["from"].count(pred["plan"]) == 1
    assert "_mfu_prediction" not in summary["scenario"]
    index = (out / "index.html").read_text()
    assert "mfu: predict" in index and pred["plan"] in index
    # the notebooks used the number: 01's GPU-hours follow from it
    flops = {r["key"]: r for r in summary["notebooks"]["01_flops"]}
    assert flops["gpu_hours"]["value"] > 0
    step_rows = {r["key"]: r for r in summary["notebooks"]["04b_step_time"]}
    assert step_rows["predicted_mfu"]["value"] == pytest.approx(pred["predicted"], abs=1e-3)


def test_a_prediction_that_cannot_be_made_names_the_file(tmp_path):
    f = tmp_path / "bad.yaml"
    f.write_text("model: llama-2-7b\naccelerator: H100-SXM\nn_gpus: 8\nseq_len: 4096\n"
                 "global_batch_tokens: 32768\nmfu: predict\ntp: 8\npp: 1\ndp: 0\ncp: 1\nep: 1\n"
                 "zero_stage: 0\nrecompute: none\nmicro_batch_size: 1\npp_schedule: 1f1b\n"
                 "pp_virtual_stages: 1\n")
    scenario = report.plan_report(f).scenario
    assert 0 < scenario["mfu"] <= 1
    # a bad value of the scenario is its own error, not the prediction's: TPU v4 has no
    # on-demand catalogue price (the trial's GB200 at pricing: owned read "mfu: predict: ...")
    f.write_text(f.read_text().replace("accelerator: H100-SXM", "accelerator: TPU v4"))
    with pytest.raises(ScenarioError, match="bad.yaml: price_usd_per_gpu_hour: ") as e:
        report.plan_report(f)
    assert "mfu" not in str(e.value)
    # with a price, the prediction fails for the catalogue's missing scale-out bandwidth, and
    # the message names the scenario key that supplies it (not the catalogue's column): on 16
    # MI325X, two 8-GPU domains (8 TPU v4 chips sit in one 4,096-chip pod, which needs none)
    f.write_text(f.read_text().replace("accelerator: TPU v4", "accelerator: MI325X")
                 .replace("n_gpus: 8", "n_gpus: 16") + "price_usd_per_gpu_hour: 3.2\n")
    with pytest.raises(ScenarioError, match="bad.yaml: mfu: predict: .*scale-out bandwidth "
                       ".*comm_scaleout_bytes_per_s") as e:
        report.plan_report(f)
    assert "scaleout_bytes_per_s_per_dir" not in str(e.value)
