"""The exploratory line nets out the post-training it bills on its own lines, and says so.

Source of the netting: Cottier et al. 2024, "The rising costs of training frontier AI models",
arXiv:2405.21015, §2.5 and App. A.6: total development compute is 1.2-4× the final run (a
log-normal 90% interval), "including experiments, failed attempts, evaluation and finetuning".
The bill's default exploratory fraction is the interval's median multiplier less one,
sqrt(1.2 × 4) − 1 = 1.19, and its own post-training and benchmark GPU-hours are inside that
multiplier, so

    exploratory GPU-h = max(0, 1.19 × final run's paid GPU-h
                               − post-training − benchmark GPU-h).

A trial found the consequence silent: adding an RL campaign left the total unchanged, and an RL
campaign larger than the multiplier set the line to $0 while the header still said the bill
"includes exploratory and failed runs at the sourced default" and the tornado ranked that input
with no swing. These tests derive the amounts by hand and check the words a user reads.
"""

import math

import numpy as np
import pytest
from _cli import run_cli

import llmcost
from llmcost import ledger
from llmcost.present import glance
from llmcost.present.cli import bill_text, compare_text

# Llama 2 70B's parameters (Touvron et al. 2023, Table 1; data/models.csv): 80 layers, d_model
# 8,192, 64 query and 8 KV heads of 128, SwiGLU d_ff 28,672, vocabulary 32,000, untied output
# layer, RMSNorm gains (2 per layer + the final one).
L, H, KV, DH, FF, V = 80, 8192, 8, 128, 28672, 32000
N_70B = L * (2 * H * H + 2 * H * KV * DH) + L * 3 * H * FF + 2 * V * H + (2 * L + 1) * H
H100_BF16 = 989.4e12  # dense BF16 peak (the H100 SXM datasheet's 1,978.9 TF is with sparsity)
PRICE = 3.99  # data/scenarios/default.yaml's Lambda on-demand H100 SXM price
# Cottier et al. 2024's median multiplier, less the final run itself
FRACTION = math.sqrt(1.2 * 4) - 1


def _dpo(iterations: int) -> dict:
    """A DPO campaign on the default 70B run, sized by hand (no generation: per preference
    pair, policy forward + backward 6·N and reference forward 2·N per token over the prompt and
    both responses; Rafailov et al. 2023, Kaplan et al. 2020 §2.1), at a given 40% MFU."""
    return {"price_usd_per_gpu_hour": PRICE, "rl_algorithm": "dpo", "rl_prompts_per_step": 32,
            "rl_prompt_tokens": 512, "rl_response_tokens": 1024,
            "rl_response_tokens_max": 1024, "rl_iterations": iterations, "rl_runs": 1,
            "rl_train_mfu": 0.4}


def _dpo_gpu_hours(iterations: int) -> float:
    tokens = 32 * (2 * 512 + 2 * 1024)  # 98,304 tokens per iteration
    return 8 * N_70B * tokens / (H100_BF16 * 0.4) / 3600 * iterations


def test_the_default_multiplier_is_cottier_et_al_s_median():
    assert ledger.default("exploratory_fraction") == pytest.approx(FRACTION, abs=0.005)
    assert "arXiv:2405.21015" in ledger.default_rows()["exploratory_fraction"]["source"]


