"""Step-time model: breakdown, overlap rules, predicted MFU against published runs, ranking."""

import dataclasses

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import llmcost
from llmcost import parallel, step
from llmcost.core.hardware import Cluster

A100 = llmcost.load_accelerator("A100-80GB")
H100 = llmcost.load_accelerator("H100-SXM")


@pytest.fixture(scope="module")
def validation():
    return step.mfu_validation()


# ----------------------------------------------------------------------------- accuracy
#: REGRESSION PINS (the code's own errors, predicted / reported − 1 on the MFU basis, not
#: sourced values): re-recorded when the engine added the straggler wait (``llmcost.straggler``:
#: every row with more than 8 GPUs is 1.1–3.4% slower than before). A change that makes any row
#: worse by more than half a percentage point, or the summary worse, fails. The sourced check
#: beside them is the goal on the published MFUs (<= 5% mean, <= 10% max) asserted below.
PINNED = {
    "megatron21-t1-1p7b": 0.009, "megatron21-t1-3p6b": 0.006, "megatron21-t1-7p5b": 0.003,
    "megatron21-t1-18p4b": 0.014, "megatron21-t1-39p1b": -0.038, "megatron21-t1-76p1b": 0.029,
    "megatron21-t1-145p6b": -0.014, "megatron21-t1-310p1b": 0.004,
    "megatron21-t1-529p6b": -0.022, "megatron21-t1-1008p0b": -0.055,
    "korthikanti22-22b": 0.021, "korthikanti22-175b": 0.013, "korthikanti22-530b": -0.046,
    "korthikanti22-1t": -0.100,
    "megatron21-t2-175b-384": 0.010, "megatron21-t2-175b-768": 0.022,
    "megatron21-t2-175b-1536": 0.052, "megatron21-t2-530b-560": -0.029,
    "megatron21-t2-530b-1120": -0.020, "megatron21-t2-530b-2240": 0.003,
}


def test_validation_meets_the_target_and_is_pinned(validation):
    errs = validation.set_index("run_id")["error"]
    for run, e in PINNED.items():
        assert abs(errs[run]) <= abs(e) + 0.005, (run, errs[run], e)
    summary = step.error_summary(validation)
    both = summary.loc["table1+table5"]
    assert both["rows"] == 14
    # The target: mean |error| <= 5%, max <= 10% on MFU over Table 1 + Table 5.
    assert both["mean_abs_error"] <= 0.05 and both["max_abs_error"] <= 0.10
    assert both["mean_abs_error"] <= 0.027 and both["max_abs_error"] <= 0.100
    assert summary.loc["megatron21-table2", "max_abs_error"] <= 0.053
    # Korthikanti's 22B row shares its layer with the calibration data (Table 4); the other 13
    # rows are held out.
    v = validation.set_index("run_id")
    held = v.drop(index="korthikanti22-22b")
    held = held[held.index.str.match(r"megatron21-t1|korthikanti22")]
    assert len(held) == 13 and held["error"].abs().max() <= 0.100


#: Two-sided bands on each set's errors (predicted / published MFU − 1), around the published
#: values of data/published_runs.csv. The issue's goal is |error| <= 10% (mean <= 5%) on every
#: held-out set. With the straggler wait the misses are: Llama 3 Table 4's mean
#: (errors −8.5%, −8.8%, +7.0%: mean 8.1%), Korthikanti's held-out mean (5.3%; its 1T row at
#: −10.0%) and the held-out 530B DeepSpeed ZeRO-3 rows (+17.6%, −10.2%, −6.0%; the 175B rows
#: calibrate the stack's fsdp_nic_aggregation); these bands say by how much. DeepSeek-V3 and
#: NeMo AutoModel's MoE rows miss too (REGRESSION_SET_BANDS below). The bands are regression bands around the code's errors, not sourced tolerances.
SET_BANDS = {
    "megatron21-table1": (-0.060, 0.035), "megatron21-table2": (-0.035, 0.055),
    "korthikanti22-table5": (-0.105, 0.030), "llama3-table4": (-0.095, 0.080),
    # NeMo AutoModel's Llama 3 70B (FSDP2, CP 2): -5.8 % before FSDP2's copies around its
    # collectives (step.fsdp_copies_s, 14 B per parameter per micro-batch), -13.0 % with them
    "nemo-automodel-h100": (-0.14, 0.0),
    "megatron21-table2-zero3": (-0.11, 0.19),
}

