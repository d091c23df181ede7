"""How close is the expected serving throughput to published engine figures, and how fast is
the configuration search?

``llmcost.serving.engines`` turns the serving roofline into an expected throughput: every pass
at roofline / η + a per-step overhead, with (η_decode, η_kv_read, η_prefill, overhead) fitted on
the ``train`` rows of ``data/serving_benchmarks.csv`` (the split was committed before any error
was computed), with a compute-bound prefill on an Ampere GPU at η_prefill × the global
``inference.PREFILL_COMPUTE_SCALE`` (fitted on the train rows; its form chosen after a first
variant had been judged on the held-out rows, ``engines`` module docstring). This prints:

* the fitted constants and their band;
* the expected throughput's error on the train and the held-out (test) rows: median, share
  within 25 %, worst, and how often the measurement falls inside the band; every held-out row
  beyond 25 %;
* that every published measurement respects the roofline bound, and for each held-out row
  beyond 25 % the share of the roofline it achieved beside the other decode rows at batch ≤ 2
  (the ``engines`` module docstring, "The held-out miss that remains", says what is known of it);
* every published set-up row (``data/serving_setups.csv``: expert parallelism with DP attention,
  the prefill and decode pools of a disaggregated deployment, TensorRT-LLM's colocated NVFP4 and
  FP8 DeepSeek-R1 runs) reproduced by ``setups.ep_step`` / ``setups.colocated_ep_throughput``;
* multi-node dense replicas (``setups.pipeline_replica``): Llama 3.1 405B BF16 on 2×8 H100 at
  TP8·PP2 and at TP16 across the nodes, and TP8 against PP8 at batch 1 on an H200 node beside NVIDIA's measured 5.6×;
* chunked prefill (``setups.chunked_prefill``): the decode stall, TPOT and TTFT at Sarathi-Serve's
  and vLLM's token budgets, and every published chunked-prefill row
  (``data/serving_chunked_prefill.csv``: Sarathi-Serve's hybrid batch and chunked TTFTs, Yi-34B
  on 2 A100s) reproduced by ``setups.chunked_prefill_validation``;
* the time of the configuration search for one model (``latency_throughput_curve`` over every
  tp and batch, and ``cheapest_setup``) against one ``serving_cost`` call measured in the same
  run (goal: the search ≤ 1 s on 2 cores);
* the goal table: each goal of the serving issue with the figure measured here and whether it
  is met, and for each set-up named below (expert parallelism, attention data parallelism,
  multi-node TP/PP, disaggregated prefill/decode, chunked prefill, prefix caching, FP4) the one
  cited row reproduced, or that no cited row was found;
* for prefix caching, which has no cited row, every source searched and why each fails.
"""

import textwrap

import pandas as pd
from _shared import best_of

from llmcost import inference as inf
from llmcost.serving import engines, setups

