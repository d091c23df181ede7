# Text twin of notebooks/02_batch_size.ipynb, written by `llmcost twins` (jupytext percent format).
# Edit the notebook, not this file; the twin exists so that a change reads as a diff.

# %% [markdown]
# # 02 · How big should the batch be?
#
# [← 00 · Index](00_index.ipynb) · previous: [01 · FLOPs and compute cost](01_flops.ipynb) ·
# next: [03 · Parallelism and memory](03_parallelism.ipynb)
#
# The global batch is the number of tokens one optimizer step consumes. It sets how many steps a
# run takes (and so its wall-clock), how many tokens it spends to reach a given loss (and so its
# GPU-hours), how many GPUs it can keep busy, how well each matmul uses the hardware, how often the
# gradients cross the network, how much activation memory each GPU needs and which learning rate is
# stable. Bigger is not simply better: this notebook makes the balance computable for a scenario.
#
# **Conventions.** Batches and noise scales are in **tokens per optimizer step**. Losses are in
# nats per token on **Kaplan et al. 2020's scale** (WebText2, GPT-2 tokenizer), because that is
# the scale the critical-batch fit was measured on. Training FLOPs are reported as 6·N_active·D;
# GPU-hours come from `llmcost.compute` at the scenario's MFU (dense peak), in model FLOPs with
# attention over the full matrix, as in notebook 01; MFU is held fixed across batch sizes unless a
# section says otherwise. The parallel plan (TP, PP, micro-batch) is the one notebook 03 builds or
# chooses from the same parameters. No failures (notebook 07).

# %% tags=["parameters"]
model: str = "llama-2-70b"  # catalogue model name (llmcost.list_models())
accelerator: str = "H100-SXM"  # catalogue accelerator name (llmcost.list_accelerators())
n_gpus: int = 2048  # accelerators in the training job
train_tokens: float = 2.0e12  # pre-training tokens
seq_len: int = 4096  # training sequence length in tokens
global_batch_tokens: int = 4194304  # tokens per optimizer step (1,024 sequences of 4,096)
mfu: float = 0.4  # steady-state model FLOPs utilisation in (0, 1]
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
stack: str = "megatron-core-2024"  # software-stack profile the plan search draws on (data/stacks.csv)
batch_target_loss: float = None  # target loss (nats, Kaplan's scale); None: what the plan reaches
batch_noise_tokens: float = None  # gradient noise scale in tokens; None: Kaplan's B_crit at the target
batch_base_lr: float = 1.5e-4  # peak learning rate used at global_batch_tokens
comm_scaleout_bytes_per_s: float = None  # scale-out bytes/s per GPU per direction; None: the catalogue's
comm_scaleout_latency_s: float = None  # scale-out ring-step latency, s; None: data/efficiency.csv
interactive: bool = True  # widgets on (reading) or off (report runs)

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import llmcost
from llmcost import batch, plots
from llmcost.report import publish_summary, summary_row

p = llmcost.validate_parameters(
    model=model, accelerator=accelerator, n_gpus=n_gpus, train_tokens=train_tokens,
    seq_len=seq_len, global_batch_tokens=global_batch_tokens, mfu=mfu, dtype=dtype,
    price_usd_per_gpu_hour=price_usd_per_gpu_hour, pricing=pricing, tp=tp, pp=pp, dp=dp,
    cp=cp, ep=ep, zero_stage=zero_stage, recompute=recompute, micro_batch_size=micro_batch_size,
    optimizer_recipe=optimizer_recipe, pp_schedule=pp_schedule,
    pp_virtual_stages=pp_virtual_stages, pp_split=pp_split,
    mem_reserve_fraction=mem_reserve_fraction, stack=stack,
    batch_target_loss=batch_target_loss,
    batch_noise_tokens=batch_noise_tokens, batch_base_lr=batch_base_lr, comm_scaleout_bytes_per_s=comm_scaleout_bytes_per_s,
    comm_scaleout_latency_s=comm_scaleout_latency_s, interactive=interactive)
spec, gpu = llmcost.load_model(p["model"]), llmcost.catalog.scenario_accelerator(p)
price, price_source = llmcost.resolve_price(gpu.name, p["price_usd_per_gpu_hour"], p["pricing"])

