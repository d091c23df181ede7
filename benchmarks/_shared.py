"""Shared by the plan benchmarks: a best-of timer and the Calculon baseline figure."""
import time

# Calculon (calculon-ai/calculon caa4b11): one GPT-3 175B evaluation at a time in a loop on a
# 2-core VM, 4,243 evaluations in 20 s.
CALCULON_EVALS_PER_S_PER_CORE = 212


def best_of(fn, repeat=3):
    """Run ``fn`` ``repeat`` times; return (fastest s, first run s, the last result)."""
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), times[0], out
