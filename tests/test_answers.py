"""Each notebook's one-sentence answer (``llmcost.present.answers``) against numbers worked by hand."""

import pandas as pd
import pytest

import llmcost
from llmcost.present import answers
from llmcost.training import reliability as rel


def test_flops_answer_against_6nd_and_the_gpu_hour_arithmetic():
    # Llama 2 70B, 2T tokens, 2,048 H100 SXM at 40% MFU, $3.99/GPU-h. By hand: 6ND = 6 × 68.98B ×
    # 2T = 8.28e23 FLOP, plus the full-mask attention core (a few per cent at 4,096 tokens);
    # GPU-hours = F / (989.4 TFLOP/s × 0.40) / 3600, days = GPU-hours / 2,048 / 24.
    spec, gpu = llmcost.load_model("llama-2-70b"), llmcost.load_accelerator("H100-SXM")
    run = llmcost.training_run(spec, gpu, 2e12, 0.4, 2048, 3.99, seq_len=4096)
    f = run["model_flops"]
    assert 6 * spec.n_params * 2e12 < f < 1.10 * 6 * spec.n_params * 2e12
    hours = f / (989.4e12 * 0.4) / 3600
    text = answers.flops(spec.name, gpu.name, 2048, 2e12, 0.4, 3.99, run)
    assert f"**{hours:,.0f} GPU-hours**" in text
    # the ideal (100 % goodput) wall clock, said as such: a trial read the index's "wall-clock
    # 12.7 days" beside a paid run of 13.1 days
    assert f"({hours / 2048 / 24:.1f} days on 2,048 GPUs with no failures)" in text
    assert answers.md_usd(hours * 3.99) in text and "at 40% MFU" in text
    assert "at \\$3.99 per GPU-hour" in text
    # the 6ND papers quote (notebook 06's C) beside it: a trial read 01's 2.17e+24 FLOP (the
    # MFU basis at a 128k context) against 06's C = 6ND = 6.35e+23 with nothing to say why
    assert "(counted as MFU counts them, attention included; 6ND: 8.28e+23 FLOP)" in text
    assert 6 * spec.n_params * 2e12 == pytest.approx(8.28e23, rel=0.001)



def test_flops_answer_states_the_mfu_its_hours_come_from():
    # A new user's `mfu: [0.35, 0.50]` (uniform) is priced at its midpoint (0.35 + 0.50) / 2 =
    # 0.425, and the page's line above the answer says "uses its midpoint 0.425"; the answer
    # said "at 42% MFU" beside GPU-hours computed at 42.5% (Llama 2 13B, 2T tokens, 256
    # A100-80GB: F / (312 TFLOP/s × 0.425) / 3600 = 365,242; at 42%: 369,590, 1.2% more).
    spec, gpu = llmcost.load_model("llama-2-13b"), llmcost.load_accelerator("A100-80GB")
    run = llmcost.training_run(spec, gpu, 2e12, 0.425, 256, 2.79, seq_len=4096)
    hours = run["model_flops"] / (312e12 * 0.425) / 3600
    assert run["gpu_hours"] == pytest.approx(hours, rel=1e-9)
    assert run["gpu_hours"] == pytest.approx(365_242, abs=1)
    text = answers.flops(spec.name, gpu.name, 256, 2e12, 0.425, 2.79, run)
    assert "at 42.5% MFU" in text and "at 42% MFU" not in text
    # a whole percent keeps no decimal (41%, Llama 3.1 405B's Table 4)
    assert "at 41% MFU" in answers.flops(spec.name, gpu.name, 256, 2e12, 0.41, 2.79, run)


def test_caveat_states_a_range_midpoint_mfu_as_given():
    # the index's one-line caveat of the given-vs-predicted MFU warning read "the assumed MFU,
    # 42%" for a range's midpoint 0.425 (the page's header: "MFU 42.5%")
    from llmcost.present.glance import caveat_line
    w = ("the scenario's mfu=0.425 is below what the step-time model expects of this plan (P): "
         "66%, band 58%–64% capped below that prediction; that prediction is above every one "
         "of the 16 held-out published runs of its regime (R)")
    assert caveat_line(w) == ("the assumed MFU, 42.5%, is below the model's 66%, a prediction "
                              "above all 16 published runs its error band was measured on "
                              "(held-out runs of its regime; the MFU lever's best comparable "
                              "run is another set)")
    assert caveat_line(w.replace("0.425", "0.40")).startswith("the assumed MFU, 40%, is below")

def test_memory_answer_fits_or_not():
    # H100 SXM: 80 GiB = 85.9 GB; a 10% reserve leaves 77.3 GB (memory.fits: total <= hbm·0.9)
    hbm = 80 * 2**30
    text = answers.memory("M", "H100-SXM", 2048, "TP8 · PP4", 61e9, hbm, 0.9 * hbm)
    assert text.startswith("M fits on 2,048 × H100-SXM with TP8 · PP4")
    assert "**61 GB of 86 GB**" in text and "(80 GiB; 77 GB usable" in text
    assert llmcost.memory.fits(61e9, hbm, 0.1)
    assert "does **not** fit" in answers.memory("M", "A", 8, "TP1", 75e9, 80e9, 72e9)
    # a MoE plan at the limit (a trial: 173.7 GB of 174 GB usable, busier experts +24.7 GB):
    # by hand, 77.3 − 77.0 = 0.3 GB left against 6.2 GB more
    tight = answers.memory("Mixtral", "A100-80GB", 512, "EP8", 77.0e9, hbm, 0.9 * hbm,
                           moe_extra_bytes=6.2e9)
    assert "**Only with a perfectly balanced router:**" in tight
    assert "about 6.2 GB of activations, more than the 0.3 GB left" in tight
    assert "balanced" not in answers.memory("M", "H100-SXM", 8, "EP8", 61e9, hbm, 0.9 * hbm,
                                            moe_extra_bytes=6.2e9)  # 16 GB left: room
    # a trial: 70B FP8 on H200 "fits" here while the report warned its FP8 weight copies, 18.2 GB
    # per GPU, are more than the 0.5 GB of headroom: the answer says the plan may not fit
    h200 = 141e9
    fp8 = answers.memory("70B", "H200", 2048, "TP2 · PP4", 0.9 * h200 - 0.5e9, h200,
                         0.9 * h200, fp8_copy_bytes=18.2e9)
    assert "**It may not fit under FP8:**" in fp8 and "(18.2 GB per GPU)" in fp8
    assert "more than the 0.5 GB left" in fp8
    assert "FP8" not in answers.memory("70B", "H200", 2048, "TP2", 100e9, h200, 0.9 * h200,
                                       fp8_copy_bytes=18.2e9)   # 26.9 GB left: room


