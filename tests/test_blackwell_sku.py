"""GB200 against B200: the same die, the same sustained GEMM rate (data/efficiency.csv).

Sources: NVIDIA GB200 NVL72 and HGX B200 datasheets (dense BF16 2.5 vs 2.25 PFLOPS, +11%);
stas00/ml-engineering MAMF table (B200 SXM BF16: 1,745 TFLOPS measured); NVIDIA-NeMo/
Megatron-Bridge performance-summary.md 25.11: Llama 3 8B FP8-CS, 8 GPUs, GBS 128, MBS 2,
sequence 8192, same plan: GB200 31,508, B200 30,624 tokens/s/GPU (+2.9%).
"""

import pytest

import llmcost
from llmcost.training import step


def test_gb200_is_priced_at_the_b200_measured_gemm_rate():
    gb, b = llmcost.load_efficiency("GB200-NVL72"), llmcost.load_efficiency("B200")
    gb_peak = llmcost.load_accelerator("GB200-NVL72").peak_flops_per_s("bf16")
    b_peak = llmcost.load_accelerator("B200").peak_flops_per_s("bf16")
    assert gb_peak / b_peak == pytest.approx(2.5 / 2.25)
    # 1,745 TFLOPS both
    assert gb.matmul_fraction * gb_peak == pytest.approx(1745e12, rel=0.002)
    assert b.matmul_fraction * b_peak == pytest.approx(1745e12, rel=0.002)


def test_dense_pair_ratio_matches_the_published_one():
    v = step.mfu_validation(sets=("megatron-bridge-2511",)).set_index("run_id")
    gb, b = "mb2511-gb200-llama-3.1-8b-fp8cs", "mb2511-b200-llama-3.1-8b-fp8cs"
    published = 31508 / 30624
    predicted = published * (1 + v.loc[gb, "error"]) / (1 + v.loc[b, "error"])
    assert predicted == pytest.approx(published, abs=0.03)     # +4.0% predicted (+11% before), +2.9% run


def test_gb300_in_the_catalogue_with_its_datasheet_figures():
    # Verda's per-GPU table (dense) and Lockwood's GB300 NVL72 figures
    g = llmcost.load_accelerator("GB300-NVL72")
    assert g.peak_flops_per_s("bf16") == pytest.approx(2.5e15)
    assert g.peak_flops_per_s("fp8") == pytest.approx(360e15 / 72)
    assert g.peak_flops_per_s("fp4") == pytest.approx(15e15)
    assert g.hbm_bytes_per_s == pytest.approx(576e12 / 72)
    assert g.hbm_bytes / 2 ** 30 == pytest.approx(279)
    assert g.scaleup_domain_size == 72 and g.scaleup_bytes_per_s_per_dir == pytest.approx(900e9)
    assert g.scaleout_bytes_per_s_per_dir == pytest.approx(800e9 / 8)    # ConnectX-8
    assert g.tdp_w == 1400
    # more memory than GB200 (186 GiB), same BF16 peak
    gb = llmcost.load_accelerator("GB200-NVL72")
    assert g.hbm_bytes / gb.hbm_bytes == pytest.approx(279 / 186)
    assert g.peak_flops_per_s("bf16") == gb.peak_flops_per_s("bf16")
    assert llmcost.load_efficiency("GB300-NVL72").accelerator == "GB300-NVL72"


def test_a_step_on_gb300():
    spec = llmcost.load_model("llama-3.1-8b")
    cl = llmcost.Cluster(llmcost.load_accelerator("GB300-NVL72"), 72)
    plan = llmcost.make_plan(spec, 72, 72, tp=1, pp=1, micro_batch_size=1, seq_len=8192)
    b = step.step_time(spec, cl, plan, 8192)
    assert 0.3 < b.mfu < 0.8
