# Text twin of notebooks/01_flops.ipynb, written by `llmcost twins` (jupytext percent format).
# Edit the notebook, not this file; the twin exists so that a change reads as a diff.

# %% [markdown]
# # 01 · How many FLOPs does a training run take, and what do they cost?
#
# [← 00 · Index](00_index.ipynb) · previous: [00 · What does it cost to train this model?](00_index.ipynb) · next: [02 · How big should the batch be?](02_batch_size.ipynb)

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
interactive: bool = True  # widgets on (reading) or off (report runs)

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import llmcost
from llmcost import plots
from llmcost.core.units import fmt_quantity
from llmcost.present.report import publish_summary, summary_row

p = llmcost.notebook_parameters(globals())  # every name of the parameters cell, validated
spec = llmcost.load_model(p["model"])
gpu = llmcost.load_accelerator(p["accelerator"])
peak = gpu.peak_flops_per_s(p["dtype"])
price, price_source = llmcost.scenario_price(p)  # given, or the catalogue's for `pricing`

# %%
from IPython.display import Markdown

from llmcost.present import answers

run = llmcost.training_run(spec, gpu, p["train_tokens"], p["mfu"], p["n_gpus"], price,
                           seq_len=p["seq_len"], dtype=p["dtype"])   # derived in sections 1-4
display(Markdown(answers.flops(spec.name, gpu.name, p["n_gpus"], p["train_tokens"], p["mfu"],
                               price, run)))

# %% [markdown]
# Every training bill starts with one number: the floating-point operations the run must execute.
# This notebook counts them two ways (the 6·N·D rule and an exact count), turns them into
# GPU-hours through MFU and into dollars through a price, and checks the arithmetic against runs
# whose authors published their figures.
#
# **After this notebook you can**
# 1. derive the 6·N·D rule from the FLOPs of one matrix multiply, and say what it leaves out;
# 2. say which FLOP count (6ND, causal or full-mask detailed) feeds which number, and why;
# 3. turn FLOPs into GPU-hours, days and dollars by hand, given a peak, an MFU and a price;
# 4. read a published run's GPU-hours backwards into an MFU, and tell steady-state MFU from
#    whole-run utilisation (DeepSeek-V3 in FP8, Llama 2, PaLM).

# %% [markdown]
# Terms are defined in [10 · Glossary](10_glossary.ipynb) (with the Chinese terms of the source
# material, e.g. 总计算量 total FLOPs, 模型算力利用率 MFU).
#
# **Conventions in this notebook.** A multiply-accumulate is 2 FLOP. "6ND" uses N = the *active*
# parameters, embeddings included (as Chinchilla counts N). The *detailed* count adds the
# attention core; it is stated each time whether its mask is causal or full. **MFU** is a fraction
# of the accelerator's **dense** peak for the training dtype (never the 2:4-sparse figure),
# measured in *model FLOPs*: the detailed count with the full attention matrix and no
# recomputation, the convention of PaLM (App. B), Megatron's MFU (Korthikanti et al. 2022, App. A,
# Eq. 7) and torchtitan under which most published MFUs are stated (the Megatron-LM paper,
# Narayanan et al. 2021, counts the same full matrix but adds the recomputed forward: hardware
# FLOPs); GPU-hours are computed from that count, not from 6ND. GPU-hours
# here are ideal: no failures, restarts or evaluation (notebook 07 adds those).

# %%
print(f"{spec.name}: {llmcost.fmt_count(spec.n_params)} parameters, "
      f"{llmcost.fmt_count(spec.n_active_params)} active per token")
print(f"{gpu.name}: dense {p['dtype']} peak {llmcost.fmt_flops_rate(peak)}")
print(f"price: ${price:.2f} per GPU-hour ({price_source})")
if p["dtype"] == "fp8":
    ratio = gpu.peak_flops_per_s("fp8") / gpu.peak_flops_per_s("bf16")
    print(f"note: with dtype fp8 the MFU is a fraction of the FP8 peak, {ratio:g}× the BF16 one "
          f"on the {gpu.name}; the published MFUs quoted below are fractions of BF16 peaks, and "
          "FP8 runs reach a lower fraction of their faster peak (attention, norms and "
          "communication do not get faster)")

