"""How the package's own warnings are shown: once per text, as one ``warning: ...`` line on
stderr, with no source file or line (the form of the command line's other warnings).

The code enters ``warnings.catch_warnings`` often (the disk cache notes what a computation
showed, the plan search quiets what it re-issues), and each entry resets Python's
once-per-location registry, so a warning of the same cause repeats: a scenario that fixes a
ZeRO stage its stack lacks (``stacks.StackFeatureWarning``) printed six copies of the same
warning in one cell of notebook 09, each with a file path and a line of code. ``OncePerText``
prints each text once; another library's warning goes to the display it replaced. The command
line installs it for its whole run (``cli.main``), a notebook for its kernel's run of that
notebook (``scenario.notebook_parameters``: a fresh set of texts per notebook, so that each page
says what concerns it).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parents[1]


def package_warning(category, filename) -> bool:
    """Whether a warning is the package's own: its category defined in the package
    (``StackFeatureWarning`` raised with a ``stacklevel`` that points into a notebook's cell) or
    raised from one of the package's files."""
    return (getattr(category, "__module__", "").split(".")[0] == "llmcost"
            or str(filename).startswith(str(_PACKAGE_DIR)))


class OncePerText:
    """A ``warnings.showwarning`` that prints each of the package's warnings once per text
    (``package_warning``) as ``warning: <text>`` on stderr; others go to ``default``."""

    def __init__(self, default):
        self.default = default
        self.seen: set = set()

    def __call__(self, message, category, filename, lineno, file=None, line=None):
        if not package_warning(category, filename):
            return self.default(message, category, filename, lineno, file, line)
        text = str(message)
        if text not in self.seen:
            self.seen.add(text)
            print(f"warning: {text}", file=sys.stderr)
        return None


def show_once_per_text() -> OncePerText:
    """Install a fresh ``OncePerText`` as ``warnings.showwarning`` (in place of one installed
    before, whose display it keeps, so that repeated calls do not stack) and return it."""
    current = warnings.showwarning
    default = current.default if isinstance(current, OncePerText) else current
    warnings.showwarning = hook = OncePerText(default)
    return hook


def in_a_kernel() -> bool:
    """Whether this process is a Jupyter kernel (IPython already imported and its shell running
    a kernel): a notebook's run, not a script or a test that executes a notebook's cells."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return getattr(shell, "kernel", None) is not None


def show_once_per_text_in_a_kernel() -> OncePerText | None:
    """``show_once_per_text`` in a Jupyter kernel (``in_a_kernel``), nothing elsewhere: a test
    or script keeps the display it has (pytest's records the warnings a test shows)."""
    return show_once_per_text() if in_a_kernel() else None


def forget_shown() -> None:
    """Forget the texts the installed ``OncePerText`` has shown (none installed: nothing), so
    that they show again: an explorer widget clears its output before each update, and a
    warning of the new inputs must be said again there."""
    hook = warnings.showwarning
    if isinstance(hook, OncePerText):
        hook.seen.clear()


#: What marks the cell that shows a page's answer (``print_after_answer``): it calls the
#: answer sentences of ``llmcost.present.answers``.
ANSWER_CELL_MARK = "answers."


#: The note ``print_after_answer`` holds for the page's answer, and its hook (one at a time).
_PENDING: dict = {}


def print_after_answer(text: str | None) -> None:
    """Print ``text`` now, or in a Jupyter kernel after the first cell of the page from this one
    on whose source calls the page's answer sentences (``ANSWER_CELL_MARK``): a page opens with
    its answer, right under its title, and a note about its inputs follows it (a trial read
    eight pages that each opened on "mfu is a range ... this page uses its midpoint"). One note
    waits at a time: a later call replaces it, and ``None`` drops it (a cell run again with other
    inputs says what they are now, once). The note is dropped if the kernel starts another page
    first (IPython's execution count restarts, as a warm kernel's reset restarts it)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if in_a_kernel() else None
    if shell is None:
        if text is not None:
            print(text)
        return
    old = _PENDING.pop("hook", None)
    if old is not None:
        try:
            shell.events.unregister("post_run_cell", old)
        except ValueError:   # already gone (a reset cleared the callbacks)
            pass
    if text is None:
        return
    start = shell.execution_count

    def after(result) -> None:
        if shell.execution_count < start or \
                ANSWER_CELL_MARK in (getattr(result.info, "raw_cell", "") or ""):
            shell.events.unregister("post_run_cell", after)
            _PENDING.pop("hook", None)
            if shell.execution_count >= start:   # not another page's
                print(text)

    _PENDING["hook"] = after
    shell.events.register("post_run_cell", after)
