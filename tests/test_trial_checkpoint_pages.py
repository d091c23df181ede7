"""A trial of the checkpoint and failure pages on small, spot, asynchronous and failure-free runs
(a 1-hour fine-tune on 8 H100s, a 3-day 1B run on spot A100s, a 2-week 70B run on 1,024 H200s
with a 5-minute asynchronous interval, a run with no failures keeping every checkpoint): each
test is one finding, checked by hand."""
import math

import pytest

from llmcost.bill import levers as lv
from llmcost.core.units import fmt_duration
from llmcost.training import reliability as rel


def test_a_hot_tier_grows_with_what_it_holds_above_its_floor():
    # By hand: a tier whose checkpoints climb linearly to P = 100 GB over the whole run (r = 1)
    # and a floor F = 40 GB: below F it costs F (for 40% of the run), above it the line:
    # 0.4 × 40 + ∫_0.4^1 100x dx = 16 + 50 × (1 − 0.16) = 58 = (F² + P²)/(2P)
    assert rel.hot_average_gb(40.0, 100.0, 10, 10) == pytest.approx(58.0, rel=1e-12)
    # billed by the byte (F = 0): P/2 for every checkpoint, k − k²/(2n) of them for the last k
    assert rel.hot_average_gb(0.0, 100.0, 10, 10) == pytest.approx(50.0, rel=1e-12)
    assert rel.hot_average_gb(0.0, 3.0, 3, 1440) == pytest.approx(3 - 9 / 2880, rel=1e-12)
    # a floor above the plateau is the floor all run
    assert rel.hot_average_gb(500.0, 100.0, 10, 10) == 500.0


def test_hot_spares_do_not_shorten_planned_stops():
    # With no failures, a spare node replaces nothing: the trial's failure-free run read 99.21%
    # -> 99.44% goodput with one spare. By hand: no failure, so the goodput is the planned
    # stops' share alone, the same with or without spares.
    plan = rel.checkpoint_plan(8e9, 256, 0.0, None, 600.0, planned_per_day=0.87, run_s=5.7e5)
    df = rel.hot_spare_table(plan, 8, rel.node_replacement_s(600.0), planned_per_day=0.87)
    assert df["goodput"].nunique() == 1
    assert df["goodput"].iloc[0] == pytest.approx(float(plan.goodput), rel=1e-12)


def test_the_interval_table_starts_from_the_optimum_and_adds_the_scenarios_own():
    # A trial's 5-minute interval was printed as "1x optimum (5 min)"; the optimum is now the
    # base whatever the scenario sets, and its own interval a row of its own
    p = {"n_gpus": 1024, "fail_rate_per_gpu_year": 0.173, "ckpt_restart_s": 600.0,
         "ckpt_recipe": "bf16-adam", "ckpt_node_bytes_per_s": 5e10,
         "ckpt_d2h_bytes_per_s": 5e10, "ckpt_async": True, "fail_planned_per_day": 0.87,
         "ckpt_interval_s": 300.0, "ckpt_storage_bytes_per_s": 1e10}
    df = rel.interval_sensitivity(p, 70.6e9, 8, 3.0e5, 3.0)
    opt = rel.scenario_checkpoint_plan(p, 70.6e9, 8, interval_s=None,
                                       run_s=rel.run_work_s(3.0e5, 1024))
    assert df["interval"].iloc[0] == (f"1x optimum ({fmt_duration(opt.interval_s)}, "
                                      f"{int(opt.n_checkpoints):,} checkpoints)")
    assert df["extra cost vs optimum"].iloc[0] == 0.0
    assert df["interval"].iloc[-1].startswith("the scenario's (5 min, ")
    assert df["goodput"].iloc[-1] <= df["goodput"].iloc[0]


def test_the_synthetic_portfolio_does_not_copy_the_scenarios_interval():
    # ckpt_interval_s: 1e6 on a spot 1B run stopped page 09: the synthetic 256-GPU ablations
    # took the scenario's interval, longer than themselves, and at 32 nodes × 0.5 pre-emptions
    # a day never finished. The scenario's own run keeps it; the others take their optimum.
    s = {"model": "opt-1.3b", "accelerator": "A100-80GB", "n_gpus": 32, "train_tokens": 1.3e11,
         "seq_len": 2048, "mfu": 0.4, "pricing": "spot", "global_batch_tokens": 1048576,
         "ledger_spot_preemptions_per_node_day": 0.5, "ckpt_interval_s": 1.0e6}
    runs = lv.example_portfolio(s)
    own = [r for r in runs if r.name == "pretrain"][0]
    assert own.scenario["ckpt_interval_s"] == 1.0e6
    assert all(r.scenario.get("ckpt_interval_s") is None for r in runs if r.name != "pretrain")
    assert math.isfinite(lv.portfolio(runs)["usd"].sum())


