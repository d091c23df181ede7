"""The whole bill (llmcost.ledger) and `llmcost estimate`: lines that add up, each pricing mode
and the LoRA count against hand derivations, spot with and without checkpoints, the energy line
against Meta's model cards, and bad scenarios from the command line."""

import json
import math

import nbformat
import numpy as np
import papermill as pm
import pytest
from _cli import run_cli
from _trial_scenarios import trial_8gpu_yaml
from hypothesis import given, settings
from hypothesis import strategies as st

import llmcost
from llmcost import ledger
from llmcost.bill.pricing import default_rows
from llmcost.bill import lora
from llmcost.serving import rl
from llmcost.training import reliability as rel
from llmcost.bill.validation import magnitude_warnings
from llmcost.present.report import NOTEBOOK_DIR
from llmcost.bill.scenario import LEDGER_DEFAULTS, ScenarioError

SCENARIOS = sorted(llmcost.SCENARIO_DIR.glob("*.yaml"))
# Llama 2 70B (Touvron et al. 2023, Table 1; data/models.csv): 80 layers, d_model 8,192, 64
# query and 8 KV heads of 128, SwiGLU d_ff 28,672, vocabulary 32,000, untied output layer.
L, H, KV, DH, FF, V = 80, 8192, 8, 128, 28672, 32000
N_ATTN = L * (2 * H * H + 2 * H * KV * DH)        # W_q, W_o: d×d; W_k, W_v: d×(8·128)
N_FFN = L * 3 * H * FF                            # gate, up, down
N_MATMUL = N_ATTN + N_FFN + V * H                 # + LM head = 68,713,185,280
CORE_FWD_4K = 2 * L * 64 * (DH + DH) * 4096       # QKᵀ and AV, full 4,096 × 4,096 mask
H100_BF16 = 989.4e12  # dense BF16 peak: the H100 SXM datasheet prints 1,978.9 TF with sparsity

#: The default scenario's price (data/scenarios/default.yaml: Lambda on-demand 8x H100 SXM, read
#: 2026-09, data/prices.csv), given explicitly: an omitted price is the catalogue median.
PRICE = {"price_usd_per_gpu_hour": 3.99}


def _cli(*args):
    return run_cli(*args)  # in this process (tests/_cli.py)


def test_hand_counts_match_the_architecture():
    assert N_MATMUL == 68_713_185_280


@pytest.mark.parametrize("changes", [{}, {"pricing": "owned", "price_usd_per_gpu_hour": None},
                                     {"ledger_people": [{"role": "research", "fte": 10}],
                                      "ledger_reserve_fraction": 0.1,
                                      "ledger_rerun_probability": 0.2,
                                      "ledger_sft_tokens": 1e10, "ledger_egress_bytes": 1e12}])
def test_lines_sum_to_the_total(changes):
    bill = ledger.build_ledger(changes)
    t = bill.table()
    body = t[t["key"] != "total"]
    assert body["usd"].sum() == pytest.approx(bill.total_usd, rel=1e-12)
    assert t.loc[t["key"] == "total", "usd"].iloc[0] == pytest.approx(bill.total_usd)
    assert body["share"].sum() == pytest.approx(1.0)
    assert set(body["status"]) <= set(ledger.STATUSES)
    assert set(body["category"]) <= set(ledger.CATEGORIES)
    assert set(body["kind"]) <= {"fixed", "elastic"}


def test_on_demand_compute_line_by_hand():
    # Ideal GPU-hours = D × 3 × (2·N_matmul + core) ÷ (peak × MFU) ÷ 3600 (the MFU basis).
    bill = ledger.build_ledger(PRICE)
    flops_per_token = 3 * (2 * N_MATMUL + CORE_FWD_4K)
    ideal_h = 2e12 * flops_per_token / (H100_BF16 * 0.4) / 3600
    assert ideal_h == pytest.approx(623_963, rel=1e-5)  # notebook 01's figure
    line = bill.line("compute.pretraining.main")
    assert line.usd == pytest.approx(ideal_h * 3.99, rel=1e-9)
    assert line.kind == "elastic"
    # Paid hours are ideal ÷ goodput; the failures line is the difference.
    f = bill.figures
    assert bill.line("compute.failures").usd == pytest.approx(
        (f["paid_gpu_hours"] - ideal_h) * 3.99, rel=1e-9)
    # regression pin (code output 2026-12, not a published figure): the default bill (moved from
    # $5.663M when checkpoint storage became sized from the job: 250 GB/s instead of 100 GB/s;
    # then to $5.669M when it came to be sized from the checkpoint plan, 56 GB/s)
    assert bill.total_usd == pytest.approx(5.6688e6, rel=1e-3)


def test_reserved_compute_is_fixed_and_priced_as_given():
    bill = ledger.build_ledger({"pricing": "reserved", "price_usd_per_gpu_hour": 2.0})
    assert bill.line("compute.pretraining.main").kind == "fixed"
    assert bill.line("compute.pretraining.main").usd == pytest.approx(
        bill.figures["main_ideal_gpu_hours"] * 2.0)


def test_owned_hardware_amortised_as_cottier_by_hand():
    gpu = llmcost.load_accelerator("H100-SXM")
    own = ledger.owned_usd_per_gpu_hour(gpu)
    # $27,500 × 1.64 (server) ÷ (1 − 0.19) (interconnect share) = $55,679 of cluster per GPU,
    # charged 0.14·ln 10 = 32.24% of that start value per year of use (8,766 h; Epoch's cost.py
    # "optimal to replace k * np.log(10) per year"): $55,679 × 0.3224 / 8,766 = $2.0476/GPU-h.
    # Over a whole year the value itself falls 1 − 10^−0.14 = 27.6% (to 72.4%, checked below).
    capex = 27_500 * 1.64 / 0.81 * 0.14 * math.log(10) / 8766
    assert own["capex_usd_per_gpu_hour"] == pytest.approx(capex, rel=1e-9)
    assert own["capex_usd_per_gpu_hour"] == pytest.approx(2.0476, abs=1e-4)
    # Energy: 0.700 kW × 1.82 (server) × 0.75 (average draw) × 1.1 (PUE) × $0.0861/kWh
    # (US EIA industrial price of 2025, test_electricity_price_is_eia_2025_industrial_mean).
    assert own["kw_per_gpu"] == pytest.approx(0.7 * 1.82 * 0.75 * 1.1, rel=1e-9)
    assert own["energy_usd_per_gpu_hour"] == pytest.approx(1.05105 * 0.0861, rel=1e-6)
    # Cottier et al. §2.2: "if the training run starts one year after hardware is acquired, the
    # start value is approximately 72% of the acquisition cost": exp(−0.14 ln 10) = 0.724.
    assert math.exp(-ledger.default("depreciation_ooms_per_year") * math.log(10)) == \
        pytest.approx(0.72, abs=0.005)
    bill = ledger.build_ledger({"pricing": "owned", "price_usd_per_gpu_hour": None})
    assert bill.line("compute.pretraining.main").usd == pytest.approx(
        bill.figures["main_ideal_gpu_hours"] * capex, rel=1e-6)
    energy = bill.line("energy.electricity")
    assert energy.status == "modelled"
    assert energy.usd == pytest.approx(bill.figures["all_gpu_hours"] * 1.05105 * 0.0861, rel=1e-6)
    # the bill's price source says which of the two rates the compute lines use (a trial
    # multiplied GPU-hours by the stated $2.13 and overcounted by the energy line's 4%)
    src = bill.figures["price_source"]
    assert f"${capex:.2f}/GPU-h hardware, the rate of the compute lines" in src
    assert f"+ ${1.05105 * 0.0861:.3f}/GPU-h energy, priced on the electricity line" in src
    # resolve_price (the owned row beside rented ones, levers and claims) is hardware + energy;
    # every notebook (scenario_price) charges the compute lines' rate, in the bill's words
    price, _ = llmcost.resolve_price("H100-SXM", None, "owned")
    assert price == pytest.approx(capex + 1.05105 * 0.0861, rel=1e-6)
    assert bill.figures["gpu_rate_usd_per_gpu_hour"] == pytest.approx(capex, rel=1e-6)
    assert llmcost.scenario_price({"accelerator": "H100-SXM", "pricing": "owned"}) == (
        pytest.approx(capex, rel=1e-6), src)
    with pytest.raises(ValueError, match="ledger_owned_usd_per_gpu"):
        ledger.build_ledger({"pricing": "owned", "price_usd_per_gpu_hour": None,
                             "accelerator": "A100-80GB"})


def test_spot_with_checkpoints_adds_preemptions_to_the_failure_model():
    on = ledger.build_ledger({"price_usd_per_gpu_hour": 2.46})
    # a user's figures: one pre-emption per 8-GPU node a week, 30 minutes to restart (the
    # workbook has no default: no provider publishes a per-node rate)
    spot = ledger.build_ledger({"pricing": "spot", "price_usd_per_gpu_hour": 2.46,
                                "ledger_spot_preemptions_per_node_day": 1 / 7,
                                "ledger_spot_restart_s": 1800.0})
    # one pre-emption per 8-GPU node a week = 365.25 / 7 / 8 = 6.52 extra failures per GPU-year
    lam = 0.173 + 365.25 / 7 / 8
    # storage sized from the checkpoint plan (reliability.sized_storage_bytes_per_s), at the
    # spot failure rate and restart time
    bw = spot.figures["ckpt_storage_bytes_per_s"]
    assert "sized from the checkpoint plan" in spot.figures["ckpt_storage_source"]
    plan = llmcost.checkpoint_plan(llmcost.load_model("llama-2-70b").n_params, 2048, lam, bw,
                                   1800.0, gpus_per_node=8, node_bytes_per_s=5e10,
                                   planned_per_day=0.87,
                                   run_s=spot.figures["main_ideal_days"] * 86400)
    assert spot.figures["goodput"] == pytest.approx(plan.goodput, rel=1e-12)
    # without ledger_spot_restart_s the restart is the scenario's ckpt_restart_s
    own = ledger.build_ledger({"pricing": "spot", "price_usd_per_gpu_hour": 2.46,
                               "ledger_spot_preemptions_per_node_day": 1 / 7})
    assert ledger.failure_model(own.scenario, 8) == pytest.approx((lam, 600.0, 1 / 7),
                                                                  rel=1e-12)
    assert spot.figures["goodput"] < on.figures["goodput"]
    assert spot.line("compute.failures").usd > 10 * on.line("compute.failures").usd


def test_no_checkpoints_restart_from_scratch_daly_one_segment():
    # A short job that cannot resume: expected wall time M·e^{R/M}·(e^{T/M} − 1) (Daly 2006 with
    # a single segment τ = T and no checkpoint cost), M the mean time between interruptions of
    # any kind: failures (n·λ) and the default 0.87 planned stops a day (Llama 3's 47 in 54
    # days, arXiv:2407.21783 §3.3.4), each of which restarts a job that cannot resume.
    sc = {"model": "llama-3.1-8b", "n_gpus": 64, "train_tokens": 2e9, "seq_len": 4096,
          "ledger_resumable": False}
    bill = ledger.build_ledger(sc)
    f = bill.figures
    t = f["main_ideal_gpu_hours"] / 64 * 3600
    m = 1 / (64 * 0.173 / (365.25 * 86400) + 0.87 / 86400)
    wall = m * math.exp(600 / m) * math.expm1(t / m)
    assert f["goodput"] == pytest.approx(t / wall, rel=1e-9)
    assert bill.line("storage.checkpoints").usd == 0
    from llmcost.bill.scenario import ScenarioNeverFinishes  # the kind a lever reads as −inf
    with pytest.raises(ScenarioNeverFinishes, match="never finishes"):
        ledger.build_ledger({**sc, "n_gpus": 16384, "train_tokens": 1.5e13, "model":
                             "llama-3.1-405b", "pricing": "spot", "price_usd_per_gpu_hour": 2.0,
                             "ledger_spot_preemptions_per_node_day": 1 / 7})
    # the job's MTBF in a unit that fits it: M = 1 / (n·λ) = 31,557,600 s / (1e6 × 0.173)
    # = 182.4 s on a million GPUs (a teacher's trial printed "an MTBF of 0.0 h"); with 0.87
    # planned stops a day, 1 / (1/182.4 + 0.87/86,400) = 182.07 s between interruptions
    with pytest.raises(ScenarioNeverFinishes, match=r"interruptions of 3\.03 min, counting "
                       r"failures \(MTBF 3\.04 min\) and planned stops "
                       r"\(fail_planned_per_day=0\.87\)"):
        ledger.build_ledger({**sc, "n_gpus": 1_000_000, "train_tokens": 1.5e13,
                             "model": "llama-3.1-405b"})


def _trial_8gpu(tmp_path, extra=""):
    return llmcost.load_scenario(trial_8gpu_yaml(tmp_path, extra))


def test_no_checkpoints_is_never_cheaper_than_checkpoints_trial_8gpu(tmp_path):
    """A new-user trial: ``ledger_resumable: false`` made the bill cheaper, because the run
    without checkpoints counted only the unexpected failures while the checkpointed one also
    paid the planned interruptions (``fail_planned_per_day``). Llama 3 (Dubey et al. 2024,
    arXiv:2407.21783 §3.3.4) counts 466 interruptions in 54 days: 419 unexpected (its Table 5,
    data/llama3_interruptions.csv) and 47 planned (automated maintenance), the default 0.87 a
    day = 47/54. A planned stop also restarts a job that cannot resume.

    By hand (a textbook result: a job of T seconds that restarts from scratch at every event of
    a Poisson process of rate λ takes E = (e^{λT} − 1)/λ; with a restart R after each event,
    itself exposed to events, E = e^{λR}(e^{λT} − 1)/λ, Daly 2006 with one segment):
    λ = 8 × 0.173 / 365.25 + 0.87 = 0.873789 per day; T = 592.74 GPU-h / 8 = 3.0872 days at
    the MFU point 0.35, λT = 2.6976, e^{λT} = 14.845, (e^{λT} − 1)/(λT) = 5.1325;
    R = 600 s: e^{λR} = e^{0.006068} = 1.006086, E/T = 5.1637, goodput = 1/5.1637 = 19.37%.
    The checkpointed run of the same scenario keeps 99.2%."""
    bare = _trial_8gpu(tmp_path, "ledger_resumable: false\n")
    off, on = ledger.build_ledger(bare), ledger.build_ledger({**bare, "ledger_resumable": True})
    ideal = off.figures["main_ideal_gpu_hours"]
    assert ideal == pytest.approx(592.74, rel=1e-4)  # the trial's 593 ideal GPU-h
    lam = (8 * 0.173 / 365.25 + 0.87) / 86400  # per second
    t = ideal / 8 * 3600
    wall = math.exp(lam * 600) * math.expm1(lam * t) / lam
    assert off.figures["goodput"] == pytest.approx(t / wall, rel=1e-9)
    assert off.figures["goodput"] == pytest.approx(0.1937, abs=1e-4)  # the hand figures above
    assert on.figures["goodput"] == pytest.approx(0.992, abs=1e-3)
    assert off.figures["goodput"] <= on.figures["goodput"]
    # the failures line is the paid − ideal GPU-hours of the main run at the price point $3
    fail = off.line("compute.failures")
    assert fail.usd == pytest.approx((ideal / off.figures["goodput"] - ideal) * 3.0, rel=1e-9)
    assert fail.usd > on.line("compute.failures").usd
    assert "a failure or a planned stop restarts the run" in fail.how
    assert "interruption_mtbf_s" in fail.source
    assert off.total_usd > on.total_usd
    # without planned stops (fail_planned_per_day: 0) the order holds too: only failures, at
    # λ = 8 × 0.173 / 365.25 per day, restart either run
    quiet = {**bare, "fail_planned_per_day": 0.0}
    g_off = ledger.build_ledger(quiet).figures["goodput"]
    lam = 8 * 0.173 / 365.25 / 86400
    assert g_off == pytest.approx(t / (math.exp(lam * 600) * math.expm1(lam * t) / lam),
                                  rel=1e-9)
    assert g_off <= ledger.build_ledger({**quiet, "ledger_resumable": True}).figures["goodput"]


