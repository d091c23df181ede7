# Text twin of notebooks/04_communication.ipynb, written by `llmcost twins` (jupytext percent format).
# Edit the notebook, not this file; the twin exists so that a change reads as a diff.

# %% [markdown]
# # 04 · Where does the time go when GPUs wait?
#
# [← 00 · Index](00_index.ipynb) · previous: [03 · Parallelism and memory](03_parallelism.ipynb) ·
# next: [05 · Why is RL post-training hard to budget?](05_rl_loop.ipynb)
#
# Notebook 01 turned FLOPs into GPU-hours with an MFU the reader had to guess, and notebook 03
# found the plans that fit. This notebook **predicts** the MFU: for the scenario's model, cluster
# and plan it adds up what every GPU does during one optimizer step (matrix multiplications,
# memory-bound kernels, recomputation), what it waits for (collectives over NVLink and the
# network, activations from the previous pipeline stage, the pipeline filling and draining) and
# what it does once per step (the optimizer). It shows where the time goes, checks the prediction
# against published runs, and ranks every plan of the scenario by predicted step time.
#
# **Conventions.** MFU is on the workbook's basis: model FLOPs = `ModelSpec.flops_per_token(seq_len,
# causal=False)` (matmuls plus the full s×s attention core, no recomputation; PaLM, Megatron-LM,
# torchtitan) ÷ (step time × GPUs × dense peak). HFU adds recomputed FLOPs. Step time is the
# busiest GPU's. Bandwidths are per GPU and per direction; bytes are decimal. The achievable
# fractions of datasheet figures come from measurements, papers or Calculon's system files
# (`data/efficiency.csv`, each with its source; assumed values are flagged), and one constant is
# calibrated on per-layer timings (section 4).

# %% tags=["parameters"]
model: str = "llama-2-70b"  # catalogue model name (llmcost.list_models())
accelerator: str = "H100-SXM"  # catalogue accelerator name (llmcost.list_accelerators())
n_gpus: int = 2048  # accelerators in the training job
train_tokens: float = 2.0e12  # pre-training tokens
seq_len: int = 4096  # training sequence length in tokens
global_batch_tokens: int = 4194304  # tokens per optimizer step (1,024 sequences of 4,096)
mfu: float = 0.4  # the MFU the scenario assumes (compared with the prediction below)
dtype: str = "bf16"  # training compute precision: bf16 or fp8
price_usd_per_gpu_hour: float = 3.99  # USD per GPU-hour; None: the catalogue median for `pricing`
pricing: str = "on_demand"  # on_demand, reserved, spot or owned
tp: int = 0  # tensor-parallel size; 0: chosen
pp: int = 0  # pipeline-parallel stages; 0: chosen
dp: int = 0  # data-parallel size; 0: derived as n_gpus / (tp·pp·cp), or chosen
cp: int = 1  # context-parallel size; 0: chosen
ep: int = 0  # expert-parallel size, carved out of dp·cp; 0: chosen
zero_stage: int = -1  # ZeRO stage over the dp·cp group, 3 is FSDP; -1: chosen
recompute: str = "auto"  # activation recomputation: none, selective, full or auto
micro_batch_size: int = 0  # sequences per micro-batch; 0: chosen
optimizer_recipe: str = "bf16_adam_fp32_grads"  # precision recipe (llmcost.memory.RECIPES)
pp_schedule: str = "auto"  # pipeline schedule: 1f1b, interleaved, gpipe, zb-h1 or auto
pp_virtual_stages: int = 0  # model chunks per pipeline stage (interleaved schedule); 0: chosen
pp_split: str = "even"  # layer placement: even or embedding_and_loss
mem_reserve_fraction: float = 0.1  # fraction of HBM held back for buffers and fragmentation
stack: str = "megatron-core-2024"  # software-stack profile (data/stacks.csv, llmcost.stacks)
comm_tp_overlap: str = "auto"  # TP collectives overlapping GEMMs: none, backward, all; auto: the stack's
comm_pp_overlap: str = "auto"  # pipeline sends overlap compute: True, False; auto: the stack's
comm_dp_overlap: str = "auto"  # DP reduction and ZeRO gathers overlap compute: True, False; auto: the stack's
comm_scaleout_bytes_per_s: float = None  # scale-out bytes/s per GPU per direction; None: the catalogue's
comm_scaleout_latency_s: float = None  # scale-out ring-step latency, s; None: data/efficiency.csv
interactive: bool = True  # widgets on (reading) or off (report runs)

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import llmcost
from llmcost import accuracy, comm, parallel, plots, step
from llmcost.report import publish_summary, summary_row

p = llmcost.validate_parameters(
    model=model, accelerator=accelerator, n_gpus=n_gpus, train_tokens=train_tokens,
    seq_len=seq_len, global_batch_tokens=global_batch_tokens, mfu=mfu, dtype=dtype,
    price_usd_per_gpu_hour=price_usd_per_gpu_hour, pricing=pricing, tp=tp, pp=pp, dp=dp, cp=cp,
    ep=ep, zero_stage=zero_stage, recompute=recompute, micro_batch_size=micro_batch_size,
    optimizer_recipe=optimizer_recipe, pp_schedule=pp_schedule,
    pp_virtual_stages=pp_virtual_stages, pp_split=pp_split,
    mem_reserve_fraction=mem_reserve_fraction, comm_tp_overlap=comm_tp_overlap,
    comm_pp_overlap=comm_pp_overlap, comm_dp_overlap=comm_dp_overlap, stack=stack,
    comm_scaleout_bytes_per_s=comm_scaleout_bytes_per_s,
    comm_scaleout_latency_s=comm_scaleout_latency_s, interactive=interactive)
