"""The one rule for "the best published MFU comparable to this run"
(``accuracy.comparable_published_mfu``), checked against the published rows by hand, and every
page that prints it (04b's ceiling, 09's MFU lever and hardware check, the claim check, the
bill's MFU range) giving the same figure on a stated basis.

A new-user trial found four values for one scenario (Mixtral 8x7B FP8 on 512 H200): 47.0% on the
BF16 basis (a dense vendor claim), 39% from a dense Llama 3 70B FP8 run, the 47% against an
FP8-basis MFU, and, for DeepSeek-V3 on B200, a check that compared active parameters with the
table's total counts and found nothing.
"""

import pytest

import llmcost
from llmcost.bill import claims
from llmcost.bill import levers as lv
from llmcost.training import accuracy

# H100 SXM / H200 datasheets: dense BF16 989.4 TFLOP/s, dense FP8 twice that (1,978.9).
HOPPER_FP8_OVER_BF16 = 1978.9 / 989.4


def _mfu_from_tokens(model: str, tokens_per_s_per_gpu: float, seq_len: int, acc: str) -> float:
    """Hand: MFU = tokens/s/GPU × model FLOPs per token (full attention mask, the workbook's
    basis) ÷ the dense BF16 peak."""
    spec = llmcost.load_model(model)
    f = spec.flops_per_token(seq_len, causal=False)
    return tokens_per_s_per_gpu * f / llmcost.load_accelerator(acc).peak_flops_per_s("bf16")


def test_an_moe_on_hopper_is_compared_with_moe_runs_on_both_bases():
    # Megatron-Core's MoE README (NVIDIA/Megatron-LM at 0b981f9c, MCore v0.8): Mixtral 8x7B
    # itself, BF16, on 64 H100 at 438 TFLOP/s per GPU (the publisher's count), 438 / 989.4 =
    # 44.3%, the best MoE published on Hopper within 4x its 46.7B total parameters (above
    # NeMo AutoModel's Qwen3 MoE 30B-A3B on 8 H100, 12,040 tokens/s/GPU at 4,096, 34.0%), so it,
    # not the dense Megatron-LM 47% or Llama 3 70B's 78%, is Mixtral's comparable run; in FP8
    # its plan runs up to r times as fast, r = 8.91 / 5.92 s (NVIDIA/dgxc-benchmarking's GPT-3
    # 175B BF16 / FP8 on 128 H100, the largest published pair within 4x of 46.7B), a bound above
    # every published FP8 MoE run on Hopper of that size
    b = accuracy.comparable_published_mfu("H200", 46.7e9, is_moe=True, dtype="fp8")
    hand = 438e12 / 989.4e12 * 8.91 / 5.92
    assert b.mfu_bf16 == pytest.approx(hand, rel=0.02) and b.from_bf16
    assert "Mixtral 8x7B" in b.source and "Megatron-LM GPT" not in b.source
    assert b.mfu == pytest.approx(b.mfu_bf16 / HOPPER_FP8_OVER_BF16, rel=1e-3)
    text = b.describe()
    assert f"{b.mfu:.1%} of the FP8 dense peak" in text and f"{b.mfu_bf16:.1%} of the BF16" in text
    assert "MoE runs on Hopper, on 8-accelerator scale-up domains (one server), total parameters within 4×" in text


def test_deepseek_v3_on_blackwell_is_compared_on_total_parameters():
    # Megatron-Bridge docs/performance-summary-archive.md at 067f987df, 26.06, DGX-GB200:
    # DeepSeekV3 MXFP8 on 256 GB200, 4,969 tokens/s/GPU at sequence 4,096: the best MoE
    # published on Blackwell (not Blackwell Ultra: GB300's 6,422 runs apart, the same recipe
    # 1.15-1.27x GB200's at one datasheet peak, accuracy.BLACKWELL_ULTRA) within 4x of 671B total
    # parameters (compared on active ones, 37.6B, nothing in the table matched). NVL72
    # domains: an MoE on GB200 NVL72 compares with rack-scale runs (scaleup_class)
    b = accuracy.comparable_published_mfu("GB200-NVL72", 671e9, is_moe=True, dtype="fp8")
    hand = _mfu_from_tokens("deepseek-v3", 4969, 4096, "GB200-NVL72")
    assert b.mfu_bf16 == pytest.approx(hand, rel=0.02) and "256 GB200" in b.source
    g3 = accuracy.comparable_published_mfu("GB300-NVL72", 671e9, is_moe=True, dtype="fp8")
    assert g3.mfu_bf16 == pytest.approx(_mfu_from_tokens("deepseek-v3", 6422, 4096,
                                                         "GB300-NVL72"), rel=0.02)
    # the claim check (no exclusion: a scenario's model's own benchmark rows stand) agrees
    best, src = claims.best_reference("GB200-NVL72", 671e9, is_moe=True, dtype="fp8")
    assert best == pytest.approx(b.mfu_bf16) and "rule: MoE runs on Blackwell" in src


