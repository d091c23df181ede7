"""Memory-bound work added by running GEMMs in FP8: the quantize, cast, transpose and amax passes.

An FP8 GEMM does not read 16-bit tensors: each operand is first quantized by a memory-bound
kernel that reads the 16-bit tensor and writes the 8-bit one. Counted per GEMM ``Y = X·W`` of
one layer on one rank (``X``: tokens × k, ``W``: k × n, ``dY``: tokens × n), per micro-batch:

* forward: ``X`` and ``W`` are cast; backward: ``dY`` is cast (``X`` and ``W`` are re-used from
  the forward);
* every cast reads 2 bytes and writes two 1-byte copies, the **rowwise** one for the GEMM that
  reads the tensor along its rows and the **columnwise** (transposed) one for the GEMM that reads
  it along its columns: on Hopper FP8 tensor cores take only the "TN" layout, so the activation
  used again by the weight-gradient GEMM and the weight used again by the input-gradient GEMM
  are physically transposed (NVIDIA Transformer Engine docs, Low precision training,
  "Performance considerations: Handling transposes" — *rowwise* and *columnwise usages*); with
  MXFP8 the scales run along one dimension, so both copies are quantized (same docs, MXFP8):
  4 bytes per element either way;
* **current scaling** (Transformer Engine ``Float8CurrentScaling``; torchao's tensorwise float8)
  computes each tensor's scale from its own amax before the cast, one more read of the 16-bit
  tensor (2 bytes per element); **delayed scaling** takes the scale from the amax history and
  fuses the amax into the cast (no extra pass); **MXFP8** computes each 32-element block's
  scale inside the cast kernel (no extra pass; the 1-byte scales add 1/32 byte per element per
  copy, ``FP8_RECIPES``); **blockwise** (DeepSeek-AI 2024, DeepSeek-V3 Technical Report,
  arXiv:2412.19437 §3.3.2: activations scaled per 1×128 tile and weights per 128×128 block,
  "we calculate the maximum absolute value online for each 1x128 activation tile or 128x128
  weight block") likewise computes its scales inside the cast, one fp32 scale per 128 elements
  per copy (2 × 4/128 byte per element).

**Blackwell** tensor cores read FP8 operands column-wise natively: "Blackwell: supports
columnwise access natively, so no transpose is needed" (NVIDIA Transformer Engine docs, Low
precision training, "Performance considerations"; and "Current scaling": "On Ada and Hopper,
the backward pass requires a transposed FP8 tensor ... Blackwell hardware supports multiple GEMM
layouts natively, eliminating the need for explicit transposes"). A per-tensor recipe (delayed,
current) there writes one 1-byte copy (``FP8_RECIPES`` − 1 byte, ``cast_bytes_per_element``);
a block-scaled one (MXFP8, blockwise) still writes both, its scales running along one
dimension ("transposing MXFP8 data requires requantization", Transformer Engine
``docs/examples/fp8_primer.ipynb``). ``FP8_NATIVE_COLUMNWISE`` lists the accelerators.

``FP8_RECIPES`` gives the bytes per element of one cast on Hopper. The weight cast is counted once per
micro-batch (FSDP2's float8 all-gather casts before each gather), except on the stacks that
cache the FP8 weights across the micro-batches of a step (``FP8_WEIGHT_CACHE_STACKS``):
Transformer Engine's modules take ``is_first_microbatch``, "during FP8 training, it allows
caching of the FP8 versions of the weights" since "between the microbatches of the same
minibatch the model weights are not updated" (NVIDIA/TransformerEngine
``transformer_engine/pytorch/module/linear.py``, ``Linear.forward`` docstring; the same in
``LayerNormLinear``, ``LayerNormMLP`` and ``GroupedLinear``), and Megatron-Core passes it
(``megatron/core/extensions/transformer_engine.py``, ``TELinear.forward``: ``is_first_microbatch``
set for the first micro-batch of each step): there the weight cast is paid once per step,
``weight_share = 1 / micro-batches`` of it per micro-batch. Not credited by ``fp8_cast_bytes``:
the casts that ``torch.compile`` fuses into a neighbour (an upper bound for those GEMMs'
inputs); the ones Transformer Engine fuses into the preceding norm are credited on
Megatron-Core's Transformer Engine layers, with its sequence-parallel gathers
(``te_layer_cast_bytes``, below).

The LM head and the MoE router stay in BF16 under ``fp8_as_run`` and have no casts.

**Transformer Engine's layers in Megatron-Core** (``TE_LINEAR_STACKS``; ``te_layer_cast_bytes``).
Megatron-Core's Transformer Engine layer spec runs the QKV and FC1 projections as
``LayerNormLinear`` (the norm fused in: ``TELayerNormColumnParallelLinear``) and the output
projection and FC2 as row-parallel ``Linear`` (``TERowParallelLinear``), Megatron's own fused
bias-SwiGLU in between (NVIDIA/Megatron-LM @ d7288711b, the Megatron-Bridge v0.4.0 submodule,
``megatron/core/models/gpt/gpt_layer_specs.py`` and ``megatron/core/transformer/mlp.py``). In
Transformer Engine (NVIDIA/TransformerEngine @ 71bbefbf1 = 2.14.0, Megatron-Bridge v0.4.0's pin,
``pyproject.toml`` override; the same structure at v1.4, ``layernorm_linear.py`` and
``module/base.py``: FP8 all-gather, then ``tex.fp8_transpose``), four casts differ from the
generic count above:

* **Sequence parallelism quantizes before the all-gather.** ``_LayerNormLinear.forward`` casts
  the norm output on the rank's sequence shard (``xs = x/tp`` tokens) and all-gathers the FP8
  copy; ``grad_output_preprocess`` (``module/base.py``) does the same for a row-parallel layer's
  output gradient ("FP8 with all-gather: unfused bgrad, fused cast + transpose"). A per-tensor
  FP8 tensor can only be gathered row-wise (``Float8Quantizer`` and
  ``Float8CurrentScalingQuantizer.supports_only_rowwise_all_gather``: True), so the shard's cast
  writes one 1-byte copy (read 2 + write 1 B) and, on Hopper, the gathered tensor is transposed
  for the weight-gradient GEMM (``distributed.py`` ``_all_gather_fp8`` → ``_create_transpose``,
  or ``Float8TensorStorage.update_usage(columnwise_usage=True)`` in the backward): read 1 +
  write 1 B per gathered element. A block-scaled tensor (MXFP8) is quantized in both directions
  on the shard and gathered (``_all_gather_mxfp8``): ``FP8_RECIPES`` per shard element.
* **The norm writes FP8 (delayed scaling).** ``layernorm_fwd`` / ``rmsnorm_fwd``
  (``pytorch/csrc/extensions/normalization.cpp``): "FULLY_FUSED" for ``Float8Quantizer``, the
  norm kernel writes the FP8 copy itself (no cast pass; its 1-byte write replaces the 2-byte one
  already counted for the norm, the byte saved not credited); without sequence parallelism the
  transposed copy is a separate ``nvte_transpose`` (``common/normalization/rmsnorm/
  rmsnorm_api.cpp``): read 1 + write 1 B.
* **The norm computes current scaling's amax.** ``FUSED_NORM_AMAX_FP8`` for
  ``Float8CurrentScalingQuantizer``: the norm kernel writes the 16-bit output with its amax, then
  ``quantize_with_amax`` casts without the amax pass (``quantizer.cpp``,
  ``Float8CurrentScalingQuantizer::quantize_impl(compute_amax=false)``); in Transformer Engine
  since 2.7 (commit 51eb6362b, "Fuse amax computation into normalization kernel for current
  scaling"). Megatron-Bridge pins Transformer Engine ≥ 2.9 from v0.2.0 (25.11) on; its 25.09
  release allowed 2.6 to 2.7 (``pyproject.toml`` at v0.1.0rc4), so the 25.09 rows may have paid
  the amax pass (2 B per shard element of the two norm-fed inputs, not priced).
* Unchanged: the inputs of the row-parallel layers (attention output, SwiGLU output: cast in full,
  amax pass included for current scaling) and the column-parallel layers' output gradients (not
  gathered: the generic cast); MoE experts' grouped GEMMs (their tokens come from the dispatch,
  neither norm-fed nor gathered) keep ``fp8_cast_bytes``.

**The routed experts' output bias, unfused** (``expert_bias_bytes``; any dtype, not only FP8). A
model whose experts have biases (gpt-oss: ``bias == "all"``) runs on Megatron-Core's
``TEGroupedMLP``, whose second grouped linear layer returns its biases unapplied
(``skip_bias_add=True``) and whose ``_apply_bias`` adds them in eager PyTorch, each expert's
bias weighted by its tokens' routing probabilities::

    torch.cat([t + b * p for t, b, p in zip(torch.split(out, tokens_per_expert), biases,
               torch.split(permuted_probs, tokens_per_expert))]).view(shape).to(out.dtype)

(NVIDIA/Megatron-LM ``megatron/core/transformer/moe/experts.py``, ``TEGroupedMLP._apply_bias``,
the same at b0cc2706d, d7288711b, 2edffadb5, d0b3b7754 and 458c8d0ec: the Megatron-Core pins of
Megatron-Bridge v0.3.0, v0.4.0, v0.4.2, v0.5.0 and v0.5.1 = the 26.02 to 26.06.01 containers):
three element-wise passes over the experts' ``(routed tokens) × h`` output in the forward (four
with FP32 probabilities, the last cast back to BF16) and their autograd backward, with
``torch.split``'s concatenation of the gradient, none fused. The MXFP8 recipes of 26.06 on set
``cutedsl_fused_grouped_mlp`` (Megatron-Bridge v0.5.0 ``scripts/performance/utils/overrides.py``:
``cfg.model.use_transformer_engine_op_fuser = True``), and ``TEGroupedMLP`` then runs fc1, the
activation and fc2 as Transformer Engine's fused ops with the biases inside
(``_make_fused_ops``: ``te.pytorch.ops.GroupedLinear(..., bias=self.linear_fc2.use_bias)``, the
``_apply_bias`` path skipped): ``UNFUSED_EXPERT_BIAS_STACKS`` lists the stacks that pay it.

**A clamped gated activation's eager clamp** (``clamped_glu_bytes``; any dtype). gpt-oss clamps
its experts' gate half from above and linear half on both sides at 7.0 (``ModelSpec.glu_limit``);
Megatron-Core's fused weighted bias-quick-GeGLU takes the clamp as two eager ``clamp`` calls and
a ``torch.cat`` over the fc1 output before the fused kernel (``weighted_bias_quick_geglu_impl``),
8 B forward and 15 B backward per fc1-output element, on the same eager stacks
(``CLAMPED_GLU_STACKS``; the op fuser's fused op clamps inside).
"""

