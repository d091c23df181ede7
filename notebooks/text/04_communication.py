# Text twin of notebooks/04_communication.ipynb, written by `llmcost twins` (jupytext percent format).
# Edit the notebook, not this file; the twin exists so that a change reads as a diff.

# %% [markdown]
# # 04 · Where does the time go when GPUs wait?
#
# [← 00 · Index](00_index.ipynb) · previous: [03 · Why can't we just add GPUs?](03_parallelism.ipynb) · next: [04b · How long does a training step take, and which plan is fastest?](04b_step_time.ipynb)

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import llmcost
from llmcost import comm, overlap, parallel, plots, step
from llmcost.present.report import publish_summary, summary_row
from llmcost.training import calibrate

# %% tags=["parameters"]
model: str = "llama-2-70b"  # catalogue model name (llmcost.list_models())
accelerator: str = "H100-SXM"  # catalogue accelerator name (llmcost.list_accelerators())
n_gpus: int = 2048  # accelerators in the training job
train_tokens: float = 2.0e12  # pre-training tokens
seq_len: int = 4096  # training sequence length in tokens
global_batch_tokens: int = 4194304  # tokens per optimizer step (1,024 sequences of 4,096)
mfu: float = 0.4  # the MFU the scenario assumes (compared with the prediction below)
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
stack: str = "megatron-core-2024"  # software-stack profile (data/stacks.csv, llmcost.stacks)
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
recipe_name = llmcost.memory.scenario_recipe_name(p)  # given, or by dtype and stack
spec, gpu = llmcost.load_model(p["model"]), llmcost.catalog.scenario_accelerator(p)
cluster = llmcost.catalog.scenario_cluster(p)
plan, plan_how = calibrate.priced_plan(p, spec)  # the bill's: with pilots, calibrated on them
plan, b = step.scenario_step(p, spec, plan)  # its step, the uncalibrated model's
opts = step.scenario_options(p)   # recipe, dtype, stack and its overlaps ("auto" resolved)

# %%
from IPython.display import Markdown

from llmcost.present import answers

display(Markdown(answers.communication(plan.describe(), b.step_time_s, b.exposed_comm_s,
                                       b.straggler_s)))   # derived in sections 1-5

# %% [markdown]
# Notebook 03 found the plans that fit in memory; every one of them makes the GPUs talk. This
# notebook prices what they send and when that costs time: collectives over NVLink and the
# network, the FLOPs each kind of parallelism does per byte it sends (which says whether its
# traffic can hide behind compute), what each parallel dimension sends in one step, and what
# adding ranks costs: FSDP's per-layer gathers, the slowest GPU every collective waits for, and
# the all-to-alls of a mixture of experts. Notebook 04b adds all of it up into a step time, a
# predicted MFU and a ranking of the scenario's plans.
#
# **Learning objectives.** After this notebook you can
#
# 1. derive the time of a ring all-reduce, reduce-scatter and all-gather from the alpha-beta model,
#    and say when a message is latency-bound and when bandwidth-bound;
# 2. for each kind of parallelism (DP, FSDP, TP, PP, EP, CP) work out the FLOPs it does per byte it
#    sends and compare that with the hardware's ridge C/W, to say before any simulation whether
#    its traffic can hide behind compute;
# 3. name what the model assumes about the links (a switch, or a full mesh priced by the links
#    among a group's members; ring collectives; no in-switch reduction) and where that is wrong
#    (TPU tori, NVLink and InfiniBand SHARP);
# 4. say why FSDP at a fixed batch, the job's slowest GPU and an expert-parallel group that leaves
#    the board each cost step time, and estimate how much.
#
# **Conventions.** MFU is on the workbook's basis: model FLOPs = `ModelSpec.flops_per_token(seq_len,
# causal=False)` (matmuls plus the full s×s attention core, no recomputation; Narayanan et al. 2021's
# appendix, PaLM and torchtitan; Megatron-Core's logged TFLOP/s count a causal mask since 0.12) ÷ (step time × GPUs × dense peak). HFU adds recomputed FLOPs. Step time is the
# busiest GPU's. Bandwidths are per GPU and per direction; bytes are decimal. The achievable
# fractions of datasheet figures come from measurements, papers or Calculon's system files
# (`data/efficiency.csv`, each with its source; assumed values are flagged), and one constant is
# calibrated on per-layer timings (notebook 04b, section 1). The worked exercises at the end use the catalogue's
# teaching accelerator (`Teaching-1PF`: 1 PFLOP/s, 450 GB/s NVLink, 50 GB/s NIC) for round numbers.

# %%
plt.rcParams.update({"font.size": 12})   # figures readable when projected
free = parallel.free_plan_parameters(p)
print(f"{spec.name} on {p['n_gpus']:,} × {gpu.name}, {p['global_batch_tokens']:,} tokens per step")
print(f"plan: {plan.describe()}")
print(f"chosen by predicted step time (llmcost.parallel.choose_plan): {', '.join(free)}" if free
      else "plan fixed by the scenario")
if plan_how:  # the times of sections 1-5 are the uncalibrated model's on that plan
    print(f"{plan_how}; its step {b.step_time_s:.3g} s and exposed communication "
          f"{b.exposed_comm_s:.3g} s above are the uncalibrated step-time model's")