# %%
from llmcost import memory, parallel

plan = parallel.plan_from_parameters(p, spec)  # the plan of notebook 03
grad_bytes = memory.get_recipe(p["optimizer_recipe"]).grads_bytes  # reduced across DP ranks
a = batch.analyse_batch(spec, gpu, p["n_gpus"], p["train_tokens"], p["seq_len"],
                        p["global_batch_tokens"], p["mfu"], price, plan.tp, plan.pp,
                        plan.micro_batch_size, p["batch_target_loss"], p["batch_noise_tokens"],
                        p["dtype"], cp=plan.cp, recompute=plan.recompute,
                        grad_bytes_per_param=grad_bytes)
group = plan.tp * plan.cp  # GPUs sharing one micro-batch in a pipeline stage
print(f"{spec.name} on {p['n_gpus']:,} × {gpu.name}: {plan.describe()}")
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
# ## 2. Steps against tokens: the empirical model of large-batch training
#
# McCandlish et al. (2018, §2) model the steps S and the training examples E (here: tokens) needed
# to reach a fixed loss at batch B as
#
# &nbsp;&nbsp;&nbsp;&nbsp;**S = S_min · (1 + B_noise / B)**, &nbsp;&nbsp; **E = E_min · (1 + B / B_noise)**,
# &nbsp;&nbsp; so &nbsp; (S/S_min − 1)·(E/E_min − 1) = 1,
#
# where S_min is the least number of steps (an infinitely large batch), E_min the least number of
# tokens (an infinitely small one) and B_noise = E_min/S_min the *gradient noise scale*, which they
# find to predict the critical batch. At B = B_noise the run needs **2·S_min steps and 2·E_min
# tokens**: the knee of the curve (Kaplan et al. 2020, §5.1, call it "a roughly optimal
# time/compute tradeoff").

# %%
ratio = np.array([1 / 8, 1 / 4, 1 / 2, 1, 2, 4, 8])
plots.table(pd.DataFrame({"B / B_noise": ratio,
                          "steps / S_min": batch.steps_to_target(ratio, 1, 1),
                          "tokens / E_min": batch.tokens_to_target(ratio, 1, 1)}), "{:.3g}")

# %%
plots.steps_vs_tokens(plan_ratio=p["global_batch_tokens"] / a.target.b_noise_tokens);

# %% [markdown]
# Below B_noise, each doubling of the batch nearly halves the steps for a few percent more tokens:
# speed at almost no cost. Above it, each doubling buys less and less time and nearly doubles the
# tokens: wasted compute.
#
# ## 3. Where is the critical batch for this run?
#
# Kaplan et al. (2020, §5.1, Eq. 5.3) measured the critical batch of transformer language models
# and found it depends on the loss reached, not on model size:
#
# &nbsp;&nbsp;&nbsp;&nbsp;**B_crit(L) ≈ B\* / L^(1/α_B)**, &nbsp; B\* ≈ 2·10⁸ tokens, α_B ≈ 0.21
# &nbsp; (it doubles for every ~13% fall in loss).
#
# To use it we need the loss the run is aiming for *on Kaplan's scale*. The same paper fits the
# loss after S_min steps of a model with N non-embedding parameters (Eq. 5.6, Table 3):
#
# &nbsp;&nbsp;&nbsp;&nbsp;**L(N, S_min) = (N_c/N)^α_N + (S_c/S_min)^α_S**, &nbsp; α_N = 0.077,
# N_c = 6.5·10¹³, α_S = 0.76, S_c = 2.1·10³.
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
t = a.target
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
plots.critical_batch_vs_loss(np.linspace(1.4, 3.2, 100), runs);