def test_checkpoint_answer_says_an_interval_longer_than_the_run():
    # A trial: "checkpointing every 2,119 min" on an 8-GPU run of about 10 hours. By hand: the
    # ideal run is 81.3 GPU-hours / 8 GPUs = 10.2 h = 610 min < 2,119 min: it takes no
    # checkpoint (⌈T/τ⌉ − 1 = 0), said so
    text = answers.checkpoints(8, 5e6, 0.87, 2119 * 60, 0.7, 81.3, 3.0)
    # (the gerund is the clause's subject: "with no checkpoint ... keeps goodput" had none)
    assert "; taking no checkpoint during the ideal run's 10.2 h of work (a failure replays it " \
           "from the start) keeps goodput at" in text and "every 2,119" not in text
    # the same words as the plan's (reliability.checkpoint_interval_words), the run's length in
    # the unit that fits: 9,527 min of work (a trial) is 6.62 days
    assert rel.checkpoint_interval_words(1e9, 9527 * 60) == \
        "no checkpoint during the run's 6.62 days of work"
    # 1e6 GPU-h on 2,048 GPUs = 488.3 h = 29,297 min of work; every 30 min: ⌈976.6⌉ − 1 = 976
    short = answers.checkpoints(2048, 2e4, 0.87, 30 * 60, 0.95, 1e6, 3.0)
    assert "no checkpoint" not in short
    assert "checkpointing every 30.0 min (976 checkpoints in the run)" in short


def test_communication_and_step_time_shares():
    text = answers.communication("TP2", 2.0, 0.25, 0.05)  # 0.25 / 2 = 12.5%, 0.05 / 2 = 2.5%
    assert "**12.5% of every step**" in text and "**2.5%** for the slowest GPU" in text
    # a trial's 1-GPU run read "and -2.2% for the slowest GPU": below the kernel constant's
    # 8-GPU fit the wait is removed, said as such (straggler.straggler_slowdown(1) < 0)
    text = answers.communication("TP1", 2.0, 0.0, -0.044)  # −0.044 / 2 = −2.2%
    assert "**2.2% less** for the slowest GPU than the kernel constant's 8-GPU fit" in text
    assert "-2.2%" not in text
    text = answers.step_time("TP2", True, 1.82, 0.505, 0.416, 0.505, 2.3e6)
    assert "**1.82 s**" in text and "fastest plan" in text and "**50.5%**" in text
    assert "(band 41.6%–50.5%)" in text and "**1.82 s** (2.3M tokens/s) on the fastest" in text
    assert "the plan the scenario fixes" in answers.step_time("TP2", False, 1.0, .5, .4, .5, 1e6)
    # with its regime's median held-out error c (12 runs, a measured regime): the bill's
    # p / (1 + c) = 50.5% / 1.086 = 46.5%
    text = answers.step_time("TP2", True, 1.82, 0.505, 0.416, 0.505, 2.3e6, center=0.086, n=12)
    assert "took a median 8.6% more time per step than predicted (12 runs)" in text
    assert "**46.5%**" in text
    # 2 runs: c is their median shrunk by 2 / (2 + 3.1) (accuracy.shift_factor, k =
    # SHIFT_SHRINK_ROWS), said with it: a median of 8.6% is c = 3.4%, p / (1 + c) = 50.5% /
    # 1.0337 = 48.9%
    c = 0.086 * 2 / 5.1
    text = answers.step_time("TP2", True, 1.82, 0.505, 0.416, 0.505, 2.3e6, center=c, n=2)
    assert "took a median 8.6% more time per step than predicted (2 runs; c = +3.4%, the " \
        "median signed error of its 2 held-out runs, +8.6%, × 2 / (2 + 3.1)" in text
    assert f"**{0.505 / (1 + c):.1%}**" in text and "**48.9%**" in text
    text = answers.step_time("TP2", True, 1.82, 0.505, 0.416, 0.505, 2.3e6, center=-0.086, n=2)
    assert "would use p ÷ (1 + c) = 55.3%, but that is above the band's capped top: it uses " \
        "the top, **50.5%**" in text
    # a band capped under the prediction (trial: 55.1 % against a band 36.2 %-47.0 %) says so
    text = answers.step_time("TP1", True, 1.74, 0.551, 0.362, 0.470, 4.8e6)
    assert "MFU of **55.1%**, above what any comparable published run has measured: the band " \
        "a bill draws, 36.2%–47.0%, lies below it, capped below the prediction at the best " \
        "comparable published run." in text and "**1.74 s** (4.8M tokens/s)" in text
    # a trial (Mixtral on H200): the cap was the band's own low end, above the best comparable
    # run (34.0%), and the answer named the run: it names what capped it (MfuBand.cap_source)
    low_end = "the model's own low end: its uncapped band lies wholly above the best comparable " \
        "published run, 34.0%, and so does the bill's MFU"
    text = answers.step_time("TP1", True, 1.74, 0.527, 0.313, 0.408, 4.8e6, cap_from=low_end)
    assert f"the band a bill draws, 31.3%–40.8%, lies below it, capped below the prediction at " \
        f"{low_end}." in text and "tokens/s" not in text.split("1.74 s** (")[1][20:]
    # a scenario that gives its own MFU (a trial's 30.0%, whose bill drew 23.1%-31.5%): the band
    # is the one a `mfu: predict` bill would draw, and the cap's words say nothing of the bill
    text = answers.step_time("TP8", True, 35.7, 0.466, 0.276, 0.358, 4.7e5,
                             cap_from=low_end.replace(", and so does the bill's MFU", ""),
                             bill_is_prediction=False)
    assert "the band a `mfu: predict` bill would draw, 27.6%–35.8%, lies below it" in text \
        and "a bill draws" not in text and "the bill's MFU" not in text


