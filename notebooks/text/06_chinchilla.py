# Text twin of notebooks/06_chinchilla.ipynb, written by `llmcost twins` (jupytext percent format).
# Edit the notebook, not this file; the twin exists so that a change reads as a diff.

# %% [markdown]
# # 06 · Train bigger or train longer?
#
# [← 00 · Index](00_index.ipynb) · previous: [05 · What does a generated token cost, and why is RL post-training hard to budget?](05_rl_loop.ipynb) · next: [07 · What does it cost when training doesn't finish?](07_checkpoints.ipynb)

# %% tags=["parameters"]
model: str = "llama-2-70b"  # catalogue model name (llmcost.list_models())
train_tokens: float = 2.0e12  # pre-training tokens
seq_len: int = 4096  # pre-training sequence length in tokens (attention FLOPs of the MFU basis)
accelerator: str = "H100-SXM"  # catalogue accelerator name (llmcost.list_accelerators())
mfu: float = 0.4  # steady-state model FLOPs utilisation in (0, 1]
mfu_band: str = None  # what a range on mfu is, set by a report: None, the scenario's own; 'predicted', the step-time model's band; 'pilot', the pilots' band
dtype: str = "bf16"  # training compute precision: bf16 or fp8
price_usd_per_gpu_hour: float = 3.99  # USD per GPU-hour; None: the catalogue median for `pricing`
pricing: str = "on_demand"  # on_demand, reserved, spot or owned
ledger_owned_usd_per_gpu: float = None  # purchase price of one accelerator (pricing: owned)
ledger_pue: float = None  # data-centre PUE
ledger_electricity_usd_per_kwh: float = None  # electricity price (owned hardware)
scaling_fit: str = "besiroglu2024"  # loss fit (llmcost.scaling.LOSS_FITS)
scaling_unique_tokens: float = None  # unique tokens available; None: unlimited fresh data
inference_tokens_lifetime: float = 1.0e13  # tokens served over the model's lifetime
inference_prompt_tokens: int = 1000  # input tokens per request (as notebook 05)
inference_output_tokens: int = 250  # output tokens per request (as notebook 05)
serve_weight_dtype: str = "bf16"  # serving weight precision: bf16, fp16, fp8, int8, int4, nvfp4, mxfp4 (FP4: Blackwell's FP4 tensor cores, weights only elsewhere)
serve_kv_dtype: str = "bf16"  # KV-cache precision: bf16, fp16, fp8
serve_tp: int = 0  # GPUs per serving replica; 0: the cheapest per token
serve_batch: int = 0  # sequences per replica; 0: the largest that fits in HBM
serve_occupancy: float = 0.9  # mean busy share of the batch slots (continuous batching)
serve_max_tpot_s: float = None  # latency target, s per output token; None: none
interactive: bool = True  # widgets on (reading) or off (report runs)

# %%
import numpy as np
import pandas as pd

import llmcost
from llmcost import plots
from llmcost import scaling as sc
from llmcost.present.report import publish_summary, summary_row

p = llmcost.notebook_parameters(globals())  # every name of the parameters cell, validated

# %%
spec, gpu, fit = llmcost.load_model(p["model"]), llmcost.load_accelerator(p["accelerator"]), sc.get_fit(p["scaling_fit"])
price, price_source = llmcost.scenario_price(p)  # given, or the catalogue's for `pricing`
n_run = spec.n_active_params if spec.is_moe else spec.n_params  # MoE: placed by active parameters
c_run = 6 * n_run * p["train_tokens"]

# %%
from IPython.display import Markdown

from llmcost.present import answers

n_opt, d_opt = sc.compute_optimal(c_run, fit)   # derived in sections 1-3
display(Markdown(answers.scaling(spec.name, n_run, p["train_tokens"], fit.name, n_opt, d_opt,
                                 is_moe=spec.is_moe, served_tokens=p["inference_tokens_lifetime"],
                                 compute_overhead=sc.run_efficiency(n_run, p["train_tokens"],
                                                                    fit)["compute_overhead"])))

# %% [markdown]
# A compute budget buys FLOPs, and FLOPs can go into a bigger model or into more training tokens:
# C = 6·N·D. Which split gives the best model? For a model that is trained once and never used,
# the answer is Chinchilla's: grow N and D together, about 20 tokens per parameter. A model that
# will serve trillions of tokens is another matter, because every served token costs a forward
# pass through all N parameters: a smaller model trained longer can reach the same quality and
# cost less over its lifetime. Training and serving are one ledger, and this notebook prices both.

# %% [markdown]
# **You will be able to**
# 1. derive the compute-optimal N*(C) and D*(C) from a parametric loss fit, and say what "N" means
#    in the 20-tokens-per-parameter rule;
# 2. explain why the printed Chinchilla constants give ~93 tokens per parameter and the Epoch AI
#    replication ~18, and put an honest uncertainty band on the optimum;
# 3. place real models (GPT-3, Chinchilla, Llama 2 and 3, DeepSeek-V3, ...) against the frontier;
# 4. find the inference-adjusted optimum for a lifetime demand, in FLOPs and in dollars;
# 5. say when the fits stop applying (repeated data, MoE, domain data, extrapolation).
#
# **Conventions.** N = **total** parameters, embeddings included (Chinchilla's count; Kaplan et al.
# 2020 use non-embedding parameters). Training compute C = 6·N·D (2 forward + 4 backward FLOPs per
# parameter per token); a served token costs 2·N FLOPs in the FLOP version, and its measured-style
# price from the serving model (notebook 05) in the dollar version. Losses are nats per token on
# each fit's own data, so a loss value means something only within one fit.

# %%
print(f"{spec.name}: {llmcost.fmt_count(spec.n_params)} parameters"
      f"{f' ({llmcost.fmt_count(n_run)} active, MoE: outside the fits)' if spec.is_moe else ''}, "
      f"{llmcost.fmt_count(p['train_tokens'])} tokens -> C = 6ND = {c_run:.3g} FLOPs; fit {fit.name}")

# %% [markdown]
# ## 1. What compute-optimal means
#
# Hoffmann et al. 2022 (arXiv:2203.15556, §3.3, "approach 3") fit the final loss of over 400 runs
# (70M to 16B parameters) with
#
# $$L(N, D) = E + \frac{A}{N^{\alpha}} + \frac{B}{D^{\beta}}$$

# %% [markdown]
# E is the loss of a perfect model (the entropy of text); the other two terms are what a finite
# model and finite data leave on the table. At a fixed budget C = 6ND, substitute D = C/(6N) and
# set dL/dN = 0:
#
# $$-\alpha\frac{A}{N^{\alpha+1}} + \beta\frac{B}{D^{\beta}}\cdot\frac{1}{N} = 0
# \quad\Longrightarrow\quad \alpha\frac{A}{N^{\alpha}} = \beta\frac{B}{D^{\beta}}$$
#
# and solving with ND = C/6 gives the closed form (their §3.3, Eq. 4):
#
# $$N^*(C) = G\left(\frac{C}{6}\right)^{a},\quad D^*(C) = G^{-1}\left(\frac{C}{6}\right)^{b},\quad
# G = \left(\frac{\alpha A}{\beta B}\right)^{\frac{1}{\alpha+\beta}},\quad a = \frac{\beta}{\alpha+\beta},\ b = \frac{\alpha}{\alpha+\beta}.$$
#
# When α ≈ β, a ≈ b ≈ ½: **parameters and tokens grow together**, and D*/N* barely changes with
# C. Chinchilla itself (70B parameters on 1.4T tokens, Gopher's budget of 5.76e23 FLOPs) is the
# origin of the rule of thumb of **20 tokens per parameter**, with N the total parameter count,
# embeddings included. What do the published fits say at that budget?

