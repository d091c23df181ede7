"""Each notebook's computations without Jupyter: ``notebook_results(nb, values)``.

A report runs every notebook in its own kernel (papermill), seconds each. To test that every
notebook can compute a scenario (the scenario matrix of ``tests/test_scenario_matrix.py``), this
module calls, for each notebook, the package functions its set-up cells call with the scenario's
values: the calls that read the scenario, not the fixed tables and figures around them. Each
entry returns the notebook's headline numbers as a dict; a scenario a notebook cannot compute
raises ``ScenarioError`` with the reason (the report refuses it in ``plan_report`` before any
notebook runs).

``values`` are the validated values a report passes (``report.plan_report(...).values``: the
scenario completed with the notebooks' defaults, ranges at their points); ``private`` the
resolved scenario's ranges and ``mfu: predict`` record (``report._private`` keys), which only the
bill (00) and the savings (09) read.
"""

from __future__ import annotations

import math

from ..bill import levers
from ..bill.claims import scenario_as_claim
from ..bill.ledger import (build_ledger, failure_values, headline_draws, spend_timeline,
                           with_changes)
from ..bill.scenario import ScenarioError, bill_values, scenario_price
from ..core.catalog import load_accelerator, load_model, scenario_accelerator
from ..laws import scaling as sc
from ..serving import inference as inf
from ..serving import rl
from ..training import batch, step, step_scenario
from ..training import reliability as rel
from ..training.calibrate import priced_plan
from ..training.compute import (HfuAbovePeak, hfu_from_mfu, tokens_per_s_per_gpu_at_mfu,
                                training_run)
from .glossary import load_glossary
from .numbering import notebook_number


def _price(p: dict) -> float:
    """The GPU-hour rate a notebook charges (``scenario_price``: on owned hardware the bill's
    hardware rate at the scenario's purchase price, energy on the bill's electricity line)."""
    return scenario_price(p)[0]


def _bill_values(p: dict, private: dict) -> dict:
    return {**bill_values(p), **private}


def _nb00(p, private):
    bill = build_ledger(_bill_values(p, private))
    # the draws of its cell 3, at 2,000 samples (the notebook takes 100,000): this checks that
    # they can be drawn, not the notebook's P90 to its last digit
    draws = headline_draws(_bill_values(p, private), samples=2_000).draws
    spend_timeline(bill, p.get("ledger_budget_usd"))
    spec = load_model(p["model"])  # the illustrative post-training of section 6
    post = with_changes(bill, ledger_sft_tokens=1e10,
                        ledger_lora_tokens=1e10 if spec.attention == "gqa" else 0.0,
                        ledger_annotation_samples=1e5, ledger_annotation_usd_per_sample=5.0)
    return {"total_usd": bill.total_usd, "p90_usd": draws.bill_summary()["bill.total_p90_usd"],
            "with_post_training_usd": post.total_usd}


def _nb01(p, private):
    spec, gpu = load_model(p["model"]), load_accelerator(p["accelerator"])
    run = training_run(spec, gpu, p["train_tokens"], p["mfu"], p["n_gpus"], _price(p),
                       seq_len=p["seq_len"], dtype=p["dtype"])
    try:  # an MFU full recomputation cannot reach (HFU above 1) is refused: None, as 01 says
        hfu = hfu_from_mfu(p["mfu"], spec, p["seq_len"])
    except HfuAbovePeak:
        hfu = None
    return {"gpu_hours": run["gpu_hours"], "hfu": hfu,
            "tokens_per_s_per_gpu": tokens_per_s_per_gpu_at_mfu(p["mfu"], spec, gpu,
                                                                 p["seq_len"], p["dtype"])}


def _nb02(p, private):
    spec = load_model(p["model"])
    plan, _, a = batch.scenario_batch_analysis(p, spec, _price(p), priced_plan(p, spec)[0])
    return {"plan": plan.describe(), "analysis": a}


def _nb03(p, private):
    spec = load_model(p["model"])
    scenario_accelerator(p)
    plan = priced_plan(p, spec)[0]  # the bill's: with pilots, calibrated on them
    mb = step_scenario.scenario_memory(p, plan, spec)   # as the plan search counted it
    return {"plan": plan.describe(), "memory": mb}


def _nb04(p, private):
    spec = load_model(p["model"])  # the step on the bill's plan (calibrated on any pilots)
    plan, b = step.scenario_step(p, spec, priced_plan(p, spec)[0])
    step.scenario_options(p)
    return {"plan": plan.describe(), "step_time_s": b.step_time_s, "mfu": b.mfu}


def _nb04b(p, private):
    out = _nb04(p, private)  # the same step, priced
    return {**out, "price_usd_per_gpu_hour": _price(p)}


def _nb05(p, private):
    spec, gpu = load_model(p["model"]), scenario_accelerator(p)
    price = _price(p)
    sv = dict(weight_dtype=p["serve_weight_dtype"], kv_dtype=p["serve_kv_dtype"])
    kw = dict(prompt_tokens=p["inference_prompt_tokens"],
              output_tokens=p["inference_output_tokens"], batch=p["serve_batch"] or None,
              occupancy=p["serve_occupancy"], max_tpot_s=p["serve_max_tpot_s"], **sv)
    c = (inf.serving_cost(spec, gpu, price, tp=p["serve_tp"], **kw) if p["serve_tp"] else
         inf.choose_serving_tp(spec, gpu, price, **kw))
    rl.scenario_iteration(p)
    camp = rl.scenario_campaign(p, price)
    return {"usd_per_m_output": c.usd_per_m_output, "rl_usd": float(camp.loc["total", "usd"])}