@given(st.one_of(st.just(0.0), st.floats(1e-6, 5.0)),
       st.one_of(st.just(0.0), st.floats(1e-6, 50.0)), st.integers(1, 4096))
@settings(max_examples=60, deadline=None)
def test_interruption_mtbf_adds_the_rates(planned_per_day, rate_per_gpu_year, n_gpus):
    """Superposition of independent Poisson processes (Tijms, A First Course in Stochastic
    Models, 2003, §1.1.2): the rates add, 1/M_all = 1/M + p/86,400; no planned stops leave M
    alone."""
    m = llmcost.cluster_mtbf_s(n_gpus, rate_per_gpu_year)
    got = rel.interruption_mtbf_s(m, planned_per_day)
    want = n_gpus * rate_per_gpu_year / (365.25 * 86400) + planned_per_day / 86400
    assert (got == math.inf) if want == 0 else got == pytest.approx(1 / want, rel=1e-12)
    assert rel.interruption_mtbf_s(m, 0.0) == m
    assert got <= m


@pytest.mark.parametrize("m, p, name", [(0.0, 1.0, "mtbf_s"), (-5.0, 1.0, "mtbf_s"),
                                        (100.0, -1.0, "planned_per_day"),
                                        (100.0, math.nan, "planned_per_day"),
                                        (100.0, math.inf, "planned_per_day"),
                                        (100.0, "1", "planned_per_day")])
def test_interruption_mtbf_refuses_bad_input(m, p, name):
    with pytest.raises(ValueError, match=name):
        rel.interruption_mtbf_s(m, p)


def test_lora_adapter_count_against_hu_et_al():
    # Hu et al. 2021 §7.1: a budget of 18M parameters is r = 4 on two of GPT-3 175B's attention
    # matrices (d_model 12,288, 96 layers: 2 × 4 × 24,576 × 96 = 18.9M); all four at r = 4 is
    # twice that, 37.7M (their Table 4's larger LoRA configuration).
    gpt3 = llmcost.load_model("gpt-3-175b")
    assert ledger.lora_adapter_params(gpt3, 4) == 4 * 4 * (12288 + 12288) * 96
    assert ledger.lora_adapter_params(gpt3, 4) == pytest.approx(37.7e6, rel=2e-3)


def test_lora_flops_are_about_four_n_per_token():
    spec = llmcost.load_model("llama-2-70b")
    n_adapter = L * 16 * ((H + H) + 2 * (H + KV * DH) + (H + H))  # r = 16 on W_q, W_k, W_v, W_o
    hand = 4 * N_MATMUL + 3 * CORE_FWD_4K + 6 * n_adapter
    assert ledger.lora_flops_per_token(spec, 16, 4096) == pytest.approx(hand, rel=1e-12)
    full = llmcost.model_flops_per_token(spec, 4096)
    # "about 4·N instead of 6·N": two thirds, a little more with attention and adapters
    assert 0.66 < ledger.lora_flops_per_token(spec, 16, 4096) / full < 0.70


def test_lora_time_against_hu_et_al_measured_throughput():
    # Hu et al. 2021 §4.2, footnote 5: GPT-3 175B on V100s, the same model parallelism: full
    # fine-tuning 32.5 tokens/s per GPU, LoRA 43.1 ("a 25% speedup": 1 - 32.5/43.1 = 24.6% less
    # time). The bill's LoRA line against its SFT line at equal tokens is that time ratio, not
    # the FLOP ratio (0.69 here), which would underprice LoRA by about 8%.
    measured = 32.5 / 43.1
    assert 1 - measured == pytest.approx(0.25, abs=0.01)
    bill = ledger.build_ledger({"ledger_lora_tokens": 1e9, "ledger_sft_tokens": 1e9})
    ratio = bill.line("post.lora").usd / bill.line("post.sft").usd
    assert ratio == pytest.approx(measured, rel=2e-3)
    spec = llmcost.load_model("llama-2-70b")
    flop_ratio = ledger.lora_flops_per_token(spec, 16, 4096) / llmcost.model_flops_per_token(
        spec, 4096)
    assert flop_ratio < 0.70 < ratio
    # the same time on the LoRA FLOP count is a lower MFU: 40% × 0.691 / 0.754 = 36.7%
    lo = ledger.lora_gpu_hours(spec, 16, 1e9, 4096, 989e12, 0.40)
    assert lo["mfu_lora"] == pytest.approx(0.40 * flop_ratio / measured, rel=2e-3)
    assert "MFU 36.7% on this count" in bill.line("post.lora").how
    # on GPT-3 175B itself the FLOP ratio is 0.676: the measured time is 1.12x the FLOP price
    gpt3 = llmcost.load_model("gpt-3-175b")
    assert ledger.lora_flops_per_token(gpt3, 4, 2048) / llmcost.model_flops_per_token(
        gpt3, 2048) == pytest.approx(0.676, abs=0.002)


def test_electricity_line_says_which_price_includes_it():
    # A GPU-hour price that carries its electricity: the rented hour, or with pricing: owned the
    # scenario's own price_usd_per_gpu_hour (no amortisation, no energy split out of it). The
    # average draw printed is the default's (Cottier et al. 2024 App. A.4: 0.75 of TDP).
    rented = ledger.build_ledger({"pricing": "on_demand", "price_usd_per_gpu_hour": 2.0})
    owned_given = ledger.build_ledger({"pricing": "owned", "price_usd_per_gpu_hour": 2.0})
    owned = ledger.build_ledger({"pricing": "owned", "price_usd_per_gpu_hour": None})
    assert rented.line("energy.electricity").how.endswith("included in the rented GPU-hour price")
    assert owned_given.line("energy.electricity").how.endswith(
        "included in the given price_usd_per_gpu_hour")
    for b in (rented, owned_given):
        assert b.line("energy.electricity").usd == 0
    assert owned.line("energy.electricity").usd > 0
    assert "× 0.75 average draw × PUE" in owned.line("energy.electricity").how


def test_energy_line_against_the_llama_model_cards():
    # Llama 3.1 model card: 1.46M / 7.0M / 30.84M H100-80GB GPU-hours ("TDP of 700W"), 420 /
    # 2,040 / 8,930 t CO2e location-based, 11,390 t in all. The card counts the GPU's TDP only:
    # 30.84M h × 0.7 kW = 21,588 MWh. The bill counts facility power; the factor between the two
    # conventions, derived from the sources (not from the code's constants):
    #   server: NVIDIA DGX H100 10.2 kW max for 8 GPUs of 700 W -> 10.2 / 8 / 0.7 = 1.821
    #   average draw during training 0.75 of TDP and PUE 1.1 (Cottier et al. 2024, App. A.4)
    factor = 10.2 / 8 / 0.7 * 0.75 * 1.1  # = 1.5027
    assert ledger.energy_terms("H100-SXM")["factor"] == pytest.approx(1.5027, rel=0.005)
    assert ledger.energy_of(30.84e6, "H100-SXM")["mwh_tdp"] == pytest.approx(21_588, rel=1e-9)
    bill = ledger.build_ledger({"model": "llama-3.1-405b", "accelerator": "H100-SXM"})
    f = bill.figures
    per_h = f["energy_mwh"] / f["all_gpu_hours"]  # the bill's MWh per GPU-hour
    # the bill's energy at the card's GPU-hours = the card's TDP energy × the stated factor
    assert per_h * 30.84e6 == pytest.approx(21_588 * factor, rel=0.005)  # CSV rounds to 1.82
    assert f["energy_mwh_tdp_basis"] / f["all_gpu_hours"] * 30.84e6 == pytest.approx(21_588)
    assert "1.50× a count of GPU TDP alone" in bill.line("energy.electricity").how
    # Emissions: on the card's basis (÷ factor) the bill's tCO2e is within the grid gap of the
    # published figures: the bill uses the US average (EIA 2023, 1,532 Mt / 4,183,271 GWh =
    # 0.366 kg/kWh, CO2 only), the card the grids of Meta's data centres (8,930 t / 21,588 MWh
    # = 0.414). So 0.366 / 0.414 = 0.885 of the card, and a band of 0.85-0.92 around it.
    assert ledger.default("grid_kg_co2e_per_kwh") / (8930 / 21_588) == pytest.approx(
        0.885, abs=0.002)
    t_per_h = f["tco2e"] / f["all_gpu_hours"]
    for hours, published in ((1.46e6, 420), (7.0e6, 2040), (30.84e6, 8930), (39.3e6, 11_390)):
        assert 0.85 < t_per_h * hours / factor / published < 0.92, hours
    assert bill.line("energy.electricity").usd == 0  # rented: inside the GPU-hour price
    e = ledger.energy_of(30.84e6, "H100-SXM")
    assert e["mwh"] == pytest.approx(per_h * 30.84e6, rel=1e-9)
    # 32,414 MWh × 0.366 kg/kWh (EIA 2023) = 11,864 t
    assert e["tco2e"] == pytest.approx(e["mwh"] * 1532 / 4183.271, rel=0.001)
    assert e["tco2e"] == pytest.approx(11_864, rel=0.001)  # regression pin


def test_grid_intensity_is_eia_2023_us_average():
    # US EIA FAQ id=74, "How much carbon dioxide is produced per kilowatthour of U.S. electricity
    # generation?" (https://www.eia.gov/tools/faqs/faq.php?id=74&t=3), 2023 table, all energy
    # sources: 4,183,271 million kWh of utility-scale net generation, 1,532 million metric tons
    # of CO2, "about 0.81 pounds of CO2 emissions per kWh".
    # EIA counts CO2 only (no methane or N2O): the key says CO2e, the figure is CO2.
    kg_per_kwh = 1532e6 * 1e3 / 4_183_271e6  # = 0.3662
    assert ledger.default("grid_kg_co2e_per_kwh") == pytest.approx(kg_per_kwh, abs=5e-4)
    # the FAQ's own rounding, 0.81 lb/kWh × 0.45359237 kg/lb = 0.367 kg/kWh: within its 2 digits
    assert ledger.default("grid_kg_co2e_per_kwh") == pytest.approx(0.81 * 0.45359237, rel=0.01)


def test_electricity_price_is_eia_2025_industrial_mean():
    # US EIA, average retail price of electricity to the industrial sector, monthly (Electric
    # Power Monthly, form EIA-861M), as republished by YCharts "US Average Retail Price of
    # Electricity in the Industrial Sector" (update of 2026-04-27), cents per kWh:
    y2025 = [8.34, 8.24, 8.26, 8.21, 8.29, 8.90, 9.33, 9.08, 9.02, 8.65, 8.44, 8.53]
    y2023 = [8.18, 8.01, 7.80, 7.51, 7.64, 8.11, 8.36, 8.90, 8.43, 8.01, 7.79, 7.61]
    usd_kwh = sum(y2025) / 12 / 100  # = $0.08608/kWh
    assert ledger.default("electricity_usd_per_kwh") == pytest.approx(usd_kwh, abs=5e-5)
    # the unweighted mean against EIA's sales-weighted annual price, on 2023 (8.06 cents/kWh,
    # EIA via Statista 2024-03-18): within half a percent, either side
    assert sum(y2023) / 12 / 8.06 - 1 == pytest.approx(0.0, abs=0.005)


def test_energy_terms_are_the_scenarios_accelerators():
    # A trial (OPT-1.3B on A100-40GB) read in notebook 00 that the bill counts "1.50× that
    # energy" (the H100's factor) while its A100 line used 1.67×, under a formula written
    # "× average draw ÷ TDP" (a power over a power, then × PUE: not an energy). By hand from
    # the sources: the factor is (server W ÷ TDP) × (average draw ÷ rated power) × PUE with
    #   DGX A100 6.5 kW / 8 GPUs / 0.4 kW = 2.03;  DGX H100 10.2 kW / 8 / 0.7 kW = 1.82
    #   average draw 0.75, PUE 1.1 (Cottier et al. 2024, arXiv:2405.21015 §2.3, App. A.4)
    a100, h100 = 6.5 / 8 / 0.4 * 0.75 * 1.1, 10.2 / 8 / 0.7 * 0.75 * 1.1  # = 1.676, 1.503
    for name, hand in (("A100-40GB", a100), ("H100-SXM", h100)):
        t = ledger.energy_terms(name)
        assert t["factor"] == pytest.approx(hand, rel=0.005)  # the CSV rounds to 2.03 and 1.82
        assert t["factor"] == pytest.approx(t["server_per_tdp"] * t["draw"] * t["pue"], rel=1e-12)
        assert t["kw_per_gpu"] == pytest.approx(t["tdp_w"] / 1e3 * t["factor"], rel=1e-12)
        assert t["factor"] == pytest.approx(ledger.energy_of(1.0, name)["factor"], rel=1e-12)
        bill = ledger.build_ledger({"model": "opt-1.3b", "accelerator": name, "n_gpus": 8,
                                    "train_tokens": 3e10})
        assert bill.figures["energy_vs_tdp_basis"] == pytest.approx(t["factor"], rel=1e-12)
        assert f"{t['factor']:.2f}× a count of GPU TDP alone" in bill.line(
            "energy.electricity").how
    assert ledger.energy_terms("H100-SXM", pue=1.3)["factor"] == pytest.approx(
        1.82 * 0.75 * 1.3, rel=1e-12)
    with pytest.raises(ValueError, match="tdp_w"):
        ledger.energy_terms("TPU v5p")