#: REGRESSION PINS, not sourced bands: these two sets miss the goal and their bands are drawn
#: around the code's own output (recorded at the commit that last moved them), to notice a
#: change; the sourced checks beside them are test_deepseek_v3_steady_state_is_above_the_
#: whole_run_average (one-sided, from the report's own caveats) and tests/
#: test_validation_nemo_moe.py (NeMo's published step times, 0.80-1.10x).
REGRESSION_SET_BANDS = {
    # DeepSeek-V3 pre-training, 2,048 H800 (arXiv:2412.19437: 180K GPU-hours per trillion
    # tokens = 1,543 tokens/s/GPU, a whole-run figure with everything included): predicted
    # +41.4% with the stack's per-node dispatch, FP8 dispatch / BF16 combine (§3.3.3), the
    # 4-node limit counted by §2.1.2's rule and the straggler wait (+44.8% without the wait,
    # -4.0% when every routed copy crossed the network in BF16); +39.8% with the MoE layers'
    # per-layer host cost (training.moe_layer, fitted on Megatron-Bridge rows; DeepGEMM's
    # grouped kernel: no per-expert term); +5.8% with the kernel mechanisms on by default
    # (FP8 as run: the LM head and router in BF16, the 1x128 / 128x128 block casts, §3.3;
    # GEMMs by shape); +1.2% with Hopper's backward FP8 GEMMs without fast accumulation
    # (StepOptions.fp8_split_accumulator, gemm.FP8_SLOW_ACCUMULATION)
    "deepseek-v3-h800": (0.0, 0.05),
    # NeMo AutoModel's H100 MoE table (docs/performance-summary.md, 2025-10-02; FSDP2 + EP, fake
    # balanced gate): DeepSeek V3 on 1,024 / 256 GPUs, Qwen3 30B-A3B on 8, Kimi K2 on 256,
    # published 24.6 / 28.5 / 34.0 / 20.6% MFU (tokens/s on the full-mask count), predicted
    # +15.5 / +6.9 / -0.7 / +20.6% with DeepEP's per-node dispatch of the fake gate, reshard
    # not_pp, GA flushes and the straggler wait (-30.7 / -38.4 / -19.5 / -25.4% before);
    # +14.8 / +6.2 / -2.1 / +19.8% with the MoE layers' per-layer host cost
    # (training.moe_layer) and the FSDP2 recipe: the goal is missed
    # (tests/test_validation_nemo_moe.py); +11.6 / +3.1 / -8.9 / +15.6% with the per-layer term
    # re-fitted as the dropless sync (1.59 ms; DeepEP's dispatch synchronises); +8.4 / -0.1 /
    # -10.7 / +8.8% with FSDP2's copies around its collectives (step.fsdp_copies_s)
    "nemo-automodel-h100-moe": (-0.12, 0.22),
}


def test_each_set_holds_its_errors_in_two_sided_bands():
    v = step.mfu_validation(sets=step.VALIDATION_SETS + step.OUTSIDE_SETS)
    assert set(v["set"]) == set(SET_BANDS) | set(REGRESSION_SET_BANDS)
    for name, (lo, hi) in {**SET_BANDS, **REGRESSION_SET_BANDS}.items():
        g = v[v["set"] == name]
        assert (g["predicted_mfu"] >= g["reported_mfu"] * (1 + lo)).all(), name
        assert (g["predicted_mfu"] <= g["reported_mfu"] * (1 + hi)).all(), name
    s = step.set_summary(v)
    # held-out sets meeting the max goal (Korthikanti's 1T row at -9.95% only just); the sets
    # that miss, and by how much (percentage points)
    for name in ("megatron21-table1", "megatron21-table2", "korthikanti22-table5"):
        assert s.loc[(name, "held-out"), "max_over_goal"] == 0, name
    for name in ("megatron21-table1", "megatron21-table2"):
        assert s.loc[(name, "held-out"), "mean_over_goal"] == 0, name
    assert s.loc[("korthikanti22-table5", "held-out"), "mean_over_goal"] == \
        pytest.approx(0.003, abs=0.002)
    # Llama 3 Table 4 on its TFLOP/s (430/400/380 ÷ 989.4): errors -8.5%, -8.7%, +7.1%
    assert s.loc[("llama3-table4", "held-out"), "max_over_goal"] == 0
    assert s.loc[("llama3-table4", "held-out"), "mean_over_goal"] == \
        pytest.approx(0.031, abs=0.003)
    # DeepSpeed ZeRO-3, 530B held out (Narayanan et al. 2021 Table 2: 138, 98, 48 TFLOP/s)
    assert s.loc[("megatron21-table2-zero3", "held-out"), "max_over_goal"] == \
        pytest.approx(0.076, abs=0.01)


