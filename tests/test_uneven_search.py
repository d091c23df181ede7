"""The plan search tries the uneven pipeline split (``pp_split: auto``, the default).

A new-user trial found DeepSeek-V3 (61 layers, a prime) planned at PP1 on 2,048 B200 (MFU 4.7 %)
because the search tried only pipeline sizes that divide the layers, while the same model rated
its PP16 uneven plan at 14.7 %: DeepSeek-V3 itself trains PP16 over the 61 layers (arXiv:2412.19437
§3.2) and Megatron-Core places an uneven count with --decoder-first-pipeline-num-layers /
--decoder-last-pipeline-num-layers (NVIDIA/Megatron-LM@fa8bb5921b86, core_v0.9.0).
"""

import dataclasses
import warnings

import numpy as np
import pytest

import llmcost
from llmcost.bill.scenario import PARAMETERS, ScenarioError, load_scenario
from llmcost.core.catalog import SCENARIO_DIR
from llmcost.core import stacks
from llmcost.training import memory as M
from llmcost.training import parallel as P
from llmcost.training.step_scenario import scenario_plan, scenario_step

DSV3 = {"model": "deepseek-v3", "accelerator": "B200", "n_gpus": 2048, "seq_len": 4096,
        "global_batch_tokens": 62914560, "dtype": "fp8"}


def _scenario(**extra):
    p = {k: v for k, v in load_scenario(SCENARIO_DIR / "default.yaml").items()
         if k not in ("title", "description", "mfu")}
    return {**p, **DSV3, **extra}


def test_61_layers_on_16_stages_by_hand():
    # 61 = 3·16 + 13: 13 stages hold 4 layers, 3 hold 3 (the first, the embedding's, and the
    # last two); with DeepSeek-V3's one MTP module its 3 slots come off the last stage:
    # 61 + 3 = 64 = 4·16, the last stage keeping 1 layer (Megatron-Bridge's DeepSeek-V3 layout
    # for PP16: [E + 4, 4 × 14, 1 + MTP + loss])
    m = llmcost.load_model("deepseek-v3")
    d, mo = M.stage_layers(m.replace(mtp_depth=0), 16, 1, "uneven")
    assert list(d + mo) == [3] + [4] * 13 + [3, 3]
    d, mo = M.stage_layers(m, 16, 1, "uneven")
    assert list(d + mo) == [4] * 15 + [1]
    assert d[0] == 3 and mo[0] == 1          # DeepSeek-V3's 3 dense layers lead stage 0


def test_auto_rows_take_the_uneven_split_where_pp_does_not_divide():
    m = llmcost.load_model("deepseek-v3")
    cl = llmcost.Cluster(llmcost.load_accelerator("B200"), 2048)
    df = P.enumerate_plans(m, cl, 16384, 4096, pp_split="auto", tp=(1,), pp=(1, 16), ep=(8,),
                           micro_batch_size=(1,), zero_stage=(1,), recompute=("none",),
                           schedule=("1f1b",), virtual_stages=(1,))
    split = dict(zip(df["pp"], df["pp_split"].astype(str)))
    assert split == {1: "even", 16: "uneven"}
    row = df[df["pp"] == 16].iloc[0]
    # 1F1B bubble (p − 1)/m = 15/128 (Narayanan et al. 2021 §2.2), m = 16,384 / 128
    assert row["n_microbatches"] == 128
    assert row["bubble_fraction"] == pytest.approx(15 / 128, rel=1e-12)
    plan = P.plan_from_row(row)
    assert plan.pp_split == "uneven"
    # the table's memory is the plan's, counted on its uneven stages
    assert row["memory_bytes"] == pytest.approx(
        M.memory_per_gpu(m, plan, 4096).total, rel=1e-9)


