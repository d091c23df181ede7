"""`llmcost check` as a journalist's trial used it: figures typed as they are printed, and the
EU AI Act line on the work a run does."""
import pytest
from _cli import run_cli


@pytest.mark.parametrize("flag, typed, said", [
    ("--usd", "$5.6M", "(write 5.6e+06 for $5.6M)"),
    ("--usd", "5.6 million", "(write 5.6e+06 for 5.6 million)"),
    ("--gpu-hours", "2.8M", "(write 2.8e+06 for 2.8M)"),
    ("--train-tokens", "2T", "(write 2e+12 for 2T)")])
def test_a_figure_typed_as_printed_is_told_the_number_to_write(flag, typed, said):
    # "$5.6M" and "2.8M GPU hours" are how DeepSeek-V3's figures are quoted (arXiv:2412.19437,
    # Table 1: $5.576M, 2.788M H800 GPU-hours); each was told only "must be a number"
    res = run_cli("check", "--model", "deepseek-v3", "--accelerator", "H800", flag, typed)
    assert res.returncode == 2
    assert res.stderr.strip().endswith(f"{flag}={typed!r} must be a number {said}")


def test_deepseek_v3s_own_cost_is_judged_as_the_fp8_run_it_was():
    # DeepSeek-AI 2024 (arXiv:2412.19437) Table 1: 2.788M H800 GPU-hours, $5.576M at $2 per
    # GPU-hour, trained in FP8 (§3.3); without --dtype the check said OPTIMISTIC (as BF16)
    res = run_cli("check", "--model", "deepseek-v3", "--accelerator", "H800",
                  "--gpu-hours", "2.788e6", "--usd", "5.576e6")
    assert res.returncode == 0
    assert "Note: dtype fp8: deepseek-v3's own published run's precision" in res.stdout
    assert "Verdict: OPTIMISTIC" not in res.stdout


def test_a_scenarios_own_precision_wins_over_the_published_runs(tmp_path):
    # A review: a claim on a scenario of DeepSeek-V3 that gives no dtype (its bill BF16, the
    # scenario default) took the published run's FP8 once a --usd was given
    sc = tmp_path / "ds.yaml"
    sc.write_text("model: deepseek-v3\naccelerator: H800\nn_gpus: 2048\ntrain_tokens: 1.48e13\n"
                  "mfu: 0.2\nprice_usd_per_gpu_hour: 2.0\n")
    res = run_cli("check", "--scenario", str(sc), "--usd", "5.576e6")
    assert res.returncode == 0 and "dtype fp8" not in res.stdout
    assert "steady-state MFU 20.0% of the bf16 peak" in res.stdout


def test_without_an_fp8_peak_the_published_fp8_run_is_judged_in_bf16():
    # DeepSeek-V3 on A100-80GB, which has no FP8 tensor cores (data/accelerators.csv): the
    # published run's FP8 cannot apply; refused before ("--dtype='fp8'", a flag never typed)
    from llmcost.bill import claims
    dtype, note = claims.published_precision(claims.claim_model("deepseek-v3"), "A100-80GB")
    assert dtype == "bf16" and note.startswith("dtype bf16: deepseek-v3's own published run was "
                                               "FP8 (data/published_runs.csv deepseek-v3")
    assert note.endswith("but A100-80GB has no FP8 peak")
    res = run_cli("check", "--model", "deepseek-v3", "--accelerator", "A100-80GB", "--usd",
                  "5e6", "--pricing", "on-demand")   # and on-demand is on_demand
    assert res.returncode == 0, res.stderr


def test_a_flag_in_its_own_unit_gets_no_unit_stripping_hint():
    # "--days '2 months'" was told "(write 2: the number alone)", 2 days for about 60
    res = run_cli("check", "--model", "llama-2-7b", "--accelerator", "H100-SXM", "--n-gpus",
                  "64", "--days", "2 months")
    assert res.returncode == 2 and "write 2" not in res.stderr
