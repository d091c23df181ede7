"""The published GEMM ceilings of Blackwell and Blackwell Ultra (data/gemm_mamf_blackwell.csv).

Source: stas00/ml-engineering compute/accelerator/README.md @ 744d01e18b79512572f64a6bbd8b5f4a725203a7,
'Maximum Achievable Matmul FLOPS comparison table' (mamf-finder.py, best shape, mean of 100
iterations): BF16 B200 SXM 1745.0 / 2250 = 77.6%, B300 SXM 1769.0 / 2250 = 78.6%, GB200 SXM
1822.0 / 2500 = 72.9%; FP8 B200 SXM 3432.5 / 4500 = 76.3%, B300 SXM 3353.3 / 4500 = 74.5%, GB200 SXM
3615.6 / 5000 = 72.3%. No GB300 row is published there.
"""

import pandas as pd
import pytest

import llmcost
from llmcost.core import catalog

# The table as published (accelerator, dtype): (MAMF TFLOPS, theory TFLOPS, efficiency %)
PUBLISHED = {("B200 SXM", "bf16"): (1745.0, 2250, 77.6), ("B300 SXM", "bf16"): (1769.0, 2250, 78.6),
             ("GB200 SXM", "bf16"): (1822.0, 2500, 72.9), ("B200 SXM", "fp8"): (3432.5, 4500, 76.3),
             ("B300 SXM", "fp8"): (3353.3, 4500, 74.5), ("GB200 SXM", "fp8"): (3615.6, 5000, 72.3)}


def _table():
    return catalog.load_gemm_mamf().set_index(["accelerator_measured", "dtype"])


def test_stored_points_are_the_published_table():
    t = _table()
    assert set(t.index) == set(PUBLISHED)
    for key, (mamf, theory, eff) in PUBLISHED.items():
        r = t.loc[key]
        assert r["mamf_tflops"] == pytest.approx(mamf, abs=0.05)
        assert r["theory_tflops"] == pytest.approx(theory, abs=0.5)
        assert r["efficiency_published"] == pytest.approx(eff / 100, abs=5e-4)
        # the table's efficiency column is MAMF / theory, rounded to 0.1 %
        assert r["mamf_tflops"] / r["theory_tflops"] == pytest.approx(eff / 100, abs=6e-4)
        assert "744d01e18b79512572f64a6bbd8b5f4a725203a7" in r["source"]


def test_theory_is_the_catalogue_peak():
    # the table divides by the same dense peaks as data/accelerators.csv (HGX B200 2.25 / 4.5,
    # GB200 NVL72 2.5 / 5.0 PFLOPS)
    t = catalog.load_gemm_mamf()
    rows = t[t["catalogue_accelerator"] != ""]
    assert set(rows["catalogue_accelerator"]) == {"B200", "GB200-NVL72"}
    for _, r in rows.iterrows():
        peak = llmcost.load_accelerator(r["catalogue_accelerator"]).peak_flops_per_s(r["dtype"])
        assert peak == pytest.approx(r["theory_tflops"] * 1e12, rel=1e-9)


def test_blackwell_ultra_matmul_ceiling_is_blackwells():
    # by hand: 1769.0 / 1745.0 = 1.0138 (BF16), 3353.3 / 3432.5 = 0.9769 (FP8): the HGX B300
    # (Blackwell Ultra) reaches B200's matmul rate, not more; no GB300 measurement is published
    t = _table()["mamf_tflops"]
    assert t[("B300 SXM", "bf16")] / t[("B200 SXM", "bf16")] == pytest.approx(1.0138, abs=5e-4)
    assert t[("B300 SXM", "fp8")] / t[("B200 SXM", "fp8")] == pytest.approx(0.9769, abs=5e-4)


