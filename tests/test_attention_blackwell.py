"""Blackwell's attention core at cuDNN's measured rates (training/attention.py
``blackwell_curve``, ``StepOptions.attention_blackwell``).

Source: NVIDIA/cudnn-frontend ``benchmark/sdpa_benchmark_training/results`` @ fb682ce7
(cuDNN Frontend v1.23.0 release, 2026-04-29): cuDNN 9.22's fused attention on GB200 and GB300,
BF16, causal (``top_left``) at head dimension 128 (Llama 3.1: 64 query / 8 KV heads) and
192 / 128 (DeepSeek-V3's MLA, 128 heads), a 128-token sliding window at head dimension 64
(gpt-oss, 128 heads), batch 2, 2k to 32k tokens, forward and non-deterministic backward. FLOPs
as the script counts them (``benchmark_single_sdpa.py`` ``flops()``): 2 × unmasked scores ×
(d_qk + d_v) forward, × (3·d_qk + 2·d_v) backward; unmasked scores s(s+1)/2 causal,
w(w+1)/2 + (s − w)·w with a window w.
"""

import numpy as np
import pytest

import llmcost
from llmcost import load_accelerator, load_model
from llmcost.core.shapes import model_shapes
from llmcost.training import attention, step
from llmcost.training.options import KERNEL_EFFICIENCY, StepOptions

GB200 = "GB200-NVL72"


def _row(device, pass_, mask, hd, s, dtype="bf16", window=128):
    d = attention.load_blackwell_benchmarks()
    w = float(window) if mask == "window" else 0.0
    r = d[(d.accelerator == device) & (d["pass"] == pass_) & (d["mask"] == mask)
          & (d.head_dim_qk == hd) & (d.seq_len == s) & (d["dtype"] == dtype)
          & (d.window.fillna(0).astype(float) == w)]
    assert len(r) == 1
    return r.iloc[0]


def test_the_table_holds_nvidias_figures():
    d = attention.load_blackwell_benchmarks()
    assert len(d) == 140
    assert set(d.accelerator) == {"GB200-NVL72", "GB300-NVL72"}
    # three figures as published (results/llama3.1/gb200/llama3.1_20260424_100750.csv,
    # results/gpt_oss/gb200/gpt_oss_20260424_100011.csv, results/dsv3/gb300/...)
    assert _row(GB200, "forward", "causal", 128, 4096).tflops == 1408
    assert _row(GB200, "backward", "window", 64, 4096).tflops == 182
    assert _row("GB300-NVL72", "backward", "causal", 192, 8192).tflops == 1291
    # the v1.23.0 results (fb682ce7) and the v1.19.0 ones' 1,024-token gpt-oss band (df73764)
    new = d.source.str.contains("fb682ce7")
    old = d.source.str.contains("@ df73764")
    assert new.sum() == 120 and old.sum() == 20 and (new ^ old).all()
    assert (d[old].window == 1024).all() and (d[old].head_dim_qk == 64).all()
    assert set(zip(d[old].q_heads, d[old].kv_heads)) == {(64, 8)}


# Two lines of the v1.19.0 result files verbatim (NVIDIA/cudnn-frontend @ df73764,
# benchmark/sdpa_benchmark_training/results/gb{200,300}_919_only_cudnn/gpt_oss_*.csv, columns
# config_name ... bwd_tflops, max_diff, num_iterations, sliding_window_size, success,
# error_message, gpu_name, cudnn_version, cudnn_backend_version; forward and backward on one
# line, profile_pass "both"): each is two rows of the table.
SOURCE_LINES_1190 = [
    "gpt_oss,gpt_oss,cudnn,bfloat16,top_left,2,4096,4096,64,8,64,64,both,False,0.209,0.487,"
    "574.000,617.000,0.000,10,1024,True,,NVIDIA GB200,1.19.0,91901",
    "gpt_oss,gpt_oss,cudnn,bfloat16,top_left,2,32768,32768,64,8,64,64,both,False,1.448,3.930,"
    "748.000,689.000,0.000,10,1024,True,,NVIDIA GB300,1.19.0,91901",
]


