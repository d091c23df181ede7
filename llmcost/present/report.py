"""Reports: run every notebook for a scenario with papermill and write HTML and a summary.

``run_report(scenario, out_dir)`` validates the scenario before anything is written, runs the
notebooks (``jobs`` at a time, each worker in its own warm kernel, imported once and reset
between notebooks: ``kernels.py``; one line when each starts and finishes, with how many are
left), and writes into ``out_dir``:

* ``NN_name.ipynb``: each executed notebook (kept, with papermill's error banner, if it fails);
* ``NN_name.html``: the same without code;
* ``index.html``: the scenario, the headline figures and links to every page;
* ``summary.json`` and ``summary.csv``: the headline figures each notebook published with
  ``publish_summary``.

An existing ``out_dir`` is an error unless ``overwrite=True``, and even then only a folder that
an earlier report wrote (it holds a ``.llmcost-report`` marker) or an empty one is replaced.

Notebooks publish headline figures with ``publish_summary(notebook, rows)``: it displays a plain
text table (which nbval can check) together with a JSON copy under the MIME type
``application/vnd.llmcost.summary+json`` that the report collects.
"""

from __future__ import annotations

import ast
import base64
import atexit
import copy
import csv
import functools
import gc
import html
import json
import math
import os
import queue
import re
import sys
import threading
import time
import warnings
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Callable, NamedTuple

from ..bill.checks import (budget_warning, fp8_over_bf16, inherited_description_warning,
                           own_stack_hint, phase_does_not_fit, plan_does_not_fit,
                           scenario_warnings, states_do_not_fit)
from ..bill.ledger import (
    OUTSIDE_NOTE,
    build_ledger,
    headline_draws,
    point_outside,
    post_training_only,
    predicted_band_of,
    predicted_mfu_source,
    predicted_mfu_words,
    prices_at_mfu,
    simulate_ledger,
    trains_on_n_gpus,
)
from ..bill.levers import WASTE_KEYS
from ..bill.pilot import pilot_mfu, pilot_mfu_range
from ..bill.ranges import Range
from ..bill.scenario import (
    LEDGER_DEFAULTS,
    METADATA_KEYS,
    MFU_PREDICT,
    REPORT_SET_KEYS,
    ScenarioError,
    bill_values,
    check_run_rules,
    load_scenario,
    point_scenario,
    resolve_ledger_rl,
    validate_parameter,
    validate_parameters,
)
from ..bill.validation import (
    OWN_RUN_WORDS,
    SERVE_WEIGHT_DTYPE_ORDER,
    SETUP_KINDS,
    fitting_rl_gpus,
    fitting_serve_weight_dtype,
    magnitude_warnings,
    user_words,
    validate_scenario,
    with_step_model_beside_history,
)
from ..core.catalog import (
    CLUSTER_NOTEBOOKS,
    DATA_DIR,
    NETWORK_FIGURE_WORDS,
    NETWORK_FREE_NOTEBOOKS,
    load_accelerator,
    load_model,
    model_words,
    runnable_notebooks,
    scenario_accelerator,
)
from ..core.cachedir import cache_dir, pin_cache_dir
from ..core.diskcache import disk_cached
from ..core.hardware import Cluster, within_one_domain
from ..core.stacks import StackFeatureWarning
from ..core.units import (PERIOD_SECONDS, fmt_bytes, fmt_gpus, fmt_period, fmt_usd,
                          json_finite, not_finite_text, sig3, with_article)
from ..core.version import __version__
from ..serving import rl
from ..serving.inference import WEIGHT_BYTES, weight_bytes
from ..training.accuracy import band_for_step, central_mfu_words, mfu_spread_words
from ..training.calibrate import pilot_study
from ..training.reliability import storage_share_warning
from ..training.step import scenario_step
from .answers import pilot_band_words
from .glance import (
    SAMPLES,
    bill_glance,
    caveats_html,
    compare_bills,
    compare_days_words,
    compare_figure_html,
    compare_html,
    compare_inputs,
    compare_records,
    compared_sentence,
    difference_outside,
    glance_figure_html,
    glance_summary,
    mark_points_outside,
    lead_details,
    note_html,
    plain_sentences,
    scenario_names,
    unbroken_html,
    with_headline,
)
from .numbering import NOTEBOOK_DIR, notebook_number, numbered_files
from .texmath import markdown_math_to_mathml
from .twins import write_twin
from .workers import (
    FIGURES,
    KERNEL_ARGS,
    KernelStartError,
    WarmKernel,
    Worker,
    default_jobs,
    take_early,
    worker_key,
)

try:  # the folder lock of a running report (POSIX); Windows has none
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None

ROOT = DATA_DIR.parent
SUMMARY_MIME = "application/vnd.llmcost.summary+json"
MARKER = ".llmcost-report"
DEFAULT_TIMEOUT_S = 120
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
WIDGET_PLACEHOLDER = "[interactive widget: run this notebook in Jupyter to use it]"


class ReportError(RuntimeError):
    """A notebook failed during a report; the message names it and where it was kept."""


class UsageError(ReportError):
    """A report could not start (bad --notebooks, output folder in the way); nothing was run."""


class ReportInterrupted(ReportError):
    """The report was stopped (Ctrl-C); the folder holds an ``INCOMPLETE`` marker."""


# ------------------------------------------------------------------------------ publishing
def summary_row(key: str, label: str, value, unit: str = "", note: str = "") -> dict:
    """One headline figure: a machine key, a human label, a value, its unit and its convention."""
    if hasattr(value, "item"):
        value = value.item()
    return {"key": key, "label": label, "value": value, "unit": unit, "note": note}


def summary_text(rows: list[dict]) -> str:
    """The plain-text table ``publish_summary`` shows (label, value, unit, note), each value as
    the index page shows it (``index_value``: an MFU 48.8%, not 0.488, in both places)."""
    width = max(len(r["label"]) for r in rows)
    lines = []
    for r in rows:
        val = index_value(r)
        note = f"  ({r['note']})" if r["note"] else ""
        lines.append(f"{r['label']:<{width}}  {val}{note}")
    return "\n".join(lines)


def publish_summary(notebook: str, rows: list[dict]) -> None:
    """Display headline figures as text and as JSON the report collects into summary.json/csv.

    Parameters
    ----------
    notebook : str
        The notebook's stem, e.g. ``"01_flops"``.
    rows : list of dict
        Rows made with ``summary_row``.
    """
    from IPython.display import display

    display({"text/plain": summary_text(rows),
             SUMMARY_MIME: {"notebook": notebook, "rows": [_wire_row(r) for r in rows]}},
            raw=True)


#: A non-finite headline value in the summary message (``_wire_row``): the kernel's messages
#: are JSON, which has no Infinity or NaN (RFC 8259 §6; jupyter_client warns, with its file
#: path, in the notebook: a trial's failure-free job, whose MTBF is infinite).
NON_FINITE_TEXT = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}


def _wire_row(row: dict) -> dict:
    """``row`` as the summary message carries it: a non-finite float value as its text
    ("inf", "-inf", "nan"), read back by ``_collect_summary``."""
    v = row.get("value")
    if isinstance(v, float) and not math.isfinite(v):
        return {**row, "value": str(v), "value_non_finite": True}
    return row


def _unwire_row(row: dict) -> dict:
    """The row ``_wire_row`` sent: its non-finite value a float again."""
    if row.get("value_non_finite"):
        return {k: v for k, v in row.items() if k != "value_non_finite"} | {
            "value": NON_FINITE_TEXT[row["value"]]}
    return row


# ------------------------------------------------------------------------------ notebooks
def list_notebooks(selection: list[str] | None = None) -> list[Path]:
    """The numbered notebooks in reading order, optionally only those whose number, stem or name
    after the number is in ``selection`` (e.g. ``["01", "4b", "savings", "03_parallelism"]``).

    Raises
    ------
    UsageError
        If a selection item matches no notebook.
    """
    nbs = numbered_files(NOTEBOOK_DIR)
    if not selection:
        return nbs
    chosen = []
    for item in selection:
        item = item.strip()
        match = [nb for nb in nbs if item in (nb.stem, nb.stem.partition("_")[2])
                 or notebook_number(nb.stem) == item.zfill(len(notebook_number(nb.stem)))]
        if not match:
            raise UsageError(f"notebook {item!r} matches no notebook (have: "
                              f"{', '.join(nb.stem for nb in nbs)})")
        chosen.extend(m for m in match if m not in chosen)
    return sorted(chosen)


def declared_parameters(nb: Path) -> dict:
    """The parameters a notebook declares in its ``parameters`` cell: name -> {"name",
    "default" (the literal's source text), "help" (its comment)}, as papermill's
    ``inspect_notebook`` reports them (tests/test_ledger.py checks that they agree), read with
    ``ast`` so that validating a scenario (``llmcost estimate``) needs no papermill import.
    Read once per version of the file (its path, modification time and size): a scenario's
    validation reads every notebook's parameters, and the notebooks are 0.1-1 MB of JSON."""
    path = Path(nb)
    stat = path.stat()
    return {k: dict(v) for k, v in _declared_parameters(
        str(path.resolve()), stat.st_mtime_ns, stat.st_size).items()}


@functools.lru_cache(maxsize=64)
def _declared_parameters(path: str, mtime_ns: int, size: int) -> dict:
    """``declared_parameters`` of the file at ``path`` as it is at (``mtime_ns``, ``size``)."""
    cells = json.loads(Path(path).read_text(encoding="utf-8"))["cells"]
    src = next(("".join(c["source"]) for c in cells if c["cell_type"] == "code"
                and "parameters" in c.get("metadata", {}).get("tags", [])), "")
    out = {}
    lines = src.splitlines()
    for stmt in ast.parse(src).body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            line, v = lines[stmt.lineno - 1], stmt.value
            default = line.encode()[v.col_offset:v.end_col_offset].decode() \
                if v.end_lineno == stmt.lineno \
                else ast.get_source_segment(src, v)
            out[stmt.target.id] = {"name": stmt.target.id, "default": default,
                                   "help": line.split("#", 1)[1].strip() if "#" in line else ""}
    return out


def clean_notebook_metadata(nb) -> None:
    """Remove volatile metadata (widget state, papermill and timing data) and widget views, and
    merge each cell's consecutive stream outputs into one (nbconvert's
    ``CoalesceStreamsPreprocessor``): how a kernel flushes printed lines depends on timing, so
    without it a refresh on a loaded machine splits the same text into several outputs."""
    from nbconvert.preprocessors import CoalesceStreamsPreprocessor

    CoalesceStreamsPreprocessor().preprocess(nb, {})
    nb.metadata.pop("widgets", None)
    nb.metadata.pop("papermill", None)
    nb.metadata["kernelspec"] = {"display_name": "Python 3 (ipykernel)", "language": "python",
                                 "name": "python3"}
    nb.metadata["language_info"] = {"name": "python"}
    for cell in nb.cells:
        cell.metadata.pop("papermill", None)
        cell.metadata.pop("execution", None)
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if WIDGET_MIME in data:
                out["data"] = {"text/plain": WIDGET_PLACEHOLDER}


def refresh_notebooks(selection: list[str] | None = None, timeout_s: int = DEFAULT_TIMEOUT_S,
                      progress: Callable[[str], None] = print) -> list[Path]:
    """Re-execute the committed notebooks in place with their default parameters and clean them.

    Used by ``make notebooks``; the committed notebooks then show figures and numbers to a
    reader who runs nothing, and ``# NBVAL_CHECK_OUTPUT`` cells hold the current headline values.
    Each notebook's text twin (``notebooks/text/``, ``llmcost.twins``) is rewritten with it.
    """
    import nbformat
    from nbclient import NotebookClient

    nbs = list_notebooks(selection)
    for i, path in enumerate(nbs, 1):
        t0 = time.perf_counter()
        progress(f"[{i}/{len(nbs)}] executing {path.name} ...")
        nb = nbformat.read(path, as_version=4)
        client = NotebookClient(nb, timeout=timeout_s, kernel_name="python3",
                                resources={"metadata": {"path": str(path.parent)}},
                                record_timing=False, extra_arguments=KERNEL_ARGS)
        try:
            client.execute()
        except Exception as e:  # CellExecutionError, timeouts, dead kernels
            first = (getattr(e, "ename", "") + ": " + getattr(e, "evalue", "")).strip(": ") \
                or str(e).strip().splitlines()[-1]
            raise ReportError(f"{path.name} failed while executing ({first}); the file on disk "
                              "is unchanged") from None
        clean_notebook_metadata(nb)
        nbformat.write(nb, path)
        write_twin(path)  # notebooks/text/: the reviewable text twin (llmcost.twins)
        progress(f"[{i}/{len(nbs)}] {path.name} done in {time.perf_counter() - t0:.1f} s")
    return nbs


# ------------------------------------------------------------------------------ reports
@dataclass
class ReportResult:
    out_dir: Path
    notebooks: list[Path] = field(default_factory=list)
    html: list[Path] = field(default_factory=list)
    failed: list[Path] = field(default_factory=list)
    summary: dict = field(default_factory=dict)
    seconds: float = 0.0


class ReportPlan(NamedTuple):
    """What ``plan_report`` checked: the scenario (``mfu: predict`` resolved), the selected
    notebooks, the parameters each of them declares, and the validated value of every parameter
    of every notebook (the scenario's, completed by the notebooks' defaults), and the bill
    ``bill.validation.validate_scenario`` built from them."""

    scenario: dict
    notebooks: list
    declared: dict
    values: dict
    bill: object = None


def plan_report(scenario_path, selection: list[str] | None = None, *,
                notebook_setups: bool = True, states: bool = True,
                notebook_clusters: bool = True) -> ReportPlan:
    """Validate a scenario against the notebooks before anything runs.

    ``notebook_clusters=False`` (``estimate_ledger``, for a job within one scale-up domain)
    leaves out the check that the accelerator has the network figures the notebooks' clusters
    beyond one domain need (``_check_cluster``); the scenario's own plan is checked as ever.

    ``notebook_setups=False`` (``llmcost estimate``: the bill, not the pages) leaves out the
    illustrative RL and serving set-ups notebook 05 builds from its defaults; the set-ups the
    scenario asks for (``rl_``, ``serve_``, ``inference_`` keys, ``_asks_for_setups``; its
    ``rl_`` keys not under ``ledger_rl: false``, which says the bill bills no RL campaign) and a
    billed RL campaign are checked either way; a report checks each set-up its selected pages
    run (``_setup_pages``: 05 both, 06 serving), and a refusal that only those pages cause says
    which to leave out.

    Where no selected notebook builds the plan (its fit is then only warned of, ``checks``), a
    model whose states no plan could hold is refused all the same (``checks.states_do_not_fit``:
    every page would price a run that cannot start, and the bill refuses it,
    ``ledger.build_ledger``); ``states=False`` leaves that to the caller (``estimate_ledger``,
    which checks the plan, or the states where the plan cannot be built).

    Every key must be a parameter of at least one notebook (of all of them, not only the selected
    ones, so that one scenario file serves any ``--notebooks`` selection).

    Returns
    -------
    ReportPlan (scenario, notebooks, declared, values) where ``notebooks`` are the selected
    notebooks and ``declared`` maps each of them to its parameters.

    Raises
    ------
    ScenarioError
        A bad value, or a key that no notebook declares.
    """
    scenario = load_scenario(scenario_path)
    everything = list_notebooks()
    if not everything:
        raise UsageError(f"no notebooks found in {NOTEBOOK_DIR}")
    nbs = list_notebooks(selection)
    declared_all = {nb: declared_parameters(nb) for nb in everything}
    known = set().union(*declared_all.values())
    unknown = [k for k in scenario if k not in known and k not in METADATA_KEYS]
    if unknown:
        raise ScenarioError(f"{scenario_path}: key {unknown[0]!r} is not a parameter of any "
                            f"notebook ({', '.join(nb.stem for nb in everything)})")
    if "price_usd_per_gpu_hour" in known and "price_usd_per_gpu_hour" not in scenario:
        # an omitted price is null in every notebook and the bill (the catalogue median for this
        # accelerator and pricing mode, or the owned amortisation), never the notebooks' default
        # (the default scenario's H100 on-demand $3.99)
        scenario = {**scenario, "price_usd_per_gpu_hour": None,
                    "_price_usd_per_gpu_hour_omitted": (
                        "not in the scenario: null, the purchase price amortised with its "
                        "energy (owned pricing)" if scenario.get("pricing") == "owned" else
                        "not in the scenario: null, the catalogue median for its accelerator "
                        "and pricing")}
    if "ledger_rl" in known:  # the bill's RL line: "not given" unless the file describes one
        resolved = resolve_ledger_rl(scenario)
        if resolved is not scenario:
            scenario = {**resolved, "_ledger_rl_omitted": (
                "not in the scenario: false, no RL campaign billed (no rl_iterations or rl_runs)")}
    # Rules between parameters (the parallel plan, dtype on the accelerator, ...) are checked on
    # the values the notebooks will use: the scenario's, completed by the notebooks' defaults.
    used = effective_parameters(scenario, declared_all)
    if scenario.get("mfu") == MFU_PREDICT:
        scenario = resolve_mfu(scenario, used, scenario_path)
        used = effective_parameters(scenario, declared_all)
    if scenario.get("ledger_pilot_tokens_per_s_per_gpu") is not None:  # one MFU for every notebook
        scenario = calibrate_mfu(scenario, used, scenario_path)
        used = effective_parameters(scenario, declared_all)
    if scenario.get("pilot"):  # the step model calibrated on the pilots, extrapolated
        scenario = calibrate_pilot_mfu(scenario, used, scenario_path)
        used = effective_parameters(scenario, declared_all)
    if "serve_weight_dtype" in known and "serve_weight_dtype" not in scenario:
        scenario = choose_serve_weight_dtype(scenario, used)  # before the rollout TP: it reads it
        used = effective_parameters(scenario, declared_all)
    if "rl_gpus" in known and "rl_gpus" not in scenario:
        scenario = choose_rl_gpus(scenario, used)  # before the rollout TP: it divides them
        used = effective_parameters(scenario, declared_all)
    if "rl_rollout_tp" in known and "rl_rollout_tp" not in scenario:
        scenario = choose_rollout_tp(scenario, used)
        used = effective_parameters(scenario, declared_all)
    if "mfu" not in scenario:  # the notebooks' default: the bill labels it so
        scenario = {**scenario, "_mfu_default": True}
    try:
        if notebook_clusters:
            _check_cluster({k: v["value"] for k, v in used.items()}, nbs, declared_all)
        # Every value obeys its own rule whichever notebooks run; rules between parameters are
        # checked on what the selected notebooks will see (a plan that needs a scale-out figure
        # must not stop a run of notebooks 00-01 that never build one).
        # ranges (llmcost.ranges) stay in ``scenario``; the notebooks and checks use points
        values = point_scenario({k: validate_parameter(k, v["value"]) for k, v in used.items()})
        selected_keys = set().union(*(declared_all[nb] for nb in nbs))
        validate_parameters(**{k: v for k, v in values.items() if k in selected_keys})
        for nb in nbs:   # each page's own first check, on the keys it declares (a page
            try:         # pricing owned GPU-hours without the purchase price failed in its kernel)
                validate_parameters(**{k: v for k, v in values.items() if k in declared_all[nb]})
            except ScenarioError as e:
                raise ScenarioError(f"notebook {Path(nb).stem} cannot run it: {e}") from None
        if "tp" in selected_keys:  # a notebook builds the plan: it must fit in memory
            # and each extra phase priced at the main run's MFU (checks.phase_does_not_fit)
            misfit = plan_does_not_fit(values) or phase_does_not_fit(values)
            if misfit:
                raise ScenarioError(misfit)
        elif states:  # no selected page builds the plan: the states bound, needing none
            misfit = states_do_not_fit(values)
            if misfit:
                raise ScenarioError(misfit)
        # the whole scenario, as `llmcost estimate` checks it: the bill builds, every money line
        # is finite and >= 0, the RL and serving set-ups run (llmcost.bill.validation)
        setups = tuple(k for k in SETUP_KINDS
                       if (notebook_setups and _setup_pages(k, nbs, declared_all))
                       or _asks_for_setups(scenario, SETUP_PREFIXES[k]))
        bill = validate_scenario(values, private_keys(scenario), check_plan=False,
                                 check_setups=setups, check_memory=False)
    except ScenarioError as e:
        defaults = [k for k, v in used.items() if v["from"] != "scenario"]
        hint = (" (keys the scenario leaves out take the notebooks' defaults: `llmcost list "
                "parameters`)") if defaults else ""
        hint += _setup_pages_hint(e, scenario, nbs, declared_all) + _way_out_hint(e, scenario,
                                                                                  used)
        raise ScenarioError(f"{scenario_path}: {user_words(str(e))}{hint}") from None
    return ReportPlan(scenario, nbs, {nb: declared_all[nb] for nb in nbs}, values, bill)


