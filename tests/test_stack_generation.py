"""A stack profile priced on a GPU generation none of its published runs used is said, with the
MFU on the newest profile of its family that has such runs (``checks.stack_generation_warning``).

A new user's trial: ``stack: megatron-core-2026`` on 1,024 H100 cut a Qwen3-30B-A3B bill by 46%
and reversed its H100-against-B200 answer without a word; that profile is written from
Megatron-Bridge's GB200 / GB300 MXFP8 recipes (a full-iteration CUDA graph), while NVIDIA's
H100 runs of the same releases ran the megatron-core-2025 recipe."""
import csv

from llmcost.bill.checks import stack_generation_warning, stack_mfus
from llmcost.bill.scenario import LEDGER_DEFAULTS
from llmcost.core.catalog import DATA_DIR
from llmcost.present.glance import caveat_line
from llmcost.training.accuracy import stack_generations
from llmcost.training.step_scenario import scenario_step

QWEN3_H100 = {**LEDGER_DEFAULTS, "model": "qwen3-30b-a3b", "accelerator": "H100-SXM",
              "n_gpus": 64, "seq_len": 4096, "global_batch_tokens": 4096 * 512, "dtype": "fp8",
              "tp": 0, "pp": 0, "dp": 0, "ep": 0, "cp": 1, "etp": 0, "zero_stage": -1,
              "recompute": "auto", "micro_batch_size": 0, "pp_schedule": "auto",
              "pp_virtual_stages": 0, "pp_split": "auto", "stack": "megatron-core-2026"}


def _rows(name):
    with open(DATA_DIR / name, newline="") as f:
        return list(csv.DictReader(f))


def test_a_stacks_generations_are_counted_from_the_validation_rows():
    # counted here from the two CSV files, row by row
    acc = {r["run_id"]: r["catalog_accelerator"] for r in _rows("published_runs.csv")}
    on_2026 = [acc[r["run_id"]] for r in _rows("validation_mfu.csv")
               if r["stack"] == "megatron-core-2026" and not r["excluded"]]
    assert on_2026 and set(on_2026) <= {"GB200-NVL72", "GB300-NVL72", "B200"}
    assert stack_generations("megatron-core-2026") == {"Blackwell": len(on_2026)}
    on_2025_hopper = [r for r in _rows("validation_mfu.csv") if r["stack"] ==
                      "megatron-core-2025" and not r["excluded"] and
                      acc[r["run_id"]] in ("H100-SXM", "H800", "H200")]
    assert stack_generations("megatron-core-2025")["Hopper"] == len(on_2025_hopper) > 0
    assert stack_generations("no-such-stack") == {}


def test_the_2026_profile_on_h100_is_said_with_what_hopper_runs_used():
    # The published runs: Megatron-Bridge 26.02.01, 26.04, 26.04.01 and 26.06, Qwen3-30B-A3B
    # FP8-CS on 16 H100, GBS 1,024, 8,826-9,058 tokens/s/GPU (data/published_runs.csv), all
    # priced on megatron-core-2025; the fastest H100 run of the model ever published, 25.09's
    # token-dropping recipe, 10,494. On 16 H100 at that batch the 2025 profile predicts within
    # 10% of the 26.x runs and the 2026 profile over 1.5x the fastest: the warning is due.
    runs = {r["run_id"]: float(r["reported_tokens_per_sec_per_gpu"])
            for r in _rows("published_runs.csv") if r["run_id"] in (
                "mb260201-h100-qwen3-30b-a3b-fp8cs", "mb2604-h100-qwen3-30b-a3b-fp8cs",
                "mb260401-h100-qwen3-30b-a3b-fp8cs", "mb2606-h100-qwen3-30b-a3b-fp8cs",
                "mb2509-h100-qwen3-30b-a3b-fp8")}
    stacks = {r["run_id"]: r["stack"] for r in _rows("validation_mfu.csv") if r["run_id"] in runs}
    assert {stacks[k] for k in runs if k.startswith("mb26")} == {"megatron-core-2025"}
    at16 = {**QWEN3_H100, "n_gpus": 16, "global_batch_tokens": 4096 * 1024}
    per_gpu = {st: scenario_step({**at16, "stack": st})[1].tokens_per_s / 16
               for st in ("megatron-core-2025", "megatron-core-2026")}
    dropless = [v for k, v in runs.items() if k.startswith("mb26")]
    assert 0.9 < per_gpu["megatron-core-2025"] / (sum(dropless) / len(dropless)) < 1.1
    assert per_gpu["megatron-core-2026"] > 1.5 * max(runs.values())

    w = stack_generation_warning(QWEN3_H100, mfu_predicted=True)
    m_here, m_alt, plan, bill_here, bill_alt, _ = stack_mfus(QWEN3_H100, "megatron-core-2025")
    assert w.startswith("stack: megatron-core-2026 rests on published runs on Blackwell "
                        f"hardware only ({stack_generations('megatron-core-2026')['Blackwell']} "
                        "runs, data/validation_mfu.csv), none on Hopper such as H100-SXM; on "
                        "megatron-core-2025, the newest megatron-core profile with Hopper runs")
    assert f"a bill takes {bill_alt:.1%} against {bill_here:.1%}" in w
    # the step time scales as 1 / MFU: the same run takes bill_here / bill_alt the time there
    assert bill_here > bill_alt and f"the same run in {bill_here / bill_alt:.2f}× the time" in w
    assert w.endswith("set `stack: megatron-core-2025` for what Hopper runs have shown.")
    assert caveat_line(w) == (f"megatron-core-2026 has no published Hopper run: "
                              f"megatron-core-2025 would bill {bill_alt:.1%} MFU, not "
                              f"{bill_here:.1%}")
    assert len(caveat_line(w)) < 100


def test_no_word_where_the_profile_has_runs_of_the_generation_or_the_mfu_is_given():
    assert stack_generation_warning({**QWEN3_H100, "accelerator": "GB200-NVL72"}, True) is None
    assert stack_generation_warning({**QWEN3_H100, "stack": "megatron-core-2024"}, True) is None
    assert stack_generation_warning(QWEN3_H100, mfu_predicted=False) is None
    # no megatron-core profile has an Ampere run: nothing to compare with, nothing said
    assert "Ampere" not in stack_generations("megatron-core-2024")
    assert stack_generation_warning({**QWEN3_H100, "accelerator": "A100-80GB",
                                     "dtype": "bf16"}, True) is None


def test_the_newer_stack_hint_offers_only_a_profile_with_runs_of_the_generation():
    # A review: H200 (Hopper, 2024) on the default stack was told "set `stack:
    # megatron-core-2026`", and that stack set was told to leave it (the warning above). The
    # newest profile with Hopper runs is megatron-core-2025; Blackwell's is megatron-core-2026.
    from llmcost.bill.checks import newer_stack_for
    base = {**QWEN3_H100, "stack": "megatron-core-2024"}
    assert newer_stack_for({**base, "accelerator": "H200"}).name == "megatron-core-2025"
    assert newer_stack_for({**base, "accelerator": "GB200-NVL72"}).name == "megatron-core-2026"
    # an accelerator no profile has a run of (MI325X, its own generation): none offered
    assert stack_generations("megatron-core-2026").get("MI325X") is None
    assert newer_stack_for({**base, "accelerator": "MI325X"}) is None