def test_the_dense_vendor_claim_stays_for_dense_models_only():
    # NVIDIA/Megatron-LM README: "up to 47% MFU on H100 clusters", GPT (dense) models 2B-462B:
    # the best comparable figure where no run beats it (a 13B at 1,024 tokens: every Hopper run
    # within 4× at 256-4,096 tokens is below 47%), and BF16 evidence, so an FP8 step is bounded
    # by it × r (the largest published FP8 ÷ BF16 speed-up of one plan of its size: NVIDIA's
    # DGX Cloud Llama 3.1 8B on 8 H100, 12.91 ÷ 9.67 s a step, llama3.1/README_8b.md @ 143b90d),
    # as by a BF16 run (a review: no test reached this branch)
    bf16 = accuracy.comparable_published_mfu("H100-SXM", 13e9, is_moe=False, seq_len=1024)
    assert bf16.mfu_bf16 == 0.47 and "Megatron-LM README" in bf16.source
    fp8 = accuracy.comparable_published_mfu("H100-SXM", 13e9, is_moe=False, dtype="fp8",
                                            seq_len=1024)
    r = accuracy.fp8_speedup_bound(13e9)[0]
    assert r == pytest.approx(12.91 / 9.67, rel=1e-3)
    assert fp8.mfu_bf16 == pytest.approx(0.47 * r, rel=1e-9)
    assert "Megatron-LM README" in fp8.source and f"× {r:.3g}" in fp8.source
    # the MFU lever names it as what it is: a vendor's BF16 claim × r, not a run
    s = {"model": "llama-2-13b", "accelerator": "H100-SXM", "n_gpus": 256, "mfu": 0.2,
         "dtype": "fp8", "seq_len": 1024, "global_batch_tokens": 4194304}
    assert fp8.from_bf16 and "the FP8 bound (× r) of the best published dense BF16 claim" in \
        lv.raise_mfu(s).name
    moe = accuracy.comparable_published_mfu("H100-SXM", 70e9, is_moe=True)
    assert moe.mfu_bf16 is None or moe.mfu_bf16 < 0.47


def test_the_mfu_lever_names_the_same_figure_and_its_basis():
    s = {"model": "mixtral-8x7b", "accelerator": "H200", "n_gpus": 512, "mfu": 0.10,
         "dtype": "fp8", "seq_len": 8192, "global_batch_tokens": 8388608}
    b = accuracy.comparable_published_mfu("H200", llmcost.load_model("mixtral-8x7b").n_params,
                                          is_moe=True, dtype="fp8", seq_len=8192)
    target, src, _, _ = lv.mfu_target(s)
    assert target == pytest.approx(b.mfu) and src == b.describe()
    ch = lv.raise_mfu(s)
    # the name states the FP8 target on the FP8 peak only: on the BF16 basis an FP8 figure is
    # 2x it (FP8 dense peak = 2 x BF16's, NVIDIA H200 datasheet) and passes 100% above 50%
    # Megatron-Core's Mixtral 8x7B BF16 run (the MoE test above: 438 TFLOP/s ÷ 989.4) × r,
    # r = 8.91 / 5.92 (the largest published FP8 ÷ BF16 pair within 4x of 46.7B: NVIDIA's DGX
    # Cloud GPT-3 175B on 128 H100), the FP8 bound of its plan, above every MoE FP8 run on
    # Hopper of the size, and named so
    assert b.from_bf16 and b.mfu_bf16 == pytest.approx(438e12 / 989.4e12 * 8.91 / 5.92,
                                                       rel=0.02)
    assert ch.name.startswith(f"raise MFU to {b.mfu:.0%} of the FP8 peak, the FP8 bound (× r) "
                              "of the best published MoE BF16 run")
    assert f"{b.mfu_bf16:.0%} of the BF16" not in ch.name
    # 04b's ceiling: the same figure on the step's basis
    ceiling, seen = accuracy.published_ceiling("H200", llmcost.load_model("mixtral-8x7b").n_params,
                                               "fp8", is_moe=True, seq_len=8192)
    assert ceiling == pytest.approx(b.mfu) and b.describe() in seen


