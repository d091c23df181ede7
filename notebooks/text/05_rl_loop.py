# Text twin of notebooks/05_rl_loop.ipynb, written by `llmcost twins` (jupytext percent format).
# Edit the notebook, not this file; the twin exists so that a change reads as a diff.

# %% [markdown]
# # 05 · What does a generated token cost, and why is RL post-training hard to budget?
#
# [← 00 · Index](00_index.ipynb) · previous: [04b · How long does a training step take, and which plan is fastest?](04b_step_time.ipynb) · next: [06 · Train bigger or train longer?](06_chinchilla.ipynb)

# %% tags=["parameters"]
model: str = "llama-2-70b"  # catalogue model name (llmcost.list_models()): the policy and the served model
accelerator: str = "H100-SXM"  # catalogue accelerator name (llmcost.list_accelerators())
n_gpus: int = 2048  # accelerators of the pre-training job (for the comparison in section 12)
train_tokens: float = 2.0e12  # pre-training tokens
seq_len: int = 4096  # pre-training sequence length in tokens
mfu: float = 0.4  # pre-training MFU in (0, 1]
mfu_band: str = None  # what a range on mfu is, set by a report: None, the scenario's own; 'predicted', the step-time model's band; 'pilot', the pilots' band
dtype: str = "bf16"  # pre-training compute precision
price_usd_per_gpu_hour: float = 3.99  # USD per GPU-hour; None: the catalogue median for `pricing`
pricing: str = "on_demand"  # on_demand, reserved, spot or owned
ledger_owned_usd_per_gpu: float = None  # purchase price of one accelerator (pricing: owned)
ledger_pue: float = None  # data-centre PUE
ledger_electricity_usd_per_kwh: float = None  # electricity price (owned hardware)
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
ledger_rl: bool = None  # bill this campaign; None: when the scenario gives rl_iterations or rl_runs
comm_scaleout_bytes_per_s: float = None  # scale-out bytes/s per GPU per direction; None: the catalogue's
phases: list = []  # extra training phases after the main run (context extension, annealing): a list of {name, tokens, seq_len, n_gpus?, mfu?}
interactive: bool = True  # widgets on (reading) or off (report runs)

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import llmcost
from llmcost import inference as inf
from llmcost import plots, rl
from llmcost.bill.checks import rl_context_warning
from llmcost.bill.scenario import rl_campaign_given
from llmcost.present import answers
from IPython.display import Markdown

p = llmcost.notebook_parameters(globals())  # every name of the parameters cell, validated
spec, gpu = llmcost.load_model(p["model"]), llmcost.catalog.scenario_accelerator(p)
price, price_source = llmcost.scenario_price(p)  # given, or the catalogue's for `pricing`
P, R = p["inference_prompt_tokens"], p["inference_output_tokens"]

# %%
sv = dict(weight_dtype=p["serve_weight_dtype"], kv_dtype=p["serve_kv_dtype"])
serve_kw = dict(prompt_tokens=P, output_tokens=R, batch=p["serve_batch"] or None,
                occupancy=p["serve_occupancy"], max_tpot_s=p["serve_max_tpot_s"], **sv)
c = (inf.serving_cost(spec, gpu, price, tp=p["serve_tp"], **serve_kw) if p["serve_tp"] else
     inf.choose_serving_tp(spec, gpu, price, **serve_kw))  # one replica, at most one node
it, camp = rl.scenario_iteration(p), rl.scenario_campaign(p, price)   # Part II
decode_note = rl.decode_factor_words(gpu.name, algorithm=p["rl_algorithm"])  # "" but on GB200
billed_s, billed_note = rl.billed_iteration_s(it.wall_s, p)  # as the bill prices it
display(Markdown(answers.rl_loop(spec.name, gpu.name, c.expected_usd_per_m_output, it.wall_s,
                                 it.generation_time_share, float(camp.loc["total", "usd"]),
                                 billed=rl_campaign_given(p), decode_note=decode_note,
                                 floor_usd_per_m_output=c.usd_per_m_output,
                                 billed_s=billed_s, billed_note=billed_note)))

# %% [markdown]
# Half of the cost questions people bring are about inference, and RL post-training (PPO, GRPO,
# verifier-based RL) is where the inference and training ledgers cross: every iteration the model
# *generates* many candidate answers, a reward model or a verifier *scores* them, and the policy
# is *updated*, thousands of times. This notebook first answers **what a generated token costs**
# (prefill and decode on a roofline, the KV cache, batching, quantisation, USD per million
# tokens), then uses that to answer **why the RL loop is hard to budget**: generation is a small
# share of its FLOPs but most of its time.
#
# **Learning objectives.** After this notebook you can
#
# 1. derive why decode is HBM-bandwidth-bound and prefill compute-bound, and find the batch at
#    which decode would turn compute-bound;
# 2. size the KV cache of MHA, GQA, MLA and sliding-window models and the largest batch that fits;
# 3. price input and output tokens on any catalogue accelerator, and say when and why output costs
#    more;
# 4. build the GPU-hour ledger of a GRPO or PPO iteration and explain why generation's share of
#    time is several times its share of FLOPs (decode is memory-bound, the tail is long);
# 5. put a post-training campaign beside the pre-training bill of the same model.
#
# **Conventions.** FLOPs: 2 per active parameter per token forward, 6 forward + backward
# (attention counted in the step times, left out of the FLOP *shares*, as the sources do).
# Peaks are dense; bandwidths decimal. Achievable fractions of peak FLOP/s and HBM bandwidth come
# from `data/efficiency.csv` (measured GEMM throughput and copy bandwidth, the step model's
# constants), so every time here is a **roofline**: a lower bound on time, an upper bound on
# throughput. Section 6 measures how far real engines sit from it.

# %%
print(f"{spec.name} on {gpu.name} at ${price:.2f}/GPU-h ({price_source}); serving "
      f"{p['serve_weight_dtype']} weights, {p['serve_kv_dtype']} KV; requests {P} in / {R} out")

# %% [markdown]
# # Part I · What does a generated token cost?
#
# ## 1. Prefill and decode: one roofline, two regimes
#
# A request is served in two phases. **Prefill** runs the whole prompt through the model at once:
# every weight matrix multiplies a block of P tokens, so each weight (β bytes) read from HBM feeds
# P multiply-adds. **Decode** then produces one token per step per sequence: every weight is read
# again for every step, but feeds only one multiply-add per sequence in the batch B.
# With β bytes per weight, the arithmetic intensity of a weight matmul over T tokens is
#
# $$ I(T) = \frac{2\,T\,d_\text{in} d_\text{out}}{\beta\,(T d_\text{in} + d_\text{in} d_\text{out} + T d_\text{out})} \approx \frac{2T}{\beta} \quad (T \ll d), $$
#
# and it runs at the HBM bound while $I$ is below the ridge point $\text{peak}/\text{HBM bandwidth}$
# (Williams et al. 2009; Pope et al. 2022 §2). So one step of a replica of `tp` GPUs takes
#
# $$ t_\text{step} = \max\!\Big(\underbrace{\frac{\text{FLOPs}}{tp \cdot \text{peak}\cdot f_\text{mm}}}_{\text{compute}},\ \underbrace{\frac{W + B\cdot \text{KV}(\text{ctx})}{tp\cdot \text{BW}_\text{HBM}\cdot f_\text{HBM}}}_{\text{HBM}}\Big) + t_\text{TP all-reduces}, $$
#
# with W the weight bytes read (for MoE, the experts the batch's tokens touch), KV(ctx) one
# sequence's cache and $f$ the achievable fractions. Prefill has T = B·P tokens and is
# compute-bound once $I(T)$ passes the ridge point: at the modelled fractions from a few hundred
# prompt tokens on an H100 or an A100 (`inference.prefill` reports the `bound` of any prompt),
# a shorter prompt staying HBM-bound like a decode step; decode has T = B. A prefill runs the LM
# head only on each prompt's last token, whose logits the next token is sampled from
# (`inference.logit_tokens`).

# %%
# NBVAL_CHECK_OUTPUT
pre = inf.prefill(spec, gpu, P, 1, tp=c.tp, **sv)
dec = inf.decode_step(spec, gpu, 1, P, tp=c.tp, **sv)
print(f"replica: {c.tp} × {gpu.name}; prefill of {P} tokens {pre.time_s * 1e3:.1f} ms "
      f"({pre.bound}-bound); one decode step at batch 1 {dec.time_s * 1e3:.2f} ms "
      f"({dec.bound}-bound)")
print(f"prefill processes {P / pre.time_s:,.0f} tokens/s, batch-1 decode "
      f"{1 / dec.time_s:,.0f} tokens/s: {P / pre.time_s * dec.time_s:,.0f}x apart")

# %% [markdown]
# A hand count makes the same point with round numbers: Llama-3-8B in
# BF16 is 16.06 GB, and reading it once at 3.35 TB/s takes 4.79 ms, so one H100 decodes at most
# **209 tokens/s** for one user, whatever its 989 TFLOP/s. The workbook reads all but the input
# embedding table (a gather of one row per token) at 90% of the datasheet bandwidth:

# %%
# NBVAL_CHECK_OUTPUT
t8 = inf.decode_step("llama-3.1-8b", "H100-SXM", 1, 0)
print(f"Llama-3.1-8B, batch 1, H100: {t8.time_s * 1e3:.2f} ms per token -> "
      f"{1 / t8.time_s:.0f} tokens/s (bound: {t8.bound}; by hand: <= 209)")
print(f"the FLOPs of that step would take {t8.compute_s * 1e6:.0f} µs of the "
      f"{t8.time_s * 1e6:,.0f} µs: {t8.compute_s / t8.time_s:.1%} of the time")

# %% [markdown]
# **Takeaway.** A prompt token and a generated token cost the same FLOPs, but not the same time:
# prefill streams the weights once for thousands of tokens, decode once per token per batch.
#
# ## 2. The roofline of decode against batch
#
# Batching is how decode gets cheaper: the weight read W is shared by the whole batch, so the step
# time barely grows with B while the tokens per step grow linearly. Ignoring the KV cache, the
# compute term catches up with the HBM term at
#
# $$ B^* = \frac{\text{peak}/\text{BW}_\text{HBM}}{2/\beta} \;=\; \frac{989.4/3.35}{2/2} \approx 295 \ \text{on H100 in BF16}, $$
#
# but each sequence also reads its own KV cache every step, which FLOPs do not share: with the
# cache, $B^* = W m/(F c - K m)$ per GPU (W weight bytes, F FLOPs and K KV bytes per sequence,
# c and m the seconds per FLOP and per byte), larger, and infinite once a sequence's KV read
# outlasts its FLOPs ($K m \ge F c$): then no batch makes decode compute-bound. (MLA's decode
# FLOPs are counted in the weight-absorbed form, attending over the cached latent:
# $2 n_h (2 d_c + d_R)$ per key per layer, DeepSeek-V2 §2.1.2.)

# %%
batches = np.unique(np.geomspace(1, 4096, 40).round())
ctx = P + R // 2
st = inf.decode_step(spec, gpu, batches, ctx, tp=c.tp, **sv)
steps = pd.DataFrame({"batch": batches, "compute_s": st.compute_s, "memory_s": st.memory_s,
                      "comm_s": st.comm_s, "time_s": st.time_s})
ax = plots.decode_roofline_vs_batch(steps, title=f"{spec.name} on {c.tp} × {gpu.name}: decode "
                                    f"at {ctx:,}-token context")
ax.axvline(c.max_batch, color="C3", ls="--", lw=1)
ax.text(c.max_batch, 0.04, f"HBM full: {c.max_batch} sequences of {P + R:,} tokens ", rotation=90,
        fontsize=plots.SMALL_PT, color="C3", ha="right", va="bottom", transform=ax.get_xaxis_transform());

# %%
# NBVAL_CHECK_OUTPUT
ideal = llmcost.Efficiency("ideal", 1, 1, 1, 1, 1)
for ctx_k in (0, 128, 4096):
    b = inf.decode_crossover_batch("llama-3.1-8b", "H100-SXM", ctx_k, efficiency=ideal)
    print(f"Llama-3.1-8B on H100, ideal roofline, context {ctx_k:>5}: decode turns "
          f"compute-bound at batch {b:,.0f}" if np.isfinite(b) else
          f"Llama-3.1-8B on H100, ideal roofline, context {ctx_k:>5}: never (KV reads dominate)")
