# Text twin of notebooks/03_parallelism.ipynb, written by `llmcost twins` (jupytext percent format).
# Edit the notebook, not this file; the twin exists so that a change reads as a diff.

# %% [markdown]
# # 03 · Why can't we just add GPUs?
#
# [← 00 · Index](00_index.ipynb) · previous: [02 · How big should the batch be?](02_batch_size.ipynb) · next: [04 · Where does the time go when GPUs wait?](04_communication.ipynb)

# %%
import dataclasses

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import llmcost
from llmcost import memory, parallel, plots
from llmcost.present.report import publish_summary, summary_row
from llmcost.training import calibrate

# %% tags=["parameters"]
model: str = "llama-2-70b"  # catalogue model name (llmcost.list_models())
accelerator: str = "H100-SXM"  # catalogue accelerator name (llmcost.list_accelerators())
n_gpus: int = 2048  # accelerators in the training job
seq_len: int = 4096  # training sequence length in tokens
global_batch_tokens: int = 4194304  # tokens per optimizer step
dtype: str = "bf16"  # training compute precision: bf16 or fp8
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
comm_scaleout_bytes_per_s: float = None  # scale-out bytes/s per GPU per direction; None: the catalogue's
comm_scaleout_latency_s: float = None  # scale-out ring-step latency, s; None: data/efficiency.csv
efficiency_profile: str = None  # kernel fractions measured on your own GPU (llmcost calibrate --microbench --out FILE); None: the catalogue's
pilot: list = []  # pilot runs as {n_gpus, tokens_per_s_per_gpu, tp?, pp?, ...}: the plan is the one the step model calibrated on them chooses, as the bill's (llmcost calibrate)
interactive: bool = True  # widgets on (reading) or off (report runs)

# %%
p = llmcost.notebook_parameters(globals())  # every name of the parameters cell, validated
spec, gpu = llmcost.load_model(p["model"]), llmcost.catalog.scenario_accelerator(p)
cluster = llmcost.catalog.scenario_cluster(p)
plan, plan_how = calibrate.priced_plan(p, spec)  # the bill's: with pilots, calibrated on them
layer_split = parallel.scenario_pp_split(p)  # auto: uneven where the stack can
recipe = memory.get_recipe(memory.scenario_recipe_name(p))  # given, or by dtype and stack

# %%
from IPython.display import Markdown

from llmcost.present import answers
from llmcost.training import step_scenario

hbm, usable = gpu.hbm_bytes, gpu.hbm_bytes * (1 - p["mem_reserve_fraction"])
mb = step_scenario.scenario_memory(p, plan, spec)   # sections 1-5; the sum: memory.memory_per_gpu
busy = memory.moe_imbalance_extra_bytes(spec, plan, p["seq_len"]) if spec.is_moe else None
display(Markdown(answers.memory(spec.name, gpu.name, p["n_gpus"], plan.describe(), mb.total,
                                hbm, usable, moe_extra_bytes=busy,
                                fp8_copy_bytes=step_scenario.fp8_copy_bytes_per_gpu(p, mb))))

# %% [markdown]
# Notebook 01 turned FLOPs into GPU-hours as if any number of GPUs could share the work perfectly.
# They cannot. Before a GPU computes anything the model must **fit** in its memory, and every way of
# splitting a model across GPUs has a price: copies of the same numbers (data parallelism),
# messages between GPUs (tensor, expert and context parallelism) or GPUs that sit idle (the
# pipeline *bubble*). This notebook counts the memory and the idle time exactly, lists every valid
# way to split the scenario's model, and shows where adding GPUs stops helping. Notebook 04 adds
# the time spent communicating.

# %% [markdown]
# **What you will learn.** After this notebook you can
# 1. count what a GPU must hold to train a model (model states, activations) and derive ZeRO's
#    savings, with PyTorch FSDP's names for the same stages;
# 2. say what each of DP, TP, PP, EP and CP splits, what it costs, and the limits each one meets
#    (GQA's KV heads for TP, causal load balance for CP, expert capacity for EP);
# 3. derive the pipeline bubble (p − 1)/m and the micro-batches a stage keeps in flight;
# 4. read the list of valid plans, and explain why the fastest plan is not the one with the least
#    memory or the smallest bubble.

# %% [markdown]
# **Conventions.** Memory is per GPU, in decimal GB (10⁹ bytes), on the most loaded pipeline stage.
# Model states follow a named **precision recipe** (bytes per parameter in each buffer, section 1).
# Activations are 16-bit, with FlashAttention and no dropout unless a cell says otherwise
# (Korthikanti et al. 2022 count dropout masks and materialised attention scores; their checks in
# section 4 use that setting). A plan **fits** when its total is at most the HBM capacity minus a
# **reserve** (default 10%) for what the model does not count: CUDA context, NCCL buffers,
# activation gradients and other transients, allocator fragmentation. The pipeline **bubble** is
# idle time divided by the ideal (bubble-free) compute time.

# %%
free = parallel.free_plan_parameters(p)
print(f"{spec.name}: {llmcost.fmt_count(spec.n_params)} parameters, {spec.n_layers} layers")
print(f"{p['n_gpus']:,} × {gpu.name}: {hbm / 2**30:.0f} GiB = {hbm / 1e9:.1f} GB HBM each, "
      f"{usable / 1e9:.0f} GB usable after the {p['mem_reserve_fraction']:.0%} reserve")
print(f"plan: {plan.describe()}")
print(f"chosen by llmcost.parallel.choose_plan on the {p['stack']} stack: "
      f"{', '.join(free)}" if free
      else "plan fixed by the scenario")
if plan_how:
    print(plan_how)

# %% [markdown]
# ## 1. Why not one GPU? What a GPU must hold
#
# Training keeps more than the weights. Mixed-precision training with Adam (Rajbhandari et al.
# 2020, "ZeRO", §3.1) holds, per parameter: the 16-bit **weights** the forward pass reads (2 bytes),
# the **gradients** the backward pass writes (2 bytes in bf16, 4 when accumulated in fp32), an fp32
# **master copy** of the weights that the optimizer updates (4 bytes) and Adam's two **moments**
# (4 + 4 bytes). That is 16 bytes per parameter, or 18 with fp32 gradients as Megatron-LM and Llama 3
# accumulate them:
#
# $$M_{\text{states}} = \Psi\,(b_{w} + b_{g} + b_{\text{master}} + b_{\text{moments}}) = \Psi\,(2 + 2 + 4 + 8) = 16\,\Psi \text{ bytes (bf16 Adam; } b_g = 4 \text{: } 18\,\Psi).$$ Other recipes change the count; each is named, sourced and used by name:

# %%
recipes = memory.list_recipes()
plots.table(recipes.drop(columns=["source"]), precision=0)

# %%
# NBVAL_CHECK_OUTPUT
states = spec.n_params * recipe.bytes_per_param
print(f"{spec.name}: {spec.n_params / 1e9:.2f}B parameters × {recipe.bytes_per_param:g} B "
      f"({recipe.name}) = {llmcost.fmt_bytes(states)} of model states")
print(f"at least {int(np.ceil(states / usable))} × {gpu.name} just to hold them, "
      "before a single activation")

# %% [markdown]
# **Takeaway.** Model states are 16–18 bytes per parameter in BF16 mixed precision (more with FP8's
# extra weight copies) before a single activation: a 70B model needs over a terabyte, more than a
# dozen 80 GB GPUs just to be held.

# %% [markdown]
# So a large model must be split over GPUs before it can train at all. There are five ways to
# split it, and real runs combine them.

# %% [markdown]
# ## 2. Five ways to split a model
#
# * **Data parallelism (DP)**: every GPU holds the whole model and processes different sequences;
#   after the backward pass the GPUs average their gradients (an all-reduce). Simple and
#   communication-light per FLOP, but every GPU stores a full copy of the model states, so it does
#   nothing for memory... unless ZeRO removes the copies (section 3).
# * **Tensor parallelism (TP)**: every weight matrix is cut into t slices, one per GPU, and all t
#   GPUs work on the same tokens (Shoeybi et al. 2019). Memory per GPU falls by t, but each layer
#   needs two all-reduces in the forward pass and two in the backward pass, so TP lives inside a
#   **scale-up domain** (the 8 GPUs of an NVLink/NVSwitch server such as HGX H100, or the 72 of
#   a GB200 NVL72 rack; a TP group stays inside one when its size divides the domain's).
# * **Pipeline parallelism (PP)**: the layers are cut into p consecutive stages on different GPUs;
#   each micro-batch flows through the stages. Only activations cross between stages, but a stage
#   waits while the pipeline fills and drains: the **bubble** (section 6).

# %% [markdown]
# * **Expert parallelism (EP)**: in a mixture-of-experts model, each GPU holds some of the experts;
#   tokens travel to the GPUs of the experts they are routed to and back (two all-to-alls per MoE
#   layer per pass, Lepikhin et al. 2020).
# * **Context parallelism (CP)**: each GPU holds 1/cp of every sequence; attention needs every
#   earlier token's keys and values, so they are exchanged. **Ring attention** (Liu et al. 2023;
#   Megatron-LM's CP) passes K/V blocks round a ring of the cp ranks, computing on one block while
#   the next arrives, so no rank ever holds the whole sequence's K/V; Llama 3 instead
#   **all-gathers** K and V (cheap with GQA's few KV heads). With a causal mask, contiguous chunks
#   give the last rank up to twice the mean work (2 − 1/cp), so both **load-balance** the chunks (section 7). It
#   divides activation memory, which grows with context (section 4).

# %%
plots.parallelism_pictures();

# %% [markdown]
# GPUs in a plan = DP × TP × PP × CP. EP does not add GPUs: the expert ranks are carved out of the
# DP × CP group (as in Megatron-LM), or, with the experts folded (`etp: 1`, notebook 04), out of all
# TP × DP × CP ranks of a pipeline stage. A plan must also keep a few divisibility rules (section 8
# lists them); a plan that breaks one raises an error naming it, e.g.
# `tp=3 must divide n_heads=64`.
#
# **Takeaway.** DP copies the model, TP and EP split matrices and experts, PP splits layers, CP
# splits the sequence: every way but DP divides memory, and every one costs either messages or
# idle time.

# %% [markdown]
# ## 3. ZeRO: stop storing copies
#
# Data parallelism stores the same model states on every replica. ZeRO (Rajbhandari et al. 2020)
# shards them across the **ZeRO group**, the ranks that hold the same parameters: **ZeRO-1** shards
# the optimizer side (master weights and moments), **ZeRO-2** also the gradients, **ZeRO-3**
# also the weights, which it gathers layer by layer when needed. With Ψ parameters, K optimizer
# bytes per parameter (12 for fp32 master + Adam) and N_d ranks, the bytes per GPU are:
#
# $$\text{DP: } (2 + 2 + K)\,\Psi \qquad \text{ZeRO-1: } (2 + 2)\,\Psi + \frac{K\Psi}{N_d} \qquad \text{ZeRO-2: } 2\Psi + \frac{(2 + K)\,\Psi}{N_d} \qquad \text{ZeRO-3: } \frac{(2 + 2 + K)\,\Psi}{N_d}$$
#
# (ZeRO-3 also holds one gathered layer at a time; DeepSpeed counts 4 bytes × its parameters.)

# %% [markdown]
# **The same stages in PyTorch FSDP** (`ShardingStrategy`): `FULL_SHARD` shards parameters,
# gradients and optimizer states and re-gathers the weights for forward and again for backward:
# ZeRO-3. `SHARD_GRAD_OP` shards gradients and optimizer states but keeps the gathered weights from
# forward to the end of backward: ≈ ZeRO-2 in peak memory (Llama 3 §3.3.2 runs this: "Our use of FSDP
# for Llama 3 shards optimizer states and gradients, but for model shards we do not reshard after
# forward computation"). `NO_SHARD` is plain DDP. `HYBRID_SHARD` (**HSDP**) runs
# FULL_SHARD inside a shard group (usually a node) and replicates across groups, all-reducing
# gradients between replicas: the formulas above with N_d = the shard group's size, not the whole
# DP size (FSDP2's `fully_shard` on a 2-D device mesh; `reshard_after_forward=False` ≈ ZeRO-2).
#
# **Which group?** Dense weights are the same on all DP *and* CP ranks, so their ZeRO group has
# dp·cp ranks; routed experts are divided over ep ranks inside that group, so theirs has dp·cp/ep
# (tp·dp·cp/ep with the experts folded, `etp: 1`).
# With TP and PP, Ψ is the parameters of one model shard. The ZeRO paper's own example, 7.5B
# parameters on 64 GPUs (Fig. 1: 120, 31.4, 16.6 and 1.9 GB):

