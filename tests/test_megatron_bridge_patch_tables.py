"""Megatron-Bridge pre-training rows of the 26.02 table and of the patch releases 26.02.01,
26.04.01 and 26.06.01 in data/published_runs.csv and data/validation_mfu.csv, held to their
source: NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md at 067f987df, sections
'26.02 NeMo Container', '26.02.01 NeMo Container', '26.04.01 NeMo Container' and '26.06.01 NeMo
Container', Pre-Training Performance (each row's ``source`` names its section and model table).
The tables below are transcribed from those sections, one tuple per row: run_id, System
(DGX-...), #-GPUs, Precision, GBS, MBS, Sequence Length, TP, PP, CP, VP (0: 'n/a'), EP (0:
'n/a'), Tokens / sec / GPU, Model TFLOP / sec / GPU. FSDP_ROWS: the rows whose FSDP column is
> 0 (Megatron-FSDP, ZeRO-3); 26.06.01's table has no FSDP column (none). SKIPPED: the sections'
rows not in the validation table, each with its reason (NVFP4: the step engine prices BF16 and
FP8 GEMMs only; DGX-B300: not in data/accelerators.csv; Nemotron 3 Nano / Super: hybrid
Mamba-Transformer, not in data/models.csv; Qwen3-235B-A22B on 256 H100: EP 32 over DP 16, the
plan model needs EP | DP x CP). The 26.02 H100 Qwen3-30B-A3B row is the set's first row, written
before the rest of its table."""

import pandas as pd
import pytest
from _megatron_bridge import check_table_row, load_csvs

