"""A scenario's scale-out bandwidth, ``comm_scaleout_bytes_per_s``, for an accelerator the
catalogue has none for (L40S, MI325X, TPU v4: data/accelerators.csv leaves the figure empty)
reaches every path that prices a plan on it: the RL campaign's policy update (the bill's RL
line, ``llmcost estimate``, notebook 05), a pilot's calibration (``llmcost estimate`` with a
``pilot:``, ``llmcost calibrate``, notebook 04b's pilot study). A new-user trial on 64 L40S at
200 Gb/s per GPU found each of them refusing the scenario with "scaleout_bytes_per_s_per_dir:
L40S has no value in the catalogue; pass it explicitly", a value the scenario gave.

The figures are checked against what the network is: the 16-GPU RL job spans two 8-GPU scale-up
domains on L40S and MI325X (their ``scaleup_domain_size``, 8) and one on TPU v4 (an ICI domain
of 4,096 chips), so a slower NIC lengthens the first two updates and leaves the third alone; an
8-GPU pilot stays inside one domain, so its fitted compute factor cannot depend on the NIC, while
the 64-GPU data-parallel run it extrapolates to crosses it."""

import json
import re

import numpy as np
import pytest
import yaml
from _cli import run_cli
from _inprocess import run_in_process

import llmcost
from llmcost.bill.ledger import build_ledger
from llmcost.bill.scenario import LEDGER_DEFAULTS
from llmcost.present import report

#: The trial's scenario: OPT-1.3B on 64 GPUs, 200 Gb/s
#: per GPU per direction (2.5e10 bytes/s).
BASE = {"model": "opt-1.3b", "accelerator": "L40S", "n_gpus": 64, "train_tokens": 1.0e11,
        "seq_len": 2048, "dtype": "bf16", "price_usd_per_gpu_hour": 1.0,
        "pricing": "on_demand", "global_batch_tokens": 1048576,
        "comm_scaleout_bytes_per_s": 2.5e10}
RL = {"mfu": 0.35, "rl_iterations": 100, "rl_gpus": 16, "rl_rollout_tp": 1}
PILOT = [{"n_gpus": 8, "tokens_per_s_per_gpu": 16000, "tp": 1}]


