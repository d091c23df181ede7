import numpy as np
import pytest

from hypothesis import example, given, strategies as st

from llmcost.core.units import (as_array, fmt_bandwidth, fmt_bytes, fmt_count, fmt_duration,
                           fmt_flops, fmt_flops_rate, fmt_usd, usd_as_printed)


def test_formatting():
    assert fmt_flops(3.8e25) == "3.80e+25 FLOP"
    assert fmt_flops_rate(989.4e12) == "989 TFLOP/s"
    assert fmt_bytes(80e9) == "80 GB"
    assert fmt_bytes(2**30, binary=True) == "1 GiB"
    assert fmt_duration(30) == "30 s"
    # below a second in the field's units: an NCCL collective in µs, a stall in ms
    assert fmt_duration(0.000674) == "674 µs" and fmt_duration(0.0159) == "15.9 ms"
    assert fmt_duration(0) == "0 s" and fmt_duration(0.999) == "999 ms"
    # at a unit's edge the next unit, never "1e+03 ms" (a review)
    assert fmt_duration(0.9995) == "1 s" and fmt_duration(0.0009996) == "1 ms"
    assert fmt_duration(-0.0159) == "-15.9 ms"
    # and so at every edge: 59.99 s, 3,599.99 s and 47.999 h print in the next unit
    assert [fmt_duration(x) for x in (59.99, 3599.99, 47.999 * 3600)] == \
        ["1 min", "1 h", "2 days"]
    assert fmt_duration(90) == "1.5 min"
    assert fmt_duration(3 * 3600) == "3 h"
    assert fmt_duration(54 * 86400) == "54 days"
    assert fmt_usd(1.23e8) == "$123M"
    assert fmt_usd(12.5) == "$12.50"
    # three significant digits in every row of a column, trailing zeros kept: a bill's table
    # showed "$24k" beside "$24.4k" and "$997.63" beside "$1.22k"
    assert [fmt_usd(v) for v in (24_000, 24_400, 997.63, 1_220, 999_999, 99.999, -36_400)] == [
        "$24.0k", "$24.4k", "$998", "$1.22k", "$1.00M", "$100", "-$36.4k"]
    assert fmt_count(405.85e9) == "405.9B"


def test_small_values_keep_their_significant_figures():
    # A new-user trial (OPT-1.3B on 8 A100-40GB) read "0.0 GB/s sustained, 0.0 PB written a
    # day", "the cheapest storage is 0 GB/s" (notebook 07) and "USD per million input tokens
    # $0.00" (notebook 05). By hand: an 18.4 GB checkpoint written every 1,449 s is
    # 18.4e9 / 1,449 = 12.7 MB/s, "0.013 GB/s", and 12.7e6 × 86,400 = 1.10e12 bytes a day.
    assert fmt_bandwidth(18.4e9 / 1449) == "0.013 GB/s"
    assert fmt_bytes(18.4e9 / 1449 * 86400) == "1.1 TB"
    assert [fmt_bandwidth(b) for b in (1.2115e8, 9.8e8, 1.5e9, 5.6234e10, 2.0e12)] == [
        "0.12 GB/s", "0.98 GB/s", "1.5 GB/s", "56 GB/s", "2,000 GB/s"]
    assert fmt_bandwidth(float("nan")) == "n/a" and fmt_bandwidth(float("inf")) == "∞ GB/s"
    # below 0.01 GB/s in fixed point, two significant figures: 5e4 B/s = 0.00005 GB/s (a
    # review read "5.0e-05 GB/s"), and a hundred-thousandth of a dollar "$0.00001" ("$1e-05")
    assert fmt_bandwidth(5e4) == "0.00005 GB/s" and fmt_bandwidth(4.7e6) == "0.0047 GB/s"
    assert fmt_usd(1e-5) == "$0.00001"
    # under a cent two significant figures, a cent and up to the cent, zero as before
    assert [fmt_usd(v) for v in (0.0041, 0.00999, 0.01, 0.45, 0.0, -0.002)] == [
        "$0.0041", "$0.01", "$0.01", "$0.45", "$0.00", "-$0.002"]


