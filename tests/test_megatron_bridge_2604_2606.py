"""Megatron-Bridge 26.04 and 26.06 pre-training rows of data/published_runs.csv and
data/validation_mfu.csv held to their source: NVIDIA-NeMo/Megatron-Bridge
docs/performance-summary-archive.md at 067f987df, sections '26.04 NeMo Container' and '26.06
NeMo Container', Pre-Training Performance (each row's ``source`` names its section and model
table). The tables below are transcribed from those sections, one tuple per row: run_id,
System (DGX-...), #-GPUs, Precision, GBS, MBS, Sequence Length, TP, PP, CP, VP (0: 'n/a'),
EP (0: 'n/a'), Tokens / sec / GPU, Model TFLOP / sec / GPU. The 26.04 Llama 3 70B FP8 rows on
GB300 and GB200 are the table's FSDP 64 rows (FSDP > 0: Megatron-FSDP, ZeRO-3)."""

import pytest
from _megatron_bridge import check_table_row, load_csvs

TABLE = (
    ("mb2604-gb300-llama-3.1-70b-mxfp8", "GB300", 64, "MXFP8", 256,
     1, 8192, 1, 4, 1, 5, 0, 4742, 2131),
    ("mb2604-gb200-llama-3.1-70b-mxfp8", "GB200", 64, "MXFP8", 256,
     1, 8192, 2, 4, 1, 5, 0, 3828, 1721),
    ("mb2604-gb300-llama-3.1-70b-fp8cs", "GB300", 64, "FP8", 256,
     2, 8192, 1, 1, 1, 0, 0, 5243, 2355),
    ("mb2604-gb200-llama-3.1-70b-fp8cs", "GB200", 64, "FP8", 256,
     2, 8192, 1, 1, 1, 0, 0, 4143, 1861),
    ("mb2604-h100-llama-3.1-70b-fp8cs", "H100", 64, "FP8", 256, 1, 8192, 4, 8, 1, 5, 0, 1633, 734),
    ("mb2604-gb300-llama-3.1-405b-mxfp8", "GB300", 256, "MXFP8", 1536,
     1, 8192, 2, 8, 2, 4, 0, 968, 2443),
    ("mb2604-gb200-llama-3.1-405b-mxfp8", "GB200", 256, "MXFP8", 1536,
     1, 8192, 4, 16, 1, 8, 0, 793, 2002),
    ("mb2604-gb300-llama-3.1-405b-fp8cs", "GB300", 256, "FP8", 1536,
     1, 8192, 4, 8, 1, 4, 0, 1036, 2615),
    ("mb2604-gb200-llama-3.1-405b-fp8cs", "GB200", 256, "FP8", 1536,
     1, 8192, 4, 16, 1, 4, 0, 842, 2126),
    ("mb2604-gb300-deepseek-v3-mxfp8", "GB300", 256, "MXFP8", 4096,
     2, 4096, 1, 2, 1, 8, 32, 4965, 1290),
    ("mb2604-gb200-deepseek-v3-mxfp8", "GB200", 256, "MXFP8", 4096,
     1, 4096, 1, 4, 1, 4, 64, 4193, 1090),
    ("mb2604-b200-deepseek-v3-mxfp8", "B200", 256, "MXFP8", 4096,
     1, 4096, 1, 16, 1, 0, 8, 2815, 732),
    ("mb2604-gb300-gpt-oss-120b-bf16", "GB300", 64, "BF16", 1280,
     4, 4096, 1, 1, 1, 0, 64, 19275, 524),
    ("mb2604-gb200-gpt-oss-120b-bf16", "GB200", 64, "BF16", 1280,
     4, 4096, 1, 1, 1, 0, 64, 15938, 433),
    ("mb2604-b200-gpt-oss-120b-bf16", "B200", 64, "BF16", 1280, 4, 4096, 1, 1, 1, 0, 8, 13045, 355),
    ("mb2604-h100-gpt-oss-120b-bf16", "H100", 64, "BF16", 1280, 1, 4096, 1, 4, 1, 0, 8, 5810, 158),
    ("mb2604-gb300-qwen3-30b-a3b-mxfp8", "GB300", 8, "MXFP8", 512,
     8, 4096, 1, 1, 1, 0, 8, 31470, 724),
    ("mb2604-gb200-qwen3-30b-a3b-mxfp8", "GB200", 8, "MXFP8", 512,
     4, 4096, 1, 1, 1, 0, 8, 26032, 599),
    ("mb2604-b200-qwen3-30b-a3b-mxfp8", "B200", 8, "MXFP8", 512,
     4, 4096, 1, 1, 1, 0, 8, 26859, 618),
    ("mb2604-h100-qwen3-30b-a3b-fp8cs", "H100", 16, "FP8", 1024,
     1, 4096, 1, 1, 1, 0, 16, 8901, 205),
    ("mb2604-gb300-qwen3-235b-a22b-mxfp8", "GB300", 256, "MXFP8", 8192,
     2, 4096, 1, 4, 1, 12, 32, 6994, 1035),
    ("mb2604-gb200-qwen3-235b-a22b-mxfp8", "GB200", 256, "MXFP8", 8192,
     1, 4096, 1, 8, 1, 3, 32, 5672, 840),
    ("mb2604-gb300-kimi-k2-mxfp8", "GB300", 256, "MXFP8", 4096,
     2, 4096, 1, 4, 1, 4, 64, 5332, 1090),
    ("mb2606-gb300-llama-3.1-405b-fp8cs", "GB300", 256, "FP8", 1536,
     1, 8192, 4, 8, 1, 4, 0, 1048, 2646),
    ("mb2606-gb300-llama-3.1-405b-mxfp8", "GB300", 256, "MXFP8", 1536,
     1, 8192, 2, 8, 2, 4, 0, 952, 2403),
    ("mb2606-gb200-llama-3.1-405b-fp8cs", "GB200", 256, "FP8", 1536,
     1, 8192, 4, 16, 1, 4, 0, 843, 2129),
    ("mb2606-gb200-llama-3.1-405b-mxfp8", "GB200", 256, "MXFP8", 1536,
     1, 8192, 4, 16, 1, 8, 0, 783, 1976),
    ("mb2606-h100-llama-3.1-405b-fp8cs", "H100", 1024, "FP8", 1536,
     1, 8192, 8, 8, 2, 8, 0, 326, 822),
    ("mb2606-gb300-deepseek-v3-mxfp8", "GB300", 256, "MXFP8", 4096,
     1, 4096, 1, 2, 1, 8, 32, 6338, 1648),
    ("mb2606-gb300-deepseek-v3-gbs15360-mxfp8", "GB300", 256, "MXFP8", 15360,
     1, 4096, 1, 2, 1, 8, 32, 6422, 1670),
    ("mb2606-gb200-deepseek-v3-mxfp8", "GB200", 256, "MXFP8", 4096,
     1, 4096, 1, 4, 1, 4, 64, 4969, 1292),
    ("mb2606-gb300-gpt-oss-120b-mxfp8", "GB300", 64, "MXFP8", 1280,
     4, 4096, 1, 1, 1, 0, 16, 33166, 1081),
    ("mb2606-gb200-gpt-oss-120b-mxfp8", "GB200", 64, "MXFP8", 1280,
     4, 4096, 1, 1, 1, 0, 64, 28947, 943),
    ("mb2606-gb300-qwen3-30b-a3b-mxfp8", "GB300", 8, "MXFP8", 512,
     8, 4096, 1, 1, 1, 0, 8, 45275, 1041),
    ("mb2606-gb200-qwen3-30b-a3b-mxfp8", "GB200", 8, "MXFP8", 512,
     4, 4096, 1, 1, 1, 0, 8, 40706, 936),
    ("mb2606-h100-qwen3-30b-a3b-fp8cs", "H100", 16, "FP8", 1024,
     1, 4096, 1, 1, 1, 0, 16, 8826, 203),
    ("mb2606-gb300-qwen3-235b-a22b-mxfp8", "GB300", 256, "MXFP8", 8192,
     2, 4096, 1, 4, 1, 12, 32, 9015, 1335),
    ("mb2606-gb200-qwen3-235b-a22b-mxfp8", "GB200", 256, "MXFP8", 8192,
     1, 4096, 1, 8, 1, 3, 32, 7376, 1092),
    ("mb2606-gb300-kimi-k2-mxfp8", "GB300", 256, "MXFP8", 4096,
     2, 4096, 1, 4, 1, 4, 64, 5372, 1099),

)
FSDP_ROWS = {"mb2604-gb300-llama-3.1-70b-fp8cs", "mb2604-gb200-llama-3.1-70b-fp8cs"}
SETS = ("megatron-bridge-2604", "megatron-bridge-2606")


@pytest.fixture(scope="module")
def csvs():
    return load_csvs()


def test_every_row_of_the_two_sets_is_transcribed_here(csvs):
    _, cfg = csvs
    assert set(cfg.index[cfg["set"].isin(SETS)]) == {t[0] for t in TABLE}
    assert len(TABLE) == 39


@pytest.mark.parametrize("row", TABLE, ids=[t[0] for t in TABLE])
def test_row_is_its_table_row(csvs, row):
    runs, cfg = csvs
    rid = row[0]
    check_table_row(runs, cfg, row, "megatron-bridge-2604" if rid.startswith("mb2604") else
                    "megatron-bridge-2606", "26.04" if rid.startswith("mb2604") else "26.06",
                    FSDP_ROWS)
