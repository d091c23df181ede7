"""GQA's TP limit, expert capacity, CP buffers and causal imbalance (notebook 03, section 7),
against hand derivations written here."""

import pytest

import llmcost
from llmcost import memory


def test_kv_heads_cap_tp_at_the_kv_head_count():
    # Llama-2-70B: 64 query heads, 8 KV heads (Touvron et al. 2023, Table 1 note: GQA, 8 groups)
    spec = llmcost.load_model("llama-2-70b")
    assert (spec.n_heads, spec.n_kv_heads) == (64, 8)
    per_rank, rep = memory.kv_heads_per_tp_rank(8, [1, 2, 4, 8, 16])
    assert list(per_rank) == [8, 4, 2, 1, 1] and list(rep) == [1, 1, 1, 1, 2]
    with pytest.raises(ValueError, match="tp=3"):
        memory.kv_heads_per_tp_rank(8, 3)


def test_expert_capacity_by_hand():
    # Mixtral: top-2 of 8 experts; 4,096 tokens at capacity factor 1.25: 1.25·4096·2/8 = 1,280
    assert memory.expert_capacity_tokens(4096, 2, 8, 1.25) == 1280
    # Switch (k = 1), 1,000 tokens, 64 experts, factor 1.0: ⌈15.625⌉ = 16
    assert memory.expert_capacity_tokens(1000, 1, 64, 1.0) == 16


def test_capacity_extra_memory_by_hand():
    # Mixtral 8x7B: h = 4,096, expert FFN 14,336 (SwiGLU); 4,096 tokens × k = 2 copies, each
    # 2·4,096 + 6·14,336 = 94,208 bytes: 771.75 MB at the mean; factor 1.25 adds a quarter.
    mx = llmcost.load_model("mixtral-8x7b")
    extra = memory.moe_capacity_extra_bytes_per_layer(mx, 4096, 1, 1, 1, 1.25)
    assert extra == pytest.approx(0.25 * 8192 * 94208, rel=1e-12)
    assert memory.moe_capacity_extra_bytes_per_layer(mx, 4096, 1, 1, 1, 1.0) == 0
    with pytest.raises(ValueError, match="load_factor"):
        memory.moe_capacity_extra_bytes_per_layer(mx, 4096, load_factor=0.9)
    with pytest.raises(ValueError, match="dense"):
        memory.moe_capacity_extra_bytes_per_layer(llmcost.load_model("llama-2-70b"))


def test_cp_kv_buffers_by_hand():
    # Llama-2-70B at 128K tokens, TP 8 (one of 8 KV heads of 128 dims per rank): 2·128·2 = 512
    # bytes of K and V per token; ring over cp = 8: two blocks of 16,384 tokens = 16.8 MB;
    # all-gather: 131,072 tokens = 67.1 MB.
    spec = llmcost.load_model("llama-2-70b")
    assert memory.cp_kv_buffer_bytes(spec, 131072, 1, 8, 8, "ring") == 2 * 16384 * 512
    assert memory.cp_kv_buffer_bytes(spec, 131072, 1, 8, 8, "all_gather") == 131072 * 512
    with pytest.raises(ValueError, match="method"):
        memory.cp_kv_buffer_bytes(spec, method="ulysses")


def test_causal_imbalance_by_hand():
    # contiguous chunks, cp = 4: work of rank r ∝ r + 1/2 → 0.5, 1.5, 2.5, 3.5; max/mean = 1.75
    assert memory.cp_causal_imbalance(4, load_balanced=False) == pytest.approx(3.5 / 2.0)
    # zig-zag: rank r holds chunks r and 7 − r of 8: (r + ½) + (7 − r + ½) = 8 for every rank
    assert memory.cp_causal_imbalance(4) == 1.0