# %%
# NBVAL_CHECK_OUTPUT
zero_gb = memory.zero_model_state_bytes(7.5e9, 64, [0, 1, 2, 3], "bf16_adam") / 1e9
for stage, gb in enumerate(zero_gb):
    print(f"7.5B parameters, 64 GPUs, ZeRO-{stage}: {gb:6.2f} GB per GPU")

# %% [markdown]
# ZeRO is not free: ZeRO-3 gathers every layer's weights in the forward pass and again in the
# backward pass, 1.5× the gradient traffic of plain DP (ZeRO §7). Megatron-LM's "distributed
# optimizer" is ZeRO-1; its documentation gives 6 + 12/d bytes per parameter for bf16 weights with
# fp32 gradients, which the `bf16_adam_fp32_grads` recipe reproduces.
#
# **Takeaway.** ZeRO removes the copies that data parallelism makes: ZeRO-1 and -2 shard the
# optimizer side almost for free, ZeRO-3 (FULL_SHARD) shards everything at the price of gathering
# the weights twice per step.

# %% [markdown]
# ## 4. Activations: the memory that grows with batch and context
#
# The forward pass keeps intermediate results for the backward pass. Korthikanti et al. (2022,
# Table 2) count them per transformer layer for s tokens, b sequences, hidden size h, a heads and
# TP size t, in bytes; with no parallelism
#
# $$A_{\text{layer}} = s\,b\,h\left(34 + \frac{5\,a\,s}{h}\right),$$
#
# 34·s·b·h for the linear parts and 5·a·s²·b for the attention scores, and with TP and SP:
#
# | setting | bytes per layer |
# |---|---|
# | no parallelism | s·b·h·(34 + 5·a·s/h) |
# | TP | s·b·h·(10 + 24/t + 5·a·s/(h·t)) |
# | TP + sequence parallelism (SP) | s·b·h·(34 + 5·a·s/h)/t |
# | TP + SP + selective recomputation | 34·s·b·h/t |
# | full recomputation | 2·s·b·h (the layer input only) |

# %% [markdown]
# The 5·a·s/h term is the s×s attention matrix; **FlashAttention** never stores it.
# **Selective recomputation** recomputes just the attention core; **full recomputation** keeps only
# each layer's input and re-runs the whole forward pass of a layer during backward (a third more
# compute). `llmcost` rebuilds the count tensor by tensor so it also covers GQA (smaller K and V),
# gated FFNs (SwiGLU keeps 6·s·b·f instead of 4·s·b·f), MoE layers and context parallelism; in
# Korthikanti's GPT setting it gives the table back exactly:

# %%
# NBVAL_CHECK_OUTPUT
gpt3 = llmcost.load_model("gpt-3-175b")
for label, sp, rc in [("TP=8", False, "none"), ("TP=8 + SP", True, "none"),
                      ("TP=8 + SP + selective", True, "selective"),
                      ("full recompute", False, "full")]:
    b = memory.activation_bytes_per_layer(gpt3, 2048, 1, 8, 1, sp, rc, flash_attention=False,
                                          dropout=True)
    print(f"GPT-3 175B layer, s = 2048, b = 1, {label}: {b / 2**20:,.0f} MiB")

# %% [markdown]
# (Korthikanti Table 2's formulas give for this layer: 552, 342, 102 and 48 MiB.) For the scenario's model, with
# the plan's TP and CP, all layers, one micro-batch:

# %%
curves = memory.activations_vs_seq_len(spec, 2 ** np.arange(10, 18), plan.tp, plan.cp)
plots.activations_vs_seq_len(curves, mark=p["seq_len"], hbm_bytes=hbm,
                             title=f"How much activation memory does a sequence need? {spec.name}, TP {plan.tp}, CP {plan.cp}");

# %% [markdown]
# Without FlashAttention the s² term dominates past a few thousand tokens; with it, memory grows
# linearly with context, and context parallelism divides it by cp. With FlashAttention, selective
# recomputation saves almost nothing more (the two middle lines coincide): what it recomputes is
# exactly the s×s matrix that FlashAttention never stores. Full recomputation is the remaining
# lever, at the price of a third more compute per layer. A pipeline stage does not hold
# one micro-batch but all it has started and not finished: the first stage of a 1F1B pipeline holds
# min(m, p) micro-batches of its L/p layers, about the whole model's worth (Korthikanti §4.3);
# interleaving raises that by a factor 1 + (p−1)/(p·v), and GPipe keeps all m. Both are capped by
# the step itself: a stage never holds more micro-batches than the step has. In units of one
# stage's layers, the first stage holds
#
# $$n_{\text{1F1B}} = \min(m,\ p), \qquad n_{\text{interleaved}} = \frac{\min\big(m\,v,\ 2(p-1) + (v-1)\,p + 1\big)}{v} \approx p\left(1 + \frac{p-1}{p\,v}\right) \text{ when } m\,v \ge 2(p-1) + (v-1)\,p + 1,$$
#
# i.e. when m ≥ p + (p−1)/v (the second is Megatron-LM's warm-up count plus one,
# `memory.in_flight_microbatches`). With m ≤ p micro-batches the factor never applies: Llama 3
# 405B's m = p = 16 at v = 8 holds 16 on its first stage, not p + (p−1)/v = 17.9.

# %% [markdown]
# **Takeaway.** Activations grow with tokens per micro-batch and with the micro-batches in flight;
# FlashAttention removes the s² term, full recomputation trades a third more compute for most of
# the rest, and CP divides what is left by cp.

# %% [markdown]
# ## 5. The memory bill of the scenario's plan
#
# Counted as the scenario's software stack stores it (`step_scenario.scenario_memory`: the stack's memory practice, e.g. the FP8 casts Transformer Engine keeps of the linear layers' inputs under FP8, or the norms and MLA up-projections DeepSeek's framework recomputes), the count the plan search fitted the plan by; for a BF16 scenario on Megatron-Core it is the count of sections 1-4.