spec, gpu = llmcost.load_model(p["model"]), llmcost.catalog.scenario_accelerator(p)
cluster = llmcost.catalog.scenario_cluster(p)
plan, b = step.scenario_step(p, spec)       # the plan notebooks 02 and 03 use, and its step
opts = step.scenario_options(p)   # recipe, dtype, stack and its overlaps ("auto" resolved)
price, price_source = llmcost.resolve_price(p["accelerator"], p["price_usd_per_gpu_hour"],
                                            p["pricing"])

# %%
free = parallel.free_plan_parameters(p)
print(f"{spec.name} on {p['n_gpus']:,} × {gpu.name}, {p['global_batch_tokens']:,} tokens per step")
print(f"plan: {plan.describe()}")
print(f"chosen by predicted step time (llmcost.parallel.choose_plan): {', '.join(free)}" if free
      else "plan fixed by the scenario")
print(f"stack: {llmcost.stacks.load_stack(p['stack']).describe()}")
print(f"overlap: TP {opts['tp_overlap']}, PP {'on' if opts['pp_overlap'] else 'off'}, "
      f"DP {'on' if opts['dp_overlap'] else 'off'} (auto = the stack's)")

# %% [markdown]
# ## 1. Why a GPU waits
#
# A GPU in a training job spends its time computing, or waiting for something it cannot compute
# without:
#
# * **tensor-parallel collectives**: with TP the layer's matrices are split, so every layer needs
#   two all-reduces forward and two backward (all-gathers and reduce-scatters with sequence
#   parallelism) before the next matmul can start;
# * **activation passing**: a pipeline stage waits for the activations of the stage before it (and
#   for the gradients of the stage after it);
# * **pipeline alignment**: while the pipeline fills and drains, stages sit idle (the *bubble*, notebook
#   03), and the busiest stage (the one with the LM head, or more layers) sets the pace of all;
# * **expert routing**: in an MoE model every token travels to the GPUs holding its experts and
#   back, two all-to-alls per MoE layer and pass;
# * **gradient synchronisation**: data-parallel replicas average their gradients once per step
#   (ZeRO shards them, and ZeRO-3 also gathers the weights before every layer);
# * **data loading**: reading and tokenising the next batch. It runs on the CPU, ahead of the
#   GPU, and is assumed hidden here (the published runs below include it in their timings).
#
# Whether a wait costs time depends on whether something else can run meanwhile: a collective
# launched while independent matmuls run is *hidden*; one the next kernel needs is *exposed*.
#
# ## 2. The alpha-beta model and the two bandwidth tiers
#
# Sending S bytes over a link of bandwidth B_w takes α + S/B_w (Hockney 1994). Collectives over n
# ranks are chains of such steps (Thakur, Rabenseifner, Gropp 2005; Patarasuk & Yuan 2009):
#
# | collective | time | bytes each rank sends |
# |---|---|---|
# | ring all-reduce | 2(n−1)·α + 2(n−1)/n · S/B_w | 2(n−1)/n · S |
# | ring reduce-scatter, all-gather | (n−1)·α + (n−1)/n · S/B_w | (n−1)/n · S |
# | all-to-all (pairwise) | (n−1)·α + (n−1)/n · S/B_w | (n−1)/n · S |
# | double binary tree all-reduce | 2·log2(n)·α + 2·S/B_w | ≈ 2·S |
# | send/recv | α + S/B_w | S |
#
# nccl-tests reports **algorithm bandwidth** S/t and **bus bandwidth** = algbw × 2(n−1)/n
# (all-reduce) or × (n−1)/n (gathers, scatters, all-to-all): busbw is what compares with a GPU's
# link bandwidth, whatever n is. Two tiers of links matter: the **scale-up domain** (NVLink and
# NVSwitch inside an 8-GPU board) and the **scale-out network** (one InfiniBand or RoCE NIC per
# GPU), an order of magnitude slower. Each runs at a measured fraction of its datasheet speed. When
# a group spans domains with k members in each, NCCL runs one ring per NIC, so the k NICs of a
# domain work in parallel: bus bandwidth min(B_NVLink, k·B_NIC). Two worked examples, and a
# consistency check against the NVIDIA measurement the network fraction was taken from (so it
# confirms the bookkeeping, not the physics):

# %%
# NBVAL_CHECK_OUTPUT
t = comm.collective_time("all_reduce", 1e9, 8, 450e9, 10e-6)
print(f"ring all-reduce, 1 GB, n = 8, 450 GB/s, α = 10 µs: {t * 1e3:.3f} ms, "
      f"busbw {comm.bus_bandwidth('all_reduce', 1e9, t, 8) / 1e9:.1f} GB/s")
