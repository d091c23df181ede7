"""Megatron-Bridge 25.11's Qwen3-235B-A22B lines, read against their sources.

Sources (NVIDIA-NeMo/Megatron-Bridge at the commits named):

* docs/performance-summary.md at 5776a6d90 ('25.11 summary typo corrections', 2025-12-10),
  section '25.11 NeMo Container' (the same four lines in docs/performance-summary-archive.md at
  067f987df). Columns: Model, #-GPUs, Precision, GBS, MBS, Sequence Length, FSDP, TP, PP, CP, VP,
  EP, GA, Tokens / sec / GPU, Model TFLOP / sec / GPU:

  - DGX-GB300 '| Qwen3_235B_a22B | 256 | BF16 | 8192 | 2 | 4096 | 0 | 1 | 4 | 1 | 12 | 16 | 32 |
    6131 | 907 |'
  - DGX-GB200 '| Qwen3_235B_a22B | 256 | BF16 | 8192 | 1 | 4096 | 0 | 1 | 8 | 1 | 3 | 32 | 256 |
    4916 | 728 |'
  - DGX-B200 '| Qwen3_235B_a22B | 64 | FP8-MX | 1024 | 1 | 4096 | 0 | 1 | 8 | 1 | 2 | 8 | 128 |
    3269 | 484 |'
  - DGX-H100 '| Qwen3_235B_a22B | 256 | FP8-CS | 2048 | 1 | 4096 | 0 | 2 | 8 | 1 | 4 | 32 | 128 |
    1575 | 233 |'

  At the table's first commit 97ad8cc6f the GB300 line read '| Qwen3_235B_a22B | 64 | FP8-MX |
  1024 | 1 | 4096 | 0 | 2 | 1 | 1 | 1 | 64 | 32 | 5350 | 792 |': 1804c076f ('Ko3n1g/instinct79/patch
  1 (#1669)', 2025-12-09) replaced it, GA 32 kept.
* scripts/performance/configs/qwen/qwen3_workload_base_configs.py at 5776a6d90: line 23
  'expert_tensor_parallel_size=1' (BASE_QWEN3_235B_A22B_CONFIG); the B200 FP8-CS config (= FP8-MX,
  line 120), lines 109-117: 'num_gpus=64, pipeline_model_parallel_size=8,
  virtual_pipeline_model_parallel_size=4, expert_model_parallel_size=8, global_batch_size=1024,
  moe_a2a_overlap=True'; the H100 FP8-CS config, lines 135-144: 'num_gpus=256,
  tensor_model_parallel_size=2, pipeline_model_parallel_size=8,
  virtual_pipeline_model_parallel_size=4, expert_model_parallel_size=32, global_batch_size=2048,
  moe_a2a_overlap=True'; the GB300 and GB200 configs 'moe_flex_dispatcher_backend="hybridep"'.
  cb62f8620 (PR #1348, the dropless recipes, 2025-11-21) changed the B200 configs'
  'virtual_pipeline_model_parallel_size=2' to 4 and added 'moe_a2a_overlap=True'.
* scripts/performance/configs/qwen/qwen3_llm_pretrain.py at 5776a6d90, line 182: the H100
  config passes 'CommOverlapConfig(tp_comm_overlap=False)'.
"""

import hashlib

import pandas as pd
import pytest

from llmcost.core.catalog import DATA_DIR, load_model
from llmcost.training import compute, parallel
from llmcost.training import step_validation as sv

RUNS = pd.read_csv(DATA_DIR / "published_runs.csv").set_index("run_id")
RAW = pd.read_csv(DATA_DIR / "validation_mfu.csv").set_index("run_id")

#: (run id, system, GPUs, precision, GBS, MBS, TP, PP, VP, EP, GA, tokens/s/GPU, TFLOP/s/GPU),
#: the table's columns as transcribed in the module docstring
LINES = (
    ("mb2511-gb300-qwen3-235b-a22b-bf16", "GB300", 256, "BF16", 8192, 2, 1, 4, 12, 16, 32,
     6131, 907),
    ("mb2511-gb200-qwen3-235b-a22b-bf16", "GB200", 256, "BF16", 8192, 1, 1, 8, 3, 32, 256,
     4916, 728),
    ("mb2511-b200-qwen3-235b-a22b-fp8mx", "B200", 64, "FP8-MX", 1024, 1, 1, 8, 2, 8, 128,
     3269, 484),
    ("mb2511-h100-qwen3-235b-a22b-fp8cs", "H100", 256, "FP8-CS", 2048, 1, 2, 8, 4, 32, 128,
     1575, 233),
)


