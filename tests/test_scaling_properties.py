"""Property tests (hypothesis) for scaling.py: the invariants the issue names."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from llmcost import scaling

fits = st.sampled_from(sorted(scaling.LOSS_FITS))
compute = st.floats(1e18, 1e27)


@settings(max_examples=200, deadline=None)
@given(compute, compute, fits)
def test_optimal_n_and_d_grow_with_compute(c1, c2, fit):
    lo, hi = sorted((c1, c2))
    n_lo, d_lo = scaling.compute_optimal(lo, fit)
    n_hi, d_hi = scaling.compute_optimal(hi, fit)
    assert n_lo <= n_hi and d_lo <= d_hi
    assert np.isclose(6 * n_hi * d_hi, hi, rtol=1e-9)  # the optimum spends the budget


@settings(max_examples=200, deadline=None)
@given(st.floats(1e6, 1e13), st.floats(1e6, 1e15), st.floats(1.01, 100.0), fits)
def test_loss_falls_with_n_and_with_d(n, d, k, fit):
    base = scaling.loss(n, d, fit)
    assert scaling.loss(n * k, d, fit) < base and scaling.loss(n, d * k, fit) < base
    assert base > scaling.LOSS_FITS[fit].E


@settings(max_examples=60, deadline=None)
@given(st.floats(0.02, 1.0), st.floats(0.0, 1e15), st.floats(1.5, 100.0), fits)
def test_more_demand_never_makes_the_optimal_model_larger(excess, d_inf, k, fit):
    target = scaling.LOSS_FITS[fit].E + excess
    o = scaling.inference_adjusted_optimum(target, [d_inf, d_inf * k + 1e9], fit)
    assert o.n_params[1] <= o.n_params[0] * (1 + 1e-6)
    assert o.train_tokens[1] >= o.train_tokens[0] * (1 - 1e-6)
    # the optimum is never worse than the Chinchilla-optimal model for the same loss
    assert np.all(o.total_cost <= o.chinchilla_total_cost * (1 + 1e-9))


@settings(max_examples=60, deadline=None)
@given(st.floats(0.02, 1.0), fits)
def test_zero_demand_gives_the_compute_optimal_model(excess, fit):
    target = scaling.LOSS_FITS[fit].E + excess
    o = scaling.inference_adjusted_optimum(target, 0.0, fit)
    n_c, d_c = scaling.compute_optimal_for_loss(target, fit)
    assert np.isclose(o.n_params, n_c, rtol=1e-4) and np.isclose(o.train_tokens, d_c, rtol=1e-3)
    assert np.isclose(scaling.loss(o.n_params, o.train_tokens, fit), target, rtol=1e-9)


@settings(max_examples=100, deadline=None)
@given(st.floats(1e8, 1e13), st.floats(1e8, 1e13), st.floats(1.0, 1e3))
def test_effective_tokens_never_exceed_real_tokens(unique, d, r_star):
    eff = scaling.effective_tokens(d, unique, r_star)
    assert eff <= d * (1 + 1e-12) and eff >= min(unique, d) * (1 - 1e-12)