def test_mixed_splits_in_one_array_call_equal_one_split_at_a_time():
    m = llmcost.load_model("deepseek-v3")
    kw = dict(tp=1, cp=1, ep=8, virtual_stages=1, micro_batch_size=1, zero_stage=1,
              recompute=0, schedule=0, sequence_parallel=True)
    arr = {k: np.full(3, v) for k, v in kw.items()}
    both = M.plan_memory_arrays(m, pp=np.array([16, 4, 16]), dp=np.array([128, 512, 128]),
                                n_microbatches=np.array([120, 30, 120]),
                                pp_split=np.array(["uneven"] * 3), seq_len=4096,
                                **arr)
    for i, (pp, dp, m_) in enumerate(((16, 128, 120), (4, 512, 30))):
        one = M.plan_memory_arrays(m, pp=pp, dp=dp, n_microbatches=m_, pp_split="uneven",
                                   seq_len=4096, **kw)
        assert both["total"][i] == pytest.approx(float(one["total"]), rel=1e-12)
    even = M.plan_memory_arrays(m, pp=np.array([16, 1]), dp=np.array([128, 2048]),
                                n_microbatches=np.array([120, 8]),
                                pp_split=np.array(["uneven", "even"]), seq_len=4096,
                                **{k: np.full(2, v) for k, v in kw.items()})
    alone = M.plan_memory_arrays(m, pp=1, dp=2048, n_microbatches=8, pp_split="even",
                                 seq_len=4096, **kw)
    assert even["total"][1] == pytest.approx(float(alone["total"]), rel=1e-12)


def test_dsv3_b200_plan_and_mfu():
    plan, b = scenario_step(_scenario())
    assert (plan.tp, plan.pp, plan.ep, plan.schedule, plan.pp_split) == \
        (1, 16, 8, "1f1b", "uneven")
    # the bubble as the engine prices it: (p − 1)/m of the micro-batches' average stage time
    # (no per-micro-batch DP traffic under ZeRO-1, no recomputation)
    mb = b.matmul_s + b.attention_s + b.memory_bound_s + b.recompute_s + b.tp_comm_s + \
        b.cp_comm_s + b.ep_comm_s + b.moe_host_s
    assert b.pipeline_bubble_s == pytest.approx(15 / 120 * mb, rel=1e-6)
    assert b.stage_imbalance_s > 0         # the 4-layer stages pace the pipeline
    # regression pin (this engine, 2026-12-02): 14.7 % (the trial's PP16 uneven figure); the
    # even split's best plan is PP1, 4.8 % (TP2 · PP1 · EP32 since the search counts memory as
    # megatron-core stores it under FP8, its FP8 saved inputs; TP2 · PP1 · EP64 at 4.7 % before);
    # 14.5 % once the 1F1B plan pays its pipeline sends (Megatron-Core overlaps them only under
    # the interleaved schedule, stacks.PP_OVERLAP_MODES) with the MoE host cost re-fitted; the
    # even split's PP1 plan 7.4 % (TP2 · PP1 · EP64) since a rank's all-to-all sends its own
    # x/tp tokens, Megatron-Core's alltoall dispatcher at TP > 1
    assert b.mfu == pytest.approx(0.1446, abs=0.0005)
    old = scenario_step(_scenario(pp_split="even"))
    assert old[0].pp == 1 and old[1].mfu == pytest.approx(0.0738, abs=0.0005)


def test_a_fixed_split_is_kept_and_a_stack_without_uneven_searches_even():
    assert scenario_plan(_scenario(pp_split="even")).pp_split == "even"
    assert P.scenario_pp_split({"pp_split": "embedding_and_loss"}) == "embedding_and_loss"
    assert not stacks.load_stack("megatron-lm-2022").uneven_pp
    assert P.scenario_pp_split({"stack": "megatron-lm-2022"}) == "even"
    assert P.scenario_pp_split({}) == "auto"            # megatron-core-2024 places unevenly
    with pytest.raises(ValueError, match="pp_split='odd' must be one of"):
        P.scenario_pp_split({"pp_split": "odd"})


def test_pp16_on_deepseek_v3():
    # the trial's second case: pp 16 fixed, pp_split left to the default, runs
    plan = scenario_plan(_scenario(pp=16))
    assert plan.pp == 16 and plan.pp_split == "uneven"
    # an explicit even split names the value that works; embedding_and_loss (63 slots) is not
    # offered, 16 does not divide 63
    with pytest.raises(P.PlanError, match=r"pp=16 must divide n_layers=61 \(for an uneven "
                                          r"split set pp_split: uneven\) \(deepseek-v3\)"):
        P.make_plan(llmcost.load_model("deepseek-v3"), 2048, 15360, pp=16, ep=8)
    with pytest.raises(P.PlanError, match="pp_split: uneven"):
        scenario_plan(_scenario(pp=16, pp_split="even"))