def test_rl_moves_money_out_of_the_exploratory_line_by_hand_and_says_so():
    base = ledger.build_ledger({"price_usd_per_gpu_hour": PRICE})
    paid = base.figures["paid_gpu_hours"]
    rl_h = _dpo_gpu_hours(100_000)
    # 5.42e16 FLOP ÷ 396 TFLOP/s = 137 GPU-s per iteration, × 100,000 iterations
    assert rl_h == pytest.approx(3807.4, abs=0.1)
    bill = ledger.build_ledger(_dpo(100_000))
    explore = bill.line("compute.exploratory")
    assert bill.figures["rl_gpu_hours"] == pytest.approx(rl_h, rel=1e-9)
    assert explore.usd == pytest.approx((1.19 * paid - rl_h) * PRICE, rel=1e-9)
    # moved, not added: the compute lines; the dataset storage is priced over the project,
    # whose convention is the compute schedule, which the campaign (on its own GPUs) lengthens
    ds = "storage.datasets"
    assert bill.total_usd - bill.usd(ds) == pytest.approx(base.total_usd - base.usd(ds),
                                                          rel=1e-9)
    assert bill.figures["schedule_days"]["post_training"] > \
        base.figures["schedule_days"]["post_training"] and bill.usd(ds) > base.usd(ds)
    # the label names what it is net of, the header says how much and that it adds $0
    assert base.line("compute.exploratory").line == "exploratory and failed runs"
    assert explore.line == "exploratory and failed runs, net of RL post-training"
    words = ledger.exploratory_words(bill)
    assert words.startswith(f"net of RL post-training's {rl_h:,.0f} GPU-h "
                            f"(${rl_h * PRICE / 1e3:.1f}k)")  # 3,807 × $3.99 = $15.2k
    assert f"(its part beyond the final run, 1.19x that run: {1.19 * paid:,.0f} GPU-h" in words
    # of compute: its days lengthen the schedule the project-long lines are priced over (a
    # review read "adds $0.00" beside a people line larger with the RL campaign)
    assert "the RL post-training line moves that money out of the exploratory line and adds "\
        "$0.00 of compute to the total (their days still lengthen the compute schedule that " \
        "people, operations and storage are priced over)" in words
    assert "Cottier et al. 2024" in words
    given = ledger.build_ledger({**_dpo(100_000), "ledger_project_months": 3})
    assert ledger.exploratory_words(given).endswith("$0.00 of compute to the total")
    assert ledger.exploratory_words(base) is None
    # several netted lines take the plural verbs (a trial read "lines move ... and adds")
    both = ledger.exploratory_words(ledger.build_ledger({**_dpo(100_000),
                                                         "ledger_eval_gpu_hours": 1000}))
    assert "the RL post-training and benchmark runs lines move that money out of the " \
        "exploratory line and add $0.00 of compute to the total" in both
    text = " ".join(bill_text(bill, columns=1000).split())
    assert ("includes exploratory and failed runs at the sourced default (1.19x the final "
            "run's GPU-hours, Cottier et al. 2024; ledger_exploratory_fraction or "
            f"ledger_exploratory_runs to change it), {words}") in text
    n = bill.figures["exploratory_netting"]
    assert n["netted"] == {"RL post-training": pytest.approx(rl_h, rel=1e-9)}
    assert n["clamped"] is False and n["gross_gpu_hours"] == pytest.approx(1.19 * paid)


def test_post_training_beyond_the_multiplier_clamps_the_line_and_says_so():
    base = ledger.build_ledger({"price_usd_per_gpu_hour": PRICE})
    paid = base.figures["paid_gpu_hours"]
    # a campaign of 3.2 final runs: above 1.19 × paid, and above 3.0 × paid, the top of
    # Cottier et al.'s interval, so that every illustrative draw is clamped too
    k = math.ceil(3.2 * paid / _dpo_gpu_hours(1))
    rl_h = _dpo_gpu_hours(k)
    assert rl_h > 3.0 * paid
    bill = ledger.build_ledger(_dpo(k))
    explore = bill.line("compute.exploratory")
    assert explore.usd == 0.0
    assert explore.line == ("exploratory and failed runs (none left: RL post-training exceeds "
                            "the multiplier)")
    # the total grows by the excess only: RL − 1.19 × paid (and the dataset storage over the
    # longer schedule the campaign makes)
    ds = "storage.datasets"
    assert (bill.total_usd - bill.usd(ds)) - (base.total_usd - base.usd(ds)) == pytest.approx(
        (rl_h - 1.19 * paid) * PRICE, rel=1e-9)
    words = ledger.exploratory_words(bill)
    assert words.startswith("$0.00: RL post-training's")
    assert f"only the excess, {llmcost.fmt_usd((rl_h - 1.19 * paid) * PRICE)}," in words
    assert "left out of the spread" in words
    text = " ".join(bill_text(bill, columns=1000).split())
    assert "includes exploratory" not in text
    assert "ledger_exploratory_runs to change it) is $0.00: RL post-training's" in text
    # the tornado: no zero-swing row for the exploratory fraction; why, in unranged_inputs
    assert ledger.exploratory_all_clamped(bill)
    assert "ledger_exploratory_fraction" not in ledger.illustrative_ranges(bill)
    head = ledger.headline_draws(bill.scenario, samples=200)
    assert "ledger_exploratory_fraction" not in set(head.draws.tornado()["input"]) | set(
        head.draws.ranges)
    why = ledger.unranged_inputs(bill, head.draws.ranges)["ledger_exploratory_fraction"]
    assert f"the {rl_h:,.0f} GPU-h of RL post-training it nets out exceed even the top" in why
    # between 1.19 and 3.0 final runs: the point is clamped, the range still moves the line
    mid = ledger.build_ledger(_dpo(math.ceil(2.0 * paid / _dpo_gpu_hours(1))))
    assert mid.line("compute.exploratory").usd == 0.0
    assert not ledger.exploratory_all_clamped(mid)
    assert "ledger_exploratory_fraction" in ledger.illustrative_ranges(mid)
    assert "left out of the spread" not in ledger.exploratory_words(mid)


