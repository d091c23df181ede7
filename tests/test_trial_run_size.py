"""What a new user's scenario prices when it leaves out a key that sizes the run (a new-user
trial's finding: a file without ``train_tokens`` was billed for the default scenario's 2T tokens,
and neither the header of ``llmcost estimate`` nor any warning said how many tokens it priced)."""

import json
from pathlib import Path

import yaml

from llmcost.bill.checks import RUN_SIZE_KEYS, run_size_default_warning

from _cli import run_cli

#: The default scenario the notebooks' defaults come from (README: "Start from
#: data/scenarios/default.yaml"): Llama 2 70B, 2,048 H100 SXM, 2.0e12 tokens of 4,096.
DEFAULT_YAML = Path(__file__).resolve().parent.parent / "data" / "scenarios" / "default.yaml"

#: Llama 3.1 8B on 64 H100 SXM at a given MFU and price: every run-size key but the tokens.
NO_TOKENS = {"model": "llama-3.1-8b", "accelerator": "H100-SXM", "n_gpus": 64, "seq_len": 8192,
             "mfu": 0.4, "price_usd_per_gpu_hour": 2.5, "global_batch_tokens": 4194304}


def _write(tmp_path, sc: dict, name="s.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(sc, sort_keys=False))
    return path


def test_a_scenario_without_train_tokens_is_told_which_tokens_it_is_priced_for(tmp_path):
    """default.yaml's train_tokens (2.0e12, read from the file) is what the bill prices when the
    scenario gives none: the header says "2T tokens in 8,192-token sequences" and a warning names
    train_tokens=2e12 (text and JSON alike); the same file with 3e12 tokens says 3T and has no
    such warning. GPU-hours scale with the tokens: 3e12 / 2e12 = 1.5 (the MFU, GPUs and plan
    the same; hand derivation: hours = FLOPs(D) / (peak · MFU), linear in D)."""
    default = yaml.safe_load(DEFAULT_YAML.read_text())
    assert float(default["train_tokens"]) == 2.0e12
    left = run_cli("estimate", "--scenario", str(_write(tmp_path, NO_TOKENS)))
    assert left.returncode == 0, left.stderr
    head = " ".join(left.stdout.split("\n", 3)[1:3])
    assert "llama-3.1-8b on 64 x H100-SXM, 2T tokens in 8,192-token sequences" in head
    warned = [w for w in left.stdout.split("\nwarning: ")[1:] if "sets no" in w]
    assert len(warned) == 1 and "train_tokens=2e12" in " ".join(warned[0].split())
    js = json.loads(run_cli("estimate", "--scenario", str(_write(tmp_path, NO_TOKENS)),
                            "--format", "json").stdout)
    assert any(w.startswith("the scenario sets no train_tokens") for w in js["warnings"])
    given = _write(tmp_path, {**NO_TOKENS, "train_tokens": 3e12}, "g.yaml")
    out = run_cli("estimate", "--scenario", str(given))
    assert "3T tokens in 8,192-token sequences" in " ".join(out.stdout.split("\n", 3)[1:3])
    assert "the scenario sets no train_tokens" not in " ".join(out.stdout.split())
    h2 = json.loads(run_cli("estimate", "--scenario", str(given), "--format", "json").stdout)
    ratio = h2["bill.figures.ideal_gpu_hours"] / js["bill.figures.ideal_gpu_hours"]
    assert 1.5 * (1 - 1e-9) < ratio < 1.5 * (1 + 1e-9)


def test_the_run_size_warning_names_each_key_left_out_and_its_value():
    """Every key of RUN_SIZE_KEYS left out is named with the value used; none left out: None."""
    values = {"model": "llama-2-70b", "accelerator": "H100-SXM", "n_gpus": 2048,
              "train_tokens": 2.0e12, "seq_len": 4096}
    assert run_size_default_warning(values, set()) is None
    assert run_size_default_warning(values, {"mfu", "tp"}) is None
    w = run_size_default_warning(values, set(RUN_SIZE_KEYS))
    for part in ("model=llama-2-70b", "accelerator=H100-SXM", "n_gpus=2,048",
                 "train_tokens=2e12", "seq_len=4,096"):
        assert part in w
    assert w.endswith("set them for your run.")


def test_the_index_lists_the_mfu_band_the_report_gave_its_pages(tmp_path):
    """`mfu: predict`: the report injects mfu_band="predicted" into notebook 00 (the bill drawn
    over the step-time model's band); the index's "Parameters used" and summary.json
    (``effective_parameters``) must say the same, not "null, notebook default" (a new-user
    trial found them contradicting the page). A scenario with its own MFU: null on both."""
    from llmcost.present import report
    sc = {**NO_TOKENS, "train_tokens": 3e12, "mfu": "predict"}
    for mfu, band in (("predict", "predicted"), (0.4, None)):
        plan = report.plan_report(_write(tmp_path, {**sc, "mfu": mfu}), ["00"])
        (nb,) = plan.notebooks
        injected = report.notebook_parameters_for(nb, plan).get("mfu_band")
        used = report.effective_parameters(plan.scenario, plan.declared)["mfu_band"]
        assert injected == band and used["value"] == band
        assert used["from"] == ("notebook default" if band is None else
                                report.MFU_BAND_FROM[band])


def test_compare_names_the_inputs_that_differ(tmp_path):
    """Two scenarios that differ in tokens (3T -> 6T) and price ($2.50 -> $3.00): estimate
    --compare names exactly those two inputs under its header (text and JSON), and B's
    pre-training compute is A's × 2 × 3.00 / 2.50 = 2.4 (hand derivation: GPU-hours linear in the
    tokens at one MFU, dollars linear in the price). A scenario compared with itself: no such
    line, an empty list."""
    a = _write(tmp_path, {**NO_TOKENS, "train_tokens": 3e12}, "a.yaml")
    b = _write(tmp_path, {**NO_TOKENS, "train_tokens": 6e12, "price_usd_per_gpu_hour": 3.0},
               "b.yaml")
    text = run_cli("estimate", "--scenario", str(a), "--compare", str(b))
    flat = " ".join(text.stdout.split())
    assert ("inputs that differ (A → B): train_tokens 3T → 6T; price_usd_per_gpu_hour "
            "$2.50/GPU-h → $3.00/GPU-h") in flat
    js = json.loads(run_cli("estimate", "--scenario", str(a), "--compare", str(b),
                            "--format", "json").stdout)
    assert js["inputs_differ"] == ["train_tokens 3T → 6T",
                                   "price_usd_per_gpu_hour $2.50/GPU-h → $3.00/GPU-h"]
    (row,) = [r for r in js["lines"] if r["line"] == "pre-training compute"]
    assert 2.4 * (1 - 1e-9) < row["b_usd"] / row["a_usd"] < 2.4 * (1 + 1e-9)
    same = json.loads(run_cli("estimate", "--scenario", str(a), "--compare", str(a),
                              "--format", "json").stdout)
    assert same["inputs_differ"] == []
    # two identical scenarios: said so (a later trial wanted "none" rather than no line)
    assert "inputs that differ (A → B): none" in run_cli("estimate", "--scenario", str(a),
                                                         "--compare", str(a)).stdout


def test_a_small_jobs_storage_bandwidth_is_not_printed_as_zero():
    """The checkpoint storage line names the bandwidth it provisioned for; a small job's optimum
    is below 1 GB/s (OPT-1.3B on 8 H100: a 1.32e9 × 14 B = 18.5 GB checkpoint), which a whole
    number printed as "0 GB/s". Whole GB/s from 1 GB/s up (the default scenario's 56 GB/s,
    Llama 3's 2,000 GB/s as the 405B scenario gives it), two significant digits below."""
    from llmcost.training.reliability import gb_per_s_text
    assert gb_per_s_text(1.2115e8) == "0.12 GB/s"
    assert gb_per_s_text(5.6234e10) == "56 GB/s"
    assert gb_per_s_text(2.0e12) == "2,000 GB/s"
    assert gb_per_s_text(1.0e9) == "1 GB/s"


def test_an_rl_rollout_longer_than_the_trained_context_is_warned():
    """The default scenario's RL rollouts are sized to Llama 2's 4,096-token context: 512 prompt
    + 3,584 response = 4,096 = seq_len (default.yaml's comment), no warning. A 16,384-token
    response limit makes 16,896 > 4,096: warned, with the sum written out; a long-context phase
    at 32,768 tokens covers it; an RL campaign not billed (ledger_rl false) is not warned."""
    from llmcost.bill.checks import rl_context_warning
    default = yaml.safe_load(DEFAULT_YAML.read_text())
    values = {"seq_len": default["seq_len"], "rl_prompt_tokens": default["rl_prompt_tokens"],
              "rl_response_tokens_max": default["rl_response_tokens_max"], "ledger_rl": None,
              "phases": []}
    assert values["rl_prompt_tokens"] + values["rl_response_tokens_max"] == 4096
    assert rl_context_warning(values, defaults=set()) is None
    long = {**values, "rl_response_tokens_max": 16384}
    w = rl_context_warning(long, defaults=set())
    assert "512 + 16,384 = 16,896 tokens, is beyond the 4,096 tokens" in w
    phase = [{"name": "long-context", "tokens": 1e11, "seq_len": 32768}]
    assert rl_context_warning({**long, "phases": phase}, defaults=set()) is None
    assert rl_context_warning({**long, "ledger_rl": False}, defaults=set()) is None
    # a scenario that has a phase too short for the rollouts is asked to lengthen it, not to
    # add the phase it has (a trial: 1,024 + 32,768 = 33,792 against its phase at 32,768)
    short = [{"name": "long-context", "tokens": 1e11, "seq_len": 8192}]
    w = rl_context_warning({**long, "phases": short}, defaults=set())
    assert "beyond the 8,192 tokens" in w and "its longest phase at seq_len >= 16,896" in w
    assert "phases: [{name: long-context" not in w
    # a shorter warm-up phase is no long-context phase: one is still asked for
    warm = [{"name": "warm-up", "tokens": 1e9, "seq_len": 2048}]
    assert "a long-context phase first" in rl_context_warning({**long, "phases": warm},
                                                             defaults=set())
    # rl_iterations and rl_runs both the notebooks' defaults, ledger_rl null: not billed
    assert rl_context_warning(long, defaults={"rl_iterations", "rl_runs"}) is None


def test_a_band_capped_at_the_default_matmul_ceiling_does_not_call_it_measured():
    """TPU v5p has no row in data/efficiency.csv: its matmul ceiling is the 'default' row's 0.80
    (the median of the NVIDIA entries of stas00's MAMF table), and the same report warns its
    predictions use generic figures; the band's cap must not call that figure "measured".
    MI300X has its own row (stas00's MAMF table: 60.1%): "measured"."""
    from llmcost.core.catalog import load_efficiency
    from llmcost.training.accuracy import band_cap
    assert load_efficiency("TPU v5p").accelerator == "default"
    assert load_efficiency("TPU v5p").matmul_fraction == 0.80
    high, said = band_cap(0.6, 0.95, "TPU v5p")
    assert high == 0.80
    assert any("generic matmul ceiling 80% (data/efficiency.csv's 'default' row" in w
               for w in said) and not any("measured matmul ceiling" in w for w in said)
    high, said = band_cap(0.45, 0.95, "MI300X")
    assert high == load_efficiency("MI300X").matmul_fraction
    assert any("the measured matmul ceiling 60%" in w for w in said)


def test_a_generator_that_fits_no_tp_names_the_price_that_replaces_it(tmp_path):
    """DeepSeek-V3 as the synthetic-data generator on H100 SXM: 671.03e9 parameters × 1 byte
    (fp8) ÷ 8 GPUs = 83.9 GB per GPU, above the 80 GiB × 0.9 = 77.3 GB usable, at TP 8, the
    whole NVLink domain (the catalogue's 8): the error must not say "raise tp" and must name
    ledger_synthetic_usd_per_mtok, the key that prices the tokens without serving them; with
    it the line is tokens ÷ 1e6 × price (1e11 tokens at $1.10/M = $110,000)."""
    sc = {**NO_TOKENS, "train_tokens": 1e12, "ledger_synthetic_tokens": 1e11,
          "ledger_synthetic_model": "deepseek-v3", "serve_weight_dtype": "fp8"}
    r = run_cli("estimate", "--scenario", str(_write(tmp_path, sc)))
    assert r.returncode == 2
    err = " ".join(r.stderr.split())
    assert "83.9 GB of fp8 weights per GPU" in err and "77.3 GB usable" in err
    assert "raise tp" not in err and "ledger_synthetic_usd_per_mtok" in err
    priced = _write(tmp_path, {**sc, "ledger_synthetic_usd_per_mtok": 1.10}, "p.yaml")
    js = json.loads(run_cli("estimate", "--scenario", str(priced), "--format", "json").stdout)
    usd = js["bill.lines"]["data.synthetic"]["usd"]
    assert 110_000 * (1 - 1e-9) < usd < 110_000 * (1 + 1e-9)


def test_check_names_the_config_json_path_as_its_own_flag():
    """`llmcost check --model llama-3-70b` (not in the catalogue): the way to a model outside it
    is a config.json path, written as this command takes it (--model path), not as a scenario
    key ("model: path")."""
    r = run_cli("check", "--model", "llama-3-70b", "--train-tokens", "15e12", "--n-gpus", "2048",
                "--accelerator", "H100-SXM", "--gpu-hours", "6.4e6")
    assert r.returncode == 2
    assert "(e.g. --model path/to/config.json)" in r.stderr and "model: path" not in r.stderr


def test_a_missing_catalogue_price_names_the_modes_that_have_one():
    """data/prices.csv has one current GB200 NVL72 row, CoreWeave on demand ($10.50, 2026-09),
    and none for GB300 NVL72: a reserved GB200 scenario is told on_demand has a price; a GB300
    one that no mode has. The first clause (before "; ", which notebook 09 groups on) is kept."""
    import pytest
    from llmcost.core.catalog import catalogue_price, list_prices
    rows = list_prices("GB200-NVL72", "on_demand", current_only=True)
    assert list(rows["provider"]) == ["CoreWeave"]
    with pytest.raises(ValueError) as e:
        catalogue_price("GB200-NVL72", "reserved")
    first, rest = str(e.value).split("; ", 1)
    assert first == "price_usd_per_gpu_hour: the catalogue has no reserved price for GB200-NVL72"
    assert rest.endswith("a pricing mode it has a current price for: on_demand")
    with pytest.raises(ValueError, match="no current price for it in any mode"):
        catalogue_price("GB300-NVL72", "on_demand")


def test_compare_names_an_input_outside_the_core_ones(tmp_path):
    """A trial compared two RL scenarios that differ only in rl_partial_rollouts and was told
    no input differed: the other scenario keys that differ are named too (title and
    description are not inputs)."""
    a = _write(tmp_path, {**NO_TOKENS, "train_tokens": 3e12, "title": "A",
                          "rl_partial_rollouts": False}, "a.yaml")
    b = _write(tmp_path, {**NO_TOKENS, "train_tokens": 3e12, "title": "B",
                          "rl_partial_rollouts": True}, "b.yaml")
    js = json.loads(run_cli("estimate", "--scenario", str(a), "--compare", str(b),
                            "--format", "json").stdout)
    # neither bills an RL campaign (no rl_iterations or rl_runs): said as a key neither prices
    assert js["inputs_differ"] == ["rl_partial_rollouts: differs, unused (neither bill prices "
                                   "an RL campaign; where a scenario does not set the RL "
                                   "settings, they are filled in per model)"]
    rl = {"rl_iterations": 100, "rl_runs": 1}
    a = _write(tmp_path, {**NO_TOKENS, "train_tokens": 3e12, "title": "A", **rl,
                          "rl_partial_rollouts": False}, "a.yaml")
    b = _write(tmp_path, {**NO_TOKENS, "train_tokens": 3e12, "title": "B", **rl,
                          "rl_partial_rollouts": True}, "b.yaml")
    js = json.loads(run_cli("estimate", "--scenario", str(a), "--compare", str(b),
                            "--format", "json").stdout)
    assert js["inputs_differ"] == ["rl_partial_rollouts false → true"]