#: The scenario keys that describe each set-up of ``validation.SETUP_KINDS``.
SETUP_PREFIXES = {"rl": ("rl_",), "serving": ("serve_", "inference_")}


def _setup_pages(kind: str, nbs: list, declared_all: dict) -> list:
    """The selected notebooks that run a set-up outside the bill: the serving set-up, those that
    read ``serve_`` keys but do not build the whole bill (05, 06: they declare only the
    owned-hardware keys they price GPU-hours with, not the bill's other lines, e.g. its
    annotation line's); the RL set-up, those of them that read the RL job (``rl_gpus``: 05)."""
    pages = [nb for nb in nbs if "serve_tp" in declared_all[nb]
             and "ledger_annotation_samples" not in declared_all[nb]]
    return [nb for nb in pages if kind == "serving" or "rl_gpus" in declared_all[nb]]


def _asks_for_setups(scenario: dict, prefixes=("rl_", "serve_", "inference_")) -> bool:
    """Whether the scenario itself gives an RL or serving set-up (a key of ``prefixes`` it wrote,
    not one the report chose), so that a report and ``llmcost estimate`` check it whichever
    pages run; its ``rl_`` keys do not count under a written ``ledger_rl: false`` (the bill bills
    no RL campaign: they describe notebook 05's example, checked when 05 runs), though they do
    when the report set it false for want of a campaign (``_ledger_rl_omitted``)."""
    skip_rl = scenario.get("ledger_rl") is False and "_ledger_rl_omitted" not in scenario
    return any(k.startswith(tuple(prefixes)) for k in scenario
               if f"_{k}_chosen" not in scenario and not (skip_rl and k.startswith("rl_")))


def _setup_pages_hint(e: ScenarioError, scenario: dict, nbs: list, declared_all: dict) -> str:
    """The words a refused RL or serving set-up gets when only the selected pages that run it
    (``_setup_pages``) ask for it and ``llmcost estimate`` would not refuse it (the scenario
    gives no key of it, ``_asks_for_setups``, and bills no RL campaign): the notebooks to leave
    out to report without it. Else ""."""
    kind = next((k for k, words in (("rl", "RL set-up"), ("serving", "serving set-up"))
                 if str(e).startswith(words)), None)
    pages = [] if kind is None else _setup_pages(kind, nbs, declared_all)
    if not pages or _asks_for_setups(scenario, SETUP_PREFIXES[kind]) or \
            (kind == "rl" and scenario.get("ledger_rl")):
        return ""
    names = " and ".join(Path(nb).stem.split("_")[0] for nb in pages)
    many = len(pages) > 1
    return (f"; notebook{'s' if many else ''} {names} price{'' if many else 's'} this set-up "
            f"whether or not the bill does: `--notebooks` without {'them' if many else names} "
            "reports without it")


def _way_out_hint(e: ScenarioError, scenario: dict, used: dict) -> str:
    """The scenario key that lifts a refused RL or serving set-up, when the scenario wrote the
    key in the way: a ``serve_weight_dtype`` it gives at which the model does not fit, where
    left out the report takes the widest precision that fits (``fitting_serve_weight_dtype``,
    named); an RL campaign it bills (``ledger_rl: false`` bills none). Else "" (a trial copied
    the default scenario's ``serve_weight_dtype: bf16`` for DeepSeek-V3 and read only "a lower
    serve_weight_dtype")."""
    msg, out = str(e), ""
    # an RL refusal whose rollouts have their own precision is not lifted by serve_weight_dtype
    rl_own = msg.startswith(("RL set-up", "RL post-training line")) and \
        bool(scenario.get("rl_rollout_weight_dtype"))
    if msg.startswith(("serving set-up", "RL set-up", "RL post-training line")) and not rl_own \
            and "serve_weight_dtype" in scenario and "_serve_weight_dtype_chosen" not in scenario:
        vals = {k: v["value"] for k, v in used.items()}
        try:
            fit = fitting_serve_weight_dtype(vals)
        except (ValueError, KeyError, TypeError):
            fit = None
        wider = WEIGHT_BYTES.get(scenario["serve_weight_dtype"], 0) > WEIGHT_BYTES.get(fit, 0)
        if fit and wider and msg.startswith(("RL set-up", "RL post-training line")):
            # serving's fit is not the rollouts': at the scenario's rollout TP it must price
            # too (an economist's 405B at rl_rollout_tp 4 was told fp8, 101.5 GB a GPU)
            fit = fit if fitting_rl_gpus({**vals, "serve_weight_dtype": fit},
                                         keep_tp="rl_rollout_tp" in scenario) else None
        if fit and wider:  # the written precision is the one that does not fit
            out += (f"; the scenario writes serve_weight_dtype: {scenario['serve_weight_dtype']}"
                    f": left out, the report takes the widest precision that fits, {fit}")
    if msg.startswith(("RL set-up", "RL post-training line")) and scenario.get("ledger_rl") \
            is not False and "_ledger_rl_omitted" not in scenario:
        out += "; `ledger_rl: false` bills no RL campaign"
    batch = used.get("global_batch_tokens", {})
    if "do not split with a global batch" in msg and batch.get("from", "scenario") != "scenario":
        out += _default_batch_words(batch["value"], used)
    return out


def _default_batch_words(tokens: int, used: dict) -> str:
    """What a refusal of a GPU count the default batch cannot split adds: that the batch was
    not given (a compute-governance trial's 25,000 H100s were refused at the default 4,194,304
    tokens and told only to use 4,096 GPUs); the refusal itself says which batches split."""
    seq = int(used.get("seq_len", {}).get("value") or 0)
    seqs = f" ({tokens // seq:,} sequences of {seq:,})" if seq else ""
    return (f"; global_batch_tokens is not given: the default, {tokens:,} tokens{seqs}, the "
            f"default scenario's for {fmt_gpus(LEDGER_DEFAULTS['n_gpus'])}, was used: give "
            "the run's own")


def estimate_ledger(scenario_path):
    """The bill of a scenario file, validated exactly as ``plan_report`` validates a report of
    every notebook (``mfu: predict`` resolved the same way): what ``llmcost estimate`` prints.

    The parallel plan is checked as the report checks it (it must exist and fit in memory),
    unless the accelerator lacks the scale-up or scale-out figures the plan notebooks need (the
    report can then run only 00, 01, 07, 08 and 10): the bill is built and a warning says the plan was
    not checked. ``Ledger.warnings`` holds the report's warnings (``checks.scenario_warnings``,
    the predicted MFU's band and the budget), the model's own software first where it would
    price the run differently (``checks.own_stack_hint``).

    Raises
    ------
    ScenarioError, UsageError
        As ``plan_report``.
    """
    plan = plan_report(scenario_path, ["00"], states=False, notebook_setups=False)
    extra = []
    one_domain = _within_one_domain(plan.values)
    try:
        if not trains_on_n_gpus(plan.values):   # LoRA or RL alone: no full run on n_gpus
            raise ScenarioError(NO_FULL_RUN_WORDS)
        if not one_domain:
            _check_cluster({k: v for k, v in plan.values.items()}, list_notebooks(),
                           {nb: declared_parameters(nb) for nb in list_notebooks()})
        cluster_ok = True
    except ScenarioError as e:
        cluster_ok = False
        extra.append(f"the parallel plan is not checked: {e}".split(": choose another")[0])
        misfit = trains_on_n_gpus(plan.values) and states_do_not_fit(plan.values)  # no plan
        if misfit:
            raise ScenarioError(f"{scenario_path}: {misfit}")
    if cluster_ok:  # refuses what a full report refuses, notebook 05's illustrations aside
        # (and, for a job within one scale-up domain, the notebooks' clusters beyond it)
        plan = plan_report(scenario_path, None, notebook_setups=False,
                           notebook_clusters=not one_domain)
    values, scenario = plan.values, plan.scenario
    try:
        bill = build_ledger({**bill_values(values),
                             **private_keys(scenario)})
    except ScenarioError as e:
        raise ScenarioError(f"{scenario_path}: {e}") from None
    used = effective_parameters(scenario, {nb: declared_parameters(nb) for nb in
                                           list_notebooks()})
    defaults = set(_defaults_used(used))
    if not prices_at_mfu(values):   # an RL campaign alone: its sequences are the rl_ keys'
        defaults.discard("seq_len")
    pred = scenario.get("_mfu_prediction")
    # the MFU is judged against full training runs: an RL campaign alone prices nothing at it,
    # and LoRA (frozen weights) is no such run
    warnings = scenario_warnings(values if trains_on_n_gpus(values) else {**values, "mfu": None},
                                 mfu_predicted=pred is not None, defaults=defaults,
                                 given_mfu=scenario.get("mfu"),
                                 piloted="_mfu_calibration" in scenario,
                                 pilot_warnings=_calibration_warnings(scenario))
    if pred:
        bd = pred["band"]
        spread = mfu_spread_words(bd.get("center", 0.0), bd["half_width"], bd.get("capped_above"),
                                  bd.get("floored_below"))
        basis = bd.get('basis', bd.get('regime', ''))
        # a band warning that states the basis already (too few runs: the stated default) is
        # not repeated here (a trial read the same ±30% sentence in two warnings in a row)
        core = re.search(r"published step times .*?\(an error on the step time\)", basis)
        told = core is not None and any(core.group(0) in w for w in bd.get("warnings", []))
        warnings = [f"mfu: predict -> {pred['value']:.1%}: {predicted_mfu_words(pred)}; the "
                    "bill draws the MFU with that band's ends as its P5 and P95 ("
                    + ("its spread and basis: the warning on its regime's held-out runs"
                       if told else f"{spread}; {basis}") + ")"] \
            + list(bd.get("warnings", [])) \
            + warnings
    over = budget_warning(bill.total_usd, values.get("ledger_budget_usd"))
    # where page 04b runs (a job inside one scale-up domain skips the cluster check, and an
    # accelerator without a scale-out figure runs no 04b: a review's 4 L40S were sent to it)
    band = _estimate_pilot_band(scenario, values, bill) if cluster_ok and runnable_notebooks(
        scenario_accelerator(values)) == "all" else None
    late = [w for w in (_bill_storage_warning(bill), band, inherited_description_warning(
        scenario)) if w]   # as the index's late ones
    warnings = with_step_model_beside_history(warnings + magnitude_warnings(values, bill)
                                              + late, values)
    warnings = [beside_own_run(w, warnings) if w == band else w for w in warnings]
    # first: the model's own software would price the run differently (a trial's DeepSeek-V3
    # was billed 1.8x its published hours on the default stack; the hint was 5th of 7)
    own = own_stack_hint(values, pred is not None, defaults)
    bill.warnings = list(dict.fromkeys(([own] if own else []) + warnings + extra
                                       + ([over] if over else [])))
    # the RL settings the report chose where the notebooks' default cannot be priced, said
    # beside the RL line (a trial's rl_gpus: 3 was priced at a rollout TP of 1 without a word)
    billed = bill.line("post.rl").usd > 0   # the campaign billed, given ledger_rl or not
    bill.figures["chosen"] = {k: scenario[f"_{k}_chosen"] for k in ("rl_gpus", "rl_rollout_tp")
                              if f"_{k}_chosen" in scenario and billed}
    return bill


def _within_one_domain(values: dict) -> bool:
    """True when the scenario's job fits in one scale-up domain of its accelerator (``n_gpus``
    <= ``scaleup_domain_size``): its own step crosses no NIC, so its plan is checked without a
    scale-out figure (``Cluster``); False otherwise or where the accelerator is unknown."""
    try:
        acc = scenario_accelerator(values)
    except (ValueError, TypeError):
        return False
    n = values.get("n_gpus")
    return isinstance(n, int) and within_one_domain(n, acc.scaleup_domain_size)


def _check_cluster(values: dict, nbs: list, declared_all: dict) -> None:
    """The parallelism, communication and checkpoint notebooks build a ``Cluster``, and 05 and
    06 the RL set-up's (``catalog.CLUSTER_NOTEBOOKS``): the accelerator needs scale-up and
    scale-out figures in the catalogue."""
    if "accelerator" not in values or not any(
            "tp" in declared_all[nb] or notebook_number(Path(nb).stem) in CLUSTER_NOTEBOOKS
            for nb in nbs):
        return
    try:
        acc = scenario_accelerator(values)
    except (ValueError, TypeError):
        return  # validation names the unknown accelerator or the bad figure
    try:  # beyond one scale-up domain, as the notebooks' own sweeps go (a job within one
        # needs no scale-out figure: Cluster)
        Cluster(acc, (acc.scaleup_domain_size or 1) + 1)
    except ValueError as e:
        field = e.args[0].split(':')[0]
        key = " or give comm_scaleout_bytes_per_s in the scenario" if \
            field == "scaleout_bytes_per_s_per_dir" else ""
        n, domain = values.get("n_gpus"), acc.scaleup_domain_size
        # a trial's 4-GPU job on one L40S server: its own step crosses no NIC (mfu: predict
        # prices it), but the notebooks' sweeps and RL set-up go beyond one server
        fits = (f" (they price clusters beyond one {domain}-GPU scale-up domain; this run's "
                f"{n} GPUs fit in one, which `llmcost estimate` and mfu: predict price "
                "without it)") if key and isinstance(n, int) and within_one_domain(n, domain) \
            else ""
        raise ScenarioError(f"accelerator={values['accelerator']!r}: "
                            f"{NETWORK_FIGURE_WORDS.get(field, field)} "
                            "is missing from data/accelerators.csv (no sourced figure), and the "
                            f"parallelism notebooks need it{fits}: choose another accelerator, "
                            f"add a sourced figure{key}, or run only the notebooks it can run "
                            f"(--notebooks {','.join(NETWORK_FREE_NOTEBOOKS)}; `llmcost list "
                            f"accelerators`: {runnable_notebooks(acc)})") from None


def _predict_network_words(e: ValueError) -> str:
    """A refusal of ``mfu: predict``'s parameters, where the accelerator has no sourced network
    figure, in the words of what asked for it: the prediction itself (the step-time model prices
    the plan's communication on the cluster), not plan keys the scenario may not give (the
    values checked are completed by the notebooks' defaults, which hold every plan key); any
    other refusal as it is."""
    if not getattr(e, "network_missing", False):  # scenario._cross_check sets both
        return str(e)
    head = e.plan_refusal.rstrip(".")
    return (f"{head}. It is mfu: predict that needs it (the step-time model prices the plan's "
            "communication on this cluster); or give mfu as a number, which needs no network "
            "figure (notebooks "
            f"{', '.join(NETWORK_FREE_NOTEBOOKS)} run then: --notebooks "
            f"{','.join(NETWORK_FREE_NOTEBOOKS)})")


