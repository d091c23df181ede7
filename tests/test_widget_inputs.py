"""The Explore panels (llmcost.present.widgets) are public entry points: a value outside its
scenario rule is refused with a ValueError naming the key, the value and the rule, and a
scenario's own value is shown as given, never clamped to a slider's end (ipywidgets clamps a
value outside a slider's range without a word: a trial's 65,536-token responses were priced at
the slider's 32,768, 2,078 s for an iteration of 7,330 s)."""
import re
import warnings

import pytest

import llmcost
from llmcost import SCENARIO_DIR
from llmcost.present import report
from llmcost.present import widgets

pytest.importorskip("ipywidgets")


def _sliders(box, out=None):
    import ipywidgets as w
    out = [] if out is None else out
    for c in getattr(box, "children", ()):
        if isinstance(c, w.Box):
            _sliders(c, out)
        elif hasattr(c, "value") and hasattr(c, "max"):
            out.append(c)
    return out


def _by_name(box):
    return {s.description: s for s in _sliders(box)}


def test_flops_explorer_refuses_bad_input_and_shows_the_scenarios_mfu(capsys):
    kw = dict(model="llama-2-70b", accelerator="H100-SXM", train_tokens=2e12, mfu=0.4,
              n_gpus=2048, price_usd_per_gpu_hour=3.99)
    for bad, message in ((dict(mfu=0), r"mfu=0\.0 must be in \(0, 1\]"),
                         (dict(mfu=1.5), r"mfu=1\.5 must be in \(0, 1\]"),
                         (dict(train_tokens=-1), r"train_tokens=-1\.0 must be >= 0"),
                         (dict(price_usd_per_gpu_hour=-1),
                          r"price_usd_per_gpu_hour=-1\.0 must be > 0"),
                         (dict(price_usd_per_gpu_hour=None), r"price_usd_per_gpu_hour=None"),
                         (dict(n_gpus=2.5), r"n_gpus=2\.5 must be a whole number")):
        with pytest.raises(ValueError, match=message):
            widgets.flops_explorer(**{**kw, **bad})
    # 10^8 tokens, below the slider's 10^9, are shown as given
    s = _by_name(widgets.flops_explorer(**{**kw, "train_tokens": 1e8}))
    assert s["tokens"].value == pytest.approx(1e8) and s["tokens"].min <= 8
    # an MFU of 0.85, a valid scenario value above H100's measured matmul ceiling (0.80,
    # data/efficiency.csv): the slider stops at the ceiling and the panel says so
    capsys.readouterr()
    box = widgets.flops_explorer(**{**kw, "mfu": 0.85})   # outside a kernel, the panel's
    assert _by_name(box)["MFU"].value == 0.80              # output goes to stdout
    printed = capsys.readouterr().out
    assert "the scenario's MFU, 85%, is above H100-SXM's measured matmul ceiling, 80%" in printed


def _rl_parameters():
    plan = report.plan_report(str(SCENARIO_DIR / "default.yaml"), ["05"])
    p = report.notebook_parameters_for(plan.notebooks[0], plan)
    return llmcost.validate_parameters(**{"rl_train_mfu": None, **p})  # the notebook's default


def test_rl_explorer_needs_its_keys_and_holds_long_responses():
    warnings.simplefilter("ignore")
    p = _rl_parameters()
    with pytest.raises(ValueError, match=r"rl_explorer: p lacks \['rl_algorithm'"):
        widgets.rl_explorer("llama-2-70b", "H100-SXM", {}, 3.99)
    with pytest.raises(ValueError, match=r"accelerator='bogus' is not in the catalogue"):
        widgets.rl_explorer("llama-2-70b", "bogus", p, 3.99)
    with pytest.raises(ValueError, match=r"price_usd_per_gpu_hour='3\.99' must be a number"):
        widgets.rl_explorer("llama-2-70b", "H100-SXM", p, "3.99")
    with pytest.raises(ValueError, match=r"rl_samples_per_prompt=nan must be finite"):
        widgets.rl_explorer("llama-2-70b", "H100-SXM", {**p, "rl_samples_per_prompt":
                                                        float("nan")}, 3.99)
    long = {**p, "rl_response_tokens": 65536, "rl_response_tokens_max": 131072}
    s = _by_name(widgets.rl_explorer("llama-2-70b", "H100-SXM", long, 3.99))
    assert s["mean resp."].value == 65536 and s["tail ×"].value == 2.0