cap8 = inf.max_batch("llama-3.1-8b", "H100-SXM", 4096)
print(f"at 4,096 tokens HBM holds {cap8} sequences beside the weights: HBM fills first")
cross = (f"{c.crossover_batch:,.0f}" if np.isfinite(c.crossover_batch) else
         "never (KV reads outrun the FLOPs: memory-bound at every batch)")
print(f"this scenario at {ctx:,} tokens (mean context): crossover {cross}; HBM holds "
      f"{c.max_batch} at {P + R:,} tokens (the longest context); its "
      f"batch {c.batch:,} is {answers.BATCH_LIMIT_WORDS.get(c.limit, 'set by ' + c.limit)}")

# %% [markdown]
# **Takeaway.** Without a KV cache decode would turn compute-bound near B ≈ 295 on H100; with it,
# for most models at contexts of a few thousand tokens, the KV reads grow nearly as fast as the
# FLOPs and HBM fills before compute is the limit (FP8 weights and KV on a large GQA model can
# reverse that: the last line says which holds for this scenario). Serving is mostly a memory
# business: capacity sets the batch, bandwidth sets the step.
#
# ## 3. The KV cache at long context
#
# Each token keeps a key and a value vector per KV head per layer:
# $\text{KV/token} = 2\,L\,n_\text{kv}\,d_\text{head}\,\beta_\text{KV}$. Grouped-query attention
# (Ainslie et al. 2023) shares K/V among query heads; MQA keeps one KV head; DeepSeek's MLA caches
# a compressed latent of $d_c + d_h^R$ numbers per layer (DeepSeek-V2 §2.1.2); a sliding window of
# w tokens caps the tokens kept on the layers that use it (every layer of Mistral 7B; half of
# Gemma 2's, which alternates local and global layers: pass `window_layers=0.5`). The largest
# batch is
#
# $$ B_\text{max} = \Big\lfloor \frac{\text{HBM}\,(1-r) - W/tp}{\text{KV}(\text{ctx})\cdot s_\text{kv}(tp)} \Big\rfloor, $$
#
# with r = 10% of HBM holding neither weights nor cache (the 10% outside vLLM's default
# `gpu_memory_utilization` 0.9 budget, standing in also for the activations and CUDA graphs vLLM
# keeps inside it, which are not modelled separately) and $s_\text{kv}$ the share of the KV heads
# one TP rank holds.

# %%
rows = []
for name in ("llama-2-7b", "llama-3.1-8b", "llama-3.1-70b", "mistral-7b", "deepseek-v3"):
    m = llmcost.load_model(name)
    kind = "MLA" if m.attention == "mla" else \
        ("MHA" if m.n_kv_heads == m.n_heads else f"GQA ({m.n_kv_heads} KV heads)")
    rows.append({"model": name, "attention": kind + (f", window {m.sliding_window}"
                                                      if m.sliding_window else ""),
                 "KV per token (BF16)": inf.kv_cache_bytes_per_token(m),
                 "one 32K sequence": inf.kv_cache_bytes(m, 32768),
                 "one 128K sequence": inf.kv_cache_bytes(m, 131072)})
kv = pd.DataFrame(rows)
plots.table(kv, {"KV per token (BF16)": "{:,.0f} B", "one 32K sequence": lambda x:
                 llmcost.fmt_bytes(x), "one 128K sequence": lambda x: llmcost.fmt_bytes(x)})

# %%
# NBVAL_CHECK_OUTPUT
print(f"Llama-3-70B: {inf.kv_cache_bytes_per_token('llama-3.1-70b'):,.0f} B/token "
      "(by hand, 2·80·8·128·2: 327,680); DeepSeek-V3 MLA: "
      f"{inf.kv_cache_bytes_per_token('deepseek-v3'):,.0f} B/token (70,272)")
held = max(inf.model_context(spec)[0], p["seq_len"])  # declared (or pre-trained), or trained
for k in (4096, 32768, 131072):
    if k > held:
        print(f"{spec.name}: a {k:,}-token context is beyond the {held:,} tokens it holds")
        continue
    try:
        b = inf.max_batch(spec, gpu, k, tp=c.tp, **sv)
        print(f"{spec.name}, {c.tp} × {gpu.name}, {k:>7,}-token context: at most {b:,} sequences")
    except ValueError as e:
        print(f"{spec.name}, {c.tp} × {gpu.name}, {k:>7,}-token context: {e}")

# %% [markdown]
# **Takeaway.** At long context the cache, not the weights, fills HBM: a 128K-token sequence of a
# GQA-70B model needs about 43 GB, half an H100. MLA and FP8 KV are capacity multipliers, which
# is why they matter more for serving than for training.
#
# ## 4. Batching and quantisation
#
# Quantising the weights shrinks W (and so the batch-1 step), quantising the KV cache shrinks the
# per-sequence term and lets more sequences fit; FP8 weights also double the compute peak on
# Hopper (W8A8). INT8/INT4 here are weight-only (dequantised to BF16 for the matmul); INT4 carries
# one FP16 scale per 128 weights, 0.5 + 2/128 = 0.516 bytes per weight.
# Speculative decoding trades FLOPs for steps: a small draft model proposes γ tokens and the target
# verifies them in one pass; with acceptance rate α the expected tokens per pass are
# $E = (1-\alpha^{\gamma+1})/(1-\alpha)$ (Leviathan et al. 2023, Eq. 1).
# The example draft below is the smallest catalogue model smaller than the target with its
# tokenizer (`inference.example_draft`: the same vocabulary and family), or none, said so.

# %%
rows = []
for w, k in (("bf16", "bf16"), ("bf16", "fp8"), ("fp8", "fp8"), ("int4", "fp8")):
    try:
        q = inf.choose_serving_tp(spec, gpu, price, prompt_tokens=P, output_tokens=R,
                                  weight_dtype=w, kv_dtype=k, occupancy=p["serve_occupancy"])
    except ValueError as e:
        rows.append({"weights / KV": f"{w} / {k}", "note": str(e)[:80]})
        continue
    rows.append({"weights / KV": f"{w} / {k}", "tp": q.tp, "batch": q.batch,
                 "TPOT (ms)": q.tpot_s * 1e3, "$/M output": q.usd_per_m_output,
                 "$/M input": q.usd_per_m_input, "limit": q.limit})
plots.table(pd.DataFrame(rows), {"tp": "{:.0f}", "batch": "{:.0f}", "TPOT (ms)": "{:.1f}",
                                 "$/M output": "${:.3f}", "$/M input": "${:.3f}"})

# %%
# NBVAL_CHECK_OUTPUT
kw = dict(prompt_tokens=P, output_tokens=R, batch=1, tp=c.tp, **sv)
plain = inf.serving_cost(spec, gpu, price, **kw)
e_tok = inf.speculative_tokens_per_pass(0.8, 4)
print(f"Leviathan Eq. 1, α = 0.8, γ = 4: {e_tok:.2f} tokens per target pass")

# %%
# NBVAL_CHECK_OUTPUT
draft, why = inf.example_draft(spec)  # smaller, same tokenizer (the docstring says how)
try:  # serving_cost refuses a draft it cannot price and says why
    if draft is None:
        raise ValueError(why)
    spec_c = inf.serving_cost(spec, gpu, price, draft_model=draft, draft_tokens=4,
                              acceptance_rate=0.8, **kw)
    x = plain.tpot_s / spec_c.tpot_s
    verdict = f"{x:.2f}x faster" if x >= 1 else f"{1 / x:.2f}x slower"
    print(f"batch 1, draft {why}: TPOT {plain.tpot_s * 1e3:.1f} -> "
          f"{spec_c.tpot_s * 1e3:.1f} ms ({verdict})")
except ValueError as e:
    print(f"speculative decoding not priced for this scenario: {e}")

# %% [markdown]
# **Takeaway.** Quantisation is a serving lever on both terms of the roofline; speculative
# decoding is a *latency* lever for small batches (at large batches the spare compute it spends is
# no longer free).
#
# ## 5. USD per million tokens on two accelerators
#
# Input tokens are priced at prefill time, output tokens at decode time:
# $\$/\text{M out} = \text{TPOT}\cdot tp/B_\text{live}\cdot \text{price}/3600\cdot 10^6$ and
# $\$/\text{M in} = t_\text{prefill}(B\ \text{prompts})\cdot tp/(B\,P)\cdot\text{price}/3600\cdot10^6$,
# with the live batch $B_\text{live}$ = occupancy × slots (continuous batching and PagedAttention,
# Kwon et al. 2023, keep the slots busy; the occupancy is a stated assumption).

# %%
other = "H200" if gpu.name != "H200" else "H100-SXM"
prices = {gpu.name: price, other: llmcost.resolve_price(other, None, "on_demand")[0]}
two, curves = inf.compare_accelerators(spec, prices, np.unique(np.geomspace(1, 4096, 50).round()),
                                       prompt_tokens=P, output_tokens=R, **sv,
                                       occupancy=p["serve_occupancy"],
                                       max_tpot_s=p["serve_max_tpot_s"], unservable="row")
plots.table(two, {"$/GPU-h": "${:.2f}", "TTFT (ms)": "{:.0f}", "TPOT (ms)": "{:.1f}",
                  "$/M input": "${:.3f}", "$/M output": "${:.3f}", "$/M blended": "${:.3f}"})

# %%
plots.cost_per_token_vs_batch(curves);

# %%
# NBVAL_CHECK_OUTPUT
print(f"{spec.name} on {c.tp} × {gpu.name}, {P} in / {R} out, batch {c.batch} "
      f"({c.limit}), occupancy {p['serve_occupancy']:.0%}:")
print(f"  TTFT {c.ttft_s * 1e3:.0f} ms, TPOT {c.tpot_s * 1e3:.1f} ms, "
      f"{c.output_tokens_per_s_per_gpu:,.0f} output tokens/s per GPU")
print(f"  ${c.usd_per_m_input:.3f} per M input, ${c.usd_per_m_output:.3f} per M output "
      f"({c.usd_per_m_output / c.usd_per_m_input:.1f}x), ${c.usd_per_m_blended:.3f} blended")
for b in sorted({1, min(32, c.max_batch)}):   # 32, or the most that fit beside the weights
    s_b = inf.serving_cost(spec, gpu, price, prompt_tokens=P, output_tokens=R, tp=c.tp, batch=b,
                           **sv)
    print(f"  at batch {b:>2}: ${s_b.usd_per_m_output:.2f} per M output = "
          f"{s_b.usd_per_m_output / s_b.usd_per_m_input:.0f}x its input price "
          f"(${s_b.usd_per_m_input:.3f} per M input at batch {b})")

# %% [markdown]
# **Why output tokens usually cost more than input tokens.** A prefill pass runs thousands of tokens
# through each weight read (compute-bound, near the matmul ceiling); a decode step runs one token
# per sequence per weight read, and the batch it can share that read with is capped by the KV cache,
# and in practice by latency targets and by how many requests are in flight. At the largest batch
# that fits, decode shares each weight read with the whole batch, so the gap between what a request
# pays per output token and per input token narrows to the ratio printed above for this request's
# shape (its prefill also pays the TP all-reduces, exposed here); at the batches a
# latency target or thin traffic leaves, output costs many times input, which is the physics behind
# list prices that charge several times more for output. These are roofline prices: the engines of
# section 6 run slower than the roofline by the factors printed there, so real costs are that factor
# higher.
#
# ## 6. Checking the roofline against published serving figures
#
# `data/serving_benchmarks.csv` holds published measurements, each with its source: every Llama
# row of NVIDIA's TensorRT-LLM H100 and A100 performance tables (peak throughput at large batch,
# v0.6.1; batch-1 first-token latency, v0.5; v0.5's H100 FP8 high-throughput table at batch
# 32-64), every Llama-2-7B row of NVIDIA NeMo's inference
# latency table (batch 1-8 at TP 1-8), NVIDIA NIM 1.8.0's published Llama 3.1 8B and Llama 3.3
# 70B inter-token latencies by concurrency, and vLLM measurements; GPT-J, Falcon and
# the L40S rows of the same tables are left out because the catalogue has neither the models nor
# the GPU. The roofline should be **faster** than every engine (it is an upper bound) and the gap
# says how much engines leave on the table. Nothing is fitted: the fractions and latencies are
# `data/efficiency.csv`'s. Each row is put in a **regime** by a stated rule
# (`inf.SERVING_REGIMES`: short-prompt first tokens, small-batch latency at TP ≥ 2, Llama-70B
# long generation before TensorRT-LLM's XQA kernel, closed-loop decode steps that carry other
# requests' prompt chunks, and the rest).

