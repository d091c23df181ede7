"""The bill's published non-compute defaults, the public licensing deals, the hardware price
series and the check against Epoch AI's decomposition, each against its source."""

import math

import numpy as np
import pytest

import llmcost
from llmcost.bill import ledger, published
from llmcost.bill.pricing import default

SC405 = llmcost.load_scenario(llmcost.SCENARIO_DIR / "llama-3.1-405b.yaml")


def test_defaults_match_their_papers():
    # Llama 2 (arXiv:2307.09288): Table 6, 1,418,091 Meta comparisons; §3.1, 27,540 SFT
    # annotations; §3.4.2 and Table 32, 18,579 generation pairs (about 4,000 prompts against each
    # of five comparison models) rated by three annotators each.
    assert default("preference_comparisons") == 1_418_091
    assert default("sft_demonstrations") == 27_540
    assert default("human_eval_ratings") == (1917 + 2256 + 1869 + 2143 + 1917 + 1960 + 1917 + 1293
                                             + 1917 + 1390) * 3
    # FineWeb (arXiv:2406.17557 §4): 6,000 H100 GPU-hours for 15 trillion tokens.
    assert default("data_processing_gpu_hours_per_token") * 15e12 == pytest.approx(6_000, rel=1e-9)
    # HELM (arXiv:2211.09110): 12.2B tokens over 30 models.
    assert default("eval_suite_tokens") * 30 == pytest.approx(12.2e9, rel=0.01)
    # AlpacaEval's evaluators' table: humans $300 per 1,000 pairwise preferences.
    assert default("usd_per_preference_comparison") * 1000 == pytest.approx(300.0, rel=1e-9)


def test_licensing_deals_as_reported():
    d = published.licensing_deals().set_index("deal")
    # Reddit S-1 (2024-02-22): $203.0M aggregate contract value, 2-3 year terms.
    assert d.loc["reddit-s1-2024", "usd"] == pytest.approx(203.0e6)
    # WSJ (2024-05-22): more than $250M over five years.
    assert d.loc["openai-newscorp-2024", "usd_per_year"] == pytest.approx(250e6 / 5)
    assert (d["usd_per_year"] * d["years"]).to_numpy() == pytest.approx(d["usd"].to_numpy())
    assert "Reddit" in published.licensing_text()


def test_llama_405b_every_non_compute_line_is_sourced_or_says_what_was_searched():
    # The "done when": on the 405B scenario each data / annotation / evaluation / people
    # line is a published default (source and range in the bill) or "not given" with the
    # sources searched.
    bill = ledger.build_ledger(SC405)
    lines = [ln for ln in bill.lines if ln.category in ("data", "evaluation", "people")]
    assert {ln.key for ln in lines} >= {"data.licensing", "data.processing", "data.synthetic",
                                        "data.annotation", "eval.benchmarks", "eval.human",
                                        "people.staff"}
    for ln in lines:
        if ln.status == "default":
            assert "published default" in ln.how and "data/ledger_defaults.csv" in ln.source
            assert "(" in ln.how and any(w in ln.how for w in ("single published", "published low",
                                                                 "published high", "range"))
            assert ln.usd > 0
        else:
            assert ln.status == "not given" and "Searched:" in ln.how and ln.usd == 0
    # hand derivations of the amounts
    assert bill.line("data.annotation").usd == pytest.approx((1_418_091 + 27_540) * 0.30)
    assert bill.line("eval.human").usd == pytest.approx(55_737 * 0.30)
    rate = bill.figures["price_usd_per_gpu_hour"]
    assert bill.line("data.processing").usd == pytest.approx(15.6e12 * 6_000 / 15e12 * rate)
    # people, Epoch's rule: 561 authors (arXiv:2407.21783) × E[FTE] × months / 12 × E[loaded
    # cost]: Epoch draws each contributor's FTE (log-normal, 90% CI 0.05-0.8) and pay
    # independently and sums them, so the sum is near N × the means: E[FTE] = 0.2 ·
    # exp(σ²/2), σ = ln(16) / (2 · 1.6449), = 0.28528; E[loaded cost] $444,245
    # (test_contributor_rule_reproduces_epochs_draws derives it)
    months = bill.figures["project_months"]
    e_fte = 0.2 * math.exp((math.log(16) / (2 * 1.6448536)) ** 2 / 2)
    assert e_fte == pytest.approx(0.28528, abs=1e-5)
    assert bill.line("people.staff").usd == pytest.approx(561 * e_fte * months / 12 * 444_245,
                                                          rel=1e-6)
    # over the project, as Epoch's rule counts it: the median of its four case studies' project
    # durations (development_cost.ipynb at 3c6aafa: GPT-3 8.3, OPT-175B 192 days = 6.3, GPT-4
    # 12, Gemini 12 months), (8.3 + 12) / 2 = 10.15 months, longer than this run's 2.85
    assert months == pytest.approx((8.3 + 12) / 2)
    assert bill.figures["run_wall_clock_days"] / (365.25 / 12) < months
    assert bill.line("people.staff").usd == pytest.approx(561 * e_fte * 10.15 / 12 * 444_245,
                                                          rel=1e-6)
    assert "0.05-0.8" in bill.line("people.staff").how
    # without the contributor count the line says what was searched
    bare = ledger.build_ledger({**SC405, "ledger_contributors": None})
    assert bare.line("people.staff").status == "not given"
    assert "Searched:" in bare.line("people.staff").how


