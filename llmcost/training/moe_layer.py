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
layer's compute). The two constants are **fitted, not sourced**: no public measurement gives a
host cost per MoE layer or per local expert. They are fitted on the two MoE rows marked
``calibration`` in ``data/validation_mfu.csv`` (Megatron-Bridge 25.11: DeepSeek-V3 on 256
GB200, EP 32, 8 local experts; Qwen3-30B-A3B on 8 B200, EP 8, 16 local experts), nothing else,
by ``step.calibrate_moe_host_overhead`` (which re-derives them); every other MoE row is held out.
The fit is made under the engine's default kernel mechanisms (GEMMs by shape and FP8 as run,
``StepOptions``; GB200 priced at the B200's measured GEMM rate, ``data/efficiency.csv``) and
gives 0.38 ms per local expert and 0 ms per layer: with the FP8 casts and the GEMMs' shape losses
priced, the two calibration rows need no per-layer term (the unconstrained solve is negative and
a host time cannot be; the fit is non-negative). With those mechanisms off it gave 0.31 ms per
layer and 0.40 ms per local expert: the per-layer term stood in for kernel losses now priced
where they occur. The per-expert launches carry the cost. Sanity check against kernel counts:
``MOE_EXPERT_HOST_S`` ÷ ~18 launches per local expert per layer and micro-batch (forward:
quantize, 2 GEMMs, activation; backward: twice that, plus the weight-gradient GEMMs) is ≈ 21 µs
per launch, the order of PyTorch's eager per-operator host overhead.

Not modelled: the variation with the host CPU (Grace vs x86), CUDA graphs (which remove most
of it: set both constants to 0 through ``StepOptions``), and any overlap of the host time with
another micro-batch's compute (1F1B interleaving or DualPipe can hide part of it).
"""

from __future__ import annotations

import numpy as np

from ..core.units import as_array

#: Host time per MoE layer per micro-batch, forward + backward (router, permutation, dispatch
#: bookkeeping and the host–device synchronisation it ends with), seconds. Fitted on the two
#: MoE calibration rows of ``data/validation_mfu.csv`` (``step.calibrate_moe_host_overhead``).
MOE_LAYER_HOST_S = 0.0
#: Host time per local expert per MoE layer per micro-batch, forward + backward (the grouped
#: GEMM's per-expert split, quantize and launches), seconds. Fitted as ``MOE_LAYER_HOST_S``.
MOE_EXPERT_HOST_S = 0.376e-3


def moe_host_overhead_s(n_experts, ep, recompute="none", *, layer_s=None, expert_s=None):
    """Host-bound time of one MoE layer for one micro-batch on one rank, seconds.

    ``(1 + 2 + [1 if full recompute]) · (layer_s + expert_s · n_experts / ep) / 3``
    (the module docstring gives the mechanism and the fit).

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

    Returns
    -------
    float or ndarray (seconds).

    Raises
    ------
    ValueError
        A non-positive expert count or EP size, an unknown recompute mode, a negative constant.

    Examples
    --------
    >>> round(float(moe_host_overhead_s(128, 8)) * 1e3, 2)   # Qwen3-30B-A3B, EP 8: 16 local
    6.71
    """
    E = as_array(n_experts, "n_experts", positive=True)
    e = as_array(ep, "ep", positive=True)
    a = MOE_LAYER_HOST_S if layer_s is None else float(as_array(layer_s, "layer_s", nonnegative=True))
    b = MOE_EXPERT_HOST_S if expert_s is None else float(as_array(expert_s, "expert_s",
                                                                  nonnegative=True))
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
    return moe_host_overhead_unchecked(E, e, rc, a, b)


def moe_host_overhead_unchecked(n_experts, ep, recompute_code, layer_s, expert_s):
    """``moe_host_overhead_s`` on checked arrays (the engine's path)."""
    passes = 3.0 + np.where(np.asarray(recompute_code) == 2, 1.0, 0.0)
    per_pass = (layer_s + expert_s * np.asarray(n_experts, dtype=float)
                / np.asarray(ep, dtype=float)) / 3.0
    return passes * per_pass
