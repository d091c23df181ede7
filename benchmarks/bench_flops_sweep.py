"""How fast is a sweep of the first ledger line? One vectorised call against a Python loop.

Sweeps a million (sequence length, tokens, MFU) points of the detailed FLOP count, GPU-hours and
cost for one model, and prints points per second for the vectorised call and for a per-point
Python loop measured in the same run (on a 10,000-point subset, then extrapolated).
"""

import time

import numpy as np

import llmcost


def sweep(model, acc, seq, tokens, mfu):
    fpt = model.flops_per_token(seq)
    flops = fpt * tokens
    hours = llmcost.gpu_hours(flops, acc, mfu)
    return llmcost.compute_cost_usd(hours, 2.5)


def main():
    model = llmcost.load_model("llama-3.1-70b")
    acc = llmcost.load_accelerator("H100-SXM")
    rng = np.random.default_rng(0)
    n = 1_000_000
    seq = rng.choice(2 ** np.arange(10, 18), n)
    tokens = rng.uniform(1e11, 2e13, n)
    mfu = rng.uniform(0.2, 0.6, n)

    t0 = time.perf_counter()
    vec = sweep(model, acc, seq, tokens, mfu)
    t_vec = time.perf_counter() - t0

    k = 10_000
    t0 = time.perf_counter()
    loop = [sweep(model, acc, int(seq[i]), float(tokens[i]), float(mfu[i])) for i in range(k)]
    t_loop = (time.perf_counter() - t0) * n / k

    assert np.allclose(vec[:k], loop)
    print(f"points: {n:,}")
    print(f"vectorised: {t_vec:.3f} s  ({n / t_vec:,.0f} points/s)")
    print(f"python loop (extrapolated from {k:,}): {t_loop:.1f} s  ({n / t_loop:,.0f} points/s)")
    print(f"speed-up: {t_loop / t_vec:,.0f}x")


if __name__ == "__main__":
    main()