def test_rl_explorer_says_a_rollout_longer_than_the_model_is_trained_at(capsys):
    # A trial set 32,768-token mean responses × 3.5 on a model trained at 4,096 tokens and read
    # an iteration priced without a word; `llmcost estimate` warns of the same values
    # (checks.rl_context_warning), and so does the panel now.
    warnings.simplefilter("ignore")
    p = {**_rl_parameters(), "seq_len": 4096}
    s = _by_name(widgets.rl_explorer("llama-2-70b", "H100-SXM", p, 3.99))
    capsys.readouterr()
    s["mean resp."].value = 32768
    out = " ".join(capsys.readouterr().out.split())
    assert "note: the RL campaign's longest rollout, rl_prompt_tokens + rl_response_tokens_max" \
        in out and "is beyond the 4,096 tokens the scenario trains its model at" in out


def test_rl_explorer_rollout_slider_ends_on_whole_replicas_and_says_async_needs_them(capsys):
    # A trial: rl_gpus 64 at rollout TP 4 put the slider's end at 63, which no replica count
    # prices; and "asynchronous" with 0 rollout GPUs was priced synchronous without a word
    warnings.simplefilter("ignore")
    p = {**_rl_parameters(), "rl_gpus": 64, "rl_rollout_tp": 4, "rl_rollout_gpus": 0,
         "rl_async": False}
    import ipywidgets as w
    box = widgets.rl_explorer("llama-2-70b", "H100-SXM", p, 3.99)
    s = _by_name(box)
    assert s["rollout GPUs"].max == 60 and s["rollout GPUs"].max % 4 == 0
    capsys.readouterr()

    def boxes(b):
        for c in getattr(b, "children", ()):
            yield c
            yield from boxes(c)
    (asyn,) = [c for c in boxes(box) if isinstance(c, w.Checkbox)
               and c.description == "asynchronous"]
    asyn.value = True
    assert "asynchronous needs rollout GPUs of its own" in capsys.readouterr().out


def test_scaling_explorer_opens_on_the_pages_values_beyond_its_default_ranges(capsys):
    # A trial: a $12.5 GPU-hour opened at $10, 3e27 FLOPs at 1e27, a serving price 3.0 at 1.0
    import matplotlib
    matplotlib.use("Agg")
    box = widgets.scaling_explorer(3e27, "besiroglu2024", 1e12, 12.5, 3.0, "H100-SXM", 0.4)
    s = _by_name(box)
    assert s["FLOPs"].value == pytest.approx(3e27, rel=1e-9)
    assert s["$/GPU-h"].value == 12.5
    assert s["$/M tok/B"].value == pytest.approx(3.0, rel=1e-9)
    capsys.readouterr()


def test_claim_and_reliability_explorers_refuse_bad_input():
    with pytest.raises(ValueError, match=r"n_gpus=0 must be"):
        widgets.claim_explorer("llama-2-70b", "H100-SXM", n_gpus=0)
    with pytest.raises(ValueError, match=r"days=0 must be a finite number > 0"):
        widgets.claim_explorer("llama-2-70b", "H100-SXM", days=0)
    with pytest.raises(ValueError, match=r"train_tokens=-1\.0 must be >= 0"):
        widgets.claim_explorer("llama-2-70b", "H100-SXM", tokens=-1)
    kw = dict(n_params=7e10, n_gpus=2048, fail_rate_per_gpu_year=0.1, storage_bytes_per_s=1e11,
              async_=False, restart_s=600.0, ideal_gpu_hours=1e6, price_usd_per_gpu_hour=3.99)
    for bad, key in ((dict(price_usd_per_gpu_hour=-1), "price_usd_per_gpu_hour=-1"),
                     (dict(fail_rate_per_gpu_year=-1), "fail_rate_per_gpu_year=-1"),
                     (dict(restart_s=-5), "ckpt_restart_s=-5"),
                     (dict(storage_bytes_per_s=0), "ckpt_storage_bytes_per_s=0"),
                     (dict(async_="yes"), "ckpt_async='yes'")):
        with pytest.raises(ValueError, match=key):
            widgets.reliability_explorer(**{**kw, **bad})


