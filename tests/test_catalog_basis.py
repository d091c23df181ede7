"""Catalogue figures whose basis the notes state (data/accelerators.csv, data/models.csv)."""

import pytest

import llmcost


def test_b200_hbm_is_the_enabled_180_gib():
    # NVIDIA DGX B200 user guide: 8x B200 = 1,440 GB total, 180 GB per GPU, read as binary
    # (nvidia-smi reports 183,359 MiB usable, which 180 GiB holds and 180e9 bytes would not);
    # the 192 GB of the marketing figure is the physical HBM, not the enabled capacity
    b200 = llmcost.load_accelerator("B200")
    assert b200.hbm_bytes == 180 * 2**30 == 193_273_528_320
    assert 183_359 * 2**20 <= b200.hbm_bytes < 192 * 2**30
    assert 183_359 * 2**20 > 180e9


def test_gpt_oss_active_count_basis():
    # OpenAI 2025 gpt-oss model card: 5.13B active parameters, the input embedding left out;
    # the catalogue counts it: + vocab x d_model = 201,088 x 2,880 = 579,133,440
    m = llmcost.load_model("gpt-oss-120b")
    emb = 201_088 * 2_880
    assert m.vocab_size * m.d_model == emb == 579_133_440
    assert m.n_active_params - emb == 5_132_849_472
    assert m.official_active_params == pytest.approx(m.n_active_params - emb, rel=1e-3)
    assert m.official_active_params != pytest.approx(m.n_active_params, rel=0.05)
