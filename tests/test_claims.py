"""check_claim, published_run_errors and `llmcost check`.

Expected values are hand derivations written here from published figures (each with its
source); the one block of the code's own outputs is ``ERROR_TABLE_PIN``, labelled as a
regression pin, beside the sourced checks.
"""

import json
import re
from pathlib import Path

import pandas as pd
import pytest

import llmcost
from llmcost import claims
from llmcost.core.catalog import DATA_DIR
from llmcost.present.cli import main

H100_BF16, H100_FP8, A100_BF16 = 989.4e12, 1978.9e12, 312e12  # dense peaks, data/accelerators.csv

# DeepSeek-AI 2024, DeepSeek-V3 Technical Report (arXiv:2412.19437), Table 1 and §1:
# 2,664K pre-training + 119K context extension + 5K post-training = 2,788K H800 GPU-hours,
# $5.576M at $2/GPU-h; 14.8T tokens on 2,048 H800; 37B activated parameters.
DS_PHASES = {"pre-training": 2.664e6, "context extension": 119e3, "post-training": 5e3}


@pytest.fixture(scope="module")
def deepseek():
    return claims.check_claim("deepseek-v3", 14.8e12, "H800", n_gpus=2048, dtype="fp8",
                              gpu_hours=2.788e6, usd=5.576e6, phases=DS_PHASES)


def test_deepseek_v3_flops_hours_and_price(deepseek):
    # test vector 1.k (tests/data/test_vectors.csv): 6 × 37e9 × 14.8e12 = 3.2856e24 ("37B
    # activated", rounded in the paper; the catalogue's 37.6B counts the embeddings): ±2%.
    assert deepseek.flops_6nd == pytest.approx(3.2856e24, rel=0.02)
    # the tokens are the pre-training phase's: utilisation uses 2.664M hours, not 2.788M
    assert deepseek.pretraining_gpu_hours == 2.664e6
    # hand: 3.2856e24 / (2.664e6 h × 3600 × 989.4e12) = 0.3463 of BF16, half of it of FP8
    assert deepseek.whole_run_6nd["bf16"] == pytest.approx(0.3463, rel=0.02)
    assert deepseek.whole_run_6nd["fp8"] == pytest.approx(0.3463 * H100_BF16 / H100_FP8,
                                                          rel=0.02)
    # the report's own price: $5.576M / 2.788M GPU-h = $2.00
    assert deepseek.implied_usd_per_gpu_hour == pytest.approx(2.00, abs=1e-9)
    assert deepseek.price_verdict.startswith("below")  # every H100 on-demand list price > $2
    # An FP8 claim is judged on the BF16 basis against the other comparable runs (its own left
    # out), FP8 ones included: DeepSeek-V3's 4.319e24 MFU-basis FLOPs / (2.664e6 h × 3600 ×
    # 989.4e12) = 45.5% ÷ goodput ≈ 47.5% of the BF16 peak. The best other MoE run on Hopper
    # within 4× its size is Kimi K2 on 256 H100 at 20.6% (data/validation_mfu.csv), a BF16 run.
    # With no comparable FP8 run an FP8 claim was held to it × r, r = 1.345 the largest
    # published FP8 ÷ BF16 speed-up of one plan (MosaicML llm-foundry's MPT-1B, 70,315 ÷ 52,275
    # tokens/s/GPU): 27.7%; since Megatron-Bridge 25.09's Qwen3-235B-A22B on 256 H100 (FP8-CS,
    # 20.4%) is in the table, its class has an FP8 run and the bound is the best run's own
    # figure: Kimi K2's 20.6% (47.5% 2.3× it), and since 25.11's Qwen3-235B-A22B on 256 H100
    # (FP8-CS, 1,575 tokens/s/GPU × 167.3 GFLOP/token ÷ 989.4 TFLOP/s = 26.6%, within 4× of
    # its 671B), that run's 26.6% (1.79×). A BF16 run bounds the same plan in FP8 at its MFU × r
    # whether or not an FP8 run is published (a trial's FP8 MoE capped at a BF16 run's figure),
    # r = 19.78 / 12.37 s (NVIDIA's DGX Cloud Llama 3.1 405B BF16 / FP8 on 512 H100, the
    # largest published pair within 4× of 671B). The best BF16 run is NVIDIA's NeMo AutoModel
    # benchmark of the DeepSeek-V3 architecture itself on 256 H100: 1,002 tokens/s/GPU ×
    # 2.816e11 FLOPs per token (the MFU basis at 4,096 tokens without DeepSeek's
    # multi-token-prediction module, 3 × 3.40 GFLOP) ÷ 989.4 TFLOP/s = 28.5% (a third party's
    # measurement, not DeepSeek's run: claims.own_runs keeps it, where a researcher's trial
    # found it left out with DeepSeek's own rows and the claim held to Kimi K2's 20.6% × r),
    # × r = 45.6%, so 47.5% is 1.04× it, above every other published run (the trial's rule: an
    # FP8 claim is no longer exempt), but within the claim's ±5% tolerance of it: plausible, at
    # the edge, said so (a compute-governance trial read OPTIMISTIC for the claim split by phase
    # and PLAUSIBLE for the same hours typed whole, 45.4%: the goodput assumed moves it 2-4%).
    # Against its own published runs too it is plausible: its own is the best.
    assert 1575 * 167.255e9 / 989.4e12 == pytest.approx(0.2662, abs=5e-4)
    nemo = 1002 * 2.816e11 / 989.4e12
    assert nemo == pytest.approx(0.285, abs=5e-4)
    assert deepseek.verdict == "plausible"
    assert "; at the edge: 4.4% above it, within 5% (the goodput assumed" in deepseek.reason
    assert deepseek.best_published == pytest.approx(nemo * 19.78 / 12.37, rel=0.01)
    assert deepseek.steady_state["bf16"] == pytest.approx(0.475, abs=0.005)
    assert "DeepSeek V3 671B (NeMo AutoModel pre-training benchmark, 256 H100)" in \
        deepseek.reason and "45.5% of the BF16 peak" in deepseek.reason
    own = claims.check_claim("deepseek-v3", 14.8e12, "H800", n_gpus=2048, dtype="fp8",
                             gpu_hours=2.788e6, phases=DS_PHASES, exclude_own_runs=False,
                             left_out=False)
    assert own.verdict == "plausible" and own.best_published == pytest.approx(0.475, abs=0.005)


def test_the_active_count_behind_6nd(deepseek):
    # N = 6ND / (6 D): the catalogue's active parameters (embeddings counted), against the
    # report's rounded "37B activated" (the header's source): within +-2 %, two-sided
    assert deepseek.n_active_6nd == pytest.approx(
        llmcost.load_model("deepseek-v3").n_active_params, rel=1e-12)
    assert deepseek.n_active_6nd == pytest.approx(37e9, rel=0.02)
    assert f"N = {deepseek.n_active_6nd / 1e9:.2f}B active parameters" in deepseek.describe()


def test_deepseek_v3_left_out_is_priced_from_the_ledger_defaults(deepseek):
    lines = {x["key"]: x for x in deepseek.left_out}
    assert not [k for k in lines if k.startswith("compute.pretraining")]  # the claim itself
    assert "compute.failures" not in lines  # paid hours already include failures
    # Cottier et al. 2024 median (data/ledger_defaults.csv exploratory_fraction 1.19) × the
    # claim's own 2.664M pre-training hours × its $2: 1.19 × 2.664e6 × 2 = $6,340,320
    assert lines["compute.exploratory"]["usd"] == pytest.approx(6_340_320, rel=0.01)
    assert lines["compute.exploratory"]["status"] == "default"
    # people and data have no default: "not given", never a made-up number
    assert lines["people.staff"]["status"] == "not given"
    assert "people (roles × FTE × months × loaded cost): not given (ledger_people not given" \
        in deepseek.describe()


def test_deepseek_v3_left_out_range(deepseek):
    # The exploratory default drawn as Cottier et al.'s log-normal of the multiplier M = 1 + x,
    # 90% CI 1.2-4 (App. A.6), median 2.19 (the default 1.19 + 1), cut to x in [0, 10]
    # (ledger.illustrative_ranges). By hand: μ = ln 2.19 = 0.78390, σ = ln(4 / 1.2) / (2 ×
    # 1.64485) = 0.36598; the cut keeps Φ((ln 1 − μ)/σ) = Φ(−2.1419) = 0.01610 to
    # Φ((ln 11 − μ)/σ) = 0.99999; P10 at 0.01610 + 0.1 × 0.98390 = 0.11449, Φ⁻¹ = −1.2030,
    # M = exp(μ − 1.2030 σ) = 1.4101, x = 0.4101; P90 at 0.90161, Φ⁻¹ = 1.2908, M = 3.5124,
    # x = 2.512; × 2.664e6 GPU-h × $2.
    ex = {x["key"]: x for x in deepseek.left_out}["compute.exploratory"]
    assert ex["p10_usd"] == pytest.approx(0.4101 * 2.664e6 * 2, rel=0.02)
    assert ex["p90_usd"] == pytest.approx(2.512 * 2.664e6 * 2, rel=0.02)
    p10, p50, p90 = deepseek.left_out_range_usd
    assert p10 < deepseek.left_out_usd < p90 and p10 < p50 < p90
    assert "Cottier" in deepseek.left_out_range_source


def test_goodput_and_steady_state_of_llama3_405b():
    # Llama 3.1 model card: 30.84M H100-80GB hours for 405B, the "total GPU time required for
    # training" (pre-training at 8K context and the long-context stage); Llama 3 paper: 15.6T
    # tokens, 16,384 GPUs, ">90% effective training time" (§3.3.4), Table 4: every stage ran at
    # 38% (128K context) to 43% BF16 MFU. Like with like: the total blends those stages, so the
    # steady-state MFU it implies after goodput lies between the lowest and highest stage.
    c = claims.check_claim("llama-3.1-405b", 15.6e12, "H100-SXM", n_gpus=16384,
                           gpu_hours=30.84e6, left_out=False)
    assert 0.90 <= c.goodput <= 0.95
    assert 0.38 <= c.steady_state["bf16"] <= 0.43
    assert c.verdict == "plausible"


def test_a_stated_mfu_gives_the_hours():
    # Llama 3 405B (arXiv:2407.21783 Table 4): 41% BF16 MFU, 16,384 H100, 8K context; 15.6T
    # tokens. Hand, MFU basis (full mask; the input embedding is a lookup, not a matmul): per
    # token 6·(N − V·d) + 12·L·d·s = 6 × (405.86e9 − 128256 × 16384) + 12 × 126 × 16384 × 8192
    # = 2.4226e12 + 2.0294e11 = 2.6255e12 FLOPs; × 15.6e12 tokens = 4.0958e25. Steady-state
    # hours C / (989.4e12 × 0.41 × 3600) = 28.05M, then ÷ goodput (0.90-0.95: ">90% effective
    # training time", §3.3.4). Like with like: the steady-state hours, not the model card's
    # 30.84M total (which also holds the long-context stage).
    c = claims.check_claim("llama-3.1-405b", 15.6e12, "H100-SXM", n_gpus=16384, mfu=0.41,
                           left_out=False)
    assert c.flops_mfu_basis == pytest.approx(4.0957e25, rel=0.01)
    assert c.gpu_hours * c.goodput == pytest.approx(28.05e6, rel=0.01)
    assert 0.90 <= c.goodput <= 0.95
    assert c.hours_source.startswith("from the stated MFU")
    with pytest.raises(ValueError, match=r"mfu=1.5 must be"):
        claims.check_claim("llama-3.1-405b", 15.6e12, "H100-SXM", mfu=1.5)


def test_cost_only_claim_gives_the_price_it_needs():
    # The issue's cost-only claim: DeepSeek-V3, 14.8T tokens, H800, $5.576M, no hours, no GPU
    # count (goodput 1). The best published comparable run (accuracy.comparable_published_mfu:
    # an MoE on Hopper within 4x its 671B total parameters, BF16 for a claim stated in BF16,
    # DeepSeek-AI's own runs left out, a third party's benchmark of the architecture kept:
    # claims.own_runs) is NVIDIA's NeMo AutoModel pre-training benchmark of DeepSeek-V3 on 256
    # H100, 1,002 tokens/s/GPU × 2.816e11 FLOPs ÷ 989.4 TFLOP/s = 28.5% of the BF16 peak
    # (test_deepseek_v3_flops_hours_and_price); the dense Megatron-LM README's 47% no longer
    # stands for an MoE. Low end LOW_SHARE × best. Needed price = usd ÷
    # (C / (989.4e12 × m × 3600)).
    c = claims.check_claim("deepseek-v3", 14.8e12, "H800", usd=5.576e6, dtype="bf16",
                           left_out=False)   # (stating no dtype takes its published FP8 run's)
    lo, hi = c.needed_usd_per_gpu_hour
    best = c.needed_mfu_range[1]
    assert best == pytest.approx(1002 * 2.816e11 / 989.4e12, abs=5e-4)
    assert c.best_source.startswith("DeepSeek V3 671B (NeMo AutoModel pre-training benchmark")
    assert c.needed_mfu_range[0] == pytest.approx(claims.LOW_SHARE * best)
    hours_at_best = c.flops_mfu_basis / (H100_BF16 * best * 3600)
    assert hi == pytest.approx(5.576e6 / hours_at_best, rel=1e-9) and lo == pytest.approx(hi / 2)
    # the report's own $2/GPU-h (Table 1) lies above the range: at $2 the FLOPs need ~43% of
    # the BF16 peak, 1.5× any BF16 MoE published on Hopper; DeepSeek-V3 trained in FP8 with
    # its own DualPipe (its report §3.3), the record of its class
    assert lo < hi < 2.00
    # catalogue: the lowest current H100 on-demand price (RunPod $2.69, data/prices.csv) is
    # above even the highest needed price: optimistic for on-demand, said with the numbers
    assert c.verdict == "optimistic" and "cost-only claim" in c.reason
    assert "$2.69" in c.reason and c.implied_usd_per_gpu_hour is None
    # its utilisation is the one its hours were taken at, not implied (a researcher's trial
    # read "implied 74.8%" of a cost-only claim); a claim of hours implies its own
    text = " ".join(c.describe().split())
    assert "Assumed (no hours stated: the hours above) whole-run utilisation" in text
    assert "Implied whole-run utilisation" in " ".join(claims.check_claim(
        "deepseek-v3", 14.8e12, "H800", gpu_hours=2.788e6, left_out=False).describe().split())
    assert "MFU" not in c.verdict  # no "MFU 1.29 > 1" refusal about hours never given


def test_owned_pricing_uses_the_ledger_amortisation():
    # pricing: owned (scenario.PRICING) on an H100: the ledger's owned amortisation, Cottier et
    # al. 2024 (llmcost.pricing): capex $27,500 × 1.64 / (1 − 0.19) × 0.14·ln 10 / 8,766 h =
    # $2.046/GPU-h, plus energy; no catalogue range.
    import math
    capex = 27_500 * 1.64 / (1 - 0.19) * 0.14 * math.log(10) / 8766
    c = claims.check_claim("llama-2-70b", 2e12, "H100-SXM", n_gpus=2048, gpu_hours=7e5,
                           usd=1.0e6, pricing="owned", left_out=False)
    assert c.price["n"] == 1 and c.price["low"] == c.price["high"]
    assert capex < c.price["median"] < capex + 0.5  # energy is cents per GPU-hour
    assert c.price_verdict.startswith("below the owned amortisation")  # $1.43 < ~$2.14
    # no sourced purchase price for an A100: no comparison, said so (not a crash)
    a = claims.check_claim("llama-2-70b", 2e12, "A100-80GB", gpu_hours=2e6, pricing="owned",
                           left_out=False)
    assert a.price["n"] == 0 and "no catalogue comparison" in a.price_verdict


def test_owned_pricing_compares_with_the_scenarios_own_purchase_price():
    # a trial's owned scenario at $30,000 per GPU, $0.08/kWh, PUE 1.2: its bill's GPU-hour, by
    # hand (Cottier et al. 2024 §2.2-2.3), $30,000 × 1.64 ÷ 0.81 × 0.14·ln 10 ÷ 8,766 h = $2.234
    # + 0.7 kW × 1.82 × 0.75 × 1.2 × $0.08 = $0.092; the check compared with the $27,500
    # default's $2.14 while saying it used the scenario's ledger_owned_usd_per_gpu
    import math
    want = 30_000 * 1.64 / 0.81 * 0.14 * math.log(10) / 8766 + 0.7 * 1.82 * 0.75 * 1.2 * 0.08
    assert want == pytest.approx(2.326, abs=1e-3)
    keys = {"ledger_owned_usd_per_gpu": 30_000, "ledger_electricity_usd_per_kwh": 0.08,
            "ledger_pue": 1.2}
    c = claims.check_claim("llama-3.1-70b", 2e12, "H100-SXM", n_gpus=512, days=20, usd=5e5,
                           pricing="owned", left_out=False, ledger_keys=keys)
    assert c.price["median"] == pytest.approx(want, rel=1e-6)
    assert "$30,000 per GPU, the scenario's ledger_owned_usd_per_gpu" in c.price["source"]
    assert f"${want:.2f}/GPU-h" in c.price_verdict
    # the keys give an A100's owned hour a price too (its own purchase price)
    a = claims.check_claim("llama-2-70b", 2e12, "A100-80GB", gpu_hours=2e6, usd=3e6,
                           pricing="owned", left_out=False,
                           ledger_keys={"ledger_owned_usd_per_gpu": 15_000})
    assert a.price["n"] == 1 and "the scenario's ledger_owned_usd_per_gpu" in a.price["source"]