TABLE = (
    ('mb2602-h100-qwen3-30b-a3b-fp8cs', 'H100', 16, 'FP8', 1024,
     1, 4096, 1, 2, 1, 12, 8, 5113, 118),
    ('mb2602-gb300-llama-3.1-70b-mxfp8', 'GB300', 64, 'MXFP8', 256,
     1, 8192, 1, 4, 1, 5, 0, 4596, 2064),
    ('mb2602-gb200-llama-3.1-70b-mxfp8', 'GB200', 64, 'MXFP8', 256,
     1, 8192, 2, 4, 1, 5, 0, 3613, 1623),
    ('mb2602-gb300-llama-3.1-70b-fp8cs', 'GB300', 64, 'FP8', 256,
     2, 8192, 1, 1, 1, 0, 0, 5003, 2248),
    ('mb2602-gb200-llama-3.1-70b-fp8cs', 'GB200', 64, 'FP8', 256,
     2, 8192, 1, 1, 1, 0, 0, 4040, 1815),
    ('mb2602-h100-llama-3.1-70b-fp8cs', 'H100', 64, 'FP8', 256, 1, 8192, 4, 8, 1, 5, 0, 1621, 728),
    ('mb2602-gb300-llama-3.1-405b-mxfp8', 'GB300', 256, 'MXFP8', 1536,
     1, 8192, 2, 8, 2, 4, 0, 931, 2349),
    ('mb2602-gb200-llama-3.1-405b-mxfp8', 'GB200', 256, 'MXFP8', 1536,
     1, 8192, 4, 16, 1, 8, 0, 786, 1983),
    ('mb2602-gb300-llama-3.1-405b-fp8cs', 'GB300', 256, 'FP8', 1536,
     1, 8192, 4, 8, 1, 4, 0, 988, 2495),
    ('mb2602-gb200-llama-3.1-405b-fp8cs', 'GB200', 256, 'FP8', 1536,
     1, 8192, 4, 16, 1, 4, 0, 793, 2004),
    ('mb2602-h100-llama-3.1-405b-fp8cs', 'H100', 1024, 'FP8', 1536,
     1, 8192, 8, 8, 2, 8, 0, 311, 784),
    ('mb2602-gb300-deepseek-v3-mxfp8', 'GB300', 256, 'MXFP8', 4096,
     2, 4096, 1, 2, 1, 8, 32, 4612, 1199),
    ('mb2602-gb200-deepseek-v3-mxfp8', 'GB200', 256, 'MXFP8', 4096,
     1, 4096, 1, 4, 1, 4, 64, 3955, 1028),
    ('mb2602-b200-deepseek-v3-mxfp8', 'B200', 256, 'MXFP8', 4096,
     1, 4096, 1, 16, 1, 0, 8, 2689, 699),
    ('mb2602-gb300-gpt-oss-120b-bf16', 'GB300', 64, 'BF16', 1280,
     4, 4096, 1, 1, 1, 0, 64, 19412, 527),
    ('mb2602-gb200-gpt-oss-120b-bf16', 'GB200', 64, 'BF16', 1280,
     4, 4096, 1, 1, 1, 0, 64, 15784, 428),
    ('mb2602-b200-gpt-oss-120b-bf16', 'B200', 64, 'BF16', 1280, 4, 4096, 1, 1, 1, 0, 64, 8047, 219),
    ('mb2602-h100-gpt-oss-120b-bf16', 'H100', 64, 'BF16', 1280, 1, 4096, 1, 4, 1, 0, 8, 5993, 163),
    ('mb2602-gb300-qwen3-30b-a3b-mxfp8', 'GB300', 8, 'MXFP8', 512,
     8, 4096, 1, 1, 1, 0, 8, 30376, 699),
    ('mb2602-gb200-qwen3-30b-a3b-mxfp8', 'GB200', 8, 'MXFP8', 512,
     4, 4096, 1, 1, 1, 0, 8, 26084, 600),
    ('mb2602-b200-qwen3-30b-a3b-mxfp8', 'B200', 8, 'MXFP8', 512, 1, 4096, 1, 1, 1, 0, 8, 9691, 223),
    ('mb2602-gb300-qwen3-235b-a22b-mxfp8', 'GB300', 256, 'MXFP8', 8192,
     2, 4096, 1, 4, 1, 0, 32, 6583, 974),
    ('mb2602-gb200-qwen3-235b-a22b-mxfp8', 'GB200', 256, 'MXFP8', 8192,
     1, 4096, 1, 8, 1, 0, 32, 5448, 806),
    ('mb2602-b200-qwen3-235b-a22b-mxfp8', 'B200', 256, 'MXFP8', 8192,
     1, 4096, 1, 8, 1, 0, 8, 3805, 563),
    ('mb260201-gb300-llama-3.1-70b-mxfp8', 'GB300', 64, 'MXFP8', 256,
     2, 8192, 1, 4, 1, 0, 0, 4798, 2157),
    ('mb260201-gb200-llama-3.1-70b-mxfp8', 'GB200', 64, 'MXFP8', 256,
     1, 8192, 2, 4, 1, 5, 0, 3837, 1724),
    ('mb260201-gb300-llama-3.1-70b-fp8cs', 'GB300', 64, 'FP8', 256,
     2, 8192, 1, 1, 1, 0, 0, 5243, 2353),
    ('mb260201-gb200-llama-3.1-70b-fp8cs', 'GB200', 64, 'FP8', 256,
     2, 8192, 1, 1, 1, 0, 0, 4357, 1956),
    ('mb260201-h100-llama-3.1-70b-fp8cs', 'H100', 64, 'FP8', 256,
     1, 8192, 4, 8, 1, 5, 0, 1639, 736),
    ('mb260201-gb300-llama-3.1-405b-mxfp8', 'GB300', 256, 'MXFP8', 1536,
     1, 8192, 2, 8, 2, 4, 0, 949, 2394),
    ('mb260201-gb200-llama-3.1-405b-mxfp8', 'GB200', 256, 'MXFP8', 1536,
     1, 8192, 4, 16, 1, 8, 0, 775, 1957),
    ('mb260201-gb300-llama-3.1-405b-fp8cs', 'GB300', 256, 'FP8', 1536,
     1, 8192, 2, 8, 2, 4, 0, 1024, 2585),
    ('mb260201-gb200-llama-3.1-405b-fp8cs', 'GB200', 256, 'FP8', 1536,
     1, 8192, 4, 16, 1, 4, 0, 818, 2063),
    ('mb260201-gb300-deepseek-v3-mxfp8', 'GB300', 256, 'MXFP8', 4096,
     2, 4096, 1, 2, 1, 8, 32, 4691, 1219),
    ('mb260201-gb200-deepseek-v3-mxfp8', 'GB200', 256, 'MXFP8', 4096,
     1, 4096, 1, 4, 1, 4, 64, 4021, 1046),
    ('mb260201-b200-deepseek-v3-mxfp8', 'B200', 256, 'MXFP8', 4096,
     1, 4096, 1, 16, 1, 0, 8, 2790, 725),
    ('mb260201-gb300-gpt-oss-120b-bf16', 'GB300', 64, 'BF16', 1280,
     4, 4096, 1, 1, 1, 0, 64, 19366, 526),
    ('mb260201-gb200-gpt-oss-120b-bf16', 'GB200', 64, 'BF16', 1280,
     4, 4096, 1, 1, 1, 0, 64, 15754, 428),
    ('mb260201-b200-gpt-oss-120b-bf16', 'B200', 64, 'BF16', 1280,
     4, 4096, 1, 1, 1, 0, 8, 13722, 373),
    ('mb260201-h100-gpt-oss-120b-bf16', 'H100', 64, 'BF16', 1280,
     1, 4096, 1, 4, 1, 0, 8, 5984, 163),
    ('mb260201-gb300-qwen3-30b-a3b-mxfp8', 'GB300', 8, 'MXFP8', 512,
     8, 4096, 1, 1, 1, 0, 8, 30411, 700),
    ('mb260201-gb200-qwen3-30b-a3b-mxfp8', 'GB200', 8, 'MXFP8', 512,
     4, 4096, 1, 1, 1, 0, 8, 26373, 607),
    ('mb260201-b200-qwen3-30b-a3b-mxfp8', 'B200', 8, 'MXFP8', 512,
     4, 4096, 1, 1, 1, 0, 8, 26695, 614),
    ('mb260201-h100-qwen3-30b-a3b-fp8cs', 'H100', 16, 'FP8', 1024,
     1, 4096, 1, 2, 1, 12, 8, 9058, 208),
    ('mb260201-gb300-qwen3-235b-a22b-mxfp8', 'GB300', 256, 'MXFP8', 8192,
     2, 4096, 1, 4, 1, 0, 32, 6583, 974),
    ('mb260201-gb200-qwen3-235b-a22b-mxfp8', 'GB200', 256, 'MXFP8', 8192,
     1, 4096, 1, 8, 1, 0, 32, 5530, 819),
    ('mb260201-gb300-kimi-k2-mxfp8', 'GB300', 256, 'MXFP8', 4096,
     2, 4096, 1, 4, 1, 4, 64, 5072, 1037),
    ('mb260401-gb300-llama-3.1-70b-fp8cs', 'GB300', 64, 'FP8', 256,
     2, 8192, 1, 1, 1, 0, 0, 5248, 2348),
    ('mb260401-gb300-llama-3.1-70b-mxfp8', 'GB300', 64, 'MXFP8', 256,
     1, 8192, 1, 4, 1, 5, 0, 4864, 2186),
    ('mb260401-gb200-llama-3.1-70b-fp8cs', 'GB200', 64, 'FP8', 256,
     2, 8192, 1, 1, 1, 0, 0, 4224, 1892),
    ('mb260401-gb200-llama-3.1-70b-mxfp8', 'GB200', 64, 'MXFP8', 256,
     1, 8192, 2, 4, 1, 5, 0, 3712, 1664),
    ('mb260401-h100-llama-3.1-70b-fp8cs', 'H100', 64, 'FP8', 256,
     1, 8192, 4, 8, 1, 5, 0, 1664, 731),
    ('mb260401-gb300-llama-3.1-405b-fp8cs', 'GB300', 256, 'FP8', 1536,
     1, 8192, 4, 8, 1, 4, 0, 1024, 2617),
    ('mb260401-gb300-llama-3.1-405b-mxfp8', 'GB300', 256, 'MXFP8', 1536,
     1, 8192, 2, 8, 2, 4, 0, 960, 2453),
    ('mb260401-gb200-llama-3.1-405b-fp8cs', 'GB200', 256, 'FP8', 1536,
     1, 8192, 4, 16, 1, 4, 0, 864, 2144),
    ('mb260401-gb200-llama-3.1-405b-mxfp8', 'GB200', 256, 'MXFP8', 1536,
     1, 8192, 4, 16, 1, 8, 0, 800, 1994),
    ('mb260401-h100-llama-3.1-405b-fp8cs', 'H100', 1024, 'FP8', 1536,
     1, 8192, 8, 8, 2, 8, 0, 328, 827),
    ('mb260401-gb300-deepseek-v3-mxfp8', 'GB300', 256, 'MXFP8', 4096,
     2, 4096, 1, 2, 1, 8, 32, 4992, 1298),
    ('mb260401-gb200-deepseek-v3-mxfp8', 'GB200', 256, 'MXFP8', 4096,
     1, 4096, 1, 4, 1, 4, 64, 4256, 1106),
    ('mb260401-b200-deepseek-v3-mxfp8', 'B200', 256, 'MXFP8', 4096,
     1, 4096, 1, 8, 1, 2, 32, 3328, 864),
    ('mb260401-gb300-gpt-oss-120b-bf16', 'GB300', 64, 'BF16', 1280,
     4, 4096, 1, 1, 1, 0, 64, 19200, 523),
    ('mb260401-gb200-gpt-oss-120b-bf16', 'GB200', 64, 'BF16', 1280,
     4, 4096, 1, 1, 1, 0, 64, 16640, 452),
    ('mb260401-b200-gpt-oss-120b-bf16', 'B200', 64, 'BF16', 1280,
     4, 4096, 1, 1, 1, 0, 8, 13568, 369),
    ('mb260401-h100-gpt-oss-120b-bf16', 'H100', 64, 'BF16', 1280,
     1, 4096, 1, 4, 1, 0, 8, 5824, 158),
    ('mb260401-gb300-qwen3-30b-a3b-mxfp8', 'GB300', 8, 'MXFP8', 512,
     8, 4096, 1, 1, 1, 0, 8, 31744, 729),
    ('mb260401-gb200-qwen3-30b-a3b-mxfp8', 'GB200', 8, 'MXFP8', 512,
     4, 4096, 1, 1, 1, 0, 8, 26112, 599),
    ('mb260401-b200-qwen3-30b-a3b-mxfp8', 'B200', 8, 'MXFP8', 512,
     4, 4096, 1, 1, 1, 0, 8, 27136, 619),
    ('mb260401-h100-qwen3-30b-a3b-fp8cs', 'H100', 16, 'FP8', 1024,
     1, 4096, 1, 1, 1, 0, 16, 8960, 206),
    ('mb260401-gb300-qwen3-235b-a22b-mxfp8', 'GB300', 256, 'MXFP8', 8192,
     2, 4096, 1, 4, 1, 12, 32, 6944, 1029),
    ('mb260401-gb200-qwen3-235b-a22b-mxfp8', 'GB200', 256, 'MXFP8', 8192,
     1, 4096, 1, 8, 1, 3, 32, 5680, 840),
    ('mb260401-b200-qwen3-235b-a22b-mxfp8', 'B200', 256, 'MXFP8', 8192,
     1, 4096, 1, 8, 1, 0, 8, 3776, 560),
    ('mb260401-gb300-kimi-k2-mxfp8', 'GB300', 256, 'MXFP8', 4096,
     2, 4096, 1, 4, 1, 4, 64, 5328, 1088),
    ('mb260601-gb300-deepseek-v3-mxfp8', 'GB300', 256, 'MXFP8', 4096,
     1, 4096, 1, 2, 1, 8, 32, 6304, 1640),
    ('mb260601-gb200-deepseek-v3-mxfp8', 'GB200', 256, 'MXFP8', 4096,
     1, 4096, 1, 4, 1, 4, 64, 4928, 1280),
    ('mb260601-gb300-gpt-oss-120b-mxfp8', 'GB300', 64, 'MXFP8', 1280,
     4, 4096, 1, 1, 1, 0, 16, 20288, 661),
    ('mb260601-gb200-gpt-oss-120b-mxfp8', 'GB200', 64, 'MXFP8', 1280,
     4, 4096, 1, 1, 1, 0, 64, 18304, 597),
    ('mb260601-gb300-qwen3-30b-a3b-mxfp8', 'GB300', 8, 'MXFP8', 512,
     8, 4096, 1, 1, 1, 0, 8, 44544, 1029),
    ('mb260601-gb200-qwen3-30b-a3b-mxfp8', 'GB200', 8, 'MXFP8', 512,
     4, 4096, 1, 1, 1, 0, 8, 40960, 937),
    ('mb260601-gb300-qwen3-235b-a22b-mxfp8', 'GB300', 256, 'MXFP8', 8192,
     2, 4096, 1, 4, 1, 12, 32, 9008, 1333),
    ('mb260601-gb200-qwen3-235b-a22b-mxfp8', 'GB200', 256, 'MXFP8', 8192,
     1, 4096, 1, 8, 1, 3, 32, 7360, 1089),
)
FSDP_ROWS = frozenset({
    'mb260401-gb300-llama-3.1-70b-fp8cs',
    'mb260201-gb300-llama-3.1-70b-fp8cs',
    'mb260401-gb200-llama-3.1-70b-fp8cs',
    'mb2602-gb300-llama-3.1-70b-fp8cs',
    'mb2602-gb200-llama-3.1-70b-fp8cs',
    'mb260201-gb200-llama-3.1-70b-fp8cs'})
