"""A new-user trial of comparisons and of 00's next generation: a pilot's band dropped from a
comparison, inputs that price nothing listed as differences, a pilot shown as "…", two identical
scenarios compared without a word, and B200 called the next generation of a GB200 run."""
import math

import numpy as np
import pytest
import yaml

from llmcost.bill import ledger
from llmcost.bill.ledger import build_ledger, headline_draws, own_ranged_scenario
from llmcost.bill.ranges import Range
from llmcost.core import catalog
from llmcost.present import cli, glance, report

PILOTED = {"model": "llama-2-70b", "accelerator": "H100-SXM", "n_gpus": 2048, "seq_len": 4096,
           "train_tokens": 2.0e12, "global_batch_tokens": 4194304, "tp": 8, "pp": 4,
           "zero_stage": 1, "recompute": "selective", "micro_batch_size": 1, "dtype": "bf16",
           "price_usd_per_gpu_hour": 3.99, "ledger_pilot_tokens_per_s_per_gpu": 850.0,
           "ledger_pilot_n_gpus": 64}


def _estimate(tmp_path, sc: dict, name: str):
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(sc))
    return report.estimate_ledger(path)


def test_a_pilots_band_is_drawn_in_a_comparison(tmp_path):
    """The pilot's extrapolation band is the scenario's own range (its measurement carried to the
    run's scale): the bill's headline draws it, and so must B − A. It was compared as "neither
    scenario gives a range of its own"."""
    piloted = _estimate(tmp_path, PILOTED, "piloted")
    given = {k: v for k, v in PILOTED.items() if not k.startswith("ledger_pilot")}
    plain = _estimate(tmp_path, {**given, "mfu": 0.40}, "plain")
    drawn = own_ranged_scenario(piloted)
    assert isinstance(drawn["mfu"], Range)   # the band, peaked at the bill's MFU
    assert drawn["mfu"].mode == pytest.approx(piloted.figures["mfu"], rel=1e-9)
    assert drawn["mfu"].low < drawn["mfu"].mode < drawn["mfu"].high
    head = headline_draws(piloted.scenario, samples=2_000)
    assert head.kinds["mfu"] == "pilot" and not head.illustrative  # measured, not illustrative
    # the same band as the headline draws (its P10 and P90 of the MFU)
    own = ledger.simulate_ledger(drawn, samples=2_000)   # the same seed: the same draws
    assert np.array_equal(own.inputs["mfu"], head.draws.inputs["mfu"])
    df = glance.compare_bills([plain, piloted], ("A", "B"), samples=2_000)
    total = df[df["line"] == "total"].iloc[0]
    assert total["difference p10 usd"] < total["difference p90 usd"]   # a spread, drawn
    # a scenario without a pilot is drawn as it is
    assert own_ranged_scenario(plain) is plain.scenario


def test_a_pilot_is_said_by_its_gpus_and_throughput():
    """A pilot in a comparison's differing inputs read "…"; now its GPUs and throughput."""
    assert glance._item_words({"n_gpus": 64, "tokens_per_s_per_gpu": 800}) == \
        "64 GPUs 800 tok/s/GPU"


def test_two_identical_scenarios_say_no_input_differs(tmp_path):
    sc = {k: v for k, v in PILOTED.items() if not k.startswith("ledger_pilot")}
    path = tmp_path / "same.yaml"
    path.write_text(yaml.safe_dump({**sc, "mfu": 0.4}))
    bills = [report.estimate_ledger(path), report.estimate_ledger(path)]
    df = glance.compare_bills(bills, ("A", "B"), samples=200)
    out = cli.compare_text(df, ("A", "B"), (str(path), str(path)), bills, columns=100)
    assert "inputs that differ (A → B): none (A and B read the same file)" in out
    # a copy under another name is two files: "none" alone (the reader chose them)
    other = tmp_path / "copy.yaml"
    other.write_text(path.read_text())
    out = cli.compare_text(df, ("A", "B"), (str(path), str(other)), bills, columns=100)
    assert "inputs that differ (A → B): none\n" in out + "\n" and "same file" not in out


@pytest.mark.parametrize("acc, want", [
    ("A100-80GB", "H100-SXM"),      # Ampere 2020 -> Hopper 2022 (312 -> 989 dense BF16 TFLOP/s)
    ("H100-SXM", "B200"),           # 2022 -> 2024: B200, an 8-GPU server as H100's
    ("H200", "B200"),               # the same year (2024), faster, the same 8-GPU server
    ("GB200-NVL72", None),          # GB300's dense BF16 peak is GB200's: no faster successor
    ("TPU v4", "TPU v5p"),          # v5e (2023) is slower than v4: not a next generation
])
def test_the_next_generation_is_later_and_faster(acc, want):
    """``catalog.next_generation``: the same vendor's, the same or a later year, a higher peak
    (data/accelerators.csv, from the vendors' datasheets: A100 312, H100 SXM 989.4, B200 2,250,
    GB200 and GB300 2,500 dense BF16 TFLOP/s; TPU v4 275, v5e 197, v5p 459)."""
    got = catalog.next_generation(acc)
    assert (got.name if got else None) == want
    if got:
        a = catalog.load_accelerator(acc)
        assert got.year >= a.year and got.peak_bf16_flops_per_s > a.peak_bf16_flops_per_s


