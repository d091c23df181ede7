# Text twin of notebooks/00_index.ipynb, written by `llmcost twins` (jupytext percent format).
# Edit the notebook, not this file; the twin exists so that a change reads as a diff.

# %% [markdown]
# # 00 · What does it cost to train this model?

# %%
import math

import matplotlib.pyplot as plt
import pandas as pd

import llmcost
from llmcost import ledger, plots
from llmcost.bill import published, validation
from llmcost.bill.checks import budget_warning
from llmcost.bill.pricing import server_cost_multiplier
from llmcost.core.units import fmt_period, fmt_quantity as qty  # 3 significant figures below 100
from llmcost.present.report import publish_summary, summary_row

# %% tags=["parameters"]
model: str = 'llama-2-70b'  # catalogue model name (llmcost.list_models())
accelerator: str = 'H100-SXM'  # catalogue accelerator name (llmcost.list_accelerators())
n_gpus: int = 2048  # accelerators in the training job
train_tokens: float = 2000000000000.0  # pre-training tokens
seq_len: int = 4096  # training sequence length in tokens
global_batch_tokens: int = 4194304  # tokens per optimizer step (the claim questions' batch)
mfu: float = 0.4  # steady-state model FLOPs utilisation in (0, 1]
dtype: str = 'bf16'  # training compute precision: bf16 or fp8
price_usd_per_gpu_hour: float = 3.99  # USD per GPU-hour; None: the catalogue median for `pricing`
pricing: str = 'on_demand'  # on_demand, reserved, spot or owned
mfu_band: str = None  # what a range on mfu is, set by a report: None, the scenario's own; 'predicted', the step-time model's band; 'pilot', the pilots' band
ckpt_recipe: str = 'bf16-adam'  # what a checkpoint saves, bytes per parameter (llmcost.reliability.CHECKPOINT_RECIPES)
ckpt_interval_s: float = None  # compute seconds between checkpoints
ckpt_async: bool = False  # asynchronous checkpoints (only the device-to-host snapshot blocks training)
ckpt_storage_bytes_per_s: float = None  # storage bandwidth, bytes/s; None: sized from the checkpoint plan
ckpt_node_bytes_per_s: float = 50000000000.0  # per-node bandwidth to storage, bytes/s
ckpt_d2h_bytes_per_s: float = 50000000000.0  # device-to-host copy bandwidth per GPU, bytes/s
ckpt_restart_s: float = 600.0  # seconds from a failure to training again, excluding reading the checkpoint (detection, node swap, relaunch, NCCL init, data loader)
ckpt_keep_last: int = 3  # checkpoints kept in the hot tier (0: keep every one)
ckpt_milestone_every_days: float = 7.0  # days between milestone checkpoints copied to the cold tier
ckpt_retention_months: float = 12.0  # months milestones are kept after the run
ckpt_hot_tier: str = 'fsx-lustre-ssd'  # hot storage tier (data/storage_prices.csv name)
ckpt_cold_tier: str = 's3-glacier-deep-archive'  # cold storage tier (data/storage_prices.csv name)
fail_rate_per_gpu_year: float = 0.173  # unexpected interruptions per GPU-year (> 0
fail_planned_per_day: float = 0.87  # planned interruptions of the job per day
phases: list = []  # extra training phases after the main run (context extension, annealing): a list of {name, tokens, seq_len, n_gpus?, mfu?}
ledger_pilot_tokens_per_s_per_gpu: float = None  # a pilot run's measured training tokens/s per GPU: the bill's MFU is calibrated from it
ledger_pilot_n_gpus: int = None  # GPUs the pilot of ledger_pilot_tokens_per_s_per_gpu ran on, with the scenario's plan; None: the run's n_gpus (a report extrapolates the pilot's MFU to the run before any notebook runs)
pilot: list = []  # pilot runs as {n_gpus, tokens_per_s_per_gpu, tp?, pp?, ...}: the bill's MFU is the step model calibrated on them and extrapolated to the plan (llmcost calibrate)
ledger_exploratory_fraction: float = None  # exploratory and failed runs as a fraction of the final run's compute
ledger_exploratory_runs: list = []  # exploratory and failed runs listed as {name, gpu_hours} (replaces the fraction when given)
ledger_sft_tokens: float = 0.0  # supervised fine-tuning tokens (0: not given)
ledger_cpt_tokens: float = 0.0  # continued pre-training tokens (0: not given)
ledger_lora_tokens: float = 0.0  # LoRA fine-tuning tokens (0: not given)
ledger_lora_rank: int = 16  # LoRA rank r of the attention adapters
ledger_published_defaults: bool = False  # price the data, annotation and evaluation lines the scenario leaves at 0 from published sources (data/ledger_defaults.csv: Llama 2's annotation counts, FineWeb's processing, HELM's suite); false: 0 and 'not given'
ledger_data_licensing_usd: float = 0.0  # data licensing, USD
ledger_data_processing_usd: float = 0.0  # data cleaning and deduplication compute, USD
ledger_synthetic_tokens: float = 0.0  # synthetic tokens generated
ledger_synthetic_usd_per_mtok: float = None  # USD per million generated tokens; None: priced as served tokens (llmcost.inference)
ledger_synthetic_model: str = None  # catalogue model that generates the synthetic data; None: the scenario's model
ledger_annotation_samples: float = 0.0  # human-annotated samples (labels, preference pairs)
ledger_annotation_usd_per_sample: float = 0.0  # USD per annotated sample (expert rates run far higher than crowd rates)
ledger_eval_gpu_hours: float = 0.0  # GPU-hours of benchmark runs (given: overrides ledger_eval_requests)
ledger_eval_requests: float = 0.0  # benchmark requests (items × runs × samples), priced as served tokens
ledger_rl: bool = None  # bill the RL campaign of the rl_ keys; None: when the scenario gives rl_iterations or rl_runs
ledger_human_eval_hours: float = 0.0  # hours of human evaluation and red-teaming
ledger_human_eval_usd_per_hour: float = 0.0  # USD per hour of human evaluation
ledger_dataset_bytes: float = None  # bytes of one dataset version
ledger_dataset_versions: int = 1  # dataset versions kept
ledger_dataset_tier: str = 's3-standard'  # storage tier of datasets and logs (data/storage_prices.csv)
ledger_log_bytes: float = 0.0  # bytes of logs, metrics and traces kept
ledger_dataset_retention_months: float = 12.0  # months datasets and logs are kept after the project
ledger_egress_bytes: float = 0.0  # bytes sent to the internet (weights, datasets)
ledger_cross_region_bytes: float = 0.0  # bytes moved between regions
ledger_pue: float = None  # data-centre PUE
ledger_grid_kg_co2e_per_kwh: float = None  # grid carbon intensity, kg CO2e/kWh
ledger_electricity_usd_per_kwh: float = None  # electricity price (owned hardware)
ledger_owned_usd_per_gpu: float = None  # purchase price of one accelerator (pricing: owned)
ledger_spot_preemptions_per_node_day: float = None  # spot pre-emptions per node per day (pricing: spot)
ledger_spot_restart_s: float = None  # seconds to regain spot capacity and restart
ledger_resumable: bool = True  # training resumes from checkpoints (false: a failure or a planned stop restarts the run from scratch)
ledger_people: list = []  # people as {role, fte, months?, usd_per_year?} (months: the project's
ledger_contributors: float = None  # ledger_contributors
ledger_operations_usd_per_month: float = 0.0  # operations (cluster ops, monitoring, support), USD per month
ledger_project_months: float = None  # project duration for people, operations and storage
ledger_rerun_probability: float = 0.0  # probability the final run must be relaunched (reserve)
ledger_reserve_fraction: float = 0.0  # contingency reserve as a fraction of the other lines, in [0, 1]
ledger_budget_usd: float = None  # the budget alerts watch
serve_weight_dtype: str = "bf16"  # serving weight precision: bf16, fp16, fp8, int8, int4, nvfp4, mxfp4 (FP4: Blackwell's FP4 tensor cores, weights only elsewhere)
serve_kv_dtype: str = "bf16"  # KV-cache precision: bf16, fp16, fp8
serve_tp: int = 0  # GPUs per serving replica; 0: the cheapest per token
serve_batch: int = 0  # sequences per replica; 0: the largest that fits in HBM
serve_occupancy: float = 0.9  # mean busy share of the batch slots (continuous batching)
serve_max_tpot_s: float = None  # latency target, s per output token; None: none
inference_prompt_tokens: int = 1000  # input tokens per request
inference_output_tokens: int = 250  # output tokens per request
rl_algorithm: str = "grpo"  # grpo, ppo or dpo
rl_reward: str = "verifier"  # verifier (rule-based) or reward_model (the policy's size)
rl_prompts_per_step: int = 32  # prompts per iteration
rl_samples_per_prompt: int = 16  # responses per prompt (GRPO's G)
rl_prompt_tokens: int = 512  # prompt tokens
rl_response_tokens: int = 1024  # mean response tokens
rl_response_tokens_max: int = 3584  # longest response (generation limit)
rl_ppo_epochs: int = 1  # passes over each batch per iteration
rl_gpus: int = 64  # GPUs of the RL job
rl_rollout_gpus: int = 0  # GPUs of a separate rollout engine; 0: colocated
rl_rollout_tp: int = 4  # tensor-parallel GPUs per rollout replica
rl_rollout_weight_dtype: str = None  # the RL rollouts' weight precision; None: serve_weight_dtype's
rl_async: bool = False  # asynchronous RL (needs rl_rollout_gpus > 0)
rl_partial_rollouts: bool = False  # unfinished responses continue next step (APRIL)
rl_weight_sync_s: float = None  # weight sync seconds; None: from link bandwidth
rl_train_mfu: float = None  # MFU of scoring and update passes; None: the step-time model's
rl_verifier_usd_per_sample: float = 0.0  # verifier cost per sample, USD
rl_iterations: int = 1000  # iterations per run
rl_runs: int = 5  # runs in the campaign (ablations, reruns)
rl_time_factor: float = None  # measured ÷ predicted RL iteration time; None: published median
rl_framework: str = "generic"  # RL framework release whose defaults the iteration takes
stack: str = "megatron-core-2024"  # software-stack profile the RL update is priced on (data/stacks.csv, llmcost.stacks)
etp: int = 0  # tensor-parallel size of the routed experts in the RL update plan; 0: tp (the Megatron-Core default); 1: MoE parallel folding
efficiency_profile: str = None  # kernel fractions measured on your own GPU (llmcost calibrate --microbench --out FILE); None: the catalogue's
comm_scaleout_bytes_per_s: float = None  # scale-out bytes/s per GPU per direction; None: the catalogue's
interactive: bool = True  # widgets on (reading) or off (report runs)

