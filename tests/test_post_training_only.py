"""A bill of post-training alone (``train_tokens: 0``: the base model taken as trained, a team
fine-tuning or running RL on a released model): what it bills, checked by hand, what it leaves
out and says, and every entry point that cannot price it refusing it with the reason.

Hand figures: Qwen2.5-7B's config.json (huggingface.co/Qwen/Qwen2.5-7B: 28 layers, hidden size
3,584, vocabulary 152,064, untied embeddings) and its parameter count, 7,615,616,512 (the
safetensors index; the model card's "7.61B"); the H100 SXM's dense BF16 peak, 989.4 TFLOP/s
(NVIDIA H100 Tensor Core GPU Architecture whitepaper, H100 SXM5 table); S3 Standard at
$0.023/GB-month (aws.amazon.com/s3/pricing, first 50 TB)."""
import subprocess
import sys

import numpy as np
import pytest

from llmcost.bill.alternatives import price_routes
from llmcost.bill.ledger import build_ledger, exploratory_shift_words
from llmcost.bill.levers import fit_budget
from llmcost.bill.scenario import ScenarioError, load_scenario, post_training_only
from llmcost.present.glance import compare_days_words
from llmcost.present.report import run_report

PEAK_BF16_H100 = 989.4e12          # FLOP/s, dense (whitepaper)
L, D, V, S = 28, 3584, 152_064, 4096
N_QWEN25_7B = 7_615_616_512
#: training FLOPs per token on the MFU basis, by hand: 6 × the parameters a token's matmuls use
#: (all but the input embedding, a lookup) + the attention core, 12·L·s·d (QKᵀ and AV, forward
#: 4·L·s·d, backward twice that; full mask). Norms and biases (about 2e6 FLOP/token) are counted
#: in N here, which the bill's count of matmul parameters leaves out: 0.004% of the total, inside
#: the tolerance below, 0.1%.
FLOPS_PER_TOKEN = 6 * (N_QWEN25_7B - V * D) + 12 * L * S * D

BASE = dict(model="qwen2.5-7b", accelerator="H100-SXM", n_gpus=64, train_tokens=0, seq_len=S,
            global_batch_tokens=1_048_576, mfu=0.4, price_usd_per_gpu_hour=2.0,
            fail_rate_per_gpu_year=0.0, fail_planned_per_day=0.0)


def _sft_bill(**more):
    return build_ledger({**BASE, "ledger_sft_tokens": 5e9, **more})


def test_sft_alone_is_billed_as_hand_derived():
    bill = _sft_bill()
    # no failures: goodput 1, so GPU-h = D × F ÷ (peak × MFU) ÷ 3,600
    gpu_h = 5e9 * FLOPS_PER_TOKEN / (PEAK_BF16_H100 * 0.4) / 3600.0
    assert bill.line("post.sft").usd == pytest.approx(gpu_h * 2.0, rel=1e-3)
    assert bill.line("post.sft").usd == pytest.approx(332.4, rel=2e-3)   # 166.2 GPU-h × $2
    # the schedule: those GPU-hours on the scenario's 64 GPUs, one after the other
    days = gpu_h / (64 * 24.0)
    assert bill.figures["schedule_days"]["post_training"] == pytest.approx(days, rel=1e-3)
    assert bill.figures["schedule_days"]["final_run"] == 0.0
    months = days * 12 / 365.25
    assert bill.figures["project_months"] == pytest.approx(months, rel=1e-3)
    assert "exploration and post-training one after the other" in \
        bill.figures["project_months_source"]
    # the dataset line stores the fine-tuning tokens, 4 bytes each, for the project + 12 months
    ds = 5e9 * 4 / 2**30 * (12 + months) * 0.023
    assert bill.line("storage.datasets").usd == pytest.approx(ds, rel=1e-3)
    assert bill.figures["goodput"] is None and bill.figures["final_run_usd"] == 0.0


def test_what_it_leaves_out_is_said_and_not_priced():
    bill = _sft_bill()
    for key in ("compute.pretraining.main", "compute.failures"):
        ln = bill.line(key)
        assert ln.usd == 0.0 and ln.status == "not given"
        assert "train_tokens: 0: the base model is taken as trained" in ln.how
    for key in ("compute.exploratory", "storage.checkpoints"):   # no made-up number
        ln = bill.line(key)
        assert ln.usd is None and ln.status == "not modelled"
        assert "without pre-training" in ln.how
    assert "ledger_exploratory_runs" in bill.line("compute.exploratory").how
    rerun = bill.line("reserve.rerun")
    assert rerun.usd is None and rerun.status == "not modelled"
    assert "no final pre-training run to rerun" in rerun.how
    # the total is the priced lines' sum
    priced = sum(float(ln.usd) for ln in bill.lines if ln.usd is not None)
    assert bill.total_usd == pytest.approx(priced, rel=1e-12)
    assert bill.total_usd == pytest.approx(bill.line("post.sft").usd
                                           + bill.line("storage.datasets").usd, rel=1e-9)


