"""Whole-step FP8:BF16 speed ratios of published pairs (training/accuracy.fp8_bf16_pairs).

Sources: the validation table's rows that ran the same plan in BF16 and in FP8 —
pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md (Llama 3.1 8B, FSDP2 +
torch.compile, 8 and 128 H100s, with and without Float8: 6,667 vs 8,532 tokens/s per GPU on 8)
and mosaicml/llm-foundry's H100 throughput tables (MPT 1B and 3B, BF16 and FP8 at 512 to 32k
tokens). Published ratios run 1.00-1.35, far from the 2x of the FP8 peak. The goal: the
predicted ratio within 10 % of each published one, with GEMMs by shape, FP8 as run (LM head
in BF16, casts priced with each source's recipe), the attention curve and Hopper's backward FP8
GEMMs without fast accumulation (gemm.FP8_SLOW_ACCUMULATION, on in every table here): met on
all seven (largest |error| 7.5 %, 7.0 % before FSDP2's copies were priced; 9.7 % and the MPT 3B pairs the worst before that term).
"""

import pytest

from llmcost.training import accuracy


@pytest.fixture(scope="module")
def tables():
    return {"off": accuracy.validation_table(False, False, False),
            "on": accuracy.validation_table(gemm_shape=True, fp8_as_run=True,
                                            attention_curve=True)}


def test_published_pairs_are_found(tables):
    p = accuracy.fp8_bf16_pairs(tables["off"])
    assert len(p) >= 7
    tt = p.set_index("run_id_bf16").loc["torchtitan-h100-8b-8gpu-1-fsdp-compile"]
    assert tt["published"] == pytest.approx(8532 / 6667, rel=1e-3)
    assert p["published"].between(0.95, 1.40).all()


def test_ratios_within_ten_percent_with_the_fp8_mechanisms(tables):
    off = accuracy.fp8_bf16_pairs(tables["off"])
    on = accuracy.fp8_bf16_pairs(tables["on"])
    # the flat engine (2x the GEMM rate, no casts) overstates the ratio on every pair, by up
    # to a fifth (MPT 3B at 512 tokens; the torchtitan pairs by 9-10 % since FSDP2's copies,
    # StepOptions.fsdp_copies, add the same memory-bound time to both runs of a pair) ...
    assert (off["error"] > 0).all() and off["error"].max() > 0.15
    # ... the mechanisms bring every pair closer, all seven within the 10 % goal
    assert (on["error"].abs() < off["error"].abs()).all()
    assert (on["error"].abs() < 0.10).all()


def test_pairs_refuse_a_table_without_its_columns():
    import pandas as pd
    with pytest.raises(ValueError, match="validation lacks"):
        accuracy.fp8_bf16_pairs(pd.DataFrame({"run_id": []}))
