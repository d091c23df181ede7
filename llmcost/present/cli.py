"""The ``llmcost`` command: reports, notebook refresh and catalogue listings."""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import math
import os
import re
import signal
import sys
import textwrap
import threading
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from ..bill.alternatives import price_routes
from ..bill.checks import budget_warning, plan_does_not_fit
from ..bill.claims import (LEFT_OUT_KEY_PREFIXES, LEFT_OUT_KEYS, PHASE_LINE_PREFIX, check_claim,
                           compute_threshold_words)
from ..bill.ledger import (BASE_MODEL_WORDS, count_gap_words, exploratory_shift_words,
                           exploratory_words, headline_draws, mfu_draw_keys, own_ranged_scenario,
                           post_training_only, predicted_mfu_words, prices_at_mfu,
                           simulate_ledger)
from ..bill.levers import fit_budget
from ..bill.pilot import uncarried_band
from ..bill.ranges import POINT_WORDS, Range, is_point_range, is_ranged
from ..bill.scenario import (LEDGER_DEFAULTS, METADATA_KEYS, METADATA_WORDS, MFU_PREDICT,
                             PARAMETERS, PLAN_PARAMETERS, ScenarioError, load_scenario,
                             flag_number_hint, point_scenario, validate_parameter)
from ..core import catalog
from ..core.shown import OncePerText, show_once_per_text
from ..core.stacks import StackFeatureWarning
from ..core.units import (fmt_amount, fmt_count, fmt_gpus, fmt_percent, fmt_period,
                          fmt_quantity, json_finite, noun)
from ..core.version import __version__
from ..serving.rl import (decode_factor_words, time_factor_runs_words, time_factor_short,
                          time_factor_triangle, vllm_decode_factor)
from ..training import calibrate as pilot_calibration
from ..training.accuracy import dtype_basis
from ..training.efficiency_profile import write_efficiency_profile
from .glance import (  # noqa: F401 (compare_labels: cli.compare_labels)
    COMPARE_OUTSIDE_NOTE,
    OUTSIDE_NOTE,
    compare_bills,
    compare_columns,
    compare_days_words,
    own_totals_words,
    compare_inputs,
    compare_keys,
    compare_labels,
    compare_records,
    difference_outside,
    glance_summary,
    mark_points_outside,
    glance_text,
    point_outside,
    scenario_names,
    terminal_columns,
    text_charset,
    with_headline,
)
from .numbering import notebook_number
from .plots import signed_usd
from .report import (
    NOTEBOOK_DIR,
    ReportError,
    ReportInterrupted,
    UsageError,
    declared_parameters,
    effective_parameters,
    estimate_ledger,
    format_value,
    list_notebooks,
    plan_report,
    refresh_notebooks,
    run_report,
)
from .twins import sync_twins
from .workers import report_arguments

EPILOG = """examples:
  llmcost report --scenario data/scenarios/llama-3.1-405b.yaml
  llmcost report --scenario my_run.yaml --out build/reports/my_run --notebooks 01
  llmcost estimate --scenario data/scenarios/default.yaml --compare my_run.yaml
  llmcost list models
  llmcost check --model deepseek-v3 --train-tokens 14.8e12 --n-gpus 2048 --accelerator H800 \\
      --dtype fp8 --gpu-hours 2.788e6 --usd 5.576e6
  llmcost refresh-notebooks            (what `make notebooks` runs)
  llmcost twins                        (rewrite notebooks/text/, the notebooks' text twins)
"""


def whole_number(text: str) -> int:
    """An argparse type for a count: a whole number as the YAML counts take it, "100000" or
    "1e5" (a trial's `--samples 1e5` was refused as an invalid int), else the argparse error
    naming the value."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid whole number: {text!r}") from None
    if not v.is_integer() or abs(v) > 2**53:
        raise argparse.ArgumentTypeError(f"{text!r} must be a whole number")
    return int(v)


class _Parser(argparse.ArgumentParser):
    """argparse with "did you mean" on a mistyped command, choice or option (what Python 3.14's
    ``suggest_on_error`` adds; here for every supported Python): a newcomer's ``--scenaro`` was
    told only that ``--scenario`` is required, ``estimat`` and ``list model`` only the choices.
    ``argv`` is the command line being parsed (``_main`` sets it). The choices are read from
    the parser's own actions, not from argparse's message, whose wording varies by version."""

    argv: tuple = ()

    def error(self, message):
        super().error(message + self._choice_hint(message) + self._option_hint(message))

    def _choice_hint(self, message: str) -> str:
        """"; did you mean 'x'?" for an invalid choice, from this parser's choices."""
        m = re.search(r"invalid choice: '?([^'\s]+)'?", message)
        if not m:
            return ""
        choices = [str(c) for a in self._actions if a.choices for c in a.choices]
        close = difflib.get_close_matches(m.group(1), choices, n=1)
        return f"; did you mean {close[0]!r}?" if close else ""

    def _option_hint(self, message: str) -> str:
        """"; --x is not an option: did you mean --y?" for the first token of the command line
        that no option of the command it names starts with (argparse takes a unique prefix),
        before any ``--``, on an unrecognized-argument or a missing-argument error only."""
        if "unrecognized arguments:" not in message and "arguments are required" not in message:
            return ""
        argv = list(_Parser.argv)
        argv = argv[:argv.index("--")] if "--" in argv else argv
        known = {s for a in self._command_actions(argv) for s in a.option_strings}
        for token in argv:
            name = token.split("=")[0]
            if name.startswith("--") and not any(k.startswith(name) for k in known):
                close = difflib.get_close_matches(name, sorted(known), n=1)
                return f"; {name} is not an option" + (f": did you mean {close[0]}?"
                                                       if close else "")
        return ""

    def _command_actions(self, argv: list) -> list:
        """The actions of the subcommand ``argv`` names (this parser's own when it names none,
        or when this parser is that subcommand's)."""
        for a in self._actions:
            if isinstance(a, argparse._SubParsersAction):
                named = next((x for x in argv if x in a.choices), None)
                if named is not None:
                    return list(a.choices[named]._actions)
        return list(self._actions)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="llmcost", description="What it costs to train a large language model: run the "
        "workbook's notebooks for a scenario and write an HTML report.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"llmcost {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    r = sub.add_parser(
        "report", help="run every notebook for a scenario and write HTML + summary",
        description="Run the notebooks with a scenario's values (papermill) and write the "
        "executed notebooks, one HTML page per notebook without code, index.html, "
        "summary.json and summary.csv. The scenario is validated first: an unknown key, a value "
        "of the wrong type or out of range, or an unknown model or accelerator stops the "
        "report before anything is written.")
    report_arguments(r)  # shared with `python -m llmcost report`'s early start (workers.py)

    n = sub.add_parser("refresh-notebooks",
                       help="re-execute the committed notebooks in place with their defaults",
                       description="Execute notebooks/NN_*.ipynb in place with their default "
                       "parameters, remove volatile metadata and rewrite their text twins "
                       "(notebooks/text/*.py): what `make notebooks` runs.")
    n.add_argument("notebooks", nargs="*", metavar="NOTEBOOK",
                   help="numbers or names to refresh (default: all)")
    n.add_argument("--timeout", type=int, default=120, metavar="SECONDS",
                   help="per-cell timeout (default 120)")

    t = sub.add_parser("twins", help="write the notebooks' text twins (notebooks/text/*.py)",
                       description="Write notebooks/text/NN_name.py, the jupytext percent-format "
                       "twin of every notebook (or of those named), without executing anything; "
                       "delete twins whose notebook is gone (llmcost.twins).")
    t.add_argument("notebooks", nargs="*", metavar="NOTEBOOK",
                   help="numbers or names (default: all)")

    # ---- the bill in the terminal (llmcost.ledger)
    e = sub.add_parser("estimate", help="print the whole bill of a scenario (no Jupyter)",
                       description="Print the scenario's bill line by line (llmcost.ledger) and "
                       "its key figures, without running notebooks. The scenario is validated "
                       "as `llmcost report` validates a report of every notebook (the parallel "
                       "plan included, unless the accelerator lacks the figures it needs), and "
                       "the report's warnings are printed (and the bill against "
                       "ledger_budget_usd where the scenario gives one).")
    e.add_argument("--scenario", required=True, metavar="YAML", help="scenario file")
    e.add_argument("--format", choices=["text", "json", "csv"], default="text",
                   help="text (one screen, default), json (summary.json's bill) or csv (lines)")
    e.add_argument("--compare", metavar="YAML",
                   help="a second scenario: print both bills side by side with the difference")
    # working backwards (llmcost.levers.fit_budget)
    e.add_argument("--budget-usd", type=_usd_flag, metavar="USD", help="also print the tokens "
                   "(and compute-optimal model size) the budget buys (llmcost.levers.fit_budget)")
    e.add_argument("--deadline-days", type=float, metavar="DAYS", help="also print the fewest "
                   "GPUs whose main run meets the deadline; with --budget-usd, the GPU count on "
                   "which the most tokens fit both (llmcost.levers.fit_budget)")
    e.add_argument("--alternatives", action="store_true",
                   help="also price the routes to the goal: pre-train, continued pre-training, "
                   "SFT, LoRA, distillation, retrieval, prompting (llmcost.bill.alternatives, "
                   "its example goal), each with what it cannot do")
    e.add_argument("--samples", type=whole_number, default=100_000, metavar="N",
                   help="Monte Carlo draws of the scenario's ranges (1 to 1000000, default 100000): P10 / P50 "
                   "/ P90 per line, in the text, json and csv outputs (llmcost.ledger."
                   "simulate_ledger)")
    e.add_argument("--seed", type=int, default=0, metavar="S",
                   help="seed of the draws (default 0; the same seed gives the same figures)")

    _check_parser(sub)
    _calibrate_parser(sub)

    ls = sub.add_parser("list", help="print a catalogue or the scenario parameters",
                        description="Print a catalogue (models, accelerators, prices, "
                        "published runs, software stacks) or the shared scenario parameters.")
    ls.add_argument("what", choices=["models", "accelerators", "prices", "runs", "parameters",
                                     "params", "scenarios", "stacks"],
                    help="what to list (params: the same as parameters)")
    ls.add_argument("--format", choices=["table", "csv", "json"], default="table",
                    help="table: chosen columns with units, for a terminal (default); csv or json:"
                    " every column in SI units, sources included, for other tools")
    return p


def _fail(message: str, code: int = 2) -> int:
    print(f"llmcost: error: {message}", file=sys.stderr)
    return code


#: Set when a ``report`` command of this process has written its whole report and returned 0
#: (``report_written``).
_REPORT_WRITTEN = threading.Event()


def report_written() -> bool:
    """Whether a ``report`` command run by ``main`` in this process wrote its whole report and
    succeeded: every page, the index and the summary written and closed, and its kernels shut
    down (``run_report`` returns only then). ``llmcost/__main__.py`` then ends the process at
    once (``os._exit``) instead of tearing the interpreter down."""
    return _REPORT_WRITTEN.is_set()


def main(argv: list[str] | None = None) -> int:
    with warnings.catch_warnings():
        # the package's warnings shown "always" by the filter, once per text by the display
        # (core.shown: catch_warnings blocks reset the once-per-location registry)
        warnings.filterwarnings("always", category=UserWarning, module=r"llmcost(\.|$)")
        show_once_per_text()
        return _run(argv)


def _run(argv: list[str] | None) -> int:
    try:
        return _main(argv)
    except (KeyboardInterrupt, ReportInterrupted) as e:  # Ctrl-C: one line, the shell's code
        return _fail(str(e) if str(e) else "interrupted", code=130)
    except BrokenPipeError:  # `llmcost list prices | head -2`: the reader stopped; not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


def report_interrupt(signum, frame):
    """SIGTERM's and SIGINT's handler during a report: the report's Ctrl-C path
    (``KeyboardInterrupt``). Not while the interrupted code is the import system's own (a
    module lock's weak-reference callback, ``importlib._bootstrap``): an exception raised there
    is ignored ("Exception ignored in: <function _get_module_lock.<locals>.cb>") and leaves the
    module lock held, so the report's other threads deadlock on their next import and the
    report never ends (seen: a SIGTERM while the main thread imported nbformat). The signal is
    then sent again 50 ms later, when that code has returned."""
    if frame is not None and frame.f_code.co_filename.startswith("<frozen importlib"):
        threading.Timer(0.05, os.kill, (os.getpid(), signum)).start()
        return
    raise KeyboardInterrupt("interrupted" if signum == signal.SIGINT
                            else f"terminated (signal {signum})")


class _ReaderGone:
    """Standard output or error that outlives its reader: a report piped to ``head`` (or any
    reader that stops reading) goes on writing its folder, its progress lines discarded once the
    pipe is closed, instead of stopping half-way with no index and no INCOMPLETE marker."""

    def __init__(self, stream):
        self._stream, self._gone = stream, False

    def _drop(self) -> None:
        self._gone = True
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, self._stream.fileno())
        except (AttributeError, OSError, ValueError):  # no file descriptor: just drop
            pass

    def write(self, text: str) -> int:
        if not self._gone:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._drop()
        return len(text)

    def flush(self) -> None:
        if not self._gone:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._drop()

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _glue_negative_values(argv: list[str]) -> list[str]:
    """``--flag -1.5e12`` → ``--flag=-1.5e12``: argparse takes a value that starts with "-"
    (and is not a plain ``-1``/``-1.5``) for an option, printing a usage block instead of the
    validator's one line naming the field."""
    out: list[str] = []
    for tok in argv:
        if out and out[-1].startswith("--") and "=" not in out[-1] and tok.startswith("-"):
            try:
                float(tok)
            except ValueError:
                pass
            else:
                out[-1] = f"{out[-1]}={tok}"
                continue
        out.append(tok)
    return out