tree = comm.collective_time("all_reduce", 1e6, 1024, 50e9, 5e-6, algorithm="tree")
print(f"double binary tree, 1 MB, n = 1024: {tree * 1e3:.2f} ms "
      f"(ring: {comm.collective_time('all_reduce', 1e6, 1024, 50e9, 5e-6) * 1e3:.2f} ms)")
dgx = llmcost.Cluster(llmcost.load_accelerator("A100-80GB"), 64)
t = comm.cluster_collective_time("all_reduce", 8e9, 64, dgx)
print(f"8 DGX A100 (8 × 200 Gb/s NICs each), all-reduce busbw: "
      f"{comm.bus_bandwidth('all_reduce', 8e9, t, 64) / 1e9:.0f} GB/s (NVIDIA measured 192, "
      "nccl #812, the source of the 0.96 network fraction)")

# %%
tiers = llmcost.list_accelerators().merge(llmcost.catalog.list_efficiency(), how="left",
                                          left_on="name", right_on="accelerator")
tiers = tiers.dropna(subset=["scaleout_bytes_per_s_per_dir", "scaleup_fraction"])
plots.table(pd.DataFrame({
    "accelerator": tiers["name"],
    "scale-up GB/s": tiers["scaleup_bytes_per_s_per_dir"] / 1e9,
    "achieved (up)": tiers["scaleup_fraction"],
    "scale-out GB/s": tiers["scaleout_bytes_per_s_per_dir"] / 1e9,
    "achieved (out)": tiers["scaleout_fraction"],
    "ratio": tiers["scaleup_bytes_per_s_per_dir"] / tiers["scaleout_bytes_per_s_per_dir"]}),
    {"scale-up GB/s": "{:.0f}", "achieved (up)": "{:.0%}", "scale-out GB/s": "{:.0f}",
     "achieved (out)": "{:.0%}", "ratio": "{:.0f}×"})

# %%
sizes = np.logspace(3, 10, 50)
g = min(cluster.scaleup_domain_size, 8)   # 8 ranks (a TPU slice is one big ICI domain)
sweep = comm.collective_sweep(llmcost.Cluster(gpu, g * g, scaleup_domain_size=g), sizes,
                              ops=("all_reduce", "all_to_all"))
plots.collective_times(sweep, title=f"{gpu.name}: {g} ranks over the scale-up links vs over "
                       "the network");

# %% [markdown]
# Small messages are latency-bound (the flat left part: a few µs per ring step, more steps for
# more ranks); large ones are bandwidth-bound, and there NVLink is about as many times faster as
# the bandwidth ratio in the table. This is why tensor parallelism, whose collectives sit on the
# critical path of every layer, is kept inside the scale-up domain, while data parallelism, one
# large reduction per step that can overlap the backward pass, crosses the network.
#
# ## 3. What each parallel dimension sends
#
# Ranks are numbered with TP innermost, then CP, then EP and DP, then PP (Megatron-LM's order), so
# a TP group of up to 8 sits on one NVLink board and the other groups stride across boards:

# %%
plots.table(comm.placement(plan, cluster))

# %% [markdown]
# Per optimizer step, the busiest stage of each plan sends (Shoeybi et al. 2019 §3; Korthikanti et al. 2022 §4.2.2; ZeRO §7): TP two all-reduces of
# the layer's activations forward and two backward per layer and micro-batch (with sequence
# parallelism two all-gathers and two reduce-scatters forward, the transposed pair and a
# re-gather of the LayerNorm output backward); PP one activation and one gradient per micro-batch
# and model chunk (1/t of it with sequence parallelism or Megatron's scatter/gather); DP the
# gradients once per step (ZeRO-0/1), after every micro-batch (ZeRO-2) or, for ZeRO-3, the weights
# gathered before every layer's forward and backward as well (1.5× the volume per micro-batch,
# ZeRO §7); EP all-to-alls per MoE layer; CP the keys and values of the whole sequence. The
# scenario's plan next to Llama 3 405B's published one (Table 4) and a mixture of experts
# (Mixtral 8x7B with its 8 experts on 8 GPUs of two nodes, so part of every all-to-all crosses the
# network):

# %%
l3 = llmcost.load_model("llama-3.1-405b")
l3_plan = parallel.make_plan(l3, 16384, 2048, tp=8, pp=16, zero_stage=2, schedule="interleaved",
                             virtual_stages=8, pp_split="embedding_and_loss", seq_len=8192)
l3_cluster = llmcost.Cluster(llmcost.load_accelerator("H100-SXM"), 16384)
mx = llmcost.load_model("mixtral-8x7b")
mx_plan = parallel.make_plan(mx, 256, 512, tp=2, pp=4, ep=8, zero_stage=1, seq_len=4096)
volumes = {
    "scenario plan": comm.comm_volume(spec, cluster, plan, p["seq_len"], p["optimizer_recipe"]),
    "Llama 3 405B": comm.comm_volume(l3, l3_cluster, l3_plan, 8192),
    "Mixtral 8x7B": comm.comm_volume(mx, llmcost.Cluster(gpu, 256), mx_plan, 4096),
}
for label, pl in zip(volumes, (plan, l3_plan, mx_plan)):
    print(f"{label}: {pl.describe()}")
plots.comm_volume_bars(volumes);