def test_compare_says_the_rl_line_moved_money_out_of_the_exploratory_line():
    a = ledger.build_ledger({"price_usd_per_gpu_hour": PRICE})
    b = ledger.build_ledger(_dpo(100_000))
    rl_usd = _dpo_gpu_hours(100_000) * PRICE
    df = glance.compare_bills([a, b], ("A", "B"), samples=10)
    note = df.attrs["exploratory_note"]
    assert note == ledger.exploratory_shift_words(a, b)
    assert (f"RL post-training's GPU-hours cost {llmcost.fmt_usd(rl_usd)} more in B than in A, "
            f"and the exploratory line deducts {llmcost.fmt_usd(rl_usd)} more of them (beside "
            "what the final run's own change moves it), so RL post-training moves the total by "
            "$0.00") in note
    text = " ".join(compare_text(df, ("A", "B"), ("a.yaml", "b.yaml"), [a, b],
                                 columns=1000).split())
    assert f"exploratory and failed runs: {note}." in text
    assert "Exploratory and failed runs: net of RL post-training" in glance.compare_html(
        df, ("A", "B"))
    # the index names the bills as its columns do (a trial read "in B than in A" beside columns
    # headed with the scenarios' names)
    named = glance.compare_bills([a, b], ("base", "with DPO"), samples=10)
    assert "more in with DPO than in base" in glance.compare_html(named, ("base", "with DPO"))
    with pytest.raises(ValueError, match="names="):
        ledger.exploratory_shift_words(a, b, names=("only one",))
    # back the other way: the money goes back into the exploratory line
    assert "less in B than in A, and the exploratory line deducts" in \
        ledger.exploratory_shift_words(b, a)
    assert ledger.exploratory_shift_words(a, a) is None