#: The set-ups judged, each with the cited row of ``data/serving_setups.csv`` (or, for
#: chunked prefill, of ``data/serving_chunked_prefill.csv``) that reproduces it (None: no
#: published row found; the reason is printed). The chunked-prefill goal row is the hybrid batch
#: (the step chunked prefill is made of), chosen before its error was computed.
SETUP_ROWS = (
    ("expert parallelism (EP72 over 9 nodes)", "sglang-dsv3-decode-ep72", ""),
    ("attention data parallelism (DP8 + EP8)", "trtllm-dsr1-fp8-h200-tp8ep8-dp", ""),
    ("disaggregated P/D: prefill pool (EP32)", "sglang-dsv3-prefill-ep32-4k",
     "each pool measured alone: the KV transfer between them is in no published row"),
    ("disaggregated P/D: decode pool (EP72)", "sglang-dsv3-decode-ep72", ""),
    ("FP4 weights (NVFP4 on B200)", "trtllm-dsr1-nvfp4-b200-tp8ep8-dp", ""),
    ("chunked prefill (hybrid step: 1,021-token chunk + 3 decodes)",
     "sarathi-yi34b-a100-tp2-hybrid-1021p-3d", "Sarathi-Serve's artifact, Yi-34B TP2 on A100"),
    ("prefix caching", None, "no published TTFT with and without a cached prefix on a "
     "catalogued GPU and model found (searched too: vLLM APC issues/PRs, LMCache docs and "
     "issues, SGLang HiCache blog, TensorRT-LLM kv_cache_reuse.md)"),
)
#: Where else a prefix-caching row was looked for (2026-12-02), and why none was usable: the
#: row must give hardware, model, prompt and cached tokens and a TTFT (or throughput at a
#: stated hit rate) at one request in flight, since ``setups.prefix_cached_prefill`` prices one
#: prefill and no queueing.
PREFIX_CACHING_SEARCHED = (
    "NVIDIA NIM kv-cache-reuse docs (1.4.0 and latest): 'typically about a 2x speedup in TTFT',"
    " no GPU, model or token counts",
    "NVIDIA blogs on TensorRT-LLM KV cache early reuse (2024-11) and GH200 KV offload: "
    "speed-ups in figures only",
    "Prompt Cache (Gim et al. 2024, arXiv:2311.04934; yale-sys/prompt-cache README): RTX 4090,"
    " token counts not stated",
    "llm-d 'KV-cache wins you can see' and kubeai / Dynamo prefix-aware routing reports: "
    "clusters under load (queueing in the TTFT), Qwen3-32B or L4 GPUs, hit rates not stated",
    "LMCache on MI300X blogs (2026): CPU-DRAM offload loads, not HBM prefix hits",
    "SGLang radix-cache PRs (generated-shared-prefix): uncatalogued models (Qwen3-Next, "
    "Qwen3-32B) or GPUs (H20, MI355X); tenstorrent AIPerf prefix-cache report: GPU not named",
    # searched again 2026-12-02 (second pass)
    "SGLang paper (Zheng et al. 2024, arXiv:2312.07104): only its abstract is stored here "
    "(whole LLM programs up to 5x faster); no single prompt's TTFT with a stated cached length",
    "vLLM PR #1983 (prefix prompt cache, 2023-12): Llama 13B on one A100 80G, 200-token prefix"
    " + 30 input + 50 output tokens, first-token time 0.29 s cached vs 0.45 s at 10 QPS: "
    "measured under load (queueing in the TTFT), no one-request figure",
    "vLLM PR #2762 (automatic prefix caching): ShareGPT throughput with the cache on and off on"
    " an A100 80G (4,137 vs 4,216 tokens/s): the cache's overhead with no shared prefix, not a "
    "hit",
    "vLLM issues #5339 / #7518 (model-execute time with and without a prefix hit; Llama-3-70B "
    "on 4 GPUs, a batch of 6 prompts) and #4917 (Llama-2-7B multi-turn on an L4): the stored "
    "excerpts hold no result with GPU, prompt and cached lengths, or the GPU is uncatalogued and "
    "the time is end-to-end with decode",
    "TGI v3 docs (huggingface/text-generation-inference docs/source/conceptual/chunking.md "
    "@8936a03): "
    "Llama 3.1 70B on 8xH100, 20 GovReport prompts (~200k tokens in all) with 50 output tokens"
    " each, 12.1 s uncached vs 2 s cached: wall time of requests in flight together (k6, 10 VUs"
    " in load_tests/long.js @0a2736e), per-prompt lengths not stated, decode inside the time",
    "LMCache issues #1109 / #1741 (query-twice, long_doc_qa): a thread on LMCache's overhead "
    "when vLLM's own cache hits (no TTFTs with the GPU and model stated in what is stored), "
    "and a run where no hit happened (GH200, Llama-3.3-70B: warm 2.822 s = cold 2.824 s)",
    "agentic-kvc (gitea.gahow.org/gahow/agentic-kvc @837df6b, vLLM 0.18.1): HBM-hit vs miss "
    "TTFT by prefix length (1k-64k) for Qwen3-Coder-30B-A3B on one H20: the H20 is not in the "
    "catalogue, and the hit TTFTs (42-111 ms) are far above a one-token prefill's roofline, so "
    "they would measure per-request host work, which prefix_cached_prefill does not price",
    "Block-Attention (arXiv:2409.15355, TemporaryLoRA/Block-Attention README): 45 ms TTFT at "
    "32K tokens vs full attention (-98.7 %): independently encoded, fine-tuned blocks, not a "
    "prefix cache; hardware not in the stored README",
    "vLLM blog 2026-10-12 (bi-directional KV transfer, AWS) and Dynamo KV-routing reports "
    "(Llama 3.1 70B FP8, 4xTP2 on 8 H100, concurrency 50-120): disaggregated or loaded "
    "clusters, GLM-5 uncatalogued, hit rates not per request",
    "AMD, 'vLLM x AMD: Efficient LLM Inference on AMD Instinct MI300X GPUs' Part 4 "
    "(2024-12-12): the stored copy holds its opening only (what prefix caching is, when to "
    "apply it); no TTFT with a cached-prefix length seen",
    "AWS Neuron prefix-caching tutorial (gpt-oss-120B): Trainium, not a catalogued GPU; "
    "llama.cpp / Ollama / RTX / GTX / Apple write-ups found in repositories: consumer hardware"
    " and engines outside the catalogue",
    # searched again 2026-12-02 (third pass)
    "SGLang paper (arXiv:2312.07104) as its reviews restate it (zhongzhuzhou.org 2026-05-21, "
    "jaehun.me): LM-program throughput and latency under load, and Chatbot Arena's production "
    "cache hit rates (52.4-74.1 %) with a 1.7x lower mean TTFT: no one prompt's TTFT at a "
    "stated cached length",
    "Hydragen (Juravsky et al. 2024, arXiv:2402.05099): decode throughput of large batches "
    "over one shared prefix (CodeLlama-13b, up to 32x vLLM): a shared-prefix attention kernel "
    "in decode, not a prefill that skips a cached prefix; figures only",
    "Preble (Srivatsa et al., ICLR 2025; mlsys.wuklab.io blog): a distributed scheduler "
    "judged on request streams (mean and p99 latency under load), no one-request TTFT",
    "sgl-project/sglang issue #1248 (2024-08-29, context caching): a 400,000-character context"
    " (no token count), 8.58 s cold TTFT, through a remote RunPod proxy (network inside the "
    "TTFT); GPU and model not in the stored thread",
    "vLLM PR #26807 (GatedDeltaNet prefix caching): benchmark_prefix_caching.py on one 29,835-"
    "token prompt, 24.6 s without vs 13.0 s with the cache: a hybrid linear-attention model "
    "outside the catalogue, GPU not stated, times end to end; ROCm/ATOM PR #939 (7,808 of "
    "7,820 tokens cached): MiniMax-M2.5, not catalogued",
    "gigagpu.com 'RTX 5060 Ti 16GB with prefix caching' (Llama 3.1 8B FP8, batch 1, TTFT "
    "280 -> 40 ms): consumer GPU outside the catalogue, the prefix given in kB, not tokens",
    "GPUStack docs 'Evaluating LMCache prefill acceleration in vLLM' (Qwen3-8B, RTX 4090), "
    "LMCache issue #2205 / talkin.icu (Qwen3-Coder-30B-A3B AWQ 4-bit), Level Up Coding "
    "'vLLM prefix caching vs LMCache' (2026-04-27; its opening only stored): uncatalogued "
    "GPUs, models or quantisation, multi-turn runs under load, or no set-up stored",
    "hungchun0201 agentic-ai-survey labs (weeks 5, 6, 15: vLLM APC, SGLang radix cache, "
    "LMCache on one H100 with Llama-3.1-8B): instructions only, no measured result stored; "
    "Nexus Labs blog (Qwen2.5-32B on four H100 nodes, TTFT p50 480 -> 110 ms): a loaded "
    "cluster, model not catalogued",
)
GOAL_ERROR = 0.25