def test_04b_fastest_ranked_plan_is_the_scenarios_with_memory_counted_alike():
    # Mixtral 8x7B FP8 on 512 H200, EP 8: the ranking's first plan (m=1 mbs=2 ZeRO-2) needs more
    # than the 141 GB × 0.9 usable as Korthikanti et al. write it, less as megatron-core stores
    # it with FP8 (options.stack_memory_practice); the scenario's search counts memory as the
    # stack stores it too (parallel.stack_plan_search), so the two agree.
    from llmcost.training import step, step_scenario
    p = llmcost.present.report.plan_report(llmcost.SCENARIO_DIR / "default.yaml").values
    p = {**p, "model": "mixtral-8x7b", "accelerator": "H200", "n_gpus": 512, "seq_len": 8192,
         "global_batch_tokens": 8388608, "dtype": "fp8", "tp": 0, "pp": 0, "ep": 8}
    spec = llmcost.load_model("mixtral-8x7b")
    plan, _ = step.scenario_step(p, spec)
    ranked = step.rank_plans(spec, llmcost.catalog.scenario_cluster(p), 1024, 8192,
                             pp_split=p["pp_split"], reserve=p["mem_reserve_fraction"],
                             **step.scenario_options(p))
    words = step_scenario.fastest_versus_scenario(ranked, plan, p, spec)
    first = llmcost.parallel.plan_from_row(step.fastest_trusted(ranked), p["pp_split"])
    assert first.describe() == plan.describe()
    assert words.startswith("the scenario's plan")


def test_a_scenario_check_and_a_published_claim_differ_only_by_the_own_runs():
    # `llmcost check --scenario` (scenario_as_claim) keeps the model's own runs, so it names the
    # figure 04b and 09 show (DeepSeekV3 on 256 GB200, NVIDIA's Megatron-Bridge benchmark); a
    # published claim of the same model leaves out only DeepSeek-AI's own runs
    # (claims.own_runs), none of them on Blackwell: a third party's benchmark of the
    # architecture is not the claim's own run (a researcher's trial), so the two agree here.
    spec = llmcost.load_model("deepseek-v3")
    _, _, sc = claims.scenario_as_claim(spec, 14.8e12, "GB200-NVL72", 2048, 0.047,
                                        dtype="fp8", seq_len=4096)
    b = accuracy.comparable_published_mfu("GB200-NVL72", spec.n_params, is_moe=True,
                                          dtype="fp8")
    assert sc.best_published == pytest.approx(b.mfu_bf16) and "256 GB200" in sc.best_source
    assert f"= {b.mfu:.1%} of the fp8 peak" in sc.describe()
    pub = claims.check_claim("deepseek-v3", 14.8e12, "GB200-NVL72", n_gpus=2048, dtype="fp8",
                             gpu_hours=sc.gpu_hours, left_out=False)
    assert "own published runs left out" not in pub.best_source
    assert pub.best_published == pytest.approx(sc.best_published, rel=1e-12)
    assert set(claims.own_runs("deepseek-v3")) == {"deepseek-v3", "deepseek-v3-pretrain"}


def test_a_cap_compares_runs_of_a_comparable_sequence_length():
    """A trial: Llama 3.1 8B at 131,072 tokens on H100 was capped by Megatron-LM's README claim,
    'up to 47% MFU' at sequence 4096. Comparable runs are within accuracy.SEQ_FACTOR (4x) of
    the plan's sequence: at 128k that is 32k-512k, where the best dense Hopper BF16 run within
    4x of 8B parameters is llm-foundry's MPT-13B at 32,768 tokens on 8 H100 (data/
    validation_mfu.csv: 31.5% on the workbook's full-mask count, the prediction's basis); at
    4,096 tokens NVIDIA's DGX Cloud Llama 3.1 8B BF16 on 8 H100 (llama3.1/README_8b.md @
    143b90d: 81,222 tokens/s, 59.4%), above the claim's 47%."""
    spec = llmcost.load_model("llama-3.1-8b")
    long = accuracy.comparable_published_mfu("H100-SXM", spec.n_params, is_moe=False,
                                             seq_len=131072)
    assert "MPT 13b" in long.source and long.mfu_bf16 == pytest.approx(0.315, abs=5e-4)
    assert "sequences of 32,768–524,288 tokens" in long.rule
    short = accuracy.comparable_published_mfu("H100-SXM", spec.n_params, is_moe=False,
                                              seq_len=4096)
    assert short.mfu_bf16 == pytest.approx(81_222 / 8 * spec.flops_per_token(
        8192, causal=False) / 989.4e12, rel=1e-3) and "DGX Cloud" in short.source
    for bad in (0, 2.5, True):
        with pytest.raises(ValueError, match="seq_len="):
            accuracy.comparable_published_mfu("H100-SXM", spec.n_params, is_moe=False,
                                              seq_len=bad)


