# Text twin of notebooks/02_batch_size.ipynb, written by `llmcost twins` (jupytext percent format).
# Edit the notebook, not this file; the twin exists so that a change reads as a diff.

# %% [markdown]
# # 02 · How big should the batch be?
#
# [← 00 · Index](00_index.ipynb) · previous: [01 · How many FLOPs does a training run take, and what do they cost?](01_flops.ipynb) · next: [03 · Why can't we just add GPUs?](03_parallelism.ipynb)

# %% tags=["parameters"]
model: str = "llama-2-70b"  # catalogue model name (llmcost.list_models())
accelerator: str = "H100-SXM"  # catalogue accelerator name (llmcost.list_accelerators())
n_gpus: int = 2048  # accelerators in the training job
train_tokens: float = 2.0e12  # pre-training tokens
seq_len: int = 4096  # training sequence length in tokens
global_batch_tokens: int = 4194304  # tokens per optimizer step (1,024 sequences of 4,096)
mfu: float = 0.4  # steady-state model FLOPs utilisation in (0, 1]
mfu_band: str = None  # what a range on mfu is, set by a report: None, the scenario's own; 'predicted', the step-time model's band; 'pilot', the pilots' band
dtype: str = "bf16"  # training compute precision: bf16 or fp8
price_usd_per_gpu_hour: float = 3.99  # USD per GPU-hour; None: the catalogue median for `pricing`
pricing: str = "on_demand"  # on_demand, reserved, spot or owned
ledger_owned_usd_per_gpu: float = None  # purchase price of one accelerator (pricing: owned)
ledger_pue: float = None  # data-centre PUE
ledger_electricity_usd_per_kwh: float = None  # electricity price (owned hardware)
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
stack: str = "megatron-core-2024"  # software-stack profile the plan search draws on (data/stacks.csv)
comm_tp_overlap: str = "auto"  # TP collectives overlapping GEMMs: none, backward, all; auto: the stack's
comm_pp_overlap: str = "auto"  # pipeline sends overlap compute: True, False; auto: the stack's
comm_dp_overlap: str = "auto"  # DP reduction and ZeRO gathers overlap compute: True, False; auto: the stack's
fsdp_backward_prefetch: str = "auto"  # ZeRO-3 on PyTorch FSDP: pre or post (BACKWARD_PRE/POST); auto: the stack's
batch_target_loss: float = None  # target loss (nats, Kaplan's scale); None: what the plan reaches
batch_noise_tokens: float = None  # gradient noise scale in tokens; None: Kaplan's B_crit at the target
batch_base_lr: float = 1.5e-4  # peak learning rate used at global_batch_tokens
comm_scaleout_bytes_per_s: float = None  # scale-out bytes/s per GPU per direction; None: the catalogue's
comm_scaleout_latency_s: float = None  # scale-out ring-step latency, s; None: data/efficiency.csv
efficiency_profile: str = None  # kernel fractions measured on your own GPU (llmcost calibrate --microbench --out FILE); None: the catalogue's
pilot: list = []  # pilot runs as {n_gpus, tokens_per_s_per_gpu, tp?, pp?, ...}: the plan is the one the step model calibrated on them chooses, as the bill's (llmcost calibrate)
interactive: bool = True  # widgets on (reading) or off (report runs)

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import llmcost
from llmcost import batch, plots
from llmcost.present.report import publish_summary, summary_row
from llmcost.training import batch_analysis, calibrate

p = llmcost.notebook_parameters(globals())  # every name of the parameters cell, validated
recipe_name = llmcost.memory.scenario_recipe_name(p)  # given, or by dtype and stack
spec, gpu = llmcost.load_model(p["model"]), llmcost.catalog.scenario_accelerator(p)
price, price_source = llmcost.scenario_price(p)  # given, or the catalogue's for `pricing`
priced, plan_how = calibrate.priced_plan(p, spec)  # the bill's: with pilots, calibrated on them

# %%
from IPython.display import Markdown

from llmcost.present import answers

plan, cluster, a = batch.scenario_batch_analysis(p, spec, price, priced)  # the bill's plan
display(Markdown(answers.batch_size(p["global_batch_tokens"], a.target.b_noise_tokens,
                                    a.fill_batch_tokens)))   # derived in sections 1-4

# %% [markdown]
# The global batch is the number of tokens one optimizer step consumes. It sets how many steps a
# run takes (and so its wall-clock), how many tokens it spends to reach a given loss (and so its
# GPU-hours), how many GPUs it can keep busy, how well each matmul uses the hardware, how often the
# gradients cross the network, how much activation memory each GPU needs and which learning rate is
# stable. Bigger is not simply better: this notebook makes the balance computable for a scenario.
#
# **After this notebook you can**
# 1. write McCandlish's steps–tokens trade-off and find the critical batch on it;
# 2. estimate a run's critical batch from its target loss, and say how far to trust it;
# 3. check whether a batch keeps a cluster busy: micro-batches, the pipeline bubble, the matmul
#    roofline and the gradient all-reduce;
# 4. pick a learning-rate rule when the batch changes, and say when it breaks.
#
# Terms: [10 · Glossary](10_glossary.ipynb) (梯度累积 gradient accumulation, 数据并行 data
# parallelism, 流水线气泡 pipeline bubble, ...).
#
# **Conventions.** Batches and noise scales are in **tokens per optimizer step**. Losses are in
# nats per token on **Kaplan et al. 2020's scale** (WebText2, GPT-2 tokenizer), because that is
# the scale the critical-batch fit was measured on. Training FLOPs are reported as 6·N_active·D;
# GPU-hours come from `llmcost.compute` at the scenario's MFU (dense peak), in model FLOPs with
# attention over the full matrix, as in notebook 01; MFU is held fixed across batch sizes unless a
# section says otherwise. No failures (notebook 07).
#
# **The plan notation.** A parallel plan is written like `TP8 · PP2×v4 · DP16 · INTERLEAVED m=8 mbs=1
# · ZeRO-1` (an example of the notation; the scenario's own plan is printed below): TP = tensor-parallel GPUs sharing each matrix, PP = pipeline stages (×v = model chunks
# per stage of the interleaved schedule), CP = context-parallel GPUs sharing a sequence, DP = data-
# parallel replicas (n_GPUs = TP·PP·CP·DP), m = micro-batches per replica per step (gradient
# accumulation), mbs = sequences per micro-batch, ZeRO-k = how far optimizer state, gradients and
# weights are sharded over DP. The scenario fixes what it names; the rest is **chosen by the
# step-time model** of notebook 04b (`llmcost.parallel.choose_plan` ranks the plans that fit in
# memory by predicted step time), the same plan notebooks 03 and 04 show.