def _main(argv: list[str] | None = None) -> int:
    argv = _glue_negative_values(list(sys.argv[1:] if argv is None else argv))
    _Parser.argv = tuple(argv)   # for its "did you mean" on a mistyped option
    args = _parser().parse_args(argv)
    if args.command is None:  # no command: what there is, and a usage error's exit code
        _parser().print_help(sys.stderr)
        return 2
    if args.command == "report":
        if args.timeout < 1:
            return _fail(f"--timeout={args.timeout} must be >= 1 second")
        if args.jobs is not None and args.jobs < 1:
            return _fail(f"--jobs={args.jobs} must be >= 1")
        out = Path(args.out) if args.out else Path("build/reports") / Path(args.scenario).stem
        if args.notebooks is not None and not args.notebooks.replace(",", "").strip():
            return _fail(f"--notebooks={args.notebooks!r} names no notebook: give numbers or "
                         "names such as 00,01 or 04b, or leave --notebooks out to run them all")
        selection = [s for s in args.notebooks.split(",") if s.strip()] if args.notebooks else None
        streams = sys.stdout, sys.stderr  # its warnings and progress lines go to stderr
        sys.stdout, sys.stderr = _ReaderGone(sys.stdout), _ReaderGone(sys.stderr)
        # a termination (`timeout`, a job scheduler) stops the report as Ctrl-C does: the
        # folder gets its INCOMPLETE marker and the kernels are shut down
        term, intr = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, report_interrupt)
            signal.signal(signal.SIGINT, report_interrupt)
        try:
            run_report(args.scenario, out, selection, overwrite=args.overwrite,
                       timeout_s=args.timeout, jobs=args.jobs, compare=args.compare)
        except (ScenarioError, UsageError) as e:  # nothing was run or written
            return _fail(str(e))
        except ReportInterrupted:
            raise  # main(): one line, exit 130
        except ReportError as e:  # a notebook failed; the report keeps it
            return _fail(str(e), code=1)
        finally:
            sys.stdout, sys.stderr = streams
            if threading.current_thread() is threading.main_thread():
                signal.signal(signal.SIGTERM, term)
                signal.signal(signal.SIGINT, intr)
        _REPORT_WRITTEN.set()
        return 0
    if args.command == "refresh-notebooks":
        try:
            refresh_notebooks(args.notebooks or None, timeout_s=args.timeout)
        except UsageError as e:
            return _fail(str(e))
        except ReportError as e:
            return _fail(str(e), code=1)
        return 0
    if args.command == "twins":
        try:
            for path in sync_twins(list_notebooks(args.notebooks or None), NOTEBOOK_DIR):
                print(f"wrote {path}")
        except UsageError as e:
            return _fail(str(e))
        return 0
    if args.command == "estimate":
        return _estimate(args)
    if args.command == "list":
        return _list("parameters" if args.what == "params" else args.what, args.format)
    if args.command == "check":
        return _check(args)
    if args.command == "calibrate":
        return _calibrate(args)
    return _fail(f"unknown command {args.command!r}")


def _usd_flag(text: str) -> float:
    """``--budget-usd``'s value: a number, or argparse's error with the way to write it, as a
    scenario file's ``ledger_budget_usd`` says it (``scenario.validate_parameter``: "1.5M":
    write 1.5e+06; "$1,500,000": write 1500000; a finance trial got argparse's bare "invalid
    float value: '1.5M'")."""
    try:
        return float(text)
    except ValueError:
        pass
    try:
        validate_parameter("ledger_budget_usd", text)
    except ScenarioError as e:
        words = str(e).replace("ledger_budget_usd=", "", 1)
        raise argparse.ArgumentTypeError(words.replace("is text to YAML", "is read as text")
                                         ) from None
    raise argparse.ArgumentTypeError(f"{text!r} must be a number")


def _estimate_bills(args):
    """``(bills, draws)`` of ``estimate``'s scenario and its ``--compare`` one (the Monte Carlo
    draws of each, a pilot's band its own), or the message of the first refused, the
    ``--compare`` file's said as such, as ``report`` says it."""
    try:
        bills = [_ledger_said_once(args.scenario, "A" if args.compare else None)]
    except (ScenarioError, UsageError) as e:
        return str(e)
    try:
        if args.compare:
            bills.append(_ledger_said_once(args.compare, "B"))
    except (ScenarioError, UsageError) as e:
        return f"the scenario to compare with (--compare): {e}"
    try:
        keys = mfu_draw_keys(*bills)[:2] if len(bills) == 2 else (None,)
        return bills, [simulate_ledger(own_ranged_scenario(b), samples=args.samples,
                                       seed=args.seed, keys=k) for b, k in zip(bills, keys)]
    except (ScenarioError, UsageError) as e:
        return str(e)


def _ledger_said_once(path, tag: str | None):
    """``report.estimate_ledger(path)``, its Python warnings shown as they come but for a stack
    feature (``stacks.StackFeatureWarning``) the bill's own warnings already name ("<key>=<v>
    is not offered by the <stack> stack"), and, under ``--compare``, each one left prefixed
    with its scenario's ``tag`` as the bill's are: a trial read the stack's ZeRO-3 warning
    twice, once on stderr without its "warning of B" prefix; nor one the bill says itself,
    then or when its draws rebuild it (the display's ``OncePerText.seen``)."""
    with warnings.catch_warnings(record=True) as got:   # the filters in force kept
        bill = estimate_ledger(path)
    said, shown = list(getattr(bill, "warnings", []) or []), set()
    if isinstance(warnings.showwarning, OncePerText):  # the bill's own are said by the bill:
        warnings.showwarning.seen.update(said)  # not again when its draws rebuild it (a trial
        # read a custom config's "model_type='mystery' is not a known family" twice)
    for w in got:
        key = str(w.message).split(":", 1)[0]
        if str(w.message) in shown or str(w.message) in said or issubclass(
                w.category, StackFeatureWarning) and any(
                x.startswith(f"{key} is not offered by") for x in said):
            continue
        shown.add(str(w.message))
        if tag is None:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
        else:
            print(f"warning of {tag} ({Path(path).name}): {w.message}", file=sys.stderr)
    return bill


def _estimate(args) -> int:
    """``llmcost estimate``: validate like ``report``, build the ledger, print it."""
    if text_charset(sys.stdout) == "ascii" and hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="replace")  # a pipe without Unicode: '?' for × and ·
    loaded = _estimate_bills(args)
    if isinstance(loaded, str):
        return _fail(loaded)
    bills, draws = loaded
    fit = None
    if args.budget_usd is not None or args.deadline_days is not None:  # levers.fit_budget
        # refused before anything is printed: a bad budget never follows a printed bill
        if args.compare or args.format == "csv":
            return _fail("--budget-usd/--deadline-days work on one scenario in --format text or "
                         "json, not with " + ("--compare" if args.compare else "--format csv"))
        try:
            # the file's plan keys and batch too: the deadline's GPU count is one its plan splits
            # and fits, and the MFU restated there (mfu: predict, a pilot) is its plan's; dp
            # left out: it follows the GPU count
            # and the shorthand pilot's keys, which the bill's scenario drops once its MFU is
            # extrapolated (report.calibrate_mfu): each GPU count is priced at the pilot's
            # extrapolation there (levers._CountPricer), as pilot: records are
            raw = point_scenario(load_scenario(args.scenario))
            # (and the served tokens, which the compute-optimal row says it leaves out)
            plan_keys = {k: v for k, v in raw.items()
                         if (k in PLAN_PARAMETERS + ("global_batch_tokens", "seq_len")
                             and k != "dp") or (k.startswith("ledger_pilot_") and v is not None)
                         or k == "inference_tokens_lifetime"}
            fit = fit_budget({**bills[0].scenario, **plan_keys}, args.budget_usd,
                             args.deadline_days, overrun=True)
        except ValueError as e:
            return _fail(f"--budget-usd/--deadline-days: {e}")
    routes = None
    if getattr(args, "alternatives", False):
        if args.compare or args.format == "csv":
            return _fail("--alternatives works on one scenario in --format text or json, not "
                         "with " + ("--compare" if args.compare else "--format csv"))
        try:
            routes = price_routes(bills[0].scenario)
        except ValueError as e:
            return _fail(f"--alternatives: {e}")
    if args.samples == 1 and any(d.ranges for d in draws):
        print("warning: --samples 1: the P10, P50 and P90 of one draw are that draw; use "
              "--samples 10000 or more for percentiles", file=sys.stderr)
    if args.compare:
        paths = (args.scenario, args.compare)
        titles = [load_scenario(x).get("title") for x in paths]
        names = scenario_names(*paths, *titles)
        try:  # the difference per draw when there are ranges (common random numbers)
            df = compare_bills(bills, names, samples=args.samples, seed=args.seed,
                               draws=draws)
        except ValueError as e:
            return _fail(str(e))
        if args.format == "json":
            print(json.dumps(json_finite(compare_json(df, names, paths, titles, bills)),
                             indent=1, default=str, allow_nan=False))
        elif args.format == "csv":  # the lines alone; each bill's warnings on stderr
            # each line's key first, as a single bill's CSV has it (a trial's script could not
            # join the two); the amounts' columns keep the scenarios' names
            out = df.copy()
            out.insert(0, "key", compare_keys(df))
            print(out.to_csv(index=False), end="")
            for tag, name, b in zip("AB", names, bills):
                for w in b.warnings:
                    print(f"warning of {tag} ({name}): {w}", file=sys.stderr)
        else:
            print(compare_text(df, names, paths, bills))
        return 0
    bill, draws = bills[0], draws[0]
    try:  # one range per bill (ledger.HEADLINE_RULE): the JSON, the table and the text bars
        head = headline_draws(bill.scenario, samples=args.samples, seed=args.seed)
    except ValueError as e:
        head, head_error = None, e
    warned = bill_warnings(bill) + (
        [f"the bill at a glance could not be drawn: {head_error}"] if head is None else [])
    if args.format == "json":
        out = draws.bill_summary()
        out = with_headline(out, head) if head is not None else \
            {**out, "bill.illustrative": False}
        out = mark_points_outside(out)
        out = {**out, "warnings": warned}  # as the text prints them (bill_warnings)
        if fit is not None:
            out = {**out, "working_backwards": fit.to_dict(orient="records")}
        if routes is not None:
            out = {**out, "alternatives": routes.astype(object).where(routes.notna(), None)
                   .to_dict(orient="records")}
        print(json.dumps(json_finite(out), indent=1, default=str, allow_nan=False))
        return 0
    if args.format == "csv":  # the same draws as the JSON (one range per bill)
        s = (head.draws if head is not None else draws).summary()
        table = bill.table()
        for c in ("mean", "p10", "p50", "p90"):
            table[f"{c}_usd"] = [s[c].get(k) for k in table["key"]]
        table["bill_range_state"] = head.state if head is not None else "none"
        # every row a line of the bill (and the total), every column meaning the same on each;
        # the warnings the text prints go to stderr, one "warning: ..." line each, so that a
        # file of the CSV holds the table alone (json carries them under "warnings")
        print(table.to_csv(index=False), end="")
        for w in warned:
            print(f"warning: {w}", file=sys.stderr)
        return 0
    ranged = head is not None and head.state != "illustrative"
    print(bill_text(bill, args.scenario, draws=head.draws if ranged else None,
                    basis=head.basis if ranged else None,
                    totals=head.draws.total_usd if head is not None else None,
                    totals_from="the range above" if ranged else
                    "the illustrative spreads of the glance below"))
    if head is None:
        print(f"\nthe bill at a glance could not be drawn: {head_error}")
    else:  # the bill as text bars (glance.glance_text) of the same draws
        _, bars, tor = glance_summary(head)
        print("\n" + glance_text(bars, tor, charset=text_charset(sys.stdout),
                                 basis="; ".join(x for x in (head.basis, head.held) if x),
                                 outside_note=ONE_DRAW_NOTE if
                                 getattr(head.draws, "samples", 0) == 1 else OUTSIDE_NOTE))
    if fit is not None:  # levers.fit_budget
        own = bill.figures.get("budget_usd")
        head_words = "working backwards (llmcost.levers.fit_budget)" + (
            f"; --budget-usd ${args.budget_usd:,.0f} sets this search, the scenario's "
            f"ledger_budget_usd ${own:,.0f} the bill's budget line above"
            if own is not None and args.budget_usd is not None else "") + ":"
        print("\n" + "\n".join(textwrap.wrap(head_words, max(20, terminal_columns() - 1),
                                              subsequent_indent="  ")))
        for r in fit.itertuples():  # wrapped to the terminal as the bill's prose is
            value = fmt_amount(r.value)  # 16,384 GPUs exact, 664.5B tokens: no exponent
            print("\n".join(textwrap.wrap(f"{r.quantity}: {value} {_unit_of(value, r.unit)} "
                                           f"({r.how})",
                                           max(20, terminal_columns() - 1),
                                           initial_indent="  ", subsequent_indent="    ",
                                           break_on_hyphens=False)))
    if routes is not None:
        print(alternatives_text(routes, bill=bills[0]))
    return 0