# %% [markdown]
# ## 1. FLOP, FLOPs and FLOP/s
#
# A **FLOP** is one floating-point operation; papers write "FLOPs" for a *count* (Llama 3 405B:
# 3.8 × 10²⁵ FLOPs) and "FLOP/s" (sometimes "FLOPS") for a *rate* (an H100 SXM peaks at 989
# TFLOP/s in dense BF16). This workbook writes FLOP for counts and FLOP/s for rates, so that a
# count divided by a rate is visibly a time.
#
# Peak rates depend on the number format: FP8 doubles BF16 on Hopper and Blackwell; TF32 halves
# it. NVIDIA datasheets print, next to each figure, a "with sparsity" number twice as large that
# only 2:4 structured-sparse matrices reach; training uses dense matrices, so the catalogue holds
# dense peaks only (its `notes` column says where a sparse figure was halved).
#
# > **Takeaway.** A count (FLOP) divided by a rate (FLOP/s) is a time; use the *dense* peak of the
# > format the matmuls actually run in.

# %%
acc = llmcost.list_accelerators()
table = acc[["name", "vendor", "year"]].assign(**{
    "BF16 dense (TFLOP/s)": acc["peak_bf16_flops_per_s"] / 1e12,
    "FP8 dense (TFLOP/s)": acc["peak_fp8_flops_per_s"] / 1e12,
    "HBM (GiB)": acc["hbm_bytes"] / 2**30,
    "HBM (TB/s)": acc["hbm_bytes_per_s"] / 1e12,
})
plots.table(table, precision=1)

# %% [markdown]
# ## 2. Why six?
#
# Take one weight matrix W of shape d_in × d_out (N_W = d_in·d_out parameters) and one token x.
# A multiply-accumulate is 2 FLOP, so
#
# $$\text{forward: } y = xW \;\Rightarrow\; 2\,N_W \text{ FLOP},$$
#
# $$\text{backward: } \frac{\partial L}{\partial x} = \frac{\partial L}{\partial y}W^\top
# \;(2N_W) \quad\text{and}\quad \frac{\partial L}{\partial W} = x^\top\frac{\partial L}
# {\partial y} \;(2N_W) \;\Rightarrow\; 4\,N_W \text{ FLOP}.$$
#
# Summing over every matrix a token passes through (N of them in total) and over D tokens:
#
# $$C \;\approx\; (2 + 4)\,N\,D \;=\; 6\,N\,D \qquad\text{(Kaplan et al. 2020, §2.1).}$$

# %% [markdown]
# The exact count adds what the rule leaves out: the
# attention *core* (scores QKᵀ and the weighted sum AV), whose cost grows with the context
# length, not with parameters; and it counts only weights a token really passes through (the
# output layer, but not the input embedding lookup, and in a mixture-of-experts only the activated
# experts). For the scenario's model, per token, with a causal mask (the work a causal run
# does; the bill's MFU basis counts the full mask, as published MFUs do: section 3):

# %%
fwd = spec.flops_per_token_breakdown(p["seq_len"], training=False)   # causal mask
trn = spec.flops_per_token_breakdown(p["seq_len"], training=True)
parts = pd.DataFrame({"forward, causal (GFLOP/token)": fwd,
                      "training = 3 × forward, causal (GFLOP/token)": trn})
parts = parts.drop(index="recompute") / 1e9
parts.loc["rule of thumb: 2·N_active forward, 6·N_active training"] = [
    2 * spec.n_active_params / 1e9, 6 * spec.n_active_params / 1e9]
plots.table(parts, lambda v: fmt_quantity(v, 4), index=True)  # 4 significant figures