SKIPPED = (
    ('26.02', 'LLAMA3_70B', 'DGX-GB300', 'NVFP4', 'NVFP4'),
    ('26.02', 'LLAMA3_70B', 'DGX-GB200', 'NVFP4', 'NVFP4'),
    ('26.02', 'LLAMA3.1_405B', 'DGX-GB300', 'NVFP4', 'NVFP4'),
    ('26.02', 'LLAMA3.1_405B', 'DGX-GB200', 'NVFP4', 'NVFP4'),
    ('26.02', 'DeepSeekV3', 'DGX-B300', 'MXFP8', 'B300'),
    ('26.02', 'GPT OSS 120B', 'DGX-B300', 'BF16', 'B300'),
    ('26.02', 'Qwen3_30B_a3B', 'DGX-B300', 'MXFP8', 'B300'),
    ('26.02', 'Qwen3_235B_a22B', 'DGX-B300', 'MXFP8', 'B300'),
    ('26.02', 'Qwen3_235B_a22B', 'DGX-H100', 'FP8', 'EP 32 does not divide DP x CP = 16'),
    ('26.02.01', 'LLAMA3_70B', 'DGX-GB300', 'NVFP4', 'NVFP4'),
    ('26.02.01', 'LLAMA3_70B', 'DGX-GB200', 'NVFP4', 'NVFP4'),
    ('26.02.01', 'LLAMA3.1_405B', 'DGX-GB300', 'NVFP4', 'NVFP4'),
    ('26.02.01', 'LLAMA3.1_405B', 'DGX-GB200', 'NVFP4', 'NVFP4'),
    ('26.02.01', 'DeepSeekV3', 'DGX-B300', 'MXFP8', 'B300'),
    ('26.02.01', 'GPT OSS 120B', 'DGX-B300', 'BF16', 'B300'),
    ('26.02.01', 'Qwen3_30B_a3B', 'DGX-B300', 'MXFP8', 'B300'),
    ('26.02.01', 'Qwen3_235B_a22B', 'DGX-B300', 'MXFP8', 'B300'),
    ('26.02.01', 'Qwen3_235B_a22B', 'DGX-H100', 'FP8', 'EP 32 does not divide DP x CP = 16'),
    ('26.02.01', 'Nemotron_3_Nano', 'DGX-GB300', 'MXFP8', 'model'),
    ('26.02.01', 'Nemotron_3_Nano', 'DGX-GB200', 'MXFP8', 'model'),
    ('26.02.01', 'Nemotron_3_Nano', 'DGX-B300', 'MXFP8', 'B300+model'),
    ('26.02.01', 'Nemotron_3_Nano', 'DGX-H100', 'FP8', 'model'),
    ('26.04.01', 'LLAMA3_70B', 'DGX-GB300', 'NVFP4', 'NVFP4'),
    ('26.04.01', 'LLAMA3_70B', 'DGX-GB200', 'NVFP4', 'NVFP4'),
    ('26.04.01', 'LLAMA3.1_405B', 'DGX-GB300', 'NVFP4', 'NVFP4'),
    ('26.04.01', 'LLAMA3.1_405B', 'DGX-GB200', 'NVFP4', 'NVFP4'),
    ('26.04.01', 'DeepSeekV3', 'DGX-B300', 'MXFP8', 'B300'),
    ('26.04.01', 'GPT OSS 120B', 'DGX-B300', 'BF16', 'B300'),
    ('26.04.01', 'Qwen3_30B_a3B', 'DGX-B300', 'MXFP8', 'B300'),
    ('26.04.01', 'Qwen3_235B_a22B', 'DGX-B300', 'MXFP8', 'B300'),
    ('26.04.01', 'Qwen3_235B_a22B', 'DGX-H100', 'FP8', 'EP 32 does not divide DP x CP = 16'),
    ('26.04.01', 'Nemotron_3_Nano', 'DGX-GB300', 'MXFP8', 'model'),
    ('26.04.01', 'Nemotron_3_Nano', 'DGX-GB200', 'MXFP8', 'model'),
    ('26.04.01', 'Nemotron_3_Nano', 'DGX-B300', 'MXFP8', 'B300+model'),
    ('26.04.01', 'Nemotron_3_Nano', 'DGX-B200', 'MXFP8', 'model'),
    ('26.04.01', 'Nemotron_3_Nano', 'DGX-H100', 'FP8', 'model'),
    ('26.04.01', 'Nemotron_3_Super', 'DGX-GB300', 'MXFP8', 'model'),
    ('26.04.01', 'Nemotron_3_Super', 'DGX-GB300', 'NVFP4', 'NVFP4+model'),
    ('26.04.01', 'Nemotron_3_Super', 'DGX-GB200', 'MXFP8', 'model'),
    ('26.04.01', 'Nemotron_3_Super', 'DGX-GB200', 'NVFP4', 'NVFP4+model'),
    ('26.04.01', 'Nemotron_3_Super', 'DGX-B300', 'MXFP8', 'B300+model'),
    ('26.04.01', 'Nemotron_3_Super', 'DGX-B300', 'NVFP4', 'NVFP4+B300+model'),
    ('26.04.01', 'Nemotron_3_Super', 'DGX-B200', 'MXFP8', 'model'),
    ('26.04.01', 'Nemotron_3_Super', 'DGX-B200', 'NVFP4', 'NVFP4+model'),
    ('26.06.01', 'Nemotron_3_Nano', 'DGX-GB300', 'MXFP8', 'model'),
    ('26.06.01', 'Nemotron_3_Nano', 'DGX-GB200', 'MXFP8', 'model'),
    ('26.06.01', 'Nemotron_3_Super', 'DGX-GB300', 'MXFP8', 'model'),
    ('26.06.01', 'Nemotron_3_Super', 'DGX-GB300', 'NVFP4', 'NVFP4+model'),
    ('26.06.01', 'Nemotron_3_Super', 'DGX-GB200', 'MXFP8', 'model'),
    ('26.06.01', 'Nemotron_3_Super', 'DGX-GB200', 'NVFP4', 'NVFP4+model'),
)
SETS = {"26.02": ("megatron-bridge-2602", "mb2602"),
        "26.02.01": ("megatron-bridge-260201", "mb260201"),
        "26.04.01": ("megatron-bridge-260401", "mb260401"),
        "26.06.01": ("megatron-bridge-260601", "mb260601")}


