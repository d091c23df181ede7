"""Scenarios new-user trials wrote, shared by the tests that check what those trials found."""

#: A dense 70B model in FP8 at 128k context with context parallelism on 1,024 H100s, as a trial
#: wrote it (its MFU given, not predicted).
LLAMA_70B_FP8_128K = """model: llama-3.1-70b
accelerator: H100-SXM
n_gpus: 1024
train_tokens: 1.0e12
seq_len: 131072
mfu: 0.35
dtype: fp8
price_usd_per_gpu_hour: 2.80
pricing: on_demand
global_batch_tokens: 16777216
tp: 8
cp: 8
pp: 0
"""
