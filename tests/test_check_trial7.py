"""`llmcost check` after a seventh new-user trial: one FLOP basis per judgement, days that a
cost would drop refused, a pilot scenario's MFU kept beside a cost, far-impossible hours
refused in one line, tiny figures printed with their digits, and a stated MFU the hours make
unused said so."""

import re
import json

import pytest

from llmcost import claims
from llmcost.present.cli import main

H100_BF16 = 989.4e12  # dense BF16 peak, FLOP/s (data/accelerators.csv; NVIDIA H100 datasheet)
STARTUP = ["check", "--model", "llama-2-7b", "--train-tokens", "1e12", "--accelerator",
           "H100-SXM"]


def _unwrapped(text: str) -> str:
    return " ".join(text.split())


def _causal_flops_llama2_7b(tokens: float) -> float:
    """By hand: the MFU-basis count less the attention score and value FLOPs a causal kernel
    skips. Llama 2 7B: 32 layers, d_model 4,096, 4,096-token context (arXiv:2307.09288
    Table 1); attention fwd + bwd per token per attended key 3 × 2 × 2 × L × d =
    12 × 32 × 4,096 FLOPs; the full mask counts s keys a query, a causal one (s + 1)/2 (query i
    attends keys 1..i), so (s − 1)/2 = 2,047.5 keys a token are skipped."""
    return claims.check_claim("llama-2-7b", tokens, "H100-SXM", gpu_hours=1e5,
                              left_out=False).flops_mfu_basis \
        - 12 * 32 * 4096 * (4096 - 1) / 2 * tokens


def test_the_ceiling_and_the_cost_floor_count_the_same_flops():
    # The trial: 7B on 1T tokens, 64 H100 for 10 days (15,360 GPU-h), $50k. The utilisation
    # said IMPLAUSIBLE on the full-mask count (85.0% > the 80.1% ceiling) while the cost floor,
    # on the causal count, needed only 15,024 GPU-h at that ceiling. By hand on the causal
    # count: 4.286e22 ÷ (15,360 × 3600 × 989.4e12) = 78.3% whole-run, ÷ goodput 99.1% = 79.1%
    # steady-state, under the ceiling; floor 4.286e22 ÷ (989.4e12 × 0.801 × 3600) = 15,024
    # GPU-h. The claim is judged against published runs (MFU basis, 85.0% vs 47.0%): optimistic.
    c = claims.check_claim("llama-2-7b", 1e12, "H100-SXM", n_gpus=64, days=10, usd=5e4,
                           left_out=False)
    fc = _causal_flops_llama2_7b(1e12)
    assert c.flops_causal == pytest.approx(fc, rel=1e-6) and fc == pytest.approx(4.286e22,
                                                                                   rel=1e-3)
    assert c.whole_run_causal["bf16"] == pytest.approx(fc / (15_360 * 3600 * H100_BF16),
                                                       rel=1e-9)
    assert c.steady_state_causal["bf16"] == pytest.approx(0.791, abs=0.001)
    assert c.steady_state["bf16"] == pytest.approx(0.850, abs=0.001)  # MFU basis, as before
    floor_h = fc / (H100_BF16 * c.ceiling * 3600)
    assert floor_h == pytest.approx(15_024, abs=1) and f"= {floor_h:,.0f} GPU-h" in \
        c.cost_floor_source
    util = {x["aspect"]: x for x in c.judgements}["utilisation"]
    assert util["verdict"] == "optimistic" and "MFU basis" in util["reason"]
    assert c.verdict == "optimistic"
    # the other side: 14,500 GPU-h, fewer than the floor's 15,024: both bounds say so
    # (causal 4.286e22 ÷ (14,500 × 3600 × 989.4e12) = 83.0% > 80.1%)
    d = claims.check_claim("llama-2-7b", 1e12, "H100-SXM", n_gpus=64, gpu_hours=14_500,
                           usd=5e4, left_out=False)
    util = {x["aspect"]: x for x in d.judgements}["utilisation"]
    assert util["verdict"] == "implausible" and "on the causal count" in util["reason"]
    assert d.whole_run_causal["bf16"] == pytest.approx(0.830, abs=0.001)
    assert 14_500 < floor_h


