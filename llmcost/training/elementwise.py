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
  copy, ``FP8_RECIPES``).

``FP8_RECIPES`` gives the bytes per element of one cast. The weight cast is counted once per
micro-batch (Transformer Engine re-casts unless its weight cache is used; FSDP2's float8
all-gather casts before each gather). Not credited: the casts that Transformer Engine fuses into
the preceding norm (``LayerNormLinear`` writes FP8 directly) or that ``torch.compile`` fuses
into a neighbour: the bytes here are an upper bound for those GEMMs' inputs.

The LM head and the MoE router stay in BF16 under ``fp8_as_run`` and have no casts.
"""

from __future__ import annotations

import numpy as np

#: Bytes per element of one FP8 cast of a 16-bit tensor, by scaling recipe: read 2 B, write the
#: rowwise and columnwise 1-byte copies (4 B); current scaling's amax pass reads 2 B more;
#: MXFP8's 1-byte scale per 32 elements on each copy adds 2/32 B.
FP8_RECIPES = {"delayed": 4.0, "current": 6.0, "mxfp8": 4.0 + 2.0 / 32.0}


def fp8_cast_bytes(gemms, recipe: str = "current"):
    """HBM bytes (forward, backward) of the FP8 casts of a list of GEMMs.

    ``gemms``: iterable of ``(m, k, n)`` or ``(m, k, n, count)`` (tokens, inner, output width,
    how many such GEMMs, e.g. an EP rank's local experts; arrays allowed) of the GEMMs that run
    in FP8. Forward: ``count · bpe · (m·k + k·n)`` (input and weight); backward:
    ``count · bpe · m·n`` (output gradient); ``bpe = FP8_RECIPES[recipe]``.

    Raises
    ------
    ValueError
        An unknown recipe.
    """
    if recipe not in FP8_RECIPES:
        raise ValueError(f"recipe={recipe!r} must be one of {tuple(FP8_RECIPES)}")
    bpe = FP8_RECIPES[recipe]
    fwd = bwd = 0.0
    for gemm in gemms:
        m, k, n = gemm[:3]
        count = gemm[3] if len(gemm) > 3 else 1.0
        fwd = fwd + count * bpe * (np.asarray(m, float) * k + np.asarray(k, float) * n)
        bwd = bwd + count * bpe * np.asarray(m, float) * n
    return fwd, bwd
