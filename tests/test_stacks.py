"""Software-stack profiles (llmcost.stacks, data/stacks.csv, data/flash_attention.csv)."""

import pytest

import llmcost
from llmcost import parallel, stacks, step
from llmcost.core.hardware import Cluster
from llmcost.training import step_validation

A100 = llmcost.load_accelerator("A100-80GB")
H100 = llmcost.load_accelerator("H100-SXM")


def test_every_profile_loads_and_is_sourced():
    names = stacks.list_stacks()
    assert {"megatron-lm-2021", "megatron-core-2024", "deepspeed-zero3-2021",
            "pytorch-fsdp2-2024"} <= set(names)
    assert stacks.DEFAULT_STACK in names
    for n in names:
        st = stacks.load_stack(n)
        assert st.source.strip() and st.date[:2] == "20"
        assert set(st.schedules) <= set(parallel.SCHEDULES)


def test_unknown_stack_names_the_choices():
    with pytest.raises(ValueError, match=r"stack='megatron-2030' is not a profile in "
                                         r"data/stacks.csv; choose one of \['megatron-lm-2021'"):
        stacks.load_stack("megatron-2030")
    with pytest.raises(llmcost.ScenarioError, match="stack='x' is not a profile"):
        llmcost.validate_parameter("stack", "x")


def test_flash_attention_fractions_are_the_papers():
    # FlashAttention-2 (Dao 2023) abstract: FA1 25-40%, FA2 50-73% of peak on A100 (0.60 is
    # data/efficiency.csv's judgement within it); FlashAttention-3 (Shah et al. 2024) abstract:
    # FA2 35% on H100, FA3 up to 75%.
    fa = stacks.attention_fraction
    assert fa("megatron-core-2024", "A100-80GB")[0] == 0.60
    assert fa("megatron-core-2024", "H100-SXM")[0] == 0.35
    assert fa("megatron-lm-2021", "A100-80GB")[0] is None
    assert 0.25 <= stacks._flash_table()[("1", "A100 (Ampere)")][0] <= 0.40
    assert stacks._flash_table()[("3", "H100 (Hopper)")][0] == 0.75
    # the default stack's kernels are data/efficiency.csv's (no change in any prediction)
    for acc in ("A100-80GB", "H100-SXM", "H200"):
        assert stacks.step_options(stacks.DEFAULT_STACK, acc)["efficiency"] == \
            llmcost.load_efficiency(acc)


def test_profiles_agree_with_the_sourced_validation_settings():
    # data/validation_mfu.csv records each published run's settings from its paper and scripts;
    # the profile it names must not contradict them (DP overlap excepted: the SC21 scripts
    # choose --DDP-impl per run).
    cfg = step_validation.validation_configs()
    pp_of = llmcost.load_published_runs().set_index("run_id")["pp"]
    newer = 0
    for _, r in cfg[cfg["stack"].fillna("") != ""].iterrows():
        st = stacks.load_stack(r["stack"])
        v = int(r["pp_virtual_stages"])
        assert r["flash_attention"] == (st.flash_attention != "none"), r["run_id"]
        assert (not r["sequence_parallel"]) or st.sequence_parallel, r["run_id"]
        assert r["recompute"] in st.recompute_modes, r["run_id"]
        if pp_of[r["run_id"]] > 1:
            # the P2P overlap as the stack runs it at the row's v (Megatron-Core: only with the
            # interleaved schedule; the non-interleaved schedule raises ValueError
            # "Non-interleaved pipeline parallelism does not support overlapping p2p
            # communication", NVIDIA/Megatron-LM@00611e6e schedules.py)
            assert r["comm_pp_overlap"] == stacks.pp_overlap_on(st, v), r["run_id"]
            # and a ZeRO stage the stack runs with a pipeline (DeepSpeed: ZeRO-0/1 only)
            assert int(r["zero_stage"]) <= st.zero_max_with_pp, r["run_id"]
        sched = "interleaved" if v > 1 else "1f1b"
        assert sched in st.schedules, r["run_id"]
        # every row runs a ZeRO stage its profile has (Megatron-Bridge's 70B+ recipes shard
        # with Megatron-FSDP, on megatron-core-2025 and later)
        assert int(r["zero_stage"]) in st.zero_stages, r["run_id"]
        if r["set"] in step.NEWER_SETS:
            # The 2024-2025 rows set TP overlap per run (NeMo / Megatron-Bridge recipes set
            # tp_comm_overlap per model; torchtitan turns async TP on per run)
            newer += 1
            continue
        assert r["comm_tp_overlap"] == st.tp_overlap, r["run_id"]
    assert newer > 200          # the newer rows' ZeRO stages are checked too (297 rows)