def test_the_reliability_panel_says_a_run_that_never_finishes_as_the_bill_refuses_it(capsys):
    # A teacher at the sliders' ends (262,144 GPUs, 10 failures per GPU-year) read "job MTBF
    # 12 s, interval 10.9 s, goodput 0.0%, ... $4.77e+29". By hand: MTBF = 1 / (262,144 × 10 /
    # 31,557,600 s) = 12.0 s, below a 600 s restart alone: the goodput is far below the bill's
    # floor (reliability.GOODPUT_FLOOR, 1e-6), which the bill refuses as never finishing; the
    # panel says so and prices nothing
    from llmcost.training import reliability
    from llmcost.training.reliability import GOODPUT_FLOOR, checkpoint_plan
    kw = dict(n_params=7e10, n_gpus=262144, fail_rate_per_gpu_year=10.0,
              storage_bytes_per_s=1e11, async_=False, restart_s=600.0, ideal_gpu_hours=1e6,
              price_usd_per_gpu_hour=3.99)
    plan = checkpoint_plan(7e10, 262144, 10.0, 1e11, 600.0, "bf16-adam", 8, 50e9,
                           d2h_bytes_per_s=50e9, async_=False, planned_per_day=0.0)
    assert plan.mtbf_s == pytest.approx(31_557_600 / (262144 * 10), rel=1e-3)
    assert plan.goodput < GOODPUT_FLOOR == 1e-6 == float(reliability.GOODPUT_FLOOR_WORDS)
    capsys.readouterr()
    widgets.reliability_explorer(**kw)
    out = capsys.readouterr().out
    assert "cannot finish" in out and "never finishes" in out and "$" not in out
    # an ordinary job still gets its table (goodput above the floor)
    widgets.reliability_explorer(**{**kw, "n_gpus": 2048, "fail_rate_per_gpu_year": 0.173})
    assert "cannot finish" not in capsys.readouterr().out



def test_plan_panels_refuse_bad_and_unsettled_plan_fields():
    # a ZeRO stage of 7 or a recompute mode "most" raised ipywidgets' TraitError; a scenario's
    # "chosen" settings (tp 0, ZeRO -1, recompute auto) are the search's, not one plan's
    kw = dict(model="llama-2-70b", accelerator="H100-SXM", n_gpus=64,
              global_batch_tokens=4194304, seq_len=4096, tp=8, pp=1, micro_batch_size=1,
              zero_stage=1, recompute="none")
    for bad, message in ((dict(zero_stage=7), r"zero_stage=7 must be one of"),
                         (dict(recompute="most"), r"recompute='most' must be one of"),
                         (dict(tp=0), r"tp=0 is a setting the search chooses"),
                         (dict(zero_stage=-1), r"zero_stage=-1 is a setting the search chooses"),
                         (dict(recompute="auto"), r"recompute='auto' is a setting the search")):
        for panel in (widgets.step_explorer, widgets.memory_explorer):
            with pytest.raises(ValueError, match=message):
                panel(**{**kw, **bad})


def _page_parameters(scenario_text, nb, tmp_path):
    from llmcost.bill.scenario import LEDGER_DEFAULTS
    path = tmp_path / "s.yaml"
    path.write_text(scenario_text)
    plan = report.plan_report(str(path), [nb])
    p = report.notebook_parameters_for(plan.notebooks[0], plan)
    declared = report.declared_parameters(plan.notebooks[0])
    return llmcost.validate_parameters(**{**{k: v for k, v in LEDGER_DEFAULTS.items()
                                             if k in declared}, **p})


