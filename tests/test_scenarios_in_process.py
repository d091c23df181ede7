"""Every scenario of data/scenarios/ other than the default runs every notebook, in this process
(tests/test_report.py runs the default scenario's whole report: kernels, papermill, HTML, index
and summary.json). A file of its own, so that the test scheduler can place it on either worker."""

import IPython.display
import pytest
from _inprocess import run_in_process
from test_report import SCENARIOS, _check_summary

from llmcost import report


# The other scenarios run every notebook in this process (tests/_inprocess.py: each code cell
# exec'd with the report's parameters, every figure drawn once on Agg), their headline rows taken
# from what the notebooks publish and the bill from the report's plan: the same numbers as a
# report's summary.json, without a second kernel-and-HTML pass the default report already tests.
@pytest.mark.parametrize("scenario", [p for p in SCENARIOS if p.stem != "default"],
                         ids=lambda p: p.stem)
def test_every_other_scenario_runs_every_notebook(scenario, monkeypatch):
    plan = report.plan_report(scenario)
    published = {}

    def display(obj, *args, **kwargs):  # publish_summary's display: keep the headline rows
        if isinstance(obj, dict) and report.SUMMARY_MIME in obj:
            published[obj[report.SUMMARY_MIME]["notebook"]] = obj[report.SUMMARY_MIME]["rows"]

    monkeypatch.setattr(IPython.display, "display", display)
    drawn = []
    for nb in plan.notebooks:
        run_in_process(nb, report.notebook_parameters_for(nb, plan), draw=drawn)
    assert len(drawn) > 40  # every figure was drawn (the default report draws about 70)
    assert set(published) >= {p.stem for p in plan.notebooks} - {"10_glossary"}
    _check_summary(scenario, {"notebooks": published, "bill": plan.bill.summary()})


