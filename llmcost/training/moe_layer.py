"""The fixed cost of an MoE layer as it runs: what a micro-batch pays per MoE layer whatever its
token count.

Why: the step-time model prices an MoE layer's GEMMs, element-wise bytes and all-to-all, all of
which scale with the tokens of the micro-batch. Published runs of one model at micro-batch 1
and 4 (NVIDIA Megatron-Bridge 25.11 performance tables, Qwen3-30B-A3B on 8 B200 at MBS 1:
9,299 tokens/s/GPU; on 8 GB200 at MBS 4: 23,766, where their dense Llama 3 8B rows differ by
3 %) differ by 2.6× per GPU: a large cost per MoE layer per micro-batch does not shrink with
the micro-batch.

What it is (the mechanism, from the code that ran)
--------------------------------------------------
A dropless MoE layer in PyTorch eager mode (Megatron-Core's ``MoEAlltoAllTokenDispatcher`` /
``MoEFlexTokenDispatcher`` with DeepEP, Transformer Engine's ``GroupedLinear``) runs, per
micro-batch and per MoE layer:

* the router (gate GEMM, softmax / sigmoid, top-k, the auxiliary-loss statistics), the token
  permutation and un-permutation, and the dispatch bookkeeping: the tokens each rank sends to
  each expert are counted and exchanged before the all-to-all, and the host reads them back
  (the grouped GEMM's per-expert split sizes are host integers: ``tokens_per_expert.tolist()``
  in Megatron-Core's dispatchers; DeepEP's normal-mode ``dispatch`` returns
  ``num_recv_tokens_per_expert_list``, a host list, after a CPU wait on the GPU's received
  count — deepseek-ai/DeepEP README before its V2 rewrite (commit b306af0), section "Example
  use in model training or inference prefilling": "So an implicit CPU wait for GPU received
  count signal will be involved", and "the CPU will wait for GPU's signal to arrive, so this is
  not compatible with CUDA graph"). That is a
  **host–device synchronisation per MoE layer per pass**: the GPU queue drains, and every
  kernel after it is launched with the GPU waiting (the host cannot run ahead across a sync);
* the local experts' GEMMs as a grouped GEMM whose host path loops over the local experts
  (Transformer Engine's ``GroupedLinear`` splits the input, quantizes (FP8) and launches per
  expert; its backward the data- and weight-gradient GEMMs per expert): a launch cost per
  **local expert** per pass.

Megatron-Core names this its "host-boundedness" wall (NVIDIA 2026, "Scalable Training of
Mixture-of-Experts Models with Megatron Core", arXiv:2603.07685, §1 "Three walls": "Small
per-expert GEMMs underutilize Tensor Cores; many kernel launches: host-boundedness") and offers
CUDA graphs of the MoE router and preprocessing (``--cuda-graph-modules moe_router
moe_preprocess``) or of the whole iteration (``--cuda-graph-impl full_iteration``) against it;
the Megatron-Bridge 25.11 table does not say which runs used them. Its 26.08 table shows the
cost going away: the same Qwen3-30B-A3B on 8 GB200 at MBS 4 runs 39,936 tokens/s/GPU (23,766
in 25.11) with a recipe that captures the whole iteration in one CUDA graph and keeps the
expert buffers a fixed size (``perf_recipes/qwen/common.py``
``_enable_hybridep_full_iteration_mxfp8``): the ``megatron-core-2026`` stack
(``Stack.cuda_graphs = "full_iteration"``) has no host cost.

The formula
-----------
Per MoE layer per micro-batch on one rank, with ``E_loc = E / ep`` local experts::

    t_host = (passes) · (MOE_LAYER_HOST_S + MOE_EXPERT_HOST_S · E_loc) / 3
    passes = 3 (forward 1 + backward 2: the backward launches the data- and weight-gradient
             GEMMs of every expert) + 1 under full recomputation (the forward again)

added to the step serially (after the sync the GPU waits for the host: not hidden behind the
layer's compute). **The per-layer term is the dropless dispatcher's synchronisation** and is
paid only where the routing is dropless (``sync_applies``): a dropless dispatcher learns how
many tokens each rank sends and receives only on the GPU and copies the counts to the host
before the variable-size all-to-all (Megatron-Core's ``MoEAlltoAllTokenDispatcher``:
``d2h_event.synchronize()`` at its ``cuda_sync_point``; DeepEP's normal-mode CPU wait, above;
HybridEP without a rank capacity, ``SYNC_ROUTINGS``), so the host cannot run ahead of the GPU
across the layer; a token-dropping router that pads every expert's input to its capacity
knows every size on the host and does not synchronise. The per-expert term is paid by both.

The two constants are **fitted, not sourced**: no public measurement gives a host cost per MoE
layer or per local expert. They are fitted on the MoE rows marked ``calibration`` in
``data/validation_mfu.csv`` whose stack launches eagerly, nothing else, by
``step.calibrate_moe_host_overhead`` (which re-derives them; least squares on the relative
step-time error, non-negative): Megatron-Bridge 25.11 (dropless: DeepSeek-V3 on 256 GB200, EP 32,
8 local experts; Qwen3-30B-A3B on 8 B200, EP 8, 16 local experts) and 25.09 (token-dropping:
Qwen3-30B-A3B MXFP8 on 8 GB200, DeepSeek-V3 MXFP8 on 256 B200 at EP 8, 32 local experts,
Qwen3-235B-A22B FP8 on 64 B200 at EP 8, 16 local experts). The token-dropping rows pay the
per-expert term only, so they pin it and the dropless rows give the sync term. Under the
engine's default kernel mechanisms (GEMMs by shape and FP8 as run, ``StepOptions``, and
Blackwell's attention at cuDNN's measured rates, ``attention_blackwell``) the fit is 1.59 ms per
MoE layer per micro-batch (the sync) and 0.27 ms per local expert (1.52 and 0.28 ms before the
1F1B calibration rows paid their pipeline sends, which Megatron-Core overlaps only under the
interleaved schedule, ``stacks.PP_OVERLAP_MODES``; 1.59 and 0.25 ms before the Blackwell
attention rates); with the GEMM and FP8 mechanisms off, 1.35 ms and 0.35 ms (1.28 and 0.35 ms
before the 1F1B sends; 1.37 and 0.33 ms before the Blackwell attention rates). The routing rule was **decided after seeing the
held-out rows**: before it, the two 25.11 rows alone gave 0 ms per layer and 0.38 ms per expert, and
every row of a stack paid both terms whatever its routing; the rule and the re-fit were made
with the held-out errors of the 25.11 rows and of the published 25.09 / 25.11 pairs in view.
Sanity check against kernel counts: ``MOE_EXPERT_HOST_S`` ÷ 10 host calls per local expert per
layer and micro-batch (``EXPERT_LAUNCHES``: forward, 2 quantizes and 2 GEMMs; backward, 2
quantizes, 2 data- and 2 weight-gradient GEMMs) is ≈ 28 µs per call, the order of PyTorch's eager
per-operator host overhead with Transformer Engine's Python layers around it.

What the published pairs say and the model does not reproduce. Megatron-Bridge published the
same models and global batches dropless (25.11) and token-dropping (25.09); per MoE layer per
micro-batch of the dropless run it costs about 8 ms more on H100 (Qwen3-30B-A3B: 5,275 against
10,494 tokens/s/GPU; the dropless recipe ran MBS 1 and the EP all-to-all overlap where the
token-dropping one ran MBS 2 without it: ``step_validation.MB2511_H100_TABLE_READINGS``), 4.5 ms
on B200 (Qwen3-30B-A3B, MBS 1: 9,299 against 18,066, FP8 precisions differing), and nothing on
GB200 (Qwen3-30B-A3B MXFP8, MBS 4: 23,766 against 23,723, HybridEP) nor on B200 for DeepSeek-V3
(MXFP8, EP 8: 2,139 against 2,159). The one global sync term (1.5 ms) averages these: it is too
large for the last two and too small for H100 (predicted +2.7 ms; the row +39 % as its recipe
ran), whose 25.11 recipe differs from the calibration rows' in ways the engine does not price
(no CUDA graphs of the router and the dispatch preprocessing, which Megatron-Bridge measured as
neutral on this model on H100 with the alltoall dispatcher, docs/training/cuda-graphs.md at
1faf74e32: 42.00 s graphed against 41.36 s eager; the merged forward/backward schedule of the
EP overlap, which a host sync per MoE layer stalls; FP8 current scaling's per-expert amax and
padding, ``moe_router_padding_for_fp8`` unset: the padding is one fused Transformer Engine pass
per call, about 0.5 ms per MoE layer per micro-batch on H100, ``fp8_padding_cost_s``, and the
HybridEP recipe that replaced it pads in its dispatch); a constant for that recipe would be
fitted on the held-out row itself. Two published runs of that recipe agree (25.11 with the alltoall
dispatcher, +39 %; 26.02 with DeepEP at GBS 1,024, 5,113 tokens/s/GPU, +44 %), but a third
does not: the 26.02.01 container's table (docs/performance-summary-archive.md at 4ab94dfad,
section '26.02.01 NeMo Container', added in cfeddcd94) lists the same plan at 9,058
tokens/s/GPU, where the engine is 15 % slow, and its recipe at v0.3.1 is another one (EP 16,
the hybridep dispatcher, no EP overlap), so the table and the recipe disagree on what ran and
it is not a validation row; the slowdown looks specific to the 25.11 and 26.02 containers,
and the publisher calls it one: Megatron-Bridge issue #1998, "[Regression] Low QWEN3 30B B200
and H100 performance with dropless" (2026-01-20: "the perf in 25.11 is 2X slower than 25.09. We
need to fix this in 26.02"). The two rows stay in the validation (a published run is what a
user of that container got); the engine prices no regression. A
BF16 run
of the same model on 16 H100 with the alltoall dispatcher, the EP overlap and no CUDA graphs
(NVIDIA-NeMo/Megatron-Bridge PR #3880, closed unmerged, commit da871ee81,
skills/perf-parallelism-strategies/SKILL.md: GBS 1,024, MBS 1, EP 8 or 16, "about 31
seconds/step") is priced at 33-34 s: the gap sits with the H100 FP8-CS recipe of those
containers, not with the dispatcher or the overlap. The cost's fall with the micro-batch's GPU
time (Megatron-Core's MoE README, "CPU Overhead Bottleneck": "Reduce kernel launches: ...
increase micro-batch size") is not modelled either.

What the recipe that replaced the worst rows' says (``step_validation.later_h100_qwen3_checks``,
read after those rows' errors were seen; checks, not validation rows). NVIDIA replaced that
H100 recipe (Megatron-Bridge PR #2477, commit 4a6450755, 2026-02-23: PP 2 × VP 12, EP 8,
DeepEP, ``moe_a2a_overlap`` → PP 1, EP 16, HybridEP, no EP overlap); the 26.04 and 26.06 tables
list it at 8,901 and 8,826 tokens/s/GPU (FP8, GBS 1024), where the engine is 7-8 % slow, and
the same model in BF16 on the same 16 H100 (Megatron-Bridge
skills/nemo-mbridge-perf-expert-parallel-overlap/SKILL.md at 067f987df) at 24.71 s per step
without and 20.99 s with the EP overlap: the engine's overlap gain (1.14×) is within 4 % of
the published 1.18×, but it prices both 25-27 % slow, its host term (11.5 s) being far above
the GPU-idle time the page's profile leaves (24.71 − 22.82 s of GPU-active interval union).
Readings of small-expert mechanisms on the worst rows (``validate_mfu.py`` item 12): the
per-expert cuBLAS launches of Transformer Engine's grouped linear on Hopper (4 streams,
``step_validation.TE_GEMM_STREAMS``) add 0.17 s to a 7.5 s gap; FP8 current scaling's
quantize launches per expert tensor (amax, scale, cast: 8 more per local expert per MoE layer
and micro-batch than MXFP8, Transformer Engine v2.9 ``split_quantize``;
``step_validation.fp8cs_quantize_launch_reading``) at the engine's host time per launch would
bring the two rows to +18 % / +23 % but move both FP8-CS calibration rows away (-7.5 % to
-15.5 %, -5.6 % to -19.3 %) and the 25.09 B200 row to -49 %; the overlap's host cost read
from Megatron-Bridge PR #1760 (Qwen3-235B-A22B on 64 B200, BF16, ``moe_a2a_overlap`` on 17.2 s,
off 16.0 s, "due to CPU overhead") would be 1.8 ms per MoE layer per micro-batch and bring the
two rows to +20 % / +25 %, but it makes the H100 BF16 overlap pair 39 % slow where the overlap
published a 3.7 s gain, so it is not an engine term. Router and permutation passes are
memory-bound passes of ``x·h`` to ``x·k·h`` elements, priced in ``step._moe_compute``; none is
large enough to explain the 5 ms per MoE layer per micro-batch. The rows' gap is left to their
recipe, unmodelled; a host term that is hidden behind the GPU's work where the GPU is the
slower (as the H100 profile suggests) would lower the BF16 checks' error and raise these rows'.
Priced since: the steady-state pipeline P2P of the merged 1F1B these rows ran
(``step.merged_p2p_exposure``: each merged forward+backward unit waits for both its inputs
and sends both outputs at its end, Megatron-LM ``TransformerModelChunkSchedulePlan.run``, so
one transfer per unit lands on the critical path of PP 2 × VP 12): 0.4 s and 0.8 s of their
steps, +38.5 % → +35.4 % and +44.3 % → +41.0 %. The rest (about 6.5 s of 24.8 s and 15 s of
51.3 s, 4-5 ms per MoE layer per micro-batch) is still not accounted for. Checked against
NVIDIA/Megatron-LM at 0d8e0714cd29 (the 25.11 pin) and found already priced or too small:
the alltoall dispatcher's one host wait per MoE layer per forward (``token_dispatcher.py``
``MoEAlltoAllTokenDispatcher.preprocess``: ``cuda_sync_point`` "before_ep_alltoall" when EP > 1,
``_maybe_dtoh_and_synchronize``: ``d2h_event.synchronize()``; the backward reuses the counts
and does not wait) is ``MOE_LAYER_HOST_S``; the merged 1F1B of the EP overlap adds no host wait
(``model_chunk_schedule_plan.py`` ``TransformerLayerSchedulePlan.run`` and
``pipeline_parallel/utils.py`` ``ScheduleNode``: events and stream waits only, one autograd
call per sub-module); the token counts' all-gather over the EP group before that wait
(``gather_from_sequence_parallel_region`` of ``num_local_tokens_per_expert``: 1 KiB per rank
at 128 experts) is tens of µs a layer; the router and the permutation are priced as memory
passes (``step._moe_compute``), with the recipe's ``moe_router_fusion`` and
``moe_permute_fusion`` on. Two readings of the remaining gap are printed by
``benchmarks/validate_mfu.py`` item 12 and left out: FP8 current scaling's extra quantize
launches per local expert as an engine switch (``fp8_expert_host_factor``,
``StepOptions.fp8cs_expert_launches``; the constants re-fitted under it the two rows come to
+21 % / +26 %, but the later H100 recipe's FP8-CS rows go from -7 to -9 % to -16 to -18 % and
the held-out rows' mean |error| rises: it fails ``accuracy.fp8cs_launch_comparison``), and
PR #1760's overlap A/B read per merged chunk unit (``step_validation.
overlap_unit_cost_reading``: +13 % / +18 %, the pessimistic DeepSeek-V3 calibration row, PP 8
× VP 2, further away).

Two sourced gpt-oss costs read and left out (each makes the four H100 GPT-OSS rows, one
recipe, worse beyond their regime's noise). Its clamped activation makes a second host–device
synchronisation per MoE layer per micro-batch: Megatron-Core's
``weighted_bias_quick_geglu_impl`` builds ``torch.tensor(linear_offset, device=input.device)``
on every call, a blocking host-to-device copy (pytorch/pytorch
``torch/csrc/utils/tensor_new.cpp`` ``internal_new_from_data``: ``non_blocking=false``;
``aten/src/ATen/native/cuda/Copy.cu``: ``memcpy_and_sync``, ``cudaStreamSynchronize``); priced
at ``MOE_LAYER_HOST_S`` it brings the eager GB200 rows from +28-32 % to +20-23 % and GB300 to
+1-2 %, but the H100 rows from -3-0 % to -7-10 % (regime mean 1.4 % → 8.7 %, noise 0.75 %). Its
YaRN RoPE runs unfused (Megatron-Core ``rope_utils.apply_rotary_pos_emb`` at 2edffadb5: "mscale
... is not supported by TE's fused RoPE. Using unfused implementation"; gpt-oss's concentration
factor 0.1·ln 32 + 1 = 1.35): ``t·cos + rotate_half(t)·sin`` and two concatenations, 24 B
forward and 20 B backward per Q/K element against the fused kernel's 4 and 4; it brings the
GB200 rows to +25-28 % and the MXFP8 ones from +11-17 % to +6-12 %, but the H100 rows to -2 to
-5 % (regime 1.4 % → 2.8 %).

Not modelled: the variation with the host CPU (Grace vs x86). A published per-op host time
(NVIDIA/TransformerEngine issue #2053, 2025-08-11: one ``torch.nn.Linear`` BF16 forward takes
37.08 µs of CPU on GB200's Grace, 13.48 µs on an H100 DGX's Xeon Platinum 8480C, 2.75×)
applied to this term on the Grace-hosted rows (GB200, GB300), the two constants re-fitted on
the same calibration rows, makes every held-out bucket worse (MoE mean |error| 11.4 % → 16.1 %,
Blackwell 10.5 % → 13.0 %, FP8 9.5 % → 12.2 % when it was read, before gpt-oss's clamped
activation was priced, ``elementwise.clamped_glu_bytes``; ``benchmarks/validate_mfu.py`` item
12, its Grace reading, prints it as the engine stands): the re-fit moves cost from the x86 rows
to the Grace ones, and the eager gpt-oss rows are too fast on x86 B200 as well (+17 to +20 %;
+21 to +25 % before the clamp passes), so Grace's host is not what they lack.
Also not modelled: per-layer CUDA graphs (the
Megatron-Bridge 25.09 Qwen3 recipes capture the padded MoE layers on B200 / GB200, as
Megatron-Core's MoE README allows only with ``--moe-expert-capacity-factor`` and
``--moe-pad-expert-input-to-capacity``; a full-iteration graph is modelled: the stack's
``cuda_graphs``), and any overlap of the host time with another micro-batch's compute.

Read, left off: what the CUDA graphs of the 25.09 recipes say about this term (read after the worst
rows' errors were seen; no engine change; ``step_validation.moe_gpu_gap``, ``layer_graph_reading``
and ``gpt_oss_dense_reading`` compute the figures, ``benchmarks/validate_mfu.py`` item 12 prints
them). The 25.09 Qwen3-30B-A3B recipe sets ``cuda_graphs: true`` on GB200 and B200, which
Megatron-Core 0.14 turns into one CUDA graph per transformer layer, MoE layer included under the
token-dropping padding (sources at ``step_validation.LAYER_GRAPH_PAIRS``). Yet the engine needs its
whole per-expert term on the GB200 MXFP8 row (-1.1 %; +42.6 % without any host time), and the time
its GPU-side step lacks per MoE layer per micro-batch, ``(T_published − T_without_host) ÷
moe_layer_mbs``, is the same with the layers graphed (25.09: 4.30 ms) as with the experts eager and
dropless (25.11: 4.27 ms) at MBS 4 on GB200; at MBS 1 on B200 it is 1.97 ms graphed against 6.47 ms
eager. So at MBS 4 the cost is not host time (a graph would remove it) but a GPU-side one the
engine's kernels do not price, and only at MBS 1 does a part that graphs remove (about 4.5 ms)
appear: the additive host term fitted across both cannot price the 25.09 B200 row (-34.5 %), and
zeroing it where the layers were graphed puts that row at +71.7 %. A GPU-side MoE cost growing with
the micro-batch's tokens plus a host cost exposed only where it exceeds the GPU's work would fit
both; neither has a public measurement (their constants would be fitted), so neither is priced.
The worst H100 rows (PP 2 × VP 12, EP 8, EP overlap, FP8-CS) lack 10.2 and 10.8 ms per MoE layer
per micro-batch beyond the engine's GPU-side step (``H100_QWEN3_GAP_ROWS``), against 3.0 ms for the
recipe that replaced them (PP 1, EP 16, HybridEP, no overlap) and 2.8 ms for 25.09's (PP 2 × VP 24,
MBS 2, token-dropping, no overlap); the BF16 check (alltoall, EP overlap, EP 8 or 16 at PP 1, about
31 s) clears EP 8, the dispatcher and the overlap each alone, leaving the merged 1F1B over 24 model
chunks or FP8-CS in the 25.11 / 26.02 containers: no published A/B separates them. The recipes
at each release, setting by setting (``step_validation.H100_QWEN3_RECIPE_SETTINGS``,
``validate_mfu.py`` item 24), narrow it: every row is priced with its recipe's plan, overlap and
dispatcher; the settings the engine does not price (``CUDA_DEVICE_MAX_CONNECTIONS``, the
layernorm SM margin, ``delay_wgrad_compute``) are the same in 26.02 (+41 %) and 26.02.01 (-9 %),
whose Megatron-Core (13 commits apart on core_r0.16.0, none in MoE, dispatch, FP8 or the
schedules) and Transformer Engine pin are the same: by the pins the container is not the cause,
the recipe is (PP 2 × VP 12 under the merged 1F1B, EP 8 with 16 local experts, DeepEP against
HybridEP), and FP8-CS only through its per-expert launches at 16 local experts.
GPT-OSS 120B BF16 in the 26.02-26.04.01 tables (``step_validation.GPT_OSS_DENSE_SETS``): GB200
+29 %, GB300 +8 %, B200 +18 %, H100 -1 % (mean errors); Llama 3.1 70B FP8-CS of the same tables, one
plan on GB200 and GB300 whose recipes set no CUDA graphs: +6 % and -11 %. GPT-OSS is priced 1.22x
fast against it on both GB200 and GB300, so the GB200 rows' excess over GB300 is the GB300 / GB200
gap the dense rows show too (not priced), not GB300's Transformer Engine graphs of attn, moe_router
and moe_preprocess (``te_scoped_graph_reading`` reads the gap as 4.5 ms per MoE layer per
micro-batch); what GPT-OSS itself lacks, against the dense model of its tables, is about a fifth of
its step on Blackwell, graphed or not (1.12x on H100, whose Llama plan differs: TP 4, PP 8).
"""

