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


def test_transcribed_prices_are_all_in_the_catalogue():
    # api-evangelist/lambda-labs plans/lambda-labs-plans-pricing.yml (Lambda's page, 2026-09-20):
    # "8x NVIDIA A100 SXM 40 GB", $1.99 per GPU per hour; api-evangelist/coreweave
    # plans/coreweave-plans-pricing.yml (CoreWeave's page, same day): "NVIDIA L40S (on-demand)"
    # $18.00 per hour for 8 GPUs = $2.25 per GPU-hour
    lam = llmcost.list_prices("A100-40GB", "on_demand", current_only=True)
    assert lam.loc[lam["provider"] == "Lambda", "price_usd_per_gpu_hour"].tolist() == [1.99]
    cw = llmcost.list_prices("L40S", "on_demand", current_only=True)
    assert cw.loc[cw["provider"] == "CoreWeave", "price_usd_per_gpu_hour"].tolist() == \
        [pytest.approx(18.00 / 8, rel=1e-12)]


def test_a_row_out_of_the_median_says_why():
    # current = false: kept for reference, never in a median; the notes say superseded or not an
    # offer of the accelerator alone
    old = llmcost.list_prices()
    old = old[~old["current"]]
    assert len(old)
    for _, r in old.iterrows():
        assert any(w in r["notes"].lower() for w in ("superseded", "not current",
                                                     "not used for the catalogue median")), r
    # TPU list prices without a primary copy are marked unverified
    tpu = llmcost.list_prices("TPU v5e")
    assert tpu["notes"].str.contains("Unverified").all()