def test_panels_open_on_their_pages_numbers(tmp_path, capsys):
    # A review: the bill panel dropped an owned scenario's given rate ($2.86M on page 00, $3.06M
    # in the panel) and its people; the RL panel priced the 405B scenario's rollouts in BF16
    # where page 05 takes FP8 ("101.5 GB of bf16 weights per GPU do not fit"). Each panel's
    # first render is its page's number.
    from llmcost.bill.ledger import build_ledger
    from llmcost.core.units import fmt_usd
    from llmcost.serving import rl
    warnings.simplefilter("ignore")
    base = (SCENARIO_DIR / "default.yaml").read_text()
    for extra in ("pricing: owned\nprice_usd_per_gpu_hour: 2.0\n",
                  "ledger_people: [{role: staff, fte: 10}]\n",
                  "ledger_exploratory_runs: [{name: ablations, gpu_hours: 200000}]\n"):
        kept = "\n".join(line for line in base.splitlines()
                         if line.split(":")[0] not in extra)
        p = _page_parameters(kept + "\n" + extra, "00", tmp_path)
        capsys.readouterr()
        widgets.ledger_explorer(p)
        assert f"total {fmt_usd(build_ledger(p).total_usd)};" in capsys.readouterr().out
    p = _page_parameters((SCENARIO_DIR / "llama-3.1-405b.yaml").read_text(), "05", tmp_path)
    capsys.readouterr()
    widgets.rl_explorer(p["model"], p["accelerator"], p, 3.99)
    out = capsys.readouterr().out
    assert f"iteration {rl.scenario_iteration(p).wall_s:,.0f} s;" in out and "cannot" not in out


def test_a_panel_with_a_model_dropdown_names_the_catalogue_rule():
    with pytest.raises(ValueError, match=r"flops_explorer: model='my-model' is not a catalogue "
                                         r"model"):
        widgets.flops_explorer("my-model", "H100-SXM", 2e12, 0.4, 2048, 3.99)


def test_the_ledger_panel_says_which_hourly_rate_it_used(tmp_path, capsys):
    # A trial switched the pricing mode beside a moved price slider and read the same total
    # with nothing said: a given price is used in every mode (ledger.build_ledger), and the
    # panel now says which rate the bill used; with the price left where it opened, a new mode
    # takes that mode's catalogue rate (H100 SXM reserved: data/prices.csv, $2.72).
    import warnings
    from llmcost.present import widgets
    warnings.simplefilter("ignore")
    p = _page_parameters((SCENARIO_DIR / "default.yaml").read_text(), "00", tmp_path)
    box = widgets.ledger_explorer(p)
    price_w, pricing_w = box.children[0].children[2], box.children[1].children[0]
    capsys.readouterr()
    pricing_w.value = "reserved"
    assert "at $2.72/GPU-h, the catalogue's reserved rate" in capsys.readouterr().out
    price_w.value = 5.0
    assert "at $5.00/GPU-h, the given price, whatever the pricing mode" in \
        capsys.readouterr().out
    # staff on the FTE slider, no project months: paid for the compute schedule (exploration,
    # the final run and post-training, each shorter on more GPUs but for the RL campaign), which
    # more GPUs shorten (a teacher watched the staff line fall 30-fold from 512 to 32,768 GPUs);
    # said with the months the bill took
    fte_w, gpus_w = box.children[1].children[3], box.children[0].children[0]
    assert p.get("ledger_project_months") is None
    fte_w.value = 10
    said = capsys.readouterr().out
    months = re.search(r"staff are paid for ([\d.]+) months, the compute schedule", said)
    assert months, said
    gpus_w.value = gpus_w.value * 2
    again = re.search(r"staff are paid for ([\d.]+) months", capsys.readouterr().out)
    assert float(again[1]) < float(months[1])
    # with ledger_published_defaults the project is Epoch's median (or the run, if longer),
    # which more GPUs do not shorten: nothing said (a review)
    box = widgets.ledger_explorer({**p, "ledger_published_defaults": True})
    capsys.readouterr()
    box.children[1].children[3].value = 10
    assert "staff are paid for" not in capsys.readouterr().out
    # spot is offered only with the scenario's pre-emption rate (an analyst picked it on the
    # default scenario and read "cannot price this" whatever the other controls said); without
    # one the panel says why it is missing
    assert "spot" not in pricing_w.options and "spot is not offered here: the scenario gives " \
        "no ledger_spot_preemptions_per_node_day" in box.children[2].value
    box = widgets.ledger_explorer({**p, "ledger_spot_preemptions_per_node_day": 0.05})
    capsys.readouterr()
    box.children[1].children[0].value = "spot"
    out = capsys.readouterr().out
    assert "total $" in out and "cannot" not in out