def _unit_of(value: str, unit: str) -> str:
    """The plural ``unit`` of a ``fit_budget`` row ("GPUs", "days", "tokens") agreeing with its
    printed ``value``: singular after a value that reads "1" ("1 GPU", "1 day"), as
    ``units.noun``; a unit without a plural s is left as it is."""
    return noun(1 if value == "1" else 2, unit.removesuffix("s"), unit)


def _compare_head(names, paths) -> str:
    return (f"llmcost estimate --compare: A = {names[0]} ({paths[0]}), "
            f"B = {names[1]} ({paths[1]})")


#: What ``estimate --compare``'s P10 to P90 draws (``glance.compare_bills``), said under the table.
COMPARE_DRAWS_NOTE = ("P10 to P90 of B − A draw by draw, over the ranges each scenario gives "
                      "itself (a predicted MFU's band, a pilot's or the RL model's error on a "
                      "predicted RL iteration time included) and only those: not "
                      "the illustrative spreads the single-scenario bill adds on inputs given "
                      "as one number. Both bills see the same draws of the inputs they both range "
                      "(common random numbers).")
#: The same when neither scenario ranges anything.
COMPARE_POINTS_NOTE = ("Neither scenario gives a range of its own, so B − A is one number per "
                       "line (the illustrative spreads of the single-scenario bill are not "
                       "drawn here).")


def _per_draw_words(r) -> str:
    """A compare row's B − A P10 to P90 per draw, or the one figure every draw gives ("+$264k
    in every draw": an economist read "+$264k to +$264k" on lines no range moves)."""
    lo, hi = signed_usd(r["difference_p10_usd"]), signed_usd(r["difference_p90_usd"])
    if r["difference_p10_usd"] != r["difference_p10_usd"]:   # NaN: a line one bill does not model
        return lo
    return f"{lo} in every draw" if lo == hi else f"{lo} to {hi}"


def compare_text(df, names, paths, bills, columns: int | None = None,
                 fit: bool | None = None) -> str:
    """``estimate --compare`` as text: a header naming both scenarios (A and B: name and file),
    the lines side by side with B − A and, with ranges, the P10 to P90 of B − A per draw
    (``glance.compare_bills``; lines at $0 in both left out, and said), what the comparison
    draws (``COMPARE_DRAWS_NOTE``: each scenario's own ranges only), then each scenario's
    warnings. The prose (header, note, warnings) is wrapped to ``columns`` (default
    ``glance.terminal_columns``), as ``bill_text`` wraps it; with ``fit`` (None: when the
    output is a terminal or ``COLUMNS`` is set, not a pipe) a table wider than ``columns`` is
    printed a line per block (``_compare_block``). Under the header,
    the inputs on which the two differ (``glance.compare_inputs``)."""
    columns = terminal_columns() if columns is None else columns
    if fit is None:
        fit = sys.stdout.isatty() or "COLUMNS" in os.environ
    cols = compare_columns(df, names)
    d = df.rename(columns=cols)
    ranged = "difference_p10_usd" in d.columns

    def usd(v):
        return "not modelled" if v is None or v != v else format_value(float(v), "USD")

    rows, zero, flagged = [], 0, False
    for i, r in enumerate(d.to_dict("records")):
        if i < len(d) - 1 and not (r["a_usd"] or r["b_usd"]):
            zero += 1
            continue
        star = ranged and difference_outside(r)  # flagged as the single bill flags a point
        flagged = flagged or star
        rows.append([str(r["line"]), usd(r["a_usd"]), usd(r["b_usd"]),
                     signed_usd(r["difference_usd"]) + (" *" if star else "")]
                    + ([_per_draw_words(r)] if ranged else []))
    head = ["line", "A", "B", "B − A"] + (["B − A, P10 to P90 per draw"] if ranged else [])
    w = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]

    def fmt(cells):
        return "  ".join(c.ljust(w[0]) if i == 0 else c.rjust(w[i])
                         for i, c in enumerate(cells)).rstrip()

    differ = compare_inputs(bills)
    same = not differ and Path(paths[0]).resolve() == Path(paths[1]).resolve()
    none = "none (A and B read the same file)" if same else (
        "none" + _unbilled_differences(paths) if not differ else "none")
    out = wrap_lines(_compare_head(names, paths), columns) + (
        wrap_lines("inputs that differ (A → B): " + ("; ".join(differ) or none), columns)
        ) + [""]
    if not fit or sum(w) + 2 * (len(w) - 1) <= columns:
        out += [fmt(head), "  ".join("-" * x for x in w)] + [fmt(r) for r in rows]
    else:  # narrower than the table: each line a block of its own
        out += [x for r in rows for x in _compare_block(r, columns)]
    if zero:
        out.append(f"({zero} lines at $0 in both left out)")
    days = compare_days_words(bills)
    if days:  # what the amounts leave out when one runs longer (spot against on demand)
        out += wrap_lines(days, columns)
    if flagged:
        out += wrap_lines(COMPARE_OUTSIDE_NOTE, columns, "")
    if df.attrs.get("exploratory_note"):  # glance.compare_bills: what the netting moved
        out += wrap_lines(f"exploratory and failed runs: {df.attrs['exploratory_note']}.",
                          columns, "")
    out += wrap_lines(COMPARE_DRAWS_NOTE if ranged else COMPARE_POINTS_NOTE, columns, "")
    if df.attrs.get("mfu_draw_note"):  # but the MFU: two generations' errors, drawn apart
        out += wrap_lines(f"but the MFU: {df.attrs['mfu_draw_note']}.", columns, "")
    own = own_totals_words(df, names)
    if own:  # each option's own range beside their difference's (a finance trial)
        out += wrap_lines(own + ".", columns, "")
    decode = compare_decode_note(bills, names)
    if decode:  # the RL lines differ by a calibration, not only by the hardware
        out += wrap_lines(decode, columns, "")
    for tag, name, b in zip("AB", names, bills):
        out.append("")
        if b.warnings:
            out += wrap_lines(f"warnings of {tag} ({name}):", columns)
            out += [x for w_ in b.warnings
                    for x in wrap_lines(f"  warning: {w_}", columns, "    ")]
        else:
            out += wrap_lines(f"{tag} ({name}): no warning", columns)
    return "\n".join(out)


def compare_decode_note(bills, names) -> str:
    """One sentence when the two bills' RL lines decode their rollouts at different empirical
    factors (``rl.vllm_decode_factor``, ``rl.VLLM_DECODE_FACTORS``: fitted on published runs on
    one accelerator, 1 elsewhere): part of the RL line's difference is that calibration, not the
    hardware (a trial read GB200's RL line at 2.4× B200's as GB200 being worse for RL). ""
    when either bill has no RL line or runs DPO (no rollouts), or the factors are equal."""
    factors = []
    for b in bills:  # a bill without an RL line (or a stand-in without lines) has no factor
        rl = [ln.usd for ln in getattr(b, "lines", ()) if ln.key == "post.rl"]
        rl = rl and rl[0] and (b.scenario or {}).get("rl_algorithm") != "dpo"
        factors.append(vllm_decode_factor("vLLM", b.figures["accelerator"]) if rl else None)
    if None in factors or factors[0] == factors[1]:
        return ""
    said = "; ".join(f"{tag} ({name}) on {b.figures['accelerator']} at {f:.3g}×"
                     for tag, name, b, f in zip("AB", names, bills, factors))
    return ("RL post-training: the rollouts' decode steps are priced at the serving model's time "
            f"× an empirical factor per accelerator (rl.VLLM_DECODE_FACTORS): {said}. A factor "
            "above 1 is fitted on published step times on that accelerator, one of 1 has none "
            "to fit: part of the RL line's difference is that calibration, not the hardware.")


def _compare_block(cells: list, columns: int) -> list:
    """One line of ``compare_text``'s table for a terminal narrower than the table: its name
    (wrapped), then ``A … B … B − A …`` and the per-draw P10 to P90, each wrapped to
    ``columns`` under a two-space indent."""
    out = wrap_lines(cells[0], columns)
    out += wrap_lines(f"  A {cells[1]}  B {cells[2]}  B − A {cells[3]}", columns, "    ")
    if len(cells) > 4:
        out += wrap_lines(f"  per draw {cells[4]}", columns, "    ")
    return out


def compare_json(df, names, paths, titles, bills) -> dict:
    """``estimate --compare --format json``: ``scenarios`` (A then B: name, file, title,
    total_usd and warnings), ``inputs_differ`` (``glance.compare_inputs``: "train_tokens 15T →
    2T", ...), ``lines`` (``glance.compare_bills`` per line: ``key`` (the line's key, as a
    single bill's output has it), ``line``, ``a_usd``, ``b_usd``,
    ``difference_usd`` = B − A and, with ranges, ``difference_p10_usd`` / ``_p50`` / ``_p90``,
    the percentiles of the difference per draw, and ``difference_outside``: the point
    difference lies outside its own P10-P90, the line the text marks with ``*``; the total
    last), ``exploratory_note`` (what the exploratory line's netting moved, else null),
    ``rl_decode_note`` (``compare_decode_note``, else null) and ``difference`` (the total's
    B − A and its percentiles, null without ranges; ``outside`` as a line's)."""
    def num(v):
        return None if v is None or v != v else float(v)

    records = [{k: (v if k in ("key", "line") else num(v)) for k, v in r.items()}
               for r in compare_records(df, names)]
    for r in records:
        if "difference_p10_usd" in r:
            r["difference_outside"] = bool(difference_outside(r))
    total = records[-1]
    own = df.attrs.get("own_totals") or [None, None]
    return {"scenarios": [{"name": n, "file": str(p), "title": t, "total_usd": b.total_usd,
                           **({f"total_p{q}_usd": v for q, v in zip((10, 50, 90), o)}
                              if o else {}),
                           "warnings": list(b.warnings)}
                          for n, p, t, b, o in zip(names, paths, titles, bills, own)],
            "inputs_differ": compare_inputs(bills, most=None),
            "lines": records,
            "exploratory_note": df.attrs.get("exploratory_note"),
            "mfu_draw_note": df.attrs.get("mfu_draw_note"),
            "rl_decode_note": compare_decode_note(bills, names) or None,
            "difference": {"usd": total["difference_usd"],
                           **{f"p{q}_usd": total.get(f"difference_p{q}_usd")
                              for q in (10, 50, 90)},
                           "outside": total.get("difference_outside")},
            **({"outside_note": COMPARE_OUTSIDE_NOTE}
               if any(r.get("difference_outside") for r in records) else {})}


def alternatives_text(routes, columns: int | None = None, bill=None) -> str:
    """The routes to the goal (``alternatives.price_routes``) as text: one-off, lifetime serving
    and total per route, then what each cannot do; prose wrapped to ``columns`` (default
    ``glance.terminal_columns``), the figures below each route where a row does not fit. With
    the scenario's ``bill`` (a ``Ledger``), what the pre-training route's one-off holds is said
    beside the whole bill (a trial read $5.58M against the bill's $5.67M as a contradiction):
    the bill's compute lines and SFT on the goal's tokens (``alternatives.price_routes``)."""
    columns = terminal_columns() if columns is None else columns
    g = routes.attrs["goal"]
    lo, hi = routes.attrs["engine_gap"]

    def usd(v):
        return "not modelled" if v != v else format_value(float(v), "USD")

    out = [""] + wrap_lines(
        f"train, fine-tune, distil or retrieve? (llmcost.bill.alternatives) goal: "
        f"{g.domain}; quality bar: {g.quality_bar}; "
        f"{routes.requests_lifetime.iloc[0]:,.3g} requests served on {routes.attrs['model']}",
        columns)
    wide = 2 + 30 + 3 * 13 <= columns  # the route and its three figures on one row
    if wide:
        out.append(f"  {'route':<30} {'one-off':>12} {'serving':>12} {'total':>12}")
    for r in routes.itertuples():
        if wide:
            out.append(f"  {r.route:<30} {usd(r.one_off_usd):>12} {usd(r.serving_usd):>12} "
                       f"{usd(r.total_usd):>12}")
        else:
            out += wrap_lines(f"  {r.route}: one-off {usd(r.one_off_usd)}, serving "
                              f"{usd(r.serving_usd)}, total {usd(r.total_usd)}", columns,
                              "    ")
    if bill is not None:
        pre = ("not priced, the bill having no pre-training (train_tokens: 0)"
               if post_training_only(bill.scenario or {}) else
               f"the bill's compute lines, {usd(bill.usd('compute.'))}, and SFT on the goal's "
               "tokens")
        out += wrap_lines(f"  one-off: what each route spends to reach the goal; pre-training's "
                          f"is {pre}; the whole bill is {usd(bill.total_usd)}", columns)
    out += wrap_lines(f"  serving at the roofline price: a lower bound (engines measured "
                      f"{lo:.1f}-{hi:.1f}x slower). Quality is not modelled; what each route "
                      "cannot do:", columns)
    for r in routes.itertuples():
        out += wrap_lines(f"  - {r.route}: {r.cannot_do} Not priced: {r.not_priced}.", columns,
                          "    ")
    return "\n".join(out)


