# Text twin of notebooks/07_checkpoints.ipynb, written by `llmcost twins` (jupytext percent format).
# Edit the notebook, not this file; the twin exists so that a change reads as a diff.

# %% [markdown]
# # 07 · What does it cost when training doesn't finish?
#
# [← 00 · Index](00_index.ipynb) · previous: [06 · Train bigger or train longer?](06_chinchilla.ipynb) · next: [08 · How close are these estimates to real training runs?](08_published_runs.ipynb)

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import llmcost
from llmcost import ledger, plots
from llmcost import reliability as rel
from llmcost.core.units import (fmt_bandwidth, fmt_duration, fmt_period, fmt_probability,
                                fmt_quantity)
from llmcost.present.report import publish_summary, summary_row

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
ledger_owned_usd_per_gpu: float = None  # purchase price of one accelerator (pricing: owned)
ledger_pue: float = None  # data-centre PUE
ledger_electricity_usd_per_kwh: float = None  # electricity price (owned hardware)
ckpt_recipe: str = "bf16-adam"  # what a checkpoint saves (llmcost.reliability.CHECKPOINT_RECIPES)
ckpt_interval_s: float = None  # compute seconds between checkpoints; None: the optimum
ckpt_async: bool = False  # asynchronous checkpoints: only the device-to-host snapshot blocks
ckpt_storage_bytes_per_s: float = None  # storage bandwidth, bytes/s; None: sized from the checkpoint plan
ckpt_node_bytes_per_s: float = 5.0e10  # per-node bandwidth to storage, bytes/s
ckpt_d2h_bytes_per_s: float = 5.0e10  # device-to-host copy bandwidth per GPU, bytes/s
ckpt_restart_s: float = 600.0  # failure to training again, excluding reading the checkpoint, s
ckpt_keep_last: int = 3  # checkpoints kept in the hot tier (0: keep every one)
ckpt_milestone_every_days: float = 7.0  # days between milestones copied to the cold tier
ckpt_retention_months: float = 12.0  # months milestones are kept after the run
ckpt_hot_tier: str = "fsx-lustre-ssd"  # hot storage tier (data/storage_prices.csv)
ckpt_cold_tier: str = "s3-glacier-deep-archive"  # cold storage tier (data/storage_prices.csv)
fail_rate_per_gpu_year: float = 0.173  # unexpected interruptions per GPU-year (Llama 3)
fail_planned_per_day: float = 0.87  # planned interruptions of the job per day (Llama 3)
ledger_resumable: bool = True  # training resumes from checkpoints (false: a failure or a planned stop restarts the run from scratch)
ledger_spot_preemptions_per_node_day: float = None  # spot pre-emptions per node per day (pricing: spot)
ledger_spot_restart_s: float = None  # seconds to regain spot capacity and restart
comm_scaleout_bytes_per_s: float = None  # scale-out bytes/s per GPU per direction; None: the catalogue's
interactive: bool = True  # widgets on (reading) or off (report runs)

# %%
p = llmcost.notebook_parameters(globals())  # every name of the parameters cell, validated
spec, gpu = llmcost.load_model(p["model"]), llmcost.catalog.scenario_accelerator(p)
price, price_source = llmcost.scenario_price(p)  # given, or the catalogue's for `pricing`
per_node = gpu.per_host  # accelerators per host: 8 on an HGX board, 4 on a TPU v5p VM
run = llmcost.training_run(spec, gpu, p["train_tokens"], p["mfu"], p["n_gpus"], price,
                           seq_len=p["seq_len"], dtype=p["dtype"])

# %%
scenario = p  # what the bill prices (notebook 00); below, p holds the bill's failure model:
p = ledger.failure_values(scenario, per_node)  # on spot, pre-emptions are failures of a node
spot_words = " (spot pre-emptions included)" if p["pricing"] == "spot" else ""
# the bill sizes storage at its all-in GPU-hour price (owned: hardware + energy): so does 07
bill = ledger.build_ledger(scenario)  # the bill notebook 00 shows
storage_price = bill.figures["price_usd_per_gpu_hour"]
p["ckpt_storage_bytes_per_s"], storage_source = rel.scenario_storage_bytes_per_s(
    p, spec.n_params, run["gpu_hours"], storage_price, per_node)  # section 7: sized from the plan
work_s = rel.run_work_s(run["gpu_hours"], p["n_gpus"])  # the run's work T, seconds
plan = rel.scenario_checkpoint_plan(p, spec.n_params, per_node, run_s=work_s)  # the bill's plan

# %%
from IPython.display import Markdown

from llmcost.present import answers

if scenario["ledger_resumable"]:
    display(Markdown(answers.checkpoints(p["n_gpus"], plan.mtbf_s, p["fail_planned_per_day"],
                                         plan.interval_s, plan.goodput, run["gpu_hours"], price,
                                         spot=p["pricing"] == "spot")))
else:  # every failure or planned stop restarts the run: the bill's goodput, not the plan's
    display(Markdown(answers.no_checkpoints(
        p["n_gpus"], bill.figures["goodput"], bill.figures["main_ideal_gpu_hours"],
        bill.line("compute.failures").usd,
        rel.interruption_mtbf_s(bill.figures["job_mtbf_s"], p["fail_planned_per_day"]),
        plan.goodput, price, spot=p["pricing"] == "spot")))

# %% [markdown]
# The ideal estimate of notebook 01 assumes every GPU computes from the first step to the last.
# On thousands of GPUs for weeks that never happens: a GPU, a link or a host fails every few
# hours, and a synchronous job stops when any one of them does. What a run then costs depends on
# how much work each failure throws away and how fast the run recovers. Checkpoints are the
# insurance: too few and a failure throws away hours; too many and writing them eats I/O and
# compute. This notebook turns that trade into seconds, GPU-hours and dollars, and checks it
# against the one large run whose failures were published: Llama 3 405B.

# %% [markdown]
# **What you will learn.** After this notebook you can
# 1. derive a job's MTBF from a per-GPU failure rate and say why failures are certain at scale;
# 2. size a checkpoint and its write time from bytes per parameter and storage bandwidth;
# 3. derive Young's optimum checkpoint interval and use Daly's exact form;
# 4. bound an asynchronous checkpoint by the storage duty cycle, and compare durable, in-memory
#    (peer) checkpoints and hot spares by what they do to the restart time, the waste no checkpoint interval removes;
# 5. turn goodput into paid GPU-hours and dollars, and tell when spot capacity pays.
#
# **Conventions.** Failures are a Poisson process with a constant per-GPU rate λ (failures per
# GPU-year), so a job on n GPUs has MTBF **M = 1/(n·λ)**. **δ** is the time one checkpoint
# *blocks* training, **τ** the compute time between checkpoints, **R** the time from a failure to
# training again. **Goodput** is the share of wall-clock time (and so of paid GPU-hours) spent on
# steps that are kept. Checkpoint sizes count what is *saved*: gradients are not, so the
# bf16-Adam recipe is 14 bytes per parameter, not the 16–18 of training state. GB = 10⁹ bytes.

# %%
print(f"checkpoint storage: {fmt_bandwidth(p['ckpt_storage_bytes_per_s'])} ({storage_source})")
print(f"{spec.name} on {p['n_gpus']:,} × {gpu.name} ({per_node} per node), "
      f"${price:.2f}/GPU-h ({price_source})")
print(f"ideal: {fmt_quantity(run['gpu_hours'])} GPU-hours, {fmt_quantity(run['wall_clock_days'])} "
      "days (notebook 01)")

