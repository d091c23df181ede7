"""One validation of a whole scenario, shared by every entry point.

``validate_scenario(values)`` is what ``llmcost report``, ``llmcost estimate`` and ``llmcost
check`` call (through ``report.plan_report``) before anything is written or run: a scenario it
accepts is one every notebook can compute with, and one it refuses gets a one-line
``ScenarioError`` naming the scenario key and the rule. It checks, in order:

1. every value and every rule between values (``scenario.validate_parameters``: types, ranges,
   the parallel plan, the phases' and the RL job's batch rules, magnitudes refused as typos);
2. the whole bill builds (``ledger.build_ledger``: goodput, checkpoints, spot pre-emptions,
   prices, people and storage), and every money line is a finite number >= 0;
3. the RL set-up of notebook 05 (``rl.scenario_campaign``) and the serving set-up
   (``inference.serving_cost`` / ``choose_serving_tp`` with the ``serve_`` keys), which the
   notebooks run even when the bill does not carry them.

Messages from the layers below speak of function arguments (``planned_per_day``, ``tp``,
``max_tokens``, ``pp_layers``); ``user_words`` rewrites them in the scenario's keys.

``magnitude_warnings(values)`` lists values that are legal but implausible (an MFU below 1%, a
project shorter than the run or longer than 10 years, a checkpoint interval shorter than one
checkpoint's write, a GPU-hour price above every catalogue price of its accelerator, a purchase
price, electricity price or salary ten times or more away from the catalogue's sourced figures:
``money_magnitude_warnings``), which the report, ``llmcost estimate`` and ``llmcost check
--scenario`` print.
"""

from __future__ import annotations

import math
import re

import numpy as np

from ..core.catalog import (current_prices, list_prices, load_accelerator, load_model,
                            price_rows_words, term_days)
from ..core.diskcache import disk_cached
from ..core.stacks import generation
from ..core.units import (fmt_amount, fmt_bytes, fmt_count, fmt_duration, fmt_gpus, fmt_quantity,
                          fmt_usd, noun)
from ..serving.inference import choose_serving_tp, serving_cost
from ..serving.rl import (PARTIAL_ROLLOUT_GAIN_MAX, PARTIAL_ROLLOUT_GAIN_MEAN,
                          TAIL_SHARE_CHECKED, fitting_rollout_tp, load_rl_validation,
                          rollout_dtype_words, rollout_weight_dtype, rollout_weight_dtype_key,
                          scenario_campaign, scenario_iteration, scenario_time_factor,
                          time_factor_triangle)
from ..training import reliability as rel
from ..training.batch import kaplan_n_params, loss_of_planned_run
from ..training.accuracy import fp8_speedup_bound
from .checks import GIVEN_MFU_PATTERN, fp8_over_bf16
from .claims import whole_run_rows
from .ledger import Ledger, build_ledger, failure_values
from .pricing import default, default_rows, default_source
from .published import acquisition_vs_amortised, hardware_price_series
from .ranges import Range, point
from .scenario import (  # noqa: F401  (user_words: report imports it from here too)
    LEDGER_DEFAULTS,
    SERVE_USER_WORDS,
    UNBILLED_PLAN_KEYS,
    ScenarioError,
    bill_values,
    check_run_rules,
    pilot_scale_given_with_throughput,
    point_scenario,
    post_training_only,
    prices_at_mfu,
    schedule_parts_words,
    trains_on_n_gpus,
    user_words,
    validate_parameters,
)

#: The lowest MFU published for a large run is about 20% (data/published_runs.csv); below 1% a
#: scenario's MFU is more likely a typo (0.004 for 40%) than a plan.
LOW_MFU_WARNING = 0.01


def _serving_check(p: dict, price: float):
    """The serving set-up notebook 05 and the bill's served lines use (``serve_`` keys): its
    ``inference.ServingCost``, or the refusal naming the scenario keys."""
    kw = dict(prompt_tokens=p["inference_prompt_tokens"],
              output_tokens=p["inference_output_tokens"], weight_dtype=p["serve_weight_dtype"],
              kv_dtype=p["serve_kv_dtype"], occupancy=p["serve_occupancy"],
              max_tpot_s=p["serve_max_tpot_s"], batch=p["serve_batch"] or None)
    model, gpu = load_model(p["model"]), load_accelerator(p["accelerator"])
    try:
        if p["serve_tp"]:
            return serving_cost(model, gpu, price, tp=p["serve_tp"], **kw)
        return choose_serving_tp(model, gpu, price, **kw)
    except ValueError as e:
        raise ScenarioError("serving set-up (serve_ and inference_ keys): " + user_words(
            str(e), SERVE_USER_WORDS)) from None


#: The serving weight precisions a report tries, widest first, when a scenario gives no
#: ``serve_weight_dtype`` and notebook 05's illustrative replica (at most one scale-up domain,
#: ``inference.choose_serving_tp``) cannot hold the model in the notebooks' BF16: FP8 (W8A8 on FP8
#: tensor cores, the precision DeepSeek-V3 was trained and released in: arXiv:2412.19437 §3.3),
#: then INT4 (4-bit weight-only with a BF16 scale per 128 weights, AWQ/GPTQ as vLLM runs them).
SERVE_WEIGHT_DTYPE_ORDER = ("bf16", "fp8", "int4")


def fitting_serve_weight_dtype(p: dict, price: float = 1.0, latency: bool = True) -> str | None:
    """The widest serving weight precision of ``SERVE_WEIGHT_DTYPE_ORDER`` at which the
    scenario's serving set-up (``_serving_check``: its ``serve_tp``, or the cheapest TP up to one
    scale-up domain; its KV precision, batch, latency target and request) can be priced: the
    weights and at least one sequence's KV cache fit each GPU's usable HBM, and (``latency``)
    one sequence's roofline TPOT meets ``serve_max_tpot_s``. None when none does.

    Rule, per GPU of a TP replica: N · bytes(weight_dtype) / tp + KV(P + R) ≤ HBM · (1 − reserve)
    (``inference.max_batch``). Which precision fits does not depend on the price (the cheapest TP
    is the argmin of a cost proportional to it), so ``price`` only has to be positive.
    ``latency=False``: memory alone (the target left out), the fit a choice made for the target
    is told apart from (``report.choose_serve_weight_dtype`` says which decided: a trial's
    1 ms target chose FP8 weights said as "no room for a batch")."""
    for dtype in SERVE_WEIGHT_DTYPE_ORDER:
        try:
            _serving_check({**p, "serve_weight_dtype": dtype}
                           | ({} if latency else {"serve_max_tpot_s": None}), price)
            return dtype
        except ValueError:
            continue
    return None


def fitting_rl_gpus(p: dict, keep_tp: bool = False) -> tuple[int, int] | None:
    """``(rl_gpus, rl_rollout_tp)``: the smallest RL job, from the scenario's ``rl_gpus`` by
    doubling (at most 64× it, and no more GPUs than the RL batch feeds, ``check_run_rules``), on
    which its iteration can be priced (``rl.scenario_iteration``: the rollout weights and KV
    cache fit a replica, the update's training state fits some plan of the RL GPUs), with the
    rollout TP: the scenario's when ``keep_tp``, else ``rl.fitting_rollout_tp``'s. None when
    no such job exists (the bill then names the key)."""
    for g in (int(p["rl_gpus"]) * 2 ** i for i in range(7)):
        q = {**p, "rl_gpus": g}
        try:
            check_run_rules(q)
        except ValueError:  # more GPUs than the RL batch can feed: larger counts neither
            return None
        tp = _pricing_rollout_tp(q, keep_tp)
        if tp is not None:
            return g, tp
    return None


def _pricing_rollout_tp(q: dict, keep_tp: bool) -> int | None:
    """The rollout TP at which ``q``'s RL iteration prices: its own (``keep_tp``) or the
    smallest from it up (``rl.fitting_rollout_tp``); None when it does not."""
    if not keep_tp:
        return fitting_rollout_tp(q)
    try:
        scenario_iteration(q)
    except ValueError:
        return None
    return int(q["rl_rollout_tp"])


def _rl_check(p: dict, price: float) -> None:
    """Notebook 05's RL campaign (``rl_`` keys), built whether or not the bill bills it."""
    try:
        scenario_campaign(p, price)
    except ValueError as e:
        msg = user_words(str(e), {"tp": "rl_rollout_tp",
                                  "weight_dtype": rollout_weight_dtype_key(p)})
        raise ScenarioError("RL set-up (rl_ keys): " + msg + rollout_dtype_words(p, msg)) \
            from None


def check_money_lines(bill: Ledger) -> None:
    """Every line of the bill with an amount is finite and >= 0, and so is the total."""
    for ln in bill.lines:
        if ln.usd is None:
            continue
        v = float(ln.usd)
        if not math.isfinite(v) or v < 0:
            raise ScenarioError(f"the bill's line {ln.label!r} comes to {v!r} USD: the scenario's "
                                "magnitudes are out of range (check the exponents)")
    if not math.isfinite(float(bill.total_usd)):
        raise ScenarioError(f"the bill's total comes to {bill.total_usd!r} USD: the scenario's "
                            "magnitudes are out of range (check the exponents)")


#: The set-ups ``validate_scenario`` can run beside the bill: notebook 05's RL campaign and its
#: serving replica (the one the bill's served lines price).
SETUP_KINDS = ("rl", "serving")


@disk_cached  # the same for every call with these arguments: core.diskcache
def validate_scenario(values: dict, private: dict | None = None, check_plan: bool = True,
                      check_setups=True, check_memory: bool = True) -> Ledger:
    """Validate a scenario completely and return its bill (module docstring).

    Parameters
    ----------
    values : dict
        Every parameter the notebooks will use (the scenario completed by the notebooks'
        defaults; ``mfu: predict`` resolved), ranges as points or as ranges.
    private : dict, optional
        The resolved scenario's private keys and ranges the bill labels with and draws
        (``_mfu_prediction``, ``llmcost.ranges.Range`` values).
    check_plan : bool
        Also build the parallel plan (``UNBILLED_PLAN_KEYS``); a report of notebooks that build
        none (00, 01, 07, 08, 10 on an accelerator without network figures) passes False.
    check_setups : bool or tuple of str
        Also run the RL and serving set-ups (step 3): True both, False neither, or a tuple of
        ``SETUP_KINDS`` ("rl", "serving"). A report names those a selected notebook runs (05
        both, 06 serving) or the scenario gives keys of (``rl_``; ``serve_``, ``inference_``):
        the notebooks' illustrative defaults otherwise concern no page. A billed RL campaign is
        checked either way.
    check_memory : bool
        ``build_ledger``'s: refuse model states that no plan can hold; a report passes False
        (it checks the plan's fit, or the states, itself: ``report.plan_report``).

    Returns
    -------
    Ledger: the scenario's bill (point values).

    Raises
    ------
    ScenarioError (a ValueError) naming the scenario key and the rule.
    """
    if not isinstance(values, dict):
        raise ScenarioError(f"scenario={values!r:.60} must be a mapping of parameter names to "
                            "values")
    try:
        pilot_scale_given_with_throughput({**values, **(private or {})})
        # the experts' layout stays without the plan: the RL set-up's update search folds with it
        # completed by the bill's defaults, as the bill prices it (an API trial's partial
        # scenario, a batch of 1,024 tokens, passed here where the bill refused it)
        p = validate_parameters(**{k: v for k, v in {**LEDGER_DEFAULTS,
                                                     **point_scenario(values)}.items()
                                   if check_plan or k not in UNBILLED_PLAN_KEYS})
        bill = build_ledger({**bill_values(values), **(private or {})},
                            check_memory=check_memory)
        check_money_lines(bill)
        full = {**LEDGER_DEFAULTS, **p}
        price = float(bill.figures["price_usd_per_gpu_hour"])
        kinds = SETUP_KINDS if check_setups is True else tuple(check_setups or ())
        if "rl" in kinds or bill.line("post.rl").usd:
            _rl_check(full, price)
        if "serving" in kinds:
            _serving_check(full, price)
    except ScenarioError as e:
        raise ScenarioError(user_words(str(e))) from None
    return bill


