"""One validation for every entry point (llmcost.bill.validation): what `llmcost estimate`
refuses, `llmcost report` and `llmcost check` refuse before writing anything, with one line that
names the user's key; absurd magnitudes are refused or warned; a property test checks that the
report's validation and the estimate agree and that every money line is finite and >= 0."""

import math
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llmcost.bill import levers
from llmcost.bill.ledger import build_ledger
from llmcost.core.catalog import list_prices
from llmcost.core.units import fmt_amount
from llmcost.bill.ranges import parse_range
from llmcost.bill.scenario import LEDGER_DEFAULTS, ScenarioError, validate_parameters
from llmcost.bill.validation import magnitude_warnings, user_words
from llmcost.serving.rl import RL_TIME_FACTOR_MEDIAN
from llmcost.present import cli, glance
from llmcost.present.report import estimate_ledger, plan_report
from llmcost.training import reliability as rel

BASE = ("model: llama-2-7b\naccelerator: H100-SXM\nn_gpus: 64\ntrain_tokens: 1.0e11\n"
        "seq_len: 4096\nmfu: 0.4\n")
#: The nine scenarios `llmcost report` started although `llmcost estimate` refused them, with
#: the key each refusal must name.
NINE = {
    "ledger_pue: 0.5": "ledger_pue",
    "fail_rate_per_gpu_year: 1.0e6": "fail_rate_per_gpu_year",
    "ckpt_restart_s: 1.0e12": "ckpt_restart_s",
    "ckpt_interval_s: 1.0e-9": "goodput",
    "ckpt_storage_bytes_per_s: 1.0e-3": "ckpt_storage_bytes_per_s",
    "rl_rollout_tp: 3": "rl_rollout_tp",
    "serve_tp: 3": "serve_tp",
    "pricing: spot\nledger_spot_preemptions_per_node_day: 1.0e6":
        "ledger_spot_preemptions_per_node_day",
    "phases: [{name: ext, tokens: 1.0e9, seq_len: 8192, n_gpus: 1000000000}]": "phases[0]",
}
#: Argument names of the layers below that a message must never show (the user's keys instead).
INTERNAL = ("planned_per_day", "scaleout_bytes_per_s_per_dir", "max_tokens", "pp_layers")


def _yaml(tmp_path, extra: str, name="s.yaml") -> Path:
    """BASE with the keys of ``extra`` (YAML lines) replaced or added."""
    keys = {line.split(":")[0] for line in extra.splitlines()}
    base = "".join(f"{line}\n" for line in BASE.splitlines() if line.split(":")[0] not in keys)
    p = tmp_path / name
    p.write_text(base + extra + "\n")
    return p


def _internal_names(msg: str) -> list:
    return [w for w in INTERNAL if re.search(rf"(?<![\w.]){w}\b", msg)]


@pytest.mark.parametrize("extra", list(NINE), ids=[k.split(":")[0] for k in NINE])
def test_report_refuses_what_estimate_refuses(tmp_path, extra):
    path = _yaml(tmp_path, extra)
    with pytest.raises(ScenarioError) as by_report:
        plan_report(path)  # before any notebook runs or any file is written
    with pytest.raises(ScenarioError) as by_estimate:
        estimate_ledger(path)
    msg = str(by_report.value)
    assert NINE[extra] in msg and len(msg.splitlines()) == 1
    assert str(by_estimate.value) == msg  # one validation, one message
    assert not _internal_names(msg), msg


def test_check_refuses_them_too(tmp_path, capsys):
    path = _yaml(tmp_path, "ledger_pue: 0.5")
    assert cli.main(["check", "--scenario", str(path), "--gpu-hours", "1e5"]) == 2
    assert "ledger_pue=0.5" in capsys.readouterr().err


def test_phases_and_the_rl_job_get_the_main_runs_rules(tmp_path):
    with pytest.raises(ScenarioError, match=r"rl_gpus=1,000,000,000 is more than the RL batch"):
        plan_report(_yaml(tmp_path, "rl_gpus: 1000000000"))
    with pytest.raises(ScenarioError, match=r"phases\[0\].*main run's n_gpus"):
        # 10M GPUs: 1,024 sequences of 4K feed them (each over ≤ 32·34·32 GPUs), 128 of 32K do not
        validate_parameters(model="llama-2-7b", n_gpus=10**7, seq_len=4096,
                            global_batch_tokens=2**22,
                            phases=[{"name": "ext", "tokens": 1e9, "seq_len": 32768}])
    with pytest.raises(ScenarioError, match=r"phases\[0\]\.seq_len=65,536 is longer than "
                                            "global_batch_tokens"):
        validate_parameters(model="llama-2-7b", global_batch_tokens=32768,
                            phases=[{"name": "ext", "tokens": 1e9, "seq_len": 65536}])
    # what the main run allows, a phase may do: 4M-token batches of 32K on the same GPUs
    validate_parameters(model="llama-2-7b", n_gpus=64, seq_len=4096, global_batch_tokens=2**22,
                        phases=[{"name": "ext", "tokens": 1e9, "seq_len": 32768}])


def test_messages_name_the_users_keys(tmp_path):
    # ckpt_restart_s so long that planned interruptions take all the time: reliability's
    # argument is planned_per_day, the user's key fail_planned_per_day
    msg = str(pytest.raises(ScenarioError, plan_report,
                            _yaml(tmp_path, "ckpt_restart_s: 1.0e12")).value)
    assert "fail_planned_per_day" in msg and "ckpt_restart_s" in msg
    msg = str(pytest.raises(ScenarioError, plan_report, _yaml(
        tmp_path, "rl_response_tokens: 100\nrl_response_tokens_max: 1000000\n"
                  "rl_iterations: 10")).value)
    assert "rl_response_tokens_max" in msg and not _internal_names(msg), msg
    msg = str(pytest.raises(ScenarioError, plan_report, _yaml(
        tmp_path, "accelerator: TPU v4\nprice_usd_per_gpu_hour: 3.0")).value)
    assert "the scale-out bandwidth" in msg and not _internal_names(msg), msg
    assert user_words("pp_layers: pp=3 must divide 32") == \
        "pp (pp must divide the model's layers): pp=3 must divide 32"
    assert user_words("fail_planned_per_day=1") == "fail_planned_per_day=1"  # already a key


@pytest.mark.parametrize("extra, words", [
    ("price_usd_per_gpu_hour: 1.0e300", "price_usd_per_gpu_hour=1e+300 is above 10,000"),
    ("train_tokens: 1.0e30", "train_tokens=1e+30 is above 1e+16"),
    # a new-user trial: ledger_sft_tokens: 1e20 billed a $22.6T fine-tune; the post-training
    # token counts take train_tokens' limit (no fine-tuning corpus outgrows pre-training's)
    ("ledger_sft_tokens: 1.0e20", "ledger_sft_tokens=1e+20 is above 1e+16: over 250× the 36T "
                                  "tokens Qwen3 reports pre-training on"),
    ("ledger_cpt_tokens: 1.0e17", "ledger_cpt_tokens=1e+17 is above 1e+16"),
    ("ledger_lora_tokens: 1.0e17", "ledger_lora_tokens=1e+17 is above 1e+16"),
    ("ledger_synthetic_tokens: 1.0e17", "ledger_synthetic_tokens=1e+17 is above 1e+16"),
    ("n_gpus: " + "9" * 400, "n_gpus: a 400-digit number is out of range"),
    ("train_tokens: " + "9" * 400, "train_tokens: a 400-digit number is out of range"),
])
def test_absurd_magnitudes_are_refused_with_a_message(tmp_path, capsys, extra, words):
    path = _yaml(tmp_path, extra)
    assert cli.main(["estimate", "--scenario", str(path)]) == 2  # not an OverflowError
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1 and len(err) < 400


def test_implausible_values_are_warned(tmp_path):
    bill = estimate_ledger(_yaml(tmp_path, "mfu: 2.0e-3\nledger_project_months: 0.01",
                                 name="w.yaml"))
    text = " ".join(bill.warnings)
    assert "mfu=0.002 is below every published run's MFU" in text and "(0.40 is 40%)?" in text
    assert "ledger_project_months=0.01 is shorter than the run's wall clock" in text
    # a hand derivation: 6·N·D / (peak · MFU · GPUs) seconds at 0.2% MFU is years, and the
    # bill is still finite (the warning, not a refusal: scenario.MFU_FLOOR is 1e-3)
    assert math.isfinite(bill.total_usd)
    assert magnitude_warnings({"mfu": 0.4, "ledger_project_months": None}) == []


def test_hot_spare_table_at_goodput_zero():
    # 1e6 failures per GPU-year on 2,048 GPUs: the job's MTBF is 8766 h × 3600 / (1e6 × 2048)
    # ≈ 0.015 s against a 600 s restart, so goodput is 0 (was a ZeroDivisionError)
    plan = rel.checkpoint_plan(70e9, 2048, 1e6, 2e12, 600.0)
    t = rel.hot_spare_table(plan, 8, 300.0)
    assert (t["goodput"] == 0).all() and (t["cost_per_kept_gpu_hour"] == math.inf).all()


def test_levers_without_cp_or_pp_split():
    s = {k: v for k, v in LEDGER_DEFAULTS.items()}  # a scenario with no plan keys at all
    s.update(model="llama-2-7b", n_gpus=64, train_tokens=1e11, price_usd_per_gpu_hour=3.0,
             tp=2)
    change = levers.best_plan(s)  # was KeyError: 'cp'
    assert change.after is not None
    ranked = levers.rank_levers(s, keys=["best_plan", "fp8_training"], samples=100)
    assert set(ranked["key"]) == {"best_plan", "fp8_training"}


