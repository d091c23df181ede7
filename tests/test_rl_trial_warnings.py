"""What an RL post-training lead's trial found the bill priced without a word.

Each case is the trial's own scenario (or its shape); each figure it checks is a hand derivation,
a published figure or the RL model's validation rows.
"""

from pathlib import Path

import pytest

from llmcost.core.catalog import load_model
from llmcost.present.report import estimate_ledger
from llmcost.serving import rl

#: Llama 3.1 8B trained at 8,192 tokens, GRPO on 32 H100 (the trial's shape).
BASE = ("model: llama-3.1-8b\naccelerator: H100-SXM\nn_gpus: 256\ntrain_tokens: 1.0e12\n"
        "seq_len: 8192\nmfu: 0.4\nprice_usd_per_gpu_hour: 3.0\nrl_algorithm: grpo\n"
        "rl_prompts_per_step: 64\nrl_samples_per_prompt: 16\nrl_prompt_tokens: 512\n"
        "rl_response_tokens: 2048\nrl_gpus: 32\nrl_rollout_tp: 1\n")


def _bill(tmp_path, extra: str):
    """The bill of BASE with the keys of ``extra`` (YAML lines) replaced or added."""
    keys = {line.split(":")[0] for line in extra.splitlines()}
    base = "".join(f"{line}\n" for line in BASE.splitlines() if line.split(":")[0] not in keys)
    p = Path(tmp_path) / "s.yaml"
    p.write_text(base + extra + "\n")
    return estimate_ledger(p)


def _said(bill, start: str) -> list:
    return [w for w in bill.warnings if w.startswith(start)]


def test_a_campaign_size_left_to_the_illustration_is_said(tmp_path):
    """``ledger_rl: true`` without ``rl_iterations`` or ``rl_runs`` billed notebook 05's
    illustrative 5 runs × 1,000 iterations; ``rl_iterations`` alone billed 5 runs; neither was
    said."""
    bill = _bill(tmp_path, "rl_response_tokens_max: 8192\nledger_rl: true")
    (w,) = _said(bill, "the RL campaign's size is in part the notebooks' illustration")
    assert "gives no rl_iterations or rl_runs, so the RL line bills rl_iterations=1,000, " \
        "rl_runs=5" in w
    bill = _bill(tmp_path, "rl_response_tokens_max: 8192\nrl_iterations: 200")
    (w,) = _said(bill, "the RL campaign's size is in part the notebooks' illustration")
    assert "gives no rl_runs, so the RL line bills rl_runs=5" in w and "rl_iterations" not in w
    bill = _bill(tmp_path, "rl_response_tokens_max: 8192\nrl_iterations: 200\nrl_runs: 2")
    assert not _said(bill, "the RL campaign's size")
    # a scenario that describes no campaign bills none, and says nothing of its size
    bill = _bill(tmp_path, "rl_response_tokens_max: 8192")
    assert not _said(bill, "the RL campaign's size") and bill.line("post.rl").usd == 0


def test_a_rollout_beyond_the_model_s_own_context_is_said_as_such(tmp_path):
    """Llama 3.1 8B holds 131,072 tokens (its config's max_position_embeddings, Meta's model
    card: "128K context length"): a 512 + 200,000-token rollout was billed with the sentence
    of a legitimate 512 + 8,192 one (beyond the 8,192 tokens the scenario trains at)."""
    assert load_model("llama-3.1-8b").max_position_embeddings == 131072
    far = _bill(tmp_path, "rl_response_tokens_max: 200000\nrl_iterations: 10\nrl_runs: 1")
    (w,) = _said(far, "the RL campaign's longest rollout")
    assert "512 + 200,000 = 200,512 tokens, is beyond the 131,072 tokens llama-3.1-8b can " \
        "attend" in " ".join(w.split())
    near = _bill(tmp_path, "rl_response_tokens_max: 8192\nrl_iterations: 10\nrl_runs: 1")
    (w,) = _said(near, "the RL campaign's longest rollout")
    assert "is beyond the 8,192 tokens the scenario trains its model at" in w