print(f"stack: {llmcost.stacks.load_stack(p['stack']).describe()}")
ppo = plan.virtual_stages > 1 if opts["pp_overlap"] == "interleaved" else opts["pp_overlap"]
print(f"overlap: TP {opts['tp_overlap']}, PP {'on' if ppo else 'off'}, "
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
# > **Takeaway.** Step time = compute + the part of the waiting that nothing else covers. The rest
# > of the notebook prices both halves.
#
# ## 2. The alpha-beta model and the two bandwidth tiers
#
# Sending $S$ bytes over a link of bandwidth $W$ takes a start-up latency plus a bandwidth term
# (Hockney 1994):
#
# $$T_\text{p2p}(S) = \alpha + \frac{S}{W}.$$
#
# A **ring reduce-scatter** over $n$ ranks cuts each buffer into $n$ chunks and takes $n-1$ steps;
# in each, every rank sends one chunk of $S/n$ bytes to its neighbour and adds the chunk it
# receives. An **all-gather** runs the same ring to spread the reduced chunks. An **all-reduce** is
# the two in sequence (Thakur, Rabenseifner, Gropp 2005; Patarasuk & Yuan 2009 prove it
# bandwidth-optimal):
#
# $$T_\text{RS} = T_\text{AG} = (n-1)\,\alpha + \frac{n-1}{n}\,\frac{S}{W},\qquad
# T_\text{AR} = 2(n-1)\,\alpha + 2\,\frac{n-1}{n}\,\frac{S}{W}.$$
#
# So each rank moves almost $2S$ bytes to all-reduce $S$, whatever $n$; only the latency term grows
# with $n$ (a double binary tree cuts it to $2\log_2 n\cdot\alpha$, Sanders, Speck, Träff 2009).
# nccl-tests reports the **algorithm bandwidth** $S/t$ and the **bus bandwidth**
# $S/t \times 2(n-1)/n$ (all-reduce) or $\times (n-1)/n$ (gathers, scatters, all-to-all): the bus
# bandwidth compares with a GPU's link bandwidth, whatever $n$ is.
#
# **In-switch reduction.** A switch that can add (NVLink SHARP in the third-generation NVSwitch of
# H100 boards; SHARP in InfiniBand Quantum switches, Graham et al. 2016) lets every GPU send its
# buffer once and receive the sum once:
# $T_\text{AR}^\text{SHARP} \approx \alpha_\text{sw} + S/W$, up to $2(n-1)/n$ = 1.75× faster at
# $n = 8$. NVIDIA measures about 480 GB/s of NVLS bus bandwidth on an H100 board against 370 GB/s
# for the ring (NCCL maintainer, nccl-tests issue #212; "a 30% improvement using NVLink SHARP",
# nccl issue #1442): 1.3×. **The step-time model uses ring figures only**, so
# on H100 and later boards its all-reduces inside the board are up to 1.3× slow, and across nodes
# it ignores IB SHARP.
#
# Two tiers of links matter: the **scale-up domain** (NVLink and NVSwitch inside an 8-GPU board)
# and the **scale-out network** (one InfiniBand or RoCE NIC per GPU), an order of magnitude slower.
# Each runs at a measured fraction of its datasheet speed. When a group spans domains with $k$
# members in each, NCCL runs one ring per NIC, so the $k$ NICs of a domain work in parallel: bus
# bandwidth $\min(W_\text{NVLink}, k\cdot W_\text{NIC})$. Two worked examples, and a consistency
# check against the NVIDIA measurement the network fraction was taken from (so it confirms the
# bookkeeping, not the physics):

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

# %% [markdown]
# **Not every scale-up domain is a switch.** On a switch any group of GPUs gets each GPU's full
# link bandwidth: that is true of NVSwitch boards (A100, H100, H200, B200). It is not true of:
#
# * **AMD MI300X / MI325X**: no switch; the 8 GPUs of a board form a *full mesh*, each GPU with one
#   Infinity Fabric link (64 GB/s per direction) to each of the other seven. A collective over all
#   8 can use all seven links (448 GB/s, the catalogue's figure); a TP group of 2 has one link
#   between its members, 64 GB/s, a seventh of it (three sevenths for a group of 4). The step
#   model prices a mesh's groups so (`comm.mesh_scaleup_bandwidth`: the links among the members).
# * **Intel Gaudi 3**: also a mesh, 3 × 200 GbE ports to each of 7 peers (75 GB/s per pair).
# * **Google TPUs**: a *torus* (3D on v4 and v5p, 2D on v5e). A ring along one axis uses the two
#   links to its neighbours on that axis (90 GB/s per direction on v4); the catalogue's per-chip
#   figure (all 6 links, 270 GB/s) is reached only by a collective spread over all three axes at
#   once, and a slice counts as one "domain" (on v5p the largest one job can have, 6,144 of the
#   pod's 8,960 chips). An all-to-all on a torus is limited by the bisection, which the model
#   does not price at all. **The model prices a torus as a switch**: read TPU figures as the best
#   case (a bill on a torus says so, with the MFU at one axis's links beside it).
#
# `overlap.group_bandwidth` gives what a group of each size really gets
# (`data/scaleup_topology.csv`, with sources); "board ÷ real" is how optimistic the whole-board
# figure would be for that group's bandwidth term (the model's own figure on a torus):

# %%
topo = overlap.topology_table()
plots.table(topo[["accelerator", "topology", "in-switch reduction", "board GB/s",
                  "group of 2: GB/s", "group of 2: board ÷ real", "group of 8: GB/s",
                  "group of 8: board ÷ real"]],
            {"board GB/s": "{:.0f}", "group of 2: GB/s": "{:.0f}", "group of 8: GB/s": "{:.0f}",
             "group of 2: board ÷ real": "{:.1f}×", "group of 8: board ÷ real": "{:.1f}×"})

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
# > **Takeaway.** An all-reduce moves about $2S$ per rank whatever the group size; a group is as
# > fast as its slowest tier, and pooling the NICs of a board makes a data-parallel ring about
# > $k$ times faster than one NIC. The model assumes switches (or full meshes, by their links) and
# > rings: tori and in-switch reductions are where it is approximate.
#
# ## 3. When does the traffic hide? One roofline per kind of parallelism
#
# Before simulating a step, a single division says whether a kind of parallelism *can* hide its
# communication: compare the FLOPs a GPU does while the bytes move with the bytes themselves.
# With $C$ the GPU's FLOP/s and $W$ the per-GPU link bandwidth,
#
# $$\frac{T_\text{compute}}{T_\text{comm}} = \frac{F/C}{V/W} = \frac{F/V}{C/W}.$$
#
# $F/V$ is the parallelism's *intensity* (FLOPs per byte sent); $C/W$ is the hardware's
# *communication ridge*, the roofline of Williams, Waterman, Patterson (2009) with a link in place
# of HBM, as the JAX scaling book does for TPUs. On an H100, $C/W$ = 989 TFLOP/s ÷ 450 GB/s ≈
# 2,200 FLOPs per byte over NVLink and ≈ 19,800 over one 400 Gb/s NIC: a GPU must do ten times
# more work per byte for traffic that leaves the board. Per GPU and step, with $\beta$ bytes per
# element (2 for bf16, $\beta_g$ = 4 for fp32 gradients) and $f = 2(n-1)/n$:
#
# **DP** (gradients all-reduced once per step, behind a backward pass, 2/3 of $6PB$; $P$ the
# GPU's parameters, $B$ the tokens of that backward's micro-batch: with gradient accumulation the
# reduction overlaps only the step's *last* micro-batch, PyTorch DDP's `no_sync` and Megatron-LM's
# `overlap_grad_reduce` alike, so B is a micro-batch, not the step):
# $$\frac{4PB/C}{f P\beta_g/W} \ge 1 \iff B \ge B^* = \frac{f\,\beta_g}{4}\,\frac{C}{W}.$$
# (ZeRO-1 reduce-scatters the gradients behind that last backward and gathers the weights behind
# the next forward; ZeRO-2 as DeepSpeed runs it reduce-scatters after every micro-batch: for both,
# $f$ becomes the reduce-scatter's $(n-1)/n$, half the bytes, behind one micro-batch's backward.
# The table below gives both forms.)
#
# **FSDP / ZeRO-3** (weights gathered before each layer's forward and again before its backward,
# gradients reduce-scattered after it, *every micro-batch* of $b$ tokens; $g = (n-1)/n$):
# $$\frac{2Pb}{C} \ge \frac{g P \beta_w}{W},\quad \frac{4Pb}{C} \ge \frac{g P (\beta_w+\beta_g)}{W}
# \iff b \ge b^* = g\,\max\!\Big(\frac{\beta_w}{2}, \frac{\beta_w+\beta_g}{4}\Big)\frac{C}{W}.$$
# With bf16 everywhere $b^* \approx C/W$, the same as DP (the scaling book's result), but it
# applies per micro-batch, so gradient accumulation does not help FSDP.
#
# **TP** (two all-reduces of the $T\times h$ activations per layer and pass, $P_\ell$ parameters per
# layer, degree $t$):
# $$\frac{2TP_\ell/(tC)}{2 f T h \beta/W} = \frac{P_\ell\,W}{2(t-1)\,h\,\beta\,C}
# \;\approx\; \frac{6h}{(t-1)\beta}\frac{W}{C}\quad(P_\ell \approx 12h^2).$$
# The tokens cancel: only the model's width and the link decide, which is why TP stays inside the
# board and wide models tolerate more of it.
#
# **PP** (one activation of $T\times h$ per micro-batch and stage boundary, $L_s$ layers per stage):
# $$\frac{2TL_sP_\ell/(tC)}{Th\beta/(tW)} \ge 1 \iff L_s \ge L_s^* = \frac{h\,\beta}{2P_\ell}\frac{C}{W},$$
# a fraction of one layer for any real model: pipelining costs the bubble, not bandwidth.
#
# **EP** (dispatch and combine all-to-alls of $k$ copies of each token, capacity factor $c$, experts
# of $m$ matrices of $h\times F_e$):
# $$\frac{2kmhF_eT/C}{k\,c\,T h(\beta_d+\beta_c)\,g/W} \ge 1 \iff
# F_e \ge F_e^* = \frac{c(\beta_d+\beta_c)}{2m}\,g\,\frac{C}{W}.$$
# Only the expert width and the link count: fine-grained experts across nodes sit below the ridge.
#
# **CP** as ring attention (each rank passes its K and V blocks of $T_c$ tokens round the ring
# while its queries attend to the block it holds; causal load balancing halves the work per step;
# $h_{kv}$ the K width):
# $$\frac{4T_c^2h\cdot\tfrac12/C}{2T_ch_{kv}\beta/W} \ge 1 \iff T_c \ge T_c^* = \frac{h_{kv}\beta}{h}\frac{C}{W}$$
# (Liu et al. 2023's "block size ≥ FLOPs ÷ bandwidth" for full attention; GQA's narrow K and V
# lower it).
#
# Each formula is a function of `llmcost.overlap` with its derivation and sources in the
# docstring. For the scenario's plan on its accelerator (datasheet peak and links; the FSDP line
# says what the plan would meet with ZeRO-3, the "DP, ZeRO-0" line with the all-reduce behind the
# last micro-batch's backward, the "DP, ZeRO-1/2" line with the reduce-scatter behind it, once per
# step (ZeRO-1) or after every micro-batch (ZeRO-2); MoE rows appear for MoE models):

# %%
# NBVAL_CHECK_OUTPUT
tok_mb = plan.micro_batch_size * p["seq_len"] // plan.cp   # tokens per GPU and micro-batch
roof = overlap.roofline_table(
    spec, gpu, tokens_per_microbatch=tok_mb, tp=plan.tp, pp=plan.pp, dp=plan.dp * plan.cp, ep=plan.ep,
    cp=plan.cp, grad_bytes=llmcost.memory.get_recipe(recipe_name).grads_bytes,
    virtual_stages=plan.virtual_stages, seq_len=p["seq_len"])
up, out = (overlap.ridge(gpu.peak_flops_per_s(), w) for w in (
    gpu.scaleup_bytes_per_s_per_dir, gpu.scaleout_bytes_per_s_per_dir))
print(f"{gpu.name}: ridge C/W {up:,.0f} FLOPs/byte over the scale-up links, {out:,.0f} over one NIC")
for r in roof.itertuples():  # DP's rows: each ZeRO stage behind one micro-batch's backward
    kind = r.kind.replace("DP (", "DP, ").rstrip(")") if r.kind.startswith("DP (") else r.kind
    print(f"{kind:>12} ({r.link}): {r.controls} {r.value:,.5g}, threshold {r.critical:,.4g}; "
          f"compute ÷ comm {r.ratio:.2f}: {'hides' if r.hides else 'waits'} ({r.function})")

# %%
curves = overlap.roofline_curves(spec, gpu, tp=plan.tp, pp=plan.pp,  # the table's links
                                 dp=max(plan.dp * plan.cp, 2))  # the table's dp·cp group
alone = [(k, panels) for k, v, panels in (("dp", plan.dp, "the DP and FSDP panels"),
                                          ("tp", plan.tp, "the TP panel")) if v == 1]
if alone:  # a group of one rank sends nothing: its panels draw the smallest group that talks
    print(f"The plan's {' and '.join(k for k, _ in alone)} degree{'s are' if len(alone) > 1 else ' is'}"
          f" 1: a group of one GPU sends nothing, so {' and '.join(s for _, s in alone)} start at a "
          "group of 2, what a second GPU in that group would meet (the other panels keep the "
          "plan's links).")
marks = {"DP": tok_mb, "FSDP": tok_mb, "TP": plan.tp,
         "PP": spec.n_layers / plan.pp, "CP": tok_mb, "EP": (2048, "DeepSeek-V3's F_e")}
plots.comm_rooflines(curves, marks, title=f"{spec.name} on {gpu.name}: when does each kind of "
                     "traffic hide? (above 1: it can)");

# %% [markdown]
# Reading the panels: DP hides once the step's last micro-batch holds a few thousand to tens of
# thousands of tokens per replica (gradient accumulation adds micro-batches, not cover); FSDP needs
# about as many tokens in *every* micro-batch, which is why ZeRO-3 at a fixed global batch runs out
# of cover as GPUs are added (section 5); TP's
# ratio falls as $1/(t-1)$ and is about ten times lower across the network than over NVLink; PP
# hides behind any whole layer; fine-grained experts (DeepSeek-V3's $F_e$ = 2,048) clear the ridge
# inside an H100 board (not on the H800's slower NVLink) but sit well below it across nodes,
# which is why DeepSeek routes each token to at most 4 nodes, dispatches in FP8 and overlaps the all-to-alls of one
# micro-batch with another's compute (DualPipe); ring attention hides once each rank holds a few
# hundred to a few thousand tokens. The rooflines say what overlap *can* do, not what it does: they
# assume the collective runs while independent compute runs, and they take datasheet rates; at
# the measured rates (`overlap.roofline_table(..., achieved=True)`: kernels below peak lengthen the
# window more than NCCL shortens the bandwidth) a ratio near 1 can flip either way. The DP and
# FSDP rows take the bandwidth of the plan's group, the NICs of its members in one domain pooled
# (`overlap.dp_bandwidth`), not one NIC. Whether the software lets it is the
# next question (notebook 04b, section 1): Megatron-LM's default leaves TP's forward collectives exposed
# whatever the ratio.
#
# > **Takeaway.** One division, $(F/V)/(C/W)$, says whether a kind of traffic can hide. DP, PP and
# > long-context CP usually can; TP only inside the board; FSDP only with enough tokens per
# > micro-batch; fine-grained MoE across nodes cannot without a schedule built around it.
#
# ## 4. What each parallel dimension sends
#
# Ranks are numbered with TP innermost, then CP, then DP, then PP (Megatron-LM's order), so a TP
# group of up to 8 sits on one NVLink board and the other groups stride across boards; the experts
# have their own order (expert TP, then EP; Megatron-Core since 0.10), so an EP group's ranks sit
# the experts' TP apart:

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
    "scenario plan": comm.comm_volume(spec, cluster, plan, p["seq_len"], recipe_name),
    "Llama 3 405B": comm.comm_volume(l3, l3_cluster, l3_plan, 8192),
    "Mixtral 8x7B": comm.comm_volume(mx, llmcost.Cluster(gpu, 256), mx_plan, 4096),
}
for label, pl in zip(volumes, (plan, l3_plan, mx_plan)):
    print(f"{label}: {pl.describe()}")