# %%
vol = volumes["scenario plan"]
plots.table(vol.reset_index(), {"per_step": "{:,.0f}", "bytes_per_gpu": "{:.3g}",
                                "time_s": "{:.3g}"})

# %% [markdown]
# The time column is the communication before any overlap. Whether it costs step time depends on
# what runs at the same time, which is what the step-time model decides.
#
# ## 4. The step-time model
#
# For the busiest pipeline stage and each micro-batch, `llmcost.step` adds up every kernel of a
# Megatron-style transformer layer on one GPU:
#
# * **GEMMs** at the roofline `max(FLOPs / (peak × matmul fraction), bytes / (HBM bandwidth × HBM
#   fraction))`: a large GEMM runs at the accelerator's *maximum achievable matmul FLOPS* (the best
#   measured GEMM, e.g. 85.9% of peak on A100, 80.1% on H100; stas00/ml-engineering); backward = 2×
#   forward.
# * **Attention core**: one FlashAttention kernel (a causal kernel skips the masked half of the
#   scores, and its backward recomputes QKᵀ), or, without it, two batched GEMMs plus softmax and
#   dropout passes over the s×s scores in HBM.
# * **Memory-bound kernels** (norms, residual adds, activations, cross-entropy of the logits) as
#   bytes moved ÷ achieved HBM bandwidth; the **optimizer step** too.
# * **Recomputation**: the forward pass again (full) or the attention core (selective).
# * **Communication** from section 2, with the overlap rules: TP forward collectives exposed,
#   backward ones hidden behind the backward GEMMs when `comm_tp_overlap` is `backward` (Megatron-LM's
#   asynchronous all-reduce) or `all`; pipeline sends blocking unless `comm_pp_overlap` (then only
#   the fill and drain wait for them); DP reductions and ZeRO gathers hidden behind the backward and
#   forward passes when `comm_dp_overlap`; EP and CP exposed.
# * **Pipeline**: the busiest stage sets the pace; the bubble is (p−1)/v micro-batch slots.
#
# **The one calibrated constant.** Benchmarks measure kernels in short bursts on one idle GPU. In
# a training step clocks settle at the power limit, a layer launches about a hundred kernels with
# gaps between them, and shapes are not the benchmark's best. `step.KERNEL_EFFICIENCY`, the share
# of the burst rates a real step sustains, is fitted to the per-layer timings of Korthikanti et al.
# 2022 Table 4 (one 22B layer on 8 A100s, five recompute and sequence-parallel settings), never to
# an end-to-end MFU:
#
# **Which software.** The same plan runs at different speeds on different software: a 2021
# Megatron-LM had no FlashAttention, no sequence parallelism and blocking pipeline sends. The
# scenario's `stack` names a dated profile (`data/stacks.csv`, `llmcost.stacks.load_stack`) that
# says which features exist (FlashAttention version, sequence parallelism, selective recomputation,
# pipeline schedules, ZeRO stages, FP8) and which communication it overlaps by default; the
# `comm_*_overlap` keys default to `auto` (the stack's) and override it when set, and the plan
# search only considers what the stack has. The attention kernel's speed comes from the
# FlashAttention papers, by version and GPU generation (`data/flash_attention.csv`):

# %%
# NBVAL_CHECK_OUTPUT
for name in llmcost.stacks.list_stacks():
    st = llmcost.stacks.load_stack(name)
    frac, _ = llmcost.stacks.attention_fraction(st, gpu.name)
    kernel = f"attention at {frac:.0%} of peak on {gpu.name}" if frac else "attention as GEMMs" \
        if st.flash_attention == "none" else "attention: data/efficiency.csv's fraction"
    print(f"{'*' if name == p['stack'] else ' '} {st.describe()}; {kernel}")

# %%
# NBVAL_CHECK_OUTPUT
eff = llmcost.load_efficiency(gpu)
print(f"{gpu.name} ({eff.accelerator} row): matmul {eff.matmul_fraction:.1%}, FlashAttention "
      f"{eff.attention_fraction:.0%}, HBM {eff.hbm_fraction:.0%}, NVLink {eff.scaleup_fraction:.0%}"
      f", network {eff.scaleout_fraction:.0%} of datasheet; α {eff.scaleup_latency_s * 1e6:.1f} µs"
      f" per ring step")
print(f"KERNEL_EFFICIENCY = {step.KERNEL_EFFICIENCY} (re-fitted to Korthikanti Table 4: "
      f"{step.calibrate_kernel_efficiency():.3f})")

# %%
plots.table(step.layer_time_table().reset_index(),
            {c: "{:.1f}" for c in ("forward_ms", "predicted_forward_ms", "backward_ms",
                                   "predicted_backward_ms")}
            | {"forward_error": "{:+.1%}", "backward_error": "{:+.1%}"})

# %% [markdown]
# **Which MFU the bill uses.** The bill (notebook 00) and every other notebook price the run at
# the scenario's `mfu` (40% in the default scenario); they use this prediction instead only when
# the scenario says `mfu: predict`. The two differ because the prediction is the best plan the
# search finds on a current software stack, with its error band (printed below), while a given
# `mfu` is what a team expects to sustain on its own run.
#
# The scenario's step, part by part (the parts add up to the step time):