# %%
scenario = llmcost.notebook_parameters(globals(), ranged=True)  # ranges kept: the bill draws them
p = llmcost.point_scenario(scenario)  # points: a range's midpoint, mode or median
spec, gpu = llmcost.load_model(p["model"]), llmcost.load_accelerator(p["accelerator"])
bill = validation.validate_scenario(scenario, check_plan=False, check_setups=False)  # checked bill
table = bill.table()

# %%
from IPython.display import Markdown, display

from llmcost.present import answers, glance

head = ledger.headline_draws(bill.scenario)  # 100,000 draws, seed 0: the report's index too
g, bars, tor = glance.glance_summary(head)  # the bars of the figure below, its final run
display(Markdown(answers.bill(spec.name, gpu.name, p["n_gpus"], p["train_tokens"], g)))

# %% [markdown]
# The GPU bill of the final training run is the number everyone quotes, and it is only part of the
# cost. Before that run come exploratory and failed runs; around it, data, storage, network,
# energy, people and operations; after it, post-training and evaluation; and a budget holds a
# reserve for the rerun nobody plans. This page is the **whole bill** for one scenario, line by
# line, each line computed by `llmcost.ledger.build_ledger` from the scenario's values or from a
# sourced default (`data/ledger_defaults.csv`), or shown as 0 and **not given** when the scenario
# says nothing and no honest default exists. The other notebooks explain the lines; the
# contents table at the end links them.
#
# **You will be able to**
# * build the bill of a training project from a scenario and say which lines dominate and why;
# * follow the seven budgeting steps: goal and scale → total compute → GPU-hours at a calibrated
#   MFU → storage, network and energy → a reserve → calibration from a pilot → budget alerts;
# * tell a fixed cost from an elastic one, and a rented GPU-hour from an owned, amortised one;
# * question any "trained on N GPUs for D days" claim.
#
# **Conventions (one for every notebook).** Compute is model FLOPs on the workbook's MFU basis
# (the detailed count with the full attention matrix, `llmcost.compute`), divided by the dense
# peak × MFU: *ideal* GPU-hours; divided by goodput (notebook 07): *paid* GPU-hours. Every
# notebook of a report uses the same MFU (the scenario's `mfu`; with `mfu: predict` the report
# replaces it, before any notebook runs, by the central estimate of the step-time model's
# prediction: the prediction ÷ (1 + the median error of the held-out published runs of its regime),
# kept inside the prediction's band, and says both figures). USD are
# undiscounted; GB = 10⁹ bytes.

# %% [markdown]
# ## The bill at a glance
#
# Every line, its category and phase, whether it is **fixed** (paid whatever happens: storage
# capacity, people, reserved or owned GPUs) or **elastic** (scales with the GPU-hours actually
# used; every line run on the bill's GPU-hours, from pre-training to fine-tuning, RL and benchmark
# runs, is of its capacity's kind: fixed when reserved or owned, elastic on demand or spot:
# `ledger.compute_kind`), its share, and how it was computed. `status` says where the amount comes from:
# *modelled* (scenario values), *default* (a sourced default), *not given* (0: the scenario gives
# nothing), *included* (inside another line's price), *not modelled* (no amount yet). The last
# column links the notebook that explains the line; `llmcost.ledger` holds every formula.

# %%
# NBVAL_CHECK_OUTPUT
f = bill.figures
print(f"{spec.name} on {p['n_gpus']:,} × {gpu.name}: the whole bill is "
      f"{llmcost.fmt_usd(bill.total_usd)}; the final run is {llmcost.fmt_usd(f['final_run_usd'])}"
      f" ({f['final_run_usd'] / bill.total_usd:.0%})")
print(f"MFU {f['mfu']:.1%} ({f['mfu_source']}); ${f['price_usd_per_gpu_hour']:.2f}/GPU-h "
      f"{f['pricing']}; fixed {llmcost.fmt_usd(bill.summary()['bill.fixed_usd'])}, elastic "
      f"{llmcost.fmt_usd(bill.summary()['bill.elastic_usd'])}")
rl_line = bill.line("post.rl")
unbilled = "; its job's failures not added" if "failures of the RL job not added" in rl_line.how else ""
print(f"RL post-training: {ledger.format_usd(rl_line.usd)} ({rl_line.status}{unbilled}); lines "
      "not modelled: "
      + (", ".join(ln.line for ln in bill.lines if ln.status == "not modelled") or "none"))

# %% [markdown]
# ### The bill as a picture: where does the money go, and how sure is each line?
#
# Each line of the bill as a bar at its point estimate, with a whisker from its P10 to its P90 (lines below 0.5% of the bill are merged; their whisker is that of their sum), the whole bill last; beside it, the tornado of the section *How sure is the bill?* below: which unknown moves the bill most. Each range is the scenario's own, the step-time model's band on a predicted MFU (`mfu: predict`), the pilots' band on a calibrated one, or, on an input the scenario gives as one number, a sourced spread where a source gives one; the answer above names which, and that section explains them (`llmcost.ledger.headline_draws`, `ledger.bill_bars`, `LedgerDraws.tornado`; the figure's foot says the same in words).

# %%
title = f"{spec.name}, {llmcost.fmt_count(p['train_tokens'])} tokens, {p['n_gpus']:,} × {gpu.name}"
plots.bill_at_a_glance(bars, tor, title=title, illustrative=head.illustrative,
                       basis=head.basis);

# %%
links = [f'<a href="{n}.ipynb">{n[:2]}</a>' if n and n != "00_index" else "here"
         for n in table["notebook"]]
shown = table.assign(explained=links)[["line", "usd", "share", "status", "category", "phase",
                                       "kind", "how", "explained"]]  # USD second: seen on a phone
plots.table(shown, {"usd": "${:,.0f}", "share": "{:.1%}"})

# %%
plots.bill_waterfall(table);