def _literal_text(src: str) -> str:
    """A parameter cell's literal as one canonical text (2.0e12 and 2000000000000.0 agree)."""
    try:
        v = ast.literal_eval(src)
    except (ValueError, SyntaxError):
        return src
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def wrap_prose(text: str, columns: int | None = None) -> str:
    """Lines of prose (``text``, one paragraph per line) each wrapped to ``columns`` (default
    ``glance.terminal_columns``, as ``bill_text`` wraps its prose), a continuation indented two
    spaces beyond its line's own indent; blank lines kept."""
    columns = terminal_columns() if columns is None else columns
    out = []
    for ln in text.split("\n"):
        lead = ln[:len(ln) - len(ln.lstrip(" "))]
        out += wrap_lines(ln, columns, lead + "  ") if ln.strip() else [ln]
    return "\n".join(out)


def wrap_lines(text: str, columns: int, indent: str = "  ") -> list:
    """A line of prose wrapped to ``columns`` characters (``textwrap``), its continuation lines
    indented by ``indent``. Words are never cut: a word longer than a line (a file path, a URL)
    runs past the width whole, so that it can still be copied."""
    return textwrap.wrap(text, max(20, columns), subsequent_indent=indent,
                         break_on_hyphens=False, break_long_words=False) or [""]


def bill_warnings(bill, warnings=()) -> list[str]:
    """The warnings ``estimate`` prints under the bill, in every format: ``warnings`` (default
    the bill's own, ``llmcost.checks``) and, when the bill is over ``ledger_budget_usd``, the
    budget's (``checks.budget_warning``)."""
    shown = list(warnings or bill.warnings)
    over = budget_warning(bill.total_usd, bill.figures.get("budget_usd"))
    return shown + ([over] if over and over not in shown else [])


def _table_label_width(t, columns: int, ranged: bool) -> tuple:
    """(label width, P10-P90 beside the point, the longest row, stacked) of ``bill_text``'s
    table: the longest label, narrowed (wrapped, at least 12 characters) so that a row fits
    ``columns``; a ranged bill's three percentiles stay beside the point only while that fits
    with a label of 24 (else they go on the line below). Where even a 12-character label leaves
    no room for the figures (under 45 columns with the usual statuses) the table is stacked:
    each label on its own lines, wrapped to ``columns``, its figures on the line below, indented
    (33 characters with a "not given" status: the narrowest the table fits)."""
    natural = max(len(x) for x in t["line"])
    fixed = 2 + 12 + 2 + 6 + 2 + max(len(x) for x in t["status"])  # amount, share, status
    if 12 + fixed > columns:  # stacked: the figures alone, from column 0
        return max(20, columns), False, min(max(20, columns), fixed), True
    extra = 31 if ranged and min(natural, 24) + fixed + 31 <= columns else 0  # P10-P90 beside
    width = min(natural, max(12, columns - fixed - extra))
    return width, extra > 0, width + fixed + extra, False


#: What a "*" means when the bill was drawn once (``--samples 1``): OUTSIDE_NOTE's "the edge of
#: its range" does not apply, one draw has no P10-P90.
ONE_DRAW_NOTE = ("point differs from the one draw: with --samples 1 the P10, P50 and P90 are "
                 "that draw, not percentiles (use --samples 10000 or more)")


def _run_tokens(bill) -> str:
    """", 2T tokens in 4,096-token sequences" for the bill's header: the main run's
    ``train_tokens`` and ``seq_len`` (what the bill multiplies beside the GPUs and the MFU); ""
    for a ledger built without them."""
    tokens, seq = bill.scenario.get("train_tokens"), bill.scenario.get("seq_len")
    if not isinstance(tokens, (int, float)) or not isinstance(seq, int):
        return ""
    if post_training_only(bill.scenario):
        return ", post-training alone (train_tokens: 0)" + (
            f" in {seq:,}-token sequences" if prices_at_mfu(bill.scenario) else "")
    return f", {fmt_count(tokens, 3)} tokens in {seq:,}-token sequences"


def _mfu_text(mfu: float) -> str:
    """An MFU for the header: one decimal ("38.0%"), or two significant figures below 0.05%,
    which one decimal would print as "0.0%" ("0.01%")."""
    return f"{mfu:.1%}" if mfu >= 5e-4 else f"{100 * mfu:.2g}%"


def _mfu_basis_words(bill) -> str:
    """" of the FP8 dense peak (33.4% of the BF16 one)" after the header's MFU of a run whose
    GEMMs are not BF16 (a trial read an FP8 bill's 16.7% beside a BF16 one's 31.0% as the
    slower run): its MFU is on its own dtype's peak (``accuracy.dtype_basis``: H100's FP8
    1,978.9 ÷ BF16 989.4 TFLOP/s = 2); "" for BF16 or an accelerator without the ratio."""
    dtype = str(bill.scenario.get("dtype") or "bf16").lower()
    if dtype == "bf16":
        return ""
    try:
        basis = dtype_basis(bill.figures["accelerator"], dtype)
    except (ValueError, TypeError):
        return ""
    return (f" of the {dtype.upper()} dense peak ({_mfu_text(bill.figures['mfu'] * basis)} of "
            "the BF16 one)")


def _exploratory_header(bill) -> list:
    """The header's sentence on the exploratory line (``bill_text``): at the sourced default, or
    at the scenario's fraction when it nets post-training out, the fraction the bill's own
    (``figures['exploratory_netting']``), with what it nets out and that this adds $0 to the
    total (``ledger.exploratory_words``), or that it is $0 (clamped). Nothing when the
    scenario lists its exploratory runs, or gives a fraction that nets nothing out."""
    explore, words = bill.line("compute.exploratory"), exploratory_words(bill)
    n = bill.figures.get("exploratory_netting")
    if not n:  # runs listed (ledger_exploratory_runs): the line's own words say it
        return []
    at = (f"at the sourced default ({n['fraction']:.2f}x the final run's GPU-hours, Cottier et "
          "al. 2024; ledger_exploratory_fraction or ledger_exploratory_runs to change it)"
          if explore.status == "default" else
          f"at the scenario's ledger_exploratory_fraction ({n['fraction']:.2f}x the final run's "
          "GPU-hours)")
    if not words:  # nothing netted out
        return ["includes exploratory and failed runs " + at] if explore.status == "default" \
            else []
    return [("exploratory and failed runs " + at + " is " if n["clamped"] else
             "includes exploratory and failed runs " + at + ", ") + words]


def _rl_time_note(bill) -> list:
    """The sentence under the table on a billed RL campaign's time (``bill_text``): its
    iteration time × the factor the bill takes (``rl.time_factor_short``: the published GRPO
    runs' median, its framework's, or the scenario's own; a range of it drawn for the P10-P90),
    and how to change it, and one run's wall clock on ``rl_gpus``
    (``figures['rl_wall_clock_days_per_run']``: iterations × the iteration's wall time × that
    factor, ``rl.rl_campaign``); nothing without a campaign."""
    h = bill.figures.get("rl_gpu_hours", 0.0)
    if not (isinstance(h, (int, float)) and h > 0):
        return []
    days = bill.figures.get("rl_wall_clock_days_per_run")
    sc = bill.scenario
    n = sc.get("rl_runs")
    run = (f"each run of {sc['rl_iterations']:,} iterations ({n:,} run{'s' if n != 1 else ''}) "
           f"takes {fmt_period(days, 'days')} on {fmt_gpus(sc['rl_gpus'])}"
           + ("" if post_training_only(sc) else ", not in the main run's wall clock")
           if isinstance(days, (int, float)) and days > 0
           and all(k in sc for k in ("rl_runs", "rl_iterations", "rl_gpus")) else "")
    chosen = bill.figures.get("chosen") or {}   # estimate_ledger's: settings it picked
    if run and chosen:
        run += "".join(f"; {k}={sc[k]:,}: {why}" for k, why in chosen.items())
    given = sc.get("rl_time_factor")
    if isinstance(given, Range) and not is_point_range(given):  # drawn; its point the bill's
        return [f"RL post-training billed at the model's iteration time × rl_time_factor, "
                f"drawn from its range ({given.describe()}) for the P10-P90; the point takes "
                f"its {POINT_WORDS[given.kind]} {given.point:.3g}" + (f"; {run}" if run else "")]
    short = time_factor_short(sc)
    if not short:
        return [f"RL post-training: {run}"] if run else []
    drawn = ""
    if given is None:
        # where the default factor and its spread come from (a trial never saw the range)
        lo, _, hi = time_factor_triangle(sc)
        drawn = (f", drawn over {lo:g}-{hi:g} for the P10-P90 ({time_factor_runs_words(sc)})")
    return [f"RL post-training billed at the model's iteration time {short}{drawn} "
            "(rl_time_factor to change it)" + (f"; {run}" if run else "")]