# %%
# NBVAL_CHECK_OUTPUT
C_GOPHER = 5.76e23  # Hoffmann et al. 2022, Fig. 2 caption and Table 3: Gopher's and Chinchilla's budget
rows = []
for name in ("hoffmann2022", "hoffmann2022_tex", "besiroglu2024"):
    n, d = sc.compute_optimal(C_GOPHER, name)
    rows.append({"fit": name, "N*": llmcost.fmt_count(n), "D*": llmcost.fmt_count(d),
                 "D*/N*": f"{d / n:.1f}", "a": f"{sc.LOSS_FITS[name].a:.3f}"})
    print(f"{name:>16}: N* = {n:.3g}, D* = {d:.3g}, {d / n:.1f} tokens per parameter")
plots.table(pd.DataFrame(rows))

# %% [markdown]
# **Why 92.6 and not 20?** The printed approach-3 constants (E 1.69, A 406.4, B 410.7, α 0.34,
# β 0.28) put β well below α, so a = 0.45 and the optimum drifts towards data: ~93 tokens per
# parameter at Chinchilla's budget, which contradicts Hoffmann's own approaches 1 and 2 and the
# 70B/1.4T choice itself. Besiroglu, Erdil, Barnett and You (Epoch AI, 2024, arXiv:2404.10102)
# reconstructed the data from Hoffmann's Fig. 4, refit the same form and found that the original
# optimizer had stopped before converging (a poor loss scale) and that the printed constants are
# rounded (the TeX source has α 0.33917, β 0.28491: still 59 tokens per parameter, and the 40B
# N* of Hoffmann's Fig. 4 caption, printed above). Their refit,
# E 1.8172, A 482.01, B 2085.43, α 0.3478, β 0.3658, fits the data better and gives **18.4** tokens
# per parameter, a = 0.513, in line with approaches 1–2. This workbook uses their fit by default.
#
# The older Kaplan et al. 2020 law uses another form (their Eq. 1.5, non-embedding N, WebText2) and
# allocates compute mostly to size (N ∝ C^0.73). Its losses are on another scale, so the fair
# comparison is by allocation exponents:

# %%
plots.table(sc.allocation_exponents(), {"a": "{:.3f}", "b": "{:.3f}"})

# %% [markdown]
# Kaplan's 0.73 came from runs whose learning-rate schedule was not matched to their token count
# (Hoffmann et al. 2022 §2) and from counting non-embedding parameters at small scale (Pearce and
# Song 2024, *Reconciling Kaplan and Chinchilla Scaling Laws*, arXiv:2406.12907); Chinchilla's runs
# set the cosine schedule to each run's length. DeepSeek LLM (2024) fits the same trade in FLOPs per token (M, attention included) and
# lands between the two, at 0.52.
#
# > **Takeaway.** At a fixed budget, grow parameters and tokens together: about 20 tokens per
# > (total) parameter under the corrected fit. The printed Chinchilla constants are not the
# > Chinchilla rule; check which constants a calculator uses.

# %% [markdown]
# ## 2. IsoFLOP curves: too small and too big both lose
#
# Fix C and vary N (so D = C/6N): the loss traces a valley (Hoffmann et al.'s approach 2, Fig. 3).
# Left of the minimum the model is too small for its data; right of it, too big for its tokens.

# %%
budgets = [1e21, 1e22, 1e23, C_GOPHER, 1e25]
n_axis = np.geomspace(1e8, 3e12, 300)
curves = {f"{c:.2g}": sc.isoflop_curve(c, n_axis, fit) for c in budgets}
optima = {f"{c:.2g}": (sc.compute_optimal(c, fit)[0], sc.loss(*sc.compute_optimal(c, fit), fit))
          for c in budgets}
ax = plots.isoflop_curves(n_axis, curves, optima, fit_name=fit.name)
ax.set_ylim(fit.E, fit.E + 1.3);

# %% [markdown]
# The valley is flat near its bottom: a model 2× off the optimum loses little, which is why the
# trade-off in the next sections has room to move. In the (N, D) plane, iso-loss contours and the
# isoFLOP lines (dotted) meet tangentially on the compute-optimal frontier. For a **target loss**
# ℓ the cheapest run sits where the reducible loss ℓ − E splits β : α between the model and data
# terms:
#
# $$\frac{A}{N^{\alpha}} = \frac{\beta}{\alpha+\beta}(\ell - E),\qquad \frac{B}{D^{\beta}} = \frac{\alpha}{\alpha+\beta}(\ell - E).$$

# %%
n_g, d_g = np.geomspace(1e8, 1e13, 160), np.geomspace(1e9, 1e15, 160)
grid = sc.loss(n_g[None, :], d_g[:, None], fit)
c_line = np.geomspace(1e19, 1e28, 50)
ax = plots.loss_contours(n_g, d_g, grid, sc.compute_optimal(c_line, fit), budgets=[1e21, 1e23, 1e25],
                         fit_name=fit.name)

# %% [markdown]
# > **Takeaway.** The loss valley at fixed compute is shallow, and the compute-optimal frontier
# > is the line through the cheapest point of every iso-loss contour.
#
# ## 3. How sure is the optimum?
#
# Besiroglu et al. publish standard errors (Table 1: A 482 ± 125, B 2085 ± 1293; α and β
# rounded there to ± 0.02, their notebook, epoch-research/analyzing-chinchilla
# `data_analysis.ipynb`, prints α 0.348 ± 0.015, β 0.366 ± 0.021). Drawn independently they would say almost nothing, but the estimates are not
# independent: a larger A with a larger α (and B with β) predicts nearly the same losses on the
# fitted runs, so the errors cancel in N* and D*. Their notebook computes the joint form, the
# covariance of a 4,000-resample bootstrap, without printing it; the workbook recomputed it with
# their method on their published data (`llmcost.scaling.BESIROGLU_BOOTSTRAP_COV`; it reproduces
# their standard errors, correlations A–α 0.999 and B–β 0.999). The 95% bands:

# %%
# NBVAL_CHECK_OUTPUT
band_c = [1e21, C_GOPHER, c_run, 1e26]
band = sc.compute_optimal_band(band_c)
loose = sc.compute_optimal_band(band_c, correlated=False)
for c, r in band.iterrows():
    print(f"C = {c:.3g}: N* {r['n_params_q2.5']:.3g}-{r['n_params_q97.5']:.3g}, tokens/param "
          f"{r['tokens_per_param_q2.5']:.1f}-{r['tokens_per_param_q97.5']:.1f} "
          f"(median {r['tokens_per_param_q50']:.1f})")
r = loose.loc[C_GOPHER]
print(f"independent marginals at {C_GOPHER:.3g} (wrong): tokens/param "
      f"{r['tokens_per_param_q2.5']:.2f}-{r['tokens_per_param_q97.5']:.0f}")

# %% [markdown]
# The joint band is still wide (roughly 8 to 42 tokens per parameter at Chinchilla's budget): the
# fit rests on a few hundred runs read off a figure, and the bootstrap covers only the
# statistical error, not the choice of functional form, data or tokenizer. Sampling the marginal
# errors independently gives a band from well under one token per parameter to over a thousand,
# which is not an uncertainty but an artefact of dropping the correlations. The band here is a
# normal approximation in the fit's own space (log A, log B, log E, α, β), centred on the
# published maximum-likelihood estimates (median 18.4 tokens per parameter at Chinchilla's
# budget) with the spread of bootstrap refits that use the Huber loss, whose own point estimate
# sits a little lower (about 17.9 tokens per parameter); Epoch's own notebook builds its intervals
# the same way. The two centres differ by about 3%, small beside the band's factor-of-two width;
# the band is not claimed to err on either side.
#
# > **Takeaway.** "20 tokens per parameter" is uncertain by a factor of about two either way;
# > quote the joint band, never one built from independent standard errors.

# %% [markdown]
# ## 4. Real models on the frontier
#
# Where do published models sit? The catalogue holds their parameters and training tokens (each
# row with its source). Dense models are placed by total parameters; MoE models (DeepSeek-V3,
# diamonds) by **active** parameters, which set their FLOPs, but the fits were made on dense
# models and do not describe them.