@pytest.mark.parametrize("line", SOURCE_LINES_1190)
def test_the_head64_band_rows_are_the_v1190_lines(line):
    f = line.split(",")
    device = {"NVIDIA GB200": GB200, "NVIDIA GB300": "GB300-NVL72"}[f[23]]
    for pass_, t, r in (("forward", f[14], f[16]), ("backward", f[15], f[17])):
        row = _row(device, pass_, "window", 64, int(f[6]), window=int(f[20]))
        assert row.time_ms == float(t) and row.tflops == float(r)
        assert (row.batch, row.q_heads, row.kv_heads) == (int(f[5]), int(f[8]), int(f[9]))
        assert "91901" in row.source and "df73764" in row.source


# Four more of the result files' lines verbatim (NVIDIA/cudnn-frontend @ fb682ce7,
# benchmark/sdpa_benchmark_training/results/...; non-deterministic backward), one per device x
# dtype x mask family: (file, line) -> the table's row; time and rate exact.
SOURCE_LINES = [
    ("dsv3/gb300/dsv3_20260424_101002.csv",
     "dsv3,dsv3,cudnn,mxfp8,top_left,2,16384,16384,128,128,192,128,fwd,False,7.336,2998.000,"
     "0.000,10,,True,,NVIDIA GB300,1.21.1,92200.000"),
    ("llama3.1/gb200/llama3.1_20260424_100750.csv",
     "llama3.1,llama3.1,cudnn,bfloat16,top_left,2,32768,32768,64,8,128,128,bwd,False,71.756,"
     "1226.000,0.000,10,,True,,NVIDIA GB200,1.21.1,92200.000"),
    ("gpt_oss/gb300/gpt_oss_20260424_100022.csv",
     "gpt_oss,gpt_oss,cudnn,bfloat16,top_left,2,2048,2048,128,128,64,64,bwd,False,0.227,184.000,"
     "0.000,10,128,True,,NVIDIA GB300,1.21.1,92200.000"),
    ("gpt_oss/gb200/gpt_oss_20260424_100011.csv",
     "gpt_oss,gpt_oss,cudnn,mxfp8,top_left,2,32768,32768,128,128,64,64,bwd,False,108.370,6.000,"
     "0.000,10,128,True,,NVIDIA GB200,1.21.1,92200.000"),
]


@pytest.mark.parametrize("path, line", SOURCE_LINES)
def test_rows_are_the_result_files_lines(path, line):
    f = line.split(",")
    device = {"NVIDIA GB200": GB200, "NVIDIA GB300": "GB300-NVL72"}[f[21]]
    dtype = {"bfloat16": "bf16", "mxfp8": "mxfp8"}[f[3]]
    mask = "window" if f[18] else "causal"
    r = _row(device, {"fwd": "forward", "bwd": "backward"}[f[12]], mask, int(f[10]), int(f[6]),
             dtype, window=int(f[18]) if f[18] else 128)
    assert path.split("/")[0] in r.source and f[3] in r.source
    assert (r.batch, r.q_heads, r.kv_heads, r.head_dim_v) == tuple(int(x) for x in
                                                                   (f[5], f[8], f[9], f[11]))
    assert r.time_ms == float(f[14]) and r.tflops == float(f[15])
    assert (float(r.window) if mask == "window" else 0.0) == (float(f[18]) if f[18] else 0.0)


def test_each_rate_is_the_scripts_flops_over_its_time():
    # hand derivation of every point: FLOPs by the script's count over the published time
    d = attention.load_blackwell_benchmarks()
    s = d.seq_len.astype(float)
    w = d.window.fillna(0).astype(float)
    scores = np.where(w > 0, w * (w + 1) / 2 + (s - w) * w, s * (s + 1) / 2)
    per = np.where(d["pass"] == "forward", d.head_dim_qk + d.head_dim_v,
                   3 * d.head_dim_qk + 2 * d.head_dim_v)
    flops = 2.0 * d.batch * d.q_heads * scores * per
    rate = flops / (d.time_ms * 1e-3) / 1e12
    # the published TFLOP/s are rounded to whole units (hence 1 TFLOP/s absolute on the slow
    # MXFP8 window backward, 26 published for 25.6) and the times to microseconds (2 %)
    assert np.allclose(rate, d.tflops, rtol=0.02, atol=1.0)
    assert np.median(np.abs(rate / d.tflops - 1)) < 0.005