def main():
    e = inf.load_engine_efficiency(None)
    print(f"pooled fit on {e.n_train} train rows: η_decode {e.decode_fraction:.3f}, "
          f"η_kv_read {e.kv_read_fraction:.3f}, η_prefill {e.prefill_fraction:.3f}, "
          f"step overhead {e.step_overhead_s * 1e3:.2f} ms, band ×{e.band[0]:.2f}–×{e.band[1]:.2f}")
    s = inf.PREFILL_COMPUTE_SCALE["Ampere"]
    print(f"Ampere compute-bound prefill scale (global, fitted on the pooled train rows): ×{s:.2f}"
          f" → η_prefill {min(1.0, e.prefill_fraction * s):.3f} on an A100")
    v = engines.engine_validation()
    print("\nexpected throughput vs published rows (|measured/expected − 1|):")
    for (fam, split), g in v.groupby(["engine_family", "split"]):
        print(f"  {fam:13s} {split:5s} n={len(g):2d}  median {g['abs_error'].median():6.1%}  "
              f"within 25 %: {(g['abs_error'] <= 0.25).mean():5.0%}  "
              f"worst {g['abs_error'].max():6.1%}  in band {g['in_band'].mean():4.0%}  "
              f"(constants: {g['fitted_on'].iloc[0]})")
    t = v[v["split"] == "test"]
    print(f"  ALL held-out n={len(t)}: median {t['abs_error'].median():.1%}, "
          f"{(t['abs_error'] <= 0.25).mean():.0%} within 25 % (goal: within 25 %), "
          f"worst {t['abs_error'].max():.1%} ({t.loc[t['abs_error'].idxmax(), 'benchmark_id']})")
    for _, r in t[t["abs_error"] > 0.25].sort_values("abs_error", ascending=False).iterrows():
        print(f"    beyond 25 %: {r['benchmark_id']:38s} {r['metric']:28s} measured "
              f"{r['measured']:10.4g} expected {r['expected']:10.4g} (ratio {r['ratio']:.2f})")
    print(f"roofline bound respected on {int(v['bound_ok'].sum())} of {len(v)} rows")
    miss_diagnosis(v, t[t["abs_error"] > GOAL_ERROR])

    print("\nset-ups reproduced (tokens/s per GPU; goal: within 25 %):")
    for _, r in setups.setup_validation().iterrows():
        print(f"  {r['setup_id']:34s} measured {r['measured_per_gpu']:8,.0f}  expected "
              f"{r['expected_per_gpu']:8,.0f} (band {r['band_low']:,.0f}–{r['band_high']:,.0f})"
              f"  error {r['abs_error']:5.1%}  bound {r['bound_per_gpu']:8,.0f} "
              f"{'respected' if r['bound_ok'] else 'VIOLATED'}")

    cv = setups.chunked_prefill_validation()
    print("\nchunked prefill, published rows (Sarathi-Serve artifact; seconds; goal: within 25 %):")
    for _, r in cv.iterrows():
        print(f"  {r['row_id']:44s} {r['metric']:13s} measured {r['measured_s'] * 1e3:7.1f} ms  "
              f"expected {r['expected_s'] * 1e3:7.1f} ms (band {r['band_low_s'] * 1e3:.0f}–"
              f"{r['band_high_s'] * 1e3:.0f})  error {r['abs_error']:5.1%}  bound "
              f"{r['bound_s'] * 1e3:7.1f} ms {'respected' if r['bound_ok'] else 'VIOLATED'}")

    print("\nmulti-node dense replica, Llama 3.1 405B BF16, 2×8 H100, TP8·PP2 (vLLM):")
    for b in (2, 64, 256):
        r = setups.pipeline_replica("llama-3.1-405b", "H100-SXM", tp=8, pp=2, batch=b,
                                    prompt_tokens=1024, context_tokens=1536, engine="vLLM")
        print(f"  batch {b:3d}: TPOT {r.tpot_s * 1e3:5.1f} ms bound / {r.expected_tpot_s * 1e3:5.1f} "
              f"expected, {r.expected_tokens_per_s_per_gpu:6.1f} tok/s/GPU expected, inter-node "
              f"{r.inter_node_bytes_per_token / 1e3:.1f} kB per token, stage busy "
              f"{r.stage_utilisation:.1%}, KV capacity {r.max_batch} sequences")
    for b in (1, 64, 256):
        r = setups.pipeline_replica("llama-3.1-405b", "H100-SXM", tp=16, pp=1, batch=b,
                                    prompt_tokens=1024, context_tokens=1536, engine="vLLM")
        print(f"  TP16 across the 2 nodes, batch {b:3d}: TPOT {r.tpot_s * 1e3:5.1f} ms bound / "
              f"{r.expected_tpot_s * 1e3:5.1f} expected, {r.expected_tokens_per_s_per_gpu:6.1f} "
              f"tok/s/GPU expected, KV capacity {r.max_batch} sequences")
    pk = dict(batch=1, prompt_tokens=2048, context_tokens=2112, weight_dtype="fp8",
              kv_dtype="fp8", engine="TensorRT-LLM")
    tp8 = setups.pipeline_replica("llama-3.1-405b", "H200", tp=8, pp=1, **pk)
    pp8 = setups.pipeline_replica("llama-3.1-405b", "H200", tp=1, pp=8, **pk)
    print(f"  H200 node, batch 1: PP8 TPOT ÷ TP8 TPOT = "
          f"{pp8.expected_tpot_s / tp8.expected_tpot_s:.2f} (NVIDIA, TensorRT-LLM: 5.6)")

    print("\nchunked prefill, Llama 3.1 8B BF16 on one H100, 64 decoding at 1,024 tokens, "
          "one 8,192-token prompt:")
    for tau in (512, 2048, setups.VLLM_TOKEN_BUDGET):
        c = setups.chunked_prefill("llama-3.1-8b", "H100-SXM", prompt_tokens=8192,
                                   decode_batch=64, context_tokens=1024, token_budget=tau,
                                   engine="vLLM")
        print(f"  budget {tau:5d}: {c.chunks:2d} chunks, TPOT during the prefill "
              f"{c.tpot_during_prefill_s * 1e3:6.1f} ms (unchunked stall "
              f"{c.decode_stall_unchunked_s * 1e3:6.1f} ms), TTFT {c.ttft_s * 1e3:6.1f} ms "
              f"(unchunked {c.ttft_unchunked_s * 1e3:6.1f}), expected speedup "
              f"×{c.expected_speedup:.2f}")

    kw = dict(prompt_tokens=1024, output_tokens=256, weight_dtype="fp8", kv_dtype="fp8")
    one, _, _ = best_of(lambda: inf.serving_cost("llama-3.1-70b", "H100-SXM", 2.0, tp=4, batch=64,
                                              engine="vLLM", **kw))
    curve_s, _, curve = best_of(lambda: engines.latency_throughput_curve(
        "llama-3.1-70b", "H100-SXM", 2.0, engine="vLLM", **kw))
    cheap_s, _, best = best_of(lambda: engines.cheapest_setup(
        "llama-3.1-70b", "H100-SXM", 2.0, max_tpot_s=0.03, engine="vLLM", **kw))
    print("\nconfiguration search, Llama-3.1-70B FP8 on H100 (1024 in / 256 out):")
    print(f"  one serving_cost call {one * 1e3:.1f} ms; the curve ({len(curve)} set-ups, "
          f"{int(curve['pareto'].sum())} on the Pareto front) {curve_s:.3f} s = "
          f"{curve_s / one:.0f}× one call; cheapest set-up under 30 ms TPOT {cheap_s:.3f} s "
          f"(goal ≤ 1 s): tp={int(best['tp'])}, batch={int(best['batch'])}, "
          f"${best['expected_usd_per_m_output']:.3f}/M output at $2/GPU-h")
    goal_table(v, setups.setup_validation(), cv, pp8.expected_tpot_s / tp8.expected_tpot_s,
               max(curve_s, cheap_s))


