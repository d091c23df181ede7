"""What a ninth new-user trial found in the wording of the notebooks, the plan's refusals and
`llmcost estimate`, each checked against a hand derivation or the rule it names."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from _inprocess import run_in_process  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def test_notebook_00_labels_each_flop_count_with_its_mask():
    # The trial: Step 2 printed "exact (attention, full mask): 8.568e+23" while 8.568e+23 is the
    # causal count. By hand for the notebook's defaults, Llama 2 70B (80 layers, d 8,192, 64
    # heads of 128, 8 KV heads, gated FFN 28,672, vocabulary 32,000: its config.json) at 4,096
    # tokens, D = 2e12 tokens, training = 3 × forward, 2 FLOPs per multiply-accumulate:
    #   weights    6 × 80 × (2·8192² + 2·8192·1024 + 3·8192·28672) + 6 × 8192 × 32000
    #              = 72,477,573,120 + 338,228,674,560 + 1,572,864,000 = 412,279,111,680
    #   attention  full mask 6 × 80 × 4096 × 64 × (128 + 128) = 32,212,254,720 (PaLM App. B);
    #              causal: (s+1)/2 = 2,048.5 keys on average, 16,110,059,520
    weights = 6 * 80 * (2 * 8192**2 + 2 * 8192 * 1024 + 3 * 8192 * 28672) + 6 * 8192 * 32000
    full = (weights + 6 * 80 * 4096 * 64 * 256) * 2e12
    causal = (weights + 6 * 80 * 2048.5 * 64 * 256) * 2e12
    assert (full, causal) == (pytest.approx(8.8898e23, rel=1e-4), pytest.approx(8.5678e23, rel=1e-4))
    printed = run_in_process(ROOT / "notebooks" / "00_index.ipynb")
    line = next(s for s in printed.splitlines() if s.startswith("6ND: "))
    got = dict(re.findall(r"exact \(attention, (full|causal) mask[^)]*\): ([0-9.e+]+) FLOP", line))
    assert float(got["full"]) == pytest.approx(full, rel=1e-3)
    assert float(got["causal"]) == pytest.approx(causal, rel=1e-3)
    # the full-mask count is the MFU basis the bill uses (the next line)
    assert f"all pre-training phases: {full:.3e} FLOP on the MFU basis" in printed