# %%
# NBVAL_CHECK_OUTPUT
mb = step_scenario.scenario_memory(p, plan, spec)   # as the plan search counted it
fits = mb.fits(hbm, p["mem_reserve_fraction"])
print(plan.describe())
print(f"per GPU (pipeline stage {mb.stage}): {mb.total / 1e9:.1f} GB of {hbm / 1e9:.0f} GB; "
      f"{usable / 1e9:.0f} GB usable after the reserve -> {'fits' if fits else 'does NOT fit'}")

# %%
plots.table(mb.to_frame(), {"bytes": "{:.3g}", "GB": "{:.2f}", "GiB": "{:.2f}",
                           "share": "{:.1%}"}, index=True)

# %% [markdown]
# **A real run: how tight Llama 3 405B was.** Meta trained Llama 3 405B at 8,192 tokens on 16,384
# H100s with TP 8, PP 16, DP 128 and 16 sequences per DP rank (Llama 3 report, Table 4), FSDP that
# shards optimizer states and gradients but keeps weights gathered, an interleaved schedule and one
# layer fewer on the first and last stages, and "without activation checkpointing" (§3.3.2). The
# same count for that plan (one sequence per micro-batch and V = 8 chunks are inferred, not
# published):

# %%
# NBVAL_CHECK_OUTPUT
l3 = llmcost.load_model("llama-3.1-405b")
l3_plan = parallel.make_plan(l3, 16384, 2048, tp=8, pp=16, zero_stage=2, recompute="none",
                             schedule="interleaved", virtual_stages=8,
                             pp_split="embedding_and_loss", seq_len=8192)
l3_mb = memory.memory_per_gpu(l3, l3_plan, 8192, "bf16_adam_fp32_grads")
print(f"Llama 3 405B: {l3_plan.describe()}")
h100 = llmcost.load_accelerator("H100-SXM")
l3_usable = h100.hbm_bytes * (1 - memory.DEFAULT_RESERVE)
print(f"{l3_mb.total / 1e9:.1f} GB per GPU on stage {l3_mb.stage}, of which activations "
      f"{l3_mb.activations / 1e9:.1f} GB: {l3_mb.total / h100.hbm_bytes:.0%} of an H100's "
      f"{h100.hbm_bytes / 1e9:.1f} GB; {(l3_usable - l3_mb.total) / 1e9:+.1f} GB against the "
      f"{memory.DEFAULT_RESERVE:.0%} allowance")


# %%
# NBVAL_CHECK_OUTPUT
z1 = memory.memory_per_gpu(l3, dataclasses.replace(l3_plan, zero_stage=1), 8192,
                           "bf16_adam_fp32_grads")
print(f"if the fp32 gradients are accumulated unsharded over the step (ZeRO-1): "
      f"{z1.total / 1e9:.1f} GB, {z1.total / h100.hbm_bytes:.0%} of the H100")

# %% [markdown]
# Either way the run sat at the edge of the H100's memory. If gradients are reduce-scattered as
# they are produced (ZeRO-2 proper), a couple of GB remain after the allowance; if the fp32
# gradients are accumulated over the step's micro-batches before the fp32 reduce-scatter Meta
# describes ("FP32 gradient accumulation during backward computation over multiple
# micro-batches", §3.3.2), the unsharded fp32 buffer does not fit at all under this count. That is
# consistent with what the report says it took to train without recomputation: "detailed memory
# allocation profiling" and proactively freeing tensors no longer needed, such as each stage's
# input and output. Two caveats on the margin: the H100's 80 GB are binary (80 GiB = 85.9 GB, of
# which `nvidia-smi` reports 81,559 MiB = 85.5 GB usable); and how much a framework keeps per
# layer varies by implementation (a fused SwiGLU keeps 6·s·b·f bytes, an unfused one 8·s·b·f),
# and Meta's own pipeline schedule (its Fig. 6) holds a tunable number of micro-batches, so treat
# a plan within a few percent of the line as "measure first". The peak is on stage 1, not stage
# 0: both hold 16 micro-batches in flight, but the first stage has one layer fewer.
#
# The scenario's plan under each ZeRO stage and recomputation mode: ZeRO shrinks the model states,
# recomputation the activations, and neither is free (more communication, more compute).

# %%
variants = {f"ZeRO-{z}, {parallel.recompute_words(rc)}": dataclasses.replace(      # HSDP's shard size: ZeRO-3 only
    plan, zero_stage=z, recompute=rc, fsdp_shard_size=plan.fsdp_shard_size if z == 3 else None)
    for z in (0, 1, 2, 3) for rc in ("none", "selective", "full")}
table = memory.memory_table(spec, variants, p["seq_len"], recipe)
plots.memory_stack(table, hbm, usable, title=f"Which ZeRO stage and recomputation fit?\n{spec.name}: "
                  f"{plan.describe().split(' · ZeRO')[0]}");

# %% [markdown]
# And for three catalogue models on the same layout (TP 8 inside a node, 16-way DP, 32
# micro-batches of one 8,192-token sequence, 1F1B), where only the number of pipeline stages is
# chosen to divide each model's layers:

# %%
fig, axes = plt.subplots(1, 3, figsize=(15, 4.6), layout="constrained")
for i, (ax, (name, stages)) in enumerate(zip(axes, [("llama-3.1-8b", 1), ("llama-3.1-70b", 4),
                                                    ("llama-3.1-405b", 14)])):
    m = llmcost.load_model(name)
    v = {f"ZeRO-{z}, {rc}": parallel.ParallelPlan(dp=16, tp=8, pp=stages, n_microbatches=32,
                                                  zero_stage=z, recompute=rc)
         for z in (0, 1, 3) for rc in ("none", "selective", "full")}
    plots.memory_stack(memory.memory_table(m, v, 8192, recipe), hbm, usable, ax=ax,
                       title=f"{name}: TP 8 · PP {stages} · DP 16", labels=i == 0,
                       legend=i == 2, source=i == 0)

# %% [markdown]
# **Takeaway.** A plan fits when model states (÷ ZeRO, TP, PP, EP) plus activations (× micro-batches in
# flight) stay under the usable HBM; frontier runs sit within a few GB of the line.

# %% [markdown]
# ## 6. The pipeline bubble
#
# A pipeline of p stages cannot keep every stage busy: the last stage waits for the first
# micro-batch to arrive, and the first stage waits at the end for the last gradients to come back.
# With m micro-batches per step, forward and backward times t_f and t_b per micro-batch and stage,
# each stage computes for m·(t_f + t_b) and waits p − 1 slots while the pipeline fills and
# drains:
#
# $$\text{bubble} = \frac{(p-1)(t_f + t_b)}{m\,(t_f + t_b)} = \frac{p-1}{m}, \qquad \text{interleaved: } \frac{p-1}{v\,m}, \qquad \text{share of the step: } \frac{p-1}{m+p-1} \;\Big(\text{interleaved: } \frac{p-1}{v\,m+p-1}\Big).$$