def test_a_2021_stack_reproduces_the_2021_run_settings():
    # Narayanan et al. 2021 Table 1, 39.1B on 512 A100 (--DDP-impl local: no DP overlap): the
    # megatron-lm-2021 profile's "auto" options give the same prediction as the run's own
    # sourced settings in data/validation_mfu.csv.
    v = step.mfu_validation(sets=("megatron21-table1",)).set_index("run_id")
    spec = step.gpt_model("39b", 48, 8192, 64)
    plan = parallel.make_plan(spec, 512, 1536, tp=8, pp=2, micro_batch_size=4,
                              recompute="full", sequence_parallel=False, seq_len=2048)
    b = step.step_time(spec, Cluster(A100, 512), plan, 2048, stack="megatron-lm-2021",
                       dropout=True, recipe="bf16_adam_fp32_grads_copy")
    assert b.stack == "megatron-lm-2021"
    assert b.mfu == pytest.approx(v.loc["megatron21-t1-39p1b", "predicted_mfu"], rel=1e-12)


def test_an_older_stack_is_slower_and_overrides_win():
    spec = llmcost.load_model("llama-2-70b")
    plan = parallel.make_plan(spec, 512, 256, tp=8, pp=4, zero_stage=1, seq_len=4096)
    cl = Cluster(H100, 512)
    new = step.step_time(spec, cl, plan, 4096)
    old = step.step_time(spec, cl, plan, 4096, stack="megatron-lm-2021",
                         missing_features="price")   # 2021: ZeRO-1 not in its profile
    assert new.stack == stacks.DEFAULT_STACK and old.mfu < new.mfu
    # the 1F1B plan (v = 1): Megatron-Core does not overlap its P2P (stacks.PP_OVERLAP_MODES)
    forced = step.step_time(spec, cl, plan, 4096, stack="megatron-lm-2021", tp_overlap="backward",
                            pp_overlap=False, dp_overlap=True, flash_attention=True,
                            missing_features="price")
    assert forced.mfu == pytest.approx(new.mfu, rel=1e-12)


def test_megatron_core_overlaps_p2p_only_with_the_interleaved_schedule():
    # NVIDIA/Megatron-LM@00611e6e megatron/core/pipeline_parallel/schedules.py:
    # forward_backward_pipelining_without_interleaving raises ValueError("Non-interleaved
    # pipeline parallelism does not support overlapping p2p communication"), and
    # megatron/training/arguments.py turns --overlap-p2p-communication off without virtual
    # stages. The profile's "interleaved" is on at v > 1 and off at v = 1.
    for name in ("megatron-core-2024", "megatron-core-2025", "megatron-core-2026"):
        assert stacks.load_stack(name).pp_overlap == "interleaved"
        assert not stacks.pp_overlap_on(name, 1) and stacks.pp_overlap_on(name, 2)
    # DualPipe overlaps its P2P whatever v (arXiv:2412.19437 §3.2.1); megatron-lm-2021 never
    assert stacks.pp_overlap_on("deepseek-hai-llm-2024", 1)
    assert not stacks.pp_overlap_on("megatron-lm-2021", 4)
    spec = llmcost.load_model("llama-2-70b")
    cl = Cluster(H100, 512)
    for v, on in ((1, False), (5, True)):
        plan = parallel.make_plan(spec, 512, 256, tp=8, pp=4, zero_stage=1, seq_len=4096,
                                  virtual_stages=v,
                                  schedule="interleaved" if v > 1 else "1f1b")
        auto = step.step_time(spec, cl, plan, 4096)
        same = step.step_time(spec, cl, plan, 4096, pp_overlap=on)
        other = step.step_time(spec, cl, plan, 4096, pp_overlap=not on)
        assert auto.step_time_s == pytest.approx(same.step_time_s, rel=1e-12)
        assert auto.step_time_s != pytest.approx(other.step_time_s, rel=1e-6)
    with pytest.raises(ValueError, match="pp_overlap='sometimes' must be one of"):
        stacks.step_options("megatron-core-2024", "H100-SXM", pp_overlap="sometimes")
    with pytest.raises(ValueError, match="pp_overlap='x' must be true, false or interleaved"):
        stacks._pp_overlap("s", "x")