def test_checkpoint_answer_extra_gpu_hours():
    # paid = ideal / goodput: 1,000 ideal GPU-hours at 80% goodput are 1,250 paid, 250 extra,
    # $500 at $2/GPU-h; MTBF 9,000 s = 2.5 h; interval 1,800 s = 30 min
    text = answers.checkpoints(1024, 9000.0, 0.87, 1800.0, 0.8, 1000.0, 2.0)
    assert "every **2.5 h**" in text and "every 30.0 min" in text and "**80.0%**" in text
    assert "stops 0.87 times a day" in text
    # 0.87 a day is Llama 3's 47 planned stops in 54 days of one 16,384-GPU job (arXiv:2407.21783
    # §3.3.4): a trial's 1-GPU page read it as its own job's rate; the answer says whose it is,
    # and another rate is the scenario's own, said without it
    assert "Llama 3's rate for its whole 16,384-GPU job" in text and 47 / 54 == \
        pytest.approx(0.87, abs=0.005)
    assert "Llama 3" not in answers.checkpoints(1024, 9000.0, 0.1, 1800.0, 0.8, 1000.0, 2.0)
    # Llama 3 405B's rate as the default scenario's: 0.173 failures per GPU-year on 2,048 GPUs is
    # M = 8,766 h / (2,048 × 0.173) = 24.7 h, what the checkpoint plan carries
    from llmcost.training import reliability as rel
    p = llmcost.validate_parameters(**{k: v for k, v in llmcost.scenario.LEDGER_DEFAULTS.items()
                                       if k.startswith(("ckpt_", "fail_"))}, n_gpus=2048)
    plan = rel.scenario_checkpoint_plan(p, 70e9)
    assert plan.mtbf_s / 3600 == pytest.approx(365.25 * 24 / (2048 * 0.173), rel=1e-3)
    assert f"**250 GPU-hours** ({answers.md_usd(500.0)})" in text
    # a trial's 8 GPUs: M = 8,766 h / (8 × 0.173) = 6,333.8 h, read with its thousands separator
    # (it printed "6333.8 h" and "every 1526 min")
    small = answers.checkpoints(8, 365.25 * 24 * 3600 / (8 * 0.173), 0.87, 91560.0, 0.986,
                                600.0, 2.74)
    # and its 600 GPU-h on 8 GPUs are 75 h = 4,500 min of work: ⌈4,500 / 1,526⌉ − 1 = 2
    # checkpoints
    assert "fails every **6,333.8 h**" in small and \
        "checkpointing every 1,526.0 min (2 checkpoints in the run)" in small
    # 100,000 GPUs: M = 8,766 h / (100,000 × 0.173) = 1,824 s, about 30.4 min (a trial read
    # "every **0.0 h**")
    big = answers.checkpoints(100_000, 365.25 * 24 * 3600 / (1e5 * 0.173), 0.87, 300.0, 0.5,
                              600.0, 2.74)
    assert "fails every **30.4 min**" in big
    # a trial's spot job read "fails every 3.5 h" where the index said "(spot pre-emptions
    # included)": on spot the rate counts the pre-emptions, and the words say so; the planned
    # stops' default value is named as a value (the trial's file gave the same 0.87)
    spot = answers.checkpoints(8, 3.5 * 3600, 0.87, 3000.0, 0.9, 600.0, 2.74, spot=True)
    assert "fails or is pre-empted every **3.5 h**" in spot
    assert "`fail_planned_per_day`'s default value, the same whatever the job's size" in spot


def test_published_runs_goal_counts_a_hand_made_table():
    # A new-user trial: 08's prose said "2 of 4 whole runs meet it" and "the held-out rows all
    # meet the goal" beside a table of 3 of 4 and 152 of 171. The count is now computed. Hand
    # table: whole runs +9.8% (in), -25.7% (out), +3.2% (in); held-out MFU rows +5%, +48%
    # (out), -30% (out); one calibration row +40% (not counted, not listed).
    from llmcost import claims
    e = pd.DataFrame({
        "run_id": ["w1", "w2", "w3", "m1", "m2", "m3", "c1"],
        "model": ["Run A", "Run B", "Run C", "", "", "", ""],
        "scored": ["gpu_hours"] * 3 + ["mfu"] * 4, "has_plan": [True] * 7,
        "method": ["step-time model (published plan) × goodput"] * 3 + ["step-time"] * 4,
        "split": [""] * 3 + ["held-out"] * 3 + ["calibration"],
        "error": [0.098, -0.257, 0.032, 0.05, 0.48, -0.30, 0.40]})
    text = answers.published_runs_goal(e, claims.error_table_summary(e), misses=2)
    assert "Held-out steady-state MFUs: **1 of 3** within it" in text
    assert "the largest misses: m2 +48.0%, m3 -30.0%)" in text and "c1" not in text
    assert "**2 of 3** within it (Run A +9.8%, Run C +3.2%); outside it: Run B -25.7%." in text


def test_published_runs_answer_reads_the_summary_rows():
    summary = pd.DataFrame({"n": [157, 4], "median_abs_error": [0.1506, 0.1779]},
                           index=["steady-state MFU, held-out",
                                  "whole-run GPU-hours, published plan"])
    text = answers.published_runs(summary)
    assert "**15.1%** on 157 held-out" in text and "**17.8%** on the GPU-hours of the 4" in text


def test_savings_answer_takes_the_first_lever_or_says_none():
    top = pd.DataFrame({"lever": ["spot for ablations", "fp8"], "saving_usd": [1.2e5, 5e4],
                        "share_of_bill": [0.12, 0.05], "risk": ["pre-emption", "stability"]})
    text = answers.savings(1e6, top)
    # the saving first, then the lever, a noun or a verb alike ("raise MFU to 42%")
    assert (f"**{answers.md_usd(1.2e5)}** (12.0% of the bill), comes from one lever: "
            "**spot for ablations**; its risk: pre-emption.") in text
    assert "pre-emption" in text
    assert text.startswith(f"The largest saving on this bill of {answers.md_usd(1e6)}")
    assert "No lever saves" in answers.savings(1e6, top.iloc[0:0])
    # a lever's name with a price: every dollar sign escaped, as the prices' are
    named = top.assign(lever=["the cheapest listed provider (RunPod, $2.69/GPU-h)", "fp8"])
    text = answers.savings(1e6, named)
    assert "(RunPod, \\$2.69/GPU-h)" in text and text.count("$") == text.count("\\$")
    # on committed capacity a saving of hours is freed capacity (a finance trial)
    owned = answers.savings(1e6, top, pricing="owned")
    assert owned.endswith("hours a lever saves free the GPUs for other work, and are cash only "
                          "where a purchase shrinks with them.")
    assert "a reservation shrinks" in answers.savings(1e6, top, pricing="reserved")
    assert answers.savings(1e6, top, pricing="on_demand") == answers.savings(1e6, top)
    # a lever that saves no GPU-hours (a cheaper price) saves cash on any capacity
    priced = top.assign(gpu_hours_saved=[0.0, 10.0])
    assert answers.savings(1e6, priced, pricing="owned") == answers.savings(1e6, priced)
    assert "shrinks" in answers.savings(1e6, top.assign(gpu_hours_saved=[5.0, 0.0]),
                                        pricing="reserved")


