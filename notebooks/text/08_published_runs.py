# Text twin of notebooks/08_published_runs.ipynb, written by `llmcost twins` (jupytext percent format).
# Edit the notebook, not this file; the twin exists so that a change reads as a diff.

# %% [markdown]
# # 08 · How close are these estimates to real training runs?
#
# [← 00 · Index](00_index.ipynb) · previous: [07 · What does it cost when training doesn't finish?](07_checkpoints.ipynb) · next: [09 · Which savings are real, and which only look like it?](09_savings.ipynb)

# %% tags=["parameters"]
model: str = "llama-2-70b"  # catalogue model name (llmcost.list_models())
accelerator: str = "H100-SXM"  # catalogue accelerator name (llmcost.list_accelerators())
n_gpus: int = 2048  # accelerators in the training job
train_tokens: float = 2.0e12  # pre-training tokens
seq_len: int = 4096  # training sequence length in tokens
mfu: float = 0.4  # steady-state model FLOPs utilisation in (0, 1]
mfu_band: str = None  # what a range on mfu is, set by a report: None, the scenario's own; 'predicted', the step-time model's band; 'pilot', the pilots' band
dtype: str = "bf16"  # training compute precision: bf16 or fp8
price_usd_per_gpu_hour: float = 3.99  # USD per GPU-hour; None: the catalogue median for `pricing`
pricing: str = "on_demand"  # on_demand, reserved, spot or owned
ckpt_recipe: str = 'bf16-adam'  # what a checkpoint saves, bytes per parameter (llmcost.reliability.CHECKPOINT_RECIPES)
ckpt_interval_s: float = None  # compute seconds between checkpoints
ckpt_async: bool = False  # asynchronous checkpoints (only the device-to-host snapshot blocks training)
ckpt_storage_bytes_per_s: float = None  # storage bandwidth, bytes/s; None: sized from the checkpoint plan
ckpt_node_bytes_per_s: float = 50000000000.0  # per-node bandwidth to storage, bytes/s
ckpt_d2h_bytes_per_s: float = 50000000000.0  # device-to-host copy bandwidth per GPU, bytes/s
ckpt_restart_s: float = 600.0  # seconds from a failure to training again, excluding reading the checkpoint (detection, node swap, relaunch, NCCL init, data loader)
ckpt_keep_last: int = 3  # checkpoints kept in the hot tier (0: keep every one)
ckpt_hot_tier: str = 'fsx-lustre-ssd'  # hot storage tier (data/storage_prices.csv name)
fail_rate_per_gpu_year: float = 0.173  # unexpected interruptions per GPU-year (> 0
fail_planned_per_day: float = 0.87  # planned interruptions of the job per day
ledger_spot_preemptions_per_node_day: float = None  # spot pre-emptions per node per day (pricing: spot)
ledger_spot_restart_s: float = None  # seconds to regain spot capacity and restart
ledger_owned_usd_per_gpu: float = None  # purchase price of one accelerator (pricing: owned)
ledger_pue: float = None  # data-centre PUE
ledger_electricity_usd_per_kwh: float = None  # electricity price (owned hardware)
interactive: bool = True  # widgets on (reading) or off (report runs)

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import llmcost
from llmcost import claims, plots
from llmcost.present.report import publish_summary, summary_row

p = llmcost.notebook_parameters(globals())  # every name of the parameters cell, validated
spec, gpu = llmcost.load_model(p["model"]), llmcost.load_accelerator(p["accelerator"])

# %%
from IPython.display import Markdown

from llmcost import accuracy
from llmcost.present import answers

runs = llmcost.load_published_runs()
errors = claims.published_run_errors(runs)   # every scored run (sections 1-2)
like = accuracy.like_scenario_error(gpu.name, is_moe=spec.is_moe, dtype=p["dtype"],
                                   seq_len=p["seq_len"], n_params=spec.n_params)
display(Markdown(answers.published_runs(claims.error_table_summary(errors), like)))