def test_defaults_are_opt_in_and_given_values_win():
    plain = ledger.build_ledger({})
    assert plain.line("data.annotation").status == "not given"
    assert plain.line("data.annotation").usd == 0.0
    assert "Searched" not in plain.line("data.licensing").how
    given = ledger.build_ledger({**SC405, "ledger_annotation_samples": 10.0,
                                 "ledger_annotation_usd_per_sample": 2.0,
                                 "ledger_data_processing_usd": 5.0})
    assert given.line("data.annotation").usd == pytest.approx(20.0)
    assert given.line("data.annotation").status == "modelled"
    assert given.line("data.processing").usd == pytest.approx(5.0)


def test_published_defaults_survive_the_monte_carlo():
    draws = ledger.simulate_ledger(SC405, samples=64)
    s = draws.summary()
    assert s.loc["data.annotation", "p50"] == pytest.approx((1_418_091 + 27_540) * 0.30)
    assert s.loc["data.processing", "p90"] >= s.loc["data.processing", "p10"] > 0


def test_fte_per_contributor_is_epochs_lognormal_median():
    # Epoch's code draws FTE per contributor from a log-normal with 90% CI 0.05-0.8: its median
    # is the geometric mean of the two bounds.
    value, low, high = published.default_range("fte_per_contributor")
    assert (low, high) == (0.05, 0.8)
    assert value == pytest.approx(math.sqrt(low * high), rel=1e-9)


def test_epoch_decomposition_by_hand():
    bill = ledger.build_ledger({**SC405, "pricing": "owned",
                                "ledger_people": [{"role": "research", "fte": 100}]})
    d = published.epoch_decomposition(bill).set_index("component")
    # hardware = all GPU-hours × $27,500 × 1.64 / (1 - 0.19) × 0.14 ln 10 / 8,766 h
    capex = 27_500 * 1.64 / 0.81 * 0.14 * math.log(10) / (24 * 365.25)
    assert d.loc["hardware", "usd"] == pytest.approx(bill.figures["all_gpu_hours"] * capex)
    assert d.loc["staff", "usd"] == pytest.approx(bill.line("people.staff").usd)
    assert d["share"].sum() == pytest.approx(1.0)
    # Cottier et al. 2024: energy is 2-6 % of the amortised development cost; the bill's energy
    # (Epoch's own power model, data/ledger_defaults.csv) lands inside it for an H100 run.
    assert 0.02 <= d.loc["energy", "share"] <= 0.06
    with pytest.raises(ValueError, match="pricing='owned'"):
        published.epoch_decomposition(ledger.build_ledger(SC405))


def test_acquisition_is_years_of_amortisation():
    # acquisition / amortised = n_gpus × 8,766 h / (GPU-hours × 0.14 ln 10): a hand derivation.
    bill = ledger.build_ledger({**SC405, "pricing": "owned"})
    a = published.acquisition_vs_amortised(bill)
    want = 16_384 * 24 * 365.25 / (bill.figures["all_gpu_hours"] * 0.14 * math.log(10))
    assert a["ratio"] == pytest.approx(want, rel=1e-9)