def test_listed_exploratory_runs_are_billed():
    bill = _sft_bill(ledger_exploratory_runs=[{"name": "lr sweep", "gpu_hours": 500.0}])
    ln = bill.line("compute.exploratory")
    assert ln.status == "modelled" and ln.usd == pytest.approx(500.0 * 2.0)


def test_rl_campaign_is_the_same_as_beside_a_pre_training_run():
    """Invariance, not a world check: a campaign's cost does not depend on whether the bill
    also pre-trains the model (the RL line's own sources are tested in test_rl*)."""
    rl = dict(rl_iterations=100, rl_runs=1, rl_gpus=64)
    alone = build_ledger({**BASE, **rl})
    both = build_ledger({**BASE, **rl, "train_tokens": 1e11})
    assert alone.line("post.rl").usd == pytest.approx(both.line("post.rl").usd, rel=1e-9)
    assert alone.line("post.rl").usd > 0
    assert alone.line("compute.pretraining.main").usd == 0.0
    assert both.line("compute.pretraining.main").usd > 0


@pytest.mark.parametrize("more, words", [
    ({}, r"train_tokens=0 bills post-training alone \(the base model taken as trained\), and "
         r"the scenario gives none: give ledger_sft_tokens"),
    ({"ledger_sft_tokens": 1e9, "phases": [{"name": "long", "tokens": 1e9, "seq_len": 8192}]},
     r"phases=\['long'\] with train_tokens=0: phases extend a pre-training run"),
    ({"ledger_sft_tokens": 1e9, "ledger_published_defaults": True},
     r"ledger_published_defaults=true with train_tokens=0: the published defaults are a "
     r"frontier pre-training project's"),
    ({"ledger_rl": False, "rl_iterations": 100}, r"train_tokens=0 bills post-training alone"),
])
def test_refused_where_there_is_nothing_to_bill(more, words):
    with pytest.raises(ScenarioError, match=words):
        build_ledger({**BASE, **more})


def test_a_file_is_refused_on_load_and_a_negative_count_as_a_slip(tmp_path):
    f = tmp_path / "none.yaml"
    f.write_text("model: qwen2.5-7b\ntrain_tokens: 0\n")
    with pytest.raises(ScenarioError, match="none.yaml: train_tokens=0 bills post-training"):
        load_scenario(f)
    f.write_text("model: qwen2.5-7b\ntrain_tokens: 0\nrl_iterations: 10\n")
    assert load_scenario(f)["train_tokens"] == 0          # an RL campaign is enough
    with pytest.raises(ScenarioError, match=r"train_tokens=-1.0 must be >= 0"):
        build_ledger({**BASE, "train_tokens": -1.0, "ledger_sft_tokens": 1e9})


def test_panels_of_a_pre_training_run_refuse_it():
    from llmcost.present import widgets
    with pytest.raises(ValueError, match="train_tokens=0 must be > 0 here: this panel shows a "
                                         "pre-training run"):
        widgets.flops_explorer("llama-2-70b", "H100-SXM", train_tokens=0, mfu=0.4, n_gpus=2048,
                               price_usd_per_gpu_hour=3.99)


def test_predicate():
    assert post_training_only({"train_tokens": 0}) is True
    assert post_training_only({"train_tokens": 1e12}) is False
    assert post_training_only({}) is False                 # a scenario without the key
    with pytest.raises(ValueError, match="scenario="):
        post_training_only("train_tokens: 0")


def test_entry_points_that_fit_a_pre_training_run_refuse_it(tmp_path):
    s = {**BASE, "ledger_sft_tokens": 5e9}
    with pytest.raises(ValueError, match=r"train_tokens=0 \(a bill of post-training alone\)"):
        fit_budget(s, budget_usd=1e6)
    with pytest.raises(ValueError, match="a deadline the pre-training run's GPUs"):
        fit_budget(s, deadline_days=3)
    f = tmp_path / "post.yaml"
    f.write_text("model: qwen2.5-7b\nn_gpus: 64\ntrain_tokens: 0\nledger_sft_tokens: 5.0e9\n")
    out = tmp_path / "report"
    with pytest.raises(ScenarioError, match="the report's pages walk a pre-training run"):
        run_report(f, out)
    assert not out.exists()                               # nothing written


