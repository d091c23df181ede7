"""The shared parameter vocabulary: one name means one thing in every notebook and scenario file.

``PARAMETERS`` is the registry: each entry gives the type, the rule and the meaning of a name.
Notebooks validate their parameters cell with ``validate_parameters(...)`` and the report
validates a scenario file with ``load_scenario(path)``, so a bad value gets the same one-line
``ValueError`` naming the key and the rule wherever it enters.

A scenario file is YAML: a mapping of parameter names to values, plus the optional metadata keys
``title`` and ``description`` (used on the report's index page, not passed to notebooks).
Numbers may be written as ``2e12`` (YAML 1.2 style) as well as ``2.0e+12``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import yaml

from .units import is_number

METADATA_KEYS = ("title", "description")
PRICING = ("on_demand", "reserved", "spot", "owned")
COMPUTE_DTYPES = ("bf16", "fp8")


class ScenarioError(ValueError):
    """A scenario or parameter value breaks a rule; the message names the key and the rule."""


@dataclass(frozen=True)
class Param:
    """One shared parameter: its Python type, a check and a one-line meaning."""

    name: str
    kind: str  # "str", "int", "float", "bool", "float|str", "float|none"
    doc: str
    check: Callable[[str, Any], Any] | None = None


# ------------------------------------------------------------------------------ checks
def _positive(name, v):
    if v <= 0:
        raise ScenarioError(f"{name}={v!r} must be > 0")
    return v


def _nonnegative(name, v):
    if v < 0:
        raise ScenarioError(f"{name}={v!r} must be >= 0")
    return v


def _fraction(name, v):
    if not 0 < v <= 1:
        raise ScenarioError(f"{name}={v!r} must be in (0, 1]")
    return v


def _one_of(*allowed):
    def check(name, v):
        if v not in allowed:
            raise ScenarioError(f"{name}={v!r} must be one of {', '.join(map(repr, allowed))}")
        return v
    return check


def _model(name, v):
    from .catalog import is_config_path, load_model
    try:
        spec = load_model(v)
    except ValueError as e:
        raise ScenarioError(str(e)) from None
    return str(Path(v).resolve()) if is_config_path(v) else spec.name


def _accelerator(name, v):
    from .catalog import load_accelerator
    try:
        return load_accelerator(v).name
    except ValueError as e:
        raise ScenarioError(str(e)) from None


def _mfu(name, v):
    if 1 < v <= 100:
        raise ScenarioError(f"{name}={v!r} must be in (0, 1]: a fraction of peak (40% is 0.40)")
    return _fraction(name, v)


def _ckpt_recipe(name, v):
    from .reliability import CHECKPOINT_RECIPES
    return _one_of(*CHECKPOINT_RECIPES)(name, v)


def _storage_tier(name, v):
    from .reliability import load_storage_prices
    return _one_of(*load_storage_prices()["name"])(name, v)


def _recipe(name, v):
    from .memory import RECIPES
    return _one_of(*RECIPES)(name, v)


def _reserve(name, v):
    if not 0 <= v < 1:
        raise ScenarioError(f"{name}={v!r} must be in [0, 1)")
    return v


#: The registry. Add a topic's parameters here with a prefix (``rl_``, ``ckpt_``, ...).
PARAMETERS: dict[str, Param] = {p.name: p for p in [
    Param("model", "str", "catalogue model name (llmcost list models), or a path to a Hugging "
          "Face config.json", _model),
    Param("accelerator", "str", "catalogue accelerator name (llmcost list accelerators)",
          _accelerator),
    Param("n_gpus", "int", "accelerators in the training job", _positive),
    Param("train_tokens", "float", "pre-training tokens", _positive),
    Param("seq_len", "int", "training sequence length in tokens", _positive),
    Param("global_batch_tokens", "int", "tokens per optimizer step", _positive),
    Param("mfu", "float", "steady-state model FLOPs utilisation in (0, 1]; in a scenario file "
          "'predict' asks the report to predict it (llmcost.step)", _mfu),
    Param("dtype", "str", "training compute precision", _one_of(*COMPUTE_DTYPES)),
    Param("price_usd_per_gpu_hour", "float|none",
          "USD per accelerator-hour; null: the catalogue median for `pricing`", _positive),
    Param("pricing", "str", "pricing mode", _one_of(*PRICING)),
    Param("interactive", "bool", "widgets on (reading) or off (report runs)"),
    # checkpoints and failures (notebook 07, llmcost.reliability)
    Param("ckpt_recipe", "str", "what a checkpoint saves, bytes per parameter "
          "(llmcost.reliability.CHECKPOINT_RECIPES)", _ckpt_recipe),
    Param("ckpt_interval_s", "float|none",
          "compute seconds between checkpoints; null: the optimum for the job's MTBF", _positive),
    Param("ckpt_async", "bool", "asynchronous checkpoints (only the device-to-host snapshot "
          "blocks training)"),
    Param("ckpt_storage_bytes_per_s", "float|none", "aggregate sustained storage bandwidth, "
          "bytes/s; null: sized from the job, n_gpus × 122 MB/s (Llama 3's Tectonic, "
          "llmcost.reliability.job_storage_bytes_per_s)", _positive),
    Param("ckpt_node_bytes_per_s", "float", "per-node bandwidth to storage, bytes/s", _positive),
    Param("ckpt_d2h_bytes_per_s", "float", "device-to-host copy bandwidth per GPU, bytes/s",
          _positive),
    Param("ckpt_restart_s", "float", "seconds from a failure to training again, excluding "
          "reading the checkpoint (detection, node swap, relaunch, NCCL init, data loader)",
          _nonnegative),
    Param("ckpt_keep_last", "int", "checkpoints kept in the hot tier (0: keep every one)",
          _nonnegative),
    Param("ckpt_milestone_every_days", "float", "days between milestone checkpoints copied to "
          "the cold tier", _positive),
    Param("ckpt_retention_months", "float", "months milestones are kept after the run",
          _nonnegative),
    Param("ckpt_hot_tier", "str", "hot storage tier (data/storage_prices.csv name)",
          _storage_tier),
    Param("ckpt_cold_tier", "str", "cold storage tier (data/storage_prices.csv name)",
          _storage_tier),
    Param("fail_rate_per_gpu_year", "float", "unexpected interruptions per GPU-year (> 0; a "
          "job that never fails needs no checkpoints: use a small rate to see that limit)",
          _positive),
    Param("fail_planned_per_day", "float", "planned interruptions of the job per day",
          _nonnegative),
    # ---- the parallel plan (notebook 03; llmcost.parallel, llmcost.memory). A value of 0
    # (-1 for zero_stage, "auto" for names) leaves that part of the plan to be chosen.
    Param("tp", "int", "tensor-parallel size; 0: chosen", _nonnegative),
    Param("pp", "int", "pipeline-parallel stages; 0: chosen", _nonnegative),
    Param("dp", "int", "data-parallel size; 0: derived as n_gpus / (tp·pp·cp), or chosen",
          _nonnegative),
    Param("cp", "int", "context-parallel size; 0: chosen", _nonnegative),
    Param("ep", "int", "expert-parallel size (carved out of dp·cp); 0: chosen", _nonnegative),
    Param("zero_stage", "int", "ZeRO stage over the dp·cp group (3 = FSDP); -1: chosen",
          _one_of(-1, 0, 1, 2, 3)),
    Param("recompute", "str", "activation recomputation",
          _one_of("none", "selective", "full", "auto")),
    Param("micro_batch_size", "int", "sequences per micro-batch; 0: chosen", _nonnegative),
    Param("optimizer_recipe", "str",
          "bytes-per-parameter precision recipe (llmcost.memory.RECIPES)",
          _recipe),
    Param("pp_schedule", "str", "pipeline schedule",
          _one_of("1f1b", "interleaved", "gpipe", "zb-h1", "auto")),
    Param("pp_virtual_stages", "int",
          "model chunks per pipeline stage (interleaved schedule); 0: chosen", _nonnegative),
    Param("pp_split", "str", "layer placement on pipeline stages",
          _one_of("even", "embedding_and_loss")),
    Param("mem_reserve_fraction", "float",
          "fraction of HBM held back for buffers and fragmentation, in [0, 1)",
          _reserve),
    # ---- batch size (notebook 02; it reads the parallel plan above)
    Param("batch_target_loss", "float|none", "target loss in nats on Kaplan et al. 2020's scale; "
          "null: the loss the planned run reaches", _positive),
    Param("batch_noise_tokens", "float|none", "gradient noise scale B_noise in tokens (e.g. "
          "measured in a pilot run); null: Kaplan's critical batch at the target loss", _positive),
    Param("batch_base_lr", "float", "peak learning rate used at global_batch_tokens", _positive),
    # ---- communication and step time (notebook 04; llmcost.comm, llmcost.step)
    Param("comm_tp_overlap", "str", "which tensor-parallel collectives overlap GEMMs: none, "
          "backward (Megatron-LM's asynchronous backward), all", _one_of("none", "backward", "all")),
    Param("comm_pp_overlap", "bool", "pipeline sends and receives overlap compute (only the fill "
          "and drain wait for them)"),
    Param("comm_dp_overlap", "bool", "data-parallel gradient reduction and ZeRO gathers overlap "
          "the backward and forward passes"),
    # ---- scale-out network figures for accelerators without them in the catalogue
    Param("comm_scaleout_bytes_per_s", "float|none", "scale-out (NIC) bandwidth per GPU per "
          "direction, bytes/s; null: data/accelerators.csv (give it for TPU v4, MI325X)",
          _positive),
    Param("comm_scaleout_latency_s", "float|none", "latency of one ring step across scale-up "
          "domains, s; null: data/efficiency.csv", _nonnegative),
]}

#: Parameters that make up a parallel plan; when a file or notebook gives any of them together
#: with model, n_gpus, seq_len and global_batch_tokens, the plan is built (or chosen, where
#: values are left free) and its rules are checked too.
PLAN_PARAMETERS = ("tp", "pp", "dp", "cp", "ep", "zero_stage", "recompute", "micro_batch_size",
                   "pp_schedule", "pp_virtual_stages", "pp_split")


#: The value of ``mfu`` that asks the report to predict it with the step-time model.
MFU_PREDICT = "predict"


def _coerce(p: Param, value):
    """Check the type of ``value`` for parameter ``p`` (whole floats are accepted as ints)."""
    kind = p.kind
    if kind.endswith("|none") and value is None:
        return None
    base = kind.split("|")[0]
    if base == "bool":
        if not isinstance(value, bool):
            raise ScenarioError(f"{p.name}={value!r} must be true or false")
        return value
    if base == "str":
        if not isinstance(value, str):
            raise ScenarioError(f"{p.name}={value!r} must be a string")
        return value
    if "str" in kind.split("|") and isinstance(value, str):
        return value
    if not is_number(value):
        hint = ""
        if isinstance(value, str) and re.fullmatch(r"\s*[\d.]+\s*[kKmMbBtT%]\s*", value):
            hint = " (write 15e12 for 15T, 2048 for 2k, 0.40 for 40%)"
        what = "a whole number" if base == "int" else "a number"
        raise ScenarioError(f"{p.name}={value!r} must be {what}{hint}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ScenarioError(f"{p.name}={value!r} must be finite")
    if base == "int":
        if isinstance(value, float):
            if not value.is_integer():
                raise ScenarioError(f"{p.name}={value!r} must be a whole number")
            value = int(value)
        return int(value)
    return float(value)


def validate_parameter(name: str, value):
    """Validate and normalise one shared parameter.

    Returns
    -------
    The normalised value (ints for whole-number floats where an int is expected, canonical
    catalogue names).

    Raises
    ------
    ScenarioError (a ValueError)
        If ``name`` is not in ``PARAMETERS`` or the value breaks its type or rule.
    """
    if not isinstance(name, str):
        raise ScenarioError(f"name={name!r}: a parameter name must be a string")
    if name not in PARAMETERS:
        from .catalog import suggest
        close = suggest(name, PARAMETERS)
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
        raise ScenarioError(f"unknown parameter {name!r}{hint} (`llmcost list parameters` "
                            "lists them all)")
    p = PARAMETERS[name]
    if name == "mfu" and isinstance(value, str) and value == MFU_PREDICT:
        raise ScenarioError("mfu='predict' is only understood in a scenario file: `llmcost "
                            "report` replaces it with the step-time model's prediction for the "
                            "scenario's plan before the notebooks run. Here give a number, e.g. "
                            "llmcost.step.scenario_step(p)[1].mfu")
    if name == "mfu" and isinstance(value, str) and value.strip().lower() == MFU_PREDICT:
        raise ScenarioError(f"mfu={value!r}: write `mfu: predict` (lower case) to have the report "
                            "predict the MFU, or give a number in (0, 1]")
    v = _coerce(p, value)
    if v is not None and p.check is not None:
        v = p.check(name, v)
    return v


def validate_parameters(**params) -> dict:
    """Validate a notebook's parameters; returns them normalised, in the same order.

    Call it in the cell after the ``parameters`` cell:
    ``p = llmcost.validate_parameters(model=model, n_gpus=n_gpus, ...)``.

    Raises
    ------
    ScenarioError (a ValueError) naming the first bad key and its rule.
    """
    out = {k: validate_parameter(k, v) for k, v in params.items()}
    _cross_check(out)
    return out


def _cross_check(p: dict) -> None:
    """Rules that involve two parameters (checked wherever both are present)."""
    if "accelerator" in p and "dtype" in p:
        from .catalog import load_accelerator
        try:
            load_accelerator(p["accelerator"]).peak_flops_per_s(p["dtype"])
        except ValueError as e:
            raise ScenarioError(str(e)) from None
    if any(k in p for k in PLAN_PARAMETERS) and \
            all(k in p for k in ("model", "n_gpus", "seq_len", "global_batch_tokens")):
        from .parallel import plan_from_parameters
        _check_batch_feeds_gpus(p)
        try:
            plan_from_parameters(p)
        except ValueError as e:
            raise ScenarioError(str(e)) from None
    if "price_usd_per_gpu_hour" in p and p["price_usd_per_gpu_hour"] is None:
        if "accelerator" in p:
            resolve_price(p["accelerator"], None, p.get("pricing", "on_demand"))


#: The most context-parallel ranks the plan search tries (``parallel.choose_plan``).
_MAX_CP = 32


def _check_batch_feeds_gpus(p: dict) -> None:
    """Every data-parallel replica needs at least one sequence per step, and one sequence spreads
    over at most tp·pp·cp GPUs (tp up to the query heads, pp up to the layers + 2, cp up to 32):
    more GPUs than that cannot all be fed by the global batch."""
    from .catalog import load_model

    try:
        spec = load_model(p["model"])
    except ValueError:
        return
    seqs = p["global_batch_tokens"] // p["seq_len"]
    cp = p.get("cp") or _MAX_CP
    per_seq = spec.n_heads * (spec.n_layers + 2) * cp
    if seqs >= 1 and p["n_gpus"] > seqs * per_seq:
        raise ScenarioError(
            f"n_gpus={p['n_gpus']:,} is more than the scenario's global batch can feed: "
            f"global_batch_tokens={p['global_batch_tokens']:,} is {seqs:,} sequences of "
            f"{p['seq_len']:,} tokens, each data-parallel replica needs at least one, and one "
            f"sequence of {spec.name} spreads over at most {per_seq:,} GPUs (tp ≤ "
            f"{spec.n_heads} heads × pp ≤ {spec.n_layers + 2} × cp ≤ {cp}): raise "
            "global_batch_tokens or use fewer GPUs")


class _Yaml12Loader(yaml.SafeLoader):
    """SafeLoader that also reads ``2e12`` as a float (YAML 1.2), not as a string, and rejects
    duplicate keys (PyYAML would silently keep the last one)."""

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise ScenarioError(f"key {key!r} appears twice (line {key_node.start_mark.line + 1})")
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


_Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:\d[\d_]*)?(?:\.\d*)?[eE][-+]?\d+$"),
    list("-+0123456789."),
)


def load_scenario(path) -> dict:
    """Read and validate a scenario YAML file.

    Parameters
    ----------
    path : str or Path
        The YAML file (a mapping of parameter names to values).

    Returns
    -------
    dict with the validated parameters (``title``/``description`` included if present).
    ``mfu: predict`` is kept as the string ``"predict"``: the report resolves it
    (``llmcost.report.resolve_mfu``) before any notebook runs.

    Raises
    ------
    ScenarioError (a ValueError)
        If the file is missing or not a YAML mapping, a key is unknown, or a value breaks its
        rule. The message names the file, the key and the rule.
    """
    if not isinstance(path, (str, Path)):
        raise ScenarioError(f"path={path!r} must be the path of a scenario YAML file")
    p = Path(path)
    if not p.exists():
        raise ScenarioError(f"path={str(path)!r}: scenario file {str(path)!r} does not exist")
    if not p.is_file():
        raise ScenarioError(f"scenario {str(path)!r} is not a file")
    try:
        data = yaml.load(p.read_text(encoding="utf-8"), Loader=_Yaml12Loader)
    except ScenarioError as e:
        raise ScenarioError(f"{p}: {e}") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(e, "problem", None) or "cannot be parsed"
        raise ScenarioError(f"{p}: not valid YAML{where}: {problem}") from None
    if not isinstance(data, dict) or not data:
        raise ScenarioError(f"{p}: must be a non-empty mapping of parameter names to values")
    out = {}
    for key, value in data.items():
        if key in METADATA_KEYS:
            if not isinstance(value, str):
                raise ScenarioError(f"{p}: {key}={value!r} must be a string")
            out[key] = value
            continue
        if key == "interactive":
            raise ScenarioError(f"{p}: interactive cannot be set in a scenario (reports always "
                                "run with the widgets off)")
        if key == "model" and isinstance(value, str):
            from .catalog import is_config_path
            if is_config_path(value) and not Path(value).is_absolute():
                value = str(p.parent / value)  # relative to the scenario file
        if key == "mfu" and value == MFU_PREDICT:
            out[key] = MFU_PREDICT  # resolved by the report (llmcost.report.resolve_mfu)
            continue
        if key == "mfu" and isinstance(value, str) and value.strip().lower() == MFU_PREDICT:
            raise ScenarioError(f"{p}: mfu={value!r}: the word is `predict` (lower case), which "
                                "asks the report to predict the MFU; or give a number in (0, 1]")
        try:
            out[key] = validate_parameter(str(key), value)
        except ScenarioError as e:
            raise ScenarioError(f"{p}: {e}") from None
    try:
        _cross_check(out)
    except ScenarioError as e:
        raise ScenarioError(f"{p}: {e}") from None
    return out


def resolve_price(accelerator: str, price_usd_per_gpu_hour, pricing: str = "on_demand"
                  ) -> tuple[float, str]:
    """The price to use and where it comes from: the explicit value, or the catalogue median.

    Returns
    -------
    (price_usd_per_gpu_hour, provenance string)
    """
    from .catalog import load_accelerator
    try:
        accelerator = load_accelerator(accelerator).name
    except ValueError as e:
        raise ScenarioError(str(e)) from None
    if not isinstance(pricing, str) or pricing not in PRICING:
        raise ScenarioError(f"pricing={pricing!r} must be one of {', '.join(map(repr, PRICING))}")
    if price_usd_per_gpu_hour is not None:
        v = validate_parameter("price_usd_per_gpu_hour", price_usd_per_gpu_hour)
        return float(v), "given as price_usd_per_gpu_hour"
    if pricing == "owned":
        raise ScenarioError("pricing='owned' needs an explicit price_usd_per_gpu_hour (the "
                            "amortised cost of your own hardware)")
    from .catalog import catalogue_price
    try:
        return catalogue_price(accelerator, pricing)
    except ValueError as e:
        raise ScenarioError(str(e)) from None