def test_the_ledger_panel_on_owned_hardware_opens_at_the_all_in_hour(tmp_path, capsys):
    # An analyst's owned B200 panel opened its price slider at the hardware-only $3.35 beside
    # "at $3.48/GPU-h", and moving it up to $3.40 lowered the bill (a moved price is all-in:
    # the electricity line went). The slider opens at the all-in hour, capex + energy
    # (pricing.owned_usd_per_gpu_hour), which prices the bill exactly as the owned rate does.
    import warnings
    from llmcost.bill.pricing import owned_usd_per_gpu_hour
    from llmcost.present import widgets
    warnings.simplefilter("ignore")
    base = (SCENARIO_DIR / "default.yaml").read_text()
    owned = "\n".join(line for line in base.splitlines()
                      if line.split(":")[0] not in ("pricing", "price_usd_per_gpu_hour"))
    p = _page_parameters(owned + "\npricing: owned\nprice_usd_per_gpu_hour: null\n", "00",
                         tmp_path)
    hour = owned_usd_per_gpu_hour(llmcost.load_accelerator(p["accelerator"]))
    all_in = hour["capex_usd_per_gpu_hour"] + hour["energy_usd_per_gpu_hour"]
    box = widgets.ledger_explorer(p)
    price_w, pricing_w = box.children[0].children[2], box.children[1].children[0]
    out = capsys.readouterr().out
    assert price_w.value == pytest.approx(all_in, rel=1e-9)
    assert f"at ${all_in:.2f}/GPU-h, the owned hardware's amortised hour with its energy" in out
    total = float(re.search(r"total \$([\d.]+)M", out)[1])
    price_w.value = round(all_in + 0.5, 2)   # dearer hours: a dearer bill
    assert float(re.search(r"total \$([\d.]+)M", capsys.readouterr().out)[1]) > total
    # back where it opened: the owned rate again, the same total
    price_w.value = all_in
    assert float(re.search(r"total \$([\d.]+)M", capsys.readouterr().out)[1]) == total
    assert pricing_w.value == "owned"
    # an unmoved slider follows the pricing mode (a review switched an on-demand panel to
    # owned, moved the slider down and read the bill rise): it shows the new mode's own hour
    od = _page_parameters(owned + "\npricing: on_demand\nprice_usd_per_gpu_hour: null\n", "00",
                          tmp_path)
    box = widgets.ledger_explorer(od)
    price_w, pricing_w = box.children[0].children[2], box.children[1].children[0]
    pricing_w.value = "owned"
    assert price_w.value == pytest.approx(all_in, abs=1e-9)
    totals = []
    for v in (all_in, all_in - 0.5, all_in + 0.5):
        capsys.readouterr()
        price_w.value = round(v, 2)
        totals.append(float(re.search(r"total \$([\d.]+)M", capsys.readouterr().out)[1]))
    assert totals[1] < totals[0] < totals[2]
    # H200 reserved: data/prices.csv's one reserved row (AWS $7.89) lies above the on-demand
    # median ($5.15), the most a reserved hour is taken to cost (catalog.discount_price_cap);
    # an analyst read "the catalogue's reserved rate" there
    box = widgets.ledger_explorer({**p, "accelerator": "H200", "pricing": "on_demand"})
    capsys.readouterr()
    box.children[1].children[0].value = "reserved"
    assert "at $5.15/GPU-h, the catalogue's on-demand median, the most a reserved hour is taken " \
        "to cost" in capsys.readouterr().out


