"""The empirical vLLM decode factor on GB200-NVL72 (``rl.VLLM_DECODE_FACTORS``) is said wherever
the RL campaign's generation is described: the bill's RL line, ``llmcost estimate`` and notebook
05's headline. A new-user trial saw the same campaign take 8,280 GPU-hours on GB200-NVL72 against
3,693 on B200, generation 7,781 against 3,170, and no text saying why. Words only: the factor's
value and scope are the RL model's (tests/test_rl*.py)."""

import csv

import pytest

import llmcost
from llmcost.core.catalog import DATA_DIR
from llmcost.present import answers
from llmcost.present.cli import bill_text
from llmcost.serving import rl

#: A small RL campaign (GRPO, the notebooks' default rollout shape) on 8 GPUs of each accelerator.
RL = {"model": "llama-3.1-8b", "n_gpus": 72, "train_tokens": 1e10, "mfu": 0.4,
      "rl_iterations": 10, "rl_runs": 1, "rl_gpus": 8, "rl_train_mfu": 0.3}


def _calibration_rows():
    """By hand from data/rl_iterations.csv: the calibration rows generating with vLLM on
    GB200-NVL72, the NeMo RL v0.5 performance summary's GB200 BF16 GRPO rows (Llama 3.1 8B and
    Qwen3-30B-A3B, each on-policy and 1-step off-policy)."""
    with open(DATA_DIR / "rl_iterations.csv") as f:
        return [r for r in csv.DictReader(f) if r["split"] == "calibration"
                and r["engine"] == "vLLM" and r["accelerator"] == "GB200-NVL72"]


def test_the_words_name_the_factor_its_source_and_its_scope():
    rows = _calibration_rows()
    assert sorted(r["id"] for r in rows) == [
        "nemo-rl-v0.5-gb200-llama3.1-8b-off1", "nemo-rl-v0.5-gb200-llama3.1-8b-on",
        "nemo-rl-v0.5-gb200-qwen3-30b-a3b-off1", "nemo-rl-v0.5-gb200-qwen3-30b-a3b-on"]
    w = rl.decode_factor_words("GB200-NVL72")
    # the factor to 3 figures (2.459 shipped): 4 rows do not carry a fourth
    assert "takes 2.46× the serving model's decode-step time" in w
    assert "empirical slowdown of vLLM's decode" in w
    assert "fitted on 4 published NeMo RL step times on GB200-NVL72" in w
    assert "docs/about/performance-summary.md @ 6c70893 (tag v0.5.0)" in w
    assert "applied to GB200-NVL72 only: any other accelerator decodes at the serving " \
        "model's time" in w
    # B200 and GB300-NVL72 (also Grace-hosted Blackwell) decode at 1×: nothing to say
    for acc in ("B200", "GB300-NVL72", "H100-SXM"):
        assert rl.decode_factor_words(acc) == ""
    assert rl.decode_factor_words("GB200-NVL72", engine="SGLang") == ""
    with pytest.raises(ValueError, match="TPU v9"):
        rl.decode_factor_words("TPU v9")


@pytest.mark.parametrize("acc,said", [("GB200-NVL72", True), ("B200", False)])
def test_the_bill_and_estimate_say_it_on_gb200_only(acc, said):
    bill = llmcost.build_ledger({**RL, "accelerator": acc})
    line = bill.line("post.rl")
    assert line.status == "modelled" and line.usd > 0
    assert ("rl.VLLM_DECODE_FACTORS" in line.how) is said
    assert ("generation: each decode step of the rollout on GB200-NVL72 takes 2.46×"
            in line.how) is said
    text = " ".join(bill_text(bill, "x.yaml").split())  # its lines unwrapped
    assert ("RL post-training generation: " + rl.decode_factor_words("GB200-NVL72")
            in text) is said
    assert ("RL post-training generation" in text) is said


def test_dpo_generates_nothing_so_says_no_decode_factor():
    # a trial: rl_algorithm dpo on GB200-NVL72 printed the rollout's decode factor beside the
    # DPO warning that says it has no generation
    bill = llmcost.build_ledger({**RL, "accelerator": "GB200-NVL72", "rl_algorithm": "dpo"})
    assert bill.line("post.rl").usd > 0
    assert "rl.VLLM_DECODE_FACTORS" not in bill.line("post.rl").how
    assert "RL post-training generation" not in bill_text(bill, "x.yaml", columns=400)


def test_no_rl_campaign_says_nothing():
    bill = llmcost.build_ledger({k: v for k, v in RL.items() if not k.startswith("rl_")}
                                | {"accelerator": "GB200-NVL72"})
    assert bill.line("post.rl").usd == 0
    assert "RL post-training generation" not in bill_text(bill, "x.yaml", columns=400)


def test_notebook_05s_headline_carries_the_note():
    note = rl.decode_factor_words("GB200-NVL72")
    text = answers.rl_loop("L", "GB200-NVL72", 1.0, 87.5, 0.8, 1e5, decode_note=note)
    assert text.endswith(f" Its generation carries an empirical factor: {note}.")
    plain = answers.rl_loop("L", "B200", 1.0, 35.7, 0.6, 1e5,
                            decode_note=rl.decode_factor_words("B200"))
    assert "empirical" not in plain and plain.endswith(".")


def test_the_iteration_shape_in_words_names_dpo_pairs():
    # A trial: a DPO campaign's bill line read "64 prompts × 16 samples of 512 + 2048 tokens
    # (max 7680)", GRPO's settings DPO ignores; DPO trains a chosen and a rejected response per
    # prompt (RLOptions.samples: 2 per pair)
    from llmcost.serving import rl
    p = {"rl_algorithm": "grpo", "rl_prompts_per_step": 64, "rl_samples_per_prompt": 16,
         "rl_prompt_tokens": 512, "rl_response_tokens": 2048, "rl_response_tokens_max": 7680,
         "rl_gpus": 64}
    assert rl.shape_words(p) == ("GRPO, 64 prompts × 16 samples of 512 + 2048 tokens (max 7680) "
                                 "on 64 GPUs")
    dpo = rl.shape_words({**p, "rl_algorithm": "dpo", "rl_response_tokens": 1024})
    assert dpo == "DPO, 64 pairs (chosen and rejected) of 512 + 1024 tokens on 64 GPUs"
    assert "samples" not in dpo and "max" not in dpo
