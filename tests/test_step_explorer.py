"""The notebook 04 Explore panel builds headlessly and updates the predicted step, or names the
broken rule (Output widgets print to stdout outside a kernel)."""

import pytest

pytest.importorskip("ipywidgets")


def test_step_explorer_updates_the_prediction(capsys):
    import matplotlib

    matplotlib.use("Agg")
    from llmcost.widgets import step_explorer

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