def test_fp8_lever_is_skipped_on_a100_saying_why():
    s = {**LEDGER_DEFAULTS, "model": "llama-2-7b", "n_gpus": 64, "train_tokens": 1e11,
         "accelerator": "A100-80GB", "price_usd_per_gpu_hour": 1.8}
    change = levers.fp8_training(s)
    assert change.note.startswith("skipped: A100-80GB has no FP8 peak")
    fe = {f.name: f for f in levers.false_economies(s)}
    assert fe["FP8 that destabilises training"].how.startswith("skipped: A100-80GB")
    assert math.isnan(fe["FP8 that destabilises training"].net_usd)


# ---- the property: report's validation and estimate agree; every money line finite and >= 0
_KEYS = {
    "mfu": st.sampled_from([1e-6, 0.05, 0.4, 0.9, 1.0, 1.5, [0.3, 0.5]]),
    "n_gpus": st.sampled_from([8, 64, 1000000000]),
    "fail_rate_per_gpu_year": st.sampled_from([0.0, 0.173, 10.0, 1e6]),
    "ckpt_restart_s": st.sampled_from([0.0, 600.0, 1e12]),
    "ckpt_interval_s": st.sampled_from([None, 1e-9, 3600.0]),
    "ckpt_storage_bytes_per_s": st.sampled_from([None, 1e-3, 1e11]),
    "pricing": st.sampled_from(["on_demand", "reserved", "spot", "owned"]),
    "price_usd_per_gpu_hour": st.sampled_from([None, 0.5, 3.0, 1e300]),
    "ledger_pue": st.sampled_from([None, 0.5, 1.2]),
    "ledger_spot_preemptions_per_node_day": st.sampled_from([None, 0.1, 1e6]),
    "rl_rollout_tp": st.sampled_from([3, 4]),
    "rl_gpus": st.sampled_from([64, 1000000000]),
    "ledger_sft_tokens": st.sampled_from([0.0, 1e10]),
    "ledger_people": st.sampled_from([[], [{"role": "eng", "fte": 2}]]),
}


def _value(v):
    if v is None:
        return "null"
    if isinstance(v, (list, dict)):
        return str(v).replace("'", "")
    return str(v)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                HealthCheck.function_scoped_fixture])
@given(st.fixed_dictionaries({}, optional=_KEYS))
def test_report_validation_and_estimate_agree(tmp_path, scenario):
    path = tmp_path / "p.yaml"
    path.write_text("model: llama-2-7b\naccelerator: H100-SXM\ntrain_tokens: 1.0e11\n"
                    + "".join(f"{k}: {_value(v)}\n" for k, v in scenario.items()))
    try:
        plan = plan_report(path, ["00"])
    except ScenarioError as e:
        with pytest.raises(ScenarioError) as by_estimate:
            estimate_ledger(path)
        assert str(by_estimate.value) == str(e) and len(str(e).splitlines()) == 1
        return
    bill = estimate_ledger(path)  # accepted by the report: accepted by the estimate, same bill
    assert bill.total_usd == pytest.approx(plan.bill.total_usd, rel=1e-12)
    for ln in bill.lines:
        assert ln.usd is None or (math.isfinite(ln.usd) and ln.usd >= 0), ln
    assert math.isfinite(bill.total_usd) and bill.total_usd >= 0


def test_savings_levers_price_owned_hardware():
    # pricing: owned has no catalogue row: the hardware sweep and the move to another
    # accelerator name the amortised purchase instead of failing (notebook 09 broke on it)
    s = {**LEDGER_DEFAULTS, "model": "llama-2-7b", "n_gpus": 64, "train_tokens": 1e11,
         "pricing": "owned", "price_usd_per_gpu_hour": None, "ledger_owned_usd_per_gpu": 25000.0}
    sweep = levers.hardware_sweep(s)
    mine = sweep[sweep["scenario"]].iloc[0]
    assert mine["price_source"] == levers.OWNED_PRICE_SOURCE and mine["price_available"]
    assert "owned" in levers.move_to(s, "H200").assumptions


def test_estimate_does_not_need_notebook_05s_illustrative_rl_set_up(tmp_path):
    # DeepSeek-V3's own run (arXiv:2412.19437 §3.1: 2,048 H800s, FP8 training, no RL campaign
    # in the scenario): the bill builds, so `llmcost estimate` answers, although notebook 05's
    # illustrative set-ups do not fit as the notebooks set them. Its RL campaign's rollout TP is
    # chosen (the notebooks' 4 cannot hold 671B × 2 B; the smallest that fits is taken), and so
    # is its serving weight precision (BF16 at serve_tp 8, one H800 node: 671B × 2 B ÷ 8 =
    # 168 GB ≫ 80 GB; FP8 84 GB; INT4 43 GB fits: tests/test_serving_setup_choice.py), so a
    # report of notebook 05 runs, with both labelled as chosen.
    path = tmp_path / "ds.yaml"
    path.write_text("model: deepseek-v3\naccelerator: H800\nn_gpus: 2048\ntrain_tokens: 14.8e12\n"
                    "mfu: 0.229\nprice_usd_per_gpu_hour: 2.0\n")
    bill = estimate_ledger(path)
    assert bill.line("post.rl").usd == 0 and bill.total_usd > 0
    assert plan_report(path, ["05"]).values["serve_weight_dtype"] == "int4"
    # an RL campaign the scenario asks for is checked by the estimate too, with its set-ups;
    # a serving precision the scenario gives is checked as given
    path.write_text(path.read_text() + "rl_iterations: 100\n")
    assert estimate_ledger(path).line("post.rl").usd > 0
    with pytest.raises(ScenarioError, match="serve_weight_dtype"):
        path.write_text(path.read_text() + "serve_weight_dtype: bf16\n")
        estimate_ledger(path)
    # and a rollout TP the scenario gives is checked as given
    path.write_text(path.read_text().replace("bf16", "fp8") + "rl_rollout_tp: 4\n")
    with pytest.raises(ScenarioError, match="rl_rollout_tp"):
        estimate_ledger(path)


def test_the_bill_notebooks_validate_their_scenario_with_the_one_function():
    # Notebooks 00 and 09 build the bill: the cell after their parameters runs the same
    # validate_scenario as report, estimate and check (the bill built, every money line finite
    # and >= 0), so a notebook opened by hand refuses what the report refuses.
    import nbformat
    from llmcost.core.catalog import DATA_DIR
    for name in ("00_index", "09_savings"):
        nb = nbformat.read(DATA_DIR.parent / "notebooks" / f"{name}.ipynb", as_version=4)
        code = [c for c in nb.cells if c.cell_type == "code"]
        i = next(j for j, c in enumerate(code) if "parameters" in c.metadata.get("tags", []))
        assert "validation.validate_scenario(" in code[i + 1].source, name


def test_a_report_without_a_plan_refuses_gpus_the_batch_cannot_feed(tmp_path):
    # Llama-2-7B (32 heads, 32 layers) at the notebooks' default batch of 4,194,304 tokens of
    # 4,096: 1,024 sequences, each spread over at most 32 heads x 34 stages x 32 CP ranks =
    # 34,816 GPUs, so 1,024 x 34,816 = 35,651,584 GPUs at most (by hand). Notebook 00 builds no
    # plan, yet its bill counts the GPUs: the report of 00 alone refuses what `estimate` refuses
    # (found by the property test above with n_gpus = 1e9).
    path = tmp_path / "p.yaml"
    path.write_text("model: llama-2-7b\naccelerator: H100-SXM\ntrain_tokens: 1.0e11\n"
                    "n_gpus: 35651585\n")
    with pytest.raises(ScenarioError, match=r"n_gpus=35,651,585 is more than") as by_report:
        plan_report(path, ["00"])
    with pytest.raises(ScenarioError) as by_estimate:
        estimate_ledger(path)
    assert str(by_estimate.value) == str(by_report.value)
    path.write_text(path.read_text().replace("35651585", "35651584"))
    with pytest.raises(ScenarioError) as at_the_limit:  # fed, but failures outrun checkpoints
        plan_report(path, ["00"])
    assert "more than the scenario's global batch can feed" not in str(at_the_limit.value)
    assert "goodput of the main phase" in str(at_the_limit.value)


def test_a_project_longer_than_ten_years_is_warned_not_refused(tmp_path):
    # A new-user trial: ledger_project_months: 1e9 billed people and storage for 83 million
    # years without a word. Over 10 years, hardware price-performance moves 10^(0.14 × 10) ≈ 25×
    # (Cottier et al. 2024, §2.2, the repo's depreciation_ooms_per_year): no one-price bill
    # describes it. 120 months is the edge (not warned), 121 is over; the bill stays finite.
    from llmcost.bill.pricing import default
    assert 10 ** (default("depreciation_ooms_per_year") * 10) == pytest.approx(25.1, abs=0.1)
    bill = estimate_ledger(_yaml(tmp_path, "ledger_project_months: 1.0e9", name="m.yaml"))
    # 1e9 months ÷ 12 = 83,333,333 years, written with a suffix (units.fmt_amount)
    assert any(w.startswith("ledger_project_months=1e+09 is over 120 months (10 years; this is "
                            "83.3M years)") for w in bill.warnings)
    assert math.isfinite(bill.total_usd)
    assert magnitude_warnings({"ledger_project_months": 120}) == []
    assert len(magnitude_warnings({"ledger_project_months": 121})) == 1



