# Text twin of notebooks/09_savings.ipynb, written by `llmcost twins` (jupytext percent format).
# Edit the notebook, not this file; the twin exists so that a change reads as a diff.

# %% [markdown]
# # 09 · Which savings are real, and which only look like it?
#
# [← 00 · Index](00_index.ipynb) · previous: [08 · How close are these estimates to real training runs?](08_published_runs.ipynb) · next: [10 · What does each term mean, and what is it called in Chinese?](10_glossary.ipynb)

# %% tags=["parameters"]
model: str = 'llama-2-70b'  # catalogue model name (llmcost.list_models())
accelerator: str = 'H100-SXM'  # catalogue accelerator name (llmcost.list_accelerators())
n_gpus: int = 2048  # accelerators in the training job
train_tokens: float = 2000000000000.0  # pre-training tokens
seq_len: int = 4096  # training sequence length in tokens
mfu: float = 0.4  # steady-state model FLOPs utilisation in (0, 1]
mfu_band: str = None  # what a range on mfu is, set by a report: None, the scenario's own; 'predicted', the step-time model's band; 'pilot', the pilots' band
dtype: str = 'bf16'  # training compute precision: bf16 or fp8
price_usd_per_gpu_hour: float = 3.99  # USD per GPU-hour; None: the catalogue median for `pricing`
pricing: str = 'on_demand'  # on_demand, reserved, spot or owned
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
ledger_pilot_n_gpus: int = None  # the GPU count the pilot of ledger_pilot_tokens_per_s_per_gpu ran the scenario's plan on: its MFU is extrapolated to n_gpus with a band (llmcost calibrate); None: the pilot ran the plan at n_gpus
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
inference_tokens_lifetime: float = 1.0e13  # tokens served over the model's lifetime
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
global_batch_tokens: int = 4194304  # tokens per optimizer step (1,024 sequences of 4,096)
tp: int = 0  # tensor-parallel size; 0: chosen
pp: int = 0  # pipeline-parallel stages; 0: chosen
dp: int = 0  # data-parallel size; 0: derived as n_gpus / (tp·pp·cp), or chosen
cp: int = 1  # context-parallel size; 0: chosen
ep: int = 0  # expert-parallel size, carved out of dp·cp (tp·dp·cp with etp 1); 0: chosen
etp: int = 0  # tensor-parallel size of the routed experts; 0: tp (the Megatron-Core default); 1: MoE parallel folding
zero_stage: int = -1  # ZeRO stage over the dp·cp group, 3 is FSDP; -1: chosen
recompute: str = "auto"  # activation recomputation: none, selective, full or auto
micro_batch_size: int = 0  # sequences per micro-batch; 0: chosen
optimizer_recipe: str = None  # precision recipe (llmcost.memory.RECIPES); None: by dtype, stack
fp8_recipe: str = "current"  # FP8 scaling under dtype fp8: current, delayed, mxfp8 (Blackwell) or blockwise
pp_schedule: str = "auto"  # pipeline schedule: 1f1b, interleaved, gpipe, zb-h1 or auto
pp_virtual_stages: int = 0  # model chunks per pipeline stage (interleaved schedule); 0: chosen
pp_split: str = "auto"  # layer placement: auto, even, embedding_and_loss or uneven
fsdp_shard_size: str = "full"  # HSDP under ZeRO-3: full (whole dp·cp group), auto, or shard ranks
mem_reserve_fraction: float = 0.1  # fraction of HBM held back for buffers and fragmentation
stack: str = "megatron-core-2024"  # software-stack profile (data/stacks.csv, llmcost.stacks)
comm_tp_overlap: str = "auto"  # TP collectives overlapping GEMMs: none, backward, all; auto: the stack's
comm_pp_overlap: str = "auto"  # pipeline sends overlap compute: True, False; auto: the stack's
comm_dp_overlap: str = "auto"  # DP reduction and ZeRO gathers overlap compute: True, False; auto: the stack's
fsdp_backward_prefetch: str = "auto"  # ZeRO-3 on PyTorch FSDP: pre or post (BACKWARD_PRE/POST); auto: the stack's
comm_scaleout_bytes_per_s: float = None  # scale-out bytes/s per GPU per direction; None: the catalogue's
comm_scaleout_latency_s: float = None  # scale-out ring-step latency, s; None: data/efficiency.csv
waste_dataloader_stall_fraction: float = 0.0  # share of each step GPUs wait on the data pipeline, in [0, 1); 0: none given
waste_failed_job_gpu_hours: float = 0.0  # GPU-hours failed jobs held their allocation without computing; 0: none given
waste_debug_gpu_hours: float = 0.0  # GPU-hours of forgotten debug and interactive jobs (hours × GPUs); 0: none given
waste_dataset_copies: int = 0  # duplicate copies of the dataset beside ledger_dataset_versions; 0: none given
efficiency_profile: str = None  # kernel fractions measured on your own GPU (llmcost calibrate --microbench --out FILE); None: the catalogue's
interactive: bool = True  # widgets on (reading) or off (report runs)

# %%
import textwrap  # long reasons and sources are wrapped, never cut
import matplotlib.pyplot as plt
import pandas as pd

import llmcost
from llmcost import ledger, levers, plots
from llmcost.bill import validation
from llmcost.present.report import publish_summary, summary_row

