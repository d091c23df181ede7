"""The shared parameter vocabulary: one name means one thing in every notebook and scenario file.

``PARAMETERS`` is the registry: each entry gives the type, the rule and the meaning of a name.
Notebooks validate their parameters cell with ``validate_parameters(...)`` and the report
validates a scenario file with ``load_scenario(path)``, so a bad value gets the same one-line
``ValueError`` naming the key and the rule wherever it enters.

A scenario file is YAML: a mapping of parameter names to values, plus the optional metadata keys
``title`` and ``description`` (used on the report's index page, not passed to notebooks).
Numbers may be written as ``2e12`` (YAML 1.2 style) as well as ``2.0e+12``.

**Ranges.** A continuous cost input (``llmcost.ranges.RANGEABLE_KEYS``: ``mfu``, the GPU-hour
price, failure rates, restart times, overhead fractions, the ledger's line inputs) may be given
as a range instead of a number, in one of five forms:

* ``mfu: [0.30, 0.50]``: uniform on [low, high]; its point is the midpoint;
* ``mfu: {low: 0.30, mode: 0.40, high: 0.50}``: triangular; its point is the mode;
* ``mfu: {dist: two_piece, low: 0.30, mode: 0.40, high: 0.50}``: two half-triangles of half
  the draws each, meeting at the mode; its point is the mode, which is its median too (the
  form a ``mfu: predict`` bill draws its band in);
* ``ledger_egress_bytes: {dist: lognormal, p10: 1e12, p90: 1e14}``: lognormal with those
  10th and 90th percentiles, for inputs that span orders of magnitude; its point is the median
  √(p10·p90). A lognormal is refused on a bounded input (``mfu``, probabilities, fractions);
* ``ledger_exploratory_fraction: {dist: shifted_lognormal, p10: 1.37, p90: 3.5, shift: 1,
  low: 0, high: 10}``: x + shift lognormal with those percentiles, cut to [low, high] (a
  multiplier's log-normal carried to the fraction beyond it); its point is the uncut median
  √(p10·p90) − shift. Bounded by its cut, so allowed on a bounded input.

Each end (low, mode, high, p10, p90) must obey the key's own rule (``mfu`` in (0, 1], a price
> 0, ...). A range on any other key (a plan integer such as ``tp``, a GPU count, a token count
of the run, a name) is a ``ScenarioError`` naming the key. ``validate_parameter`` returns a
``llmcost.ranges.Range``; ``point_scenario`` replaces every range by its point, which is what
every notebook other than the bill (notebook 00) uses: ``validate_parameters`` returns points
and, in a notebook (a call that passes ``interactive``), prints which inputs were ranges and
which point the page uses. The bill prices the point (``ledger.build_ledger``) and draws the
ranges (``ledger.simulate_ledger``: Monte Carlo with common random numbers).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, fields
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

import numpy as np
import yaml

from ..core.catalog import (NETWORK_FREE_NOTEBOOKS, SCENARIO_DIR, catalogue_price,
                            is_config_path, list_accelerators, load_accelerator, load_model,
                            suggest)
from ..core.hardware import DoesNotFit
from ..core.model import ModelSpec
from ..core.shown import print_after_answer, show_once_per_text_in_a_kernel
from ..core.stacks import DEFAULT_STACK, load_stack, stack_backward_prefetch
from ..core.units import EXACT_INTEGER_RULE, MAX_EXACT_INTEGER, fmt_gpus, is_number, noun
from ..laws.scaling import LOSS_FITS
from ..training.accuracy import gpu_generation
from ..training.batch import kaplan_loss_floor, kaplan_n_params
from ..training.calibrate import PILOT_KEYS
from ..training.efficiency_profile import load_efficiency_profile
from ..training.elementwise import FP8_RECIPES
from ..training.memory import DEFAULT_RESERVE, RECIPES
from ..training.parallel import check_ep_model, check_etp_model, etp_of_key
from ..training.reliability import CHECKPOINT_RECIPES, load_storage_prices
from ..training.step import scenario_plan
from ..training.step_scenario import fixed_degrees_ceiling
from .pricing import owned_price_words, owned_usd_per_gpu_hour
from .ranges import (
    BOUNDED_KEYS,
    NOT_YET_RANGEABLE_KEYS,
    POINT_WORDS,
    RANGEABLE_KEYS,
    Range,
    band_ends,
    is_ranged,
    parse_range,
    point,
)

METADATA_KEYS = ("title", "description")
#: What each of ``METADATA_KEYS`` is, for ``llmcost list parameters``.
METADATA_WORDS = {"title": "the scenario's name: the report's title and the name a comparison "
                           "gives it (a string)",
                  "description": "what the scenario is, in a sentence (a string)"}
#: Parameters a scenario file cannot set (``load_scenario`` refuses them; `llmcost list
#: parameters` says "not in a scenario file"): a report sets them, ``interactive`` off and
#: ``mfu_band`` to the band it passes as the range on mfu.
REPORT_SET_KEYS = ("interactive", "mfu_band")
PRICING = ("on_demand", "reserved", "spot", "owned")
#: What a range on ``mfu`` passed to a page by a report is (``mfu_band``), besides the
#: scenario's own range (null): the step-time model's band, or the pilots' band.
MFU_BANDS = ("predicted", "pilot")
COMPUTE_DTYPES = ("bf16", "fp8")
_WEIGHT_DTYPES = ("bf16", "fp16", "fp8", "int8", "int4", "nvfp4", "mxfp4")  # inference.WEIGHT_BYTES


class ScenarioError(ValueError):
    """A scenario or parameter value breaks a rule; the message names the key and the rule."""


class ScenarioDoesNotFit(ScenarioError, DoesNotFit):
    """A ``ScenarioError`` whose cause is a ``core.hardware.DoesNotFit`` (the model, a batch or
    a plan does not fit the scenario's GPUs): caught as either type."""


class ScenarioNeverFinishes(ScenarioError):
    """A run the bill refuses because it never finishes: interruptions come faster than a
    checkpoint and a restart, or a job that cannot resume is expected to take over a million
    times its length (``ledger._phase_goodput``, ``ledger._check_goodput``). A saving against
    it is an unbounded loss (``levers.price_lever``), where a scenario refused for another
    reason (no catalogue price) is only not priced: callers tell them apart by this type."""


def scenario_error(message: str, cause: BaseException | None = None) -> ScenarioError:
    """A ``ScenarioError`` of ``message`` that keeps the kind of its ``cause``: a
    ``ScenarioDoesNotFit`` when the cause is a ``DoesNotFit``, a ``ScenarioNeverFinishes`` when
    it is one, so a caller catches either by type through the bill's re-wrapping."""
    if isinstance(cause, ScenarioNeverFinishes):
        return ScenarioNeverFinishes(message)
    return ScenarioDoesNotFit(message) if isinstance(cause, DoesNotFit) else ScenarioError(message)


@dataclass(frozen=True)
class Param:
    """One shared parameter: its Python type, a check and a one-line meaning."""

    name: str
    kind: str  # "str", "int", "float", "bool", "float|str", "float|none", "str|bool"
    doc: str
    check: Callable[[str, Any], Any] | None = None


# ------------------------------------------------------------------------------ checks
def _refuse_if(broken: Callable[[Any], bool], rule: str) -> Callable[[str, Any], Any]:
    """A range check: ``ScenarioError("{name}={v!r} must {rule}")`` when ``broken(v)``, else
    the value (the six checks below; each keeps its own comparison, so a NaN passes or fails
    as it always has)."""
    def check(name, v):
        if broken(v):
            raise ScenarioError(f"{name}={v!r} must {rule}")
        return v
    return check


_positive = _refuse_if(lambda v: v <= 0, "be > 0")
#: an RL campaign's size: 0 is no campaign, said by another key (a trial wrote rl_iterations: 0)
_rl_count = _refuse_if(lambda v: v <= 0, "be > 0 (to bill no RL campaign, write ledger_rl: false)")
_nonnegative = _refuse_if(lambda v: v < 0, "be >= 0")
#: a budget: > 0, or null for the bill's own total (a finance trial read a bare "must be > 0")
_budget = _refuse_if(lambda v: v <= 0, "be > 0 (null: the bill's total, the alerts' default)")
_fraction = _refuse_if(lambda v: not 0 < v <= 1, "be in (0, 1]")
_reserve = _refuse_if(lambda v: not 0 <= v < 1, "be in [0, 1)")
#: the contingency reserve, a share of the lines above it: 1 doubles them (a trial budgeted
#: 100 %); above 1 is refused as a likely percentage typed for a fraction
_contingency = _refuse_if(lambda v: not 0 <= v <= 1, "be in [0, 1], a share of the lines "
                          "above (1 doubles them; write 0.1 for 10%)")
_probability = _refuse_if(lambda v: not 0 <= v <= 1, "be a probability in [0, 1]")
_at_least_one = _refuse_if(lambda v: v < 1, "be >= 1")
#: A training sequence of n tokens has n − 1 next-token targets: one token has none (a trial's
#: ``seq_len: 1`` was billed at 40% MFU while its own step-time page predicted 0.3%).
_sequence = _refuse_if(lambda v: v < 2, "be >= 2: a sequence of one token has no next token "
                       "to train on")
#: PUE = facility power ÷ IT power, >= 1 by definition; the Uptime Institute's industry
#: average was 1.58 in 2023 (its Global Data Center Survey; "Large data centers are mostly
#: more efficient, analysis confirms", Uptime Intelligence update 221, 2023-11-23), so above
#: 3, near twice that, is refused as a slip (110 meaning 1.10 written as a percent).
_pue = _refuse_if(lambda v: not 1 <= v <= 3,
                  "be in [1, 3]: facility power ÷ IT power, 1 at best (the Uptime Institute's "
                  "2023 industry average: 1.58; 110% is 1.10)")
#: The exploratory fraction: Cottier et al. 2024's 90% interval is 0.2-3.0 final runs beyond
#: the final run (data/ledger_defaults.csv); above 10, over three times that interval's top, is
#: refused as a slip (119 meaning 1.19 written as a percent).
EXPLORATORY_FRACTION_MAX = 10.0
_exploratory_fraction = _refuse_if(
    lambda v: not 0 <= v <= EXPLORATORY_FRACTION_MAX,
    "be in [0, 10]: the development compute beyond the final run, in multiples of the final "
    "run's compute (Cottier et al. 2024's 90% interval: 0.2-3.0; 119% is 1.19)")
#: a role's fte, months and pay: 0 prices the role at $0 (a data trial's `months: 0` read
#: "people $0.00, modelled" without a word)
_role_positive = _refuse_if(
    lambda v: not v > 0, "be > 0: a role of 0 people, months or pay adds $0 to the bill; "
    "leave the role out, or give what it costs")


def _pretraining_tokens(name, v):
    """A count of tokens, >= 0: 0 bills post-training alone (the base model taken as trained:
    ``scenario.post_training_only``; ``check_post_training_only`` asks for what it bills); a
    negative count refused as the slip it is (a trial's -4e12 printed as -4000000000000.0)."""
    if v < 0:
        shown = f"{v:.4g}" if abs(v) >= 1e6 else repr(v)   # -4e+12, not -4000000000000.0
        raise ScenarioError(f"{name}={shown} must be >= 0: a count of tokens (0 bills "
                            "post-training alone, the base model taken as trained)")
    return v


#: The fine-tuning lines' tokens (SFT, continued pre-training, LoRA): a bill of post-training
#: alone (``train_tokens: 0``) bills them or an RL campaign, one at least.
TUNING_TOKEN_KEYS = ("ledger_sft_tokens", "ledger_cpt_tokens", "ledger_lora_tokens")
#: What a bill of post-training alone cannot apply, with why: refused where given, not dropped.
NO_PRETRAINING_KEYS = {
    "ledger_exploratory_fraction": "Cottier et al.'s multiplier is of a final pre-training run "
                                   "(list the post-training's sweeps in ledger_exploratory_runs)",
    "ledger_rerun_probability": "the rerun reserve reruns the final pre-training run",
    "ckpt_milestone_every_days": "the checkpoint-storage line is not modelled without "
                                 "pre-training",
    "ckpt_retention_months": "the checkpoint-storage line is not modelled without pre-training",
    "ckpt_cold_tier": "the checkpoint-storage line is not modelled without pre-training"}


def post_training_only(scenario: dict) -> bool:
    """Whether a scenario bills post-training alone: ``train_tokens`` 0, the base model taken as
    trained (a team fine-tuning or running RL on a released model).
    ``check_post_training_only`` refuses such a scenario without post-training to bill."""
    if not isinstance(scenario, dict):
        raise ValueError(f"scenario={scenario!r} must be a mapping of parameter names to values")
    return not _nonzero(scenario.get("train_tokens", 1))


def trains_on_n_gpus(scenario: dict) -> bool:
    """Whether a bill trains every weight on the scenario's ``n_gpus``, so that the states and
    the parallel plan must fit there: a pre-training run, or in a bill of post-training alone
    (``post_training_only``) a full fine-tune (SFT or continued pre-training). LoRA (frozen
    weights: its memory is not modelled) and an RL campaign (on ``rl_gpus``, its own memory
    checks) do not."""
    if not post_training_only(scenario):
        return True
    return any(_any_nonzero(scenario.get(k)) for k in TUNING_TOKEN_KEYS[:2])


def prices_at_mfu(scenario: dict) -> bool:
    """Whether any line of a bill is priced at the scenario's MFU: a pre-training run, or in a
    bill of post-training alone (``post_training_only``) a fine-tune (SFT, continued
    pre-training or LoRA); an RL campaign alone is timed by the step model (``rl_`` keys)."""
    if not post_training_only(scenario):
        return True
    return any(_any_nonzero(scenario.get(k)) for k in TUNING_TOKEN_KEYS)


def schedule_parts_words(scenario: dict, with_phases: str = "") -> str:
    """What a bill's compute schedule lays one after the other, in words: "exploration, the
    final run and post-training" (``with_phases``: words after "the final run", e.g. " with its
    2 other pre-training phases"), or "exploration and post-training" for a bill of
    post-training alone (``post_training_only``: no final run)."""
    return ("exploration and post-training" if post_training_only(scenario) else
            f"exploration, the final run{with_phases} and post-training")


def _nonzero(x) -> bool:
    """Whether a quantity is non-zero in at least one draw (``ledger._given``'s rule)."""
    return bool(np.any(np.asarray(x) != 0))


def _any_nonzero(v) -> bool:
    """Whether a quantity is non-zero in at least one draw, as the bill decides a line's
    status (``ledger._given``): a number or draws, or a ``Range`` any of whose ends is (a
    review's SFT range of low 0, mode 0, high 1e10 was billed while the header said no
    fine-tune)."""
    if isinstance(v, Range):
        return any(_nonzero(getattr(v, e, None) or 0) for e in ("low", "mode", "high", "cut",
                                                                 "p10", "p90"))
    return v is not None and _nonzero(v)


def check_post_training_only(p: dict) -> None:
    """A scenario of ``train_tokens: 0`` (post-training alone, the base model taken as trained)
    must bill some post-training, ``ledger_sft_tokens``, ``ledger_cpt_tokens``,
    ``ledger_lora_tokens`` or an RL campaign (``ledger_rl`` resolved: ``rl_campaign_given``),
    and no pre-training ``phases`` (they extend a pre-training run it does not have), no
    published defaults (a frontier pre-training project's), no exploratory fraction and no
    rerun probability (``NO_PRETRAINING_KEYS``: both are of a final pre-training run).
    ``p``: the ledger's values, defaults filled and ``ledger_rl`` resolved."""
    if p.get("train_tokens") != 0:
        return
    if p.get("phases"):
        raise ScenarioError(
            f"phases={[ph.get('name') for ph in p['phases']]!r} with train_tokens=0: phases "
            "extend a pre-training run, and train_tokens: 0 bills post-training alone; give "
            "the pre-training's train_tokens, or bill a released model's extension as "
            "ledger_cpt_tokens (continued pre-training)")
    if p.get("ledger_published_defaults"):
        raise ScenarioError(
            "ledger_published_defaults=true with train_tokens=0: the published defaults are a "
            "frontier pre-training project's (Llama 2's annotation counts, FineWeb's processing "
            "of a pre-training corpus, Epoch's project lengths); a bill of post-training alone "
            "gives its data, evaluation and people lines itself")
    for key in ("ledger_exploratory_fraction", "ledger_rerun_probability"):
        if p.get(key) is not None and (key != "ledger_rerun_probability"
                                       or _any_nonzero(p[key])):
            shown = p[key].describe() if isinstance(p[key], Range) else repr(p[key])
            raise ScenarioError(f"{key}={shown} with train_tokens=0 (post-training alone): "
                                f"{NO_PRETRAINING_KEYS[key]}; leave it out")
    tuned = any(_any_nonzero(p.get(k)) for k in TUNING_TOKEN_KEYS)
    if not tuned and not p.get("ledger_rl"):
        raise ScenarioError(
            "train_tokens=0 bills post-training alone (the base model taken as trained), and "
            "the scenario gives none: give ledger_sft_tokens, ledger_cpt_tokens, "
            "ledger_lora_tokens or an RL campaign (rl_iterations, rl_runs), or the "
            "pre-training's train_tokens (> 0)")


#: a GPU-hour price: 0 is refused with where a free or prepaid hour goes (a trial's startup
#: asked how to price cloud credits and hardware already paid for)
_price = _refuse_if(
    lambda v: v <= 0, "be > 0 (hardware already bought: pricing: owned with "
    "ledger_owned_usd_per_gpu, its purchase price amortised; cloud credits: the price the hours "
    "would cost, since credits spent here are not spent elsewhere)")


#: What a scenario's ``dtype`` written as an FP8 format or recipe stands for (``_dtype``): the
#: element format is not a key (the recipe sets it: Transformer Engine's ``Format.HYBRID``
#: trains the forward in E4M3 and the gradients in E5M2, MXFP8 in E4M3), the scaling is
#: ``fp8_recipe``'s. Keys as ``choice_spelling`` writes them (hyphens and spaces as underscores).
_FP8_SPELLINGS = {"fp8_e4m3": None, "e4m3": None, "fp8_e5m2": None, "e5m2": None,
                  "fp8_hybrid": None, "mxfp8": "mxfp8", "fp8_mx": "mxfp8", "fp8mx": "mxfp8",
                  "fp8_cs": "current", "fp8cs": "current", "fp8_current": "current",
                  "fp8_delayed": "delayed", "fp8_blockwise": "blockwise"}


def _dtype(name, v):
    """``dtype``: one of ``COMPUTE_DTYPES`` (any case); an FP8 element format or recipe written
    in its place ("fp8-e4m3", "mxfp8": a new user's first tries) is refused with what to write."""
    try:
        return _one_of(*COMPUTE_DTYPES)(name, v)
    except ScenarioError as e:
        if not isinstance(v, str) or choice_spelling(v) not in _FP8_SPELLINGS:
            raise
        recipe = _FP8_SPELLINGS[choice_spelling(v)]
        raise ScenarioError(f"{e} (write fp8" + (f", with fp8_recipe: {recipe}" if recipe else
                            ": the recipe takes E4M3 and E5M2 where it uses them; fp8_recipe "
                            "names its scaling") + ")") from None


def choice_spelling(word: str) -> str:
    """A choice's spelling for comparison: case folded, hyphens and spaces as underscores
    (``pricing: on-demand`` is on_demand; ``claims`` reads a claim's choices so too)."""
    return re.sub(r"[\s-]+", "_", word.strip().casefold())


def _no_scaleout_figure() -> list:
    """The catalogue accelerators without a scale-out bandwidth (data/accelerators.csv), named in
    ``comm_scaleout_bytes_per_s``' help (a small lab's L40S was refused for it, the help naming
    two others)."""
    acc = list_accelerators()
    return sorted(acc.loc[acc["scaleout_bytes_per_s_per_dir"].isna(), "name"])


def _one_of(*allowed):
    """A check that ``v`` is one of ``allowed``; a string that differs from one only in case,
    hyphens or spaces (``dtype: FP8``, ``pricing: on-demand``, a procurement trial's first
    try) is that one, in its spelling here, as a catalogue model name is."""
    def check(name, v):
        if v not in allowed:
            same = [a for a in allowed if isinstance(a, str) and isinstance(v, str)
                    and choice_spelling(a) == choice_spelling(v)]
            if len(same) == 1:
                return same[0]
            raise ScenarioError(f"{name}={v!r} must be one of {', '.join(map(repr, allowed))}")
        return v
    return check


def _etp(name, v):
    """The experts' tensor parallelism: 0 (tp, the default) or 1 (MoE parallel folding), the
    rule of ``parallel.etp_of_key``."""
    try:
        etp_of_key(v, name)
    except ValueError as e:
        raise ScenarioError(str(e)) from None
    return v


def _model(name, v):
    """A catalogue name (its catalogue spelling) or a Hugging Face config: the absolute path of
    the ``config.json`` read, also when ``v`` names the folder holding it (the folder of a
    downloaded checkpoint holds its weights too, which the disk cache's key would read whole:
    ``core.diskcache``, a named folder enters with all its files' bytes)."""
    try:
        spec = load_model(v)
    except ValueError as e:
        raise ScenarioError(str(e)) from None
    if not is_config_path(v):
        return spec.name
    p = Path(v).resolve()
    return str(p / "config.json" if p.is_dir() else p)


def _config_folder(path: Path, name: str) -> bool:
    """Whether a model name without a slash is a folder beside the scenario holding a Hugging
    Face ``config.json`` and no catalogue model (a catalogue name wins)."""
    if not (path / "config.json").is_file():
        return False
    try:
        load_model(name)
    except ValueError:
        return True
    return False


def _efficiency_profile(name, v):
    """An efficiency profile file (``llmcost calibrate --microbench --out``), read and checked
    (``training.efficiency_profile.load_efficiency_profile``); its absolute path."""
    try:
        load_efficiency_profile(v)
    except ValueError as e:
        raise ScenarioError(str(e)) from None
    return str(Path(v).resolve())


def _named_model(name, v):
    """A catalogue model under another key than ``model``: the error names that key."""
    try:
        return _model(name, v)
    except ScenarioError as e:
        raise ScenarioError(f"{name}: {e}") from None


def _accelerator(name, v):
    try:
        return load_accelerator(v).name
    except ValueError as e:
        raise ScenarioError(str(e)) from None


#: The lowest MFU a scenario file may give (its ``mfu``, a range's low end, a phase's): a
#: thousandth of the dense peak, over a hundred times below the lowest MFU of any published run
#: the step model is checked against (``accuracy.validation_table``, notebook 04b: Megatron-LM's
#: 2021 ZeRO-3 comparison of a 175B model, about 10.6%; tests/test_scenario_trial.py holds the
#: factor). Below it a run of a trillion tokens takes millennia and its bill is a typo's (a
#: trial's mfu: 1e-9 billed $2.2e16 with a warning): refused, as absurd magnitudes of other
#: keys are (``MAGNITUDE_LIMITS``); between it and 1% the bill warns (``checks``). Only a given
#: MFU (a scenario file's, ``load_scenario``; a bill's built from a given ``mfu``,
#: ``ledger._values``): one the package derives (a claim's implied MFU, a pilot's, a
#: prediction; ``ledger.DERIVED_MFU_KEYS``) is judged by its own checks.
MFU_FLOOR = 1e-3


def _mfu(name, v):
    if 1 < v <= 100:
        raise ScenarioError(f"{name}={v!r} must be in (0, 1]: a fraction of peak (40% is 0.40)")
    return _fraction(name, v)


def check_mfu_floor(out: dict) -> None:
    """``MFU_FLOOR`` on the MFUs a scenario gives: its ``mfu`` (a number, or a range's low end)
    and each phase's; a ScenarioError naming the key, the value and the rule."""
    given = [("mfu", out.get("mfu"))] + [
        (f"phases[{i}].mfu", ph.get("mfu")) for i, ph in enumerate(out.get("phases") or [])
        if isinstance(ph, dict)]
    for key, v in given:
        low = v.bounds[0] if isinstance(v, Range) else v
        if isinstance(low, (int, float)) and not isinstance(low, bool) and 0 < low < MFU_FLOOR:
            what = f"{key}'s range low end {low:.3g}" if isinstance(v, Range) else \
                f"{key}={low:.3g}"
            raise ScenarioError(f"{what} is below {MFU_FLOOR:g} (0.1% of the dense peak), over "
                                "a hundred times under the lowest MFU of any published run the "
                                "step model is checked against (notebook 04b): give a fraction "
                                "of peak (40% is 0.40)")


def _ckpt_recipe(name, v):
    return _one_of(*CHECKPOINT_RECIPES)(name, v)


def _storage_tier(name, v):
    return _one_of(*_storage_tier_names())(name, v)


def _hot_tier(name, v):
    """A tier of ``data/storage_prices.csv`` that is not a cold (archive) one: a hot tier
    restores the last checkpoint at every restart, and an archive's retrieval takes hours (an
    SRE trial's ``ckpt_hot_tier: s3-glacier-deep-archive`` was priced as restoring in 0.1 s)."""
    v = _storage_tier(name, v)
    cold = _cold_tiers()
    if v in cold:
        raise ScenarioError(f"{name}={v!r} is a cold (archive) tier ({cold[v]}): a hot "
                            "tier restores the last checkpoint at every restart; give it to "
                            "ckpt_cold_tier, and one of "
                            + ", ".join(repr(t) for t in _storage_tier_names() if t not in cold)
                            + " here")
    return v


@lru_cache(maxsize=1)
def _cold_tiers() -> dict:
    """The cold (archive) tiers of ``data/storage_prices.csv``, name -> product, read once (as
    ``_storage_tier_names``: a hardware sweep validates hundreds of scenarios)."""
    t = load_storage_prices()
    return dict(zip(t.loc[t["tier"] == "cold", "name"], t.loc[t["tier"] == "cold", "product"]))


@lru_cache(maxsize=1)
def _storage_tier_names() -> tuple:
    """The tiers of ``data/storage_prices.csv``, read once (a bill's validation checks two tier
    keys per scenario, and a hardware sweep validates hundreds)."""
    return tuple(load_storage_prices()["name"])


def _recipe(name, v):
    return _one_of(*RECIPES)(name, v)


def _stack(name, v):
    """A stack profile's name (``data/stacks.csv``), in its spelling there whatever the case
    (``MEGATRON-CORE-2024`` is ``megatron-core-2024``, as ``dtype: FP8`` is ``fp8``)."""
    try:
        return load_stack(v.casefold() if isinstance(v, str) else v).name
    except ValueError as e:
        raise ScenarioError(str(e)) from None


def _auto_or_bool(name, v):
    """true, false or 'auto' (any case)."""
    if isinstance(v, bool):
        return v
    if isinstance(v, str) and v.casefold() == "auto":
        return "auto"
    raise ScenarioError(f"{name}={v!r} must be true, false or 'auto'")


def _fsdp_shard(name, v):
    """'full', 'auto' (any case), 0 (chosen) or a whole number >= 1."""
    if isinstance(v, str):
        if v.casefold() in ("full", "auto"):
            return v.casefold()
        raise ScenarioError(f"{name}={v!r} must be 'full', 'auto', 0 (chosen) or a whole number "
                            ">= 1")
    if v < 0:
        raise ScenarioError(f"{name}={v!r} must be >= 0 (0: chosen), 'full' or 'auto'")
    return v


def _scaling_fit(name, v):
    return _one_of(*LOSS_FITS)(name, v)


def _dataset_tier(name, v):
    return _storage_tier(name, v)


def _records(fields: dict, required: tuple):
    """A check for a list of mappings: ``fields`` maps each allowed key to (kind, rule). Records
    named by ``name`` (or ``role``) must not repeat a name; records without one (pilot runs)
    may be several."""
    def check(name, v):
        seen = set()
        for i, item in enumerate(v):
            where = f"{name}[{i}]"
            if not isinstance(item, dict):
                raise ScenarioError(f"{where}={item!r} must be a mapping with keys "
                                    f"{', '.join(fields)}")
            for k in item:
                if k not in fields:
                    raise ScenarioError(f"{where}: unknown key {k!r} (allowed: "
                                        f"{', '.join(fields)})")
            for k in required:
                if k not in item:
                    raise ScenarioError(f"{where}: missing key {k!r}")
            for k, value in item.items():
                kind, rule = fields[k]
                if kind in ("float", "int") and (isinstance(value, (list, tuple)) or (
                        isinstance(value, dict) and ("low" in value or "dist" in value))):
                    # a range inside a record (a finance trial's fte: [1, 3]) read "must be a
                    # number": said what is and is not ranged
                    raise ScenarioError(
                        f"{where}.{k}={value!r} must be one number: a range is not taken inside "
                        f"{name}'s records, only by a top-level key ("
                        + ("roles without months take ledger_project_months, which may be one, "
                           "e.g. [5, 8]; " if name == "ledger_people" else "")
                        + "llmcost.ranges.RANGEABLE_KEYS); or price the low and the high case "
                        "as two scenarios with `llmcost estimate --compare`")
                item[k] = _coerce(Param(f"{where}.{k}", kind, ""), value)
                if rule is not None:
                    rule(f"{where}.{k}", item[k])
            key = item.get("name", item.get("role"))
            if key is None:  # records without a name (pilot runs) may repeat
                continue
            if key in seen:
                raise ScenarioError(f"{where}: {key!r} appears twice")
            seen.add(key)
        return v
    return check


def _phases(name, v):
    for i, ph in enumerate(v):
        mfu = ph.get("mfu") if isinstance(ph, dict) else None
        if isinstance(mfu, str) and mfu.strip().lower() == MFU_PREDICT:
            raise ScenarioError(f"{name}[{i}].mfu={mfu!r}: a phase's MFU is not predicted "
                                "(`mfu: predict` is the main run's); leave the phase's mfu out "
                                "to price it at the main run's MFU and plan, or give a number "
                                "in (0, 1]")
    v = _records({"name": ("str", None), "tokens": ("float", _positive),
                  "seq_len": ("int", _sequence), "n_gpus": ("int", _positive),
                  "mfu": ("float", _mfu)}, ("name", "tokens", "seq_len"))(name, v)
    for i, ph in enumerate(v):
        if ph["name"] == "main":
            raise ScenarioError(f"{name}[{i}]: name 'main' is the pre-training run itself "
                                "(train_tokens); name the extra phase otherwise")
        if not ph["name"].strip():  # its bill line would read "pre-training phase: "
            raise ScenarioError(f"{name}[{i}].name={ph['name']!r} must name the phase (its bill "
                                "line's label), e.g. long-context")
    return v


def _pilot(name, v):
    """A list of pilot runs (``llmcost.training.calibrate.PILOT_KEYS``): the GPU count and the
    measured tokens/s per GPU required; the plan fields default to 1 (``tp``, ``pp``, ``cp``,
    ``ep``, ``micro_batch_size``, ``virtual_stages``) and ``zero_stage``, ``recompute`` and
    ``etp`` (0 or 1, as the scenario's key) to the scenario's (0 and none where it leaves them
    to the search);
    ``seq_len`` and ``global_batch_tokens`` default to the scenario's. The deep checks
    (roofline, memory, plan rules) run when the pilot is calibrated."""
    return _records({k: (kind, _etp if k == "etp" else _positive
                         if kind in ("int", "float") and k != "zero_stage"
                         else None) for k, kind in PILOT_KEYS.items()},
                    ("n_gpus", "tokens_per_s_per_gpu"))(name, v)


#: The registry. Add a topic's parameters here with a prefix (``rl_``, ``ckpt_``, ...).
PARAMETERS: dict[str, Param] = {p.name: p for p in [
    Param("model", "str", "catalogue model name (llmcost list models), or a path to a Hugging "
          "Face config.json", _model),
    Param("accelerator", "str", "catalogue accelerator name (llmcost list accelerators)",
          _accelerator),
    Param("n_gpus", "int", "accelerators in the training job", _positive),
    Param("train_tokens", "float", "pre-training tokens", _pretraining_tokens),
    Param("seq_len", "int", "training sequence length in tokens", _sequence),
    Param("global_batch_tokens", "int", "tokens per optimizer step", _positive),
    Param("mfu", "float", "steady-state model FLOPs utilisation in (0, 1], on the dense peak of "
          "the training dtype and the workbook's FLOP count (the matmuls' 6·N per token plus "
          "the attention core with a full mask, llmcost.model_flops_per_token, above 6·N·D by a "
          "share that grows with the sequence: an MFU quoted on 6·N·D prices the run slower "
          "than it ran unless multiplied by that ratio first, which `llmcost estimate` "
          "prints); in a scenario file "
          "'predict' asks the report to predict it (llmcost.step); not with a pilot (pilot or "
          "ledger_pilot_tokens_per_s_per_gpu), whose throughput sets it", _mfu),
    Param("dtype", "str", f"training compute precision: {', '.join(COMPUTE_DTYPES)} (fp8: "
          "the GEMMs in FP8, E4M3 and E5M2 as the recipe takes them; fp8_recipe names its "
          "scaling)", _dtype),
    Param("fp8_recipe", "str", "the FP8 scaling recipe under dtype fp8, whose casts the "
          f"step-time model prices (llmcost.elementwise.fp8_cast_bytes): {', '.join(FP8_RECIPES)}"
          " (current: per-tensor current scaling, Transformer Engine's Float8CurrentScaling, "
          "the default; delayed: per-tensor from an amax history; mxfp8: 32-element blocks, "
          "Blackwell only; blockwise: DeepSeek-V3's 1×128 / 128×128 tiles)",
          _one_of(*FP8_RECIPES)),
    Param("price_usd_per_gpu_hour", "float|none",
          "USD per accelerator-hour; null: the catalogue median for `pricing`", _price),
    Param("pricing", "str", f"pricing mode: {', '.join(PRICING)}", _one_of(*PRICING)),
    Param("interactive", "bool", "widgets on (reading) or off (report runs)"),
    Param("mfu_band", "str|none", "what a range on mfu is, set by a report (not in a scenario "
          "file): null, the scenario's own range; predicted, the step-time model's band around "
          "its prediction (mfu: predict); pilot, the pilots' extrapolation band around the "
          "calibrated MFU", _one_of(*MFU_BANDS)),
    # checkpoints and failures (notebook 07, llmcost.reliability)
    Param("ckpt_recipe", "str", "what a checkpoint saves, bytes per parameter "
          "(llmcost.reliability.CHECKPOINT_RECIPES)", _ckpt_recipe),
    Param("ckpt_interval_s", "float|none",
          "compute seconds between checkpoints; null: the optimum for the job's MTBF", _positive),
    Param("ckpt_async", "bool", "asynchronous checkpoints (only the device-to-host snapshot "
          "blocks training)"),
    Param("ckpt_storage_bytes_per_s", "float|none", "aggregate sustained storage bandwidth, "
          "bytes/s; null: sized from the checkpoint plan, the bandwidth minimising hot-storage "
          "cost + the cost of GPU time lost to writes and restores "
          "(llmcost.reliability.sized_storage_bytes_per_s)", _positive),
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
    Param("ckpt_hot_tier", "str", "hot storage tier (data/storage_prices.csv name, not a cold "
          "one)", _hot_tier),
    Param("ckpt_cold_tier", "str", "cold storage tier (data/storage_prices.csv name)",
          _storage_tier),
    Param("fail_rate_per_gpu_year", "float", "unexpected interruptions per GPU-year (>= 0; 0: "
          "a job that never fails, an infinite MTBF)", _nonnegative),
    Param("fail_planned_per_day", "float", "planned interruptions of the whole job per day, "
          "whatever its size (default 0.87: Llama 3's 47 planned stops in 54 days of one "
          "16,384-GPU job, not scaled by GPUs or nodes)", _nonnegative),
    # ---- the parallel plan (notebook 03; llmcost.parallel, llmcost.memory). A value of 0
    # (-1 for zero_stage, "auto" for names) leaves that part of the plan to be chosen.
    Param("tp", "int", "tensor-parallel size; 0: chosen", _nonnegative),
    Param("pp", "int", "pipeline-parallel stages; 0: chosen", _nonnegative),
    Param("dp", "int", "data-parallel size; 0: derived as n_gpus / (tp·pp·cp), or chosen",
          _nonnegative),
    Param("cp", "int", "context-parallel size; 0: chosen", _nonnegative),
    Param("ep", "int", "expert-parallel size (carved out of dp·cp; of tp·dp·cp with etp 1); "
          "0: chosen", _nonnegative),
    Param("etp", "int", "experts' tensor parallelism: 0 = tp (default); 1 = MoE parallel "
          "folding, ep over tp·dp·cp (Megatron-Core expert_tensor_parallel_size 1; "
          "arXiv:2504.14960)", _etp),
    Param("zero_stage", "int", "ZeRO stage over the dp·cp group (3 = FSDP); -1: chosen",
          _one_of(-1, 0, 1, 2, 3)),
    Param("recompute", "str", "activation recomputation",
          _one_of("none", "selective", "full", "auto")),
    Param("micro_batch_size", "int", "sequences per micro-batch; 0: chosen", _nonnegative),
    Param("optimizer_recipe", "str|none",
          "bytes-per-parameter precision recipe (llmcost.memory.RECIPES); null: for dtype "
          "fp8 on a stack that caches FP8 weights (Megatron-Core), fp8_mixed_transpose on "
          "Hopper (the cached copy and its transpose) and fp8_mixed on other hardware, else "
          "bf16_adam_fp32_grads (llmcost.memory.scenario_recipe_name)", _recipe),
    Param("pp_schedule", "str", "pipeline schedule",
          _one_of("1f1b", "interleaved", "gpipe", "zb-h1", "auto")),
    Param("pp_virtual_stages", "int",
          "model chunks per pipeline stage (interleaved schedule); 0: chosen", _nonnegative),
    Param("pp_split", "str", "layer placement on pipeline stages: 'auto', 'even', "
          "'embedding_and_loss' or 'uneven'; auto: even where pp·virtual stages divide the "
          "layers, else uneven (v = 1), chosen by step time (even on a stack without uneven "
          "splits); embedding_and_loss: layers + 2 slots (Llama 3); uneven: any pp up to the "
          "layers, as evenly as whole layers allow",
          _one_of("auto", "even", "embedding_and_loss", "uneven")),
    Param("fsdp_shard_size", "int|str", "hybrid sharding (HSDP): data-parallel ranks ZeRO-3 "
          "shards parameters, gradients and optimizer states over, replicated across the rest; "
          "'full' (default): the whole dp·cp group (plain ZeRO-3); 'auto' or 0: chosen among "
          "the stack's HSDP sizes; needs zero_stage 3", _fsdp_shard),
    Param("mem_reserve_fraction", "float",
          "fraction of HBM held back for buffers and fragmentation, in [0, 1)",
          _reserve),
    # ---- batch size (notebook 02; it reads the parallel plan above)
    Param("batch_target_loss", "float|none", "target loss in nats on Kaplan et al. 2020's scale; "
          "null: the loss the planned run reaches", _positive),
    Param("batch_noise_tokens", "float|none", "gradient noise scale B_noise in tokens (e.g. "
          "measured in a pilot run); null: Kaplan's critical batch at the target loss", _positive),
    Param("batch_base_lr", "float", "peak learning rate used at global_batch_tokens", _positive),
    # ---- communication and step time (notebook 04; llmcost.comm, llmcost.step, llmcost.stacks)
    Param("stack", "str", "software-stack profile (data/stacks.csv; llmcost.stacks.load_stack): "
          "the features plan search may use and the default overlaps", _stack),
    Param("comm_tp_overlap", "str", "which tensor-parallel collectives overlap GEMMs: none, "
          "backward (Megatron-LM's asynchronous backward), all, or auto (the stack's)",
          _one_of("none", "backward", "all", "auto")),
    Param("comm_pp_overlap", "str|bool", "pipeline sends and receives overlap compute (only the "
          "fill and drain wait for them): true, false or auto (the stack's; Megatron-Core's only "
          "under the interleaved schedule)", _auto_or_bool),
    Param("comm_dp_overlap", "str|bool", "data-parallel gradient reduction and ZeRO gathers "
          "overlap the backward and forward passes: true, false or auto (the stack's)",
          _auto_or_bool),
    Param("fsdp_backward_prefetch", "str", "under ZeRO-3 on a PyTorch FSDP stack, when the next "
          "layer's backward all-gather is issued: pre (before the current layer's gradient "
          "computation, hidden behind it; FSDP2, FSDP1's BACKWARD_PRE), post (after it, "
          "exposed; FSDP1's BACKWARD_POST, Composer's default) or auto (the stack's; "
          "llmcost.comm.fsdp_exposure); post needs a PyTorch FSDP stack",
          _one_of("auto", "pre", "post")),
    # ---- scale-out network figures for accelerators without them in the catalogue
    Param("comm_scaleout_bytes_per_s", "float|none", "scale-out (NIC) bandwidth per GPU per "
          "direction, bytes/s; null: data/accelerators.csv (give it for "
          f"{', '.join(_no_scaleout_figure())}, which the catalogue has none for)",
          _positive),
    Param("comm_scaleout_latency_s", "float|none", "latency of one step across scale-up "
          "domains of the α-β collectives (pipeline sends, the MoE all-to-all), s; the "
          "data- and tensor-parallel collectives take NCCL's own per-protocol latencies "
          "(tuning.cc); null: data/efficiency.csv", _nonnegative),
    # ---- serving, demand and the RL loop (notebook 05; llmcost.inference, llmcost.rl)
    Param("serve_weight_dtype", "str", "serving weight precision, also the RL rollouts' "
          "unless rl_rollout_weight_dtype gives theirs (llmcost.rl.scenario_iteration)",
          _one_of(*_WEIGHT_DTYPES)),
    Param("serve_kv_dtype", "str", "KV-cache precision, also the RL rollouts'",
          _one_of("bf16", "fp16", "fp8")),
    Param("serve_tp", "int", "tensor-parallel GPUs per serving replica; 0: the cheapest per "
          "token (llmcost.inference.choose_serving_tp)", _nonnegative),
    Param("serve_batch", "int", "sequences per replica; 0: the largest that fits in HBM",
          _nonnegative),
    Param("serve_occupancy", "float", "mean occupied share of the batch slots (continuous "
          "batching)", _fraction),
    Param("serve_max_tpot_s", "float|none", "latency target, seconds per output token; null: "
          "none", _positive),
    Param("inference_prompt_tokens", "int", "input tokens per request", _positive),
    Param("inference_output_tokens", "int", "output tokens per request", _positive),
    Param("rl_algorithm", "str", "RL post-training algorithm: grpo, ppo or dpo (preference "
          "pairs, no generation)", _one_of("grpo", "ppo", "dpo")),
    Param("rl_reward", "str", "scoring: a rule-based verifier or a reward model of the "
          "policy's size", _one_of("verifier", "reward_model")),
    Param("rl_prompts_per_step", "int", "prompts per RL iteration", _positive),
    Param("rl_samples_per_prompt", "int", "responses per prompt (GRPO's group size G)", _positive),
    Param("rl_prompt_tokens", "int", "prompt tokens", _positive),
    Param("rl_response_tokens", "int", "mean response tokens", _positive),
    Param("rl_response_tokens_max", "int", "longest response (the generation limit)", _positive),
    Param("rl_ppo_epochs", "int", "passes over each batch per iteration", _positive),
    Param("rl_gpus", "int", "GPUs of the RL job", _positive),
    Param("rl_rollout_gpus", "int", "GPUs of a separate rollout engine, taken out of rl_gpus "
          "(the rest train); 0: colocated",
          _nonnegative),
    Param("rl_rollout_tp", "int", "tensor-parallel GPUs per rollout replica", _positive),
    Param("rl_rollout_weight_dtype", "str|none", "the RL rollouts' weight precision (e.g. fp8: "
          "an 8-bit copy of the policy generates, the update stays in BF16; FlashRL, FP8-RL); "
          "null: serve_weight_dtype's", _one_of(*_WEIGHT_DTYPES)),
    Param("rl_async", "bool", "asynchronous RL: generation overlaps training (off-policy by one "
          "step; needs rl_rollout_gpus > 0)"),
    Param("rl_partial_rollouts", "bool", "partial rollouts: unfinished responses continue next "
          "step (APRIL, Kimi k1.5)"),
    Param("rl_weight_sync_s", "float|none", "seconds to sync weights to the rollout engine; "
          "null: estimated from link bandwidth", _nonnegative),
    Param("rl_train_mfu", "float|none", "MFU of the scoring and update passes; null: the "
          "step-time model's for the policy's update on the RL GPUs (the fastest plan that "
          "fits, llmcost.step_time)", _mfu),
    Param("rl_verifier_usd_per_sample", "float", "verifier cost per sample, USD", _nonnegative),
    Param("rl_iterations", "int", "RL iterations per run", _rl_count),
    Param("rl_runs", "int", "runs in the post-training campaign (experiments, reruns)",
          _rl_count),
    # the values of llmcost.rl.RL_FRAMEWORKS (a test checks they agree)
    Param("rl_framework", "str", "the RL framework and release whose documented defaults the "
          "iteration takes (refit, host swaps, vLLM caps and memory share: "
          "llmcost.rl.framework_options); generic: none", _one_of(
              "generic", "nemo-rl-0.3", "nemo-rl-0.4", "nemo-rl-0.5", "nemo-rl-0.6")),
    Param("rl_time_factor", "float|none", "measured ÷ predicted RL iteration time: multiplies "
          "the campaign's GPU-hours (null: the median of published GRPO runs, "
          "llmcost.rl.RL_TIME_FACTOR_MEDIAN, 1 for DPO; 1: the model's own prediction; your own "
          "run's ratio, or a range)", _positive),
    # ---- the whole bill (notebook 00, llmcost.ledger; defaults in data/ledger_defaults.csv)
    Param("phases", "list", "extra training phases after the main run (context extension, "
          "annealing): a list of {name, tokens, seq_len, n_gpus?, mfu?}", _phases),
    Param("pilot", "list", "pilot runs as {n_gpus, tokens_per_s_per_gpu, tp?, pp?, cp?, ep?, "
          "zero_stage?, micro_batch_size?, virtual_stages?, recompute?, seq_len?, "
          "global_batch_tokens?, step_time_s?, mfu?, mfu_basis?, peak_memory_gb?}: `llmcost "
          "calibrate` fits the step model to them and extrapolates to the scenario's plan "
          "(llmcost.training.calibrate)", _pilot),
    Param("efficiency_profile", "str|none", "an efficiency profile measured on your own GPU "
          "(`llmcost calibrate --microbench --out PATH`, a path relative to the scenario file): "
          "the step-time model (mfu: predict) prices kernels with its measured fractions "
          "(llmcost.training.efficiency_profile); null: the catalogue's", _efficiency_profile),
    Param("ledger_pilot_tokens_per_s_per_gpu", "float|none", "a pilot run's measured training "
          "tokens/s per GPU: the bill's MFU is calibrated from it; null: use mfu", _positive),
    Param("ledger_pilot_n_gpus", "int|none", "the GPU count the pilot of "
          "ledger_pilot_tokens_per_s_per_gpu ran the scenario's plan on (same micro-batches per "
          "data-parallel rank): its MFU is extrapolated to n_gpus with a band "
          "(llmcost.training.calibrate); null: the pilot ran the plan at n_gpus", _positive),
    Param("ledger_exploratory_fraction", "float|none", "development compute beyond the final "
          "run as a fraction of it (Cottier et al. 2024: 0.2-3.0, null: their median 1.19), less "
          "the bill's post-training, benchmark and rerun-reserve lines, which Cottier's "
          "multiplier counts (to "
          "price exploration alone, list its runs in ledger_exploratory_runs)",
          _exploratory_fraction),
    Param("ledger_exploratory_runs", "list", "exploratory and failed runs listed as "
          "{name, gpu_hours} (replaces the fraction when given)",
          _records({"name": ("str", None), "gpu_hours": ("float", _nonnegative)},
                   ("name", "gpu_hours"))),
    Param("ledger_sft_tokens", "float", "supervised fine-tuning tokens (0: not given)",
          _nonnegative),
    Param("ledger_cpt_tokens", "float", "continued pre-training tokens (0: not given)",
          _nonnegative),
    Param("ledger_lora_tokens", "float", "LoRA fine-tuning tokens (0: not given)", _nonnegative),
    Param("ledger_lora_rank", "int", "LoRA rank r of the attention adapters", _positive),
    Param("ledger_published_defaults", "bool", "price the data, annotation and evaluation lines "
          "the scenario leaves at 0 from published sources (data/ledger_defaults.csv: Llama 2's "
          "annotation counts, FineWeb's processing, HELM's suite), and, without "
          "ledger_project_months, the project at Epoch's median duration (data/ledger_defaults"
          ".csv project_months_published, or the compute schedule if longer); false: 0 and 'not "
          "given'"),
    Param("ledger_data_licensing_usd", "float", "data licensing, USD", _nonnegative),
    Param("ledger_data_processing_usd", "float", "data cleaning and deduplication compute, USD",
          _nonnegative),
    Param("ledger_synthetic_tokens", "float", "synthetic tokens generated", _nonnegative),
    Param("ledger_synthetic_usd_per_mtok", "float|none", "USD per million generated tokens; "
          "null: priced through llmcost.inference.serving_cost", _nonnegative),
    Param("ledger_synthetic_model", "str|none", "catalogue model that generates the synthetic "
          "data; null: the scenario's model", _named_model),
    Param("ledger_annotation_samples", "float", "human-annotated samples (labels, preference "
          "pairs)", _nonnegative),
    Param("ledger_annotation_usd_per_sample", "float", "USD per annotated sample (expert rates "
          "run far higher than crowd rates)", _nonnegative),
    Param("ledger_eval_gpu_hours", "float", "GPU-hours of benchmark runs (given: overrides "
          "ledger_eval_requests)", _nonnegative),
    Param("ledger_eval_requests", "float", "benchmark requests (items × runs × samples), each "
          "inference_prompt_tokens in and inference_output_tokens out, priced through "
          "llmcost.inference.serving_cost", _nonnegative),
    Param("ledger_rl", "bool|none", "bill the RL campaign the rl_ keys describe (notebook 05); "
          "null: when the scenario gives rl_iterations or rl_runs", None),
    Param("ledger_human_eval_hours", "float", "hours of human evaluation and red-teaming",
          _nonnegative),
    Param("ledger_human_eval_usd_per_hour", "float", "USD per hour of human evaluation",
          _nonnegative),
    Param("ledger_dataset_bytes", "float|none", "bytes of one dataset version; null: "
          "train_tokens × 4 bytes", _positive),
    Param("ledger_dataset_versions", "int", "dataset versions kept", _at_least_one),
    Param("ledger_dataset_tier", "str", "storage tier of datasets and logs "
          "(data/storage_prices.csv)", _dataset_tier),
    Param("ledger_log_bytes", "float", "bytes of logs, metrics and traces kept", _nonnegative),
    Param("ledger_dataset_retention_months", "float", "months datasets and logs are kept after "
          "the project (ckpt_retention_months keeps the milestone checkpoints)", _nonnegative),
    Param("ledger_egress_bytes", "float", "bytes sent to the internet (weights, datasets)",
          _nonnegative),
    Param("ledger_cross_region_bytes", "float", "bytes moved between regions", _nonnegative),
    Param("ledger_pue", "float|none", "data-centre PUE (1-3); null: 1.1", _pue),
    Param("ledger_grid_kg_co2e_per_kwh", "float|none", "grid carbon intensity, kg CO2e/kWh; "
          "null: US average", _nonnegative),
    Param("ledger_electricity_usd_per_kwh", "float|none", "electricity price (owned hardware); "
          "null: US industrial", _nonnegative),
    Param("ledger_owned_usd_per_gpu", "float|none", "purchase price of one accelerator "
          "(pricing: owned); null: the sourced H100 SXM price on H100 SXM, refused on any "
          "other accelerator (no sourced price: give its own)", _positive),
    Param("ledger_spot_preemptions_per_node_day", "float|none", "spot pre-emptions per node per "
          "day (pricing: spot, where it must be given: no provider publishes a per-node rate)",
          _nonnegative),
    Param("ledger_spot_restart_s", "float|none", "seconds to regain spot capacity and restart; "
          "null: ckpt_restart_s", _nonnegative),
    Param("ledger_resumable", "bool", "training resumes from checkpoints (false: a failure "
          "or a planned stop restarts the run from scratch)"),
    Param("ledger_people", "list", "people as {role, fte, months?, usd_per_year?} (months: the "
          "project's; usd_per_year: $444k loaded, the mean of Epoch's pay distribution)",
          _records({"role": ("str", None), "fte": ("float", _role_positive),
                    "months": ("float", _role_positive),
                    "usd_per_year": ("float", _role_positive)}, ("role", "fte"))),
    Param("ledger_contributors", "float|none", "contributors the model's paper lists: with "
          "ledger_published_defaults and no ledger_people, staff is contributors × the mean "
          "of Epoch's FTE per contributor (median 0.2) × project months × the mean loaded "
          "cost; null: not given", _positive),
    Param("ledger_operations_usd_per_month", "float", "operations (cluster ops, monitoring, "
          "support), USD per month", _nonnegative),
    Param("ledger_project_months", "float|none", "project duration for people, operations and "
          "storage; null: the compute schedule (exploration, the final run, post-training; with "
          "ledger_published_defaults, Epoch's median project, project_months_published, or that "
          "schedule if longer)", _positive),
    Param("ledger_rerun_probability", "float", "probability the final run must be relaunched "
          "(reserve; netted out of a fractional exploratory line, whose multiplier counts failed "
          "attempts)", _probability),
    Param("ledger_reserve_fraction", "float", "contingency reserve as a fraction of the other "
          "lines, in [0, 1]", _contingency),
    Param("ledger_budget_usd", "float|none", "the budget alerts watch; null: the bill's total",
          _budget),
    # ---- compute-optimal scaling and lifetime demand (notebook 06; llmcost.scaling)
    Param("scaling_fit", "str", "parametric loss fit L(N, D) (llmcost.scaling.LOSS_FITS)",
          _scaling_fit),
    Param("scaling_unique_tokens", "float|none", "unique tokens available (a fixed corpus, "
          "repeats allowed); null: unlimited fresh data", _positive),
    Param("inference_tokens_lifetime", "float", "tokens served over the model's lifetime, "
          "prompt and generated", _nonnegative),
    # ---- waste (notebook 09; llmcost.levers.bill prices it; 0: none given)
    Param("waste_dataloader_stall_fraction", "float", "share of each step GPUs wait on the data "
          "pipeline, in [0, 1): notebook 09's bill with waste uses the MFU mfu × (1 − it) (the "
          "whole bill of notebook 00 and llmcost estimate leaves the waste keys out)", _reserve),
    Param("waste_failed_job_gpu_hours", "float", "GPU-hours failed jobs held their allocation "
          "without computing", _nonnegative),
    Param("waste_debug_gpu_hours", "float", "GPU-hours of forgotten debug and interactive jobs "
          "(hours × GPUs)", _nonnegative),
    Param("waste_dataset_copies", "int", "duplicate copies of the dataset kept beside "
          "ledger_dataset_versions", _nonnegative),
]}

#: Scenario keys beyond ``LEDGER_DEFAULTS`` that the bill reads when given: the software stack
#: the RL campaign's update runs on (left out, ``stacks.DEFAULT_STACK``) and the experts' layout
#: its plan search takes (``etp``; left out, 0: the experts' TP equal to tp), both
#: ``rl.ITERATION_KEYS``. ``bill_values`` keeps them, so that the headline, notebook 09 and
#: ``build_ledger`` of the scenario price one bill.
BILL_EXTRA_KEYS = ("stack", "etp")


def bill_values(values: dict) -> dict:
    """The keys of ``values`` the bill reads: ``LEDGER_DEFAULTS``' and ``BILL_EXTRA_KEYS``."""
    return {k: values[k] for k in (*LEDGER_DEFAULTS, *BILL_EXTRA_KEYS) if k in values}


#: What the bill uses for every key a scenario leaves out: the notebooks' defaults (the default
#: scenario's values; tests/test_ledger.py checks that notebook 00 declares exactly these).
#: Except the price: a scenario that leaves out ``price_usd_per_gpu_hour`` gets null (the
#: catalogue median for its accelerator and pricing mode) in the bill and in every notebook of a
#: report (``ledger._values``, ``report.plan_report``), never the default scenario's $3.99.
LEDGER_DEFAULTS = {
    "model": "llama-2-70b", "accelerator": "H100-SXM", "n_gpus": 2048, "train_tokens": 2.0e12,
    "seq_len": 4096, "mfu": 0.4, "dtype": "bf16", "price_usd_per_gpu_hour": 3.99,
    "pricing": "on_demand", "mfu_band": None, "ckpt_recipe": "bf16-adam",
    "ckpt_interval_s": None,
    "ckpt_async": False, "ckpt_storage_bytes_per_s": None, "ckpt_node_bytes_per_s": 5.0e10,
    "ckpt_d2h_bytes_per_s": 5.0e10, "ckpt_restart_s": 600.0, "ckpt_keep_last": 3,
    "ckpt_milestone_every_days": 7.0, "ckpt_retention_months": 12.0,
    "ckpt_hot_tier": "fsx-lustre-ssd", "ckpt_cold_tier": "s3-glacier-deep-archive",
    "fail_rate_per_gpu_year": 0.173, "fail_planned_per_day": 0.87,
    "phases": [], "pilot": [], "ledger_pilot_tokens_per_s_per_gpu": None,
    "ledger_pilot_n_gpus": None,
    "ledger_exploratory_fraction": None,
    "ledger_exploratory_runs": [], "ledger_sft_tokens": 0.0, "ledger_cpt_tokens": 0.0,
    "ledger_lora_tokens": 0.0, "ledger_lora_rank": 16, "ledger_published_defaults": False,
    "ledger_data_licensing_usd": 0.0,
    "ledger_data_processing_usd": 0.0, "ledger_synthetic_tokens": 0.0,
    "ledger_synthetic_usd_per_mtok": None, "ledger_synthetic_model": None,
    "ledger_annotation_samples": 0.0, "ledger_annotation_usd_per_sample": 0.0,
    "ledger_eval_gpu_hours": 0.0, "ledger_eval_requests": 0.0, "ledger_rl": None,
    "ledger_human_eval_hours": 0.0, "ledger_human_eval_usd_per_hour": 0.0,
    "ledger_dataset_bytes": None, "ledger_dataset_versions": 1,
    "ledger_dataset_tier": "s3-standard", "ledger_log_bytes": 0.0,
    "ledger_dataset_retention_months": 12.0, "ledger_egress_bytes": 0.0,
    "ledger_cross_region_bytes": 0.0, "ledger_pue": None, "ledger_grid_kg_co2e_per_kwh": None,
    "ledger_electricity_usd_per_kwh": None, "ledger_owned_usd_per_gpu": None,
    "ledger_spot_preemptions_per_node_day": None, "ledger_spot_restart_s": None,
    "ledger_resumable": True, "ledger_people": [], "ledger_contributors": None,
    "ledger_operations_usd_per_month": 0.0,
    "ledger_project_months": None, "ledger_rerun_probability": 0.0,
    "ledger_reserve_fraction": 0.0, "ledger_budget_usd": None,
    # the serving set-up of synthetic data and benchmark runs, and the RL campaign (notebook 05):
    # the default scenario's values
    "serve_weight_dtype": "bf16", "serve_kv_dtype": "bf16", "serve_tp": 0, "serve_batch": 0,
    "serve_occupancy": 0.9, "serve_max_tpot_s": None, "inference_prompt_tokens": 1000,
    "inference_output_tokens": 250, "rl_algorithm": "grpo", "rl_reward": "verifier",
    "rl_prompts_per_step": 32, "rl_samples_per_prompt": 16, "rl_prompt_tokens": 512,
    "rl_response_tokens": 1024, "rl_response_tokens_max": 3584, "rl_ppo_epochs": 1,
    "rl_gpus": 64, "rl_rollout_gpus": 0, "rl_rollout_tp": 4, "rl_rollout_weight_dtype": None,
    "rl_async": False,
    "rl_partial_rollouts": False, "rl_weight_sync_s": None, "rl_train_mfu": None,
    "rl_verifier_usd_per_sample": 0.0, "rl_iterations": 1000, "rl_runs": 5,
    "rl_time_factor": None, "rl_framework": "generic",
    "efficiency_profile": None,
    # the scale-out bandwidth of an accelerator the catalogue has none for: the RL campaign's
    # policy update and a pilot's calibration price their plans on it (catalog.scenario_accelerator)
    "comm_scaleout_bytes_per_s": None,
}

#: The keys that describe an RL post-training campaign's size: the bill includes RL
#: post-training (``ledger_rl``) when a scenario gives one of them, and says "not given" otherwise.
RL_CAMPAIGN_KEYS = ("rl_iterations", "rl_runs")


def rl_campaign_given(scenario: dict) -> bool:
    """Whether the bill includes RL post-training for ``scenario``: its ``ledger_rl`` when set,
    otherwise whether it gives ``rl_iterations`` or ``rl_runs`` (a scenario that describes no RL
    campaign gets 0 and "not given", not the notebooks' illustrative campaign)."""
    if scenario.get("ledger_rl") is not None:
        return bool(scenario["ledger_rl"])
    return any(k in scenario for k in RL_CAMPAIGN_KEYS)


def resolve_ledger_rl(scenario: dict) -> dict:
    """The scenario with ``ledger_rl: false`` when it describes no RL campaign.

    A report completes a scenario with the notebooks' defaults, which describe an illustrative
    campaign (notebook 05's); this decides, on the keys the scenario file itself gives, that the
    bill must not carry that campaign (``rl_campaign_given``). ``llmcost report`` and ``llmcost
    estimate`` call it before any notebook runs (``report.plan_report``)."""
    if scenario.get("ledger_rl") is None and not rl_campaign_given(scenario):
        return {**scenario, "ledger_rl": False}
    return scenario

#: Parameters that make up a parallel plan; when a file or notebook gives any of them together
#: with model, n_gpus, seq_len and global_batch_tokens, the plan is built (or chosen, where
#: values are left free) and its rules are checked too.
PLAN_PARAMETERS = ("tp", "pp", "dp", "cp", "ep", "zero_stage", "recompute", "micro_batch_size",
                   "pp_schedule", "pp_virtual_stages", "pp_split", "fsdp_shard_size", "etp")
#: The plan keys the bill does not read (their effect is through the MFU, and they build the
#: parallel plan): every one but the experts' layout (``etp``), which the RL line's update search
#: reads (``rl.ITERATION_KEYS``) and which alone builds no plan.
UNBILLED_PLAN_KEYS = tuple(k for k in PLAN_PARAMETERS if k != "etp")


#: The value of ``mfu`` that asks the report to predict it with the step-time model.
MFU_PREDICT = "predict"


def _coerce(p: Param, value):
    """Check the type of ``value`` for parameter ``p`` (whole floats are accepted as ints)."""
    kind = p.kind
    if kind.endswith("|none") and value is None:
        return None
    base = kind.split("|")[0]
    if base == "list":
        if not isinstance(value, list):
            raise ScenarioError(f"{p.name}={value!r} must be a list")
        return [dict(v) if isinstance(v, dict) else v for v in value]
    if base == "bool":
        if not isinstance(value, bool):
            raise ScenarioError(f"{p.name}={value!r} must be true or false")
        return value
    if base == "str":
        if isinstance(value, bool) and "bool" in kind.split("|"):
            return value
        if not isinstance(value, str):
            if "bool" in kind.split("|") and p.check is not None:
                p.check(p.name, value)  # its rule says what it takes (true, false or 'auto')
            if isinstance(value, bool) and p.check is not None:
                # a trial's `recompute: yes` read "recompute=True must be a string": the rule
                # names the words it takes, and why a word became a boolean
                try:
                    p.check(p.name, value)
                except ScenarioError as e:
                    raise ScenarioError(f"{e} (YAML reads an unquoted yes, no, on or off as true "
                                        "or false)") from None
            raise ScenarioError(f"{p.name}={value!r} must be a string")
        return value
    if "str" in kind.split("|") and isinstance(value, str):
        return value
    if not is_number(value):
        hint = _number_hint(p, value, base == "int")
        what = "a whole number" if base == "int" else "a number"
        if "str" in kind.split("|") and p.name == "fsdp_shard_size":
            what = ("'full' (ZeRO-3 over the whole dp·cp group), 'auto' (chosen among the "
                    "stack's sizes), 0 (chosen) or a whole number >= 1")
        if p.name == "mfu":   # its own figure's fraction when written as one (35%: 0.35)
            what = "a number" + ("" if hint else " (0.40 for 40%)") + \
                ", a range such as [0.35, 0.45], or predict"
        shown = "null" if value is None else repr(value)  # as the scenario file wrote it
        raise ScenarioError(f"{p.name}={shown} must be {what}{hint}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ScenarioError(f"{p.name}={value!r} must be finite")
    if base == "int" and isinstance(value, float):
        if not value.is_integer():
            raise ScenarioError(f"{p.name}={value!r} must be a whole number")
        value = int(value)  # 1e30 becomes 1000000000000000019884624838656: checked below
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= MAX_WHOLE_NUMBER:
        raise ScenarioError(f"{p.name}: a {len(str(abs(value)))}-digit number is out of range "
                            f"(every parameter is below {MAX_WHOLE_NUMBER:.0e})")
    if base == "int":
        if abs(value) > MAX_EXACT_INTEGER:  # a count a double would round (and int64 wrap)
            raise ScenarioError(f"{p.name}={value} must be at most 2**53 in size "
                                f"({EXACT_INTEGER_RULE})")
        return int(value)
    return float(value)


#: The model's own fields (``ModelSpec``): a scenario that names one is told the model sets it
#: (the scenario's ``model``), not offered a parameter whose spelling happens to be close.
MODEL_FIELDS = frozenset(f.name for f in fields(ModelSpec))
#: The Hugging Face config.json key a model field is read from where the names differ
#: (``ModelSpec.from_hf_config``): DeepSeek-V3's ``num_nextn_predict_layers`` (arXiv:2412.19437
#: §2.2, the MTP depth D); gpt-oss's ``swiglu_limit`` (the gated activation's clamp).
MODEL_FIELD_HF_KEYS = {"mtp_depth": "num_nextn_predict_layers", "glu_limit": "swiglu_limit"}


#: ``validate_parameter``'s answers for numbers, booleans and None, by (name, type, value): a
#: number's check depends on nothing else (a string may name a file, which may change), and a
#: bill's levers and ranges validate the same hundred parameters thousands of times.
_CHECKED_NUMBERS: dict = {}


def validate_parameter(name: str, value):
    """Validate and normalise one shared parameter (``_validate_parameter``; the answer for a
    number, a boolean or None is kept, ``_CHECKED_NUMBERS``).

    Returns
    -------
    The normalised value (ints for whole-number floats where an int is expected, canonical
    catalogue names).

    Raises
    ------
    ScenarioError (a ValueError)
        If ``name`` is not in ``PARAMETERS`` or the value breaks its type or rule.
    """
    if value is not None and type(value) not in (int, float, bool):
        return _validate_parameter(name, value)
    key = (name, type(value), value)
    try:
        return _CHECKED_NUMBERS[key]
    except (KeyError, TypeError):  # not seen yet, or a name that cannot be a key
        pass
    v = _validate_parameter(name, value)
    if len(_CHECKED_NUMBERS) < 100_000:
        _CHECKED_NUMBERS[key] = v
    return v


#: Names other calculators, training configs and papers use for a scenario key (Megatron-LM's
#: arguments, Hugging Face's TrainingArguments, common words), for the hint an unknown key gets:
#: spelling alone suggested 'ledger_lora_tokens' for a trial's ``learning_rate``.
OTHER_TOOLS_NAMES = {
    "learning_rate": "batch_base_lr", "lr": "batch_base_lr", "gpus": "n_gpus",
    "num_gpus": "n_gpus", "world_size": "n_gpus", "tokens": "train_tokens",
    "num_tokens": "train_tokens",
    "seq_length": "seq_len", "sequence_length": "seq_len", "max_seq_len": "seq_len",
    "context_length": "seq_len", "batch_size": "global_batch_tokens",
    "global_batch_size": "global_batch_tokens", "precision": "dtype", "gpu": "accelerator",
    "gpu_type": "accelerator", "hardware": "accelerator", "price": "price_usd_per_gpu_hour",
    "tensor_model_parallel_size": "tp", "pipeline_model_parallel_size": "pp",
    "context_parallel_size": "cp", "expert_model_parallel_size": "ep",
    "expert_tensor_parallel_size": "etp", "micro_batch": "micro_batch_size",
    "per_device_train_batch_size": "micro_batch_size", "zero": "zero_stage",
    "activation_checkpointing": "recompute", "gradient_checkpointing": "recompute",
    "recompute_granularity": "recompute"}


#: Parameters a mistyped key is never told it may mean: a scenario file may not set them
#: (``load_scenario`` refuses both; a report sets ``mfu_band``, and reports run with the widgets
#: off), so "did you mean 'mfu_band'?" for ``mfuu`` sent a trial to a second refusal.
NOT_SUGGESTED = ("interactive", "mfu_band")


def _validate_parameter(name: str, value):
    """``validate_parameter`` itself."""
    if not isinstance(name, str):
        raise ScenarioError(f"name={name!r}: a parameter name must be a string")
    if name not in PARAMETERS and name in MODEL_FIELDS:
        hf = MODEL_FIELD_HF_KEYS.get(name)
        raise ScenarioError(
            f"{name!r} is a property of the model (ModelSpec.{name}), not a scenario parameter: "
            "the scenario's `model` sets it, a catalogue entry (`llmcost list models`) or a "
            "Hugging Face config.json" + (f" (its {hf!r} gives {name})" if hf else ""))
    if name not in PARAMETERS:
        close = ([OTHER_TOOLS_NAMES[name.lower()]] if name.lower() in OTHER_TOOLS_NAMES
                 else suggest(name, [k for k in PARAMETERS if k not in NOT_SUGGESTED]
                              + list(METADATA_KEYS)))   # 'titel' was told 'ckpt_interval_s'
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
        raise ScenarioError(f"unknown parameter {name!r}{hint} (`llmcost list parameters` "
                            "lists them all)")
    p = PARAMETERS[name]
    if isinstance(value, (Range, list, tuple, dict)) and p.kind != "list":
        return _validate_range(p, value)
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


def flag_number_hint(flag: str, value) -> str:
    """``_number_hint`` for a command-line flag's text (``llmcost check --usd '$5.6M'``, a
    journalist's trial, told only "must be a number"): " (write 5.6e+06 for $5.6M)", or "" where
    the text stands for no number."""
    hint = _number_hint(Param(str(flag).replace("-", "_"), "float", ""), value, False)
    # a flag's unit is its name's, not its text's: "--days '2 months'" is not 2 days
    return "" if ": the number alone" in hint else hint


#: What a magnitude suffix after a number stands for (``_number_hint``): 2T is 2e+12.
_SUFFIX_SCALE = {"k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12, "%": 0.01}


def _number_hint(p, value, whole: bool) -> str:
    """The hint a value that is not a number gets after "must be a number", or "": the number it
    stands for where its text says (a time in seconds, a size or rate in bytes, a magnitude
    suffix, a context's k, magnitude words, a unit or currency after the number)."""
    hint = ""
    # a magnitude suffix, a currency sign before it or not ("$2M": a data trial got no hint)
    short = re.fullmatch(r"\s*\$?\s*(\d+\.?\d*|\.\d+)\s*([kKmMbBtT%])\s*", value) \
        if isinstance(value, str) else None
    secs = _seconds(value) if isinstance(value, str) and p.name.endswith("_s") and \
        not p.name.endswith("_per_s") else None
    per_s = p.name.endswith("_bytes_per_s")
    byte_key = isinstance(value, str) and (per_s or p.name.endswith("_bytes"))
    sized = _bytes_written(value, per_s) if byte_key else None
    other = _bytes_written(value, not per_s) if byte_key and sized is None else None
    if byte_key and short and short[2] in "bB":
        short = None   # on a key in bytes, "500 B" is 500 bytes, not 500 billion (a review)
    if secs is not None:   # a time in another unit on a key in seconds: 30ms -> 0.03 (a
        # trial was told "write 30", a target 1,000 times looser, taken without a word)
        hint = f" (write {secs:g} for {value.strip()}: the key is in seconds)"
    elif sized is not None:   # 100GB/s -> 1e+11 (a trial was told "write 100": 100 B/s)
        hint = (f" (write {_written(sized[0])} for {value.strip()}: the key is in bytes"
                f"{' per second' if per_s else ''}{', ' + sized[1] if sized[1] else ''})")
    elif other is not None:   # a size on a rate's key, or a rate on a size's
        hint = (f" (the key is in bytes{' per second' if per_s else ''}: {value.strip()} is "
                f"{'a size' if per_s else 'a rate'})")
    elif short and p.name.endswith("seq_len") and short[2] in "kK" and \
            float(short[1]).is_integer():
        # a context length's k is 1,024 tokens (Llama 3.1's 128K context is 131,072
        # tokens: its config.json, max_position_embeddings): a trial wrote the suggested
        # 16000 for 16k, and its batch of 8,388,608 tokens then held no whole sequence
        hint = (f" (write {int(float(short[1])) * 1024} for {value.strip()}: a context "
                "length's k is 1,024 tokens)")
    elif short and ("$" not in value or "usd" in p.name):
        # the number the suffix stands for, written out: 2T -> 2e+12, 40% -> 0.4, $2M -> 2e+06
        hint = (f" (write {_written(float(short[1]) * _SUFFIX_SCALE[short[2].lower()])} for "
                f"{value.strip()})")
    elif isinstance(value, str) and (written := _text_number_hint(value, whole)):
        hint = written
    elif isinstance(value, str) and not byte_key and _unit_number(value) is not None:
        # (not on a key in bytes: "100 GB" alone would be told "write 100")
        unit = p.doc.split(';')[0]   # a nested field's Param has no doc: no unit to name
        where = f", in the key's unit, {unit}" if unit else ""
        hint = f" (write {_unit_number(value)}: the number alone{where})"
    return hint


#: Seconds per unit of a time written with its unit (``_seconds``).
_TIME_UNITS = {"us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "sec": 1.0, "secs": 1.0,
               "second": 1.0, "seconds": 1.0, "m": 60.0, "min": 60.0, "mins": 60.0,
               "minute": 60.0, "minutes": 60.0, "h": 3600.0, "hr": 3600.0, "hrs": 3600.0,
               "hour": 3600.0, "hours": 3600.0, "d": 86400.0, "day": 86400.0, "days": 86400.0}


def _seconds(text: str) -> float | None:
    """A time written with its unit ("30ms", "30 ms", "1.5 h", "30 ms/token", "30m": minutes,
    on a key in seconds) in seconds, else None."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+)\s*([a-zA-Zµ]+)"
                     r"\s*(?:/\s*token|per\s+(?:output\s+)?token)?\s*", text)
    # "M" is mega (30M: 3e+07, the magnitude hint), not minutes
    unit = None if not m or m[2] == "M" else _TIME_UNITS.get(m[2].lower())
    return None if unit is None else float(m[1]) * unit


#: Magnitude words a scenario may write after a number ("7 billion"), and what they stand for.
_MAGNITUDE_WORDS = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}


def _text_number_hint(text: str, whole: bool = False) -> str:
    """The hint for a number written as text that is not a number to YAML, or "": magnitude
    words, a unit after them or not ("7 billion", "7 billion tokens", "2 thousand billion":
    a lecturer's class was told "write 7", seven tokens), thousands separators
    ("7,000,000,000", "$1,500,000"), or a number in quotes ("8": YAML reads it as text; not where the number
    unquoted would still break the rule, ``whole``: "8.5" on a count). ASCII digits only, as
    YAML reads them; the number written out in full (``_written``)."""
    m = re.fullmatch(r"\s*([0-9]+\.?[0-9]*|\.[0-9]+)\s*((?:(?:thousand|million|billion|trillion)s?"
                     r"\s*)+)[^0-9]*", text, re.IGNORECASE)
    if m:
        scale = math.prod(_MAGNITUDE_WORDS[w.lower().rstrip("s")] for w in m[2].split())
        x = float(m[1]) * scale
        # not where the number still breaks the rule (a review: "1.2345 thousand" GPUs)
        return "" if whole and not x.is_integer() else \
            f" (write {_written(x)} for {text.strip()})"
    m = re.fullmatch(r"\s*(\$?)\s*([0-9]{1,3}(?:,[0-9]{3})+)(\.[0-9]+)?\s*", text)
    if m:   # "$1,500,000" too (a finance trial's budget): the sign said with the commas
        return (f" (write {m[2].replace(',', '')}{m[3] or ''} for {text.strip()}: a number "
                f"with {'a currency sign and ' if m[1] else ''}commas is text to YAML)")
    m = re.fullmatch(r"\s*[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\s*", text)
    if m and not (whole and not float(text).is_integer()):
        return f" (write {text.strip()} without quotes: a number in quotes is text)"
    return ""


#: Bytes per unit of a size or rate written with its unit (``_bytes_written``): decimal prefixes
#: as storage and network vendors quote them (1 GB = 10^9 bytes), binary ones with an i (GiB),
#: bits where the unit says so (400 Gb/s, a NIC's line rate, is 5e10 bytes/s).
_BYTE_PREFIXES = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12, "p": 1e15, "e": 1e18,
                  "ki": 2.0 ** 10, "mi": 2.0 ** 20, "gi": 2.0 ** 30, "ti": 2.0 ** 40,
                  "pi": 2.0 ** 50, "ei": 2.0 ** 60}
_PREFIX_WORDS = {"kilo": "k", "mega": "m", "giga": "g", "tera": "t", "peta": "p", "exa": "e"}
_BYTES_RE = re.compile(
    r"\s*(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+)\s*"
    r"(?:(kilo|mega|giga|tera|peta|exa)|([kKmMgGtTpPeE]i?))?"      # a prefix, spelled or not
    r"(?:(bytes?|bits?)|([Bb])(ytes?|its?)?)"                       # the unit: B, b, byte, bit
    r"\s*(/\s*[sS](?:ec(?:ond)?)?|ps|per\s+s(?:ec(?:ond)?)?)?\s*", re.IGNORECASE)


def _bytes_written(text: str, per_s: bool) -> tuple | None:
    """(bytes, or bytes per second where ``per_s``; the unit's words) of a size or rate written
    with its unit ("100GB/s", "2 TB/s", "400Gb/s", "400 Gbit/s", "64 GiB/s", "25 Gigabytes/s",
    "100 B/s", "1 PB"), else None, and None for a rate on a size's key or the reverse: an SRE
    trial's "100GB/s" on a key in bytes/s was told "write 100", a hundred bytes a second. A
    one-letter unit is a byte as B and a bit as b, as vendors write them; a spelled-out one
    ("Gbit", "GBytes", "gigabits") says which whatever its case."""
    m = _BYTES_RE.fullmatch(text)
    if not m or (m[7] is not None) != per_s:
        return None
    prefix = (_PREFIX_WORDS[m[2].lower()] if m[2] else (m[3] or "")).lower()
    spelled = (m[4] or m[6] or "").lower()
    bits = spelled.startswith("bit") or spelled.startswith("it") or (not spelled and m[5] == "b")
    if m[5] and not spelled and m[3] and m[3][0].islower() and m[3][0] not in "k":
        return None   # "mb", "gb": milli-bit and the like are slips, not units to read
    x = float(m[1]) * _BYTE_PREFIXES[prefix] / (8.0 if bits else 1.0)
    return x, ("bits, 8 to a byte" if bits else "a binary prefix, 1,024" if prefix.endswith("i")
               else "a decimal prefix, 1,000" if prefix else "")


def _written(x: float) -> str:
    """``x`` as a scenario file may write it: ``:g`` where that reads back as ``x`` (2e+12),
    else every significant digit (1.23456789e12: 1234567890000, not 1.23457e+12)."""
    short = f"{x:g}"
    return short if float(short) == x else f"{x:.15g}"


def _unit_number(text: str) -> str | None:
    """The number of a value written with its unit or currency ("2.5 $/h", "$2.50", "3 USD",
    "512 GPUs"), or None when the text is not one number and a unit (a magnitude suffix such as
    "2k GPUs" is not a unit: the number is not 2)."""
    m = re.fullmatch(r"\s*\$?\s*(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?)\s*"
                     r"(?:(?:[$€/]|[a-zA-Z]{2,})[^\d]*)?", text)
    if m and any(w in text.lower() for w in _MAGNITUDE_WORDS):   # "1.5 thousand": not 1.5
        return None
    return m.group(1) if m and not re.fullmatch(r"\s*[\d.eE+-]+\s*", text) else None


def _validate_range(p: Param, value) -> Range:
    """A range on parameter ``p``: allowed on ``RANGEABLE_KEYS`` only, each end checked by the
    parameter's own rule, no lognormal on a bounded key (module docstring, "Ranges")."""
    name = p.name
    if name in NOT_YET_RANGEABLE_KEYS:
        raise ScenarioError(
            f"{name}={value!r}: {name} cannot take a range yet (a limitation: the RL campaign and "
            "the serving configuration search price one value at a time, so their arithmetic "
            "does not broadcast over Monte Carlo draws); give one value and compare bills "
            "with ledger.with_changes")
    if name not in RANGEABLE_KEYS:
        raise ScenarioError(
            f"{name}={value!r}: a range is allowed only on continuous cost inputs (llmcost.ranges"
            f".RANGEABLE_KEYS, e.g. mfu, price_usd_per_gpu_hour, fail_rate_per_gpu_year), not on "
            f"{name} ({p.doc.split(';')[0]}): give one value")
    try:
        r = parse_range(name, value)
    except ValueError as e:
        raise ScenarioError(str(e)) from None
    if r.kind == "lognormal" and name in BOUNDED_KEYS:
        raise ScenarioError(f"{name}={value!r}: a lognormal range is unbounded above, and {name} "
                            "is bounded: give [low, high] or {low, mode, high}")
    # the ends a draw can reach: a shifted lognormal is cut to [low, high], a two-piece cut
    # range to [low, cut] (its high, beyond the cut, is a parameter of the shape, not a draw)
    ends = ("p10", "p90") if r.kind == "lognormal" else ("low", "cut") \
        if r.kind == "two_piece_cut" else ("low", "mode", "high")
    for end in ends:
        v = getattr(r, end)
        if v is None:
            continue
        try:
            checked = _coerce(p, v)
            if p.check is not None:
                p.check(name, checked)
            _check_magnitude(name, checked)
        except ScenarioError as e:
            raise ScenarioError(f"{name}: range {end}: {e}") from None
    return r


def _check_magnitude(key: str, value) -> None:
    """``MAGNITUDE_LIMITS``' rule on one value of ``key`` (a number, or an end of its range: a
    trial's ``ledger_sft_tokens: {low: 0, mode: 1e9, high: 1e30}`` passed at its mode and billed
    a P90 of $8.9e23)."""
    top, why = MAGNITUDE_LIMITS.get(key, (None, ""))
    if top is not None and isinstance(value, (int, float)) and value > top:
        limit = f"{top:.0e}" if top >= 1e5 else f"{top:,g}"
        raise ScenarioError(f"{key}={value:.3g} is above {limit}: {why}; check the exponent")


def point_scenario(scenario: dict) -> dict:
    """The scenario with every range (``llmcost.ranges.Range``) replaced by its point: the
    midpoint of a uniform range, the mode of a triangular one, the median of a two-piece or
    lognormal one.
    What every notebook other than the bill uses."""
    if not isinstance(scenario, dict):
        raise ScenarioError(f"scenario={scenario!r} must be a mapping of parameter names to "
                            "values")
    return {k: point(v) for k, v in scenario.items()}


#: What a report's range on ``mfu`` is (``mfu_band``), in a reader's words (``range_note``).
MFU_BAND_WORDS = {"predicted": "the step-time model's prediction (mfu: predict)",
                  "pilot": "the pilots' MFU extrapolated to this plan (pilot)"}


def range_note(ranged: dict, mfu_band: str | None = None) -> str:
    """The sentence a page prints when some inputs are ranges and it uses their points. A
    range on ``mfu`` a report set (``mfu_band``: the step-time model's band around its
    prediction, or the pilots') is said as what it is, in percent: the scenario gave no range."""
    parts = [f"mfu is {MFU_BAND_WORDS[mfu_band]}, {r.point:.1%} (its band "
             "{:.1%} to {:.1%}): this page uses {:.1%}".format(
                 *band_ends(r), r.point)
             if k == "mfu" and mfu_band in MFU_BAND_WORDS and r.kind in (
                 "triangular", "two_piece", "two_piece_cut") else
             f"{k} is a range ({r.describe()}): this page uses its {POINT_WORDS[r.kind]} "
             f"{r.point:.4g}"
             for k, r in ranged.items()]
    return ("; ".join(parts) + ". The bill (notebook 00) carries the ranges: P10 / P50 / P90 "
            "of every line and which inputs drive the spread.")


def validate_ranged_parameters(**params) -> dict:
    """``validate_parameters`` keeping ranges: ranged keys hold a ``llmcost.ranges.Range``
    (rules between parameters are checked on the points). What the bill (notebook 00,
    ``ledger.simulate_ledger``) uses. Every key is checked before any refusal, and the refusal
    names the first bad key's rule, then the others' (a trial's file with ``n_gpus: -5`` and
    ``mfu: 2`` was told of n_gpus only, then of mfu on the next run)."""
    out, bad = {}, []
    for k, v in params.items():
        try:
            out[k] = validate_parameter(k, v)
        except ScenarioError as e:
            bad.append(str(e))
    if bad:
        raise ScenarioError(_bad_keys_words(bad))
    _cross_check(point_scenario(out))
    return out


def _bad_keys_words(bad: list) -> str:
    """The refusal of several bad keys: the first key's rule, then the others', so that one
    run names every bad key: "n_gpus=-5 must be > 0 (and 1 more bad key: mfu=2 ...)"."""
    if len(bad) == 1:
        return bad[0]
    return (f"{bad[0]} (and {len(bad) - 1} more bad {'key' if len(bad) == 2 else 'keys'}: "
            f"{'; '.join(bad[1:])})")


def validate_parameters(**params) -> dict:
    """Validate a notebook's parameters; returns them normalised, in the same order.

    Call it in the cell after the ``parameters`` cell:
    ``p = llmcost.validate_parameters(model=model, n_gpus=n_gpus, ...)``.

    A range (module docstring, "Ranges") is replaced by its point; a notebook's call (one that
    passes ``interactive``) prints which inputs were ranges and the point the page uses, after
    the page's answer in a kernel (``core.shown.print_after_answer``).

    Raises
    ------
    ScenarioError (a ValueError) naming the first bad key and its rule, then any other bad
    key's.
    """
    out = validate_ranged_parameters(**params)
    ranged = {k: v for k, v in out.items() if is_ranged(v)}
    if "interactive" in params:   # after the page's answer (core.shown); none: none waits
        print_after_answer(range_note(ranged, out.get("mfu_band")) if ranged else None)
    return point_scenario(out)


#: Argument names of the layers below -> the scenario key (or words) a user knows them by.
USER_WORDS = {
    "planned_per_day": "fail_planned_per_day",
    "max_tokens": "rl_response_tokens_max",
    "mean_tokens": "rl_response_tokens",
    "pp_layers": "pp (pp must divide the model's layers)",
    "scaleout_bytes_per_s_per_dir": "comm_scaleout_bytes_per_s",
    "virtual_stages": "pp_virtual_stages",  # a fuzz trial read the plan's field names
    "prompts_per_step": "rl_prompts_per_step",
    # the write is the slower of the storage and the nodes' links, and a restart reads it back
    # (an SRE trial's ckpt_node_bytes_per_s: 1 was told of ckpt_storage_bytes_per_s alone)
    "δ + R": "δ + R (a checkpoint's write at the slower of ckpt_storage_bytes_per_s and the "
             "nodes' ckpt_node_bytes_per_s, plus the restart, ckpt_restart_s, with its read back)",
}

#: The serving layer's argument names in a served line's or the serving set-up's refusal
#: (``inference.serving_cost`` / ``choose_serving_tp``), as the scenario's ``serve_`` keys.
SERVE_USER_WORDS = {"tp": "serve_tp", "batch": "serve_batch", "max_tpot_s": "serve_max_tpot_s",
                    "weight_dtype": "serve_weight_dtype"}


def user_words(message: str, extra: dict | None = None) -> str:
    """``message`` with the lower layers' argument names replaced by the scenario's keys
    (``USER_WORDS``, then ``extra``); a name already prefixed as a scenario key is kept, and a
    name already followed by its explanation is not explained twice (a message passed through
    twice, by the bill and then by the report, reads the same as once)."""
    for old, new in {**USER_WORDS, **(extra or {})}.items():
        done = rf"(?!{re.escape(new[len(old):])})" if new.startswith(old) else ""
        # not inside a formula's product ("pp·virtual_stages") nor a longer name
        message = re.sub(rf"(?<![\w.·]){re.escape(old)}(?![\w]){done}", new, message)
    return message


# ---- notebook_parameters: the one-line validation cell of every notebook
def notebook_parameters(namespace: dict, ranged: bool = False) -> dict:
    """Validate the parameters a notebook declared; the whole cell after its ``parameters`` cell
    is ``p = llmcost.notebook_parameters(globals())``.

    The declared names are the annotated assignments of the ``parameters`` cell
    (``model: str = "llama-2-70b"``), which Python records in the namespace's
    ``__annotations__``, in order; their *current* values are taken from the namespace, so
    values papermill injects after the cell are the ones validated. A name papermill injected
    that the cell does not declare is not passed on (papermill warns about it; a report rejects
    it before running). Equivalent to ``validate_parameters(name=value, ...)`` over those names.
    Annotated assignments in *later* cells would count too (Python records them in the same
    ``__annotations__``): keep annotations to the parameters cell.

    With ``ranged=True`` (the pages that draw the scenario's ranges: the bill, 00, and the
    savings, 09) the result is the *scenario*: ranges kept as ``llmcost.ranges.Range``
    (``validate_ranged_parameters``), the page setting ``interactive`` checked and left out, and
    no range note printed; ``point_scenario`` of it is what ``ranged=False`` returns without
    ``interactive``.

    In a Jupyter kernel it also has the page show each of the package's warnings once, as one
    ``warning: ...`` line (``core.shown.show_once_per_text_in_a_kernel``).

    Raises
    ------
    ScenarioError (a ValueError)
        No annotated parameter in ``namespace``; a declared name that is not in ``PARAMETERS``;
        a declared name with no value; any rule ``validate_parameters`` checks.
    """
    if not isinstance(namespace, dict) or not isinstance(namespace.get("__annotations__", {}), dict):
        raise ScenarioError(f"namespace={namespace!r:.60} must be a notebook's globals() (a dict)")
    names = list(namespace.get("__annotations__", {}))
    if not names:
        raise ScenarioError("notebook_parameters: no annotated parameters in the namespace "
                            "(call it as notebook_parameters(globals()) after the parameters cell,"
                            " whose lines read `name: type = literal  # comment`)")
    unknown = [k for k in names if k not in PARAMETERS]
    if unknown:
        raise ScenarioError(f"parameter {unknown[0]!r} is not in llmcost.scenario.PARAMETERS "
                            "(one name, one meaning: add it there first)")
    missing = [k for k in names if k not in namespace]
    if missing:
        raise ScenarioError(f"parameter {missing[0]!r} is annotated but has no value")
    if not isinstance(ranged, bool):
        raise ScenarioError(f"ranged={ranged!r} must be True or False")
    values = {k: namespace[k] for k in names}
    show_once_per_text_in_a_kernel()  # this page's warnings once each, in words (core.shown)
    if not ranged:
        return validate_parameters(**values)
    if "interactive" in values:
        validate_parameter("interactive", values.pop("interactive"))
    return validate_ranged_parameters(**values)


def scenario_price(scenario: dict) -> tuple[float, str]:
    """The rate per GPU-hour a notebook charges for the scenario's GPU-hours and where it comes
    from, the rate the bill's GPU-hour lines charge (``ledger._basis``). Every notebook that
    prices GPU-hours calls it as ``price, price_source = llmcost.scenario_price(p)``.

    ``resolve_price`` of its ``accelerator``, ``price_usd_per_gpu_hour`` (absent or None: the
    catalogue's) and ``pricing`` (absent: on demand); on owned hardware without a price, the
    hardware rate of ``pricing.owned_usd_per_gpu_hour`` at the scenario's
    ``ledger_owned_usd_per_gpu``, ``ledger_electricity_usd_per_kwh`` and ``ledger_pue`` (absent:
    their defaults), Cottier et al. 2024 (arXiv:2405.21015 §2.2):

        rate = capex $/GPU-h = price × 1.64 ÷ (1 − 0.19) × 0.14·ln 10 ÷ 8,766 h

    without the energy of a GPU-hour, which the bill prices on its electricity line; the source
    says both, in the bill's words (``pricing.owned_price_words``).

    Raises
    ------
    ScenarioError (a ValueError) naming ``scenario`` when it is not a mapping with an
    ``accelerator``, or the key ``resolve_price`` or ``owned_usd_per_gpu_hour`` refuses.
    """
    if not isinstance(scenario, dict) or "accelerator" not in scenario:
        raise ScenarioError(f"scenario={scenario!r:.60} must be a mapping of parameter names to "
                            "values with an accelerator")
    pricing = scenario.get("pricing", "on_demand")
    if pricing != "owned" or scenario.get("price_usd_per_gpu_hour") is not None:
        return resolve_price(scenario["accelerator"], scenario.get("price_usd_per_gpu_hour"),
                             pricing)
    try:
        own = owned_usd_per_gpu_hour(
            load_accelerator(scenario["accelerator"]), scenario.get("ledger_owned_usd_per_gpu"),
            scenario.get("ledger_electricity_usd_per_kwh"), scenario.get("ledger_pue"))
    except ValueError as e:
        raise ScenarioError(str(e)) from None
    return float(own["capex_usd_per_gpu_hour"]), (
        f"default, price_usd_per_gpu_hour not given: {owned_price_words(own)}")


def _check_backward_prefetch(p: dict) -> None:
    """``fsdp_backward_prefetch`` against the scenario's stack (``stack``, default
    ``DEFAULT_STACK``): "post" only on a PyTorch FSDP stack (``stacks.stack_backward_prefetch``)."""
    value = p.get("fsdp_backward_prefetch", "auto")
    if isinstance(value, str) and value != "auto":
        try:
            stack_backward_prefetch(load_stack(p.get("stack", DEFAULT_STACK)), value)
        except ValueError as e:
            raise ScenarioError(str(e)) from None


def _check_fp8_recipe(p: dict) -> None:
    """``fp8_recipe`` other than the default "current" needs ``dtype: fp8`` (a BF16 run has no
    FP8 scaling to price: taking the key silently would bill BF16 GEMMs the user thought FP8),
    and ``mxfp8`` a Blackwell accelerator (``accuracy.gpu_generation``): MX block scaling is a
    Blackwell tensor-core format, "MXFP8 requires SM100 (Blackwell) or later" (NVIDIA
    Transformer Engine's MXFP8 documentation example; its ``MXFP8BlockScaling`` recipe)."""
    recipe = p.get("fp8_recipe", "current")
    if recipe == "current":
        return
    if p.get("dtype", "bf16") != "fp8":
        raise ScenarioError(f"fp8_recipe={recipe!r} needs dtype: fp8 (dtype is "
                            f"{p.get('dtype', 'bf16')!r}: no FP8 GEMM to scale)")
    acc = p.get("accelerator")
    if recipe == "mxfp8" and isinstance(acc, str) and gpu_generation(acc) != "Blackwell":
        raise ScenarioError(f"fp8_recipe='mxfp8' needs a Blackwell accelerator (accelerator "
                            f"is {acc!r}): MX block scaling is a Blackwell tensor-core format "
                            "(Transformer Engine: 'MXFP8 requires SM100 (Blackwell) or later'); "
                            "on Hopper write current, delayed or blockwise")


#: The refusal of a spot bill without its pre-emption rate (``_cross_check``,
#: ``ledger.spot_preemptions_per_node_day``).
SPOT_PREEMPTIONS_MISSING = (
    "pricing='spot' needs ledger_spot_preemptions_per_node_day (your provider's pre-emptions per "
    "node per day): no provider publishes a per-node rate, so the workbook has no default "
    "(AWS's Spot Instance Advisor gives only interruption-frequency bands per instance type, "
    "under 5% to over 20% a month)")
#: The same for a spot lever of a scenario that is not spot (it never asked for spot).
SPOT_LEVER_NEEDS_RATE = (
    "spot capacity is priced only with your provider's pre-emption rate: give "
    "ledger_spot_preemptions_per_node_day (pre-emptions per node per day; no provider publishes "
    "one, so the workbook has no default)")


def _cross_check(p: dict) -> None:
    """Rules that involve two parameters (checked wherever both are present)."""
    exploratory_given_once(p)
    check_run_rules(p)
    _check_backward_prefetch(p)
    _check_fp8_recipe(p)
    if "accelerator" in p and "dtype" in p:
        try:
            load_accelerator(p["accelerator"]).peak_flops_per_s(p["dtype"])
        except ValueError as e:
            raise ScenarioError(str(e)) from None
    _check_batch_sequences(p)
    if "n_gpus" in p and any(p.get(k) for k in ("tp", "pp", "cp")):   # with or without a batch
        _check_fixed_product(p)  # (an API trial built bills of tp=128 on 64 GPUs unrefused)
    _check_experts(p)
    batch_known = all(k in p for k in ("model", "n_gpus", "seq_len", "global_batch_tokens"))
    if batch_known:  # a rule of n_gpus and the batch, whether or not a plan is built: the bill
        _check_batch_feeds_gpus(p)  # of a report without a plan (00, 01, 07) counts these GPUs too
    if "model" in p and p.get("etp") == 1:  # folding needs experts, plan or no plan
        try:
            check_etp_model(load_model(p["model"]), 1)
        except ValueError as e:
            raise ScenarioError(str(e)) from None
    # the experts' layout alone builds no plan: pages that price only the RL update's search
    # (00, 05) declare it beside no other plan key
    if batch_known and any(k in p for k in UNBILLED_PLAN_KEYS):   # (fixed sizes checked above)
        try:  # with its model, as the plan's other callers ask (``step_scenario.scenario_step``,
            # ``checks.scenario_plan_memory``): the plan memo is keyed by it, so one search
            scenario_plan(p, load_model(p["model"]))
        except ValueError as e:
            err = ScenarioError(str(e) + _fixed_degrees_misfit(p, e)
                                + _interleaved_misfit(p, e) + _plan_keys_need_network(p, e))
            # the plan's own refusal, for a caller whose words differ from the plan keys'
            # (report.resolve_mfu: mfu: predict is what needs the network figure)
            err.plan_refusal, err.network_missing = str(e), _network_missing(e)
            raise err from None
    if p.get("rl_async") and p.get("rl_rollout_gpus") == 0:
        raise ScenarioError("rl_async=true needs rl_rollout_gpus > 0 (it is 0: the rollouts "
                            "colocated with training): colocated GPUs cannot generate and train "
                            "at once")
    if "rl_response_tokens" in p and "rl_response_tokens_max" in p and \
            p["rl_response_tokens_max"] < p["rl_response_tokens"]:
        raise ScenarioError(f"rl_response_tokens_max={p['rl_response_tokens_max']} must be >= "
                            f"rl_response_tokens={p['rl_response_tokens']}")
    if p.get("rl_algorithm") == "grpo" and p.get("rl_samples_per_prompt", 2) < 2:
        raise ScenarioError(f"rl_samples_per_prompt={p['rl_samples_per_prompt']} must be >= 2 "
                            "for GRPO (advantages are normalised within each group)")
    if "price_usd_per_gpu_hour" in p and p["price_usd_per_gpu_hour"] is None:
        if "accelerator" in p and not (p.get("pricing") == "owned"
                                       and p.get("ledger_owned_usd_per_gpu") is not None):
            resolve_price(p["accelerator"], None, p.get("pricing", "on_demand"))
    if p.get("pricing") == "spot" and "ledger_spot_preemptions_per_node_day" in p \
            and p["ledger_spot_preemptions_per_node_day"] is None:  # after the price's refusal
        raise ScenarioError(SPOT_PREEMPTIONS_MISSING)


def _network_missing(err: ValueError) -> bool:
    """Whether a plan's refusal is for a network figure the catalogue lacks
    (``catalog.scenario_cluster``: TPU v4, MI325X)."""
    return "is missing from data/accelerators.csv" in str(err)


def _plan_keys_need_network(p: dict, err: ValueError) -> str:
    """What a refusal for a network figure the catalogue lacks (``catalog.scenario_cluster``:
    TPU v4, MI325X) adds: which keys asked for the plan that needs it, the scenario's plan
    keys (``PLAN_PARAMETERS``), and that a bill needs none of them (a trial copied
    default.yaml, changed the accelerator, and was asked for a bandwidth without knowing why).
    "" for any other refusal."""
    if not _network_missing(err):
        return ""
    keys = [k for k in PLAN_PARAMETERS if k in p]
    rl = any(str(k).startswith("rl_") for k in p) and p.get("rl_train_mfu") is None
    return (f". It is the plan keys ({', '.join(keys)}: the scenario's, or a notebook's "
            "defaults when it runs on its own) that build a parallel plan on this cluster: "
            "give comm_scaleout_bytes_per_s, or leave them out to bill the run at its given mfu, "
            f"which needs no network figure (notebooks {', '.join(NETWORK_FREE_NOTEBOOKS)} run "
            "then)"
            + ("; its RL campaign (the rl_ keys) plans its update on the same cluster too: "
               "give rl_train_mfu, or leave the rl_ keys out" if rl else ""))


def _interleaved_misfit(p: dict, err: ValueError) -> str:
    """What a refusal of the interleaved schedule's micro-batch count (rule
    ``interleaved_microbatches``: m not a multiple of pp) adds: where m comes from (the global
    batch per data-parallel replica, in micro-batches) and the global batch that gives the next
    multiple of pp on these GPUs (the refusal's ``PlanError.values``), m' = ⌈m / pp⌉ · pp,
    B' = B · m' / m (a trial moved Llama 3.1 405B's scenario to 32,768 GPUs: m = 8 for pp = 16,
    refused in words it never set). "" otherwise."""
    got, b = getattr(err, "values", {}), p.get("global_batch_tokens")
    if getattr(err, "rule", None) != "interleaved_microbatches" or "pp" not in got or \
            not isinstance(b, (int, float)):
        return ""
    m, pp, n = int(got["n_microbatches"]), int(got["pp"]), int(p["n_gpus"])
    m2 = -(-m // pp) * pp
    fewer = f"n_gpus={n * m // m2:,}" if (n * m) % m2 == 0 else "fewer GPUs"
    return (f"; n_microbatches is the global batch per data-parallel replica in micro-batches "
            f"(global_batch_tokens={b:,.0f} on {fmt_gpus(n)}): global_batch_tokens="
            f"{b * m2 / m:,.0f} gives {m2}, a multiple of pp={pp}, as does {fewer}, or "
            "pp_schedule: 1f1b")


def _fixed_degrees_misfit(p: dict, err: ValueError) -> str:
    """What a refusal of the GPU count (rule ``batch``: the count does not split with the
    batch, and the message names counts that do) adds when the scenario fixes tp and pp and no
    plan fits even on the most GPUs the batch splits over with them
    (``step_scenario.fixed_degrees_ceiling``): the counts it names would not fit either. ""
    otherwise, or when the accelerator is not given."""
    if getattr(err, "rule", None) != "batch" or "accelerator" not in p:
        return ""
    try:
        ceiling = fixed_degrees_ceiling(p)
        gpu = load_accelerator(p["accelerator"])
    except (ValueError, KeyError):
        return ""
    usable = gpu.hbm_bytes * (1 - p.get("mem_reserve_fraction", DEFAULT_RESERVE))
    if ceiling is None or ceiling[2].total <= usable:
        return ""
    n_max, plan, mem = ceiling
    named = ", ".join(f"{k}: {p[k]}" for k in ("tp", "pp"))
    return (f"; but with the fixed {named} no plan fits on any GPU count the batch splits "
            f"over: on {fmt_gpus(n_max)}, the most it splits over with them, a plan needs "
            f"{mem.total / 1e9:,.0f} GB per GPU ({plan.describe()}), more than the "
            f"{usable / 1e9:,.0f} GB usable on {gpu.name}; leave tp and pp free (0) or fix a "
            "larger tp·pp")


def _check_experts(p: dict) -> None:
    """A fixed ``ep`` (> 1) divides the model's experts, and a dense model takes none: the
    plan's rule, ``parallel.check_ep_model``, checked here without a plan (an API trial's bill
    of Mixtral 8x7B at ep=3 was priced unrefused)."""
    ep = p.get("ep")
    if not isinstance(ep, int) or ep <= 1 or "model" not in p:
        return
    try:
        spec = load_model(p["model"])
    except ValueError:   # an unknown model is refused by its own key
        return
    try:
        check_ep_model(spec, ep)   # the plan's own rule, in its words
    except ValueError as e:
        raise ScenarioError(str(e)) from None


def _check_batch_sequences(p: dict) -> None:
    """The global batch is a whole number of sequences, at least one (``parallel.
    scenario_plan``'s rule, checked where a plan is built; here wherever both keys are
    present: an API trial's build_ledger priced global_batch_tokens=1024 of 4,096-token
    sequences unrefused, where `llmcost estimate` refuses it)."""
    seq, tokens = p.get("seq_len"), p.get("global_batch_tokens")
    if not isinstance(seq, int) or not isinstance(tokens, (int, float)) or seq <= 0:
        return
    if tokens % seq:
        # the nearest whole batches said (a trial's 1,000,000 at 2,048 tokens: 488 or 489)
        below, above = int(tokens // seq), int(tokens // seq) + 1
        near = " or ".join(f"{k * seq:,} ({k:,} {noun(k, 'sequence')})"
                           for k in (below, above) if k >= 1)
        raise ScenarioError(f"global_batch_tokens={tokens:,.0f} must be a whole number of "
                            f"sequences of seq_len={seq:,} (at least one): the nearest "
                            f"{'is' if below < 1 else 'are'} {near}")


def _check_fixed_product(p: dict) -> None:
    """The model-parallel sizes the scenario fixes (tp, pp, cp > 0) must multiply to a divisor
    of n_gpus (n_gpus = dp × tp × pp × cp); named as the scenario gives them, the free ones
    (0: chosen by the plan search) said to be free rather than shown as 1."""
    sizes = {k: p[k] for k in ("tp", "pp", "cp") if k in p}
    fixed = {k: int(v) for k, v in sizes.items() if v}
    n = p["n_gpus"]
    prod = math.prod(fixed.values())
    if not fixed or n % prod == 0:
        return
    free = [k for k in ("tp", "pp") if not sizes.get(k)]
    named = {k: v for k, v in fixed.items() if v > 1}  # a size of 1 divides everything
    raise ScenarioError(f"{' × '.join(f'{k}={v}' for k, v in named.items())}"
                        f"{f' = {prod}' if len(named) > 1 else ''} must divide n_gpus={n} "
                        "(n_gpus = dp × tp × pp × cp)"
                        + (f"; {' and '.join(free)} left free (0) "
                           f"{'are' if len(free) > 1 else 'is'} chosen by the plan search"
                           if free else ""))


#: The most context-parallel ranks the plan search tries (``parallel.choose_plan``).
_MAX_CP = 32


def _check_batch_feeds_gpus(p: dict) -> None:
    """Every data-parallel replica needs at least one sequence per step, and one sequence spreads
    over at most tp·pp·cp GPUs (tp up to the query heads, or the KV heads on a stack that does
    not replicate them, ``parallel.check_tp_kv_heads``; pp up to the layers + 2, cp up to 32):
    more GPUs than that cannot all be fed by the global batch."""
    try:
        spec = load_model(p["model"])
    except ValueError:
        return
    seqs = p["global_batch_tokens"] // p["seq_len"]
    cp = p.get("cp") or _MAX_CP
    stack = p.get("stack") or DEFAULT_STACK
    try:
        kv_rule = not load_stack(stack).tp_kv_replication
    except ValueError:  # an unknown stack is refused by its own key
        kv_rule = False
    tp_max, heads = ((spec.n_kv_heads, f"{spec.n_kv_heads} KV heads on the {stack} stack")
                     if kv_rule else (spec.n_heads, f"{spec.n_heads} heads"))
    per_seq = tp_max * (spec.n_layers + 2) * cp
    if seqs >= 1 and p["n_gpus"] > seqs * per_seq:
        raise ScenarioError(
            f"n_gpus={p['n_gpus']:,} is more than the scenario's global batch can feed: "
            f"global_batch_tokens={p['global_batch_tokens']:,} is {seqs:,} sequences of "
            f"{p['seq_len']:,} tokens, each data-parallel replica needs at least one, and one "
            f"sequence of {spec.name} spreads over at most {fmt_gpus(per_seq)} (tp ≤ "
            f"{heads} × pp ≤ {spec.n_layers + 2} × cp ≤ {cp}): raise "
            "global_batch_tokens or use fewer GPUs")


#: Integers at or above this are refused by every parameter (a 400-digit count is a typo, and
#: float() of it overflows): no count, token total or byte figure of a training run comes near.
MAX_WHOLE_NUMBER = 10 ** 30
#: Magnitudes refused as typos rather than scenarios: key -> (highest accepted, why). Qwen3
#: reports pre-training on 36T tokens (arXiv:2505.09388), the most a published run states (Llama
#: 3: 15.6T, arXiv:2407.21783 §1); 1e16 is 278× that; the bill's other token counts
#: (fine-tuning, continued pre-training, generated data) take the same limit: no post-training
#: corpus is larger than the largest pre-training one. The dearest GPU-hour in data/prices.csv
#: is tens of dollars; 1e4 is hundreds of times it.
_CORPUS_WORDS = ("over 250× the 36T tokens Qwen3 reports pre-training on (arXiv:2505.09388), "
                 "the most a published run states")
MAGNITUDE_LIMITS = {
    "train_tokens": (1e16, _CORPUS_WORDS),
    **{k: (1e16, f"{_CORPUS_WORDS}, and more than any fine-tuning or generated corpus")
       for k in ("ledger_sft_tokens", "ledger_cpt_tokens", "ledger_lora_tokens",
                 "ledger_synthetic_tokens")},
    "price_usd_per_gpu_hour": (1e4, "hundreds of times any GPU-hour price in data/prices.csv"),
    "batch_noise_tokens": (1e16, f"a batch {_CORPUS_WORDS}"),
    "ledger_grid_kg_co2e_per_kwh": (10.0, "over 10× coal power's lifecycle emissions (IPCC AR5 "
                                    "WGIII 2014, Annex III, Table A.III.2: a median of 0.82 kg "
                                    "CO2e/kWh)"),
    **{k: (1200.0, "a century of storage (the key is in months)")
       for k in ("ckpt_retention_months", "ledger_dataset_retention_months")},
}


def _check_target_loss(p: dict) -> None:
    """``batch_target_loss`` above the irreducible term (N_c/N)^α_N of Kaplan et al. 2020's
    L(N, S_min) fit for the scenario's model (``batch.kaplan_loss_floor`` of its non-embedding
    parameters, ``batch.kaplan_n_params``): no run of that model reaches a loss at or below it
    under the fit, and notebook 02 stops on it (a trial's 1.5 nats against 1.695)."""
    loss = point(p.get("batch_target_loss"))
    if not isinstance(loss, (int, float)) or "model" not in p:
        return
    try:
        spec = load_model(p["model"])
    except ValueError:
        return
    n = float(kaplan_n_params(spec))
    floor = float(kaplan_loss_floor(n))
    if loss <= floor:
        raise ScenarioError(f"batch_target_loss={loss:g} must be above {floor:.4g} nats, the "
                            "irreducible term (N_c/N)^alpha_N of Kaplan et al. 2020's L(N, S_min) "
                            f"fit for {spec.name} ({n:.3g} non-embedding parameters): no run of "
                            "this model reaches it under that fit (notebook 02); give a higher "
                            "target, or null for the loss the planned run reaches")


def _check_phase_rules(p: dict) -> None:
    """The main run's rules on its tokens and sequence length, for each extra phase
    (``phases``, ``check_run_rules``): its tokens below ``MAGNITUDE_LIMITS``' and at least one
    step (``global_batch_tokens``, the main run's rule of ``train_tokens``), a sequence that
    fits in the global batch, and GPUs the global batch can feed at its sequence length
    (``_check_batch_feeds_gpus``)."""
    for i, ph in enumerate(p.get("phases") or []):
        tok = ph.get("tokens")
        if isinstance(tok, (int, float)) and tok > MAGNITUDE_LIMITS["train_tokens"][0]:
            raise ScenarioError(f"phases[{i}].tokens={tok:.3g} is above "
                                f"{MAGNITUDE_LIMITS['train_tokens'][0]:.0e}: "
                                f"{MAGNITUDE_LIMITS['train_tokens'][1]}")
        b = p.get("global_batch_tokens")
        if isinstance(tok, (int, float)) and isinstance(b, (int, float)) and 0 < tok < b:
            raise ScenarioError(f"phases[{i}].tokens={tok:,.0f} is less than one step: "
                                f"global_batch_tokens={b:,} tokens are trained per optimizer "
                                "step; give the phase at least one global batch (check the "
                                "exponent)")
        if "model" not in p or "global_batch_tokens" not in p:
            continue
        n = ph.get("n_gpus", p.get("n_gpus"))
        if ph["seq_len"] > p["global_batch_tokens"]:
            raise ScenarioError(f"phases[{i}].seq_len={ph['seq_len']:,} is longer than "
                                f"global_batch_tokens={p['global_batch_tokens']:,}: a step "
                                "must hold at least one sequence")
        if n is not None:
            try:
                _check_batch_feeds_gpus({"model": p["model"], "n_gpus": n,
                                         "seq_len": ph["seq_len"],
                                         "global_batch_tokens": p["global_batch_tokens"]})
            except ScenarioError as e:
                whose = "" if "n_gpus" in ph else " (the phase runs on the main run's n_gpus)"
                raise ScenarioError(f"phases[{i}] ({ph['name']!r}): {e}{whose}") from None


def check_run_rules(p: dict) -> None:
    """Rules a scenario's secondary runs share with the main run, and magnitudes refused as typos.

    * every extra phase (``phases``) obeys the main run's rules (``_check_phase_rules``): its
      GPUs must be fed by the global batch at its sequence length (``_check_batch_feeds_gpus``,
      the rule of ``n_gpus``), a sequence must fit in the global batch, and its tokens must
      make at least one step;
    * the RL job (``rl_gpus``, ``rl_rollout_gpus``) obeys the same batch rule, its batch being
      ``rl_prompts_per_step × rl_samples_per_prompt`` sequences of prompt + response tokens;
    * ``MAGNITUDE_LIMITS``: values above them are refused with the reason;
    * ``train_tokens`` below one step's ``global_batch_tokens`` (a run of less than one step).

    Checked wherever the keys are present (``validate_parameters``, hence every notebook's
    parameter cell, ``load_scenario`` and the report).
    """
    for key in MAGNITUDE_LIMITS:
        _check_magnitude(key, point(p.get(key)))
    d, b = point(p.get("train_tokens")), p.get("global_batch_tokens")
    if isinstance(d, (int, float)) and isinstance(b, (int, float)) and 0 < d < b:
        shown = f"{d:,.0f}" if d >= 1 else f"{d:.3g}"   # 0.001 said so, not "0"
        raise ScenarioError(f"train_tokens={shown} is less than one step: global_batch_tokens="
                            f"{b:,} tokens are trained per optimizer step; give train_tokens of "
                            "at least one global batch (check the exponent) or a smaller "
                            "global_batch_tokens")
    _check_phase_rules(p)
    _check_target_loss(p)
    rl = ("model", "rl_prompts_per_step", "rl_samples_per_prompt", "rl_prompt_tokens",
          "rl_response_tokens")
    if all(k in p for k in rl):
        seq = p["rl_prompt_tokens"] + p["rl_response_tokens"]
        seqs = p["rl_prompts_per_step"] * p["rl_samples_per_prompt"]
        for key in ("rl_gpus", "rl_rollout_gpus"):
            if not p.get(key):
                continue
            try:
                _check_batch_feeds_gpus({"model": p["model"], "n_gpus": p[key], "seq_len": seq,
                                         "global_batch_tokens": seqs * seq})
            except ScenarioError:
                raise ScenarioError(
                    f"{key}={p[key]:,} is more than the RL batch can feed (the rule of n_gpus): "
                    f"rl_prompts_per_step × rl_samples_per_prompt = {seqs:,} sequences of "
                    f"rl_prompt_tokens + rl_response_tokens = {seq:,} tokens per step, each "
                    "data-parallel replica needs at least one, and one sequence spreads over at "
                    "most tp × pp × cp GPUs: use fewer GPUs") from None


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


def _mfu_word(path, value) -> bool:
    """Whether a scenario file's ``mfu`` is the word ``predict`` (the report resolves it); a
    string that is almost the word (another case, or a near miss such as ``predcit``: ``suggest``)
    is refused naming it; any other value is left to ``validate_parameter``."""
    if value == MFU_PREDICT:
        return True
    if isinstance(value, str) and value.strip().lower() == MFU_PREDICT:
        raise ScenarioError(f"{path}: mfu={value!r}: the word is `predict` (lower case), which "
                            "asks the report to predict the MFU; or give a number in (0, 1]")
    if isinstance(value, str) and suggest(value.strip(), [MFU_PREDICT]):
        raise ScenarioError(f"{path}: mfu={value!r} must be a number in (0, 1], or the word "
                            "`predict` (the step-time model's prediction for the scenario's "
                            "plan); did you mean `mfu: predict`?")
    return False


def _read_yaml(p: Path):
    """The YAML 1.2 document of scenario file ``p``; a ``ScenarioError`` naming the file for a
    file that is not UTF-8 text (a trial: Python's own "'utf-8' codec can't decode byte 0xd0 in
    position 24"), for YAML that does not parse (line and column), and for a value the loader
    refuses."""
    try:
        return yaml.load(p.read_text(encoding="utf-8"), Loader=_Yaml12Loader)
    except ScenarioError as e:
        raise ScenarioError(f"{p}: {e}") from None
    except UnicodeDecodeError as e:  # a binary file, or another encoding
        raise ScenarioError(f"{p}: not a UTF-8 text file (byte {e.start}: {e.reason}); save the "
                            "scenario as UTF-8 YAML") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(e, "problem", None) or "cannot be parsed"
        raise ScenarioError(f"{p}: not valid YAML{where}: {problem}") from None


def _shipped_hint(path: Path) -> str:
    """What to try instead of a scenario path that does not exist: the shipped scenario of
    that file name (``default``, ``default.yaml``, ``default.yml`` or
    ``data/scenarios/default.yaml`` typed from another folder, for the repository's
    ``data/scenarios/default.yaml``), else the command that lists the shipped ones."""
    stem = path.stem if path.suffix in (".yaml", ".yml") else path.name
    shipped = SCENARIO_DIR / f"{stem}.yaml"
    if stem and shipped.is_file():
        return f"the shipped scenario of that name is {shipped}"
    return "`llmcost list scenarios` lists the shipped ones"


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
        where = "" if p.is_absolute() else f" (a path relative to {Path.cwd()})"
        raise ScenarioError(f"path={str(path)!r}: no such scenario file{where}; "
                            + _shipped_hint(p))
    if not p.is_file():
        raise ScenarioError(f"scenario {str(path)!r} is not a file")
    data = _read_yaml(p)
    if not isinstance(data, dict) or not data:
        raise ScenarioError(f"{p}: must be a non-empty mapping of parameter names to values")
    out, bad = {}, []
    for key, value in data.items():
        if key in METADATA_KEYS:
            if not isinstance(value, str):
                raise ScenarioError(f"{p}: {key}={value!r} must be a string")
            out[key] = value
            continue
        if key == "interactive":
            raise ScenarioError(f"{p}: interactive cannot be set in a scenario (reports always "
                                "run with the widgets off)")
        if key == "mfu_band":
            raise ScenarioError(f"{p}: mfu_band cannot be set in a scenario (a report sets it "
                                "when it passes the step-time model's or the pilots' band as "
                                "the range on mfu)")
        if key in ("model", "ledger_synthetic_model") and isinstance(value, str):
            if is_config_path(value) and not Path(value).is_absolute():
                value = str(p.parent / value)  # relative to the scenario file
            elif _config_folder(p.parent / value, value):  # a trial's `model: cfgdir` was "not
                value = str((p.parent / value).resolve())  # in the catalogue"
        if key == "efficiency_profile" and isinstance(value, str) and \
                not Path(value).is_absolute():
            value = str(p.parent / value)  # relative to the scenario file
        if key == "mfu" and value is None and (
                data.get("pilot") or data.get("ledger_pilot_tokens_per_s_per_gpu") is not None):
            raise ScenarioError(f"{p}: mfu=null beside a pilot: leave mfu out, the pilot's "
                                "measured throughput sets the MFU")
        if key == "mfu" and _mfu_word(p, value):
            out[key] = MFU_PREDICT  # resolved by the report (llmcost.report.resolve_mfu)
            continue
        try:
            out[key] = validate_parameter(str(key), value)
        except ScenarioError as e:
            bad.append(str(e))   # every key checked before the refusal names them all
    if bad:
        raise ScenarioError(f"{p}: {_bad_keys_words(bad)}")
    _check_given_once(out, p)
    if out.get("efficiency_profile") and out.get("accelerator"):
        try:  # the profile's fractions are of one accelerator's datasheet and one GEMM dtype
            load_efficiency_profile(out["efficiency_profile"], accelerator=out["accelerator"],
                                    dtype=out.get("dtype", "bf16"))
        except ValueError as e:
            raise ScenarioError(f"{p}: {e}") from None
    try:
        _cross_check(point_scenario(out))
        _check_file_post_training(out)
    except ScenarioError as e:
        raise ScenarioError(f"{p}: {e}") from None
    return out


def _check_file_post_training(out: dict) -> None:
    """``check_post_training_only`` of a scenario file, decided on the file's own keys (its RL
    campaign: ``rl_campaign_given``) and the notebooks' defaults for the rest; a file of
    post-training alone that gives a key it cannot apply (``NO_PRETRAINING_KEYS``: the
    checkpoint-storage line's) is refused with why."""
    check_post_training_only({**LEDGER_DEFAULTS, **out, "ledger_rl": rl_campaign_given(out)})
    if out.get("train_tokens") == 0 and out.get("mfu") == MFU_PREDICT and \
            not prices_at_mfu({**LEDGER_DEFAULTS, **out}):
        raise ScenarioError("mfu=predict with train_tokens=0 and no fine-tuning tokens: no line "
                            "of this bill is priced at the MFU (an RL campaign's passes are "
                            "timed by the step model); leave mfu out")
    if out.get("train_tokens") == 0:   # (the two the ledger checks, by their values, above)
        for key in [k for k in NO_PRETRAINING_KEYS if k.startswith("ckpt_")]:
            if key in out:
                raise ScenarioError(f"{key}={out[key]!r} with train_tokens=0 (post-training "
                                    f"alone): {NO_PRETRAINING_KEYS[key]}; leave it out")


def _check_given_once(out: dict, p) -> None:
    """Inputs a scenario file gives once, whichever way: the MFU (``_check_mfu_and_pilot``) and
    the exploratory compute (``_check_exploratory``)."""
    _check_mfu_and_pilot(out, p)
    _check_exploratory(out, p)
    try:
        check_mfu_floor(out)
    except ScenarioError as e:
        raise ScenarioError(f"{p}: {e}") from None


def _check_exploratory(out: dict, p) -> None:
    """``exploratory_given_once`` of a scenario file, its path ``p`` before the refusal."""
    try:
        exploratory_given_once(out)
    except ScenarioError as e:
        raise ScenarioError(f"{p}: {e}") from None


def exploratory_given_once(out: dict) -> None:
    """A scenario gives the exploratory compute once: ``ledger_exploratory_fraction`` or
    ``ledger_exploratory_runs``, whose listed runs replace the fraction in the bill
    (``ledger``'s exploratory line), so a fraction beside them would be silently ignored.
    Checked by ``load_scenario`` and by every ``validate_parameters`` (``_cross_check``)."""
    if out.get("ledger_exploratory_fraction") is not None and out.get("ledger_exploratory_runs"):
        frac = out["ledger_exploratory_fraction"]
        given = ("ledger_exploratory_fraction is a range" if isinstance(frac, Range)
                 else f"ledger_exploratory_fraction={frac:g}")
        raise ScenarioError(f"{given} and ledger_exploratory_runs are both given: the listed "
                            "runs replace the fraction in the bill; give one or the other")


def pilot_scale_given_with_throughput(out: dict) -> None:
    """``ledger_pilot_n_gpus`` says where a pilot throughput was measured: it is given only
    beside ``ledger_pilot_tokens_per_s_per_gpu``, or beside the calibration a report made of
    them (``_mfu_calibration``). A report that has extrapolated the pilot to the run passes
    neither the throughput nor the scale on to the notebooks (``report.calibrate_mfu``), so a
    notebook's own check sees neither. Checked by ``load_scenario`` and
    ``validation.validate_scenario``; not by a notebook's ``validate_parameters``."""
    if out.get("ledger_pilot_n_gpus") is not None and \
            out.get("ledger_pilot_tokens_per_s_per_gpu") is None and \
            "_mfu_calibration" not in out:
        raise ScenarioError(f"ledger_pilot_n_gpus={out['ledger_pilot_n_gpus']} is given "
                            "without ledger_pilot_tokens_per_s_per_gpu: it says where that "
                            "pilot throughput was measured; give both or neither")


def _check_mfu_and_pilot(out: dict, p) -> None:
    """A scenario file gives the MFU once: ``mfu`` (a number, a range or ``predict``) or a pilot
    (``pilot`` records or ``ledger_pilot_tokens_per_s_per_gpu``, not both), whose throughput
    would replace it; and ``ledger_pilot_n_gpus`` only beside the throughput it locates."""
    pilot_keys = [k for k in ("pilot", "ledger_pilot_tokens_per_s_per_gpu")
                  if out.get(k) not in (None, [])]
    if "mfu" in out and pilot_keys:  # the pilot's MFU would silently replace the given one
        keys = " and ".join(pilot_keys)
        if out["mfu"] == MFU_PREDICT:
            raise ScenarioError(f"{p}: give either mfu: predict or {keys}, not both: the "
                                "pilot's throughput sets the MFU")
        given = "mfu is a range" if isinstance(out["mfu"], Range) else f"mfu={out['mfu']:g}"
        raise ScenarioError(f"{p}: {given} and {keys} are both given: the pilot's throughput "
                            "sets the MFU (extrapolated to the scenario's plan); give one or "
                            "the other (drop mfu to bill the pilot's MFU)")
    if len(pilot_keys) == 2:  # calibrate read the records and ignored the shorthand
        raise ScenarioError(f"{p}: give either ledger_pilot_tokens_per_s_per_gpu or pilot, not "
                            "both: each is a pilot measurement that sets the MFU (the records "
                            "of `pilot:` say which plan and GPU count ran)")
    try:
        pilot_scale_given_with_throughput(out)
    except ScenarioError as e:
        raise ScenarioError(f"{p}: {e}") from None


def resolve_price(accelerator: str, price_usd_per_gpu_hour, pricing: str = "on_demand"
                  ) -> tuple[float, str]:
    """The price to use and where it comes from: the explicit value (a range's point, the mode
    of its triangular draw), or the catalogue median.

    Returns
    -------
    (price_usd_per_gpu_hour, provenance string)
    """
    try:
        accelerator = load_accelerator(accelerator).name
    except ValueError as e:
        raise ScenarioError(str(e)) from None
    if not isinstance(pricing, str) or pricing not in PRICING:
        raise ScenarioError(f"pricing={pricing!r} must be one of {', '.join(map(repr, PRICING))}")
    if price_usd_per_gpu_hour is not None:
        v = validate_parameter("price_usd_per_gpu_hour", price_usd_per_gpu_hour)
        if isinstance(v, Range):  # a range, as a scenario may give it: its point
            return float(v.point), (f"given as price_usd_per_gpu_hour, the point of the range "
                                    f"{v.describe()}")
        return float(v), "given as price_usd_per_gpu_hour"
    if pricing == "owned":  # amortised as Cottier et al. 2024 (llmcost.pricing)
        try:
            own = owned_usd_per_gpu_hour(load_accelerator(accelerator))
        except ValueError as e:
            raise ScenarioError(str(e)) from None
        return own["usd_per_gpu_hour"], (
            f"owned: ${own['acquisition_usd_per_gpu']:,.0f} per GPU amortised as Cottier et al. "
            "2024 (hardware + energy, llmcost.pricing.owned_usd_per_gpu_hour)")
    try:
        return catalogue_price(accelerator, pricing)
    except ValueError as e:
        raise ScenarioError(str(e)) from None