# %% [markdown]
# Every other notebook predicts. This one keeps score: it predicts the accelerator-hours of runs
# whose authors published them, from public facts only, and reports the error. Then it turns the
# same arithmetic on **claims** ("trained on 2,048 H800s for two months for \$5.6M") with
# `llmcost.claims.check_claim`, the function behind `llmcost check`.
#
# **Learning objectives.** After this notebook you can
#
# 1. turn a published run (tokens, hardware, hours) into an implied utilisation, and say on which
#    FLOP basis and which peak it is stated;
# 2. explain why a whole-run utilisation is lower than a steady-state MFU (goodput, extra phases)
#    and compare the two like with like;
# 3. read the workbook's error table: which predictions come from the step-time model on a
#    published plan, which from a leave-one-out median, and how far each is off;
# 4. check a cost claim end to end and list what it leaves out.

# %% [markdown]
# ## 1. From a published run to an implied utilisation
#
# A run that publishes its tokens $D$ and accelerator-hours $H$ fixes its utilisation. With
# $F(s)$ the training FLOPs per token and $P$ the dense peak of one accelerator,
#
# $$U = \frac{D \cdot F(s)}{H \cdot 3600 \cdot P}.$$
#
# Two conventions must be stated with every $U$: the FLOP count ($F = 6N$, Kaplan et al. 2020
# §2.1, or the workbook's **MFU basis**: matmul + attention FLOPs with the full attention mask,
# `compute.MFU_METHOD`) and the peak (dense BF16 unless said otherwise; FP8 doubles it on Hopper).
# Because $H$ counts every paid hour, $U$ is a **whole-run** figure. A steady-state MFU is
# measured between failures, so
#
# $$U = \text{MFU} \times \text{goodput}, \qquad \text{goodput} = \frac{\text{productive time}}{\text{wall time}},$$
#
# with goodput from the checkpoint-and-failure model of notebook 07
# (`claims.goodput_for`, which calls `reliability.checkpoint_plan`). Comparing a whole-run $U$ with
# a steady-state MFU without dividing by goodput blames the kernels for the failures.

# %%
scored = errors[errors["scored"] != ""]
cols = ["run_id", "generation", "scored", "method", "published_mfu", "predicted_mfu", "error"]
# the error is on the GPU-hours: predicted ÷ published hours − 1 (= published ÷ predicted MFU
# − 1 for a steady-state row; notebook 04b's step-time error is predicted ÷ published MFU − 1)
hours_error = {"error": "error in GPU-hours (predicted ÷ published − 1)",  # each MFU on the
               "published_mfu": "published MFU (of the BF16 dense peak)",  # basis published
               "predicted_mfu": "predicted MFU (of the BF16 dense peak)"}  # MFUs use
plots.table(scored[scored["scored"] == "gpu_hours"][cols + ["published_gpu_hours"]],
            {"published_mfu": "{:.1%}", "predicted_mfu": "{:.1%}", "error": "{:+.1%}",
             "published_gpu_hours": "{:,.0f}"}, words=hours_error)

# %% [markdown]
# The published MFU is $U$ on the MFU basis and the BF16 peak for the whole-run rows. The table is
# every run of `data/published_runs.csv` that has a catalogue accelerator, a model shape, a token
# count and hours (or days × accelerators); the rest are listed at the end of section 2 with the
# reason they cannot be scored (GPT-3 and Gopher: hardware outside the catalogue; Chinchilla: TPU
# v3 and v4, outside the catalogue, and no training time published; OPT: only a peak throughput, "up to 147 TFLOP/s" per GPU, with no
# hours and no published plan, so there is nothing to compare like with like; GLM-130B: its MFU
# 32.5% is published but its shape is not recorded and its hours are only an upper bound, 60 days
# of cluster access; the OLMo runs: no hours in their papers as recorded). PaLM 540B is scored on
# its Appendix B chip-hours (6,144 chips × 1,200 h + 3,072 × 336 h = 8,404,992) against its own
# published steady-state MFU (46.2%) × goodput: a test of the whole-run gap, not of the step-time
# model.
#
# ## 2. Predicting from public facts only
#
# The prediction rule (`claims.published_run_errors`, its docstring gives every step):
#
# * **a plan is published** (TP and PP degrees with the GPU count): the step-time model
#   (`llmcost.step`, notebook 04b) predicts the steady-state MFU on that plan; for a whole-run
#   figure it is multiplied by goodput;
# * **no plan, a published steady-state MFU** (PaLM): that MFU × goodput;
# * **no plan**: the median whole-run $U$ of the *other* runs of the same hardware generation
#   (leave-one-out, so a run never predicts itself). A run whose published plan the step-time
#   model cannot lay out would fall back to this median, and its `method` would say so. A run
#   published twice (DeepSeek-V3's whole-run row and its validation row with the full plan) is
#   scored once, on the validation row, and stays out of the medians.
#
# The predicted hours are then $\hat H = D\,F(s) / (3600\,P\,\hat U)$ and the error is
# $\hat H / H - 1$. For a steady-state benchmark (Narayanan et al. 2021, Korthikanti et al. 2022,
# Llama 3 Table 4, NeMo) hours scale as $1/\text{MFU}$, so the error in hours is
# $\text{MFU}_\text{published} / \widehat{\text{MFU}} - 1$.

