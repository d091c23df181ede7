"""llmcost: what it costs to train a large language model, line by line.

The package does every calculation; the notebooks in ``notebooks/`` narrate them. Plots
(``llmcost.plots``), widgets (``llmcost.widgets``) and reports (``llmcost.report``) are imported
on demand so that the calculation modules stay free of matplotlib, ipywidgets and papermill.
"""

from .catalog import (
    DATA_DIR,
    SCENARIO_DIR,
    catalogue_price,
    list_accelerators,
    list_models,
    list_prices,
    load_accelerator,
    load_model,
    load_published_runs,
)
from .compute import (
    compute_cost_usd,
    gpu_hours,
    gpu_seconds,
    hfu_from_mfu,
    mfu_from_gpu_hours,
    mfu_from_throughput,
    model_flops_per_token,
    catalogue_training_costs,
    flops_per_token_conventions,
    published_run_mfu,
    tokens_per_s_per_gpu_at_mfu,
    training_flops,
    training_run,
    wall_clock_s,
)
from . import batch
from .batch import batch_sweep, batch_target, critical_batch_size, kaplan_critical_batch
from .hardware import Accelerator, Cluster
from .memory import RECIPES, memory_breakdown, memory_per_gpu
from .model import ModelSpec
from .reliability import (
    checkpoint_plan,
    checkpoint_size,
    cluster_mtbf_s,
    daly_interval,
    goodput,
    optimal_interval,
    young_interval,
)
from .parallel import ParallelPlan, bubble_fraction, enumerate_plans, make_plan
from . import comm, step
from .catalog import load_efficiency
from .hardware import Efficiency
from .step import StepBreakdown, predict_mfu, rank_plans, step_time
from .scenario import (
    PARAMETERS,
    ScenarioError,
    load_scenario,
    resolve_price,
    validate_parameter,
    validate_parameters,
)
from .units import fmt_bytes, fmt_count, fmt_duration, fmt_flops, fmt_flops_rate, fmt_usd

__version__ = "0.1.0"

__all__ = [
    "DATA_DIR", "SCENARIO_DIR", "Accelerator", "Cluster", "ModelSpec", "PARAMETERS",
    "ScenarioError", "catalogue_price", "catalogue_training_costs", "flops_per_token_conventions",
    "tokens_per_s_per_gpu_at_mfu", "compute_cost_usd", "fmt_bytes", "fmt_count",
    "fmt_duration", "fmt_flops", "fmt_flops_rate", "fmt_usd", "gpu_hours", "gpu_seconds",
    "hfu_from_mfu", "list_accelerators", "list_models", "list_prices", "load_accelerator",
    "load_model", "load_published_runs", "load_scenario", "mfu_from_gpu_hours",
    "mfu_from_throughput", "model_flops_per_token", "published_run_mfu", "resolve_price",
    "training_flops", "training_run", "validate_parameter", "validate_parameters",
    "wall_clock_s",
    "checkpoint_plan", "checkpoint_size", "cluster_mtbf_s", "daly_interval", "goodput",
    "optimal_interval", "young_interval",
    # memory and parallelism (notebook 03)
    "RECIPES", "ParallelPlan", "bubble_fraction", "enumerate_plans", "make_plan",
    "memory_breakdown", "memory_per_gpu",
]
__all__ += ["batch", "batch_sweep", "batch_target", "critical_batch_size", "kaplan_critical_batch"]
# communication and step time (notebook 04)
__all__ += ["comm", "step", "Efficiency", "StepBreakdown", "load_efficiency", "predict_mfu",
            "rank_plans", "step_time"]
