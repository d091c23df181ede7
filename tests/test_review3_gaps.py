"""Gaps a review found in the session's changes, each a test of what the change should do (check
judging a claim on defaults it never stated, the short-run warning's cause, the point bill's
digits, compared labels and listed items)."""

from types import SimpleNamespace

import pytest

from llmcost.present.cli import main


def _said(text: str) -> str:
    return " ".join(text.split())


def test_train_flops_give_the_tokens_of_a_scenario_that_states_none(tmp_path, capsys):
    # --train-flops "gives the tokens when --train-tokens is not given" (its help). A scenario
    # without train_tokens states none: D = C / (6N) = 3e23 / (6 × 8.03e9) = 6.226e12 tokens
    # (llama-3.1-8b's 8.03B active parameters, the catalogue count). bfc35a55's parent refused
    # "--train-flops=3e+23 disagrees with train_tokens=2e+12", a default nobody stated.
    path = tmp_path / "m.yaml"
    path.write_text("model: llama-3.1-8b\naccelerator: H100-SXM\n")
    code = main(["check", "--scenario", str(path), "--train-flops", "3e23", "--gpu-hours", "3e5"])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "6.226e+12" in _said(out.out)


def test_days_and_hours_without_gpus_are_not_judged_on_the_default_gpus(tmp_path, capsys):
    # 30 days and 50,000 GPU-hours state 50,000 / (30 × 24) = 69.4 GPUs, not the notebooks'
    # 2,048 (30 × 24 × 2,048 = 1,474,560 GPU-h, +2,849% of the claim): the claim is consistent
    # with itself and must not be refused as "inconsistent claim".
    path = tmp_path / "nogpus.yaml"
    path.write_text("model: llama-3.1-8b\naccelerator: H100-SXM\ntrain_tokens: 1.0e12\n"
                    "seq_len: 8192\nmfu: 0.4\n")
    code = main(["check", "--scenario", str(path), "--days", "30", "--gpu-hours", "50000"])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "inconsistent claim" not in out.err


def test_the_short_run_warning_turns_on_steps_not_tokens(tmp_path):
    # Kaplan et al. 2020 Eq. 5.4 and 5.6 with N = 6.98e9 (llama-3.1-8b's non-embedding
    # parameters): 1e8 tokens at a 1,048,576-token batch is 95 steps and ends near 12.5 nats,
    # above ln 50,257 = 10.8; the same 1e8 tokens at 65,536 is 1,526 steps and ends near 4.8,
    # below it. The warning turns on the step count D / B, so it must name the batch too.
    from llmcost.bill.validation import short_run_warning
    base = {"model": "llama-3.1-8b", "train_tokens": 1e8}
    assert short_run_warning({**base, "global_batch_tokens": 65536}) is None
    w = short_run_warning({**base, "global_batch_tokens": 1048576})
    assert w is not None and 12.4 < float(w.split("ends at ")[1].split(" nats")[0]) < 12.6


def test_the_short_run_warning_names_the_batch_it_turns_on():
    from llmcost.bill.validation import short_run_warning
    w = short_run_warning({"model": "llama-3.1-8b", "train_tokens": 1e8,
                           "global_batch_tokens": 1048576})
    assert "global_batch_tokens" in w and "95" in w  # 1e8 / 1,048,576 = 95.4 steps


def test_a_point_bill_without_a_spread_keeps_three_figures():
    # P10 = P90: usd_span says "$3.70M either way"; the point beside it should read $3.70M
    # too, not $3,700,000 (bfc35a55's parent: "costs $3,700,000, likely $3.70M either way").
    from llmcost.present import glance
    t = {"key": "total", "point_usd": 3.7e6, "p10_usd": 3.7e6, "p50_usd": 3.7e6,
         "p90_usd": 3.7e6, "point_outside": False}
    first = glance.plain_sentences({"bill_glance": {"lines": [t], "tornado": [],
                                                    "ranges": {}}})[0]
    assert first.startswith("The whole project costs $3.70M,")


def test_a_compared_label_never_leaves_a_parenthesis_open():
    # Two bills whose exploratory line is clamped by different post-training lines
    # (ledger._exploratory_line: "... (none left: X exceeds the multiplier)").
    from llmcost.bill.ledger import _shared_label
    a = SimpleNamespace(line="exploratory and failed runs (none left: supervised fine-tuning "
                        "(SFT) exceeds the multiplier)")
    b = SimpleNamespace(line="exploratory and failed runs (none left: RL post-training exceeds "
                        "the multiplier)")
    label = _shared_label(a, b)
    assert label.count("(") == label.count(")"), label


def test_compared_phases_that_differ_read_differently():
    # The trial's "1 (research) → 1 (research)" (fixed for ledger_people) holds for phases,
    # exploratory runs and people who differ in usd_per_year.
    from llmcost.present import glance
    a = SimpleNamespace(scenario={"phases": [{"name": "long-context", "tokens": 1e11,
                                              "seq_len": 131072}]})
    b = SimpleNamespace(scenario={"phases": [{"name": "long-context", "tokens": 4e11,
                                              "seq_len": 131072}]})
    (said,) = glance.other_inputs_differing([a, b])
    left, right = said.split(" → ")
    assert left.removeprefix("phases ") != right
