"""Notebook 01's lesson figures against their sources: DeepSeek-V3's reported H800
GPU-hours in FP8, the matmul ceiling, and the exercises on the teaching accelerator."""

import pytest

import llmcost

# DeepSeek-AI 2024, DeepSeek-V3 Technical Report (arXiv:2412.19437), Table 1: pre-training
# 2,664K H800 GPU-hours for 14.8T tokens; "180K H800 GPU hours per trillion tokens".
V3_TOKENS, V3_HOURS = 14.8e12, 2_664_000


def test_deepseek_v3_reported_hours_are_180k_per_trillion_tokens():
    assert V3_HOURS / (V3_TOKENS / 1e12) == pytest.approx(180_000, rel=0.001)


def test_deepseek_v3_whole_run_mfu_in_fp8_and_bf16():
    v3, h800 = llmcost.load_model("deepseek-v3"), llmcost.load_accelerator("H800")
    # Hand derivation: 6 · 37e9 (the report's active parameters) · 14.8e12 = 3.286e24 FLOP;
    # H800 dense peaks (NVIDIA Hopper datasheet, same SMs as H100 SXM): BF16 989.4, FP8 1,978.9
    # TFLOP/s. BF16: 3.286e24 / (2.664e6 · 3600 · 989.4e12) = 0.346; FP8: half, 0.173. The
    # catalogue's architecture count of active parameters is 37.55B (1.5% more): band ±3%.
    bf16 = llmcost.mfu_from_gpu_hours(V3_TOKENS, V3_HOURS, v3, h800, dtype="bf16", method="6ND")
    fp8 = llmcost.mfu_from_gpu_hours(V3_TOKENS, V3_HOURS, v3, h800, dtype="fp8", method="6ND")
    assert bf16 == pytest.approx(0.346, rel=0.03)
    assert fp8 == pytest.approx(0.173, rel=0.03)
    assert bf16 / fp8 == pytest.approx(2.0, rel=1e-3)  # FP8 peak = 2 × BF16 on Hopper
    # The MFU basis (full-mask attention at 4K context) adds the attention core: higher MFU.
    assert llmcost.mfu_from_gpu_hours(V3_TOKENS, V3_HOURS, v3, h800, dtype="fp8") > fp8


def test_matmul_ceiling_is_about_80_percent_on_hopper():
    # stas00/ml-engineering "maximum achievable matmul FLOPS" table (data/efficiency.csv): H100
    # SXM BF16 about 792 of 989 TFLOP/s.
    assert llmcost.load_efficiency("H100-SXM").matmul_fraction == pytest.approx(0.80, abs=0.02)


def test_exercises_on_the_teaching_accelerator():
    teach = llmcost.load_accelerator("Teaching-1PF")
    assert teach.peak_flops_per_s("bf16") == 1e15
    # Exercise 1 by hand: C = 6 · 1e10 · 2e11 = 1.2e22; 1.2e22 / (1e15 · 0.4) / 3600 = 8,333.3 h.
    c = llmcost.training_flops(10e9, 200e9)
    assert c == pytest.approx(1.2e22)
    h = llmcost.gpu_hours(c, teach, 0.4)
    assert h == pytest.approx(8333.33, rel=1e-4)
    assert llmcost.compute_cost_usd(h, 2.0) == pytest.approx(16_666.7, rel=1e-4)
    # Exercise 2: hours go as 1/MFU, 0.4/0.5 = 0.8.
    assert llmcost.gpu_hours(c, teach, 0.5) / h == pytest.approx(0.8)


def test_mfu_slider_stops_at_the_matmul_ceiling():
    # notebook 01's MFU slider ends at the accelerator's measured matmul ceiling (H100 0.801,
    # stas00 MAMF, data/efficiency.csv), not at 1.0; a larger scenario MFU starts at the ceiling
    pytest.importorskip("ipywidgets")
    from llmcost.present.widgets import flops_explorer, mfu_slider_max

    assert mfu_slider_max("H100-SXM") == 0.80
    box = flops_explorer("llama-2-70b", "H100-SXM", 2e12, 0.95, 2048, 2.0)
    slider = box.children[1].children[1]
    assert slider.description == "MFU" and slider.max == 0.80 and slider.value == 0.80