def _write(tmp_path, sc: dict, name="s.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(sc, sort_keys=False))
    return path


@pytest.mark.parametrize("accelerator, domains", [("L40S", 2), ("MI325X", 2), ("TPU v4", 1)])
def test_the_rl_line_is_priced_on_the_scenarios_network(accelerator, domains):
    acc = llmcost.load_accelerator(accelerator)
    assert acc.scaleout_bytes_per_s_per_dir is None  # the catalogue has no figure
    assert -(-RL["rl_gpus"] // acc.scaleup_domain_size) == domains

    def rl_usd(bw):
        sc = {**BASE, **RL, "accelerator": accelerator, "comm_scaleout_bytes_per_s": bw}
        return build_ledger(report.bill_inputs(sc)).line("post.rl").usd  # as estimate keeps it

    fast, slow = rl_usd(2.5e10), rl_usd(2.5e8)
    assert fast > 0
    if domains == 1:  # the update never leaves the ICI domain: the NIC changes nothing
        assert slow == pytest.approx(fast, rel=1e-12)
    else:  # its gradient all-reduce crosses the NIC, hidden behind the backward at 200 Gb/s;
        # at a hundredth of it (2 Gb/s, an Ethernet port shared by a node) it is not
        assert slow > fast * 1.001


def test_estimate_prices_the_rl_campaign_on_the_scenarios_network(tmp_path):
    """`llmcost estimate` on the trial's RL scenario: its RL
    line is the bill's of the same scenario (the one notebook 05 prints as its campaign)."""
    sc = {**BASE, **RL}
    r = run_cli("estimate", "--scenario", str(_write(tmp_path, sc)), "--format", "json")
    assert r.returncode == 0, r.stderr
    hours = json.loads(r.stdout)["bill.figures.rl_gpu_hours"]
    assert hours > 0
    assert hours == pytest.approx(build_ledger(sc).figures["rl_gpu_hours"], rel=1e-9)


def test_a_pilot_is_calibrated_on_the_scenarios_network(tmp_path):
    """The trial's pilot scenario: `llmcost estimate` and
    `llmcost calibrate` run it; the 8-GPU pilot's compute factor is the same at any NIC, and the
    64-GPU run extrapolated on a fiftieth of the bandwidth (4 Gb/s) has a lower MFU. (On a
    tenth, 20 Gb/s, the gradient all-reduce hides under the backward once part of the pilot's
    slower kernels is carried: the same MFU, rightly.)"""
    sc = {**BASE, "pilot": PILOT}
    path = _write(tmp_path, sc)
    bill = report.estimate_ledger(path)
    r = run_cli("calibrate", "--scenario", str(path))
    assert r.returncode == 0, r.stderr
    assert re.search(r"Target: .* on 64\s+L40S", r.stdout), r.stdout

    from llmcost.training import calibrate
    values = report.plan_report(path, ["00"]).values
    fast = calibrate.scenario_calibration({**values, "pilot": PILOT})
    slow = calibrate.scenario_calibration({**values, "pilot": PILOT,
                                           "comm_scaleout_bytes_per_s": 5e8})
    assert fast[0].compute_factor == pytest.approx(slow[0].compute_factor, rel=1e-9)
    assert fast[2].dp == 64 and slow[1].mfu < fast[1].mfu * 0.999
    # the bill prices the run at the pilot's extrapolation on the scenario's network
    assert bill.figures["mfu"] == pytest.approx(fast[1].mfu, abs=1e-6)


@pytest.fixture(scope="module")
def l40s_plan(tmp_path_factory):
    path = _write(tmp_path_factory.mktemp("l40s"), {**BASE, **RL})
    return report.plan_report(path, ["04b", "05"])


@pytest.mark.parametrize("stem, says", [
    # the pilot study (an illustrative 8-GPU pilot) extrapolated to the 64-GPU run
    ("04b_step_time", "full run TP1 · PP1 · DP64"),
    ("05_rl_loop", "campaign of 5 runs: "),
])
def test_notebooks_04b_and_05_run_on_the_scenarios_network(l40s_plan, stem, says):
    nb = next(n for n in l40s_plan.notebooks if n.stem == stem)
    params = report.notebook_parameters_for(nb, l40s_plan)
    assert params["comm_scaleout_bytes_per_s"] == 2.5e10
    out = run_in_process(nb, params)
    assert says in out
    if stem == "05_rl_loop":  # its campaign is the bill's RL line
        usd = build_ledger(report.bill_inputs(l40s_plan.values)).line("post.rl").usd
        got = re.search(r"campaign of 5 runs: [\d,.]+ GPU-hours = (\$[\d,.]+k?)", out)
        assert got[1] == llmcost.fmt_usd(usd)  # the same amount, as the notebook prints it


def test_the_explore_panels_keep_the_scenarios_network(capsys):
    """Notebooks 04, 04b and 05 hand their panels the scenario's accelerator
    (``catalog.scenario_accelerator``): on L40S at 200 Gb/s the collective panel's ranks one per
    node run on that NIC, a ring's bus bandwidth at most its 25 GB/s per direction (nccl-tests'
    definition), and the step and RL panels price instead of refusing."""
    pytest.importorskip("ipywidgets")
    from llmcost.core.catalog import scenario_accelerator
    from llmcost.present.widgets import collective_explorer, rl_explorer, step_explorer

    gpu = scenario_accelerator(BASE)
    box = collective_explorer(gpu, 64)
    capsys.readouterr()
    box.children[1].children[1].value = "one per domain"  # every hop on the network
    bus = re.search(r"bus bandwidth ([\d.,]+) GB/s", capsys.readouterr().out)
    assert 0.5 * 25 < float(bus[1]) < 25
    step_explorer("opt-1.3b", gpu, 64, 1048576, 2048, 1, 1, 4, 1, "none")
    assert "s per step, predicted MFU" in capsys.readouterr().out
    p = llmcost.validate_parameters(**{**LEDGER_DEFAULTS, **BASE, **RL})
    rl_explorer("opt-1.3b", gpu, p, 1.0)
    assert "per iteration" in capsys.readouterr().out


def test_a_job_within_one_scale_up_domain_needs_no_scale_out_figure(tmp_path):
    """A new-user trial: OPT-1.3B on 4 L40S (one 8-GPU PCIe server) was refused `mfu: predict`
    ("the step-time model needs it") for want of a NIC figure its step never uses. Within one
    domain no collective leaves it (``comm``: a group spans domains only beyond
    ``scaleup_domain_size`` GPUs), so the step is the same at any NIC bandwidth, and the
    catalogue's missing figure is not made up: the cluster keeps None."""
    from llmcost.training.step import step_time
    acc = llmcost.load_accelerator("L40S")
    assert acc.scaleout_bytes_per_s_per_dir is None and acc.scaleup_domain_size == 8
    m = llmcost.load_model("opt-1.3b")
    plan = llmcost.make_plan(m, 4, 512, seq_len=2048)  # DP4: a gradient all-reduce each step
    none = step_time(m, llmcost.Cluster(acc, 4), plan, 2048)
    assert llmcost.Cluster(acc, 4).scaleout_bytes_per_s_per_dir is None
    for bw in (1e8, 1e12):  # any NIC: the same step, to the last bit
        assert step_time(m, llmcost.Cluster(acc, 4, scaleout_bytes_per_s_per_dir=bw), plan,
                         2048).step_time_s == none.step_time_s
    assert none.dp_comm_s >= 0 and none.step_time_s > 0
    # a group placed past the domain (ranks (n − 1)·stride + 1 > 8) has no NIC to price it:
    # refused naming the stride, never priced as if the NIC were infinitely fast (a review:
    # an all-to-all at stride 8 on 4 L40S came out 350x faster than within one server)
    from llmcost.training import comm
    four = llmcost.Cluster(acc, 4)
    assert comm.cluster_collective_time("all_reduce", 1e9, 2, four, stride=4) > 0  # 5 <= 8
    # an array of groups names the pair that breaks the rule (8 at stride 1 is legal)
    with pytest.raises(ValueError, match=r"stride=8: a group of 2 GPUs"):
        comm.cluster_collective_time("all_reduce", 1e6, np.array([8, 2]),
                                     llmcost.Cluster(acc, 8), np.array([1, 8]))
    for call in (lambda: comm.cluster_collective_time("all_reduce", 1e9, 2, four, stride=8),
                 lambda: comm.moe_all_to_all_time(4096, 8, 2048, 4, four, stride=8)):
        with pytest.raises(ValueError, match=r"stride=8: a group of \d GPUs at this stride "
                                             r"spans L40S's 8-GPU scale-up domains"):
            call()
    # the scenario: predicted, priced; 16 GPUs (two servers) still refused, saying why
    sc = {k: v for k, v in BASE.items() if k != "comm_scaleout_bytes_per_s"}
    r = run_cli("estimate", "--scenario", str(_write(tmp_path, {**sc, "n_gpus": 4,
                                                               "mfu": "predict"})))
    assert r.returncode == 0 and "(mfu: predict)" in r.stdout, r.stderr
    r = run_cli("estimate", "--scenario", str(_write(tmp_path, {**sc, "n_gpus": 16,
                                                               "mfu": "predict"}, "b.yaml")))
    assert r.returncode == 2 and "a job within one scale-up domain (up to 8 GPUs) needs none" \
        in r.stderr


def test_the_budget_and_deadline_search_says_it_stops_at_one_domain(tmp_path):
    """A review: on 4 L40S (no sourced scale-out bandwidth) the budget-and-deadline answer was
    8 GPUs, said to be the count "a plan splits and fits", where the same scenario with a NIC
    figure bought 23x the tokens on 256 GPUs; counts beyond one 8-GPU domain were dropped
    unsaid. The search now stops at the domain and says why; a deadline it cannot meet there
    says the same, not "up to 64x the scenario's count tried"."""
    sc = {k: v for k, v in BASE.items() if k != "comm_scaleout_bytes_per_s"}
    sc = {**sc, "n_gpus": 4, "mfu": 0.4, "train_tokens": 2.6e10}
    path = _write(tmp_path, sc)
    r = run_cli("estimate", "--scenario", str(path), "--deadline-days", "0.5",
                "--budget-usd", "5000")
    text = " ".join(r.stdout.split())
    assert r.returncode == 0, r.stderr
    assert re.search(r"GPUs for the budget and the deadline: [1-8] GPUs? ", text), text
    assert "at most 8, one scale-up domain: data/accelerators.csv has no scale-out bandwidth " \
           "for L40S (give comm_scaleout_bytes_per_s for larger counts)" in text
    r = run_cli("estimate", "--scenario", str(path), "--deadline-days", "0.1")
    assert r.returncode == 2 and "cannot be met" in r.stderr
    assert "counts at most 8, one scale-up domain" in " ".join(r.stderr.split())
    assert "64×" not in r.stderr
    # with the figure given, the search goes past the domain
    r = run_cli("estimate", "--scenario", str(_write(tmp_path, {**sc, **{
        "comm_scaleout_bytes_per_s": 1.25e10}}, "b.yaml")), "--deadline-days", "0.5",
        "--budget-usd", "5000")
    n = int(re.search(r"GPUs for the budget and the deadline: ([\d,]+) GPUs",
                      " ".join(r.stdout.split()))[1].replace(",", ""))
    assert r.returncode == 0 and n > 8
    # a search by multiples (gpu_step) builds no plan and prices any count at the scenario's
    # MFU: not capped (a review: step 16 was refused where it had answered)
    from llmcost.bill import levers
    from llmcost.present import report
    bill = report.estimate_ledger(path)
    got = levers.fit_budget(bill.scenario, deadline_days=100, gpu_step=16)
    assert int(got.iloc[0]["value"]) >= 16 and "one scale-up domain" not in got.iloc[0]["how"]


def test_the_overrun_share_is_not_said_where_the_mfus_band_moved():
    # A review: with a deadline moving the GPU count, a pilot's or a prediction's MFU is
    # restated as one number there (levers._CountPricer), so its band was not drawn and the
    # share understated the risk; the answer now sends the reader to re-price that count. And
    # a deadline search that only the one-domain cap bounded says so (the fallback multiples
    # of 8 too), not "up to 64x the scenario's count tried"
    from llmcost.bill import levers
    l40s = {"model": "llama-2-7b", "accelerator": "L40S", "n_gpus": 8, "train_tokens": 2e11,
            "seq_len": 3000, "mfu": 0.35, "price_usd_per_gpu_hour": 1.0}
    with pytest.raises(ValueError, match=r"on 8 GPUs \(counts at most 8, one scale-up domain"):
        levers.fit_budget(l40s, deadline_days=1)
    pred = {**llmcost.load_scenario(llmcost.SCENARIO_DIR / "default.yaml"),
            "_mfu_prediction": {"value": 0.4}}
    row = levers.fit_budget(pred, budget_usd=7e6, deadline_days=5, overrun=True).set_index(
        "quantity").loc["tokens the budget buys", "how"]
    assert "Monte Carlo draws" not in row and "re-price it with n_gpus: " in row


def test_a_scaling_study_says_a_count_it_cannot_price_for_want_of_a_nic_figure():
    # A review: on L40S the counts past one 8-GPU server read "no plan fits", where the cause
    # is the scale-out bandwidth the catalogue lacks; within the server each count is priced
    from llmcost.training import ranking
    m = llmcost.load_model("opt-1.3b")
    df = ranking.scaling_study(m, "L40S", [4, 8, 16], 2048, batch_per_gpu=4)
    assert df.loc[[4, 8], "mfu"].notna().all()
    assert df.loc[16, "plan"].startswith("not priced: scaleout_bytes_per_s_per_dir: L40S")
    assert np.isnan(df.loc[16, "mfu"])
