"""Storage duty cycle, in-memory (peer) checkpoints, hot spares, bulk spot reclaims, restart
phases and the scenario helpers of notebook 07, each against a hand derivation written here."""

import math

import pytest

import llmcost
from llmcost import ledger
from llmcost import reliability as rel
from llmcost.bill.scenario import ScenarioError

YEAR_S = 365.25 * 86400


@pytest.fixture(scope="module")
def p():
    # the notebooks' defaults (= the default scenario, scenario.LEDGER_DEFAULTS)
    from llmcost.bill.scenario import LEDGER_DEFAULTS
    return llmcost.validate_parameters(**LEDGER_DEFAULTS)


@pytest.fixture(scope="module")
def n_params(p):
    return llmcost.load_model(p["model"]).n_params


def test_storage_duty_cycle_by_hand():
    # one 3.87 s write per 41 s interval + 0.01 s stall
    assert rel.storage_duty_cycle(3.87, 41.0, 0.01) == pytest.approx(3.87 / 41.01, rel=1e-12)
    with pytest.raises(ValueError, match="interval_s"):
        rel.storage_duty_cycle(1.0, 0.0)


def test_async_optimum_of_the_default_scenario_by_hand(p, n_params):
    # Llama-2-70B (68.98e9 params) × 14 B + 1 MB loader state per rank on 2,048 GPUs:
    # 965.7 + 2.0 GB = 967.8 GB; write at 2,048 × 122 MB/s = 250 GB/s: 3.87 s; snapshot of
    # 472.6 MB at 50 GB/s: 9.45 ms; M = 1 year / (2,048 × 0.173) = 89,069 s;
    # Young τ = √(2·0.00945·89,069) = 41.0 s; duty = 3.87 / 41.0 = 9.4%; 23.6 GB/s sustained.
    assert p["n_gpus"] == 2048 and p["fail_rate_per_gpu_year"] == 0.173
    plan = rel.scenario_checkpoint_plan(p, n_params, async_=True, interval_s=None)
    size = n_params * 14 + 2048 * 1e6
    assert plan.write_s == pytest.approx(size / 250e9, rel=1e-3)
    m = YEAR_S / (2048 * 0.173)
    assert plan.mtbf_s == pytest.approx(m, rel=1e-9)
    young = math.sqrt(2 * size / 2048 / 50e9 * m)
    assert 0.99 * young < plan.interval_s < 1.0001 * young
    assert plan.storage_duty == pytest.approx(0.0943, abs=0.001)
    assert plan.sustained_write_bytes_per_s == pytest.approx(23.6e9, rel=0.01)


def test_duty_cycle_bound_binds_on_slow_storage(p, n_params):
    # at 10 GB/s the 967.8 GB write takes 96.8 s > the 41 s optimum: the write must end before
    # the next begins, τ = w; allowing only half the storage time, τ = 2w − δ_snapshot.
    slow = rel.scenario_checkpoint_plan(p, n_params, async_=True, interval_s=None,
                                        storage_bytes_per_s=10e9)
    w = (n_params * 14 + 2048e6) / 10e9
    assert slow.interval_s == pytest.approx(w, rel=1e-9)
    half = rel.scenario_checkpoint_plan(p, n_params, async_=True, interval_s=None,
                                        storage_bytes_per_s=10e9, max_storage_duty=0.5)
    assert half.interval_s == pytest.approx(2 * w - half.snapshot_s, rel=1e-9)
    assert half.storage_duty == pytest.approx(0.5, rel=1e-9)
    with pytest.raises(ValueError, match="max_storage_duty"):
        rel.scenario_checkpoint_plan(p, n_params, async_=True, interval_s=None,
                                     max_storage_duty=1.5)


def test_scenario_plan_sync_optimum_near_young(p, n_params):
    # synchronous: δ = 3.87 + 0.0095 s; Young √(2·3.88·89,069) = 831 s; Daly's exact optimum is
    # a little shorter (Daly's worked example in the notebook: 1,138 → 1,099 s)
    plan = rel.scenario_checkpoint_plan(p, n_params)
    young = math.sqrt(2 * plan.stall_s * plan.mtbf_s)
    assert 800 < young < 840
    assert 0.98 * young < plan.interval_s < young
    with pytest.raises(ValueError, match="not arguments of checkpoint_plan"):
        rel.scenario_checkpoint_plan(p, n_params, intervl_s=5)
    with pytest.raises(ValueError, match="missing"):
        rel.scenario_checkpoint_plan({"n_gpus": 8}, n_params)


