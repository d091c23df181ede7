"""What a serving economist's trial found priced or said otherwise than it reads.

Each check is the trial's own case; the figures are datasheets, the package's own documented
conventions or hand arithmetic, stated in each test.
"""

import re

import pandas as pd
import pytest

from llmcost.bill.scenario import ScenarioError, validate_parameters
from llmcost.bill.validation import _serving_weight_warning, _tpot_unit_warning
from llmcost.laws import scaling
from llmcost.serving import inference as inf


@pytest.mark.parametrize(("text", "seconds"), [("30ms", 0.03), ("30 ms", 0.03),
                                               ("50ms", 0.05), ("2 min", 120)])
def test_a_latency_written_with_its_unit_is_told_in_seconds(text, seconds):
    """``serve_max_tpot_s: 30ms`` was told "write 30", a target 1,000 times looser; the key is
    in seconds (its name), so 30 ms is 0.03."""
    with pytest.raises(ScenarioError, match=rf"must be a number \(write {seconds:g} for "
                                            rf"{text}: the key is in seconds\)"):
        validate_parameters(serve_max_tpot_s=text)
    # a unit on a key that is not in seconds keeps the general hint
    with pytest.raises(ScenarioError, match=r"write 2\.5: the number alone"):
        validate_parameters(price_usd_per_gpu_hour="2.5 $/h")


def test_a_latency_target_of_seconds_per_token_is_said():
    """30 written for 30 ms bound nothing: at 30 s a token, 250 output tokens take 2 hours
    5 minutes (250 × 30 = 7,500 s)."""
    w = _tpot_unit_warning({"serve_max_tpot_s": 30.0})
    assert w.startswith("serve_max_tpot_s=30 is 30 seconds per output token (the key is in "
                        "seconds, so 30 ms is 0.03)")
    assert "250 tokens take 2.08 h" in w
    assert _tpot_unit_warning({"serve_max_tpot_s": 0.05}) is None


def test_the_serving_notes_say_what_is_priced_otherwise_than_it_reads():
    """A100 has no FP8 tensor cores (NVIDIA A100 datasheet: FP16/BF16, TF32, INT8; FP8 came with
    Hopper): FP8 weights are read as 1 byte and dequantised to BF16, the engine families
    without a fit of their own carry the pooled one (data/engine_efficiency.csv, fitted_on),
    and Llama 3.1 8B holds 131,072 tokens (its config's max_position_embeddings)."""
    kw = dict(prompt_tokens=1000, output_tokens=250)
    a100 = inf.serving_cost("llama-3.1-8b", "A100-80GB", 2.0, weight_dtype="fp8", **kw)
    assert "fp8 weights weight-only, dequantised to BF16 (A100-80GB has no fp8 peak)" in a100.notes
    h100 = inf.serving_cost("llama-3.1-8b", "H100-SXM", 2.0, weight_dtype="fp8", **kw)
    assert "dequantised" not in h100.notes
    hf = inf.serving_cost("llama-3.1-8b", "H100-SXM", 2.0, engine="HF generate", **kw)
    pooled = inf.serving_cost("llama-3.1-8b", "H100-SXM", 2.0, **kw)
    assert hf.usd_per_m_output == pooled.usd_per_m_output   # the same constants
    assert "engine HF generate: too few published rows for a fit of its own, priced with the " \
        "pooled fit (continuous batching: HF generate has none, so read it as a floor)" in hf.notes
    assert "engine" not in pooled.notes
    far = inf.serving_cost("llama-3.1-8b", "H100-SXM", 2.0, prompt_tokens=200000,
                           output_tokens=1000)
    assert "the request's 201,000 tokens are beyond llama-3.1-8b's 131,072-token context" in \
        far.notes
    # the scenario path says it too
    assert _serving_weight_warning({"serve_weight_dtype": "fp8",
                                    "accelerator": "A100-80GB"}).startswith(
        "serve_weight_dtype=fp8 on A100-80GB, which has no FP8 peak")
    assert _serving_weight_warning({"serve_weight_dtype": "fp8",
                                    "accelerator": "H100-SXM"}) is None