# %%
# NBVAL_CHECK_OUTPUT
summary = claims.error_table_summary(errors)
display(plots.table(summary.reset_index(), {"within_band": "{:.0f}",
                                            "median_abs_error": "{:.1%}",
                                            "mean_abs_error": "{:.1%}",
                                            "median_signed_error": "{:+.1%}"},
                    words={"median_abs_error": "median |error in GPU-hours|",
                           "mean_abs_error": "mean |error in GPU-hours|",
                           "median_signed_error": "median error in GPU-hours (signed)"}))
for group, r in summary.iterrows():
    count = ("in-sample, not counted as a success" if r["in_sample"]
             else f"{int(r['within_band'])} of {int(r['n'])} within ±20%")
    print(f"{group}: {count} (median |error| {r['median_abs_error']:.1%})")
# the goal, counted (the prose below states no count of its own)
display(Markdown(answers.published_runs_goal(errors, summary)))

# %%
plots.published_runs_scatter(errors);

# %% [markdown]
# Steady-state rows have no run length, so they are drawn as the hours that $10^{21}$ model FLOPs
# would take at the published and predicted MFU: the same ratio, on the same axes.
#
# **The goal and how far it is met** (the counts and each whole run's error are printed above
# the figure). The goal is GPU-hours within ±20% for the rows with a published plan. The table
# keeps unlike evidence apart. The steady-state rows are benchmark MFUs from the step-time model's
# own validation sets. The calibration rows (Korthikanti et al.'s 22B, whose layer
# `KERNEL_EFFICIENCY` is fitted on, and the three DeepSpeed ZeRO-3 175B rows on which the ZeRO-3
# stack's one data-chosen setting was chosen) are in-sample and never counted as a success. The
# held-out rows include NeMo AutoModel's MoE benchmarks, for which the model prices their DeepEP
# dispatch per destination node, the fake gate's local experts, FSDP2's kept weights and one
# pipeline schedule per gradient-accumulation step (notebook 04b, the validation section).
# The **whole runs with a published plan** are the real test of a bill. BLOOM's gap is explained in
# section 3; DeepSeek-V3's pre-training compares a steady-state step (its stack's per-node FP8
# dispatch with at most 4 nodes per token priced, its PP 16 over 61 layers laid out in uneven
# stages) with a whole run's GPU-hours. So few whole runs (their count is printed above) are too
# few for a rate: read them one by one.

# %%
plots.table(scored[scored["scored"] == "mfu"][cols + ["plan"]],
            {"published_mfu": "{:.1%}", "predicted_mfu": "{:.1%}", "error": "{:+.1%}"},
            words=hours_error)

# %%
plots.table(errors[errors["scored"] == ""][["run_id", "model", "note"]])

