"""A GPU count in prose agrees with its noun ("1 GPU", "8 GPUs": ``units.fmt_gpus``): two trials
read "1 GPUs" in messages that formatted the count by hand. A lint over the package's source:
no f-string writes a count with a thousands separator straight before " GPUs"."""
import re
from pathlib import Path

import llmcost
from llmcost.core.units import fmt_gpus

PACKAGE = Path(llmcost.__file__).parent


def test_gpu_counts_in_prose_go_through_fmt_gpus():
    hand = re.compile(r"\{[^{}]+:,\} GPUs(?![\w-])")
    found = [f"{p.relative_to(PACKAGE)}:{i}" for p in sorted(PACKAGE.rglob("*.py"))
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if hand.search(line)]
    assert not found, found
    assert (fmt_gpus(1), fmt_gpus(8), fmt_gpus(16384)) == ("1 GPU", "8 GPUs", "16,384 GPUs")
