"""Attention-kernel efficiency by sequence length, head dimension, causal mask and kernel.

The engine prices the fused attention core (FlashAttention and its successors) at one flat
``Efficiency.attention_fraction`` of the 16-bit dense peak (``data/flash_attention.csv``: the
papers' headline figures). A kernel's achieved rate grows with the sequence length (short
sequences leave tiles and waves half filled, and the softmax rescaling and the epilogue weigh
more), a causal mask costs the diagonal blocks, the head dimension sets the tile shape, and the
backward pass runs below the forward. This module gives the rate as a curve.

The curve
---------
For one kernel, pass (forward / backward), mask and head dimension, the achieved throughput at
sequence length ``s`` (queries = keys per sequence) is::

    R(s) = R_inf · s / (s + s_half)

``R_inf`` (TFLOP/s) the long-sequence plateau, ``s_half`` (tokens) the length at which half of
it is reached; the fraction of the dense BF16 peak is ``R(s) / peak``. FLOPs are counted as the
papers count them (Dao 2023 §4.1; Shah et al. 2024 §4.1): forward ``4·s·s·d`` per head
(``2·s·s·d`` for QKᵀ and as much for PV), halved with a causal mask; backward 2.5 × forward (five
matmuls against two). ``t = FLOPs / R(s)``.

The data and the fit
--------------------
``data/attention_kernel_benchmarks.csv``: the bar labels of Shah et al. 2024, FlashAttention-3,
arXiv:2407.08608, Fig. 5 (forward) and Fig. 6 (backward), H100 80GB SXM5, BF16, batch ×
sequence length = 16k tokens, hidden size 2048 (16 heads of 128 or 32 of 64), for
FlashAttention-2 (``fa2``), cuDNN (``cudnn``) and FlashAttention-3 (``fa3``), sequence lengths
512 to 16k: forward with and without a causal mask at head dimension 128, forward without a mask
at 64, backward without a mask at 128 and 64 (90 points). Fig. 5 also has forward panels that
are not transcribed here: with a causal mask at head dimension 64, and at head dimension 256
with and without the mask; their bar labels were not at hand from a primary reading (the
figures are images), so the stand-ins below price those series and their error against the
paper's panels is unknown. The values were read from a
transcription of the figures' labels; the paper's versions differ in places (its abstract's
"up to 740 TFLOPs/s" is above these head-dimension-128 figures), so the table is one version's.
Two readings of the head-dimension-128 unmasked forward figure disagree on two bars (at 512
tokens cuDNN 497 / FA3 467, swapped in the other reading; FA2 at 16k 370 or 395): the table
keeps the reading whose series are monotone in the figure's order (FA2 flat at 370 from 8k).

``fit_curve`` re-derives ``(R_inf, s_half)`` per series on a grid of ``s_half`` (0 to 4,000 in
steps of 5 tokens), ``R_inf`` in closed form, by least squares on ``ln R``; ``ATTENTION_CURVES``
stores the results (a test re-derives them). ``reproduce`` prints the table against the curve:
mean |error| 1.3 % over the 90 points, max 4.6 % (cuDNN forward at 2k tokens, whose measured
rate falls again beyond 2k, which the curve cannot follow); ``tests/test_attention.py`` holds
every point within 5 %.

An independent check, to 64k tokens: ``data/attention_kernel_checks.csv`` holds NVIDIA's own
measurement of cuDNN 9.1.0's fused attention and of PyTorch's ``scaled_dot_product_attention``
(its FlashAttention-2 backend) in one container, BF16, head dimension 128, hidden 2048, with and
without a causal mask, forward and backward, 4k to 64k tokens (NVIDIA/cudnn-frontend
``benchmark/benchmark_results.csv`` @ b740542, 2024-05-07; the GPU is not named, the README's
clock example is an H200's, whose SMs and clocks are the H100 SXM's). No curve is fitted to it:
``check_curves`` prices each of its 40 points with the curves above, which it reproduces within
8.5 % (mean 4.2 %), the causal backward pass (a stand-in below, not in the paper's figures)
included, and the curves' long-sequence plateaus beyond the paper's 16k hold to 64k.

Series not in the table, stated: a causal backward pass is the unmasked backward rate × the
forward's causal / unmasked ratio at the same length (the same diagonal-block loss); a head
dimension not in the table takes the nearest transcribed one on a log scale (64 or 128; MLA's
192 and a head dimension of 256 take 128, though Fig. 5 measures 256); head dimension 64 with a
causal mask (measured in Fig. 5, not transcribed) takes the 64 unmasked curve × the 128 causal /
unmasked ratio. The default engine reads these curves on the stacks whose kernel is a stock
FlashAttention one (``StepOptions.attention_curve="flash"``, the default), not on the
Transformer Engine stacks (cuDNN's curve, read with ``attention_curve=True``) nor on a stack
whose kernel is its own (``UNMEASURED_KERNEL_STACKS``).

Which kernel
------------
``stack_kernel``: a stack whose attention layer is Transformer Engine's ``DotProductAttention``
runs cuDNN's fused attention on Hopper (``"cudnn"``): Transformer Engine disables
FlashAttention there "to give FusedAttention preference on Hopper+ for performance reasons"
(NVIDIA/TransformerEngine ``transformer_engine/pytorch/attention/dot_product_attention/utils.py``
@ a0b36d0, ``get_attention_backend``). The preference is older than that module: the tags
v1.3 to v1.6 (5b90b7f5e to c81733f10, 2024-02 to 2024-05) already "Select FusedAttention on sm90
and FlashAttention on others for performance" in ``transformer_engine/pytorch/attention.py`` and
keep FusedAttention's arbitrary-length backend under context parallelism, with no FP8 path
before v1.6 ("DPA does not support FP8"): the 2024 Megatron-Core stack ran cuDNN's kernel in
BF16, though its flat rate is FlashAttention-2's (``data/flash_attention.csv`` by version; the
cuDNN curve is ``attention_curve``'s). Those stacks (``TE_ATTENTION_STACKS``): Megatron-Core
(its default GPT layer spec is the Transformer Engine one, ``TEDotProductAttention``) and NeMo
AutoModel (``backend.attn: te`` in its MoE recipes, NVIDIA-NeMo/Automodel @ 89e3a9fdd). Every
other stack runs its FlashAttention version (``KERNEL_OF_FLASH_VERSION``: FlashAttention-2 →
``fa2``, FlashAttention-3 → ``fa3``; the stack's ``flash_attention``, ``data/stacks.csv``):
PyTorch's ``scaled_dot_product_attention`` picks its FlashAttention-2 backend on H100, cuDNN
having been made opt-in after PyTorch 2.5 (pytorch/pytorch#138649 and PR #138522, 2024-10)
and preferred again only from cuDNN 9.15 (``check_prefer_cudnn_attention`` in
``aten/src/ATen/native/transformers/cuda/sdp_utils.cpp``). A stack whose kernel is its own,
modified and unmeasured (``UNMEASURED_KERNEL_STACKS``: DeepSeek's HAI-LLM, whose MLA kernel is
"an improved version of FlashAttention-2", DeepSeek-V2, arXiv:2405.04434 §3.1.3), keeps the flat
fraction under ``attention_curve="flash"``. A name picks a kernel for any stack
(``StepOptions.attention_curve="fa2"``, ``"fa3"``, ``"cudnn"``). Only Hopper has these curves
(``ATTENTION_FAMILY``): no per-length table was found for A100 (the FlashAttention-2 paper's
figures were not available to read), so ``kernel_curve`` returns None there and the engine keeps
the flat ``attention_fraction``.

Blackwell's cuDNN kernel, as NVIDIA measured it
-----------------------------------------------
``data/attention_kernel_blackwell.csv``: NVIDIA/cudnn-frontend's training-attention benchmark
(``benchmark/sdpa_benchmark_training/results`` @ fb682ce7, the v1.23.0 release of 2026-04-29),
cuDNN 9.22's fused attention on GB200 and GB300, BF16, causal at head dimension 128 (Llama 3.1)
and 192 / 128 (DeepSeek-V3's MLA), and gpt-oss's 128-token sliding window at head dimension 64,
2k to 32k tokens, forward and backward (60 points). At 4k tokens GB200 runs the causal head-128
kernel at 1,408 / 1,148 TFLOP/s (forward / backward): 0.56 / 0.46 of the 2.5 PFLOP/s dense BF16
peak, where ``data/efficiency.csv`` carries H100's 0.35 to Blackwell as a judgement; the window
band runs at 161 / 182 TFLOP/s (0.06 / 0.07 of the peak: a band 128 keys wide leaves the tiles
of a 128-wide kernel mostly masked). ``blackwell_curve`` (``StepOptions.attention_blackwell``,
on by default) prices the Transformer Engine stacks' attention on Blackwell at these points,
interpolated (``blackwell_tflops``), × ``KERNEL_EFFICIENCY`` as the flat fraction is; the
engine prices a model's sliding-window layers at the band's rate and its full layers at the
causal one (``step._curve_core_times``). FP8 attention (the 2026 recipes'
``fp8_dot_product_attention``) is priced at the same table's MXFP8 series where the run sets
it (``StepOptions.fp8_attention``, off by default: ``dtype="fp8"``, ``fp8_recipe="mxfp8"``,
Blackwell); elsewhere the attention core runs at the BF16 rates. The source's per-tensor FP8
series (data_type fp8) is not transcribed. The table adds the same benchmark's earlier
gpt-oss series (@ df73764, the v1.19.0 release of 2026-03-09, cuDNN 9.19): BF16, a 1,024-token
window at head dimension 64 with 64 query / 8 KV heads, GB200 and GB300, 2k to 32k (20 points),
which stands in for the causal kernel at head dimension 96 or less (``blackwell_tflops``): at 4k
on GB200 574 / 617 TFLOP/s, 0.41 / 0.54 of the head-128 causal kernel's rates.

Context parallelism
-------------------
Under context parallelism each rank runs its queries (``s / cp`` of them) against key blocks
of the same length, one ring step (or one all-gathered block, Llama 3 §3.3.2) at a time: the
kernel runs at ``R(s / cp)``. The partial outputs are merged by their log-sum-exp after each
ring step (Liu et al. 2023, Ring Attention, arXiv:2310.01889; Brandon et al. 2023, Striped
Attention): a memory-bound pass over the output (fp32 read and write of the accumulator and the
block's output, ``RING_MERGE_BYTES`` per output element) per step, forward and backward,
``ring_merge_bytes``.

PyTorch's ring attention as torchtitan runs it
----------------------------------------------
torchtitan's context parallelism is PyTorch's ``context_parallel``
(``torch.distributed.tensor.experimental._attention``, read at pytorch/pytorch@0123248a4:
``_templated_ring_attention`` and ``_templated_ring_attention_backward``; the torch that
torchtitan's 2024-12 table ran is 1963fc8 of 2024-12-23, pytorch/torchtitan@31a17bfd
``benchmarks/llama3_h100_202412_torchtitan.md``: 0123248a4 is a later revision, and the
mechanisms below are assumed unchanged between the two, not checked), entered with
``set_rotate_method("allgather")`` (torchtitan's default ``context_parallel_rotate_method``,
pytorch/torchtitan@9dec370 ``torchtitan/config_manager.py`` and ``torchtitan/utils.py``
``create_context_parallel_ctx``) and the SDPA backends FlashAttention and memory-efficient only
(``get_train_context``). What it runs per layer on a rank holding ``x`` tokens
(``TORCH_RING_STACKS``; ``torch_ring_bytes``, ``step.torch_ring_exposure``):

* **K and V as SDPA receives them.** torchtitan's Llama repeats the KV heads to the query
  heads before calling SDPA (``torchtitan/models/llama/model.py``: ``keys = repeat_kv(xk,
  self.n_rep)``), so the ring moves and the backward accumulates K and V of all the rank's
  query heads: ``a/t`` heads, not the GQA ``g/t`` (``comm.CommOptions.cp_repeat_kv``).
* **Forward.** ``cp`` SDPA calls on load-balanced (head-tail) chunks: step 0 causal on the
  local chunks, each later step a non-causal half block; the whole K/V is all-gathered once,
  issued before step 0's kernel and waited before step 1's (``_AllGatherRotater``: "Only one
  communication will be done"), so only step 0 hides it (in eager mode; traced by
  ``torch.compile`` nothing hides it, nor the backward's sends: ``StepOptions.cp_ring_compiled``,
  "What is left" below). After each step from the second on,
  the output and its log-sum-exp are merged in fp32 (``_SDPAMerger``: ``out - sigmoid(block_lse
  - lse) * (out - block_out)``): ``cp − 1`` merges at ``RING_MERGE_BYTES[0]`` per output
  element (one fused pass, as in the rows priced: their tables say "+ torch.compile", and
  torchtitan then compiles each block with ``fullgraph=True``; compilation is opt-in, e.g.
  ``--training.compile``, off in ``train_configs/llama3_8b.toml``). A run in eager mode, such
  as NeMo AutoModel's ``enable_compile: False``, pays more that is not priced: about four
  unfused passes per merge, the ``torch.cat`` of the flattened K and V every forward step (its
  result unused after the first with the all-gather rotation), the ``torch.cat`` of dK and dV
  every backward step (about 8 more bytes per K/V element) and the ``torch.cat`` that
  ``_partial_update`` rebuilds whole tensors with.
* **Backward.** The K/V are all-gathered again (hidden by step 0's kernel), and each step's dK,
  dV are added into fp32 buffers that travel the ring by an all-to-all permutation
  (``dkv_rotater`` with ``_RotateMethod.ALL_TO_ALL``): sent after step i's kernel, waited after
  step i+1's, the last one waited after the loop (exposed). The fp32 dQ, dK, dV accumulators are
  zero-filled, updated once per step (``grad_query += grad_query_``: ``TORCH_RING_GRAD_BYTES``
  per element) and cast back to 16-bit at the end (``TORCH_RING_GRAD_FIXED_BYTES`` for the fill
  and the cast).

* **The load-balanced split's kernel shapes** (priced, as Transformer Engine's ring: "The
  ring's calls without a mask" below; FlashAttention-2's measured unmasked / causal ratio is
  about 1 at the torchtitan rows' 32k per rank, so they barely move). Each rank holds two
  chunks of ``c = s / (2·cp)`` tokens (head and tail); step 0 is one causal call over its
  ``2c`` queries and keys, each later step one non-causal call of ``2c`` queries against the
  first ``c`` keys (``i <= rank``) or the last ``c`` queries against ``2c`` keys (``i > rank``,
  ``partial``). The query-key pairs are ``(2c)²/2 + (cp − 1)·2c² = (s/cp)·s/2``, the causal
  attention's share of the rank, so the FLOPs priced are right; NVIDIA's measurement of
  FlashAttention-2 at 32k runs the unmasked forward at 349 against the causal 345 TFLOP/s (its
  curve, 376 against 347).

Not priced, with the reason (checked against the same revision, 0123248a4; the torch the table
names is pytorch/pytorch@1963fc83a1c3, not read: see above):

* **FlashAttention-2's per-call backward passes.** Each backward call runs ``dot(dO, O)`` (read
  2 + 2 bytes per query element) and zero-fills and converts a fp32 dQ buffer (4, then 4 + 2)
  (Dao-AILab/flash-attention@0251105a ``csrc/flash_attn/flash_api.cpp`` ``mha_bwd``,
  ``src/flash_bwd_launch_template.h``: ``flash_bwd_dot_do_o_kernel``, ``convert_dQ``): the curve
  holds one call, the ring makes ``cp``; the other ``cp − 1`` (half of them on half the
  queries) cost about 14 bytes per query element each, under 0.3 % of the CP 4 row's step.
* **What is left.** Between CP 2 and CP 8 the rank's kernel calls have the same shapes (32k
  causal, then 32k × 16k non-causal) and only their number grows, yet the published step grows
  faster than the calls: 1,071 TPS/GPU at CP 4 where a step of ``b + a·cp`` seconds through
  the CP 1 and CP 2 rows (3,890 and 2,540 TPS/GPU, 32,768 tokens per GPU in all four) gives
  about 1,500. No term of the ring read here (the merges, fp32 accumulators and exchanges with
  their recomputation under full checkpointing, priced above; the eager ``torch.cat`` copies,
  not priced) is within a factor of ten of that gap; its cause is not modelled. Checked since,
  none closes it: (1) the revision read (pytorch/pytorch@0123248a4; the rows' own
  1963fc83a1c3 could not be read here) runs this ring: load
  balancing on by default (``_RoundRobinLoadBalancer``, head-tail), the all-gather rotation, the
  dK/dV all-to-all, the same three kernel branches; torchtitan@9dec370 sets only the rotation
  (``create_context_parallel_ctx``) and the backends (``get_train_context``). (2) The rows
  compile each block (``apply_compile``, ``fullgraph=True``), and a traced functional collective
  waits at once (pytorch/pytorch@fff02e67db38 ``torch/distributed/_functional_collectives.py``:
  under compilation "wait_tensor() op is immediately called", eager "at the time of first use";
  "Compiled tracing currently relies on the compiler to perform this optimization", which
  Inductor leaves off by default: ``reorder_for_compute_comm_overlap = False``,
  pytorch/pytorch@a112bb81b880 ``torch/_inductor/config.py``): with every exchange
  of the ring exposed the engine gave CP 2 −4.2 %, CP 4 +26.4 %, CP 8 +30.9 % at the flat
  attention fraction (eager ring: −2.8, +29.4, +34.8 %), a tenth of the gap; −9.7 %, +18.2 %,
  +21.9 % at FlashAttention-2's measured curve (``StepOptions.attention_curve``, since); priced
  since for these rows
  (``StepOptions.cp_ring_compiled``, ``step_validation.CP_COMPILED_SETS``). (3) The eager
  copies at the HBM's 2.4 TB/s, every pass unfused: about 2 s at CP 8 against a 15 s gap.
  (4) The published steps themselves (8.42, 12.90, 30.60, 59.80 s): the line through CP 4
  and CP 8, 1.40 + 7.30·cp s, gives CP 1 8.70 s (3 % over) and CP 2 16.0 s (24 % over): no
  cost linear in ``cp`` fits all four; the rows read as a step between CP 2 and CP 4, not a
  per-call cost, and the table's memory (83.9-84.5 GiB at every CP) does not tell them apart.

The ring's calls without a mask
------------------------------
Both rings run a rank's attention as one causal call (step 0, ``1/cp`` of its FLOPs) and
``cp − 1`` calls without a mask (``ring_call_shares``), and a kernel may run an unmasked call
faster than a causal one of the same length (no tiles on the diagonal half masked, no uneven
work between the query blocks), though not always: FlashAttention-2's backward measured 1.5%
slower unmasked at 32k and 0.4% at 64k, and the ratio is taken as measured, not clamped at 1.
NVIDIA measured both with the same kernels at the
rows' lengths (``ATTENTION_CHECKS_CSV``, cuDNN 9.1.0 and PyTorch SDPA's FlashAttention-2, 4k to
64k tokens): cuDNN's causal forward runs at 0.83 of its unmasked rate at 4k and 0.94 at 32k,
FlashAttention-2's at 0.89 and 0.99 (``mask_rate_ratio``). ``ring_unmasked_factors`` prices
each pass of the ring as ``1/cp`` at the causal rate and ``(cp − 1)/cp`` at the unmasked one,
per unit of the causal rate the engine's attention time is priced at (the flat fraction or the
causal curve at ``s / cp``): ``StepOptions.ring_unmasked``, on by default
(``accuracy.ring_unmasked_comparison``). The ratio is the measurement's, not the curves': the
curves' form ``s / (s + s_half)`` holds the causal / unmasked ratio at its plateau's (cuDNN
0.90, FlashAttention-2 0.93) beyond the paper's 16k, where the measurement rises toward 1.
Kernels NVIDIA did not measure so (FlashAttention-1 and -3) keep one rate.

What the rows imply about the ring's calls (a reading; no constant is taken from it)
-----------------------------------------------------------------------------------
``ring_call_shares``: of a rank's attention FLOPs the causal step-0 call runs ``1/cp`` and the
non-causal calls ``(cp − 1)/cp``, in PyTorch's ring and in Transformer Engine's alike.
``ring_time_split`` splits the attention time a family of published rows leaves (their step
less the engine's other terms, per unit of the engine's attention time) into the two kinds of
call by least squares; ``benchmarks/validate_mfu.py`` item 17 prints it with every long row's
time parts. NeMo 24.03's Transformer Engine rows (CP 2 to 32, 32k tokens per rank, all splits)
read, with every call at the engine's flat rate, as a causal call at that rate and non-causal
calls about a quarter faster, more than cuDNN's measured non-causal / causal ratio at that
length (about 1.1): the flat fraction prices the causal call, and the ring's unmasked calls
are what the rows' growing pessimism with CP asks for (priced since, at the measured ratio:
"The ring's calls without a mask"; it explains about half of the pessimism). torchtitan's three
CP rows read the other way round (non-causal calls several times slower than the causal one),
which no kernel measurement supports: FlashAttention-2's measured ratio is about 1 at 32k, so
the mask shape neither explains them nor moves them (item 17 prints the reading on the engine
with every ring call at the causal rate).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.catalog import DATA_DIR, load_accelerator
from ..core.units import as_array, as_scalar, as_flag

#: The kernel table (``data/attention_kernel_benchmarks.csv``).
ATTENTION_BENCHMARKS_CSV = DATA_DIR / "attention_kernel_benchmarks.csv"

#: Kernels with curves.
KERNELS = ("fa2", "fa3", "cudnn")

#: A stack's FlashAttention version (``data/stacks.csv``) -> the kernel's curve.
KERNEL_OF_FLASH_VERSION = {"2": "fa2", "3": "fa3"}

#: Stacks (``data/stacks.csv`` names) whose attention kernel is their own, with no published
#: rate: no measured curve is a reading of it, and ``StepOptions.attention_curve="flash"`` prices
#: it at the flat ``attention_fraction`` (the judgement for FlashAttention-class fused attention
#: of unmeasured make; module docstring, "Which kernel"). DeepSeek-AI's HAI-LLM: the DeepSeek-V3
#: Technical Report (arXiv:2412.19437, §3.2-3.3) names no attention kernel; the DeepSeek-V2
#: report, on the same framework, says "MLA is also optimized based on an improved version of
#: FlashAttention-2" (arXiv:2405.04434, §3.1.3): a modified FlashAttention-2 for MLA's head
#: dimensions whose speed is not published, not stock FlashAttention-2. A rule written after the
#: curve was seen to move this stack's one validation row (DeepSeek-V3's H800 run) below the
#: whole-run average its steady state must exceed.
UNMEASURED_KERNEL_STACKS = frozenset({"deepseek-hai-llm-2024"})

#: Stacks (``data/stacks.csv`` names) whose attention layer is Transformer Engine's
#: ``DotProductAttention``, which runs cuDNN's fused attention on Hopper (module docstring,
#: "Which kernel").
TE_ATTENTION_STACKS = frozenset({"megatron-core-2024", "megatron-core-2025", "megatron-core-2026",
                                 "nemo-automodel-2025"})

#: Stacks whose context parallelism is Transformer Engine's ring, ``AttnFuncWithCPAndKVP2P``
#: (NVIDIA/TransformerEngine ``transformer_engine/pytorch/attention/dot_product_attention/
#: context_parallel.py``: "Exchange KV between CP ranks with P2P in ring topology. Split attention
#: compute into multiple steps, and overlap current-step compute with next-step communication"),
#: the CP of Transformer Engine's ``DotProductAttention`` (``TE_ATTENTION_STACKS``; Megatron-Core's
#: ``cp_comm_type`` default, "p2p"). The other stacks' CP is priced as one all-gather of K and V
#: before the attention, exposed (Llama 3, arXiv:2407.21783 §3.3.2; ``step.cp_exposure``).
#: Added after the held-out NeMo long-sequence rows (Megatron-Core, CP 2 to 32) were seen 10-33 %
#: pessimistic with the exchange exposed; no constant is fitted (the overlap is the stack's
#: documented behaviour, priced with ``comm.OVERLAP_SLOWDOWN``, measured elsewhere).
CP_P2P_STACKS = TE_ATTENTION_STACKS

#: Accelerator catalogue name -> the benchmarked device of its generation (same SMs and clocks:
#: H800 and H200 share the H100 SXM's compute; the power-capped H100-96GB-500W runs the curve's
#: fractions of its own, lower, peak).
ATTENTION_FAMILY = {"H100-SXM": "H100-SXM", "H800": "H100-SXM", "H200": "H100-SXM",
                    "H100-96GB-500W": "H100-SXM"}

#: Head dimensions with measured series.
HEAD_DIMS = (64, 128)

#: Bytes per output element of one ring step's log-sum-exp merge: read the fp32 accumulator and
#: the step's 16-bit output, write the fp32 accumulator (4 + 2 + 4), plus the row statistics
#: (negligible per element). Forward; the backward re-reads the output and its gradient once
#: more per step (2 + 2). Bytes counted as written; no kernel measurement.
RING_MERGE_BYTES = (10.0, 4.0)

#: Stacks whose context parallelism is PyTorch's ``context_parallel`` with the all-gather
#: rotation, as torchtitan runs it (module docstring, "PyTorch's ring attention as torchtitan
#: runs it"; ``StepOptions.cp_overlap="torch_ring"``, the "auto" of these stacks). Added after
#: the held-out torchtitan CP rows were seen (CP 4: +33.5 %); no constant is fitted.
TORCH_RING_STACKS = frozenset({"pytorch-fsdp2-2024"})

#: Bytes per element of dQ, dK, dV per ring step of PyTorch's ring-attention backward: the fp32
#: accumulator read (4) with the step's 16-bit gradient (2), written back (4)
#: (``_templated_ring_attention_backward``: ``grad_query += grad_query_``, ``grad_key +=
#: grad_key_``; accumulators in ``float32``, ``_ContextParallelOptions.convert_to_f32 = True``).
#: Counted as written; no kernel measurement.
TORCH_RING_GRAD_BYTES = 10.0

#: Bytes per element of dQ, dK, dV once per layer in the same backward: the fp32 zero fill of
#: the accumulators (``torch.zeros_like(query, dtype=accum_dtype)``: 4) and the final cast to
#: 16-bit (``grad_query.to(query.dtype)``: read 4, write 2). Counted as written.
TORCH_RING_GRAD_FIXED_BYTES = 10.0


@dataclass(frozen=True)
class AttentionCurve:
    """``R(s) = r_inf_tflops · s / (s + s_half)`` for one series (module docstring)."""

    r_inf_tflops: float
    s_half: float


#: (kernel, pass, causal, head_dim) -> curve. Re-derived by ``fit_curve`` (a test checks it).
ATTENTION_CURVES = {
    ('fa2', 'forward', False, 128): AttentionCurve(377.2, 105.0),
    ('fa2', 'forward', True, 128): AttentionCurve(350.8, 405.0),
    ('fa2', 'forward', False, 64): AttentionCurve(327.4, 80.0),
    ('fa2', 'backward', False, 128): AttentionCurve(329.3, 275.0),
    ('fa2', 'backward', False, 64): AttentionCurve(295.7, 250.0),
    ('cudnn', 'forward', False, 128): AttentionCurve(620.1, 110.0),
    ('cudnn', 'forward', True, 128): AttentionCurve(560.5, 385.0),
    ('cudnn', 'forward', False, 64): AttentionCurve(418.2, 125.0),
    ('cudnn', 'backward', False, 128): AttentionCurve(541.6, 375.0),
    ('cudnn', 'backward', False, 64): AttentionCurve(451.6, 340.0),
    ('fa3', 'forward', False, 128): AttentionCurve(669.6, 210.0),
    ('fa3', 'forward', True, 128): AttentionCurve(655.6, 605.0),
    ('fa3', 'forward', False, 64): AttentionCurve(509.4, 275.0),
    ('fa3', 'backward', False, 128): AttentionCurve(590.7, 425.0),
    ('fa3', 'backward', False, 64): AttentionCurve(496.3, 405.0),
}

_S_HALF_GRID = np.arange(0.0, 4000.0 + 1e-9, 5.0)


def load_attention_benchmarks() -> pd.DataFrame:
    """The kernel table, one row per (accelerator, kernel, dtype, pass, causal, head_dim,
    seq_len) with the measured ``tflops`` and its ``source``."""
    df = pd.read_csv(ATTENTION_BENCHMARKS_CSV)
    df["causal"] = df["causal"].astype(str).str.lower() == "true"
    return df


def _series(kernel, pass_, causal, head_dim) -> pd.DataFrame:
    df = load_attention_benchmarks()
    d = df[(df.kernel == kernel) & (df["pass"] == pass_) & (df.causal == causal)
           & (df.head_dim == head_dim)]
    if d.empty:
        raise ValueError(f"no attention measurements for kernel={kernel!r}, pass={pass_!r}, "
                         f"causal={causal!r}, head_dim={head_dim!r}")
    return d


def fit_curve(kernel: str, pass_: str, causal: bool, head_dim: int) -> tuple[float, float]:
    """Re-derive ``(r_inf_tflops, s_half)`` of one series: the grid ``s_half`` minimising
    ``Σ (ln R_model − ln R_measured)²``, ``ln R_inf`` the mean of
    ``ln R_measured − ln(s / (s + s_half))`` (module docstring)."""
    d = _series(kernel, pass_, causal, head_dim)
    s, r = d.seq_len.to_numpy(float), d.tflops.to_numpy(float)
    shape = np.log(s[None, :] / (s[None, :] + _S_HALF_GRID[:, None]))
    ln_rinf = (np.log(r)[None, :] - shape).mean(axis=1)
    loss = ((ln_rinf[:, None] + shape - np.log(r)[None, :]) ** 2).sum(axis=1)
    i = int(loss.argmin())
    return float(np.exp(ln_rinf[i])), float(_S_HALF_GRID[i])


def _nearest_head_dim(head_dim) -> int:
    d = float(head_dim)
    return min(HEAD_DIMS, key=lambda h: abs(np.log(d / h)))


def _tflops(kernel, pass_, causal, head_dim, seq_len):
    """Curve throughput (TFLOP/s) with the stated stand-ins for unmeasured series."""
    def at(key):
        cv = ATTENTION_CURVES[key]
        return cv.r_inf_tflops * seq_len / (seq_len + cv.s_half)

    d = _nearest_head_dim(head_dim)
    key = (kernel, pass_, bool(causal), d)
    if key in ATTENTION_CURVES:
        return at(key)
    if causal:
        # the causal loss (diagonal blocks) taken from the forward at head dimension 128
        ratio = at((kernel, "forward", True, 128)) / at((kernel, "forward", False, 128))
        return at((kernel, pass_, False, d)) * ratio
    raise ValueError(f"no attention curve for kernel={kernel!r}, pass={pass_!r}, "
                     f"head_dim={head_dim!r}")


def attention_tflops(kernel: str, pass_: str, causal: bool, head_dim, seq_len):
    """Achieved TFLOP/s of ``kernel`` on an H100 SXM (BF16) for one ``pass_`` ("forward",
    "backward") at ``seq_len`` (array-like, > 0), FLOPs on the papers' basis (module
    docstring).

    Raises
    ------
    ValueError
        An unknown kernel or pass, a ``causal`` not True or False, a non-positive head dimension
        or sequence length.
    """
    if kernel not in KERNELS:
        raise ValueError(f"kernel={kernel!r} must be one of {KERNELS}")
    if pass_ not in ("forward", "backward"):
        raise ValueError(f"pass_={pass_!r} must be 'forward' or 'backward'")
    causal = as_flag(causal, "causal")
    as_array(head_dim, "head_dim", positive=True)
    s = as_array(seq_len, "seq_len", positive=True)
    return _tflops(kernel, pass_, causal, head_dim, s)


@dataclass(frozen=True)
class KernelCurve:
    """One accelerator's attention kernel as the engine uses it: ``kernel``, the benchmarked
    device's dense BF16 peak ``peak_tflops`` (the curve's fractions are of it) and ``scale``
    (the sustained share of the burst rate, ``options.KERNEL_EFFICIENCY``, applied to the flat
    ``attention_fraction`` it replaces, × a pilot's correction where one is carried:
    ``StepOptions._attention_scale``). A sustained fraction is at most 1: no scale takes a
    BF16 kernel past the dense BF16 peak (``calibrate.scaled_efficiency`` caps the flat burst
    fractions at 1 before the sustained share, a tighter cap)."""

    kernel: str
    peak_tflops: float
    scale: float = 1.0

    def fractions(self, seq_len, head_dim, causal: bool = True, window: int = 0):
        """Sustained (forward, backward) fractions of the dense BF16 peak at ``seq_len``.
        ``window`` (a sliding window) is not read: the H100 table has no window series, so a
        window layer runs at the causal rate at ``seq_len``."""
        f = [np.minimum(self.scale * _tflops(self.kernel, p, causal, head_dim, seq_len)
                        / self.peak_tflops, 1.0) for p in ("forward", "backward")]
        return f[0], f[1]


def kernel_curve(accelerator: str, kernel: str, scale: float = 1.0) -> KernelCurve | None:
    """The attention curve of ``kernel`` on ``accelerator`` (catalogue name), or None where no
    per-length table exists (Ampere, Blackwell, AMD: the engine keeps the flat fraction)."""
    if kernel not in KERNELS:
        raise ValueError(f"kernel={kernel!r} must be one of {KERNELS}")
    dev = ATTENTION_FAMILY.get(str(accelerator))
    if dev is None:
        return None
    return KernelCurve(kernel, load_accelerator(dev).peak_flops_per_s("bf16") / 1e12, scale)


def stack_kernel(flash_version: str, stack: str | None = None) -> str | None:
    """The attention kernel a stack runs (module docstring, "Which kernel"): ``"cudnn"`` for a
    stack in ``TE_ATTENTION_STACKS`` that uses FlashAttention-class fused attention, else its
    FlashAttention version's (``KERNEL_OF_FLASH_VERSION``); None: no fused attention or no curve
    for that version (none, FlashAttention-1)."""
    kernel = KERNEL_OF_FLASH_VERSION.get(str(flash_version))
    if kernel is not None and stack is not None and str(stack) in TE_ATTENTION_STACKS:
        return "cudnn"
    return kernel


def _cp_size(cp) -> np.ndarray:
    """``cp`` as a float array, each a whole number >= 1 (else a ValueError naming it)."""
    a = as_array(cp, "cp", positive=True, integer=True)
    if np.any(a < 1.0):
        raise ValueError(f"cp={cp!r} must be >= 1 (the context-parallel size)")
    return a


def ring_merge_bytes(out_elements, cp):
    """HBM bytes of the ring-attention merges of one layer on one rank (forward, backward):
    ``(cp − 1)`` merges of the rank's output (``out_elements`` = its tokens × heads × d_v) at
    ``RING_MERGE_BYTES`` per element (module docstring); 0 without context parallelism.

    Raises
    ------
    ValueError
        A negative ``out_elements``; a ``cp`` not a whole number >= 1.
    """
    out_elements = as_array(out_elements, "out_elements", nonnegative=True)
    steps = _cp_size(cp) - 1.0
    return (RING_MERGE_BYTES[0] * steps * out_elements,
            RING_MERGE_BYTES[1] * steps * out_elements)


def torch_ring_bytes(q_elements, kv_elements, cp):
    """HBM bytes of PyTorch's ring attention around its kernels on one rank and layer
    (forward, backward) (module docstring, "PyTorch's ring attention as torchtitan runs it")::

        forward  = (cp − 1) · RING_MERGE_BYTES[0] · q
        backward = (cp · TORCH_RING_GRAD_BYTES + TORCH_RING_GRAD_FIXED_BYTES) · (q + kv)

    ``q_elements``: the rank's query (= output) elements, tokens × heads × head dim;
    ``kv_elements``: its K and V elements as SDPA receives them (repeated heads); 0 without
    context parallelism (``cp`` = 1: no ring).

    Raises
    ------
    ValueError
        A negative element count; a ``cp`` not a whole number >= 1.
    """
    q_elements = as_array(q_elements, "q_elements", nonnegative=True)
    kv_elements = as_array(kv_elements, "kv_elements", nonnegative=True)
    cp = _cp_size(cp)
    ring = cp > 1.0
    fwd = RING_MERGE_BYTES[0] * np.maximum(cp - 1.0, 0.0) * q_elements
    bwd = (cp * TORCH_RING_GRAD_BYTES + TORCH_RING_GRAD_FIXED_BYTES) * (q_elements + kv_elements)
    return np.where(ring, fwd, 0.0), np.where(ring, bwd, 0.0)


def ring_call_shares(cp):
    """Shares of one rank's attention FLOPs that the load-balanced causal ring runs in its
    causal call and in its non-causal calls, ``(causal, non_causal)``::

        causal = 1 / cp,   non_causal = (cp − 1) / cp

    The rank holds two chunks of ``c = s / (2·cp)`` tokens (head and tail). Step 0 is one causal
    call over its ``2c`` queries and keys, ``(2c)²/2 = 2c²`` query-key pairs (up to the
    diagonal's ``c``: exactly ``2c² + c``); each of the other ``cp − 1`` steps one call without a
    mask of ``2c`` queries against ``c`` keys, or ``c`` queries against ``2c`` keys, ``2c²``
    pairs: ``2c²·cp`` in all, the causal call ``1/cp`` of them (exactly
    ``(2c² + c) / (2c²·cp + c)``, within ``1/(2c)`` of it). Read in PyTorch's ``_templated_ring_attention`` (pytorch/pytorch@0123248a4
    ``torch/distributed/tensor/experimental/_attention.py``: ``_is_causal_behavior`` gives
    ``IS_CAUSAL`` at step 0 and ``NOT_IS_CAUSAL`` after it under ``enable_load_balance``, the
    ``i <= rank`` and ``else`` branches halve the keys or the queries) and in Transformer
    Engine's ring (NVIDIA/TransformerEngine v1.4 @ 0fbc76af37
    ``transformer_engine/pytorch/attention.py`` ``AttnFuncWithCP.forward``: ``fused_attn_fwd``
    with ``attn_mask_type="causal"`` at ``i == 0``, ``"no_mask"`` with ``max_seqlen_k//2`` for
    ``i <= rank`` and with the second half of the queries otherwise; its backward the same).
    ``cp`` = 1: one causal call, ``(1, 0)``.

    Raises
    ------
    ValueError
        ``cp`` below 1.
    """
    cp = as_array(cp, "cp", positive=True)
    if np.any(cp < 1):
        raise ValueError(f"cp={cp!r} must be at least 1 (ranks in the ring)")
    return 1.0 / cp, (cp - 1.0) / cp


#: Kernels whose causal and unmasked rates NVIDIA measured side by side at 4k to 64k tokens
#: (``ATTENTION_CHECKS_CSV``: cuDNN 9.1.0's fused attention and PyTorch SDPA's
#: FlashAttention-2), the ones ``ring_unmasked_factors`` prices.
RING_MASK_KERNELS = ("cudnn", "fa2")


@functools.lru_cache(maxsize=1)
def _mask_ratio_table() -> pd.DataFrame:
    """``ATTENTION_CHECKS_CSV`` as causal / unmasked rate per (kernel, pass, head_dim, seq_len)."""
    d = pd.read_csv(ATTENTION_CHECKS_CSV)
    d["causal"] = d["causal"].astype(str).str.lower() == "true"
    t = d.pivot_table(index=["kernel", "pass", "head_dim", "seq_len"], columns="causal",
                      values="tflops")
    return (t[True] / t[False]).rename("ratio").reset_index()


def mask_rate_ratio(kernel: str, pass_: str, seq_len) -> np.ndarray:
    """The causal call's rate over the unmasked call's, same kernel, pass and length, as NVIDIA
    measured them (``ATTENTION_CHECKS_CSV``: NVIDIA/cudnn-frontend ``benchmark_results.csv`` @
    b740542, cuDNN 9.1.0 and PyTorch SDPA's FlashAttention-2, BF16, head dimension 128, 4k to
    64k tokens, FLOPs of the causal call halved): linear in ``log2(seq_len)`` between the
    measured lengths, the end value beyond them. cuDNN forward: 0.83 at 4k, 0.91 at 16k, 0.94
    at 32k and 64k; FlashAttention-2 0.89, 0.91, 0.99, 0.97 (its backward 0.87 to 1.02: at
    32k and beyond the mask costs it nothing measurable). The FlashAttention-3 paper's bars stop
    at 16k, where the curves agree with this table (cuDNN 0.89 against 0.91); beyond it their
    form ``s / (s + s_half)`` holds the ratio at its plateau's (0.90) where the measurement
    rises toward 1, so the ratio is taken from the measurement.

    Raises
    ------
    ValueError
        A kernel other than ``RING_MASK_KERNELS``, an unknown pass, a non-positive length.
    """
    if kernel not in RING_MASK_KERNELS:
        raise ValueError(f"kernel={kernel!r} must be one of {RING_MASK_KERNELS} (the kernels "
                         f"measured with and without a causal mask, {ATTENTION_CHECKS_CSV.name})")
    if pass_ not in ("forward", "backward"):
        raise ValueError(f"pass_={pass_!r} must be 'forward' or 'backward'")
    s = as_array(seq_len, "seq_len", positive=True)
    log2_lengths, ratios = _mask_ratio_points(kernel, pass_)
    return np.interp(np.log2(s), log2_lengths, ratios)


@functools.lru_cache(maxsize=None)
def _mask_ratio_points(kernel: str, pass_: str) -> tuple:
    """``mask_rate_ratio``'s measured points of one kernel and pass, head dimension 128:
    ``(log2(seq_len), ratio)`` sorted by length, read once per process."""
    t = _mask_ratio_table()
    t = t[(t["kernel"] == kernel) & (t["pass"] == pass_) & (t["head_dim"] == 128)]
    t = t.sort_values("seq_len")
    lengths, ratios = np.log2(t["seq_len"].to_numpy(float)), t["ratio"].to_numpy()
    lengths.flags.writeable = ratios.flags.writeable = False
    return lengths, ratios


def ring_unmasked_factors(kernel: str, s_rank, cp):
    """Time of a rank's ring attention with its non-causal calls at the kernel's unmasked rate,
    per unit of the same FLOPs all at the causal rate: ``(forward, backward)``::

        u = 1/cp + (cp − 1)/cp · R_causal(s/cp) / R_unmasked(s/cp)

    per pass (``ring_call_shares``: the causal step-0 call runs ``1/cp`` of the rank's FLOPs, the
    ``cp − 1`` calls without a mask the rest; Transformer Engine's ring, NVIDIA/
    TransformerEngine v1.4 @ 0fbc76af37 ``AttnFuncWithCP``, ``attn_mask_type="no_mask"`` after
    step 0; PyTorch's, pytorch/pytorch@0123248a4 ``_templated_ring_attention``,
    ``is_causal=False`` after step 0), the ratio ``mask_rate_ratio`` (NVIDIA's measurement of
    the same kernel with and without the mask) at the rank's length ``s_rank`` = ``s / cp`` (a
    non-causal call is ``s/cp`` queries against ``s/(2·cp)`` keys or the reverse). The
    measurement's head dimension is 128; another head dimension takes its ratio. 1 at ``cp`` =
    1 (one causal call).

    Raises
    ------
    ValueError
        A kernel other than ``RING_MASK_KERNELS``, a non-positive length, ``cp`` below 1.
    """
    causal, non_causal = ring_call_shares(cp)
    return tuple(causal + non_causal * mask_rate_ratio(kernel, p, s_rank)
                 for p in ("forward", "backward"))


def ring_time_split(attention_s, cp):
    """A reading, not a model: the least-squares split of per-row attention times of one run
    family into the time its causal calls and its non-causal calls would take if each row's
    attention were all one kind, ``(t_causal, t_non_causal)``, from::

        attention_s[i] ≈ t_causal · 1/cp[i] + t_non_causal · (cp[i] − 1)/cp[i]

    (``ring_call_shares``), ``attention_s`` per unit of attention work: each row's time
    divided by what the same FLOPs take at one rate (the engine's priced attention time), so
    rows of different lengths compare. ``t_causal / t_non_causal`` is the rate of the non-causal calls over the
    causal call's, to set beside a kernel's measured ratio (``fwd_bwd_tflops`` without and with
    the mask). Needs two distinct ``cp`` values; ``attention_s`` is what a published step time
    leaves for the attention once the engine's other terms are taken off
    (``benchmarks/validate_mfu.py`` item 17).

    Raises
    ------
    ValueError
        Lengths differ, fewer than two distinct ``cp``, or a non-positive time.
    """
    t = as_array(attention_s, "attention_s", positive=True)
    cp = np.asarray(cp, float)
    if t.shape != cp.shape:
        raise ValueError(f"attention_s and cp must have the same length: {t.shape} != {cp.shape}")
    if len(np.unique(cp)) < 2:
        raise ValueError(f"cp={cp.tolist()!r} must hold at least two distinct values")
    a = np.column_stack(ring_call_shares(cp))
    (t_c, t_n), *_ = np.linalg.lstsq(a, t, rcond=None)
    return float(t_c), float(t_n)


def _beside_curve(d: pd.DataFrame) -> pd.DataFrame:
    """Measured kernel points ``d`` beside the curve: ``measured`` and ``predicted`` TFLOP/s and
    the relative ``error`` (predicted / measured − 1), one row per point."""
    pred = [float(_tflops(k, p, c, h, float(s))) for k, p, c, h, s in
            zip(d.kernel, d["pass"], d.causal, d.head_dim, d.seq_len)]
    out = d[["accelerator", "kernel", "pass", "causal", "head_dim", "seq_len"]].copy()
    out["measured"] = d.tflops.astype(float)
    out["predicted"] = pred
    out["error"] = out.predicted / out.measured - 1.0
    return out


def reproduce() -> pd.DataFrame:
    """The kernel table beside the curve: ``measured`` and ``predicted`` TFLOP/s and the
    relative ``error`` (predicted / measured − 1), one row per point."""
    d = load_attention_benchmarks()
    return _beside_curve(d)


#: The independent measurements the curves are checked against (module docstring).
ATTENTION_CHECKS_CSV = DATA_DIR / "attention_kernel_checks.csv"


def check_curves() -> pd.DataFrame:
    """``data/attention_kernel_checks.csv`` (NVIDIA/cudnn-frontend's cuDNN 9.1.0 and PyTorch
    SDPA measurement, 4k to 64k tokens) against the curves fitted to the FlashAttention-3
    paper's bars: ``measured`` and ``predicted`` TFLOP/s and ``error`` (predicted / measured −
    1), one row per point; the curves take the measured device's generation
    (``ATTENTION_FAMILY``: H200 → H100 SXM) and nothing is fitted to these points."""
    d = pd.read_csv(ATTENTION_CHECKS_CSV)
    d["causal"] = d["causal"].astype(str).str.lower() == "true"
    unknown = sorted(set(d["accelerator"]) - set(ATTENTION_FAMILY))
    if unknown:
        raise ValueError(f"accelerator={unknown[0]!r} in {ATTENTION_CHECKS_CSV.name} has no "
                         f"attention curve (must be one of {sorted(ATTENTION_FAMILY)})")
    return _beside_curve(d)


#: FlashAttention-1 (CUDA, ``fa1``) and FlashAttention-2 (``fa2``) forward + backward on an A100
#: 80GB SXM4, FP16 (the figure states no precision; the repository's script for these
#: benchmarks, Dao-AILab/flash-attention@60499abc ``benchmarks/benchmark_flash_attention.py``
#: l. 72, sets ``dtype = torch.float16``; the A100's dense FP16 and BF16 peaks are both 312
#: TFLOP/s), causal mask, head dimension 64: TFLOP/s by sequence length (Dao 2023,
#: FlashAttention-2, arXiv:2307.08691, Fig. 4(c), "Attention forward + backward speed (A100 80GB
#: SXM4)", batch × sequence length = 16k tokens, hidden 2048; FLOPs on this module's basis, §4.1:
#: ``4·s²·d·heads``, halved with the causal mask, × 3.5 forward + backward). The values are the
#: bar labels as read from the figure's vector text (the e-print's
#: ``figs/flash2_causal_True_hdim_64_fwd_bwd_speed.pdf``) in two transcriptions that agree on
#: both series. No curve is fitted from it (six points, one head dimension, one mask): the
#: engine keeps ``data/flash_attention.csv``'s flat fractions on Ampere, FlashAttention-1's bars
#: giving only the shape of its length curve (``FA1_LENGTH_BARS``). The figure's "FlashAttention Triton" series is OpenAI Triton's
#: ``triton.ops.flash_attention`` (Dao-AILab/flash-attention@60499abc
#: ``benchmarks/benchmark_flash_attention.py``), not the FlashAttention-1-class Triton kernel
#: llm-foundry ran (``flash_attn_triton.py``: "Overall Triton forward + backward is slightly
#: slower than CUDA forward + backward"), so it is not kept.
A100_FWD_BWD_CAUSAL_HD64 = {
    "fa1": {512: 58.0, 1024: 70.0, 2048: 77.0, 4096: 87.0, 8192: 92.0, 16384: 97.0},
    "fa2": {512: 88.0, 1024: 119.0, 2048: 140.0, 4096: 156.0, 8192: 165.0, 16384: 171.0},
}


#: The same figure's panel (d), head dimension 128, causal mask, A100 80GB SXM4 (Dao 2023,
#: FlashAttention-2, arXiv:2307.08691, Fig. 4(d); the bar labels as drawn in
#: Dao-AILab/flash-attention@4f285b35 ``assets/flash2_a100_fwd_bwd_benchmark.png``, the figure
#: the README shows, whose panel (c) carries ``A100_FWD_BWD_CAUSAL_HD64``'s values), TFLOP/s on
#: the same basis. FlashAttention-1 runs slower at head dimension 128 than at 64 (83 against 97
#: at 16k); the figure's OpenAI Triton kernel is 50-80 (not kept, as above). The long-context
#: rows' check (``benchmarks/validate_mfu.py`` item 17) and the shape of FlashAttention-1's length
#: curve at head dimension 128 (``FA1_LENGTH_BARS``); no curve is fitted.
A100_FWD_BWD_CAUSAL_HD128 = {
    "fa1": {512: 55.0, 1024: 62.0, 2048: 69.0, 4096: 76.0, 8192: 80.0, 16384: 83.0},
    "fa2": {512: 99.0, 1024: 133.0, 2048: 155.0, 4096: 173.0, 8192: 182.0, 16384: 189.0},
}


#: FlashAttention-1 (CUDA) and FlashAttention-2 forward + backward on an H100 80GB SXM5, causal
#: mask, head dimension 128, TFLOP/s on the same basis (Dao 2023, arXiv:2307.08691 §4.1, Fig. 7,
#: panel (d); the bar labels as drawn in Dao-AILab/flash-attention@4f285b35
#: ``assets/flash2_h100_fwd_bwd_benchmark.png``; FlashAttention-1's bar at 2k, 108, is below its
#: 1k bar, 109, as drawn). The figure has no Triton series. A record for the long-context rows'
#: check (``benchmarks/validate_mfu.py`` item 17; ``data/flash_attention.csv``'s FlashAttention-1
#: Hopper note quotes the same bars; ``FA1_LENGTH_BARS`` takes their shape); no curve is fitted.
H100_FWD_BWD_CAUSAL_HD128 = {
    "fa1": {512: 98.0, 1024: 109.0, 2048: 108.0, 4096: 126.0, 8192: 135.0, 16384: 137.0},
    "fa2": {512: 163.0, 1024: 221.0, 2048: 265.0, 4096: 294.0, 8192: 308.0, 16384: 328.0},
}


#: The same figure's panel (c): FlashAttention-1 (CUDA) and FlashAttention-2 forward + backward on
#: an H100 80GB SXM5, causal mask, head dimension 64, TFLOP/s on the same basis (Dao 2023,
#: arXiv:2307.08691 §4.1, Fig. 7(c); the bar labels as drawn in Dao-AILab/flash-attention@4f285b35
#: ``assets/flash2_h100_fwd_bwd_benchmark.png``, its lower-left panel;
#: ``data/flash_attention.csv``'s FlashAttention-1 Hopper note quotes the range, causal 104-156 at
#: head dimension 64).
H100_FWD_BWD_CAUSAL_HD64 = {
    "fa1": {512: 104.0, 1024: 123.0, 2048: 136.0, 4096: 138.0, 8192: 149.0, 16384: 156.0},
    "fa2": {512: 141.0, 1024: 192.0, 2048: 232.0, 4096: 257.0, 8192: 273.0, 16384: 284.0},
}


#: The FlashAttention-1-class length curve (``StepOptions.fa1_length``): FlashAttention-1's
#: forward + backward bars by sequence length, causal, on each accelerator it prices, by head
#: dimension (64 and 128, the two the paper measured; a row takes the series of the nearer in
#: log, ``fa1_length_bars``, as the H100 kernel curves do): A100, Dao 2023 Fig. 4(c) and 4(d)
#: (``A100_FWD_BWD_CAUSAL_HD64`` / ``_HD128``); the H100 family, Fig. 7(c) and 7(d)
#: (``H100_FWD_BWD_CAUSAL_HD64`` / ``_HD128``). Only their shape is used: the kernel
#: llm-foundry's 2023-10 benchmark ran is the Triton kernel
#: (``llmfoundry/models/layers/flash_attn_triton.py`` @ v0.3.0, "Copied from
#: HazyResearch/flash-attention ... flash_attn_triton.py"), for which no rate by length is
#: published, so the CUDA kernel's shape at the row's own head dimension stands in for it.
FA1_LENGTH_BARS = {
    **{a: {64: A100_FWD_BWD_CAUSAL_HD64["fa1"], 128: A100_FWD_BWD_CAUSAL_HD128["fa1"]}
       for a in ("A100-80GB", "A100-40GB")},
    **{h: {64: H100_FWD_BWD_CAUSAL_HD64["fa1"], 128: H100_FWD_BWD_CAUSAL_HD128["fa1"]}
       for h in ATTENTION_FAMILY},
}

#: The sequence length (tokens) at which the flat FlashAttention-1 fraction
#: (``data/flash_attention.csv``, which states none) holds on the length curve: fitted on the
#: calibration rows of the FlashAttention-1 stack only (``benchmarks/validate_mfu.py`` item 25,
#: ``accuracy.fa1_anchor_fit``, the best of its grid, 2^11.75 = 3,444 tokens: their mean |error|
#: 10.4 % flat -> 8.2 %), never on a held-out row.
FA1_LENGTH_ANCHOR = 2.0 ** 11.75


def fa1_length_bars(accelerator: str, head_dim) -> dict | None:
    """FlashAttention-1's forward + backward bars (``FA1_LENGTH_BARS``) on ``accelerator`` at
    the measured head dimension nearer (in log) to ``head_dim``; None where ``accelerator`` has
    none.

    Raises
    ------
    ValueError
        A non-positive ``head_dim``.
    """
    as_array(head_dim, "head_dim", positive=True)
    series = FA1_LENGTH_BARS.get(str(accelerator))
    return None if series is None else series[_nearest_head_dim(head_dim)]


def fa1_length_factor(accelerator: str, seq_len, head_dim, anchor: float = FA1_LENGTH_ANCHOR):
    """FlashAttention-1's forward + backward rate at ``seq_len`` over its rate at ``anchor``
    (``fa1_length_bars`` of ``accelerator`` and ``head_dim``): log2-linear between the bars,
    held at the end bars outside 512-16,384 tokens (no bar beyond them; no extrapolation); None
    where ``accelerator`` has no bars.

    Raises
    ------
    ValueError
        A non-positive ``seq_len``, ``head_dim`` or ``anchor``.
    """
    s = as_array(seq_len, "seq_len", positive=True)
    a = as_array(anchor, "anchor", positive=True)
    bars = fa1_length_bars(accelerator, head_dim)
    if bars is None:
        return None
    x = np.log2(np.array(sorted(bars), dtype=float))
    y = np.array([bars[k] for k in sorted(bars)], dtype=float)
    return np.interp(np.log2(s), x, y) / np.interp(np.log2(a), x, y)


@dataclass(frozen=True)
class Fa1LengthCurve:
    """The flat FlashAttention-1 fraction scaled by sequence length (``fa1_length_factor``):
    ``fraction`` the sustained flat fraction (``attention_fraction`` × the sustained share), the
    same for the forward and the backward."""

    accelerator: str
    fraction: float
    anchor: float = FA1_LENGTH_ANCHOR

    def fractions(self, seq_len, head_dim, causal: bool = True, window: int = 0):
        """Sustained (forward, backward) fractions of the dense BF16 peak at ``seq_len`` and
        ``head_dim`` (the series of the nearer measured head dimension; ``causal`` and
        ``window`` not read: only causal series were read)."""
        f = self.fraction * fa1_length_factor(self.accelerator, seq_len, head_dim, self.anchor)
        return f, f


def fa1_length_curve(accelerator: str, fraction: float,
                     anchor: float = FA1_LENGTH_ANCHOR) -> Fa1LengthCurve | None:
    """The FlashAttention-1 length curve on ``accelerator`` (``Fa1LengthCurve``), None where it
    has no bars (the flat fraction stays).

    Raises
    ------
    ValueError
        A ``fraction`` outside (0, 1] (a share of the dense peak); a non-positive ``anchor``.
    """
    f = as_scalar(fraction, "fraction", positive=True, upper=1.0)
    a = as_scalar(anchor, "anchor", positive=True)
    if str(accelerator) not in FA1_LENGTH_BARS:
        return None
    return Fa1LengthCurve(str(accelerator), f, a)


def fwd_bwd_tflops(kernel: str, causal: bool, head_dim, seq_len):
    """Forward + backward TFLOP/s of ``kernel``'s H100 curves (``attention_tflops``): the
    FlashAttention basis counts 3.5 × the forward FLOPs, the forward at ``R_f`` and the 2.5 ×
    backward at ``R_b``, so ``R = 3.5 / (1/R_f + 2.5/R_b)`` (Dao 2023 §4.1)."""
    r_f = attention_tflops(kernel, "forward", causal, head_dim, seq_len)
    r_b = attention_tflops(kernel, "backward", causal, head_dim, seq_len)
    return 3.5 / (1.0 / r_f + 2.5 / r_b)


def attention_rate_floor(model, seq_len, tokens_per_s, gemm_peak_flops, recompute="none"):
    """The least rate (FLOP/s, the FlashAttention basis) at which the attention kernels of a run
    publishing ``tokens_per_s`` (per GPU) must have run: every other FLOP of the step at the
    dense peak of its GEMMs, nothing else taking time, so any real step needs at least this::

        floor = A / (1/x − G / P)

    ``x`` = ``tokens_per_s``; ``A`` the attention core's kernel FLOPs per token with a causal
    mask, ``(3.5 + r)·c``, ``c`` = ``2·L·a·(d_qk + d_v)·(s+1)/2`` its forward (Dao 2023,
    FlashAttention-2, arXiv:2307.08691 §4.1: the forward ``4·s²·d`` per head halved with the
    mask, the backward 2.5 × the forward), ``r`` = 1 where the forward is recomputed
    (``recompute`` "selective" or "full"); ``G`` the rest of the training FLOPs per token with
    their recomputation (``ModelSpec.flops_per_token_breakdown`` less the attention core);
    ``P`` = ``gemm_peak_flops``. ``inf`` where the other FLOPs alone need more than ``1/x``.
    Tokens per GPU are the run's, whatever its parallelism (a ring spreads the same FLOPs).

    Raises
    ------
    ValueError
        A non-positive sequence length, throughput or peak, or an unknown ``recompute``.
    """
    as_array(seq_len, "seq_len", positive=True)
    x = as_array(tokens_per_s, "tokens_per_s", positive=True)
    peak = as_array(gemm_peak_flops, "gemm_peak_flops", positive=True)
    b = model.flops_per_token_breakdown(seq_len, training=True, causal=True, recompute=recompute)
    core_fwd = np.asarray(b["attention_core"]) / 3.0
    r = 1.0 if recompute in ("selective", "full") else 0.0
    attn = (3.5 + r) * core_fwd
    other = np.asarray(b["total"]) - np.asarray(b["attention_core"]) - r * core_fwd
    left = 1.0 / x - other / peak
    with np.errstate(divide="ignore"):
        return np.where(left > 0, attn / np.where(left > 0, left, 1.0), np.inf)


# ----------------------------------------------------------------------- Blackwell's cuDNN kernel

#: NVIDIA's measurement of cuDNN's fused attention on Blackwell (``blackwell_curve``).
ATTENTION_BLACKWELL_CSV = DATA_DIR / "attention_kernel_blackwell.csv"

#: Accelerator catalogue name -> the measured device of ``ATTENTION_BLACKWELL_CSV`` whose
#: fractions of its own dense BF16 peak it runs at. GB200 and GB300 are measured; B200 (the
#: same Blackwell SM as GB200's, at a lower clock and power: 2.25 against 2.5 PFLOP/s dense
#: BF16) takes GB200's fractions of its own peak, a stand-in.
BLACKWELL_FAMILY = {"GB200-NVL72": "GB200-NVL72", "B200": "GB200-NVL72",
                    "GB300-NVL72": "GB300-NVL72"}

#: Head dimensions (``head_dim_qk``) of ``ATTENTION_BLACKWELL_CSV``'s causal series: 128
#: (Llama 3.1's, 64 query and 8 KV heads) and 192 (DeepSeek-V3's MLA, 192 / 128, 128 heads).
BLACKWELL_HEAD_DIMS = (128, 192)


def load_blackwell_benchmarks() -> pd.DataFrame:
    """``ATTENTION_BLACKWELL_CSV`` with the engine's FLOP basis added: ``tflops_engine``, the
    measured rate on this module's count (forward ``2·(d_qk + d_v)`` per unmasked score,
    backward 2.5 × forward). The benchmark counts the backward as ``2·(3·d_qk + 2·d_v)`` per
    score (NVIDIA/cudnn-frontend ``benchmark/sdpa_benchmark_training/benchmark_single_sdpa.py``
    ``flops()``), the same when ``d_qk = d_v`` and 4 % more for MLA's 192 / 128, so a backward
    rate is × ``2.5·(d_qk + d_v) / (3·d_qk + 2·d_v)``. The benchmark's unmasked scores are the
    engine's attended keys: ``s(s+1)/2`` causal, ``w(w+1)/2 + (s−w)·w`` with a window ``w``
    (``ModelSpec.mean_attended_keys``)."""
    df = pd.read_csv(ATTENTION_BLACKWELL_CSV)
    dq, dv = df["head_dim_qk"].astype(float), df["head_dim_v"].astype(float)
    basis = np.where(df["pass"] == "backward", 2.5 * (dq + dv) / (3.0 * dq + 2.0 * dv), 1.0)
    return df.assign(tflops_engine=df["tflops"].astype(float) * basis)


@functools.lru_cache(maxsize=1)
def _blackwell_benchmarks() -> pd.DataFrame:
    """``load_blackwell_benchmarks()``, read once per process for ``_blackwell_series`` (which
    only selects from it)."""
    return load_blackwell_benchmarks()


#: The window of the measured 128-token band series (gpt-oss's sliding-window layers) and of the
#: head-dimension-64 series that stands in for a causal kernel at head dimension 96 or less
#: (``blackwell_tflops``).
BAND_WINDOW, HEAD64_WINDOW = 128, 1024


@functools.lru_cache(maxsize=None)
def _blackwell_series(device: str, pass_: str, mask: str, head_dim: int,
                      dtype: str = "bf16", window: int = 0) -> tuple:
    """``(seq_len, tflops_engine)`` of one measured series, sorted by length (``mask``
    "causal" or "window", the latter of ``window`` tokens; ``dtype`` "bf16" or "mxfp8"); read
    once per process (the file is data, fixed while it runs)."""
    df = _blackwell_benchmarks()
    d = df[(df.accelerator == device) & (df["pass"] == pass_) & (df["mask"] == mask)
           & (df.head_dim_qk == head_dim) & (df["dtype"] == dtype)
           & (df.window.fillna(0).astype(float) == float(window))].sort_values("seq_len")
    if d.empty:
        raise ValueError(f"no Blackwell attention measurements for device={device!r}, "
                         f"pass={pass_!r}, mask={mask!r}, head_dim={head_dim!r}, "
                         f"dtype={dtype!r}, window={window!r}")
    return d.seq_len.to_numpy(float), d.tflops_engine.to_numpy(float)


def blackwell_tflops(device: str, pass_: str, head_dim, seq_len, window: int = 0,
                     dtype: str = "bf16"):
    """cuDNN's fused attention (causal; ``dtype`` "bf16", or "mxfp8": Transformer Engine's FP8
    attention under the MXFP8 recipe, Q, K, V and dO in MXFP8) on a measured Blackwell
    ``device``: TFLOP/s on
    the engine's basis for one ``pass_`` at ``seq_len`` queries = keys, ``window`` the
    sliding window (0: none). The measured points themselves, interpolated linearly in
    ``ln s`` between the measured lengths (2k to 32k) and held at the end points outside them:
    no curve is fitted (the rates peak at 16k and fall at 32k, which ``R_inf·s/(s + s_half)``
    cannot follow: fitted, it misses the 2k points by 19-29 %). Measured series: causal at head
    dimension 128 and 192 / 128, the 128-token window at head dimension 64 (cuDNN 9.22), and a
    1,024-token window at head dimension 64 with gpt-oss's 64 query / 8 KV heads (cuDNN 9.19,
    BF16; NVIDIA/cudnn-frontend @ df73764, the v1.19.0 release's results). Stand-ins, stated: a
    causal kernel at head dimension 96 or less runs at that 1,024-token band's rate, in either
    dtype. No causal series at 64 is published; the band is the same kernel at the same head
    dimension with more of its tiles cut by the mask (128 × 128 tiles at 4k: a query tile visits
    9 key tiles, 7 whole and 2 half-masked, 89 % of the visited work unmasked; the causal mask
    visits 528 tiles of which the 32 on the diagonal are half-masked, 97 %), so its rate is a
    lower bound on the causal one's, by about 8 %. (Before it the engine took the 128 curve × the H100 cuDNN curves' 64 : 128
    ratio: 946 TFLOP/s forward at 4k on GB200 against the band's measured 574; Blackwell doubles
    the tensor-core rate per SM over Hopper but not the exponential unit's, so a 64-wide head,
    with half the matrix work per softmax element, loses more there than on H100.) MXFP8
    attention at head dimension 96 or less takes the BF16 band too: the same result file's
    per-tensor FP8 forward runs at the BF16 rate (591 against 574 TFLOP/s at 4k on GB200), its
    backward slower (349 against 617), so the BF16 rates are an upper bound on the FP8 kernel's
    rate. Above 96 the nearest measured head dimension on a log scale; a window at least
    ``seq_len`` long is the causal kernel; any shorter window, whatever its head dimension,
    runs at the widest measured head-dimension-64 band not wider than it (1,024 tokens in BF16
    from 1,024 on, else the 128-token band in ``dtype``: a wider band fills its tiles better, an
    upper bound on its time).

    Raises
    ------
    ValueError
        A non-positive ``seq_len`` or ``head_dim``; a negative ``window``; a series not measured
        (device, pass, dtype).
    """
    seq_len = as_array(seq_len, "seq_len", positive=True)
    as_array(head_dim, "head_dim", positive=True)
    as_array(window, "window", nonnegative=True)

    def at(key, dt=dtype, w=0):
        s_i, r_i = _blackwell_series(*key, dt, w)
        return np.interp(np.log(seq_len), np.log(s_i), r_i)

    if window and float(window) < float(np.max(seq_len)):
        w = HEAD64_WINDOW if float(window) >= HEAD64_WINDOW else BAND_WINDOW
        return at((device, pass_, "window", 64), "bf16" if w == HEAD64_WINDOW else dtype, w)
    d = float(head_dim)
    if d <= 96.0:
        return at((device, pass_, "window", 64), "bf16", HEAD64_WINDOW)
    near = min(BLACKWELL_HEAD_DIMS, key=lambda h: abs(np.log(d / h)))
    return at((device, pass_, "causal", near))


@dataclass(frozen=True)
class BlackwellCurve:
    """cuDNN's fused attention on one Blackwell accelerator as the engine uses it
    (``StepOptions.attention_blackwell``): the measured ``device``, the priced accelerator's
    dense BF16 peak ``peak_tflops`` (the fractions are of the measured device's own peak, carried
    to it) and ``scale`` (``options.KERNEL_EFFICIENCY``, as on the flat fraction it replaces,
    × a pilot's correction where one is carried: ``StepOptions._attention_scale``). A fraction
    is at most the dtype's dense peak over the BF16 one (1 in BF16, ``MXFP8_OVER_BF16`` in
    MXFP8): no scale takes a kernel past its datasheet."""

    device: str
    peak_tflops: float
    device_peak_tflops: float
    scale: float = 1.0
    dtype: str = "bf16"

    def fractions(self, seq_len, head_dim, causal: bool = True, window: int = 0):
        """Sustained (forward, backward) fractions of ``peak_tflops`` at ``seq_len`` (causal;
        ``window`` the sliding window, 0 none: ``blackwell_tflops`` in ``dtype``)."""
        top = MXFP8_OVER_BF16 if self.dtype == "mxfp8" else 1.0
        f = [np.minimum(self.scale * blackwell_tflops(self.device, p, head_dim, seq_len, window,
                                                      self.dtype)
                        / self.device_peak_tflops, top) for p in ("forward", "backward")]
        return f[0], f[1]


#: The attention dtypes of ``ATTENTION_BLACKWELL_CSV`` (``blackwell_curve``).
BLACKWELL_ATTENTION_DTYPES = ("bf16", "mxfp8")

#: Blackwell's dense FP8 (MXFP8) peak over its dense BF16 one (NVIDIA's datasheets in
#: data/accelerators.csv: B200 4.5 / 2.25, GB200 and GB300 5 / 2.5 PFLOP/s dense): the most a
#: scaled MXFP8 attention fraction of the BF16 peak may reach (``BlackwellCurve.fractions``).
MXFP8_OVER_BF16 = 2.0


def blackwell_curve(accelerator: str, scale: float = 1.0,
                    dtype: str = "bf16") -> BlackwellCurve | None:
    """cuDNN's measured attention on ``accelerator`` (catalogue name) where it is a Blackwell
    one of ``BLACKWELL_FAMILY``, else None; ``dtype`` one of ``BLACKWELL_ATTENTION_DTYPES``.

    Raises
    ------
    ValueError
        An unmeasured ``dtype``.
    """
    if dtype not in BLACKWELL_ATTENTION_DTYPES:
        raise ValueError(f"dtype={dtype!r} must be one of {BLACKWELL_ATTENTION_DTYPES} (the "
                         "attention dtypes NVIDIA measured on Blackwell)")
    dev = BLACKWELL_FAMILY.get(str(accelerator))
    if dev is None:
        return None
    return BlackwellCurve(dev, load_accelerator(accelerator).peak_flops_per_s("bf16") / 1e12,
                          load_accelerator(dev).peak_flops_per_s("bf16") / 1e12, scale, dtype)


def reproduce_blackwell() -> pd.DataFrame:
    """``ATTENTION_BLACKWELL_CSV`` beside ``blackwell_tflops``: ``measured`` (engine basis) and
    ``predicted`` TFLOP/s and ``error`` (predicted / measured − 1), one row per point."""
    d = load_blackwell_benchmarks()
    pred = [float(blackwell_tflops(a, p, h, float(s), w if np.isfinite(w) else 0, t))
            for a, p, h, s, w, t in zip(d.accelerator, d["pass"], d.head_dim_qk, d.seq_len,
                                        d.window.astype(float), d["dtype"])]
    out = d[["accelerator", "dtype", "pass", "mask", "head_dim_qk", "head_dim_v", "window",
             "seq_len"]].copy()
    out["measured"] = d.tflops_engine
    out["predicted"] = pred
    out["error"] = out.predicted / out.measured - 1.0
    return out