from __future__ import annotations

import numpy as np

from ..core.units import as_array, as_scalar, as_choice
from .elementwise import FP8_RECIPES

#: Host time per MoE layer per micro-batch, forward + backward, of a dropless dispatch (the
#: host–device synchronisation on the token counts and the launches the GPU then waits for),
#: seconds; 0 under token-dropping routing padded to capacity (``sync_applies``). Fitted on the
#: eager-stack MoE calibration rows of ``data/validation_mfu.csv``
#: (``step.calibrate_moe_host_overhead``; module docstring).
MOE_LAYER_HOST_S = 1.588e-3
#: Host time per local expert per MoE layer per micro-batch, forward + backward (the grouped
#: GEMM's per-expert split, quantize and launches), seconds, whatever the routing. Fitted with
#: ``MOE_LAYER_HOST_S``.
MOE_EXPERT_HOST_S = 0.2739e-3


#: Host calls per local expert per MoE layer and micro-batch behind ``MOE_EXPERT_HOST_S``, as
#: Transformer Engine's grouped linear layers issue them one expert split at a time
#: (NVIDIA/TransformerEngine ``transformer_engine/pytorch/module/grouped_linear.py`` at v2.9):
#: forward, the fc1 and fc2 inputs quantized and 2 GEMMs; backward, the 2 output gradients
#: quantized, 2 data-gradient and 2 weight-gradient GEMMs: 10 (the activation between fc1 and
#: fc2 runs once over all local experts in Megatron-Core's grouped MLP, not per expert). The
#: engine's host time per call is then ``MOE_EXPERT_HOST_S`` ÷ 10.
EXPERT_LAUNCHES = 10
#: Expert tensors quantized per MoE layer per micro-batch and local expert under FP8 (the weights
#: cached for the step): forward the fc1 and fc2 inputs, backward the fc2 and fc1 output
#: gradients (NVIDIA/TransformerEngine ``transformer_engine/pytorch/module/grouped_linear.py`` at
#: v2.9: ``tex.split_quantize`` of ``inp_view`` in the forward, of ``grad_output`` in the
#: backward; the same at v2.7 and v2.8).
EXPERT_QUANTIZED_TENSORS = 4
#: Launches per quantized expert tensor that FP8 current scaling adds to the one cast kernel the
#: fit's recipes launch (MXFP8: one quantize kernel per split, its scales computed inside the
#: cast): NVIDIA/TransformerEngine at v2.9 (Megatron-Bridge's lower pin from 25.11)
#: ``transformer_engine/pytorch/csrc/extensions/cast.cpp`` ``multi_tensor_quantize_impl`` (lines
#: 117-147: "Currently only have fused kernel for FP8 delayed scaling"; any other quantizer runs
#: ``quantize`` on each expert's split in turn; the same at v2.7 and v2.8) and
#: ``csrc/quantizer.cpp`` ``Float8CurrentScalingQuantizer::quantize_impl`` (lines 497-536:
#: ``nvte_compute_amax_with_config``, ``nvte_compute_scale_from_amax``, ``nvte_quantize_v2``).
FP8CS_EXTRA_LAUNCHES_PER_TENSOR = 2