def test_deepseek_v3_steady_state_is_above_the_whole_run_average():
    # Sourced one-sided check beside the regression pin above. DeepSeek-V3's published rate is
    # a whole-pre-training average: 2,664K H800 GPU-hours for 14.8T tokens (arXiv:2412.19437
    # abstract, Table 1: 180K GPU-hours per trillion tokens = 1e12 / (180e3 x 3600) = 1,543
    # tokens/s/GPU), with the batch ramped from 3,072 to 15,360 sequences over the first 469B
    # tokens (§4.2) and any restarts and evaluations inside it. MFU on the workbook's basis,
    # the run's one MTP module counted (§4.2, D = 1): 1,543.2 x 2.9185e11
    # (flops_per_token(4096, causal=False)) / 989.4e12 = 45.5% (43.9% without the module).
    # A steady-state prediction at the final batch must be at least that. Upper sanity bound:
    # the counted FLOPs cannot run faster than the fastest FP8 GEMM measured on Hopper,
    # 1,350 TFLOP/s (deepseek-ai/DeepGEMM announcement: "Up to 1350+ FP8 TFLOPS on Hopper
    # GPUs"), 1350 / 989.4 = 1.364 of the BF16 dense peak, itself below the FP8 dense peak
    # (1,978.9 / 989.4 = 2.0); attention runs in BF16, so the true ceiling is lower still.
    r = step.mfu_validation(sets=("deepseek-v3-h800",)).iloc[0]
    assert r["reported_mfu"] == pytest.approx(1e12 / (180e3 * 3600) * 2.9185e11 / 989.4e12,
                                              rel=1e-3)
    assert r["reported_mfu"] == pytest.approx(0.455, abs=0.001)
    assert r["predicted_mfu"] >= r["reported_mfu"]
    assert r["predicted_mfu"] < 1350 / 989.4 < 1978.9 / 989.4


def test_zero3_strong_scaling_fall_is_reproduced():
    # Narayanan et al. 2021 Table 2, DeepSpeed ZeRO-3 at a fixed global batch: 175B 144 -> 88 ->
    # 44 TFLOP/s on 384 -> 768 -> 1,536 A100s (a fall to 0.31x), 530B 138 -> 98 -> 48 on
    # 640 -> 1,120 -> 2,240 (0.35x). Model: 0.27x for both (-12% and -21%: the 384- and
    # 640-GPU rows, where gathers and compute take about as long, are predicted 14% and 20% too
    # fast); the band is two-sided around the published fall.
    v = step.mfu_validation(sets=("megatron21-table2-zero3",)).set_index("run_id")
    for big, small, published in (("175b-1536", "175b-384", 44 / 144),
                                  ("530b-2240", "530b-640", 48 / 138)):
        r = v.loc[f"megatron21-t2-zero3-{big}", "predicted_mfu"] / \
            v.loc[f"megatron21-t2-zero3-{small}", "predicted_mfu"]
        assert r == pytest.approx(published, rel=0.22), (big, r, published)