# %% [markdown]
# | schedule | bubble ÷ ideal compute time | activations held by the first stage |
# |---|---|---|
# | GPipe (Huang et al. 2019) | (p−1)/m | all m micro-batches |
# | 1F1B (Narayanan et al. 2021 §2.2) | (p−1)/m | min(m, p) |
# | interleaved 1F1B, v chunks per stage | (p−1)/(v·m) | ≈ p·(1 + (p−1)/(p·v)) |
# | zero bubble ZB-H1 (Qi et al. 2024) | (p−1)/(3m) once m ≥ p; (2p−m−1)/(3m) below | as 1F1B |
#
# (As a share of the whole step, GPipe's and 1F1B's bubble is (p−1)/(m+p−1).) `llmcost` also
# simulates the schedules op by op; the simulated idle time and in-flight micro-batches equal the
# formulas (a test checks every stage).
# With fewer micro-batches than stages (m < p) ZB-H1's deferred weight-gradient passes cannot fill
# the warm-up: with equal F, B and W times its step spans 2p + 2m − 1 slots for 3m of work,
# (2p−m−1)/(3m) (`parallel.bubble_fraction`; counted slot by slot in a test). Blue bars are forward
# passes, orange bars backward passes,
# numbers are micro-batches:

# %%
fig, (a1, a2) = plt.subplots(2, 1, figsize=(13, 6), layout="constrained")
plots.pipeline_timeline(parallel.pipeline_schedule(4, 8, "1f1b"), ax=a1,
                        title="1F1B, p = 4 stages, m = 8 micro-batches")
plots.pipeline_timeline(parallel.pipeline_schedule(4, 8, "interleaved", 2), ax=a2,
                        title="interleaved 1F1B, v = 2 chunks per stage");

# %%
stages = plan.pp if plan.pp > 1 else 8  # the scenario has no pipeline: show p = 8
plots.bubble_vs_microbatches(stages, 2 ** np.arange(0, 11), max(plan.virtual_stages, 2),
                             mark=plan.n_microbatches if plan.pp > 1 else None);

# %%
# NBVAL_CHECK_OUTPUT
print(f"{plan.describe()}")
print(f"pipeline bubble: {plan.bubble_fraction():.1%} of the ideal compute time "
      f"({plan.bubble_fraction('total'):.1%} of the step)")
per = sum(memory.stage_layers(spec, plan.pp, plan.virtual_stages, plan.pp_split))  # each stage
if per.max() != per.min():   # an uneven split: every slot lasts the busiest stage's
    print(f"layers per stage {per.min()}-{per.max()} (mean {per.mean():.2f}): each slot lasts "
          f"the busiest stage's, {per.max() / per.mean() - 1:.0%} longer than an even split "
          "(stage imbalance, priced in notebook 04b)")

# %%
# NBVAL_CHECK_OUTPUT
import textwrap

from llmcost import checks

if plan.pp > 1:   # why stages at all: the search's choice, or a GPU count that forces them
    why = checks.pipeline_advice(p).removeprefix("; ") or "the scenario fixes pp"
    for i, part in enumerate(answers.top_level_points(why)):   # a point a line
        print(textwrap.fill(part, 100, initial_indent=f"why {plan.pp} pipeline stages: " if i
                            == 0 else "  - ", subsequent_indent="    "))

# %% [markdown]
# More micro-batches shrink the bubble, but the global batch is fixed by the optimisation (notebook
# 02): m = global batch / (micro-batch size × DP). Every GPU added to DP takes micro-batches away
# from the pipeline.
#
# **Takeaway.** The bubble is (p − 1)/m: more stages need proportionally more micro-batches, and
# the global batch caps the micro-batches. Layers that do not divide evenly over the stages cost
# more again: every slot lasts the busiest stage's (the line above says when a split is uneven).
#
# ## 7. Experts and scale-up domains
#
# Expert parallelism divides the routed experts of an MoE model, which hold most of its
# parameters (Mixtral 8x7B: 45 of its 47B). With ZeRO, the experts' optimizer states are sharded
# over dp·cp/ep ranks (tp·dp·cp/ep folded), so EP mainly removes weight and gradient copies:

# %%
mx = llmcost.load_model("mixtral-8x7b")
ep_plans = {f"EP {e}": parallel.make_plan(mx, 64, 256, ep=e, zero_stage=1,
                                          recompute="selective", seq_len=4096)
            for e in (1, 2, 4, 8)}
plots.memory_stack(memory.memory_table(mx, ep_plans, 4096, recipe), hbm, usable,
                   title="Does EP make Mixtral 8x7B fit? 64 GPUs, TP 1, DP 64, ZeRO-1");

# %% [markdown]
# **Capacity and imbalance (the memory side).** The bars assume a perfectly balanced router. Real
# routers are not: GShard and Switch Transformer give each expert a buffer of
# C = ⌈capacity factor × tokens × k / E⌉ token slots and drop the overflow; dropless MoE
# (Megablocks, DeepSeek-V3) keeps every token, so the busiest expert's GPU holds what it is sent.
# Either way the expert buffers and the expert FFN's activations scale with the load factor f
# (the capacity factor, or the busiest GPU's load ÷ the mean):
#
# $$\Delta A_{\text{MoE layer}} = (f - 1)\; x\,k\left(2h + \frac{2\,m_{\text{FFN}}\,f_e}{t}\right) \text{ bytes},$$
#
# with x tokens per micro-batch, m_FFN = 3 for a gated FFN of width f_e (`memory.moe_capacity_extra_bytes_per_layer`).

# %%
# NBVAL_CHECK_OUTPUT
cap = memory.expert_capacity_tokens(4096, mx.n_experts_active, mx.n_experts, 1.25)
print(f"Mixtral, one 4,096-token micro-batch: capacity at factor 1.25 = {cap:,.0f} token slots per "
      f"expert (mean {4096 * mx.n_experts_active / mx.n_experts:,.0f})")
