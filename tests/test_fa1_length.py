"""The FlashAttention-1 length curve (``StepOptions.fa1_length``, a candidate off by default):
the flat FlashAttention-1 fraction scaled by sequence length as FlashAttention-1's measured
forward + backward bars rise with it, anchored at a length fitted on the calibration rows.

Sources: Dao 2023, FlashAttention-2, arXiv:2307.08691, Fig. 4(d) (A100 80GB SXM4, causal, head
dimension 128: FlashAttention-1 55, 62, 69, 76, 80, 83 TFLOP/s at 512 to 16k tokens) and Fig. 7(d)
(H100 SXM5: 98, 109, 108, 126, 135, 137); llm-foundry's 2023-10 benchmark ran the Triton kernel
(mosaicml/llm-foundry@b2a43a147 scripts/train/benchmarking/submit_benchmarks.py:
``parser.add_argument('--attn_impl', type=str, default='triton')``, sweep.sh passes none).
"""

import pytest

from llmcost.training import accuracy, attention, step_validation
from llmcost.training.options import StepOptions


def test_the_bars_are_the_papers():
    assert tuple(attention.FA1_LENGTH_BARS["A100-80GB"].values()) == (55, 62, 69, 76, 80, 83)
    assert tuple(attention.FA1_LENGTH_BARS["H100-SXM"].values()) == (98, 109, 108, 126, 135, 137)
    assert attention.FA1_LENGTH_BARS["H100-96GB-500W"] is attention.FA1_LENGTH_BARS["H100-SXM"]


def test_length_factor_by_hand():
    # the anchor 2^11.5 sits halfway (in log2) between the 2k and 4k bars: A100 (69 + 76) / 2 =
    # 72.5, H100 (108 + 126) / 2 = 117; beyond 16k the 16k bar holds, below 512 the 512 bar
    a = 2.0 ** 11.5
    f = attention.fa1_length_factor
    assert float(f("A100-80GB", 16384, a)) == pytest.approx(83 / 72.5, rel=1e-12)
    assert float(f("A100-80GB", 65536, a)) == pytest.approx(83 / 72.5, rel=1e-12)
    assert float(f("A100-80GB", 512, a)) == pytest.approx(55 / 72.5, rel=1e-12)
    assert float(f("A100-80GB", 256, a)) == pytest.approx(55 / 72.5, rel=1e-12)
    assert float(f("H100-SXM", 65536, a)) == pytest.approx(137 / 117, rel=1e-12)
    assert float(f("H100-SXM", a, a)) == pytest.approx(1.0, rel=1e-12)
    assert f("B200", 4096, a) is None and attention.fa1_length_curve("MI300X", 0.3) is None
    with pytest.raises(ValueError, match="seq_len"):
        f("A100-80GB", 0, a)
    with pytest.raises(ValueError, match="anchor"):
        f("A100-80GB", 4096, -1.0)


def test_anchor_is_the_calibration_fit():
    anchor, fit, flat = accuracy.fa1_anchor_fit()
    assert attention.FA1_LENGTH_ANCHOR == anchor == 2.0 ** 11.5
    assert fit < flat


def test_option_checks_and_default():
    assert StepOptions().fa1_length is False
    StepOptions(fa1_length=True)
    StepOptions(fa1_length=4096.0)
    for bad in (-1.0, 0, "long", float("nan")):
        with pytest.raises(ValueError, match="fa1_length"):
            StepOptions(fa1_length=bad)


def test_the_64k_row_attention_time_by_hand():
    # MPT-7B at 65,536 tokens on 8 A100 (foundry-a100-mpt-7b-s65536-8gpu-bf16): with the curve
    # the attention core runs at 83 / 72.5 of the flat rate, forward and backward alike, so its
    # time is 72.5 / 83 of the flat one; the GEMMs do not move
    rid = "foundry-a100-mpt-7b-s65536-8gpu-bf16"
    sets = ("llm-foundry-mpt",)
    off = step_validation.mfu_validation(sets=sets).set_index("run_id").loc[rid]
    on = step_validation.mfu_validation(sets=sets, physics={"fa1_length": True}).set_index(
        "run_id").loc[rid]
    assert on["attention_s"] / off["attention_s"] == pytest.approx(72.5 / 83, rel=1e-9)
    assert on["matmul_s"] == pytest.approx(off["matmul_s"], rel=1e-12)
    assert on["step_time_s"] < off["step_time_s"]


def test_only_the_flashattention_1_stack_moves():
    off = accuracy.validation_table().set_index("run_id")
    on = accuracy.fa1_length_table().set_index("run_id")
    moved = on.index[(on["error"] - off.loc[on.index, "error"]).abs() > 1e-12]
    assert len(moved) > 0
    assert set(on.loc[moved, "stack"]) == {"llm-foundry-2023"}
    assert set(moved) <= set(on.index[on["set"] == "llm-foundry-mpt"])


@pytest.mark.parametrize("split", ["held-out", "calibration"])
def test_the_candidate_passes_the_rule(split):
    _, verdict = accuracy.fa1_length_comparison(split)
    assert verdict["passes"] and verdict["worse"] == 0
    assert verdict["all_mean"][1] < verdict["all_mean"][0]
    with pytest.raises(ValueError, match="split"):
        accuracy.fa1_length_comparison("test")