def bill_text(bill, scenario_path="", warnings=(), draws=None, basis=None,
              columns: int | None = None, totals=None, totals_from: str = "the range above") \
        -> str:
    """The one-screen bill: the lines, the total and the figures behind them, each label saying
    what it counts, then the warnings (``llmcost.checks``) and the budget. With ``draws``
    (``ledger.headline_draws``' draws, or ``ledger.simulate_ledger``'s) of a bill with ranges:
    P10 / P50 / P90 beside every line and what drives the spread (the tornado); ``basis``
    (``ledger.range_basis``) says what the ranges come from. Prose lines (the header, the
    figures, the warnings) are wrapped to ``columns`` (default ``glance.terminal_columns``: the
    terminal's width, 80 when piped); so are the table's labels (``_table_label_width``),
    and on a narrow terminal a ranged line's P10-P90 goes on the line below its point; under
    45 columns each line's figures go below its label (down to 33 columns, the figures' own
    width). ``totals``: the headline's draws of the whole bill (``headline_draws``), whose
    share above ``ledger_budget_usd`` the budget line says, ``totals_from`` naming them (a
    finance trial read "the bill is 91% of it" where 39% of the draws cost more)."""
    columns = terminal_columns() if columns is None else columns
    f = bill.figures
    t = bill.table()
    explore = bill.line("compute.exploratory")
    # an RL campaign alone runs on its rl_gpus, not on n_gpus
    on = f['n_gpus'] if prices_at_mfu(bill.scenario) else bill.scenario.get("rl_gpus")
    lines = [f"llmcost estimate: {scenario_path}",
             f"{f['model']} on {on:,} x {f['accelerator']}{_run_tokens(bill)}, "
             + (f"MFU {_mfu_text(f['mfu'])}{_mfu_basis_words(bill)} ({f['mfu_source']})"
                if prices_at_mfu(bill.scenario) else
                "no line at the MFU (the RL campaign's passes are timed by the step model)")
             + f", {f['pricing']} at ${f['price_usd_per_gpu_hour']:.2f}/GPU-h "
             f"({f['price_source']})"]
    lines += _exploratory_header(bill)
    lines.append("")
    ranged = draws is not None and bool(draws.ranges)
    width, inline, rule, stacked = _table_label_width(t, columns, ranged)
    lead = 0 if stacked else width  # where the figures start: beside the label, or below it
    s = draws.summary() if ranged else None
    outside, zeros = False, 0

    def usd(v):
        return "" if v is None or v != v else format_value(float(v), "USD")

    if ranged:
        lines.append(f"{'':<{lead}}  {'point':>12}  {'share':>6}" + (
            f"  {'P10':>9} {'P50':>9} {'P90':>9}" if inline else "") + "  status")
    for r in t.itertuples():
        if r.key == "total":
            lines.append("-" * rule)
        amount = "not modelled" if r.usd is None or r.usd != r.usd else usd(r.usd)
        share = "" if r.share is None or r.share != r.share else f"{r.share:6.1%}"
        p3 = [usd(s.loc[r.key, q]) for q in ("p10", "p50", "p90")] if ranged else []
        if ranged and r.usd == 0 and all(s.loc[r.key, q] == 0 for q in ("p10", "p50", "p90")):
            p3, zeros = ["", "", ""], zeros + 1  # said once below, not "$0.00" three times
        pct = " ".join(f"{x:>9}" for x in p3)
        if ranged and r.usd is not None and r.usd == r.usd and \
                point_outside(r.usd, s.loc[r.key, "p10"], s.loc[r.key, "p90"]):
            amount, outside = amount + "*", True
        label = textwrap.wrap(r.line, width, break_long_words=True) or [""]
        figures = f"  {amount:>12}  {share:>6}" + (f"  {pct}" if inline else "") \
            + f"  {r.status}".rstrip()
        if stacked:  # the label whole on its lines (continued indented), its figures below
            lines += textwrap.wrap(r.line, width, subsequent_indent="  ",
                                   break_on_hyphens=False) + [figures]
        else:
            lines.append(f"{label[0]:<{width}}{figures}")
            lines += [f"  {x}" for x in label[1:]]  # a long label wraps, never cut
        if ranged and not inline and any(p3):  # too narrow for P10-P90 beside: below
            lines += wrap_lines(f"  P10 {p3[0]}, P50 {p3[1]}, P90 {p3[2]}"
                                if draws.samples != 1 else f"  the one draw: {p3[0]}",
                                columns, "  ")
    if outside:
        lines += wrap_lines(f"* {OUTSIDE_NOTE if draws.samples != 1 else ONE_DRAW_NOTE}",
                            columns)
    if zeros:
        lines += wrap_lines(f"{zeros} line(s) at $0.00 show no P10–P90: not given, included "
                            "in another line, or zero in every draw", columns)
    final = f.get("final_run_usd")
    if isinstance(final, (int, float)) and final > 0 and bill.total_usd > 0:
        # the figure an engineer circulates as "the run's cost" (a trial added lines up)
        lines += wrap_lines(f"the final training run alone (the pre-training GPU-hours paid, "
                            f"failures and restarts included, at the bill's rate): "
                            f"{usd(final)}, {final / bill.total_usd:.1%} of the total", columns)
    if ranged:
        lines += [""] + wrap_lines((f"ranges: {basis}. " if basis else "") + s.attrs["note"],
                                   columns, "")
        lines += wrap_lines("what drives the spread (total with one input at its P10 and at "
                            "its P90, the others at their points):", columns)
        torn = draws.tornado()
        for r in torn.itertuples():
            row = (f"  {r.input:<32} {r.range:<34} {usd(r.total_at_p10_usd):>9} .. "
                   f"{usd(r.total_at_p90_usd):>9}  (swing {usd(r.swing_usd)})")
            if len(row) > columns:  # narrow: the input, then its range and totals below
                row = "\n".join(textwrap.wrap(
                    f"{r.input}: {r.range}, {usd(r.total_at_p10_usd)} .. "
                    f"{usd(r.total_at_p90_usd)} (swing {usd(r.swing_usd)})", columns - 1,
                    initial_indent="  ", subsequent_indent="    "))
            lines.append(row)
        if torn.attrs.get("no_swing"):  # a trial read ledger_pue among the ranges, moving nothing
            lines += wrap_lines(f"  {torn.attrs['note']}", columns, "    ")
    energy = ("energy not computed (the accelerator has no tdp_w in data/accelerators.csv)"
              if f["energy_mwh"] is None else
              f"energy of all {fmt_quantity(f['all_gpu_hours'])} GPU-h (every line's compute) "
              f"{fmt_quantity(f['energy_mwh'])} MWh, {fmt_quantity(f['tco2e'])} tCO2e")
    lines += [""] + [x for ln in [
              *_pretraining_figure_lines(bill),
              energy,
              f"project duration: {fmt_period(f['project_months'], 'months')} "
              f"({f['project_months_source']})",
              "'not given': the scenario sets no value for that line (see `llmcost list "
              "parameters`, ledger_ keys)"] for x in wrap_lines(ln, columns)]
    decode = decode_factor_words(f["accelerator"], algorithm=(bill.scenario or {}).get(
        "rl_algorithm")) if bill.line("post.rl").usd else ""
    if decode:  # the RL line's generation carries an empirical factor (rl.VLLM_DECODE_FACTORS)
        lines += wrap_lines(f"RL post-training generation: {decode}", columns)
    for ln in _rl_time_note(bill):
        lines += wrap_lines(ln, columns)
    over = budget_warning(bill.total_usd, f.get("budget_usd"))
    if f.get("budget_usd") is not None and not over:
        above = float(np.mean(np.asarray(totals) > f["budget_usd"])) \
            if totals is not None and np.size(totals) else 0.0
        lines += wrap_lines(f"budget: ${f['budget_usd']:,.0f} (ledger_budget_usd); the bill "
                            f"is {bill.total_usd / f['budget_usd']:.0%} of it" + (
                                f", but {fmt_percent(above)} of its Monte Carlo draws "
                                f"({totals_from}, {np.size(totals):,}) cost more"
                                if above else ""),
                            columns)
    for w in bill_warnings(bill, warnings):
        lines += wrap_lines(f"warning: {w}", columns)
    head, body = lines[:3], lines[3:]
    return "\n".join([x for ln in head for x in wrap_lines(ln, columns)] + body)


def _pretraining_figure_lines(bill) -> list:
    """The pre-training figures under the bill in the terminal: its FLOPs on both counts, the
    compute threshold, its GPU-hours and wall clock; one sentence for a bill of post-training
    alone (``scenario.post_training_only``)."""
    f = bill.figures
    if post_training_only(bill.scenario or {}):
        tuned = list(f["post_training_goodput"])   # the fine-tunes billed, by name
        sched = f["schedule_days"]
        return [f"no pre-training billed ({BASE_MODEL_WORDS}); "
                f"{fmt_quantity(f['all_gpu_hours'])} GPU-h of post-training, evaluation and the "
                "other lines' compute",
                f"post-training schedule: {fmt_period(sched['post_training'], 'days')}"
                + (f" ({' and '.join(tuned)} on {fmt_gpus(f['n_gpus'])} one after the other"
                   + (", then the RL campaign on its rl_gpus" if f.get("rl_gpu_hours") else "")
                   + ")" if tuned else " (the RL campaign on its rl_gpus)")
                + (f", and {fmt_period(sched['exploration'], 'days')} of listed exploratory "
                   "runs before it" if sched["exploration"] else "")]
    return [
        # the count the hours are priced on, beside the 6ND a reader checks by hand (a
        # lecturer's 6·N·D GPU-hours were 20-39% below the bill's, unexplained here)
        f"pre-training FLOPs (main run and phases): "
        f"{f['training_flops_mfu_basis']:.3g} on the MFU basis (the matmuls a token "
        "passes through and the attention core, full mask; notebook 01), 6·N·D "
        f"{f['training_flops_6nd']:.3g}: {count_gap_words(bill)}; ideal GPU-h = FLOPs ÷ "
        "(peak × MFU × 3,600 s)" + (", summed over the phases, each at its own MFU"
                                    if (bill.scenario or {}).get("phases") else ""),
        compute_threshold_words(f["training_flops_6nd"], f["training_flops_causal"]),
        "pre-training GPU-hours (main run and phases): "
        f"{fmt_quantity(f['ideal_gpu_hours'])} ideal, {fmt_quantity(f['paid_gpu_hours'])} "
        f"paid (goodput {f['goodput']:.1%}); "
        f"{fmt_quantity(f['all_gpu_hours'])} GPU-h with exploration, post-training, "
        "evaluation and the rerun reserve",
        f"wall clock of the main run: {fmt_period(f['wall_clock_days'], 'days')} paid "
        f"({fmt_period(f['main_ideal_days'], 'days')} at 100% goodput, as notebook 01 "
        "counts it)"]


def _num(fmt: str, scale: float = 1.0):
    """A cell formatter: value / scale with ``fmt``, or an empty cell for a missing value."""
    def f(v):
        return "" if v is None or v != v else format(v / scale, fmt)
    return f


#: What ``llmcost list X`` shows in a terminal: (column, header, formatter) per catalogue.
#: ``--format csv|json`` prints every column unformatted instead.
TABLE_VIEWS = {
    "models": [("name", "model", str), ("n_layers", "layers", str), ("d_model", "d_model", str),
               ("n_heads", "heads", str), ("n_kv_heads", "kv", str), ("ffn", "ffn", str),
               ("moe", "moe (k/E+shared)", str), ("seq_len", "seq", _num(",.0f")),
               ("n_params", "params (B)", _num(",.2f", 1e9)),
               ("n_active_params", "active (B)", _num(",.2f", 1e9)),
               ("official_params", "published (B)", _num(",.2f", 1e9))],
    "accelerators": [("name", "accelerator", str), ("vendor", "vendor", str),
                     ("year", "year", str),
                     ("peak_bf16_flops_per_s", "BF16 TFLOP/s", _num(",.0f", 1e12)),
                     ("peak_fp8_flops_per_s", "FP8 TFLOP/s", _num(",.0f", 1e12)),
                     ("hbm_bytes", "HBM GiB", _num(",.0f", 2**30)),
                     ("hbm_bytes_per_s", "HBM TB/s", _num(".2f", 1e12)),
                     ("scaleup_bytes_per_s_per_dir", "scale-up GB/s", _num(",.0f", 1e9)),
                     ("scaleup_domain_size", "domain", _num(".0f")),
                     ("scaleout_bytes_per_s_per_dir", "scale-out GB/s", _num(",.1f", 1e9)),
                     ("notebooks", "notebooks it can run", str)],
    "prices": [("accelerator", "accelerator", str), ("provider", "provider", str),
               ("pricing", "pricing", str), ("price_usd_per_gpu_hour", "USD/GPU-h", _num(".2f")),
               ("date", "date", str), ("current", "current", lambda v: "yes" if v else "no"),
               ("available", "buyable", lambda v: "yes" if v else "NO (listed, none to sell)"),
               ("min_term_days", "min term (days)", str), ("caveat", "caveat", str)],
    "runs": [("run_id", "run", str), ("catalog_model", "model (scenario name)", str),
             ("catalog_accelerator", "accelerator (scenario name)", str),
             ("n_accelerators", "GPUs", _num(",.0f")),
             ("train_tokens", "tokens (T)", _num(".3g", 1e12)),
             ("reported_gpu_hours", "GPU-hours (M)", _num(".3g", 1e6)),
             ("reported_mfu", "MFU", _num(".1%"))],
    "stacks": [("name", "stack", str), ("date", "date", str),
               ("flash_attention", "FlashAttention", str), ("schedules", "schedules", str),
               ("zero_stages", "ZeRO", str), ("tp_overlap", "TP overlap", str),
               ("ep_overlap", "EP overlap", str), ("fp8", "FP8", str),
               ("measured_on", "measured on", str)],
}


def _print_table(rows: list[list[str]], headers: list[str], max_width: int = 40) -> None:
    """Columns padded to their widest cell (cells cut at ``max_width`` with "…", how many said
    under the table with where the whole text is); numbers (cells starting with a digit)
    right-aligned."""
    cut = sum(len(c) > max_width for r in rows for c in r)
    rows = [[c if len(c) <= max_width else c[:max_width - 1] + "…" for c in r] for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(headers)]

    def line(cells):
        out = []
        for c, w in zip(cells, widths):
            numeric = c[:1].isdigit() or c[:1] in "-." and c[1:2].isdigit()
            out.append(c.rjust(w) if numeric else c.ljust(w))
        return "  ".join(out).rstrip()

    print(line(headers))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print(line(r))
    if cut:   # where the whole text is (a PI's trial read 16 descriptions cut with no pointer)
        print(f"({cut} {'cell' if cut == 1 else 'cells'} cut at {max_width} characters with "
              "\"…\": --format csv or json prints them whole)")


