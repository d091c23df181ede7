"""How close is the expected serving throughput to published engine figures, and how fast is
the configuration search?

``llmcost.serving.engines`` turns the serving roofline into an expected throughput: every pass
at roofline / η + a per-step overhead, with (η_decode, η_kv_read, η_prefill, overhead) fitted on
the ``train`` rows of ``data/serving_benchmarks.csv`` (the split was committed before any error
was computed). This prints:

* the fitted constants and their band;
* the expected throughput's error on the train and the held-out (test) rows: median, share
  within 25 %, worst, and how often the measurement falls inside the band;
* that every published measurement respects the roofline bound;
* every published set-up row (``data/serving_setups.csv``: expert parallelism with DP attention,
  the prefill and decode pools of a disaggregated deployment) reproduced by ``setups.ep_step``;
* the time of the configuration search for one model (``latency_throughput_curve`` over every
  tp and batch, and ``cheapest_setup``) against one ``serving_cost`` call measured in the same
  run (goal: the search ≤ 1 s on 2 cores).
"""

from _shared import best_of
from llmcost import inference as inf
from llmcost.serving import engines, setups


def main():
    e = inf.load_engine_efficiency(None)
    print(f"pooled fit on {e.n_train} train rows: η_decode {e.decode_fraction:.3f}, "
          f"η_kv_read {e.kv_read_fraction:.3f}, η_prefill {e.prefill_fraction:.3f}, "
          f"step overhead {e.step_overhead_s * 1e3:.2f} ms, band ×{e.band[0]:.2f}–×{e.band[1]:.2f}")
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
    print(f"roofline bound respected on {int(v['bound_ok'].sum())} of {len(v)} rows")

    print("\nset-ups reproduced (tokens/s per GPU; goal: within 25 %):")
    for _, r in setups.setup_validation().iterrows():
        print(f"  {r['setup_id']:30s} measured {r['measured_per_gpu']:8,.0f}  expected "
              f"{r['expected_per_gpu']:8,.0f} (band {r['band_low']:,.0f}–{r['band_high']:,.0f})"
              f"  error {r['abs_error']:5.1%}  bound {r['bound_per_gpu']:8,.0f} "
              f"{'respected' if r['bound_ok'] else 'VIOLATED'}")

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


if __name__ == "__main__":
    main()
