"""compute.py: the first ledger line, against the test vectors of the foundation issue and
the test vectors 1.a-1.k (tests/data/test_vectors.csv), and the published runs in
data/published_runs.csv."""

import numpy as np
import pytest

import llmcost
from llmcost import compute


def test_70b_on_2t_tokens_on_the_teaching_accelerator():
    teach = llmcost.load_accelerator("Teaching-1PF")
    assert teach.peak_bf16_flops_per_s == 1e15
    flops = llmcost.training_flops(70e9, 2e12)
    assert flops == pytest.approx(8.4e23, rel=1e-12)
    assert llmcost.gpu_seconds(flops, teach, 0.4) == pytest.approx(2.1e9, rel=1e-12)
    assert llmcost.gpu_hours(flops, teach, 0.4) == pytest.approx(583_333.33, rel=1e-6)


def test_raising_mfu_from_30_to_50_percent_cuts_gpu_hours_by_40_percent(h100):
    h30, h50 = llmcost.gpu_hours(1e24, h100, np.array([0.3, 0.5]))
    assert 1 - h50 / h30 == pytest.approx(0.40, abs=1e-12)
    assert h30 / h50 - 1 == pytest.approx(2 / 3)  # the reverse move costs 67% more


def test_llama3_405b_training_flops():
    # Llama 3 report §3.3: 3.8e25 FLOPs for 405B parameters on 15.6T tokens (paper rounding).
    assert llmcost.training_flops(405e9, 15.6e12) == pytest.approx(3.79e25, rel=1e-3)
    m = llmcost.load_model("llama-3.1-405b")
    assert llmcost.training_flops(m, 15.6e12) == pytest.approx(3.8e25, abs=0.05e25)


def test_palm_540b_mfu_from_throughput():
    # PaLM Table 3: 238.3K tokens/s on 6144 TPU v4 (275 TFLOP/s) -> MFU 46.2% (test vector 1.b).
    palm, tpu = llmcost.load_model("palm-540b"), llmcost.load_accelerator("TPU v4")
    mfu = llmcost.mfu_from_throughput(238.3e3 / 6144, palm, tpu, seq_len=2048, causal=False)
    assert mfu == pytest.approx(0.462, abs=0.0005)


def test_llama2_70b_implied_whole_run_mfu(a100):
    # 1,720,320 A100-80GB GPU-hours for 2T tokens (model card): 42.8% by 6ND.
    m = llmcost.load_model("llama-2-70b")
    assert llmcost.mfu_from_gpu_hours(2e12, 1_720_320, m, a100, method="6ND") == pytest.approx(
        0.428, abs=0.001)
    # On the MFU basis (attention over the full 4K×4K matrix): 6ND + 12·L·s·h·D =
    # 8.922e23 FLOPs, less the input-embedding lookup that 6ND counts but no matmul does (0.4%).
    basis = llmcost.mfu_from_gpu_hours(2e12, 1_720_320, m, a100)
    assert basis == pytest.approx(8.922e23 / (1_720_320 * 3600 * 312e12), rel=5e-3)
    causal = llmcost.mfu_from_gpu_hours(2e12, 1_720_320, m, a100, causal=True)
    assert 0.428 < causal < basis


def test_llama_65b_mfu_from_380_tokens_per_second(a100):
    # LLaMA §2.4: ~380 tokens/s/GPU on 2048 A100-80GB; 6·65.2e9·380/312e12 = 0.476.
    m = llmcost.load_model("llama-1-65b")
    assert llmcost.mfu_from_throughput(380, m, a100, method="6ND") == pytest.approx(0.476,
                                                                                    abs=0.002)


def test_throughput_and_mfu_are_inverse(h100):
    m = llmcost.load_model("llama-3.1-70b")
    tps = llmcost.tokens_per_s_per_gpu_at_mfu(0.4, m, h100, 8192)
    assert llmcost.mfu_from_throughput(tps, m, h100, 8192) == pytest.approx(0.4)
    tps6 = llmcost.tokens_per_s_per_gpu_at_mfu(0.4, m, h100, 8192, method="6ND")
    assert llmcost.mfu_from_throughput(tps6, m, h100, 8192, method="6ND") == pytest.approx(0.4)
    assert tps6 > tps  # 6ND counts fewer FLOPs per token, so the same MFU needs more tokens/s


