"""Inputs at the edge of what the arithmetic holds: refused by name, never a hang, a wrapped
integer or an inf.

Sources: IEEE 754-2019 binary64 has a 53-bit significand (52 stored bits and the hidden one), so
every whole number up to 2**53 is exact and 2**53 + 1 is the first that is not (it rounds to
2**53); int64 wraps above 2**63 - 1. McCandlish et al. 2018 §2.2: S = S_min·(1 + B_noise/B)."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import llmcost
from llmcost.core.units import MAX_EXACT_INTEGER, as_array
from llmcost.laws import scaling
from llmcost.training import accuracy, batch, parallel


def test_the_exact_integer_bound_is_where_a_double_starts_to_round():
    # hand derivation from the significand's 53 bits
    assert float(MAX_EXACT_INTEGER) == 2**53 and float(2**53 + 1) == float(2**53)
    assert float(2**53 - 1) != float(2**53)
    assert as_array(2**53, "n", integer=True) == 2.0**53
    for value in (2**53 + 2, np.int64(2**62)):
        with pytest.raises(ValueError, match=r"n=.* must be at most 2\*\*53"):
            as_array(value, "n", integer=True)
    # 2**53 + 1, the first a double cannot hold, held as an integer: compared before the cast
    # (a review: as a float it became 2**53 and passed)
    for value in (2**53 + 1, np.int64(2**53 + 1)):
        with pytest.raises(ValueError, match=r"n=9007199254740993 must be at most 2\*\*53"):
            as_array(value, "n", integer=True)
    for value in (np.array([8, 2**53 + 1]), np.array([8, 2**60])):
        with pytest.raises(ValueError, match=r"n \(an array of shape \(2,\)\) holds a whole "
                                             r"number above 2\*\*53"):
            as_array(value, "n", integer=True)
    with pytest.raises(ValueError, match="n_gpus=9007199254740993 must be at most"):
        llmcost.Cluster(llmcost.load_accelerator("H100-SXM"), 2**53 + 1)
    assert as_array(2.0**60, "tokens") == 2.0**60  # not a count of whole things: no bound


def test_a_cluster_beyond_the_bound_is_refused_not_wrapped():
    h100 = llmcost.load_accelerator("H100-SXM")
    with pytest.raises(ValueError, match=r"n_gpus=1180591620717411303424 must be at most"):
        llmcost.Cluster(h100, 2**70)
    m = llmcost.load_model("Llama-3.1-8B")
    t = batch.batch_target(m, train_tokens=1e12, global_batch_tokens=4e6)
    # before: n_gpus came back as -9.2e18 (a float cast to int64 wrapped)
    with pytest.raises(ValueError, match="n_gpus=.* must be at most 2"):
        batch.batch_sweep(t, 4e6, m, h100, 2**70, 0.4, 2.0, 4096)


def test_a_huge_global_batch_is_refused_and_a_large_one_enumerates():
    m, h100 = llmcost.load_model("Llama-3.1-8B"), llmcost.load_accelerator("H100-SXM")
    with pytest.raises(ValueError, match="global_batch=.* must be at most 2"):
        parallel.enumerate_plans(m, llmcost.Cluster(h100, 64), 2**70, 4096)
    # 2**52 sequences (before: a Python loop to 2**26 per divisor list): every plan's data
    # parallel degree times its micro-batches times its micro-batch size is the batch
    plans = parallel.enumerate_plans(m, llmcost.Cluster(h100, 64), 2**52, 4096)
    assert len(plans) > 0
    assert (plans["dp"] * plans["n_microbatches"] * plans["micro_batch_size"] == 2**52).all()


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 200_000))
def test_divisors_are_every_divisor(n):
    brute = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    expected = sorted(set(brute + [n // d for d in brute]))
    assert parallel._divisors(n).tolist() == expected


def test_divisors_of_numbers_near_the_bound():
    # 2**53 - 111 is prime (the largest prime below 2**53: OEIS A014234, a(53)); 2**53 - 1 =
    # 6361 · 69431 · 20394401 (its factorisation, e.g. Cunningham tables, 2^53 - 1)
    assert parallel._divisors(2**53 - 111).tolist() == [1, 2**53 - 111]
    d = parallel._divisors(2**53 - 1)
    assert d.tolist() == sorted([1, 6361, 69431, 20394401, 6361 * 69431, 6361 * 20394401,
                                 69431 * 20394401, 2**53 - 1])
    assert parallel._divisors(2**52).tolist() == [2**k for k in range(53)]


def test_a_batch_whose_steps_overflow_names_its_inputs():
    m, h100 = llmcost.load_model("Llama-3.1-8B"), llmcost.load_accelerator("H100-SXM")
    t = batch.batch_target(m, train_tokens=1e12, global_batch_tokens=4e6)
    # S = S_min·(1 + B_noise/5e-324) overflows (before: "gpu_hours_=nan must be finite")
    with pytest.raises(ValueError, match=r"batch_tokens, s_min, b_noise_tokens overflow: S ="):
        batch.steps_to_target(5e-324, t.s_min, t.b_noise_tokens)
    # batch_sweep refuses such a batch first: less than one 4,096-token sequence
    with pytest.raises(ValueError, match=r"^batch_tokens=4\.94066e-324 must be at least one "
                                         r"sequence, seq_len=4,096 tokens"):
        batch.batch_sweep(t, 5e-324, m, h100, 64, 0.4, 2.0, 4096)
    with pytest.raises(ValueError, match="overflow"):
        batch.tokens_to_target(1e300, 1e300, 1e-300)
    # a sourced check beside it: McCandlish's S at B = B_noise is twice S_min
    assert batch.steps_to_target(2e6, 1000.0, 2e6) == pytest.approx(2000.0, rel=1e-12)


def test_a_lifetime_cost_that_overflows_is_refused_by_name():
    with pytest.raises(ValueError, match="inference_tokens.* overflow: the lifetime cost"):
        scaling.inference_adjusted_optimum(2.0, 1e308)
    # Sardana et al. 2024: with no demand the optimum is the compute-optimal model
    o = scaling.inference_adjusted_optimum(2.0, 0.0)
    assert float(o.n_params) == pytest.approx(float(o.chinchilla_n_params), rel=1e-12)


def test_band_for_step_names_a_missing_step():
    m = llmcost.load_model("Llama-3.1-8B")
    with pytest.raises(ValueError, match=r"b=None must be a StepBreakdown"):
        accuracy.band_for_step(None, None, m, "H100-SXM")


def test_none_is_refused_as_not_a_number():
    # numpy reads None as NaN, which read "x=None must be finite" (a review)
    with pytest.raises(ValueError, match=r"^planned_per_day=None must be a number$"):
        llmcost.reliability.interruption_mtbf_s(3600.0, None)
    with pytest.raises(ValueError, match=r"^x=None must be a number$"):
        as_array(None, "x")
