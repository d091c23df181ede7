"""`llmcost estimate` and the bill against what a new user found (issue nu-a): an accelerator
without a TDP, an omitted price, the report's plan validation, a predicted MFU's label, the
budget, --compare labels, the RL line's reason, the project-duration convention and the
summary's labels. Expected values come from data/prices.csv, data/ledger_defaults.csv and hand
derivations written here."""

import json
import math
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from _cli import run_cli
from _trial_scenarios import trial_8gpu_yaml

import llmcost
from llmcost import checks, ledger
from llmcost.present.cli import _unit_of, bill_text, compare_labels
from llmcost.present.report import _bill, estimate_ledger
from llmcost.bill.scenario import ScenarioError
from llmcost.core.units import fmt_usd

# Llama 2 70B's main run on 2,048 H100 SXM at MFU 0.4 (tests/test_ledger.py derives it by hand:
# 2e12 tokens × 3 × (2·N_matmul + attention) ÷ (989.4 TFLOP/s × 0.4) ÷ 3600)
IDEAL_GPU_H = 623_963


def _yaml(tmp_path, text, name="s.yaml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _cli(*args):
    return run_cli(*args)  # in this process (tests/_cli.py)


# ---- 1. an accelerator without tdp_w (TPU v4: data/accelerators.csv has no sourced TDP)
def test_tpu_v4_bill_has_energy_not_given():
    # rented: the electricity is in the GPU-hour price ("included", as for an H100), though
    # without a sourced TDP no energy figure is computed; owned hardware, which pays it, is
    # refused without one
    bill = ledger.build_ledger({"accelerator": "TPU v4", "price_usd_per_gpu_hour": 3.22})
    line = bill.line("energy.electricity")
    assert line.usd == 0.0 and line.status == "included"
    assert "tdp_w" in line.how and "TPU v4" in line.how and "rented GPU-hour price" in line.how
    with pytest.raises(ScenarioError, match="tdp_w"):
        ledger.build_ledger({"accelerator": "TPU v4", "pricing": "owned",
                             "ledger_owned_usd_per_gpu": 20000.0})
    assert bill.figures["energy_mwh"] is None and bill.figures["tco2e"] is None
    assert "energy not computed" in bill_text(bill)
    # the report's bill (summary.json, index.html) is built too
    assert _bill(bill.scenario)["bill.total_usd"] == pytest.approx(bill.total_usd)


def test_an_fp8_bills_header_says_its_mfus_basis():
    # A trial read an FP8 bill's "MFU 16.7%" beside a BF16 one's "31.0%" as the slower run: an
    # FP8 run's MFU is on the FP8 dense peak, twice the BF16 one on H100 (1,978.9 vs 989.4
    # TFLOP/s, NVIDIA's datasheet), so the header gives it on both: 0.2 of the FP8 peak is 40.0%
    # of the BF16 one. A BF16 bill's header says no basis (every published MFU is on BF16's)
    fp8 = ledger.build_ledger({"accelerator": "H100-SXM", "mfu": 0.2, "dtype": "fp8",
                               "price_usd_per_gpu_hour": 2.0})
    head = " ".join(bill_text(fp8).split("\n")[1:4])
    assert "MFU 20.0% of the FP8 dense peak (40.0% of the BF16 one)" in " ".join(head.split())
    bf16 = ledger.build_ledger({"accelerator": "H100-SXM", "mfu": 0.4,
                                "price_usd_per_gpu_hour": 2.0})
    assert "dense peak" not in " ".join(bill_text(bf16).split("\n")[1:3])


def test_tpu_v4_estimate_runs_and_says_the_plan_is_unchecked(tmp_path):
    # beyond one 4,096-chip pod the plan needs the data-centre network the catalogue lacks
    path = _yaml(tmp_path, "model: llama-2-70b\naccelerator: TPU v4\n"
                 "price_usd_per_gpu_hour: 3.22\nn_gpus: 8192\nglobal_batch_tokens: 33554432\n")
    r = _cli("estimate", "--scenario", str(path))
    assert r.returncode == 0, r.stderr
    assert "energy not computed" in r.stdout
    assert "parallel plan is not checked" in r.stdout
    # within one pod (the default 2,048 chips) it needs none: the plan is checked
    path.write_text("model: llama-2-70b\naccelerator: TPU v4\nprice_usd_per_gpu_hour: 3.22\n")
    r = _cli("estimate", "--scenario", str(path))
    assert r.returncode == 0 and "parallel plan is not checked" not in r.stdout, r.stderr


# ---- 2. an omitted price is null: the catalogue median for the accelerator and pricing mode
def test_omitted_price_is_the_catalogue_median_for_the_accelerator(tmp_path):
    # data/prices.csv: the only current MI300X on-demand row is DigitalOcean 2026-10, $2.59
    path = _yaml(tmp_path, "model: llama-2-70b\naccelerator: MI300X\npricing: on_demand\n")
    bill = estimate_ledger(path)
    assert bill.figures["price_usd_per_gpu_hour"] == pytest.approx(2.59)
    assert bill.figures["price_source"].startswith("default")
    assert "given as" not in bill.figures["price_source"]
    # H100 SXM on-demand: median of AWS 6.88, Azure 12.29, Lambda 3.99, CoreWeave 6.155,
    # RunPod 2.69 (the current rows) = 6.155, not the default scenario's 3.99
    assert ledger.build_ledger({}).figures["price_usd_per_gpu_hour"] == pytest.approx(6.155)


def test_omitted_price_without_a_catalogue_price_is_refused(tmp_path):
    # data/prices.csv has no MI300X spot row: the bill must not fall back to an H100 price
    path = _yaml(tmp_path, "model: llama-2-70b\naccelerator: MI300X\npricing: spot\n")
    with pytest.raises(ScenarioError, match="price_usd_per_gpu_hour"):
        estimate_ledger(path)


def test_owned_with_price_omitted_is_amortised_and_pays_electricity():
    bill = ledger.build_ledger({"pricing": "owned"})
    f = bill.figures
    assert f["price_source"].startswith("default") and "owned" in f["price_source"]
    line = bill.line("energy.electricity")
    assert line.status == "modelled"
    # by hand: all GPU-hours × 700 W × 1.82 server/TDP × 0.75 draw × 1.1 PUE × $0.0861/kWh
    # (Cottier et al. 2024 §2.3; US EIA industrial price, the mean of 2025's twelve monthly
    # prices, 8.61 cents/kWh: data/ledger_defaults.csv)
    kw = 0.700 * 1.82 * 0.75 * 1.1
    assert line.usd == pytest.approx(f["all_gpu_hours"] * kw * 0.0861, rel=0.01)


def test_report_and_estimate_agree_on_an_omitted_price(tmp_path):
    from llmcost.present.report import plan_report

    path = _yaml(tmp_path, "model: llama-2-70b\naccelerator: MI300X\n")
    plan = plan_report(path)
    # every notebook receives null, which each resolves to the same catalogue median
    assert plan.scenario["price_usd_per_gpu_hour"] is None
    assert estimate_ledger(path).figures["price_usd_per_gpu_hour"] == pytest.approx(2.59)


# ---- 3. estimate refuses what report refuses
@pytest.mark.parametrize("text, match", [
    # 405B needs ~916 GB per GPU on 8 GPUs (weights alone 405e9 × 2 B / 8 = 101 GB > 80 GB)
    ("model: llama-3.1-405b\nn_gpus: 8\n", "no parallel plan fits"),
    ("model: llama-2-7b\ntp: 3\n", "tp=3"),
    # more stages than layers: no split places them (pp_split auto, the default, is uneven
    # where pp does not divide the layers; an explicit even split names the uneven one)
    ("model: llama-2-7b\npp: 64\n", r"pp·virtual_stages = 64·1 must not exceed n_layers=32"),
    ("model: llama-2-7b\npp: 64\npp_split: even\n",
     r"pp=64 must divide n_layers=32 \(and pp·virtual_stages = 64 exceeds the 32 layers\)"),
    ("model: llama-2-7b\npp: 12\npp_split: even\nn_gpus: 1536\n",
     r"pp=12 must divide n_layers=32 \(for an uneven split set pp_split: uneven\)"),
    ("model: llama-2-7b\nglobal_batch_tokens: 1000\nseq_len: 4096\n",
     "whole number of sequences"),
])
def test_estimate_refuses_what_report_refuses(tmp_path, text, match):
    path = _yaml(tmp_path, "accelerator: H100-SXM\nprice_usd_per_gpu_hour: 3.99\n" + text)
    with pytest.raises(ScenarioError, match=match):
        estimate_ledger(path)
    r = _cli("estimate", "--scenario", str(path))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1


# ---- 4. a predicted MFU is labelled predicted
def test_predicted_mfu_is_labelled_with_plan_and_band(tmp_path):
    path = _yaml(tmp_path, "model: llama-2-70b\naccelerator: H100-SXM\nmfu: predict\n"
                 "price_usd_per_gpu_hour: 3.99\n")
    bill = estimate_ledger(path)
    src = bill.figures["mfu_source"]
    assert src.startswith("predicted") and "given in the scenario" not in src
    assert "band" in src and "TP" in src
    text = bill_text(bill, str(path))
    assert "mfu: predict" in text and "warning:" in text


# ---- 5. the budget
def test_budget_warning_by_hand():
    # $1.20M against $300k: 1,200,000 / 300,000 = 4.0× the budget, over by $900,000
    w = checks.budget_warning(1.2e6, 3e5)
    assert "4.0×" in w and "$900,000" in w
    # a trial: the budget key alone did not point to the command that answers "what fits"
    assert "`--budget-usd 300000` on `llmcost estimate` says how many tokens fit" in w
    assert checks.budget_warning(2e5, 3e5) is None
    assert checks.budget_warning(2e5, None) is None
    with pytest.raises(ValueError, match="budget_usd"):
        checks.budget_warning(1.0, -5.0)


def test_estimate_says_the_plan_is_over_budget(tmp_path):
    path = _yaml(tmp_path, "model: llama-2-70b\nprice_usd_per_gpu_hour: 3.99\n"
                 "ledger_budget_usd: 300000\n")
    bill = estimate_ledger(path)
    ratio = bill.total_usd / 300_000
    assert ratio > 1
    assert any(f"{ratio:.1f}× the budget" in w for w in bill.warnings)
    assert f"{ratio:.1f}× the budget" in _cli("estimate", "--scenario", str(path)).stdout


def test_csv_rows_are_the_bill_and_its_warnings_go_to_stderr(tmp_path):
    """A new-user trial: `estimate --format csv` put the warnings in the table as rows of key
    "warning" with empty usd and bill_range_state, where the README says bill_range_state is on
    every row. Every row is now a line of the bill or its total, every one with its state; the
    warnings go to stderr, each whole, as the text prints them."""
    import csv as csv_
    import io
    path = _yaml(tmp_path, "model: llama-2-70b\nprice_usd_per_gpu_hour: 3.99\n"
                 "ledger_budget_usd: 300000\n")
    bill = estimate_ledger(path)
    res = _cli("estimate", "--scenario", str(path), "--format", "csv", "--samples", "200")
    assert res.returncode == 0, res.stderr
    rows = list(csv_.DictReader(io.StringIO(res.stdout)))
    assert [r["key"] for r in rows] == list(bill.table()["key"])  # the lines, then "total"
    assert rows[-1]["key"] == "total"
    assert all(r["usd"] != "" and r["bill_range_state"] != "" for r in rows)
    assert len({r["bill_range_state"] for r in rows}) == 1
    assert sum(float(r["usd"]) for r in rows[:-1]) == pytest.approx(float(rows[-1]["usd"]))
    shown = [ln for ln in res.stderr.splitlines() if ln.startswith("warning: ")]
    assert bill.warnings and shown == [f"warning: {w}" for w in bill.warnings]
    assert any("× the budget" in w for w in shown)
    # two bills: the lines alone on stdout, each bill's warnings on stderr, said whose
    res = _cli("estimate", "--scenario", "data/scenarios/default.yaml", "--compare", str(path),
               "--format", "csv")
    assert res.returncode == 0, res.stderr
    assert not any(ln.startswith("warning") for ln in res.stdout.splitlines())
    assert [ln for ln in res.stderr.splitlines() if ln.startswith("warning of B (")] == \
        [f"warning of B (s): {w}" for w in bill.warnings]


def test_the_bill_table_fits_a_40_column_terminal():
    """A new-user trial: at COLUMNS=40 the table's rows were 43-45 characters (a label of at
    least 12, then 12 + 2 + 6 + 2 + 9 for the amount, share and "not given" status). Under 45
    columns each label goes on its own lines and its figures below it: every row fits down to
    33 columns, the figures' own width, and every word of every label is printed."""
    bill = estimate_ledger("data/scenarios/default.yaml")
    head = ledger.headline_draws(bill.scenario, samples=500)
    for columns in (33, 40, 44):
        for draws in (None, head.draws):
            text = bill_text(bill, "data/scenarios/default.yaml", columns=columns,
                             draws=draws, basis="ranges")
            assert max(len(ln) for ln in text.splitlines()) <= columns, (columns, draws)
            flat = " ".join(text.split())
            for r in bill.table().itertuples():
                assert r.line in flat and fmt_usd(r.usd) in flat, r.line
    # at 45 and wider the figures stay beside their label
    text = bill_text(bill, "data/scenarios/default.yaml", columns=45).splitlines()
    assert any(ln.startswith("pre-training ") and ln.rstrip().endswith("modelled")
               for ln in text)


def test_deadline_gpu_count_prints_every_digit(tmp_path):
    # A new-user trial: `estimate --deadline-days 2.5` on default.yaml printed "1.638e+04 GPUs"
    # (4 significant figures of 16,384), a count nobody can provision. By hand: the default run
    # takes 13.1 paid days on 2,048 GPUs, so 3 days need n >= 2,048 x 13.1 / 3 = 8,943 GPUs;
    # the counts its plan splits are 2^k (dp dividing the batch) x tp·pp with tp in
    # {1, 2, 4, 8} and pp dividing the 80 layers: 10,240 = 2¹¹·5, then 16,384. With the
    # default's 1,024-sequence batch every plan there idles in its pipeline (dp ≤ 1,024, so
    # tp·pp ≥ 10 or 16 and m = 1,024 / dp micro-batches: the deadline is refused, a later
    # trial); with a 4,096-sequence batch (16,777,216 tokens, Llama 3's 16M) 10,240 still
    # needs pp a multiple of 5 (its searched PP5 · DP256, 1F1B m = 16, idles 4/16 = 25 %) and
    # 16,384 = 2,048 × TP8 needs none: the answer.
    text = open("data/scenarios/default.yaml", encoding="utf-8").read().replace(
        "global_batch_tokens: 4194304", "global_batch_tokens: 16777216")
    out = _cli("estimate", "--scenario", str(_yaml(tmp_path, text)),
               "--deadline-days", "3").stdout
    assert "GPUs to meet the deadline: 16,384 GPUs" in " ".join(out.split())
    assert "e+04 GPUs" not in out


def test_deadline_gpu_count_of_one_reads_one_gpu(tmp_path):
    # A new-user trial: the 135M toy model (tests/_trial_scenarios.TRIAL_8GPU) with
    # `--deadline-days 90` printed "GPUs to meet the deadline: 1 GPUs". By hand the main run
    # is 592.74 ideal GPU-hours (tests/test_ledger.py), 592.74 / 24 = 24.7 days on one GPU at
    # full goodput, well within 90: one GPU is the fewest, and reads "1 GPU".
    out = " ".join(_cli("estimate", "--scenario", str(trial_8gpu_yaml(tmp_path)),
                        "--deadline-days", "90").stdout.split())
    assert "GPUs to meet the deadline: 1 GPU (" in out and "1 GPUs" not in out
    # the other units of fit_budget's rows agree with their printed value too
    assert [_unit_of(v, u) for v, u in (("1", "GPUs"), ("16,384", "GPUs"), ("1", "days"),
                                        ("1.5", "days"), ("664.5B", "tokens"), ("1", "USD"))
            ] == ["GPU", "GPUs", "day", "days", "tokens", "USD"]


# ---- 6. --compare labels
def test_compare_labels_are_distinct_for_the_same_stem(tmp_path):
    a, b = "data/scenarios/default.yaml", str(tmp_path / "default.yaml")
    assert len(set(compare_labels(a, b))) == 2
    assert compare_labels("x/a.yaml", "y/b.yaml") == ("a", "b")
    assert len(set(compare_labels(a, a))) == 2


def test_compare_cli_keeps_both_columns(tmp_path):
    path = _yaml(tmp_path, "model: llama-2-7b\nprice_usd_per_gpu_hour: 3.99\n",
                 name="default.yaml")
    r = _cli("estimate", "--scenario", "data/scenarios/default.yaml", "--compare", str(path),
             "--format", "csv")
    assert r.returncode == 0, r.stderr
    header = r.stdout.splitlines()[0]
    # each line's key first, as a single bill's CSV (a trial's script joined the two on it)
    assert header.startswith("key,line,")
    assert r.stdout.splitlines()[1].startswith("compute.pretraining.main,pre-training compute,")
    assert r.stdout.splitlines()[-1].startswith("total,total,")
    # named by title, else stem (glance.scenario_names): default.yaml has a title, the other not
    assert "70B dense model, 2T tokens, 2,048 × H100-SXM usd" in header
    assert ",default usd," in header
    # two untitled files with the same stem: their paths tell them apart
    other = _yaml(tmp_path / "..", "model: llama-2-7b\nprice_usd_per_gpu_hour: 3.99\n",
                  name="default.yaml")
    r = _cli("estimate", "--scenario", str(other), "--compare", str(path), "--format", "csv")
    header = r.stdout.splitlines()[0]
    assert str(other) in header and str(path) in header


# ---- 7. the RL line's reason
def test_rl_line_says_ledger_rl_false():
    bill = ledger.build_ledger({"rl_iterations": 1000, "ledger_rl": False})
    how = bill.line("post.rl").how
    assert "ledger_rl: false" in how and "not given" not in how
    plain = ledger.build_ledger({"ledger_rl": None}).line("post.rl").how
    assert "rl_iterations and rl_runs not given" in plain


def test_rl_line_of_a_file_without_rl_keys_says_they_were_not_given(tmp_path):
    # A trial: a scenario file with no rl_ key and no ledger_rl was told "ledger_rl: false, so
    # the campaign of the rl_ keys (1,000 iterations × 5 run(s) ...) is not billed": the report
    # sets ledger_rl: false itself and fills the rl_ keys with the notebooks' defaults, so the
    # bill read them as the file's. `llmcost check` and the index said "not given".
    path = _yaml(tmp_path, "model: llama-2-7b\nprice_usd_per_gpu_hour: 3.99\n")
    how = estimate_ledger(path).line("post.rl").how
    assert how.startswith("no RL campaign in the scenario (rl_iterations and rl_runs not given")
    assert "ledger_rl: false" not in how
    # a file that says ledger_rl: false with its own rl_ keys is still told its own words
    path = _yaml(tmp_path, "model: llama-2-7b\nprice_usd_per_gpu_hour: 3.99\n"
                           "rl_iterations: 200\nledger_rl: false\n")
    how = estimate_ledger(path).line("post.rl").how
    assert how.startswith("ledger_rl: false, so the campaign of the rl_ keys (200 iterations")
    # a notebook's page gets ledger_rl: false from the report and the rl_ keys at the
    # notebooks' defaults (1,000 iterations, 5 runs), not who set them: it says both, never
    # that the file gave a campaign it did not
    page = ledger.build_ledger({"rl_iterations": 1000, "rl_runs": 5, "ledger_rl": False})
    how = page.line("post.rl").how
    assert how.startswith("ledger_rl: false (set in the scenario, or by a report when the "
                          "scenario gives no rl_iterations or rl_runs): no RL campaign billed")


def test_a_missing_network_figure_with_mfu_predict_names_the_prediction(tmp_path):
    # A trial: MI325X (no sourced scale-out figure in data/accelerators.csv) with mfu: predict
    # and no plan key was told to "leave [12 plan keys] out to bill the run at its given mfu":
    # it gave neither; the prediction is what needs the network figure
    from llmcost.present.report import plan_report
    path = _yaml(tmp_path, "model: llama-3.1-70b\naccelerator: MI325X\nn_gpus: 512\n"
                           "seq_len: 8192\nmfu: predict\nprice_usd_per_gpu_hour: 2.5\n")
    with pytest.raises(ScenarioError) as e:
        plan_report(path)
    msg = str(e.value)
    assert "It is mfu: predict that needs it" in msg and "give comm_scaleout_bytes_per_s" in msg
    assert "plan keys" not in msg and "its given mfu" not in msg
    assert "--notebooks 00,01,07,08,10" in msg


# ---- 8 and 9. the project duration and the summary's labels
def test_project_months_convention_and_labels_by_hand():
    bill = ledger.build_ledger({"price_usd_per_gpu_hour": 3.99})
    f = bill.figures
    assert "ledger_project_months not given" in f["project_months_source"]
    assert "ledger_project_months not given" in bill.line("ops.operations").how or \
        bill.line("ops.operations").status == "not given"
    text = bill_text(bill)
    # 623,963 ideal GPU-h / 2,048 GPUs / 24 h = 12.69 days at 100% goodput (notebook 01)
    assert f["main_ideal_days"] == pytest.approx(IDEAL_GPU_H / 2048 / 24, rel=1e-5)
    assert "12.7 days at 100% goodput" in text
    assert "pre-training GPU-hours (main run and phases)" in text
    assert "energy of all" in text
    assert "includes exploratory and failed runs at the sourced default (1.19x" in text
    assert "project duration" in text and "ledger_project_months not given" in text


def test_estimate_prints_the_flop_count_and_6nd_by_hand():
    # A lecturer's 6·N·D GPU-hours were 20-39% below estimate's, which printed neither count.
    # Llama 3.1 8B (config.json: 32 layers, hidden 4,096, vocabulary 128,256; 8,030,261,248
    # parameters) on 1T tokens of 8,192:
    #   6ND = 6 × 8,030,261,248 × 1e12 = 4.818e22
    #   MFU basis, per token: 3 × (2 × matmul weights + 4 × 32 layers × 8,192 × 4,096, the
    #     attention core on the full mask), the matmul weights being the parameters less the
    #     input embedding (128,256 × 4,096) and the RMSNorm gains ((2 × 32 + 1) × 4,096), which
    #     multiply no matrix: 57.91 GFLOP -> 5.791e22
    #   ideal GPU-h at MFU 0.40 of H100's 989.4 TFLOP/s: 5.791e22 / (989.4e12 × 0.4 × 3600)
    n, d = 8_030_261_248, 1e12
    weights = n - 128_256 * 4096 - (2 * 32 + 1) * 4096
    basis = 3 * (2 * weights + 4 * 32 * 8192 * 4096) * d
    bill = ledger.build_ledger({"model": "llama-3.1-8b", "train_tokens": d, "seq_len": 8192,
                                "n_gpus": 64, "mfu": 0.4, "price_usd_per_gpu_hour": 3.0})
    text = " ".join(bill_text(bill, columns=200).split())
    assert f"{basis:.3g} on the MFU basis" in text and "5.79e+22" in text
    assert f"6·N·D {6 * n * d:.3g}: the attention-inclusive count is 20.2% above 6ND" in text
    assert basis / (6 * n * d) == pytest.approx(1.202, abs=5e-4)
    assert bill.figures["ideal_gpu_hours"] == pytest.approx(basis / (989.4e12 * 0.4 * 3600),
                                                            rel=1e-6)


# ---- 10. the scale-out error names the notebooks `llmcost list accelerators` names
def test_missing_scaleout_error_matches_list_accelerators(tmp_path):
    from llmcost.core.catalog import load_accelerator, runnable_notebooks
    from llmcost.present.report import plan_report

    path = _yaml(tmp_path, "accelerator: TPU v4\nprice_usd_per_gpu_hour: 3.22\n")
    with pytest.raises(ScenarioError) as e:
        plan_report(path)
    assert runnable_notebooks(load_accelerator("TPU v4")) in str(e.value)
    assert "00, 01, 07" in str(e.value) and "00-01" not in str(e.value)


def test_a_missing_network_figure_names_the_plan_keys_that_need_it(tmp_path):
    # a trial copied default.yaml, set TPU v4 (no scale-out figure in data/accelerators.csv;
    # here MI325X, whose 2,048 GPUs span 256 domains: a TPU v4 pod holds 4,096 chips)
    # and was asked for comm_scaleout_bytes_per_s without being told that its plan keys asked
    # for a plan; without them the same scenario bills at its mfu
    from llmcost.bill.scenario import load_scenario
    head = "accelerator: MI325X\nprice_usd_per_gpu_hour: 3.22\nmodel: llama-2-70b\n" \
           "n_gpus: 2048\nseq_len: 4096\nglobal_batch_tokens: 4194304\nmfu: 0.4\n"
    with pytest.raises(ScenarioError) as e:
        load_scenario(_yaml(tmp_path, head + "tp: 0\npp: 1\n"))
    assert "comm_scaleout_bytes_per_s" in str(e.value)
    assert "plan keys (tp, pp: the scenario's, or a notebook's defaults when it runs on its " \
           "own) that build a parallel plan" in str(e.value)
    assert load_scenario(_yaml(tmp_path, head))["mfu"] == 0.4
    # with RL keys and no rl_train_mfu, the campaign needs the cluster too: said at once
    with pytest.raises(ScenarioError) as e:
        load_scenario(_yaml(tmp_path, head + "tp: 0\nrl_iterations: 100\n"))
    assert "give rl_train_mfu, or leave the rl_ keys out" in str(e.value)


def test_the_cli_module_runs_as_a_script_with_every_subcommand():
    # ``python -m llmcost.present.cli`` runs main() under the guard: the guard must come after
    # every parser it registers (calibrate's parser once stood below it: a NameError)
    r = subprocess.run([sys.executable, "-m", "llmcost.present.cli", "calibrate", "--help"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "--scenario" in r.stdout, r.stderr[-500:]


# ---- the bill at a glance as text bars (glance.glance_text), piped: plain text, Unicode or ASCII
@pytest.mark.parametrize("encoding, bar", [("utf-8", "█"), ("ascii", "#")])
def test_estimate_prints_the_bill_as_text_bars_when_piped(tmp_path, encoding, bar):
    scenario = {"model": "llama-2-70b", "n_gpus": 2048, "mfu": [0.3, 0.5],
                "price_usd_per_gpu_hour": 4.0}
    path = _yaml(tmp_path, "model: llama-2-70b\nn_gpus: 2048\nmfu: [0.3, 0.5]\n"
                 "price_usd_per_gpu_hour: 4.0\n")
    r = subprocess.run([sys.executable, "-m", "llmcost", "estimate", "--scenario", str(path),
                        "--samples", "20000"], capture_output=True, timeout=300,
                       env={**os.environ, "PYTHONIOENCODING": encoding})
    assert r.returncode == 0, r.stderr.decode(errors="replace")
    out = r.stdout.decode(encoding)  # a pipe that cannot encode Unicode gets ASCII, no error
    glance = out.split("the bill at a glance")[1].splitlines()
    header = " ".join(x.strip() for x in glance[:4])
    # the scenario's own range on mfu; sourced spreads on the price and exploration it does not
    # range (ledger.HEADLINE_RULE), said so
    assert "from the scenario's ranges on the MFU; illustrative spreads on the GPU-hour price" \
        in header
    total = next(ln for ln in glance if ln.strip().startswith("the whole bill"))
    # the total's whisker: the P10, P50 and P90 of the same draws (seed 0) as headline_draws
    q = ledger.headline_draws(scenario, samples=20000).draws.percentiles()
    assert bar in total and fmt_usd(q["p10"]) in total and fmt_usd(q["p90"]) in total
    assert f"P50 {fmt_usd(q['p50'])}" in total


# ---- the new-user trial of the report at a glance: estimate's JSON, --compare, labels
EDGE = ("title: price at the edge\nmodel: llama-2-70b\nn_gpus: 2048\ntrain_tokens: 2.0e12\n"
        "mfu: {low: 0.3999, mode: 0.4, high: 0.4001}\nprice_usd_per_gpu_hour: {low: 3.99, mode: 3.99, high: 6.0}\n")


def _main(capsys, *args):
    from llmcost.present.cli import main
    code = main(list(args))
    return code, capsys.readouterr().out


def test_estimate_json_carries_the_text_outputs_illustrative_ranges(capsys):
    # A scenario of single numbers: the text output draws illustrative ranges (bill_glance);
    # the JSON's P10 / P90 are those same draws (not P10 = P90 = point), flagged illustrative
    import json
    from llmcost.present import glance
    path = "data/scenarios/default.yaml"
    code, text = _main(capsys, "estimate", "--scenario", path, "--samples", "20000")
    assert code == 0
    code, out = _main(capsys, "estimate", "--scenario", path, "--samples", "20000", "--format",
                      "json")
    js = json.loads(out)
    g = glance.bill_glance(estimate_ledger(path).scenario, samples=20000)[0]
    total = next(r for r in g["lines"] if r["key"] == "total")
    assert js["bill.illustrative"] is True
    assert set(js["bill.ranges"]) == set(g["ranges"]) == set(js["bill.range_sources"])
    assert js["bill.total_p10_usd"] == pytest.approx(total["p10_usd"], rel=1e-12)
    assert js["bill.total_p90_usd"] == pytest.approx(total["p90_usd"], rel=1e-12)
    assert js["bill.total_p50_usd"] == pytest.approx(total["p50_usd"], rel=1e-12)  # the median
    assert f"P50 {fmt_usd(total['p50_usd'])}" in text  # beside P10-P90 in the text bars too
    assert js["bill.total_p10_usd"] < js["bill.total_usd"] < js["bill.total_p90_usd"]
    assert f"{fmt_usd(total['p10_usd'])}–{fmt_usd(total['p90_usd'])}" in text  # the text's bars
    assert js["bill.total_usd"] == pytest.approx(estimate_ledger(path).total_usd, rel=1e-12)
    # its RL campaign's time drawn over the RL model's published-run error, the rest
    # illustrative spreads on inputs it gives as one number
    assert js["bill.range_kinds"]["rl_time_factor"] == "rl_model"
    assert "illustrative ranges (the scenario gives every input as one number) and the RL " \
        "model's published-run error on its predicted iteration time" in js["bill.range_note"]


def test_points_outside_their_range_are_said_in_text_and_json(tmp_path, capsys):
    # price {3.99, 3.99, 6}: every draw at or above the point, so a compute line's P10 is
    # 3.99 → 6 − 2.01·√0.9 = 4.093 times its GPU-hours: above its point (test_report_glance).
    # The MFU is ranged too (±0.0001), so that the headline adds no illustrative MFU spread
    import json
    path = str(_yaml(tmp_path, EDGE))
    _, text = _main(capsys, "estimate", "--scenario", path, "--samples", "20000")
    row = next(ln for ln in text.splitlines() if ln.startswith("pre-training compute"))
    assert "*" in row.split()[2] or row.split()[2].endswith("*")
    assert "* point outside its P10–P90: the stated value is at the edge of its range" in \
        " ".join(text.split())
    _, out = _main(capsys, "estimate", "--scenario", path, "--samples", "20000", "--format",
                   "json")
    js = json.loads(out)
    main = js["bill.lines"]["compute.pretraining.main"]
    assert main["point_outside"] and main["p10_usd"] > main["usd"]
    assert not js["bill.lines"]["storage.datasets"]["point_outside"]  # no range reaches it
    assert js["bill.illustrative"] is False and "point outside" in js["bill.point_outside_note"]


def test_one_draw_and_zero_lines_are_said_once(tmp_path, capsys):
    # A new-user trial: `estimate --samples 1` explained every * as "the stated value is at the
    # edge of its range" (one draw has no edge: its P10 = P50 = P90 is that draw), and 17 lines
    # at $0 each printed "P10 $0.00, P50 $0.00, P90 $0.00"
    path = str(_yaml(tmp_path, EDGE))
    _, one = _main(capsys, "estimate", "--scenario", path, "--samples", "1")
    flat = " ".join(one.split())
    assert "the stated value is at the edge of its range" not in flat
    assert "* point differs from the one draw: with --samples 1 the P10, P50 and P90 are that " \
        "draw, not percentiles" in flat
    assert "1 Monte Carlo draw (seed 0)" in flat
    _, many = _main(capsys, "estimate", "--scenario", path, "--samples", "2000")
    for text in (one, many):
        assert "P10 $0.00, P50 $0.00, P90 $0.00" not in text
        zero = [ln for ln in text.splitlines() if "$0.00" in ln and ln.endswith("not given")]
        assert zero and all("P10" not in ln for ln in zero)
        # electricity on a rented bill is "included" (in the GPU-hour price): said so too
        assert " line(s) at $0.00 show no P10–P90: not given, included in another line, or " \
            "zero in every draw" in \
            " ".join(text.split())


def test_a_missing_mfu_is_labelled_the_default_not_given(tmp_path):
    no_mfu = _yaml(tmp_path, "model: llama-2-70b\nn_gpus: 2048\ntrain_tokens: 2.0e12\n")
    src = estimate_ledger(no_mfu).figures["mfu_source"]
    assert src.startswith("the notebooks' default, 40%") and "given in the scenario" not in src
    given = _yaml(tmp_path, "model: llama-2-70b\nn_gpus: 2048\nmfu: 0.4\n", name="g.yaml")
    assert estimate_ledger(given).figures["mfu_source"] == "given in the scenario (mfu)"
    pred = _yaml(tmp_path, "model: llama-2-70b\nn_gpus: 2048\nmfu: predict\n", name="p.yaml")
    assert estimate_ledger(pred).figures["mfu_source"].startswith("predicted (mfu: predict)")
    assert ledger.build_ledger({}).figures["mfu_source"].startswith("the notebooks' default")
    changed = ledger.with_changes(ledger.build_ledger({}), mfu=0.3)
    assert changed.figures["mfu_source"] == "given in the scenario (mfu)"


def test_compare_names_both_scenarios_shows_warnings_and_json_is_an_object(tmp_path, capsys,
                                                                          monkeypatch):
    import json
    monkeypatch.setenv("COLUMNS", "200")  # wide enough for the table (narrower: blocks)
    a = "data/scenarios/default.yaml"
    b = str(_yaml(tmp_path, "title: 7B on 256 A100s\nmodel: llama-2-7b\naccelerator: A100-80GB\n"
                            "n_gpus: 256\ntrain_tokens: 2.0e12\nmfu: [0.35, 0.5]\n"
                            "price_usd_per_gpu_hour: 2.0\n", name="b.yaml"))
    bills = [estimate_ledger(a), estimate_ledger(b)]
    title_a = "70B dense model, 2T tokens, 2,048 × H100-SXM"  # default.yaml's title
    code, text = _main(capsys, "estimate", "--scenario", a, "--compare", b, "--samples", "5000")
    assert code == 0
    flat = " ".join(text.split())  # prose wrapped to the terminal's width (80 when piped)
    assert flat.startswith(f"llmcost estimate --compare: A = {title_a} ({a}), "
                           f"B = 7B on 256 A100s ({b})")
    for w in bills[0].warnings + bills[1].warnings:  # both scenarios' warnings
        assert " ".join(w.split()) in flat
    # A (the default) warns of one thing, as its report's index does: its 40% lies below what
    # the published run like it (notebook 04b's illustrative pilot) gives for its plan
    assert [w[:78] for w in bills[0].warnings] == [
        "the bill's MFU, 40.0%, lies below what a published run like this one gives for"]
    assert "warnings of A (70B dense model" in text
    assert bills[1].warnings and "warnings of B (7B on 256 A100s)" in text
    # what the per-draw spread draws: each scenario's own ranges (B's mfu), not the
    # illustrative spreads of the single-scenario bill, said under the table
    from llmcost.present.cli import COMPARE_DRAWS_NOTE, COMPARE_POINTS_NOTE
    assert " ".join(COMPARE_DRAWS_NOTE.split()) in flat
    assert "ranges each scenario gives itself" in COMPARE_DRAWS_NOTE
    # a scenario of single numbers and no RL campaign ranges nothing of its own
    plain = str(_yaml(tmp_path, "model: llama-2-7b\naccelerator: A100-80GB\nn_gpus: 256\n"
                                "train_tokens: 2.0e12\nmfu: 0.4\n", name="plain.yaml"))
    code, same = _main(capsys, "estimate", "--scenario", plain, "--compare", plain, "--samples",
                       "500")
    assert " ".join(COMPARE_POINTS_NOTE.split()) in " ".join(same.split())
    # the default's RL campaign, billed at the published runs' median time, draws the RL model's
    # error as its own (a trial was shown a certain difference against a given factor of 1)
    code, same = _main(capsys, "estimate", "--scenario", a, "--compare", a, "--samples", "500")
    assert " ".join(COMPARE_DRAWS_NOTE.split()) in " ".join(same.split())
    total = next(ln for ln in text.splitlines() if ln.startswith("total"))
    diff = bills[1].total_usd - bills[0].total_usd  # B − A, by hand from the two bills
    from llmcost.present.report import format_value
    assert f"−{format_value(-diff, 'USD')}" in total
    code, out = _main(capsys, "estimate", "--scenario", a, "--compare", b, "--samples", "5000",
                      "--format", "json")
    js = json.loads(out)
    assert [s["name"] for s in js["scenarios"]] == [title_a, "7B on 256 A100s"]
    assert [s["file"] for s in js["scenarios"]] == [a, b]
    assert js["scenarios"][1]["warnings"] == list(bills[1].warnings)
    assert js["difference"]["usd"] == pytest.approx(diff, rel=1e-9)
    assert js["difference"]["p10_usd"] < js["difference"]["usd"] < js["difference"]["p90_usd"]
    assert js["lines"][-1]["line"] == "total" and js["lines"][-1]["key"] == "total"
    assert js["lines"][0]["key"] == "compute.pretraining.main"   # a single bill's key
    assert js["lines"][-1]["a_usd"] == pytest.approx(bills[0].total_usd, rel=1e-12)


def test_scenario_names_are_titles_else_stems():
    from llmcost.present.glance import scenario_names
    assert scenario_names("x/a.yaml", "y/b.yaml", "My run", None) == ("My run", "b")
    assert scenario_names("x/a.yaml", "y/b.yaml") == ("a", "b")
    assert scenario_names("x/a.yaml", "y/b.yaml", "same", "same") == ("a", "b")
    assert len(set(scenario_names("x/a.yaml", "y/a.yaml", "same", "same"))) == 2


def test_mfu_warning_says_how_far_to_trust_the_prediction(tmp_path):
    # The default scenario's plan is in the regime Hopper · Megatron 3D · dense · BF16 · ≤ 32k
    # · ≥ 10B, whose held-out published runs are Llama 3.1 405B's (arXiv:2407.21783 Table 4:
    # 38-43% BF16 MFU) and NVIDIA's DGX Cloud BF16 runs of 70B-405B models (50-55%): the
    # step-time model's 48% lies within them. At the default's own 40% (inside the band)
    # nothing is said; at 30%, below the band, the warning is.
    from dataclasses import replace

    from llmcost.bill.checks import given_vs_predicted_mfu, prediction_evidence
    from llmcost.present.glance import caveat_line
    low = tmp_path / "mfu30.yaml"
    low.write_text(re.sub(r"(?m)^mfu:.*$", "mfu: 0.30",
                          open("data/scenarios/default.yaml").read()))
    w = [x for x in estimate_ledger(low).warnings if "expects of this plan" in x]
    assert len(w) == 1
    assert "lies within the 5 held-out published runs of its regime" in w[0]
    assert ("the highest of them, across the regime's sizes and lengths, 54.9%, Llama 3.1 405B "
            "BF16 (NVIDIA DGX Cloud benchmarking") in w[0]
    assert caveat_line(w[0]) == ("the assumed MFU, 30%, is below what the model predicts for "
                                 "this plan (48%)")
    # the rule on bands made by hand (accuracy.MfuBand): none, above all, within
    from llmcost.training.accuracy import MfuBand
    band = MfuBand(mfu=0.50, low=0.42, high=0.50, half_width=0.1, regime="R", n=2,
                   validated=False, regime_best=0.43, regime_best_source="run X",
                   mfu_bf16_basis=0.50)
    assert "above every one of the 2 held-out" in prediction_evidence(band)
    assert "lies within the 2 held-out" in prediction_evidence(replace(band, regime_best=0.55))
    # above its regime's runs but reached by a comparable run of another regime (a trial: OPT
    # 1.3B on 8 A100s predicted 63 %, its Megatron regime's best 34 %, llm-foundry's MPT 3B
    # 63.7 %, the run `llmcost check` judges against): no extrapolation
    reached = prediction_evidence(replace(band, best_published=0.52, best_source="run Y"))
    assert "above the 2 held-out published runs of its regime (R; the highest of them 43.0%, " \
        "run X) but within the best comparable published run, 52.0% (run Y)" in reached
    assert "above every one" not in reached
    above = prediction_evidence(replace(band, best_published=0.47, best_source="run Z"))
    assert "above every one of the 2" in above
    # the comparable run that caps such a band is named beside the regime's best (a trial read
    # "the highest of them 34.4%" beside a band capped at 63.7% by a run of another regime)
    assert "and above the best comparable published run of any regime too (the same GPU " \
        "generation, dense with dense or MoE with MoE, within 4× in total parameters and 4× " \
        "in sequence length: 47.0%, run Z): an extrapolation" in above
    assert "no published run of any regime is comparable to it" in prediction_evidence(band)
    # an FP8 prediction: 15% of the FP8 peak is 30% of the BF16 peak (twice the rate,
    # accelerators.csv's B200 2.25 / 4.5 PFLOP/s dense), the basis published runs report; a new
    # user read "30% is above 15%" and then "the highest of them 75%" unlabelled
    fp8 = replace(band, mfu=0.15, mfu_bf16_basis=0.30, regime_best=0.75)
    text = prediction_evidence(fp8)
    # the best run on both peaks too (trial 19): 75% of BF16 × 0.15 / 0.30 = 37.5% of FP8
    # "across the regime's sizes and lengths": a trial read it beside the best comparable
    # run's 21.6% as two best runs
    assert ("the highest of them, across the regime's sizes and lengths, 75.0% of the BF16 "
            "peak (37.5% of this dtype's), run X: the "
            "basis published runs report their MFU on, where this prediction (15.0% of its own "
            "dtype's peak) is 30.0%)") in text
    assert "lies within" in text
    assert "BF16 peak" not in prediction_evidence(band)   # a BF16 prediction needs no basis
    none = replace(band, n=0, regime_best=None, regime_best_source="", half_width=0.5)
    assert "no held-out published run in its regime (R)" in prediction_evidence(none)
    assert "published step times +0.0% ± 50% from the predicted" in prediction_evidence(none)
    # a reader read "beyond all 3 published runs like it" beside the MFU lever's "best published
    # run" at 64%: two sets (the band's held-out regime runs, the lever's comparable runs), now
    # named apart
    assert "a prediction above all 2 published runs its error band was measured on" in \
        caveat_line("the scenario's mfu=0.40 is below what the step-time model expects of this "
                    "plan (P): 50%, band 42%–50%; "
                    f"{prediction_evidence(replace(band, best_published=0.47))}; the bill uses "
                    "the given figure.")
    assert "no published run of its regime checks" in caveat_line(
        "the scenario's mfu=0.40 is below what the step-time model expects of this plan (P): "
        f"50%, band 42%–50%; {prediction_evidence(none)}; the bill uses the given figure.")

    class B:  # a StepBreakdown's MFU is all the line reads of it
        mfu = 0.5

    class P:
        @staticmethod
        def describe():
            return "TP8"

    assert given_vs_predicted_mfu(0.45, B, band, P) is None  # inside the band: no line
    # the MFU as the header states it: a new user's uniform 0.35-0.5 has its point at the
    # midpoint (0.35 + 0.5) / 2 = 0.425, which `estimate` heads "MFU 42.5%"; the line said
    # "mfu=0.42" (two decimals). 0.30 keeps two decimals, 0.4375 shows four.
    assert given_vs_predicted_mfu((0.35 + 0.5) / 2, B, replace(band, low=0.44), P).startswith(
        "the scenario's mfu=0.425 is below")
    assert given_vs_predicted_mfu(0.30, B, band, P).startswith("the scenario's mfu=0.30 is")
    assert given_vs_predicted_mfu(0.4375, B, replace(band, low=0.44), P).startswith(
        "the scenario's mfu=0.4375 is below")
    assert "above every one" in given_vs_predicted_mfu(0.30, B, band, P)
    # a band that reaches the 50% prediction is around it; one capped at 47% (a comparable
    # run's best, accuracy.band_cap) lies wholly below it, and the line says so
    assert ": 50%, band 42%–50% around that prediction, not" in \
        given_vs_predicted_mfu(0.30, B, band, P)
    capped = given_vs_predicted_mfu(0.30, B, replace(band, high=0.47), P)
    assert ": 50%, band 42%–47% capped below that prediction, where no measurement goes, by " in \
        capped and "around that prediction" not in capped


def test_compare_check_and_list_wrap_their_prose_to_a_narrow_terminal(tmp_path, monkeypatch):
    # A new-user trial: at COLUMNS=60, `estimate --compare`'s header and warnings' titles,
    # `check`'s lines and `list parameters`' note ran past the edge while `estimate` wrapped
    # its prose; a later trial found the table 89 wide at COLUMNS=40: narrower than its
    # table, the comparison prints each line as a block (cli._compare_block)
    monkeypatch.setenv("COLUMNS", "60")
    b = str(_yaml(tmp_path, "title: 7B on 256 A100s\nmodel: llama-2-7b\naccelerator: A100-80GB\n"
                            "n_gpus: 256\ntrain_tokens: 2.0e12\nprice_usd_per_gpu_hour: 2.0\n",
                  name="b.yaml"))
    out = run_cli("estimate", "--scenario", "data/scenarios/default.yaml", "--compare", b,
                  "--samples", "500").stdout.splitlines()
    assert out[0].startswith("llmcost estimate --compare: A = ")
    # every line within 60 characters, but for a word longer than a line (here the temporary
    # scenario's path, which runs past the width whole, so that it can be copied)
    assert all(len(ln) <= 60 or len(ln.split()) == 1 for ln in out)
    assert any(f"({b})" in ln for ln in out)
    total = out.index("total")  # the total's block: its figures on the next line
    assert out[total + 1].startswith("  A $") and " B − A " in out[total + 1]
    out = run_cli("check", "--model", "llama-3.1-8b", "--accelerator", "MI300X", "--train-tokens",
                  "1e12", "--n-gpus", "256", "--days", "20").stdout.splitlines()
    assert out[0].startswith("Claim: llama-3.1-8b") and max(len(ln) for ln in out) <= 60
    note = run_cli("list", "parameters").stdout.split("\n\n")[0].splitlines()
    assert note[0].startswith("A scenario may set") and max(len(ln) for ln in note) <= 60


def test_compare_flags_a_difference_outside_its_own_p10_to_p90():
    # A new-user trial: `estimate --compare` printed a total B − A of −$297k beside its P10 to
    # P90 per draw, −$911k to −$338k, with no flag, where the single bill flags such a point
    # with `*` (ledger.point_outside). Hand check: −297k > −338k, outside; −50k inside.
    from types import SimpleNamespace

    import pandas as pd

    from llmcost.present.cli import COMPARE_OUTSIDE_NOTE, compare_text
    df = pd.DataFrame({"line": ["pre-training compute", "total"],
                       "a usd": [1.0e6, 3.0e6], "b usd": [0.95e6, 2.703e6],
                       "difference usd": [-50e3, -297e3],
                       "difference p10 usd": [-90e3, -911e3],
                       "difference p90 usd": [-10e3, -338e3]})
    quiet = SimpleNamespace(warnings=[])
    lines = compare_text(df, ("a", "b"), ("a.yaml", "b.yaml"), [quiet, quiet],
                         columns=80).splitlines()
    total = next(ln for ln in lines if ln.startswith("total"))
    line = next(ln for ln in lines if ln.startswith("pre-training"))
    assert total.split()[3:5] == ["−$297k", "*"]
    assert " *" not in line
    assert any(ln.startswith("* B − A") for ln in lines) and COMPARE_OUTSIDE_NOTE.startswith("*")
    # the JSON carries the same flag per line and on the total, with the note
    from llmcost.present.cli import compare_json
    quiet = SimpleNamespace(warnings=[], total_usd=0.0)
    js = compare_json(df, ("a", "b"), ("a.yaml", "b.yaml"), ("A", "B"), [quiet, quiet])
    assert [r["difference_outside"] for r in js["lines"]] == [False, True]
    assert js["difference"]["outside"] is True and js["outside_note"] == COMPARE_OUTSIDE_NOTE


def test_budget_tokens_of_a_pilot_scenario_are_priced_at_the_bills_mfu(tmp_path):
    # A new-user trial (the README's pilot example, micro-batch 1 and no recomputation fixed):
    # `estimate --budget-usd` passed fit_budget only the file's TP, PP and CP, so the pilots
    # were extrapolated to the plan search's micro-batch (40.8 %, not the bill's 34.8 %) and the
    # tokens it answered overran the budget. fit_budget's rule (levers.fit_budget: the most
    # tokens whose whole bill on the scenario's GPUs is at most B) is checked on the bill
    # estimate prints for a file with those tokens.
    import re
    text = ("tp: 8\npp: 4\nmicro_batch_size: 1\nrecompute: none\n"
            "global_batch_tokens: 4194304\npilot:\n"
            "  - {n_gpus: 64, tokens_per_s_per_gpu: 900, tp: 8, pp: 4}\n"
            "  - {n_gpus: 256, tokens_per_s_per_gpu: 860, tp: 8, pp: 4}\n")
    r = _cli("estimate", "--scenario", str(_yaml(tmp_path, text)), "--budget-usd", "5e6")
    assert r.returncode == 0, r.stderr
    out = " ".join(r.stdout.split())
    # printed as llmcost.fmt_count prints a count: 4 digits and a k/M/B/T suffix
    m = re.search(r"tokens the budget buys: ([\d.]+)([kMBT]?) tokens", out)
    tokens = float(m[1]) * {"": 1, "k": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}[m[2]]
    there = estimate_ledger(_yaml(tmp_path, text + f"train_tokens: {tokens!r}\n",
                                  name="there.yaml"))
    # the answer is printed to 4 digits: the bill of those tokens is the budget within 0.1 %
    assert there.total_usd == pytest.approx(5e6, rel=1e-3)


def test_list_stacks_names_every_profile_a_scenario_may_give():
    # A new-user trial: the README says `stack:` names a profile of data/stacks.csv, and
    # `llmcost list stacks` was refused ("invalid choice"). Its rows are exactly the names
    # core.stacks.list_stacks gives (the ones `stack:` accepts), with DeepSeek's DualPipe profile
    # (arXiv:2412.19437 §3.2: ZeRO-1, no TP) among them.
    from llmcost.core.stacks import list_stacks
    out = run_cli("list", "stacks").stdout.splitlines()
    assert out[0].split()[:2] == ["stack", "date"]
    names = [ln.split()[0] for ln in out[2:] if ln.strip()]
    assert names == list_stacks()
    (ds,) = [ln.split() for ln in out if ln.startswith("deepseek-hai-llm-2024 ")]
    assert ds[1] == "2024-12" and "0|1" in ds and "dualpipe" in ds
    import io
    import pandas as pd
    csv = pd.read_csv(io.StringIO(run_cli("list", "stacks", "--format", "csv").stdout))
    assert list(csv["name"]) == list_stacks() and "source" in csv.columns


def test_list_params_is_list_parameters():
    # a trial typed `llmcost list params` and was refused: the alias prints the same table
    assert run_cli("list", "params").stdout == run_cli("list", "parameters").stdout


def test_help_examples_continue_lines_as_a_shell_does():
    # A trial: `llmcost --help` printed "--accelerator H800       --dtype fp8" (a backslash-
    # newline inside the Python string joined the two lines): a shell continuation is printed
    from llmcost.present.cli import EPILOG
    check = [ln for ln in EPILOG.splitlines() if "llmcost check" in ln]
    assert check and check[0].endswith("--accelerator H800 \\")
    assert not any("  --" in ln.strip() for ln in EPILOG.splitlines())


def test_a_model_no_plan_can_hold_is_refused_without_a_network_figure(tmp_path):
    # A trial: Llama 3.1 405B on 8 MI325X (no sourced scale-out figure, so no plan is built) was
    # priced at 1,060 days. By hand, whatever the plan: its states, N × 18 B (BF16 weights,
    # FP32 gradients, FP32 master, m, v: Rajbhandari et al. 2020 §3.1 with FP32 gradients),
    # spread over all 8 GPUs, against MI325X's 256 GiB × 0.9 usable
    from llmcost.present.report import plan_report
    spec, gpu = llmcost.load_model("llama-3.1-405b"), llmcost.load_accelerator("MI325X")
    need, usable = spec.n_params * 18, gpu.hbm_bytes * 0.9
    assert need / 8 > usable
    # (16 GPUs, two domains: 8, one domain, needs no network figure and is planned: refused
    # as "no parallel plan fits")
    assert need / 16 > usable
    path = _yaml(tmp_path, "model: llama-3.1-405b\naccelerator: MI325X\nn_gpus: 16\n"
                           "seq_len: 8192\nmfu: 0.35\nprice_usd_per_gpu_hour: 2.5\n")
    with pytest.raises(ScenarioError) as e:
        estimate_ledger(path)
    msg = str(e.value)
    assert f"need {need / 16 / 1e9:,.0f} GB per GPU even spread over all 16 MI325Xs" in msg
    assert f"use at least {math.ceil(need / usable):,} GPUs" in msg
    with pytest.raises(ScenarioError, match="no parallel plan can fit"):
        plan_report(path, ["00", "01"])  # the report refuses it before writing anything
    # a count that holds the states is priced (the plan itself is not checked there)
    path.write_text(path.read_text().replace("n_gpus: 16", "n_gpus: 64"))
    assert estimate_ledger(path).total_usd > 0


def test_build_ledger_refuses_states_no_plan_can_hold():
    """A new-user trial: ``llmcost.build_ledger`` priced Llama 3.1 405B on 8 H100 with a
    numeric MFU at $15.0M where ``estimate`` refuses it. By hand: 405e9 parameters (the
    catalogue's 405,853,388,800) × 18 B (BF16 weights, FP32 gradients, FP32 master and Adam
    moments; Rajbhandari et al. 2020) = 7.31 TB, over 8 GPUs 913 GB each, against 80 GB."""
    sc = {"model": "llama-3.1-405b", "accelerator": "H100-SXM", "n_gpus": 8,
          "train_tokens": 1e12, "mfu": 0.4, "price_usd_per_gpu_hour": 3.99}
    with pytest.raises(ScenarioError, match=r"n_gpus=8: no parallel plan can fit: "
                       r"llama-3\.1-405b's .* need 913 GB per GPU"):
        llmcost.build_ledger(sc)
    # the caller that checks the plan itself may skip it; enough GPUs pass
    assert llmcost.build_ledger(sc, check_memory=False).total_usd > 0
    assert llmcost.build_ledger({**sc, "n_gpus": 1024}).total_usd > 0


def test_compare_fits_a_narrow_terminal():
    # A new-user trial: at COLUMNS=40 the comparison table was 89 characters wide. Narrower
    # than its table, each line is a block: its name, then A, B and B − A, then the per-draw
    # P10 to P90, every line within the width (a file path, one word, excepted: never cut)
    from types import SimpleNamespace

    import pandas as pd

    from llmcost.present.cli import compare_text
    df = pd.DataFrame({"line": ["failures, checkpoints and restarts", "total"],
                       "a usd": [5.50e3, 5.87e5], "b usd": [2.48e3, 3.00e5],
                       "difference usd": [-3.02e3, -2.87e5],
                       "difference p10 usd": [-5.08e3, -5.05e5],
                       "difference p90 usd": [-3.05e3, -2.91e5]})
    quiet = SimpleNamespace(warnings=[])
    lines = compare_text(df, ("a", "b"), ("a.yaml", "b.yaml"), [quiet, quiet],
                         columns=40, fit=True).splitlines()
    assert max(len(ln) for ln in lines) <= 40
    i = lines.index("failures, checkpoints and restarts")
    assert lines[i + 1:i + 3] == ["  A $5.50k  B $2.48k  B − A −$3.02k *",
                                  "  per draw −$5.08k to −$3.05k"]
    wide = compare_text(df, ("a", "b"), ("a.yaml", "b.yaml"), [quiet, quiet], columns=120,
                        fit=True)
    assert "B − A, P10 to P90 per draw" in wide  # wide enough: the table as before
    piped = compare_text(df, ("a", "b"), ("a.yaml", "b.yaml"), [quiet, quiet], columns=40,
                         fit=False)
    assert "B − A, P10 to P90 per draw" in piped  # to a pipe: the table, whatever the width


def test_compare_says_when_the_rl_lines_decode_at_different_factors(tmp_path):
    # A trial: the same MoE scenario on GB200 and on B200 billed RL at 2.4x on GB200 and the
    # comparison did not say why: rl.VLLM_DECODE_FACTORS holds a factor fitted on NeMo RL's
    # published GB200 step times (2.459) and none for B200 (1). The comparison names both.
    from llmcost.present.cli import compare_decode_note
    from llmcost.serving.rl import VLLM_DECODE_FACTORS
    assert VLLM_DECODE_FACTORS == {"GB200-NVL72": 2.459}
    base = ("model: llama-2-7b\nn_gpus: 512\ntrain_tokens: 1.0e11\nprice_usd_per_gpu_hour: 5.0\n"
            "rl_iterations: 100\nrl_gpus: 64\n")
    a = _yaml(tmp_path, base + "accelerator: GB200-NVL72\n", name="gb200.yaml")
    b = _yaml(tmp_path, base + "accelerator: B200\n", name="b200.yaml")
    r = _cli("estimate", "--scenario", str(a), "--compare", str(b), "--format", "json")
    assert r.returncode == 0, r.stderr
    note = json.loads(r.stdout)["rl_decode_note"]
    assert "A (gb200) on GB200-NVL72 at 2.46×; B (b200) on B200 at 1×" in note
    assert "not the hardware" in note
    bills = [estimate_ledger(a), estimate_ledger(a)]
    assert compare_decode_note(bills, ("a", "a")) == ""  # the same factor: nothing to say


def test_rollout_gpus_above_the_default_rl_job_are_refused_everywhere(tmp_path):
    # A trial: rl_rollout_gpus 100 with rl_gpus left at the notebooks' 64 was billed by estimate
    # on an RL job grown to 128 GPUs without a word, by check on another figure, and refused by
    # build_ledger: one rule for all three, the bill's (the trainer needs GPUs).
    from llmcost.bill.scenario import ScenarioError, load_scenario
    path = _yaml(tmp_path, "model: llama-3.1-8b\nn_gpus: 64\nmfu: 0.4\nrl_rollout_gpus: 100\n"
                 "rl_iterations: 100\n")
    rule = "rl_rollout_gpus=100 must be < rl_gpus=64 (the trainer needs GPUs)"
    for command in ("estimate", "check"):
        r = _cli(command, "--scenario", str(path))
        assert r.returncode == 2 and rule in r.stderr, (command, r.stderr)
    with pytest.raises(ScenarioError, match=re.escape(rule)):
        llmcost.build_ledger(load_scenario(path))


def test_a_reserved_price_whose_term_outlasts_the_run_is_warned(tmp_path):
    # A trial: pricing reserved on TPU v5p took GCP's 1-year committed-use rate ($2.94 per
    # chip-hour, min_term_days 365 in data/prices.csv) and billed only the 7.8 days the run
    # used, where notebook 09's lever prices a term as max(T, d) x rate x GPUs. The bill says
    # so, with that figure: 365 x 24 h x $2.94 x 128 chips = $3.30M.
    from llmcost.present import glance
    base = ("model: llama-2-13b\naccelerator: TPU v5p\nn_gpus: 128\ntrain_tokens: 2.0e11\n"
            "seq_len: 4096\nmfu: 0.45\nglobal_batch_tokens: 4194304\n")
    bill = estimate_ledger(_yaml(tmp_path, base + "pricing: reserved\n"))
    assert bill.figures["price_usd_per_gpu_hour"] == pytest.approx(2.94)
    assert bill.figures["run_wall_clock_days"] < 365
    (w,) = [x for x in bill.warnings if x.startswith("pricing: reserved takes")]
    assert f"= {llmcost.fmt_usd(365 * 24 * 2.94 * 128)}:" in w and "$3.30M" in w
    assert "365-day commitment" in glance.caveat_line(w)
    # priced on demand, or at a quote for the term bought: not warned
    for tail in ("pricing: on_demand\n", "pricing: reserved\nprice_usd_per_gpu_hour: 2.5\n"):
        bill = estimate_ledger(_yaml(tmp_path, base + tail, name="other.yaml"))
        assert not any(x.startswith("pricing: reserved takes") for x in bill.warnings)


def test_owned_gpus_charged_for_the_hours_used_say_what_the_cluster_costs(tmp_path):
    # Trial 20: pricing owned billed $3.06M against $8.71M on demand, the hours used at the
    # amortised rate, with no word (as reserved has) on what the cluster costs. By hand
    # (Cottier et al. 2024, data/ledger_defaults.csv): an H100 at $27,500 × the server
    # multiplier 1.64 ÷ (1 − 0.19 interconnect) = $55,679 a GPU; 2,048 of them $114.0M, set
    # beside the hardware the bill charges (its GPU-hours × the hourly value lost).
    from llmcost.present import glance
    bill = estimate_ledger(_yaml(tmp_path, "model: llama-2-70b\naccelerator: H100-SXM\n"
                                 "n_gpus: 2048\ntrain_tokens: 2.0e12\nmfu: 0.4\n"
                                 "pricing: owned\n"))
    (w,) = [x for x in bill.warnings if x.startswith("pricing: owned charges")]
    cluster = 2048 * 27_500 * 1.64 / (1 - 0.19)
    billed = bill.figures["all_gpu_hours"] * bill.figures["gpu_rate_usd_per_gpu_hour"]
    assert cluster == pytest.approx(114.03e6, rel=1e-3)
    assert f"costs {llmcost.fmt_usd(cluster)}, {cluster / billed:.3g}× that" in w
    assert f"{llmcost.fmt_usd(billed)} of hardware" in w
    assert glance.caveat_line(w).startswith("owned GPUs are charged only for the hours this "
                                            "bill uses")
    # what the owned hour leaves out is said (a finance trial found no facility line, unsaid)
    assert w.endswith("data-centre space, maintenance and insurance are not modelled")
    # an owned price given as a number (a quote): not warned
    quoted = estimate_ledger(_yaml(tmp_path, "model: llama-2-70b\naccelerator: H100-SXM\n"
                                   "n_gpus: 2048\ntrain_tokens: 2.0e12\nmfu: 0.4\npricing: "
                                   "owned\nprice_usd_per_gpu_hour: 2.0\n", name="q.yaml"))
    assert not any(x.startswith("pricing: owned charges") for x in quoted.warnings)


def test_a_budget_flag_beside_the_scenarios_budget_says_which_is_which(tmp_path):
    # A trial: "budget: $600,000 (ledger_budget_usd); the bill is 80% of it" then, below,
    # "the whole bill ≤ $400,000" from --budget-usd, with no word on which budget is which.
    path = _yaml(tmp_path, "model: llama-2-7b\nn_gpus: 64\ntrain_tokens: 2.0e10\nmfu: 0.4\n"
                 "price_usd_per_gpu_hour: 2.0\nledger_budget_usd: 600000\n")
    r = _cli("estimate", "--scenario", str(path), "--budget-usd", "400000")
    assert r.returncode == 0, r.stderr
    said = " ".join(r.stdout.split())
    assert "budget: $600,000 (ledger_budget_usd)" in said
    assert ("working backwards (llmcost.levers.fit_budget); --budget-usd $400,000 sets this "
            "search, the scenario's ledger_budget_usd $600,000 the bill's budget line above:"
            ) in said


def test_a_reserved_price_from_rows_without_a_term_says_the_term_is_unknown(tmp_path):
    # A trial: the 405B scenario on reserved H100s took Hyperstack's rate, whose row states no
    # contract term (data/prices.csv: min_term_days empty, "a defined duration"), and
    # nothing said a term might outlast the 92-day run.
    from llmcost.core.catalog import current_prices
    from llmcost.present import glance
    rows = current_prices("H100-SXM", "reserved")
    assert rows["min_term_days"].replace("", None).isna().any()
    bill = estimate_ledger(_yaml(tmp_path, "model: llama-2-70b\naccelerator: H100-SXM\n"
                                 "n_gpus: 1024\nmfu: 0.4\npricing: reserved\n"))
    (w,) = [x for x in bill.warnings if x.startswith("pricing: reserved takes")]
    assert "states no term" in w or "state no term" in w
    assert "a term that outlasts the run is not priced" in glance.caveat_line(w)


def test_an_interleaved_plan_short_of_micro_batches_names_the_batch_that_fits(tmp_path):
    # A trial moved Llama 3.1 405B's scenario (TP8 · PP16 interleaved, a 16M-token batch of
    # 8,192-token sequences) to 32,768 GPUs: DP 256, 2,048 sequences ÷ 256 = 8 micro-batches
    # per replica, not a multiple of pp = 16, refused in words the scenario never sets. The
    # refusal names the batch that gives 16: 16,777,216 × 16 / 8 = 33,554,432 tokens.
    from llmcost import SCENARIO_DIR
    from llmcost.bill.scenario import ScenarioError, load_scenario
    text = (SCENARIO_DIR / "llama-3.1-405b.yaml").read_text()
    text = re.sub(r"(?m)^n_gpus:.*$", "n_gpus: 32768", text)
    text = re.sub(r"(?m)^dp:.*$", "dp: 0", text)
    with pytest.raises(ScenarioError) as e:
        load_scenario(_yaml(tmp_path, text))
    said = " ".join(str(e.value).split())
    assert "n_microbatches=8 must be divisible by pp=16" in said
    assert "global_batch_tokens=33,554,432 gives 16, a multiple of pp=16, as does n_gpus=16,384" \
        in said  # 32,768 × 8 / 16


def test_a_scenario_that_is_not_utf8_text_is_refused_in_one_line(tmp_path):
    # A trial: a binary file and a UTF-16 YAML got Python's "'utf-8' codec can't decode byte
    # 0xff in position 0: invalid start byte"; the scenario is said to be no UTF-8 text
    from llmcost.bill.scenario import ScenarioError, load_scenario
    path = tmp_path / "u16.yaml"
    path.write_text("model: llama-2-7b\n", encoding="utf-16")
    with pytest.raises(ScenarioError, match=r"u16\.yaml: not a UTF-8 text file \(byte 0: "
                                            r"invalid start byte\); save the scenario as UTF-8"):
        load_scenario(path)


def test_the_estimate_says_what_an_rl_campaign_is_billed_at(tmp_path, capsys):
    # A trial: the RL line is billed at the model's iteration time x 1.69 (the published GRPO
    # runs' median, rl.scenario_time_factor), which the estimate said only inside its list of
    # draws; its header now says it, and nothing at the model's own time (a given 1)
    from llmcost.serving import rl
    rl_keys = ("model: llama-3.1-8b\naccelerator: H100-SXM\nn_gpus: 64\ntrain_tokens: 1.0e12\n"
               "mfu: 0.4\nrl_iterations: 500\nrl_runs: 4\nrl_gpus: 16\nrl_rollout_tp: 1\n")
    code, text = _main(capsys, "estimate", "--scenario", str(_yaml(tmp_path, rl_keys)))
    assert code == 0
    assert (f"RL post-training billed at the model's iteration time × "
            f"{rl.RL_TIME_FACTOR_MEDIAN:g}, published GRPO runs' median") in " ".join(text.split())
    own = _yaml(tmp_path, rl_keys + "rl_time_factor: 1.0\n", name="own.yaml")
    code, text = _main(capsys, "estimate", "--scenario", str(own))
    assert "RL post-training billed at" not in text
    # a range on it (the README's rangeable keys): a trial's text estimate raised a ValueError
    # from rl.scenario_time_factor; the line says the range is drawn and the point its midpoint
    # (uniform 0.8-2.0: (0.8 + 2.0) / 2 = 1.4)
    ranged = _yaml(tmp_path, rl_keys + "rl_time_factor: [0.8, 2.0]\n", name="ranged.yaml")
    code, text = _main(capsys, "estimate", "--scenario", str(ranged))
    assert code == 0
    assert ("× rl_time_factor, drawn from its range (uniform 0.8-2) for the P10-P90; the point "
            "takes its midpoint 1.4") in " ".join(text.split())


def test_the_compare_note_says_why_a_difference_can_lie_outside_its_range():
    # A trial compared two `mfu: predict` scenarios (405B on 8,192 H100, MFU triangular 0.3125 /
    # 0.4096 / 0.47; 70B on 2,304 GB200, 0.2674 / 0.3476 / 0.4965) and read "a stated value sits
    # at the edge of its range" where neither point was at an edge. By hand, with one random
    # number per draw for both (common random numbers, as compare_bills draws them): a bill
    # proportional to 1 / MFU, each point inside its own P10-P90, their difference outside the
    # P10-P90 of the differences per draw
    import numpy as np

    from llmcost.present.cli import COMPARE_OUTSIDE_NOTE

    def tri(u, a, c, b):   # the triangular distribution's inverse CDF
        f = (c - a) / (b - a)
        return np.where(u < f, a + np.sqrt(u * (b - a) * (c - a)),
                        b - np.sqrt((1 - u) * (b - a) * (b - c)))

    u = (np.arange(200_000) + 0.5) / 200_000
    a_cost, b_cost = 1 / tri(u, 0.3125, 0.4096, 0.47), 0.3 / tri(u, 0.2674, 0.3476, 0.4965)
    for cost, mode in ((a_cost, 1 / 0.4096), (b_cost, 0.3 / 0.3476)):
        assert np.quantile(cost, 0.1) < mode < np.quantile(cost, 0.9)
    diff, point = b_cost - a_cost, 0.3 / 0.3476 - 1 / 0.4096
    assert not np.quantile(diff, 0.1) <= point <= np.quantile(diff, 0.9)
    assert "the same random numbers" in COMPARE_OUTSIDE_NOTE
    assert "sits at another place in its range" in COMPARE_OUTSIDE_NOTE


def test_compare_names_the_predicted_plans_when_they_differ():
    # A trial: a BF16 Llama 3.1 405B on 16,384 H100 and its FP8 copy, both `mfu: predict`,
    # whose plan searches chose TP8 · PP64×v2 and TP8 · PP32×v4 (FP8's smaller activations fit
    # a shorter pipeline): "inputs that differ" listed dtype and mfu only
    from types import SimpleNamespace as NS

    from llmcost.present.glance import compare_inputs
    def bill(dtype, plan):
        return NS(scenario={"dtype": dtype, "_mfu_prediction": {"plan": plan}}, figures={})
    said = compare_inputs((bill("bf16", "TP8 · PP64×v2"), bill("fp8", "TP8 · PP32×v4")))
    assert "the plan the MFU was predicted for TP8 · PP64×v2 → TP8 · PP32×v4" in said
    assert not any("plan the MFU" in x
                   for x in compare_inputs((bill("bf16", "P"), bill("fp8", "P"))))


def test_compare_of_one_given_mfu_in_bf16_and_fp8_says_what_fp8_is_assumed_to_gain():
    # Trial 20: A = Llama 2 70B on 2,048 H100 at mfu 0.40 in BF16, B the same in FP8: the index
    # read "−50% of A" beside notebook 09's FP8 lever at −29.8% with nothing to tell them apart.
    # One MFU is a fraction of each dtype's own peak: B runs H100's 1,978.9 ÷ 989.4 = 2× A's
    # rate (data/accelerators.csv), beyond the largest published FP8 ÷ BF16 whole-step speed-up
    # of one plan of a comparable size (accuracy.fp8_speedup_bound), which the inputs line names.
    from types import SimpleNamespace as NS

    from llmcost.present.glance import compare_inputs
    from llmcost.training.accuracy import fp8_speedup_bound
    base = {"model": "llama-2-70b", "accelerator": "H100-SXM"}
    a, b = (NS(scenario={**base, "dtype": d}, figures={"mfu": 0.4}) for d in ("bf16", "fp8"))
    r = fp8_speedup_bound(llmcost.load_model("llama-2-70b").n_params)[0]
    assert 1.0 < r < 2.0
    said = compare_inputs((a, b))
    # said in the one mfu item, after its two peaks (a lecturer read mfu twice)
    assert sum(x.startswith("mfu ") for x in said) == 1
    assert (f"; 40.0% on both, as given, each of its own dtype's dense peak: the FP8 bill runs "
            f"2× the BF16 one's rate, where published FP8 ÷ BF16 whole-step speed-ups of one "
            f"plan of a comparable size reach {r:.2f}× at most") in "; ".join(said)
    # two BF16 bills at one MFU on one accelerator: nothing to say
    assert not any("on both" in x for x in compare_inputs((a, a)))


def test_a_range_that_moves_no_line_is_said_beside_the_drivers(tmp_path, capsys):
    # A trial: a PUE range on a rented run (electricity is in the GPU-hour price) was listed
    # among the scenario's ranges and left out of "what drives the spread" unsaid
    sc = _yaml(tmp_path, "model: llama-3.1-8b\naccelerator: H100-SXM\nn_gpus: 64\n"
               "train_tokens: 1.0e11\nmfu: [0.35, 0.45]\nledger_pue: [1.1, 1.4]\n")
    code, text = _main(capsys, "estimate", "--scenario", str(sc))
    assert code == 0
    said = " ".join(text.split())
    assert "ledger_pue: ranged, but the bill reads the same at its P10 and its P90, so not " \
        "listed" in said
    assert said.index("what drives the spread") < said.index("ledger_pue: ranged, but")


def test_samples_take_a_whole_number_as_yaml_counts_do():
    # A trial: `--samples 1e5` was refused ("invalid int value") though YAML counts take 1e5
    from llmcost.present.cli import whole_number
    assert whole_number("1e5") == 100_000 and whole_number("2000") == 2000
    import argparse
    for bad in ("1.5", "abc", "inf", "nan"):
        with pytest.raises(argparse.ArgumentTypeError, match=repr(bad)):
            whole_number(bad)


def test_the_bill_text_says_an_rl_runs_wall_clock():
    # A trial billed 100,000 RL iterations × 20 runs on 64 GPUs ($20.4M, 5.12M GPU-h) and saw
    # no wall clock: one run is its GPU-hours ÷ runs ÷ rl_gpus ÷ 24 for a colocated campaign
    # (every GPU busy for the whole iteration), 167 days there. Here 1,000 iterations × 2 runs.
    sc = {**llmcost.load_scenario(llmcost.SCENARIO_DIR / "default.yaml"), "rl_iterations": 1000,
          "rl_runs": 2, "rl_gpus": 64, "rl_rollout_gpus": 0}
    bill = ledger.build_ledger(sc)
    days = bill.figures["rl_wall_clock_days_per_run"]
    assert days == pytest.approx(bill.figures["rl_gpu_hours"] / 2 / 64 / 24, rel=1e-6)
    text = re.sub(r"\s+", " ", bill_text(bill, columns=200))
    assert (f"each run of 1,000 iterations (2 runs) takes {days:.3g} days on 64 GPUs, not in "
            "the main run's wall clock") in text
    assert ledger.build_ledger({**sc, "ledger_rl": False}).figures[
        "rl_wall_clock_days_per_run"] is None
    # at the model's own time (DPO, factor 1) the clause stands alone; with a ranged factor
    # it follows the range's words (a review read "RL post-training each run ..." for DPO)
    dpo = ledger.build_ledger({**sc, "rl_algorithm": "dpo"})
    text = re.sub(r"\s+", " ", bill_text(dpo, columns=200))
    assert "RL post-training: each run of 1,000 iterations (2 runs) takes " in text
    drawn = ledger.build_ledger({**sc, "rl_time_factor": [1.2, 2.0]})
    text = re.sub(r"\s+", " ", bill_text(drawn, columns=200))
    assert re.search(r"the point takes its midpoint 1\.6; each run of 1,000 iterations \(2 "
                     r"runs\) takes [\d.]+ days on 64 GPUs", text)


def test_the_terminal_bill_names_a_large_line_held_at_one_number(tmp_path):
    # A trial's bill was 57-75% people, a line none of whose inputs is ranged, while the range
    # read ±3%: the index said the line was held at one number (glance.fixed_lines_sentence,
    # at FIXED_LINE_SHARE of the point or more); `estimate` did not. Now both do.
    import yaml
    from llmcost.present.glance import FIXED_LINE_SHARE
    sc = {**llmcost.load_scenario(llmcost.SCENARIO_DIR / "default.yaml"),
          "ledger_operations_usd_per_month": 2e6, "ledger_project_months": 12.0}
    bill = ledger.build_ledger(sc)
    ops = bill.line("ops.operations") if any(x.key == "ops.operations" for x in bill.lines) \
        else next(x for x in bill.lines if x.line.startswith("operations"))
    assert ops.usd == pytest.approx(2.4e7) and ops.usd >= FIXED_LINE_SHARE * bill.total_usd
    path = tmp_path / "ops.yaml"
    path.write_text(yaml.safe_dump({k: v for k, v in sc.items()}))
    # every range illustrative (no range of the scenario's own): said under the text bars
    text = " ".join(run_cli("estimate", "--scenario", str(path)).stdout.split())
    said = (f"The line “{ops.line}”, {fmt_usd(ops.usd)} or {ops.usd / bill.total_usd:.0%} of "
            "the point estimate, is held at one number")
    # an output that cannot encode them (this capture) gets plain quotes (glance.text_charset)
    assert said in text or said.replace("“", '"').replace("”", '"') in text
    # a line below FIXED_LINE_SHARE is not named
    path.write_text(yaml.safe_dump({**sc, "ledger_operations_usd_per_month": 1e4}))
    assert "held at one number" not in run_cli("estimate", "--scenario", str(path)).stdout


def test_a_compare_gives_each_options_own_range_beside_the_difference(tmp_path):
    # A finance trial: `estimate --compare` and the report's comparison gave the difference's
    # P10-P90 but neither option's own, which a decision between two options needs. Each
    # bill's total over the compare's own draws (its own ranges: glance.compare_bills) is now
    # in the text and in the JSON's scenarios; re-derived here from each bill's own draws
    from llmcost.bill.ledger import own_ranged_scenario, simulate_ledger
    a = _yaml(tmp_path, "model: llama-2-70b\nn_gpus: 2048\ntrain_tokens: 2e12\n"
                        "mfu: [0.35, 0.45]\nprice_usd_per_gpu_hour: [3.5, 4.5]\n")
    b = tmp_path / "b.yaml"
    b.write_text("model: llama-2-70b\nn_gpus: 2048\ntrain_tokens: 2e12\nmfu: 0.4\n"
                 "price_usd_per_gpu_hour: 3.99\n")
    r = _cli("estimate", "--scenario", str(a), "--compare", str(b), "--format", "json")
    assert r.returncode == 0, r.stderr
    sa, sb = json.loads(r.stdout)["scenarios"]
    d = simulate_ledger(own_ranged_scenario(estimate_ledger(a)), samples=100_000, seed=0)
    q = np.quantile(d.total_usd, [0.1, 0.5, 0.9])
    assert [sa[f"total_p{k}_usd"] for k in (10, 50, 90)] == pytest.approx(list(q), rel=1e-12)
    assert sa["total_p10_usd"] < sa["total_usd"] < sa["total_p90_usd"]
    assert "total_p10_usd" not in sb  # B ranges nothing of its own: one number
    text = " ".join(_cli("estimate", "--scenario", str(a), "--compare", str(b)).stdout.split())
    assert "each bill's own total, P10 to P90 over these draws (the scenarios' own ranges " \
        "alone; each bill's headline range adds illustrative spreads and is wider): A (" in text
    assert "one number (no range of its own moves its total)" in text
    # the shipped scenarios range only the RL model's factor, which the exploratory line nets
    # out: their totals move only by the storage priced over the schedule the factor lengthens
    # (dollars), so no "$270M–$270M" (a review) but the figure with what moves it
    r = _cli("estimate", "--scenario", str(llmcost.SCENARIO_DIR / "default.yaml"), "--compare",
             str(llmcost.SCENARIO_DIR / "llama-3.1-405b.yaml"))
    said = " ".join(r.stdout.split())
    assert r.returncode == 0 and "$270M–$270M" not in said and "$5.67M–$5.67M" not in said
    assert re.search(r"A \(70B dense model, [^)]*\) \$5\.67M \(its own ranges move it by "
                     r"\$[\d.]+ from P10 to P90\)", said), said


def test_the_estimate_prints_the_final_run_alone():
    """An engineer circulating "the run's cost" had to add lines up: the exploratory runs
    (Cottier et al. 2024's 1.19x default) were half the default bill. The final run alone is
    the paid pre-training GPU-hours at the bill's rate: the default scenario's 644,930 GPU-h
    paid (623,963 ideal ÷ goodput 96.7%) at its given $3.99 ≈ $2.57M."""
    bill = estimate_ledger(llmcost.SCENARIO_DIR / "default.yaml")
    f = bill.figures
    assert f["final_run_usd"] == pytest.approx(f["paid_gpu_hours"] * 3.99, rel=1e-6)
    assert f["final_run_usd"] == pytest.approx(2.57e6, rel=0.01)
    text = " ".join(bill_text(bill, columns=100).split())
    assert (f"the final training run alone (the pre-training GPU-hours paid, failures and "
            f"restarts included, at the bill's rate): {fmt_usd(f['final_run_usd'])}, "
            f"{f['final_run_usd'] / bill.total_usd:.1%} of the total") in text


def test_a_deadline_says_the_phases_after_the_main_run_are_outside_it(tmp_path):
    """A trial's 30 days for a 15T-token 70B run with an 800B-token phase at 131,072 tokens was
    answered with the main run's days, the phase unsaid. The deadline bounds the main run;
    the phase runs after it (as Llama 3's long-context stage followed pre-training,
    arXiv:2407.21783 §3.4.2), and the answer now says so."""
    without = " ".join(_cli("estimate", "--scenario", str(trial_8gpu_yaml(tmp_path)),
                            "--deadline-days", "90").stdout.split())
    assert "not counted in the deadline" not in without
    text = open(trial_8gpu_yaml(tmp_path), encoding="utf-8").read() + \
        "phases: [{name: long-context, tokens: 1.0e8, seq_len: 2048}]\n"
    path = tmp_path / "phase.yaml"
    path.write_text(text)
    out = " ".join(_cli("estimate", "--scenario", str(path), "--deadline-days", "90")
                   .stdout.split())
    assert "GPUs to meet the deadline: " in out
    assert "the pre-training phase after the main run (phases) is not counted in the " \
        "deadline" in out


def test_a_rollout_tp_the_report_chose_is_said_beside_the_rl_line(tmp_path):
    # a new-user trial: rl_gpus 3 with no rl_rollout_tp was priced on 3 replicas of one GPU
    # (the notebooks' TP 4 does not divide 3 GPUs; report.choose_rollout_tp takes the nearest
    # that prices) without a word in `estimate`; given explicitly, TP 4 is refused by name
    base = ("model: llama-2-7b\naccelerator: H100-SXM\nn_gpus: 64\ntrain_tokens: 1e11\n"
            "seq_len: 4096\nmfu: 0.4\nprice_usd_per_gpu_hour: 3.0\nledger_rl: true\n"
            "rl_gpus: 3\n")
    said = " ".join(_cli("estimate", "--scenario", str(_yaml(tmp_path, base))).stdout.split())
    assert "days on 3 GPUs, not in the main run's wall clock; rl_rollout_tp=1: " \
        "chosen: the rollout TP nearest the notebooks' 4 at which the RL iteration can be " \
        "priced (at 4: rl_rollout_tp=4 must divide the 3 rollout GPUs" in said
    r = _cli("estimate", "--scenario", str(_yaml(tmp_path, base + "rl_rollout_tp: 4\n",
                                                 name="t.yaml")))
    assert r.returncode == 2 and "rl_rollout_tp=4" in r.stderr
    # a campaign billed because the scenario sizes it (rl_runs), ledger_rl not written: the
    # same words (a review found them tied to ledger_rl: true)
    sized = base.replace("ledger_rl: true\n", "rl_runs: 2\n")
    said = " ".join(_cli("estimate", "--scenario", str(_yaml(tmp_path, sized, name="u.yaml"))
                         ).stdout.split())
    assert "rl_rollout_tp=1: chosen: the rollout TP nearest the notebooks' 4" in said


def test_a_budget_under_the_bills_p90_says_how_many_draws_cost_more(tmp_path):
    # A finance trial: opt-1.3b on 16 A100-80GB with ledger_budget_usd 8,000: "the bill is 91%
    # of it" and nothing else, where 39% of the bill's own draws cost more (its P90 $12.0k).
    # The share is counted over the draws the text prints (the headline's), by hand here.
    body = ("model: opt-1.3b\naccelerator: A100-80GB\nn_gpus: 16\ntrain_tokens: 2.6e10\n"
            "seq_len: 2048\nmfu: 0.45\nprice_usd_per_gpu_hour: 1.8\n")
    path = _yaml(tmp_path, body)
    bill = estimate_ledger(path)
    budget = round(bill.total_usd * 1.1)
    path.write_text(body + f"ledger_budget_usd: {budget}\n")
    bill = estimate_ledger(path)
    head = ledger.headline_draws(bill.scenario, samples=2_000, seed=0)
    above = float(np.mean(head.draws.total_usd > budget))
    assert 0.05 < above < 0.5
    out = " ".join(_cli("estimate", "--scenario", str(path), "--samples", "2000").stdout.split())
    # every input one number: the draws are the glance's illustrative spreads, said so
    assert head.state == "illustrative"
    assert (f"the bill is {bill.total_usd / budget:.0%} of it, but "
            f"{llmcost.fmt_percent(above)} of its Monte Carlo draws (the illustrative spreads "
            "of the glance below, 2,000) cost more") in out


def test_a_budget_flag_written_as_text_says_how_to_write_it(tmp_path):
    # A finance trial: `--budget-usd 1.5M` got argparse's bare "invalid float value: '1.5M'"
    # where the scenario file's ledger_budget_usd says "write 1.5e+06"
    path = _yaml(tmp_path, "model: llama-2-70b\nprice_usd_per_gpu_hour: 3.99\n")
    for given, said in (("1.5M", "'1.5M' must be a number (write 1.5e+06 for 1.5M)"),
                        ("$1,500,000", "'$1,500,000' must be a number (write 1500000 for "
                                       "$1,500,000: a number with a currency sign and commas "
                                       "is read as text)")):
        res = _cli("estimate", "--scenario", str(path), "--budget-usd", given)
        assert res.returncode == 2 and f"argument --budget-usd: {said}" in res.stderr


def test_a_difference_every_draw_shares_is_one_figure():
    # an economist's compare read "+$264k to +$264k" on lines no range moves
    from llmcost.present.cli import _per_draw_words
    assert _per_draw_words({"difference_p10_usd": 264e3, "difference_p90_usd": 264e3}) == \
        "+$264k in every draw"
    assert _per_draw_words({"difference_p10_usd": 293e3, "difference_p90_usd": 329e3}) == \
        "+$293k to +$329k"


def test_a_listing_that_cuts_cells_says_where_the_whole_text_is(capsys):
    # a PI's `llmcost list params` cut 16 descriptions with "…" and said nothing more
    from llmcost.present.cli import main
    assert main(["list", "params"]) == 0
    out = capsys.readouterr().out
    cut = sum(line.count("…") for line in out.splitlines()[:-1])
    assert cut > 0 and out.rstrip().endswith(
        f"({cut} cells cut at 200 characters with \"…\": --format csv or json prints them whole)")
