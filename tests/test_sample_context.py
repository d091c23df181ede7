"""The context a model holds (``inference.model_context``): its declared positions, else the
length its source says it was pre-trained at. A trial's OPT-1.3B scenario (2,048 positions:
Zhang et al. 2022, OPT, Table 1 and the released config.json's max_position_embeddings) had its
notebook 05 print batch sizes at 128K tokens with no word; the notebook now says a context
beyond what the model holds (its declared or pre-training context, or the scenario's longer
training) as such, and prints the bill's rule on RL rollouts longer than the trained length
(``bill.checks.rl_context_warning``) for its own set-up."""

import dataclasses

import pytest

import llmcost
from llmcost.bill import checks
from llmcost.serving import inference as inf


def test_the_context_a_model_holds_and_where_it_comes_from():
    assert inf.model_context(llmcost.load_model("opt-1.3b")) == (
        2048, "declared context (max_position_embeddings)")
    assert inf.model_context("opt-1.3b")[0] == 2048   # a catalogue name, as its neighbours take
    # Llama 2 declares no max_position_embeddings in the catalogue; its 4,096-token
    # pre-training context (Touvron et al. 2023, Table 1) is the one its source states
    assert inf.model_context(llmcost.load_model("llama-2-70b")) == (
        4096, "pre-training context (no longer one declared)")
    unstated = dataclasses.replace(llmcost.load_model("llama-2-70b"), context_stated=False)
    assert inf.model_context(unstated) == (0, "")
    with pytest.raises(ValueError, match="model='no-such-model'"):
        inf.model_context("no-such-model")


def test_notebook_05s_rollout_note_is_the_bills_rule():
    # the notebook prints checks.rl_context_warning for its own set-up as if billed: OPT-1.3B
    # trained at 2,048 tokens with 512 + 3,584-token GRPO rollouts is said; DPO's pairs are
    # rl_response_tokens long (512 + 1,024 = 1,536 fit), whatever rl_response_tokens_max says
    p = {"ledger_rl": True, "seq_len": 2048, "phases": [], "rl_algorithm": "grpo",
         "rl_prompt_tokens": 512, "rl_response_tokens_max": 3584, "rl_response_tokens": 1024}
    assert "512 + 3,584 = 4,096 tokens, is beyond the 2,048 tokens" in \
        checks.rl_context_warning(p)
    assert checks.rl_context_warning({**p, "rl_algorithm": "dpo"}) is None