def test_scenario_as_claim_with_owned_pricing():
    # notebook 08 §5 with `pricing: owned` (it crashed before fix-16). Hand: Llama 2 70B on 2T
    # tokens at 4K context, MFU basis per token 6·(N − V·d) + 12·L·d·s = 6 × (68.98e9 − 32000 ×
    # 8192) + 12 × 80 × 8192 × 4096 = 4.1231e11 + 3.2212e10 = 4.445e11 FLOPs; × 2e12 = 8.89e23;
    # ÷ (989.4e12 × 0.40 × 3600) = 624,000 GPU-h, ÷ goodput (0.95-1 on 2,048 GPUs).
    hours, g, c = claims.scenario_as_claim("llama-2-70b", 2e12, "H100-SXM", 2048, 0.40,
                                           seq_len=4096, pricing="owned")
    assert hours * g == pytest.approx(8.89e23 / (H100_BF16 * 0.40 * 3600), rel=0.01)
    assert 0.95 <= g <= 1 and c.verdict == "plausible"
    assert "owned amortisation" in c.price_verdict


def test_the_published_split_is_only_beside_a_claim_of_the_published_run():
    # DeepSeek-V3's split (Table 1 of arXiv:2412.19437) belongs to its run on 14.8T tokens: a
    # DeepSeek-V3-shaped model on 2T tokens is another run, with no split beside it; within
    # the tolerance of the published tokens it is the published run's
    other = claims.check_claim("deepseek-v3", 2e12, "B200", n_gpus=256, dtype="fp8",
                               gpu_hours=150_000, left_out=False)
    assert other.published_phase_gpu_hours == {}
    assert not any("splits deepseek-v3's GPU-hours" in n for n in other.notes)
    assert "published split" not in other.describe()
    same = claims.check_claim("deepseek-v3", 14.8e12 * 1.03, "H800", n_gpus=2048, dtype="fp8",
                              gpu_hours=3.5e6, left_out=False)
    assert same.published_phase_gpu_hours["pre-training"] == 2.664e6


def test_a_claim_is_judged_as_given_with_the_published_split_beside_it():
    # DeepSeek-V3's 2.788M total = 2,664K + 119K + 5K (Table 1, data/published_phases.csv). A
    # claim of 2.9M GPU-h (within 5 % of that total) is judged as given, not replaced by the
    # published split; the split is shown beside it
    c = claims.check_claim("deepseek-v3", 14.8e12, "H800", n_gpus=2048, dtype="fp8",
                           gpu_hours=2.9e6, left_out=False)
    assert c.gpu_hours == 2.9e6 and c.pretraining_gpu_hours == 2.9e6
    assert c.phase_gpu_hours == {}
    assert c.published_phase_gpu_hours == {"pre-training": 2.664e6, "context extension": 119e3,
                                           "post-training": 5e3}
    assert any("judged as given" in n and "published total 2,788,000" in n for n in c.notes)
    assert "published split (beside the claim, not applied)" in c.describe()
    # hours that are not the published total: judged as given, the split is named
    c2 = claims.check_claim("deepseek-v3", 14.8e12, "H800", n_gpus=2048, dtype="fp8",
                            gpu_hours=3.5e6, left_out=False)
    assert c2.pretraining_gpu_hours == 3.5e6
    assert any("splits deepseek-v3's GPU-hours by phase" in n for n in c2.notes)
    # the split applies when the caller gives it
    c3 = claims.check_claim("deepseek-v3", 14.8e12, "H800", n_gpus=2048, dtype="fp8",
                            phases=c.published_phase_gpu_hours, left_out=False)
    assert c3.pretraining_gpu_hours == 2.664e6


def test_too_few_hours_is_implausible_and_far_too_few_are_refused():
    # Llama 2 7B on 2T tokens. Hand, 6ND: 6 × 6.74e9 × 2e12 = 8.09e22 FLOP; the causal count
    # adds causal attention, 8.573e22. In 20,000 H100-hours: 8.573e22 ÷ (20,000 × 3600 ×
    # 989.4e12) = 1.20 × the dense BF16 peak: implausible, with a reason (a claim just above
    # the peak is judged: its basis may differ)
    c = claims.check_claim("llama-2-7b", 2e12, "H100-SXM", gpu_hours=20_000, left_out=False)
    assert c.whole_run_6nd["bf16"] == pytest.approx(8.09e22 / (20_000 * 3600 * H100_BF16),
                                                    rel=0.02)
    assert c.whole_run_causal["bf16"] == pytest.approx(1.20, abs=0.01)
    assert c.verdict == "implausible" and "above the dense peak itself" in c.reason
    # A new-user trial: 1,000 H100-hours (24.1× the peak by hand: 8.573e22 ÷ (1,000 × 3600 ×
    # 989.4e12), days typed as hours) gave a 40-line verdict on a 2,407% MFU; far above the
    # peak (beyond 10×) the figure is refused, the hours named
    with pytest.raises(ValueError, match=r"gpu_hours=1000.0 imply a whole-run utilisation of "
                                         r"2,407% of the dense BF16 peak .*must be at most 10×"):
        claims.check_claim("llama-2-7b", 2e12, "H100-SXM", gpu_hours=1000, left_out=False)
    # the edge, two-sided: 9.5× judged, 10.5× refused (hours = C ÷ (u × 3600 × P)); an
    # exaggerated claim at 5× the peak is judged (a compute-governance trial's 70B on 15T
    # tokens on 512 H100s in 30 days got an error where a bulk check needs a verdict)
    fc = c.flops_causal
    for u in (1.45, 5.0, 9.5):
        assert claims.check_claim("llama-2-7b", 2e12, "H100-SXM", left_out=False,
                                  gpu_hours=fc / (u * 3600 * H100_BF16)).verdict == "implausible"
    with pytest.raises(ValueError, match="must be at most 10×"):
        claims.check_claim("llama-2-7b", 2e12, "H100-SXM", left_out=False,
                           gpu_hours=fc / (10.5 * 3600 * H100_BF16))
    # and far below any run: a trial's 1e15 GPU-hours read "LOW: steady-state MFU 0.0%".
    # Below a millionth of the peak (claims.MIN_IMPLIED_UTILISATION, a thousand times under the
    # 0.1% a scenario's MFU is held to, scenario.MFU_FLOOR) the hours are refused; between the
    # two a derived figure is judged, as a review asked (two-sided, model-FLOP basis:
    # hours = C_mfu ÷ (u × 3600 × P))
    from llmcost.bill.scenario import MFU_FLOOR
    assert claims.MIN_IMPLIED_UTILISATION == MFU_FLOOR / 1000 == 1e-6
    fm = c.flops_mfu_basis
    for u in (1.05e-6, 5e-4):
        assert claims.check_claim("llama-2-7b", 2e12, "H100-SXM", left_out=False,
                                  gpu_hours=fm / (u * 3600 * H100_BF16)).verdict == "low"
    # by hand: 9.217e22 FLOPs (MFU basis, full attention at 4,096) ÷ (1e15 × 3600 × 989.4e12)
    # = 2.59e-11
    assert fm == pytest.approx(9.217e22, rel=1e-3)
    with pytest.raises(ValueError, match=r"gpu_hours=1000000000000000.0 imply a whole-run "
                                         r"utilisation of 2.6e-11 of the dense BF16 peak: must "
                                         r"be at least 1e-06 .*mistyped"):
        claims.check_claim("llama-2-7b", 2e12, "H100-SXM", left_out=False, gpu_hours=1e15)
    with pytest.raises(ValueError, match="must be at least 1e-06"):
        claims.check_claim("llama-2-7b", 2e12, "H100-SXM", left_out=False,
                           gpu_hours=fm / (0.95e-6 * 3600 * H100_BF16))
    # a judged figure that small is printed with its digits, not "0.0%" (a review): hand,
    # 9.217e22 ÷ (5e9 × 3600 × 989.4e12) = 5.2e-6 = 0.00052%
    low = claims.check_claim("llama-2-7b", 2e12, "H100-SXM", left_out=False, gpu_hours=5e9)
    assert low.verdict == "low" and "steady-state MFU 0.00052% of the BF16 peak" in low.reason
    assert not re.search(r"(?<![\d.])0\.0%", low.describe().split("Ceiling")[0])


def test_a_claim_as_training_flops_or_without_tokens():
    # Epoch-style: total training compute on 6ND. Llama 2 70B: 6 × 68.98e9 × 2e12 = 8.28e23
    # FLOP -> D = 2e12 tokens back
    n = llmcost.load_model("llama-2-70b").n_active_params
    c = claims.check_claim("llama-2-70b", accelerator="A100-80GB", train_flops=6 * n * 2e12,
                           gpu_hours=1_720_320, left_out=False)
    assert c.train_tokens == pytest.approx(2e12, rel=1e-9)
    assert any("6ND convention" in x for x in c.notes)
    with pytest.raises(ValueError, match="train_flops"):  # FLOPs that disagree with the tokens
        claims.check_claim("llama-2-70b", 1e12, "A100-80GB", train_flops=6 * n * 2e12,
                           gpu_hours=1_720_320, left_out=False)
    # no token count: the catalogue's published tokens (Llama 2 paper: 2.0T)
    c2 = claims.check_claim("llama-2-70b", accelerator="A100-80GB", gpu_hours=1_720_320,
                            left_out=False)
    assert c2.train_tokens == llmcost.load_model("llama-2-70b").train_tokens == 2e12
    assert any("published" in x and "tokens" in x for x in c2.notes)


def test_a_claim_takes_a_modelspec_and_a_config_json(tmp_path):
    path = Path(__file__).parent / "data" / "hf_configs" / "llama-3.1-8b.json"
    spec = llmcost.ModelSpec.from_hf_config(path)
    by_path = claims.check_claim(str(path), 15e12, "H100-SXM", gpu_hours=1.46e6, seq_len=8192,
                                 left_out=False)
    by_spec = claims.check_claim(spec, 15e12, "H100-SXM", gpu_hours=1.46e6, seq_len=8192,
                                 left_out=False)
    assert by_path.flops_6nd == by_spec.flops_6nd == pytest.approx(
        6 * spec.n_active_params * 15e12)
    with pytest.raises(ValueError, match="model="):
        claims.check_claim(str(tmp_path / "missing.json"), 15e12, "H100-SXM", gpu_hours=1e6)


def test_implausible_claim_above_the_matmul_ceiling():
    # "70B dense on 2T tokens, 1,000 H100 for 12 days": 288,000 GPU-h. Hand, 6ND with 70e9:
    # 8.4e23 / (288,000 × 3600 × 989.4e12) = 0.819 of the BF16 peak, above the H100's
    # achievable matmul fraction 0.801 (stas00 MAMF: 792.1 of 989 TFLOP/s, data/efficiency.csv).
    c = claims.check_claim("llama-2-70b", 2e12, "H100-SXM", n_gpus=1000, days=12,
                           left_out=False)
    assert c.gpu_hours == 288_000
    assert c.whole_run_6nd["bf16"] == pytest.approx(0.819, rel=0.02)
    assert c.ceiling == pytest.approx(0.801, abs=0.001)
    assert c.verdict == "implausible"
    # 18 days: 6ND 0.55, MFU basis 0.58: above the best published H100 figure of a comparable
    # dense BF16 run (54.6%, NVIDIA's DGX Cloud Llama 3.1 70B on 64 H100) but under the ceiling
    c18 = claims.check_claim("llama-2-70b", 2e12, "H100-SXM", n_gpus=1000, days=18,
                             left_out=False)
    assert c18.verdict == "optimistic"


def test_low_claim_covers_several_runs():
    # Llama 2 model card: 3,311,616 A100-80GB hours is the cumulative figure of all four sizes;
    # the 70B row is 1,720,320. Hand, 6ND: 8.4e23 / (3,311,616 × 3600 × 312e12) = 0.226, under
    # half of the best A100 figure for a model within 4x of 70B: MosaicML llm-foundry's MPT 30B
    # at sequence 512 on 8 A100-80GB, 967 tokens/s/GPU (scripts/train/benchmarking/README.md)
    # x 1.8185e11 FLOPs per token (full mask) / 312e12 = 56.4% (it was Korthikanti et al. 2022
    # Table 5's 51.4% before the llm-foundry rows joined the validation table). With the claim's
    # context counted (the model's 4,096 tokens; comparable: 1,024-16,384, accuracy.SEQ_FACTOR)
    # the 512-token row is left out and the same benchmark's 1,024-token row is the best: 946
    # tokens/s/GPU × (1.8185e11 + 12 × 48 × 7168 × 512 more attention FLOPs at 1,024 tokens)
    # / 312e12 = 55.8%
    c = claims.check_claim("llama-2-70b", 2e12, "A100-80GB", gpu_hours=3_311_616, left_out=False)
    assert c.whole_run_6nd["bf16"] == pytest.approx(0.226, rel=0.02)
    assert c.best_published == pytest.approx(946 * (1.8185021e11 + 12 * 48 * 7168 * 512) / 312e12,
                                             rel=1e-3)
    assert c.verdict == "low"
    own = claims.check_claim("llama-2-70b", 2e12, "A100-80GB", gpu_hours=1_720_320,
                             left_out=False)
    assert own.verdict == "plausible"


def test_low_share_rule_on_hand_derived_runs():
    """claims.LOW_SHARE = 0.5 against hand derivations (not the code's own table)."""
    # Llama 3 8B model card: 1.3M H100 GPU-hours for 15T tokens (a total over more than one
    # stage). Hand, MFU basis: per token 6·(N − V·d) + 12·L·d·s = 6 × (8.03e9 − 128256 × 4096)
    # + 12 × 32 × 4096 × 8192 = 4.5028e10 + 1.2885e10 = 5.791e10 FLOPs (input embedding a
    # lookup, full mask); × 15e12 ÷ (1.3e6 × 3600 × 989.4e12) = 0.188; even ÷ a goodput of 0.9
    # it is 0.21, under half the best comparable Hopper figure, NVIDIA's DGX Cloud benchmark of
    # the same architecture (81,222 tokens/s on 8 H100 = 10,152.75 per GPU × 5.791e10 ÷
    # 989.4e12 = 59.4%, NVIDIA/dgxc-benchmarking llama3.1/README_8b.md @ 143b90d; a third
    # party's benchmark, kept by claims.own_runs): "low".
    u = 15e12 * (6 * (8.03e9 - 128256 * 4096) + 12 * 32 * 4096 * 8192) / (
        1.3e6 * 3600 * H100_BF16)
    c = claims.check_claim("llama-3.1-8b", 15e12, "H100-SXM", gpu_hours=1.3e6, seq_len=8192,
                           left_out=False)
    assert c.best_published == pytest.approx(
        81_222 / 8 * (6 * (8.03e9 - 128256 * 4096) + 12 * 32 * 4096 * 8192) / H100_BF16, rel=1e-3)
    assert c.whole_run["bf16"] == pytest.approx(u, rel=0.05)
    assert u / 0.9 < claims.LOW_SHARE * c.best_published
    assert c.steady_state["bf16"] < claims.LOW_SHARE * c.best_published
    assert c.verdict == "low"
    # BLOOM's final run (row notes): 6ND 0.318 of the A100 peak, above half the best A100 figure
    # for its size (Korthikanti et al. 2022 Table 5, 530B: 56.0%) = 0.28 even on 6ND with
    # goodput 1: not "low".
    b = claims.check_claim("bloom-176b", 366e9, "A100-80GB", n_gpus=384, gpu_hours=1_082_990,
                           left_out=False)
    assert b.best_published == pytest.approx(0.56, abs=1e-3)
    assert b.whole_run_6nd["bf16"] == pytest.approx(0.318, rel=0.02)
    assert b.whole_run_6nd["bf16"] > claims.LOW_SHARE * b.best_published
    assert b.steady_state["bf16"] > claims.LOW_SHARE * b.best_published
    assert b.verdict == "plausible"


def _low_share_comment() -> str:
    """The comment above ``LOW_SHARE = `` in llmcost/bill/claims.py, its lines joined."""
    lines = Path(claims.__file__).read_text().splitlines()
    end = next(i for i, x in enumerate(lines) if x.startswith("LOW_SHARE = "))
    start = end
    while lines[start - 1].startswith("#:"):
        start -= 1
    return " ".join(x.removeprefix("#:").strip() for x in lines[start:end])