# %% [markdown]
# ## 1. Why failures are certain at scale
#
# A synchronous data-parallel job is a series system: every step needs every GPU, so it stops
# when any of them fails. With independent failures at rate λ per GPU, the job's failure rate is
# n·λ: the first of n independent exponential clocks rings at rate n·λ, so the job's time to its
# first failure is itself exponential with mean
#
# $$M = \frac{1}{n\,\lambda}, \qquad P(\text{no failure in a time } t) = e^{-t/M}$$
#
# (Kokolis et al. 2024 use the same MTTF = 1/(N_nodes·r_f)). A GPU that fails once in several years on average
# makes a job of thousands of GPUs fail every few hours (Llama 3's figures below).

# %% [markdown]
# **Llama 3 405B** (Llama Team 2024, arXiv:2407.21783, §3.3.4) is the best public record: in a
# 54-day snapshot of pre-training on up to 16,384 H100 GPUs there were **466 job interruptions**,
# 47 planned (firmware upgrades, configuration or dataset changes) and **419 unexpected**, about
# one every 3.1 hours; only three needed significant manual intervention, and Meta reports
# **more than 90% effective training time**. By root cause (Table 5, counts; the printed share of
# "Faulty GPU", 30.1%, does not match its count, 148/419 = 35.3%, so shares here come from the
# counts):

# %%
groups = rel.interruption_table("group")
top = rel.interruption_table().head(8)
meta = rel.interruption_table("meta_category").set_index("meta_category")["count"]
hw = int(meta[["GPU", "Host", "Unplanned Maintenance"]].sum())
print(f"Meta's GPU, Host and Unplanned Maintenance rows: {hw} of {int(meta.sum())} "
      f"({hw / meta.sum():.1%}); this table files the NIC (Host) with the network")
display(plots.table(groups, {"share": "{:.1%}"}))
plots.table(top, {"share": "{:.1%}", "printed_percent": "{:.1f}%"})

# %% [markdown]
# Meta counts "confirmed hardware issues, such as GPU or host component failures, or suspected
# hardware-related issues like silent data corruption and unplanned individual host maintenance"
# as about 78% of the unexpected interruptions; those rows of Table 5 (Meta's GPU, Host and
# Unplanned Maintenance categories) add up to the share printed above. Software bugs are 13%, network switches and cables 8%. Numerical trouble (NaNs, loss
# spikes that force a rollback) is not a row of Table 5, and Meta reports few loss spikes (§3.4.1);
# in other runs it is a real cost (OPT-175B, section 9). The per-GPU rate this implies:

# %%
# NBVAL_CHECK_OUTPUT
lam_llama = rel.failure_rate_per_gpu_year(419, 54, 16384)
lam_all = rel.failure_rate_per_gpu_year(466, 54, 16384)
print(f"Llama 3 unexpected: {lam_llama:.3f} per GPU-year -> MTBF at 16,384 GPUs "
      f"{rel.cluster_mtbf_s(16384, lam_llama) / 3600:.2f} h (all 466: "
      f"{rel.cluster_mtbf_s(16384, lam_all) / 3600:.2f} h)")
for name, r_f in rel.KOKOLIS_RATES_PER_1000_NODE_DAYS.items():
    lam = rel.rate_per_node_days_to_per_gpu_year(r_f)
    print(f"Kokolis {name}: {r_f} per 1000 node-days = {lam:.3f} per GPU-year -> "
          f"{rel.cluster_mtbf_s(16384, lam) / 3600:.2f} h at 16,384 GPUs")

# %% [markdown]
# **Kokolis et al. 2024** ("Revisiting Reliability in Large-Scale Machine Learning Research
# Clusters", arXiv:2410.21680, HPCA 2025) measured Meta's two A100 research clusters for 11 months:
# r_f = 6.50 (RSC-1) and 2.34 (RSC-2) failures per 1000 node-days. Their projections (1.8 h at
# 16,384 GPUs, 0.23 h at 131,072) follow from r_f = 6.50 and 1/N scaling, but the *measured* MTTF
# of their 1,024-GPU jobs, 7.9 h, is about 3.7× shorter than that scaling predicts (28.8 h):
# small and medium jobs fail for reasons other than per-node hardware (user code, file systems,
# scheduling). Quote 7.9 h as measured and 1.8 h / 0.23 h as projections. Llama 3's rate sits
# between the two clusters' (different GPUs, health checks and failure definitions).

# %%
ns = 2 ** np.arange(6, 18)
kok = {f"Kokolis {k}": rel.rate_per_node_days_to_per_gpu_year(v)
       for k, v in rel.KOKOLIS_RATES_PER_1000_NODE_DAYS.items()}
ax = plots.mtbf_vs_gpus(ns, {"Llama 3 (H100)": lam_llama, **kok}, points=[
    (16384, 54 * 24 / 419, "Llama 3: 419 in 54 days"),
    (1024, rel.KOKOLIS_MEASURED_MTTF_1024_GPUS_H, "Kokolis: measured 7.9 h")])
ax.axvline(p["n_gpus"], color="0.6", lw=0.8, ls="--");

# %% [markdown]
# For this scenario, the job's MTBF, the chance that a day (or the whole run) passes without a
# failure, and the failures to expect over the run:

# %%
# NBVAL_CHECK_OUTPUT
day_ok = rel.probability_failure_free(86400, plan.mtbf_s)
run_ok = rel.probability_failure_free(run["wall_clock_s"], plan.mtbf_s)
print(f"job MTBF on {llmcost.fmt_gpus(p['n_gpus'])}: {llmcost.fmt_duration(plan.mtbf_s)}")
print(f"P(a day without failure) = {fmt_probability(day_ok)}; "
      f"P(the whole ideal run) = {fmt_probability(run_ok)}")
print(f"expected unexpected failures over the ideal run's "
      f"{llmcost.fmt_duration(run['wall_clock_s'])}: "
      f"{fmt_quantity(run['wall_clock_s'] / plan.mtbf_s, 3)}, plus "
      f"{fmt_quantity(p['fail_planned_per_day'] * run['wall_clock_days'], 3)} planned "
      "interruptions")

# %%
# NBVAL_CHECK_OUTPUT
display(Markdown(
    f"**Takeaway.** The job's MTBF falls as 1/n: at the scenario's "
    f"{p['fail_rate_per_gpu_year']:.3g} failures per GPU-year{spot_words}, its {p['n_gpus']:,}-GPU job "
    + (f"fails every {llmcost.fmt_duration(plan.mtbf_s)}" if np.isfinite(plan.mtbf_s) else
       "is not expected to fail") + f": {fmt_quantity(run['wall_clock_s'] / plan.mtbf_s, 3)} "
    f"unexpected failures and {fmt_quantity(p['fail_planned_per_day'] * run['wall_clock_days'], 3)} "
    f"planned interruptions to expect over its ideal {llmcost.fmt_duration(run['wall_clock_s'])},"
    f" and a chance of {fmt_probability(run_ok)} that the whole run passes without an unexpected failure. "
    "What each interruption costs is "
    "the question of the sections that follow."))

# %% [markdown]
# ## 2. What a checkpoint holds, and how long it takes to write
#
# A checkpoint must hold everything a restart needs: the weights, the fp32 master copy, the
# optimizer moments (Adam's m and v) and the data-loader and RNG state so that the run resumes on
# the same data stream. Gradients are not saved. With ZeRO/FSDP-style sharding every GPU writes its
# own shard, so the job writes in parallel; a *weights-only* checkpoint (for evaluation or export)
# is a seventh of a full one but cannot resume training without resetting the optimizer.
#
# Per parameter Ψ the recipe saves b_w (16-bit weights) + b_master + b_moments bytes, and each of the
# n ranks a little loader and RNG state s_loader:
#
# $$S = \Psi\,(b_w + b_{\text{master}} + b_{\text{moments}}) + n\,s_{\text{loader}}$$