# %% [markdown]
# ## 3. The systematic gaps, explained
#
# The cell after this section prints the figures each bullet refers to, computed from the error
# table above: each planned whole run's goodput and error, and DeepSeek-V3's utilisation on both
# peaks against the median of the other Hopper runs.
#
# * **Steady-state MFU against whole-run utilisation.** Goodput (printed below for each whole run
#   with a plan, with the ledger's failure rate; lowest on the largest job) explains part of every
#   whole-run gap; the rest is what the goodput model leaves out: the batch-size ramp-up, slow
#   periods, hardware swaps, evaluation, and failure rates above Llama 3's. BLOOM's whole run is
#   under-predicted (too few hours; its error is printed below): its 118 days of wall clock
#   (Luccioni et al. 2022) include a batch ramp that started at 192 sequences and every stop and
#   restart of a 2022 cluster, which the defaults (Llama 3's 2024 failure rate) treat kindly.
# * **Context extension and annealing inside model-card totals.** The Llama 3.1 model card's
#   hours are "the total GPU time required for training each model": the 128K-context stage runs
#   at a lower MFU (38% against 41-43%, Table 4) on longer, costlier sequences. Notebook 07
#   section 6 accounts for the 405B gap; the 8B cards imply a far lower $U$ than the 70B and 405B
#   (the two lowest Hopper rows, printed below), a total that covers more than one steady run.
# * **Post-training inside totals.** DeepSeek-V3's 2.788M H800-hours include 119K for context
#   extension and 5K for post-training; scored here is the pre-training 2.664M, the phase the
#   14.8T tokens belong to.
# * **FP8 against a BF16 peak, and a median of totals.** DeepSeek-V3 trained its GEMMs in FP8. On
#   the BF16 peak its implied $U$ (on the MFU basis) looks like a very good BF16 run; on the FP8
#   peak it is half that. Without its plan, the Hopper leave-one-out median would over-predict its
#   hours, and not by "the FP8 factor" (that would be 2×): by its $U$ ÷ the median of the other
#   Hopper rows (printed below), a median pulled down by the Llama 3 and 3.1 8B model-card totals
#   (multi-phase as the bullet above says). They stay in the median
#   that predicts the runs without a plan: the 70B and 405B model-card rows are totals of the same
#   kind, and dropping only the low ones would pick rows by their outcome.
# * **ZeRO-3 in 2021.** DeepSpeed's ZeRO-3 rows of Narayanan et al. (2021) Table 2 ran far slower
#   than Megatron's 3D plans. The step-time model now models ZeRO-3's per-layer gathers; the
#   stack's one data-chosen setting was chosen on the three 175B rows (calibration, not counted),
#   and the three 530B rows are held out.
#

# %%
# NBVAL_CHECK_OUTPUT
# the figures of section 3: goodput per planned whole run (claims.goodput_for, as the error
# table uses it) and DeepSeek-V3 on the BF16 and FP8 peaks against its generation's median
planned = errors[(errors["scored"] == "gpu_hours") & errors["has_plan"]]
goodputs = {r.run_id: claims.goodput_for(r.params_total, int(r.n_gpus))
            for r in planned.itertuples()}
h800 = llmcost.load_accelerator("H800")
fp8_x = h800.peak_flops_per_s("fp8") / h800.peak_flops_per_s("bf16")
display(Markdown(answers.published_runs_gaps(errors, goodputs, fp8_x)))

# %% [markdown]
# ## 4. Three claims, checked end to end
#
# `check_claim` applies section 1 to a claim and gives a verdict, compared like with like:
# **implausible** (the steady-state MFU the claim needs, $U/\text{goodput}$, is above the
# achievable matmul ceiling of `data/efficiency.csv`; for an FP8 claim, that ceiling over its FLOP mix, the attention core, LM head and router at the BF16 rate: `claims._fp8_mix_ceiling`), **optimistic** (above the best published
# MFU comparable to the claim, `claims.best_reference`: the same hardware generation, MoE or dense,
# total parameters within 4×, a comparable context and precision, by more than
# `claims.EDGE_SHARE`; within it, plausible "at the edge", said so: the goodput a claim's hours
# are divided by is assumed), **low** (below
# `claims.LOW_SHARE` = half of it: either the figure covers more than the final run or the
# run was that far below the best published one; published final runs sit there too, Pythia's
# and BloombergGPT's on A100), else **plausible**. A claim of money and hours is judged on two more things, and its verdict is the worst of the three, each stated (`claims.worst_verdict`): its cost (**implausible** below the least its FLOPs can cost, every hour at the matmul ceiling at the cheapest hour of the accelerator or its generation the catalogue knows: the cheapest current catalogue hour of any pricing mode or the low end of the owned hour, `pricing.owned_hour_range`) and its price per GPU-hour (**optimistic** only below that same cheapest hour by more than the claim's tolerance, `--tolerance`, since published costs are rounded; a price below today's list prices of its pricing mode but not below it is plausible, and the judgement says what it is below: a run of thousands of GPUs for months is bought on a long reservation or owned, and the catalogue holds few prices committed for a year or more). It also lists what the claim leaves out.
#
# **Claim 1: DeepSeek-V3, "\$5.576M".** The report's own words (arXiv:2412.19437, Table 1 and §1):
# 2,664K H800 GPU-hours of pre-training, 119K of context extension and 5K of post-training,
# "assuming the rental price of H800 is \$2 per GPU hour"; and "the aforementioned costs include
# only the official training of DeepSeek-V3, excluding the costs associated with prior research
# and ablation experiments on architectures, algorithms, or data."