def _list(what: str, fmt: str = "table") -> int:
    if what == "models":
        df = catalog.list_models()
    elif what == "accelerators":
        df = catalog.list_accelerators()
    elif what == "prices":
        df = catalog.list_prices()
        if fmt == "table":   # what a row's notes flag, in a word (a procurement trial read an
            df["caveat"] = df["notes"].map(catalog.price_caveat)  # unverified row as any other)
    elif what == "runs":  # the names a scenario takes; what the source printed where none
        df = catalog.load_published_runs()
        df["catalog_model"] = df["catalog_model"].fillna(
            df["model"].map(lambda m: f"({m}: not in the catalogue)"))
        df["catalog_accelerator"] = df["catalog_accelerator"].fillna(
            df["hardware"].map(lambda h: "(not stated)" if not isinstance(h, str)
                               else f"({h}: not in the catalogue)"))
    elif what == "stacks":  # the scenario key `stack:` names one (core.stacks)
        df = pd.read_csv(catalog.DATA_DIR / "stacks.csv", dtype=str, keep_default_na=False)
    elif what == "scenarios":
        paths = [str(p) for p in sorted(catalog.SCENARIO_DIR.glob("*.yaml"))]
        if fmt == "json":
            print(json.dumps(paths, indent=2))
        else:   # a csv has its header (a trial read bare paths as the table's)
            print("\n".join((["path"] if fmt == "csv" else []) + paths))
        return 0
    else:

        users, defaults = {}, {}
        for nb in list_notebooks():
            for name, d in declared_parameters(nb).items():
                users.setdefault(name, []).append(notebook_number(nb.stem))
                defaults.setdefault(name, set()).add(_literal_text(d["default"]))

        def default_of(name):
            """What a scenario that leaves ``name`` out gets (the notebooks' default)."""
            if name == "price_usd_per_gpu_hour":  # an omitted price is null (report.plan_report)
                return "null (catalogue median)"
            vals = sorted(defaults.get(name, ()))
            return vals[0] if len(vals) == 1 else ("varies: " + " / ".join(vals) if vals else "")

        meta = [{"name": k, "type": "str",   # a trial missed them
                 "default": "the file's name" if k == "title" else "",
                 "notebooks": "(the report; estimate --compare)",
                 "meaning": METADATA_WORDS[k]} for k in METADATA_KEYS]
        df = pd.DataFrame(meta + [{"name": p.name, "type": p.kind, "default": default_of(p.name),
                                   "notebooks": ",".join(users.get(p.name, [])) or "(none yet)",
                                   "meaning": p.doc} for p in PARAMETERS.values()])
        if fmt == "table":
            print(wrap_prose("A scenario may set any parameter some notebook uses, and its title "
                             "and description (`interactive` is always false in reports; "
                             "reports set `mfu_band`).") + "\n")
            _print_table(df.astype(str).values.tolist(), list(df.columns), max_width=200)
            return 0
    if fmt == "csv":
        print(df.to_csv(index=False), end="")
    elif fmt == "json":
        # pandas writes "/" as "\/" (legal JSON, unreadable URLs): through json's own writer
        print(json.dumps(json.loads(df.to_json(orient="records", force_ascii=False)), indent=2,
                         ensure_ascii=False))
    else:
        view = TABLE_VIEWS[what]
        rows = [[f(r[col]) if r[col] is not None else "" for col, _, f in view]
                for r in df.to_dict("records")]
        _print_table([[("" if c in ("nan", "<NA>", "None") else c) for c in r] for r in rows],
                     [h for _, h, _ in view], max_width=200 if what == "accelerators" else 40)
    return 0


# ---- llmcost check: is a training-cost claim plausible? (llmcost.claims)
_CHECK_RUN_KEYS = ("model", "accelerator", "n_gpus", "train_tokens", "seq_len", "dtype", "pricing",
                   "mfu")


def _scenario_accelerator(path) -> str:
    """The accelerator a scenario file bills: its own, else the notebooks' default
    (``scenario.LEDGER_DEFAULTS``), as estimate takes it (a trial's pilot scenario without
    ``accelerator:`` gave ``calibrate --mamf-log`` a KeyError traceback)."""
    return load_scenario(path).get("accelerator") or LEDGER_DEFAULTS["accelerator"]


def _check_parser(sub) -> None:
    c = sub.add_parser(
        "check", help="check a training-cost claim: FLOPs, implied MFU, verdict, price, omissions",
        description="Check a claim such as 'trained on 2,048 H800s for two months for $5.6M' "
        "(llmcost.claims.check_claim): total FLOPs (6ND and the MFU basis), the utilisation the "
        "claim implies against the dense peak of its dtype and of BF16, a verdict (implausible / "
        "optimistic / low / plausible; not judged: a cost alone on an accelerator the catalogue "
        "prices neither itself nor by its generation) compared like with like (goodput backed "
        "out first), the implied price against the catalogue, and what the figure leaves out "
        "priced from the ledger's defaults. Run flags are named as the scenario keys; --scenario "
        "reads them from a scenario file (flags override), judges the run its bill prices (the "
        "main run and its phases, as estimate bills them; stated hours without --phase are "
        "the main run's) and prints that file's warnings as estimate prints them; the "
        "scenario's own MFU is judged against comparable runs its model's own published runs "
        "included, as notebooks 04b and 09 judge it, while stated hours or utilisation (--gpu-"
        "hours, --days, --phase, --mfu) are a claim, judged with the model's own runs left out "
        "(so one MFU can read differently by the two routes). Give any of "
        "--gpu-hours, --days with --n-gpus, --phase, --usd; a stated --mfu (steady-state, of "
        "the dtype's dense peak) gives the hours when none are stated.")

    c.add_argument("--scenario", metavar="YAML", help="scenario file for the run's keys")
    for key in _CHECK_RUN_KEYS:
        c.add_argument("--" + key.replace("_", "-"), dest=key, metavar=key.upper(),
                       help=f"scenario key {key}: {PARAMETERS[key].doc}" + (
                           "; not given (and no --scenario), the model's own published run's "
                           "where it was FP8 (DeepSeek-V3), on an accelerator with an FP8 "
                           "peak, else bf16 (llmcost.claims.published_precision)"
                           if key == "dtype" else ""))
    c.add_argument("--gpu-hours", dest="gpu_hours", metavar="H", help="claimed accelerator-hours")
    c.add_argument("--days", metavar="D", help="claimed wall-clock days (with --n-gpus)")
    c.add_argument("--usd", metavar="USD", help="claimed cost in US dollars")
    c.add_argument("--train-flops", dest="train_flops", metavar="FLOP",
                   help="a claim stated as total training FLOPs (6ND convention, as Epoch AI's "
                   "estimates): gives the tokens when --train-tokens is not given")
    c.add_argument("--phase", action="append", default=[], metavar="NAME=GPU_HOURS",
                   help="GPU-hours of one phase where the source splits the claim (repeat; one "
                   "must be pre-training), e.g. --phase pre-training=2.664e6")
    c.add_argument("--spot-preemptions-per-node-day", dest="spot_preemptions_per_node_day",
                   metavar="RATE", help="with --pricing spot: your provider's spot pre-emptions "
                   "per node per day (the scenario key ledger_spot_preemptions_per_node_day, a "
                   "number >= 0; no default: no provider publishes a per-node rate)")
    c.add_argument("--tolerance", default="0.05", metavar="FRACTION",
                   help="relative tolerance of days x GPUs x 24 against GPU-hours, and of the "
                        "implied price below its reference (a rounded cost; default 0.05)")
    c.add_argument("--format", choices=["text", "json"], default="text",
                   help="text (default): the answer in sentences; json: the same as one object")


def _check(args) -> int:
    """``llmcost check``: one claim, one answer (or one error line)."""

    def number(flag, v, integer=False):
        try:
            x = float(v)
        except (TypeError, ValueError):
            raise ValueError(f"--{flag}={v!r} must be a number"
                             + flag_number_hint(flag, v)) from None
        if integer:
            if x != int(x):
                raise ValueError(f"--{flag}={v!r} must be a whole number")
            return int(x)
        return x

    judging, ranged_mfu = False, None
    try:
        run, left_keys, sized, warned = {}, {}, {}, []
        if args.scenario:
            # validated as report and estimate validate it (the bill built; the plan only by
            # the notebooks that build one): llmcost.bill.validation
            planned = plan_report(args.scenario, ["00"])
            sc = load_scenario(args.scenario)
            if post_training_only(sc) and args.train_tokens is None:
                return _fail(f"{args.scenario}: train_tokens=0 bills post-training alone, and "
                             "a claim is checked on a pre-training run's tokens: give "
                             "--train-tokens, or `llmcost estimate --scenario` for its bill")
            run = {k: sc[k] for k in _CHECK_RUN_KEYS if k in sc}
            # the model and accelerator a scenario leaves out are the notebooks' defaults, as
            # estimate and report take them (a trial's one-line scenario was refused here);
            # the rest of the run's keys too when no figure is claimed, the scenario's own bill
            # judged (another's 2,048 default GPUs were none: goodput 100%), never the mfu,
            # which would read as a stated figure, nor under a claim, whose hours, days or
            # FLOPs state the GPUs and tokens themselves (a review: --days with --gpu-hours was
            # judged against 2,048 GPUs, --train-flops against 2T default tokens)
            claimed = args.phase or any(getattr(args, k) is not None
                                        for k in ("gpu_hours", "days", "usd", "train_flops"))
            # the scenario's dtype too: its bill's precision, claimed or not (a review: a
            # claim on a BF16 scenario of DeepSeek-V3 took the published run's FP8)
            run.update({k: planned.values[k] for k in _CHECK_RUN_KEYS
                        if k not in run and planned.values.get(k) is not None
                        and (k in ("model", "accelerator", "dtype")
                             or not claimed and k != "mfu")})
            # the lines the claim leaves out are the scenario's where it gives them, as the
            # report resolved them (e.g. a rollout TP chosen where the notebooks' does not fit)
            left_keys = {k: v for k, v in planned.scenario.items()
                         if (k.startswith(LEFT_OUT_KEY_PREFIXES) or k in LEFT_OUT_KEYS)
                         and not k.startswith("ledger_pilot")
                         and (k in sc or f"_{k}_chosen" in planned.scenario)}
            # a key the report chose is priced but not named as the scenario's own
            for k in [k for k in left_keys if k not in sc]:
                sized[k] = left_keys.pop(k)
            if isinstance(run.get("mfu"), str):  # mfu: predict is resolved by reports only
                run.pop("mfu")
            if isinstance(run.get("mfu"), Range):  # the point the bill prices the range at
                ranged_mfu, run["mfu"] = run["mfu"], run["mfu"].point
            # the scenario's own price and goodput, as estimate bills them (its failure rates
            # and checkpoint plan on its n_gpus), unless flags change the run they belong to
            ledger = estimate_ledger(args.scenario)
            bill = ledger.figures
            warned = bill_warnings(ledger)  # the scenario's warnings, as estimate prints them
            if sc.get("price_usd_per_gpu_hour") is not None:
                run["price_usd_per_gpu_hour"] = bill["price_usd_per_gpu_hour"]
            if "n_gpus" in run and args.n_gpus is None:  # the scenario's or its bill's GPUs
                run["goodput"] = bill["goodput"]
                # and the storage the bill provisioned for that goodput (sized from its
                # checkpoint plan when the scenario gives none), so that the lines the claim
                # leaves out are the bill's own (ledger.provisioned_storage)
                if "ckpt_storage_bytes_per_s" not in left_keys:
                    sized["ckpt_storage_bytes_per_s"] = bill["ckpt_storage_bytes_per_s"]
        for k in _CHECK_RUN_KEYS:
            v = getattr(args, k)
            if v is not None:
                flag = k.replace("_", "-")
                run[k] = number(flag, v, k in ("n_gpus", "seq_len")) \
                    if k in ("n_gpus", "train_tokens", "seq_len", "mfu") else v
        if args.spot_preemptions_per_node_day is not None:  # the spot bill's rate, as a flag
            left_keys["ledger_spot_preemptions_per_node_day"] = _spot_rate(
                number("spot-preemptions-per-node-day", args.spot_preemptions_per_node_day),
                run.get("pricing", "on_demand"))
        for k in ("model", "accelerator"):
            if k not in run:
                raise ValueError(f"--{k.replace('_', '-')} is required (or a --scenario that "
                                 "sets it)")
        phases = {}
        for item in args.phase:
            name, sep, h = item.partition("=")
            if not sep or not name:
                raise ValueError(f"--phase={item!r} must be NAME=GPU_HOURS")
            if name in phases:
                raise ValueError(f"--phase {name!r} is given twice ({phases[name]:g} and {h}): "
                                 "give each phase once")
            phases[name] = number(f"phase {name}", h)
        claim = {k: number(k.replace("_", "-"), getattr(args, k))
                 for k in ("gpu_hours", "days", "usd", "train_flops")
                 if getattr(args, k) is not None}
        predicted = _predicted_mfu(args, sc if args.scenario else {}, planned.scenario
                                   if args.scenario else {}, claim)
        if predicted:  # the claim is the run at the step-time model's MFU, as the report's
            run["mfu"] = predicted["value"]
        billed = _bill_phases(args, sc, ledger, claim, phases) if args.scenario else {}
        if billed:  # the scenario's run as its bill counts it: the main run and its phases
            phases = billed
            run.pop("mfu", None)  # the hours are the bill's, at its MFU: no claim to compare
        judging = True  # from here an error names the claim's keys: said as flags below
        c = check_claim(run["model"], run.get("train_tokens"), run["accelerator"],
                        n_gpus=run.get("n_gpus"), dtype=run.get("dtype"),  # None: the
                        # model's own published run's precision (claims.published_precision)
                        mfu=run.get("mfu"),
                        seq_len=run.get("seq_len"), pricing=run.get("pricing", "on_demand"),
                        phases=phases or None, tolerance=number("tolerance", args.tolerance),
                        price_usd_per_gpu_hour=run.get("price_usd_per_gpu_hour"),
                        goodput=run.get("goodput"), ledger_keys=left_keys or None,
                        bill_keys=sized or None,  # priced, not named as the scenario's
                        # a scenario's own bill is judged against the figure 04b and 09 show
                        # (its model's own runs kept); stated hours or utilisation (--gpu-hours,
                        # --days, --phase, --mfu), with or without a scenario, are a claim,
                        # never judged against itself (--usd or --train-flops alone judge the
                        # scenario's own utilisation)
                        exclude_own_runs=not getattr(args, "scenario", None)
                        or _states_hours(args, claim), **claim)
    except (ScenarioError, ValueError, UsageError) as e:  # UsageError: no notebooks found
        msg = str(e).splitlines()[0] if str(e) else repr(e)
        if judging:  # a key the user gave as a flag (every key, without a scenario) is named
            msg = _check_flags_named(msg, args)  # as the flag
        if msg.startswith("a claim needs"):  # the library's keys, as this command's flags
            msg += " (give --gpu-hours, --days with --n-gpus, --phase, --usd or --mfu)"
        if not args.scenario:  # a model given as a flag: its path as a flag too; the spot
            msg = msg.replace(  # rate the refusal names, as this command's flag
                "needs ledger_spot_preemptions_per_node_day",
                "needs --spot-preemptions-per-node-day RATE (or a scenario file that sets "
                "ledger_spot_preemptions_per_node_day: llmcost check --scenario FILE)")
            msg = msg.replace("(e.g. model: path/to/config.json)",
                              "(e.g. --model path/to/config.json)")
        if args.format == "json":  # JSON asked for: the error is JSON too (and on stderr)
            print(json.dumps({"error": msg}))
        return _fail(msg)
    said = ""
    if predicted.get("pilot"):
        said = (f"mfu from the scenario's pilots: {predicted['from']} (as `llmcost report` "
                f"resolves it); that MFU, {predicted['value']:.1%}, is the claim's stated MFU: "
                "the verdict compares the pilots' calibrated estimate with published runs")
    elif predicted:
        said = (f"mfu: predict: {predicted_mfu_words(predicted)} (as `llmcost report` resolves "
                f"it); that MFU, {predicted['value']:.1%}, is the claim's stated MFU: the "
                "verdict compares the model's own estimate with published runs, not a figure "
                "anyone claimed (a 'low' or 'optimistic' verdict says how the estimate sits "
                "among them)")
    said_key = "mfu_predicted"
    if is_ranged(ranged_mfu) and args.mfu is None and not predicted and not billed:
        said, said_key = _ranged_mfu_words(ranged_mfu), "mfu_range"
    hours_from = (f"hours: the scenario's run as `llmcost estimate` bills it, its main run at "
                  f"MFU {bill['mfu']:.1%} and its phases, each paid (ideal ÷ its goodput, the "
                  f"main run's {bill['goodput']:.1%})") if billed else _phases_apart(
                      args, sc if args.scenario else {}, claim, phases)
    warned, dropped = _claim_relevant_warnings(args, sc if args.scenario else {}, claim,
                                               warned)
    if args.format == "json":  # "warnings": the scenario file's, as estimate's JSON has them
        print(json.dumps(json_finite({**c.summary(), **({said_key: said} if said else {}),
                                      **({"hours_from": hours_from} if hours_from else {}),
                                      **({"warnings": warned} if args.scenario else {})}),
                         indent=1, default=str, allow_nan=False))
    else:  # the prose wrapped to the terminal, as estimate's; its warnings as estimate's
        text = c.describe()
        if not args.scenario:  # the one key a claim without a scenario gives: its flag's
            text = text.replace("the scenario's ledger_spot_preemptions_per_node_day",
                                "--spot-preemptions-per-node-day")
        print(wrap_prose("".join(x + "\n" for x in (said, hours_from) if x) + text))
        warned = [w for w in warned if w not in c.notes]  # one sentence said once
        if warned or dropped:
            print("\nthe scenario file's warnings (as llmcost estimate prints them):")
        for w in warned:
            print("\n".join(wrap_lines(f"warning: {w}", terminal_columns())))
        if dropped:
            print("\n".join(wrap_lines(
                f"({dropped} on the file's MFU left out: the file gives none, so its bill takes "
                "the notebooks' default, and the claim's own figures set the MFU judged above)",
                terminal_columns())))
    return 0