def test_plan_search_only_uses_the_stacks_features():
    spec = llmcost.load_model("llama-2-70b")
    cl = Cluster(H100, 512)
    r = step.rank_plans(spec, cl, 256, 4096, stack="megatron-lm-2021")
    assert set(r["schedule"].astype(str)) <= {"1f1b", "interleaved"}
    assert set(r["zero_stage"]) == {0} and not r["sequence_parallel"].any()
    assert "selective" not in set(r["recompute"].astype(str))
    p = dict(model="llama-2-70b", accelerator="H100-SXM", n_gpus=512, seq_len=4096,
             global_batch_tokens=256 * 4096, stack="deepspeed-zero3-2021")
    plan, b = step.scenario_step(p)
    assert plan.schedule == "1f1b" and b.stack == "deepspeed-zero3-2021"


def test_scenario_overlap_keys_default_to_auto():
    o = step.scenario_options({"accelerator": "H100-SXM", "stack": "megatron-lm-2022"})
    assert (o["tp_overlap"], o["pp_overlap"], o["dp_overlap"]) == ("backward", False, False)
    o = step.scenario_options({"accelerator": "H100-SXM", "stack": "megatron-lm-2022",
                               "comm_pp_overlap": True})
    assert o["pp_overlap"] is True
    assert llmcost.validate_parameter("comm_dp_overlap", "auto") == "auto"
    assert llmcost.validate_parameter("comm_dp_overlap", False) is False
    with pytest.raises(llmcost.ScenarioError, match="comm_dp_overlap='sometimes' must be true, "
                                                   "false or 'auto'"):
        llmcost.validate_parameter("comm_dp_overlap", "sometimes")


def test_bad_stack_inputs_name_the_argument():
    with pytest.raises(ValueError, match="accelerator=3 must be a catalogue accelerator name"):
        stacks.attention_fraction("megatron-core-2024", 3)
    with pytest.raises(ValueError, match="tp_overlap='x' must be one of"):
        stacks.step_options("megatron-core-2024", "H100-SXM", tp_overlap="x")
    with pytest.raises(ValueError, match="unknown setting.*tp_overlaps"):   # a misspelt name
        stacks.step_options("megatron-core-2024", "H100-SXM", tp_overlaps="all")
    with pytest.raises(ValueError, match="stack=None is not a profile"):
        stacks.plan_options(None)


def test_megatron_core_2024_has_the_distributed_optimizer_only():
    # NVIDIA/Megatron-LM docs/source/api-guide/dist_optimizer.md: the distributed optimizer
    # "[yes] distribute all 'non-overlapping' optimizer state", "[no] distribute model
    # gradients", "[no] distribute model parameters"; bytes per parameter with bf16 parameters
    # and fp32 gradients: 18 without it, 6 + 12/d with it. That is ZeRO-1.
    st = stacks.load_stack("megatron-core-2024")
    assert st.zero_stages == (0, 1)
    d = 128
    z1 = llmcost.memory.zero_model_state_bytes(1, d, 1, "bf16_adam_fp32_grads")
    z0 = llmcost.memory.zero_model_state_bytes(1, d, 0, "bf16_adam_fp32_grads")
    assert z0 == pytest.approx(18.0, rel=1e-9)
    assert z1 == pytest.approx(6 + 12 / d, rel=1e-9)
    # Megatron-FSDP (2025 profiles) brings ZeRO-2 ("optim_grads") and ZeRO-3
    for name in ("megatron-core-2025", "megatron-core-2026"):
        assert stacks.load_stack(name).zero_stages == (0, 1, 2, 3)
        assert "optim_grads" in stacks.load_stack(name).notes
    # the default scenario's search (llama-2-70b, 2,048 H100, 1,024 x 4,096-token sequences):
    # no ZeRO-2 plan is offered on the default stack
    plan, _ = step.scenario_step(llmcost.load_scenario("data/scenarios/default.yaml"))
    assert plan.zero_stage in (0, 1)