from __future__ import annotations

import numpy as np

from ..core.units import as_array

#: Bytes per element of one FP8 cast of a 16-bit tensor, by scaling recipe: read 2 B, write the
#: rowwise and columnwise 1-byte copies (4 B); current scaling's amax pass reads 2 B more;
#: MXFP8's 1-byte scale per 32 elements on each copy adds 2/32 B; DeepSeek-V3's blockwise
#: fp32 scale per 128 elements on each copy 2 × 4/128 B.
FP8_RECIPES = {"delayed": 4.0, "current": 6.0, "mxfp8": 4.0 + 2.0 / 32.0,
               "blockwise": 4.0 + 2.0 * 4.0 / 128.0}

#: Accelerators (catalogue names) whose FP8 tensor cores read a column-wise operand without a
#: transposed copy (Blackwell; module docstring): per-tensor recipes cast to one 1-byte copy.
FP8_NATIVE_COLUMNWISE = frozenset({"B200", "GB200-NVL72", "GB300-NVL72"})

#: Recipes whose scale is one number per tensor, so one FP8 copy serves both GEMM layouts where
#: the hardware reads column-wise natively.
PER_TENSOR_RECIPES = frozenset({"delayed", "current"})


def _check_recipe(recipe: str) -> None:
    if recipe not in FP8_RECIPES:
        raise ValueError(f"recipe={recipe!r} must be one of {tuple(FP8_RECIPES)}")


