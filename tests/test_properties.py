"""Property tests (hypothesis): monotonicity, parts that sum to totals, units."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import llmcost
from llmcost import ModelSpec


@st.composite
def model_specs(draw):
    n_heads = draw(st.sampled_from([8, 16, 32, 64]))
    d_head = draw(st.sampled_from([64, 128]))
    kv = draw(st.sampled_from([h for h in (1, 2, 4, 8, n_heads) if n_heads % h == 0]))
    moe = draw(st.booleans())
    kw = dict(name="h", n_layers=draw(st.integers(1, 96)), d_model=n_heads * d_head,
              n_heads=n_heads, n_kv_heads=kv, vocab_size=draw(st.integers(1000, 260_000)),
              d_ff=draw(st.integers(64, 60_000)), ffn_type=draw(st.sampled_from(["gated", "mlp"])),
              tied_embeddings=draw(st.booleans()), bias=draw(st.sampled_from(["none", "qkv", "all"])),
              sliding_window=draw(st.sampled_from([0, 512, 4096])))
    if moe:
        e = draw(st.integers(2, 64))
        kw.update(n_experts=e, n_experts_active=draw(st.integers(1, e)),
                  n_shared_experts=draw(st.integers(0, 2)), d_ff_expert=draw(st.integers(64, 8192)),
                  n_dense_layers=draw(st.integers(0, kw["n_layers"] - 1)))
    return ModelSpec(**kw)


@settings(max_examples=200, deadline=None)
@given(model_specs(), st.integers(1, 2**17), st.integers(1, 2**17))
def test_flops_grow_with_sequence_length(m, s1, s2):
    lo, hi = sorted((s1, s2))
    assert m.flops_per_token(lo) <= m.flops_per_token(hi)
    assert m.flops_per_token(lo, causal=False) <= m.flops_per_token(hi, causal=False)
    assert m.flops_per_token(hi) <= m.flops_per_token(hi, causal=False)


@settings(max_examples=200, deadline=None)
@given(model_specs(), st.integers(1, 2**16))
def test_breakdowns_sum_to_totals(m, s):
    assert sum(m.param_breakdown.values()) == m.n_params
    for rc in ("none", "selective", "full"):
        b = m.flops_per_token_breakdown(s, recompute=rc)
        assert np.isclose(sum(v for k, v in b.items() if k != "total"), b["total"])
    # Training is 3 × forward without recompute; recompute only adds.
    assert np.isclose(m.flops_per_token(s), 3 * m.flops_per_token(s, training=False))
    assert m.flops_per_token(s, recompute="full") >= m.flops_per_token(s, recompute="selective")
    assert m.n_active_params <= m.n_params


@settings(max_examples=200, deadline=None)
@given(st.floats(1e6, 1e13), st.floats(1e6, 1e13), st.floats(1e9, 1e14), st.floats(1e9, 1e14))
def test_6nd_grows_with_n_and_d(n1, n2, d1, d2):
    assert (llmcost.training_flops(min(n1, n2), d1) <= llmcost.training_flops(max(n1, n2), d1))
    assert (llmcost.training_flops(n1, min(d1, d2)) <= llmcost.training_flops(n1, max(d1, d2)))


@settings(max_examples=200, deadline=None)
@given(model_specs(), st.integers(1, 1000), st.integers(1, 1000))
def test_more_layers_more_flops_and_params(m, extra, s):
    bigger = m.replace(n_layers=m.n_layers + extra, n_dense_layers=m.n_dense_layers)
    assert bigger.n_params > m.n_params
    assert bigger.flops_per_token(s) > m.flops_per_token(s)


@settings(max_examples=200, deadline=None)
@given(st.floats(1e18, 1e27), st.floats(0.01, 1.0), st.floats(0.01, 1.0))
def test_gpu_hours_fall_as_mfu_rises(flops, m1, m2):
    h100 = llmcost.load_accelerator("H100-SXM")
    lo, hi = sorted((m1, m2))
    assert llmcost.gpu_hours(flops, h100, hi) <= llmcost.gpu_hours(flops, h100, lo)
    # Units: GPU-hours × 3600 × peak × MFU gives back the FLOPs.
    assert np.isclose(llmcost.gpu_hours(flops, h100, lo) * 3600 * h100.peak_bf16_flops_per_s * lo,
                      flops)
