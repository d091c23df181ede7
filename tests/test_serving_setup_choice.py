"""A report never stops on a serving precision the scenario did not give: notebook 05's
illustrative serving replica (one TP replica of at most one scale-up domain) takes the widest
weight precision at which the model and a batch fit, BF16 → FP8 → INT4, labelled "chosen: …" in
the index and summary.json; a precision the scenario gives is kept and checked as given.

Hand derivation (DeepSeek-V3, arXiv:2412.19437: 671B total parameters, trained on 2,048 H800s;
H800: 80 GiB = 85.9 GB of HBM, data/accelerators.csv, less the serving reserve of 10%: 77.3 GB
usable): over
TP 8 (one HGX node) the weights per GPU are 671e9 × 2 B ÷ 8 = 167.8 GB in BF16 and
671e9 × 1 B ÷ 8 = 83.9 GB in FP8, both over 77.3 GB; in INT4 (4 bits and an FP16 scale per 128
weights: 0.5 + 2/128 = 0.515625 B) 671e9 × 0.515625 ÷ 8 = 43.2 GB, leaving 34 GB for the KV cache.
Llama 3.1 405B on 8 H100s (Meta's release: the FP8 405B "fits on a single server node"): BF16
405e9 × 2 ÷ 8 = 101.3 GB does not fit, FP8 50.7 GB does."""

import pytest

import llmcost

from llmcost.bill.scenario import ScenarioError
from llmcost.bill.validation import fitting_serve_weight_dtype
from llmcost.present import report

DSV3 = ("model: deepseek-v3\naccelerator: H800\nn_gpus: 2048\ntrain_tokens: 14.8e12\n"
        "dtype: fp8\nmfu: 0.229\nprice_usd_per_gpu_hour: 2.0\n")


def _defaults(**over):
    used = report.effective_parameters({}, {nb: report.declared_parameters(nb)
                                            for nb in report.list_notebooks()})
    return {**{k: v["value"] for k, v in used.items()}, **over}


def test_the_hand_derivation_of_the_weights_per_gpu():
    from llmcost.serving.inference import weight_bytes
    per_gpu = {d: weight_bytes("deepseek-v3", d) / 8 / 1e9 for d in ("bf16", "fp8", "int4")}
    assert per_gpu["bf16"] == pytest.approx(671e9 * 2 / 8 / 1e9, rel=0.01)
    assert per_gpu["fp8"] == pytest.approx(83.9, rel=0.01)
    assert per_gpu["int4"] == pytest.approx(671e9 * 0.515625 / 8 / 1e9, rel=0.01)


def test_the_widest_precision_that_fits_is_chosen():
    assert fitting_serve_weight_dtype(_defaults()) == "bf16"  # 70B on H100: BF16 fits TP 4
    assert fitting_serve_weight_dtype(_defaults(model="deepseek-v3", accelerator="H800")) == "int4"
    assert fitting_serve_weight_dtype(_defaults(model="llama-3.1-405b")) == "fp8"
    # a given serve_tp is kept: 405B in FP8 over 4 H100s is 101 GB per GPU, INT4 52 GB fits
    assert fitting_serve_weight_dtype(_defaults(model="llama-3.1-405b", serve_tp=4)) == "int4"
    # 671B in INT4 over 8 A100-40GB: 43.2 GB per GPU over 0.9 x 40 GiB = 38.65 GB usable:
    # nothing fits
    assert fitting_serve_weight_dtype(_defaults(model="deepseek-v3",
                                                accelerator="A100-40GB")) is None


def test_a_report_of_deepseek_v3_on_h800_chooses_and_labels_the_precision(tmp_path):
    path = tmp_path / "ds.yaml"
    path.write_text(DSV3)
    plan = report.plan_report(path, ["05"])
    assert plan.values["serve_weight_dtype"] == "int4"
    used = report.effective_parameters(plan.scenario, plan.declared)
    why = used["serve_weight_dtype"]["from"]
    assert why.startswith("chosen: the widest weight precision")
    assert "167.8 GB in bf16" in why and "83.9 GB in fp8" in why
    nb05 = plan.notebooks[0]
    given = report.notebook_parameters_for(nb05, plan)
    assert given["serve_weight_dtype"] == "int4"
    assert not any(k.startswith("_") for k in given)


def test_a_precision_the_scenario_gives_is_kept_and_checked(tmp_path):
    path = tmp_path / "ds8.yaml"
    path.write_text(DSV3 + "serve_weight_dtype: fp8\n")
    with pytest.raises(ScenarioError, match="serve_weight_dtype"):
        report.plan_report(path, ["05"])


def test_nothing_fits_refuses_naming_the_keys(tmp_path):
    path = tmp_path / "a100.yaml"
    path.write_text(DSV3.replace("H800", "A100-40GB").replace("dtype: fp8\n", ""))
    # DeepSeek-V3's 671B weights over 8 A100-40GB (38.7 GB usable a GPU): INT4's 43.2 GB a GPU
    # (0.5 B + a BF16 scale per 128 weights) is the least and does not fit, so no precision is
    # offered; only notebook 05 runs this set-up (the scenario gives no serve_ key), and the
    # message says so
    with pytest.raises(ScenarioError, match=r"serving set-up \(serve_ and inference_ keys\)") as e:
        report.plan_report(path, ["05"])
    assert "lower" not in str(e.value) and "weight_dtype (" not in str(e.value)
    assert str(e.value).endswith("notebook 05 prices this set-up whether or not the bill does: "
                                 "`--notebooks` without 05 reports without it")