# %% [markdown]
# ## How sure is the bill? Ranges, P10 / P50 / P90 and what drives the spread
#
# Nobody knows the MFU, the price or the exploration overhead to three digits, so a scenario may
# give any continuous cost input as a **range** (`llmcost.scenario`, "Ranges"): `[low, high]` is
# uniform, `{low, mode, high}` triangular, `{dist: two_piece, low, mode, high}` two half-triangles
# of half the draws each (its mode its median too), `{dist: lognormal, p10, p90}` lognormal for
# inputs that span orders of magnitude. The bill above is priced at the ranges' **points** (midpoint,
# mode or median), and so is every other notebook. Here `llmcost.ledger.simulate_ledger` draws
# every ranged input 100,000 times and prices the whole bill once per draw, with the same
# arithmetic broadcast over the draws. The draws of an input depend only on the seed and the
# input's name (*common random numbers*), so two scenarios that range the same input can be
# compared draw by draw. A `mfu: predict` scenario carries the step-time model's error band as a
# two-piece triangular range on `mfu` (half the draws on each side of its peak), peaked at the
# bill's MFU, the band's central estimate, so that MFU is the draws' median too. The band is a 90%
# interval of the model's errors on held-out published runs (5% of them fall below it, 5% above),
# so the half-triangles reach beyond it and the band's ends are the draws' P5 and P95
# (`montecarlo.band_drawn`; a given number's band, `ledger.given_mfu_range`, is drawn so too); a
# band whose top
# is capped where no comparable published run has measured more is drawn whole and cut at the cap
# (draws above it taken at it), and where the central estimate is above the cap the bill's MFU
# is the cap, the draws' median too (the bill's MFU line says which). The lines add up to the total in every draw; their **P10 / P50 / P90
# do not add up** (each line's P90 comes from different draws).
#
# **The rule of this page's range** (`ledger.headline_draws`, the same in the report's index,
# `summary.json` and `llmcost estimate`): three inputs move every bill (the MFU, the price, the
# exploratory compute; with an RL campaign a fourth, its iteration time, drawn over the RL model's
# published-run error, `rl_time_factor`), and each is ranged wherever a source gives a spread. Each gets the scenario's own range when it gives one (for `mfu: predict`, the model's band on its
# prediction); otherwise a sourced **illustrative** spread around the value the scenario gives
# (`ledger.illustrative_ranges`): the MFU over the step-time model's held-out error band for runs
# like this one; the price over the **interquartile** spread (P25–P75) of the current catalogue
# prices for the accelerator and pricing mode (at least two of them), not cheapest to dearest (one outlying provider would set the
# conclusion); the exploratory fraction as Cottier et al. 2024 draw it: development compute a
# **log-normal** multiple of the final run, 1.2–4× as its 90% interval, the fraction beyond
# the final run cut to the input's 0–10 (a `shifted_lognormal` range, `llmcost.ranges`), so its
# P10–P90 is wider than the 90% interval's ends would be as a triangle's. The illustrative
# spreads are illustrations, not a forecast. Which inputs are ranged here, from what, and which are not?

# %%
ranged = bool(head.draws.ranges)  # always, by the rule above
why, draws = head.sources, head.draws  # the draws of the picture above

# %%
# NBVAL_CHECK_OUTPUT
print(f"{len(draws.ranges)} input(s) ranged, from {head.basis}:")  # counted, not typed
for k, r in draws.ranges.items():
    print(f"  {k}: {r.describe()} ({why.get(k, '')})")
for k, reason in ledger.unranged_inputs(head.point, draws.ranges).items():
    print(f"  {k}: one number, not ranged ({reason})")
q = draws.percentiles()
print(f"whole bill: P10 {llmcost.fmt_usd(q['p10'])}, P50 {llmcost.fmt_usd(q['p50'])}, P90 "
      f"{llmcost.fmt_usd(q['p90'])} (point {llmcost.fmt_usd(draws.point.total_usd)}; "
      f"{draws.samples:,} draws, seed {draws.seed})")

# %%
s = draws.summary()
spread = s[(s["p90"] > s["p10"]) | (s.index == "total")]  # the lines a range reaches
display(plots.table(spread.reset_index()[["line", "point", "mean", "p10", "p50", "p90"]],
            {c: "${:,.0f}" for c in ("point", "mean", "p10", "p50", "p90")}))
print(s.attrs["note"])

# %% [markdown]
# The distribution of the whole bill: how far is the P90 from the point, and is it skewed?
# (A price or a fraction enters the bill linearly; an MFU enters as 1/MFU, which stretches the
# upper tail.)

# %%
plots.bill_distribution(draws);

# %% [markdown]
# **Which unknown to pin down first?** The tornado sets one input at its P10 and then at its P90,
# every other input at its point, and sorts the inputs by how far the bill moves: the top bar is
# the number most worth measuring (a pilot run for the MFU, a quote for the price).

# %%
tor = draws.tornado()
plots.tornado(tor);

# %%
# NBVAL_CHECK_OUTPUT
for r in tor.itertuples():
    print(f"{r.input}: bill {llmcost.fmt_usd(r.total_at_p10_usd)} at its P10 ({r.p10:.4g}), "
          f"{llmcost.fmt_usd(r.total_at_p90_usd)} at its P90 ({r.p90:.4g}): swing "
          f"{llmcost.fmt_usd(r.swing_usd)}")
if tor.attrs.get("note"):  # a ranged input that moves no total: said, not a silent gap
    print(tor.attrs["note"])

# %% [markdown]
# ## Step 1 · Set the goal and the scale
#
# The goal fixes the model and its training data; the scale fixes the cluster. Everything below
# follows from these four numbers (change them in the parameters cell, or in a scenario file):

# %%
# NBVAL_CHECK_OUTPUT
facts = {
    "model": f"{spec.name}: {spec.n_layers} layers, d_model {spec.d_model}, "
             f"{llmcost.fmt_count(spec.n_params)} parameters "
             f"({llmcost.fmt_count(spec.n_active_params)} active per token)",
    "training data": f"{llmcost.fmt_count(p['train_tokens'])} tokens of {p['seq_len']:,}-token "
                     f"sequences ({p['train_tokens'] / spec.n_active_params:,.0f} per parameter)",
    "extra phases": ", ".join(f"{ph['name']} ({llmcost.fmt_count(ph['tokens'])} tokens at "
                              f"{ph['seq_len']:,})" for ph in p["phases"]) or "none",
    "cluster": f"{p['n_gpus']:,} × {gpu.name} "
               f"({llmcost.fmt_flops_rate(gpu.peak_flops_per_s(p['dtype']))} dense {p['dtype']})",
}
for k, v in facts.items():
    print(f"{k:>14}: {v}")

# %% [markdown]
# ## Step 2 · Total compute: 6ND and the exact count
#
# Each training token costs a forward pass (2 FLOP per weight: one multiply-accumulate) and a
# backward pass twice as large (gradients with respect to activations and to weights), so
# **C ≈ 6·N·D** (Kaplan et al. 2020 §2.1). The exact count adds the attention core, which has no
# weights: 3 × 2·L·h·(d_qk + d_v)·s per token for a full s×s mask (PaLM, Chowdhery et al. 2022,
# App. B); with a causal mask a query attends to (s+1)/2 keys on average, what a causal
# FlashAttention kernel computes.
# `llmcost.training_flops` writes all three; the bill uses the full-mask count, the MFU basis
# (notebook 01 derives it).

# %%
# NBVAL_CHECK_OUTPUT
c6 = llmcost.training_flops(spec, p["train_tokens"])
cx, cc = (llmcost.training_flops(spec, p["train_tokens"], p["seq_len"], method="detailed",
                                 causal=causal) for causal in (False, True))
print(f"6ND: {c6:.3e} FLOP; exact (attention, full mask, the MFU basis): {cx:.3e} FLOP "
      f"({cx / c6 - 1:+.1%}); exact (attention, causal mask, what a causal kernel computes): "
      f"{cc:.3e} FLOP ({cc / c6 - 1:+.1%})")
print(f"all pre-training phases: {bill.figures['training_flops_mfu_basis']:.3e} FLOP on the "
      f"MFU basis, {bill.figures['training_flops_6nd']:.3e} FLOP by 6ND")

# %% [markdown]
# ## Step 3 · GPU-hours at a calibrated MFU
#
# **GPU-hours = C ÷ (dense peak × MFU) ÷ 3,600**, then ÷ goodput for the hours actually paid
# (failures, checkpoint stalls and restarts, notebook 07). MFU is the number to argue about: the
# bill uses the scenario's `mfu` everywhere (under `mfu: predict`, the prediction below). Notebook
# 04b shows the step-time model's *predicted* MFU for the scenario's parallel plan beside it; the
# two differ because the prediction is built from the plan's parts (each kernel at a fraction of the
# peak from kernel measurements and one fitted sustained share, exposed communication, the
# pipeline bubble, the slowest GPU's wait), while
# an assumed MFU is a judgement that also covers what the model leaves out (data loading, host
# stalls, a framework's own overheads). To bill at the prediction
# (at its band's central estimate, or at its upper end when that estimate is above the band's
# cap; the bill's MFU line states which, beside the raw prediction),
# write `mfu: predict` in the scenario; to bill at a measurement, see step 6. How much MFU is worth,
# at the ends of the range the bill's headline draws the MFU over (the scenario's own range, the
# step-time model's band under `mfu: predict`, the pilots' band; for a given number,
# `ledger.given_mfu_range`: the model's error on published runs like this one around the bill's
# MFU, its top capped at the best comparable published run; the model's bands are drawn beyond
# their 90% ends, which are the draws' P5 and P95):