def test_default_exploratory_multiplier_nets_out_post_training_and_evaluation():
    # Cottier et al. 2024 §2.5 / App. A.6: total development compute, "including experiments,
    # failed attempts, evaluation and finetuning", is 1.2-4x the final run (median of the
    # log-normal sqrt(1.2 × 4) = 2.19x). The bill's SFT, LoRA, CPT, RL and benchmark lines are
    # inside that multiplier, so the default exploratory line is what remains:
    # 1.19 × final-run GPU-h − post-training − benchmark GPU-h.
    base = ledger.build_ledger(PRICE)
    final_h = base.figures["paid_gpu_hours"]
    assert base.line("compute.exploratory").usd == pytest.approx(1.19 * final_h * 3.99,
                                                                 rel=1e-9)
    sft = ledger.build_ledger({**PRICE, "ledger_sft_tokens": 2e10, "ledger_eval_gpu_hours": 5000.0})
    sft_h = sft.line("post.sft").usd / 3.99
    assert sft.line("compute.exploratory").usd == pytest.approx(
        (1.19 * final_h - sft_h - 5000.0) * 3.99, rel=1e-9)
    assert "less the" in sft.line("compute.exploratory").how
    # development compute as a whole is unchanged: the lines moved out of the multiplier
    dev = lambda b: b.usd("compute.exploratory") + b.usd("post.") + b.usd("eval.benchmarks")
    assert dev(sft) == pytest.approx(dev(base), rel=1e-9)
    # post-training larger than the multiplier: exploratory 0, said on the line
    big = ledger.build_ledger({**PRICE, "ledger_sft_tokens": 1e13})
    assert big.line("compute.exploratory").usd == 0
    assert "they exceed it: 0" in big.line("compute.exploratory").how
    # a fraction the scenario gives is the same multiplier, netted the same way
    given = ledger.build_ledger({**PRICE, "ledger_sft_tokens": 2e10, "ledger_eval_gpu_hours": 5000.0,
                                 "ledger_exploratory_fraction": 1.19})
    assert given.line("compute.exploratory").usd == pytest.approx(
        sft.line("compute.exploratory").usd, rel=1e-9)
    assert given.line("compute.exploratory").status == "modelled"


def test_published_run_gpu_hours_against_the_model_card():
    # Llama 3.1 405B model card: 30.84M H100 GPU-hours for the whole run. The bill's paid
    # GPU-hours of the main 8K phase at Table 4's 41% MFU with the failure model; the long-context
    # stage (about 800B tokens, §3.4.2) is in the card's figure, so the main phase must be below
    # it and within 15%.
    sc = llmcost.load_scenario(llmcost.SCENARIO_DIR / "llama-3.1-405b.yaml")
    bill = ledger.build_ledger({**sc, "phases": []})
    assert 0.85 * 30.84e6 < bill.figures["paid_gpu_hours"] < 30.84e6


def test_phases_and_exploratory_runs():
    base = ledger.build_ledger(PRICE)
    long_ctx = ledger.build_ledger({**PRICE, "phases": [{"name": "long-context", "tokens": 1e11,
                                                "seq_len": 32768}]})
    line = long_ctx.line("compute.pretraining.long-context")
    # A 32K token costs more FLOPs than a 4K one (attention grows with the context).
    per_token = line.usd / 1e11
    assert per_token > base.line("compute.pretraining.main").usd / 2e12
    # its line is paid hours (ideal ÷ its goodput); the failures line stays the main run's
    assert long_ctx.line("compute.failures").usd == pytest.approx(base.line("compute.failures").usd)
    assert long_ctx.figures["final_run_usd"] == pytest.approx(
        base.figures["final_run_usd"] + line.usd)
    # the project runs the phase after the main run on the same GPUs: its wall clock, paid
    # GPU-h ÷ GPUs ÷ 24, adds to the final run's days of the compute schedule, whose sum
    # (exploration, the final run, post-training) are the months that price people, operations
    # and dataset storage (by hand: months = days × 86,400 ÷ (365.25 × 86,400 ÷ 12))
    phase_days = line.usd / 3.99 / long_ctx.figures["n_gpus"] / 24.0
    sched, sched0 = long_ctx.figures["schedule_days"], base.figures["schedule_days"]
    assert sched["final_run"] == pytest.approx(sched0["final_run"] + phase_days, rel=1e-9)
    assert long_ctx.figures["project_months"] == pytest.approx(
        sum(sched.values()) / (365.25 / 12), rel=1e-9)
    assert long_ctx.figures["project_months"] > base.figures["project_months"] + \
        phase_days / (365.25 / 12)       # the exploration scaled on the final run grows too
    assert "the final run with its 1 other pre-training phase" in \
        long_ctx.figures["project_months_source"]
    assert long_ctx.line("storage.datasets").usd > base.line("storage.datasets").usd
    # a project shorter than the main run and its phase is said to be (the checkpoints' hot
    # tier is priced for the main run's days, as notebook 07 prices it)
    assert long_ctx.figures["run_wall_clock_days"] == pytest.approx(
        base.figures["wall_clock_days"] + phase_days, rel=1e-9)
    assert long_ctx.line("storage.checkpoints").usd == base.line("storage.checkpoints").usd
    assert "the main run's days only, not the pre-training phases" in \
        long_ctx.line("storage.checkpoints").how
    short = long_ctx.figures["run_wall_clock_days"] / (365.25 / 12) * 0.99
    said = magnitude_warnings({**PRICE, "phases": [{"name": "long-context", "tokens": 1e11,
                                                    "seq_len": 32768}],
                               "ledger_project_months": short}, long_ctx)
    assert any("shorter than the run's wall clock with its pre-training phases" in w
               for w in said)
    runs = ledger.build_ledger({**PRICE, "ledger_exploratory_runs": [{"name": "ablations",
                                                             "gpu_hours": 1000.0}]})
    assert runs.line("compute.exploratory").usd == pytest.approx(1000 * 3.99)
    frac = ledger.build_ledger({**PRICE, "ledger_exploratory_fraction": 0.5})
    assert frac.line("compute.exploratory").usd == pytest.approx(
        0.5 * frac.figures["final_run_usd"])
    # a change of one way of giving it replaces the other (notebook 00's what-if at three
    # fractions stopped a report whose scenario listed its runs): 1,000 GPU-h at $3.99 listed,
    # then 0.5 x the final run in their place, and back
    swapped = ledger.with_changes(runs, ledger_exploratory_fraction=0.5)
    assert swapped.line("compute.exploratory").usd == pytest.approx(
        0.5 * swapped.figures["final_run_usd"])
    back = ledger.with_changes(swapped, ledger_exploratory_runs=[{"name": "a", "gpu_hours": 10}])
    assert back.line("compute.exploratory").usd == pytest.approx(10 * 3.99)
    with pytest.raises(ValueError, match="are both given"):
        ledger.with_changes(runs, ledger_exploratory_fraction=0.5,
                            ledger_exploratory_runs=[{"name": "a", "gpu_hours": 10}])
    assert base.line("compute.exploratory").status == "default"
    assert ledger.default("exploratory_fraction") == pytest.approx(math.sqrt(1.2 * 4) - 1,
                                                                   abs=0.005)


def test_reserve_and_people():
    bill = ledger.build_ledger({"ledger_rerun_probability": 0.25, "ledger_reserve_fraction": 0.1,
                                "ledger_people": [{"role": "research", "fte": 10,
                                                   "months": 6}]})
    # $444,245 per FTE-year, loaded: the mean of Epoch's salary × overhead + equity
    # (data/ledger_defaults.csv staff_usd_per_fte_year_mean; test_published derives it), ten
    # FTEs being ten people's pay summed
    assert bill.line("people.staff").usd == pytest.approx(10 * 0.5 * 444_245, rel=1e-12)
    assert bill.line("reserve.rerun").usd == pytest.approx(0.25 * bill.figures["final_run_usd"])
    before = sum(ln.usd for ln in bill.lines if ln.usd is not None
                 and ln.key != "reserve.contingency")
    assert bill.line("reserve.contingency").usd == pytest.approx(0.1 * before)


# Llama 2 70B's 68,976,648,192 parameters: the matmul weights, the input embedding (V × H) and
# the RMSNorm gains (2 per layer + the final one).
N_ACTIVE_70B = N_MATMUL + V * H + (2 * L + 1) * H


def test_rl_line_is_not_given_when_the_scenario_describes_no_campaign():
    # The rule: the bill carries RL post-training when the scenario sets the campaign's size
    # (rl_iterations or rl_runs) or ledger_rl: true; otherwise 0 and "not given", never the
    # notebooks' illustrative campaign.
    assert N_ACTIVE_70B == llmcost.load_model("llama-2-70b").n_active_params == 68_976_648_192
    line = ledger.build_ledger({}).line("post.rl")
    assert line.usd == 0.0 and line.status == "not given" and "rl_iterations" in line.how
    shaped = ledger.build_ledger({"rl_algorithm": "ppo", "rl_reward": "reward_model"})
    assert shaped.line("post.rl").status == "not given"
    off = ledger.build_ledger({"rl_iterations": 10, "ledger_rl": False})
    assert off.line("post.rl").status == "not given"
    on = ledger.build_ledger({"ledger_rl": True})  # the notebooks' default campaign, asked for
    assert on.line("post.rl").status == "modelled" and on.line("post.rl").usd > 0
    # with_changes keeps the decision: a bill without RL stays without it
    assert ledger.with_changes(ledger.build_ledger({}), mfu=0.5).line("post.rl").usd == 0.0


def test_scenario_file_without_rl_keys_bills_no_rl(tmp_path):
    from llmcost.present.report import estimate_ledger, plan_report
    f = tmp_path / "s.yaml"
    f.write_text("model: llama-2-70b\nn_gpus: 1024\n")
    # the report completes the file with notebook 05's example campaign, but the bill does not
    # carry it: the file describes none
    assert plan_report(f).scenario["ledger_rl"] is False
    assert estimate_ledger(f).line("post.rl").status == "not given"
    f.write_text("model: llama-2-70b\nrl_iterations: 10\n")
    assert "ledger_rl" not in plan_report(f).scenario
    assert estimate_ledger(f).line("post.rl").status == "modelled"
    for name in ("default", "llama-3.1-405b"):  # both shipped scenarios describe a campaign
        bill = ledger.build_ledger(llmcost.load_scenario(llmcost.SCENARIO_DIR / f"{name}.yaml"))
        assert bill.line("post.rl").status == "modelled"


def test_rl_line_dpo_campaign_by_hand():
    # DPO has no generation: per preference pair, policy forward + backward 6·N and reference
    # forward 2·N per token over prompt + chosen + rejected (Rafailov et al. 2023; Kaplan et al.
    # 2020 §2.1 for 6N and 2N), at rl_train_mfu of the dense BF16 peak, no weight sync.
    n_pairs, P, R, K, runs, mfu = 32, 512, 1024, 100, 2, 0.4
    tokens = n_pairs * (2 * P + 2 * R)                       # 98,304 tokens per iteration
    gpu_h = 8 * N_ACTIVE_70B * tokens / (H100_BF16 * mfu) / 3600 * K * runs
    bill = ledger.build_ledger({**PRICE, "rl_algorithm": "dpo", "rl_prompts_per_step": n_pairs,
                                "rl_prompt_tokens": P, "rl_response_tokens": R,
                                "rl_response_tokens_max": R, "rl_iterations": K,
                                "rl_runs": runs, "rl_train_mfu": mfu})
    line = bill.line("post.rl")
    assert gpu_h == pytest.approx(7.615, abs=0.001)  # 5.42e16 FLOP ÷ 396 TFLOP/s = 137 s × 200
    assert line.usd == pytest.approx(gpu_h * 3.99, rel=1e-9)
    parts = bill.figures["rl_parts_gpu_hours"]
    assert parts["generation"] == 0 and parts["sync"] == 0 and parts["idle"] == 0
    assert parts["update"] == pytest.approx(6 / 8 * gpu_h, rel=1e-9)
    assert parts["scoring"] == pytest.approx(2 / 8 * gpu_h, rel=1e-9)  # the reference pass
    assert bill.figures["rl_gpu_hours"] == pytest.approx(gpu_h, rel=1e-9)
    for part in ("generation", "scoring", "update", "sync", "idle"):
        assert part in line.how
    assert line.notebook == "05_rl_loop"