def _tpot_unit_warning(p: dict) -> str | None:
    """One sentence when ``serve_max_tpot_s`` is a second or more per output token: a target
    read in milliseconds and written as the number (a trial wrote 30 for 30 ms, a target 1,000
    times looser that bound nothing, unsaid); at 1 s a token a response of 250 tokens takes
    over 4 minutes. None otherwise."""
    t = p.get("serve_max_tpot_s")
    if not isinstance(t, (int, float)) or isinstance(t, bool) or t < 1:
        return None
    return (f"serve_max_tpot_s={t:g} is {t:g} seconds per output token (the key is in "
            f"seconds, so {t:g} ms is {t / 1000:g}), a target no served request needs: at that "
            f"pace 250 tokens take {fmt_duration(250 * t)}")


def _serving_weight_warning(p: dict) -> str | None:
    """One sentence when ``serve_weight_dtype`` (or the RL rollouts', ``rl.rollout_weight_dtype``)
    is FP8 on an accelerator without an FP8 peak
    (A100, TPU v5e): the serving set-up runs the weights weight-only, dequantised to BF16
    (``inference.serving_cost``'s notes), fewer bytes read but no faster matmuls (a trial's
    A100 with FP8 weights ran without a word, where ``llmcost check --dtype fp8`` refuses the
    A100 for having no FP8 peak). None otherwise."""
    serve, rollouts = p.get("serve_weight_dtype") == "fp8", rollout_weight_dtype(p) == "fp8"
    if not (serve or rollouts) or "accelerator" not in p:
        return None
    try:
        acc = load_accelerator(p["accelerator"])
    except (ValueError, KeyError):
        return None
    if acc.peak_fp8_flops_per_s:
        return None
    key = "serve_weight_dtype" if serve else "rl_rollout_weight_dtype"
    what = (["the served tokens of synthetic data, benchmark runs, notebook 05's serving"]
            if serve else []) + (["the RL rollouts"] if rollouts else [])
    return (f"{key}=fp8 on {acc.name}, which has no FP8 peak, is priced "
            "weight-only (FP8 weights dequantised to BF16 for the matmuls, half the weight "
            "bytes at the BF16 peak): " + " and ".join(what))


def _serving_latency_warning(p: dict, bill: Ledger | None) -> str | None:
    """The serving set-up's own sentence (``ServingCost.latency_warning``) when a scenario's
    latency target (``serve_max_tpot_s``) is missed even at batch 1 on an engine's expected time
    per output token: the served lines (synthetic data, benchmark runs) are priced at that
    set-up all the same. None without a target, a bill, or a set-up that can be priced."""
    if p.get("serve_max_tpot_s") is None or bill is None:
        return None
    try:
        cost = _serving_check({**LEDGER_DEFAULTS, **p},
                              float(bill.figures["price_usd_per_gpu_hour"]))
    except (ValueError, KeyError, TypeError):  # the report's validation names what is wrong
        return None
    return cost.latency_warning or None


def magnitude_warnings(values: dict, bill: Ledger | None = None) -> list[str]:
    """Legal but implausible values, as sentences: an MFU range whose point is below
    ``LOW_MFU_WARNING``; a project
    (``ledger_project_months``) shorter than the run's wall clock (people and storage are then
    billed for less time than the GPUs run) or longer than ``LONG_PROJECT_MONTHS``
    (``_long_project_warning``); a run whose own wall clock is longer than 9 months
    (``_long_run_warning``, ``LONG_RUN_MONTHS``: a later start may finish first); more
    training tokens than the estimated stock of public human text
    (``_data_stock_warning``); a checkpoint interval shorter than the write of one checkpoint
    (``_checkpoint_interval_warning``); owned-hardware keys a given price makes the bill ignore
    (``owned_keys_ignored_warning``) and pricing keys of another pricing mode
    (``pricing_keys_unused_warning``); a price above the catalogue's dearest for the
    accelerator (``_price_unit_warning``); rollout replicas that hold no sequence
    (``_idle_rollout_replicas_warning``); money keys an order of magnitude from the catalogue's
    figures (``money_magnitude_warnings``); money above world GDP and staff above the largest
    employer (``world_scale_warnings``). Warnings, not refusals: each is a legal scenario."""
    out = []
    p = point_scenario(values)
    m = p.get("mfu")
    # a given number is judged by checks.scenario_warnings (below every validated run, with the
    # same hint): said here only of a range's point, which that check does not read
    if isinstance(values.get("mfu"), Range) and 0 < m < LOW_MFU_WARNING:
        out.append(f"mfu's point {m:g} is below {LOW_MFU_WARNING:.0%}: no published large run "
                   "is that low (did you mean a fraction, 0.40 for 40%?)")
    months = p.get("ledger_project_months")
    if bill is not None and isinstance(months, (int, float)):
        run_months = bill.figures["run_wall_clock_days"] / (365.25 / 12)
        phases = " with its pre-training phases" if p.get("phases") else ""
        sched = float(np.mean(sum(bill.figures["schedule_days"].values()))) / (365.25 / 12)
        if months < run_months:
            out.append(f"ledger_project_months={months:g} is shorter than the run's wall clock"
                       f"{phases} ({run_months:.2f} months): people, operations and storage are "
                       "billed for less time than the GPUs run")
        elif months < sched * (1 - 1e-9) and not _capacity_too_short(p, bill, months):
            # the schedule notebook 00 step 7 lays out (a re-trial: 1 month given under a
            # 1.78-month schedule, said on that page alone); committed capacity says its own
            out.append(f"ledger_project_months={months:g} is shorter than the compute schedule "
                       f"({sched:.4g} months: {schedule_parts_words(p)} one after the "
                       "other, notebook 00 step 7): people, operations and storage are billed "
                       "for less time than the compute takes")
    # the MFU judged against the model's own published run: a full training run's (a LoRA or
    # an RL campaign alone is none: ``trains_on_n_gpus``)
    out += [w for w in (own_published_run_warning(p) if trains_on_n_gpus(p) else None,
                        _long_project_warning(months), _long_run_warning(p, bill),
                        _data_stock_warning(p), _checkpoint_interval_warning(p, bill),
                        _storage_duty_warning(p, bill), _low_goodput_warning(p, bill),
                        _price_unit_warning(p), _tpot_unit_warning(p),
                        _serving_weight_warning(p),
                        _long_rl_campaign_warning(p, bill),
                        _partial_rollouts_warning(p, bill), _serving_latency_warning(p, bill),
                        _idle_rollout_replicas_warning(p, bill), _rl_tail_warning(p, bill),
                        _rollout_tp_across_domains_warning(p, bill),
                        _rl_idle_warning(p, bill),
                        _people_months_warning(p, bill), _people_outlast_warning(values),
                        _people_pay_default_warning(p), _planned_default_warning(p, bill),
                        owned_keys_ignored_warning(p), pricing_keys_unused_warning(p),
                        reserved_term_warning(p, bill), reserved_project_warning(p, bill),
                        owned_cluster_warning(p, bill), owned_project_warning(p, bill),
                        short_run_warning(p)) if w]
    out += _rl_factor_unused_warning(p, bill) + _rl_factor_range_warning(p, bill)
    world = world_scale_warnings(p)  # an input above world GDP already explains the bill
    return out + money_magnitude_warnings(p) + world + ([] if world else
                                                        _world_bill_warning(bill))


def _rl_factor_unused_warning(p: dict, bill: Ledger | None) -> list[str]:
    """One sentence when the scenario sets ``rl_time_factor`` (a number or a range) but the
    bill prices no RL campaign: the key then changes nothing."""
    if bill is None or p.get("rl_time_factor") is None:
        return []
    h = bill.figures.get("rl_gpu_hours", 0.0)
    if np.ndim(h) or float(h) > 0:
        return []
    return ["rl_time_factor is set but the bill prices no RL campaign (no rl_iterations or "
            "rl_runs, or ledger_rl false): it changes nothing"]


def _rl_factor_range_warning(p: dict, bill: Ledger | None) -> list[str]:
    """One sentence when a billed RL campaign's given ``rl_time_factor`` (a number, or a
    range's point) lies outside the measured ÷ predicted iteration times of the published runs
    (``rl.time_factor_triangle``: the generic path's, or its framework's): a factor of 50
    billed its campaign at 50× the model's time without a word (a trial); a run of one's own
    may lie there, and it is said, not refused."""
    k = point(p.get("rl_time_factor"))
    h = bill.figures.get("rl_gpu_hours", 0.0) if bill is not None else 0.0
    if k is None or bill is None or np.ndim(h) or float(h) <= 0 or \
            p.get("rl_algorithm") == "dpo":   # GRPO runs measure nothing of DPO's time
        return []
    lo, _, hi = time_factor_triangle(p)
    if lo <= float(k) <= hi:
        return []
    said = (f"rl_time_factor={float(k):.3g}" if not isinstance(p.get("rl_time_factor"), Range)
            else f"rl_time_factor={float(k):.3g} (its range's point)")
    return [f"{said} lies outside the measured ÷ predicted RL iteration "
            f"times of the published runs, {lo:g}-{hi:g} (llmcost.rl.time_factor_triangle): "
            "the RL line is billed at it; check it is a ratio of iteration times, measured ÷ "
            "the model's"]


def _world_bill_warning(bill: Ledger | None) -> list[str]:
    """One sentence when the bill's total exceeds ``WORLD_GDP_USD`` (a bill can get there from
    inputs each below it: 1e12 annotation samples at $200); none without a bill."""
    total = getattr(bill, "total_usd", None)
    if not isinstance(total, float) or not math.isfinite(total) or total <= WORLD_GDP_USD:
        return []
    return [f"the bill, ${total:.3g}, is {ABOVE_WORLD_GDP}; check the inputs' exponents and "
            "units (the largest lines lead the bill)"]


#: The owned-hardware keys the bill reads only when ``pricing: owned`` gives no
#: ``price_usd_per_gpu_hour`` (``ledger.owned_usd_per_gpu_hour``: the purchase amortised, the
#: electricity on its own line); a given price is the whole GPU-hour, energy included.
OWNED_PRICE_KEYS = ("ledger_owned_usd_per_gpu", "ledger_electricity_usd_per_kwh")


def owned_keys_ignored_warning(p: dict) -> str | None:
    """One sentence when ``pricing: owned`` gives ``price_usd_per_gpu_hour`` and one of
    ``OWNED_PRICE_KEYS``: the given price is the GPU-hour, hardware and energy together, so the
    bill neither amortises the purchase price nor bills electricity (its line is "included"),
    and those keys change nothing. None otherwise."""
    price = p.get("price_usd_per_gpu_hour")
    given = [k for k in OWNED_PRICE_KEYS if p.get(k) is not None]
    if p.get("pricing") != "owned" or price is None or not given:
        return None
    return (f"{', '.join(given)} {'is' if len(given) == 1 else 'are'} ignored: pricing: owned "
            f"with price_usd_per_gpu_hour={price:g} bills that price as the whole GPU-hour, "
            "hardware and energy included (the electricity line is \"included\"); drop "
            "price_usd_per_gpu_hour to amortise the purchase price and bill the electricity")


#: The spot keys the bill reads only with ``pricing: spot`` (``ledger.failure_model``).
SPOT_KEYS = ("ledger_spot_preemptions_per_node_day", "ledger_spot_restart_s")


def pricing_keys_unused_warning(p: dict) -> str | None:
    """One sentence when the scenario gives spot keys (``SPOT_KEYS``) off spot, or owned-hardware
    keys (``OWNED_PRICE_KEYS``) off owned: no line of the bill reads them (a rented hour carries
    its hardware and energy; pre-emptions are priced on spot only), though notebook 07's spot
    verdict and notebook 09's spot and owned levers do (a finance trial read the same total with
    pre-emptions set on a reserved bill, nothing said). None otherwise."""
    pricing = p.get("pricing") or "on_demand"
    spot = [k for k in SPOT_KEYS if p.get(k) is not None] if pricing != "spot" else []
    owned = [k for k in OWNED_PRICE_KEYS if p.get(k) is not None] if pricing != "owned" else []
    if not spot and not owned:
        return None
    keys = spot + owned
    why = "; ".join((["pre-emptions are priced on spot only (notebook 07's spot verdict and "
                      "09's spot lever read them)"] if spot else [])
                    + ([f"{'an' if pricing == 'on_demand' else 'a'} "
                        f"{pricing.replace('_', '-')} hour carries its hardware and energy "
                        "(notebook 09's owned lever reads them)"] if owned else []))
    return (f"{', '.join(keys)} change{'s' if len(keys) == 1 else ''} no line of this bill, "
            f"which is priced {pricing.replace('_', '-')}: {why}")