def test_a_costly_set_interval_is_warned(tmp_path):
    # A trial's 10-s synchronous interval on a 70B run lost 16% of its GPU time (and bought
    # 562 GB/s of storage) without a word. The warning's extra share is g*/g − 1 of the two
    # goodputs it prints (paid = ideal ÷ goodput)
    import re

    from llmcost.present import glance
    from llmcost.present.cli import estimate_ledger
    f = tmp_path / "k.yaml"
    body = ("model: llama-3.1-70b\naccelerator: H200\nn_gpus: 1024\ntrain_tokens: 1.17e12\n"
            "seq_len: 8192\nmfu: 0.4\nckpt_async: false\n")
    f.write_text(body + "ckpt_interval_s: 10\n")
    (w,) = [x for x in estimate_ledger(f).warnings if "more GPU time than the optimum" in x]
    extra, g, g_best = (float(x) / 100 for x in re.search(
        r"pays ([\d.]+)% more .*\(goodput ([\d.]+)% against ([\d.]+)%\)", w).groups())
    assert extra == pytest.approx(g_best / g - 1, abs=0.002)
    assert glance.caveat_line(w).startswith("the checkpoint interval set, 10 s, pays")
    f.write_text(body)   # the optimum: nothing to say
    assert not [x for x in estimate_ledger(f).warnings if "than the optimum interval" in x]


def test_peer_checkpoints_say_why_they_do_not_apply():
    # Gemini (Wang et al., SOSP 2023) restores a failed machine's state from a copy in another
    # machine's memory: with one machine there is no peer, and with no failure and no planned
    # interruption nothing is ever restored. A failure-free 2,048-GPU job read "peer
    # checkpoints, 25% of failures fall back to storage: ... restart 140121 s", a fallback
    # restart (the durable restart plus half a 12.7-day interval) for failures it did not expect
    assert rel.peer_checkpoint_absent(2048, 8, math.inf, 0.0).startswith(
        "no failure or planned interruption is expected")
    assert rel.peer_checkpoint_absent(8, 8, 3.6e4, 0.0).startswith("no peer machine for 8 GPUs")
    # a stop to restore from: a failure (finite MTBF) or a planned interruption
    assert rel.peer_checkpoint_absent(2048, 8, 3.6e4, 0.0) == ""
    assert rel.peer_checkpoint_absent(2048, 8, math.inf, 0.87) == ""
    for args, field in (((0, 8, 1.0, 0.0), "n_gpus=0"), ((16, 8, math.nan, 0.0), "job_mtbf_s"),
                        ((16, 8, 1.0, -1.0), "planned_per_day=-1"), ((16, 0, 1.0, 0.0),
                                                                     "gpus_per_node=0")):
        with pytest.raises(ValueError, match=field):
            rel.peer_checkpoint_absent(*args)


def test_a_failure_free_job_runs_notebook_07_without_a_fallback_or_a_raw_warning(
        tmp_path, monkeypatch):
    # The report of default.yaml with fail_rate_per_gpu_year: 0 and fail_planned_per_day: 0:
    # 07 printed a fallback restart for failures it did not expect, matplotlib's "identical low
    # and high ylims" warning (the goodput waterfall's zoom on no loss) and jupyter_client's
    # "Out of range float values are not JSON compliant" (the infinite MTBF in the summary)
    import json
    import warnings

    import llmcost
    from _inprocess import run_in_process
    from llmcost.present import report

    text = (llmcost.SCENARIO_DIR / "default.yaml").read_text()
    lines = [ln for ln in text.splitlines() if not ln.startswith(("fail_rate_per_gpu_year:",
                                                                   "fail_planned_per_day:"))]
    path = tmp_path / "nofail.yaml"
    path.write_text("\n".join(lines + ["fail_rate_per_gpu_year: 0", "fail_planned_per_day: 0"]))
    plan = report.plan_report(path)
    nb = next(n for n in plan.notebooks if n.stem == "07_checkpoints")
    shown = []  # what publish_summary displays (IPython's display, imported where it is used)
    monkeypatch.setattr("IPython.display.display", lambda *a, **k: shown.extend(a))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        printed = run_in_process(nb, report.notebook_parameters_for(nb, plan))
    assert "peer checkpoints: no failure or planned interruption is expected" in printed
    assert "fall back to storage" not in printed
    assert not [w for w in caught if "ylims" in str(w.message)]
    (summary,) = [d for d in shown if isinstance(d, dict) and report.SUMMARY_MIME in d]
    payload = summary[report.SUMMARY_MIME]
    json.dumps(payload, allow_nan=False)  # what the kernel's message carries: JSON
    rows = {r["key"]: r for r in report._collect_summary(
        type("Nb", (), {"cells": [{"outputs": [{"data": {report.SUMMARY_MIME: payload}}]}]})())}
    assert rows["job_mtbf_hours"]["value"] == math.inf  # read back as the infinite MTBF it is


def test_a_job_with_planned_stops_only_prices_no_fallback_for_failures(tmp_path):
    # A review: default.yaml with fail_rate_per_gpu_year: 0 (planned stops kept, 0.87 a day)
    # printed "peer checkpoints, 25% of failures fall back to storage: ... restart 137725 s", a
    # 38 h fallback restart for failures the job does not expect. A fallback needs a failure:
    # with an infinite MTBF only the row with none falls back; the planned stops still restore
    # from the peers
    import llmcost
    from _inprocess import run_in_process
    from llmcost.present import report

    text = (llmcost.SCENARIO_DIR / "default.yaml").read_text()
    lines = [ln for ln in text.splitlines() if not ln.startswith("fail_rate_per_gpu_year:")]
    path = tmp_path / "planned_only.yaml"
    path.write_text("\n".join(lines + ["fail_rate_per_gpu_year: 0"]))
    plan = report.plan_report(path)
    nb = next(n for n in plan.notebooks if n.stem == "07_checkpoints")
    printed = run_in_process(nb, report.notebook_parameters_for(nb, plan))
    assert "peer checkpoints, 0% of failures fall back to storage" in printed
    assert "25% of failures fall back" not in printed
