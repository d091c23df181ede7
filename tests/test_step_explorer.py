"""The notebook 04b Explore panel builds headlessly and updates the predicted step, or names the
broken rule (Output widgets print to stdout outside a kernel)."""

import pytest

pytest.importorskip("ipywidgets")


def test_step_explorer_updates_the_prediction(capsys):
    import matplotlib

    matplotlib.use("Agg")
    from llmcost.present.widgets import step_explorer

    box = step_explorer("llama-2-70b", "H100-SXM", 2048, 4194304, 4096, 8, 4, 1, 1, "none")
    first = capsys.readouterr().out
    assert "s per step, predicted MFU" in first
    tp_w = box.children[2].children[0]
    tp_w.value = 128
    assert "cannot predict: tp=128 must divide n_heads=64" in capsys.readouterr().out
    tp_w.value = 8
    capsys.readouterr()
    slow_net = box.children[5].children[1]
    slow_net.value = 0.125                    # an 8x slower network cannot make a step faster
    slower = capsys.readouterr().out
    def mfu(text):
        return float(text.split("predicted MFU ")[1].split("%")[0])

    assert mfu(slower) <= mfu(first)


def test_step_explorer_opens_on_the_notebooks_plan(capsys):
    # Issue 10 (b): notebook 04 showed an interleaved plan while its Explore panel opened on 1F1B
    # (32.8% vs 51.8% MFU). Given the notebook's plan, the panel prints that plan's prediction.
    import matplotlib

    matplotlib.use("Agg")
    import llmcost
    from llmcost import parallel, step
    from llmcost.present.widgets import step_explorer

    spec = llmcost.load_model("llama-2-70b")
    plan = parallel.make_plan(spec, 2048, 1024, tp=2, pp=4, zero_stage=2, recompute="none",
                              schedule="interleaved", virtual_stages=20, seq_len=4096)
    b = step.step_time(spec, llmcost.Cluster(llmcost.load_accelerator("H100-SXM"), 2048), plan,
                       4096)
    step_explorer("llama-2-70b", "H100-SXM", 2048, 4194304, 4096, plan.tp, plan.pp,
                  plan.micro_batch_size, plan.zero_stage, plan.recompute,
                  schedule=plan.schedule, virtual_stages=plan.virtual_stages,
                  pp_split=plan.pp_split, cp=plan.cp)
    out = capsys.readouterr().out
    assert f"{plan.describe()}: " in out
    assert f"predicted MFU {b.mfu:.1%}" in out