# %%
val = inf.serving_validation()
show = val[["engine", "model", "accelerator", "weight_dtype", "tp", "batch", "input_tokens",
            "output_tokens", "metric", "measured", "predicted", "speedup", "regime"]]
plots.table(show, {"measured": "{:.4g}", "predicted": "{:.4g}", "speedup": "{:.2f}x"})

# %%
# NBVAL_CHECK_OUTPUT
print(f"{len(val)} published figures from {val['engine'].nunique()} engine versions; roofline "
      f"speed-up over the engine {val['speedup'].min():.2f}x to {val['speedup'].max():.2f}x "
      f"(median {val['speedup'].median():.2f}x)")
for regime, g in val.groupby("regime"):
    print(f"  {regime:<30} {len(g):>2} rows: {g['speedup'].min():.2f}x-"
          f"{g['speedup'].max():.2f}x (stated bound {inf.SERVING_REGIMES[regime][1]:.1f}x)")
print("upper bound holds for every row:", bool((val["speedup"] >= 1).all()))

# %% [markdown]
# The roofline is an upper bound on every row, and how far above the engines it sits depends on
# the regime (the printout gives each regime's range), each with a cause the sources describe. In
# the plain roofline regime (large-batch throughput, long prompts, single-GPU latency) engines come
# closest to it. A short prompt's first token takes several times the weight read alone:
# per-request fixed costs (launching every layer's kernels, set-up, sampling) dominate. Llama-70B
# long generations in TensorRT-LLM v0.6.1 sit further below: they predate the XQA decode-attention
# kernel for grouped-query models, which NVIDIA reported gave 2.4× more Llama-70B throughput at the
# same latency. And NeMo's small-batch latency gains much less from TP 1 to TP 8 than the roofline
# does, so the gap grows with tp: the next cell tests whether one fixed per-pass cost explains
# that.

# %%
# NBVAL_CHECK_OUTPUT
trend = inf.tp_trend("nemo-h100-7b-b1")
o = trend.attrs["overhead_per_pass_s"]
print(f"per-pass overhead fitted on NeMo's H100 TP1 batch-1 row: {o * 1e3:.2f} ms")
for acc, g in trend[~trend["fitted"]].groupby("accelerator"):
    print(f"  {acc}: measured ÷ roofline {g['ratio_roofline'].min():.2f}-"
          f"{g['ratio_roofline'].max():.2f}x, measured ÷ (roofline + overhead) "
          f"{g['ratio_overhead'].min():.2f}-{g['ratio_overhead'].max():.2f}x ({len(g)} rows)")
b1 = trend[(trend["accelerator"] == "H100-SXM") & (trend["batch"] == 1)]
print("H100 batch 1, ms by tp:", ", ".join(f"TP{t} {m * 1e3:.1f} measured / {r * 1e3:.1f} roofline"
                                          for t, m, r in zip(b1["tp"], b1["measured"], b1["roofline"])))

# %% [markdown]
# One per-pass cost fitted on a single row brings the other NeMo rows close to the measurement
# (the printout gives the ratios with and without it, by GPU) and removes most of the tp trend: the
# gap at TP 8 is a fixed cost per step that tensor parallelism does not divide, not bandwidth. The
# TP all-reduces of a decode step are KB-sized, so NCCL runs them with its low-latency protocol
# (`inf.tp_allreduce_time`, its base and per-step latencies from `data/efficiency.csv`), and the
# roofline itself keeps falling from TP 4 to TP 8 as the measurement does. Use the roofline as the
# cost floor, with real engines above it by the regime's factor.

# %% [markdown]
# ## 6.1 What throughput should one expect from an engine, not just bound it by?
#
# The roofline bounds a served token's speed; an engine runs below it. `llmcost.serving.engines`
# turns the bound into an expectation with one rule per engine step: every pass takes
# roofline ÷ η + o, with a fraction η for the decode step's weights and FLOPs, one for its KV-cache
# read (paged attention, the long-context regime), one for prefill, and a fixed host cost o per
# step (scheduler, input preparation, kernel launches) that dominates at small batch. The four
# constants are fitted on the published rows marked *train* in `data/serving_benchmarks.csv` and
# judged on the rows marked *test*; the split was committed before any error was computed. The band
# is the 10th–90th percentile of measured ÷ expected over the fitted rows.

# %%
from llmcost.serving import engines, setups

eng = inf.load_engine_efficiency(None)
gap = engines.engine_validation()
plots.engine_gap(gap);

# %%
# NBVAL_CHECK_OUTPUT
print(f"fitted on {eng.n_train} train rows: η decode {eng.decode_fraction:.2f}, η KV read "
      f"{eng.kv_read_fraction:.2f}, η prefill {eng.prefill_fraction:.2f}, host overhead "
      f"{eng.step_overhead_s * 1e3:.1f} ms per step, band ×{eng.band[0]:.2f}–×{eng.band[1]:.2f}")
for split, g in gap.groupby("split", sort=False):
    print(f"  {split:5s} {len(g):2d} rows: median error {g['abs_error'].median():.0%}, "
          f"{(g['abs_error'] <= 0.25).mean():.0%} within 25 %, worst {g['abs_error'].max():.0%} "
          f"({g.loc[g['abs_error'].idxmax(), 'benchmark_id']})")
print("roofline bound respected on every row:", bool(gap["bound_ok"].all()),
      "| families with their own constants:", sorted(set(gap["fitted_on"]) - {"pooled"}))
print(f"a compute-bound prefill on Ampere runs at η prefill × {inf.PREFILL_COMPUTE_SCALE['Ampere']:.2f} "
      "(inf.PREFILL_COMPUTE_SCALE: fitted on the train rows; its form chosen after a held-out row)")

# %% [markdown]
# **Takeaway.** One fraction per phase and one fixed cost per step reproduce most held-out engine
# figures within a quarter; the output above gives the share within a quarter and names the worst row of each split. Llama-70B long
# generations before TensorRT-LLM's XQA kernel, which the previous section set apart, are priced
# with the KV cache read once per query head, as those engines read it
# (`engines.kv_reads_per_decode_step`). An engine family with enough published rows has
# constants of its own (each source weighs the same in a fit, so no single run sets them);
# the others use the pooled fit, and the output above lists which is which. Every price below is given at this expected throughput, with the band, and
# the roofline stays beside it as the bound.

# %% [markdown]
# ## 6.2 What does a faster token cost? The latency–throughput curve
#
# An API provider chooses a point on a curve: a smaller batch (or more GPUs per replica) lowers the
# time per output token and raises the cost of each token. `engines.latency_throughput_curve`
# prices every tensor-parallel size and batch of the scenario's model at the expected throughput,
# the batch slots busy at the scenario's occupancy as in section 5;
# the Pareto front keeps the points no other point beats on both axes, and
# `engines.cheapest_setup` picks the cheapest point under a latency target. The headline set-up
# (the answer under the title and the headline figures) is chosen differently:
# `inf.choose_serving_tp` takes the
# lowest blended price on the roofline, its batch the largest that fits or the largest
# whose expected TPOT meets the scenario's latency target (`inf.meets_tpot_target`, the
# same test as the cheapest point's). The cell after the cheapest point says whether the
# two land on the same tensor-parallel size and batch and, where they do, that the prices are
# the same; where they do not, how each was chosen.

# %%
target_s = p["serve_max_tpot_s"] or 0.05
occ = p["serve_occupancy"]  # mean busy share of the batch slots, as in the answer
curve = engines.latency_throughput_curve(spec, gpu, price, prompt_tokens=P, output_tokens=R,
                                         occupancy=occ, **sv)
plots.latency_throughput(curve, target_s=target_s);

# %%
# NBVAL_CHECK_OUTPUT
best = engines.cheapest_setup(spec, gpu, price, prompt_tokens=P, output_tokens=R,
                              max_tpot_s=target_s, occupancy=occ, unmet="fastest", **sv)
front = curve[curve["pareto"]]
print(f"{spec.name} on {gpu.name}: {len(curve)} set-ups, {len(front)} on the Pareto front")
under = (f"cheapest under {target_s * 1e3:.3g} ms per token" if best["meets_target"] else
         f"none meets {target_s * 1e3:.3g} ms per token on an engine; fastest")
print(f"{under} ({occ:.0%} busy): TP {int(best['tp'])}, "
      f"batch {int(best['batch'])}: {best['expected_tpot_s'] * 1e3:.1f} ms, "
      f"{best['expected_output_tokens_per_s_per_gpu']:,.0f} tok/s/GPU (band "
      f"{best['band_low']:,.0f}–{best['band_high']:,.0f}); ${best['expected_usd_per_m_input']:.3f}"
      f"/M input, ${best['expected_usd_per_m_output']:.3f}/M output at ${price:.2f}/GPU-h")

# %%
# NBVAL_CHECK_OUTPUT
fast = front.iloc[0]
times = fast["expected_usd_per_m_output"] / best["expected_usd_per_m_output"]
print(f"fastest point: TP {int(fast['tp'])}, batch {int(fast['batch'])}, "
      f"{fast['expected_tpot_s'] * 1e3:.1f} ms per token at ${fast['expected_usd_per_m_output']:.2f}"
      "/M output" + (f", {times:.0f}× the cheapest point under the target" if best["meets_target"]
                     else ": the set-up above"))

# %%
# NBVAL_CHECK_OUTPUT
print(answers.serving_points(c, best, target_s, tp_given=bool(p["serve_tp"]),
                             headline_target_s=p["serve_max_tpot_s"]))

# %% [markdown]
# ## 6.3 Set-ups side by side: a dense and a mixture-of-experts model
#
# A dense model fits a tensor-parallel replica inside one node. DeepSeek-V3 (671 B parameters,
# MLA attention, 256 routed experts) is served differently: under tensor parallelism the compressed
# MLA cache is copied whole on every rank, so the KV capacity is small; SGLang and DeepSeek instead
# run attention data-parallel (each GPU holds only its own sequences' cache) and spread the experts
# over many GPUs and nodes (expert parallelism), paying an all-to-all per MoE layer and per decode
# step, and they separate prefill from decode pools (the KV cache crosses the network once per
# request). `serving.setups.ep_step` models one such step per GPU; the published SGLang
# deployment on 96 H100s is reproduced below, and so are TensorRT-LLM's colocated DeepSeek-R1
# runs (attention data-parallel + EP8, NVFP4 weights on B200 at the datasheet FP4 peak, FP8 on
# H200), each printed with its error and the bound.
#
# Each row is priced on the accelerator its set-up names, at that accelerator's GPU-hour price
# (`setups.named_setup_price`): the scenario's price for a set-up on the scenario's accelerator,
# otherwise the catalogue's price of the named accelerator for the scenario's pricing mode. The
# last two columns give the price and where it comes from: a row on another accelerator than the
# scenario's is priced as a team renting it would pay, not at the scenario's rate.

# %%
narrow = min("fp8", p["serve_weight_dtype"], key=inf.WEIGHT_BYTES.get)  # FP8 or narrower
side = setups.setups_side_by_side(spec, gpu, price, prompt_tokens=P, output_tokens=R,
                                  max_tpot_s=target_s, weight_dtype=narrow,
                                  pricing=p["pricing"])  # other GPUs at their catalogue price
moe_ep = side.attrs["disaggregated"]   # the P/D deployment of the last row
plots.table(side, {"expected output tok/s per GPU (whole deployment)": "{:,.0f}",
                   "USD per M output": "${:.3f}", "batch per replica or GPU": "{:,.0f}",
                   "USD per GPU-hour": "${:.2f}"})