# %%
recipes = pd.DataFrame([{"recipe": r.name, "bytes/param": r.bytes_per_param,
                         "full checkpoint (with loader and RNG state)": llmcost.fmt_bytes(
                             rel.checkpoint_size(spec.n_params, r, n_ranks=p["n_gpus"]).total_bytes),
                         "source": r.source} for r in rel.CHECKPOINT_RECIPES.values()])
display(plots.table(recipes))
parts = pd.Series({k: float(v) for k, v in plan.size.parts().items()}, name="bytes")
parts["total"] = plan.size.total_bytes
plots.table(parts.to_frame().assign(share=parts / plan.size.total_bytes),
            {"bytes": "{:.4g}", "share": "{:.2%}"}, index=True)

# %% [markdown]
# Writing it is a bandwidth problem: the storage system's aggregate bandwidth caps the job, each
# node's link to storage caps its share:
#
# $$w = \max\!\left(\frac{S}{B_{\text{storage}}},\ \frac{S}{N_{\text{nodes}}\,B_{\text{node}}}\right)$$
#
# This is a floor: metadata, file creation and serialisation add to it. Llama 3 wrote to Tectonic,
# Meta's distributed file system (240 PB on 7,500 SSD servers, **2 TB/s sustained, 7 TB/s peak**,
# §3.3.1), with per-GPU checkpoints of 1 MB to 4 GB. A 405B model under bf16-Adam is 5.67 TB:

# %%
# NBVAL_CHECK_OUTPUT
c405 = rel.checkpoint_size(405e9, "bf16-adam", n_ranks=16384, loader_rng_bytes_per_rank=0)
t2, t7 = (rel.checkpoint_write_time_s(c405.total_bytes, 2048, bw) for bw in (2e12, 7e12))
print(f"405B checkpoint (14 B/param): {c405.total_bytes / 1e12:.2f} TB, "
      f"{c405.per_rank_bytes / 1e9:.3f} GB per GPU over 16,384 GPUs")
print(f"write at Tectonic's 2 TB/s sustained: {t2:.2f} s; at 7 TB/s peak: {t7:.2f} s")
print(f"this scenario: {llmcost.fmt_bytes(plan.size.total_bytes)}, "
      f"{llmcost.fmt_bytes(plan.size.per_rank_bytes)} per GPU, write {fmt_duration(plan.write_s)} at "
      f"{fmt_bandwidth(p['ckpt_storage_bytes_per_s'])}")

# %% [markdown]
# **Takeaway.** A checkpoint is 14 bytes per parameter under bf16-Adam (no gradients), and
# sharded over thousands of GPUs it writes in seconds *if* the storage is provisioned for the
# bandwidth: what it costs depends on B, not on the bytes.

# %% [markdown]
# ## 3. Synchronous or asynchronous
#
# A **synchronous** checkpoint stops training until the state is on storage: δ = snapshot to
# host memory + write. An **asynchronous** one (PyTorch DCP `async_save`; CheckFreq, Mohan et al.
# FAST'21; ByteCheckpoint, arXiv:2407.20143) blocks only for the device-to-host snapshot and
# writes in the background. Two catches: the newest checkpoint is not durable until its write
# ends, so a failure loses on average the write time w more work,
#
# $$\delta_{\text{sync}} = t_{\text{snapshot}} + w, \qquad \delta_{\text{async}} = t_{\text{snapshot}} + \max(0,\ w - \tau), \qquad E[\text{lost}]_{\text{async}} = \frac{\tau}{2} + w,$$
#
# and checkpoints closer than w apart stall on the previous write.
# Published gains: PyTorch DCP async cut one 7B checkpoint's downtime from 148.8 s to 6.3 s
# (PyTorch blog, Meta and IBM, 2024); ByteCheckpoint reports a 54.2× average stall reduction.

# %%
rows = {}
for label, a in (("synchronous", False), ("asynchronous", True)):
    pl = rel.scenario_checkpoint_plan(p, spec.n_params, per_node, async_=a, interval_s=None,
                                      run_s=work_s)
    rows[label] = {"stall per checkpoint (s)": pl.stall_s, "write (s)": pl.write_s,
                   "interval (min)": pl.interval_s / 60, "restart incl. durability lag (s)":
                   pl.restart_s, "storage duty": pl.storage_duty, "goodput": pl.goodput}
plots.table(pd.DataFrame(rows).T, {"goodput": "{:.2%}", "storage duty": "{:.1%}"}, index=True)

# %% [markdown]
# **The storage duty cycle.** An asynchronous checkpoint blocks only for the snapshot, so the
# optimum of section 4 puts checkpoints very close together, and then the *storage* is the limit:
# one write of w seconds per period τ + δ keeps it busy a share
#
# $$u = \frac{w}{\tau + \delta} \le u_{\max} \le 1 \quad\Longrightarrow\quad \tau \ge \frac{w}{u_{\max}} - \delta .$$
#
# u ≤ 1 is physics (the write must end before the next begins); a smaller u_max leaves bandwidth to
# the data loader and to the cluster's other jobs, which share the file system.
# `rel.checkpoint_plan(..., max_storage_duty=)` applies the bound; `plan.storage_duty` reports u.

# %%
# NBVAL_CHECK_OUTPUT
a = rel.scenario_checkpoint_plan(p, spec.n_params, per_node, async_=True, interval_s=None,
                                 run_s=work_s)
print(f"asynchronous optimum: a {llmcost.fmt_bytes(a.size.total_bytes)} write of {fmt_duration(a.write_s)} "
      f"every {fmt_duration(a.interval_s)} keeps the storage busy {a.storage_duty:.1%} of the time: "
      f"{fmt_bandwidth(a.sustained_write_bytes_per_s)} sustained, "
      f"{llmcost.fmt_bytes(a.sustained_write_bytes_per_s * 86400)} written a day")

# %%
bw, held = p["ckpt_storage_bytes_per_s"], max(p["ckpt_keep_last"], 1) * float(plan.size.total_bytes)
small = rel.tier_bandwidth_bytes_per_s(p["ckpt_hot_tier"], held)  # a tier sized for capacity only
cases = {f"the scenario's storage, {fmt_bandwidth(bw)}": {"storage_bytes_per_s": bw},
         "same, at most 5% for checkpoints": {"storage_bytes_per_s": bw, "max_storage_duty": 0.05},
         f"a tenth: {fmt_bandwidth(bw / 10)}": {"storage_bytes_per_s": bw / 10},
         f"{p['ckpt_hot_tier']} sized to hold the checkpoints: {fmt_bandwidth(small)}":
             {"storage_bytes_per_s": small}}
rows = rel.scenario_checkpoint_cases(p, spec.n_params, per_node, cases, async_=True,
                                     interval_s=None, run_s=work_s)  # a case may never finish
plots.table(rel.checkpoint_cases_frame(rows),
            {"write (s)": "{:,.1f}", "interval (s)": "{:,.0f}", "restart (s)": "{:,.0f}",
             "storage duty": "{:.1%}", "goodput": "{:.2%}"}, index=True)

# %%
# NBVAL_CHECK_OUTPUT
base, capped = list(rows.values())[:2]
print(f"asynchronous at the optimum interval, on the scenario's {fmt_bandwidth(bw)}: duty u = {base.storage_duty:.1%}, interval "
      f"{fmt_duration(base.interval_s)}; at most 5% for checkpoints: interval {fmt_duration(capped.interval_s)}, "
      f"goodput {base.goodput:.2%} -> {capped.goodput:.2%}")
tenth = rows[f"a tenth: {fmt_bandwidth(bw / 10)}"]
print(f"at a tenth, {fmt_bandwidth(bw / 10)}: " + (f"the run {tenth}" if isinstance(tenth, str) else
      f"a write takes {fmt_duration(tenth.write_s)} against the {fmt_duration(base.interval_s)} "
      "interval above, " + (f"so the write itself sets the interval ({fmt_duration(tenth.interval_s)}) "
                            f"and the storage writes {tenth.storage_duty:.0%} of the time"
                            if tenth.write_s >= base.interval_s else
                            f"the interval becomes {fmt_duration(tenth.interval_s)} and the storage "
                            f"writes {tenth.storage_duty:.0%} of the time")))

