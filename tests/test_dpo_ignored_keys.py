"""`rl_algorithm: dpo` says which rl_ keys of the scenario it ignores.

DPO (Rafailov et al. 2023, arXiv:2305.18290, §4) trains on a fixed set of preference pairs, a
chosen and a rejected response per prompt, with no sampling from the policy and no reward
model. Per pair the bill prices the policy's forward + backward, 6·N per token, and the
reference's forward, 2·N per token (Kaplan et al. 2020 §2.1), over the prompt twice and both
responses: 8·N·2·(P + R) FLOPs per prompt. A trial set rl_algorithm: dpo in a copy of
default.yaml and its 16 samples per prompt, verifier reward, rollout TP and async flag were
silently ignored; the bill now warns once, listing the keys the scenario itself sets.
"""

import json

import pytest
from _cli import run_cli

import llmcost
from llmcost import ledger
from llmcost.bill.checks import DPO_IGNORED_KEYS, dpo_ignored_warning

DEFAULT = {k: v for k, v in llmcost.load_scenario(llmcost.SCENARIO_DIR / "default.yaml").items()
           if k not in ("title", "description")}
# Llama 2 70B: 68,976,648,192 parameters (Touvron et al. 2023, Table 1 shapes; the count is
# derived by hand in tests/test_ledger.py); H100 SXM dense BF16 peak 989.4 TFLOP/s (datasheet)
N_70B, H100_BF16 = 68_976_648_192, 989.4e12


def _write(tmp_path, sc: dict):
    path = tmp_path / "s.yaml"
    path.write_text(json.dumps(sc))  # JSON is YAML
    return path


def test_the_trial_scenario_warns_once_listing_the_keys_it_sets(tmp_path):
    sc = {**DEFAULT, "rl_algorithm": "dpo"}
    r = run_cli("estimate", "--scenario", str(_write(tmp_path, sc)), "--format", "json")
    assert r.returncode == 0, r.stderr
    mine = [w for w in json.loads(r.stdout)["warnings"] if w.startswith("rl_algorithm=dpo")]
    assert len(mine) == 1, mine
    w = mine[0]
    assert w.startswith("rl_algorithm=dpo ignores 7 rl_ keys the scenario sets: "
                        "rl_samples_per_prompt=16 (DPO scores 2 given responses per prompt, "
                        "the chosen and the rejected one); rl_reward=verifier")
    for k in ("rl_response_tokens_max=3,584", "rl_rollout_tp=4", "rl_async=false",
              "rl_partial_rollouts=false", "rl_ppo_epochs=1"):
        assert k in w
    assert "no generation" in w and "Still billed" not in w  # default.yaml: 0, null, 0.0
    # GRPO, the same file: no such warning
    r = run_cli("estimate", "--scenario", str(_write(tmp_path, DEFAULT)), "--format", "json")
    assert not [w for w in json.loads(r.stdout)["warnings"] if "rl_algorithm=dpo" in w]


def test_the_listed_keys_do_not_move_the_dpo_line_by_hand():
    # 32 pairs of 512-token prompts and 1,024-token responses, 1,000 iterations × 5 runs at a
    # given 40% MFU: 8·N·2·32·(512 + 1,024) FLOPs per iteration on the dense BF16 peak
    sc = {**DEFAULT, "rl_algorithm": "dpo", "rl_train_mfu": 0.4}
    flops = 8 * N_70B * 2 * 32 * (512 + 1024)
    gpu_h = flops / (H100_BF16 * 0.4) / 3600 * 1000 * 5
    assert gpu_h == pytest.approx(190.4, abs=0.1)
    base = ledger.build_ledger(sc)
    assert base.figures["rl_gpu_hours"] == pytest.approx(gpu_h, rel=1e-4)
    changed = {"rl_samples_per_prompt": 4, "rl_reward": "reward_model",
               "rl_response_tokens_max": 2048, "rl_rollout_tp": 8, "rl_partial_rollouts": True,
               "rl_ppo_epochs": 3, "rl_rollout_weight_dtype": "fp8"}
    assert set(changed) | {"rl_async"} == set(DPO_IGNORED_KEYS)
    for k, v in changed.items():
        # the response lengths are drawn around the mean up to the maximum: their sum is the
        # mean's within rounding, 1e-4 (rl.response_lengths)
        got = ledger.build_ledger({**sc, k: v}).figures["rl_gpu_hours"]
        assert got == pytest.approx(gpu_h, rel=1e-4), k
    # rl_async needs separate rollout GPUs, which DPO leaves idle: the warning says so
    w = dpo_ignored_warning({**sc, "rl_async": True, "rl_rollout_gpus": 32})
    assert "rl_async=true (no rollout engine to overlap with)" in w
    assert "Still billed although DPO has no rollout engine or reward to pay for: " \
        "rl_rollout_gpus=32 (GPUs idle for the whole iteration)" in w
    both = ledger.build_ledger({**sc, "rl_rollout_gpus": 32})
    assert both.figures["rl_parts_gpu_hours"]["idle"] == pytest.approx(gpu_h, rel=1e-4)


def test_only_the_keys_the_scenario_sets_are_listed():
    values = {**DEFAULT, "rl_algorithm": "dpo"}
    every = set(DEFAULT) - {"rl_reward"}
    w = dpo_ignored_warning(values, defaults=every)
    assert w.startswith("rl_algorithm=dpo ignores 1 rl_ key the scenario sets: "
                        "rl_reward=verifier (the preferences are given, not scored). ")
    assert dpo_ignored_warning(values, defaults=set(DEFAULT)) is None
    assert dpo_ignored_warning({**values, "rl_algorithm": "grpo"}) is None