def test_megatron_percent_of_peak_is_converted_from_the_96_form(validation):
    # Narayanan et al. 2021 Eq. 3 counts the recomputed forward; test vector 1.e (1T config,
    # B = 3072): F_hw = 5.1391e19, F_model = 3.8555e19 per iteration.
    m = step.gpt_model("1t", 128, 25600, 160)
    tokens = 3072 * 2048
    assert m.flops_per_token(2048, causal=False, recompute="full") * tokens == \
        pytest.approx(5.1391e19, rel=1e-3)
    assert m.flops_per_token(2048, causal=False) * tokens == pytest.approx(3.8555e19, rel=1e-3)
    row = validation.set_index("run_id").loc["megatron21-t1-1008p0b"]
    assert row["reported"] == pytest.approx(163 / 312)
    assert row["reported_mfu"] == pytest.approx(163 / 312 * 3.8555e19 / 5.1391e19, rel=1e-3)
    # Korthikanti et al. report MFU on the workbook's basis: taken as published.
    assert validation.set_index("run_id").loc["korthikanti22-1t", "reported_mfu"] == 0.563


def test_kernel_efficiency_is_reproduced_from_korthikanti_table4():
    # The one calibrated constant is fitted to per-layer timings only (no end-to-end MFU).
    assert step.calibrate_kernel_efficiency() == pytest.approx(step.KERNEL_EFFICIENCY, abs=1e-9)
    t = step.layer_time_table()
    assert t[["forward_error", "backward_error"]].abs().max().max() < 0.045


def test_the_model_without_calibration_overpredicts_every_row():
    # With the burst kernel rates alone (kernel_efficiency 1) every run is predicted faster
    # than measured: the sustained share is real, not a fudge on a few rows.
    raw = step.mfu_validation(kernel_efficiency=1.0, sets=step.VALIDATION_SETS[:2])
    assert (raw["error"] > 0.10).all()


@pytest.mark.parametrize("n, cp, seq, seqs, reported, pinned", [
    (8192, 1, 8192, 2048, 0.43, 0.398), (16384, 1, 8192, 2048, 0.41, 0.369),
    (16384, 16, 131072, 128, 0.38, 0.411)])
def test_llama3_table4_out_of_sample(n, cp, seq, seqs, reported, pinned):
    # Llama 3 report Table 4 (confirmed in several transcriptions of arXiv:2407.21783 v3, p. 10).
    # ``pinned``: a REGRESSION PIN (the code's MFU, re-recorded with the straggler wait,
    # which slows the 8K rows by 2.4% and 3.4%), so no row can silently get worse.
    spec = llmcost.load_model("llama-3.1-405b")
    plan = parallel.make_plan(spec, n, seqs, tp=8, pp=16, cp=cp, zero_stage=2, seq_len=seq,
                              schedule="interleaved", virtual_stages=8,
                              pp_split="embedding_and_loss")
    # Llama 3's CP all-gathers K and V before the attention (§3.3.2): exposed, not the
    # overlapped ring of the default (Megatron-Core) stack
    mfu = step.step_time(spec, Cluster(H100, n), plan, seq, cp_overlap=False,
                         missing_features="price").mfu   # ZeRO-2: Meta's stack, not profiled
    assert abs(mfu / reported - 1) <= abs(pinned / reported - 1) + 0.005


def test_llama3_405b_out_of_sample():
    # Llama 3 report Table 4: 16,384 H100, TP 8, PP 16, DP 128, 400 TFLOP/s per GPU (BF16 MFU
    # "41%", rounded; the workbook's one basis is the TFLOP/s column, 400 / 989.4 = 40.4%).
    # H100 fractions are separate measurements; nothing was fitted on this run.
    spec = llmcost.load_model("llama-3.1-405b")
    plan = parallel.make_plan(spec, 16384, 2048, tp=8, pp=16, zero_stage=2,
                              schedule="interleaved", virtual_stages=8,
                              pp_split="embedding_and_loss", seq_len=8192)
    b = step.step_time(spec, Cluster(H100, 16384), plan, 8192,
                       missing_features="price")   # ZeRO-2: Meta's stack, not profiled
    assert b.mfu == pytest.approx(400e12 / 989.4e12, rel=0.10)
    assert b.mfu == pytest.approx(0.369, abs=0.005)   # REGRESSION PIN (with the straggler wait)


# ----------------------------------------------------------------------------- breakdown
def _random_plans(n=40, seed=0):
    spec = llmcost.load_model("llama-2-7b")
    cl = Cluster(A100, 64)
    plans = parallel.enumerate_plans(spec, cl, 128, 4096, zero_stage=(0, 1, 2, 3))
    return spec, cl, plans.sample(n=min(n, len(plans)), random_state=seed)