# %% [markdown]
# At the scenario's bandwidth the sustained write rate and the bytes written a day (printed above the table) are a load the shared file system carries besides the data loader and the cluster's other jobs; capping checkpoints at 5% of it lengthens the interval, at the goodput printed just above (with the duty u, and the interval with and without the cap). On a tenth of the bandwidth a write can outlast the optimum interval; the write then sets the interval itself (τ = w) and the storage writes nearly all the time (the last line above says which holds here), and a tier bought only for capacity (FSx for Lustre sells 125 MB/s per TiB) takes far longer per write *and per restart read*: the bandwidth,
# not the bytes, is what checkpoint storage must be bought for (section 7).
#
# **In-memory and peer checkpoints.** The other way out is not to go to storage on the critical
# path at all. **Gemini** (Wang et al., SOSP 2023) keeps each checkpoint in the host memory of its
# own machine and of peer machines, sends the copies over the training network in the idle gaps,
# checkpoints every iteration and recovers 13× faster than from remote storage; persistent storage
# is the fallback when a machine and all its peers fail together. **CheckFreq** (Mohan et al.,
# FAST 2021) pipelines snapshot and persist and tunes the frequency online; **ByteCheckpoint**
# (arXiv:2407.20143) does the same at ByteDance scale with load-time re-sharding. Modelled by
# `rel.peer_checkpoint_plan`: δ = snapshot, one peer copy over the scale-out NIC, restart from a
# peer's memory, a share f of failures falling back to the durable plan (f is not published:
# both bounds of a plausible range are shown).

# %%
# NBVAL_CHECK_OUTPUT
peer_bw = gpu.scaleout_bytes_per_s_per_dir or p["ckpt_node_bytes_per_s"] / per_node
peer_bw = p["ckpt_node_bytes_per_s"] / per_node if np.isnan(peer_bw) else peer_bw
absent = rel.peer_checkpoint_absent(p["n_gpus"], per_node, plan.mtbf_s,  # Gemini: copies
                                    p["fail_planned_per_day"])         # in other machines
for f in () if absent else (0.0, 0.25)[:2 if np.isfinite(plan.mtbf_s) else 1]:  # fallback: a failure
    pc = rel.peer_checkpoint_plan(float(plan.size.per_rank_bytes), p["n_gpus"], p["fail_rate_per_gpu_year"],
                                  peer_bw, p["ckpt_restart_s"], p["ckpt_d2h_bytes_per_s"], fallback_share=f,
                                  fallback_restart_s=plan.restart_s + plan.interval_s / 2,  # + lost work
                                  planned_per_day=p["fail_planned_per_day"], run_s=work_s)
    print(f"peer checkpoints, {f:.0%} of failures fall back to storage: every "
          f"{fmt_duration(pc.interval_s)}, copy {pc.copy_s:.2f} s, restart {fmt_duration(pc.restart_s)}, "
          f"goodput {pc.goodput:.2%} (durable checkpoints: {plan.goodput:.2%})")
if absent:  # one machine, or nothing to restore
    print(f"peer checkpoints: {absent}")

# %% [markdown]
# Restoring is the reverse trip plus everything around it: detect the failure, swap the bad
# node, relaunch thousands of processes, initialise NCCL communicators, read the checkpoint, and
# restart the data loader at the right sample. If the restarted job has a different layout
# (fewer nodes, another data-parallel size) the state must also be re-sharded. The fixed part
# dominates: Kokolis et al. assume 5 minutes of restart overhead; MegaScale (ByteDance,
# arXiv:2402.15627 §6.3) detects and diagnoses faults in under 10 minutes and catches up within 15.
#
# **Restart time is the waste no interval removes.** Once checkpoints are cheap, the term R/M is
# what no checkpoint interval shrinks; how large a share of the waste it is depends on the job (the
# split is printed below, for this scenario and for a Llama-3-sized job), and R at scale is mostly
# not the checkpoint read. Phase by phase:
# the **scheduler** detects the fault, drains and replaces the node and relaunches thousands of
# processes; **initialisation** builds process groups and NCCL communicators (MegaScale reports about
# 1,000 s on 2,048 GPUs before fixing it, §3.5; see the table); **checkpoint loading** is the read below; then a
# **warm-up** of the data loader and the first steps. Llama 3 (§3.3.4) names reduced "job startup and
# checkpointing time" as what raised its effective training time, without the figures. Published
# recovery times at scale:

# %%
restore = pd.DataFrame({
    label: rel.restart_time_s(plan.size.total_bytes, rel.nodes_for(plan.size.n_ranks, per_node),
                              p["ckpt_storage_bytes_per_s"], p["ckpt_restart_s"],
                              p["ckpt_node_bytes_per_s"], reshard_fraction=f).parts()
    for label, f in (("same layout", 0.0), ("re-sharded", 1.0))})
restore.loc["total"] = restore.sum()
display(plots.table(rel.restart_times_published(), {"seconds": "{:,.0f}"}))
plots.table(restore, "{:,.1f} s", index=True)

# %% [markdown]
# The same restart built phase by phase (`rel.restart_phases_s`) with the scenario's checkpoint
# read, the assumed node-replacement wait and MegaScale's initialisation times on 2,048 GPUs
# (§3.5), before and after their fixes, and under the table the unoptimised start-up set against the
# whole restart the scenario assumes (`ckpt_restart_s`): once start-up is fixed, the wait for a node
# is what remains, which is what hot spares remove.

# %%
phases = pd.DataFrame({f"initialisation {when} MegaScale's fixes": rel.restart_phases_s(
    rel.node_replacement_s(p["ckpt_restart_s"]), init_s, plan.restart.read_s + plan.restart.reshard_s)
    for when, init_s in (("before", rel.MEGASCALE_INIT_S["before"]),
                         ("after", rel.MEGASCALE_INIT_S["after"]))})
display(plots.table(phases, "{:,.0f} s", index=True))
init = rel.MEGASCALE_INIT_S["before"]   # MegaScale's start-up before its fixes, 2,048 GPUs
print(f"MegaScale's unoptimised start-up, {fmt_duration(init)}, is {init / p['ckpt_restart_s']:.2g}x "
      f"the scenario's whole restart (ckpt_restart_s = {fmt_duration(p['ckpt_restart_s'])})")

# %%
# NBVAL_CHECK_OUTPUT
b = plan.breakdown
print(rel.lost_time_words(b))
llama_size = rel.checkpoint_plan(405.85e9, 16384, lam_llama, 2e12, 600, node_bytes_per_s=5e10,
                                 planned_per_day=47 / 54).breakdown  # Llama 3's job (section 6)
for name, bd in (("this scenario", b), ("a Llama-3-sized job", llama_size)):
    if 1 - bd.productive <= 1e-12:  # nothing lost: no share to give
        continue
    parts = {"restarts after failures": bd.restart, "planned interruptions": bd.planned,
             "lost work": bd.lost_work, "checkpoint stalls": bd.checkpoint}
    top = max(parts, key=parts.get)
    print(f"{name}: restarts after failures are {bd.restart / (1 - bd.productive):.0%} of the loss; "
          + ("they are its largest part" if top == "restarts after failures" else
             f"its largest part is {top} ({parts[top] / (1 - bd.productive):.0%})"))

