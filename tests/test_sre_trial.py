"""What a reliability engineer's trial found priced without a word: checkpoint storage billed for
bandwidth the nodes cannot use, an object store's rate taken from the sizing's top, an archive
tier accepted as the hot tier, and a storage line ten times the compute said on page 07 alone.

Each figure is hand arithmetic on the scenario's inputs, stated in the test."""

from pathlib import Path

import pytest

from llmcost.bill.checks import checkpoint_storage_warnings
from llmcost.bill.scenario import ScenarioError, validate_parameters
from llmcost.present import glance
from llmcost.present.report import estimate_ledger

_DEFAULT_PATH = Path(__file__).resolve().parents[1] / "data" / "scenarios" / "default.yaml"
_BASE = ("model: llama-2-70b\nn_gpus: 4096\ntrain_tokens: 2.0e12\nmfu: 0.4\n"
         "price_usd_per_gpu_hour: 3.99\n")


def test_storage_above_what_the_nodes_can_send_is_said():
    # by hand: 4,096 H100 in 8-GPU hosts = 512 nodes x 50 GB/s = 25.6 TB/s < 100 TB/s; at
    # 25.6 TB/s exactly, nothing to say
    v = {"ckpt_storage_bytes_per_s": 1e14, "ckpt_node_bytes_per_s": 5e10, "n_gpus": 4096,
         "accelerator": "H100-SXM", "ckpt_hot_tier": "fsx-lustre-ssd"}
    (w,) = checkpoint_storage_warnings(v)
    assert w.startswith("ckpt_storage_bytes_per_s=1e+14 (100,000 GB/s) is above what the job's "
                        "512 nodes can send it, 25,600 GB/s (50 GB/s each")
    assert glance.caveat_line(w) == ("checkpoint storage of 100,000 GB/s is billed where the "
                                     "job's 512 nodes can send it 25,600 GB/s")
    # one node: "1 node", not "the 1 nodes" (a review)
    one = checkpoint_storage_warnings({**v, "n_gpus": 8})[0]
    assert "the job's 1 node can send it" in one and "the job's 1 node can" in \
        glance.caveat_line(one)
    # an object store bills no bandwidth: nothing billed that the nodes cannot use
    assert checkpoint_storage_warnings({**v, "ckpt_hot_tier": "s3-standard"}) == []
    assert checkpoint_storage_warnings({**v, "ckpt_storage_bytes_per_s": 2.56e13}) == []
    # a last host partly used is a whole node: 4,095 GPUs are 512 nodes too
    assert "512 nodes" in checkpoint_storage_warnings({**v, "n_gpus": 4095})[0]


def test_an_object_store_sized_by_the_bill_is_said_and_an_archive_is_not_a_hot_tier():
    v = {"ckpt_storage_bytes_per_s": None, "ckpt_node_bytes_per_s": 5e10, "n_gpus": 64,
         "accelerator": "H100-SXM", "ckpt_hot_tier": "s3-standard"}
    (w,) = checkpoint_storage_warnings(v)
    assert "sells no throughput with its capacity" in w and "give ckpt_storage_bytes_per_s" in w
    # a rate of its own, or a file system that sells throughput per TiB: nothing to say
    assert checkpoint_storage_warnings({**v, "ckpt_storage_bytes_per_s": 1e10}) == []
    assert checkpoint_storage_warnings({**v, "ckpt_hot_tier": "fsx-lustre-ssd"}) == []
    with pytest.raises(ScenarioError, match=r"^ckpt_hot_tier='s3-glacier-deep-archive' is a cold "
                                            r"\(archive\) tier .*give it to ckpt_cold_tier"):
        validate_parameters(ckpt_hot_tier="s3-glacier-deep-archive")
    assert validate_parameters(ckpt_cold_tier="s3-glacier-deep-archive")[
        "ckpt_cold_tier"] == "s3-glacier-deep-archive"


def test_estimate_says_a_storage_line_above_a_tenth_of_the_compute(tmp_path):
    # notebook 07 warns when checkpoint storage costs more than 10% of the ideal compute; the
    # trial's 100 TB/s was billed at ten times the compute with no warning under `estimate`
    path = tmp_path / "fast.yaml"
    path.write_text(_BASE + "ckpt_storage_bytes_per_s: 1.0e14\n")
    bill = estimate_ledger(path)
    # by hand: 1e14 B/s on FSx for Lustre at 125 MB/s per TiB is 800,000 TiB provisioned
    # (819.2M GiB) at $0.145 per GiB-month over the run's wall clock in months of 30.4375 days;
    # the compute, the ideal GPU-hours at $3.99 (data/storage_prices.csv; the scenario)
    days = bill.figures["run_wall_clock_days"]
    storage = 800_000 * 1024 * 0.145 * days / 30.4375
    assert bill.line("storage.checkpoints").usd == pytest.approx(storage, rel=1e-9)
    compute = bill.figures["main_ideal_gpu_hours"] * 3.99
    assert bill.line("compute.pretraining.main").usd == pytest.approx(compute, rel=1e-9)
    share = storage / compute
    assert share > 1
    (w,) = [x for x in bill.warnings if x.startswith("checkpoint storage costs")]
    assert w.startswith(f"checkpoint storage costs {share:.0%} of the ideal compute bill")
    plain = tmp_path / "plain.yaml"
    plain.write_text(_BASE)
    assert not [x for x in estimate_ledger(plain).warnings
                if x.startswith("checkpoint storage costs")]


