"""The 2025 Megatron-Core profile and the stack-feature warning of ``step_time``.

Sources: NVIDIA/Megatron-LM megatron/core/transformer/moe/README.md (What's New: v0.12, 2025/05,
DeepEP through ``--moe-token-dispatcher-type flex --moe-enable-deepep``; v0.15, 2025/11, HybridEP
and FSDP with EP); Megatron Core developer guide (Megatron-FSDP, distributed optimizer);
NVIDIA-NeMo/Megatron-Bridge performance-summary.md 25.11 (FSDP column, FP8-CS / FP8-MX).
"""

import warnings

import pytest

import llmcost
from llmcost.core import stacks
from llmcost.training import parallel, step


def test_megatron_core_2025_profile():
    st = stacks.load_stack("megatron-core-2025")
    assert st.date == "2025-11"
    assert 3 in st.zero_stages and 1 in st.zero_stages       # Megatron-FSDP, dist. optimizer
    assert st.moe_dispatch == "per_node"                      # DeepEP's per-node copies
    assert st.fp8 and st.moe_expert_gemm == "per_expert_launch"
    assert "DeepEP" in st.source and "Megatron-FSDP" in st.source
    assert 3 not in stacks.load_stack("megatron-core-2024").zero_stages


def _zero3_step(stack, **how):
    spec = llmcost.load_model("llama-3.1-8b")
    cl = llmcost.Cluster(llmcost.load_accelerator("H100-SXM"), 8)
    plan = parallel.make_plan(spec, 8, 16, tp=1, pp=1, zero_stage=3, micro_batch_size=1,
                              seq_len=8192)
    return step.step_time(spec, cl, plan, 8192, stack=stack, **how)


def test_step_time_refuses_what_the_stack_has_not_unless_asked_to_price_it():
    # Megatron-Core 2024 has no ZeRO-3 path (data/stacks.csv): the plan search never picks it,
    # and step_time refuses it too, naming the feature and the stacks that have it; a what-if
    # (or a published run whose stack the profiles do not hold) prices it with
    # missing_features="price", said by a StackFeatureWarning
    with pytest.raises(ValueError, match=r"zero_stage=3: the stack 'megatron-core-2024' has no "
                       r"ZeRO-3 path \(its ZeRO stages: 0, 1\); stacks with one: "
                       r".*megatron-core-2025.*missing_features='price'"):
        _zero3_step("megatron-core-2024")
    with pytest.warns(stacks.StackFeatureWarning,
                      match=r"zero_stage=3: the stack 'megatron-core-2024' has no ZeRO-3 path "
                            r"\(its ZeRO stages: 0, 1\); stacks with one: .*megatron-core-2025"
                      ) as said:
        b = _zero3_step("megatron-core-2024", missing_features="price")
    assert b.step_time_s > 0            # priced all the same
    # the warning carries the feature's own sentence (what the step explorer prints), the one
    # stacks.missing_features writes
    (w,) = [x.message for x in said if isinstance(x.message, stacks.StackFeatureWarning)]
    assert w.feature == stacks.missing_features("megatron-core-2024", 3, "1f1b", 1)[0]
    assert str(w).startswith(w.feature + ". The step is priced")
    with pytest.raises(ValueError, match="missing_features='warn' must be one of"):
        _zero3_step("megatron-core-2025", missing_features="warn")
    with warnings.catch_warnings():
        warnings.simplefilter("error", stacks.StackFeatureWarning)
        _zero3_step("megatron-core-2025")
        _zero3_step("pytorch-fsdp2-2024")


def test_missing_features_names_schedule_and_fp8():
    msgs = stacks.missing_features("megatron-lm-2021", 0, "zb-h1", 4, "fp8")
    assert any("schedule='zb-h1'" in m and "1f1b, interleaved" in m for m in msgs)
    assert any("dtype='fp8'" in m for m in msgs)
    assert stacks.missing_features("megatron-core-2025", 3, "interleaved", 4, "fp8") == []
    with pytest.raises(ValueError):
        stacks.missing_features("no-such-stack", 0, "1f1b", 1)


def test_validation_rows_run_on_stacks_that_have_their_features():
    with warnings.catch_warnings():
        warnings.simplefilter("error", stacks.StackFeatureWarning)
        v = step.mfu_validation(sets=("megatron-bridge-2511",))
    z3 = v[v["zero_stage"] == 3]
    assert len(z3) == 2 and (z3["stack"] == "megatron-core-2025").all()


def test_megatron_bridge_2608_rows_run_without_the_moe_host_cost():
    # Megatron-Bridge 26.08 Qwen3-30B-A3B MXFP8 on 8 GB200 (MBS 4): 39,936 tokens/s/GPU, and on
    # 8 GB300 (MBS 8): 44,544; the recipe captures the whole iteration in one CUDA graph
    # (perf_recipes/qwen/common.py _enable_hybridep_full_iteration_mxfp8), so the stack
    # megatron-core-2026 has no MoE host cost. Held out: predicted within -10% / +30% (+3.1% /
    # -0.2% with the kernel mechanisms on by default, GEMMs by shape and FP8 as run; +28% / +14%
    # without them); with the 2025 host cost and no EP overlap it would be -38% / -26%.
    assert stacks.load_stack("megatron-core-2026").cuda_graphs == "full_iteration"
    v = step.mfu_validation(sets=("megatron-bridge-2608",)).set_index("run_id")
    runs = llmcost.load_published_runs().set_index("run_id")
    for run, tokens in (("mb2608-gb200-qwen3-30b-a3b-mxfp8", 39936),
                        ("mb2608-gb300-qwen3-30b-a3b-mxfp8", 44544)):
        assert runs.loc[run, "reported_tokens_per_sec_per_gpu"] == tokens
        assert v.loc[run, "split"] == "held-out" and v.loc[run, "moe_host_s"] == 0.0
        assert -0.10 < v.loc[run, "error"] < 0.30, run
    eager = step.mfu_validation(sets=("megatron-bridge-2608",), physics={
        "moe_layer_host_s": 0.312e-3, "moe_expert_host_s": 0.400e-3, "ep_overlap": "none"})
    eager = eager.set_index("run_id")
    assert (eager.loc[["mb2608-gb200-qwen3-30b-a3b-mxfp8", "mb2608-gb300-qwen3-30b-a3b-mxfp8"],
                      "error"] < -0.2).all()