def cast_bytes_per_element(recipe: str, transpose: bool = True) -> float:
    """HBM bytes per element of one FP8 cast: ``FP8_RECIPES[recipe]``, less the transposed
    1-byte copy for a per-tensor recipe when ``transpose`` is False (an accelerator of
    ``FP8_NATIVE_COLUMNWISE``; module docstring).

    Raises
    ------
    ValueError
        An unknown recipe.
    """
    _check_recipe(recipe)
    return FP8_RECIPES[recipe] - (0.0 if transpose or recipe not in PER_TENSOR_RECIPES else 1.0)


#: Stacks (``data/stacks.csv`` names) whose FP8 weights are cast once per step, not once per
#: micro-batch: Megatron-Core with Transformer Engine's ``is_first_microbatch`` weight cache
#: (module docstring).
FP8_WEIGHT_CACHE_STACKS = frozenset({"megatron-core-2024", "megatron-core-2025",
                                     "megatron-core-2026"})


def fp8_cast_bytes(gemms, recipe: str = "current", weight_share=1.0, transpose: bool = True):
    """HBM bytes (forward, backward) of the FP8 casts of a list of GEMMs, per micro-batch.

    ``gemms``: iterable of ``(m, k, n)`` or ``(m, k, n, count)`` (tokens, inner, output width,
    how many such GEMMs, e.g. an EP rank's local experts; arrays allowed) of the GEMMs that run
    in FP8. Forward: ``count · bpe · (m·k + weight_share · k·n)`` (input and weight); backward:
    ``count · bpe · m·n`` (output gradient); ``bpe = cast_bytes_per_element(recipe,
    transpose)``, ``transpose`` False on an accelerator of ``FP8_NATIVE_COLUMNWISE``;
    ``weight_share`` (in (0, 1], array allowed) the share of the weight cast paid per
    micro-batch: 1, or 1 / micro-batches on a stack that caches the FP8 weights
    (``FP8_WEIGHT_CACHE_STACKS``).

    Raises
    ------
    ValueError
        An unknown recipe; a ``weight_share`` outside (0, 1]; a negative dimension or count.
    """
    bpe = cast_bytes_per_element(recipe, transpose)
    weight_share = as_array(weight_share, "weight_share", positive=True, upper=1.0)
    fwd = bwd = 0.0
    for gemm in gemms:
        m, k, n = (as_array(v, name, nonnegative=True) for v, name in zip(gemm[:3], "mkn"))
        count = as_array(gemm[3], "count", nonnegative=True) if len(gemm) > 3 else 1.0
        fwd = fwd + count * bpe * (np.asarray(m, float) * k
                                   + weight_share * np.asarray(k, float) * n)
        bwd = bwd + count * bpe * np.asarray(m, float) * n
    return fwd, bwd