# %%
# NBVAL_CHECK_OUTPUT
ds = claims.check_claim("deepseek-v3", 14.8e12, "H800", n_gpus=2048, dtype="fp8",
                        gpu_hours=2.788e6, usd=5.576e6,
                        phases={"pre-training": 2.664e6, "context extension": 119e3,
                                "post-training": 5e3})
print(f"{ds.verdict}: whole-run U {ds.whole_run['fp8']:.1%} of FP8 peak, "
      f"{ds.whole_run['bf16']:.1%} of BF16; steady-state {ds.steady_state['bf16']:.1%} of BF16")
lo, mid, hi = (x / 1e6 for x in ds.left_out_range_usd)
print(f"implied price ${ds.implied_usd_per_gpu_hour:.2f}/GPU-h; left out, at the defaults: "
      f"${ds.left_out_usd / 1e6:.1f}M (P10 ${lo:.1f}M, P50 ${mid:.1f}M, P90 ${hi:.1f}M)")

# %% [markdown]
# **FLOP basis.** The utilisation above counts FLOPs on the workbook's MFU basis (matmul and
# attention, full attention mask, the multi-token-prediction module included: DeepSeek-V3 §2.2;
# `ClaimCheck.flops_mfu_basis`). The 6ND line below uses N, the
# catalogue's active-parameter count (embeddings included; `ClaimCheck.n_active_6nd` = 6ND ÷ 6D):
# slightly above the paper's rounded "37B activated" (6 × 37e9 × 14.8e12 = 3.2856e24). The FP8
# ceiling is an **assumption**: the matmul fraction measured on BF16 GEMMs (printed below,
# `data/efficiency.csv`) applied to the FP8 peak: the claim check reads its ceiling from that file,
# which has no FP8 row.

# %%
# NBVAL_CHECK_OUTPUT
# the FLOP basis: N from the catalogue (6ND ÷ 6D) against the paper's "37B activated"
n_active = ds.n_active_6nd
print(f"6ND: N = {n_active / 1e9:.2f}B, {ds.flops_6nd:.4g} FLOPs ({n_active / 37e9 - 1:+.1%} "
      f"against 37B); whole-run U on 6ND {ds.whole_run_6nd['bf16']:.1%} of BF16 against "
      f"{ds.whole_run['bf16']:.1%} on the MFU basis; ceiling {ds.ceiling:.3f} of the peak "
      f"({ds.ceiling_source})")

# %%
left = pd.DataFrame(ds.left_out)
plots.table(left[left["status"] != "not given"][["line", "status", "usd", "p10_usd", "p90_usd"]],
            {"usd": "${:,.0f}", "p10_usd": "${:,.0f}", "p90_usd": "${:,.0f}"})