def _whole_run_shares() -> dict:
    """Each published whole run's steady MFU ÷ the best comparable run, its own model left out,
    as ``check_claim`` compares a claim (``best_reference``: its class, size, dtype, context)."""
    out = {}
    for r in claims.whole_run_rows().itertuples():
        moe = bool(r.params_active < r.params_total)  # NaN active: dense
        best, _ = claims.best_reference(
            r.accelerator, r.params_total, exclude_model=r.catalog_model, is_moe=moe,
            dtype="fp8" if r.precision == "FP8" else "bf16",
            seq_len=None if pd.isna(r.seq_len) else int(r.seq_len))
        if best is not None:
            out[r.model] = r.steady_mfu / best
    return out


def test_an_fp8_bound_that_ties_an_fp8_run_is_that_runs_own_figure():
    # A review: an FP8 claim bounded by an FP8 run whose BF16 twin × r (r that very pair's) gives
    # the same figure was worded "one BF16 run × r, higher than every published FP8 run",
    # false: it is the FP8 run's own figure. NVIDIA's DGX Cloud Llama 3.1 405B FP8 on 512 H100
    # (331.12 tokens/s/GPU; steps of 12.37 s FP8 and 19.78 s BF16, NVIDIA/dgxc-benchmarking
    # llama3.1/README.md @ 85380ff), a third party's benchmark of the architecture and so a
    # reference for a 405B FP8 claim (claims.own_runs), is that run and that pair. (Before, a
    # Llama 3.1 70B claim tied GPT-3 175B's DGX Cloud FP8 run; with NVIDIA's own Llama 3.1 70B
    # BF16 benchmark kept, 54.6% × 1.51 = 82.1% bounds that claim instead.)
    spec = llmcost.load_model("llama-3.1-405b")
    fp8_run = 331.12 * spec.flops_per_token(8192, causal=False) / H100_BF16
    c = claims.check_claim("llama-3.1-405b", 15.6e12, "H100-SXM", n_gpus=16384,
                           gpu_hours=2.4e7, dtype="fp8", seq_len=8192)
    assert c.best_published == pytest.approx(fp8_run, rel=0.02)
    text = c.describe()
    assert "Llama 3.1 405B FP8 (NVIDIA DGX Cloud benchmarking, 512 H100)" in text
    assert "that bound is one BF16 run" not in text and "higher than every" not in text


def test_low_share_comment_quotes_the_shares_the_code_computes():
    # The comment on claims.LOW_SHARE quotes each published whole run's share of its best
    # comparable run: recomputed here, so that it cannot drift when references join the tables
    # (the llm-foundry MPT rows, 52-64% on 8 A100-80GB, moved Pythia 12B from 0.51 to 0.43).
    shares, comment = _whole_run_shares(), _low_share_comment()
    quoted = {m: float(x.group(1)) for m in shares
              if (x := re.search(re.escape(m) + r" (\d\.\d\d)\b", comment))}
    assert len(quoted) >= 11
    for m, q in quoted.items():
        assert shares[m] == pytest.approx(q, abs=0.006), m
    # The rule the "low" words follow: real single final runs sit under LOW_SHARE (Pythia's
    # GPU-hours from its logged iteration time, Biderman et al. 2023 Table 5 as quoted in
    # data/published_runs.csv; BloombergGPT's 53 days on 512 A100, Wu et al. 2023), close to
    # the model-card totals of more than one stage (Llama 3 and 3.1 8B, within 0.1 of the
    # lowest final run): too few to set a share between them, so the reason must not say the
    # figure covers more than the final run.
    single = [shares[m] for m in ("Pythia 12B", "Pythia 70M", "BloombergGPT 50B")]
    totals = [shares[m] for m in ("Llama 3 8B", "Llama 3.1 8B")]
    assert max(single) < claims.LOW_SHARE and max(totals) < claims.LOW_SHARE
    assert abs(min(single) - max(totals)) < 0.1
    for m in ("BLOOM 176B", "Llama 2 70B", "Falcon-180B", "DeepSeek-V3"):
        assert shares[m] > claims.LOW_SHARE, m


def test_a_real_final_run_judged_low_is_not_called_a_total():
    # Pythia 12B's final run as a claim: 299.89B tokens (EleutherAI/pythia README), 72,300
    # A100-40GB GPU-hours on 256 GPUs (Biderman et al. 2023 Table 5, as quoted in
    # data/published_runs.csv). Its steady MFU (27.6% of the BF16 peak) is 0.43 of the best
    # comparable run (MPT 7B, llm-foundry on 8 A100-80GB, 64.1%): "low", with both readings
    row = llmcost.load_published_runs().set_index("run_id").loc["pythia-12b"].to_dict()
    spec = claims.run_model(dict(row, run_id="pythia-12b"))
    c = claims.check_claim(spec, 299.89e9, "A100-40GB", n_gpus=256, gpu_hours=72_300,
                           left_out=False)
    assert c.best_published == pytest.approx(0.641, abs=0.002)
    assert c.steady_state["bf16"] / c.best_published == pytest.approx(0.43, abs=0.01)
    assert c.verdict == "low"
    assert "probably covers more" not in c.reason
    assert "or the run was that far below the best published one" in c.reason
    assert claims.LOW_WORDS in c.reason


def test_best_reference_excludes_the_claimed_models_own_row():
    rows = claims._whole_run_rows()
    assert "deepseek-v3" in set(rows["catalog_model"])
    _, src = claims.best_reference("H800", 671e9, exclude_model="deepseek-v3", is_moe=True,
                                   dtype="fp8")
    # neither its whole-run row nor DeepSeek-AI's throughput (deepseek-v3-pretrain, 45.5% of
    # BF16); a third party's benchmark of the architecture is not its own run and stays
    # (claims.own_runs: NVIDIA's NeMo AutoModel DeepSeek-V3 on 256 H100, a researcher's trial)
    assert claims.own_runs("deepseek-v3") == ("deepseek-v3", "deepseek-v3-pretrain")
    # the developers' own rows of each model, read off their sources (Meta's Llama 3 and 3.1
    # model cards and paper; DeepSeek-AI's report), nothing of NVIDIA's or PyTorch's (a review:
    # torchtitan's tables of Llama 3.1 were taken for Meta's own runs)
    assert set(claims.own_runs("llama-3.1-8b")) == {"llama3-8b", "llama31-8b"}
    assert set(claims.own_runs("llama-3.1-70b")) == {"llama3-70b", "llama31-70b"}
    assert set(claims.own_runs("llama-3.1-405b")) == {"llama3-405b", "llama3-t4-405b-8192gpu",
                                                      "llama3-t4-405b-128k"}
    run = src.split("; rule:")[0]
    assert run.startswith("DeepSeek V3 671B (NeMo AutoModel pre-training benchmark, 256 H100)")
    c = claims.check_claim("deepseek-v3", 14.8e12, "H800", gpu_hours=2.664e6, left_out=False)
    assert "45.5%" not in c.best_source and "NeMo AutoModel" in c.best_source


@pytest.mark.parametrize("kwargs, words", [
    (dict(n_gpus=2048, days=30, gpu_hours=2.788e6), "inconsistent claim"),
    (dict(gpu_hours=2e6, phases={"context extension": 1e5}), "must include 'pre-training'"),
    (dict(gpu_hours=2e6, phases={"pre-training": 1e6}), "sum of phases"),
    (dict(), "needs gpu_hours"),
    (dict(gpu_hours=2e6, n_gpus=2.5), "n_gpus"),
])
def test_inconsistent_claims_are_refused(kwargs, words):
    with pytest.raises(ValueError, match=None) as info:
        claims.check_claim("deepseek-v3", 14.8e12, "H800", left_out=False, **kwargs)
    assert words in str(info.value)


def test_unknown_accelerator_and_fp8_on_a100():
    with pytest.raises(ValueError, match="Z100"):
        claims.check_claim("llama-2-70b", 2e12, "Z100", gpu_hours=1e6)
    with pytest.raises(ValueError, match="fp8"):
        claims.check_claim("llama-2-70b", 2e12, "A100-80GB", gpu_hours=2e6, dtype="fp8")


# ------------------------------------------------------------------ the published-runs table
@pytest.fixture(scope="module")
def errors():
    return claims.published_run_errors().set_index("run_id")


def test_published_utilisation_matches_the_papers(errors):
    # LLaMA (Touvron et al. 2023 §2.4): 380 tokens/s/GPU on 2048 A100 for 65B:
    # 6 × 65.2e9 × 380 / 312e12 = 0.4765 (6ND). Table 15's 1,022,362 GPU-h give the same within
    # 1% once the MFU basis (attention included) is converted back to 6ND.
    spec = llmcost.load_model("llama-1-65b")
    f = float(spec.flops_per_token(2048, causal=False))
    u6 = errors.loc["llama1-65b", "published_mfu"] * 6 * spec.n_active_params / f
    assert u6 == pytest.approx(0.4765, rel=0.01)
    # BLOOM (row notes): 6ND/(1,082,990 GPU-h × 312e12) = 0.318 (derived in the CSV)
    spec = llmcost.load_model("bloom-176b")
    f = float(spec.flops_per_token(2048, causal=False))
    u6 = errors.loc["bloom-176b", "published_mfu"] * 6 * spec.n_active_params / f
    assert u6 == pytest.approx(0.318, rel=0.02)


def test_leave_one_out_never_sees_its_own_row():
    runs = llmcost.load_published_runs()
    base = claims.published_run_errors(runs).set_index("run_id")
    changed = runs.copy()
    changed.loc[changed["run_id"] == "llama2-7b", "reported_gpu_hours"] = 1e7
    after = claims.published_run_errors(changed).set_index("run_id")
    assert after.loc["llama2-7b", "predicted_mfu"] == base.loc["llama2-7b", "predicted_mfu"]
    assert after.loc["llama2-13b", "predicted_mfu"] != base.loc["llama2-13b", "predicted_mfu"]


def test_plan_rows_use_the_step_time_model(errors):
    assert errors.loc["falcon-180b", "method"].startswith("step-time model")
    assert "TP8" in errors.loc["falcon-180b", "plan"]
    assert errors.loc["llama3-405b", "method"].startswith("step-time model")
    # DeepSeek-V3's pre-training (PP 16 over 61 layers, uneven stages, EP 64) runs on the
    # validation table's row; the duplicate whole-run row of the same run is not scored twice
    assert errors.loc["deepseek-v3-pretrain", "method"].startswith("step-time model")
    assert errors.loc["deepseek-v3", "method"] == "not scored"
    assert "the same run as deepseek-v3-pretrain" in errors.loc["deepseek-v3", "note"]
    h100 = errors[(errors["generation"] == errors.loc["llama3-8b", "generation"])
                  & (errors["scored"] == "gpu_hours")]
    assert "deepseek-v3" not in h100.index  # not in the leave-one-out medians either
    for rid in ("gpt3-175b", "chinchilla-70b", "gopher-280b"):
        assert errors.loc[rid, "method"] == "not scored" and errors.loc[rid, "note"]