# %% [markdown]
# The matmul rows are 2 (forward) or 6 (training) FLOP per active weight; the LM head counts
# whether or not its matrix is tied to the input embedding (a tied table is one *parameter* set
# but still one matmul per token). The attention core is counted per **query** head, so grouped-
# query attention (GQA) shrinks the K/V projections but not the core.
#
# > **Takeaway.** 6·N·D is the matmuls of every weight, forward and backward; the exact count
# > differs by the embedding lookup (not a matmul) and the attention core.

# %% [markdown]
# ## 3. The exact count against 6·N·D as context grows
#
# Per layer and token, the scores QKᵀ and the sum AV each cost 2·h·s FLOP forward over a full s×s
# matrix (h = heads × head dimension), so 4·h·s forward and 12·h·s for training (×3). A causal
# mask needs only the lower triangle, about half:
#
# $$F_\text{attn}^\text{full} = 12\,L\,h\,s, \qquad F_\text{attn}^\text{causal} \approx 6\,L\,h\,s
# \qquad\text{against}\qquad 6N \approx 72\,L\,h^2$$
#
# (Kaplan et al. 2020, Table 1: 2·n_layer·n_ctx·d_attn per forward pass, equal to the causal
# count of QKᵀ and AV; Kaplan does not say which mask it assumes. Megatron-LM and PaLM count the
# full matrix.) The attention share is therefore about
# s / (12·h) (causal): small for big models at 2K–8K context, large for small models at long
# context. Mistral 7B's sliding window of 4,096 tokens caps the keys each query attends to, so its
# line flattens. The curves use the causal count, the work a causal kernel really needs:

# %%
names = ["llama-3.1-8b", "mistral-7b", "llama-3.1-70b", "gpt-3-175b", "llama-3.1-405b"]
models = [llmcost.load_model(n) for n in names if n != spec.name] + [spec]
ax = plots.flops_ratio_vs_seq_len(models, 2 ** np.arange(9, 18))
# named in the legend: a label at the line's top sat on the curves when seq_len is the longest
ax.axvline(p["seq_len"], color="0.6", lw=0.8, label=f"scenario seq_len ({p['seq_len']:,})")
ax.legend(fontsize=plots.SMALL_PT)
plots.readable(ax);

# %% [markdown]
# Papers disagree on conventions, which changes a quoted MFU by several percent. The same model
# and context under each convention found in the literature:

# %%
conv = llmcost.flops_per_token_conventions(spec, p["seq_len"])
plots.table(conv, {"flops_per_token": "{:.4g}", "ratio_to_6nd": "{:.3f}"})

# %%
ratio = llmcost.model_flops_per_token(spec, p["seq_len"]) / (6 * spec.n_active_params)
print(f"MFU basis ÷ 6ND = {ratio:.3f} at {p['seq_len']:,} tokens of context: GPU-hours taken "
      f"from 6ND would be {1 - 1 / ratio:.1%} too low at the same MFU")

# %% [markdown]
# **Which count feeds which number, and why.**
#
# | count | formula per token | feeds | why |
# |---|---|---|---|
# | 6·N·D | 6·N_active | the headline "training FLOPs", notebook 06's compute-optimal fits | papers and scaling laws quote it |
# | detailed, causal mask | matmuls + 6·L·h·s | the per-token table and the curves above | the work a causal (FlashAttention) kernel executes |
# | detailed, full mask (the **MFU basis**) | matmuls + 12·L·h·s | GPU-hours, wall-clock, cost, every MFU | published MFUs (PaLM, Megatron's MFU in Korthikanti et al. 2022, torchtitan) are fractions of peak in this count; Llama 3 does not state its count |
#
# GPU-hours = C / (peak · MFU) is only right when C and MFU are measured in the same count. A causal
# kernel executes about half the attention core; measured in the causal count its utilisation is
# lower by the same ratio, and the hours come out the same. Mixing bases (6ND FLOPs with an MFU
# quoted on the full-mask basis) is the error: it underestimates the hours by the ratio printed
# above.
#
# > **Takeaway.** Report 6ND, compute hours on the basis the MFU was measured in: here the
# > full-mask count.

