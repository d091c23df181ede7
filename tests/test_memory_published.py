"""The memory reserve policy (``memory.PUBLISHED_PLAN_RESERVE``) and the published plans of the
validation rows (``step_validation.published_plan_memory``): every plan in
data/validation_mfu.csv ran on its hardware, so each must fit its HBM under the memory model.
The source of each check is the run itself (its row's source in data/published_runs.csv)."""

import pytest

from llmcost.training import memory, step_validation

#: Published plans the memory model still counts above the whole HBM: the model overcounts
#: them (each ran). Named so that a fix shows (the test fails when one fits) and a new
#: overcount cannot hide. The causes are not established; candidates, none modelled yet:
KNOWN_OVERCOUNTS = {
    # DeepSpeed's 530B ZeRO-3 run on 640 A100s (105%): activation checkpoint partitioning or
    # offload (ZeRO-R), not in the row's settings.
    "megatron21-t2-zero3-530b-640",
    # DeepSeek-V3's own run (146%): recomputed RMSNorm and MLA up-projections, FP8 activation
    # caches, EMA on CPU, the shared embedding / head of DualPipe (arXiv:2412.19437 §3.2.3).
    "deepseek-v3-pretrain",
    # Megatron-Bridge GB200 rows (100-197%): settings of their recipes the rows do not carry
    # (recomputed modules, activation offload, Megatron-FSDP buffers), not read yet.
    "mb2511-gb200-llama-3.1-70b-fp8cs",
    "mb2511-gb200-llama-3.1-405b-fp8cs",
    "mb2511-gb200-deepseek-v3-bf16",
    "mb2608-gb200-deepseek-v3-mxfp8",
}
# (torchtitan's 8-GPU FSDP runs of Llama 3 8B, counted at 116% of an 80 GB H100, fit the 96 GB
# HBM2e of the H100s they ran on, pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md)


@pytest.fixture(scope="module")
def table():
    return step_validation.published_plan_memory()


def test_policy_is_stated():
    # A plan that ran is held to the whole HBM; the planning margin stays for the search.
    assert memory.PUBLISHED_PLAN_RESERVE == 0.0
    assert memory.DEFAULT_RESERVE == 0.10
    assert memory.fits(80.0, 80.0, memory.PUBLISHED_PLAN_RESERVE)
    assert not memory.fits(80.0, 80.0, memory.DEFAULT_RESERVE)


def test_every_published_plan_fits_but_the_named_overcounts(table):
    assert len(table) >= 75
    not_fitting = set(table.index[~table["fits"]])
    assert not_fitting == KNOWN_OVERCOUNTS
    # the policy is the whole HBM: fits <=> counted bytes <= HBM
    assert (table["fits"] == (table["memory_bytes"] <= table["hbm_bytes"])).all()
    # the planning margin turns away published plans the policy keeps (why it is not used here)
    assert (table["fits"] & ~table["fits_planning_reserve"]).sum() >= 5


def test_llama3_405b_published_plan_fits(table):
    # Llama 3 405B's stage-1 plan (arXiv:2407.21783 Table 4: TP 8, PP 16, V = 8 assumed, DP 64,
    # 8,192 GPUs, no recomputation): 76.7 GiB counted of 80 (a regression pin of the memory
    # model's own count, beside the sourced fact that it ran): fits the whole HBM, not the 10%
    # planning margin.
    r = table.loc["llama3-t4-405b-8192gpu"]
    assert r["memory_bytes"] / 2**30 == pytest.approx(76.7, abs=0.05)
    assert r["fits"] and not r["fits_planning_reserve"]
    assert r["headroom_bytes"] / 2**30 == pytest.approx(3.3, abs=0.05)
