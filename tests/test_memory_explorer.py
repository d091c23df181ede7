"""The notebook 03 Explore panel builds headlessly and reports the fits verdict or the broken
rule (Output widgets print to stdout outside a kernel)."""

import pytest

pytest.importorskip("ipywidgets")


def test_memory_explorer_updates_the_verdict(capsys):
    from llmcost.present.widgets import memory_explorer

    box = memory_explorer("llama-2-70b", "H100-SXM", 2048, 4194304, 4096, 8, 4, 1, "selective")
    assert "GB per GPU on H100-SXM (86 GB, 10% reserve): fits" in capsys.readouterr().out
    tp_w, pp_w = box.children[2].children
    tp_w.value = 128
    assert "not a valid plan: tp=128 must divide n_heads=64" in capsys.readouterr().out
    tp_w.value, pp_w.value = 1, 1
    assert "does NOT fit" in capsys.readouterr().out   # 70B on one GPU per replica