# %% [markdown]
# ## 4. From FLOPs to GPU-hours, days and dollars
#
# A GPU executing model FLOPs at a fraction **MFU** of its dense peak P needs
#
# $$\text{GPU-hours} = \frac{C_\text{model}}{P \cdot \text{MFU} \cdot 3600}, \qquad
# \text{wall-clock} = \frac{\text{GPU-hours}}{n_\text{GPUs}}, \qquad
# \text{cost} = \text{GPU-hours} \times \text{price}$$
#
# (Narayanan et al. 2021's end-to-end estimate t ≈ 8·T·P/(n·X), §5.1 Eq. 4: T tokens, P parameters, n GPUs,
# X the achieved hardware FLOP/s under full recomputation; without recomputation, in model FLOPs
# and MFU, it reads 6·T·P/(n·peak·MFU)). C_model = D · F_model(s) is the full-mask count the MFU is measured in; the familiar 6ND
# figure is shown next to it. `llmcost.training_run` computes the cell below, and its docstring
# writes these formulas. This is the first line of the scenario's bill ([00 · the whole
# bill](00_index.ipynb)), computed there by `llmcost.ledger` with the same MFU and price; the bill
# divides these ideal GPU-hours by goodput ([07](07_checkpoints.ipynb)) and adds the other lines.
# For the scenario:

# %%
run = llmcost.training_run(spec, gpu, p["train_tokens"], p["mfu"], p["n_gpus"], price,
                           seq_len=p["seq_len"], dtype=p["dtype"])

# %%
# NBVAL_CHECK_OUTPUT
publish_summary("01_flops", [
    summary_row("training_flops_6nd", "main run: training FLOPs (6ND)",
                run["training_flops_6nd"], "FLOP", "6·N_active·D"),
    summary_row("model_flops", "main run: model FLOPs (MFU basis)", run["model_flops"], "FLOP",
                "matmuls + full-matrix attention"),
    summary_row("gpu_hours", "main run: GPU-hours", run["gpu_hours"], "GPU-h",
                f"MFU {p['mfu']:.1%} of dense {p['dtype']} peak, no failures"),
    summary_row("wall_clock_days", "main run: wall clock, no failures",
                run["wall_clock_days"], "days", f"on {p['n_gpus']:,} × {gpu.name}; the paid "
                "run, failures and restarts included: notebook 00"),
    summary_row("price_usd_per_gpu_hour", "price", price, "USD/GPU-h", price_source),
    summary_row("compute_cost_usd", "main run: compute cost", run["compute_cost_usd"], "USD",
                f"{p['pricing']} pricing"),
])

# %% [markdown]
# > **Takeaway.** Hours are FLOPs over (peak × MFU); days are hours over GPUs; dollars are hours
# > times price. Every other line of the bill scales from this one.

# %% [markdown]
# ## 5. MFU: the fraction of the peak you actually buy
#
# **Model FLOPs utilisation** is the model FLOPs a run executes per second divided by the
# hardware's peak (Chowdhery et al. 2022, §4.1 and App. B). Large dense pre-training runs have
# reported roughly 20–50%: GPT-3 21.3%, MT-NLG 530B 30.2% and PaLM 540B 46.2% (PaLM Table 3),
# Llama 3 405B 38–43% (Llama Team 2024, Table 4); short benchmarks reach more (Korthikanti et
# al. 2022 measured 56% for a 530B model on 280 A100s, Table 5). The rest of
# the peak goes to memory-bound operations (norms, softmax, element-wise work), communication that
# is not hidden behind compute, pipeline bubbles, recomputed activations, small or badly shaped
# matmuls, stragglers and data loading; notebooks 03 and 04 take these apart.
#
# Even the matmuls alone do not reach the datasheet peak: the best large BF16 GEMMs measure about
# **80%** of it on an H100 and 86% on an A100 (stas00/ml-engineering's "maximum achievable matmul
# FLOPS" table; the workbook's `data/efficiency.csv`, used by the step-time model of notebook 04b).
# That is the ceiling an MFU approaches from below; a claimed MFU near or above it deserves a
# look at the FLOP count behind it:

# %%
eff = llmcost.load_efficiency(gpu)  # data/efficiency.csv, with its source
ceiling = eff.matmul_fraction
measured = ("" if eff.accelerator != "default" else
            " (no measurement for this accelerator: data/efficiency.csv's generic row)")
print(f"{gpu.name}: the largest matmuls reach about {ceiling:.0%} of the dense peak{measured}; "
      f"the scenario's MFU {p['mfu']:.1%} is {p['mfu'] / ceiling:.0%} of that ceiling")

# %% [markdown]
# **Hardware FLOPs utilisation (HFU)** also counts the FLOPs of recomputed activations, so it is
# higher than MFU for the same run and says less about cost: recomputation is work you pay for
# but do not need. For the scenario's MFU:

# %%
for mode in ("selective", "full"):
    try:
        hfu = llmcost.hfu_from_mfu(p["mfu"], spec, p["seq_len"], recompute=mode)
        print(f"MFU {p['mfu']:.1%} with {mode} recomputation is HFU {hfu:.1%}")
    except ValueError as e:  # an HFU above 1: the package says this MFU cannot be reached
        print(f"{mode} recomputation: {e}")

# %% [markdown]
# Cost is proportional to 1/MFU, not to MFU. It is tempting to read a rise from 30% to 50% as
# "a third cheaper"; it is **40%** cheaper, because the hours fall to 0.3/0.5 = 60% (and going the
# other way, from 50% down to 30%, costs 67% more):

# %%
# NBVAL_CHECK_OUTPUT
h30, h50 = llmcost.gpu_hours(run["model_flops"], gpu, np.array([0.3, 0.5]), p["dtype"])
print(f"MFU 0.30: {h30:,.0f} GPU-hours; MFU 0.50: {h50:,.0f} GPU-hours")
print(f"raising MFU from 0.30 to 0.50 cuts GPU-hours by {1 - h50 / h30:.0%}")

# %%
ax = plots.gpu_hours_vs_mfu(run["model_flops"], peak, np.linspace(0.1, 0.8, 71),
                            marks=(0.3, p["mfu"], 0.5), label=f"{spec.name}, {gpu.name}")
ax.set_title(f"GPU-hours to train {spec.name} on {llmcost.fmt_count(p['train_tokens'])} tokens")
ax.axvline(ceiling, color="0.5", ls="--", lw=1)
ax.annotate("achievable matmul ceiling ", (ceiling, ax.get_ylim()[1]), va="top", ha="right")
plots.readable(ax);

# %% [markdown]
# > **Takeaway.** Cost goes as 1/MFU; the matmul ceiling (about 80% of peak on Hopper) bounds MFU
# > from above, and large published runs sit at 20–50% (those since 2022, 30–50%).

# %% [markdown]
# ## 6. What the catalogue models cost, like for like
#
# Every catalogue model with a published token count, trained on the scenario's accelerator at the
# scenario's MFU and price (FLOPs by 6ND; GPU-hours on the MFU basis at each model's pre-training
# context). This is a like-for-like comparison of training *compute*, not a
# reconstruction of what each run paid: the real runs used other hardware, and the total bill
# has many more lines.

# %%
costs = llmcost.catalogue_training_costs(gpu, p["mfu"], price, p["dtype"])
plots.table(costs, {"n_active_params": "{:.3g}", "train_tokens": "{:.3g}",
                    "tokens_per_param": "{:,.0f}", "training_flops": "{:.3g}",
                    "gpu_hours": "{:,.0f}", "compute_cost_usd": "${:,.0f}"})

# %%
ax = plots.bar_h(costs["model"], costs["compute_cost_usd"] / 1e6, log=True,
                 xlabel=f"compute cost (million USD) at ${price:.2f}/GPU-h, MFU {p['mfu']:.1%}",
                 title=f"What would training each catalogue model cost on {gpu.name}?",
                 fmt=lambda v: llmcost.fmt_usd(v * 1e6))  # bars in millions, labels in USD
plots.readable(ax);