def _claim_relevant_warnings(args, sc: dict, claim: dict, warned: list) -> tuple:
    """``(warnings, n_dropped)``: the scenario file's warnings without those on its bill's MFU
    ("mfu: ...", "mfu=...", "the scenario's mfu=..."), when the file gives no ``mfu`` (its bill
    takes the notebooks' default) and the claim states its own hours or MFU (``_states_hours``):
    a trial's `check --scenario` with --gpu-hours read "the bill's 40.0% is 1.26× it" of an MFU
    nobody stated, beside the claim's 55.9%."""
    if not sc or "mfu" in sc or not _states_hours(args, claim):
        return warned, 0
    keep = [w for w in warned if not w.startswith(("mfu:", "mfu=", "the scenario's mfu="))]
    return keep, len(warned) - len(keep)


def _spot_rate(rate: float, pricing: str) -> float:
    """``llmcost check --spot-preemptions-per-node-day``: a finite number >= 0, given with
    ``--pricing spot`` (the only bill that reads it); a ValueError naming the flag, the value
    and the rule otherwise."""
    if not math.isfinite(rate) or rate < 0:
        raise ValueError(f"--spot-preemptions-per-node-day={rate!r} must be a finite number "
                         ">= 0 (pre-emptions per node per day)")
    if pricing != "spot":
        raise ValueError(f"--spot-preemptions-per-node-day={rate!r} prices spot pre-emptions; "
                         f"--pricing is {pricing!r}, not 'spot'")
    return rate


def _ranged_mfu_words(r: Range) -> str:
    """The sentence ``llmcost check --scenario`` prints when the scenario's ``mfu`` is a range:
    the claim's stated MFU is the range's point (``Range.point``: the midpoint, mode or
    median), the MFU the scenario's bill prices."""
    lo, hi = (r.p10, r.p90) if r.kind == "lognormal" else r.bounds
    ends = "P10–P90 " if r.kind == "lognormal" else ""
    return (f"mfu: the scenario's range ({ends}{lo:.1%}–{hi:.1%}, {r.kind}) is judged at its "
            f"point, {r.point:.1%}, the MFU its bill prices: that is the claim's stated MFU")


#: The keys ``check_claim`` names in its errors that ``llmcost check`` takes as flags.
_CHECK_FLAG_KEYS = _CHECK_RUN_KEYS + ("gpu_hours", "days", "usd", "train_flops", "tolerance")


def _check_flags_named(msg: str, args) -> str:
    """``check_claim``'s error with each key the user gave as a flag written as that flag
    (``usd=-3.0`` → ``--usd=-3.0``, ``n_gpus was not given`` → ``--n-gpus was not given``: a
    key with an underscore wherever it stands, a plain word such as ``days`` or ``model`` only
    before "=", so that prose keeps its words); without ``--scenario`` every key is a flag;
    with one, a key the flags did not give is the scenario file's and keeps its name."""
    for key in _CHECK_FLAG_KEYS:
        if args.scenario and getattr(args, key, None) is None:
            continue
        word = rf"(?<![\w-]){key}\b" if "_" in key else rf"(?<![\w-]){key}(?==)"
        msg = re.sub(word, "--" + key.replace("_", "-"), msg)
    return msg


def _bill_phases(args, sc: dict, ledger, claim: dict, phases: dict) -> dict:
    """The GPU-hours by phase of a scenario with ``phases``, as its bill (``llmcost estimate``)
    counts them, for ``llmcost check --scenario`` to judge the run the file states:
    ``{"pre-training": main run's paid hours, <phase>: that phase's paid hours, ...}``, the main
    run's paid hours its ``compute.pretraining.main`` and ``compute.failures`` lines (ideal
    hours ÷ goodput), a phase's its ``compute.pretraining.<name>`` line, each ÷ the bill's
    GPU-hour rate (the main line's dollars ÷ its ideal hours); a --usd is judged against those
    hours (a cost, not hours of its own). {} when the claim gives hours or tokens of its own
    (--gpu-hours, --days, --phase, --train-flops) or a flag changes the run the bill priced (a
    run key: the phases' hours belong to the file's run), or when a phase's name
    is "pre-training" or repeated (its line cannot be told apart): its lines are then listed as
    left out of the claim."""
    names = [ph["name"] for ph in sc.get("phases") or []]
    if not names or phases or set(claim) - {"usd"} or any(getattr(args, k) is not None
                                                          for k in _CHECK_RUN_KEYS) \
            or "pre-training" in names or len(set(names)) < len(names):
        return {}
    usd = {ln.key: float(ln.usd) for ln in ledger.lines}
    rate = usd["compute.pretraining.main"] / ledger.figures["main_ideal_gpu_hours"]
    return {"pre-training": (usd["compute.pretraining.main"] + usd["compute.failures"]) / rate,
            **{n: usd[PHASE_LINE_PREFIX + n] / rate for n in names}}


def _unbilled_differences(paths) -> str:
    """Where two scenario files differ in keys their bills do not read (the plan's, with a
    given MFU), "; the files differ in k (a → b), ... , which the bills do not read: ..."; ""
    when the files hold the same values or cannot be read. A trial compared zero_stage 1 and 3
    with a given MFU and read "inputs that differ (A → B): none" and $0.00 on every line, the
    plan change looking free."""
    try:
        a, b = (point_scenario(load_scenario(p)) for p in paths)
    except (ScenarioError, ValueError, OSError):
        return ""
    keys = [k for k in sorted(set(a) | set(b))
            if k not in ("title", "description") and a.get(k) != b.get(k)]
    if not keys:
        return ""
    shown = ", ".join(f"{k} ({a.get(k)!r} → {b.get(k)!r})" for k in keys[:6])
    more = f" and {len(keys) - 6} more" if len(keys) > 6 else ""
    given = all(isinstance(x.get("mfu"), (int, float)) for x in (a, b))
    return (f" in the bill; the files differ in {shown}{more}, which the bills do not read"
            + (": with a given mfu the plan does not move the bill (`mfu: predict` prices "
               "the plan's change)" if given else ""))


def _states_hours(args, claim: dict) -> bool:
    """Whether ``llmcost check`` states the run's hours or utilisation itself (--gpu-hours,
    --days, --phase or --mfu), so that on a scenario it judges a claim, not the scenario's own
    bill."""
    return bool(getattr(args, "phase", None)) or getattr(args, "mfu", None) is not None or \
        any(k in claim for k in ("gpu_hours", "days"))


def _phases_apart(args, sc: dict, claim: dict, phases: dict) -> str:
    """The sentence of ``llmcost check --scenario`` when the scenario has ``phases`` and the
    claim states a figure of its own (--gpu-hours, --days, --train-flops) without a split
    (--phase): that figure is judged as the main run's, the phases' lines listed as left out
    of it; a figure that covers them is stated by phase (not when a phase is named
    pre-training or twice, which --phase cannot split). "" otherwise."""
    names = [ph["name"] for ph in (sc.get("phases") or [])] if args.scenario else []
    if not names or phases or not any(k in claim for k in ("gpu_hours", "days", "train_flops")):
        return ""
    if "pre-training" in names or len(set(names)) < len(names):  # --phase cannot split them
        return (f"hours: the stated figure is judged as the main run's; the scenario's phases "
                f"({', '.join(names)}) are listed below as left out of it")
    split = " ".join(f"--phase {n}=GPU_HOURS" for n in ["pre-training", *names])
    return (f"hours: the stated figure is judged as the main run's; the scenario's phases "
            f"({', '.join(names)}) are listed below as left out of it. If the figure covers "
            f"them, state the split: {split}")


def _predicted_mfu(args, sc: dict, resolved: dict, claim: dict) -> dict:
    """The scenario's ``mfu: predict`` or pilots resolved as the report resolves them
    (``report.resolve_mfu``: the step-time model on the scenario's plan, recorded in
    ``_mfu_prediction``; ``report.calibrate_pilot_mfu``/``calibrate_mfu``: the step model
    calibrated on the pilots, recorded in ``_mfu_calibration``, returned with ``pilot`` True),
    when the claim gives nothing else to count hours from (``_states_hours``: no --gpu-hours,
    --days, --phase or --mfu; a --usd is a cost, not hours: the run's MFU is kept beside it, as
    a numeric ``mfu`` is); {} otherwise."""
    if _states_hours(args, claim):
        return {}
    if sc.get("mfu") == MFU_PREDICT:
        return resolved.get("_mfu_prediction") or {}
    got = resolved.get("_mfu_calibration")
    return {**got, "pilot": True} if got else {}


