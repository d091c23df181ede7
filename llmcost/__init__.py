"""llmcost: what it costs to train a large language model, line by line.

The package does every calculation; the notebooks in ``notebooks/`` narrate them. The modules
live in rooms by concern (ARCHITECTURE.md): ``core`` (units, models, accelerators, catalogues),
``training`` (FLOPs, memory, parallelism, communication, the step-time model, failures),
``serving`` (served tokens, RL post-training), ``laws`` (compute-optimal scaling), ``bill`` (the
scenario, prices, the ledger, levers, claims) and ``present`` (plots, widgets, reports, the CLI).
Plots, widgets and reports are imported on demand so that the calculation modules stay free of
matplotlib, ipywidgets and papermill.

This root re-exports the public API (``llmcost.step_time(...)``, ``from llmcost import Cluster``),
and every module keeps its 0.1 flat path as an alias (``from llmcost import ledger``,
``llmcost.step.rank_plans``, ``import llmcost.report``): see ``llmcost._old_paths``.

The root imports nothing of the rooms itself: each public name is imported from its module on
first use (a module ``__getattr__``, PEP 562) and is then the very object of that module. So
``import llmcost.present.workers`` (what ``python -m llmcost report`` needs to start its kernels,
``llmcost.__main__``) does not first import pandas, numpy and every room (0.45 s), and a script
pays only for the rooms it uses. ``dir(llmcost)`` lists the public names before their first use.
"""

import importlib as _importlib

from . import _old_paths
from .core.version import __version__

#: The public names and the module each is read from, as ``from <module> import <name>``
#: would read it; imported on first use (``__getattr__``).
_NAMES = {
    "llmcost.bill.claims": ("ClaimCheck", "check_claim", "published_run_errors"),
    "llmcost.bill.ledger": ("Ledger", "LedgerDraws", "build_ledger", "simulate_ledger"),
    "llmcost.bill.ranges": ("Range",),
    "llmcost.bill.scenario": (
        "PARAMETERS", "ScenarioError", "load_scenario", "notebook_parameters", "point_scenario",
        "resolve_price", "scenario_price", "validate_parameter", "validate_parameters"),
    "llmcost.core.catalog": (
        "DATA_DIR", "SCENARIO_DIR", "catalogue_price", "list_accelerators", "list_models",
        "list_prices", "load_accelerator", "load_efficiency", "load_model",
        "load_published_runs"),
    "llmcost.core.hardware": ("Accelerator", "Cluster", "DoesNotFit", "Efficiency"),
    "llmcost.core.model": ("ModelSpec",),
    "llmcost.core.units": ("fmt_bytes", "fmt_count", "fmt_duration", "fmt_flops",
                           "fmt_flops_rate", "fmt_gpus", "fmt_percent", "fmt_usd"),
    "llmcost.laws.scaling": ("LOSS_FITS", "LossFit", "compute_optimal",
                             "inference_adjusted_optimum", "inference_adjusted_optimum_usd"),
    "llmcost.serving.inference": (
        "decode_step", "decode_step_time", "kv_cache_bytes", "kv_cache_bytes_per_token",
        "max_batch", "prefill_time", "serving_cost", "speculative_tokens_per_pass"),
    "llmcost.serving.rl": ("rl_campaign", "rl_iteration"),
    "llmcost.training.batch": ("batch_sweep", "batch_target", "critical_batch_size",
                               "kaplan_critical_batch"),
    "llmcost.training.compute": (
        "catalogue_training_costs", "compute_cost_usd", "flops_per_token_conventions",
        "gpu_hours", "gpu_seconds", "hfu_from_mfu", "mfu_from_gpu_hours", "mfu_from_throughput",
        "model_flops_per_token", "published_run_mfu", "tokens_per_s_per_gpu_at_mfu",
        "training_flops", "training_run", "wall_clock_s"),
    "llmcost.training.memory": ("RECIPES", "memory_breakdown", "memory_per_gpu"),
    "llmcost.training.parallel": ("ParallelPlan", "bubble_fraction", "enumerate_plans",
                                  "make_plan"),
    "llmcost.training.reliability": ("checkpoint_plan", "checkpoint_size", "cluster_mtbf_s",
                                     "daly_interval", "goodput", "optimal_interval",
                                     "young_interval"),
    "llmcost.training.options": ("StepOptions",),
    "llmcost.training.ranking": ("rank_plans",),
    "llmcost.training.step": ("StepBreakdown", "predict_mfu", "step_time"),
    "llmcost.training.straggler": ("straggler_slowdown",),
}
#: The modules the root names (``llmcost.ledger``: notebook 00's whole bill, ``llmcost.levers``:
#: notebook 09's savings levers, ``llmcost.claims``: notebook 08 and `llmcost check`,
#: ``llmcost.gemm`` and ``llmcost.straggler``: notebook 04), imported on first use.
_MODULES = {
    "claims": "llmcost.bill.claims", "ledger": "llmcost.bill.ledger",
    "levers": "llmcost.bill.levers", "shapes": "llmcost.core.shapes",
    "stacks": "llmcost.core.stacks", "scaling": "llmcost.laws.scaling",
    "inference": "llmcost.serving.inference", "rl": "llmcost.serving.rl",
    "accuracy": "llmcost.training.accuracy", "batch": "llmcost.training.batch",
    "comm": "llmcost.training.comm", "gemm": "llmcost.training.gemm",
    "step": "llmcost.training.step", "straggler": "llmcost.training.straggler",
}
#: The rooms (ARCHITECTURE.md): ``llmcost.training`` … is the package, imported on first use.
_ROOMS = ("core", "training", "serving", "laws", "bill", "present")