def test_parts_add_up_to_the_step_time():
    spec, cl, rows = _random_plans()
    for _, r in rows.iterrows():
        b = step.step_time(spec, cl, parallel.plan_from_row(r), 4096,
                           missing_features="price")   # any plan: the stack's or not
        parts = b.parts
        assert sum(parts.values()) == pytest.approx(b.step_time_s, rel=1e-12)
        assert all(v >= 0 for v in parts.values())
        frame = b.to_frame()
        assert frame.loc[[p.removesuffix("_s") for p in step.PARTS], "seconds"].sum() == \
            pytest.approx(frame.loc["total", "seconds"])


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["none", "backward"]), st.booleans(),
       st.booleans())
def test_adding_overlap_never_lengthens_a_step(seed, tp_from, pp_on, dp_on):
    spec, cl, rows = _random_plans(1, seed)
    plan = parallel.plan_from_row(rows.iloc[0])
    order = ["none", "backward", "all"]
    base = dict(tp_overlap=tp_from, pp_overlap=pp_on, dp_overlap=dp_on)
    base["missing_features"] = "price"   # any plan: the stack's or not
    t0 = step.step_time(spec, cl, plan, 4096, **base).step_time_s
    more = [dict(base, tp_overlap=order[order.index(tp_from) + 1]),
            dict(base, pp_overlap=True), dict(base, dp_overlap=True)]
    for opts in more:
        assert step.step_time(spec, cl, plan, 4096, **opts).step_time_s <= t0 * (1 + 1e-12)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.floats(1.0, 10.0), st.floats(1.0, 10.0))
def test_more_bandwidth_never_slows_a_step(seed, up, out):
    spec, cl, rows = _random_plans(1, seed)
    plan = parallel.plan_from_row(rows.iloc[0])
    fast = Cluster(A100, 64, scaleup_bytes_per_s_per_dir=3e11 * up,
                   scaleout_bytes_per_s_per_dir=2.5e10 * out)
    price = {"missing_features": "price"}   # any plan: the stack's or not
    assert step.step_time(spec, fast, plan, 4096, **price).step_time_s <= \
        step.step_time(spec, cl, plan, 4096, **price).step_time_s * (1 + 1e-12)


def test_mfu_definition():
    spec = llmcost.load_model("llama-2-70b")
    plan = parallel.make_plan(spec, 512, 256, tp=8, pp=4, zero_stage=1, recompute="full",
                              seq_len=4096)
    b = step.step_time(spec, Cluster(H100, 512), plan, 4096)
    tokens = 256 * 4096
    assert b.mfu == pytest.approx(tokens * spec.flops_per_token(4096, causal=False)
                                  / (b.step_time_s * 512 * H100.peak_bf16_flops_per_s))
    assert b.hfu == pytest.approx(b.mfu * spec.flops_per_token(4096, causal=False,
                                                               recompute="full")
                                  / spec.flops_per_token(4096, causal=False))
    assert b.tokens_per_s == pytest.approx(tokens / b.step_time_s)
    assert b.recompute_s > 0


def test_recomputation_and_bubbles_cost_time():
    spec = llmcost.load_model("llama-2-70b")
    cl = Cluster(H100, 512)
    t = {rc: step.step_time(spec, cl, parallel.make_plan(spec, 512, 256, tp=8, pp=4,
                                                         recompute=rc, seq_len=4096)
                            ).step_time_s for rc in ("none", "selective", "full")}
    assert t["none"] < t["selective"] < t["full"]
    plan = parallel.make_plan(spec, 512, 256, tp=8, pp=4, seq_len=4096)
    b = step.step_time(spec, cl, plan)
    inter = step.step_time(spec, cl, dataclasses.replace(plan, schedule="interleaved",
                                                         virtual_stages=5))
    assert inter.pipeline_bubble_s == pytest.approx(b.pipeline_bubble_s / 5, rel=0.05)


def test_default_efficiency_row_is_flagged():
    spec = llmcost.load_model("llama-3.1-8b")
    tpu = llmcost.load_accelerator("TPU v5p")
    cl = Cluster(tpu, 8, scaleup_domain_size=8)
    b = step.step_time(spec, cl, parallel.make_plan(spec, 8, 8, tp=8, seq_len=8192))
    assert b.efficiency_row == "default"
    assert step.step_time(spec, Cluster(H100, 8),
                          parallel.make_plan(spec, 8, 8, tp=8, seq_len=8192)
                          ).efficiency_row == "H100-SXM"


