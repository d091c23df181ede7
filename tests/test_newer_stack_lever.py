"""The newer-stack lever prices what the newer-stack warning names (checks.newer_stack_hint):
a run on hardware later than its default stack, on the newest profile of the stack's family."""

import pytest
import yaml

from llmcost.bill import levers as lv
from llmcost.bill.checks import newer_stack_for, stack_mfus
from llmcost.present.report import estimate_ledger, plan_report

GB300 = {"model": "llama-3.1-70b", "accelerator": "GB300-NVL72", "n_gpus": 512,
         "train_tokens": 2.0e12, "seq_len": 8192, "dtype": "fp8", "mfu": "predict",
         "price_usd_per_gpu_hour": 6.0}


def _bill(tmp_path, name, **extra):
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump({**GB300, **extra}))
    return estimate_ledger(path)


def test_the_lever_prices_the_stack_the_warning_names(tmp_path):
    """A review: the warning said a GB300 run on the 2024 default stack would take megatron-core-
    2026's MFU, and notebook 09's lever table did not rank it. The lever's saving is the bill of
    the scenario minus the bill of the same file with `stack: megatron-core-2026` (each its own
    `mfu: predict` central estimate: an independent path through `llmcost estimate`), within
    0.1 %, and its MFU ratio is the warning's bill MFUs' ratio (checks.stack_mfus)."""
    before = _bill(tmp_path, "before")
    assert newer_stack_for(before.scenario).name == "megatron-core-2026"
    assert any(w.startswith("stack: the scenario sets none") for w in before.warnings)
    after = _bill(tmp_path, "after", stack="megatron-core-2026")
    got = lv.rank_levers(before.scenario, keys=["newer_stack"]).iloc[0]
    assert got["saving_usd"] == pytest.approx(before.total_usd - after.total_usd, rel=1e-3)
    assert got["saving_usd"] > 0
    values = plan_report(tmp_path / "before.yaml", None, notebook_setups=False).values
    _, _, _, bill_here, bill_new, _ = stack_mfus(values, "megatron-core-2026")
    change = lv.newer_stack(before.scenario)
    assert change.after["stack"] == "megatron-core-2026"
    assert change.after["mfu"] / before.scenario["mfu"] == pytest.approx(bill_new / bill_here,
                                                                         rel=1e-6)
    assert f"MFU × {bill_new / bill_here:.3f}" in change.assumptions


def test_the_lever_does_not_apply_where_the_stack_is_not_older_than_the_hardware(tmp_path):
    """An H100 (2023) on megatron-core-2024: no later profile is needed, nothing changes and
    the note says why; a scenario already on the newest profile likewise."""
    h100 = lv.newer_stack({**GB300, "accelerator": "H100-SXM", "mfu": 0.4, "dtype": "bf16"})
    assert lv._get(h100.after, "stack") == "megatron-core-2024"
    assert "is older than megatron-core-2024 (dated 2024-06)" in h100.note
    done = lv.newer_stack({**GB300, "mfu": 0.4, "stack": "megatron-core-2026"})
    assert done.note and lv._get(done.after, "stack") == "megatron-core-2026"


def test_a_cap_lowers_a_levers_mfu_and_refuses_only_what_it_cannot_bring_back():
    """Two defects a review found in how levers meet the published cap
    (levers._capped_at_published: the best published comparable run's MFU, or the scenario's
    own where that is higher): (1) full recomputation lowers MFU (it adds a forward pass of
    FLOPs the MFU basis does not count: Korthikanti et al. 2022, §5), yet a given 90% came back
    from the cap as 90%, raised, not capped; (2) the newer stack scaled a given 96% past 1 and
    was refused before the cap, which brings it back to the scenario's own 96%."""
    ceiling = lv.published_ceiling("GB300-NVL72", 70.6e9, "fp8", is_moe=False,
                                   seq_len=8192)[0]
    s90 = {**GB300, "mfu": 0.9}
    assert ceiling < 0.9
    full = lv.activation_recompute(s90, "full")
    # the step model's ratio, by its own two steps: below 1, and the lever takes it unraised
    plan_none = lv.predicted_step(lv._clean(s90))[1].mfu
    plan_full = lv.predicted_step(lv._clean({**s90, **full.after}))[1].mfu
    assert plan_full < plan_none
    assert full.after["mfu"] < 0.9 and "capped" not in full.assumptions
    s96 = {**GB300, "mfu": 0.96}
    stack_ratio = (lv.predicted_step({**lv._clean(s96), "stack": "megatron-core-2026"})[1].mfu
                   / lv.predicted_step(lv._clean(s96))[1].mfu)
    assert 0.96 * stack_ratio > 1                      # the case: scaled past 1
    newer = lv.newer_stack(s96)
    assert newer.after["mfu"] == pytest.approx(0.96) and "MFU capped at 96.0%" in \
        newer.assumptions


def test_a_phase_with_its_own_mfu_is_capped_with_the_main_run():
    # A review: the cap brought the main run's scaled 101.5% back to its own 96% but left a
    # phase's own MFU scaled by the uncapped ratio (0.96 → 1.015: "phases[0].mfu must be in
    # (0, 1]" and a NaN saving). Capped by the same factor, a phase keeps the main run's ratio.
    phase = {"name": "long", "tokens": 1e11, "seq_len": 8192, "mfu": 0.96}
    newer = lv.newer_stack({**GB300, "mfu": 0.96, "phases": [phase]})
    ratio = newer.after["mfu"] / 0.96
    assert newer.after["phases"][0]["mfu"] == pytest.approx(0.96 * ratio, rel=1e-12)
    assert newer.after["phases"][0]["mfu"] <= 1.0


def test_a_phase_scaled_past_one_is_refused_by_its_own_name():
    # A review: a phase given mfu 0.995 on a scenario at 0.5, scaled by the newer stack's
    # ratio past 1 (the main run stays below its cap), was refused as "the scenario's
    # mfu=1.0056": the field is phases[0].mfu and its value 0.995
    phase = {"name": "long", "tokens": 1e11, "seq_len": 8192, "mfu": 0.995}
    with pytest.raises(ValueError, match=r"the scenario's phases\[0\]\.mfu=0\.995 is above"):
        lv.newer_stack({**GB300, "mfu": 0.5, "phases": [phase]})


def test_hardware_of_the_stacks_own_year_takes_the_newer_profile():
    """A finance trial: Qwen3-30B-A3B in FP8 on 576 GB200 (2024), mfu: predict on the default
    megatron-core-2024 (dated 2024-06): the bill fell 42% with `stack: megatron-core-2026`,
    below its own P10, while the lever said "not later" and saved $0. Hardware of the stack's
    own year takes the newer profile; the lever's saving is the two bills' difference."""
    sc = {"model": "qwen3-30b-a3b", "accelerator": "GB200-NVL72", "n_gpus": 576,
          "train_tokens": 1e12, "seq_len": 4096, "dtype": "fp8", "mfu": 0.2,
          "price_usd_per_gpu_hour": 10.5}
    assert newer_stack_for(sc).name == "megatron-core-2026"
    change = lv.newer_stack(sc)
    assert change.after["stack"] == "megatron-core-2026" and not change.note
    # a stack already the newest, or an H100 (2022) on the 2024 profile: nothing to offer
    assert newer_stack_for({**sc, "stack": "megatron-core-2026"}) is None
    assert newer_stack_for({**sc, "accelerator": "H100-SXM"}) is None