def test_catalogue_prices_gb200_and_gb300_at_b200s_measured_rate():
    # data/efficiency.csv: GB200 and GB300 matmul_fraction 0.698 x 2,500 TFLOPS = 1,745 TFLOPS,
    # B200's measured BF16 MAMF; GB200's own measurement (1,822) is 4.4% above it (stored, not used)
    t = _table()["mamf_tflops"]
    for name in ("GB200-NVL72", "GB300-NVL72"):
        rate = (llmcost.load_efficiency(name).matmul_fraction
                * llmcost.load_accelerator(name).peak_flops_per_s("bf16"))
        assert rate == pytest.approx(t[("B200 SXM", "bf16")] * 1e12, rel=2e-3)
    assert t[("GB200 SXM", "bf16")] / t[("B200 SXM", "bf16")] == pytest.approx(1.0441, abs=5e-4)


def test_gb300_attention_forward_exceeds_hgx_b300_gemm_ceiling():
    # NVIDIA/cudnn-frontend benchmark/sdpa_benchmark_training results @ fb682ce7 (stored in
    # data/attention_kernel_blackwell.csv): BF16 causal forward, head dim 192/128, 32,768
    # tokens, 1,991 TFLOPS on GB300 and 1,743 on GB200 (the script's count: 2 x unmasked
    # elements x (d_qk + d_v)). GB300's tensor cores sustain more than HGX B300's whole-GEMM
    # MAMF (1,769), so that ceiling does not bound GB300; on GB200 the attention forward stays
    # below its own GEMM MAMF (1,822), as a kernel with a softmax between its matmuls should.
    a = pd.read_csv(catalog.DATA_DIR / "attention_kernel_blackwell.csv")
    a = a[(a["dtype"] == "bf16") & (a["pass"] == "forward")]
    best = a.groupby("accelerator")["tflops"].max()
    assert best["GB300-NVL72"] == pytest.approx(1991, abs=0.5)
    assert best["GB200-NVL72"] == pytest.approx(1743, abs=0.5)
    t = _table()["mamf_tflops"]
    assert best["GB300-NVL72"] > t[("B300 SXM", "bf16")]
    assert best["GB200-NVL72"] < t[("GB200 SXM", "bf16")]


def test_gb300_differs_from_gb200_by_the_datasheet_alone_and_says_so():
    # No GB300 GEMM measurement is published (stas00's table above has none), so GB300 and GB200
    # differ by the datasheet: the same dense BF16 2.5 / FP8 5 PFLOPS (Verda's per-GPU table,
    # data/accelerators.csv), hence the same priced rate, and its row says the difference is
    # unvalidated
    gb300, gb200 = (llmcost.load_accelerator(n) for n in ("GB300-NVL72", "GB200-NVL72"))
    for dtype, peak in (("bf16", 2.5e15), ("fp8", 5.0e15)):
        assert gb300.peak_flops_per_s(dtype) == gb200.peak_flops_per_s(dtype) == pytest.approx(peak)
    assert (llmcost.load_efficiency("GB300-NVL72").matmul_fraction
            == llmcost.load_efficiency("GB200-NVL72").matmul_fraction)
    # ... and the same per-shape GEMM term (the Blackwell table's, gemm.GEMM_FAMILY): a GB300
    # missing from the family was priced at the flat ceiling at every shape, faster than GB200
    # on small GEMMs (0.698 against 0.616 of the peak at 4096³)
    from llmcost.training import gemm
    for dt in ("bf16", "fp8"):
        assert gemm.gemm_shape("GB300-NVL72", dt) == gemm.gemm_shape("GB200-NVL72", dt)
        assert gemm.gemm_fraction(4096, 4096, 4096, "GB300-NVL72", dt) == pytest.approx(
            gemm.gemm_fraction(4096, 4096, 4096, "GB200-NVL72", dt), rel=1e-12)
    notes = catalog.list_efficiency().set_index("accelerator").loc["GB300-NVL72", "notes"]
    assert "the difference from GB200 is unvalidated" in notes
    assert "No GB300 GEMM measurement is published" in notes
    assert not any("GB300" in a for a in _table().index.get_level_values(0))