# %%
# NBVAL_CHECK_OUTPUT
f = bill.figures
print(f"ideal {qty(f['ideal_gpu_hours'])} GPU-h; paid {qty(f['paid_gpu_hours'])} GPU-h "
      f"(goodput {f['goodput']:.2%}); {qty(f['run_wall_clock_days'])} days of wall clock"
      + (f" ({qty(f['wall_clock_days'])} the main run, then its phases)"
         if f["run_wall_clock_days"] > f["wall_clock_days"] * (1 + 1e-9) else ""))
band = head.draws.ranges.get("mfu") or ledger.given_mfu_range(bill)[0]  # the headline's
for m in sorted({*band.bounds, f["mfu"]}):   # phases' own MFUs moved with m, as in the draws
    b = ledger.at_mfu(bill, m)
    print(f"  at MFU {m:.1%} of the dense {p['dtype'].upper()} peak"
          + (" (the bill's)" if m == f["mfu"] else "") + ": final run "
          f"{llmcost.fmt_usd(b.figures['final_run_usd'])}, "
          f"bill {llmcost.fmt_usd(b.total_usd)}")

# %% [markdown]
# **Checked against a published run.** Llama 3.1 405B's model card reports 30.84M H100 GPU-hours
# for the whole pre-training run. The bill of `data/scenarios/llama-3.1-405b.yaml` (the published
# architecture, 15.6T tokens at Table 4's 41% MFU, Llama 3's failure rate) for its main 8K phase:

# %%
# NBVAL_CHECK_OUTPUT
sc405 = llmcost.load_scenario(llmcost.SCENARIO_DIR / "llama-3.1-405b.yaml")
b405 = ledger.build_ledger({**sc405, "phases": []})
h = b405.figures["paid_gpu_hours"]
print(f"Llama 3.1 405B, main phase: {h / 1e6:.2f}M paid GPU-hours (goodput "
      f"{b405.figures['goodput']:.1%}) vs 30.84M on the model card ({h / 30.84e6 - 1:+.1%}); "
      "the card also covers the long-context stage")

# %% [markdown]
# ## Step 4 · Storage, network and energy
#
# **Storage** is priced per GB-month. Checkpoints (notebook 07) are a small capacity but a large
# *bandwidth*: a parallel file system sells throughput with capacity, so the hot tier is
# provisioned for the peak write bandwidth, not for the average bytes it holds. Datasets are
# `ledger_dataset_bytes` (default: 4 bytes per token) × versions × months. **Network** is egress
# and cross-region bytes × a cloud list price. **Energy** is
#
# &nbsp;&nbsp;&nbsp;&nbsp;**E = GPU-hours × TDP × (server W ÷ TDP) × (average draw ÷ rated power) × PUE**
#
# with Cottier et al. 2024's terms (§2.3: the host's CPUs, memory, NICs and fans per accelerator;
# the average draw during training as a share of the rated power; the data centre's overhead;
# `ledger.energy_terms`), and emissions = E × grid intensity (default: the US average, EIA). A
# rented GPU-hour already includes its electricity, so the energy line is \$0 unless the hardware
# is owned. **Conventions differ:** Meta's model cards count the GPU's TDP alone; the bill counts
# the server, the average draw and the PUE (`ledger.energy_of` gives both). For this scenario's
# accelerator:

# %%
# NBVAL_CHECK_OUTPUT
t = ledger.energy_terms(gpu, p["ledger_pue"]) if gpu.tdp_w == gpu.tdp_w and gpu.tdp_w else None
h100 = ledger.energy_terms("H100-SXM")  # the Llama 3.1 cards' GPUs, compared below
display(Markdown(
    f"{gpu.name}: {t['tdp_w']:,.0f} W × {t['server_per_tdp']:.2f} (server W ÷ TDP) × "
    f"{t['draw']:.2f} (average draw ÷ rated power) × PUE {t['pue']:.2f} = "
    f"{t['kw_per_gpu']:.2f} kW per GPU: the bill counts {t['factor']:.2f}× the TDP-only energy "
    "for the same GPU-hours." if t else
    f"{gpu.name} has no sourced TDP (data/accelerators.csv): the bill has no energy figure."))
display(Markdown(
    "Below, this scenario's storage, network and electricity lines; then the Llama 3.1 cards, "
    f"which ran on H100s ({h100['factor']:.2f}× the TDP-only energy): divided by that factor, "
    "the bill's line for the cards' GPU-hours against their published emissions:"))

# %%
# NBVAL_CHECK_OUTPUT
import textwrap  # shortened at a word; the bill's table above holds each line's full text

for key in ("storage.checkpoints", "storage.datasets", "network.egress", "energy.electricity"):
    ln = bill.line(key)
    how = textwrap.shorten(ln.how, 80, placeholder=" …")
    print(f"{ln.line:>32}: {ledger.format_usd(ln.usd):>8} ({ln.status}) {how}")
for name, hours, t_card in (("8B", 1.46e6, 420), ("70B", 7.0e6, 2040), ("405B", 30.84e6, 8930)):
    e = ledger.energy_of(hours, "H100-SXM")  # the bill's energy line for the card's GPU-hours
    print(f"Llama 3.1 {name}: bill {e['mwh']:,.0f} MWh, {e['tco2e']:,.0f} t; on the card's basis "
          f"{e['mwh_tdp']:,.0f} MWh, {e['tco2e'] / e['factor']:,.0f} t vs {t_card:,} t published "
          f"({e['tco2e'] / e['factor'] / t_card - 1:+.1%})")

# %%
# NBVAL_CHECK_OUTPUT
e = ledger.energy_of(30.84e6, "H100-SXM")  # Llama 3.1 405B's card: 30.84M GPU-h, 8,930 t
gap = e["tco2e"] / e["factor"] / 8930 - 1
year = ledger.default_rows()["grid_kg_co2e_per_kwh"]["date"]  # EIA's year
display(Markdown(
    f"On the card's basis the bill is {abs(gap):.0%} {'below' if gap < 0 else 'above'} the "
    f"405B's published tonnes: the bill's grid is the US average ({e['kg_co2e_per_kwh']:.3f} "
    f"kg/kWh, EIA {year}), the card's the grids of Meta's data centres (8,930 t ÷ "
    f"{e['mwh_tdp']:,.0f} MWh = {8930 / e['mwh_tdp']:.3f}). On its own basis the bill's energy "
    f"is {e['factor']:.2f}× the card's for the same GPU-hours, and its tonnes "
    f"{e['tco2e'] / 8930:.2f}×: the host servers, the average draw and the PUE, not the GPU's "
    "TDP alone."))

# %% [markdown]
# ## Step 5 · A reserve for hidden costs
#
# Three lines hold the money nobody plans to spend. **Exploratory and failed runs**: Cottier et al.
# 2024 (§2.5) estimate total development compute at 1.2× to 4× the final run (90% interval, from
# GPT-3, OPT-175B and BLOOM); the default is the median, 2.19×, an extra 1.19 final runs. That
# multiplier covers "experiments, failed attempts, evaluation and finetuning" together, so the
# bill nets its own post-training and benchmark lines out of it (a fraction you give in
# `ledger_exploratory_fraction` is netted the same way). **A
# rerun**: the expected cost of relaunching the final run (`ledger_rerun_probability` × its cost;
# OPT-175B's first lineage was abandoned and relaunched), a failed attempt the multiplier counts
# too, so where the exploratory compute is a fraction the rerun is netted out of it as well and
# moves money rather than adding it. **Contingency**: a fraction of
# everything else (`ledger_reserve_fraction`). Across the cited range:

# %%
# NBVAL_CHECK_OUTPUT
ex = bill.line("compute.exploratory")
print(f"exploratory and failed runs: {ledger.format_usd(ex.usd)} ({ex.status})")
instead = " in place of the scenario's listed runs" if p["ledger_exploratory_runs"] else ""
for frac in (0.2, 1.19, 3.0):
    b = ledger.with_changes(bill, ledger_exploratory_fraction=frac)
    print(f"  at {frac:.2f} × the final run{instead}: bill {llmcost.fmt_usd(b.total_usd)}")
b = ledger.with_changes(bill, ledger_rerun_probability=0.25, ledger_reserve_fraction=0.1)
moved = ex.usd - b.line("compute.exploratory").usd   # the rerun netted out of exploration
print(f"with a 25% rerun risk and a 10% contingency: reserves "
      f"{llmcost.fmt_usd(b.usd('reserve.'))}, bill {llmcost.fmt_usd(b.total_usd)}"
      + (f" ({llmcost.fmt_usd(moved)} of the rerun moved out of the exploratory line)"
         if moved > 0 else ""))