# %% [markdown]
# > **Takeaway.** At one price and one MFU, training compute scales with 6·N·D: a model with ten
# > times the parameters and tokens costs a hundred times more. Roughly: the table's
# > `training_flops` is 6ND, but its GPU-hours count the MFU basis, attention at each model's own
# > pre-training context included, so a model trained at long context (or a MoE, whose attention
# > is large beside its few active parameters) needs more GPU-hours than its 6ND alone says.

# %% [markdown]
# ## 7. The MFU of published runs
#
# Runs that report GPU-hours or throughput let us solve the same equation backwards for MFU.
# Two different quantities come out, and they should not be confused:
#
# * **steady-state MFU**, from a reported throughput (tokens/s per GPU) while training runs;
# * **whole-run utilisation**, from the reported GPU-hours of the whole run: failures, restarts,
#   evaluation, long-context stages and idle time all pull it below the steady state.
#
# Every utilisation in the table is a fraction of the accelerator's dense **BF16** peak, the basis
# published MFUs are stated on, FP8 runs included: an FP8 run's matmuls run at twice that peak, so
# its figure can pass 1.0 (the notebook's own MFU is on the training dtype's peak).

# %%
runs = llmcost.published_run_mfu()
plots.table(runs.drop(columns=["model", "accelerator", "seq_len"]),
            {"train_tokens": "{:.3g}", "reported_gpu_hours": "{:,.0f}"})

# %%
ax = plots.implied_mfu(runs)
plots.readable(ax);

# %% [markdown]
# Three checks against published figures:
#
# * **PaLM 540B** (Chowdhery et al. 2022, §4.1 and App. B): 238.3K tokens/s on 6,144 TPU v4
#   chips, with PaLM's own FLOP definition 6N + 12·L·H·Q·T (attention over the full s×s matrix,
#   `causal=False` here). The paper reports 46.2% MFU (Table 3).
# * **Llama 2 70B** (Touvron et al. 2023, model card): 1,720,320 A100-80GB GPU-hours for 2T tokens.
# * **LLaMA 65B** (Touvron et al. 2023, §2.4): "around 380 tokens/sec/GPU on 2048 A100 GPU with
#   80GB of RAM".

# %%
# NBVAL_CHECK_OUTPUT
palm, l270, l65 = (llmcost.load_model(n) for n in ("palm-540b", "llama-2-70b", "llama-1-65b"))
tpu, a100 = llmcost.load_accelerator("TPU v4"), llmcost.load_accelerator("A100-80GB")
palm_mfu = llmcost.mfu_from_throughput(238.3e3 / 6144, palm, tpu, seq_len=2048, causal=False)
l270_6nd = llmcost.mfu_from_gpu_hours(2e12, 1_720_320, l270, a100, method="6ND")
l270_mfu = llmcost.mfu_from_gpu_hours(2e12, 1_720_320, l270, a100)
l65_mfu = llmcost.mfu_from_throughput(380, l65, a100, method="6ND")
print(f"PaLM 540B MFU (PaLM's definition = MFU basis): {palm_mfu:.3f}   (paper: 0.462)")
print(f"Llama 2 70B whole-run MFU: {l270_6nd:.3f} by 6ND, {l270_mfu:.3f} on the MFU basis")
print(f"LLaMA 65B steady-state MFU (6ND):             {l65_mfu:.3f}")

# %% [markdown]
# The gap between the two kinds of number is itself a cost line. Llama 3 405B reports a
# steady-state MFU of 38–43% (41% at 16,384 GPUs and 8K context, Llama Team 2024, Table 4), while
# the 30.84M GPU-hours of its model card imply less over the whole run (computed below). The difference
# includes interruptions and restarts (Meta reports more than 90% effective training time,
# §3.3.4, so these explain only part of it), the long-context and annealing stages, and
# everything else that is not steady-state training; notebook 07 models the part that failures
# explain.