def owned_cluster_warning(p: dict, bill: Ledger | None) -> str | None:
    """One sentence when ``pricing: owned`` amortises a purchase (``price_usd_per_gpu_hour`` not
    given: ``pricing.owned_usd_per_gpu_hour``, Cottier et al. 2024): the bill charges the
    GPU-hours it prices at the hour's share of the cluster's value lost (the hardware rate h,
    its other hours taken to serve other work), where buying the cluster costs

        C = n × P × s ÷ (1 − i)    (P the purchase per GPU, s the server multiplier, i the
                                    interconnect share: ``pricing.owned_usd_per_gpu_hour``)

    said beside the hardware the bill charges, H × h (H every GPU-hour the bill prices): both
    ``published.acquisition_vs_amortised``, as ``reserved_term_warning`` says a term that
    outlasts the run (a trial: owned billed $3.06M against $8.71M on demand with no word that
    the cluster costs many times that), and what the owned hour leaves out (a finance trial:
    no facility line, nothing said). None otherwise, or without a bill."""
    if bill is None or p.get("pricing") != "owned" or p.get("price_usd_per_gpu_hour") is not None:
        return None
    try:
        a = acquisition_vs_amortised(bill)
    except (ValueError, KeyError):
        return None
    cluster, billed = a["acquisition_usd"], a["amortised_usd"]
    if not billed > 0:
        return None
    hours = float(np.mean(bill.figures["all_gpu_hours"]))
    rate = billed / hours
    return (f"pricing: owned charges the {fmt_quantity(hours)} GPU-hours the bill prices at the "
            f"value the hardware loses meanwhile (${rate:.2f}/GPU-h, Cottier et al. 2024), "
            f"{fmt_usd(billed)} of hardware: buying the {fmt_gpus(p['n_gpus'])} as "
            f"a cluster (servers and network) costs {fmt_usd(cluster)}, {cluster / billed:.3g}× "
            "that, the rest of its value taken to serve other work or be resold; a cluster bought "
            "for this run alone costs its purchase less what it resells for; the owned hour "
            "counts the hardware's lost value and its power only: data-centre space, "
            "maintenance and insurance are not modelled")


def reserved_project_warning(p: dict, bill: Ledger | None) -> str | None:
    """One sentence when ``pricing: reserved`` (a given or a catalogue price) and the project
    (``ledger_project_months``, a number) outlasts the days of the cluster the bill's GPU-hours
    fill (else ``_project_too_short``): the bill charges the GPU-hours it prices (the compute
    lines "fixed": committed capacity), as if the rest of a reservation
    were used by other work; reserved for the whole project, the GPUs cost

        months × 730.5 h × rate × GPUs    (``levers.reservation_cost_usd`` with T the project)

    said beside what the bill charges: every GPU-hour it prices H (``all_gpu_hours``: the run,
    exploration, post-training, benchmarks), H ÷ (GPUs × 24) days of the cluster, and the idle
    part, the reservation less H × rate. A finance trial read 1,065,268 GPU-h billed on 1,024
    H200 reserved for a 6-month project (4.49M GPU-h), nothing said; another read "this 107-day
    run" where the bill's 11.5M GPU-h are 234.5 days of the cluster. None otherwise, or without
    a bill."""
    months = p.get("ledger_project_months")
    if bill is None or p.get("pricing") != "reserved" or not isinstance(months, (int, float)):
        return None
    rate, n = bill.figures["price_usd_per_gpu_hour"], _cluster_gpus(p)
    hours, used = _cluster_days(bill, n)
    days = months * (365.25 / 12)
    if days <= used:
        return _project_too_short(months, hours, used, n,
                                  bill.figures["run_wall_clock_days"])
    term = days * 24 * rate * n
    return (f"pricing: reserved bills the {fmt_quantity(hours)} GPU-hours this bill prices "
            f"({fmt_quantity(used)} days of its {fmt_gpus(n)}: "
            + ("its post-training and the work around it" if post_training_only(p) else
               f"the run's {fmt_quantity(bill.figures['run_wall_clock_days'])} days and the "
               "work around it") + ") "
            f"at ${rate:.2f}/GPU-h, as if the rest of a reservation were used by other work; "
            f"reserved for the project's {months:g} months, {fmt_gpus(n)} cost months × "
            f"730.5 h × rate × GPUs = {fmt_usd(term)} (the idle part, "
            f"{fmt_usd(term - hours * rate)}, unpriced here): price the reservation you buy, "
            "or the run on demand")


def _capacity_too_short(p: dict, bill: Ledger, months: float) -> bool:
    """Whether a committed-capacity warning (``reserved_project_warning``,
    ``owned_project_warning``) already says the project is shorter than the days of the
    cluster the bill's GPU-hours fill (``_project_too_short``), so that the schedule's warning
    in ``magnitude_warnings`` does not say it a second time."""
    committed = p.get("pricing") == "reserved" or (
        p.get("pricing") == "owned" and p.get("price_usd_per_gpu_hour") is None)
    return committed and months * (365.25 / 12) <= _cluster_days(bill, _cluster_gpus(p))[1]


def _cluster_gpus(p: dict) -> int:
    """The GPUs a committed-capacity warning reserves or owns: the scenario's ``n_gpus``, or an
    RL campaign's ``rl_gpus`` in a bill of post-training alone that runs nothing else
    (``scenario.prices_at_mfu`` false: a review read 64 GPUs reserved for a campaign on 16)."""
    return int(p["n_gpus"] if prices_at_mfu(p) or not p.get("rl_gpus") else p["rl_gpus"])


def _cluster_days(bill: Ledger, n: int) -> tuple[float, float]:
    """(H, H ÷ (n × 24)): every GPU-hour the bill prices (``all_gpu_hours``: the run,
    exploration, post-training, benchmarks, the rerun reserve; the draws' mean) and the days of
    n GPUs they fill, what the committed-capacity warnings set against a term or a project."""
    hours = float(np.mean(bill.figures["all_gpu_hours"]))
    return hours, hours / (n * 24)


def _project_too_short(months: float, hours: float, used: float, n: int,
                       run_days: float) -> str | None:
    """The committed-capacity warnings' sentence when the project (``ledger_project_months``)
    is shorter than the days of the cluster the bill's GPU-hours fill, H ÷ (GPUs × 24): the
    project-long lines (people, operations, storage) are then priced over fewer months than
    the compute takes (a review: a 6-month project under 234.5 days of 2,048 GPUs, unsaid).
    None where the project is shorter than the run itself, which ``magnitude_warnings`` says."""
    if months * (365.25 / 12) < run_days:
        return None
    return (f"ledger_project_months={months:g} is shorter than the {fmt_quantity(used)} days of "
            f"the {fmt_gpus(n)} the bill's {fmt_quantity(hours)} GPU-hours fill ("
            + ("the run" if run_days else "the post-training")   # no run: post-training alone
            + " and the work around it): people, operations and storage are priced over fewer "
            "months than the compute takes")


def owned_project_warning(p: dict, bill: Ledger | None) -> str | None:
    """One sentence when ``pricing: owned`` amortises a purchase (no ``price_usd_per_gpu_hour``)
    and the project (``ledger_project_months``, a number) outlasts the days of the cluster the
    bill's GPU-hours H fill (H ÷ (GPUs × 24)): the bill charges H at the hardware's rate h (the
    amortisation charged per GPU-hour, r·ln 10 of the value a year, ``pricing.
    owned_usd_per_gpu_hour``: a charge rate, not the value lost), as if the rest of the
    project's hours served other work; held for the project, the GPUs are charged

        months × 730.5 h × h × GPUs

    said with the idle part, that less H × h: the reserved case's sentence
    (``reserved_project_warning``), which a finance trial found on its reserved option and not
    on its owned one (a 12-month project on 2,048 owned H100 charged 234.5 days of them). None
    otherwise, or without a bill."""
    months = p.get("ledger_project_months")
    if bill is None or p.get("pricing") != "owned" or \
            p.get("price_usd_per_gpu_hour") is not None or not isinstance(months, (int, float)):
        return None
    rate, n = float(np.mean(bill.figures["gpu_rate_usd_per_gpu_hour"])), _cluster_gpus(p)
    hours, used = _cluster_days(bill, n)
    days = months * (365.25 / 12)
    if days <= used:
        return _project_too_short(months, hours, used, n,
                                  bill.figures["run_wall_clock_days"])
    if not rate > 0:
        return None
    held = days * 24 * rate * n
    return (f"pricing: owned GPUs held for the project's {months:g} months are charged months "
            f"× 730.5 h × rate × GPUs = {fmt_usd(held)} at the bill's amortisation rate, "
            f"${rate:.2f}/GPU-h ({fmt_gpus(n)}), where the bill charges the "
            f"{fmt_quantity(hours)} GPU-hours it prices ({fmt_quantity(used)} days of them), as "
            f"if the rest served other work (the idle part, {fmt_usd(held - hours * rate)}, "
            "unpriced here)")


def reserved_term_warning(p: dict, bill: Ledger | None) -> str | None:
    """One sentence when ``pricing: reserved`` takes its price from the catalogue
    (``price_usd_per_gpu_hour`` not given) and the rows of its median commit to a term longer
    than the run's wall clock (``min_term_days``, data/prices.csv; ``catalog.current_prices``):
    the bill charges the GPU-hours it prices at the committed rate, as if the rest of the
    term were used by other work; a term bought for this work alone costs
    max(T, d) × rate × GPUs (T the term, d the days of the cluster the bill's GPU-hours fill,
    ``all_gpu_hours`` ÷ (GPUs × 24): ``levers.reservation_cost_usd``),
    said with that figure for the shortest term. Rows that state no term: said so, the term
    unknown. None otherwise, or without a bill."""
    if bill is None or p.get("pricing") != "reserved" or \
            p.get("price_usd_per_gpu_hour") is not None:
        return None
    try:
        rows = current_prices(p["accelerator"], "reserved")
    except ValueError:
        return None
    terms = term_days(rows)
    rate, n = bill.figures["price_usd_per_gpu_hour"], _cluster_gpus(p)
    # every GPU-hour the bill prices, as days of the cluster (a review: "this 86.8-day run"
    # where the 405B bill's 74.7M GPU-hours fill 190 days of its GPUs)
    days = _cluster_days(bill, n)[1]
    if not terms.empty and terms.isna().any():  # a row without a term: the term unknown
        k = int(terms.isna().sum())
        which = ("a row that states" if len(terms) == 1 else
                 f"rows of which {k} {noun(k, 'states', 'state')}")
        return (f"pricing: reserved takes the catalogue's rate, ${rate:.2f}/GPU-h, from "
                f"{which} no term (data/prices.csv; "
                f"{price_rows_words(rows[terms.isna()])}), and bills the GPU-hours this bill "
                f"prices, {fmt_quantity(days)} days of its {fmt_gpus(n)}: a reservation's term "
                "may outlast them, its idle part unpriced; give price_usd_per_gpu_hour from a "
                "quote for the term you buy")
    if terms.empty or terms.min() <= days:
        return None
    t = float(terms.min())
    return (f"pricing: reserved takes the catalogue's committed rate, ${rate:.2f}/GPU-h, whose "
            f"rows commit to {t:g} days or more, and bills the GPU-hours this bill prices, "
            f"{fmt_quantity(days)} days of its {fmt_gpus(n)}, as if the rest of the term were "
            f"used by other work; bought for this work alone, {t:g} days of {fmt_gpus(n)} cost "
            f"max(term, days used) × rate × GPUs = {fmt_usd(t * 24 * rate * n)}: give "
            "price_usd_per_gpu_hour (a quote for the term you buy), or price it on demand")


#: Kaplan et al. 2020 fit their losses on a byte-pair encoding of 50,257 tokens (§2, "Background
#: and Methods": "n_vocab = 50257"): a model that guesses every token uniformly scores
#: ln 50,257 = 10.8 nats, the most a loss on that scale can mean.
KAPLAN_VOCAB = 50257


