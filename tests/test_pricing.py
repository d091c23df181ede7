"""The owned GPU-hour (``llmcost.bill.pricing``) against hand derivations from its sources:
Cottier et al. 2024 (arXiv:2405.21015 §2.2-2.3, App. A.4) and Epoch AI's code for it
(github:epoch-research/training-cost-trends at 3c6aafa: hardware.py get_server_cost_overhead,
energy.py chip_to_server_power, cost.py estimate_hardware_capex_energy_cost)."""

import math

import pytest

from llmcost.bill import pricing

# Epoch's cost.py: "Hardware progress rate k OOMs/year => optimal to replace k * np.log(10) per
# year", k = 0.14 (Cottier et al. §2.2); Epoch's interconnect share 0.19; a year of 8,766 h.
CHARGE_PER_YEAR = 0.14 * math.log(10)  # = 0.3224 of the start value per year of use
EIA_2025_USD_KWH = 0.0861  # US industrial, mean of 2025's monthly prices (test_ledger.py)


def test_server_cost_multiplier_is_epochs_per_generation():
    # hardware.py get_server_cost_overhead @ 3c6aafa: 'A100' in name -> 1.66, 'V100' 1.69,
    # 'P100' 1.54, else 1.64 ("average")
    for name in ("A100-40GB", "A100-80GB"):
        assert pricing.server_cost_multiplier(name) == pytest.approx(1.66, abs=1e-9)
    for name in ("H100-SXM", "H200", "B200", "MI300X"):
        assert pricing.server_cost_multiplier(name) == pytest.approx(1.64, abs=1e-9)


def test_server_power_per_tdp_by_hand():
    # energy.py chip_to_server_power: DGX A100 6.5 kW / 8 GPUs / 0.4 kW = 2.031; DGX H100
    # 10.2 kW / 8 / 0.7 kW = 1.821 (the CSV rounds to 2 decimals). Epoch takes 1.8 for a name
    # without "H100" or "A100" (H200, H800, B200): the workbook's 1.82 is 1.1% above it.
    assert pricing.server_power_per_tdp("A100-40GB") == pytest.approx(6.5 / 8 / 0.4, rel=0.005)
    assert pricing.server_power_per_tdp("H100-SXM") == pytest.approx(10.2 / 8 / 0.7, rel=0.005)
    for name in ("H200", "H800", "B200"):
        assert pricing.server_power_per_tdp(name) / 1.8 - 1 == pytest.approx(0.011, abs=0.002)


def test_nvl72_rack_power_against_nvidia_reference_architectures():
    # NVIDIA Enterprise RA, NVL72 AI factory, components page: GB300 NVL72 "Full rack
    # requiring up to 142 kW" for 72 GPUs of 1.4 kW TDP: 142 / 72 / 1.4 = 1.409 per TDP, so the
    # rack's server power (72 GPUs x TDP x ratio) must come back to 142 kW within 0.5%.
    gb300 = pricing.server_power_per_tdp("GB300-NVL72")
    assert gb300 == pytest.approx(142 / 72 / 1.4, rel=0.005)
    assert 72 * 1.4 * gb300 == pytest.approx(142, rel=0.005)
    # GB200 (no NVIDIA rack figure): the GB300 rack less 72 × the TDP difference, 1.4 − 1.2 kW:
    # 127.6 kW a rack; bounded by NVIDIA's DGX SuperPOD GB200 RA, a scalable unit of 8 racks
    # (576 GPUs) that "requires a Thermal Design Power (TDP) of 1.2 Megawatts" with its
    # InfiniBand switches: 2.083 kW a GPU, which a rack without the network must not exceed
    gb200_kw = 1.2 * pricing.server_power_per_tdp("GB200-NVL72")
    assert 72 * gb200_kw == pytest.approx(142 - 72 * (1.4 - 1.2), rel=0.005)
    assert gb200_kw < 1.2e3 / 576
    # a GB200 GPU (1.2 kW TDP) draws less than a GB300 one (1.4 kW) in the same rack design
    assert gb200_kw < 1.4 * gb300
    # The facility draw follows: 1.4 kW x 1.409 x 0.75 (power_to_tdp) x 1.1 (PUE) = 1.627 kW.
    assert pricing.facility_kw_per_gpu("GB300-NVL72") == pytest.approx(
        1.4 * 142 / 72 / 1.4 * 0.75 * 1.1, rel=0.005)