def test_hfu_with_full_recompute_is_about_four_thirds():
    m = llmcost.load_model("gpt-3-175b")
    hfu = llmcost.hfu_from_mfu(0.4, m, 2048, recompute="full")
    assert hfu == pytest.approx(0.4 * 4 / 3, rel=0.01)
    assert llmcost.hfu_from_mfu(0.4, m, 2048, recompute="selective") > 0.4


def test_training_run_is_consistent_and_vectorised(h100):
    m = llmcost.load_model("llama-2-70b")
    mfu = np.array([0.3, 0.4, 0.5])
    run = llmcost.training_run(m, h100, 2e12, mfu, 2048, 3.99)
    assert run["gpu_hours"].shape == (3,)
    np.testing.assert_allclose(run["compute_cost_usd"], run["gpu_hours"] * 3.99)
    np.testing.assert_allclose(run["wall_clock_s"] * 2048 / 3600, run["gpu_hours"])
    np.testing.assert_allclose(run["gpu_hours"] * 3600 * 989.4e12 * mfu, run["model_flops"])
    # The MFU basis counts attention over the full matrix: 7.4% more than 6ND at 4K context
    # (+7.8% attention, -0.4% for the input embedding lookup, which is not a matmul).
    assert run["model_flops"] / run["training_flops_6nd"] == pytest.approx(1.074, abs=0.001)


def test_long_context_gpu_hours_follow_the_attention_cost(h100):
    # An 8B model at 128K context: attention is most of the work, and GPU-hours must show it.
    m = llmcost.load_model("llama-3.1-8b")
    run = llmcost.training_run(m, h100, 1e11, 0.4, 64, 2.0, seq_len=131072)
    assert run["model_flops"] / run["training_flops_6nd"] > 5


def test_detailed_needs_a_model():
    with pytest.raises(ValueError, match="needs a ModelSpec"):
        llmcost.training_flops(70e9, 2e12, method="detailed")
    with pytest.raises(ValueError, match="method='7ND'"):
        llmcost.training_flops(70e9, 2e12, method="7ND")


@pytest.mark.parametrize("mfu", [0, -0.1, 1.5, float("nan")])
def test_mfu_outside_unit_interval_is_rejected(h100, mfu):
    with pytest.raises(ValueError, match="mfu="):
        llmcost.gpu_hours(1e24, h100, mfu)


def test_bad_inputs_name_the_parameter(h100, a100):
    with pytest.raises(ValueError, match="n_tokens=-1.0 must be > 0"):
        llmcost.training_flops(70e9, -1.0)
    with pytest.raises(ValueError, match="n_gpus=0 must be > 0"):
        llmcost.wall_clock_s(1e24, h100, 0.4, 0)
    with pytest.raises(ValueError, match="price_usd_per_gpu_hour=0 must be > 0"):
        llmcost.compute_cost_usd(100.0, 0)
    with pytest.raises(ValueError, match="A100-80GB has no fp8 peak"):
        llmcost.gpu_hours(1e24, a100, 0.4, dtype="fp8")


def test_published_run_mfu_table():
    df = compute.published_run_mfu().set_index("run_id")
    assert df.loc["palm-540b", "reported_mfu"] == pytest.approx(0.462)
    # Llama 3 405B: 41% steady state (Table 4) vs ~35% over the whole run (30.84M GPU-hours).
    whole = df.loc["llama3-405b", "mfu_from_gpu_hours_6nd"]
    assert whole == pytest.approx(0.346, abs=0.002)
    assert whole < df.loc["llama3-405b", "reported_mfu"]
    # The two LLaMA 65B figures (GPU-hours and 380 tokens/s) agree, as the paper's 21 days imply.
    assert df.loc["llama1-65b", "mfu_from_gpu_hours_6nd"] == pytest.approx(
        df.loc["llama1-65b", "mfu_from_throughput_6nd"], abs=0.003)
    # DeepSeek-V3's "180K H800 GPU hours" per trillion tokens (arXiv:2412.19437, Table 1) is
    # its 2.664M GPU-hours for 14.8T tokens restated, 1e12 / (180e3 × 3600) = 1,543 tokens/s
    # per GPU: a whole-run average, not a steady state (a source check found it plotted as one)
    ds = df.loc["deepseek-v3-pretrain"]
    assert np.isnan(ds["mfu_from_throughput_6nd"]) and np.isnan(ds["mfu_from_throughput_detailed"])
    assert ds["mfu_from_gpu_hours_6nd"] > 0   # its whole-run figure stays, from the GPU-hours