# %%
# NBVAL_CHECK_OUTPUT
band = accuracy.band_for_step(b, plan, spec, gpu.name)   # its error band (section 6)
print(f"{plan.describe()} on the {b.stack} stack")
print(f"step {b.step_time_s:.3f} s, {b.tokens_per_s:,.0f} tokens/s; predicted MFU {b.mfu:.1%} "
      f"(HFU {b.hfu:.1%}); the scenario assumes {p['mfu']:.1%}")
print(f"with its error band: {band.describe()}")
for w in band.warnings:
    print(f"warning: {w}")
print(f"exposed communication {b.exposed_comm_s / b.step_time_s:.1%} of the step, pipeline "
      f"bubble {b.pipeline_bubble_s / b.step_time_s:.1%}")

# %%
plots.table(b.to_frame().reset_index(), {"seconds": "{:.3g}", "share": "{:.1%}"})

# %%
no_overlap = dict(opts, tp_overlap="none", pp_overlap=False, dp_overlap=False)
compare = {
    "scenario plan": b,
    "same plan, nothing overlapped": step.step_time(spec, cluster, plan, p["seq_len"],
                                                    **no_overlap),
    "same plan, 8× slower network": step.step_time(
        spec, llmcost.Cluster(gpu, p["n_gpus"], scaleout_bytes_per_s_per_dir=
                              cluster.scaleout_bytes_per_s_per_dir / 8), plan, p["seq_len"],
        **opts),
    "Llama 3 405B, published plan": step.step_time(l3, l3_cluster, l3_plan, 8192),
}
plots.step_breakdown(compare);

# %% [markdown]
# ## 5. Paid time and effective compute
#
# Every second of the step is paid for; only the model FLOPs executed at peak speed count in the
# MFU. The rest is the price of running kernels below peak, of recomputing, of waiting for
# messages, of the pipeline and of the optimizer. **50% utilisation means paying for twice the
# compute you get.** For the scenario's training run:

# %%
# NBVAL_CHECK_OUTPUT
budget = step.time_budget(b)
run_s = p["train_tokens"] / b.tokens_per_s
gpu_h = run_s * p["n_gpus"] / 3600
print(f"{p['train_tokens']:.3g} tokens at {b.tokens_per_s:,.0f} tokens/s: {run_s / 86400:.1f} "
      f"days on {p['n_gpus']:,} GPUs, {gpu_h / 1e6:.3g}M GPU-hours, "
      f"${gpu_h * price / 1e6:.3g}M at ${price:.2f}/GPU-h ({price_source})")
print(f"of which model FLOPs at peak: {budget['share'].iloc[0]:.1%}; you pay "
      f"{1 / b.mfu:.2f}× the compute the model needs")
lost = budget.iloc[1:].sort_values("share", ascending=False)
print("where the rest goes: " + ", ".join(f"{k} {v:.1%}" for k, v in lost["share"].items()
                                          if v >= 0.005))

# %%
plots.time_budget(budget, gpu_hours=gpu_h, cost_usd=gpu_h * price);

# %% [markdown]
# ## 6. Does it predict real runs?
#
# The published runs with enough detail to rebuild their plan: Narayanan et al. 2021 Table 1
# (Megatron-LM on up to 3,072 A100s, full recomputation, micro-batch sizes and interleaving from
# the SC21 scripts that produced the table) and Korthikanti et al. 2022 Table 5 (sequence
# parallelism and selective recomputation), plus Table 2's PTD-P strong-scaling rows of the first
# paper. Narayanan et al.'s "% of peak" counts the recomputed forward pass (their Eq. 3: an HFU); it
# is converted exactly to the MFU basis (model FLOPs ÷ hardware FLOPs, 72-form ÷ 96-form), so the
# relative error is the same on either basis:

# %%
validation = step.mfu_validation(sets=step.VALIDATION_SETS + step.OUTSIDE_SETS)
shown = validation[["run_id", "set", "split", "n_gpus", "plan", "reported", "reported_mfu",
                    "predicted_mfu", "error"]]
plots.table(shown, {"reported": "{:.1%}", "reported_mfu": "{:.1%}", "predicted_mfu": "{:.1%}",
                    "error": "{:+.1%}"})

# %%
# NBVAL_CHECK_OUTPUT
print(f"calibration set (the one fitted constant): {step.CALIBRATION_SET}")
for (name, split), row in step.set_summary(validation).iterrows():
    goal = "" if row["in_sample"] else (
        "  goal met" if row["max_over_goal"] == 0 and row["mean_over_goal"] == 0 else
        f"  goal missed by {row['mean_over_goal']:.1%} (mean), {row['max_over_goal']:.1%} (max)")
    print(f"{name:>24} {split:>11}: n {row['n']:2.0f}, mean |error| {row['mean_abs_error']:.1%}, "
          f"max {row['max_abs_error']:.1%}{' (in-sample)' if row['in_sample'] else goal}")
raw = step.error_summary(step.mfu_validation(1.0, sets=step.VALIDATION_SETS[:2]))
print(f"without KERNEL_EFFICIENCY (burst rates): mean {raw.loc['table1+table5', 'mean_abs_error']:.1%}"
      f", max {raw.loc['table1+table5', 'max_abs_error']:.1%}")

