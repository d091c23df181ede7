"""The low-goodput warning names only what the scenario's bill counts (a second new-user trial:
an on-demand run without checkpoints was told to check "the failure and pre-emption rates,
checkpoint interval and restart time"; its planned stops, 97% of its interruptions, went
unsaid). Llama 3 (arXiv:2407.21783 §3.3.4): 47 planned interruptions in a 54-day snapshot of
its 16,384-GPU job, the default 0.87 a day."""

import pytest

from llmcost.bill import ledger
from llmcost.bill.validation import magnitude_warnings

NO_CKPT = {"model": "llama-2-70b", "accelerator": "H100-SXM", "n_gpus": 64,
           "train_tokens": 1.0e10, "seq_len": 4096, "mfu": 0.4, "pricing": "on_demand",
           "price_usd_per_gpu_hour": 3.99, "global_batch_tokens": 4194304,
           "ledger_resumable": False}


def _goodput_warning(scenario):
    ws = [w for w in magnitude_warnings(scenario, bill=ledger.build_ledger(scenario))
          if w.startswith("goodput ")]
    return ws[0] if ws else None


def test_a_run_without_checkpoints_is_told_of_its_planned_stops():
    w = _goodput_warning(NO_CKPT)
    assert w is not None and "(failures and planned stops)" in w
    assert ("check the failure rate and the planned stops, 0.87 a day (Llama 3's rate on its "
            "16,384-GPU job, 47 in 54 days") in w and w.endswith("or make training resumable")
    assert "pre-emption" not in w and "checkpoint interval" not in w
    own = _goodput_warning({**NO_CKPT, "fail_planned_per_day": 0.5})
    assert "the planned stops, 0.5 a day (fail_planned_per_day)" in own
    assert "Llama 3's rate" not in own


def test_a_run_without_checkpoints_gets_the_resumable_lever_first():
    # a second trial: 09 said "the scenario already checkpoints at the optimum" of a run that
    # takes none, and left out the lever `estimate --compare` priced at -$50.1k
    from llmcost.bill import levers
    ranked = levers.rank_levers(NO_CKPT)
    top = ranked.iloc[0]
    assert top["lever"] == "make training resumable"
    resumable = ledger.build_ledger({**NO_CKPT, "ledger_resumable": True})
    assert top["saving_usd"] == pytest.approx(
        ledger.build_ledger(NO_CKPT).total_usd - resumable.total_usd, rel=1e-9)
    for name in ("checkpoint at the optimum interval", "asynchronous checkpoints"):
        row = ranked[ranked["lever"] == name].iloc[0]
        assert row["saving_usd"] == 0 and "takes no checkpoints" in row["note"]
    default = levers.rank_levers({**NO_CKPT, "ledger_resumable": True})
    row = default[default["lever"] == "make training resumable"].iloc[0]
    assert row["saving_usd"] == 0 and row["note"].startswith("already resumable")


def test_the_no_checkpoint_answer_is_the_bills():
    # paid = ideal ÷ goodput; the saving of checkpoints at goodput g_c, by hand
    from llmcost.present import answers
    text = answers.no_checkpoints(64, 0.25, 1000.0, 12000.0, 7200.0, 0.95, 4.0)
    assert "goodput is **25.0%** and they add **3,000 GPU-hours** (\\$12.0k" in text
    saving = 1000.0 * (1 / 0.25 - 1 / 0.95) * 4.0  # 11,789
    assert f"goodput would be 95.0%: \\${saving / 1e3:.1f}k less." in text
    assert "every **2.0 h**" in text


def test_two_pilots_are_said_as_two(tmp_path):
    # a second trial: "calibrated on a pilot at 64, 256 GPUs"
    from llmcost.present.report import estimate_ledger
    path = tmp_path / "pilots.yaml"
    path.write_text("model: llama-2-70b\naccelerator: H100-SXM\nn_gpus: 2048\n"
                    "train_tokens: 2.0e12\nseq_len: 4096\nprice_usd_per_gpu_hour: 3.99\n"
                    "global_batch_tokens: 4194304\ntp: 8\npp: 4\nmicro_batch_size: 1\n"
                    "recompute: none\npilot:\n"
                    "  - {n_gpus: 64, tokens_per_s_per_gpu: 900, tp: 8, pp: 4, "
                    "micro_batch_size: 1}\n"
                    "  - {n_gpus: 256, tokens_per_s_per_gpu: 860, tp: 8, pp: 4, "
                    "micro_batch_size: 1}\n")
    src = estimate_ledger(path).figures["mfu_source"]
    assert src.startswith("calibrated on pilots at 64 and 256 GPUs, extrapolated")


def test_an_unpriced_risk_is_not_called_net_of_its_risk():
    # a second trial: "FP8 that destabilises training: looks like $736,599; net of its risk:
    # $736,599" - the net at p = 0, no probability being published
    from llmcost.bill import levers
    fe = {f.name: f for f in levers.false_economies(NO_CKPT | {"ledger_resumable": True})}
    fp8 = fe["FP8 that destabilises training"]
    assert fp8.sourced_probability is None and fp8.break_even_probability is not None
    assert fp8.net_label == "net at p = 0 (no published probability: its risk is not priced)"
    priced = [f for f in fe.values() if f.sourced_probability is not None]
    assert priced and all(f.net_label == "net of its risk" for f in priced)


def test_a_compared_dollar_input_reads_as_dollars():
    # a second trial: "ledger_owned_usd_per_gpu 15k → null" and "triangular 1e+04 / 1.5e+04 /
    # 2e+04" in the compare header
    from llmcost.bill.ranges import Range
    from llmcost.present import glance
    owned = {"model": "llama-2-13b", "accelerator": "A100-80GB", "n_gpus": 256,
             "train_tokens": 1.0e11, "mfu": 0.45, "pricing": "owned"}
    a = ledger.build_ledger({**owned, "ledger_owned_usd_per_gpu": 15000.0})
    b = ledger.build_ledger({**owned, "ledger_owned_usd_per_gpu":
                             Range("triangular", low=1e4, mode=1.5e4, high=2e4)})
    got = glance.other_inputs_differing([a, b])
    assert "ledger_owned_usd_per_gpu $15.0k → triangular $10.0k / $15.0k / $20.0k" in got
    assert Range("uniform", low=0.3, high=0.5).describe() == "uniform 0.3-0.5"