def test_glossary_answer_counts():
    g = pd.DataFrame({"topic": ["a", "a", "b"], "formula": ["x", "", ""],
                      "function": ["f", "g", ""]})
    assert answers.glossary(g).startswith("**3 terms** in 2 topics")
    assert "1 with a formula and 2 with the `llmcost` function" in answers.glossary(g)


@pytest.mark.parametrize("fn", ["flops", "memory", "communication", "step_time", "checkpoints",
                                "batch_size", "scaling", "rl_loop",
                                "published_runs", "savings", "glossary", "bill"])
def test_every_answer_has_its_formula_in_the_docstring(fn):
    assert len(getattr(answers, fn).__doc__) > 80


def test_batch_answer_against_mccandlish():
    # B = 4M, B_noise = 2M: E/E_min = 1 + 2 = 3, S/S_min = 1 + 1/2 = 1.5 (McCandlish et al. 2018
    # §2), as batch.tokens_to_target / steps_to_target give them
    text = answers.batch_size(4e6, 2e6, 1e6)
    # McCandlish et al. 2018 §2: E = E_min (1 + B/B_noise) = 3 E_min, S = S_min (1 + B_noise/B)
    # = 1.5 S_min at B = 2 B_noise, in words a reader can say (a trial could not explain "the
    # run takes 4.47× the fewest tokens" to its board)
    assert "**2×** the critical batch" in text and \
        "reaching that loss takes 3.00× the tokens a very small batch would need (E_min)" in text
    assert "in 1.50× the steps a very large one would (S_min)" in text
    assert llmcost.batch.tokens_to_target(4e6, 1, 2e6) == pytest.approx(3.0)
    assert llmcost.batch.steps_to_target(4e6, 1, 2e6) == pytest.approx(1.5)


def test_scaling_answer_direction():
    # Llama 2 70B on 2T tokens: C = 6 × 70e9 × 2e12 = 8.4e23; an optimum of 40B on 3.5T makes
    # it 1.75× too big for training alone
    text = answers.scaling("L", 70e9, 2e12, "f", 40e9, 3.5e12)
    assert "C = 6ND = 8.4e+23 FLOPs" in text and "(88 tokens per parameter)" in text
    assert "**1.8×** that size" in text and "train longer" in text
    assert "train bigger" in answers.scaling("L", 7e9, 2e12, "f", 40e9, 3.5e12)
    assert "outside the fits" in answers.scaling("M", 7e9, 2e12, "f", 40e9, 3.5e12, is_moe=True)
    # a trial: a serving-heavy scenario read "train bigger" while section 7's dollar optimum was
    # smaller than its model; with lifetime demand the answer says serving moves it smaller
    heavy = answers.scaling("L", 7e9, 2e12, "f", 40e9, 3.5e12, served_tokens=5e15)
    assert "for training alone: train bigger" in heavy
    assert "Serving 5e+15 tokens over its lifetime moves the cheapest model below this " \
        "optimum, trained on more tokens" in heavy
    assert "Serving" not in answers.scaling("L", 7e9, 2e12, "f", 40e9, 3.5e12)


def test_rl_answer():
    text = answers.rl_loop("L", "H100-SXM", 1.234, 300.4, 0.72, 2.5e5)
    assert llmcost.fmt_usd(1.234) in text and "**300 s**" in text
    assert "72% of its wall time" in text and "floor" not in text
    assert llmcost.fmt_usd(2.5e5) in text and "the bill's RL line" in text
    # the expected (engine) price first, the roofline's as its floor
    text = answers.rl_loop("L", "H100-SXM", 1.234, 300.4, 0.72, 2.5e5, floor_usd_per_m_output=0.9)
    assert text.index("1.23 per million") < text.index("floor: \\$0.90")
    # a campaign the scenario does not give is an illustration, said not to be in the bill
    text = answers.rl_loop("L", "H100-SXM", 1.234, 300.4, 0.72, 2.5e5, billed=False)
    assert "illustrative" in text and "not in the bill" in text and "bill's RL line" not in text
    # centred on the published runs: the iteration said at the time the campaign is billed at
    # (rl.billed_iteration_s: 300.4 s x 1.69 = 507.7 s), the model's own beside it
    from llmcost.serving import rl
    for p, says in (({"rl_algorithm": "grpo"}, "**508 s** (the model's 300 s × 1.69, "
                     "published GRPO runs' median)"),
                    ({"rl_algorithm": "grpo", "rl_time_factor": 1.2},
                     "**360 s** (the model's 300 s × rl_time_factor 1.2)"),
                    ({"rl_algorithm": "grpo", "rl_framework": "nemo-rl-0.6"},
                     "(the model's 300 s × 1.29, published NeMo RL GRPO runs' (stated with "
                     "their release) median)")):
        sec, note = rl.billed_iteration_s(300.4, p)
        text = answers.rl_loop("L", "H100-SXM", 1.234, 300.4, 0.72, 2.5e5, billed_s=sec,
                               billed_note=note)
        assert says in text, text
    assert "**300 s**," in answers.rl_loop("L", "H100-SXM", 1.234, 300.4, 0.72, 2.5e5,
                                            billed_s=300.4, billed_note="the model's own time")


def test_prices_are_escaped_for_markdown_and_render_as_text():
    # "**$5.67M** ... **$2.57M**": a Markdown renderer with TeX math (nbconvert's mistune) read
    # the text between two dollar signs as a formula and left the asterisks as text
    from nbconvert.filters.markdown_mistune import markdown2html_mistune
    assert answers.md_usd(5.67e6) == "\\$5.67M"
    html = markdown2html_mistune(f"costs **{answers.md_usd(5.67e6)}** in all, likely "
                                 f"**{answers.md_usd(5.26e6)}–{answers.md_usd(1.1e7)}**")
    assert "<strong>$5.67M</strong>" in html and "<strong>$5.26M–$11.0M</strong>" in html
    assert "**" not in html