def short_run_warning(p: dict) -> str | None:
    """One sentence when the run's optimizer steps (``train_tokens`` ÷ ``global_batch_tokens``:
    the fit turns on them) are too few for the loss-based pages: the loss a from-scratch run of
    ``train_tokens`` at ``global_batch_tokens`` reaches under Kaplan et al.
    2020's fits (``batch.loss_of_planned_run``, Eq. 5.4 and 5.6) is above ln ``KAPLAN_VOCAB``,
    a uniform guess, so notebook 02's target loss and critical batch and notebook 06's
    compute-optimal comparison describe no real run (a trial's 100M-token warm-up of an 8B
    model read "target loss 12.5 nats", "6,166% more compute than optimal"): a fine-tune or
    continued pre-training of a released model is billed right, those pages do not apply to it.
    None otherwise, or where the inputs are not numbers."""
    try:
        spec = load_model(p["model"])
        n = kaplan_n_params(spec)
        loss = float(loss_of_planned_run(n, float(p["train_tokens"]),
                                         float(p["global_batch_tokens"])))
    except (ValueError, KeyError, TypeError):
        return None
    if not loss > math.log(KAPLAN_VOCAB):
        return None
    d, b = float(p["train_tokens"]), float(p["global_batch_tokens"])
    return (f"train_tokens={fmt_count(d, 3)} at global_batch_tokens={b:,.0f} is {d / b:,.0f} "
            f"optimizer steps, too few for the loss-based pages: a from-scratch run of "
            f"{spec.name} that short ends at {loss:.1f} nats under Kaplan et al. 2020's fits, "
            f"above a uniform guess over their vocabulary (ln 50,257 = "
            f"{math.log(KAPLAN_VOCAB):.1f}), so notebook 02's target loss and critical batch and "
            "notebook 06's compute-optimal comparison describe no real run; the bill prices the "
            "tokens as given (a fine-tune or warm-up of a released model)")


def _people_months_warning(p: dict, bill: Ledger | None) -> str | None:
    """One sentence when ``ledger_people`` gives roles without ``months`` and the scenario no
    ``ledger_project_months``: those roles are then priced for the project months the ledger
    takes (``ledger._project_months``): the compute schedule only (or the final run's wall
    clock where nothing else is scheduled), often a few weeks,
    which a reader takes for the project's staffing, or with ``ledger_published_defaults``
    Epoch's median project (or the compute schedule, if longer), a default rather than this
    project's. None
    otherwise, or without a bill."""
    people = p.get("ledger_people") or []
    bare = [r.get("role", "?") for r in people if isinstance(r, dict) and "months" not in r]
    if bill is None or not bare or p.get("ledger_project_months") is not None:
        return None
    months = bill.figures["project_months"]
    took = ("Epoch's median project, a published default (ledger_published_defaults; the "
            "compute schedule, exploration, the final run and post-training, where longer)"
            if p.get("ledger_published_defaults") else
            (f"the compute schedule ({schedule_parts_words(p)}) only"
             if bill.figures["project_months_basis"] == "schedule" else
             "the longest role that gives its own months"
             if bill.figures["project_months_basis"] == "roles" else
             f"the final run's wall clock"
             f"{' with its pre-training phases' if p.get('phases') else ''} only"))
    return (f"ledger_people: {', '.join(map(str, bare))} without months are priced for "
            f"{months:,.2f} months, {took} (ledger_project_months is not set): set "
            "ledger_project_months, or months on each role, for the project's staffing")


#: The job Llama 3's planned-stop rate was measured on (arXiv:2407.21783 §3.3.4: 47 planned
#: interruptions in 54 days of one 16,384-GPU job), the rate ``fail_planned_per_day`` defaults to.
LLAMA3_JOB_GPUS = 16_384


def _planned_default_warning(p: dict, bill: Ledger | None) -> str | None:
    """One sentence when ``fail_planned_per_day`` is its default, Llama 3's rate for one
    16,384-GPU job, on a job at least 16× smaller whose planned stops then take more of its wall
    clock than its failures do (``ckpt_main_plan``'s shares: planned against lost work and
    restarts): a PI's 64-GPU job and an SRE's 8B on 64 GPUs read 46 planned stops beside 1.6
    failures, priced at a rate no small cluster published. None otherwise."""
    plan = (bill.figures.get("ckpt_main_plan") or {}) if bill is not None else {}
    shares = plan.get("wall_clock_shares")
    n = p.get("n_gpus")
    if not shares or p.get("fail_planned_per_day") != LEDGER_DEFAULTS["fail_planned_per_day"] \
            or not isinstance(n, int) or n * 16 > LLAMA3_JOB_GPUS:
        return None
    failures = shares["lost_work"] + shares["restart"]
    if not shares["planned"] > failures:
        return None
    return (f"fail_planned_per_day: {p['fail_planned_per_day']:g}, Llama 3's rate for its whole "
            f"{LLAMA3_JOB_GPUS:,}-GPU job (arXiv:2407.21783 §3.3.4), is applied to this "
            f"{n:,}-GPU job: its planned stops take {shares['planned']:.2%} of the wall "
            f"clock, more than its failures ({failures:.2%}); set your cluster's rate")


def _people_pay_default_warning(p: dict) -> str | None:
    """One sentence naming the ``ledger_people`` roles that give no ``usd_per_year``, and what
    they are then paid: the mean loaded cost of Epoch's frontier-lab pay distribution,
    ``staff_usd_per_fte_year_mean`` (Cottier et al. 2024; data/ledger_defaults.csv), which a
    university's PhD students and postdocs are far below (a PI's trial: 3 students and a postdoc
    billed $3.55M, 88% of the bill, with no word of the figure). None when every role gives one
    or none is listed."""
    bare = [str(r.get("role", "?")) for r in p.get("ledger_people") or []
            if isinstance(r, dict) and r.get("usd_per_year") is None]
    if not bare:
        return None
    verb = "is" if len(bare) == 1 else "are"
    return (f"ledger_people: {', '.join(bare)} without usd_per_year {verb} paid "
            f"{fmt_usd(default('staff_usd_per_fte_year_mean'))} per FTE-year, the mean "
            "loaded cost of frontier-lab staff (Cottier et al. 2024, Epoch's pay distribution): "
            "give each role's own usd_per_year (salary, benefits and overhead)")


def _people_outlast_warning(values: dict) -> str | None:
    """One sentence when ``ledger_people`` gives a role more ``months`` than the scenario's
    ``ledger_project_months`` (a range: more than its top): each role is priced for its own
    months (roles × FTE × months × loaded cost, ``ledger``), so those months run past the
    project the other lines are priced for (a trial: a role of 12 months under a 9-month
    project, no word). None otherwise."""
    months = values.get("ledger_project_months")
    top = months.bounds[1] if isinstance(months, Range) else months
    if not isinstance(top, (int, float)) or isinstance(top, bool):
        return None
    long = [(r.get("role", "?"), r["months"]) for r in values.get("ledger_people") or []
            if isinstance(r, dict) and isinstance(r.get("months"), (int, float))
            and r["months"] > top]
    if not long:
        return None
    given = f"the top of its range, {top:g}" if isinstance(months, Range) else f"{top:g}"
    return ("ledger_people: " + ", ".join(f"{role} ({m:g} months)" for role, m in long)
            + f" longer than ledger_project_months={given}: each role is priced for its own "
            "months, past the project the other lines are priced for")


#: GPUs of the server whose hourly price a GPU-hour price may have been confused with
#: (``_price_unit_warning``): the 8-GPU HGX/DGX node the catalogue's providers rent by the hour
#: (AWS p5.48xlarge, Lambda's 8x H100 SXM instance: data/prices.csv's sources).
NODE_GPUS = 8


def _price_unit_warning(p: dict) -> str | None:
    """One sentence when the scenario's ``price_usd_per_gpu_hour`` (its point) looks like a unit
    slip: above every price ``data/prices.csv`` lists for its accelerator (every provider,
    pricing mode and date, superseded list prices included; the dearest is a hyperscaler's
    on-demand list price: H100 SXM $12.29, AWS p5.48xlarge's $98.32/h ÷ 8 at launch and Azure's
    in 2026) and at least ``NODE_GPUS`` times the cheapest of them, the least an 8-GPU node's
    hourly price given as one GPU's would be (8 × $3.99 = $31.92 for Lambda's H100 node) or
    cents ($399 for $3.99). A price merely above the catalogue's dearest, but below
    ``NODE_GPUS`` times its cheapest, is a plausible quote (MI300X at $3.00 where the catalogue
    lists one provider at $2.59) and is not warned of. Below: ``MONEY_MAGNITUDE_FACTOR``
    (10) times or more under the cheapest listed (A100 at $0.01 against $1.21), the same rule
    as ``money_magnitude_warnings``. None also when the scenario gives no price or the catalogue
    has no row for the accelerator."""
    price, acc = p.get("price_usd_per_gpu_hour"), p.get("accelerator")
    if not isinstance(price, (int, float)) or isinstance(price, bool) or not acc:
        return None
    try:
        rows = list_prices(acc)
    except ValueError:
        return None
    listed = rows["price_usd_per_gpu_hour"].astype(float)
    if not rows.empty and 0 < price * MONEY_MAGNITUDE_FACTOR <= float(listed.min()):
        low = rows.loc[listed.idxmin()]
        return (f"price_usd_per_gpu_hour={price:g} is {MONEY_MAGNITUDE_FACTOR:g}× or more below "
                f"every price data/prices.csv lists for {low['accelerator']} ({len(rows)} row(s); "
                f"the cheapest ${float(low['price_usd_per_gpu_hour']):.2f}, {low['provider']} "
                f"{low['pricing']} {low['date']}): the key is USD per GPU per hour; check the "
                "unit (a price per GPU-minute, or per chip-second)")
    if rows.empty or price <= float(listed.max()) or price < NODE_GPUS * float(listed.min()):
        return None
    top = rows.loc[rows["price_usd_per_gpu_hour"].astype(float).idxmax()]
    dearest = float(top["price_usd_per_gpu_hour"])
    return (f"price_usd_per_gpu_hour={price:g} is above every price data/prices.csv lists for "
            f"{top['accelerator']} ({len(rows)} row(s); the dearest ${dearest:.2f}, "
            f"{top['provider']} {top['pricing']} {top['date']}; {NODE_GPUS}× the cheapest "
            f"${NODE_GPUS * float(listed.min()):.2f}): the key is USD per GPU per hour; check "
            "the unit (an 8-GPU instance's hourly price, or cents)")


#: A money value ten times or more away from every sourced catalogue figure for the same thing
#: is warned of (``money_magnitude_warnings``). Why ten: the unit slips it is there to catch are
#: all larger (cents for dollars 100×, thousands of dollars 1,000×, a whole 8-GPU server's price
#: for one GPU's at least 8 × 1.64 = 13×, the server multiplier of ``data/ledger_defaults.csv``),
#: while the catalogue's own figures for one thing span less (H100 SXM $25,000-$30,000; staff
#: $262k-$770k a year loaded, data/ledger_defaults.csv's 90% interval, a 2.9× one).
MONEY_MAGNITUDE_FACTOR = 10.0
#: Accelerators of ``data/accelerators.csv`` whose purchase price ``data/hardware_price_series.csv``
#: lists under its source's name (the same board: A100 SXM4 40 GB, 400 W, NVLink 600 GB/s).
PRICE_SERIES_NAMES = {"A100-40GB": "A100-SXM4-40GB"}