def test_a_precision_change_is_the_median_of_the_models_not_the_mean():
    """The trial's three sizes moved +35%, +113% and +4,580% in cost per token from FP8 to
    BF16 weights (405B under a 30 ms target): the mean, +1,577%, described none of them; the
    median is the middle one, +113%."""
    fam = pd.DataFrame({"model": ["a", "b", "c"], "weights": ["fp8 w"] * 3,
                        "USD per M tokens per 1e9 params": [1.0, 1.0, 1.0]})
    other = pd.DataFrame({"model": ["a", "b", "c"], "weights": ["bf16 w"] * 3,
                          "USD per M tokens per 1e9 params": [1.35, 2.13, 46.8]})
    r = scaling.cost_per_param_by_precision(fam, "fp8", other)
    assert r["changes"] == pytest.approx([-0.35, -1.13, -45.8])
    assert r["change"] == pytest.approx(-1.13)


def test_replace_with_smaller_refuses_a_larger_small_model():
    """Sardana et al. 2024 Fig. 1 replaces a compute-optimal 13B with a 7B model trained
    longer (17.4% fewer lifetime FLOPs at 2e12 inference tokens); the trial swapped the two
    and read a saving of -64% without a word."""
    assert scaling.replace_with_smaller(13e9, 7e9, 2e12)["saving_fraction"] == \
        pytest.approx(0.174, abs=0.001)
    with pytest.raises(ValueError, match=r"^n_small=1\.3e\+10 must be below n_large=7e\+09"):
        scaling.replace_with_smaller(7e9, 13e9, 2e12)


def test_unit_hints_read_minutes_and_per_token_and_leave_rates_alone():
    """A review: "30 ms/token" still got "write 30", "30m" on a seconds key read as 3e+07
    (mega), and a rate key in bytes per second was told its unit was seconds."""
    for key, text, hint in (("serve_max_tpot_s", "30 ms/token", "write 0.03 for 30 ms/token"),
                            ("serve_max_tpot_s", "30 ms per output token", "write 0.03"),
                            ("ckpt_interval_s", "30m", "write 1800 for 30m")):
        with pytest.raises(ScenarioError, match=hint):
            validate_parameters(**{key: text})
    with pytest.raises(ScenarioError) as e:
        validate_parameters(ckpt_storage_bytes_per_s="2 h")
    assert "seconds" not in str(e.value)


@pytest.mark.parametrize(("key", "text", "written", "unit"), [
    # by hand: 100 GB/s = 100 × 10^9 B/s; 400 Gb/s (a NIC's line rate) = 400 × 10^9 / 8 B/s;
    # 64 GiB/s = 64 × 2^30 = 68,719,476,736 B/s; 1 PB = 10^15 B
    ("ckpt_storage_bytes_per_s", "100GB/s", "1e+11", "bytes per second, a decimal prefix"),
    ("ckpt_storage_bytes_per_s", "2 TB/s", "2e+12", "bytes per second, a decimal prefix"),
    ("ckpt_node_bytes_per_s", "400Gb/s", "5e+10", "bytes per second, bits, 8 to a byte"),
    ("ckpt_d2h_bytes_per_s", "64 GiB/s", "68719476736", "bytes per second, a binary prefix"),
    ("ledger_egress_bytes", "1 PB", "1e+15", "bytes, a decimal prefix"),
    # a review's spellings: any case, spelled out, bits spelled, a bare byte (500 B is not
    # 500 billion: the magnitude suffix B is not read on a key in bytes)
    ("ckpt_storage_bytes_per_s", "100 GB/S", "1e+11", "bytes per second, a decimal prefix"),
    ("ckpt_storage_bytes_per_s", "100 GBytes/s", "1e+11", "bytes per second, a decimal"),
    ("ckpt_storage_bytes_per_s", "25 Gigabytes/s", "2.5e+10", "bytes per second, a decimal"),
    ("ckpt_node_bytes_per_s", "400 Gbit/s", "5e+10", "bytes per second, bits, 8 to a byte"),
    ("ckpt_storage_bytes_per_s", "10 Mbps", "1.25e+06", "bytes per second, bits"),
    ("ledger_dataset_bytes", "500 B", "500", "bytes\\)"),
    ("ckpt_storage_bytes_per_s", "1e12 B/s", "1e+12", "bytes per second\\)")])
