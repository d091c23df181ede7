"""Notebook 00's worked answers that price a change scaled to the scenario
(``llmcost.bill.exercises``), on a new-user trial's scenarios: a 3B dense model on 64 A100-40GB
(a_3b_a100), DeepSeek-V3 on 512 H200 in FP8 (b_moe_h200), Llama 3.1 70B on 1,152 GB200 with its
own 128k phase (c_70b_gb200_rl) and a 135M toy model on 8 H100 (d2_tiny_8gpu); their models'
config.json in tests/data/trial_configs."""

from pathlib import Path

import pytest

import llmcost
from llmcost import ledger
from llmcost.bill import exercises as ex
from llmcost.core.units import fmt_usd

CONFIGS = Path(__file__).parent / "data" / "trial_configs"

# the trial's scenarios, as their YAML files gave them
A_3B = {"model": str(CONFIGS / "llama-3.2-3b.json"), "accelerator": "A100-40GB", "n_gpus": 64,
        "train_tokens": 1.0e11, "seq_len": 4096, "mfu": 0.45, "dtype": "bf16",
        "price_usd_per_gpu_hour": None, "pricing": "on_demand", "global_batch_tokens": 2097152}
B_MOE = {"model": "deepseek-v3", "accelerator": "H200", "n_gpus": 512, "train_tokens": 2.0e12,
         "seq_len": 4096, "mfu": 0.158, "dtype": "fp8", "pricing": "reserved",
         "global_batch_tokens": 15728640}
C_70B = {"model": "llama-3.1-70b", "accelerator": "GB200-NVL72", "n_gpus": 1152,
         "train_tokens": 8.0e12, "seq_len": 8192, "mfu": 0.40, "dtype": "bf16",
         "pricing": "on_demand", "global_batch_tokens": 16777216,
         "phases": [{"name": "long-context", "tokens": 1.0e11, "seq_len": 131072, "mfu": 0.30}]}
D2_TINY = {"model": str(CONFIGS / "smollm-135m.json"), "accelerator": "H100-SXM", "n_gpus": 8,
           "train_tokens": 6.0e11, "seq_len": 2048, "mfu": 0.35, "price_usd_per_gpu_hour": 3.0,
           "pricing": "on_demand", "global_batch_tokens": 1048576}


def _exercise(scenario):
    bill = ledger.build_ledger(scenario)
    return bill, ex.long_context_exercise(bill, llmcost.load_model(scenario["model"]))


def test_llama3_405b_gets_llama3s_own_long_context_stage():
    """The workbook's Llama 3.1 405B scenario (15.6T tokens at 8,192, MFU 0.41, its own
    long-context phase of 800B tokens at 131,072 and MFU 0.38) gives back Llama 3's stage:
    15.6T × 800B/15.6T = 800B tokens (Llama Team 2024, arXiv:2407.21783, §3.4.2), at 131,072
    tokens, MFU 0.41 × 38/41 = 0.38 (Table 4): it replaces the scenario's phase and adds nothing
    to its bill."""
    sc = llmcost.load_scenario(llmcost.SCENARIO_DIR / "llama-3.1-405b.yaml")
    bill, x = _exercise(sc)
    assert x.phase["tokens"] == pytest.approx(800e9, rel=1e-12)
    assert x.phase["seq_len"] == 131072 and x.phase["mfu"] == pytest.approx(0.38, rel=1e-12)
    assert x.replaced["tokens"] == 8.0e11 and x.vs_bill_usd == pytest.approx(0.0, abs=1.0)
    assert x.own_usd == pytest.approx(x.added_usd, rel=1e-9) and x.added_usd > 0
    assert "replaces the scenario's own long-context phase (800B tokens at 131,072" in \
        x.describe()
    # the same phase: said unchanged, not "rises by $0.00000006" (a consistency audit)
    assert "so the bill is unchanged (the scenario's phase is this example)" in \
        " ".join(x.describe().split())


def test_a_small_run_gets_a_phase_of_its_own_size():
    """a_3b_a100 read "adds $1.53M" to a $24.7k bill: Llama 3's 800B tokens whatever the run.
    Now 100B × 800/15,600 = 5.128B tokens at 131,072 (Llama 3.2 3B's config declares 131,072
    positions), MFU 0.45 × 38/41 = 0.41707 on the A100's BF16 peak (312 TFLOP/s, the A100
    datasheet): its line's ideal GPU-hours are tokens × F(131,072) ÷ (312e12 × 0.41707) ÷ 3600,
    and it is added to the scenario's (no) phases."""
    bill, x = _exercise(A_3B)
    tokens, mfu = 1e11 * 800 / 15600, 0.45 * 38 / 41
    assert x.phase == {"name": "long-context", "tokens": pytest.approx(tokens, rel=1e-12),
                       "seq_len": 131072, "mfu": pytest.approx(mfu, rel=1e-12)}
    spec = llmcost.load_model(A_3B["model"])
    ideal_h = tokens * float(llmcost.model_flops_per_token(spec, 131072)) / (312e12 * mfu) / 3600
    line = ledger.with_changes(bill, phases=[x.phase]).line("compute.pretraining.long-context")
    assert f"= {ideal_h:,.0f} ideal GPU-h" in line.how
    assert "(3.12e+14 FLOP/s × MFU 41.7%)" in line.how
    assert x.replaced is None and 0 < x.added_usd < bill.total_usd
    assert x.describe().splitlines()[1].startswith(
        "in addition to the scenario's phases: adds $")
    assert x.warning is None  # within the model's declared context


