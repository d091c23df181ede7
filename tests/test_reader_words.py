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


def test_the_estimate_warning_says_the_comparable_run_rule_in_words():
    # `llmcost estimate` read "the regime's runs, not the comparable-run rule of notebooks 04b
    # and 09": a rule named by where it lives, not what it says. The rule
    # (accuracy.comparable_published_mfu): the same GPU generation, dense with dense or MoE with
    # MoE, total parameters within SIZE_FACTOR = 4x, sequences within SEQ_FACTOR = 4x.
    from types import SimpleNamespace

    from llmcost.bill.checks import prediction_evidence

    band = SimpleNamespace(n=2, regime_best=0.43, mfu=0.51, mfu_bf16_basis=0.51,
                           regime="Hopper · Megatron 3D · dense · BF16 · ≤ 32k · ≥ 10B",
                           regime_best_source="Llama 3.1 405B", center=0.0, half_width=0.1,
                           best_published=None, best_source="")
    said = prediction_evidence(band)
    assert "notebooks 04b and 09" not in said and "comparable-run rule" not in said
    for words in ("same GPU generation", "dense with dense or MoE with MoE",
                  "within 4× in total parameters and 4× in sequence length",
                  "above every one of the 2 held-out published runs", "43.0%"):
        assert words in said, (words, said)


def test_a_tornado_row_gives_its_range_with_units():
    # the index's tornado rows read "triangular 0.2 / 1.19 / 3": no unit, and the mode where
    # the bars are drawn at the P10 and P90. Hand cases, one per kind of unit:
    from llmcost.bill.ledger import input_range_words

    # one decimal: a uniform 0.35-0.5's P10 / P90, 36.5% / 48.5%, read "36%–48%" in whole
    # percents (a trial), beside an MFU range the same page gives to the decimal
    assert input_range_words("mfu", 0.3573, 0.4412) == "P10–P90: 35.7%–44.1% of the GPUs' peak"
    assert input_range_words("mfu", 0.365, 0.485) == "P10–P90: 36.5%–48.5% of the GPUs' peak"
    assert input_range_words("price_usd_per_gpu_hour", 3.4712, 4.5061) == \
        "P10–P90: 3.47–4.51 USD per GPU-hour"
    assert input_range_words("ledger_exploratory_fraction", 0.7312, 2.3101) == \
        "P10–P90: 0.73×–2.3× the final run's compute"
    assert input_range_words("some_key", 1.0, 2.5) == "P10–P90: 1–2.5"  # no unit known: none
    import pytest
    with pytest.raises(ValueError, match="p90=nan must be a finite number"):
        input_range_words("mfu", 0.3, float("nan"))
    # and the figure's rows use it: the tornado draws the P10 and P90 columns in words
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    tor = pd.DataFrame({"input": ["mfu"], "range": ["triangular 0.3 / 0.4 / 0.5"],
                        "p10": [0.33], "p90": [0.47], "total_at_p10_usd": [2e6],
                        "total_at_p90_usd": [1.5e6], "swing_usd": [5e5]})
    tor.attrs["point_usd"] = 1.7e6
    ax = plots.tornado(tor)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    plt.close(ax.figure)
    assert labels == ["mfu\nP10–P90: 33.0%–47.0% of the GPUs' peak"]