def money_magnitude_warnings(p: dict) -> list[str]:
    """Money keys ten times (``MONEY_MAGNITUDE_FACTOR``) or more below or above every sourced
    figure the catalogue holds for the same thing, as sentences naming the key, its value, the
    catalogue's figure with its source and the unit to check:

    * ``ledger_owned_usd_per_gpu`` (USD per accelerator) against the purchase rows of
      ``data/hardware_price_series.csv`` for the scenario's accelerator (Epoch AI's hardware
      price dataset, and the ledger's H100 default); no row: no warning;
    * ``ledger_electricity_usd_per_kwh`` against ``electricity_usd_per_kwh`` of
      ``data/ledger_defaults.csv`` (US EIA industrial average of 2025, the mean of its monthly
      prices);
    * each ``ledger_people`` record's ``usd_per_year`` against ``staff_usd_per_fte_year``'s 90%
      interval (data/ledger_defaults.csv: $262k-$770k loaded, from the Epoch AI code for
      Cottier et al. 2024, arXiv:2405.21015).

    The other money keys (licensing, processing, synthetic tokens, annotation, human evaluation,
    operations, the budget) have no catalogue figure for a value of their kind, and are not
    judged. Warnings, not refusals: each is a legal scenario."""
    out = [_purchase_price_warning(p)]
    kwh = p.get("ledger_electricity_usd_per_kwh")
    out.append(_outside_warning("ledger_electricity_usd_per_kwh", kwh, (default(
        "electricity_usd_per_kwh"),) * 2, "the US industrial average data/ledger_defaults.csv "
        f"gives (${default('electricity_usd_per_kwh'):.4f}, {_short_source('electricity_usd_per_kwh')})",
        ("the key is USD per kWh", "a fraction of a cent", "cents per kWh, or USD per MWh")))
    row = default_rows()["staff_usd_per_fte_year"]
    for i, person in enumerate(p.get("ledger_people") or []):
        v = person.get("usd_per_year") if isinstance(person, dict) else None
        out.append(_outside_warning(
            f"ledger_people[{i}].usd_per_year", v, (float(row["low"]), float(row["high"])),
            f"the ${float(row['low']):,.0f}-${float(row['high']):,.0f} loaded compensation per "
            f"FTE-year data/ledger_defaults.csv gives ({_short_source('staff_usd_per_fte_year')}"
            ", 90% interval)",
            ("the key is USD per full-time person per year", "thousands of dollars, or a "
             "monthly salary", "cents, or a team's total")))
    return [w for w in out if w]


#: World GDP at current prices, USD: about $110 trillion in 2024 (IMF, World Economic Outlook
#: database, October 2024, "Gross domestic product, current prices, U.S. dollars", World). No
#: money input of one training project comes near it; a value above it is a slip in the
#: exponent or the unit (``world_scale_warnings``).
WORLD_GDP_USD = 110e12
#: How a money figure above ``WORLD_GDP_USD`` is said (an input's, ``world_scale_warnings``, or
#: the whole bill's, ``_world_bill_warning``).
ABOVE_WORLD_GDP = (f"above world GDP, about ${WORLD_GDP_USD / 1e12:,.0f} trillion a year (IMF "
                   "World Economic Outlook, October 2024, for 2024): no project spends that")
#: The workforce of the world's largest private employer: Walmart's "approximately 2.1 million
#: associates" (Walmart Inc., Annual Report on Form 10-K for the fiscal year ended January 31,
#: 2024). A staff record (``ledger_people``) with more full-time people than that is a slip.
LARGEST_EMPLOYER_FTE = 2.1e6


def world_scale_warnings(p: dict) -> list[str]:
    """Money inputs above ``WORLD_GDP_USD`` (every top-level key whose name holds ``usd``, each
    staff record's ``usd_per_year``) and staff records with more full-time people than
    ``LARGEST_EMPLOYER_FTE``, as sentences naming the key, its value and the bound: legal (the
    bill prices them) but no project's figure. Warnings, not refusals."""
    out = []
    money = [(k, v) for k, v in p.items() if "usd" in k and not k.startswith("_")]
    people = [x for x in p.get("ledger_people") or [] if isinstance(x, dict)]
    money += [(f"ledger_people[{i}].usd_per_year", x.get("usd_per_year"))
              for i, x in enumerate(people)]
    for k, v in money:
        if isinstance(v, (int, float)) and not isinstance(v, bool) and v > WORLD_GDP_USD:
            out.append(f"{k}={v:g} is {ABOVE_WORLD_GDP}; check the exponent and the unit")
    for i, x in enumerate(people):
        f = x.get("fte")
        if isinstance(f, (int, float)) and not isinstance(f, bool) and f > LARGEST_EMPLOYER_FTE:
            out.append(f"ledger_people[{i}].fte={f:g} is more people than the world's largest "
                       f"private employer has ({LARGEST_EMPLOYER_FTE / 1e6:.1f} million, Walmart "
                       "10-K for fiscal 2024): check the exponent (fte is full-time people)")
    return out


def _short_source(key: str) -> str:
    """The source of a ledger default up to its first ": " (the publication, not the quote)."""
    return default_source(key).split(": ")[0]


def _outside_warning(key: str, v, span: tuple, reference: str, unit: tuple) -> str | None:
    """``key=v`` below ``span[0] / MONEY_MAGNITUDE_FACTOR`` or above ``span[1] ×`` it, as a
    sentence naming ``reference`` (the catalogue's figure and source) and ``unit``: (what the
    key is, the slips to check below, the slips to check above); None inside, or when ``v`` is
    not a positive number (0 is "not given")."""
    if not isinstance(v, (int, float)) or isinstance(v, bool) or not v > 0:
        return None
    f = MONEY_MAGNITUDE_FACTOR
    if v < span[0] / f:
        side, slips = f"below 1/{f:g} of {reference}", unit[1]
    elif v > span[1] * f:
        side, slips = f"above {f:g} times {reference}", unit[2]
    else:
        return None
    return f"{key}={v:g} is {side}: {unit[0]}; check the unit ({slips})"


def _purchase_price_warning(p: dict) -> str | None:
    """``ledger_owned_usd_per_gpu`` against the purchase rows of
    ``data/hardware_price_series.csv`` for the scenario's accelerator (``_outside_warning``: a
    ``MONEY_MAGNITUDE_FACTOR``-th of the cheapest, that many times the dearest); None when the series has no purchase row for
    it (``PRICE_SERIES_NAMES`` maps the catalogue's names to the series')."""
    v, acc = p.get("ledger_owned_usd_per_gpu"), p.get("accelerator")
    if not isinstance(acc, str):
        return None
    d = hardware_price_series()
    rows = d[(d["kind"] == "purchase") & (d["accelerator"] == PRICE_SERIES_NAMES.get(acc, acc))]
    if rows.empty:
        return None
    lo, hi = rows.loc[rows["usd"].idxmin()], rows.loc[rows["usd"].idxmax()]
    what = (f"${lo['usd']:,.0f}" if len(rows) == 1 else
            f"${lo['usd']:,.0f}-${hi['usd']:,.0f}, {len(rows)} rows")
    reference = (f"the purchase price data/hardware_price_series.csv lists for {acc} ({what}, "
                 f"{lo['source'].split(': ')[0].split(', ')[0]})")
    return _outside_warning(
        "ledger_owned_usd_per_gpu", v, (float(lo["usd"]), float(hi["usd"])), reference,
        ("the key is the purchase price of one accelerator in USD", "thousands of dollars, or "
         "a price per GPU-hour", "a whole server's or cluster's price, or cents"))


#: A project longer than 10 years (120 months) is warned of (``_long_project_warning``).
LONG_PROJECT_MONTHS = 120.0


def _long_project_warning(months) -> str | None:
    """One sentence when ``ledger_project_months`` exceeds ``LONG_PROJECT_MONTHS`` (10 years).

    Why 10 years: ML hardware price-performance grows r = 0.14 orders of magnitude a year
    (Cottier et al. 2024, arXiv:2405.21015, §2.2; ``depreciation_ooms_per_year`` in
    data/ledger_defaults.csv), so over 10 years the GPU-hour the bill prices at one dated price
    is 10^(0.14 × 10) ≈ 25× behind: no single-price bill describes a project that long, and
    people, operations and storage (billed per month) grow with it without bound. A value that
    large is more likely a unit slip (days or hours written as months)."""
    if not isinstance(months, (int, float)) or months <= LONG_PROJECT_MONTHS:
        return None
    return (f"ledger_project_months={months:g} is over {LONG_PROJECT_MONTHS:.0f} months "
            f"({LONG_PROJECT_MONTHS / 12:.0f} years; this is {fmt_amount(months / 12, 3)} years): "
            "people, "
            "operations and storage are billed per month for all of it, and hardware "
            "price-performance moves 0.14 orders of magnitude a year (Cottier et al. 2024), so "
            "one dated GPU-hour price cannot describe it; check the unit (months, not days or "
            "hours)")


#: Runs longer than this many months are warned of as possibly inefficient
#: (``_long_run_warning``): Emberson and Edelman 2025, "Frontier training runs will likely stop
#: getting longer by around 2027", Epoch AI data insight (2025-07-25, epoch.ai/data-insights/
#: longest-training-run): "training runs that last too long are outclassed by training runs
#: that start later and benefit from additional hardware and algorithmic improvements. Based on
#: our latest numbers, this suggests that training runs lasting more than 9 months may be
#: inefficient" (their earlier estimate, Sevilla et al. 2022, "The Longest Training Run", was 14-15
#: months, before algorithmic progress was re-estimated at about 3x a year).
LONG_RUN_MONTHS = 9.0


def _long_run_warning(p: dict, bill: Ledger | None) -> str | None:
    """One sentence when the run's own wall clock (``bill.figures["run_wall_clock_days"]``: the
    main run, its failures and restarts, and its pre-training phases, on ``n_gpus``), in months
    = days ÷ (365.25 ÷ 12), exceeds

    * ``LONG_PROJECT_MONTHS`` (10 years): the same reason as a long project
      (``_long_project_warning``: 0.14 orders of magnitude of hardware price-performance a
      year, Cottier et al. 2024, so one dated GPU-hour price cannot describe a decade), and
      more likely a slip in ``train_tokens``, ``n_gpus`` or ``mfu``;
    * else ``LONG_RUN_MONTHS`` (9 months): a run that long may be inefficient, one that starts
      later on better hardware and algorithms finishing first (Emberson and Edelman 2025, Epoch
      AI); more GPUs shorten it.

    None without a bill or under 9 months (``long_run_words``)."""
    days = bill.figures.get("run_wall_clock_days") if bill is not None else None
    return long_run_words(days, p.get("n_gpus"),
                          PAID_RUN_WORDS if p.get("phases") else "failures included")


#: What the bill's run wall clock counts (``run_wall_clock_days``), and notebook 01's (the main
#: run's ideal days): a trial read 412, 426 and 517 days of one run on three pages, each the
#: long-run sentence's "wall clock" unsaid.
PAID_RUN_WORDS = "failures and pre-training phases included"
IDEAL_RUN_WORDS = "the main run with no failures"


def long_run_words(days, gpus=None, basis: str = "") -> str | None:
    """``_long_run_warning``'s sentence for a run of ``days`` of wall clock on ``gpus`` (None
    when not a finite number of days, or under ``LONG_RUN_MONTHS``): what notebook 01 adds to
    its answer where a scenario's bill would warn; ``basis`` says what the days count
    (``PAID_RUN_WORDS``, ``IDEAL_RUN_WORDS``), after the GPUs."""
    if not isinstance(days, (int, float)) or not math.isfinite(days):
        return None
    months = days / (365.25 / 12)
    if months <= LONG_RUN_MONTHS:
        return None
    on = (f" on {fmt_gpus(gpus)}" if isinstance(gpus, int) and gpus > 0 else "") + \
        (f", {basis}" if basis else "")
    if months <= LONG_PROJECT_MONTHS:
        return (f"the training run's wall clock is {months:,.1f} months ({days:,.0f} days{on}), "
                f"over {LONG_RUN_MONTHS:.0f} months: a run that long may be inefficient, one "
                "that starts later on better hardware and algorithms can finish first "
                "(Emberson and Edelman 2025, Epoch AI, 'Frontier training runs will likely stop "
                "getting longer by around 2027'); more GPUs (n_gpus) shorten it")
    return (f"the training run's wall clock is {fmt_amount(months / 12, 3)} years ({days:,.0f} days"
            f"{on}), over {LONG_PROJECT_MONTHS / 12:.0f} years: hardware price-performance "
            "moves 0.14 orders of magnitude a year (Cottier et al. 2024), so one dated GPU-hour "
            "price cannot describe it; check train_tokens, n_gpus and mfu")


