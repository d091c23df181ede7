"""The FlashAttention-1 length curve (``StepOptions.fa1_length``, on by default): the flat
FlashAttention-1 fraction scaled by sequence length as FlashAttention-1's measured forward +
backward bars at the row's own head dimension rise with it, anchored at a length fitted on the
calibration rows.

Sources: Dao 2023, FlashAttention-2, arXiv:2307.08691, causal mask, forward + backward,
FlashAttention-1's bars at 512 to 16k tokens (the figures as drawn in Dao-AILab/flash-attention
@4f285b35 assets/flash2_a100_fwd_bwd_benchmark.png and flash2_h100_fwd_bwd_benchmark.png):
Fig. 4(c) A100 80GB SXM4, head dimension 64: 58, 70, 77, 87, 92, 97 TFLOP/s; Fig. 4(d) head
dimension 128: 55, 62, 69, 76, 80, 83; Fig. 7(c) H100 80GB SXM5, head dimension 64: 104, 123,
136, 138, 149, 156; Fig. 7(d) head dimension 128: 98, 109, 108, 126, 135, 137. llm-foundry's
2023-10 benchmark ran the Triton kernel (mosaicml/llm-foundry@b2a43a147
scripts/train/benchmarking/submit_benchmarks.py: ``parser.add_argument('--attn_impl', type=str,
default='triton')``, sweep.sh passes none).
"""

import pytest

from llmcost.training import accuracy, attention, step_validation
from llmcost.training.options import StepOptions


def test_the_bars_are_the_papers():
    bars = attention.FA1_LENGTH_BARS
    assert tuple(bars["A100-80GB"][64].values()) == (58, 70, 77, 87, 92, 97)
    assert tuple(bars["A100-80GB"][128].values()) == (55, 62, 69, 76, 80, 83)
    assert tuple(bars["H100-SXM"][64].values()) == (104, 123, 136, 138, 149, 156)
    assert tuple(bars["H100-SXM"][128].values()) == (98, 109, 108, 126, 135, 137)
    assert bars["A100-40GB"] == bars["A100-80GB"]
    assert bars["H100-96GB-500W"] == bars["H100-SXM"]
    for series in bars.values():
        for b in series.values():
            assert tuple(b) == (512, 1024, 2048, 4096, 8192, 16384)


def test_each_head_dimension_takes_the_nearer_measured_series():
    # nearer in log: 64 up to sqrt(64 * 128) = 90.5, 128 above (MPT-125m / 350m: 64; MPT-30B's
    # 7168 / 64 heads = 112 -> 128)
    b = attention.FA1_LENGTH_BARS["A100-80GB"]
    for hd, want in ((32, 64), (64, 64), (90, 64), (91, 128), (112, 128), (128, 128),
                     (256, 128)):
        assert attention.fa1_length_bars("A100-80GB", hd) is b[want], hd
    assert attention.fa1_length_bars("B200", 64) is None
    with pytest.raises(ValueError, match="head_dim"):
        attention.fa1_length_bars("A100-80GB", 0)


def test_length_factor_by_hand():
    # the anchor 2^11.75 sits three quarters (in log2) of the way from the 2k to the 4k bar:
    # A100 head dim 128 69 + 0.75 (76 - 69) = 74.25, head dim 64 77 + 0.75 (87 - 77) = 84.5;
    # H100 head dim 128 108 + 0.75 (126 - 108) = 121.5, head dim 64 136 + 0.75 (138 - 136) =
    # 137.5; beyond 16k the 16k bar holds, below 512 the 512 bar
    a = 2.0 ** 11.75
    f = attention.fa1_length_factor
    assert float(f("A100-80GB", 16384, 128, a)) == pytest.approx(83 / 74.25, rel=1e-12)
    assert float(f("A100-80GB", 65536, 128, a)) == pytest.approx(83 / 74.25, rel=1e-12)
    assert float(f("A100-80GB", 512, 128, a)) == pytest.approx(55 / 74.25, rel=1e-12)
    assert float(f("A100-80GB", 256, 128, a)) == pytest.approx(55 / 74.25, rel=1e-12)
    assert float(f("A100-80GB", 65536, 64, a)) == pytest.approx(97 / 84.5, rel=1e-12)
    assert float(f("A100-40GB", 1024, 64, a)) == pytest.approx(70 / 84.5, rel=1e-12)
    assert float(f("H100-SXM", 65536, 128, a)) == pytest.approx(137 / 121.5, rel=1e-12)
    assert float(f("H100-SXM", 65536, 64, a)) == pytest.approx(156 / 137.5, rel=1e-12)
    assert float(f("H100-SXM", a, 64, a)) == pytest.approx(1.0, rel=1e-12)
    assert f("B200", 4096, 128, a) is None and attention.fa1_length_curve("MI300X", 0.3) is None
    with pytest.raises(ValueError, match="seq_len"):
        f("A100-80GB", 0, 128, a)
    with pytest.raises(ValueError, match="anchor"):
        f("A100-80GB", 4096, 128, -1.0)


