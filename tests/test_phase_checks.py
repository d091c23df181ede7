"""Extra pre-training phases (``phases:``) get the checks the main run's seq_len and tokens get.

A new-user trial billed default.yaml plus a phase of 1,048,576-token sequences with its own
mfu on Llama 2 70B, whose pre-training context is 4,096 tokens (Touvron et al. 2023,
arXiv:2307.09288, §2.2 and Table 1), with no warning, while the same seq_len on the main run
warned. The context check now applies to every phase at a length the main run does not train
at (a phase with its own mfu included: its plan is not checked, and the warning says so), and a
phase of less than one optimizer step is refused as a main run of less than one step is.
"""

import json

import pytest
from _cli import run_cli

import llmcost
from llmcost.bill.checks import context_warning, scenario_warnings
from llmcost.bill.scenario import ScenarioError, validate_parameters
from llmcost.present.glance import caveat_line

DEFAULT = {k: v for k, v in llmcost.load_scenario(llmcost.SCENARIO_DIR / "default.yaml").items()
           if k not in ("title", "description")}
LLAMA2_CONTEXT = 4096  # Touvron et al. 2023, Table 1: Llama 2's context length


def _write(tmp_path, sc: dict):
    path = tmp_path / "s.yaml"
    path.write_text(json.dumps(sc))  # JSON is YAML
    return path


def test_a_phase_beyond_the_context_warns_as_the_main_run_does(tmp_path):
    assert llmcost.load_model("llama-2-70b").seq_len == LLAMA2_CONTEXT
    phase = {"name": "long", "tokens": 1.0e11, "seq_len": 1_048_576, "mfu": 0.3}
    sc = {**DEFAULT, "phases": [phase]}
    r = run_cli("estimate", "--scenario", str(_write(tmp_path, sc)), "--format", "json")
    assert r.returncode == 0, r.stderr
    mine = [w for w in json.loads(r.stdout)["warnings"] if w.startswith("phases[0]")]
    assert len(mine) == 1, mine
    # the main run's sentence (checks.context_warning), named for the phase
    main = context_warning(llmcost.load_model("llama-2-70b"), 1_048_576, phase=True)
    assert main.startswith("seq_len=1,048,576 is beyond the 4,096-token sequence length "
                           "llama-2-70b was pre-trained at")
    assert mine[0].startswith("phases[0] ('long', seq_len=1,048,576): " + main.rstrip("."))
    assert "at its own mfu=0.3" in mine[0]
    # its line on the index says so too (it read "phases[0] ('long', seq_len=1,048,576)" only)
    assert caveat_line(mine[0]) == (
        "the long phase's 1,048,576-token sequences extend the model's 4,096-token pre-training "
        "context, at the phase's own MFU, whose plan is not checked")
    # the same length on the main run warns with the same sentence
    said = scenario_warnings({**DEFAULT, "seq_len": 1_048_576, "global_batch_tokens": 4194304,
                              "phases": []})
    assert any(w.startswith("seq_len=1,048,576 is beyond the 4,096-token") for w in said)
    # a phase within the context (2,048 < 4,096) is not warned of
    short = {**phase, "seq_len": 2048}
    assert not [w for w in scenario_warnings({**DEFAULT, "phases": [short]})
                if w.startswith("phases[0]")]


def test_a_phase_of_less_than_one_step_is_refused_as_the_main_run_is():
    # default.yaml's global batch: 4,194,304 tokens per optimizer step (Llama 2, Table 1's 4M)
    b = DEFAULT["global_batch_tokens"]
    assert b == 4_194_304
    with pytest.raises(ScenarioError) as main:
        validate_parameters(**{**DEFAULT, "train_tokens": 1e6})
    assert "train_tokens=1,000,000 is less than one step" in str(main.value)
    with pytest.raises(ScenarioError) as ph:
        validate_parameters(**{**DEFAULT, "phases": [{"name": "anneal", "tokens": 1e6,
                                                      "seq_len": 4096}]})
    assert ("phases[0].tokens=1,000,000 is less than one step: global_batch_tokens=4,194,304 "
            "tokens are trained per optimizer step") in str(ph.value)
    # one step exactly is a run
    ok = validate_parameters(**{**DEFAULT, "phases": [{"name": "anneal", "tokens": float(b),
                                                       "seq_len": 4096}]})
    assert ok["phases"][0]["tokens"] == b


def test_a_phase_past_the_declared_context_is_the_extension_not_a_model_that_does_not_exist(
        tmp_path):
    # A new-user trial: a 65,536-token long-context phase on a model declaring 32,768 tokens
    # (max_position_embeddings) was told its FLOPs "describe a model that does not exist", where
    # the phase is the context extension itself. Llama 3.1 70B declares 131,072 tokens (its
    # config.json); a 262,144-token phase extends past it, the main run at that length does not.
    spec = llmcost.load_model("llama-3.1-70b")
    assert spec.max_position_embeddings == 131072
    phase = context_warning(spec, 262144, phase=True)
    assert phase.startswith("seq_len=262,144 is beyond llama-3.1-70b's declared context of "
                            "131,072 tokens (max_position_embeddings): the phase is a context "
                            "extension past it") and "does not exist" not in phase
    assert "does not exist" in context_warning(spec, 262144)      # the main run: unchanged
    assert "(position scaling such as Llama 3.1's RoPE rescaling or YaRN)" in phase
    # a learned position table is no RoPE (a review): OPT-175B's 2,048 positions (Zhang et al.
    # 2022, learned) are extended, not rescaled
    opt = llmcost.load_model("opt-175b")
    assert opt.pos_encoding == "learned"
    words = context_warning(opt, 2 * opt.max_position_embeddings, phase=True)
    assert "learned position table extended" in words and "RoPE" not in words
    sc = {**DEFAULT, "model": "llama-3.1-70b", "seq_len": 8192, "global_batch_tokens": 4194304,
          "phases": [{"name": "long-context", "tokens": 1e10, "seq_len": 262144, "mfu": 0.3}]}
    r = run_cli("estimate", "--scenario", str(_write(tmp_path, sc)), "--format", "json")
    assert r.returncode == 0, r.stderr
    (mine,) = [w for w in json.loads(r.stdout)["warnings"] if w.startswith("phases[0]")]
    assert caveat_line(mine) == (
        "the long-context phase's 262,144-token sequences extend the model's declared "
        "131,072-token context, at the phase's own MFU, whose plan is not checked")