def section_of(rid: str) -> str:
    """The table section of a run id, by its prefix."""
    return next(sec for sec, (_, prefix) in SETS.items() if rid.startswith(prefix + "-"))


@pytest.fixture(scope="module")
def csvs():
    return load_csvs()


def test_every_row_of_the_four_sets_is_transcribed_here(csvs):
    _, cfg = csvs
    sets = [s for s, _ in SETS.values()]
    assert set(cfg.index[cfg["set"].isin(sets)]) == {t[0] for t in TABLE}
    assert len(TABLE) == len({t[0] for t in TABLE}) == 80
    # with the skipped rows, every pre-training row of the four sections: 33 + 36 + 47 + 14
    per = {sec: sum(section_of(t[0]) == sec for t in TABLE) for sec in SETS}
    for sec, n in {"26.02": 33, "26.02.01": 36, "26.04.01": 47, "26.06.01": 14}.items():
        assert per[sec] + sum(s[0] == sec for s in SKIPPED) == n, sec


#: Rows priced at their release's recipe plan, not the table's plan columns: run_id -> the
#: recipe's (MBS, TP, PP, CP, VP (0: unset), EP), with its source. 26.02.01's H100 Qwen3-30B-A3B
#: line repeats 26.02's plan columns (PP 2, VP 12, EP 8) with new figures; the recipe at the
#: 26.02.01 release tag v0.3.1 = 9c9dd8489 (NVIDIA-NeMo/Megatron-Bridge
#: scripts/performance/configs/qwen/qwen3_workload_base_configs.py
#: QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_FP8_CS_V1, from f29a269f8 = PR #2477) is
#: expert_model_parallel_size=16, moe_flex_dispatcher_backend="hybridep", moe_a2a_overlap=False,
#: pipeline and virtual pipeline sizes and micro_batch_size left at WorkloadBaseConfig's defaults
#: (1, None, 1: scripts/performance/utils/utils.py at v0.3.1). 26.02.01's GB300 Llama 3 70B
#: MXFP8 line states MBS 2, VP n/a (its FP8 line's); its recipe at the same tag is MBS 1, PP 4,
#: VP 5 (``test_the_26_02_01_gb300_70b_mxfp8_row_is_its_tag_recipe_plan``). 26.02.01's GB300
#: Llama 3.1 405B FP8 line states TP 2, CP 2 (its MXFP8 line's); its recipe at the same tag is
#: TP 4, PP 8, CP 1, VP 4 (``test_the_26_02_01_gb300_405b_fp8cs_row_is_its_tag_recipe_plan``).
RECIPE_PLAN_ROWS = {"mb260201-h100-qwen3-30b-a3b-fp8cs": (1, 1, 1, 1, 0, 16),
                    "mb260201-gb300-llama-3.1-70b-mxfp8": (1, 1, 4, 1, 5, 0),
                    "mb260201-gb300-llama-3.1-405b-fp8cs": (1, 4, 8, 1, 4, 0)}