# %%
group = plan.tp * plan.cp  # GPUs sharing one micro-batch in a pipeline stage
print(f"{spec.name} on {p['n_gpus']:,} × {gpu.name}: {plan.describe()}")
if plan_how:
    print(plan_how)
print(f"{p['global_batch_tokens'] / p['seq_len']:,.0f} sequences per step = "
      f"{a.micro_batches_per_step} micro-batch{'es' if a.micro_batches_per_step > 1 else ''} "
      f"of {plan.micro_batch_size} per data-parallel replica")

# %% [markdown]
# ## 1. Two sides of one trade-off
#
# **The optimisation side.** A gradient computed on a batch is a noisy estimate of the true
# gradient. While the noise dominates, doubling the batch halves the noise and lets the optimizer
# take a step worth two: the run needs half the steps for the same tokens, so it finishes sooner at
# no extra cost. Once the batch is large enough that the noise is small, a bigger batch no longer
# makes each step much better: the run still needs nearly as many steps, and every extra token is
# wasted compute. The batch where one regime turns into the other is the **critical batch size**.
# It is not a constant: it grows as the loss falls, because the gradient signal shrinks and the
# noise matters more late in training.
#
# **The hardware side.** Every GPU needs enough tokens per step to be useful: enough tokens per
# micro-batch that its matmuls are compute-bound rather than waiting on memory, enough micro-batches
# per step that the gradient all-reduce (once per step) is small next to the compute, and enough
# replicas' worth of work that no GPU idles. Memory pushes the other way: activation memory grows
# with the micro-batch. And the learning rate has to follow the batch, which is where runs become
# unstable.
#
# > **Takeaway.** The batch trades steps (time) against tokens (compute); the hardware sets a floor
# > below which GPUs idle.

# %% [markdown]
# ## 2. Steps against tokens: the empirical model of large-batch training
#
# McCandlish et al. (2018, §2) model the steps S and the training examples E (here: tokens) needed
# to reach a fixed loss at batch B as
#
# $$S = S_\min\left(1 + \frac{B_\text{noise}}{B}\right), \qquad
# E = E_\min\left(1 + \frac{B}{B_\text{noise}}\right), \qquad
# \left(\frac{S}{S_\min} - 1\right)\left(\frac{E}{E_\min} - 1\right) = 1,$$
#
# where S_min is the least number of steps (an infinitely large batch), E_min the least number of
# tokens (an infinitely small one) and B_noise the *gradient noise scale*; the critical batch
# B_crit = E_min/S_min ≈ B_noise is where the trade-off turns. The first
# form follows from one SGD step: with a gradient of per-example noise variance tr(Σ), a batch of
# B improves the loss by a fraction 1/(1 + B_noise/B) of what the exact gradient would; E = B·S
# gives the second. At B = B_noise the run needs **2·S_min steps and 2·E_min tokens**: the knee of
# the curve (Kaplan et al. 2020, §5.1, call it "a roughly optimal time/compute tradeoff").

# %%
ratio = np.array([1 / 8, 1 / 4, 1 / 2, 1, 2, 4, 8])
plots.table(pd.DataFrame({"B / B_noise": ratio,
                          "steps / S_min": batch.steps_to_target(ratio, 1, 1),
                          "tokens / E_min": batch.tokens_to_target(ratio, 1, 1)}), "{:.3g}")

# %%
plots.readable(plots.steps_vs_tokens(plan_ratio=p["global_batch_tokens"]
                                    / a.target.b_noise_tokens));

# %% [markdown]
# Below B_noise, each doubling of the batch nearly halves the steps for a few percent more tokens:
# speed at almost no cost. Above it, each doubling buys less and less time and nearly doubles the
# tokens: wasted compute.
#
#
# > **Takeaway.** Below B_noise a bigger batch is nearly free speed; above it, nearly pure waste.

# %% [markdown]
# ## 3. Where is the critical batch for this run?
#
# Kaplan et al. (2020, §5.1, Eq. 5.3) measured the critical batch of transformer language models
# and found it depends on the loss reached, not on model size:
#
# $$B_\text{crit}(L) \approx \frac{B_*}{L^{1/\alpha_B}}, \qquad B_* \approx 2\cdot10^8 \text{ tokens},
# \quad \alpha_B \approx 0.21$$
#
# (it doubles for every ~13% fall in loss).
#
# To use it we need the loss the run is aiming for *on Kaplan's scale*. The same paper fits the
# loss after S_min steps of a model with N non-embedding parameters (Eq. 5.6, Table 3):
#
# $$L(N, S_\min) = \left(\frac{N_c}{N}\right)^{\alpha_N} + \left(\frac{S_c}{S_\min}\right)^{\alpha_S},
# \qquad \alpha_N = 0.077,\; N_c = 6.5\cdot10^{13},\; \alpha_S = 0.76,\; S_c = 2.1\cdot10^{3}.$$
#
# Its first term is the fit's irreducible loss for a model of that size: no batch and no number of
# steps gets below it, and the workbook refuses a target under it. Unless the scenario sets
# `batch_target_loss`, the target is the loss the *planned* run reaches: the fixed point where the
# plan's steps, corrected to S_min with B_crit at that same loss (Eq. 5.4), give that loss back.
# By construction the plan then needs exactly its `train_tokens`, and E_min = B_noise · S_min.
#
# These fits come from models up to 1.5B parameters on WebText2: for models of tens or hundreds of
# billions of parameters, on other data and tokenizers, the loss value is an extrapolation and
# B_crit an order-of-magnitude estimate. If you have measured the gradient noise scale of your own run (the
# B_simple estimator of McCandlish et al. §2 from a pilot run, as OpenAI did to choose GPT-3's
# batch, Brown et al. 2020 §2.3), set `batch_noise_tokens`.