def test_backward_on_the_engines_basis():
    # the engine counts the backward as 2.5 x the forward's 2(d_qk + d_v): for MLA 192/128 that
    # is 2.5 x 2 x 320 = 1,600 FLOPs per score against the script's 2(3·192 + 2·128) = 1,664,
    # a ratio of 800 / 832
    r = _row(GB200, "backward", "causal", 192, 4096)
    assert r.tflops_engine == pytest.approx(r.tflops * 800 / 832)
    r = _row(GB200, "backward", "causal", 128, 4096)
    assert r.tflops_engine == r.tflops


def test_the_measured_points_interpolated_in_log_length():
    # each measured point exactly; between 4k and 8k linear in ln s: at sqrt(4096 x 8192) the
    # mean of the two rates (1408 and 1574 forward, GB200, d 128)
    assert attention.blackwell_tflops(GB200, "forward", 128, 4096.0) == pytest.approx(1408)
    mid = np.sqrt(4096.0 * 8192.0)
    assert attention.blackwell_tflops(GB200, "forward", 128, mid) == pytest.approx(
        (1408 + 1574) / 2)
    # held at the end points outside 2k-32k
    assert attention.blackwell_tflops(GB200, "forward", 128, 1024.0) == pytest.approx(1097)
    assert attention.blackwell_tflops(GB200, "forward", 128, 65536.0) == pytest.approx(1622)
    r = attention.reproduce_blackwell()
    assert r["error"].abs().max() < 1e-12


