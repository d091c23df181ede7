"""Shared by tests/test_browser_*.py: find Debian's Chromium, launch it headless through
Playwright's Python package (``executable_path``: Playwright's own browser builds are never
downloaded), and say clearly why the browser tests are skipped when that cannot be done.

Chromium is looked for at ``$LLMCOST_CHROMIUM``, then ``/usr/bin/chromium`` (Debian's
``chromium`` package, which ``.ci/run`` installs when ``apt-get`` is usable), then
``chromium``/``chromium-browser`` on ``PATH``.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from contextlib import contextmanager
from pathlib import Path

import pytest


def chromium_path() -> str | None:
    for cand in (os.environ.get("LLMCOST_CHROMIUM"), "/usr/bin/chromium"):
        if cand and Path(cand).is_file() and os.access(cand, os.X_OK):
            return cand
    return shutil.which("chromium") or shutil.which("chromium-browser")


def skip_reason() -> str | None:
    """Why the browser tests cannot run here, or None."""
    # find_spec, not an import: every worker asks while collecting, and importing Playwright
    # costs it 0.4 s; the tests import it when they run
    if importlib.util.find_spec("playwright") is None:
        return ("Playwright's Python package is not installed (it is in the `test` extra: "
                "pip install -e '.[notebooks,test]')")
    if chromium_path() is None:
        return ("no Chromium found (looked at $LLMCOST_CHROMIUM, /usr/bin/chromium and PATH); "
                "on Debian: apt-get install chromium (.ci/run does this when apt-get is usable)")
    return None


requires_browser = pytest.mark.skipif(skip_reason() is not None, reason=skip_reason() or "")


@contextmanager
def chromium():
    """A headless Debian Chromium driven by Playwright; closed however the block ends."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        # --no-sandbox: CI runs as root, where Chromium refuses its sandbox.
        browser = pw.chromium.launch(executable_path=chromium_path(), headless=True,
                                     args=["--no-sandbox", "--disable-gpu",
                                           "--disable-dev-shm-usage"])
        try:
            yield browser
        finally:
            browser.close()