def test_bill_answer_whole_bill_range_and_final_runs_share():
    # Notebook 00. By hand: with every input fixed but mfu uniform on [0.30, 0.50] and the price
    # $4.00, the final pre-training run is its paid GPU-hours × $4.00 (main run's ideal hours /
    # goodput), and its share is that over the whole bill (the sum of the lines).
    from llmcost.bill import ledger
    from llmcost.present import glance
    sc = {"model": "llama-2-70b", "n_gpus": 2048, "train_tokens": 2e12, "mfu": [0.3, 0.5],
          "price_usd_per_gpu_hour": 4.0}
    g, bars, _ = glance.bill_glance(sc, samples=20_000)
    point = ledger.build_ledger(sc)
    run = point.figures["paid_gpu_hours"] * 4.0
    assert g["final_run"]["point_usd"] == pytest.approx(run, rel=1e-9)
    assert g["final_run"]["label"] == "final pre-training run"
    text = answers.bill("llama-2-70b", "H100-SXM", 2048, 2e12, g)
    t = bars.loc["total"]
    # the scenario gives no people, data, network, ... lines ("not given", $0), so the total is
    # not the whole project's: said as the report index's first sentence says it (it read
    # "costs $219M in all" under an index that says "The lines priced for this scenario add up
    # to"; "this scenario prices" read as crediting it with the workbook's default lines)
    assert g["gaps"]["whole"]
    assert text.startswith("Training llama-2-70b on 2T tokens with 2,048 × H100-SXM: the lines "
                           "priced for this scenario add up to "
                           f"**{answers.md_usd(point.total_usd)}**, likely ")
    assert "in all" not in text
    full = dict(g, gaps={"whole": [], "partly": [], "defaults": [], "price_default": None})
    assert answers.bill("llama-2-70b", "H100-SXM", 2048, 2e12, full).startswith(
        "Training llama-2-70b on 2T tokens with 2,048 × H100-SXM costs "
        f"**{answers.md_usd(point.total_usd)}** in all, likely ")
    assert f"**{answers.md_usd(t['p10_usd'])}–{answers.md_usd(t['p90_usd'])}**" in text
    assert f"**{answers.md_usd(run)}**, {run / point.total_usd:.0%} of it" in text
    assert "the scenario's ranges" in text
    ill = glance.bill_glance({**sc, "mfu": 0.4}, samples=20_000)[0]
    assert "illustrative ranges" in answers.bill("m", "a", 8, 1e9, ill)


def test_published_runs_gaps_reads_a_hand_made_table():
    # 08 section 3 typed "BLOOM under-predicted by 26%", "goodput 92%", "DeepSeek 43.9%" and
    # "43.9% ÷ 29.0% = 1.51" in markdown; the figures are now computed. Hand table: two whole
    # runs with a plan (+9.8%, -25.7%); an FP8 run at U = 0.45 whose three other Hopper runs have
    # U 0.30, 0.20, 0.15 and Run A 0.37 (median 0.25: hours over by 0.45 / 0.25 − 1 = +80%);
    # FP8 peak 2× BF16.
    e = pd.DataFrame({
        "run_id": ["a", "b", "fp8", "h1", "h2", "h3"],
        "model": ["Run A", "Run B", "FP8 run", "H one", "H two", "H three"],
        "scored": ["gpu_hours"] * 6, "has_plan": [True, True, True, False, False, False],
        "n_gpus": [16384, 384, 2048, 1, 1, 1],
        "generation": ["Hopper", "Ampere", "Hopper", "Hopper", "Hopper", "Hopper"],
        "published_mfu": [0.37, 0.33, 0.45, 0.30, 0.20, 0.15],
        "error": [0.098, -0.257, 0.03, 0.0, 0.0, 0.0]})
    text = answers.published_runs_gaps(e, {"a": 0.92, "b": 0.977, "fp8": 0.958}, 2.0,
                                       fp8_run="fp8")
    assert "Run A on 16,384 GPUs: goodput 92.0%, error +9.8% (too many hours)" in text
    assert "Run B on 384 GPUs: goodput 97.7%, error -25.7% (too few hours)" in text
    # the median of the *other* Hopper runs: 0.37, 0.30, 0.20, 0.15 -> 0.25; 0.45 / 0.25 = 1.8
    assert "U 45.0% of the BF16 peak (MFU basis), 22.5% of the FP8 peak" in text
    assert "median of the 4 other Hopper whole runs is 25.0%" in text and "+80%" in text
    assert "H three 15.0%, H two 20.0%." in text