def test_rl_line_grpo_parts_sum_and_update_by_hand():
    # GRPO, the default scenario's set-up: the update part is 6·N per token over every sample's
    # prompt + response (G = 16 samples of 512 + R tokens for each of 32 prompts, one epoch);
    # generation is the rollout roofline's (tested in test_rl). Parts sum to the line.
    # The scenario leaves rl_train_mfu null: the passes run at the step-time model's MFU for the
    # fastest plan that fits on the 64 RL GPUs (rl.train_step with train_plan="auto"); a given
    # rl_train_mfu (0.4 below) overrides it.
    sc = llmcost.load_scenario(llmcost.SCENARIO_DIR / "default.yaml")
    assert "rl_train_mfu" not in sc
    bill = ledger.build_ledger(sc)
    line, parts = bill.line("post.rl"), bill.figures["rl_parts_gpu_hours"]
    samples = 32 * 16
    from llmcost.serving.rl import response_lengths, train_step
    resp = float(response_lengths(1024, 3584, samples).sum())
    # the mean length x = 512 + R / samples is priced padded to a multiple f of the plan's TP
    # (Megatron's sequence parallelism), f = 1, 2, ..., 64, at the padding whose step is the
    # shortest (a ZeRO-3 step counted ZERO3_STEP_MARGIN longer, as the plan search ranks it);
    # the step's MFU (the workbook's full FLOPs per token F) becomes the 6N basis of the update's count with
    # the real tokens only: MFU_6N = MFU_step · x / priced · 6N / F(priced) (rl.training_mfu)
    from llmcost.serving.rl import six_n_share
    from llmcost.training.parallel import ZERO3_STEP_MARGIN
    x = 512 + resp / samples
    # the plan must also hold the longest micro-batch, 512 + the longest response (3,584)
    longest = 512 + int(response_lengths(1024, 3584, samples).max())
    assert longest == 4096
    steps = {}
    for f in (1, 2, 4, 8, 16, 32, 64):
        priced = math.ceil(x / f) * f
        bd = train_step("llama-2-70b", "H100-SXM", 64, samples, priced, train_plan="auto",
                        longest_tokens=longest)
        steps[priced] = (bd.step_time_s * (1 + ZERO3_STEP_MARGIN if "ZeRO-3" in bd.plan else 1),
                         bd)
    priced = min(steps, key=lambda p: (steps[p][0], p))
    bd = steps[priced][1]
    mfu = bd.mfu * x / priced * six_n_share(llmcost.load_model("llama-2-70b"), priced)
    # a 70B dense update on 64 H100s: within the MFUs published for such runs (Llama 3 405B
    # 38-43%, arXiv:2407.21783 Table 4; Megatron-LM 52% of the A100 peak at 1T parameters,
    # arXiv:2104.04473), with ten points of allowance either side
    assert 0.35 < mfu < 0.62
    # × the published GRPO runs' median measured ÷ predicted time (the scenario gives no
    # rl_time_factor: rl.scenario_time_factor)
    k = rl.RL_TIME_FACTOR_MEDIAN
    update_h = 6 * N_ACTIVE_70B * (samples * 512 + resp) / (H100_BF16 * mfu) / 3600 * 1000 * 5 * k
    assert parts["update"] == pytest.approx(update_h, rel=1e-9)
    flat = ledger.build_ledger({**sc, "rl_train_mfu": 0.4}).figures["rl_parts_gpu_hours"]
    flat_h = 6 * N_ACTIVE_70B * (samples * 512 + resp) / (H100_BF16 * 0.4) / 3600 * 1000 * 5 * k
    assert flat["update"] == pytest.approx(flat_h, rel=1e-9)
    assert sum(parts.values()) == pytest.approx(bill.figures["rl_gpu_hours"], rel=1e-12)
    assert line.usd == pytest.approx(bill.figures["rl_gpu_hours"] * 3.99, rel=1e-12)
    assert parts["generation"] > parts["update"]  # decode-bound rollouts dominate (notebook 05)
    # RL GPU-hours are in the energy line's hours (listed exploratory runs: nothing netted)
    runs = [{"name": "ablations", "gpu_hours": 1e5}]
    given = ledger.build_ledger({**sc, "ledger_exploratory_runs": runs})
    base = ledger.build_ledger({**sc, "ledger_rl": False, "ledger_exploratory_runs": runs})
    assert given.figures["all_gpu_hours"] - base.figures["all_gpu_hours"] == pytest.approx(
        given.figures["rl_gpu_hours"], rel=1e-9)


def test_synthetic_and_benchmark_lines_are_served_tokens():
    # Llama 3.1 8B at batch 1 on one H100 SXM. Each decode step must read every matmul weight:
    # 8.03e9 parameters less the 128,256 × 4,096 input embedding (a lookup, not read whole) =
    # 7.50e9 × 2 B = 15.01 GB; at the datasheet's 3.35 TB/s that is at most 223 tokens/s
    # (test vector 6.h: "at most 209 tokens/s" counts the embedding too), so a served output token
    # costs at least $3.99 / 3600 / 223 on the roofline. The line is priced at the *expected*
    # throughput: each decode step at roofline / η_decode + the per-step overhead o
    # (data/engine_efficiency.csv, pooled fit on published engine rows), the roofline at 90%
    # achievable HBM bandwidth (data/efficiency.csv): 4.98 ms / η_d + o per output token; the
    # KV cache of <= 1,250 tokens (128 kB each) and the prompt's share
    # (P/R = 4 prompt tokens per output token, prefill compute-bound) add a few per cent.
    weights_gb = (8.03e9 - 128_256 * 4096) * 2 / 1e9
    floor_out = 3.99 / 3600 / (3.35e12 / (weights_gb * 1e9)) * 1e6   # $4.97 per M output tokens
    e = llmcost.inference.load_engine_efficiency(None)
    step_s = weights_gb * 1e9 / (3.35e12 * 0.9) / e.decode_fraction + e.step_overhead_s
    expected_out = 3.99 / 3600 * step_s * 1e6
    kw = {**PRICE, "ledger_synthetic_model": "llama-3.1-8b", "serve_batch": 1, "serve_tp": 1,
          "serve_occupancy": 1.0, "ledger_synthetic_tokens": 1e9}  # the one slot always busy
    bill = ledger.build_ledger(kw)
    syn = bill.line("data.synthetic")
    per_m = syn.usd / 1e3
    assert floor_out == pytest.approx(4.97, abs=0.01)
    assert expected_out <= per_m <= 1.1 * expected_out
    assert per_m > 1.5 * floor_out   # an engine is well below the roofline at batch 1
    assert syn.status == "modelled" and "lower bound" in syn.how and "band" in syn.how
    # An explicit price overrides the derivation.
    given = ledger.build_ledger({**kw, "ledger_synthetic_usd_per_mtok": 2.0})
    assert given.line("data.synthetic").usd == pytest.approx(1e9 / 1e6 * 2.0)
    # A benchmark run of n requests (P in, R out) on the scenario's model costs what generating
    # n·R synthetic tokens with the same model costs: n·(P·in + R·out) = n·R·(out + P/R·in).
    n = 1e5
    ev = ledger.build_ledger({**PRICE, "ledger_eval_requests": n})
    sy = ledger.build_ledger({**PRICE, "ledger_synthetic_tokens": n * 250})
    assert ev.line("eval.benchmarks").usd == pytest.approx(sy.line("data.synthetic").usd,
                                                           rel=1e-9)
    assert ev.figures["eval_gpu_hours"] == pytest.approx(ev.line("eval.benchmarks").usd / 3.99)
    # given GPU-hours override the requests
    gh = ledger.build_ledger({**PRICE, "ledger_eval_requests": n, "ledger_eval_gpu_hours": 100.0})
    assert gh.line("eval.benchmarks").usd == pytest.approx(399.0)
    assert ledger.build_ledger(PRICE).line("data.synthetic").status == "not given"
    assert ledger.build_ledger(PRICE).line("eval.benchmarks").status == "not given"
    lo, hi = ledger.engine_gap()
    # the roofline is an upper bound (>= 1) and the slowest regime of inference.SERVING_REGIMES
    # (batch 1-8 latency at TP >= 2) is bounded at 4.2x
    assert 1.0 <= lo < hi <= 4.2
    # The line on its three bases (ledger.served_amounts), never mixed: its amount is the
    # engine-expected one; the roofline bound is the 90%-of-HBM decode floor of above,
    # $4.97 / 0.9 = $5.52 per M output tokens, × 1,000 M tokens, plus the KV cache and the prompt's
    # share (a few per cent); the slowest measured engine multiplies the ROOFLINE by the widest gap
    # (not the expected amount, which already carries an engine's slowdown).
    a = ledger.served_amounts(syn)
    assert a["expected_usd"] == syn.usd and a["gap"] == (lo, hi)
    assert floor_out / 0.9 * 1e3 <= a["roofline_usd"] <= 1.1 * floor_out / 0.9 * 1e3
    assert a["slowest_engine_usd"] == pytest.approx(a["roofline_usd"] * hi, rel=1e-12)
    assert a["band_usd"][0] <= syn.usd <= a["band_usd"][1]
    assert a["roofline_usd"] < syn.usd   # an engine is slower than the roofline
    with pytest.raises(ValueError, match="data.synthetic"):   # a given price: no served basis
        ledger.served_amounts(given.line("data.synthetic"))


def test_served_lines_and_rl_refuse_what_cannot_run():
    with pytest.raises(ScenarioError, match="synthetic data line"):
        ledger.build_ledger({"ledger_synthetic_tokens": 1e9, "serve_tp": 1,
                             "ledger_synthetic_model": "llama-3.1-405b"})
    with pytest.raises(ScenarioError, match="RL post-training line"):
        ledger.build_ledger({"rl_iterations": 10, "rl_rollout_tp": 1})  # 140 GB on one GPU
    with pytest.raises(ScenarioError, match="ledger_synthetic_model"):
        ledger.build_ledger({"ledger_synthetic_model": "no-such-model"})


def test_pilot_calibration_sets_the_bill_mfu():
    spec, gpu = llmcost.load_model("llama-2-70b"), llmcost.load_accelerator("H100-SXM")
    bill = ledger.build_ledger({"ledger_pilot_tokens_per_s_per_gpu": 800.0})
    hand = 800.0 * 3 * (2 * N_MATMUL + CORE_FWD_4K) / H100_BF16
    assert bill.figures["mfu"] == pytest.approx(hand, rel=1e-9)
    assert float(llmcost.mfu_from_throughput(800.0, spec, gpu, 4096)) == pytest.approx(hand)
    with pytest.raises(ScenarioError, match="ledger_pilot_tokens_per_s_per_gpu: .*is impossible"):
        ledger.build_ledger({"ledger_pilot_tokens_per_s_per_gpu": 5000.0})


def test_summary_carries_the_whole_bill():
    s = ledger.build_ledger({}).summary()
    assert s["schema_version"] == ledger.SCHEMA_VERSION
    assert s["llmcost_version"] == llmcost.__version__
    assert len(s["git_commit"]) in (7, 40) or s["git_commit"] == "unknown"
    assert set(s["as_of"]) == {"prices.csv", "storage_prices.csv", "ledger_defaults.csv"}
    assert s["bill.total_usd"] == pytest.approx(sum(v["usd"] or 0
                                                    for v in s["bill.lines"].values()))
    assert "bill.figures.paid_gpu_hours" in s and "bill.figures.energy_mwh" in s


def test_spend_timeline_alerts():
    bill = ledger.build_ledger({})
    tl = ledger.spend_timeline(bill)
    assert tl["cumulative_usd"].iloc[-1] == pytest.approx(bill.total_usd, rel=1e-6)
    assert tl["cumulative_usd"].is_monotonic_increasing
    a = tl.attrs["alerts"]
    assert a[0.5] < a[0.8] <= a[1.0]
    assert ledger.spend_timeline(bill, budget_usd=1e12).attrs["alerts"][0.5] is None


def test_the_schedule_says_the_project_months_that_would_pay_over_it():
    # A new-user trial: people were paid over the final run's 1.07 months (the bill's stated
    # lower bound) beside notebook 00's schedule of 71.1 days. The schedule, by hand: the
    # exploratory and post-training dollars run at the final run's dollars per day, one after
    # the other with it (ledger.spend_timeline's docstring).
    from llmcost.present import answers
    bill = ledger.build_ledger({})
    tl = ledger.spend_timeline(bill)
    run_days = bill.figures["wall_clock_days"]
    per_day = (bill.usd("compute.pretraining") + bill.usd("compute.failures")) / run_days
    by_hand = (bill.usd("compute.exploratory") + bill.usd("post.")) / per_day + run_days
    assert tl.attrs["schedule_days"] == pytest.approx(by_hand, rel=1e-12)
    months = by_hand / (365.25 / 12)       # a month of 365.25 / 12 days (ledger's convention)
    # the bill's convention is now that schedule (a consistency audit read the bill's 15.6
    # days beside this schedule's 34.9 on one page), so no hint; a bill over fewer months
    # (the run's alone, as it was) is told the months that would pay over it
    assert bill.figures["project_months"] == pytest.approx(months, rel=1e-12)
    assert answers.schedule_months_hint(by_hand, bill.figures["project_months"], False) == ""
    run_months = run_days / (365.25 / 12)
    hint = answers.schedule_months_hint(by_hand, run_months, False)
    assert hint.endswith(f"ledger_project_months: {months:.3g} pays the people, storage and "
                         "operations lines over it")
    # a schedule within the months paid: nothing; with a shorter ledger_project_months given,
    # that it is shorter (a review: the notebook then printed "the schedule fits")
    assert answers.schedule_months_hint(by_hand, months, False) == ""
    assert answers.schedule_months_hint(by_hand, months, True) == ""
    given_words = answers.schedule_months_hint(by_hand, run_months, True)
    assert given_words.startswith("the schedule alone spans") and "longer than the" in \
        given_words and "ledger_project_months gives" in given_words
    # an RL campaign runs on its own rl_gpus for its own wall clock (a source check: spread over
    # the 2,048-GPU cluster it took 0.26 days where the default's 64 GPUs take 12,811 GPU-h ÷
    # 64 ÷ 24 = 8.3): the default report scenario, by hand
    from llmcost.present.report import estimate_ledger
    rl_bill = estimate_ledger(llmcost.SCENARIO_DIR / "default.yaml")
    f = rl_bill.figures
    per = (rl_bill.usd("compute.pretraining") + rl_bill.usd("compute.failures")) / \
        f["wall_clock_days"]
    rl_days = f["rl_gpu_hours"] / rl_bill.scenario["rl_gpus"] / 24
    assert rl_days == pytest.approx(12811.1 / 64 / 24, rel=1e-3)   # regression pin: 8.34 days
    hand = (rl_bill.usd("compute.exploratory") + rl_bill.usd("post.") - rl_bill.usd("post.rl")) \
        / per + f["wall_clock_days"] + rl_days
    assert ledger.spend_timeline(rl_bill).attrs["schedule_days"] == pytest.approx(hand, rel=1e-3)
    # a phase runs after the main run on the same cluster: the final run's days are both
    # (run_wall_clock_days), its dollars per day over both (a trial: over the main run's days
    # alone the exploration shrank and the phase's days vanished)
    ph = ledger.build_ledger({"phases": [{"name": "long", "tokens": 1e11, "seq_len": 8192,
                                          "mfu": 0.3}]})
    days = ph.figures["run_wall_clock_days"]
    assert days > ph.figures["wall_clock_days"]
    per = (ph.usd("compute.pretraining") + ph.usd("compute.failures")) / days
    assert ledger.spend_timeline(ph).attrs["schedule_days"] == pytest.approx(
        (ph.usd("compute.exploratory") + ph.usd("post.")) / per + days, rel=1e-9)
    # the hint's value, given, is the months the bill then pays those lines over
    given = ledger.build_ledger({"ledger_project_months": float(f"{months:.3g}")})
    assert given.figures["project_months"] == pytest.approx(months, rel=2e-3)