def resolve_mfu(scenario: dict, used: dict, scenario_path="scenario") -> dict:
    """Replace ``mfu: predict`` by the step-time model's prediction, once, before notebooks run.

    The prediction is ``llmcost.step.scenario_step`` on the parameters every notebook will use
    (``used``: the scenario's values completed by the notebooks' defaults), i.e. on the scenario's
    own plan. Returns a copy of ``scenario`` whose ``mfu`` is the band's central estimate of
    the prediction (``accuracy.central_mfu``: p / (1 + c), c the median held-out error of the
    plan's regime (shrunk toward 0 below 9 runs), kept inside the band; the prediction itself where the regime has no held-out
    run) and whose private key ``_mfu_prediction`` records where it came from (shown in
    index.html and summary.json; not passed to notebooks): ``value`` the bill's MFU,
    ``predicted`` the raw prediction p, ``center`` p / (1 + c) before it is kept inside the
    band, ``center_capped`` whether the band's capped top is below it (the point is then the
    top), ``words`` both figures in a sentence (``accuracy.central_mfu_words``), ``cap`` what
    set the band's capped top (``MfuBand.cap_source``; "" uncapped), ``band``.

    Raises
    ------
    ScenarioError
        If the prediction cannot be made (a bad plan, an accelerator without the figures the
        model needs); the message names the scenario file.
    """
    p = {k: v["value"] for k, v in used.items() if k != "mfu"}
    try:  # a bad value of the scenario is its own error, not the prediction's
        validate_parameters(**p)
    except ValueError as e:
        raise ScenarioError(f"{scenario_path}: {_predict_network_words(e)}") from None
    try:
        plan, b = scenario_step(p)
    except ValueError as e:
        raise ScenarioError(f"{scenario_path}: mfu: predict: {e}") from None
    band = band_for_step(b, plan, load_model(p["model"]), p.get("accelerator", "H100-SXM"),
                         dtype=p.get("dtype", "bf16"), seq_len=p.get("seq_len"))
    out = dict(scenario)
    # the bill's MFU: the band's central estimate p / (1 + c), kept inside the band
    # (accuracy.central_mfu); six decimals, rounded down so that a point at its band's capped
    # top stays inside it
    point, central, capped = band.central()
    value = math.floor(point * 1e6) / 1e6
    if value <= 0:  # below a millionth of the peak: "mfu=0.0 must be in (0, 1]" blamed the file
        part, secs = max(b.parts.items(), key=lambda kv: kv[1])
        raise ScenarioError(
            f"{scenario_path}: mfu: predict: the step-time model predicts an MFU of "
            f"{float(b.mfu):.2g} for {plan.describe()} "
            f"({with_article(f'{b.step_time_s:,.4g}')}-s step, "
            f"{part.replace('_s', '').replace('_', ' ')} {secs:,.4g} s of it): below a "
            "millionth of the peak; check the figures that drive that part (e.g. "
            "comm_scaleout_bytes_per_s, efficiency_profile)")
    out["mfu"] = value
    out["_mfu_prediction"] = {
        "value": value, "predicted": float(b.mfu), "center": central, "center_capped": capped,
        "words": central_mfu_words(float(b.mfu), band.center, band.n, band.low, band.high,
                                   plan.describe(), point=value, cap=band.cap_source()),
        "cap": band.cap_source(),
        "plan": plan.describe(),
        "from": f"predicted by llmcost.step for {plan.describe()}" + (
            f", kernels at the efficiency profile {Path(p['efficiency_profile']).name}"
            if p.get("efficiency_profile") else ""),
        "step_time_s": b.step_time_s, "hfu": b.hfu, "tokens_per_s": b.tokens_per_s,
        "efficiency_row": b.efficiency_row, "stack": b.stack,
        "efficiency_profile": Path(p["efficiency_profile"]).name
        if p.get("efficiency_profile") else None,
        "breakdown_s": {k: float(v) for k, v in b.parts.items()},
        "band": {"low": band.low, "high": band.high, "half_width": band.half_width,
                 "center": band.center, "n": band.n, "regime": band.regime,
                 "capped_above": band.capped_above(),
                 "floored_below": band.floored_below(),
                 "validated": band.validated,
                 "sets": list(band.sets), "text": band.describe(), "basis": band.basis(),
                 "warnings": list(band.warnings)},
    }
    return out


def calibrate_mfu(scenario: dict, used: dict, scenario_path="scenario") -> dict:
    """Replace ``mfu`` by the MFU a pilot's throughput (``ledger_pilot_tokens_per_s_per_gpu``)
    extrapolates to on the scenario's plan (``bill.pilot.pilot_mfu``, the function the bill of a
    notebook run alone uses too: the pilot ran the scenario's plan at ``ledger_pilot_n_gpus``, or
    at ``n_gpus`` when not given), once, before notebooks run, so that every notebook and the
    bill use it. The private key ``_mfu_calibration`` records where it came from and its band.
    When the pilot is smaller than the run, the notebooks receive the extrapolated ``mfu`` and
    neither the throughput nor its scale (nothing left to extrapolate; the parameter list says
    where both went), and the report's warnings read the MFU as a pilot's (``piloted``).

    Raises
    ------
    ScenarioError
        If the scenario also asks for ``mfu: predict``, or a bad pilot (one line naming the
        field: a throughput above the roofline, a pilot scale the plan cannot run on).
    """
    if "_mfu_prediction" in scenario:
        raise ScenarioError(f"{scenario_path}: give either mfu: predict or "
                            "ledger_pilot_tokens_per_s_per_gpu, not both")
    v = {k: x["value"] for k, x in used.items()}
    tps = scenario["ledger_pilot_tokens_per_s_per_gpu"]
    v["ledger_pilot_tokens_per_s_per_gpu"] = tps
    v["ledger_pilot_n_gpus"] = validate_parameter("ledger_pilot_n_gpus",
                                                  scenario.get("ledger_pilot_n_gpus"))
    v["pilot"] = []  # the shorthand alone (a scenario giving both is refused by the pilot: path)
    try:
        got = pilot_mfu(v)
    except ValueError as e:
        raise ScenarioError(f"{scenario_path}: {e}") from None
    out = dict(scenario)
    out["mfu"] = got["value"]
    out["_mfu_calibration"] = {"value": got["value"], "tokens_per_s_per_gpu": tps,
                               "from": got["from"],
                               "warnings": tuple(got.get("factor_warnings", ())),
                               **{k: got[k] for k in ("low", "high") if k in got}}
    if got["pilot_n_gpus"] != got["n_gpus"]:  # extrapolated: neither is passed on (a notebook
        # given the scale without the throughput refuses it: pilot_scale_given_with_throughput)
        said = (f"scenario: {tps:,g} tokens/s per GPU on {fmt_gpus(got['pilot_n_gpus'])}, "
                "extrapolated to the run's mfu before any notebook ran (not passed on)")
        for k in ("ledger_pilot_tokens_per_s_per_gpu", "ledger_pilot_n_gpus"):
            out[k] = None
            out[f"_{k}_omitted"] = said
    return out


def _calibration_warnings(scenario: dict) -> tuple:
    """The warnings ``calibrate_mfu`` recorded with a pilot's extrapolated MFU (a pilot faster
    than any comparable published run, a fitted factor out of range), () when none."""
    return tuple(scenario.get("_mfu_calibration", {}).get("warnings", ()))


def choose_rl_gpus(scenario: dict, used: dict) -> dict:
    """When the scenario gives no ``rl_gpus``, notebook 05's RL campaign takes the notebooks'
    64 GPUs; if the iteration cannot be priced there at any rollout TP (the scenario's
    ``rl_rollout_tp`` when it gives one), for a 405B or 671B policy whose update's training
    state does not fit 64 GPUs, the smallest count from the default by doubling on which it can
    (``validation.fitting_rl_gpus``), recorded as chosen (private key ``_rl_gpus_chosen``), so
    that a report never stops on a setting the scenario did not give. Returns the scenario
    unchanged when the default prices or no count does (the check then names the key)."""
    p = {k: v["value"] for k, v in used.items()}
    default = p["rl_gpus"]
    rollout = scenario.get("rl_rollout_gpus")
    if isinstance(rollout, (int, float)) and rollout >= default:
        # the scenario's rollout GPUs leave no trainer in the default job: refused by the bill
        # with both keys named, not grown in silence (a trial's rl_rollout_gpus 100 was billed
        # on 128 GPUs by estimate and on 64 + 100 by check)
        return scenario
    try:
        check_run_rules(p)
        found = fitting_rl_gpus(p, keep_tp="rl_rollout_tp" in scenario)
    except (ValueError, KeyError, TypeError):  # the checks below name what is wrong
        return scenario
    if found is None or found[0] == default:
        return scenario
    return {**scenario, "rl_gpus": found[0], "_rl_gpus_chosen": (
        f"chosen: the smallest RL job, from the notebooks' {default} GPUs by doubling, on "
        f"which the policy's update fits (the notebooks' {default} do not; give rl_gpus to set "
        "it)")}


def choose_rollout_tp(scenario: dict, used: dict) -> dict:
    """When the scenario gives no ``rl_rollout_tp``, notebook 05's RL campaign (an illustration
    unless the scenario has ``rl_`` keys) takes the notebooks' default; if the policy's weights
    do not fit at that TP, or it does not divide the model's heads, the nearest that can be
    priced (``rl.fitting_rollout_tp``) instead, recorded
    as chosen (private key ``_rl_rollout_tp_chosen``, shown where the index lists the
    parameters), so that a report never stops on a setting the scenario did not give. Returns the
    scenario unchanged when the default fits or nothing does (the check then names the key)."""
    p = {k: v["value"] for k, v in used.items()}
    try:
        check_run_rules(p)  # e.g. rl_gpus more than the RL batch feeds: refused below, unsearched
        tp = rl.fitting_rollout_tp(p)  # tried from the default up: the default when it fits
    except (ValueError, KeyError, TypeError):  # the checks below name what is wrong
        return scenario
    if tp is None or tp == p["rl_rollout_tp"]:
        return scenario
    default = int(p["rl_rollout_tp"])
    try:  # why the default cannot be priced, in the iteration's own words
        rl.scenario_iteration(p)
        why = "it could not be priced"
    except ValueError as e:
        why = str(e)
    return {**scenario, "rl_rollout_tp": tp, "_rl_rollout_tp_chosen": (
        f"chosen: the rollout TP nearest the notebooks' {default} at which the RL iteration can "
        f"be priced (at {default}: {why}); give rl_rollout_tp to set it")}


def choose_serve_weight_dtype(scenario: dict, used: dict) -> dict:
    """When the scenario gives no ``serve_weight_dtype``, notebook 05's illustrative serving
    replica (Part I: one TP replica of at most one scale-up domain, the scenario's ``serve_tp`` if
    it gives one) takes the notebooks' BF16; if the model and a batch do not fit it, or one
    sequence's roofline TPOT misses ``serve_max_tpot_s`` in it, the widest precision of
    ``validation.SERVE_WEIGHT_DTYPE_ORDER`` (BF16, FP8, INT4) that does both
    (``validation.fitting_serve_weight_dtype``), recorded as chosen with which of the two decided
    (private key ``_serve_weight_dtype_chosen``, shown where the index and summary.json list the
    parameters).
    The RL rollouts read the same key, so they are priced at that precision too. Returns the
    scenario unchanged when the default fits or nothing does (the set-up check then refuses,
    naming ``serve_weight_dtype`` and ``serve_tp``).

    Multi-node replicas (TP·PP across nodes, expert parallelism) are not tried: Part I prices one
    replica inside a node; notebook 05's set-up comparison prices the multi-node ones."""
    p = {k: v["value"] for k, v in used.items()}
    try:
        dtype = fitting_serve_weight_dtype(p)
        if dtype is None or dtype == p["serve_weight_dtype"]:
            return scenario
        held = fitting_serve_weight_dtype(p, latency=False)   # memory alone: which decided
        model, gpu = load_model(p["model"]), load_accelerator(p["accelerator"])
    except (ValueError, KeyError, TypeError):  # the set-up check names what is wrong
        return scenario
    tp = int(p["serve_tp"] or gpu.scaleup_domain_size or 1)
    replica = f"one serving replica of {'' if p['serve_tp'] else 'at most '}{tp} × {gpu.name}"
    if held is not None and held != dtype:   # the latency target decided, not the memory
        why = (f"chosen: the widest weight precision at which {replica} serves {model.name} "
               f"within serve_max_tpot_s={p['serve_max_tpot_s']:g} s on the roofline (in "
               f"{held}, which fits the memory, even one sequence takes longer")
    else:
        tried = SERVE_WEIGHT_DTYPE_ORDER[:SERVE_WEIGHT_DTYPE_ORDER.index(dtype)]
        sizes = ", ".join(f"{weight_bytes(model, d) / tp / 1e9:,.1f} GB in {d}" for d in tried)
        why = (f"chosen: the widest weight precision at which {replica} holds {model.name} and "
               f"a batch (its weights per GPU at TP {tp}: {sizes}, leave no room for a batch")
    rollouts = "" if scenario.get("rl_rollout_weight_dtype") else \
        "; the RL rollouts use it too (rl_rollout_weight_dtype sets theirs)"
    return {**scenario, "serve_weight_dtype": dtype, "_serve_weight_dtype_chosen": (
        why + rollouts + "; give serve_weight_dtype to set it)")}


def calibrate_pilot_mfu(scenario: dict, used: dict, scenario_path="scenario") -> dict:
    """Replace ``mfu`` by the MFU the step model predicts for the scenario's plan once calibrated
    on its ``pilot:`` runs (``bill.pilot.pilot_mfu``: ``llmcost.training.calibrate.
    scenario_calibration``, as the bill of a notebook given the pilots computes it), once,
    before notebooks run. The private key ``_mfu_calibration`` records where it came from and its band.

    Raises
    ------
    ScenarioError
        With ``mfu: predict``, ``ledger_pilot_tokens_per_s_per_gpu`` or a ranged ``mfu`` beside
        the pilots, or a bad pilot (one line naming ``pilot[i]`` and the field).
    """
    for other, why in (("_mfu_prediction", "mfu: predict"),
                       ("_mfu_calibration", "ledger_pilot_tokens_per_s_per_gpu")):
        if other in scenario:
            raise ScenarioError(f"{scenario_path}: give either {why} or pilot, not both")
    if isinstance(scenario.get("mfu"), Range):
        raise ScenarioError(f"{scenario_path}: mfu is a range and pilot is given: the pilots set "
                            "the MFU; give one or the other")
    v = {k: x["value"] for k, x in used.items()}
    v["pilot"] = scenario["pilot"]
    try:
        got = pilot_mfu(v)
    except ValueError as e:
        raise ScenarioError(f"{scenario_path}: {e}") from None
    out = dict(scenario)
    out["mfu"] = got["value"]
    # the band the pilots give for the scenario's own plan, which the bill's range draws (its
    # inputs keep only the ledger's keys, so the plan is not there to calibrate again)
    out["_mfu_calibration"] = {"value": got["value"], "from": got["from"],
                               **{k: got[k] for k in ("low", "high") if k in got}}
    return out


def _predicted_mfu_from(pred: dict) -> str:
    """Where a predicted ``mfu`` comes from, for the parameter list: the record's ``from``
    and, when the bill's figure is not the prediction (the band's central estimate, in a
    regime with held-out runs, or the band's capped top, ``center_capped``), both figures
    and what capped it (``predicted_mfu_words``)."""
    if "predicted" not in pred or not (pred.get("band", {}).get("n")
                                       or pred.get("center_capped")):
        return pred["from"]
    # the words name the plan: the record's "for <plan>" is not said twice
    said = pred["from"].replace(f" for {pred['plan']}", "", 1) if pred.get("plan") \
        else pred["from"]
    return f"{said}: {predicted_mfu_words(pred)}"


def _defaults_used(used: dict) -> list:
    """The parameters of ``used`` (``effective_parameters``) that take a notebook's default
    because the scenario leaves them out, those a scenario file cannot set left out
    (``scenario.REPORT_SET_KEYS``: ``mfu_band``, which only a report sets, is no default the
    scenario left out; `llmcost list parameters` says "not in a scenario file")."""
    return [k for k, v in used.items()
            if v["from"] == "notebook default" and k not in REPORT_SET_KEYS]


def effective_parameters(scenario: dict, declared: dict) -> dict:
    """The value each parameter takes in the report and where it comes from.

    Returns
    -------
    dict name -> {"value": ..., "from": "scenario" or "notebook default"} over every parameter
    the selected notebooks declare (``interactive`` excluded: reports always run without
    widgets).
    """
    out = {}
    for params in declared.values():
        for name, info in params.items():
            if name == "interactive" or name in out:
                continue
            if name == "mfu" and "_mfu_prediction" in scenario:
                out[name] = {"value": scenario[name],
                             "from": _predicted_mfu_from(scenario["_mfu_prediction"])}
            elif name == "mfu" and "_mfu_calibration" in scenario:
                out[name] = {"value": scenario[name],
                             "from": scenario["_mfu_calibration"]["from"]}
            elif name == "mfu_band" and (band := report_mfu_band(scenario)):  # the report's
                out[name] = {"value": band, "from": MFU_BAND_FROM[band]}
            elif f"_{name}_chosen" in scenario:  # rl_rollout_tp, serve_weight_dtype
                out[name] = {"value": scenario[name], "from": scenario[f"_{name}_chosen"]}
            elif f"_{name}_omitted" in scenario:  # price_usd_per_gpu_hour, ledger_rl: set by
                # plan_report for a file that leaves them out, not by the file
                out[name] = {"value": scenario[name], "from": scenario[f"_{name}_omitted"]}
            elif name in scenario:
                out[name] = {"value": scenario[name], "from": "scenario"}
            else:
                out[name] = {"value": ast.literal_eval(info["default"]),
                             "from": "notebook default"}
    return out


#: The marker a report leaves in a folder it did not finish (Ctrl-C), and the lock file a
#: running report holds (``fcntl.flock``; released by the system if the process dies).
INCOMPLETE = "INCOMPLETE.txt"
LOCK = ".llmcost-lock"


def report_files(out_dir: Path) -> list[Path]:
    """The files in ``out_dir`` a report writes: every notebook's ``.ipynb`` and ``.html``,
    ``index.html``, ``summary.json``/``.csv``, the marker, the lock and the ``INCOMPLETE``
    marker. ``--overwrite`` deletes these and nothing else."""
    names = {MARKER, LOCK, INCOMPLETE, "index.html", "summary.json", "summary.csv"}
    for nb in list_notebooks():
        names |= {nb.name, nb.stem + ".html"}
    return [p for p in sorted(out_dir.iterdir()) if p.name in names and p.is_file()]


