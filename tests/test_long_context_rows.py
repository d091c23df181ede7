"""The long-context validation rows (sequence > 32K) held to their primary sources: each source's
table transcribed below, one tuple per row, against data/published_runs.csv and
data/validation_mfu.csv (the llm-foundry MPT rows at 65,536 tokens are audited, with every other
llm-foundry row, by tests/test_foundry_mfu_basis.py).

Sources:

* NeMo's long-sequence benchmark (Llama 2 7B, FP8, NeMo24.03.01.framework, DGX-H100): its first
  version, NVIDIA/NeMo@35029a0c84 (2024-10-07) docs/source/performance/performance_summary.md
  (the first commit of the pull request merged to main as 5b47a94c11, whose next commit,
  cd3a808656, moved the table to performance_long_sequence.md without MBS, VP and tokens/s:
  main never carried those columns), 'Long Input Sequences', columns Sequence Length (K),
  #-GPUs, GBS, MBS, TP, PP, CP, VP, DP,
  Tokens / sec / GPU, Model TFLOP / sec / GPU; the later page the rows first cited
  (docs/source/performance/performance_long_sequence.md @ 19fadb67b0, 'LLAMA2-7B (FP8) - H100')
  repeats the GPUs, batch size, TP, PP, DP, CP and TFLOPS / GPU and drops MBS, VP and tokens/s.
* torchtitan's Table 2 (pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md @
  31a17bfd): "FSDP + CP + torch.compile + Float8. Llama 3.1 8B model. 8 GPUs. Local batch size 1.
  Full activation checkpointing.", columns Parallelism, Sequence Length, TPS/GPU. TPS/GPU is per
  GPU under CP: torchtitan@9dec370 ``train.py`` counts ``labels.numel()`` (the whole sequence)
  before the CP context shards the batch and divides by ``parallel_dims.non_data_parallel_size``
  (= cp · tp · pp, ``torchtitan/parallelisms/parallel_dims.py``).
* Llama 3 (Llama Team 2024, arXiv:2407.21783) Table 4, the 128K row: 16,384 GPUs, TP 8, CP 16,
  PP 16, DP 8, sequence 131,072, batch size / DP 16, 16M tokens / batch, 380 TFLOPs / GPU,
  BF16 MFU 38 %.
"""

import hashlib

import pandas as pd
import pytest

import llmcost
from llmcost.core.catalog import DATA_DIR
from llmcost.training import accuracy

# NVIDIA/NeMo@35029a0c84 'Long Input Sequences': (K, GPUs, GBS, MBS, TP, PP, CP, VP, DP,
# tokens/s/GPU, model TFLOP/s/GPU); the 4K-16K rows (no CP) are not validation rows.
NEMO = (
    (4, 4, 1024, 1, 1, 1, 1, 1, 4, 16671, 768),
    (8, 8, 512, 1, 1, 2, 1, 1, 4, 13907, 730),
    (16, 16, 256, 1, 2, 1, 1, 1, 8, 10082, 660),
    (32, 32, 128, 1, 2, 1, 2, 1, 8, 6687, 610),
    (64, 64, 64, 1, 4, 1, 2, 1, 8, 4021, 574),
    (128, 128, 32, 1, 4, 1, 4, 1, 8, 2260, 555),
    (256, 256, 16, 1, 4, 1, 8, 1, 8, 1214, 549),
    (512, 512, 8, 1, 8, 1, 16, 1, 4, 635, 549),
    (1024, 1024, 4, 1, 8, 1, 32, 1, 4, 318, 536),
)
NEMO_ROWS = [r for r in NEMO if r[6] > 1]
# torchtitan Table 2: (FSDP, CP, sequence length, TPS/GPU)
TORCHTITAN = ((8, 1, 32768, 3890), (4, 2, 65536, 2540), (2, 4, 131072, 1071),
              (1, 8, 262144, 548))
H100_BF16 = 989.4e12


def _csvs():
    runs = pd.read_csv(DATA_DIR / "published_runs.csv").set_index("run_id")
    cfg = pd.read_csv(DATA_DIR / "validation_mfu.csv").set_index("run_id")
    return runs, cfg


def _split(rid: str) -> str:
    return "calibration" if int(hashlib.md5(rid.encode()).hexdigest(), 16) % 4 == 0 \
        else "held-out"


def _llama2_7b_full_mask_flops(s: int) -> float:
    """Llama 2 7B's model FLOPs per token with a full attention mask, by hand: L·h²·(12 + 12·g/a
    + 18·f/h + 12·s/h + 6·V/(L·h)) (QKV and output projections, the SwiGLU MLP's three matrices,
    QKᵀ and AV over all s keys, the LM head; × 3 for forward and backward), L 32, h 4096,
    a = g = 32, f 11,008, V 32,000 (Touvron et al. 2023, arXiv:2307.09288, Table 1 and the
    released config)."""
    L, h, a, g, f, V = 32, 4096, 32, 32, 11008, 32000
    return L * h * h * (12 + 12 * g / a + 18 * f / h + 12 * s / h + 6 * V / (L * h))


@pytest.mark.parametrize("row", NEMO_ROWS, ids=[f"{r[0]}k" for r in NEMO_ROWS])
def test_nemo_rows_hold_the_table(row):
    k, gpus, gbs, mbs, tp, pp, cp, vp, dp, tokens, tflops = row
    rid = f"nemo2403-h100-llama2-7b-{k}k-cp{cp}"
    runs, cfg = _csvs()
    r, c = runs.loc[rid], cfg.loc[rid]
    s = k * 1024
    assert (int(r["seq_len"]), int(r["n_accelerators"])) == (s, gpus)
    assert int(r["global_batch_tokens"]) == gbs * s
    assert (int(r["tp"]), int(r["pp"]), int(r["cp"]), int(r["dp"])) == (tp, pp, cp, dp)
    assert tp * pp * cp * dp == gpus
    assert (int(c["micro_batch_size"]), int(c["pp_virtual_stages"])) == (mbs, vp)
    assert float(r["reported_tokens_per_sec_per_gpu"]) == tokens
    assert float(r["reported_tflops_per_gpu"]) == tflops
    assert c["dtype"] == "fp8" and c["metric"] == "tokens_per_s"
    assert "35029a0c84" in r["source"] and "35029a0c84" in c["source"]
    assert c["split"] == _split(rid)


