"""Plausibility checks on a whole scenario: what a report should say before its numbers.

Each notebook answers its own question; some conditions make the numbers of *every* notebook
misleading (no parallel plan fits in memory, an MFU above anything published, a pipeline bubble
the MFU does not include). ``scenario_warnings`` finds them, so that a report states them at the
top instead of burying a "False" in a table.
"""

from __future__ import annotations

import collections
import math
import warnings
from dataclasses import replace
from functools import lru_cache

import numpy as np

from ..core.catalog import (NOT_AVAILABLE, SCENARIO_DIR, catalogue_price, current_prices,
                            discount_price_cap, is_config_path, load_accelerator,
                            load_efficiency, load_model, load_published_runs, scenario_cluster,
                            unavailable_prices)
from ..core.diskcache import disk_cached
from ..core.model import UnknownFamilyWarning
from ..core.stacks import (DEFAULT_STACK, StackFeatureWarning, foreign_hardware, list_stacks,
                           load_stack, plan_options, stacks_having)
from ..core.units import (fmt_bandwidth, fmt_count, fmt_duration, fmt_gpus, fmt_signed_pct, noun,
                          with_article)
from ..serving.inference import model_context
from ..training import gemm, parallel
from ..training.reliability import (cluster_mtbf_s, published_failure_rates,
                                   storage_throughput_per_tib)
from ..training.accuracy import (LONG_CONTEXT_TOKENS, SEQ_FACTOR, SIZE_FACTOR, band_for_step,
                                 comparable_published_mfu, distinct_percents, dtype_basis,
                                 gpu_generation, stack_generations, step_error_words,
                                 validation_table)
from ..training.memory import (DEFAULT_RESERVE, MOE_CHECK_LOAD_FACTOR, get_recipe,
                               moe_imbalance_extra_bytes, scenario_recipe_name, stage_layers)
from ..training.parallel import fixed_plan_fields
from ..training.comm import load_topologies
from ..training.overlap import group_bandwidth
from ..training.step import scenario_plan, scenario_step, step_time
from ..training.step_scenario import (PLAN_KEYS, fixed_degrees_ceiling,
                                      fp8_copy_bytes_per_gpu, fp8_weight_copy_warning,
                                      roomy_scenario_plan, scenario_memory,
                                      scenario_step_options)
from ..training.step_validation import published_stack
from .pilot import pilot_given, pilot_mfu
from .ranges import Range
from .scenario import load_scenario, post_training_only, prices_at_mfu

#: The highest MFUs published for large dense pre-training, used as a plausibility bound
#: (PaLM 540B 46.2%, Chowdhery et al. 2022 Table 3; Llama 3 405B 38–43%, Llama Team 2024
#: Table 4; Korthikanti et al. 2022's 530B benchmark on 280 A100s, 56.0%, Table 5).
PUBLISHED_MFU_MAX = 0.56
#: Pipeline bubbles above this share of compute time are called out (``parallel.BUBBLE_WARNING``,
#: where ``split_hint`` suggests no GPU count whose every split has one).
BUBBLE_WARNING = parallel.BUBBLE_WARNING
#: A predicted step with more exposed communication than this share is called out.
EXPOSED_COMM_WARNING = 0.30
#: A predicted step whose busiest pipeline stage makes the others wait longer than this share
#: of it is called out (``stage_imbalance_warning``): the same 10% as ``BUBBLE_WARNING``, the
#: pipeline's other idle time.
STAGE_IMBALANCE_WARNING = BUBBLE_WARNING
#: A failure rate above this many times the highest published per-GPU rate
#: (``reliability.published_failure_rates``: 1.08 per GPU-year, Kokolis et al. 2024's
#: 1,024-GPU jobs) is called out (``failure_rate_warning``). A stated threshold, not a fitted
#: one: an order of magnitude beyond every published cluster, where a rate per cluster or per
#: GPU-hour typed as one per GPU-year is likelier than a fleet.
FAILURE_RATE_WARNING_FACTOR = 10.0


def catalogue_price_warning(values: dict) -> str | None:
    """A reserved or spot price left to the catalogue (``price_usd_per_gpu_hour`` null) whose
    rows' median lies above the on-demand median of the same accelerator, so that the bill
    uses the on-demand median instead (``core.catalog.discount_price_cap``: a reservation is a
    billing discount on on-demand use, AWS's reservation-models whitepaper; such rows are
    usually short-term prepaid blocks, AWS EC2 Capacity Blocks for ML: 1 to 182 days, not a
    1-3 year commitment, aws.amazon.com/ec2/capacityblocks/pricing). Says what was used and
    why, with both sets of rows; None otherwise (a price the scenario gives is its own, and a
    catalogue without the rows says nothing)."""
    pricing, acc = values.get("pricing"), values.get("accelerator")
    if values.get("price_usd_per_gpu_hour") is not None or pricing not in ("reserved", "spot") \
            or acc is None:
        return None
    try:
        cap = discount_price_cap(acc, pricing)
    except ValueError:
        return None
    if cap is None:
        return None
    return (f"pricing={pricing}: the catalogue's {pricing} price for {acc}, ${cap['listed']:.2f} "
            f"per GPU-hour (median of {cap['listed_n']} row(s): {cap['listed_where']}), is "
            f"above its on-demand median, ${cap['on_demand']:.2f} ({cap['on_demand_n']} row(s): "
            f"{cap['on_demand_where']}); a {pricing} hour is a discount on an on-demand one "
            "(a reservation is a billing discount on on-demand use), and such rows are often "
            "short-term prepaid blocks that buy guaranteed capacity, so the bill uses the "
            f"on-demand median, ${cap['on_demand']:.2f}, as the {pricing} price: set "
            f"price_usd_per_gpu_hour from a quote (${cap['listed']:.2f} to price the listed "
            "block).")


def price_network_warning(values: dict) -> str | None:
    """The bill's price taken from the catalogue (``price_usd_per_gpu_hour`` null, a pricing
    mode other than owned) from rows whose instance's scale-out network per GPU
    (``scaleout_bytes_per_s_per_gpu`` in data/prices.csv, the provider's instance page: AWS
    p4d.24xlarge, 400 Gb/s EFA per 8 A100 = 50 Gb/s = 6.25e9 B/s per GPU,
    https://aws.amazon.com/ec2/instance-types/p4/) differs by more than 1% from the one the
    step-time model uses (``comm_scaleout_bytes_per_s``, else data/accelerators.csv's
    ``scaleout_bytes_per_s_per_dir``): the price buys another network than the one modelled.
    Named with its rows; None otherwise (a price the scenario gives is its own), and for a job
    inside one scale-up domain (``n_gpus`` at most the accelerator's ``scaleup_domain_size``),
    which sends nothing over the scale-out network."""
    pricing, acc = values.get("pricing", "on_demand"), values.get("accelerator")
    if values.get("price_usd_per_gpu_hour") is not None or pricing == "owned" or acc is None:
        return None
    try:
        gpu = load_accelerator(acc)
        rows = current_prices(gpu.name, pricing)
    except ValueError:
        return None
    n = values.get("n_gpus")
    if isinstance(n, (int, float)) and gpu.scaleup_domain_size and n <= gpu.scaleup_domain_size:
        return None
    given = values.get("comm_scaleout_bytes_per_s")
    modelled = given if isinstance(given, (int, float)) else gpu.scaleout_bytes_per_s_per_dir
    if not modelled or "scaleout_bytes_per_s_per_gpu" not in rows:
        return None
    off = [(r, float(r.scaleout_bytes_per_s_per_gpu)) for r in rows.itertuples()
           if r.scaleout_bytes_per_s_per_gpu not in ("", None)]
    off = [(r, x) for r, x in off if abs(x - modelled) > 0.01 * modelled]
    if not off:
        return None
    said = "; ".join(f"{r.provider} {r.date} ${r.price_usd_per_gpu_hour:.2f}: {x / 1e9:g} GB/s "
                     "per GPU" for r, x in off)
    where = ("comm_scaleout_bytes_per_s (scenario)" if isinstance(given, (int, float)) else
             "data/accelerators.csv")
    return (f"price_usd_per_gpu_hour: the catalogue's {pricing} price for {gpu.name} comes from "
            f"instances whose scale-out network differs from the {modelled / 1e9:g} GB/s per GPU "
            f"the step-time model uses ({where}): {said} (data/prices.csv, its source and "
            "notes); set comm_scaleout_bytes_per_s to the priced instance's figure, or "
            "price_usd_per_gpu_hour from a provider whose network matches.")


def unavailable_price_warning(values: dict) -> str | None:
    """The bill's price taken from the catalogue (``price_usd_per_gpu_hour`` null, a pricing
    mode other than owned) where a row of its median was listed as not available (no capacity)
    when collected (``core.catalog.unavailable_prices``): a price no one may sell. Named with
    its rows, their status and source; None otherwise (a price the scenario gives is its own)."""
    pricing, acc = values.get("pricing", "on_demand"), values.get("accelerator")
    if values.get("price_usd_per_gpu_hour") is not None or pricing == "owned" or acc is None:
        return None
    try:
        price, _ = catalogue_price(acc, pricing)
        rows = unavailable_prices(acc, pricing)
    except ValueError:
        return None
    if not rows:
        return None
    return (f"price_usd_per_gpu_hour: the catalogue's {pricing} price for {acc}, ${price:.2f} "
            f"per GPU-hour, rests on {len(rows)} row(s) {NOT_AVAILABLE} (the provider showed "
            f"no capacity when it was collected): {'; '.join(rows)}. A run may not be buyable "
            "at that price: set price_usd_per_gpu_hour from a quote.")


def step_model_runs(values: dict) -> bool:
    """Whether the step-time model can price the scenario's hardware at all: its cluster
    (``catalog.scenario_cluster``) has every network figure, from the catalogue or the
    scenario's ``comm_scaleout_bytes_per_s``. Without one (TPU v4, MI325X) no step is predicted
    and the report runs only notebooks 00, 01, 07, 08 and 10, so warnings about how the model
    priced the step have nothing to describe."""
    try:
        scenario_cluster({**values, "n_gpus": max(1, int(values.get("n_gpus") or 1))})
    except (ValueError, TypeError):
        return False
    return True


def stack_hardware_warning(values: dict, mfu_predicted: bool = False,
                           defaults=frozenset()) -> str | None:
    """The stack profile the step-time model used (``stack``, default ``DEFAULT_STACK``) when it
    was not measured on the scenario's hardware family (``core.stacks.foreign_hardware``: the
    accelerator's vendor not among the profile's ``measured_on``), e.g. a TPU priced with
    Megatron-Core's overlaps, kernels and memory practice; naming the profiles measured on that
    vendor, if any. None otherwise."""
    if "accelerator" not in values:
        return None
    try:
        gpu = load_accelerator(values["accelerator"])
        st = load_stack(values.get("stack", DEFAULT_STACK))
        vendor = foreign_hardware(st, gpu)
    except ValueError:
        return None
    if vendor is None or not step_model_runs(values):
        return None
    given = "stack" in values and "stack" not in defaults
    own = stacks_having(lambda s: vendor in s.measured_on)
    what = ("its predicted MFU and the plan it chose" if mfu_predicted else
            "the plan it chose and its checks of the MFU")
    fam = "/".join(st.measured_on)
    did = "priced" if mfu_predicted else "planned and checked"   # a given MFU prices the bill
    return (f"the step-time model {did} this {gpu.name} ({vendor}) run on the {st.name} stack "
            f"profile{'' if given else ' (the default: the scenario sets no stack)'}, measured "
            f"on {fam} hardware only (data/stacks.csv, measured_on): its overlaps, attention "
            f"kernels and memory practice are {fam} software's, not measured on {vendor} "
            f"hardware, so read {what} as rough; "
            + (f"stack profiles measured on {vendor}: {', '.join(own)}." if own else
               f"the catalogue has no stack profile measured on {vendor}."))


@disk_cached  # two plan searches, the same for every call with these values: core.diskcache
def stack_mfus(values: dict, other: str) -> tuple:
    """``(m_here, m_other, plan, bill_here, bill_other, capped)``: the step-time model's MFU
    for the scenario's plan on its own stack (``values["stack"]``, default ``DEFAULT_STACK``)
    and on the stack ``other`` (``scenario_step``: the plan search with the scenario's fixed
    fields on each stack), the plan chosen on ``other`` in words (``ParallelPlan.describe``),
    the MFU a bill of ``mfu: predict`` takes from each prediction (``MfuBand.central``:
    p / (1 + c) kept inside its band, whose top may be capped at the best comparable published
    run: what ``report.resolve_mfu`` prices), and whether either is its band's capped top."""
    spec = load_model(values["model"])
    acc, dtype = values.get("accelerator", "H100-SXM"), values.get("dtype", "bf16")
    out = []
    for v in (values, {**values, "stack": other}):
        plan, b = scenario_step(v, spec)
        point, _, capped = band_for_step(b, plan, spec, acc, dtype=dtype,
                                         seq_len=v.get("seq_len")).central()
        out.append((float(b.mfu), float(point), plan.describe(), bool(capped)))
    (m_here, bill_here, _, c_here), (m_other, bill_other, plan, c_other) = out
    return m_here, m_other, plan, bill_here, bill_other, c_here or c_other


def _stack_left_default(values: dict, mfu_predicted: bool, defaults) -> bool:
    """Whether a stack hint applies: the MFU is predicted and the scenario names no stack of its
    own (``defaults``: the keys the notebooks' defaults filled)."""
    return bool(mfu_predicted) and not ("stack" in values and "stack" not in defaults)


def own_stack_hint(values: dict, mfu_predicted: bool = False,
                   defaults=frozenset()) -> str | None:
    """A predicted MFU priced on the default stack for a model whose own published pre-training
    ran on another (``step_validation.published_stack``, e.g. DeepSeek-V3 on HAI-LLM,
    ``deepseek-hai-llm-2024``): the step-time model's MFU for the scenario's plan search on
    both stacks, m_default and m_own (``scenario_step``, the same model, GPUs and fixed plan
    fields), and the key that selects the model's own. The step time scales as 1 ÷ MFU, so the
    run's days scale by m_default ÷ m_own; where a bill's MFU differs from the prediction (the
    band's centre, capped at the best comparable published run: ``stack_mfus``), by the ratio
    of the bills' MFUs, said so. None when the scenario names a stack, the MFU is not
    predicted, the model has no such run, or either search fails."""
    if not _stack_left_default(values, mfu_predicted, defaults):
        return None
    here = values.get("stack", DEFAULT_STACK)
    own = published_stack(values.get("model"))
    if own is None or own[0] == here:
        return None
    try:
        m_here, m_own, plan, bill_here, bill_own, capped = stack_mfus(values, own[0])
    except (ValueError, KeyError, TypeError):
        return None
    billed = (f"the same run in {m_here / m_own:.2f}× the time" if
              math.isclose(bill_here, m_here, rel_tol=1e-4) and
              math.isclose(bill_own, m_own, rel_tol=1e-4) else
              f"a bill takes {bill_here:.1%} and {bill_own:.1%}, each prediction's band centre "
              "kept within its band" + (", whose top is capped at the best comparable "
                                        "published run" if capped else "") +
              f": the same run in {bill_here / bill_own:.2f}× the time")
    return (f"{values['model']}'s own published pre-training ran on the {own[0]} stack "
            f"(data/validation_mfu.csv: {own[1]}); the scenario sets no stack, so it is "
            f"priced on {here}: "
            f"there the step-time model predicts {m_here:.1%}, on {own[0]} {m_own:.1%} "
            f"({plan}; {billed}): set `stack: {own[0]}` to price it on its own software.")


def _published_batch(model_name) -> tuple | None:
    """``(tokens per step, the run's label)`` of the catalogue model's own published
    pre-training (``data/published_runs.csv``: a row of that ``catalog_model`` giving its
    training tokens and ``global_batch_tokens``; DeepSeek-V3: 62,914,560, arXiv:2412.19437
    §4.2, 15,360 sequences of 4,096), or None."""
    if not isinstance(model_name, str):
        return None
    runs = load_published_runs()
    rows = runs[(runs["catalog_model"] == model_name) & runs["train_tokens"].notna()
                & runs["global_batch_tokens"].notna()]
    if rows.empty:
        return None
    return int(rows["global_batch_tokens"].iloc[0]), str(rows["model"].iloc[0])


def default_batch_hint(values: dict, mfu_predicted: bool = False,
                       defaults=frozenset()) -> str | None:
    """A predicted MFU at the default global batch (``global_batch_tokens`` left to the
    notebooks' default, 4,194,304 tokens, the default scenario's) for a model whose own
    published pre-training ran at another (``_published_batch``): the step-time model's MFU
    for the scenario's plan search at both batches (``scenario_step``: the same stack, GPUs and
    fixed plan fields) and the key that sets the model's own. The batch sets how many
    micro-batches fill the pipeline and how much compute hides each step's communication, so
    the prediction moves with it (a compute-governance trial's DeepSeek-V3 on 2,048 H800s:
    6.0% at the default batch, 12.5% at its published one, on the same stack; it read the
    6.0% as the model's verdict on DeepSeek's run). None when the scenario gives its batch, the
    MFU is not predicted, the model has no published batch or the same one, or either search
    fails."""
    if not mfu_predicted or ("global_batch_tokens" in values
                             and "global_batch_tokens" not in defaults):
        return None
    own = _published_batch(values.get("model"))
    here = values.get("global_batch_tokens")
    if own is None or here is None or own[0] == here:
        return None
    try:
        spec = load_model(values["model"])
        (_, b_here), (plan, b_own) = (scenario_step(v, spec) for v in (
            values, {**values, "global_batch_tokens": own[0]}))
    except (ValueError, KeyError, TypeError):
        return None
    return (f"global_batch_tokens is not given: the MFU is predicted at the default "
            f"{here:,} tokens per step, where {values['model']}'s own published pre-training "
            f"ran at {own[0]:,} ({own[1]}, data/published_runs.csv); the step-time model "
            f"predicts {float(b_here.mfu):.1%} at the default and {float(b_own.mfu):.1%} at "
            f"{own[0]:,} ({plan.describe()}): set `global_batch_tokens: {own[0]}` to price "
            "it at its own batch.")


#: How far apart (relative) two stacks' bill MFUs must be before ``newer_stack_hint`` names the
#: newer one: a hint that changes the bill by less reads as noise.
NEWER_STACK_MIN_CHANGE = 0.05


def _stack_and_gpu(values: dict) -> tuple:
    """The scenario's stack (``DEFAULT_STACK`` when it names none) and accelerator (None when
    the catalogue has no such name)."""
    here = load_stack(values.get("stack") or DEFAULT_STACK)
    try:
        return here, load_accelerator(values.get("accelerator", "H100-SXM"))
    except (ValueError, TypeError):
        return here, None


def _family_stacks(name: str) -> list:
    """The stack profiles of ``name``'s family (the name up to its year, e.g.
    ``megatron-core``), itself included."""
    family = name.rsplit("-", 1)[0]
    return [load_stack(n) for n in list_stacks() if n.rsplit("-", 1)[0] == family]