def _lock_out_dir(out_dir: Path):
    """Take the folder's lock (an open file held with an exclusive ``flock``) or refuse: two
    reports writing into one folder at once would mix their pages. Returns the open file (keep
    it open for the run; closing it releases the lock), or None where ``fcntl`` is missing."""
    if fcntl is None:  # Windows: no advisory locks; the marker rules still apply
        return None
    fh = open(out_dir / LOCK, "a+")
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        fh.close()
        raise UsageError(f"--out {out_dir}: another llmcost report is writing into this folder "
                         "right now; wait for it to finish or choose another folder") from None
    return fh


def _prepare_out_dir(out_dir: Path, overwrite: bool, progress):
    """Create (or clear) the output folder and take its lock; returns the lock (keep it).

    Refuses (``UsageError``, one line): a path that is not a folder or cannot be written (a file
    in the path, ``/proc/x``, no permission); a non-empty folder without ``--overwrite``; a
    folder no report wrote (no ``MARKER``); a folder another report is writing into. With
    ``--overwrite`` only the report's own files (``report_files``) are deleted; the user's
    other files stay."""
    try:
        return _prepare_out_dir_in(out_dir, overwrite, progress)
    except OSError as e:
        why = e.strerror or str(e)
        raise UsageError(f"--out {out_dir}: cannot write there ({why})") from None


def _prepare_out_dir_in(out_dir: Path, overwrite: bool, progress):
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(f"--out {out_dir} exists and is not a folder")
    out_dir.mkdir(parents=True, exist_ok=True)
    stray = not (out_dir / LOCK).exists()  # a lock file this call creates
    lock = _lock_out_dir(out_dir)  # first: a report writing here now is the reason to refuse
    try:
        if any(p.name != LOCK for p in out_dir.iterdir()):
            if not overwrite and not (out_dir / MARKER).exists():   # --overwrite would not do
                raise UsageError(f"--out {out_dir} already exists and holds files that are not "
                                 "an llmcost report (no " + MARKER + " marker): choose another "
                                 "folder, or an empty one")
            if not overwrite:
                raise UsageError(f"--out {out_dir} already holds a report; pass --overwrite to "
                                 "replace it, or choose another folder")
            if not (out_dir / MARKER).exists():
                raise UsageError(f"--out {out_dir} is not an llmcost report folder (no {MARKER}"
                                 " marker); refusing to delete it even with --overwrite")
            mine = [p for p in report_files(out_dir) if p.name != LOCK]
            others = [p.name for p in out_dir.iterdir() if p.name != LOCK and p not in mine]
            progress(f"replacing the earlier report in {out_dir}" + (
                f" (keeping {len(others)} file(s) it did not write: "
                f"{', '.join(sorted(others)[:5])})" if others else ""))
            for p in mine:
                p.unlink()
        (out_dir / MARKER).write_text("written by llmcost report\n")
    except BaseException:
        if lock is not None:
            lock.close()
        if stray:
            (out_dir / LOCK).unlink(missing_ok=True)
        raise
    return lock


def _mark_incomplete(out_dir: Path, done: list, left: list) -> None:
    """The ``INCOMPLETE`` marker of an interrupted report: what was finished and what was not."""
    (out_dir / INCOMPLETE).write_text(
        f"This llmcost report was interrupted ({_now()}) and is incomplete.\n"
        f"finished: {', '.join(done) or 'none'}\nnot finished: {', '.join(left) or 'none'}\n"
        "Run the report again (with --overwrite) for a complete one.\n", encoding="utf-8")


def _collect_summary(nb_node) -> list[dict]:
    rows = []
    for cell in nb_node.cells:
        for out in cell.get("outputs", []):
            payload = out.get("data", {}).get(SUMMARY_MIME)
            if payload:
                rows.extend(_unwire_row(r) for r in payload["rows"])
    return rows


def _error_sentence(nb_node) -> str | None:
    """The first error a notebook stopped on, as one sentence (exception name and message)."""
    for i, cell in enumerate(c for c in nb_node.cells if c.cell_type == "code"):
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                msg = " ".join(str(out.get("evalue", "")).split())
                return f"{out.get('ename', 'Error')}: {msg}" if msg else out.get("ename", "Error")
    return None


def _readable_errors(nb_node) -> None:
    """Replace tracebacks (and papermill's banner) by one readable sentence, for the HTML page
    only; the executed .ipynb keeps the full traceback for inspection."""
    from nbformat.v4 import new_markdown_cell

    sentence = _error_sentence(nb_node)
    if sentence is None:
        return
    nb_node.cells = [c for c in nb_node.cells
                     if "papermill-error-cell-tag" not in c.metadata.get("tags", [])]
    for cell in nb_node.cells:
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                out["traceback"] = [f"{out.get('ename', 'Error')}: {out.get('evalue', '')}"]
    note = new_markdown_cell(
        f"**This notebook stopped with an error, so the figures below it are missing.** "
        f"{html.escape(sentence)} (the executed notebook next to this page keeps the full "
        "traceback).")
    nb_node.cells.insert(1 if nb_node.cells else 0, note)


_EXPORTER: dict = {}
_EXPORTER_LOCK = threading.Lock()


def _exporter():
    """The process's one HTML exporter without code (``page_exporter``), made at the first page
    and reused: building one compiles the lab template's Jinja files, about 40% of a page's
    export time (measured with cProfile on notebook 03). Called holding ``_EXPORTER_LOCK``."""
    ex = _EXPORTER.get("html")
    if ex is None:
        # validated once, after its preprocessors, instead of after each (twelve times)
        ex = _EXPORTER["html"] = page_exporter()(exclude_input=True,
                                                 exclude_input_prompt=True,
                                                 exclude_output_prompt=True,
                                                 optimistic_validation=True)
    return ex


def markdown_versions() -> str:
    """The libraries a markdown cell's HTML is made with (nbconvert's renderer, mistune,
    latex2mathml, and Pygments for its code blocks): part of ``rendered_markdown``'s key."""
    return "; ".join(f"{name} {metadata.version(name)}"
                     for name in ("nbconvert", "mistune", "latex2mathml", "pygments"))


@disk_cached
def rendered_markdown(sources: tuple, versions: str) -> tuple:
    """The HTML of markdown cells without attachments, one ``(html, failed formulas)`` per
    source: its TeX math as MathML (``texmath.markdown_math_to_mathml``), then the page
    exporter's ``markdown2html`` (mistune, with nbconvert's renderer: the exporter's settings
    and the cell's source are all it reads; a cell's attachments, and the notebook's folder,
    which only an exporter that embeds images reads, are neither). A notebook's markdown cells
    are its source, whatever the scenario (what a notebook computes is in its outputs): kept on
    disk (``core.diskcache``) per notebook, keyed by the sources and ``versions``
    (``markdown_versions``), they are rendered once, not in every report (0.3 of the 0.55 CPU-s
    the default scenario's twelve pages take to export). The sources are given as UTF-8 bytes:
    the cache's key reads a string with a "/" as a file's name (``diskcache._path_bytes``).
    Called holding ``_EXPORTER_LOCK``."""
    ex, out = _exporter(), []
    for source in (b.decode("utf-8") for b in sources):
        text, failed = (markdown_math_to_mathml(source) if "$" in source else (source, []))
        out.append((ex.markdown2html({"cell": {}, "resources": {}}, text), tuple(failed)))
    return tuple(out)


def _export_html(nb_node) -> tuple[str, list[str]]:
    """The page of ``nb_node`` from the process's one exporter (``_exporter``), and the TeX
    formulas of its markdown that did not convert. Its markdown cells are rendered by
    ``rendered_markdown`` (read from the disk cache), the rest by the exporter's template. Its
    pages are made one at a time (the lock): an export registers per-page filters on the
    exporter, and is Python that holds the interpreter's lock anyway: two workers' exports never
    ran in parallel. ``nb_node`` is changed (``_to_html`` hands over a node of its own)."""
    with _EXPORTER_LOCK:
        ex = _exporter()
        cells = [c for c in nb_node.cells if c.get("cell_type") == "markdown"]
        plain = [c for c in cells if not c.get("attachments")]
        failures: list[str] = []
        for cell in cells:
            if cell.get("attachments") and "$" in cell.source:  # rendered by the template
                cell.source, failed = markdown_math_to_mathml(cell.source)
                failures += failed
        done = rendered_markdown(tuple(c.source.encode("utf-8") for c in plain),
                                 markdown_versions())
        ex.rendered = {c.source: page for c, (page, _) in zip(plain, done)}
        try:
            for _, failed in done:
                failures += failed
            return ex.from_notebook_node(nb_node, in_place=True)[0], failures
        finally:
            ex.rendered = {}


#: nbconvert's text for an image without one (``HTMLExporter.from_notebook_node``).
NO_ALT_TEXT = "No description has been provided for this image"
_UNPARSED = re.compile(r"(<script\b.*?</script\s*>|<style\b.*?</style\s*>|<!--.*?-->)",
                       re.S | re.I)
_START_TAG = re.compile(r"""<(img|div)((?:\s+[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|"""
                        r"""[^\s"'=<>`]+))?)*)(\s*/?)>""", re.I)
_ATTRIBUTE = re.compile(r"""\s+([^\s"'>/=]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s"'=<>`]+))?""")
_FOCUSABLE = {"jp-Cell-inputWrapper", "jp-OutputArea-output"}


_SVG_URI = "data:image/svg+xml;base64,"
_SVG_TITLE = re.compile(r"<title>(.*?)</title>", re.S)


def _svg_title(src: str) -> str | None:
    """The ``<title>`` of an SVG image given as a base64 data URI (a report's figures have one:
    ``plots.describe_svg_figures``), as text; None for any other image or an SVG without it."""
    if not src.startswith(_SVG_URI):
        return None
    try:
        svg = base64.b64decode(src[len(_SVG_URI):]).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return None
    m = _SVG_TITLE.search(svg)
    return html.unescape(m.group(1)).strip() or None if m else None


def _accessible_tag(m: re.Match) -> str:
    """One start tag as nbconvert's accessibility pass leaves it, but for an image's text: an
    ``img`` without ``alt`` gets its SVG's title (``_svg_title``: the figure's description)
    where it has one, else ``NO_ALT_TEXT``; a ``div`` of class ``jp-Cell-inputWrapper`` or
    ``jp-OutputArea-output`` gets ``tabindex="0"`` (in its place if it had one, else last)."""
    name, attrs, end = m.group(1), m.group(2), m.group(3)
    found = {a.group(1).lower(): a for a in _ATTRIBUTE.finditer(attrs)}
    if name.lower() == "img":
        if "alt" in found:
            return m.group(0)
        src = found.get("src")
        alt = _svg_title((src.group(2) or "").strip("\"'") if src else "") or NO_ALT_TEXT
        return f'<{name}{attrs} alt="{html.escape(alt, quote=True)}"{end}>'
    cls = found.get("class")
    classes = set((cls.group(2) or "").strip("\"'").split()) if cls else set()
    if not classes & _FOCUSABLE:
        return m.group(0)
    tab = found.get("tabindex")
    if tab is None:
        return f'<{name}{attrs} tabindex="0"{end}>'
    return f'<{name}{attrs[:tab.start()]} tabindex="0"{attrs[tab.end():]}{end}>'


def accessible_html(page: str) -> str:
    """What nbconvert's ``HTMLExporter`` (7.x) does to the page its template wrote: every image
    without a text gets ``NO_ALT_TEXT``, and every cell's input and every output becomes
    focusable (``tabindex="0"``); done on the text, outside scripts, styles and comments,
    instead of parsing the page with BeautifulSoup and writing it again: the default scenario's
    twelve pages export in 0.41 CPU-s instead of 1.55. The page's elements, attributes and text
    are the ones nbconvert's page has (``tests/test_report_html.py`` parses both)."""
    parts = _UNPARSED.split(page)
    for i in range(0, len(parts), 2):  # the even parts: outside scripts, styles and comments
        parts[i] = _START_TAG.sub(_accessible_tag, parts[i])
    return "".join(parts)


def template_bytecode_cache():
    """Jinja's own cache of compiled templates (``jinja2.FileSystemBytecodeCache``) in the disk
    cache's folder (``core.cachedir``: ``jinja2/``), or None when the cache is off or the
    folder cannot be made. The page exporter compiles the nine Jinja files of nbconvert's lab
    template at a report's first page (0.12 of the 0.9 CPU-s the default scenario's twelve
    pages take to export); kept, each is read back as Python bytecode. Jinja keys an entry by
    the template's name and file and checks it against the template's source (a checksum) and
    its own and Python's versions, so an entry is never read for another template: the pages
    are the same. An entry that cannot be written is not kept (``_QuietBytecodeCache``)."""
    from jinja2 import FileSystemBytecodeCache

    folder = cache_dir()
    if folder is None:
        return None
    try:
        (folder / "jinja2").mkdir(parents=True, exist_ok=True)
    except OSError:
        return None

    class _QuietBytecodeCache(FileSystemBytecodeCache):
        def dump_bytecode(self, bucket) -> None:
            try:
                super().dump_bytecode(bucket)
            except OSError:  # a folder made read-only since: compiled again next time
                pass

    return _QuietBytecodeCache(str(folder / "jinja2"))


@functools.lru_cache(maxsize=1)
def page_exporter():
    """nbconvert's ``HTMLExporter`` class with ``accessible_html`` in place of its BeautifulSoup
    pass (``from_notebook_node``: the same filters, then the template, then the pass), the
    markdown cells' HTML made before the page (``rendered``: ``_export_html``) instead of by
    its ``markdown2html`` filter, and its templates' compiled code kept on disk
    (``template_bytecode_cache``)."""
    from nbconvert import HTMLExporter
    from nbconvert.exporters.templateexporter import TemplateExporter
    from nbconvert.filters.highlight import Highlight2HTML
    from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter
    from nbformat import NotebookNode

    class _OwnNode(NotebookNode):
        """A notebook that is the exporter's to change: its deep copy is itself."""

        def __deepcopy__(self, memo):
            return self

    class PageExporter(HTMLExporter):
        #: source -> HTML of the page's markdown cells, rendered before (``_export_html``)
        rendered: dict = {}

        def markdown2html(self, context, source):
            cell = context.get("cell", {})
            if cell.get("cell_type") == "markdown" and not cell.get("attachments"):
                page = self.rendered.get(source)
                if page is not None:
                    return page
            return HTMLExporter.markdown2html(self, context, source)

        # Jinja's mark of a filter given the template's context (jinja2.pass_context), as on
        # the method it replaces
        markdown2html.jinja_pass_arg = HTMLExporter.markdown2html.jinja_pass_arg

        def _create_environment(self):
            environment = HTMLExporter._create_environment(self)
            environment.bytecode_cache = template_bytecode_cache()
            return environment

        def from_notebook_node(self, nb, resources=None, in_place=False, **kw):
            """The page of ``nb``; with ``in_place``, made from ``nb`` itself, which it changes
            (the filters' work), instead of nbconvert's deep copy of it (``Exporter``'s
            ``from_notebook_node``: 0.2 of 0.7 CPU-s for the default scenario's twelve
            pages)."""
            if in_place:
                nb = _OwnNode(nb)
            langinfo = nb.metadata.get("language_info", {})
            lexer = langinfo.get("pygments_lexer", langinfo.get("name", None))
            highlight_code = self.filters.get(
                "highlight_code", Highlight2HTML(pygments_lexer=lexer, parent=self))
            resources = self._init_resources(resources)
            filter_data_type = WidgetsDataTypeFilter(
                notebook_metadata=self._nb_metadata, parent=self, resources=resources)
            self.register_filter("highlight_code", highlight_code)
            self.register_filter("filter_data_type", filter_data_type)
            page, resources = TemplateExporter.from_notebook_node(self, nb, resources, **kw)
            return accessible_html(page), resources

    return PageExporter


def _to_html(nb_node, title: str, written: set[str] | None = None,
             in_place: bool = False) -> str:
    """HTML without code. Links between notebooks point at the sibling HTML pages the report
    wrote (``written``: their stems; default: every linked page is assumed written); the
    "← 00 · Index" links go to the report's ``index.html``; a link to a notebook the report did
    not run becomes plain text saying so. A failed notebook shows its error as one sentence.
    TeX math in markdown cells becomes MathML (``llmcost.texmath``: the pages carry no MathJax);
    the number of formulas that did not convert is written in the page's
    ``<meta name="llmcost-tex-failures">`` and each is shown as escaped TeX in ``<code>``.
    ``in_place=True`` makes the page from ``nb_node`` itself, which it changes (its errors and
    math), instead of from a deep copy (0.18 of 0.77 CPU-s for the default scenario's twelve
    pages)."""

    if not in_place:
        nb_node = copy.deepcopy(nb_node)
    _readable_errors(nb_node)
    nb_node.metadata["title"] = title
    body, tex_failures = _export_html(nb_node)

    def link(m):
        stem, anchor, text = m.group(1), m.group(2) or "", m.group(3)
        if stem == "00_index" and "Index" in text:
            return f'<a href="index.html">{text}</a>'
        if written is None or stem in written:
            return f'<a href="{stem}.html{anchor}">{text}</a>'
        return f"{text} (not in this report)"

    body = re.sub(r'<a href="(\d\d[a-z]?_[A-Za-z0-9_]+)\.ipynb(#[^"]*)?"[^>]*>(.*?)</a>', link, body,
                  flags=re.S)
    meta = f'<meta name="llmcost-tex-failures" content="{len(tex_failures)}">\n'
    return _offline_and_readable(body).replace("</head>", meta + "</head>", 1)