def test_anchor_is_the_calibration_fit():
    anchor, fit, flat = accuracy.fa1_anchor_fit()
    assert attention.FA1_LENGTH_ANCHOR == anchor == 2.0 ** 11.75
    assert fit < flat


def test_option_checks_and_default():
    assert StepOptions().fa1_length is True   # on: it passes the rule (below)
    StepOptions(fa1_length=True)
    StepOptions(fa1_length=4096.0)
    for bad in (-1.0, 0, "long", float("nan")):
        with pytest.raises(ValueError, match="fa1_length"):
            StepOptions(fa1_length=bad)


@pytest.mark.parametrize("rid, ratio", [
    # MPT-7B, d_model 4096, 32 heads: head dimension 128, the anchor's bar 74.25, the 16k bar 83
    ("foundry-a100-mpt-7b-s65536-8gpu-bf16", 74.25 / 83),
    # MPT-125M, d_model 768, 12 heads: head dimension 64, 84.5 and 97
    ("foundry-a100-mpt-125m-s65536-8gpu-bf16", 84.5 / 97),
])
def test_the_64k_rows_attention_time_by_hand(rid, ratio):
    # at 65,536 tokens on 8 A100 the attention core runs at (16k bar) / (anchor's bar) of the
    # flat rate, forward and backward alike, so its time is the inverse; the GEMMs do not move
    sets = ("llm-foundry-mpt",)
    off = step_validation.mfu_validation(sets=sets, physics={"fa1_length": False}).set_index(
        "run_id").loc[rid]
    on = step_validation.mfu_validation(sets=sets, physics={"fa1_length": True}).set_index(
        "run_id").loc[rid]
    assert on["attention_s"] / off["attention_s"] == pytest.approx(ratio, rel=1e-9)
    assert on["matmul_s"] == pytest.approx(off["matmul_s"], rel=1e-12)
    assert on["step_time_s"] < off["step_time_s"]


def test_only_the_flashattention_1_stack_moves():
    off = accuracy.fa1_length_table(False).set_index("run_id")
    on = accuracy.fa1_length_table(True).set_index("run_id")
    # the curve is the shipped setting: its table is validation_table()'s
    shipped = accuracy.validation_table().set_index("run_id")
    assert (on.loc[shipped.index, "error"] - shipped["error"]).abs().max() < 1e-12
    moved = on.index[(on["error"] - off.loc[on.index, "error"]).abs() > 1e-12]
    assert len(moved) > 0
    assert set(on.loc[moved, "stack"]) == {"llm-foundry-2023"}
    assert set(moved) <= set(on.index[on["set"] == "llm-foundry-mpt"])


@pytest.mark.parametrize("split", ["held-out", "calibration"])
def test_the_curve_passes_the_rule(split):
    _, verdict = accuracy.fa1_length_comparison(split)
    assert verdict["passes"] and verdict["worse"] == 0
    assert verdict["all_mean"][1] < verdict["all_mean"][0]
    with pytest.raises(ValueError, match="split"):
        accuracy.fa1_length_comparison("test")
