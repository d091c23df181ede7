"""llmcost: what it costs to train a large language model, line by line.

The package does every calculation; the notebooks in ``notebooks/`` narrate them. The modules
live in rooms by concern (ARCHITECTURE.md): ``core`` (units, models, accelerators, catalogues),
``training`` (FLOPs, memory, parallelism, communication, the step-time model, failures),
``serving`` (served tokens, RL post-training), ``laws`` (compute-optimal scaling), ``bill`` (the
scenario, prices, the ledger, levers, claims) and ``present`` (plots, widgets, reports, the CLI).
Plots, widgets and reports are imported on demand so that the calculation modules stay free of
matplotlib, ipywidgets and papermill.

This root re-exports the public API (``llmcost.step_time(...)``), and every module keeps its
0.1 flat path as an alias (``from llmcost import ledger``, ``llmcost.step.rank_plans``,
``import llmcost.report``): see ``llmcost._old_paths``.
"""

import importlib

from . import _old_paths
from .bill import (
    claims,  # published runs and claims (notebook 08, `llmcost check`)
    ledger,  # the whole bill (notebook 00)
    levers,  # savings levers and false economies (notebook 09)
)
from .bill.claims import ClaimCheck, check_claim, published_run_errors
from .bill.ledger import Ledger, LedgerDraws, build_ledger, simulate_ledger  # ranges
from .bill.ranges import Range
from .bill.scenario import (
    PARAMETERS,
    ScenarioError,
    load_scenario,
    notebook_parameters,
    point_scenario,
    resolve_price,
    scenario_price,
    validate_parameter,
    validate_parameters,
)
from .core import shapes, stacks
from .core.catalog import (
    DATA_DIR,
    SCENARIO_DIR,
    catalogue_price,
    list_accelerators,
    list_models,
    list_prices,
    load_accelerator,
    load_efficiency,
    load_model,
    load_published_runs,
)
from .core.hardware import Accelerator, Cluster, DoesNotFit, Efficiency
from .core.model import ModelSpec
from .core.units import fmt_bytes, fmt_count, fmt_duration, fmt_flops, fmt_flops_rate, fmt_usd
from .core.version import __version__
from .laws import scaling
from .laws.scaling import (
    LOSS_FITS,
    LossFit,
    compute_optimal,
    inference_adjusted_optimum,
    inference_adjusted_optimum_usd,
)
from .serving import inference, rl
from .serving.inference import (
    decode_step,
    decode_step_time,
    kv_cache_bytes,
    kv_cache_bytes_per_token,
    max_batch,
    prefill_time,
    serving_cost,
    speculative_tokens_per_pass,
)
from .serving.rl import rl_campaign, rl_iteration
from .training import (  # noqa: F401
    accuracy,
    batch,
    comm,
    gemm,  # GEMM efficiency by shape (notebook 04)
    step,
    straggler,  # the wait for the slowest GPU (notebook 04)
)
from .training.batch import batch_sweep, batch_target, critical_batch_size, kaplan_critical_batch
from .training.compute import (
    catalogue_training_costs,
    compute_cost_usd,
    flops_per_token_conventions,
    gpu_hours,
    gpu_seconds,
    hfu_from_mfu,
    mfu_from_gpu_hours,
    mfu_from_throughput,
    model_flops_per_token,
    published_run_mfu,
    tokens_per_s_per_gpu_at_mfu,
    training_flops,
    training_run,
    wall_clock_s,
)
from .training.memory import RECIPES, memory_breakdown, memory_per_gpu
from .training.parallel import ParallelPlan, bubble_fraction, enumerate_plans, make_plan
from .training.reliability import (
    checkpoint_plan,
    checkpoint_size,
    cluster_mtbf_s,
    daly_interval,
    goodput,
    optimal_interval,
    young_interval,
)
from .training.options import StepOptions
from .training.ranking import rank_plans
from .training.step import StepBreakdown, predict_mfu, step_time
from .training.straggler import straggler_slowdown

_old_paths.install()


def __getattr__(name):
    """``llmcost.<module>`` for a module not imported yet (``llmcost.report``, ``llmcost.plots``):
    imported on first use through its 0.1 flat path (``llmcost._old_paths``)."""
    if name in _old_paths.ROOM_OF:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

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
    "fmt_flops_rate", "fmt_usd",
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