def test_a_prediction_above_every_comparable_run_bills_the_best_run():
    """A trial: OPT-1.3B on 8 H100 predicted 52.8% and was billed 52.8%, above every comparable
    published run (the best: MPT-3B on 8 H100, llm-foundry's throughput table, 46.3% in
    data/validation_mfu.csv). The band's top is that run; the bill's point (its central
    estimate kept inside the band) is no higher, and a warning says the prediction is above."""
    spec = llmcost.load_model("opt-1.3b")
    best = accuracy.comparable_published_mfu("H100-SXM", spec.n_params, is_moe=False,
                                             seq_len=2048)
    assert "MPT 3b" in best.source and best.mfu_bf16 == pytest.approx(0.463, abs=5e-4)
    band = accuracy.mfu_band(0.528, "H100-SXM", 8, n_params=spec.n_params, seq_len=2048)
    c, w = band.center, band.half_width
    # the band below the billed point (the cap) keeps the regime's relative width (1 + c) /
    # (1 + c + w), lower than the model's own low end 52.8% / (1 + c + w)
    assert band.high == pytest.approx(best.mfu_bf16)
    assert band.low == pytest.approx(best.mfu_bf16 * (1 + c) / (1 + c + w))
    assert band.low < 0.528 / (1 + c + w)
    assert band.central()[0] == pytest.approx(best.mfu_bf16) and band.central()[2]
    assert any("the prediction, 52.8%, is above every comparable published run" in w
               for w in band.warnings)


def test_the_mfu_lever_says_the_stack_its_target_ran_on():
    """A trial: DeepSeek-V3 FP8 on GB200 with the default 2024 stack was told to aim at 75% of
    the BF16 peak, Megatron-Bridge 26.06's DeepSeekV3 on 256 GB300 (data/validation_mfu.csv),
    measured on the 2026 stack; the lever now names the run and stack beside the scenario's
    (the same table's run on 256 GB200, 58.0%: Blackwell Ultra runs apart)."""
    s = {"model": "deepseek-v3", "accelerator": "GB200-NVL72", "n_gpus": 2048, "mfu": 0.2,
         "dtype": "fp8", "seq_len": 4096, "train_tokens": 1.48e13}
    b = accuracy.comparable_published_mfu("GB200-NVL72", llmcost.load_model("deepseek-v3").n_params,
                                          is_moe=True, dtype="fp8", seq_len=4096)
    assert "256 GB200" in b.source and b.stack == "megatron-core-2026"
    name = lv.raise_mfu(s).name
    assert ("its software priced as the megatron-core-2026 stack profile, not this scenario's "
            "megatron-core-2024") in name and "256 GB200" in name
    assert b.describe().count("priced as the megatron-core-2026 stack profile") == 1