# %% [markdown]
# The verdict above judges the \$5.576M as a price of the **final run's** GPU-hours: the utilisation
# the FLOPs and hours imply against the ceiling and against the best published comparable run
# (`ds.reason` names that run and the rule that makes it comparable; the model's own published runs are left out, so a claim is never checked against itself: an "optimistic" verdict says that no other published run of its class has measured such a utilisation, not that the claim is false; one within `claims.EDGE_SHARE` of that run is plausible "at the edge"), and the \$2/GPU-h against the
# catalogue (`ds.price_verdict`: no H800 is listed; the H100 SXM has the same compute) and against the least a Hopper hour can cost (`ds.judgements`, its price judgement). What it does not include,
# priced with the ledger's defaults (table above): exploratory and failed runs (Cottier et al.
# 2024: total development compute is 1.2-4× the final run; the largest line), checkpoint and
# dataset storage. The range (P10-P90) draws the exploratory fraction over Cottier et al.'s
# interval with `ledger.simulate_ledger` (the ranges of notebook 00); the claim's own hours and
# price stay fixed. Data, people, evaluation and post-training beyond the 5K hours have no default
# in the ledger and are "not given" (`ds.left_out` lists each with the ledger's reason): unknown,
# not zero.
#
# **Claim 2: Llama 3.1 405B, 30.84M H100-hours** (model card) on 16,384 GPUs for 15.6T tokens.

# %%
# NBVAL_CHECK_OUTPUT
ll = claims.check_claim("llama-3.1-405b", 15.6e12, "H100-SXM", n_gpus=16384,
                        gpu_hours=30.84e6, left_out=False)
print(f"{ll.verdict}: whole-run U {ll.whole_run['bf16']:.1%}, goodput {ll.goodput:.1%}, "
      f"steady-state {ll.steady_state['bf16']:.1%} (Meta: 38-43%, Table 4)")

# %% [markdown]
# **Claim 3: "Llama 2 70B took 3.3M A100-hours".** 3,311,616 is the model card's *cumulative*
# figure for all four Llama 2 sizes; the 70B row is 1,720,320.

# %%
# NBVAL_CHECK_OUTPUT
l2 = claims.check_claim("llama-2-70b", 2e12, "A100-80GB", gpu_hours=3_311_616, left_out=False)
print(f"{l2.verdict}: {l2.reason}")

# %% [markdown]
# ## 5. Your scenario as a claim
#
# If this scenario's run were announced with the hours the ledger bills for it (steady-state MFU
# × goodput), would the check accept it? A scenario whose MFU is above the best published figure
# is flagged here before anyone else flags it.

# %%
# NBVAL_CHECK_OUTPUT
# the run as the bill counts it: its MFU and its goodput (the scenario's failure rates and the
# checkpoint storage the bill provisions), the figures of 00's bill and of `llmcost check`
bill08 = llmcost.build_ledger(p)
g_bill = bill08.figures["goodput"]
hours, g, mine = claims.scenario_as_claim(spec, p["train_tokens"], gpu, p["n_gpus"], p["mfu"],
                                          dtype=p["dtype"], seq_len=p["seq_len"],
                                          pricing=p["pricing"], goodput=g_bill)
print(f"scenario: {hours:,.0f} GPU-h at MFU {p['mfu']:.1%} ÷ goodput {g:.1%} -> {mine.verdict}"
      + (f" ({mine.own_run_note})" if mine.own_run_note else ""))

# %% [markdown]
# ## Takeaways
#
# * A utilisation is meaningless without its FLOP basis and its peak: DeepSeek-V3's halves when FP8
#   rather than BF16 is the denominator, and 6ND against the full-mask count moves it again
#   (sections 3 and 4 print the figures).
# * Compare like with like: divide a whole-run figure by goodput before comparing it with a
#   steady-state MFU, and split a claim by phase where the source does.
# * Where a plan is published, the step-time model is scored on held-out steady-state benchmarks
#   and on whole runs against the ±20% goal; section 2 prints how many of each meet it and each
#   whole run's error: a bill also carries the whole-run gap. Without a plan, a generation median
#   is a rough guess (its median error, printed in section 2, is several times larger).
# * A headline training cost is usually the first line of the bill. Exploration, failed runs,
#   data and people are the rest, and the check lists them.
#
# ## Exercises
#
# **1.** A start-up says it trained a 70B dense model (Llama 2 70B shape) on 2T tokens on 1,000
# H100s in 12 days. What does `check_claim` say, and why?
#
# *Answer.* 12 × 24 × 1,000 = 288,000 GPU-h. The cell below prints the whole-run $U$ this implies on
# the BF16 peak, the steady-state MFU after goodput, the H100's matmul ceiling and the best
# published MFU: at 12 days the steady-state MFU is above the ceiling (**implausible**); at 18 days
# it is below the ceiling, and the verdict turns on the best published run the cell prints
# (**optimistic** while the claim is above it by more than `claims.EDGE_SHARE`).
#
# **2.** Why is DeepSeek-V3's pre-training scored with 2.664M hours and not 2.788M?
#
# *Answer.* The 14.8T tokens are the pre-training phase's; the 119K context-extension and 5K
# post-training hours train on other tokens. Dividing the pre-training FLOPs by all 2.788M hours
# would understate the utilisation (by the share the cell below prints).
#
# **3.** Why do the LLaMA 1 runs come out over-predicted (too many hours) by the A100 generation's
# leave-one-out median, and what does it say about the median? (The cell below prints the median,
# their implied $U$ and their errors.)
#
# *Answer.* LLaMA 1's own GPU-hours imply a $U$ far above the median, far above BLOOM,
# BloombergGPT and the small Pythia runs that pull the median down. A median of heterogeneous
# runs describes a typical team, not a given one: with no plan published, expect errors of tens
# of percent either way (the leave-one-out rows' spread in section 2), not ±20%.