def test_alternatives_and_compare_say_there_is_no_run():
    s = {**BASE, "ledger_sft_tokens": 5e9}
    routes = price_routes(s).set_index("route")
    assert np.isnan(routes.loc["pre-train from scratch", "one_off_usd"])
    assert "bills post-training alone" in routes.loc["pre-train from scratch", "how"]
    assert routes.loc["full fine-tune (SFT)", "one_off_usd"] > 0
    alone, full = _sft_bill(), build_ledger({**BASE, "train_tokens": 1e11,
                                             "ledger_sft_tokens": 5e9})
    words = compare_days_words([alone, full])
    assert words.startswith("main run's wall clock, failures included: A no pre-training run, "
                            "B ")
    # the netting of one side's multiplier is not the other's: nothing said of it
    assert exploratory_shift_words(alone, full) is None


def test_estimate_prints_it(tmp_path):
    f = tmp_path / "post.yaml"
    f.write_text("model: qwen2.5-7b\nn_gpus: 64\ntrain_tokens: 0\nmfu: 0.4\n"
                 "price_usd_per_gpu_hour: 2.0\nledger_sft_tokens: 5.0e9\n")
    r = subprocess.run([sys.executable, "-m", "llmcost", "estimate", "--scenario", str(f),
                        "--samples", "200"], capture_output=True, text=True, env=None)
    assert r.returncode == 0, r.stderr
    assert "post-training alone (train_tokens: 0)" in r.stdout
    assert "no pre-training billed" in r.stdout
    assert "not modelled" in r.stdout
    r = subprocess.run([sys.executable, "-m", "llmcost", "estimate", "--scenario", str(f),
                        "--budget-usd", "1e6"], capture_output=True, text=True)
    assert r.returncode != 0 and "train_tokens=0 (a bill of post-training alone)" in r.stderr


def _estimate(tmp_path, text, *extra):
    f = tmp_path / "s.yaml"
    f.write_text(text)
    return subprocess.run([sys.executable, "-m", "llmcost", "estimate", "--scenario", str(f),
                           "--samples", "200", *extra], capture_output=True, text=True)


def test_ranges_and_drawn_lengths_are_priced_per_draw(tmp_path):
    """A ranged SFT token count, and an RL campaign's drawn time lengthening the project that
    people, operations and logs are priced over (arrays in every draw): a trial's people line
    and a review's ranged tokens broke the draws."""
    r = _estimate(tmp_path, "model: qwen2.5-7b\nn_gpus: 64\ntrain_tokens: 0\nmfu: 0.4\n"
                  "ledger_sft_tokens: {low: 2.0e9, mode: 5.0e9, high: 1.0e10}\n")
    assert r.returncode == 0, r.stderr
    r = _estimate(tmp_path, "model: llama-3.1-8b\nn_gpus: 8\ntrain_tokens: 0\n"
                  "rl_iterations: 100\nrl_runs: 1\nrl_gpus: 8\nrl_rollout_tp: 1\n"
                  "ledger_people: [{role: research, fte: 1}]\n"
                  "ledger_operations_usd_per_month: 10000\nledger_log_bytes: 1.0e12\n")
    assert r.returncode == 0, r.stderr
    # an RL campaign alone prices nothing at the MFU or the main seq_len: neither is said
    head = r.stdout.split("\n\n")[0].replace("\n  ", " ")
    assert "no line at the MFU" in head and "sequences" not in head
    assert "mfu=" not in r.stdout and "no seq_len" not in r.stdout
    assert "post-training schedule:" in r.stdout and "(the RL campaign on its rl_gpus)" in \
        r.stdout.replace("\n  ", " ")


def test_lora_alone_checks_no_full_fine_tune_memory(tmp_path):
    """LoRA on one H100 of an 8B model: frozen BF16 weights, 16 GB, fit; the full fine-tune's
    states (16 B/param, 128 GB) do not, and nothing here runs one."""
    r = _estimate(tmp_path, "model: llama-3.1-8b\nn_gpus: 1\ntrain_tokens: 0\nmfu: 0.35\n"
                  "price_usd_per_gpu_hour: 2.49\nledger_lora_tokens: 5.0e8\n")
    assert r.returncode == 0, r.stderr
    assert "LoRA's memory (frozen weights and adapters) is not modelled" in \
        r.stdout.replace("\n  ", " ")
    # SFT on that one GPU is refused: its states cannot fit
    r = _estimate(tmp_path, "model: llama-3.1-8b\nn_gpus: 1\ntrain_tokens: 0\nmfu: 0.35\n"
                  "ledger_sft_tokens: 5.0e8\n")
    assert r.returncode != 0 and "GB" in r.stderr


