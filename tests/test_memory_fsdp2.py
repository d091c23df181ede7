"""FSDP2 keeps 16 bytes per parameter, not 18, and the published plans of the named runs.

Sources: PyTorch torch/distributed/fsdp/_fully_shard/_fsdp_api.py, ``MixedPrecisionPolicy``
docstring: "FSDP works well with module-level mixed precision since it keeps the high-precision
sharded parameters in memory anyway. In other words, FSDP does not require any extra memory to
keep a high-precision copy of the parameters for the optimizer step"; "The optimizer step uses
the sharded parameter in the original dtype". torchtitan torchtitan/config/job_config.py:
``mixed_precision_param = "bfloat16"``, ``mixed_precision_reduce = "float32"``. So the
persistent state is fp32 parameter (the master, 4 B) + fp32 gradient (4 B) + Adam m and v
(8 B) = 16 B per parameter, all sharded; the bf16 weights exist only gathered, per layer.
Llama 3 (Dubey et al. 2024, arXiv:2407.21783, Table 4 and §3.3.2): 405B on 8,192 H100 80GB,
TP 8, PP 16, DP 64, sequence 8,192, "we could pre-train Llama 3 on sequences of 8K tokens without
activation checkpointing".
"""

import pytest

import llmcost
from llmcost.training import memory, parallel, step

GIB = 2 ** 30


def test_fsdp2_recipe_is_16_bytes_per_param_under_zero3():
    spec = llmcost.load_model("llama-3.1-8b")
    plan = parallel.make_plan(spec, 8, 16, tp=1, pp=1, zero_stage=3, micro_batch_size=1,
                              recompute="full", seq_len=8192)
    fsdp2 = memory.memory_per_gpu(spec, plan, 8192, recipe="fsdp2_bf16_fp32")
    old = memory.memory_per_gpu(spec, plan, 8192, recipe="bf16_adam_fp32_grads")
    n = float(spec.n_params)
    # every state sharded over the 8 ranks: (4 + 4 + 8) · N / 8, no persistent bf16 copy
    assert fsdp2.weights == 0.0
    assert fsdp2.model_states == pytest.approx(16 * n / 8, rel=1e-9)
    assert old.model_states == pytest.approx(18 * n / 8, rel=1e-9)
    # the gathered layer (bf16 weights and gradients) is the same transient in both
    assert fsdp2.zero3_buffer == old.zero3_buffer > 0


def test_fsdp2_recipe_outside_zero3_keeps_its_working_copy():
    spec = llmcost.load_model("llama-3.1-8b")
    plan = parallel.make_plan(spec, 8, 16, tp=1, pp=1, zero_stage=1, micro_batch_size=1,
                              recompute="full", seq_len=8192)
    m = memory.memory_per_gpu(spec, plan, 8192, recipe="fsdp2_bf16_fp32")
    assert m.weights == pytest.approx(2 * float(spec.n_params), rel=1e-9)


def test_fsdp2_optimizer_pass_has_no_cast_copy():
    # Adam on the fp32 shard: read grad (4) for the norm, read grad + master + m + v and write
    # master + m + v (4 + 2·12), zero the grad (4): 4 + 28 + 4 = 36 B; the mixed recipe adds
    # the master-to-bf16 cast (read 4, write 2)
    assert step.optimizer_bytes_per_param("fsdp2_bf16_fp32") == pytest.approx(36.0)
    assert step.optimizer_bytes_per_param("bf16_adam_fp32_grads") == pytest.approx(42.0)


def test_llama3_405b_stage1_plan_is_under_the_hbm_it_ran_in():
    # Table 4's first row, no activation checkpointing (§3.3.2), interleaved with v = 8 assumed
    # and the embedding and loss counted as layers (§3.3.2): the model's most loaded stage must
    # hold in the 80 GiB of an H100 (it ran). zero_stage=2 is §3.3.2's FSDP: "Our use of FSDP
    # for Llama 3 shards optimizer states and gradients, but for model shards we do not reshard
    # after forward computation". With the default 10% reserve it does not fit
    # (memory.DEFAULT_RESERVE: an allowance, not a measurement).
    spec = llmcost.load_model("llama-3.1-405b")
    plan = parallel.make_plan(spec, 8192, 2048, tp=8, pp=16, zero_stage=2,
                              schedule="interleaved", virtual_stages=8,
                              pp_split="embedding_and_loss", recompute="none",
                              micro_batch_size=1, seq_len=8192)
    m = memory.memory_per_gpu(spec, plan, 8192)
    hbm = llmcost.load_accelerator("H100-SXM").hbm_bytes
    assert m.total < hbm
    # 76.7 GiB (82.35 GB): a regression pin of this model's own count (test_memory_published.py
    # holds the same plan through the validation table), not a published figure
    assert m.total / GIB == pytest.approx(76.7, abs=0.05)
    assert memory.fits(m.total, hbm, memory.PUBLISHED_PLAN_RESERVE)
    # 82.35 GB > 0.9 × 85.9 GB = 77.3 GB usable under the planning reserve
    assert not memory.fits(m.total, hbm, memory.DEFAULT_RESERVE)


def test_fsdp2_kept_weights_hold_the_whole_bf16_model():
    # reshard_after_forward=False keeps every layer's gathered bf16 weights from the forward to
    # the backward (PyTorch fully_shard docstring: "False ... does not reshard the parameters
    # after forward"). Under FSDP2 at ZeRO-3 the rank's own shard is the fp32 master, not a bf16
    # copy (weights = 0), so the kept bytes are the whole bf16 model 2·N plus one unsharded
    # gradient buffer of the gathered unit: 2·N + 2·unit. Llama 3.1 8B's unit is its untied
    # embedding (V·h = 128,256 × 4,096 = 525,336,576 > one layer's ~218M): hand derivation.
    spec = llmcost.load_model("llama-3.1-8b")
    plan = parallel.make_plan(spec, 8, 16, tp=1, pp=1, zero_stage=3, micro_batch_size=1,
                              recompute="full", seq_len=8192)
    n = float(spec.n_params)
    unit = 128_256 * 4_096
    kept = memory.memory_per_gpu(spec, plan, 8192, recipe="fsdp2_bf16_fp32",
                                 fsdp_reshard_after_forward=False)
    assert kept.weights == 0.0
    assert kept.zero3_buffer == pytest.approx(2 * n + 2 * unit, rel=1e-12)
    # the mixed recipe's own bf16 shard 2N/8 sits in weights; the buffer adds the rest
    mixed = memory.memory_per_gpu(spec, plan, 8192, recipe="bf16_adam_fp32_grads",
                                  fsdp_reshard_after_forward=False)
    assert mixed.weights == pytest.approx(2 * n / 8, rel=1e-12)
    assert mixed.zero3_buffer == pytest.approx(2 * n * (1 - 1 / 8) + 2 * unit, rel=1e-12)
    assert kept.weights + kept.zero3_buffer == pytest.approx(
        mixed.weights + mixed.zero3_buffer, rel=1e-12)