def test_owned_a100_hour_uses_the_a100_multiplier_by_hand():
    # $15,000 A100-40GB (the series' list price, data/hardware_price_series.csv):
    #   capex  = 15,000 × 1.66 / (1 − 0.19) × 0.3224 / 8,766 h = $1.1305/GPU-h
    #            (1.66 / 1.64 = 1.2% above the same hour at the generic 1.64: $1.1168)
    #   energy = 0.4 kW × 2.03 × 0.75 × 1.1 (PUE) × $0.0861/kWh = 0.6699 kW × $0.0861 = $0.05768
    own = pricing.owned_usd_per_gpu_hour("A100-40GB", 15_000)
    assert own["capex_usd_per_gpu_hour"] == pytest.approx(1.1305, abs=1e-4)
    assert own["capex_usd_per_gpu_hour"] / (
        15_000 * 1.64 / 0.81 * CHARGE_PER_YEAR / 8766) == pytest.approx(1.66 / 1.64, rel=1e-9)
    assert own["kw_per_gpu"] == pytest.approx(0.6699, abs=1e-4)
    assert own["energy_usd_per_gpu_hour"] == pytest.approx(0.6699 * EIA_2025_USD_KWH, rel=1e-3)


def test_a_year_of_use_is_charged_32_percent_of_the_start_value():
    # The charge is 0.14·ln 10 = 32.2% of the start value per year of use; the value itself
    # falls 1 − 10^−0.14 = 27.6% over a year (to 72.4%: Cottier et al. §2.2 "approximately
    # 72%"). The two differ: the charge is a rate on the start value, not the year's loss.
    own = pricing.owned_usd_per_gpu_hour("H100-SXM")
    cluster = 27_500 * 1.64 / (1 - 0.19)  # $55,679 per GPU
    year_charge = own["capex_usd_per_gpu_hour"] * 8766 / cluster
    assert year_charge == pytest.approx(0.3224, abs=1e-4)
    assert 1 - 10 ** -pricing.default("depreciation_ooms_per_year") == pytest.approx(
        0.276, abs=1e-3)


def test_owned_hour_range_h100_by_hand():
    # Ends of the sourced ranges (data/ledger_defaults.csv): $25,000-$30,000 (Raymond James via
    # Tae Kim, Barron's, 2023-08-16) and PUE 1.1-1.25 (Cottier et al. App. A.4):
    #   low   $25,000 × 1.64 / 0.81 × 0.3224 / 8,766 = $1.8614 + 0.7 × 1.82 × 0.75 × 1.1
    #         = 1.05105 kW × $0.0861 = $0.0905  -> $1.952
    #   point $27,500: $2.0476 + $0.0905 = $2.138
    #   high  $30,000: $2.2337 + 1.194375 kW (PUE 1.25) × $0.0861 = $0.1028 -> $2.337
    # (the same figures tests/test_check_trial21.py derives as OWNED_LOW and OWNED_HIGH)
    r = pricing.owned_hour_range("H100-SXM")
    assert r["low"] == pytest.approx(1.952, abs=1e-3)
    assert r["point"] == pytest.approx(2.138, abs=1e-3)
    assert r["high"] == pytest.approx(2.337, abs=1e-3)
    assert r["price"] == (25_000, 30_000) and r["pue"] == (1.1, 1.25)
    assert "$1.95–$2.34" in r["words"]


def test_owned_hour_range_refuses_an_unsourced_price():
    # only the H100-SXM has a sourced purchase price in the workbook
    with pytest.raises(ValueError, match="A100-40GB needs ledger_owned_usd_per_gpu"):
        pricing.owned_hour_range("A100-40GB")


def test_default_rejects_an_unknown_key():
    with pytest.raises(ValueError, match="'no_such_key' must be one of"):
        pricing.default("no_such_key")