def fp8_expert_host_factor(dtype: str, fp8_recipe: str) -> float:
    """The factor on the per-local-expert host constant (``MOE_EXPERT_HOST_S``) of FP8 current
    scaling's extra quantize launches, each at the constant's own time per launch::

        f = 1 + FP8CS_EXTRA_LAUNCHES_PER_TENSOR · EXPERT_QUANTIZED_TENSORS / EXPERT_LAUNCHES
          = 1 + 2 · 4 / 10 = 1.8    (dtype "fp8", fp8_recipe "current"; else 1)

    The other recipes keep the fitted constant (MXFP8 launches one kernel per split, as counted
    in ``EXPERT_LAUNCHES``; delayed scaling one fused kernel for all splits; BF16 none):
    ``StepOptions.fp8cs_expert_launches``.

    Raises
    ------
    ValueError
        An unknown dtype or FP8 recipe (``elementwise.FP8_RECIPES``).
    """
    if dtype not in ("bf16", "fp16", "fp32", "fp8"):
        raise ValueError(f"dtype={dtype!r} must be 'bf16', 'fp16', 'fp32' or 'fp8'")
    as_choice(fp8_recipe, "fp8_recipe", tuple(FP8_RECIPES))
    if dtype == "fp8" and fp8_recipe == "current":
        return 1.0 + FP8CS_EXTRA_LAUNCHES_PER_TENSOR * EXPERT_QUANTIZED_TENSORS / EXPERT_LAUNCHES
    return 1.0