#: CSS added to every notebook page (found by tests/test_browser_report.py in Chromium): the lab
#: template sets code, output text and tables at 12-13 px; a page read on a phone needs >= 14 px,
#: and wide tables and figures (PNG, and SVG, which the lab template shows as an ``<img>`` of
#: class ``jp-RenderedSVG``) must stay inside the screen (tables scroll in their own box); MathML
#: (``llmcost.texmath``) is set a little larger than the browser's default, and a wide display
#: equation scrolls in its own box on a phone. Printed, a table's cells are 8 pt (the 14 px
#: above would hold), headers and cells may break anywhere and the output's box does not scroll:
#: the default scenario's 18 tables wider than an A4 page (up to 2,077 px) printed cut at the
#: page's edge, with their right-hand columns lost; they now fit its 718 px. A figure is kept
#: whole and held within a page (24 cm), a cell may break around it (a figure taller than a page
#: in an unbreakable cell printed a blank page), and text output wraps at the page's edge.
PAGE_CSS = """<style>
:root{--jp-code-font-size:14px;--jp-content-font-size0:14px;--jp-ui-font-size0:14px;
--jp-ui-font-size1:14px}
.jp-RenderedHTMLCommon table,.jp-RenderedHTMLCommon td,.jp-RenderedHTMLCommon th,
.jp-RenderedHTMLCommon code,.jp-RenderedHTMLCommon pre,.jp-RenderedText pre{font-size:14px}
.jp-RenderedHTMLCommon table{display:block;max-width:100%;overflow-x:auto}
.jp-OutputArea-output{overflow-x:auto}
.jp-RenderedImage img,.jp-RenderedSVG img,.jp-RenderedHTMLCommon img{max-width:100%;height:auto}
.jp-RenderedHTMLCommon math{font-size:1.15em}
.jp-RenderedHTMLCommon math[display="block"]{margin:0.6em 0;overflow-x:auto;max-width:100%}
@media print{.jp-RenderedHTMLCommon table{display:table;overflow:visible;table-layout:auto;
width:100%;font-size:9pt}.jp-RenderedHTMLCommon td{overflow-wrap:anywhere}
.jp-RenderedHTMLCommon td,.jp-RenderedHTMLCommon th{font-size:8pt;padding:1px 3px}
.jp-RenderedHTMLCommon th{overflow-wrap:anywhere}
.jp-OutputArea-output,.jp-OutputArea-child{overflow:visible}.jp-InputPrompt,.jp-OutputPrompt{display:none}
.jp-RenderedImage,.jp-RenderedSVG{break-inside:avoid}
.jp-RenderedImage img,.jp-RenderedSVG img{max-height:24cm;width:auto;max-width:100%}
.jp-RenderedText pre{white-space:pre-wrap;overflow-wrap:anywhere}}
</style>
"""


def _offline_and_readable(page: str) -> str:
    """A page that reads the same with no network: the lab template's CDN scripts (require.js,
    MathJax, mermaid) are removed (a report is opened from a folder or an e-mail; nothing on the
    pages needs them: there are no widgets, and math is written in Unicode), and ``PAGE_CSS`` is
    added."""
    page = re.sub(r'<script[^>]*\bsrc="https?://[^"]*"[^>]*>\s*</script>\s*', "", page)
    page = re.sub(r'<!-- Load mathjax -->.*?<!-- End of mathjax configuration -->\s*', "", page,
                  flags=re.S)
    page = re.sub(r'<script type="module">(?:(?!</script>).)*mermaid(?:(?!</script>).)*</script>'
                  r'\s*', "", page, flags=re.S)
    return page.replace("</head>", PAGE_CSS + "</head>", 1)


def run_report(scenario_path, out_dir, selection: list[str] | None = None,
               overwrite: bool = False, timeout_s: int = DEFAULT_TIMEOUT_S,
               progress: Callable[[str], None] | None = None,
               jobs: int | None = None, compare=None) -> ReportResult:
    """Run the notebooks for a scenario and write executed notebooks, HTML and a summary.

    Parameters
    ----------
    scenario_path : str or Path
        Scenario YAML file.
    out_dir : str or Path
        Output folder (must not exist, unless ``overwrite``).
    selection : list of str, optional
        Notebook numbers or stems to run (default: all).
    overwrite : bool
        Replace an earlier report in ``out_dir``.
    timeout_s : int
        Per-cell execution timeout, so a stalled kernel fails in minutes.
    progress : callable, optional
        Receives one line per step (default: print to stderr).
    jobs : int, optional
        How many notebooks run at once (default ``default_jobs()``, the number of cores this
        process may use). Each of the ``jobs`` workers has one warm kernel, started and imported
        once and reset between its notebooks (``kernels.py`` lists what a reset forgets). The
        notebooks are independent: each reads only the scenario, so the pages and summary are
        the same for any ``jobs``.
    compare : str or Path, optional
        A second scenario file: the index shows both bills side by side, line by line, with the
        difference per draw (``glance.compare_bills``; ``summary['compare']``). It is validated
        before anything is written; its notebooks are not run.

    Returns
    -------
    ReportResult

    Raises
    ------
    ScenarioError
        Bad scenario (nothing is written).
    UsageError
        Bad selection or output folder in the way (nothing is written).
    ReportError
        Failed notebooks (the rest of the report is written; the failed notebooks are kept and
        named).
    """
    progress = progress or (lambda s: print(s, file=sys.stderr, flush=True))
    pin_cache_dir()  # a relative cache folder: this one, not the notebooks' (the kernels' cwd)
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise UsageError(f"jobs={jobs!r} must be a whole number >= 1")
    t_start = time.perf_counter()
    plan = plan_report(scenario_path, selection)
    _refuse_post_training_only(plan.scenario, scenario_path)
    try:
        other = None if compare is None else (str(compare), estimate_ledger(compare))
    except ScenarioError as e:  # the second scenario's fault, said as the one to compare with
        raise ScenarioError(f"the scenario to compare with (--compare): {e}") from None
    nbs = plan.notebooks
    out_dir = Path(out_dir)
    lock = _prepare_out_dir(out_dir, overwrite, progress)
    frozen_here = gc.get_freeze_count() == 0  # _import_runners freezes; undone below
    try:
        return _write_report(plan, scenario_path, out_dir, timeout_s, progress, jobs, t_start,
                             other)
    except KeyboardInterrupt:
        done = [p.stem for p in numbered_files(out_dir, ".html")]
        _mark_incomplete(out_dir, done, [nb.stem for nb in nbs if nb.stem not in done])
        raise ReportInterrupted(f"interrupted: the report in {out_dir} is incomplete (see "
                                f"{out_dir / INCOMPLETE})") from None
    finally:
        if frozen_here:
            gc.unfreeze()
        if lock is not None:
            lock.close()


#: Why a bill of post-training alone without a full fine-tune checks no plan on ``n_gpus``
#: (``scenario.trains_on_n_gpus``), as ``estimate_ledger`` warns it.
NO_FULL_RUN_WORDS = ("the bill trains no full model on n_gpus (post-training alone, no SFT or "
                     "continued pre-training): LoRA's memory (frozen weights and adapters) is "
                     "not modelled, and an RL campaign is checked on rl_gpus")


def _refuse_post_training_only(scenario: dict, scenario_path) -> None:
    """A ``ScenarioError`` before anything is written for a bill of post-training alone
    (``scenario.post_training_only``, ``train_tokens: 0``): every page walks a pre-training run
    (its FLOPs, batch, plan, step time, checkpoints, compute-optimal point, and the bill's
    levers on it), so none runs on none; ``llmcost estimate`` prints that bill."""
    if post_training_only(scenario):
        raise ScenarioError(
            f"{scenario_path}: train_tokens=0 bills post-training alone, and the report's pages "
            "walk a pre-training run (its FLOPs, batch, parallel plan, step time, checkpoints "
            "and compute-optimal point) that this scenario does not have: `llmcost estimate "
            f"--scenario {scenario_path}` prints its bill (with --compare and --alternatives); "
            "a report of post-training alone is not built yet")


def _write_report(plan: ReportPlan, scenario_path, out_dir: Path, timeout_s: int, progress,
                  jobs, t_start: float, other=None) -> ReportResult:
    """``run_report`` once the scenario is valid and the folder is ready and locked: the
    workers' kernels start first (``_Workers``); each runs its first notebook as soon as it is
    warm, while the warnings are computed and printed (``_report_warnings``)."""
    jobs = default_jobs() if jobs is None else jobs
    workers = _Workers(len(plan.notebooks), jobs, plan.notebooks[0].parent)
    try:
        return _write_report_with(plan, scenario_path, out_dir, timeout_s, progress, workers,
                                  t_start, other)
    finally:
        workers.stop(wait=False)  # stopped already unless the report failed before its runs


def _write_report_with(plan: ReportPlan, scenario_path, out_dir: Path, timeout_s: int,
                       progress, workers: _Workers, t_start: float, other=None
                       ) -> ReportResult:
    """``_write_report`` with its workers started."""
    scenario, nbs, declared = plan.scenario, plan.notebooks, plan.declared
    result = ReportResult(out_dir=out_dir)
    used = effective_parameters(scenario, declared)
    if "_mfu_prediction" in scenario:
        progress(f"mfu: predict -> {scenario['mfu']:.1%}: "
                 f"{predicted_mfu_words(scenario['_mfu_prediction'])}")
    defaults = _defaults_used(used)
    filters = list(warnings.filters)  # the report's, before the runners' imports add theirs
    # while the workers' kernels start and warm up (processes of their own), this thread
    # imports what each run needs first (about a second of CPU: nbformat's JSON-schema
    # validator), instead of each worker before its kernel starts; and before the index's
    # thread starts: see ``_import_runners``
    _import_runners()
    summary, index = {}, {}

    def meanwhile():  # the first notebooks run: the warnings, then the index's thread starts
        said = _report_warnings(plan, defaults, other, progress, filters)
        summary.update({"scenario": {k: v for k, v in scenario.items() if not k.startswith("_")},
                        "scenario_file": str(scenario_path), "parameters": used,
                        "llmcost_version": _version(), "generated": _now(), "warnings": said,
                        "notebooks": {}})
        index["work"] = IndexWork(plan.values, scenario, index_title(scenario, scenario_path))

    runs = _run_notebooks(nbs, out_dir, scenario, declared, timeout_s, workers, progress,
                          meanwhile)
    index_work = index["work"]
    failures = []  # listed first in the index's "Read this first" box
    for nb in nbs:  # reading order, whatever order the notebooks finished in
        run = runs[nb]
        if run.failed:  # named as the caller gave out_dir (the runner works on absolute paths)
            result.failed.append(out_dir / nb.name)
            failures.append(failure_warning(nb.stem, run.failure))
        if run.html is not None:
            result.html.append(out_dir / run.html.name)
            summary["notebooks"][nb.stem] = run.rows
            source = (predicted_mfu_source(scenario["_mfu_prediction"])
                      if "_mfu_prediction" in scenario else
                      f"the pilots' calibration ({scenario['_mfu_calibration']['from']})"
                      if "_mfu_calibration" in scenario else None)
            if source:  # notebook 00 sees a number (or a range): say where it came from
                for r in summary["notebooks"][nb.stem]:
                    if r.get("key") == "bill_mfu":
                        r["note"] = source
        result.notebooks.append(out_dir / nb.name)
    summary["warnings"][:0] = failures
    if "_mfu_prediction" in scenario:
        summary["mfu_prediction"] = scenario["_mfu_prediction"]
    try:  # the index is written whatever the bill can or cannot price
        summary["bill"] = index_work.result("bill")
    except ValueError as e:
        summary["bill"] = None
        summary["warnings"].append(f"the bill could not be built: {e}")
        progress(f"warning: the bill could not be built: {e}")
    if summary["bill"]:
        over = budget_warning(summary["bill"]["bill.total_usd"], plan.values.get(
            "ledger_budget_usd"))
        if over:
            summary["warnings"].append(over)
            progress(f"warning: {over}")
    summary["failed"] = [p.name for p in result.failed]
    band = beside_own_run(pilot_band_warning(summary, scenario), summary["warnings"])
    for late in (_storage_warning(summary), band):
        if late:
            summary["warnings"].append(late)
            progress(f"warning: {late}")
    extra = _glance_and_compare(plan, scenario, scenario_path, summary, other, progress,
                                index_work)
    _write_summary(out_dir, summary)
    _write_index(out_dir, scenario, nbs, result, summary, **extra)
    result.summary = summary
    result.seconds = time.perf_counter() - t_start
    if result.failed:
        names = ", ".join(str(p) for p in result.failed)
        raise ReportError(f"{len(result.failed)} notebook(s) failed: {names} (kept with the "
                          "error for inspection; the rest of the report is in "
                          f"{out_dir})")
    progress(f"report written to {out_dir} in {result.seconds:.1f} s "
             f"(open {out_dir / 'index.html'})")
    return result


class _NotebookRun(NamedTuple):
    out_nb: Path
    failed: bool
    html: Path | None
    rows: list
    seconds: float
    failure: str | None = None


def failure_warning(stem: str, failure: str | None) -> str:
    """The line the index's "Read this first" box gives a failed notebook."""
    return (f"{stem} FAILED ({failure or 'see its page'}): its page shows what ran and where it "
            "stopped; the figures after that point are missing from this report")


def notebook_parameters_for(nb: Path, plan: ReportPlan) -> dict:
    """The parameters a report injects into notebook ``nb`` (one of ``plan.notebooks``):
    the scenario's values it declares, ranges in their scenario-file form, ``interactive`` off,
    and no ``pilot`` records for a page without the plan keys once the report set the MFU from
    them (``calibrate_pilot_mfu``). A page that prices GPU-hours declares the owned keys
    (``ledger_owned_usd_per_gpu``, ``ledger_pue``, ``ledger_electricity_usd_per_kwh``) and
    prices them with ``scenario_price``, the bill's rate."""
    return _notebook_parameters(nb, plan.scenario, plan.declared)


#: Where a report's ``mfu_band`` comes from (``report_mfu_band``), for the index's "Parameters
#: used" and summary.json: the report sets it, the scenario file may not.
MFU_BAND_FROM = {
    "predicted": "set by the report (mfu: predict): the bill draws the MFU over the step-time "
                 "model's band around its prediction",
    "pilot": "set by the report (pilot): the bill draws the MFU over the pilots' extrapolation "
             "band"}


def report_mfu_band(scenario: dict) -> str | None:
    """The ``mfu_band`` a report injects into the pages that declare it (``_notebook_parameters``):
    "predicted" when the scenario's MFU is the step-time model's prediction with a band
    (``mfu: predict``), "pilot" when it was calibrated on pilot runs with a band, else None (the
    scenario's own range, or one number)."""
    if predicted_band_of(scenario) is not None:
        return "predicted"
    cal = scenario.get("_mfu_calibration")
    if scenario.get("pilot") and cal and isinstance(pilot_mfu_range(cal), Range):
        return "pilot"
    return None


def _notebook_parameters(nb: Path, scenario: dict, declared: dict) -> dict:
    # a range goes in its scenario-file form (llmcost.ranges)
    params = {k: getattr(v, "to_yaml", lambda v=v: v)() for k, v in scenario.items()
              if k in declared[nb]}
    # a predicted MFU goes with its band, the range the bill draws (one range per bill,
    # everywhere); its point, the mode, is the prediction every page uses
    band = predicted_band_of(scenario)
    if "mfu" in params and band is not None:
        params["mfu"] = band.to_yaml()
        if "mfu_band" in declared[nb]:  # the page says what the range is (ledger.headline_draws)
            params["mfu_band"] = "predicted"
    if "interactive" in declared[nb]:
        params["interactive"] = False
    if params.get("pilot") and "_mfu_calibration" in scenario and \
            "tp" not in declared[nb]:
        # the MFU is the pilots' already (calibrate_pilot_mfu); a page without the plan keys
        # (tp and the rest) would extrapolate them again to the notebooks' default plan
        # (bill.pilot.pilot_mfu)
        params["pilot"] = []
        cleared = True
    else:
        cleared = False
    band = pilot_mfu_range(scenario["_mfu_calibration"]) \
        if "_mfu_calibration" in scenario else None
    if "mfu" in params and isinstance(band, Range) and (cleared or (
            "mfu_band" in declared[nb] and not isinstance(scenario.get("mfu"), Range))):
        # ... and every page that says what its MFU is (mfu_band) draws it over the pilots'
        # band, as the index's bill does (its point, the mode, the calibrated MFU every page
        # uses), so it opens with "mfu is the pilots' MFU ...: this page uses X%" as a page of a
        # mfu: predict report does (scenario.range_note)
        params["mfu"] = band.to_yaml()
        if "mfu_band" in declared[nb]:
            params["mfu_band"] = "pilot"
    return params


_ENGINE = None


