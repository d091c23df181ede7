"""REGRESSION PINS of the step-time engine (a refactoring: the engine
split into parts with no change in any output).

These values are the code's own outputs, recorded with ``python tests/regression_pins.py`` on
commit 9e2a685 *before* ``step.step_arrays`` was split into per-part functions and the shared
shapes moved to ``llmcost/shapes.py``. They prove a refactoring changed nothing; they do not
prove the model right. The sourced checks (published MFUs, Korthikanti et al. 2022 Table 4
layer times, hand-derived part formulas) live in ``tests/test_step.py`` and
``tests/test_step_parts.py``, beside these pins.

Re-blessed for the ZeRO-3 and MoE physics (a deliberate change of the model, not a refactoring): DP / ZeRO
collectives timed by NCCL's cost model (``comm.nccl_collective_time``: latency growing with the
ranks and nodes, LL128 / Simple / tree), ZeRO-3 per-layer gathers and reduce-scatters exposed
layer by layer with the stack's prefetch depth and the measured overlap contention
(``comm.fsdp_exposure``, ``comm.OVERLAP_SLOWDOWN``), the MoE routing factor and the DualPipe EP
overlap option. The published-MFU checks that moved are in ``tests/test_step.py``
(``SET_BANDS``, the ZeRO-3 fall).

Re-blessed for the kernel mechanisms on by default (step-time model III part 1, a deliberate
change of the model): GEMMs priced by shape (``llmcost.training.gemm``; the GEMMs' residual
``KERNEL_EFFICIENCY_SHAPE`` on Hopper and Blackwell) and FP8 as run (LM head and router in BF16,
the FP8 casts, ``llmcost.training.elementwise``), the MoE host cost re-fitted under them. The
sourced checks that moved are in ``tests/test_step.py`` (DeepSeek-V3's band) and
``tests/test_moe_layer.py``; ``accuracy.mechanism_comparison`` gives the verdict.

Re-blessed for Hopper's backward FP8 GEMMs without fast accumulation, on by default
(``StepOptions.fp8_split_accumulator``, ``gemm.FP8_SLOW_ACCUMULATION``; a deliberate change of
the model): only the FP8 plans on H100 and the DeepSeek-V3 (H800, FP8) validation row moved.

Re-blessed for PyTorch's context-parallel ring as torchtitan runs it, the "auto" of the
``pytorch-fsdp2-2024`` stack (``StepOptions.cp_overlap="torch_ring"``, ``cp_repeat_kv``;
``attention.torch_ring_bytes``, ``step.torch_ring_exposure``; a deliberate change of the
model): only plans with CP > 1 on that stack moved (torchtitan's CP rows, NeMo AutoModel's 70B).

Re-blessed for Blackwell's attention core at cuDNN's measured rates, on by default
(``StepOptions.attention_blackwell``, ``attention.blackwell_curve``; a deliberate change of the
model): no pinned plan runs on Blackwell; the MoE plans moved (Mixtral and DeepSeek-V3 on H100,
the MoE validation rows) through the MoE host-cost constants re-fitted on the calibration rows
under it (``moe_layer.MOE_LAYER_HOST_S`` 1.587 → 1.521 ms, ``MOE_EXPERT_HOST_S`` 0.2515 →
0.2786 ms); the sourced checks are in ``tests/test_attention_blackwell.py`` and
``tests/test_moe_layer.py``.

Re-blessed for FSDP2's copies around its collectives, on by default on the FSDP2 stacks
(``StepOptions.fsdp_copies``, ``step.fsdp_copies_s``: the gathered weights' copy-out and the
gradients' copy-in, serial with compute; a deliberate change of the model): only ZeRO-3 plans
on ``pytorch-fsdp2-2024`` and ``nemo-automodel-2025`` moved (torchtitan's and NeMo AutoModel's
rows; llm-foundry's FSDP1 rows do not pay them). The sourced checks are in
``tests/test_fsdp_copies.py``.

Re-blessed when the catalogue's Qwen3 rows gained their per-head QK-norm weights (``data/models.csv``
``qk_norm`` head: 2 × 128 × n_layers parameters; a correction of the data, not of the engine):
only the NeMo AutoModel Qwen3-30B-A3B validation row moved (predicted MFU and step time by
1.8e-6 relative). The sourced check is in ``tests/test_model.py`` (the checkpoints' exact counts).

Re-blessed for FSDP's one all-gather per unit in the backward under full recomputation
(``stacks.Stack.recompute_regathers``: false on the PyTorch FSDP stacks, whose pre-backward
hook unshards once and whose recomputed forward skips the unshard; a correction of the engine
against its source): only two validation rows moved, NeMo AutoModel's Llama 3 70B (predicted
MFU 36.68% -> 37.22%) and Qwen3-30B-A3B (30.41% -> 30.44%), both FSDP2 with full
recomputation; every engine grid, ranking and step pin unchanged (no pinned plan runs ZeRO-3
with full recomputation on those stacks). The sourced checks are in
``tests/test_fsdp_recompute_gathers.py``.

Re-blessed for a context-parallel ring's calls without a mask at the kernel's unmasked rate, on
by default (``StepOptions.ring_unmasked``, ``attention.ring_unmasked_factors``: step 0 causal,
the other ``cp - 1`` calls unmasked, at NVIDIA's measured causal / unmasked ratio; a deliberate
change of the model): only plans with CP > 1 on a ring stack moved: the Llama 3.1 8B CP grid's
default and FP8 option sets (35 of its 60 plans, attention up to 9.8 % faster), the named Llama
3.1 405B 128K step on the default stack (14.01 s → 13.00 s) and NeMo AutoModel's Llama 3 70B
row (CP 2; predicted MFU 37.22 % → 37.54 %); every ranking, every other grid, step and
validation pin unchanged. The sourced checks are in ``tests/test_ring_unmasked.py``.

Re-blessed for Hopper's split accumulator measured (``gemm.FP8_SLOW_ACCUMULATION`` 1.15 → 1.133,
the H100 SXM's BF16 / FP8 MAMF share, stas00/ml-engineering @ 744d01e; a deliberate change of
the model's constant): only the FP8 option set on the H100 grids moved (step time up to 0.73 %
shorter) and the DeepSeek-V3 (H800, FP8) validation row (predicted MFU 46.12 % → 46.22 %); the
attention curve's merges under an all-gather CP, the MoE layer's routed tokens under a routing
factor and an FP8 router's backward (``step._moe_compute``) moved no pin (their defaults are
unchanged). The sourced checks are in ``tests/test_fp8_split_accumulator.py``,
``tests/test_moe_routed_tokens.py`` and ``tests/test_attention.py``.

Re-blessed for the stacks as their projects run them (a deliberate change of the model's
catalogue): Megatron-Core 2024 runs ZeRO 0-1 (its distributed optimizer shards the optimizer
state only, NVIDIA/Megatron-LM docs/source/api-guide/dist_optimizer.md), Megatron-Core overlaps
the pipeline's sends only under the interleaved schedule (``stacks.PP_OVERLAP_MODES``; schedules.py
refuses ``overlap_p2p_comm`` without it), DeepSpeed runs a pipeline with ZeRO <= 1 (its
PipelineEngine asserts it), and the MoE host constants re-fitted on the calibration rows those
changes moved. Rankings on the default stack take ZeRO-1 plans; 1F1B plans on Megatron-Core pay
their sends. The sourced checks are in ``tests/test_stacks.py``.

Re-blessed for NCCL's LL128 base latencies as the cited commit has them (a correction of the
model's constants: ``comm.NCCL_TUNING`` had 14.0 µs for the ring and the tree, which NCCL set
only from 2.18; NVIDIA/nccl src/graph/tuning.cc @ 01afd20, NCCL 2.7.5, ``baseLat``: Ring/LL128
10.0 µs, Tree/LL128 4.4 µs): the ZeRO-3 grids' DP collectives moved, step times by under
0.01 %; every other pin unchanged. The sourced check is ``tests/test_comm.py``'s tuning model
by hand.

Recorded: every ``step_arrays`` output on a sample of valid plans of five models (dense, GQA,
MoE, MLA, context parallel) on A100 and H100 clusters, the memory engine's totals on the same
plans, the top of three ``rank_plans`` rankings, ``step_time`` on named plans and
``mfu_validation`` on every validation set.
"""