def test_the_flops_panel_says_the_price_is_not_the_new_accelerators(capsys):
    # A trial switched the FLOPs panel to B200 and TPU v4 and read costs at the page's H100
    # $3.99 with nothing said; the panel keeps the price box and names the new accelerator's
    # catalogue on-demand median (data/prices.csv: B200 Lambda $6.69, CoreWeave $8.60 ->
    # $7.645).
    import warnings
    from llmcost.present import widgets
    warnings.simplefilter("ignore")
    box = widgets.flops_explorer("llama-2-70b", "H100-SXM", 2e12, 0.4, 2048, 3.99)
    acc_w = box.children[0].children[1]
    capsys.readouterr()
    acc_w.value = "B200"
    out = " ".join(capsys.readouterr().out.split())
    from llmcost.core.catalog import catalogue_price
    median = catalogue_price("B200")[0]
    assert median == pytest.approx((6.69 + 8.60) / 2)
    assert ("priced at $3.99/GPU-h, the price box's value, not B200's own: its catalogue "
            f"on-demand median is ${median:.2f}") in out


def test_the_checkpoint_panel_opens_at_the_pages_checkpoint_size(capsys):
    # A trial read 966 GB in notebook 07's panel beside the page's 968 GB: the panel left out
    # the per-rank loader and RNG state the page counts over the job's ranks, and its log slider
    # snapped the size to its step. It now opens at reliability.checkpoint_size(N, recipe,
    # n_ranks=n_gpus), the page's figure, to the byte.
    import warnings
    from llmcost.core.units import fmt_bytes
    from llmcost.present import widgets
    from llmcost.training.reliability import checkpoint_size
    warnings.simplefilter("ignore")
    n = 68.98e9
    capsys.readouterr()
    widgets.reliability_explorer(n, 2048, 0.173, 1e11, False, 600.0, 6e5, 2.5, "bf16-adam",
                                 25e9, 25e9, 0.87, 8)
    want = fmt_bytes(checkpoint_size(n, "bf16-adam", n_ranks=2048).total_bytes)
    assert want in capsys.readouterr().out
    assert checkpoint_size(n, "bf16-adam", n_ranks=2048).total_bytes > \
        checkpoint_size(n, "bf16-adam").total_bytes


def test_levers_explorer_says_each_idle_levers_own_reason(capsys):
    # an analyst's trial ticked "reserve capacity" on the on-demand default scenario and read
    # "its input is already at the lever's setting" (it is not: the provider publishes no term,
    # the lever's own note); "newer training stack" read the same where the H100 is older than
    # no stack. Each lever that moves nothing on its own now prints the note its function gives.
    from llmcost.bill import levers
    sc = llmcost.point_scenario(llmcost.load_scenario(SCENARIO_DIR / "default.yaml"))
    box = widgets.levers_explorer(sc)
    ticks = {c.description: c for c in box.children[0].children}
    capsys.readouterr()
    for key in ("newer_stack", "fix_data_loading"):
        ticks[levers.LEVERS[key][0]].value = True
        out = capsys.readouterr().out
        note = levers.LEVERS[key][2](sc).note
        assert note and f"{levers.LEVERS[key][0]}: no change on this scenario on its own " \
            f"({note})" in out, out
        assert "already at the lever's setting" not in out
        ticks[levers.LEVERS[key][0]].value = False


def test_rl_explorer_says_the_iteration_as_the_bill_prices_it(capsys):
    # an analyst read "iteration 85 s" on the panel, "144 s (the model's 85.3 s × 1.69, published
    # GRPO runs' median)" on page 05 and in the bill, and no word of the factor on the panel
    warnings.simplefilter("ignore")
    from llmcost.serving import rl
    p = _rl_parameters()
    capsys.readouterr()
    widgets.rl_explorer("llama-2-70b", "H100-SXM", p, 3.99)
    out = " ".join(capsys.readouterr().out.split())
    wall = float(re.search(r"iteration ([\d,.]+) s;", out)[1].replace(",", ""))
    billed = float(re.search(r"as the bill prices it: ([\d,.]+) s", out)[1].replace(",", ""))
    k = rl.scenario_time_factor(p)
    assert k == rl.RL_TIME_FACTOR_MEDIAN == 1.69       # the scenario gives no rl_time_factor
    assert billed == pytest.approx(wall * k, abs=1.0)  # both printed whole
    assert "× 1.69, published GRPO runs' median" in out
    s = _by_name(widgets.rl_explorer("llama-2-70b", "H100-SXM", p, 3.99))
    assert s["rollout GPUs"].continuous_update is False  # priced when let go, as the others


