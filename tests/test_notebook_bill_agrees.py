"""The committed notebooks agree on the scenario's training run: notebook 04b's run at the
predicted MFU stands beside the bill's, and the bill's is notebook 01's (a trial read 64.0 days
and $22.3M in 04b against the index's 83.1 days and $29.0M: 04b gave only the prediction's)."""
import re
from pathlib import Path

import nbformat
import pytest

NB = Path(__file__).resolve().parents[1] / "notebooks"


def _text(name: str, marker: str) -> str:
    nb = nbformat.read(NB / name, as_version=4)
    (cell,) = [c for c in nb.cells if c.cell_type == "code" and marker in c.source]
    return "".join(o.get("text", "") for o in cell.outputs)


def _summary(name: str) -> dict:
    nb = nbformat.read(NB / name, as_version=4)
    for c in nb.cells:
        for o in c.get("outputs", []):
            rows = o.get("data", {}).get("application/vnd.llmcost.summary+json", {}).get("rows")
            if rows:
                return {r["key"]: r["value"] for r in rows}
    raise AssertionError(f"{name} publishes no summary")


def test_04b_gives_the_bills_run_beside_the_predicted_one():
    said = _text("04b_step_time.ipynb", "the bill (notebook 00")
    run01 = _summary("01_flops.ipynb")
    m = re.search(r"uses MFU ([\d.]+)%: ([\d.]+) days, ([\d.]+)k GPU-hours", said)
    assert m, said
    mfu, days, kgpu_h = (float(x) for x in m.groups())
    assert days == pytest.approx(run01["wall_clock_days"], abs=0.05)
    assert kgpu_h * 1e3 == pytest.approx(run01["gpu_hours"], rel=2e-3)
    predicted = re.search(r"at the predicted MFU ([\d.]+)%: .*?([\d.]+) days", said)
    # hours scale as 1 / MFU: the two runs' days stand in the inverse ratio of their MFUs
    assert float(predicted.group(2)) / days == pytest.approx(
        mfu / float(predicted.group(1)), rel=0.01)