@pytest.mark.parametrize("line", LINES, ids=[x[0] for x in LINES])
def test_each_row_holds_its_table_line(line):
    rid, system, gpus, prec, gbs, mbs, tp, pp, vp, ep, ga, tokens, tflops = line
    r, c = RUNS.loc[rid], RAW.loc[rid]
    assert c["set"] == "megatron-bridge-2511" and r["catalog_model"] == "qwen3-235b-a22b"
    assert "section '25.11 NeMo Container'" in r["source"] and "5776a6d90" in r["source"]
    assert f"System: DGX-{system}" in c["notes"] and rid.split("-")[1] == system.lower()
    assert {"BF16": "bf16", "FP8-MX": "fp8mx", "FP8-CS": "fp8cs"}[prec] == rid.split("-")[-1]
    assert c["dtype"] == ("bf16" if prec == "BF16" else "fp8")
    assert (int(r["n_accelerators"]), int(r["seq_len"])) == (gpus, 4096)
    assert int(r["global_batch_tokens"]) == gbs * 4096 and int(c["micro_batch_size"]) == mbs
    assert (int(r["tp"]), int(r["pp"]), int(r["cp"]), int(r["ep"])) == (tp, pp, 1, ep)
    assert int(r["dp"]) == gpus // (tp * pp)                # DP = GPUs / (TP x PP x CP)
    assert (r["reported_tokens_per_sec_per_gpu"], r["reported_tflops_per_gpu"]) == (tokens, tflops)
    # the split by the md5 rule, fixed before the row's error was computed
    cal = int(hashlib.md5(rid.encode()).hexdigest(), 16) % 4 == 0
    assert c["split"] == ("calibration" if cal else "held-out")
    # GA = GBS / (MBS x DP): the table's column, except GB300's (the replaced line's 32)
    assert (gbs // (mbs * int(r["dp"])) == ga) == (system != "GB300")
    # NVIDIA's own FLOPs per token (TFLOP/s ÷ tokens/s) within 0.5% of the catalogue's causal
    # count at 4,096 tokens, 148.3 GFLOP; the full-mask count the MFU is read on is 11-12% more
    model = load_model("qwen3-235b-a22b")
    causal = compute.model_flops_per_token(model, 4096, causal=True)
    assert tflops * 1e12 / tokens == pytest.approx(causal, rel=0.005)
    assert compute.model_flops_per_token(model, 4096) / causal == pytest.approx(1.128, abs=0.001)


def test_the_gb300_lines_ga_is_the_replaced_lines():
    # by hand: GBS 8192 = MBS 2 x DP 64 x GA 64, not 32; the line 1804c076f replaced, GBS 1024,
    # MBS 1, TP 2 on 64 GPUs (DP 32), had GA 1024 / 32 = 32; the row says so
    r = RUNS.loc["mb2511-gb300-qwen3-235b-a22b-bf16"]
    assert 8192 // (2 * int(r["dp"])) == 64 and 1024 // (1 * 64 // 2) == 32
    assert "The table's GA column says 32, not 64" in r["notes"]


def test_the_b200_row_prices_the_dropless_recipes_vp_and_overlap():
    """The table's VP 2 is the token-dropping recipe's (the 25.09 line's plan columns); the
    dropless recipe the 25.11 container shipped is VP 4 with the batch-level EP overlap: the row
    prices that, a reading made before its error was computed (not one corrected after)."""
    rid = "mb2511-b200-qwen3-235b-a22b-fp8mx"
    c = RAW.loc[rid]
    assert int(c["pp_virtual_stages"]) == 4 and "not the table's VP 2" in c["notes"]
    assert "before its error was computed" in c["notes"] and "cb62f8620" in c["notes"]
    assert rid not in sv.PLAN_CORRECTED_AFTER_ERROR
    # the 25.09 token-dropping B200 line has the same plan columns (VP 2)
    assert int(RAW.loc["mb2509-b200-qwen3-235b-a22b-fp8mx", "pp_virtual_stages"]) == 2
    # 94 layers + embedding + loss = 96 slots on PP 8 x VP 4 = 32 chunks of 3
    assert c["pp_split"] == "embedding_and_loss" and 96 % (8 * 4) == 0


def test_recipes_ep_overlap_dispatcher_and_tp_overlap():
    # moe_a2a_overlap=True (H100 and B200 configs): Megatron-Core's batch-level overlap; the
    # GB300 and GB200 configs leave it unset (False) and run HybridEP: the flex dispatcher's
    # stack; the H100 config turns TP communication overlap off, with sequence parallelism at TP 2
    for rid in ("mb2511-h100-qwen3-235b-a22b-fp8cs", "mb2511-b200-qwen3-235b-a22b-fp8mx"):
        assert sv.EP_OVERLAP_OF_ROW[rid] == "merged_1f1b"
        assert RAW.loc[rid, "stack"] == "megatron-core-2024"
        assert "'alltoall'" in RAW.loc[rid, "notes"]
    for rid in ("mb2511-gb300-qwen3-235b-a22b-bf16", "mb2511-gb200-qwen3-235b-a22b-bf16"):
        assert rid not in sv.EP_OVERLAP_OF_ROW
        assert RAW.loc[rid, "stack"] == "megatron-core-2025"
        assert "'hybridep'" in RAW.loc[rid, "notes"]
    h = RAW.loc["mb2511-h100-qwen3-235b-a22b-fp8cs"]
    assert h["comm_tp_overlap"] == "none" and bool(h["sequence_parallel"])
    assert "tp_comm_overlap=False" in h["notes"]


def test_the_h100_row_is_folded():
    """EP 32 over TP 2 x PP 8 on 256 GPUs: DP 16, so EP exceeds DP x CP; the recipe's experts' TP
    1 folds EP over TP x DP x CP = 32 ranks, which ParallelPlan.etp expresses."""
    rid = "mb2511-h100-qwen3-235b-a22b-fp8cs"
    r = RUNS.loc[rid]
    assert r["etp"] == 1 and r["ep"] > r["dp"] * r["cp"] and (r["tp"] * r["dp"]) % r["ep"] == 0
    assert "MoE parallel folding" in r["notes"] and "'expert_tensor_parallel_size=1'" in r["notes"]
    model = load_model("qwen3-235b-a22b")
    kw = dict(tp=2, pp=8, ep=32, micro_batch_size=1, seq_len=4096, pp_split="embedding_and_loss")
    with pytest.raises(ValueError, match=r"ep=32 must divide dp·cp.*with etp=1"):
        parallel.make_plan(model, 256, 2048, **kw)
    assert parallel.make_plan(model, 256, 2048, etp=1, **kw).etp == 1
    # the TP 1 rows need no folding: EP divides DP x CP
    for rid in ("mb2511-gb300-qwen3-235b-a22b-bf16", "mb2511-gb200-qwen3-235b-a22b-bf16",
                "mb2511-b200-qwen3-235b-a22b-fp8mx"):
        r = RUNS.loc[rid]
        assert pd.isna(r["etp"]) and r["dp"] % r["ep"] == 0


def test_the_moe_host_fit_keeps_the_rows_it_was_fitted_on():
    """The two calibration rows (md5 rule) came into megatron-bridge-2511, a set of
    MOE_HOST_FIT_SETS, after the MoE host constants were fitted: left out of that fit as the sets
    written after it are. Exactly the MoE calibration rows among the four."""
    cal = {x[0] for x in LINES if RAW.loc[x[0], "split"] == "calibration"}
    assert cal == set(sv.MOE_HOST_FIT_LATER_ROWS) == {"mb2511-gb300-qwen3-235b-a22b-bf16",
                                                      "mb2511-h100-qwen3-235b-a22b-fp8cs"}
    assert "megatron-bridge-2511" in sv.MOE_HOST_FIT_SETS
    for rid in cal:
        assert "not fitted on" in RAW.loc[rid, "notes"]
