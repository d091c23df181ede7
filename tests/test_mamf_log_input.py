"""Bad and implausible mamf-finder logs (``llmcost calibrate --mamf-log``): one ValueError line
naming the log, the field, its value and the rule (a new-user trial found a ZeroDivisionError
traceback for ``max: 0 TFLOPS``, a bare float() message for ``max: . TFLOPS``, a "pilot" message
for a shape of 0, "mamf-finder log 0" where a file was given, and 1 TFLOPS on an H100 accepted
as a 0.1% matmul fraction)."""
import pytest

from llmcost.core.catalog import load_accelerator
from llmcost.training import calibrate as cal

#: The trial's logs, each the result line of mamf-finder.py since 2025 (stas00/ml-engineering,
#: compute/accelerator/benchmarks/mamf-finder.py: ``max: X TFLOPS @ MxNxK``).
ZERO_TFLOPS = "max: 0 TFLOPS @ 8192x8192x8192\n"
DOT_TFLOPS = "max: . TFLOPS @ 8192x8192x8192\n"
ZERO_M = "max: 790 TFLOPS @ 0x8192x8192\n"
ONE_TFLOPS = "max: 1 TFLOPS @ 8192x8192x8192\n"


@pytest.mark.parametrize("text, said", [
    (ZERO_TFLOPS, "TFLOPS=0 in its result line 'max: 0 TFLOPS @ 8192x8192x8192' must be a "
                  "number > 0"),
    (DOT_TFLOPS, "TFLOPS=. in its result line 'max: . TFLOPS @ 8192x8192x8192' must be a "
                 "number > 0"),
    ("max: nan TFLOPS @ 8192x8192x8192", "TFLOPS=nan in its result line"),
    ("max: -5 TFLOPS @ 8192x8192x8192", "TFLOPS=-5 in its result line"),
    (ZERO_M, "M=0 in its result line 'max: 790 TFLOPS @ 0x8192x8192' must be at least 1"),
    ("The best outcome was 790TFLOPS @ 8192x8192x0 (MxNxK)", "K=0 in its result line"),
])
def test_a_result_line_out_of_its_domain_is_named(text, said):
    with pytest.raises(ValueError) as e:
        cal.mamf_profile("H100-SXM", [text], names=["gpu0_bf16.txt"])
    msg = str(e.value)
    assert msg.startswith("mamf-finder log gpu0_bf16.txt: ") and said in msg
    assert "\n" not in msg and "pilot" not in msg


def test_a_rate_is_taken_between_a_tenth_of_the_peak_and_the_peak():
    """Hand derivation on the H100 SXM's dense BF16 peak, 989.4 TFLOPS (the catalogue's
    datasheet figure): a tenth is 98.94 TFLOPS; 99.0 is taken (99.0 / 989.4 = 0.10006), 98.9
    (0.09996) refused, both sides; 989.4 (= 1) is taken, 990 (1.0006) refused. The trial's
    1 TFLOPS is 1 / 989.4 = 0.1%."""
    assert load_accelerator("H100-SXM").peak_flops_per_s("bf16") == 989.4e12
    assert cal.MAMF_MIN_FRACTION == 0.10
    ok = cal.efficiency_from_mamf_log("H100-SXM", "max: 99.0 TFLOPS @ 8192x8192x8192")
    assert ok.matmul_fraction == pytest.approx(0.10006, abs=1e-5)
    with pytest.raises(ValueError, match=r"TFLOPS=98\.9 .* is 10\.0% of the H100-SXM's bf16 "
                       r"dense peak 989\.4 TFLOPS: it must be at least 10% of the peak"):
        cal.efficiency_from_mamf_log("H100-SXM", "max: 98.9 TFLOPS @ 8192x8192x8192")
    top = cal.efficiency_from_mamf_log("H100-SXM", "max: 989.4 TFLOPS @ 8192x8192x8192")
    assert top.matmul_fraction == pytest.approx(1.0, abs=1e-12)
    with pytest.raises(ValueError, match=r"TFLOPS=990 .* is 100\.1% .*must be at most the peak"):
        cal.efficiency_from_mamf_log("H100-SXM", "max: 990 TFLOPS @ 8192x8192x8192")
    with pytest.raises(ValueError) as e:
        cal.mamf_profile("H100-SXM", [ONE_TFLOPS], names=["one_tflops.txt"])
    msg = str(e.value)
    assert msg.startswith("mamf-finder log one_tflops.txt: TFLOPS=1 in its result line "
                          "'max: 1 TFLOPS @ 8192x8192x8192' is 0.1% of the H100-SXM's bf16 dense "
                          "peak 989.4 TFLOPS: it must be at least 10% of the peak")
    assert "published MAMFs are 51-97%" in msg