def test_a_bandwidth_or_size_written_with_its_unit_is_told_in_bytes(key, text, written, unit):
    """An SRE trial's ``ckpt_storage_bytes_per_s: 100GB/s`` was told "write 100" (100 B/s,
    10^9 times too slow), "2 TB/s" "write 2" and "400Gb/s" "write 400"."""
    with pytest.raises(ScenarioError, match=rf"^{key}='{text}' must be a number \(write "
                                            rf"{re.escape(written)} for {text}: the key is in "
                                            rf"{unit}"):
        validate_parameters(**{key: text})


def test_a_size_on_a_rate_key_is_told_which_it_is_with_no_number():
    with pytest.raises(ScenarioError, match=r"\(the key is in bytes per second: 100GB is a "
                                            r"size\)$"):
        validate_parameters(ckpt_storage_bytes_per_s="100GB")
    with pytest.raises(ScenarioError, match=r"\(the key is in bytes: 10 TB/s is a rate\)$"):
        validate_parameters(ledger_egress_bytes="10 TB/s")
    # a currency sign on a key in bytes reads no number ("$2M" is not 2e+06 bytes)
    with pytest.raises(ScenarioError, match=r"^ledger_egress_bytes='\$2M' must be a number$"):
        validate_parameters(ledger_egress_bytes="$2M")


def test_a_budget_written_with_a_currency_sign_and_a_suffix_is_told_the_number():
    # a data trial's `ledger_budget_usd: "$2M"` read "must be a number" with no hint, where
    # "2M" was told "write 2e+06"
    with pytest.raises(ScenarioError, match=r"must be a number \(write 2e\+06 for \$2M\)$"):
        validate_parameters(ledger_budget_usd="$2M")


def test_an_rl_refusal_offers_no_precision_that_does_not_fit_the_rollouts(tmp_path):
    """An economist's 405B with RL at rl_rollout_tp 4 on H100 was told "left out, the report
    takes the widest precision that fits, fp8", which fits serving (TP 8) and not the rollouts:
    by hand 405.9e9 params x 1 byte / 4 = 101.5 GB a GPU against 77.3 GB usable; and "lower
    serve_weight_dtype", where the rollouts have a key of their own."""
    from llmcost.present.report import estimate_ledger
    path = tmp_path / "r405.yaml"
    path.write_text("model: llama-3.1-405b\nn_gpus: 2048\ntrain_tokens: 2.0e12\nmfu: 0.4\n"
                    "price_usd_per_gpu_hour: 3.99\nserve_weight_dtype: bf16\n"
                    "rl_rollout_tp: 4\n")
    with pytest.raises(ScenarioError) as e:
        estimate_ledger(path)
    said = str(e.value)
    assert "202.9 GB of bf16 weights per GPU do not fit" in said
    assert "left out, the report takes" not in said
    assert "rl_rollout_weight_dtype sets the rollouts' precision apart from serving's" in said


def test_every_weight_precision_the_serving_model_prices_a_scenario_can_give():
    # an economist's 405B refusal listed "nvfp4, mxfp4" as workarounds, and the scenario then
    # refused `serve_weight_dtype: nvfp4`: the keys take every precision the model prices
    for d in inf.WEIGHT_BYTES:
        assert validate_parameters(serve_weight_dtype=d, rl_rollout_weight_dtype=d) == {
            "serve_weight_dtype": d, "rl_rollout_weight_dtype": d}


def test_the_budgets_compute_optimal_size_says_it_leaves_serving_out(tmp_path, capsys):
    # an economist's 8B on 15T with 10^14 served tokens read "compute-optimal parameters 77.42B"
    # from `estimate --budget-usd`, where notebook 06's inference-adjusted optimum was 9.6B
    from llmcost.present.cli import main
    path = tmp_path / "b8.yaml"
    body = ("model: llama-3.1-8b\nn_gpus: 512\ntrain_tokens: 15.0e12\nmfu: 0.4\n"
            "price_usd_per_gpu_hour: 3.99\nledger_rl: false\n")
    path.write_text(body + "inference_tokens_lifetime: 1.0e14\n")
    assert main(["estimate", "--scenario", str(path), "--budget-usd", "5e6"]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert "training compute alone: with the scenario's 100T served tokens" in said
    path.write_text(body)
    assert main(["estimate", "--scenario", str(path), "--budget-usd", "5e6"]) == 0
    assert "training compute alone" not in capsys.readouterr().out