def test_lines_on_the_bills_gpu_hours_share_its_kind():
    # A trial (Llama 3.1 8B on 512 reserved H200s at $7.89) read "fixed $5.85M, elastic $129k":
    # pre-training, its phases and the exploratory runs were fixed while SFT and RL at the same
    # reserved $7.89 were elastic. The rule (ledger.compute_kind): every line priced in the
    # bill's GPU-hours runs on the same capacity, fixed when reserved or owned, elastic on
    # demand or spot; a line bought at an outside price (egress, annotation) stays elastic. So
    # the same scenario at the same price, reserved against on demand, bills the same amounts
    # and moves exactly the GPU-hour lines from elastic to fixed; with reserved capacity the
    # spend timeline (committed capacity accrues evenly) reaches the whole bill, which it missed
    # by the post-training lines when they were elastic.
    sc = {"model": "llama-3.1-8b", "accelerator": "H200", "n_gpus": 512, "train_tokens": 8e11,
          "price_usd_per_gpu_hour": 7.89, "ledger_sft_tokens": 2e9, "ledger_cpt_tokens": 1e9,
          "ledger_eval_gpu_hours": 500.0, "ledger_egress_bytes": 1e12,
          "ledger_annotation_samples": 1000.0, "ledger_annotation_usd_per_sample": 2.0}
    res, ond = (ledger.build_ledger({**sc, "pricing": k}) for k in ("reserved", "on_demand"))
    assert res.total_usd == pytest.approx(ond.total_usd, rel=1e-12)
    gpu_lines = ("compute.", "post.", "eval.benchmarks")
    for a, b in zip(res.lines, ond.lines):
        assert a.key == b.key and a.usd == pytest.approx(b.usd, rel=1e-12)
        on_gpu_hours = a.key.startswith(gpu_lines)
        assert a.kind == ("fixed" if on_gpu_hours else b.kind), a.key
        assert b.kind == ("elastic" if on_gpu_hours else a.kind), a.key
    for key in ("network.egress", "data.annotation"):
        assert res.line(key).kind == "elastic" and res.line(key).usd > 0
    moved = sum(ln.usd for ln in res.lines if ln.key.startswith(gpu_lines))
    assert res.line("post.sft").usd > 0 and res.line("eval.benchmarks").usd == pytest.approx(
        500 * 7.89, rel=1e-12)
    assert res.summary()["bill.fixed_usd"] - ond.summary()["bill.fixed_usd"] == pytest.approx(
        moved, rel=1e-9)
    tl = ledger.spend_timeline(res)
    assert tl["cumulative_usd"].iloc[-1] == pytest.approx(res.total_usd, rel=1e-9)
    assert [ledger.compute_kind(k) for k in ("on_demand", "spot", "reserved", "owned")] == [
        "elastic", "elastic", "fixed", "fixed"]
    with pytest.raises(ValueError, match="pricing='rented'"):
        ledger.compute_kind("rented")


@pytest.mark.parametrize("bad, message", [
    ({"ledger_people": [{"role": "eng", "fte": -1}]}, "ledger_people[0].fte=-1.0 must be > 0"),
    ({"ledger_rerun_probability": 1.5}, "must be a probability in [0, 1]"),
    ({"ledger_rerun_probability": -0.1}, "must be a probability in [0, 1]"),
    ({"ledger_foo_usd": 3}, "unknown parameter 'ledger_foo_usd'"),
    ({"phases": [{"name": "anneal", "tokens": 4e7, "seq_len": 8192, "tokenz": 1}]},
     "phases[0]: unknown key 'tokenz'"),
    ({"phases": [{"name": "anneal", "seq_len": 8192}]}, "phases[0]: missing key 'tokens'"),
    ({"ledger_sft_tokens": float("nan")}, "must be finite"),
    ({"ledger_sft_tokens": "10B"}, "must be a number"),
    ({"ledger_lora_rank": 0}, "ledger_lora_rank=0 must be > 0"),
    ({"ledger_reserve_fraction": 10}, "must be in [0, 1], a share of the lines above"),
    ({"rl_runs": 0}, "rl_runs=0 must be > 0 (to bill no RL campaign, write ledger_rl: false)"),
    ({"ledger_people": "ten engineers"}, "must be a list"),
    ({"ledger_rl": "yes"}, "ledger_rl='yes' must be true or false"),
    ({"ledger_eval_requests": -1}, "ledger_eval_requests=-1"),
    ({"ledger_synthetic_usd_per_mtok": -0.5}, "ledger_synthetic_usd_per_mtok=-0.5"),
    ({"rl_iterations": 0}, "rl_iterations=0"),
    ({"rl_algorithm": "grpo", "rl_samples_per_prompt": 1, "rl_iterations": 5},
     "rl_samples_per_prompt=1 must be >= 2 for GRPO"),
])
def test_bad_values_raise_one_clear_error(bad, message):
    with pytest.raises(ScenarioError) as e:
        ledger.build_ledger(bad)
    assert message in str(e.value)


@pytest.mark.parametrize("fn, args, name", [
    (ledger.energy_mwh, (-1, 700), "gpu_hours"), (ledger.energy_mwh, (1, float("inf")),
                                                   "watts_per_gpu"),
    (ledger.tco2e, ("a", 0.4), "mwh"), (ledger.lora_adapter_params, (None, 0), "rank"),
    (ledger.default, ("nope",), "ledger default"),
    (ledger.energy_of, (-1, "H100-SXM"), "gpu_hours"), (ledger.energy_of, (1, 7), "accelerator"),
    (ledger.lora_gpu_hours, (None, 16, -1, 4096, 989e12, 0.4), "tokens"),
    (ledger.lora_gpu_hours, (None, 16, 1e9, 4096, 989e12, 1.5), "mfu=1.5"),
])
def test_public_functions_name_the_bad_argument(fn, args, name):
    spec = llmcost.load_model("llama-2-70b")
    args = tuple(spec if a is None else a for a in args)
    with pytest.raises(ValueError, match=name):
        fn(*args)


def test_notebook_00_declares_the_ledger_defaults():
    nb = NOTEBOOK_DIR / "00_index.ipynb"
    declared = pm.inspect_notebook(str(nb))
    import ast
    # and the global batch, which only its claim questions read (ledger.plan_questions); the
    # keys beyond LEDGER_DEFAULTS the bill reads (the RL update's stack and experts' layout),
    # at the default scenario's values
    from llmcost.bill.scenario import BILL_EXTRA_KEYS, load_scenario
    assert set(declared) - {"interactive", "global_batch_tokens"} == \
        set(LEDGER_DEFAULTS) | set(BILL_EXTRA_KEYS)
    for k, v in LEDGER_DEFAULTS.items():
        assert ast.literal_eval(declared[k]["default"]) == v, k
    default = load_scenario(NOTEBOOK_DIR.parent / "data" / "scenarios" / "default.yaml")
    for k in BILL_EXTRA_KEYS:
        assert ast.literal_eval(declared[k]["default"]) == default[k], k
    text = "\n".join(c.source for c in nbformat.read(nb, as_version=4).cells)
    assert "What does it cost to train this model?" in text


def test_declared_parameters_agree_with_papermill():
    from llmcost.present.report import declared_parameters, list_notebooks

    for nb in list_notebooks():
        ours, theirs = declared_parameters(nb), pm.inspect_notebook(str(nb))
        assert set(ours) == set(theirs), nb.name
        for k in ours:
            assert ours[k]["default"] == theirs[k]["default"], (nb.name, k)


# ------------------------------------------------------------------------------ the command
def test_estimate_prints_the_bill():
    res = _cli("estimate", "--scenario", str(SCENARIOS[0]))
    assert res.returncode == 0, res.stderr
    assert "total" in res.stdout and "RL post-training" in res.stdout
    assert "pre-training compute" in res.stdout


def test_estimate_json_and_csv():
    res = _cli("estimate", "--scenario", str(llmcost.SCENARIO_DIR / "default.yaml"),
               "--format", "json")
    data = json.loads(res.stdout)
    sc = llmcost.load_scenario(llmcost.SCENARIO_DIR / "default.yaml")
    assert data["bill.total_usd"] == pytest.approx(ledger.build_ledger(sc).total_usd, rel=1e-9)
    assert data["bill.lines"]["post.rl"]["status"] == "modelled"
    csv_out = _cli("estimate", "--scenario", str(SCENARIOS[0]), "--format", "csv").stdout
    assert csv_out.splitlines()[0].startswith("key,line,category")
    # a new-user trial: the CSV's percentiles were the scenario's own draws (all equal without
    # ranges) where the JSON's were the headline's; both now carry the same draws and state
    import csv as csv_
    import io
    rows = {r["key"]: r for r in csv_.DictReader(io.StringIO(csv_out)) if r["key"] != "warning"}
    for key, ln in data["bill.lines"].items():
        for c in ("p10", "p90"):
            want = ln[f"{c}_usd"]
            got = rows[key][f"{c}_usd"]
            assert (got == "" if want is None else float(got) == pytest.approx(want, rel=1e-9))
    assert {r["bill_range_state"] for r in rows.values()} == {data["bill.range_state"]}


def test_estimate_compare():
    res = _cli("estimate", "--scenario", str(SCENARIOS[0]), "--compare", str(SCENARIOS[1]),
               "--format", "csv")
    assert res.returncode == 0, res.stderr
    assert "difference usd" in res.stdout.splitlines()[0]


@pytest.mark.parametrize("text, message", [
    ("ledger_people:\n  - {role: eng, fte: -2}\n", "fte=-2.0 must be > 0"),
    ("ledger_rerun_probability: 1.5\n", "must be a probability in [0, 1]"),
    ("ledger_widgets_usd: 5\n", "unknown parameter 'ledger_widgets_usd'"),
    ("phases:\n  - {name: anneal, tokens: 4.0e7, seq_len: 8192, lr: 1}\n",
     "phases[0]: unknown key 'lr'"),
    ("n_gpus: -1\n", "n_gpus=-1 must be > 0"),
])
def test_estimate_rejects_bad_scenarios_with_one_line(tmp_path, text, message):
    sc = tmp_path / "bad.yaml"
    sc.write_text(text)
    res = _cli("estimate", "--scenario", str(sc))
    assert res.returncode == 2
    err = res.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("llmcost: error:"), res.stderr
    assert message in err[0]


def test_a_phase_with_its_own_mfu_is_drawn_with_the_main_runs():
    # A trial: a 131k phase with its own mfu 0.22 priced $3.93M-$3.93M in every draw while the
    # main run's MFU had a range. In each draw the phase's MFU moves with the main run's,
    # m_ph × m_draw ÷ m_point; by hand the phase's ideal GPU-hours scale as 1 / MFU, so the
    # phase line and the main line rise and fall together, and the point bill is unchanged.
    from llmcost.bill.ranges import Range
    sc = {**PRICE, "phases": [{"name": "long", "tokens": 1e11, "seq_len": 32768, "mfu": 0.3}]}
    point = ledger.build_ledger(sc)
    d = ledger.simulate_ledger({**sc, "mfu": Range("triangular", low=0.3, mode=0.4, high=0.5)},
                               samples=2000)
    phase, main = (np.asarray(d.line_usd[k]) for k in ("compute.pretraining.long",
                                                       "compute.pretraining.main"))
    assert phase.min() < phase.max()
    assert (np.argsort(phase) == np.argsort(main)).mean() > 0.99   # one order: correlated
    # main line ∝ 1 / m, the phase's ideal hours ∝ 1 / (0.3 · m / 0.4): their ratio barely moves
    # (the phase's goodput moves a little with its hours)
    ratio = phase / main
    assert ratio.max() / ratio.min() < 1.02
    assert d.point.line("compute.pretraining.long").usd == pytest.approx(
        point.line("compute.pretraining.long").usd, rel=1e-12)


def test_published_run_with_its_phases_is_an_upper_bound():
    # The long-context stage is counted as if all ~800B tokens were at 128K (an upper bound,
    # §3.4.2) and on top of the 15.6T (which already include them at 8K), so the paid GPU-hours
    # must exceed the card's 30.84M: by at most the 800B tokens at 2.33× the GPU-time of an 8K
    # token (notebook 07) over goodput, 0.8/15.6 × 2.33 / 0.92 = 13%, plus the main run's 1.2%
    # shortfall: below 1.15×.
    sc = llmcost.load_scenario(llmcost.SCENARIO_DIR / "llama-3.1-405b.yaml")
    bill = ledger.build_ledger(sc)
    assert 30.84e6 < bill.figures["paid_gpu_hours"] < 1.15 * 30.84e6
    assert [ln.key for ln in bill.lines][:4] == ["compute.pretraining.main", "compute.failures",
                                                 "compute.pretraining.long-context",
                                                 "compute.pretraining.annealing"]




@settings(max_examples=25, deadline=None)
@given(n_gpus=st.sampled_from([256, 1024, 4096]), mfu=st.floats(0.2, 0.6),
       pricing=st.sampled_from(["on_demand", "reserved", "spot", "owned"]),
       explore=st.floats(0, 3), reserve=st.floats(0, 0.5), rerun=st.floats(0, 1),
       fte=st.floats(0.01, 100), sft=st.floats(0, 1e11))
def test_property_lines_sum_and_more_mfu_costs_less(n_gpus, mfu, pricing, explore, reserve,
                                                    rerun, fte, sft):
    sc = {"n_gpus": n_gpus, "mfu": mfu, "pricing": pricing,
          "price_usd_per_gpu_hour": None if pricing in ("owned", "spot") else 3.0,
          "ledger_spot_preemptions_per_node_day": 1 / 7 if pricing == "spot" else None,
          "ledger_exploratory_fraction": explore, "ledger_reserve_fraction": reserve,
          "ledger_rerun_probability": rerun, "ledger_sft_tokens": sft,
          "ledger_people": [{"role": "team", "fte": fte}]}
    bill = ledger.build_ledger(sc)
    assert sum(ln.usd for ln in bill.lines if ln.usd is not None) == pytest.approx(
        bill.total_usd, rel=1e-12)
    assert all(ln.usd is None or ln.usd >= 0 for ln in bill.lines)
    better = ledger.with_changes(bill, mfu=min(mfu * 1.1, 1.0))
    assert better.figures["final_run_usd"] < bill.figures["final_run_usd"]


def test_report_gives_every_notebook_the_pilot_calibrated_mfu(tmp_path):
    from llmcost import report

    sc = tmp_path / "pilot.yaml"
    sc.write_text("ledger_pilot_tokens_per_s_per_gpu: 800\n")
    plan = report.plan_report(sc, ["00", "01"])
    hand = 800.0 * 3 * (2 * N_MATMUL + CORE_FWD_4K) / H100_BF16
    assert plan.values["mfu"] == pytest.approx(hand, abs=1e-6)
    assert "calibrated from a pilot" in report.effective_parameters(
        plan.scenario, plan.declared)["mfu"]["from"]
    sc.write_text("mfu: predict\nledger_pilot_tokens_per_s_per_gpu: 800\n")
    with pytest.raises(ScenarioError, match="not both"):
        report.plan_report(sc, ["00"])