#: Stacks whose transformer layers are Transformer Engine's ``LayerNormLinear`` (QKV, FC1) and
#: row-parallel ``Linear`` (output projection, FC2): Megatron-Core's Transformer Engine layer spec
#: (module docstring, "Transformer Engine's layers in Megatron-Core").
TE_LINEAR_STACKS = FP8_WEIGHT_CACHE_STACKS


def te_cast_parts(recipe: str, transpose: bool, *, norm_fed: bool, gathered: bool) -> tuple:
    """HBM bytes of one FP8 operand cast in Transformer Engine's modules (module docstring):
    ``(per element on the rank's shard, per element of the gathered tensor)``.

    Per-tensor recipes: the row-wise cast reads 2 and writes 1 B (0 when the norm writes FP8
    itself: ``"delayed"`` and ``norm_fed``); current scaling's amax pass reads 2 B more unless
    the norm computes it (``norm_fed``); the column-wise copy, only where ``transpose`` (Hopper):
    1 B written by the fused cast-transpose, or 2 B (read 1 + write 1) where it is a separate
    transpose (``gathered``, per gathered element; or after a delayed-scaling norm). Block
    recipes: ``FP8_RECIPES`` per shard element (both copies quantized before the gather).

    Raises
    ------
    ValueError
        An unknown recipe.
    """
    _check_recipe(recipe)
    if recipe not in PER_TENSOR_RECIPES:
        return FP8_RECIPES[recipe], 0.0
    norm_writes_fp8 = recipe == "delayed" and norm_fed
    rowwise = 0.0 if norm_writes_fp8 else 3.0
    amax = 2.0 if (recipe == "current" and not norm_fed) else 0.0
    if not transpose:
        return rowwise + amax, 0.0
    if gathered:
        return rowwise + amax, 2.0
    return rowwise + amax + (2.0 if norm_writes_fp8 else 1.0), 0.0