#: Routings whose dispatcher synchronises host and device once per MoE layer per micro-batch
#: (the per-layer term ``MOE_LAYER_HOST_S``): dropless only. A token-dropping router that pads
#: every expert's input to its capacity knows every split size on the host (capacity × experts)
#: and copies nothing back: NVIDIA/Megatron-LM ``megatron/core/transformer/moe/token_dispatcher.py``
#: at d98e8a64dd, ``MoEAlltoAllTokenDispatcher.preprocess`` (``if self.drop_and_pad``: the
#: counts are ``torch.full`` of the capacity, no sync point set) and ``_maybe_dtoh_and_synchronize``
#: (``if not self.drop_and_pad``: the DtoH copies and ``d2h_event.synchronize()`` run only in
#: dropless mode); the same file's ``_HybridEPManager.setup_metadata``: "num_permuted_tokens
#: stays None; HybridEP sizes buffers dynamically (CPU sync in dispatch)" unless drop-and-pad or
#: a rank capacity bounds it.
SYNC_ROUTINGS = ("dropless",)


def sync_applies(routing: str) -> float:
    """1.0 where an MoE layer's dispatch synchronises host and device (``SYNC_ROUTINGS``:
    dropless), 0.0 for a token-dropping router padded to capacity (``"capacity"``).

    Raises
    ------
    ValueError
        An unknown routing (``comm.MOE_ROUTING``: ``"dropless"``, ``"capacity"``).
    """
    if routing not in ("dropless", "capacity"):
        raise ValueError(f"moe_routing={routing!r} must be 'dropless' or 'capacity'")
    return 1.0 if routing in SYNC_ROUTINGS else 0.0