def test_price_performance_trend_against_epoch():
    t = published.price_performance_trend("purchase")
    # hand derivation of the slowest step, A100 (2020-07, $15,000, 312 TF) to H100 (2023-08,
    # $27,500, 989.4 TF): log10 of the ratio of FLOP/s per $ over 3.08 years
    a100, h100 = 3.12e14 / 15_000, 9.894e14 / 27_500
    step = math.log10(h100 / a100) / ((2023 + 7.5 / 12) - (2020 + 6.5 / 12))
    assert t["low"] == pytest.approx(step, rel=1e-9)
    assert t["low"] <= t["ooms_per_year"] <= t["high"]
    # Epoch AI (Cottier et al. 2024 §2.2): ML GPU price-performance, 0.14 OOM/year at FP32; three
    # list prices at dense 16-bit tensor peak give the same order (a two-sided band of +-0.07
    # OOM/year), not the same quantity.
    assert abs(t["ooms_per_year"] - 0.14) < 0.07
    f = published.repriced_forecast(ledger.build_ledger(SC405), years=(0, 1))
    assert f.loc[0, "gpu_usd_trend"] == pytest.approx(published.gpu_hour_usd(
        ledger.build_ledger(SC405)))
    assert f.loc[1, "gpu_usd_low"] < f.loc[1, "gpu_usd_trend"] < f.loc[1, "gpu_usd_high"]


def test_a_rented_bill_is_repriced_on_the_rent_trend_an_owned_one_on_purchase():
    # A teacher's trial: notebook 00 re-priced an on-demand bill on the purchase trend. A year
    # on, the GPU-hour lines are × 10^(−r) at the rent trend's fitted rate r.
    rented = ledger.build_ledger(SC405)            # reserved: rented hours
    assert rented.figures["pricing"] == "reserved"
    f = published.repriced_forecast(rented, years=(0, 1))
    t = published.price_performance_trend("rent_on_demand")
    assert f.attrs["kind"] == "rent_on_demand"
    assert f.loc[1, "gpu_usd_trend"] == pytest.approx(
        published.gpu_hour_usd(rented) * 10 ** -t["ooms_per_year"], rel=1e-9)
    # the rate itself by hand: the least-squares slope of log10(FLOP/s per $/GPU-h) against the
    # date through each generation's first on-demand listing in data/hardware_price_series.csv
    # (V100, A100, H100 2023; numpy's polyfit, not the module's code), 0.060 OOM/year (the
    # purchase trend's 0.097 would move the bill more)
    s = published.hardware_price_series()
    rent = s[s["kind"] == "rent_on_demand"].sort_values("year").groupby("accelerator").head(1)
    assert len(rent) == 3
    slope = np.polyfit(rent["year"], np.log10(rent["flops_per_usd"]), 1)[0]
    assert t["ooms_per_year"] == pytest.approx(slope, rel=1e-6)
    assert slope == pytest.approx(0.060, abs=0.001)
    owned = ledger.with_changes(rented, pricing="owned", price_usd_per_gpu_hour=None)
    assert published.repriced_forecast(owned, years=(0, 1)).attrs["kind"] == "purchase"


def test_bad_inputs_name_the_field():
    with pytest.raises(ValueError, match="kind='spot'"):
        published.price_performance_trend("spot")
    with pytest.raises(ValueError, match="years="):
        published.cost_after(1.0, -1, 0.1)
    with pytest.raises(ValueError, match="key='data.nothing'"):
        published.not_published("data.nothing")
    with pytest.raises(ValueError, match="ledger_published_defaults"):
        ledger.build_ledger({"ledger_published_defaults": "yes"})