def test_scenario_storage_source(p):
    bw, src = rel.scenario_storage_bytes_per_s(p)
    assert bw == pytest.approx(2048 * 2e12 / 16384) and "Tectonic" in src
    bw, src = rel.scenario_storage_bytes_per_s({**p, "ckpt_storage_bytes_per_s": 1e11})
    assert bw == 1e11 and "given" in src


def test_capacity_sized_tier_is_slow_whatever_the_model():
    # 3 checkpoints of S bytes on FSx PERSISTENT-125: B = 3·S/2^40 × 125e6; S / B = 2^40 / 375e6
    for size in (1e11, 1e12):
        bw = rel.tier_bandwidth_bytes_per_s("fsx-lustre-ssd", 3 * size)
        assert size / bw == pytest.approx(2**40 / 3.75e8, rel=1e-12)  # 2,932 s
    with pytest.raises(ValueError, match="object storage"):
        rel.tier_bandwidth_bytes_per_s("s3-standard", 1e12)


def test_retention_policies_hot_tier_by_hand(p, n_params):
    # 250 GB/s at 125 MB/s per TiB: 2,000 TiB provisioned = 2,048,000 GiB at $0.145 per
    # GB-month (AWS bills a GB-month as 2^30 bytes) for 13 days (13 / 30.4375 months):
    # 2,048,000 × 0.145 × 0.4271 = $126.8k
    plan = rel.scenario_checkpoint_plan(p, n_params)
    t = rel.retention_policies(plan, p, 13.0, n_params)
    assert list(t.columns) == ["hot", "milestones", "total"] and len(t) == 3
    hand = 2000 * 1024 * 0.145 * 13 / (365.25 / 12)
    assert t["hot"].iloc[0] == pytest.approx(hand, rel=1e-3)
    # 13 days < the 7-day milestone interval twice: one milestone of 967.8e9 B = 901.3 GiB kept
    # cold for 13/30.4375/2 + 12 months at $0.00099 per GB-month
    ms = (n_params * 14 + 2048e6) / 2**30 * (13 / 30.4375 / 2 + 12) * 0.00099
    assert t["milestones"].iloc[0] == pytest.approx(ms, rel=1e-3)


def test_spot_pays_by_hand():
    # $2.46 at 42.3% goodput = $5.82 per kept GPU-hour > $3.99 at 97.8% = $4.08: no
    assert not rel.spot_pays(3.99, 0.978, 2.46, 0.423)
    # $1.00 at 90% = $1.11 < $2.00 at 95% = $2.11: yes
    assert rel.spot_pays(2.0, 0.95, 1.0, 0.9)
    assert not rel.spot_pays(2.0, 0.95, 1.0, 0.0)  # a job that never finishes


def test_spot_verdict_without_a_preemption_rate_says_what_to_give(p):
    """No provider publishes a per-node pre-emption rate, so the workbook has no default: off
    spot, the what-if is one sentence naming the key; on spot, the bill is refused."""
    lines = ledger.spot_verdict(ledger.build_ledger(p))
    assert len(lines) == 1 and "give ledger_spot_preemptions_per_node_day" in lines[0]
    with pytest.raises(ScenarioError, match="pricing='spot' needs "
                                            "ledger_spot_preemptions_per_node_day"):
        ledger.build_ledger({**p, "pricing": "spot", "price_usd_per_gpu_hour": None})


def test_spot_verdict_agrees_with_the_criterion(p):
    # a user's figure: each 8-GPU node pre-empted once a week
    bill = ledger.build_ledger({**p, "ledger_spot_preemptions_per_node_day": 1 / 7})
    lines = ledger.spot_verdict(bill)
    assert lines[0].startswith("without resumable training") and "never finishes" in lines[0]
    spot = ledger.with_changes(bill, pricing="spot", price_usd_per_gpu_hour=None).figures
    b = bill.figures
    pays = spot["final_run_usd"] < b["final_run_usd"]
    assert pays == rel.spot_pays(b["price_usd_per_gpu_hour"], b["goodput"],
                                 spot["price_usd_per_gpu_hour"], spot["goodput"])
    assert ("spot pays here" if pays else "spot does not pay here") in lines[1]


