"""Property tests (hypothesis) for batch.py: the McCandlish trade-off and its invariants."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import llmcost
from llmcost import batch

positive = st.floats(1e-3, 1e12, allow_nan=False, allow_infinity=False)
batches = st.floats(1.0, 1e10)


@settings(max_examples=300, deadline=None)
@given(batches, batches, positive, positive, st.floats(1.0, 1e10))
def test_steps_fall_and_tokens_rise_with_the_batch(b1, b2, s_min, e_min, b_noise):
    lo, hi = sorted((b1, b2))
    assert batch.steps_to_target(hi, s_min, b_noise) <= batch.steps_to_target(lo, s_min, b_noise)
    assert batch.tokens_to_target(hi, e_min, b_noise) >= batch.tokens_to_target(lo, e_min,
                                                                                  b_noise)
    # Both stay above their minima.
    assert batch.steps_to_target(hi, s_min, b_noise) > s_min
    assert batch.tokens_to_target(lo, e_min, b_noise) > e_min


@settings(max_examples=300, deadline=None)
@given(batches, st.floats(1.0, 1e10), positive, positive)
def test_trade_off_is_a_hyperbola(b, b_noise, s_min, e_min):
    s = batch.steps_to_target(b, s_min, b_noise)
    e = batch.tokens_to_target(b, e_min, b_noise)
    # Floating point: S/S_min − 1 loses digits when B ≫ B_noise (and E/E_min − 1 when B ≪ B_noise),
    # about machine epsilon × the larger of B/B_noise and B_noise/B.
    r = max(b / b_noise, b_noise / b)
    assert np.isclose((s / s_min - 1) * (e / e_min - 1), 1.0, rtol=1e-13 * r + 1e-12)


@settings(max_examples=100, deadline=None)
@given(st.floats(1e7, 1e13), st.floats(1e10, 1e14), st.floats(1e5, 1e8), st.floats(1.1, 4.0))
def test_more_tokens_reach_a_lower_loss_above_the_floor(n, d, b, factor):
    l1, l2 = batch.loss_of_planned_run(n, np.array([d, d * factor]), b)
    assert batch.kaplan_loss_floor(n) < l2 < l1


@settings(max_examples=100, deadline=None)
@given(st.floats(1.0, 1e6), st.floats(1.0, 1e6))
def test_matmul_utilisation_never_falls_as_tokens_grow(t1, t2):
    h100 = llmcost.load_accelerator("H100-SXM")
    m = llmcost.load_model("llama-3.1-8b")
    lo, hi = sorted((t1, t2))
    u_lo, u_hi = batch.matmul_utilisation(m, np.array([lo, hi]), h100)
    assert 0 < u_lo <= u_hi + 1e-12 and u_hi <= 1 + 1e-12


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(2**16, 2**28), min_size=1, max_size=20),
       st.sampled_from([64, 512, 2048, 16384]), st.sampled_from([1, 2, 4]),
       st.sampled_from([1, 8]))
def test_sweep_parts_add_up(b, n, mbs, tp):
    h100 = llmcost.load_accelerator("H100-SXM")
    m = llmcost.load_model("llama-2-70b")
    t = batch.batch_target(m, train_tokens=2e12, global_batch_tokens=4194304)
    df = batch.batch_sweep(t, np.array(b), m, h100, n, 0.4, 2.0, 4096, mbs, tp)
    assert np.allclose(df.compute_gpu_hours + df.comm_gpu_hours + df.idle_gpu_hours, df.reserved_gpu_hours)
    assert (df.idle_gpu_hours >= -1e-9 * df.reserved_gpu_hours).all()
    assert (df.busy_gpus <= n).all()


@settings(max_examples=200, deadline=None)
@given(st.floats(1e-6, 1e-2), st.floats(0.01, 9.0))
def test_square_root_rule_scales_the_lr_by_root_kappa(lr, kappa):
    r = batch.sqrt_scaled_adam(lr, kappa, beta1=0.9, beta2=0.95)
    assert np.isclose((r["lr"] / lr) ** 2, kappa)
    assert np.isclose((1 - r["beta1"]) / 0.1, kappa) and 0 < r["beta2"] < 1