def test_the_any_size_fallback_keeps_the_class_and_says_its_scope():
    """A trial: Llama 3.1 70B (dense, BF16) on 1,024 B200 was told its predicted 56.7% "exceeds
    the best MFU published on Blackwell for a model of any size, 35.3%", a BF16 DeepSeek-V3
    (MoE) run, and billed 43.6%, while `check` called 61.9% plausible. The any-size fallback
    keeps the class. Where the generation has no dense BF16 run (Blackwell Ultra: every dense
    GB300 row of data/validation_mfu.csv is FP8), a BF16 dense step is bounded by the dense FP8
    runs on the BF16 basis: the same step in FP8 is no slower than in BF16 (the published FP8 ÷
    BF16 MFU ratios of one plan run 0.997-1.60), a loose bound; on B200 and GB200, NVIDIA's DGX
    Cloud BF16 run of Llama 3.1 405B is the dense BF16 run, and bounds the 70B as measured."""
    pairs = accuracy.fp8_bf16_pairs(accuracy.validation_table())
    assert len(pairs) >= 5 and pairs["published"].min() >= 0.99
    # the best MoE BF16 run on NVL72 racks at any size, Blackwell Ultra apart: Megatron-Bridge
    # 25.11's DeepSeek-V3 on 256 GB200, 3,139 tokens/s/GPU, 35.3% of the BF16 peak (GB300's
    # Qwen3-235B-A22B, 41.0%, only for a GB300 step)
    moe = accuracy.published_any_size("GB200-NVL72", "bf16", 8192, is_moe=True)
    assert "DeepSeekV3 (Megatron-Bridge 25.11" in moe.source and "256 GB200" in moe.source
    assert moe.mfu_bf16 == pytest.approx(0.353, abs=5e-4)  # the row's reported_mfu
    ultra = accuracy.published_any_size("GB300-NVL72", "bf16", 8192, is_moe=True)
    assert "Qwen3_235B_a22B (Megatron-Bridge 25.11" in ultra.source
    assert ultra.mfu_bf16 == pytest.approx(6131 * 167.255e9 / 2.5e15, abs=5e-4)
    # on B200 servers, the servers' MoE runs (rule 6): GPT-OSS 120B's 21.1% on 64 B200
    server = accuracy.published_any_size("B200", "bf16", 8192, is_moe=True)
    assert "64 B200" in server.source and server.mfu_bf16 == pytest.approx(0.2105, abs=5e-4)
    # a dense BF16 step on Blackwell, the class kept (no DeepSeek-V3): the best of NVIDIA's DGX
    # Cloud Llama 3.1 405B BF16 on 128 GB200 (46.0% of the BF16 peak) and the dense FP8 runs
    # as the least their plans reach in BF16 (a review: an 8B capped at a 405B's 46.0%):
    # Megatron-Bridge 25.11's Llama 3 8B FP8 on 8 B200, 30,624 tokens/s/GPU × the full-mask
    # FLOPs per token at 8,192 ÷ 2,250 TFLOP/s, ÷ r of its size (NVIDIA's DGX Cloud Llama 3.1
    # 8B on 8 H100, 12.91 ÷ 9.67 s a step), by hand 59.0%
    hand = 30_624 * llmcost.load_model("llama-3.1-8b").flops_per_token(8192, causal=False) \
        / 2250e12 / (12.91 / 9.67)
    dense = accuracy.published_any_size("B200", "bf16", 8192, is_moe=False)
    assert dense.mfu_bf16 == pytest.approx(hand, rel=2e-3)
    assert "DeepSeek" not in dense.source and "LLAMA3_8B" in dense.source
    assert "(an FP8 run, 78.8% of the BF16 peak) ÷ 1.34, the least its plan reaches in BF16" in \
        dense.source
    assert dense.rule.startswith("dense BF16 runs, and FP8 runs ÷ r on Blackwell (not Blackwell "
                                 "Ultra) of any size")
    # where the generation has no dense BF16 run (Blackwell Ultra: every GB300 dense row is
    # FP8), the dense FP8 runs on the BF16 basis bound a BF16 step from above
    ultra_dense = accuracy.published_any_size("GB300-NVL72", "bf16", 8192, is_moe=False)
    assert "LLAMA" in ultra_dense.source and "bound a BF16 step from above" in ultra_dense.rule
    assert ultra_dense.rule.startswith("dense FP8 runs on Blackwell Ultra of any size")
    band = accuracy.mfu_band(0.567, "B200", 1024, n_params=70.55e9, seq_len=8192)
    assert not any("DeepSeek" in w or "exceeds" in w for w in band.warnings)
    # check agrees: at 62 days, 61.9% (the trial's 60 days) × 60 / 62 = 59.9%, 1.015× the
    # bound, plausible at the edge (within claims.EDGE_SHARE, 5%: the goodput is assumed); with
    # that goodput given, as a scenario's bill gives it, no edge: optimistic; at 55 days,
    # 61.9% × 60 / 55 = 67.5%, above the edge
    edge = claims.check_claim("llama-3.1-70b", 15e12, "B200", n_gpus=1024, days=62,
                              seq_len=8192, left_out=False, exclude_own_runs=False)
    assert edge.verdict == "plausible" and "at the edge" in edge.reason
    given = claims.check_claim("llama-3.1-70b", 15e12, "B200", n_gpus=1024, days=62,
                               seq_len=8192, left_out=False, exclude_own_runs=False,
                               goodput=edge.goodput)
    assert given.steady_state["bf16"] == pytest.approx(edge.steady_state["bf16"], rel=1e-12)
    assert given.verdict == "optimistic"
    c = claims.check_claim("llama-3.1-70b", 15e12, "B200", n_gpus=1024, days=55, seq_len=8192,
                           left_out=False, exclude_own_runs=False)
    assert c.verdict == "optimistic" and "of its class at any size" in c.reason
    assert "DeepSeek" not in c.reason


