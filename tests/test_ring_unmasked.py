"""A context-parallel ring's calls without a mask at the kernel's unmasked rate
(``StepOptions.ring_unmasked``, ``attention.mask_rate_ratio``, ``attention.ring_unmasked_factors``).

Sources: NVIDIA/cudnn-frontend ``benchmark/benchmark_results.csv`` @ b740542 (2024-05-07; cuDNN
9.1.0 and PyTorch SDPA's FlashAttention-2, BF16, head dimension 128, H100-class GPU, TFLOP/s
with the causal call's FLOPs halved), transcribed in ``data/attention_kernel_checks.csv``; the
rings' code (Transformer Engine v1.4 ``AttnFuncWithCP``, PyTorch's ``_templated_ring_attention``
@ 0123248a4): step 0 causal, the other ``cp - 1`` steps without a mask; NVIDIA's NeMo 24.03
long-sequence table (NVIDIA/NeMo@35029a0c84 ``performance_summary.md``, the validation rows).
"""

import numpy as np
import pytest

from llmcost import StepOptions
from llmcost.training import accuracy, attention

# NVIDIA's measurement (benchmark_results.csv @ b740542), TFLOP/s, head dimension 128:
# (kernel, pass, seq_len) -> (causal, unmasked)
NVIDIA = {
    ("cudnn", "forward", 4096): (542.3, 654.2),
    ("cudnn", "forward", 16384): (586.8, 641.9),
    ("cudnn", "forward", 32768): (577.3, 612.6),
    ("cudnn", "forward", 65536): (567.0, 602.2),
    ("fa2", "forward", 32768): (345.3, 349.2),
}


@pytest.mark.parametrize("key", sorted(NVIDIA), ids=lambda k: f"{k[0]}-{k[1]}-{k[2]}")
def test_ratio_is_nvidias_measurement_at_its_lengths(key):
    kernel, pass_, s = key
    causal, unmasked = NVIDIA[key]
    assert float(attention.mask_rate_ratio(kernel, pass_, s)) == pytest.approx(
        causal / unmasked, rel=1e-9)


def test_ratio_between_and_beyond_the_measured_lengths():
    # linear in log2(s) between 16k and 32k; the end values beyond 4k..64k
    mid = float(attention.mask_rate_ratio("cudnn", "forward", 2 ** 14.5))
    r16, r32 = 586.8 / 641.9, 577.3 / 612.6
    assert mid == pytest.approx((r16 + r32) / 2, rel=1e-9)
    assert float(attention.mask_rate_ratio("cudnn", "forward", 1024)) == pytest.approx(
        542.3 / 654.2, rel=1e-9)
    assert float(attention.mask_rate_ratio("cudnn", "forward", 2 ** 20)) == pytest.approx(
        567.0 / 602.2, rel=1e-9)


def test_factors_by_hand():
    # CP 4 at 32k per rank on cuDNN: a quarter of the FLOPs in the causal call, three quarters
    # unmasked at 577.3 / 612.6 of the causal call's time per FLOP
    f, _ = attention.ring_unmasked_factors("cudnn", 32768, 4)
    assert float(f) == pytest.approx(0.25 + 0.75 * 577.3 / 612.6, rel=1e-9)
    # the ring's time falls with CP toward the unmasked ratio, never below it
    fs = [float(attention.ring_unmasked_factors("cudnn", 32768, cp)[0]) for cp in (2, 8, 32)]
    assert fs[0] > fs[1] > fs[2] > 577.3 / 612.6
    # one rank, one causal call
    assert tuple(map(float, attention.ring_unmasked_factors("fa2", 32768, 1))) == (1.0, 1.0)


def test_bad_input_names_the_field():
    with pytest.raises(ValueError, match="kernel='fa3'"):
        attention.mask_rate_ratio("fa3", "forward", 4096)
    with pytest.raises(ValueError, match="pass_='both'"):
        attention.mask_rate_ratio("cudnn", "both", 4096)
    with pytest.raises(ValueError, match="seq_len"):
        attention.mask_rate_ratio("cudnn", "forward", 0)
    with pytest.raises(ValueError, match="cp"):
        attention.ring_unmasked_factors("cudnn", 4096, 0.5)
    with pytest.raises(ValueError, match="ring_unmasked='yes'"):
        StepOptions(ring_unmasked="yes")
    with pytest.raises(ValueError, match="split='test'"):
        accuracy.ring_unmasked_comparison("test")


def test_which_kernel_prices_the_ring():
    # Transformer Engine's cuDNN kernel and PyTorch SDPA's FlashAttention-2 on Hopper; nothing
    # where the measurement does not reach (Ampere, FlashAttention-1) or when off
    on = StepOptions(stack="megatron-core-2024")
    assert on.resolve("H100-SXM").ring_unmasked == "cudnn"
    assert on.resolve("A100-80GB").ring_unmasked is None
    assert StepOptions(stack="pytorch-fsdp2-2024").resolve("H100-SXM").ring_unmasked == "fa2"
    assert StepOptions(stack="llm-foundry-2023").resolve("H100-SXM").ring_unmasked is None
    assert on.replace(ring_unmasked=False).resolve("H100-SXM").ring_unmasked is None


@pytest.fixture(scope="module")
def tables():
    off = accuracy.validation_table(ring_unmasked=False).set_index("run_id")
    on = accuracy.validation_table().set_index("run_id")
    return off, on


def test_attention_time_scales_by_the_factor(tables):
    # NeMo's 1M-token row, CP 32 at 32k per rank, no recomputation: the attention core's time
    # (forward + 2.5 x forward) falls by (u_f + 2.5 u_b) / 3.5
    off, on = tables
    rid = "nemo2403-h100-llama2-7b-1024k-cp32"
    u_f, u_b = (float(x) for x in attention.ring_unmasked_factors("cudnn", 32768, 32))
    assert on.loc[rid, "attention_s"] / off.loc[rid, "attention_s"] == pytest.approx(
        (u_f + 2.5 * u_b) / 3.5, rel=1e-9)


def test_nemo_rows_move_toward_published(tables):
    # NVIDIA's NeMo 24.03 long-sequence rows (Transformer Engine's ring, CP 2 to 32) were
    # priced pessimistic, more so with CP: each moves toward its published throughput
    off, on = tables
    rows = [r for r in on.index if r.startswith("nemo2403-h100-llama2-7b") and on.loc[r, "cp"] > 1]
    assert len(rows) == 6
    for r in rows:
        assert off.loc[r, "error"] < on.loc[r, "error"] < 0, r


def test_rows_without_a_ring_keep_their_price(tables):
    # no CP, or Llama 3's all-gather: unchanged (MoE rows aside, whose host cost is re-fitted
    # under each setting to within its optimiser's tolerance)
    off, on = tables
    keep = on.index[((on["cp"] == 1) | on["set"].str.startswith("llama3")) & ~on["is_moe"]]
    assert len(keep) > 100
    assert np.allclose(on.loc[keep, "predicted_mfu"], off.loc[keep, "predicted_mfu"], rtol=1e-12)


@pytest.mark.parametrize("split", ["held-out", "calibration"])
def test_on_by_the_rule(split):
    # on by default because it passes mechanism_comparison's rule on both splits: the mean
    # falls, no regime worse beyond its noise, the A100 Megatron goal kept
    per, verdict = accuracy.ring_unmasked_comparison(split)
    assert verdict["passes"], verdict
    assert verdict["all_mean"][1] < verdict["all_mean"][0]
    assert StepOptions().ring_unmasked is True