def test_a_training_run_longer_than_ten_years_is_warned_not_refused(tmp_path):
    # A new-user trial: Llama 2 13B on 512 H100 with 1e15 tokens (77,000 per parameter) billed
    # a 13.9-year run without a word. By hand, the ideal days are 6·N·D ÷ (GPUs · peak · MFU):
    # 6 × 13.0e9 × 1e15 ÷ (512 × 989.4e12 × 0.4) ÷ 86,400 ≈ 4,460 days, already over 10 years
    # (3,652.5 days); the bill's run (failures, restarts and attention included) is longer, by
    # less than a goodput of 80% and the attention FLOPs of 4,096-token sequences explain. Over
    # LONG_PROJECT_MONTHS (the same reason as a long project: Cottier et al. 2024) it is warned.
    from llmcost.bill.validation import LONG_PROJECT_MONTHS
    from llmcost.core.catalog import load_model
    sc = "model: llama-2-13b\nn_gpus: 512\ntrain_tokens: 1.0e15"
    bill = estimate_ledger(_yaml(tmp_path, sc, name="long.yaml"))
    n = load_model("llama-2-13b").n_params
    ideal = 6 * n * 1e15 / (512 * 989.4e12 * 0.4) / 86_400
    assert ideal == pytest.approx(4_460, rel=0.01) and ideal > LONG_PROJECT_MONTHS * 365.25 / 12
    days = bill.figures["run_wall_clock_days"]
    assert ideal < days < ideal / 0.8 * 1.1
    (w,) = [x for x in bill.warnings if x.startswith("the training run's wall clock")]
    assert w.startswith(f"the training run's wall clock is {fmt_amount(days / 365.25, 3)} years "
                        f"({days:,.0f} days on 512 GPUs, failures included), over 10 years")
    assert "Cottier et al. 2024" in w and math.isfinite(bill.total_usd)
    # 1e13 tokens: a hundredth of it, about 50 days: no warning
    short = estimate_ledger(_yaml(tmp_path, sc.replace("1.0e15", "1.0e13"), name="s2.yaml"))
    assert short.figures["run_wall_clock_days"] < 100
    assert not any(x.startswith("the training run's wall clock") for x in short.warnings)


def test_a_training_run_longer_than_nine_months_is_warned_as_maybe_inefficient(tmp_path):
    # A new-user trial: a 375-day run was billed without a word. Emberson and Edelman 2025
    # (Epoch AI data insight "Frontier training runs will likely stop getting longer by around
    # 2027", 2025-07-25): "training runs lasting more than 9 months may be inefficient" (outclassed
    # by runs that start later on better hardware and algorithms). By hand, Llama 2 13B on 512
    # H100 at the default MFU 0.4 with 1e14 tokens: 6·N·D ÷ (GPUs · peak · MFU) ÷ 86,400 ≈
    # 446 ideal days, 14.7 months: over 9 months, under 10 years.
    from llmcost.bill.validation import LONG_PROJECT_MONTHS, LONG_RUN_MONTHS
    from llmcost.core.catalog import load_model
    assert LONG_RUN_MONTHS == 9.0
    sc = "model: llama-2-13b\nn_gpus: 512\ntrain_tokens: 1.0e14"
    bill = estimate_ledger(_yaml(tmp_path, sc, name="year.yaml"))
    ideal = 6 * load_model("llama-2-13b").n_params * 1e14 / (512 * 989.4e12 * 0.4) / 86_400
    assert ideal == pytest.approx(446, rel=0.01)
    days = bill.figures["run_wall_clock_days"]
    assert ideal < days < ideal / 0.8 * 1.1
    months = days / (365.25 / 12)
    assert LONG_RUN_MONTHS < months < LONG_PROJECT_MONTHS
    (w,) = [x for x in bill.warnings if x.startswith("the training run's wall clock")]
    assert w.startswith(f"the training run's wall clock is {months:,.1f} months ({days:,.0f} "
                        "days on 512 GPUs, failures included), over 9 "
                        "months: a run that long may be inefficient")
    assert "Emberson and Edelman 2025" in w and "n_gpus" in w
    # 8 times the GPUs: about 56 days, under 9 months: no warning
    wide = estimate_ledger(_yaml(tmp_path, sc.replace("512", "4096"), name="wide.yaml"))
    assert wide.figures["run_wall_clock_days"] < 9 * 365.25 / 12
    assert not any(x.startswith("the training run's wall clock") for x in wide.warnings)


def test_more_tokens_than_the_public_text_there_is_is_warned():
    # Villalobos et al. 2024 (arXiv:2211.04325 v2) estimate the stock of public human text at
    # "on the order of 300 trillion tokens" (90% interval 100T to 1,000T), an effective stock
    # that already counts a few epochs: 1e15 tokens repeats it further (Muennighoff et al. 2023)
    from llmcost.bill.validation import PUBLIC_TEXT_STOCK_TOKENS
    assert PUBLIC_TEXT_STOCK_TOKENS == 300e12
    (w,) = magnitude_warnings({"train_tokens": 1e15})
    assert w.startswith("train_tokens=1e+15 (1,000T tokens) is above the estimated effective "
                        "stock of public human text, about 300T tokens (Villalobos et al. 2024, "
                        "arXiv:2211.04325; 90% interval 100T-1,000T; quality-filtered, and "
                        "already counting the few epochs a run can repeat it)")
    assert "Muennighoff et al. 2023" in w and "times" not in w
    assert magnitude_warnings({"train_tokens": 3.0e14}) == []  # the stock itself: no warning
    assert magnitude_warnings({"train_tokens": 15e12}) == []  # Llama 3's 15T


def test_an_rl_campaign_longer_than_ten_years_is_warned_not_refused(tmp_path):
    # A new-user trial: rl_iterations: 1e9 billed a $125B RL line, 100% of the bill, without a
    # word. The campaign's wall clock on the RL job's GPUs is its GPU-hours ÷ rl_gpus (every
    # GPU of the job busy or waiting through each iteration, rl.scenario_campaign), the runs one
    # after another; over 10 years (LONG_PROJECT_MONTHS, the same reason as a long project) it
    # is warned. By hand from the bill's own GPU-hours H: years = H ÷ 8 ÷ 24 ÷ 365.25.
    rl = "rl_gpus: 8\nrl_rollout_tp: 1\nrl_runs: 1\nrl_iterations: 1.0e9"
    bill = estimate_ledger(_yaml(tmp_path, rl, name="rl.yaml"))
    hours = bill.figures["rl_gpu_hours"]
    years = hours / 8 / 24 / 365.25
    assert years > 10
    (w,) = [x for x in bill.warnings if x.startswith("the RL campaign runs")]
    # (the hours at the published runs' median measured ÷ predicted time, rl.scenario_time_factor)
    assert w == (f"the RL campaign runs {fmt_amount(years, 3)} years on its 8 GPUs ({hours:,.3g} "
                 f"GPU-hours for rl_runs=1 × rl_iterations=1e+09 × {RL_TIME_FACTOR_MEDIAN:g}, the "
                 "published runs' median measured ÷ predicted time), over 10 years: no dated "
                 "GPU-hour price describes it; check rl_iterations and rl_runs")
    assert math.isfinite(bill.total_usd)
    # the same job for 100 iterations: far under 10 years, no warning
    short = estimate_ledger(_yaml(tmp_path, rl.replace("1.0e9", "100"), name="rl2.yaml"))
    assert short.figures["rl_gpu_hours"] / 8 / 24 / 365.25 < 10
    assert not any(x.startswith("the RL campaign runs") for x in short.warnings)

def test_a_checkpoint_interval_shorter_than_one_write_is_warned_not_refused(tmp_path):
    # A new-user trial: ckpt_interval_s: 1e-6 billed a main run of about a million days without
    # a word. By hand for BASE (Llama 2 7B, bf16-adam: 2 + 4 + 4 + 4 = 14 B per parameter,
    # reliability.CHECKPOINT_RECIPES) on 64 H100s, 8 per node (8 nodes at 50 GB/s each,
    # ckpt_node_bytes_per_s) and 10 GB/s of storage: one checkpoint is B = N × 14 B + 64 ranks ×
    # 1 MB of data-loader and RNG state (reliability.LOADER_RNG_BYTES_PER_RANK), written in
    # max(B / 1e10, B / 8 / 5e10) = B / 1e10 s (reliability.checkpoint_write_time_s), 9.44 s for
    # N = 6.74e9. An interval of 5 s is shorter (warned); 20 s is not.
    from llmcost import load_model
    n = load_model("llama-2-7b").n_params
    w = (n * 14 + 64 * 1e6) / 1e10
    assert w == pytest.approx(9.44, abs=0.01)
    base = "ckpt_storage_bytes_per_s: 1.0e10\n"
    bill = estimate_ledger(_yaml(tmp_path, base + "ckpt_interval_s: 5", name="c.yaml"))
    said = [x for x in bill.warnings if x.startswith("ckpt_interval_s=5 ")]
    assert len(said) == 1 and f"the {w:,.3g} s one checkpoint takes to write" in said[0]
    assert "more time writing checkpoints than training" in said[0]
    assert math.isfinite(bill.total_usd)
    bill = estimate_ledger(_yaml(tmp_path, base + "ckpt_interval_s: 20", name="d.yaml"))
    assert not any(x.startswith("ckpt_interval_s=20 is shorter") for x in bill.warnings)
    # but 20 s of training per 9.44 s write still pays far more than the optimum: said so
    # (validation.INTERVAL_COST_WARNING)
    assert any(x.startswith("ckpt_interval_s=20 pays ") for x in bill.warnings)
    # the trial's 1e-6 s: warned, with the optimum the scenario gets from null
    bill = estimate_ledger(_yaml(tmp_path, "ckpt_interval_s: 1.0e-6", name="e.yaml"))
    assert any(x.startswith("ckpt_interval_s=1e-06 is shorter than") and
               "ckpt_interval_s: null gives the optimum" in x for x in bill.warnings)