#: REGRESSION PIN (not a sourced check): the error table of ``claims.published_run_errors`` as
#: the code computed it on branch issue-16 (predicted GPU-hours ÷ published − 1), recorded to
#: catch unintended changes. Re-bless with a reason when the step-time model changes (another branch
#: was extending llmcost/step.py at the same time: re-bless after that merge if the
#: step-time rows move). The sourced checks are the tests above and tests/test_step.py.
#: Re-blessed after the ZeRO-3 per-layer physics merged (ZeRO-3 per-layer physics: the DeepSpeed ZeRO-3 175B row
#: moves from -77.7% to +0.1%, NeMo FSDP2 from -4.4% to +3.9%; the new published run
#: deepseek-v3-pretrain enters the H100 leave-one-out medians of the llama3/31 and deepseek-v3
#: rows and the plan rows, now 32 of 34 within ±20%, were 25 of 33).
ERROR_TABLE_PIN = {
    # re-blessed for the straggler wait (llmcost.straggler) after merging moe-dispatch:
    # the rows the step-time model predicts move by 1-3 points
    # re-blessed for the straggler wait (llmcost.straggler: compute × 1.48%·(e(N) −
    # e(8))): the rows the step-time model predicts move by 1-3 points; the leave-one-out rows
    # (llama1/2, pythia, ...) do not
    "bloom-176b": -0.2573, "llama1-7b": +0.3473, "llama1-13b": +0.5746, "llama1-33b": +0.3931,
    "llama1-65b": +0.4414, "llama2-7b": +0.2957, "llama2-13b": +0.2255, "llama2-70b": +0.3389,
    "megatron21-t1-1p7b": -0.0092, "megatron21-t1-529p6b": +0.0222,
    "megatron21-t2-175b-1536": -0.0495, "megatron21-t2-zero3-175b-1536": +0.0076,
    "korthikanti22-1t": +0.1105, "bloomberggpt-50b": -0.2880, "pythia-70m": -0.4803,
    "pythia-12b": -0.2095, "llama3-405b": +0.0986, "llama3-t4-405b-128k": -0.0654,
    # re-blessed for PyTorch's context-parallel ring (StepOptions.cp_overlap="torch_ring": its
    # merges and fp32 gradient buffers): NeMo AutoModel's CP-2 row +5.2% -> +6.1%; re-blessed
    # for FSDP2's copies around its collectives (StepOptions.fsdp_copies, on by default on the
    # FSDP2 stacks): +6.1% -> +15.0% (its MFU error -5.8% -> -13.0%, validate_mfu item 19);
    # re-blessed for FSDP2's one backward all-gather under full recomputation
    # (stacks.Stack.recompute_regathers, tests/test_fsdp_recompute_gathers.py): +15.0% -> +13.3%;
    # re-blessed for a CP ring's calls without a mask at the kernel's unmasked rate
    # (StepOptions.ring_unmasked, tests/test_ring_unmasked.py): +13.3% -> +12.4%
    # (its MFU error -13.0% -> -11.8%); re-blessed for the attention kernel's curve on the
    # FlashAttention stacks (StepOptions.attention_curve="flash": its SDPA FlashAttention-2 at
    # the measured H100 rate for 4,096 tokens per CP rank): +12.4% -> +15.2% (-11.0% -> -13.2%)
    "nemo-automodel-llama3-70b-h100": +0.1525, "llama3-8b": -0.4078, "llama3-70b": +0.0938,
    # moe-dispatch: deepseek-v3-pretrain +8.7% -> -26.1% (its stack's per-node dispatch with a
    # 4-node limit; the published GPU-hours are a whole run's, the step a steady state's)
    # fix-moe + straggler: FP8 dispatch / BF16 combine (DeepSeek-V3 §3.3.3), the node-limited
    # count by §2.1.2's rule (3.95 nodes per token instead of 3.63) and the straggler wait
    # step-time model III part 2: the MoE layer's host cost per micro-batch moves
    # deepseek-v3-pretrain -26.2% -> -25.3%
    # step-time model III part 1, kernel mechanisms on by default (GEMMs by shape, FP8 as run:
    # the LM head and router in BF16 and the blockwise casts, DeepSeek-V3 §3.3): its predicted
    # steady-state MFU falls 39.8% -> 5.8% above the whole-run average, GPU-hours -25.3% -> -1.3%
    # issue 29b: the MoE host cost's per-layer term is the dropless sync (1.59 ms per MoE layer
    # per micro-batch, re-fitted with the Megatron-Bridge 25.09 token-dropping rows; was 0):
    # DeepSeek-V3's eager dropless stack pays it, -1.3% -> +1.1%
    # Hopper's backward FP8 GEMMs without fast accumulation (gemm.FP8_SLOW_ACCUMULATION,
    # StepOptions.fp8_split_accumulator, on by default): +1.1% -> +3.2%
    "llama31-8b": -0.4727, "llama31-70b": -0.0857, "deepseek-v3-pretrain": +0.0316,
    "falcon-180b": -0.0214,
    # fix-16: PaLM scored on its Appendix B chip-hours (published MFU × goodput); DeepSeek-V3
    # scored once, on the deepseek-v3-pretrain row (its plan runs with uneven pipeline
    # stages), its duplicate deepseek-v3 row no longer in the H100 medians (the Llama 3
    # and 3.1 rows return to their pre-merge values)
    "palm-540b": -0.2987,
}
#: REGRESSION PIN: (within ±20%, n) per group of ``error_table_summary`` (fix-16: the single
#: "plan rows within ±20%" headline split into its kinds; calibration rows are counted apart,
#: never as a success).
SUMMARY_PIN = {
    # after the ZeRO-3 per-layer physics merged (three ZeRO-3 rows became calibration rows, the rest held-out);
    # nemo-moe: NeMo AutoModel's four H100 MoE rows join, none within ±20% on GPU-hours (their
    # MFU errors -31%, -38%, -19.5%, -25%: the model prices the fake gate's all-to-all as k
    # copies per token; benchmarks/validate_mfu.py item 8);
    # moe-dispatch: with DeepEP's per-node dispatch, reshard not_pp and GA flushes all four are
    # within ±20% (-15.1%, -7.9%, +0.7%, -18.1% on GPU-hours), and deepseek-v3-pretrain leaves
    # the ±20% of the published-plan groups (-26.1%)
    # step-time model III part 0: the 128 held-out rows of the newer regimes
    # (step.NEWER_SETS: Megatron-Bridge 25.11, torchtitan H100 / H200, NeMo long-sequence,
    # llm-foundry MPT) join the steady-state group; 68 of them are within ±20%
    # (benchmarks/validate_mfu.py item 10)
    # step-time model III part 2: two Megatron-Bridge 26.08 rows (GB200, GB300) join, and with
    # the MoE layer's host cost 100 of the 159 are within ±20%; issue 29's five held-out 26.08
    # MoE rows (GPT-OSS 120B GB200, Qwen3-235B-A22B and DeepSeek-V3 on GB200 / GB300) join,
    # three of them within ±20%; the Megatron-Bridge MoE rows priced with the gate their
    # recipes ran (Megatron-Core's random logits, comm.MOE_GATES "random", not NeMo AutoModel's
    # consecutive pattern): Qwen3-30B-A3B and Qwen3-235B-A22B on GB200 enter the band
    # (-21.6% -> -19.2%, -21.8% -> -19.5%)
    # step-time model III part 1 (GEMMs by shape and FP8 as run on
    # by default): 108 of the 164, and deepseek-v3-pretrain back within ±20% (-1.3%)
    # context parallelism's K/V ring overlapped on Transformer Engine stacks and torchtitan's
    # H100s priced as the power-capped 96 GB device they ran on: 114 of the 164; llm-foundry's
    # 2023-10 tables priced with the Triton FlashAttention they ran (llm-foundry-2023,
    # FlashAttention-1 class): 122 of the 164; with the Megatron-Bridge rows' BF16 gradient
    # recipe and memory as their stacks store it (merged beside them): 123 of the 164
    # six held-out Megatron-Bridge 25.09 token-dropping rows join, and the MoE host
    # cost's sync term applies to dropless routing only (re-fitted): 114 of the 170 on its
    # branch; on main with the changes above: 128 of the 170
    # FlashAttention-1 on Hopper given its stand-in rate and torchtitan's selective
    # recomputation priced as it runs; the 25.11 Qwen3-30B-A3B H100 row priced as its recipe
    # ran, and its 26.02 re-run joins: 153 of the 171
    # Hopper's backward FP8 GEMMs without fast accumulation (gemm.FP8_SLOW_ACCUMULATION):
    # Megatron-Bridge's H100 Llama 3.1 8B FP8-CS row leaves the band (GPU-hours +18.8% ->
    # +23.8%; the engine was already too slow there, its attention share 32 %): 152 of the 171
    # the 28 held-out rows of Megatron-Bridge's 26.04 and 26.06 tables join (the old 171 rows
    # unchanged, 152 within; 20 of the 28 new ones within): 172 of the 199
    # Blackwell's attention core at cuDNN's measured rates (StepOptions.attention_blackwell,
    # NVIDIA/cudnn-frontend's GB200 / GB300 table) and the MoE host cost re-fitted under it:
    # 176 of the 199; with the attention core in MXFP8 where the 26.06 / 26.08 recipes ran it
    # (StepOptions.fp8_attention, step_validation.FP8_ATTENTION_OF_ROW): 179 of the 199
    # regression pin: the 62 held-out rows of Megatron-Bridge's 26.02 (rest), 26.02.01, 26.04.01
    # and 26.06.01 tables join (rows added, nothing in the engine changed; the old 199 rows
    # unchanged): 227 of the 261
    # regression pin: the 26.02.01 H100 Qwen3-30B-A3B row's plan corrected from its release's
    # recipe (Megatron-Bridge v0.3.1 = 9c9dd8489: PP 1, EP 16; the table repeated 26.02's plan
    # columns): it joins the band: 228 of the 261
    # regression pin: 26.02.01's GB300 Llama 3 70B MXFP8 priced with its tag recipe's plan
    # (MBS 1, VP 5; its table line's MBS 2, VP n/a are not what ran: the row's notes) enters the
    # band (GPU-hours +43.5% -> +10.5%), with the Qwen3 row above: 229 of the 261
    # regression pin: Megatron-Core's unfused expert output bias (elementwise.expert_bias_bytes: gpt-oss on the
    # eager Megatron-Core stacks) and Blackwell's head-dimension-64 attention at cuDNN 9.19's
    # measured 1,024-token band (attention.blackwell_tflops), with the two rows above: 234 of the 261
    # regression pin: gpt-oss's eager clamp before its gated activation on the eager Megatron-Core
    # stacks (elementwise.clamped_glu_bytes): 235 of the 261
    # regression pin: a CP ring's calls without a mask at the kernel's unmasked rate
    # (StepOptions.ring_unmasked): NeMo's 512K and 1M-token rows enter the band (GPU-hours
    # +25.3% -> +18.4%, +23.6% -> +16.4%): 237 of the 261
    # regression pin: llm-foundry's FlashAttention-1 attention by length at each row's head
    # dimension (StepOptions.fa1_length): nine A100 MPT rows at 8K-64K enter the band (e.g.
    # MPT-7B 64K +23.7% -> +13.4%), MPT-30B 8K on H100 leaves it (-17.8% -> -20.2%): 245 of the 261
    # regression pin: GB300's GEMMs by the Blackwell per-shape table, as GB200's (gemm.GEMM_FAMILY;
    # they were at the flat ceiling): GB300 rows priced slower, four leave the band: 241 of the 261
    # regression pin: Megatron-Bridge 26.02.01's GB300 Qwen3-235B-A22B line left out, 26.02's line
    # copied figure for figure (docs/performance-summary.md at cfeddcd94; data/validation_mfu.csv
    # column excluded), a row within the band; Megatron-Core's 1F1B plans pay their pipeline
    # sends (stacks.PP_OVERLAP_MODES: overlap only under the interleaved schedule) and the MoE
    # host constants are re-fitted: mb2602-gb200-qwen3-235b-a22b-mxfp8 (PP 8, v = 1) leaves it
    # (+19.5% -> +20.2%), and with the combined re-fit one more: 239 of the 260; the three
    # Megatron-Bridge 25.09 Qwen3-235B-A22B rows at TP 2 (folded) all within: 242 of 263; of
    # Megatron-Bridge 25.11's four Qwen3-235B-A22B rows two are held out, B200 FP8-MX within
    # (-11.2%), GB200 BF16 not (+23.9%): 243 of 265; NVIDIA's DGX Cloud benchmarking BF16 and
    # FP8 pairs, seven rows held out, all but the GB200 405B FP8 (+25%) within: 249 of 272;
    # their Llama 3.1 8B pair, both held out, both within: 251 of 274; llm-foundry's five
    # held-out SHARD_GRAD_OP rows (MPT 1B at 128 and 256, 3B at 128-512 H100; +23% to +28%),
    # two within: 253 of 279; with llm-foundry's unpadded FlashAttention copies priced
    # (StepOptions.attention_unpad: the 2024-01 sweep's flash rows 1.7-5.7 points less optimistic)
    # three more: 256 of 279; with the attention kernel's curve on the FlashAttention stacks
    # (StepOptions.attention_curve="flash") one more: 257 of 279; regression pin:
    # Megatron-Core's MoE README Mixtral 8x7B on 64 H100 held out (438 TFLOP/s; GPU-hours
    # -4.3%), within: 258 of 280
    "steady-state MFU, held-out": (258, 280),
    "whole-run GPU-hours, published plan": (3, 4),
}


def test_error_table_regression_pin(errors):
    for run_id, pinned in ERROR_TABLE_PIN.items():
        assert errors.loc[run_id, "error"] == pytest.approx(pinned, abs=0.005), run_id
    s = claims.error_table_summary(errors.reset_index())
    for group, pinned in SUMMARY_PIN.items():
        assert (s.loc[group, "within_band"], s.loc[group, "n"]) == pinned, group
    # every published plan is run by the step-time model today: the subset is the whole group,
    # and no second, identical row is printed (a trial read two)
    planned = errors[(errors["scored"] == "gpu_hours") & errors["has_plan"]]
    assert planned["method"].str.startswith("step-time").all()
    assert "whole-run GPU-hours, published plan run by the step-time model" not in s.index


def test_error_table_keeps_unlike_rows_apart(errors):
    s = claims.error_table_summary(errors.reset_index())
    # the step-time model's calibration rows (korthikanti22-22b: KERNEL_EFFICIENCY is fitted on
    # its layer, step.calibrate_kernel_efficiency) is in no held-out group
    assert errors.loc["korthikanti22-22b", "split"] == "calibration"
    cal = s.loc["steady-state MFU, calibration rows (in-sample)"]
    # (after the ZeRO-3 physics: korthikanti22-22b and three ZeRO-3 175B rows, data/validation_mfu.csv)
    n_cal = ((errors["scored"] == "mfu") & (errors["split"] == "calibration")).sum()
    assert cal["n"] == n_cal >= 1 and cal["in_sample"]
    assert cal["within_band"] != cal["within_band"]  # NaN: never counted as a success
    held = s.loc["steady-state MFU, held-out", "n"]
    assert held == ((errors["scored"] == "mfu") & (errors["split"] == "held-out")).sum()
    # the four whole runs with a published plan (BLOOM, Llama 3.1 405B, Falcon-180B,
    # DeepSeek-V3 pre-training) are one group, whatever predicted them
    assert s.loc["whole-run GPU-hours, published plan", "n"] == 4


def test_palm_is_scored_on_its_appendix_b_chip_hours(errors):
    # Chowdhery et al. 2022 App. B: 6144 chips × 1200 h + 3072 × 336 h = 8,404,992 chip-hours;
    # row notes: 6ND / (chip-h × 275e12) = 6 × 540.35e9 × 780e9 / (8,404,992 × 3600 × 275e12)
    # = 0.304 whole-run, against the published steady-state MFU 46.2% (Table 3)
    assert errors.loc["palm-540b", "published_gpu_hours"] == 6144 * 1200 + 3072 * 336
    spec = llmcost.load_model("palm-540b")
    f = float(spec.flops_per_token(2048, causal=False))
    u6 = errors.loc["palm-540b", "published_mfu"] * 6 * spec.n_active_params / f
    assert u6 == pytest.approx(0.304, rel=0.01)
    assert errors.loc["palm-540b", "method"] == claims.PUBLISHED_MFU_METHOD
    # predicted whole-run U = 46.2% × goodput (0.9-1 on 6,144 chips)
    assert 0.462 * 0.9 <= errors.loc["palm-540b", "predicted_mfu"] <= 0.462
    # OPT and GLM-130B stay unscored, with their true reasons
    assert "147" in errors.loc["opt-175b", "note"] and "no accelerator-hours" in \
        errors.loc["opt-175b", "note"]
    assert "no model shape" in errors.loc["glm-130b", "note"]


# ------------------------------------------------------------------ the command line
DS_ARGS = ["check", "--model", "deepseek-v3", "--train-tokens", "14.8e12", "--n-gpus", "2048",
           "--accelerator", "H800", "--dtype", "fp8", "--gpu-hours", "2.788e6", "--usd",
           "5.576e6"]


