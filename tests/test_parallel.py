"""llmcost.parallel: plan rules, pipeline bubbles, the op-by-op schedule simulator, and the
vectorised plan enumeration checked against the per-plan path.

Bubble vectors 3.a–3.c are [computed] values (tests/data/test_vectors.csv) of the stated formulas
(GPipe, 1F1B and
interleaved from Narayanan et al. 2021 §2.2, ZB-H1 from Qi et al. 2024); the simulator checks the
first three independently by scheduling every forward and backward op.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import llmcost
from llmcost import ModelSpec
from llmcost import memory as M
from llmcost import parallel as P
from llmcost.training.parallel import ParallelPlan, PlanError, make_plan


@pytest.fixture(scope="module")
def gpt3():
    return llmcost.load_model("gpt-3-175b")


@pytest.fixture(scope="module")
def l70():
    return llmcost.load_model("llama-2-70b")  # 80 layers, 64 heads, 8 KV heads


# ----------------------------------------------------------------------------- bubble
@pytest.mark.parametrize("p, m, gpipe_total, f1b1_ideal, inter_v4, zbh1", [
    (8, 32, 0.1795, 0.2188, 0.0547, 0.0729),     # test vector 3.a
    (16, 64, 0.1899, 0.2344, 0.0586, 0.0781),    # 3.b
    (4, 8, 0.2727, 0.375, 0.09375, 0.125),       # 3.c: interleaved (p−1)/(v·m) = 3/32 exactly
])
def test_bubble_vectors(p, m, gpipe_total, f1b1_ideal, inter_v4, zbh1):
    tol = dict(abs=5e-5)
    assert P.bubble_fraction(p, m, "gpipe", relative_to="total") == \
        pytest.approx(gpipe_total, **tol)
    assert P.bubble_fraction(p, m, "1f1b") == pytest.approx(f1b1_ideal, **tol)
    # 1F1B has the same step time as GPipe: the same share of the total.
    assert P.bubble_fraction(p, m, "1f1b", relative_to="total") == \
        pytest.approx(gpipe_total, **tol)
    assert P.bubble_fraction(p, m, "interleaved", 4) == pytest.approx(inter_v4, **tol)
    assert P.bubble_fraction(p, m, "zb-h1") == pytest.approx(zbh1, **tol)


def test_no_pipeline_no_bubble():
    for sched in M.SCHEDULES:
        assert P.bubble_fraction(1, 7, sched) == 0


def test_bubble_bad_input():
    with pytest.raises(ValueError, match="schedule='dualpipe' must be one of"):
        P.bubble_fraction(4, 8, "dualpipe")
    with pytest.raises(ValueError, match="n_microbatches=0 must be > 0"):
        P.bubble_fraction(4, 0)
    with pytest.raises(ValueError, match="relative_to='step'"):
        P.bubble_fraction(4, 8, relative_to="step")


@pytest.mark.parametrize("sched, p, m, v", [
    ("gpipe", 4, 8, 1), ("gpipe", 8, 3, 1), ("1f1b", 4, 8, 1), ("1f1b", 8, 32, 1),
    ("1f1b", 8, 5, 1), ("1f1b", 1, 4, 1), ("interleaved", 4, 8, 2), ("interleaved", 8, 16, 4),
    ("interleaved", 4, 4, 3), ("interleaved", 2, 6, 5),
])
def test_simulated_schedules_match_formulas(sched, p, m, v):
    df = P.pipeline_schedule(p, m, sched, v, t_forward=1.0, t_backward=2.0)
    assert len(df) == 2 * p * m * v
    assert df.attrs["bubble_fraction"] == pytest.approx(P.bubble_fraction(p, m, sched, v))
    # The peak number of micro-batches in flight per stage is what llmcost.memory assumes.
    for r in range(p):
        assert df.attrs["peak_in_flight"][r] == pytest.approx(
            M.in_flight_microbatches(sched, p, m, v, r)), r


def test_simulator_bad_input():
    with pytest.raises(ValueError, match="simulates"):
        P.pipeline_schedule(4, 8, "zb-h1")
    with pytest.raises(ValueError, match="n_microbatches=6 must be divisible by pp=4"):
        P.pipeline_schedule(4, 6, "interleaved", 2)


# ----------------------------------------------------------------------------- plan rules
def test_the_issue_bad_inputs(l70):
    with pytest.raises(ValueError, match=r"tp=3 must divide n_heads=64"):
        make_plan(l70, 96, 96, tp=3)
    with pytest.raises(ValueError, match=r"pp=7 must divide n_layers=80"):
        make_plan(l70, 56, 56, pp=7)
    with pytest.raises(ValueError, match=r"dp·tp·pp·cp = 4·8·4·1 = 128 must equal n_gpus=256"):
        make_plan(l70, 256, 512, tp=8, pp=4, dp=4)
    with pytest.raises(ValueError, match=r"must equal n_gpus=256"):
        ParallelPlan(dp=4, tp=8, pp=4).validate(l70, n_gpus=256)
    with pytest.raises(ValueError, match=r"tp·pp·cp = 8·3·1 = 24 must divide n_gpus=256"):
        make_plan(l70, 256, 512, tp=8, pp=3)


@pytest.mark.parametrize("kwargs, rule, message", [
    (dict(tp=8, pp=4, micro_batch_size=3), "batch", "must divide the global batch of 512"),
    (dict(tp=8, pp=4, virtual_stages=2), "schedule", "virtual_stages=2 needs schedule"),
    (dict(tp=8, pp=1, schedule="interleaved", virtual_stages=2), "schedule", "needs pp >= 2"),
    (dict(tp=8, pp=4, schedule="interleaved", virtual_stages=2, micro_batch_size=64),
     "interleaved_microbatches", "n_microbatches=1 must be divisible by pp=4"),
    (dict(tp=8, pp=4, schedule="interleaved", virtual_stages=3), "virtual_stages",
     "virtual_stages=3 must divide the 20 layers"),
    # a dense model has no experts: said so, not "must divide n_experts=0"
    (dict(tp=8, pp=4, ep=2), "ep_experts", r"ep=2: .* is dense \(no experts\), so ep must be 1"),
    (dict(tp=8, pp=4, ep=3), "ep_group", "ep=3 must divide dp·cp"),
    (dict(tp=8, pp=2, cp=3), "product", "must divide n_gpus=256"),
    (dict(tp=8, pp=4, pp_split="embedding_and_loss"), "pp_layers",
     "pp=4 must divide the 82 pipeline slots"),
])
def test_rules_are_named(kwargs, rule, message, l70):
    with pytest.raises(PlanError, match=message) as err:
        make_plan(l70, 256, 512, seq_len=4096, **kwargs)
    assert err.value.rule == rule


def test_kv_heads_rule_and_replication():
    m = ModelSpec(name="gqa12", n_layers=4, d_model=48 * 64, n_heads=48, n_kv_heads=12,
                  vocab_size=1000, d_ff=4096)
    with pytest.raises(PlanError, match="tp=8 must divide n_kv_heads=12 or be a multiple") as e:
        make_plan(m, 8, 8, tp=8, seq_len=1536)
    assert e.value.rule == "tp_kv_heads"
    make_plan(m, 24, 24, tp=24, seq_len=1536)   # 24 = 2 × 12: each KV head on 2 ranks


def test_sequence_rules(l70):
    with pytest.raises(PlanError, match="2·cp = 6 must divide seq_len=4096"):
        make_plan(l70, 24, 24, tp=8, cp=3, seq_len=4096)
    with pytest.raises(PlanError, match="tp=8 must divide seq_len / cp = 4100/1"):
        make_plan(l70, 8, 8, tp=8, seq_len=4100)
    make_plan(l70, 8, 8, tp=8, seq_len=4100, sequence_parallel=False)


@pytest.mark.parametrize("field, value, message", [
    ("zero_stage", 4, "zero_stage=4 must be 0, 1, 2 or 3"),
    ("recompute", "all", "recompute='all' must be one of"),
    ("schedule", "dualpipe", "schedule='dualpipe' must be one of"),
    ("tp", 0, "tp=0 must be a whole number >= 1"),
    ("dp", 2.5, "dp=2.5 must be a whole number >= 1"),
    ("pp_split", "balanced", "pp_split='balanced' must be one of"),
])
def test_plan_field_errors(field, value, message):
    with pytest.raises(ValueError, match=message):
        ParallelPlan(**{field: value})


def test_llama3_published_plan_is_valid():
    # Llama 3 Table 4 at 16,384 GPUs: TP 8, CP 1, PP 16, DP 128, 8,192-token sequences, batch
    # size/DP 16; §3.3.2: 126 layers with one fewer on the first and last stages, interleaved.
    m = llmcost.load_model("llama-3.1-405b")
    plan = make_plan(m, 16384, 128 * 16, tp=8, pp=16, cp=1, micro_batch_size=1,
                     schedule="interleaved", virtual_stages=8, pp_split="embedding_and_loss",
                     seq_len=8192)
    assert plan.dp == 128 and plan.n_microbatches == 16
    with pytest.raises(PlanError, match="pp=16 must divide n_layers=126"):
        make_plan(m, 16384, 2048, tp=8, pp=16, seq_len=8192)


def test_plan_properties(l70):
    plan = make_plan(l70, 2048, 1024, tp=8, pp=4, zero_stage=1, seq_len=4096)
    assert (plan.dp, plan.n_microbatches, plan.zero_group_size) == (64, 16, 64)
    assert plan.bubble_fraction() == pytest.approx(3 / 16)
    assert plan.describe() == "TP8 · PP4 · DP64 · 1F1B m=16 mbs=1 · ZeRO-1 · no recompute"
    assert P.plan_from_row(plan.to_dict()) == plan


def test_alltoall_scaleout_share():
    assert P.alltoall_scaleout_share(8, 8) == 0
    assert P.alltoall_scaleout_share(64, 8) == pytest.approx(0.875)
    assert P.alltoall_scaleout_share(4, 8) == 0


# ----------------------------------------------------------------------------- enumeration
@pytest.fixture(scope="module")
def gpt3_grid(gpt3):
    cl = llmcost.Cluster(llmcost.load_accelerator("A100-80GB"), 1024)
    return P.enumerate_plans(gpt3, cl, 1536, include_rejected=True)


def test_grid_is_large_and_counts_add_up(gpt3_grid):
    df = gpt3_grid
    assert df.attrs["n_candidates"] == len(df) > 1_000_000
    assert df.valid.sum() == df.attrs["n_valid"] == (df.rejected_rule == "").sum()
    counts = df.rejected_rule.value_counts()
    assert df.attrs["rejected"] == {r: int(counts.get(r, 0)) for r in P.RULES}
    assert sum(df.attrs["rejected"].values()) + df.attrs["n_valid"] == len(df)
    assert df.loc[df.valid, "memory_bytes"].notna().all()
    assert df.loc[~df.valid, "memory_bytes"].isna().all() and not df.loc[~df.valid, "fits"].any()
    for col in ("tp", "pp", "dp", "cp", "ep", "virtual_stages", "micro_batch_size",
                "n_microbatches", "zero_stage", "recompute", "schedule", "sequence_parallel",
                "memory_bytes", "fits", "bubble_fraction", "peak_stage", "tp_in_scaleup_domain"):
        assert col in df.columns
    parts = df.loc[df.valid, [f"{p}_bytes" for p in M.PARTS]].sum(axis=1)
    np.testing.assert_allclose(parts, df.loc[df.valid, "memory_bytes"], rtol=1e-12)


def test_the_default_table_is_the_grids_valid_rows_in_order(gpt3, gpt3_grid):
    # enumerate_plans finds the valid rows without writing out the grid (parallel._valid_rows:
    # the rules' codes crossed with the axes no rule reads); the rows must be those the whole
    # grid's codes give, in the same order, with the same columns
    cl = llmcost.Cluster(llmcost.load_accelerator("A100-80GB"), 1024)
    df = P.enumerate_plans(gpt3, cl, 1536)
    full = gpt3_grid[gpt3_grid.valid].drop(columns=["valid", "rejected_rule"])
    pd.testing.assert_frame_equal(df.reset_index(drop=True), full.reset_index(drop=True))
    assert df.attrs["n_candidates"] == gpt3_grid.attrs["n_candidates"]
    assert df.attrs["rejected"] == gpt3_grid.attrs["rejected"]


def test_megatron_gpt3_plan_is_in_the_grid_and_fits(gpt3_grid):
    # Narayanan et al. 2021 ran GPT-3 175B with TP 8 × PP 8 (Table 1); with full recomputation
    # and the distributed optimizer it fits an 80 GB A100.
    df = gpt3_grid
    row = df[df.valid & (df.tp == 8) & (df.pp == 8) & (df.micro_batch_size == 1)
             & (df.zero_stage == 1) & (df.recompute == "full") & (df.schedule == "1f1b")]
    assert len(row) == 1 and bool(row.fits.iloc[0])
    assert row.bubble_fraction.iloc[0] == pytest.approx(7 / 96)


def test_vectorised_rules_and_memory_agree_with_the_per_plan_path(gpt3, gpt3_grid):
    rng = np.random.default_rng(1)
    df = gpt3_grid
    picks = np.concatenate([rng.choice(np.flatnonzero(df.valid), 150, replace=False),
                            rng.choice(np.flatnonzero(~df.valid), 250, replace=False)])
    for i in picks:
        row = df.iloc[i]
        rule, plan = _per_plan(gpt3, 1024, 1536, row)
        assert rule == (row.rejected_rule or None), (i, rule, row.rejected_rule)
        if plan is not None:
            mb = M.memory_per_gpu(gpt3, plan, 2048)
            assert mb.total == pytest.approx(row.memory_bytes, rel=1e-12)
            assert mb.stage == row.peak_stage
            assert plan.bubble_fraction() == pytest.approx(row.bubble_fraction)


def _per_plan(model, n_gpus, gb, row):
    try:
        plan = make_plan(model, n_gpus, gb, tp=int(row.tp), pp=int(row.pp), cp=int(row.cp),
                         ep=int(row.ep), virtual_stages=int(row.virtual_stages),
                         micro_batch_size=int(row.micro_batch_size),
                         zero_stage=int(row.zero_stage), recompute=str(row.recompute),
                         schedule=str(row.schedule),
                         sequence_parallel=bool(row.sequence_parallel))
    except PlanError as e:
        return e.rule, None
    dup = P.duplicate_rule(plan)
    return dup, (None if dup else plan)


def test_enumeration_of_an_moe_model():
    m = llmcost.load_model("mixtral-8x7b")
    cl = llmcost.Cluster(llmcost.load_accelerator("H100-SXM"), 64)
    df = P.enumerate_plans(m, cl, 256, 4096, micro_batch_size=(1, 2), recompute=("selective",))
    assert set(df.ep) == {1, 2, 4, 8}
    assert ((df.dp * df.cp) % df.ep == 0).all()
    # Same plan otherwise: more expert parallelism never needs more memory per GPU.
    keys = ["tp", "pp", "dp", "virtual_stages", "micro_batch_size", "zero_stage", "schedule"]
    wide = df.pivot_table(index=keys, columns="ep", values="memory_bytes", observed=True)
    wide = wide.dropna()
    assert len(wide) > 10
    assert (np.diff(wide.to_numpy(), axis=1) <= 0).all()


def test_enumeration_bad_input(gpt3):
    cl = llmcost.Cluster(llmcost.load_accelerator("A100-80GB"), 64)
    with pytest.raises(ValueError, match="recompute='most'"):
        P.enumerate_plans(gpt3, cl, 64, recompute=("most",))
    with pytest.raises(ValueError, match="tp=0.0"):
        P.enumerate_plans(gpt3, cl, 64, tp=(0, 8))
    with pytest.raises(ValueError, match="reserve=2"):
        P.enumerate_plans(gpt3, cl, 64, reserve=2)
    with pytest.raises(ValueError, match="global_batch=0"):
        P.enumerate_plans(gpt3, cl, 0)


# ----------------------------------------------------------------------------- properties
@st.composite
def dense_setups(draw):
    heads = draw(st.sampled_from([8, 16, 32, 64]))
    kv = draw(st.sampled_from([h for h in (1, 2, 4, 8, heads) if heads % h == 0]))
    layers = draw(st.sampled_from([4, 8, 12, 16, 24, 32, 48]))
    m = ModelSpec(name="p", n_layers=layers, d_model=heads * 128, n_heads=heads, n_kv_heads=kv,
                  vocab_size=draw(st.integers(1000, 200_000)), d_ff=draw(st.integers(256, 40_000)),
                  ffn_type=draw(st.sampled_from(["gated", "mlp"])),
                  tied_embeddings=draw(st.booleans()),
                  bias=draw(st.sampled_from(["none", "qkv", "all"])))
    tp = draw(st.sampled_from([t for t in (1, 2, 4, 8) if heads % t == 0]))
    pp = draw(st.sampled_from([p for p in (1, 2, 4, 8) if layers % p == 0]))
    plan = dict(tp=tp, pp=pp, dp=draw(st.sampled_from([1, 2, 4, 8])),
                micro_batch_size=draw(st.integers(1, 4)),
                n_microbatches=draw(st.integers(1, 64)),
                zero_stage=draw(st.integers(0, 3)),
                recompute=draw(st.sampled_from(M.RECOMPUTE_MODES)),
                schedule=draw(st.sampled_from(["1f1b", "gpipe", "zb-h1"])))
    seq = draw(st.sampled_from([512, 2048, 8192]))
    return m, plan, seq


def _mem(m, seq, recipe="bf16_adam_fp32_grads", **plan):
    return M.memory_per_gpu(m, ParallelPlan(**plan), seq, recipe=recipe)


@settings(max_examples=150, deadline=None)
@given(dense_setups(), st.sampled_from(list(M.RECIPES)))
def test_more_sharding_never_raises_model_state_memory(setup, recipe):
    m, plan, seq = setup
    base = _mem(m, seq, recipe, **plan).model_states
    more = []
    if plan["zero_stage"] < 3:
        more.append(dict(plan, zero_stage=plan["zero_stage"] + 1))
    if plan["zero_stage"] > 0:
        more.append(dict(plan, dp=plan["dp"] * 2))
    if m.n_heads % (plan["tp"] * 2) == 0:
        more.append(dict(plan, tp=plan["tp"] * 2))
    if m.n_layers % (plan["pp"] * 2) == 0:
        more.append(dict(plan, pp=plan["pp"] * 2))
    for p in more:
        assert _mem(m, seq, recipe, **p).model_states <= base * (1 + 1e-12), p


@settings(max_examples=150, deadline=None)
@given(dense_setups(), st.booleans())
def test_full_recompute_never_needs_more_than_selective(setup, flash):
    m, plan, seq = setup
    pl = {k: v for k, v in plan.items() if k != "recompute"}
    sel = M.memory_per_gpu(m, ParallelPlan(recompute="selective", **pl), seq,
                           flash_attention=flash)
    full = M.memory_per_gpu(m, ParallelPlan(recompute="full", **pl), seq, flash_attention=flash)
    none = M.memory_per_gpu(m, ParallelPlan(recompute="none", **pl), seq, flash_attention=flash)
    act = lambda b: b.activations + b.activation_working_set  # noqa: E731
    assert act(full) <= act(sel) * (1 + 1e-12) <= act(none) * (1 + 1e-12)
    assert full.total <= sel.total * (1 + 1e-12) <= none.total * (1 + 1e-12)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 64), st.integers(1, 512), st.integers(1, 512), st.integers(2, 8),
       st.sampled_from(M.SCHEDULES))
def test_bubble_falls_as_microbatches_grow(p, m1, m2, v, sched):
    lo, hi = sorted((m1, m2))
    vv = v if sched == "interleaved" else 1
    assert P.bubble_fraction(p, hi, sched, vv) <= P.bubble_fraction(p, lo, sched, vv)
    assert P.bubble_fraction(p, hi, sched, vv, "total") <= P.bubble_fraction(p, lo, sched, vv,
                                                                              "total")


@settings(max_examples=100, deadline=None)
@given(dense_setups())
def test_breakdown_sums_to_total(setup):
    m, plan, seq = setup
    df = M.memory_breakdown(m, ParallelPlan(**plan), seq)
    assert df.loc[list(M.PARTS), "bytes"].sum() == pytest.approx(df.loc["total", "bytes"])
    assert (df["bytes"] >= 0).all()


def test_zb_h1_with_fewer_micro_batches_than_stages():
    # p = 2, m = 1, T_F = T_B = T_W: F1 F2 B2 (B1, W2) W1 -> 5 slots for 3 of work: 2/3.
    from llmcost.training.parallel import bubble_fraction
    assert bubble_fraction(2, 1, "zb-h1") == pytest.approx(2 / 3)
    assert bubble_fraction(8, 32, "zb-h1") == pytest.approx(7 / 96)   # Qi et al.: (p-1)/(3m)
    assert bubble_fraction(8, 4, "zb-h1") <= bubble_fraction(8, 4, "1f1b")
    # p = 4, m = 2, slot by slot (B before F before W, 1F1B's in-flight limit of p - r; a
    # review's count, redone by hand):
    #   stage 0  F1 F2 .  .  .  .  .  B1 W1 B2 W2
    #   stage 1  .  F1 F2 .  .  .  B1 W1 B2 W2 .
    #   stage 2  .  .  F1 F2 .  B1 W1 B2 W2 .  .
    #   stage 3  .  .  .  F1 B1 F2 B2 W1 W2 .  .
    # 11 slots for 3·2 = 6 of work: 5/6, not the 1 that 2(p-1)/(3m) gave; the span
    # 2p + 2m - 1 gives (2p - m - 1)/(3m), which meets Qi et al.'s (p-1)/(3m) at m = p
    assert bubble_fraction(4, 2, "zb-h1") == pytest.approx(5 / 6)
    assert bubble_fraction(4, 4, "zb-h1") == pytest.approx(3 / 12)
    assert bubble_fraction(8, 7, "zb-h1") == pytest.approx(8 / 21)   # (16 - 7 - 1) / 21


def test_plan_grid_object_and_keywords_give_the_same_table():
    """``enumerate_plans``' option lists as one ``PlanGrid`` or as keywords (which replace the
    grid's fields) are the same grid: the same table, byte for byte; a name that is no option
    is a ValueError naming it (not a TypeError), as is a keyword that is no plan field in
    ``make_plan``."""
    model = llmcost.load_model("llama-2-70b")
    cluster = llmcost.Cluster(llmcost.load_accelerator("H100-SXM"), 64)
    by_keywords = P.enumerate_plans(model, cluster, 64, 4096, tp=(4, 8), pp=(1, 2),
                                    zero_stage=(1, 3))
    by_grid = P.enumerate_plans(model, cluster, 64, 4096,
                                grid=P.PlanGrid(tp=(4, 8), pp=(1, 2), zero_stage=(1, 3)))
    mixed = P.enumerate_plans(model, cluster, 64, 4096, grid=P.PlanGrid(tp=(4, 8), pp=(1, 2)),
                              zero_stage=(1, 3))
    assert len(by_keywords) > 0
    assert by_grid.to_csv() == by_keywords.to_csv() == mixed.to_csv()
    assert by_grid.attrs == by_keywords.attrs
    with pytest.raises(ValueError, match="tensor_parallel"):
        P.enumerate_plans(model, cluster, 64, 4096, tensor_parallel=(8,))
    with pytest.raises(ValueError, match="grid"):
        P.enumerate_plans(model, cluster, 64, 4096, grid={"tp": (8,)})
    with pytest.raises(ValueError, match="n_microbatches"):
        make_plan(model, 64, 64, tp=8, n_microbatches=2)


def test_an_empty_axis_is_refused_naming_it():
    # a reviewer found the compact count divided by the codes' size, 0 for an empty axis; a
    # later trial read rank_plans(tp=[]) answer "no valid plan among 0 combinations ... rules
    # broken most often: none": an axis with no value is bad input, refused with its name
    cl = llmcost.Cluster(llmcost.load_accelerator("H100-SXM"), 8)
    with pytest.raises(ValueError, match=r"^tp=\(\) must hold at least one number"):
        P.enumerate_plans(llmcost.load_model("llama-2-7b"), cl, 64, tp=())
    with pytest.raises(ValueError, match=r"^tp=\[\] must hold at least one number"):
        llmcost.rank_plans(llmcost.load_model("llama-2-7b"), cl, 64, 4096, tp=[])


def test_recompute_in_words():
    # a bar of notebook 03's ZeRO/recomputation figure read "ZeRO-0, none recompute"
    assert [P.recompute_words(r) for r in ("none", "selective", "full")] == [
        "no recompute", "selective recompute", "full recompute"]
    with pytest.raises(ValueError, match="recompute='all'"):
        P.recompute_words("all")


def test_the_scaling_frontier_counts_plans_with_tp_in_the_scale_up_domain():
    # A trial read notebook 03's frontier table (20,328 valid plans at 512 H200) beside the
    # same page's 31,734 valid plans: the frontier counts the plans whose TP lies inside the
    # 8-GPU NVLink domain (its fitting ones are what a run would choose), enumerate_plans every
    # TP. By hand: the frontier's counts are enumerate_plans' rows with tp <= 8
    spec = llmcost.load_model("llama-3.1-8b")
    gpu = llmcost.load_accelerator("H100-SXM")
    cluster = llmcost.Cluster(gpu, 64)
    every = P.enumerate_plans(spec, cluster, 256, 4096)
    row = P.scaling_frontier(spec, gpu, [64], 256, 4096).loc[64]
    inside = every[every["tp"] <= 8]
    assert (every["tp"] > 8).any()   # the two counts differ here
    assert row["n_valid"] == len(inside) < len(every)
    assert row["n_fitting"] == int(inside["fits"].sum())
    from llmcost.present.plots import COLUMN_WORDS
    assert "TP in the scale-up domain" in COLUMN_WORDS["n_valid"]


def test_make_plan_keeps_python_ints_from_numpy_counts():
    # an API trial: make_plan(m, 8, 8, tp=np.int64(8)) returned ParallelPlan(dp=np.int64(1),
    # tp=np.int64(8), n_microbatches=np.int64(8), ...): numpy's types leaked into the plan
    import numpy as np
    m = llmcost.load_model("llama-3.1-8b")
    p = llmcost.make_plan(m, np.int64(8), np.int64(8), tp=np.int64(8), pp=np.int64(1))
    for f in ("dp", "tp", "pp", "cp", "n_microbatches", "micro_batch_size"):
        assert type(getattr(p, f)) is int, f
    assert (p.dp, p.tp, p.n_microbatches) == (1, 8, 8)
    assert "np.int64" not in repr(p)


def test_a_zero_stage_on_one_data_parallel_rank_is_named_as_the_cause():
    # A small lab's 1-GPU scenario at zero_stage 3 (tp, pp, cp 1) was refused for "rule
    # 'schedule' (interleaved needs pp >= 2 ...)": every plan was ZeRO-3 at dp = 1, which shards
    # nothing (Rajbhandari et al. 2020, ZeRO §5: the stages partition over the data-parallel
    # group), pruned as a duplicate of ZeRO-0. The refusal names that and the way out.
    sc = {**llmcost.load_scenario(llmcost.SCENARIO_DIR / "default.yaml"), "model": "llama-2-7b",
          "n_gpus": 1, "tp": 1, "pp": 1, "cp": 1, "zero_stage": 3,
          "global_batch_tokens": 4096 * 128}
    with pytest.raises(ValueError) as e:
        llmcost.step.scenario_plan(sc, llmcost.load_model("llama-2-7b"))
    assert "zero_stage 3 shards over the data-parallel group, and tp·pp·cp = 1 leaves dp = 1: " \
           "ZeRO has nothing to shard; write zero_stage: 0, or -1 to have it chosen" in str(e.value)
    assert "schedule" not in str(e.value)
