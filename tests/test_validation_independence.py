"""How independent the held-out validation rows are (``step_validation.calibration_twins``,
``step_validation.PLAN_CORRECTED_AFTER_ERROR``).

The split of the newer sets is md5(run_id) mod 4, by row, not by configuration: Megatron-Bridge's
tables re-measure the same system, model, precision and plan at each release. Sources of the
by-hand rows: NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md at 067f987df, 26.08 table:
'| DGX-GB300 | 8 | MXFP8 | 512 | 8 | 4096 | 1 | 1 | 1 | n/a | 8 | 44544 | 1029 |' (Qwen3_30B_a3B)
and '| DGX-GB300 | 256 | MXFP8 | 4096 | 1 | 4096 | 1 | 2 | 1 | 8 | 32 | 6288 | 1635 |' (DeepSeekV3);
docs/performance-summary-archive.md at 067f987df, 26.06.01 table: the same Qwen3_30B_a3B line;
26.02 table: '| DGX-GB300 | 256 | MXFP8 | 4096 | 2 | 4096 | 0 | 1 | 2 | 1 | 8 | 32 | 4612 | 1199 |'
(DeepSeekV3, MBS 2). The plans corrected after their error was seen: each row's notes in
data/validation_mfu.csv.
"""

import re

import pandas as pd

from llmcost.core.catalog import DATA_DIR
from llmcost.training import step_validation as sv

RUNS = pd.read_csv(DATA_DIR / "published_runs.csv").set_index("run_id")
RAW = pd.read_csv(DATA_DIR / "validation_mfu.csv").set_index("run_id")


def test_calibration_twin_by_hand():
    t = sv.calibration_twins()
    # 26.08's GB300 Qwen3-30B-A3B line and 26.06.01's: 8 GPUs, MXFP8, GBS 512 x 4096, MBS 8, TP 1,
    # PP 1, CP 1, VP n/a, EP 8 in both: the same configuration, the 26.06.01 row calibration
    assert t.loc["mb2608-gb300-qwen3-30b-a3b-mxfp8", "twins"] == \
        "mb260601-gb300-qwen3-30b-a3b-mxfp8"
    assert bool(t.loc["mb2608-gb300-qwen3-30b-a3b-mxfp8", "has_twin"])
    # 26.08's GB300 DeepSeek-V3 line runs MBS 1; the calibration rows of the same system, model,
    # GPUs, precision and TP / PP / VP / EP (26.02, 26.04.01) run MBS 2: no twin
    rid = "mb2608-gb300-deepseek-v3-mxfp8"
    assert RAW.loc[rid, "micro_batch_size"] == 1
    assert RAW.loc["mb2602-gb300-deepseek-v3-mxfp8", "micro_batch_size"] == 2
    assert RAW.loc["mb2602-gb300-deepseek-v3-mxfp8", "split"] == "calibration"
    assert t.loc[rid, "twins"] == "" and not bool(t.loc[rid, "has_twin"])
    # the key would match without the micro-batch: the flag reads every field
    cfg = sv.validation_configs().set_index("run_id", drop=False)
    a = sv.row_configuration(cfg.loc[rid], RUNS.loc[rid])
    b = sv.row_configuration(cfg.loc["mb2602-gb300-deepseek-v3-mxfp8"],
                             RUNS.loc["mb2602-gb300-deepseek-v3-mxfp8"])
    differ = [k for k, x, y in zip(sv.CONFIGURATION_KEY, a, b) if x != y]
    assert differ == ["micro_batch_size"]


def test_twins_cover_held_out_rows_only_and_name_calibration_rows():
    t = sv.calibration_twins()
    cfg = sv.validation_configs().set_index("run_id")
    assert set(t.index) == set(cfg.index[cfg["split"] == "held-out"])
    named = {r for s in t["twins"] if s for r in s.split("; ")}
    assert named and (cfg.loc[sorted(named), "split"] == "calibration").all()


def test_plans_corrected_after_their_error_are_the_rows_whose_notes_say_so():
    said = {rid for rid, n in RAW["notes"].items()
            if re.search(r"(?i)corrected after|after the row's error|reading made after seeing "
                         r"this row's error", str(n))}
    assert said == set(sv.PLAN_CORRECTED_AFTER_ERROR)
    t = sv.calibration_twins()
    for rid in sv.PLAN_CORRECTED_AFTER_ERROR:
        assert RAW.loc[rid, "split"] == "held-out"
        assert t.loc[rid, "plan_corrected_after_error"] == sv.PLAN_CORRECTED_AFTER_ERROR[rid]
    # the plans priced are the corrected ones (the recipe's), not the table's
    assert RAW.loc["mb2511-h100-qwen3-30b-a3b-fp8cs", ["micro_batch_size",
                                                       "pp_virtual_stages"]].tolist() == [1, 12]
    assert RUNS.loc["mb260201-h100-qwen3-30b-a3b-fp8cs", ["pp", "ep"]].tolist() == [1, 16]
    assert RAW.loc["mb260201-gb300-llama-3.1-70b-mxfp8", ["micro_batch_size",
                                                          "pp_virtual_stages"]].tolist() == [1, 5]
    assert RUNS.loc["mb260201-gb300-llama-3.1-405b-fp8cs", ["tp", "cp"]].tolist() == [4, 1]
