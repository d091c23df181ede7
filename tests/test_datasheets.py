"""The catalogue's headline figures against the vendors' datasheets (data/accelerators.csv).

Each case quotes the datasheet and derives the per-GPU, dense, per-direction figure by hand:
NVIDIA prints tensor rates "with sparsity" (dense = half), rack and node totals (per GPU =
total / GPUs) and NVLink bidirectional (per direction = half); capacities are GiB (the vendor's
"GB" read as binary, as nvidia-smi and ROCm report them), bandwidths decimal.
"""

import pytest

import llmcost

GIB = 2**30

CASES = {
    # NVIDIA H100 Tensor Core GPU Architecture whitepaper, H100 SXM5 table: "BF16 989.4/1978.9,
    # FP8 1978.9/3957.8 TFLOPS" (dense/sparse); H100 product page: "80GB", "3.35TB/s",
    # "NVLink: 900GB/s"; DGX H100 user guide: 8x ConnectX-7 "up to 400Gb/s" (one per GPU)
    "H100-SXM": dict(bf16=989.4e12, fp8=1978.9e12, hbm=80 * GIB, hbm_bw=3.35e12,
                     scaleup=900e9 / 2, scaleout=400e9 / 8),
    # NVIDIA H200 product page: "141GB", "4.8TB/s", "BF16 1,979 teraFLOPS*", "FP8 3,958
    # teraFLOPS*" (*with sparsity: the GH100 rates of the whitepaper), "NVLink 900GB/s"; DGX
    # H200: 8x ConnectX-7 400 Gb/s
    "H200": dict(bf16=1978.9e12 / 2, fp8=3957.8e12 / 2, hbm=141 * GIB, hbm_bw=4.8e12,
                 scaleup=900e9 / 2, scaleout=400e9 / 8),
    # NVIDIA HGX page, HGX B200 (8 GPUs): "FP16/BF16 36 PFLOPS*", "FP8 72 PFLOPS*" (*with
    # sparsity); DGX B200 user guide: "1,440 GB" total (180 per GPU), NVSwitch "14.4 TB/s"
    # aggregate (1.8 TB/s per GPU), 8x ConnectX-7 "up to 400Gbps"; DGX B200: "64 TB/s" HBM3e
    "B200": dict(bf16=36e15 / 8 / 2, fp8=72e15 / 8 / 2, hbm=1440 / 8 * GIB, hbm_bw=64e12 / 8,
                 scaleup=14.4e12 / 8 / 2, scaleout=400e9 / 8),
    # NVIDIA GB200 NVL72 page (72 GPUs, one NVLink domain): "FP16/BF16 360 PFLOPS*", "FP8/FP6
    # 720 PFLOPS*" (*with sparsity), per-GPU "186 GB HBM3E", "576 TB/s" rack HBM bandwidth,
    # "NVLink Switch System 130 TB/s" (1.8 TB/s per GPU, NVLink 5); one 400 Gb/s NIC per GPU
    "GB200-NVL72": dict(bf16=360e15 / 72 / 2, fp8=720e15 / 72 / 2, hbm=186 * GIB,
                        hbm_bw=576e12 / 72, scaleup=1.8e12 / 2, scaleout=400e9 / 8),
    # AMD Instinct MI300X data sheet: "BF16 1307.4", "FP8 2614.9" TFLOPS (dense; sparsity listed
    # apart), "192 GB HBM3", "5.3 TB/s", "7 Infinity Fabric links" of "128 GB/s" (bidirectional);
    # Azure ND MI300X v5: InfiniBand 8 x 400 Gb NDR for 8 GPUs
    "MI300X": dict(bf16=1307.4e12, fp8=2614.9e12, hbm=192 * GIB, hbm_bw=5.3e12,
                   scaleup=7 * 128e9 / 2, scaleout=400e9 / 8),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_headline_figures_match_the_datasheet(name):
    want = CASES[name]
    a = llmcost.load_accelerator(name)
    # the datasheets print 4-5 significant figures (989.4 TFLOPS, 3.35 TB/s): 1e-3 two-sided
    assert a.peak_flops_per_s("bf16") == pytest.approx(want["bf16"], rel=1e-3)
    assert a.peak_flops_per_s("fp8") == pytest.approx(want["fp8"], rel=1e-3)
    assert a.hbm_bytes == want["hbm"]                   # whole GiB: exact
    assert a.hbm_bytes_per_s == pytest.approx(want["hbm_bw"], rel=1e-3)
    assert a.scaleup_bytes_per_s_per_dir == pytest.approx(want["scaleup"], rel=1e-3)
    assert a.scaleout_bytes_per_s_per_dir == pytest.approx(want["scaleout"], rel=1e-3)


def test_the_binary_reading_fits_what_the_driver_reports():
    # nvidia-smi's usable memory (data/accelerators.csv notes: H100 81,559 MiB, H200 143,771
    # MiB, B200 183,359 MiB) exceeds the decimal reading of "80 GB" / "141 GB" / "180 GB" and
    # sits below the binary one: the stored capacity is the binary reading
    for name, usable_mib in (("H100-SXM", 81_559), ("H200", 143_771), ("B200", 183_359)):
        a = llmcost.load_accelerator(name)
        assert a.hbm_bytes / GIB * 1e9 < usable_mib * 2**20 <= a.hbm_bytes, name
