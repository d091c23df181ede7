"""The worst MoE rows' model and GPUs under the recipe that replaced theirs, and two readings of
small-expert mechanisms on those rows (``step_validation.later_h100_qwen3_checks``,
``overlap_host_cost_reading``, ``per_expert_launch_reading``).

Sources (NVIDIA-NeMo/Megatron-Bridge at 067f987df unless stated):
* docs/performance-summary-archive.md, DGX-H100, Qwen3_30B_a3B, 16 GPUs, FP8, GBS 1024, MBS 1,
  TP 1, PP 1, EP 16: 8,901 tokens/s/GPU ('26.04 NeMo Container'), 8,826 ('26.06'); the recipe
  (PR #2477, commit 4a6450755): EP 16, HybridEP, ``moe_a2a_overlap=False``.
* skills/nemo-mbridge-perf-expert-parallel-overlap/SKILL.md (PR #5094): the same model on 16
  H100 in BF16, EP 16, HybridEP, overlap off 24.7138 s, on 20.9920 s per step.
* PR #1760 (commit a6e92de5f): Qwen3-235B-A22B on 64 B200, BF16, PP 8 × VP 4, EP 8,
  ``moe_a2a_overlap`` True → False: 17.2 → 16.0 s per step, "due to CPU overhead".
* NVIDIA/TransformerEngine transformer_engine/common/include/transformer_engine/gemm.h at
  01effccad: grouped GEMMs on Hopper as one cuBLAS GEMM per matrix on 4 streams; the one-kernel
  grouped GEMM requires Blackwell.
* NVIDIA/TransformerEngine at v2.9: ``pytorch/csrc/extensions/cast.cpp``
  ``multi_tensor_quantize_impl`` ("Currently only have fused kernel for FP8 delayed scaling":
  other recipes quantize each expert's split on its own) and ``pytorch/csrc/quantizer.cpp``
  ``Float8CurrentScalingQuantizer::quantize_impl`` (amax, scale, cast: three kernels, where
  MXFP8's quantizer launches one).
"""

import pytest

from llmcost.training import gemm, moe_layer, step_validation

#: The published tokens/s/GPU of the later H100 FP8 runs (the archive's tables).
FP8_TOKENS = {"26.04 table, FP8-CS, EP 16, HybridEP": 8901,
              "26.06 table, FP8-CS, EP 16, HybridEP": 8826}


@pytest.fixture(scope="module")
def checks():
    return step_validation.later_h100_qwen3_checks()


def test_published_step_times_are_the_tables(checks):
    for label, tokens in FP8_TOKENS.items():
        assert checks.loc[label, "published_step_s"] == pytest.approx(
            1024 * 4096 / (16 * tokens))
    assert checks.loc["BF16, EP 16, HybridEP, no EP overlap", "published_step_s"] == 24.7138
    assert checks.loc["BF16, EP 16, HybridEP, EP overlap", "published_step_s"] == 20.9920


def test_the_later_fp8_recipe_is_priced_close(checks):
    # the worst rows' recipe is +43 % / +49 %; the recipe NVIDIA replaced it with, on the same
    # model and GPUs, within 15 % either way (-6 % as shipped)
    for label in FP8_TOKENS:
        assert -0.15 < checks.loc[label, "error"] < 0.15


def test_the_bf16_runs_are_within_the_stated_band(checks):
    # pessimistic: the engine's eager host cost (11 s of 32 s) against a GPU-active interval
    # union of 22.8 s in the 24.7 s step (the skill page): within 30 % either way
    for label in ("BF16, EP 16, HybridEP, no EP overlap", "BF16, EP 16, HybridEP, EP overlap"):
        assert -0.30 < checks.loc[label, "error"] < 0.30
        assert checks.loc[label, "moe_host_s"] > 24.7138 - 22.821


def test_the_ep_overlap_gain_matches_the_controlled_pair(checks):
    # published 24.7138 / 20.9920 = 1.177x from the overlap alone; the engine's within 10 %
    off = checks.loc["BF16, EP 16, HybridEP, no EP overlap"]
    on = checks.loc["BF16, EP 16, HybridEP, EP overlap"]
    published = off["published_step_s"] / on["published_step_s"]
    predicted = off["predicted_step_s"] / on["predicted_step_s"]
    assert published == pytest.approx(1.177, abs=0.001)
    assert predicted == pytest.approx(published, rel=0.10)