def test_reliability_panel_opens_on_the_scenarios_interval_and_moves_it(capsys):
    # an analyst's trial: with ckpt_interval_s 7,200 the page read 120 min, the panel opened at
    # Daly's optimum (38.6 min) without a word and had no interval control. It now opens on the
    # scenario's interval and prices it as checkpoint_plan does; the optimum is a tick away
    import pandas as pd
    from llmcost.core.units import fmt_duration
    from llmcost.training import reliability as rel
    warnings.simplefilter("ignore")
    n = llmcost.load_model("llama-2-70b").n_params
    args = (n, 2048, 0.173, 2e11, False, 600, 623963, 3.99, "bf16-adam", 50e9, 50e9, 0.87, 8)
    with pd.option_context("display.width", 1000, "display.max_columns", 20):
        capsys.readouterr()
        box = widgets.reliability_explorer(*args, interval_s=7200.0)
        out = capsys.readouterr().out
        plan = rel.checkpoint_plan(n, 2048, 0.173, 2e11, 600, "bf16-adam", 8, 50e9,
                                   d2h_bytes_per_s=50e9, planned_per_day=0.87, interval_s=7200.0)
        assert fmt_duration(7200.0) in out and f"{plan.goodput:.1%}" in out
        interval_w, optimum_w = box.children[3].children
        assert interval_w.value == 120.0 and not optimum_w.value and not interval_w.disabled
        optimum_w.value = True                       # Daly's optimum for the same job
        best = rel.checkpoint_plan(n, 2048, 0.173, 2e11, 600, "bf16-adam", 8, 50e9,
                                   d2h_bytes_per_s=50e9, planned_per_day=0.87)
        out = capsys.readouterr().out
        assert fmt_duration(best.interval_s) in out and f"{best.goodput:.1%}" in out
        assert interval_w.disabled and best.goodput > plan.goodput
    # a scenario without an interval opens on the optimum, the slider showing the interval it
    # prices (a review: an invented 60 min beside a table at 15.4); a bad one is refused
    with pd.option_context("display.width", 1000, "display.max_columns", 20):
        box = widgets.reliability_explorer(*args)
        interval_w, optimum_w = box.children[3].children
        assert optimum_w.value is True and interval_w.disabled
        assert interval_w.value * 60 == pytest.approx(best.interval_s, rel=1e-9)
        optimum_w.value = False          # unticked: the slider's value, the optimum until moved
        capsys.readouterr()
        interval_w.value = 240.0
        assert fmt_duration(240 * 60) in capsys.readouterr().out
    with pytest.raises(ValueError, match="ckpt_interval_s=-5"):
        widgets.reliability_explorer(*args, interval_s=-5.0)


def test_the_flops_panels_price_box_refuses_rather_than_clamps(capsys):
    # an analyst typed 0 and 250 in the $/GPU-h box and read $0.01 and $100 priced without a
    # word (a bounded box clamps); the box now takes what is typed and the key's rule answers
    warnings.simplefilter("ignore")
    import ipywidgets as w

    def controls(b):
        for c in getattr(b, "children", ()):
            yield from controls(c) if isinstance(c, w.Box) else [c]
    box = widgets.flops_explorer("llama-2-70b", "H100-SXM", 2e12, 0.4, 2048, 3.99)
    price_w = next(c for c in controls(box) if getattr(c, "description", "") == "$/GPU-h")
    assert not hasattr(price_w, "max")   # no bounds to clamp to
    capsys.readouterr()
    price_w.value = 0.0
    out = capsys.readouterr().out
    assert price_w.value == 0.0 and "cannot compute: price_usd_per_gpu_hour=0" in out
    price_w.value = 250.0
    out = capsys.readouterr().out
    assert price_w.value == 250.0 and "cannot compute" not in out