def test_bulk_reclaims_by_hand():
    # 256 nodes, each reclaimed once a week on average, 32 at a time: 256/7/32 = 1.14 a day
    assert rel.bulk_reclaim_events_per_day(256, 1 / 7, 32) == pytest.approx(256 / 7 / 32)
    assert rel.bulk_reclaim_events_per_day(256, 1 / 7) == pytest.approx(256 / 7)
    with pytest.raises(ValueError, match="nodes_per_event"):
        rel.bulk_reclaim_events_per_day(8, 1.0, 16)


def test_peer_checkpoint_plan_by_hand():
    # 10 GB per GPU, d2h 50 GB/s: δ = 0.2 s; 2 peer copies at 25 GB/s: c = 0.8 s;
    # 8 GPUs at λ = 1 year/(8·1e5 s): M = 1e5 s; Young √(2·0.2·1e5) = 200 s;
    # R_mem = 600 + 10/25 + 0.8 = 601.2 s; with 25% of failures falling back to a 2,000 s
    # durable restart: R = 0.75·601.2 + 0.25·2,000 = 950.9 s.
    lam = YEAR_S / 8 / 1e5
    pl = rel.peer_checkpoint_plan(10e9, 8, lam, 25e9, 600, d2h_bytes_per_s=50e9,
                                  peer_copies=2, fallback_share=0.25, fallback_restart_s=2000)
    assert pl.snapshot_s == pytest.approx(0.2) and pl.copy_s == pytest.approx(0.8)
    assert pl.mtbf_s == pytest.approx(1e5)
    assert 0.99 * 200 < pl.interval_s < 200.0
    assert pl.restart_memory_s == pytest.approx(601.2)
    assert pl.restart_s == pytest.approx(950.9)
    # first-order waste δ/τ + (τ/2 + R)/M = 0.001 + (100 + 950.9)/1e5 = 1.15%
    assert 1 - pl.goodput == pytest.approx(0.0115, rel=0.03)
    with pytest.raises(ValueError, match="fallback_share"):
        rel.peer_checkpoint_plan(10e9, 8, lam, 25e9, 600, fallback_share=1.5)


def test_hot_spares_by_hand(p, n_params):
    # replacing a node takes 300 s for the 76.6% of failures that are hardware (Llama 3
    # Table 5: 321 of 419): a spare removes 229.8 s from each restart; 4 spare nodes of 8 GPUs
    # are 32/2,048 = 1.5625% more GPUs paid.
    plan = rel.scenario_checkpoint_plan(p, n_params)
    t = rel.hot_spare_table(plan, 8, 300, spare_nodes=(0, 4))
    assert t.loc[0, "restart_s"] == pytest.approx(plan.restart_s)
    assert t.loc[4, "restart_s"] == pytest.approx(plan.restart_s - 0.766 * 300)
    assert t.loc[4, "spare_gpus"] == 32
    ratio = 1.015625 * t.loc[0, "goodput"] / t.loc[4, "goodput"]
    assert t.loc[4, "vs_no_spares"] == pytest.approx(ratio, rel=1e-9)
    assert t.loc[4, "goodput"] > t.loc[0, "goodput"]
    with pytest.raises(ValueError, match="replace_s"):
        rel.hot_spare_table(plan, 8, 1e6)


def test_restart_phases_add_up():
    r = rel.restart_phases_s(120, 300, 20, 60)
    assert r["total"] == 500
    with pytest.raises(ValueError, match="scheduler"):
        rel.restart_phases_s(-1, 0, 0)


def test_published_restart_times_match_their_quotes():
    """Each row's seconds is the figure its source states: Kokolis et al.'s assumed 5 minutes;
    MegaScale's catch-up 'within 15 minutes' (§6.3) and 1,047 s of initialisation on 2,048 GPUs
    before its fixes (§3.5); FlashRecovery's 150 s on 4,800 devices; DeadPool's 'under 40
    seconds'."""
    t = rel.restart_times_published()
    by_source = dict(zip(t["source"], t["seconds"]))
    assert by_source == {
        "Kokolis et al. 2024 (arXiv:2410.21680), secondary": 5 * 60,
        "MegaScale (ByteDance, arXiv:2402.15627 §6.3)": 15 * 60,
        "MegaScale (arXiv:2402.15627 §3.5)": 1047,
        "FlashRecovery (arXiv:2509.03047, abstract)": 150,
        "DeadPool (arXiv:2607.01646, abstract)": 40}
    assert "5 min" in t["note"][0] and "within 15 minutes" in t["note"][1]


