"""Rows of data/validation_mfu.csv whose own source flags their figure: kept in the file with the
reason (column ``excluded``), left out of every statistic, band and fit
(``step_validation.validation_configs`` / ``excluded_configs``).

Source: NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md at 067f987df, section
'26.06.01 NeMo Container', Model: GPT OSS 120B: the DGX-GB300 line (64 GPUs, MXFP8, GBS 1280,
MBS 4, EP 16) 20288 tokens/s/GPU and the DGX-GB200 line (EP 64) 18304, both marked
[^gpt-oss-note]: 'Performance regression in GPT-OSS 120B pre-training is a known issue
(NVIDIA/cudnn-frontend issue 256). It will be resolved with the next container release.' The
same plans in the section '26.06 NeMo Container': 33166 (GB300) and 28947 (GB200) tokens/s/GPU.
NVIDIA/cudnn-frontend issue 256: grouped_gemm_dglu_wrapper_sm100 about 10x slower from v1.23.0 to
v1.24.0; Megatron-Bridge v0.5.0 (26.06) pins nvidia-cudnn-frontend==1.23.0, v0.5.1 (26.06.01)
1.24.0 (pyproject.toml at fcbb60311 / 5cb3444c4).

A copy: the 26.02.01 table (docs/performance-summary.md at cfeddcd94, '2602_perf_table_reorder and
patch container data (#2872)') repeats the 26.02 table's DGX-GB300 Qwen3_235B_a22B line
'| DGX-GB300 | 256 | MXFP8 | 8192 | 2 | 4096 | 0 | 1 | 4 | 1 | n/a | 32 | 6583 | 974 |' figure for
figure, the only one of the 31 lines the two tables share whose figures are unchanged: one
measurement, kept once (the 26.02 row), the copy left out (tests/test_validation_sources.py).
"""

import hashlib

import pandas as pd
import pytest

from llmcost.core.catalog import DATA_DIR
from llmcost.training import step_validation as sv

FLAGGED = {"mb260601-gb300-gpt-oss-120b-mxfp8": ("mb2606-gb300-gpt-oss-120b-mxfp8", 20288, 33166),
           "mb260601-gb200-gpt-oss-120b-mxfp8": ("mb2606-gb200-gpt-oss-120b-mxfp8", 18304, 28947)}
# the footnote as rendered (its "known issue" a link to NVIDIA/cudnn-frontend issue 256)
# a copy of another row's measurement (tests/test_validation_sources.py checks it)
COPIES = {"mb260201-gb300-qwen3-235b-a22b-mxfp8": "mb2602-gb300-qwen3-235b-a22b-mxfp8"}
FOOTNOTE = ("Performance regression in GPT-OSS 120B pre-training is a known issue. It will be "
            "resolved with the next container release.")


def test_the_flagged_rows_are_the_footnoted_ones_and_stay_in_the_file():
    raw = pd.read_csv(DATA_DIR / "validation_mfu.csv")
    assert set(raw.loc[raw["excluded"].notna(), "run_id"]) == set(FLAGGED) | set(COPIES)
    ex = sv.excluded_configs().set_index("run_id")
    assert set(ex.index) == set(FLAGGED) | set(COPIES)
    for rid in FLAGGED:
        # the reason quotes the source's footnote, and the row's notes carry it too
        assert FOOTNOTE in ex.loc[rid, "excluded"]
        assert FOOTNOTE in ex.loc[rid, "notes"]
        assert "v0.5.1 = 5cb3444c4" in ex.loc[rid, "excluded"]
        # the row keeps the split the md5 rule gave it before its error was computed
        cal = int(hashlib.md5(rid.encode()).hexdigest(), 16) % 4 == 0
        assert ex.loc[rid, "split"] == ("calibration" if cal else "held-out") == "calibration"


def test_the_flagged_figures_against_the_same_plan_a_release_earlier():
    # by hand: 33166 / 20288 = 1.635, 28947 / 18304 = 1.581: the footnoted figures are 37-39 %
    # below the same plan's in 26.06, on both systems
    runs = pd.read_csv(DATA_DIR / "published_runs.csv").set_index("run_id")
    cols = ["tp", "pp", "dp", "cp", "ep", "global_batch_tokens", "n_accelerators"]
    for rid, (earlier, tokens, earlier_tokens) in FLAGGED.items():
        assert runs.loc[rid, "reported_tokens_per_sec_per_gpu"] == tokens
        assert runs.loc[earlier, "reported_tokens_per_sec_per_gpu"] == earlier_tokens
        assert (runs.loc[rid, cols] == runs.loc[earlier, cols]).all()
        ex = sv.excluded_configs().set_index("run_id").loc[rid, "excluded"]
        assert f"{earlier_tokens / tokens:.2f}x" in ex


def test_flagged_rows_enter_no_table_but_their_settings_stay_readable():
    cfg = sv.validation_configs()
    assert not set(cfg["run_id"]) & set(FLAGGED)
    every = sv.validation_configs(include_excluded=True)
    assert set(FLAGGED) <= set(every["run_id"])
    assert len(every) == len(cfg) + len(FLAGGED) + len(COPIES)
    assert (cfg["excluded"] == "").all()
    v = sv.mfu_validation(sets=("megatron-bridge-260601",))
    assert not set(v["run_id"]) & set(FLAGGED)
    # the set's other six rows are priced as before
    assert len(v) == 6
    # the same plans a release earlier are not flagged and stay in the table
    v2606 = sv.mfu_validation(sets=("megatron-bridge-2606",))
    assert {e for e, _, _ in FLAGGED.values()} <= set(v2606["run_id"])


def test_no_fitted_constant_read_the_flagged_rows():
    # each row is priced on its own settings and the global constants, so leaving calibration
    # rows out moves no held-out row unless a constant was fitted on them; none was: the MoE host
    # constants are fitted on MOE_HOST_FIT_SETS (not 26.06.01) and on eager stacks only (these
    # ran megatron-core-2026's full-iteration CUDA graph, no host term)
    from llmcost.core.stacks import load_stack
    assert "megatron-bridge-260601" not in sv.MOE_HOST_FIT_SETS
    ex = sv.excluded_configs()
    ex = ex[ex["run_id"].isin(list(FLAGGED))]
    # nor the kernel efficiency's layer times (Korthikanti et al. 2022 Table 4)
    assert not ex["set"].eq(sv.CALIBRATION_SET.split()[0]).any()
    assert (ex["split"] == "calibration").all()
    assert {load_stack(s).cuda_graphs for s in ex["stack"]} == {"full_iteration"}