# %%
models = sc.frontier_models()
ax = plots.models_on_frontier(models, sc.compute_optimal(c_line, fit),
                              mark=(n_run, p["train_tokens"], f"this scenario: {spec.name}"),
                              fit_name=fit.name)
ax.set_xlim(5e7, 2e12)
ax.set_ylim(1e10, 1e14);

# %%
named = ["gpt-3-175b", "gopher-280b", "chinchilla-70b", "llama-1-65b", "llama-2-70b",
         "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "deepseek-v3", "olmo2-7b"]
view = models.set_index("name").loc[[m for m in named if m in set(models.name)]]
view = view.assign(optimal_tokens_per_param=sc.tokens_per_parameter(view.compute_flops, fit))
plots.table(view[["n_params", "n_active_params", "train_tokens", "tokens_per_param",
                  "optimal_tokens_per_param", "compute_flops", "moe"]],
            {"n_params": "{:.3g}", "n_active_params": "{:.3g}", "train_tokens": "{:.3g}",
             "tokens_per_param": "{:,.1f}", "optimal_tokens_per_param": "{:.1f}",
             "compute_flops": "{:.2e}"}, index=True, words={
                 "n_params": "parameters", "n_active_params": "active parameters",
                 "train_tokens": "training tokens", "tokens_per_param": "tokens per parameter",
                 "optimal_tokens_per_param": "compute-optimal tokens per parameter (this fit)",
                 "compute_flops": "training compute (FLOPs)", "moe": "MoE"})

# %% [markdown]
# Before Chinchilla, large models were trained on ~300B tokens whatever their size (GPT-3 at 1.7
# tokens per parameter, Gopher at 1.1). Since LLaMA (2023), open models are trained far past the
# compute-optimal point: Llama 3.1 8B saw ~1,900 tokens per parameter, a hundred times the
# Chinchilla ratio. That is not a mistake; the next sections show why. The scenario's run against
# the frontier:

# %%
# NBVAL_CHECK_OUTPUT
eff = sc.run_efficiency(n_run, p["train_tokens"], fit)
print(f"{spec.name}: {eff['tokens_per_param']:.1f} tokens/param vs compute-optimal "
      f"{eff['optimal_tokens_per_param']:.1f} at C = {eff['compute_flops']:.3g} FLOPs")
print(f"compute-optimal at that budget: N* = {eff['optimal_n_params']:.3g}, D* = "
      f"{eff['optimal_tokens']:.3g}, loss {eff['optimal_loss']:.4f} vs the run's {eff['loss']:.4f}")
print(f"reaching the run's loss compute-optimally takes {eff['flops_for_same_loss']:.3g} FLOPs: "
      f"the run's allocation costs {eff['compute_overhead']:.1%} extra training compute")

# %% [markdown]
# > **Takeaway.** Modern open models sit one to two orders of magnitude above 20 tokens per
# > parameter. Training past the optimum costs some extra training compute for the same loss;
# > what it buys is a smaller model to serve.
#
# ## 5. When data runs out: repeated tokens
#
# The fits assume every token is fresh. A domain model (code, law, a language with little text)
# may have a fixed corpus of U unique tokens. Muennighoff et al. 2023 (*Scaling Data-Constrained
# Language Models*, arXiv:2305.16264, §3.1) replace D by an effective count: with R = D/U − 1
# repetitions,
#
# $$D' = U + U R^*_D\left(1 - e^{-R/R^*_D}\right),\qquad R^*_D \approx 15.4,$$
#
# and similarly discount parameters beyond the compute-optimal size for U (R*_N ≈ 5.3). Four
# epochs are worth nearly four fresh ones; forty are worth about fifteen; the ceiling is
# U·(1 + R*_D) ≈ 16 U.

# %%
# NBVAL_CHECK_OUTPUT
for epochs in (1, 2, 4, 16, 40, 100):
    eff_d = sc.effective_tokens(epochs * 1e11, 1e11)
    print(f"{epochs:>3} {'epoch ' if epochs == 1 else 'epochs'} over 100B unique tokens: worth {eff_d / 1e9:,.0f}B fresh tokens "
          f"({eff_d / (epochs * 1e11):.0%} of the tokens seen)")

# %%
# NBVAL_CHECK_OUTPUT
# None: an illustrative domain corpus, 100B unique tokens or 1/20 of the run's, so that it
# binds (sc.illustrative_unique_tokens)
unique = p["scaling_unique_tokens"] or sc.illustrative_unique_tokens(p["train_tokens"])
print(f"{'scenario corpus' if p['scaling_unique_tokens'] else 'illustration'}: {unique:.3g} unique "
      "tokens (Muennighoff et al.'s own fit, losses on C4)")
for share in (0.01, 0.1, 1.0):
    dc = sc.data_constrained_optimum(share * c_run, unique)
    print(f"C = {share * c_run:.3g}: best N = {dc['n_params']:.3g} for {dc['epochs']:.1f} epochs, loss "
          f"{dc['loss']:.4f}; fresh data: N = {dc['unconstrained_n_params']:.3g}, loss "
          f"{dc['unconstrained_loss']:.4f}")

# %% [markdown]
# Repeating is better than refusing to: with the same corpus and the largest budget above, a run
# that sees each token once must put the whole budget into parameters (N = C/(6U), the numerical
# optimum under the constraint D ≤ U):

# %%
# NBVAL_CHECK_OUTPUT
mu = sc.LOSS_FITS["muennighoff2023"]
n_once, d_once = sc.compute_optimal_numerical(c_run, mu, max_tokens=unique)
print(f"one epoch only: N = {n_once:.3g} on {d_once:.3g} tokens, loss "
      f"{sc.data_constrained_loss(n_once, d_once, unique, mu):.4f} (excess parameters discounted); "
      f"repeating: loss {dc['loss']:.4f} ({dc['epochs']:.1f} epochs)")

# %%
# NBVAL_CHECK_OUTPUT
small = sc.data_constrained_optimum(0.01 * c_run, unique)  # the smallest budget above
if small["epochs"] <= 1:  # the corpus is not seen twice: nothing is repeated at this budget
    print(f"at {small['epochs']:.2f} epochs the corpus does not bind: the best model is the "
          f"fresh-data one, {small['unconstrained_n_params']:.3g} parameters")
else:
    print(f"at {small['epochs']:.1f} epochs the best model is {small['n_params']:.3g} parameters "
          f"against {small['unconstrained_n_params']:.3g} on fresh data "
          f"({1 - small['n_params'] / small['unconstrained_n_params']:.0%} smaller), and the loss "
          f"{small['loss'] - small['unconstrained_loss']:.4f} worse")

# %% [markdown]
# While a budget needs only a few epochs, the data-constrained optimum is close to the
# fresh-data one (the smallest budget, printed above). As the budget outgrows the corpus, the best run repeats it more and more (Muennighoff et al.
# find that epochs should grow faster than parameters, because parameters beyond the
# compute-optimal size for the unique data are discounted too, R*_N = 5.3), and the gap to what
# fresh data would give widens: each tenfold of compute buys less. Muennighoff's losses are on C4
# with their own refit, so compare them only with each other.
#
# > **Takeaway.** Up to about four epochs, repeated data is nearly as good as new; beyond ~16 it is
# > worth little, and a fixed corpus caps what more compute can buy.

# %% [markdown]
# ## 6. The inference-adjusted optimum
#
# Sardana, Portes, Doubov and Frankle 2024 (*Beyond Chinchilla-Optimal*, arXiv:2401.00448, ICML)
# ask a different question: for a target loss ℓ and a lifetime demand of D_inf served tokens,
# which (N, D_tr) minimises **lifetime** FLOPs?
#
# $$\min_{N, D_{tr}}\; 6 N D_{tr} + 2 N D_{inf}\quad\text{subject to}\quad L(N, D_{tr}) = \ell$$
#
# On the iso-loss contour D_tr(N) = (B/(ℓ − E − A/N^α))^{1/β}, so it is a one-dimensional search over
# N between the smallest model that can reach ℓ and the Chinchilla-optimal one (more demand never
# makes the best model larger). With D_inf = 0 it is the Chinchilla point. Their Fig. 1: a lab
# plans a Chinchilla-optimal 13B model and expects 2T tokens of demand; a 7B of equal loss
# trained longer "can reduce their total compute by 1.7 × 10²² FLOPs (17%)". How much depends on
# the constants:

# %%
# NBVAL_CHECK_OUTPUT
for name in ("sardana2024", "hoffmann2022_tex", "hoffmann2022", "besiroglu2024"):
    r = sc.replace_with_smaller(13e9, 7e9, 2e12, name)
    print(f"{name:>16}: 13B optimum on {r['large_tokens']:.3g} tokens, loss {r['loss']:.4f}; 7B needs "
          f"{r['small_tokens']:.3g}; saves {r['saving_flops']:.3g} FLOPs ({r['saving_fraction']:.1%})")

# %% [markdown]
# With α = 0.336, β = 0.283 (Chinchilla's coefficients as used by Sardana et al.: the defaults of
# their code, github:nikhilsardana/beyond-chinchilla README) the saving is 17.4%, as published; with the TeX constants 16.3%; with the printed rounded ones only 9.1%, because they
# make the 13B's own optimum already data-heavy (992B tokens), so the 7B has less to gain. With
# the Epoch fit the 13B's optimum is only 260B tokens and the same move saves 28%. A headline
# saving is only as good as the fit behind it: record the constants with the number.
#
# For the scenario: the target is the loss the scenario's run reaches under the chosen fit, and
# the demand sweeps from none to far beyond the scenario's:

# %%
target = float(sc.loss(n_run, p["train_tokens"], fit))
demand = np.geomspace(1e9, 1e16, 60)
sweep = sc.inference_adjusted_optimum(target, demand, fit)
ax = plots.optimum_vs_demand(demand, sweep, fit_limit=sc.FIT_MAX_TOKENS_PER_PARAM,
                             title=f"Same loss as the scenario ({target:.3f}, {fit.name}): more demand, smaller model")
ax.axvline(p["inference_tokens_lifetime"], color="C3", ls="--", lw=1);

# %%
# NBVAL_CHECK_OUTPUT
opt = sc.inference_adjusted_optimum(target, p["inference_tokens_lifetime"], fit)
print(f"target loss {target:.4f} ({fit.name}); lifetime demand {p['inference_tokens_lifetime']:.3g} tokens")
print(f"Chinchilla-optimal for that loss: N = {opt.chinchilla_n_params:.3g}, D = {opt.chinchilla_train_tokens:.3g}")
print(f"inference-adjusted (FLOPs): N = {opt.n_params:.3g}, D = {opt.train_tokens:.3g} = "
      f"{opt.tokens_per_param:,.0f} tokens/param ({opt.overtraining_ratio:.1f}x Chinchilla's ratio)")
if p["inference_tokens_lifetime"] == 0:
    print("no lifetime demand: the inference-adjusted optimum is the Chinchilla-optimal model (saves 0%)")
else:
    print(f"lifetime FLOPs {opt.total_cost:.3g} vs {opt.chinchilla_total_cost:.3g}: "
          f"saves {opt.saving_fraction:.1%}")

# %% [markdown]
# Optima far to the right of the shaded band (more than ~340 tokens per parameter, the most
# Hoffmann's runs reached) are extrapolations of the fit. Sardana et al. trained 47 models up to
# 10,000 tokens per parameter and found that quality keeps improving there, but that fits made at
# ordinary ratios overstate the value of extra tokens at extreme ones.
#
# > **Takeaway.** The more a model will be used, the smaller and longer-trained it should be;
# > at the scenario's lifetime demand the best model is over-trained relative to Chinchilla by
# > the factor printed above.

# %% [markdown]
# ## 7. Lifetime cost in dollars: training plus serving
#
# FLOPs are not dollars. A training FLOP costs the GPU price divided by (peak × MFU)
# (`llmcost.compute`). A served token does not cost 2·N FLOPs at training MFU: decode is
# memory-bound, every step reads all the weights once for the whole batch, and prefill runs at a
# different efficiency. The serving price per token comes from the roofline serving model of
# notebook 05 (`llmcost.inference.serving_cost`) for the scenario's model on the scenario's GPU
# and price, with the scenario's serving set-up (the same `serve_*` keys and request shape as
# notebook 05: by default the cheapest tensor-parallel size and the largest batch that fits in
# HBM), then scales with N (a decode step's weight reads grow with N; prefill FLOPs too). For an
# MoE, N is its active parameter count, where the fits place it (section 1): its own serving price
# is s_ref at N_ref = that count, and a dense model of the same active size is taken to serve at
# that price, an approximation (at a large batch an MoE's decode reads every expert's weights):
#
# $$\text{cost}(N, D_{tr}) = \frac{6ND_{tr}\cdot p_{GPU}}{3600\cdot \text{peak}\cdot \text{MFU}}\cdot\frac{F}{6N} + D_{inf}\,s_{ref}\frac{N}{N_{ref}}$$

# %% [markdown]
# The factor F/6N puts training on the workbook's MFU basis (README "Conventions"): MFU counts
# the model FLOPs per token F of `llmcost.compute.model_flops_per_token`, attention over the full
# matrix at the scenario's `seq_len`, not 6N. With it, the scenario's training dollars below equal
# notebook 01's compute cost of the same run (`llmcost.scaling.train_usd_per_flop`); the factor is
# taken at the scenario's shape for every size in the table.

# %%
# NBVAL_CHECK_OUTPUT
usd_per_flop = sc.train_usd_per_flop(gpu, p["mfu"], price, p["dtype"], spec, p["seq_len"])
f_6n = sc.model_flops_per_token_ratio(spec, p["seq_len"])  # MFU basis: full-attention model FLOPs
print(f"training: ${price:.2f}/GPU-h ({price_source}), MFU {p['mfu']:.1%} on model FLOPs "
      f"(F/6N = {f_6n:.3f} at {p['seq_len']:,} tokens) -> ${usd_per_flop * 1e18:.3f} per 1e18 6ND-FLOPs")
print(f"the scenario's training: {llmcost.fmt_usd(usd_per_flop * c_run)} (notebook 01's compute line; "
      f"6ND alone would say {llmcost.fmt_usd(usd_per_flop / f_6n * c_run)})")

# %%
# NBVAL_CHECK_OUTPUT
P, R = p["inference_prompt_tokens"], p["inference_output_tokens"]
sv = dict(tp=p["serve_tp"], batch=p["serve_batch"], weight_dtypes=(p["serve_weight_dtype"],),
          kv_dtype=p["serve_kv_dtype"], occupancy=p["serve_occupancy"], max_tpot_s=p["serve_max_tpot_s"])
ref = sc.reference_serving_cost(spec, gpu, price, P, R, **sv)
# s(N), referenced at n_run: the N the fits place the model at (an MoE: its active count)
serve = sc.serving_cost_per_token(ref.usd_per_m_output, ref.usd_per_m_input, R / (P + R), n_run)
print(f"serving {spec.name} on {gpu.name} (TP {ref.tp}, batch {ref.batch}: {ref.limit}, "
      f"{ref.notes}): ${ref.usd_per_m_output:.3f}/M output, ${ref.usd_per_m_input:.3f}/M input")
ratio = serve(n_run) / (usd_per_flop * 2 * n_run)  # an MoE: 2 FLOPs per active parameter
lo, hi = llmcost.ledger.engine_gap()  # engines measured slower than this floor (notebook 05)
print(f"served token ({P} in : {R} out): ${serve(n_run) * 1e6:.3f} per M, "
      f"{ratio:.2f}x what 2N FLOPs at training MFU would cost -> at this floor price the dollar "
      f"optimum is {'larger' if ratio < 1 else 'smaller'} than the FLOP optimum; engines serve "
      f"{lo:.2f}x-{hi:.2f}x dearer ({ratio * lo:.2f}x-{ratio * hi:.2f}x): section 7 moves it")

# %% [markdown]
# The serving model's prices are a roofline upper bound on throughput, hence a lower bound on
# cost (engines measure slower than the roofline, notebook 05; section 7's end prices that gap). How well does "cost ∝ N" hold across sizes
# in the same serving model? For the Llama 3.1 family on the scenario's GPU and price, each at
# its cheapest tensor-parallel size (FP8 weights where the scenario's precision does not fit):

# %%
family, too_big = sc.serving_cost_by_size(
    ("llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b"), gpu, price, P, R,
    **{**sv, "tp": 0, "weight_dtypes": (p["serve_weight_dtype"], "fp8")})
for name in too_big:  # too big for one scale-up domain of this GPU: said, not priced
    print(f"{name}: its weights do not fit one node of {gpu.name} in "
          f"{p['serve_weight_dtype']} or fp8 (not priced)")
display(plots.table(family, {"N": "{:.3g}", "USD per M tokens": "${:.3f}",
                             "USD per M tokens per 1e9 params": "${:.4f}"}))

# %%
other = "fp8" if p["serve_weight_dtype"] != "fp8" else "bf16"  # the same sizes, other weights
alt, _ = sc.serving_cost_by_size(("llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b"), gpu,
                                 price, P, R, **{**sv, "tp": 0, "weight_dtypes": (other,)})
cp = sc.cost_per_param_by_precision(family, p["serve_weight_dtype"], alt)
for row in (r for r in cp["spreads"] if r["spread"] is not None):
    print(f"{row['weights']} weights ({', '.join(row['models'])}): the cost per token per "
          f"parameter varies by {row['spread']:.0%} from the cheapest to the dearest")
if cp["change"] is None:
    print(f"no size served in both {cp['base']} and {other} on {gpu.name}: no precision lever")
else:
    lo, hi = -max(cp["changes"]), -min(cp["changes"])  # each model's own change in cost
    print(f"the same models in {cp['other']} weights ({', '.join(cp['compared'])}) "
          f"{'cut' if cp['change'] > 0 else 'raise'} their cost per token by "
          f"{abs(cp['change']):.0%} (the median) against {cp['base']}"
          + (f" (each model's {lo:+.0%} to {hi:+.0%})" if len(cp["changes"]) > 1 else ""))

# %% [markdown]
# The lines under the table read it (`sc.cost_per_param_by_precision`): how far the cost per token
# per parameter moves within one precision, and what serving the same models in the other
# precision does to their own cost (each model against itself, never one size against another):
# one more lever the FLOP version cannot see. Now the
# same-quality choices, priced:

# %%
COST_WORDS = {"choice": "choice", "engine_gap": "engine gap", "n_params": "parameters",
        "train_tokens": "training tokens", "tokens_per_param": "tokens per parameter",
        "train_usd": "training cost (USD)", "inference_usd": "serving cost (USD)",
        "total_usd": "total cost (USD)", "vs_flop_optimum": "against the FLOP optimum"}  # the cost tables' headers
opt_usd = sc.inference_adjusted_optimum_usd(target, p["inference_tokens_lifetime"], usd_per_flop, serve, fit)
sizes = np.array([opt.chinchilla_n_params, opt_usd.n_params, opt.n_params,
                  opt.chinchilla_n_params / 4, n_run])
labels = np.array(["Chinchilla-optimal", "optimum in USD", "optimum in FLOPs", "Chinchilla N / 4",
                   f"scenario ({spec.name})"])
opts = sc.same_loss_options(target, sizes, p["inference_tokens_lifetime"], fit, usd_per_flop, serve)
opts.insert(0, "choice", labels[np.isfinite(sc.tokens_for_loss(target, sizes, fit))])
plots.table(opts.drop(columns=["train_flops", "inference_flops", "total_flops"]),
            {"n_params": "{:.3g}", "train_tokens": "{:.3g}", "tokens_per_param": "{:,.0f}",
             "train_usd": "${:,.0f}", "inference_usd": "${:,.0f}", "total_usd": "${:,.0f}"},
            words=COST_WORDS)

# %%
# NBVAL_CHECK_OUTPUT
print(f"optimum in dollars: N = {opt_usd.n_params:.3g} on {opt_usd.train_tokens:.3g} tokens "
      f"({opt_usd.tokens_per_param:,.0f} tokens/param); lifetime {llmcost.fmt_usd(opt_usd.total_cost)} = "
      f"{llmcost.fmt_usd(opt_usd.train_cost)} training + {llmcost.fmt_usd(opt_usd.inference_cost)} serving")
print(f"Chinchilla-optimal model for the same loss: {llmcost.fmt_usd(opt_usd.chinchilla_total_cost)} "
      + ("(no serving demand: it is the optimum, saves 0%)" if p["inference_tokens_lifetime"] == 0
         else f"(the optimum saves {opt_usd.saving_fraction:.1%})"))
scen = opts.iloc[-1] if opts.choice.iloc[-1].startswith("scenario") else None
if scen is not None:
    print(f"the scenario's own allocation: {llmcost.fmt_usd(scen.total_usd)} over its lifetime")
if spec.is_moe:  # s(N) is the MoE's own serving cost per active parameter, applied to every N
    print(f"MoE: every size above is served at {spec.name}'s cost per active parameter, which its "
          "expert weights make dearer than a dense model's: read the dollars as an MoE's")

# %% [markdown]
# ### Where does the dollar optimum go if serving runs slower than the roofline?
#
# The serving price above is the roofline's, a lower bound. Real engines are slower by the factors
# the published serving figures measure (`ledger.engine_gap`: the lowest and highest of notebook
# 05's validation, latency-bound small batches among them); the engine fit expects a gap of its
# own at this scenario's set-up (`sc.expected_engine_gap`: its expected price over the roofline's, input and output tokens blended as the serving price blends them). Serving at g times the roofline price weighs it g times more against training
# (`sc.optimum_across_engine_gap`):

# %%
# NBVAL_CHECK_OUTPUT
gap_lo, gap_hi = llmcost.ledger.engine_gap()
g_exp = sc.expected_engine_gap(ref, P, R)  # the engine fit, this set-up, on the blended price
gaps = sc.optimum_across_engine_gap(target, p["inference_tokens_lifetime"], usd_per_flop, serve,
                                    sorted([1.0, gap_lo, g_exp, gap_hi]), fit)
display(plots.table(gaps.drop(columns=["flop_optimum_n_params"]),
                    {"engine_gap": "{:.2f}×", "n_params": "{:.3g}", "train_tokens": "{:.3g}",
                     "tokens_per_param": "{:,.0f}", "total_usd": "${:,.0f}"}, words=COST_WORDS))
first, last, exp = (gaps[np.isclose(gaps.engine_gap, g)].iloc[0] for g in (gap_lo, gap_hi, g_exp))
print(f"engine gap {gap_lo:.2f}× to {gap_hi:.2f}× (published serving figures): the dollar optimum "
      f"moves from {first.n_params:.3g} to {last.n_params:.3g} parameters ({exp.n_params:.3g} at "
      f"{g_exp:.2f}×, the engine fit's expectation for this set-up), against the FLOP optimum's "
      f"{first.flop_optimum_n_params:.3g}: from {first.vs_flop_optimum} to {last.vs_flop_optimum} "
      "than it")

# %% [markdown]
# The dollar optimum moves away from the FLOP optimum by the ratio printed in the serving cell:
# when a served token costs less than 2·N training-priced FLOPs (large decode batches amortise the
# weight reads; the roofline price excludes idle capacity), serving weighs less against training
# than 2·N·D_inf suggests and the dollar optimum is a larger model; when it costs more, a smaller
# one. Cheaper serving (FP8, bigger batches, speculative decoding) moves the optimum back
# towards Chinchilla; expensive serving (low utilisation, tight latency targets, small batches)
# moves it further to small over-trained models.
#
# > **Takeaway.** Price the two sides separately: the FLOP version of the trade-off is a useful
# > sketch, but serving efficiency, which the training fit knows nothing about, sets where the
# > dollar optimum falls.

# %% [markdown]
# ## 8. What these fits do not cover
#
# * **Dense models trained once over their data.** The fits come from dense transformers on
#   MassiveText with one learning-rate schedule per run. MoE models change the FLOPs per parameter
#   (DeepSeek-V3 is placed by active parameters above, but no fit here describes it); distillation
#   from a larger model, curriculum and annealing stages change the loss a token buys.
# * **Data quality and domain.** A better-filtered or domain corpus shifts E, B and β; a domain
#   model with a fixed corpus needs the repeated-data correction of section 5, whose constants come
#   from C4.
# * **Extrapolation.** The fitted runs span 57M–16B parameters (Besiroglu et al.'s reconstruction
#   of Hoffmann et al.'s Fig. 4; the paper says 70M to over 16B) and up to ~340 tokens per
#   parameter; frontier models are far outside both.
# * **Loss is not quality.** The target is pre-training loss; downstream ability, post-training and
#   safety work are not in the fit.
# * **Public research figures.** The constants and prices are from papers and public price lists,
#   not any vendor's internal costs; serving costs are roofline estimates (notebook 05).

# %% [markdown]
# ## 9. Mixture of experts: how big, how many experts, how many tokens?
#
# Section 8 left MoE outside the dense fits, yet the frontier runs of this notebook's table
# (DeepSeek-V3, Kimi K2, Qwen3-30B-A3B) are MoE. Two published fits describe them, each on its own
# data and in its own units:
#
# * **Clark et al. 2022** (*Unified Scaling Laws for Routed Language Models*, arXiv:2202.01169,
#   Eq. 1, Table 3): a dense base of N parameters (the parameters a token passes through) with E
#   experts, every model on the same **130B tokens**:
#   $\log_{10} L = a\log_{10} N + b\log_{10}\hat E + c\log_{10} N\log_{10}\hat E + d$, with
#   $\hat E$ a saturating expert count between $E_{start}$ and $E_{max}$. The **effective parameter
#   count** $\bar N$ is the dense size of equal loss (their Eq. 11); since c > 0, experts help less
#   as N grows and stop helping at $N_{cutoff} = 10^{-b/c}$. Fixed D: it says nothing about tokens.

# %% [markdown]
# * **Krajewski et al. 2024** (*Scaling Laws for Fine-Grained Mixture of Experts*,
#   arXiv:2402.07871, Eq. 9, Table 1): N parameters (all experts, non-embedding), D tokens,
#   granularity G (expert width = FFN width / G), expansion rate 64:
#   $L = c + (g/G^{\gamma} + a)/N^{\alpha} + b/D^{\beta}$. Their compute counts 6 FLOPs per active
#   parameter and 14 per router parameter per token,
#   $F = (12d^2\cdot 6 + d\,E\,G\cdot 14)\,D\,n_{blocks}$ with $d = 64\,n_{blocks}$ and
#   $N = d^2(8E + 4)\,n_{blocks}$, so $N_{active} = N\cdot 12/516$ and finer experts pay in routing:
#   the best G is finite. `llmcost.laws.moe.moe_compute_optimal` minimises L over N, D and G at a
#   budget, as their §6.2 does, and reproduces their Table 2. Their dense fit (same table) gives
#   the dense model that matches: it was fitted on dense runs far smaller, and trained far longer
#   per parameter, than any such model (their App. A Table 4, printed below), so the dense side
#   of every row, and the compute multiplier with it, is an extrapolation (`dense_in_fit_range`).
#
# Each fit's loss is on its own data, so only ratios are compared across fits. A later joint law
# in (N_act, D, E) (Ludziejewski et al. 2025, arXiv:2502.05172) is not used: its constants could not
# be read from the paper itself.

# %%
from llmcost.laws import moe

fits = pd.DataFrame([{"fit": f"Clark 2022, {f.name}", "a": f.a, "b": f.b, "c": f.c, "d": f.d,
                      "E_start": f.e_start, "E_max": f.e_max, "N_cutoff": moe.routing_cutoff_params(f)}
                     for f in moe.CLARK_FITS.values()])
plots.table(fits, {"N_cutoff": "{:.3g}"})

# %%
kf = pd.DataFrame([{"fit": f.name, "a": f.a, "alpha": f.alpha, "b": f.b, "beta": f.beta, "g": f.g,
                    "gamma": f.gamma, "c": f.c} for f in (moe.KRAJEWSKI_MOE, moe.KRAJEWSKI_DENSE)])
display(plots.table(kf))
print(f"Krajewski et al.'s runs: MoE {llmcost.fmt_count(moe.KRAJEWSKI_PARAMS_RANGE[0])}-"
      f"{llmcost.fmt_count(moe.KRAJEWSKI_PARAMS_RANGE[1])} parameters, {llmcost.fmt_count(moe.KRAJEWSKI_TOKENS_RANGE[0])}-"
      f"{llmcost.fmt_count(moe.KRAJEWSKI_TOKENS_RANGE[1])} tokens, "
      f"G {moe.KRAJEWSKI_GRANULARITY_RANGE[0]:g}-{moe.KRAJEWSKI_GRANULARITY_RANGE[1]:g}; dense "
      f"{llmcost.fmt_count(moe.KRAJEWSKI_DENSE_PARAMS_RANGE[0])}-{llmcost.fmt_count(moe.KRAJEWSKI_DENSE_PARAMS_RANGE[1])} "
      f"parameters, {llmcost.fmt_count(moe.KRAJEWSKI_DENSE_TOKENS_RANGE[0])}-"
      f"{llmcost.fmt_count(moe.KRAJEWSKI_DENSE_TOKENS_RANGE[1])} tokens; Clark et al.'s: "
      f"{llmcost.fmt_count(moe.CLARK_TRAIN_TOKENS)} tokens, up to 512 experts")

# %% [markdown]
# **The compute-optimal MoE at a budget.** Krajewski et al.'s optimum, N, D and G together, at the
# scenario's budget and around it: the active and total parameters, the tokens, the granularity,
# and the dense model of equal loss (the cheapest one under their dense fit) with the compute it
# would need.

# %%
budgets_moe = sorted([1e21, 1e22, c_run, 1e24, 1e25])   # the scenario's C in its place
mo = moe.moe_compute_optimal(budgets_moe)
plots.table(mo[["compute_flops", "granularity", "active_params", "total_params", "train_tokens",
                "tokens_per_active_param", "dense_params", "dense_compute_flops", "compute_multiplier",
                "moe_in_fit_range", "dense_in_fit_range"]],
            {"compute_flops": "{:.3g}", "granularity": "{:.0f}", "active_params": "{:.3g}", "total_params": "{:.3g}",
             "train_tokens": "{:.3g}", "tokens_per_active_param": "{:.0f}", "dense_params": "{:.3g}",
             "dense_compute_flops": "{:.3g}", "compute_multiplier": "{:.1f}x"}, words={
                "compute_flops": "compute (FLOPs)", "granularity": "granularity G",
                "active_params": "active parameters", "total_params": "total parameters",
                "train_tokens": "training tokens", "tokens_per_active_param": "tokens per active",
                "dense_params": "dense parameters (same loss)", "dense_compute_flops":
                "dense compute (FLOPs)", "compute_multiplier": "dense ÷ MoE compute",
                "moe_in_fit_range": "MoE in fit range", "dense_in_fit_range": "dense in fit range"})

# %%
r = mo.iloc[budgets_moe.index(c_run)]
extra_usd = usd_per_flop * (r.dense_compute_flops - c_run)
print(f"at the scenario's budget ({c_run:.3g} FLOPs): an MoE of {llmcost.fmt_count(r.active_params)} active / "
      f"{llmcost.fmt_count(r.total_params)} total parameters (G = {r.granularity:.0f}) on {llmcost.fmt_count(r.train_tokens)} tokens "
      f"({r.tokens_per_active_param:.0f} per active parameter) matches a dense {llmcost.fmt_count(r.dense_params)}-"
      f"parameter model that needs {r.compute_multiplier:.1f}x the compute: {llmcost.fmt_usd(extra_usd)} more "
      f"at this notebook's training price (Krajewski et al.: 20x at 1e20 FLOPs, growing with the budget)")
n_bar = moe.effective_params(r.active_params, 64)
print(f"Clark et al. (S-BASE, 64 experts, 130B tokens): a {llmcost.fmt_count(r.active_params)} base is worth a "
      f"{llmcost.fmt_count(n_bar)} dense model ({n_bar / r.active_params:.2f}x); experts stop helping past "
      f"{llmcost.fmt_count(moe.routing_cutoff_params())} parameters")

# %% [markdown]
# **Published MoE runs at their own compute.** Each catalogue MoE with published tokens, at
# C = 6·N_active·D, against Krajewski et al.'s optimum at the same C (the fit is at expansion 64;
# these runs use 9-31× total over active parameters, so this places them rather than grades them).

# %%
runs_moe = moe.moe_runs_vs_optimum()
display(plots.table(runs_moe, {"total_params": "{:.3g}", "active_params": "{:.3g}", "train_tokens": "{:.3g}",
                       "expansion": "{:.1f}", "tokens_per_active_param": "{:,.0f}", "compute_flops": "{:.3g}",
                       "optimal_active_params": "{:.3g}", "optimal_train_tokens": "{:.3g}",
                       "optimal_granularity": "{:.0f}", "active_vs_optimal": "{:.2f}"}))
print(f"the published MoEs use {runs_moe.active_vs_optimal.min():.2f}-{runs_moe.active_vs_optimal.max():.2f}x the "
      f"compute-optimal active parameters and {runs_moe.tokens_per_active_param.min():,.0f}-"
      f"{runs_moe.tokens_per_active_param.max():,.0f} tokens per active parameter: over-trained, as section 10 prices")

# %%
cmp = moe.moe_fits_compared(np.geomspace(1e6, 3e12, 60), 64)
ax = plots.moe_dense_equivalent(cmp, cutoff_params=moe.routing_cutoff_params(),
                                fit_range=(moe.KRAJEWSKI_PARAMS_RANGE[0] * moe.KRAJEWSKI_ACTIVE_FRACTION,
                                           moe.KRAJEWSKI_PARAMS_RANGE[1] * moe.KRAJEWSKI_ACTIVE_FRACTION))

# %% [markdown]
# **Where the fits disagree.** Clark et al.'s benefit of routing shrinks as the base grows and is
# gone near their cutoff: at 130B tokens a trillion-parameter base gains nothing from experts.
# Krajewski et al. find the opposite trend in compute: the dense model that matches a
# compute-optimal MoE needs a growing multiple of its compute. They trace the difference to
# Clark's fixed token count, which undertrains the large models (a 1B base and a 100B base both
# see 130B tokens), and to Clark's coarse experts (G = 1). Both fits rest on runs far smaller than
# the frontier (shaded: Krajewski's, in active parameters); beyond them the curves are
# extrapolations, and the gap between them is the honest uncertainty of "how much is an MoE
# worth".
#
# > **Takeaway.** Under the fit that varies tokens and expert size, a compute-optimal MoE buys the
# > loss of a dense model that would need many times its compute (printed above); the fits
# > disagree on how that advantage changes with scale, and at frontier sizes both are
# > extrapolations from runs of a few billion parameters.

# %% [markdown]
# ## 10. Over-training: what 10× or 100× past Chinchilla buys
#
# Section 4 showed open models trained one to two orders of magnitude past 20 tokens per
# parameter. Gadre et al. 2024 (*Language models scale reliably with over-training and on
# downstream tasks*, arXiv:2403.08540, Eq. 4 and App. A) rewrite a fit with equal exponents in compute
# C = 6ND and token multiplier M = D/N:
# $L(C, M) = E + (aM^{\eta} + bM^{-\eta})\,C^{-\eta}$, $\eta = \alpha/2$, $a = A\cdot 6^{\eta}$,
# $b = B\cdot 6^{\eta}$: at a fixed M the loss follows a power law in C with the same exponent
# whatever the M (fitted on 0.011B-0.411B models, they predicted a 1.4B model on 900B tokens,
# 32× past M = 20). Their Table 6 prints the parameters of their fitting code,
# $L = E + aN^{-\eta} + b\,6^{-\eta/2}D^{-\eta}$: its η is the N and D exponent and Eq. 4's is
# half of it (`GADRE_FITS` reads it so). Reaching a loss at M instead of the optimal M* costs the
# compute factor
# $[(aM^{\eta} + bM^{-\eta})/(2\sqrt{ab})]^{1/\eta}$ (`llmcost.laws.moe.overtraining_penalty`).
# For any fit (α ≠ β too) `overtraining` does it exactly: a model of fixed N trained k× past its
# compute-optimal tokens, the loss it reaches, its FLOPs and dollars, the compute-optimal model of
# the same loss, and the lifetime demand past which the over-trained model is cheaper
# (section 6's trade-off). The example is Llama 3.1 8B, whatever the scenario: a published model
# trained far past its optimum (Meta: 15T tokens), so the table prices a real case.

# %%
small = llmcost.load_model("llama-3.1-8b")  # Meta: 15T tokens (its multiple: below)
ot = moe.overtraining(small.n_params, (1, 3, 10, 30, 100), fit)
ot["train_usd"] = ot.train_flops * usd_per_flop
plots.table(ot[["factor", "train_tokens", "tokens_per_param", "loss", "loss_gain", "train_flops", "train_usd",
                "optimal_n_params", "penalty", "break_even_inference_tokens"]],
            {"train_tokens": "{:.3g}", "tokens_per_param": "{:,.0f}", "loss": "{:.4f}", "loss_gain": "{:.4f}",
             "train_flops": "{:.3g}", "train_usd": "${:,.0f}", "optimal_n_params": "{:.3g}",
             "penalty": "{:.2f}x", "break_even_inference_tokens": "{:.3g}"}, words={
                "factor": "tokens × the optimum", "train_tokens": "training tokens",
                "tokens_per_param": "tokens per parameter", "loss": "loss",
                "loss_gain": "loss gained", "train_flops": "training FLOPs",
                "train_usd": "training cost (USD)",
                "optimal_n_params": "compute-optimal parameters (same loss)",
                "penalty": "compute penalty", "break_even_inference_tokens": "break-even served tokens"})

# %%
k_llama = small.train_tokens / ot.train_tokens[0]
print(f"{small.name} trained on {llmcost.fmt_count(small.train_tokens)} tokens: {k_llama:.0f}x its compute-optimal "
      f"{llmcost.fmt_count(ot.train_tokens[0])} tokens under {fit.name}")
for _, row in ot[ot.factor.isin([10, 100])].iterrows():
    print(f"{row.factor:.0f}x: loss {row.loss:.4f} (-{row.loss_gain:.4f}) for {row.factor:.0f}x the FLOPs "
          f"({llmcost.fmt_usd(row.train_usd)}); a compute-optimal {llmcost.fmt_count(row.optimal_n_params)} model "
          f"reaches it with {row.penalty:.2f}x fewer FLOPs, but serves each token at {row.params_ratio:.1f}x the cost; "
          f"the over-trained model is cheaper over its life past {row.break_even_inference_tokens:.3g} served tokens "
          f"(the scenario's {p['inference_tokens_lifetime']:.3g} is "
          f"{'past' if p['inference_tokens_lifetime'] > row.break_even_inference_tokens else 'short of'} it)")
g = moe.gadre_form("gadre2024_redpajama")  # their Table 6, trained on RedPajama
pen = moe.overtraining_penalty([20.0, 200.0, 2000.0], "gadre2024_redpajama")
print(f"Gadre et al.'s RedPajama fit: eta = {g['eta']:.3f}, own M* = {g['optimal_multiplier']:.2f} (below the M = 20 "
      f"they found near-optimal); reaching a loss at M = 200 / 2,000 costs {pen[1] / pen[0]:.2f}x / "
      f"{pen[2] / pen[0]:.2f}x the compute of M = 20")

# %%
ax = plots.overtraining_tradeoff(moe.overtraining(small.n_params, np.geomspace(1, 300, 16), fit),
                                 usd_per_flop=usd_per_flop)

# %% [markdown]
# The loss keeps falling with more tokens, but slowly: each 10× of tokens buys less than the last,
# while the training bill grows 10×. What pays for it is serving: the over-trained small model
# serves every token at a fraction of the cost of the compute-optimal model of the same loss, and
# past the break-even demand printed above the lifetime bill favours it. Far past ~340 tokens per
# parameter the fit is an extrapolation (Sardana et al. 2024 found fits made at ordinary ratios
# overstate what extra tokens buy there), and quantising an over-trained model loses more
# (Kumar et al. 2024, arXiv:2411.04330), so the gain in the table is an upper bound. The penalty itself depends on the fit: Gadre et
# al.'s own RedPajama fit (printed above) charges more for the same over-training than the
# Hoffmann-form fit of the table, because its optimum sits at 3-8 tokens per parameter, below the
# M = 20 its authors found near-optimal in their runs.
#
# > **Takeaway.** Over-training is a purchase of cheaper inference with training compute: worth it
# > when the lifetime demand is past the break-even, a waste of compute when it is not.

# %% [markdown]
# ## Exercises
#
# Use the **teaching accelerator** (1 PFLOP/s dense, 50% MFU, so 5·10¹⁴ useful FLOP/s) where a
# time is asked.
#
# 1. With 20 tokens per parameter and C = 6ND, what model and token count does a budget of
#    1.2·10²³ FLOPs buy, and how many teaching-accelerator hours does it take?
# 2. In Sardana et al.'s example, the Chinchilla-optimal 13B model trains on 5.76·10¹¹ tokens and a
#    7B of equal loss needs 1.24·10¹² tokens. Compute both lifetime FLOPs at 2·10¹² inference
#    tokens, and the demand at which the two cost the same.
# 3. A domain corpus has 100B unique tokens. What are 4 and 40 epochs over it worth in fresh
#    tokens under Muennighoff et al.'s R*_D = 15.4?

# %% [markdown]
# <details><summary>Worked answers</summary>
#
# 1. C = 6·N·(20N) = 120·N², so N = √(1.2·10²³/120) = √(10²¹) ≈ 3.16·10¹⁰ (31.6B parameters) and
#    D = 20N ≈ 6.3·10¹¹ tokens. Time: 1.2·10²³ / 5·10¹⁴ = 2.4·10⁸ accelerator-seconds ≈ 66,700
#    accelerator-hours.
# 2. 13B: 6·13·10⁹·5.76·10¹¹ = 4.49·10²² training + 2·13·10⁹·2·10¹² = 5.2·10²² serving = 9.69·10²².
#    7B: 6·7·10⁹·1.24·10¹² = 5.21·10²² + 2·7·10⁹·2·10¹² = 2.8·10²² = 8.01·10²². Saving 1.68·10²²
#    (17.4% on the unrounded figures). Break-even: the 7B's extra training, 5.21·10²² − 4.49·10²² = 7.2·10²¹, equals the
#    serving it saves, 2·(13 − 7)·10⁹·D_inf, so D_inf ≈ 6·10¹¹ tokens.
# 3. 4 epochs: R = 3, D′ = 100B·(1 + 15.39·(1 − e^(−3/15.39))) ≈ 373B (93% of the 400B seen).
#    40 epochs: R = 39, D′ = 100B·(1 + 15.39·(1 − e^(−39/15.39))) ≈ 1,517B (38% of 4,000B);
#    R*_D = 15.39 is Muennighoff et al.'s fitted value (§5's table uses it), 15.4 rounded.
#
# </details>

# %% [markdown]
# ## Headline figures
#
# The figures this notebook contributes to a report (`summary.json` / `summary.csv`):

# %%
b = band.loc[c_run]
moe = "; MoE: dense-model fits on active parameters, outside their data" if spec.is_moe else ""
rows = [
    summary_row("run_tokens_per_param", "tokens per parameter (scenario)", float(eff["tokens_per_param"]), "",
                "active parameters for MoE" if spec.is_moe else "total parameters"),
    summary_row("optimal_tokens_per_param", "compute-optimal tokens per parameter",
                float(eff["optimal_tokens_per_param"]), "", f"{fit.name} at the scenario's 6ND"),
    summary_row("optimal_tokens_per_param_low", "  95% band, low", float(b["tokens_per_param_q2.5"]), "",
                "Besiroglu et al. bootstrap (joint)"),
    summary_row("optimal_tokens_per_param_high", "  95% band, high", float(b["tokens_per_param_q97.5"]), "",
                "Besiroglu et al. bootstrap (joint)"),
    summary_row("optimal_n_params", "compute-optimal parameters at this compute", float(eff["optimal_n_params"]), "", fit.name),
    summary_row("allocation_compute_overhead", "extra training compute vs compute-optimal (same loss)",
                float(eff["compute_overhead"]), "fraction", "vs compute-optimal at the same loss" + moe),
]

# %%
# an MoE is placed on the dense fits by its active parameters, outside their data (the
# page's first answer): its compute-optimal and lifetime figures are left out of the report's headline table
dense_only = [r for r in rows if r["key"] == "run_tokens_per_param"] + [summary_row(
    "scaling_fits_not_applied", "compute-optimal and lifetime figures", "not given", "",
    "a mixture of experts is outside the dense-model fits; this page shows them as an "
    "illustration on active parameters")]

# %%
# NBVAL_CHECK_OUTPUT
publish_summary("06_chinchilla", dense_only if spec.is_moe else rows + [
    summary_row("lifetime_optimal_n_params", "parameters of the inference-adjusted optimum (USD)",
                float(opt_usd.n_params), "",
                f"{llmcost.fmt_count(p['inference_tokens_lifetime'])} served tokens"),
    summary_row("lifetime_optimal_tokens_per_param", "its tokens per parameter",
                float(opt_usd.tokens_per_param), "", "same loss as the scenario"),
    summary_row("lifetime_cost_usd", "lifetime cost at the optimum", float(opt_usd.total_cost), "USD",
                "training + serving at the roofline's floor; engines run slower, section 7"),
    summary_row("lifetime_saving_vs_chinchilla", "saving vs Chinchilla-optimal", float(opt_usd.saving_fraction),
                "fraction", "of the lifetime USD, same loss"),
] + ([] if scen is None else [
    summary_row("lifetime_saving_vs_scenario", "saving vs the scenario's own model",
                1 - float(opt_usd.total_cost) / float(scen.total_usd), "fraction",
                f"of its lifetime USD, {llmcost.fmt_usd(float(scen.total_usd))}, same loss")]))

# %% [markdown]
# ## Explore
#
# Change the compute budget, the fit, the lifetime demand and the prices per training GPU-hour and
# per served token; the optimum and the cost table follow. (In a report these widgets are switched
# off; run the notebook in Jupyter to use them.)

# %%
if interactive:
    from llmcost.present.widgets import scaling_explorer

    display(scaling_explorer(c_run, fit.name, p["inference_tokens_lifetime"], price,
                             serve(1e9) * 1e6, gpu.name, p["mfu"], p["dtype"], spec,
                             p["seq_len"], target_loss=target))   # the page's target

# %% [markdown]
# [← 00 · Index](00_index.ipynb) · previous: [05 · What does a generated token cost, and why is RL post-training hard to budget?](05_rl_loop.ipynb) · next: [07 · What does it cost when training doesn't finish?](07_checkpoints.ipynb)