def moe_host_overhead_s(n_experts, ep, recompute="none", *, layer_s=None, expert_s=None,
                        routing="dropless"):
    """Host-bound time of one MoE layer for one micro-batch on one rank, seconds.

    ``(1 + 2 + [1 if full recompute]) · (sync · layer_s + expert_s · n_experts / ep) / 3``,
    ``sync = sync_applies(routing)`` (1 dropless, 0 token-dropping padded to capacity; the
    module docstring gives the mechanism and the fit).

    Parameters
    ----------
    n_experts : int or array, >= 1
        Routed experts of the layer.
    ep : int or array, >= 1, dividing ``n_experts``
        Expert-parallel size (local experts = n_experts / ep).
    recompute : {"none", "selective", "full"} or code 0/1/2
        Full recomputation runs the layer's forward (and its host work) again.
    layer_s, expert_s : float >= 0, optional
        Override ``MOE_LAYER_HOST_S`` / ``MOE_EXPERT_HOST_S`` (0 turns a term off, e.g. CUDA
        graphs).
    routing : {"dropless", "capacity"}
        The router's routing (``comm.MOE_ROUTING``); only a dropless dispatch synchronises.

    Returns
    -------
    float or ndarray (seconds).

    Raises
    ------
    ValueError
        A non-positive expert count or EP size, an EP size above the expert count, an unknown
        recompute mode or routing, a negative constant.

    Examples
    --------
    >>> round(float(moe_host_overhead_s(128, 8)) * 1e3, 2)   # Qwen3-30B-A3B, EP 8: 16 local
    5.98
    >>> round(float(moe_host_overhead_s(128, 8, routing="capacity")) * 1e3, 2)   # no sync
    4.46
    """
    E = as_array(n_experts, "n_experts", positive=True)
    e = as_array(ep, "ep", positive=True)
    if np.any(e > E):
        raise ValueError(f"ep={ep!r} must be <= n_experts={n_experts!r} (each EP rank holds at "
                         "least one expert)")
    a = MOE_LAYER_HOST_S if layer_s is None else as_scalar(layer_s, "layer_s", nonnegative=True)
    b = MOE_EXPERT_HOST_S if expert_s is None else as_scalar(expert_s, "expert_s",
                                                                  nonnegative=True)
    codes = {"none": 0, "selective": 1, "full": 2}
    if isinstance(recompute, str):
        if recompute not in codes:
            raise ValueError(f"recompute={recompute!r} must be one of {tuple(codes)}")
        rc = np.asarray(codes[recompute])
    else:
        rc = np.asarray(recompute)
        if not np.all(np.isin(rc, (0, 1, 2))):
            raise ValueError(f"recompute={recompute!r} must be a code 0, 1 or 2 (none, "
                             "selective, full)")
    return moe_host_overhead_unchecked(E, e, rc, sync_applies(routing) * a, b)


