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
