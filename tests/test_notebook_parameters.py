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