def test_claim_questions_ask_batch_plan_communication_and_rerun():
    # Llama 3 (arXiv:2407.21783, Table 4): 16M-token batches on TP 8 × PP 16 × DP 128.
    q = ledger.claim_questions(ledger.build_ledger(SC405)).set_index("question")["answer"]
    batch = q[q.index.str.contains("global batch")].iloc[0]
    assert batch.startswith("16,777,216 tokens per step")
    assert f"{15.6e12 / 16_777_216:,.0f} steps" in batch
    assert q[q.index.str.contains("parallel plan")].iloc[0].startswith("TP 8 × PP 16 × DP 128")
    assert "MFU" in q[q.index.str.contains("communication")].iloc[0]
    assert "not given" in q[q.index.str.contains("rerun")].iloc[0]  # the scenario gives no P(rerun)
    # "at what precision?" answered (a compute-governance trial's FP8 DeepSeek-V3 read only
    # "2,048 × H800"): Llama 3 405B trained in BF16 (§3.3), DeepSeek-V3 in FP8 (§3.3)
    assert q[q.index.str.contains("precision")].iloc[0] == "16,384 × H100-SXM in BF16"
    ds = ledger.build_ledger({"model": "deepseek-v3", "accelerator": "H800", "n_gpus": 2048,
                              "train_tokens": 14.8e12, "mfu": 0.2, "dtype": "fp8",
                              "price_usd_per_gpu_hour": 2.0})
    said = ledger.claim_questions(ds).set_index("question")["answer"]
    assert said[said.index.str.contains("precision")].iloc[0] == "2,048 × H800 in FP8"
    # a bill that does not read the plan keys (a report's: the ledger's own keys) points to the
    # notebook that shows the plan, rather than saying the scenario gives none
    plain = ledger.claim_questions(ledger.build_ledger({})).set_index("question")["answer"]
    # and says why no plan enters its numbers, beside which page shows the plan's memory and
    # bubble (a consistency audit: "not read by this bill" beside the report's bubble warning)
    assert plain[plain.index.str.contains("parallel plan")].iloc[0] == (
        "not among this page's values: the bill's MFU is given, so no plan enters its numbers; "
        "notebook 03 shows the scenario's plan, its memory and its pipeline bubble")
    # ... unless its MFU was predicted, which is the plan's (a trial's mfu: predict bill read
    # "not read by this bill" though its MFU came from the plan the step-time model chose)
    pred = ledger.build_ledger({})
    pred.figures["mfu_source"] = "predicted (mfu: predict) by llmcost.step"   # _bill_mfu's words
    said = ledger.claim_questions(pred).set_index("question")["answer"]
    assert said[said.index.str.contains("parallel plan")].iloc[0].endswith(
        "the bill's MFU is the one predicted for that plan (notebook 04b)")
    free = ledger.claim_questions(ledger.build_ledger({"tp": 0, "pp": 0})).set_index(
        "question")["answer"]
    assert free[free.index.str.contains("parallel plan")].iloc[0].startswith(
        "not fixed by the scenario: notebook 03")
    # notebook 00's bill keeps the ledger's keys only (validation.validate_scenario): the page
    # passes its values, whose batch answers the question (a review found it still "not given")
    from llmcost.bill import validation
    page = {"model": "llama-2-70b", "train_tokens": 2e12, "global_batch_tokens": 4194304}
    bill = validation.validate_scenario(page, check_plan=False, check_setups=False)
    assert ledger.plan_questions(bill)[0][1] == "not given"
    assert ledger.plan_questions(bill, page)[0][1].startswith(
        f"4,194,304 tokens per step, {2e12 / 4194304:,.0f} steps")
    part = ledger.plan_questions(ledger.build_ledger({"n_gpus": 256, "tp": 8, "cp": 8}))
    assert part[1][1].startswith("TP 8 × CP 8 fixed by the scenario; the rest chosen")


def test_published_defaults_read_as_their_sources_give_them():
    # Llama 2's 1,418,091 preference comparisons (arXiv:2307.09288 Table 6) read "1.41809e+06"
    # and the human-evaluation ratings "55737 (the low end, 12000: ...)"; FineWeb's 6,000 H100
    # GPU-hours for 15T tokens (Penedo et al. 2024) is 4e-10 GPU-h per token, not "4.00e-10"
    from llmcost.bill.published import range_text
    assert range_text("preference_comparisons").startswith("1,418,091 (a single published")
    # its published low is one comparison model's ~4,000 prompts × 3 raters = 12,000 (the
    # row's note); "the low end, 12,000" beside 55,737 read as if 55,737 were the low end
    assert range_text("human_eval_ratings").startswith("55,737 (published low 12,000, no "
                                                       "published high")
    assert 6000 / 15e12 == pytest.approx(4e-10)
    # the line's words give the count its figure is: Table 32's 18,579 rated generation pairs
    # × 3 raters = 55,737 (an audit multiplied the old "~4,000 prompts ... five models × 3" to
    # 60,000)
    assert 18_579 * 3 == 55_737
    how = ledger.build_ledger({"ledger_published_defaults": True}).line("eval.human").how
    assert "55,737 (published low 12,000, no published high" in how
    assert "(Llama 2: 18,579 generation pairs rated against five comparison models, Table 32, " \
           "× 3 raters)" in how
    assert range_text("data_processing_gpu_hours_per_token").startswith("4e-10 (")
    assert range_text("exploratory_fraction").startswith("1.19 (range 0.2-3;")


