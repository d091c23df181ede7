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
    for _, r in cfg[cfg["stack"].fillna("") != ""].iterrows():
        st = stacks.load_stack(r["stack"])
        assert r["flash_attention"] == (st.flash_attention != "none"), r["run_id"]
        assert (not r["sequence_parallel"]) or st.sequence_parallel, r["run_id"]
        assert r["recompute"] in st.recompute_modes, r["run_id"]
        assert r["comm_pp_overlap"] == st.pp_overlap, r["run_id"]
        sched = "interleaved" if int(r["pp_virtual_stages"]) > 1 else "1f1b"
        assert sched in st.schedules, r["run_id"]
        if r["set"] in step.NEWER_SETS:
            # The 2024-2025 rows set TP overlap per run (NeMo / Megatron-Bridge recipes set
            # tp_comm_overlap per model; torchtitan turns async TP on per run), and
            # Megatron-Bridge's 70B+ recipes shard with Megatron-FSDP (ZeRO-3), which the closest
            # profile in data/stacks.csv (megatron-core-2024) lacks: no 2025 Megatron-Core
            # profile is catalogued yet, so these rows are checked on the rest only.
            continue
        assert r["comm_tp_overlap"] == st.tp_overlap, r["run_id"]
        assert int(r["zero_stage"]) in st.zero_stages, r["run_id"]


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
    old = step.step_time(spec, cl, plan, 4096, stack="megatron-lm-2021")
    assert new.stack == stacks.DEFAULT_STACK and old.mfu < new.mfu
    forced = step.step_time(spec, cl, plan, 4096, stack="megatron-lm-2021", tp_overlap="backward",
                            pp_overlap=True, dp_overlap=True, flash_attention=True)
    assert forced.mfu == pytest.approx(new.mfu, rel=1e-12)


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