def test_check_and_estimate_agree_at_128k_and_say_the_context():
    """A trial: 70B at 131,072 tokens on 512 H100 read "the best MFU published on Hopper for a
    model of any size, 38.4%" while other pages cite Megatron-LM's 47% (at 4,096 tokens) and
    Megatron-Bridge's 84.6% (an FP8 run). The 38.4% is Llama 3.1 405B at 128k on 16,384 H100
    (arXiv:2407.21783 Table 4: 380 TFLOPs/GPU ÷ 989.4 = 38.4%), the best dense BF16 run at
    32,768-524,288 tokens; the words say that scope, and `check` uses the same context rule.
    The dense FP8 runs count too, as the least their plans reach in BF16: NVIDIA's NeMo
    long-sequence Llama 2 7B FP8 at 32K on 32 H100, 6,687 tokens/s/GPU × the full-mask FLOPs
    per token at 32,768 ÷ 989.4 TFLOP/s = 61.6%, ÷ r of its size (NVIDIA's DGX Cloud Llama 3.1
    8B, 12.91 ÷ 9.67 s a step) = 46.2%, above Llama 3's 38.4%: a claim at 50% is optimistic on
    both pages, at 40% on neither."""
    assert 380 / 989.4 == pytest.approx(0.384, abs=5e-4)
    hand = 6687 * llmcost.load_model("llama-2-7b").flops_per_token(32768, causal=False) \
        / 989.4e12 / (12.91 / 9.67)
    b = accuracy.published_any_size("H100-SXM", "bf16", 131072, is_moe=False)
    assert b.mfu_bf16 == pytest.approx(hand, rel=2e-3) and "32K context" in b.source
    assert b.rule == ("dense BF16 runs, and FP8 runs ÷ r on Hopper of any size, sequences of "
                      "32,768–524,288 tokens")
    band = accuracy.mfu_band(0.50, "H100-SXM", 512, n_params=70.55e9, seq_len=131072)
    (opt,) = [w for w in band.warnings if "exceeds" in w]
    assert f"among {b.rule}, {b.mfu_bf16:.1%}" in opt
    (cap,) = [w for w in band.warnings if w.startswith("the band's upper end")]
    assert "every published run of that scope" in cap and "every comparable" not in cap
    for mfu, verdict in ((0.50, "optimistic"), (0.40, "plausible")):
        c = claims.check_claim("llama-3.1-70b", 8e11, "H100-SXM", n_gpus=512, mfu=mfu,
                               seq_len=131072, left_out=False)
        assert c.verdict == verdict, c.reason
        assert "Megatron-LM" not in c.reason and f"{b.mfu_bf16:.1%}" in c.reason


def test_an_moe_run_compares_within_its_scale_up_class():
    # Megatron-Bridge 26.02's DeepSeek-V3 MXFP8 (docs/performance-summary.md, the rows of
    # data/validation_mfu.csv): 34.9% of the BF16 peak on B200 servers, 46.2% on GB200 NVL72,
    # 53.8% on GB300 NVL72 — the expert all-to-all leaves NVLink at an 8-GPU server's edge, so
    # an MoE on B200 servers is compared with runs on servers, one on NVL72 with NVL72 runs
    v = accuracy.validation_table().set_index("run_id")
    got = {r: v.loc[r, "reported_mfu"] for r in ("mb2602-b200-deepseek-v3-mxfp8",
                                                 "mb2602-gb200-deepseek-v3-mxfp8",
                                                 "mb2602-gb300-deepseek-v3-mxfp8")}
    assert list(got.values()) == pytest.approx([0.349, 0.462, 0.538], abs=0.0015)
    assert accuracy.scaleup_class("B200") == "node"
    assert accuracy.scaleup_class("GB300-NVL72") == "rack-scale"
    server = accuracy.comparable_published_mfu("B200", 671e9, is_moe=True, dtype="fp8",
                                               seq_len=4096)
    rack = accuracy.comparable_published_mfu("GB200-NVL72", 671e9, is_moe=True, dtype="fp8",
                                             seq_len=4096)
    assert "B200)" in server.source and "GB" not in server.source
    assert "GB300" in rack.source or "GB200" in rack.source
    assert server.mfu_bf16 < rack.mfu_bf16
    # every B200 MoE run of the table within the rule is at or below the server best
    rows = v[(v["accelerator"] == "B200") & (v["moe"] == "MoE")
             & (v["params"].between(671e9 / 4, 671e9 * 4)) & (v["seq_len"].between(1024, 16384))]
    assert server.mfu_bf16 == pytest.approx(rows["reported_mfu"].max(), rel=1e-12)
    assert "8-accelerator scale-up domains (one server)" in accuracy.comparable_rule("B200", True, "fp8", 4096)
    assert "NVL72" in accuracy.comparable_rule("GB200-NVL72", True, "fp8", 4096)
    assert "scale-up" not in accuracy.comparable_rule("B200", False, "fp8", 4096)  # dense: any


