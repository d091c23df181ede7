"""Context parallelism's K/V exchange: overlapped ring or exposed all-gather (step.cp_exposure).

Sources: Transformer Engine's ``AttnFuncWithCPAndKVP2P`` (NVIDIA/TransformerEngine
``transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py``: "Exchange KV
between CP ranks with P2P in ring topology. Split attention compute into multiple steps, and
overlap current-step compute with next-step communication"); Llama 3 (arXiv:2407.21783 §3.3.2):
K and V all-gathered, then the local queries' attention computed (exposed).
"""

import numpy as np
import pytest

from llmcost.training import accuracy, attention, comm, step
from llmcost.training.options import StepOptions
from llmcost.training.step_validation import CP_ALL_GATHER_SETS


def test_ring_exposure_by_hand():
    # cp 4: 3 ring steps of 1 s transfer each (3 s in all), 4 compute steps of 1 s (4 s):
    # each transfer fits its step and costs only the contention, 3 × 0.189 s
    e_f, e_b = step.cp_exposure(3.0, 6.0, 4.0, 4.0, 4, True)
    assert float(e_f) == pytest.approx(3 * comm.OVERLAP_SLOWDOWN, rel=1e-12)
    # backward: 2 s per step against 1 s of compute: 1 s sticks out per step, plus the
    # contention of the 1 s that fits: 3 × (1 + 0.189)
    assert float(e_b) == pytest.approx(3 * (1.0 + comm.OVERLAP_SLOWDOWN), rel=1e-12)


def test_ring_without_compute_is_the_exposed_exchange():
    e_f, e_b = step.cp_exposure(np.array([2.0, 5.0]), 7.0, 0.0, 0.0, 8, True)
    assert np.allclose(e_f, [2.0, 5.0], rtol=1e-12)
    assert float(e_b) == pytest.approx(7.0, rel=1e-12)


def test_all_gather_and_cp1_are_unchanged():
    assert step.cp_exposure(3.0, 6.0, 4.0, 4.0, 4, False) == (3.0, 6.0)
    e_f, e_b = step.cp_exposure(0.0, 0.0, 4.0, 4.0, 1, True)
    assert float(e_f) == 0.0 and float(e_b) == 0.0


def test_ring_never_costs_more_than_the_exposed_exchange():
    rng = np.random.default_rng(0)
    c, a = rng.uniform(0, 10, 50), rng.uniform(0, 10, 50)
    cp = rng.integers(2, 33, 50)
    e_f, _ = step.cp_exposure(c, c, a, a, cp, True)
    assert np.all(e_f <= c + 1e-12) and np.all(e_f >= 0.0)


def test_option_resolves_by_stack():
    assert StepOptions(stack="megatron-core-2024").resolve("H100-SXM").cp_overlap
    assert "megatron-core-2024" in attention.CP_P2P_STACKS
    assert not StepOptions(stack="pytorch-fsdp2-2024").resolve("H100-SXM").cp_overlap
    assert not StepOptions(stack="megatron-core-2024",
                           cp_overlap=False).resolve("H100-SXM").cp_overlap


def test_bad_option_names_the_field():
    with pytest.raises(ValueError, match="cp_overlap='ring'"):
        StepOptions(cp_overlap="ring")


@pytest.fixture(scope="module")
def tables():
    return accuracy.validation_table(cp_overlap=False), accuracy.validation_table()


def test_nemo_long_context_rows_move_toward_published(tables):
    # NVIDIA NeMo's long-sequence benchmark (Megatron-Core + Transformer Engine, CP 4 to 32):
    # with the ring overlapped the predicted MFU is nearer the published TFLOP/s on every row
    off, on = (t.set_index("run_id") for t in tables)
    rows = [r for r in on.index if r.startswith("nemo2403-h100-llama2-7b") and on.loc[r, "cp"] >= 4]
    assert len(rows) >= 4
    for r in rows:
        assert abs(on.loc[r, "error"]) < abs(off.loc[r, "error"]), r


def test_llama3_rows_keep_the_all_gather(tables):
    off, on = (t.set_index("run_id") for t in tables)
    rows = on.index[on["set"].isin(CP_ALL_GATHER_SETS)]
    assert len(rows) == 3
    assert np.allclose(on.loc[rows, "predicted_mfu"], off.loc[rows, "predicted_mfu"], rtol=1e-12)


def test_overlap_is_judged_by_the_rule_and_its_one_miss_is_named():
    # The ring overlap is how Transformer Engine's context parallelism runs
    # (AttnFuncWithCPAndKVP2P: "overlap current-step compute with next-step communication"), a
    # stack's behaviour like its TP, PP and DP overlaps, so it stays on. Judged by the kernel
    # mechanisms' rule (accuracy.mechanism_comparison) it lowers the held-out mean and keeps the
    # A100 Megatron goal, and worsens one regime beyond its noise: the two Hopper Megatron FP8
    # runs at <= 32k of >= 10B, whose errors agree to 0.2 point (their standard error), by 0.3
    # point (8.8 -> 9.1 %, measured with the Megatron-Bridge rows' BF16 gradient recipe). Named
    # here and printed by notebook 04b, so that another regime that worsens fails this test.
    per, verdict = accuracy.cp_overlap_comparison()
    assert verdict["all_mean"][1] < verdict["all_mean"][0]
    assert verdict["a100_megatron_mean"] <= 0.03 and verdict["a100_megatron_max"] <= 0.10 + 1e-9
    miss = "Hopper · Megatron 3D · dense · FP8 · ≤ 32k · ≥ 10B"
    assert verdict["worse_regimes"] in ([], [miss])
    if verdict["worse_regimes"]:
        assert 0 < per.loc[miss, "on"] - per.loc[miss, "off"] < 0.005


def test_ring_merges_are_priced_by_hand():
    # Llama 2 7B (32 layers, 32 heads of 128), 8,192 tokens, CP 2, one micro-batch: each rank
    # holds x = 4,096 tokens and merges one ring step's output forward (10 B per element) and
    # backward (4 B): 32 · 14 · 1 · 4,096 · 32 · 128 bytes at the sustained HBM rate
    # (3.35 TB/s × hbm_fraction 0.90 × KERNEL_EFFICIENCY); the all-gather merges nothing
    import llmcost
    from llmcost import parallel
    from llmcost.core.hardware import Cluster
    from llmcost.training.options import KERNEL_EFFICIENCY
    spec = llmcost.load_model("llama-2-7b")
    h100 = llmcost.load_accelerator("H100-SXM")
    plan = parallel.make_plan(spec, 16, 8, tp=1, pp=1, cp=2, micro_batch_size=1, seq_len=8192,
                              zero_stage=1)
    ring = step.step_time(spec, Cluster(h100, 16), plan, 8192, cp_overlap=True)
    gather = step.step_time(spec, Cluster(h100, 16), plan, 8192, cp_overlap=False)
    merges = 32 * (10 + 4) * 1 * 4096 * 32 * 128 / (3.35e12 * 0.90 * KERNEL_EFFICIENCY)
    assert ring.memory_bound_s - gather.memory_bound_s == pytest.approx(merges, rel=1e-9)
    assert ring.cp_comm_s < gather.cp_comm_s
