"""The worst H100 MoE rows' recipe against the later ones', setting by setting
(``step_validation.h100_qwen3_recipe_table``, ``h100_qwen3_priced_setting``): each H100
Qwen3-30B-A3B FP8 row is priced with the plan, EP overlap and dispatcher its release's recipe
set.

Sources (NVIDIA-NeMo/Megatron-Bridge, read by hand for this test):
* 25.11, release tag v0.2.0 = 7af9601c9, scripts/performance/configs/qwen3/workload_base_configs.py:
  ``BASE_QWEN3_30B_A3B_CONFIG = WorkloadBaseConfig(expert_model_parallel_size=8,
  expert_tensor_parallel_size=1, global_batch_size=512)``;
  ``QWEN3_30B_A3B_H100_FP8_CS_BASE_CONFIG = replace(BASE_QWEN3_30B_A3B_CONFIG, num_gpus=16,
  pipeline_model_parallel_size=2, virtual_pipeline_model_parallel_size=12,
  moe_a2a_overlap=True)``; no flex backend: the Qwen3 provider's ``moe_token_dispatcher_type =
  "alltoall"``.
* 26.02, v0.3.0 = 21b02e0cf, scripts/performance/configs/qwen/qwen3_workload_base_configs.py:
  ``QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_FP8_CS_V1 = replace(BASE_QWEN3_30B_A3B_CONFIG,
  num_gpus=16, global_batch_size=1024, pipeline_model_parallel_size=2,
  virtual_pipeline_model_parallel_size=12, moe_a2a_overlap=True,
  moe_flex_dispatcher_backend="deepep")`` (training/flex_dispatcher_backend.py: DeepEP on a
  compute-capability-9 GPU sets ``moe_token_dispatcher_type = "flex"``).
* 26.02.01 (v0.3.1 = 9c9dd8489), 26.04 (v0.4.0 = 0fbfe7d3e), 26.06 (v0.5.0 = fcbb60311), the same
  file: ``QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_FP8_CS_V1 = replace(BASE_QWEN3_30B_A3B_CONFIG,
  num_gpus=16, global_batch_size=1024, expert_model_parallel_size=16, moe_a2a_overlap=False,
  moe_flex_dispatcher_backend="hybridep")``; qwen3_llm_pretrain.py
  ``qwen3_30b_a3b_pretrain_config_h100`` sets ``moe_token_dispatcher_type = "flex"``.
* Every release: scripts/performance/utils/utils.py ``WorkloadBaseConfig``: pipeline 1,
  micro_batch_size 1, cuda_graph_impl None by default; qwen3_llm_pretrain.py
  ``set_qwen3_common_configs``: ``recompute_granularity = None``.
"""

import pytest

from llmcost.training import step_validation

#: The recipe at each release, read from the sources above: PP, VP (1 without interleaving),
#: EP, DP (16 GPUs / PP at TP 1), GBS, MBS, EP overlap, dispatcher (Megatron-Core's all-to-all:
#: the engine's per-expert dispatch; DeepEP / HybridEP: per node), CUDA graphs, recomputation.
RECIPE = {
    "25.11": (2, 12, 8, 8, 512, 1, "merged_1f1b", "per_expert", "none", "none"),
    "26.02": (2, 12, 8, 8, 1024, 1, "merged_1f1b", "per_node", "none", "none"),
    "26.02.01": (1, 1, 16, 16, 1024, 1, "none", "per_node", "none", "none"),
    "26.04": (1, 1, 16, 16, 1024, 1, "none", "per_node", "none", "none"),
    "26.06": (1, 1, 16, 16, 1024, 1, "none", "per_node", "none", "none"),
}
KEYS = ("pp", "vp", "ep", "dp", "gbs", "mbs", "ep_overlap", "dispatch", "cuda_graphs",
        "recompute")


@pytest.mark.parametrize("release", list(RECIPE))
def test_each_row_is_priced_with_its_releases_recipe(release):
    run_id = step_validation.H100_QWEN3_RELEASES[release][0]
    for key, want in zip(KEYS, RECIPE[release]):
        assert step_validation.h100_qwen3_priced_setting(run_id, key) == want, (release, key)


def test_the_table_parts_the_recipes_where_the_sources_do():
    """Settings whose values differ across the releases by the sources above, and one that does
    not (the micro-batch), as the table assembles them; each priced one priced as run."""
    t = step_validation.h100_qwen3_recipe_table()
    differ = {k for i, k in enumerate(KEYS) if len({RECIPE[r][i] for r in RECIPE}) > 1}
    assert differ == {"pp", "vp", "ep", "dp", "gbs", "ep_overlap", "dispatch"}
    by_engine = t.set_index("engine")
    for key in KEYS:
        row = by_engine.loc[key]
        assert bool(row["differs"]) == (key in differ), key
        assert row["priced_as_run"] is not None and bool(row["priced_as_run"]), key


def test_unknown_setting_is_refused():
    with pytest.raises(ValueError, match="key='tp'"):
        step_validation.h100_qwen3_priced_setting("mb2604-h100-qwen3-30b-a3b-fp8cs", "tp")


def test_the_path_from_2602_ends_at_the_260201_recipe_as_priced():
    """The 26.02 row moved to 26.02.01's recipe (PP 1, no interleaving, EP 16, no EP overlap: the
    sources above; the same GPUs, model, GBS 1024, MBS 1 and stack) is priced as the 26.02.01
    row is: the same plan, the same step time."""
    t = step_validation.row_readings("mb2602-h100-qwen3-30b-a3b-fp8cs",
                                     step_validation.MB2602_TO_260201_READINGS)
    row = step_validation.row_readings("mb260201-h100-qwen3-30b-a3b-fp8cs", {}).iloc[0]
    last = t.iloc[-1]
    assert last["plan"] == row["plan"]
    assert last["step_time_s"] == pytest.approx(row["step_time_s"], rel=1e-9)