scenario = llmcost.notebook_parameters(globals(), ranged=True)  # ranges kept: per-draw savings
p = llmcost.point_scenario(scenario)  # point values (a range's mode), for the text
validation.validate_scenario(scenario, check_plan=False, check_setups=False)  # bill builds, lines >= 0
bill = levers.bill(scenario)  # the ledger's bill plus the scenario's waste lines
sweep = levers.hardware_sweep(scenario)  # every accelerator at its predicted MFU (section 4)
ranked = levers.rank_levers(scenario, sweep=sweep)  # every lever on this bill, largest first

# %%
from IPython.display import Markdown

from llmcost.present import answers

display(Markdown(answers.savings(bill.total_usd, levers.top_levers(ranked), p["pricing"])))   # section 1

# %% [markdown]
# Teams that govern training cost ask one question over and over: *if we do X, how much do we
# save, and what do we risk?* This notebook answers it with the same model that priced the run.
# Every lever is a function from the scenario to a changed scenario (`llmcost.levers`), and both
# are priced by the whole bill of notebook 00 (`llmcost.ledger`), so a saving is never a number
# from another spreadsheet: it is the bill before minus the bill after, line by line.
#
# **You will be able to**
# * rank the changes that save the most on *this* bill, and say what each one risks;
# * tell waste (money that buys nothing) from utilisation (money that buys FLOPs slowly) from
#   false economies (savings that the whole ledger turns into losses);
# * compute a break-even probability by hand: the risk at which a saving stops paying;
# * work backwards from a budget or a deadline to GPUs, tokens and model size;
# * attribute a portfolio's spend to teams and phases, and price a point of benchmark improvement.
#
# **Conventions.** Bills are `llmcost.ledger.build_ledger`'s (MFU basis, dense peak, paid
# GPU-hours = ideal ÷ goodput), plus the waste lines of `llmcost.levers.bill`. A saving is
# bill(before) − bill(after); with ranges in the scenario it is that difference **per Monte
# Carlo draw on the same draws** (common random numbers), summarised as P10 / P50 / P90, never as
# a difference of percentiles. A lever that changes what the hardware can do (precision, plan,
# recomputation, accelerator) scales the scenario's MFU by the step-time model's ratio
# (notebook 04b), so a measured MFU keeps its calibration; a pilot's calibration (`pilot:`) is
# its own accelerator's, and another accelerator is priced at its predicted MFU, uncalibrated.

# %% [markdown]
# ## 1. Every lever on one bill
#
# For a lever $\ell$ that turns scenario $s$ into $\ell(s)$, with $B(\cdot)$ the whole bill,
#
# $$S_\ell = B(s) - B(\ell(s)), \qquad \text{share}_\ell = \frac{S_\ell}{B(s)},$$
#
# and in GPU-hours and days the same difference of the bill's figures. With ranged inputs the bill
# is a vector of draws $B_i$, and the saving is summarised from the per-draw differences
# $S_{\ell,i} = B_i(s) - B_i(\ell(s))$ (`levers.saving_summary`). Because both bills use the same
# draws of each input, the uncertainty they share cancels: a change that saves 1,000 GPU-hours at a
# fixed price saves exactly that in every draw, however uncertain the MFU. A lever whose P10–P90
# interval contains zero is flagged in the column *may save nothing*: it may save nothing at all.
# Each lever is priced alone against the scenario's bill, so the savings do not add: two levers
# that act on the same GPU-hours (a higher MFU and fewer GPUs, say) share most of their saving.
#
# **A fixed plan.** When the scenario fixes its parallel plan, every lever keeps it where it
# still runs and re-chooses only what the change forces: DP when the GPU count changes, the
# whole plan on hardware it does not fit (and the lever says so: `levers.kept_plan`). What the
# plan itself costs is one lever, *the fastest ranked parallel plan*: its saving is this bill
# minus the bill of the same scenario with its plan left free, and no other lever contains it.
# When the GPU count itself forces a pipeline (data parallelism divides the global batch in
# sequences, so on $n$ GPUs $dp \le \gcd(n, \text{batch})$), no plan on these GPUs escapes it: the
# lever *a GPU count without a pipeline* (`levers.pipeline_free_gpus`) prices the one of the
# counts the bill's pipeline warning names whose whole bill is lowest.

# %%
usd = llmcost.levers.format_saving  # "$1,234", "−$1,234" or "never finishes"
cols = ["lever", "group", "saving_usd", "saving_p10_usd", "saving_p90_usd", "share_of_bill",
        "days_saved", "within_uncertainty", "risk", "note"]
shown = levers.mark_outside(ranked[cols])   # "*": a point outside its own P10–P90
display(plots.table(shown, {"saving_usd": usd, "saving_p10_usd": usd, "saving_p90_usd": usd,
                            "share_of_bill": "{:.1%}", "days_saved": plots.signed_tenths},
                    words=plots.COLUMN_WORDS))
if shown.attrs["note"]:
    print(shown.attrs["note"])

# %%
# NBVAL_CHECK_OUTPUT
top = levers.top_levers(ranked)
print(f"bill {llmcost.fmt_usd(bill.total_usd)}: {llmcost.load_model(p['model']).name} on {p['n_gpus']:,} × "
      f"{p['accelerator']}, {bill.figures['wall_clock_days']:.1f} days of main run")
print("ranges: " + ("per-draw P10-P90 shown" if levers.has_ranges(scenario) else
                    "none in the scenario, so each saving is a point (P10 = P50 = P90; the "
                    "illustrative spreads of notebook 00's range are not drawn here)"))
if top.empty:
    print(top.attrs["note"])
for i, r in enumerate(top.itertuples(), 1):
    print(f"{i}. {r.lever}: saves {llmcost.fmt_usd(r.saving_usd)} ({r.share_of_bill:.1%}); "
          f"risk: {r.risk}" + (f"; it {r.beyond_line}" if r.beyond_line else ""))