#: The estimated stock of public human-generated text, in tokens (``_data_stock_warning``):
#: Villalobos et al. 2024, "Will we run out of data? Limits of LLM scaling based on
#: human-generated data", arXiv:2211.04325 v2, as its authors summarise it: "the total effective
#: stock of human-generated public text data is on the order of 300 trillion tokens, with a 90%
#: confidence interval of 100T to 1000T. This estimate includes only data that is sufficiently
#: high-quality to be used for training, and accounts for the possibility of training models
#: for multiple epochs" (Epoch AI, June 2024).
PUBLIC_TEXT_STOCK_TOKENS = 300e12


def _data_stock_warning(p: dict) -> str | None:
    """One sentence when ``train_tokens`` (its point) and the pre-training ``phases``' tokens
    together exceed ``PUBLIC_TEXT_STOCK_TOKENS``, the
    estimated *effective* stock of public human text (quality-filtered, and already counting the
    few epochs a run can repeat it: Epoch AI's summary of Villalobos et al. 2024): beyond it the
    run repeats its data further, where more compute buys less and less (Muennighoff et al.
    2023, "Scaling Data-Constrained Language Models", arXiv:2305.16264: up to about 4 epochs of
    repeated data are worth almost as much as fresh data, and beyond, the value of adding
    compute decays to zero). None below it or without a number."""
    d = p.get("train_tokens")
    if not isinstance(d, (int, float)) or isinstance(d, bool):
        return None
    extra = [ph.get("tokens") for ph in p.get("phases") or [] if isinstance(ph, dict)]
    extra = sum(x for x in extra if isinstance(x, (int, float)) and not isinstance(x, bool))
    if d + extra <= PUBLIC_TEXT_STOCK_TOKENS:
        return None
    stock = PUBLIC_TEXT_STOCK_TOKENS
    head = (f"train_tokens={d:g} and the phases' {extra:g} tokens ({fmt_count(d + extra, 3)} "
            "tokens in all) are" if extra else  # the phases' tokens count too (all are read)
            f"train_tokens={d:g} ({fmt_count(d, 3)} tokens) is")
    return (f"{head} above the estimated effective stock of public human text, about "
            f"{fmt_count(stock, 3)} tokens (Villalobos et al. 2024, arXiv:2211.04325; 90% "
            "interval 100T-1,000T; quality-filtered, and already counting the few epochs a run "
            "can repeat it): beyond it the run repeats its data further, where more compute buys "
            "less and less (Muennighoff et al. 2023, arXiv:2305.16264" + (
                "); check train_tokens and phases" if extra else
                ": about 4 epochs of repeated data are worth almost as much as fresh data; "
                "beyond, the value of adding compute decays to zero); check train_tokens"))


def _partial_rollouts_warning(p: dict, bill: Ledger | None) -> str | None:
    """One sentence when the billed RL campaign runs partial rollouts: the model removes the
    tail of response lengths up to the best gain APRIL measured (``rl.generation_time``,
    ``rl.PARTIAL_ROLLOUT_GAIN_MAX``), above its average (``_MEAN``). None otherwise."""
    hours = bill.figures.get("rl_gpu_hours") if bill is not None else None
    if not p.get("rl_partial_rollouts") or not isinstance(hours, (int, float)) or hours <= 0:
        return None
    return (f"rl_partial_rollouts: the RL line prices partial rollouts at the best gain "
            f"measured, the tail of response lengths removed up to "
            f"+{PARTIAL_ROLLOUT_GAIN_MAX:.0%} rollout throughput (APRIL measured "
            f"+{PARTIAL_ROLLOUT_GAIN_MEAN:.1%} on average, +{PARTIAL_ROLLOUT_GAIN_MAX:.0%} at "
            "most, arXiv:2509.18521): read the RL line as optimistic for a set-up that gains "
            "less (notebook 05 compares the modes)")


#: The share of the RL line's GPU-hours above which GPUs held idle (the ``idle`` part: rollout
#: and training GPUs waiting for each other, separate placements) is said (``_rl_idle_warning``):
#: a reader's threshold, a quarter of the line.
RL_IDLE_WARNING = 0.25


def _rl_line_share(bill: Ledger | None, hours) -> float | None:
    """``hours`` (a part of the billed RL campaign: ``figures['rl_tail_gpu_hours']``, one of
    ``figures['rl_parts_gpu_hours']``, which sum to it) ÷ the RL line's GPU-hours
    (``figures['rl_gpu_hours']``); None without a campaign."""
    total = bill.figures.get("rl_gpu_hours") if bill is not None else None
    if not isinstance(hours, (int, float)) or not isinstance(total, (int, float)) \
            or not total > 0 or not math.isfinite(total):
        return None
    return hours / total


def _rl_tail_warning(p: dict, bill: Ledger | None) -> str | None:
    """One sentence when the wait for the longest responses (the ``tail`` part) is a larger share
    of the RL line than on any published run the RL model is checked on
    (``rl.TAIL_SHARE_CHECKED``) and the responses' limit is longer than any of theirs (the
    largest ``response_tokens_max`` of ``data/rl_iterations.csv``, 8,192): the model places the
    longest of an iteration's responses at ``rl_response_tokens_max``
    (``rl.response_lengths``, lognormal with the mean fixed), so the key, if set to an
    engine's generation cap rather than the longest response a run produces, sets the bill (a
    trial: the limit from 8,192 to 131,072 tokens at a 2,048-token mean took the RL line from
    $5.9k to $101k, generation 99% of it, unsaid). None otherwise."""
    tail = None if bill is None else bill.figures.get("rl_tail_gpu_hours")
    share = _rl_line_share(bill, tail)
    if share is None or p.get("rl_algorithm") == "dpo":
        return None
    mx, mean = p.get("rl_response_tokens_max"), p.get("rl_response_tokens")
    if not isinstance(mx, int) or not isinstance(mean, int):
        return None
    longest = int(load_rl_validation()["response_tokens_max"].max())
    if not share > TAIL_SHARE_CHECKED or mx <= longest:
        return None
    return (f"{share:.1%} of the RL line's GPU-hours wait for the longest responses, more than "
            f"on any published run the RL model is checked on (at most {TAIL_SHARE_CHECKED:.1%}"
            f", with responses of at most {longest:,} tokens): the model takes the longest of "
            f"each iteration's responses at rl_response_tokens_max={mx:,} tokens, "
            f"{mx / mean:.1f}× the mean rl_response_tokens={mean:,}, in an assumed shape of "
            "lengths; set it to the longest response your runs produce, not the engine's "
            "generation cap (rl_async or rl_partial_rollouts recover part of the wait: notebook "
            "05 compares them)")


def _rollout_tp_across_domains_warning(p: dict, bill: Ledger | None) -> str | None:
    """One sentence when the billed RL campaign's ``rl_rollout_tp`` spans more than one
    scale-up domain (the accelerator's ``scaleup_domain_size``: 8 GPUs on an HGX board) although
    a rollout TP of one domain fits the policy's weights and KV cache (``scenario_iteration``
    prices it): every decode step's tensor-parallel all-reduces then cross the scale-out
    network, and the campaign is priced so, slower than the one-domain TP (a trial billed an 8B
    policy at rl_rollout_tp 32, four nodes, 10.4 days a run against 3.95 at TP 1, unsaid).
    None otherwise (a policy that needs the TP across domains, e.g. a 405B in BF16 on H100)."""
    hours = bill.figures.get("rl_gpu_hours") if bill is not None else None
    if not isinstance(hours, (int, float)) or hours <= 0 or p.get("rl_algorithm") == "dpo":
        return None
    try:
        tp, dom = int(p["rl_rollout_tp"]), int(load_accelerator(p["accelerator"])
                                                 .scaleup_domain_size or 0)
    except (KeyError, TypeError, ValueError):
        return None
    if not dom or tp <= dom:
        return None
    try:
        scenario_iteration({**p, "rl_rollout_tp": dom})
    except ValueError:
        return None   # one domain does not hold it: the TP across domains is needed
    return (f"rl_rollout_tp={tp} spans {math.ceil(tp / dom)} scale-up domains of {dom} "
            f"{p['accelerator']}: each decode step's tensor-parallel all-reduces cross the "
            f"scale-out network, priced so, though rl_rollout_tp={dom} (one domain) holds the "
            f"policy's weights and KV cache: set rl_rollout_tp={dom} to compare")


def _rl_idle_warning(p: dict, bill: Ledger | None) -> str | None:
    """One sentence when GPUs held idle are more than ``RL_IDLE_WARNING`` of the RL line: with
    separate rollout GPUs (``rl_rollout_gpus``) and synchronous iterations, the rollout GPUs
    wait while the trainer scores and updates, and the trainer while they generate
    (``rl.wall_and_parts``' ``idle``), billed all the same (a trial's PPO 70B: 48.9% of the
    line, unsaid). None otherwise."""
    parts = (bill.figures.get("rl_parts_gpu_hours") or {}) if bill is not None else {}
    share = _rl_line_share(bill, parts.get("idle"))
    # DPO generates nothing: its separate GPUs idle the whole iteration, which its own
    # warning says (checks.dpo_ignored_warning)
    if share is None or share <= RL_IDLE_WARNING or p.get("rl_algorithm") == "dpo":
        return None
    asynchronous = bool(p.get("rl_async"))
    return (f"{share:.0%} of the RL line's GPU-hours are GPUs held idle, waiting for the other "
            "phase (rl_rollout_gpus: separate rollout and training GPUs, "
            + ("asynchronous" if asynchronous else "synchronous") + "); colocated GPUs "
            "(rl_rollout_gpus: 0)" + ("" if asynchronous else
                                      " or asynchronous iterations (rl_async)")
            + " may cost less: notebook 05 compares the placements")


def _idle_rollout_replicas_warning(p: dict, bill: Ledger | None) -> str | None:
    """One sentence when the billed RL campaign has more rollout replicas than sequences per
    iteration: replicas = rollout GPUs ÷ ``rl_rollout_tp`` (the rollout GPUs: ``rl_rollout_gpus``
    when given, else ``rl_gpus``, colocated), sequences = ``rl_prompts_per_step`` ×
    ``rl_samples_per_prompt``; a replica without a sequence generates nothing while its GPUs are
    held and billed as generation (a trial: rl_gpus 4,096 at rollout TP 4, 1,024 replicas for
    512 sequences, billed without a word). None otherwise."""
    hours = bill.figures.get("rl_gpu_hours") if bill is not None else None
    if not isinstance(hours, (int, float)) or hours <= 0:
        return None
    try:
        gpus = int(p.get("rl_rollout_gpus") or p["rl_gpus"])
        replicas = gpus // int(p["rl_rollout_tp"])
        seqs = int(p["rl_prompts_per_step"]) * int(p["rl_samples_per_prompt"])
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return None
    if replicas <= seqs:
        return None
    key = "rl_rollout_gpus" if p.get("rl_rollout_gpus") else "rl_gpus"
    return (f"{key}={gpus:,} at rl_rollout_tp={int(p['rl_rollout_tp'])} is {replicas:,} rollout "
            f"replicas for {seqs:,} sequences an iteration (rl_prompts_per_step × "
            f"rl_samples_per_prompt): {replicas - seqs:,} of them generate nothing while their "
            f"GPUs are billed; {seqs * int(p['rl_rollout_tp']):,} rollout GPUs at most would "
            "serve the batch")