def _read_usd(text: str) -> float:
    """A printed amount read back as a reader reads it: "-$1.08k" is -1,080."""
    scale = {"k": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}
    sign = -1.0 if text.startswith("-") else 1.0
    body = text.lstrip("-").lstrip("$").replace(",", "")
    mult = scale.get(body[-1], 1.0)
    return sign * float(body[:-1] if body[-1] in scale else body) * mult


@given(st.floats(min_value=-1e16, max_value=1e16, allow_nan=False))
@example(1035.0)       # a review: "$1.03k" (1.035 rounds down in binary) read as 1,040
@example(9995.0)
@example(1_115_000.0)
def test_usd_as_printed_is_the_amount_fmt_usd_prints(v):
    # the number a reader reads off the printed string, whatever its suffix and precision
    assert usd_as_printed(v) == pytest.approx(_read_usd(fmt_usd(v)), rel=1e-12, abs=1e-12)


def test_usd_as_printed_by_hand():
    # $1,084 prints "$1.08k", $1,087 "$1.09k"; $998.4 "$998"; $12.504 "$12.50"; under a cent
    # two significant figures; a negative difference keeps its sign
    assert [usd_as_printed(v) for v in (1084, 1087, 998.4, 12.504, 0.00412, -5.4051e6)] == [
        1080, 1090, 998, 12.5, 0.0041, -5.41e6]