for f in (1.25, 2.0):
    extra = memory.moe_capacity_extra_bytes_per_layer(mx, 4096, 1, 1, 1, f) * mx.n_moe_layers
    print(f"load factor {f}: +{extra / 1e9:.1f} GB of activations per in-flight micro-batch "
          f"over {mx.n_moe_layers} MoE layers")

# %% [markdown]
# The price is an all-to-all in every MoE layer: each token goes to the GPUs of its k experts and
# comes back. Inside a scale-up domain that traffic rides NVLink; once the EP group is larger than
# the domain, most of it crosses the much slower scale-out network. With uniform routing, the
# share of all-to-all bytes that leaves a GPU's domain is 1 − d/g for an EP group of g GPUs in
# domains of d. This is why DeepSeek-V3 limits each token to at most 4 nodes (its report, §3.2.2),
# and why TP, whose collectives are on the critical path of every layer, stays inside the domain:

# %%
eps = np.array([8, 16, 32, 64, 128, 256])
share = parallel.alltoall_scaleout_share(eps, cluster.scaleup_domain_size)
ratio = cluster.scaleup_bytes_per_s_per_dir / cluster.scaleout_bytes_per_s_per_dir
print(f"{gpu.name}: {cluster.scaleup_bytes_per_s_per_dir / 1e9:.0f} GB/s per direction inside "
      f"one {cluster.scaleup_domain_size}-GPU domain, "
      f"{cluster.scaleout_bytes_per_s_per_dir / 1e9:.0f}"
      f" GB/s across domains: {ratio:.0f}x less")
plots.table(pd.DataFrame({"EP group (GPUs)": eps,
                          "share of all-to-all bytes leaving the domain": share}),
            {"share of all-to-all bytes leaving the domain": "{:.0%}"})

# %% [markdown]
# **Tensor parallelism meets GQA's KV heads.** TP splits attention by heads. With grouped-query
# attention the model has only g KV heads (Llama-2-70B: 64 query heads, g = 8), so past t = g
# there is nothing left to split: each rank keeps one KV head, replicated on t/g ranks, and K/V
# weights and activations stop shrinking (`memory.kv_heads_per_tp_rank`). Together with the
# 8-GPU NVLink domain of a server this is why TP stops at 8 for these models there.
#
# **Context parallelism is ring attention, load-balanced.** Ring attention keeps two K/V blocks of
# s/cp tokens per rank (one computed on, one arriving), the all-gather the whole sequence's K/V
# (`memory.cp_kv_buffer_bytes`). Under a causal mask rank r of contiguous chunks attends to r + ½
# chunks, so the last rank does (cp − ½)/(cp/2) = 2 − 1/cp of the mean work; splitting into 2·cp
# chunks and giving rank r chunks r and 2cp − 1 − r evens it out (`memory.cp_causal_imbalance`).

# %%
# NBVAL_CHECK_OUTPUT
g = spec.n_kv_heads  # TP sizes the head split allows (t | heads; t | g or g | t)
tps = np.array([t for t in (1, 2, 4, 8, 16) if spec.n_heads % t == 0 and (g % t == 0 or t % g == 0)])
kv, rep = memory.kv_heads_per_tp_rank(g, tps)
print(f"{spec.name}: {spec.n_heads} query heads, {spec.n_kv_heads} KV heads; KV heads per TP rank "
      + ", ".join(f"TP{t}: {k:g}" + (f" (×{r:g} replicated)" if r > 1 else "") for t, k, r in zip(tps, kv, rep)))
for cp in (2, 8):
    ring, gather = (memory.cp_kv_buffer_bytes(spec, 131072, 1, cp, 8, m) for m in ("ring", "all_gather"))
    print(f"128K tokens, TP 8, CP {cp}: K/V buffer per layer {ring / 1e6:,.0f} MB (ring) vs "
          f"{gather / 1e6:,.0f} MB (all-gather); causal work on the busiest rank "
          f"{memory.cp_causal_imbalance(cp, load_balanced=False):.2f}× the mean unbalanced, "
          f"{memory.cp_causal_imbalance(cp):.0f}× balanced")

# %% [markdown]
# **Takeaway.** EP divides the experts but pays an all-to-all that leaves the scale-up domain once
# the group outgrows it, and its buffers grow with the router's imbalance; TP stops paying at the
# KV-head count and the NVLink domain; CP needs ring or all-gather K/V exchange and causal load
# balancing.

# %% [markdown]
# ## 8. Every valid plan for the scenario
#
# `enumerate_plans` tries every combination of TP × PP (DP derived) × virtual stages × micro-batch
# size × ZeRO stage × recomputation × schedule for the scenario's model, GPU count and global batch,
# with the plan fields the scenario fixes held at its values (`parallel.scenario_plan_axes`; where
# it leaves CP free, the sizes its sequence allows), with numpy over the whole grid at once
# (`benchmarks/bench_plans.py` prints its speed as a ratio against a per-plan Python loop it times
# in the same run). A combination is rejected by the first rule it breaks:

# %%
# NBVAL_CHECK_OUTPUT
held = parallel.scenario_plan_axes(p)   # the fields the scenario fixes; CP sizes if cp: 0
plans = parallel.enumerate_plans(spec, cluster, p["global_batch_tokens"] // p["seq_len"],
                                 p["seq_len"], pp_split=layer_split, recipe=recipe,
                                 reserve=p["mem_reserve_fraction"],
                                 etp=p["etp"] or None, **held)  # etp 1: the experts folded
fitting = plans[plans.fits & plans.tp_in_scaleup_domain]
print(f"{plans.attrs['n_candidates']:,} combinations, {len(plans):,} valid plans, "
      f"{int(plans.fits.sum()):,} fit in {usable / 1e9:.0f} GB, {len(fitting):,} of them with "
      f"TP inside the {cluster.scaleup_domain_size}-GPU domain")
print("held (the scenario's values; cp 1 unless it asks for CP, its sizes at cp: 0): " + ", ".join(
    f"{k} {'/'.join(map(str, v))}" for k, v in held.items()))

# %%
rejected = pd.Series(plans.attrs["rejected"], name="combinations")
rejected = rejected[rejected > 0].sort_values(ascending=False).to_frame()
rejected["rule"] = [parallel.RULES[r] for r in rejected.index]
plots.table(rejected, index=True)  # the rules in full (a bare frame cut them at 50 characters)