def test_the_scale_up_rule_holds_in_the_any_size_fallback_and_off_the_catalogue():
    # a 6.9B MoE in FP8 on B200 servers has no MoE run within 4x; the any-size fallback keeps
    # the servers' runs (its best, DeepSeek-V3 on 256 B200 at 43.2% of the BF16 peak, not the
    # 75.0% of a GB300 NVL72 run), and says the scope
    b = accuracy.published_any_size("B200", "fp8", 4096, True)
    v = accuracy.validation_table()
    servers = v[(v["gpu_generation"] == "Blackwell") & (v["moe"] == "MoE")
                & v["seq_len"].between(1024, 16384) & (v["accelerator"] == "B200")]
    assert b.mfu_bf16 == pytest.approx(servers["reported_mfu"].max(), rel=1e-12)
    assert "8-accelerator scale-up domains (one server)" in b.rule
    # an accelerator outside the catalogue: no class, rule 6 not applied, no error
    assert accuracy.scaleup_class("nonexistent-gpu") is None
    got = accuracy.comparable_published_mfu("nonexistent-gpu", 1e11, is_moe=True)
    assert got.mfu_bf16 is None


def test_an_fp8_figure_above_the_bf16_peak_is_explained_not_left_to_read_as_an_error():
    # A trial: 70B FP8 on B200 was compared with Megatron-Bridge's LLAMA3_70B FP8 on GB300, 101.1%
    # of the BF16 dense peak (a GB300 step now, Blackwell Ultra's runs being apart): FP8 matmuls
    # run at twice it (GB300 NVL72: 5 PFLOPS FP8 dense, 2.5 PFLOPS BF16 dense,
    # data/accelerators.csv), so the same run is 50.5% of the FP8 peak. Each figure is said on
    # the run's basis; a BF16 one above 100% says why.
    b = accuracy.comparable_published_mfu("GB300-NVL72", 70e9, is_moe=False, dtype="fp8",
                                          seq_len=8192)
    assert b.basis == pytest.approx(2.0, rel=1e-9) and b.mfu_bf16 > 1
    assert b.mfu == pytest.approx(b.mfu_bf16 / 2, rel=1e-12)
    words = b.on_basis()
    assert words.startswith(f"{b.mfu:.1%} of the FP8 dense peak")
    assert "above 100% because FP8 matmuls run at 2× the BF16 peak" in words
    # below 100% no explanation is needed
    assert "above 100%" not in accuracy.comparable_published_mfu(
        "H100-SXM", 70e9, is_moe=False, dtype="fp8", seq_len=8192).on_basis()
    s = {"model": "llama-3.1-70b", "accelerator": "GB300-NVL72", "n_gpus": 512, "mfu": 0.40,
         "dtype": "fp8", "seq_len": 8192, "global_batch_tokens": 16777216}
    assert "of the BF16" not in lv.raise_mfu(s).name
    # the B200 band's cap sentence says the same (the trial's "101.1% of the BF16 dense peak"):
    # capped at that run on the FP8 basis, 101.1% / 2 = 50.5%, with the reason it passes 100%
    high, said = accuracy.band_cap(0.52, 0.60, "GB300-NVL72", n_params=70e9, best=b.mfu_bf16,
                                   basis=b.basis, low=0.40, seq_len=8192, is_moe=False)
    assert high == pytest.approx(b.mfu_bf16 / 2, rel=1e-12)
    assert "above 100% because FP8 matmuls run at 2× the BF16 peak" in " ".join(said)


