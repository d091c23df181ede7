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
``weight_share = 1 / micro-batches`` of it per micro-batch. Not credited: the casts that Transformer Engine fuses into
the preceding norm (``LayerNormLinear`` writes FP8 directly) or that ``torch.compile`` fuses
into a neighbour: the bytes here are an upper bound for those GEMMs' inputs.

The LM head and the MoE router stay in BF16 under ``fp8_as_run`` and have no casts.
"""

from __future__ import annotations

import numpy as np

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


def cast_bytes_per_element(recipe: str, transpose: bool = True) -> float:
    """HBM bytes per element of one FP8 cast: ``FP8_RECIPES[recipe]``, less the transposed
    1-byte copy for a per-tensor recipe when ``transpose`` is False (an accelerator of
    ``FP8_NATIVE_COLUMNWISE``; module docstring).

    Raises
    ------
    ValueError
        An unknown recipe.
    """
    if recipe not in FP8_RECIPES:
        raise ValueError(f"recipe={recipe!r} must be one of {tuple(FP8_RECIPES)}")
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
        An unknown recipe.
    """
    bpe = cast_bytes_per_element(recipe, transpose)
    fwd = bwd = 0.0
    for gemm in gemms:
        m, k, n = gemm[:3]
        count = gemm[3] if len(gemm) > 3 else 1.0
        fwd = fwd + count * bpe * (np.asarray(m, float) * k
                                   + weight_share * np.asarray(k, float) * n)
        bwd = bwd + count * bpe * np.asarray(m, float) * n
    return fwd, bwd