# %% [markdown]
# ## Step 6 · Calibrate from a small pilot run
#
# An assumed MFU is a guess; a pilot run on a few nodes with the real code measures it. Enter its
# throughput (tokens/s per GPU) as `ledger_pilot_tokens_per_s_per_gpu`: MFU = tokens/s per GPU ×
# FLOPs per token ÷ peak (`llmcost.mfu_from_throughput`, PaLM App. B), and the bill re-estimates
# with it. A pilot on fewer GPUs measures less communication than the full job, so its MFU is an
# upper bound for the full scale. Below, a pilot is taken to measure 10% less throughput than
# the bill's MFU implies (a what-if, not a measurement; notebook 04b's illustrative pilot is
# another: a published run's error carried to this plan), unless the scenario gives one. When the
# bill's MFU is a range (the scenario's own, the step-time model's band under `mfu: predict`, or the
# pilots' band), the pilot's measurement **replaces** the range (`ledger.with_changes`): the
# calibrated bill has one MFU, the pilot's, and the line below names the MFU it replaces (the
# range's point, and what kind of range it is: `answers.pilot_calibration`).

# %%
# NBVAL_CHECK_OUTPUT
at_mfu = llmcost.tokens_per_s_per_gpu_at_mfu(p["mfu"], spec, gpu, p["seq_len"], p["dtype"])
pilot = p["ledger_pilot_tokens_per_s_per_gpu"] or 0.9 * at_mfu
cal = ledger.with_changes(bill, ledger_pilot_tokens_per_s_per_gpu=pilot)
print(("" if p["ledger_pilot_tokens_per_s_per_gpu"] else "what-if pilot, 10% below the bill: ")
      + answers.pilot_calibration(pilot, cal.figures["mfu"], p["mfu"], head.kinds.get("mfu")))
print(f"re-estimated final run {llmcost.fmt_usd(cal.figures['final_run_usd'])} "
      f"(was {llmcost.fmt_usd(bill.figures['final_run_usd'])}); bill "
      f"{llmcost.fmt_usd(cal.total_usd)}")

# %% [markdown]
# ## Step 7 · Budget lines, tags and alerts
#
# Give every line of the bill a budget tag (its `key`: `compute.pretraining.main`,
# `storage.checkpoints`, ...) so that the cloud bill can be read against it, and set alerts at
# fixed shares of the budget. The expected spend accrues as the work runs: exploration first on
# the same cluster, then the final run, then post-training; fixed lines evenly over the project.
# Where capacity is provisioned for the peak (reserved or owned GPUs, a file system sized for
# checkpoint bandwidth), spend follows the calendar, not the work. When should each alert fire?

# %%
tl = ledger.spend_timeline(bill, p["ledger_budget_usd"])
plots.spend_vs_budget(tl);

# %%
# NBVAL_CHECK_OUTPUT
months = bill.figures["project_months"]   # what the people, storage and operations lines pay
print(f"budget {llmcost.fmt_usd(tl.attrs['budget_usd'])} over {tl['day'].iloc[-1]:,.1f} days; "
      f"the compute schedule takes {tl.attrs['schedule_days']:,.1f} days (exploration, the final run, "
      f"post-training); {answers.paid_months_words(months, p['ledger_people'])}: "
      + bill.figures["project_months_source"])
hint = answers.schedule_months_hint(tl.attrs["schedule_days"], months,
                                    p["ledger_project_months"] is not None)
print(hint or "the schedule fits within the months those lines pay")
for t, day in tl.attrs["alerts"].items():
    print(f"  {t:.0%} alert: " + (f"day {day:,.1f}" if day is not None else "never fires"))
over = budget_warning(bill.total_usd, p["ledger_budget_usd"])
print(("warning: " + over) if over else "no ledger_budget_usd: the alerts watch the bill's own "
      "total" if p["ledger_budget_usd"] is None else
      f"the bill is {bill.total_usd / p['ledger_budget_usd']:.0%} of ledger_budget_usd")

# %% [markdown]
# An alert that fires before its expected day is the signal: more GPU-hours than planned
# (lower MFU, more failures) or more exploration. An alert that never fires means the budget
# holds reserve that was not needed.
#
# ## Pre-training against post-training: two cost structures
#
# Pre-training is one long, elastic compute job whose price is GPU-hours. Post-training is many
# short jobs whose price is as much people and data as compute: SFT runs a few billion tokens at
# the full 6·N per token; RL loops generation and training (notebook 05, next section);
# annotation and human evaluation are paid per sample and per hour. **LoRA** (Hu et al. 2021)
# freezes the weights and trains low-rank adapters B·A of rank r. The backward pass of a frozen
# matmul still computes the gradient with respect to its input (2 FLOP per weight) but not with
# respect to its weights, so
#
# &nbsp;&nbsp;&nbsp;&nbsp;**F_LoRA = 4·N + 3·F_core + 6·N_A** per token (instead of 6·N + 3·F_core),
#
# with N_A = Σ r·(d_in + d_out) over the adapted matrices (`ledger.lora_flops_per_token`); the
# optimizer keeps state for the N_A adapter parameters only, which is what makes LoRA fit on few
# GPUs. Hu et al. measure a 25% speed-up on GPT-3 175B, less than GPT-3's own FLOP ratio of about 1.5× (6·N ÷ 4·N; this model's share is printed below). The same
# model, with illustrative post-training quantities (not a published run's) on each line the
# scenario leaves at zero, and the scenario's own where it gives them
# (`ledger.post_training_illustration`):

# %%
post, illustrative, post_words = ledger.post_training_illustration(bill)
t = post.table().set_index("key")
final = [k for k in t.index if k.startswith("compute.pretraining.")] + ["compute.failures"]
rows = {"pre-training (final run)": final,  # its phases too, as the bill's "final run"
        "post-training compute": ["post.sft", "post.cpt", "post.lora", "post.rl"],
        "post-training people and data": ["data.annotation", "eval.human"]}
side = pd.DataFrame({k: {"USD": t.loc[v, "usd"].sum(min_count=1), "lines": ", ".join(t.loc[v, "line"])}
                     for k, v in rows.items()}).T
plots.table(side.reset_index(names="part"), {"USD": "${:,.0f}"})

# %%
# NBVAL_CHECK_OUTPUT
full = llmcost.model_flops_per_token(spec, p["seq_len"])
if spec.attention == "gqa":  # LoRA adapter counts are modelled for GQA/MHA attention
    lora = ledger.lora_flops_per_token(spec, p["ledger_lora_rank"], p["seq_len"])
    print(f"FLOPs per token: full training {full:.3g}, LoRA rank {p['ledger_lora_rank']} "
          f"{lora:.3g} ({lora / full:.1%}); adapters "
          f"{llmcost.fmt_count(ledger.lora_adapter_params(spec, p['ledger_lora_rank']))} parameters")
else:
    print(f"FLOPs per token: full training {full:.3g}; LoRA not modelled for {spec.attention}")
print(f"{post_words} (annotation: {post.line('data.annotation').how}; human evaluation: "
      f"{post.line('eval.human').how})")

# %% [markdown]
# ### RL post-training and served tokens
#
# **RL post-training** is notebook 05's campaign: `rl_runs` runs of `rl_iterations` iterations,
# each generating `rl_samples_per_prompt` responses for `rl_prompts_per_step` prompts (decode,
# timed with the serving roofline and its long tail), scoring them, updating the policy and
# syncing its weights (`llmcost.rl.scenario_campaign`, priced at the bill's GPU-hour). The bill
# carries it when the scenario describes a campaign (it gives `rl_iterations` or `rl_runs`, or sets
# `ledger_rl: true`); a scenario that describes none gets 0 and *not given*, not an invented
# campaign. Its time is centred on published runs, as the MFU is: the model's iteration time ×
# the median measured ÷ predicted time of published GRPO runs priced from a scenario's keys,
# unless the scenario gives its own `rl_time_factor` (`llmcost.rl.scenario_time_factor`; notebook
# 05 measures it). Its GPU-hours by part:

# %%
# NBVAL_CHECK_OUTPUT
rl_line = bill.line("post.rl")
print(f"{rl_line.line}: {ledger.format_usd(rl_line.usd)} ({rl_line.status})")
for part, h in bill.figures["rl_parts_gpu_hours"].items():
    words = ledger.RL_PART_WORDS.get(part, part)  # notebook 05 lists the finer parts
    print(f"  {words}: {h:,.0f} GPU-h ({h / bill.figures['rl_gpu_hours']:.1%})")
if bill.figures["rl_gpu_hours"]:
    print(f"  RL is {rl_line.usd / f['final_run_usd']:.2%} of the final run's cost "
          "(notebook 05 explains why its GPU-hours outgrow its FLOPs)")
    print("  its time: " + (llmcost.rl.time_factor_words(p) or "the model's own"))

