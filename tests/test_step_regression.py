"""REGRESSION PIN (labelled as such): the step-time and memory engines' outputs are unchanged by
the refactoring (``step.step_arrays`` split into per-part functions, the shared shapes in
``llmcost/shapes.py``). The pinned values were recorded by ``tests/regression_pins.py`` from the
code *before* the split (commit 9e2a685); they are the code's own outputs, not facts about the
world. The sourced checks sit beside them: published MFUs and Korthikanti et al. 2022 Table 4
in ``tests/test_step.py``, hand-derived part formulas in ``tests/test_step_parts.py``.

Re-recorded for the ZeRO-3 and MoE physics (NCCL's cost model for DP/ZeRO collectives, ZeRO-3 per-layer exposure
with prefetch and overlap contention, MoE routing factor): see ``regression_pins.py``.

Re-recorded on branch moe-dispatch (MoE dispatch deduplication, FSDP2 reshard_after_forward,
pipeline flushes): every engine grid, ranking and step pin unchanged; the validation pin gains
the NeMo AutoModel MoE rows and deepseek-v3-pretrain moves (see the test).

Re-recorded on branch issue29 (the MoE layers' host cost per micro-batch,
``training.moe_layer``, and its ``moe_host_s`` part): every MoE grid, ranking, step and
validation value moves (the MoE rows slower); dense outputs unchanged but for the new part (0).
Re-recorded on branch issue29 again (the multi-token-prediction modules' memory on the last
stage, ``memory.mtp_stage_params``): only DeepSeek-V3's memory grid moves (its MTP module, up
to +21% on one-stage plans); every step, ranking and validation pin unchanged.

Re-recorded on branch issue28 (context parallelism's K/V ring overlapped with the attention core
on the Transformer Engine stacks, the default among them, and its per-step output merges priced,
``step.cp_exposure``): only the grids and the step with CP > 1 move (the CP grids' ``cp_comm_s``
falls, ``memory_bound_s`` gains the merges; the Llama 3 405B 128K step on the default stack from
14.27 s to 14.01 s, its ``cp_comm_s`` 0.511 -> 0.097 s); dense CP-1 and MoE outputs unchanged.

Re-recorded on branch issue29b (the MoE host cost's per-layer term is the dropless
dispatcher's sync, none under token-dropping routing padded to capacity; both constants re-fitted
with the Megatron-Bridge 25.09 token-dropping calibration rows: 0 / 0.376 ms -> 1.587 / 0.2515 ms):
every MoE grid, ranking, step and validation value moves; dense outputs unchanged.

Re-recorded on main after merging both (issue28's CP ring and issue29b's dropless sync
together): the values each branch moved, as the two changes combine.

Re-recorded when FP8 as run priced Transformer Engine's own casts on the Megatron-Core stacks
(``elementwise.te_layer_cast_bytes``: the sequence-parallel shard cast before the all-gather and
the gathered copy transposed, the norm's fused FP8 output or amax; TransformerEngine 2.14 as
Megatron-Bridge v0.4.0 pins it): only the four engine grids of the FP8 option set move (their
memory-bound time, and the exposed communication that overlaps it); every ranking, step,
validation and layer-table pin unchanged.

Re-recorded when the plan search's ``pp_split: auto`` offered Megatron's embedding-and-loss
split at any virtual-stage count (pp·v dividing the layers + 2): the rankings count the new
candidates (4,703 -> 4,815; 4,180 -> 4,227; 17,172 -> 17,724) and a new interleaved
embedding-and-loss plan enters the MoE grid's top five; every plan ranked before keeps its
step time and MFU.

Re-recorded for a context-parallel ring's calls without a mask at the kernel's unmasked rate
(``StepOptions.ring_unmasked``): only CP > 1 plans on a ring stack move (the Llama 3.1 8B CP
grid's default and FP8 sets, the Llama 3.1 405B 128K step 14.01 s -> 13.00 s, NeMo AutoModel's
Llama 3 70B row); every ranking and every other pin unchanged.

Re-recorded when Megatron-Core overlaps pipeline sends only under the interleaved schedule
(``data/stacks.csv`` pp_overlap "interleaved", NVIDIA/Megatron-LM schedules.py refuses
overlap_p2p_comm without it) and the MoE host constants were re-fitted on that account
(1.521 / 0.2786 -> 1.588 / 0.2739 ms): the grids' 1F1B plans on the default stack gain their
``pp_comm_s``, every MoE grid, ranking and validation value moves through the host cost, the
dense steps with pp > 1 at v = 1 slow by their sends (e.g. 3.398 -> 3.404 s); interleaved and
pp = 1 dense plans unchanged.

Re-recorded when an MoE layer at TP > 1 followed Megatron-Core's alltoall dispatcher
(``token_dispatcher.py`` @ d98e8a64: each rank sends its own x/tp tokens' copies over EP, then
the expert-TP group all-gathers the routed copies and reduce-scatters them back; the shared
experts keep their TP collectives; the rank keeps x·k·h·etp/tp routed copies; the experts' own
rank order etp-ep-edp) and MoE parallel folding (``ParallelPlan.etp``) came in: only the two MoE
grids with TP > 1 move (their all-to-all halves at TP 2, the TP links gain the gather; their
memory grows by the gathered copies) and the rankings, fewer plans fitting (17,724 -> 14,841);
every step, validation and layer-table pin unchanged.

A deliberate change to the model must re-record the pins (``python tests/regression_pins.py``)
and say so in its commit.

Re-recorded for ZB-H1 with fewer micro-batches than stages (``parallel.bubble_fraction``:
(2p − m − 1)/(3m), counted slot by slot, where 2(p − 1)/(3m) was exact only at m = 1): only the
engine grids' ZB-H1 rows with m < p move (their bubble, step time, MFU, HFU and tokens/s); every
ranking, step, validation and layer-table pin unchanged.

Re-recorded when the attention kernel's curve came on by default on the FlashAttention stacks
(``StepOptions.attention_curve="flash"``: PyTorch SDPA's FlashAttention-2 at its measured H100
rate by length): of the pinned values only NeMo AutoModel's Llama 3 70B row moves (its
``pytorch-fsdp2-2024`` stack; predicted MFU 37.5% -> 36.6%); every engine grid, ranking, step
and layer-table pin, all on the Megatron-Core stack or on A100, unchanged.
"""