def test_a_low_goodput_names_the_planned_stops_beside_the_failures(tmp_path):
    # the trial's 50 planned stops a day on 4,096 GPUs took most of a 63% goodput; the warning
    # named "a failure every 12.4 h" alone (by hand: M = 1 / (4,096 x 0.173 / 8,766 h) = 12.4 h)
    path = tmp_path / "planned.yaml"
    path.write_text(_BASE + "fail_planned_per_day: 50\n")
    (w,) = [x for x in estimate_ledger(path).warnings if x.startswith("goodput ")]
    assert "every 12.4 h on 4,096 GPUs (besides planned stops, 50 a day)" in w
    assert "the planned stops (fail_planned_per_day)" in w
    # the index's one line keeps them (a review found them dropped there)
    assert "on 4,096 GPUs (besides planned stops, 50 a day), the run pays" in \
        glance.caveat_line(w)
    none = tmp_path / "none.yaml"
    none.write_text(_BASE + "fail_planned_per_day: 0\nfail_rate_per_gpu_year: 20.0\n")
    said = [x for x in estimate_ledger(none).warnings if x.startswith("goodput ")]
    assert said and "planned stops" not in said[0]


def test_the_published_runs_band_is_not_set_against_a_range_that_reaches_it(tmp_path):
    # a review: `mfu: [0.2, 0.6]` around the default plan's 44.5%-54.6% band was told its bill
    # "lies below" it; and 4 L40S (no scale-out figure: no page 04b) were sent to notebook 04b
    said = "a published run like this one gives"
    path = tmp_path / "ranged.yaml"
    path.write_text(_BASE.replace("n_gpus: 4096", "n_gpus: 2048").replace(
        "mfu: 0.4", "mfu: [0.2, 0.6]"))
    assert not [w for w in estimate_ledger(path).warnings if said in w]
    point = tmp_path / "point.yaml"
    point.write_text(_BASE.replace("n_gpus: 4096", "n_gpus: 2048"))
    assert [w for w in estimate_ledger(point).warnings if said in w]
    l40s = tmp_path / "l40s.yaml"
    l40s.write_text("model: llama-3.1-8b\naccelerator: L40S\nn_gpus: 4\ntrain_tokens: 1e9\n"
                    "mfu: 0.4\nprice_usd_per_gpu_hour: 1.0\nledger_rl: false\n")
    assert not [w for w in estimate_ledger(l40s).warnings if said in w]


def test_the_bill_carries_where_the_wall_clock_goes_for_an_sre():
    # `estimate --format json` had the goodput and the interval, not the lost-time split nor the
    # restart (an SRE trial): the shares of the wall clock sum to 1, the productive one is the
    # goodput, and a restart is ckpt_restart_s plus reading the checkpoint back at the storage
    # rate it was written at (default: 600 s + the write time)
    from llmcost.bill import ledger
    bill = ledger.build_ledger({})
    plan = bill.figures["ckpt_main_plan"]
    shares = plan["wall_clock_shares"]
    assert set(shares) == {"productive", "checkpoint", "lost_work", "restart", "planned"}
    assert sum(shares.values()) == pytest.approx(1.0, abs=1e-12)
    assert shares["productive"] == pytest.approx(bill.figures["goodput"], rel=1e-9)
    assert plan["restart_s"] == pytest.approx(600 + plan["write_s"], rel=1e-9)


def test_llama3s_planned_stop_rate_on_a_small_job_is_said_where_it_outweighs_failures(tmp_path):
    # fail_planned_per_day defaults to Llama 3's 47 planned stops in 54 days of one 16,384-GPU
    # job (arXiv:2407.21783 §3.3.4), 0.87 a day whatever the job's size: on 64 A100s it costs
    # more wall clock than the failures (a PI's and an SRE's trials), on 2,048 H100s it does not
    small = tmp_path / "small.yaml"
    small.write_text("model: llama-2-7b\naccelerator: A100-40GB\nn_gpus: 64\ntrain_tokens: 1e12\n"
                     "mfu: 0.4\nledger_rl: false\n")
    bill = estimate_ledger(small)
    (w,) = [x for x in bill.warnings if x.startswith("fail_planned_per_day: 0.87")]
    shares = bill.figures["ckpt_main_plan"]["wall_clock_shares"]
    assert shares["planned"] > shares["lost_work"] + shares["restart"]
    assert f"take {shares['planned']:.2%} of the wall clock" in w and "64-GPU job" in w
    assert glance.caveat_line(w).startswith("planned stops at Llama 3's 0.87 a day take ")
    own = tmp_path / "own.yaml"
    own.write_text(small.read_text() + "fail_planned_per_day: 0.1\n")
    assert not [x for x in estimate_ledger(own).warnings if "Llama 3's rate" in x]
    assert not [x for x in estimate_ledger(_DEFAULT_PATH).warnings if "Llama 3's rate" in x]