def test_the_next_generation_refuses_what_it_cannot_answer():
    with pytest.raises(ValueError, match="accelerator"):
        catalog.next_generation("H1000")
    with pytest.raises(ValueError, match="fp8"):
        catalog.next_generation("A100-80GB", "fp8")   # no FP8 tensor cores: no FP8 peak
    assert math.isfinite(catalog.next_generation("H100-SXM", "fp8").peak_fp8_flops_per_s)


def test_a_dpo_campaigns_length_warning_reads_its_pairs_not_a_generation_limit():
    """DPO generates nothing: its chosen and rejected responses are rl_response_tokens long, and
    rl_response_tokens_max (a generation limit) is ignored, as another warning says. A trial read
    "rl_prompt_tokens + rl_response_tokens_max = 512 + 16,384" beside "rl_response_tokens_max is
    ignored"."""
    from llmcost.bill.checks import rl_context_warning
    v = {"ledger_rl": True, "seq_len": 4096, "rl_prompt_tokens": 512,
         "rl_response_tokens": 4096, "rl_response_tokens_max": 16384}
    grpo = rl_context_warning({**v, "rl_algorithm": "grpo"})
    assert "rl_response_tokens_max = 512 + 16,384 = 16,896 tokens" in grpo
    dpo = rl_context_warning({**v, "rl_algorithm": "dpo"})
    assert "rl_prompt_tokens + rl_response_tokens = 512 + 4,096 = 4,608 tokens" in dpo
    # and it speaks of pairs, not of a rollout's generation or KV cache (a later trial)
    assert "rollout" not in dpo and "KV cache" not in dpo and "preference pairs" in dpo
    from llmcost.present.glance import caveat_line
    assert caveat_line(dpo) == ("the DPO pairs reach 4,608 tokens, beyond the 4,096 tokens the "
                                "model is trained at: it needs a long-context phase first")
    assert rl_context_warning({**v, "rl_algorithm": "dpo", "rl_response_tokens": 2048}) is None


def test_notebook_09_reads_the_scenarios_lifetime_tokens():
    """Notebook 09's smaller-model lever and routes price a lifetime of served tokens; without
    the key in its parameters cell a report's 09 used the notebooks' 1e13 where 06 of the same
    report used the scenario's 3.65e13 (a trial)."""
    from llmcost.present.numbering import NOTEBOOK_DIR
    assert "inference_tokens_lifetime" in report.declared_parameters(
        NOTEBOOK_DIR / "09_savings.ipynb")


def test_a_lifetime_of_serving_is_said_to_be_outside_the_bill():
    """A trial gave a year of traffic (inference_tokens_lifetime 3.65e13) and got the same total
    as without it, with no word: the bill prices training; 05, 06 and 09 price serving."""
    from llmcost.bill.checks import serving_outside_bill_warning
    w = serving_outside_bill_warning({"inference_tokens_lifetime": 3.65e13})
    assert w.startswith("inference_tokens_lifetime=36.5T is not a line of the bill")
    assert "e+" not in w
    # the notebooks' own assumption (the shipped scenarios' 1e13) is not repeated on every page
    assert serving_outside_bill_warning({"inference_tokens_lifetime": 1e13}) is None
    assert serving_outside_bill_warning({"inference_tokens_lifetime": 3.65e13},
                                        defaults={"inference_tokens_lifetime"}) is None
    assert serving_outside_bill_warning({}) is None
    assert "05, 06 and 09" in glance.caveat_line(w)
    # the notebooks' own assumption is the one the shipped scenarios and notebooks 06 and 09
    # declare, not a copy that could drift
    import ast
    import papermill as pm
    from llmcost.bill.checks import NOTEBOOK_LIFETIME_TOKENS
    from llmcost.bill.scenario import load_scenario
    from llmcost.core.catalog import SCENARIO_DIR
    from llmcost.present.numbering import NOTEBOOK_DIR
    assert load_scenario(SCENARIO_DIR / "default.yaml")["inference_tokens_lifetime"] == \
        NOTEBOOK_LIFETIME_TOKENS
    for nb in ("06_chinchilla", "09_savings"):
        declared = pm.inspect_notebook(str(NOTEBOOK_DIR / f"{nb}.ipynb"))
        assert ast.literal_eval(declared["inference_tokens_lifetime"]["default"]) == \
            NOTEBOOK_LIFETIME_TOKENS, nb