def test_compare_of_two_bills_whose_exploratory_line_is_zero_on_both_sides():
    # A trial (GRPO on a stand-in 1B-token pre-training run, 64 H100 against 32 B200): both
    # bills' exploratory lines $0.00, RL −$490 and the total −$454 in the table, while the note
    # said "the exploratory line deducts $43.41 more of them ... so RL post-training moves the
    # total by −$534" (the change of the multiplier's budget, a final-run change, put on RL).
    # By hand: netted lines + exploratory = max(g, n) per bill; with n > g on both sides the
    # RL lines reach the total whole, R = Δ = n_B − n_A, and the line deducts nothing more.
    a = ledger.build_ledger({**_dpo(20_000), "train_tokens": 1e9})
    b = ledger.build_ledger({**_dpo(30_000), "train_tokens": 2e9})
    for x in (a, b):
        assert x.line("compute.exploratory").usd == 0.0
    # DPO's line says what DPO runs (no rollouts, no reward model: Rafailov et al. 2023)
    assert a.line("post.rl").line == ("RL post-training (DPO: policy and reference passes over "
                                      "preference pairs)")
    d = (_dpo_gpu_hours(30_000) - _dpo_gpu_hours(20_000)) * PRICE
    assert b.line("post.rl").usd - a.line("post.rl").usd == pytest.approx(d, rel=1e-6)
    note = ledger.exploratory_shift_words(a, b)
    assert "the exploratory line deducts no more of them" in note
    assert note.endswith(f"so RL post-training moves the total by +{llmcost.fmt_usd(d)}")
    # mixed: A under the multiplier (RL absorbed), B above it by hand: R = ½[max(g_A, n_B) −
    # max(g_A, n_A) + max(g_B, n_B) − max(g_B, n_A)] with n_A < g_A = g_B < n_B: n_B − g_A
    c = ledger.build_ledger({**_dpo(1_000), "train_tokens": 2e9})
    e = ledger.build_ledger({**_dpo(60_000), "train_tokens": 2e9})
    gc, ge = (x.figures["exploratory_netting"]["gross_gpu_hours"] * PRICE for x in (c, e))
    nc, ne = (x.figures["exploratory_netting"]["netted_gpu_hours"] * PRICE for x in (c, e))
    assert gc == pytest.approx(ge) and nc < gc < ne
    assert ledger.exploratory_shift_words(c, e).endswith(
        f"so RL post-training moves the total by +{llmcost.fmt_usd(ne - gc)}")
    # final runs that differ too (a review): both clamped with n_A below g_B (4x the tokens in
    # B): the RL lines still reach the total whole, R = Δ
    f = ledger.build_ledger({**_dpo(60_000), "train_tokens": 4e9})
    g_f = f.figures["exploratory_netting"]["gross_gpu_hours"]
    n_a = a.figures["exploratory_netting"]["netted_gpu_hours"]
    assert n_a < g_f < f.figures["exploratory_netting"]["netted_gpu_hours"]
    assert f.line("compute.exploratory").usd == 0.0
    d_af = (_dpo_gpu_hours(60_000) - _dpo_gpu_hours(20_000)) * PRICE
    assert ledger.exploratory_shift_words(a, f).endswith(
        f"so RL post-training moves the total by +{llmcost.fmt_usd(d_af)}")
    # both under the multiplier with n_B above g_A (10x the tokens in B): the line absorbs it
    # all, R = 0, the exploratory line deducting the whole Δ
    u, v = (ledger.build_ledger({**_dpo(n), "train_tokens": t})
            for n, t in ((20_000, 1e10), (600_000, 1e11)))
    nu, gu = (u.figures["exploratory_netting"][k] for k in ("netted_gpu_hours", "gross_gpu_hours"))
    nv, gv = (v.figures["exploratory_netting"][k] for k in ("netted_gpu_hours", "gross_gpu_hours"))
    assert nu < gu < nv < gv
    words = ledger.exploratory_shift_words(u, v)
    assert words.endswith("so RL post-training moves the total by $0.00")
    assert f"deducts {llmcost.fmt_usd((nv - nu) * PRICE)} more of them" in words


def test_estimate_compare_from_the_command_line(tmp_path):
    # the trial's command, on scenario files: the note is printed under the table
    base = tmp_path / "a.yaml"
    base.write_text("price_usd_per_gpu_hour: 3.99\n")
    rl = tmp_path / "b.yaml"
    rl.write_text("".join(f"{k}: {v}\n" for k, v in _dpo(100_000).items()))
    r = run_cli("estimate", "--scenario", str(base), "--compare", str(rl))
    assert r.returncode == 0, r.stderr
    out = " ".join(r.stdout.split())
    assert "so RL post-training moves the total by $0.00." in out


def test_the_headline_note_says_what_the_line_nets_out():
    # notebook 00's headline figure (and the report's index): the status and what it nets out
    base = ledger.build_ledger({"price_usd_per_gpu_hour": PRICE})
    assert ledger.exploratory_note(base) == "default"
    rl_usd = _dpo_gpu_hours(100_000) * PRICE
    assert ledger.exploratory_note(ledger.build_ledger(_dpo(100_000))) == (
        f"default; net of RL post-training's {llmcost.fmt_usd(rl_usd)}, which Cottier et al.'s "
        "multiplier counts")
    paid = base.figures["paid_gpu_hours"]
    k = math.ceil(3.2 * paid / _dpo_gpu_hours(1))
    note = ledger.exploratory_note(ledger.build_ledger({**_dpo(k),
                                                        "ledger_exploratory_fraction": 0.5}))
    assert note == (f"modelled; $0: RL post-training's "
                    f"{llmcost.fmt_usd(_dpo_gpu_hours(k) * PRICE)} exceeds Cottier et al.'s "
                    f"multiplier ({llmcost.fmt_usd(0.5 * paid * PRICE)})")


