"""Megatron-Core's merged 1F1B (``overlap_moe_expert_parallel_comm``) on an interleaved pipeline
leaves one P2P transfer per merged forward+backward unit on the critical path
(``step.merged_p2p_exposure``).

The check is a hand replay of the schedule as the source runs it, independent of the engine:
NVIDIA/Megatron-LM @ 0d8e0714cd29 (Megatron-Bridge 25.11's pin; the same order @ b0cc2706dd,
26.02's pin):

* ``schedules.get_schedule_table``: virtual micro-batch ``i`` → (micro-batch, chunk), depth
  first in groups of ``g = microbatch_group_size_per_vp_stage`` micro-batches (default p,
  ``model_parallel_config.py``);
* ``schedules.get_pp_rank_microbatches``: rank r's warm-up forwards
  ``2(p − r − 1) + (v − 1)·g``, plus 1 under ``overlap_moe_expert_parallel_comm``; then the
  steady state pairs forward ``k + w`` with backward ``k`` (backward chunk ``v − 1 − chunk``),
  then the remaining backwards;
* plain interleaved 1F1B runs the forward, sends its output, then runs the backward
  (``forward_step_helper`` / ``backward_step_helper``); the merged unit
  (``models/common/model_chunk_schedule_plan.py`` ``TransformerModelChunkSchedulePlan.run``)
  waits for both of its inputs before its first layer (``pre_forward``, ``pre_backward``) and
  sends both outputs after its last (``post_forward``, ``post_backward``).

Each pass waits for its input from the neighbouring stage (forward: stage r − 1, or the last
stage's previous chunk for stage 0; backward: stage r + 1, or stage 0's next chunk for the last
stage; the last chunk's backward on the last stage waits for its own forward, the loss) plus a
transfer time ``d`` between stages. The makespan's growth with ``d`` is the P2P time on the
critical path.
"""

import numpy as np
import pytest

from llmcost.core.catalog import load_accelerator
from llmcost.training import step, step_validation


def _table(m, v, g):
    out = []
    for lo in range(0, m, g):
        hi = m if lo + g >= m else lo + g
        out += [(mb, c) for c in range(v) for mb in range(lo, hi)]
    return out


def _rank_units(p, r, v, m, merged, tf, tb):
    """Rank r's passes in order: (list of passes, duration); a pass is (kind, mb, chunk)."""
    tab, n = _table(m, v, p), m * v
    w = min((p - r - 1) * 2 + (v - 1) * p + (1 if merged else 0), n)
    fw = [("F",) + tab[i] for i in range(n)]
    bw = [("B", tab[i][0], v - 1 - tab[i][1]) for i in range(n)]
    units = [([fw[i]], tf) for i in range(w)]
    for k in range(n - w):
        units += [([fw[k + w], bw[k]], tf + tb)] if merged else [([fw[k + w]], tf),
                                                                ([bw[k]], tb)]
    return units + [([bw[i]], tb) for i in range(n - w, n)]


def _input_of(pas, r, p, v):
    kind, mb, c = pas
    if kind == "F":
        return (r - 1, ("F", mb, c)) if r > 0 else ((p - 1, ("F", mb, c - 1)) if c > 0 else None)
    if r < p - 1:
        return r + 1, ("B", mb, c)
    return (0, ("B", mb, c + 1)) if c < v - 1 else (r, ("F", mb, c))


def _makespan(p, v, m, merged, d, tf=1.0, tb=2.0):
    ranks = [_rank_units(p, r, v, m, merged, tf, tb) for r in range(p)]
    done, idx, clock = {}, [0] * p, [0.0] * p
    moved = True
    while moved:
        moved = False
        for r in range(p):
            while idx[r] < len(ranks[r]):
                passes, dur = ranks[r][idx[r]]
                deps = [_input_of(x, r, p, v) for x in passes]
                if any(dep is not None and dep not in done for dep in deps):
                    break
                start = max([clock[r]] + [done[dep] + (d if dep[0] != r else 0.0)
                                          for dep in deps if dep is not None])
                for x in passes:
                    done[(r, x)] = start + dur
                clock[r], idx[r], moved = start + dur, idx[r] + 1, True
    assert idx == [len(u) for u in ranks]          # no deadlock: the order is the source's
    return max(clock)


@pytest.mark.parametrize("p,v,m", [(2, 12, 64), (2, 12, 128), (2, 2, 64), (4, 4, 64),
                                   (8, 4, 128), (8, 2, 128)])