def test_owned_hardware_without_a_power_figure_says_what_to_give(tmp_path):
    # TPU v5p has no published TDP in data/accelerators.csv: owned pricing cannot price its
    # energy, and the refusal names the two scenario keys that price the run without it
    # (it said only "the energy line needs it", which no key can supply)
    from llmcost.bill.pricing import facility_kw_per_gpu
    import llmcost
    from llmcost.present import report
    with pytest.raises(ValueError, match=r"accelerator='TPU v5p' has no tdp_w .*give the owned "
                                         r"hourly rate with its energy included "
                                         r"\(price_usd_per_gpu_hour with pricing: owned\), or "
                                         r"price the run rented"):
        facility_kw_per_gpu(llmcost.load_accelerator("TPU v5p"))
    sc = tmp_path / "v5p.yaml"
    sc.write_text("model: llama-2-13b\naccelerator: TPU v5p\nn_gpus: 64\ntrain_tokens: 3e11\n"
                  "mfu: 0.45\npricing: owned\nprice_usd_per_gpu_hour: 1.5\n")
    assert report.estimate_ledger(str(sc)).total_usd > 0   # the advice works


def test_the_default_purchase_price_is_said_with_its_basis_and_date():
    # A procurement trial read "owned: $27,500 per GPU amortised as Cottier et al. 2024" beside
    # 2026 rental prices, with no date or source: the default is the midpoint of a Raymond James
    # estimate, an H100 sells for $25,000-$30,000, reported by Tae Kim (Barron's) on 2023-08-16.
    own = pricing.owned_usd_per_gpu_hour("H100-SXM")
    assert own["acquisition_default"] and own["acquisition_usd_per_gpu"] == (25_000 + 30_000) / 2
    words = pricing.owned_price_words(own)
    assert words.startswith("owned: $27,500 per GPU (the workbook's default: the midpoint of a "
                            "$25,000-$30,000 H100 sale price, a Raymond James estimate reported "
                            "2023-08; ledger_owned_usd_per_gpu for your quote) amortised as ")
    given = pricing.owned_usd_per_gpu_hour("H100-SXM", 40_000)
    assert not given["acquisition_default"]
    assert pricing.owned_price_words(given).startswith("owned: $40,000 per GPU amortised as ")


def test_a_hardware_row_and_a_compare_say_which_owned_price_they_bill():
    # The trial's owned B200 at its $40,000 purchase: the hardware table's H100 row read
    # "owned: purchase price amortised with energy (..., ledger_owned_usd_per_gpu)", though the
    # scenario's price is its B200's and the H100 row bills the $27,500 default; and its
    # compare read "ledger_pue null → 1.3" where null bills PUE 1.1 (Cottier et al. App. A.4).
    import llmcost
    from llmcost.bill import levers
    from llmcost.present.glance import other_inputs_differing
    s = {**llmcost.load_scenario(llmcost.SCENARIO_DIR / "default.yaml"), "pricing": "owned",
         "price_usd_per_gpu_hour": None, "accelerator": "B200", "n_gpus": 64,
         "ledger_owned_usd_per_gpu": 40_000.0, "ledger_pue": 1.3}
    ok, where = levers._sweep_price_available(levers._moved_to(s, "H100-SXM"), "H100-SXM")
    assert ok and where.startswith("owned: $27,500 per GPU (the workbook's default")
    assert levers._sweep_price_available(s, "B200")[1] == levers.OWNED_PRICE_SOURCE
    h100 = {**s, "accelerator": "H100-SXM", "ledger_owned_usd_per_gpu": None, "ledger_pue": None}
    bills = [llmcost.build_ledger(x) for x in (h100, s)]
    said = other_inputs_differing(bills)
    assert "ledger_owned_usd_per_gpu null ($27.5k, the default) → $40.0k" in said
    assert "ledger_pue null (1.1, the default) → 1.3" in said
    # an owned bill with its own hourly price amortises no purchase: null bills no default there
    priced = llmcost.build_ledger({**h100, "price_usd_per_gpu_hour": 1.5})
    assert not any("the default" in x for x in other_inputs_differing([priced, bills[1]]))
