"""Comparing two bills on different accelerators at one given MFU says that the MFU does not
carry over (a new-user trial compared H100 and MI300X at one 40%: 40% of 989 and 40% of 1,307
dense BF16 TFLOP/s are different throughputs, and nothing said so)."""

from llmcost.bill.ledger import build_ledger
from llmcost.bill.scenario import load_scenario
from llmcost.core.catalog import SCENARIO_DIR
from llmcost.present.glance import compare_inputs

WORDS = "on both, as given: a fraction of each accelerator's own peak"


def test_one_given_mfu_on_two_accelerators_is_said():
    a = load_scenario(SCENARIO_DIR / "default.yaml")
    on_mi300x = build_ledger({**a, "accelerator": "MI300X", "price_usd_per_gpu_hour": 2.59})
    said = compare_inputs([build_ledger(a), on_mi300x])
    assert said[0] == "accelerator H100-SXM → MI300X"
    assert [x for x in said if WORDS in x] == [
        f"mfu {a['mfu']:.1%} {WORDS}, which does not carry over between accelerators "
        "(`mfu: predict` predicts each)"]
    # the same accelerator, or an MFU a report predicted: nothing to say
    same = build_ledger({**a, "price_usd_per_gpu_hour": 2.59})
    assert not [x for x in compare_inputs([build_ledger(a), same]) if WORDS in x]
    predicted = build_ledger({**a, "accelerator": "MI300X", "mfu_band": "predicted"})
    assert not [x for x in compare_inputs([build_ledger(a), predicted]) if WORDS in x]
    # estimate's resolved prediction (a private key, not mfu_band): predicted too
    resolved = build_ledger({**a, "accelerator": "MI300X", "_mfu_prediction": {"value": 0.4}})
    assert not [x for x in compare_inputs([build_ledger(a), resolved]) if WORDS in x]


def test_one_given_mfu_at_two_gpu_counts_is_said():
    # A trial doubled the GPUs at one given MFU (40%) and read "pre-training $0.00" with only
    # "n_gpus 2,048 → 4,096" beside it: the compute FLOPs and the MFU are the same, so the
    # compute cost is too, by construction; said, with what `mfu: predict` would do.
    a = load_scenario(SCENARIO_DIR / "default.yaml")
    b = build_ledger({**a, "n_gpus": 2 * a["n_gpus"]})
    said = compare_inputs([build_ledger(a), b])
    (note,) = [x for x in said if "on both, as given" in x]
    assert note.startswith(f"mfu {a['mfu']:.1%} on both, as given, at 2,048 GPUs and 4,096 GPUs: "
                           "the same compute cost")


def test_an_rl_campaign_in_one_scenario_is_said_in_the_keys_its_file_wrote():
    # A trial compared a scenario with rl_iterations and rl_runs against one without and read
    # "ledger_rl false → true", a key neither file wrote: said as what it means.
    a = load_scenario(SCENARIO_DIR / "default.yaml")
    with_rl = build_ledger({**a, "ledger_rl": True, "rl_iterations": 1000, "rl_runs": 5})
    said = compare_inputs([build_ledger({**a, "ledger_rl": False}), with_rl])
    assert ("RL campaign billed (ledger_rl: true where the scenario gives rl_iterations and "
            "rl_runs) false → true") in said


def test_files_that_differ_only_in_keys_the_bill_does_not_read_say_so(tmp_path):
    # A trial compared zero_stage 1 and 3 with a given MFU and read "inputs that differ
    # (A → B): none" and $0.00 on every line: the plan change looked free. The key is named,
    # with why the bills do not read it.
    import yaml
    from _cli import run_cli
    sc = {"model": "llama-3.1-8b", "accelerator": "H100-SXM", "n_gpus": 64,
          "train_tokens": 1e11, "seq_len": 8192, "mfu": 0.4, "price_usd_per_gpu_hour": 3.0,
          "zero_stage": 1}
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text(yaml.safe_dump(sc))
    b.write_text(yaml.safe_dump({**sc, "zero_stage": 3}))
    r = run_cli("estimate", "--scenario", str(a), "--compare", str(b))
    assert r.returncode == 0, r.stderr
    out = " ".join(r.stdout.split())
    assert ("inputs that differ (A → B): none in the bill; the files differ in zero_stage (1 → "
            "3), which the bills do not read: with a given mfu the plan does not move the bill "
            "(`mfu: predict` prices the plan's change)") in out


def test_a_stack_feature_the_bill_names_is_not_said_again_on_stderr(tmp_path):
    # A trial: zero_stage 3 on megatron-core-2024 printed the stack's warning on stderr, without
    # the "warning of B" prefix under --compare, beside the bill's own "zero_stage=3 is not
    # offered by the megatron-core-2024 stack". Said once, in the bill's list.
    import yaml
    from _cli import run_cli
    sc = {"model": "llama-3.1-8b", "accelerator": "H100-SXM", "n_gpus": 256,
          "train_tokens": 2e12, "seq_len": 8192, "mfu": "predict",
          "price_usd_per_gpu_hour": 2.5, "global_batch_tokens": 4194304, "zero_stage": 3,
          "tp": 1, "pp": 1}
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text(yaml.safe_dump({**sc, "zero_stage": 1}))
    b.write_text(yaml.safe_dump(sc))
    for args in (("--scenario", str(b)), ("--scenario", str(a), "--compare", str(b))):
        r = run_cli("estimate", *args)
        assert r.returncode == 0, r.stderr
        assert "has no ZeRO-3 path" not in r.stderr, r.stderr
        assert "zero_stage=3 is not offered by the megatron-core-2024 stack" in \
            " ".join(r.stdout.split())


def test_two_predicted_mfus_on_two_regimes_say_their_corrections():
    # A trial compared ZeRO-2 and ZeRO-3 of one 8B run: "mfu 54.9% → 44.4%" where the model's
    # raw predictions were 54.0% → 48.2%, each bill then corrected by its own regime's median
    # held-out error (0.549 / 0.540 = ×1.017, 0.444 / 0.482 = ×0.921). Said, with both; one
    # correction on both sides says nothing more.
    from types import SimpleNamespace
    from llmcost.present.glance import _predicted_corrections

    def bill(value, predicted):
        return SimpleNamespace(scenario={"_mfu_prediction": {"value": value,
                                                             "predicted": predicted}})
    said = _predicted_corrections([bill(0.549, 0.540), bill(0.444, 0.482)])
    assert said == ["the step-time model's raw predictions 54.0% → 48.2% (each bill takes its "
                    "regime's corrected central estimate, ×1.017 and ×0.921: part of the MFU's "
                    "change is the two regimes' held-out errors, not the run)"]
    assert _predicted_corrections([bill(0.50, 0.52), bill(0.45, 0.468)]) == []
    # a bill held at its band's capped top (a trial's MoE bill: 29.2% ÷ 37.7% = ×0.775, its
    # corrected estimate 38.0% above the cap) is said to take the cap, not a held-out error
    capped = bill(0.292, 0.377)
    capped.scenario["_mfu_prediction"].update(center_capped=True,
                                               cap="the best comparable published run")
    said = _predicted_corrections([bill(0.404, 0.400), capped])
    assert said == ["the step-time model's raw predictions 40.0% → 37.7% (the bills take: A "
                    "its regime's corrected central estimate (×1.010); B its band's capped top "
                    "(×0.775): part of the MFU's change is the regimes' held-out errors and the "
                    "cap, not the run)"]