def _as_priced(row):
    """The table tuple with the plan the row prices: the recipe's for ``RECIPE_PLAN_ROWS``."""
    if row[0] not in RECIPE_PLAN_ROWS:
        return row
    mbs, tp, pp, cp, vp, ep = RECIPE_PLAN_ROWS[row[0]]
    return (*row[:5], mbs, row[6], tp, pp, cp, vp, ep, *row[12:])


@pytest.mark.parametrize("row", TABLE, ids=[t[0] for t in TABLE])
def test_row_is_its_table_row(csvs, row):
    runs, cfg = csvs
    rid, tp, tokens, tflops = row[0], row[7], row[12], row[13]
    sec = section_of(rid)
    check_table_row(runs, cfg, _as_priced(row), SETS[sec][0], sec, FSDP_ROWS)
    r, c = runs.loc[rid], cfg.loc[rid]
    assert f"section '{sec} NeMo Container'" in c["source"]
    assert f": {tokens} tokens/s/GPU, {tflops} model TFLOP/s/GPU" in c["notes"]
    assert bool(c["sequence_parallel"]) == (tp > 1)


def test_the_26_02_01_h100_qwen3_row_is_its_tag_recipe_not_the_repeated_table_plan(csvs):
    """26.02.01 lists the H100 Qwen3-30B-A3B FP8 line of 26.02 (PP 2, VP 12, EP 8) with new
    figures, 9058 tokens/s/GPU against 26.02's 5113; the recipe at its release tag v0.3.1 is
    PP 1, EP 16, HybridEP without the batch-level EP overlap, the plan of the 26.04 (8901),
    26.04.01 (8960) and 26.06 (8826) lines. The row prices that recipe and says so (the table's
    line kept verbatim in its notes; the release tag, its commit and the PR that set the plan
    in its source and notes)."""
    from llmcost.training import step_validation
    runs, cfg = csvs
    rid = "mb260201-h100-qwen3-30b-a3b-fp8cs"
    r, c = runs.loc[rid], cfg.loc[rid]
    assert (int(r["pp"]), int(c["pp_virtual_stages"]), int(r["ep"]), int(r["dp"])) == (1, 1, 16, 16)
    assert float(r["reported_tokens_per_sec_per_gpu"]) == 9058
    assert "'| DGX-H100 | 16 | FP8 | 1024 | 1 | 4096 | 0 | 1 | 2 | 1 | 12 | 8 | 9058 | 208 |'" \
        in c["notes"]
    assert "v0.3.1 = 9c9dd8489" in c["source"] and "f29a269f8" in c["notes"]
    assert "moe_flex_dispatcher_backend 'hybridep'" in c["notes"]
    assert rid not in step_validation.EP_OVERLAP_OF_ROW
    # the two measurements of the PP 2 / EP 8 recipe, and the later ones of the PP 1 / EP 16 one
    pp2 = [float(runs.loc[k, "reported_tokens_per_sec_per_gpu"]) for k in
           ("mb2511-h100-qwen3-30b-a3b-fp8cs", "mb2602-h100-qwen3-30b-a3b-fp8cs")]
    ep16 = [float(runs.loc[k, "reported_tokens_per_sec_per_gpu"]) for k in
            ("mb2604-h100-qwen3-30b-a3b-fp8cs", "mb260401-h100-qwen3-30b-a3b-fp8cs",
             "mb2606-h100-qwen3-30b-a3b-fp8cs")]
    assert pp2 == [5275, 5113] and ep16 == [8901, 8960, 8826]
    assert all((r2["pp"], r2["ep"]) == (1, 16) for r2 in
               (runs.loc[k] for k in ("mb2604-h100-qwen3-30b-a3b-fp8cs",
                                      "mb260401-h100-qwen3-30b-a3b-fp8cs")))
    assert abs(9058 / max(ep16) - 1) < 0.03 and 9058 / max(pp2) > 1.7