# %%
# NBVAL_CHECK_OUTPUT
t = a.target   # batch.batch_target: B_noise, S_min, E_min (its docstring writes the formulas)
print(f"Kaplan's N (non-embedding, active): {t.n_params:.4g}; irreducible term of the fit: "
      f"{batch.kaplan_loss_floor(t.n_params):.3f} nats")
print(f"target loss: {t.loss_nats:.3f} nats ({t.loss_source})")
print(f"B_noise: {llmcost.fmt_count(t.b_noise_tokens)} tokens ({t.b_noise_source})")
print(f"S_min: {t.s_min:,.0f} steps; E_min: {llmcost.fmt_count(t.e_min_tokens)} tokens")
print(f"the plan: {p['global_batch_tokens'] / t.b_noise_tokens:.2f}·B_noise -> "
      f"{t.steps(p['global_batch_tokens']) / t.s_min:.2f}·S_min steps, "
      f"{t.tokens(p['global_batch_tokens']) / t.e_min_tokens:.2f}·E_min tokens")

# %%
runs = batch.published_batch_comparison()
plots.readable(plots.critical_batch_vs_loss(np.linspace(1.4, 3.2, 100), runs));

# %% [markdown]
# The curve is why large runs **ramp the batch**: early in training the loss is high and the
# critical batch small, so a large batch would waste tokens; as the loss falls the critical batch
# grows. Llama 3 405B started at 4M tokens, moved to 8M after 252M tokens and to 16M after 2.87T
# tokens (Llama Team 2024, §3.4.1); GPT-3 ramped from 32k tokens to its full 3.2M over the first
# 4–12B tokens (Brown et al. 2020, App. B).
#
# **What changed after 2020.** Kaplan's B_crit(L) is one fit on one data set; later work qualifies
# it in three ways:
#
# * **Shallue et al. 2019** (*Measuring the Effects of Data Parallelism on Neural Network
#   Training*, JMLR 20(112)) measured steps-to-target against batch over 35 workloads (168,160
#   trained models): each shows perfect scaling, then diminishing returns, then a regime where a
#   bigger batch no longer cuts steps, but where the knee falls varies enormously between workloads
#   and optimizers; earlier disagreements about large batches hurting quality came largely from
#   hyper-parameters not re-tuned at each batch. A critical batch is a measurement of one workload,
#   not a constant.
# * **Zhang et al. 2024** (*How Does Critical Batch Size Scale in Pre-training?*, arXiv:2410.21676,
#   ICLR 2025) trained models of 85M to 1.2B parameters on C4 with Adam, decoupling model and data
#   size, and found that the critical batch grows mainly with the **amount of data** (training
#   duration), and hardly with model size at a fixed data size. Kaplan's picture (a function of the loss alone) and theirs
#   agree that longer runs support larger batches; they differ on what to hold fixed when
#   extrapolating.
# * **Batch ramps** (warm-up of the batch, as Llama 3 and GPT-3 above, and DeepSeek-V3's 3K→15K
#   sequences over the first 469B tokens, arXiv:2412.19437 §4.2) follow the growing critical batch;
#   this notebook's single B_noise is the one at the *end-point* loss, so it overstates the batch the
#   early phase can use.
#
# > **Takeaway.** The critical batch at the target loss is an order-of-magnitude guide that grows
# > with training: measure the noise scale on a pilot run, and ramp the batch.

# %% [markdown]
# ## 4. Time and GPU-hours to the target, against the batch
#
# For each global batch B the model gives the steps S(B) and tokens E(B); `llmcost.compute` turns
# tokens into training FLOPs and GPU-hours at the scenario's MFU. How long that takes depends on how
# many GPUs the batch can keep busy. Each data-parallel replica of TP·CP·PP GPUs gets m = B / (DP ·
# mbs · s) micro-batches per step; every pipeline stage has work once m ≥ PP, so a batch of B
# tokens gives work to at most
#
# $$n_\text{busy} = \frac{B \cdot TP \cdot CP}{\text{mbs} \cdot s} \quad\text{GPUs, and fills the cluster from}\quad
# B_\text{fill} = \frac{n_\text{GPUs} \cdot \text{mbs} \cdot s}{TP \cdot CP}.$$
#
# "Work" is not "busy": the 1F1B pipeline still idles a share (p−1)/(v·m + p − 1) of each step
# (the **bubble**, Narayanan et al. 2021 §2.2), 3/7 = 43% for PP 4 at m = 4 without interleaving.
# That is its share of the step; notebook 03 states the same idle time over the ideal compute
# time, (p − 1)/(v·m), 3/4 = 75% for the same pipeline: one bubble, two bases, each named where it is shown.
# The analysis reports the bubble at the plan's batch and the smallest batch whose bubble is at most
# 10% (`batch.low_bubble_batch_tokens`). The sweep below, and the table after it, carry the scenario's MFU,
# which includes the plan's own bubble, to each batch's bubble on its GPUs
# (`batch_analysis.bubble_scaled_mfu`: the share of a replica's step that computes, with whole
# micro-batches and the interleaved schedule's whole rounds; notebook 04b's step-time model
# prices the rest of a step). Below B_fill some GPUs
# idle (a reservation pays for them anyway); above it, a fixed cluster processes the extra tokens
# at the same rate, so the steps saved do not save time. The curves show the scenario's cluster, a
# quarter of it and four times it; the grey line lets the GPU count grow with the batch (every GPU
# busy), which is McCandlish's picture: time follows the steps, GPU-hours follow the tokens.