def test_stated_stand_ins():
    s = 4096.0
    # head dimension 64 (96 or less), causal: the measured 1,024-token band at head dimension 64
    # (cuDNN 9.19, gpt-oss's 64 / 8 heads): 574 / 617 TFLOP/s at 4k on GB200, 675 / 638 on GB300,
    # in BF16 and, stated, under MXFP8 attention too
    assert attention.blackwell_tflops(GB200, "forward", 64, s) == pytest.approx(574)
    assert attention.blackwell_tflops(GB200, "backward", 64, s) == pytest.approx(617)
    assert attention.blackwell_tflops(GB200, "forward", 80, s, dtype="mxfp8") == \
        pytest.approx(574)
    assert attention.blackwell_tflops("GB300-NVL72", "forward", 64, s) == pytest.approx(675)
    # the band is a lower bound on the causal kernel's rate: a hand count of 128 x 128 tiles at
    # 4k. Band (1,024 keys): a query tile visits 9 key tiles, 7 whole and 2 half-masked ->
    # 8/9 of the visited work unmasked; causal: 528 tiles, the 32 diagonal ones half-masked ->
    # 512/528. The causal rate is at most (512/528) / (8/9) = 1.09 x the band's
    n = 4096 // 128
    causal = (n * (n + 1) / 2 - n / 2) / (n * (n + 1) / 2)
    band = (1024 // 128 - 1 + 2 * 0.5) / (1024 // 128 + 1)
    assert causal == pytest.approx(0.97, abs=0.005) and band == pytest.approx(0.889, abs=0.001)
    assert causal / band == pytest.approx(1.09, abs=0.005)
    # the old stand-in (the 128 curve x the H100 64:128 ratio) would be 1.65 x the measured band,
    # beyond that bound
    ratio = (attention.attention_tflops("cudnn", "forward", False, 64, s)
             / attention.attention_tflops("cudnn", "forward", False, 128, s))
    assert 1408 * ratio / 574 > 1.5
    # MLA's 192 the measured 192 series; 160 the nearer on a log scale (192)
    assert attention.blackwell_tflops(GB200, "forward", 192, s) == pytest.approx(1406)
    assert attention.blackwell_tflops(GB200, "forward", 160, s) == pytest.approx(1406)
    # a window at least the sequence is the causal kernel; a shorter one the widest measured
    # band not wider than it: 1,024 tokens from 1,024 on, else the 128-token band
    assert attention.blackwell_tflops(GB200, "forward", 128, s, window=4096) == \
        pytest.approx(1408)
    assert attention.blackwell_tflops(GB200, "backward", 128, s, window=1024) == \
        pytest.approx(617)
    assert attention.blackwell_tflops(GB200, "backward", 128, s, window=512) == \
        pytest.approx(182)
    # B200 runs GB200's fractions of its own peak (2.25 against 2.5 PFLOP/s)
    b200 = attention.blackwell_curve("B200")
    gb200 = attention.blackwell_curve(GB200)
    assert b200.fractions(s, 128) == pytest.approx(gb200.fractions(s, 128))
    assert b200.fractions(s, 128)[0] == pytest.approx(1408 / 2500)
    assert attention.blackwell_curve("H100-SXM") is None
    with pytest.raises(ValueError, match="no Blackwell attention measurements"):
        attention._blackwell_series(GB200, "forward", "causal", 64)


def _attention_s(model_name, acc, n, s, mbs, **opts):
    spec = load_model(model_name)
    cl = llmcost.Cluster(load_accelerator(acc), n)
    plan = llmcost.make_plan(spec, n, n * mbs, tp=1, pp=1, micro_batch_size=mbs, seq_len=s,
                             zero_stage=1)
    b = step.step_time(spec, cl, plan, s, options=StepOptions(stack="megatron-core-2026",
                                                               straggler=False, **opts))
    return spec, b


def test_engine_prices_a_dense_layer_by_hand():
    # Llama 3.1 8B on 8 GB200, s = 8192, one micro-batch of 1 per GPU, no recompute: the
    # attention part is L x (forward + backward) of the core; forward FLOPs
    # 2·s·a·(d_qk + d_v)·(s+1)/2 at 1,574 TFLOP/s x KERNEL_EFFICIENCY, backward 2.5 x at 1,332
    s = 8192
    spec, on = _attention_s("llama-3.1-8b", GB200, 8, s, 1)
    c = model_shapes(spec)
    flops = 2.0 * s * c.a * (c.dqk + c.dv) * (s + 1) / 2
    k = KERNEL_EFFICIENCY
    by_hand = spec.n_layers * (flops / (1574e12 * k) + 2.5 * flops / (1332e12 * k))
    assert on.attention_s == pytest.approx(by_hand, rel=1e-9)
    # off: the flat fraction 0.35 of 2,500 TFLOP/s, forward + 2.5 x backward
    _, off = _attention_s("llama-3.1-8b", GB200, 8, s, 1, attention_blackwell=False)
    assert off.attention_s == pytest.approx(
        spec.n_layers * 3.5 * flops / (2500e12 * 0.35 * k), rel=1e-9)


def test_engine_prices_gpt_oss_window_layers_at_the_band_rate():
    # gpt-oss 120B: 18 of 36 layers attend a 128-token window. Per layer kind the forward FLOPs
    # are 2·s·a·(d_qk + d_v)·keys, keys (s+1)/2 in a full layer and (w(w+1)/2 + (s−w)·w)/s in a
    # window one; the full layers at the head-dimension-64 stand-in, the window layers at the
    # band's measured 161 / 182 TFLOP/s (GB200, 4k)
    s, w = 4096, 128
    spec, on = _attention_s("gpt-oss-120b", GB200, 8, s, 1)
    c = model_shapes(spec)
    k = KERNEL_EFFICIENCY
    per_key = 2.0 * s * c.a * (c.dqk + c.dv)
    k_full, k_win = (s + 1) / 2, (w * (w + 1) / 2 + (s - w) * w) / s
    f_f = attention.blackwell_tflops(GB200, "forward", 64, float(s)) * 1e12 * k
    f_b = attention.blackwell_tflops(GB200, "backward", 64, float(s)) * 1e12 * k
    t_layer_full = per_key * k_full * (1 / f_f + 2.5 / f_b)
    t_layer_win = per_key * k_win * (1 / (161e12 * k) + 2.5 / (182e12 * k))
    assert on.attention_s == pytest.approx(18 * t_layer_full + 18 * t_layer_win, rel=1e-9)
    # the window layers' share of the attention time is far above their 5.8 % share of its FLOPs
    assert 18 * t_layer_win / on.attention_s > 0.15
    assert k_win / (k_win + k_full) < 0.06


def test_no_effect_off_blackwell_or_off_cudnn():
    for acc in ("H100-SXM", "A100-80GB"):
        _, on = _attention_s("llama-3.1-8b", acc, 8, 4096, 1)
        _, off = _attention_s("llama-3.1-8b", acc, 8, 4096, 1, attention_blackwell=False)
        assert on.step_time_s == off.step_time_s
    # a FlashAttention stack (torchtitan's PyTorch FSDP2) on GB200 keeps the flat fraction
    spec = load_model("llama-3.1-8b")
    cl = llmcost.Cluster(load_accelerator(GB200), 8)
    plan = llmcost.make_plan(spec, 8, 8, tp=1, pp=1, micro_batch_size=1, seq_len=4096,
                             zero_stage=3)
    a, b = (step.step_time(spec, cl, plan, 4096, options=StepOptions(
        stack="pytorch-fsdp2-2024", attention_blackwell=x)) for x in (True, False))
    assert a.attention_s == b.attention_s


def test_bad_setting_names_the_field():
    with pytest.raises(ValueError, match="attention_blackwell='yes' must be True or False"):
        StepOptions(attention_blackwell="yes")
    from llmcost.training import accuracy
    with pytest.raises(ValueError, match="attention_blackwell='yes' must be True, False or None"):
        accuracy.validation_table(attention_blackwell="yes")
    with pytest.raises(ValueError, match="split='test' must be 'held-out' or 'calibration'"):
        accuracy.attention_blackwell_comparison("test")


def test_on_by_default_only_as_the_rule_says():
    # accuracy.mechanism_comparison's rule (held-out mean falls, no regime worse beyond its
    # noise, the A100 Megatron rows keep their goal), on the held-out and the calibration rows
    from llmcost.training import accuracy
    for split in ("held-out", "calibration"):
        per, verdict = accuracy.attention_blackwell_comparison(split)
        # the stated exception (StepOptions.attention_blackwell's docstring): on the held-out
        # rows one regime the kernel does not price is worse, moved by the MoE host re-fit only
        worse = [g for g in per.index if per.loc[g, "on"] - per.loc[g, "off"]
                 > per.loc[g, "noise"]]
        exception = split == "held-out" and worse == [
            "Hopper · Megatron 3D · MoE · BF16 · ≤ 32k · ≥ 10B"]
        assert verdict["passes"] == (StepOptions().attention_blackwell and not exception)
        assert verdict["all_mean"][1] < verdict["all_mean"][0]
        assert verdict["blackwell_mean"][1] < verdict["blackwell_mean"][0]
        moved = per[(per["on"] - per["off"]).abs() > accuracy.REGIME_CHANGE_TOLERANCE]
        # Hopper MoE regimes move through the MoE host cost re-fitted under each setting only
        assert all(("Blackwell" in g) or ("MoE" in g) for g in moved.index)


def test_mxfp8_series_as_published():
    # the same files' data_type 'mxfp8' rows: GB200 causal d 128 at 4k 1,685 / 1,054 TFLOP/s
    # (forward faster than BF16's 1,408, backward slower than its 1,148); the 128-token window's
    # backward 41 against BF16's 182
    d = attention.load_blackwell_benchmarks()
    assert set(d["dtype"]) == {"bf16", "mxfp8"} and len(d) == 140
    assert attention.blackwell_tflops(GB200, "forward", 128, 4096.0, dtype="mxfp8") == 1685
    assert attention.blackwell_tflops(GB200, "backward", 128, 4096.0, dtype="mxfp8") == 1054
    assert attention.blackwell_tflops(GB200, "backward", 64, 4096.0, window=128,
                                      dtype="mxfp8") == 41
    with pytest.raises(ValueError, match="dtype='fp4' must be one of"):
        attention.blackwell_curve(GB200, dtype="fp4")


def test_fp8_attention_prices_the_mxfp8_kernel_on_blackwell_only():
    # gpt-oss 120B on 8 GB200, MXFP8 recipe: with fp8_attention the window layers' backward at
    # 41 TFLOP/s (MXFP8) instead of 182 (BF16), the full layers at the head-dimension-64
    # stand-in (the BF16 1,024-token band, 574 / 617 at 4k, in either dtype); by hand as in
    # test_engine_prices_gpt_oss_window_layers_at_the_band_rate
    s, w = 4096, 128
    kw = dict(dtype="fp8", fp8_recipe="mxfp8")
    spec, on = _attention_s("gpt-oss-120b", GB200, 8, s, 1, fp8_attention=True, **kw)
    _, off = _attention_s("gpt-oss-120b", GB200, 8, s, 1, **kw)
    c = model_shapes(spec)
    k = KERNEL_EFFICIENCY
    per_key = 2.0 * s * c.a * (c.dqk + c.dv)
    k_full, k_win = (s + 1) / 2, (w * (w + 1) / 2 + (s - w) * w) / s
    rates = [attention.blackwell_tflops(GB200, p, 64, float(s), dtype="mxfp8") * 1e12 * k
             for p in ("forward", "backward")]
    full = per_key * k_full * (1 / rates[0] + 2.5 / rates[1])
    win = per_key * k_win * (1 / (161e12 * k) + 2.5 / (41e12 * k))
    assert on.attention_s == pytest.approx(18 * full + 18 * win, rel=1e-9)
    assert on.attention_s > off.attention_s
    # no effect under another FP8 recipe (no FP8-CS series priced), in BF16, or off Blackwell
    for kw2, acc in ((dict(dtype="fp8", fp8_recipe="current"), GB200),
                     (dict(dtype="bf16"), GB200), (kw, "H100-SXM")):
        _, a = _attention_s("gpt-oss-120b", acc, 8, s, 1, fp8_attention=True, **kw2)
        _, b = _attention_s("gpt-oss-120b", acc, 8, s, 1, **kw2)
        assert a.attention_s == b.attention_s
    with pytest.raises(ValueError, match="fp8_attention=1 must be True or False"):
        StepOptions(fp8_attention=1)


def test_fp8_attention_rows_are_the_recipes():
    # step_validation.FP8_ATTENTION_OF_ROW: every MXFP8 row of the full-iteration stack except
    # DeepSeek-V3 on GB200 (its recipes leave fp8_dot_product_attention False: 26.06, 26.08, and
    # 26.06.01's DEEPSEEK_V3_PRETRAIN_CONFIG_GB200_FP8_MX_V2 at v0.5.1 = 5cb3444c4)
    from llmcost.training import step_validation as sv
    cfg = sv.validation_configs(include_excluded=True)   # the recipes: every row of the file
    mc26 = set(cfg[cfg["stack"] == "megatron-core-2026"]["run_id"])
    assert sv.FP8_ATTENTION_OF_ROW <= mc26
    assert mc26 - sv.FP8_ATTENTION_OF_ROW == {"mb2606-gb200-deepseek-v3-mxfp8",
                                              "mb2608-gb200-deepseek-v3-mxfp8",
                                              "mb260601-gb200-deepseek-v3-mxfp8"}


def test_fp8_attention_passes_the_rule():
    from llmcost.training import accuracy
    for split in ("held-out", "calibration"):
        per, verdict = accuracy.fp8_attention_comparison(split)
        assert verdict["passes"]
        assert verdict["blackwell_mean"][1] < verdict["blackwell_mean"][0]
        moved = per[(per["on"] - per["off"]).abs() > accuracy.REGIME_CHANGE_TOLERANCE]
        assert all("Blackwell" in g and "FP8" in g for g in moved.index)
    with pytest.raises(ValueError, match="split='x' must be 'held-out' or 'calibration'"):
        accuracy.fp8_attention_comparison("x")
