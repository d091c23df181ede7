"""The notebook 06 Explore panel builds headlessly and moves the optimum the right way (Output
widgets print to stdout outside a kernel)."""

import pytest

pytest.importorskip("ipywidgets")


def _n_params(text):
    # the table's second row: "inference-adjusted (USD)  <N>  ..." with N like "42.3B"
    row = [line for line in text.splitlines() if line.startswith("inference-adjusted")][-1]
    value = row.split()[2]
    return float(value[:-1]) * {"M": 1e6, "B": 1e9, "T": 1e12}[value[-1]]


def test_more_demand_moves_the_optimum_to_a_smaller_model(capsys):
    import matplotlib

    matplotlib.use("Agg")
    from llmcost.present.widgets import scaling_explorer

    box = scaling_explorer(8.28e23, "besiroglu2024", 1e12, 3.99, 3.6e-3, "H100-SXM", 0.4)
    first = capsys.readouterr().out
    assert "compute-optimal" in first and "inference-adjusted (USD)" in first
    demand_w = box.children[1].children[0]
    demand_w.value = 1e15
    more = capsys.readouterr().out
    assert _n_params(more) < _n_params(first)
    fit_w = box.children[0].children[1]
    fit_w.value = "hoffmann2022"
    assert "inference-adjusted (USD)" in capsys.readouterr().out