def test_the_wait_for_the_longest_responses_is_said_beyond_the_checked_runs(tmp_path):
    """The trial: rl_response_tokens_max from 8,192 to 131,072 at a 2,048-token mean took the
    RL line from $5.9k to $101k, generation 99% of it, unsaid. The RL model's checked runs
    (``data/rl_iterations.csv``) wait at most ``rl.TAIL_SHARE_CHECKED`` of an iteration on the
    tail, with limits of at most 8,192 tokens; beyond both the line is said to rest on the
    response-length limit."""
    long_ = _bill(tmp_path, "rl_response_tokens_max: 32768\nrl_iterations: 10\nrl_runs: 1")
    (w,) = _said(long_, f"{long_.figures['rl_tail_gpu_hours'] / long_.figures['rl_gpu_hours']:.1%}"
                 " of the RL line's GPU-hours wait for the longest responses")
    assert "rl_response_tokens_max=32,768 tokens, 16.0× the mean rl_response_tokens=2,048" in \
        " ".join(w.split())
    assert long_.figures["rl_tail_gpu_hours"] / long_.figures["rl_gpu_hours"] > \
        rl.TAIL_SHARE_CHECKED
    # the tail is part of the generation part the bill lists
    assert long_.figures["rl_tail_gpu_hours"] < \
        long_.figures["rl_parts_gpu_hours"]["generation"]
    assert "(at most 54.7%, with responses of at most 8,192 tokens)" in " ".join(w.split())
    # within the checked runs' longest limit (NeMo RL v0.4's Qwen3-235B rows, 8,192 tokens),
    # nothing said, whatever the share
    at_limit = _bill(tmp_path, "rl_response_tokens_max: 8192\nrl_iterations: 10\nrl_runs: 1")
    assert at_limit.figures["rl_tail_gpu_hours"] / at_limit.figures["rl_gpu_hours"] > \
        rl.TAIL_SHARE_CHECKED
    assert not [w for w in at_limit.warnings if "wait for the longest responses" in w]
    # responses that all have the same length have no tail: nothing said
    flat = _bill(tmp_path, "rl_response_tokens_max: 2048\nrl_iterations: 10\nrl_runs: 1")
    assert flat.figures["rl_tail_gpu_hours"] == 0
    assert not [w for w in flat.warnings if "wait for the longest responses" in w]


def test_idle_gpus_of_a_separate_placement_are_said(tmp_path):
    """The trial's PPO 70B held 48.9% of its RL GPU-hours idle (separate rollout and training
    GPUs, synchronous: each waits for the other's phase), unsaid. By hand, with the 32 RL GPUs
    split 16 + 16: the trainers idle through generation and the generators through training,
    idle = 16·(wall − sync), so idle ÷ (32·wall) = (1 − sync share) ÷ 2."""
    bill = _bill(tmp_path, "rl_response_tokens_max: 4096\nrl_rollout_gpus: 16\n"
                           "rl_iterations: 10\nrl_runs: 1")
    parts = bill.figures["rl_parts_gpu_hours"]
    total = sum(parts.values())
    assert total == pytest.approx(bill.figures["rl_gpu_hours"], rel=1e-9)
    share = parts["idle"] / total
    assert share == pytest.approx((1 - parts["sync"] / total) / 2, abs=1e-3)
    (w,) = [w for w in bill.warnings if "are GPUs held idle" in w]
    assert w.startswith(f"{share:.0%} of the RL line's GPU-hours are GPUs held idle")
    colocated = _bill(tmp_path, "rl_response_tokens_max: 4096\nrl_iterations: 10\nrl_runs: 1")
    assert colocated.figures["rl_parts_gpu_hours"]["idle"] == 0
    assert not [w for w in colocated.warnings if "are GPUs held idle" in w]


def test_dpo_variants_that_change_only_what_dpo_does_not_read_are_notes():
    """Notebook 05's tables priced a DPO scenario's "G = 64", "no tail" and "partial
    rollouts" rows at the scenario's own 3.13 s: DPO scores a chosen and a rejected response per
    prompt and generates nothing (Rafailov et al. 2023, arXiv:2305.18290 §4)."""
    from llmcost.bill.checks import DPO_IGNORED_KEYS
    from llmcost.bill.scenario import LEDGER_DEFAULTS
    assert set(DPO_IGNORED_KEYS) == set(rl.DPO_UNREAD_KEYS)
    p = {**LEDGER_DEFAULTS, "model": "llama-2-13b", "accelerator": "H100-SXM",
         "seq_len": 4096, "dtype": "bf16", "rl_algorithm": "dpo", "rl_gpus": 16}
    grid = rl.scenario_variants(p, {"scenario": {}, "G = 64": dict(rl_samples_per_prompt=64),
                                    "partial rollouts": dict(rl_partial_rollouts=True),
                                    "mean response × 2": dict(rl_response_tokens=2048),
                                    "separate, asynchronous": dict(rl_rollout_gpus=8,
                                                                   rl_async=True)}, 3.0)
    g = grid.set_index("change")
    for label, key in (("G = 64", "rl_samples_per_prompt"),
                       ("partial rollouts", "rl_partial_rollouts")):
        assert g.loc[label, "note"].startswith(f"DPO reads no {key}")
        assert g.loc[label, "wall_s"] != g.loc[label, "wall_s"]  # NaN: no number
    # pairs twice as long: a real change, priced (the passes cost at least as much)
    assert g.loc["mean response × 2", "wall_s"] > g.loc["scenario", "wall_s"]
    assert g.loc["mean response × 2", "note"] == ""
    # separate GPUs are read (they idle), rl_async is not: priced, and said
    assert g.loc["separate, asynchronous", "note"].startswith("DPO reads no rl_async")
    with pytest.raises(ValueError, match="^rl_algorithm='gpro' must be one of ppo, grpo, dpo"):
        rl.framework_options("nemo-rl-0.6", "H100-SXM", asynchronous=False,
                             sequence_tokens=4096, algorithm="gpro")