# %% [markdown]
# The curve is why large runs **ramp the batch**: early in training the loss is high and the
# critical batch small, so a large batch would waste tokens; as the loss falls the critical batch
# grows. Llama 3 405B started at 4M tokens, moved to 8M after 252M tokens and to 16M after 2.87T
# tokens (Llama Team 2024, §3.4.1); GPT-3 ramped from 32k tokens to its full 3.2M over the first
# 4–12B tokens (Brown et al. 2020, App. B).
#
# ## 4. Time and GPU-hours to the target, against the batch
#
# For each global batch B the model gives the steps S(B) and tokens E(B); `llmcost.compute` turns
# tokens into training FLOPs and GPU-hours at the scenario's MFU. How long that takes depends on how
# many GPUs the batch can keep busy: each data-parallel replica of TP×PP GPUs needs at least PP
# micro-batches per step to fill its pipeline, so a batch of B tokens keeps at most
# B·TP/(micro-batch × sequence) GPUs busy. Below that **cluster-filling batch** some GPUs idle (a
# reservation pays for them anyway); above it, a fixed cluster processes the extra tokens at the
# same rate, so the steps saved do not save time. The curves show the scenario's cluster, a quarter
# of it and four times it; the grey line lets the GPU count grow with the batch (every GPU busy),
# which is McCandlish's picture: time follows the steps, GPU-hours follow the tokens.