_HOME = {name: module for module, names in _NAMES.items() for name in names}

_old_paths.install()


def __getattr__(name):
    """A public name on first use (PEP 562): imported from its module (``_NAMES``, ``_MODULES``),
    then kept in this module, so that the next use is a plain attribute. A room
    (``llmcost.training``) or a 0.1 flat module path (``llmcost.report``, ``llmcost.plots``:
    ``llmcost._old_paths``) is imported the same way."""
    if name in _HOME:
        value = getattr(_importlib.import_module(_HOME[name]), name)
    elif name in _MODULES:
        value = _importlib.import_module(_MODULES[name])
    elif name in _ROOMS or name in _old_paths.ROOM_OF:
        value = _importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    """The root's names, the public API's included before its first use."""
    return sorted({n for n in globals() if not n.startswith("_") or n.startswith("__")}
                  | set(_HOME) | set(_MODULES))


__all__ = [
    # catalogues and the first ledger line (notebooks 00-01)
    "DATA_DIR", "SCENARIO_DIR", "Accelerator", "Cluster", "ModelSpec", "catalogue_price",
    "catalogue_training_costs", "compute_cost_usd", "flops_per_token_conventions", "gpu_hours",
    "gpu_seconds", "hfu_from_mfu", "list_accelerators", "list_models", "list_prices",
    "load_accelerator", "load_model", "load_published_runs", "mfu_from_gpu_hours",
    "mfu_from_throughput", "model_flops_per_token", "published_run_mfu",
    "tokens_per_s_per_gpu_at_mfu", "training_flops", "training_run", "wall_clock_s",
    # scenarios and formatting
    "PARAMETERS", "ScenarioError", "DoesNotFit", "load_scenario", "notebook_parameters", "resolve_price",
    "scenario_price",
    "validate_parameter",
    "validate_parameters", "fmt_bytes", "fmt_count", "fmt_duration", "fmt_flops",
    "fmt_flops_rate", "fmt_gpus", "fmt_percent", "fmt_usd",
    # batch size (notebook 02)
    "batch", "batch_sweep", "batch_target", "critical_batch_size", "kaplan_critical_batch",
    # memory and parallelism (notebook 03)
    "RECIPES", "ParallelPlan", "bubble_fraction", "enumerate_plans", "make_plan",
    "memory_breakdown", "memory_per_gpu",
    # communication (notebook 04) and step time (notebook 04b)
    "comm", "step", "Efficiency", "StepBreakdown", "load_efficiency", "predict_mfu",
    "rank_plans", "step_time", "StepOptions",
    # the whole bill (notebook 00)
    "ledger", "Ledger", "build_ledger",
    "LedgerDraws", "Range", "point_scenario", "simulate_ledger",  # ranges
    # savings levers, false economies and attribution (notebook 09)
    "levers",
    # checkpoints, failures and goodput (notebook 07)
    "checkpoint_plan", "checkpoint_size", "cluster_mtbf_s", "daly_interval", "goodput",
    "optimal_interval", "young_interval",
    # serving and RL post-training (notebook 05)
    "inference", "decode_step", "decode_step_time", "kv_cache_bytes", "kv_cache_bytes_per_token",
    "max_batch", "prefill_time", "serving_cost", "speculative_tokens_per_pass",
    "rl", "rl_campaign", "rl_iteration",
    # compute-optimal scaling and the inference-adjusted optimum (notebook 06)
    "scaling", "LOSS_FITS", "LossFit", "compute_optimal", "inference_adjusted_optimum",
    "inference_adjusted_optimum_usd",
    # published runs and claims (notebook 08, `llmcost check`)
    "claims", "ClaimCheck", "check_claim", "published_run_errors",
    # stragglers: the wait for the slowest GPU (notebook 04)
    "straggler", "straggler_slowdown", "gemm",
]