def test_the_json_comparison_lists_every_input_that_differs(tmp_path):
    """The trial compared two RL scenarios differing in 12 keys: the text lists 8 and "and 4
    more", as a reader wants, but the JSON ended the same way and lost the keys' names."""
    from llmcost.present.glance import compare_inputs
    a = _bill(tmp_path, "rl_response_tokens_max: 8192\nrl_iterations: 10\nrl_runs: 1")
    changes = ("rl_response_tokens_max: 16384\nrl_iterations: 20\nrl_runs: 2\n"
               "rl_prompts_per_step: 32\nrl_samples_per_prompt: 8\nrl_prompt_tokens: 256\n"
               "rl_response_tokens: 1024\nrl_gpus: 64\nrl_rollout_tp: 2\n"
               "rl_verifier_usd_per_sample: 0.001\nrl_weight_sync_s: 2.0\nrl_ppo_epochs: 2")
    (tmp_path / "b").mkdir()
    b = _bill(tmp_path / "b", changes)
    short, full = compare_inputs([a, b]), compare_inputs([a, b], most=None)
    moved = [line.split(" ")[0] for line in full if line.startswith("rl_")]
    assert len(moved) == 12 and not any(line.startswith("and ") for line in full)
    assert short[-1].startswith("and 4 more: ")   # the rest by name (a new-user trial)


def test_the_index_says_the_rl_context_caveat_in_a_line(tmp_path):
    from llmcost.present.glance import caveat_line
    far = _bill(tmp_path, "rl_response_tokens_max: 200000\nrl_iterations: 10\nrl_runs: 1")
    (w,) = _said(far, "the RL campaign's longest rollout")
    assert caveat_line(w) == ("the RL rollouts reach 200,512 tokens, longer than the 131,072 "
                              "tokens llama-3.1-8b can attend: the RL line prices a KV cache "
                              "and attention the model cannot use")


def test_the_estimate_says_where_the_default_rl_time_factor_comes_from():
    """The trial read "× 1.69, published GRPO runs' median" and never the spread the bill draws
    (0.55-3.15) nor that the runs are NeMo RL's 24 held-out GRPO rows with responses of at
    most 8,192 tokens (data/rl_iterations.csv)."""
    from llmcost import SCENARIO_DIR
    from llmcost.present.cli import bill_text
    v = rl.load_rl_validation()
    g = v[(v["split"] == "heldout") & (v["algorithm"] == "grpo")]
    assert len(g) == 24 and set(g["system"]) == {"NeMo RL"}
    assert g["response_tokens_max"].max() == 8192
    text = " ".join(bill_text(estimate_ledger(SCENARIO_DIR / "default.yaml"), columns=100)
                    .split())
    assert ("× 1.69, published GRPO runs' median, drawn over 0.55-3.15 for the P10-P90 (the 24 "
            "held-out published GRPO runs, all NeMo RL, responses up to 8,192 tokens)") in text
    assert rl.RL_TIME_FACTOR_RANGE == (0.55, 3.15)


def test_the_new_rl_sentences_fit_dpo_and_an_asynchronous_split(tmp_path):
    """A review: the idle warning offered rl_async to a scenario that had it on, and to DPO
    (which reads no rl_async: its separate GPUs idle the whole iteration, said by DPO's own
    warning); the context sentence spoke of a KV cache to DPO, which generates nothing."""
    on = _bill(tmp_path, "rl_response_tokens_max: 4096\nrl_rollout_gpus: 8\nrl_async: true\n"
                         "rl_iterations: 10\nrl_runs: 1")
    (w,) = [w for w in on.warnings if "are GPUs held idle" in w]   # 8 rollout GPUs of 32
    assert "asynchronous iterations (rl_async)" not in w
    assert "training GPUs, asynchronous)" in w
    dpo = _bill(tmp_path, "rl_algorithm: dpo\nrl_response_tokens: 200000\n"
                          "rl_response_tokens_max: 200000\nrl_rollout_gpus: 16\n"
                          "rl_iterations: 10\nrl_runs: 1")
    assert not [w for w in dpo.warnings if "are GPUs held idle" in w]
    (w,) = _said(dpo, "the RL campaign's preference pairs")
    w = " ".join(w.split())
    assert "passes over pairs longer than the model attends" in w and "KV cache" not in w