def test_interval_sensitivity_first_order(p, n_params):
    # first-order waste δ/τ + τ/(2M) + R/M: at 4τ* (τ* ≈ √(2δM) = 829 s, δ = 3.88 s, M = 89,069 s)
    # the lost-work term grows from 0.47% to 1.86%, the stall term falls from 0.47% to 0.12%:
    # goodput drops by about 1.05 points.
    t = rel.interval_sensitivity(p, n_params, 8, 623_963, 3.99, (1, 4))
    assert t["extra cost vs optimum"].iloc[0] == 0
    drop = t["goodput"].iloc[0] - t["goodput"].iloc[1]
    assert 0.0095 < drop < 0.0115
    assert t["paid GPU-hours"].iloc[1] == pytest.approx(623_963 / t["goodput"].iloc[1])


def test_long_context_extra_share_by_hand():
    # Llama 3.1 405B (126 layers, d = 16,384, N = 405.85B): PaLM's count (Chowdhery et al. 2022,
    # App. B) 6N + 12·L·d·s per token gives F/6N = 1 + 12·126·16384·s / (6·405.85e9) = 1.083 at
    # 8K and 2.333 at 128K (the workbook's count differs in the small terms: within 0.007).
    # c = (2.333/0.38)/(1.083/0.41) = 2.32; 0.8T of 15.6T tokens: 0.8/15.6 × 1.32 = 6.8%.
    m = llmcost.load_model("llama-3.1-405b")
    r = rel.long_context_extra_share(m, 8192, 131072, 0.41, 0.38, 0.8e12, 15.6e12)
    for key, s in (("ratio_short", 8192), ("ratio_long", 131072)):
        assert r[key] == pytest.approx(1 + 12 * 126 * 16384 * s / (6 * 405.85e9), abs=0.007)
    assert r["cost_ratio"] == pytest.approx((2.333 / 0.38) / (1.083 / 0.41), rel=0.01)
    assert r["extra_share"] == pytest.approx(0.068, abs=0.001)
    with pytest.raises(ValueError, match="long_tokens"):
        rel.long_context_extra_share(m, 8192, 131072, 0.41, 0.38, 2e13, 1.56e13)


def test_storage_sized_from_the_checkpoint_plan():
    """Llama 3.1 70B on 2,048 H100 for 15T tokens at MFU 0.40, $2.50/GPU-h: provisioning the hot
    tier for 250 GB/s (2,048 × 122 MB/s, Llama 3's Tectonic rate per GPU) costs more than the
    GPU time it saves; the optimum of storage + lost GPU time is far lower."""
    spec = llmcost.load_model("llama-3.1-70b")
    run = llmcost.training_run(spec, "H100-SXM", 15e12, 0.40, 2048, 2.5, seq_len=8192)
    kw = dict(n_params=spec.n_params, n_gpus=2048, fail_rate_per_gpu_year=0.173,
              restart_overhead_s=600, ideal_gpu_hours=run["gpu_hours"],
              price_usd_per_gpu_hour=2.5, keep_last=3, node_bytes_per_s=5e10,
              d2h_bytes_per_s=5e10, planned_per_day=0.87)
    t = rel.storage_tradeoff(**kw, bandwidths=[2.5e10, 2.5e11])
    # hand: FSx for Lustre is sold at 125 MB/s per TiB, $0.145 per GB-month
    # (data/storage_prices.csv): 250 GB/s needs 2e3 TiB = 2.199e15 B, held for the run's
    # wall clock (ideal hours ÷ goodput ÷ 2,048 GPUs, in months of 30.44 days)
    months = run["gpu_hours"] / t.loc[2.5e11, "goodput"] / 2048 / (365.25 * 24 / 12)
    assert t.loc[2.5e11, "storage_usd"] == pytest.approx(
        2.5e11 / 1.25e8 * 1024 * months * 0.145, rel=1e-9)  # TiB × 1,024 billed GB (2^30 B)
    # lost GPU time = ideal hours × (1/goodput − 1) × price, by definition
    g = t.loc[2.5e10, "goodput"]
    assert t.loc[2.5e10, "lost_usd"] == pytest.approx(run["gpu_hours"] * (1 / g - 1) * 2.5)
    full = rel.storage_tradeoff(**kw)
    best = full.attrs["optimum_bytes_per_s"]
    assert full["total_usd"].min() == full.loc[best, "total_usd"]
    assert 1e10 < best < 1e11  # tens of GB/s, not 250
    assert full.loc[best, "total_usd"] < t.loc[2.5e11, "total_usd"] / 2
    # asynchronous checkpoints need less bandwidth for the same job
    assert rel.sized_storage_bytes_per_s(**kw, async_=True) < best