# %% [markdown]
# **Synthetic data and benchmark runs** are served tokens. Given as counts without a price
# (`ledger_synthetic_tokens`, `ledger_eval_requests`), the bill prices them with
# `llmcost.inference.serving_cost` on the scenario's accelerator at its GPU-hour price, with the
# `serve_` set-up and the `inference_` request shape (P tokens in, R out): a benchmark request
# costs P × $/M in + R × $/M out; a synthetic token costs $/M out + P/R × $/M in (each generated
# token carries its share of the prompt's prefill). The generator is `ledger_synthetic_model`
# (default: the scenario's model; a larger teacher is common). The roofline is an **upper bound on
# throughput**, so its price is a **lower bound on cost**: the bill prices these lines at an
# engine's **expected** throughput (notebook 05's fit on published engine rows), with its band, and
# the cell prints the roofline bound beside it and the cost at the slowest engine of notebook 05's
# validation (the roofline × the widest measured gap, printed with the range). An explicit `ledger_synthetic_usd_per_mtok` or
# `ledger_eval_gpu_hours` overrides the derivation. With the scenario's counts, or illustrative
# ones (not a published run's) where it gives none:

# %%
# NBVAL_CHECK_OUTPUT
# the scenario's counts where it gives them, else illustrative ones (not a published run's)
shown = {"ledger_synthetic_tokens": 1e10, "ledger_eval_requests": 1e6}
counts = {k: p[k] or x for k, x in shown.items()}
served, aside = ledger.served_illustration(bill, counts)   # both lines as served tokens
lo, hi = ledger.engine_gap()
print(f"engines measured in notebook 05's validation: {lo:.1f}-{hi:.1f}x slower than the roofline"
      "; counts: " + ", ".join(f"{k} {v:,.0f} ({'the scenario' if p[k] else 'illustrative'})"
                               for k, v in counts.items()) + (f" ({aside})" if aside else ""))

# %%
# NBVAL_CHECK_OUTPUT
for key in ("data.synthetic", "eval.benchmarks"):
    ln = served.line(key)
    a = ledger.served_amounts(ln)   # each basis on its own: expected, roofline, slowest engine
    print(f"{ln.line}: {ledger.format_usd(a['expected_usd'])} expected on an engine (band "
          f"{ledger.format_usd(a['band_usd'][0])} to {ledger.format_usd(a['band_usd'][1])}); "
          f"{ledger.format_usd(a['roofline_usd'])} at the roofline (a lower bound), up to "
          f"{ledger.format_usd(a['slowest_engine_usd'])} at the slowest measured engine "
          f"({hi:.1f}x the roofline)")
print(served.line("data.synthetic").how.split(": ", 1)[1].split(". ")[0])

# %% [markdown]
# ## What the bill still guesses: data, annotation, evaluation and people
#
# Besides GPU time the bill has lines that no scenario prices by itself. With
# `ledger_published_defaults: true` (the Llama 3.1 405B scenario sets it) each takes a
# published figure, scaled by what drives it, and shows its source and range:
#
# * **annotation** = (preference comparisons + SFT demonstrations) × $ per item: Llama 2's
#   counts (Touvron et al. 2023, Table 6 and §3.1) × the one per-item human rate a paper
#   publishes (AlpacaEval's crowdworkers);
# * **processing** = training tokens × FineWeb's quality-classifier GPU-hours per token
#   (Penedo et al. 2024, §4) × the bill's GPU-hour price;
# * **benchmark runs** = one run of a HELM-scale suite (Liang et al. 2022: tokens per model),
#   priced as served tokens; **human evaluation** = Llama 2's prompts × 3 raters × the same rate;
# * **people** = the paper's contributors (`ledger_contributors`) × the mean of Epoch's FTE
#   per contributor (median 0.2, 90 % interval 0.05-0.8, Cottier et al. 2024's code) × project
#   months × the mean loaded cost: Epoch draws each contributor apart, and a sum over many
#   draws comes to the count × the means, not × the medians.
#
# Each is a lower bound and says why. Lines without a public source (licensing, synthetic
# data, a headcount without a contributor count) stay "not given" and name the sources
# searched. This scenario's lines,
# with the published defaults switched on:

# %%
pub = ledger.with_changes(bill, ledger_published_defaults=True)
rows = [ln for ln in pub.lines if ln.category in ("data", "evaluation", "people")]
plots.table(pd.DataFrame({"line": [ln.line for ln in rows],
                          "status": [ln.status for ln in rows],
                          "USD": [ln.usd for ln in rows],
                          "how (source and range)": [ln.how for ln in rows]}),
            formats={"USD": "{:,.0f}"})

# %% [markdown]
# A data licence is priced per deal, so the workbook gives no default; the deals made public,
# dated, with the sums as reported (`data/data_licensing_deals.csv`):

# %%
deals = published.licensing_deals()
plots.table(deals[["licensor", "licensee", "date", "usd", "years", "usd_per_year", "basis"]],
            formats={"usd": "{:,.0f}", "usd_per_year": "{:,.0f}"})

# %% [markdown]
# ## Epoch's decomposition: where does this bill fall, and why?
#
# Cottier et al. 2024 (arXiv:2405.21015) costed the development of four frontier models
# (GPT-3, OPT-175B, GPT-4, Gemini Ultra) on an amortised basis: hardware 47-64 %, R&D staff
# 29-49 %, energy 2-6 %. At `pricing: owned` the bill amortises hardware the same way
# (`ledger.owned_usd_per_gpu_hour`), so its three components can be put beside theirs
# (`published.epoch_decomposition`):

# %%
can_own = gpu.name == "H100-SXM" or p["ledger_owned_usd_per_gpu"] is not None
owned = ledger.with_changes(bill, pricing="owned", price_usd_per_gpu_hour=None) \
    if can_own else None
dec = published.epoch_decomposition(owned) if can_own else None
if can_own:
    plots.epoch_shares(dec)
else:
    print(f"{gpu.name}: no sourced purchase price; give ledger_owned_usd_per_gpu to compare")

# %%
# NBVAL_CHECK_OUTPUT
if can_own:
    d = dec.set_index("component")
    for c, r in d.iterrows():
        print(f"{c}: {llmcost.fmt_usd(r.usd)} = {r.share:.1%} of the three "
              f"(Epoch: {r.epoch_low:.0%}-{r.epoch_high:.0%})")
    hw_en, fte_usd = d.loc["hardware", "usd"] + d.loc["energy", "usd"], ledger.default(
        "staff_usd_per_fte_year_mean")  # the people line's rate: the mean loaded cost
    fte = [s / (1 - s) * hw_en / fte_usd for s in (0.29, 0.49)]
    print(f"staff inside Epoch's range would be {qty(fte[0])}-{qty(fte[1])} FTE-years "
          f"at {llmcost.fmt_usd(fte_usd)} per FTE-year (the mean, as the people line)")

# %% [markdown]
# **Why the bill differs** (where the comparison above is printed: an accelerator with a sourced purchase price, or `ledger_owned_usd_per_gpu`). Energy is computed with Epoch's own power model (TDP × server
# overhead × average draw × PUE, each a default of `data/ledger_defaults.csv`), so it lands
# in or near their range. Staff is the line the bill cannot default without a team: no paper
# publishes FTE-months by role, so it is `ledger_people`, or a paper's contributor count ×
# Epoch's FTE fraction, or zero; and a scenario without `ledger_project_months` pays people
# for the compute schedule only (exploration, the run, post-training one after the other: step
# 7), where Epoch counts the months from the project's start to publication, unless it takes
# the published defaults (`ledger_published_defaults`): then the project lasts the median of
# Epoch's case studies (`project_months_published` in `data/ledger_defaults.csv`), or that
# schedule, if longer. The FTE-years printed above are the team Epoch's shares imply for this much
# hardware. The bill's hardware also counts every GPU-hour it prices (exploration,
# post-training, benchmark runs), as Epoch's amortised hardware includes their exploration
# multiplier.

# %% [markdown]
# ## The cost of hardware over time
#
# **Acquisition or amortised?** Buying the cluster costs its price; a run is charged only the
# value it uses up. Epoch's method, the basis of `pricing: owned`: the cluster (accelerator ×
# the server multiplier ÷ (1 − the interconnect's share)) is charged r · ln 10 of its start
# value per year of use, r the rate at which price-performance improves (orders of magnitude a
# year); over a whole year the value itself falls by less, 1 − 10^−r
# (`published.acquisition_vs_amortised`; the figures, from `data/ledger_defaults.csv`, printed
# below):