import json
import sys
from pathlib import Path

import numpy as np

PIN_FILE = Path(__file__).parent / "data" / "step_regression_pins.json"

#: (model, accelerator, n_gpus, global batch in sequences, seq_len, enumerate options)
GRIDS = [
    ("gpt-3-175b", "A100-80GB", 1024, 1536, 2048, {}),
    ("llama-2-70b", "H100-SXM", 512, 256, 4096, {}),
    ("mixtral-8x7b", "H100-SXM", 256, 512, 4096, {}),
    ("deepseek-v3", "H100-SXM", 2048, 4096, 4096, {"zero_stage": (1, 3)}),
    ("llama-3.1-8b", "H100-SXM", 64, 64, 32768, {"cp": (1, 2, 4)}),
]
OPTIONS = [
    {},
    {"tp_overlap": "none", "pp_overlap": False, "dp_overlap": False, "flash_attention": False,
     "dropout": True, "recipe": "bf16_adam_fp32_grads_copy"},
    {"tp_overlap": "all", "dtype": "fp8"},
]
PLAN_COLS = ("tp", "pp", "dp", "cp", "ep", "virtual_stages", "micro_batch_size",
             "n_microbatches", "zero_stage", "recompute", "schedule", "sequence_parallel")


def _sample(model, acc, n, gb, s, opts, k=60):
    import llmcost
    from llmcost import parallel
    spec = llmcost.load_model(model)
    cl = llmcost.Cluster(llmcost.load_accelerator(acc), n)
    plans = parallel.enumerate_plans(spec, cl, gb, s, **opts)
    rows = plans.sample(n=min(k, len(plans)), random_state=7).sort_index()
    return spec, cl, plans, rows