# %%
b = np.geomspace(a.target.b_noise_tokens / 64, a.target.b_noise_tokens * 16, 90)
clusters = np.array(sorted({max(group * plan.pp, p["n_gpus"] // 4), p["n_gpus"],
                            4 * p["n_gpus"]}))
args = (spec, gpu)
kw = dict(mfu=p["mfu"], price_usd_per_gpu_hour=price, seq_len=p["seq_len"],
          micro_batch_size=plan.micro_batch_size, tp=group, dtype=p["dtype"])
sweep = batch.batch_sweep(a.target, b[:, None], *args, n_gpus=clusters[None, :], **kw)
elastic = batch.batch_sweep(a.target, b, *args, n_gpus=batch.gpus_to_fill(
    b, plan.micro_batch_size, p["seq_len"], group, plan.pp), **kw)
plots.batch_time_and_gpu_hours(sweep, a.target.b_noise_tokens, p["global_batch_tokens"],
                               a.fill_batch_tokens, elastic=elastic);

# %% [markdown]
# The scenario's plan, and three batches around the critical batch, each with the GPUs it can keep
# busy (at least the scenario's cluster). Reserved GPU-hours = compute + idle; cost at the
# scenario's price.

# %%
plots.table(a.key_batches[["case", "batch_tokens", "n_gpus", "batch_over_b_noise",
                           "steps_over_s_min", "tokens_over_e_min", "wall_clock_days",
                           "reserved_gpu_hours", "compute_cost_usd"]], {
    "batch_tokens": "{:.3g}", "n_gpus": "{:,}", "batch_over_b_noise": "{:.2f}",
    "steps_over_s_min": "{:.2f}", "tokens_over_e_min": "{:.2f}", "wall_clock_days": "{:.3g}",
    "reserved_gpu_hours": "{:,.0f}", "compute_cost_usd": "${:,.0f}"})

# %% [markdown]
# ## 5. The hardware side
#
# ### 5.1 Utilisation against micro-batch: the roofline view
#
# A matmul of t tokens through a d_in × d_out weight matrix does 2·t·d_in·d_out FLOPs and moves
# about 2·(t·d_in + d_in·d_out + t·d_out) bytes in bf16, an arithmetic intensity of **≈ t FLOP per
# byte** while t is small next to d. The GPU is compute-bound only when the intensity exceeds its
# **ridge point**, peak FLOP/s ÷ HBM bytes/s (Williams et al. 2009): 295 FLOP/byte for an H100 SXM
# in bf16. In training each GPU feeds its weight shard micro-batch × sequence tokens per matmul
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
plots.roofline_vs_tokens(tok, curves, gpu.ridge_point(p["dtype"]),
                         {f"scenario: {mb_tokens:,} tokens": (mb_tokens, u)});
print(f"{gpu.name} {p['dtype']} ridge point: {gpu.ridge_point(p['dtype']):.0f} FLOP/byte; "
      f"matmul bound at the scenario's micro-batch: {u:.0%} of peak")

# %% [markdown]
# ### 5.2 Gradient accumulation against data-parallel communication
#
# Each optimizer step ends with one all-reduce of the gradients across the data-parallel replicas,
# whatever the number of micro-batches the step accumulated. With per-GPU gradient bytes G (bf16,
# the parameters split over TP×PP ranks) and per-GPU network bandwidth β, a ring all-reduce takes
# about 2·(DP−1)/DP · G/β (Patarasuk & Yuan 2009; ZeRO §7). On a fixed cluster, a
# larger global batch means more micro-batches per step and the same all-reduce, so the
# communication is **amortised** over more compute. Frameworks overlap most of it with the
# backward pass; the share below is what it would cost if it were not overlapped, an upper bound
# that notebook 04 refines.
#
# Notebook 04 counts this traffic as the framework sends it, so its figure differs from this one by
# design: it overlaps the synchronisation with the backward pass (of the last micro-batch, or of
# every micro-batch under ZeRO-2/3); under ZeRO-1/2 it splits the all-reduce into a reduce-scatter
# of the gradients and an all-gather of the updated weights, the same total volume; it uses the
# achieved, not the datasheet, bandwidth; and under ZeRO-2 (and ZeRO-3) the gradients are
# reduce-scattered after *every* micro-batch, so that traffic grows with gradient accumulation
# instead of being amortised by it.
# What holds in both: for ZeRO-0/1, a larger batch on the same cluster dilutes the gradient
# synchronisation.

# %%
gb = p["global_batch_tokens"] * 2.0 ** np.arange(-4, 5)
sync = batch.dp_gradient_sync(spec, p["n_gpus"], plan.tp, plan.pp, gb, gpu, p["mfu"],
                              p["dtype"], grad_bytes_per_param=grad_bytes, seq_len=p["seq_len"])
plots.exposed_comm_vs_batch(sync);
plan_sync = sync.iloc[4]
print(f"all-reduce {plan_sync.allreduce_s:.2f} s per step against {plan_sync.compute_s:.2f} s of "
      f"compute at the plan's batch: {plan_sync.exposed_fraction:.0%} of the step if not overlapped")

# %% [markdown]
# ### 5.3 Activation memory against micro-batch
#
# The micro-batch also decides how much activation memory each GPU holds for the backward pass:
# `llmcost.memory` (notebook 03) counts it tensor by tensor, Korthikanti et al. 2022's Table 2
# generalised to the model's attention and FFN: about 34·s·b·h bytes per layer with
# FlashAttention and sequence parallelism (divided by TP), 2·s·b·h/TP with full recomputation,
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
plots.activation_vs_micro_batch(mbs, act, gpu.hbm_bytes);
print(f"the plan: micro-batch {plan.micro_batch_size}, {plan.recompute} recomputation -> "
      f"{a.activation_bytes_per_gpu / 1e9:.1f} GB of activations per GPU")

# %% [markdown]
# ## 6. DeepSeek LLM's fitted batch size and learning rate
#
# DeepSeek-AI (2024, *DeepSeek LLM*, §3.1, Eq. 1) fitted the near-optimal batch and learning rate
# as power laws of the compute budget C = M·D, where M is the non-embedding training FLOPs per
# token including attention, M = 72·n_layer·d_model² + 12·n_layer·d_model·l_seq (§3.2, Eq. 2; the
# attention term counts the full score matrix, as Megatron-LM does):
#
# &nbsp;&nbsp;&nbsp;&nbsp;**η_opt = 0.3118 · C^−0.1250**, &nbsp; **B_opt = 0.2920 · C^0.3271** tokens.
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
# ## 7. When the batch changes, so must the learning rate
#
# * **Linear scaling** (Goyal et al. 2017, §2.1): multiply the batch by k, multiply the learning rate
#   by k. Derived and validated for SGD with momentum (ResNet-50: η = 0.1·batch/256, up to 8k
#   images) and only with a **gradual warm-up** (§2.2), because the early, fast-changing phase of
#   training cannot take the large rate.
# * **Square-root scaling** for Adam and RMSprop (Malladi et al. 2022): for a batch κ times larger,
#   multiply the learning rate by √κ, (1 − β1) and (1 − β2) by κ, and divide Adam's ε (its
#   numerical-stability constant, not a learning rate) by √κ. It fails once κ(1 − β) reaches 1.
# * **The noise-scale view** (McCandlish et al. 2018, §2): the best learning rate η grows like the
#   batch well below B_noise and stops growing above it, η_opt(B) = η_max / (1 + B_noise/B) (the
#   paper writes ε for the step size). This is why
#   every rule breaks down past the critical batch.
#
# Which rule holds depends on the optimizer, the model and the objective; treat the table as the
# starting points of a learning-rate sweep, not as answers. Starting from the scenario's peak
# learning rate at its batch (Adam β1 0.9, β2 0.95, ε 1e-8, GPT-3's settings, Brown et al. 2020
# App. B; κ in the table is the batch ratio):

# %%
lr = batch.lr_scaling_table(p["batch_base_lr"], p["global_batch_tokens"],
                            p["global_batch_tokens"] * 2.0 ** np.arange(-2, 5),
                            a.target.b_noise_tokens)
plots.table(lr, {"batch_tokens": "{:.3g}", "batch_ratio": "{:g}", "lr_linear": "{:.3g}",
                 "lr_sqrt": "{:.3g}", "beta1_sqrt": "{:.3f}", "beta2_sqrt": "{:.3f}",
                 "eps_sqrt": "{:.2g}", "lr_noise_scale": "{:.3g}"})

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
    "deepseek_b_opt_tokens": "{:.3g}", "batch_over_deepseek": "{:.2f}"})