# %%
# NBVAL_CHECK_OUTPUT
r_oom = ledger.default("depreciation_ooms_per_year")
print(f"{gpu.name}: server × {server_cost_multiplier(gpu):g} ÷ (1 − "
      f"{ledger.default('interconnect_share'):g}) interconnect; charged {r_oom:g} · ln 10 = "
      f"{r_oom * math.log(10):.0%} of the start value per year of use, while the value falls "
      f"1 − 10^−{r_oom:g} = {1 - 10 ** -r_oom:.0%} over a whole year")
if can_own:
    a = published.acquisition_vs_amortised(owned)
    print(f"buying {llmcost.fmt_gpus(p['n_gpus'])} as a cluster: {llmcost.fmt_usd(a['acquisition_usd'])} "
          f"({llmcost.fmt_usd(a['cluster_usd_per_gpu'])} per GPU); the bill's amortised "
          f"hardware: {llmcost.fmt_usd(a['amortised_usd'])}, {a['ratio']:.1f}× less")

# %% [markdown]
# **Dated prices per generation** (`data/hardware_price_series.csv`): list prices and the
# first on-demand GPU-hour of the V100, A100 and H100, with their dense peak FLOP/s per dollar.

# %%
series = published.hardware_price_series()
plots.table(series[["accelerator", "kind", "date", "usd", "peak_dense_flops_per_s",
                    "flops_per_usd", "precision"]],
            formats={"usd": "{:,.2f}", "peak_dense_flops_per_s": "{:.3g}",
                     "flops_per_usd": "{:.3g}"})

# %%
# NBVAL_CHECK_OUTPUT
for kind in ("purchase", "rent_on_demand"):
    t = published.price_performance_trend(kind)
    print(f"{kind}: FLOP/s per $ grows {t['ooms_per_year']:.3f} OOM/year (generation steps "
          f"{t['low']:.3f}-{t['high']:.3f}); a FLOP halves in price every "
          f"{t['halving_years']:.1f} years")
print(f"Epoch AI (Cottier et al. 2024 §2.2): {ledger.default('depreciation_ooms_per_year')} "
      "OOM/year for ML GPUs")

# %% [markdown]
# **What will this run cost next year?** The bill's GPU-hour lines re-priced on the fitted
# price trend of its pricing (rented hours on the first on-demand listings', owned ones on
# purchase prices), the band from the slowest to the fastest generation step, Epoch's
# rate dashed (MFU and FLOPs unchanged; the other lines held fixed):

# %%
fc = published.repriced_forecast(bill, years=(0, 1, 2, 3))
plots.hardware_price_performance(series, fc);

# %%
# NBVAL_CHECK_OUTPUT
r1 = fc.set_index("years").loc[1]
trend = {"purchase": "purchase-price", "rent_on_demand": "on-demand rent"}[fc.attrs["kind"]]
print(f"next year, on the {trend} trend: GPU-hour lines {llmcost.fmt_usd(r1.gpu_usd_trend)} "
      f"(range {llmcost.fmt_usd(r1.gpu_usd_low)}-{llmcost.fmt_usd(r1.gpu_usd_high)}), whole "
      f"bill {llmcost.fmt_usd(r1.total_usd_trend)} against {llmcost.fmt_usd(bill.total_usd)} "
      "today")

# %%
# NBVAL_CHECK_OUTPUT
gen = llmcost.catalog.next_generation(p["accelerator"], p["dtype"])  # later year, faster
if gen is None:
    print(f"next generation: none in the catalogue after {p['accelerator']} (no later, faster "
          "accelerator of its vendor)")
else:
    try:  # the next generation at the same MFU (notebook 09 predicts each GPU's own)
        nxt = ledger.with_changes(bill, accelerator=gen.name, price_usd_per_gpu_hour=None)
        print(f"on {gen.name}, the next generation, at the same MFU, {bill.figures['mfu']:.1%} "
              "(notebook 09's hardware table prices each GPU at its own predicted MFU; "
              f"${nxt.figures['price_usd_per_gpu_hour']:.2f}/GPU-h, "
              f"{llmcost.catalog.price_mode_words(gen.name, nxt.figures['pricing'])}): "
              f"{llmcost.fmt_usd(nxt.total_usd)}")
    except ValueError as e:
        print(f"on {gen.name}: not priced here ({e})")

# %% [markdown]
# ## Questions to ask of any "trained on N GPUs for D days" claim
#
# A claim of that form fixes GPU-hours and nothing else. Each question below is answered for this
# scenario from its bill:

# %%
plots.table(ledger.claim_questions(bill, p))  # p: the batch the bill does not read

# %% [markdown]
# ## Headline figures
#
# The figures this notebook contributes to a report (`summary.json` also carries the whole bill
# under `bill`, with the schema version, package version, git commit and catalogue dates):

# %%
f, line = bill.figures, bill.line
rows = [summary_row("bill_total_usd", "the whole bill", bill.total_usd, "USD", "every line"),
        summary_row("final_run_usd", "final pre-training run", f["final_run_usd"], "USD",
                    "paid GPU-hours × price"),
        summary_row("exploratory_usd", "exploratory and failed runs",
                    line("compute.exploratory").usd, "USD", ledger.exploratory_note(bill)),
        summary_row("rl_usd", "RL post-training", line("post.rl").usd, "USD",
                    line("post.rl").status),
        summary_row("bill_mfu", "MFU of the bill", f["mfu"], "", f["mfu_source"]),
        summary_row("paid_gpu_hours", "paid GPU-hours (main run and phases)", f["paid_gpu_hours"],
                    "GPU-h", "ideal / goodput")]

# %%
# NBVAL_CHECK_OUTPUT
publish_summary("00_index", rows + [
    summary_row("energy_mwh", "energy, all compute", f["energy_mwh"], "MWh",
                "facility power" if f["energy_mwh"] is not None else "not computed: no tdp_w"),
    summary_row("tco2e", "emissions (location-based)", f["tco2e"], "tCO2e",
                f"{f['grid_kg_co2e_per_kwh']} kg/kWh" if f["tco2e"] is not None
                else "not computed: the accelerator has no tdp_w"),
] + [summary_row(f"bill_{k}_usd", f"the whole bill, {k.upper()}", q[k], "USD",
                 f"Monte Carlo of {head.basis}") for k in ("p10", "p50", "p90") if ranged])

# %% [markdown]
# ## Takeaways
#
# * The final run is often less than half of the bill: exploratory and failed runs alone are 0.2
#   to 3 final runs, and R&D staff were 29-49% of the development cost of the frontier models
#   Cottier et al. 2024 costed (GPT-3, OPT-175B, GPT-4, Gemini Ultra).
# * GPU-hours, not FLOPs, are what is paid: MFU and goodput each move the bill as much as the
#   price does, and one MFU must hold across every notebook of a report.
# * A rented GPU-hour includes energy, cooling and depreciation; an owned one is amortised
#   (about a third of the cluster's start value charged per year of use, the figure above) plus
#   electricity.
# * Storage and network are small lines unless the storage is provisioned for peak bandwidth.
# * Annotation, data processing, evaluation and people have published anchors (Llama 2's
#   comparisons, FineWeb's classifier pass, HELM's suite, a paper's contributor list × Epoch's
#   FTE fraction), each a lower bound; a data licence is priced per deal and has no default.
# * Hardware gets cheaper per FLOP every year (Epoch's rate for ML GPUs and this workbook's
#   slower V100-H100 series are printed above), at a rate that varies by generation: the same
#   run re-priced next year, or on the next generation, is a range, not a number.
# * A budget without a reserve assumes no rerun; the alerts say when reality departs from plan.
#
# ## Exercises
#
# 1. Set `pricing = "owned"` and `price_usd_per_gpu_hour = None` (in a scenario file:
#    `pricing: owned`, `price_usd_per_gpu_hour: null`; a scenario already owned: `pricing =
#    "on_demand"`). Which lines change, and why does the energy line gain or lose its amount?
# 2. Add a long-context phase scaled from Llama 3's (about 800B after its 15.6T tokens, ending at
#    131,072 tokens, §3.4.2; MFU 38 % there against 41 % at 8,192 tokens on the same GPUs,
#    Table 4): `phases = [{"name": "long-context", "tokens": ..., "seq_len": ..., "mfu": ...}]`
#    with that share of this scenario's tokens, at 131,072 tokens or the model's declared context
#    where shorter (a model that declares none is extended to it: the bill warns), and the bill's
#    MFU × 38/41. How much does it add, and why more per token than the main run?
# 3. With `ledger_people = [{"role": "research", "fte": 50, "months": 12}]`, how does the final
#    run's share of the bill change?
# 4. A pilot measures 10% less throughput than the scenario's MFU implies
#    (`llmcost.tokens_per_s_per_gpu_at_mfu` gives that throughput): set it as
#    `ledger_pilot_tokens_per_s_per_gpu`. What MFU and bill does it give, and why do the compute lines grow by 1/0.9?
# 5. Set `ledger_resumable = False`. How long does the run take on a quarter of the GPUs, on
#    the same and on four times as many, and why do more GPUs not rescue it?
#