# %%
plots.lever_savings(ranked);

# %% [markdown]
# **Takeaway.** The ranking is this scenario's, not a rule of thumb: a lever whose note says
# "already" or "none given" saves nothing here because the scenario already does it or gives no
# figure for it, not because it never matters. Levers that lengthen the run or make it fail more
# often show up as negative savings. A lever that shortens the final run also shrinks the lines
# priced as multiples of it (exploratory compute, `ledger_exploratory_fraction` × the final run;
# the reserves), so its saving can exceed the line it acts on: its note then says so, and how much
# comes through each line (`levers.beyond_line_words`). The next sections explain the three groups.

# %% [markdown]
# ## 2. Kill waste first
#
# Waste buys nothing: GPUs idle on a stalled data loader, failed jobs that keep their nodes,
# debug jobs nobody stopped, duplicate copies of a dataset, checkpoints never cleaned. Each is a
# scenario input (`waste_` keys, 0 unless given) priced by `levers.bill`:
#
# $$\text{MFU}_\text{bill} = \text{MFU}\,(1 - s_\text{stall}), \qquad
#   \text{USD}_\text{idle} = H_\text{idle} \times p_\text{GPU-h},$$
#
# so fixing a stall of share $s$ saves $H\,s/(1-s)$ of the MFU-priced GPU-hours $H$: every line
# priced at the run's MFU, the final run's paid GPU-hours and the exploratory runs priced as a
# fraction of them, not the main run's ideal hours alone; the table's shares are of the audited
# bill, the scenario's with the illustrative waste added. Removing waste
# risks almost nothing, which is why it comes first. When the scenario gives no waste figures, the
# table below prices an **illustrative audit** (assumed numbers, not measurements): a 5% loader
# stall, failed jobs holding 2% of the main run's GPU-hours, a debug job on an eighth of the run's
# GPUs (at least 1, at most 64) left for three days, two duplicate dataset copies and every
# checkpoint kept hot.