def test_a_glossary_search_with_no_match_says_so(capsys):
    # an analyst's search with no match showed a bare "Empty DataFrame" table
    box = widgets.glossary_explorer()
    capsys.readouterr()
    box.children[0].value = "zzqx"
    out = capsys.readouterr().out
    assert "no glossary term, alias, Chinese term or definition contains 'zzqx'" in out
    assert "Empty DataFrame" not in out


def test_the_ledger_panel_opens_on_the_scenarios_staff(tmp_path, capsys):
    # a re-trial: with 10 research FTE in the scenario the "staff FTE" slider opened at 0, and
    # moving it to 5 replaced the ten (the total fell from $588k to $416k with no word of it)
    from llmcost.bill.ledger import build_ledger
    from llmcost.core.units import fmt_usd
    warnings.simplefilter("ignore")
    p = _page_parameters((SCENARIO_DIR / "default.yaml").read_text()
                         + "\nledger_people: [{role: research, fte: 10}]\n", "00", tmp_path)
    capsys.readouterr()
    box = widgets.ledger_explorer(p)
    fte_w = box.children[1].children[3]
    assert fte_w.value == 10
    assert f"total {fmt_usd(build_ledger(p).total_usd)};" in capsys.readouterr().out
    fte_w.value = 5     # moved: one staff role of 5 FTE, half the ten's pay
    five = build_ledger({**p, "ledger_people": [{"role": "staff", "fte": 5}]})
    assert f"total {fmt_usd(five.total_usd)};" in capsys.readouterr().out


def test_the_flops_panel_opens_on_the_pages_sequence_length(capsys):
    # a re-trial: notebook 01's panel opened at 26.5 days (Llama 3.1 8B's 8,192-token
    # pre-training sequences) beside the page's 23.5 at the scenario's 4,096: the page's
    # seq_len now enters the MFU basis, as training_run prices it
    import pandas as pd
    from llmcost.core.units import fmt_duration
    from llmcost.training.compute import training_run
    warnings.simplefilter("ignore")
    spec, gpu = llmcost.load_model("llama-3.1-8b"), llmcost.load_accelerator("H100-SXM")
    page = training_run(spec, gpu, 1e12, 0.4, 64, 3.0, seq_len=4096)
    model_own = training_run(spec, gpu, 1e12, 0.4, 64, 3.0)
    assert model_own["wall_clock_s"] > page["wall_clock_s"]   # 8,192-token attention costs more
    with pd.option_context("display.width", 1000, "display.max_columns", 20):
        capsys.readouterr()
        widgets.flops_explorer("llama-3.1-8b", "H100-SXM", 1e12, 0.4, 64, 3.0, seq_len=4096)
        assert fmt_duration(page["wall_clock_s"]) in capsys.readouterr().out
    with pytest.raises(ValueError, match="seq_len=0"):
        widgets.flops_explorer("llama-3.1-8b", "H100-SXM", 1e12, 0.4, 64, 3.0, seq_len=0)


def test_levers_explorer_prices_the_others_when_one_lever_cannot_be(capsys):
    # an analyst ticked "spot capacity with checkpoints" on a scenario without a pre-emption
    # rate and read "cannot price this combination" whatever else was ticked; the lever the
    # scenario cannot price is left out, said with its reason, and the others are priced
    from llmcost.bill import levers
    sc = llmcost.point_scenario(llmcost.load_scenario(SCENARIO_DIR / "default.yaml"))
    assert sc.get("ledger_spot_preemptions_per_node_day") is None
    with pytest.raises(ValueError):
        levers.bill(levers.apply_levers(sc, ["spot_pricing"]))
    box = widgets.levers_explorer(sc)
    ticks = {c.description: c for c in box.children[0].children}
    capsys.readouterr()
    ticks[levers.LEVERS["spot_pricing"][0]].value = True
    ticks[levers.LEVERS["fp8_training"][0]].value = True
    out = capsys.readouterr().out
    assert "spot capacity with checkpoints: not priced on this scenario, so left out (" in out
    fp8 = levers.bill(levers.apply_levers(sc, ["fp8_training"])).total_usd
    assert f"→ {llmcost.fmt_usd(fp8)}: saving" in out and "cannot price" not in out