def test_a_model_with_no_longer_context_gets_no_phase():
    """d2_tiny_8gpu priced 131,072-token sequences for SmolLM-135M, whose config.json declares
    2,048 positions, the run's own length: no phase, said so."""
    bill, x = _exercise(D2_TINY)
    assert x.phase is None and x.describe() == (
        "no long-context phase priced: smollm-135m declares a context of 2,048 tokens "
        "(max_position_embeddings), no longer than the run's own 2,048-token sequences (a longer "
        "phase needs a context extension of the model first)")


def test_an_fp8_run_keeps_one_mfu_basis_and_the_bills_warning():
    """b_moe_h200 read "at MFU 0.38 against 0.16": Llama 3's BF16 figure against the bill's MFU
    on the FP8 peak. The phase's MFU is the bill's × 38/41 = 0.158 × 0.92683 = 0.14644, on the
    bill's basis; DeepSeek-V3's catalogue context is its 4,096-token pre-training, so the length
    carries the bill's phase warning (checks.context_warning)."""
    bill, x = _exercise(B_MOE)
    assert x.phase["mfu"] == pytest.approx(0.158 * 38 / 41, rel=1e-12)
    assert "at MFU 14.6% against 15.8%" in x.describe()
    assert x.warning.startswith("seq_len=131,072 is beyond the 4,096-token sequence length "
                                "deepseek-v3 was pre-trained at")


def test_a_scenario_with_its_own_phase_is_told_replaced():
    """c_70b_gb200_rl has its own 100B-token long-context phase; the example (8T × 800/15,600 =
    410B tokens) replaces it: what it adds to the bill without a long-context phase and to the
    bill are both said, the own phase's cost the difference of the two."""
    bill, x = _exercise(C_70B)
    assert x.phase["tokens"] == pytest.approx(8e12 * 800 / 15600, rel=1e-12)
    assert x.replaced == C_70B["phases"][0]
    assert x.own_usd == pytest.approx(x.added_usd - x.vs_bill_usd, rel=1e-9)
    assert "replaces the scenario's own long-context phase (100B tokens at 131,072" in \
        x.describe()
    # said as what it adds without that phase, then how the bill moves (a trial read "adds
    # $361k to the bill without it, $241k to the bill" as garbled)
    # its own phase's share is the bill with it less the bill without it, exploration and
    # storage included (a trial set "$22.8M of the bill" beside the phase's line at $9.90M)
    assert f"{fmt_usd(x.own_usd)} of the bill with the lines that scale with it" in \
        " ".join(x.describe().split())
    moves = "rises" if x.vs_bill_usd >= 0 else "falls"
    assert (f"it adds {fmt_usd(x.added_usd)} to the bill without that phase, so the bill "
            f"{moves} by {fmt_usd(abs(x.vs_bill_usd))}") in " ".join(x.describe().split())


def test_odd_input_is_refused_by_name():
    with pytest.raises(ValueError, match="bill="):
        ex.long_context_exercise({"model": "llama-2-70b"}, "llama-2-70b")
    bill = ledger.build_ledger(D2_TINY)
    with pytest.raises(ValueError, match="model="):
        ex.long_context_exercise(bill, 3e9)


def test_a_shorter_declared_context_sets_the_length_and_a_ranged_mfu_its_point():
    """The toy model at 1,024-token sequences: its config declares 2,048 positions, so the
    phase runs at 2,048 (said as its declared context, short of Llama 3's 131,072), with no
    warning; the trial's ranged MFU (uniform 0.25-0.45) gives the bill's point, 0.35, and the
    phase 0.35 × 38/41 = 0.32439."""
    bill, x = _exercise({**D2_TINY, "seq_len": 1024, "mfu": [0.25, 0.45]})
    assert x.phase["seq_len"] == 2048 and x.warning is None
    assert x.phase["mfu"] == pytest.approx(0.35 * 38 / 41, rel=1e-9)
    assert "(smollm-135m's declared context, short of Llama 3's 131,072)" in x.describe()
    assert x.added_usd > 0


def test_the_scenarios_phase_is_found_in_any_spelling():
    # a review: a phase named "Long-context" was added beside the example, not replaced
    sc = {**C_70B, "phases": [{**C_70B["phases"][0], "name": "Long context"}]}
    _, x = _exercise(sc)
    assert x.replaced is not None and x.replaced["name"] == "Long context"
    assert ex._is_long_context("long_context") and not ex._is_long_context("annealing")