def te_layer_cast_bytes(x, xs, norm_fed, row_parallel, recipe: str = "current", *,
                        weight_share=1.0, transpose: bool = True):
    """HBM bytes (forward, backward) of the FP8 casts of one layer's Transformer Engine GEMMs
    per micro-batch (module docstring, "Transformer Engine's layers in Megatron-Core").

    ``x`` tokens on the rank, ``xs`` its sequence shard (``x/tp`` under sequence parallelism,
    else ``x``; gathered when ``xs < x``); ``norm_fed``: ``(k, n)`` of the ``LayerNormLinear``
    GEMMs (QKV, FC1), whose input is norm-fed and gathered; ``row_parallel``: ``(k, n)`` of the
    row-parallel GEMMs (output projection, FC2), whose output gradient is gathered. With
    ``(a, b) = te_cast_parts(...)`` of each gathered operand and ``bpe =
    cast_bytes_per_element(recipe, transpose)``:
    forward ``Σ_norm_fed a·xs·k + Σ_row bpe·x·k + weight_share·bpe·Σ k·n``;
    backward ``Σ_norm_fed (b·x·k + bpe·x·n) + Σ_row (a·xs·n + b·x·n)`` (the gathered input's
    transpose ``b·x·k`` is made in the backward, counted there).

    Raises
    ------
    ValueError
        An unknown recipe; a non-positive ``x`` or ``xs``; an ``xs`` above ``x`` (a shard is at
        most the rank's tokens); a ``weight_share`` outside [0, 1] (0: the activations' casts
        alone).
    """
    bpe = cast_bytes_per_element(recipe, transpose)
    x = as_array(x, "x", positive=True)
    xs = as_array(xs, "xs", positive=True)
    weight_share = as_array(weight_share, "weight_share", nonnegative=True, upper=1.0)
    if np.any(xs > x):
        raise ValueError(f"xs={xs!r} must be <= x={x!r} (the sequence shard of the rank's "
                         "tokens)")
    gathered = xs < x
    fwd = bwd = 0.0 * x

    def parts(fed: bool):  # (shard, gathered) bytes per element, gathered where xs < x
        return tuple(np.where(gathered, g, u) for g, u in zip(
            te_cast_parts(recipe, transpose, norm_fed=fed, gathered=True),
            te_cast_parts(recipe, transpose, norm_fed=fed, gathered=False)))

    (a, b), (c, d) = parts(True), parts(False)
    for k, n in norm_fed:
        fwd = fwd + a * xs * k + weight_share * bpe * k * n
        bwd = bwd + b * x * k + bpe * x * n
    for k, n in row_parallel:
        fwd = fwd + bpe * x * k + weight_share * bpe * k * n
        bwd = bwd + c * xs * n + d * x * n
    return fwd, bwd


#: Stacks whose routed experts run Megatron-Core's ``TEGroupedMLP`` without Transformer Engine's
#: op fuser, so an expert output bias is added by ``_apply_bias``'s unfused passes (module
#: docstring, "The routed experts' output bias"); ``megatron-core-2026`` (the 26.06+ MXFP8
#: recipes, ``cutedsl_fused_grouped_mlp``) applies it inside the fused grouped MLP.
UNFUSED_EXPERT_BIAS_STACKS = frozenset({"megatron-core-2024", "megatron-core-2025"})


def expert_bias_bytes(elements, probs_bytes: float) -> tuple:
    """HBM bytes ``(forward, backward)`` of Megatron-Core's unfused expert output bias
    (``TEGroupedMLP._apply_bias``, module docstring) over ``elements`` = routed tokens × h of the
    experts' BF16 output ``t`` on one rank, per micro-batch.

    The routing probabilities ``p`` are ``probs_bytes`` wide: 4 (FP32) under DeepEP / HybridEP,
    whose dispatcher casts them ("HybridEP only supports float32 probs", "DeepEP only supports
    float32 probs": ``token_dispatcher.py``, ``_HybridEPManager`` / ``_DeepepManager``), else the
    router logits' dtype (``moe_utils.topk_routing_with_score_function`` and Transformer Engine's
    fused router return the probabilities "in the same dtype as the logits"), BF16 (2) without
    ``moe_router_dtype``. The product ``b·p`` and everything after it are then ``r = max(2, p)``
    bytes wide (PyTorch's type promotion). Per output element:

    * forward: ``b·p`` written (r), ``t + b·p`` (read 2 + r, write r), ``torch.cat`` (read r,
      write r), ``.to(bf16)`` when r = 4 (read 4, write 2): 12 B with BF16 probabilities,
      28 B with FP32;
    * backward (autograd): ``.to``'s backward casts the gradient to r (read 2, write r) and the
      add's casts it back for ``t`` (read r, write 2), both only when r = 4; the product's
      backward makes ``grad·p`` and ``grad·b`` (read r, write r each) and reduces them to the
      bias and probability gradients (read r each); ``torch.split``'s backward concatenates the
      experts' BF16 gradients of ``t`` into one tensor (read 2, write 2: ``split_with_sizes``'s
      derivative is ``split_with_sizes_backward``, an ``at::cat`` of the pieces,
      pytorch/pytorch@002ca6715ba1 ``torch/csrc/autograd/FunctionsManual.cpp``; the ``cat``'s
      own backward hands out slices, no copy): 16 B with BF16, 40 B with FP32.

    Raises
    ------
    ValueError
        ``probs_bytes`` not 2 or 4; a negative ``elements``.
    """
    if probs_bytes not in (2, 4):
        raise ValueError(f"probs_bytes={probs_bytes!r} must be 2 (BF16) or 4 (FP32)")
    e = as_array(elements, "elements", nonnegative=True)
    r = float(probs_bytes)
    cast = 1.0 if probs_bytes == 4 else 0.0
    fwd = r + (2.0 + 2.0 * r) + 2.0 * r + cast * (r + 2.0)
    bwd = cast * 2.0 * (2.0 + r) + 2.0 * 3.0 * r + (2.0 + 2.0)
    return fwd * e, bwd * e