def test_sized_storage_is_the_tradeoff_tables_optimum():
    """The bill's storage sizing (``sized_storage_bytes_per_s``) reads the optimum from the
    trade-off's rows without building its table: the same bandwidth as
    ``storage_tradeoff(...).attrs["optimum_bytes_per_s"]`` for jobs from 64 to 16,384 GPUs, on
    a tier sold with capacity (FSx for Lustre) and one that is not (S3, where the fastest
    bandwidth tried wins: ``TRADEOFF_BANDWIDTHS``' last, 10 TB/s), and the same refusal where
    no bandwidth leaves goodput."""
    for n_params, n_gpus, hours, tier in ((8e9, 64, 2e4, "fsx-lustre-ssd"),
                                          (70e9, 2048, 1.7e6, "fsx-lustre-ssd"),
                                          (405.85e9, 16384, 3.1e7, "fsx-lustre-ssd"),
                                          (70e9, 2048, 1.7e6, "s3-standard")):
        kw = dict(n_params=n_params, n_gpus=n_gpus, fail_rate_per_gpu_year=0.173,
                  restart_overhead_s=600, ideal_gpu_hours=hours, price_usd_per_gpu_hour=2.5,
                  hot_tier=tier, keep_last=3, node_bytes_per_s=5e10, d2h_bytes_per_s=5e10,
                  planned_per_day=0.87)
        table = rel.storage_tradeoff(**kw)
        assert rel.sized_storage_bytes_per_s(**kw) == table.attrs["optimum_bytes_per_s"]
        if tier == "s3-standard":
            assert rel.sized_storage_bytes_per_s(**kw) == rel.TRADEOFF_BANDWIDTHS[-1]
    # 50 failures per GPU-year on 16,384 GPUs, a job MTBF of 3.156e7 s / 819,200 = 38.5 s,
    # with ten-hour restarts: no bandwidth leaves any goodput (e^(-R/M) underflows to 0)
    hopeless = dict(n_params=405.85e9, n_gpus=16384, fail_rate_per_gpu_year=50.0,
                    restart_overhead_s=36000, ideal_gpu_hours=3e7, price_usd_per_gpu_hour=2.5)
    for f in (rel.storage_tradeoff, rel.sized_storage_bytes_per_s):
        with pytest.raises(ValueError, match="no bandwidth tried gives the job any goodput"):
            f(**hopeless)


def test_optimum_of_rows_is_idxmin():
    """``optimum_of_rows`` picks as pandas' ``idxmin`` over lost $ + storage $ does: the
    smallest total, the first of equal totals, a NaN total passed over, NaN when all are NaN.
    Rows are (bandwidth, goodput, lost GPU-hours, lost $, storage $)."""
    nan = float("nan")
    rows = [(1e9, 0.5, 0, 30.0, 1.0), (2e9, 0.6, 0, 10.0, 5.0), (3e9, 0.7, 0, 5.0, 10.0),
            (4e9, 0.8, 0, nan, 0.0), (5e9, 0.9, 0, 1.0, 20.0)]
    assert rel.optimum_of_rows(rows) == 2e9  # 15 = 15: the first
    assert rel.optimum_of_rows(rows[3:4]) != rel.optimum_of_rows(rows[3:4])  # NaN
    import pandas as pd
    df = pd.DataFrame(rows, columns=["b", "g", "h", "lost", "storage"]).set_index("b")
    assert (df["lost"] + df["storage"]).idxmin() == rel.optimum_of_rows(rows)