def moe_host_overhead_unchecked(n_experts, ep, recompute_code, layer_s, expert_s):
    """``moe_host_overhead_s`` on checked arrays (the engine's path)."""
    passes = 3.0 + np.where(np.asarray(recompute_code) == 2, 1.0, 0.0)
    per_pass = (layer_s + expert_s * np.asarray(n_experts, dtype=float)
                / np.asarray(ep, dtype=float)) / 3.0
    return passes * per_pass


#: Calls the grouped MLP's explicit FP8 padding makes per MoE layer per micro-batch where the
#: dispatcher leaves each expert's tokens unaligned: forward, Transformer Engine's ``Fp8Padding``
#: of the permuted hidden states and of the permuted probabilities and ``Fp8Unpadding`` of the
#: fc2 output; backward, their three autograd mirrors. NVIDIA/Megatron-LM
#: ``megatron/core/transformer/moe/experts.py`` at 0d8e0714cd29 (the Megatron-Bridge 25.11 pin),
#: ``TEGroupedMLP.__init__`` (``Fp8Padding(self.num_local_experts)`` whenever ``config.fp8``) and
#: ``TEGroupedMLP.forward`` (``self.quantization_padding`` of the hidden states and the probs);
#: NVIDIA/TransformerEngine ``transformer_engine/pytorch/module/fp8_padding.py`` and
#: ``fp8_unpadding.py`` at v2.9: one fused kernel per call over all local experts
#: (``tex.fused_multi_row_padding`` / ``fused_multi_row_unpadding``), and none at all when every
#: split is already aligned ("no padding needed": ``return inp, m_splits``).
FP8_PADDING_CALLS = 6
#: Read-and-write passes of the rank's routed activations (``x · h`` elements of 2 bytes) those
#: calls make: the hidden states padded and the fc2 output unpadded forward, the two gradients
#: backward (the probabilities' ``x`` elements are left out: 1/h of a pass).
FP8_PADDING_PASSES = 4


