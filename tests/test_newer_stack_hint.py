"""A scenario that names no stack is priced on the default profile (megatron-core-2024, dated
2024-06 in data/stacks.csv); on an accelerator released later (GB300-NVL72: 2025 in
data/accelerators.csv) the report names the newest profile of that family dated no earlier
(megatron-core-2025 is 2025-11, megatron-core-2026 2026-08: the 2026 one) with both bills' MFUs
(a new-user trial: DeepSeek-V3 in FP8 on 4,608 GB300 billed at 19.1% on the 2024 profile, 26.5%
on megatron-core-2026, and no word said which stack the range assumed)."""

import pytest

import llmcost
from llmcost.bill import checks
from llmcost.present.glance import caveat_line
from llmcost.present.report import declared_parameters, effective_parameters, list_notebooks

GB300 = {"model": "deepseek-v3", "accelerator": "GB300-NVL72", "n_gpus": 4608,
         "train_tokens": 15e12, "seq_len": 4096, "mfu": 0.2, "dtype": "fp8",
         "pricing": "reserved", "global_batch_tokens": 62914560, "price_usd_per_gpu_hour": 6.0}


def _values(**override):
    declared = {nb: declared_parameters(nb) for nb in list_notebooks()}
    used = effective_parameters({**GB300, **override}, declared)
    defaults = {k for k, v in used.items() if k not in {**GB300, **override}}
    return (llmcost.validate_parameters(**{k: v["value"] for k, v in used.items()}),
            frozenset(defaults))


def test_a_later_accelerator_on_the_default_stack_names_the_newest_profile():
    values, defaults = _values()
    assert llmcost.load_accelerator("GB300-NVL72").year == 2025
    hint = checks.newer_stack_hint(values, True, defaults)
    m_here, m_new, plan, bill_here, bill_new, _ = checks.stack_mfus(values, "megatron-core-2026")
    assert abs(bill_new / bill_here - 1) > checks.NEWER_STACK_MIN_CHANGE
    assert hint.startswith("stack: the scenario sets none, so it is priced on megatron-core-2024 "
                           "(dated 2024-06), older than GB300-NVL72 (2025); on "
                           "megatron-core-2026 (dated 2026-08)")
    assert f"a bill takes {bill_new:.1%} against {bill_here:.1%}" in hint
    assert f"{bill_here / bill_new:.2f}× the time" in hint
    assert caveat_line(hint) == (
        f"priced on the megatron-core-2024 software, older than GB300-NVL72: on "
        f"megatron-core-2026 its bill would take {bill_new:.1%} MFU, not {bill_here:.1%} (set "
        "`stack: megatron-core-2026` if the run uses it)")
    # a stack the scenario names, a given MFU, or an accelerator of the stack's year or before:
    # nothing said
    # regression pin (the trial's figures, recorded from the engine: 19.1% on the 2024
    # profile, 26.5% on the 2026 one; 19.8% on the 2024 one since the plan search places
    # DeepSeek-V3's MTP module with the uneven split at v = 1, parallel.auto_split, and 27.4%
    # on the 2026 one)
    assert (bill_here, bill_new) == (pytest.approx(0.198, abs=0.002),
                                     pytest.approx(0.274, abs=0.002))
    named, named_defaults = _values(stack="megatron-core-2024")
    assert checks.newer_stack_hint(named, True, named_defaults) is None
    assert checks.newer_stack_hint(values, False, defaults) is None
    h100, h100_defaults = _values(accelerator="H100-SXM", n_gpus=2048)
    assert checks.newer_stack_hint(h100, True, h100_defaults) is None
    # an accelerator without a year (the teaching one) is never called later than the stack
    assert llmcost.load_accelerator("Teaching-1PF").year is None
    teach, teach_defaults = _values(accelerator="Teaching-1PF", n_gpus=512, dtype="bf16")
    assert checks.newer_stack_hint(teach, True, teach_defaults) is None


def test_no_later_profile_of_the_family_says_nothing(monkeypatch):
    # only the 2024 profile of the family listed: nothing newer to name
    values, defaults = _values()
    monkeypatch.setattr(checks, "list_stacks", lambda: ["megatron-core-2024",
                                                        "pytorch-fsdp2-2024"])
    assert checks.newer_stack_hint(values, True, defaults) is None