def test_ranged_energy_and_purchase_inputs_read_at_their_points(tmp_path):
    # A trial: ledger_pue, ledger_electricity_usd_per_kwh or ledger_owned_usd_per_gpu given as
    # a range (README: they may be) stopped notebook 00 in epoch_decomposition with "must be a
    # number": the bill keeps the ranges in its scenario, and these read them raw. At their
    # points they equal the same bill with the points given (uniform [a, b]: (a + b) / 2).
    from llmcost.bill import published
    from llmcost.bill.scenario import load_scenario
    from llmcost.bill.validation import validate_scenario
    base = ("model: llama-3.1-8b\naccelerator: H100-SXM\nn_gpus: 64\ntrain_tokens: 1.0e11\n"
            "seq_len: 4096\nmfu: 0.4\npricing: owned\n")
    ranged = tmp_path / "r.yaml"
    ranged.write_text(base + "ledger_pue: [1.1, 1.25]\nledger_electricity_usd_per_kwh: "
                      "[0.06, 0.12]\nledger_owned_usd_per_gpu: [25000, 35000]\n")
    points = tmp_path / "p.yaml"
    points.write_text(base + "ledger_pue: 1.175\nledger_electricity_usd_per_kwh: 0.09\n"
                      "ledger_owned_usd_per_gpu: 30000\n")
    bills = [validate_scenario(load_scenario(x), check_plan=False, check_setups=False)
             for x in (ranged, points)]
    d = [published.epoch_decomposition(b) for b in bills]
    assert d[0]["usd"].tolist() == pytest.approx(d[1]["usd"].tolist(), rel=1e-9)
    a = [published.acquisition_vs_amortised(b) for b in bills]
    assert a[0]["acquisition_usd"] == pytest.approx(a[1]["acquisition_usd"], rel=1e-12)


def test_the_published_project_duration_is_at_least_the_run_and_yields_to_a_given_one():
    # Epoch's staff rule is per project month (data/ledger_defaults.csv project_months_published:
    # the case studies' median, 10.15 months, their 90% bounds 4-20); a given
    # ledger_project_months wins; a run longer than 10.15 months keeps its own wall clock; and
    # without ledger_published_defaults the convention is the compute schedule (below).
    assert default("project_months_published") == pytest.approx((8.3 + 12) / 2)
    given = ledger.build_ledger({**SC405, "ledger_project_months": 18.0})
    assert given.figures["project_months"] == 18.0
    e_fte = 0.2 * math.exp((math.log(16) / (2 * 1.6448536)) ** 2 / 2)  # the mean FTE
    assert given.line("people.staff").usd == pytest.approx(561 * e_fte * 18 / 12 * 444_245,
                                                           rel=1e-6)
    slow = ledger.build_ledger({**SC405, "n_gpus": 1024, "dp": 8, "phases": []})
    run_months = slow.figures["run_wall_clock_days"] / (365.25 / 12)
    # a schedule longer than 10.15 months keeps its own length: the compute schedule notebook
    # 00's step 7 lays out (exploration, the run, post-training one after the other: a
    # lecturer found a 10.15-month project priced under a 15-month schedule)
    schedule = ledger.spend_timeline(slow).attrs["schedule_days"] / (365.25 / 12)
    assert run_months > 10.15 and schedule > run_months
    assert slow.figures["project_months"] == pytest.approx(schedule, rel=1e-9)
    assert "at least Epoch's median project, 10.15 months" in slow.figures["project_months_source"]
    assert "the compute schedule (exploration, the final run and post-training" in \
        slow.figures["project_months_source"]
    # Monte Carlo draws on both sides of 10.15 months: each takes the longer, and the words say
    # so with the draws' span (the review read "6.57 months, at least ... 10.15 months")
    from llmcost.bill.ledger import _published_project_months
    drawn, words, basis = _published_project_months(np.array([6.0, 12.0, 8.0]), "")
    assert basis == "epoch_or_schedule"
    assert drawn.tolist() == [10.15, 12.0, 10.15]
    assert "the longer, draw by draw, of Epoch's median project, 10.15 months" in words
    assert "(6.00-12.00 months over the draws)" in words
    # without the published defaults the convention: the compute schedule (the run, its
    # exploration and post-training), no floor of Epoch's
    plain = ledger.build_ledger({**SC405, "ledger_published_defaults": False})
    assert plain.figures["project_months"] == pytest.approx(
        sum(plain.figures["schedule_days"].values()) / (365.25 / 12))
    assert plain.figures["project_months"] > plain.figures["run_wall_clock_days"] / (365.25 / 12)