def test_overlap_host_cost_reading():
    r = step_validation.overlap_host_cost_reading()
    # by hand: (17.2 - 16.0 + the engine's hidden all-to-all, 1.5 s) over about 1,500 MoE
    # layer-micro-batches (12 layers x 128 micro-batches): about 1.8 ms
    assert 1.0e-3 < r["h_s"] < 3.0e-3
    # the rows it was read from (25.11, 26.02, 26.04 tables), optimistic (over 25 %: the GPT-OSS
    # rows +29 % / +32 % since the clamped activation's passes, elementwise.clamped_glu_bytes;
    # +39 % / +42 % before), and nearer with it
    first = ("mb2511-h100-qwen3-30b-a3b-fp8cs", "mb2602-h100-qwen3-30b-a3b-fp8cs",
             "mb2604-gb200-gpt-oss-120b-bf16", "mb260401-gb200-gpt-oss-120b-bf16")
    for run_id in first:
        before, after = r[run_id]
        assert before > 0.25 and 0.0 < after < before
    # the overlap rows added after it was read: the 26.04.01 tables' (DeepSeek-V3 on 256 B200,
    # PP 8 x VP 2, a calibration row) is pessimistic already and it moves it further, as it does
    # 25.11's Qwen3-235B-A22B on 256 H100 (a calibration row, +0.1% -> -4.6%): evidence against
    # it as an engine term (26.02.01's H100 Qwen3-30B-A3B row, once here, ran the PP 1 / EP 16
    # HybridEP recipe without the overlap: its notes); 25.11's Qwen3-235B-A22B on 64 B200
    # (held-out) it brings nearer (+12.6% -> -0.1%): mixed evidence, the reading stays one
    later = ("mb260401-b200-deepseek-v3-mxfp8", "mb2511-h100-qwen3-235b-a22b-fp8cs",
             "mb2511-b200-qwen3-235b-a22b-fp8mx")
    assert set(step_validation.EP_OVERLAP_OF_ROW) - set(first) == set(later)
    before, after = r["mb260401-b200-deepseek-v3-mxfp8"]
    assert after < before < 0
    before, after = r["mb2511-h100-qwen3-235b-a22b-fp8cs"]
    assert after < 0 < before < -after
    before, after = r["mb2511-b200-qwen3-235b-a22b-fp8mx"]
    assert 0.10 < before and abs(after) < 0.01
    # the H100 controlled pair (overlap helped 3.7 s) comes out worse with it: why it is a
    # reading and not an engine term
    before, after = r["h100 bf16 ep16 overlap check"]
    assert after < before < 0


def test_per_expert_launch_reading_by_hand():
    # 16 local experts on 4 streams: 3 extra fixed costs per grouped GEMM, 6 grouped GEMMs per
    # MoE layer and micro-batch, t0 = 6.25 us, 24 layers x 64 micro-batches
    t0 = gemm.GEMM_SHAPE[("hopper", "fp8")].t0_s
    got = step_validation.per_expert_launch_reading("mb2511-h100-qwen3-30b-a3b-fp8cs")
    assert got == pytest.approx(6 * 3 * t0 * 24 * 64, rel=0.01)
    # small against the row's gap: published 24.85 s, priced 17.4 s
    assert got < 0.05 * 24.85


def test_fp8cs_quantize_launch_reading_by_hand():
    # 2 extra kernels (amax, scale) x 4 expert tensors (fc1 / fc2 inputs, their output
    # gradients) = 8 launches per local expert per MoE layer and micro-batch, each at the engine's
    # MOE_EXPERT_HOST_S / 18: the per-expert host constant x (1 + 8/18)
    assert step_validation.FP8CS_EXTRA_LAUNCHES_PER_TENSOR \
        * step_validation.EXPERT_QUANTIZED_TENSORS == 8
    r = step_validation.fp8cs_quantize_launch_reading()
    b = moe_layer.MOE_EXPERT_HOST_S
    # mb2602-h100-qwen3-30b-a3b-fp8cs: 16 local experts, 24 MoE layers x 128 micro-batches on
    # the busiest stage, 3 passes / 3: 8/10 x b x 16 x 24 x 128 added to its step
    row = r.loc["mb2602-h100-qwen3-30b-a3b-fp8cs"]
    assert row["local_experts"] == 16
    assert row["extra_s"] == pytest.approx(8 / 10 * b * 16 * 24 * 128, rel=0.01)
    # it brings the two worst rows' error below 30 % (published step 51.3 s against 35.5 +
    # 11.0 s) ...
    for run_id in ("mb2511-h100-qwen3-30b-a3b-fp8cs", "mb2602-h100-qwen3-30b-a3b-fp8cs"):
        assert r.loc[run_id, "error"] > 0.35 and 0.0 < r.loc[run_id, "error_with"] < 0.30
    # ... but moves every FP8-CS calibration row further away (each pessimistic already, or, 25.11's
    # Qwen3-235B-A22B on 256 H100, at +0.1%: to -5.6%): a reading, not an engine term
    cal = r[r["split"] == "calibration"]
    assert len(cal) >= 3
    assert (cal["error_with"] < cal["error"]).all() and (cal["error"] < 0.01).all()
    assert (cal["error_with"].abs() > cal["error"].abs()).all()
    # only FP8 current-scaling MoE rows on eager stacks (no MXFP8, BF16 or graphed rows)
    assert not any(k.endswith(("fp8mx", "mxfp8", "bf16")) for k in r.index)