@pytest.mark.parametrize("kwargs, message", [
    (dict(tp_overlap="sometimes"), "tp_overlap='sometimes' must be one of"),
    (dict(kernel_efficiency=1.5), "kernel_efficiency=1.5 must be <= 1"),
    (dict(dtype="fp8"), "A100-80GB has no fp8 peak"),
])
def test_bad_step_options(kwargs, message):
    spec = llmcost.load_model("llama-2-7b")
    plan = parallel.make_plan(spec, 8, 8, tp=8, seq_len=4096)
    with pytest.raises(ValueError, match=message):
        step.step_time(spec, Cluster(A100, 8), plan, **kwargs)


def test_plan_larger_than_the_cluster_is_rejected():
    spec = llmcost.load_model("llama-2-7b")
    plan = parallel.make_plan(spec, 16, 16, tp=8, seq_len=4096)
    with pytest.raises(ValueError, match="16 GPUs, more than the cluster's n_gpus=8"):
        step.step_time(spec, Cluster(A100, 8), plan)
    with pytest.raises(ValueError, match="must be a ParallelPlan"):
        step.step_time(spec, Cluster(A100, 8), {"tp": 8})


def test_a_broken_plan_rule_is_named():
    spec = llmcost.load_model("llama-2-7b")
    with pytest.raises(parallel.PlanError, match="tp=3 must divide n_heads=32"):
        step.step_time(spec, Cluster(A100, 24), parallel.ParallelPlan(dp=8, tp=3))


def test_optimizer_bytes():
    # Adam with fp32 master, moments and fp32 gradients: norm 4 + Adam (2·12 + 4) + cast (4 + 2)
    # + zero 4 = 42 B/param; fp16 with an fp32 main-gradient copy adds the copy/unscale passes.
    assert step.optimizer_bytes_per_param("bf16_adam_fp32_grads") == 42
    assert step.optimizer_bytes_per_param("bf16_adam_fp32_grads_copy") == 54


# ----------------------------------------------------------------------------- ranking
@pytest.fixture(scope="module")
def gpt3_ranking():
    spec = llmcost.load_model("gpt-3-175b")
    return spec, step.rank_plans(spec, Cluster(A100, 1024), 1536, train_tokens=300e9,
                                 price_usd_per_gpu_hour=2.0)


def test_rank_plans_orders_fitting_plans_by_step_time(gpt3_ranking):
    spec, r = gpt3_ranking
    # TP above the 8-GPU NVLink domain is pruned before enumeration (4 of 11 TP sizes remain)
    assert r.attrs["n_candidates"] > 500_000
    assert len(r) == r.attrs["n_ranked"] > 0
    assert r["fits"].all() and r["tp_in_scaleup_domain"].all()
    assert r["step_time_s"].is_monotonic_increasing
    assert np.allclose(r[list(step.PARTS)].sum(axis=1), r["step_time_s"])
    assert np.allclose(r["days"], 300e9 / r["tokens_per_s"] / 86400, rtol=1e-12)
    assert np.allclose(r["cost_usd"], r["gpu_hours"] * 2.0, rtol=1e-12)
    assert np.allclose(r["gpu_hours"], r["days"] * 24 * 1024, rtol=1e-12)