@pytest.mark.parametrize("row", NEMO, ids=[f"{r[0]}k" for r in NEMO])
def test_nemo_tflops_are_on_the_full_mask_count(row):
    # the table's own two columns: TFLOP/s ÷ tokens/s is the FLOPs per token it counted; it is
    # the full-mask count within the rounding of both columns (tokens/s to the unit, TFLOP/s to
    # the unit), and far from the causal count (attention halved) at every length but 4K
    k, *_, tokens, tflops = row
    s = k * 1024
    per_token = tflops * 1e12 / tokens
    full = _llama2_7b_full_mask_flops(s)
    causal = full - 6 * 32 * 4096 * s                       # half of 12·L·h·s
    rounding = 0.5 / tokens + 0.5 / tflops
    assert abs(per_token / full - 1) <= rounding + 1e-4
    assert per_token / causal - 1 > 0.07
    # the workbook's full-mask count is the same one, so reported_mfu is on the table's basis
    spec = llmcost.load_model("llama-2-7b")
    assert float(spec.flops_per_token(s, causal=False)) == pytest.approx(full, rel=1e-9)


def test_nemo_rows_report_tokens_on_the_stated_basis():
    # reported_mfu = tokens/s/GPU × full-mask FLOPs per token ÷ 989.4 TFLOP/s (by hand); the
    # basis stated, so the causal-basis MFU is the same figure
    v = accuracy.validation_table().set_index("run_id")
    for k, *_, cp, _vp, _dp, tokens, tflops in NEMO_ROWS:
        r = v.loc[f"nemo2403-h100-llama2-7b-{k}k-cp{cp}"]
        mfu = tokens * _llama2_7b_full_mask_flops(k * 1024) / H100_BF16
        assert r["reported_mfu"] == pytest.approx(mfu, rel=1e-4)
        assert r["causal_basis_mfu"] == r["reported_mfu"]
        assert r["reported"] == pytest.approx(tflops * 1e12 / H100_BF16, rel=1e-4)
        assert abs(r["reported_mfu"] / r["reported"] - 1) < 0.0025


@pytest.mark.parametrize("row", TORCHTITAN, ids=[f"cp{r[1]}" for r in TORCHTITAN])
def test_torchtitan_table_2_rows(row):
    fsdp, cp, s, tps = row
    rid = f"torchtitan-h100-8b-8gpu-2-fsdp{fsdp}-cp{cp}"
    runs, cfg = _csvs()
    r, c = runs.loc[rid], cfg.loc[rid]
    assert (int(r["seq_len"]), int(r["n_accelerators"])) == (s, 8)
    assert (int(r["dp"]), int(r["cp"]), int(r["tp"]), int(r["pp"])) == (fsdp, cp, 1, 1)
    assert float(r["reported_tokens_per_sec_per_gpu"]) == tps
    # local batch size 1 per data-parallel rank: fsdp sequences a step, no accumulation
    assert int(r["global_batch_tokens"]) == 1 * fsdp * s
    assert int(c["micro_batch_size"]) == 1
    assert (c["recompute"], c["dtype"], c["metric"]) == ("full", "fp8", "tokens_per_s")
    assert c["split"] == _split(rid)
    # every row of the table holds 32,768 tokens per GPU a step (8 · local batch 1 · s / cp / 8)
    assert fsdp * s // 8 == 32768


def test_llama3_128k_row_holds_table_4():
    runs, cfg = _csvs()
    r, c = runs.loc["llama3-t4-405b-128k"], cfg.loc["llama3-t4-405b-128k"]
    assert int(r["n_accelerators"]) == 16384 and int(r["seq_len"]) == 131072
    assert (int(r["tp"]), int(r["cp"]), int(r["pp"]), int(r["dp"])) == (8, 16, 16, 8)
    assert 8 * 16 * 16 * 8 == 16384
    # batch size per DP 16 sequences: 16 · 8 · 131,072 = 16.8M tokens ("16M")
    assert int(r["global_batch_tokens"]) == 16 * 8 * 131072
    assert float(r["reported_tflops_per_gpu"]) == 380
    assert round(100 * 380e12 / H100_BF16) == 38            # the table's BF16 MFU, 38 %
    assert (c["metric"], c["flop_basis"], c["recompute"]) == ("tflops", "unstated", "none")
    # Llama 3 masks attention across documents (§3.2), a mask its all-gather CP supports
    # (§3.3.2): the row says so, and that the mask is not priced
    assert "document" in c["notes"] and "not priced" in c["notes"]


def test_every_long_row_is_audited():
    runs, cfg = _csvs()
    long_rows = set(runs.index[runs["seq_len"] > 32768]) & set(cfg.index)
    audited = ({f"nemo2403-h100-llama2-7b-{r[0]}k-cp{r[6]}" for r in NEMO_ROWS}
               | {f"torchtitan-h100-8b-8gpu-2-fsdp{r[0]}-cp{r[1]}" for r in TORCHTITAN}
               | {"llama3-t4-405b-128k"}
               | set(cfg.index[cfg["set"] == "llm-foundry-mpt"]))
    assert long_rows <= audited, sorted(long_rows - audited)