plots.comm_volume_bars(volumes);

# %%
vol = volumes["scenario plan"]
display(plots.table(vol.reset_index(), {"per_step": "{:,.0f}", "bytes_per_gpu": "{:.3g}",
                                        "time_s": "{:.3g}"}))
most, slowest = vol["bytes_per_gpu"].idxmax(), vol["time_s"].idxmax()   # this plan's
print(f"most bytes per GPU per step: {most} ({vol.loc[most, 'bytes_per_gpu']:.3g}); most time "
      f"before overlap: {slowest} ({llmcost.fmt_duration(vol.loc[slowest, 'time_s'])})")

# %% [markdown]
# The time column is the communication before any overlap. Whether it costs step time depends on
# what runs at the same time, which is what the step-time model decides.
#
# > **Takeaway.** DP's traffic has a whole backward pass to hide behind; TP's sits on every
# > layer's critical path. So the bytes that cannot hide set the step, not the largest (which
# > dimension moves the most here, and which takes the longest, is printed above).
#

# %% [markdown]
# ## 5. FSDP, scale and mixtures of experts: what adding ranks costs
#
# **ZeRO-3 / FSDP at a fixed batch.** Narayanan et al. 2021 (Table 2) trained GPT-3 175B with
# DeepSpeed ZeRO-3 and no model parallelism on 384, 768 and 1,536 A100s at a fixed batch of 1,536
# sequences of 2,048 tokens: 144, 88 and 44 TFLOP/s per GPU (hardware FLOPs, with full
# recomputation), and a 530B model from 640 to 2,240 GPUs fell the same way. Each doubling halves
# every GPU's micro-batch (4, 2, then 1 sequence), so each GPU has half the compute to hide the
# same per-layer weight gathers behind.
#
# The ideal roofline of section 3 is not enough to explain the fall; the model prices what it
# leaves out (`llmcost.comm`). Each layer's gather $G$ and gradient reduce-scatter $R$
# run as a two-stage pipeline against the layer's compute $F$ (forward) and $B$ (backward), $L$
# layers, the backward re-gathering $g$ times (2 when full recomputation re-gathers, as DeepSpeed
# did):
#
# $$T^\text{exposed}_\text{fwd} = G + (L-1)\,o(G, F),\qquad
# T^\text{exposed}_\text{bwd} = gG + R + (L-1)\,o(gG + R, B),$$
# $$o(c, w) = \max(c - w, 0) + \sigma\min(c, w),\qquad \sigma = 0.189,$$
#
# where $\sigma$ is the measured slowdown of compute that runs beside a collective (Sharma et al.
# 2025, arXiv:2507.03114; `comm.fsdp_exposure`, `comm.overlap_cost`), and $G$, $R$ come from NCCL's
# own cost model with latencies that grow with ranks and nodes (`comm.nccl_collective_time`, next
# paragraph). What decides the 175B case is the bandwidth of a gather of one layer's bf16 weights,
# with the eight NICs of a DGX pooled (NCCL's rings) or with one NIC per rank (the
# `deepspeed-zero3-2021` stack profile's `fsdp_nic_aggregation = False`), against one layer's
# forward at peak (the cell prints the layer's size and each time):