# %% [markdown]
# **Hot spares.** A restart that must wait for the scheduler to find a healthy node loses that wait
# on every hardware failure (about 77% of Llama 3's unexpected interruptions, Table 5). Nodes kept
# idle and ready remove it, at the price of paying for them all run long. `rel.hot_spare_table`
# assumes here that half of the scenario's restart overhead, `ckpt_restart_s`, is that wait
# (`rel.node_replacement_s`, an assumption: no run publishes the split), for the scenario and for a
# Llama-3-sized job:

# %%
big = rel.checkpoint_plan(spec.n_params, 16384, p["fail_rate_per_gpu_year"], None,
                         p["ckpt_restart_s"], p["ckpt_recipe"], per_node, p["ckpt_node_bytes_per_s"],
                         planned_per_day=p["fail_planned_per_day"])
spares = pd.concat({f"{n:,} GPUs": rel.hot_spare_table(pl, per_node, rel.node_replacement_s(p["ckpt_restart_s"]), planned_per_day=
                                                       p["fail_planned_per_day"])
                    for n, pl in ((p["n_gpus"], plan), (16384, big))})
spares.index.names = ["job", "spare nodes"]
plots.table(spares, {"restart_s": "{:,.0f}", "goodput": "{:.3%}", "cost_per_kept_gpu_hour": "{:.4f}",
                     "vs_no_spares": "{:.4f}"}, index=True, words=plots.COLUMN_WORDS)

# %% [markdown]
# **Takeaway.** Asynchronous checkpoints cut the stall to the snapshot, but only as far as the
# storage can absorb the writes (u = w/(τ+δ) ≤ 1). After that the restart time R is the waste that
# no checkpoint interval touches: in-memory (peer) checkpoints, faster initialisation and hot spares
# shorten R, and spares pay only when failures are frequent enough (many GPUs) for the saved
# minutes to outweigh the idle nodes.

# %% [markdown]
# ## 4. How often to checkpoint: Young and Daly
#
# Each checkpoint costs δ; each failure throws away the work since the last checkpoint (on
# average τ/2) plus the restart R. Per unit of time there is one checkpoint per τ and one failure
# per M, so the waste is, to first order,
#
# $$W(\tau) \approx \frac{\delta}{\tau} + \frac{\tau/2 + R}{M}, \qquad \frac{dW}{d\tau} = -\frac{\delta}{\tau^2} + \frac{1}{2M} = 0 \;\Longrightarrow\; \tau^* = \sqrt{2\,\delta M}, \quad W^* = \sqrt{\frac{2\delta}{M}} + \frac{R}{M}$$
#
# **Young's interval** (Young 1974, CACM 17(9)).
# Daly (2006, FGCS 22(3)) solved the complete model (failures may also strike during checkpoints
# and restarts): the expected wall time for T_s seconds of work is
#
# $$T_w = M\,e^{R/M}\left(e^{(\tau+\delta)/M} - 1\right)\frac{T_s}{\tau}, \qquad \text{goodput} = \frac{T_s}{T_w},$$
#
# and his
# higher-order estimate is τ = √(2δM)·[1 + ⅓√(δ/2M) + ⅑(δ/2M)] − δ for δ < 2M (τ = M beyond).
# This workbook also solves Daly's model exactly (a Lambert-W root, `rel.optimal_interval`). The
# worked example: δ = 60 s and M = 3 h give Young 1138.4 s and Daly 1098.8 s.

# %%
# NBVAL_CHECK_OUTPUT
print(f"δ = 60 s, M = 10,800 s: Young {rel.young_interval(60, 10_800):.1f} s, "
      f"Daly {rel.daly_interval(60, 10_800):.1f} s, exact {rel.optimal_interval(60, 10_800):.1f} s")
print(f"scenario: δ = {plan.stall_s:.2f} s, M = {fmt_duration(plan.mtbf_s)}, "
      f"R = {plan.restart_s / 60:.1f} min -> {rel.checkpoint_interval_words(plan.interval_s, work_s)}, "
      f"goodput {plan.goodput:.2%}")

# %%
if np.isfinite(plan.mtbf_s):  # around Young's interval
    taus = np.geomspace(0.02, 50, 300) * rel.young_interval(max(plan.stall_s, 1e-3), plan.mtbf_s)
    plots.waste_vs_interval(taus, max(plan.stall_s, 1e-3), plan.mtbf_s, plan.restart_s);
else:  # fail_rate_per_gpu_year: 0
    print("no failures: the waste is δ/τ alone, falling as τ grows, so no interval is optimal "
          "and the run takes no checkpoint")

# %% [markdown]
# The curve is flat near its minimum (halving or doubling τ costs little) and steep on the
# side of checkpointing too rarely. The restart term R/M does not depend on τ at all: no interval
# removes it, only faster recovery does. The plot leaves out **planned interruptions** (Llama 3:
# 47 in 54 days), which cost p·(δ + R) of wall time at p per day whatever the interval; the
# waterfall of section 5 includes them.
#
# **Takeaway.** τ* = √(2δM): checkpoint more often when checkpoints are cheap or failures frequent;
# missing the optimum by 2× costs little, and R/M stays whatever τ is.
#
# ## 5. From ideal GPU-hours to paid GPU-hours
#
# Every GPU of the job is held, and paid, through checkpoint stalls, recomputed work, restarts and
# planned interruptions. The run is finite: T seconds of work take k = ⌈T/τ⌉ − 1 checkpoints (none at
# its end), so it runs k segments of τ + δ and a last one of T − kτ, each restarted from its start
# after a failure, with Daly's expected wall time of a segment of x seconds,
# E(x) = e^{R/M}·M·(e^{x/M} − 1): T_w = k·E(τ + δ) + E(T − kτ) and g = T / T_w
# (`rel.finite_run_breakdown`; τ is the whole split of T nearest Daly's optimum,
# `rel.finite_run_interval`). A run many intervals long has Daly's steady state; a run shorter
# than one interval takes no checkpoint at all. With goodput g,
#
# $$\text{paid GPU-hours} = \frac{\text{ideal GPU-hours}}{g}, \qquad \text{whole-run utilisation} = \text{MFU} \times g .$$

# %%
wf = rel.run_reliability(run["gpu_hours"], p["n_gpus"], plan.stall_s, plan.mtbf_s,
                         plan.restart_s, plan.interval_s, p["fail_planned_per_day"], price)
display(plots.table(wf, {"gpu_hours": fmt_quantity, "share": "{:.2%}", "usd": plots.whole_usd}))
plots.goodput_waterfall(wf);

# %%
# NBVAL_CHECK_OUTPUT
paid = wf.set_index("line").loc["paid"]
lost_usd = paid["usd"] - run["compute_cost_usd"]
print(f"goodput {wf.attrs['goodput']:.2%}: paid {fmt_quantity(paid['gpu_hours'])} GPU-hours for "
      f"{fmt_quantity(run['gpu_hours'])} ideal; {fmt_period(wf.attrs['wall_clock_days'], 'days')} of wall clock")
print(f"failures, checkpoints and restarts cost {fmt_quantity(paid['gpu_hours'] - run['gpu_hours'])} "
      f"GPU-hours = {llmcost.fmt_usd(lost_usd)} at ${price:.2f}/GPU-h; "
      f"{fmt_quantity(wf.attrs['expected_failures'], 3)} failures expected over the real "
      "(longer) run")

# %% [markdown]
# **Takeaway.** Every lost minute is paid on every GPU of the job: a 2% loss of goodput is 2% of
# the compute bill; what it costs this scenario is the line printed above.

# %% [markdown]
# ## 6. Steady-state MFU is not whole-run utilisation: Llama 3.1 405B
#
# Llama 3 405B reports a steady-state BF16 MFU of 38–43% (41% for the 16,384-GPU, 8K-context
# configuration, Table 4), while the model card's 30.84M H100 GPU-hours for 15.6T tokens imply a
# lower whole-run utilisation, counted by 6ND or on the workbook's MFU basis (attention over the
# full matrix; `llmcost.published_run_mfu()`; both are printed below). Multiplying the
# steady-state MFU by the goodput of this notebook's model, with Llama 3's failure rates, Tectonic's
# bandwidth and a 10-minute restart (an assumption: Meta does not publish it), explains part of
# the gap:

