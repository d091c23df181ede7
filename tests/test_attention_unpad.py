"""The copies around a variable-length FlashAttention call (``StepOptions.attention_unpad``,
``elementwise.unpadded_attention_bytes``): llm-foundry's ``flash_attn_fn`` (mosaicml/llm-foundry
@5e85bd62d ``llmfoundry/models/layers/attention.py``) unpads Q, K and V with flash-attn
v2.4.2's ``bert_padding.unpad_input`` (a ``torch.gather`` whose backward zeroes a gradient and
scatters into it) and pads the output back with ``pad_input`` (a zeroed tensor index-put into,
whose backward gathers), counted by hand here; the validation rows that run it are the 2024-01
sweep's ``--attn_impl flash`` rows (its ``sweep.py``: 1b, 3b, 7b and 70b)."""

import warnings

import pytest

from llmcost import Cluster, StepOptions, load_accelerator, step_time
from llmcost.training import accuracy, elementwise, step_validation


def test_the_bytes_by_hand():
    # MPT-1B: d_model 2048, 16 heads of 128 (multi-head): per token per layer, forward Q, K, V
    # gathered (read 2 + write 2 B each element: 3 x 4 x 2048) and the output zeroed and
    # index-put (2 + 2 + 2 B: 6 x 2048); backward the output gradient gathered (4 x 2048) and
    # Q's, K's, V's gradients zeroed and scattered into (3 x 6 x 2048)
    fwd, bwd = elementwise.unpadded_attention_bytes(2048, 2048, 2048, 2048)
    assert (fwd, bwd) == (3 * 4 * 2048 + 6 * 2048, 4 * 2048 + 3 * 6 * 2048) == (36864, 45056)
    # grouped-query attention, 8 KV heads of 32 query heads of 128: K and V a quarter of Q
    fwd, bwd = elementwise.unpadded_attention_bytes(4096, 1024, 1024, 4096)
    assert (fwd, bwd) == (4 * 6144 + 6 * 4096, 6 * 6144 + 4 * 4096)


def test_a_negative_count_is_refused_by_name():
    with pytest.raises(ValueError, match="k_elements"):
        elementwise.unpadded_attention_bytes(1, -1, 1, 1)
    with pytest.raises(ValueError, match="attention_unpad"):
        StepOptions(attention_unpad="yes")


def _step(model: str, n: int, plan_kw: dict, seq: int, **options):
    from llmcost.training.parallel import make_plan
    from llmcost import load_model
    spec = load_model(model)
    plan = make_plan(spec, n, plan_kw.pop("global_batch"), **plan_kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return step_time(spec, Cluster(load_accelerator("H100-SXM"), n), plan, seq,
                         options=StepOptions(stack="pytorch-fsdp2-2024", **options))


def test_the_step_pays_the_counted_bytes_at_the_hbm_rate_it_prices_element_wise_work_at():
    # Llama 2 7B (multi-head, d 4096, 32 layers), 8 H100s, ZeRO-3, micro-batch 2 of 4,096
    # tokens, one micro-batch, no recomputation: the memory-bound time grows by
    # L x (forward + backward bytes of 8,192 tokens) / (HBM x sustained hbm fraction)
    kw = dict(global_batch=16, tp=1, pp=1, micro_batch_size=2, zero_stage=3, recompute="none")
    on = _step("llama-2-7b", 8, dict(kw), 4096, attention_unpad=True)
    off = _step("llama-2-7b", 8, dict(kw), 4096, attention_unpad=False)
    acc = load_accelerator("H100-SXM")
    rate = acc.hbm_bytes_per_s * StepOptions(stack="pytorch-fsdp2-2024").resolve(
        "H100-SXM").keff.hbm_fraction
    per_token = sum(elementwise.unpadded_attention_bytes(4096, 4096, 4096, 4096))
    assert on.memory_bound_s - off.memory_bound_s == pytest.approx(
        32 * 8192 * per_token / rate, rel=1e-9)
    assert on.step_time_s > off.step_time_s and on.matmul_s == off.matmul_s
    # without FlashAttention there is no variable-length call, so nothing to unpad
    no_flash = _step("llama-2-7b", 8, dict(kw), 4096, attention_unpad=True,
                     flash_attention=False)
    assert no_flash.step_time_s == _step("llama-2-7b", 8, dict(kw), 4096,
                                         flash_attention=False).step_time_s


@pytest.mark.parametrize("tp, q, kv", [(2, 2048, 512), (16, 256, 128)])
def test_grouped_query_heads_under_tensor_parallelism(tp, q, kv):
    # Llama 3.1 8B: 32 query heads and 8 KV heads of 128, 32 layers. Per token on a TP rank:
    # Q and the output 32 x 128 / tp; K and V 8 x 128 / tp while tp <= 8 (TP2: 512 each), one
    # head each, replicated, beyond (TP16: 128), as Megatron shards the KV heads
    # (shapes.kv_fraction); one micro-batch of 4,096 tokens, no recomputation
    n = 16
    kw = dict(global_batch=n // tp, tp=tp, pp=1, micro_batch_size=1, zero_stage=2,
              recompute="none")  # one micro-batch per data-parallel replica
    on = _step("llama-3.1-8b", n, dict(kw), 4096, attention_unpad=True)
    off = _step("llama-3.1-8b", n, dict(kw), 4096, attention_unpad=False)
    rate = load_accelerator("H100-SXM").hbm_bytes_per_s * StepOptions(
        stack="pytorch-fsdp2-2024").resolve("H100-SXM").keff.hbm_fraction
    per_token = sum(elementwise.unpadded_attention_bytes(q, kv, kv, q))
    assert per_token == 10 * (2 * q + 2 * kv)
    assert on.memory_bound_s - off.memory_bound_s == pytest.approx(
        32 * 4096 * per_token / rate, rel=1e-9)


def test_the_rows_that_run_it_are_the_2024_01_flash_rows():
    cfg = step_validation.validation_configs()
    ran = sorted(r for r, c in cfg.set_index("run_id", drop=False).iterrows()
                 if step_validation.row_attention_unpad(c))
    assert ran == sorted(f"foundry-h100-mpt-{m}-s2048-{n}gpu-bf16" for m in ("1b", "3b", "7b",
                                                                             "70b")
                         for n in (128, 256, 512))


@pytest.mark.parametrize("split", ["held-out", "calibration"])
def test_it_passes_the_rule_that_keeps_a_mechanism_on(split):
    per_regime, verdict = accuracy.attention_unpad_comparison(split)
    assert verdict["passes"] and verdict["worse"] == 0
    assert verdict["all_mean"][1] < verdict["all_mean"][0]
    moved = per_regime[(per_regime["on"] - per_regime["off"]).abs() > 1e-12]
    assert set(moved.index) == {"Hopper · FSDP · dense · BF16 · ≤ 32k · < 10B",
                                "Hopper · FSDP · dense · BF16 · ≤ 32k · ≥ 10B"}