def test_rank_plans_agrees_with_step_time(gpt3_ranking):
    spec, r = gpt3_ranking
    for i in (0, len(r) // 2, len(r) - 1):
        row = r.iloc[i]
        b = step.step_time(spec, Cluster(A100, 1024), parallel.plan_from_row(row),
                           missing_features="price")   # rank_plans ranks every plan
        assert b.step_time_s == pytest.approx(row["step_time_s"], rel=1e-9)


def test_fastest_trusted_sets_zero3_aside_unless_nothing_else_fits(gpt3_ranking):
    _, r = gpt3_ranking
    assert (r["upper_bound"] == (r["zero_stage"] == 3)).all()
    # The trusted pick is the fastest plan that is not ZeRO-3 (on this space, since the engine
    # priced ZeRO-3's per-layer gathers, that is the top of the ranking itself).
    best = step.fastest_trusted(r)
    assert best["zero_stage"] < 3
    assert best["step_time_s"] == r[r["zero_stage"] < 3]["step_time_s"].min()
    only_z3 = r[r["zero_stage"] == 3]
    assert step.fastest_trusted(only_z3).name == only_z3.index[0]
    with pytest.raises(ValueError, match="no plan fits"):
        step.fastest_trusted(r.iloc[:0])


def test_rank_plans_needs_tokens_for_a_cost():
    spec = llmcost.load_model("llama-2-7b")
    with pytest.raises(ValueError, match="price_usd_per_gpu_hour needs train_tokens"):
        step.rank_plans(spec, Cluster(A100, 8), 8, price_usd_per_gpu_hour=2.0)
    # one number of tokens, refused before the search (an API trial's list raised numpy's
    # TypeError after the whole ranking)
    for tokens in ([1e12, 2e12], np.array([1e12, 2e12])):
        with pytest.raises(ValueError, match=r"train_tokens=.* must be one number"):
            step.rank_plans(spec, Cluster(A100, 8), 8, train_tokens=tokens)


def test_choose_plan_by_time_ranking_is_the_fastest_fitting_plan():
    spec = llmcost.load_model("llama-2-70b")
    cl = Cluster(H100, 2048)
    by_time = step.time_ranking(spec, cl, 4096)
    chosen = parallel.choose_plan(spec, cl, 1024, 4096, rank=by_time)
    # the same plan space: choose_plan leaves CP free (parallel.context_parallel_options)
    ranked = step.rank_plans(spec, cl, 1024, 4096,
                             cp=list(parallel.context_parallel_options(4096, 2048)))
    # ZeRO-3 plans are only chosen when nothing else fits (the model is an upper bound for them).
    assert chosen.zero_stage < 3
    assert parallel.plan_from_row(ranked[ranked["zero_stage"] < 3].iloc[0]) == chosen
    assert parallel.choose_plan(spec, cl, 1024, 4096, rank=by_time,
                                fixed={"zero_stage": 3}).zero_stage == 3
    old = parallel.choose_plan(spec, cl, 1024, 4096, rank=parallel.rank_without_time)
    assert step.step_time(spec, cl, chosen, missing_features="price").step_time_s <= \
        step.step_time(spec, cl, old, missing_features="price").step_time_s


def test_every_catalogue_model_gets_a_finite_prediction():
    for name in llmcost.list_models()["name"]:
        spec = llmcost.load_model(name)
        p = dict(model=name, accelerator="H100-SXM", n_gpus=1024, seq_len=spec.seq_len,
                 global_batch_tokens=4 * 2**20)
        plan, b = step.scenario_step(p, spec)
        assert 0 < b.mfu < 0.8 and np.isfinite(b.step_time_s), name


def test_dp_gradient_sync_uses_the_collective_model():
    spec = llmcost.load_model("llama-2-7b")
    df = llmcost.batch.dp_gradient_sync(spec, 64, 1, 1, 4e6, H100, 0.4)
    g = 2.0 * spec.n_params
    assert df["allreduce_s"].iloc[0] == pytest.approx(
        llmcost.comm.collective_time("all_reduce", g, 64, H100.scaleout_bytes_per_s_per_dir))
    assert isinstance(df, pd.DataFrame)


# ----------------------------------------------------------------------------- MoE
def test_deepseek_v3_uneven_split_dualpipe_and_routing():
    # DeepSeek-V3 (arXiv:2412.19437 §3.2): 61 layers on PP 16 (pp_split="uneven"), EP 64 over
    # 8 nodes of 2,048 H800s, ZeRO-1. DualPipe hides the all-to-all behind the other
    # micro-batch's compute at the price of the 20 of 132 SMs it gives to communication;
    # a capacity factor of 1.25 pads every expert buffer.
    spec = llmcost.load_model("deepseek-v3")
    cl = Cluster(llmcost.load_accelerator("H800"), 2048)
    plan = parallel.make_plan(spec, 2048, 15360, tp=1, pp=16, ep=64, zero_stage=1,
                              seq_len=4096, pp_split="uneven")
    none = step.step_time(spec, cl, plan, 4096, ep_overlap="none")
    dual = step.step_time(spec, cl, plan, 4096, ep_overlap="dualpipe")
    cap = step.step_time(spec, cl, plan, 4096, ep_overlap="none", moe_routing="capacity",
                         moe_capacity_factor=1.25)
    assert none.stage_imbalance_s > 0          # stages of 4 layers pace stages of 3
    assert dual.ep_comm_s < none.ep_comm_s and dual.step_time_s < none.step_time_s
    # the all-to-all scales with the padding exactly (every EP collective is 1.25x the bytes);
    # latency terms are a few hundred microseconds of ~15 s
    assert cap.ep_comm_s == pytest.approx(1.25 * none.ep_comm_s, rel=0.01)
    assert cap.matmul_s > none.matmul_s
    assert sum(dual.parts.values()) == pytest.approx(dual.step_time_s)
    with pytest.raises(ValueError, match="unknown step-time option"):
        step.step_time(spec, cl, plan, 4096, ep_overlap_mode="dualpipe")
    with pytest.raises(ValueError, match="ep_overlap="):
        step.step_time(spec, cl, plan, 4096, ep_overlap="always")


def test_rank_plans_overlap_search_prunes_only_what_cannot_win():
    spec = llmcost.load_model("llama-2-7b")
    cl = Cluster(A100, 64)
    opts = dict(tp_overlap=("none", "backward", "all"), dp_overlap=(True, False))
    full = step.rank_plans(spec, cl, 256, 4096, prune_dominated=False, **opts)
    pruned = step.rank_plans(spec, cl, 256, 4096, **opts)
    assert len(full) == 6 * len(pruned)
    assert pruned.attrs["pruned_modes"] == ["tp_overlap=none", "tp_overlap=backward",
                                            "dp_overlap=False"]
    assert pruned["step_time_s"].iloc[0] == pytest.approx(full["step_time_s"].iloc[0])
    with pytest.raises(ValueError, match="tp_overlap='sometimes'"):
        step.rank_plans(spec, cl, 256, 4096, tp_overlap=("sometimes",))


def test_an_empty_ranking_says_a_sequence_beyond_the_models_context():
    # an API trial: 1M-token sequences of Llama 3.1 8B (131,072 declared positions, its
    # config.json max_position_embeddings) on 8 H100s ranked nothing, blamed on memory alone
    import warnings
    m8 = llmcost.load_model("llama-3.1-8b")
    assert m8.max_position_embeddings == 131072
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = step.rank_plans(m8, Cluster(llmcost.load_accelerator("H100-SXM"), 8), 8, 1_000_000)
    assert r.empty and r.attrs["empty_reason"].startswith("no plan fits: ")
    assert r.attrs["empty_reason"].endswith(
        "; seq_len=1,000,000 is beyond llama-3.1-8b's declared 131,072-token context")


def test_an_empty_ranking_names_only_the_remedies_the_search_did_not_try():
    # An infrastructure trial: Llama 2 70B on 8 H100s was told "more GPUs, ZeRO-3 or
    # recomputation are needed" of a search that had tried both. By hand, ZeRO-3 over all 8
    # GPUs leaves 68.98e9 × 18 B / 8 = 155 GB of weights, gradients and Adam states per GPU
    # (Rajbhandari et al. 2020 §3.1, FP32 gradients: 2 + 4 + 12 B per parameter), twice the
    # 80 GiB × 0.9 usable: only more GPUs help.
    import warnings
    m = llmcost.load_model("llama-2-70b")
    cl = Cluster(llmcost.load_accelerator("H100-SXM"), 8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = step.rank_plans(m, cl, 64, 4096)
        assert m.n_params * 18 / 8 > 80 * 2**30 * 0.9
        assert r.empty and r.attrs["empty_reason"].endswith(
            ": more GPUs are needed (ZeRO-3 and full recomputation searched)")
        # a search held to ZeRO-1 names what it left out
        r1 = step.rank_plans(m, cl, 64, 4096, zero_stage=[1])
        assert r1.empty and r1.attrs["empty_reason"].endswith(
            ": more GPUs or ZeRO-3 are needed (full recomputation searched)")