def test_a_compared_line_is_labelled_with_words_true_of_both_bills():
    # a trial compared an RL campaign larger than the multiplier (A: "exploratory and failed
    # runs (none left: ...)", $0) with a bill without one (B: $3.06M) and read A's label on the
    # row: the row now says what both lines are (here A nets a DPO campaign, B nothing)
    a, b = ledger.build_ledger({"price_usd_per_gpu_hour": PRICE}), \
        ledger.build_ledger(_dpo(10_000_000))
    la, lb = (x.line("compute.exploratory") for x in (a, b))
    assert la.line == "exploratory and failed runs" != lb.line
    assert lb.line.startswith("exploratory and failed runs, net of RL post-training")
    df = ledger.compare(b, a, ("with RL", "without")).set_index("line")
    assert df.loc["exploratory and failed runs", "without usd"] == la.usd
    # a line both bills label alike keeps its label
    assert df.loc["total", "difference usd"] == pytest.approx(a.total_usd - b.total_usd)


def test_a_given_zero_fraction_is_said_before_the_netting():
    # a given 0 with an RL line netted out: the reason is the 0, not "the RL line exceeds the
    # top of Cottier et al.'s range (0 × the final run)" (a review read that)
    zero = ledger.build_ledger({**_dpo(100_000), "ledger_exploratory_fraction": 0})
    why = ledger.unranged_inputs(zero, ["mfu", "price_usd_per_gpu_hour"])
    assert why["ledger_exploratory_fraction"] == (
        "the scenario sets ledger_exploratory_fraction: 0 (no exploratory compute)")
    # a small given fraction the RL line exceeds: the range named is the scenario's own
    small = ledger.build_ledger({**_dpo(100_000), "ledger_exploratory_fraction": 0.001})
    assert ledger.exploratory_all_clamped(small)
    assert "exceed even the top of the range around the scenario's fraction" in \
        ledger.unranged_inputs(small, ["mfu"])["ledger_exploratory_fraction"]


def test_a_netted_plural_line_takes_a_plain_apostrophe():
    # the Llama 3.1 405B report's headline note read "net of RL post-training's $1.10M and
    # benchmark runs's $452": the plural line's possessive is "benchmark runs'". 1,000 benchmark
    # GPU-hours given (ledger_eval_gpu_hours) at $3.99 are $3,990 netted out of the line.
    bill = ledger.build_ledger({"price_usd_per_gpu_hour": PRICE, "ledger_eval_gpu_hours": 1000})
    assert ledger.exploratory_note(bill) == (
        f"default; net of benchmark runs' {llmcost.fmt_usd(1000 * PRICE)}, which Cottier et "
        "al.'s multiplier counts")
    assert "net of benchmark runs' 1,000 GPU-h ($3.99k)" in ledger.exploratory_words(bill)
    both = ledger.build_ledger({**_dpo(1000), "ledger_eval_gpu_hours": 1000})
    assert "RL post-training's " in ledger.exploratory_note(both)
    assert "runs's" not in ledger.exploratory_note(both) + ledger.exploratory_words(both)


def test_a_ranged_input_that_moves_nothing_is_no_driver():
    # A trial's RL-heavy scenario showed "exploratory and failed runs 4.42 | 4.42" in the
    # tornado and "a swing of $0.00" in the first sentences: its exploratory line is netted to
    # $0 (RL post-training exceeds the multiplier), so the fraction's P10 and P90 give the same
    # bill. By hand, as above: 3.2 final runs of RL exceed even the fraction's top, 3.0.
    base = ledger.build_ledger({"price_usd_per_gpu_hour": PRICE})
    k = math.ceil(3.2 * base.figures["paid_gpu_hours"] / _dpo_gpu_hours(1))
    draws = ledger.simulate_ledger({**_dpo(k), "ledger_exploratory_fraction": [0.5, 2.0],
                                    "mfu": [0.35, 0.45]}, samples=2000)
    tor = draws.tornado()
    assert list(tor["input"]) == ["mfu"] and (tor["swing_usd"] > 0).all()
    assert tor.attrs["no_swing"] == ["ledger_exploratory_fraction"]
    assert "the bill reads the same at its P10 and its P90" in tor.attrs["note"]


