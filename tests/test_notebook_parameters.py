"""``llmcost.notebook_parameters(globals())``: the one-line validation cell of a notebook."""

import pytest
from IPython.core.interactiveshell import InteractiveShell

import llmcost
from llmcost.bill.scenario import ScenarioError


@pytest.fixture()
def shell():
    sh = InteractiveShell.instance()
    sh.reset()
    yield sh
    sh.reset()


def _run(sh, src):
    r = sh.run_cell(src)
    if r.error_in_exec:
        raise r.error_in_exec
    return sh.user_ns


def test_validates_the_annotated_names_with_injected_values(shell):
    # The parameters cell, then a cell papermill injects (plain assignments, one undeclared name).
    _run(shell, 'model: str = "llama-2-70b"  # c\nn_gpus: int = 8  # c\nmfu: float = 0.4  # c')
    _run(shell, "n_gpus = 1024\nseq_len = 8192")
    p = _run(shell, "import llmcost\np = llmcost.notebook_parameters(globals())")["p"]
    assert p == {"model": "llama-2-70b", "n_gpus": 1024, "mfu": 0.4}  # seq_len not declared
    assert list(p) == ["model", "n_gpus", "mfu"]  # the cell's order


def test_same_result_as_validate_parameters():
    ns = {"__annotations__": {"n_gpus": int, "mfu": float}, "n_gpus": 64, "mfu": 0.5}
    assert llmcost.notebook_parameters(ns) == llmcost.validate_parameters(n_gpus=64, mfu=0.5)


@pytest.mark.parametrize("ns, words", [
    ({"__annotations__": {"n_gpus": int}, "n_gpus": 0}, "n_gpus"),
    ({"__annotations__": {"mfu": float}, "mfu": 1.5}, "mfu"),
    ({"__annotations__": {"no_such_key": int}, "no_such_key": 1}, "no_such_key"),
    ({"__annotations__": {"n_gpus": int}}, "no value"),
    ({"x": 1}, "no annotated parameters"),
    ("n_gpus: 8", "namespace"),
])
def test_bad_input_names_the_field(ns, words):
    with pytest.raises(ScenarioError, match=words):
        llmcost.notebook_parameters(ns)


def test_cross_checks_still_run():
    # FP8 on an accelerator without an FP8 peak is refused as by validate_parameters.
    ns = {"__annotations__": {"accelerator": str, "dtype": str}, "accelerator": "A100-80GB",
          "dtype": "fp8"}
    with pytest.raises(ValueError):
        llmcost.validate_parameters(accelerator="A100-80GB", dtype="fp8")
    with pytest.raises(ScenarioError):
        llmcost.notebook_parameters(ns)


def test_ranged_keeps_ranges_and_drops_the_page_setting(capsys):
    # the bill's pages (00, 09) draw the scenario's ranges: kept as Range, `interactive` checked
    # and left out, no range note printed (the points are what ranged=False returns)
    ns = {"__annotations__": {"n_gpus": int, "mfu": float, "interactive": bool},
          "n_gpus": 64, "mfu": {"low": 0.3, "high": 0.5}, "interactive": False}
    s = llmcost.notebook_parameters(ns, ranged=True)
    assert list(s) == ["n_gpus", "mfu"]
    assert isinstance(s["mfu"], llmcost.Range) and s["mfu"].point == pytest.approx(0.4)  # midpoint
    assert capsys.readouterr().out == ""
    points = llmcost.notebook_parameters(ns)
    assert llmcost.point_scenario(s) == {k: v for k, v in points.items() if k != "interactive"}
    with pytest.raises(ScenarioError, match="interactive"):
        llmcost.notebook_parameters({**ns, "interactive": "no"}, ranged=True)
    with pytest.raises(ScenarioError, match="ranged"):
        llmcost.notebook_parameters(ns, ranged="yes")


def test_scenario_price_given_or_from_the_catalogue():
    # a given price is the price; None (or absent) is data/prices.csv's median for the pricing
    # mode, as llmcost.catalogue_price reads it
    assert llmcost.scenario_price({"accelerator": "H100-SXM", "price_usd_per_gpu_hour": 3.99}) \
        == (3.99, "given as price_usd_per_gpu_hour")
    want = llmcost.catalogue_price("H100-SXM", "spot")
    assert llmcost.scenario_price({"accelerator": "H100-SXM", "pricing": "spot"}) == want
    assert llmcost.scenario_price({"accelerator": "H100-SXM", "price_usd_per_gpu_hour": None,
                                   "pricing": "spot"}) == want
    assert llmcost.scenario_price({"accelerator": "H100-SXM"}) == \
        llmcost.catalogue_price("H100-SXM", "on_demand")
    with pytest.raises(ScenarioError, match="scenario"):
        llmcost.scenario_price({"n_gpus": 8})
    with pytest.raises(ScenarioError, match="pricing"):
        llmcost.scenario_price({"accelerator": "H100-SXM", "pricing": "cheap"})