def miss_diagnosis(v, misses):
    """For each held-out row beyond 25 %: the share of the roofline it achieved beside every
    decode row (TPOT or end-to-end latency) at batch <= 2 (``engines`` module docstring, "The
    held-out miss that remains")."""
    b = inf.load_serving_benchmarks().set_index("benchmark_id")["batch"]
    small = v[v["benchmark_id"].map(b).le(2) & v["metric"].isin(["tpot_s", "latency_s"])]
    shares = small.sort_values("roofline_share", ascending=False)
    for _, r in misses.iterrows():
        others = shares[shares["benchmark_id"] != r["benchmark_id"]]
        rank = int((others["roofline_share"] > r["roofline_share"]).sum()) + 1
        top = others.iloc[0]
        print(f"    {r['benchmark_id']}: {r['roofline_share']:.2f} of the roofline, rank {rank} "
              f"of the {len(shares)} decode rows at batch <= 2 (the next highest: "
              f"{top['benchmark_id']}, {top['roofline_share']:.2f}); its family's constants "
              f"give {r['expected']:.4g}, TensorRT-LLM's "
              f"{_expected_under(r['benchmark_id'], 'TensorRT-LLM'):.4g}")


def _expected_under(benchmark_id, family):
    """The expected value of one row under another family's constants (diagnosis only)."""
    w = engines.engine_validation(family)
    return float(w.loc[w["benchmark_id"] == benchmark_id, "expected"].iloc[0])