def test_cli_check_text_and_json(capsys):
    assert main(DS_ARGS + ["--phase", "pre-training=2.664e6", "--phase",
                           "context extension=119e3", "--phase", "post-training=5e3"]) == 0
    out = capsys.readouterr().out
    # above every other published MoE run on Hopper (test_deepseek_v3_flops_...): the
    # pre-training phase's 2.664M GPU-h give 47.5% of the BF16 peak, 1.04× the bound's 45.5%,
    # within the ±5% tolerance: plausible, at the edge
    assert "Verdict: PLAUSIBLE" in out and "$2.00/GPU-h" in out and "6ND 3.3" in out
    assert "at the edge: 4.4% above it" in " ".join(out.split())
    # without the phases the tokens are spread over all 2.788M GPU-h: 45.4%, within the bound
    assert main(DS_ARGS + ["--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "plausible" and data["implied_usd_per_gpu_hour"] == 2.0


def test_cli_check_reads_a_scenario_file(capsys):
    path = str(llmcost.SCENARIO_DIR / "default.yaml")  # llama-2-70b, 2T tokens, 2048 H100
    assert main(["check", "--scenario", path, "--gpu-hours", "2e5"]) == 0  # MFU > 1
    assert "Verdict: IMPLAUSIBLE" in capsys.readouterr().out
    assert main(["check", "--scenario", path, "--gpu-hours", "1e4"]) == 2  # > 10× the peak
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("llmcost: error: --gpu-hours=10000.0 imply")
    assert main(["check", "--scenario", path, "--days", "20"]) == 0
    out = _unwrapped(capsys.readouterr().out)
    assert "Verdict:" in out and "stated MFU 40.0%" in out  # the scenario's mfu, compared
    assert main(["check", "--scenario", path]) == 0  # hours from the scenario's MFU
    assert "from the stated MFU 40.0%" in _unwrapped(capsys.readouterr().out)


def _unwrapped(text: str) -> str:
    """``check``'s text with its wrapping to the terminal (80 columns in a pipe) undone."""
    return " ".join(text.split())


def test_cli_check_resolves_mfu_predict_as_the_report_does(capsys, tmp_path):
    # A new-user trial: `llmcost check --scenario` of an `mfu: predict` scenario failed with
    # "a claim needs gpu_hours ..." while notebook 08 of its report checked it as a claim at
    # the predicted MFU. The check now takes the MFU the report resolves (the same
    # _mfu_prediction) and says so; a claim with hours of its own keeps them.
    from llmcost.present import report
    f = tmp_path / "predict.yaml"
    f.write_text("model: llama-3.1-8b\naccelerator: H100-SXM\nn_gpus: 64\ntrain_tokens: 1e12\n"
                 "seq_len: 8192\nmfu: predict\nglobal_batch_tokens: 4194304\n")
    want = report.plan_report(f, ["00"]).scenario["mfu"]
    assert main(["check", "--scenario", str(f)]) == 0
    out = _unwrapped(capsys.readouterr().out)
    # the MFU is the band's central estimate of the prediction (accuracy.central_mfu), both said
    assert out.startswith("mfu: predict: the step-time model predicts") and \
        f"that MFU, {want:.1%}, is the claim's stated MFU" in out and \
        f"from the stated MFU {want:.1%}" in out
    # a second trial read a "low" verdict on the tool's own prediction as a judgement of a claim
    assert "compares the model's own estimate with published runs" in out
    assert main(["check", "--scenario", str(f), "--gpu-hours", "1e5"]) == 0
    out = _unwrapped(capsys.readouterr().out)  # the claim's hours, not the predicted MFU
    assert not out.startswith("mfu: predict") and "is the claim's stated MFU" not in out
    # no scenario, no hours: the error names this command's flags
    assert main(["check", "--model", "llama-3.1-8b", "--accelerator", "H100-SXM"]) == 2
    assert "--gpu-hours, --days with --n-gpus" in capsys.readouterr().err


def test_a_predicted_mfu_capped_at_the_best_run_is_not_above_it(capsys):
    # A new-user trial: the default scenario with `mfu: predict` is capped at the best comparable
    # published run, Megatron-LM's 47% (the band's cap); `check --scenario` then said
    # "OPTIMISTIC ... 47.0% ... above the best published comparable run, 47.0% (1.00x it)": the
    # MFU carried through GPU-hours and back is 0.47000000000000003 > 0.47. Equal is not above.
    import yaml
    from llmcost import SCENARIO_DIR
    from llmcost.bill import claims
    assert claims._above(0.47000000000000003, 0.47) is False
    assert claims._above(0.4701, 0.47) is True and claims._above(0.47, 0.4701) is False
    sc = yaml.safe_load((SCENARIO_DIR / "default.yaml").read_text())
    assert sc["accelerator"] == "H100-SXM"
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        # the 70B on 64 H100 at 2,048 tokens: its prediction (about 56%) is above the best
        # comparable dense BF16 figure, NVIDIA's DGX Cloud Llama 3.1 70B on 64 H100 (54.6%)
        f = Path(d) / "predict.yaml"
        f.write_text(yaml.safe_dump({**sc, "mfu": "predict", "n_gpus": 64, "seq_len": 2048}))
        assert main(["check", "--scenario", str(f)]) == 0
    out = _unwrapped(capsys.readouterr().out)
    assert "the bill uses the top, 54.6%" in out and "its top set by the best comparable" in out
    assert "Verdict: PLAUSIBLE" in out and "OPTIMISTIC" not in out


def test_cli_check_scenario_left_out_lines_are_the_bills(capsys, tmp_path):
    # A new-user trial: `check --scenario` listed checkpoint storage ~10x the bill's ($4,698
    # vs $416 on 64 MI300X) and exploratory runs slightly off: its ledger of the left-out lines
    # used Llama 3's per-GPU storage rate where the bill sizes storage from its checkpoint plan
    # (ledger.sized_storage). Hand rule: the same scenario's lines, the same dollars.
    from llmcost.present.cli import estimate_ledger
    f = tmp_path / "mi.yaml"
    f.write_text("model: llama-2-7b\naccelerator: MI300X\nn_gpus: 64\ntrain_tokens: 1e12\n"
                 "seq_len: 4096\nmfu: predict\nglobal_batch_tokens: 4194304\n")
    bill = {ln.key: ln.usd for ln in estimate_ledger(f).lines}
    assert main(["check", "--scenario", str(f), "--format", "json"]) == 0
    rows = [r for r in json.loads(capsys.readouterr().out)["left_out"] if r["usd"] is not None]
    assert {r["key"] for r in rows} >= {"storage.checkpoints", "compute.exploratory"}
    for r in rows:
        assert r["usd"] == pytest.approx(bill[r["key"]], rel=1e-6, abs=0.01), r["key"]


def test_cli_check_scenario_names_only_the_keys_the_file_gives(capsys, tmp_path):
    # A new-user trial: `check --scenario` of a Llama 3.1 405B file that sets no rl_ key read
    # "Not in the figure (the scenario's rl_rollout_tp, else the ledger's defaults)": the report
    # chose a rollout TP (the default 4 cannot hold 405B: 811 GB of bf16 weights over 4 GPUs is
    # 203 GB each, above an H100's 80 GiB), and that choice was named as the file's. Rule: a key
    # is called the scenario's only when the file gives it.
    f = tmp_path / "big.yaml"
    f.write_text("model: llama-3.1-405b\naccelerator: H100-SXM\nn_gpus: 1024\n"
                 "train_tokens: 1e12\nseq_len: 8192\nmfu: 0.4\n"
                 "global_batch_tokens: 16777216\nprice_usd_per_gpu_hour: 3.0\n")
    from llmcost.present.report import plan_report
    assert "_rl_rollout_tp_chosen" in plan_report(f, ["00"]).scenario  # the report chose it
    assert main(["check", "--scenario", str(f)]) == 0
    out = _unwrapped(capsys.readouterr().out)
    assert "Not in the figure (the ledger's defaults):" in out and "rl_rollout_tp" not in out
    # a key the file gives is still named
    f.write_text(f.read_text() + "rl_rollout_tp: 8\n")
    assert main(["check", "--scenario", str(f)]) == 0
    assert "Not in the figure (the scenario's rl_rollout_tp, else the ledger's defaults):" in \
        _unwrapped(capsys.readouterr().out)


def test_scenario_claim_of_notebook_08_is_the_bills(capsys, tmp_path):
    # A new-user trial: 08's "Your scenario as a claim" said 22,033 GPU-h at goodput 99.1% (a
    # generic goodput_for) where the bill and `check --scenario` said 22,245 at 98.1% (the
    # scenario's failure rates and its provisioned checkpoint storage). Hand rule: one run, one
    # goodput and one GPU-hour figure on every page.
    from llmcost.present.cli import estimate_ledger
    from llmcost.present.report import plan_report, private_keys
    from llmcost.present.results import notebook_results
    f = tmp_path / "mi.yaml"
    f.write_text("model: llama-2-7b\naccelerator: MI300X\nn_gpus: 64\ntrain_tokens: 1e12\n"
                 "seq_len: 4096\nmfu: predict\nglobal_batch_tokens: 4194304\n")
    bill = estimate_ledger(f).figures
    assert main(["check", "--scenario", str(f), "--format", "json"]) == 0
    checked = json.loads(capsys.readouterr().out)
    plan = plan_report(f, ["08"])
    nb08 = notebook_results("08", plan.values, private_keys(plan.scenario))
    assert nb08["goodput"] == pytest.approx(bill["goodput"], rel=1e-12)
    assert nb08["goodput"] != pytest.approx(claims.goodput_for(6.74e9, 64), rel=1e-3)
    assert nb08["gpu_hours"] == pytest.approx(checked["gpu_hours"], rel=1e-9)


def test_cli_check_json_answers_and_errors_are_json(capsys):
    # an impossible claim: a verdict in JSON, not an error
    assert main(["check", "--model", "llama-2-7b", "--train-tokens", "2e12", "--accelerator",
                 "H100-SXM", "--gpu-hours", "20000", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] == "implausible"
    # a bad input with --format json: the error is JSON on stdout too
    assert main(DS_ARGS + ["--days", "30", "--format", "json"]) == 2
    captured = capsys.readouterr()
    assert "inconsistent claim" in json.loads(captured.out)["error"]


def test_cli_check_config_json_and_flops(capsys):
    path = str(Path(__file__).parent / "data" / "hf_configs" / "llama-3.1-8b.json")
    assert main(["check", "--model", path, "--train-tokens", "15e12", "--seq-len", "8192",
                 "--accelerator", "H100-SXM", "--gpu-hours", "1.46e6", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["model"] == "llama-3.1-8b"
    assert main(["check", "--model", "llama-2-70b", "--accelerator", "A100-80GB",
                 "--train-flops", "8.28e23", "--gpu-hours", "1720320"]) == 0
    assert "6ND convention" in capsys.readouterr().out


@pytest.mark.parametrize("extra, words", [
    (["--days", "30"], "inconsistent claim"),
    (["--accelerator", "Z100"], "Z100"),
    (["--gpu-hours", "abc"], "--gpu-hours='abc' must be a number"),
    (["--phase", "pre-training"], "NAME=GPU_HOURS"),
    (["--n-gpus", "2.5"], "whole number"),
    (["--mfu", "1.5"], "mfu=1.5 must be"),
])
def test_cli_check_bad_input_is_one_error_line(capsys, extra, words):
    assert main(DS_ARGS + extra) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("llmcost: error:") and words in err[0], err


@pytest.mark.parametrize("argv, words", [
    # a repeated phase is refused, not silently overwritten
    (DS_ARGS + ["--phase", "pre-training=2.664e6", "--phase", "pre-training=2e6"],
     "--phase 'pre-training' is given twice"),
    # a negative number reaches the validator (one line naming the field, no usage block)
    (["check", "--model", "deepseek-v3", "--train-tokens", "-14.8e12", "--accelerator", "H800",
      "--gpu-hours", "2e6"], "--train-tokens=-14800000000000.0 must be a positive number"),
    (["check", "--model", "nosuch", "--train-tokens", "1e12", "--accelerator", "H800",
      "--gpu-hours", "2e6"], "model='nosuch' is not in the catalogue"),
])
def test_cli_check_input_is_refused_in_one_clean_line(capsys, argv, words):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0], err
    assert err[0].count("model='nosuch'") <= 1  # the prefix is not repeated


def test_check_claim_phases_must_be_a_mapping():
    with pytest.raises(ValueError, match=r"phases=\[1, 2\] must be a mapping"):
        claims.check_claim("deepseek-v3", 14.8e12, "H800", gpu_hours=2e6, phases=[1, 2])


def test_bf16_verdict_names_the_peak_once():
    c = claims.check_claim("llama-2-70b", 2e12, "A100-80GB", gpu_hours=1_720_320, left_out=False)
    assert c.verdict == "plausible" and "of BF16)" not in c.reason


def test_cli_cost_only_and_owned(capsys, tmp_path):
    # the issue's cost-only claim gets a verdict on the price, not an "MFU > 1" refusal
    assert main(["check", "--model", "deepseek-v3", "--train-tokens", "14.8e12",
                 "--accelerator", "H800", "--usd", "5.576e6"]) == 0
    out = capsys.readouterr().out
    assert "cost-only claim" in out and "needs $" in out
    # pricing: owned from a scenario file (scenario.PRICING allows it)
    path = tmp_path / "owned.yaml"
    path.write_text("model: llama-2-70b\naccelerator: H100-SXM\nn_gpus: 2048\n"
                    "train_tokens: 2.0e12\npricing: owned\n")
    assert main(["check", "--scenario", str(path), "--gpu-hours", "7e5"]) == 0
    assert "owned amortisation" in capsys.readouterr().out


def test_cli_check_needs_a_model(capsys):
    assert main(["check", "--train-tokens", "1e12", "--accelerator", "H100-SXM",
                 "--gpu-hours", "1e6"]) == 2
    assert "--model is required" in capsys.readouterr().err


@pytest.mark.parametrize("run_id, expected", [
    # Biderman et al. 2023 (Pythia) Table 1 non-embedding parameters (data/published_runs.csv
    # notes): the shape-built model reproduces them exactly
    ("pythia-1b", 805_736_448), ("pythia-12b", 11_327_027_200),
])
def test_shape_built_models_match_the_papers(run_id, expected):
    row = llmcost.load_published_runs().set_index("run_id").loc[run_id].to_dict()
    spec = claims.run_model(dict(row, run_id=run_id))
    assert spec.n_params - spec.n_embedding_params == expected


def test_falcon_180b_shape():
    # tiiuae/falcon-180B model card: "180B parameters"; heads = 14848 / 64 (head_dim) = 232
    row = llmcost.load_published_runs().set_index("run_id").loc["falcon-180b"].to_dict()
    spec = claims.run_model(dict(row, run_id="falcon-180b"))
    assert spec.n_params == pytest.approx(180e9, rel=0.01)
    assert spec.n_heads * 64 == 14848


def test_left_out_refuses_an_mfu_above_one_after_goodput():
    # 252,200 GPU-h on 1,000 H100 for Llama 2 70B on 2T tokens: U ≈ 0.99 of the BF16 peak on
    # the MFU basis, above 1 after dividing by goodput (< 1): implausible, and the ledger is not
    # asked to price a run at MFU > 1 (no quiet clamp)
    c = claims.check_claim("llama-2-70b", 2e12, "H100-SXM", n_gpus=1000, gpu_hours=252_200)
    assert c.whole_run["bf16"] < 1 < c.steady_state["bf16"]
    assert c.verdict == "implausible"
    assert c.left_out[0]["line"] == "(not priced)" and \
        f"steady-state MFU of {c.steady_state['bf16']:.1%} (above 100%)" in c.left_out[0]["how"]


def test_a_figure_the_claim_cannot_state_is_named():
    """``check_claim``'s figures travel as keywords to ``stated_claim`` (``CLAIM_FIGURES``): a
    misspelt one is a ValueError naming it, not a TypeError; the same figures as keywords of
    ``stated_claim`` give the same stated claim (Llama 2 70B, 3,311,616 A100 GPU-hours: Touvron
    et al. 2023 Table 2)."""
    from llmcost.bill import claims as cl
    with pytest.raises(ValueError, match="gpu_hour\\b"):
        cl.check_claim("llama-2-70b", 2e12, "A100-80GB", gpu_hour=3_311_616, left_out=False)
    c = cl.stated_claim("llama-2-70b", 2e12, "A100-80GB", gpu_hours=3_311_616)
    assert (c.gpu_hours, c.dtype, c.pricing, c.tolerance) == (3_311_616, "bf16", "on_demand",
                                                               cl.HOURS_TOLERANCE)
    check = cl.check_claim("llama-2-70b", 2e12, "A100-80GB", gpu_hours=3_311_616, left_out=False)
    assert check.gpu_hours == 3_311_616


def test_a_cut_reason_closes_its_parentheses():
    # A new-user trial: `llmcost check` printed "not given (no RL campaign in the scenario
    # (rl_iterations and rl_runs not given)" with its outer parenthesis unclosed: the reason
    # was cut at its first ";" inside an inner parenthesis.
    from llmcost.bill.claims import first_clause
    why = ("no RL campaign in the scenario (rl_iterations and rl_runs not given; notebook 05 "
           "prices an illustrative campaign)")
    assert first_clause(why) == \
        "no RL campaign in the scenario (rl_iterations and rl_runs not given)"
    assert first_clause("a (b (c; d) e)") == "a (b (c))"
    assert first_clause("x (" + "y" * 200) == "x (" + "y" * 200 + ")"  # no boundary: whole
    assert first_clause("plain; rest") == "plain"


def test_a_reason_is_never_cut_inside_a_word(deepseek):
    # A new-user trial read "(no sourced figure): e…)" and "as OPT-175B'…" in `llmcost check`:
    # the reasons of the lines left out were cut at 100 characters, mid-word. Rule: a reason is
    # cut at its first ";" and, past the limit, at a sentence boundary only, else kept whole.
    from llmcost.bill.claims import first_clause
    elec = ("6,105,720 GPU-h, but accelerator='H800' has no tdp_w in data/accelerators.csv (no "
            "sourced figure): energy, emissions and electricity are not computed; add a TDP")
    assert first_clause(elec) == ("6,105,720 GPU-h, but accelerator='H800' has no tdp_w in "
                                  "data/accelerators.csv (no sourced figure)")
    rerun = ("P(rerun) 0% × final run 5,576,000 USD (expected cost of relaunching after a "
             "divergence, as OPT-175B's lineage 12)")
    assert first_clause(rerun) == rerun  # no boundary before the limit: not cut
    text = deepseek.describe()  # H800: no TDP, so the electricity line is "not given"
    assert "…" not in text and "as OPT-175B's lineage 12)" in " ".join(text.split())


def test_a_moe_claims_note_is_in_a_readers_words(deepseek):
    # a trial read "(6.71e+11; accuracy.comparable_published_mfu)" in `llmcost check`
    text = deepseek.describe()
    assert "comparable_published_mfu" not in text
    assert "MoE: compared with published MoE runs only, of total parameters within 4× of " \
        "its 6.71e+11" in text


def test_a_price_below_a_cent_is_printed_not_rounded_to_zero():
    """'Trained Llama 3.1 8B on 1T tokens for $100': the price that claim needs is a fraction of a
    cent per GPU-hour, and the text must show it, not "$0.00–$0.00". By hand: the MFU-basis count
    is 6·N − 6·V·d (the embedding lookup is no matmul) + 12·L·h·s (full-mask attention) =
    6 × 8.03e9 − 6 × 128,256 × 4,096 + 12 × 32 × 4,096 × 8,192 ≈ 5.791e10 FLOP per token, so
    5.791e22 for 1e12 tokens; at the best published comparable MFU, NVIDIA's DGX Cloud benchmark
    of the same architecture, 10,152.75 tokens/s/GPU × 5.791e10 ÷ 989.4e12 = 59.4% of the H100's
    989.4 TFLOP/s (NVIDIA/dgxc-benchmarking llama3.1/README_8b.md @ 143b90d), that is 27,371
    GPU-h before goodput, and $100 over them is about $0.0036 per GPU-hour (half that MFU:
    about $0.0018)."""
    flops = 1e12 * (6 * 8.03e9 - 6 * 128256 * 4096 + 12 * 32 * 4096 * 8192)
    assert flops == pytest.approx(5.791e22, rel=2e-3)
    c = claims.check_claim("llama-3.1-8b", 1e12, "H100-SXM", n_gpus=64, usd=100.0,
                           left_out=False)
    best = 10_152.75 * flops / 1e12 / 989.4e12
    assert c.best_published == pytest.approx(best, rel=2e-3)
    hours = flops / (989.4e12 * best * 3600) / c.goodput
    assert c.needed_usd_per_gpu_hour[1] == pytest.approx(100 / hours, rel=3e-3)
    text = c.describe()
    assert "$0.00–" not in text and "$0.0018–$0.0036/GPU-h" in text
    assert claims.usd_rate(0.00143) == "$0.0014" and claims.usd_rate(2.69) == "$2.69"


def test_tokens_the_claim_does_not_state_are_said_beside_the_claim():
    """A claim without tokens is judged on the model's published count (Llama 3.1 8B: "over
    15T tokens", Llama Team 2024, arXiv:2407.21783): the line right under the claim says so,
    not only a note after the left-out lines."""
    c = claims.check_claim("llama-3.1-8b", None, "H100-SXM", n_gpus=64, gpu_hours=1.46e6,
                           left_out=False)
    assert c.train_tokens == pytest.approx(15e12, rel=0.05)
    lines = c.describe().splitlines()
    assert lines[0].startswith("Claim: llama-3.1-8b on 1.5e+13 tokens")
    assert lines[1].startswith("  tokens: no token count in the claim: the model's published")
    assert sum("no token count in the claim" in ln for ln in lines) == 1


def test_cli_check_scenario_prints_the_warnings_estimate_prints(capsys, tmp_path):
    # A new-user trial: a price written in cents (399 for $3.99 per H100-hour) passed `check
    # --scenario` without a word while `estimate` warned that it is above every price
    # data/prices.csv lists for H100-SXM (the dearest: AWS p5.48xlarge's $98.32/h / 8 = $12.29
    # at launch). Rule: check --scenario shows the very list estimate shows (cli.bill_warnings
    # of the same bill), in text and JSON.
    f = tmp_path / "cents.yaml"
    f.write_text("model: llama-2-7b\naccelerator: H100-SXM\nn_gpus: 64\ntrain_tokens: 1e12\n"
                 "seq_len: 4096\nmfu: 0.4\nglobal_batch_tokens: 4194304\n"
                 "price_usd_per_gpu_hour: 399\n")
    assert main(["estimate", "--scenario", str(f), "--format", "json"]) == 0
    expected = json.loads(capsys.readouterr().out)["warnings"]
    assert any(w.startswith("price_usd_per_gpu_hour=399 is above every price data/prices.csv "
                            "lists for H100-SXM") for w in expected)
    assert main(["check", "--scenario", str(f), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["warnings"] == expected
    assert main(["check", "--scenario", str(f)]) == 0
    out = _unwrapped(capsys.readouterr().out)
    assert "the scenario file's warnings (as llmcost estimate prints them):" in out
    for w in expected:
        assert _unwrapped(f"warning: {w}") in out
    # a claim without a scenario file has no scenario warnings to show
    assert main(DS_ARGS + ["--format", "json"]) == 0
    assert "warnings" not in json.loads(capsys.readouterr().out)


#: A scenario with an extra phase and failure rates of its own (neither the ledger's defaults).
PHASED = ("model: llama-2-7b\naccelerator: H100-SXM\nn_gpus: 64\ntrain_tokens: 1.0e12\n"
          "seq_len: 4096\nmfu: 0.4\nglobal_batch_tokens: 4194304\nprice_usd_per_gpu_hour: 3.0\n"
          "fail_rate_per_gpu_year: 2.0\nfail_planned_per_day: 3.0\nphases:\n"
          "  - {name: long-context, tokens: 2.0e10, seq_len: 16384, mfu: 0.3}\n")


def test_check_scenario_reads_the_whole_bill(capsys, tmp_path):
    # A review: `check --scenario` on a file with phases judged the main run alone (its hours
    # from the MFU, the phase in neither the claim nor the lines left out) and priced the lines
    # it left out with the ledger's default failure rates, not the file's fail_ keys: its
    # exploratory line was 1.19 × that main run, not the bill's. Rule: check judges the run
    # the bill prices, main run and phases, and lists the bill's other lines, so the claim's
    # figure and its lines left out are `llmcost estimate`'s on the same file.
    from llmcost.present.cli import estimate_ledger
    f = tmp_path / "phased.yaml"
    f.write_text(PHASED)
    ledger = estimate_ledger(f)
    bill = {ln.key: ln.usd for ln in ledger.lines}
    # the phase by hand: Llama 2 7B (6,738,415,616 parameters, 32,000 × 4,096 input embedding
    # not a matmul) does 6 × 6,607,343,616 + 12 × 32 layers × 16,384 × 4,096 = 6.541e10
    # FLOPs per token at 16,384 tokens (full mask, Narayanan et al. 2021 App. A); 2e10 tokens
    # at 30% of 989.4 TFLOP/s: 2e10 × 6.541e10 / (989.4e12 × 0.3 × 3600) = 1,224 ideal GPU-h
    fpt = 6 * (6_738_415_616 - 32_000 * 4096) + 12 * 32 * 16384 * 4096
    assert fpt == pytest.approx(6.541e10, rel=1e-3)
    ideal = 2e10 * fpt / (H100_BF16 * 0.3 * 3600)
    assert ideal == pytest.approx(1224, abs=1)
    assert f"= {ideal:,.0f} ideal GPU-h ÷ goodput" in next(
        ln.how for ln in ledger.lines if ln.key == "compute.pretraining.long-context")
    paid = {"pre-training": (bill["compute.pretraining.main"] + bill["compute.failures"]) / 3.0,
            "long-context": bill["compute.pretraining.long-context"] / 3.0}
    assert paid["long-context"] > ideal  # paid = ideal ÷ the phase's goodput
    # the file's failure rates move the bill's lines (so dropping them would show)
    f0 = tmp_path / "default_failures.yaml"
    f0.write_text("".join(ln + "\n" for ln in PHASED.splitlines() if not ln.startswith("fail_")))
    moved = {ln.key for ln, l0 in zip(ledger.lines, estimate_ledger(f0).lines, strict=True)
             if ln.usd != pytest.approx(l0.usd, rel=1e-9)}
    assert {"compute.failures", "compute.exploratory", "storage.checkpoints"} <= moved
    assert main(["check", "--scenario", str(f), "--format", "json"]) == 0, \
        capsys.readouterr().err
    got = json.loads(capsys.readouterr().out)
    # the claim's figure: the bill's paid pre-training hours, main run and phase
    assert got["gpu_hours"] == pytest.approx(ledger.figures["paid_gpu_hours"], rel=1e-9)
    assert got["phase_gpu_hours"] == pytest.approx(paid, rel=1e-9)
    # the file's MFU, backed out through the bill's pooled goodput: each phase has the goodput
    # of its own length (reliability.finite_run_breakdown: the phase's 0.8 days of work at
    # 95.80%, the main run's 21 days a little under), so the pooled one is not the main run's
    # exactly (a relative 3e-5 here)
    assert got["steady_state"]["bf16"] == pytest.approx(0.4, rel=1e-4)
    assert got["goodput"] == pytest.approx(ledger.figures["goodput"], rel=1e-12)
    # its lines left out: the bill's, exploratory and checkpoints included, and the phase not
    # among them (it is the claim's)
    # (priced from the claim's steady-state MFU, backed out through the pooled goodput above:
    # the exploratory line, a multiple of the final run, moves with it, by 3e-5 here)
    rows = {r["key"]: r for r in got["left_out"]}
    assert "compute.pretraining.long-context" not in rows
    for k, r in rows.items():
        if r["usd"] is not None and r["status"] != "included":
            assert r["usd"] == pytest.approx(bill[k], rel=1e-4, abs=1e-6), k
    # so the claim priced at the file's $3.00 plus what it leaves out is estimate's total
    assert got["gpu_hours"] * 3.0 + got["left_out_usd"] == pytest.approx(
        sum(bill.values()), rel=1e-4)
    assert got["hours_from"].startswith("hours: the scenario's run as `llmcost estimate` bills")
    # a flag that changes the run: the phase is no longer the claim's hours, and its line is
    # listed as left out (priced with the file's keys)
    assert main(["check", "--scenario", str(f), "--n-gpus", "128", "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["phase_gpu_hours"] == {} and "hours_from" not in got
    assert {r["key"]: r for r in got["left_out"]}["compute.pretraining.long-context"]["usd"] > 0


@pytest.mark.parametrize("path", sorted((llmcost.SCENARIO_DIR).glob("*.yaml")),
                         ids=lambda p: p.name)
def test_every_shipped_scenario_passes_check(capsys, path):
    # A new-user trial: `check --scenario data/scenarios/llama-3.1-405b.yaml` stopped with
    # "101.5 GB of bf16 weights per GPU do not fit H100-SXM's 77.3 GB" while `estimate` priced
    # the same file: the RL line read no serve_ key, so its rollouts held bf16 weights where the
    # file sets serve_weight_dtype: fp8. By hand (Llama 3.1 405B, 405.85e9 parameters, the
    # catalogue count; rl_rollout_tp 8): bf16 2 B × 405.85e9 / 8 = 101.5 GB > 77.3 GB usable,
    # fp8 1 B × 405.85e9 / 8 = 50.7 GB fits. Rule: every shipped scenario passes `check
    # --scenario`, and the lines it lists are the bill's own (the same dollars).
    from llmcost.present.cli import estimate_ledger
    assert 405.85e9 * 2 / 8 / 1e9 == pytest.approx(101.5, abs=0.05)  # the error's figure
    assert main(["check", "--scenario", str(path), "--format", "json"]) == 0, \
        capsys.readouterr().err
    got = json.loads(capsys.readouterr().out)
    bill = {ln.key: ln.usd for ln in estimate_ledger(path).lines}
    # a file with phases (405B's long-context and annealing): the claim is the run the bill
    # prices, main run and phases (test_check_scenario_reads_the_whole_bill)
    for r in got["left_out"]:
        if r["usd"] is not None and r["status"] != "included":
            assert r["usd"] == pytest.approx(bill[r["key"]], rel=1e-6, abs=0.01), r["key"]
    # and with the model card's 30.84M GPU-hours as the claim (Llama 3.1 405B only)
    if path.name == "llama-3.1-405b.yaml":
        assert main(["check", "--scenario", str(path), "--gpu-hours", "30.84e6"]) == 0
        assert "RL post-training" in capsys.readouterr().out


def test_a_cost_below_the_least_its_flops_can_cost_is_implausible(capsys):
    # A new-user trial: `check --model llama-3.1-70b --train-tokens 15e12 --accelerator
    # H100-SXM --usd 5e4` said OPTIMISTIC (a cost-only claim was never implausible). By hand:
    # the FLOPs a causal run of 15T tokens does (kernels skip the masked half of attention; at
    # 8,192-token sequences 6.738e24 by the exact causal count, 0.933 of the full-mask MFU
    # basis 7.222e24), at H100's measured matmul ceiling 80.1% of the 989.4 TFLOP/s BF16 peak
    # (stas00/ml-engineering MAMF table, data/efficiency.csv) take 6.738e24 / (989.4e12 ×
    # 0.801 × 3600) = 2.362e6 GPU-h; the least an H100-SXM hour can cost is the owned
    # amortisation at the low end of its sourced inputs (Cottier et al. 2024: $25,000, the low
    # end of Raymond James's $25,000-$30,000 H100 price, × 1.64 / 0.81 × 0.14·ln 10 / 8,766 h =
    # $1.861 capex + 1.05105 kW (PUE 1.1, the low end of 1.1-1.25) × $0.0861/kWh = $0.0905
    # energy, the US EIA industrial price of 2025) = $1.95, below the cheapest current listed
    # price, CoreWeave spot $2.46375 (data/prices.csv): floor ≈ $4.61M > $50k.
    c = claims.check_claim("llama-3.1-70b", 15e12, "H100-SXM", usd=5e4, left_out=False)
    assert c.flops_mfu_basis == pytest.approx(7.222e24, rel=1e-3)
    causal = float(llmcost.training_flops("llama-3.1-70b", 15e12, 8192, method="detailed",
                                          causal=True))
    assert causal == pytest.approx(6.738e24, rel=1e-3)
    hours = causal / (H100_BF16 * 0.801 * 3600)
    assert hours == pytest.approx(2.362e6, rel=1e-3)
    capex = 25_000 * 1.64 / (1 - 0.19) * 0.14 * 2.302585 / 8766
    assert capex == pytest.approx(1.8614, rel=1e-3)
    assert c.cost_floor_usd == pytest.approx(hours * (capex + 1.05105 * 0.0861), rel=2e-3)
    assert c.cost_floor_usd < hours * 2.46375  # below every listed price's floor
    assert c.verdict == "implausible"
    said = " ".join(c.reason.split())
    assert f"below the least its FLOPs can cost: ${c.cost_floor_usd:,.0f}" in said \
        and "(causal)" in said and "80.1% matmul ceiling" in said \
        and f"{hours:,.0f} GPU-h" in said and "$1.95/GPU-h" in said and "CoreWeave spot" in said
    # at 131,072 tokens attention is most of the work and a causal kernel does half of it: the
    # floor on the full-mask count (2.51e23 for Llama 3.1 8B on 1T tokens) would be above what
    # a run at a 40%-of-peak attention rate costs; on the causal count (1.48e23) it is not
    longc = claims.check_claim("llama-3.1-8b", 1e12, "H100-SXM", usd=1e3, seq_len=131072,
                               left_out=False)
    full = float(llmcost.training_flops("llama-3.1-8b", 1e12, 131072, method="detailed",
                                        causal=False))
    half = float(llmcost.training_flops("llama-3.1-8b", 1e12, 131072, method="detailed",
                                        causal=True))
    assert half / full == pytest.approx(1.481 / 2.512, rel=0.01)
    assert longc.cost_floor_usd == pytest.approx(
        c.cost_floor_usd / (causal / (H100_BF16 * 0.801 * 3600)) * half
        / (H100_BF16 * 0.801 * 3600), rel=1e-9)
    # a claim just above the floor is not called implausible by it (the rule is the floor)
    above = claims.check_claim("llama-3.1-70b", 15e12, "H100-SXM", usd=c.cost_floor_usd * 1.01,
                               left_out=False)
    assert above.verdict != "implausible" and above.cost_floor_usd == c.cost_floor_usd
    assert main(["check", "--model", "llama-3.1-70b", "--train-tokens", "15e12",
                 "--accelerator", "H100-SXM", "--usd", "5e4"]) == 0
    assert "Verdict: IMPLAUSIBLE: cost-only claim: the claimed $50,000 is below" in \
        _unwrapped(capsys.readouterr().out)


def test_a_cost_only_claim_on_an_unpriced_accelerator(capsys):
    # A review: `check --model llama-2-70b --accelerator "TPU v4" --usd 100` said PLAUSIBLE
    # (the floor unpriced, "so its cost alone cannot make it implausible"), and on an H800
    # --usd 100 said only OPTIMISTIC: $100 for 8.9e23 FLOPs. An H800 has no row in
    # data/prices.csv, but it is a Hopper GH100 die like the H100-SXM (core.stacks.GENERATIONS):
    # the floor is priced at the cheapest hour of that generation. By hand: Llama 2 70B on its
    # published 2T tokens at 4,096-token sequences does 8.568e23 FLOPs with a causal mask; at
    # H800's 80.1% matmul ceiling (data/efficiency.csv) of its 989.4 TFLOP/s BF16 peak (the
    # H100's, NVIDIA H800 datasheet in data/accelerators.csv) that is 8.568e23 / (989.4e12 ×
    # 0.801 × 3600) = 300,300 GPU-h; the least a Hopper hour can cost is the H100-SXM's owned
    # hour at the low end of its inputs, $1.8614 capex + $0.0905 energy (Cottier et al. 2024,
    # the test above), below every listed Hopper price (H100-SXM CoreWeave spot $2.46, H200
    # Hyperstack $3.99): floor ≈ $586k > $100.
    causal = float(llmcost.training_flops("llama-2-70b", 2e12, 4096, method="detailed",
                                          causal=True))
    assert causal == pytest.approx(8.568e23, rel=1e-3)
    hours = causal / (H100_BF16 * 0.801 * 3600)
    assert hours == pytest.approx(300_300, rel=1e-3)
    h800 = claims.check_claim("llama-2-70b", None, "H800", usd=100, left_out=False)
    assert h800.cost_floor_usd == pytest.approx(hours * (1.8614 + 1.05105 * 0.0861), rel=2e-3)
    assert h800.verdict == "implausible"
    said = " ".join(h800.reason.split())
    assert "H800 has no current price of its own; the cheapest hour of its generation " \
           "(H100 (Hopper), one die) is the low end of the owned amortisation of H100-SXM" \
           in said
    # its own price wins where it has one: the H100-SXM's floor is the same hours × $1.95
    h100 = claims.check_claim("llama-2-70b", None, "H100-SXM", usd=100, left_out=False)
    assert h100.cost_floor_usd == pytest.approx(h800.cost_floor_usd, rel=1e-9)
    # TPU v4: no row of its own, and no other accelerator of its generation (TPU v5e and v5p
    # are other dies at other prices): nothing prices the claim, which states only a cost, so
    # its cost is not judged, not called plausible
    t = claims.check_claim("llama-2-70b", None, "TPU v4", usd=100, left_out=False)
    assert t.cost_floor_usd is None and t.verdict == "not judged" \
        and t.verdict in claims.VERDICTS
    said = " ".join(t.reason.split())
    assert "its cost cannot be judged: the catalogue lists no current price of TPU v4" in said
    assert "cannot make it implausible" not in said
    # the price it needs is said: $100 over the hours at 40-80% of the BF16 peak (its ceiling
    # standing in for an unpublished best): 8.89e23 MFU-basis FLOPs / (275e12 × 0.8 × 3600)
    # = 1,122,453 GPU-h, so $8.9e-05/GPU-h at the high end
    assert t.needed_usd_per_gpu_hour[1] == pytest.approx(100 / 1_122_453, rel=2e-3)
    assert "$8.9e-05/GPU-h" in said
    assert main(["check", "--model", "llama-2-70b", "--accelerator", "TPU v4",
                 "--usd", "100"]) == 0
    out = _unwrapped(capsys.readouterr().out)
    assert "Verdict: NOT JUDGED: cost-only claim: its cost cannot be judged" in out
    assert "PLAUSIBLE" not in out


def test_whole_run_figures_carry_their_sourced_precision():
    # Every row of data/published_runs.csv with a whole-run figure (reported accelerator-hours
    # or days) states its GEMM precision with a source. A chip without FP8 (no FP8 peak in
    # data/accelerators.csv: the A100 datasheet lists TF32/BF16/FP16/INT8/INT4, the TPU v4
    # docs bf16/int8) can only have run 16-bit GEMMs ("BF16"); DeepSeek-V3 trained in FP8
    # (arXiv:2412.19437 §3.3 'FP8 Training').
    runs = llmcost.load_published_runs()
    whole = runs[runs["reported_gpu_hours"].notna() | runs["reported_days"].notna()]
    assert len(whole) >= 26
    assert set(whole["precision"]) <= {"BF16", "FP8"}
    assert whole["precision_source"].str.len().min() > 40
    fp8_peak = pd.read_csv(DATA_DIR / "accelerators.csv").set_index("name")[
        "peak_fp8_flops_per_s"]
    no_fp8 = whole[whole["catalog_accelerator"].map(lambda a: isinstance(a, str)
                                                    and not fp8_peak.get(a) > 0)]
    assert {"A100-80GB", "A100-40GB", "TPU v4"} <= set(no_fp8["catalog_accelerator"])
    assert set(no_fp8["precision"]) == {"BF16"}
    assert set(whole.loc[whole["catalog_model"] == "deepseek-v3", "precision"]) == {"FP8"}
    assert "§3.3" in whole.set_index("run_id").loc["deepseek-v3", "precision_source"]
    # rows without a whole-run figure leave it to data/validation_mfu.csv's dtype
    assert runs.loc[~runs.index.isin(whole.index), "precision"].isna().all()


@pytest.mark.parametrize("model", ["kimi-k2", "qwen3-235b-a22b", "deepseek-v3"])
def test_a_bf16_moe_claim_is_not_compared_with_an_fp8_run(capsys, model):
    # A new-user trial: `check --model kimi-k2 --accelerator H100-SXM --mfu 0.4 --n-gpus 1024`
    # (and qwen3-235b-a22b) said PLAUSIBLE against DeepSeek-V3's whole-run figure, 47.5% of the
    # BF16 peak, while the rule it printed read "BF16 runs" and deepseek-v3 itself (its own runs
    # left out) got OPTIMISTIC against 20.6% (26.6% since Megatron-Bridge 25.11's FP8-CS
    # Qwen3-235B-A22B on 256 H100 joined the table). By hand, DeepSeek-V3's whole run: 4.319e24
    # MFU-basis FLOPs / (2.664e6 H800-h × 3600 × 989.4e12) = 45.5% of the BF16 peak, ÷ its
    # goodput on 2,048 GPUs ≈ 47.5%; but it trained in FP8 (arXiv:2412.19437 §3.3), so for a
    # BF16 claim it is no comparable run (accuracy.comparable_published_mfu's dtype rule), and
    # for an FP8 claim it is.
    assert 4.319e24 / (2.664e6 * 3600 * H100_BF16) == pytest.approx(0.455, abs=5e-4)
    spec = llmcost.load_model(model)
    best, src = claims.best_reference("H100-SXM", float(spec.n_params), exclude_model=model,
                                      is_moe=True, dtype="bf16")
    assert "DeepSeek-V3's whole-run" not in src and "BF16 runs" in src
    assert best < 0.40  # every BF16 MoE run on Hopper within 4× is below the claimed 40%
    assert main(["check", "--model", model, "--accelerator", "H100-SXM", "--mfu", "0.4",
                 "--n-gpus", "1024"]) == 0
    assert "Verdict: OPTIMISTIC" in capsys.readouterr().out
    if model != "deepseek-v3":  # an FP8 claim counts FP8 and BF16 runs: DeepSeek-V3's is best
        best8, src8 = claims.best_reference("H100-SXM", float(spec.n_params),
                                            exclude_model=model, is_moe=True, dtype="fp8")
        assert best8 == pytest.approx(0.475, abs=0.005) and "DeepSeek-V3's whole-run" in src8


@pytest.mark.parametrize("argv, words", [
    # A new-user trial: check's errors named the library's keys ("usd=-3.0", "gpu_hours=0.0")
    # where its own flag errors name the flag ("--n-gpus='2.5'"), and `--days 3` alone said
    # "none was given" though --days was: it lacks --n-gpus (hours = days × GPUs × 24).
    (["--usd=-3"], "--usd=-3.0 must be a positive number"),
    (["--gpu-hours", "0"], "--gpu-hours=0.0 must be a positive number"),
    (["--days", "3"], "--days=3.0 gives the GPU-hours only with --n-gpus (days × --n-gpus × 24): "
                      "--n-gpus was not given"),
    (["--gpu-hours", "1e6", "--days", "30", "--n-gpus", "64"],
     "--gpu-hours = 1,000,000 but days x --n-gpus x 24 = 46,080"),
])
def test_check_errors_name_the_flags_given(capsys, argv, words):
    assert main(["check", "--model", "llama-3.1-70b", "--train-tokens", "15e12",
                 "--accelerator", "H100-SXM", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0], err
    # a flag beside a scenario file is still a flag
    assert main(["check", "--scenario", str(llmcost.SCENARIO_DIR / "default.yaml"),
                 "--usd=-3"]) == 2
    assert "--usd=-3.0 must be a positive number" in capsys.readouterr().err


def test_days_without_gpus_says_what_is_missing():
    with pytest.raises(ValueError, match=r"days=3.0 gives the GPU-hours only with n_gpus .*: "
                                         r"n_gpus was not given"):
        claims.check_claim("llama-3.1-70b", 15e12, "H100-SXM", days=3.0, left_out=False)
    # days with a stated MFU: the MFU gives the hours, days the GPU count (not refused)
    c = claims.check_claim("llama-3.1-70b", 15e12, "H100-SXM", days=30.0, mfu=0.4,
                           left_out=False)
    assert c.n_gpus == round(c.gpu_hours / (30 * 24))


def test_a_context_beyond_the_models_is_said_as_estimate_says_it(capsys, tmp_path):
    # A new-user trial: `check --seq-len 100000000` was taken without a word for a model whose
    # context is far shorter, where `llmcost estimate` warns (checks.scenario_warnings). By
    # hand: Llama 3.1 8B declares max_position_embeddings 131,072 (meta-llama/Llama-3.1-8B
    # config.json; data/models.csv), so 100,000,000 > 131,072: the model cannot attend that far;
    # Mistral 7B's catalogue records an 8,192-token pre-training length and no longer context.
    from llmcost.bill.checks import scenario_warnings
    # (hours each model's FLOPs at that length can take: Llama's full attention over 1e8
    # tokens needs ~1.5e7 GPU-h at the peak, Mistral's 4,096-token window ~1e5)
    for model, seq, hours, words in (
            ("llama-3.1-8b", 100_000_000, 1e8, "beyond llama-3.1-8b's context of 131,072 tokens"),
            ("mistral-7b", 100_000_000, 1e6, "beyond the 8,192-token sequence length mistral-7b "
                                             "was pre-trained")):
        c = claims.check_claim(model, 1e12, "H100-SXM", gpu_hours=hours, seq_len=seq,
                               left_out=False)
        said = [n for n in c.notes if words in n]
        assert len(said) == 1
        # the very sentence estimate warns with for that model and context
        assert said[0] in scenario_warnings({"model": model, "seq_len": seq,
                                             "accelerator": "H100-SXM"})
    # within the pre-training length: nothing said
    assert not any("seq_len=" in n for n in claims.check_claim(
        "llama-3.1-8b", 1e12, "H100-SXM", gpu_hours=1e5, seq_len=8192, left_out=False).notes)
    assert main(["check", "--model", "llama-3.1-8b", "--train-tokens", "1e12", "--accelerator",
                 "H100-SXM", "--gpu-hours", "1e8", "--seq-len", "100000000"]) == 0
    assert "Note: seq_len=100,000,000 is beyond llama-3.1-8b's context of 131,072 tokens" in \
        _unwrapped(capsys.readouterr().out)


def test_a_claims_dtype_and_pricing_in_another_case_are_read():
    # a scenario file reads `dtype: FP8` as fp8; `llmcost check --dtype FP8` was refused
    a = claims.check_claim("llama-3.1-8b", 1e12, "H100-SXM", usd=1e6, dtype="FP8",
                           pricing="On_Demand", left_out=False)
    b = claims.check_claim("llama-3.1-8b", 1e12, "H100-SXM", usd=1e6, dtype="fp8",
                           left_out=False)
    assert a.dtype == "fp8" and a.verdict == b.verdict and a.reason == b.reason


def test_an_fp8_claim_is_judged_against_the_published_fp8_runs_on_the_bf16_basis():
    # A new-user trial: an FP8 claim for a 3B dense model on 64 H100 for 7 days read PLAUSIBLE at
    # 147% of the BF16 peak ("few fp8 runs are published ... not called optimistic"), while the
    # best comparable published run it printed, Megatron-Bridge 25.11's LLAMA3_8B FP8-CS on 8
    # H100 (data/validation_mfu.csv mb2511-h100-llama-3.1-8b-fp8cs: 14,451 tokens/s/GPU), is
    # itself FP8, its MFU on the BF16 peak: 84.6%. Hand, Qwen3-4B (4.022e9 parameters, dense) on
    # 2e12 tokens, 64 H100 × 10 days = 15,360 GPU-h, 6ND alone: 6 × 4.022e9 × 2e12 = 4.827e22
    # FLOP ÷ (15,360 × 3600 × 989.4e12) = 88.2% of the BF16 peak, above 84.6% before the
    # attention FLOPs of the MFU basis and the goodput (≤ 1) raise it further: optimistic.
    assert 6 * 4.022e9 * 2e12 / (15360 * 3600 * H100_BF16) == pytest.approx(0.882, abs=1e-3)
    c = claims.check_claim("qwen3-4b", 2e12, "H100-SXM", n_gpus=64, days=10, dtype="fp8",
                           seq_len=8192, left_out=False)
    assert c.whole_run_6nd["bf16"] == pytest.approx(0.882, abs=2e-3)
    assert c.best_published == pytest.approx(0.846, abs=5e-4) and "LLAMA3_8B" in c.best_source
    assert c.verdict == "optimistic", c.reason
    assert "84.6% of the BF16 peak" in c.reason and "not called optimistic" not in c.reason
    # not implausible: on the FP8 peak it is under the 80.1% matmul ceiling (data/efficiency.csv)
    assert c.steady_state["fp8"] < 0.801
    # DeepSeek-V3 on 2,304 GB200 for 10 days (the trial's FP8 scenario): 4.319e24 MFU-basis FLOPs
    # (the hand figure of test_a_bf16_moe_claim_is_not_compared_with_an_fp8_run) ÷ (552,960 h ×
    # 3600 × 2,500e12) = 86.8% of the BF16 peak, above the best MoE run on Blackwell (not
    # Blackwell Ultra), Megatron-Bridge 26.06's DeepSeekV3 on 256 GB200 at 58.0%, itself FP8
    # (the trial: PLAUSIBLE, against GB300's 75.0%)
    assert 4.319e24 / (2304 * 240 * 3600 * 2500e12) == pytest.approx(0.868, abs=1e-3)
    d = claims.check_claim("deepseek-v3", 14.8e12, "GB200-NVL72", n_gpus=2304, days=10,
                           dtype="fp8", seq_len=4096, left_out=False, exclude_own_runs=False)
    assert d.best_published == pytest.approx(0.580, abs=5e-4) and "DeepSeekV3" in d.best_source
    assert d.verdict == "optimistic", d.reason
    # at 60 days the same claim is 14.5% of the BF16 peak ÷ goodput, under half the best: low
    e = claims.check_claim("deepseek-v3", 14.8e12, "GB200-NVL72", n_gpus=2304, days=60,
                           dtype="fp8", seq_len=4096, left_out=False, exclude_own_runs=False)
    assert e.verdict == "low", e.reason


def test_a_cost_only_claim_without_a_comparable_run_is_timed_at_the_any_size_bound():
    # Llama 3.1 405B on A100-80GB at 32k tokens, a published claim (its own runs left out): no
    # dense BF16 Ampere run within 4× of 405B at 8k-131k tokens; the best of any size is MPT 3B's
    # 59.0% (llm-foundry's table, 8 A100-80GB, data/validation_mfu.csv). A cost-only claim's
    # hours: H = C / (P_bf16 × 0.590 × 3600) (A100 312 TFLOP/s dense BF16, NVIDIA A100
    # datasheet), not at the 85.9% matmul ceiling the verdict's bound does not reach
    c = claims.check_claim("llama-3.1-405b", 3e11, "A100-80GB", usd=20_000, left_out=False,
                           seq_len=32768)
    bound, src = claims.any_size_bound("A100-80GB", False, "bf16", 32768, "llama-3.1-405b")
    assert bound == pytest.approx(0.590, abs=0.001) and "MPT 3b" in src
    assert c.gpu_hours == pytest.approx(c.flops_mfu_basis / (312e12 * bound * 3600), rel=1e-9)
    assert "at the best published steady-state MFU of its class at any size 59.0%" in \
        c.hours_source
    # a BF16 claim whose any-size bound is an FP8 run above the ceiling (Blackwell Ultra dense:
    # every published run FP8) is timed at the ceiling (GB300: 69.8%, data/efficiency.csv), and
    # says so; on B200 the best dense run of its class at any size times it, BF16 or an FP8 run
    # ÷ r (Megatron-Bridge's Llama 3 8B FP8 on 8 B200, 78.8% ÷ 1.335 = 59.0%, above NVIDIA's
    # DGX Cloud Llama 3.1 405B BF16 on 128 GB200, 46.0%)
    u = claims.check_claim("opt-1.3b", 3e11, "GB300-NVL72", usd=20_000, left_out=False)
    assert "at the matmul ceiling 69.8%" in u.hours_source
    b = claims.check_claim("opt-1.3b", 3e11, "B200", usd=20_000, left_out=False)
    assert "of its class at any size 59.0%" in b.hours_source


def test_a_claim_on_more_gpus_than_can_keep_any_work_is_refused_by_name():
    # A trial: check_claim(n_gpus=2**45) raised ZeroDivisionError from the goodput. At the
    # default failure rate (0.173 per GPU-year, Llama 3) the job's MTBF is 3.15e7 s ÷ (0.173 ×
    # 3.5e13) ≈ 5e-6 s, shorter than any checkpoint: goodput 0, refused naming n_gpus.
    with pytest.raises(ValueError, match=r"n_gpus=35,184,372,088,832: .* \(goodput 0,"):
        llmcost.check_claim(model="llama-2-7b", accelerator="H100-SXM", gpu_hours=1e5,
                            train_tokens=1e12, n_gpus=2**45)


def test_resolve_price_takes_a_range_at_its_point():
    # A trial: resolve_price("H100-SXM", [2.0, 3.0]), a range as scenarios allow, raised
    # TypeError; its point (the mode of the triangular draw, 2.5 for [2, 3]) is the price
    price, how = llmcost.resolve_price("H100-SXM", [2.0, 3.0])
    assert price == pytest.approx(2.5) and "the point of the range" in how
    assert llmcost.resolve_price("H100-SXM", 3.0) == (3.0, "given as price_usd_per_gpu_hour")


def test_the_left_out_rl_line_says_its_time_factor_and_draws_the_rl_models_error():
    # A trial: check printed "RL post-training: $6,612 (modelled)" without saying it is billed
    # at 1.69 × the model's iteration time (the published GRPO runs' median, rl.scenario_time_
    # factor), nor drawing the RL model's error on it (kind rl_model, as estimate does). Given
    # a factor of 1 (the model's own time), the line is one number and says nothing more.
    from llmcost.serving import rl
    keys = {"rl_iterations": 100, "rl_runs": 2, "rl_gpus": 8, "rl_rollout_tp": 1}
    base = dict(n_gpus=64, gpu_hours=5e4, price_usd_per_gpu_hour=2.0)
    got = claims.check_claim("llama-3.1-8b", 1e11, "H100-SXM", ledger_keys=keys, **base)
    (row,) = [x for x in got.left_out if x["key"] == "post.rl"]
    assert row["time"] == f"× {rl.RL_TIME_FACTOR_MEDIAN:g}, published GRPO runs' median"
    assert row["p10_usd"] < row["usd"] < row["p90_usd"]   # 0.55-3.15 around 1.69
    assert f"the model's iteration time × {rl.RL_TIME_FACTOR_MEDIAN:g}" in got.describe()
    own = claims.check_claim("llama-3.1-8b", 1e11, "H100-SXM",
                             ledger_keys={**keys, "rl_time_factor": 1.0}, **base)
    (one,) = [x for x in own.left_out if x["key"] == "post.rl"]
    assert one["time"] == "" and one["p10_usd"] == one["usd"] == one["p90_usd"]
    assert row["usd"] == pytest.approx(one["usd"] * rl.RL_TIME_FACTOR_MEDIAN, rel=1e-9)


def test_a_scenario_judged_by_its_own_models_run_says_so_with_the_best_without_it():
    # A trial: notebook 08 judged DeepSeek-V3's published claim optimistic against 33.0% (its own
    # run left out: a run never vouches for itself) and, on the same page, a scenario of that
    # run plausible against 47.5%, DeepSeek-V3's own whole-run utilisation ÷ goodput. The
    # scenario's verdict now names the reference as the model's own run and gives the best
    # without it, the claim check's reference.
    from llmcost.bill import claims
    spec, gpu = llmcost.load_model("deepseek-v3"), llmcost.load_accelerator("H800")
    _, _, mine = claims.scenario_as_claim(spec, 14.8e12, gpu, 2048, 0.228, dtype="fp8",
                                          seq_len=4096, pricing="reserved")
    claim = claims.check_claim(spec, 14.8e12, gpu, n_gpus=2048, gpu_hours=2.788e6, dtype="fp8",
                               seq_len=4096)
    own_best = mine.best_published
    other_best = claim.best_published
    assert other_best < own_best   # the model's own run sets the scenario's reference
    note = mine.own_run_note
    assert note.startswith(f"the best comparable run, {own_best:.1%} of the BF16 peak, is a "
                           "published run of deepseek-v3 itself (")
    # the run named (a trial read "llama-3.1-8b's own published run" for an 8-GPU benchmark)
    assert "): a scenario is judged with its model's own runs" in note
    head = note.split(": a scenario is judged")[0]   # the run's name, its parentheses closed
    assert head.count("(") == head.count(")")
    assert f"without them the best is {other_best:.1%} (" in note
    assert claim.own_run_note == ""   # a claim is never judged against its own run


def test_a_claims_default_goodput_says_its_storage():
    # A trial: `check` with flags gave 97.8% goodput and $127k of checkpoint storage for
    # Llama 2 70B on 2,048 H100 at 40%, `check --scenario` of the same five values 96.9% and
    # $34.8k: a claim states no storage, so its goodput takes Llama 3's 2e12 B/s over 16,384
    # GPUs (122 MB/s per GPU, reliability.STORAGE_BYTES_PER_S_PER_GPU), where a scenario's bill
    # sizes its storage to its price. The hours' source says which.
    from llmcost.training import reliability as rel
    assert rel.STORAGE_BYTES_PER_S_PER_GPU == pytest.approx(2e12 / 16384)
    c = claims.check_claim("llama-2-70b", 2e12, "H100-SXM", n_gpus=2048, mfu=0.40,
                           left_out=False)
    assert "with Llama 3's checkpoint storage per GPU, 122 MB/s, as a claim states none" in \
        c.hours_source
    from llmcost.bill.scenario import LEDGER_DEFAULTS as d
    assert d["ckpt_storage_bytes_per_s"] is None   # a scenario's bill sizes it (ledger)
    plan = rel.checkpoint_plan(
        68.98e9, 2048, d["fail_rate_per_gpu_year"], rel.job_storage_bytes_per_s(2048),
        d["ckpt_restart_s"], recipe=d["ckpt_recipe"], node_bytes_per_s=d["ckpt_node_bytes_per_s"],
        d2h_bytes_per_s=d["ckpt_d2h_bytes_per_s"], async_=d["ckpt_async"],
        planned_per_day=d["fail_planned_per_day"])
    g = claims.goodput_for(68.98e9, 2048)
    assert g == pytest.approx(float(plan.goodput), rel=1e-9)
    # the scenario route's bill (storage sized to its price) differs by more than the rounding
    bill = llmcost.build_ledger({**llmcost.load_scenario(llmcost.SCENARIO_DIR / "default.yaml"),
                                 "mfu": 0.40})
    assert abs(bill.figures["goodput"] - g) > 0.005
    # a cost-only claim says the same of its goodput
    usd = claims.check_claim("llama-2-70b", 2e12, "H100-SXM", n_gpus=2048, usd=5e6,
                             left_out=False)
    assert "with Llama 3's checkpoint storage per GPU" in usd.hours_source
    # a scenario's own goodput (its bill's) is not said to be Llama 3's storage
    own = claims.check_claim("llama-2-70b", 2e12, "H100-SXM", n_gpus=2048, mfu=0.40,
                             goodput=0.969, left_out=False)
    assert "Llama 3's checkpoint storage" not in own.hours_source
    # and the left-out checkpoint-storage line, priced for that storage, says so beside its
    # amount (a later trial read $342k there against the scenario route's $64k, unsaid):
    # 2,048 GPUs × 122 MB/s = 250 GB/s provisioned
    full = claims.check_claim("llama-2-70b", 2e12, "H100-SXM", n_gpus=2048, mfu=0.40)
    (row,) = [x for x in full.left_out if x["key"] == "storage.checkpoints"]
    assert row["sized"] == claims.STORAGE_WORDS and "250 GB/s" in row["how"]
    (text,) = [ln for ln in full.describe().splitlines() if "checkpoint storage:" in ln]
    assert "sized to Llama 3's checkpoint storage per GPU" in text


@pytest.mark.parametrize("run_id, n, layers, d, s, hours", [
    # MPT-7B: 6.7B parameters, 1T tokens, '~9.5 days ... on 440xA100-40GB' (MosaicML's blog),
    # 32 layers of 4,096 at 2,048 tokens (its config.json)
    ("mpt-7b", 6.7e9, 32, 4096, 2048, 9.5 * 440 * 24),
    # StarCoderBase: 15.5B, 1T tokens, 320,256 GPU-hours on A100 80GB (Li et al. 2023), 40
    # layers of 6,144 at 8,192 tokens
    ("starcoderbase-15b", 15.5e9, 40, 6144, 8192, 320256),
])
def test_runs_whose_shape_is_recorded_are_scored_on_the_mfu_basis(run_id, n, layers, d, s, hours):
    # A source check: both papers publish the shape the table lacked, so both runs were listed
    # as unscored. By hand on the MFU basis: 6·N·D plus the full-mask attention core,
    # 12·L·s·d per token (Narayanan et al. 2021, appendix), over hours × 3,600 × 312 TFLOP/s
    # (A100 dense BF16); the catalogue's N is built from the shape, within 1% of the papers'
    t = claims.published_run_errors().set_index("run_id")
    hand = (6 * n + 12 * layers * s * d) * 1e12 / (hours * 3600 * 312e12)
    assert t.loc[run_id, "scored"] == "gpu_hours"
    assert t.loc[run_id, "published_mfu"] == pytest.approx(hand, rel=0.01)


def test_the_cheapest_hour_is_the_generations_where_a_sibling_is_cheaper():
    # A researcher's trial: a claim on A100-40GB was floored at its own cheapest listing,
    # Lambda's $1.99 on demand (data/prices.csv), where CoreWeave lists an A100-80GB hour, the
    # same GA100 die, at $9.65 ÷ 8 = $1.20625 spot: notebook 08 calls the floor the cheapest
    # hour "of the accelerator or its generation". The sibling's lower hour is the floor, named.
    x, src = claims.cheapest_price("A100-40GB")
    assert claims.own_cheapest_price("A100-40GB")[0] == pytest.approx(1.99)
    assert x == pytest.approx(1.20625) and "A100-80GB" in src and "below A100-40GB's own" in src
    # an accelerator cheaper than its siblings keeps its own (H100-SXM's owned hour, $1.95)
    assert claims.cheapest_price("H100-SXM") == claims.own_cheapest_price("H100-SXM")


def test_stated_hours_are_matched_to_the_nearer_published_figure():
    # A trial: DeepSeek-V3's pre-training 2,664K H800 GPU-hours (arXiv:2412.19437 Table 1),
    # stated alone, were said to "match the published total 2,788,000" (4.4% apart, inside the
    # 5% tolerance), where they are exactly the pre-training share.
    _, note = claims.published_split_note("deepseek-v3", 2.664e6, 0.05)
    assert "matches the published pre-training share 2,664,000 of the total 2,788,000" in note
    _, note = claims.published_split_note("deepseek-v3", 2.788e6, 0.05)
    assert "matches the published total 2,788,000" in note
    assert "pass phases (--phase)" in note


def test_a_config_json_model_is_counted_at_the_scenarios_length_not_its_longest_context(
        tmp_path):
    # A small-lab trial's hand-written Llama 3.2 3B config.json (max_position_embeddings
    # 131,072, its context after the long-context stage; Meta's model card) was counted at
    # 131,072-token sequences, 8× 6ND, and its 64 H100s for 24 days refused as 199% of the
    # peak. Now the scenarios' default, 4,096, with a note; a length given is kept.
    import json
    cfg = {"model_type": "llama", "hidden_size": 3072, "intermediate_size": 8192,
           "num_hidden_layers": 28, "num_attention_heads": 24, "num_key_value_heads": 8,
           "head_dim": 128, "vocab_size": 128256, "max_position_embeddings": 131072,
           "tie_word_embeddings": True, "hidden_act": "silu"}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    c = claims.check_claim(str(path), 3e12, "H100-SXM", n_gpus=64, days=24, left_out=False)
    assert c.seq_len == 4096 and c.verdict != "implausible"
    assert any(n.startswith("seq_len not given: 4,096 tokens") and "131,072-token" in n
               for n in c.notes)
    spec = llmcost.ModelSpec.from_hf_config(str(path), seq_len=4096)
    assert c.flops_mfu_basis == pytest.approx(
        float(llmcost.training_flops(spec, 3e12, 4096, method="detailed", causal=False)))
    # claimed FLOPs are compared at that length too: by hand, the causal count at 4,096
    causal = float(llmcost.training_flops(spec, 3e12, 4096, method="detailed", causal=True))
    flops = claims.check_claim(str(path), 3e12, "H100-SXM", n_gpus=64, days=24,
                               left_out=False, train_flops=causal * 1.01)
    assert "with a causal mask" in flops.tokens_source
    # a context at or under the default is the length, no note; a spec read at its own length
    # keeps it
    for ctx in (2048, 4096):
        path.write_text(json.dumps({**cfg, "max_position_embeddings": ctx}))
        short = claims.check_claim(str(path), 3e12, "H100-SXM", gpu_hours=1e6, left_out=False)
        assert short.seq_len == ctx and not any("seq_len not given" in n for n in short.notes)
    path.write_text(json.dumps(cfg))
    own = llmcost.ModelSpec.from_hf_config(str(path), seq_len=8192)
    assert claims.check_claim(own, 3e12, "H100-SXM", gpu_hours=1e6,
                              left_out=False).seq_len == 8192
    given = claims.check_claim(str(path), 3e12, "H100-SXM", n_gpus=64, days=24,
                               seq_len=8192, left_out=False)
    assert given.seq_len == 8192 and not any("seq_len not given" in n for n in given.notes)
    # a catalogue model keeps its own pre-training length (Llama 3 §3.2: 8,192), no note
    cat = claims.check_claim("llama-3.1-8b", 15e12, "H100-SXM", gpu_hours=1.46e6,
                             left_out=False)
    assert cat.seq_len == 8192 and not any("seq_len not given" in n for n in cat.notes)


def test_flops_that_disagree_with_6nd_are_told_the_count_they_match():
    # A compute-governance trial: Llama 3.1 405B's 15.6T tokens with 4.1e25 FLOPs read only
    # "6ND gives 3.799e+25 (+7.9%)", though 4.1e25 is the attention-inclusive count; and
    # DeepSeek-V3 at 5.96e25 = 6 × 671B total × 14.8T (by hand: 5.959e25), the MoE slip of
    # counting every expert, read "+1687.3%". FLOPs that are another count of the same tokens
    # are judged on the tokens and said (a re-trial: named, then refused); others refused.
    c = claims.check_claim("llama-3.1-405b", 15.6e12, "H100-SXM", gpu_hours=3e7,
                           train_flops=4.1e25, left_out=False)
    spec = llmcost.load_model("llama-3.1-405b")
    mfu_basis = float(llmcost.training_flops(spec, 15.6e12, 8192, method="detailed",
                                             causal=False))
    assert c.train_tokens == 15.6e12
    assert "4.1e+25 is the attention-inclusive count at 8,192-token sequences" in \
        c.tokens_source and f"({mfu_basis:.4g}, " in c.tokens_source
    assert c.tokens_source.endswith(": the tokens are judged, the FLOPs noted")
    ds = claims.check_claim("deepseek-v3", 14.8e12, "H800", gpu_hours=2.788e6,
                            train_flops=5.96e25, left_out=False)
    assert "5.96e+25 is 6 × the 6.71e+11 total parameters × D: an MoE model's FLOPs count " \
           "its" in ds.tokens_source and ds.train_tokens == 14.8e12
    # FLOPs that match no count are refused, the 6ND figure said (no clause)
    with pytest.raises(ValueError, match=r"\(\+136.9%\)$"):
        claims.check_claim("llama-3.1-405b", 15.6e12, "H100-SXM", gpu_hours=3e7,
                           train_flops=9e25, left_out=False)
    # FLOPs alone that are the total-parameter count of the published tokens: said, and the
    # hours not told to check their unit (a re-trial read "check the unit" of right hours)
    alone = claims.check_claim("deepseek-v3", None, "H800", gpu_hours=2.664e6, dtype="fp8",
                               train_flops=5.96e25, left_out=False)
    assert "for the model's published 1.48e+13 tokens, 5.96e+25 is 6 × the" in \
        alone.tokens_source and "check the unit" not in alone.reason


def test_pre_training_compute_is_set_against_the_eu_ai_act_threshold():
    # Regulation (EU) 2024/1689 Art. 51(2): a model trained with more than 10^25 FLOP is presumed
    # to have high-impact capabilities. Llama 3.1 405B: 6 × 405.9e9 × 15.6e12 = 3.8e25 (Meta
    # reports 3.8e25 FLOPs) is above by both counts; DeepSeek-V3, 6 × 37.5e9 × 14.8e12 = 3.3e24,
    # below; a run whose 6ND is 9e24 and whose attention-inclusive count is 1.1e25, across.
    said = claims.compute_threshold_words
    assert said(6 * 405.9e9 * 15.6e12, 4.5e25).endswith(
        "is above it by both counts (post-training and synthetic-data generation count too)")
    assert "below it by both counts" in said(6 * 37.5e9 * 14.8e12, 4.3e24)
    assert "across it: above by the causal count, below by 6ND" in said(9e24, 1.1e25)
    # the upper count is the work a causal run does, not the MFU basis's full mask: Qwen2.5-72B
    # on 22T tokens at 4,096 (a journalist's trial read "across it" at 1.01e25 by the full
    # mask) is below by both, 6ND 9.6e24 and the causal count under 1e25 (by hand: causal adds
    # half of the full mask's attention term to the matmuls)
    spec = claims.claim_model("qwen2.5-72b")
    from llmcost.training.compute import model_flops_per_token
    full, causal = (22e12 * float(model_flops_per_token(spec, 4096, causal=x))
                    for x in (False, True))
    six = 6 * spec.n_active_params * 22e12
    attention = full - six    # the attention core with a full mask (and any other non-6N work)
    assert causal == pytest.approx(full - attention / 2, rel=0.02)
    assert full > 1e25 > causal > six
    c = claims.check_claim("qwen2.5-72b", 22e12, "H100-SXM", mfu=0.4, seq_len=4096,
                           left_out=False)
    assert "is below it by both counts" in c.describe()
    assert "1e+25 FLOP presumes systemic risk" in said(9e24, 1.1e25)
    # exactly 10^25 is not "greater than" it: below
    assert "below it by both counts" in said(1e25, 1e25)
    with pytest.raises(ValueError, match="flops_6nd"):
        said(-1.0, 1e25)
    # check and estimate say it
    c = claims.check_claim("llama-3.1-405b", 15.6e12, "H100-SXM", gpu_hours=3.08e7,
                           left_out=False)
    assert "EU AI Act (Regulation 2024/1689, Art. 51(2))" in c.describe()


def test_a_claim_stating_no_precision_takes_its_models_published_one():
    # A journalist's trial: DeepSeek-V3's own figures, $5.576M (DeepSeek-AI 2024,
    # arXiv:2412.19437, Table 1), were OPTIMISTIC unless --dtype fp8 was typed; its report
    # trains in FP8 (§3.3, "FP8 mixed precision training"), as data/published_runs.csv records.
    c = claims.check_claim("deepseek-v3", None, "H800", usd=5.576e6, left_out=False)
    assert any(n.startswith("dtype fp8: deepseek-v3's own published run's precision "
                            "(data/published_runs.csv deepseek-v3") for n in c.notes)
    assert c.verdict == claims.check_claim("deepseek-v3", None, "H800", usd=5.576e6,
                                           dtype="fp8", left_out=False).verdict == "plausible"
    as_bf16 = claims.check_claim("deepseek-v3", None, "H800", usd=5.576e6, dtype="bf16",
                                 left_out=False)
    assert as_bf16.verdict == "optimistic" and not any(n.startswith("dtype ")
                                                       for n in as_bf16.notes)
    # a model whose published run is BF16, or none: bf16, nothing said
    assert claims.published_precision(claims.claim_model("llama-3.1-405b")) == ("bf16", "")
    assert claims.published_precision(claims.claim_model("mistral-7b")) == ("bf16", "")
    # a claim of money alone states no hours, and its MFU is assumed, not implied
    text = c.describe()
    assert "the claim's hours are judged as given" not in text
    assert "the claim states no hours; a source splits deepseek-v3's GPU-hours" in text
    assert "goodput taken as 1, so the implied steady-state MFU is a lower bound" not in text
    # with no line priced (no GPU count, no price), no "priced total ... $0.00" under it
    bare = claims.check_claim("mistral-7b", 2e12, "H100-SXM", usd=1e5).describe()
    assert "none priced: the ledger needs n_gpus and a price" in bare
    assert "priced total of these lines" not in bare