def test_the_hardware_sweep_sentences_name_the_billed_basis_and_the_rankable_row():
    # notebook 09 §4, from a hand-made sweep table: the cheapest catalogue-priced row at the MFU
    # it bills (the central estimate, or the pilots' calibration on their own hardware), the
    # scenario's own rows at its MFU, the cheapest rankable row; "none" when nothing is
    import pandas as pd

    from llmcost.present import answers
    row = dict(price_available=True, mfu_check="within a published run", predicted_mfu=0.45,
               mfu=0.42, bill_usd=1.0e6, bill_calibrated_usd=1.1e6, calibrated_mfu=0.40,
               price_usd_per_gpu_hour=2.0, scenario=False, rankable=True,
               mfu_basis="the scenario's MFU × the predicted ratio (central estimates)",
               billed_mfu_basis="the prediction's central estimate")
    sweep = pd.DataFrame([
        {**row, "accelerator": "B200", "price_basis": "catalogue median (on_demand)"},
        {**row, "accelerator": "H100-SXM", "price_basis": "the scenario's price",
         "scenario": True, "rankable": False, "bill_calibrated_usd": 2.0e6,
         "mfu_basis": "the pilots' calibrated MFU on H100-SXM",
         "billed_mfu_basis": "the pilots' calibrated MFU on H100-SXM"}])
    from llmcost.core.units import fmt_usd
    text = answers.hardware_sweep(sweep)
    flat = " ".join(text.split())  # each sentence wrapped at 100 characters
    assert flat.startswith("cheapest at catalogue prices, at the MFU the sweep gives each "
                           "accelerator: B200 at $2.00/GPU-h")
    assert "MFU 42.0% (the prediction's central estimate; raw prediction 45.0%)" in flat
    # beside it, the same row at the calibrated MFU, the scenario's own line's basis (trial 20
    # set B200's $214k at its prediction beside the scenario's $559k at its given MFU)
    assert (f"{fmt_usd(1.0e6)}; at the calibrated 40.0% (the scenario's MFU × the predicted "
            f"ratio (central estimates)), the basis of the scenario's own line below: "
            f"{fmt_usd(1.1e6)}; price buyable") in flat
    assert ("H100-SXM (this scenario) at the scenario's price, $2.00/GPU-h, the scenario's MFU: "
            f"{fmt_usd(2.0e6)}") in flat
    assert flat.endswith(f"B200 at {fmt_usd(1.1e6)} (MFU 40.0%, the scenario's MFU × the "
                         "predicted ratio (central estimates); catalogue median (on_demand))")
    assert answers.hardware_sweep(sweep.assign(rankable=False)).endswith(
        "at the calibrated MFU: none")
    # a rankable row dearer than the scenario's own bill is said to be no saving (a teacher's
    # trial read "cheapest rankable: H200 at $6.77M" beside its own $3.90M)
    dearer = sweep.copy()
    dearer.loc[dearer["accelerator"] == "B200", "bill_calibrated_usd"] = 3.0e6
    assert " ".join(answers.hardware_sweep(dearer).split()).endswith(
        "catalogue median (on_demand)); above this scenario's own bill, so no saving")
    # the own bill is the row at the scenario's own price, not a cheaper catalogue row of its
    # accelerator (a review: $1.50M said "no saving" beside a catalogue $1.20M and an own $2.00M)
    both = pd.concat([sweep, sweep[sweep["scenario"]].assign(
        price_basis="catalogue median (on_demand)", bill_calibrated_usd=1.0e6)])
    both.loc[both["accelerator"] == "B200", "bill_calibrated_usd"] = 1.5e6
    assert "no saving" not in answers.hardware_sweep(both)
    assert max(len(ln) for ln in answers.hardware_sweep(sweep, width=60).splitlines()) <= 60
    # a price listed as not available (data/prices.csv's available column) says what that
    # means, not a bare "NOT available" beside "catalogue median" (a new user read the two as a
    # contradiction: the median of MI300X's one row, which had no capacity)
    flat = " ".join(answers.hardware_sweep(sweep.assign(price_available=False)).split())
    assert "price listed, but the provider had no capacity when it was collected; MFU" in flat
    assert "price buyable; MFU" in " ".join(text.split())
    # the MFU check is made on the calibrated MFU (40.0% here), not the 42.0% billed: said so
    # (a trial read "MFU 31.0% ...; MFU above the best published 34.0%" of a 39.8% check)
    assert "MFU checked at the calibrated 40.0%: within a published run" in flat
    same = " ".join(answers.hardware_sweep(sweep.assign(calibrated_mfu=0.42)).split())
    assert "; MFU within a published run" in same
    # the billed basis is read from its own column (levers.hardware_sweep's billed_mfu_basis),
    # never guessed from the words of mfu_basis (the basis of calibrated_mfu): a cheapest row
    # on the pilots' own hardware says so, whatever mfu_basis says
    pilots = sweep.assign(billed_mfu_basis=["the pilots' calibrated MFU on B200",
                                            "the prediction's central estimate"],
                          mfu_basis="anything")
    flat = " ".join(answers.hardware_sweep(pilots).split())
    assert "MFU 42.0% (the pilots' calibrated MFU on B200; raw prediction 45.0%)" in flat


def test_published_runs_answer_gives_the_error_on_runs_like_the_scenario():
    # Notebook 08's answer was the same for every scenario (a trial). With the runs like the
    # scenario's (accuracy.like_scenario_error: its regime but for the sharding), it gives their
    # mean |error|. By hand on the default scenario's regime, from the per-regime table
    # (accuracy.regime_table, the numbers validate_mfu prints as item 6): Hopper FSDP and
    # Megatron 3D dense BF16 <= 32k >= 10B hold 21 and 5 held-out runs (Llama 3 Table 4's two,
    # NVIDIA's DGX Cloud BF16 runs of Llama 3.1 70B and 405B and GPT-3 175B), so the pooled mean
    # is their n-weighted mean and the max the larger max.
    from llmcost.training import accuracy

    like = accuracy.like_scenario_error("H100-SXM", is_moe=False, dtype="bf16", seq_len=4096,
                                        n_params=69e9)
    t = accuracy.regime_table()
    parts = t.loc[[f"Hopper · {s} · dense · BF16 · ≤ 32k · ≥ 10B" for s in
                   ("FSDP", "Megatron 3D")]]
    assert like["n"] == int(parts["n"].sum()) == 26
    assert like["mean_abs_error"] == pytest.approx(
        (parts["n"] * parts["mean_abs_error"]).sum() / parts["n"].sum(), rel=1e-9)
    assert like["max_abs_error"] == pytest.approx(parts["max_abs_error"].max(), rel=1e-9)
    summary = pd.DataFrame({"median_abs_error": [0.088, 0.05], "n": [261, 6]},
                           index=["steady-state MFU, held-out",
                                  "whole-run GPU-hours, published plan"])
    text = answers.published_runs(summary, like)
    assert like["label"] == "Hopper · any sharding · dense · BF16 · ≤ 32k · ≥ 10B"
    # in the reader's words, units written out (the regime label's "≤ 32k · ≥ 10B" had none)
    assert (f"On the 26 held-out runs like this scenario's in all but the sharding (Hopper GPUs, "
            f"dense, BF16, sequences up to 32,768 tokens, 10B parameters or more, any sharding) "
            f"it is off by a mean "
            f"**{like['mean_abs_error']:.1%}**, at most {like['max_abs_error']:.1%}.") in text
    # none like it: said, never another regime's error
    none = accuracy.like_scenario_error("A100-80GB", is_moe=True, dtype="fp8", seq_len=4096,
                                        n_params=69e9)
    assert none["n"] == 0 and none["mean_abs_error"] is None
    assert "No held-out published run is like this scenario's (Ampere GPUs, MoE, FP8," in \
        answers.published_runs(summary, none)
    with pytest.raises(ValueError, match="seq_len=0 must be a whole number >= 1"):
        accuracy.like_scenario_error("H100-SXM", is_moe=False, dtype="bf16", seq_len=0,
                                     n_params=69e9)
    with pytest.raises(ValueError, match="dtype='fp4' must be 'bf16' or 'fp8'"):
        accuracy.like_scenario_error("H100-SXM", is_moe=False, dtype="fp4", seq_len=4096,
                                     n_params=69e9)


