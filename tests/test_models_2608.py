"""The catalogue's GPT-OSS 120B and Qwen3-235B-A22B, and the Megatron-Bridge 26.08 MoE rows
that use them (data/published_runs.csv, data/validation_mfu.csv: sources per row)."""

import pytest

import llmcost

ROWS_2608 = ("mb2608-gb300-gpt-oss-120b-mxfp8", "mb2608-gb200-gpt-oss-120b-mxfp8",
             "mb2608-gb300-qwen3-235b-a22b-mxfp8", "mb2608-gb200-qwen3-235b-a22b-mxfp8",
             "mb2608-gb300-deepseek-v3-mxfp8", "mb2608-gb200-deepseek-v3-mxfp8")


def test_gpt_oss_120b_matches_its_model_card():
    # OpenAI 2025, gpt-oss model card (arXiv:2508.10925) Table 1: gpt-oss-120b has 116.83B
    # parameters, 5.13B active per token without the embedding; 36 layers, half of them on a
    # 128-token window.
    m = llmcost.load_model("gpt-oss-120b")
    assert m.n_params == pytest.approx(116.83e9, abs=0.005e9)
    assert m.n_active_params - m.param_breakdown["embedding"] == pytest.approx(5.13e9,
                                                                              abs=0.005e9)
    assert (m.n_layers, m.n_sliding_layers, m.sliding_window) == (36, 18, 128)


def test_qwen3_235b_matches_its_model_card():
    # Qwen3 Technical Report (arXiv:2505.09388) Table 2 and model card: 235B total, 22B
    # activated (rounded to the billion).
    m = llmcost.load_model("qwen3-235b-a22b")
    assert m.n_params == pytest.approx(235e9, abs=0.5e9)
    assert m.n_active_params == pytest.approx(22e9, abs=0.5e9)


@pytest.mark.parametrize("run_id", ROWS_2608)
def test_nvidias_flop_count_is_the_causal_count(run_id):
    # NVIDIA's model TFLOP/s ÷ tokens/s (the 26.08 performance summary) is its FLOPs per
    # token; the catalogue's causal-mask count (DeepSeek-V3 with its MTP module, which the
    # recipe's pipeline layout holds) agrees within 0.5% for all six rows: GPT-OSS's window,
    # Qwen3's 94 layers and the MTP module are counted as NVIDIA counts them.
    r = llmcost.load_published_runs().set_index("run_id").loc[run_id]
    nvidia = r["reported_tflops_per_gpu"] * 1e12 / r["reported_tokens_per_sec_per_gpu"]
    m = llmcost.load_model(r["catalog_model"])
    assert nvidia == pytest.approx(float(m.flops_per_token(int(r["seq_len"]))), rel=0.005)
    if m.mtp_depth:   # without the module the count is 3.8% short: the runs used MTP
        assert nvidia > 1.03 * float(m.replace(mtp_depth=0).flops_per_token(int(r["seq_len"])))