def test_owned_hardware_figures_reach_every_notebook(tmp_path):
    # A scenario that prices owned hardware at its own purchase price: notebook 01 must price
    # the same GPU-hour as the bill's compute lines, in the bill's words.
    from llmcost import report

    sc = tmp_path / "owned.yaml"
    sc.write_text("n_gpus: 64\ntrain_tokens: 1.0e10\npricing: owned\nprice_usd_per_gpu_hour: null"
                  "\nledger_owned_usd_per_gpu: 35000\n")
    res = report.run_report(sc, tmp_path / "r", selection=["01"], progress=lambda s: None)
    rows = {r["key"]: r for r in res.summary["notebooks"]["01_flops"]}
    bill = res.summary["bill"]["bill.lines"]
    own = ledger.owned_usd_per_gpu_hour(llmcost.load_accelerator("H100-SXM"), 35000)
    # notebook 01 pays the hardware rate, as the bill's lines do (energy: the electricity line;
    # it pays hardware + energy, "given as price_usd_per_gpu_hour", before)
    assert rows["compute_cost_usd"]["value"] == pytest.approx(
        bill["compute.pretraining.main"]["usd"], rel=1e-9)
    assert rows["price_usd_per_gpu_hour"]["value"] == pytest.approx(
        own["capex_usd_per_gpu_hour"], rel=1e-9)
    assert rows["price_usd_per_gpu_hour"]["note"] == res.summary["bill"][
        "bill.figures.price_source"]


def test_training_flops_are_named_by_their_convention():
    # the bill prices hours on the MFU basis (matmuls + full attention) and states 6·N_active·D
    # beside it; no figure is called plain "training_flops". Hand, Llama 2 70B on 2T tokens:
    # 6 × 68.98e9 × 2e12 = 8.28e23 (6ND); MFU basis 8.89e23 (notebook 01)
    f = ledger.build_ledger({"price_usd_per_gpu_hour": 3.99}).figures
    assert "training_flops" not in f
    assert f["training_flops_6nd"] == pytest.approx(8.28e23, rel=0.005)
    assert f["training_flops_mfu_basis"] == pytest.approx(8.89e23, rel=0.005)


def test_a_lora_rank_beyond_the_adapted_matrices_is_refused():
    # LoRA's ΔW = BA has rank r ≤ min(d_in, d_out) (Hu et al. 2021 §4.1); W_k, W_v of Llama 3.1
    # 8B map 4,096 to 8 KV heads × 128 = 1,024, so r ≤ 1,024 (a trial's rank 100,000 was billed
    # "at MFU 493.9% on this count")
    spec = llmcost.load_model("llama-3.1-8b")
    assert lora.max_lora_rank(spec) == min(4096, 8 * 128) == 1024
    assert lora.lora_adapter_params(spec, 1024) > 0
    with pytest.raises(ValueError, match=r"rank=1025 must be at most 1,024 for llama-3.1-8b"):
        lora.lora_adapter_params(spec, 1025)
    with pytest.raises(ValueError, match=r"ledger_lora_rank=100000 must be at most 1,024"):
        ledger.build_ledger({"model": "llama-3.1-8b", "accelerator": "H100-SXM", "n_gpus": 8,
                             "train_tokens": 4194304, "seq_len": 4096, "mfu": 0.35,
                             "ledger_lora_tokens": 5e8, "ledger_lora_rank": 100000})


def test_owned_purchase_price_stays_on_its_own_accelerator():
    # A trial's owned 512-H100 scenario at $30,000 per GPU: by hand, $30,000 × 1.64 ÷ 0.81 ×
    # 0.14·ln 10 ÷ 8,766 h = $2.23/GPU-h hardware + 0.7 kW × 1.82 × 0.75 × PUE 1.2 × $0.08/kWh
    # = $0.092/GPU-h energy (Cottier et al. 2024 §2.2-2.3, ledger.owned_usd_per_gpu_hour).
    sc = {"pricing": "owned", "price_usd_per_gpu_hour": None, "accelerator": "H100-SXM",
          "ledger_owned_usd_per_gpu": 30_000, "ledger_electricity_usd_per_kwh": 0.08,
          "ledger_pue": 1.2}
    capex = 30_000 * 1.64 / 0.81 * 0.14 * math.log(10) / 8766  # = $2.234
    energy = 0.7 * 1.82 * 0.75 * 1.2 * 0.08  # = $0.0917
    own = ledger.owned_usd_per_gpu_hour("H100-SXM", 30_000, 0.08, 1.2)
    assert own["capex_usd_per_gpu_hour"] == pytest.approx(2.234, abs=1e-3)
    assert own["energy_usd_per_gpu_hour"] == pytest.approx(0.0917, abs=1e-4)
    bill = ledger.build_ledger(sc)
    assert bill.figures["price_usd_per_gpu_hour"] == pytest.approx(capex + energy, rel=1e-6)
    # the $30,000 is an H100's price: a B200's owned hour needs its own (llmcost estimate's
    # rule), not the H100's amortisation (the trial's notebook 00 said "$2.36/GPU-h, owned")
    with pytest.raises(ValueError, match="B200 needs ledger_owned_usd_per_gpu"):
        ledger.with_changes(bill, accelerator="B200", price_usd_per_gpu_hour=None)
    b200 = ledger.with_changes(bill, accelerator="B200", ledger_owned_usd_per_gpu=40_000)
    assert b200.figures["price_usd_per_gpu_hour"] == pytest.approx(
        40_000 * 1.64 / 0.81 * 0.14 * math.log(10) / 8766
        + 1.0 * 1.82 * 0.75 * 1.2 * 0.08, rel=1e-6)  # B200 TDP 1.0 kW
    # the same accelerator keeps the scenario's price
    same = ledger.with_changes(bill, accelerator="H100-SXM", mfu=0.5)
    assert same.figures["price_usd_per_gpu_hour"] == pytest.approx(capex + energy, rel=1e-6)


def test_staff_cost_is_epochs_loaded_compensation_redrawn():
    """Epoch AI's training-cost-trends code for Cottier et al. 2024 (development_cost.ipynb at
    3c6aafa): salary log-normal with 90% CI sqrt(148k × 132k)-sqrt(335k × 210k) (cell 9), equity
    sqrt(34k × 37k)-sqrt(760k × 331.25k), overhead 1.25-1.4 (cell 13) applied to the salary
    before equity is added (cell 43: compensation *= overhead; compensation += equity). Re-drawn
    here: median ≈ $400K, 90% CI ≈ $262K-$770K, the CSV's value and range; salary + equity
    alone is the paper's $330K (cell 10's printout)."""
    z95 = 1.6448536269514722

    def lognorm(lo, hi, n, rng):
        sigma = (math.log(hi) - math.log(lo)) / (2 * z95)
        return rng.lognormal(math.log(lo) + z95 * sigma, sigma, n)

    rng = np.random.default_rng(0)
    n = 400_000
    salary = lognorm(math.sqrt(148e3 * 132e3), math.sqrt(335e3 * 210e3), n, rng)
    equity = lognorm(math.sqrt(34e3 * 37e3), math.sqrt(760e3 * 331.25e3), n, rng)
    loaded = salary * lognorm(1.25, 1.4, n, rng) + equity
    row = default_rows()["staff_usd_per_fte_year"]
    assert ledger.default("staff_usd_per_fte_year") == pytest.approx(np.median(loaded), rel=0.01)
    assert np.median(salary + equity) == pytest.approx(330e3, rel=0.015)  # not loaded
    lo, hi = np.percentile(loaded, [5, 95])
    assert float(row["low"]) == pytest.approx(lo, rel=0.015)
    assert float(row["high"]) == pytest.approx(hi, rel=0.015)


def test_default_bill_storage_lines_by_hand():
    """The default scenario's dataset line: 2e12 tokens × 4 B = 8e12 B = 7,450.6 GiB (AWS bills
    a GB-month as 2^30 bytes, S3 FAQ) × (project months + 12) × $0.023 (S3 Standard)."""
    bill = ledger.build_ledger({})
    months = bill.figures["project_months"] + 12
    assert bill.line("storage.datasets").usd == pytest.approx(8e12 / 2**30 * months * 0.023,
                                                              rel=1e-12)
    assert "7,451 GiB" in bill.line("storage.datasets").how


def test_a_product_line_names_the_key_missing():
    got = ledger.build_ledger({"ledger_annotation_samples": 1000}).line("data.annotation")
    assert got.how == "ledger_annotation_usd_per_sample not given" and got.usd == 0
    got = ledger.build_ledger({"ledger_human_eval_usd_per_hour": 40.0}).line("eval.human")
    assert got.how == "ledger_human_eval_hours not given"
    both = ledger.build_ledger({}).line("eval.human")
    assert both.how == "ledger_human_eval_hours and ledger_human_eval_usd_per_hour not given"


def test_rl_time_factor_scales_the_rl_campaign_and_is_ranged_by_the_rl_models_errors():
    # A trial: the bill's RL line was ranged by the price alone while the RL model's own
    # held-out errors (measured ÷ predicted iteration time, rl.RL_TIME_FACTOR_RANGE)
    # were not drawn. rl_time_factor multiplies the campaign's GPU-hours (the verifier's
    # per-sample cost is not time); a scenario that gives none is billed at the published runs'
    # median (rl.RL_TIME_FACTOR_MEDIAN: 21 of the 24 held-out runs took longer than the model on
    # the bill's path, as central_mfu centres an MFU) and drawn over their spread; notebook 05's
    # campaign (rl.scenario_campaign) carries the same factor.
    from llmcost.bill.ledger import build_ledger, illustrative_ranges
    from llmcost.serving import rl
    base = {"model": "llama-3.1-8b", "accelerator": "H100-SXM", "n_gpus": 64,
            "train_tokens": 1e11, "mfu": 0.4, "price_usd_per_gpu_hour": 2.0,
            "rl_iterations": 100, "rl_runs": 2, "rl_gpus": 8, "rl_rollout_tp": 1,
            "rl_verifier_usd_per_sample": 0.001}
    own, more = build_ledger({**base, "rl_time_factor": 1.0}), \
        build_ledger({**base, "rl_time_factor": 1.5})
    one = build_ledger(base)
    h0, h1, h2 = (b.figures["rl_gpu_hours"] for b in (own, one, more))
    assert h2 == pytest.approx(1.5 * h0, rel=1e-12)
    assert h1 == pytest.approx(rl.RL_TIME_FACTOR_MEDIAN * h0, rel=1e-12)
    verifier = 0.001 * 16 * 32 * 100 * 2       # per sample × G × prompts × iterations × runs
    assert own.line("post.rl").usd == pytest.approx(h0 * 2.0 + verifier, rel=1e-9)
    assert more.line("post.rl").usd == pytest.approx(1.5 * h0 * 2.0 + verifier, rel=1e-9)
    camp = rl.scenario_campaign(more.scenario, 2.0)   # the bill's values, defaults filled
    assert float(camp.loc["total", "gpu_hours"]) == pytest.approx(h2, rel=1e-12)
    # a run lasts its factor longer too (notebook 05's "one run: ... days")
    model_camp = rl.scenario_campaign(own.scenario, 2.0)
    assert camp.attrs["wall_clock_days_per_run"] == pytest.approx(
        1.5 * model_camp.attrs["wall_clock_days_per_run"], rel=1e-12)
    assert "× rl_time_factor 1.5" in more.line("post.rl").how
    assert f"× {rl.RL_TIME_FACTOR_MEDIAN:g}, the median" in one.line("post.rl").how
    assert "×" not in own.line("post.rl").how.split("GPU-h × $")[1]  # the model's own time
    r, why = illustrative_ranges(one)["rl_time_factor"]
    # peaked at the median, the bill's point, so that the bars, the table and the line agree
    assert (r.low, r.mode, r.high) == pytest.approx((rl.RL_TIME_FACTOR_RANGE[0],
                                                     rl.RL_TIME_FACTOR_MEDIAN,
                                                     rl.RL_TIME_FACTOR_RANGE[1]))
    assert "held-out" in why and f"median {rl.RL_TIME_FACTOR_MEDIAN:g}" in why
    # a given 1 is the scenario's choice of the model's own time: one number, not redrawn
    assert "rl_time_factor" not in illustrative_ranges(own)
    # the headline's and a compare's draws (headline_draws, own_ranged_scenario) put that
    # spread on the factor: their point bill still says null's words, as the report does (a
    # trial read "× rl_time_factor 1.29" in `estimate --format json`, null in summary.json)
    from llmcost.bill.ledger import headline_draws, own_ranged_scenario, simulate_ledger
    for drawn in (headline_draws(one.scenario, samples=50).draws,
                  simulate_ledger(own_ranged_scenario(one), samples=50)):
        assert "rl_time_factor" in drawn.ranges
        assert drawn.point.line("post.rl").how == one.line("post.rl").how
    assert build_ledger({**own_ranged_scenario(one), "rl_time_factor": 1.5}).line(
        "post.rl").how == more.line("post.rl").how  # a factor given after: the scenario's own
    # and a range of the caller's own, given by with_changes on the headline's point bill (a
    # review: the drawn spread's words stayed)
    from llmcost import Range
    from llmcost.bill.ledger import with_changes
    point = headline_draws(one.scenario, samples=50).draws.point
    mine = with_changes(point, rl_time_factor=Range("uniform", low=1.2, high=1.8))
    assert "× rl_time_factor 1.5 (measured ÷ predicted" in mine.line("post.rl").how
    # DPO has no rollout: the GRPO runs' errors are not drawn on it (a review)
    dpo = build_ledger({**base, "rl_algorithm": "dpo"})
    assert "rl_time_factor" not in illustrative_ranges(dpo)
    # and is billed at the model's own time (no rollout or refit, where the runs part from it)
    dpo_own = build_ledger({**base, "rl_algorithm": "dpo", "rl_time_factor": 1.0})
    assert dpo.figures["rl_gpu_hours"] == pytest.approx(dpo_own.figures["rl_gpu_hours"])
    # a factor the scenario gives is its own measurement: not redrawn over the model's errors
    assert "rl_time_factor" not in illustrative_ranges(more)
    # set without an RL campaign, it changes nothing, and is said to
    from llmcost.bill.validation import magnitude_warnings
    plain = {k: v for k, v in base.items() if not k.startswith("rl_")}
    b = build_ledger({**plain, "rl_time_factor": 1.3})
    assert "rl_time_factor is set but the bill prices no RL campaign" in " ".join(
        magnitude_warnings(b.scenario, b))
    assert not any("rl_time_factor" in w for w in magnitude_warnings(one.scenario, one))
    # a factor outside the published runs' measured ÷ predicted times (0.55-3.15) is said, not
    # refused (a trial billed rl_time_factor: 50 without a word); one inside is not
    (w,) = [x for x in magnitude_warnings(*(lambda b: (b.scenario, b))(
        build_ledger({**base, "rl_time_factor": 50}))) if x.startswith("rl_time_factor=50 ")]
    assert "outside the measured ÷ predicted RL iteration times of the published runs, " \
        f"{rl.RL_TIME_FACTOR_RANGE[0]:g}-{rl.RL_TIME_FACTOR_RANGE[1]:g}" in w
    from llmcost.present import glance
    assert glance.caveat_line(w) == ("the RL line is billed at rl_time_factor=50, outside the "
                                     "published runs' 0.55-3.15: check it")
    assert not any(x.startswith("rl_time_factor=") for x in magnitude_warnings(more.scenario, more))
    # a campaign made decades long by the factor names the factor among the keys to check
    huge = build_ledger({**base, "rl_time_factor": 1e6})
    (w,) = [x for x in magnitude_warnings(huge.scenario, huge) if x.startswith("the RL campaign")]
    assert "× rl_time_factor=1e+06" in w and w.endswith("check rl_iterations and rl_runs and "
                                                        "rl_time_factor")
    assert "rl_time_factor" not in illustrative_ranges(build_ledger(
        {k: v for k, v in base.items() if not k.startswith("rl_")}))   # no RL billed
    with pytest.raises(ValueError, match="rl_time_factor=0"):
        build_ledger({**base, "rl_time_factor": 0})


