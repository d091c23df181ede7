"""The notebook 06 Explore panel builds headlessly and moves the optimum the right way (Output
widgets print to stdout outside a kernel)."""

import math

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
    assert "Chinchilla-optimal" in first and "inference-adjusted (USD)" in first
    assert "target loss" in first and "the compute-optimal model's at this budget" in first
    demand_w = box.children[1].children[0]
    demand_w.value = 1e15
    more = capsys.readouterr().out
    assert _n_params(more) < _n_params(first)
    fit_w = box.children[0].children[1]
    fit_w.value = "hoffmann2022"
    assert "inference-adjusted (USD)" in capsys.readouterr().out


def test_the_panel_opens_on_the_pages_target_loss(capsys):
    # A trial: notebook 06's panel opened at the compute-optimal model's loss, the page at its
    # scenario's model's (Llama 2 70B on 2T tokens), so its two rows differed from the page's.
    # Given the page's target, it opens on the page's optimum: scaling.inference_adjusted_
    # optimum_usd of that loss, computed here the same way.
    import matplotlib

    matplotlib.use("Agg")
    import llmcost
    from llmcost.laws import scaling as sc
    from llmcost.present.widgets import scaling_explorer

    f = sc.get_fit("besiroglu2024")
    n = llmcost.load_model("llama-2-70b").n_params
    target = float(sc.loss(n, 2e12, f))
    scaling_explorer(6 * n * 2e12, "besiroglu2024", 1e12, 3.99, 3.6e-3, "H100-SXM", 0.4,
                     target_loss=target)
    out = capsys.readouterr().out
    assert f"target loss {target:.4g}: the page's" in out
    usd = sc.train_usd_per_flop("H100-SXM", 0.4, 3.99, "bf16", None, None)
    o = sc.inference_adjusted_optimum_usd(target, 1e12, usd,
                                          sc.serving_cost_per_token(3.6e-3, 3.6e-3, 1.0, 1e9), f)
    assert _n_params(out) == pytest.approx(float(o.n_params), rel=0.01)
    # moved away and back, the slider lands on its own grid (10^(k·0.1)), within half a step of
    # the page's budget: still the page's target (a teacher read another optimum there)
    box = scaling_explorer(6 * n * 2e12, "besiroglu2024", 1e12, 3.99, 3.6e-3, "H100-SXM", 0.4,
                           target_loss=target)
    c_w = box.children[0].children[0]
    capsys.readouterr()
    c_w.value = c_w.value * 10
    assert "the compute-optimal model's at this budget" in capsys.readouterr().out
    c_w.value = 10 ** round(math.log10(6 * n * 2e12), 1)  # the grid point nearest the page's
    assert f"target loss {target:.4g}: the page's" in capsys.readouterr().out
    with pytest.raises(ValueError, match="target_loss"):
        scaling_explorer(1e23, "besiroglu2024", 1e12, 3.99, 3.6e-3, "H100-SXM", 0.4,
                         target_loss=-1.0)