def test_the_26_02_01_gb300_70b_mxfp8_row_is_its_tag_recipe_plan(csvs):
    """26.02.01's GB300 Llama 3 70B MXFP8 line (docs/performance-summary-archive.md at 067f987df)
    states MBS 2, PP 4, VP n/a. Its recipe at the release tag v0.3.1 = 9c9dd8489,
    scripts/performance/configs/llama/llama3_workload_base_configs.py:
    ``LLAMA3_70B_PRETRAIN_CONFIG_GB300_FP8_MX_V2 = replace(BASE_LLAMA3_70B_CONFIG_GBS256,
    pipeline_model_parallel_size=4, virtual_pipeline_model_parallel_size=5)`` (MBS left at
    scripts/performance/utils/utils.py ``WorkloadBaseConfig.micro_batch_size: int = 1``), as in
    the 26.02 table's line (MBS 1, PP 4, VP 5: 4596 tokens/s/GPU). The 26.02.01 line's MBS 2 and
    VP n/a are its FP8 line's; its NVFP4 line (MBS 2, TP 1, PP 1, FSDP 0) is a plan whose model
    state alone does not fit the GPU: by Megatron-LM's distributed-optimizer guide (BF16
    parameters and gradients: 4 + 16/d bytes per parameter, d = DP = 64), 70,553,706,496 x 4.25
    = 299.9 GB against 279 GiB = 299.6 GB of HBM (data/accelerators.csv), before any activation.
    The row is priced with the recipe's plan; the table's, priced beside it, overflows the HBM
    under the memory model (no recomputation or offload in the recipe)."""
    from llmcost import load_accelerator
    from llmcost.training import step_validation
    runs, cfg = csvs
    rid = "mb260201-gb300-llama-3.1-70b-mxfp8"
    r, c = runs.loc[rid], cfg.loc[rid]
    assert (int(r["tp"]), int(r["pp"]), int(r["dp"])) == (1, 4, 16)
    assert (int(c["micro_batch_size"]), int(c["pp_virtual_stages"])) == (1, 5)
    assert c["recompute"] == "none" and pd.isna(c["activation_offload_layers"])
    assert "9c9dd848966322fc3ed7706747ec13219ef49dda" in c["source"]
    assert "'| DGX-GB300 | 64 | MXFP8 | 256 | 2 | 8192 | 0 | 1 | 4 | 1 | n/a | n/a | 4798 | 2157 |'" \
        in c["notes"]
    first = runs.loc["mb2602-gb300-llama-3.1-70b-mxfp8"]
    assert float(first["reported_tokens_per_sec_per_gpu"]) == 4596
    assert (int(cfg.loc["mb2602-gb300-llama-3.1-70b-mxfp8", "micro_batch_size"]),
            int(cfg.loc["mb2602-gb300-llama-3.1-70b-mxfp8", "pp_virtual_stages"])) == (1, 5)
    # the NVFP4 line's plan: model state alone over the HBM (hand count, docstring)
    hbm = load_accelerator("GB300-NVL72").hbm_bytes
    assert hbm == 279 * 2**30
    assert float(r["params_total"]) * (4 + 16 / 64) > hbm
    # GA: 256 sequences / (MBS x DP): the table's 8, the recipe's 16
    assert 256 // (2 * 16) == 8 and 256 // (1 * 16) == 16
    t = step_validation.row_readings(rid, step_validation.MB260201_GB300_70B_TABLE_READINGS)
    table_plan = "the table's plan (MBS 2, no VP, 1F1B, GA 8)"
    assert t.loc["as priced", "plan"].startswith("TP1 · PP4×v5 · DP16 · INTERLEAVED m=16 mbs=1")
    assert t.loc[table_plan, "plan"].startswith("TP1 · PP4 · DP16 · 1F1B m=8 mbs=2")
    assert t.loc["as priced", "memory_bytes"] <= t.loc["as priced", "hbm_bytes"]
    assert t.loc[table_plan, "memory_bytes"] > 1.2 * t.loc[table_plan, "hbm_bytes"]
    # regression pins (the engine's own figures, not sourced): the error as priced and under the
    # table's plan, and the table plan's count (about 375 GiB)
    assert t.loc["as priced", "error"] == pytest.approx(-0.114, abs=0.01)
    assert t.loc[table_plan, "error"] == pytest.approx(-0.317, abs=0.01)
    assert t.loc[table_plan, "memory_bytes"] / 2**30 == pytest.approx(375, abs=2)


def test_the_26_02_01_gb300_405b_fp8cs_row_is_its_tag_recipe_plan(csvs):
    """26.02.01's GB300 Llama 3.1 405B FP8 line (docs/performance-summary-archive.md at 067f987df)
    states TP 2, PP 8, CP 2, VP 4: the plan columns of the MXFP8 line above it
    ('| DGX-GB300 | 256 | MXFP8 | 1536 | 1 | 8192 | 0 | 2 | 8 | 2 | 4 | n/a | 949 | 2394 |').
    Its recipe at the release tag v0.3.1 = 9c9dd8489,
    scripts/performance/configs/llama/llama31_workload_base_configs.py:
    ``LLAMA31_405B_PRETRAIN_CONFIG_GB300_FP8_CS_V2 = replace(..._FP8_CS_V1,
    tensor_model_parallel_size=4, pipeline_model_parallel_size=8, context_parallel_size=1,
    virtual_pipeline_model_parallel_size=4, num_gpus=256, global_batch_size=1536,
    use_megatron_fsdp=False, cpu_offloading_num_layers=None)`` (the same at v0.3.0 and v0.4.0),
    and the FP8 line of the 26.02, 26.04, 26.04.01 and 26.06 tables is TP 4, CP 1 at 988, 1036,
    1024 and 1048 tokens/s/GPU: the 26.02.01 figure (1024) is within that series. DP = 256 /
    (4 x 8 x 1) = 8 either way (the table's: 256 / (2 x 8 x 2)), GA = 1536 / (1 x 8) = 192."""
    from llmcost.training import step_validation
    runs, cfg = csvs
    rid = "mb260201-gb300-llama-3.1-405b-fp8cs"
    r, c = runs.loc[rid], cfg.loc[rid]
    assert (int(r["tp"]), int(r["pp"]), int(r["cp"]), int(r["dp"])) == (4, 8, 1, 8)
    assert (int(c["micro_batch_size"]), int(c["pp_virtual_stages"])) == (1, 4)
    assert bool(c["sequence_parallel"]) and c["comm_tp_overlap"] == "all"
    assert float(r["reported_tokens_per_sec_per_gpu"]) == 1024
    assert float(r["reported_tflops_per_gpu"]) == 2585
    assert int(r["global_batch_tokens"]) // 8192 // (int(c["micro_batch_size"]) * int(r["dp"])) \
        == 192
    assert "9c9dd848966322fc3ed7706747ec13219ef49dda" in c["source"]
    assert "'| DGX-GB300 | 256 | FP8 | 1536 | 1 | 8192 | 0 | 2 | 8 | 2 | 4 | n/a | 1024 | 2585 |'" \
        in c["notes"]
    # the MXFP8 line's plan, which the FP8 line repeats
    mx = runs.loc["mb260201-gb300-llama-3.1-405b-mxfp8"]
    assert (int(mx["tp"]), int(mx["pp"]), int(mx["cp"])) == (2, 8, 2)
    # every other table's GB300 FP8 line: the recipe's TP 4, CP 1, and its figures
    others = {"mb2602-gb300-llama-3.1-405b-fp8cs": 988, "mb2604-gb300-llama-3.1-405b-fp8cs": 1036,
              "mb260401-gb300-llama-3.1-405b-fp8cs": 1024,
              "mb2606-gb300-llama-3.1-405b-fp8cs": 1048}
    for k, tokens in others.items():
        o = runs.loc[k]
        assert (int(o["tp"]), int(o["pp"]), int(o["cp"])) == (4, 8, 1), k
        assert float(o["reported_tokens_per_sec_per_gpu"]) == tokens, k
    assert min(others.values()) <= 1024 <= max(others.values())
    t = step_validation.row_readings(rid, step_validation.MB260201_GB300_405B_TABLE_READINGS)
    table_plan = "the table's plan (TP 2, CP 2, DP 8)"
    assert t.loc["as priced", "plan"].startswith("TP4 · PP8×v4 · DP8 · INTERLEAVED m=192 mbs=1")
    assert t.loc[table_plan, "plan"].startswith("TP2 · PP8×v4 · CP2 · DP8 · INTERLEAVED m=192")
    assert (t["memory_bytes"].loc[["as priced", table_plan]] <= t["hbm_bytes"].loc[
        ["as priced", table_plan]]).all()
    # regression pins (the engine's own figures, not sourced): the error as priced and under the
    # table's plan
    assert t.loc["as priced", "error"] == pytest.approx(-0.148, abs=0.01)
    assert t.loc[table_plan, "error"] == pytest.approx(-0.139, abs=0.01)