# %%
# NBVAL_CHECK_OUTPUT
published = llmcost.published_run_mfu().set_index("run_id").loc["llama3-405b"]
llama = rel.checkpoint_plan(405.85e9, 16384, lam_llama, 2e12, 600, node_bytes_per_s=5e10,
                            planned_per_day=47 / 54)
for label, whole in (("6ND", published["mfu_from_gpu_hours_6nd"]),
                     ("MFU basis", published["mfu_from_gpu_hours_detailed"])):
    g = rel.mfu_gap(published["reported_mfu"], llama.goodput, whole)
    print(f"{label:>9}: steady {g['steady_state']:.1%} x goodput {llama.goodput:.1%} = "
          f"{g['predicted_whole_run']:.1%} vs published {g['published']:.1%}: explains "
          f"{g['explained'] * 100:.1f} of {g['gap'] * 100:.1f} points "
          f"({g['explained_share']:.0%}), {g['unexplained'] * 100:.1f} left")
llama5 = rel.checkpoint_plan(405.85e9, 16384, lam_llama, 2e12, 300, node_bytes_per_s=5e10,
                             planned_per_day=47 / 54)
print(f"with a 5-minute restart instead of 10: goodput {llama5.goodput:.1%}")

# %% [markdown]
# Goodput (printed above; Meta reports ">90% effective training time") explains the share of the
# gap printed for each way of counting the whole-run figure (Meta does not state its FLOP
# convention, so both are shown). The explained share rests on the assumed 10-minute restart (the
# goodput with 5 minutes is printed above), and the per-GPU
# failure rate assumes all 16,384 GPUs for the whole 54 days (the paper says "up to 16K"), so it
# is a lower bound on the rate. Beyond goodput:
#
# * **the long-context stage**: after 8K pre-training the context was extended in six stages to
#   128K on "approximately 800B training tokens" (§3.4.2), where Table 4 reports 38% MFU and each
#   token costs more FLOPs than at 8K. The stages' lengths are not published, so the next cell
#   gives an upper bound, as if all 800B tokens had been at 128K;
# * **the batch-size ramp** (4M → 8M → 16M tokens per step, §3.4.1) on fewer GPUs or at lower
#   efficiency, and the annealing stage;
# * time the 54-day snapshot does not cover, and slow-downs that are not interruptions:
#   stragglers, a 1–2% diurnal throughput swing Meta attributes to temperature, evaluation, and
#   data-mix or configuration changes made while the job was stopped.

# %%
# NBVAL_CHECK_OUTPUT
lc = rel.long_context_extra_share(llmcost.load_model("llama-3.1-405b"), 8192, 131072,
                                  0.41, 0.38, 0.8e12, 15.6e12)  # Table 4 MFUs; §3.4.2 tokens
print(f"405B model FLOPs per token / 6N: {lc['ratio_short']:.3f} at 8K, {lc['ratio_long']:.3f} at "
      f"128K; a 128K token at 38% MFU takes {lc['cost_ratio']:.2f}x the GPU-time of an 8K token at 41%")
print(f"800B after 15.6T tokens at 128K would add at most {lc['extra_share']:.1%} GPU-time: whole-run "
      f"MFU {g['predicted_whole_run']:.1%} -> {g['predicted_whole_run'] / (1 + lc['extra_share']):.1%}")
with_lc = g["predicted_whole_run"] / (1 + lc["extra_share"])

# %%
# NBVAL_CHECK_OUTPUT
for label, whole in (("6ND", published["mfu_from_gpu_hours_6nd"]),
                     ("MFU basis", published["mfu_from_gpu_hours_detailed"])):
    share = (published["reported_mfu"] - with_lc) / (published["reported_mfu"] - whole)
    print(f"{label:>9}: {with_lc:.1%} against the published {whole:.1%}: "
          + (f"{(with_lc - whole) * 100:.1f} points of the gap left ({share:.0%} explained)"
             if with_lc >= whole else
             f"{(whole - with_lc) * 100:.1f} points below it ({share:.0%} of the gap): the "
             "bound overshoots, so the real long-context stages explained less"))

# %% [markdown]
# With that upper bound the last two lines compare goodput and the long-context stage together
# with the published whole-run figure on each basis: where the prediction stays above it, the
# points left are what the stages and slow-downs listed above must explain; where it passes below,
# the bound overshoots (the stages were shorter than all 800B tokens at 128K). Nothing is tuned to
# this run beyond the assumed restart time. The bound is loose in one direction only: shorter
# long-context stages explain less.

# %% [markdown]
# **Takeaway.** Steady-state MFU × goodput, plus the stages run at other efficiencies, accounts for
# the gap between the MFU a paper reports and the GPU-hours its model card states.

# %% [markdown]
# ## 7. Storage: what keeping checkpoints costs
#
# Restarts need the newest checkpoint on fast storage; rollbacks after a loss spike need a few
# older ones; audits, ablations and continued training need milestones, which can live in cold
# storage. Storage is priced per GB-month, and AWS's GB is 2^30 bytes (its S3 FAQ divides byte-hours by
# 1,073,741,824 bytes per GB; FSx for Lustre provisions GiB), and the tiers differ by two orders of
# magnitude (`data/storage_prices.csv`, sources per row):

# %%
prices = rel.load_storage_prices()
plots.table(prices[["name", "tier", "product", "price_usd_per_gb_month", "date"]],
            {"price_usd_per_gb_month": "${:.5f}"})

# %%
storage = rel.retention_policies(plan, p, wf.attrs["wall_clock_days"], spec.n_params)
plots.table(storage, "${:,.0f}", index=True)

# %%
# NBVAL_CHECK_OUTPUT
scen_storage = storage.iloc[0]["total"]
density = rel.storage_throughput_per_tib(p["ckpt_hot_tier"])  # None: not sold per TiB
if density:
    tib = p["ckpt_storage_bytes_per_s"] / density
    print(f"{p['ckpt_hot_tier']} at {fmt_bandwidth(p['ckpt_storage_bytes_per_s'])} needs "
          f"{fmt_quantity(tib, 2)} TiB provisioned ({tib * 2**40 / plan.size.total_bytes:,.0f}× one checkpoint)")
print(f"storage for the scenario's policy: {llmcost.fmt_usd(scen_storage)} "
      f"({scen_storage / run['compute_cost_usd']:.2%} of the ideal compute cost)")
warning = rel.storage_share_warning(scen_storage, run["compute_cost_usd"])
print(warning or f"storage is below the {rel.STORAGE_SHARE_WARNING:.0%} of compute this "
      "workbook calls out")

# %% [markdown]
# ### How fast should checkpoint storage be?
#
# Faster storage shortens every write δ and every restore, so the run loses less GPU time; but a
# parallel file system sells throughput with capacity, so it costs more. The right bandwidth b
# minimises the sum over the run, for H ideal GPU-hours at price p and goodput g(b) (Daly 2006, the
# plan of sections 3–5):
#
# $$\text{cost}(b) = \underbrace{H\left(\frac{1}{g(b)} - 1\right) p}_{\text{GPU time lost}} + \underbrace{\max\!\left(\frac{b}{\text{throughput per TiB}},\ k \cdot \text{checkpoint}\right) \times \text{months} \times \text{price per GB-month}}_{\text{hot storage}}$$
#
# `rel.storage_tradeoff` evaluates it on a grid of bandwidths; the bill sizes the storage at its
# minimum when the scenario leaves `ckpt_storage_bytes_per_s` out.