def test_the_cli_says_each_basis(capsys):
    assert main(STARTUP + ["--n-gpus", "64", "--days", "10", "--usd", "50000"]) == 0
    out = _unwrapped(capsys.readouterr().out)
    assert "= 85.0% (causal count: 79.1%)" in out
    assert "Ceiling: 80.1% of the BF16 peak, on the causal count" in out
    assert "utilisation: OPTIMISTIC" in out and "IMPLAUSIBLE" not in out


def test_days_beside_a_cost_without_gpus_are_refused(capsys):
    # The trial: --days 10 --usd 50000 without --n-gpus ran as a cost-only claim (the days
    # dropped), with goodput 100.0% in one line and 99.1% in the next. Days give hours only
    # with a GPU count (hours = days × GPUs × 24).
    assert main(STARTUP + ["--days", "10", "--usd", "50000"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--days=10.0 gives the GPU-hours only with --n-gpus" in err[0] \
        and "a cost alone gives no hours" in err[0]
    with pytest.raises(ValueError, match=r"days=10.0 gives the GPU-hours only with n_gpus"):
        claims.check_claim("llama-2-7b", 1e12, "H100-SXM", days=10, usd=5e4, left_out=False)
    # with the GPUs the days are the hours: 10 × 64 × 24 = 15,360
    c = claims.check_claim("llama-2-7b", 1e12, "H100-SXM", days=10, n_gpus=64, usd=5e4,
                           left_out=False)
    assert c.gpu_hours == 15_360 and c.hours_source == "days x n_gpus x 24"


def test_far_too_few_hours_are_refused_in_one_line(capsys):
    # The trial: 64 H100 for 0.0001 days printed "0 GPU-h", an MFU of "8423511.4%" and a
    # 40-line verdict. Hours: 0.0001 × 64 × 24 = 0.1536 GPU-h; by hand 4.286e22 ÷ (0.1536 ×
    # 3600 × 989.4e12) = 78,340× the peak: refused, the flags named; the peak itself needs
    # 4.286e22 ÷ (989.4e12 × 3600) = 12,034 GPU-h.
    assert main(STARTUP + ["--n-gpus", "64", "--days", "0.0001"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith("llmcost: error: --days=0.0001 × --n-gpus=64 × 24 = 0.154 GPU-h "
                             "imply a whole-run utilisation of 7,834,")
    assert "need 12,034 GPU-h at the peak itself" in err[0]


def test_tiny_hours_and_dollars_keep_their_digits():
    # 1M tokens on 64 H100 for 0.0001 days: 0.1536 GPU-h, a plausible-sized figure for 4.3e16
    # FLOPs (7.9% of the peak on the causal count); at the catalogue median the hours cost
    # 0.1536 × median, under a dollar: not "0 GPU-h" and "$1"
    c = claims.check_claim("llama-2-7b", 1e6, "H100-SXM", n_gpus=64, days=0.0001,
                           left_out=False)
    text = c.describe()
    assert "(bf16), 0.154 GPU-h (days x n_gpus x 24)" in text
    cost = 0.1536 * c.price["median"]
    assert 0.01 < cost < 100 and f"the hours cost ${cost:.2f}" in text
    assert claims.gpu_h(15_360) == "15,360" and claims.gpu_h(0.1536) == "0.154"
    assert claims.fmt_usd(94_541.2) == "$94.5k" and claims.fmt_usd(0.946) == "$0.95"


def test_the_left_out_lines_read_money_as_the_bill_does():
    # A trial: `llmcost check ... --usd 2e7` printed the rerun reserve's final run as
    # "19,999,988 USD" and the exploratory line as "$23,799,988": eight digits of a figure
    # drawn from a 1.2-4x range. They now read as `llmcost estimate` prints a bill: three
    # significant figures ($20.0M: the claim's own $20M, recomputed from its hours x price).
    c = claims.check_claim("llama-3.1-8b", 15e12, "H100-SXM", n_gpus=1024, usd=2e7)
    text = " ".join(c.describe().split())
    assert "× final run $20.0M (expected" in text
    left = text[text.index("Not in the figure"):]
    assert not re.search(r"\$\d{1,3}(,\d{3}){2,}", left), left  # no "$23,799,988"


def test_a_stated_mfu_the_hours_make_unused_is_said_beside_the_utilisation(capsys):
    # The trial: --mfu 0.4 beside stated days and GPUs was not used, and said only in a note
    # after the left-out lines. Now the line under the implied utilisation says it.
    assert main(STARTUP + ["--n-gpus", "64", "--days", "10", "--mfu", "0.4"]) == 0
    lines = capsys.readouterr().out.splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith("  stated MFU 40.0%"))
    assert "is not used: the claim's hours" in " ".join(lines[at:at + 2])
    assert lines[at - 1].strip().endswith("(causal count: 79.1%)")
    assert not any(ln.startswith("Note: stated MFU") for ln in lines)
    # hours from the MFU (none stated): used, no such line
    assert main(STARTUP + ["--n-gpus", "64", "--mfu", "0.4"]) == 0
    out = _unwrapped(capsys.readouterr().out)
    assert "stated MFU 40.0% is not used" not in out and "from the stated MFU 40.0%" in out


PILOT = """model: llama-3.1-70b
accelerator: H100-SXM
n_gpus: 512
train_tokens: 2.0e12
seq_len: 8192
price_usd_per_gpu_hour: 3.99
global_batch_tokens: 4194304
tp: 8
pp: 4
micro_batch_size: 1
recompute: none
phases:
  - {name: long-context, tokens: 5.0e10, seq_len: 32768, mfu: 0.3}
"""


@pytest.mark.parametrize("mfu", [
    "pilot:\n  - {n_gpus: 64, tokens_per_s_per_gpu: 880, tp: 8, pp: 4, micro_batch_size: 1}\n"
    "  - {n_gpus: 128, tokens_per_s_per_gpu: 850, tp: 8, pp: 4, micro_batch_size: 1}\n",
    "mfu: 0.4\n"])
def test_a_cost_beside_a_scenario_keeps_the_runs_hours(capsys, tmp_path, mfu):
    # The trial: `check --scenario` of a pilot scenario judged the bill's 733,989 GPU-h at the
    # pilots' 39.7%; with --usd 3e6 it judged 591,979 GPU-h at the best published 47.0%. A
    # cost is not hours: the run's hours (the bill's main run and phase, at its MFU) stay, the
    # cost judged against them; the same for a numeric mfu.
    f = tmp_path / "run.yaml"
    f.write_text(PILOT + mfu)
    assert main(["check", "--scenario", str(f), "--format", "json"]) == 0
    alone = json.loads(capsys.readouterr().out)
    assert main(["check", "--scenario", str(f), "--usd", "3e6", "--format", "json"]) == 0
    costed = json.loads(capsys.readouterr().out)
    assert costed["gpu_hours"] == pytest.approx(alone["gpu_hours"], rel=1e-12)
    assert costed["phase_gpu_hours"] == pytest.approx(alone["phase_gpu_hours"], rel=1e-12)
    assert costed["steady_state"]["bf16"] == pytest.approx(alone["steady_state"]["bf16"],
                                                           rel=1e-12)
    assert not costed["hours_source"].startswith("cost-only")
    assert costed["implied_usd_per_gpu_hour"] == pytest.approx(3e6 / alone["gpu_hours"],
                                                               rel=1e-12)
    assert [x["aspect"] for x in costed["judgements"]] != [] and costed["usd"] == 3e6


def test_an_impossible_cost_and_the_draws_note_are_two_clauses():
    # A trial read "... so no line is derived from it each P10–P90 is drawn ...": the basis of an
    # impossible claim's lines and the note on their ranges ran together
    c = claims.check_claim("llama-3.1-70b", 15e12, "H100-SXM", n_gpus=4096, usd=1e6)
    text = " ".join(c.describe().split())
    assert "so no line is derived from it; each P10–P90 is drawn" in text