def _engine() -> str:
    """The name of papermill's nbclient engine as the report uses it: the executed notebook is
    written once, when the run ends, instead of before and after every cell. papermill's default
    rewrites the whole notebook, figures included, about twice per cell; measured on notebook 03
    (45 cells, 0.7 MB): 87 ms a write on the loaded 2-core machine, seconds of report-process CPU
    per notebook taken from the kernels running beside it. A run that returns is written by
    ``papermill.execute_notebook`` itself (its last step, or ``raise_for_execution_errors``
    for a cell that failed), so the engine does not write it a second time; a run that raises
    (a timeout, a dead kernel) never reaches that step, and is written by the engine.

    A run given ``kc=`` (a warm kernel's connected client: ``kernels.WarmKernel.kc``) runs its
    cells through that client instead of a new one (a new client waits 0.2 s for its IOPub
    socket: ``kernels.WarmKernel``).

    Each cell's end reads the start time papermill wrote (``datetime.isoformat``) with
    ``datetime.fromisoformat`` instead of dateutil's general parser: the same time and
    duration in the cell's metadata, 0.1 CPU-s less of the report's process for the default
    scenario's 421 cells (``_SaveAtEnd.cell_complete``)."""
    from papermill.clientwrap import PapermillNotebookClient
    from papermill.engines import (NBClientEngine, NotebookExecutionManager,
                                   catch_nb_assignment, papermill_engines)
    from papermill.log import logger
    from papermill.utils import merge_kwargs, remove_args

    global _ENGINE
    if _ENGINE:
        return _ENGINE

    class _SaveAtEnd(NotebookExecutionManager):
        _final = False
        raised = True  # until the run returns

        def save(self, **kwargs):
            if self._final:
                super().save(**kwargs)

        def notebook_complete(self, **kwargs):
            self._final = self.raised
            super().notebook_complete(**kwargs)

        @catch_nb_assignment
        def cell_complete(self, cell, cell_index=None, **kwargs):
            # papermill 2.7.0's, but for the parsing of the start time (its own when it logs)
            if self.log_output:
                return super().cell_complete(cell, cell_index=cell_index, **kwargs)
            end_time = self.now()
            meta = cell.metadata.papermill
            meta["end_time"] = end_time.isoformat()
            if meta.get("start_time"):
                start_time = datetime.fromisoformat(meta["start_time"])
                meta["duration"] = (end_time - start_time).total_seconds()
            if meta["status"] != self.FAILED:
                meta["status"] = self.COMPLETED
            self.save()
            if self.pbar:
                self.pbar.update(1)
            return None

    class _Engine(NBClientEngine):
        @classmethod
        def execute_notebook(cls, nb, kernel_name, output_path=None, progress_bar=True,
                             log_output=False, autosave_cell_every=30, **kwargs):
            # papermill's Engine.execute_notebook, with the manager above
            nb_man = _SaveAtEnd(nb, output_path=output_path, progress_bar=progress_bar,
                                log_output=log_output, autosave_cell_every=autosave_cell_every)
            nb_man.notebook_start()
            try:
                cls.execute_managed_notebook(nb_man, kernel_name, log_output=log_output, **kwargs)
                nb_man.raised = False
            finally:
                nb_man.cleanup_pbar()
                nb_man.notebook_complete()
            return nb_man.nb

        @classmethod
        def execute_managed_notebook(cls, nb_man, kernel_name, log_output=False,
                                     stdout_file=None, stderr_file=None, start_timeout=60,
                                     execution_timeout=None, kc=None, **kwargs):
            # papermill's NBClientEngine.execute_managed_notebook (papermill 2.7.0), with the
            # client ``kc`` set before nbclient would make one (NotebookClient.setup_kernel
            # makes a client only when it has none)
            kwargs = remove_args(["input_path"], **kwargs)
            safe_kwargs = remove_args(["timeout", "startup_timeout"], **kwargs)
            final_kwargs = merge_kwargs(
                safe_kwargs,
                timeout=execution_timeout if execution_timeout else kwargs.get("timeout"),
                startup_timeout=start_timeout, kernel_name=kernel_name, log=logger,
                log_output=log_output, stdout_file=stdout_file, stderr_file=stderr_file)
            client = PapermillNotebookClient(nb_man, **final_kwargs)
            if kc is not None:
                kc.allow_stdin = False  # as nbclient's start_new_kernel_client sets it
                client.kc = kc
            return client.execute()

    papermill_engines.register("llmcost", _Engine)
    _ENGINE = "llmcost"
    return _ENGINE


def _run_one(nb: Path, out_nb: Path, params: dict, title: str, written: set, timeout_s: int,
             kernel: WarmKernel | None = None):
    """Execute one notebook with papermill into ``out_nb`` and write its HTML page.

    ``kernel`` is the worker's warm kernel (``kernels.WarmKernel``), reset before the notebook;
    without one, papermill starts a fresh kernel. Returns ``(_NotebookRun, failure sentence or
    None)``. Runs in a worker thread: the kernel is its own process, so several of these run at
    once on several cores."""
    import nbformat
    import papermill as pm

    t0, timed_out, failure = time.perf_counter(), None, None
    out_nb = Path(out_nb).absolute()  # papermill chdirs to ``cwd`` (process-wide) while it runs
    not_started = node = None
    for attempt in (1, 2):  # a kernel that fails to start is started once more
        try:
            km = {} if kernel is None else {"km": kernel.ready(str(nb.parent)),
                                            "kc": getattr(kernel, "kc", None)}
            # the executed notebook, as papermill wrote it to out_nb (not read back)
            node = pm.execute_notebook(str(nb), str(out_nb), parameters=params,
                                       kernel_name="python3", cwd=str(nb.parent),
                                       execution_timeout=timeout_s, progress_bar=False,
                                       log_output=False, extra_arguments=KERNEL_ARGS,
                                       engine_name=_engine(), **km)
            failure = not_started = None
        except Exception as e:  # PapermillExecutionError, timeouts, dead kernels
            node = None  # what was kept of it is read from out_nb below
            reason = getattr(e, "ename", type(e).__name__)
            evalue = getattr(e, "evalue", str(e)).strip().splitlines()
            failure = f"{reason}: {evalue[0] if evalue else ''}"
            not_started = failure if kernel_did_not_start(e, out_nb) else None
            if kernel is not None and not hasattr(e, "ename"):
                # a cell that raised leaves its kernel idle (the next notebook's reset clears
                # it); a cell still running past the timeout, a dead kernel or one that did not
                # start is replaced: the next notebook (or the retry) starts a new one
                kernel.shutdown()
            if "Timeout" in reason:  # the kernel was interrupted: its cell says KeyboardInterrupt
                timed_out = (reason, f"a cell ran longer than the {timeout_s} s timeout "
                                     "(--timeout), so the kernel was interrupted")
        if not not_started:
            break
    if not_started:  # keep the page (the notebook's text, no outputs) with one sentence
        failure = f"its kernel failed to start twice ({not_started})"
        node = nbformat.read(nb, as_version=4)
        _kernel_failed_note(node, not_started)
        nbformat.write(node, out_nb)
    if node is None and out_nb.exists():
        node = nbformat.read(out_nb, as_version=4)
    html_path, rows = None, []
    if node is not None:
        if timed_out:  # the page's sentence names the timeout (HTML only)
            _mark_timed_out_cell(node)
            for out in (o for c in node.cells for o in c.get("outputs", [])
                        if o.get("output_type") == "error"):
                out["ename"], out["evalue"] = timed_out
        rows = _collect_summary(node)
        html_path = out_nb.with_suffix(".html")  # the page changes the node: made last
        html_path.write_text(_to_html(node, title, written, in_place=True), encoding="utf-8")
    return _NotebookRun(out_nb, failure is not None, html_path, rows,
                        time.perf_counter() - t0, failure), failure


def _mark_timed_out_cell(node) -> None:
    """Give the cell that timed out an error output when it has none. A fresh kernel, shut down
    after the timeout, still sends the cell's ``KeyboardInterrupt``; a warm kernel is replaced
    without a word, so the cell whose execution started and never replied
    (``metadata.execution`` without ``shell.execute_reply``) gets the error here."""
    from nbformat.v4 import new_output

    code = [c for c in node.cells if c.cell_type == "code"]
    if any(o.get("output_type") == "error" for c in code for o in c.get("outputs", [])):
        return
    for cell in code:
        started = cell.metadata.get("execution", {})
        if "iopub.execute_input" in started and "shell.execute_reply" not in started:
            cell.outputs.append(new_output("error", ename="CellTimeoutError", evalue="",
                                           traceback=[]))
            return


#: What a kernel that could not start raises (jupyter_client, pyzmq): a port taken by another
#: process (``ZMQError: Address already in use``), a kernel that died or never answered.
KERNEL_START_ERRORS = ("Address already in use", "Kernel died before replying",
                       "Kernel didn't respond", "kernel_info", "ZMQError")


def kernel_did_not_start(error: Exception, out_nb: Path) -> bool:
    """Whether ``error`` is a kernel that failed to start (no cell ran), not a cell's error."""
    if hasattr(error, "ename"):  # papermill's PapermillExecutionError: a cell ran and failed
        return False
    if isinstance(error, KernelStartError):
        return True
    text = f"{type(error).__name__}: {error}"
    return any(s in text for s in KERNEL_START_ERRORS)


def _kernel_failed_note(node, reason: str) -> None:
    """Put the one sentence of a page whose kernel never started at its top."""
    from nbformat.v4 import new_markdown_cell

    node.cells.insert(1 if node.cells else 0, new_markdown_cell(
        "**This notebook's kernel failed to start (twice), so the page shows its text without "
        f"any computed figure.** {html.escape(reason)}. Run the report again; if it persists, "
        "another program may hold the kernel's ports."))


def _report_warnings(plan: ReportPlan, defaults: list, other, progress, filters) -> list:
    """The scenario's warnings, printed, then the second scenario's (``other``) and the line
    naming how many parameters take the notebooks' defaults; returns the scenario's.

    Computed while the workers run their first notebooks (``_run_notebooks``' ``meanwhile``):
    with a cold disk cache they read the step model's validation table (1.0 CPU-s of the
    default scenario's), and the kernels, warm before it was done, waited for it with nothing
    to run (0.9 s each, measured with ``benchmarks/report_timeline.py``). Under ``filters``,
    the report's warnings filters before ``_import_runners`` added the libraries' own: the
    entries they look up in the disk cache are those a report computed before its runners'
    imports, as it did before, which a kernel reads (``core.diskcache``: the filters the
    imports add name classes a kernel has not imported, so a kernel could not read an entry
    written under them). Holding ``_EXPORTER_LOCK``: no page is exported meanwhile, whose
    markdown's lookup (``rendered_markdown``) would see these filters and not the runners'."""
    with _EXPORTER_LOCK, warnings.catch_warnings():
        warnings.filters[:] = filters
        mutated = getattr(warnings, "_filters_mutated", None)
        if mutated is not None:  # what ``warnings.filterwarnings`` does after a change
            mutated()
        said = scenario_warnings(plan.values, mfu_predicted="_mfu_prediction" in plan.scenario,
                                 defaults=set(defaults), given_mfu=plan.scenario.get("mfu"),
                                 piloted="_mfu_calibration" in plan.scenario,
                                 pilot_warnings=_calibration_warnings(plan.scenario))
        said = with_step_model_beside_history(said + magnitude_warnings(plan.values,
                                                                         plan.bill),
                                              plan.values)
        copied = inherited_description_warning(plan.scenario)
        said += [copied] if copied else []
    for w in said:
        progress(f"warning: {w}")
    if other is not None:  # the second scenario's own warnings, said as its (the index has both)
        for w in other[1].warnings:
            progress(f"warning (the scenario to compare with, {Path(other[0]).name}): {w}")
    if defaults:
        progress(f"{len(defaults)} parameter(s) not in the scenario take the notebooks' "
                 "defaults (listed in index.html and summary.json)")
    return said


def _run_notebooks(nbs: list, out_dir: Path, scenario: dict, declared: dict,
                   timeout_s: int, workers: _Workers, progress,
                   meanwhile: Callable[[], None] | None = None) -> dict:
    """Run the notebooks on ``workers`` (each with its own kernel); one progress line when a
    notebook starts and one when it finishes or fails, with how many are left.

    A failed notebook does not stop the others (it is kept, with its error, and named)."""
    # papermill chdirs to the notebook folder around each run and restores the folder it found;
    # with runs overlapping in threads the last to finish could "restore" another run's folder,
    # so the process's working folder is restored here once every run has ended.
    cwd = os.getcwd()
    try:
        return _run_notebooks_in(nbs, Path(out_dir).absolute(), scenario, declared,
                                 timeout_s, workers, progress, meanwhile)
    finally:
        os.chdir(cwd)


def _import_runners() -> None:
    """Import what each run needs (papermill and nbformat: about a second of CPU, most of it
    jsonschema's format grammars; nbconvert's HTML exporter) with the garbage collector paused,
    then move everything alive to the collector's permanent generation (``gc.freeze``; undone
    by ``run_report`` when the report ends, and not done when something else in this process
    froze objects before): the full collections the runs trigger (reading, exporting and
    writing the pages, the index's figure) then no longer walk every imported module's
    objects, a fifth of this process's CPU for three notebooks (0.8-0.9 s of 3.8-4.4 s).

    nbformat imports jsonschema, whose ``_format`` module registers the "iri" format check when
    ``rfc3987_syntax`` can be imported; that package compiles some forty Lark grammars at its
    import, 0.8 CPU-s (two thirds of these imports). Nothing here checks formats (nbformat
    validates without a format checker), so, when neither was imported before, jsonschema is
    imported with ``rfc3987_syntax`` hidden, which it reads as absent; a later
    ``import rfc3987_syntax`` in this process works as before.

    Called before the report starts its index's thread (``IndexWork``) and hands the workers
    their notebooks: importing nbconvert imports bleach, which adds an ``ignore`` filter to the
    warnings filters, and the disk cache's keys include the filters (``core.diskcache``). Run
    while the index's thread computed, the import made the filters of the report's cached
    lookups depend on the threads' timing (a lookup before the import does not see the filter;
    a ``warnings.catch_warnings`` block entered before the import and left after it puts the
    filters back without it): in 4 of 10 reports with a warm cache that followed a cold one
    (the default scenario on the loaded 2-core machine), the index's figure and the twelve
    pages' markdown were looked up under other filters than the cold report had written them
    under, and computed again (``_glance_uris`` and ``rendered_markdown`` written twice in
    ``LLMCOST_CACHE_DIR``): 1.3 CPU-s of this process, measured alone (0.6 for the markdown,
    0.7 for the figure); 0 of 6 since."""
    was_enabled = gc.isenabled()
    gc.disable()
    hide = "jsonschema" not in sys.modules and "rfc3987_syntax" not in sys.modules
    if hide:
        sys.modules["rfc3987_syntax"] = None  # an import of it raises ImportError
    try:
        import nbconvert.exporters.html  # noqa: F401
        import nbformat  # noqa: F401
        import papermill  # noqa: F401
    finally:
        if hide and "rfc3987_syntax" in sys.modules and sys.modules["rfc3987_syntax"] is None:
            del sys.modules["rfc3987_syntax"]
        if was_enabled:
            gc.enable()
    if gc.get_freeze_count() == 0:
        gc.collect()
        gc.freeze()


#: Each notebook's kernel CPU seconds in a report of the default scenario, with the disk cache
#: empty (cold) and filled by an earlier report (warm), as ``benchmarks/report_timeline.py``
#: prints them ("kernel ... CPU-s"), for the order the notebooks start in (``start_order``).
#: Measured on the 2-core machine shared with other work, so only their order matters.
NOTEBOOK_CPU_S = {
    "04b_step_time": (20.1, 2.5), "05_rl_loop": (5.8, 2.5), "04_communication": (5.0, 3.0),
    "09_savings": (4.7, 1.0), "00_index": (3.7, 2.4), "03_parallelism": (2.8, 2.4),
    "06_chinchilla": (2.3, 2.4), "01_flops": (2.2, 2.8), "02_batch_size": (2.1, 2.1),
    "07_checkpoints": (1.3, 1.6), "08_published_runs": (0.8, 0.7), "10_glossary": (0.2, 0.1),
}


def start_order(nbs: list) -> list:
    """The order a report hands its notebooks to its workers: the costliest first
    (``NOTEBOOK_CPU_S``, cold cache, then warm), each idle worker taking the next. This is
    Graham's longest-processing-time-first list schedule (R. L. Graham, "Bounds on
    multiprocessing timing anomalies", SIAM J. Appl. Math. 17(2), 1969, §4: the last notebook
    to finish ends at most 4/3 - 1/(3m) times as late as the best schedule on m workers);
    in reading order, the step-time notebook, which builds the validation tables with an
    empty cache (20 of the report's 60 kernel CPU-s), started sixth and ended alone. A
    notebook the table does not know starts first (its cost is unknown), in reading order;
    the pages and the summary are in reading order whatever the order the notebooks ran in."""
    unknown = [nb for nb in nbs if nb.stem not in NOTEBOOK_CPU_S]
    known = sorted((nb for nb in nbs if nb.stem in NOTEBOOK_CPU_S),
                   key=lambda nb: tuple(-c for c in NOTEBOOK_CPU_S[nb.stem]))
    return unknown + known


#: Whether a report's warm kernels stay for the next report of this process (``keep_kernels``).
_KEEP_KERNELS = False
#: The idle workers kept warm between reports (``keep_kernels``), each with its kernel.
_IDLE_WORKERS: list = []
#: Idle workers kept at most (the oldest beyond them stop their kernels).
MAX_IDLE_WORKERS = 4


def keep_kernels(keep: bool = True) -> None:
    """Keep a report's warm kernels for the next report of this process (``keep``), or stop the
    kept ones and start new kernels for each report again (the default).

    A process that runs many reports (a test suite, a loop over scenarios) otherwise starts
    and imports new kernels for each (about 1.3 CPU-s and 2 s each, ``kernels.WarmKernel``); a
    kept kernel is reset before the next report's first notebook as before any notebook after
    the first (``kernels.RESET``, which also moves it to that notebook's folder). A kernel is
    kept only when its report ended without an error or an interruption and its last notebook
    did not time out, and is used again only with the same ``WarmKernel`` class, kernel
    arguments (``KERNEL_ARGS``), figure format (``FIGURES``) and environment it started with;
    at most ``MAX_IDLE_WORKERS`` are kept, and they stop when this process exits."""
    global _KEEP_KERNELS
    if not isinstance(keep, bool):
        raise ValueError(f"keep={keep!r} must be True or False")
    _KEEP_KERNELS = keep
    if not keep:
        _stop_idle_workers()


def _stop_idle_workers() -> None:
    while _IDLE_WORKERS:
        w = _IDLE_WORKERS.pop()
        w.inbox.put(None)
        w.thread.join()


atexit.register(_stop_idle_workers)


def _worker_key() -> tuple:
    """What a kept or early worker's kernel must share with a report that takes it
    (``workers.worker_key``)."""
    return worker_key(WarmKernel, KERNEL_ARGS, FIGURES)


