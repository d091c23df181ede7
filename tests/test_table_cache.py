"""``plots.table`` keeps each table's markup in the disk cache (``plots.table_html``): a table
shown before is read back, the same bytes, and what its key cannot hold (a formatter that is a
function) is rendered every time."""

from __future__ import annotations

import pandas as pd
import pytest
from pandas.io.formats.style import Styler

from llmcost.present import plots


@pytest.fixture
def renders(tmp_path, monkeypatch):
    """The number of ``Styler.to_html`` calls, with a disk cache of the test's own."""
    monkeypatch.setenv("LLMCOST_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("LLMCOST_PREBUILT_DIR", "off")  # computed here, not read
    calls = []
    plain = Styler.to_html

    def counted(self, *a, **k):
        calls.append(1)
        return plain(self, *a, **k)

    monkeypatch.setattr(Styler, "to_html", counted)
    return calls


def _frame():
    return pd.DataFrame({"lever": ["FP8", "spot"], "saving_usd": [1234.0, 56789.5],
                         "within_uncertainty": [False, True]})


def test_a_table_shown_again_is_read_back_with_the_same_markup(renders):
    formats = {"saving_usd": "${:,.0f}"}
    first = plots.table(_frame(), formats, words=plots.COLUMN_WORDS).data
    again = plots.table(_frame(), formats, words=plots.COLUMN_WORDS).data
    assert renders == [1]  # rendered once, then read from the disk cache
    options = tuple((k, pd.get_option(k)) for k in plots.STYLER_OPTIONS)
    plain = plots.table_html.uncached(_frame(), formats, 3, False, "–", None,
                                      plots.COLUMN_WORDS, options)
    assert first == again == plain
    assert "$56,790" in first and ">yes<" in first  # the formats and words were applied


def test_another_table_or_setting_is_rendered_again(renders):
    plots.table(_frame(), {"saving_usd": "${:,.0f}"})
    other = _frame()
    other.loc[1, "saving_usd"] = 1.0  # one cell changed: a new key
    assert "$1.00<" in plots.table(other, {"saving_usd": "${:,.0f}"}).data  # cents below $100
    with pd.option_context("styler.html.mathjax", False):  # a Styler option: a new key
        assert "mathjax_ignore" in plots.table(_frame()).data
    assert "mathjax_ignore" not in plots.table(_frame()).data
    assert len(renders) == 4


def test_a_function_formatter_is_rendered_every_time(renders):
    def usd(x):
        return f"{x:.0f} dollars"

    for _ in range(2):
        assert "1234 dollars" in plots.table(_frame(), {"saving_usd": usd}).data
    assert len(renders) == 2


def test_whole_number_formats_keep_a_small_runs_digits():
    # A trial's $48 bill on 1 GPU: its checkpoint line $0.14 read "$0" and its 8.46 GPU-hours
    # "8" under the tables' "${:,.0f}" and "{:,.0f}". From 100 up the same text; below, cents
    # and three significant figures; zero stays "$0" / "0".
    df = pd.DataFrame({"usd": [0.0, 0.14, 48.32, 623963.4], "h": [0.0, 8.46, 12.0, 2048.0]})
    html = plots.table(df, {"usd": "${:,.0f}", "h": "{:,.0f}"}).data
    cells = [c for c in html.split("</td>")]
    for want in ("$0<", "$0.14<", "$48.32<", "$623,963<", ">0<", "8.46<", "12<", "2,048<"):
        assert any(want in c + "<" for c in cells), want