# %% [markdown]
# The fitting plans the scenario's stack runs (its ZeRO stages, pipeline schedules and
# tensor-parallel rule; `parallel.stack_runs`) with TP inside the scale-up domain, ordered by the
# costs this notebook can measure: the bubble first, then the extra compute of recomputation (none, selective, full), then
# the ZeRO stage (higher stages move more data), then memory. The **green** row has the smallest
# bubble, the **orange** row the least memory per GPU. Communication time is not in this ordering
# yet; notebook 04b ranks the same plans by predicted step time.

# %%
from llmcost import stacks

allowed = stacks.plan_options(p["stack"])  # its ZeRO stages, schedules and TP rule
runnable = fitting[parallel.stack_runs(fitting, allowed, spec)]
print(f"{len(runnable):,} of the {len(fitting):,} run on the {p['stack']} stack")
best = parallel.plan_table(runnable, n=12)
colour = lambda r: ["background-color: #cdebd3" if r.min_bubble else  # noqa: E731
                    "background-color: #fbdcc0" if r.min_memory else ""] * len(r)
plots.table(best, {"memory_gb": "{:.1f}", "bubble_fraction": "{:.1%}"}, row_style=colour,
            words=plots.COLUMN_WORDS)

# %% [markdown]
# **Is the scenario's plan the top row?** The table orders plans by what memory arithmetic
# can see, the bubble first, so the shallowest pipeline the scenario allows (none at all
# where it leaves PP free and its GPU count and batch need none) wins it. The scenario's plan may
# not be: `choose_plan` ranks the fitting plans by the step time notebook 04b predicts,
# which also counts the messages. Side by side (`llmcost.step.step_time`, parts in seconds;
# the same plan twice where the top row is the scenario's):

# %%
from llmcost import step

both = {"scenario's plan": plan} | ({"top row the stack runs": parallel.plan_from_row(
    parallel.rank_without_time(runnable).iloc[0], layer_split)} if len(runnable) else {})
opts = step.scenario_step_options(p)  # the dtype, stack and overlaps 04b prices with
steps = {k: step.step_time(spec, cluster, v, p["seq_len"], options=opts) for k, v in both.items()}
parts = pd.DataFrame({k: {**s.parts, "MFU": s.mfu} for k, s in steps.items()})
parts = parts.loc[(parts.T != 0).any()].rename(index=lambda k: k.removesuffix("_s").replace("_", " ")
                                                + (" (s)" if k.endswith("_s") else ""))
display(plots.table(parts, "{:.3f}", index=True))  # step.PART_NOTES says what each part is
for k, s in steps.items():
    print(f"{k}: {both[k].describe()}: step {s.step_time_s:.2f} s, exposed communication "
          f"{s.exposed_comm_s:.2f} s, bubble {s.pipeline_bubble_s:.2f} s" + (
              " (the uncalibrated step-time model's; the plan was chosen calibrated on the "
              "pilots)" if plan_how else ""))

# %% [markdown]
# The table ranks without timing the plans (bubble, then recomputation, context parallelism,
# ZeRO stage and memory: `parallel.rank_without_time`; among the plans the scenario's stack can
# run: its ZeRO stages, pipeline schedules and tensor-parallel rule). A plan with less bubble can
# pay for it elsewhere: wider tensor parallelism puts more all-reduces per layer on the critical
# path, and more data-parallel replicas reduce their gradients with fewer micro-batches to hide the
# traffic behind; a plan with a bubble and a few point-to-point sends can still be the faster one.
# The lines above give both plans' steps for this scenario.
#
# **Takeaway.** Least memory and smallest bubble are necessary checks, not the objective: the
# objective is time, which notebook 04b predicts.

# %% [markdown]
# ## 9. So why can't we just add GPUs?
#
# Keep the model and the global batch fixed and add GPUs. Below some count no plan fits: the model
# states and activations do not fit however they are split. Above it, plans fit, and as long as
# data parallelism can absorb the new GPUs the bubble can stay at zero. But DP cannot exceed the
# global batch in sequences (one sequence per micro-batch at least), so beyond global batch × TP
# GPUs the extra GPUs must go to pipeline stages with fewer and fewer micro-batches each, and the
# bubble grows. (TP beyond the scale-up domain and EP or CP across domains are the other
# "escape routes"; they cost communication, notebook 04.) The sweep holds what the scenario holds:
# its stack's ZeRO stages and schedules and the plan fields it fixes.

# %%
counts = 2 ** np.arange(3, 16)
frontier = parallel.scaling_frontier(spec, gpu, counts, p["global_batch_tokens"] // p["seq_len"],
                                     p["seq_len"], pp_split=layer_split, recipe=recipe,
                                     reserve=p["mem_reserve_fraction"], etp=p["etp"] or None,
                                     **{**allowed, **held})  # the stack's and fixed fields
plots.scaling_frontier(frontier, title=f"Where do more GPUs stop helping? {spec.name}, global batch "
                       f"{p['global_batch_tokens'] // p['seq_len']:,} sequences");

# %%
plots.table(frontier, {"min_memory_gb": "{:.1f}", "min_bubble": "{:.1%}"}, index=True,
            words=plots.COLUMN_WORDS)

# %% [markdown]
# **Takeaway.** Adding GPUs helps while data parallelism can absorb them; beyond global batch × TP
# GPUs the bubble grows, and the escape routes (TP, EP, CP beyond the domain) pay in communication.

# %% [markdown]
# ## Exercises
#
# Round numbers; the teaching accelerator `Teaching-1PF` (1 PFLOP/s bf16, 80 GB, 8 per NVLink
# domain; `llmcost.list_accelerators()`) keeps the arithmetic short.
#
# 1. **Model states.** A 70B model trains with bf16 Adam (16 B/param) on 64 GPUs. How many GB does
#    each GPU hold under plain DP, ZeRO-1 and ZeRO-3 (FSDP FULL_SHARD)? Which fit in 80 GB?
# 2. **Bubble.** A pipeline has p = 8 stages and m = 32 micro-batches. What is the 1F1B bubble, and
#    with v = 4 interleaved chunks? How many micro-batches does the first stage hold in flight, and
#    what does GPipe hold?
# 3. **TP and GQA.** Llama-2-70B has 64 query heads and 8 KV heads. At TP 16, how many KV heads does
#    each rank hold, and how many ranks hold each KV head?
# 4. **Step time.** A 7B model trains on 4M-token steps on 128 teaching accelerators at 50% MFU.
#    How long is the compute of one step (6ND), and how long with a p = 4, m = 8 1F1B pipeline?

