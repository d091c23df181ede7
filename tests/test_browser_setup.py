"""The browser tests' set-up: skipped with a reason that says what to install, never silently;
and the Chromium they use is the system's (Debian's package), not a Playwright download."""

import _browser


def test_skip_reason_names_what_to_install(monkeypatch):
    monkeypatch.setattr(_browser, "chromium_path", lambda: None)
    reason = _browser.skip_reason()
    assert reason and "no Chromium found" in reason and "apt-get install chromium" in reason


def test_chromium_is_found_where_debian_puts_it(monkeypatch, tmp_path):
    fake = tmp_path / "chromium"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("LLMCOST_CHROMIUM", str(fake))
    assert _browser.chromium_path() == str(fake)
    monkeypatch.setenv("LLMCOST_CHROMIUM", str(tmp_path / "missing"))
    found = _browser.chromium_path()
    assert found is None or found.endswith(("chromium", "chromium-browser"))