# %%
job_rate = rel.job_storage_bytes_per_s(p["n_gpus"])  # Llama 3's 122 MB/s per GPU
tradeoff = {a: rel.scenario_storage_tradeoff({**p, "ckpt_async": a}, spec.n_params,
                                            run["gpu_hours"], storage_price, per_node,
                                            also=[job_rate])
            for a in (False, True)}
plots.storage_tradeoff_curve(tradeoff[p["ckpt_async"]],
                             marks={f"{p['n_gpus']:,} × 122 MB/s (Llama 3's rate)": job_rate})
plt.show()

# %%
# NBVAL_CHECK_OUTPUT
rows = {}
for a, t in tradeoff.items():
    kind = "asynchronous" if a else "synchronous"
    at_job = t.loc[job_rate]
    rows[f"{kind}, optimum"] = t.attrs["optimum"]
    rows[f"{kind}, {fmt_bandwidth(job_rate)}"] = {"storage_bytes_per_s": at_job.name, **at_job}
df = pd.DataFrame(rows).T.assign(GBps=lambda d: d["storage_bytes_per_s"] / 1e9)
plots.table(df[["GBps", "goodput", "lost_usd", "storage_usd", "total_usd"]],
            {"GBps": lambda g: fmt_quantity(g, 2), "goodput": "{:.2%}", "lost_usd": "${:,.0f}",
             "storage_usd": "${:,.0f}", "total_usd": "${:,.0f}"}, index=True)

# %%
# NBVAL_CHECK_OUTPUT
t = tradeoff[p["ckpt_async"]]
best, at_job = t.attrs["optimum"], t.loc[job_rate]
print(f"this scenario ({'asynchronous' if p['ckpt_async'] else 'synchronous'} checkpoints): "
      f"the cheapest storage is {fmt_bandwidth(best['storage_bytes_per_s'])}, storage "
      f"{llmcost.fmt_usd(best['storage_usd'])} + lost GPU time {llmcost.fmt_usd(best['lost_usd'])}"
      f" = {llmcost.fmt_usd(best['total_usd'])}; at {fmt_bandwidth(job_rate)} the sum is "
      f"{llmcost.fmt_usd(at_job['total_usd'])} (goodput {at_job['goodput']:.2%} against "
      f"{best['goodput']:.2%}, {100 * (at_job['goodput'] - best['goodput']):.2f} points)")
print(t.attrs["note"])

# %% [markdown]
# Capacity for the checkpoints themselves is cheap: a few full checkpoints and weekly milestones
# cost little next to compute. The **bandwidth** is what costs: a parallel file system sells
# throughput with capacity (FSx for Lustre: 125 MB/s per TiB on the tier priced here), so a hot
# tier fast enough to write checkpoints in seconds must be bought far larger than the checkpoints
# it holds, and that provisioned capacity, not the bytes kept, is most of the storage line. A
# slower, cheaper tier lengthens every synchronous checkpoint instead (sections 3–4): storage
# bandwidth is a trade between the storage bill and the goodput.
#
# **Takeaway.** Buy checkpoint storage for its bandwidth; keep a few checkpoints hot and the
# milestones cold.
#
# ## 8. False savings
#
# **Checkpointing less often.** Fewer checkpoints save storage writes and stall time, but every
# failure then throws away more work. At several times the optimum interval:

# %%
plots.table(rel.interval_sensitivity(p, spec.n_params, per_node, run["gpu_hours"], price),
            {"goodput": "{:.2%}", "paid GPU-hours": "{:,.0f}", "extra cost vs optimum": "${:,.0f}"})

# %% [markdown]
# **Spot capacity without resumable training.** Spot (pre-emptible) GPUs are cheaper than
# on-demand from the same provider (CoreWeave's H100 spot list price is 60% below its on-demand
# one, `data/prices.csv`), but a job that cannot resume must start over after every
# pre-emption. With exponential interruptions the expected wall time of T hours of work is
# (Daly's model with a single segment, τ = T, δ = R = 0)
#
# $$E[T_w] = M\left(e^{T/M} - 1\right),$$
#
# which explodes once the job is longer than its MTBF. A discount d pays only while the slowdown
# E[T_w]/T stays below 1/(1 − d):

# %%
x = np.geomspace(0.05, 20, 200)          # ideal run length / job MTBF
slow = rel.expected_wall_time_s(x, x, 0.0, 1.0) / x
ax = plt.figure(figsize=(8, 4.4), layout="constrained").gca()
ax.loglog(x, slow, label="no checkpoints: M·(exp(T/M) − 1) / T")
for disc in (0.4, 0.6):
    ax.axhline(1 / (1 - disc), ls=":", color="C3")
    ax.annotate(f"break-even at a {disc:.0%} discount", (0.06, 1 / (1 - disc)), fontsize=11,
                va="bottom" if disc > 0.5 else "top")
ax.set_xlabel("ideal run length ÷ job MTBF (T/M)")
ax.set_ylabel("expected wall time ÷ ideal")
ax.set_ylim(1, 1e4)
ax.set_title("A job that cannot resume must finish between interruptions")
ax.legend(fontsize=11, loc="upper left")
ax.figure.supxlabel("source: Daly 2006 (FGCS 22(3)) with one segment, rel.expected_wall_time_s; "
                    "discounts illustrative", fontsize=9, color="grey");

# %%
# NBVAL_CHECK_OUTPUT
for line in ledger.spot_verdict(bill):  # the bill's spot model (notebook 00)
    print(line)
n_nodes = rel.nodes_for(p["n_gpus"], per_node)
if scenario.get("ledger_spot_preemptions_per_node_day") is not None:  # no default rate
    r = ledger.spot_preemptions_per_node_day(scenario)
    for k in sorted({1, min(8, n_nodes), min(32, n_nodes)}):  # block sizes up to the whole job
        print(f"reclaims of {k} node{'s' if k > 1 else ''} at a time: {rel.bulk_reclaim_events_per_day(n_nodes, r, k):,.1f} "
              f"job interruptions a day, each replacing {llmcost.fmt_gpus(min(k * per_node, p['n_gpus']))}")

# %% [markdown]
# With checkpoints and automatic restarts, pre-emptions are just failures with a higher rate and
# a longer restart (capacity must be found again): the goodput model of section 4 applies with
# M = the pre-emption MTBF. Whether spot then pays depends on its discount against the price you
# would otherwise pay, not against a list price: spot pays when spot price ÷ spot goodput is below
# your price ÷ your goodput, which the last line checks for this scenario with the bill's own spot pricing (`llmcost.ledger`, notebook 00), once you give `ledger_spot_preemptions_per_node_day` (and `ledger_spot_restart_s`, else `ckpt_restart_s` is used) from your provider: none publishes a per-node GPU pre-emption rate, so the workbook has no default and prices spot only with yours (a GPU cloud's on-demand
# price can be below another provider's spot median). Without resumable training spot almost
# never pays for a run of days.

# %% [markdown]
# **Spot reclaims come in bulk.** The bill's spot model pre-empts each node independently (a
# node-by-node Poisson process). Providers reclaim capacity in blocks: a rack, a placement group, a
# whole reservation. For the same share of node-time lost, k-node reclaims interrupt the job k times
# less often (n·r/k a day, `rel.bulk_reclaim_events_per_day`), but each interruption needs k nodes
# found again before the job restarts, takes the peers' host memory with it (so in-memory
# checkpoints fall back to storage) and can leave the job waiting for capacity for hours. Which
# effect wins depends on the provider's block size and its time to re-provision, which no provider
# publishes: the node-by-node line above (printed when a pre-emption rate is given) is the model,
# the block case a caution.
#
# **Takeaway.** Spot pays only when its price ÷ its goodput beats yours ÷ yours, and only for a job
# that resumes from checkpoints.