# %%
plots.validation_scatter(validation);

# %% [markdown]
# The goal is a mean absolute error of at most 5% and a maximum of 10% on every held-out set with
# one set of constants; the summary above is the current standing, set by set, with its split
# (tests hold every set's errors in two-sided bands). The one fitted constant is calibrated on
# Korthikanti's Table 4 (per-layer times); their 22B run uses that very layer, so it is the only
# in-sample row; every other row is held out, including the two H100 sets: Llama 3 Table 4 and
# NeMo AutoModel's BF16 Llama 3 70B FSDP2 benchmark (its tokens/s converted to MFU on the
# workbook's basis). Llama 3 Table 4 misses the goal by the margin printed (its 128K-context row);
# the DeepSpeed ZeRO-3 rows miss it by far (issue 14's subject). Without the calibrated constant every run
# is predicted 16–31% too fast: the sustained share is real, not a fudge on a few rows, and fitting
# it end to end on Table 1 instead gives about the same value (`benchmarks/validate_mfu.py` prints
# that comparison). For scale, Calculon reports 3.65% mean and 8.87% max error on step time over
# eight Korthikanti runs with efficiency tables of its own; on the four Table 5 runs here the error
# is larger on average (see the summary above), so on that set Calculon is the more accurate.
#
# **What the model does not reproduce.** Table 2 of Narayanan et al. also ran DeepSpeed ZeRO-3
# without model parallelism (crosses on the plot): measured throughput per GPU falls steeply each
# time the GPUs double, which suggests weight gathers that ran well below NCCL's ring bandwidth and
# were not hidden (our reading; the paper does not break the time down).
# The model assumes NCCL's ring bandwidth (all NICs of a node in parallel) and gathers hidden behind
# compute whenever they are shorter, as current FSDP implementations aim for; for that 2021
# implementation it is 35% to 340% optimistic. Treat ZeRO-3 plans at the top of a ranking as an
# upper bound.
#
# **Out of sample, another accelerator.** Nothing was calibrated on H100s. Meta reports the BF16
# MFU of Llama 3 405B's three pre-training configurations (Llama 3 report, Table 4: TP 8, PP 16,
# the interleaved schedule, 16M tokens per step; one sequence per micro-batch and V = 8 are
# inferred, as in notebook 03). One modelling choice moves these predictions a lot: whether the
# fp32 gradients are reduce-scattered after every micro-batch (ZeRO-2 as DeepSpeed implements it)
# or accumulated over the step and reduce-scattered once. Meta's description (§3.3.2) fits either;
# the memory count of notebook 03 favours the first (unsharded fp32 accumulation does not fit), so
# it is used, and the second is printed for comparison:

# %%
# NBVAL_CHECK_OUTPUT
import dataclasses

table4 = [(8192, 1, 8192, 2048, 0.43), (16384, 1, 8192, 2048, 0.41),
          (16384, 16, 131072, 128, 0.38)]     # GPUs, CP, sequence, sequences per step, MFU
h100 = llmcost.load_accelerator("H100-SXM")
for n, cp_, seq, seqs, reported in table4:
    pl = parallel.make_plan(l3, n, seqs, tp=8, pp=16, cp=cp_, zero_stage=2, seq_len=seq,
                            schedule="interleaved", virtual_stages=8,
                            pp_split="embedding_and_loss")
    cl = llmcost.Cluster(h100, n)
    pred = step.step_time(l3, cl, pl, seq).mfu
    once = step.step_time(l3, cl, dataclasses.replace(pl, zero_stage=1), seq).mfu
    print(f"{n:>6,} GPUs, CP {cp_:>2}, {seq:>7,} tokens: predicted MFU {pred:.1%} vs "
          f"{reported:.0%} reported ({pred / reported - 1:+.1%}); reduce-scatter once per step: "
          f"{once:.1%} ({once / reported - 1:+.1%})")

# %% [markdown]
# With gradients reduce-scattered per micro-batch the two 8K-token configurations are within 7%,
# and the model reproduces the direction of the drop from 43.5% to 40.4% at 16K GPUs (Table 4's
# TFLOP/s over the 989 TFLOP/s peak; its MFU column is rounded): with the same
# 16M-token batch each pipeline gets half the micro-batches, so the bubble doubles. Reduce-scattered
# once per step they would be 12–16% too high: the out-of-sample agreement depends on that reading
# of Meta's setup. The 128K-token configuration is predicted 10% too high on the full-mask basis, and 54% too
# high if Meta counted a causal mask (the paper does not say which): at that
# length attention is half the step, and the model prices it with one FlashAttention fraction for
# every sequence length and takes context parallelism's all-gathers as the only cost of splitting
# the sequence; Meta's 38% says the real kernels and load balance did worse.
#
# **Every prediction carries a band.** A predicted MFU is as trustworthy as the held-out runs most
# like it: `llmcost.accuracy.mfu_band` takes the runs of the same hardware generation and
# parallelism kind at a GPU count within 4× of theirs, and gives ± their largest error (n stated;
# a row whose FLOP basis is unstated counts on both bases). A regime with fewer than three runs
# gets at least the stated ±30% and says so, and a plan outside every regime gets ±30% and a
# warning; a prediction above the best
# MFU ever published for that generation and model size gets a warning too. The scenario's plan
# above: its band and warnings are printed with its step. The bands of each regime:

# %%
# NBVAL_CHECK_OUTPUT
for r in accuracy.regime_bands().itertuples():   # the band rule of llmcost.accuracy.mfu_band
    few = "" if r.validated else f" (n < {accuracy.MIN_REGIME_ROWS}: at least the default)"
    print(f"{r.generation:>14} {r.kind:>9}: {r.gpus_min:>6,}–{r.gpus_max:<6,} GPUs, "
          f"n {r.n:2d}, band ±{r.half_width:.1%}{few}")
print(f"outside every regime: ±{accuracy.DEFAULT_BAND_FRACTION:.0%} and a warning")

# %% [markdown]
# ## 7. What adding GPUs buys
#
# **Strong scaling** keeps the global batch and adds GPUs: each GPU gets fewer sequences, the
# pipeline fewer micro-batches, communication is amortised over less compute, and efficiency falls.
# **Weak scaling** grows the batch with the GPUs (as far as the optimisation allows, notebook 02)
# and stays efficient much longer. At each GPU count the fastest fitting plan is taken:

# %%
counts = 2 ** np.arange(6, 16)
gb = p["global_batch_tokens"] // p["seq_len"]
strong = step.scaling_study(spec, gpu, counts, p["seq_len"], global_batch=gb, **opts)
weak = step.scaling_study(spec, gpu, counts, p["seq_len"], batch_per_gpu=gb / p["n_gpus"],
                          **opts)
plots.scaling_curves(strong, weak, title=f"{spec.name} on {gpu.name}");

# %%
plots.table(strong.reset_index(), {"step_time_s": "{:.3g}", "tokens_per_s": "{:,.0f}",
                                   "mfu": "{:.1%}", "speedup": "{:.1f}", "efficiency": "{:.0%}"})

# %% [markdown]
# Where efficiency falls below one half, doubling the GPUs buys less than half again as much
# throughput: the run finishes sooner but each token costs more. Beyond that point, a larger batch
# (weak scaling) or a smaller cluster is the cheaper way.
#
# ## 8. The best plans for the scenario
#
# Every plan of notebook 03 that fits, with TP inside the scale-up domain, ranked by predicted step
# time, with the time and cost of the scenario's training tokens. The whole space (every TP × PP ×
# virtual stages × micro-batch × ZeRO × recompute × schedule combination) is ranked in one
# vectorised call; `benchmarks/bench_rank_plans.py` times it for GPT-3 175B on 1,024 A100s (over a
# million candidates). Plans read: TP8 · PP16×v8 · DP128 · INTERLEAVED m=16 mbs=1 · ZeRO-2 is tensor,
# pipeline (× v model chunks per stage) and data parallel sizes, the pipeline schedule, m
# micro-batches of mbs sequences per step and replica, and the ZeRO stage. ZeRO-3 plans are marked
# as upper bounds (section 6) and are not the ones the notebooks choose for the scenario.

# %%
# NBVAL_CHECK_OUTPUT
ranked = step.rank_plans(spec, cluster, gb, p["seq_len"], train_tokens=p["train_tokens"],
                         price_usd_per_gpu_hour=price, pp_split=p["pp_split"],
                         reserve=p["mem_reserve_fraction"], **opts)
a = ranked.attrs
print(f"{a['n_candidates']:,} combinations, {a['n_valid']:,} valid, {a['n_fitting']:,} fit, "
      f"{a['n_ranked']:,} ranked (TP inside the {cluster.scaleup_domain_size}-GPU domain)")
best = step.fastest_trusted(ranked)   # ZeRO-3 only if nothing else fits
print(f"fastest (ZeRO-3 aside): {parallel.plan_from_row(best, p['pp_split']).describe()}: "
      f"{best['step_time_s']:.3f} s per step, MFU {best['mfu']:.1%}, {best['days']:.1f} days")

# %%
top = accuracy.add_bands(ranked.head(10), spec, cluster)   # each MFU with its band
plots.table(pd.DataFrame({
    "plan": [parallel.plan_from_row(r, p["pp_split"]).describe()
             + (" (upper bound)" if r["upper_bound"] else "") for _, r in top.iterrows()],
    "step s": top["step_time_s"], "MFU": top["mfu"],
    "MFU band": [f"{lo:.1%}–{hi:.1%}" for lo, hi in zip(top["mfu_low"], top["mfu_high"])],
    "exposed comm": top["exposed_comm_s"] / top["step_time_s"],
    "bubble": top["pipeline_bubble_s"] / top["step_time_s"],
    "memory GB": top["memory_bytes"] / 1e9, "days": top["days"], "cost": top["cost_usd"]}),
    {"step s": "{:.3f}", "MFU": "{:.1%}", "exposed comm": "{:.1%}", "bubble": "{:.1%}",
     "memory GB": "{:.1f}", "days": "{:.1f}", "cost": "${:,.0f}"})

# %%
# NBVAL_CHECK_OUTPUT
z3 = ranked[ranked["upper_bound"]]
if len(z3):
    print(f"fastest ZeRO-3 plan (upper bound): "
          f"{parallel.plan_from_row(z3.iloc[0], p['pp_split']).describe()}: "
          f"MFU {z3.iloc[0]['mfu']:.1%}")