# %%
# NBVAL_CHECK_OUTPUT
# Llama 3 405B's model card: 30.84M H100 GPU-hours; the paper: 15.6T pre-training tokens
l405, h100 = llmcost.load_model("llama-3.1-405b"), llmcost.load_accelerator("H100-SXM")
l405_6nd = llmcost.mfu_from_gpu_hours(15.6e12, 30.84e6, l405, h100, method="6ND")
l405_mfu = llmcost.mfu_from_gpu_hours(15.6e12, 30.84e6, l405, h100)
print(f"Llama 3 405B whole-run MFU: {l405_6nd:.1%} by 6ND, {l405_mfu:.1%} on the MFU basis, "
      "against 38-43% steady-state (Table 4)")

# %% [markdown]
# **DeepSeek-V3 in FP8.** DeepSeek-V3 (671B parameters, 37B active) reports 2,664K H800
# GPU-hours for pre-training on 14.8T tokens, 2,788K with context extension and post-training
# (DeepSeek-AI 2024, arXiv:2412.19437, Table 1; "180K H800 GPU hours per trillion tokens" on 2,048
# GPUs). It trained its matmuls in **FP8** (§3.3), whose dense peak on an H800 is twice the BF16
# one, so the same hours are two different MFUs:

# %%
# NBVAL_CHECK_OUTPUT
v3, h800 = llmcost.load_model("deepseek-v3"), llmcost.load_accelerator("H800")
v3_range = {}
for dt in ("bf16", "fp8"):
    by_6nd = llmcost.mfu_from_gpu_hours(14.8e12, 2_664_000, v3, h800, dtype=dt, method="6ND")
    basis = llmcost.mfu_from_gpu_hours(14.8e12, 2_664_000, v3, h800, dtype=dt)
    v3_range[dt] = f"{by_6nd:.0%}–{basis:.0%}"
    print(f"DeepSeek-V3 whole-run MFU of the dense {dt} peak: {by_6nd:.3f} by 6ND, "
          f"{basis:.3f} on the MFU basis (4K context)")
print(f"against the FP8 peak it used: {v3_range['fp8']} over the whole run (6ND to MFU basis); "
      f"against the BF16 peak: {v3_range['bf16']}")

# %% [markdown]
# Against the FP8 peak it used, DeepSeek-V3's whole-run utilisation is the FP8 range printed
# above; against the BF16 peak (the basis of Llama 3's 38–43%) the same hours are twice that.
# Both are honest numbers with different denominators: FP8 doubles only the matmul peak,
# while attention, normalisation, the MoE all-to-all and the pipeline (DualPipe) do not get
# faster, so an FP8 run reaches a lower fraction of its doubled peak. Quote the dtype with
# every MFU.
#
# > **Takeaway.** A published GPU-hour figure read backwards gives a *whole-run* utilisation, below
# > the steady-state MFU; and an MFU means nothing without its dtype's peak.
#
# ## 8. Calibrating MFU from a pilot run
#
# The honest way to choose an MFU is to measure it: run the real model and parallel layout for a
# few hundred steps on a slice of the cluster, read tokens/s per GPU, and convert with
# `llmcost.mfu_from_throughput`. Read the other way, the scenario's MFU is a throughput target the
# pilot has to reach:

# %%
target = llmcost.tokens_per_s_per_gpu_at_mfu(p["mfu"], spec, gpu, p["seq_len"], p["dtype"])
print(f"MFU {p['mfu']:.1%} on {gpu.name} means {target:,.0f} tokens/s per GPU for {spec.name} "
      f"at {p['seq_len']:,} tokens of context, {llmcost.fmt_count(target * p['n_gpus'], 3)} tokens/s on "
      f"{llmcost.fmt_gpus(p['n_gpus'])}")

# %% [markdown]
# > **Takeaway.** An MFU is a throughput target: measure tokens/s per GPU on a pilot and convert,
# > rather than assuming one.