def test_caveat_lines_of_rl_warnings_are_sentences_not_keys():
    # A trial's "Read this first" box showed "rl_partial_rollouts" alone, and a line cut
    # mid-sentence full of key names (the warnings of checks and validation, as they read)
    from llmcost.present.glance import caveat_line
    from llmcost.bill.validation import _partial_rollouts_warning

    class Bill:
        figures = {"rl_gpu_hours": 4340.0}
    w = _partial_rollouts_warning({"rl_partial_rollouts": True}, Bill())
    assert caveat_line(w) == ("the RL line prices partial rollouts at the best gain measured: "
                              "read the RL cost as optimistic")
    w = ("the RL campaign's longest rollout, rl_prompt_tokens + rl_response_tokens_max = 1,024 + "
         "16,384 = 17,408 tokens, is beyond the 4,096 tokens the scenario trains its model at "
         "(seq_len and the phases' seq_len): the policy needs a long-context phase first")
    assert caveat_line(w) == ("the RL rollouts reach 17,408 tokens, beyond the 4,096 tokens the "
                              "model is trained at: it needs a long-context phase first")
    # a warning of no known family that opens with a bare key keeps the key's rule
    assert caveat_line("some_key: a rule that matters; more detail") == \
        "some_key: a rule that matters"


def test_small_gemms_on_a_gpu_without_a_shape_table_are_warned_of(tmp_path):
    # A 110M model on A100 was predicted 54.7% MFU at micro-batch 1, 2, 8 and 32 alike (no
    # per-shape kernel table for Ampere: the flat ceiling). By hand, with H100's fitted shape
    # (t0 = 6.25 us, k0 = 70: gemm.GEMM_SHAPE) carried to A100 by the dense BF16 rate per SM,
    # k0 × (312 / 108) / (989.4 / 132) = 70 × 0.3854 = 26.98, at A100's ceiling 0.859 × 312 =
    # 268.0 TFLOPS: a model of d_model 768, d_ff 2,048 at mbs 1 and 1,024 tokens, m = 1,024,
    # n = 2,048, k = 768: flat 2·1024·2048·768 / 268.0e12 = 12.02 us, shaped 6.25 + 12.02 ×
    # (1 + 26.98 / 768) = 18.69 us: 64% of the ceiling; Llama 2 7B's (n = 11,008, k = 4,096):
    # 344.6 us against 6.25 + 344.6 × 1.0066 = 353.1 us: 98%, not small
    from llmcost.bill.checks import flat_gemm_warning
    from llmcost.core.catalog import load_accelerator, load_model
    from llmcost.core.model import ModelSpec
    from llmcost.present.glance import caveat_line
    from llmcost.training.parallel import make_plan
    a100 = load_accelerator("A100-80GB")
    small = ModelSpec(name="small", n_layers=12, d_model=768, n_heads=12, vocab_size=32000,
                      d_ff=2048)
    plan = make_plan(small, 1, 1, seq_len=1024)
    w = flat_gemm_warning({"seq_len": 1024}, small, a100, plan)
    assert w and "(1,024 × 2,048 × 768)" in w and "it would run at 64% of that ceiling" in w
    assert "carried to A100-80GB by its rate per SM" in w
    assert caveat_line(w).startswith("the predicted MFU reads optimistic: A100-80GB's GEMMs")
    big = load_model("llama-2-7b")
    assert flat_gemm_warning({"seq_len": 1024}, big, a100, make_plan(big, 1, 1,
                                                                      seq_len=1024)) is None
    # a GPU with a measured table is priced by shape: nothing to say
    h100 = load_accelerator("H100-SXM")
    assert flat_gemm_warning({"seq_len": 1024}, small, h100, plan) is None
    # a GPU whose SM count the workbook does not hold is judged on H100's table, said so
    w = flat_gemm_warning({"seq_len": 1024}, small, load_accelerator("MI300X"), plan)
    assert w and "by H100-SXM's measured table, on H100-SXM" in w and "at 38% of" in w


def test_serving_price_and_its_floor_never_print_alike():
    # a trial: "costs $0.05 per million output tokens on an engine (the roofline's floor:
    # $0.05)" for prices 20% apart; printed to three significant figures where cents agree
    text = answers.rl_loop("qwen3-30b-a3b", "B200", 0.0540, 600.0, 0.6, 1e4,
                           floor_usd_per_m_output=0.0501)
    assert answers.md_usd(0.0540) == answers.md_usd(0.0501) == "\\$0.05"
    assert "costs **\\$0.054 per million output tokens** on an engine (the roofline's floor: " \
        "\\$0.050)" in text
    assert answers.distinct_usd(2.5, 1.25) == ("\\$2.50", "\\$1.25")  # apart: as md_usd prints
    assert answers.distinct_usd(15.004, 15.001) == ("\\$15.004", "\\$15.001")  # no "e+", no fewer


def test_step_time_with_pilots_leads_with_the_calibrated_step():
    """Notebook 04b with pilots (a trial's Llama 3.1 70B on 512 H100): the uncalibrated model
    predicts 8.77 s at 45.4% MFU; the pilots' calibrated MFU is 39.7% (band 33.7-45.6%). On the
    same plan and batch the model FLOPs per step are fixed, so the step is 8.77 × 0.454 ÷ 0.397
    = 10.03 s and the tokens/s 4,194,304 ÷ 10.03 = 418.2k; the answer leads with those (bold),
    the prediction second, and says no `mfu: predict` figure (the bill is the pilots')."""
    text = answers.step_time("TP8 · PP4×v10 · DP16", False, 8.77, 0.454, 0.40, 0.50,
                             4194304 / 8.77, center=0.05, n=12,
                             calibrated={"value": 0.397, "low": 0.337, "high": 0.456})
    assert text.startswith("Calibrated on the scenario's pilots, one optimizer step takes "
                           "**10.0 s** on the plan the scenario fixes, TP8 · PP4×v10 · DP16: an "
                           "MFU of **39.7%** (band 33.7%–45.6%), 418.2k tokens/s")
    assert "predicts 8.77 s, an MFU of 45.4% (band 40.0%–50.0%)" in text
    assert text.index("**39.7%**") < text.index("45.4%")
    assert "mfu: predict" not in text and "measured less than it prices" in text
    # without pilots the answer is the prediction's, as before
    assert answers.step_time("TP2", True, 1.82, 0.505, 0.416, 0.505, 2.3e6).startswith(
        "One optimizer step takes **1.82 s**")