def test_published_fp8_run_may_exceed_the_bf16_peak():
    """Megatron-Bridge docs/performance-summary-archive.md (26.04 NeMo Container, DGX-GB300):
    Llama 3 70B in FP8 on 64 GB300, 5,243 tokens/s and 2,355 model TFLOP/s per GPU. On the
    2.5 PFLOP/s dense BF16 peak NVIDIA's count is 2,355 / 2,500 = 0.942; the full-mask detailed
    count (481.4 GFLOP per token at 8,192 tokens: 6·(N − V·d) + 12·L·d·s) gives 5,243 × 481.4e9 / 2.5e15
    = 1.01 (the input embedding, 128,256 × 8,192, is a lookup: no FLOPs). The table keeps it (an FP8 run is about half of its FP8 peak); the pilot entry point
    refuses the same figure as input."""
    df = compute.published_run_mfu().set_index("run_id")
    row = df.loc["mb2604-gb300-llama-3.1-70b-fp8cs"]
    m = llmcost.load_model("llama-3.1-70b")
    full = 6 * (m.n_params - 128256 * 8192) + 12 * 80 * 8192 * 8192
    assert row["mfu_from_throughput_detailed"] == pytest.approx(5243 * full / 2.5e15, rel=0.01)
    assert 1.0 < row["mfu_from_throughput_detailed"] < 1.03
    with pytest.raises(ValueError, match="tokens_per_s_per_gpu=5,243 is impossible"):
        llmcost.mfu_from_throughput(5243, m, "GB300-NVL72", 8192)


def test_conventions_table_orders_as_expected():
    df = compute.flops_per_token_conventions(llmcost.load_model("llama-2-70b"), 4096)
    r = dict(zip(df["convention"], df["ratio_to_6nd"]))
    assert r["6·N (non-embedding parameters)"] < 1.0
    assert 1.0 < r["detailed, causal mask"] < r["detailed, full s×s mask"]
    assert r["detailed, full mask + full recomputation"] == pytest.approx(
        4 / 3 * r["detailed, full s×s mask"], rel=0.01)


def test_catalogue_training_costs(h100):
    df = compute.catalogue_training_costs(h100, 0.4, 2.0)
    assert (df["training_flops"].diff().dropna() >= 0).all()
    row = df.set_index("model").loc["llama-3.1-405b"]
    assert row["training_flops"] == pytest.approx(3.8e25, abs=0.05e25)
    assert row["compute_cost_usd"] == pytest.approx(row["gpu_hours"] * 2.0)


def test_selective_recompute_hfu_against_korthikanti():
    # Korthikanti et al. 2022 Table 5 (175B, s=2048, h=12288, l=96, V=51200): MFU 51.4%,
    # HFU 52.8%. Their App. A formula 72Bslh²(1 + s/3h + V/12lh) doubles the attention term; we
    # count the one re-executed attention-core forward, which gives a lower HFU for the same MFU.
    s, h, l, V = 2048, 12288, 96, 51200
    paper_ratio = (1 + s / (3 * h) + V / (12 * l * h)) / (1 + s / (6 * h) + V / (12 * l * h))
    assert 0.514 * paper_ratio == pytest.approx(0.528, abs=0.0005)
    gpt = llmcost.ModelSpec(name="gpt175", n_layers=l, d_model=h, n_heads=96, vocab_size=V,
                            d_ff=4 * h, ffn_type="mlp", tied_embeddings=True)
    ours = llmcost.hfu_from_mfu(0.514, gpt, s, recompute="selective", causal=False)
    assert ours == pytest.approx(0.519, abs=0.0005)
    assert 0.514 < ours < 0.514 * paper_ratio


