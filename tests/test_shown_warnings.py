"""The package's warnings shown once per text (core.shown): a new-user trial's scenario fixing a
ZeRO stage its stack lacks printed six copies of the same StackFeatureWarning, each with a file
path and a line of code, in one cell of notebook 09 (every step of the plan search re-issued it
inside a catch_warnings block, which resets Python's once-per-location registry)."""
import sys
import types
import warnings

import llmcost
from llmcost.core import shown
from llmcost.core.stacks import StackFeatureWarning


def _show(hook, category, filename="/elsewhere/x.py", text="zero_stage=3: no ZeRO-3 path"):
    hook(category(text), category, filename, 1)


def test_each_package_warning_is_shown_once_in_words_and_others_go_on(capsys):
    others = []
    hook = shown.OncePerText(lambda *a, **k: others.append(a[0]))
    for _ in range(6):   # the six copies of the trial: one line
        _show(hook, StackFeatureWarning)
    _show(hook, UserWarning, filename=shown._PACKAGE_DIR / "bill" / "ledger.py", text="other")
    _show(hook, UserWarning)                         # another library's: its own display
    err = capsys.readouterr().err.splitlines()
    assert err == ["warning: zero_stage=3: no ZeRO-3 path", "warning: other"]
    assert [str(m) for m in others] == ["zero_stage=3: no ZeRO-3 path"]


def test_installing_twice_does_not_stack_and_keeps_the_first_display():
    saved = warnings.showwarning
    try:
        first = shown.show_once_per_text()
        second = shown.show_once_per_text()
        assert warnings.showwarning is second and second.default is first.default is saved
        assert second.seen == set()      # a fresh page says its warnings again
    finally:
        warnings.showwarning = saved


def test_only_a_kernel_installs_it(monkeypatch):
    # pytest (no IPython shell) keeps its own display, which records a test's warnings
    saved = warnings.showwarning
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: None))
    assert not shown.in_a_kernel() and shown.show_once_per_text_in_a_kernel() is None
    assert warnings.showwarning is saved
    shell = types.SimpleNamespace(kernel=object())
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: shell))
    try:
        assert shown.in_a_kernel()
        ns = {"__annotations__": {"model": str}, "model": "llama-2-7b"}
        assert llmcost.notebook_parameters(ns)["model"] == "llama-2-7b"
        assert isinstance(warnings.showwarning, shown.OncePerText)   # installed by the page
    finally:
        warnings.showwarning = saved


def test_an_explorer_update_says_its_warnings_again():
    # a widget clears its output before each update (widgets._clear): the warnings the page
    # showed there must show again for the new inputs, not be taken as already said
    saved = warnings.showwarning
    try:
        hook = shown.show_once_per_text()
        hook.seen.add("zero_stage=3: no ZeRO-3 path")
        shown.forget_shown()
        assert hook.seen == set()
    finally:
        warnings.showwarning = saved
    shown.forget_shown()   # nothing installed: nothing to forget, no error
