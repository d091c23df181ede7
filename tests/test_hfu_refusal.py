"""An MFU whose hardware FLOPs would exceed the peak is refused (a trial's
``hfu_from_mfu(0.9, llama-2-70b, 4096, recompute="full")`` returned 1.199). By hand: full
recomputation re-runs the forward, so hardware FLOPs per token ≈ 4/3 of the model's (Narayanan
et al. 2021's 96 / 72 for the matmuls; the attention core's share makes it 1.332 for Llama 2
70B at 4,096 tokens): HFU = 0.9 × 1.332 = 1.20 > 1, and the largest MFU full recomputation
allows is 1 / 1.332 = 75.1%."""

import numpy as np
import pytest

import llmcost


def test_an_mfu_above_what_recomputation_allows_is_refused():
    m = llmcost.load_model("llama-2-70b")
    ratio = float(m.flops_per_token(4096, training=True, recompute="full")
                  / m.flops_per_token(4096, training=True))
    assert ratio == pytest.approx(4 / 3, abs=0.01)
    with pytest.raises(ValueError, match=r"^mfu=0\.9 with recompute='full' gives an HFU of 1\.2 "
                                         rf".*the MFU is at most {100 / ratio:.1f}%"):
        llmcost.hfu_from_mfu(0.9, m, 4096, recompute="full")
    assert llmcost.hfu_from_mfu(0.5, m, 4096, recompute="full") == pytest.approx(0.5 * ratio,
                                                                              rel=1e-3)
    with pytest.raises(ValueError, match=r"^mfu=0\.8 "):     # the array's offending element
        llmcost.hfu_from_mfu(np.array([0.5, 0.8]), m, 4096, recompute="full")
    assert llmcost.hfu_from_mfu(0.9, m, 4096, recompute="none") == pytest.approx(0.9)