def test_names_and_strings():
    assert llmcost.training_flops("llama-2-70b", 2e12) == llmcost.training_flops(
        llmcost.load_model("llama-2-70b"), 2e12)
    with pytest.raises(ValueError, match="n_tokens='15e12' must be a number, not a string"):
        llmcost.training_flops(70e9, "15e12")


def test_recompute_with_a_bare_count_is_refused():
    # 6ND is a model-FLOP count: recomputation needs the architecture (a ModelSpec).
    with pytest.raises(ValueError, match="recompute='full' needs method='detailed'"):
        llmcost.training_flops(70e9, 1e3, recompute="full")


def test_impossible_throughput_is_refused(h100):
    # Llama 2 70B at 4K on an H100 (989 TFLOP/s dense BF16): the peak is reached at
    # 989e12 / (6N + attention) ≈ 2,226 tokens/s per GPU; 1e9 tokens/s would be an MFU of 4.5e5.
    m = llmcost.load_model("llama-2-70b")
    with pytest.raises(ValueError, match=r"tokens_per_s_per_gpu=1e\+09 is impossible.*MFU of"):
        llmcost.mfu_from_throughput(1e9, m, h100, seq_len=4096)
    assert llmcost.mfu_from_throughput(1000, m, h100, seq_len=4096) < 1


def test_bare_counts_work_or_ask_for_a_model_spec(h100):
    # 6ND needs only N: 1,000 tokens/s × 6 × 70e9 / 989.4e12 = 0.4245 (hand derivation).
    assert llmcost.mfu_from_throughput(1000, 70e9, h100, method="6ND") == pytest.approx(
        1000 * 6 * 70e9 / h100.peak_bf16_flops_per_s)
    for call in (lambda: llmcost.mfu_from_throughput(1000, 70e9, h100),
                 lambda: llmcost.hfu_from_mfu(0.4, 70e9),
                 lambda: llmcost.memory_per_gpu(70e9, llmcost.make_plan(
                     llmcost.load_model("llama-2-70b"), 8, 8, tp=8))):
        with pytest.raises(ValueError, match="model=7.*parameter count.*needs a ModelSpec"):
            call()


def test_cluster_by_name():
    c = llmcost.Cluster(llmcost.load_accelerator("H100-SXM"), 8)
    assert c.accelerator == llmcost.load_accelerator("H100-SXM")
    with pytest.raises(ValueError, match="accelerator=3 must be an Accelerator"):
        llmcost.Cluster(3, 8)