def record() -> dict:
    import llmcost
    from llmcost import memory, parallel, step
    out = {"engine": [], "rank": [], "step_time": [], "validation": []}
    for gi, (model, acc, n, gb, s, eopts) in enumerate(GRIDS):
        spec, cl, plans, rows = _sample(model, acc, n, gb, s, eopts)
        for oi, opts in enumerate(OPTIONS):
            if opts.get("dtype") == "fp8" and acc == "A100-80GB":
                continue
            res = step.step_arrays(
                spec, cl, **{c: _col(rows, c) for c in PLAN_COLS},
                seq_len=s, **opts)
            keys = sorted(k for k in res)
            out["engine"].append({"grid": gi, "options": oi,
                                  "values": {k: np.asarray(res[k], dtype=float).tolist()
                                             for k in keys}})
        mem = memory.plan_memory_arrays(spec, **{c: _col(rows, c) for c in PLAN_COLS},
                                        seq_len=s)
        out["engine"].append({"grid": gi, "options": "memory",
                              "values": {"total": np.asarray(mem["total"], float).tolist()}})
        if gi < 3:
            r = step.rank_plans(spec, cl, gb, s, **eopts)
            out["rank"].append({"grid": gi, "n_ranked": int(r.attrs["n_ranked"]),
                                "top": [{**{c: _plain(row[c]) for c in PLAN_COLS},
                                         "step_time_s": float(row["step_time_s"]),
                                         "mfu": float(row["mfu"])}
                                        for _, row in r.head(10).iterrows()]})
    named = [("llama-3.1-405b", "H100-SXM", 16384, 2048, 8192,
              dict(tp=8, pp=16, zero_stage=2, schedule="interleaved", virtual_stages=8,
                   pp_split="embedding_and_loss")),
             ("llama-3.1-405b", "H100-SXM", 16384, 128, 131072,
              dict(tp=8, pp=16, cp=16, zero_stage=2, schedule="interleaved", virtual_stages=8,
                   pp_split="embedding_and_loss")),
             ("llama-2-70b", "H100-SXM", 512, 256, 4096, dict(tp=8, pp=4, zero_stage=1,
                                                               recompute="full")),
             ("llama-2-7b", "A100-80GB", 64, 128, 4096, dict(tp=2, pp=1, zero_stage=3)),
             ("llama-2-70b", "H100-SXM", 512, 256, 4096, dict(tp=8, pp=4, schedule="zb-h1")),
             ("llama-2-70b", "H100-SXM", 512, 256, 4096, dict(tp=8, pp=4, schedule="gpipe"))]
    for model, acc, n, gb, s, kw in named:
        spec = llmcost.load_model(model)
        plan = parallel.make_plan(spec, n, gb, seq_len=s, **kw)
        b = step.step_time(spec, llmcost.Cluster(llmcost.load_accelerator(acc), n), plan, s,
                           missing_features="price")   # plans beyond the default stack's too
        out["step_time"].append({"model": model, "plan": plan.describe(),
                                 "step_time_s": b.step_time_s, "mfu": b.mfu,
                                 "parts": {k: float(v) for k, v in b.parts.items()}})
    v = step.mfu_validation(sets=step.VALIDATION_SETS + step.OUTSIDE_SETS)
    out["validation"] = [{"run_id": r.run_id, "predicted_mfu": float(r.predicted_mfu),
                          "step_time_s": float(r.step_time_s)} for r in v.itertuples()]
    t4 = step.layer_time_table()
    out["layer_table"] = {"forward_ms": t4["predicted_forward_ms"].tolist(),
                          "backward_ms": t4["predicted_backward_ms"].tolist()}
    return out


def _col(rows, c):
    from llmcost.core.model import RECOMPUTE_MODES
    from llmcost.training.parallel import SCHEDULES
    if c == "recompute":
        return np.array([RECOMPUTE_MODES.index(x) for x in rows[c]])
    if c == "schedule":
        return np.array([SCHEDULES.index(x) for x in rows[c]])
    return rows[c].to_numpy()


def _plain(x):
    return x.item() if hasattr(x, "item") else (str(x) if not isinstance(x, (int, bool)) else x)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent.parent))
    PIN_FILE.write_text(json.dumps(record(), indent=0))
    print(f"wrote {PIN_FILE}")