def _other_stack_mfus(values: dict, other: str) -> tuple | None:
    """``stack_mfus(values, other)`` where the two bills' MFUs differ by more than
    ``NEWER_STACK_MIN_CHANGE`` (a hint that moves the bill by less reads as noise); None
    otherwise, or where either search fails."""
    try:
        got = stack_mfus(values, other)
    except (ValueError, KeyError, TypeError):
        return None
    return None if abs(got[4] / got[3] - 1) <= NEWER_STACK_MIN_CHANGE else got


def newer_stack_for(values: dict):
    """The stack a run on hardware no older than its stack would use: the newest profile of the
    family of the scenario's stack (``values["stack"]``, default ``DEFAULT_STACK``; the family
    is its name up to the year, e.g. ``megatron-core``) dated after it and no earlier than the
    accelerator's year (``Accelerator.year``), when the accelerator was released in the stack's
    year or later (a year the catalogue gives, not a month: GB200, 2024, and B200 shipped after
    megatron-core-2024's June profile, whose MoE dispatch predates them; a finance trial's
    Qwen3-30B-A3B on 576 GB200 billed 42% less on megatron-core-2026 and the lever said "not
    later"); only a profile with published runs of the accelerator's GPU generation
    (``accuracy.stack_generations``: a review found H200 told to set megatron-core-2026, whose
    runs are all Blackwell, which ``stack_generation_warning`` then told to leave); None
    otherwise (no such later profile, an accelerator without a year, or an unknown one).
    ``newer_stack_hint`` says it; ``levers.newer_stack`` prices it."""
    here, gpu = _stack_and_gpu(values)
    if gpu is None or gpu.year is None or gpu.year < int(here.date[:4]):
        return None
    gen = gpu_generation(gpu.name)
    later = sorted((st for st in _family_stacks(here.name) if int(st.date[:4]) >= gpu.year
                    and st.date > here.date and gen in stack_generations(st.name)),
                   key=lambda st: st.date)
    return later[-1] if later else None


def newer_stack_hint(values: dict, mfu_predicted: bool = False,
                     defaults=frozenset()) -> str | None:
    """A predicted MFU priced on the default stack (``DEFAULT_STACK``, megatron-core-2024,
    dated 2024-06) for an accelerator released in that year or later (``Accelerator.year``:
    GB300 2025, GB200 2024; ``newer_stack_for``): the newest profile of the default's family
    (its name up to the year, e.g. ``megatron-core-2026``), dated no earlier than the
    accelerator's year, is the software such
    a run would use, and its bill MFU (``stack_mfus``: each stack's plan search, the band's
    centre kept inside its band) is said beside the default's when the two differ by more than
    ``NEWER_STACK_MIN_CHANGE``, with the key that selects it. A new-user trial: DeepSeek-V3 in
    FP8 on 4,608 GB300, billed at 19.1% MFU on the 2024 profile where megatron-core-2026 takes
    26.5%, a third of the bill, and no word said which stack the range assumes. None when the
    scenario names a stack, the MFU is not predicted, the accelerator is older than the
    default stack, no later profile of its family exists, or either search fails."""
    if not _stack_left_default(values, mfu_predicted, defaults):
        return None
    newest = newer_stack_for(values)
    if newest is None:
        return None
    here, gpu = _stack_and_gpu(values)   # an accelerator newer_stack_for found
    got = _other_stack_mfus(values, newest.name)
    if got is None:
        return None
    m_here, m_new, plan, bill_here, bill_new, capped = got
    return (f"stack: the scenario sets none, so it is priced on {here.name} (dated {here.date}), "
            f"{'older than' if int(here.date[:4]) < gpu.year else 'of the release year of'} "
            f"{gpu.name} ({gpu.year}); on {newest.name} (dated {newest.date}), the "
            f"newest profile of its family, the step-time model predicts {m_new:.1%} (for the "
            f"plan its search chooses there, {plan}) against {m_here:.1%} and a bill takes "
            f"{bill_new:.1%} against {bill_here:.1%}"
            + (" (a band's top capped at the best comparable published run)" if capped else "")
            + f": the same run in {bill_here / bill_new:.2f}× the time. Set `stack: "
            f"{newest.name}` if the run uses that software; the MFU's range does not cover the "
            "choice of stack.")


def stack_generation_warning(values: dict, mfu_predicted: bool = False) -> str | None:
    """A predicted MFU priced on a stack profile no published run of the accelerator's GPU
    generation was priced on (``accuracy.stack_generations``: the validation rows of
    data/validation_mfu.csv on that stack), where the newest profile of its family (its name
    up to the year) that has runs of that generation gives the bill another MFU by more than
    ``NEWER_STACK_MIN_CHANGE`` (``stack_mfus``): both MFUs, the plan, and the evidence each
    rests on. A new user's trial: ``stack: megatron-core-2026``, written from Megatron-Bridge's
    GB200 / GB300 MXFP8 recipes (a full-iteration CUDA graph, so no MoE host cost), cut a
    Qwen3-30B-A3B on 1,024 H100 by 46% and reversed its H100-against-B200 comparison, while
    NVIDIA's H100 runs of the same releases ran megatron-core-2025's recipe. None when the MFU
    is not predicted, the profile has runs of the generation, no profile of its family has, or
    either search fails."""
    if not mfu_predicted:
        return None
    here, gpu = _stack_and_gpu(values)
    if gpu is None or not step_model_runs(values):
        return None
    gen, runs = gpu_generation(gpu.name), stack_generations(here.name)
    if gen in runs or not runs:
        return None
    family = here.name.rsplit("-", 1)[0]
    measured = sorted((st for st in _family_stacks(here.name) if gen in stack_generations(st.name)),
                      key=lambda st: st.date)
    got = _other_stack_mfus(values, measured[-1].name) if measured else None
    if got is None:
        return None
    alt = measured[-1]
    m_here, m_alt, plan, bill_here, bill_alt, capped = got
    on, n = " and ".join(runs), sum(runs.values())
    return (f"stack: {here.name} rests on published runs on {on} hardware only "
            f"({n} {noun(n, 'run')}, data/validation_mfu.csv), none on {gen} such "
            f"as {gpu.name}; on {alt.name}, the newest {family} profile with {gen} runs "
            f"({stack_generations(alt.name)[gen]}), the step-time model predicts {m_alt:.1%} "
            f"(for {plan}, the plan its search chooses there) against {m_here:.1%}, and a bill "
            f"takes {bill_alt:.1%} against {bill_here:.1%}"
            + (" (a band's top capped at the best comparable published run)" if capped else "")
            + f": the same run in {bill_here / bill_alt:.2f}× the time. {here.name}'s features "
            f"are priced on {gpu.name} as they run on {on}, which no published run shows, and "
            "the MFU's range does not cover the choice of stack: set `stack: "
            f"{alt.name}` for what {gen} runs have shown.")


def fp8_over_bf16(accelerator) -> float:
    """r = peak(FP8) ÷ peak(BF16) of a catalogue accelerator: ``accuracy.dtype_basis`` for FP8,
    the one source of the ratio the bands and the best published figure use too (H100-SXM
    1,978.9 ÷ 989.4 TFLOP/s, data/accelerators.csv): an MFU on the FP8 peak times r is the same
    throughput on the BF16 peak, the basis published MFUs are on.

    Raises
    ------
    ValueError
        An accelerator not in the catalogue, or one without an FP8 peak (A100, TPU v5p).
    TypeError
        ``accelerator`` is not a name (None: a scenario without one)."""
    return dtype_basis(accelerator, "fp8")


def _fp8_basis_warning(accelerator, mfu_predicted: bool) -> str:
    """dtype=fp8: the MFU is a fraction of the accelerator's dense FP8 peak, r = peak(FP8) ÷
    peak(BF16) times its BF16 one (``fp8_over_bf16``); published MFUs are on the BF16 peak,
    so a BF16 run's MFU carried over divides the cost by r. A predicted MFU is on the FP8 peak
    already (the step-time model prices FP8 GEMMs at it)."""
    try:
        r = fp8_over_bf16(accelerator)
        peak = f"{load_accelerator(accelerator).name}'s dense FP8 peak, {r:.3g}× its BF16 one"
    except (TypeError, ValueError):  # no accelerator, or none with an FP8 peak: said generically
        r, peak = None, "the dense FP8 peak"
    if mfu_predicted:
        return (f"dtype=fp8: the MFU is a fraction of {peak}; the step-time model predicts it on "
                "that peak, while published MFUs are fractions of BF16 peaks: compare them on "
                "one basis.")
    cut = f"divides the estimated cost by {r:.3g}" if r else "understates the estimated cost"
    return (f"dtype=fp8: the MFU is a fraction of {peak}; published MFUs are fractions of BF16 "
            f"peaks, so an MFU carried over from a BF16 run {cut}.")


def _pilot_plan_warnings(values: dict) -> list[str]:
    """``pilot.pilot_mfu``'s warning when the run's plan runs none of the pilots' kernels
    (``calibrate.pilot_plan_warning``) and its fitted factors outside what is physically
    plausible (``calibrate.scaleout_warning``) or a pilot faster than any comparable published
    run (``calibrate.above_published_warning``; for ``ledger_pilot_*`` keys too), or nothing
    (no pilot; a bad pilot is refused elsewhere, naming its field)."""
    if not pilot_given(values):
        return []
    try:
        got = pilot_mfu(values)
    except ValueError:
        return []
    if not got:
        return []
    return ([got["warning"]] if got.get("warning") else []) + \
        [f"pilot: {w}" for w in got.get("factor_warnings", ())]


def _config_model_warnings(model) -> list[str]:
    """The reader's warnings on a model given as a Hugging Face ``config.json`` path (a family
    it reads as a Llama-style decoder: ``core.model.UnknownFamilyWarning``), as sentences for
    the scenario's warning list: Python shows a warning once per place, so a trial saw it once
    on stderr and in none of the lists a report and ``llmcost estimate`` keep. [] for a
    catalogue name or a config read without a warning."""
    if not isinstance(model, str) or not is_config_path(model):
        return []
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always", UserWarning)
        try:
            load_model(model)
        except ValueError:  # refused by validation, with the key named
            return []
    return [str(w.message) for w in got if issubclass(w.category, UnknownFamilyWarning)]


def scenario_warnings(values: dict, mfu_predicted: bool = False,
                      defaults=frozenset(), given_mfu=None, piloted: bool = False,
                      pilot_warnings=()) -> list[str]:
    """Warnings for a scenario's values (scenario keys completed by the notebooks' defaults).

    Parameters
    ----------
    values : dict
        Validated parameter values (``llmcost.validate_parameters`` output).
    mfu_predicted : bool
        The ``mfu`` was predicted by the step-time model (``mfu: predict``), not assumed.
    defaults : set of str
        The keys of ``values`` that come from a notebook's default, not from the scenario.
    given_mfu : Range, optional
        The scenario's ``mfu`` as given where it is a range (``values`` holds its point): a
        sentence on the point names the range it is the point of.
    piloted : bool
        The ``mfu`` is a pilot's, extrapolated by a report before any notebook ran
        (``report.calibrate_mfu``, which passes neither the pilot's throughput nor its scale
        on): it holds the bubble and is measured, as when ``values`` give the pilot.
    pilot_warnings : tuple of str
        That extrapolation's warnings, said where ``values`` do not give the pilot.

    Returns
    -------
    list of str, one sentence each (empty when nothing stands out). Never raises for a valid
    scenario: a check that cannot be computed is skipped.
    """
    out = []
    sized = run_size_default_warning(values, defaults)
    if sized:  # first: the run the bill prices is not the one the file describes
        out.append(sized)
    mfu = values.get("mfu")
    # a predicted MFU is judged against comparable published runs by its band's own warnings
    # (accuracy.mfu_band: above the best comparable run, the cap and its reason), which a report
    # and `llmcost estimate` list beside these: a second, large-scale-only bound here contradicted
    # them (a 1B run on A100 capped at a comparable 63.7% and said "at most 56%")
    # a pilot's MFU is measured, from the values or extrapolated by a report (``piloted``)
    piloted = piloted or pilot_given(values) or values.get("ledger_pilot_n_gpus") is not None
    given = isinstance(mfu, float) and not mfu_predicted and not piloted
    top = _above_published_warning(mfu, values) if given else None
    low = _low_mfu_warning(mfu, values, piloted) if isinstance(mfu, float) and not mfu_predicted \
        else None
    high = above_comparable_warning(values, given_mfu) if given and top is None else None
    out.extend(w for w in (partial_host_warning(values), top, low, high,
                           failure_rate_warning(values)) if w)
    out.extend(checkpoint_storage_warnings(values))
    out.extend(_config_model_warnings(values.get("model")))
    if values.get("dtype") == "fp8":
        out.append(_fp8_basis_warning(values.get("accelerator"), mfu_predicted))
        copy = fp8_weight_copy_warning(values)
        if copy:
            out.append(copy + _fp8_copy_headroom(values))
    if "accelerator" in values:
        gpu = load_accelerator(values["accelerator"])
        if load_efficiency(gpu.name).accelerator == "default" and step_model_runs(values):
            out.append(f"{gpu.name} has no measured efficiency figures in data/efficiency.csv: "
                       "the step-time model uses generic ones (the 'default' row), so its "
                       "predictions for this accelerator are rough.")
        foreign = stack_hardware_warning(values, mfu_predicted, defaults)
        if foreign:
            out.append(foreign)
        unmeasured = stack_generation_warning(values, mfu_predicted)
        if unmeasured:
            out.append(unmeasured)
    out.extend(w for w in (_context_warning(values),
                           mfu_basis_warning(values, mfu_predicted, piloted)) if w)
    no_cp = cp_default_warning(values, defaults)
    if no_cp:
        out.append(no_cp)
    out.extend(w for w in (catalogue_price_warning(values), unavailable_price_warning(values),
                           price_network_warning(values)) if w)
    out.extend(_post_training_warnings(values, mfu_predicted, defaults))
    out.extend(_phase_warnings(values))
    out.extend(_pilot_plan_warnings(values) if pilot_given(values) else
               [f"pilot: {w}" for w in pilot_warnings])
    waste = waste_warning(values)
    if waste:
        out.append(waste)
    return out + _scenario_plan_warnings(values, defaults, mfu_predicted, given_mfu, piloted)


def _scenario_plan_warnings(values: dict, defaults, mfu_predicted: bool, given_mfu,
                            piloted: bool) -> list[str]:
    """``scenario_warnings``' warnings on the scenario's plan (``_plan_warnings``), where the
    values name a model, GPUs, sequence, batch, accelerator and tp. A ``cp`` the notebooks'
    default filled (``defaults``) at 1 is not the scenario's own fixed value: it is dropped, which
    leaves the plan as it was (``parallel.fixed_plan_fields`` fixes an absent cp at 1), so the
    pipeline advice says "cp: 1 (not given, so fixed at 1)" (a trial read "the scenario's fixed
    cp: 1" of a scenario that never set cp)."""
    plan_keys = ("model", "n_gpus", "seq_len", "global_batch_tokens", "accelerator")
    if not (all(k in values for k in plan_keys) and "tp" in values):
        return []
    given = {k: v for k, v in values.items() if not (k == "cp" and k in defaults and v == 1)}
    return _plan_warnings(given, mfu_predicted, given_mfu, piloted)


def partial_host_warning(values: dict) -> str | None:
    """A run of more than one host whose GPU count leaves its last host partly used: hosts of
    ``Accelerator.per_host`` GPUs (an 8-GPU HGX or DGX board; a 4-GPU NVL72 compute tray), a
    multi-node job takes whole nodes (its collectives run over every node's NICs and NVLink),
    and a provider bills them whole, so the idle GPUs are paid and not in the bill. A trial's
    100 H100s (12.5 eight-GPU hosts) were billed as 100 without a word. One host or less (1, 2
    or 4 GPUs: instances clouds sell) is not said. None when the count fills its hosts."""
    n, name = values.get("n_gpus"), values.get("accelerator")
    if not isinstance(n, int) or isinstance(n, bool) or not name:
        return None
    gpu = load_accelerator(name)
    per = gpu.per_host
    if n <= per or n % per == 0:
        return None
    lo, hi = n // per * per, (n // per + 1) * per
    return (f"n_gpus={n:,} fills {n / per:.3g} of {gpu.name}'s {per}-GPU "
            f"hosts: a job of more than one host takes whole hosts, billed whole, so the "
            f"{hi - n:,} idle GPUs of the last one are paid and not in this bill; give "
            f"{fmt_gpus(lo)} or {fmt_gpus(hi)} to price what a provider charges for")