def test_row_readings_replace_the_run_plan_columns_only(csvs):
    """``row_readings`` replaces the run's TP / PP / CP / EP (DP follows from the GPU count) and
    refuses other columns of data/published_runs.csv (a figure is not a reading)."""
    from llmcost.training import step_validation
    rid = "mb260201-gb300-llama-3.1-405b-fp8cs"
    t = step_validation.row_readings(rid, {"TP 8": {"tp": 8}})
    assert t.loc["TP 8", "plan"].startswith("TP8 · PP8×v4 · DP4 ")    # 256 / (8 x 8 x 1) = 4
    with pytest.raises(ValueError, match="reported_tokens_per_sec_per_gpu"):
        step_validation.row_readings(rid, {"bad": {"reported_tokens_per_sec_per_gpu": 2000}})


def test_the_26_02_01_b200_gpt_oss_row_is_the_release_branch_recipe(csvs):
    """26.02.01's B200 GPT-OSS 120B line states EP 8 (13722 tokens/s/GPU) where 26.02's states
    EP 64 (8047) and the recipe at the tag v0.3.1 (GPT_OSS_120B_PRETRAIN_CONFIG_B200_BF16_V2,
    from _V1: expert_model_parallel_size=64) EP 64: not a copy of another line. The release
    branch r0.3.0 set EP 8 after the tag, in NVIDIA-NeMo/Megatron-Bridge commit 904597bd3
    ('gpt_oss_cfg_update b200/b300 (#2915)', 2026-03-21 01:15:55 +0100, with
    moe_flex_dispatcher_backend='hybridep', which gpt_oss_llm_pretrain.py at that commit never
    reads: the library recipe's alltoall dispatcher), 42 s before the table's commit cfeddcd94
    (01:16:37 +0100). The row keeps the table's plan and the alltoall dispatcher, and says why;
    the 26.04.01 line, whose recipe (v0.4.2) is EP 8 with the alltoall dispatcher, agrees
    (13568 tokens/s/GPU)."""
    runs, cfg = csvs
    rid = "mb260201-b200-gpt-oss-120b-bf16"
    r, c = runs.loc[rid], cfg.loc[rid]
    assert (int(r["ep"]), int(r["dp"]), int(c["micro_batch_size"])) == (8, 64, 4)
    assert c["stack"] == "megatron-core-2024"
    assert "904597bd3eadccf86a057ced0636d3b6e2fdf227" in c["source"]
    assert "904597bd3" in c["notes"] and "cfeddcd94" in c["notes"]
    later = runs.loc["mb260401-b200-gpt-oss-120b-bf16"]
    assert (int(later["ep"]), float(later["reported_tokens_per_sec_per_gpu"])) == (8, 13568)
    assert cfg.loc["mb260401-b200-gpt-oss-120b-bf16", "stack"] == "megatron-core-2024"
    first = runs.loc["mb2602-b200-gpt-oss-120b-bf16"]
    assert (int(first["ep"]), float(first["reported_tokens_per_sec_per_gpu"])) == (64, 8047)