def _long_rl_campaign_warning(p: dict, bill: Ledger | None) -> str | None:
    """One sentence when the RL campaign alone, run on the RL job's GPUs, lasts longer than
    ``LONG_PROJECT_MONTHS``: its wall clock is the campaign's GPU-hours (``bill.figures
    ["rl_gpu_hours"]``, ``rl.scenario_campaign``: every iteration of every run) ÷ ``rl_gpus``,

        months = rl_gpu_hours ÷ rl_gpus ÷ 24 ÷ (365.25 ÷ 12),

    the runs one after another (runs side by side on more GPUs take the same GPU-hours). Beyond
    10 years no dated GPU-hour price describes it (``_long_project_warning``'s reason: 0.14
    orders of magnitude of price-performance a year, Cottier et al. 2024), and the value is
    more likely a slip in ``rl_iterations`` or ``rl_runs``."""
    if bill is None or not isinstance(p.get("rl_gpus"), (int, float)) or p["rl_gpus"] <= 0:
        return None
    hours = bill.figures.get("rl_gpu_hours")
    if not isinstance(hours, (int, float)) or not math.isfinite(hours):
        return None
    months = hours / p["rl_gpus"] / 24 / (365.25 / 12)
    if months <= LONG_PROJECT_MONTHS:
        return None
    k = p.get("rl_time_factor")
    given = isinstance(k, (int, float)) and not isinstance(k, bool) and k != 1.0
    k = k if given else scenario_time_factor(p) if k is None else 1.0
    return (f"the RL campaign runs {fmt_amount(months / 12, 3)} years on its "
            f"{fmt_gpus(p['rl_gpus'])} "
            f"({hours:,.3g} GPU-hours for rl_runs={p.get('rl_runs')} × rl_iterations="
            f"{p.get('rl_iterations'):,.3g}"
            + (f" × rl_time_factor={k:g}" if given else f" × {k:g}, the published runs' median "
               "measured ÷ predicted time" if k != 1.0 else "")
            + f"), over {LONG_PROJECT_MONTHS / 12:.0f} years: no dated GPU-hour price describes "
            "it; check rl_iterations and rl_runs" + (" and rl_time_factor" if given else ""))


#: A bill MFU above this multiple of its model's own published whole-run utilisation on the
#: same GPU generation is said (``own_published_run_warning``): a reader's threshold beyond what
#: goodput explains (Meta: "more than 90% effective training time" for Llama 3 405B,
#: arXiv:2407.21783 §3.3.4, i.e. a steady-state MFU at most about 1.1× the whole-run one), not a
#: constant of the model.
OWN_RUN_FACTOR = 1.25
#: A scenario on fewer than 1/8 of its model's published run's GPUs is not set against that
#: run's whole-run MFU (``own_published_run_warning``): a small job avoids much of what lowers a
#: large run's (failures and restarts, data-parallel communication over many nodes). A reader's
#: threshold (a trial: an 8-GPU, 10-hour job warned against Llama 3 8B's 1.3M GPU-hour run).
OWN_RUN_SCALE = 8


def own_published_run_warning(values: dict) -> str | None:
    """One sentence when the catalogue holds a published whole run of the scenario's own model
    on the same GPU generation (``claims.whole_run_rows``, notebook 08's scored runs), and the
    bill's MFU (on the BF16 basis: × ``checks.fp8_over_bf16`` for FP8) is above
    ``OWN_RUN_FACTOR`` × that run's whole-run utilisation U = D · F(s) / (H · 3600 · P_bf16)
    (the MFU basis). A whole-run U counts failures, restarts and every phase, so a steady-state
    MFU above it is expected, but not by that much (a trial: Llama 2 13B on 256 A100 billed at a
    predicted 64.1% while Meta's own run implies 42.1%). None otherwise. The comparison itself
    (causal count, FP8 bound, scale): ``own_run_comparison``."""
    c = own_run_comparison(values)
    if c is None or not c["ratio"] > OWN_RUN_FACTOR:
        return None
    as_fp8, at = _own_run_basis_words(c)
    return (f"{OWN_RUN_WORDS}{_own_run_words(c)}{as_fp8}; the bill's "
            f"{c['bill_mfu']:.1%}{' (on the BF16 basis)' if values.get('dtype') == 'fp8' else ''}"
            f" is {c['ratio']:.2f}× it{at}, more than goodput explains (large runs keep about 90% "
            "of their time): read the bill as optimistic" + (
                ", or set mfu from that run" if c["seq_len"] == c["run_seq_len"] else "")
            + " (this run's own history; the claims check, 'this scenario as a claim', sets the "
            "bill against the best comparable published run instead, and may find it plausible)")


def _own_run_basis_words(c: dict) -> tuple[str, str]:
    """What ``own_run_comparison``'s ratio is taken against, in words: (``as_fp8``, the run's
    FP8 bound where an FP8 bill meets a BF16 run, "" otherwise; ``at``, the causal-count basis
    where the bill's context differs from the run's, "" otherwise)."""
    u, r8 = c["mfu"], c["fp8_bound"]
    s_bill, s_run = c["seq_len"], c["run_seq_len"]
    at = "" if s_bill == s_run else (
        f" (at {s_bill:,} tokens against the run's {s_run:,}, compared on the causal count, the "
        "attention work done)")
    as_fp8 = (f", {u * r8:.1%} in FP8 at most (× {r8:.3g}, the largest published FP8 ÷ BF16 "
              "speed-up of one plan of a comparable size: the run was BF16)" if c["fp8_vs_bf16"]
              else "")
    return as_fp8, at


def _own_run_words(c: dict) -> str:
    """The model's own published run of ``own_run_comparison`` in words: model, accelerator,
    GPU-hours, tokens and its whole-run MFU (what it includes, where it is shown)."""
    r = c["run"]
    return (f"{r['model']}'s own published run on {r['accelerator']}: "
            f"{fmt_quantity(r['published_gpu_hours'])} GPU-hours for "
            f"{fmt_count(r['train_tokens'], 3)} tokens, a whole-run MFU of {c['mfu']:.1%} "
            "(failures, restarts and every phase included; notebook 08)")


def own_run_comparison(values: dict) -> dict | None:
    """The scenario's MFU set against its model's own published whole run on the same GPU
    generation (``claims.whole_run_rows``; the run of the highest whole-run MFU where there are
    several), or None (no such run, no MFU in ``values`` (a number or a range: a given, predicted
    or piloted one alike), or a job on fewer than 1/``OWN_RUN_SCALE`` of
    the run's GPUs, ``_run_gpus_at_least``: a small job's MFU is no measure against a large
    run's). Keys: ``run`` (the row), ``mfu`` (its whole-run MFU U), ``bill_mfu`` (the
    scenario's, on the BF16 basis: × ``checks.fp8_over_bf16`` for FP8), ``fp8_bound`` and
    ``fp8_vs_bf16``, ``seq_len`` and ``run_seq_len``, and::

        ratio = MFU_bill · c(s_bill) / (U · r · c(s_run))

    c(s) = F_causal(s) / F_full(s) (``_causal_share``: runs at other context lengths are
    compared on the work done; at one length c cancels); r = 1, or for an FP8 bill against a
    BF16 run the largest published FP8 speed-up of one plan (``accuracy.fp8_speedup_bound``).
    """
    mfu, acc, model = values.get("mfu"), values.get("accelerator"), values.get("model")
    if acc is None or model is None or mfu is None or isinstance(mfu, str):
        return None
    try:
        spec, gen = load_model(model), generation(load_accelerator(acc).name)
        m16 = float(mfu.point if isinstance(mfu, Range) else mfu) * (
            fp8_over_bf16(acc) if values.get("dtype") == "fp8" else 1.0)
    except (ValueError, TypeError, KeyError):
        return None
    runs = whole_run_rows()
    runs = runs[(runs["catalog_model"] == spec.name) & (runs["generation"] == gen)]
    if runs.empty:
        return None
    r = runs.loc[runs["published_mfu"].idxmax()]
    n = values.get("n_gpus")
    if isinstance(n, int) and n * OWN_RUN_SCALE < _run_gpus_at_least(r):
        return None
    u = float(r["published_mfu"])
    fp8_vs_bf16 = values.get("dtype") == "fp8" and str(r["precision"]).upper() != "FP8"
    r8 = fp8_speedup_bound(float(spec.n_params))[0] if fp8_vs_bf16 else 1.0
    s_bill, s_run = int(values.get("seq_len") or r["seq_len"]), int(r["seq_len"])
    ratio = m16 * _causal_share(spec, s_bill) / (u * r8 * _causal_share(spec, s_run))
    return {"run": r, "mfu": u, "bill_mfu": m16, "fp8_bound": r8, "fp8_vs_bf16": fp8_vs_bf16,
            "seq_len": s_bill, "run_seq_len": s_run, "ratio": ratio}


#: The start of ``own_published_run_warning``'s sentence (``with_step_model_beside_history``).
OWN_RUN_WORDS = "mfu: the catalogue holds "
#: The step-time model's line on a given MFU below its band (``checks.given_vs_predicted_mfu``):
#: the prediction it names.
_BELOW_THE_MODEL = re.compile(r"^the scenario's " + GIVEN_MFU_PATTERN + r" is below what the "
                              r"step-time model expects of this plan \(.*?\): (\d+%)")


def with_step_model_beside_history(warnings: list, values: dict | None = None) -> list:
    """``warnings`` with the step-time model's line on a given MFU below what it expects of the
    plan (``checks.given_vs_predicted_mfu``) set beside the model's own published whole run:

    * where the run's own line is among them (``own_published_run_warning``: "read the bill as
      optimistic"), that line says the two set the figure against different things, a step of
      this plan and a whole published run (its plan, scale, failures and restarts): a trial
      read "below what the model expects" and "optimistic" about one 40% and could not tell
      which way to move it;
    * else, given the scenario's ``values``, where such a run exists (``own_run_comparison``)
      the step-time model's line names it, with the given figure's ratio to it and the
      prediction's (the ratio is linear in the MFU: x_pred = ratio · pred ÷ given): a trial gave
      Llama 2 13B on 256 A100 mfu 0.45 and was told only that the model expects 64%, while
      Meta's own run implies 42.1%.

    Other warnings unchanged, in their order."""
    below = next((m.groups() for w in warnings if (m := _BELOW_THE_MODEL.match(w))), None)
    if below is None:
        return list(warnings)
    given, pred = below   # both on the dtype's own peak (an FP8 bill's: the FP8 one)
    if not any(w.startswith(OWN_RUN_WORDS) for w in warnings):
        c = own_run_comparison(point_scenario(values)) if values is not None else None
        if c is None:
            return list(warnings)
        # the prediction's multiple, from its whole-percent figure in the line (about 1%)
        x_pred = c["ratio"] * float(pred.rstrip("%")) / 100 / float(given.split()[0])
        as_fp8, at = _own_run_basis_words(c)
        on = (f", {c['bill_mfu']:.1%} on the BF16 basis," if values.get("dtype") == "fp8"
              else "")
        beside = (f"; {_own_run_words(c)}{as_fp8}: the given figure{on} is {c['ratio']:.2f}× "
                  f"{'that bound' if as_fp8 else 'it'}{at}, the prediction about {x_pred:.1f}× "
                  f"(a whole run's MFU sits below a step's by its goodput, large runs keep about "
                  f"90% of their time: up to {OWN_RUN_FACTOR:.2f}× is history-like); the model "
                  "prices a step of this plan, the published figure a whole run on its own plan "
                  "and scale with its failures and restarts")
        return [w.rstrip(".") + beside + "." if _BELOW_THE_MODEL.match(w) else w
                for w in warnings]
    return [w + f"; the step-time model expects more of this plan than the given mfu={given}, "
            f"{pred} on the same peak (the warning on the given MFU): it prices a step of this "
            "plan, the published figure a whole run on its own plan and scale with its failures "
            "and restarts, so the two bracket the MFU, and a budget with margin takes the lower"
            if w.startswith(OWN_RUN_WORDS) else w for w in warnings]


#: The longest wall clock taken for a published whole run whose GPU count is not published
#: (``_run_gpus_at_least``), months: an assumption, that published runs were shorter than the 9
#: months Emberson and Edelman 2025 (Epoch AI) expect frontier runs to reach "around 2027"
#: ("training time has grown by about 1.4x per year", "training runs lasting more than 9 months
#: may be inefficient"); not a measured bound.
PUBLISHED_RUN_MONTHS_AT_MOST = 9.0


def _run_gpus_at_least(r) -> float:
    """The GPUs a published whole run (a ``claims.whole_run_rows`` row) ran on: its ``n_gpus``
    where published, else at least its GPU-hours over ``PUBLISHED_RUN_MONTHS_AT_MOST`` of wall
    clock, H ÷ (9 × 730.5 h) (an assumption, its constant says why; Llama 3 8B's 1.3M
    H100-hours: at least 198 GPUs)."""
    n = r["n_gpus"]
    if n == n and n:  # published (not NaN)
        return float(n)
    return float(r["published_gpu_hours"]) / (PUBLISHED_RUN_MONTHS_AT_MOST * 365.25 / 12 * 24)