def test_a_framework_scenario_counts_the_runs_behind_its_own_range():
    """A review: with ``rl_framework: nemo-rl-0.6`` the note counted the generic 24 runs,
    where the framework's range comes from the 23 that mode prices (one refused: its comment,
    ``rl.RL_FRAMEWORK_TIME_FACTOR_RANGE``). The counts are constants beside the ranges, held
    here to the rows each mode prices."""
    generic = rl.rl_validation("scenario", split="heldout")["ratio"].dropna()
    framework = rl.rl_validation(rl.FRAMEWORK_MODE, split="heldout")["ratio"].dropna()
    assert (len(generic), len(framework)) == (rl.RL_TIME_FACTOR_RUNS,
                                              rl.RL_FRAMEWORK_TIME_FACTOR_RUNS) == (24, 23)
    assert rl.time_factor_runs_words({}).startswith("the 24 held-out published GRPO runs")
    assert rl.time_factor_runs_words({"rl_framework": "nemo-rl-0.6"}).startswith(
        "the 23 held-out published GRPO runs")


def test_a_rollout_tp_across_domains_that_one_domain_holds_is_said():
    # An RL team's trial: an 8B policy billed at rl_rollout_tp 32 (four 8-GPU H100 boards) ran
    # 10.4 days a run against 3.95 at TP 1, without a word. 8B in BF16 is 16 GB of weights: one
    # HGX board (8 GPUs, data/accelerators.csv scaleup_domain_size) holds it many times over.
    from llmcost.bill.ledger import build_ledger
    from llmcost.bill.validation import magnitude_warnings
    base = {"model": "llama-3.1-8b", "accelerator": "H100-SXM", "n_gpus": 64,
            "train_tokens": 1e11, "mfu": 0.4, "price_usd_per_gpu_hour": 2.5,
            "rl_iterations": 200, "rl_runs": 1, "rl_gpus": 64, "rl_response_tokens": 3000,
            "rl_response_tokens_max": 8192}

    def said(tp):
        b = build_ledger({**base, "rl_rollout_tp": tp})
        return [w for w in magnitude_warnings(b.scenario, b) if w.startswith("rl_rollout_tp=")]

    (w,) = said(32)
    assert w.startswith("rl_rollout_tp=32 spans 4 scale-up domains of 8 H100-SXM")
    assert w.endswith("set rl_rollout_tp=8 to compare")
    assert said(8) == [] and said(4) == []   # within one board: nothing to say


def test_an_rl_job_left_to_the_notebooks_example_is_said(tmp_path):
    """A startup's trial billed GRPO for a 410M model on 8 GPUs and read "49.5 min on 64 GPUs":
    the notebooks' RL job (data/scenarios/default.yaml: rl_gpus 64, rl_rollout_tp 4, "70B in
    bf16 needs 4 H100s"), which the scenario never set."""
    small = "n_gpus: 8\nrl_iterations: 200\nrl_runs: 2\nrl_response_tokens_max: 8192"
    p = Path(tmp_path) / "s.yaml"
    p.write_text("".join(f"{line}\n" for line in BASE.splitlines()
                         if line.split(":")[0] not in ("rl_gpus", "rl_rollout_tp", "n_gpus"))
                 + small + "\n")
    bill = estimate_ledger(p)
    (w,) = _said(bill, "the RL job is the notebooks' example")
    assert "runs the campaign on 64 GPUs" in w and "more than the scenario's 8 GPUs" in w
    # rollout GPUs of the scenario's own within the notebooks' job: said (a review)
    p.write_text(p.read_text() + "rl_rollout_gpus: 16\n")
    (w,) = _said(estimate_ledger(p), "the RL job is the notebooks' example")
    assert "on 64 GPUs at rl_rollout_tp=4, 16 of them the scenario's rollout GPUs" in w or \
        "on 64 GPUs, 16 of them the scenario's rollout GPUs" in w
    # the scenario's own RL job (BASE: rl_gpus 32, rl_rollout_tp 1): nothing to say
    assert not _said(_bill(tmp_path, small.replace("n_gpus: 8\n", "")),
                     "the RL job is the notebooks' example")