#: The worst Megatron-Bridge rows (held-out |error| > 25 %, and their siblings of the same
#: recipe) read against the performance recipe of their container's release
#: (NVIDIA-NeMo/Megatron-Bridge, docs/versions1.json at 067f987df: 0.2.0 = 25.11, 0.3.0 = 26.02,
#: 0.3.1 = 26.02.01, 0.4.0 = 26.04, 0.4.2 = 26.04.01; 25.09 the r0.1.0 branch, no 0.1.0 tag):
#: run_id -> (commit, config, (MBS, TP, PP, CP, VP (1: unset), EP, GBS), MoE dispatcher,
#: moe_a2a_overlap, CUDA graphs, recompute_modules), transcribed from
#: scripts/performance/configs/*/*workload_base_configs.py (WorkloadBaseConfig defaults: MBS 1,
#: TP / PP / CP 1, VP unset, no graphs, moe_a2a_overlap False: scripts/performance/utils/utils.py)
#: and the model's library recipe (dispatcher). The dispatcher is 'flex' with the config's
#: moe_flex_dispatcher_backend where the perf script applies it (Qwen3 from v0.3.0, GPT-OSS from
#: v0.4.0: apply_flex_dispatcher_backend), else the library's 'alltoall' (Qwen3 at v0.2.0, no
#: backend; GPT-OSS before v0.4.0: gpt_oss_llm_pretrain.py never reads the backend, and its
#: provider sets moe_token_dispatcher_type 'alltoall'). 26.02.01's B200 GPT-OSS line ran the
#: release branch's config after the tag (904597bd3, PR #2915: EP 8). 25.09's Qwen3 on 8 B200 is
#: scripts/performance/configs/qwen3/qwen3_30b_a3b_llm_pretrain.yaml on r0.1.0 (684a68616:
#: b200 num_gpus_8: mbs 1, gbs 512, ep 8, cuda_graphs true, i.e. Megatron-Core's per-layer
#: graphs, ``enable_cuda_graph``; the token-dropping padded layers, run_script.py), the one
#: setting here the engine does not price (per-layer CUDA graphs: moe_layer's docstring).
TAG_RECIPES = {
    "mb2511-h100-qwen3-30b-a3b-fp8cs": (
        "7af9601c9", "QWEN3_30B_A3B_H100_FP8_CS_BASE_CONFIG", (1, 1, 2, 1, 12, 8, 512),
        "alltoall", True, "none", ""),
    "mb2602-h100-qwen3-30b-a3b-fp8cs": (
        "21b02e0cf", "QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_FP8_CS_V1", (1, 1, 2, 1, 12, 8, 1024),
        "deepep", True, "none", ""),
    "mb2602-gb200-gpt-oss-120b-bf16": (
        "21b02e0cf", "GPT_OSS_120B_PRETRAIN_CONFIG_GB200_BF16_V2", (4, 1, 1, 1, 1, 64, 1280),
        "alltoall", False, "none", "layernorm|moe_act"),
    "mb260201-gb200-gpt-oss-120b-bf16": (
        "9c9dd8489", "GPT_OSS_120B_PRETRAIN_CONFIG_GB200_BF16_V2", (4, 1, 1, 1, 1, 64, 1280),
        "alltoall", False, "none", "layernorm|moe_act"),
    "mb260401-gb200-gpt-oss-120b-bf16": (
        "c81012934", "GPT_OSS_120B_PRETRAIN_CONFIG_GB200_BF16_V2", (4, 1, 1, 1, 1, 64, 1280),
        "alltoall", True, "none", "layernorm|moe_act"),
    "mb2602-b200-gpt-oss-120b-bf16": (
        "21b02e0cf", "GPT_OSS_120B_PRETRAIN_CONFIG_B200_BF16_V2", (4, 1, 1, 1, 1, 64, 1280),
        "alltoall", False, "none", "layernorm|moe_act"),
    "mb260201-b200-gpt-oss-120b-bf16": (
        "904597bd3", "GPT_OSS_120B_PRETRAIN_CONFIG_B200_BF16_V2", (4, 1, 1, 1, 1, 8, 1280),
        "alltoall", False, "none", "layernorm|moe_act"),
    "mb260401-b200-gpt-oss-120b-bf16": (
        "c81012934", "GPT_OSS_120B_PRETRAIN_CONFIG_B200_BF16_V2", (4, 1, 1, 1, 1, 8, 1280),
        "alltoall", False, "none", "layernorm|moe_act"),
    "mb2509-b200-qwen3-30b-a3b-fp8": (
        "684a68616", "qwen3_30b_a3b_llm_pretrain.yaml b200 num_gpus_8", (1, 1, 1, 1, 1, 8, 512),
        "alltoall", False, "per_layer", ""),
}

#: What each dispatcher is as a stack's ``moe_dispatch`` (data/stacks.csv): Megatron-Core's
#: alltoall dispatcher sends a copy per routed expert; DeepEP and HybridEP one per node.
DISPATCH_OF = {"alltoall": "per_expert", "deepep": "per_node", "hybridep": "per_node"}


@pytest.mark.parametrize("rid", sorted(TAG_RECIPES))
def test_worst_rows_agree_with_their_release_recipes(csvs, rid):
    from llmcost.core.stacks import load_stack
    from llmcost.training import step_validation
    runs, cfg = csvs
    commit, config, plan, dispatcher, overlap, graphs, modules = TAG_RECIPES[rid]
    r, c = runs.loc[rid], cfg.loc[rid]
    seq = int(r["seq_len"])
    row = (int(c["micro_batch_size"]), int(r["tp"]), int(r["pp"]),
           1 if pd.isna(r["cp"]) else int(r["cp"]), int(c["pp_virtual_stages"]), int(r["ep"]),
           int(r["global_batch_tokens"]) // seq)
    assert row == plan
    stack = load_stack(c["stack"])
    assert stack.moe_dispatch == DISPATCH_OF[dispatcher]
    assert (rid in step_validation.EP_OVERLAP_OF_ROW) == overlap
    assert c["recompute"] == "none"
    assert ("" if pd.isna(c["recompute_modules"]) else c["recompute_modules"]) == modules
    # eager stacks: the engine prices no graph; the one per-layer-graph run is said in its notes
    assert stack.cuda_graphs == "none"
    if graphs == "per_layer":
        assert "cuda_graphs true" in c["notes"]
    # the row cites its config by name (25.09's rows cite the set's recipe YAMLs and run_script)
    cited = "recipe YAMLs" if rid.startswith("mb2509") else config
    assert cited in c["source"] + c["notes"]


#: The GB200 DeepSeek-V3 MXFP8 rows whose recipe recomputes Megatron-Core's ``mlp`` module:
#: DEEPSEEK_V3_PRETRAIN_CONFIG_GB200_V1 (whence ``_FP8_MX_V2``) sets ``recompute_modules=["mlp"]``
#: in scripts/performance/configs/deepseek/deepseek_workload_base_configs.py at Megatron-Bridge
#: v0.4.0 and v0.4.2, and Megatron-Core, at the 3rdparty/Megatron-LM commits those tags pin
#: (d7288711b, 2edffadb5), recomputes it only in dense layers
#: (megatron/core/transformer/transformer_layer.py: ``if "mlp" in self.config.recompute_modules:
#: if not self.is_moe_layer: self.recompute_mlp = True``): DeepSeek-V3's 3 dense layers of 61
#: (``n_dense_layers``), no attention core. The engine's nearest setting is no recomputation, not
#: ``selective`` (Korthikanti's attention-core re-run in every layer).
MLP_RECOMPUTE_ROWS = {"mb2604-gb200-deepseek-v3-mxfp8": "d7288711b",
                      "mb260401-gb200-deepseek-v3-mxfp8": "2edffadb5"}


@pytest.mark.parametrize("rid, megatron_lm", sorted(MLP_RECOMPUTE_ROWS.items()))
def test_dense_only_mlp_recompute_is_priced_as_none(csvs, rid, megatron_lm):
    from llmcost import load_model
    _, cfg = csvs
    c = cfg.loc[rid]
    assert "recompute_modules ['mlp']" in c["notes"] and megatron_lm in c["notes"]
    assert c["recompute"] == "none"
    assert pd.isna(c["recompute_modules"])
    m = load_model("deepseek-v3")
    assert (m.n_layers, m.n_dense_layers) == (61, 3)