def test_list_parameters_names_the_choices():
    doc = PARAMETERS["pp_split"].doc
    for choice in ("'auto'", "'even'", "'embedding_and_loss'", "'uneven'"):
        assert choice in doc
    with pytest.raises(ScenarioError, match="pp_split='odd' must be one of 'auto', 'even'"):
        PARAMETERS["pp_split"].check("pp_split", "odd")


def test_rank_plans_searches_the_split_unless_given():
    m = llmcost.load_model("deepseek-v3")
    cl = llmcost.Cluster(llmcost.load_accelerator("B200"), 2048)
    kw = dict(tp=(1,), pp=(1, 16), ep=(8,), micro_batch_size=(1,), zero_stage=(1,),
              recompute=("none",), schedule=("1f1b",), virtual_stages=(1,), dtype="fp8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auto = llmcost.rank_plans(m, cl, 15360, 4096, **kw)
        even = llmcost.rank_plans(m, cl, 15360, 4096, pp_split="even", **kw)
    assert 16 in set(auto["pp"]) and 16 not in set(even["pp"])
    assert auto.iloc[0]["pp"] == 16 and str(auto.iloc[0]["pp_split"]) == "uneven"


def test_an_mtp_model_is_searched_with_the_uneven_split_beside_the_others():
    """A new-user trial planned DeepSeek-V3 FP8 on 2,016 GB200 (``mfu: predict``): 61 + 2 = 63
    slots split over PP 21, so ``pp_split: auto`` took ``embedding_and_loss`` ([E + 2, 3 × 19,
    2 + loss]), which places the layers as if the MTP module were not there; the last stage
    carries it on top and paced the pipeline (7.2 s of stage imbalance in a 15.7 s step). The
    same plan split ``uneven`` counts the MTP module and the loss as 2·1 + 1 slots of the last
    stage (Megatron-Bridge's DeepSeek-V3 layout for PP 16: [E + 4, 4 × 14, 1 + MTP + loss];
    DeepSeek's own run, PP 16 over 61 layers, arXiv:2412.19437 §3.2). The search now ranks
    both splits at v = 1 for a model with MTP: on GB200 the uneven one is the faster; on B200
    (a review) the uneven split's first stages hold more layers and need full recomputation
    to fit, and the slot split stays the faster, as the search keeps it."""
    m = llmcost.load_model("deepseek-v3")
    assert m.mtp_depth == 1
    assert P.row_pp_split(21, 1, 61) == "embedding_and_loss"   # the rule alone, unchanged
    # the uneven split counts 61 + 3 = 64 slots over 21 stages: the last holds the MTP module
    # and the loss with at most one layer
    d, mo = M.stage_layers(m, 21, 1, "uneven")
    assert (d + mo).sum() == 61 and (d + mo)[-1] <= 1
    sc = _scenario(accelerator="GB200-NVL72", n_gpus=2016, stack="megatron-core-2025",
                   tp=1, pp=21, ep=32, cp=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auto_plan, auto = scenario_step({**sc, "pp_split": "auto"}, m)
        el_plan, el = scenario_step({**sc, "pp_split": "embedding_and_loss"}, m)
        b200 = _scenario(n_gpus=2016, tp=0, pp=0, ep=0)
        b_plan, b = scenario_step({**b200, "pp_split": "auto"}, m)
        u_plan, u = scenario_step({**b200, "pp_split": "uneven"}, m)
    assert auto_plan.pp_split == "uneven" and el_plan.pp_split == "embedding_and_loss"
    assert auto.stage_imbalance_s < 0.5 * el.stage_imbalance_s
    assert auto.step_time_s < el.step_time_s
    # regression pins (the engine's own plans, recorded when the review found the B200 case):
    # the search keeps the slot split, the uneven plan needing full recomputation to fit
    assert b_plan.pp == 21 and b_plan.pp_split == "embedding_and_loss"
    assert u_plan.recompute == "full" and b.step_time_s < u.step_time_s
    # a scenario that fixes the slot split is told where the MTP module sits and which split
    # counts it (the trial read a 46% wait the layer counts it was shown could not explain)
    from llmcost.bill.checks import scenario_warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        said = [w for w in scenario_warnings({**sc, "pp_split": "embedding_and_loss",
                                              "mfu": el.mfu}, mfu_predicted=True)
                if w.startswith("the plan's pipeline stages carry unequal work")]
    assert len(said) == 1
    w = " ".join(said[0].split())
    assert "the last the LM head, the loss and the multi-token-prediction module (this " \
        "embedding_and_loss split places the layers as if the module were not there; " \
        "pp_split: uneven counts it as slots of the last stage)" in w


def test_the_pipeline_advice_is_said_once():
    """The trial's DeepSeek-V3 on 2,016 GB200 with the slot split: 2,016 = 2⁵·3²·7 GPUs against
    15,360 = 2¹⁰·3·5 sequences forces 21 stages, and both the bubble warning and the unequal
    stages' warning gave the same ten lines of GPU counts and batches without it; the second
    now points to the first."""
    from llmcost.bill.checks import scenario_warnings
    sc = _scenario(accelerator="GB200-NVL72", n_gpus=2016, stack="megatron-core-2025",
                   pp_split="embedding_and_loss", tp=0, pp=0, ep=0)
    m = llmcost.load_model("deepseek-v3")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plan, b = scenario_step(sc, m)
        said = scenario_warnings({**sc, "mfu": b.mfu}, mfu_predicted=True)
    assert plan.pp == 21
    bubble = [w for w in said if w.startswith("the plan's pipeline bubble")]
    stages = [w for w in said if w.startswith("the plan's pipeline stages carry unequal work")]
    assert len(bubble) == len(stages) == 1
    assert "the GPU count forces it: dp must divide the global batch of 15,360" in \
        " ".join(bubble[0].split()) and "1,920 GPUs" in bubble[0]
    assert stages[0].endswith("the GPU count forces it; without it (the GPU counts and batches "
                              "the pipeline-bubble warning names), the stages would balance.")
    # and the index's one line still says what avoids it
    from llmcost.present.glance import caveat_line
    assert caveat_line(stages[0]).endswith("other GPU counts or batches avoid it")
    assert "1,920 GPUs" not in stages[0]


def test_notebook_04b_ranks_the_same_mtp_splits_as_the_plan_search():
    """A review: the uneven rows were added in ``choose_plan`` only, so notebook 04b's ranking
    (``scenario_rank_plans``) showed the slot split's 15.7 s plan and called it the scenario's,
    the plan label leaving out the split, while the bill priced the uneven one at 13.5 s. The
    rows now come with ``enumerate_plans`` itself, and the comparison reads the split."""
    from llmcost.training.ranking import fastest_trusted
    from llmcost.training.step_scenario import fastest_versus_scenario, scenario_rank_plans
    m = llmcost.load_model("deepseek-v3")
    sc = _scenario(accelerator="GB200-NVL72", n_gpus=2016, stack="megatron-core-2025",
                   tp=0, pp=0, ep=0, pp_split="auto")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plan, b = scenario_step(sc, m)
        ranked = scenario_rank_plans(sc, m)
    best = fastest_trusted(ranked)
    assert plan.pp_split == "uneven" and str(best["pp_split"]) == "uneven"
    assert best["step_time_s"] == pytest.approx(b.step_time_s, rel=1e-6)
    assert fastest_versus_scenario(ranked, plan, sc, m).startswith("the scenario's plan")
    # the same degrees with the other split are not the scenario's plan
    other = dataclasses.replace(plan, pp_split="embedding_and_loss")
    assert fastest_versus_scenario(ranked, other, sc, m).startswith("not the scenario's plan")


def test_the_pointer_to_the_bubble_advice_claims_no_cure_where_none_is_found():
    """A review: where the bubble warning finds no nearby GPU count or batch without the
    pipeline ("none of the nearest ..."), the unequal-stages warning's pointer said one
    existed, and the index's line read "other GPU counts or batches avoid it"."""
    from llmcost.bill.checks import _advice_once
    from llmcost.present.glance import caveat_line
    head = ("the plan's pipeline stages carry unequal work (32 layers on 25 stages: 7 stages "
            "of 2, 18 stages of 1; TP2 · PP25): the others wait for the busiest about 36% "
            "of each step (the step-time model, notebook 04b): the predicted MFU includes it")
    tail = ("; the GPU count forces it: dp must divide the global batch; none of the nearest "
            "GPU counts and global batches that split without a pipeline gives a plan that "
            "fits.")
    w = _advice_once(head + tail, ["the plan's pipeline bubble adds 12% ..." + tail])
    assert w.endswith("the pipeline-bubble warning finds no nearby GPU count or batch without "
                      "it.")
    assert "avoid it" not in caveat_line(w)


def test_the_mtp_rows_repeat_no_plan_and_the_label_names_the_uneven_split():
    """A trial's 04b ranking of DeepSeek-V3 on 2,048 B200 listed every plan twice: at PP 16 the
    auto split is already "uneven" (61 and 63 are not multiples of 16), and the added rows
    repeated it. On 2,016 GB200 the slot split's PP 21 plan read as the uneven one's name."""
    m = llmcost.load_model("deepseek-v3")
    cl = llmcost.Cluster(llmcost.load_accelerator("B200"), 2048)
    df = P.enumerate_plans(m, cl, 15360, 4096, pp_split="auto", tp=(1,), pp=(1, 16, 32),
                           ep=(8,), micro_batch_size=(1,), zero_stage=(1,),
                           recompute=("none",), schedule=("1f1b",), virtual_stages=(1,))
    cols = ["tp", "pp", "dp", "ep", "virtual_stages", "micro_batch_size", "zero_stage",
            "recompute", "schedule", "pp_split"]
    assert not df[cols].astype(str).duplicated().any()
    # 61 + 2 = 63 slots and 61 layers: PP 32 divides neither (uneven already), PP 16 neither
    assert set(df.loc[df["pp"] > 1, "pp_split"].astype(str)) == {"uneven"}
    plan = P.make_plan(m, 2016, 15360, tp=1, pp=21, ep=32, pp_split="uneven", seq_len=4096)
    assert plan.describe().startswith("TP1 · PP21 uneven · DP96 · EP32")
    slot = P.make_plan(m, 2016, 15360, tp=1, pp=21, ep=32, pp_split="embedding_and_loss",
                       seq_len=4096)
    assert slot.describe().startswith("TP1 · PP21 · DP96 · EP32")


def test_a_tp_group_inside_an_nvl72_rack_divides_72():
    """A trial read TP 32 and TP 64 plans on GB200 NVL72 labelled "TP inside the 72-GPU
    domain": with consecutive ranks, groups of 32 take GPUs 0-31, 32-63 and 64-95, the third
    across two racks (NVIDIA GB200 NVL72: 72 GPUs in one NVLink domain). A group lies within
    one domain when its size divides the domain's."""
    m = llmcost.load_model("llama-3.1-70b")
    cl = llmcost.Cluster(llmcost.load_accelerator("GB200-NVL72"), 576)
    df = P.enumerate_plans(m, cl, 1152, 8192, tp=(8, 16, 32, 64), pp=(1,),
                           micro_batch_size=(1,), zero_stage=(1,), recompute=("full",),
                           schedule=("1f1b",))
    inside = dict(zip(df["tp"], df["tp_in_scaleup_domain"]))
    assert inside == {8: True, 16: False, 32: False, 64: False}
    h100 = P.enumerate_plans(m, llmcost.Cluster(llmcost.load_accelerator("H100-SXM"), 512),
                             1024, 8192, tp=(8, 16), pp=(1,), micro_batch_size=(1,),
                             zero_stage=(1,), recompute=("full",), schedule=("1f1b",))
    assert dict(zip(h100["tp"], h100["tp_in_scaleup_domain"])) == {8: True, 16: False}
