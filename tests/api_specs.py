"""The argument specs of every name in ``llmcost.__all__``: what tests/test_public_api.py feeds
each public entry point to check that odd input gets a ``ValueError`` naming the argument.

**Adding a public function?** Add one entry to ``SPECS`` below, keyed by its name in
``llmcost.__all__``, or tests/test_public_api.py fails for it:

    "my_function": Spec(valid=dict(n_params=7e9, accelerator="H100-SXM"),
                        args={"n_params": "positive", "accelerator": "accelerator"}),

* ``valid``: keyword arguments of one correct call (it is run once, so keep it cheap);
* ``args``: the arguments to attack, each with a kind from ``ODD_VALUES`` (numbers: positive,
  nonnegative, count, count0, fraction, number, mtbf; names: choice, model, accelerator, str,
  path; objects: plan, cluster, target, scenario, callable, efficiency, options, runs,
  model_or_params, phases, keywords, ledger, draws, names, mapping, frame, change, lever_keys,
  run_list, columns, input_names; shares: share; yes/no: flag; formatting: digits). Append ``|none`` when ``None`` is a
  valid value (a default meaning "choose"), so that ``None`` is not used as an odd value;
* ``shown`` (optional): the name the error message uses, where it is not the argument's own
  (``validate_parameter(name, value)`` names the parameter, e.g. ``n_gpus=...``).

**Every argument** of every entry point needs a kind (``args``, or ``MORE_ARGS*`` below):
``test_every_public_argument_is_specified`` fails otherwise, and so it does for a public function
of ``llmcost.ledger`` / ``llmcost.levers`` without an entry in ``module_specs`` (or ``INTERNAL``,
for the few that take the bill's own validated internals).

Names that are not entry points say so: ``NOT_CALLABLE`` (modules, constants), ``RESULT`` (a
result type the package builds, not user input) and ``EXCEPTION``. Functions another helper is
rewriting (step.py) are specified from their signature of today; update the entry with the new
signature when it changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

NAN, INF = float("nan"), float("inf")

#: The odd values of each kind; every one must give a ValueError that names the argument.
ODD_VALUES = {
    "positive": [NAN, INF, -1.0, 0.0, "3", None, {}, [1.0, "x"], np.array([1.0, -1.0])],
    "nonnegative": [NAN, INF, -1.0, "3", None, {}, np.array([1.0, -1.0])],
    "count": [NAN, INF, -1, 0, 2.5, "3", None, {}, np.array([2.0, 2.5]), 2**70],
    "count0": [NAN, INF, -1, 2.5, "3", None, {}, 2**70],
    # a random seed: any whole number >= 0 numpy takes (2**70 too: it never enters a double)
    "seed": [NAN, INF, -1, 2.5, "3", None, {}],
    "fraction": [NAN, INF, -0.1, 0.0, 1.5, "0.4", None, {}, np.array([0.5, 1.5])],
    "fraction|none": [NAN, INF, -0.1, 0.0, 1.5, "0.4", {}, np.array([0.5, 1.5])],
    "choice": ["no-such-option", 3.5, {}],
    "model": ["no-such-model", 3.5e9, None, {}, []],
    "accelerator": ["no-such-gpu", None, {}, [], -1.0],
    "str": [3, {}, None],
    "number": ["3", None, {}, [1.0, 2.0]],
    "mtbf": [NAN, -1.0, 0.0, "3", None, {}, np.array([1.0, -1.0])],  # inf: a job that never fails
    "path": [3, None, "/no/such/scenario.yaml"],
    "plan": [None, "tp8", 3],
    "cluster": [None, "H100-SXM-cluster", 3],
    "target": [None, 3, "target"],
    "scenario": [None, 3, "n_gpus: 8", []],
    "callable": [None, 3.0, "f"],
    # yes/no arguments: a string is refused, not read as true (bool("false") is True)
    "flag": ["false", "true", 1, None, {}],
    "digits": [0, 2.5, "3", None],
    "efficiency": ["x", 3, {}],
    # a share in [0, 1] (0 allowed)
    "share": [NAN, INF, -0.1, 1.5, "0.4", {}, np.array([0.5, 1.5])],
    # a StepOptions object (None: the defaults)
    "options": ["x", 3, {}],
    # input name -> random-number key (simulate_ledger's keys)
    "keys": ["x", 3, {"mfu": 3}, {"mfu": ""}, {3: "mfu"}],
    # a table of published runs shaped like load_published_runs() (None: the catalogue)
    "runs": ["runs.csv", 3, {}],
    # a helper model: a ModelSpec, a catalogue name or a parameter count
    "model_or_params": ["no-such-model", NAN, INF, -1.0, 0.0, {}, []],
    # phase name -> GPU-hours
    "phases": ["pretraining", 3, {"pretraining": -1.0}, {"pretraining": "x"}, {"": 1e3}],
    # a bill (ledger.build_ledger's Ledger), its draws (simulate_ledger's LedgerDraws)
    "ledger": [None, 3, "bill", {}],
    "draws": [None, 3, {}],
    # one line of a bill (Ledger.line(key))
    "line": [None, 3, "data.synthetic", {}],
    # two column labels
    "names": ["AB", ("A",), 3, ("A", 3)],
    # a mapping (of scenario values)
    "mapping": [None, 3, "n_gpus: 8", []],
    # an optional mapping (None: none given)
    "optional_mapping": [3, "n_gpus: 8", []],
    # a table (a DataFrame)
    "frame": [None, 3, "x", {}],
    # a lever's Change (levers.Change)
    "change": [None, 3, "x", {}],
    # a list of lever keys
    "lever_keys": ["no-such-lever", 3, ["no-such-lever"], [3]],
    # a list of runs (dicts with a scenario and tags)
    "run_list": [None, 3, "x", [3]],
    # column names
    "columns": [3, ["no-such-column"], [3]],
    # a collection of scenario input names
    "input_names": [None, 3, "mfu", [3]],
    # a dict of keyword arguments
    "keywords": ["tp8", 3, [], {"no_such_key": 1}],
    # a (seq_len, head_dim) of whole numbers >= 1
    "shape": [(4096,), (4096, 0), (4096.0, 128), (True, 128), "4096x128", 3, [4096, 128]],
}

NOT_CALLABLE = "not callable"
RESULT = "result type"
EXCEPTION = "exception"


@dataclass(frozen=True)
class Spec:
    valid: dict
    args: dict = field(default_factory=dict)
    #: The name an error message uses for an argument, where it is not the argument's own name
    #: (``load_model(name)`` says ``model='x' is not in the catalogue``).
    shown: dict = field(default_factory=dict)


def _ranked_levers():
    import pandas as pd
    return pd.DataFrame({"lever": ["a"], "saving_usd": [1.0], "saving_p10_usd": [0.5],
                         "saving_p90_usd": [2.0]})


def _tiny():
    from llmcost import ModelSpec
    return ModelSpec(name="tiny", n_layers=4, d_model=256, n_heads=4, vocab_size=1000,
                     d_ff=1024, seq_len=512)


def _plan():
    import llmcost
    return llmcost.make_plan(_tiny(), 8, 8, tp=2, pp=2, seq_len=512)


def _cluster():
    import llmcost
    return llmcost.Cluster(llmcost.load_accelerator("H100-SXM"), 8)


def _target():
    import llmcost
    return llmcost.batch_target(7e9, train_tokens=1e11, global_batch_tokens=2**21)


def _serve_usd_per_token(n_params):
    """A serving cost that grows with model size (2 FLOP per parameter at $1e-18 per FLOP)."""
    return 2e-18 * n_params


def _rl_iteration():
    import llmcost
    return llmcost.rl_iteration(_tiny(), "H100-SXM")


def specs() -> dict:
    """The specs, built lazily (valid calls need a model, a plan, a cluster), with
    ``MORE_ARGS`` merged in."""
    out = _specs()
    for name, extra in MORE_ARGS.items():
        out[name] = Spec(out[name].valid, {**out[name].args, **extra}, out[name].shown)
    return out


def _specs() -> dict:
    import llmcost

    tiny, plan, cluster = _tiny(), _plan(), _cluster()
    acc = "H100-SXM"
    mfu_common = dict(model=tiny, accelerator=acc)
    return {
        # ---- not entry points
        "DATA_DIR": NOT_CALLABLE, "SCENARIO_DIR": NOT_CALLABLE, "PARAMETERS": NOT_CALLABLE,
        "RECIPES": NOT_CALLABLE, "batch": NOT_CALLABLE, "comm": NOT_CALLABLE,
        "step": NOT_CALLABLE, "StepBreakdown": RESULT, "ScenarioError": EXCEPTION,
        "DoesNotFit": EXCEPTION,
        # ---- catalogues
        "Accelerator": Spec(dict(name="x", peak_bf16_flops_per_s=1e15, hbm_bytes=8e10),
                            {"peak_bf16_flops_per_s": "positive", "hbm_bytes": "positive|none"}),
        "Cluster": Spec(dict(accelerator=llmcost.load_accelerator(acc), n_gpus=8),
                        {"accelerator": "accelerator", "n_gpus": "count",
                         "scaleout_bytes_per_s_per_dir": "positive|none"}),
        "ModelSpec": Spec(dict(name="m", n_layers=4, d_model=256, n_heads=4, vocab_size=1000,
                               d_ff=1024),
                          {"name": "str", "n_layers": "count", "d_model": "count",
                           "n_heads": "count", "vocab_size": "count", "d_ff": "count0",
                           "ffn_type": "choice", "seq_len": "count"}),
        "Efficiency": Spec(dict(accelerator="x", matmul_fraction=0.7, attention_fraction=0.5,
                                hbm_fraction=0.9, scaleup_fraction=0.8, scaleout_fraction=0.8),
                           {"matmul_fraction": "fraction", "scaleup_fraction": "fraction",
                            "base_latency_s": "nonnegative"}),
        "catalogue_price": Spec(dict(accelerator=acc), {"accelerator": "accelerator",
                                                        "pricing": "choice"}),
        "list_accelerators": Spec({}), "list_models": Spec({}), "load_published_runs": Spec({}),
        "list_prices": Spec({}, {"accelerator": "accelerator|none", "pricing": "choice"}),
        "load_accelerator": Spec(dict(name=acc), {"name": "accelerator"},
                                 shown={"name": "accelerator"}),
        "load_model": Spec(dict(name="llama-2-70b"), {"name": "model"}, shown={"name": "model"}),
        "load_efficiency": Spec(dict(accelerator=acc), {"accelerator": "accelerator"}),
        # ---- FLOPs, GPU-hours, cost (notebook 01)
        "training_flops": Spec(dict(model_or_n_params=7e9, n_tokens=1e12),
                               {"model_or_n_params": "positive", "n_tokens": "positive",
                                "method": "choice", "recompute": "choice",
                                "seq_len": "count|none", "causal": "flag"}),
        "gpu_seconds": Spec(dict(flops=1e21, accelerator=acc, mfu=0.4),
                            {"flops": "nonnegative", "accelerator": "accelerator",
                             "mfu": "fraction", "dtype": "choice"}),
        "gpu_hours": Spec(dict(flops=1e21, accelerator=acc, mfu=0.4),
                          {"flops": "nonnegative", "accelerator": "accelerator",
                           "mfu": "fraction"}),
        "wall_clock_s": Spec(dict(flops=1e21, accelerator=acc, mfu=0.4, n_gpus=8),
                             {"flops": "nonnegative", "mfu": "fraction", "n_gpus": "count"}),
        "compute_cost_usd": Spec(dict(gpu_hours_=1e3, price_usd_per_gpu_hour=2.0),
                                 {"gpu_hours_": "nonnegative",
                                  "price_usd_per_gpu_hour": "positive"}),
        "model_flops_per_token": Spec(dict(model=tiny), {"model": "model", "seq_len": "count|none",
                                                         "method": "choice", "causal": "flag"}),
        "mfu_from_throughput": Spec(dict(tokens_per_s_per_gpu=1e3, **mfu_common),
                                    {"tokens_per_s_per_gpu": "positive", "model": "model",
                                     "accelerator": "accelerator", "seq_len": "count|none",
                                     "dtype": "choice", "method": "choice", "causal": "flag"}),
        "mfu_from_gpu_hours": Spec(dict(n_tokens=1e12, reported_gpu_hours=1e5, **mfu_common),
                                   {"n_tokens": "positive", "reported_gpu_hours": "positive",
                                    "model": "model", "accelerator": "accelerator",
                                    "seq_len": "count|none", "dtype": "choice",
                                    "method": "choice", "causal": "flag"}),
        "tokens_per_s_per_gpu_at_mfu": Spec(dict(mfu=0.4, **mfu_common),
                                            {"mfu": "fraction", "model": "model",
                                             "accelerator": "accelerator",
                                             "seq_len": "count|none"}),
        "hfu_from_mfu": Spec(dict(mfu=0.4, model=tiny),
                             {"mfu": "fraction", "model": "model", "seq_len": "count|none",
                              "recompute": "choice", "causal": "flag"}),
        "training_run": Spec(dict(model=tiny, accelerator=acc, n_tokens=1e12, mfu=0.4, n_gpus=8,
                                  price_usd_per_gpu_hour=2.0),
                             {"model": "model", "accelerator": "accelerator",
                              "n_tokens": "positive", "mfu": "fraction", "n_gpus": "count",
                              "price_usd_per_gpu_hour": "positive", "seq_len": "count|none",
                              "dtype": "choice", "method": "choice", "causal": "flag"}),
        "flops_per_token_conventions": Spec(dict(model=tiny), {"model": "model",
                                                               "seq_len": "count|none"}),
        "published_run_mfu": Spec({}),
        "catalogue_training_costs": Spec(dict(accelerator=acc, mfu=0.4,
                                              price_usd_per_gpu_hour=2.0),
                                         {"accelerator": "accelerator", "mfu": "fraction",
                                          "price_usd_per_gpu_hour": "positive"}),
        # ---- scenarios and formatting
        "load_scenario": Spec(dict(path=str(llmcost.SCENARIO_DIR / "default.yaml")),
                              {"path": "path"}),
        "resolve_price": Spec(dict(accelerator=acc, price_usd_per_gpu_hour=2.0),
                              {"accelerator": "accelerator",
                               "price_usd_per_gpu_hour": "positive|none", "pricing": "choice"}),
        "validate_parameter": Spec(dict(name="n_gpus", value=8), {"value": "count",
                                                                  "name": "choice"},
                                   shown={"value": "n_gpus", "name": "parameter"}),
        "validate_parameters": Spec(dict(n_gpus=8, mfu=0.4), {"n_gpus": "count",
                                                              "mfu": "fraction"}),
        "notebook_parameters": Spec(dict(namespace={"__annotations__": {"n_gpus": int},
                                                    "n_gpus": 8}),
                                    {"namespace": "scenario", "ranged": "flag"}),
        "scenario_price": Spec(dict(scenario={"accelerator": acc}), {"scenario": "scenario"}),
        "fmt_bytes": Spec(dict(n_bytes=1e9), {"n_bytes": "number", "digits": "digits",
                                              "binary": "flag"}),
        "fmt_count": Spec(dict(n=1e9), {"n": "number", "digits": "digits"}),
        "fmt_duration": Spec(dict(seconds=60.0), {"seconds": "number"}),
        "fmt_flops": Spec(dict(flops=1e21), {"flops": "number", "digits": "digits"}),
        "fmt_flops_rate": Spec(dict(flops_per_s=1e15), {"flops_per_s": "number",
                                                        "digits": "digits"}),
        "fmt_usd": Spec(dict(usd=1e6), {"usd": "number"}),
        "fmt_percent": Spec(dict(fraction=0.1468), {"fraction": "number"}),
        "fmt_gpus": Spec(dict(n=8), {"n": "count"}),
        # ---- batch size (notebook 02)
        "batch_target": Spec(dict(model_or_n_params=7e9, train_tokens=1e11,
                                  global_batch_tokens=2**21),
                             {"model_or_n_params": "positive", "train_tokens": "positive|none",
                              "global_batch_tokens": "positive|none",
                              "loss_nats": "positive|none"}),
        "batch_sweep": Spec(dict(target=_target(), batch_tokens=[2**20, 2**21], model=tiny,
                                 accelerator=acc, n_gpus=8, mfu=0.4, price_usd_per_gpu_hour=2.0,
                                 seq_len=512),
                            {"target": "target", "batch_tokens": "positive", "model": "model",
                             "accelerator": "accelerator", "n_gpus": "count", "mfu": "fraction",
                             "price_usd_per_gpu_hour": "positive", "seq_len": "count"}),
        "critical_batch_size": Spec(dict(e_min_tokens=1e10, s_min=1e4),
                                    {"e_min_tokens": "positive", "s_min": "positive"}),
        "kaplan_critical_batch": Spec(dict(loss_nats=2.5), {"loss_nats": "positive"}),
        # ---- memory and parallelism (notebook 03)
        "ParallelPlan": Spec(dict(dp=4, tp=2), {"dp": "count", "tp": "count", "pp": "count",
                                                "recompute": "choice", "schedule": "choice",
                                                "fsdp_shard_size": "count|none"}),
        "bubble_fraction": Spec(dict(pp=4, n_microbatches=8),
                                {"pp": "count", "n_microbatches": "count",
                                 "schedule": "choice", "virtual_stages": "count"}),
        "make_plan": Spec(dict(model=tiny, n_gpus=8, global_batch_size=8, tp=2, pp=2,
                               seq_len=512),
                          {"model": "model", "n_gpus": "count", "global_batch_size": "count",
                           "tp": "count", "pp": "count", "seq_len": "count|none",
                           "fsdp_shard_size": "count|none"}),
        "enumerate_plans": Spec(dict(model=tiny, cluster=cluster, global_batch=8, seq_len=512),
                                {"model": "model", "cluster": "cluster", "global_batch": "count",
                                 "seq_len": "count|none", "fsdp_shard_size": "count|none"}),
        "memory_per_gpu": Spec(dict(model=tiny, plan=plan, seq_len=512),
                               {"model": "model", "plan": "plan", "seq_len": "count|none",
                                "recipe": "choice", "stage": "count0|none"}),
        "memory_breakdown": Spec(dict(model=tiny, plan=plan, seq_len=512),
                                 {"model": "model", "plan": "plan", "seq_len": "count|none",
                                  "recipe": "choice", "flash_attention": "flag",
                                  "dropout": "flag", "stage": "count0|none"}),
        # ---- communication and step time (notebook 04; these follow today's signatures)
        "step_time": Spec(dict(model=tiny, cluster=cluster, plan=plan, seq_len=512),
                          {"model": "model", "cluster": "cluster", "plan": "plan",
                           "seq_len": "count|none", "dtype": "choice", "dropout": "flag",
                           "efficiency": "efficiency", "recipe": "choice", "stack": "choice",
                           "tp_overlap": "choice", "kernel_efficiency": "fraction|none"}),
        "predict_mfu": Spec(dict(model=tiny, cluster=cluster, plan=plan, seq_len=512),
                            {"model": "model", "cluster": "cluster", "plan": "plan",
                             "seq_len": "count|none"}),
        "StepOptions": Spec(dict(), {"dtype": "choice", "moe_gate": "choice",
                                     "hsdp_all_reduce": "choice", "cp_overlap": "choice",
                                     "cp_repeat_kv": "choice",
                                     "kernel_efficiency": "fraction|none",
                                     "missing_features": "choice"}),
        "rank_plans": Spec(dict(model=tiny, cluster=cluster, global_batch=8, seq_len=512),
                           {"model": "model", "cluster": "cluster", "global_batch": "count",
                            "seq_len": "count|none", "dropout": "flag",
                            "within_scaleup_domain": "flag", "efficiency": "efficiency",
                            "bogus": "number"}),
        # ---- checkpoints, failures and goodput (notebook 07)
        "checkpoint_size": Spec(dict(n_params=7e9), {"n_params": "positive", "n_ranks": "count",
                                                     "recipe": "choice", "content": "choice"}),
        "checkpoint_plan": Spec(dict(n_params=7e9, n_gpus=64, fail_rate_per_gpu_year=0.17,
                                     storage_bytes_per_s=1e10, restart_overhead_s=600),
                                {"n_params": "positive", "n_gpus": "count",
                                 "fail_rate_per_gpu_year": "nonnegative",
                                 "storage_bytes_per_s": "positive|none",
                                 "restart_overhead_s": "nonnegative", "recipe": "choice",
                                 "gpus_per_node": "count", "interval_s": "positive|none"}),
        "cluster_mtbf_s": Spec(dict(n_gpus=64, fail_rate_per_gpu_year=0.17),
                               {"n_gpus": "count", "fail_rate_per_gpu_year": "nonnegative"}),
        "young_interval": Spec(dict(checkpoint_s=60, mtbf_s=1e4),
                               {"checkpoint_s": "positive", "mtbf_s": "mtbf"}),
        "daly_interval": Spec(dict(checkpoint_s=60, mtbf_s=1e4),
                              {"checkpoint_s": "positive", "mtbf_s": "mtbf"}),
        "optimal_interval": Spec(dict(checkpoint_s=60, mtbf_s=1e4),
                                 {"checkpoint_s": "positive", "mtbf_s": "mtbf"}),
        "goodput": Spec(dict(interval_s=600, checkpoint_s=60, mtbf_s=1e4),
                        {"interval_s": "positive", "checkpoint_s": "nonnegative",
                         "mtbf_s": "mtbf", "restart_s": "nonnegative"}),
        # ---- added later (inference, RL, the whole bill)
        "ledger": NOT_CALLABLE, "levers": NOT_CALLABLE, "inference": NOT_CALLABLE, "rl": NOT_CALLABLE,
        "Ledger": RESULT,
        # ---- published runs and claims
        "claims": NOT_CALLABLE, "ClaimCheck": RESULT, "published_run_errors": Spec({}),
        "check_claim": Spec(dict(model=tiny, train_tokens=1e9, accelerator=acc, gpu_hours=10.0,
                                 left_out=False),
                            {"model": "model", "train_tokens": "positive",
                             "accelerator": "accelerator", "n_gpus": "count|none",
                             "days": "positive|none", "gpu_hours": "positive|none",
                             "usd": "positive|none", "mfu": "fraction|none", "dtype": "choice",
                             "seq_len": "count|none",
                             "pricing": "choice", "tolerance": "positive", "left_out": "flag",
                             "exclude_own_runs": "flag",
                             "train_flops": "positive|none"}),
        "build_ledger": Spec(dict(scenario={"n_gpus": 64}),
                             {"scenario": "scenario", "check_memory": "flag"}),
        # ---- stragglers: the wait for the slowest GPU
        "straggler": NOT_CALLABLE,
        # ---- GEMM efficiency by shape (issue 28)
        "gemm": NOT_CALLABLE,
        "straggler_slowdown": Spec(dict(n_gpus=1024),
                                   {"n_gpus": "count", "cv": "nonnegative",
                                    "n_calibration": "count"}),
        # ---- ranges on cost inputs
        "LedgerDraws": RESULT, "Range": RESULT,
        "simulate_ledger": Spec(dict(scenario={"n_gpus": 32, "mfu": [0.3, 0.5]}, samples=10),
                                {"scenario": "scenario", "samples": "count", "seed": "seed",
                                 "keys": "keys"}),
        "point_scenario": Spec(dict(scenario={"mfu": [0.3, 0.5]}), {"scenario": "scenario"}),
        "kv_cache_bytes_per_token": Spec(dict(model=tiny), {"model": "model",
                                                            "kv_dtype": "choice"}),
        "kv_cache_bytes": Spec(dict(model=tiny, context_tokens=512),
                               {"model": "model", "context_tokens": "nonnegative",
                                "kv_dtype": "choice"}),
        "max_batch": Spec(dict(model=tiny, accelerator=acc, context_tokens=512),
                          {"model": "model", "accelerator": "accelerator",
                           "context_tokens": "positive", "tp": "count",
                           "reserve_fraction": "nonnegative"}),
        "prefill_time": Spec(dict(model=tiny, accelerator=acc, prompt_tokens=512),
                             {"model": "model", "accelerator": "accelerator",
                              "prompt_tokens": "count", "batch": "positive", "tp": "count"}),
        "decode_step": Spec(dict(model=tiny, accelerator=acc, batch=8, context_tokens=512),
                            {"model": "model", "accelerator": "accelerator",
                             "batch": "positive", "context_tokens": "nonnegative",
                             "tp": "count"}),
        "decode_step_time": Spec(dict(model=tiny, accelerator=acc, batch=8, context_tokens=512),
                                 {"model": "model", "accelerator": "accelerator",
                                  "batch": "positive", "context_tokens": "nonnegative"}),
        "speculative_tokens_per_pass": Spec(dict(acceptance_rate=0.7, draft_tokens=4),
                                            {"acceptance_rate": "nonnegative",
                                             "draft_tokens": "count0"}),
        "serving_cost": Spec(dict(model=tiny, accelerator=acc, price_usd_per_gpu_hour=2.0,
                                  prompt_tokens=512, output_tokens=256),
                             {"model": "model", "accelerator": "accelerator",
                              "price_usd_per_gpu_hour": "positive", "prompt_tokens": "count",
                              "output_tokens": "count", "occupancy": "fraction"}),
        "rl_iteration": Spec(dict(policy=tiny, accelerator=acc),
                             {"policy": "model", "accelerator": "accelerator",
                              "prompts_per_step": "count", "samples_per_prompt": "count",
                              "prompt_tokens": "count", "response_tokens": "positive",
                              "n_gpus": "count"}, shown={"policy": "model"}),
        # ---- added later (compute-optimal scaling, notebook 06)
        "scaling": NOT_CALLABLE, "LOSS_FITS": NOT_CALLABLE,
        "LossFit": Spec(dict(name="f", E=1.69, A=406.4, B=410.7, alpha=0.34, beta=0.28),
                        {"E": "nonnegative", "A": "positive", "alpha": "positive",
                         "beta": "positive"}),
        "compute_optimal": Spec(dict(compute_flops=1e24), {"compute_flops": "positive",
                                                           "fit": "choice"}),
        "inference_adjusted_optimum": Spec(dict(target_loss=2.0, inference_tokens=2e12),
                                           {"target_loss": "positive",
                                            "inference_tokens": "nonnegative",
                                            "fit": "choice"}),
        "inference_adjusted_optimum_usd": Spec(
            dict(target_loss=2.0, inference_tokens=2e12, train_usd_per_flop=1e-18,
                 serve_usd_per_token=_serve_usd_per_token),
            {"target_loss": "positive", "inference_tokens": "nonnegative",
             "train_usd_per_flop": "positive", "serve_usd_per_token": "callable"}),
        "rl_campaign": Spec(dict(iteration=_rl_iteration(), iterations=10),
                            {"iteration": "target", "iterations": "count", "runs": "count",
                             "price_usd_per_gpu_hour": "positive|none"}),
    }


def module_specs() -> dict:
    """Specs of the public functions of ``llmcost.ledger`` and ``llmcost.levers`` (modules in
    ``__all__``, their functions not), keyed ``"module.function"``: the same odd-input test."""
    import llmcost

    s = llmcost.load_scenario(llmcost.SCENARIO_DIR / "default.yaml")
    s = {k: v for k, v in s.items() if k not in ("title", "description")}
    tiny = _tiny()
    return {
        # ---- ledger
        "ledger.lora_adapter_params": Spec(dict(model=tiny, rank=8),
                                           {"model": "model", "rank": "count"}),
        "ledger.check_lora_rank": Spec(dict(model=tiny, rank=8),
                                       {"model": "model", "rank": "count", "field": "str"}),
        "ledger.lora_flops_per_token": Spec(dict(model=tiny, rank=8),
                                            {"model": "model", "rank": "count",
                                             "seq_len": "count|none"}),
        "ledger.energy_mwh": Spec(dict(gpu_hours=1e3, watts_per_gpu=700.0),
                                  {"gpu_hours": "nonnegative", "watts_per_gpu": "positive"}),
        "ledger.tco2e": Spec(dict(mwh=10.0, kg_co2e_per_kwh=0.4),
                             {"mwh": "nonnegative", "kg_co2e_per_kwh": "nonnegative"}),
        "ledger.energy_of": Spec(dict(gpu_hours=1e3, accelerator="H100-SXM"),
                                 {"gpu_hours": "nonnegative", "accelerator": "accelerator",
                                  "pue": "positive|none",
                                  "kg_co2e_per_kwh": "nonnegative|none"}),
        "ledger.format_usd": Spec(dict(usd=1e6), {"usd": "number|none"}),
        "ledger.compute_kind": Spec(dict(pricing="reserved"), {"pricing": "choice"}),
        "ledger.energy_terms": Spec(dict(accelerator="H100-SXM"),
                                    {"accelerator": "accelerator", "pue": "positive|none"}),
        # ---- levers
        "levers.pilot_run": Spec(dict(final_run_usd=1e7, p_bug=0.1, pilot_usd=1e5),
                                 {"final_run_usd": "positive", "p_bug": "nonnegative",
                                  "pilot_usd": "nonnegative",
                                  "found_after_fraction": "fraction"}),
        "levers.break_even_probability": Spec(dict(saving_usd=1e5, loss_usd=1e6),
                                              {"saving_usd": "nonnegative",
                                               "loss_usd": "positive"}),
        "levers.break_even_words": Spec(dict(p=0.2), {"p": "share"}),
        "levers.mark_outside": Spec(dict(ranked=_ranked_levers()), {"ranked": "frame"}),
        "levers.spot_break_even": Spec(dict(discount=0.6), {"discount": "fraction"}),
        "levers.reservation_cost_usd": Spec(
            dict(rate_usd_per_gpu_hour=2.72, n_gpus=8, job_hours=16.0, term_hours=24.0),
            {"rate_usd_per_gpu_hour": "positive", "n_gpus": "count", "job_hours": "positive",
             "term_hours": "positive"}),
        "levers.reservation_offers": Spec(dict(accelerator="H100-SXM"),
                                          {"accelerator": "accelerator"}),
        "levers.no_spot_price_words": Spec(dict(accelerator="TPU v5p"),
                                           {"accelerator": "accelerator"}),
        "levers.spot_offers": Spec(dict(accelerator="A100-80GB"),
                                   {"accelerator": "accelerator"}),
        "levers.fit_budget": Spec(dict(scenario=s, budget_usd=5e6),
                                  {"scenario": "scenario", "budget_usd": "positive|none",
                                   "deadline_days": "positive|none",
                                   "gpu_step": "count|none", "overrun": "flag"}),
        "levers.false_economies": Spec(dict(scenario=s),
                                       {"scenario": "scenario", "checkpoint_factor": "positive",
                                        "precision_restart_fraction": "nonnegative",
                                        "eval_rework_fraction": "nonnegative"}),
        "levers.fine_tune_instead": Spec(dict(scenario=s, fine_tune_tokens=1e10),
                                         {"scenario": "scenario", "fine_tune_tokens": "positive",
                                          "exploratory_fraction": "nonnegative"}),
        "levers.clean_checkpoints": Spec(dict(s=s), {"s": "scenario", "keep_last": "count"}),
        "levers.shorter_retention": Spec(dict(s=s), {"s": "scenario",
                                                     "retention_months": "nonnegative"}),
        "levers.raise_mfu": Spec(dict(s=s), {"s": "scenario", "target": "fraction|none"}),
        "levers.mfu_target": Spec(dict(s=s), {"s": "scenario"}),
        "levers.spot_for_ablations": Spec(dict(scenario=s), {"scenario": "scenario",
                                                             "ablation_gpus": "count",
                                                             "before_bill": "ledger|none",
                                                             "samples": "count",
                                                             "seed": "seed"}),
        "levers.bill_draws": Spec(dict(scenario={**s, "mfu": [0.3, 0.5]}, samples=10),
                                  {"scenario": "scenario", "samples": "count", "seed": "seed"}),
        "levers.cost_per_point": Spec({}, {"series": "frame|none",
                                           "price_usd_per_gpu_hour": "positive|none",
                                           "accelerator": "accelerator|none"}),
        "levers.format_saving": Spec(dict(usd=1e6), {"usd": "number|none"}),
        # ---- the remaining public functions of ledger and levers
        **_more_module_specs(tiny),
    }


def _more_module_specs(tiny) -> dict:
    import llmcost

    small = {"n_gpus": 32}  # a 70B whose states fit (18 B per parameter: 17 GPUs at least)
    bill = llmcost.ledger.build_ledger(small)
    draws = llmcost.ledger.simulate_ledger({"n_gpus": 32, "mfu": [0.3, 0.5]}, samples=10)
    change = llmcost.levers.dedupe_datasets(small)
    portfolio = llmcost.levers.example_portfolio(small)
    ranked = llmcost.levers.rank_levers(small, keys=["dedupe_datasets"], samples=10)
    one_scenario = ("async_checkpoints", "best_plan", "cheapest_provider", "dedupe_datasets",
                    "fix_data_loading",
                    "fp8_training", "fp8_unavailable", "kill_forgotten_debug_jobs", "newer_stack",
                    "optimal_checkpoint_interval", "pipeline_free_gpus",
                    "release_failed_allocations",
                    "resumable_training", "reserved_pricing", "rl_fp8_rollouts",
                    "rl_partial_rollouts",
                    "spot_pricing", "spot_without_checkpoints")
    one_named = ("bill", "checkpoint_plan_of", "example_portfolio", "hardware_sweep",
                 "has_ranges", "ledger_scenario", "predicted_step", "smaller_model_longer")
    return {
        "ledger.as_of_dates": Spec({}), "ledger.git_commit": Spec({}),
        "ledger.count_gap_words": Spec(dict(ledger=bill), {"ledger": "ledger"}),
        "ledger.difference": Spec(dict(a=1.0, b=2.0), {"a": "number", "b": "number"}),
        "ledger.changed_lines": Spec(dict(side=llmcost.ledger.compare(bill, bill)),
                                     {"side": "frame"}),
        "ledger.build_ledger": Spec(dict(scenario=small), {"scenario": "scenario",
                                                            "check_memory": "flag"}),
        "ledger.simulate_ledger": Spec(dict(scenario={"n_gpus": 32, "mfu": [0.3, 0.5]},
                                            samples=10),
                                       {"scenario": "scenario", "samples": "count",
                                        "seed": "seed", "keys": "keys"}),
        "ledger.mfu_draw_keys": Spec(dict(a=bill, b=bill), {"a": "ledger", "b": "ledger"}),
        "ledger.with_changes": Spec(dict(ledger_or_scenario=small, n_gpus=64),
                                    {"ledger_or_scenario": "scenario", "n_gpus": "count"}),
        "ledger.scenario_ranges": Spec(dict(values={"mfu": 0.4}), {"values": "mapping"}),
        "ledger.netting_usd": Spec(dict(n={"usd_per_gpu_hour": 2.0, "netted": {"RL": 10.0},
                                           "netted_gpu_hours": 10.0, "gross_gpu_hours": 50.0}),
                                   {"n": "mapping"}),
        "ledger.claim_questions": Spec(dict(ledger=bill), {"ledger": "ledger",
                                                           "scenario": "optional_mapping"}),
        "ledger.plan_questions": Spec(dict(ledger=bill), {"ledger": "ledger",
                                                          "scenario": "optional_mapping"}),
        "ledger.illustrative_ranges": Spec(dict(bill=bill), {"bill": "ledger"}),
        "ledger.given_mfu_range": Spec(dict(bill=bill), {"bill": "ledger"}),
        "ledger.own_ranged_scenario": Spec(dict(bill=bill), {"bill": "ledger"}),
        "ledger.exploratory_words": Spec(dict(bill=bill), {"bill": "ledger"}),
        "ledger.multiplier_counts": Spec(dict(parts=["the rerun reserve"]),
                                         {"parts": "input_names"}),
        "ledger.exploratory_note": Spec(dict(bill=bill), {"bill": "ledger"}),
        "ledger.exploratory_all_clamped": Spec(dict(bill=bill), {"bill": "ledger"}),
        "ledger.refuse_post_training_only": Spec(
            dict(scenario={"train_tokens": 1e12}, what="a budget fits the tokens"),
            {"scenario": "scenario", "what": "str"}),
        "ledger.post_training_illustration": Spec(dict(bill=bill), {"bill": "ledger"}),
        "ledger.at_mfu": Spec(dict(bill=bill, mfu=0.45), {"bill": "ledger", "mfu": "fraction"}),
        "ledger.exploratory_as_fraction": Spec(dict(bill=bill), {"bill": "ledger"}),
        "ledger.exploratory_fraction_bounds": Spec(
            dict(scenario={"ledger_exploratory_fraction": 0.5}), {"scenario": "scenario"}),
        "ledger.exploratory_shift_words": Spec(dict(a=bill, b=bill),
                                               {"a": "ledger", "b": "ledger",
                                                "names": "names"}),
        "levers.storage_moved_words": Spec(dict(before=bill, after=bill),
                                           {"before": "ledger", "after": "ledger"}),
        "levers.beyond_line_words": Spec(dict(before=bill, after=bill),
                                         {"before": "ledger", "after": "ledger"}),
        "ledger.unranged_inputs": Spec(dict(bill=bill, ranged=["mfu"]),
                                       {"bill": "ledger", "ranged": "input_names"}),
        "ledger.headline_draws": Spec(dict(scenario={"n_gpus": 32, "mfu": [0.3, 0.5]},
                                           samples=10),
                                      {"scenario": "scenario", "samples": "count",
                                       "seed": "seed"}),
        "ledger.bill_bars": Spec(dict(draws=draws), {"draws": "draws", "min_share": "share"}),
        "ledger.headline_state": Spec(dict(kinds={"mfu": "scenario"}), {"kinds": "mapping"}),
        "ledger.range_basis": Spec(dict(kinds={"mfu": "predicted"}), {"kinds": "mapping"}),
        "ledger.point_outside": Spec(dict(point=1.0, p10=0.5, p90=2.0),
                                     {"point": "number", "p10": "number", "p90": "number",
                                      "printed": "callable"}),
        "ledger.input_words": Spec(dict(key="mfu"), {"key": "str"}),
        "ledger.input_range_words": Spec(dict(key="mfu", p10=0.3, p90=0.5),
                                         {"key": "str", "p10": "number", "p90": "number"}),
        "ledger.spot_verdict": Spec(dict(bill=bill), {"bill": "ledger"}),
        "ledger.served_illustration": Spec(dict(bill=bill,
                                                counts={"ledger_synthetic_tokens": 1e9}),
                                           {"bill": "ledger", "counts": "mapping"}),
        "ledger.served_amounts": Spec(dict(line=llmcost.ledger.build_ledger(
            {**small, "ledger_synthetic_tokens": 1e9}).line("data.synthetic")),
            {"line": "line"}),
        "ledger.compare": Spec(dict(a=bill, b=bill), {"a": "ledger", "b": "ledger",
                                                      "names": "names"}),
        "ledger.compare_draws": Spec(dict(a=draws, b=draws), {"a": "draws", "b": "draws",
                                                              "names": "names"}),
        "ledger.spend_timeline": Spec(dict(ledger=bill),
                                      {"ledger": "ledger", "budget_usd": "positive|none",
                                       "thresholds": "positive", "n_points": "count"}),
        "ledger.lora_gpu_hours": Spec(dict(model=tiny, rank=8, tokens=1e9, seq_len=512,
                                           peak_flops_per_s=1e15, mfu=0.4),
                                      {"model": "model", "rank": "count", "tokens": "nonnegative",
                                       "seq_len": "count|none", "peak_flops_per_s": "positive",
                                       "mfu": "fraction", "goodput": "fraction"}),
        **{f"levers.{n}": Spec(dict(s=small), {"s": "scenario"}) for n in one_scenario},
        **{f"levers.{n}": Spec(dict(scenario=small), {"scenario": "scenario"})
           for n in one_named},
        "levers.activation_recompute": Spec(dict(s=small), {"s": "scenario",
                                                            "recompute": "choice",
                                                            "n_gpus": "count|none"}),
        "levers.move_to": Spec(dict(s=small, accelerator="A100-80GB"),
                               {"s": "scenario", "accelerator": "accelerator"}),
        "levers.fixed_plan_keys": Spec(dict(s=small), {"s": "scenario"}),
        "levers.kept_plan": Spec(dict(s=small, changes={"recompute": "full"}),
                                 {"s": "scenario", "changes": "mapping",
                                  "forced": "input_names"}),
        "levers.on_hardware": Spec(dict(s=small, accelerator="A100-80GB"),
                                   {"s": "scenario", "accelerator": "accelerator"}),
        "levers.fp8_recipe_on": Spec(dict(s=small, accelerator="A100-80GB"),
                                     {"s": "scenario", "accelerator": "accelerator"}),
        "levers.hardware_change": Spec(dict(before="H100-SXM", after="MI300X"),
                                       {"before": "accelerator", "after": "accelerator"},
                                       {"before": "accelerator", "after": "accelerator"}),
        "levers.apply_levers": Spec(dict(scenario=small, keys=["dedupe_datasets"]),
                                    {"scenario": "scenario", "keys": "lever_keys"}),
        "levers.gpu_hours": Spec(dict(b=bill), {"b": "ledger"}),
        "levers.improvement_series": Spec({}),
        "levers.portfolio": Spec(dict(runs=portfolio), {"runs": "run_list"}),
        "levers.attribute": Spec(dict(frame=llmcost.levers.portfolio(portfolio)),
                                 {"frame": "frame", "by": "columns"}),
        "levers.saving_summary": Spec(dict(before_draws=[2.0, 3.0], after_draws=[1.0, 2.0]),
                                      {"before_draws": "nonnegative",
                                       "after_draws": "nonnegative"}),
        "levers.price_lever": Spec(dict(key="dedupe_datasets", name="Dedupe", group="waste",
                                        before=small, change=change, samples=10),
                                   {"key": "str", "name": "str", "group": "str",
                                    "before": "scenario", "change": "change",
                                    "samples": "count", "seed": "seed",
                                    "before_bill": "ledger|none"}),
        "levers.rank_levers": Spec(dict(scenario=small, keys=["dedupe_datasets"], samples=10),
                                   {"scenario": "scenario", "keys": "lever_keys|none",
                                    "samples": "count", "seed": "seed",
                                    "sweep": "frame|none"}),
        "levers.top_levers": Spec(dict(ranked=ranked), {"ranked": "frame", "n": "count"}),
        "levers.hardware_headline": Spec(dict(sweep=pd.DataFrame([dict(
            accelerator="H100-SXM", scenario=True, rankable=False, bill_calibrated_usd=1e6,
            price_basis="the scenario's price", price_usd_per_gpu_hour=2.0,
            price_source="the scenario's own price")])), {"sweep": "frame"}),
    }


#: Public-named functions of ledger and levers that take the bill's own validated internals
#: (a Range, the prediction dict ``report.resolve_mfu`` sets, a resolved scenario), called by
#: the package between modules, not by a reader: no odd-input spec.
INTERNAL = {
    "levers.central_prediction": "a scenario hardware_sweep and move_to already cleaned",
    "ledger.point_word": "a Range the ledger built",
    "ledger.predicted_mfu_range": "report.resolve_mfu's prediction dict",
    "ledger.predicted_band_of": "a scenario whose mfu report.resolve_mfu predicted",
    "ledger.predicted_mfu_source": "report.resolve_mfu's prediction dict",
    "ledger.predicted_mfu_words": "report.resolve_mfu's prediction dict",
    "ledger.scenario_mfu_source": "a validated scenario's values",
    "ledger.provisioned_storage": "a validated point scenario and its bill",
    "ledger.sized_storage": "the ledger's resolved inputs (spec, values, rates)",
    "ledger.failure_model": "a validated scenario's values and its GPUs per node",
    "ledger.failure_values": "a validated scenario's values (notebook 07's p) and its GPUs per node",
    "ledger.spot_preemptions_per_node_day": "a validated scenario's values",
    "ledger.price_draws": "the ledger's pricing function and validated values with draws",
}


#: The remaining arguments of the public functions (flags, names, magnitudes), merged into
#: ``specs()``: every argument of every entry point is attacked.
MORE_ARGS = {
    "gpu_hours": {"dtype": "choice"},
    "catalogue_training_costs": {"dtype": "choice"},
    "tokens_per_s_per_gpu_at_mfu": {"dtype": "choice", "method": "choice", "causal": "flag"},
    "wall_clock_s": {"accelerator": "accelerator", "dtype": "choice"},
    "list_prices": {"current_only": "flag"},
    "batch_sweep": {"micro_batch_size": "count", "tp": "count", "dtype": "choice",
                    "comm_s_per_step": "nonnegative"},
    "batch_target": {"b_noise_tokens": "positive|none"},
    "ParallelPlan": {"cp": "count", "ep": "count", "virtual_stages": "count",
                     "micro_batch_size": "count", "n_microbatches": "count",
                     "sequence_parallel": "flag", "pp_split": "choice", "etp": "count|none"},
    "bubble_fraction": {"relative_to": "choice"},
    "make_plan": {"cp": "count", "ep": "count", "dp": "count|none", "virtual_stages": "count",
                  "micro_batch_size": "count", "recompute": "choice", "schedule": "choice",
                  "sequence_parallel": "flag", "pp_split": "choice", "etp": "count|none"},
    "memory_per_gpu": {"flash_attention": "flag", "dropout": "flag"},
    "enumerate_plans": {"recipe": "choice", "flash_attention": "flag", "dropout": "flag",
                        "include_rejected": "flag", "hbm_bytes": "positive|none",
                        "pp_split": "choice"},
    "rank_plans": {"train_tokens": "positive|none", "recipe": "choice", "dtype": "choice",
                   "tp_overlap": "choice", "kernel_efficiency": "fraction|none",
                   "stack": "choice"},
    "step_time": {"pp_overlap": "choice", "dp_overlap": "choice"},
    "checkpoint_plan": {"node_bytes_per_s": "positive|none", "d2h_bytes_per_s": "positive",
                        "async_": "flag", "planned_per_day": "nonnegative",
                        "checkpoint_bytes": "positive|none", "max_storage_duty": "fraction"},
    "checkpoint_size": {"loader_rng_bytes_per_rank": "nonnegative"},
    "decode_step": {"weight_dtype": "choice", "kv_dtype": "choice",
                    "tokens_per_sequence": "count", "efficiency": "efficiency"},
    "decode_step_time": {"weight_dtype": "choice", "kv_dtype": "choice", "tp": "count",
                         "tokens_per_sequence": "count", "efficiency": "efficiency"},
    "max_batch": {"weight_dtype": "choice", "kv_dtype": "choice"},
    "prefill_time": {"weight_dtype": "choice", "kv_dtype": "choice", "efficiency": "efficiency"},
    "serving_cost": {"weight_dtype": "choice", "kv_dtype": "choice", "tp": "count",
                     "max_tpot_s": "positive|none", "draft_tokens": "count0",
                     "reserve_fraction": "nonnegative", "efficiency": "efficiency",
                     "batch": "positive|none"},
    "rl_iteration": {"algorithm": "choice", "ppo_epochs": "count",
                     "reference": "flag", "rollout_tp": "count", "prefix_sharing": "flag",
                     "asynchronous": "flag", "partial_rollouts": "flag",
                     "train_mfu": "fraction|none",  # None: the step-time model's MFU
                     "verifier_s": "nonnegative", "verifier_usd_per_sample": "nonnegative",
                     "weight_dtype": "choice", "off_policy_steps": "count"},
    "inference_adjusted_optimum_usd": {"fit": "choice"},
    "Cluster": {"scaleup_domain_size": "count|none",
                "scaleup_bytes_per_s_per_dir": "positive|none"},
    "Accelerator": {"peak_fp8_flops_per_s": "positive|none", "hbm_bytes_per_s": "positive|none",
                    "tdp_w": "positive|none", "scaleup_domain_size": "count|none"},
    "ModelSpec": {"n_kv_heads": "count|none", "n_experts": "count0", "tied_embeddings": "flag",
                  "norm": "choice", "attention": "choice", "sliding_window": "count0"},
    "Efficiency": {"attention_fraction": "fraction", "hbm_fraction": "fraction",
                   "scaleout_fraction": "fraction"},
    "LossFit": {"B": "positive"},
}

#: A further round of arguments (names, MoE and attention shapes, serving and RL options).
MORE_ARGS_2 = {
    "Accelerator": {"name": "str", "peak_fp32_flops_per_s": "positive|none",
                    "peak_tf32_flops_per_s": "positive|none",
                    "scaleup_bytes_per_s_per_dir": "positive|none",
                    "scaleout_bytes_per_s_per_dir": "positive|none"},
    "Cluster": {"scaleout_latency_s": "nonnegative|none"},
    "ModelSpec": {"d_head": "count|none", "bias": "choice", "pos_encoding": "choice",
                  "n_experts_active": "count0", "n_shared_experts": "count0",
                  "d_ff_expert": "count0", "n_dense_layers": "count0",
                  "moe_layer_interval": "count", "q_lora_rank": "count0",
                  "kv_lora_rank": "count0", "qk_norm": "choice", "norms_per_layer": "count0",
                  "attention_sinks": "flag", "router_bias": "flag", "embedding_norm": "flag",
                  "glu_limit": "nonnegative", "context_stated": "flag",
                  "train_tokens": "positive|none", "position_offset": "count0"},
    "ParallelPlan": {"zero_stage": "choice"},
    "make_plan": {"zero_stage": "choice"},
    "enumerate_plans": {"reserve": "nonnegative"},
    "rank_plans": {"pp_overlap": "choice", "dp_overlap": "choice"},
    "checkpoint_plan": {"reshard_fraction": "nonnegative", "settings": "options|none"},
    "serving_cost": {"acceptance_rate": "fraction|none"},
    "rl_iteration": {"rollout_gpus": "count0", "kv_dtype": "choice",
                     "rollout_reserve_fraction": "nonnegative", "efficiency": "efficiency",
                     "weight_sync_s": "nonnegative|none", "max_concurrent": "count|none"},
    "Efficiency": {"scaleup_latency_s": "nonnegative", "scaleout_latency_s": "nonnegative"},
}
#: The last round: every remaining argument of every entry point (catalogue metadata, the
#: enumeration axes, serving windows and drafts, RL lengths and helper models, options objects).
MORE_ARGS_3 = {
    "Accelerator": {"peak_fp4_flops_per_s": "positive|none", "vendor": "str",
                    "year": "count|none", "source": "str", "notes": "str",
                    "accelerators_per_host": "count|none"},
    "ModelSpec": {"max_position_embeddings": "count0", "qk_rope_head_dim": "count0",
                  "v_head_dim": "count0", "n_sliding_layers": "count0|none",
                  "mtp_depth": "count0",
                  "official_params": "positive|none", "official_active_params": "positive|none",
                  "source": "str", "notes": "str"},
    "Efficiency": {"accelerator": "str", "ll_base_latency_s": "nonnegative",
                   "ll_step_latency_s": "nonnegative", "attention_shape": "shape|none",
                   "source": "str", "notes": "str"},
    "LossFit": {"name": "str", "source": "str", "notes": "str"},
    "published_run_mfu": {"runs": "runs|none"},
    "published_run_errors": {"runs": "runs|none"},
    "enumerate_plans": {"tp": "count|none", "pp": "count|none", "cp": "count|none",
                        "ep": "count|none", "virtual_stages": "count|none",
                        "micro_batch_size": "count|none", "zero_stage": "choice",
                        "recompute": "choice", "schedule": "choice",
                        "sequence_parallel": "flag", "grid": "options|none"},
    # True, False or "true" / "false" / "not_pp" (the stacks' spelling)
    "memory_per_gpu": {"fsdp_reshard_after_forward": "choice",
                       "practice": "options|none"},  # a memory.MemoryPractice (None: textbook)
    "step_time": {"options": "options|none"},
    "predict_mfu": {"options": "options|none"},
    "rank_plans": {"options": "options|none", "price_usd_per_gpu_hour": "positive|none"},
    "check_claim": {"phases": "phases|none", "ledger_keys": "keywords|none",
                    "bill_keys": "keywords|none"},
    "kv_cache_bytes": {"window_layers": "share|none"},
    "max_batch": {"window_layers": "share|none", "draft_model": "model|none"},
    "prefill_time": {"window_layers": "share|none"},
    "decode_step": {"window_layers": "share|none"},
    "decode_step_time": {"window_layers": "share|none"},
    "serving_cost": {"window_layers": "share|none", "draft_model": "model|none",
                     "engine": "choice", "options": "options|none"},
    "rl_iteration": {"options": "options|none",
                     "response_tokens_max": "positive|none", "lengths": "count|none",
                     "reward": "model_or_params", "critic": "model_or_params|none",
                     "recompute_old_logprobs": "flag|none", "engine": "choice",
                     "train_plan": "keywords|none", "stack": "choice",
                     "hf_s_per_layer_step": "nonnegative", "refit": "choice"},
}
#: The fields of StepOptions, attacked through step_time's keywords (the step model checks them
#: where it reads them; the dataclass itself checks only dtype, dropout, straggler, efficiency,
#: moe_gate, hsdp_all_reduce, fsdp_backward_prefetch, kernel_efficiency, gemm_kernel_efficiency and the MoE factors' type).
STEP_OPTION_ARGS = {"recipe": "choice", "flash_attention": "flag", "dropout": "flag",
                    "tp_overlap": "choice", "pp_overlap": "choice", "dp_overlap": "choice",
                    "ep_overlap": "choice", "efficiency": "efficiency", "stack": "choice",
                    "fsdp_prefetch_layers": "count0", "fsdp_collectives_per_layer": "count",
                    "fsdp_nic_aggregation": "flag", "fsdp_reshard_after_forward": "choice",
                    "fsdp_backward_prefetch": "choice", "moe_routing": "choice", "moe_capacity_factor": "positive",
                    "moe_imbalance": "positive", "moe_dispatch": "choice",
                    "moe_dispatch_dtype": "choice", "moe_node_limit": "count|none",
                    "pipeline_flushes": "count0", "straggler": "flag",
                    "gemm_shape": "flag", "fp8_as_run": "flag", "fp8_recipe": "choice",
                    "fp8_split_accumulator": "flag", "attention_blackwell": "flag",
                    "fp8_attention": "flag", "attention_unpad": "flag", "fsdp_copies": "choice",
                    "attention_curve": "choice", "gemm_kernel_efficiency": "fraction|none",
                    "ring_unmasked": "flag",
                    "cp_ring_compiled": "flag",
                    "recompute_early_stop": "flag",
                    "fa1_length": "positive",
                    "moe_layer_host_s": "nonnegative|none",
                    "moe_expert_host_s": "nonnegative|none",
                    "fp8cs_expert_launches": "flag"}
MORE_ARGS_3["step_time"] = {**MORE_ARGS_3["step_time"], **STEP_OPTION_ARGS}
for _more in (MORE_ARGS_2, MORE_ARGS_3):
    for _name, _extra in _more.items():
        MORE_ARGS[_name] = {**MORE_ARGS.get(_name, {}), **_extra}