# %%
# NBVAL_CHECK_OUTPUT
# The worked answers, computed: exercise 1 (12 and 18 days) and exercise 2
for d in (12, 18):
    c = claims.check_claim("llama-2-70b", 2e12, "H100-SXM", n_gpus=1000, days=d, left_out=False)
    print(f"{d} days: U {c.whole_run['bf16']:.1%}, steady {c.steady_state['bf16']:.1%} "
          f"(ceiling {c.ceiling:.1%}, best published {c.best_published:.1%}) -> {c.verdict}")
print(f"exercise 2: all phases would understate U by {1 - 2.664 / 2.788:.1%}")
# exercise 3: the LLaMA 1 rows, their implied U, the median that predicts them and the error
llama1 = errors[errors["run_id"].str.startswith("llama1-")]
print("exercise 3: " + "; ".join(f"{r.model}: U {r.published_mfu:.1%}, median {r.predicted_mfu:.1%}, "
                                 f"error {r.error:+.1%}" for r in llama1.itertuples()))

# %%
# NBVAL_CHECK_OUTPUT
publish_summary("08_published_runs", [
    summary_row("heldout_mfu_rows_within_20pct", "held-out steady-state rows within ±20%",
                int(summary.loc["steady-state MFU, held-out", "within_band"]), "",
                f"of {int(summary.loc['steady-state MFU, held-out', 'n'])} rows"),
    summary_row("whole_run_plan_rows_within_20pct", "whole runs with a published plan within ±20%",
                int(summary.loc["whole-run GPU-hours, published plan", "within_band"]), "",
                f"of {int(summary.loc['whole-run GPU-hours, published plan', 'n'])} rows"),
    summary_row("whole_run_plan_median_abs_error", "median |error|, whole runs with a plan",
                float(summary.loc["whole-run GPU-hours, published plan", "median_abs_error"]),
                "fraction", "GPU-hours basis"),
    summary_row("scenario_claim_verdict", "this scenario as a claim", mine.verdict, "",
                f"steady-state MFU {mine.steady_state[p['dtype']]:.1%} of the {p['dtype']} peak"),
])

# %% [markdown]
# ## Explore
#
# Check a claim of your own: the scenario's model and accelerator, with the claimed tokens,
# GPU count and days on sliders, starting at the scenario's tokens, GPUs and days (its paid hours, as the
# scenario's line above) (in a terminal:
# `llmcost check --help`). In a report these
# widgets are switched off.

# %%
if interactive:
    from llmcost.present.widgets import claim_explorer

    display(claim_explorer(spec.name, gpu.name, p["dtype"], p["train_tokens"], p["n_gpus"],
                           days=hours / p["n_gpus"] / 24, goodput=g,  # the scenario's run
                           price_usd_per_gpu_hour=bill08.figures["gpu_rate_usd_per_gpu_hour"]))

# %% [markdown]
# [← 00 · Index](00_index.ipynb) · previous: [07 · What does it cost when training doesn't finish?](07_checkpoints.ipynb) · next: [09 · Which savings are real, and which only look like it?](09_savings.ipynb)