@pytest.mark.parametrize("value, kw, message", [
    (-1, dict(positive=True), "x=-1 must be > 0"),
    (0, dict(positive=True), "x=0 must be > 0"),
    (float("nan"), {}, "must be finite"),
    ("abc", {}, "must be a number"),
    (True, {}, "not a bool"),
    (1.5, dict(integer=True), "whole number"),
    (1.5, dict(upper=1.0), "must be <= 1"),
    ([1.0, -2.0], dict(nonnegative=True), "-2.0 (in an array of shape (2,))"),
])
def test_as_array_rejects_with_a_named_rule(value, kw, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        as_array(value, "x", **kw)


def test_as_array_keeps_shape():
    assert as_array([1, 2, 3], "x", positive=True).shape == (3,)
    assert as_array(2.0, "x").shape == ()
    np.testing.assert_array_equal(as_array(np.arange(1, 4), "x", integer=True), [1.0, 2.0, 3.0])


def test_not_finite_values_are_words_not_nan_or_inf():
    # a value that was not computed reads "n/a", an unbounded one "∞": never "$nan" or "inf B"
    nan, inf = float("nan"), float("inf")
    assert fmt_usd(nan) == "n/a" and fmt_usd(inf) == "$∞" and fmt_usd(-inf) == "-$∞"
    assert fmt_bytes(inf) == "∞ B" and fmt_bytes(nan) == "n/a"
    assert fmt_count(nan) == "n/a" and fmt_duration(inf) == "∞ s"
    assert fmt_flops(nan) == "n/a" and fmt_flops_rate(inf) == "∞ FLOP/s"
    for f in (fmt_usd, fmt_bytes, fmt_count, fmt_duration, fmt_flops, fmt_flops_rate):
        for v in (nan, inf, -inf):
            assert "nan" not in f(v) and "inf" not in f(v), (f.__name__, v)


@pytest.mark.parametrize("call", [lambda: fmt_bytes(1e9, binary="false"),
                                  lambda: fmt_bytes(1e9, digits=0),
                                  lambda: fmt_count(1e9, digits="3")])
def test_formatting_options_are_checked(call):
    with pytest.raises(ValueError, match="binary=|digits="):
        call()


@pytest.mark.parametrize("value", [0, 1, -1, 3, 2.5, -0.0, 1e300, float("inf"), float("nan"),
                                   -float("inf"), 7.0, 10**20])
@pytest.mark.parametrize("rules", [{}, {"positive": True}, {"nonnegative": True},
                                   {"integer": True}, {"upper": 3},
                                   {"upper": 3, "upper_inclusive": False},
                                   {"positive": True, "integer": True, "upper": 5}])
def test_a_python_scalar_is_checked_as_numpy_checks_it(value, rules):
    # as_array checks a Python float or int without numpy (a scenario's validation checks
    # hundreds of thousands of them): the same verdict and message as a 0-d array's
    def outcome(v):
        try:
            return float(as_array(v, "x", **rules))
        except ValueError as e:
            return str(e)
    fast, slow = outcome(value), outcome(np.array(value, dtype=float if isinstance(
        value, float) else object))
    assert fast == slow


def test_a_quantity_in_prose_keeps_three_figures():
    # a 574 GPU-h run's energy is a fraction of a MWh: "0.317", never "0" (a trial read
    # "0 MWh, 0 tCO2e"); from 100 up whole numbers with separators, as before
    from llmcost.core.units import fmt_quantity
    assert [fmt_quantity(v) for v in (0, 0.317, 42.49, 100, 21588.4)] == [
        "0", "0.317", "42.5", "100", "21,588"]
    with pytest.raises(ValueError, match="value"):
        fmt_quantity("a lot")


def test_a_choice_is_a_string_among_the_choices():
    # the serving dtypes' rule (inference.WEIGHT_BYTES keys): the value back when it is one of
    # them; otherwise a ValueError naming the field, the value and the choices. A non-string
    # (None, a number, a list) is refused before the lookup, and case counts.
    from llmcost.core.units import as_choice
    table = {"bf16": 2, "fp8": 1}
    assert as_choice("fp8", "weight_dtype", table) == "fp8"
    assert as_choice("decode", "phase", ("decode", "prefill")) == "decode"
    for bad in ("int4", "BF16", None, 2, ["bf16"]):
        with pytest.raises(ValueError) as e:
            as_choice(bad, "weight_dtype", table)
        assert str(e.value) == f"weight_dtype={bad!r} must be one of 'bf16', 'fp8'"


def test_fmt_amount_and_huge_dollars():
    """A budget table's GPU count reads whole (12,288, not 1.229e+04), days with four
    significant figures, tokens and parameters with a suffix; a sum beyond trillions of dollars
    reads in exponent form, not "$9e+07T" (the trial: ledger_egress_bytes of 1e30)."""
    from llmcost.core.units import fmt_amount
    assert fmt_amount(12288) == "12,288" and fmt_amount(2048.0) == "2,048"
    assert fmt_amount(6.560668) == "6.561" and fmt_amount(1e12) == "1T"
    assert fmt_amount(6.098665e10) == "60.99B" and fmt_amount(999_999) == "999,999"
    assert fmt_usd(9e19) == "$9e+19" and fmt_usd(9e14) == "$900T"
    # a count just under a suffix that rounds up to it takes the suffix (notebook 09 read
    # "1000B" tokens for a budget's 999,999,999,999.99)
    assert fmt_count(999_999_999_999.99) == "1T" and fmt_count(999_940, 4) == "999.9k"
    assert fmt_count(999_960, 4) == "1M" and fmt_count(1234.5) == "1.234k"


def test_a_count_past_the_largest_suffix_keeps_its_digits():
    # `llmcost estimate`'s header read "1e+03T tokens" for 1e15: past the T suffix the count is
    # written whole with separators, rounded to its significant figures (1.2345e15 to 3 figures
    # is 1,230T); below 1,000T nothing changes.
    assert fmt_count(1e15, 3) == "1,000T" and fmt_count(1.2345e15, 3) == "1,230T"
    assert fmt_count(1e16, 4) == "10,000T" and fmt_count(-1e15, 3) == "-1,000T"
    assert fmt_count(999.4e12, 3) == "999T" and fmt_count(3e14, 3) == "300T"


def test_as_scalar_names_an_array_given_for_one_number():
    # A trial: checkpoint_plan(n_gpus=[8, 16]), rl_iteration, serving_cost(price=array) raised
    # numpy's "only 0-dimensional arrays can be converted to Python scalars" TypeError; an
    # argument that takes one number now says so by name
    from llmcost.core.units import as_scalar
    assert as_scalar(3, "x", positive=True) == 3.0
    assert as_scalar(np.array([2.5]), "x") == 2.5      # one value in an array is one number
    with pytest.raises(ValueError, match=r"n_gpus=\[8, 16\] must be one number, not an array "
                                         r"of 2 values"):
        as_scalar([8, 16], "n_gpus", positive=True, integer=True)
    with pytest.raises(ValueError, match="n_gpus=-1 must be > 0"):
        as_scalar(-1, "n_gpus", positive=True)
    from llmcost.training import reliability as rel
    with pytest.raises(ValueError, match=r"^n_gpus=\[8, 16\] must be one number"):
        rel.checkpoint_plan(7e9, [8, 16], 0.173, 1e10, 600)


def test_fmt_probability_never_reads_a_near_certainty_as_1():
    # A trial: 07 said "a chance of 1 that the whole run passes without one" at 0.99996
    from llmcost.core.units import fmt_probability
    assert fmt_probability(0.99996) == "over 99.9%"
    assert fmt_probability(0.9995) == "over 99.9%" and fmt_probability(0.9994) == "99.9%"
    assert fmt_probability(1e-7) == "under 0.0001%" and fmt_probability(1e-6) == "0.0001%"
    assert fmt_probability(0.69) == "69%" and fmt_probability(0.995) == "99.5%"
    assert fmt_probability(0.00123) == "0.123%" and fmt_probability(4.5e-6) == "0.00045%"
    assert fmt_probability(1.0) == "100%" and fmt_probability(0.0) == "0%"
    with pytest.raises(ValueError, match="p=1.5 must be <= 1"):
        fmt_probability(1.5)


def test_storage_tradeoff_still_sizes_draws_at_their_median():
    # A review: the as_scalar change refused storage_tradeoff's draws, which its docstring
    # sizes at their median: three draws of the ideal GPU-hours give the median's trade-off
    from llmcost.training import reliability as rel
    args = (7e10, 2048, 0.173, 600.0)
    drawn = rel.storage_tradeoff(*args, np.array([1e6, 2e6, 3e6]), 3.99)
    median = rel.storage_tradeoff(*args, 2e6, 3.99)
    assert drawn.attrs.get("optimum_bytes_per_s", None) == median.attrs.get(
        "optimum_bytes_per_s", None)
    assert drawn.equals(median)


def test_a_signed_percent_never_reads_minus_zero():
    # A trial: "changes wall-clock by -0%" for a doubling that changes it by -0.1%
    from llmcost.core.units import fmt_signed_pct
    assert fmt_signed_pct(-0.001) == "0%" and fmt_signed_pct(0.004) == "0%"
    assert fmt_signed_pct(0.05) == "+5%" and fmt_signed_pct(-0.034) == "−3%"
    with pytest.raises(ValueError, match="fraction"):
        fmt_signed_pct("x")


def test_fmt_period_says_a_short_span_in_a_smaller_unit():
    # a trial's small run read "0.0183 days" (26.4 min) and "0.0563 months": by hand,
    # 0.0183 × 1,440 = 26.4 min; 0.0563 × 365.25 / 12 × 24 = 41.1 h
    from llmcost.core.units import fmt_period
    assert fmt_period(0.0183, "days") == "26.4 min"
    assert fmt_period(0.0563, "months") == "41.1 h"
    assert fmt_period(66.15, "days") == "66.2 days" and fmt_period(1.5, "months") == "1.5 months"
    # one is singular (a trial read "project duration: 1 months")
    assert fmt_period(1.0, "months") == "1 month" and fmt_period(1.0, "days") == "1 day"
    assert fmt_period(1.02, "months") == "1.02 months"
    with pytest.raises(ValueError, match="unit='weeks'"):
        fmt_period(1.0, "weeks")


def test_a_named_object_where_a_number_goes_is_named_briefly():
    # A trial swapped two arguments and read "n_tokens=ModelSpec(name='llama-3.1-8b',
    # n_layers=32, ..." over 600 characters: a named object is said by its type and name, any
    # other repr cut to 80 characters.
    import llmcost
    m = llmcost.load_model("llama-3.1-8b")
    with pytest.raises(ValueError) as e:
        llmcost.mfu_from_gpu_hours(m, 1e5, 1e12, "H100-SXM")
    assert str(e.value) == "n_tokens=ModelSpec(name='llama-3.1-8b') must be a number"
    with pytest.raises(ValueError) as e:
        as_array(object.__new__(type("Big", (), {"__repr__": lambda self: "x" * 500})), "n")
    assert len(str(e.value)) < 120 and str(e.value).endswith("... must be a number")


def test_complex_numbers_and_bool_arrays_are_refused_with_the_field_named():
    # A trial: training_flops(spec, 1e12 + 5j) and gpu_hours(..., mfu=0.4 + 0.1j) dropped the
    # imaginary part with only numpy's ComplexWarning, and mfu=np.array([True]) was read as an
    # MFU of 1 where mfu=True alone is refused
    import numpy as np

    from llmcost.core.units import as_array
    for value in (1e12 + 5j, np.complex128(0.4), np.array([0.4 + 0j]), [0.3, 0.4 + 1j]):
        with pytest.raises(ValueError, match=r"^mfu=.* must be a real number, not complex$"):
            as_array(value, "mfu")
    for value in (np.array([True]), np.bool_(True), [0.4, True]):
        with pytest.raises(ValueError, match=r"^mfu=.* must hold numbers, not bools$"):
            as_array(value, "mfu")
    assert as_array(np.array([0.4, 0.5]), "mfu").tolist() == [0.4, 0.5]   # reals still pass
    import llmcost
    spec = llmcost.load_model("llama-3.1-8b")
    with pytest.raises(ValueError, match="n_tokens="):
        llmcost.training_flops(spec, 1e12 + 5j)


def test_article_for_a_number_as_read_aloud():
    # English takes "an" before a vowel sound: eight, eleven, eighteen, eighty, eight hundred,
    # eight thousand... ("an 8,192-token sequence", a lecturer read "a 8,192-token");
    # "a" before one hundred ten, one thousand eight hundred, two, ...
    from llmcost.core.units import article_for
    an = ["8", "8,192", "80", "800", "8.5", "11", "11,000", "18", "18,432", "83,000"]
    a = ["1", "2,048", "110", "180", "1,800", "108", "118", "1.5", "16,384", "0.8"]
    assert [article_for(x) for x in an] == ["an"] * len(an)
    assert [article_for(x) for x in a] == ["a"] * len(a)
    # written without separators, grouped by three from the right: eleven thousand, eighteen
    # million, eight thousand; one hundred ten, one thousand eight hundred
    assert [article_for(x) for x in ["11000", "18000000", "8192", "80%", "18%"]] == ["an"] * 5
    assert [article_for(x) for x in ["110", "1800", "118000", "−8", "1.5%"]] == ["a"] * 5
    with pytest.raises(ValueError, match="printed=None must be a number as printed"):
        article_for(None)
    from llmcost.core.units import with_article
    assert (with_article("8,192"), with_article("2,048")) == ("an 8,192", "a 2,048")


def test_fmt_percent_three_figures_never_an_exponent():
    # a review read "6.09e+03%" (1,242 RL GPU-hours against 20.4 of pre-training: 6,088%) and
    # a lecturer "14.680%" beside "48.83%": three significant figures, whole from 100% up
    from llmcost.core.units import fmt_percent
    assert [fmt_percent(x) for x in (0.00347, 0.1468, 0.4883, 0.5, 1242 / 20.4, 1e-10)] == \
        ["0.347%", "14.7%", "48.8%", "50%", "6,088%", "0.00000001%"]
    with pytest.raises(ValueError, match="fraction='0.5' must be a number"):
        fmt_percent("0.5")