def checkpoint_storage_warnings(values: dict) -> list[str]:
    """What the checkpoint storage is priced on where no measurement backs it (an SRE trial):

    * a given ``ckpt_storage_bytes_per_s`` above what the job's nodes can send it, nodes ×
      ``ckpt_node_bytes_per_s`` (nodes = ⌈n_gpus ÷ GPUs per host⌉), on a tier that sells
      throughput with capacity (an object store's bill does not grow with it): a write takes
      max(bytes ÷ B_storage, bytes ÷ nodes ÷ B_node) (``reliability.checkpoint_write_time_s``),
      so the excess is provisioned and billed (a parallel file system sells throughput with
      capacity) and never used (100 TB/s on 512 nodes of 50 GB/s, 25.6 TB/s, billed 10× the
      compute);
    * a hot tier that sells no throughput with capacity (object storage,
      ``reliability.storage_throughput_per_tib`` None) with the bandwidth left to the bill's
      sizing: its storage cost does not grow with the bandwidth, so the sizing takes the first
      rate its search tries at or above the nodes' links (or its fastest), which no measurement
      of the store backs (an object store's rate
      depends on the client's parallel requests, not modelled).
    [] where neither holds or the values lack what they need."""
    out = []
    bw, node_bw, n = (values.get(k) for k in ("ckpt_storage_bytes_per_s",
                                              "ckpt_node_bytes_per_s", "n_gpus"))
    bw, node_bw = (x.point if isinstance(x, Range) else x for x in (bw, node_bw))
    tier = values.get("ckpt_hot_tier")
    sold = isinstance(tier, str) and storage_throughput_per_tib(tier) is not None
    if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (bw, node_bw, n)) \
            and values.get("accelerator") and sold:   # an object store bills no bandwidth
        nodes = -(-int(n) // load_accelerator(values["accelerator"]).per_host)
        if bw > nodes * node_bw:
            out.append(f"ckpt_storage_bytes_per_s={bw:g} ({fmt_bandwidth(bw)}) is above what "
                       f"the job's {nodes:,} {noun(nodes, 'node')} can send it, "
                       f"{fmt_bandwidth(nodes * node_bw)} ({fmt_bandwidth(node_bw)} each, "
                       "ckpt_node_bytes_per_s): checkpoints write at the nodes' rate, and the "
                       "hot tier is provisioned, and billed, for bandwidth the job cannot use")
    if bw is None and isinstance(tier, str) and not sold:
        out.append(f"ckpt_hot_tier={tier!r} sells no throughput with its capacity, so the bill "
                   "sizes the checkpoint bandwidth at the nodes' links or the fastest rate it "
                   "tries, whichever is lower, which no measurement of the store backs (an "
                   "object store's rate depends on the client's parallel requests): give "
                   "ckpt_storage_bytes_per_s a measured rate")
    return out


#: What the default scenario's own ``title`` and ``description`` describe: a copy of the file
#: that changes these keys and keeps its text publishes another run's description.
DESCRIBED_KEYS = ("model", "accelerator", "n_gpus", "train_tokens", "seq_len", "mfu")


@lru_cache(maxsize=1)
def _default_scenario_text() -> tuple:
    """(title, description, the described keys' values) of ``data/scenarios/default.yaml``, as
    ``load_scenario`` reads them (YAML reads 2.0e12 as text; the scenario, as a number)."""
    d = load_scenario(SCENARIO_DIR / "default.yaml")
    return d.get("title"), d.get("description"), {k: d.get(k) for k in DESCRIBED_KEYS}


def inherited_description_warning(scenario: dict) -> str | None:
    """One sentence when the scenario's ``title`` or ``description`` is the default scenario's,
    word for word, while a key they describe (``DESCRIBED_KEYS``) differs from it: the report
    prints the text as written (a prose audit's 8B on 64 A100s was described as "A Llama 2 70B
    architecture trained on 2T tokens ... on 2,048 H100 SXM GPUs at 40% MFU", the README's
    recipe being a copy of that file). None otherwise."""
    title, description, described = _default_scenario_text()
    same = [k for k, text in (("title", title), ("description", description))
            if text is not None and scenario.get(k) == text]
    changed = [k for k in DESCRIBED_KEYS if k in scenario and scenario[k] != described[k]]
    if not same or not changed:
        return None
    return (f"{' and '.join(same)}: the default scenario's own text, which describes its run, "
            f"while this one changes {', '.join(changed)}: the report prints it as written; "
            f"write this run's {' and '.join(same)}")


def failure_rate_warning(values: dict) -> str | None:
    """One sentence when ``fail_rate_per_gpu_year`` (a range: its point) is more than
    ``FAILURE_RATE_WARNING_FACTOR`` × the highest per-GPU failure rate published
    (``reliability.published_failure_rates``: Llama 3 405B's 0.173 per GPU-year, 419 unexpected
    interruptions in 54 days on 16,384 H100, arXiv:2407.21783 §3.3.4; Kokolis et al. 2024's
    0.107-0.297 on Meta's A100 clusters and 1.08 from their 1,024-GPU jobs' 7.9 h MTTF): it
    names the value, the published range and the job's MTBF at that rate on the scenario's
    GPUs (M = 1 ÷ (n·λ), ``reliability.cluster_mtbf_s``), on which the goodput, the failure
    line and the run's length are priced."""
    rate = values.get("fail_rate_per_gpu_year")
    if isinstance(rate, Range):
        rate = rate.point
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not math.isfinite(rate):
        return None
    pub = published_failure_rates()
    hi = pub.iloc[-1]
    if not rate > FAILURE_RATE_WARNING_FACTOR * hi["rate"]:
        return None
    n = values.get("n_gpus")
    mtbf = (f"; on {fmt_gpus(int(n))} the job would stop every "
            f"{fmt_duration(float(cluster_mtbf_s(int(n), rate)))} (M = 1 ÷ (n·λ)), and the "
            "goodput, the failure line and the run's length are priced on that"
            if isinstance(n, int) and not isinstance(n, bool) and n >= 1 else "")
    listed = "; ".join(f"{r.rate:.3g}: {r.source}" for r in pub.itertuples())
    return (f"fail_rate_per_gpu_year={rate:g} is {rate / hi['rate']:,.0f}× the highest published "
            f"per-GPU failure rate: published rates run {pub['rate'].iloc[0]:.3g}–"
            f"{hi['rate']:.3g} failures per GPU-year ({listed}){mtbf}. Is it a rate per "
            "cluster or per GPU-hour rather than per GPU-year?")


def waste_warning(values: dict) -> str | None:
    """One sentence when the scenario gives a ``waste_`` key (notebook 09's inputs, all 0 by
    default): the whole bill of notebook 00, ``llmcost estimate`` and the report's index leaves
    them out, and notebook 09's bill with waste (``levers.bill``: the MFU × (1 − stall), the
    failed and debug GPU-hours at the bill's price, the extra dataset copies) prices them; a
    scenario that sets them otherwise sees an unchanged bill without a word. None when none is
    given."""
    given = [f"{k}={values[k]:,.6g}" for k in sorted(values)
             if k.startswith("waste_") and values[k]]
    if not given:
        return None
    return (f"{', '.join(given)}: the waste keys are priced in notebook 09's bill with waste "
            "(llmcost.levers.bill), not in this bill (notebook 00, llmcost estimate, the "
            "report's index), which prices the run without them.")


#: The keys that size the run: a scenario that leaves one out is priced at the notebooks' default
#: (the default scenario's Llama 2 70B run), which the bill's header and lines do not all name.
RUN_SIZE_KEYS = ("model", "accelerator", "n_gpus", "train_tokens", "seq_len")


def run_size_default_warning(values: dict, defaults=frozenset()) -> str | None:
    """One sentence naming the keys of ``RUN_SIZE_KEYS`` (what the bill multiplies: the model, the
    accelerator, the GPU count, the tokens and the sequence length) that the scenario leaves out,
    with the notebooks' default each takes (``defaults`` holds the keys taken from a notebook's
    default): a file that forgets ``train_tokens`` is otherwise priced for the default scenario's
    2e12 tokens without a word. None when the scenario sets them all."""
    left = [k for k in RUN_SIZE_KEYS if k in defaults and k in values]
    if not left:
        return None

    def shown(k):
        v = values[k]
        if k == "train_tokens":
            return f"{v:.3g}".replace("e+", "e")
        return f"{v:,}" if isinstance(v, int) else str(v)

    return (f"the scenario sets no {', '.join(left)}: the bill prices the notebooks' "
            f"default{'s' if len(left) > 1 else ''} ("
            + ", ".join(f"{k}={shown(k)}" for k in left)
            + ", the default scenario's run, data/scenarios/default.yaml); set "
            + ("it" if len(left) == 1 else "them") + " for your run.")


def cp_default_warning(values: dict, defaults=frozenset()) -> str | None:
    """One sentence when a long-context scenario (``seq_len`` above
    ``accuracy.LONG_CONTEXT_TOKENS``, 32k, where most published runs split each sequence with
    context parallelism) leaves ``cp`` at the notebooks' default 1 (``defaults`` holds ``cp``)
    and the plan search with CP chosen (``cp: 0``) predicts a shorter step than the scenario's
    plan without it. Both plans are the step-time model's (``step_scenario.scenario_step``, the
    plan search of every notebook) and are compared as the search compares them
    (``parallel.margin_weighted_step_s``: a ZeRO-3 step counted ``ZERO3_STEP_MARGIN`` longer).
    None otherwise, or when either plan cannot be built (validation says why)."""
    seq = values.get("seq_len")
    if "cp" not in defaults or values.get("cp") != 1 or not isinstance(seq, int) \
            or seq <= LONG_CONTEXT_TOKENS or "model" not in values:
        return None
    try:
        spec = load_model(values["model"])
        plan1, b1 = scenario_step(values, spec)
        plan0, b0 = scenario_step({**values, "cp": 0}, spec)
    except (ValueError, KeyError):
        return None
    t1, t0 = (float(parallel.margin_weighted_step_s(b.step_time_s, pl.zero_stage))
              for b, pl in ((b1, plan1), (b0, plan0)))
    if plan0.cp == 1 or t0 >= t1:
        return None
    return (f"cp is the notebooks' default 1 (the scenario sets no cp), so no GPU shares a "
            f"{seq:,}-token sequence: the step-time model predicts {b1.mfu:.1%} MFU for "
            f"{plan1.describe()}, and {b0.mfu:.1%} for {plan0.describe()}, the fastest plan with "
            f"context parallelism chosen (a step {t1 / t0:.2f}× shorter); cp: 0 lets the plan "
            "search choose it, cp: 1 keeps it off.")


def above_comparable_warning(values: dict, given=None) -> str | None:
    """One sentence when a scenario's given MFU (on its dtype's dense peak) is above the best
    comparable published MFU (``accuracy.comparable_published_mfu``, the one rule of every
    page: the same GPU generation and class, total parameters within ``SIZE_FACTOR``, the dtype
    rule and sequences within ``SEQ_FACTOR`` of the scenario's), compared on that basis::

        m_low > best comparable (its mfu_bf16 × peak(BF16) ÷ peak(dtype))

    m_low: the given number, or, where the scenario gives a range (``given``, a ``Range``;
    ``values`` hold its point), the range's low end, so the whole range lies above. No
    measured run like this one reaches the figure, so the bill is optimistic (a trial's
    128k-token 8B run at a given 35%, above the best comparable 31.5%, was told only of its
    sequence length). None when nothing comparable is published, or the model or accelerator
    cannot be read."""
    mfu = values.get("mfu")
    if not isinstance(mfu, float) or "accelerator" not in values or "model" not in values:
        return None
    try:
        spec = load_model(values["model"])
        b = comparable_published_mfu(values["accelerator"], spec.n_params, is_moe=spec.is_moe,
                                     dtype=values.get("dtype") or "bf16",
                                     seq_len=values.get("seq_len"))
    except (ValueError, KeyError):
        return None
    ranged = isinstance(given, Range) and given.bounds[1] > given.bounds[0]
    low = given.bounds[0] if ranged else mfu
    if b.mfu is None or not low > b.mfu:
        return None
    shown = mfu_text(mfu) + (f" ({RANGE_POINT_WORDS} {mfu_text(given.bounds[0])}–"
                             f"{mfu_text(given.bounds[1])})" if ranged else "")
    return (f"mfu={shown} is above the best comparable published run, {b.mfu:.1%}"
            f"{', the whole range' if ranged else ''}: no measured run like this one reaches "
            f"it, so every GPU-hour and cost here is optimistic (the best: {b.describe()})")


def _low_mfu_warning(mfu: float, values: dict, piloted: bool = False) -> str | None:
    """One sentence when ``mfu`` is below every published run's MFU in the step model's
    validation table (``accuracy.validation_table``, data/validation_mfu.csv: the lowest is
    Megatron-LM's 2021 ZeRO-3 benchmark of a 175B model, about 10.6%), compared on the BF16
    basis the table's MFUs are on (an FP8 scenario's MFU, on the FP8 dense peak, times
    peak(FP8) ÷ peak(BF16), ``fp8_over_bf16``), with a hint when it is below 1%, where a
    percentage typed as a fraction (0.4 for 40%) is likelier than a run. ``piloted``: the MFU is
    a pilot's measurement (extrapolated), said so, with its throughput to check."""
    basis = 1.0
    if values.get("dtype") == "fp8" and "accelerator" in values:
        basis = fp8_over_bf16(values["accelerator"])
    v = validation_table()
    i = v["reported_mfu"].idxmin()
    lowest, run = float(v.loc[i, "reported_mfu"]), str(v.loc[i, "run_id"])
    if not mfu * basis < lowest:
        return None
    on = "" if basis == 1.0 else f" ({mfu * basis:.2g} of the BF16 dense peak)"
    # a pilot's MFU here is the run's, extrapolated from the pilot (or the run's own
    # measurement), said in percent as the pilot lines are (a trial read "the pilot's MFU,
    # 0.044" beside pilots that measured 5.3% and 5.1%)
    # a tiny pilot MFU with its digits (a pilot of 1 token/s per GPU read "0.0%")
    pct = f"{mfu:.1%}" if mfu >= 0.001 else f"{mfu * 100:.2g}%"
    what = (f"the run's MFU from the pilot, {pct}" if piloted else f"mfu={mfu:.2g}")
    return (f"{what}{on} is below every published run's MFU in the step model's "
            f"validation table (the lowest, {lowest:.1%} of the BF16 dense peak, {run}): "
            + ("check the pilot's throughput (ledger_pilot_tokens_per_s_per_gpu or pilot:)."
               if piloted else "every GPU-hour and cost here is pessimistic" + (
                   "; is it a percentage typed as a fraction (0.40 is 40%)?" if mfu < 0.01
                   else ".")))


#: Full-mask ÷ causal FLOPs per training token at which ``mfu_basis_warning`` is said: a given
#: MFU stated on the other count then moves the bill by a quarter or more.
MFU_BASIS_WARNING_RATIO = 1.25


def full_over_causal(values: dict) -> float | None:
    """r = F_full(s) / F_causal(s) of a scenario's model at its ``seq_len``
    (``ModelSpec.flops_per_token``, causal=False / True): how much more work the MFU basis (the
    full attention matrix) counts than a causal model computes; None without a readable model
    or an integer sequence length."""
    s = values.get("seq_len")
    if not isinstance(s, int) or "model" not in values:
        return None
    try:
        spec = load_model(values["model"])
        return float(spec.flops_per_token(s, causal=False)) / float(
            spec.flops_per_token(s, causal=True))
    except (ValueError, KeyError, OSError):
        return None


def mfu_basis_warning(values: dict, mfu_predicted: bool = False, piloted: bool = False,
                      whose: str = "the bill's") -> str | None:
    """One sentence when the scenario's sequence is long enough that the MFU basis (the full
    attention matrix: PaLM's and the Megatron-LM paper's count, Narayanan et al. 2021, under
    which most published MFUs are stated) and a causal count differ by
    ``MFU_BASIS_WARNING_RATIO`` or more (r = ``full_over_causal``)::

        MFU_causal = MFU / r

    The same tokens per second read r times higher on the full count, so a given MFU measured
    on a causal count (some frameworks count one: the model TFLOP/s of Megatron-LM from
    Megatron-Core 0.12.0, of Megatron-Bridge and of NVIDIA NeMo from 2025-08) bills r times
    the GPU-hours unless multiplied by r first (a teacher's trial: a typed 0.40 at 131,072
    tokens, billed about 1.7× too much; and a predicted 75% full-mask MFU read as 41% causal).
    The advice on a given figure is left out of a predicted MFU and a pilot's (``piloted``: a
    measured throughput, whatever its count); ``whose`` names the MFU (a phase's:
    ``_phase_warnings``). None below the ratio, or without a model, an MFU or a sequence
    length."""
    said = _mfu_basis_clause(values, mfu_predicted, piloted, whose)
    return None if said is None else f"seq_len={values['seq_len']:,}: {said}"


def _mfu_basis_clause(values: dict, mfu_predicted: bool = False, piloted: bool = False,
                      whose: str = "the bill's") -> str | None:
    """``mfu_basis_warning`` without its leading "seq_len=…: " (a phase's sentence,
    ``_phase_warnings``, names the length itself)."""
    mfu, r = values.get("mfu"), full_over_causal(values)
    if not isinstance(mfu, float) or r is None or r < MFU_BASIS_WARNING_RATIO:
        return None
    given = "" if mfu_predicted or piloted else (
        f"; a given mfu measured on a causal count is multiplied by {r:.2f} before it is "
        f"given here (on the same peak, a causal 0.40 is {min(0.40 * r, 1.0):.2f})")
    return (f"the MFU is on the full attention-matrix count (PaLM's and the Megatron-LM "
            f"paper's), {r:.2f}× the causal work at this length, so {whose} {mfu:.1%} is "
            f"{mfu / r:.1%} on a causal count (some frameworks count one: the TFLOP/s that "
            f"Megatron-LM from Megatron-Core 0.12, Megatron-Bridge and NVIDIA NeMo from 2025-08 "
            f"log){given}")


def _above_published_warning(mfu: float, values: dict) -> str | None:
    """One sentence when a given MFU is above ``PUBLISHED_MFU_MAX``, the highest published
    large-scale training MFU (a short benchmark; full runs report 38–46%), compared on the
    causal work at long context, MFU / r (r = ``full_over_causal`` where it reaches
    ``MFU_BASIS_WARNING_RATIO``, else 1): published MFUs come from short contexts, where the
    counts nearly agree, and a review found the long-context warning's own example, a causal
    0.40 given as 0.68 at 131,072 tokens, told it was above every published run."""
    r = full_over_causal(values) or 1.0
    r = r if r >= MFU_BASIS_WARNING_RATIO else 1.0
    if not mfu / r > PUBLISHED_MFU_MAX:
        return None
    on = "" if r == 1.0 else f" ({mfu / r:.1%} on a causal count at this length)"
    return (f"mfu={mfu_text(mfu)}{on} is above any published large-scale training MFU (at "
            f"most {PUBLISHED_MFU_MAX:.0%}, a short benchmark; full runs report 38–46%): "
            "every GPU-hour and cost in this report is optimistic.")


def _context_warning(values: dict, phase: bool = False) -> str | None:
    """``context_warning`` of a scenario's catalogue model at its ``seq_len`` (None when either
    is missing or the model is not in the catalogue); ``phase``: the length is an extra
    phase's (``phases``), which follows the main run. A bill of post-training alone
    (``scenario.post_training_only``) is warned only past the model's declared context, and
    not at all when no line is priced at its ``seq_len`` (an RL campaign alone)."""
    s = values.get("seq_len")
    if "model" not in values or not isinstance(s, int) or not prices_at_mfu(values):
        return None   # (an RL campaign alone: its sequences are the rl_ keys')
    try:
        spec = load_model(values["model"])
    except (ValueError, KeyError, OSError):
        return None
    if post_training_only(values) and spec.max_position_embeddings and \
            s <= spec.max_position_embeddings:
        return None   # a fine-tune within the released model's context: as it was made for
    return context_warning(spec, s, phase)


def context_warning(spec, s: int, phase: bool = False) -> str | None:
    """One sentence if the sequence length ``s`` exceeds the context of ``spec`` (a
    ``ModelSpec``): ``max_position_embeddings`` where the model declares it (a learned position
    table, a Hugging Face config's value, or the released context of a catalogue model extended
    after its main pre-training, Llama 3.1's 131,072), beyond which the model cannot attend;
    else, beyond the pre-training sequence length the catalogue records (``ModelSpec.seq_len``),
    a context extension (said as the model's own long-context stage where it declares a longer
    context). ``llmcost estimate`` and the report warn with it, and ``llmcost check`` notes it.
    ``phase``: the length is an extra phase's, which follows the main run (not "from the
    start"). A model whose config.json states no context (``ModelSpec.context_stated``
    False) is said so, at any length: its ``seq_len`` is a default, no figure to compare with."""
    if not getattr(spec, "context_stated", True):
        return (f"seq_len={s:,} is not checked against {spec.name}'s context: its config.json "
                "states none (no max_position_embeddings or other context key), so how far the "
                "model can attend and the length it was pre-trained at are not known here.")
    if spec.max_position_embeddings and s > spec.max_position_embeddings and phase:
        # a phase past the declared context is the extension itself (a trial's 65,536-token
        # phase on a 32,768-token model was told it described "a model that does not exist")
        how = {"rope": "position scaling such as Llama 3.1's RoPE rescaling or YaRN",
               "learned": "its learned position table extended past its rows and trained",
               "alibi": "ALiBi's linear biases, which extrapolate past the trained length"}.get(
            getattr(spec, "pos_encoding", ""), "its position encoding extended")
        return (f"seq_len={s:,} is beyond {spec.name}'s declared context of "
                f"{spec.max_position_embeddings:,} tokens (max_position_embeddings): the phase "
                f"is a context extension past it ({how}), priced at that length's attention "
                "FLOPs and activation memory; its config.json then needs the extended "
                "max_position_embeddings to serve it.")
    if spec.max_position_embeddings and s > spec.max_position_embeddings:
        return (f"seq_len={s:,} is beyond {spec.name}'s context of "
                f"{spec.max_position_embeddings:,} tokens (max_position_embeddings): the model "
                "cannot attend that far without a context extension, so its attention FLOPs "
                "and activation memory here describe a model that does not exist.")
    if s > spec.seq_len and spec.max_position_embeddings:
        return (f"seq_len={s:,} is beyond the {spec.seq_len:,}-token sequence length of "
                f"{spec.name}'s main pre-training, within its declared "
                f"{spec.max_position_embeddings:,}-token context (max_position_embeddings, "
                "reached by a context extension such as Llama 3.1's long-context stage): "
                + ("the phase prices the attention FLOPs and activation memory of that length "
                   "for each of its tokens." if phase else
                   "training at this length from the start prices the attention FLOPs and "
                   "activation memory of that length for every token."))
    if s > spec.seq_len:
        return (f"seq_len={s:,} is beyond the {spec.seq_len:,}-token sequence length "
                f"{spec.name} was pre-trained at (the catalogue records no longer context): "
                "training there is a context extension, and the attention FLOPs and activation "
                "memory are extrapolated.")
    return None


#: The ``rl_`` keys an RL iteration with ``rl_algorithm: dpo`` does not read, each with why
#: (``serving.rl``: ``RLOptions.samples`` is 2 per prompt for DPO, ``pass_flops`` prices DPO as
#: a reference forward 2·N and one update 6·N per token with no generation, reward or epochs,
#: ``generation_time`` returns 0 for DPO): Rafailov et al. 2023 (DPO, arXiv:2305.18290, §4)
#: train on a fixed data set of preference pairs, a chosen and a rejected response to each
#: prompt, with no sampling from the policy and no reward model.
DPO_IGNORED_KEYS = {
    "rl_samples_per_prompt": "DPO scores 2 given responses per prompt, the chosen and the "
                             "rejected one",
    "rl_reward": "the preferences are given, not scored",
    "rl_response_tokens_max": "no generation limit: the responses are given, "
                              "rl_response_tokens their mean length",
    "rl_rollout_tp": "no rollout engine",
    "rl_rollout_weight_dtype": "no rollouts to generate",
    "rl_async": "no rollout engine to overlap with",
    "rl_partial_rollouts": "no rollouts",
    "rl_ppo_epochs": "one update pass per pair",
}


#: The ``rl_`` keys a DPO iteration still bills although DPO has no rollout engine or reward
#: (``serving.rl``: separate rollout GPUs count as idle in ``wall_and_parts``, a given
#: ``weight_sync_s`` is charged by ``sync_time`` before its DPO case, the verifier per sample by
#: ``rl_campaign``), each with what it adds.
DPO_STILL_BILLED = {
    "rl_rollout_gpus": "GPUs idle for the whole iteration",
    "rl_weight_sync_s": "seconds × every RL GPU, each iteration",
    "rl_verifier_usd_per_sample": "USD per sample",
}


#: The notebooks' lifetime of served tokens (notebooks 06 and 09, the shipped scenarios: an
#: assumption, 8B requests of 1,000 + 250 tokens), which ``serving_outside_bill_warning`` does
#: not repeat on every report.
NOTEBOOK_LIFETIME_TOKENS = 1.0e13


def serving_outside_bill_warning(values: dict, defaults=frozenset()) -> str | None:
    """One sentence when the scenario gives a lifetime of served tokens of its own
    (``inference_tokens_lifetime``, not a notebook's default, ``defaults``, nor the notebooks'
    assumption, ``NOTEBOOK_LIFETIME_TOKENS``): the bill prices training, and the served tokens
    of its own lines only (benchmark requests, synthetic data); a lifetime of serving is not a
    line of it, which a trial read as silently ignored (a year of traffic, the same total
    without it). Notebook 05 prices a served token, 06 and 09 the lifetime (the optimum that
    counts serving, the routes). None otherwise."""
    v = values.get("inference_tokens_lifetime")
    if "inference_tokens_lifetime" in defaults or not isinstance(v, (int, float)) or v <= 0 \
            or v == NOTEBOOK_LIFETIME_TOKENS:
        return None
    return (f"inference_tokens_lifetime={fmt_count(v, 3)} is not a line of the bill: the bill "
            "prices training (and the served tokens of its benchmark and synthetic-data lines); "
            "the lifetime's serving is priced in notebook 05 (a served token), 06 (the optimum "
            "that counts it) and 09 (the routes' serving).")


def dpo_ignored_warning(values: dict, defaults=frozenset()) -> str | None:
    """One warning when ``rl_algorithm`` is ``dpo`` and the scenario itself sets (not a
    notebook's default: ``defaults``) ``rl_`` keys a DPO iteration does not read
    (``DPO_IGNORED_KEYS``): each named with its value and why, so that a scenario copied from a
    GRPO one does not look as if its 16 samples per prompt or its reward model were priced;
    and the keys it sets that DPO still bills (``DPO_STILL_BILLED``, when non-zero). None
    otherwise."""
    if values.get("rl_algorithm") != "dpo":
        return None
    set_ = [k for k in DPO_IGNORED_KEYS if k in values and k not in defaults]
    billed = [(k, why) for k, why in DPO_STILL_BILLED.items()
              if k not in defaults and values.get(k)]
    if not set_ and not billed:
        return None

    def shown(v):
        return str(v).lower() if isinstance(v, bool) else f"{v:,}" if isinstance(v, int) \
            else f"{v:g}" if isinstance(v, float) else str(v)

    listed = "; ".join(f"{k}={shown(values[k])} ({DPO_IGNORED_KEYS[k]})" for k in set_)
    return ((f"rl_algorithm=dpo ignores {len(set_)} rl_ key{'s' if len(set_) > 1 else ''} the "
             f"scenario sets: {listed}. " if set_ else "rl_algorithm=dpo: ")
            + "DPO (Rafailov et al. 2023) trains on given preference pairs, 2 responses per "
            "prompt, with no generation: the RL line prices a reference forward and one policy "
            "update over 2 × rl_prompts_per_step × (rl_prompt_tokens + rl_response_tokens) "
            "tokens per iteration"
            + (". Still billed although DPO has no rollout engine or reward to pay for: "
               + "; ".join(f"{k}={shown(values[k])} ({why})" for k, why in billed)
               if billed else "") + ".")


def _rl_billed(values: dict, defaults) -> bool:
    """Whether the bill prices an RL campaign (``ledger.rl_campaign_given``'s rule on the
    completed values): ``ledger_rl`` true, or null with ``rl_iterations`` or ``rl_runs`` given
    by the scenario (not among ``defaults``, the keys a notebook's default filled)."""
    rl = values.get("ledger_rl")
    return rl is True or (rl is None and not {"rl_iterations", "rl_runs"} <= set(defaults))


def rl_campaign_default_warning(values: dict, defaults=frozenset()) -> str | None:
    """One sentence when the bill prices an RL campaign (``ledger.rl_campaign_given``'s rule:
    ``ledger_rl`` true, or null with ``rl_iterations`` or ``rl_runs`` given) whose size the
    scenario leaves in part to the notebooks' illustrative campaign (``defaults`` holds
    ``rl_iterations`` or ``rl_runs``): a trial's ``ledger_rl: true`` was billed 5 runs × 1,000
    iterations, and another's ``rl_iterations`` without ``rl_runs`` 5 runs, without a word.
    None otherwise."""
    left = [k for k in ("rl_iterations", "rl_runs") if k in defaults and k in values]
    if not _rl_billed(values, defaults) or not left:
        return None
    shown = ", ".join(f"{k}={values[k]:,}" for k in left)
    return (f"the RL campaign's size is in part the notebooks' illustration: the scenario "
            f"gives no {' or '.join(left)}, so the RL line bills {shown} (notebook 05's "
            "example campaign, not a measurement); set "
            + ("it" if len(left) == 1 else "them") + " to your own campaign")


def rl_job_default_warning(values: dict, defaults=frozenset()) -> str | None:
    """One sentence when the bill prices an RL campaign (``_rl_billed``) on the notebooks' RL
    job because the scenario gives no ``rl_gpus`` (in ``defaults``) and no report chose one
    (``_rl_gpus_chosen``): notebook 05's job for its 70B example policy, which a startup's
    trial of an 8-GPU, 410M-parameter run read as "49.5 min on 64 GPUs" without a word. The
    rollout TP is said too where it is the notebooks' (``rl_rollout_tp`` in ``defaults``) and
    no report chose it. None otherwise."""
    if not _rl_billed(values, defaults) or "rl_gpus" not in defaults or \
            values.get("_rl_gpus_chosen") or not isinstance(values.get("rl_gpus"), int):
        return None
    n, g = values.get("n_gpus"), values["rl_gpus"]
    more = (f", more than the scenario's {fmt_gpus(n)}" if isinstance(n, int) and g > n else "")
    tp = (f" at rl_rollout_tp={values['rl_rollout_tp']}" if "rl_rollout_tp" in defaults
          and not values.get("_rl_rollout_tp_chosen") and "rl_rollout_tp" in values else "")
    r = values.get("rl_rollout_gpus")
    rollout = (f", {r:,} of them the scenario's rollout GPUs" if "rl_rollout_gpus" not in
               defaults and isinstance(r, int) and r > 0 else "")
    return (f"the RL job is the notebooks' example: the scenario gives no rl_gpus, so the RL "
            f"line runs the campaign on {fmt_gpus(g)}{tp}{rollout} (notebook 05's job for its "
            f"70B example policy){more}; set rl_gpus"
            + (" and rl_rollout_tp" if tp else "") + " to your own RL job")


def rl_context_warning(values: dict, defaults=frozenset()) -> str | None:
    """One sentence when the RL campaign the bill prices (``ledger_rl`` true, or null with
    ``rl_iterations`` or ``rl_runs`` given: ``ledger.rl_campaign_given``'s rule) generates
    sequences longer than the scenario trains its model at: ``rl_prompt_tokens +
    rl_response_tokens_max`` (the longest prompt + response a rollout holds in its KV cache)
    above the longest of ``seq_len`` and the ``phases``' ``seq_len``. The policy is the model
    the scenario pre-trains; a rollout beyond its trained length needs a long-context phase
    first (Llama 3 extended its context from 8K to 128K in six stages, arXiv:2407.21783
    §3.4.2), which the bill does not price unless ``phases`` holds it. A bill of post-training
    alone (``scenario.post_training_only``) trains no length of its own: its released model is
    warned of only past its declared context (``_beyond_model_context``). None otherwise."""
    billed = _rl_billed(values, defaults)
    # DPO generates nothing: its pairs are rl_response_tokens long (rl_response_tokens_max, a
    # generation limit, is ignored; a trial read both warnings side by side)
    longest_key = "rl_response_tokens" if values.get("rl_algorithm") == "dpo" else \
        "rl_response_tokens_max"
    n = [values.get(k) for k in ("rl_prompt_tokens", longest_key)]
    lengths = [values.get("seq_len")] + [ph.get("seq_len") for ph in values.get("phases") or []
                                         if isinstance(ph, dict)]
    lengths = [x for x in lengths if isinstance(x, int)]
    if not billed or not lengths or not all(isinstance(x, int) for x in n):
        return None
    longest, trained = n[0] + n[1], max(lengths)
    if longest <= trained:
        return None
    beyond = _beyond_model_context(values, longest, trained, longest_key, n)
    if beyond or post_training_only(values):   # a released model: its declared context only
        return beyond or _beyond_pretraining_length(values, longest, longest_key, n)
    # a scenario with phases already has its longest one: lengthen it (a trial was asked for
    # the long-context phase its scenario held, at 32,768 for a 33,792-token rollout)
    phase_lengths = lengths[1:] if isinstance(values.get("seq_len"), int) else lengths
    from_phase = bool(phase_lengths) and max(phase_lengths) == trained and \
        max(phase_lengths) > (values.get("seq_len") or 0)
    need = (f"its longest phase at seq_len >= {longest:,} first" if from_phase else
            "a long-context phase first (phases: [{name: long-context, tokens: ..., "
            "seq_len: ...}])")
    if values.get("rl_algorithm") == "dpo":  # no rollout, no KV cache: a trial read both
        return (f"the RL campaign's preference pairs, rl_prompt_tokens + {longest_key} = "
                f"{n[0]:,} + {n[1]:,} = {longest:,} tokens, are beyond the {trained:,} tokens "
                "the scenario trains its model at (seq_len and the phases' seq_len): the "
                f"policy needs {need} (DPO generates nothing: the bill prices its passes over "
                "the pairs at their own length).")
    return (f"the RL campaign's longest rollout, rl_prompt_tokens + {longest_key} = "
            f"{n[0]:,} + {n[1]:,} = {longest:,} tokens, is beyond the {trained:,} tokens the "
            f"scenario trains its model at (seq_len and the phases' seq_len): the policy needs "
            f"{need}, and the generation time and KV cache the RL line prices are "
            "extrapolated.")


def _beyond_pretraining_length(values: dict, longest: int, key: str, n) -> str | None:
    """``rl_context_warning``'s sentence for a released model (a bill of post-training alone)
    whose catalogue row declares no context: the RL sequences against the length it was
    pre-trained at (``spec.seq_len``, ``context_warning``'s fallback), a lower bound of what
    it attends; None within it or without the model."""
    try:
        spec = load_model(values["model"])
    except (ValueError, KeyError, OSError):
        return None
    if spec.max_position_embeddings or longest <= spec.seq_len:
        return None
    return (f"the RL campaign's sequences, rl_prompt_tokens + {key} = {n[0]:,} + {n[1]:,} = "
            f"{longest:,} tokens, are beyond the {spec.seq_len:,}-token length {spec.name} was "
            "pre-trained at (the catalogue records no longer context): if the released model "
            "attends no further, extend it first (ledger_cpt_tokens at that seq_len); the "
            "generation time and KV cache the RL line prices are extrapolated.")


def _beyond_model_context(values: dict, longest: int, trained: int, key: str, n) -> str | None:
    """``rl_context_warning``'s sentence when the RL sequences are longer than the policy can
    attend at all: the longest of its declared context (``max_position_embeddings``) and the
    lengths the scenario trains it at (``served_context_warning``'s rule), where the model
    declares one. A trial billed a 200,000-token rollout of Llama 3.1 8B (131,072-token
    context) with the same sentence as a legitimate 8,704-token one. None otherwise."""
    try:
        spec = load_model(values["model"])
    except (ValueError, KeyError, OSError):
        return None
    declared = spec.max_position_embeddings if getattr(spec, "context_stated", True) else None
    if not declared or longest <= max(int(declared), trained):
        return None
    dpo = values.get("rl_algorithm") == "dpo"
    # how a context is extended: a phase of the pre-training, or a released model's CPT
    extend = "ledger_cpt_tokens, at that seq_len" if post_training_only(values) else "phases"
    head = (f"the RL campaign's {'preference pairs' if dpo else 'longest rollout'}, "
            f"rl_prompt_tokens + {key} = {n[0]:,} + {n[1]:,} = {longest:,} tokens, "
            f"{'are' if dpo else 'is'} beyond the {max(int(declared), trained):,} tokens "
            f"{spec.name} can attend (its {int(declared):,}-token context, max_position_"
            "embeddings, or the longest seq_len the scenario trains it at): ")
    if dpo:   # no generation, no KV cache: passes over pairs of that length
        return (head + "the RL line prices passes over pairs longer than the model attends; "
                f"shorten {key}, the pairs' mean response, or extend the context first "
                f"({extend})")
    return (head + "the RL line prices a KV cache and attention the model cannot use; set "
            f"{key} to the longest response the runs produce, or extend the context first "
            f"({extend})")


def served_context_warning(values: dict) -> str | None:
    """One sentence when a served request, ``inference_prompt_tokens + inference_output_tokens``
    (the prompt and the whole response a request holds in its KV cache: the bill's benchmark and
    synthetic-data lines and notebook 05's serving), is longer than the scenario's model can
    attend: the longest of its declared context (``max_position_embeddings``, else the catalogue's
    pre-training length) and the lengths the scenario trains it at (``seq_len``, the ``phases``'
    ``seq_len``: an extension). None otherwise, or when the model states no context. Where the
    catalogue records no released context, the sentence says the length is the pre-training
    one only: a released model may attend far longer (DeepSeek-V3, pre-trained at 4K, was
    extended to 128K: DeepSeek-AI 2024, arXiv:2412.19437 §4.3)."""
    n = [values.get(k) for k in ("inference_prompt_tokens", "inference_output_tokens")]
    if not all(isinstance(x, int) for x in n) or "model" not in values:
        return None
    try:
        spec = load_model(values["model"])
    except (ValueError, KeyError, OSError):
        return None
    if not getattr(spec, "context_stated", True):
        return None
    context = model_context(spec)[0]   # declared, else the pre-training length
    lengths = [values.get("seq_len")] + [ph.get("seq_len") for ph in values.get("phases") or []
                                         if isinstance(ph, dict)]
    trained = max([context] + [x for x in lengths if isinstance(x, int)])
    if n[0] + n[1] <= trained:
        return None
    head = (f"a served request, inference_prompt_tokens + inference_output_tokens = {n[0]:,} + "
            f"{n[1]:,} = {n[0] + n[1]:,} tokens, is beyond the {trained:,} tokens ")
    if not spec.max_position_embeddings:   # no released context recorded: say what is known
        return (head + f"{spec.name} was pre-trained at or the scenario trains it at; the "
                "catalogue records no longer released context, and a released model may attend "
                "longer (check its config's max_position_embeddings): if it cannot, the served "
                "lines price a KV cache and attention it cannot use")
    return (head + f"{spec.name} can attend (its {context:,}-token context, or the longest "
            "seq_len the scenario trains it at): the served lines (benchmarks, synthetic data) "
            "and notebook 05's serving price a KV cache and attention the model cannot use; "
            "shorten the request or extend the context (phases)")


def _other_length_phases(values: dict):
    """(i, phase, the scenario's values at the phase's sequence length and GPU count) for each
    extra phase (``phases``) at a sequence length the main run does not train at."""
    for i, ph in enumerate(values.get("phases") or []):
        s = ph.get("seq_len")
        if not isinstance(s, int) or s == values.get("seq_len"):
            continue
        yield i, ph, {**values, "seq_len": s, "n_gpus": ph.get("n_gpus", values.get("n_gpus"))}


def _unpriced_phases(values: dict):
    """``_other_length_phases`` without their own ``mfu`` (a phase with its own mfu is priced
    at it)."""
    for i, ph, at in _other_length_phases(values):
        if ph.get("mfu") is None:
            yield i, ph, at


def _phase_warnings(values: dict) -> list[str]:
    """One sentence for each extra phase at a sequence length the main run does not train at
    (``_other_length_phases``) when it goes beyond the model's context (``_context_warning``,
    the main run's check, whether or not the phase gives its own mfu), or, for a phase priced
    at the main run's MFU (``_unpriced_phases``), the scenario's plan, at the phase's sequence
    length and GPU count, cannot run it (``scenario_plan``: the batch and plan rules) or does
    not fit the usable HBM (``plan_does_not_fit``; the report refuses it,
    ``phase_does_not_fit``, as it refuses the main run's): the main run's MFU does not describe
    such a phase. A phase with its own mfu stands for a plan of its own, which the scenario
    cannot state: its plan is not checked, and the sentence says so; at a long context its mfu
    is said on both counts (``mfu_basis_warning``)."""
    out = []
    for i, ph, at in _other_length_phases(values):
        said = [x for x in (_context_warning(at, phase=True),) if x]
        own = ph.get("mfu") is not None
        basis = _mfu_basis_clause({**at, "mfu": float(ph["mfu"])}, whose="the phase's") \
            if own and isinstance(ph["mfu"], (int, float)) else None
        if basis:   # its own mfu at a long context: both counts (the main run's check)
            said.append(basis)
        said += _phase_mfu_clauses(values, ph)
        if not own and all(k in at for k in ("model", "accelerator", "n_gpus",
                                              "global_batch_tokens")):
            try:
                scenario_plan_memory(at)
            except (ValueError, KeyError) as e:  # the rule, without the search's detail
                said.append(f"the scenario's plan cannot run it: {str(e).split(' (detail')[0]}")
            else:
                said.append(plan_does_not_fit(at) or "")
        said = [x.rstrip(".") for x in said if x]
        if said:
            out.append(f"phases[{i}] ({ph.get('name')!r}, seq_len={at['seq_len']:,}): "
                       + "; ".join(said) + (
                           f". The bill prices the phase at its own mfu={ph['mfu']:g}, which "
                           "stands for a plan of its own: the workbook does not check that "
                           "plan's memory or fit at this length" if own else
                           f". The bill prices the phase at the main run's MFU {_PHASE_ADVICE}"))
    out += _phase_mfu_words(values)
    n0 = values.get("n_gpus")
    for i, ph in enumerate(values.get("phases") or []):
        n = ph.get("n_gpus")
        if ph.get("mfu") is None and isinstance(n, int) and isinstance(n0, int) and n != n0 \
                and ph.get("seq_len", values.get("seq_len")) == values.get("seq_len"):
            # a trial: an anneal on 64 GPUs was priced at the MFU of the main run's 256, with
            # no word (one at another length is said above, with its plan's checks)
            out.append(f"phases[{i}] ({ph.get('name')!r}) runs on {fmt_gpus(n)}, not the main "
                       f"run's {fmt_gpus(n0)}, and gives no mfu: the bill prices it at the main "
                       "run's MFU, whose communication and plan are those of the main run's "
                       "GPU count; give the phase its own mfu (notebook 04b's step-time model "
                       "predicts one for a scenario on that count)")
    return out


def _phase_mfu_clauses(values: dict, ph: dict) -> list[str]:
    """What a reader may misread in an extra phase's MFU (a long-context trial), as clauses of
    its sentence: a phase at a longer sequence than the main run's priced at the main run's
    MFU (measured where attention is a smaller share; Llama 3's 128K stage ran at 38% against
    41% at 8K, ``LLAMA3_LONG_CONTEXT_MFU_RATIO``), and, under ``dtype: fp8``, a phase's own
    mfu, a fraction of the FP8 dense peak as the main run's is: on the BF16 one it is that ×
    peak(FP8) ÷ peak(BF16) (a trial's 0.37 at 128K became 74% of the BF16 peak when the
    scenario switched to FP8, the phase's cost halved without a word)."""
    out, s0, m = [], values.get("seq_len"), values.get("mfu")
    own, s = ph.get("mfu"), ph.get("seq_len")
    if own is None and isinstance(s, int) and isinstance(s0, int) and s > s0 and \
            isinstance(m, (int, float)):
        out.append(f"priced at the main run's MFU, {m:.1%}, that of {s0:,}-token sequences; "
                   "Llama 3 ran its 131,072-token stage at 38% against 41% at 8,192 "
                   f"(arXiv:2407.21783, Table 4): mfu: {m * LLAMA3_LONG_CONTEXT_MFU_RATIO:.3f} "
                   "would price it so")
    if isinstance(own, (int, float)) and values.get("dtype") == "fp8":
        try:
            ratio = fp8_over_bf16(values["accelerator"])
        except (ValueError, KeyError, TypeError):
            return out
        longer = isinstance(s, int) and isinstance(s0, int) and s > s0
        out.append(f"mfu={own:g} is a fraction of the FP8 dense peak (dtype: fp8), "
                   f"{ratio:.2g}× the BF16 one: {own * ratio:.1%} of the BF16 peak, where "
                   "published MFUs are counted" + (
                       " (Llama 3's 131,072-token stage ran at 38% of it, arXiv:2407.21783 "
                       "Table 4)" if longer else ""))
    return out


def _phase_mfu_words(values: dict) -> list[str]:
    """``_phase_mfu_clauses`` as a sentence for each phase at the main run's length (one at
    another length has them in its sentence of ``_phase_warnings``)."""
    return [f"phases[{i}] ({ph.get('name')!r}): " + "; ".join(said)
            for i, ph in enumerate(values.get("phases") or [])
            if isinstance(ph, dict) and ph.get("seq_len", values.get("seq_len")) ==
            values.get("seq_len") and (said := _phase_mfu_clauses(values, ph))]


def phase_does_not_fit(values: dict) -> str | None:
    """One sentence for the first extra phase priced at the main run's MFU
    (``_unpriced_phases``) whose plan, the scenario's at the phase's sequence length and GPU
    count, exceeds the usable HBM (``plan_does_not_fit``), else None. The report refuses it as
    it refuses a main run that does not fit: the bill would price a phase that could not start
    at an MFU measured or assumed for another sequence length. A phase with its own ``mfu``
    is not checked (its MFU stands for a plan of its own, which the scenario cannot state)."""
    for i, ph, at in _unpriced_phases(values):
        misfit = plan_does_not_fit(at)
        if misfit:
            whose = "" if "n_gpus" in ph else " (the phase runs on the main run's n_gpus)"
            return (f"phases[{i}] ({ph.get('name')!r}, seq_len={at['seq_len']:,}){whose}: "
                    f"{misfit}; or give the phase its own mfu, measured on a plan that runs it "
                    "(e.g. context parallelism), or model it as a scenario of its own")
    return None


#: What a phase the main run's MFU does not describe should do (``_phase_warnings``).
#: Llama 3's MFU at 131,072 tokens (CP 16) over its MFU at 8,192 (CP 1) on the same 16,384 H100s,
#: 38 % ÷ 41 % (arXiv:2407.21783, Table 4, BF16 MFU): notebook 00's example phase runs at the
#: bill's MFU × this ratio, on the bill's own basis (its dtype's dense peak); a phase at a longer
#: length priced at the main run's MFU is told it (``_phase_mfu_words``).
LLAMA3_LONG_CONTEXT_MFU_RATIO = 0.38 / 0.41
_PHASE_ADVICE = ("and plan: give the phase its own mfu, or model it as a scenario of its own "
                 "with a plan that runs it (e.g. context parallelism, cp)")


def _fp8_copy_headroom(values: dict) -> str:
    """The FP8 weight copy ``fp8_weight_copy_warning`` names, on the scenario's plan, against the
    plan's headroom: per GPU the copy is the plan's working weights ÷ the recipe's bytes per
    parameter × the bytes per parameter left out (``step_scenario.fp8_copy_bytes_left_out``: 2
    on Hopper, 1 elsewhere, 1 for Hopper's transpose under ``fp8_mixed``), and when that exceeds
    the usable HBM less the plan's memory (``usable_hbm_bytes``), a clause saying the plan may
    not fit (a trial: Llama 2 13B on 512 H200 with 8.8 GB of headroom and 13-26 GB of FP8 copies
    left out). "" when the plan cannot be built or the copy fits."""
    try:
        _, gpu, plan, mem = scenario_plan_memory(values)
    except (ValueError, KeyError):
        return ""
    extra = fp8_copy_bytes_per_gpu(values, mem)
    room = usable_hbm_bytes(values, gpu) - mem.total
    if extra <= room:
        return ""
    return (f" On this plan ({plan.describe()}) that is {extra / 1e9:,.1f} GB per GPU, more than "
            f"its {max(room, 0.0) / 1e9:,.1f} GB of headroom: the plan may not fit.")


def scenario_plan_memory(values: dict):
    """(spec, accelerator, plan, memory) of a scenario's plan (``step_scenario.scenario_plan``,
    its memory as the search counted it, ``scenario_memory``); ValueError/KeyError if none."""
    spec = load_model(values["model"])
    gpu = load_accelerator(values["accelerator"])
    plan = scenario_plan(values, spec)
    return spec, gpu, plan, scenario_memory(values, plan, spec)   # as the search counted it


def plan_does_not_fit(values: dict, advice: bool = True) -> str | None:
    """One sentence if the scenario's plan (chosen where left free: the plan needing the least
    memory when none fits) exceeds the usable HBM, else None. The report refuses such a scenario
    before running anything; None also when the plan cannot be built (validation says why).
    ``advice=False`` leaves out the closing advice (": use more GPUs ..."), for a caller that
    lists the reason beside others (``levers.hardware_sweep``'s accelerators left out)."""
    try:
        spec, gpu, plan, mem = scenario_plan_memory(values)
    except (ValueError, KeyError):
        return None
    reserve = values.get("mem_reserve_fraction", DEFAULT_RESERVE)
    usable = usable_hbm_bytes(values, gpu)
    if mem.total <= usable:
        return None
    # one decimal where whole GB would read "82 GB ... more than the 82 GB usable" (a trial)
    digits = 0 if round(mem.total / 1e9) != round(usable / 1e9) else 1
    close = "" if mem.total > MISFIT_CLOSE * usable else (
        f" (within {MISFIT_CLOSE - 1:.0%} of it: the count rests on the scenario's "
        f"optimizer_recipe, {scenario_recipe_name(values)}, and mem_reserve_fraction, "
        f"{reserve:.0%}: check both against the run's)")
    return (f"no parallel plan fits: {spec.name} on {values['n_gpus']:,} × {gpu.name} needs at "
            f"least {mem.total / 1e9:,.{digits}f} GB per GPU (plan {plan.describe()}), more "
            f"than the {usable / 1e9:,.{digits}f} GB usable ({reserve:.0%} reserve){close}"
            + (f": {_misfit_advice(values)}" if advice else ""))


#: How far above the usable HBM a plan's counted memory may be for ``plan_does_not_fit`` to say
#: that the count's own assumptions (the optimizer recipe's bytes per parameter, the reserve)
#: decide it: Llama 3 405B's own Table 4 plan on 8,192 H100s is counted at 82 GB against 77 GB
#: usable (1.07×; a trial was told "no parallel plan fits" of a plan Meta ran). A stated
#: threshold, not a fitted one.
MISFIT_CLOSE = 1.15


def states_do_not_fit(values: dict) -> str | None:
    """One sentence when no parallel plan of any kind can hold the model: its weights,
    gradients and optimizer states, N × b bytes (b the ``optimizer_recipe``'s bytes per
    parameter, ``memory.PrecisionRecipe.bytes_per_param``: 18 for BF16 with FP32 gradients and
    Adam, 2 + 4 + 12; Rajbhandari et al. 2020 §3.1 count 16, 2 + 2 + 12, with 16-bit
    gradients), spread over every one of the ``n_gpus`` (ZeRO-3 over
    all of them, or tp·pp = n), before any activation, exceed the usable HBM
    (``usable_hbm_bytes``): N × b ÷ n > usable. A bound that needs no network figure, checked
    where the plan itself cannot be (an accelerator without a scale-out figure); with it, the
    fewest GPUs that could hold the states, ⌈N × b ÷ usable⌉. None otherwise."""
    try:
        spec, gpu = load_model(values["model"]), load_accelerator(values["accelerator"])
        recipe = scenario_recipe_name(values)
        per_param = get_recipe(recipe).bytes_per_param
        n = int(values["n_gpus"])
    except (ValueError, KeyError, TypeError):
        return None
    need, usable = spec.n_params * per_param, usable_hbm_bytes(values, gpu)
    if need / n <= usable:
        return None
    return (f"no parallel plan can fit: {spec.name}'s weights, gradients and optimizer states "
            f"({per_param:g} B per parameter, {need / 1e12:,.2f} TB) need "
            f"{need / n / 1e9:,.0f} GB per GPU even spread over all {n:,} {gpu.name}s, before "
            "any activation, more than "
            f"the {usable / 1e9:,.0f} GB usable: use at least {fmt_gpus(math.ceil(need / usable))}")


def _plan_fits(values: dict) -> bool:
    """Whether the scenario's plan can be built and fits the usable HBM (``plan_does_not_fit``'s
    test; False when no plan can be built)."""
    return _fitting_plan(values) is not None


def _fitting_plan(values: dict):
    """The scenario's plan (``scenario_plan_memory``: one search) when it can be built and fits
    the usable HBM (``memory_fits``), else None."""
    try:
        _, gpu, plan, mem = scenario_plan_memory(values)
    except (ValueError, KeyError):
        return None
    return plan if memory_fits(values, gpu, mem) else None


def usable_hbm_bytes(values: dict, gpu) -> float:
    """The HBM of ``gpu`` a plan may fill: HBM × (1 − the scenario's ``mem_reserve_fraction``,
    default ``memory.DEFAULT_RESERVE``)."""
    return gpu.hbm_bytes * (1 - values.get("mem_reserve_fraction", DEFAULT_RESERVE))


def memory_fits(values: dict, gpu, mem) -> bool:
    """Whether a plan's memory ``mem`` (``scenario_plan_memory``) fits the usable HBM of
    ``gpu``: total ≤ HBM × (1 − ``mem_reserve_fraction``), the test of ``plan_does_not_fit``."""
    return mem.total <= usable_hbm_bytes(values, gpu)


#: The scenario's plan keys whose fixed value can keep any plan from fitting, in the order a
#: message names them (``cp`` has its own advice, ``_misfit_advice``).
_SHAPE_KEYS = ("tp", "pp", "dp", "ep", "micro_batch_size", "pp_virtual_stages", "zero_stage",
               "recompute", "pp_schedule")


def _fixed_shape(values: dict) -> dict:
    """The plan keys of ``_SHAPE_KEYS`` the scenario fixes (present, not their "choose" value:
    ``parallel.PLAN_PARAMETER_FIELDS``), as it gives them."""
    return {k: values[k] for k in _SHAPE_KEYS
            if k in values and values[k] != parallel.PLAN_PARAMETER_FIELDS[k][1]}


def _by_model_parallel_size(df):
    """A plan ranking (``parallel.choose_plan``'s ``rank``): the fewest GPUs per model replica,
    tp·pp, first, the least memory breaking ties."""
    return df.assign(_tp_pp=df["tp"] * df["pp"]).sort_values(
        ["_tp_pp", "memory_bytes"], kind="stable").drop(columns="_tp_pp")


def _smallest_fitting_tp_pp(values: dict):
    """The plan with the smallest tp·pp that fits the scenario's GPUs, its other fixed fields
    kept (``_by_model_parallel_size``, then the scenario's own search at that tp and pp:
    ``_fitting_plan``), or None when none does."""
    free = {**values, "tp": 0, "pp": 0}
    try:
        plan = parallel.plan_from_parameters(
            free, load_model(values["model"]),
            rank_factory=lambda *_: _by_model_parallel_size)
    except (ValueError, KeyError):
        return None
    return _fitting_plan({**values, "tp": plan.tp, "pp": plan.pp})


def _fixed_cause(values: dict) -> str:
    """When the plan fields the scenario fixes (``_fixed_shape``) keep every plan from fitting,
    what says so: more GPUs do not help once tp and pp are fixed and the most GPUs the batch
    splits over with them (``step_scenario.fixed_degrees_ceiling``) still need more memory; then
    the smallest tp·pp that fits on the scenario's GPUs (``_smallest_fitting_tp_pp``) and the
    plan its search finds with every fixed field left free. "" when nothing is fixed, or when
    more GPUs would still help and freeing the fields does not make a plan fit."""
    fixed = _fixed_shape(values)
    if not fixed:
        return ""
    named = ", ".join(f"{k}: {v}" for k, v in fixed.items())
    usable = usable_hbm_bytes(values, load_accelerator(values["accelerator"]))
    ceiling = fixed_degrees_ceiling(values)
    stuck = ceiling is not None and ceiling[2].total > usable
    n = int(values["n_gpus"])
    out = []
    if stuck:
        n_max, plan, mem = ceiling
        stack = values.get("stack", DEFAULT_STACK)
        no_z3 = 3 not in load_stack(stack).zero_stages and values.get("zero_stage") != 3
        out.append(
            "more GPUs do not help ("
            + (f"even {fmt_gpus(n_max)}, the most the batch splits over with them, need "
               f"{mem.total / 1e9:,.0f} GB per GPU: plan {plan.describe()}" if n_max > n else
               f"the batch splits over no more than these {fmt_gpus(n_max)} with them")
            + (f"; the stack {stack} has no ZeRO-3 to shard the weights over data "
               "parallelism" if no_z3 else "") + ")")
    small = _smallest_fitting_tp_pp(values) if {"tp", "pp"} & set(fixed) else None
    if small is not None:
        out.append(f"tp·pp = {small.tp * small.pp} fits on these {fmt_gpus(n)} (tp: {small.tp}, "
                   f"pp: {small.pp}: plan {small.describe()})")
    everything = {**values, **{k: parallel.PLAN_PARAMETER_FIELDS[k][1] for k in fixed}}
    free = _fitting_plan(everything)
    if free is not None:
        out.append(("or, w" if small is not None else "w") + f"ith {', '.join(fixed)} left "
                   "free, the search finds "
                   f"{free.describe()} on these {fmt_gpus(n)}")
    if not out:
        return ""
    return f"the fixed {named} {'are' if len(fixed) > 1 else 'is'} the cause: " + "; ".join(out)


def plan_searches(scenario: dict):
    """``plan_at(n)``: ``checks.scenario_plan_memory`` of the scenario on ``n`` GPUs, searched
    once per count (the error it raised, returned, when no plan can be built)."""
    done: dict = {}

    def plan_at(n: int):
        if n not in done:
            try:
                done[n] = scenario_plan_memory({**scenario, "n_gpus": int(n)})
            except (ValueError, KeyError) as e:
                done[n] = e
        return done[n]
    return plan_at


def plan_stops(scenario: dict, n: int, plan_at) -> str:
    """Why the scenario cannot run on ``n`` GPUs, or "" when it can: its plan searched there
    (``plan_at``: ``plan_searches``) can be built, fits in memory (``memory_fits``, the
    test of the report's ``plan_does_not_fit``) and has a pipeline bubble of at most
    ``BUBBLE_WARNING`` (``plan_bubble``: 1F1B (p − 1)/m, Narayanan et al. 2021
    §2.2), the bubble the report warns of."""
    got = plan_at(n)  # the plan and its memory (``plan_searches``)
    if isinstance(got, Exception):
        return f"no plan on {fmt_gpus(int(n))} ({got})"
    _, gpu, plan, mem = got
    if not memory_fits(scenario, gpu, mem):
        return f"no plan fits in memory on {fmt_gpus(int(n))}"
    bubble = plan_bubble(plan)
    return "" if bubble <= BUBBLE_WARNING else (
        f"on {fmt_gpus(int(n))} the plan search's {plan.describe()} has "
        f"{with_article(f'{bubble:.0%}')} pipeline bubble")


def fitting_counts(scenario: dict, counts: list, plan_at) -> list:
    """The counts (sorted) from the first on which a plan of the scenario fits in memory
    (``plan_does_not_fit``, the report's own check): bisection, taking the fit as
    monotone in the GPU count (more GPUs shard weights, gradients and optimizer states over more
    ranks). A scenario whose plan cannot be built keeps every count (its checks say why).
    ``plan_at``: each count's plan and memory (``plan_searches``)."""
    def fits(n):
        got = plan_at(n)
        return isinstance(got, Exception) or memory_fits(scenario, got[1], got[3])
    if not counts or fits(counts[0]):
        return counts
    lo, hi = 0, len(counts) - 1
    if not fits(counts[hi]):
        return []
    while hi - lo > 1:  # counts[lo] does not fit, counts[hi] does
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if fits(counts[mid]) else (mid, hi)
    return counts[hi:]


def fixed_whole_degrees(values: dict) -> dict:
    """The tp, pp and cp the scenario fixes to a whole number above 0 (0 and absent: chosen)."""
    return {k: int(v) for k in ("tp", "pp", "cp") if isinstance(v := values.get(k), (
        int, np.integer)) and not isinstance(v, bool) and v > 0}


def splitting_counts(values: dict, seq_len: int | None = None) -> list:
    """The GPU counts a plan of the scenario splits, sorted (``parallel.splitting_gpu_counts``:
    dp × tp·pp·cp, dp dividing the global batch of ``global_batch_tokens`` ÷ ``seq_len``
    sequences, tp, pp and cp at the scenario's values where it fixes them to a whole number),
    the layers split evenly unless the scenario fixes another split: an uneven split lets pp be
    any count up to the layers (80 layers: PP 43 and 2,752 GPUs), counts a plan search may rank
    but no one provisions. Empty when the global batch is not whole sequences."""
    seq = int(seq_len or values["seq_len"])
    batch = values.get("global_batch_tokens")
    if not isinstance(batch, (int, float, np.integer)) or batch % seq:
        return []
    fixed = fixed_whole_degrees(values)
    split = "even" if values.get("pp_split", parallel.PP_SPLIT_AUTO) == \
        parallel.PP_SPLIT_AUTO else parallel.scenario_pp_split(values)
    return parallel.splitting_gpu_counts(load_model(values["model"]), int(batch) // seq, seq,
                                         split, fixed)


#: How many GPU counts, from the first on which a plan fits, ``fewest_gpus_that_run`` searches
#: for one whose pipeline bubble is small (each a plan search).
RUN_COUNT_SCAN = 12
#: The most GPUs ``fewest_gpus_that_run`` looks at, beside 64× the scenario's (a 70B model with
#: tp 4 and pp 1 fixed on 4 A100-40GB first fits on 1,024, where ZeRO shards its states).
RUN_COUNT_TOP = 16_384


def fewest_gpus_that_run(values: dict):
    """The fewest GPUs above the scenario's ``n_gpus`` (up to 64× or ``RUN_COUNT_TOP``, the
    larger) on which it can run, as the
    deadline search of ``levers.fit_budget`` answers a count: a count a plan splits with the
    layers split evenly over the pipeline stages unless the scenario fixes another split
    (``splitting_counts``: an uneven split may run on fewer GPUs, 405B on 104 H100 as TP8 ·
    PP13, a count no one provisions for it), the data-parallel degree following the count,
    whose plan search
    finds a plan that fits the usable HBM (``fitting_counts``: bisection, taking the fit as
    monotone in the GPU count) with a 1F1B pipeline bubble of at most ``BUBBLE_WARNING``
    (``plan_stops``), among the ``RUN_COUNT_SCAN`` counts from the first that fits. Returns
    ``(n, plan, memory)``, or None when no such count is found (or the batch is not whole
    sequences)."""
    return _fewest_counts(values)[0]


def _fewest_counts(values: dict) -> tuple:
    """``(fewest_gpus_that_run, the fewest that fit)`` of one search: the second the fewest of
    the same counts on which a plan fits the usable HBM whatever its pipeline bubble (a count
    the report bills, warning of the bubble), ``(n, plan, memory)`` or None."""
    n = int(values["n_gpus"])
    s = {**values, "dp": 0}  # the data-parallel degree follows the count
    plan_at = plan_searches(s)
    counts = [c for c in splitting_counts(s) if n < c <= max(64 * n, RUN_COUNT_TOP)]
    fit = fitting_counts(s, counts, plan_at)
    first = next(((c, plan_at(c)[2], plan_at(c)[3]) for c in fit[:1]
                  if not isinstance(plan_at(c), Exception)), None)
    for c in fit[:RUN_COUNT_SCAN]:
        if not plan_stops(s, c, plan_at):
            return (c, plan_at(c)[2], plan_at(c)[3]), first
    return None, first


def _misfit_advice(values: dict) -> str:
    """What to change when no plan fits: the plan fields the scenario fixes when they are the
    cause (``_fixed_cause``), more GPUs, and the plan fields the scenario fixes that
    a search could choose. ZeRO and recomputation are searched unless fixed; context
    parallelism is not unless asked for (``cp`` absent is cp 1, ``parallel.fixed_plan_fields``):
    when the search with ``cp: 0`` finds a plan that fits, the advice says so (each of cp GPUs
    holds seq_len ÷ cp tokens' activations: Liu et al. 2023, ring attention)."""
    cause = _fixed_cause(values)
    if cause:
        return cause
    free = values.get("zero_stage", -1) == -1 and values.get("recompute", "auto") == "auto"
    searched = "ZeRO and recomputation were already searched" if free else ""
    if values.get("cp", 1) == 0:
        searched = ("ZeRO, recomputation and context parallelism were already searched" if free
                    else "context parallelism was already searched")
        cp_tip = ""
    elif _plan_fits({**values, "cp": 0}):
        cp_tip = (f"set cp: 0 to let the search choose context parallelism (cp GPUs share each "
                  f"{values['seq_len']:,}-token sequence; a plan then fits)")
    else:
        cp_tip = ""
        searched += ("; " if searched else "") + \
            "context parallelism (cp: 0) does not make a plan fit either"
    more, fit = _fewest_counts(values) if not values.get("dp") else (None, None)
    sooner = (f"; a plan already fits on {fit[0]:,} ({fit[1].describe()}, "
              f"{fit[2].total / 1e9:,.0f} GB per GPU), with a pipeline bubble of "
              f"{plan_bubble(fit[1]):.0%}, which the bill prices and warns of"
              if fit and more and fit[0] < more[0] else "")
    advise = "use more GPUs" + (
        f": {more[0]:,} is the fewest above {int(values['n_gpus']):,} that splits the layers "
        f"evenly over the pipeline stages and on which the plan search finds a plan that fits "
        f"({more[1].describe()}, {more[2].total / 1e9:,.0f} GB per GPU) with a pipeline bubble "
        f"of at most {BUBBLE_WARNING:.0%}{sooner}" if more else "") + (
        f" ({searched})" if searched else "")
    if not free:
        advise += ", or leave zero_stage and recompute free (-1, auto)"
    return f"{cp_tip}, or {advise}" if cp_tip else advise


def moe_headroom_warning(values: dict, spec, gpu, plan, mem) -> str | None:
    """One sentence when a MoE plan fits the usable HBM only with a perfectly balanced router:
    its headroom (usable HBM − the plan's memory, ``mem.total``) is smaller than the activations
    a router at ``memory.MOE_CHECK_LOAD_FACTOR`` × the mean load adds
    (``memory.moe_imbalance_extra_bytes``); else None. The plan search counts a balanced router,
    as practice plans; where the scenario leaves the plan to it, the sentence names the fastest
    plan with that room and its predicted MFU (``_roomy_words``)."""
    usable = usable_hbm_bytes(values, gpu)
    headroom = usable - float(mem.total)
    lf = MOE_CHECK_LOAD_FACTOR
    extra = moe_imbalance_extra_bytes(spec, plan, int(values["seq_len"]), lf)
    if extra <= headroom:
        return None
    return (f"the plan {plan.describe()} fits {spec.name} in {float(mem.total) / 1e9:,.1f} GB of "
            f"the {usable / 1e9:,.0f} GB usable on each {gpu.name} only with a perfectly balanced "
            f"router: with its busiest experts at {lf}× the mean load (a capacity factor Switch "
            f"Transformer trained with), the activations grow by about {extra / 1e9:,.1f} GB "
            f"(memory.moe_imbalance_extra_bytes), more than the {max(headroom, 0) / 1e9:,.1f} GB "
            "left: expect out-of-memory steps unless the router is forced to balance, or fix a "
            "plan with more headroom (recompute, a smaller micro-batch, more pipeline or "
            "expert parallelism)" + _roomy_words(values, spec, plan) + ".")


def _roomy_words(values: dict, spec, plan) -> str:
    """``"; the fastest plan with that room is … at a predicted MFU of x% against y%"`` when the
    scenario leaves a shape key to the search (``_fixed_shape`` short of ``_SHAPE_KEYS``) and
    the search among plans with room for the busy router (``step_scenario.roomy_scenario_plan``)
    finds another plan; "; no plan the search may choose has that room" when it finds none; ""
    when the plan is fixed or the search fails."""
    if len(_fixed_shape(values)) == len(_SHAPE_KEYS):
        return ""
    try:
        alt = roomy_scenario_plan(values, spec)
        if alt == plan:
            return "; no plan the search may choose on these GPUs has that room"
        mine, theirs = (scenario_step(values, spec, plan=x)[1].mfu for x in (plan, alt))
    except (ValueError, KeyError):
        return ""
    return (f"; the fastest plan with that room is {alt.describe()}, at a predicted MFU of "
            f"{theirs:.1%} against this plan's {mine:.1%} (the bill prices this plan, as the "
            "search counts a balanced router)")


#: The accelerator whose measured per-shape kernel table stands in for a GPU without one
#: (``flat_gemm_warning``), and the share of the large-GEMM ceiling below which a GEMM is small.
SHAPE_REFERENCE, SMALL_GEMM_SHARE = "H100-SXM", 0.9


def flat_gemm_warning(values: dict, spec, gpu, plan) -> str | None:
    """One sentence when the step-time model prices the scenario's GEMMs at one flat efficiency
    (``gemm.gemm_shape`` is None: it holds no per-shape kernel table for the accelerator, e.g.
    A100, AMD) and its dense MLP GEMM is small: m = the micro-batch's tokens per CP rank
    (mbs · seq_len ÷ cp), n = d_ff ÷ tp, k = d_model, and the share of the ceiling it would run
    at, flat time ÷ shaped time with t = t0 + 2mnk/(f·P)·(1 + k0/k) (``gemm.gemm_time_s``), is
    below ``SMALL_GEMM_SHARE``. The shape is ``SHAPE_REFERENCE``'s fitted table carried to the
    accelerator by its dense rate per SM where its SM count is known (``gemm.stand_in_shape``,
    the rule of the A100 calibration's stand-in), else the reference's own, said which. Small
    models and micro-batches then read optimistic (a 110M-parameter model on A100 priced at the
    same MFU at micro-batch 1 and 32). None otherwise (an MoE's expert GEMMs are priced by their
    own grouped term)."""
    dtype = values.get("dtype", "bf16")
    if gemm.gemm_shape(gpu.name, dtype) is not None or spec.is_moe or not spec.d_ff:
        return None
    ref = gemm.gemm_shape(SHAPE_REFERENCE, dtype)
    on = gpu if gpu.name in gemm.SM_COUNT else load_accelerator(SHAPE_REFERENCE)
    shape = ref if on is not gpu else gemm.stand_in_shape(
        ref, gemm.per_sm_rate_ratio(gpu.name, SHAPE_REFERENCE, dtype), "per SM")
    peak, f = on.peak_flops_per_s(dtype), load_efficiency(on.name).matmul_fraction
    m = plan.micro_batch_size * int(values["seq_len"]) / max(int(getattr(plan, "cp", 1)), 1)
    n, k = spec.d_ff / plan.tp, spec.d_model
    share = float(gemm.gemm_time_s(m, n, k, peak, f, None) /
                  gemm.gemm_time_s(m, n, k, peak, f, shape))
    if share >= SMALL_GEMM_SHARE:
        return None
    basis = (f"by {SHAPE_REFERENCE}'s measured table carried to {gpu.name} by its rate per SM"
             if on is gpu else f"by {SHAPE_REFERENCE}'s measured table, on {SHAPE_REFERENCE}")
    return (f"the step-time model holds no per-shape GEMM table for {gpu.name}, so it prices "
            f"every GEMM at the large-GEMM ceiling, and this plan's MLP GEMM ({m:,.0f} × "
            f"{n:,.0f} × {k:,}) is small: {basis} (gemm.stand_in_shape), it would run at "
            f"{share:.0%} of that ceiling. Read the predicted MFU as optimistic.")


#: The bill's lines priced as the scenario's quantity × the scenario's rate, both 0 by default
#: (``ledger._product_line``): (the line, the quantity's key, the rate's key).
QUANTITY_RATE_KEYS = (
    ("annotation (human labels, preferences)", "ledger_annotation_samples",
     "ledger_annotation_usd_per_sample"),
    ("human evaluation and red-teaming", "ledger_human_eval_hours",
     "ledger_human_eval_usd_per_hour"))


def half_given_line_warnings(values: dict) -> list[str]:
    """One sentence per line of ``QUANTITY_RATE_KEYS`` whose quantity or rate the scenario gives
    without the other: the line is then $0, "not given" (``ledger._product_line``), and where
    ``ledger_published_defaults`` is on a given quantity also replaces the published default the
    line had (a trial gave 20,000 annotation samples without a price: the annotation line fell
    from the published $434k to $0, and a compare read the added count as a saving); a rate
    given alone under the published defaults leaves the line at its default, which has its own
    rate (said so). ``values`` hold the points of ranges (a scenario's, as ``scenario_warnings``
    gets them), so a range whose point is 0 is judged as 0; a Range object counts as given."""
    def given(v):
        return isinstance(v, Range) or (isinstance(v, (int, float)) and not isinstance(v, bool)
                                        and v != 0)
    out = []
    published = bool(values.get("ledger_published_defaults"))
    for line, q, r in QUANTITY_RATE_KEYS:
        has_q, has_r = given(values.get(q)), given(values.get(r))
        if has_q == has_r:
            continue
        have, lack = (q, r) if has_q else (r, q)
        if has_r and published:  # the line keeps its published default, which has its own rate
            out.append(f"{have} is given without {lack}: the {line} line keeps its published "
                       f"default, which does not use that rate. Give {lack} to price it.")
            continue
        out.append(f"{have} is given without {lack}: the {line} line is $0, 'not given'"
                   + ("; the scenario's count replaces the published default the line had"
                      if has_q and published else "") + f". Give {lack} to price it.")
    return out


def _post_training_warnings(values: dict, mfu_predicted: bool, defaults) -> list[str]:
    """``scenario_warnings``' sentences on the stack a run names and on what follows the main
    run (RL and served contexts, DPO keys without DPO, serving outside the bill), in order, then
    the bill's lines given half (``half_given_line_warnings``)."""
    return [w for w in (own_stack_hint(values, mfu_predicted, defaults),
                        default_batch_hint(values, mfu_predicted, defaults),
                        newer_stack_hint(values, mfu_predicted, defaults),
                        rl_context_warning(values, defaults),
                        rl_campaign_default_warning(values, defaults),
                        rl_job_default_warning(values, defaults),
                        served_context_warning(values),
                        dpo_ignored_warning(values, defaults),
                        serving_outside_bill_warning(values, defaults)) if w] \
        + half_given_line_warnings(values)


def _plan_warnings(values: dict, mfu_predicted: bool = False, given_mfu=None,
                   piloted: bool = False) -> list[str]:
    try:
        spec, gpu, plan, mem = scenario_plan_memory(values)
    except (ValueError, KeyError):
        return []  # the report's own validation names a broken rule
    out = []
    misfit = plan_does_not_fit(values)
    if misfit:
        out.append(misfit + "; the costs describe a run that could not start.")
    elif spec.is_moe:
        tight = moe_headroom_warning(values, spec, gpu, plan, mem)
        if tight:
            out.append(tight)
    bubble = plan_bubble(plan)
    # a pilot's MFU (its measured throughput, or the step model calibrated on it: the step
    # time includes the bubble) already holds the bubble, as a predicted one does (``piloted``:
    # scenario_warnings', the values' pilot or a report's extrapolation of it)
    if bubble > BUBBLE_WARNING and not piloted:
        # the bubble is a fraction b of the ideal compute time (Narayanan et al. 2021 §2.2.1:
        # (p - 1)/m for 1F1B), so the stages idle b / (1 + b) of the step (a bubble of 6300%
        # is 98% idle, never "idle 6300% of the time")
        out.append(f"the plan's pipeline bubble adds {bubble:.0%} to the compute time (the stages "
                   f"idle {bubble / (1 + bubble):.0%} of each step; {plan.pp} "
                   f"stages, {plan.n_microbatches} "
                   f"{noun(plan.n_microbatches, 'micro-batch', 'micro-batches')}, "
                   f"{plan.schedule}): "
                   + ("the predicted MFU includes it (the step-time model prices the idle "
                      "stages)" if mfu_predicted else
                      "the mfu must already include it, or GPU-hours are understated by as much")
                   + pipeline_advice({k: values[k] for k in PLAN_KEYS if k in values}) + ".")
    domain = gpu.scaleup_domain_size or 0
    if domain and plan.tp > domain:
        out.append(f"tp={plan.tp} spans more than one {domain}-GPU scale-up domain of "
                   f"{gpu.name}: its collectives cross the slower scale-out network.")
    elif domain and domain % plan.tp:   # TP 32 on a 72-GPU rack: some groups straddle two
        out.append(f"tp={plan.tp} does not divide the {domain}-GPU scale-up domain of "
                   f"{gpu.name}: some of its groups straddle two domains, their collectives "
                   "crossing the slower scale-out network.")
    torus = torus_warning(values, spec, plan) if mfu_predicted else None
    if torus:
        out.append(torus)
    out.extend(_stack_warnings(values, plan))
    flat = flat_gemm_warning(values, spec, gpu, plan) if mfu_predicted else None
    if flat:
        out.append(flat)
    if plan.zero_stage == 3:
        out.append(zero3_warning())
    mfu = values.get("mfu")
    if isinstance(mfu, float):
        try:
            b = _step_said_once(values, spec, out)
        except (ValueError, KeyError):
            return out
        if b.exposed_comm_s > EXPOSED_COMM_WARNING * b.step_time_s:
            out.append(exposed_comm_warning(b, plan, gpu))
        if plan.pp > 1 and stage_wait_share(spec, plan, b) > STAGE_IMBALANCE_WARNING \
                and not piloted:
            out.append(_advice_once(stage_imbalance_warning(values, spec, plan, b,
                                                            mfu_predicted), out))
        if mfu_predicted:
            out.extend(band_for_step(b, plan, spec, gpu.name, dtype=values.get("dtype", "bf16"),
                                     seq_len=values.get("seq_len")).warnings)
        if not mfu_predicted and not piloted:  # a pilot's MFU is measured, not a given figure
            band = band_for_step(b, plan, spec, gpu.name, dtype=values.get("dtype", "bf16"),
                                 seq_len=values.get("seq_len"))
            line = given_vs_predicted_mfu(mfu, b, band, plan, given_mfu)
            if line:
                out.append(line)
    return out


def torus_warning(values: dict, spec, plan) -> str | None:
    """What a predicted MFU on a torus rests on: the step-time model gives every collective
    inside a scale-up domain the catalogue's per-chip figure (every ICI link of the chip, as a
    switch would), where a ring along one axis of a torus uses two of them
    (``overlap.group_bandwidth``: 2 × B_link; Jouppi et al. 2023, arXiv:2304.01433) and a
    group laid out over several axes more. Said, with the plan's predicted MFU when every
    collective inside the domain gets the one-axis figure (``step_time`` on the scenario's
    cluster with that scale-up bandwidth: TP, CP, EP, DP and PP traffic alike), the two
    bracketing it, when the accelerator is a torus (``data/scaleup_topology.csv``) and the
    plan has a parallel group; an expert all-to-all, bounded on a torus by its bisection,
    which the model does not price, is said apart. None otherwise (a trial: TP8 on TPU v5p
    predicted 54.1% at 600 GB/s, 48.3% at one axis's 200 GB/s, and no word said the first is
    a best case)."""
    topo = load_topologies()
    name = load_accelerator(values["accelerator"]).name
    if name not in topo.index or not str(topo.loc[name, "topology"]).startswith("torus"):
        return None
    groups = [f"{k}{v}" for k, v in (("TP", plan.tp), ("CP", plan.cp), ("EP", plan.ep),
                                     ("DP", plan.dp), ("PP", plan.pp)) if v > 1]
    cluster = scenario_cluster(values)
    axis = float(group_bandwidth(name, 2))
    if not groups or axis >= cluster.scaleup_bytes_per_s_per_dir:
        return None
    _, b = scenario_step(values, spec, plan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # the scenario's own step has said them
        ring = step_time(spec, replace(cluster, scaleup_bytes_per_s_per_dir=axis), plan,
                         int(values["seq_len"]), options=scenario_step_options(values))
    r = topo.loc[name]
    return (f"{name}'s chips form a {int(r['torus_dims'])}D torus, which the step-time model "
            f"prices as a switch: each chip's {int(r['links_per_chip'])} ICI links "
            f"({cluster.scaleup_bytes_per_s_per_dir / 1e9:,.0f} GB/s per direction) serve "
            f"every collective of the plan's {', '.join(groups)} groups inside a "
            f"{cluster.scaleup_domain_size:,}-chip slice, where a ring along one axis of the "
            f"torus uses two of them, {axis / 1e9:,.0f} GB/s (overlap.group_bandwidth), and a "
            "group over several axes more: at one axis for all of them the plan's predicted "
            f"MFU is {ring.mfu:.1%} against {b.mfu:.1%}, the two bracketing it"
            + ("; the expert all-to-all, bounded on a torus by its bisection, is not priced "
               "as such" if plan.ep > 1 else ""))


def _step_said_once(values: dict, spec, said: list):
    """``scenario_step``'s step, its ``StackFeatureWarning``s re-issued only for the features
    the warnings ``said`` do not already name (``_stack_warnings``' "zero_stage=3 is not
    offered by ..." and the step's "zero_stage=3: the stack ... has no ZeRO-3 path" are one
    fact: a trial read both, in different words)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", StackFeatureWarning)
        _, b = scenario_step(values, spec)
    named = {w.split(" ")[0].replace("'", "") for w in said}   # "dtype=fp8", "zero_stage=3"
    for w in caught:
        if not issubclass(w.category, StackFeatureWarning) or \
                str(w.message).split(":")[0].replace("'", "") not in named:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return b


def plan_bubble(plan) -> float:
    """A plan's pipeline bubble ÷ its ideal compute time (``parallel.bubble_fraction``: 1F1B
    (p − 1)/m, Narayanan et al. 2021 §2.2)."""
    return float(parallel.bubble_fraction(plan.pp, plan.n_microbatches, plan.schedule,
                                          plan.virtual_stages))


def prime_factors_text(n: int) -> str:
    """``n`` as a product of prime powers, as a reader writes it: 576 → "2⁶·3²"."""
    sup = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
    n, p, parts = int(n), 2, []
    while p * p <= n:
        k = 0
        while n % p == 0:
            n, k = n // p, k + 1
        if k:
            parts.append(f"{p}{str(k).translate(sup) if k > 1 else ''}")
        p += 1
    if n > 1:
        parts.append(str(n))
    return "·".join(parts) or "1"


#: How many GPU counts (or global batches) on each side of the scenario's ``pipeline_advice``
#: tries with the plan search before it stops looking on that side.
PIPELINE_ADVICE_TRIES = 3


def _freed_plan_words(values: dict, spec) -> str:
    """When the bubble's plan was searched with plan keys the scenario fixes (``dp`` and
    ``fsdp_shard_size`` aside; ``cp`` is fixed at 1 when absent, ``fixed_plan_fields``), the
    plan the same search finds with them left free (``parallel.PLAN_PARAMETER_FIELDS``'
    "choose" values), named when its predicted MFU is higher (a trial raised default.yaml's
    seq_len to 32,768 and got a 100% bubble from its ``cp: 1``), said as raw predictions (a
    trial read a 51.2% beside a band capped at 28.3%); "" otherwise."""
    names = {field: name for name, (field, _) in parallel.PLAN_PARAMETER_FIELDS.items()}
    fixed = [names[f] for f in fixed_plan_fields(values) if f in names and f != "dp"]
    if not fixed:
        return ""
    freed = {**values, **{k: parallel.PLAN_PARAMETER_FIELDS[k][1] for k in fixed}}
    try:
        _, here = scenario_step(values, spec)
        plan, there = scenario_step(freed, spec)
    except ValueError:
        return ""
    if there.mfu <= here.mfu * 1.01:
        return ""
    said = ", ".join(f"{k}: {values[k]}" if values.get(k) is not None
                     else f"{k}: 1 (not given, so fixed at 1)" for k in fixed)
    return (f", within the scenario's fixed {said}; with "
            + ", ".join(f"{k}: {parallel.PLAN_PARAMETER_FIELDS[k][1]!r}".replace("'", "")
                        for k in fixed)
            + f" (chosen) it finds {plan.describe()}, predicted {there.mfu:.1%} against this "
            f"plan's {here.mfu:.1%} (raw step-time predictions, before any cap at the best "
            "comparable published run)")


@disk_cached  # a few plan searches, the same for every call with these values: core.diskcache
def pipeline_advice(values: dict) -> str:
    """Why the scenario's plan has its pipeline, and what avoids a large bubble, as the tail of
    the bubble warning (``"; …"``), or "" when the scenario fixes ``pp`` itself.

    When every split of the GPU count has pipeline stages (``parallel.fewest_pipeline_stages``:
    dp divides the global batch in sequences, so dp ≤ gcd(n, batch) and tp·pp·cp carries
    n ÷ gcd(n, batch)), the GPU count forces them: the words say so with the two
    factorisations, then name the nearest GPU counts below and above the scenario's that split
    without a pipeline (``parallel.splitting_gpu_counts`` with pp 1) and the nearest global
    batches that do with the chosen plan's tp and cp (multiples of n ÷ (tp·cp) sequences),
    each one whose plan, searched as the scenario's with pp = 1 (``scenario_step``), fits,
    has a bubble of at most ``BUBBLE_WARNING`` and predicts a higher MFU than the scenario's
    plan, with that MFU and the main run's GPU-hours relative to the scenario's (GPU-hours =
    FLOPs ÷ (peak × MFU), MFU as Chowdhery et al. 2022 App. B define it: the ratio of the
    MFUs). The
    scenario's GPU count and batch are not changed. When a split without a pipeline exists,
    the search chose the stages: the fastest plan that fits."""
    if "pp" in fixed_plan_fields(values):
        return ""
    spec = load_model(values["model"])
    n, batch, fixed, got, domain, replicates = _forced_stages(values, spec)
    if got is None or got[0] == 1:
        return ("; the plan search chose these stages: the fastest plan that fits in memory by "
                "the step-time model" + _freed_plan_words(values, spec))
    g = math.gcd(n, batch)
    why = (f"; the GPU count forces it: dp must divide the global batch of {batch:,} "
           f"sequences ({prime_factors_text(batch)}), so on {fmt_gpus(n)} "
           f"({prime_factors_text(n)}) dp ≤ gcd = {g:,} and tp·pp·cp is a multiple of "
           f"{n // g:,}, which no tp (dividing the {spec.n_heads} attention heads"
           + ("" if replicates else f" and, on this stack, the {spec.n_kv_heads} KV heads")
           + ("" if "tp" in fixed or domain is None
              else f", at most the {domain}-GPU scale-up domain")
           + f") and cp carry: every split has at least {got[0]} pipeline stages"
           + _freed_plan_words(values, spec))
    plan, here = scenario_step(values, spec)
    counts = [f"{fmt_gpus(c)} ({_better_words(there, b, here.mfu)})"
              for c, there, b in _pipeline_free_counts(values, spec, batch, fixed, here.mfu)]
    batches = _pipeline_free_batches(values, spec, plan, batch, here.mfu)
    if not counts and not batches:
        return why + ("; none of the nearest GPU counts and global batches that split without "
                      f"a pipeline gives a plan with a bubble of at most {BUBBLE_WARNING:.0%} "
                      "and a higher predicted MFU")
    # raw predictions on both sides, said so: a lecturer read 26.2% here beside notebook 09's
    # lever "10.4% → 22.4%", the bill's corrected estimates
    return (why + f"; without it (a bubble of at most {BUBBLE_WARNING:.0%} and a higher "
            f"predicted MFU than this plan's {here.mfu:.1%}, raw step-time predictions on both "
            "sides, before the regime's correction the bill and notebook 09's levers apply): "
            + " or ".join(counts + ([f"on these {fmt_gpus(n)} a global batch of "
                                     + " or ".join(batches)] if batches else []))
            + "; n_gpus and global_batch_tokens are priced as given (notebook 09 prices the "
            "GPU count as the lever 'a GPU count without a pipeline'; a batch change "
            "must suit the run's convergence: notebook 02)")


def _forced_stages(values: dict, spec) -> tuple:
    """``(n, batch, fixed, got, domain, replicates)`` of ``pipeline_advice``: the GPU count,
    the global batch in sequences, the plan fields the scenario fixes but ``dp``,
    ``parallel.fewest_pipeline_stages`` of the GPU count (None: no split; ``got[0]`` the
    fewest stages every split has, 1 when one needs no pipeline), and what bounds its tp: the
    scale-up domain (None without one) and whether the stack replicates KV heads."""
    n, seq = int(values["n_gpus"]), int(values["seq_len"])
    batch = int(values["global_batch_tokens"]) // seq
    fixed = {k: v for k, v in fixed_plan_fields(values).items() if k != "dp"}
    domain = load_accelerator(values["accelerator"]).scaleup_domain_size or None
    replicates = load_stack(values.get("stack") or DEFAULT_STACK).tp_kv_replication
    got = parallel.fewest_pipeline_stages(spec, n, batch, seq, parallel.scenario_pp_split(
        values), {**fixed, "tp_kv_replication": replicates}, tp_max=domain)
    return n, batch, fixed, got, domain, replicates


def forced_pipeline_stages(values: dict) -> int | None:
    """The fewest pipeline stages every split of the scenario's GPU count has where the count
    forces a pipeline (``parallel.fewest_pipeline_stages`` > 1: dp divides the global batch in
    sequences, so dp ≤ gcd(n, batch)); None where a split without one exists, none splits, or
    the scenario fixes ``pp``. Cheap beside ``pipeline_free_gpus_of`` (no counts searched)."""
    if "pp" in fixed_plan_fields(values):
        return None
    got = _forced_stages(values, load_model(values["model"]))[3]
    return got[0] if got is not None and got[0] > 1 else None


def pipeline_free_gpus_of(values: dict) -> tuple:
    """``(stages, counts)``: the fewest pipeline stages every split of the scenario's GPU count
    has (``parallel.fewest_pipeline_stages``; 1 when a split without a pipeline exists, so the
    search chose any stages; None when no split exists, or the scenario fixes ``pp``), and the
    GPU counts ``pipeline_advice`` names where the GPU count forces the pipeline (dp divides the
    global batch in sequences, so dp ≤ gcd(n, batch)): the nearest below and above that split
    without one and whose searched plan fits, has a bubble of at most ``BUBBLE_WARNING`` and
    predicts a higher MFU than the scenario's plan, as ``[(n_gpus, plan, StepBreakdown)]``,
    below first (empty otherwise). The lever ``levers.pipeline_free_gpus`` prices one."""
    if "pp" in fixed_plan_fields(values):
        return None, []
    spec = load_model(values["model"])
    _, batch, fixed, got, _, _ = _forced_stages(values, spec)
    if got is None or got[0] == 1:
        return (None if got is None else 1), []
    mfu = scenario_step(values, spec)[1].mfu
    return got[0], _pipeline_free_counts(values, spec, batch, fixed, mfu)


def _pipeline_free_counts(values: dict, spec, batch: int, fixed: dict, mfu: float) -> list:
    """``pipeline_advice``'s GPU counts: below and above the scenario's, the nearest ones
    (up to ``PIPELINE_ADVICE_TRIES`` each, above up to 4×) that split with pp 1 and whose
    searched plan passes ``_better_step``: ``[(n_gpus, plan, StepBreakdown)]``."""
    n, seq = int(values["n_gpus"]), int(values["seq_len"])
    counts = parallel.splitting_gpu_counts(spec, batch, seq, parallel.scenario_pp_split(
        values), {**fixed, "pp": 1})
    out = []
    for side in (sorted((c for c in counts if c < n), reverse=True),
                 [c for c in counts if n < c <= 4 * n]):
        for c in side[:PIPELINE_ADVICE_TRIES]:
            # no pipeline there: pp fixed at 1 (a review: the free search priced TP8 · PP64 on
            # the 1,024 GPUs named "without it"), dp following the count
            better = _better_step({**values, "n_gpus": int(c), "pp": 1, "dp": 0}, spec, mfu)
            if better:
                out.append((int(c), *better))
                break
    return out


def _pipeline_free_batches(values: dict, spec, plan, batch: int, mfu: float) -> list:
    """``pipeline_advice``'s global batches on the scenario's GPUs: the multiples of
    d = n ÷ (tp·cp) sequences (the chosen plan's tp and cp, no pipeline: dp = d must divide the
    batch) nearest the scenario's below and above, kept when their searched plan passes
    ``_better_plan``, in words."""
    n, seq = int(values["n_gpus"]), int(values["seq_len"])
    d = n // (plan.tp * plan.cp)
    out = []
    for b in sorted({batch // d * d, -(-batch // d) * d} - {0, batch}):
        words = _better_plan({**values, "global_batch_tokens": b * seq, "pp": 1}, spec, mfu)
        if words:
            out.append(f"{b:,} sequences (global_batch_tokens: {b * seq:,}; {words})")
    return out


def _better_step(values: dict, spec, mfu: float) -> tuple | None:
    """``(plan, StepBreakdown)`` of the searched plan of ``values`` (``scenario_step``) when it
    fits, its bubble is at most ``BUBBLE_WARNING`` and its MFU beats ``mfu``; else None."""
    plan = _fitting_plan(values)  # searched once, then priced
    if plan is None:
        return None
    try:
        plan, b = scenario_step(values, spec, plan)
    except (ValueError, KeyError):
        return None
    if plan_bubble(plan) > BUBBLE_WARNING or not b.mfu > mfu:
        return None
    return plan, b


def _better_words(plan, b, mfu: float) -> str:
    """A better plan (``_better_step``) in words, with its predicted MFU and the main run's
    GPU-hours relative to an MFU of ``mfu`` (their ratio, mfu ÷ MFU: the same FLOPs)."""
    return (f"{plan.describe()}: predicted MFU {b.mfu:.1%}, {mfu / b.mfu:.2f}× the main run's "
            "GPU-hours and compute cost")


def _better_plan(values: dict, spec, mfu: float) -> str:
    """``_better_step`` of ``values`` in words (``_better_words``), or ""."""
    better = _better_step(values, spec, mfu)
    return _better_words(*better, mfu) if better else ""


def zero3_warning() -> str:
    """What the step-time model's ZeRO-3 (FSDP) pricing rests on, from its validation
    (``accuracy.validation_table``, the held-out rows of ``data/validation_mfu.csv`` with
    ``zero_stage`` 3): their count and the range and median of their errors, predicted ÷
    published MFU − 1 (positive: the model is optimistic), and the margin the plan search adds
    to a ZeRO-3 step (``parallel.ZERO3_STEP_MARGIN``, fitted on the calibration rows of the
    reshard policy the search prices). The rows
    of every regime together, said so (a trial read its median beside the band's, its own
    regime's, and found two figures for one thing)."""
    v = validation_table()
    e = v.loc[(v["zero_stage"] == 3) & (v["split"] == "held-out"), "error"]
    return (f"the plan uses ZeRO-3 (FSDP): the step-time model prices its per-layer gathers and "
            f"reduce-scatters layer by layer (comm.fsdp_exposure), checked on {len(e)} held-out "
            f"published ZeRO-3 runs (predicted ÷ published MFU − 1 from "
            f"{fmt_signed_pct(e.min())} to {fmt_signed_pct(e.max())}, median "
            f"{e.median():+.1%}, every regime together: the band "
            "around a prediction uses its own regime's runs alone, whose median may differ); "
            "the plan search counts a ZeRO-3 step "
            f"{parallel.ZERO3_STEP_MARGIN:.0%} longer when it ranks plans (the 90% upper error "
            "of the calibration runs that free a layer's gathered weights after its forward, as "
            "the plans it ranks do): read the predicted MFU with its band.")


#: How a range's point is said beside it in a sentence on the point (``given_vs_predicted_mfu``),
#: and the pattern of a given MFU in those sentences, the range's words included where said (one
#: group: the index's plain lines, ``glance``, and ``validation``'s own-run line quote it whole).
RANGE_POINT_WORDS = "the point of its range"
GIVEN_MFU_PATTERN = r"mfu=([\d.]+(?: \(" + RANGE_POINT_WORDS + r" [\d.]+–[\d.]+\))?)"


def mfu_text(mfu: float) -> str:
    """A given MFU as a warning writes it: two decimals, three or four when the value has them
    (a range's midpoint 0.425 is not "0.42" beside the header's 42.5%, and 0.5649 is not "0.56"
    beside a bound of 56%), or as many as show a tiny MFU's first digit (1e-9 is not "0.00")."""
    places = (next((d for d in (2, 3) if abs(round(mfu, d) - mfu) < 1e-9), 4) if mfu >= 0.01
              else min(12, 1 - math.floor(math.log10(mfu))))
    return f"{mfu:.{places}f}"


def given_vs_predicted_mfu(mfu: float, b, band, plan, given=None) -> str | None:
    """One plain line when a scenario's given MFU is not what the step-time model expects of its
    plan: None when the given MFU lies inside the prediction's error band (``band``, an
    ``accuracy.MfuBand``, its upper end capped at what has been measured), else the line. A
    band whose cap lies below the prediction itself (``accuracy.band_cap``: the best comparable
    published run, or the matmul ceiling) is said to be capped below it, not "around" it, and a
    capped top is said with what capped it (``MfuBand.cap_source``: the run itself is named by
    ``prediction_evidence``, no parenthesis inside another); a given MFU above such a
    band is said to be above its capped top (``MfuBand.high``, from ``cap_source``), and the raw
    prediction above that cap, since "above" is decided against the top, not the prediction.
    ``given``: the scenario's ``mfu`` where it is a ``Range`` (``mfu`` its point), said beside
    the point as ``mfu=0.375 (the point of its range 0.30–0.45)`` (``RANGE_POINT_WORDS``: a
    trial read "mfu=0.375" of a scenario that gave [0.30, 0.45] as a figure it never typed)."""
    if band.low <= mfu <= band.high:
        return None
    side = "below" if mfu < band.low else "above"
    lo, hi = given.bounds if isinstance(given, Range) else (math.nan, math.nan)
    shown = mfu_text(mfu) + (f" ({RANGE_POINT_WORDS} {mfu_text(lo)}–{mfu_text(hi)})"
                             if math.isfinite(hi) and hi > lo else "")
    reason = band.cap_reason()
    if side == "above" and band.high < b.mfu:  # "above" is decided against the capped top
        return (f"the scenario's mfu={shown} is above the band's capped top, "
                f"{_percent_beside(mfu, band.high)} "
                f"({band.cap_source(False) or 'where no measurement goes'}), of what the step-time "
                f"model expects of this plan ({plan.describe()}); the raw prediction, "
                f"{b.mfu:.0%}, is above that cap (band {_band_ends(mfu, band)}, capped "
                f"below the prediction where no measurement goes" +
                (f": {reason}" if reason else "") + ") (not the range the bill draws around the "
                f"scenario's own figure); {prediction_evidence(band)}; the bill uses the given "
                "figure (notebook 04b shows where the time goes; `mfu: predict` uses the "
                "prediction).")
    capper = band.cap_source(False) or "what has been measured"
    where = (f"capped below that prediction, where no measurement goes, by {capper}"
             if band.high < b.mfu else "around that prediction" +
             (f", its top capped at {band.high:.1%} by {capper}" if reason else ""))
    return (f"the scenario's mfu={shown} is {side} what the step-time model expects of this "
            f"plan ({plan.describe()}): {b.mfu:.0%}, band {_band_ends(mfu, band)} "
            f"{where}, not the range the bill draws around the scenario's own figure; "
            f"{prediction_evidence(band)}; the bill uses the given figure (notebook 04b shows "
            f"where the time goes; `mfu: predict` bills the band's central estimate, "
            f"{band.central()[0]:.1%}, the prediction corrected by its regime's median error).")


def _percent_beside(mfu: float, x: float) -> str:
    """``x`` in whole percents, or with the decimals ``distinct_percents`` needs where whole
    percents would print it as the given ``mfu``."""
    return f"{x:.0%}" if f"{x:.0%}" != f"{mfu:.0%}" else distinct_percents(mfu, x)[1]


def _band_ends(mfu: float, band) -> str:
    """A band's ends "30%–39%" beside a given MFU outside it, with one decimal (or more:
    ``distinct_percents``) where whole percents would print the given MFU as the end it lies
    beyond (a trial read "mfu=0.30 is below ... band 30%–39%"), or print the two ends alike."""
    lo, hi = f"{band.low:.0%}", f"{band.high:.0%}"
    if f"{mfu:.0%}" not in (lo, hi) and lo != hi:
        return f"{lo}–{hi}"
    end = band.low if mfu < band.low else band.high
    d = max(_decimals(*distinct_percents(mfu, end)), _decimals(*distinct_percents(band.low,
                                                                                  band.high)))
    return f"{band.low:.{d}%}–{band.high:.{d}%}"


def _decimals(*texts: str) -> int:
    """The most decimals among percentages as ``distinct_percents`` prints them ("30.1%": 1)."""
    return max(len(t.rstrip("%").split(".")[1]) if "." in t else 0 for t in texts)


def prediction_evidence(band) -> str:
    """How far a predicted MFU can be trusted, from its band (an ``accuracy.MfuBand``): no
    held-out published run in its regime (the band is the stated default); above every one of
    them (the prediction, on the BF16 basis of published MFUs, exceeds the best reported
    ``regime_best``: an extrapolation, unless the best comparable published run of any regime,
    ``best_published``, reaches it); or among them."""
    if not band.n or band.regime_best is None:
        return (f"no held-out published run in its regime ({band.regime}) to check the "
                f"prediction against: its band is the stated default, "
                f"{step_error_words(band.center, band.half_width)}, "
                "so trust the comparison loosely")
    pred = band.mfu_bf16_basis if band.mfu_bf16_basis is not None else band.mfu
    # one decimal, as the bill and `llmcost check` print a published MFU (a trial read this
    # "46%" beside check's 47.5% and the cap's 45.5% as three figures for one run)
    best = f"{band.regime_best:.1%}, {band.regime_best_source}"
    if not math.isclose(pred, band.mfu, rel_tol=1e-9):   # an FP8 (or FP4) prediction
        # the best run said on both peaks: a trial read "110.1% of the BF16 peak" alone as
        # an impossible figure (an FP8 run at 55.0% of its own peak)
        own = band.regime_best * band.mfu / pred
        best = (f"{band.regime_best:.1%} of the BF16 peak ({own:.1%} of this dtype's), "
                f"{band.regime_best_source}: the basis published runs report their MFU on, "
                f"where this prediction ({band.mfu:.1%} of its own dtype's peak) is {pred:.1%}")
    comparable = band.best_published
    if pred > band.regime_best and comparable is not None and pred <= comparable:
        # above its regime's held-out runs but not above a comparable run of another regime
        # (e.g. an FSDP-style run of the same size and generation): measured, so no
        # extrapolation; the same best run `llmcost check` judges against
        derived = "the largest FP8 ÷ BF16 speed-up of one plan" in band.best_source
        return (f"that prediction is above the {band.n} held-out published "
                f"{noun(band.n, 'run')} of its "
                f"regime ({band.regime}; the highest of them {best}) but within the best "
                f"comparable published run, {comparable:.1%} ({band.best_source}): "
                + ("a BF16 run scaled by the published FP8 speed-up reaches it" if derived
                   else "what has been measured reaches it"))
    if pred > band.regime_best:
        # the comparable runs' best said beside the regime's (a trial read the regime's 34.4%
        # beside a band capped by another regime's 63.7% as a contradiction)
        rule = (f"the same GPU generation, dense with dense or MoE with MoE, within "
                f"{SIZE_FACTOR:g}× in total parameters and {SEQ_FACTOR:g}× in sequence length")
        other = (f"and above the best comparable published run of any regime too ({rule}: "
                 f"{comparable:.1%}, {band.best_source})" if comparable is not None else
                 f"and no published run of any regime is comparable to it ({rule})")
        return (f"that prediction is above every one of the {band.n} held-out published "
                f"{noun(band.n, 'run')} of its regime ({band.regime}; the highest of them "
                f"{best}), {other}: "
                "an extrapolation, so trust the comparison less")
    # the regime's runs across its size and length bins, said so: a trial read this
    # "highest" of 75.0% beside the 21.6% of the best comparable run as two best runs
    # one run: "lies within the 1 held-out published run(s)" (a trial) said as what it is
    within = (f"lies within the {band.n} held-out published runs" if band.n != 1 else
              "is not above the one held-out published run")
    return (f"the prediction {within} of its regime ({band.regime}; "
            + ("the highest of them, across the regime's sizes and lengths, " if band.n != 1
               else "") + f"{best})")


#: What each exposed-communication part is, and whether the model may be pessimistic about it.
_EXPOSED = {
    "tp_comm_s": ("tensor-parallel collectives", "the model overlaps only Megatron-LM's backward "
                  "TP collectives (comm_tp_overlap); a TP group crossing the scale-out network is "
                  "slow in any framework: keep tp inside the scale-up domain"),
    "cp_comm_s": ("context-parallel K/V exchanges", "taken as not overlapped; ring attention "
                  "implementations overlap them, so this part is pessimistic"),
    "ep_comm_s": ("expert-parallel all-to-alls", "taken as not overlapped; schedules such as "
                  "DeepSeek-V3's DualPipe hide them, so this part is pessimistic"),
    "pp_comm_s": ("pipeline sends", "exposed unless comm_pp_overlap, and always on the fill and "
                  "drain"),
    "dp_comm_s": ("data-parallel / ZeRO traffic", "only what does not fit in the backward and "
                  "forward windows (comm_dp_overlap)"),
}


def _advice_once(warning: str, said: list) -> str:
    """``warning`` with its ``pipeline_advice`` tail (from "; the GPU count forces it") cut to a
    pointer when a warning of ``said`` already ends with the same tail: a trial read the
    ten-line advice twice, word for word, under the bubble and the unequal stages."""
    cut = warning.find("; the GPU count forces it")
    if cut < 0 or not any(w.endswith(warning[cut:]) for w in said):
        return warning
    if "none of the nearest" in warning[cut:]:   # no cure to point to (a review)
        return (warning[:cut] + "; the GPU count forces it, and the pipeline-bubble warning "
                "finds no nearby GPU count or batch without it.")
    return (warning[:cut] + "; the GPU count forces it; without it (the GPU counts and "
            "batches the pipeline-bubble warning names), the stages would balance.")


def stage_wait_share(spec, plan, b) -> float:
    """About how much of a step the pipeline's stages wait for the busiest: the larger of the
    step-time model's share (``StepBreakdown.stage_imbalance_s`` over the step; its middle
    stages all count as the heaviest, so it misses the middle stages' own spread) and the
    stages' own: with a stage's work w_i its layers L_i (``memory.stage_layers``), the last's
    plus the LM head in layers (its matmul weights over a layer's, ``matmul_params_active``;
    the embedding, a lookup, counts nothing), the busiest paces every micro-batch and the mean
    stage idles

        (1 − mean(w) / max(w)) × the step's per-micro-batch layer work (matmuls, attention,
        memory-bound operators, recomputation, TP/CP/EP communication, MoE host work and the
        imbalance itself: m × the busiest stage's time).

    An estimate (a layer's time taken as the same on every stage; multi-token-prediction
    modules left out), not a bound, taken for ``uneven`` splits only: the others give every
    middle stage the same layers, where the step model's own share is exact (its first and
    last stages computed as they are) and the head's matmul share would overstate the head's
    time (it runs no attention, recomputation or expert all-to-all). A trial's Llama 2 7B on
    100 H100s (TP1 · PP25, 32 layers: 7 stages of 2, 18 of 1, the 32,000-entry head 0.65 of a
    layer, mean 1.31) was said to wait 2.5% where its stages idle 1 − 1.31 / 2 = 35% of that
    work, and its head left the last stage lighter than a middle one, so no warning fired."""
    if plan.pp_split != "uneven":
        return float(b.stage_imbalance_s) / float(b.step_time_s)
    dense, moe = stage_layers(spec, plan.pp, plan.virtual_stages, plan.pp_split)
    w = np.asarray(dense, dtype=float) + np.asarray(moe, dtype=float)
    mp = spec.matmul_params_active
    per_layer = (mp["attention"] + mp["ffn"] + mp.get("router", 0)) / spec.n_layers
    w[-1] += mp["lm_head"] / per_layer if per_layer > 0 else 0.0
    paced = sum(float(getattr(b, k)) for k in (
        "matmul_s", "attention_s", "memory_bound_s", "recompute_s", "tp_comm_s", "cp_comm_s",
        "ep_comm_s", "moe_host_s", "stage_imbalance_s"))
    by_layers = paced * (1.0 - w.mean() / w.max()) if w.max() > 0 else 0.0
    return max(float(b.stage_imbalance_s), by_layers) / float(b.step_time_s)


def stage_imbalance_warning(values: dict, spec, plan, b, mfu_predicted: bool) -> str:
    """The warning for a step whose pipeline stages are uneven: the busiest stage's extra work
    (``StepBreakdown.stage_imbalance_s``: its compute less the stages' mean, × the micro-batches
    of a step; uneven layers, the embedding on the first stage and the LM head and loss on the
    last; ``stage_wait_share``, at least the stages' own spread) over
    ``STAGE_IMBALANCE_WARNING`` of the step. The layers per stage come from
    ``memory.stage_layers`` (the plan's split), said as how many stages hold each count; the
    tail is ``pipeline_advice``'s (the GPU count or batch that forces the pipeline, and the
    nearest ones without it). The step model evaluates the first, one middle (the heaviest) and
    the last stage and counts every middle stage as that one, so its mean is at least the true
    mean and its share is too low: ``stage_wait_share`` counts the stages' own, said "about".
    A trial's 8B model on 100 H100s: dp must divide 1,024 sequences, so TP2 · PP25 for 32
    layers (7 stages of 2, 18 of 1, the LM head on the last), and no word of it."""
    dense, moe = stage_layers(spec, plan.pp, plan.virtual_stages, plan.pp_split)
    layers = (np.asarray(dense, dtype=float) + np.asarray(moe, dtype=float)).astype(int)
    share = stage_wait_share(spec, plan, b)
    counts = sorted(collections.Counter(layers.tolist()).items(), reverse=True)
    held = ", ".join(f"{n} {noun(n, 'stage')} of {k}" for k, n in counts)
    mtp = spec.mtp_depth
    tail = ("the LM head and loss" if not mtp else
            f"the LM head, the loss and the {noun(mtp, 'multi-token-prediction module')}"
            + ("" if plan.pp_split == "uneven" else
               f" (this {plan.pp_split} split places the layers as if the "
               f"{noun(mtp, 'module were', 'modules were')} not there; pp_split: uneven counts "
               f"{noun(mtp, 'it', 'them')} as slots of the last stage)"))
    spread = (f"{spec.n_layers} layers on {plan.pp} stages: {held}; the first also holds the "
              f"embedding, the last {tail}")
    return (f"the plan's pipeline stages carry unequal work ({spread}; {plan.describe()}): the "
            f"others wait for the busiest about {share:.0%} of each step (its layers and the "
            "LM head against the stages' mean, checks.stage_wait_share; the step-time model "
            "prices the step at the busiest stage's pace): "
            + ("the predicted MFU includes it" if mfu_predicted else
               "the mfu must already include it, or GPU-hours are understated by as much")
            + pipeline_advice({k: values[k] for k in PLAN_KEYS if k in values}) + ".")


def exposed_comm_warning(b, plan, gpu) -> str:
    """The warning for a step whose exposed communication exceeds ``EXPOSED_COMM_WARNING``: it
    names the parallel dimension that is actually exposed (the largest of the TP, CP, EP, PP and
    DP parts of ``b``, a ``StepBreakdown``), and whether the model is pessimistic about it."""
    part = max(_EXPOSED, key=lambda k: getattr(b, k))
    what, why = _EXPOSED[part]
    share = getattr(b, part) / b.step_time_s
    where = ""
    domain = gpu.scaleup_domain_size or 0
    if part == "tp_comm_s" and domain and plan.tp > domain:
        where = (f" (tp={plan.tp} spans more than one {domain}-GPU scale-up domain, so its "
                 "collectives cross the scale-out network)")
    exposed = b.exposed_comm_s / b.step_time_s
    return (f"{exposed:.0%} of the predicted step is exposed communication (notebook 04), "
            f"{'mostly' if share > exposed / 2 else 'its largest part'} "
            f"{what}: {share:.0%} of the step{where}; "
            f"{why}.")


def _stacks_with(field: str, value, key: str) -> str:
    """"; set <key> to one the stack has, or a stack that has <value> (...)": the fix of a fixed
    plan field its stack does not offer (a trial was told the field was not offered, not what
    to do)."""
    have = stacks_having(lambda s: value in plan_options(s)[field])
    return (f"; set {key} to one it has, or a stack that has {value!r}"
            + (f" ({', '.join(have)})" if have else ""))


def _stack_warnings(values: dict, plan) -> list:
    """Fixed plan fields the scenario's software stack does not offer (plan search never picks
    them; a fixed value is kept, and said)."""
    try:
        st = load_stack(values.get("stack", DEFAULT_STACK))
    except ValueError:
        return []
    fixed = fixed_plan_fields(values)
    allowed = plan_options(st)
    out = []
    for field, key in (("schedule", "pp_schedule"), ("zero_stage", "zero_stage"),
                       ("recompute", "recompute")):
        if field in fixed and getattr(plan, field) not in allowed[field] and \
                not (field == "schedule" and plan.pp == 1):
            out.append(f"{key}={getattr(plan, field)!r} is not offered by the {st.name} stack "
                       f"(it has {', '.join(map(str, allowed[field]))}): the plan keeps the "
                       "scenario's value, but no run on that software could use it"
                       + _stacks_with(field, getattr(plan, field), key) + ".")
    if "zero_stage" not in fixed and getattr(plan, "fsdp_shard_size", None) is not None and \
            plan.zero_stage not in allowed["zero_stage"]:
        out.append(f"zero_stage={plan.zero_stage} (implied by fsdp_shard_size="
                   f"{plan.fsdp_shard_size}, hybrid sharding is ZeRO-3) is not offered by the "
                   f"{st.name} stack (it has {', '.join(map(str, allowed['zero_stage']))}): the "
                   "plan keeps the scenario's value, but no run on that software could use it.")
    if getattr(plan, "fsdp_shard_size", None) is not None and not st.hsdp:
        out.append(f"fsdp_shard_size={plan.fsdp_shard_size} (hybrid sharding) is not offered by "
                   f"the {st.name} stack: the plan keeps the scenario's value, but no run on "
                   "that software could use it.")
    if values.get("dtype") == "fp8" and not st.fp8:
        have = stacks_having(lambda s: s.fp8)
        out.append(f"dtype=fp8 but the {st.name} stack has no FP8 training: the step-time model "
                   "prices GEMMs at the FP8 peak all the same; set dtype: bf16, or a stack with "
                   f"FP8 ({', '.join(have)}).")
    split = [f"{k}={getattr(plan, k)}" for k in ("tp", "pp", "cp") if getattr(plan, k) > 1]
    if split and not st.model_parallel:
        out.append(f"{', '.join(split)}: the {st.name} stack has no tensor, pipeline or context "
                   "parallelism (data parallelism and ZeRO/FSDP only: data/stacks.csv "
                   "model_parallel): the plan keeps the scenario's value, but no run on that "
                   "software could use it.")
    return out


def budget_warning(total_usd: float, budget_usd) -> str | None:
    """The bill against ``ledger_budget_usd``: a sentence when the bill is over budget, else None.

        over = total_usd / budget_usd    (e.g. $1.20M against $300k: 4.0× the budget)

    Parameters
    ----------
    total_usd : float
        The whole bill (``Ledger.total_usd``).
    budget_usd : float or None
        The scenario's ``ledger_budget_usd``; None (no budget) gives None.
    """
    if budget_usd is None:
        return None
    for name, v in (("total_usd", total_usd), ("budget_usd", budget_usd)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not v == v or v < 0:
            raise ValueError(f"{name}={v!r} must be a non-negative number of USD")
    if budget_usd == 0:
        raise ValueError("budget_usd=0 must be positive (null: no budget)")
    if total_usd <= budget_usd:
        return None
    return (f"the bill, ${total_usd:,.0f}, is {total_usd / budget_usd:.1f}× the budget "
            f"(ledger_budget_usd ${budget_usd:,.0f}): over by ${total_usd - budget_usd:,.0f}; cut "
            f"the plan (tokens, exploration, price) or raise the budget (`--budget-usd "
            f"{budget_usd:.0f}` on `llmcost estimate` says how many tokens fit, for a bill with "
            "pre-training; a bill of post-training alone cuts its ledger_sft_tokens, rl_ keys "
            "or GPUs).")