# %% [markdown]
# ## Exercises
#
# Use the teaching accelerator `Teaching-1PF` (1 PFLOP/s = 10¹⁵ FLOP/s dense BF16, a catalogue
# entry of round numbers) and a price of \$2 per GPU-hour.
#
# 1. A dense model of 10B parameters trains on 200B tokens (20 tokens per parameter). How many
#    training FLOPs by 6ND? How many GPU-hours at MFU 40%, and how many days on 1,000 GPUs?
#    What does it cost?
# 2. The same run reaches MFU 50% instead of 40%. By what fraction do the GPU-hours fall?
# 3. A model with L = 32 layers, h = 4,096, N ≈ 12·L·h² trains at s = 8,192 tokens of context.
#    What fraction does the attention core add to 6N per token, with a causal and with a full mask?

# %% [markdown]
# <details><summary><b>Answers</b> (click)</summary>
#
# 1. C = 6 · 10¹⁰ · 2·10¹¹ = **1.2·10²² FLOP**. GPU-seconds = 1.2·10²² / (10¹⁵ · 0.4) = 3·10⁷ s,
#    so **8,333 GPU-hours**; on 1,000 GPUs 8.3 hours = **0.35 days**; cost 8,333 × \$2 =
#    **\$16,667**. (6ND ignores attention here; exercise 3 says by how much.)
# 2. Hours go as 1/MFU: 0.4/0.5 = 0.8, so they fall by **20%** (and 40% → 30% would cost 33% more).
# 3. 6N = 72·L·h². Causal: 6·L·h·s / (72·L·h²) = s / (12·h) = 8,192 / 49,152 = **16.7%**; full
#    mask: 12·L·h·s / (72·L·h²) = s / (6·h) = **33.3%**.
# </details>
#
# The package checks answers 1 and 2 (`llmcost.training_flops`, `gpu_hours`, `compute_cost_usd`):

# %%
# NBVAL_CHECK_OUTPUT
teach = llmcost.load_accelerator("Teaching-1PF")
c1 = llmcost.training_flops(10e9, 200e9)
h1 = llmcost.gpu_hours(c1, teach, 0.4)
print(f"1. {c1:.2g} FLOP, {h1:,.0f} GPU-hours, {h1 / 1000 / 24:.2f} days on 1,000 GPUs, "
      f"${llmcost.compute_cost_usd(h1, 2.0):,.0f}")
print(f"2. GPU-hours fall by {1 - llmcost.gpu_hours(c1, teach, 0.5) / h1:.0%}")

# %% [markdown]
# ## Explore
#
# Change the model, accelerator, tokens, MFU, GPU count or price; the table and the curve
# follow. (In a report these widgets are switched off; run the notebook in Jupyter to use them.)

# %%
if interactive:
    from llmcost.present.widgets import flops_explorer

    display(flops_explorer(spec.name, gpu.name, p["train_tokens"], p["mfu"], p["n_gpus"], price,
                           p["dtype"], seq_len=p["seq_len"]))

# %% [markdown]
# ---
# **Sources.** Kaplan et al. 2020, *Scaling Laws for Neural Language Models*, arXiv:2001.08361
# (§2.1, Table 1). Narayanan et al. 2021, *Efficient Large-Scale Language Model Training on GPU
# Clusters Using Megatron-LM*, arXiv:2104.04473 (§5.1, App.). Chowdhery et al. 2022, *PaLM*,
# arXiv:2204.02311 (§4.1, Table 3, App. B). Korthikanti et al. 2022, *Reducing Activation Recomputation
# in Large Transformer Models*, arXiv:2205.05198 (MFU vs HFU). Touvron et al. 2023, *LLaMA*
# (§2.4, Table 15) and *Llama 2* (model card). Llama Team 2024, *The Llama 3 Herd of Models*,
# arXiv:2407.21783 (Table 4, §3.3.4); Llama 3.1 model card (GPU-hours). DeepSeek-AI 2024, *DeepSeek-V3 Technical Report*, arXiv:2412.19437 (Table 1, §3.3 FP8).
# stas00/ml-engineering, *compute/accelerator* README (maximum achievable matmul FLOPS). Model architectures, accelerator figures and published runs: the
# `source` column of each catalogue in `data/`.
#
# [← 00 · Index](00_index.ipynb) · previous: [00 · What does it cost to train this model?](00_index.ipynb) · next: [02 · How big should the batch be?](02_batch_size.ipynb)
