"""What a new-user trial found in the words of `llmcost estimate` and the report, fixed: a ranged
MFU said as the point of its range, not as a figure the scenario never typed; the levers' risks
in whole sentences."""

import re

import pytest

from llmcost.bill import checks, levers, validation
from llmcost.present import glance
from llmcost.present.cli import main

# the trial's scenario: Llama 3.1 70B on 4,096 H100 with mfu given as a range, whose point (the
# midpoint of a uniform range, (0.30 + 0.45) / 2 = 0.375) lies below the step-time model's band
RANGED = ("model: llama-3.1-70b\naccelerator: H100-SXM\nn_gpus: 4096\ntrain_tokens: 15e12\n"
          "seq_len: 8192\nmfu: [0.30, 0.45]\ndtype: bf16\nprice_usd_per_gpu_hour: 2.5\n"
          "global_batch_tokens: 16777216\n")


def test_a_ranged_mfu_is_said_as_the_point_of_its_range(tmp_path, capsys):
    path = tmp_path / "ranged.yaml"
    path.write_text(RANGED)
    assert main(["estimate", "--scenario", str(path)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert (0.30 + 0.45) / 2 == pytest.approx(0.375)
    assert "the scenario's mfu=0.375 (the point of its range 0.30–0.45) is below what the " \
        "step-time model expects of this plan" in out
    # the same figure given alone is said alone
    path.write_text(RANGED.replace("mfu: [0.30, 0.45]", "mfu: 0.375"))
    assert main(["estimate", "--scenario", str(path)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "the scenario's mfu=0.375 is below what the step-time model expects" in out
    assert "the point of its range" not in out


def test_the_ranged_words_are_read_by_the_index_and_the_own_run_line():
    w = ("the scenario's mfu=0.375 (the point of its range 0.30–0.45) is below what the "
         "step-time model expects of this plan (TP8 · PP4): 52%, band 40%–60% around that "
         "prediction")
    assert re.match(r"^the scenario's " + checks.GIVEN_MFU_PATTERN, w)
    assert validation._BELOW_THE_MODEL.match(w).groups() == (
        "0.375 (the point of its range 0.30–0.45)", "52%")
    assert glance.caveat_line(w) == ("the assumed MFU, 37.5% (the point of its range 30%–45%), "
                                     "is below what the model predicts for this plan (52%)")


def test_the_levers_risks_are_sentences():
    # the trial read "risk: none to recovery; ..." and a move's risk ending "...; capacity to find"
    words = levers.hardware_change("H100-SXM", "H200")
    assert words.startswith("the same generation (Hopper), so the same kernels and software "
                            "stack; the capacity still to be found, and a plan re-validated")
    assert levers.hardware_change("H100-SXM", "MI300X").endswith(
        "porting to a new software stack; the capacity still to be found")
    assert "capacity to find" not in levers.hardware_change("A100-80GB", "H100-SXM")


def test_a_ranged_mfus_own_run_line_keeps_the_step_time_model(tmp_path, capsys):
    # Llama 3 8B's own published run (1.3M H100 GPU-hours for 15T tokens: Meta's model card,
    # 18.8% whole-run MFU) beside a scenario that gives mfu as a range: the index's plain line
    # read "read the bill as optimistic" alone, the step-time model's clause dropped, where the
    # same scenario with mfu 0.40 said both bracket the MFU (a review of this fix)
    path = tmp_path / "own.yaml"
    path.write_text("model: llama-3.1-8b\naccelerator: H100-SXM\nn_gpus: 64\n"
                    "train_tokens: 1e12\nmfu: [0.35, 0.45]\n")
    assert main(["estimate", "--scenario", str(path)]) == 0
    text = " ".join(capsys.readouterr().out.split())
    own = "mfu: the catalogue holds " + text.split("warning: mfu: the catalogue holds ")[1] \
        .split(" warning: ")[0]
    # one parenthesis at a time (a review read "(the point of its range …) (55% on …")
    assert "than the given mfu=0.40 (the point of its range 0.35–0.45), " in own
    assert ") (" not in own
    line = glance.caveat_line(own)
    assert "where the scenario gives 40% (the point of its range 35%–45%): the two bracket " \
        "the MFU" in line, line


def test_the_recompute_levers_risk_says_what_lengthens_the_run():
    # a review: "fewer GPUs mean a longer run" was said whatever the GPU count
    import yaml

    from llmcost.core.catalog import SCENARIO_DIR
    s = yaml.safe_load((SCENARIO_DIR / "default.yaml").read_text())
    n = s["n_gpus"]
    none = {**s, "recompute": "none"}
    assert levers.activation_recompute(none, "full").risk == (
        "no risk to the run itself; more recomputation per step means a longer run, so its "
        "results come later")
    assert levers.activation_recompute(none, "selective", n // 2).risk.endswith(
        "; fewer GPUs and more recomputation per step mean a longer run, so its results come "
        "later")
    assert levers.activation_recompute({**s, "recompute": "full"}, "none").risk == \
        "no risk to the run itself"


def test_a_ranged_input_that_moves_nothing_keeps_its_key_as_written():
    # a trial read "Rl_time_factor: ranged, but ..." on the index: the note's first letter had
    # been upper-cased, the key with it
    from llmcost.present import report
    assert report._no_swing_words(["ledger_pue", "rl_time_factor"]) == (
        "Also ranged, not listed: ledger_pue, rl_time_factor (but the bill reads the same at its "
        "P10 and its P90)")


def test_a_missing_compare_file_is_named_as_the_compare_file(capsys):
    from llmcost.core.catalog import SCENARIO_DIR
    assert main(["estimate", "--scenario", str(SCENARIO_DIR / "default.yaml"), "--compare",
                 "/no/such/b.yaml"]) == 2
    assert "llmcost: error: the scenario to compare with (--compare): path='/no/such/b.yaml': " \
        "no such scenario file" in capsys.readouterr().err


def test_a_latency_target_chooses_the_serving_precision_with_its_own_reason(tmp_path):
    # Trial 23: a 1 ms target on Llama 3.1 8B switched the serving weights (and the RL
    # rollouts) to FP8 with the reason "leave no room for a batch", false (8B in BF16 is 2 GB per
    # GPU at TP 8). Roofline TPOT at batch 1 ~ weight bytes / tp / HBM bandwidth: 16.1 GB / 8 /
    # 3.35 TB/s = 0.60 ms plus the KV read and the all-reduce; the set-up check measured
    # 1.29 ms in BF16, so FP8 (half the bytes) is what meets 1 ms, and the reason says that
    from llmcost.present import report
    path = tmp_path / "s.yaml"
    base = ("model: llama-3.1-8b\naccelerator: H100-SXM\nn_gpus: 64\ntrain_tokens: 1e11\n"
            "mfu: 0.4\n")
    path.write_text(base + "serve_max_tpot_s: 0.001\n")
    p = report.plan_report(path, ["00"], states=False, notebook_setups=False).scenario
    assert p["serve_weight_dtype"] == "fp8"
    why = p["_serve_weight_dtype_chosen"]
    assert "serves llama-3.1-8b within serve_max_tpot_s=0.001 s on the roofline (in bf16, " \
        "which fits the memory, even one sequence takes longer; the RL rollouts use it too" in why
    assert "no room for a batch" not in why and why.count("(") == why.count(")")
    # without a target nothing is chosen: BF16 fits
    path.write_text(base)
    p = report.plan_report(path, ["00"], states=False, notebook_setups=False).scenario
    assert p.get("serve_weight_dtype", "bf16") == "bf16" and "_serve_weight_dtype_chosen" \
        not in p


def test_a_ppo_bills_short_words_say_the_factor_is_grpos():
    # trial 23: a PPO scenario read "the model's 517 s × 1.69, published GRPO runs' median"
    # in the terminal, the index and notebook 05, with no word that PPO borrows it
    from llmcost.serving import rl
    grpo = rl.time_factor_short({"rl_algorithm": "grpo"})
    ppo = rl.time_factor_short({"rl_algorithm": "ppo"})
    assert grpo.endswith("published GRPO runs' median")
    assert ppo == grpo + ", PPO extrapolated from GRPO's"
    assert rl.time_factor_short({"rl_algorithm": "ppo", "rl_time_factor": 1.2}) == \
        "× rl_time_factor 1.2"


def test_opts_context_is_its_2048_positions_not_its_2050_rows():
    # OPT's learned position table has max_position_embeddings + 2 rows (Hugging Face
    # transformers OPTLearnedPositionalEmbedding: offset 2, fairseq's padding convention; the
    # config's max_position_embeddings 2048): a trial read "opt-1.3b's context of 2,050 tokens"
    import llmcost
    from llmcost.bill.checks import context_warning
    m = llmcost.load_model("opt-1.3b")
    assert (m.max_position_embeddings, m.position_offset) == (2048, 2)
    assert m.param_breakdown["position"] == (2048 + 2) * 2048
    assert m.n_params == 1315758080   # the released facebook/opt-1.3b checkpoint's count
    assert context_warning(m, 2048) is None
    assert "beyond opt-1.3b's context of 2,048 tokens" in context_warning(m, 2050)
    with pytest.raises(ValueError, match="position_offset=2 needs pos_encoding='learned'"):
        m.replace(pos_encoding="rope", max_position_embeddings=0)