#: The stacks whose Megatron-Core ``TEGroupedMLP`` runs a clamped gated activation's clamp in
#: eager PyTorch (``clamped_glu_bytes``): the same eager path as the unfused expert bias. The
#: 26.06+ MXFP8 recipes' Transformer Engine op fuser (``use_transformer_engine_op_fuser``, the
#: full-iteration-graph stack ``megatron-core-2026``) runs the clamped quick-GeGLU as a fused
#: Transformer Engine op (``TEGroupedMLP._make_fused_ops``: ``limit=clamp``, NVIDIA/Megatron-LM
#: ``megatron/core/transformer/moe/experts.py`` at 458c8d0ec, the Megatron-Bridge v0.5.1 pin).
CLAMPED_GLU_STACKS = UNFUSED_EXPERT_BIAS_STACKS


def clamped_glu_bytes(elements) -> tuple:
    """HBM bytes ``(forward, backward)`` of the clamp Megatron-Core applies, in eager PyTorch,
    before a clamped gated activation of the routed experts (``ModelSpec.glu_limit``: gpt-oss's
    quick-GeGLU at 7.0), over ``elements`` = routed tokens × the fc1 output width
    (``2·d_ff_expert``) on one rank, per micro-batch, BF16.

    The code (NVIDIA/Megatron-LM ``megatron/core/fusions/fused_bias_geglu.py``,
    ``weighted_bias_quick_geglu_impl``, the same at b0cc2706d, d7288711b, 2edffadb5, d0b3b7754
    and 458c8d0ec, the Megatron-Core pins of Megatron-Bridge v0.3.0 to v0.5.1; called by
    ``TEGroupedMLP.bias_act_func`` under ``bias_activation_fusion`` and not
    ``use_te_activation_func`` (from d0b3b7754 on, also without GLU interleaving) with
    ``quick_gelu``, which Megatron-Bridge's GPT-OSS bridge sets with a hard-coded
    ``activation_func_clamp_value = 7.0``: v0.3.0 ``gpt_oss_provider.py``, v0.4.0 to v0.5.1
    ``gpt_oss_bridge.py``)::

        x_glu, x_linear = input.chunk(2, -1)
        input = torch.cat((x_glu.clamp(min=None, max=clamp_value),
                           x_linear.clamp(min=-clamp_value, max=clamp_value)), -1)

    before the fused (already priced) weighted bias-activation kernel. Per element of the fc1
    output:

    * forward: each half clamped into a new tensor (read 2, write 2 B: 4 B over the whole
      output), ``torch.cat`` (read 2, write 2): **8 B**;
    * backward (autograd, pytorch/pytorch@002ca6715ba1 ``tools/autograd/derivatives.yaml`` and
      ``torch/csrc/autograd/FunctionsManual.cpp``, ``clamp_backward``): ``cat``'s gradient is slices (no copy);
      ``clamp_backward`` is ``where(self <= max, grad, 0)`` for the gate half (the comparison
      reads 2 B and writes a 1-byte mask; ``where`` reads 1 + 2, writes 2: 8 B) and
      ``where((self >= min).logical_and_(self <= max), grad, 0)`` for the linear half (two
      comparisons 3 B each, the in-place ``and`` reads 2 and writes 1, ``where`` 5: 14 B), 11 B
      on average; ``chunk``'s gradient concatenates the two halves' gradients
      (``split_backward``, an ``at::cat``: read 2, write 2): **15 B**.

    Not counted: the same passes again where the run recomputes the activation
    (``recompute_modules`` ``moe_act``: the engine prices those runs without recomputation, as
    their other element-wise recomputes), and the host–device synchronisation of the same
    function's ``torch.tensor(linear_offset, device=input.device)`` (a blocking host-to-device
    copy: pytorch/pytorch ``torch/csrc/utils/tensor_new.cpp`` ``internal_new_from_data``,
    ``non_blocking=false``, and ``aten/src/ATen/native/cuda/Copy.cu`` ``memcpy_and_sync``:
    ``cudaStreamSynchronize``), one per MoE layer per micro-batch: a host cost the engine has
    no sourced price for. Nor, in memory (``llmcost.memory``), the fc1 output that ``clamp``'s
    autograd keeps (it saves its input, a view of that output) beside the concatenation the
    fused function saves: 2 B more per fc1-output element per MoE layer in flight (gpt-oss-120b
    at 4,096 tokens, top-4, fc1 width 5,760: about 189 MB per layer per micro-batch).

    Raises
    ------
    ValueError
        A negative ``elements``.
    """
    e = as_array(elements, "elements", nonnegative=True)
    return 8.0 * e, 15.0 * e