def test_notebook_01_says_a_run_past_nine_months():
    # 1e15 tokens of opt-1.3b on 1 A100 at 35% MFU: a trial's 961,693-day run was answered
    # without a word where estimate warns. Over 10 years (120 months) the bill's warning
    # (validation.long_run_words: 961,693 / 365.25 = 2,633 years) closes the answer; past 9
    # months the shorter one; under them none.
    run = {"model_flops": 1e25, "training_flops_6nd": 9e24, "gpu_hours": 23.08e6,
           "wall_clock_days": 961693.1, "compute_cost_usd": 4.6e7}
    text = answers.flops("opt-1.3b", "A100-40GB", 1, 1e15, 0.35, 2.0, run)
    # what the days count is said (a trial read 412, 426 and 517 days of one run on three
    # pages): notebook 01's are the main run's with no failures
    assert "**Note:** The training run's wall clock is 2,633 years (961,693 days on 1 GPU, the " \
        "main run with no failures)" \
        in text and 961693.1 / 365.25 == pytest.approx(2633, abs=0.5)
    nine = answers.flops("x", "H100-SXM", 8, 1e12, 0.4, 2.0, {**run, "wall_clock_days": 300.0})
    assert "wall clock is 9.9 months (300 days on 8 GPUs, the main run with no failures), " \
        "over 9 months" in nine  # 300 / 30.44
    assert "Note" not in answers.flops("x", "H100-SXM", 8, 1e12, 0.4, 2.0,
                                       {**run, "wall_clock_days": 30.0})


def test_scaling_answer_at_the_optimum_does_not_advise_a_move():
    # A reader's trial: OPT-1.3B on 30B tokens is 0.99× the Epoch fit's optimum for its compute
    # and its allocation costs 0.0% extra compute (scaling.run_efficiency), yet 06 read "train
    # bigger (on fewer tokens)". By hand, the fit's optimum for C = 6 × 1.3e9 × 3e10 is the run
    # itself within 1%: the answer says it is at the optimum.
    from llmcost.laws import scaling as sc
    n, d = 1.3e9, 3e10
    n_opt, d_opt = sc.compute_optimal(6 * n * d, "besiroglu2024")
    eff = sc.run_efficiency(n, d, "besiroglu2024")
    assert abs(n / n_opt - 1) < 0.05 and eff["compute_overhead"] < answers.AT_OPTIMUM_OVERHEAD
    text = answers.scaling("opt-1.3b", n, d, "besiroglu2024", n_opt, d_opt,
                           compute_overhead=eff["compute_overhead"])
    assert "at the compute-optimal split" in text and "train bigger" not in text
    # a model a tenth of the optimum is told to train bigger (Hoffmann et al. 2022 §3)
    far = sc.run_efficiency(n / 10, d * 10, "besiroglu2024")
    assert far["compute_overhead"] > answers.AT_OPTIMUM_OVERHEAD
    assert "train bigger" in answers.scaling("x", n / 10, d * 10, "besiroglu2024", n_opt, d_opt,
                                             compute_overhead=far["compute_overhead"])


def test_sweep_row_flags_an_mfu_above_the_best_comparable_run():
    # A trial (Llama 3.1 8B at 131,072 tokens on 256 H100, mfu 0.30): notebook 09 listed
    # "H100-SXM: $120k, 3.3 days, MFU 35.8% (predicted 46.6%)" beside a lever that raised the MFU
    # only to the best comparable published run, 31.5% (MPT 13b, llm-foundry's H100 table).
    # 35.8% is the band's top set by the model's own low end, above that run: the line says so.
    r = {"accelerator": "H100-SXM", "bill_usd": 119830.0, "days": 3.3, "mfu": 0.358,
         "predicted_mfu": 0.466, "mfu_ceiling": 0.315, "price_basis": "catalogue median",
         "price_source": "Hyperstack 2026-08 $2.72"}
    line = answers.sweep_row(r)
    assert line == ("H100-SXM: $120k, 3.3 days, MFU 35.8% (predicted 46.6%; above the best "
                    "comparable published run, 31.5%); price (catalogue median): Hyperstack "
                    "2026-08 $2.72")
    # at or below the run, or with no comparable run (None or NaN), nothing is added
    for ceiling in (0.40, 0.358, None, float("nan")):
        assert "above the best" not in answers.sweep_row({**r, "mfu_ceiling": ceiling})


def test_sweep_row_on_the_scenarios_hardware_gives_the_bill_at_its_own_mfu():
    # A new-user trial (a 14B model on 256 H200s, mfu 0.38): notebook 09 §4 listed "H200:
    # $1.68M, 35.5 days, MFU 34.7%", the central estimate of the prediction, where the bill,
    # the index and the lever table all priced the scenario's own 38.0% at $1.54M. The row on the
    # scenario's hardware now gives its bill at the scenario's MFU too (bill_calibrated_usd: the
    # scenario's bill itself, tests/test_levers.py::test_hardware_sweep); other rows do not.
    r = {"accelerator": "H200", "bill_usd": 1.682e6, "days": 35.5, "mfu": 0.347,
         "predicted_mfu": 0.323, "mfu_ceiling": None, "price_basis": "the scenario's price",
         "price_source": "the scenario's own price", "scenario": True, "calibrated_mfu": 0.38,
         "bill_calibrated_usd": 1.54e6}
    assert "MFU 34.7% (predicted 32.3%); at the scenario's own MFU, 38.0%, the basis of its " \
        "bill: $1.54M; price" in answers.sweep_row(r)
    # the same hardware at the catalogue price is not the scenario's bill (a review)
    for other in ({"scenario": False}, {"calibrated_mfu": 0.347}, {"calibrated_mfu": None},
                  {"price_basis": "catalogue median (reserved)"}):
        assert "own MFU" not in answers.sweep_row({**r, **other})


def test_top_level_points_split_outside_parentheses():
    # a teacher: a long sentence of advice printed as one block; split at "; " it broke the
    # plans in its parentheses apart
    words = "the count forces it; without it (a; b): 64 GPUs (x; y) or 128; priced as given"
    assert answers.top_level_points(words) == [
        "the count forces it", "without it (a; b): 64 GPUs (x; y) or 128", "priced as given"]
    assert answers.top_level_points("one") == ["one"]
