"""What a reader sees is in a reader's words: no column or function names in tables and lines
(findings of a new-user trial, each quoted in its test)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from llmcost.present import plots

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def test_a_table_can_show_its_columns_in_a_readers_words():
    # notebook 09's lever table read `saving_usd`, `share_of_bill`, `days_saved` and a
    # `within_uncertainty` column of "False"
    df = pd.DataFrame({"lever": ["FP8"], "saving_usd": [1234.0], "share_of_bill": [0.25],
                       "days_saved": [1.5], "within_uncertainty": [False]})
    html = plots.table(df, {"saving_usd": "${:,.0f}", "share_of_bill": "{:.1%}",
                            "days_saved": "{:+.1f}"}, words=plots.COLUMN_WORDS).data
    for raw in ("saving_usd", "share_of_bill", "days_saved", "within_uncertainty", "False"):
        assert raw not in html
    for shown in ("saving", "share of the bill", "days saved", "may save nothing", "$1,234",
                  "25.0%", "+1.5", ">no<"):
        assert shown in html
    assert list(df.columns)[1] == "saving_usd"  # the caller's frame is left as it was


def test_notebook_09_tables_use_the_readers_words():
    cells = json.loads((NOTEBOOKS / "09_savings.ipynb").read_text())["cells"]
    src = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    tables = [s for s in src if "plots.table(" in s and ('"saving_usd"' in s or
                                                         '"apparent_saving_usd"' in s or
                                                         '"bill_calibrated_usd": usd' in s)]
    assert len(tables) >= 6 and all("words=plots.COLUMN_WORDS" in s for s in tables)


def test_no_notebook_says_none_recomputation():
    # notebook 02 printed "micro-batch 1, none recomputation"
    for nb in NOTEBOOKS.glob("*.ipynb"):
        src = "".join("".join(c["source"]) for c in json.loads(nb.read_text())["cells"])
        assert ", {plan.recompute} recomputation" not in src, nb.name
