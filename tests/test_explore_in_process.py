"""Every notebook's Explore panel, run headless: the first control a reader meets changes what the
panel shows.

This is the check tests/_lab.py makes in JupyterLab, made on every numbered notebook without a
browser (the browser test runs a representative pair by default; ``LLMCOST_LAB_ALL=1`` runs it on
every notebook). Each notebook runs in this process with its defaults (tests/_inprocess.py); the
first widget it displays after its first ``## Explore`` heading is the panel. The panel's first
control in page order (a dropdown, a slider, a number box, a check box, a button or a toggle,
depth first through the boxes, never inside an ``Output``) is moved as a reader would move it:
the next option, three steps of a slider (down when at its maximum), a number box times 1.5, a
click. What the panel shows is recorded before and after the move: text printed into its
``Output`` (outside a kernel an ``Output`` lets prints through), tables and markdown it
displays, and a digest of each figure's pixels at ``plt.show()``. The move must change it, and
must not end in "cannot compute" or a traceback. No notebook may raise, and none may warn with
a ``UserWarning`` (what a reader would see as a red stderr box), as in the browser test.
"""

from __future__ import annotations

import contextlib

import pytest

pytest.importorskip("ipywidgets")
import ipywidgets as w  # noqa: E402
import IPython.display  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
from _inprocess import default_run, sharing_text_measures  # noqa: E402

from llmcost.present import report  # noqa: E402
from llmcost.present.numbering import numbered_files  # noqa: E402

NOTEBOOKS = [nb for nb in numbered_files(report.NOTEBOOK_DIR)
             if "interactive" in report.declared_parameters(nb)]
CONTROLS = (w.Dropdown, w.Select, w.RadioButtons, w.ToggleButtons, w.SelectionSlider,
            w.IntSlider, w.FloatSlider, w.FloatLogSlider, w.IntText, w.FloatText,
            w.BoundedIntText, w.BoundedFloatText, w.Text, w.Checkbox, w.ToggleButton, w.Button)


def first_control(widget):
    """The panel's first control in page order (depth first), never one inside an Output."""
    if isinstance(widget, w.Output):
        return None
    if isinstance(widget, CONTROLS) and not getattr(widget, "disabled", False):
        return widget
    for child in getattr(widget, "children", ()):
        found = first_control(child)
        if found is not None:
            return found
    return None


def move(ctl) -> str:
    """Move ``ctl`` as a reader would (tests/_lab.py's ``_move``); returns what was done."""
    if isinstance(ctl, w.Button):
        ctl.click()
        return "clicked"
    if isinstance(ctl, (w.Checkbox, w.ToggleButton)):
        ctl.value = not ctl.value
        return "toggled"
    if isinstance(ctl, (w.Dropdown, w.Select, w.RadioButtons, w.ToggleButtons, w.SelectionSlider)):
        n = len(ctl.options)
        ctl.index = (ctl.index + 1) % n
        return f"chose option {ctl.index} of {n}"
    if isinstance(ctl, (w.IntSlider, w.FloatSlider, w.FloatLogSlider)):
        sign = -1 if ctl.value >= ctl.max else 1
        for _ in range(3):
            ctl.value = min(ctl.max, max(ctl.min, ctl.value + sign * ctl.step))
        return f"moved three steps {'down' if sign < 0 else 'up'}"
    if isinstance(ctl, w.Text):
        ctl.value = ctl.value + "x"
        return "typed 'x'"
    old = ctl.value
    ctl.value = type(old)(old * 1.5) if old else type(old)(1)
    return f"typed {ctl.value!r} over {old!r}"


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_explore_panel_answers_its_first_control(nb, monkeypatch):
    where = f"{nb.name} (run in-process with its defaults)"
    # the run tests/test_figure_text_floor.py checks too, if it ran in this process first
    # (tests/_inprocess.py: default_run, displays and plt.show() recorded, warnings recorded)
    run = default_run(nb, keep=False)
    if run.error is not None:
        raise run.error
    shown_warnings = [f"{x.category.__name__}: {x.message}" for x in run.warnings
                      if issubclass(x.category, UserWarning)
                      and not issubclass(x.category, (DeprecationWarning, FutureWarning))]
    assert not shown_warnings, f"{where}: warnings a reader would see: {shown_warnings}"
    assert run.explore, f"{where}: declares `interactive` but has no ## Explore"
    assert run.panel is not None, f"{where}: no widget panel after the Explore heading"
    assert run.before.strip(), f"{where}: the Explore panel shows nothing"
    ctl = first_control(run.panel)
    assert ctl is not None, f"{where}: the Explore panel has no control"
    shown = run.shown
    shown.reset()
    monkeypatch.setattr(IPython.display, "display", run.display)  # as during the run
    monkeypatch.setattr(plt, "show", lambda *a, **k: shown.show())
    # text measured as during the run, so that what is shown before and after the move is
    # drawn the same way (plots.share_text_measures: the same pixels)
    with contextlib.redirect_stdout(shown.stdout), sharing_text_measures():
        done = move(ctl)
    after = shown.text()
    label = getattr(ctl, "description", "")
    assert after.strip(), f"{where}: after {type(ctl).__name__} {label!r} {done}, nothing shown"
    assert after != run.before, \
        f"{where}: {type(ctl).__name__} {label!r} {done}: the panel shows the same as before"
    assert "Traceback" not in after and "cannot compute" not in after, \
        f"{where}: after {done}: {after[:300]}"
