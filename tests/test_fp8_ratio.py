"""Whole-step FP8:BF16 speed ratios of published pairs (training/accuracy.fp8_bf16_pairs).

Sources: the validation table's rows that ran the same plan in BF16 and in FP8 —
pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md (Llama 3.1 8B, FSDP2 +
torch.compile, 8 and 128 H100s, with and without Float8: 6,667 vs 8,532 tokens/s per GPU on 8)
and mosaicml/llm-foundry's H100 throughput tables (MPT 1B and 3B, BF16 and FP8 at 512 to 32k
tokens), and NVIDIA's DGX Cloud benchmarking recipes (NVIDIA/dgxc-benchmarking: Llama 3.1
70B on 64 H100, GPT-3 175B and Nemotron-4 340B on 128 H100, Llama 3.1 405B on 512 H100 and
on 128 GB200, the same plan in the BF16 and the FP8 table). Published ratios run 1.00-1.35 up
to 8B and 1.40-1.60 at 70B-405B, far from the 2x of the FP8 peak. The goal: the predicted
ratio within 10 % of each published one, with GEMMs by shape, FP8 as run (LM head in BF16,
casts priced with each
source's recipe), the attention kernel's curve on the FlashAttention stacks (the shipped
mechanisms: ``validation_table()``) and Hopper's backward FP8 GEMMs without fast
accumulation (gemm.FP8_SLOW_ACCUMULATION, on in every table here): met on the twelve H100
pairs (largest |error| 7.2 %), missed on the one GB200 pair (Llama 3.1 405B, +14 %: the
engine's Blackwell FP8 step is too fast there, its BF16 one +10 %).
"""

import pytest

from llmcost.bill import checks, claims
from llmcost.training import accuracy


@pytest.fixture(scope="module")
def tables():
    return {"off": accuracy.validation_table(False, False, False),
            "on": accuracy.validation_table()}   # the shipped mechanisms


def test_published_pairs_are_found(tables):
    p = accuracy.fp8_bf16_pairs(tables["off"])
    assert len(p) >= 12
    tt = p.set_index("run_id_bf16").loc["torchtitan-h100-8b-8gpu-1-fsdp-compile"]
    assert tt["published"] == pytest.approx(8532 / 6667, rel=1e-3)
    # NVIDIA/dgxc-benchmarking llama3.1/README.md @ 85380ff (v25.04.01), 512 H100: training
    # step 19.78 s in BF16, 12.37 s in FP8, one plan (TP8 PP8 CP2 VP8, GBS 256)
    big = p.set_index("run_id_bf16").loc["dgxc2504-h100-llama-3.1-405b-bf16"]
    assert big["published"] == pytest.approx(19.78 / 12.37, rel=1e-3)
    assert p["published"].between(0.95, 1.65).all()


def test_ratios_within_ten_percent_with_the_fp8_mechanisms(tables):
    off = accuracy.fp8_bf16_pairs(tables["off"])
    on = accuracy.fp8_bf16_pairs(tables["on"])
    # the flat engine (2x the GEMM rate, no casts) overstates the ratio on every pair, by up
    # to a fifth (MPT 3B at 512 tokens; the torchtitan pairs by 9-10 % since FSDP2's copies,
    # StepOptions.fsdp_copies, add the same memory-bound time to both runs of a pair) ...
    assert (off["error"] > 0).all() and off["error"].max() > 0.15
    # ... the mechanisms bring every pair closer, every H100 pair within the 10 % goal; the
    # GB200 405B pair is the one miss (+14 %), reported, not hidden
    # (the 405B H100 pair, within 4 % either way, the one not closer: -3.9 % against +0.5 %)
    closer = on["error"].abs() < off["error"].abs()
    assert (closer | (on["error"].abs() < 0.04)).all() and closer.sum() >= len(on) - 1
    gb200 = on["run_id_fp8"].str.contains("-gb200-")
    assert (on.loc[~gb200, "error"].abs() < 0.10).all()
    assert on.loc[gb200, "error"].between(0.10, 0.20).all()


def test_pairs_refuse_a_table_without_its_columns():
    import pandas as pd
    with pytest.raises(ValueError, match="validation lacks"):
        accuracy.fp8_bf16_pairs(pd.DataFrame({"run_id": []}))


def test_the_fp8_bound_is_the_largest_published_pair_of_a_comparable_size():
    # r by hand for a 1.3B model (pairs of 0.33B-5.2B): mosaicml/llm-foundry
    # scripts/train/benchmarking/README.md @ 495218376, tables 'H100 80GB FP8' and 'H100 80GB
    # BF16', MPT 1b, SeqLen 512, 8 GPUs: 70,315 and 52,275 tokens/s/GPU
    r, pair = accuracy.fp8_speedup_bound(1.3e9)
    assert r == pytest.approx(70_315 / 52_275, rel=1e-4)
    assert pair == "foundry-h100-mpt-1b-s512-8gpu-fp8 ÷ foundry-h100-mpt-1b-s512-8gpu-bf16"
    # a 70B model (pairs of 17.6B-282B): NVIDIA/dgxc-benchmarking nemo_megatron/README_175b.md
    # @ 143b90d (v25.01), GPT-3 175B on 128 H100, 8.91 s BF16 and 5.92 s FP8 a step
    r70, pair70 = accuracy.fp8_speedup_bound(70.6e9)
    assert r70 == pytest.approx(8.91 / 5.92, rel=1e-3) and "gpt-3-175b" in pair70
    # a 405B model, and every pair (no size): Llama 3.1 405B on 512 H100, 19.78 s and 12.37 s
    for n in (405e9, None):
        assert accuracy.fp8_speedup_bound(n)[0] == pytest.approx(19.78 / 12.37, rel=1e-3)
    # no pair of a comparable size (a 100M model): the nearest size's pairs, MPT 1B's (a review:
    # every pair counted, and a 100M model took the 405B's 1.599)
    assert accuracy.fp8_speedup_bound(1e8)[0] == pytest.approx(70_315 / 52_275, rel=1e-4)
    for bad in (0, -1.0, True, "8e9", float("inf"), float("nan")):
        with pytest.raises(ValueError, match="n_params"):
            accuracy.fp8_speedup_bound(bad)