import json

import numpy as np
import pytest

import regression_pins as pins

REL = 1e-12   # the refactoring keeps the arithmetic; only rounding-order noise is allowed


@pytest.fixture(scope="module")
def pinned():
    return json.loads(pins.PIN_FILE.read_text())


@pytest.fixture(scope="module")
def current():
    return pins.record()


def test_engine_outputs_unchanged(pinned, current):
    assert len(current["engine"]) == len(pinned["engine"]) == 19
    for old, new in zip(pinned["engine"], current["engine"]):
        assert (old["grid"], old["options"]) == (new["grid"], new["options"])
        for key, vals in old["values"].items():
            np.testing.assert_allclose(new["values"][key], vals, rtol=REL, atol=0,
                                       err_msg=f"grid {old['grid']} options {old['options']} "
                                               f"{key}")


def test_rankings_unchanged(pinned, current):
    for old, new in zip(pinned["rank"], current["rank"]):
        assert new["n_ranked"] == old["n_ranked"]
        for a, b in zip(old["top"], new["top"]):
            assert {k: v for k, v in a.items() if k not in ("step_time_s", "mfu")} == \
                {k: v for k, v in b.items() if k not in ("step_time_s", "mfu")}
            assert b["step_time_s"] == pytest.approx(a["step_time_s"], rel=REL)
            assert b["mfu"] == pytest.approx(a["mfu"], rel=REL)


def test_step_time_and_validation_unchanged(pinned, current):
    for old, new in zip(pinned["step_time"], current["step_time"]):
        assert new["plan"] == old["plan"]
        assert new["parts"] == pytest.approx(old["parts"], rel=REL)
    # every row pinned before the split is unchanged (rows added since, e.g. Llama 3 Table 4's,
    # have their sourced checks in test_step.py)
    new_v = {r["run_id"]: r for r in current["validation"]}
    # every row of data/validation_mfu.csv (re-recorded on branch moe-dispatch with the
    # four NeMo AutoModel MoE rows added: the one pinned row that moved is deepseek-v3-pretrain,
    # 42.1% -> 62.0% predicted MFU, its stack's per-node dispatch with a 4-node limit; on
    # branch fix-moe 62.0% -> 63.5%, its FP8 dispatch / BF16 combine and the node-limited count
    # by DeepSeek-V3's §2.1.2 rule: the only value re-recorded, every other pin unchanged;
    # on branch issue29 61.3% -> 63.5%: DeepSeek-V3's MTP module counted (catalogue
    # mtp_depth 1: +3.8% model FLOPs, its layer and head on the last stage), re-recorded with
    # the deepseek-v3 engine grid; every other pin unchanged)
    assert len(pinned["validation"]) == 35
    for r in pinned["validation"]:
        assert new_v[r["run_id"]]["predicted_mfu"] == pytest.approx(r["predicted_mfu"], rel=REL)
    for k in ("forward_ms", "backward_ms"):
        assert current["layer_table"][k] == pytest.approx(pinned["layer_table"][k], rel=REL)