def unpadded_attention_bytes(q_elements, k_elements, v_elements, out_elements) -> tuple:
    """HBM bytes ``(forward, backward)`` of the copies around a variable-length FlashAttention
    call that first removes the padding from Q, K and V and then puts it back into the output,
    as llm-foundry's ``flash_attn_fn`` does (``StepOptions.attention_unpad``), per layer per
    micro-batch on one rank, 16-bit activations; arguments are the elements of Q, K, V and the
    attention output (tokens × heads × head width on the rank).

    The code (mosaicml/llm-foundry@5e85bd62d, the 2024-01 benchmark sweep's commit,
    ``llmfoundry/models/layers/attention.py`` ``flash_attn_fn``): with no padding mask it makes
    an all-ones one (``torch.ones_like(key[:, :, 0])``) and always calls
    ``bert_padding.unpad_input`` on the query, the key and the value, then
    ``flash_attn_varlen_func``, then ``bert_padding.pad_input`` on its output. In
    Dao-AILab/flash-attention v2.4.2 (the ``gpu-flash2`` extra's pin, ``flash-attn==2.4.2`` in
    llm-foundry's setup.py at that commit) ``flash_attn/bert_padding.py``:
    ``unpad_input`` gathers (``IndexFirstAxis``: ``torch.gather``), whose backward makes a zero
    gradient and scatters into it (``torch.zeros`` then ``scatter_``); ``pad_input``
    (``IndexPutFirstAxis``) makes a zero output and index-puts into it, whose backward gathers
    (``grad_output[indices]``). Per element, 2 B each read or write:

    * forward: Q, K and V gathered (read 2, write 2: **4 B**); the output's zeros (write 2) and
      index-put (read 2, write 2): **6 B**;
    * backward: the output gradient gathered (**4 B**); Q's, K's and V's gradients each zeroed
      (write 2) and scattered into (read 2, write 2): **6 B**.

    So ``forward = 4·(q + k + v) + 6·out``, ``backward = 6·(q + k + v) + 4·out``: 18 B and 22 B
    per token per layer per model width ``d`` for multi-head attention (q = k = v = out = d).
    Not counted: the index reads (the indices are expanded with stride 0 along the width, one
    8-byte index per token), and the two host–device synchronisations each ``unpad_input`` call
    makes (``torch.nonzero``, ``max().item()``), six per layer per forward pass: a host cost
    the engine has no sourced price for. Where the run recomputes the layer's forward (full
    recomputation), the forward copies run again with it, as the layer's other element-wise
    work does.

    Raises
    ------
    ValueError
        A negative count of elements.

    Examples
    --------
    >>> [float(b) for b in unpadded_attention_bytes(4096, 4096, 4096, 4096)]  # one token, d 4096
    [73728.0, 90112.0]
    """
    q = as_array(q_elements, "q_elements", nonnegative=True)
    k = as_array(k_elements, "k_elements", nonnegative=True)
    v = as_array(v_elements, "v_elements", nonnegative=True)
    out = as_array(out_elements, "out_elements", nonnegative=True)
    qkv = q + k + v
    return 4.0 * qkv + 6.0 * out, 6.0 * qkv + 4.0 * out
