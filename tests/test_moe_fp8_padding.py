"""The grouped MLP's explicit FP8 padding as a reading (``moe_layer.fp8_padding_cost_s``,
``step_validation.fp8_padding_reading``), checked by hand against its sources.

Sources:
* NVIDIA/Megatron-LM megatron/core/transformer/moe/experts.py at 0d8e0714cd29 (the
  Megatron-Bridge 25.11 pin): ``TEGroupedMLP`` builds ``Fp8Padding(self.num_local_experts)`` and
  ``Fp8Unpadding`` whenever ``config.fp8``, and its forward pads the permuted hidden states and
  the permuted probs; the fc2 output is unpadded.
* NVIDIA/TransformerEngine transformer_engine/pytorch/module/fp8_padding.py at v2.9: one
  ``tex.fused_multi_row_padding`` call over all splits, returned unchanged when every split is
  already a multiple of the alignment (16, 32 under MXFP8).
* Megatron-Core token_dispatcher.py at 0d8e0714cd29: ``_HybridEPManager.dispatch`` sets
  ``pad_multiple = get_fp8_align_size(...)`` under FP8 (HybridEP pads in its kernel).
* Qwen3-30B-A3B: hidden 2048, 128 experts, top-8, 48 MoE layers (Hugging Face config.json).
* H100 SXM HBM3 3.35 TB/s (NVIDIA H100 datasheet); Megatron-Bridge 25.11 table, DGX-H100:
  Qwen3_30B_a3B 16 GPUs FP8-CS GBS 512, 5275 tokens/s/GPU (docs/performance-summary.md at
  5776a6d90); the recipe ran MBS 1, PP 2 (validation_mfu.csv row note).
"""

import pytest

from llmcost.training import moe_layer, step_validation


def test_cost_by_hand_h100_qwen3():
    # The host part is the engine's fitted time per call (MOE_EXPERT_HOST_S / 10 calls per
    # local expert) times the 6 calls the sources list: taken from the constant, not re-derived.
    # The memory part by hand: 4 passes x (read + write) x 2 bytes x 32768 routed tokens
    # (MBS 1 x 4096 x top-8) x 2048 = 1.074 GB at 3.35 TB/s = 0.3205 ms.
    host = 6 * moe_layer.MOE_EXPERT_HOST_S / 10
    got = float(moe_layer.fp8_padding_cost_s(32768, 2048, 3.35e12))
    assert got - host == pytest.approx(0.3205e-3, rel=2e-3)


def test_bytes_scale_with_tokens_host_does_not():
    one = float(moe_layer.fp8_padding_cost_s(1000, 2048, 3.35e12))
    two = float(moe_layer.fp8_padding_cost_s(2000, 2048, 3.35e12))
    host = 6 * moe_layer.MOE_EXPERT_HOST_S / 10
    assert two - host == pytest.approx(2 * (one - host), rel=1e-9)


@pytest.mark.parametrize("kw", [{"routed_tokens": 0}, {"d_model": -1},
                                {"hbm_bytes_per_s": 0}])
def test_bad_input_names_field(kw):
    args = {"routed_tokens": 100, "d_model": 2048, "hbm_bytes_per_s": 3.35e12, **kw}
    with pytest.raises(ValueError, match=next(iter(kw))):
        moe_layer.fp8_padding_cost_s(**args)


@pytest.fixture(scope="module")
def reading():
    return step_validation.fp8_padding_reading()


def test_worst_h100_row_by_hand(reading):
    r = reading.loc["mb2511-h100-qwen3-30b-a3b-fp8cs"]
    # published step 512 x 4096 / (16 x 5275) = 24.85 s; MoE layer-micro-batches on the busiest
    # stage: 48 / PP 2 = 24 layers x GBS 512 / (MBS 1 x DP 8) = 64 micro-batches = 1536
    published = 512 * 4096 / (16 * 5275)
    assert r["routed_tokens"] == 1 * 4096 * 8
    assert r["added_s"] == pytest.approx(1536 * r["pad_ms"] * 1e-3, rel=1e-9)
    priced = published / (1 + r["error"])
    assert r["error_with"] == pytest.approx(published / (priced + r["added_s"]) - 1, rel=1e-6)
    # the padding moves the row toward the table but leaves most of its gap
    assert 0.0 < r["error"] - r["error_with"] < 0.10
    assert r["pad_ms"] < 0.2 * r["gap_ms"]


def test_aligned_rows_do_not_move(reading):
    # HybridEP (26.04 H100) and 25.09's capacity-padded rows: Fp8Padding returns its input
    for run_id in ("mb2604-h100-qwen3-30b-a3b-fp8cs", "mb2509-b200-qwen3-30b-a3b-fp8",
                   "mb2511-gb200-qwen3-30b-a3b-fp8mx"):
        r = reading.loc[run_id]
        assert not r["pads"] and r["added_s"] == 0.0
        assert r["error_with"] == pytest.approx(r["error"], abs=1e-9)


def test_graphed_rows_from_the_25_09_yaml():
    # qwen3_30b_a3b_llm_pretrain.yaml @ fa0315ae2: gb200 / b200 common cuda_graphs true, h100
    # false; deepseek_v3_llm_pretrain.yaml: b200 fp8_cs cuda_graphs true, gb200 common false;
    # qwen3_235b_a22b_llm_pretrain.yaml: b200 common false
    rows = step_validation.LAYER_GRAPHED_FP8CS_ROWS
    assert rows == {"mb2509-gb200-qwen3-30b-a3b-fp8", "mb2509-b200-qwen3-30b-a3b-fp8",
                    "mb2509-b200-deepseek-v3-fp8"}
    cfg = step_validation.validation_configs().set_index("run_id")
    assert (cfg.loc[sorted(rows), "split"] == "held-out").all()


def test_eager_only_candidate_spares_graphed_rows():
    from llmcost.training import accuracy
    off, on = (t.set_index("run_id") for t in accuracy.fp8cs_eager_launch_table())
    full = accuracy.validation_table(fp8cs_expert_launches=True).set_index("run_id")
    eager = "mb2511-h100-qwen3-30b-a3b-fp8cs"
    # an eager FP8-CS row is priced as the switch prices it; a spared one is not
    assert on.loc[eager, "error"] == pytest.approx(full.loc[eager, "error"], abs=1e-12)
    for run_id in step_validation.LAYER_GRAPHED_FP8CS_ROWS:
        assert on.loc[run_id, "step_time_s"] < full.loc[run_id, "step_time_s"]
    # dense and BF16 rows do not move beyond the re-fit: the A100 Megatron rows not at all
    a100 = off.index[off["set"] == "megatron21-table1"]
    assert (on.loc[a100, "error"] - off.loc[a100, "error"]).abs().max() < 1e-12
