"""How fast is the batch-size sweep? One vectorised call against a per-point Python loop.

Times ``batch.batch_sweep`` (steps, tokens, FLOPs, GPU-hours, wall-clock and cost to a target loss)
over a million (global batch, cluster size) points for one model, and ``batch.loss_of_planned_run``
(the vectorised bisection that puts a planned run on Kaplan's loss scale) over 100,000 runs. The
loops are measured in the same run on a subset and extrapolated; the printed ratio is the speed-up.
"""

import time

import numpy as np

import llmcost
from llmcost import batch


def timed(fn, *args, **kw):
    t0 = time.perf_counter()
    out = fn(*args, **kw)
    return out, time.perf_counter() - t0


def main():
    model = llmcost.load_model("llama-3.1-70b")
    acc = llmcost.load_accelerator("H100-SXM")
    target = batch.batch_target(model, train_tokens=15e12, global_batch_tokens=2**24)
    rng = np.random.default_rng(0)
    n = 1_000_000
    b = rng.uniform(2**18, 2**27, n)
    gpus = rng.choice(2 ** np.arange(8, 16), n)
    kw = dict(mfu=0.4, price_usd_per_gpu_hour=2.5, seq_len=8192, micro_batch_size=1, tp=8)

    vec, t_vec = timed(batch.batch_sweep, target, b, model, acc, gpus, **kw)
    k = 2_000
    loop, t_loop = timed(lambda: [batch.batch_sweep(target, b[i], model, acc, int(gpus[i]), **kw)
                                  for i in range(k)])
    assert np.allclose(vec.wall_clock_s[:k], [r.wall_clock_s.iloc[0] for r in loop])
    t_loop *= n / k
    print(f"batch_sweep, {n:,} points: vectorised {t_vec:.2f} s ({n / t_vec:,.0f} points/s); "
          f"per-point loop {t_loop:.0f} s extrapolated from {k:,} ({n / t_loop:,.0f} points/s); "
          f"speed-up {t_loop / t_vec:,.0f}x")

    m = 100_000
    nn = rng.uniform(1e9, 1e12, m)
    d = rng.uniform(1e11, 3e13, m)
    bb = rng.uniform(2**20, 2**25, m)
    loss, t_vec = timed(batch.loss_of_planned_run, nn, d, bb)
    k = 500
    loop, t_loop = timed(lambda: [batch.loss_of_planned_run(nn[i], d[i], bb[i]) for i in range(k)])
    assert np.allclose(loss[:k], loop)
    t_loop *= m / k
    print(f"loss_of_planned_run, {m:,} runs: vectorised {t_vec:.2f} s ({m / t_vec:,.0f} runs/s); "
          f"per-run loop {t_loop:.1f} s extrapolated from {k} ({m / t_loop:,.0f} runs/s); "
          f"speed-up {t_loop / t_vec:,.0f}x")


if __name__ == "__main__":
    main()