def test_scope_filter_matches_the_rules_on_the_table():
    """``accuracy._published_in_scope`` (the rows both ``comparable_published_mfu`` and
    ``_best_of_scope`` search, filtered on numpy arrays) selects exactly the rows the rules
    select written out with pandas on the validation table: generation, BF16 only unless FP8,
    sequences and total parameters within their ranges (ends included), the class, the
    excluded runs left out; in the table's order."""
    v = accuracy.validation_table()
    excluded = tuple(v["run_id"].iloc[::7])
    for gen in (None, "Hopper", "Ampere", "Blackwell"):
        for fp8 in (False, True):
            for seq in ((0.0, float("inf")), (1024.0, 16384.0), (4096.0, 4096.0)):
                for moe in (None, True, False):
                    for size in ((0.0, float("inf")), (70e9 / 4, 70e9 * 4)):
                        for excl in ((), excluded):
                            want = v[((v["gpu_generation"] == gen) | (gen is None))
                                     & (fp8 | (v["precision"] == "BF16"))
                                     & (v["seq_len"] >= seq[0]) & (v["seq_len"] <= seq[1])
                                     & (v["params"] >= size[0]) & (v["params"] <= size[1])
                                     & ((v["moe"] == ("MoE" if moe else "dense"))
                                        | (moe is None))
                                     & ~v["run_id"].isin(list(excl))]
                            got = accuracy._published_in_scope(gen, fp8, seq, moe, excl, size)
                            assert list(got.index) == list(want.index)
    # the scopes are not empty: Hopper BF16 dense runs of a 70B-class model at 1k-16k tokens
    assert len(accuracy._published_in_scope("Hopper", False, (1024.0, 16384.0), False, (),
                                            (70e9 / 4, 70e9 * 4))) > 0


def test_a_low_verdict_is_judged_on_measured_runs_not_on_the_fp8_bound():
    # A trial's Qwen3-30B-A3B on 1,024 H100 in FP8, at 12.0% of the FP8 peak (24.0% of the BF16
    # one), was judged LOW: "below 50% of the best published 61.9%", Mixtral 8x7B's BF16 run
    # (438 TFLOP/s on 64 H100, Megatron-Core's MoE README: 438 / 989.4 = 44.3%) × r, r the
    # largest published FP8 ÷ BF16 speed-up of one plan, an upper bound; the same report said a
    # published run like it, carried to its plan, runs slower than 12.0%. Half a bound is no
    # measured run's half: low is judged on the runs as measured (44.3% here, the best
    # comparable evidence; the comparable FP8 runs as published are lower), the bound judges
    # only the optimistic side.
    measured = 438e12 / 989.4e12
    spec = llmcost.load_model("qwen3-30b-a3b")
    got = claims.measured_reference("H100-SXM", spec, "fp8", 4096, "qwen3-30b-a3b")
    assert got[0] == pytest.approx(measured, rel=0.01) and "Mixtral 8x7B" in got[1]

    def verdict(mfu):
        return claims.check_claim("qwen3-30b-a3b", 15e12, "H100-SXM", mfu=mfu, dtype="fp8",
                                  n_gpus=1024, seq_len=4096, left_out=False)
    above = verdict(0.12)   # 24.0% of BF16, above half of 44.3% (22.1%), below half of 61.9%
    assert above.verdict == "plausible"
    below = verdict(0.10)   # 20.0% of BF16: below half of the measured run
    assert below.verdict == "low"
    assert f"below 50% of the best published {measured:.1%} (" in below.reason
    assert "as measured; the FP8 bound 61.9%, one BF16 run × r, is an upper bound" in \
        below.reason
    # a cost-only claim's MFU range starts there too (a review: $5M for it was still LOW, its
    # range 30.9%-61.9% of BF16, half the bound to the bound)
    cost = claims.check_claim("qwen3-30b-a3b", 15e12, "H100-SXM", usd=5e6, dtype="fp8",
                              n_gpus=1024, seq_len=4096, left_out=False)
    assert f"steady-state MFU of {measured / 2:.1%}–61.9% of the BF16 peak (50% of the best " \
           "published as measured, Mixtral 8x7B" in cost.reason
    assert cost.verdict == "plausible"
    # the low reason of an FP8 claim says its own peak's figure too
    assert "20.0% of the BF16 peak (10.0% of the fp8 peak)" in below.reason