def test_the_rerun_reserve_is_netted_out_of_the_exploratory_multiplier():
    # A review found P(rerun) x the final run billed beside Cottier et al. 2024's development
    # multiplier, which counts "experiments, failed attempts, evaluation and fine-tuning"
    # together (arXiv:2405.21015, App. A.6): a relaunch of the final run is a failed attempt.
    # By hand: the exploratory line is max(0, 1.19 x F - 0.2 x F) GPU-h at the same rate, so
    # the rerun reserve, 0.2 x the final run, moves money out of it and adds $0 to the total.
    from llmcost.bill.ledger import build_ledger, exploratory_words
    base = {"model": "llama-3.1-8b", "accelerator": "H100-SXM", "n_gpus": 256,
            "train_tokens": 1.5e13, "seq_len": 8192, "mfu": 0.42,
            "price_usd_per_gpu_hour": 2.5}
    plain, rerun = build_ledger(base), build_ledger({**base, "ledger_rerun_probability": 0.2})
    final = plain.figures["final_run_usd"]
    assert rerun.line("reserve.rerun").usd == pytest.approx(0.2 * final, rel=1e-9)
    paid_h = plain.figures["paid_gpu_hours"]
    assert rerun.line("compute.exploratory").usd == pytest.approx(
        (1.19 - 0.2) * paid_h * 2.5, rel=1e-6)
    assert rerun.total_usd == pytest.approx(plain.total_usd, rel=1e-9)
    assert "net of the rerun reserve" in rerun.line("compute.exploratory").line
    how = rerun.line("compute.exploratory").how
    assert "GPU-h of the rerun reserve billed separately" in how and "the the" not in how
    said = exploratory_words(rerun)
    assert "fine-tuning, evaluation and failed attempts" in said
    assert "the rerun reserve line moves that money out of the exploratory line" in said
    # the rerun's expected GPU-hours still draw energy: every line's compute, the reserve's
    # included, is what the energy and emissions count (a review found them netted away)
    assert rerun.figures["all_gpu_hours"] == pytest.approx(plain.figures["all_gpu_hours"],
                                                           rel=1e-9)
    # on owned hardware the electricity is its own line: unchanged too, and so the total
    own = {**base, "pricing": "owned", "price_usd_per_gpu_hour": None}
    o0, o1 = build_ledger(own), build_ledger({**own, "ledger_rerun_probability": 0.2})
    assert o1.line("energy.electricity").usd == pytest.approx(
        o0.line("energy.electricity").usd, rel=1e-9)
    assert o1.total_usd == pytest.approx(o0.total_usd, rel=1e-9)
    # runs listed one by one are billed as given: nothing netted, the reserve adds
    runs = build_ledger({**base, "ledger_rerun_probability": 0.2,
                         "ledger_exploratory_runs": [{"name": "ablations", "gpu_hours": 1e4}]})
    assert runs.total_usd == pytest.approx(
        build_ledger({**base, "ledger_exploratory_runs": [
            {"name": "ablations", "gpu_hours": 1e4}]}).total_usd + 0.2 * final, rel=1e-6)