def goal_table(v, sv, cv, pp_ratio, search_s):
    """Each goal of the serving issue, the figure this run measured, and whether it is met."""
    t = v[v["split"] == "test"]
    bound_ok = pd.concat([sv["bound_ok"], cv["bound_ok"]])
    n_ok = int((t["abs_error"] <= GOAL_ERROR).sum())
    rows = [("expected throughput within 25 % on held-out rows",
             f"{n_ok} of {len(t)}, median {t['abs_error'].median():.1%}, worst "
             f"{t['abs_error'].max():.1%}", n_ok == len(t)),
            ("the roofline bound respected on every row",
             f"{int(v['bound_ok'].sum())} of {len(v)} engine rows, {int(bound_ok.sum())} "
             f"of {len(bound_ok)} set-up rows", bool(v["bound_ok"].all() and bound_ok.all())),
            ("configuration search for one model <= 1 s", f"{search_s:.3f} s", search_s <= 1.0)]
    errors = pd.concat([sv.set_index("setup_id")["abs_error"],
                        cv.set_index("row_id")["abs_error"]])
    for name, sid, note in SETUP_ROWS:
        if sid is None:
            rows.append((f"set-up: {name}", f"{note}; also searched: "
                         f"{len(PREFIX_CACHING_SEARCHED)} more sources (PREFIX_CACHING_SEARCHED)",
                         False))
            continue
        e = float(errors[sid])
        rows.append((f"set-up: {name}", f"{sid}: error {e:.1%}" + (f" ({note})" if note else ""),
                     e <= GOAL_ERROR))
    err = abs(pp_ratio / setups.NVIDIA_PP8_OVER_TP8_LATENCY - 1)
    rows.append(("set-up: TP/PP replica (PP8 vs TP8 on one node)",
                 f"TPOT ratio {pp_ratio:.2f} vs NVIDIA's {setups.NVIDIA_PP8_OVER_TP8_LATENCY}: "
                 f"error {err:.1%}; no multi-node measured row found", err <= GOAL_ERROR))
    print("\nGOAL TABLE (serving as it really runs):")
    for goal, figure, met in rows:
        print(f"  {'met    ' if met else 'NOT met'}  {goal:50s} {figure}")
    print("\nprefix caching: where else a cited row was looked for, and why each fails "
          "(PREFIX_CACHING_SEARCHED):")
    for source in PREFIX_CACHING_SEARCHED:
        print(textwrap.fill(source, width=100, initial_indent="  - ", subsequent_indent="    "))


if __name__ == "__main__":
    main()