def test_the_least_efficient_published_mamf_is_taken():
    """The published MAMF table (stas00/ml-engineering compute/accelerator/README.md, "Maximum
    Achievable Matmul FLOPS comparison table"), its lowest BF16 row: AMD MI300X 668.4 TFLOPS
    of a 1,300 theory (51.4%); on the catalogue's MI300X peak, 1,307.4 TFLOPS: 668.4 / 1307.4
    = 0.5112, ±0.0005. Its notes' ROCm 6.1 figure, 450 TFLOPS (450 / 1307.4 = 0.3442), is
    taken too: the floor sits 5x below the least efficient published device."""
    low = cal.efficiency_from_mamf_log("MI300X", "max: 668.4 TFLOPS @ 10240x15360x8192")
    assert low.matmul_fraction == pytest.approx(0.5112, abs=5e-4)
    old = cal.efficiency_from_mamf_log("MI300X", "max: 450 TFLOPS @ 8192x8192x8192")
    assert old.matmul_fraction == pytest.approx(0.3442, abs=5e-4)


def test_the_accelerator_and_the_logs_are_named_as_given():
    # an unknown accelerator is refused before any log is read: no log is at fault
    with pytest.raises(ValueError, match=r"^accelerator='NOPE' is not in the catalogue"):
        cal.mamf_profile("NOPE", ["max: 700 TFLOPS @ 8192x8192x8192"], names=["a.txt"])
    # without names, the log is the API's argument, texts[i]
    with pytest.raises(ValueError, match=r"^mamf-finder log texts\[1\]: a second bf16 log"):
        cal.mamf_profile("H100-SXM", ["max: 700 TFLOPS @ 8192x8192x8192"] * 2)
    with pytest.raises(ValueError, match=r"^mamf-finder log b\.txt: a second bf16 log"):
        cal.mamf_profile("H100-SXM", ["max: 700 TFLOPS @ 8192x8192x8192"] * 2,
                         names=["a.txt", "b.txt"])
    with pytest.raises(ValueError, match=r"names=\['a.txt'\] must name each of the 2 log\(s\)"):
        cal.mamf_profile("H100-SXM", ["max: 700 TFLOPS @ 8192x8192x8192"] * 2, names=["a.txt"])
    # FP8 on an A100 (no FP8 tensor cores): the dtype's missing peak, naming the log
    with pytest.raises(ValueError, match=r"^mamf-finder log f\.txt: dtype='fp8': A100-80GB has "
                       "no fp8 peak"):
        cal.mamf_profile("A100-80GB", ["** Dtype: torch.float8_e4m3fn\n"
                                       "max: 200 TFLOPS @ 8192x8192x8192"], names=["f.txt"])


def test_a_profile_keeps_the_result_line():
    """A taken log's profile: 700 / 989.4 = 0.7075 on the H100 SXM, its result line kept."""
    prof = cal.mamf_profile("H100-SXM", ["max:   700 TFLOPS @ 8192x8192x8192 (MxNxK)"],
                            names=["a.txt"], date="2026-01-01T00:00:00Z")
    assert prof["matmul_fraction"] == {"bf16": pytest.approx(0.7075, abs=1e-4)}
    assert prof["timings"]["mamf"][0]["line"] == "max: 700 TFLOPS @ 8192x8192x8192"


def test_microbench_fields_are_not_called_pilot_fields():
    # _positive served pilots first and called every field "pilot ..."; a GEMM timing is not one
    with pytest.raises(ValueError, match=r"^gemm\[0\]\.m=0 must be a positive number"):
        cal.efficiency_from_microbench("H100-SXM", [(0, 8192, 8192, 1e-3)])
    with pytest.raises(ValueError, match=r"^attention\.seq_len=0 must be a positive number"):
        cal.attention_flops(1, 1, 0, 128)
    # ... while a pilot's still is
    from llmcost.core.catalog import load_model
    from llmcost.training.parallel import make_plan
    model = load_model("llama-3.1-8b")
    bad = cal.Pilot(model, "H100-SXM", make_plan(model, 8, 8, micro_batch_size=1), 0, 850.0)
    with pytest.raises(ValueError, match=r"^pilot seq_len=0 must be a positive number"):
        cal.check_pilot(bad)
