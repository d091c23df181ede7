"""An RL sample or a served context beyond the model's context is said (``inference.model_context``,
``rl.scenario_iteration``): a trial's OPT-1.3B scenario (2,048 positions: Zhang et al. 2022,
OPT, Table 1 and the released config.json's max_position_embeddings) was priced on 4,096-token
RL samples (512 prompt + 3,584 response tokens, the defaults) and its notebook 05 printed batch
sizes at 128K tokens, with no word."""

import dataclasses
import warnings

import pytest
import yaml

import llmcost
from llmcost import SCENARIO_DIR
from llmcost.bill.scenario import load_scenario
from llmcost.serving import inference as inf
from llmcost.serving import rl


def test_the_context_a_model_holds_and_where_it_comes_from():
    assert inf.model_context(llmcost.load_model("opt-1.3b")) == (
        2048, "declared context (max_position_embeddings)")
    # Llama 2 declares no max_position_embeddings in the catalogue; its 4,096-token
    # pre-training context (Touvron et al. 2023, Table 1) is the one its source states
    assert inf.model_context(llmcost.load_model("llama-2-70b")) == (
        4096, "pre-training context (no longer one declared)")
    unstated = dataclasses.replace(llmcost.load_model("llama-2-70b"), context_stated=False)
    assert inf.model_context(unstated) == (0, "")


def _opt_scenario(tmp_path, **keys) -> dict:
    sc = yaml.safe_load((SCENARIO_DIR / "default.yaml").read_text())
    sc.update({"model": "opt-1.3b", "n_gpus": 64, "train_tokens": 2.6e10, "seq_len": 2048,
               "global_batch_tokens": 1048576, **keys})
    path = tmp_path / "opt.yaml"
    path.write_text(yaml.safe_dump(sc))
    return load_scenario(path)


def test_an_rl_sample_beyond_the_context_is_said(tmp_path):
    with pytest.warns(inf.ServingDoesNotFitWarning,
                      match=r"rl_prompt_tokens \+ rl_response_tokens_max = 4,096 tokens per "
                            r"sample, beyond opt-1\.3b's 2,048-token declared context"):
        rl.scenario_iteration(_opt_scenario(tmp_path))
    with warnings.catch_warnings():  # 512 + 1,536 = 2,048: within it, nothing said
        warnings.simplefilter("error", inf.ServingDoesNotFitWarning)
        rl.scenario_iteration(_opt_scenario(tmp_path, rl_response_tokens_max=1536))