class _Workers:
    """``jobs`` workers (no more than there are notebooks), each a thread with its own warm
    kernel (``workers.Worker``), started as soon as the scenario is valid and the folder ready,
    so that the kernels start and import (their own processes) while this process imports
    what the runs need, then run their first notebooks while it prints the warnings and starts
    the index's work; with ``keep_kernels``, kept ones are taken first,
    then those ``python -m llmcost report`` started before it imported the package
    (``workers.take_early``: already warming up while this process validated the scenario).
    ``submit(inbox, nb, run)`` has the worker of ``inbox`` call ``run(kernel)`` and put
    ``(inbox, nb, result)`` on ``events`` (``(inbox, None, exception)`` if a worker fails);
    ``stop()`` ends the workers, each stopping its kernel (with ``keep_kernels``, a report
    that ended well keeps them: ``stop(keep=True)``)."""

    def __init__(self, n_notebooks: int, jobs: int, cwd):
        self.events = queue.Queue()
        key, n = _worker_key(), max(1, min(jobs, n_notebooks))
        kept = [w for w in _IDLE_WORKERS if w.key == key][:n] if _KEEP_KERNELS else []
        for w in kept:
            _IDLE_WORKERS.remove(w)
        kept += take_early(key, n - len(kept))  # started by `python -m llmcost report`
        self.workers = kept + [
            Worker(key, f"llmcost-report-{i}", WarmKernel(str(cwd), KERNEL_ARGS, figures=FIGURES))
            for i in range(len(kept), n)]
        self.inboxes = [w.inbox for w in self.workers]
        self.stopped = False
        for w in self.workers:
            w.inbox.put(("warm", cwd, self.events))

    def submit(self, inbox: queue.Queue, nb: Path, run: Callable) -> None:
        inbox.put(("run", (nb, run), self.events))

    def stop(self, wait: bool = True, keep: bool = False) -> None:
        """Start nothing more; with ``wait``, return once every worker has stopped its kernel
        (without, as on Ctrl-C, whose signal the running kernels get too, each kernel's
        connection file is removed at once: ``WarmKernel.remove_connection_file``). With
        ``keep`` (a report that ended well) and ``keep_kernels`` on, the workers whose kernels
        are healthy stay idle for the next report instead."""
        if self.stopped:
            return
        self.stopped = True
        stopping = []
        for w in self.workers:
            if keep and _KEEP_KERNELS and not w.failed and w.thread.is_alive():
                _IDLE_WORKERS.append(w)
            else:
                w.inbox.put(None)
                stopping.append(w)
        while len(_IDLE_WORKERS) > MAX_IDLE_WORKERS:
            old = _IDLE_WORKERS.pop(0)
            old.inbox.put(None)
            stopping.append(old)
        if wait:
            for w in stopping:
                w.thread.join()
        else:  # Ctrl-C, SIGTERM or an error: the process may end before the workers do
            for w in stopping:
                remove = getattr(w.kernel, "remove_connection_file", None)
                if remove is not None:
                    remove()


def _run_notebooks_in(nbs: list, out_dir: Path, scenario: dict, declared: dict,
                      timeout_s: int, workers: _Workers, progress,
                      meanwhile: Callable[[], None] | None = None) -> dict:
    """Hand each idle worker of ``workers`` the next notebook (``start_order``) and print the
    progress lines; returns each notebook's ``_NotebookRun``. ``meanwhile``, when given, is
    called once every worker has its first notebook, and their lines are printed after it
    returns (it prints lines that read before them: the scenario's warnings)."""
    n, written = len(nbs), {nb.stem for nb in nbs}
    title = scenario.get("title", "")
    runs, pending, left_to_start = {}, {}, start_order(nbs)
    held: list | None = [] if meanwhile is not None else None

    def start_next(inbox):
        nb = left_to_start.pop(0)
        started = n - len(left_to_start)
        running = [p.stem for p in pending.values()] + [nb.stem]
        line = (f"[{started}/{n}] started {nb.stem} ({len(left_to_start)} left to start; "
                f"running: {', '.join(running)})")
        if held is None:
            progress(line)
        else:
            held.append(line)
        pending[id(inbox)] = nb
        params = _notebook_parameters(nb, scenario, declared)
        workers.submit(inbox, nb, lambda kernel: _run_one(
            nb, out_dir / nb.name, params, f"{nb.stem} — {title}", written, timeout_s, kernel))

    try:
        for inbox in workers.inboxes[:n]:
            start_next(inbox)
        if meanwhile is not None:
            meanwhile()
            lines, held = held, None
            for line in lines:
                progress(line)
        while pending:
            inbox, nb, value = workers.events.get()
            if nb is None:
                raise value
            del pending[id(inbox)]
            run, failure = value
            runs[nb] = run
            left = n - len(runs)
            if failure:
                progress(f"[{len(runs)}/{n} finished] {nb.stem} FAILED ({failure}); kept at "
                         f"{run.out_nb} ({left} left)")
            else:
                progress(f"[{len(runs)}/{n} finished] {nb.stem} done in {run.seconds:.1f} s "
                         f"({left} left)")
            if left_to_start:
                start_next(inbox)
    except BaseException:  # Ctrl-C or an error: start nothing more (running kernels get Ctrl-C)
        workers.stop(wait=False)
        raise
    workers.stop(keep=True)  # each worker has stopped its kernel (or, kept, is idle)
    return runs


def _summary_value(summary: dict, stem: str, key: str):
    """A notebook's published number (``summary["notebooks"][stem]``'s row ``key``), or None."""
    for r in summary["notebooks"].get(stem, []):
        if r["key"] == key and isinstance(r["value"], (int, float)):
            return r["value"]
    return None


def _storage_warning(summary: dict) -> str | None:
    """The checkpoint-storage share warning, once notebooks 01 and 07 have run."""
    storage, compute = _summary_value(summary, "07_checkpoints", "storage_cost_usd"), \
        _summary_value(summary, "01_flops", "compute_cost_usd")
    if storage is None or not compute:
        return None
    return storage_share_warning(storage, compute)


def pilot_band_warning(summary: dict, scenario: dict | None = None) -> str | None:
    """One sentence when the bill's MFU (notebook 00's ``bill_mfu``) lies outside the band an
    illustrative pilot extrapolates to (notebook 04b's ``pilot_extrapolated_mfu_low`` and
    ``_high``, ``answers.pilot_band_rows``; the sentence is ``answers.pilot_band_words``): a
    published run like the scenario's, carried to its plan, ran at another MFU than the bill
    assumes (a consistency audit: a B200 MoE bill at 11.1% beside a 8.2%-10.1% band, said on
    page 04b and not on the index). None otherwise, and where the range the bill draws its MFU
    from (the ``scenario``'s, ``_drawn_mfu``) reaches that band."""
    m = _summary_value(summary, "00_index", "bill_mfu")
    lo = _summary_value(summary, "04b_step_time", "pilot_extrapolated_mfu_low")
    hi = _summary_value(summary, "04b_step_time", "pilot_extrapolated_mfu_high")
    return None if None in (m, lo, hi) else \
        pilot_band_words(m, lo, hi, _drawn_mfu(scenario or {}), _fp8_ratio(scenario or {}))


#: What ``beside_own_run`` adds to a pilot band's "lies below" when the model's own published
#: run reads the bill as optimistic.
OWN_RUN_OTHER_WAY = ("; the model's own published run (the warning on it) reads the bill the "
                     "other way: a whole run's history, failures, restarts and every phase in "
                     "it, where this is a run's steady state")


def beside_own_run(band: str | None, warnings) -> str | None:
    """The pilot band's warning (``answers.pilot_band_words``) with ``OWN_RUN_OTHER_WAY`` where
    it says the bill's MFU lies below a published run like the scenario's while the model's own
    published whole run (``validation.own_published_run_warning``, among ``warnings``) reads
    the bill as optimistic: a procurement trial read both under "Read this first" on one 40%
    MFU and could not tell which to act on. ``band`` unchanged otherwise."""
    if not band or " lies below " not in band or not any(
            str(w).startswith(OWN_RUN_WORDS) and "read the bill as optimistic" in str(w)
            for w in warnings):
        return band
    head, sep, tail = band.partition("; a pilot of your own settles which")
    return head + OWN_RUN_OTHER_WAY + sep + tail


def _fp8_ratio(values: dict) -> float | None:
    """r = peak(FP8) ÷ peak(BF16) of an FP8 scenario's accelerator (``checks.fp8_over_bf16``),
    whose MFUs are on the FP8 peak; None for another dtype or an accelerator without both."""
    if values.get("dtype") != "fp8":
        return None
    try:
        return fp8_over_bf16(values.get("accelerator", "H100-SXM"))
    except (TypeError, ValueError):
        return None


def _drawn_mfu(scenario: dict):
    """The range a bill draws its MFU from: the scenario's own (``mfu: [a, b]``) or its
    prediction's band (``mfu: predict``, ``montecarlo.predicted_band_of``); None for one
    number."""
    mfu = scenario.get("mfu")
    return mfu if isinstance(mfu, Range) else predicted_band_of(scenario)


def _bill_storage_warning(bill) -> str | None:
    """``llmcost estimate``'s twin of ``_storage_warning``: the checkpoint-storage line against
    the main run's compute line (notebook 07 sets the same storage against notebook 01's ideal
    compute cost; an SRE trial's 100 TB/s of storage, ten times the compute, was said on page
    07 and not under ``estimate``)."""
    compute = float(bill.line("compute.pretraining.main").usd)
    return storage_share_warning(float(bill.line("storage.checkpoints").usd), compute) \
        if compute > 0 else None


def _estimate_pilot_band(scenario: dict, values: dict, bill) -> str | None:
    """``llmcost estimate``'s twin of ``pilot_band_warning``: the illustrative pilot notebook
    04b runs for a scenario without pilots of its own (``calibrate.pilot_study``), its band set
    against the bill's MFU (a long-context trial read the warning in the report and not under
    ``estimate``). None for a scenario's own pilots (the bill's MFU is theirs: ``pilot:``
    records, or a throughput ``calibrate_mfu`` has already carried to the run), without a
    published run of its class, or inside the band."""
    if scenario.get("pilot") or "_mfu_calibration" in scenario \
            or values.get("ledger_pilot_tokens_per_s_per_gpu") is not None:
        return None
    with warnings.catch_warnings():   # a stack feature the plan lacks: the bill says it once
        warnings.simplefilter("ignore", StackFeatureWarning)
        study = pilot_study(values)
    x = study.extrapolation
    if not study.illustrative or x is None:
        return None
    return pilot_band_words(float(bill.figures["mfu"]), x.mfu_low, x.mfu_high,
                            _drawn_mfu(scenario), _fp8_ratio(values))


def _version() -> str:
    return __version__


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def format_value(value, unit: str = "") -> str:
    """A headline value as a reader wants it: $99.3M, 26.0M GPU-h, 3.80e25 FLOP, 580,964 GPU-h,
    66.2 days (below one day or month in the unit that fits, ``units.fmt_period``: 26.4
    min), three significant
    figures from a million up (a value that rounds up to the next
    suffix takes it: 1.00B GPU-h, not 1.00e+03M; from 10^15 up in exponent form); a value whose
    unit is ``"fraction"`` as a percentage (0.466 -> 46.6%); a ``"USD/GPU-h"`` rate as
    $3.99/GPU-h; terabytes in the decimal unit that fits (0.00651 TB -> 6.51 GB)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"{value} {unit}".strip() if value is not None else "—"
    v = float(value)
    if not math.isfinite(v):  # never "nan" or "inf" on a page
        return not_finite_text(v) if math.isnan(v) else f"{not_finite_text(v)} {unit}".strip()
    if unit == "fraction":
        return f"{v:.1%}"
    if unit == "FLOP":
        return f"{v:.2e} FLOP".replace("e+", "e")
    if unit == "B":
        return fmt_bytes(v)
    if unit == "TB" and v:   # in the unit that fits: a lecturer read "0.00651 TB" (6.51 GB)
        return fmt_bytes(v * 1e12)
    scales = [(1e12, "T"), (1e9, "B"), (1e6, "M")]
    if unit == "USD":
        return fmt_usd(v)
    if unit == "USD/GPU-h":   # a rate: never a bare dollar figure beside the bill's totals
        return f"{fmt_usd(v)}/GPU-h"
    if unit in PERIOD_SECONDS and 0 < abs(v) < 1:  # "0.0183 days" is 26.4 min
        return fmt_period(v, unit)
    if abs(v) >= 999.5e12:  # beyond trillions a suffix would carry an exponent
        return f"{v:.2e} {unit}".replace("e+", "e").strip()
    for scale, suffix in scales:
        # a value that rounds up to the next suffix takes it: 999.6M GPU-h is "1.00B GPU-h"
        if abs(float(f"{v:.3g}")) >= scale:
            return f"{sig3(v / scale)}{suffix} {unit}".strip()
    if abs(v) >= 1000 or v.is_integer():
        return f"{v:,.0f} {unit}".strip()
    return f"{v:.3g} {unit}".strip()


#: Headline keys whose unitless values are fractions, shown as percentages on the index page.
_FRACTION_WORDS = ("mfu", "goodput", "fraction", "share", "utilisation", "hfu")


def index_value(row: dict) -> str:
    """A headline figure as the index page shows it: ``format_value``, with yes/no for booleans
    and a percentage for unitless fractions (MFU, goodput, bubble, shares). A whole number (an
    ``int``: "29 of 29 held-out MFU rows") is a count, never a fraction, whatever its key says."""
    v = row.get("value")
    if isinstance(v, bool):
        return "yes" if v else "no"
    if not row.get("unit") and isinstance(v, float) and math.isfinite(v) and \
            any(w in row.get("key", "") for w in _FRACTION_WORDS):
        return f"{v:.1%}"
    return format_value(v, row.get("unit", ""))


def _write_summary(out_dir: Path, summary: dict) -> None:
    (out_dir / "summary.json").write_text(json.dumps(  # a range in its scenario-file form
        json_finite(summary), indent=2, allow_nan=False,
        default=lambda o: o.to_yaml() if hasattr(o, "to_yaml") else str(o)) + "\n")
    with (out_dir / "summary.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["notebook", "key", "label", "value", "unit", "note"])
        for stem, rows in summary["notebooks"].items():
            for r in rows:
                w.writerow([stem, r["key"], r["label"], r["value"], r["unit"], r["note"]])


def private_keys(scenario: dict) -> dict:
    """The private keys of a resolved scenario the bill labels with (``_mfu_prediction``), and
    its ranges (``llmcost.ranges.Range``: the bill draws them, every other notebook uses points)."""
    return {k: v for k, v in scenario.items()
            if k in ("_mfu_prediction", "_mfu_calibration", "_mfu_default", "_ledger_rl_omitted")
            or isinstance(v, Range)}


def bill_inputs(values: dict, scenario: dict | None = None) -> dict:
    """What the report's bill is built from: the ledger's keys of the values every notebook
    used, with the resolved scenario's private keys and ranges (``private_keys``)."""
    return {**bill_values(values),
            **private_keys(scenario or {})}


def _bill(values: dict, scenario: dict | None = None, samples: int = 100_000,
          head=None) -> dict:
    """The whole bill (``llmcost.ledger``) of the values every notebook used, for summary.json,
    with its ranges: the scenario's points, and P10 / P50 / P90 per line and the tornado of the
    headline draws (``ledger.headline_draws``, ``glance.with_headline``): the same range as the
    index's figure and sentences, and as ``llmcost estimate``. ``head``: those draws already
    made (``headline_draws(bill_inputs(values, scenario), samples=samples)``), else drawn here."""
    inputs = bill_inputs(values, scenario)
    try:
        head = headline_draws(inputs, samples=samples) if head is None else head
    except ValueError:  # a sourced spread breaks a rule in some draws: the scenario's own ranges
        return mark_points_outside(simulate_ledger(inputs, samples=samples).bill_summary())
    return mark_points_outside(with_headline(head.point.summary(), head))


class IndexWork:
    """What the index shows that depends on the scenario's values only, not on the notebooks'
    runs: the bill (``_bill``) and its glance with its figure (``_glance``), computed in a
    thread of their own while the notebooks run (0.3-0.5 s of this process's CPU for the
    default scenario with a warm disk cache, which the report otherwise spent after its last
    notebook).
    ``result(name)`` waits for them and returns the value, or raises the ``ValueError`` its
    computation raised, where the report would have computed it. Both are of the same headline
    draws (``ledger.headline_draws``, 100,000 draws, seed 0), drawn once for the two (each drew
    them: 0.05 CPU-s of the report's, measured on the default scenario)."""

    def __init__(self, values: dict, scenario: dict, title: str):
        self.values, self.scenario, self.title, self.done = values, scenario, title, {}
        self.thread = threading.Thread(target=self._work, name="llmcost-report-index",
                                       daemon=True)
        self.thread.start()

    def _work(self) -> None:
        try:  # the draws both use; where they cannot be drawn, each runs as it did alone
            drawn = (headline_draws(bill_inputs(self.values, self.scenario), samples=SAMPLES),)
        except Exception:  # noqa: BLE001 (each step below raises it again, and keeps it)
            drawn = ()
        for name, fn in (("bill", lambda: _bill(self.values, self.scenario,
                                                *((SAMPLES,) + drawn if drawn else ()))),
                         ("glance", lambda: _glance(self.values, self.scenario, self.title,
                                                    *drawn))):
            try:
                self.done[name] = (fn(), None)
            except ValueError as e:
                self.done[name] = (None, e)
            except BaseException as e:  # noqa: BLE001 (raised in the report's thread)
                self.done[name] = (None, e)
                return

    def result(self, name: str):
        self.thread.join()
        if name not in self.done:  # an earlier step failed otherwise: raise its error
            raise next(e for _, e in self.done.values() if e is not None)
        value, error = self.done[name]
        if error is not None:
            raise error
        return value


def _glance(values: dict, scenario: dict, title: str, head=None) -> tuple[dict, str]:
    """``summary['bill_glance']`` of the scenario (``glance.bill_glance``) and its figure's HTML
    (``glance.glance_figure_html``), titled ``title``. ``head``: the headline draws already
    made (``headline_draws(bill_inputs(values, scenario), samples=glance.SAMPLES)``)."""
    out, bars, tor = (bill_glance(bill_inputs(values, scenario)) if head is None
                      else glance_summary(head))
    return out, glance_figure_html(bars, tor, title, out["illustrative"], basis=out["basis"])


