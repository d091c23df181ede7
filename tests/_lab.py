"""The notebooks as a reader uses them: in JupyterLab, in Debian's Chromium (tests/_browser.py).

Which notebooks: a representative pair by default, every notebook with ``LLMCOST_LAB_ALL=1``
(``REPRESENTATIVE`` below says why; every panel is also checked headless on every run).

The checks and fixtures live here; tests/test_browser_lab_a.py and tests/test_browser_lab_b.py
each run half of the notebooks (``half(0)``, ``half(1)``) so that ``make test``'s two pytest-xdist
workers (one file each, tests/conftest.py) each get one half, each with its own JupyterLab
server started once per file.

A JupyterLab server is started on a free loopback port with a random token, on a copy of
``notebooks/`` (so nothing Lab autosaves can touch the committed files), with the notebook's
windowing off (every cell stays in the page, so every output can be read). Each numbered
notebook, found by glob (notebooks added later are tested too), is opened, all its cells are run
with Lab's own "Run All" command, and then:

* no cell shows an error output, and nothing was written to stderr (warnings included);
* every widget panel renders (each widget output becomes a widget in the page, none is left
  "Loading widget..." or shows "Error displaying widget");
* the first control of the notebook's Explore section (the first ``## Explore`` heading; its
  first widget panel; the panel's first control in page order: a dropdown, a slider, a number
  box, a check box or a button) is moved, and the text or the figure in the panel's output area
  (``ipywidgets.Output``, what the control drives, not the control's own read-out) changes.

The rule for a notebook without an Explore section: a notebook that declares the
``interactive`` parameter promises widgets and must have one (the test fails otherwise); a
notebook without that parameter (e.g. a glossary) must show no widget at all, and is checked for
running without errors only; the test says so in its output.

The server and the browser are stopped at the end of each test module, also when a check fails.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from llmcost import report
from llmcost.present.numbering import numbered_files

from _browser import chromium, requires_browser

NOTEBOOKS = numbered_files(report.NOTEBOOK_DIR)
# By default a representative pair runs in the browser: a notebook whose panel redraws a table
# and a figure from dropdowns and sliders, and one whose panel is a text box over a table. Every
# notebook's panel is checked headless on every run (tests/test_explore_in_process.py: the same
# first-control check, without rendering); LLMCOST_LAB_ALL=1 runs this browser test on every
# notebook, in two halves (one per pytest-xdist worker).
REPRESENTATIVE = ("01_flops", "10_glossary")
ALL = os.environ.get("LLMCOST_LAB_ALL", "") not in ("", "0")


def half(i: int) -> list[Path]:
    """Every other notebook, from the ``i``-th (0 or 1), under ``LLMCOST_LAB_ALL=1`` (the two
    halves take about as long); else the representative pair in half 0 and nothing in half 1."""
    if ALL:
        return NOTEBOOKS[i::2]
    return [nb for nb in NOTEBOOKS if nb.stem in REPRESENTATIVE] if i == 0 else []
RUN_TIMEOUT_MS = 300_000
CHANGE_TIMEOUT_MS = 60_000


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _settings(folder: Path) -> None:
    """Lab user settings: no notebook windowing (all cells stay in the DOM), no news or update
    checks (no network)."""
    files = {
        "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
        "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
            "fetchNews": "false", "checkForUpdates": False},
    }
    for name, value in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value))


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    root = tmp_path_factory.mktemp("lab")
    nbdir = root / "notebooks"
    shutil.copytree(report.NOTEBOOK_DIR, nbdir, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    _settings(root / "settings")
    port, token = _free_port(), secrets.token_hex(16)
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}  # inline figures in Lab
    env.update(JUPYTER_CONFIG_DIR=str(root / "config"), JUPYTER_RUNTIME_DIR=str(root / "run"),
               JUPYTER_DATA_DIR=str(root / "data"), JUPYTER_PLATFORM_DIRS="1")
    log = (root / "lab.log").open("w")
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
           f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
           f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={nbdir}",
           f"--LabApp.user_settings_dir={root / 'settings'}",
           f"--LabApp.workspaces_dir={root / 'workspaces'}",
           "--LabApp.expose_app_in_browser=True", "--LabApp.news_url=",
           "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
           "--ServerApp.allow_root=True"]
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env,
                            start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                pytest.fail(f"JupyterLab exited ({proc.returncode}); log: {root / 'lab.log'}")
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=5):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"JupyterLab did not start in 120 s; log: {root / 'lab.log'}")
                time.sleep(0.5)
        with chromium() as browser:
            ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
            # the page may only talk to this server: anything else would need a network
            ctx.route(re.compile(rf"^(?!{re.escape(base)}|data:|blob:).*"),
                      lambda route, request: route.abort())
            yield {"base": base, "token": token, "ctx": ctx, "root": root}
            ctx.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        log.close()


# The notebook panel Lab shows, through the app object (--LabApp.expose_app_in_browser).
PANEL = "window.jupyterapp && window.jupyterapp.shell.currentWidget"

STATE_JS = r"""() => {
  const w = window.jupyterapp.shell.currentWidget;
  const cells = w.content.widgets;
  const out = {busy: 0, errors: [], stderr: [], widgetOutputs: 0, widgetViews: 0,
               loading: 0, widgetErrors: [], explore: null, interactiveCells: 0};
  cells.forEach((cell, i) => {
    const m = cell.model;
    if (m.type === 'markdown' && out.explore === null &&
        /^#+\s*Explore\b/m.test(m.sharedModel.getSource())) out.explore = i;
    if (m.type !== 'code') return;
    if ((cell.node.querySelector('.jp-InputPrompt') || {}).textContent?.includes('*')) out.busy++;
    const outputs = m.outputs.toJSON();
    outputs.forEach((o) => {
      if (o.output_type === 'error') out.errors.push(`cell ${i}: ${o.ename}: ${o.evalue}`);
      if (o.output_type === 'stream' && o.name === 'stderr')
        out.stderr.push(`cell ${i}: ${String(o.text).slice(0, 300)}`);
      if (o.data && o.data['application/vnd.jupyter.widget-view+json']) out.widgetOutputs++;
    });
  });
  // a rendered widget output: an output area whose child is a widget view
  const views = [...document.querySelectorAll('.jp-OutputArea-output')]
    .filter((v) => v.querySelector(':scope > .jupyter-widgets') ||
                   /Loading widget|Error displaying widget/.test(v.innerText));
  views.forEach((v) => {
    if (v.querySelector(':scope > .jupyter-widgets') && v.getBoundingClientRect().height > 0)
      out.widgetViews++;
    if (/Loading widget/.test(v.innerText)) out.loading++;
    if (/Error displaying widget|Error rendering/.test(v.innerText))
      out.widgetErrors.push(v.innerText.slice(0, 200));
  });
  out.kernel = w.sessionContext.session?.kernel?.status;
  return out;
}"""

# The first widget panel after the Explore heading, its first control and what it drives.
EXPLORE_JS = r"""(exploreIndex) => {
  const w = window.jupyterapp.shell.currentWidget;
  const cells = w.content.widgets;
  for (let i = exploreIndex + 1; i < cells.length; i++) {
    const panel = cells[i].node.querySelector('.jp-OutputArea-output > .jupyter-widgets');
    if (!panel) continue;
    const view = panel.parentElement;
    view.setAttribute('data-llmcost-panel', '1');
    const control = [...view.querySelectorAll(
        'select, input, textarea, .noUi-handle, button, .widget-readout[contenteditable="true"]')]
      .find((el) => !el.disabled && !el.closest('.widget-output, .jupyter-widget-Output'));
    if (!control) return {cell: i, control: null};
    control.setAttribute('data-llmcost-control', '1');
    const kind = control.matches('.noUi-handle') ? 'slider'
      : control.tagName.toLowerCase() + (control.type ? ':' + control.type : '');
    const label = control.closest('.widget-inline-hbox, .jupyter-widgets')
      ?.querySelector('.widget-label')?.innerText || '';
    return {cell: i, control: kind, label: label};
  }
  return {cell: null, control: null};
}"""

# What the panel's output widgets show: their text and a digest of each image.
DRIVEN_JS = r"""() => {
  const panel = document.querySelector('[data-llmcost-panel]');
  const outs = [...panel.querySelectorAll('.widget-output, .jupyter-widget-Output')];
  const imgs = outs.flatMap((o) => [...o.querySelectorAll('img')])
    .map((im) => im.src.length + ':' + im.src.slice(-64));
  return {n: outs.length, text: outs.map((o) => o.innerText).join('\n'), imgs: imgs};
}"""


def _move(page, kind: str) -> str:
    """Move the marked control; return what was done."""
    ctl = page.locator("[data-llmcost-control]")
    if kind == "select:select-one":
        n = ctl.evaluate("e => e.options.length")
        i = ctl.evaluate("e => e.selectedIndex")
        ctl.select_option(index=(i + 1) % n)
        return f"chose option {(i + 1) % n} of {n}"
    if kind == "slider":
        ctl.focus()
        at_max = ctl.evaluate("e => e.getAttribute('aria-valuenow') === "
                              "e.getAttribute('aria-valuemax')")
        key = "ArrowLeft" if at_max else "ArrowRight"
        for _ in range(3):
            ctl.press(key)
        return f"pressed {key} three times"
    if kind in ("input:checkbox",) or kind.startswith("button"):
        ctl.click()
        return "clicked"
    if kind.startswith("input") or kind.startswith("textarea"):
        old = ctl.input_value()
        try:
            new = f"{float(old) * 1.5:g}" if float(old) else "1"
        except ValueError:
            new = old + "x"
        ctl.fill(new)
        ctl.press("Enter")
        return f"typed {new!r} over {old!r}"
    raise AssertionError(f"no way to move a control of kind {kind!r}")


@pytest.fixture(scope="module")
def lab_page(lab):
    """One JupyterLab page for every notebook of the module (Lab's start-up is paid once)."""
    page = lab["ctx"].new_page()
    page.goto(f"{lab['base']}/lab?token={lab['token']}")
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.started !== undefined "
                           "&& document.querySelector('.jp-LabShell')", timeout=120_000)
    page.evaluate("async () => { await window.jupyterapp.started; return true; }")
    yield page
    page.close()


def run_and_explore(lab, lab_page, nb) -> dict:
    """The per-notebook test (module docstring): run all cells in Lab, check, move a control.
    Returns what it saw: ``explored`` (the notebook declares ``interactive`` and its Explore
    control was moved), ``changed`` (the text or figure that control drives changed) and
    ``errors`` (error outputs, stderr and failed widgets, after the run)."""
    shot = lab["root"] / f"{nb.stem}.png"
    try:
        return _check_notebook(lab_page, lab, nb, shot)
    except Exception:
        lab_page.screenshot(path=str(shot), full_page=False)
        raise
    finally:  # shut the kernel down and close the tab without Lab's "save changes?" dialog
        lab_page.evaluate("""async () => {
          const w = window.jupyterapp.shell.currentWidget;
          if (w && w.sessionContext) { await w.sessionContext.shutdown(); w.dispose(); }
        }""")


def _check_notebook(page, lab, nb, shot):
    where = f"{nb.name} in JupyterLab (screenshot on failure: {shot})"
    declared = report.declared_parameters(nb)
    page.evaluate("async (path) => { await window.jupyterapp.commands.execute("
                  "'docmanager:open', {path}); return true; }", nb.name)
    page.wait_for_function(f"() => {PANEL} && {PANEL}.sessionContext && "
                           f"{PANEL}.context && {PANEL}.context.path.endsWith({nb.name!r}) && "
                           f"{PANEL}.sessionContext.session?.kernel?.status === 'idle'",
                           timeout=120_000)
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); "
                  "return true; }")
    page.wait_for_function(f"() => ({STATE_JS})().busy === 0 && "
                           f"{PANEL}.sessionContext.session?.kernel?.status === 'idle'",
                           timeout=RUN_TIMEOUT_MS, polling=100)
    # widgets render asynchronously after the kernel goes idle
    try:
        page.wait_for_function(f"() => {{ const s = ({STATE_JS})(); "
                               "return s.loading === 0 && s.widgetViews >= s.widgetOutputs; }",
                               timeout=60_000, polling=100)
    except Exception:
        pass  # the assertions below say what is missing
    state = page.evaluate(STATE_JS)
    assert state["loading"] == 0, f"{where}: {state['loading']} widgets still loading after 60 s"
    assert not state["errors"], f"{where}: error outputs: {state['errors']}"
    assert not state["stderr"], f"{where}: stderr output: {state['stderr']}"
    assert not state["widgetErrors"], f"{where}: widgets failed: {state['widgetErrors']}"
    assert state["widgetViews"] == state["widgetOutputs"], \
        f"{where}: {state['widgetOutputs']} widget outputs, {state['widgetViews']} rendered"
    if "interactive" not in declared:
        # the stated rule: no `interactive` parameter, no Explore section, no widgets
        assert state["widgetOutputs"] == 0, f"{where}: widgets without an `interactive` parameter"
        print(f"{nb.stem}: no `interactive` parameter: checked for errors only (no widgets)")
        return {"explored": False, "changed": False, "errors": state["errors"]}
    assert state["explore"] is not None, f"{where}: declares `interactive` but has no ## Explore"
    found = page.evaluate(EXPLORE_JS, state["explore"])
    assert found["cell"] is not None, f"{where}: no widget panel after the Explore heading"
    assert found["control"], f"{where}: the Explore panel (cell {found['cell']}) has no control"
    before = page.evaluate(DRIVEN_JS)
    assert before["n"] > 0, f"{where}: the Explore panel has no output area a control drives"
    assert before["text"].strip() or before["imgs"], f"{where}: the Explore output is empty"
    done = _move(page, found["control"])
    try:
        page.wait_for_function(
            f"(b) => {{ const a = ({DRIVEN_JS})(); return a.text !== b.text || "
            "JSON.stringify(a.imgs) !== JSON.stringify(b.imgs); }", arg=before,
            timeout=CHANGE_TIMEOUT_MS, polling=100)
    except Exception:
        raise AssertionError(f"{where}: moving the Explore section's first control "
                             f"({found['control']} {found['label']!r}: {done}) changed neither "
                             "the text nor the figure it drives") from None
    page.wait_for_function(f"() => {PANEL}.sessionContext.session?.kernel?.status === 'idle'",
                           timeout=CHANGE_TIMEOUT_MS)
    after = page.evaluate(DRIVEN_JS)
    assert "Traceback" not in after["text"] and "cannot compute" not in after["text"], \
        f"{where}: after {done}: {after['text'][:300]}"
    print(f"{nb.stem}: Explore control {found['control']} {found['label']!r}: {done}; "
          f"text changed: {after['text'] != before['text']}, figure changed: "
          f"{after['imgs'] != before['imgs']}")
    seen = page.evaluate(STATE_JS)
    return {"explored": True, "changed": after != before,
            "errors": seen["errors"] + seen["stderr"] + seen["widgetErrors"]}