def test_the_claim_questions_say_which_count_is_larger():
    # The 6ND vs attention-inclusive answer, by hand for llama-3.1-8b (32 layers, d 4,096,
    # vocab 128,256, untied head; N = 8.03B active parameters): per token the matmuls are
    # 6 x (N - 128,256 x 4,096) (the input embedding is a lookup), the attention core
    # 12 x 32 x 4,096 x s (PaLM App. B, full mask). At s = 512 that is 4.9% below 6N (the
    # embedding outweighs the core); at s = 8,192 the core, 12.9 GFLOP, puts it 20.2% above.
    from llmcost.bill.ledger import claim_questions
    spec = llmcost.load_model("llama-3.1-8b")
    n, emb = spec.n_active_params, 128256 * 4096
    for s, word in ((512, "below"), (8192, "above")):
        gap = (6 * (n - emb) + 12 * 32 * 4096 * s) / (6 * n) - 1
        bill = llmcost.build_ledger({"model": "llama-3.1-8b", "n_gpus": 8, "train_tokens": 1e10,
                             "seq_len": s, "mfu": 0.4, "global_batch_tokens": 262144})
        said = claim_questions(bill).set_index("question")["why it matters"]
        words = said["At what MFU, and on which FLOP count?"]
        assert f"{abs(gap):.1%} {word} 6ND here" in words, (words, gap)
    assert gap == pytest.approx(0.202, abs=0.005) and word == "above"  # (45.0 + 12.9) / 48.2 - 1


def test_the_spend_timeline_lasts_as_long_as_its_people_are_paid():
    # A trial: a team of 2 FTE for 1.5 months on a 0.4-day fine-tune read "budget $150k over
    # 0.4 days; 50% alert: day 0.3" (the project's length defaulted to the run's wall clock,
    # while the people line pays 1.5 months). 1.5 months = 1.5 x 30.4375 = 45.7 days.
    sc = {"model": "llama-3.1-8b", "accelerator": "H100-SXM", "n_gpus": 8, "train_tokens": 1e8,
          "seq_len": 8192, "global_batch_tokens": 1048576, "mfu": 0.38,
          "price_usd_per_gpu_hour": 2.5,
          "ledger_people": [{"role": "ml-engineer", "fte": 2, "months": 1.5}]}
    tl = ledger.spend_timeline(llmcost.build_ledger(sc))
    assert tl["day"].iloc[-1] == pytest.approx(1.5 * 30.4375, rel=1e-9)
    bare = ledger.spend_timeline(llmcost.build_ledger({**sc, "ledger_people": []}))
    assert bare["day"].iloc[-1] < 1.0


def test_a_compared_line_is_named_by_the_words_both_bills_complete():
    # A trial: one bill nets SFT out of its exploratory line, the other RL post-training; the
    # comparison named the line "exploratory and failed runs, net of" (their common prefix)
    from types import SimpleNamespace as L
    from llmcost.bill.ledger import _shared_label
    a = L(line="exploratory and failed runs, net of supervised fine-tuning (SFT)")
    b = L(line="exploratory and failed runs, net of RL post-training")
    assert _shared_label(a, b) == "exploratory and failed runs"
    c = L(line="exploratory and failed runs (none left: RL post-training exceeds the multiplier)")
    assert _shared_label(a, c) == "exploratory and failed runs"
    assert _shared_label(a, L(line=a.line)) == a.line and _shared_label(None, b) == b.line


def test_changed_lines_keep_the_rows_adding_up_to_each_total():
    # A reader's trial: 09's "fine-tune instead" table listed the lines that changed, whose sum
    # ($4,611,501) fell short of the total beside them ($4,878,437): the RL line, the same on
    # both sides, was dropped. By hand: every row but the total sums to each bill's total.
    a = ledger.build_ledger({"price_usd_per_gpu_hour": 3.0})
    b = ledger.with_changes(a, train_tokens=a.scenario["train_tokens"] / 2)
    side = ledger.compare(a, b, names=("A", "B"))
    shown = ledger.changed_lines(side)
    assert shown["line"].iloc[-1] == "total"
    rest = shown[shown["line"].str.startswith("the other")]
    assert len(rest) == 1 and rest["difference usd"].iloc[0] == 0.0
    for col, bill in (("A usd", a), ("B usd", b)):
        assert shown[col].iloc[:-1].sum() == pytest.approx(bill.total_usd, rel=1e-9)
    assert len(shown) < len(side)  # the unchanged lines are one row
    with pytest.raises(ValueError, match="side"):
        ledger.changed_lines(side.drop(columns=["difference usd"]))


def test_an_rl_line_that_does_not_fit_names_a_rollout_tp_that_fits():
    # A teacher ran notebook 00 for a larger model with the notebooks' RL defaults (rl_gpus 64,
    # rl_rollout_tp 4) and read only "raise rl_rollout_tp". Qwen3-235B-A22B's BF16 weights
    # (about 470 GB, Qwen3 model card: 235B parameters × 2 bytes) over 4 H100s are 117.5 GB a GPU,
    # above an 80 GiB H100's usable HBM; over 8, about 59 GB, which fits: TP 8 is named.
    sc = llmcost.load_scenario(llmcost.SCENARIO_DIR / "default.yaml")
    sc = {k: v for k, v in sc.items() if k not in ("title", "description")}
    sc.update(model="qwen3-235b-a22b", n_gpus=2048, mfu=0.3)
    with pytest.raises(llmcost.ScenarioError) as e:
        ledger.build_ledger(sc)
    assert "117.5 GB of bf16 weights per GPU do not fit" in str(e.value)
    assert str(e.value).endswith("; at rl_rollout_tp: 8 it fits")


def test_a_role_longer_than_the_project_is_said():
    # A trial: a role of 12 months under ledger_project_months 9 was priced for 12 months with no
    # word. By hand: 2 FTE × 12 months × the loaded cost is the role's line, past the 9 months the
    # other project lines are priced for.
    from llmcost.bill.validation import magnitude_warnings
    sc = llmcost.load_scenario(llmcost.SCENARIO_DIR / "default.yaml")
    sc = {k: v for k, v in sc.items() if k not in ("title", "description")}
    sc.update(ledger_project_months=9,
              ledger_people=[{"role": "research", "fte": 2, "months": 12},
                             {"role": "infra", "fte": 1, "months": 6}])
    said = [w for w in magnitude_warnings(sc) if "longer than ledger_project_months" in w]
    assert said == ["ledger_people: research (12 months) longer than ledger_project_months=9: "
                    "each role is priced for its own months, past the project the other lines "
                    "are priced for"]
    sc["ledger_people"][0]["months"] = 9
    assert not any("longer than ledger_project_months" in w for w in magnitude_warnings(sc))
    # a range of project months: a role inside it is no overrun, one past its top is (a review:
    # [6, 12] and 10 months was told "longer than 9", the range's midpoint)
    from llmcost.bill.ranges import Range
    sc["ledger_project_months"] = Range("uniform", low=6, high=12)
    sc["ledger_people"][0]["months"] = 10
    assert not any("longer than ledger_project_months" in w for w in magnitude_warnings(sc))
    sc["ledger_people"][0]["months"] = 14
    assert any("research (14 months) longer than ledger_project_months=the top of its range, "
               "12:" in w for w in magnitude_warnings(sc))


def test_checkpoint_storage_words_when_the_run_writes_no_checkpoint():
    # A trial's 8-GPU run of 2B tokens (9.6 h of work): notebook 07 said "taking no checkpoint"
    # while the bill's line read "hot: last 3 ... + milestones ... for 12 months". With the
    # interval longer than the run, ⌈T/τ⌉ − 1 = 0 checkpoints (reliability.checkpoints_in_run)
    # and ⌊days / 7⌋ = 0 weekly milestones: the line says so, and its cost is the hot tier's
    # bandwidth floor alone (bandwidth ÷ throughput per TiB, held for the run's months).
    from llmcost.training import reliability as rel
    sc = {**llmcost.load_scenario(llmcost.SCENARIO_DIR / "default.yaml"),
          "model": "llama-3.1-8b", "n_gpus": 8, "train_tokens": 2e9, "seq_len": 4096,
          "global_batch_tokens": 1048576, "mfu": 0.375, "price_usd_per_gpu_hour": 2.99,
          "pricing": "on_demand", "tp": 0, "pp": 0, "dp": 0}
    b = llmcost.build_ledger(sc)
    line = next(x for x in b.lines if x.key == "storage.checkpoints")
    assert line.how.startswith("no checkpoint written during the main run") and \
        "; no milestone (the run is shorter than ckpt_milestone_every_days, 7 days)" in line.how
    assert "last 3" not in line.how and "milestones on" not in line.how
    bw = b.figures["ckpt_storage_bytes_per_s"]
    hot = b.scenario.get("ckpt_hot_tier") or "fsx-lustre-ssd"
    floor_gib = bw / rel.storage_throughput_per_tib(hot) * 1024
    months = b.figures["wall_clock_days"] * 86400 / rel.SECONDS_PER_MONTH
    assert line.usd == pytest.approx(floor_gib * months * rel.storage_price(hot), rel=0.02)


def test_a_long_run_that_writes_no_checkpoint_keeps_no_milestone():
    # A review: with ckpt_interval_s 1e9 a 2T-token run (days long, weeks of milestones by the
    # calendar) writes no checkpoint, ⌈T/τ⌉ − 1 = 0, and was still charged weekly milestones,
    # copies of checkpoints never written. Milestones are at most the checkpoints written.
    from llmcost.training import reliability as rel
    sc = {**llmcost.load_scenario(llmcost.SCENARIO_DIR / "default.yaml"), "ckpt_interval_s": 1e9,
          "n_gpus": 256, "fail_rate_per_gpu_year": 0.0, "fail_planned_per_day": 0.0}
    b = llmcost.build_ledger(sc)
    assert 14 < b.figures["wall_clock_days"] < 1e3   # two weekly milestones by the calendar
    line = next(x for x in b.lines if x.key == "storage.checkpoints")
    assert line.how.startswith("no checkpoint written") and \
        "; no milestone (no checkpoint written to copy) (" in line.how and \
        line.how.endswith(" + 0 × $0.00099 cold)")
    t = rel.retention_storage_cost(1e12, 30.0, 1e9, 3, 7.0, 12.0, 0.1, 0.001, n_checkpoints=0)
    assert t.set_index("policy").loc["cold: milestones", "usd"] == 0.0
    # four written over 30 days: four weekly milestones, ⌊30/7⌋ = 4, kept
    t = rel.retention_storage_cost(1e12, 30.0, 6e5, 3, 7.0, 12.0, 0.1, 0.001, n_checkpoints=4)
    assert t.set_index("policy").loc["cold: milestones", "checkpoints"] == 4


def test_the_checkpoint_storage_line_can_be_recomputed_from_its_words():
    # A trial could not recompute the line from its text (no capacity, months or prices): it
    # now gives the GiB-months of each tier and the tier's $/GB-month (data/storage_prices.csv:
    # FSx for Lustre SSD $0.145, S3 Glacier Deep Archive $0.00099), whose products add up to
    # the amount (to the four figures printed)
    import re
    b = llmcost.build_ledger(llmcost.load_scenario(llmcost.SCENARIO_DIR / "default.yaml"))
    line = b.line("storage.checkpoints")
    m = re.search(r"\(([\d.e+,]+) GiB-months × \$([\d.]+)/GB-month hot \+ ([\d.e+,]+) × "
                  r"\$([\d.]+) cold\)$", line.how)
    assert m, line.how
    hot, hp, cold, cp = (float(x.replace(",", "")) for x in m.groups())
    assert (hp, cp) == (0.145, 0.00099)
    assert hot * hp + cold * cp == pytest.approx(line.usd, rel=1e-3)


def test_a_given_line_given_as_a_range_says_its_amount_is_the_ranges_point():
    # A finance trial read "1,000,000 USD given" for a licensing line whose scenario gave a
    # triangular range 0.5M / 1M / 2M: the point bill prices the mode (ranges.POINT_WORDS) and
    # the P10-P90 draw from the range; a number given alone keeps "USD given"
    from llmcost.bill.ledger import simulate_ledger
    sc = {"model": "llama-2-70b", "n_gpus": 64, "train_tokens": 1e11, "mfu": 0.4,
          "price_usd_per_gpu_hour": 2.0, "ledger_data_processing_usd": 30_000,
          "ledger_data_licensing_usd": llmcost.Range("triangular", low=5e5, mode=1e6,
                                                     high=2e6)}
    point = simulate_ledger(sc, samples=100).point
    lic, proc = point.line("data.licensing"), point.line("data.processing")
    assert lic.usd == pytest.approx(1e6) and lic.how.startswith(
        "1,000,000 USD, the mode of the range triangular")
    assert proc.how == "30,000 USD given"