# %%
plots.published_batches(runs);

# %% [markdown]
# All of them ended below both estimates, at 0.15–0.66 of Kaplan's critical batch: published
# pre-training runs favour compute efficiency over wall-clock. The two independent estimates, one
# from the noise scale (Kaplan) and one from a hyper-parameter search (DeepSeek), agree within a
# factor of 1.1 to 2.4. (DeepSeek's fit is for dense models: for a mixture of experts its M, built
# from d_model and the layer count, undercounts the FLOPs of the activated experts, so its B_opt
# comes out low.)
#
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
publish_summary("02_batch_size", [summary_row(*r) for r in batch.headline_figures(a)])

# %% [markdown]
# ## Explore
#
# Move the target loss (lower targets have larger critical batches and need more tokens), set the
# noise scale by hand, change the accelerator, the micro-batch or the GPU count; the key figures,
# the table and the curves follow. (In a report these widgets are switched off; run the notebook in
# Jupyter to use them.)

# %%
if interactive:
    from llmcost.widgets import batch_explorer

    display(batch_explorer(spec.name, gpu.name, p["n_gpus"], p["train_tokens"], p["seq_len"],
                           p["global_batch_tokens"], p["mfu"], price, plan.tp, plan.pp,
                           plan.micro_batch_size, p["batch_target_loss"],
                           p["batch_noise_tokens"], p["dtype"]))

# %% [markdown]
# ---
# **Sources.** McCandlish, Kaplan, Amodei et al. 2018, *An Empirical Model of Large-Batch
# Training*, arXiv:1812.06162 (§2). Kaplan et al. 2020, *Scaling Laws for Neural Language Models*,
# arXiv:2001.08361 (§5.1–5.2, Eq. 5.1–5.6, Table 3). DeepSeek-AI 2024, *DeepSeek LLM*,
# arXiv:2401.02954 (§3.1 Eq. 1, §3.2 Eq. 2, Tables 2–3). Goyal et al. 2017, *Accurate, Large
# Minibatch SGD*, arXiv:1706.02677 (§2.1–2.2). Malladi, Lyu, Panigrahi, Arora 2022, *On the SDEs
# and Scaling Rules for Adaptive Gradient Algorithms*, arXiv:2205.10287. Williams, Waterman,
# Patterson 2009, *Roofline*, CACM 52(4). Korthikanti et al. 2022, *Reducing Activation
# Recomputation in Large Transformer Models*, arXiv:2205.05198 (Table 2). Patarasuk & Yuan 2009
# (ring all-reduce). Llama Team 2024, *The Llama 3 Herd of Models*, arXiv:2407.21783 (§3.4.1,
# Table 4). Brown et al. 2020, *Language Models are Few-Shot Learners* (App. B). Touvron et al.
# 2023, *Llama 2* (Table 1). Published batches: `data/published_runs.csv` (sources per row).
#
# [← 00 · Index](00_index.ipynb) · [← 01 · FLOPs and compute cost](01_flops.ipynb)
