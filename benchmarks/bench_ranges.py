"""How fast is the Monte Carlo of the whole bill? ``ledger.simulate_ledger`` with 100,000 draws
(goal: <= 0.5 s on 2 cores), against two baselines measured in the same run: one point bill
(``build_ledger``) and the naive way, one ``build_ledger`` per draw in a Python loop (timed over
200 draws and scaled to 100,000). Also ``summary()`` (P10 / P50 / P90 per line) and
``tornado()``.

Prints seconds and ratios; asserts nothing about time.
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _shared import best_of

from llmcost import ledger

SAMPLES, NAIVE = 100_000, 200
SCENARIOS = {
    "3 ranges (MFU, price, failure rate)": {
        "mfu": [0.3, 0.5], "price_usd_per_gpu_hour": {"low": 2.0, "mode": 3.0, "high": 4.5},
        "fail_rate_per_gpu_year": {"dist": "lognormal", "p10": 0.08, "p90": 0.4}},
    "11 ranges (compute, reliability, post-training, storage, people, reserves)": {
        "mfu": {"low": 0.3, "mode": 0.4, "high": 0.55}, "price_usd_per_gpu_hour": [2.5, 6.0],
        "fail_rate_per_gpu_year": {"dist": "lognormal", "p10": 0.08, "p90": 0.5},
        "ckpt_restart_s": [300, 1800], "ledger_exploratory_fraction": [0.2, 3.0],
        "ledger_rerun_probability": [0.0, 0.3], "ledger_reserve_fraction": [0.05, 0.15],
        "ledger_sft_tokens": {"dist": "lognormal", "p10": 1e9, "p90": 5e10},
        "ledger_egress_bytes": {"dist": "lognormal", "p10": 1e12, "p90": 1e14},
        "ledger_project_months": [6, 12], "ledger_operations_usd_per_month": [2e4, 6e4],
        "ledger_people": [{"role": "research", "fte": 5}]},
}

for name, sc in SCENARIOS.items():
    ledger.simulate_ledger(sc, samples=1000)  # warm caches (catalogues) as a second call would
    point_s, _, bill = best_of(lambda sc=sc: ledger.build_ledger(sc), repeat=5)
    sim_s, first_s, d = best_of(lambda sc=sc: ledger.simulate_ledger(sc, samples=SAMPLES),
                                repeat=3)
    summ_s, _, _ = best_of(d.summary, repeat=3)
    torn_s, _, _ = best_of(d.tornado, repeat=3)
    # the naive baseline: one scalar bill per draw, the same draws
    ranged = list(d.inputs)

    def naive(sc=sc, d=d, ranged=ranged):
        for i in range(NAIVE):
            ledger.build_ledger({**sc, **{k: float(d.inputs[k][i]) for k in ranged}})

    naive_s, _, _ = best_of(naive, repeat=1)
    naive_full = naive_s / NAIVE * SAMPLES
    check = max(abs(ledger.build_ledger({**sc, **{k: float(d.inputs[k][i]) for k in ranged}})
                    .total_usd / d.total_usd[i] - 1) for i in range(5))
    print(f"{name}: simulate_ledger {SAMPLES:,} draws {sim_s:.3f} s (first {first_s:.3f} s; "
          f"goal <= 0.5 s) = {sim_s / point_s:.1f}x one point bill ({point_s * 1e3:.1f} ms); "
          f"naive loop {naive_full:,.0f} s for {SAMPLES:,} draws (measured over {NAIVE}): "
          f"{naive_full / sim_s:,.0f}x faster; summary() {summ_s:.3f} s, tornado() "
          f"{torn_s:.3f} s; first 5 draws against the scalar bill: max relative difference "
          f"{check:.1e}")
    print("  total P10 / P50 / P90: " + " / ".join(
        f"${v / 1e6:.2f}M" for v in np.quantile(d.total_usd, [0.1, 0.5, 0.9]))
        + f" (point ${bill.total_usd / 1e6:.2f}M)")