# %%
illustrative = {"waste_dataloader_stall_fraction": 0.05, "waste_dataset_copies": 2,
                "waste_failed_job_gpu_hours": 0.02 * bill.figures["main_ideal_gpu_hours"],
                "waste_debug_gpu_hours": min(64, max(1, p["n_gpus"] // 8)) * 72.0, "ckpt_keep_last": 0}
given = any(p[k] for k in levers.WASTE_KEYS)
audit = scenario if given else {**scenario, **illustrative}
waste = levers.rank_levers(audit, keys=[k for k, v in levers.LEVERS.items() if v[1] == "waste"])
print("waste figures:", "the scenario's" if given else "illustrative (assumed, not measured)")
plots.table(waste[["lever", "saving_usd", "share_of_bill", "gpu_hours_saved", "assumptions",
                   "note"]], {"saving_usd": usd, "share_of_bill": "{:.2%}",
                              "gpu_hours_saved": "{:,.0f}"}, words=plots.COLUMN_WORDS)

# %% [markdown]
# Cleaning checkpoints saves little on a parallel file system sold by throughput (FSx for Lustre
# provisions capacity for bandwidth, notebook 07: only the bytes past what that bandwidth already
# buys), and more on a tier sold by the byte
# (every checkpoint kept grows to run ÷ interval of them): the ledger knows which. **Takeaway.** Waste is priced at the full GPU-hour rate and removing it
# risks nothing; audit it before touching anything that changes how training runs.

# %% [markdown]
# ## 3. Raise utilisation second
#
# GPU-hours are $H = F / (P \cdot \text{MFU} \cdot g)$ for $F$ model FLOPs on a peak $P$ with
# goodput $g$, so $\partial H / H = -\partial \text{MFU} / \text{MFU}$: ten points of MFU at 40% are
# a fifth of the compute bill ($H \times 0.4/0.5$; the first-order slope would say a quarter). Three levers change the MFU: reaching the best published MFU on
# this hardware (`levers.raise_mfu`, the target from `accuracy.best_published_mfu`, called "the
# best published" only when a published run of this run's regime exists, `levers.mfu_target`;
# otherwise the lever's name says the target comes from other kinds of runs), FP8 training
# (`levers.fp8_training`: twice the peak, but only the GEMMs run at it, and on one plan never
# faster than the largest published FP8 ÷ BF16 speed-up of one plan of a model of its size,
# `accuracy.fp8_speedup_bound`, a plan FP8 alone fits adding its own gain) and activation
# recomputation, which trades FLOPs for memory. Priced both ways with the memory and step-time
# models (`levers.activation_recompute`): recomputing on the same GPUs costs FLOPs for nothing;
# on half the GPUs it lets a plan fit that otherwise would not, at the price of a longer run.

# %%
rows, half = [], p["n_gpus"] // 2
cases = [(f"{rc}, half the GPUs", rc, half) for rc in ("none", "selective", "full")] if half else []
if not half:  # one GPU cannot be halved
    rows.append({"recompute": "half the GPUs", "note": "skipped: the scenario runs on 1 GPU, "
                 "which cannot be halved"})
for label, rc, n in cases + [("full, the same GPUs", "full", p["n_gpus"])]:
    try:
        r = levers.price_lever("rc", label, "utilisation", scenario,
                               levers.activation_recompute(scenario, rc, n), before_bill=bill)
        rows.append({"recompute": label, "saving_usd": r.saving_usd, "days_saved": r.days_saved,
                     "plan": r.assumptions, "note": r.note})
    except llmcost.ScenarioError as e:
        rows.append({"recompute": label, "note": f"does not fit or cannot run: {e}"})
plots.table(pd.DataFrame(rows), {"saving_usd": usd, "days_saved": plots.signed_tenths},
            words=plots.COLUMN_WORDS)

# %% [markdown]
# **Takeaway.** Utilisation levers are real savings but cost engineering time and carry risk (a
# new precision can destabilise training, section 6); the step-time model gives their size, the
# MFU band of notebook 04b how far to trust it.

# %% [markdown]
# ## 4. The cheapest hardware for this run
#
# Each catalogue accelerator with the figures the step-time model needs and a catalogue price for
# this pricing mode (`levers.hardware_sweep`), at the **central estimate of its predicted MFU**
# (`mfu`: the prediction `predicted_mfu` ÷ (1 + the median held-out error of that hardware's
# regime, shrunk toward 0 where the regime has few runs), kept inside its band, the figure a `mfu: predict` bill uses, so that every row and the
# scenario's own bill are priced on one rule) with the plan re-chosen for that hardware (a plan
# the scenario fixes is kept where it fits there, column *parallel plan*; and the
# RL rollout TP, `rollout_tp`, where the scenario's cannot hold the policy there:
# `levers.on_hardware`; hardware on which no plan fits is left out, and said), priced by the bill
# at the catalogue median price for this pricing mode, or at its on-demand median where that mode's
# median lies above it (a reservation or spot price is a discount on on-demand: `catalog.discount_price_cap`;
# column *price basis* says which), so a row without a true discount is not compared at one it lacks. When the scenario gives its own price, its
# accelerator appears twice (column *price basis*): at the catalogue price, to compare with the others, and
# at the scenario's price, which is this bill's. The error bar is the bill at the
# ends of the predicted MFU's band (`accuracy.band_for_step`: the regime's conformal band, or its stated default),
# $B(\text{MFU}_\text{high}) \le B \le B(\text{MFU}_\text{low})$. GB200 NVL72 puts 72 GPUs in
# one NVLink domain (`data/accelerators.csv`, NVIDIA's rack figures ÷ 72; CoreWeave's \$42/h per
# 4-GPU tray). The column *bill at the scenario's MFU × the predicted ratio* scales the scenario's own MFU by the predicted ratio instead,
# $\text{MFU}_\text{cal} = \text{MFU}_\text{scenario} \times \text{MFU}_\text{central}(hw) /
# \text{MFU}_\text{central}(\text{own})$, each side the central estimate of its prediction (one rule
# on both sides; what the "move to" lever in section 1 uses), except when pilot runs set the scenario's MFU:
# a pilot measures its own accelerator, so another's is the central estimate of its predicted MFU,
# uncalibrated, and the pilots' own hardware is billed at their calibrated MFU (*predicted MFU*
# stays the raw prediction; *basis of the sweep's MFU* says which MFU a row bills, *basis of the
# calibrated MFU* where its calibrated MFU comes from).
#
# A row is **ranked as a saving** (*rankable*) only if two checks pass. *Its price can be bought*:
# `price_source` names each catalogue row behind the median, with its provider and date, and a
# row the provider listed as not available when it was collected (`available` in
# `data/prices.csv`; DigitalOcean's MI300X droplet) makes *price buyable* "no". *Its MFU has
# been seen*: the calibrated MFU must not exceed the best published MFU on that hardware
# generation for a model of this size (*best comparable published MFU*, `accuracy.best_published_mfu`); above it, or
# with no published run to compare (*MFU check* says "unverified": GB200, B200, MI300X and TPUs
# for most sizes), the step-time model's ratio is an extrapolation, shown but not counted as a
# saving. The "move to" lever of section 1 is the cheapest rankable row, and it may well be a loss.

# %%
drop = ["plan", "price_source", "band_low", "band_high"]
drop += [] if levers.fixed_plan_keys(scenario) else ["plan_basis"]  # a free plan: the search's
plots.table(sweep.drop(columns=drop), {
    "calibrated_mfu": "{:.1%}", "mfu_ceiling": "{:.1%}",
    "predicted_mfu": "{:.1%}", "mfu": "{:.1%}", "band_low": "{:.1%}", "band_high": "{:.1%}",
    "price_usd_per_gpu_hour": "${:.2f}", "bill_usd": usd, "bill_low_usd": usd,
    "bill_high_usd": usd, "bill_calibrated_usd": usd, "days": "{:.1f}"}, words=plots.COLUMN_WORDS)

# %%
plots.hardware_bills(sweep);

# %%
# NBVAL_CHECK_OUTPUT
wrap = lambda text: textwrap.fill(text, 100, subsequent_indent="    ")  # wrapped, never cut
# the cheapest row on one price basis, this scenario's own rows, the cheapest rankable one
print(answers.hardware_sweep(sweep))

# %%
# NBVAL_CHECK_OUTPUT
for _, r in sweep[sweep["accelerator"].isin([p["accelerator"], "GB200-NVL72"])].iterrows():
    print(wrap(answers.sweep_row(r)))   # its MFU flagged where above any comparable run
print("left out:" + ("" if sweep.attrs["skipped"] else " none"))
for a, why in sweep.attrs["skipped"]:  # the whole reason, wrapped
    print(wrap(f"  {a}: {why}"))

# %% [markdown]
# **Takeaway.** The cheapest GPU-hour is rarely the cheapest run: price ÷ (peak × MFU) decides,
# and the bands overlap more often than the point estimates suggest. A saving that rests on a price
# nobody can pay, or on an MFU no published run has reached on that hardware, is not a saving yet:
# the table shows it so you can go and get a quote or a measurement, and the ranking leaves it out. A hardware move also risks
# porting time and capacity that the bill does not price.

# %% [markdown]
# ## 5. Checkpoint governance and the pricing mix
#
# Checkpointing at the optimum interval (Daly's model, notebook 07) and asynchronously, keeping
# milestones only as long as they are needed, reserving capacity for a long run
# (`levers.reserved_pricing`: one provider's reserved rate against *its own* on-demand price,
# not against other providers' median, and the commitment paid whether used or not: a
# reservation of term $T$ for a run of $d$ hours costs $\max(T, d)$ × rate × GPUs, so a run
# shorter than the provider's minimum term rarely gains, and a term the provider does not
# publish leaves the lever unpriced, its break-even term said) and putting
# ablations on spot capacity (with checkpoints: `levers.spot_for_ablations` prices the
# exploratory line's GPU-hours $H$ at the spot price $p_s$ over the spot goodput $g_s$ of an
# ablation-sized job, saving $H p - H p_s / g_s$). Spot for the *final* run is priced by the
# ledger's failure model at the scenario's own pre-emption rate
# (`ledger_spot_preemptions_per_node_day`: no provider publishes one): on thousands of GPUs a
# pre-emption somewhere in the job comes often, and restarts can cost more than the discount saves.

# %%
sub = ranked[ranked["group"].isin(["checkpoints", "pricing"])]
plots.table(sub[["lever", "saving_usd", "share_of_bill", "days_saved", "risk", "assumptions",
                 "note"]], {"saving_usd": usd, "share_of_bill": "{:.2%}",
                            "days_saved": plots.signed_tenths}, words=plots.COLUMN_WORDS)

# %% [markdown]
# ## 6. False economies
#
# Some savings are real on one line and lost on another. Each is shown with its **apparent**
# saving (what the line-item view sees), its **net** saving on the whole bill and, where the bad
# outcome is a chance event with an unknown probability, the **break-even probability**: with a
# sure saving $S$ and a loss $L$ if the risk materialises with probability $p$,
#
# $$\text{net} = S - pL = 0 \quad\Longrightarrow\quad p^\ast = S/L$$
#
# (`levers.break_even_probability`). Spot without resumable training is the sharpest case: a job
# of $T$ hours restarted from scratch after each pre-emption (MTBF $M$) takes on average
# $M(e^{T/M} - 1)$ hours (Daly's model, one segment), so with a discount $d$ it pays only while
#
# $$(1-d)\,\frac{e^{x}-1}{x} < 1,\quad x = T/M, \qquad p^\ast = 1 - e^{-x^\ast}$$
#
# is the break-even probability of at least one pre-emption during the run (`levers.spot_break_even`).
# Fewer checkpoints are no gamble on an unknown probability: failures arrive at the rate the
# bill uses (Llama 3: 419 unexpected interruptions in 54 days on 16,384 GPUs, a rate per
# GPU), so the ledger's expected net (Daly's model) is the answer at any scale. Cutting GPUs until
# activations overflow is priced in section 3: the memory model refuses a plan that does not fit
# (recomputation is then the price of fewer GPUs); the retries of a job that overflows *at run time*
# (memory fragmentation, a longer batch) are **not modelled**, so no break-even is given for them.
# The losses of FP8 divergence (half the FP8 final run wasted) and of cut evaluation (a quarter of
# the final run reworked) are **assumptions**, not published figures: the break-even probabilities
# they give show the shape of the gamble, not its odds.

# %%
fe = pd.DataFrame([f.row() for f in levers.false_economies(scenario)])
plots.table(fe, {"apparent_saving_usd": usd, "net_saving_usd": usd,
                 "loss_if_it_happens_usd": usd,
                 "break_even_probability": levers.break_even_words,
                 "sourced_probability": "{:.3g}"}, words=plots.COLUMN_WORDS)

# %%
# NBVAL_CHECK_OUTPUT
for f in levers.false_economies(scenario):
    if f.apparent_usd != f.apparent_usd:  # not priced (skipped, or does not apply): say why
        print(f"{f.name}: {f.how}")
        continue
    be = levers.break_even_words(f.break_even_probability)
    print(f"{f.name}: looks like {usd(f.apparent_usd)}; {f.net_label}: {usd(f.net_usd)}; "
          f"break-even probability {be}")

# %% [markdown]
# **Takeaway.** Never buy a saving that weakens recovery: fewer checkpoints and spot capacity
# without resumable training look cheaper line by line and cost more on the whole bill. For the
# gambles (FP8 instability, cut evaluation) no published rate exists; the break-even probability
# tells you how confident you must be that the bad outcome will not happen ("none": the saving
# is at least the loss, so it pays even if the bad outcome is certain).

# %% [markdown]
# ## 7. Validate small first, and whether to pre-train at all
#
# A pilot that catches a fatal bug before the big run saves, in expectation,
#
# $$E[S] = p\,f\,C - c, \qquad p^\ast = \frac{c}{f\,C},$$
#
# for a bug of probability $p$ that would surface after a share $f$ of a final run costing $C$,
# and a pilot of cost $c$ (`levers.pilot_run`). Below, an **assumed** 5% chance of such a bug
# found halfway, and a pilot at 1% of the final run. And when the goal is a domain or a format
# rather than new general capability, the cheapest run is no pre-training: fine-tuning an open
# base model of the same architecture on 20B tokens, priced by the same ledger
# (`levers.fine_tune_instead`), side by side. And when lifetime inference demand is high, a
# smaller model trained longer reaches the same loss for less over its life (notebook 06,
# Sardana et al. 2024): `levers.smaller_model_longer` compares the scenario's model with the
# inference-adjusted optimum in dollars, $\min_N\, c\cdot 6ND(N) + D_\text{inf}\, s(N)$ at the
# same loss, $c$ the bill's training dollars per FLOP (its failures and the exploratory runs it
# prices as a fraction of the final run included: `levers.smaller_model_longer`; notebook 06 prices
# training at its ideal compute alone, so its optimum, trained on cheaper FLOPs, is smaller and
# trained longer than this one); its training
# part changes the bill, its serving part is outside it (each printed
# with its sign: training a smaller model longer can cost more, and serving it less). It proposes
# only a smaller model: when the optimum is a larger one (the model is already trained past it), it
# says it does not apply.

# %%
# NBVAL_CHECK_OUTPUT
final = bill.figures["final_run_usd"]
pilot = levers.pilot_run(final, p_bug=0.05, pilot_usd=0.01 * final, found_after_fraction=0.5)
print(f"pilot at 1% of a {llmcost.fmt_usd(final)} final run: expected saving "
      f"{llmcost.fmt_usd(pilot['expected_saving_usd'])} at p = 5%; break-even p* = "
      f"{pilot['break_even_probability']:.1%}")
before, ft = levers.fine_tune_instead(scenario, 2e10)
print(f"fine-tune on 20B tokens instead: {llmcost.fmt_usd(ft.total_usd)} against "
      f"{llmcost.fmt_usd(before.total_usd)} (the fine-tune's bill is "
      f"{ft.total_usd / before.total_usd:.1%} of the scenario's)")

# %%
sm = levers.smaller_model_longer(scenario)
if sm["applies"]:
    print(f"smaller model, longer: N {sm['n_params']:.3g} -> {sm['optimum_n_params']:.3g} on "
          f"{sm['optimum_train_tokens']:.3g} tokens for {sm['inference_tokens_lifetime']:.3g} "
          f"served tokens: lifetime saving {levers.format_saving(sm['lifetime_saving_usd'])} = "
          f"training {levers.format_saving(sm['training_saving_usd'])} + serving "
          f"{levers.format_saving(sm['serving_saving_usd'])}")
else:
    print(f"smaller model, longer: {sm['reason']}")
side = ledger.compare(before, ft, names=("pre-train", "fine-tune"))
plots.table(ledger.changed_lines(side),  # the lines that move; the rest summed in one row
            {c: usd for c in side.columns if c != "line"})

# %% [markdown]
# ## 8. Working backwards from a budget or a deadline
#
# Given a deadline, the fewest GPUs whose main run (failures included) ends in time; given a
# budget, the most tokens whose whole bill fits (with both, on the GPU count that buys the most
# tokens within the deadline); and the compute-optimal model
# size for the FLOPs that budget buys (`levers.fit_budget`; in a terminal,
# `llmcost estimate --scenario FILE --budget-usd … --deadline-days …`). The wall clock falls as
# GPUs are added until failures grow faster than the work shrinks, so some deadlines cannot be met
# at all, and the function says so. Below: the scenario's `ledger_budget_usd` (when it gives none, 60%
# of this bill: half would make both limits bind together, since the bill rises in proportion to
# the tokens) and half this run's days.

# %%
from llmcost.core.units import fmt_amount

budget = p["ledger_budget_usd"] or 0.6 * bill.total_usd   # the scenario's, else 60% of it
try:
    fit = levers.fit_budget(scenario, budget_usd=budget,
                            deadline_days=0.5 * bill.figures["wall_clock_days"])
    display(plots.table(fit, {"value": fmt_amount}))
except ValueError as e:
    print(f"cannot fit: {e}")

# %% [markdown]
# ## 9. Where did the money go? Attribution
#
# A **synthetic** portfolio around this scenario (labelled so wherever it appears:
# `levers.example_portfolio`): three 7B ablations, the pre-training run, a 32K context extension,
# SFT and RL post-training, and benchmark runs, each tagged with a team, a project and a phase and
# priced by the same bill. The ledger's own tags (category, ledger phase, fixed or elastic) and its
# budget alerts travel with every line (`levers.portfolio`), so a group-by answers "where did the
# money go", and the groups sum to the portfolio's total (`levers.attribute`). **Not yet one
# owner:** the ledger owns the line tags and the budget (`ledger_budget_usd`), but it has no team,
# project or run-phase tag, so those live on `levers.Run` beside it; the waste lines likewise come
# from `levers.bill`, not from the ledger. Until the ledger carries run tags, budgets and alerts
# are per run, not per team or project.

# %%
frame = levers.portfolio(levers.example_portfolio(scenario))
by_team = levers.attribute(frame, "team")
display(plots.table(by_team, {"usd": "${:,.0f}", "gpu_hours": "{:,.0f}", "share": "{:.1%}"}))
by_phase = levers.attribute(frame, "phase")
scale = plots.usd_scale(by_phase["usd"][:-1].abs().max())  # the unit that fits the bars
plots.bar_h(by_phase["phase"][:-1], by_phase["usd"][:-1] / scale, xlabel=plots.usd_unit(scale),
            title="Synthetic portfolio: spend by phase (llmcost.levers.attribute)");

# %% [markdown]
# **Cost per point of improvement.** For a published series, the Llama 2 family (Touvron et al.
# 2023: pre-training A100 GPU-hours in Table 2, 5-shot MMLU in Table 3;
# `data/improvement_series.csv`), what each further point of MMLU cost,
# $\Delta\text{USD}/\Delta\text{score}$ between successive sizes, at the catalogue median A100-80GB
# on-demand price (`levers.cost_per_point`):

# %%
cpp = levers.cost_per_point()
display(plots.table(cpp[["model", "gpu_hours", "score", "usd", "delta_points", "usd_per_point"]],
                    {"gpu_hours": "{:,.0f}", "usd": "${:,.0f}", "usd_per_point": "${:,.0f}"}))

# %%
# NBVAL_CHECK_OUTPUT
print(f"synthetic portfolio: {llmcost.fmt_usd(by_team['usd'].iloc[-1])}, groups sum to "
      f"{llmcost.fmt_usd(by_team['usd'].iloc[:-1].sum())}")
r = cpp.iloc[1:]
print(f"Llama 2 at ${cpp.attrs['price_usd_per_gpu_hour']:.2f}/A100-h: each MMLU point cost "
      + ", ".join(f"{llmcost.fmt_usd(v)} ({m})" for m, v in zip(r["model"], r["usd_per_point"])))
steps = r["usd_per_point"].to_numpy()
print(f"each step's cost per point ÷ the previous step's: "
      + ", ".join(f"{b / a:.1f}×" for a, b in zip(steps[:-1], steps[1:]))
      + f"; the {r['model'].iloc[-1]} step's is {steps[-1] / steps[0]:.1f}× the {r['model'].iloc[0]} step's")

# %% [markdown]
# **Takeaway.** Each further MMLU point cost more than the last (the cell above prints by how many
# times, step by step): "is the next, bigger run worth it" has a number, and it rises.

# %% [markdown]
# ## 10. Train, fine-tune, distil or retrieve?
#
# Before any lever: does the goal need a pre-training run at all? "不是所有项目都需要从头训练一个最大模型，
# 很多需求可以通过提示词、检索增强、微调、量化或蒸馏解决" (not every project needs to pre-train the
# largest model from scratch; many needs are met by prompting, retrieval augmentation, fine-tuning,
# quantisation or distillation). `llmcost.bill.alternatives.price_routes` prices each route to one
# stated goal with the ledger's own lines: pre-training is this scenario's compute lines; continued
# pre-training, SFT and LoRA are the `post.cpt`, `post.sft` and `post.lora` lines; distillation is
# the `data.synthetic` line with the teacher's generation priced as served tokens plus the
# student's SFT on them; retrieval augmentation is an index (the corpus through a small model,
# priced as served input tokens) and longer prompts; prompt engineering is longer prompts only.
# Every route then serves the same requests with the scenario's model (notebook 05's serving
# model, a lower bound on cost):
#
# $$\text{route bill} = \text{one-off} + n_\text{req}\,(P\cdot p_\text{in} + R\cdot p_\text{out})/10^6.$$
#
# The goal's token counts are its **assumptions** (the `Goal` below); quality is not modelled, so
# each route says in words what it cannot do.

# %%
from llmcost.bill import alternatives

goal = alternatives.Goal()  # the example goal: every token count an assumption, printed below
routes = alternatives.price_routes(scenario, goal)
print(f"goal: {goal.domain}; quality bar: {goal.quality_bar}; {routes.requests_lifetime.iloc[0]:.3g} requests "
      f"({p['inference_prompt_tokens']} in + {p['inference_output_tokens']} out) on {routes.attrs['model']}")
print(f"assumed: CPT {goal.cpt_tokens:.3g} tokens, SFT/LoRA {goal.sft_tokens:.3g} tokens (rank {goal.lora_rank}), "
      f"{goal.distil_tokens:.3g} tokens from {goal.teacher} ({goal.teacher_weight_dtype}), RAG index "
      f"{goal.rag_corpus_tokens:.3g} tokens + {goal.rag_prompt_tokens:g} per prompt, prompts "
      f"+{goal.prompt_extra_tokens:g} tokens")
plots.table(routes[["route", "one_off_usd", "serving_usd", "total_usd", "prompt_tokens"]],
            {"one_off_usd": "${:,.0f}", "serving_usd": "${:,.0f}", "total_usd": "${:,.0f}"},
            words={"one_off_usd": "one-off (USD)", "serving_usd": "serving (USD)",
                   "total_usd": "total (USD)", "prompt_tokens": "prompt tokens"})

# %%
plots.route_bills(routes);

# %%
# NBVAL_CHECK_OUTPUT
cheap = routes.sort_values("total_usd").iloc[0]
pre = routes.set_index("route").loc["pre-train from scratch"]
times = (f"{pre.total_usd / cheap.total_usd:.1f}x" if cheap.total_usd > 0 else
         f"no ratio: the cheapest route costs $0 with inference_tokens_lifetime "
         f"{p['inference_tokens_lifetime']:g}")
print(f"cheapest bill: {cheap.route}, {llmcost.fmt_usd(cheap.total_usd)}; pre-training from scratch "
      f"{llmcost.fmt_usd(pre.total_usd)} ({times}), {pre.one_off_usd / pre.total_usd:.0%} of it the run")
lo, hi = routes.attrs["engine_gap"]
big = routes.loc[routes.total_usd.idxmax()]
print(f"serving is {big.serving_usd / big.total_usd:.0%} of the largest bill ({big.route}); at the roofline "
      f"price, engines measured {lo:.1f}-{hi:.1f}x slower (a lower bound)")

# %%
plots.table(routes[["route", "cannot_do", "not_priced"]])

# %% [markdown]
# Read the table with the limits beside it: the cheapest bill is not an option when its route
# cannot reach the quality bar. Retrieval and prompting train nothing but pay on every request, so
# their bills grow with the serving volume, while the training routes pay once; at a large enough
# volume a fine-tuned model with short prompts is cheaper than a base model with long ones.
# Pre-training from scratch is the only route that changes what the model fundamentally knows; how
# much of its bill is the run, and how much serving, is printed above.
#
# > **Takeaway.** Price the goal, not the run: compare routes that can meet the quality bar, with
# > serving included, before pricing any lever of a pre-training run.

# %% [markdown]
# ## The rule the numbers teach
#
# 1. **Waste first**: money that buys nothing, removed at no risk.
# 2. **Utilisation second**: the same FLOPs in fewer GPU-hours (MFU, precision, the plan, the
#    hardware), each with an engineering cost and a band.
# 3. **Never savings that weaken recovery**: fewer checkpoints, spot without resumable training and
#    cut evaluation look cheaper line by line and lose on the whole bill, or win only below a
#    break-even probability you should be able to defend.

# %% [markdown]
# ## Exercises
#
# Use the teaching accelerator (`Teaching-1PF`: 1 PFLOP/s dense BF16) and round numbers.
#
# 1. **A stalled loader.** A 7B model trained on 1T tokens (6ND: $4.2\times10^{22}$ FLOP) at 40%
#    MFU on Teaching-1PF. What does a 10% data-loader stall cost at \$2 per GPU-hour?
# 2. **Cutting red-teaming.** Skipping a \$200k red-teaming budget risks a problem after release
#    that forces post-training to be redone (\$1.5M) plus a quarter of an \$8M final run. Above what
#    probability of such a problem is the cut a false economy?
# 3. **Spot without checkpoints.** At a 60% spot discount, does a job whose ideal length is twice
#    its MTBF pay off without checkpoints? What is the break-even probability of a pre-emption?
#
# <details><summary>Worked answers</summary>
#
# 1. $H = 4.2\times10^{22} / (10^{15} \times 0.4) / 3600 = 29{,}167$ GPU-hours. With the stall the
#    MFU is $0.4 \times 0.9 = 0.36$ and $H' = H/0.9 = 32{,}407$: the stall costs
#    $H\,s/(1-s) = 3{,}241$ GPU-hours, **\$6,481**, 11% more than without it (not 10%).
# 2. $L = 1.5 + 0.25 \times 8 = \$3.5$M; $p^\ast = S/L = 0.2/3.5 =$ **5.7%**. Above a 1-in-18
#    chance the cut loses money in expectation.
# 3. $x = T/M = 2$: the expected slowdown is $(e^2 - 1)/2 = 3.19$, and $(1 - 0.6) \times 3.19 =
#    1.28 > 1$: the spot run costs **28% more** than on-demand. Break-even: $(e^x - 1)/x = 2.5$ at
#    $x^\ast \approx 1.62$, so $p^\ast = 1 - e^{-1.62} \approx$ **80%**; this job's
#    $p = 1 - e^{-2} = 86\%$ is above it. The cell below checks 1 and 3 with the package.
# </details>

# %%
h = llmcost.gpu_hours(4.2e22, "Teaching-1PF", 0.4)
print(f"1. {h:,.0f} GPU-h; stall costs {h * 0.1 / 0.9:,.0f} GPU-h = ${h * 0.1 / 0.9 * 2:,.0f}")
print(f"2. p* = {levers.break_even_probability(0.2e6, 3.5e6):.1%}")
se = levers.spot_break_even(0.6)
print(f"3. x* = {se['x']:.3f}, p* = {se['break_even_probability']:.1%}")

# %% [markdown]
# ## Headline figures
#
# The figures this notebook contributes to a report (`summary.json` / `summary.csv`):

# %%
# NBVAL_CHECK_OUTPUT
rows = [summary_row("bill_usd", "bill with waste", bill.total_usd, "USD",
                   "every line of the bill plus the GPU-hours of failed and forgotten jobs "
                   "(levers.bill)")]
for i, r in enumerate(top.itertuples(), 1):
    rows.append(summary_row(f"lever_{i}_saving_usd", f"lever {i}: {r.lever}", r.saving_usd,
                            "USD", f"{r.share_of_bill:.{1 + (r.share_of_bill < 0.01)}%} of the bill"
                            f"{answers.lever_days(r.days_saved)}; risk: {r.risk}"
                            + (f"; it {r.beyond_line}" if r.beyond_line else "")))
# the cheapest of this scenario's hardware at the bill's price and the rankable rows (section
# 4), each at its calibrated MFU; the other side and every accelerator left out, in the note
hw = levers.hardware_headline(sweep)
rows.append(summary_row("cheapest_accelerator_bill_usd", hw["label"], hw["usd"], "USD",
                        hw["note"]))
publish_summary("09_savings", rows)

# %% [markdown]
# ## Explore
#
# Tick levers and see the bill change: they are applied in order to the scenario and the whole bill
# is priced again (`levers.apply_levers`, `levers.bill`). In a report these widgets are switched
# off; run the notebook in Jupyter to use them.

# %%
if interactive:
    from llmcost.present.widgets import levers_explorer

    display(levers_explorer(scenario))

# %% [markdown]
# [← 00 · Index](00_index.ipynb) · previous: [08 · How close are these estimates to real training runs?](08_published_runs.ipynb) · next: [10 · What does each term mean, and what is it called in Chinese?](10_glossary.ipynb)