def test_a_price_above_every_catalogue_price_of_its_accelerator_is_warned_not_refused(tmp_path):
    # A new-user trial: price_usd_per_gpu_hour: 399 (cents for $3.99) billed an 8B run at
    # $31.9M without a word. The dearest H100 SXM row of data/prices.csv is $12.29 per GPU-hour
    # (AWS p5.48xlarge, 8 GPUs, $98.32/h at its 2023 launch: 98.32 / 8 = 12.29; Azure lists the
    # same in 2026). An 8-GPU node's price given as the GPU's, 8 × $3.99 = $31.92 (Lambda's
    # H100 node), is above it and warned; $12.29 itself and prices below are not; an
    # accelerator without catalogue prices (MI325X) says nothing; the bill is still priced.
    assert 98.32 / 8 == pytest.approx(12.29)
    w = magnitude_warnings({"accelerator": "H100-SXM", "price_usd_per_gpu_hour": 31.92})
    assert len(w) == 1
    assert w[0].startswith("price_usd_per_gpu_hour=31.92 is above every price data/prices.csv "
                           "lists for H100-SXM (")
    assert "the dearest $12.29" in w[0] and "check the unit" in w[0]
    assert magnitude_warnings({"accelerator": "H100-SXM", "price_usd_per_gpu_hour": 12.29}) == []
    assert magnitude_warnings({"accelerator": "H100-SXM", "price_usd_per_gpu_hour": 2.0}) == []
    assert magnitude_warnings({"accelerator": "MI325X", "price_usd_per_gpu_hour": 100.0}) == []
    # above the dearest but under 8x the cheapest: a plausible quote, not a unit slip (a second
    # trial: MI300X at $3.00, where data/prices.csv lists DigitalOcean at $2.59, and at $1.99
    # in its superseded 2026-05 row; 8 x 1.99 = 15.92); at 8x the cheapest, an 8-GPU node's
    # price at that provider's rate, it is warned
    mi = float(list_prices("MI300X")["price_usd_per_gpu_hour"].astype(float).min())
    assert magnitude_warnings({"accelerator": "MI300X", "price_usd_per_gpu_hour": 3.0}) == []
    assert len(magnitude_warnings({"accelerator": "MI300X",
                                   "price_usd_per_gpu_hour": 8 * mi})) == 1
    h100_cheapest = float(list_prices("H100-SXM")["price_usd_per_gpu_hour"].astype(float).min())
    assert 12.29 < 13.0 < 8 * h100_cheapest
    assert magnitude_warnings({"accelerator": "H100-SXM", "price_usd_per_gpu_hour": 13.0}) == []
    assert magnitude_warnings({"accelerator": "H100-SXM", "price_usd_per_gpu_hour": None}) == []
    # a range: its point (the mode) is judged
    cents = parse_range("price_usd_per_gpu_hour", {"low": 300, "mode": 399, "high": 500})
    w = magnitude_warnings({"accelerator": "H100-SXM", "price_usd_per_gpu_hour": cents})
    assert len(w) == 1 and w[0].startswith("price_usd_per_gpu_hour=399 is above")
    bill = estimate_ledger(_yaml(tmp_path, "price_usd_per_gpu_hour: 399", name="c.yaml"))
    assert any(x.startswith("price_usd_per_gpu_hour=399 is above every price") for x in
               bill.warnings)
    assert math.isfinite(bill.total_usd)


def test_money_keys_an_order_of_magnitude_from_the_catalogue_are_warned_not_refused(tmp_path):
    # A new-user trial: ledger_owned_usd_per_gpu: 15 (an H100's purchase price typed in
    # thousands) was accepted without a word. The catalogue's purchase price of an H100 SXM is
    # $27,500 (data/hardware_price_series.csv: Raymond James via Barron's, 2023-08,
    # $25,000-$30,000); a tenth of it is $2,750, ten times it $275,000, and an 8-GPU server at
    # Epoch's 1.64× server multiplier is 8 × 1.64 × 27,500 = $360,800, above that: warned too.
    assert 8 * 1.64 * 27_500 == pytest.approx(360_800)
    h100 = {"accelerator": "H100-SXM", "pricing": "owned"}  # where the bill reads the key
    w = magnitude_warnings({**h100, "ledger_owned_usd_per_gpu": 15})
    assert w == ["ledger_owned_usd_per_gpu=15 is below 1/10 of the purchase price "
                 "data/hardware_price_series.csv lists for H100-SXM ($27,500, Raymond James "
                 "estimate via Barron's (2023-08)): the key is the purchase price of one "
                 "accelerator in USD; check the unit (thousands of dollars, or a price per "
                 "GPU-hour)"]
    w = magnitude_warnings({**h100, "ledger_owned_usd_per_gpu": 360_800})
    assert len(w) == 1 and w[0].startswith("ledger_owned_usd_per_gpu=360800 is above 10 times")
    assert "a whole server's or cluster's price" in w[0]
    for fine in (2_750, 27_500, 275_000, None):  # inside [a tenth, ten times]: nothing
        assert magnitude_warnings({**h100, "ledger_owned_usd_per_gpu": fine}) == []
    # the A100 40 GB's row is listed as A100-SXM4-40GB ($15,000, The Next Platform); an
    # accelerator without a purchase row (B200) has no reference and is not judged
    w = magnitude_warnings({"accelerator": "A100-40GB", "ledger_owned_usd_per_gpu": 1_000,
                            "pricing": "owned"})
    assert len(w) == 1 and "lists for A100-40GB ($15,000, The Next Platform" in w[0]
    assert magnitude_warnings({"accelerator": "B200", "ledger_owned_usd_per_gpu": 15,
                               "pricing": "owned"}) == []
    # electricity: US EIA's industrial average of 2025 is 8.61 cents per kWh (the mean of its
    # twelve monthly prices, data/ledger_defaults.csv); 8.61 typed as dollars is 100× it
    w = magnitude_warnings({**h100, "ledger_electricity_usd_per_kwh": 8.61})
    assert len(w) == 1 and w[0].startswith("ledger_electricity_usd_per_kwh=8.61 is above 10 "
                                           "times the US industrial average")
    assert "$0.0861" in w[0] and "cents per kWh" in w[0]
    assert magnitude_warnings({**h100, "ledger_electricity_usd_per_kwh": 0.15}) == []
    # staff: Epoch's training-cost-trends distributions re-drawn, salary × overhead + equity,
    # $400k loaded (90% CI $262k-$770k, data/ledger_defaults.csv); 330 typed in thousands is
    # below $26,200
    people = [{"role": "a", "fte": 1, "usd_per_year": 330},
              {"role": "b", "fte": 1, "usd_per_year": 250_000}, {"role": "c", "fte": 1}]
    w = magnitude_warnings({**h100, "ledger_people": people})
    # (and role c, without a pay of its own, is told the default it takes)
    assert [x[:41] for x in w if x.startswith("ledger_people: ")] == [
        "ledger_people: c without usd_per_year is "]
    w = [x for x in w if not x.startswith("ledger_people: ")]
    assert len(w) == 1 and w[0].startswith("ledger_people[0].usd_per_year=330 is below 1/10 "
                                           "of the $262,000-$770,000")
    # estimate prints it under the owned bill, which is still priced
    bill = estimate_ledger(_yaml(tmp_path, "pricing: owned\nprice_usd_per_gpu_hour: null\n"
                                           "ledger_owned_usd_per_gpu: 15"))
    assert any(x.startswith("ledger_owned_usd_per_gpu=15 is below 1/10") for x in bill.warnings)
    assert math.isfinite(bill.total_usd)


def test_people_without_months_and_no_project_length_are_warned(tmp_path):
    # A new-user trial: ledger_people [{role: research, fte: 10}] without months priced ten
    # researchers for the run's wall clock (a few weeks) as "modelled". By hand: 1e12 tokens
    # of llama-3.1-8b at 6·N·D on 256 H100s at 40% of 989 TFLOP/s is about 6.2 days, 0.20 months;
    # with the default exploration, 1.19 times the run's GPU-hours before it (Cottier et al.
    # 2024), the compute schedule of ledger._project_months' convention is about 2.19 × that,
    # 0.45 months; the warning says so, a project length or a role's months silences it.
    from llmcost.present.glance import caveat_line
    base = ("model: llama-3.1-8b\naccelerator: H100-SXM\nn_gpus: 256\ntrain_tokens: 1.0e12\n"
            "seq_len: 4096\nmfu: 0.4\nprice_usd_per_gpu_hour: 3.0\n")
    bill = estimate_ledger(_yaml(tmp_path, base + "ledger_people: [{role: research, fte: 10}]",
                                 name="p.yaml"))
    w = [x for x in bill.warnings if x.startswith("ledger_people:") and "without months" in x]
    assert len(w) == 1 and "research without months" in w[0]
    months = float(re.search(r"priced for ([\d.]+) months", w[0]).group(1))
    assert months == pytest.approx(bill.figures["project_months"], abs=0.005)
    assert 0.35 < months < 0.55
    assert "the compute schedule (exploration, the final run and post-training) only" in w[0]
    assert caveat_line(w[0]).startswith("staff are priced for ")
    assert caveat_line(w[0]).endswith("the compute schedule alone: give the project's length")
    for extra in ("ledger_project_months: 12\nledger_people: [{role: research, fte: 10}]",
                  "ledger_people: [{role: research, fte: 10, months: 12}]"):
        b = estimate_ledger(_yaml(tmp_path, base + extra, name="q.yaml"))
        assert not any(x.startswith("ledger_people:") and "without months" in x
                       for x in b.warnings), extra