publish_summary("04_communication", [
    summary_row("predicted_mfu", "predicted MFU, scenario plan", b.mfu, "", plan.describe()),
    summary_row("predicted_mfu_low", "predicted MFU, low end of its band", band.low, "",
                band.regime),
    summary_row("predicted_mfu_high", "predicted MFU, high end of its band", band.high, "",
                f"± {band.half_width:.1%}, n = {band.n}"),
    summary_row("step_time_s", "step time, scenario plan", b.step_time_s, "s", "busiest GPU"),
    summary_row("tokens_per_s", "throughput, scenario plan", b.tokens_per_s, "tokens/s", ""),
    summary_row("exposed_comm_share", "exposed communication", b.exposed_comm_s / b.step_time_s,
                "", "share of the step"),
    summary_row("best_plan_mfu", "predicted MFU, fastest plan", best["mfu"], "",
                parallel.plan_from_row(best, p["pp_split"]).describe() + " (ZeRO-3 aside)"),
    summary_row("validation_mean_abs_error", "MFU error on published runs",
                step.error_summary(validation[validation["set"].isin(
                    step.VALIDATION_SETS[:2])]).loc["table1+table5", "mean_abs_error"], "",
                "mean |error|, Megatron-LM 2021 Table 1 + Korthikanti 2022 Table 5"),
])

# %% [markdown]
# **What this adds up to.** An MFU is not a property of a model or a GPU: it is what is left after
# kernels run below peak, recomputation, exposed communication and the pipeline have taken their
# share, and each of those follows from the plan. The largest slice is usually the kernels
# themselves (even the best GEMM runs at 80–86% of peak, and a real step sustains about 79% of
# that); what comes next depends on the plan: TP collectives that cannot overlap, pipeline sends
# and the bubble, or, for Llama 3 405B, the data-parallel gradient reduction (section 6). Adding
# GPUs at a fixed batch grows all the waiting parts, which is why throughput per GPU falls and,
# past some size, extra GPUs cost more than they save.
#
# ## Explore
#
# Change the cluster size, the interconnect speed, TP, PP (DP follows), the micro-batch, ZeRO,
# recomputation and the overlap switches; the breakdown and the predicted MFU follow. (In a report
# these widgets are switched off; run the notebook in Jupyter to use them.)

# %%
if interactive:
    from llmcost.widgets import step_explorer

    display(step_explorer(spec.name, gpu.name, p["n_gpus"], p["global_batch_tokens"],
                          p["seq_len"], plan.tp, plan.pp, plan.micro_batch_size,
                          plan.zero_stage, plan.recompute, p["optimizer_recipe"],
                          opts["tp_overlap"], opts["pp_overlap"], opts["dp_overlap"],
                          schedule=plan.schedule, virtual_stages=plan.virtual_stages,
                          pp_split=plan.pp_split, cp=plan.cp, stack=p["stack"]))   # the notebook's plan

# %% [markdown]
# ---
# **Sources.** Hockney 1994, *The communication challenge for MPP*, Parallel Computing 20(3).
# Thakur, Rabenseifner, Gropp 2005, *Optimization of Collective Communication Operations in MPICH*,
# IJHPCA 19(1). Patarasuk & Yuan 2009, *Bandwidth optimal all-reduce algorithms*, JPDC 69(2).
# Sanders, Speck, Träff 2009, *Two-tree algorithms*, Parallel Computing 35(12). NVIDIA nccl-tests
# `doc/PERFORMANCE.md` (algbw, busbw); NCCL maintainers in nccl-tests issues #149, #212, #267 and
# nccl issues #412, #812 (achieved NVLink and NIC bandwidths); NCCL `src/graph/tuning.cc`
# (latencies). stas00/ml-engineering, *Maximum Achievable Matmul FLOPS* table. Dao 2023,
# *FlashAttention-2*, arXiv:2307.08691; Shah et al. 2024, *FlashAttention-3*, arXiv:2407.08608.
# Williams, Waterman, Patterson 2009, *Roofline*, CACM 52(4). Shoeybi et al. 2019, *Megatron-LM*,
# arXiv:1909.08053. Narayanan et al. 2021, *Efficient Large-Scale Language Model Training on GPU
# Clusters Using Megatron-LM*, arXiv:2104.04473 (Tables 1–2, §2.2, §4, §5, Eq. 3) and NVIDIA/Megatron-LM
# `examples/sc21` (the scripts behind Table 1). Korthikanti et al. 2022, *Reducing Activation
# Recomputation in Large Transformer Models*, arXiv:2205.05198 (Tables 3–5). Rajbhandari et al.
# 2020, *ZeRO*, arXiv:1910.02054 (§7). Llama Team 2024, *The Llama 3 Herd of Models*,
# arXiv:2407.21783 (§3.3, Table 4). DeepSeek-AI 2024, *DeepSeek-V3 Technical Report*,
# arXiv:2412.19437. Calculon (Isaev et al., SC'23) for the comparison figures. Constants and their
# sources: `llmcost.catalog.list_efficiency()`.
#
# [← 00 · Index](00_index.ipynb)