def test_an_fp8_step_against_bf16_runs_only_is_bounded_by_their_best_times_r():
    # A dense 405B model at 128k tokens on H100: the one comparable run is Llama 3.1 405B at
    # 128K context, BF16 (Llama 3 paper, arXiv:2407.21783 Table 4: 38% BF16 MFU on 16,384
    # H100s). An FP8 step of that plan runs at most r = 19.78 / 12.37 times as fast (the 405B
    # pair of NVIDIA/dgxc-benchmarking, llama3.1/README.md @ 85380ff), so by hand its bound is
    # 38.4% × 1.599 = 61.4% of the BF16 peak, 30.7% of the FP8 one (÷ 2, H100 SXM's 1,978.9
    # ÷ 989.4 TFLOP/s); the BF16 figure alone held it to BF16 speed.
    r = 19.78 / 12.37
    b = accuracy.comparable_published_mfu("H100-SXM", 405e9, is_moe=False, dtype="fp8",
                                          seq_len=131_072)
    assert not b.fp8_rows and b.run[1] == "Llama 3.1 405B (Table 4: 128K context)"
    assert b.run[0] == pytest.approx(0.38, abs=0.01)
    assert b.mfu_bf16 == pytest.approx(b.run[0] * r, rel=1e-3)
    assert b.mfu == pytest.approx(b.run[0] * r / (1978.9 / 989.4), rel=1e-3)
    assert "× 1.6, the largest FP8 ÷ BF16 speed-up of one plan among the published pairs of a " \
        "comparable size" in b.source
    # a BF16 step is held to the BF16 run itself; fp8_bound=False is the figure as published
    bf16 = accuracy.comparable_published_mfu("H100-SXM", 405e9, is_moe=False, dtype="bf16",
                                             seq_len=131_072)
    assert bf16.mfu_bf16 == pytest.approx(b.run[0], rel=1e-9)
    raw = accuracy.comparable_published_mfu("H100-SXM", 405e9, is_moe=False, dtype="fp8",
                                            seq_len=131_072, fp8_bound=False)
    assert raw.mfu_bf16 == pytest.approx(b.run[0], rel=1e-9)
    # where a comparable run is FP8 (the same model at 8k: Megatron-Bridge's FP8 runs), the
    # best of them is the bound as published, no r
    at8k = accuracy.comparable_published_mfu("H100-SXM", 405e9, is_moe=False, dtype="fp8",
                                             seq_len=8192)
    assert at8k.fp8_rows and at8k.mfu_bf16 == pytest.approx(at8k.run[0], rel=1e-9)


def test_the_band_and_a_claim_use_the_same_fp8_bound():
    # the band's cap (band_cap, via mfu_band) and a claim's reference (claims.best_reference)
    # of the same FP8 step: the BF16 run × r, 30.7% of the FP8 dense peak, by hand as above
    bound = 0.38407 * 19.78 / 12.37
    band = accuracy.mfu_band(0.30, "H100-SXM", 2048, is_moe=False, n_params=405e9,
                             dtype="fp8", seq_len=131_072)
    assert band.high == pytest.approx(bound / 2, rel=1e-3) and band.low < band.high
    best, src = claims.best_reference("H100-SXM", 405e9, is_moe=False, dtype="fp8",
                                      seq_len=131_072)
    assert best == pytest.approx(bound, rel=1e-3) and "(a BF16 run, 38.4%" in src
    best16, _ = claims.best_reference("H100-SXM", 405e9, is_moe=False, dtype="bf16",
                                      seq_len=131_072)
    assert best16 == pytest.approx(0.38407, rel=1e-3)


def test_one_source_of_the_fp8_peak_ratio():
    # H100 SXM datasheet: FP8 1,978.9 and BF16 989.4 dense TFLOP/s (data/accelerators.csv)
    assert accuracy.dtype_basis("H100-SXM", "fp8") == pytest.approx(1978.9 / 989.4, rel=1e-4)
    assert checks.fp8_over_bf16("H100-SXM") == accuracy.dtype_basis("H100-SXM", "fp8")
    for bad in ("A100-80GB", "TPU v5p"):  # no FP8 peak: refused by both
        with pytest.raises(ValueError, match="has no fp8 peak"):
            checks.fp8_over_bf16(bad)
    assert accuracy.mfu_band(0.3, "H100-SXM", 8, dtype="fp8").mfu_bf16_basis == \
        pytest.approx(0.3 * accuracy.dtype_basis("H100-SXM"), rel=1e-12)