def test_merged_units_put_one_transfer_each_on_the_critical_path(p, v, m):
    d = 0.05
    plain = (_makespan(p, v, m, False, d) - _makespan(p, v, m, False, 0.0)) / d
    merged = (_makespan(p, v, m, True, d) - _makespan(p, v, m, True, 0.0)) / d
    # plain interleaved 1F1B: the fill and drain only, 2(pv - 1) transfers (compose_pipeline)
    assert plain == pytest.approx(2 * (p * v - 1), rel=1e-6)
    # merged: about one more per merged unit, m·v - (w + 1) of them on stage 0
    units = m * v - (2 * (p - 1) + (v - 1) * p + 1)
    extra = merged - plain
    assert units * 0.99 <= extra <= units * 1.06
    # the engine's term, with 2·p2p = d and nothing launched after the sends
    got = float(step.merged_p2p_exposure("interleaved", p, m, v, d / 2, True))
    assert got == pytest.approx(units * d, rel=1e-9)
    assert got == pytest.approx(extra * d, rel=0.06)


def test_no_merged_exposure_without_the_overlap_a_pipeline_or_interleaving():
    assert float(step.merged_p2p_exposure("interleaved", 2, 64, 12, 1e-3, False)) == 0.0
    assert float(step.merged_p2p_exposure("interleaved", 1, 64, 1, 1e-3, True)) == 0.0
    assert float(step.merged_p2p_exposure("1f1b", 4, 64, 1, 1e-3, True)) == 0.0
    # arrays: one value per plan
    out = step.merged_p2p_exposure(np.array([1, 1]), np.array([2, 2]), np.array([64, 64]),
                                   np.array([12, 12]), 1e-3, np.array([True, False]))
    assert out[0] == pytest.approx((768 - 25) * 2e-3) and out[1] == 0.0


def test_flushes_repeat_the_warm_up():
    # f = 2 schedules of 32 micro-batches: 2 x (32·12 - 25) units
    got = float(step.merged_p2p_exposure("interleaved", 2, 64, 12, 1e-3, True, 2))
    assert got == pytest.approx(2 * (32 * 12 - 25) * 2e-3)


def test_the_first_layers_attention_weight_gradient_hides_part_of_it():
    # run(): attn.backward_dw() of the chunk's first layer is launched after the sends
    assert float(step.merged_p2p_exposure("interleaved", 2, 64, 12, 1e-3, True, 1, 0.5e-3)) \
        == pytest.approx((768 - 25) * 1.5e-3)
    assert float(step.merged_p2p_exposure("interleaved", 2, 64, 12, 1e-3, True, 1, 3e-3)) == 0.0


def test_the_h100_qwen3_rows_pay_it_the_pp1_row_does_not():
    """Megatron-Bridge 26.02's Qwen3-30B-A3B on 16 H100 (PP 2 x VP 12, m = 128, the EP overlap,
    ``EP_OVERLAP_OF_ROW``): the P2P part grows by (128·12 - 25)·(2·p2p - t_dw) over the plain
    schedule's fill and drain 2·(2·12 - 1)·p2p, t_dw one layer's attention weight-gradient GEMMs:
    2·x·(h·(q + 2kv) + q·h) FLOPs with x = 4096 tokens, h = 2048, q = 32·128, kv = 4·128
    (Qwen3-30B-A3B's config.json), between their time at the FP8 dense peak and at half the
    BF16 one. The PP 1 recipe that replaced it (26.04) has no pipeline."""
    rid = "mb2602-h100-qwen3-30b-a3b-fp8cs"
    t = step_validation.row_readings(rid, {"no overlap": {"ep_overlap": "none"}})
    fill = t.loc["no overlap", "pp_comm_s"]
    p2p = fill / (2 * (2 * 12 - 1))
    per_unit = (t.loc["as priced", "pp_comm_s"] - fill) / (128 * 12 - 25)
    t_dw = 2 * p2p - per_unit
    flops = 2 * 4096 * (2048 * (4096 + 2 * 512) + 4096 * 2048)
    acc = load_accelerator("H100-SXM")
    assert flops / acc.peak_flops_per_s("fp8") <= t_dw <= flops / (0.5 * acc.peak_flops_per_s(
        "bf16"))
    later = step_validation.row_readings("mb2604-h100-qwen3-30b-a3b-fp8cs", {})
    assert later.loc["as priced", "pp_comm_s"] == 0.0
