"""What a prose audit of a report for another scenario found: text that describes the default
scenario's run printed under another's."""

from pathlib import Path

import yaml

from llmcost.bill.checks import inherited_description_warning
from llmcost.present import glance
from llmcost.present.report import estimate_ledger

_DEFAULT = Path(__file__).resolve().parents[1] / "data" / "scenarios" / "default.yaml"


def test_a_copied_description_of_another_run_is_said(tmp_path):
    # the README's recipe copies default.yaml, whose description types its run ("A Llama 2 70B
    # architecture trained on 2T tokens ... on 2,048 H100 SXM GPUs at 40% MFU"); an audit's
    # 8B on 64 A100s kept it and the index printed it
    text = _DEFAULT.read_text()
    copy = tmp_path / "copy.yaml"
    copy.write_text(text.replace("model: llama-2-70b", "model: llama-3.1-8b").replace(
        "n_gpus: 2048", "n_gpus: 64"))
    (w,) = [x for x in estimate_ledger(copy).warnings if "default scenario's own text" in x]
    assert w.startswith("title and description: the default scenario's own text, which "
                        "describes its run, while this one changes model, n_gpus:")
    assert glance.caveat_line(w) == ("the scenario's title and description: the default "
                                     "scenario's text, which describes another run")
    # the default itself, and a copy with its own words, say nothing
    assert not [x for x in estimate_ledger(_DEFAULT).warnings if "default scenario's" in x]
    sc = yaml.safe_load(copy.read_text())
    assert inherited_description_warning({**sc, "title": "8B on 64 A100s",
                                          "description": "my run", "n_gpus": 64,
                                          "model": "llama-3.1-8b"}) is None
    assert inherited_description_warning({"title": "8B", "model": "llama-3.1-8b"}) is None