def _microbench(args) -> int:
    """``llmcost calibrate --microbench``: one line and exit 2 when PyTorch or a CUDA GPU is
    missing (or ``--out`` names an existing file without ``--overwrite``); otherwise the timings,
    the ``Efficiency`` they imply and, with ``--out``, the efficiency profile written
    (``calibrate.microbench_profile``, ``efficiency_profile.write_efficiency_profile``)."""
    if args.out and Path(args.out).exists() and not args.overwrite:
        return _fail(f"llmcost calibrate --microbench: --out {args.out} exists (give "
                     "--overwrite to replace it)")
    missing = pilot_calibration.microbench_missing()
    if missing:
        return _fail(f"llmcost calibrate --microbench: {missing}")
    try:
        name = args.accelerator or (_scenario_accelerator(args.scenario)
                                    if args.scenario else None)
        if not name:
            raise ValueError("give --accelerator NAME (llmcost list accelerators) or --scenario")
        t = pilot_calibration.run_microbench()
        profile = pilot_calibration.microbench_profile(name, t)
        if args.out:
            write_efficiency_profile(args.out, profile, overwrite=args.overwrite)
    except (ScenarioError, ValueError, OSError) as e:
        return _fail(str(e))
    print(f"Microbenchmark on {t['device']} (torch {t['torch']}; catalogue {name}):")
    for label, rows in (("BF16 GEMM", t["gemm"]), ("FP8 GEMM", t["gemm_fp8"])):
        for m, n, k, sec in rows:
            print(f"  {label} {m}x{k} . {k}x{n}: {sec * 1e3:.3f} ms, "
                  f"{2 * m * n * k / sec / 1e12:.1f} TFLOP/s")
    if not t["gemm_fp8"]:
        print(f"  FP8 GEMM: not timed ({t.get('fp8_note') or 'none timed'})")
    for b, h, sl, d, sec in t["attention"]:
        print(f"  causal attention fwd+bwd {b}x{h} heads x {sl} tokens x {d}: {sec * 1e3:.3f} ms, "
              f"{pilot_calibration.attention_flops(b, h, sl, d) / sec / 1e12:.1f} TFLOP/s")
    for size, sec in t["hbm_copy"]:
        print(f"  device copy {size / 2 ** 30:.0f} GiB: {sec * 1e3:.3f} ms, "
              f"{2 * size / sec / 1e9:,.0f} GB/s read + written")
    for size, n_gpus, sec in t["allreduce"]:
        print(f"  all-reduce {size / 2 ** 20:.0f} MiB on {n_gpus} GPUs: {sec * 1e3:.3f} ms")
    print(f"  {profile['source']}")
    fractions = {f"matmul_fraction ({k})": v for k, v in profile["matmul_fraction"].items()}
    fractions.update({f: profile[f] for f in ("attention_fraction", "hbm_fraction",
                                              "scaleup_fraction") if f in profile})
    print("  " + ", ".join(f"{k} {v:.3f}" for k, v in fractions.items()))
    return _profile_footer(profile, args.out)


def _profile_footer(profile: dict, out) -> int:
    """The last lines of ``calibrate --microbench`` and ``--mamf-log``: what the profile did not
    measure, and where it was written (``--out``). Returns the exit code, 0."""
    print(f"  not measured (catalogue values kept): {', '.join(profile['not_measured'])}")
    if out:
        print(f"Efficiency profile written to {out}: name it in a scenario as "
              "`efficiency_profile: PATH` for `mfu: predict`")
    return 0


def _read_log(path: str) -> str:
    """A mamf-finder log's text; a file that cannot be read is a ValueError naming it."""
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        raise ValueError(f"--mamf-log {path}: cannot be read ({e.strerror or e})") from None


def _mamf_log(args) -> int:
    """``llmcost calibrate --mamf-log LOG``: the matmul fraction(s) of mamf-finder logs and, with
    ``--out``, their efficiency profile (``calibrate.mamf_profile``); one error line otherwise."""
    if args.out and Path(args.out).exists() and not args.overwrite:
        return _fail(f"llmcost calibrate --mamf-log: --out {args.out} exists (give --overwrite "
                     "to replace it)")
    try:
        name = args.accelerator or (_scenario_accelerator(args.scenario)
                                    if args.scenario else None)
        if not name:
            raise ValueError("give --accelerator NAME (llmcost list accelerators) or --scenario")
        texts = [_read_log(f) for f in args.mamf_log]
        profile = pilot_calibration.mamf_profile(name, texts, names=args.mamf_log)
        if args.out:
            try:
                write_efficiency_profile(args.out, profile, overwrite=args.overwrite)
            except OSError as e:  # the path, not an errno
                raise ValueError(f"--out {args.out}: cannot be written ({e.strerror or e})") \
                    from None
    except (ScenarioError, ValueError, OSError) as e:
        return _fail(f"llmcost calibrate --mamf-log: {e}")
    device = ("a device the log does not name"
              if profile["device"] == pilot_calibration.NOT_PRINTED
              else profile["device"])
    torch_words = ("not named" if profile["torch"] == pilot_calibration.NOT_PRINTED
                   else profile["torch"])
    print(f"mamf-finder log(s) on {device} (torch {torch_words}; catalogue {name}):")
    print(f"  {profile['source']}")
    print("  " + ", ".join(f"matmul_fraction ({k}) {v:.3f}"
                           for k, v in profile["matmul_fraction"].items()))
    for line in profile.get("warnings", ()):  # a log whose device could not be checked
        print(f"warning: {line}")
    return _profile_footer(profile, args.out)


# ---- llmcost calibrate: from a pilot run to the full run (llmcost.training.calibrate)
def _calibrate_parser(sub) -> None:
    c = sub.add_parser(
        "calibrate", help="fit the step model to a scenario's pilot runs and extrapolate the MFU",
        description="Read the scenario's `pilot:` runs (GPU count, plan, measured tokens/s per "
        "GPU), fit the step model's compute factor (and, from two scales across nodes, its "
        "scale-out factor: llmcost.training.calibrate.calibrate), and print what the pilots "
        "identified and what they did not, and the scenario's plan's MFU, step time and "
        "GPU-hours with a band that grows with what the pilots did not exercise.")
    c.add_argument("--scenario", metavar="YAML", help="scenario file with a `pilot:` list")
    c.add_argument("--microbench", action="store_true",
                   help="time BF16 (and, where supported, FP8) GEMMs, a causal attention, an "
                   "HBM copy (and, under torchrun, an all-reduce) on this machine's "
                   "CUDA GPU with PyTorch and print the Efficiency they imply "
                   "(llmcost.training.calibrate.efficiency_from_microbench); exits 2 without "
                   "PyTorch or a GPU")
    c.add_argument("--accelerator", metavar="NAME",
                   help="catalogue accelerator the microbenchmark runs on (default: the "
                   "scenario's)")
    c.add_argument("--mamf-log", metavar="LOG", action="append",
                   help="instead of timing here: read a log of stas00's mamf-finder.py (its "
                   "maximum achievable matmul TFLOPS; repeat for a BF16 and an FP8 log) and print "
                   "the matmul_fraction it implies (llmcost.training.calibrate.mamf_profile); "
                   "with --out, write it as an efficiency profile")
    c.add_argument("--out", metavar="YAML",
                   help="with --microbench or --mamf-log: write the measured fractions, the "
                   "device, date and torch version as an efficiency profile a scenario names with "
                   "`efficiency_profile:` (llmcost.training.efficiency_profile)")
    c.add_argument("--overwrite", action="store_true",
                   help="with --out: replace an existing profile file")


def _calibrate(args) -> int:
    """``llmcost calibrate``: the fitted factors, what was / was not identified, the
    extrapolated MFU with its band (or one error line)."""
    if args.microbench:
        return _microbench(args)
    if args.mamf_log:
        return _mamf_log(args)
    if args.out:
        return _fail("llmcost calibrate: --out writes an efficiency profile; give --microbench "
                     "or --mamf-log")
    if args.accelerator:  # a pilot ran on the scenario's accelerator: refused, not ignored
        return _fail(f"llmcost calibrate: --accelerator {args.accelerator} names the GPU of "
                     "--microbench; a pilot calibration uses the scenario's accelerator (set "
                     "it in the scenario file)")
    if not args.scenario:
        return _fail("llmcost calibrate: give --scenario YAML (pilot runs), --microbench or "
                     "--mamf-log LOG")
    lines = []  # printed at the end, the prose wrapped to the terminal (wrap_prose)
    say = lines.append
    try:
        # the keys the file leaves out take the notebooks' defaults, as estimate and the report
        # complete them (a file of the README's pilot example gives no n_gpus)
        declared = {nb: declared_parameters(nb) for nb in list_notebooks()}
        p = point_scenario({k: v["value"] for k, v in
                            effective_parameters(load_scenario(args.scenario), declared).items()})
        misfit = plan_does_not_fit(p)   # as estimate and the report refuse it: no target
        if misfit:
            raise ValueError(f"{misfit} (the pilots' plans are taken as they ran; the full run's "
                             "plan is priced as `llmcost estimate` prices it)")
        if not p.get("pilot") and p.get("ledger_pilot_tokens_per_s_per_gpu") is not None:
            cal, x, plan, said = pilot_calibration.shorthand_calibration(p)
            x0, widened = x, ""
            say(f"ledger_pilot_tokens_per_s_per_gpu: a pilot {said}")
        else:
            cal, x0, plan = pilot_calibration.scenario_calibration(p)
            x, widened = uncarried_band(p, x0, plan)  # as the bill's band (bill.pilot.pilot_mfu)
    except (ScenarioError, ValueError) as e:  # named by the scenario file, as estimate names it
        where = str(Path(args.scenario))
        return _fail(str(e) if str(e).startswith(where) else f"{where}: {e}")
    say(f"Calibration ({cal.describe()}):")
    for pil, unc, meas in zip(cal.pilots, cal.uncalibrated_mfu, cal.measured_mfu):
        say(f"  {pil.label}: {pil.plan.describe()}, seq {pil.seq_len:,}: measured MFU "
              f"{meas:.1%}, model uncalibrated {unc:.1%}")
    say("Identified:")
    for line in cal.identified:
        say(f"  - {line}")
    say("Not identified:")
    for line in cal.not_identified:
        say(f"  - {line}")
    for line in cal.warnings:  # a fitted factor outside what is physically plausible
        say(f"warning: {line}")
    tokens = float(p["global_batch_tokens"])
    hours = x.gpu_hours(float(p["train_tokens"]), plan.n_gpus, tokens)
    say(f"Target: {plan.describe()} on {plan.n_gpus:,} {p['accelerator']}, seq "
          f"{int(p['seq_len']):,}")
    band = (f"band{widened}" if widened else
            f"band {x.mfu_low:.1%} to {x.mfu_high:.1%}, ±{x.half_width:.0%}" if x.half_width
            else "no band: a pilot ran this very plan, its measurement is the figure")
    say(f"  MFU {x.mfu:.1%} ({band}); "
          f"uncalibrated model {x.uncalibrated_mfu:.1%}; "
          f"{x.describe_transfer(cal.compute_factor)}; the network factors identified above "
          "in full")
    band = (f" (band {fmt_quantity(hours[1])} to {fmt_quantity(hours[2])})"
            if fmt_quantity(hours[1]) != fmt_quantity(hours[2]) else "")  # "no band" said above
    say(f"  step time {x.step_time_s:.2f} s; {fmt_quantity(hours[0])} GPU-hours for "
          f"{float(p['train_tokens']):.3g} tokens{band}")
    p0 = min(cal.pilots, key=lambda q: q.n_gpus)  # the band's reference (calibrate.extrapolate)
    ref = (f", counted against the smallest pilot, {fmt_gpus(p0.n_gpus)} (the pilot the band is "
           "fitted against, even where a larger pilot ran it)" if len(cal.pilots) > 1 else "")
    if x.half_width and widened:  # the band shown is not the pilots': say whose it is
        say(f"  none of the pilots' compute correction was carried, so the band shown is at "
            f"least the step-time model's own for this plan; the pilots' band before that "
            f"({x0.mfu_low:.1%}-{x0.mfu_high:.1%}) is sized by what the run does that the "
            f"pilots did not (calibrate.BAND_HALF_WIDTH){ref}: "
            + ("; ".join(x.novelties) if x.novelties else "no novelty (calibrate.novelties)"))
    elif x.half_width:
        none = ("no novelty: its parallel dimensions, scale-out network, sequence, "
                "recomputation and model are the pilot's (calibrate.novelties); the band is the "
                "narrowest, the drift of the step model from a pilot to a larger run")
        say(f"  the band (±{x.half_width:.1%}) is sized by what the run does that the pilots "
            f"did not (calibrate.BAND_HALF_WIDTH){ref}: "
            + ("; ".join(x.novelties) if x.novelties else none))
    if p.get("pilot"):  # the run's plan runs none of the pilots' kernels: said, with the figure
        try:
            warning = pilot_calibration.pilot_plan_warning(p, cal, x0, plan)
        except ValueError as e:
            warning = f"pilot: the run's plan could not be compared with the pilots' ({e})"
        if warning:
            say(f"warning: {warning}")
    print(wrap_prose("\n".join(lines)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