def test_published_project_length_is_drawn_over_its_published_bounds():
    # A review read the Llama 3.1 405B bill's staff, $60M (22% of the bill), at "P10-P90
    # $60.1M-$60.1M": the project's length it rests on is Epoch's median project, 10.15 months,
    # whose four case studies span 4-20 months at their 90% bounds (data/ledger_defaults.csv
    # project_months_published: GPT-3 4-13, OPT-175B 6.3, GPT-4 9.5-14, Gemini 7-20). The
    # contributor rule is linear in the months (N × E[FTE] × months / 12 × E[loaded cost],
    # Cottier et al. 2024 §2.5), so each draw's staff is the point's × months / 10.15.
    from llmcost import Range
    from llmcost.bill.ledger import (build_ledger, headline_draws, illustrative_ranges,
                                     with_changes)
    base = {"model": "llama-3.1-70b", "accelerator": "H100-SXM", "n_gpus": 1024,
            "train_tokens": 2e12, "mfu": 0.4, "price_usd_per_gpu_hour": 2.5,
            "ledger_published_defaults": True, "ledger_contributors": 100}
    bill = build_ledger(base)
    assert bill.figures["project_months"] == pytest.approx(10.15)
    r, why = illustrative_ranges(bill)["ledger_project_months"]
    assert (r.low, r.point, r.high) == pytest.approx((4.0, 10.15, 20.0))
    assert "4-20 months" in why and "at least the compute schedule" in why
    head = headline_draws(base, samples=20_000, seed=0)
    months = head.draws.inputs["ledger_project_months"]
    staff = head.draws.line_usd["people.staff"]
    point = bill.line("people.staff").usd
    assert head.draws.point.line("people.staff").usd == pytest.approx(point)  # point unchanged
    # the compute schedule (exploration at Cottier's median 1.19x, then the run: 2e12 tokens on
    # 1,024 GPUs at 40%) lasts under 4 months at the point: a draw is floored only where the
    # exploratory fraction, drawn too, makes it longer than the project drawn
    assert bill.figures["run_wall_clock_days"] * 2.19 < 4 * 30.4
    by_months = point * months / 10.15
    assert np.all(staff >= by_months * (1 - 1e-9))
    assert np.isclose(staff, by_months, rtol=1e-9).mean() > 0.99
    p10, p90 = np.quantile(staff, [0.1, 0.9])
    m10, m90 = (float(x) for x in r.quantile(np.array([0.1, 0.9])))
    assert p10 == pytest.approx(point * m10 / 10.15, rel=0.02)
    assert p90 == pytest.approx(point * m90 / 10.15, rel=0.02)
    assert p10 < 0.85 * point and p90 > 1.15 * point       # a spread, both sides
    # operations scale with the months too
    ops = build_ledger({**base, "ledger_operations_usd_per_month": 1e5})
    d = headline_draws(ops.scenario, samples=2_000, seed=0).draws
    ops_usd, drawn = d.line_usd["ops.operations"], 1e5 * d.inputs["ledger_project_months"]
    assert np.all(ops_usd >= drawn * (1 - 1e-9))
    assert np.isclose(ops_usd, drawn, rtol=1e-9).mean() > 0.99
    # a length the scenario gives is its own: one number, not drawn
    assert "ledger_project_months" not in illustrative_ranges(
        build_ledger({**base, "ledger_project_months": 9}))
    # nor without the published defaults (the compute schedule, said to be a lower bound)
    assert "ledger_project_months" not in illustrative_ranges(
        build_ledger({**base, "ledger_published_defaults": False}))
    # a run longer than the top of the range: every draw is the run, no spread to draw
    long_run = build_ledger({**base, "n_gpus": 32})
    assert long_run.figures["project_months"] > 20
    assert "ledger_project_months" not in illustrative_ranges(long_run)
    # a schedule within the range (128 GPUs: exploration 1.19x the run, then the run, about
    # 15 months at the point MFU): drawn, each draw's staff at least its own schedule's months
    # (the MFU is drawn too, and the schedule with it)
    mid = build_ledger({**base, "n_gpus": 128, "mfu": Range("uniform", low=0.39, high=0.41)})
    run_months = mid.figures["project_months"]
    assert 10.15 < run_months < 20
    d = headline_draws(mid.scenario, samples=2_000, seed=0).draws
    staff, per_month = d.line_usd["people.staff"], mid.line("people.staff").usd / run_months
    # the schedule at each draw: the run's months at its MFU × (1 + its exploratory fraction)
    drawn_run = run_months / 2.19 * 0.4 / d.inputs["mfu"] * (
        1 + d.inputs["ledger_exploratory_fraction"])
    assert staff == pytest.approx(per_month * np.maximum(d.inputs["ledger_project_months"],
                                                         drawn_run), rel=1e-4)  # goodput moves
    assert (d.inputs["ledger_project_months"] < drawn_run).mean() > 0.3  # floored draws
    # a caller's own range, given after on the headline's point bill, is the scenario's
    mine = with_changes(head.draws.point, ledger_project_months=Range("uniform", low=2, high=3))
    assert mine.figures["project_months"] == pytest.approx(2.5)
    # the drawn length goes with the rule it was drawn for: published defaults off, the
    # project is the convention's compute schedule again (a review: 10.15 stayed, said as the
    # scenario's)
    off = with_changes(head.draws.point, ledger_published_defaults=False)
    assert off.figures["project_months"] == pytest.approx(
        build_ledger({**base, "ledger_published_defaults": False}).figures["project_months"])
    assert "ledger_project_months (scenario)" not in off.figures["project_months_source"]
    # a run between the median and the top: the words say the point is the run's own months
    b128 = build_ledger({**base, "n_gpus": 128})
    _, why128 = illustrative_ranges(b128)["ledger_project_months"]
    assert f"the bill's point is the compute schedule's {b128.figures['project_months']:.3g} " \
        "months, longer" in why128


def test_notebook_00s_post_training_illustration_keeps_the_scenarios_own_lines():
    # A trial (Llama 3.1 70B, ledger_sft_tokens 2e9, GRPO): notebook 00's "post-training
    # compute" row read $47.4k with "SFT 10B tokens $8.77k, LoRA 10B tokens $6.60k" beside a
    # bill whose SFT line (2B tokens) was $1.72k and which billed no LoRA: the page replaced the
    # scenario's own quantities. Now each line the scenario gives stays its own; the others
    # take the illustration, said which is which. By hand: 10^5 samples × $5 = $500,000 of
    # annotation; 2,000 hours × $60 = $120,000 of human evaluation.
    bill = ledger.build_ledger({"price_usd_per_gpu_hour": 3.99, "ledger_sft_tokens": 2e9})
    post, illustrative, words = ledger.post_training_illustration(bill)
    assert illustrative == ("post.lora", "data.annotation", "eval.human")
    assert post.line("post.sft").usd == bill.line("post.sft").usd > 0
    assert post.line("data.annotation").usd == pytest.approx(500_000.0, rel=1e-12)
    assert post.line("eval.human").usd == pytest.approx(120_000.0, rel=1e-12)
    assert post.line("post.lora").usd > 0 == bill.line("post.lora").usd
    assert words.startswith(f"SFT 2B tokens {llmcost.fmt_usd(bill.line('post.sft').usd)} "
                            "(the scenario's); LoRA 10B tokens ")
    assert "(illustrative)" in words
    # a scenario that gives nothing: all four illustrated, SFT at the illustration's 10B tokens
    none = ledger.post_training_illustration(ledger.build_ledger({"price_usd_per_gpu_hour": 3.99}))
    assert none[1] == ("post.sft", "post.lora", "data.annotation", "eval.human")
    ten = ledger.build_ledger({"price_usd_per_gpu_hour": 3.99, "ledger_sft_tokens": 1e10})
    assert none[0].line("post.sft").usd == ten.line("post.sft").usd
    assert none[2].startswith(f"SFT 10B tokens {llmcost.fmt_usd(ten.line('post.sft').usd)} "
                              "(illustrative)")
    # MLA attention (DeepSeek-V3): LoRA's adapter count is not modelled: not billed, said why
    mla = ledger.build_ledger({"model": "deepseek-v3", "n_gpus": 2048, "train_tokens": 1e12,
                               "price_usd_per_gpu_hour": 3.99})
    post, illustrative, words = ledger.post_training_illustration(mla)
    assert "post.lora" not in illustrative and post.line("post.lora").usd == 0
    assert "(not billed: LoRA is not modelled for mla attention)" in words
    with pytest.raises(ValueError, match="bill"):
        ledger.post_training_illustration({"model": "llama-2-70b"})


def test_post_training_illustration_keeps_each_given_key_and_reads_ranges_at_their_point():
    # A review: a ranged SFT quantity crashed notebook 00 (a Range formatted as a count), and a
    # given annotation price with no sample count was replaced by the illustration's $5
    bill = ledger.build_ledger({"price_usd_per_gpu_hour": 3.99,
                                "ledger_sft_tokens": {"low": 1e9, "mode": 2e9, "high": 4e9},
                                "ledger_annotation_usd_per_sample": 20.0,
                                "ledger_human_eval_hours": 500.0})
    post, illustrative, words = ledger.post_training_illustration(bill)
    assert "SFT 2B tokens (its point) " in words and "(the scenario's)" in words
    # 10^5 samples (illustrative) × the scenario's $20 = $2M; 500 h × the illustrative $60
    assert post.line("data.annotation").usd == pytest.approx(2e6, rel=1e-12)
    assert post.line("eval.human").usd == pytest.approx(30_000.0, rel=1e-12)
    assert "annotation of 100k samples $2.00M (illustrative sample count)" in words
    assert "human evaluation, 500 hours $30.0k (illustrative rate)" in words
    assert illustrative == ("post.lora", "data.annotation", "eval.human")


def test_a_bill_at_another_mfu_moves_its_phases_own_mfus_as_the_draws_do():
    # A finance trial on the shipped Llama 3.1 405B scenario (main run 41%, two phases at 38%):
    # notebook 00 printed "at MFU 54.9%: bill $222M" with the main run's MFU alone changed,
    # beside the tornado's "$217M at its P90 (0.5495)", whose draws move each phase's own MFU
    # with the main one. ledger.at_mfu moves them so: by hand, 0.38 × 0.5 / 0.41 = 0.4634.
    path = llmcost.SCENARIO_DIR / "llama-3.1-405b.yaml"
    bill = ledger.build_ledger(llmcost.load_scenario(path))
    at = ledger.at_mfu(bill, 0.5)
    assert at.figures["mfu"] == 0.5
    assert [ph["mfu"] for ph in at.scenario["phases"]] == pytest.approx([0.38 * 0.5 / 0.41] * 2)
    # the Monte Carlo's own rule: the tornado prices the MFU at its P90 with the phases moved
    r = {"low": 0.3, "mode": 0.41, "high": 0.6}
    d = ledger.simulate_ledger({**bill.scenario, "mfu": r}, samples=2_000)
    p90 = float(d.ranges["mfu"].quantile(0.9))
    row = d.tornado().set_index("input").loc["mfu"]
    assert row["total_at_p90_usd"] == pytest.approx(ledger.at_mfu(bill, p90).total_usd, rel=1e-9)
    # and differs from the main run's MFU alone changed (the phases kept at 38%)
    assert ledger.with_changes(bill, mfu=0.5).total_usd > at.total_usd
    with pytest.raises(ValueError, match="mfu"):
        ledger.at_mfu(bill, 1.5)


def test_a_phase_above_the_main_runs_mfu_moves_with_it_up_to_the_peak_not_past_it():
    # A phase set at MFU 0.6 beside a main run at 0.45: at a main-run MFU of 0.8 the
    # proportional move gives 0.6 × 0.8 / 0.45 = 1.067, a step faster than the dense peak.
    # By hand, the phase is held at MFU 1; at 0.5 it moves to 0.6 × 0.5 / 0.45 = 0.6667.
    s = llmcost.load_scenario(llmcost.SCENARIO_DIR / "default.yaml")
    s = {**s, "mfu": 0.45, "phases": [{"name": "anneal", "tokens": 1e11, "seq_len": 4096,
                                       "mfu": 0.6}]}
    bill = ledger.build_ledger(s)
    key = "compute.pretraining.anneal"
    assert ledger.at_mfu(bill, 0.5).scenario["phases"][0]["mfu"] == pytest.approx(0.6 / 0.9)
    high = ledger.at_mfu(bill, 0.8)       # refused with "must be in (0, 1]" before
    assert high.scenario["phases"][0]["mfu"] == 1.0
    # its line at MFU 1 is its line at 0.6 × 0.6 (ideal GPU-hours ∝ 1 / MFU; its goodput,
    # which depends on the phase's length, moves by 0.03%)
    assert high.line(key).usd == pytest.approx(bill.line(key).usd * 0.6, rel=1e-3)
    # the draws price the phase as at_mfu does, draw by draw, above the cap and below it
    d = ledger.simulate_ledger({**s, "mfu": {"low": 0.3, "mode": 0.45, "high": 0.8}},
                               samples=400)
    m = np.asarray(d.inputs["mfu"])
    for i in (int(np.argmax(m)), int(np.argmin(m))):
        assert d.line_usd[key][i] == pytest.approx(ledger.at_mfu(bill, m[i]).line(key).usd,
                                                   rel=1e-9)
    assert m.max() * 0.6 / 0.45 > 1      # the largest draw is one the cap acts on


def test_the_months_the_fixed_lines_pay_say_the_roles_own():
    # A long-context trial read "the people, storage and operations lines pay 1.36 months"
    # beside ledger_people: [{role: research, fte: 6, months: 6}], which the people line pays
    # for its 6 months (_people_line: FTE × months ÷ 12 × pay). By hand: 6 × 6 / 12 = 3
    # FTE-years.
    from llmcost.present import answers
    s = {**llmcost.load_scenario(llmcost.SCENARIO_DIR / "default.yaml"),
         "ledger_people": [{"role": "research", "fte": 6, "months": 6}]}
    bill = ledger.build_ledger(s)
    assert bill.line("people.staff").usd == pytest.approx(
        3 * ledger.default("staff_usd_per_fte_year_mean"), rel=1e-9)
    said = answers.paid_months_words(bill.figures["project_months"], s["ledger_people"])
    assert said.endswith("the people line its roles' own months (6 months)")
    mixed = [{"role": "research", "fte": 6, "months": 6}, {"role": "ops", "fte": 1}]
    assert "(6 months; " in answers.paid_months_words(1.5, mixed) and \
        "for a role that gives none)" in answers.paid_months_words(1.5, mixed)
    assert answers.paid_months_words(1.5, []) == \
        "the people, storage and operations lines pay 1.5 months"
