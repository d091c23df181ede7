"""The llm-foundry MPT rows: which MFU the benchmark tables publish, and whether the validation
compares on the same basis (a data audit: every row, against the benchmark's own formula).

Sources (mosaicml/llm-foundry at 495218376, 2024-04-22):
``scripts/train/benchmarking/collect_results.py`` computes the tables' columns from the run's
logged ``n_params`` and ``throughput/samples_per_sec``::

    flops_per_seq      = 2 * n_params * seq_len
    attn_flops_per_seq = n_layers * 2 * 2 * (d_model * seq_len**2)      # full s x s mask
    mfu = (3 * flops_per_seq + 3 * attn_flops_per_seq) * samples_per_sec / (gpus * peak)
    hfu = (4 * flops_per_seq + 4 * attn_flops_per_seq) * ... if activation_checkpointing else mfu

i.e. MFU per token = 6 * NumParams + 12 * n_layers * d_model * seq_len (attention counted with a
full, not causal, mask; norms, activations and residuals not counted; the README's "MFU and
HFU" section states the same), HFU = 4/3 MFU only for rows with activation checkpointing.
``peak`` is Composer's ``GPU_AVAILABLE_FLOPS[gpu][precision]`` (imported from
``composer.callbacks.speed_monitor``; mosaicml/composer at 003ec03f7, the same table:
``'amp_bf16': 1.979e15 / 2`` for ``h100-sxm``, ``312e12`` for ``a100``). NumParams counts the
tied embedding once, the learned position embedding (``seq_len x d_model``: the yamls set no
ALiBi) and the biases and LayerNorm weights.

The workbook's ``reported_mfu`` of a ``tokens_per_s`` row is tokens/s/GPU x
``flops_per_token(seq, causal=False)`` / 989.4e12: the same full-mask attention count, matmul
weights only (no position-embedding lookup, biases or norms). The error it reports is a ratio of
tokens/s, so the basis cancels; these checks show the rows were transcribed on the table's basis.
"""

import re

import pytest

from llmcost.core.catalog import load_published_runs
from llmcost.training import step_validation

# Composer's GPU_AVAILABLE_FLOPS (mosaicml/composer@003ec03f7 composer/callbacks/speed_monitor.py)
COMPOSER_PEAK = {"H100-80GB": 1.979e15 / 2, "A100-80GB": 312e12}
NOTE = re.compile(r"MFU ([\d.]+), HFU ([\d.]+),.*?Throughput (\d+) T/s, (\d+) T/s/GPU.*"
                  r"Activation Checkpointing (\w+), NumParams (\d+)")


def _rows():
    runs = load_published_runs()
    runs = runs[runs["run_id"].str.startswith("foundry-")].set_index("run_id")
    cfg = step_validation.validation_configs().set_index("run_id", drop=False)
    out = []
    for rid, r in runs.iterrows():
        m = NOTE.search(r["notes"])
        assert m, f"{rid}: the table row is not quoted in its notes"
        out.append((rid, r, cfg.loc[rid], dict(
            mfu=float(m[1]), hfu=float(m[2]), tps=int(m[3]), tps_gpu=int(m[4]),
            ac=m[5] == "True", n_params=int(m[6]))))
    return out


ROWS = _rows()


def _readme_flops_per_token(r, n_params):
    s, L, d = int(r["seq_len"]), int(r["layers"]), int(r["d_model"])
    return 6.0 * n_params + 12.0 * L * d * s


def test_every_foundry_row_is_audited():
    assert len(ROWS) == 137   # + the six SHARD_GRAD_OP rows (MPT 1B and 3B at 128-512 H100)
    assert all(c["metric"] == "tokens_per_s" for _, _, c, _ in ROWS)


@pytest.mark.parametrize("rid,r,c,t", ROWS, ids=[x[0] for x in ROWS])
def test_table_mfu_is_its_formula_on_the_quoted_throughput(rid, r, c, t):
    # the total tokens/s (an int() of a large number) over the GPUs; MFU rounded to 0.01
    n = int(r["n_accelerators"])
    peak = COMPOSER_PEAK[r["hardware"]] * (2.0 if rid.endswith("-fp8") else 1.0)
    mfu = _readme_flops_per_token(r, t["n_params"]) * t["tps"] / n / peak * 100
    assert mfu == pytest.approx(t["mfu"], rel=5e-4, abs=0.006)
    assert int(t["tps"] / n) - 1 <= t["tps_gpu"] <= int(t["tps"] / n) + 1
    assert int(r["reported_tokens_per_sec_per_gpu"]) == t["tps_gpu"]


@pytest.mark.parametrize("rid,r,c,t", ROWS, ids=[x[0] for x in ROWS])
def test_hfu_column_counts_one_extra_forward_only_with_checkpointing(rid, r, c, t):
    assert t["hfu"] / t["mfu"] == pytest.approx(4 / 3 if t["ac"] else 1.0, abs=0.002)
    # the validation row prices the recomputation the table states, with its micro-batch
    assert (c["recompute"] == "full") == t["ac"]


@pytest.mark.parametrize("rid,r,c,t", ROWS, ids=[x[0] for x in ROWS])
def test_workbook_basis_differs_from_the_table_only_by_non_matmul_weights(rid, r, c, t):
    s, L, d, V = (int(r[k]) for k in ("seq_len", "layers", "d_model", "vocab"))
    model = step_validation.row_model(c, r, s)
    ours = float(model.flops_per_token(s, causal=False))
    # hand derivation: MPT's matmuls, 4 d^2 (attention) + 8 d^2 (FFN, expansion 4) per layer
    # and the tied head V d, 6 FLOPs per weight per token, plus the full-mask attention
    assert ours == pytest.approx(6.0 * (12 * L * d * d + V * d) + 12.0 * L * d * s, rel=1e-9)
    # the table's 6 x NumParams also counts the position embedding (s d), the biases (9 d per
    # layer) and the LayerNorms' weights and biases (2 d per norm, 2 L + 1 norms)
    extra = t["n_params"] - (12 * L * d * d + V * d)
    assert extra == s * d + 9 * d * L + 2 * d * (2 * L + 1)
    readme = _readme_flops_per_token(r, t["n_params"])
    assert readme - ours == pytest.approx(6.0 * extra, rel=1e-9)
    # the workbook's count is the smaller by 0.03 % (30b at 512 tokens) to 3.7 % (125m at 65k
    # tokens, whose 65536-row position table is a third of its weights)
    assert 0.0001 < 1.0 - ours / readme < 0.04
