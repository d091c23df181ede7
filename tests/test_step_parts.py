"""The step-time engine's parts, one by one, against hand derivations and published formulas
(a refactoring: ``step.step_arrays`` split into per-part pure functions). The whole engine's outputs
are pinned in ``tests/test_step_regression.py`` (a regression pin); its accuracy against
published runs is in ``tests/test_step.py``."""

import numpy as np
import pytest

import llmcost
from llmcost import memory, parallel, shapes, step
from llmcost.core.hardware import Cluster, Efficiency

A100 = llmcost.load_accelerator("A100-80GB")
H100 = llmcost.load_accelerator("H100-SXM")
#: Every kernel at its datasheet rate: the GEMMs and the attention core at peak, HBM at 100%.
IDEAL = Efficiency("ideal", 1.0, 1.0, 1.0, 1.0, 1.0)


# ----------------------------------------------------------------------------- layer compute
def _layer(model, x_tokens, flash, tp=1):
    c = shapes.model_shapes(model)
    s = float(model.seq_len)
    x = np.asarray(float(x_tokens))
    tpf = np.asarray(float(tp))
    g = step.LayerGeometry(s=s, x=x, xs=x, tp=tpf, ep=np.asarray(1.0), cp=np.asarray(1.0),
                           mbs=np.asarray(x_tokens // model.seq_len),
                           kvf=shapes.kv_fraction(c, tpf))
    rates = step.KernelRates(peak=A100.peak_bf16_flops_per_s, peak16=A100.peak_bf16_flops_per_s,
                             hbm=A100.hbm_bytes_per_s, keff=IDEAL)
    return step.layer_compute(model, c, g, rates, flash_attention=flash, dropout=True)


def test_layer_gemms_are_the_24bsh2_of_narayanan_eq3():
    # Narayanan et al. 2021 §5.1 (derivation of Eq. 3): a GPT layer's forward GEMMs are
    # 24·B·s·h² FLOPs (QKV 6, projection 2, MLP 16), the attention core 4·B·s²·h. GPT-3 175B
    # layer (h = 12288), B = 1, s = 2048: compute-bound, so at peak the time is FLOPs / 312e12.
    spec = step.gpt_model("gpt3", 96, 12288, 96)
    lc = _layer(spec, 2048, flash=False)
    gemm_flops = 24 * 2048 * 12288 ** 2
    # the QKV bias adds 3h columns to the 3h² matrix: +1/(4h) of the QKV GEMM's FLOPs at most
    assert float(lc["gemm_f_dense"]) * 312e12 == pytest.approx(gemm_flops, rel=1e-4)
    # The core's 4·B·s²·h FLOPs run as 96 heads × 2 batched GEMMs (2048 × 128 × 2048): each
    # moves 2·(2·2048·128 + 2048²) = 9,437,184 bytes for 1.07 GFLOP, 114 FLOP/B, below the
    # A100's ridge of 312e12 / 2.039e12 = 153 FLOP/B: HBM-bound (Roofline, Williams et al. 2009).
    assert 96 * 2 * (2 * 2048 * 128 * 2048) == 4 * 2048 ** 2 * 12288
    assert A100.hbm_bytes_per_s == 2.039e12
    assert float(lc["t_core_f"]) == pytest.approx(96 * 2 * 9437184 / 2.039e12, rel=1e-12)
    assert float(lc["t_core_b"]) == pytest.approx(2 * float(lc["t_core_f"]))


def test_flash_attention_core_runs_the_causal_half_with_a_5_to_2_backward():
    # FlashAttention-2 (Dao 2023, Alg. 1-2): a causal kernel visits (s+1)/2 keys per query on
    # average; the backward runs 5 matmuls against the forward's 2.
    spec = step.gpt_model("gpt3", 96, 12288, 96)
    lc = _layer(spec, 2048, flash=True)
    assert float(lc["t_core_f"]) * 312e12 == pytest.approx(4 * 2048 * 12288 * 2049 / 2)
    assert float(lc["t_core_b"]) == pytest.approx(2.5 * float(lc["t_core_f"]))
    assert float(lc["core_ew_f_t"]) == 0 and float(lc["core_ew_b_t"]) == 0   # no s×s in HBM


def test_a_thin_gemm_runs_at_hbm_speed():
    # Roofline (Williams et al. 2009): one token through the 12288 × 49152 MLP matrix reads
    # 2·12288·49152 bytes of weights; at 2.039 TB/s that takes longer than its FLOPs at 312 TF/s.
    spec = step.gpt_model("gpt3", 96, 12288, 96, seq_len=1)
    lc = _layer(spec, 1, flash=True)
    fc1_bytes = 2 * (12288 + 12288 * 49152 + 49152)
    assert float(lc["t_fc1"]) == pytest.approx(fc1_bytes / A100.hbm_bytes_per_s, rel=1e-12)


def test_elementwise_softmax_and_dropout_bytes_without_flash():
    # Per score element without FlashAttention: softmax 4 B and dropout 5 B forward, 6 + 5 B
    # backward (the module's byte list). h = 64, one head, s = 4: 16 scores per sequence.
    spec = llmcost.ModelSpec(name="tiny", n_layers=1, d_model=64, n_heads=1, vocab_size=8,
                             d_ff=256, ffn_type="mlp", seq_len=4)
    lc = _layer(spec, 4, flash=False)
    assert float(lc["core_ew_f_t"]) * A100.hbm_bytes_per_s == pytest.approx(16 * 9)
    assert float(lc["core_ew_b_t"]) * A100.hbm_bytes_per_s == pytest.approx(16 * 11)


# ----------------------------------------------------------------------------- TP exposure
@pytest.mark.parametrize("mode, sp, expected", [
    # hand derivations of the rules in tp_exposure's docstring: t_f = 1, t_b = 3, forward GEMMs
    # 2, column-parallel GEMMs 0.5
    ("none", False, (1.0, 3.0)),
    ("backward", False, (1.0, 2.5)),      # 3 − window 0.5
    ("backward", True, (1.0, 2.0)),       # sync 1 + max(3 − 1 − 2·0.5, 0)
    ("all", False, (0.0, 2.5)),           # forward hidden behind 2 s of GEMMs
    ("all", True, (0.0, 2.0)),
])
def test_tp_exposure_rules(mode, sp, expected):
    e_f, e_b = step.tp_exposure(1.0, 3.0, 2.0, 0.5, sp, mode)
    assert (float(e_f), float(e_b)) == pytest.approx(expected)


def test_tp_exposure_rejects_an_unknown_mode():
    with pytest.raises(ValueError, match="tp_overlap='some' must be one of"):
        step.tp_exposure(1.0, 1.0, 1.0, 1.0, False, "some")


# ----------------------------------------------------------------------------- layer totals
def test_recomputation_reruns_the_forward():
    # Korthikanti et al. 2022 §5: full recomputation re-runs the layer's forward (GEMMs 2 s,
    # core 0.5 s, element-wise 0.25 + 0.125 s: 2.875 s) and its forward TP collectives; selective
    # only the attention core (0.5 + 0.125 s).
    lc = {"t_core_f": 0.5, "t_core_b": 1.25, "core_ew_f_t": 0.125, "core_ew_b_t": 0.25}
    args = (lc, 2.0, 0.25, 0.5, 0.1, 0.2, 0.0, 0.0, 0.0, 0.0)
    none, sel, full = (step.layer_totals(*args, np.asarray(code)) for code in (0, 1, 2))
    assert float(none[0]) == 6.0 and float(none[1]) == 1.75 and float(none[2]) == 1.125
    assert float(none[3]) == 0 and float(sel[3]) == 0.625 and float(full[3]) == 2.875
    assert float(none[4]) == pytest.approx(0.3) and float(full[4]) == pytest.approx(0.4)


def test_torchtitan_op_selective_reruns_every_other_mm_and_the_element_wise_ops():
    # torchtitan parallelize_llama.py, selective_ac_option "op": the outputs of aten.mm and the
    # SDPA kernel are saved "except every second mm" (forward order wq, wk, wv, wo, w1, w3, w2);
    # every other op re-runs. Same layer as above: mm's re-run 0.7 s, element-wise forward
    # 0.25 s, the attention core saved: 0.95 s (Korthikanti's selective: 0.625 s).
    lc = {"t_core_f": 0.5, "t_core_b": 1.25, "core_ew_f_t": 0.125, "core_ew_b_t": 0.25}
    args = (lc, 2.0, 0.25, 0.5, 0.1, 0.2, 0.0, 0.0, 0.0, 0.0)
    sel = step.layer_totals(*args, np.asarray(1), 0.7)
    full = step.layer_totals(*args, np.asarray(2), 0.7)
    assert float(sel[3]) == pytest.approx(0.95) and float(full[3]) == 2.875
    assert float(sel[0]) == 6.0 and float(sel[1]) == 1.75   # forward + backward unchanged


def test_every_other_mm_is_wk_wo_w3_of_a_llama_layer():
    # Llama 3 8B layer (h 4096, 32 heads, 8 KV heads of 128, gated FFN 14336), compute-bound at
    # ideal rates: the re-run mm's wk (4096 x 1024), wo (4096 x 4096), w3 (4096 x 14336) are
    # 19,456 of the layer's 53,248 columns x h per token: 36.5 % of its forward GEMM FLOPs
    spec = llmcost.load_model("llama-3.1-8b")
    lc = _layer(spec, 8 * 8192, flash=True)
    flops = 2 * 8 * 8192 * 4096 * (1024 + 4096 + 14336)
    assert float(lc["t_sac_mm"]) * 312e12 == pytest.approx(flops, rel=1e-9)
    assert float(lc["t_sac_mm"] / lc["gemm_f_dense"]) == pytest.approx(19456 / 53248, rel=1e-9)


def test_the_stack_policy_sets_the_recompute_time():
    # the same Llama 3 8B plan with selective recomputation on torchtitan's stack
    # (every_other_mm) and on Megatron-Core's (the attention core): the stack's policy decides
    spec = llmcost.load_model("llama-3.1-8b")
    cl = Cluster(H100, 8)
    plan = parallel.make_plan(spec, 8, 16, tp=1, pp=1, micro_batch_size=2, recompute="selective",
                              zero_stage=3, seq_len=8192)
    tt = step.step_time(spec, cl, plan, 8192, stack="pytorch-fsdp2-2024")
    mc = step.step_time(spec, cl, plan, 8192, stack="megatron-core-2025")
    # torchtitan: ~0.365 of the forward GEMMs (~matmul/3) plus the forward element-wise work,
    # more than Megatron's attention-core forward (~attention/3.5)
    assert tt.recompute_s > 0.365 * tt.matmul_s / 3
    assert mc.recompute_s == pytest.approx(mc.attention_s / 3.5, rel=0.05)
    assert tt.recompute_s > mc.recompute_s


# ----------------------------------------------------------------------------- DP / ZeRO
@pytest.mark.parametrize("z, overlap, expected", [
    # F = 1 s forward, gathers G = 2 s per pass, reduce-scatter 1.5 s, 2 gather passes, over
    # L = 4 layers (comm.fsdp_exposure, by hand): per layer G 0.5, RS 0.375, F 0.25, B 0.5;
    # o(c, w) = max(c − w, 0) + 0.189·min(c, w). Forward 0.5 + 3·o(0.5, 0.25) = 0.5 + 3·0.29725;
    # backward link 0.875: 0.875 + 3·o(0.875, 0.5) = 0.875 + 3·0.4695.
    (3, True, (0.5 + 3 * 0.29725 + 0.875 + 3 * 0.4695, 0.0)),
    (3, False, (2 * 2 + 1.5, 0.0)),
    (2, True, (0.0, 0.0)),            # max(1.5 − 2, 0); the weight gather 0.25 < F
    (2, False, (1.5, 0.25)),
    (0, True, (0.0, 1.0)),            # all-reduce 3 s behind a 2 s backward
    (0, False, (0.0, 3.0)),
])
def test_zero_windows(z, overlap, expected):
    grad = 3.0 if z == 0 else 0.0
    wgather = 0.25 if z in (1, 2) else 0.0
    per_mb, per_step = step.zero_exposure(np.asarray(z), overlap, 1.0, gather=2.0, z3_rs=1.5,
                                          n_gathers=2.0, rs=1.5, grad=grad, wgather=wgather,
                                          n_layers=4)
    assert (float(per_mb), float(per_step)) == pytest.approx(expected)


def test_zero3_without_prefetch_exposes_every_gather():
    # prefetch_layers = 0: nothing issued ahead, every gather and reduce-scatter waits
    per_mb, _ = step.zero_exposure(np.asarray(3), True, 1.0, gather=2.0, z3_rs=1.5,
                                   n_gathers=2.0, rs=1.5, grad=0.0, wgather=0.0, n_layers=4,
                                   prefetch_layers=0)
    assert float(per_mb) == pytest.approx(2 * 2.0 + 1.5)


def test_zero_traffic_object_and_keywords_give_the_same_exposure():
    # ZeRO-3, overlap on, the hand numbers of test_zero_windows: one ZeroTraffic or its fields
    # as keywords (a keyword replaces the object's field); a misspelt field is refused by name.
    kw = dict(gather=2.0, z3_rs=1.5, n_gathers=2.0, rs=1.5, grad=0.0, wgather=0.0, n_layers=4)
    by_keywords = step.zero_exposure(np.asarray(3), True, 1.0, **kw)
    traffic = step.ZeroTraffic(**dict(kw, n_layers=1))
    assert step.zero_exposure(np.asarray(3), True, 1.0, traffic, n_layers=4) == by_keywords
    with pytest.raises(ValueError, match=r"\['n_layer'\]"):
        step.zero_exposure(np.asarray(3), True, 1.0, traffic, n_layer=4)


def test_optimizer_time_of_a_7b_shard():
    # 7e9 parameters × 42 B (bf16 weights, fp32 grads / master / Adam, test_step's hand count)
    # ÷ 3.35 TB/s (H100 SXM datasheet) = 87.8 ms; ZeRO-1 over 8 ranks shards it 8 ways.
    t0 = step.optimizer_time(7e9, 0.0, np.asarray(0), 8.0, 8.0, 42.0, 3.35e12)
    t1 = step.optimizer_time(7e9, 0.0, np.asarray(1), 8.0, 8.0, 42.0, 3.35e12)
    assert float(t0) == pytest.approx(0.08776, rel=1e-3)
    assert float(t1) == pytest.approx(float(t0) / 8)


# ----------------------------------------------------------------------------- pipeline
def _stage(t):
    d = {k: 0.0 for k in ("matmul", "attn", "mem", "rc", "tp", "cp", "ep", "pp", "dp_mb")}
    d.update(matmul=t, dp_step=0.0, opt=0.0)
    return d


@pytest.mark.parametrize("p, m, sched, v, slots", [
    # Narayanan et al. 2021 §2.2: a 1F1B or GPipe step takes (m + p − 1) micro-batch slots,
    # interleaved (m + (p − 1)/v), ZB-H1 (m + (p − 1)/3) for m >= p (Qi et al. 2024 §3).
    (4, 8, "1f1b", 1, 8 + 3), (4, 8, "gpipe", 1, 8 + 3), (4, 8, "interleaved", 2, 8 + 1.5),
    (4, 8, "zb-h1", 1, 8 + 1), (1, 8, "1f1b", 1, 8)])
def test_pipeline_composition_takes_the_published_slots(p, m, sched, v, slots):
    stages = [_stage(1.0), _stage(1.0), _stage(1.0)]
    parts = step.compose_pipeline(stages, pp=np.asarray(p), n_microbatches=np.asarray(m),
                                  virtual_stages=np.asarray(v),
                                  schedule=shapes.schedule_code(sched), p2p_s=0.0)
    # every part but the straggler wait (added after the pipeline, step.add_straggler)
    assert set(parts) == set(step.PARTS) - {"straggler_s"}
    assert sum(float(v) for v in parts.values()) == pytest.approx(slots)


def test_the_busiest_stage_paces_the_pipeline():
    # last stage 1.5 s per micro-batch (the LM head), others 1 s; p = 4, m = 8: the average
    # stage is (3·1 + 1.5)/4 = 1.125 s, imbalance 8·(1.5 − 1.125) = 3 s, bubble 3/8·8·1.125.
    stages = [_stage(1.0), _stage(1.0), _stage(1.5)]
    parts = step.compose_pipeline(stages, pp=np.asarray(4), n_microbatches=np.asarray(8),
                                  virtual_stages=np.asarray(1), schedule=np.asarray(0),
                                  p2p_s=0.01)
    assert float(parts["matmul_s"]) == pytest.approx(9.0)
    assert float(parts["stage_imbalance_s"]) == pytest.approx(3.0)
    assert float(parts["pipeline_bubble_s"]) == pytest.approx(3 * 1.125)
    assert float(parts["pp_comm_s"]) == pytest.approx(2 * 3 * 0.01)   # fill and drain P2P


# ----------------------------------------------------------------------------- bad plans
SPEC = llmcost.load_model("llama-2-7b")    # 32 heads
GOOD = dict(tp=np.array([1, 2, 4]), pp=1, dp=np.array([8, 4, 2]), cp=1, ep=1, virtual_stages=1,
            micro_batch_size=1, n_microbatches=4, zero_stage=1, recompute="none",
            schedule="1f1b", sequence_parallel=True)


@pytest.mark.parametrize("change, message", [
    (dict(tp=np.array([1, 3, 4])), r"tp=3 \(plan 2 of 3\) breaks the rule: tp must be a "
                                   r"positive integer dividing n_heads \(n_heads=32\)"),
    (dict(dp=np.array([8, 0, 2])), r"dp=0 \(plan 2 of 3\) breaks the rule: dp must be >= 1"),
    (dict(n_microbatches=0), r"n_microbatches=0 breaks the rule: n_microbatches must be >= 1"),
    (dict(zero_stage=4), r"zero_stage=4 breaks the rule: zero_stage must be 0, 1, 2 or 3"),
    (dict(micro_batch_size=1.5), r"micro_batch_size=1.5 breaks the rule"),
])
def test_the_engines_reject_invalid_plans(change, message):
    plan = dict(GOOD, **change)
    with pytest.raises(ValueError, match=message):
        step.step_arrays(SPEC, Cluster(A100, 8), seq_len=4096, **plan)
    with pytest.raises(ValueError, match=message):
        memory.plan_memory_arrays(SPEC, seq_len=4096, **plan)


def test_valid_plans_pass_the_engine_checks():
    out = step.step_arrays(SPEC, Cluster(A100, 8), seq_len=4096, **GOOD)
    assert np.all(np.isfinite(out["mfu"])) and out["mfu"].shape == (3,)


def test_model_shapes_rejects_a_non_model():
    with pytest.raises(ValueError, match="model='llama' must be a ModelSpec"):
        shapes.model_shapes("llama")


def test_choose_plan_takes_its_ranking_explicitly():
    # no ranking is installed at import: the caller passes one, and a non-callable is refused
    spec = llmcost.load_model("llama-2-7b")
    cl = llmcost.Cluster(llmcost.load_accelerator("A100-80GB"), 8)
    with pytest.raises(TypeError, match="rank"):
        parallel.choose_plan(spec, cl, 8, 4096)
    with pytest.raises(ValueError, match="rank=3 must be callable"):
        parallel.choose_plan(spec, cl, 8, 4096, rank=3)
    assert not hasattr(parallel, "set_default_ranking")


# ----------------------------------------------------------------------------- empty tables
def test_an_empty_plan_table_says_why():
    # Issue 10 (c): a grid with no valid plan (tp = 3 cannot divide 32 heads, and 3·1·1 does not
    # divide 8 GPUs; 4 micro-batch sizes × 6 virtual-stage divisors of 32 layers = 24 combinations)
    # warns with the rule, and keeps the reason in attrs.
    with pytest.warns(parallel.EmptyPlanTable, match="no valid plan among 24 combinations.*"
                                                     "rules broken most often: product"):
        df = parallel.enumerate_plans(SPEC, Cluster(A100, 8), 8, 4096, tp=(3,), pp=(1,),
                                      zero_stage=(0,), recompute=("none",),
                                      schedule=("1f1b",), micro_batch_size=(1, 2, 4, 8))
    assert df.empty and "product" in df.attrs["empty_reason"]
    with pytest.warns(parallel.EmptyPlanTable, match="no valid plan"):
        r = step.rank_plans(SPEC, Cluster(A100, 8), 8, 4096, tp=(3,))
    assert r.empty and r.attrs["empty_reason"].startswith("no valid plan")


def test_a_ranking_with_nothing_that_fits_says_why():
    # Llama 2 70B on one 80 GB GPU: 70e9 parameters × 18 B do not fit in 72 GB.
    spec = llmcost.load_model("llama-2-70b")
    with pytest.warns(parallel.EmptyPlanTable, match=r"no plan fits: \d+ valid plans, the "
                                                     r"smallest needs [\d,.]+ GB per GPU"):
        r = step.rank_plans(spec, Cluster(A100, 1), 1, 4096)
    # on one GPU there is no data parallelism for ZeRO-3 to shard over: not suggested
    assert r.empty and r.attrs["empty_reason"].endswith(
        ": more GPUs are needed (full recomputation searched)")