# %%
b = batch.batch_grid(a.target.b_noise_tokens, p["seq_len"], 90)  # B_noise/64 to ×16
clusters = np.array(sorted({max(group * plan.pp, p["n_gpus"] // 4), p["n_gpus"],
                            4 * p["n_gpus"]}))
kw = dict(mfu=p["mfu"], price_usd_per_gpu_hour=price, seq_len=p["seq_len"], dtype=p["dtype"])
# each batch at the plan's MFU carried to its own pipeline bubble, as the table below
sweep = batch_analysis.plan_sweep(a, spec, gpu, b[:, None], clusters[None, :], **kw)
elastic = batch_analysis.plan_sweep(a, spec, gpu, b, batch.gpus_to_fill(
    b, plan.micro_batch_size, p["seq_len"], group, plan.pp), **kw)
plots.readable(plots.batch_time_and_gpu_hours(sweep, a.target.b_noise_tokens,
                                              p["global_batch_tokens"], a.fill_batch_tokens,
                                              elastic=elastic));

# %%
# NBVAL_CHECK_OUTPUT
print(f"every GPU has work from {llmcost.fmt_count(a.fill_batch_tokens)} tokens per step (m = PP); "
      f"at the plan's batch the bubble idles {a.bubble_fraction:.1%} of each step "
      f"({plan.schedule}, PP {plan.pp}, v {plan.virtual_stages}, m {a.micro_batches_per_step})")
print(f"a bubble of at most {batch.BUBBLE_TARGET:.0%} needs at least "
      f"{llmcost.fmt_count(a.low_bubble_batch_tokens)} tokens per step on these GPUs")

# %% [markdown]
# The scenario's plan, and three batches around the critical batch, each with the GPUs it can keep
# busy (at least the scenario's cluster). Reserved GPU-hours = compute + idle, the ideal
# run's (no failures, restarts or checkpoints: the bill, notebook 00, pays more); cost at the
# scenario's price; each row at the scenario's MFU carried to its batch's pipeline bubble and
# whole micro-batches (`batch_analysis.bubble_scaled_mfu`: a smaller batch on the same GPUs
# idles longer).

# %%
from llmcost.core.units import fmt_quantity

plots.table(a.key_batches[["case", "batch_tokens", "n_gpus", "batch_over_b_noise",
                           "steps_over_s_min", "tokens_over_e_min", "wall_clock_days",
                           "reserved_gpu_hours", "compute_cost_usd"]], {
    "batch_tokens": "{:.3g}", "n_gpus": "{:,}", "batch_over_b_noise": "{:.2f}",
    "steps_over_s_min": "{:.2f}", "tokens_over_e_min": "{:.2f}", "wall_clock_days": fmt_quantity,
    "reserved_gpu_hours": "{:,.0f}", "compute_cost_usd": "${:,.0f}"}, words={
    "case": "case", "batch_tokens": "batch (tokens per step)", "n_gpus": "GPUs",
    "batch_over_b_noise": "batch ÷ B_noise", "steps_over_s_min": "steps ÷ S_min",
    "tokens_over_e_min": "tokens ÷ E_min", "wall_clock_days": "wall clock, days (ideal)",
    "reserved_gpu_hours": "GPU-hours reserved (ideal: compute + idle, before failures and "
                          "restarts; the bill pays more)",
    "compute_cost_usd": "compute cost, USD (ideal GPU-hours × price)"})

# %% [markdown]
# > **Takeaway.** A fixed cluster gains nothing from a batch past the one that fills it without
# > a large bubble; growing the cluster with the batch buys time at the cost of tokens.

# %% [markdown]
# ## 5. The hardware side
#

# %% [markdown]
# ### 5.1 Utilisation against micro-batch: the roofline view
#
# A matmul of t tokens through a d_in × d_out weight matrix does 2·t·d_in·d_out FLOPs and moves
# about 2·(t·d_in + d_in·d_out + t·d_out) bytes in bf16, an arithmetic intensity of
#
# $$I = \frac{2\,t\,d_\text{in}\,d_\text{out}}{2\,(t\,d_\text{in} + d_\text{in}\,d_\text{out} + t\,d_\text{out})}
# \;\approx\; t \quad \text{FLOP/byte for } t \ll d,$$
#
#  The GPU is compute-bound only when the intensity exceeds its
# **ridge point**, peak FLOP/s ÷ HBM bytes/s (Williams et al. 2009), printed below the figure for
# the scenario's accelerator and number format. In training each GPU feeds its weight shard
# micro-batch × sequence tokens per matmul
# (the two backward matmuls have the same intensity). The curves bound the fraction of peak the
# weight matmuls can reach: a dense model at a 4K-token sequence is compute-bound even at a
# micro-batch of one sequence, but a fine-grained mixture of experts sends each expert only k/E
# of the tokens.

# %%
tok = np.geomspace(16, 65536, 60)
v3 = llmcost.load_model("deepseek-v3")
curves = {f"{spec.name}, TP {plan.tp}": batch.matmul_utilisation(spec, tok, gpu, p["dtype"],
                                                                plan.tp),
          "deepseek-v3 (8 of 256 experts per token)": batch.matmul_utilisation(v3, tok, gpu,
                                                                               p["dtype"])}
mb_tokens = plan.micro_batch_size * p["seq_len"] // plan.cp  # tokens per GPU per micro-batch
u = batch.matmul_utilisation(spec, mb_tokens, gpu, p["dtype"], plan.tp)
plots.readable(plots.roofline_vs_tokens(tok, curves, gpu.ridge_point(p["dtype"]),
                                        {f"scenario: {mb_tokens:,} tokens": (mb_tokens, u)}));

# %%
print(f"{gpu.name} {p['dtype']} ridge point: {gpu.ridge_point(p['dtype']):.0f} FLOP/byte; "
      f"matmul bound at the scenario's micro-batch: {u:.0%} of peak")
print("a bound from bytes alone: real matmuls reach at most about "
      f"{llmcost.load_efficiency(gpu).matmul_fraction:.0%} of peak (data/efficiency.csv)")

# %% [markdown]
# > **Takeaway.** A dense model's micro-batch of one long sequence is already compute-bound; the
# > roofline bites for mixtures of experts, whose experts each see a fraction k/E of the tokens.

# %% [markdown]
# ### 5.2 Gradient accumulation against data-parallel communication
#
# Each optimizer step ends with one all-reduce of the gradients across the data-parallel replicas,
# whatever the number of micro-batches the step accumulated (梯度累积, gradient accumulation). With
# G the gradient bytes one GPU holds and B_ring the ring's per-GPU bandwidth, a ring all-reduce takes
#
# $$T_\text{all-reduce} = 2\,\frac{n-1}{n}\,\frac{G}{B_\text{ring}}, \qquad
# G = b_\text{grad}\,\frac{N}{TP \cdot PP}, \qquad n = DP \cdot CP$$
#
# (Patarasuk & Yuan 2009; ZeRO §7). The gradient bytes b_grad **follow `optimizer_recipe`**: 4 bytes
# (fp32 gradients, reduced in fp32 as Megatron-LM does) for the default `bf16_adam_fp32_grads`, 2
# for `bf16_adam`. B_ring follows **where the plan puts the DP peers**: `llmcost.comm.placement`
# (the placement notebook 04 uses) lays ranks out TP, CP, EP/DP, PP; with k DP peers per node,
# the ring's inter-node hops pool their k NICs, B_ring = min(B_NVLink, k·B_NIC)
# (`batch.dp_sync_bandwidth`). On a fixed cluster, a larger global batch means more micro-batches
# per step and the same all-reduce, so the communication is **amortised** over more compute.
# Frameworks overlap most of it with the backward pass; the share below is what it would cost if it
# were not overlapped: an upper bound on a ZeRO-0/1 plan's exposed time, which notebook 04 refines
# (a ZeRO-2/3 plan sends more, below).
#
# Notebook 04 counts this traffic as the framework sends it, so its figure differs from this one by
# design: it overlaps the synchronisation with the backward pass (of the last micro-batch, or of
# every micro-batch under ZeRO-2/3); under ZeRO-1/2 it splits the all-reduce into a reduce-scatter
# of the gradients and an all-gather of the updated weights, in their own byte sizes (with fp32
# gradients and bf16 weights, less than the all-reduce: `batch.zero_volume_ratio`); it uses the
# achieved (nccl-tests), not the datasheet, bandwidth on the same placement, and per-step latency; and under ZeRO-2 (and ZeRO-3) the gradients are
# reduce-scattered after *every* micro-batch, so that traffic grows with gradient accumulation
# instead of being amortised by it.
# What holds in both: for ZeRO-0/1, a larger batch on the same cluster dilutes the gradient
# synchronisation.

# %%
gb = p["global_batch_tokens"] * 2.0 ** np.arange(-4, 5)
g_bytes = llmcost.memory.get_recipe(recipe_name).grads_bytes  # follows the recipe
sync = batch.dp_gradient_sync(spec, p["n_gpus"], plan.tp, plan.pp, gb, gpu, p["mfu"], p["dtype"],
                              grad_bytes_per_param=g_bytes, seq_len=p["seq_len"],
                              bandwidth_bytes_per_s=a.dp_bandwidth_bytes_per_s)
plots.readable(plots.exposed_comm_vs_batch(sync));

# %%
# NBVAL_CHECK_OUTPUT
s0 = sync.iloc[4]  # the plan's batch
print(f"DP group of {plan.dp * plan.cp} ({a.dp_links}): {a.dp_members_per_domain} peer"
      f"{'s' if a.dp_members_per_domain != 1 else ''} per node, "
      f"ring at {a.dp_bandwidth_bytes_per_s / 1e9:.0f} GB/s per GPU; gradients {g_bytes:g} bytes "
      f"per parameter ({recipe_name})")
print(f"all-reduce {s0.allreduce_s:.2f} s per step against a {s0.compute_s:.2f} s step (the "
      f"bill's MFU, {p['mfu']:.0%}, at the plan's batch): {s0.exposed_fraction:.0%} of it unoverlapped")
if plan.zero_stage:  # the stage's collectives (comm.comm_volume's) against this all-reduce
    k = 3 if plan.recompute == "full" else 2   # ZeRO-3's weight gathers per micro-batch
    vol = batch.zero_volume_ratio(plan.zero_stage, plan.n_microbatches, g_bytes, weight_gathers=k)
    least = "about " if plan.zero_stage == 3 else ""  # hybrid sharding (HSDP) sends less
    print(f"ZeRO-{plan.zero_stage} at {llmcost.fmt_count(plan.n_microbatches)} "
          f"micro-batch{'es' if plan.n_microbatches > 1 else ''} per step sends {least}"
          f"{vol:.3g}x this volume (notebook 04 prices it, overlapped)")

# %% [markdown]
# > **Takeaway.** Under ZeRO-0/1 the gradient all-reduce is paid once per step, in the recipe's
# > gradient bytes, at the bandwidth the DP placement gives: gradient accumulation dilutes it.
# > ZeRO-2/3 send their gradients after every micro-batch, so accumulation does not.

# %% [markdown]
# ### 5.3 Activation memory against micro-batch
#
# The micro-batch also decides how much activation memory each GPU holds for the backward pass:
# `llmcost.memory` (notebook 03) counts it tensor by tensor, Korthikanti et al. 2022's Table 2
# generalised to the model's attention and FFN: about 34·s·b·h bytes per layer with
# FlashAttention and sequence parallelism (divided by TP), 2·s·b·h with full recomputation (Table 2; divided by TP here too, where
# sequence parallelism shards each layer's stored input: the workbook's assumption),
# times the layers (under 1F1B the first pipeline stage holds the equivalent of every layer for
# one micro-batch). Weights, gradients and optimizer states come on top (notebook 03).

# %%
mbs = np.array(sorted({1, 2, 4, 8, 16, plan.micro_batch_size}))
kw = dict(seq_len=p["seq_len"], tp=plan.tp, cp=plan.cp)
where = f"TP {plan.tp}" + (f" × CP {plan.cp}" if plan.cp > 1 else "")
act = {f"{where} + SP, FlashAttention": batch.activation_bytes_per_gpu(spec, mbs, **kw),
       "same, without FlashAttention": batch.activation_bytes_per_gpu(
           spec, mbs, flash_attention=False, **kw),
       "selective recomputation": batch.activation_bytes_per_gpu(spec, mbs, recompute="selective",
                                                                 **kw),
       "full recomputation": batch.activation_bytes_per_gpu(spec, mbs, recompute="full", **kw)}
plots.readable(plots.activation_vs_micro_batch(mbs, act, gpu.hbm_bytes));

# %%
recompute_words = ("no recomputation" if plan.recompute == "none" else
                   f"{plan.recompute} recomputation")
print(f"the plan: micro-batch {plan.micro_batch_size}, {recompute_words} -> "
      f"{a.activation_bytes_per_gpu / 1e9:.1f} GB of activations per GPU by this count (L "
      f"layers of one micro-batch); {a.plan_activation_bytes_per_gpu / 1e9:.1f} GB on the "
      "plan's busiest stage as its stack stores them (notebook 03)")

# %% [markdown]
# > **Takeaway.** The micro-batch is bounded by activation memory (显存, HBM): recomputation buys
# > a larger one at about a third more compute.

# %% [markdown]
# ## 6. DeepSeek LLM's fitted batch size and learning rate
#
# DeepSeek-AI (2024, *DeepSeek LLM*, §3.1, Eq. 1) fitted the near-optimal batch and learning rate
# as power laws of the compute budget C = M·D, where M is the non-embedding training FLOPs per
# token including attention, M = 72·n_layer·d_model² + 12·n_layer·d_model·l_seq (§3.2, Eq. 2; the
# attention term counts the full score matrix, as Megatron-LM does):
#
# $$\eta_\text{opt} = 0.3118\,C^{-0.1250}, \qquad B_\text{opt} = 0.2920\,C^{0.3271} \text{ tokens}.$$
#
# Caveats: fitted on their data, tokenizer, AdamW and multi-step schedule, over budgets of
# 1e17–2e19 FLOPs (checked at 1e20); near-optimal values lie in a wide band; the authors note the
# optimum also depends on the model/data split, not on C alone. The fit reproduces the settings of
# their own 7B and 67B models (Table 2) within 10%:

# %%
# NBVAL_CHECK_OUTPUT
check = batch.deepseek_published_check()
print(check[["model", "compute_flops", "batch_sequences_fit", "batch_sequences_used",
             "batch_error", "lr_fit", "lr_used", "lr_error"]].to_string(
    index=False, float_format=lambda v: f"{v:.4g}"))
ds = a.deepseek
print(f"\nthis scenario: C = M·D = {ds['compute_flops']:.3g} FLOPs -> B_opt "
      f"{llmcost.fmt_count(ds['batch_tokens'])} tokens ({ds['batch_sequences']:,.0f} sequences), "
      f"η_opt {ds['lr']:.3g}")

# %% [markdown]
# > **Takeaway.** A fitted B_opt(C) is a second, independent estimate; for every published run
# > of section 8 it comes out above Kaplan's B_crit, by the factors printed there.

# %% [markdown]
# ## 7. When the batch changes, so must the learning rate
#
# * **Linear scaling** (Goyal et al. 2017, §2.1): multiply the batch by k, multiply the learning rate
#   by k. Derived and validated for SGD with momentum (ResNet-50: η = 0.1·batch/256, §5.1, up to
#   8k images and η = 3.2, §5.2 and Table 1) and only with a **gradual warm-up** (§2.2), because
#   the early, fast-changing phase of
#   training cannot take the large rate.
# * **Square-root scaling** for Adam and RMSprop (Malladi et al. 2022): for a batch κ times larger,
#   multiply the learning rate by √κ, (1 − β1) and (1 − β2) by κ, and divide Adam's ε (its
#   numerical-stability constant, not a learning rate) by √κ. It fails once κ(1 − β) reaches 1.
# * **The noise-scale view** (McCandlish et al. 2018, §2): the best learning rate η grows like the
#   batch well below B_noise and stops growing above it (the paper writes ε for the step size):
#
#   $$\eta_\text{opt}(B) = \frac{\eta_\max}{1 + B_\text{noise}/B}.$$
#  This is why
#   every rule breaks down past the critical batch.
#
# Which rule holds depends on the optimizer, the model and the objective; treat the table as the
# starting points of a learning-rate sweep, not as answers. Starting from the scenario's peak
# learning rate at its batch (`batch_base_lr`; where the scenario gives none, the notebooks'
# default, Llama 2 70B's published peak rate, which `llmcost list parameters` shows) (Adam β1 0.9, β2 0.95, ε 1e-8, GPT-3's settings, Brown et al. 2020
# App. B; κ in the table is the batch ratio):

# %%
lr = batch.lr_scaling_table(p["batch_base_lr"], p["global_batch_tokens"],
                            p["global_batch_tokens"] * 2.0 ** np.arange(-2, 5),
                            a.target.b_noise_tokens)
plots.table(lr, {"batch_tokens": "{:.3g}", "batch_ratio": "{:g}", "lr_linear": "{:.3g}",
                 "lr_sqrt": "{:.3g}", "beta1_sqrt": "{:.3f}", "beta2_sqrt": "{:.3f}",
                 "eps_sqrt": "{:.2g}", "lr_noise_scale": "{:.3g}"}, words={
    "batch_tokens": "batch (tokens per step)", "batch_ratio": "κ = batch ÷ the scenario's",
    "lr_linear": "LR, linear rule (Goyal)", "lr_sqrt": "LR, square-root rule (Malladi)",
    "beta1_sqrt": "β1, square-root rule", "beta2_sqrt": "β2, square-root rule",
    "eps_sqrt": "ε, square-root rule", "lr_noise_scale": "LR, noise-scale rule (McCandlish)",
    "warnings": "warnings"})

# %% [markdown]
# > **Takeaway.** Linear for SGD, square root for Adam, and neither past the critical batch: a
# > learning-rate sweep decides.

# %% [markdown]
# ## 8. What published runs used
#
# Every run in `data/published_runs.csv` that names a catalogue model, a token count and a global
# batch, against two estimates for the end of its training: Kaplan's critical batch at the loss the
# run reaches on Kaplan's scale, and DeepSeek's fitted B_opt for its compute. Runs that ramped the
# batch are shown at their final batch.

# %%
plots.table(runs[["run_id", "train_tokens", "global_batch_tokens", "kaplan_loss",
                   "kaplan_b_crit_tokens", "batch_over_b_crit", "deepseek_b_opt_tokens",
                   "batch_over_deepseek"]], {
    "train_tokens": "{:.3g}", "global_batch_tokens": "{:.3g}", "kaplan_loss": "{:.3f}",
    "kaplan_b_crit_tokens": "{:.3g}", "batch_over_b_crit": "{:.2f}",
    "deepseek_b_opt_tokens": "{:.3g}", "batch_over_deepseek": "{:.2f}"}, words={
    "run_id": "run", "train_tokens": "training tokens", "global_batch_tokens": "batch (tokens)",
    "kaplan_loss": "loss (Kaplan fit, nats/token)", "kaplan_b_crit_tokens": "B_crit, Kaplan (tokens)",
    "batch_over_b_crit": "batch ÷ B_crit", "deepseek_b_opt_tokens": "B_opt, DeepSeek (tokens)",
    "batch_over_deepseek": "batch ÷ B_opt"})

# %%
plots.readable(plots.published_batches(runs));


# %%
# NBVAL_CHECK_OUTPUT
def span(col):  # one run: its value; several: their range
    return f"{col.min():.2f}" if col.min() == col.max() else f"{col.min():.2f}–{col.max():.2f}"


is_v3 = runs.run_id == "deepseek-v3-pretrain"
for label, sel in (("dense runs", runs[~is_v3]), ("DeepSeek-V3 (MoE)", runs[is_v3])):
    print(f"{label}: batch / Kaplan's B_crit {span(sel.batch_over_b_crit)}; batch / DeepSeek's "
          f"B_opt {span(sel.batch_over_deepseek)}; B_opt / B_crit "
          f"{span(sel.deepseek_b_opt_tokens / sel.kaplan_b_crit_tokens)}")

# %%
# NBVAL_CHECK_OUTPUT
v3r, v3m = runs[is_v3].iloc[0], llmcost.load_model("deepseek-v3")
m_ds = v3r.compute_flops / v3r.train_tokens  # DeepSeek's M = 72·L·d² + 12·L·d·s
m_mfu = [llmcost.compute.model_flops_per_token(v3m, v3m.seq_len, causal=c) for c in (True, False)]
low = [1 - (m_ds / m) ** batch.DEEPSEEK_BATCH[1] for m in m_mfu]  # B_opt ∝ (M·D)^0.3271
print(f"DeepSeek-V3: DeepSeek's M = {m_ds:.3g} FLOPs/token, {m_mfu[0]:.3g}–{m_mfu[1]:.3g} on the "
      f"MFU basis (causal, full mask): B_opt {low[0]:.0%}–{low[1]:.0%} lower with DeepSeek's M")

# %% [markdown]
# Every dense run ended below both estimates (the first line above): published dense
# pre-training runs favour compute efficiency over wall-clock. The two independent estimates, one
# from the noise scale (Kaplan) and one from a hyper-parameter search (DeepSeek), differ run by
# run by the factors printed as B_opt / B_crit: DeepSeek's is the larger. DeepSeek-V3, a
# mixture of experts, is the exception: its final batch, after a ramp, is above both. DeepSeek's
# fit was made on dense models, and its M, built from d_model and the layer count, counts about
# V3's activated parameters; against the FLOPs per token of this workbook's MFU basis it moves
# V3's B_opt by a few percent (the last line), far less than the gap between V3's batch and
# B_opt: DeepSeek-V3 chose a batch above both estimates.
#
# > **Takeaway.** Published dense runs chose batches below both estimates: they bought compute
# > efficiency with wall-clock. DeepSeek-V3 chose one above both.

# %% [markdown]
# ## So how big should the batch be?
#
# Big enough to keep every GPU busy at a compute-bound micro-batch and to amortise the gradient
# all-reduce, and not much bigger than the critical batch at the loss the run is heading for. For
# this scenario:

# %%
# NBVAL_CHECK_OUTPUT
for line in batch.batch_verdict(a):
    print("-", line)

# %%
# NBVAL_CHECK_OUTPUT
zero = (plan.zero_stage, plan.n_microbatches, vol) if plan.zero_stage else None  # from 5.2
publish_summary("02_batch_size", [summary_row(*x) for x in batch.headline_figures(a, zero)])

# %% [markdown]
# ## Exercises
#
# Round numbers: the teaching accelerator `Teaching-1PF` (1 PFLOP/s dense BF16), MFU 50%.
#
# 1. A run needs S_min = 100,000 steps and E_min = 10¹² tokens to reach its target. What is
#    B_noise? How many steps and tokens does it take at B = B_noise/4, and at 4·B_noise?
# 2. A model of 10B parameters (6N = 6·10¹⁰ FLOP per token) trains at B = 4M tokens per step on
#    1,000 teaching accelerators, with fp32 gradients (4 bytes), DP = 1,000 (no TP or PP) and a
#    ring at 50 GB/s per GPU. How long is the compute of one step, how long the all-reduce, and what
#    share of the step would the all-reduce take if not overlapped?
# 3. A pipeline of PP = 8 stages (1F1B, no interleaving) runs m = 8 micro-batches per step. What
#    share of the step is bubble? How many micro-batches bring it to 10% or less?
#
# <details><summary><b>Answers</b> (click)</summary>
#
# 1. B_noise = E_min/S_min = **10⁷ tokens**. At B_noise/4: S = S_min(1 + 4) = **500,000 steps**,
#    E = E_min(1 + 1/4) = **1.25·10¹² tokens**. At 4·B_noise: S = S_min(1 + 1/4) = **125,000
#    steps**, E = E_min(1 + 4) = **5·10¹² tokens**: 4× fewer steps cost 4× more tokens.
# 2. Compute: 4·10⁶ · 6·10¹⁰ / (1,000 · 10¹⁵ · 0.5) = **0.48 s**. All-reduce: G = 4 bytes × 10¹⁰ parameters =
#    4·10¹⁰ bytes, 2 · (999/1000) · 4·10¹⁰ / 5·10¹⁰ ≈ **1.60 s**. Share 1.60/(1.60 + 0.48) ≈
#    **77%**: this run must overlap its gradient sync, shard it (ZeRO/FSDP) or use a bigger batch.
# 3. Bubble share (p−1)/(m + p − 1) = 7/15 = **47%**. ≤ 10% needs 7/(m + 7) ≤ 0.1, m ≥ 63:
#    **63 micro-batches** (8× the batch, or interleaving with v chunks, which divides the bubble by v).
# </details>
#
# The package checks the three answers:

# %%
# NBVAL_CHECK_OUTPUT
b = np.array([2.5e6, 4e7])  # B_noise / 4 and 4 · B_noise
s_q, e_q = batch.steps_to_target(b, 1e5, 1e7), batch.tokens_to_target(b, 1e12, 1e7)
print(f"1. at B_noise/4: {s_q[0]:,.0f} steps, {llmcost.fmt_count(e_q[0])} tokens; at 4·B_noise: "
      f"{s_q[1]:,.0f} steps, {llmcost.fmt_count(e_q[1])} tokens")
teach = llmcost.load_accelerator("Teaching-1PF")
t_compute = llmcost.gpu_seconds(4e6 * 6e10, teach, 0.5) / 1000
t_ar = llmcost.comm.collective_time("all_reduce", 4 * 1e10, 1000, 50e9)
print(f"2. compute {t_compute:.2f} s, all-reduce {t_ar:.2f} s, share {t_ar / (t_ar + t_compute):.0%}")
bub = llmcost.bubble_fraction(8, 8, "1f1b", relative_to="total")
print(f"3. bubble {bub:.0%}; at most 10% from m = {batch.low_bubble_batch_tokens(8, 1, 1, 1):.0f}")

# %% [markdown]
# ## Explore
#
# Move the target loss (lower targets have larger critical batches and need more tokens), set the
# noise scale by hand, change the accelerator, the micro-batch or the GPU count; the key figures,
# the table and the curves follow. (In a report these widgets are switched off; run the notebook in
# Jupyter to use them.)

# %%
if interactive:
    from llmcost.present.widgets import batch_explorer

    display(batch_explorer(spec.name, gpu, p["n_gpus"], p["train_tokens"], p["seq_len"],
                           p["global_batch_tokens"], p["mfu"], price, plan.tp, plan.pp,
                           plan.micro_batch_size, p["batch_target_loss"],
                           p["batch_noise_tokens"], p["dtype"], g_bytes, plan.schedule,
                           plan.virtual_stages))

# %% [markdown]
# ---
# **Sources.** McCandlish, Kaplan, Amodei et al. 2018, *An Empirical Model of Large-Batch
# Training*, arXiv:1812.06162 (§2). Kaplan et al. 2020, *Scaling Laws for Neural Language Models*,
# arXiv:2001.08361 (§5.1–5.2, Eq. 5.1–5.6, Table 3). DeepSeek-AI 2024, *DeepSeek LLM*,
# arXiv:2401.02954 (§3.1 Eq. 1, §3.2 Eq. 2, Tables 2–3). Goyal et al. 2017, *Accurate, Large
# Minibatch SGD*, arXiv:1706.02677 (§2.1–2.2, §5.1–5.2, Table 1). Malladi, Lyu, Panigrahi, Arora 2022, *On the SDEs
# and Scaling Rules for Adaptive Gradient Algorithms*, arXiv:2205.10287. Williams, Waterman,
# Patterson 2009, *Roofline*, CACM 52(4). Korthikanti et al. 2022, *Reducing Activation
# Recomputation in Large Transformer Models*, arXiv:2205.05198 (Table 2). Patarasuk & Yuan 2009
# (ring all-reduce). Llama Team 2024, *The Llama 3 Herd of Models*, arXiv:2407.21783 (§3.4.1,
# Table 4). Brown et al. 2020, *Language Models are Few-Shot Learners* (App. B). Touvron et al.
# 2023, *Llama 2* (Table 1). Shallue, Lee, Antognini, Sohl-Dickstein, Frostig, Dahl 2019, *Measuring the Effects of Data
# Parallelism on Neural Network Training*, JMLR 20(112). Zhang, Morwani, Vyas, Wu, Zou, Ghai,
# Foster, Kakade 2024, *How Does Critical Batch Size Scale in Pre-training?*, arXiv:2410.21676
# (ICLR 2025). DeepSeek-AI 2024, *DeepSeek-V3
# Technical Report*, arXiv:2412.19437 (§4.2, batch ramp). Narayanan et al. 2021, arXiv:2104.04473
# (§2.2, the pipeline bubble). Published batches: `data/published_runs.csv` (sources per row).
#
# [← 00 · Index](00_index.ipynb) · previous: [01 · How many FLOPs does a training run take, and what do they cost?](01_flops.ipynb) · next: [03 · Why can't we just add GPUs?](03_parallelism.ipynb)