def test_asynchronous_checkpoints_that_keep_the_storage_busy_are_warned(tmp_path):
    # A new-user trial: with ckpt_async the bill checkpointed every 52 s, each write 52 s long:
    # the storage wrote checkpoints all the time (notebook 07 said so; the bill did not). By
    # hand for BASE (as above): B = N × 14 B + 64 MB, w = B / 1e10 = 9.44 s at 10 GB/s. Every
    # 10 s of compute (plus the snapshot δ), the duty u = w / (τ + δ) is above one half:
    # warned, with the bytes written a day, B × 86,400 / (τ + δ); every hour, u < 1%: not.
    from llmcost import load_model
    from llmcost.core.units import fmt_bytes
    n = load_model("llama-2-7b").n_params
    size, w = n * 14 + 64 * 1e6, (n * 14 + 64 * 1e6) / 1e10
    base = "ckpt_storage_bytes_per_s: 1.0e10\nckpt_async: true\n"
    bill = estimate_ledger(_yaml(tmp_path, base + "ckpt_interval_s: 10", name="a.yaml"))
    (said,) = [x for x in bill.warnings if x.startswith("ckpt_async: ")]
    duty = float(re.search(r"writes checkpoints (\d+)% of the time", said).group(1)) / 100
    assert 0.5 < duty <= w / 10 + 0.005  # δ > 0 only lowers it
    # bytes a day: B × 86,400 / (τ + δ), at most B × 8,640 (δ ≥ 0), and within 5% of it (δ is a
    # device-to-host copy, a fraction of a second here)
    daily, unit = re.search(r"\(([\d.]+) ([kMGTP]?B) a day\)", said).groups()
    top, top_unit = fmt_bytes(size * 86400 / 10).split()
    assert unit == top_unit and 0.95 < float(daily) / float(top) <= 1.0
    assert "ckpt_interval_s" in said and "notebook 07" in said
    quiet = estimate_ledger(_yaml(tmp_path, base + "ckpt_interval_s: 3600", name="b.yaml"))
    assert not any(x.startswith("ckpt_async: ") for x in quiet.warnings)
    sync = estimate_ledger(_yaml(tmp_path, "ckpt_storage_bytes_per_s: 1.0e10\n"
                                 "ckpt_interval_s: 10", name="c.yaml"))
    assert not any(x.startswith("ckpt_async: ") for x in sync.warnings)


def test_a_low_goodput_is_warned_with_its_interruption_rate(tmp_path):
    # A trial: 2,048 H100 on spot paid 2.41× the ideal GPU-hours (goodput 41%, a pre-emption
    # every 38 minutes) and nothing said so. The warning gives 1 ÷ goodput and the job's MTBF
    # from the bill's own figures; BASE (64 GPUs on demand) keeps a high goodput and says
    # nothing. By hand the MTBF of 64 GPUs at a failure rate of 50 per GPU-year is
    # 8,766 h ÷ (64 × 50) = 2.74 h.
    quiet = estimate_ledger(_yaml(tmp_path, "", name="q.yaml"))
    assert quiet.figures["goodput"] > 0.9
    assert not any(x.startswith("goodput ") for x in quiet.warnings)
    bill = estimate_ledger(_yaml(tmp_path, "fail_rate_per_gpu_year: 50\nckpt_restart_s: 3600",
                                 name="f.yaml"))
    g = bill.figures["goodput"]
    assert g < 0.75
    assert bill.figures["job_mtbf_s"] == pytest.approx(365.25 * 86400 / (64 * 50), rel=1e-9)
    (said,) = [x for x in bill.warnings if x.startswith("goodput ")]
    assert said.startswith(f"goodput {g:.0%}: the pre-training run pays {1 / g:.2f}× its ideal")
    assert "interrupted by a failure every 2.74 h on 64 GPUs" in said and "spot" not in said


def test_a_low_goodput_from_checkpoint_writes_says_the_stall(tmp_path):
    # A trial: ckpt_interval_s: 1 halved the goodput by its writes, and the warning named only
    # "interrupted every 33 days". The stall's share of the wall clock is s / (i + s) with the
    # bill's own plan (stall s per write, interval i), and the reader's line keeps it.
    bill = estimate_ledger(_yaml(tmp_path, "ckpt_interval_s: 1", name="c.yaml"))
    plan = bill.figures["ckpt_main_plan"]
    share = plan["stall_s"] / (plan["interval_s"] + plan["stall_s"])
    assert bill.figures["goodput"] < 0.75 and share > 0.3
    (said,) = [x for x in bill.warnings if x.startswith("goodput ")]
    assert ("interrupted by a failure every " in said and
            f", and stalled {share:.0%} of its time by checkpoints" in said)
    assert f", and stalled {share:.0%} of its time by checkpoints, the run pays" in \
        glance.caveat_line(said)


def test_a_low_goodput_without_checkpoints_counts_the_planned_stops(tmp_path):
    # Without checkpoints a planned stop restarts the run as a failure does
    # (reliability.interruption_mtbf_s), so the warning's interval is the mean time between
    # both: by hand 1 / (64 × 0.173 / 365.25 + 0.87) days = 1 / 0.900313 = 1.11072 days
    # = 26.66 h (0.87 = Llama 3's 47 planned stops in 54 days, arXiv:2407.21783 §3.3.4),
    # not the failures' MTBF alone, 8,766 h ÷ (64 × 0.173) = 791.7 h.
    bill = estimate_ledger(_yaml(tmp_path, "ledger_resumable: false", name="n.yaml"))
    assert bill.figures["goodput"] < 0.75
    (said,) = [x for x in bill.warnings if x.startswith("goodput ")]
    assert "interrupted every 26.7 h on 64 GPUs (failures and planned stops);" in said
    assert glance.caveat_line(said).startswith(
        f"goodput {bill.figures['goodput']:.0%}: interrupted every 26.7 h on 64 GPUs, the run")


def test_the_storage_duty_warning_reads_the_bills_own_plan_on_spot(tmp_path):
    # A review: the warning rebuilt the checkpoint plan from fail_rate_per_gpu_year alone, while
    # on spot the bill adds pre-emptions (ledger.failure_model: rate + pre-emptions per
    # node-day × 365.25 ÷ 8), so its plan (short MTBF, short interval, storage busy all the time)
    # went unsaid. It now reads the bill's own plan: the duty it states is the bill's.
    # At 1 GB/s a checkpoint of BASE takes 94.4 s to write (B / 1e9, as above): on demand the
    # job fails every 33 days and the interval is long; on spot it is pre-empted every 20 h and
    # the interval shrinks towards the write itself.
    ckpt = "ckpt_async: true\nckpt_storage_bytes_per_s: 1.0e9\nprice_usd_per_gpu_hour: 2.0"
    # a user's pre-emption rate: each 8-GPU node once a week (the workbook has no default)
    spot = estimate_ledger(_yaml(tmp_path, "pricing: spot\nledger_spot_preemptions_per_node_day: "
                                 "0.142857\nledger_spot_restart_s: 1800\n" + ckpt,
                                 name="spot.yaml"))
    calm = estimate_ledger(_yaml(tmp_path, ckpt, name="calm.yaml"))
    for bill, warned in ((spot, True), (calm, False)):
        plan = bill.figures["ckpt_main_plan"]
        assert plan["write_s"] == pytest.approx(94.4, abs=0.1)
        assert plan["storage_duty"] == pytest.approx(
            plan["write_s"] / (plan["interval_s"] + plan["stall_s"]), rel=1e-9)
        said = [x for x in bill.warnings if x.startswith("ckpt_async: ")]
        assert bool(said) == warned == (plan["storage_duty"] > 0.5), plan
    assert f"checkpoints {spot.figures['ckpt_main_plan']['storage_duty']:.0%} of the time" in \
        [x for x in spot.warnings if x.startswith("ckpt_async: ")][0]


def test_partial_rollouts_are_said_to_be_priced_at_the_best_gain_measured():
    # the model removes the tail of response lengths up to the best gain APRIL measured, +44%
    # rollout throughput (+22.5% on average; arXiv:2509.18521, abstract; rl.generation_time): a
    # bill with partial rollouts says its RL line is optimistic for a set-up that gains less
    class Bill:
        figures = {"rl_gpu_hours": 4340.0}
    sc = {"rl_partial_rollouts": True}
    (w,) = [x for x in magnitude_warnings(sc, Bill()) if x.startswith("rl_partial_rollouts")]
    assert "removed up to +44% rollout throughput (APRIL measured +22.5% on average, +44% at " \
        "most, arXiv:2509.18521)" in w
    assert not [x for x in magnitude_warnings({"rl_partial_rollouts": False}, Bill())
                if x.startswith("rl_partial_rollouts")]


def test_owned_keys_a_given_price_ignores_are_warned_of():
    # pricing: owned with a price: the bill bills that price for the GPU-hour, so the purchase
    # price and the electricity price change nothing (a trial's scenario set all three); the
    # bill's total is the same at $30,000 or $60,000 per GPU and at $0.08 or $0.50 per kWh
    sc = {"pricing": "owned", "price_usd_per_gpu_hour": 1.0,
          "ledger_owned_usd_per_gpu": 30_000, "ledger_electricity_usd_per_kwh": 0.08}
    totals = {build_ledger({**sc, "ledger_owned_usd_per_gpu": own,
                            "ledger_electricity_usd_per_kwh": kwh}).total_usd
              for own in (30_000, 60_000) for kwh in (0.08, 0.5)}
    assert len(totals) == 1
    (w,) = [w for w in magnitude_warnings(sc) if "ignored" in w]
    assert w.startswith("ledger_owned_usd_per_gpu, ledger_electricity_usd_per_kwh are ignored")
    assert "price_usd_per_gpu_hour=1 " in w
    # without the price the keys are read (amortised, electricity billed): no warning
    assert not [w for w in magnitude_warnings({**sc, "price_usd_per_gpu_hour": None})
                if "ignored" in w]
    assert not [w for w in magnitude_warnings({**sc, "pricing": "on_demand"}) if "ignored" in w]


