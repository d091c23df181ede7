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