def test_a_short_run_does_not_move_a_long_one():
    """The checkpoint storage of a bill without a main run is sized for its longest run (CPT
    here), so adding a short SFT leaves CPT's line alone (a review: $13,557.93 → $13,635.63)."""
    s = {**BASE, "fail_rate_per_gpu_year": 0.173, "fail_planned_per_day": 0.87,
         "ledger_cpt_tokens": 2e11}
    alone = build_ledger(s)
    both = build_ledger({**s, "ledger_sft_tokens": 1e7})
    assert both.line("post.cpt").usd == pytest.approx(alone.line("post.cpt").usd, rel=1e-12)
    assert 0.9 < float(alone.line("post.cpt").how.split("goodput ")[1].split("%")[0]) / 100 < 1


@pytest.mark.parametrize("more, words", [
    ({"ledger_exploratory_fraction": 0.5}, "ledger_exploratory_fraction=0.5 with "
                                           "train_tokens=0"),
    ({"ledger_rerun_probability": 0.2}, "the rerun reserve reruns the final pre-training run"),
])
def test_inputs_it_cannot_apply_are_refused(more, words):
    with pytest.raises(ScenarioError, match=words):
        build_ledger({**BASE, "ledger_sft_tokens": 1e9, **more})


def test_checkpoint_storage_keys_refused_in_a_file(tmp_path):
    f = tmp_path / "s.yaml"
    f.write_text("model: qwen2.5-7b\ntrain_tokens: 0\nledger_sft_tokens: 1.0e9\n"
                 "ckpt_retention_months: 24\n")
    with pytest.raises(ScenarioError, match="ckpt_retention_months=24.0 with train_tokens=0"):
        load_scenario(f)


def test_compare_per_draw_says_not_modelled(tmp_path):
    f = tmp_path / "b.yaml"
    f.write_text("model: qwen2.5-7b\nn_gpus: 64\ntrain_tokens: 1.0e11\nmfu: 0.4\n"
                 "price_usd_per_gpu_hour: [1.5, 2.5]\n")
    r = _estimate(tmp_path, "model: qwen2.5-7b\nn_gpus: 64\ntrain_tokens: 0\nmfu: 0.4\n"
                  "price_usd_per_gpu_hour: [1.5, 2.5]\nledger_sft_tokens: 5.0e9\n",
                  "--compare", str(f), "--format", "csv")
    assert r.returncode == 0, r.stderr
    head, row = (next(x for x in r.stdout.splitlines() if x.startswith(k))
                 for k in ("key,", "compute.exploratory,"))
    names, cells = head.split(","), row.split(",")   # key, line, A usd, B usd, differences
    assert names[4:] == ["difference usd", "difference p10 usd", "difference p50 usd",
                         "difference p90 usd"]
    assert cells[2] == "" and float(cells[3]) > 0
    # no difference where A does not model the line: its point and its every draw
    assert cells[4:] == ["", "", "", ""]


def test_two_bills_of_post_training_alone_set_no_run_side_by_side():
    a, b = _sft_bill(), _sft_bill(ledger_sft_tokens=1e10)
    words = compare_days_words([a, b])
    assert "no pre-training run" not in words
    # each schedule said: 166 and 332 GPU-h on 64 GPUs, 2.6 h and 5.19 h
    assert words.startswith("post-training schedule (its compute one part after another): "
                            "A 2.6 h, B 5.19 h"), words


def test_pre_training_functions_refuse_it():
    from llmcost.bill import ledger, levers
    bill = _sft_bill()
    for call in (lambda: ledger.claim_questions(bill), lambda: ledger.count_gap_words(bill),
                 lambda: ledger.plan_questions(bill),
                 lambda: levers.rank_levers({**BASE, "ledger_sft_tokens": 5e9}),
                 lambda: levers.false_economies({**BASE, "ledger_sft_tokens": 5e9})):
        with pytest.raises(ValueError, match=r"train_tokens=0 \(a bill of post-training "
                                             r"alone\)"):
            call()


def test_a_range_that_can_bill_a_fine_tune_counts_as_one():
    from llmcost.bill.ranges import parse_range
    from llmcost.bill.scenario import prices_at_mfu, trains_on_n_gpus
    r = parse_range("ledger_sft_tokens", {"low": 0, "mode": 0, "high": 1e10})
    s = {"train_tokens": 0, "ledger_sft_tokens": r}
    assert trains_on_n_gpus(s) and prices_at_mfu(s)
    assert not trains_on_n_gpus({"train_tokens": 0, "ledger_lora_tokens": 1e9})
    assert prices_at_mfu({"train_tokens": 0, "ledger_lora_tokens": 1e9})
    assert not prices_at_mfu({"train_tokens": 0, "rl_iterations": 10})