# %% [markdown]
# ## 9. What the ideal estimate leaves out
#
# The goodput above covers interruptions of *one* run that finishes. The bill of a real training
# run has further lines this notebook does not model, and which can exceed it:
#
# * **rollbacks without failures**: loss spikes and divergence force a restart from an earlier
#   checkpoint, often with a changed learning rate or clipping; every rollback recomputes the work
#   since that checkpoint, which is why the hot tier keeps more than the newest one. The OPT-175B
#   chronicles (facebookresearch/metaseq, `projects/OPT/chronicles/10_percent_update.md`) record
#   restarts 11.0 to 11.10 after loss explosions and NaNs, an ECC failure among them;
# * **reruns**: that 11.xx lineage was then abandoned and the 175B run relaunched from scratch
#   with other settings (lineage 12.xx), on top of the dataset and ablation runs before it; such
#   runs are the "failed and exploratory runs" line of the ledger, not a failure rate;
# * **slow-downs that are not interruptions**: stragglers and fail-slow GPUs or links, which the
#   failure model does not see but which lower the steady-state MFU;
# * **queueing and capacity delays**: waiting for replacement nodes or for the whole allocation,
#   paid for when the capacity is reserved;
# * **evaluation, long-context and annealing stages** run at other efficiencies (section 6).

# %% [markdown]
# ## Exercises
#
# Use round numbers; the teaching accelerator `Teaching-1PF` (1 PFLOP/s bf16, `llmcost.list_accelerators()`)
# makes the compute easy.
#
# 1. **MTBF.** 10,000 GPUs fail at λ = 0.2 per GPU-year. What is the job's MTBF in hours, and the
#    chance of a failure-free day?
# 2. **Young.** A synchronous checkpoint blocks δ = 30 s and M = 4 h. What is the optimum interval,
#    and the first-order waste if each restart takes R = 10 min? Which term dominates?
# 3. **Duty cycle.** An asynchronous 1 TB checkpoint snapshots in 0.05 s and writes at 100 GB/s;
#    M = 4 h. What interval does Young give, what share of the time is the storage busy, and what
#    is the shortest interval if checkpoints may use at most 20% of it?
# 4. **Paid GPU-hours.** A run needs 10²⁴ FLOPs on 1,000 teaching accelerators at 50% MFU. How many
#    ideal days and GPU-hours is it, and how many at 90% goodput?

# %% [markdown]
# <details><summary>Worked answers</summary>
#
# 1. M = 8,766 h / (10,000 × 0.2) = **4.38 h**; P(no failure in 24 h) = e^{−24/4.38} = e^{−5.48} ≈
#    **0.4%**.
# 2. τ* = √(2 × 30 × 14,400) = √864,000 ≈ **930 s ≈ 15.5 min**; W ≈ √(2 × 30/14,400) + 600/14,400 =
#    6.45% + 4.17% ≈ **10.6%**. The checkpoint-and-lost-work part (6.45%) still leads, but R/M is 40%
#    of the waste and no interval removes it.
# 3. w = 10¹² / 10¹¹ = 10 s; τ* = √(2 × 0.05 × 14,400) ≈ **37.9 s**; u = 10 / (37.95 + 0.05) = 10 / 38.0 ≈ **26%**. With
#    u_max = 0.2: τ ≥ 10 / 0.2 − 0.05 ≈ **50 s**.
# 4. Time = 10²⁴ / (1,000 × 10¹⁵ × 0.5) = 2 × 10⁶ s = **23.1 days**, 1,000 × 555.6 h = **555,556
#    GPU-hours**; at 90% goodput ÷ 0.9: **25.7 days, 617,284 GPU-hours**.
# </details>

# %% [markdown]
# **Sources.** Young 1974 (CACM 17(9)); Daly 2006 (FGCS 22(3)); Llama Team 2024, arXiv:2407.21783
# (§3.3.1, §3.3.4, Table 5); Kokolis et al. 2024, arXiv:2410.21680; MegaScale, Jiang et al. 2024,
# arXiv:2402.15627 (NSDI '24); Gemini, Wang et al., SOSP 2023; CheckFreq, Mohan et al., FAST 2021;
# ByteCheckpoint, arXiv:2407.20143; FlashRecovery, arXiv:2509.03047; DeadPool, arXiv:2607.01646;
# `rel.RESTART_TIMES_PUBLISHED` for the restart figures and their status.

# %% [markdown]
# ## Headline figures
#
# The figures this notebook contributes to a report (`summary.json` / `summary.csv`):

# %%
resumable = scenario["ledger_resumable"]  # else the bill's figures (no checkpoints)
kept = plan.goodput if resumable else bill.figures["goodput"]
rows = [
    summary_row("checkpoint_bytes", "checkpoint size", float(plan.size.total_bytes), "B",
                f"{p['ckpt_recipe']}, full (weights, master, moments, loader/RNG)"),
    summary_row("checkpoint_stall_s", "stall per checkpoint", plan.stall_s, "s",
                "asynchronous" if p["ckpt_async"] else "synchronous"),
    summary_row("job_mtbf_hours", "job MTBF", plan.mtbf_s / 3600, "h",
                f"{p['fail_rate_per_gpu_year']:.3g} failures per GPU-year{spot_words} × {llmcost.fmt_gpus(p['n_gpus'])}"),
    summary_row("checkpoint_interval_min", "checkpoint interval", plan.interval_s / 60, "min",
                ("set in the scenario" if p["ckpt_interval_s"] else "Daly's optimum as a whole split of the run")
                + f"; {rel.checkpoint_interval_words(plan.interval_s, work_s)}"),
    summary_row("goodput", "goodput", kept, "", "share of paid GPU-time kept" + (
        "" if resumable else "; no checkpoints: a failure or planned stop restarts the run")),
]

# %%
# NBVAL_CHECK_OUTPUT
publish_summary("07_checkpoints", rows + [
    summary_row("paid_gpu_hours", "paid GPU-hours (main run)", float(
        paid["gpu_hours"] if resumable else run["gpu_hours"] / kept), "GPU-h",
                "ideal GPU-hours / goodput"),
    summary_row("failure_cost_usd", "cost of failures and checkpoints", float(
        lost_usd if resumable else bill.line("compute.failures").usd), "USD",
                f"${price:.2f} per GPU-hour"),
    summary_row("expected_failures", "expected failures", wf.attrs["expected_failures"], "",
                "unexpected, over the paid wall clock less planned stops"),
    summary_row("storage_cost_usd", "checkpoint storage", float(scen_storage) * resumable, "USD",
                f"{p['ckpt_hot_tier']} + {p['ckpt_cold_tier']}"),
    summary_row("whole_run_mfu", "whole-run utilisation", p["mfu"] * kept, "",
                "steady-state MFU × goodput"),
])

# %% [markdown]
# ## Explore
#
# Change the GPU count, the per-GPU failure rate, the checkpoint size, the storage bandwidth,
# asynchronous checkpointing and the restart time; the table and the waste curve follow. (In a
# report these widgets are switched off; run the notebook in Jupyter to use them.)

# %%
if interactive:
    from llmcost.present.widgets import reliability_explorer

    display(reliability_explorer(
        spec.n_params, p["n_gpus"], p["fail_rate_per_gpu_year"], p["ckpt_storage_bytes_per_s"],
        p["ckpt_async"], p["ckpt_restart_s"], run["gpu_hours"], price, p["ckpt_recipe"],
        p["ckpt_node_bytes_per_s"], p["ckpt_d2h_bytes_per_s"], p["fail_planned_per_day"],
        per_node, interval_s=p["ckpt_interval_s"]))

# %% [markdown]
# [← 00 · Index](00_index.ipynb) · previous: [06 · Train bigger or train longer?](06_chinchilla.ipynb) · next: [08 · How close are these estimates to real training runs?](08_published_runs.ipynb)