def test_a_model_that_fits_in_bf16_chooses_nothing(tmp_path):
    path = tmp_path / "70b.yaml"  # no serve_ key: the notebooks' BF16 fits 70B on 4 H100s
    path.write_text("model: llama-2-70b\naccelerator: H100-SXM\nn_gpus: 2048\n"
                    "train_tokens: 2.0e12\nprice_usd_per_gpu_hour: 3.99\n")
    plan = report.plan_report(path, ["05"])
    assert "_serve_weight_dtype_chosen" not in plan.scenario
    assert plan.values["serve_weight_dtype"] == "bf16"


def test_notebook_05_is_told_whether_the_bill_carries_its_campaign(tmp_path):
    # The index's RL line and notebook 05 agree: a scenario that describes no RL campaign gets a
    # $0 "not given" line, and notebook 05 receives ledger_rl false, so it calls its campaign an
    # illustration not in the bill (answers.rl_loop, the rl_campaign_usd label); one that gives
    # rl_iterations is billed, and notebook 05 calls its campaign the bill's RL line.
    from llmcost.bill.scenario import rl_campaign_given
    from llmcost.present import answers
    path = tmp_path / "none.yaml"
    path.write_text(DSV3)
    plan = report.plan_report(path, ["05"])
    given = report.notebook_parameters_for(plan.notebooks[0], plan)
    assert given["ledger_rl"] is False and plan.bill.line("post.rl").status == "not given"
    assert "notebook 05 prices an illustrative campaign" in plan.bill.line("post.rl").how
    assert "rl_iterations and rl_runs not given" in plan.bill.line("post.rl").how
    assert not rl_campaign_given({**plan.values, **given})
    path.write_text(DSV3 + "rl_iterations: 100\n")
    plan = report.plan_report(path, ["05"])
    given = report.notebook_parameters_for(plan.notebooks[0], plan)
    assert plan.bill.line("post.rl").status == "modelled"
    assert rl_campaign_given({**plan.values, **given})
    assert "bill's RL line" in answers.rl_loop("m", "g", 1.0, 10.0, 0.5, 1e5,
                                               billed=rl_campaign_given({**plan.values, **given}))


def test_a_missed_latency_target_reaches_the_bills_warnings(tmp_path):
    # Llama 3.1 8B on one H100, 1,000 prompt and 2 output tokens, a 7 ms target: at batch 1 an
    # engine is expected to take 9.17 ms per output token (the roofline floor 5.02 ms; the hand
    # derivation in tests/test_inference.py), so no batch meets it. The served lines are priced at
    # batch 1 all the same; the bill's warnings say the target is missed, not the line alone
    path = tmp_path / "lat.yaml"
    path.write_text("model: llama-3.1-8b\naccelerator: H100-SXM\nn_gpus: 64\ntrain_tokens: 1e11\n"
                    "seq_len: 4096\nmfu: 0.4\nprice_usd_per_gpu_hour: 3.0\nserve_tp: 1\n"
                    "serve_max_tpot_s: 0.007\ninference_prompt_tokens: 1000\n"
                    "inference_output_tokens: 2\nledger_synthetic_tokens: 1e9\n")
    said = [w for w in report.estimate_ledger(path).warnings
            if w.startswith("the latency target of 7 ms per output token is missed")]
    # the bill's 9.17 ms (regression pin; serving_cost's 9.171 ms by hand in test_inference.py)
    assert len(said) == 1 and "9.17 ms" in said[0]
    # a target the engine meets at some batch: no such warning
    path.write_text(path.read_text().replace("0.007", "0.015"))
    assert not any("latency target" in w for w in report.estimate_ledger(path).warnings)


def test_notebook_05_words_a_missed_target_by_what_missed_it():
    # A given batch of 200 misses a 15 ms target on the expected TPOT (the largest that meets it
    # is 134: tests/test_inference.py by hand), so the words must not say "even at batch 1";
    # batch 1 missing a 7 ms target does say it; a met target says met
    from llmcost.present import answers
    from llmcost.serving import engines, inference
    m, g = llmcost.load_model("llama-3.1-8b"), llmcost.load_accelerator("H100-SXM")
    kw = dict(prompt_tokens=1000, output_tokens=2)

    def said(c, target):
        best = engines.cheapest_setup(m, g, 2.0, max_tpot_s=target, **kw)
        return " ".join(answers.serving_points(c, best, target,
                                               headline_target_s=target).split())
    given = inference.serving_cost(m, g, 2.0, batch=200, max_tpot_s=0.015, **kw)
    assert given.latency_warning and "largest batch that meets it is 134" in given.latency_warning
    assert "the 15 ms target missed by its expected TPOT at the given batch" in said(given, 0.015)
    one = inference.serving_cost(m, g, 2.0, max_tpot_s=0.007, **kw)
    assert one.limit == "latency target missed"
    assert "the 7 ms target missed by its expected TPOT even at batch 1" in said(one, 0.007)
    # serving_cost at TP 1 (its default) under the target takes the largest batch under it,
    # 134, which is now the cheapest point itself (engines.cheapest_setup takes each size's
    # largest batch under the target); at a batch the scenario gives below it, the words say met
    met = inference.serving_cost(m, g, 2.0, max_tpot_s=0.015, **kw)
    assert (met.tp, met.batch) == (1, 134)
    assert "the cheapest point above, at the same prices" in said(met, 0.015)
    small = inference.serving_cost(m, g, 2.0, batch=64, max_tpot_s=0.015, **kw)
    assert "the 15 ms target met by its expected TPOT" in said(small, 0.015)
