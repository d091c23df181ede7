"""A predicted MFU on a torus says it is a best case (a trial: TP8 on TPU v5p was priced with
each chip's six ICI links serving the TP group, 600 GB/s per direction, where a ring along one
axis of the 3D torus uses two of them, 200 GB/s; Google Cloud TPU v5p docs: 1,200 GB/s
bidirectional ICI per chip over 6 links, so 100 GB/s per link and direction; Jouppi et al. 2023,
arXiv:2304.01433, for the torus)."""

import dataclasses

import pytest

import llmcost
from llmcost.bill.checks import scenario_warnings, torus_warning
from llmcost.core.catalog import scenario_cluster
from llmcost.present.report import declared_parameters, effective_parameters, list_notebooks
from llmcost.training.step import step_time
from llmcost.training.step_scenario import scenario_step, scenario_step_options

TPU = {"model": "llama-3.1-70b", "accelerator": "TPU v5p", "n_gpus": 2048,
       "train_tokens": 15e12, "seq_len": 8192, "mfu": 0.4, "global_batch_tokens": 16777216}


def _values(**override):
    declared = {nb: declared_parameters(nb) for nb in list_notebooks()}
    used = effective_parameters({**TPU, **override}, declared)
    return llmcost.validate_parameters(**{k: v["value"] for k, v in used.items()})


def test_a_tp_group_on_a_torus_is_priced_at_one_axis_beside_the_switch_figure():
    values = _values()
    plan, b = scenario_step(values)
    assert plan.tp > 1
    acc = llmcost.load_accelerator("TPU v5p")
    assert acc.scaleup_bytes_per_s_per_dir == pytest.approx(6 * 100e9)   # six links
    # the one-axis figure by hand (2 links × 100 GB/s); the MFU at it is the engine's own
    # (a consistency check that the sentence reports that run, not a pinned figure)
    one_axis = dataclasses.replace(scenario_cluster(values), scaleup_bytes_per_s_per_dir=2e11)
    ring = step_time(llmcost.load_model("llama-3.1-70b"), one_axis, plan, 8192,
                     options=scenario_step_options(values))
    assert ring.mfu < b.mfu
    w = [x for x in scenario_warnings(values, mfu_predicted=True) if "torus" in x]
    assert len(w) == 1
    assert w[0].startswith("TPU v5p's chips form a 3D torus, which the step-time model prices "
                           "as a switch: each chip's 6 ICI links (600 GB/s per direction) serve "
                           f"every collective of the plan's TP{plan.tp}, DP{plan.dp} groups "
                           "inside a 6,144-chip slice")
    assert "200 GB/s (overlap.group_bandwidth), and a group over several axes more: at one " \
        f"axis for all of them the plan's predicted MFU is {ring.mfu:.1%} against " \
        f"{b.mfu:.1%}, the two bracketing it" in w[0]
    # a given MFU does not rest on the step model: not said
    assert not [x for x in scenario_warnings(values) if "torus" in x]


def test_no_torus_words_on_a_switch_or_without_a_scale_up_group():
    h100 = _values(accelerator="H100-SXM")
    assert torus_warning(h100, llmcost.load_model("llama-3.1-70b"), scenario_step(h100)[0]) \
        is None
    # one chip: no collective
    one = _values(model="llama-3.1-8b", n_gpus=1, tp=1, pp=1, train_tokens=1e9,
                  global_batch_tokens=8192)
    assert torus_warning(one, llmcost.load_model("llama-3.1-8b"), scenario_step(one)[0]) is None


def test_data_parallelism_alone_and_a_2d_torus_are_said_too():
    # a review: DP and PP traffic inside the slice take the same ICI links, and TPU v5e is a
    # 2D torus of 4 links of 50 GB/s per direction (Google Cloud TPU v5e docs: 400 GB/s
    # bidirectional per chip, 4 ICI ports), one axis 2 × 50 = 100 GB/s
    small = _values(model="llama-3.1-8b", tp=1, pp=1, train_tokens=1e12)
    plan = scenario_step(small)[0]
    assert (plan.tp, plan.cp, plan.ep) == (1, 1, 1) and plan.dp > 1
    w = torus_warning(small, llmcost.load_model("llama-3.1-8b"), plan)
    assert f"every collective of the plan's DP{plan.dp} groups" in w
    v5e = _values(model="llama-3.1-8b", accelerator="TPU v5e", n_gpus=256, train_tokens=1e12,
                  global_batch_tokens=2097152)
    plan = scenario_step(v5e)[0]
    w = torus_warning(v5e, llmcost.load_model("llama-3.1-8b"), plan)
    assert w.startswith("TPU v5e's chips form a 2D torus") and "4 ICI links (200 GB/s" in w
    assert "uses two of them, 100 GB/s" in w