def test_pricing_keys_of_another_mode_are_said_to_change_no_line():
    # A finance trial set spot pre-emptions and an electricity price on a reserved bill and
    # read the same total, nothing said. By the bill: its total is the same whatever those keys
    # (a rented hour carries its energy; pre-emptions are priced on spot only), and the warning
    # names each key and where they are read instead
    sc = {"pricing": "reserved", "price_usd_per_gpu_hour": 2.0}
    keys = {"ledger_spot_preemptions_per_node_day": 0.5, "ledger_spot_restart_s": 900,
            "ledger_electricity_usd_per_kwh": 0.1, "ledger_owned_usd_per_gpu": 30_000}
    assert len({build_ledger({**sc, **k}).total_usd
                for k in ({}, keys, {**keys, "ledger_spot_preemptions_per_node_day": 4})}) == 1
    (w,) = [w for w in magnitude_warnings({**sc, **keys}) if "no line of this bill" in w]
    assert w.startswith("ledger_spot_preemptions_per_node_day, ledger_spot_restart_s, "
                        "ledger_owned_usd_per_gpu, ledger_electricity_usd_per_kwh change no "
                        "line of this bill, which is priced reserved")
    assert "spot only" in w and "owned lever" in w
    # each key where its mode reads it: nothing said
    assert not [w for w in magnitude_warnings({"pricing": "spot", "price_usd_per_gpu_hour": 2.0,
                                               "ledger_spot_preemptions_per_node_day": 0.5})
                if "no line of this bill" in w]
    assert not [w for w in magnitude_warnings({"pricing": "owned", **{
        k: v for k, v in keys.items() if not k.startswith("ledger_spot")}})
        if "no line of this bill" in w]


@pytest.mark.parametrize("extra, said", [
    ("ledger_eval_requests: 1.0e6\nserve_tp: 3", "benchmark line (serve_ keys): serve_tp=3 must "
     "divide n_heads=32 of llama-2-7b"),
    ("ledger_synthetic_tokens: 1.0e9\nserve_tp: 3", "synthetic data line (ledger_synthetic_model, "
     "serve_ keys): serve_tp=3 must divide n_heads=32"),
    ("ledger_eval_requests: 1.0e6\nserve_max_tpot_s: 1.0e-6\nserve_batch: 64",
     "serve_batch=64 misses serve_max_tpot_s=1e-06"),
    ("ledger_eval_requests: 1.0e6\nserve_max_tpot_s: 1.0e-6", "serve_max_tpot_s=1e-06: even one "
     "sequence takes"),
    ("serve_max_tpot_s: 1.0e-6\nserve_batch: 64", "serving set-up (serve_ and inference_ keys)"),
], ids=["eval-tp", "synthetic-tp", "eval-batch-tpot", "eval-tpot", "setup-tpot"])
def test_served_line_refusals_name_the_serve_keys(tmp_path, extra, said):
    # A served line's refusal spoke of the serving layer's arguments ("tp=3 must divide n_heads",
    # "batch=64 misses max_tpot_s=1e-06"): the scenario's keys are serve_tp, serve_batch and
    # serve_max_tpot_s (Llama 2 7B's 32 heads: 3 divides none of them; 1 µs per output token is
    # under the roofline's floor at any TP).
    with pytest.raises(ScenarioError) as e:
        estimate_ledger(_yaml(tmp_path, extra + "\nprice_usd_per_gpu_hour: 2.5"))
    msg = str(e.value)
    assert said in msg
    assert not re.search(r"(?<![\w.])(tp|batch|max_tpot_s|weight_dtype)=", msg), msg


def test_money_above_world_gdp_and_staff_above_the_largest_employer_are_warned(tmp_path):
    # A trial's ledger_data_licensing_usd: 1e29 and a staff record of 1e20 FTE were priced
    # without a word. World GDP was about $110 trillion in 2024 (IMF World Economic Outlook,
    # October 2024); the largest private employer, Walmart, had about 2.1 million associates
    # (its 10-K for fiscal 2024). Any money key above the first, any record above the second,
    # is warned; $100 trillion and 2 million are not (the bounds themselves, not a guess).
    from llmcost.bill.validation import LARGEST_EMPLOYER_FTE, WORLD_GDP_USD
    from llmcost.present.glance import caveat_line
    assert WORLD_GDP_USD == 110e12 and LARGEST_EMPLOYER_FTE == 2.1e6
    extra = ("ledger_data_licensing_usd: 1.0e29\nledger_project_months: 12\nledger_people:\n"
             "  - {role: researcher, fte: 1.0e20}")
    bill = estimate_ledger(_yaml(tmp_path, extra))
    said = [w for w in bill.warnings if "world GDP" in w or "largest private employer" in w]
    assert said == [
        "ledger_data_licensing_usd=1e+29 is above world GDP, about $110 trillion a year (IMF "
        "World Economic Outlook, October 2024, for 2024): no project spends that; check the "
        "exponent and the unit",
        "ledger_people[0].fte=1e+20 is more people than the world's largest private employer "
        "has (2.1 million, Walmart 10-K for fiscal 2024): check the exponent (fte is full-time "
        "people)"]
    assert [caveat_line(w) for w in said] == [
        "ledger_data_licensing_usd=1e+29 is more than the world's GDP ($110 trillion a year): "
        "check the exponent and the unit",
        "staff record 0 counts 1e+20 full-time people, more than the world's largest employer: "
        "check the exponent"]
    # every money key, and a person's salary, by the same bound; the bounds themselves pass
    assert len(magnitude_warnings({"ledger_budget_usd": 2e14})) == 1
    assert len(magnitude_warnings({"ledger_operations_usd_per_month": 1.2e14})) == 1
    assert any("world GDP" in w for w in magnitude_warnings(
        {"ledger_people": [{"role": "r", "fte": 1, "usd_per_year": 1e15}]}))
    assert [w for w in magnitude_warnings({"ledger_data_licensing_usd": 1e14,
                                           "ledger_people": [{"role": "r", "fte": 2e6}]})
            if "without usd_per_year" not in w] == []


def test_the_phases_tokens_count_toward_the_public_text_stock():
    # A trial: 250T tokens and a pre-training phase of 100T (350T in all, above the ~300T
    # effective stock of Villalobos et al. 2024) were said nothing, while the run's length
    # counted the phase. Below the stock in all (250T + 40T), nothing.
    (w,) = [x for x in magnitude_warnings({"train_tokens": 2.5e14, "phases": [
        {"name": "long", "tokens": 1.0e14, "seq_len": 32768}]}) if "public human text" in x]
    assert w.startswith("train_tokens=2.5e+14 and the phases' 1e+14 tokens (350T tokens in all) "
                        "are above the estimated effective stock of public human text")
    assert not [x for x in magnitude_warnings({"train_tokens": 2.5e14, "phases": [
        {"name": "long", "tokens": 4.0e13, "seq_len": 32768}]}) if "public human text" in x]


def test_a_bill_above_world_gdp_is_warned_even_when_no_input_is():
    # A trial: 1e12 annotation samples at $200 each bill $200T, above world GDP (~$110T in
    # 2024, IMF WEO October 2024), with no input above it: the bill's total is checked too
    from llmcost.bill.ledger import build_ledger
    from llmcost.bill.validation import WORLD_GDP_USD, _world_bill_warning
    b = build_ledger({"model": "llama-2-7b", "accelerator": "H100-SXM", "n_gpus": 64,
                      "train_tokens": 1e11, "mfu": 0.4, "ledger_annotation_samples": 1e12,
                      "ledger_annotation_usd_per_sample": 200.0})
    assert b.total_usd > 1e12 * 200 > WORLD_GDP_USD
    (w,) = _world_bill_warning(b)
    assert w.startswith("the bill, $2e+14, is above world GDP, about $110 trillion a year")
    from llmcost.present.glance import caveat_line
    assert caveat_line(w) == ("the bill, $2e+14, is above world GDP: check the inputs' exponents "
                              "and units")
    assert _world_bill_warning(build_ledger({"model": "llama-2-7b", "accelerator": "H100-SXM",
                                             "n_gpus": 64, "train_tokens": 1e11,
                                             "mfu": 0.4})) == []


def test_ledger_rl_false_leaves_the_rl_set_up_to_notebook_05(tmp_path):
    # DeepSeek-V3 on 1,024 H100 (671B parameters: 1,342 GB of BF16 weights, 168 GB a GPU over one
    # 8-GPU node, more than an H100's 80 GB), its rl_ keys kept from the default scenario as a
    # team would, and `ledger_rl: false`: the bill bills no RL campaign, so the estimate answers
    # (a trial found it refused on the RL set-up). A bill line that serves the model (synthetic
    # data from it) is refused by the bill itself.
    keys = ("model: deepseek-v3\naccelerator: H100-SXM\nn_gpus: 1024\ntrain_tokens: 14.8e12\n"
            "dtype: fp8\nmfu: 0.2\nprice_usd_per_gpu_hour: 2.0\nrl_gpus: 256\n"
            "rl_rollout_tp: 8\nrl_iterations: 1000\nledger_rl: false\n")
    path = tmp_path / "ds.yaml"
    path.write_text(keys)
    bill = estimate_ledger(path)
    assert bill.line("post.rl").usd == 0 and bill.total_usd > 0
    path.write_text(keys + "ledger_synthetic_tokens: 1.0e10\nledger_synthetic_model: deepseek-v3\n"
                    "serve_weight_dtype: bf16\n")
    with pytest.raises(ScenarioError, match=r"synthetic data line.*serve_tp up to 8"):
        estimate_ledger(path)