# %% [markdown]
# ### Worked answers
#
# Each answer is computed for this scenario; change the parameters and they follow.
#
# **1. Owned pricing.** Which lines change?

# %%
# NBVAL_CHECK_OUTPUT
other = owned if p["pricing"] != "owned" else ledger.with_changes(   # owned: the reverse
    bill, pricing="on_demand", price_usd_per_gpu_hour=None)
if other is not None:
    before = {ln.key: ln for ln in bill.lines}
    for ln in other.lines:
        if ledger.format_usd(ln.usd) != ledger.format_usd(before[ln.key].usd):  # as shown
            print(f"{ln.line}: {ledger.format_usd(before[ln.key].usd)} → "
                  f"{ledger.format_usd(ln.usd)} ({ln.status})")
else:
    print(f"{gpu.name}: no sourced purchase price (give ledger_owned_usd_per_gpu)")

# %% [markdown]
# With a purchase price to amortise (the lines printed above; without one nothing can be priced), every GPU-hour line changes: an owned GPU-hour is the amortised hardware alone (Cottier et
# al. 2024 §2.2), and the electricity a rented price includes becomes its own line (the
# reverse for a scenario already owned), priced
# at the facility power of `ledger.facility_kw_per_gpu`. Reserves follow the lines they
# are a share of.
#
# **2. A long-context phase.** What does it add, and why more per token?

# %%
# NBVAL_CHECK_OUTPUT
from llmcost.bill.exercises import long_context_exercise

lc = long_context_exercise(bill, spec)  # Llama 3's phase scaled to this scenario (docstring)
print(lc.describe())  # replacing the scenario's own long-context phase where it has one

# %% [markdown]
# Attention's score and value matmuls grow with the sequence length, so each token costs more
# FLOPs, and at a lower MFU (Llama 3's Table 4: 38 % with CP 16 against 41 % at 8,192 tokens);
# exploration and the reserves scale with the larger final run. A model whose declared context is
# no longer than the run's sequences gets no phase: it would need a context extension first.
#
# **3. Fifty researchers for a year.**

# %%
# NBVAL_CHECK_OUTPUT
staffed = ledger.with_changes(bill, ledger_people=[{"role": "research", "fte": 50,
                                                    "months": 12}])
for name, b in (("the scenario's staff", bill), ("50 FTE instead", staffed)):
    print(f"{name}: final run {b.figures['final_run_usd'] / b.total_usd:.1%} of "
          f"{llmcost.fmt_usd(b.total_usd)}; people {ledger.format_usd(b.line('people.staff').usd)}")

# %% [markdown]
# **4. A pilot 10% slower than the scenario's MFU.**

# %%
# NBVAL_CHECK_OUTPUT
tps = 0.9 * float(llmcost.tokens_per_s_per_gpu_at_mfu(bill.figures["mfu"], spec, gpu,
                                                      p["seq_len"], p["dtype"]))
piloted = ledger.with_changes(bill, ledger_pilot_tokens_per_s_per_gpu=tps)
print(f"{tps:,.0f} tokens/s per GPU → MFU {piloted.figures['mfu']:.3f}; bill "
      f"{llmcost.fmt_usd(piloted.total_usd)} against {llmcost.fmt_usd(bill.total_usd)}")

# %% [markdown]
# Tokens/s per GPU × FLOPs per token ÷ dense peak is the MFU, so 10% less throughput is 10%
# less MFU, and the main run's GPU-hour lines (the run, its failures) grow by 1/0.9, 11%
# (exploration with them, less what it nets out; a phase that gives its own MFU keeps it): a pilot replaces the guess with a measurement on the same FLOP count.
#
# **5. Not resumable** (`ledger_resumable: false`: no restart from a checkpoint, planned stops included). Why do more GPUs not rescue it?

# %%
# NBVAL_CHECK_OUTPUT
for n in sorted({max(1, p["n_gpus"] // 4), p["n_gpus"], p["n_gpus"] * 4}):
    try:
        dp = {"dp": max(1, p["dp"] * n // p["n_gpus"])} if p.get("dp") else {}  # a fixed dp
        b = ledger.with_changes(bill, ledger_resumable=False, n_gpus=n, **dp)
        g, days = b.figures["goodput"], b.figures["wall_clock_days"]
        when = (f"{days / 365.25:,.0f} years: in practice never" if days > 3650 else
                fmt_period(days, "days"))   # a 2,100-year job is not a schedule
        print(f"{llmcost.fmt_gpus(n)}: goodput {g:.1%}" if g >= 0.001 else
              f"{llmcost.fmt_gpus(n)}: goodput {g * 100:.2g}%", when, sep=", ")
    except ValueError as e:
        print(textwrap.fill(f"{llmcost.fmt_gpus(n)}: {e}", 100, subsequent_indent="    "))  # whole, wrapped

# %% [markdown]
# Without checkpoints every interruption restarts the job from scratch, a failure (MTBF m) or a
# planned stop (`fail_planned_per_day`, p a day: Llama 3 had 47 besides its 419 unexpected
# interruptions in 54 days) alike. At λ = 1/m + p interruptions per unit time a job of t expects
# a wall clock of (e^(λt) − 1)/λ plus restarts (`reliability.expected_wall_time_s` at
# `reliability.interruption_mtbf_s`). The failures' share of λt, t/m = GPU-hours × failures per
# GPU-hour, does not depend on the GPU count; the planned stops' share, p·t, falls as more GPUs
# shorten the job, so adding GPUs helps, but only that far. What stops the run finishing is the
# size of the *job*: past a few interruptions' worth of work, e^(λt) explodes (the bill refuses
# a job expected to take a million times its length).

# %% [markdown]
# ## Explore
#
# Change the GPUs, MFU, price, pricing mode, exploratory fraction, reserve and staff; the bill
# follows. (In a report these widgets are off; run the notebook in Jupyter to use them.)

# %%
if interactive:
    from llmcost.present.widgets import ledger_explorer

    display(ledger_explorer(p))

# %% [markdown]
# ## Contents
#
# Where each line of the bill is explained, and the rest of the workbook, in reading order:
#
# | # | notebook | the question it answers | lines of the bill |
# |---|---|---|---|
# | 00 | this page | What does it cost to train this model? | the whole bill, reserves, people, data |
# | 01 | [FLOPs and compute cost](01_flops.ipynb) | How many FLOPs does a training run take, and what do they cost? | pre-training compute, SFT, continued pre-training |
# | 02 | [Batch size](02_batch_size.ipynb) | How big should the batch be? | (the steps and GPUs behind compute) |
# | 03 | [Parallelism and memory](03_parallelism.ipynb) | Why can't we just add GPUs? | (the plan behind the MFU) |
# | 04 | [Communication](04_communication.ipynb) | Where does the time go when GPUs wait? | (the collectives behind the step time) |
# | 04b | [Step time and the fastest plan](04b_step_time.ipynb) | How long does a training step take, and which plan is fastest? | the predicted MFU (`mfu: predict`) |
# | 05 | [Serving and the RL loop](05_rl_loop.ipynb) | What does a generated token cost, and why is RL post-training hard to budget? | RL post-training; the price of synthetic data and benchmark runs (served tokens) |
# | 06 | [Compute-optimal scaling and inference](06_chinchilla.ipynb) | Train bigger or train longer? | the choice of model and tokens, training plus serving |
# | 07 | [Checkpoints and failures](07_checkpoints.ipynb) | What does it cost when training doesn't finish? | failures and restarts, checkpoint storage, spot pricing |
# | 08 | [Published runs and claims](08_published_runs.ipynb) | How close are these estimates to real training runs? | the error table against published runs; `llmcost check` on DeepSeek-V3's $5.576M |
# | 09 | [Savings levers and false economies](09_savings.ipynb) | Which savings are real, and which only look like it? | every line: levers priced on the whole bill, waste, the cheapest hardware, attribution |
# | 10 | [Glossary](10_glossary.ipynb) | What does this term mean, and what is it called in Chinese? | every term the notebooks use, with its formula, notebook and function |
#
# Where the numbers come from: `data/*.csv` (one row per item, each with a `source` column),
# `data/ledger_defaults.csv` (every default of the bill with its source and range),
# `llmcost/` (every formula's docstring names its source) and `data/scenarios/*.yaml`
# (`llama-3.1-405b.yaml` is the published run). `llmcost estimate --scenario FILE` prints this
# bill in a terminal; `llmcost report --scenario FILE` runs every notebook. Start with
# [01 · FLOPs and compute cost](01_flops.ipynb).
