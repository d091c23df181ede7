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