# %%
# NBVAL_CHECK_OUTPUT
a100 = llmcost.load_accelerator("A100-80GB")
pk, layer_bytes = a100.peak_flops_per_s(), 2 * overlap.model_dims("gpt-3-175b")["layer_params"]
c1536 = llmcost.Cluster(a100, 1536)
print(f"GPT-3 175B: one layer is {layer_bytes / 1e9:.1f} GB of bf16 weights")
for n in (384, 768, 1536):
    pooled = comm.nccl_collective_time("all_gather", layer_bytes, n, c1536)
    one_nic = comm.nccl_collective_time("all_gather", layer_bytes, n, c1536, stride=8)
    fwd = 2 * layer_bytes / 2 * (1536 // n) * 2048 / pk     # 2·P_l·tokens / C
    print(f"{n:>5,} GPUs, {1536 // n} sequence(s) each: one layer's gather {pooled * 1e3:5.1f} ms "
          f"(8 NICs pooled) or {one_nic * 1e3:5.1f} ms (one NIC per rank) vs its forward at "
          f"peak {fwd * 1e3:5.1f} ms")

# %% [markdown]
# The published points and the model's predictions (`step.mfu_validation`, the ZeRO-3 set of notebook 04b, section 3), with
# section 3's ideal FSDP roofline (compute ÷ communication at the full pooled bandwidth) beside
# them:

# %%
# NBVAL_CHECK_OUTPUT
validation = step.mfu_validation(sets=["megatron21-table2-zero3", "deepseek-v3-h800"])  # 04b §3's rows
z3v = validation[validation["set"] == "megatron21-table2-zero3"]
mbs = pd.read_csv(llmcost.catalog.DATA_DIR / "validation_mfu.csv").set_index("run_id")
w = min(a100.scaleup_bytes_per_s_per_dir, 8 * a100.scaleout_bytes_per_s_per_dir)  # 8 NICs
for r in z3v.itertuples():
    fs = overlap.fsdp_roofline(r.params, mbs.loc[r.run_id, "micro_batch_size"] * 2048, pk, w,
                               group_size=r.n_gpus, grad_bytes=2)
    print(f"GPT {r.params / 1e9:.0f}B on {r.n_gpus:>5,} GPUs ({r.split}): published "
          f"{r.reported * pk / 1e12:4.0f} TFLOP/s, model {r.predicted_hfu * pk / 1e12:4.0f} "
          f"({r.error:+.0%} on MFU); ideal roofline compute ÷ comm {float(fs.ratio):.2f}")

# %%
plots.zero3_scaling(z3v, pk);

# %% [markdown]
# The ideal roofline says the gathers could hide down to one 2,048-token sequence per GPU (ratio
# above 1 at every size); the 2021 runs fell 3.3× because their gathers ran at one NIC's speed and
# paid NCCL's latency at every layer. The stack profile's one-NIC setting was chosen against the
# 175B rows (their split reads calibration), so those three are no independent test; the 530B
# rows are held out.
# Current FSDP implementations pool the NICs
# (`pytorch-fsdp2-2024`); for them the ideal roofline is the better first guess.
#
# **Scale: collectives slow down as jobs grow.** A ring over $n$ ranks on $N$ nodes pays a start-up
# $\alpha_0$ and one latency per step, NVLink steps for the hops inside a node and network steps
# for the hops between nodes (NVIDIA/nccl `tuning.cc`), before the bytes:
#
# $$T = \alpha_0 + (s - s_\text{net})\,\alpha_\text{NVLink} + s_\text{net}\,\alpha_\text{net}
# + \frac{V_\text{moved}}{W_\text{bus}},\qquad s = n-1,\ s_\text{net} = N - 1\ \text{(all-gather)}.$$
#
# The latency term grows linearly with the ranks, so a message of fixed size reaches a smaller and
# smaller share of the bus bandwidth (`comm.scale_efficiency`); all-reduce switches to the double
# binary tree, whose latency grows as $\log_2 N$ but whose bandwidth NCCL caps beyond two nodes.
# For H100s:

# %%
# NBVAL_CHECK_OUTPUT
cl_big, ranks = llmcost.Cluster(llmcost.load_accelerator("H100-SXM"), 16384), 2 ** np.arange(3, 15)
eff_curves = {f"all-gather, {s / 1e6:,.0f} MB": comm.scale_efficiency("all_gather", s, ranks,
                                                                      cl_big)
              for s in (1e7, 1e8, 1e9, 1e10)}
eff_curves["all-reduce, 1,000 MB"] = comm.scale_efficiency("all_reduce", 1e9, ranks, cl_big)
for label, e in eff_curves.items():
    print(f"{label:>22}: {e[3]:.0%} of the bus bandwidth at 64 ranks, {e[7]:.0%} at 1,024, "
          f"{e[-1]:.0%} at 16,384")

# %%
plots.scale_efficiency_curves(ranks, eff_curves, title="H100: share of the bus bandwidth "
                              "reached as ranks are added");

# %% [markdown]
# This is why the data-parallel reduction of a large job is split into buckets of tens to
# hundreds of MB (each then runs at a fraction of the link), why hybrid sharding (HSDP: shard
# inside a group, replicate across groups) keeps FSDP's per-layer gathers inside a few nodes, and
# why the step-time model's MFU now falls with the GPU count at a fixed plan.
#
# **Hybrid sharding (HSDP): when does it pay?** The remedy for that latency (PyTorch FSDP's hybrid
# sharding, Zhao et al. 2023, arXiv:2304.11277; the same idea in DeepSpeed is MiCS, Zhang et al.
# 2022, arXiv:2205.00119) shards each replica of the model over a group of $f$ ranks instead of all
# $n$ data-parallel ranks, and replicates that group $r = n/f$ times. Each layer's gathers and
# reduce-scatters then run over $f$ ranks (inside one board when $f \le 8$ at TP1), and each GPU
# all-reduces its gradient shard of $\Psi/f$ elements with its $r$ replicas,
# $2(r-1)/r\cdot\Psi b_g/f$ bytes, behind a backward pass (`step.zero_exposure`): once per step
# with FSDP2's opt-in `set_requires_all_reduce` (MiCS does the same), after every micro-batch by
# FSDP2's default, which the `pytorch-fsdp2-2024` stack keeps, as TorchTitan did then
# (`stacks.Stack.hsdp_all_reduce`; on the networks below both hide). The price is memory: each GPU holds $(b_w + b_g + b_o)\,\Psi/f$ bytes of
# states instead of $(b_w + b_g + b_o)\,\Psi/n$, 18 bytes per parameter with bf16 weights and fp32
# gradients, so a 70B model needs $f \ge 32$ at TP1 on 80 GB GPUs (`ParallelPlan.fsdp_shard_size`,
# scenario key `fsdp_shard_size`; the `pytorch-fsdp2-2024` stack offers it, `deepspeed-zero3-2021`
# did not). The figure is Llama 3.1 70B at TP1, two 4,096-token sequences per GPU, full
# recomputation, as GPUs are added (`step.sharding_study`): the global batch grows with the GPU
# count (16,384 × 2 × 4,096 = 134M tokens at 16,384 GPUs), and the figure does not follow the
# scenario's model, GPUs or batch:

# %%
# NBVAL_CHECK_OUTPUT
hsdp_n = 2 ** np.arange(6, 15, 2)            # 64 … 16,384 GPUs
hsdp = {acc: step.sharding_study("llama-3.1-70b", acc, hsdp_n, (None, 32), seq_len=4096)
        for acc in ("A100-80GB", "H100-SXM")}
for acc, d in hsdp.items():
    z3, h32 = (d[d["label"] == k].set_index("n_gpus") for k in ("ZeRO-3", "HSDP-32"))
    pays = step.hsdp_pays_from(d, "HSDP-32", 1.05)      # first count with a 5% gain, or None
    print(f"{acc}: ZeRO-3 MFU {z3['mfu'].iloc[0]:.1%} at {hsdp_n[0]} GPUs, "
          f"{z3['mfu'].iloc[-1]:.1%} at {hsdp_n[-1]:,}; HSDP-32 {h32['mfu'].iloc[0]:.1%}, "
          f"{h32['mfu'].iloc[-1]:.1%} ({h32['memory_gb'].iloc[-1]:.0f} GB per GPU against "
          f"{z3['memory_gb'].min():.0f}–{z3['memory_gb'].max():.0f} under ZeRO-3); "
          + ("no GPU count gains 5%" if pays is None else f"HSDP gains 5% from {pays:,} GPUs"))

# %%
plots.hsdp_scaling(hsdp, title="When does hybrid sharding pay? Llama 3.1 70B at TP1, "
                   "ZeRO-3 against HSDP-32");

# %% [markdown]
# Below a thousand GPUs the two are within a few percent: the whole-group gathers still hide
# behind the compute, and HSDP only costs memory (the GB per GPU the cell printed). Past that, the
# whole-group ring's latency outgrows the compute it hides behind, sooner on H100s (faster compute,
# less cover), while the shard group's collectives stay the same size whatever the job, which is
# what MiCS reports as near-linear scaling. On a slower network the gap opens earlier
# (`tests/test_hsdp.py` checks that direction on a quarter of the A100's NIC bandwidth). When the
# shard group spans boards (32 ranks at TP1 are 4 of them), the replicas' all-reduce shares the
# NICs with the last backward pass's own gathers and reduce-scatters, so it hides only behind what
# is left of that pass (`step.zero_exposure`, a bandwidth-sharing estimate); on these networks it
# still hides. **Not validated:** no published HSDP throughput was reproduced (the FSDP paper's and
# MiCS's figures use models and clusters outside this catalogue), so this comparison is the
# model's.
#
# **Stragglers: a synchronous step waits for its slowest GPU.** GPUs of one model are not equally
# fast. Sinha et al. (SC22, arXiv:2208.11035) measured GPUs of one SKU on five supercomputers
# (V100s and MI60s) and found "8% (max 22%) average performance variation", from manufacturing
# variation and power management, with outliers up to 1.5× slower than the median. Their 8% is
# the span of the box plots' whiskers, $4\cdot\text{IQR}$ over the median; for a normal spread
# that is $8\,\Phi^{-1}(0.75)\,\sigma$, so the bulk of the GPUs differ by
# $\sigma$ = 8% ÷ $8\,\Phi^{-1}(0.75)$ (`straggler.GPU_SPEED_CV`, printed below). The outliers are left out: operators find and drain
# them (Llama 3 §3.3.4 built tools to find "still-functioning but slow stragglers"). Every TP, PP
# and DP collective makes the step wait for the slowest of its $N$ GPUs, on average
# $\sigma\,e(N)$ behind the typical one, $e(N)$ the expected maximum of $N$ standard normals. The
# kernel constant of notebook 04b (section 1) was fitted on 8 GPUs, so the slowest of 8 is already in it and the
# model adds
#
# $$T_\text{straggler} = (T_\text{matmul} + T_\text{attention} + T_\text{memory}
# + T_\text{recompute})\cdot\sigma\,\bigl(e(N) - e(8)\bigr)$$
#
# (`straggler.straggler_slowdown`, `step.add_straggler`). $e(N)$ grows only like
# $\sqrt{2\ln N}$ (the cell prints it from 8 to 100,000 GPUs). Reading the 8% instead as
# fastest-to-slowest over all of Summit's 27,648 GPUs gives a smaller $\sigma$, the worst cluster
# and application (22%) a larger one; the cell prints both, and the figure draws the three:

# %%
# NBVAL_CHECK_OUTPUT
from llmcost import straggler
cv_summit = 0.08 / (2 * straggler.expected_max_normal(27_648))   # 8% = max − min on Summit
cv_worst = 0.22 / straggler.FENCE_SPAN_SIGMAS                     # the worst cluster, 22%
print(f"σ = {straggler.SINHA_VARIATION:.0%} / (8·Φ⁻¹(0.75) = {straggler.FENCE_SPAN_SIGMAS:.2f}) "
      f"= {straggler.GPU_SPEED_CV:.2%}; read as Summit's fastest to slowest: σ = {cv_summit:.2%}; "
      f"the worst cluster (22%): σ = {cv_worst:.2%}")
for n in (8, 64, 1024, 16384, 100_000):
    print(f"{n:>7,} GPUs: e(N) = {straggler.expected_max_normal(n):.2f}, the step's compute "
          f"+{straggler.straggler_slowdown(n):.1%} "
          f"(σ {cv_summit:.1%}: +{straggler.straggler_slowdown(n, cv=cv_summit):.1%})")

# %%
# NBVAL_CHECK_OUTPUT
wait = b.straggler_s / b.step_time_s   # below the calibration's 8 GPUs: the wait removed
print(f"the scenario's step on {llmcost.fmt_gpus(b.n_gpus)}: waiting for the slowest GPU is "
      + (f"{wait:.1%} of the step" if wait >= 0 else f"{-wait:.1%} of the step less than in the "
         f"kernel constant's {straggler.N_CALIBRATION}-GPU fit, which waited for the slowest of "
         f"{straggler.N_CALIBRATION}"))

# %%
jobs = np.unique(np.round(np.logspace(np.log10(8), 5, 60)).astype(int))   # 8 … 100,000 GPUs
waits = {f"σ = {cv:.2%}: {why}": straggler.straggler_slowdown(jobs, cv=cv) for cv, why in (
    (straggler.GPU_SPEED_CV, "8% whisker span (Sinha et al.), the model's"),
    (cv_summit, "8% read as fastest to slowest of Summit"),
    (cv_worst, "the worst cluster and application (22%)"))}
plots.straggler_slowdown_curves(jobs, waits);

# %%
# NBVAL_CHECK_OUTPUT
from llmcost.training import accuracy, step_validation
st_sets, st_rows = accuracy.straggler_comparison()   # notebook 04b's runs, without -> with it
moved = st_rows[st_rows["n_gpus"] > straggler.N_CALIBRATION]["mfu_change"].abs()
print(f"predicted MFU of every run on more than {straggler.N_CALIBRATION} GPUs: "
      f"{moved.min():.1%}–{moved.max():.1%} lower with the wait")
for (name, split), r in st_sets.iterrows():
    runs = f"{r['n']:.0f} run" + ("s" if r["n"] > 1 else "")
    print(f"{step_validation.set_title(name)} ({split}, {runs}): mean |error| "
          f"{r['off_mean']:.1%} -> {r['on_mean']:.1%}, signed {r['off_signed']:+.1%} -> "
          f"{r['on_signed']:+.1%}")
behind = st_rows[(st_rows["error_off"] < 0) & (st_rows["error_on"] < st_rows["error_off"])]
print(f"{len(behind)} runs already predicted too slow fall further behind; the furthest:")
for run, r in behind.sort_values("error_on").head(5).iterrows():
    print(f"  {run} ({r['n_gpus']:,} GPUs): {r['error_off']:+.1%} -> {r['error_on']:+.1%}")

# %% [markdown]
# The cell above prices the published runs of notebook 04b (section 3) without and with the wait
# (`accuracy.straggler_comparison`; σ was taken from the paper, not tuned to them): how much it
# lowers the predicted MFU of the runs on more than 8 GPUs, each set's mean |error| and mean signed
# error before and after (signed errors on the TFLOP/s basis of notebook 04b's table), and the runs
# the model already predicted too slow, which the wait moves further behind. A run the
# model predicted too fast moves toward its published figure (and may pass it); a run predicted
# too slow can only move away. Where an H100 run is among
# those, its missing speed lies elsewhere (notebook 04b's kernel constant for H100); no H100
# measurement of the spread was found, so the V100/MI60 figure is applied to every generation. **Not modelled:** per-step jitter, slow links and hosts,
# data-loader and garbage-collection pauses, and the
# drained outliers themselves.

# %% [markdown]
# **Mixture-of-experts all-to-all.** An MoE layer sends the $k$ routed copies of every token to
# the ranks holding those experts and back (section 3's EP roofline), two all-to-alls forward and
# two backward. A token-dropping router pads every expert's buffer to the capacity factor $c$; a
# dropless one (DeepSeek-V3) sends every token and the busiest rank carries the routing
# imbalance (`comm.moe_routing_factor`). While the EP group stays inside a board the all-to-all
# rides NVLink; past 8 ranks, the share $(n-k)/n$ of every buffer that leaves the board goes
# through the rank's own NIC, which an all-to-all cannot pool (`comm.moe_all_to_all_time`).
# That is the dispatch of Megatron-Core's alltoall dispatcher: one row per (token, expert) pair.
# DeepEP and DeepSeek-V3's own kernels deduplicate (the stack's `moe_dispatch`): a token crosses the
# network once per destination *node* and is forwarded over NVLink to its experts' GPUs there
# (`comm.moe_dispatch_copies`). How many nodes that is depends on the routing
# (`comm.moe_destinations`): the cell below prints, for top-8 of 256 experts on 64 ranks over 8
# nodes, the nodes a token reaches and the copies the network carries under uniform routing, under
# DeepSeek-V3's limit of 4 nodes per token and under NeMo AutoModel's fake balanced gate (token $i$ goes to the 8
# consecutive experts from $8i$), against the per-expert dispatch's.
# DeepSeek-V3's layer on H800s (4,096 tokens per rank, top-8 of 256 experts, bf16):

# %%
import functools

ds, eps = overlap.model_dims("deepseek-v3"), 2 ** np.arange(1, 9)   # EP 2 … 256
h800 = llmcost.Cluster(llmcost.load_accelerator("H800"), 2048)
# one all-to-all of 4,096 tokens, top-8, at each EP degree; the argument is the EP stride
one = functools.partial(comm.moe_all_to_all_time, 4096, 8, ds["d_model"], eps, h800)
node4 = {"dispatch": "per_node", "n_experts": 256, "node_limit": 4}   # DeepSeek-V3, DeepEP
a2a = {"EP ranks consecutive (8 per board)": 2 * one(1),
       "one EP rank per board (TP or CP 8 inside)": 2 * one(8),
       "token-dropping, capacity 1.25": 2 * one(1, routing="capacity", capacity_factor=1.25),
       "per node, at most 4 nodes (DeepSeek-V3, DeepEP)": 2 * one(1, **node4),
       "per node, at most 4 nodes, FP8 dispatch + BF16 combine": sum(
           one(1, **node4, phase=ph, dispatch_dtype="fp8") for ph in ("dispatch", "combine"))}

# %%
# NBVAL_CHECK_OUTPUT
gemm = float(overlap.ep_roofline(ds["d_model"], ds["d_ff_expert"], 8, 64,
                                 h800.accelerator.peak_flops_per_s("fp8"), 50e9,
                                 tokens=4096).compute_s)
per_expert = float(comm.moe_dispatch_copies(256, 8, 64, 8)[0])
for label, kw in {"uniform top-8": {}, "at most 4 nodes": {"node_limit": 4},
                  "NeMo's fake balanced gate": {"gate": "fake_balanced"}}.items():
    nodes = float(comm.moe_destinations(256, 8, 64, 8, **kw)[1])
    net = float(comm.moe_dispatch_copies(256, 8, 64, 8, dispatch="per_node", **kw)[0])
    print(f"{label}: a token reaches {nodes:.2f} of 8 nodes; per-node dispatch sends {net:.2f} "
          f"copies over the network (per expert: {per_expert:.0f})")
for label, t in a2a.items():
    print(f"{label}: {t[2] * 1e3:.1f} ms at EP 8, {t[5] * 1e3:.1f} ms at EP 64 "
          f"(expert GEMMs at FP8 peak {gemm * 1e3:.2f} ms)")

# %%
plots.moe_all_to_all_vs_ep(eps, a2a, gemm);

# %% [markdown]
# Past one board the all-to-all costs an order of magnitude more than the experts' FP8 GEMMs it
# feeds. DeepSeek-V3 reports a computation-to-communication ratio of about 1:1 for its cross-node
# expert parallelism (§3.2.1), counting the whole layer's compute (attention and the shared expert
# too) and with two remedies: node-limited routing with per-node dispatch and FP8 dispatch (1 byte
# per element plus an FP32 scale per 128, §3.3.3; the combine stays BF16): the two lowest lines
# above, both modelled. Both agree that the all-to-all cannot be left exposed: hence DualPipe, which
# overlaps one micro-batch's all-to-alls with another's compute (the `ep_overlap` stack feature). DeepSeek-V3's own plan (its §3.2: 2,048 H800s, 16 pipeline stages, 64-way expert
# parallelism over 8 nodes, ZeRO-1; 61 layers split unevenly; one 4,096-token sequence per
# micro-batch and FP8 GEMMs assumed) in the step-time model, with the all-to-alls exposed and
# overlapped, against the MFU its reported throughput implies (180K H800 GPU-hours per trillion
# tokens; the validation table's row, on the BF16 dense peak as every row of the table, so twice the
# FP8-peak figure). One run:

# %%
# NBVAL_CHECK_OUTPUT
dsv3 = llmcost.load_model("deepseek-v3")
ds_row = validation.set_index("set").loc["deepseek-v3-h800"]   # the validation table's row
ds_plan = parallel.make_plan(dsv3, 2048, 15360, tp=1, pp=16, ep=64, zero_stage=1, seq_len=4096,
                             micro_batch_size=1, pp_split="uneven")
ds_steps = {ov: step.step_time(dsv3, llmcost.Cluster(llmcost.load_accelerator("H800"), 2048), ds_plan, 4096, dtype="fp8",
                               stack="deepseek-hai-llm-2024", ep_overlap=ov)
            for ov in ("none", "dualpipe")}
print(f"DeepSeek-V3, {ds_plan.describe()}; published {ds_row.reported_mfu:.1%} ({ds_row.split})")
for ov, sb in ds_steps.items():
    print(f"EP overlap {ov:>8}: MFU {overlap.mfu_arithmetic(sb, 'H800', 'bf16')['mfu']:.1%} on "
          f"the BF16 peak ({sb.mfu:.1%} on FP8's); all-to-all {sb.ep_comm_s / sb.step_time_s:.0%}"
          " of the step")
dual = overlap.mfu_arithmetic(ds_steps["dualpipe"], "H800", "bf16")["mfu"]
print(f"DualPipe's step against the published MFU: {dual / ds_row.reported_mfu - 1:+.1%}")

# %%
h100_256 = llmcost.Cluster(llmcost.load_accelerator("H100-SXM"), 256)
mx_plans = {f"Mixtral 8x7B, TP{t} EP8" + (" (EP across boards)" if t > 1 else ""):
            parallel.make_plan(mx, 256, 512, tp=t, pp=4, ep=8, zero_stage=1, seq_len=4096)
            for t in (1, 4)}
moe = {k: step.step_time(mx, h100_256, pl, 4096) for k, pl in mx_plans.items()}
moe |= {"DeepSeek-V3, all-to-all exposed": ds_steps["none"],
        "DeepSeek-V3, DualPipe": ds_steps["dualpipe"]}
plots.step_breakdown(moe);

# %% [markdown]
# The gap between the two DeepSeek-V3 lines is what overlapping the all-to-alls is worth in the
# model. With the per-node FP8 dispatch, the overlapped step's MFU against the published one is
# the last line the DeepSeek-V3 cell printed: the published figure is a whole run's GPU-hours
# (failures, restarts, evaluation, the multi-token-prediction module, all included), the model a
# steady state resting on the assumed micro-batch and FP8 share, so the gap bounds what those leave
# out rather than checking the EP physics alone. Priced as before, with all 8 copies of a token on
# the network in BF16, the same plan comes out lower (`benchmarks/validate_mfu.py` item 8 prints
# it).

# %% [markdown]
# **On a 72-GPU NVLink rack, what does an expert-parallel group send over the network?**
# A GB200 or GB300 NVL72 rack is one NVLink domain of 72 GPUs (the catalogue's
# `scaleup_domain_size`). An EP group of 32 at TP 1 sits inside one rack; at TP 4 its ranks are
# 4 apart and span two racks unevenly (18 GPUs in one, 14 in the other): the model prices it as
# the fewest domains that hold equal shares, two of 16 (`comm.even_domain_members`). NVIDIA's
# Megatron-Bridge MoE benchmarks route with random logits (`--moe-router-force-load-balancing`,
# a uniform random top-k: gate `"random"`) and hide each all-to-all behind another micro-batch's
# compute by pairing the forward of one with the backward of the previous (Megatron-Core's
# batch-level overlap, the stack's `ep_overlap` `"merged_1f1b"`); the passes left without a
# partner, the warm-up and cool-down of the schedule, stay exposed (`step.unpaired_share`).
# Qwen3-235B-A22B's layer (128 experts, top-8) and two of the 26.08 recipes:

# %%
# NBVAL_CHECK_OUTPUT
q235 = llmcost.load_model("qwen3-235b-a22b")
for tp in (1, 4):   # EP 32 on NVL72 racks: ranks per NVLink domain, then copies per token
    g = int(comm.even_domain_members(32, min(72 // tp, 32)))
    net, nvl = comm.moe_dispatch_copies(q235.n_experts, q235.n_experts_active, 32, g,
                                        dispatch="per_node", gate="random")
    print(f"EP 32 at TP {tp}: {g} ranks per NVLink domain; per token {net:.2f} copies over "
          f"the network, {nvl:.2f} over NVLink")
for run, (pp, m, v) in {"GPT-OSS 120B, PP 1, GA 5": (1, 5, 1),
                        "Qwen3-235B-A22B on GB300, PP 4 x V 12, GA 64": (4, 64, 12)}.items():
    u = float(step.unpaired_share("interleaved" if v > 1 else "1f1b", pp, m, v))
    print(f"{run}: {u:.1%} of the all-to-all passes have no partner (exposed)")

# %% [markdown]
# **Folding the experts: why can expert parallelism exceed data parallelism?** With the experts
# at the attention's TP (Megatron-Core's default: `expert_tensor_parallel_size` equals
# `tensor_model_parallel_size`), expert parallelism is carved out of the data-parallel ranks, so EP
# is at most DP·CP, and its ranks sit TP apart: at TP 4 an EP group of 8 spans four 8-GPU nodes and
# its all-to-all crosses the network; each rank then all-gathers, over its TP group, the routed
# tokens the others received (Megatron-Core's alltoall dispatcher). MoE parallel folding (Liu et
# al. 2025, arXiv:2504.14960; Megatron-Core's MoE README) lays the experts out on their own, ETP ×
# EP × EDP over the same ranks as the attention's TP × CP × DP: at ETP 1 each rank holds whole
# experts, its EP group is consecutive ranks, the routed tokens need no TP gather (shared experts
# keep theirs), and EP may reach TP·DP·CP (a plan's `etp=1`, a scenario's `etp: 1`).
# Qwen3-235B-A22B on 256 H100s at TP 4 · PP 8 (DP 8), 512 sequences of 4,096 tokens, full
# recomputation, 1F1B (an illustration, not the scenario), its experts laid out three ways
# (`comm.placement`, `step.step_time`, `llmcost.memory_per_gpu`):

# %%
# NBVAL_CHECK_OUTPUT
h100_fold = llmcost.Cluster(llmcost.load_accelerator("H100-SXM"), 256)
fold_plans = {f"EP{ep}" + (" ETP1" if etp else " ETP4 (Megatron-Core's default)"):
              parallel.make_plan(q235, 256, 512, tp=4, pp=8, ep=ep, etp=etp, zero_stage=1,
                                 seq_len=4096, pp_split="embedding_and_loss", recompute="full")
              for ep, etp in ((8, None), (8, 1), (32, 1))}
for k, pl in fold_plans.items():
    ep_row = comm.placement(pl, h100_fold).set_index("dimension").loc["EP"]
    sb = step.step_time(q235, h100_fold, pl, 4096)
    mem = llmcost.memory_per_gpu(q235, pl, 4096)
    print(f"{k}: EP group every {ep_row.stride} rank(s), {ep_row.domains} node(s); weights "
          f"{mem.weights / 1e9:.1f} GB, all-to-all {sb.ep_comm_s:.1f} s and TP "
          f"{sb.tp_comm_s:.1f} s of a {sb.step_time_s:.1f} s step, MFU {sb.mfu:.1%}")

# %% [markdown]
# Folded at EP 8, the group is eight consecutive ranks, one node, and its all-to-all rides
# NVLink, for more expert weights per GPU; folded at EP 32, the experts are spread as thin as in
# the default layout while the group spans nodes again. The lines above give each figure; notebook
# 04b breaks the steps down.

# %% [markdown]
# The MoE run the model misses most, Megatron-Bridge 25.11's Qwen3-30B-A3B on 16 H100 (FP8
# current scaling, dropless), is priced as its shipped recipe ran: one sequence per micro-batch,
# 12 model chunks per stage, and the batch-level EP overlap (`moe_a2a_overlap`), where
# its table repeats the plan of the earlier token-dropping run (two sequences per micro-batch, no
# overlap). Both readings, and each difference alone (`step_validation.row_readings`; the sources
# are in the row's notes and `benchmarks/validate_mfu.py` item 12): whichever ran, the model stays
# optimistic on it. What remains is the published dropless run's extra cost per MoE layer
# and micro-batch over the token-dropping one, which the host-cost constants (fitted on
# Blackwell runs) price at a fraction of it (`benchmarks/validate_mfu.py` item 12).

# %%
# NBVAL_CHECK_OUTPUT
from llmcost.training import step_validation
worst = step_validation.row_readings("mb2511-h100-qwen3-30b-a3b-fp8cs",
                                     step_validation.MB2511_H100_TABLE_READINGS)
for label, r in worst.iterrows():
    print(f"{label}: {r['plan']}; error {r['error']:+.0%} (all-to-all {r['ep_comm_s']:.1f} s, "
          f"MoE host {r['moe_host_s']:.1f} s of a {r['step_time_s']:.1f} s step)")

# %% [markdown]
# **Do the plans these runs published fit in memory, as their stacks store activations?**
# Every plan above ran, so each fits its GPU. Counted as Korthikanti et al. 2022 (§4, Table 2) and
# ZeRO write the bytes (notebook 03's count for a BF16 run on Megatron-Core), several do not: the count
# misses what the stacks and the runs' configs do (`llmcost.memory.MemoryPractice`, set per row by
# `step_validation.row_practice` from the stack's profile and the run's configs): Megatron-Core's
# `recompute_modules` (DeepSeek-V3's `mla_up_proj`, the norms, the experts' activation), the FP8
# casts Transformer Engine keeps of the linear layers' inputs instead of 16-bit tensors, CPU
# activation offload (`cpu_offloading_num_layers`), torchtitan's op-level selective checkpointing
# (every other matrix multiply's output kept) and DeepSpeed's per-module ZeRO-3 gathers. The table
# lists the plans the textbook count turns away, their share of HBM before and after. A
# scenario's plan search counts memory as its stack stores it (`step_scenario.scenario_memory`:
# the stack's profile, e.g. the modules DeepSeek's framework recomputes), so DeepSeek-V3's plan
# is within its reach; a run's own recomputed modules and offloaded layers (the Megatron-Bridge
# recipes') are no scenario keys, and the search does not count them.

# %%
# NBVAL_CHECK_OUTPUT
from llmcost.training import step_validation

pm = step_validation.published_plan_memory()   # every plan of notebook 04b's table
moved = pm[pm["share_as_written"] > 1]
display(Markdown(
    f"Of {len(pm)} published plans, {len(moved)} exceed their HBM under the textbook count "
    f"({moved['share_as_written'].min():.0%}–{moved['share_as_written'].max():.0%} of it); "
    f"counted as practised, {int(pm['fits'].sum())} of {len(pm)} fit (the most loaded: "
    f"{pm['share'].max():.0%}, {pm['share'].idxmax()})."))
plots.table(moved[["accelerator", "share_as_written", "share", "practice"]].rename(columns={
    "share_as_written": "share of HBM, textbook", "share": "share of HBM, as practised"}),
    formats={"share of HBM, textbook": "{:.0%}", "share of HBM, as practised": "{:.0%}"},
    index=True)

# %% [markdown]
# > **Takeaway.** Adding ranks at a fixed batch shrinks the compute that hides each kind of
# > traffic and lengthens every collective's latency: FSDP's per-layer gathers run out of cover
# > first, fixed-size messages reach a falling share of the links, and an expert-parallel group
# > that leaves the board pays for every all-to-all at NIC speed.

# %% [markdown]
# The headline figures of this page (the scenario's step, from notebook 04b's model):

# %%
# NBVAL_CHECK_OUTPUT
publish_summary("04_communication", [summary_row(*r) for r in [
    ("exposed_comm_share", "exposed communication", b.exposed_comm_s / b.step_time_s, "",
     "share of the step"),
    ("straggler_share", "waiting for the slowest GPU", b.straggler_s / b.step_time_s, "",
     f"share of the step, {llmcost.fmt_gpus(b.n_gpus)}" + (
         "" if b.straggler_s >= 0 else f": below the {straggler.N_CALIBRATION}-GPU fit's wait"))]])

# %% [markdown]
# ## Exercises
#
# Worked by hand with the teaching accelerator (`Teaching-1PF`: $C$ = 1 PFLOP/s dense, 450 GB/s
# NVLink per direction, 8 GPUs per board, one 50 GB/s NIC per GPU). Answers below each (click to
# open); `tests/test_overlap.py` checks them against `llmcost.overlap`.
#
# **1. Does the gradient all-reduce hide?** A 10B-parameter model trains with pure data
# parallelism on 64 teaching GPUs (8 boards). Each GPU processes one 4,096-token sequence per step.
# (a) What per-GPU bandwidth does the ring get? (b) How many tokens per GPU does the all-reduce need
# to hide behind the backward pass with bf16 gradients, and with fp32 gradients? (c) With fp32
# gradients, how long is the exposed wait, and how much does it add to the step's compute?
#
# <details><summary>Answer</summary>
#
# (a) Eight members per board, so the eight NICs work in parallel: $W = \min(450, 8\times 50)$ =
# 400 GB/s. (b) $B^* = \frac{f\beta_g}{4}\frac{C}{W}$ with $f = 2\cdot 63/64$ = 1.969 and
# $C/W$ = 2,500: bf16 ($\beta_g$ = 2) 2,461 tokens, so 4,096 hide (ratio 1.66); fp32 4,922 tokens,
# so they do not (ratio 0.83). (c) Backward $4PB/C = 4\times10^{10}\times 4096/10^{15}$ = 0.164 s;
# all-reduce $fP\beta_g/W = 1.969\times 4\times10^{10}/(4\times10^{11})$ = 0.197 s: 0.033 s exposed,
# 13% on top of the step's 0.246 s of compute ($6PB/C$). Two sequences per GPU would hide it.
# </details>
#
# **2. How much TP can NVLink carry?** A dense layer with $h$ = 8,192 and $P_\ell = 12h^2$
# parameters, bf16 activations, ring all-reduces. (a) The compute ÷ communication ratio at TP 8
# over NVLink, and over one NIC? (b) The largest TP degree that still hides? (c) The ratio at TP 8
# with NVLink SHARP?
#
# <details><summary>Answer</summary>
#
# (a) $\frac{P_\ell W}{2(t-1)h\beta C} = \frac{6hW}{(t-1)\beta C} = \frac{6\cdot 8192\cdot 4.5\times10^{11}}{7\cdot 2\cdot 10^{15}}$
# = 1.58 over NVLink: it can hide, if the software overlaps it. Over one NIC $W$ is 9× smaller:
# 0.176, the collectives take 5.7× the layer's compute. (b) $t - 1 \le 6hW/(\beta C)$ = 11.1, so
# $t \le 12$: TP 8 hides, TP 16 would not. (c) With in-switch reduction $f = 1$ instead of
# $2(t-1)/t$: $\frac{12hW}{t\beta C}$ = 2.76.
# </details>
#
# **3. How wide must an expert be?** An MoE layer routes each token to experts of $m$ = 3 matrices
# (SwiGLU) with capacity factor $c$ = 1.25; dispatch and combine in bf16; many EP ranks. (a) The
# expert width $F_e^*$ at which the all-to-alls hide over one NIC, and over NVLink? (b) With
# DeepSeek-V3's $F_e$ = 2,048 across nodes, how long do the all-to-alls take against the experts'
# compute? (c) What does FP8 dispatch change?
#
# <details><summary>Answer</summary>
#
# (a) $F_e^* = \frac{c(\beta_d+\beta_c)}{2m}\frac{C}{W} = \frac{1.25\cdot 4}{6}\cdot\frac{C}{W}$:
# over one NIC ($C/W$ = 20,000) 16,667; over NVLink ($C/W$ = 2,222) 1,852. (b) Ratio
# 2,048/16,667 = 0.12: the all-to-alls take about 8× the experts' compute, so they must overlap
# with other work or stay inside the board. (c) $\beta_d$ = 1: $F_e^*$ falls by a quarter to
# 12,500 over the NIC; still far above 2,048 (DeepSeek-V3 adds node-limited routing and DualPipe).
# </details>
#
# **4. How long does the slowest GPU keep everyone waiting?** Identical GPUs whose sustained
# speed differs by $\sigma$ = 1.5% (normal), a synchronous step on 16,384 of them. (a) By Blom's
# approximation $e(N) \approx \Phi^{-1}\bigl(\frac{N - 0.375}{N + 0.25}\bigr)$, how far behind the
# typical GPU is the slowest, on average? (b) How much of that is already inside a kernel constant
# fitted on 8 GPUs? (c) One GPU of the job runs 1.5× slow (an outlier Sinha et al. found, not
# drained). What does it cost?
#
# <details><summary>Answer</summary>
#
# (a) $\frac{16384 - 0.375}{16384.25}$ = 0.999962, $\Phi^{-1}$ of it 3.96: the slowest GPU is
# $3.96 \times 1.5\%$ = 5.9% slower than the typical one. (b) For $N$ = 8, $\Phi^{-1}(7.625/8.25)$
# = 1.43, so 2.2% is in the constant and the model adds $1.5\% \times (3.96 - 1.43)$ = 3.8% to the
# compute (`straggler.straggler_slowdown(16384, cv=0.015)`: 3.8%). (c) Every collective waits for
# it: the whole job's compute runs 50% slower, 13 times the bulk spread's cost, which is why
# operators hunt such GPUs down and drain them.
# </details>
#
# > **Takeaway.** Exercises 1–3 are the same division, $(F/V)/(C/W)$: count the FLOPs that can run
# > while the bytes move, count the bytes, and compare with the hardware's ridge. Exercise 4 is a
# > maximum: a synchronous job pays for its slowest GPU, and the expected slowest of $N$ grows like
# > $\sqrt{2\ln N}$.
#

# %% [markdown]
# ## Explore
#
# How long does one collective take on this cluster? Pick the collective, the message size, the group size and where its ranks sit (consecutive ranks use NVLink first; one rank per scale-up domain sends every hop over the network); the time, the algorithm and bus bandwidth and the share of the time that is latency follow (`comm.cluster_collective_time`, section 2's model). (In a report these widgets are switched off; run the notebook in Jupyter to use them.)

# %%
if interactive:
    from llmcost.present.widgets import collective_explorer

    display(collective_explorer(gpu, p["n_gpus"]))

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
# sources: `llmcost.catalog.list_efficiency()`. Communication rooflines and topologies (`llmcost.overlap`): Williams,
# Waterman, Patterson 2009 (ridge point); Austin et al., *How To Scale Your Model* (JAX scaling
# book, chapters "Sharded matrices" and "Training"); Liu, Zaharia, Abbeel 2023, *Ring Attention
# with Blockwise Transformers*, arXiv:2310.01889; Lepikhin et al. 2020, *GShard*,
# arXiv:2006.16668; Fedus et al. 2021, *Switch Transformers*, arXiv:2101.03961; Zhao et al. 2023,
# *PyTorch FSDP*, arXiv:2304.11277; Graham et al. 2016, *Scalable Hierarchical Aggregation
# Protocol (SHArP)*, COMHPC; NVIDIA Hopper architecture whitepaper (NVLink SHARP) and nccl-tests
# issue #212 (NVLS bus bandwidth); AMD Instinct MI300X data sheet; Jouppi et al. 2023, *TPU v4*,
# arXiv:2304.01433; Intel Gaudi network configuration docs (`data/scaleup_topology.csv`).
#
# [← 00 · Index](00_index.ipynb) · previous: [03 · Why can't we just add GPUs?](03_parallelism.ipynb) · next: [04b · How long does a training step take, and which plan is fastest?](04b_step_time.ipynb)