def test_a_report_says_notebook_05_prices_an_rl_set_up_the_bill_does_not(tmp_path):
    # rl_rollout_tp 3 divides neither the 64 rollout GPUs nor Llama-2-7B's 32 heads: under
    # `ledger_rl: false` the bill bills no campaign, so the estimate answers; a report that runs
    # notebook 05 refuses, saying that leaving 05 out reports without it, and one of every other
    # page runs (a review: 06 ran the RL check too, so the advice did not work)
    path = _yaml(tmp_path, "rl_rollout_tp: 3\nledger_rl: false")
    bill = estimate_ledger(path)
    with pytest.raises(ScenarioError, match=r"rl_rollout_tp=3 must divide.*`--notebooks` "
                                            r"without 05 reports without it"):
        plan_report(path, ["05"])
    # every other page, 06 (which runs the serving set-up, not the RL one) among them
    others = ["00", "01", "02", "03", "04", "04b", "06", "07", "08", "09", "10"]
    assert plan_report(path, others).bill.total_usd == pytest.approx(bill.total_usd)


def test_rollout_replicas_without_a_sequence_are_said(tmp_path):
    # A trial: rl_gpus 4,096 for an RL batch of 32 prompts × 16 samples = 512 sequences at
    # rollout TP 4: 4,096 / 4 = 1,024 replicas, 512 of them without a sequence (by hand), their
    # GPUs billed as generation. 2,048 GPUs (512 replicas) is the edge, not said.
    rl = ("rl_prompts_per_step: 32\nrl_samples_per_prompt: 16\nrl_rollout_tp: 4\n"
          "rl_iterations: 10\nrl_runs: 1\n")
    bill = estimate_ledger(_yaml(tmp_path, rl + "rl_gpus: 4096\nn_gpus: 4096"))
    said = [w for w in bill.warnings if "rollout replicas" in w]
    assert len(said) == 1 and said[0].startswith(
        "rl_gpus=4,096 at rl_rollout_tp=4 is 1,024 rollout replicas for 512 sequences")
    assert "512 of them generate nothing" in said[0]
    bill = estimate_ledger(_yaml(tmp_path, rl + "rl_gpus: 2048\nn_gpus: 4096"))
    assert not [w for w in bill.warnings if "rollout replicas" in w]


@pytest.mark.parametrize("extra", ["", "rl_iterations: 10\nrl_runs: 1\n"])
def test_folding_a_dense_model_is_refused_by_every_entry_point_alike(tmp_path, extra):
    # A review: once the experts' layout alone stopped building a plan, `etp: 1` on a dense
    # model (Llama-2-7B has no experts) passed the reports of 00 and 05 and validate_parameters,
    # while estimate refused it, and with an RL campaign in other words. One rule, one message.
    path = _yaml(tmp_path, "global_batch_tokens: 4194304\netp: 1\n" + extra)
    with pytest.raises(ScenarioError) as by_estimate:
        estimate_ledger(path)
    msg = str(by_estimate.value)
    assert "etp=1: llama-2-7b is dense" in msg and "etp 0 in a scenario" in msg
    for selection in (["00"], ["05"], None):
        with pytest.raises(ScenarioError) as by_report:
            plan_report(path, selection)
        assert str(by_report.value) == msg
    with pytest.raises(ScenarioError, match="is dense"):
        validate_parameters(model="llama-2-7b", etp=1)


def test_a_refused_set_up_names_the_key_the_scenario_wrote_in_its_way(tmp_path):
    # A trial copied the default scenario's serve_weight_dtype: bf16 for DeepSeek-V3 on H800:
    # 1,342 GB of BF16 weights over one 8-GPU node does not fit (168 GB a GPU), FP8 neither
    # (84 GB over 77.3 usable), INT4 does (43 GB): the refusal says that left out, the key is
    # chosen (int4); an RL campaign the scenario bills says `ledger_rl: false` bills none
    keys = ("model: deepseek-v3\naccelerator: H800\nn_gpus: 2048\ntrain_tokens: 14.8e12\n"
            "dtype: fp8\nmfu: 0.2\nprice_usd_per_gpu_hour: 2.0\nserve_weight_dtype: bf16\n")
    path = tmp_path / "ds.yaml"
    path.write_text(keys)
    with pytest.raises(ScenarioError, match=r"serving set-up .*the scenario writes "
                                            r"serve_weight_dtype: bf16: left out, the report "
                                            r"takes the widest precision that fits, int4$"):
        estimate_ledger(path)
    path.write_text(keys.replace("serve_weight_dtype: bf16\n", "") + "rl_iterations: 100\n"
                    "rl_rollout_tp: 3\n")
    with pytest.raises(ScenarioError, match=r"rl_rollout_tp=3.*`ledger_rl: false` bills no RL "
                                            r"campaign$"):
        estimate_ledger(path)
    path.write_text(keys.replace("serve_weight_dtype: bf16\n", ""))
    assert estimate_ledger(path).total_usd > 0
    # a review: a written precision that fits is not blamed for another key's refusal
    small = _yaml(tmp_path, "serve_weight_dtype: fp8\nrl_rollout_tp: 3\nrl_iterations: 10\n"
                            "rl_runs: 1", name="small.yaml")
    with pytest.raises(ScenarioError, match="rl_rollout_tp=3") as e:
        estimate_ledger(small)
    assert "serve_weight_dtype: fp8: left out" not in str(e.value)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")   # numpy's overflow, before the refusal
def test_an_input_beyond_a_float_is_refused_by_name_not_a_nan_bill():
    # A trial: ckpt_retention_months (or ledger_project_months, ledger_dataset_retention_months)
    # at 1e308 gave an infinite storage line and a NaN total without a word: refused, naming the
    # lines and the input
    with pytest.raises(ScenarioError, match=r"storage.datasets.* not finite .*check "
                                            r"ledger_project_months=1e\+308"):
        build_ledger({"ledger_project_months": 1e308})
    # the retention keys are refused before, by their magnitude rule (a century, in months)
    for key in ("ckpt_retention_months", "ledger_dataset_retention_months"):
        with pytest.raises(ScenarioError, match=rf"{key}=1e\+308 is above 1,200"):
            build_ledger({key: 1e308})
    assert math.isfinite(build_ledger({"ckpt_retention_months": 12}).total_usd)


def test_a_price_ten_times_below_every_listed_one_is_warned(tmp_path):
    # A trial: price_usd_per_gpu_hour 0.01 on A100-80GB passed without a word, where the
    # catalogue's cheapest row is CoreWeave's spot $1.21 (data/prices.csv): 121x below, past
    # the money keys' 10x rule (MONEY_MAGNITUDE_FACTOR); $0.20 (6x below) is a plausible quote.
    from llmcost.bill.validation import MONEY_MAGNITUDE_FACTOR
    cheapest = float(list_prices("A100-80GB")["price_usd_per_gpu_hour"].astype(float).min())
    assert cheapest == pytest.approx(1.206, abs=1e-3) and MONEY_MAGNITUDE_FACTOR == 10
    sc = "model: llama-2-13b\naccelerator: A100-80GB\nn_gpus: 128\nmfu: 0.45\n"
    bill = estimate_ledger(_yaml(tmp_path, sc + "price_usd_per_gpu_hour: 0.01\n"))
    (w,) = [x for x in bill.warnings if "or more below every price" in x]
    assert w.startswith("price_usd_per_gpu_hour=0.01 is 10× or more below every price "
                        "data/prices.csv lists for A100-80GB") and "the cheapest $1.21" in w
    assert glance.caveat_line(w).startswith("the GPU-hour price, $0.01, is far below every "
                                            "listed price for A100-80GB (the cheapest $1.21)")
    bill = estimate_ledger(_yaml(tmp_path, sc + "price_usd_per_gpu_hour: 0.2\n", name="b.yaml"))
    assert not any("or more below every price" in x for x in bill.warnings)


def test_a_run_too_short_for_kaplans_fits_says_pages_02_and_06_do_not_apply(tmp_path):
    # A trial's 100M-token warm-up of Llama 3.1 8B: notebook 02 read "target loss 12.515 nats"
    # and 06 "6,165.7% more compute than optimal". Kaplan et al. 2020 fit losses on a
    # 50,257-token BPE (§2): a uniform guess scores ln 50,257 = 10.83 nats, above which a
    # loss on that scale means nothing. 2T tokens of the same model: no warning.
    import math
    from llmcost.bill.validation import KAPLAN_VOCAB
    assert math.log(KAPLAN_VOCAB) == pytest.approx(10.825, abs=1e-3)
    sc = ("model: llama-3.1-8b\nn_gpus: 8\nmfu: 0.38\nprice_usd_per_gpu_hour: 2.5\n"
          "seq_len: 8192\nglobal_batch_tokens: 1048576\n")
    bill = estimate_ledger(_yaml(tmp_path, sc + "train_tokens: 1.0e8\n"))
    (w,) = [x for x in bill.warnings if "too few for the loss-based pages" in x]
    # Kaplan Eq. 5.4 and 5.6 by hand (a review): N = 6.98e9 non-embedding parameters gives
    # (N_c / N)^0.076 = 2.05 nats, 95 steps of 1,048,576 tokens about 10.5 more: 12.5
    loss = float(w.split("ends at ")[1].split(" nats")[0])
    assert 12.4 < loss < 12.6 and "notebook 02's target loss" in w and "95 optimizer steps" in w
    assert glance.caveat_line(w).startswith("100M tokens in 95 optimizer steps are too few")
    bill = estimate_ledger(_yaml(tmp_path, sc + "train_tokens: 2.0e12\n", name="long.yaml"))
    assert not any("too few for the loss-based pages" in x for x in bill.warnings)