def fp8_padding_cost_s(routed_tokens, d_model, hbm_bytes_per_s):
    """A reading, not an engine term: the time of the grouped MLP's explicit FP8 padding per MoE
    layer per micro-batch on one rank, where it pads (``FP8_PADDING_CALLS``), seconds::

        t = FP8_PADDING_CALLS · MOE_EXPERT_HOST_S / EXPERT_LAUNCHES        (host, per call)
          + FP8_PADDING_PASSES · 2 · (2 · x · h) / B_hbm                    (bytes, read + write)

    ``x`` the routed tokens the rank's local experts receive per micro-batch (balanced routing:
    micro-batch × sequence × top-k ÷ (TP · CP)), ``h`` the model width, ``B_hbm`` the GPU's HBM
    bandwidth (burst: a lower bound on the bytes' time). The padding runs only where the
    dispatcher does not align each expert's tokens itself: Megatron-Core's HybridEP dispatch
    pads in its kernel under FP8 (``token_dispatcher.py`` ``_HybridEPManager.dispatch``,
    ``pad_multiple = get_fp8_align_size(...)`` at 0d8e0714cd29, ``pad_multiple = align_size`` at
    d98e8a64dd), a router with ``moe_router_padding_for_quantization`` pads the routing map, and a
    token-dropping router padded to capacity hands aligned splits (capacity a multiple of 16);
    the alltoall dispatcher and DeepEP without router padding leave them to this path.

    Raises
    ------
    ValueError
        A non-positive token count, width or bandwidth.

    Examples
    --------
    >>> round(float(fp8_padding_cost_s(4096 * 8, 2048, 3.35e12)) * 1e3, 3)  # Qwen3-30B, H100
    0.488
    """
    x = as_array(routed_tokens, "routed_tokens", positive=True)
    h = as_array(d_model, "d_model", positive=True)
    bw = as_array(hbm_bytes_per_s, "hbm_bytes_per_s", positive=True)
    host = FP8_PADDING_CALLS * MOE_EXPERT_HOST_S / EXPERT_LAUNCHES
    return host + FP8_PADDING_PASSES * 2.0 * (2.0 * x * h) / bw