def test_file_rules(tmp_path):
    f = tmp_path / "s.yaml"
    f.write_text("model: qwen2.5-7b\ntrain_tokens: 0\nledger_sft_tokens: 1.0e9\n"
                 "ledger_rerun_probability: 0\n")
    assert load_scenario(f)["ledger_rerun_probability"] == 0     # 0 reruns nothing: allowed
    f.write_text("model: qwen2.5-7b\ntrain_tokens: 0\nrl_iterations: 10\nmfu: predict\n")
    with pytest.raises(ScenarioError, match="mfu=predict with train_tokens=0 and no "
                                            "fine-tuning tokens"):
        load_scenario(f)
    with pytest.raises(ScenarioError, match=r"ledger_rerun_probability=uniform"):
        build_ledger({**BASE, "ledger_sft_tokens": 1e9, "ledger_rerun_probability": [0.1, 0.2]})


def test_rl_on_a_released_model_is_warned_against_its_own_context_only():
    from llmcost.bill.checks import rl_context_warning
    from llmcost.bill.scenario import LEDGER_DEFAULTS
    v = {**LEDGER_DEFAULTS, "train_tokens": 0, "seq_len": 4096, "ledger_rl": True,
         "rl_iterations": 10, "rl_prompt_tokens": 512, "rl_response_tokens": 1000}
    # Qwen3-30B-A3B declares a 40,960-token context (its config.json): 16,896 tokens fit, no
    # long-context phase to advise
    assert rl_context_warning({**v, "model": "qwen3-30b-a3b",
                               "rl_response_tokens_max": 16384}) is None
    # Llama 2 7B: pre-trained at 4,096 (Touvron et al. 2023, Table 1), no longer context in
    # the catalogue: 8,512 tokens said, extended by continued pre-training, never phases
    w = rl_context_warning({**v, "model": "llama-2-7b", "rl_response_tokens_max": 8000})
    assert "beyond the 4,096-token length llama-2-7b was pre-trained at" in w
    assert "ledger_cpt_tokens" in w and "phases" not in w


def test_committed_capacity_of_an_rl_campaign_alone_is_its_rl_gpus():
    from llmcost.bill.validation import magnitude_warnings
    s = {**BASE, "pricing": "reserved", "price_usd_per_gpu_hour": 2.0, "n_gpus": 64,
         "rl_gpus": 16, "rl_iterations": 100, "rl_runs": 1, "ledger_project_months": 1.0}
    bill = build_ledger(s)
    said = " ".join(magnitude_warnings(bill.scenario, bill))
    assert "16 GPUs" in said and "64 GPUs" not in said


def test_an_ordinary_bill_keeps_its_words():
    """Regression pin: the logs line of an ordinary bill says its months to one decimal, as
    before this change (a review caught "18" for "18.0")."""
    bill = build_ledger({**BASE, "train_tokens": 1e11, "ledger_log_bytes": 1e12,
                         "ledger_project_months": 6.0})
    assert "kept 18.0 months on s3-standard" in bill.line("storage.logs").source


def test_a_fine_tune_that_loses_most_of_its_hours_is_warned_of():
    """Spot pre-emptions of 3 per node-day on 512 H100 (64 nodes: one every 7.5 min): a
    5e11-token continued pre-training keeps a small part of its hours, said beside the line's
    own words (a review read 23% in the line alone)."""
    from llmcost.bill.validation import magnitude_warnings
    s = {**BASE, "n_gpus": 512, "pricing": "spot", "price_usd_per_gpu_hour": 2.0,
         "ledger_spot_preemptions_per_node_day": 3.0, "fail_rate_per_gpu_year": 0.173,
         "ledger_cpt_tokens": 5e11}
    bill = build_ledger(s)
    g = bill.figures["post_training_goodput"]["continued pre-training"]
    assert 0 < g < 0.5
    assert f"goodput {g:.1%}" in bill.line("post.cpt").how
    said = [w for w in magnitude_warnings(bill.scenario, bill) if w.startswith("goodput")]
    assert len(said) == 1 and said[0].startswith(
        f"goodput {g:.0%}: the continued pre-training run pays {1 / g:.2f}× its ideal")
    assert "exploratory" not in said[0]