def _nb06(p, private):
    spec, gpu = load_model(p["model"]), load_accelerator(p["accelerator"])
    fit = sc.get_fit(p["scaling_fit"])
    n_run = spec.n_active_params if spec.is_moe else spec.n_params
    target = float(sc.loss(n_run, p["train_tokens"], fit))
    opt = sc.inference_adjusted_optimum(target, p["inference_tokens_lifetime"], fit)
    ref = sc.reference_serving_cost(spec, gpu, _price(p), p["inference_prompt_tokens"],
                                    p["inference_output_tokens"], tp=p["serve_tp"],
                                    batch=p["serve_batch"],
                                    weight_dtypes=(p["serve_weight_dtype"],),
                                    kv_dtype=p["serve_kv_dtype"], occupancy=p["serve_occupancy"],
                                    max_tpot_s=p["serve_max_tpot_s"])
    return {"loss": target, "optimum_n_params": opt.n_params,
            "usd_per_m_output": ref.usd_per_m_output}


def _nb07(p, private):
    spec, gpu = load_model(p["model"]), scenario_accelerator(p)
    per_node = gpu.per_host
    q = failure_values(p, per_node)  # as its cell 3: the bill's failure model (spot pre-emptions)
    run = training_run(spec, gpu, p["train_tokens"], p["mfu"], p["n_gpus"], _price(p),
                       seq_len=p["seq_len"], dtype=p["dtype"])
    q["ckpt_storage_bytes_per_s"], _ = rel.scenario_storage_bytes_per_s(
        q, spec.n_params, run["gpu_hours"], _price(p), per_node)
    plan = rel.scenario_checkpoint_plan(q, spec.n_params, per_node,
                                        run_s=rel.run_work_s(run["gpu_hours"], p["n_gpus"]))
    spares = rel.hot_spare_table(plan, per_node, rel.node_replacement_s(q["ckpt_restart_s"]),
                                 planned_per_day=q["fail_planned_per_day"])
    return {"goodput": float(spares["goodput"].iloc[0]), "interval_s": plan.interval_s,
            "plan_goodput": float(plan.goodput)}


def _nb08(p, private):
    spec, gpu = load_model(p["model"]), load_accelerator(p["accelerator"])
    g_bill = build_ledger(_bill_values(p, private)).figures["goodput"]  # as its cell 21
    hours, g, claim = scenario_as_claim(spec, p["train_tokens"], gpu, p["n_gpus"], p["mfu"],
                                        dtype=p["dtype"], seq_len=p["seq_len"],
                                        pricing=p["pricing"], goodput=g_bill)
    return {"gpu_hours": hours, "goodput": g, "verdict": claim.verdict}


def _nb09(p, private):
    """Notebook 09's set-up and the levers that depend on the hardware and the plan (FP8, the
    fastest plan, recomputation), priced as ``rank_levers`` prices them; the false economies
    (checkpoints, spot, FP8). The hardware sweep over the whole catalogue is the same for every
    scenario but its model and is left out (tests/test_levers.py runs it)."""
    scenario = {**p, **private}
    bill = levers.bill(scenario)
    ranked = levers.rank_levers(scenario, keys=["fp8_training", "best_plan",
                                                "activation_recompute"], samples=200)
    fe = levers.false_economies(scenario)
    levers.smaller_model_longer(scenario)
    return {"total_usd": bill.total_usd, "false_economies": len(fe),
            "fp8_note": ranked.set_index("key").loc["fp8_training", "note"]}


def _nb10(p, private):
    return {"terms": len(load_glossary())}


#: Notebook number -> the function that computes its scenario-dependent results.
NOTEBOOK_RESULTS = {"00": _nb00, "01": _nb01, "02": _nb02, "03": _nb03, "04": _nb04,
                    "04b": _nb04b, "05": _nb05, "06": _nb06, "07": _nb07, "08": _nb08, "09": _nb09,
                    "10": _nb10}


def notebook_results(nb: str, values: dict, private: dict | None = None) -> dict:
    """The scenario-dependent computations of notebook ``nb`` ("00" … "10", "04b", or its stem) on
    ``values`` (module docstring). Raises ``ScenarioError`` (a ValueError) naming the reason when
    the scenario cannot be computed; any other exception is a defect."""
    key = notebook_number(nb) if "_" in str(nb) else str(nb)
    if key not in NOTEBOOK_RESULTS:
        raise ValueError(f"nb={nb!r} must be one of {', '.join(NOTEBOOK_RESULTS)}")
    try:
        out = NOTEBOOK_RESULTS[key](values, private or {})
    except ScenarioError:
        raise
    except ValueError as e:  # a layer below refused: the reason, as a ScenarioError
        raise ScenarioError(f"notebook {key}: {e}") from None
    for k, v in out.items():
        if isinstance(v, float) and math.isnan(v):
            raise ScenarioError(f"notebook {key}: {k} is NaN")
    return out
