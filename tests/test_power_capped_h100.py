"""The power-capped 96 GB H100 of torchtitan's 2024-12 benchmarks (data/accelerators.csv).

Source: pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md (commit 31a17bfd):
"96GB HBM2e with 2.4 TB/sec peak memory bandwidth", "the default 500W power limit", and "the
actual peak TFLOPs number is between SXM and NVL, and we don't know its exact value". Bounds:
H100 SXM5 dense peaks (NVIDIA H100 architecture whitepaper) and H100 NVL (NVIDIA H100 datasheet,
sparse figures halved). The catalogue takes the midpoint, a stated assumption.
"""

import pytest

import llmcost
from llmcost.training import accuracy

NAME = "H100-96GB-500W"
# (SXM5 dense, NVL dense) TFLOPS: FP32 66.9 / 60; TF32 494.7 / 835 / 2; BF16 989.4 / 1671 / 2;
# FP8 1978.9 / 3341 / 2
BOUNDS = {"fp32": (66.9, 60.0), "tf32": (494.7, 835.0 / 2), "bf16": (989.4, 1671.0 / 2),
          "fp8": (1978.9, 3341.0 / 2)}


@pytest.mark.parametrize("dtype", list(BOUNDS))
def test_peaks_are_the_midpoint_of_the_published_bounds(dtype):
    hi, lo = BOUNDS[dtype]
    peak = llmcost.load_accelerator(NAME).peak_flops_per_s(dtype)
    assert peak == pytest.approx((hi + lo) / 2 * 1e12, rel=1e-3)
    assert lo * 1e12 < peak < hi * 1e12


def test_memory_and_power_as_stated():
    acc = llmcost.load_accelerator(NAME)
    assert acc.hbm_bytes_per_s == pytest.approx(2.4e12, rel=1e-12)
    assert acc.hbm_bytes == 96 * 2**30
    assert acc.tdp_w == 500
    # the links of the 700 W device: NVLink within the host, 400 Gb/s per GPU between hosts
    sxm = llmcost.load_accelerator("H100-SXM")
    assert acc.scaleup_bytes_per_s_per_dir == sxm.scaleup_bytes_per_s_per_dir
    assert acc.scaleout_bytes_per_s_per_dir == pytest.approx(400e9 / 8, rel=1e-12)
    assert accuracy.gpu_generation(NAME) == "Hopper"


def test_torchtitan_h100_rows_run_on_it():
    runs = llmcost.load_published_runs().set_index("run_id")
    h100 = runs[runs.index.str.startswith("torchtitan-h100-")]
    assert len(h100) == 10
    assert (h100["catalog_accelerator"] == NAME).all()
    # Trainy's H200 rows are another machine
    h200 = runs[runs.index.str.startswith("torchtitan-trainy-h200")]
    assert (h200["catalog_accelerator"] == "H200").all()


def test_published_throughput_is_nearer_on_the_device_they_ran_on():
    # torchtitan Table 1 / 3, FSDP + torch.compile: 6,667 and 6,514 TPS/GPU. Priced on the
    # 700 W H100-SXM the model is ~29 % optimistic; on the device of the page, less so.
    v = accuracy.validation_table().set_index("run_id")
    for run in ("torchtitan-h100-8b-8gpu-1-fsdp-compile",
                "torchtitan-h100-8b-128gpu-3-fsdp-compile"):
        e = v.loc[run, "error"]
        assert v.loc[run, "accelerator"] == NAME
        assert 0.0 < e < 0.25, (run, e)


def test_pricing_on_another_device():
    from llmcost.training import step_validation
    ids = ["torchtitan-h100-8b-8gpu-1-fsdp-compile", "torchtitan-h100-70b-256gpu-4-2d"]
    sxm = step_validation.mfu_validation_on("H100-SXM", ids).set_index("run_id")
    own = accuracy.validation_table().set_index("run_id").loc[ids]
    # the same published tokens/s on two peaks: reported MFU scales by the peaks' ratio
    assert (own["reported_mfu"] / sxm["reported_mfu"]).to_numpy() == pytest.approx(
        989.4 / 912.45, rel=1e-3)
    # a compute-bound step on the capped device is slower by at least its peak ratio
    assert (sxm["error"] - own["error"] > 0.08).all()
    with pytest.raises(ValueError, match="not validation rows"):
        step_validation.mfu_validation_on("H100-SXM", ["no-such-run"])