# %% [markdown]
# <details><summary>Worked answers</summary>
#
# 1. DP: 16 × 70 = **1,120 GB** (no). ZeRO-1: (2 + 2) × 70 + 12 × 70/64 = 280 + 13.1 = **293 GB**
#    (no). ZeRO-3: 1,120/64 = **17.5 GB** (yes, plus activations).
# 2. 1F1B: (8 − 1)/32 = **21.9%**; interleaved: 7/(4 × 32) = **5.5%**. In flight: 1F1B min(32, 8) =
#    **8**; interleaved (2·7 + 3·8 + 1)/4 = **9.75** stage-equivalents (8 × (1 + 7/32) = 9.75);
#    GPipe **32**.
# 3. t = 16 > g = 8: **one KV head per rank, each held by 16/8 = 2 ranks.**
# 4. 6 × 7·10⁹ × 4.19·10⁶ = 1.76·10¹⁷ FLOPs; ÷ (128 × 10¹⁵ × 0.5) = **2.75 s**; the bubble adds
#    3/8 of it: **3.78 s**.
# </details>

# %%
# NBVAL_CHECK_OUTPUT
print(f"The scenario's plan {'fits' if fits else 'does NOT fit'}: it needs {mb.total / 1e9:.1f} GB "
      f"per GPU of the {usable / 1e9:.1f} GB usable ({hbm / 1e9:.1f} GB of HBM less the "
      f"{p['mem_reserve_fraction']:.0%} reserve).")

# %%
rows = [
    summary_row("model_states_tb", "model states, unsharded", states / 1e12, "TB",
                f"{recipe.name}, {recipe.bytes_per_param:g} B/param"),
    summary_row("memory_per_gpu_gb", "memory per GPU, scenario plan", mb.total / 1e9, "GB",
                plan.describe()),
    summary_row("memory_headroom_gb", "memory headroom per GPU", (usable - mb.total) / 1e9, "GB",
                f"the {usable / 1e9:.1f} GB usable less the plan's {mb.total / 1e9:.1f} GB; "
                "below 0 it does not fit"),
]

# %%
# NBVAL_CHECK_OUTPUT
publish_summary("03_parallelism", rows + [
    summary_row("bubble_fraction", "pipeline bubble ÷ ideal compute time",
                plan.bubble_fraction(), "",
                plan.schedule if plan.pp > 1 else "no pipeline"),
    summary_row("n_valid_plans", "valid plans", len(plans), "",
                f"of {plans.attrs['n_candidates']:,} combinations"),
    summary_row("n_fitting_plans", "fitting plans, TP in domain", len(fitting), "",
                f"each needing at most the {usable / 1e9:.0f} GB usable per GPU"),
])

# %% [markdown]
# **What this adds up to.** A model has a memory floor (section 1) that sets the fewest GPUs that
# can train it; ZeRO, TP, PP, EP and CP lower it by removing copies or splitting the work, each
# with its own cost. Above the floor, the global batch caps data parallelism; past that cap the
# pipeline runs short of micro-batches and its bubble grows, and TP, EP or CP beyond the scale-up
# domain pay for their messages on the slow network. Adding GPUs shortens a run only while some
# dimension can still absorb them cheaply.
#
# ## Explore
#
# Change the model, accelerator, GPU count, global batch, TP, PP, ZeRO stage and recomputation;
# the memory bars, the fits verdict and the bubble follow. (In a report these widgets are switched
# off; run the notebook in Jupyter to use them.)

# %%
if interactive:
    from llmcost.present.widgets import memory_explorer

    display(memory_explorer(spec.name, gpu.name, p["n_gpus"], p["global_batch_tokens"],
                            p["seq_len"], plan.tp, plan.pp, plan.zero_stage, plan.recompute,
                            plan.micro_batch_size, recipe.name, p["mem_reserve_fraction"],
                            plan.pp_split, plan.cp, plan.ep, plan.schedule,
                            plan.virtual_stages, plan.etp,
                            step_scenario.scenario_memory_practice(p)))

# %% [markdown]
# ---
# **Sources.** Rajbhandari, Rasley, Ruwase, He 2020, *ZeRO: Memory Optimizations Toward Training
# Trillion Parameter Models*, arXiv:1910.02054 (§3.1, §5, §7, Fig. 1). Korthikanti et al. 2022,
# *Reducing Activation Recomputation in Large Transformer Models*, arXiv:2205.05198 (§4, Table 2,
# §5). Shoeybi et al. 2019, *Megatron-LM*, arXiv:1909.08053. Narayanan et al. 2021, *Efficient
# Large-Scale Language Model Training on GPU Clusters Using Megatron-LM*, arXiv:2104.04473 (§2.2).
# Huang et al. 2019, *GPipe*. Qi, Wan, Huang, Lin 2024, *Zero Bubble Pipeline Parallelism*,
# arXiv:2401.10241. Dao et al. 2022, *FlashAttention*. Liu, Zaharia, Abbeel 2023, *Ring Attention*,
# arXiv:2310.01889. Lepikhin et al. 2020, *GShard* (§2.2, expert
# capacity). Fedus, Zoph, Shazeer 2021, *Switch Transformers*, arXiv:2101.03961 (§2.2, capacity
# factor). PyTorch FSDP `ShardingStrategy` documentation (FULL_SHARD, SHARD_GRAD_OP, HYBRID_SHARD).
# Megatron-LM context parallelism (ring attention with causal load balancing). DeepSeek-AI 2024, *DeepSeek-V3 Technical
# Report*, arXiv:2412.19437 (§3.2.2, §3.3). Llama Team 2024, *The Llama 3 Herd of Models*,
# arXiv:2407.21783 (§3.3.2, Table 4). Megatron-LM distributed-optimizer guide and
# `theoretical_memory_usage.py`; DeepSpeed `estimate_zero3_model_states_mem_needs`. Recipes and
# their sources: `llmcost.memory.list_recipes()`.

# %% [markdown]
# [← 00 · Index](00_index.ipynb) · previous: [02 · How big should the batch be?](02_batch_size.ipynb) · next: [04 · Where does the time go when GPUs wait?](04_communication.ipynb)