def _bill_at_central_mfu(values: dict, scenario: dict, summary: dict) -> dict | None:
    """``{"mfu": m, "total_usd": T}``: the whole bill rebuilt at notebook 04b's central MFU m
    (its ``predicted_mfu_central``), T = ``build_ledger`` of the bill's inputs with ``mfu`` = m,
    every pre-training phase that gives its own MFU keeping it (notebook 09's own-hardware row,
    ``levers.hardware_sweep``), for ``glance.assumed_mfu_sentence``. None without that row, a
    bill, or where the MFU is the prediction's or the pilots' already, or the bill cannot be
    rebuilt there (the sentence then falls back on its stated rule). ``waste``: the scenario
    sets a ``waste_`` key, which this bill leaves out (as the index's does) and notebook 09's
    row adds (``levers.bill``)."""
    rows = (summary.get("notebooks") or {}).get("04b_step_time") or []
    m = next((r.get("value") for r in rows if r.get("key") == "predicted_mfu_central"), None)
    band = ((summary.get("parameters") or {}).get("mfu_band") or {}).get("value")
    if not isinstance(m, (int, float)) or not summary.get("bill") or band in ("predicted",
                                                                           "pilot"):
        return None
    waste = any(values.get(k) not in (None, 0, 0.0) for k in WASTE_KEYS)  # 09's row adds it
    try:
        return {"mfu": float(m), "total_usd": float(build_ledger(
            {**bill_inputs(values, scenario), "mfu": float(m)}).total_usd), "waste": waste}
    except ValueError:
        return None


def index_title(scenario: dict, scenario_path) -> str:
    """The title of the index's figure: the scenario's, else its file's name."""
    return scenario.get("title") or Path(str(scenario_path)).stem


def _glance_and_compare(plan, scenario: dict, scenario_path, summary: dict, other,
                        progress, index_work: IndexWork | None = None) -> dict:
    """The index's glance (``glance.bill_glance``: ``summary['bill_glance']`` and its figure)
    and, with a second scenario (``other``: its path and ``estimate_ledger`` bill), the two
    bills compared (``summary['compare']``). Returns the HTML pieces ``_write_index`` takes.
    ``index_work``: the glance computed while the notebooks ran (else computed here)."""
    title = index_title(scenario, scenario_path)
    out = {"figure": "", "compared": ""}
    summary["bill_glance"] = None
    summary["bill_at_central_mfu"] = _bill_at_central_mfu(plan.values, scenario, summary)
    if summary.get("bill"):
        try:
            summary["bill_glance"], out["figure"] = (
                _glance(plan.values, scenario, title) if index_work is None
                else index_work.result("glance"))
        except ValueError as e:
            progress(f"warning: the bill's figure could not be drawn: {e}")
    if other is not None:
        path, bill_b = other
        names = scenario_names(str(scenario_path), path, scenario.get("title"),
                               load_scenario(path).get("title"))
        try:
            bill_a = build_ledger(bill_inputs(plan.values, scenario))
            df = compare_bills([bill_a, bill_b], names)
        except ValueError as e:  # the pages are written all the same; the index says why
            summary["warnings"].append(f"the two bills could not be compared: {e}")
            progress(f"warning: the two bills could not be compared: {e}")
            return out
        summary["compare"] = {"scenario_file": path, "names": list(names),
                              "warnings": list(bill_b.warnings),
                              "inputs_differ": compare_inputs([bill_a, bill_b], most=None),
                              "lines": [{**r, "difference_outside": difference_outside(r)}
                                        for r in compare_records(df, names)]}
        try:
            figure = compare_figure_html(df, names)
        except ValueError as e:  # the table says it all the same
            figure = ""
            progress(f"warning: the comparison's figure could not be drawn: {e}")
        out["compared"] = compare_html(df, names, bill_b.warnings, path,
                                       compare_inputs([bill_a, bill_b]), figure=figure,
                                       days=compare_days_words([bill_a, bill_b]))
    return out


def _no_swing_words(keys) -> str:
    """The ranged inputs that move no line (the tornado's ``no_swing``, ``montecarlo``) as a
    sentence that starts with its own capital, the keys kept as written (a trial read
    "Rl_time_factor", the note's first letter upper-cased)."""
    return (f"Also ranged, not listed: {', '.join(keys)} (but the bill reads the same at its "
            "P10 and its P90)")


def _bill_html(summary: dict) -> str:
    """The bill (summary['bill'], from llmcost.ledger): every line with an amount, the lines not
    modelled yet, and the total."""
    bill = summary.get("bill")
    if not bill:
        return ""
    rows, missing, marked = [], [], []
    ranged = bool(bill.get("bill.ranges"))  # P10 / P50 / P90 columns (ledger.simulate_ledger)
    has_00 = "00_index" in summary.get("notebooks", {})  # a report of some notebooks only

    def pct(d):
        return "".join(f"<td class='v'>{format_value(d[f'{c}_usd'], 'USD')}</td>"
                       for c in ("p10", "p50", "p90")) if ranged else ""

    def point(usd, d):  # a point outside its own P10-P90 carries "*", as the bill's figure
        out = ranged and None not in (usd, d.get("p10_usd"), d.get("p90_usd")) \
            and point_outside(usd, d["p10_usd"], d["p90_usd"])
        marked.append(out)
        return format_value(usd, "USD") + ("*" if out else "")
    for ln in bill["bill.lines"].values():
        if ln["usd"] is None:
            missing.append(ln["label"])
        elif ln["usd"] > 0 or (ranged and (ln.get("p90_usd") or 0) > 0):
            rows.append(f"<tr><td>{html.escape(ln['label'])}</td><td class='v'>"
                        f"{point(ln['usd'], ln)}</td>{pct(ln)}"
                        f"<td>{html.escape(ln['status'])}</td></tr>")
    total = {f"{c}_usd": bill.get(f"bill.total_{c}_usd") for c in ("p10", "p50", "p90")}
    rows.append(f"<tr><th>the whole bill</th><th class='v'>"
                f"{point(bill['bill.total_usd'], total)}</th>{pct(total)}<th></th></tr>")
    note = (f"* {html.escape(OUTSIDE_NOTE)}. " if any(marked) else "") + \
        (f"Not modelled yet: {html.escape(', '.join(missing))}. " if missing else "") + \
        ("Lines at $0 (not given in the scenario) are listed in <a href='00_index.html'>"
         "00_index</a> and by <code>llmcost estimate</code>." if has_00 else
         "Lines at $0 (not given in the scenario) are listed by <code>llmcost estimate</code> "
         "and in notebook 00, which this report does not hold.")
    head = "<th>P10</th><th>P50</th><th>P90</th>" if ranged else ""
    spread = ""
    if ranged:
        drivers = "; ".join(
            f"{html.escape(r['input'])} ({html.escape(r['range'])}): "
            f"{format_value(r['total_at_p10_usd'], 'USD')} to "
            f"{format_value(r['total_at_p90_usd'], 'USD')}" for r in bill["bill.tornado"])
        still = bill.get("bill.tornado_no_swing", [])  # ranged inputs that move no line
        spread = (f"<p><b>Ranges:</b> {html.escape(bill['bill.range_note'])} What drives the "
                  f"spread (the bill with one input at its P10 and at its P90, the others at "
                  f"their points), largest first: {drivers}."
                  + (f" {html.escape(_no_swing_words(still))}." if still else "")
                  + "</p>")
    return bill_table_html("".join(rows), head) + f"{spread}<p style='color:#555'>{note}</p>"


def bill_table_html(rows: str, head: str = "") -> str:
    """The index's bill table around its rows' markup (``head``: the percentile columns' header
    cells): a head of its own, repeated on each printed page, and the table kept whole on one
    page where it fits (``INDEX_CSS``, ``@media print``: a finance trial's A4 print split it
    after two rows, the other 14 on the next page without a header)."""
    return ("<h2>The bill</h2><table class='bill'><thead><tr><th>line</th>"
            f"<th class='v'>USD (point)</th>{head}<th>status</th></tr></thead><tbody>{rows}"
            "</tbody></table>")


def _notebook_question(nb: Path) -> str:
    """The question in a notebook's title (its first heading, without the number)."""
    try:
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        first = "".join(cells[0]["source"]).splitlines()[0]
    except (OSError, ValueError, KeyError, IndexError):
        return ""
    return re.sub(r"^#\s*\d+[a-z]?\s*·\s*", "", first).strip()


#: The parameters that name a model (a catalogue name or a config.json: ``model_words``).
MODEL_KEYS = ("model", "ledger_synthetic_model")


def _value_text(key: str, v) -> str:
    """A parameter's value in the index's "Parameters used" table (``_param_text``; a model by
    ``model_words``: a config.json by its model's name and file, not its author's path)."""
    return _param_text(model_words(v) if key in MODEL_KEYS and v is not None else v)


def _param_text(v) -> str:
    if hasattr(v, "describe"):  # a range (llmcost.ranges.Range)
        return v.describe()
    if isinstance(v, bool):
        return "true" if v else "false"  # as a scenario file writes it
    if isinstance(v, float):
        return (f"{v:.4g}" if abs(v) >= 1e6 or (v and abs(v) < 1e-3) else f"{v:g}").replace(
            "e+", "e")
    if v is None:
        return "null"
    if isinstance(v, (list, tuple)):  # phases, people: as a scenario file writes a flow list
        return "[" + ", ".join(_param_text(x) for x in v) + "]"
    if isinstance(v, dict):           # one phase: {name: long-context, tokens: 8e11, ...}
        return "{" + ", ".join(f"{k}: {_param_text(x)}" for k, x in v.items()) + "}"
    return str(v)


def _mfu_note(summary: dict) -> str:
    pred = summary.get("mfu_prediction")
    if not pred:
        return ""
    return (f"<p><b>MFU predicted, not assumed:</b> the scenario says <code>mfu: predict</code>; "
            f"every notebook used {pred['value']:.1%}: "
            f"{html.escape(predicted_mfu_words(pred))}; {html.escape(pred['from'])} on the "
            f"{html.escape(pred.get('stack', ''))} software stack (step "
            f"{pred['step_time_s']:.2f} s, {pred['tokens_per_s']:,.0f} tokens/s; notebook "
            "04 shows where the time goes). The prediction and its error band: "
            f"{html.escape(pred['band']['text'])}.</p>\n")


#: The index page's style: tables scroll in their own box, words break only when a word alone
#: is wider than its line (never inside a heading or a table header), figures fit the screen;
#: on a wide screen the bill's figure leaves the 60rem column for the screen's width, up to its
#: own 1,440 px (15 in at matplotlib's 72 pt/in): at 1,400 px its 11 pt labels are drawn at 13.6
#: CSS px (10 pt), where the column's 960 px drew them at 9.8 px (too small on a projector);
#: printed (``@media print``): one column at the paper's width, tables laid out whole, the
#: caveats' details open, links as plain text.
INDEX_CSS = """body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;
padding:0 1rem;overflow-wrap:break-word}
table{border-collapse:collapse;display:block;max-width:100%;overflow-x:auto}
td,th{border-bottom:1px solid #ddd;padding:.3rem .6rem;text-align:left;vertical-align:top}
th,h1,h2,h3{overflow-wrap:normal;word-break:normal;hyphens:manual}
td.v,th.v{text-align:right;white-space:nowrap}td.r,th.r{white-space:normal}span.n{white-space:nowrap}
span.rg{display:block;font-size:.875em;font-weight:normal;color:#555}code{word-break:break-all;font-size:14px}
th.nb{padding-top:1.2rem;font-weight:600;background:#f6f6f6}
ul.cols{columns:16rem}
p.lead{font-size:1.15rem;line-height:1.45;margin:.5rem 0}
p.lead-detail{font-size:.95rem;line-height:1.45;color:#444;margin:.4rem 0 .8rem}
img.glance{display:block;max-width:100%;height:auto;margin:1rem 0}
img.difference{display:block;max-width:100%;height:auto;margin:1rem 0}
@media screen and (min-width:64rem){img.glance{max-width:none;
width:min(1440px,calc(100vw - 4rem));margin-left:calc(50% - min(1440px,calc(100vw - 4rem))/2)}}
div.caveats{background:#fff4d6;border:1px solid #e0b000;padding:.4rem 1rem;margin:1rem 0}
div.caveats summary{cursor:pointer}p.note{color:#555}
details.fn summary{cursor:pointer;color:#555;font-size:14px}
@media (max-width:40rem){body{margin:1rem auto}td,th{padding:.25rem .35rem}
h1{font-size:1.5rem}p.lead{font-size:1.05rem}}
@media print{@page{margin:15mm}
body{max-width:none;margin:0;padding:0;font-size:11pt;color:#000}
table{display:table;overflow:visible;width:100%;font-size:10pt}
tr,img,li,table.bill{break-inside:avoid}h1,h2{break-after:avoid}thead{display:table-header-group}
a{color:inherit;text-decoration:none}
div.caveats{background:none}span.hint,details.fn{display:none}
div.caveats details::details-content{content-visibility:visible;display:block}
div.caveats summary{list-style:none}div.caveats summary::-webkit-details-marker{display:none}
div.caveats details>p{margin:.2rem 0 .5rem;font-size:10pt}td:first-child>code{word-break:normal}
ul.cols{columns:2}}"""


def _resolved(key: str, used: dict, summary: dict) -> str:
    """What a null parameter became in the bill, for the index's "Parameters used" table: a
    null ``price_usd_per_gpu_hour`` is the price the bill used (``figures`` of
    ``summary['bill']``: the catalogue median for the accelerator and pricing mode, or the
    owned amortisation), " → $6.16/GPU-h"; owned, the hardware rate the compute lines charge
    and the energy beside it; empty otherwise (the headline figures give it with its source)."""
    bill = summary.get("bill") or {}
    price = bill.get("bill.figures.price_usd_per_gpu_hour")
    if key != "price_usd_per_gpu_hour" or used.get("value") is not None or \
            not isinstance(price, (int, float)):
        return ""
    pricing = bill.get("bill.figures.pricing", "pricing")
    rate = bill.get("bill.figures.gpu_rate_usd_per_gpu_hour")
    if pricing == "owned" and isinstance(rate, (int, float)) and abs(rate - price) > 0.005:
        # owned: the compute lines charge the amortised hardware; the energy line bills the rest
        # (the rate the index's sentences name, glance.bill_glance)
        return (f" → {fmt_usd(rate)}/GPU-h of hardware, the compute lines' rate, + "
                f"{fmt_usd(price - rate)} of energy = {fmt_usd(price)}, the bill's (owned)")
    return f" → {fmt_usd(price)}/GPU-h, the bill's ({pricing})"


def _write_index(out_dir: Path, scenario: dict, nbs: list[Path], result: ReportResult,
                 summary: dict, figure: str = "", compared: str = "") -> None:
    title = scenario.get("title") or Path(summary["scenario_file"]).stem
    failed = [p.stem for p in result.failed]
    lead = "".join(f"<p class='lead'>{html.escape(x)}</p>"
                   for x in plain_sentences(summary, failed))
    detail = lead_details(summary)
    if detail:
        lead += f"<p class='lead-detail'>{html.escape(detail)}</p>"
    pointer = compared_sentence(summary)
    if pointer:
        lead += (f"<p class='compared'>{html.escape(pointer)} "
                 "<a href='#compared'>Go to the comparison</a>.</p>")
    esc = html.escape
    params = "".join(
        f"<tr><td><code>{esc(k)}</code></td>"
        f"<td>{esc(_value_text(k, v['value']) + _resolved(k, v, summary))}</td>"
        f"<td>{esc(v['from'])}</td></tr>" for k, v in summary["parameters"].items())
    links, heads = [], []
    for nb in nbs:
        failed = (out_dir / nb.name) in result.failed
        status = " <b style='color:#b00'>(failed: see the notebook)</b>" if failed else ""
        question = esc(_notebook_question(nb))
        links.append(f"<li><a href='{esc(nb.stem)}.html'>{esc(nb.stem)}</a>: {question}"
                     f"{status}</li>")
        rows = summary["notebooks"].get(nb.stem, [])
        if rows:
            heads.append(f"<tr><th colspan='3' class='nb'><a href='{esc(nb.stem)}.html'>"
                         f"{esc(nb.stem)}</a>: {question}</th></tr>")
        for r in rows:
            val = index_value(r)
            heads.append(f"<tr><td>{esc(r['label'])}</td><td class='v'>{esc(val)}</td>"
                         f"<td>{note_html(r['note'])}</td></tr>")
    defaults = _defaults_used(summary["parameters"])
    defaults_html = ""
    if defaults:
        items = "".join(f"<li><code>{esc(k)}</code> = "
                        f"{esc(_param_text(summary['parameters'][k]['value']))}</li>"
                        for k in defaults)
        defaults_html = (f"<h2>Defaults used ({len(defaults)})</h2><p>The scenario leaves these "
                         "parameters out, so the notebooks' defaults were used (`llmcost list "
                         f"parameters` says what each means):</p><ul class='cols'>{items}</ul>")
    page = f"""<!DOCTYPE html>
<html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>llmcost report: {esc(title)}</title>
<style>{INDEX_CSS}</style></head><body>
<h1>llmcost report: {unbroken_html(title)}</h1>
{lead}
{figure}
{caveats_html(summary.get("warnings", []))}
{f"<p>{esc(str(scenario['description']))}</p>" if scenario.get('description') else ''}
<p>Scenario file: <code>{esc(summary['scenario_file'])}</code> · generated
{esc(summary['generated'])} by llmcost {esc(summary['llmcost_version'])}</p>
{_mfu_note(summary)}
{_bill_html(summary)}
{compared}
<h2>Headline figures</h2>
<table><tr><th>figure</th><th>value</th><th>convention and source</th></tr>
{''.join(heads)}</table>
<h2>Notebooks</h2><ul>{''.join(links)}</ul>
{defaults_html}
<h2>Parameters used</h2>
<table><tr><th>parameter</th><th>value</th><th>from</th></tr>{params}</table>
</body></html>
"""
    (out_dir / "index.html").write_text(page, encoding="utf-8")