def test_deepspeed_runs_pipelines_with_zero_1_at_most():
    # microsoft/DeepSpeed deepspeed/runtime/pipe/engine.py, PipelineEngine.__init__: assert
    # zero_optimization_stage() < ZeroStageEnum.gradients, "ZeRO-2 and ZeRO-3 are incompatible
    # with pipeline parallelism"
    st = stacks.load_stack("deepspeed-zero3-2021")
    assert st.zero_max_with_pp == 1
    assert stacks.plan_options(st)["zero_max_with_pp"] == 1
    assert stacks.load_stack("megatron-core-2025").zero_max_with_pp == 3
    spec = llmcost.load_model("llama-2-70b")
    cl = Cluster(A100, 512)
    r = step.rank_plans(spec, cl, 256, 4096, stack="deepspeed-zero3-2021")
    assert len(r) and (r["pp"] > 1).any() and (r["zero_stage"] >= 2).any()
    assert not ((r["pp"] > 1) & (r["zero_stage"] >= 2)).any()
    assert set(r.loc[r["pp"] > 1, "zero_stage"]) <= {0, 1}
    # the grid says why: rule zero_pp
    t = parallel.enumerate_plans(spec, cl, 256, 4096, zero_max_with_pp=1, include_rejected=True)
    assert t.attrs["rejected"]["zero_pp"] > 0
    bad = t[t["rejected_rule"] == "zero_pp"]
    assert (bad["pp"] > 1).all() and (bad["zero_stage"] >= 2).all()
    msgs = stacks.missing_features("deepspeed-zero3-2021", 3, "1f1b", 4)
    assert msgs == ["zero_stage=3 with pp=4: the stack 'deepspeed-zero3-2021' runs pipeline "
                    "parallelism with ZeRO stages up to 1 only (rule zero_max_with_pp)"]
    assert stacks.missing_features("deepspeed-zero3-2021", 1, "1f1b", 4) == []
    assert stacks.missing_features("deepspeed-zero3-2021", 3, "1f1b", 1) == []
    with pytest.raises(ValueError, match="zero_max_with_pp=4 must be a ZeRO stage"):
        parallel.enumerate_plans(spec, cl, 256, 4096, zero_max_with_pp=4)
    # a scenario fixing both pp > 1 and ZeRO-2 on that stack is refused by the rule itself,
    # before a search (not with the tally of rules the searched combinations broke)
    search = parallel.stack_plan_search("deepspeed-zero3-2021")
    with pytest.raises(parallel.PlanError, match=r"^zero_stage=2 with pp=4: the stack runs at "
                                                 r"most ZeRO-1 with a pipeline") as e:
        parallel.choose_plan(spec, cl, 256, 4096, fixed={"pp": 4, "zero_stage": 2},
                             rank=parallel.rank_without_time, **search)
    assert e.value.rule == "zero_pp" and "broken most often" not in str(e.value)
    assert parallel.choose_plan(spec, cl, 256, 4096, fixed={"pp": 4, "zero_stage": 1},
                                rank=parallel.rank_without_time, **search).zero_stage == 1


def test_the_pytorch_fsdp_stacks_are_the_ones_with_fsdp_settings():
    # Stack.pytorch_fsdp reads fsdp_backward_prefetch, stated only for the PyTorch FSDP stacks:
    # torchtitan's FSDP2, Composer's FSDP1 (llm-foundry) and NeMo AutoModel's FSDP2 -- the
    # stacks offering HSDP, PyTorch FSDP's hybrid sharding; none of Megatron's or DeepSpeed's
    every = [stacks.load_stack(n) for n in stacks.list_stacks()]
    fsdp = {s.name for s in every if s.pytorch_fsdp}
    assert fsdp == {"pytorch-fsdp2-2024", "llm-foundry-2023", "nemo-automodel-2025"}
    assert fsdp == {s.name for s in every if s.hsdp}
    assert all(not s.recompute_regathers for s in every if s.pytorch_fsdp)


def test_a_framework_named_by_its_project_is_pointed_to_its_profile():
    # A small lab wrote `stack: torchtitan` and got ten names; the FSDP2 profile's source is
    # the TorchTitan paper (Liang et al. 2024, arXiv:2410.06511, data/stacks.csv)
    from llmcost.core.stacks import load_stack
    with pytest.raises(ValueError) as e:
        load_stack("torchtitan")
    assert "the profiles whose name or source names 'torchtitan': pytorch-fsdp2-2024; choose " \
           "one of [" in str(e.value)
    with pytest.raises(ValueError) as e:
        load_stack("no-such-framework")
    assert "names" not in str(e.value) and "choose one of [" in str(e.value)