def test_a_given_reserved_price_says_what_the_projects_reservation_costs():
    # A finance trial: 1,024 H200 reserved at $3.20 for a 6-month project were billed the
    # run's GPU-hours only, nothing said. By hand: 6 months × 30.4375 days × 24 h × $3.20 ×
    # 1,024 GPUs = $14.36M, beside the run's own hours
    from llmcost.present.glance import caveat_line
    sc = {"model": "llama-2-70b", "n_gpus": 1024, "train_tokens": 1e12, "mfu": 0.4,
          "pricing": "reserved", "price_usd_per_gpu_hour": 3.2, "ledger_project_months": 6}
    bill = build_ledger(sc)
    (w,) = [x for x in magnitude_warnings(bill.scenario, bill)
            if x.startswith("pricing: reserved bills")]
    assert "1,024 GPUs cost months × 730.5 h × rate × GPUs = $14.4M" in w
    assert 6 * 30.4375 * 24 * 3.2 * 1024 == pytest.approx(14.36e6, rel=1e-3)
    from llmcost.core.units import fmt_quantity
    hours = bill.figures["all_gpu_hours"]   # every GPU-hour the bill prices, not the run alone
    used = hours / (1024 * 24)
    assert used < 6 * 30.4375 and (f"the {fmt_quantity(hours)} GPU-hours this bill prices "
                                   f"({fmt_quantity(used)} days of its 1,024 GPUs") in w
    from llmcost.core.units import fmt_usd
    term = 6 * (365.25 / 12) * 24 * 3.2 * 1024
    assert f"(the idle part, {fmt_usd(term - hours * 3.2)}, unpriced here)" in w
    assert caveat_line(w).startswith("the bill charges ") and "cost $14.4M" in caveat_line(w)
    assert "idle and unpriced" in caveat_line(w)
    # a project shorter than the days the bill's GPU-hours fill is said as such (a review: a
    # 6-month project under 234.5 days of 2,048 GPUs, unsaid), not as an idle reservation
    run_months = bill.figures["run_wall_clock_days"] / (365.25 / 12)
    between = round((run_months + used / (365.25 / 12)) / 2, 2)   # longer than the run alone
    short = build_ledger({**sc, "ledger_project_months": between})
    (t,) = [x for x in magnitude_warnings(short.scenario, short)
            if x.startswith(f"ledger_project_months={between:g} is shorter than the")]
    assert f"the {fmt_quantity(used)} days of the 1,024 GPUs the bill's" in t
    assert not [x for x in magnitude_warnings(short.scenario, short)
                if x.startswith("pricing: reserved bills")]
    # a catalogue reserved price over a longer project: said too (a review: the 405B at
    # $2.72 for 18 months left $383M of idle reservation unsaid)
    cat = build_ledger({**sc, "price_usd_per_gpu_hour": None})
    assert [x for x in magnitude_warnings(cat.scenario, cat)
            if x.startswith("pricing: reserved bills")]
    # on demand: nothing here
    for other in ({"pricing": "on_demand"},):
        b = build_ledger({**sc, **other})
        assert not [x for x in magnitude_warnings(b.scenario, b)
                    if x.startswith("pricing: reserved bills")]


def test_owned_gpus_held_for_a_longer_project_say_what_they_lose():
    # A finance trial: a 12-month project on 2,048 owned H100 was charged 234.5 days of them,
    # the reserved option's sentence said and the owned one's not. By hand (Cottier et al.
    # 2024's amortisation, pricing.owned_usd_per_gpu_hour): the hardware rate h = $27,500 ×
    # 1.64 ÷ 0.81 × 0.14·ln 10 ÷ 8,766 h; held 6 months, 1,024 GPUs lose 6 × 730.5 h × h × 1,024
    from llmcost.core.units import fmt_usd
    from llmcost.present.glance import caveat_line
    sc = {"model": "llama-2-70b", "n_gpus": 1024, "train_tokens": 1e12, "mfu": 0.4,
          "pricing": "owned", "ledger_project_months": 6}
    bill = build_ledger(sc)
    h = 27_500 * 1.64 / 0.81 * 0.14 * math.log(10) / 8766
    assert bill.figures["gpu_rate_usd_per_gpu_hour"] == pytest.approx(h, rel=1e-3)
    (w,) = [x for x in magnitude_warnings(bill.scenario, bill)
            if x.startswith("pricing: owned GPUs held")]
    held = 6 * (365.25 / 12) * 24 * 1024 * bill.figures["gpu_rate_usd_per_gpu_hour"]
    assert f"= {fmt_usd(held)} at the bill's amortisation rate" in w
    idle = held - bill.figures["all_gpu_hours"] * bill.figures["gpu_rate_usd_per_gpu_hour"]
    assert f"(the idle part, {fmt_usd(idle)}, unpriced here)" in w
    assert caveat_line(w).startswith("the bill charges ") and "idle and unpriced" in \
        caveat_line(w)
    for other in ({"ledger_project_months": 0.1}, {"price_usd_per_gpu_hour": 2.0},
                  {"pricing": "on_demand"}):
        b = build_ledger({**sc, **other})
        assert not [x for x in magnitude_warnings(b.scenario, b)
                    if x.startswith("pricing: owned GPUs held")]
    used = bill.figures["all_gpu_hours"] / (1024 * 24)
    run_months = bill.figures["run_wall_clock_days"] / (365.25 / 12)
    between = round((run_months + used / (365.25 / 12)) / 2, 2)
    short = build_ledger({**sc, "ledger_project_months": between})
    assert [x for x in magnitude_warnings(short.scenario, short)
            if x.startswith(f"ledger_project_months={between:g} is shorter than the")]


def test_a_budget_of_zero_or_less_says_what_null_means():
    # a finance trial read a bare "ledger_budget_usd=-5000000.0 must be > 0"
    for bad in (-5e6, 0.0):   # a whole 0 is read as a float, 0.0
        with pytest.raises(ValueError, match=rf"ledger_budget_usd={bad!r} must be > 0 \(null: "
                                             r"the bill's total"):
            build_ledger({"ledger_budget_usd": bad, "price_usd_per_gpu_hour": 2.0})
    assert build_ledger({"ledger_budget_usd": None, "price_usd_per_gpu_hour": 2.0}).total_usd > 0


@pytest.mark.parametrize("extra, message", [
    ({"tp": 128}, r"tp=128 must divide n_gpus=64 \(n_gpus = dp × tp × pp × cp\)"),
    ({"tp": 3}, r"tp=3 must divide n_gpus=64"),
    ({"pp": 7}, r"pp=7 must divide n_gpus=64"),
    ({"global_batch_tokens": 1024}, r"global_batch_tokens=1,024 must be a whole number of "
                                    r"sequences of seq_len=4,096 \(at least one\): the "
                                    r"nearest is 4,096 \(1 sequence\)$"),
    # the nearest whole batches: 8 × 4,096 = 32,768 and 9 × 4,096 = 36,864
    ({"global_batch_tokens": 4096 * 8 + 5}, r"must be a whole number of sequences of "
     r"seq_len=4,096 \(at least one\): the nearest are 32,768 \(8 sequences\) or 36,864 "
     r"\(9 sequences\)$"),
    ({"model": "mixtral-8x7b", "ep": 3}, r"ep=3 must divide n_experts=8 \(mixtral-8x7b\)"),
    ({"ep": 2}, r"ep=2: llama-2-70b is dense \(no experts\), so ep must be 1"),
])
def test_a_bill_refuses_a_plan_or_batch_no_run_has(extra, message):
    # an API trial: build_ledger, simulate_ledger and validate_scenario priced these on 64 GPUs
    # (the plan keys entered no number of a given-MFU bill) where `llmcost estimate` refuses
    # them; the plan's rules that need no plan search are now every entry point's
    import llmcost
    from llmcost.bill.validation import validate_scenario
    for call in (llmcost.build_ledger, validate_scenario,
                 lambda sc: llmcost.simulate_ledger({**sc, "mfu": [0.3, 0.5]}, samples=10)):
        with pytest.raises(ValueError, match=message):
            call({"n_gpus": 64, **extra})
    llmcost.build_ledger({"n_gpus": 64, "tp": 8, "model": "mixtral-8x7b", "ep": 8})  # fine


def test_a_given_project_shorter_than_the_compute_schedule_is_warned(tmp_path):
    # a re-trial: ledger_project_months 1 under a 1.78-month schedule (exploration, the run, an
    # RL campaign) was said on notebook 00's step 7 alone; estimate and the index now say it,
    # against the schedule's own months (its days ÷ (365.25 / 12))
    from llmcost.present.glance import caveat_line
    base = ("model: llama-3.1-8b\naccelerator: H100-SXM\nn_gpus: 64\ntrain_tokens: 1.0e12\n"
            "seq_len: 4096\nmfu: 0.4\nprice_usd_per_gpu_hour: 3.0\n")
    plain = estimate_ledger(_yaml(tmp_path, base, name="a.yaml"))
    sched = sum(plain.figures["schedule_days"].values()) / (365.25 / 12)
    run = plain.figures["run_wall_clock_days"] / (365.25 / 12)
    assert run < sched
    months = round((run + sched) / 2, 2)   # longer than the run, shorter than the schedule
    bill = estimate_ledger(_yaml(tmp_path, base + f"ledger_project_months: {months}\n",
                                 name="b.yaml"))
    (w,) = [x for x in bill.warnings if "shorter than the compute schedule" in x]
    assert w.startswith(f"ledger_project_months={months:g} is shorter than the compute schedule "
                        f"({sched:.4g} months: exploration, the final run and post-training")
    assert caveat_line(w) == (f"the project ({months:g} months) is shorter than its compute "
                              "schedule: people, operations and storage are priced over less "
                              "time than the compute takes")
    longer = estimate_ledger(_yaml(tmp_path, base + f"ledger_project_months: {sched + 1:.2f}\n",
                                   name="c.yaml"))
    assert not any("shorter than" in x for x in longer.warnings)
