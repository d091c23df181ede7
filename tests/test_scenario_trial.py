"""Scenario validation and the CLI against what a new user writes (a new-user trial's
findings): each test states the rule and checks it on a minimal scenario."""

import json
import re

import pytest
import yaml

import llmcost

from llmcost.bill.scenario import ScenarioError, load_scenario

from _cli import run_cli

#: Llama 3.1 8B on 64 H100 SXM, TP1 PP1 ZeRO-2: the trial's 8B scenario with the keys it needs.
BASE_8B = {"model": "llama-3.1-8b", "accelerator": "H100-SXM", "n_gpus": 64,
           "train_tokens": 3.0e12, "seq_len": 8192, "dtype": "bf16",
           "price_usd_per_gpu_hour": 2.5, "global_batch_tokens": 4194304, "tp": 1, "pp": 1,
           "zero_stage": 2}


def _write(tmp_path, sc: dict, name="s.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(sc, sort_keys=False))
    return path


def test_several_pilot_records_are_accepted(tmp_path):
    """Pilot runs have no name: two of them (8 and 16 GPUs) are two measurements, not a
    duplicate; records that have a name (people's roles) still may not repeat."""
    pilots = [{"n_gpus": 8, "tp": 1, "pp": 1, "zero_stage": 2, "tokens_per_s_per_gpu": 12000},
              {"n_gpus": 16, "tp": 1, "pp": 1, "zero_stage": 2, "tokens_per_s_per_gpu": 11600}]
    path = _write(tmp_path, {**BASE_8B, "pilot": pilots})
    sc = load_scenario(path)
    assert [q["n_gpus"] for q in sc["pilot"]] == [8, 16]
    r = run_cli("estimate", "--scenario", str(path), "--format", "json")
    assert r.returncode == 0, r.stderr
    assert "appears twice" not in r.stderr
    twice = [{"role": "research", "fte": 1, "months": 1}] * 2
    with pytest.raises(ScenarioError, match="'research' appears twice"):
        load_scenario(_write(tmp_path, {**BASE_8B, "ledger_people": twice}, "p.yaml"))


def test_estimate_json_and_csv_carry_the_warnings_the_text_prints(tmp_path):
    """An FP8 run's MFU is a fraction of the FP8 peak, twice the BF16 one on Hopper (H100 SXM
    datasheet: 1,979 vs 989 dense TFLOP/s): the text warns of it; the JSON (a ``warnings``
    list) carries the same warning, and so does the CSV's stderr (its rows are the bill's lines
    alone, each with every column the README lists)."""
    path = _write(tmp_path, {**BASE_8B, "dtype": "fp8", "mfu": 0.4})
    text = run_cli("estimate", "--scenario", str(path)).stdout
    assert "warning: dtype=fp8" in text
    js = json.loads(run_cli("estimate", "--scenario", str(path), "--format", "json").stdout)
    assert any(w.startswith("dtype=fp8: the MFU is a fraction of") and "FP8 peak" in w
               for w in js["warnings"])
    n_text = text.count("\nwarning: ")
    assert len(js["warnings"]) == n_text
    csv = run_cli("estimate", "--scenario", str(path), "--format", "csv")
    rows = csv.stdout.splitlines()
    warned = [r for r in csv.stderr.splitlines() if r.startswith("warning: ")]
    assert len(warned) == n_text and "dtype=fp8" in warned[0]
    assert rows[0].startswith("key,line,category") and not any(
        r.startswith("warning,") for r in rows)
    # a scenario without warnings: an empty list, no row
    clean = _write(tmp_path, {**BASE_8B, "mfu": 0.4}, "clean.yaml")
    js = json.loads(run_cli("estimate", "--scenario", str(clean), "--format", "json").stdout)
    text = run_cli("estimate", "--scenario", str(clean)).stdout
    assert len(js["warnings"]) == text.count("\nwarning: ")


@pytest.mark.parametrize("mfu, pilot_keys", [
    (0.4, {"ledger_pilot_tokens_per_s_per_gpu": 12000.0}),
    (0.4, {"pilot": [{"n_gpus": 8, "zero_stage": 2, "tokens_per_s_per_gpu": 12000}]}),
    ([0.3, 0.5], {"pilot": [{"n_gpus": 8, "zero_stage": 2, "tokens_per_s_per_gpu": 12000}]}),
])
def test_a_given_mfu_beside_a_pilot_is_refused(tmp_path, mfu, pilot_keys):
    """The pilot's throughput sets the MFU; a number the user also wrote would be silently
    replaced, so a number is refused like a range and ``mfu: predict``, naming both keys."""
    path = _write(tmp_path, {**BASE_8B, "mfu": mfu, **pilot_keys})
    key = next(iter(pilot_keys))
    with pytest.raises(ScenarioError, match=rf"mfu.* and {key} are both given.*one or the other"):
        load_scenario(path)
    # without mfu the pilot is billed
    sc = {**BASE_8B, **pilot_keys}
    assert load_scenario(_write(tmp_path, sc, "ok.yaml"))[key]


def test_mfu_predict_beside_a_pilot_is_refused(tmp_path):
    path = _write(tmp_path, {**BASE_8B, "mfu": "predict",
                             "ledger_pilot_tokens_per_s_per_gpu": 12000.0})
    with pytest.raises(ScenarioError, match="either mfu: predict or "
                                            "ledger_pilot_tokens_per_s_per_gpu, not both"):
        load_scenario(path)


def test_both_pilot_forms_are_refused_by_every_command(tmp_path):
    """A new-user trial: a file giving `pilot:` records and ledger_pilot_tokens_per_s_per_gpu
    was refused by `estimate` (the report's calibration) but `calibrate --scenario` printed a
    calibration from the records alone, the shorthand silently ignored. The rule now lives in
    load_scenario, which both read: one pilot measurement form, named with the other."""
    pilots = [{"n_gpus": 8, "tp": 1, "pp": 1, "zero_stage": 2, "tokens_per_s_per_gpu": 12000}]
    path = _write(tmp_path, {**BASE_8B, "pilot": pilots,
                             "ledger_pilot_tokens_per_s_per_gpu": 12000.0})
    want = "give either ledger_pilot_tokens_per_s_per_gpu or pilot, not both"
    with pytest.raises(ScenarioError, match=want):
        load_scenario(path)
    for cmd in ("calibrate", "estimate"):
        got = run_cli(cmd, "--scenario", str(path))
        assert got.returncode == 2 and want in got.stderr and not got.stdout, cmd
    # either alone still calibrates
    for one in ({"pilot": pilots}, {"ledger_pilot_tokens_per_s_per_gpu": 12000.0}):
        assert run_cli("calibrate", "--scenario", str(_write(
            tmp_path, {**BASE_8B, **one}, "one.yaml"))).returncode == 0


def test_train_tokens_below_one_global_batch_is_refused(tmp_path):
    """A run trains global_batch_tokens per optimizer step: 1,000 tokens with a batch of
    4,194,304 is less than one step (the trial's typo, billed $0.00); one batch exactly is
    one step and is accepted."""
    path = _write(tmp_path, {**BASE_8B, "mfu": 0.4, "train_tokens": 1000})
    with pytest.raises(ScenarioError, match=r"train_tokens=1,000 .*global_batch_tokens=4,194,304"):
        load_scenario(path)
    assert load_scenario(_write(tmp_path, {**BASE_8B, "mfu": 0.4, "train_tokens": 4194304},
                                "one.yaml"))["train_tokens"] == 4194304
    r = run_cli("estimate", "--scenario", str(path))
    assert r.returncode == 2 and "train_tokens=1,000" in r.stderr


def test_split_hint_names_the_nearest_counts_without_scanning_them():
    """A billion GPUs (a typo the RL job's rule meets before its own check): the hint names the
    nearest counts that do split (each then has no hint) instead of testing every count up to
    4 × 10⁹ one by one (which never returned). Llama 2 7B, 128 sequences of 4,096: dp divides
    128, so a count that splits is dp × tp·pp·cp with tp | 32 heads, pp | 32 layers, cp ≤ 32;
    the largest such count is 128 × 32 × 32 × 32 = 4,194,304 (cp 32 needs 2·32 | 4,096). It
    splits only as PP32 with dp 128, one micro-batch each: a 1F1B bubble of (32 − 1) / 1 =
    3100%, so the count suggested is the largest with a bubble of at most 10%, (pp − 1) · dp ÷
    128 ≤ 0.1: pp 1, 128 × 32 × 32 = 131,072 (pp 2 needs dp ≤ 12)."""
    from llmcost import load_model
    from llmcost.training.parallel import split_hint
    spec = load_model("llama-2-7b")
    msg = split_hint(spec, 10**9, 128, 4096)
    assert msg.startswith("1,000,000,000 GPUs do not split with a global batch of 128 sequences")
    assert "use 131,072 GPUs (the nearest count with a split" in msg  # none above within 4x
    assert "nearer, 4,194,304 GPUs split at best as TP32 · PP32 · CP32 · DP128 with 1 " \
        "micro-batch, a bubble of 3100%" in msg
    assert split_hint(spec, 128 * 32 * 32 * 32, 128, 4096) == ""


def test_an_unknown_hf_model_type_warns_once_as_one_line(tmp_path):
    """A config.json of a family the reader does not know (SmolLM3's, read as a Llama-style
    decoder from its keys) warns once, as one ``warning:`` line without a source line, however
    many times the model is read while the bill and its draws are built: in the bill's own
    warnings, not again on stderr (a trial read it twice)."""
    cfg = {"model_type": "smollm3", "hidden_size": 2048, "intermediate_size": 11008,
           "num_attention_heads": 16, "num_hidden_layers": 36, "num_key_value_heads": 4,
           "vocab_size": 128256, "max_position_embeddings": 65536, "tie_word_embeddings": True,
           "hidden_act": "silu"}
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    sc = {**BASE_8B, "model": "config.json", "mfu": 0.4, "n_gpus": 8}
    r = run_cli("estimate", "--scenario", str(_write(tmp_path, sc)))
    assert r.returncode == 0, r.stderr
    lines = [ln for ln in (r.stdout + r.stderr).splitlines() if "smollm3" in ln]
    assert len(lines) == 1 and lines[0].startswith("warning: model_type='smollm3'")
    assert "UserWarning" not in r.stderr and "return " not in r.stderr
    # and it is kept in the scenario's warning list (a trial found it only on stderr): the
    # json's warnings, which a report's summary.json and index share
    js = json.loads(run_cli("estimate", "--scenario", str(_write(tmp_path, sc)), "--format",
                            "json").stdout)
    assert any(w.startswith("model_type='smollm3' is not a known family") for w in js["warnings"])


def test_a_pilot_record_runs_the_scenarios_zero_stage_unless_it_says_otherwise():
    """Llama 3.1 8B with mixed-precision Adam needs 16 bytes per parameter of model states
    (Rajbhandari et al. 2020 §3.1: 2 + 2 + 12), about 128 GB on one GPU, above an H100's 80 GB;
    ZeRO-2 over 8 GPUs keeps the 2-byte weights whole and shards the rest: 16 + 112/8 = 30 GB.
    A pilot record without zero_stage runs the scenario's ZeRO-2 and fits; one that says
    zero_stage 0 does not, and the error names the key to give."""
    from llmcost.training.calibrate import pilots_from_scenario
    rec = {"n_gpus": 8, "tp": 1, "pp": 1, "tokens_per_s_per_gpu": 12000.0}
    (pilot,) = pilots_from_scenario({**BASE_8B, "pilot": [rec]})
    assert pilot.plan.zero_stage == 2
    with pytest.raises(ValueError, match=r"pilot\[0\]\.plan .*does not fit.*give the pilot's "
                                         "zero_stage"):
        pilots_from_scenario({**BASE_8B, "pilot": [{**rec, "zero_stage": 0}]})


def test_check_uses_the_scenarios_price_and_goodput_as_estimate_does(tmp_path):
    """`check --scenario` judges the scenario's run: its GPU-hours are the bill's paid hours,
    C / (P × MFU × 3600) ÷ goodput with the bill's goodput (A100 dense BF16 peak 312 TFLOP/s,
    NVIDIA A100 datasheet), and its price is the scenario's $1.60 (there is no reserved
    catalogue price for the A100 to fall back on)."""
    sc = {**BASE_8B, "accelerator": "A100-80GB", "n_gpus": 1024, "mfu": 0.45,
          "price_usd_per_gpu_hour": 1.60, "pricing": "reserved", "train_tokens": 1.0e12,
          "seq_len": 4096}
    path = _write(tmp_path, sc)
    est = json.loads(run_cli("estimate", "--scenario", str(path), "--format", "json").stdout)
    r = run_cli("check", "--scenario", str(path), "--format", "json")
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    g = est["bill.figures.goodput"]
    hand = est["bill.figures.training_flops_mfu_basis"] / (312e12 * 0.45 * 3600) / g
    assert got["goodput"] == pytest.approx(g, rel=1e-9)
    assert got["gpu_hours"] == pytest.approx(hand, rel=1e-6)
    assert got["gpu_hours"] == pytest.approx(est["bill.figures.main_ideal_gpu_hours"] / g,
                                             rel=1e-6)
    text = " ".join(run_cli("check", "--scenario", str(path)).stdout.split())  # unwrapped
    assert f"at the given $1.60/GPU-h (price_usd_per_gpu_hour) the hours cost " \
           f"{llmcost.fmt_usd(hand * 1.60)}" in text
    assert "not priced" not in text and "no current reserved catalogue price" not in text
    # a trial compared the left-out lines' P10-P90 with estimate's and found them different:
    # check holds the claim's MFU and price, and says so where the ranges are printed
    assert ("Not in the figure (the ledger's defaults): each P10–P90 is drawn with the claim's "
            "MFU and price held fixed (`llmcost estimate --scenario` draws a scenario's too, so "
            "its ranges differ) exploratory and failed runs:") in text


def test_check_prices_the_left_out_lines_with_the_scenarios_keys(tmp_path):
    """A new-user trial: `check --scenario` listed data licensing as "not given" although the
    scenario gave $1M. The left-out lines are the scenario's where it gives them (by hand: the
    licensing line is the $1,000,000 given, and an exploratory fraction given as a point is
    that fraction of the final run's cost, the claim's hours at its price); a range is drawn
    (its P10-P90 inside the range's ends × the final run); a pilot's keys are not lines."""
    sc = {**BASE_8B, "accelerator": "A100-80GB", "n_gpus": 1024, "mfu": 0.45,
          "price_usd_per_gpu_hour": 1.60, "pricing": "reserved", "train_tokens": 1.0e12,
          "seq_len": 4096, "ledger_data_licensing_usd": 1.0e6,
          "ledger_exploratory_fraction": 0.5}
    got = json.loads(run_cli("check", "--scenario", str(_write(tmp_path, sc)), "--format",
                             "json").stdout)
    lines = {x["key"]: x for x in got["left_out"]}
    assert lines["data.licensing"]["usd"] == pytest.approx(1.0e6)
    final_usd = got["gpu_hours"] * 1.60
    explore = next(x for k, x in lines.items() if k.startswith("compute.explor"))
    assert explore["usd"] == pytest.approx(0.5 * final_usd, rel=0.02)
    assert got["left_out_keys"] == ["ledger_data_licensing_usd", "ledger_exploratory_fraction"]
    text = " ".join(run_cli("check", "--scenario", str(_write(tmp_path, sc))).stdout.split())
    assert "Not in the figure (the scenario's ledger_data_licensing_usd, " in text
    ranged = {**sc, "ledger_exploratory_fraction": [0.25, 0.75]}
    got = json.loads(run_cli("check", "--scenario", str(_write(tmp_path, ranged)), "--format",
                             "json").stdout)
    explore = next(x for x in got["left_out"] if x["key"].startswith("compute.explor"))
    assert 0.25 * final_usd * 0.98 < explore["p10_usd"] < explore["p90_usd"] \
        < 0.75 * final_usd * 1.02
    assert "the scenario's ranges of ledger_exploratory_fraction" in \
        got["left_out_range_source"]
    with pytest.raises(ValueError, match="ledger_pilot_n_gpus.*not a key of the lines"):
        llmcost.claims.check_claim("llama-3.1-8b", 1e12, "A100-80GB", n_gpus=64, mfu=0.4,
                                   ledger_keys={"ledger_pilot_n_gpus": 8})


def test_a_value_the_bill_derived_is_priced_but_not_named_as_the_scenarios():
    """`check --scenario` prices the checkpoint line at the storage bandwidth its bill sized
    (ledger.provisioned_storage) when the scenario gives none; that value is the bill's, not a
    key the user wrote, so it goes in ``bill_keys``: the lines are priced exactly as if it were
    given (the same ledger scenario), and ``left_out_keys`` names only the scenario's keys."""
    run = dict(n_gpus=1024, mfu=0.45, price_usd_per_gpu_hour=1.60, pricing="reserved")
    given = {"ledger_data_licensing_usd": 1.0e6, "ledger_exploratory_fraction": 0.5}
    sized = {"ckpt_storage_bytes_per_s": 1.0e11}
    split = llmcost.claims.check_claim("llama-3.1-8b", 1e12, "A100-80GB", ledger_keys=given,
                                       bill_keys=sized, **run)
    merged = llmcost.claims.check_claim("llama-3.1-8b", 1e12, "A100-80GB",
                                        ledger_keys={**given, **sized}, **run)
    assert split.left_out == merged.left_out and split.left_out_usd == merged.left_out_usd
    assert split.left_out_keys == tuple(sorted(given))
    assert merged.left_out_keys == tuple(sorted({**given, **sized}))
    assert "the scenario's ledger_data_licensing_usd, ledger_exploratory_fraction, else" in \
        " ".join(split.describe().split())
    with pytest.raises(ValueError, match=r"bill_keys: \['ckpt_storage_bytes_per_s'\] are in "
                                         r"ledger_keys too"):
        llmcost.claims.check_claim("llama-3.1-8b", 1e12, "A100-80GB", ledger_keys=sized,
                                   bill_keys=sized, **run)
    with pytest.raises(ValueError, match="bill_keys: 'n_gpus' is not a key of the lines"):
        llmcost.claims.check_claim("llama-3.1-8b", 1e12, "A100-80GB", bill_keys={"n_gpus": 8},
                                   **run)


def test_unknown_model_says_a_config_json_path_is_accepted(tmp_path):
    path = _write(tmp_path, {**BASE_8B, "model": "llama-4-maverick", "mfu": 0.4})
    with pytest.raises(ScenarioError, match=r"model='llama-4-maverick' is not in the catalogue"
                                            r".*path of its Hugging Face config\.json"):
        load_scenario(path)


def test_a_batch_that_cannot_split_over_the_gpus_names_a_batch_that_does(tmp_path):
    """128 sequences on 2,304 GPUs (Llama 3.1 70B: 64 heads, 80 layers): dp must divide 128, so
    tp·pp·cp would be 2,304 / dp = 18 × 2^k, a multiple of 9, while tp | 64, pp | 80 and
    cp ∈ {1, ..., 32} make only products 2^a · 5^b. With tp·pp·cp = 256 (the largest product
    that divides 2,304 = 2^8 · 9), dp = 9, so a batch divisible by 9 (126 or 135 sequences,
    the nearest to 128) splits. That is with the even split (``pp_split: even``); the default,
    ``auto``, also places 80 layers on 9 stages (uneven: 8 or 9 layers a stage), so dp = 128
    and tp·pp = 2·9 split the 2,304 GPUs."""
    sc = {**BASE_8B, "model": "llama-3.1-70b", "n_gpus": 2304, "mfu": 0.4,
          "global_batch_tokens": 128 * 8192, "cp": 0, "pp_split": "even"}
    for k in ("tp", "pp"):  # chosen by the search
        sc.pop(k)
    with pytest.raises(ScenarioError, match=r"2,304 GPUs do not split with a global batch of "
                                            r"128 sequences.*a global batch divisible by 9 "
                                            r"\(e\.g\. 126 or 135 sequences\)"):
        load_scenario(_write(tmp_path, sc))
    sc["pp_split"] = "auto"
    assert load_scenario(_write(tmp_path, sc))["pp_split"] == "auto"


def test_a_phase_the_main_plan_cannot_hold_is_refused_as_the_main_run_is(tmp_path):
    """A 32,768-token phase on the 8B run's TP1 PP1 plan without recomputation: activations
    alone are about 34 · s · h bytes per layer (Korthikanti et al. 2022, eq. 2, the attention
    scores term gone with flash attention), 32 × 34 × 32,768 × 4,096 ≈ 146 GB per GPU, above an
    H100's 80 GB. A new-user trial found the phase only warned of while a main run that does
    not fit is refused ("no parallel plan fits"): estimate now refuses it the same way, naming
    the phase and its seq_len (checks.phase_does_not_fit). The bill of the Python API still
    says it in its warnings, as it says the main run's (checks.scenario_warnings), with the
    context warning the main seq_len would get (beyond the 8,192-token pre-training context)."""
    from llmcost.bill.checks import scenario_warnings
    sc = {**BASE_8B, "mfu": 0.4, "recompute": "none",
          "phases": [{"name": "long", "tokens": 1.0e9, "seq_len": 32768}]}
    r = run_cli("estimate", "--scenario", str(_write(tmp_path, sc)), "--format", "json")
    assert r.returncode == 2, r.stdout
    err = " ".join(r.stderr.split())
    assert "phases[0] ('long', seq_len=32,768) (the phase runs on the main run's n_gpus): no " \
        "parallel plan fits" in err
    assert "give the phase its own mfu" in err
    # 146 GB of activations + 30 GB of ZeRO-2 model states (16 + 112/8) = 176 GB by hand; the
    # model adds the logits and buffers: within 10 % of the hand figure
    gb = float(re.search(r"needs at least ([\d,]+) GB per GPU", err).group(1).replace(",", ""))
    assert 176 * 0.9 < gb < 176 * 1.1, gb
    full = {**llmcost.load_scenario(llmcost.SCENARIO_DIR / "default.yaml"), **sc}
    mine = [w for w in scenario_warnings(full) if w.startswith("phases[0] ('long', seq_len=32,768)")]
    assert len(mine) == 1, mine  # one sentence per phase
    assert "no parallel plan fits" in mine[0] and "main run's MFU" in mine[0]
    assert "beyond the 8,192-token sequence length" in mine[0]
    # recomputation left to the search: full recomputation keeps one 2 · s · h-byte layer
    # input per layer, 32 × 2 × 32,768 × 4,096 ≈ 8.6 GB, so the phase fits and is billed (its
    # context warning stays)
    ok = {**sc, "recompute": "auto"}
    r = run_cli("estimate", "--scenario", str(_write(tmp_path, ok, "ok.yaml")), "--format", "json")
    assert r.returncode == 0, r.stderr
    said = [w for w in json.loads(r.stdout)["warnings"] if w.startswith("phases[0]")]
    assert said and not any("no parallel plan fits" in w for w in said)


def test_a_phase_with_its_own_mfu_is_not_said_to_reuse_the_main_runs(tmp_path):
    sc = {**BASE_8B, "mfu": 0.4, "recompute": "none",
          "phases": [{"name": "long", "tokens": 1.0e9, "seq_len": 32768, "mfu": 0.3}]}
    js = json.loads(run_cli("estimate", "--scenario", str(_write(tmp_path, sc)),
                            "--format", "json").stdout)
    # the phase's own MFU is not said to be the main run's, and its plan is not checked (its
    # mfu stands for a plan the scenario cannot state); the context check the main run gets
    # still applies (a trial's 1,048,576-token phase with its own mfu was billed silently)
    mine = [w for w in js["warnings"] if w.startswith("phases[0]")]
    assert len(mine) == 1, mine
    assert "main run's MFU" not in mine[0] and "no parallel plan fits" not in mine[0]
    assert "beyond the 8,192-token sequence length" in mine[0]
    assert "at its own mfu=0.3" in mine[0] and "does not check that plan's memory" in mine[0]


def test_check_prices_the_rl_line_at_the_rollout_tp_the_report_chooses(tmp_path):
    """A new-user trial: `check --scenario` stopped ("at rl_rollout_tp=4: raise rl_rollout_tp")
    on a scenario `estimate` and `report` accept, because it priced the RL line from the file's
    keys, not the report's resolved ones. By hand: Llama 3.1 405B in BF16 is 811 GB, 203 GB per
    GPU at the notebooks' rollout TP 4, above a B200's usable HBM; at TP 8, 101 GB fits."""
    sc = {"model": "llama-3.1-405b", "accelerator": "B200", "n_gpus": 1024, "mfu": 0.4,
          "train_tokens": 1e12, "seq_len": 8192, "global_batch_tokens": 8388608,
          "rl_iterations": 100, "rl_gpus": 64}
    r = run_cli("check", "--scenario", str(_write(tmp_path, sc)), "--format", "json")
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    rl = next(x for x in got["left_out"] if x["key"] == "post.rl")
    assert rl["status"] == "modelled" and rl["usd"] > 0
    # priced at the report's choice, as the bill prices it; named as the scenario's key only
    # where the file gives it (a later trial read "the scenario's rl_rollout_tp" of a file
    # that sets none)
    from llmcost.present.cli import estimate_ledger
    assert rl["usd"] == pytest.approx(estimate_ledger(_write(tmp_path, sc)).line(
        "post.rl").usd, rel=1e-9)
    assert "rl_rollout_tp" not in got["left_out_keys"]


def test_a_config_json_that_is_not_an_object_is_one_line_naming_the_model(tmp_path):
    """A config.json holding a JSON list, or text that is not JSON, is refused with one line
    naming the model key and the file's fault (not a traceback, and not a message cut at its
    first colon)."""
    (tmp_path / "list.json").write_text("[1, 2]")
    (tmp_path / "bad.json").write_text("{not json")
    for name, fault in (("list.json", "must hold a JSON object, got list"),
                        ("bad.json", "is not valid JSON: Expecting property name")):
        with pytest.raises(ValueError) as e:
            llmcost.load_model(str(tmp_path / name))
        assert str(e.value).startswith(f"model={str(tmp_path / name)!r} {fault}")
        r = run_cli("estimate", "--scenario",
                    str(_write(tmp_path, {**BASE_8B, "model": name, "mfu": 0.4})))
        assert r.returncode == 2 and "Traceback" not in r.stderr and fault in r.stderr


def test_an_unknown_moe_family_is_refused_not_read_as_dense(tmp_path):
    """Qwen1.5-MoE-A2.7B (model_type qwen2_moe, which the reader does not know; config.json of
    Qwen/Qwen1.5-MoE-A2.7B on the Hugging Face Hub): 60 experts of width 1,408, top 4, a shared
    expert of 5,632; its model card states 14.3B parameters, 2.7B activated. Read as a dense
    Llama (intermediate_size 5,632 as one FFN) it would count, by hand,
    24 × (4 × 2048² + 3 × 2048 × 5632) + 2 × 151,936 × 2048 ≈ 1.85B: below both published
    figures. So the reader refuses it and names the MoE families it does read."""
    cfg = {"model_type": "qwen2_moe", "hidden_size": 2048, "num_hidden_layers": 24,
           "num_attention_heads": 16, "num_key_value_heads": 16, "intermediate_size": 5632,
           "moe_intermediate_size": 1408, "shared_expert_intermediate_size": 5632,
           "num_experts": 60, "num_experts_per_tok": 4, "vocab_size": 151936,
           "max_position_embeddings": 8192, "tie_word_embeddings": False}
    # (a dense family given the expert count is refused too: the dense reading, without it)
    with pytest.raises(ValueError, match="num_experts=60: a mixture of experts"):
        llmcost.ModelSpec.from_hf_config({**cfg, "model_type": "llama"})
    dense = llmcost.ModelSpec.from_hf_config({**{k: v for k, v in cfg.items()
                                                 if k != "num_experts"}, "model_type": "llama"})
    hand = 24 * (4 * 2048**2 + 3 * 2048 * 5632) + 2 * 151936 * 2048
    assert dense.n_params == pytest.approx(hand, rel=0.01)
    assert dense.n_params < 2.7e9 < 14.3e9
    with pytest.raises(ValueError, match=r"model_type='qwen2_moe'.*num_experts=60.*"
                                         r"mixture of experts.*qwen3_moe"):
        llmcost.ModelSpec.from_hf_config(cfg)
    # a dense unknown family (an expert count of 1, or none) is still read, with its warning
    with pytest.warns(UserWarning, match="not a known family"):
        llmcost.ModelSpec.from_hf_config({**cfg, "model_type": "smollm3", "num_experts": 1})


@pytest.mark.parametrize("accelerator, says", [
    # data/efficiency.csv's H100 row: 80.1% (stas00/ml-engineering's maximum achievable matmul
    # FLOPS table, the figure the notebook's prose quotes)
    ("H100-SXM", "H100-SXM: the largest matmuls reach about 80% of the dense peak; the"),
    # TPU v5p has no row: the generic one stands in, and the page says so
    ("TPU v5p", "TPU v5p: the largest matmuls reach about 80% of the dense peak (no "
                "measurement for this accelerator: data/efficiency.csv's generic row)"),
])
def test_notebook_01_says_when_the_matmul_ceiling_is_not_measured(tmp_path, accelerator, says):
    """Notebook 01 §5 prints the matmul ceiling of the scenario's accelerator from
    data/efficiency.csv; an accelerator without a row of its own gets the generic row, which
    the sentence must not present as a measurement of that accelerator."""
    from _inprocess import run_in_process

    from llmcost.present import report
    sc = {**BASE_8B, "accelerator": accelerator, "mfu": 0.4, "price_usd_per_gpu_hour": 4.2}
    plan = report.plan_report(_write(tmp_path, sc), ["01"])
    (nb,) = plan.notebooks
    assert says in run_in_process(nb, report.notebook_parameters_for(nb, plan))


def test_keys_the_file_leaves_out_are_not_listed_as_the_scenarios(tmp_path):
    """The index's and summary.json's "Parameters used" say where each value came from. A
    scenario file without price_usd_per_gpu_hour, rl_iterations or rl_runs gets a null price
    (the catalogue median) and ledger_rl false from the report itself: those values are not the
    file's, so their source must not read "scenario"; a file that gives a price is "scenario"."""
    from llmcost.present import report
    sc = {k: v for k, v in BASE_8B.items() if k != "price_usd_per_gpu_hour"}
    plan = report.plan_report(_write(tmp_path, {**sc, "mfu": 0.4}), ["00"])
    used = report.effective_parameters(plan.scenario, plan.declared)
    assert used["price_usd_per_gpu_hour"]["value"] is None
    assert used["price_usd_per_gpu_hour"]["from"].startswith("not in the scenario")
    assert used["ledger_rl"]["value"] is False
    assert used["ledger_rl"]["from"].startswith("not in the scenario")
    assert used["model"]["from"] == "scenario"
    given = report.plan_report(_write(tmp_path, {**BASE_8B, "mfu": 0.4, "rl_iterations": 10},
                                      "g.yaml"), ["00"])
    used = report.effective_parameters(given.scenario, given.declared)
    assert used["price_usd_per_gpu_hour"] == {"value": 2.5, "from": "scenario"}
    assert used["ledger_rl"]["from"] == "notebook default"  # null: billed, rl_iterations given


def test_a_restart_longer_than_the_gap_between_planned_interruptions_is_said_once(tmp_path):
    """Llama 3's 0.87 planned interruptions a day (47 in 54 days, arXiv:2407.21783 §3.3.4) leave
    86,400 / 0.87 ≈ 99,310 s between them; a restart of 1e12 s (a unit slip) cannot fit, so the
    scenario is refused. The refusal names δ + R with its value and explains it once, though
    the message passes through the scenario's words twice (the bill's, then the report's)."""
    from llmcost.bill.scenario import user_words
    sc = {**BASE_8B, "mfu": 0.4, "ckpt_restart_s": 1e12}
    r = run_cli("estimate", "--scenario", str(_write(tmp_path, sc)))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.count("(a checkpoint's write at the slower of ckpt_storage_bytes_per_s") == 1
    assert "= 1e+12 s each would take all of the wall-clock time" in r.stderr
    once = user_words("planned_per_day=1: planned interruptions of δ + R = 5 s each")
    assert user_words(once) == once and once.startswith("fail_planned_per_day=1")


def test_an_exploratory_fraction_beside_listed_runs_is_refused(tmp_path):
    """The bill's exploratory line is either Cottier et al.'s fraction of the final run or the
    runs the scenario lists (which replace it): a file giving both would have its fraction
    silently ignored, so it is refused naming both keys (as mfu beside a pilot is)."""
    runs = [{"name": "ablations", "gpu_hours": 5000.0}]
    sc = {**BASE_8B, "mfu": 0.4, "ledger_exploratory_runs": runs}
    with pytest.raises(ScenarioError, match=r"ledger_exploratory_fraction=0.5 and "
                                            r"ledger_exploratory_runs are both given"):
        load_scenario(_write(tmp_path, {**sc, "ledger_exploratory_fraction": 0.5}))
    bill = llmcost.build_ledger(load_scenario(_write(tmp_path, sc, "runs.yaml")))
    # 5,000 GPU-h at the scenario's $2.50: the listed run, no fraction
    assert bill.line("compute.exploratory").usd == pytest.approx(5000 * 2.5)
    # the same rule where no file is read: validate_parameters, validate_scenario and the bill
    # of a dict (the path before the refusal only when a file was read)
    from llmcost.bill.validation import validate_scenario
    both = {**sc, "ledger_exploratory_fraction": 0.5}
    for check in (lambda: llmcost.validate_parameters(**both), lambda: validate_scenario(both),
                  lambda: llmcost.build_ledger(both)):
        with pytest.raises(ScenarioError, match=r"^ledger_exploratory_fraction=0.5 and "
                                                r"ledger_exploratory_runs are both given"):
            check()


def test_a_pilot_scale_without_its_throughput_is_refused_without_a_file(tmp_path):
    """``ledger_pilot_n_gpus`` says where the pilot's throughput was measured: alone it is
    refused by a scenario file (load_scenario) and by validate_scenario of a dict alike. A
    report that has calibrated the MFU keeps the scale for notebooks 00 and 09 and records the
    calibration (``_mfu_calibration``, validate_scenario's private keys): accepted there."""
    from llmcost.bill.validation import validate_scenario
    sc = {**BASE_8B, "mfu": 0.4, "ledger_pilot_n_gpus": 64}
    with pytest.raises(ScenarioError, match=r"ledger_pilot_n_gpus=64 is given without "
                                            r"ledger_pilot_tokens_per_s_per_gpu"):
        load_scenario(_write(tmp_path, sc))
    with pytest.raises(ScenarioError, match=r"^ledger_pilot_n_gpus=64 is given without "
                                            r"ledger_pilot_tokens_per_s_per_gpu"):
        validate_scenario(sc)
    cal = {"value": 0.4, "tokens_per_s_per_gpu": 900.0, "from": "a pilot", "low": 0.35,
           "high": 0.4}
    assert validate_scenario(sc, {"_mfu_calibration": cal}).total_usd > 0


def test_an_rl_update_that_fits_no_plan_is_refused_not_priced(tmp_path):
    """Llama 3.1 405B's training state in mixed-precision Adam is 18 bytes per parameter
    (bf16 weights 2, fp32 gradients 4, fp32 master 4, Adam m and v 8: the bf16_adam_fp32_grads
    recipe; Rajbhandari et al. 2020 §3.1 count 16 with bf16 gradients): 405.85e9 × 18 ≈ 7.3 TB,
    over 8 GPUs about 913 GB each even fully sharded, against an H100's 80 GiB (85.9 GB, 77 GB
    usable). So an RL job of 8 H100s cannot run the policy's update: the bill must refuse it
    (naming rl_gpus), not price it at the least-memory plan's MFU as if it ran."""
    assert 405.85e9 * 18 / 8 > 80 * 2**30
    sc = {**BASE_8B, "model": "llama-3.1-405b", "n_gpus": 16384, "train_tokens": 15.6e12,
          "seq_len": 8192, "global_batch_tokens": 16777216, "tp": 8, "pp": 16,
          "pp_split": "embedding_and_loss", "mfu": 0.4, "rl_iterations": 100, "rl_gpus": 8,
          "rl_rollout_tp": 8, "serve_weight_dtype": "fp8"}  # rollouts: 406 GB / 8 = 51 GB
    r = run_cli("estimate", "--scenario", str(_write(tmp_path, sc)))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "rl_gpus=8: no training plan of llama-3.1-405b fits" in r.stderr


def test_a_report_chooses_rl_gpus_the_policy_fits_when_the_scenario_gives_none(tmp_path):
    """Notebook 05 prices an illustrative RL campaign on the notebooks' 64 GPUs when the
    scenario gives no rl_gpus. A 405B policy's 7.3 TB of training state (18 B/param, above)
    over 64 GPUs is 114 GB each, above the 77 GB usable of an H100; over 128 it is 57 GB. The
    report must not stop on a key the file did not give: it takes 128 GPUs (from 64 by
    doubling) and says so where the parameters are listed."""
    from llmcost.present import report
    assert 405.85e9 * 18 / 64 > 77e9 > 405.85e9 * 18 / 128
    sc = {**BASE_8B, "model": "llama-3.1-405b", "n_gpus": 16384, "train_tokens": 15.6e12,
          "seq_len": 8192, "global_batch_tokens": 16777216, "tp": 8, "pp": 16,
          "pp_split": "embedding_and_loss", "mfu": 0.4}
    plan = report.plan_report(_write(tmp_path, sc))
    used = report.effective_parameters(plan.scenario, plan.declared)
    assert used["rl_gpus"]["value"] == 128
    assert used["rl_gpus"]["from"].startswith("chosen: the smallest RL job")


@pytest.mark.parametrize("value", ["", ",", " , "])
def test_report_with_an_empty_notebook_selection_is_refused(tmp_path, value):
    """`--notebooks ""` (an empty shell variable, say) selects nothing: the report refuses it in
    one line before running, instead of running all twelve notebooks as if it were left out."""
    sc = _write(tmp_path, {**BASE_8B, "mfu": 0.4})
    r = run_cli("report", "--scenario", str(sc), "--notebooks", value,
                "--out", str(tmp_path / "out"))
    assert r.returncode == 2 and "names no notebook" in r.stderr
    assert not (tmp_path / "out").exists()


def test_notebook_01_deepseek_v3_whole_run_range_is_computed(tmp_path):
    """DeepSeek-V3: 2,664K H800 GPU-hours for 14.8T tokens of pre-training (arXiv:2412.19437,
    Table 1), 37.55B active parameters. By 6ND: 6 × 37.55e9 × 14.8e12 = 3.335e24 FLOP over
    2.664e6 × 3600 s × 1,978.9 TFLOP/s (the H800's dense FP8 peak) = 17.6%; on the MFU basis
    (4.319e24 FLOP with full-mask attention at 4K, notebook 01's count) 22.8%; against BF16's
    989.4 TFLOP/s twice those. The page printed "about 18–22%" and "35–44%" in its prose; the
    range is now printed by the cell: 18%–23% and 35%–46%."""
    from _inprocess import run_in_process

    from llmcost.present import report
    fp8 = 6 * 37.55e9 * 14.8e12 / (2.664e6 * 3600 * 1978.9e12)
    assert f"{fp8:.1%}" == "17.6%" and f"{2 * fp8:.1%}" == "35.1%"
    basis = 4.319e24 / (2.664e6 * 3600 * 1978.9e12)
    assert f"{basis:.1%}" == "22.8%" and f"{2 * basis:.1%}" == "45.5%"
    plan = report.plan_report(_write(tmp_path, {**BASE_8B, "mfu": 0.4}), ["01"])
    (nb,) = plan.notebooks
    printed = run_in_process(nb, report.notebook_parameters_for(nb, plan))
    assert ("against the FP8 peak it used: 18%–23% over the whole run (6ND to MFU basis); "
            "against the BF16 peak: 35%–46%") in printed


def test_calibrate_names_the_scenario_file_in_a_pilot_error(tmp_path):
    """`llmcost calibrate` refuses a pilot whose tp (3) does not divide its 8 GPUs in one line
    that names the scenario file, as `llmcost estimate` does, and names it once."""
    sc = {k: v for k, v in BASE_8B.items() if k not in ("tp", "pp", "zero_stage")}
    path = _write(tmp_path, {**sc, "pilot": [{"n_gpus": 8, "tokens_per_s_per_gpu": 7000.0,
                                               "tp": 3}]})
    for cmd in ("calibrate", "estimate"):
        r = run_cli(cmd, "--scenario", str(path))
        assert r.returncode == 2, r.stderr
        assert r.stderr.startswith(f"llmcost: error: {path}: pilot[0]: tp·pp·cp = 3·1·1 = 3")
        assert r.stderr.count(str(path)) == 1


def test_a_tiny_given_mfu_is_refused_and_a_small_one_is_not_printed_as_zero(tmp_path):
    """mfu: 1e-9 (a typo for 0.40, say) billed $2.2e16 and 26 million years with warnings (a
    trial): below scenario.MFU_FLOOR it is refused, naming the key, the value and the rule. The
    floor's claim holds: it is over 100x under the lowest published MFU of the step model's
    validation table (Megatron-LM's 2021 ZeRO-3 175B comparison, about 10.6%, Narayanan et al.
    2021, arXiv:2104.04473, Table 2). Just above it, the sentence on the step model's
    expectation shows the figure (0.0020), not "mfu=0.00"."""
    from llmcost.bill.scenario import MFU_FLOOR
    from llmcost.training.accuracy import validation_table
    lowest = float(validation_table()["reported_mfu"].min())
    assert 0.09 < lowest < 0.12 and lowest / MFU_FLOOR > 100
    r = run_cli("estimate", "--scenario", str(_write(tmp_path, {**BASE_8B, "mfu": 1e-9})))
    assert r.returncode == 2 and r.stdout == ""
    assert "mfu=1e-09 is below 0.001 (0.1% of the dense peak)" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    r = run_cli("estimate", "--scenario", str(_write(tmp_path, {**BASE_8B, "mfu": 0.002})))
    assert r.returncode == 0, r.stderr
    text = " ".join((r.stdout + r.stderr).split())
    assert "the scenario's mfu=0.0020 is below what the step-time model expects" in text
    assert "mfu=0.00 is" not in text
    # a range's low end and a phase's mfu are what the file gives too
    for extra, said in (({"mfu": {"low": 0.0005, "high": 0.4}}, "mfu's range low end 0.0005"),
                        ({"mfu": 0.4, "phases": [{"name": "anneal", "tokens": 1e11,
                                                  "seq_len": 8192, "mfu": 1e-5}]},
                         "phases[0].mfu=1e-05")):
        r = run_cli("estimate", "--scenario", str(_write(tmp_path, {**BASE_8B, **extra})))
        assert r.returncode == 2 and f"{said} is below 0.001" in r.stderr, r.stderr
    # an MFU the package derives is judged by its own checks, not refused as a typo (a review:
    # `llmcost check` of 2e7 GPU-hours for an 8B model on 1T tokens implies 0.08% and gave no
    # verdict): by hand 6 · 8.03e9 · 1e12 / (2e7 h · 3,600 s · 989.4e12) = 0.068%
    r = run_cli("check", "--model", "llama-3.1-8b", "--train-tokens", "1e12", "--n-gpus", "64",
                "--accelerator", "H100-SXM", "--gpu-hours", "2e7")
    assert r.returncode == 0 and "below 0.001" not in r.stderr, r.stderr
    # a bill built in Python (a notebook's, levers.bill) from a given MFU is held to it too (a
    # review: the file-only check let `levers.bill({"mfu": 1e-9})` bill $6.1e16)
    from llmcost.bill import ledger
    from llmcost.bill.scenario import ScenarioError
    with pytest.raises(ScenarioError, match=r"mfu=1e-09 is below 0\.001"):
        ledger.build_ledger({**BASE_8B, "mfu": 1e-9})
    # a pilot's MFU is derived: billed, its tiny figure said with its digits, not "0.0%"
    pilot = {k: v for k, v in BASE_8B.items() if k not in ("tp", "pp", "zero_stage")}
    r = run_cli("estimate", "--scenario", str(_write(tmp_path, {
        **pilot, "ledger_pilot_tokens_per_s_per_gpu": 1})))
    text = " ".join((r.stdout + r.stderr).split())
    assert r.returncode == 0 and "the run's MFU from the pilot, 0.0059% is below" in text, text


def test_the_hardware_sweep_moves_an_rl_job_to_as_many_chips_as_its_update_needs():
    """Notebook 09 prices the default scenario (Llama 2 70B, an RL campaign on 64 GPUs) on every
    accelerator. On TPU v5e (16 GB HBM, 14.4 GB usable after the 10% reserve) the rollout
    replica needs TP 16 (138 GB of BF16 weights / 8 = 17.2 GB does not fit, / 16 = 8.6 GB does),
    and the update's training state, 68.98e9 × 18 B = 1.24 TB, needs more than 64 chips (19.4 GB
    each even fully sharded) but fits 128 (9.7 GB). The sweep must price that job, not the
    64-chip one that cannot run."""
    from llmcost.bill import levers
    from llmcost.present import report
    from pathlib import Path
    assert 68.98e9 * 18 / 64 > 14.4e9 > 68.98e9 * 18 / 128
    assert 68.98e9 * 2 / 8 > 14.4e9 > 68.98e9 * 2 / 16
    default = Path(llmcost.__file__).resolve().parent.parent / "data/scenarios/default.yaml"
    plan = report.plan_report(default, ["09"])
    v = {**plan.values, **report.private_keys(plan.scenario)}
    assert v["rl_gpus"] == 64
    moved = levers.on_hardware(v, "TPU v5e")
    assert (moved["rl_gpus"], moved["rl_rollout_tp"]) == (128, 16)
    assert levers.on_hardware(v, "H100-SXM")["rl_gpus"] == 64  # fits where it was planned


def test_notebook_04b_runs_a_small_zero2_scenario_and_prints_its_hours_whole(tmp_path):
    """A new-user trial: Llama 3.1 8B on 8 A100-80GB (`mfu: predict`, ZeRO-2 chosen, 2B tokens)
    failed notebook 04b (its illustrative pilot, an eighth of the run, was 1 GPU where the
    ZeRO-2 model states do not fit: calibrate.pilot_study now doubles it), and the page printed
    "0.000152M GPU-hours, $0.000274M" for a run of 152 GPU-hours. By hand: GPU-hours =
    train_tokens ÷ tokens/s × GPUs ÷ 3600, printed with k/M suffixes (llmcost.fmt_count) and
    dollars by llmcost.fmt_usd."""
    from _inprocess import run_in_process

    from llmcost.present import report
    sc = {"model": "llama-3.1-8b", "accelerator": "A100-80GB", "n_gpus": 8, "train_tokens": 2e9,
          "seq_len": 8192, "mfu": "predict", "price_usd_per_gpu_hour": 1.8,
          "global_batch_tokens": 1048576}
    plan = report.plan_report(_write(tmp_path, sc), ["04b"])
    (nb,) = plan.notebooks
    out = run_in_process(nb, report.notebook_parameters_for(nb, plan))
    line = next(x for x in out.splitlines() if "2e+09 tokens at " in x)
    tps = float(line.split("2e+09 tokens at ")[1].split(" tokens/s")[0].replace(",", ""))
    hours = 2e9 / tps * 8 / 3600  # tokens/s as printed (rounded to a whole number)
    got = re.search(r"GPUs, ([0-9.]+) GPU-hours, \$([0-9.,]+) at \$1\.80/GPU-h", line)
    assert got, line
    assert float(got[1]) == pytest.approx(hours, rel=0.005) and 100 < hours < 1000
    assert float(got[2].replace(",", "")) == pytest.approx(1.8 * hours, rel=0.005)
    assert "0.000" not in out
    assert "ILLUSTRATIVE pilot" in out and "on 2 of 8 GPUs" in out


def test_notebook_01_prints_a_small_runs_throughput_whole(tmp_path):
    """The same trial scenario's notebook 01 read "0.03M tokens/s on 8 GPUs" (two decimals of
    millions) for 8 × 3,630 = 29,040 tokens/s; it prints llmcost.fmt_count's "29k". By hand
    here: 8 × the per-GPU figure the line prints, in thousands."""
    from _inprocess import run_in_process

    from llmcost.present import report
    sc = {"model": "llama-3.1-8b", "accelerator": "A100-80GB", "n_gpus": 8, "train_tokens": 2e9,
          "seq_len": 8192, "mfu": 0.5, "price_usd_per_gpu_hour": 1.8,
          "global_batch_tokens": 1048576}
    plan = report.plan_report(_write(tmp_path, sc), ["01"])
    (nb,) = plan.notebooks
    out = run_in_process(nb, report.notebook_parameters_for(nb, plan))
    line = next(x for x in out.splitlines() if x.startswith("MFU 50.0% on A100-80GB means "))
    per_gpu = float(line.split(" means ")[1].split(" tokens/s")[0].replace(",", ""))
    got = re.search(r"context, ([0-9.]+)k tokens/s on 8 GPUs$", line)
    assert got, line  # per GPU as printed, rounded to a whole token/s: within 0.5 %
    assert float(got[1]) * 1e3 == pytest.approx(8 * per_gpu, rel=0.005)


def test_notebook_06_illustrates_repeated_data_with_a_corpus_the_run_repeats(tmp_path):
    """A new-user trial: a 1.3B model on 26B tokens (8 A100-40GB) printed "at 0.0 epochs the best
    model is 1.32e+08 parameters against 1.32e+08 on fresh data (-0% smaller), and the loss
    0.0000 worse" and "repeating: loss 2.5018" equal to one epoch's, under prose that says
    repeating is better: the illustrative 100B corpus was larger than the run. It is now
    min(100B, D / 20) = 26e9 / 20 = 1.3e9 tokens (scaling.illustrative_unique_tokens), which the
    smallest budget shown (1% of the run's 6ND) already repeats."""
    from _inprocess import run_in_process

    from llmcost.present import report
    sc = {"model": "opt-1.3b", "accelerator": "A100-40GB", "n_gpus": 8, "train_tokens": 26e9,
          "seq_len": 2048, "mfu": 0.35, "global_batch_tokens": 1048576}
    plan = report.plan_report(_write(tmp_path, sc), ["06"])
    (nb,) = plan.notebooks
    out = run_in_process(nb, report.notebook_parameters_for(nb, plan))
    assert "illustration: 1.3e+09 unique tokens" in out
    line = next(x for x in out.splitlines() if x.startswith("at ") and " epochs " in x)
    epochs = float(line.split()[1])
    assert epochs > 1 and "-0%" not in line and "0.0000 worse" not in line, line


def test_notebook_01_names_the_scenarios_sequence_length_in_the_legend(tmp_path):
    """A new-user trial at a 128k context: notebook 01's "How far 6ND undercounts" figure wrote
    "scenario seq_len" at the top of its vertical line, on the spine and the steepest curve (the
    scenario's 131,072 = 2^17 is the figure's last point, where the curves are highest). The line
    is named in the legend, with its value, and no label is drawn on the plot."""
    from _inprocess import code_cells, run_in_process

    from llmcost.present import report
    sc = {"model": "llama-3.1-70b", "accelerator": "B200", "n_gpus": 1024, "train_tokens": 1.5e12,
          "seq_len": 131072, "mfu": 0.35, "global_batch_tokens": 16777216, "cp": 0}
    plan = report.plan_report(_write(tmp_path, sc), ["01"])
    (nb,) = plan.notebooks
    figure_cell = next(i for i, src, c in code_cells(nb) if "flops_ratio_vs_seq_len" in src)
    ns = {"__name__": "__main__", "display": lambda *a, **k: None}
    seen = {}

    def after_the_figure(i, cell):
        if i == figure_cell + 1:  # the figure's cell has run (its figure closed, its Axes kept)
            ax = ns["ax"]
            seen["legend"] = [t.get_text() for t in ax.get_legend().get_texts()]
            seen["texts"] = [t.get_text() for t in ax.texts]
    run_in_process(nb, report.notebook_parameters_for(nb, plan), ns=ns,
                   before_cell=after_the_figure)
    assert "scenario seq_len (131,072)" in seen["legend"]
    assert not any("scenario seq_len" in t for t in seen["texts"])


@pytest.mark.parametrize("accelerator", ["L40S", "TPU v4", "MI325X"])
def test_an_accelerator_without_a_network_figure_runs_the_notebooks_it_lists(tmp_path,
                                                                              accelerator):
    """A new-user trial on 64 L40S GPUs (no sourced scale-out bandwidth): `llmcost list
    accelerators` said "00, 01, 07 only" and left 05, 06, 08 and 10 unnamed; 08 and 10 run
    (they need no network figure), while 05 and 06 were refused by the RL set-up's check with
    "scaleout_bytes_per_s_per_dir: ... pass it explicitly", a name no scenario holds. The list
    names every notebook on one side or the other, 05 and 06 are refused as 02 is, and the
    key the user can give is the scenario's."""
    from llmcost.core.catalog import runnable_notebooks
    from llmcost.present import report
    from llmcost.present.numbering import notebook_number

    sc = {"model": "llama-3.1-8b", "accelerator": accelerator, "n_gpus": 64,
          "train_tokens": 1e11, "seq_len": 4096, "mfu": 0.3, "price_usd_per_gpu_hour": 2.0}
    path = _write(tmp_path, sc)
    words = runnable_notebooks(llmcost.load_accelerator(accelerator))
    assert words.startswith("00, 01, 07, 08, 10 only: 02, 03, 04, 04b, 05, 06, 09 need")
    every = {notebook_number(nb.stem) for nb in report.list_notebooks()}
    named = set(re.findall(r"\b\d\d[a-z]?\b", words.split(" need ")[0]))
    assert named == every  # each notebook on one side or the other
    ran = report.plan_report(path, ["00", "01", "07", "08", "10"]).notebooks
    assert [notebook_number(nb.stem) for nb in ran] == ["00", "01", "07", "08", "10"]
    for nb in ("05", "06"):
        with pytest.raises(ScenarioError) as e:
            report.plan_report(path, [nb])
        assert words in str(e.value) and "scaleout_bytes_per_s_per_dir" not in str(e.value)
    from llmcost.bill.scenario import user_words
    assert user_words("scaleout_bytes_per_s_per_dir: L40S has no value") == \
        "comm_scaleout_bytes_per_s: L40S has no value"


def test_check_judges_a_ranged_mfu_at_the_point_its_bill_prices(tmp_path):
    """A scenario whose mfu is a range (uniform 0.35-0.45) is checked at the range's midpoint,
    0.40, the MFU its bill prices (bill.ranges.Range.point), and says so; it was refused with
    'mfu=Range(...) must be a steady-state MFU in (0, 1]'."""
    sc = {**BASE_8B, "mfu": [0.35, 0.45]}
    r = run_cli("check", "--scenario", str(_write(tmp_path, sc)), "--gpu-hours", "400000")
    text = " ".join(r.stdout.split())
    assert r.returncode == 0, r.stderr
    assert "range (35.0%–45.0%, uniform) is judged at its point, 40.0%" in text
    got = json.loads(run_cli("check", "--scenario", str(_write(tmp_path, sc)), "--gpu-hours",
                             "400000", "--format", "json").stdout)
    assert got["mfu_range"].startswith("mfu: the scenario's range (35.0%–45.0%")
    assert any(n.startswith("stated MFU 40.0%") for n in got["notes"])


@pytest.mark.parametrize("extra, says", [
    ({"ledger_exploratory_runs": [{"name": "ablations", "gpu_hours": 5000}]},
     "at 1.19 × the final run in place of the scenario's listed runs: bill"),
    ({"ledger_pilot_tokens_per_s_per_gpu": 9000, "ledger_pilot_n_gpus": 64, "mfu": None},
     "exploratory and failed runs:")])
def test_notebook_00_runs_a_scenario_that_lists_its_runs_or_a_pilot_scale(tmp_path, extra, says):
    """A new-user trial: a scenario listing its exploratory runs stopped notebook 00 (its
    what-if at three fractions gave the fraction beside the listed runs: `ledger.with_changes`
    now lets the change replace them); a pilot throughput measured at 64 of 256 GPUs stopped
    notebooks 00 and 09 (the report passed the scale on without the throughput it had
    extrapolated: it now passes neither)."""
    from _inprocess import run_in_process

    from llmcost.present import report
    sc = {"model": "llama-2-7b", "accelerator": "H100-SXM", "n_gpus": 256,
          "train_tokens": 1e12, "seq_len": 4096, "mfu": 0.4, "price_usd_per_gpu_hour": 2.0,
          "global_batch_tokens": 4194304, **extra}
    plan = report.plan_report(_write(tmp_path, {k: v for k, v in sc.items() if v is not None}),
                              ["00"])
    (nb,) = plan.notebooks
    out = run_in_process(nb, report.notebook_parameters_for(nb, plan))
    assert says in out
