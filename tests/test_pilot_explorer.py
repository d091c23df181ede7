"""Notebook 04b §6's pilot panel (``widgets.pilot_explorer``): move the target's GPU count and
plan, watch the calibrated MFU and its band (Output widgets print to stdout outside a kernel)."""

import pytest

pytest.importorskip("ipywidgets")

import llmcost  # noqa: E402
from llmcost.bill.scenario import load_scenario  # noqa: E402
from llmcost.training import calibrate, parallel, step_scenario  # noqa: E402


@pytest.fixture(scope="module")
def study():
    p = llmcost.point_scenario(load_scenario(llmcost.SCENARIO_DIR / "default.yaml"))
    return p, calibrate.pilot_study(p, None, 2.0)


def test_the_panel_opens_on_the_studys_own_extrapolation(study, capsys):
    from llmcost.present.widgets import pilot_explorer
    p, s = study
    pilot_explorer(s, int(p["seq_len"]), options=step_scenario.scenario_step_options(p))
    out = capsys.readouterr().out
    assert s.extrapolation.describe() in out and s.extrapolation.describe_band() in out
    assert f"{s.plan.describe()} on {s.plan.n_gpus:,} GPUs" in out


def test_a_moved_plan_is_extrapolated_as_calibrate_does_and_a_bad_one_named(study, capsys):
    """TP moved at the run's GPU count (4 -> 8 from the default stack's ZeRO-1 plan, else to
    4): the line is ``calibrate.extrapolate`` of that plan,
    by hand (``make_plan`` with the study's other plan fields); TP 128 breaks a model rule."""
    from llmcost.present.widgets import pilot_explorer
    p, s = study
    seq, gb = int(p["seq_len"]), int(p["global_batch_tokens"])
    opts = step_scenario.scenario_step_options(p)
    box = pilot_explorer(s, seq, options=opts)
    capsys.readouterr()
    gpu_w, tp_w, pp_w, mbs_w = box.children[0].children
    b = s.plan
    new_tp = 8 if b.tp == 4 else 4
    tp_w.value = new_tp
    out = capsys.readouterr().out
    model = llmcost.load_model(p["model"])
    plan = parallel.make_plan(model, b.n_gpus, gb // seq, tp=new_tp, pp=b.pp,
                              zero_stage=b.zero_stage,
                              recompute=b.recompute, micro_batch_size=b.micro_batch_size,
                              schedule=b.schedule, virtual_stages=b.virtual_stages,
                              pp_split=b.pp_split, cp=b.cp, seq_len=seq)
    x = calibrate.extrapolate(s.calibration, model, plan, seq, options=opts)
    assert f"{plan.describe()} on {b.n_gpus:,} GPUs: {x.describe()}; {x.describe_band()}" in out
    assert x.mfu_low < x.mfu < x.mfu_high
    assert x.mfu_high / x.mfu - 1 == pytest.approx(x.half_width)
    tp_w.options = sorted(set(tp_w.options) | {128})
    tp_w.value = 128
    assert "cannot extrapolate: tp=128 must divide" in capsys.readouterr().out


def test_the_gpu_control_offers_counts_that_extrapolate(study, capsys):
    """An analyst's trial: the GPU slider in steps of the smallest pilot's 64 GPUs was refused
    at 250 of its 256 positions (a data-parallel size that does not divide the global batch).
    The control now offers the smallest pilot's count doubled up to 8 × the run's, or the
    GPUs the global batch feeds (dp × micro-batch ≤ its sequences) if fewer, and the run's
    own: every one of them extrapolates with the run's TP, PP and micro-batch (the
    interleaved schedule replaced by 1F1B, said, where too few micro-batches remain)."""
    from llmcost.present.widgets import pilot_explorer
    p, s = study
    box = pilot_explorer(s, int(p["seq_len"]), options=step_scenario.scenario_step_options(p))
    gpu_w = box.children[0].children[0]
    smallest = min(q.n_gpus for q in s.calibration.pilots)
    assert s.plan.n_gpus in gpu_w.options and min(gpu_w.options) == smallest
    b = s.plan
    fed = b.global_batch_size // b.micro_batch_size * b.tp * b.pp * b.cp
    assert max(gpu_w.options) <= max(min(8 * b.n_gpus, fed), smallest)
    for n in gpu_w.options:
        capsys.readouterr()
        gpu_w.value = n
        out = capsys.readouterr().out
        assert "cannot extrapolate" not in out and f" on {n:,} GPUs: " in out, (n, out)


def test_too_few_micro_batches_for_interleaving_fall_back_to_1f1b_said():
    """Llama 2 70B, 1,024 sequences per step on 4,096 GPUs at TP 8 · PP 4 (dp 128) with
    micro-batch 4: 1,024 / (128 · 4) = 2 micro-batches, fewer than the 4 stages the interleaved
    schedule needs a whole round of (Narayanan et al. 2021 §2.2; ``make_plan``'s rule): the
    panels' pipeline helper prices 1F1B and says why, where it raised before."""
    from llmcost.present.widgets import plan_with_pipeline
    model = llmcost.load_model("llama-2-70b")

    def make(sched, v):
        return parallel.make_plan(model, 4096, 1024, tp=8, pp=4, micro_batch_size=4,
                                  schedule=sched, virtual_stages=v, seq_len=4096)
    with pytest.raises(ValueError, match="n_microbatches=2 must be divisible by pp=4"):
        make("interleaved", 2)
    plan, note = plan_with_pipeline(make, 4, "interleaved", 2)
    assert plan.schedule == "1f1b" and plan.n_microbatches == 2
    assert note == "the interleaved schedule needs micro-batches in multiples of PP 4: 1F1B here"