@pytest.mark.parametrize("call, name", [
    # a string flag is refused, not read as true (bool("false") is True)
    (lambda: compute.training_flops("llama-2-7b", 1e12, method="detailed", causal="false"),
     "causal"),
    (lambda: compute.mfu_from_throughput(3000, "llama-2-7b", "H100-SXM", causal="false"),
     "causal"),
    # 6ND reads neither seq_len nor causal, but they are still checked
    (lambda: compute.training_flops(7e9, 1e12, seq_len=-5), "seq_len"),
    (lambda: compute.training_flops(7e9, 1e12, causal="no"), "causal"),
    # overflow: a message, never inf
    (lambda: compute.training_flops(1e300, 1e300), "overflow"),
    (lambda: compute.gpu_seconds(1e308, 1e-300, 0.5), "overflow"),
])
def test_flags_conventions_and_overflow_are_checked(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_too_few_gpu_hours_are_refused_as_a_throughput_above_the_peak_is(h100):
    """An implied MFU above 1 is one rule for both measurements. 1.5e13 tokens of Llama 3.1 8B
    (6N = 6 × 8.03e9 = 4.818e10 FLOP per token, 6ND = 7.227e23 FLOP) on a 9e14 FLOP/s peak need
    7.227e23 / 9e14 / 3600 = 223,063 GPU-hours at MFU 1 (hand derivation); 1e5 hours would be
    an MFU of 2.23. On the MFU basis at 8,192 tokens on an H100 the hours reported by a user
    implied 2.44 and were returned."""
    spec = llmcost.load_model("llama-3.1-8b")
    with pytest.raises(ValueError, match=r"reported_gpu_hours=100,000 is impossible for "
                       r"n_tokens=1\.5e\+13 of llama-3\.1-8b on H100-SXM.*MFU of 2\.44.*"
                       r"at most 1"):
        llmcost.mfu_from_gpu_hours(1.5e13, 1e5, spec, h100)
    with pytest.raises(ValueError, match=r"MFU of 2\.23.*at least 223,063 GPU-hours"):
        llmcost.mfu_from_gpu_hours(1.5e13, 1e5, spec, 9e14, method="6ND")
    # at the bound the hours give MFU 1, a tenth more hours 1/1.1
    hours = 7.227e23 / 9e14 / 3600 * (6 * spec.n_active_params / 4.818e10)
    assert llmcost.mfu_from_gpu_hours(1.5e13, hours * 1.1, spec, 9e14, method="6ND") == \
        pytest.approx(1 / 1.1, rel=1e-3)
    # an array: the first offending element is named
    with pytest.raises(ValueError, match="reported_gpu_hours=1,000 is impossible"):
        llmcost.mfu_from_gpu_hours(1.5e13, [1e6, 1e3], spec, h100)


def test_the_published_table_keeps_its_whole_run_mfus():
    # published_run_mfu reads the unchecked ratio (an FP8 run may pass 1 on the BF16 peak);
    # Llama 2 70B's model card: 2T tokens in 1,720,320 A100 GPU-hours, 42.8% by 6ND
    df = compute.published_run_mfu()
    assert df["mfu_from_gpu_hours_6nd"].between(0.05, 1.0).sum() >= 5
    assert (df["mfu_from_gpu_hours_6nd"].dropna() > 0).all()


def test_extreme_inputs_name_their_argument(h100):
    spec = llmcost.load_model("llama-3.1-8b")
    # seq_len=2**53 (the largest count taken; 1e30 is refused by name): 12·L·d·s alone is
    # 12 × 32 × 4096 × 2**53 = 1.417e22 FLOP per token, so at the 989.4 TFLOP/s peak at most
    # 6.98e-8 tokens/s; the message says at which seq_len and a bound not rounded to 0
    with pytest.raises(ValueError, match=r"tokens_per_s_per_gpu=3,000 is impossible for "
                       r"llama-3\.1-8b on H100-SXM's dense bf16 peak at seq_len=9\.0072e\+15.*"
                       r"at most 6\.98e-08 tokens/s"):
        llmcost.mfu_from_throughput(3000.0, spec, h100, seq_len=2**53)
    with pytest.raises(ValueError, match=r"seq_len=10{30} must be at most 2\*\*53"):
        llmcost.mfu_from_throughput(3000.0, spec, h100, seq_len=10**30)
    # HFU at a sequence length past what a double counts: a message, not NaN (inf / inf)
    with pytest.raises(ValueError, match=r"seq_len=1e\+308 must be at most 2\*\*53"):
        llmcost.hfu_from_mfu(0.4, spec, 1e308)
    with pytest.raises(ValueError, match=r"seq_len=0\.5 must be a whole number"):
        llmcost.hfu_from_mfu(0.4, spec, 0.5)
    # the smallest subnormal: the ratio underflows to an MFU of 0, refused (it was returned)
    with pytest.raises(ValueError, match=r"tokens_per_s_per_gpu=4\.94066e-324 implies an MFU "
                       r"of 0.*must be > 0"):
        llmcost.mfu_from_throughput(5e-324, spec, h100)
    with pytest.raises(ValueError, match=r"n_tokens=4\.94066e-324 .*must be > 0"):
        llmcost.mfu_from_gpu_hours(5e-324, 1e5, spec, h100)
    # a detailed FLOP count that overflows says the sequence length is in it: 1e290 tokens ×
    # 1.4e22 FLOP per token at seq_len 2**53 pass 1.8e308 (6ND alone, 4.8e300, does not)
    with pytest.raises(ValueError, match=r"n_tokens × FLOPs per token \(seq_len\) overflow"):
        llmcost.training_run(spec, h100, 1e290, 0.4, 64, 2.0, seq_len=2**53)
