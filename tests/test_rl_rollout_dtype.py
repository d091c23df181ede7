"""The RL rollouts' own weight precision (``rl_rollout_weight_dtype``) and the FP8-rollout
lever. Before the key, ``serve_weight_dtype`` set the rollouts' precision and the synthetic-data,
benchmark and serving lines' at once, so an FP8-rollout lever moved those lines too and was
withdrawn. FP8 rollouts as run: FlashRL (Liu, Yao et al. 2025, fengyao.notion.site/flash-rl:
8-bit rollouts, a BF16 trainer, truncated importance sampling); FP8-RL (Qiu et al. 2026,
arXiv:2601.18150: "up to 44% rollout throughput gains"); AIS (Zhou et al. 2026,
arXiv:2605.13907: "the 1.5 to 2.76× rollout speedup of FP8" on Qwen3-8B and LLaDA-8B).
"""

import pytest

import llmcost
from llmcost import levers as lv
from llmcost.bill.scenario import LEDGER_DEFAULTS, ScenarioError, load_scenario
from llmcost.serving import rl

GRPO_8B = {"model": "llama-3.1-8b", "accelerator": "H100-SXM", "n_gpus": 64,
           "train_tokens": 1e9, "seq_len": 8192, "mfu": 0.4, "price_usd_per_gpu_hour": 2.5,
           "rl_iterations": 500, "rl_runs": 1, "rl_gpus": 64, "rl_prompts_per_step": 256,
           "rl_samples_per_prompt": 8, "rl_prompt_tokens": 1024, "rl_response_tokens": 4096,
           "rl_response_tokens_max": 16384, "rl_rollout_tp": 1}


def test_the_rollouts_take_their_own_precision_else_the_serving_ones(tmp_path):
    p = {**LEDGER_DEFAULTS, **GRPO_8B}
    assert rl.rollout_weight_dtype(p) == "bf16" and rl.rollout_weight_dtype_key(p) == \
        "serve_weight_dtype"
    own = {**p, "rl_rollout_weight_dtype": "fp8"}
    assert rl.rollout_weight_dtype(own) == "fp8"
    assert rl.rollout_weight_dtype_key(own) == "rl_rollout_weight_dtype"
    # the same rollouts whichever key sets FP8: the iteration is the same
    by_key = rl.scenario_iteration(own)
    by_serving = rl.scenario_iteration({**p, "serve_weight_dtype": "fp8"})
    assert by_key.wall_s == pytest.approx(by_serving.wall_s, rel=1e-12)
    # the update is untouched: the trainer stays in BF16
    bf16 = rl.scenario_iteration(p)
    assert by_key.train_wall_s == pytest.approx(bf16.train_wall_s, rel=1e-12)
    # generation faster, but at most 2×: FP8 halves the weight bytes each decode step reads
    # (WEIGHT_BYTES: 2 -> 1 per parameter) and leaves the KV cache's, and prefill runs at most
    # at twice the BF16 peak (FP8 dense peak = 2 × BF16's, NVIDIA H100 datasheet)
    speedup = bf16.generation_wall_s / by_key.generation_wall_s
    assert 1.0 < speedup <= 2.0
    # a precision that is not one is refused by name, in a scenario file too
    f = tmp_path / "s.yaml"
    f.write_text("rl_rollout_weight_dtype: fp9\n")
    with pytest.raises(ScenarioError, match=r"rl_rollout_weight_dtype='fp9' must be one of"):
        load_scenario(f)


