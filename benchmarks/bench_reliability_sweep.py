"""How fast is a goodput sweep? One vectorised call against a Python loop.

Sweeps a million (GPU count, failure rate, checkpoint stall, restart time) points: job MTBF,
the exact optimum interval (Newton iterations on the Lambert-W condition) and the goodput at
that interval, and prints points per second for the vectorised calls and for a per-point Python
loop measured in the same run (on a 10,000-point subset, then extrapolated). It also prints the
largest gap between Daly's higher-order interval and the exact optimum over the sweep.
"""

import time

import numpy as np

from llmcost import reliability as rel


def sweep(n_gpus, rate, stall, restart):
    m = rel.cluster_mtbf_s(n_gpus, rate)
    tau = rel.optimal_interval(stall, m)
    return rel.goodput(tau, stall, m, restart)


def main():
    rng = np.random.default_rng(0)
    n = 1_000_000
    gpus = rng.choice(2 ** np.arange(6, 18), n)
    rate = rng.uniform(0.01, 1.0, n)
    stall = rng.uniform(0.1, 600.0, n)
    restart = rng.uniform(0.0, 3600.0, n)

    t0 = time.perf_counter()
    vec = sweep(gpus, rate, stall, restart)
    t_vec = time.perf_counter() - t0

    k = 10_000
    t0 = time.perf_counter()
    loop = [sweep(int(gpus[i]), float(rate[i]), float(stall[i]), float(restart[i]))
            for i in range(k)]
    t_loop = (time.perf_counter() - t0) * n / k

    assert np.allclose(vec[:k], loop)
    m = rel.cluster_mtbf_s(gpus, rate)
    ok = stall < 2 * m
    exact, daly = rel.optimal_interval(stall[ok], m[ok]), rel.daly_interval(stall[ok], m[ok])
    gap = np.abs(daly / exact - 1)
    print(f"points: {n:,}")
    print(f"vectorised: {t_vec:.3f} s  ({n / t_vec:,.0f} points/s)")
    print(f"python loop (extrapolated from {k:,}): {t_loop:.1f} s  ({n / t_loop:,.0f} points/s)")
    print(f"speed-up: {t_loop / t_vec:,.0f}x")
    print(f"Daly vs exact optimum interval (δ < 2M, {ok.sum():,} points): median "
          f"{np.median(gap):.2e}, max {gap.max():.2e} relative")


if __name__ == "__main__":
    main()