def test_contributor_rule_reproduces_epochs_draws():
    # A source audit: the rule multiplied the median FTE (0.2) by the median loaded cost
    # ($400K), where Epoch's code (epoch-research/training-cost-trends development_cost.ipynb
    # at 3c6aafa, cell 43) draws each contributor's salary, overhead, equity and FTE and sums
    # over the contributors: for OPT-175B's 19 authors over 192 days its draws' median is
    # about $1.21M and N × the medians gave $0.80M. Re-drawn here with Epoch's own bounds
    # (cell 9: salary √(148,000 × 132,000) to √(335,000 × 210,000), equity √(34,000 × 37,000)
    # to √(760,000 × 331,250); cell 13: overhead 1.25-1.4; utils.lognorm_from_90_ci: the 5th
    # and 95th percentiles), the rule's N × the means sits within 3% of the draws' mean and
    # within 6% of their median, and the stored mean pay is the analytic
    # E[salary]·E[overhead] + E[equity].
    from llmcost.bill import ranges
    from llmcost.bill.pricing import default
    z = 1.6448536269514722
    rng = np.random.default_rng(7)

    def draw(lo, hi, size):
        s = math.log(hi / lo) / (2 * z)
        return rng.lognormal(math.log(lo) + z * s, s, size)

    sal = (math.sqrt(148_000 * 132_000), math.sqrt(335_000 * 210_000))
    eq = (math.sqrt(34_000 * 37_000), math.sqrt(760_000 * 331_250))
    mean_pay = ranges.lognormal_mean(*sal) * ranges.lognormal_mean(1.25, 1.4) \
        + ranges.lognormal_mean(*eq)
    assert default("staff_usd_per_fte_year_mean") == pytest.approx(mean_pay, abs=1.0)
    n, months, samples = 19, 192 / (365.25 / 12), 20_000
    bill = ledger.build_ledger({**SC405, "ledger_contributors": n, "ledger_project_months":
                                months})
    usd = bill.line("people.staff").usd
    # every pay component drawn per sample and contributor: the sum's mean and median
    pay = draw(*sal, (samples, n)) * draw(1.25, 1.4, (samples, n)) + draw(*eq, (samples, n))
    total = (pay * draw(0.05, 0.8, (samples, n))).sum(axis=1) * months / 12
    assert usd == pytest.approx(total.mean(), rel=0.03)
    assert usd == pytest.approx(float(np.median(total)), rel=0.06)
    # Epoch's own draw (cell 58): equity drawn once per contributor, held across the samples;
    # the mean over those held draws is the same, and the rule sits inside the 90% CI the
    # notebook prints for OPT-175B (cell 60: "Median: 1.1e+06 [90% CI: 7.8e+05, 1.7e+06]")
    held = [((draw(*sal, (2_000, n)) * draw(1.25, 1.4, (2_000, n)) + draw(*eq, n))
             * draw(0.05, 0.8, (2_000, n))).sum(axis=1).mean() * months / 12
            for _ in range(100)]
    assert usd == pytest.approx(float(np.mean(held)), rel=0.05)
    assert 0.78e6 < usd < 1.7e6
    assert n * 0.2 * 400_000 * months / 12 < 0.8 * 1.1e6   # N × the medians: well below it
    assert "0.285 FTE each" in bill.line("people.staff").how


def test_lognormal_mean_by_hand_and_its_refusals():
    from llmcost.bill import ranges
    # median √(0.05 · 0.8) = 0.2, σ = ln 16 / (2 · 1.6449) = 0.84281, × exp(σ²/2) = 1.42641
    assert ranges.lognormal_mean(0.05, 0.8) == pytest.approx(0.285282, abs=1e-6)
    assert ranges.lognormal_mean(3.0, 3.0) == 3.0          # no spread: the value itself
    for lo, hi in ((0.0, 1.0), (-1.0, 1.0), (2.0, 1.0), (float("nan"), 1.0)):
        with pytest.raises(ValueError, match="lognormal_mean"):
            ranges.lognormal_mean(lo, hi)