def test_fp8_rollouts_move_the_rl_line_only():
    # The lever sets rl_rollout_weight_dtype, not serve_weight_dtype: the synthetic-data line
    # (priced as served tokens at the serve_ set-up) stays as it was.
    sc = {**GRPO_8B, "ledger_synthetic_tokens": 1e9}
    ch = lv.rl_fp8_rollouts(sc)
    assert ch.after["rl_rollout_weight_dtype"] == "fp8" and not ch.note
    assert ch.after.get("serve_weight_dtype", "bf16") == "bf16"
    before, after = lv.bill(sc), lv.bill(ch.after)
    assert after.line("data.synthetic").usd == pytest.approx(before.line("data.synthetic").usd,
                                                             rel=1e-12)
    assert after.line("post.rl").usd < before.line("post.rl").usd
    # the RL line falls by the iteration's time saved: GPU-hours ∝ the iteration's wall time
    p = {**LEDGER_DEFAULTS, **GRPO_8B}
    t0 = rl.scenario_iteration(p).wall_s
    t1 = rl.scenario_iteration({**p, "rl_rollout_weight_dtype": "fp8"}).wall_s
    assert after.line("post.rl").usd / before.line("post.rl").usd == pytest.approx(t1 / t0,
                                                                                    rel=0.02)


def test_fp8_rollouts_say_when_they_change_nothing():
    assert lv.rl_fp8_rollouts({**GRPO_8B, "accelerator": "A100-80GB"}).note.startswith(
        "A100-80GB has no FP8 peak")
    assert lv.rl_fp8_rollouts({**GRPO_8B, "rl_rollout_weight_dtype": "int8"}).note == \
        "the RL rollouts already hold int8 weights"
    assert lv.rl_fp8_rollouts({**GRPO_8B, "serve_weight_dtype": "fp8"}).note == \
        "the RL rollouts already hold fp8 weights"
    assert lv.rl_fp8_rollouts({**GRPO_8B, "rl_algorithm": "dpo"}).note == \
        "DPO generates no rollouts"
    plain = {k: v for k, v in GRPO_8B.items() if not k.startswith("rl_")}
    assert lv.rl_fp8_rollouts(plain).note.startswith("the scenario bills no RL campaign")


def test_an_rl_saving_the_exploratory_line_takes_back_is_said():
    # A small-lab trial: on the default scenario with an RL campaign billed, partial rollouts
    # and FP8 rollouts "saved" $4 of a $15k RL line, without a word: the exploratory line is
    # Cottier et al.'s multiplier less the bill's post-training, so it rose by what the RL line
    # fell. The lever's note says so; with no exploratory multiplier the whole change reaches
    # the total and nothing is said.
    s = {**load_scenario(llmcost.SCENARIO_DIR / "default.yaml"), "rl_iterations": 500,
         "rl_runs": 3}
    row = lv.rank_levers(s, keys=["rl_fp8_rollouts"], samples=200).iloc[0]
    before, after = lv.bill(s), lv.bill(lv.rl_fp8_rollouts(s).after)
    fell = before.line("post.rl").usd - after.line("post.rl").usd
    assert fell > 1000 and abs(row["saving_usd"]) < 0.01 * fell
    assert "the exploratory line deducts" in row["note"] and \
        "moves the total by $0.00" in row["note"]
    none = lv.rank_levers({**s, "ledger_exploratory_fraction": 0}, keys=["rl_fp8_rollouts"],
                          samples=200).iloc[0]
    assert none["saving_usd"] == pytest.approx(fell, rel=0.01) and none["note"] == ""


def test_an_asynchronous_iteration_that_waits_on_the_trainer_says_why_fp8_saves_nothing():
    # A review: GRPO on Llama 3.1 8B, 48 of 64 GPUs generating asynchronously with short
    # responses: generation (about 5 s) hides under the trainer's update, so faster rollouts
    # leave the iteration's wall time, and the RL line, as they were; the lever said $0 and
    # nothing. By hand: the asynchronous iteration lasts max(generation, training).
    sc = {**GRPO_8B, "rl_async": True, "rl_rollout_gpus": 48, "rl_response_tokens": 256,
          "rl_response_tokens_max": 512, "ledger_exploratory_fraction": 0}
    p = {**LEDGER_DEFAULTS, **sc}
    it = rl.scenario_iteration(p)
    assert it.train_wall_s > it.generation_wall_s   # trainer-bound before the lever
    row = lv.rank_levers(sc, keys=["rl_fp8_rollouts"], samples=100).iloc[0]
    assert row["saving_usd"] == 0
    assert row["note"] == ("the asynchronous iteration waits on the trainer: faster generation "
                           "on the rollout GPUs does not shorten it")