def test_more_rerun_risk_or_benchmarks_never_shorten_a_scheduled_project():
    # A review: with ledger_published_defaults the project is at least the compute schedule,
    # and the rerun and benchmark GPU-hours netted out of the exploratory line had left the
    # schedule too: P(rerun) 0 -> 0.5 took the 405B plan on 4,096 GPUs from 25.3 to 19.9
    # months and its bill down $32M. They stay on the calendar now: the project months and the
    # total do not fall as they rise (the total does not move: they are netted).
    from llmcost.bill.ledger import build_ledger, spend_timeline
    from llmcost.present.report import estimate_ledger
    from llmcost import SCENARIO_DIR
    sc = {**estimate_ledger(SCENARIO_DIR / "llama-3.1-405b.yaml").scenario,
          "n_gpus": 4096, "dp": 32}
    base = build_ledger(sc)
    assert base.figures["project_months"] > 10.15   # the schedule binds
    for change in ({"ledger_rerun_probability": 0.1}, {"ledger_rerun_probability": 0.5},
                   {"ledger_eval_gpu_hours": 1e6}):
        b = build_ledger({**sc, **change})
        assert b.figures["project_months"] == pytest.approx(base.figures["project_months"],
                                                            rel=1e-9), change
        assert b.total_usd == pytest.approx(base.total_usd, rel=1e-9), change
        # notebook 00's step 7 lays out the same schedule
        assert spend_timeline(b).attrs["schedule_days"] / (365.25 / 12) == pytest.approx(
            b.figures["project_months"], rel=1e-9)


def test_a_drawn_rl_time_factor_moves_the_scheduled_project():
    # A review: the drawn RL time factor scaled the RL line's GPU-hours per draw but not the RL
    # campaign's days the schedule counts; a draw at 3.13x had a project shorter than its own
    # RL campaign. Each draw's schedule now takes its factor: no draw's project is shorter
    # than its RL campaign (runs x days per run at factor 1 x its factor), and the months
    # rise with the factor where the campaign is the schedule's longest part.
    from llmcost.bill.ledger import build_ledger, headline_draws
    from llmcost.serving.rl import scenario_time_factor
    sc = {"price_usd_per_gpu_hour": 3.99, "ledger_published_defaults": True, "n_gpus": 512,
          "ledger_rl": True, "rl_iterations": 30000, "ledger_operations_usd_per_month": 1e5}
    point = build_ledger(sc)
    at_1 = point.figures["rl_wall_clock_days_per_run"] * point.scenario["rl_runs"] / \
        scenario_time_factor(point.scenario)          # the campaign's days at factor 1
    d = headline_draws(sc, samples=2_000, seed=0).draws
    factor, months = d.inputs["rl_time_factor"], d.line_usd["ops.operations"] / 1e5
    assert np.all(months * (365.25 / 12) >= at_1 * factor * (1 - 1e-9))
    assert np.corrcoef(factor, months)[0, 1] > 0.5


def test_an_input_that_moves_the_bill_below_its_printed_digits_is_no_driver():
    # a review: the RL model's time factor, netted out of the exploratory line, moves only the
    # dataset storage priced over the schedule it lengthens (dollars of a $5.67M bill), and the
    # default's tornado read "the RL iteration time $5.67M–$5.67M". A swing the printed
    # figures (fmt_usd: three digits) cannot show is not listed; one they show is
    draws = ledger.simulate_ledger({"price_usd_per_gpu_hour": PRICE, "ledger_rl": True,
                                    "rl_time_factor": [0.55, 3.15], "mfu": [0.35, 0.45]},
                                   samples=2000)
    tor = draws.tornado()
    assert list(tor["input"]) == ["mfu"]
    assert tor.attrs["no_swing"] == ["rl_time_factor"]
    d = ledger.simulate_ledger({"price_usd_per_gpu_hour": PRICE, "ledger_rl": True,
                                "rl_time_factor": [0.55, 3.15]}, samples=10)
    lo, hi = (d._build({**d._values, "rl_time_factor": x}).total_usd for x in (0.81, 2.89))
    assert 0 < hi - lo < 1000 and llmcost.fmt_usd(lo) == llmcost.fmt_usd(hi)


def test_the_netted_lines_days_are_said_only_where_the_schedule_sets_the_project():
    # a review: under the published defaults the project is Epoch's median (10.15 months) with
    # or without the RL campaign, and the words said its days lengthened the project's lines
    conv = ledger.exploratory_words(ledger.build_ledger(_dpo(100_000)))
    pub = ledger.exploratory_words(ledger.build_ledger({**_dpo(100_000),
                                                        "ledger_published_defaults": True}))
    assert "their days still lengthen the compute schedule" in conv
    assert pub.endswith("$0.00 of compute to the total")