# %%
# NBVAL_CHECK_OUTPUT
for _, r in setups.setup_validation().iterrows():
    print(f"{r['setup_id']}: measured {r['measured_per_gpu']:,.0f} tok/s/GPU, expected "
          f"{r['expected_per_gpu']:,.0f} (band {r['band_low']:,.0f}–{r['band_high']:,.0f}), "
          f"error {r['abs_error']:.0%}, bound {r['bound_per_gpu']:,.0f} "
          f"({'respected' if r['bound_ok'] else 'violated'})")
if moe_ep is not None:  # None: the P/D example does not fit these lengths (the table says why)
    print(f"KV transfer of one {P}-token prompt, prefill to decode GPU: "
          f"{moe_ep.kv_transfer_s * 1e3:.1f} ms; prefill GPUs per decode GPU for {P} in / {R} "
          f"out: {moe_ep.prefill_gpus_per_decode_gpu:.2f}")

# %% [markdown]
# ## 6.4 What do the list prices of hosted models imply?
#
# A provider's list price covers the GPU-hours of the set-up above plus everything else (idle
# capacity at off-peak hours, staff, margin). Set beside the modelled cost of its set-up, each
# dated list price implies a gross margin over the GPUs alone. A dense model is modelled on the
# scenario's accelerator at the scenario's GPU-hour price; DeepSeek-V3 on the P/D deployment of
# 6.3, on the accelerator it names and at that accelerator's price, the same figures as there
# (`setups.named_setup_price`); each row prints its accelerator, price and price basis. Cached input
# (prefix caching) costs the provider only the new tokens' attention over the cached keys and
# the cached KV read: `setups.prefix_cached_prefill` prices it; keeping the cache resident is not
# priced.

# %%
prices = setups.api_price_comparison(gpu, price, prompt_tokens=P, output_tokens=R,
                                     max_tpot_s=target_s, pricing=p["pricing"])
plots.table(prices.drop(columns=["source"]),
            {c: "${:.3f}" for c in prices.columns if "usd" in c}
            | {c: "{:.0%}" for c in prices.columns if c.startswith("margin")})

# %%
# NBVAL_CHECK_OUTPUT
for _, r in prices.iterrows():
    head = (f"{r['provider']} {r['model']} ({r['dated']}): list ${r['list_usd_per_m_input']:.2f} "
            f"in / ${r['list_usd_per_m_output']:.2f} out per M; ")
    if pd.isna(r["modelled_usd_per_m_output"]):  # its deployment does not fit this GPU
        print(head + r["set_up"])
        continue
    print(head + f"modelled ${r['modelled_usd_per_m_input']:.3f} / "
          f"${r['modelled_usd_per_m_output']:.3f} at ${r['usd_per_gpu_hour']:.2f}/GPU-h "
          f"({r['price_basis']}; {r['set_up']}): "
          f"margin {r['margin_input']:.0%} on input, {r['margin_output']:.0%} on output")

# %% [markdown]
# **Takeaway.** At rented-GPU prices the modelled cost of a served token sits well below the list
# prices of open-weight APIs: the list price pays for the GPUs at the chosen point of the
# latency–throughput curve and for everything the GPUs alone do not show (idle capacity between
# peaks, the fleet kept for latency, staff and margin). The expected throughput, not the roofline,
# is the fair comparison, and its band says how far the comparison can move.

# %% [markdown]
# The SGLang rows come within a quarter of the measurement. The TensorRT-LLM rows run prefill and
# decode on the same GPUs with attention data-parallel: an iteration lasts as long as its slowest
# rank, so one rank's prefill stalls every rank's decode (TensorRT-LLM tech blog 10, "ADP Balance
# Strategy"), which the expected throughput counts (`setups.colocated_ep_throughput`; the bound,
# which a balanced scheduler could approach, does not). Each checkpoint's modules that stay wider are
# priced at their own precision (the router and LM head in BF16 in both, attention too in the FP4
# checkpoint: `setups.FP8_DEEPSEEK_KEPT`, `setups.NVFP4_MODELOPT_KEPT`); the printout above gives both rows' errors. What is left out
# (grouped-GEMM efficiency at the few tokens each expert gets per step, FP4 kernels below the BF16
# matmul fraction, the scheduler's mixed prefill and decode steps) is not separated. The bound holds on every row.
#
# ## 6.5 What if the model outgrows a node, or a long prompt arrives?
#
# A dense model too big for one node's HBM at the batch wanted is served across nodes (vLLM's
# "Distributed inference and serving" docs: TP inside a node, PP across nodes; or TP across whole
# nodes). `setups.pipeline_replica` prices both: a pipeline of pp stages runs pp micro-batches, so
# one decode cycle is
#
# $$ \text{TPOT} = pp \cdot t_\text{stage} + \sum \text{hops}, \qquad t_\text{stage} = t_\text{decode}(B/pp,\ tp)\cdot\frac{\lceil L/pp\rceil}{L}, $$
#
# each hop carrying $d_\text{model}\cdot 2$ bytes per token over the NIC between nodes; TP across
# nodes instead puts the $2L$ all-reduces of every pass on the NIC. Llama 3.1 405B in BF16 on two
# nodes of H100 (the example vLLM's Llama 3.1 announcement gives), at the scenario's request shape:

# %%
big = "llama-3.1-405b"
lay = setups.replica_layouts(big, "H100-SXM", layouts=[(8, 2), (16, 1)], batches=(1, 16, 64, 256),
                             prompt_tokens=P, context_tokens=P + R // 2, engine="vLLM")
ok = lay[lay["note"] == ""]
fig, ax = plt.subplots(figsize=(6, 4), layout="constrained")
for name, g in ok.groupby("layout", sort=False):
    ax.fill_between(g["tpot_expected_s"] * 1e3, g["band_low"], g["band_high"], alpha=0.15)
    ax.plot(g["tpot_expected_s"] * 1e3, g["expected_tokens_per_s_per_gpu"], "o-", label=name)
ax.set(xlabel="expected time per output token (ms)", ylabel="expected output tokens/s per GPU",
       title=f"{big}, BF16, 2 nodes of 8 H100, vLLM, batch {ok['batch'].min()}-{ok['batch'].max()}")
ax.legend(title="replica layout (band: engine fit)")
fig.supxlabel("source: llmcost.serving.setups.pipeline_replica, engines fitted on "
              "data/serving_benchmarks.csv", x=0.01, ha="left", fontsize=plots.SMALL_PT,
              color="0.4");  # at the foot, room left by the layout

# %%
# NBVAL_CHECK_OUTPUT
for name, g in ok.groupby("layout", sort=False):
    hop = (f"{g['inter_node_bytes_per_token'].iloc[0]:,.0f} B per token between stages"
           if g["pp"].iloc[0] > 1 else "2 all-reduces per layer across the NIC")
    print(f"{name} ({int(g['nodes'].iloc[0])} nodes): TPOT {g['tpot_expected_s'].min() * 1e3:.0f}-"
          f"{g['tpot_expected_s'].max() * 1e3:.0f} ms expected (bound {g['tpot_bound_s'].min() * 1e3:.0f}-"
          f"{g['tpot_bound_s'].max() * 1e3:.0f}), up to {g['expected_tokens_per_s_per_gpu'].max():,.0f} "
          f"tok/s/GPU; KV capacity {int(g['max_batch'].iloc[0])} sequences; {hop}")
for _, r in lay[lay["note"] != ""].iterrows():
    print(f"{r['layout']}, batch {r['batch']}: refused: {r['note']}")
x = setups.pp_over_tp_latency()
print(f"8 H200, Llama 3.1 405B FP8, batch 1: PP8 time per token ÷ TP8 = {x:.2f}; NVIDIA measured "
      f"{setups.NVIDIA_PP8_OVER_TP8_LATENCY} ({setups.NVIDIA_PP8_OVER_TP8_SOURCE})")

# %% [markdown]
# At batch 1 a pipeline runs its stages one after another, so its time per token is the sum of
# the stages; tensor parallelism splits every layer across the GPUs and pays only small
# all-reduces, which is why NVIDIA measured TP far ahead at minimum latency and the model agrees
# (the last line). NVIDIA's other claim, PP8 ahead of TP8 at maximum throughput, is **not**
# reproduced: here each stage re-reads its weights for every micro-batch. A TP all-reduce that
# costs TensorRT-LLM more than the modelled NVLink all-reduce would also explain the gap; no
# source found measures it, so that is a hypothesis.
#
# **Chunked prefill.** A long prompt prefilled in one pass stalls every running decode for the whole
# prefill. vLLM and SGLang instead split it into chunks that ride with the decodes in each engine
# step, up to a token budget τ (vLLM's `max_num_batched_tokens`, `setups.VLLM_TOKEN_BUDGET`;
# Sarathi-Serve, Agrawal et al. 2024): n = ⌈P / (τ − B)⌉ hybrid steps that read the weights once
# each. Smaller chunks bound the decodes' time between tokens and cost the prompt some TTFT:

# %%
long_p, busy = 8192, 64   # one long prompt arrives while 64 sequences decode at 1,024 tokens
chunks = setups.chunked_prefill_budgets("llama-3.1-8b", "H100-SXM", prompt_tokens=long_p,
                                        budgets=(512, 2048, setups.VLLM_TOKEN_BUDGET),
                                        decode_batch=busy, context_tokens=1024, engine="vLLM")
ms = lambda x: f"{x * 1e3:,.1f} ms"
plots.table(chunks[["token_budget", "chunks", "tpot_during_prefill_s", "decode_stall_unchunked_s",
                    "expected_ttft_s", "expected_ttft_unchunked_s", "expected_speedup"]],
            {"tpot_during_prefill_s": ms, "decode_stall_unchunked_s": ms, "expected_ttft_s": ms,
             "expected_ttft_unchunked_s": ms, "expected_speedup": "×{:.2f}"},
            words=plots.COLUMN_WORDS)

# %%
# NBVAL_CHECK_OUTPUT
d = chunks.set_index("token_budget").loc[setups.VLLM_TOKEN_BUDGET]
print(f"Llama 3.1 8B on one H100, one {long_p:,}-token prompt beside {busy} decoding sequences, "
      f"vLLM's budget {setups.VLLM_TOKEN_BUDGET:,}: the decodes' time per token during the "
      f"prefill {d['tpot_during_prefill_s'] * 1e3:.0f} ms (one pass: a "
      f"{d['decode_stall_unchunked_s'] * 1e3:.0f} ms stall); TTFT "
      f"{d['expected_ttft_s'] / d['expected_ttft_unchunked_s'] - 1:+.1%}; the same work "
      f"×{d['expected_speedup']:.2f} faster as hybrid steps")

# %% [markdown]
# **Does it match a measurement?** Sarathi-Serve's published experiment data (Agrawal et al. 2024,
# `microsoft/sarathi-serve`, `osdi-experiments` at commit 02d2567) time a hybrid step and chunked
# prefills of Yi-34B (arXiv:2403.04652) in FP16 at TP 2 on two A100 80GB PCIe; the catalogue prices
# them on the A100 SXM row (same peak, 5% more HBM bandwidth, 400 W against 300 W), at the pooled
# engine constants (`setups.chunked_prefill_validation`):

# %%
# NBVAL_CHECK_OUTPUT
cv = setups.chunked_prefill_validation()   # data/serving_chunked_prefill.csv
for _, r in cv.iterrows():
    print(f"{r['setup']}: measured {r['measured_s'] * 1e3:,.0f} ms, expected "
          f"{r['expected_s'] * 1e3:,.0f} ms ({r['ratio'] - 1:+.0%} slower than expected), "
          f"roofline {r['bound_s'] * 1e3:,.0f} ms" + ("" if r["bound_ok"] else " (bound broken)"))

# %% [markdown]
# **Takeaway.** Past one node, the layout decides the latency more than the GPU count: a
# pipeline adds its stages' times at small batch, TP across nodes pays its all-reduces on the NIC.
# Chunked prefill trades a little of the prompt's TTFT for a bounded time between the running
# sequences' tokens, which is why the engines turn it on by default.

# %%
plots.rl_loop_diagram();

# %% [markdown]
# # Part II · Why is an RL iteration hard to budget?
#
# ## 7. Where an iteration's FLOPs go, and where its time goes
#
# Per sample of P prompt and R response tokens (Ouyang et al. 2022, Shao et al. 2024; actor $N_a$, reference $N_\text{ref}$,
# reward model $N_r$, critic $N_c$, E PPO epochs):
#
# $$ \text{FLOPs} = \underbrace{2N_a(P+R)}_{\text{generation}} + \underbrace{2(N_r + N_\text{ref} + N_c)(P+R)}_{\text{scoring, reference, values}} + \underbrace{6(N_a + N_c)(P+R)E}_{\text{update}}, $$
#
# GRPO (Shao et al. 2024) drops the critic and normalises each reward within its group of G
# samples, $A_i = (r_i - \bar r)/\sigma_r$; with a rule-based verifier $N_r$ = 0. With the actor
# alone (generation 2, reference 2, update 6) generation is $2/10 = 20\%$ of the FLOPs, DeepSpeed-
# Chat's "approximately 20%". The frameworks also recompute the policy's log-probabilities of the
# samples before the update, another $2N_a(P+R)$ (NeMo RL, OpenRLHF), which the bill's GRPO
# campaign pays (`rl.scenario_recomputes_old_logprobs`): generation $2/12 \approx 17\%$ of it
# when every pass runs over the same tokens. The scenario's share printed below is lower where its
# G > 1 samples share a prompt: its generation prefills each prompt once per group of G samples while the other passes read all G
# copies, per group $2N_a(P + G R)$ for generation against $2N_a G(P + R)$ for each other pass.
# But generation *time* is decode time: the roofline above, at the
# batch the rollout engine holds, and a synchronous iteration waits for its **longest** response.
# The times in this part's tables are the model's own; the bill multiplies each by one factor (the
# first lines of this page, `rl.billed_iteration_s`), which leaves their ratios and shares as they
# are.

# %%
iters = {"scenario": rl.scenario_iteration(p)}
label, other, why = rl.other_algorithm(p)   # PPO's scenario beside GRPO, any other beside PPO
if other is not None:
    iters[label] = rl.scenario_iteration(other)
rows = {k: {"wall (s)": it.wall_s, "GPU-hours": it.gpu_hours, "USD": it.gpu_hours * price,
            "gen. share of FLOPs": it.generation_flops_share,
            "gen. share of time": it.generation_time_share} for k, it in iters.items()}
print(f"{rl.shape_words(p)} ({gpu.name})"
      + ("" if p["rl_algorithm"] == "dpo" else f", rollout TP {p['rl_rollout_tp']}"))
for note in (rl_context_warning({**p, "ledger_rl": True}), why):  # the bill's rule; the row
    if note:
        print(f"note: {note}")
plots.table(pd.DataFrame(rows).T, {"wall (s)": "{:,.0f}", "GPU-hours": "{:,.1f}", "USD": llmcost.fmt_usd,
                                   "gen. share of FLOPs": "{:.1%}", "gen. share of time": "{:.1%}"},
            index=True)

# %% [markdown]
# ## 8. The per-iteration ledger
#
# The parts below are GPU-seconds and add up to the iteration's total (wall time × GPUs):
# generation at the batch the KV cache allows, the **tail** (GPUs held while the longest responses
# finish, measured against every response having the mean length), scoring, reference and critic
# passes, the update, weight sync and idle time (the other role's GPUs waiting when rollout and
# training have separate GPUs). A PPO row set beside another algorithm scores with a reward model of the policy's
# size (a PPO scenario is set beside GRPO, with its own scoring); PPO and
# GRPO both recompute the policy's old log-probabilities, as NeMo RL and OpenRLHF do.

# %%
from llmcost.core.units import fmt_quantity

parts = {k: it.parts(price) for k, it in iters.items()}
display(plots.table(parts["scenario"], {"gpu_s": "{:,.0f}", "gpu_hours": lambda h: fmt_quantity(h, 2),
                                        "share": "{:.1%}", "usd": llmcost.fmt_usd},
                    words=plots.COLUMN_WORDS))
plots.rl_parts_bars(parts);

# %%
# NBVAL_CHECK_OUTPUT
it = iters["scenario"]
wall = llmcost.fmt_duration(it.wall_s)
print(f"one {it.algorithm.upper()} iteration: {wall} on {it.n_gpus} GPUs = "
      f"{llmcost.fmt_count(it.gpu_hours, 3)} GPU-hours = {llmcost.fmt_usd(it.gpu_hours * price)}")
print(f"generation {it.generation_flops_share:.1%} of the FLOPs but "
      f"{it.generation_time_share:.1%} of the time (tail "
      f"{it.parts_gpu_s['tail'] / it.gpu_s:.1%} of the GPU-time)")
print(f"parts sum to the total: {sum(it.parts_gpu_s.values()):,.0f} = "
      f"{it.wall_s * it.n_gpus:,.0f} GPU-s")
given = "scoring and update passes at the scenario rl_train_mfu" if p["rl_train_mfu"] else ""
print("how it is priced: " + "; ".join(w for w in (given, it.notes) if w))
print(f"as the bill prices it: {llmcost.fmt_duration(billed_s)} ({billed_note}) = "
      f"{llmcost.fmt_usd(it.gpu_hours * billed_s / it.wall_s * price)}")


# %% [markdown]
# ## 9. FLOPs share against time share: what the sources report
#
# Three sources report the split, each for its own set-up. The model below is run with **each
# source's set-up** (models, lengths, batch per engine, GPU split: `rl.PUBLISHED_SHARES`, every
# setting with where it is stated); nothing is fitted. DeepSpeed-Chat reports a FLOPs share;
# OpenRLHF's README says 80% of the time goes to generation, and its benchmark table gives the
# generation and training latencies of a colocated run (78.2% generation) and a Ray + vLLM run
# (54.4%), so each phase is checked on its own, not only their ratio; APRIL states "more than 90%"
# in general, a lower bound, not a measurement of one set-up.
# Each phase is compared as the source's own code times it (`rl.validation_phases`): OpenRLHF's
# "generation" latency is its whole experience making (`PPOTrainer.fit` times the loop of
# `make_experience`: generation, then the actor's, reference's, reward's and critic's forward
# passes) and its "training" latency the updates; DeepSpeed-Chat's end-to-end leaves the forward
# passes out altogether (its `main.py`: "it is an approximation, we did not include, e.g., rw
# forward time").

# %%
shares = rl.published_generation_shares()
plots.table(shares[["source", "quantity", "measured", "bound", "model", "gap",
                    "model_flops_share", "model_tail_share", "gen_s", "measured_gen_s",
                    "train_s", "measured_train_s"]],
            {"measured": "{:.1%}", "model": "{:.1%}", "gap": "{:+.1%}",
             "model_flops_share": "{:.1%}", "model_tail_share": "{:.1%}", "gen_s": "{:,.1f}",
             "measured_gen_s": "{:,.1f}", "train_s": "{:,.1f}", "measured_train_s": "{:,.1f}"})

# %%
plots.generation_shares(shares);

# %%
# NBVAL_CHECK_OUTPUT
for _, r in shares.iterrows():
    cited = "no number" if pd.isna(r["measured"]) else \
        (">" if r["bound"] == "lower" else "") + f"{r['measured']:.1%}"
    gap = "" if pd.isna(r["gap"]) else f", gap {r['gap'] * 100:+.1f} points"
    rng = f" (assumed lengths: {r['model_min']:.1%}-{r['model_max']:.1%})" \
        if r["model_max"] > r["model_min"] else ""
    print(f"{r['source']:<22} {r['quantity']:<27} source {cited:>9}, model {r['model']:.1%}{gap}{rng}")
for _, r in shares.dropna(subset=["measured_gen_s"]).iterrows():
    print(f"{r['source']:<22} generation {r['gen_s']:.0f} s (table {r['measured_gen_s']:.0f} s), "
          f"training {r['train_s']:.0f} s (table {r['measured_train_s']:.0f} s)")

# %% [markdown]
# What the gaps mean, source by source (the figures are the printout above):
#
# * **DeepSpeed-Chat** (Yao et al. 2023; blog §5). Its "approximately 20%" (the blog gives no
#   breakdown) is consistent with the actor-only count 2/(2 + 2 + 6). Its own trainer (`DeepSpeedPPOTrainer.generate_experience`) also runs the
#   actor's forward pass for the old log-probabilities, then the reference, the OPT-350M reward
#   model and critic: counting all of them lowers the share, so the blog's figure is the actor's
#   share, not the whole iteration's. For time it says only "the majority of the time goes to the
#   generation phase" (body text on its OPT-1.3B time breakdown), so no gap can be stated.
# * **OpenRLHF, Ray + vLLM** (its benchmark table). The table's GPU column is the ratio
#   1:1:2:2:2 (reference, reward, actor, critic, vLLM); its TFLOPs conserve an iteration's FLOPs
#   only on 8 GPUs, so 2 GPUs ran vLLM, each fed the 16-prompt generation micro-batch of one actor
#   rank, and each model sits on its own GPUs (`RLOptions.role_gpus`: the reference and reward
#   forwards run on one GPU each, beside the actor's and the critic's). The roofline of the
#   generation alone, every response at the 1,024-token limit, already takes longer than the
#   table's whole generation phase, forward passes included (section 10's bound printout): the
#   responses were shorter than the limit (OpenRLHF's generation stops at the end-of-sequence
#   token; the lengths are not published), so the share this row gives cannot be reached with
#   the lengths assumed here.
# * **OpenRLHF, colocated** (the row behind "80%"). The source generated with HF/DeepSpeed
#   `generate` at **4.03 TFLOP/s per GPU**, several times below the roofline for decoding 8
#   sequences: static, padded micro-batches and a host cost per layer and decode step
#   (`rl.HF_GENERATE_S_PER_LAYER_STEP`, fitted on the three Llama-2-7B HF rows of the table in
#   section 10 and judged on the 13B rows) account for the slow decode.
# * **APRIL** (Zhou et al. 2025). "More than 90%" is a lower bound on RL training in general.
#   With its script's set-up (Qwen3-4B, 32 prompts × 8, up to 16,384 tokens, SGLang engines of
#   2 GPUs at a 0.6 memory fraction, colocated on 8 GPUs) and an *assumed* mean response, the
#   printout gives the model's share and its range over assumed means of 1,024 to 8,192 tokens;
#   the tail is the largest single part of that iteration (the `model_tail_share` column).
#
# In every set-up generation is under a quarter of the FLOPs and most of the time: decode runs
# at a few percent of peak because it is HBM-bound, and the slowest response holds every GPU.

# %% [markdown]
# ## 10. Does the iteration time match published runs?
#
# Section 9 checks shares; this section checks **seconds per iteration**, against every published
# RL run whose iteration or phase times and set-up could be read: OpenRLHF's benchmark table
# (DeepSpeed-Chat and OpenRLHF PPO on Llama-2 7B/13B/70B, A800, generation and training latency;
# OpenRLHF/OpenRLHF `benchmark/README.md` @ 0baf3dd) and NeMo RL's v0.4 and v0.6 performance
# summaries (GRPO step times on DGX-H100 for Llama-3.1-8B, DeepSeek-V3 and Qwen3-30B-A3B,
# on-policy and one or eight steps off-policy; NVIDIA-NeMo/RL `docs/about/performance-summary.md`
# @ 06beed9 and @ 5fb5889, and the recipes they name), and NeMo RL's v0.3 blog, whose Table 1
# times one GRPO step **by phase** (generation, policy training, log-probabilities, refit) for
# Llama 3.1 8B and 70B and Qwen3-30B-A3B (NeMo blog, 2025-07-21; the GPU is not named: H100
# assumed, as in NeMo RL's performance pages of the time). The table (`data/rl_iterations.csv`,
# `rl.load_rl_validation()`) was committed with its split before any error of its rows was
# computed: the four Llama-2-7B rows calibrate HF generate's host cost, and four NeMo RL v0.5 rows
# on GB200-NVL72 (`added` = "v4", the v0.5 summary @ tag v0.5.0, committed as calibration before
# any of their errors was computed) calibrate vLLM's decode on GB200 (`rl.VLLM_DECODE_FACTORS`,
# `rl.fit_vllm_decode_factor`); the other rows are held out. Five more rows (NeMo RL v0.6 on GB200-NVL72, `added` =
# "v2") were committed, data only, before any of their errors was computed: they judge the model
# as it stood; so were the three v0.3 rows (`added` = "v3"). Every row quotes the published cells it is compared with (`measured_quote`) and
# what the source's timing code puts in each phase (`phase_definition`); the predicted phases are
# those (`rl.validation_phases`). No veRL, TRL or DeepSeek-R1 iteration time with a stated set-up
# was found in public sources.
#
# Two versions of the model are run on every row: **before** (generation at the raw roofline with
# continuous batching for every engine, every training pass at a flat 40% MFU, rollout TP refused
# beyond one node) and **model** (`rl.rl_iteration` as it stands: the engine's fitted efficiency,
# HF generate's static batches, `llmcost.step_time` for the training passes with the run's plan,
# multi-node rollout TP, weight sync sized by bytes and links, NeMo RL's measured refit on its
# colocated rows, k iterations in flight on the rollout engine when RL runs k steps off-policy,
# OpenRLHF Ray's models each on their own GPUs, and the optimizer on the host CPUs where the run's
# script puts it: DeepSpeed's CPU Adam and the copies over PCIe, `rl.optimizer_offload_time`, added
# after the rows that offload had been seen, with DeepSpeed's own measurement as its constant, not
# fitted; and NeMo RL's model state moved between GPU and host memory every step as its Megatron
# policy worker does, `rl.nemo_rl_swap_bytes`, read from its code after the held-out errors had
# been seen). A third, **scenario**, states each row with the keys a scenario has
# (`rl.SCENARIO_SETTABLE`: the model, GPUs, batch, lengths, placement), every other setting at its
# default (the weight sync by links, the update's plan searched, no framework's engine caps or host
# swaps), vLLM rows only: what the bill prices for a scenario. Their median measured ÷ predicted
# time is the factor a scenario that gives no `rl_time_factor` is billed at
# (`rl.scenario_time_factor`, as notebook 00 centres a predicted MFU on its regime's published
# runs), their spread the range its RL line is drawn over (`rl.RL_TIME_FACTOR_RANGE`, below). In
# the tables, `ratio` is predicted ÷ measured (below 1: the model is short); `rl_time_factor` and
# its range are the inverse, measured ÷ predicted.

# %%
val = {mode: rl.rl_validation(mode) for mode in rl.VALIDATION_MODES}
cols = ["id", "split", "added", "engine", "measured_s", "predicted_s", "ratio", "gen_ratio",
        "train_ratio", "measured_gen_share", "predicted_gen_share"]
plots.table(val["model"][cols],
            {"measured_s": "{:,.1f}", "predicted_s": "{:,.1f}", "ratio": "{:.2f}",
             "gen_ratio": "{:.2f}", "train_ratio": "{:.2f}", "measured_gen_share": "{:.1%}",
             "predicted_gen_share": "{:.1%}"})

# %%
for mode, df in val.items():
    for split in ("calibration", "heldout"):
        s = rl.validation_summary(df[df["split"] == split])
        print(f"{mode:<7} {split:<11} {s['evaluated']}/{s['rows']} rows: mean |error| "
              f"{s['mean_abs_error']:.0%}, worst {s['worst_factor']:.2f}x, " + (
                  f"generation share gap worst {s['worst_share_gap_points']:.0f} points "
                  f"({s['share_rows']} rows)" if s["share_rows"] else "no published phases"))
held = val["model"][val["model"]["split"] == "heldout"]
for added, g in held.groupby("added"):
    s = rl.validation_summary(g)
    print(f"model   held-out rows {added}: {s['evaluated']} rows, mean |error| "
          f"{s['mean_abs_error']:.0%}, worst {s['worst_factor']:.2f}x, geomean ratio "
          f"{s['geomean_ratio']:.2f}")
for _, r in val["model"][val["model"]["error"] != ""].iterrows():
    print(f"not evaluated: {r['id']}: {r['error'][:150]}")

# %%
# NBVAL_CHECK_OUTPUT
s = rl.validation_summary(held)
for goal, ok in (("mean within 25%", s["mean_abs_error"] <= 0.25),
                 ("worst within 1.5x", s["worst_factor"] <= 1.5),
                 ("share gap within 10 points", s["worst_share_gap_points"] <= 10)):
    print(f"goal (held-out, model): {goal}: {'met' if ok else 'not met'}")
lo, med, hi = rl.held_out_time_factors("scenario")
b_lo, b_med, b_hi = rl.time_factor_triangle(p)  # this scenario's framework's, or the generic
print(f"the bill's path (scenario): published ÷ predicted {lo:.2f} to {hi:.2f} (median "
      f"{med:.2f}); with rl_framework {p['rl_framework']} and no rl_time_factor, a "
      + ("GRPO or PPO scenario" if p["rl_framework"] == "generic" else
         "GRPO scenario (NeMo RL runs no PPO)")
      + f" is billed at {b_med:g} and drawn over {b_lo:g}-{b_hi:g}")

# %% [markdown]
# **Can the assumed lengths be what ran?** No engine decodes faster than the roofline. For each
# row with published phases, the roofline generation at the row's assumed lengths (every prompt
# and response at the limits for OpenRLHF's benchmark) is set against the published generation
# phase less its experience forwards at their fastest (100% MFU): a ratio above 1 means the
# responses were shorter than assumed.

# %%
bound = rl.validation_generation_bound()
display(plots.table(bound[["id", "engine", "phases_measured", "measured_gen_s", "roofline_gen_s",
                   "forwards_at_peak_s", "bound_ratio"]],
            {"measured_gen_s": "{:,.0f}", "roofline_gen_s": "{:,.0f}",
             "forwards_at_peak_s": "{:,.0f}", "bound_ratio": "{:.2f}"}))
over = bound[bound["bound_ratio"] > 1]
print("rows whose roofline generation exceeds the published phase: "
      + (", ".join(f"{r.id} ({r.bound_ratio:.2f}x)" for r in over.itertuples()) or "none"))

# %% [markdown]
# **Where does the generation-share gap come from?** For each row with published phases, the
# model's share of generation beside the published one, and the model's share again with one of
# its two phases replaced by the published phase (`rl.generation_share_gaps`): `gap_from_gen` is
# the points the generation error adds (generation priced that the run did not spend, when
# positive), `gap_from_rest` the points the training (and sync) error adds (time the run spent
# training that the model does not price, when positive).

# %%
gaps = rl.generation_share_gaps(val["model"])
display(plots.table(gaps.drop(columns="system"),
            {c: "{:.1%}" for c in ("measured_share", "model_share", "share_gen_fixed",
                                    "share_rest_fixed")}
            | {c: "{:+.1f}" for c in ("gap_points", "gap_from_gen", "gap_from_rest")}
            | {c: "{:.2f}" for c in ("gen_ratio", "rest_ratio")}))
for split, s in gaps.groupby("split"):
    w = s.loc[s["gap_points"].abs().idxmax()]
    print(f"{split}: worst gap {w['gap_points']:+.1f} points ({w['id']}: generation adds "
          f"{w['gap_from_gen']:+.1f}, training and sync {w['gap_from_rest']:+.1f}); mean points "
          f"added by generation {s['gap_from_gen'].mean():+.1f}, by training and sync "
          f"{s['gap_from_rest'].mean():+.1f}")

# %%
fig, ax = plt.subplots(figsize=(6, 5))
for mode, mk in zip(rl.VALIDATION_MODES, ("x", "o", "^")):
    d = val[mode].dropna(subset=["predicted_s"])
    ax.scatter(d["measured_s"], d["predicted_s"], marker=mk, label=mode)
lim = [30, 2e4]
ax.plot(lim, lim, "k-", lw=0.8)
ax.fill_between(lim, [v / 1.5 for v in lim], [v * 1.5 for v in lim], color="0.9")
ax.set(xscale="log", yscale="log", xlim=lim, ylim=lim, xlabel="published iteration time (s)",
       ylabel="predicted iteration time (s)",
       title="RL iterations: OpenRLHF benchmark, NeMo RL v0.3 blog, v0.4/v0.6 summaries")
ax.legend(title="mode (band: 1.5x)");

# %%
variants = rl.NOTEBOOK_VARIANTS  # each switches one mechanism back: its keywords
ratio = rl.validation_variants(variants)   # predicted ÷ measured, NaN where not priced
common = ratio.dropna().index
for name, v in ratio.items():
    elsewhere = ", ".join(f"{k} {v[k]:.2f}" for k in sorted(v.drop(common).dropna().index))
    print(f"{name:<24} held-out mean |error| {(v[common] - 1).abs().mean():.0%} over "
          f"the {len(common)} rows all variants price"
          + (f"; ratios elsewhere: {elsewhere}" if elsewhere else ""))

# %% [markdown]
# **How much of the training phase is the optimizer on the host?** DeepSpeed-Chat's and
# OpenRLHF's rows update on the host CPUs (`optimizer_offload`): each optimizer step waits for CPU
# Adam over the whole model and the gradient shards crossing PCIe (`rl.optimizer_offload_time`:
# (N / hosts) / R_host + 2 bytes · N / GPUs / B_pcie, no overlap with the backward, since
# DeepSpeed's ZeRO-Offload runs synchronously). The table sets each row's training-phase ratio
# and generation share without and with that wait.

# %%
off = rl.rl_validation("model", change={"optimizer_offload": False}).set_index("id")
on = val["model"].set_index("id")
ids = rl.load_rl_validation().query("optimizer_offload == 'cpu'")["id"]
display(plots.table(pd.DataFrame({"split": on.loc[ids, "split"],
                          "train_ratio_without": off.loc[ids, "train_ratio"],
                          "train_ratio_with": on.loc[ids, "train_ratio"],
                          "measured_gen_share": on.loc[ids, "measured_gen_share"],
                          "gen_share_without": off.loc[ids, "predicted_gen_share"],
                          "gen_share_with": on.loc[ids, "predicted_gen_share"]}).reset_index(),
            {c: "{:.2f}" for c in ("train_ratio_without", "train_ratio_with")}
            | {c: "{:.1%}" for c in ("measured_gen_share", "gen_share_without", "gen_share_with")}))
print(f"host CPU path {rl.CPU_ADAM_PARAMS_PER_S_PER_HOST:.3g} parameters/s: {rl.CPU_ADAM_SOURCE}")

# %% [markdown]
# **Which phase of a NeMo RL step does the model miss?** The v0.3 blog rows give the
# generation, the training (policy training plus the log-probabilities) and, as the rest of the
# step, the refit and anything else; the model's rest is its weight sync.

# %%
v3 = on[(on["phases_measured"] == "step") & on["measured_gen_s"].notna()]
ph = pd.DataFrame({"generation": v3["gen_ratio"], "training": v3["train_ratio"],
                   "rest": v3["predicted_sync_s"] / (v3["measured_s"] - v3["measured_gen_s"]
                                                     - v3["measured_train_s"])})
display(plots.table(ph.reset_index(), {k: "{:.2f}" for k in ph.columns}))
for rid, r in ph.iterrows():
    worst = np.log(r.astype(float)).abs().idxmax()
    seconds = {"generation": v3.loc[rid, "measured_gen_s"] - v3.loc[rid, "predicted_gen_s"],
               "training": v3.loc[rid, "measured_train_s"] - v3.loc[rid, "predicted_train_s"],
               "rest": v3.loc[rid, "measured_s"] - v3.loc[rid, "measured_gen_s"]
               - v3.loc[rid, "measured_train_s"] - v3.loc[rid, "predicted_sync_s"]}
    most = max(seconds, key=lambda k: abs(seconds[k]))
    print(f"{rid}: largest miss by ratio {worst} ({r[worst]:.2f}x), in seconds {most} "
          f"({seconds[most]:+.0f} s unpriced)")

# %% [markdown]
# **What each mechanism changed, and what is still missing.** The engine's efficiency and HF
# generate's static batches move generation from the bound to what the frameworks ran; the
# step-time model replaces a flat MFU by the plan's (ZeRO stage, recomputation, pipeline bubble);
# multi-node rollout TP makes DeepSeek-V3's four-node vLLM replicas priceable, and its recipe's
# uneven pipeline split (3 + 14 × 4 + 2 layers) is priced as such; k steps off-policy keep k
# iterations' requests on each rollout replica, so the next batch fills the slots the long
# responses leave; OpenRLHF Ray's reference and reward models each forward the whole batch on
# their own GPU while the actor and critic wait, and the actor and critic update side by side.
# Comparing each source's phases as its code times them changes what is judged: DeepSpeed-Chat's
# published end-to-end has no experience forwards in it, and OpenRLHF's generation phase has them;
# once compared so, the table's `gen_ratio` and `train_ratio` say which way each phase is off
# (counted for both systems just below), which the earlier, mismatched comparison hid in the
# iteration total. DeepSeek-V3's two colocated v0.6 rows (256 and 512 GPUs) differ by much less than their
# generation should: a per-step cost that does not shrink with GPUs. One candidate is what NeMo
# RL's blog calls the **refit**, each policy worker gathering the full parameters and handing them
# to vLLM (the blog does not say how it scales with the GPU count); the blog measured it for
# DeepSeek-V3 (`rl.NEMO_RL_REFIT_SOURCE`), and `rl.nemo_rl_refit_time` scales
# that one measurement by weight bytes for NeMo RL's colocated rows (not fitted on these rows). The
# printout above says how far each mechanism moves the held-out error. Still missing, and visible
# in the rows: most NeMo RL rows are still predicted faster than measured. The asynchronous rows'
# refit goes over NCCL to separate GPUs. OpenRLHF's is priced by links, with the bytes its code
# sends: every tensor whole to every rollout GPU (`rl.weight_sync_time`); NeMo RL's v0.4 and v0.6
# rows take the measured refit of their version, which overlaps packing with the broadcast
# (`rl.NEMO_RL_NCCL_REFIT_S`, `rl.NEMO_RL_NCCL_REFIT_SOURCE`: for DeepSeek-V3 half the time the
# bytes over one NIC would take, so its asynchronous rows are now predicted faster than measured). Qwen3-30B-A3B's v0.4 asynchronous row
# ran much slower than the same recipe in v0.6: a difference of software versions, not of
# schedule, partly priced: NeMo RL v0.3 and v0.4 pinned vLLM 0.9.0 and 0.10.0, whose V1 engine
# decodes in piecewise CUDA graphs (attention launched between graph pieces in every layer), which
# vLLM's own A/B on a 48-layer MoE measured at `rl.VLLM_PIECEWISE_S_PER_STEP` per decode step
# (an upper bound for larger MoE models, which hide more of it) (`rl.vllm_piecewise_graphs`; MoE policies only, the "vLLM's full CUDA graphs"
# variant above switches it off). The colocated refit is priced by the path each row's version runs: v0.3's measured
# refit of DeepSeek-V3 (`rl.NEMO_RL_REFIT_S`), and from v0.4.0 the streamed refit its author
# measured (`rl.NEMO_RL_ZMQ_REFIT_S`, `rl.NEMO_RL_ZMQ_REFIT_SOURCE`), with the offload around it
# at its measured time (`rl.NEMO_RL_OFFLOAD_S`, `rl.NEMO_RL_OFFLOAD_SOURCE`); each row's trainer recomputes activations as its recipe sets
# (`rl.row_recompute`: full for Llama-3.1-8B and DeepSeek-V3, none for Qwen3-30B-A3B and the v0.3
# configs); their lengths are the summaries' as NeMo RL counts them (`rl.row_lengths`: "G-Average
# Seq len" is the mean generated length, and the prompt is what each row's tokens-per-second-per-GPU
# cell counts beyond it); and each rollout replica holds at most as many sequences as vLLM's default
# `max_num_seqs` for the engine object its recipe builds (`rl.row_max_concurrent`:
# `rl.VLLM_ASYNC_DEFAULT_MAX_NUM_SEQS` for the `AsyncLLM` of the asynchronous recipes and
# DeepSeek-V3's, `rl.VLLM_LLM_DEFAULT_MAX_NUM_SEQS` for `vllm.LLM`), so the asynchronous
# Qwen3-30B-A3B replicas decode their responses in waves. The fresh GB200 rows, judged before
# any change was made for them, were all predicted faster than measured, by more than the H100
# rows; the v0.5 GB200 calibration rows now fit one factor on vLLM's decode steps on GB200
# (`rl.VLLM_DECODE_FACTORS`): an empirical factor, not a mechanism, since no GB200 phase split is
# published (a factor on GB200's training passes instead fits those rows worse);
# `benchmarks/validate_rl.py` sets each GB200 row beside the H100 row of the same model and
# schedule (tokens per second per GPU), with and without the factor, and lists the candidates
# for its cause that no published figure prices. NeMo RL's performance pages publish only the
# step; its v0.3 blog publishes one step by phase, and the phase printout above places the
# missing part there (the largest miss of each row, by ratio and in unpriced seconds). OpenRLHF's generation stopped at the
# end-of-sequence token (its code at the benchmark's commit sets no minimum length): the bound
# printout shows that on its vLLM rows no engine could have generated every response at the limit
# in the time published, so those rows' generation (and their generation share) cannot be judged
# until their lengths are known. DeepSpeed-Chat's benchmark fixes prompt and answer lengths, and
# both it and OpenRLHF's example scripts train with the optimizer in CPU memory (`--offload`,
# `--adam_offload`). The model prices that wait at DeepSpeed's own measured rate, synchronous as
# DeepSpeed runs it (`rl.CPU_ADAM_SOURCE`); the offload printout above says how much of their
# training phases it explains and how much is still missing (DeepSpeed-Chat's ZeRO-3 critic also
# fetches its offloaded parameters over PCIe for every pass: priced, as pinned host copies,
# `rl.deepspeed_offload_bytes`; the all-gathers after each fetch are not, and
# `rl.zero3_critic_check` adds them as a check only). No RL row beyond these
# two sources states its set-up well enough to be priced.

# %%
# DeepSpeed-Chat's and OpenRLHF's rows, each phase as its code times it (the table above)
system = rl.load_rl_validation().set_index("id")["system"]
both = val["model"][val["model"]["id"].map(system).isin(["DeepSpeed-Chat", "OpenRLHF"])]
both = both.dropna(subset=["gen_ratio", "train_ratio"])
print(f"DeepSpeed-Chat and OpenRLHF, {len(both)} rows: generation predicted slower than "
      f"published in {(both['gen_ratio'] > 1).sum()}, faster in {(both['gen_ratio'] < 1).sum()} "
      f"(gen_ratio {both['gen_ratio'].min():.2f}-{both['gen_ratio'].max():.2f}); training "
      f"predicted faster in {(both['train_ratio'] < 1).sum()}, slower in "
      f"{(both['train_ratio'] > 1).sum()} (train_ratio {both['train_ratio'].min():.2f}-"
      f"{both['train_ratio'].max():.2f})")

# %%
r0 = p["rl_response_tokens"]
fp8_row = not rl.fp8_rollouts_change(p)   # a row only where FP8 rollout weights change them
grid = rl.scenario_variants(p, {
    "scenario": {}, "G = 4": dict(rl_samples_per_prompt=4), "G = 64": dict(rl_samples_per_prompt=64),
    "mean response ÷ 2": dict(rl_response_tokens=r0 // 2),
    "mean response × 2": dict(rl_response_tokens=r0 * 2),
    "no tail (max = mean)": dict(rl_response_tokens_max=r0),
    "partial rollouts": dict(rl_partial_rollouts=True),
    **({"FP8 rollouts": dict(rl_rollout_weight_dtype="fp8")} if fp8_row else {})}, price)
plots.table(grid.drop(columns="idle_share"),
            {"wall_s": "{:,.0f}", "usd_per_iteration": "${:,.0f}",
             "generation_time_share": "{:.1%}", "tail_share": "{:.1%}"},
            words=plots.COLUMN_WORDS)

# %% [markdown]
# More samples or longer responses raise the cost, but less than in proportion while the tail
# sets the time: a synchronous iteration lasts as long as its longest response, and that length
# (the limit) does not change with G. The tail is the part no FLOP count shows: with responses
# capped at several times the mean, the last few sequences decode at a batch of one or two while
# every GPU of the job waits; removing it (every response at the mean length) shortens the
# iteration by the tail share in the table. **FP8 rollouts** (`rl_rollout_weight_dtype: fp8`: an
# 8-bit copy of the policy generates, the update stays in BF16) read half the weight bytes per
# decoded token; the sampled tokens then come from a slightly different policy than the one
# trained, which FlashRL (Liu, Yao et al. 2025) and FP8-RL (Qiu et al. 2026, arXiv:2601.18150, up
# to +44% rollout throughput measured, with an FP8 KV cache too) correct with truncated importance
# sampling; AIS (Zhou et al. 2026, arXiv:2605.13907) measured 1.5-2.76× (Qwen3-8B and the
# diffusion model LLaDA-8B). The row is the serving model's FP8 decode, weights only; the
# re-quantisation at each weight sync is not priced; it is left out where the rollouts already
# hold 8 bits or fewer per weight or the GPU has no FP8 peak.
#
# ## 11. Synchronous, asynchronous, partial rollouts
#
# Two remedies: **asynchronous** RL generates the next batch on separate rollout GPUs while the
# trainer updates on the last (the policy is off by one step; verl, OpenRLHF and AReaL offer such
# modes); **partial rollouts** over-provision requests and carry unfinished responses to the next
# iteration (Kimi k1.5; APRIL measured the rollout-throughput gains printed in this section,
# `rl.PARTIAL_ROLLOUT_GAIN_MEAN` and `rl.PARTIAL_ROLLOUT_GAIN_MAX`). The model
# removes the tail for partial rollouts up to the best of those gains (`rl.generation_time`);
# removing the whole tail is a bound no measurement reached. The times and
# costs in the table are the model's own: the bill multiplies each by the same factor (the first
# lines of this page, `rl.billed_iteration_s`), so their ratios are the ones it bills.

# %%
# the scenario's own rollout GPUs where it separates them, else half the RL job's
half = p["rl_rollout_gpus"] or max(
    p["rl_rollout_tp"], (p["rl_gpus"] // 2) // p["rl_rollout_tp"] * p["rl_rollout_tp"])
coloc = dict(rl_rollout_gpus=0, rl_async=False)  # each row sets every key it compares
modes = rl.scenario_variants(p, {
    "colocated, synchronous": dict(coloc, rl_partial_rollouts=False),
    "colocated, partial rollouts": dict(coloc, rl_partial_rollouts=True),
    f"separate ({half} rollout GPUs), synchronous": dict(
        rl_rollout_gpus=half, rl_async=False, rl_partial_rollouts=False),
    f"separate ({half} rollout GPUs), asynchronous": dict(
        rl_rollout_gpus=half, rl_async=True, rl_partial_rollouts=False)}, price)
plots.table(modes.drop(columns="generation_time_share"),
            {"wall_s": "{:,.0f}", "usd_per_iteration": "${:,.2f}", "tail_share": "{:.1%}",
             "idle_share": "{:.1%}"}, words=plots.COLUMN_WORDS)

# %% [markdown]
# Separating rollout and training GPUs only pays when the two phases can overlap: a synchronous
# split leaves each side idle while the other works. Asynchrony recovers that idle time at the
# price of off-policy samples; partial rollouts attack the tail directly. How much of the tail
# they really recover, for APRIL's own set-up:

# %%
# NBVAL_CHECK_OUTPUT
april = {k: v for k, v in rl.PUBLISHED_SHARES[-1]["setup"].items() if k not in ("policy",
                                                                             "accelerator")}
sync_a = rl.rl_iteration("qwen3-4b", "H100-SXM", **april)
part_a = rl.rl_iteration("qwen3-4b", "H100-SXM", partial_rollouts=True, **april)
flat_a = rl.rl_iteration("qwen3-4b", "H100-SXM",  # every response at the mean: no tail
                         **{**april, "response_tokens_max": april["response_tokens"]})
gain, bound = (sync_a.generation_wall_s / x.generation_wall_s - 1 for x in (part_a, flat_a))
print(f"APRIL set-up: rollout {sync_a.generation_wall_s:.0f} s synchronous, "
      f"{part_a.generation_wall_s:.0f} s with partial rollouts as billed (+{gain:.0%} "
      f"throughput), {flat_a.generation_wall_s:.0f} s with the whole tail removed (+{bound:.0%})")
print(f"APRIL measured: +{rl.PARTIAL_ROLLOUT_GAIN_MEAN:.1%} on average (arXiv:2509.18521v3), "
      f"at most +{rl.PARTIAL_ROLLOUT_GAIN_MAX:.0%} (v1): removing the whole tail would be "
      f"{bound / rl.PARTIAL_ROLLOUT_GAIN_MAX:.1f}x the best measured gain")

# %% [markdown]
# Removing the whole tail is a loose bound: buffered partial responses still have to be decoded in
# a later iteration, at the engine's batch, and over-provisioned requests compete for KV-cache
# memory, so measured gains are a fraction of the idle time the tail causes. The bill takes the
# best gain measured; APRIL's average (printed above) is what a set-up like theirs achieved, so
# read a partial-rollout RL line as optimistic for a set-up that gains less.
#
# ## 12. Post-training against pre-training
#
# One run is `rl_iterations` iterations; a campaign is `rl_runs` runs (ablations, reward and
# data experiments, reruns). The bill (notebook 00) carries it as its *RL post-training* line
# only when the scenario describes a campaign (`rl_iterations`, `rl_runs` or `ledger_rl: true`;
# `llmcost.build_ledger(p).line("post.rl")` then calls the same `rl.scenario_campaign`); otherwise
# the campaign here is an illustration of the notebooks' defaults. The first line below says which
# holds for this scenario. In the bill the campaign's GPU-hours come out of the *exploratory
# and failed runs* line, whose sourced multiplier (Cottier et al. 2024: the compute beyond the
# final run, experiments, failed attempts, evaluation and fine-tuning together) already counts
# them: a campaign adds to the bill's total only where it exceeds that line (notebook 00 and
# `llmcost estimate` say how much it moved). Against the pre-training compute of the same model
# (notebook 01):

# %%
camp = rl.scenario_campaign(p, price)
print("in the bill: notebook 00's RL post-training line is this campaign" if rl_campaign_given(p)
      else "NOT in the bill: the scenario describes no RL campaign (no rl_iterations, rl_runs or "
      "ledger_rl: true), so notebook 00's RL line is $0, 'not given'; this is an illustration")
run = llmcost.training_run(spec, gpu, p["train_tokens"], p["mfu"], p["n_gpus"], price,
                           p["seq_len"], p["dtype"])
plots.table(camp.reset_index(), {"gpu_hours": "{:,.0f}", "usd": "${:,.0f}"},
            words=plots.COLUMN_WORDS)

# %%
# NBVAL_CHECK_OUTPUT
tot = camp.loc["total"]
run_s = camp.attrs["wall_clock_days_per_run"] * 86400  # at the time the bill prices
print(f"one run: {p['rl_iterations']:,} iterations, {llmcost.fmt_duration(run_s)} on "
      f"{llmcost.fmt_gpus(p['rl_gpus'])}; campaign of {p['rl_runs']} "
      f"{'run' if p['rl_runs'] == 1 else 'runs'}: {tot['gpu_hours']:,.0f} "
      f"GPU-hours = {llmcost.fmt_usd(tot['usd'])} ({billed_note})")
if decode_note:  # an empirical factor in its generation (rl.decode_factor_words, above)
    print(f"its generation: {decode_note}")
print(f"pre-training (notebook 01): {run['gpu_hours']:,.0f} GPU-hours = "
      f"{llmcost.fmt_usd(run['compute_cost_usd'])}; the campaign is "
      f"{llmcost.fmt_percent(tot['gpu_hours'] / run['gpu_hours'])} of it")

# %%
# NBVAL_CHECK_OUTPUT
rl_flops = sum(iters["scenario"].flops.values()) * p["rl_iterations"] * p["rl_runs"]
x = tot["gpu_hours"] / run["gpu_hours"] / (rl_flops / run["model_flops"])
k = rl.scenario_time_factor(p)  # the bill's time factor: the GPU-hours are the model's × k
print(f"in FLOPs the campaign is {llmcost.fmt_percent(rl_flops / run['model_flops'])} of pre-training: its "
      f"GPU-hours share is {x:.1f}x its FLOPs share ({x / k:.1f}x at the model's own time"
      + (f"; {rl.time_factor_short(p)}" if k != 1 else "") + f"): it runs at {1 / x:.2f}x "
      f"pre-training's utilisation, so its GPU-hours share is the "
      f"{'larger' if x > 1 else 'smaller'}")

# %%
# the Llama 3.1 405B scenario's RL iteration: reasoning-length responses
from llmcost.bill.scenario import load_scenario
big = load_scenario(llmcost.catalog.DATA_DIR / "scenarios" / "llama-3.1-405b.yaml")
it_big = rl.scenario_iteration(big)
print(f"Llama 3.1 405B scenario (data/scenarios/llama-3.1-405b.yaml): mean response "
      f"{big['rl_response_tokens']:,}, longest {big['rl_response_tokens_max']:,} tokens on "
      f"{big['rl_gpus']} GPUs: generation {it_big.generation_time_share:.0%} of the iteration's "
      "time")

# %% [markdown]
# Post-training's share of the compute is set by the campaign (the line above prints it for this
# scenario); for GRPO and PPO its share of the GPU-hours is the larger of the two, because its
# generation runs at a fraction of pre-training's utilisation. It is hard to budget because its cost is a
# product of choices that change between runs (G, response length and its tail, the number of
# iterations and of experiments) and because its largest line, generation, is set by memory
# bandwidth and stragglers that FLOP counts do not see. Reasoning-style RL moves it up fast: with
# the Llama 3.1 405B scenario's long responses, generation takes the share of the time printed
# above.
#
# **The trainer's memory** counts the policy only: the update's plan is the fastest that holds
# the policy's training state and its longest micro-batch (the prompt and the longest response;
# the frameworks pad a micro-batch to its longest sequence), its time priced at the mean length;
# a given plan that does not hold it is refused. The reference, critic and reward models are
# taken to be offloaded or on other GPUs (notebook 03's tools size them). **Not modelled here:**
# reward-model training,
# data generation and filtering outside the loop and evaluation runs (the bill prices them as
# served tokens with this notebook's `serving_cost`: notebook 00), and failures (notebook 07).
#
# **Takeaways of Part II.** (1) Generation is a small share of an RL iteration's FLOPs and most of
# its time (this scenario's shares are printed in section 7, the published set-ups' in section 9); (2) the gap is decode's memory-boundness and the long tail, both invisible to a
# FLOP count; (3) asynchrony and partial rollouts buy back idle and tail time; (4) budget RL from
# the rollout roofline and the tail, not from 6ND.
#
# ## Exercises
#
# Work them by hand with the teaching accelerator (`Teaching-1PF`: 1 PFLOP/s dense BF16, 80 GB of
# HBM at 3 TB/s), then check them with `llmcost.inference`.
#
# 1. A dense 10B-parameter model in BF16 decodes at batch 1. How long is a step (weights only), how
#    many tokens/s is that, and at what batch would decode turn compute-bound if the KV cache were
#    free?
# 2. A model has 40 layers, 8 KV heads of dimension 128 and a BF16 cache. How many bytes does one
#    token add, how big is one 8,192-token sequence, and how many such sequences fit beside the
#    10B model's weights with nothing held back?
# 3. GRPO with G = 8, P = 500, R = 4,000, a reference model and one update per batch. What share of
#    the FLOPs is generation without prefix sharing, and with it?
#
# <details><summary>Worked answers</summary>
#
# 1. W = 10e9 × 2 B = 20 GB; 20 GB ÷ 3 TB/s = **6.67 ms** per step, **150 tokens/s**. The ridge is
#    1e15 ÷ 3e12 = 333 FLOP/B; each weight byte does 2 FLOP per sequence ÷ 2 B = 1 FLOP/B per
#    sequence, so B* = **333**. Check: `inf.decode_crossover_batch` on a 10B `ModelSpec` with
#    `Efficiency("ideal", 1, 1, 1, 1, 1)`.
# 2. 2 × 40 × 8 × 128 × 2 B = **163,840 B** per token; × 8,192 = **1.34 GB** per sequence;
#    (80 − 20) GB ÷ 1.34 GB = **44** sequences (`inf.max_batch(..., reserve_fraction=0)`).
# 3. Per sample: generation 2N·4,500, reference 2N·4,500, update 6N·4,500: **20%**. With the
#    prompt prefilled once per group the generation is 2N·(500/8 + 4,000) = 2N·4,062.5: 8,125 ÷
#    (8,125 + 9,000 + 27,000) = **18.4%**.
#
# </details>
#
# ## Headline figures

# %%
# NBVAL_CHECK_OUTPUT
from llmcost.present.report import publish_summary, summary_row

on = f"expected on an engine ({c.engine})"
rows = [summary_row("usd_per_m_output_tokens", "USD per million output tokens",
                    c.expected_usd_per_m_output, "USD",
                    f"{spec.name}, {c.tp} × {gpu.name}, {p['serve_weight_dtype']} weights, "
                    f"batch {c.batch}, {on}"),
        summary_row("usd_per_m_output_tokens_floor", "  its roofline floor", c.usd_per_m_output,
                    "USD", "no engine is faster"),
        summary_row("usd_per_m_input_tokens", "USD per million input tokens",
                    c.expected_usd_per_m_input, "USD", f"priced at prefill time, {on}"),
        summary_row("usd_per_m_input_tokens_floor", "  its roofline floor", c.usd_per_m_input,
                    "USD", "no engine is faster")]

# %%
rows += [summary_row("tpot_s", "time per output token", c.expected_tpot_s, "s",
                     f"batch {c.batch}, {c.live_batch / c.batch:.0%} busy, {on}"),
         summary_row("tpot_s_floor", "  its roofline floor", c.tpot_s, "s",
                     "no engine is faster"),
         summary_row("ttft_s", "time to first token", c.expected_ttft_s, "s",
                     f"{P}-token prompt, alone, {on}"),
         summary_row("ttft_s_floor", "  its roofline floor", c.ttft_s, "s",
                     "no engine is faster")]

# %%
# NBVAL_CHECK_OUTPUT
it, billed, total = iters["scenario"], rl_campaign_given(p), camp.loc["total"]
tag = "" if billed else " (illustrative)"  # no RL campaign in the scenario: an example
publish_summary("05_rl_loop", rows + [
    summary_row("rl_iteration_s", "RL iteration wall time" + tag, billed_s, "s",
                f"{it.algorithm.upper()}, {it.n_gpus} GPUs; {billed_note}"),
    summary_row("rl_generation_flops_share", "generation share of FLOPs" + tag,
                it.generation_flops_share, "", "2N/6N accounting"),
    summary_row("rl_generation_time_share", "generation share of time" + tag,
                it.generation_time_share, "", "tail included"),
    summary_row("rl_campaign_gpu_hours", "RL campaign GPU-hours" + tag, float(total["gpu_hours"]),
                "GPU-h", f"{p['rl_runs']} runs × {p['rl_iterations']:,} iterations"),
    summary_row("rl_campaign_usd", "RL campaign cost" + tag,
                float(total["usd"]), "USD", f"${price:.2f} per GPU-hour; " + (
                    "the bill's RL line" if billed else "not in the bill: no RL campaign given"))])

# %% [markdown]
# ## Explore
#
# Change the algorithm, G, the mean response length and its tail, the rollout GPUs, asynchrony and
# the accelerator; the per-iteration ledger follows. (In a report the widgets are off; run the
# notebook in Jupyter to use them.)

# %%
if interactive:
    from llmcost.present.widgets import rl_explorer

    display(rl_explorer(spec.name, gpu, p, price))

# %% [markdown]
# [← 00 · Index](00_index.ipynb) · previous: [04b · How long does a training step take, and which plan is fastest?](04b_step_time.ipynb) · next: [06 · Train bigger or train longer?](06_chinchilla.ipynb)
