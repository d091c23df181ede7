"""A report never stops on an RL setting the scenario did not give: notebook 05's illustrative
campaign takes the smallest rollout TP at which the policy fits when the notebooks' default
(TP 4) cannot hold it; a TP the scenario gives is kept and checked as given.

Hand derivation (Qwen3-235B-A22B, Qwen3 report Table 2: 235B parameters): 235e9 × 2 B of BF16
weights = 470 GB; over TP 4 that is 117.5 GB per GPU, over an H100-SXM's 80 GiB (85.9 GB,
data/accelerators.csv) less its runtime reserve; over TP 8, 58.7 GB, which fits."""

from pathlib import Path

import pytest

from llmcost.bill.scenario import ScenarioError
from llmcost.present import report
from llmcost.serving import rl

QWEN = "model: qwen3-235b-a22b\naccelerator: H100-SXM\nn_gpus: 512\ntrain_tokens: 2.0e12\n"


def test_a_report_chooses_the_smallest_rollout_tp_that_fits(tmp_path):
    path = tmp_path / "qwen.yaml"
    path.write_text(QWEN)
    plan = report.plan_report(path)
    assert plan.values["rl_rollout_tp"] == 8
    used = report.effective_parameters(plan.scenario, {nb: report.declared_parameters(nb)
                                                       for nb in report.list_notebooks()})
    assert used["rl_rollout_tp"]["from"].startswith(
        "chosen: the rollout TP nearest the notebooks' 4 at which the RL iteration can be priced "
        "(at 4: model='qwen3-235b-a22b'")  # the iteration's own refusal: weights do not fit
    nb05 = next(nb for nb in plan.notebooks if nb.stem == "05_rl_loop")
    given = report.notebook_parameters_for(nb05, plan)
    assert given["rl_rollout_tp"] == 8 and "_rl_rollout_tp_chosen" not in given


def test_a_rollout_tp_the_scenario_gives_is_kept_and_checked(tmp_path):
    path = tmp_path / "qwen4.yaml"
    path.write_text(QWEN + "rl_rollout_tp: 4\n")
    with pytest.raises(ScenarioError, match="rl_rollout_tp=4"):
        report.plan_report(path)


def test_fitting_rollout_tp_doubles_from_the_given_size():
    p = {**{k: v for k, v in report.effective_parameters(
        {}, {nb: report.declared_parameters(nb) for nb in report.list_notebooks()}).items()}}
    p = {k: v["value"] for k, v in p.items()}
    p.update(model="qwen3-235b-a22b", accelerator="H100-SXM")
    assert rl.fitting_rollout_tp({**p, "rl_rollout_tp": 4}) == 8
    assert rl.fitting_rollout_tp({**p, "rl_rollout_tp": 8}) == 8
    # 2 rollout GPUs cannot hold 470 GB at any TP up to 2
    assert rl.fitting_rollout_tp({**p, "rl_rollout_tp": 1, "rl_gpus": 2}) is None


#: SmolLM-135M's config.json (HuggingFaceTB/SmolLM-135M on the Hugging Face Hub: 30 layers,
#: hidden 576, 9 attention heads, 3 KV heads), as a trial passed it
SMOLLM_135M = Path(__file__).parent / "data" / "trial_configs" / "smollm-135m.json"


def test_a_model_whose_heads_the_default_tp_does_not_divide_gets_one_that_does(tmp_path):
    # a trial: a report of a 9-head model on 8 GPUs stopped on "rl_rollout_tp=4 must divide
    # n_heads=9" though the scenario bills no RL; of 9's divisors (1, 3, 9) only 1 divides the
    # notebooks' 8 RL GPUs
    path = tmp_path / "tiny.yaml"
    path.write_text(f"model: {SMOLLM_135M}\naccelerator: H100-SXM\nn_gpus: 8\n"
                    "train_tokens: 6.0e11\nseq_len: 2048\n")
    plan = report.plan_report(path)
    assert plan.values["rl_rollout_tp"] == 1
    used = report.effective_parameters(plan.scenario, {nb: report.declared_parameters(nb)
                                                       for nb in report.list_notebooks()})
    assert ("the rollout TP nearest the notebooks' 4 at which the RL iteration can be priced "
            "(at 4: tp=4 must divide n_heads=9 of ") in used["rl_rollout_tp"]["from"]


def test_the_chosen_tp_says_the_defaults_own_reason(tmp_path):
    # a review: 2 RL GPUs cannot hold a TP of 4; the model fits at 4, and the note said it did not
    path = tmp_path / "two.yaml"
    path.write_text("model: llama-3.1-8b\naccelerator: H100-SXM\nn_gpus: 8\n"
                    "train_tokens: 1.0e11\nrl_gpus: 2\n")
    plan = report.plan_report(path)
    assert plan.values["rl_rollout_tp"] == 2
    used = report.effective_parameters(plan.scenario, {nb: report.declared_parameters(nb)
                                                       for nb in report.list_notebooks()})
    said = used["rl_rollout_tp"]["from"]
    assert "(at 4: " in said and "fit" not in said.split("(at 4: ")[1].split(")")[0]