def _causal_share(spec, seq_len: int) -> float:
    """c(s) = F_causal(s) / F_full(s): the share of the MFU basis's FLOPs per training token
    (full attention matrix) a causal model computes (``ModelSpec.flops_per_token``)."""
    return float(spec.flops_per_token(seq_len, causal=True)) / float(
        spec.flops_per_token(seq_len, causal=False))


#: Goodput below which the bill's failures line is said (``_low_goodput_warning``): a
#: reader's threshold, a quarter of the paid hours lost, against the "more than 90% effective
#: training time" Meta reports for Llama 3 405B on 16,384 GPUs (arXiv:2407.21783 §3.3.4).
LOW_GOODPUT_WARNING = 0.75


def _low_goodput_warning(p: dict, bill: Ledger | None) -> str | None:
    """One sentence when the bill's goodput (ideal ÷ paid GPU-hours of the pre-training runs,
    ``reliability.checkpoint_plan``) is below ``LOW_GOODPUT_WARNING``: the run pays 1 ÷ goodput
    of its ideal hours, interrupted every job MTBF (spot pre-emptions included on spot; without
    checkpoints, ``ledger_resumable: false``, the mean time between failures and planned stops,
    ``reliability.interruption_mtbf_s``, since either restarts the run), and the exploratory
    line, a multiple of the final run's paid hours (Cottier et al. 2024), carries the same
    losses although smaller exploratory jobs are interrupted less often (notebook 09 prices them
    as smaller jobs). A trial: 2,048 H100 on spot, goodput 41%, a pre-emption every 38 minutes,
    said nowhere. A bill of post-training alone says its lowest fine-tuning line's
    (``figures['post_training_goodput']``; a review's CPT on 512 spot H100 at 23%, said in the
    line's words alone). None without a bill or above the threshold."""
    if bill is None:
        return None
    g, mtbf = bill.figures.get("goodput"), bill.figures.get("job_mtbf_s")
    run, tuned = "the pre-training run", bill.figures.get("post_training_goodput") or {}
    alone = g is None and bool(tuned) and post_training_only(bill.scenario)
    if alone:   # a bill of post-training alone: its lowest fine-tune
        run, g = min(((f"the {k} run", float(np.min(v))) for k, v in tuned.items()),
                     key=lambda x: x[1])
    if g is None or not g < LOW_GOODPUT_WARNING or mtbf is None:
        return None
    on_spot = p.get("pricing") == "spot"
    check = "the failure rate" + (", the pre-emption rate" if on_spot else "")
    if bill.scenario["ledger_resumable"]:  # what interrupts it: _by_words; then the stall
        planned = bill.scenario["fail_planned_per_day"]
        # the planned stops too (an SRE trial's 50 a day took most of a 63% goodput, and the
        # warning named a failure every 12.4 h alone)
        said = np.any(planned > 0)
        check += (", the planned stops (fail_planned_per_day)" if said else "") + \
            ", the checkpoint interval and the restart time (notebook 07)"
        after = (f" (besides planned stops, {_planned_words(planned)})" if said else "") + \
            _stall_words(bill.figures.get("ckpt_main_plan"))
    else:  # a planned stop restarts it too
        planned = bill.scenario["fail_planned_per_day"]
        mtbf = rel.interruption_mtbf_s(mtbf, planned)
        after = f" ({'spot pre-emptions, ' if on_spot else ''}failures and planned stops)"
        check += f" and the planned stops, {_planned_words(planned)}" + (
            " (Llama 3's rate on its 16,384-GPU job, 47 in 54 days, arXiv:2407.21783 §3.3.4, "
            "applied whatever the job's size: set fail_planned_per_day to your cluster's)"
            if np.all(planned == LEDGER_DEFAULTS["fail_planned_per_day"]) else
            " (fail_planned_per_day)") + ", or make training resumable"
    return (f"goodput {g:.0%}: {run} pays {1 / g:.2f}× its ideal GPU-hours, "
            f"interrupted {_by_words(bill.scenario['ledger_resumable'], on_spot)}every "
            f"{fmt_duration(float(mtbf))} on {fmt_gpus(bill.figures['n_gpus'])}{after}"
            + ("" if alone else
               "; the exploratory line, a multiple of the final run's paid hours, carries the "
               "same losses, though smaller exploratory jobs are interrupted less often")
            + f": check {check}")


def _by_words(resumable: bool, on_spot: bool) -> str:
    """What interrupts a resumable run at the job's MTBF (its planned stops apart): "by a
    failure " ("or pre-emption" on spot); "" without checkpoints, whose interval counts the
    planned stops too (said after it)."""
    return ("by a failure or pre-emption " if on_spot else "by a failure ") if resumable else ""


def _stall_words(plan: dict | None) -> str:
    """", and stalled X% of its time by checkpoints (s s per checkpoint, every i s)": the share
    s ÷ (i + s) of the wall clock a synchronous stall of s seconds per interval of i seconds
    takes (``reliability.checkpoint_plan``'s ``stall_s`` and ``interval_s``), said from 1 % (a
    trial's 1-second interval lost most of its goodput to the writes, and the warning named only
    a failure every 33 days); "" without a plan."""
    if not plan or not plan.get("interval_s"):
        return ""
    s, i = float(plan["stall_s"]), float(plan["interval_s"])
    share = s / (i + s)
    return (f", and stalled {share:.0%} of its time by checkpoints ({s:.3g} s per checkpoint, "
            f"every {fmt_duration(i)})" if share >= 0.01 else "")


def _planned_words(planned) -> str:
    """A planned-stop rate (a number, or the largest of a range's draws) in words: "0.87 a
    day"."""
    return f"{float(np.max(planned)):.3g} a day"


#: The share of wall time above which the bill's asynchronous checkpoints are said to occupy
#: the storage (``_storage_duty_warning``): a reader's threshold (most of the time), not a
#: constant of the model, which bounds the duty at 1 (``reliability.checkpoint_plan``).
STORAGE_DUTY_WARNING = 0.5


def _storage_duty_warning(p: dict, bill: Ledger | None) -> str | None:
    """One sentence when the bill's asynchronous checkpoints keep the storage writing for more
    than ``STORAGE_DUTY_WARNING`` of the wall time. An asynchronous checkpoint blocks only for
    its device-to-host snapshot, so the optimum interval of Daly 2006's model (with the
    write w added to the restart: ``reliability.checkpoint_plan``) is short, bounded only by
    one write per period, duty u = w ÷ (τ + δ) ≤ 1 (``reliability.storage_duty_cycle``): at
    u near 1 the shared file system writes checkpoints all the time and serves little else
    (the data loader, other jobs), which the bill does not price. The sentence gives τ, w, u and
    the bytes written a day = checkpoint bytes × 86,400 ÷ (τ + δ), and how to bound them
    (``ckpt_interval_s``, ``ckpt_storage_bytes_per_s``; notebook 07's storage duty cycle). The
    plan is the bill's own (``Ledger.figures['ckpt_main_plan']``: its failure model, spot
    pre-emptions included). None for synchronous checkpoints, a bill without checkpoints or a
    ranged plan."""
    if bill is None or not p.get("ckpt_async"):
        return None
    plan = bill.figures.get("ckpt_main_plan")
    if not plan or not plan["storage_duty"] > STORAGE_DUTY_WARNING:
        return None
    period = plan["interval_s"] + plan["stall_s"]
    daily = plan["checkpoint_bytes"] * 86400.0 / period
    # the bill's own sizing (no ckpt_storage_bytes_per_s) lands there by design: an SRE trial
    # read the warning as the tool faulting its own choice
    sized = (" (the bandwidth the bill sized: with asynchronous checkpoints a slower store "
             "costs no stall until one write fills the interval, so the cheapest store is one "
             "that writes all the time)" if p.get("ckpt_storage_bytes_per_s") is None else "")
    return (f"ckpt_async: the bill checkpoints every {fmt_duration(plan['interval_s'])}, "
            f"each write taking {fmt_duration(plan['write_s'])} at "
            f"{fmt_bytes(bill.figures['ckpt_storage_bytes_per_s'])}/s{sized}, so the storage "
            f"writes checkpoints {plan['storage_duty']:.0%} of the time ({fmt_bytes(daily)} a "
            "day) and serves little else (data loading, other jobs); the bill does not price "
            "that contention: set ckpt_storage_bytes_per_s to the share of the store this job "
            "may take, or ckpt_interval_s (notebook 07, the storage duty cycle)")


#: A set checkpoint interval is warned of when it keeps this much less of the paid GPU time
#: than the optimum (``_interval_cost_words``; a convention: a trial's 10-s synchronous
#: interval lost 16% of a 70B run's GPU time, and bought 562 GB/s of storage, without a word).
INTERVAL_COST_WARNING = 0.01


def _interval_cost_words(tau: float, plan, best) -> str | None:
    """One sentence when the scenario's interval τ costs more GPU time than the optimum τ* of
    the same job and run (``reliability.finite_run_interval``): paid ÷ ideal = 1/g, so the
    extra share is g*/g − 1, said when above ``INTERVAL_COST_WARNING``."""
    g, g_best = float(plan.goodput), float(best.goodput)
    extra = g_best / g - 1 if g > 0 else float("inf")
    if not extra > INTERVAL_COST_WARNING:
        return None
    return (f"ckpt_interval_s={tau:g} pays {extra:.1%} more GPU time than the optimum interval "
            f"for this job and run, {fmt_duration(float(best.interval_s))} (goodput "
            f"{g:.1%} against {g_best:.1%}): ckpt_interval_s: null takes the optimum")


def _checkpoint_interval_warning(p: dict, bill: Ledger | None) -> str | None:
    """One sentence when ``ckpt_interval_s`` (compute seconds between checkpoints, τ) is shorter
    than the time to write one checkpoint, w (``reliability.checkpoint_write_time_s`` in the
    bill's checkpoint plan: its size over the storage and node bandwidths the bill uses).

    Why w: a synchronous checkpoint blocks training for δ ≥ w, so with τ < w the run spends
    more of its time checkpointing than training (the overhead δ ÷ τ of Young 1974 / Daly 2006
    exceeds 1); an asynchronous one writes in the background only while the next interval
    runs, so with τ < w each checkpoint waits for the last (``reliability.checkpoint_stall_s``).
    The optimum interval is far above δ whenever the job's MTBF M is: Young 1974's first-order
    √(2δM), and the exact optimum of Daly 2006's complete model (``reliability``), the one the
    scenario gets with ``ckpt_interval_s: null``. An interval at least w that still pays
    ``INTERVAL_COST_WARNING`` more GPU time than that optimum is said too
    (``_interval_cost_words``). None for a bill without
    checkpoints (``ledger_resumable: false``) or when the plan cannot be built."""
    tau = p.get("ckpt_interval_s")
    if bill is None or not isinstance(tau, (int, float)) or not p.get("ledger_resumable", True):
        return None
    try:
        spec, gpu = load_model(p["model"]), load_accelerator(p["accelerator"])
        kw = dict(storage_bytes_per_s=bill.figures["ckpt_storage_bytes_per_s"],
                  run_s=rel.run_work_s(bill.figures["main_ideal_gpu_hours"], p["n_gpus"]))
        per_node = gpu.per_host
        q = failure_values(p, per_node)  # the bill's failure model (spot pre-emptions included)
        plan = rel.scenario_checkpoint_plan(q, spec.n_params, per_node, **kw)
        best = rel.scenario_checkpoint_plan(q, spec.n_params, per_node, **kw, interval_s=None)
    except (KeyError, ValueError, TypeError):
        return None
    w = float(plan.write_s)
    if tau >= w:
        return _interval_cost_words(tau, plan, best)
    how = ("each checkpoint waits for the last one's write" if p.get("ckpt_async") else
           "the run spends more time writing checkpoints than training")
    best = f" ({float(best.interval_s):,.0f} s)"  # spot pre-emptions included, as the bill's
    return (f"ckpt_interval_s={tau:g} is shorter than the {w:,.3g} s one checkpoint takes to "
            f"write ({float(plan.size.total_bytes) / 1e9:,.0f} GB): {how} (goodput "
            f"{bill.figures['goodput']:.2g}, a main run of "
            f"{bill.figures['wall_clock_days']:,.0f} days); ckpt_interval_s: null gives the "
            f"optimum for the job's MTBF{best}")
