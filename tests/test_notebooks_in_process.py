"""The real notebooks, run in-process (each code cell exec'd, the report's parameters injected
after the parameters cell as papermill injects them) on the matrix scenario that broke four of
them: DeepSeek-V3 (MLA attention, MoE) on 16,384 A100s, owned hardware, `mfu: predict`, ranged
failure rate (tests/scenario_matrix.py row 3). notebook_results mirrors the notebooks' set-up
calls; this runs their every cell, figures included (Agg backend, nothing displayed)."""

import contextlib
import io
import json

import matplotlib
import pytest
from scenario_matrix import pairwise_rows, scenario_yaml

from llmcost.present import report

matplotlib.use("Agg")


def run_in_process(nb, params: dict) -> str:
    """Execute ``nb``'s code cells in one namespace; returns what they printed."""
    import matplotlib.pyplot as plt

    ns = {"__name__": "__main__", "display": lambda *a, **k: None}
    out = io.StringIO()
    for cell in json.loads(nb.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] != "code":
            continue
        src = "\n".join(line for line in "".join(cell["source"]).splitlines()
                        if not line.lstrip().startswith(("%", "!")))
        with contextlib.redirect_stdout(out):
            exec(compile(src, str(nb), "exec"), ns)  # noqa: S102
        if "parameters" in cell.get("metadata", {}).get("tags", []):
            ns.update(params)
        plt.close("all")
    return out.getvalue()


@pytest.fixture(scope="module")
def plan(tmp_path_factory):
    path = tmp_path_factory.mktemp("row3") / "row3.yaml"
    path.write_text(scenario_yaml(3, pairwise_rows()[3]))
    return report.plan_report(path)


@pytest.mark.parametrize("stem, says", [
    ("00_index", "LoRA left out: deepseek-v3 uses mla attention"),
    ("03_parallelism", "scenario's plan"),
    ("09_savings", "FP8 that destabilises training: looks like –"),  # A100: skipped, saying why
])
def test_notebook_runs_on_deepseek_v3_on_owned_a100s(plan, stem, says):
    assert plan.values["model"] == "deepseek-v3" and plan.values["pricing"] == "owned"
    nb = next(n for n in plan.notebooks if n.stem == stem)
    params = report.notebook_parameters_for(nb, plan)
    printed = run_in_process(nb, params)
    assert says in printed
