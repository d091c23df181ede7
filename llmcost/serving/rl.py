"""RL post-training: one iteration of generate → score → update, a run and a campaign.

RL post-training (PPO: Schulman et al. 2017, InstructGPT: Ouyang et al. 2022; GRPO: Shao et al.
2024, DeepSeekMath, and DeepSeek-R1, 2025; DPO: Rafailov et al. 2023 as the no-generation
baseline) is where the training and the inference ledgers cross. Each iteration

1. **generates** G responses for each of the step's prompts with the current policy (inference:
   prefill, then HBM-bound decode, timed with ``llmcost.inference``'s roofline);
2. **scores** them: a reward model's forward pass, or a verifier (rule-based: no GPU FLOPs, a
   stated cost per sample), plus the reference model's log-probabilities (KL term), the critic's
   values (PPO) and, optionally, the policy's own old log-probabilities;
3. **updates** the policy (and the critic) for E PPO epochs over the batch;
4. **syncs** the new weights to the rollout engine.

FLOP accounting (Kaplan et al. 2020, arXiv:2001.08361 §2.1's 2N per token forward and 6N forward + backward;
the actor, critic, reference and reward models of Ouyang et al. 2022, arXiv:2203.02155, and
GRPO's groups of Shao et al. 2024, arXiv:2402.03300; attention ignored
in the shares, N = active parameters)::

    generation      2·N_a·(P + R) per sample  (2·N_a·(P/G + R) with prompt-prefix sharing)
    reward model    2·N_r·(P + R)        reference 2·N_ref·(P + R)     critic values 2·N_c·(P + R)
    old log-probs   2·N_a·(P + R)        policy update 6·(N_a [+ N_c for PPO])·(P + R)·E
    DPO (per pair)  6·N·(2P + R_w + R_l) + 2·N_ref·(2P + R_w + R_l)

**Time.** Generation is simulated on one rollout replica (``rollout_tp`` GPUs, across nodes if
need be) step by step: sequences enter free slots as earlier ones finish (continuous batching,
up to the KV-cache capacity at the mean length or an engine cap; HF ``generate`` runs static,
padded micro-batches instead; a caller that waits for each engine call, ``rollout_per_call``,
ends every call with its longest response), each decode step costs ``inference.decode_step`` for the live
batch and its total context at the rollout engine's fitted efficiency
(``inference.EngineEfficiency``; vLLM's decode on GB200 times an empirical factor fitted on
calibration rows, ``VLLM_DECODE_FACTORS``), and a synchronous iteration waits for the slowest
sequence.
Scoring and update passes run at the MFU ``llmcost.step_time`` predicts for one optimizer step
of the policy's update with the run's plan, micro-batches as the trainer forms them (packed
sequences, padded ones: ``optimizer_batch``; ``train_step``; ``train_mfu`` overrides it) of
the dense BF16 peak
on the trainer GPUs, one after another, or, when the models sit on their own GPUs
(``role_gpus``, OpenRLHF's Ray placement), each on its model's GPUs side by side; an optimizer
offloaded to the host CPUs (DeepSpeed's ZeRO-Offload) adds its CPU Adam and PCIe time per
optimizer step (``optimizer_offload_time``). Weight sync is sized by bytes and links (``weight_sync_time``), or, for
NeMo RL's colocated refit, by its one published measurement scaled by bytes
(``nemo_rl_refit_time``); NeMo RL's trainer also moves model state between GPU and host memory
every step (``host_swaps``, ``nemo_rl_swap_bytes``).
``rl_validation`` compares the iteration with published runs (``data/rl_iterations.csv``).
The **tail** is the generation time
above what the same tokens would take if every response had the mean length (the slowest
response holds every GPU); **partial rollouts** (Kimi k1.5, arXiv:2501.12599 §2.6.3; APRIL,
Zhou et al. 2025, arXiv:2509.18521) remove it at best (an upper bound on what they recover);
**asynchronous** RL (off-policy by k steps) overlaps generation with training on separate GPUs, with
up to k iterations' requests in flight on the rollout engine.

The parts of an iteration (GPU-seconds) sum to its total: generation, tail (GPUs waiting on the
longest responses), scoring, reference, critic, old log-probs, policy update, weight sync and
idle (GPUs of one role waiting for the other).
"""

from __future__ import annotations

import contextlib
import contextvars
import heapq
import math
import re
import warnings
from functools import lru_cache
from dataclasses import dataclass, field, fields
from statistics import NormalDist

import numpy as np
import pandas as pd
from packaging.version import InvalidVersion, Version

from ..core.catalog import (
    DATA_DIR,
    load_accelerator,
    load_efficiency,
    scenario_accelerator,
)
from ..core.diskcache import disk_cached, kept_if_quiet, value_key
from ..core.hardware import Accelerator, Cluster, Efficiency
from ..core.model import RECOMPUTE_MODES, ModelSpec
from ..core.stacks import DEFAULT_STACK, StackFeatureWarning
from ..core.units import (MAX_EXACT_INTEGER, SECONDS_PER_HOUR, as_array, as_count, as_flag,
                          as_scalar, options_with)
from ..training.memory import DEFAULT_RESERVE, RECIPES, fits, memory_per_gpu
from ..training.options import StepOptions
from ..training.parallel import (ETP_KEY, PlanError, choose_plan, etp_of_key,
                                frame_memory_arrays, make_plan, margin_weighted_step_s,
                                stack_plan_search)
from ..training.step import PlanDoesNotFitWarning, step_time, time_ranking
from . import inference as inf

ALGORITHMS = ("ppo", "grpo", "dpo")
#: The scenario keys a DPO iteration does not read (``pass_flops``: a reference forward and one
#: update over given pairs, no generation, reward or epochs; ``responses_per_prompt``: 2): the
#: bill's warning says why each (``bill.checks.DPO_IGNORED_KEYS``, the same keys).
DPO_UNREAD_KEYS = ("rl_samples_per_prompt", "rl_reward", "rl_response_tokens_max",
                   "rl_rollout_tp", "rl_rollout_weight_dtype", "rl_async",
                   "rl_partial_rollouts", "rl_ppo_epochs")
PARTS = ("generation", "tail", "scoring", "reference", "critic", "old_logprobs", "policy_update",
         "weight_sync", "idle")
#: Training-pass MFU used when none is given: 40% (a typical dense BF16 MFU of
#: large training runs, e.g. Llama 3 405B 38-43%, arXiv:2407.21783 Table 4).
DEFAULT_TRAIN_MFU = 0.40
#: Partial rollouts' measured rollout-throughput gain: +22.5% on average (APRIL, Zhou et al.
#: 2025, arXiv:2509.18521v3, abstract: "improves rollout throughput by 22.5% on average"), +44%
#: at most (the same paper's v1 abstract: "by at most 44%"). The model removes the tail up to
#: the best measured gain (``RLOptions.partial_rollouts``: generation at most 1.44× faster, and
#: never below the time at the mean response length): a bill that removed the whole tail,
#: the bound, priced one trial's campaign 2.3× cheaper where APRIL's average gain would be 1.2×.
PARTIAL_ROLLOUT_GAIN_MEAN, PARTIAL_ROLLOUT_GAIN_MAX = 0.225, 0.44
#: Rollout engines: the serving engine families (``llmcost.serving.inference.ENGINE_FAMILIES``,
#: their fitted share of the roofline and per-step overhead) and "roofline" (the bound itself).
ROLLOUT_ENGINES = ("roofline",) + inf.ENGINE_FAMILIES
#: Hugging Face ``generate`` (eager PyTorch, no CUDA graphs, no paged KV, no continuous batching)
#: pays a host cost per decode step for every layer's kernel launches and Python dispatch:
#: seconds per layer per decode step, fitted by ``fit_hf_generate_overhead`` on the
#: *calibration* rows of ``data/rl_iterations.csv`` that generate with HF generate (OpenRLHF's
#: benchmark, Llama-2-7B, three rows); the held-out rows judge it. Added on top of the engine
#: family's roofline fractions (``data/engine_efficiency.csv``, "HF generate": the pooled fit)
#: and of ``HF_GENERATE_KV_COPIES`` (refitted when that term was added: 1.093 → 0.807 ms; and
#: when the forward-only passes took the step's HFU, ``training_mfu``: 0.807 → 0.846 ms; and
#: when vLLM's performance-benchmark A100 and H100 rows joined the pooled fit: 0.846 → 0.878 ms;
#: and when MI300X's hbm_fraction 0.90 → 0.79 (its own BabelStream Copy) refitted the pooled
#: constants: 0.878 → 0.881 ms; and when the DeepSpeed-Chat rows' SDPA attention let the host
#: cost overlap the GPU's work, ``hf_host_overlaps``, while OpenRLHF's FlashAttention-2 rows keep
#: the sum: 0.881 → 1.231 ms; and when OpenRLHF's Ray rows waited only for each rank's own
#: experience forwards, ``RLOptions.experience_interleaved``: 1.231 → 1.268 ms; and when that
#: wait counted each rank's queue on the first of its m micro-rollout batches: 1.268 → 1.266 ms).
HF_GENERATE_S_PER_LAYER_STEP = 1.266e-3
#: Hugging Face ``generate``'s dynamic KV cache grows every layer's keys and values by
#: ``torch.cat`` at each decode step, so each step reads the whole cache once more and writes
#: it once (2 passes over the cache's bytes beyond attention's read, priced at the engine's
#: KV-read fraction). Read from huggingface/transformers src/transformers/cache_utils.py @
#: 004999d (``DynamicLayer.update``: ``self.keys = torch.cat([self.keys, key_states],
#: dim=-2)``); OpenRLHF's benchmark ran transformers 4.38.2, whose ``DynamicCache.update``
#: is assumed to concatenate the same way (not read at that tag). Added after the held-out
#: errors had been seen (a mechanism from the code, not fitted).
HF_GENERATE_KV_COPIES = 2.0
#: A candidate, judged and left off (``hf_batch_host_check``): HF generate's host cost per layer
#: per decode step growing with the batch, ``a + c · b`` for b sequences (``_engine_step_s``),
#: instead of the one constant ``HF_GENERATE_S_PER_LAYER_STEP``. The published DeepSpeed-Chat
#: Llama-2-7B generation grows only 1.40x at half the batch where a constant per-step cost
#: doubles it: OpenRLHF/OpenRLHF benchmark/README.md @ dbdd43b0899b069a276fbc8813c6769011975806
#: (``DSCHAT_7B_NO_OFFLOAD``: micro-batch 4, 975.36 s) against the row
#: openrlhf-bench-7b-dschat (micro-batch 8, 697.12 s; benchmark/README.md @ 0baf3dd), i.e.
#: 975.36 / 32 / 1,024 = 29.8 ms a step at 4 sequences against 697.12 / 16 / 1,024 = 42.5 ms
#: at 8. No code or datasheet prices the slope: (a, c) in s per layer per decode step and s per
#: sequence per layer per decode step are fitted by ``fit_hf_batch_host`` on the *calibration*
#: rows that generate with HF generate (three Llama-2-7B rows of the benchmark, batches 8, 8
#: and 16) and that published ablation point (not a validation row); the held-out rows are
#: never read by the fit. Fitted after the held-out errors had been seen.
HF_BATCH_HOST_FIT = (0.659e-3, 0.0656e-3)
#: Hugging Face attention implementations (``attn_implementation``) a rollout's HF generate may
#: run, and those among them whose decode step synchronises host and GPU in every layer. In
#: huggingface/transformers v4.38.2 (the version OpenRLHF's benchmark ran; wheel
#: transformers-4.38.2, src/transformers/models/llama/modeling_llama.py) FlashAttention-2 on a
#: batch with padding (``LlamaModel._update_causal_mask`` l. 1058-1059 passes the 2-D mask on
#: ``if attention_mask is not None and 0.0 in attention_mask``) unpads every layer's keys and
#: values (``LlamaFlashAttention2._flash_attention_forward`` l. 533-537 -> ``_upad_input``
#: l. 564-565 -> ``_get_unpad_data`` l. 62-65: ``torch.nonzero(...)`` and
#: ``seqlens_in_batch.max().item()``, each a device-to-host synchronisation), so the host cannot
#: queue a layer's kernels while the GPU runs the layers before it: host and GPU time add. SDPA
#: (``LlamaSdpaAttention``, l. 603-687) and eager attention hold no synchronisation inside the
#: step (the step's own: ``torch.any(attention_mask != 1)``, l. 1089, and generate's stopping
#: check ``unfinished_sequences.max() == 0``, generation/utils.py l. 2463 greedy, l. 2757
#: sampling), so the host queues
#: the step's kernels while the GPU runs them: a step costs max(GPU, host) (``_engine_step_s``).
#: Read from the code after the held-out errors had been seen; nothing fitted.
HF_ATTENTIONS = ("eager", "sdpa", "flash_attention_2")
HF_SYNCING_ATTENTIONS = ("flash_attention_2",)
#: The attention each system's HF generate ran in the validation rows (``row_hf_host_overlap``):
#: DeepSpeed-Chat's ``create_hf_model`` (microsoft/DeepSpeedExamples applications/DeepSpeed-Chat/
#: dschat/utils/model/model_utils.py @ 6863634) calls ``from_pretrained`` without
#: ``attn_implementation``, so transformers v4.38.2 picks SDPA (modeling_utils.py
#: ``_autoset_attn_implementation`` l. 1367-1372 -> ``_check_and_enable_sdpa`` l. 1535-1543,
#: torch >= 2.1.1: the benchmark ran torch 2.1.2); OpenRLHF's ``Actor`` (openrlhf/models/actor.py
#: @ 0baf3dd l. 44) sets "flash_attention_2" with ``--flash_attn`` (else "eager"), which every
#: PPO example script of that commit passes and the benchmark's software list names
#: (flash-attn 2.3.6, benchmark/README.md @ 0baf3dd), and its HF path pads each micro-batch's
#: prompts to the longest (``tokenize_fn``, ``padding=True``, experience_maker.py l. 101-108).
HF_ATTENTION_BY_SYSTEM = {"DeepSpeed-Chat": "sdpa", "OpenRLHF": "flash_attention_2"}


def hf_host_overlaps(attention: str) -> bool:
    """Whether HF generate's host cost overlaps the GPU's work of a decode step with the given
    attention implementation: not one of ``HF_SYNCING_ATTENTIONS`` (their sources)::

        step = max(GPU, c · layers)   SDPA, eager
        step = GPU + c · layers       FlashAttention-2 (padded batches: a sync per layer)

    By hand: "sdpa" True, "eager" True, "flash_attention_2" False.

    Raises
    ------
    ValueError
        ``attention`` not one of ``HF_ATTENTIONS``."""
    if attention not in HF_ATTENTIONS:
        raise ValueError(f"attention={attention!r} must be one of {HF_ATTENTIONS}")
    return attention not in HF_SYNCING_ATTENTIONS


#: vLLM's decode on a GB200 (Grace-hosted Blackwell) rollout GPU, relative to the engine's
#: efficiency fitted on Hopper, Ampere and MI300X serving rows (``data/engine_efficiency.csv``,
#: no Blackwell row among them): each decode step of a vLLM replica on the accelerator takes
#: this factor times the ``_engine_step_s`` price (prefill unchanged). Fitted by
#: ``fit_vllm_decode_factor`` on the *calibration* rows of ``data/rl_iterations.csv`` on that
#: accelerator (NeMo RL's v0.5 GB200 rows, Llama 3.1 8B and Qwen3-30B-A3B, on-policy and one
#: step off: ``added`` "v4", committed as calibration before any of their errors was
#: computed), the whole step time attributed to generation. An empirical factor, not a
#: mechanism: the rows publish no phase split, and the miss is put on the rollout because the
#: step-time model meets its own GB200 pre-training rows (their count and signed mean MFU
#: error: ``benchmarks/validate_rl.py`` prints them, "the step model on its ... GB200
#: validation rows"). 2.459 is near the catalogue's
#: GB200 : H100 HBM bandwidth (2.39x), as if the decode ran at Hopper's bandwidth; why vLLM runs
#: slower there (Grace's host, unquantized kernels untuned for SM100, NeMo RL's worker
#: overheads) no public figure prices. Nor is it known to be GB200's alone: NeMo RL's H100
#: rows are predicted short as well (held out; the v0.3 blog's generation phases at 0.55-0.89
#: of published), so part of it may be NeMo RL's rollout on any GPU; no H100 calibration row
#: separates the two. Added after the held-out GB200 rows' errors had been seen (the v0.6
#: rows, held out; the factor is not fitted on them). Accelerators not listed: 1.
VLLM_DECODE_FACTORS = {"GB200-NVL72": 2.459}

#: vLLM's V1 engine (the default from v0.8.0: vllm-project/vllm pull request 13726, in the
#: v0.8.0 release) captured **piecewise** CUDA graphs by default until v0.11.0, split at every
#: layer's attention (``CompilationConfig.full_cuda_graph = False``), so each decode step
#: launches the attention between graph pieces from the host; v0.11.0 made FULL_AND_PIECEWISE
#: the default (vllm-project/vllm pull request 25444, "[Perf] Change default CUDAGraphMode from
#: PIECEWISE to FULL_AND_PIECEWISE", 2025-09-23: "especially for low latency with small models or
#: MoEs"). Its measurement, Qwen3-Coder-30B-A3B-Instruct-FP8 (48 layers, 128 experts) on one
#: H100, 10 requests of 1,024 prompt and 128 output tokens (all at once: ``vllm bench serve``'s
#: request rate defaults to infinity): default (PIECEWISE) 4.07 req/s, FULL_AND_PIECEWISE 5.98
#: req/s. FULL_AND_PIECEWISE graphs the uniform decode steps only (the prefill runs piecewise
#: either way), so the difference is the 127 decode steps':
#:
#:     (10 / 4.07 − 10 / 5.98) s / 127 steps = 6.18 ms per decode step
#:
#: ``VLLM_PIECEWISE_S_PER_STEP``, an MoE policy's cost only (``rollout_time``): dense models gain
#: little from full graphs (pull request 16072: "reduces median TPOT by 7% for small models like
#: Qwen 2.5 1.5B"). Priced per decode step, the measurement's own unit, not scaled by layers or
#: batch: the cost is the host's launches exposed while the GPU's work per layer is small (one GPU,
#: batch 10, 3B active parameters), and a larger model hides more of it
#: (github.com/vllm-project/vllm/issues/47089, Qwen3-235B-A22B-FP8 on B200 with a much later vLLM:
#: 0.7-1.2 ms per step at batch 1-128), so for the larger MoE policies (Qwen3-235B, DeepSeek-V3) it
#: is an upper bound. The engine's efficiency (``data/engine_efficiency.csv``) was fitted on V0-era
#: builds, whose decode ran in whole graphs, so it holds none of this. Added after the held-out NeMo
#: RL v0.3 and v0.4 MoE rows (vLLM 0.9.0 and 0.10.0) were seen predicted short; nothing fitted on
#: them.
VLLM_PIECEWISE_REQ_PER_S = (4.07, 5.98)   # PIECEWISE, FULL_AND_PIECEWISE (pull request 25444)
VLLM_PIECEWISE_S_PER_STEP = (10 / VLLM_PIECEWISE_REQ_PER_S[0]
                             - 10 / VLLM_PIECEWISE_REQ_PER_S[1]) / 127
#: The vLLM releases whose V1 engine decodes in piecewise CUDA graphs by default: from v0.8.0
#: (V1 the default) to before v0.11.0 (FULL_AND_PIECEWISE the default).
VLLM_PIECEWISE_VERSIONS = ((0, 8, 0), (0, 11, 0))


def vllm_piecewise_graphs(version) -> bool:
    """Whether a vLLM release decodes in piecewise CUDA graphs by default (its V1 engine before
    v0.11.0, ``VLLM_PIECEWISE_VERSIONS``): "0.9.0" and "0.10.0" True; "0.3.1" (V0, whole
    decode graphs), "0.11.2" False. None or "": False (a current vLLM).

    Raises
    ------
    ValueError
        A version PEP 440 cannot read (``packaging.version``: "0.10.1.1" and "0.8.5.post1",
        releases on PyPI, read; "latest" does not)."""
    if version is None or (isinstance(version, float) and math.isnan(version)) or version == "":
        return False
    try:
        v = Version(str(version).strip()).release
    except InvalidVersion:
        raise ValueError(f"vllm_version={version!r} must be a release such as '0.10.0'") \
            from None
    v = (tuple(v) + (0, 0, 0))[:3]
    lo, hi = VLLM_PIECEWISE_VERSIONS
    return lo <= v < hi
#: Training plan used when ``train_plan`` is not given: ZeRO-1 data parallelism with full
#: activation recomputation and micro-batch 1 (the RL frameworks' common settings: OpenRLHF
#: and DeepSpeed-Chat ZeRO stages with gradient checkpointing, NeMo RL's Megatron distributed
#: optimizer; NeMo RL's recipes set ``activation_checkpointing`` per model, true for its
#: Llama-3.1-8B and DeepSeek-V3 recipes, false for Qwen3-30B-A3B: the validation rows give
#: their own, ``row_recompute``).
DEFAULT_TRAIN_PLAN = dict(tp=1, pp=1, cp=1, ep=1, zero_stage=1, micro_batch_size=1,
                          recompute="full", pp_split="even", etp=None)
#: How the weight sync is priced (``RLOptions.refit``): "links", by bytes and links
#: (``weight_sync_time``); "nemo-rl", NeMo RL v0.3's measured colocated refit (CUDA-IPC handles
#: per parameter group, ``NEMO_RL_REFIT_S``; separate rollout GPUs by links); "nemo-rl-v0.4",
#: the refits of NeMo RL v0.4.0 and later, measured: colocated streamed
#: (``NEMO_RL_ZMQ_REFIT_S``), separate GPUs by overlapped NCCL broadcast
#: (``NEMO_RL_NCCL_REFIT_S``); both by ``nemo_rl_refit_time``.
REFIT_MODELS = ("links", "nemo-rl", "nemo-rl-v0.4")
#: The models whose passes can sit on their own GPUs (``RLOptions.role_gpus``): the actor (old
#: log-probabilities and the policy update), the critic (values and its update), the reference
#: model and the reward model.
ROLES = ("actor", "critic", "reference", "reward")
#: Which role runs each scoring or update pass (the policy update is split into the actor's and
#: the critic's by their FLOPs, ``pass_times``).
PASS_ROLE = {"scoring": "reward", "reference": "reference", "critic": "critic",
             "old_logprobs": "actor"}
#: The passes that make the experience (forward passes before the update).
EXPERIENCE_PASSES = ("scoring", "reference", "critic", "old_logprobs")
#: NeMo RL's colocated refit of DeepSeek-V3, measured: 47.2 s = policy parameter gather 12.2 s
#: + CUDA-IPC handle transfer 33.5 s + vLLM weight update 1.5 s (NeMo-RL v0.3, training EP64·PP8,
#: generation TP64; its speed of light, full network and HBM bandwidth with no host cost, 3.3 s
#: for the gather alone, 3.31 s in all).
NEMO_RL_REFIT_S = 47.2
NEMO_RL_REFIT_POLICY = "deepseek-v3"
NEMO_RL_REFIT_SOURCE = ("NVIDIA NeMo blog, 'NeMo-RL: Journey of Optimizing Weight Transfer in "
                        "Large MoE Models by 10x' (2025-08-12, "
                        "nvidia-nemo.github.io/blog/2025/08/12/nemo-rl-refit-performance; "
                        "NVIDIA-NeMo/RL discussion #1189), Table 1: NeMo-RL v0.3, DeepSeek V3, "
                        "training EP64PP8, generation TP64: 12.2 + 33.5 + 1.5 = 47.2 s")
#: NeMo RL's colocated refit of DeepSeek-V3 from v0.4.0 on: the policy workers stream their
#: weights to vLLM in buckets over CUDA IPC with ZMQ handshakes, overlapping packing and
#: transfer (``refit_policy_generation`` calls ``policy.stream_weights_via_ipc_zmq`` and
#: ``policy_generation.update_weights_via_ipc_zmq``: NVIDIA-NeMo/RL nemo_rl/algorithms/grpo.py
#: @ c751f811, v0.4.0, lines 801-804, and @ 5fb5889, v0.6.0, lines 1157-1160), which replaced
#: the per-group handle passing the 47.2 s above measured (grpo.py @ b1c86a8, v0.3.0, line 428:
#: ``policy.get_weights_ipc_handles``). Measured "~35 seconds" for the complete DeepSeek-V3
#: refit by the change's author; the GPU count and parallel layouts of that run are not
#: stated (taken as the performance recipes' and scaled by bytes like ``NEMO_RL_REFIT_S``).
NEMO_RL_ZMQ_REFIT_S = 35.0
#: NeMo RL's refit of DeepSeek-V3 to separate rollout GPUs (NCCL broadcast) from v0.4.0 on,
#: with parameter iteration overlapped with packing and broadcast in ``NRL_REFIT_NUM_BUFFERS``
#: buffers (nemo_rl/utils/packed_tensor.py @ c751f811 l. 36 and @ 5fb5889; absent at b1c86a8):
#: measured 34 s -> 14 s by the change ("DSV3: 34 s --> 14 s (2.4x)"; Qwen3-235B 13 s -> 5.5 s);
#: the GPU count and layouts not stated (scaled by bytes as ``NEMO_RL_REFIT_S``). Taken for
#: the v0.4 and v0.6 asynchronous rows after their errors had been seen (it replaces their
#: bytes-over-links estimate, 28 s for DeepSeek-V3); a measurement of the path their code
#: runs, not fitted.
NEMO_RL_NCCL_REFIT_S = 14.0
NEMO_RL_NCCL_REFIT_SOURCE = ("NVIDIA-NeMo/RL pull request 1379 'feat: Overlap param iteration and "
                             "broadcast in non-colocated refit' (github.com/NVIDIA-NeMo/RL/pull/"
                             "1379, 2025-10-16; cherry-picked into r0.4.0 as github.com/NVIDIA-"
                             "NeMo/RL/pull/1418), Performance: 'DSV3: 34 s --> 14 s (2.4x)'")
NEMO_RL_ZMQ_REFIT_SOURCE = ("NVIDIA-NeMo/RL pull request 1267 'feat: refit refactoring with zmq "
                            "and overlapping' (github.com/NVIDIA-NeMo/RL/pull/1267, cherry-picked "
                            "into r0.4.0 as github.com/NVIDIA-NeMo/RL/pull/1409), review thread "
                            "2025-10-18, its author: 'the complete DeepSeek-V3 refitting takes "
                            "~35 seconds with over 175 distinct IPC transfers'")
#: The offload around NeMo RL's colocated refit of DeepSeek-V3, measured: "The ~20s overhead is
#: due to offload" of a 55 s refit (mcore with sequence packing, DeepSeek-V3 with vLLM TP 64;
#: the training layout and GPU count not stated). At v0.3.0 the refit's timer
#: (``prepare_for_generation``, grpo.py @ b1c86a8 l. 542) holds ``offload_before_refit`` (the
#: Adam moments to host memory by ``v.to("cpu")``, pageable, one tensor at a time; the gradient
#: buffers released; ``gc.collect``, ``empty_cache``), vLLM's ``wake_up`` of its weights,
#: the transfer, ``offload_after_refit`` (the weights to pinned host memory) and the KV cache's
#: ``wake_up``; the offload code is the same at v0.4.0 (megatron_policy_worker.py @ c751f811,
#: ``optimizer_cpu_offload: false`` in grpo_math_1B.yaml) and v0.6.0. Taken for the colocated
#: rows after their errors had been seen (their shortfall of a roughly constant 30-40 s on
#: DeepSeek-V3 pointed at it); a measurement, not fitted. Assumed outside the ~35 s of
#: ``NEMO_RL_ZMQ_REFIT_S`` (its author counts the IPC transfers; v0.4.0 times the transfer
#: apart, ``prepare_for_generation/transfer_and_update_weights``, grpo.py @ c751f811 l. 782):
#: if that figure held the offload, the two overlap by up to 20 s. Added to v0.3's 47.2 s
#: (``NEMO_RL_REFIT_S``), not counted twice, though pull 638 is in v0.3.0 (commit 8f7d71efd, an
#: ancestor of b1c86a8): the blog's Table 1 "Total Refit Time" is the sum of its three steps
#: (policy parameter gather, IPC handle transfer, generation parameter update: 12.2 + 33.5 +
#: 1.5 s), the loop of ``refit_policy_generation`` at grpo.py @ b1c86a8 l. 419-433, while the
#: offload runs before and after that loop in the same function (l. 412
#: ``offload_before_refit``, l. 454 ``offload_after_refit``), so outside the blog's steps and
#: inside the ``prepare_for_generation`` timer (l. 542) that pull 638's 55 s reads: v0.3's
#: timer = 47.2 + 20 s. The two are different runs and do not agree exactly (pull 638's timer
#: less its offload leaves 35 s for the three steps, the blog's 47.2 s; the blog's Table 2 puts
#: the change and two others, pulls 638, 686 and 698, at 120 s -> 47 s).
NEMO_RL_OFFLOAD_S = 20.0
NEMO_RL_OFFLOAD_SOURCE = ("NVIDIA-NeMo/RL pull request 638 'feat: optimize refit by preparing refit "
                          "info ahead of time' (github.com/NVIDIA-NeMo/RL/pull/638, 2025-07-10), "
                          "time cost 'In mcore w/ packing (dsv3 w/ 64 tp) ... Speedup from 105s "
                          "to 55s ... The ~20s overhead is due to offload'")
#: DeepSpeed's CPU-offloaded optimizer (ZeRO-Offload, Ren et al. 2021, arXiv:2101.06840:
#: DeepSpeedCPUAdam on the host, the updated 16-bit parameters copied back to the GPU in chunks
#: as the host computes them), parameters updated per second by one host's CPUs: Llama-2-7B's
#: whole update (6.74e9 parameters) on a host of 4 A100s takes "longer than 4s" on this CPU path
#: (DeepSpeed's ZenFlow blog below), 6.74e9 / 4 s. A host rate, not a per-GPU one (CPU Adam streams the FP32 master
#: weights and both moments through host memory; the ranks of one host share its CPUs and DRAM).
#: "Longer than": the priced wait is a lower bound. Measured on one A100 host, used for the A100
#: generation's hosts (A800 servers); no other generation's host rate is sourced.
CPU_ADAM_PARAMS_PER_S_PER_HOST = 6.74e9 / 4.0
CPU_ADAM_SOURCE = ("DeepSpeed ZenFlow blog (deepspeedai/DeepSpeed blogs/deepspeed-zenflow/README.md "
                   "@ cda3f9628, PR #7463): 'For Llama-2-7B with 4x A100, "
                   "the CPU path can take longer than 4s while the backward pass takes "
                   "approximately 2s'; 'Synchronous offloading frameworks (e.g., ZeRO-Offload) "
                   "keep the GPU idle while the CPU performs a full optimizer step and transfers "
                   "updated parameters back to GPU'; 'A single training step moves a full copy of "
                   "the model gradients from GPU to CPU and a full copy of the model parameters "
                   "back ... Even on PCIe 4.0 (≈ 32 GB/s)'")
#: GPUs per host (the HGX / DGX boards of the offloaded validation rows: 8 per server).
GPUS_PER_HOST = 8
#: Host link per GPU, bytes/s per direction: PCIe x16, nominal (Gen4 32 GB/s, as the ZenFlow
#: blog above takes it; Gen5 64 GB/s), by accelerator family (catalogue name prefix). GB200: the
#: Grace CPU's NVLink-C2C, "900 GB/s" bidirectional between one Grace CPU and the two Blackwell
#: GPUs of a GB200 superchip (NVIDIA GB200 NVL72 product page,
#: nvidia.com/en-us/data-center/gb200-nvl72/), taken as shared by the two GPUs: 900 / 2 / 2 =
#: 225 GB/s per GPU per direction (the sharing is this model's assumption). GB300: the same
#: Grace CPU and NVLink-C2C, 900 GB/s to its two Blackwell Ultra GPUs (NVIDIA GB300 NVL72
#: product page, nvidia.com/en-us/data-center/gb300-nvl72/), shared alike (a robustness sweep's
#: GB300 RL scenario with a framework's host swaps was refused for want of it). B200: its hosts'
#: CPUs are PCIe Gen5 (NVIDIA DGX B200 User Guide, "Introduction to NVIDIA DGX B200 Systems":
#: "2 x Intel Xeon 8570 PCIe Gen5 CPUs"), so a Gen5 x16 link, though the GPU also speaks Gen6.
PCIE_BYTES_PER_S_PER_DIR = {"A100": 32e9, "A800": 32e9, "H100": 64e9, "H800": 64e9,
                            "H200": 64e9, "B200": 64e9, "GB200": 225e9, "GB300": 225e9}
#: GPUs that share one x16 uplink to the host CPU, by accelerator family, on the servers whose
#: topology is published (``HOST_TOPOLOGY_SOURCE``): Azure's ND A100 v4 (8 A100) hangs two GPUs
#: and two NICs under each of four x16 Gen4 bridges, as NVIDIA's DGX A100 hangs them under four
#: PCIe switches; Azure's ND H100 v5 gives each H100 its own x16 Gen5 bridge. Whether the
#: OpenRLHF benchmark's A800 servers (their README names no server) are built so is not
#: published. A candidate, ``shared_uplink_check``: read after the RL validation's held-out
#: errors had been seen.
HOST_UPLINK_GPUS = {"A100": 2, "A800": 2}
HOST_TOPOLOGY_SOURCE = ("Azure/azhpc-images NCCL topology files (hints NCCL loads through "
                        "NCCL_TOPO_FILE, not a datasheet): topology/ndv4-topo.xml @ 4a4565a0 "
                        "(ND A100 v4: four 16 GT/s x16 bridges, each holding two GPUs, class "
                        "0x030200, and two NICs, class 0x020700) and topology/ndv5-topo.xml @ "
                        "d21d11e3 (ND H100 v5: eight 32 GT/s x16 bridges, one GPU and one NIC "
                        "each); NVIDIA's GPUDirect Storage guide, 'Validate PCI Switch System "
                        "Topology': 'Example of compatible topology from a DGX-A100. The GPUs "
                        "and the NICs are under the same switch'")
#: NeMo RL's Megatron policy worker moves model state between GPU and host memory every step
#: (``nemo_rl_swap_bytes``); the bytes per element it moves: BF16 weights (the gradient
#: buffers, BF16 with ``grad_reduce_in_fp32: false`` in NeMo RL's base GRPO config,
#: examples/configs/grpo_math_1B.yaml @ 06beed9, are released, not moved) and the two FP32 Adam
#: moments of the distributed optimizer (``move_optimizer`` moves ``optimizer.state``; the
#: FP32 master weights are not counted).
NEMO_RL_SWAP_WEIGHT_BYTES, NEMO_RL_SWAP_ADAM_BYTES = 2.0, 8.0


# ------------------------------------------------------------------------------ helpers
def _int(name, v, minimum=1):
    return as_count(v, name, minimum)


def _float(name, v, *, positive=False, nonnegative=False, upper=None):
    return as_scalar(v, name, positive=positive, nonnegative=nonnegative, upper=upper)


def _params(name, v, active: bool = True) -> float:
    """Active (or, ``active=False``, all) parameter count of a helper model: a ModelSpec, a
    catalogue name or a number."""
    if isinstance(v, (ModelSpec, str)):
        try:
            m = inf.serving_model(v)
            return float(m.n_active_params if active else m.n_params)
        except ValueError as e:
            raise ValueError(f"{name}={v!r}: {e}") from None
    if isinstance(v, (list, tuple, dict, np.ndarray)):
        raise ValueError(f"{name}={v!r} must be a ModelSpec, a catalogue model name or a "
                         "parameter count")
    return _float(name, v, positive=True)


def response_lengths(mean_tokens, max_tokens, n):
    """n response lengths with a given mean and a long-tail maximum.

    Lognormal quantiles (a common shape for LLM output lengths) with the mean fixed and the
    largest of n samples, the quantile 1 − 1/(2n), at ``max_tokens``: for z that quantile's
    standard normal score, σ = z − √(z² − 2·ln(max/mean)), μ = ln(mean) − σ²/2; values are
    capped at ``max_tokens`` (a generation limit), then rescaled so the mean is exact. The shape
    is an assumption; pass your own lengths to ``rl_iteration`` to use a measured distribution.

    Returns
    -------
    ndarray of n whole numbers >= 1, sorted descending.

    Raises
    ------
    ValueError
        If mean > max, or the tail ratio max/mean is too large for n samples (z² < 2·ln ratio).
    """
    m = _float("mean_tokens", mean_tokens, positive=True)
    mx = _float("max_tokens", max_tokens, positive=True)
    n = _int("n", n)
    if mx < m:
        raise ValueError(f"max_tokens={max_tokens!r} must be >= mean_tokens={mean_tokens!r}")
    if mx == m or n == 1:
        return np.full(n, max(1, round(m)), dtype=int)
    z = NormalDist().inv_cdf(1 - 1 / (2 * n))
    disc = z * z - 2 * math.log(mx / m)
    if disc < 0:
        raise ValueError(f"max_tokens={max_tokens!r}: a tail of {mx / m:.0f}x the mean cannot be "
                         f"the longest of {n} lognormal samples (at most "
                         f"{math.exp(z * z / 2):.0f}x); use more samples or a shorter tail")
    sigma = z - math.sqrt(disc)
    mu = math.log(m) - sigma ** 2 / 2
    x = np.exp(mu + sigma * _normal_scores(n))
    for _ in range(20):                       # cap at the limit and keep the mean
        x = np.minimum(x, mx)
        x *= m / x.mean()
    x = np.clip(np.round(np.minimum(x, mx)), 1, mx).astype(int)
    return np.sort(x)[::-1]


@lru_cache(maxsize=64)
def _normal_scores(n: int) -> np.ndarray:
    """The standard normal scores of the n mid-point quantiles ``(i + 0.5) / n``, i < n
    (``response_lengths``), computed once per n and read-only."""
    z = np.array([NormalDist().inv_cdf((i + 0.5) / n) for i in range(n)])
    z.flags.writeable = False
    return z


def geometric_lengths(theta_tokens, max_tokens, n):
    """n response lengths of a generation that stops at its end-of-sequence token with one
    probability p = 1/θ at every token (a geometric length on 1, 2, …, the maximum-entropy
    distribution of a positive whole number of given mean: p(x) ∝ e^(λx), Cover & Thomas,
    *Elements of Information Theory*, 2nd ed., §12.1 and problem 2.30), cut at the engine's
    ``max_tokens`` limit L
    (a response still running at L stops there)::

        P(R > k) = (1 − p)^k  (k < L),  R = L with probability (1 − p)^(L−1)
        E[R] = Σ_{k=0}^{L−1} (1 − p)^k = (1 − (1 − p)^L) / p

    The i-th of n lengths is the quantile q_i = (i + ½)/n: R_i = min(L, ⌈ln(1 − q_i) / ln(1 − p)⌉).
    By hand, θ = 4 (p = ¼), L = 6, n = 4: ln(1 − q)/ln ¾ at q = ⅛, ⅜, ⅝, ⅞ is 0.46, 1.63,
    3.41, 7.23 → 1, 2, 4, 6 (8 cut at 6); E[R] = (1 − ¾⁶)/¼ = 3.288. The shape is an
    assumption (the lengths of the runs it prices are unpublished): given only a mean, it
    assumes the least, and its tail is what a batch that waits for its longest response pays.

    Returns
    -------
    ndarray of n whole numbers in [1, L], sorted descending.

    Raises
    ------
    ValueError
        θ <= 1 (p >= 1: every response one token) or not a number; L or n not a whole number
        >= 1."""
    theta = _float("theta_tokens", theta_tokens, positive=True)
    if theta <= 1.0:
        raise ValueError(f"theta_tokens={theta_tokens!r} must be > 1 (the mean of the uncut "
                         "geometric length; 1 means every response stops at its first token)")
    mx = _int("max_tokens", max_tokens)
    n = _int("n", n)
    q = (np.arange(n) + 0.5) / n
    k = np.ceil(np.log1p(-q) / math.log1p(-1.0 / theta))
    return np.sort(np.clip(k, 1, mx).astype(int))[::-1]


def expected_batch_max(lengths, c) -> float:
    """E[max of c lengths drawn independently from ``lengths``' distribution] (its empirical
    distribution F(t) = #{R_i <= t} / n): the decode steps of a batch that ends with its longest
    response. For whole numbers, E[M] = Σ_{t>=0} P(M > t) = Σ_{t=0}^{max−1} (1 − F(t)^c)
    (the order statistic of c independent draws: P(M <= t) = F(t)^c; David & Nagaraja,
    *Order Statistics*, 3rd ed., §2.1). By hand: lengths {100, 1000}, c = 2: P(M = 100) = ¼,
    E[M] = ¼·100 + ¾·1000 = 775; c = 1 gives the mean, 550.

    Raises
    ------
    ValueError
        Empty or non-positive lengths, or c not a whole number >= 1."""
    s = _batch_survival(lengths, c)
    return float(s.sum())


def _batch_survival(lengths, c) -> np.ndarray:
    """S(t) = 1 − F(t)^c for t = 0 … max − 1: the probability a batch of c draws from
    ``lengths`` is still decoding at step t (``expected_batch_max``)."""
    r = as_array(lengths, "lengths", positive=True, integer=True).astype(int).reshape(-1)
    if not r.size:
        raise ValueError("lengths=[] must hold at least one response")
    c = _int("c", c)
    f = np.searchsorted(np.sort(r), np.arange(int(r.max())), side="right") / r.size
    return 1.0 - f ** c


# ------------------------------------------------------------------------------ generation
def _rollout_accelerator(acc: Accelerator, tp: int) -> tuple[Accelerator, str]:
    """The accelerator a rollout replica of ``tp`` GPUs sees. TP beyond one scale-up domain
    (NeMo RL's vLLM TP 32 for DeepSeek-V3 spans four 8-GPU nodes) runs its all-reduces at the
    slowest link of the ring, one NIC per GPU: the replica is priced as one domain of ``tp``
    GPUs whose links have the scale-out bandwidth (a ring all-reduce is bound by its slowest
    hop; Patarasuk & Yuan 2009)."""
    domain = acc.scaleup_domain_size or 1
    if tp <= domain:
        return acc, ""
    if not acc.scaleout_bytes_per_s_per_dir:
        raise ValueError(f"rollout_tp={tp} spans more than one {acc.name} scale-up domain "
                         f"({domain} GPUs) and the catalogue has no scale-out bandwidth for it")
    return (acc.replace(scaleup_domain_size=tp,
                        scaleup_bytes_per_s_per_dir=acc.scaleout_bytes_per_s_per_dir),
            f"rollout TP {tp} across {math.ceil(tp / domain)} scale-up domains: all-reduces "
            "at the scale-out bandwidth")


#: NCCL 2.7.5's tuning constants for an all-reduce across nodes (NVIDIA/nccl
#: src/graph/tuning.cc @ 01afd20a, the 2020 version ``data/efficiency.csv``'s ``ll_*``
#: latencies cite; later NCCL versions changed these tables): l.56 ``baseLat``, l.63-70
#: ``hwLat`` (µs), l.132 ``intraLat *= 1.8`` for the LL protocol when nNodes > 1.
#: Ring/LL: 2.7 µs per inter-node step (``hwLat[NET][Ring][LL]``; its base 3.6 µs and NVLink
#: step 0.47 µs are the efficiency's ``ll_base_latency_s``/``ll_step_latency_s``).
NCCL_LL_NET_STEP_LATENCY_S = 2.7e-6
NCCL_LL_MULTINODE_INTRA_FACTOR = 1.8
#: Tree/LL: ``baseLat[Tree][LL]`` 4.4 µs, ``hwLat[NVLINK][Tree][LL]`` 0.52 µs,
#: ``hwLat[NET][Tree][LL]`` 5.0 µs.
NCCL_TREE_LL_BASE_LATENCY_S = 4.4e-6
NCCL_TREE_LL_NVLINK_LATENCY_S = 0.52e-6
NCCL_TREE_LL_NET_LATENCY_S = 5.0e-6


def cross_domain_ll_step_latency(efficiency: Efficiency, tp: int, domain: int) -> float:
    """Mean per-step latency of NCCL's low-latency all-reduce over ``tp`` ranks spread over
    d = ceil(tp / domain) scale-up domains: the cheaper of Ring/LL and Tree/LL, as NCCL 2.7.5's
    tuning model prices them (NVIDIA/nccl src/graph/tuning.cc @ 01afd20a, ``ncclTopoTuneModel``;
    NCCL 2.7's constants, later versions changed them), written as the per-step latency that
    ``inference.tp_allreduce_time``'s LL branch (``ll_base + 2(tp−1)·step``) turns back into it::

        n_s = 2(tp − 1),  n_x = 2(d − 1),  ll_step' = 1.8 · ll_step        (l.132, LL, d > 1)
        Ring/LL (l.143):  T_r = ll_base + (n_s − n_x)·ll_step' + n_x · 2.7 µs
        Tree/LL (l.145-147): T_t = 4.4 µs + 2·((tp // d − 1)·1.8·0.52 µs + log2i(d) · 5.0 µs)
        step = (min(T_r, T_t) − ll_base) / n_s

    (``ll_base``, ``ll_step``: the efficiency's Ring/LL base and NVLink step, 3.6 and 0.47 µs in
    the catalogue, NCCL's l.56 and l.65; ``tp // d`` and ``log2i`` (floor of log2,
    src/include/utils.h l.34) as NCCL's integer arithmetic.) By hand, TP 32 over four 8-GPU
    nodes: T_r = 3.6 + 56·0.846 + 6·2.7 = 67.2 µs, T_t = 4.4 + 2·(7·0.936 + 2·5.0) = 37.5 µs.
    NCCL's tuner (src/enqueue.cc l.255-274) takes the algorithm/protocol of least modelled
    time; all algorithms are enabled by default (tuning.cc l.159) save CollNet, which needs
    ``NCCL_COLLNET_ENABLE`` (default 0, src/init.cc l.114) and a CollNet network plugin
    (enqueue.cc l.260-264), so is not offered here. LL128 and Simple carry larger latencies at
    this commit (Tree/LL128 55.2 µs, Ring/LL128 140.4 µs for the case above) and are the
    bandwidth branch's business, not this latency's. Approximation (named): the LL branch's
    bandwidth term stays Ring/LL's; NCCL prices Tree/LL's algorithm bandwidth lower
    (busBw·0.9/3.8·0.5 against Ring/LL's busBw/4·tp/n_s, l.113-126, and the
    ``treeCorrectionFactor`` 0.4-1.0 for 64 B-128 MB messages, l.247-260), so where Tree
    wins on latency this prices its messages' transfer slightly fast. One domain: the
    efficiency's own ``ll_step_latency_s``. Added after the held-out errors had been seen
    (NCCL's published constants, not fitted): it prices NeMo RL's vLLM TP 32 for DeepSeek-V3 on
    8-GPU nodes, whose decode-step all-reduces are latency-bound."""
    n = _int("tp", tp)
    d = math.ceil(n / _int("domain", domain))
    if d <= 1:
        return efficiency.ll_step_latency_s
    n_s, n_x = 2 * (n - 1), 2 * (d - 1)
    base = efficiency.ll_base_latency_s
    ring = base + ((n_s - n_x) * NCCL_LL_MULTINODE_INTRA_FACTOR * efficiency.ll_step_latency_s
                   + n_x * NCCL_LL_NET_STEP_LATENCY_S)
    tree = NCCL_TREE_LL_BASE_LATENCY_S + 2 * (
        (n // d - 1) * NCCL_LL_MULTINODE_INTRA_FACTOR * NCCL_TREE_LL_NVLINK_LATENCY_S
        + (d.bit_length() - 1) * NCCL_TREE_LL_NET_LATENCY_S)
    return (min(ring, tree) - base) / n_s


def _engine_step_s(m, acc, eng, live, ctx, kw, n_layers, hf_s, overlap=False, hf_seq_s=0.0):
    """Decode-step seconds for ``live`` sequences at mean context ``ctx`` on engine ``eng``
    (None: the roofline): (t − KV read)/η_d + KV read/η_kv + o (``inference.EngineEfficiency``),
    plus, for HF generate, the host's (``hf_s`` + ``hf_seq_s`` · live) × layers
    (``HF_GENERATE_S_PER_LAYER_STEP``; ``hf_seq_s`` 0 but for the candidate
    ``HF_BATCH_HOST_FIT``) and its cache's concatenation, ``HF_GENERATE_KV_COPIES`` × KV
    read/η_kv; with ``overlap`` (``hf_host_overlaps``), the host's cost and the GPU's work
    overlap instead of adding: max(GPU, host)."""
    if eng is None:
        return np.asarray(inf.decode_step(m, acc, live, ctx, **kw).time_s, dtype=float)
    st = inf.decode_step(m, acc, live, ctx, **kw)
    t = np.asarray(st.time_s, dtype=float)
    kv = np.asarray(inf.decode_kv_read_s(st, m, kw["weight_dtype"]), dtype=float)
    out = (t - kv) / eng.decode_fraction + kv / eng.kv_read_fraction + eng.step_overhead_s
    if eng.family == "HF generate":
        gpu = out + HF_GENERATE_KV_COPIES * kv / eng.kv_read_fraction
        host = (hf_s + hf_seq_s * np.asarray(live, dtype=float)) * n_layers
        out = np.maximum(gpu, host) if overlap else gpu + host
    return out


@dataclass(frozen=True)
class RolloutSetup:
    """How one rollout replica generates: ``rollout_time``'s settings in one object.

    Fields
    ------
    samples_per_prompt : int
        G responses per prompt (their prompt shares one prefill with ``prefix_sharing``).
    prefix_sharing : bool
        GRPO's G samples of a prompt share its prefill (vLLM/SGLang prefix caching).
    tp : int
        Tensor parallelism of the replica (beyond one scale-up domain: the all-reduces at the
        scale-out bandwidth, ``_rollout_accelerator``).
    max_concurrent : int, optional
        Engine cap on concurrent sequences (vLLM ``max_num_seqs``; HF generate's micro-batch);
        None: the KV-cache capacity.
    weight_dtype, kv_dtype : str
        Rollout precisions (``llmcost.inference``).
    reserve_fraction : float in [0, 1)
        HBM the engine leaves unused (``inference.max_batch``).
    efficiency : Efficiency, optional
        Achievable fractions of the roofline (default: the catalogue's for the accelerator).
    engine : str
        ``ROLLOUT_ENGINES``: "roofline", an engine family, or "HF generate" (static batches).
    hf_s_per_layer_step : float >= 0
        HF generate's host cost per layer per decode step (``HF_GENERATE_S_PER_LAYER_STEP``).
    hf_s_per_seq_layer_step : float >= 0
        HF generate's host cost per sequence of the batch per layer per decode step, added to
        ``hf_s_per_layer_step`` (default 0; the candidate ``HF_BATCH_HOST_FIT``).
    decode_factor : float > 0, optional
        Multiplies every decode step's time; None: ``vllm_decode_factor`` of the engine and
        the accelerator (``VLLM_DECODE_FACTORS``).
    per_call : bool
        The caller sends ``max_concurrent`` sequences per engine call and waits for the whole
        call before the next (OpenRLHF @ 0baf3dd: one ``llm.generate`` per micro-rollout
        batch), so a freed slot is not refilled: each call ends with its longest response
        (``_call_batches``). False: continuous batching (HF generate: its static batches).
    piecewise_graphs : bool
        The engine decodes in piecewise CUDA graphs (vLLM's V1 before v0.11.0,
        ``vllm_piecewise_graphs``): an MoE policy's decode step pays
        ``VLLM_PIECEWISE_S_PER_STEP`` more (no effect on a dense policy or another engine).
    hf_host_overlap : bool
        HF generate's host cost overlaps the GPU's work of the step (max, not sum:
        ``_engine_step_s``): true where the attention implementation does not synchronise host
        and GPU inside the step (``hf_host_overlaps``: SDPA, eager), false where it does in
        every layer (FlashAttention-2 on a padded batch). The validation rows set it by the
        attention their system ran (``row_hf_host_overlap``).
    """

    samples_per_prompt: int = 1
    prefix_sharing: bool = True
    tp: int = 1
    max_concurrent: int | None = None
    weight_dtype: str = "bf16"
    kv_dtype: str = "bf16"
    reserve_fraction: float = inf.SERVING_RESERVE
    efficiency: Efficiency | None = None
    engine: str = "roofline"
    hf_s_per_layer_step: float = HF_GENERATE_S_PER_LAYER_STEP
    decode_factor: float | None = None
    per_call: bool = False
    hf_host_overlap: bool = False
    hf_s_per_seq_layer_step: float = 0.0
    piecewise_graphs: bool = False

    def __post_init__(self):
        fix = object.__setattr__
        fix(self, "samples_per_prompt", _int("samples_per_prompt", self.samples_per_prompt))
        for name in ("per_call", "hf_host_overlap", "piecewise_graphs"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name}={getattr(self, name)!r} must be True or False")
        if self.decode_factor is not None:
            fix(self, "decode_factor", _float("decode_factor", self.decode_factor,
                                              positive=True))
        if not isinstance(self.prefix_sharing, bool):
            raise ValueError(f"prefix_sharing={self.prefix_sharing!r} must be True or False")
        if not isinstance(self.engine, str) or self.engine not in ROLLOUT_ENGINES:
            raise ValueError(f"engine={self.engine!r} must be one of {ROLLOUT_ENGINES}")
        fix(self, "tp", _int("rollout_tp", self.tp))
        for name in ("hf_s_per_layer_step", "hf_s_per_seq_layer_step"):
            fix(self, name, _float(name, getattr(self, name), nonnegative=True))
        if self.max_concurrent is not None:
            fix(self, "max_concurrent", _int("max_concurrent", self.max_concurrent))

    @classmethod
    def build(cls, setup: RolloutSetup | None = None, **keywords) -> RolloutSetup:
        """``setup`` (default ``RolloutSetup()``) with ``keywords`` replacing its fields."""
        return options_with(cls, "setup", setup, keywords)

    @property
    def static(self) -> bool:
        """HF generate: static, padded micro-batches (no paged KV, no continuous batching)."""
        return self.engine == "HF generate"


def vllm_decode_factor(engine: str, accelerator) -> float:
    """The factor on each decode step of a rollout replica (``VLLM_DECODE_FACTORS``): the
    accelerator's entry for the "vLLM" engine, 1 for any other engine or accelerator. By hand:
    vLLM on GB200-NVL72 2.459, on H100-SXM 1, SGLang on GB200-NVL72 1.

    Raises
    ------
    ValueError
        An engine not in ``ROLLOUT_ENGINES`` (named, with the known ones)."""
    if not isinstance(engine, str) or engine not in ROLLOUT_ENGINES:
        raise ValueError(f"engine={engine!r} must be one of {ROLLOUT_ENGINES}")
    if engine != "vLLM":
        return 1.0
    return VLLM_DECODE_FACTORS.get(inf.serving_accelerator(accelerator).name, 1.0)


def shape_words(p: dict) -> str:
    """An RL iteration's shape in words from scenario values ``p``: "GRPO, 64 prompts × 16
    samples of 512 + 2048 tokens (max 7680) on 64 GPUs"; for DPO, which generates nothing and
    trains on a chosen and a rejected response per prompt (``RLOptions.samples``), "DPO, 64
    pairs (chosen and rejected) of 512 + 1024 tokens on 16 GPUs" (a trial read DPO's line in
    GRPO's words: "64 prompts × 16 samples")."""
    if p["rl_algorithm"] == "dpo":
        return (f"DPO, {p['rl_prompts_per_step']} pairs (chosen and rejected) of "
                f"{p['rl_prompt_tokens']} + {p['rl_response_tokens']} tokens on "
                f"{p['rl_gpus']} GPUs")
    return (f"{p['rl_algorithm'].upper()}, {p['rl_prompts_per_step']} prompts × "
            f"{p['rl_samples_per_prompt']} samples of {p['rl_prompt_tokens']} + "
            f"{p['rl_response_tokens']} tokens (max {p['rl_response_tokens_max']}) on "
            f"{p['rl_gpus']} GPUs")


def decode_factor_words(accelerator, engine: str = "vLLM", algorithm: str | None = None) -> str:
    """The decode factor of a rollout on ``accelerator`` (``vllm_decode_factor``) in words, for
    the bill's RL line, ``llmcost estimate`` and notebook 05: "" when it is 1; else the factor,
    what it is (an empirical slowdown of the engine's decode steps, fitted by
    ``fit_vllm_decode_factor`` on the published step times of the *calibration* rows of
    data/rl_iterations.csv on that accelerator, with their systems and sources) and its scope
    (the accelerators of ``VLLM_DECODE_FACTORS`` only; any other decodes at × 1, the factor
    unvalidated there); "" for ``algorithm`` "dpo" too, which generates nothing
    (``generation_time``: 0). By hand: "" on H100-SXM or B200; on GB200-NVL72 "... 2.46× ... 4
    published NeMo RL step times ..."."""
    f = vllm_decode_factor(engine, accelerator)
    if f == 1.0 or algorithm == "dpo":
        return ""
    name = inf.serving_accelerator(accelerator).name
    d = load_rl_validation()
    rows = d[(d["split"] == "calibration") & (d["engine"] == engine) & (d["accelerator"] == name)]
    src = "; ".join(sorted({re.sub(r"\b([0-9a-f]{7})[0-9a-f]{33}\b", r"\1", s)
                            for s in rows["source_ref"]}))
    return (f"each decode step of the rollout on {name} takes {f:.3g}× the serving model's "
            f"decode-step time (rl.VLLM_DECODE_FACTORS): an empirical slowdown of {engine}'s "
            f"decode, fitted on {len(rows)} published "
            f"{' and '.join(sorted(set(rows['system'])))} step times on {name} ({src}; the "
            "calibration rows of data/rl_iterations.csv), whose cause no public figure prices; "
            f"applied to {', '.join(VLLM_DECODE_FACTORS)} only: any other accelerator decodes "
            "at the serving model's time, the factor not validated there")


def _engine_order(n: int) -> np.ndarray:
    """The order an engine takes n sequences in: lengths are unknown to it (an interleaved
    order by the golden-ratio sequence, so long and short responses mix)."""
    return np.argsort((np.arange(n) * 0.6180339887) % 1.0)


def _static_batches(m, acc, eng, p, r, c, s: RolloutSetup, kw) -> tuple:
    """HF generate: consecutive micro-batches of ``c`` sequences in engine order, each decoding
    until its longest response ends (every sequence padded to it), one prefill of ``c``
    prompts per micro-batch. Returns (prefill_s, decode_s, steps, mean_live)."""
    order = _engine_order(r.size)
    batches = [r[order[i:i + c]] for i in range(0, r.size, c)]
    sizes = [int(bt.max()) for bt in batches]
    # every micro-batch's steps in one call (the step time is elementwise), summed per batch
    step_s = _engine_step_s(m, acc, eng,
                            np.concatenate([np.full(s_b, float(bt.size))
                                            for bt, s_b in zip(batches, sizes)]),
                            np.concatenate([p + np.arange(s_b, dtype=float) for s_b in sizes]),
                            kw, m.n_layers, s.hf_s_per_layer_step, s.hf_host_overlap,
                            s.hf_s_per_seq_layer_step)
    dec, steps = 0.0, sum(sizes)
    for part in np.split(np.asarray(step_s, dtype=float), np.cumsum(sizes)[:-1]):
        dec += float(part.sum())
    # HF generate as the rows of data/rl_iterations.csv ran it (transformers before v4.45:
    # the first forward computes logits on every prompt position, inference.logit_tokens)
    pre = float(inf.prefill(m, acc, p, c, all_logits=True, **kw).time_s) * len(batches)
    if eng is not None:
        pre = pre / eng.prefill_fraction + eng.step_overhead_s * len(batches)
    return pre, dec, steps, float(r.sum()) / steps


def _call_batches(m, acc, eng, p, r, c, s: RolloutSetup, kw) -> tuple:
    """Engine calls of ``c`` sequences, one after another, each ending with its longest
    response (``per_call``): the expected decode of a call of b sequences, over its steps t,
    with S_b(t) = 1 − F(t)^b the chance it still runs (``expected_batch_max``; F the lengths'
    distribution)::

        decode_call(b) = Σ_t S_b(t) · step(a_b(t), P + t)
        a_b(t) = b · (1 − F(t)) / S_b(t)   (paged engines: finished sequences leave)
               = b                          (HF generate: padded, every row decodes to the end)

    ⌊n / c⌋ calls of c and one of n mod c; one prefill of b prompts per call. With a step
    time that does not depend on a(t), decode_call = E[max] · step. Returns (prefill_s,
    decode_s, steps, mean_live), steps the expected decode steps of all calls."""
    sizes = [c] * (r.size // c) + ([r.size % c] if r.size % c else [])
    pre = dec = steps = 0.0
    for b in sorted(set(sizes)):
        k = sizes.count(b)
        surv = _batch_survival(r, b)
        t = np.arange(surv.size, dtype=float)
        if s.static:
            live = np.full(surv.size, float(b))
        else:
            f = 1.0 - (1.0 - surv) ** (1.0 / b)          # 1 − F(t)
            live = np.maximum(b * f / np.maximum(surv, 1e-300), 1.0)
        keep = surv > 0
        st = _engine_step_s(m, acc, eng, live[keep], p + t[keep], kw, m.n_layers,
                            s.hf_s_per_layer_step, s.hf_host_overlap, s.hf_s_per_seq_layer_step)
        dec += k * float((surv[keep] * st).sum())
        steps += k * float(surv.sum())
        one = float(inf.prefill(m, acc, p, b, all_logits=s.static, **kw).time_s)
        if eng is not None:
            one = one / eng.prefill_fraction + eng.step_overhead_s
        pre += k * one
    return pre, dec, int(round(steps)), float(r.sum()) / steps


def _continuous_batches(m, acc, eng, p, r, c, s: RolloutSetup, kw) -> tuple:
    """Continuous batching: ``c`` slots, a sequence (in engine order) takes the first slot to
    free; decode step t costs ``_engine_step_s`` for the a(t) live sequences at their mean
    context; one prefill of the prompts (once per group with prefix sharing). Returns
    (prefill_s, decode_s, steps, mean_live)."""
    free = [0] * c
    starts = np.empty(r.size, dtype=np.int64)
    for i in _engine_order(r.size):
        t0 = heapq.heappop(free)
        starts[i] = t0
        heapq.heappush(free, t0 + int(r[i]))
    ends = starts + r
    steps = int(ends.max())
    d_live = np.zeros(steps + 1)
    d_off = np.zeros(steps + 1)                # Σ (P − s_i) over live sequences
    np.add.at(d_live, starts, 1.0)
    np.add.at(d_live, ends, -1.0)
    np.add.at(d_off, starts, p - starts)
    np.add.at(d_off, ends, -(p - starts))
    live = np.cumsum(d_live)[:steps]
    t = np.arange(steps)
    ctx_total = np.cumsum(d_off)[:steps] + t * live
    busy = live > 0
    step_s = np.zeros(steps)
    step_s[busy] = _engine_step_s(m, acc, eng, live[busy], ctx_total[busy] / live[busy], kw,
                                  m.n_layers, s.hf_s_per_layer_step, s.hf_host_overlap,
                                  s.hf_s_per_seq_layer_step)
    n_prompts = math.ceil(r.size / s.samples_per_prompt) if s.prefix_sharing else r.size
    pre = float(inf.prefill(m, acc, p, n_prompts, **kw).time_s)
    if eng is not None:
        pre = pre / eng.prefill_fraction + eng.step_overhead_s
    return pre, float(step_s.sum()), steps, float(live.mean())


def rollout_time(policy, accelerator, prompt_tokens, lengths, setup: RolloutSetup | None = None,
                 **keywords) -> dict:
    """Wall time for one rollout replica to generate ``lengths`` responses.

    **Continuous batching** (vLLM, Kwon et al. 2023, arXiv:2309.06180; SGLang; TensorRT-LLM's
    in-flight batching): the replica runs up to C sequences at once, C = min(``max_concurrent``,
    KV-cache capacity at context P + mean R, number of sequences); a new sequence takes a slot
    as soon as one frees. At decode step t with a(t) live sequences holding C(t) tokens the step
    takes ``decode_step(a(t), C(t)/a(t))``; the prompts' prefill (once per prompt with prefix
    sharing) is one compute-bound pass before decoding.

    **Static batching** (``engine="HF generate"``: Hugging Face ``generate`` has neither paged
    KV nor continuous batching): the sequences go in consecutive micro-batches of C (in engine
    order); each micro-batch decodes until its longest response ends, every sequence padded to
    it (finished sequences still occupy their slot and their KV), and C is capped by the KV
    capacity at the *longest* context P + max R.

    **Per call** (``per_call``): the caller hands the engine ``max_concurrent`` sequences at a
    time and waits for all of them (OpenRLHF @ 0baf3dd), so no freed slot is refilled: each call
    of b sequences decodes for E[max of b lengths] steps in expectation (``_call_batches``,
    ``expected_batch_max``), its live sequences falling as they end (HF generate: padded, all b).

    **Engine** (``engine``): "roofline" is the bound (``llmcost.serving.inference``); an engine
    family adds its fitted efficiency per pass (``inference.EngineEfficiency``:
    decode = (t − KV read)/η_d + KV read/η_kv + o, prefill = t/η_p + o), and HF generate adds
    ``HF_GENERATE_S_PER_LAYER_STEP`` per layer per decode step. TP beyond one scale-up domain
    runs its all-reduces at the scale-out bandwidth (``_rollout_accelerator``). Every decode
    step is then multiplied by the setup's ``decode_factor`` (default ``vllm_decode_factor``:
    vLLM on GB200, ``VLLM_DECODE_FACTORS``; 1 elsewhere).

    Parameters
    ----------
    policy, accelerator : the model and the GPU (catalogue names or objects)
    prompt_tokens : int
    lengths : array of int, the responses' lengths
    setup : RolloutSetup, optional
        The replica's settings; ``keywords`` (its field names) replace them.

    Returns
    -------
    dict: ``prefill_s``, ``decode_s``, ``total_s``, ``steps`` (decode steps until the last
    sequence ends), ``concurrency`` (C), ``mean_live`` (mean live sequences per step),
    ``tokens`` (generated), ``engine``, ``note``.
    """
    s = RolloutSetup.build(setup, **keywords)
    m, acc = inf.serving_model(policy), inf.serving_accelerator(accelerator)
    p = _int("prompt_tokens", prompt_tokens)
    r = as_array(lengths, "lengths", positive=True, integer=True).astype(int).reshape(-1)
    if not r.size:
        raise ValueError("lengths=[] must hold at least one response")
    eff = inf.serving_efficiency(s.efficiency, acc)
    eff = eff.replace(ll_step_latency_s=cross_domain_ll_step_latency(
        eff, s.tp, acc.scaleup_domain_size or 1))
    acc, note = _rollout_accelerator(acc, s.tp)
    eng = None if s.engine == "roofline" else inf.load_engine_efficiency(s.engine)
    kw = dict(weight_dtype=s.weight_dtype, kv_dtype=s.kv_dtype, tp=s.tp, efficiency=eff)
    ctx_cap = p + (float(r.max()) if s.static or s.per_call else float(r.mean()))
    cap = inf.max_batch(m, acc, ctx_cap, weight_dtype=s.weight_dtype, kv_dtype=s.kv_dtype,
                        tp=s.tp, reserve_fraction=s.reserve_fraction)
    c = min(cap, r.size) if s.max_concurrent is None else min(cap, r.size, s.max_concurrent)
    run = _call_batches if s.per_call else (
        _static_batches if s.static else _continuous_batches)
    f = vllm_decode_factor(s.engine, acc) if s.decode_factor is None else s.decode_factor
    pre, dec, steps, mean_live = run(m, acc, eng, p, r, c, s, kw)
    if f != 1.0:
        dec *= f
        note = "; ".join(x for x in (note, f"decode steps x {f:.3g} ({s.engine} on {acc.name})")
                         if x)
    if s.piecewise_graphs and m.is_moe and eng is not None and eng.family == "vLLM":
        dec += VLLM_PIECEWISE_S_PER_STEP * steps
        note = "; ".join(x for x in (note, f"piecewise CUDA graphs: "
                                           f"+{VLLM_PIECEWISE_S_PER_STEP * 1e3:.2f} ms per decode "
                                           "step") if x)
    return {"prefill_s": pre, "decode_s": dec, "total_s": pre + dec, "steps": steps,
            "concurrency": c, "mean_live": mean_live, "tokens": int(r.sum()),
            "engine": s.engine, "note": note}


# ------------------------------------------------------------------------------ training, sync
def _plan_keywords(train_plan) -> dict:
    """The plan keywords of ``train_plan`` (a dict over ``DEFAULT_TRAIN_PLAN``; "auto": the
    default's, used only where the chosen plan is not known)."""
    if isinstance(train_plan, str) and train_plan == "auto":
        return dict(DEFAULT_TRAIN_PLAN)
    if train_plan is not None and not isinstance(train_plan, dict):
        raise ValueError(f"train_plan={train_plan!r} must be \"auto\" or a dict of "
                         "parallel.make_plan keywords (tp, pp, cp, ep, zero_stage, "
                         "micro_batch_size, recompute, pp_split, etp)")
    kw = {**DEFAULT_TRAIN_PLAN, **(train_plan or {})}
    extra = sorted(set(kw) - set(DEFAULT_TRAIN_PLAN))
    if extra:
        raise ValueError(f"train_plan has {extra}: the keys are {sorted(DEFAULT_TRAIN_PLAN)}")
    for k in ("tp", "pp", "cp", "ep", "micro_batch_size"):
        _int(f"train_plan[{k!r}]", kw[k])
    return kw


def train_step(policy, accelerator, n_gpus, sequences, seq_len, *, train_plan=None, stack=None,
               efficiency: Efficiency | None = None, dp_overlap: bool | None = None,
               recipe: str | None = None, longest_tokens: int | None = None,
               etp: int | None = None):
    """The predicted optimizer step of the policy's update on the trainer GPUs.

    ``llmcost.step_time`` (the step-time model: matmuls, attention, recomputation, TP/PP/DP
    communication, pipeline bubble, optimizer; its docstring has the formulas) for
    ``parallel.make_plan(policy, n_gpus, B, seq_len=seq_len, **train_plan)``, B = the
    iteration's ``sequences`` rounded up to a multiple of dp × micro-batch. Its ``mfu`` (the workbook's
    basis, ``ModelSpec.flops_per_token(s, causal=False)``, of the dense BF16 peak), taken to
    the 6N basis (``six_n_share``), prices every scoring and update pass of the iteration.
    ``train_plan="auto"``: the plan that fits with the shortest predicted step among those the
    stack runs (``parallel.choose_plan`` within ``parallel.stack_plan_search``, ranked by
    ``step.time_ranking`` with the stack: a scenario's own rule), for a batch of exactly
    ``sequences``, or, when no data-parallel width of ``n_gpus`` divides it, padded up to the
    next multiple of ``n_gpus`` (⌈sequences ÷ n_gpus⌉ · n_gpus, as a given plan's batch is
    padded to dp × micro-batch; the padded step's MFU prices the real FLOPs). Memory counts the
    policy's training state only (the reference, critic and reward models and the rollout
    engine's KV cache are taken to be offloaded or on other GPUs, as the frameworks' colocated
    modes do). A given plan with a ZeRO stage the stack lacks (the default Megatron-Core profile
    has no ZeRO-3; OpenRLHF and veRL train with DeepSpeed ZeRO-3 or FSDP) is priced with the
    stack's other features as if it had it, the assumption stated here instead of
    ``step_time``'s ``stacks.StackFeatureWarning`` on every iteration of a campaign; the
    automatic plan takes only what the stack has. ``dp_overlap``: whether the gradient
    collectives overlap the backward (``step_time``'s option; None: the stack's) and
    ``recipe`` its precision recipe (None: ``step_time``'s); the automatic plan is searched
    with the defaults. ``longest_tokens``: tokens per sequence of the update's longest
    micro-batch (``rl.longest_tokens``, P + max R); the automatic plan must also hold a
    micro-batch of them, its step still priced at ``seq_len`` (None: ``seq_len`` only).
    ``etp``: the routed experts' tensor parallelism of every plan the automatic search tries
    (``ParallelPlan.etp``: None, the experts' TP equal to tp, Megatron-Core's default; 1, MoE
    parallel folding, the layout a scenario's ``etp: 1`` asks for); a given plan carries its
    own (its ``etp`` key), so ``etp`` with one is refused.

    Raises
    ------
    ValueError
        A plan that does not divide the GPUs, does not fit or breaks the model's rules (the
        message names ``train_plan``), ``etp`` other than None or 1, or with a given plan, or
        bad input (the field named).
    """
    m, acc = inf.serving_model(policy), inf.serving_accelerator(accelerator)
    n = _int("n_gpus", n_gpus)
    b = _int("sequences", sequences)
    seq = _int("seq_len", seq_len)
    auto = isinstance(train_plan, str) and train_plan == "auto"
    etp = _check_auto_etp(etp, auto, m, "etp")
    if auto:
        longest = None if longest_tokens is None else _int("longest_tokens", longest_tokens)
        return _auto_step(m, acc, n, b, seq, stack, efficiency,
                          dict(dp_overlap=dp_overlap, recipe=recipe), (), longest,
                          etp=etp)[0]
    kw = _plan_keywords(train_plan)
    mp = kw["tp"] * kw["pp"] * kw["cp"]
    if n % mp:
        raise ValueError(f"train_plan={kw}: tp·pp·cp = {mp} must divide the {n} trainer GPUs")
    dp_mbs = n // mp * kw["micro_batch_size"]
    gbs = math.ceil(b / dp_mbs) * dp_mbs
    try:
        plan = make_plan(m, n, gbs, seq_len=seq, **kw)
        return _quiet_step(m, Cluster(acc, n), plan, seq, stack, efficiency,
                           dict(dp_overlap=dp_overlap, recipe=recipe))
    except ValueError as e:
        raise ValueError(f"train_plan={kw} on {n} {acc.name} GPUs: {e}") from None


def _check_auto_etp(etp, auto: bool, model, name: str):
    """The experts' TP an automatic update plan is searched with (``train_step``'s ``etp``,
    ``RLOptions.train_etp``): None or the whole number 1 (``ParallelPlan.etp``; returned as
    the int 1), 1 only for an MoE policy (``parallel.check_etp_model``) and only with
    ``train_plan="auto"`` (a given plan carries its own ``etp``).

    Raises
    ------
    ValueError
        Naming ``name``, the value and the rule broken.
    """
    if etp is None:
        return None
    if isinstance(etp, (bool, np.bool_)) or not isinstance(etp, (int, np.integer)) or etp != 1:
        raise ValueError(f"{name}={etp!r} must be None (the experts' TP equal to tp) or 1 (MoE "
                         "parallel folding: expert_tensor_parallel_size 1)")
    if not auto:
        raise ValueError(f"{name}={etp!r} sets the automatic plan search's experts' TP "
                         "(train_plan='auto'); a given train_plan carries its own: put 'etp' "
                         "in train_plan")
    if model is not None and not model.is_moe:
        raise ValueError(f"{name}=1: {model.name} is dense (no experts to fold): leave the "
                         "experts' TP at tp (etp 0 in a scenario, None here)")
    return 1


def _auto_step(m, acc, n: int, sequences: int, seq_len: int, stack, efficiency, options: dict,
               shorter: tuple = (), longest: int | None = None,
               beat: float | None = None, etp: int | None = None) -> tuple:
    """``(step, plan)`` of ``train_step``'s ``train_plan="auto"``: the searched plan
    (``_auto_plan_padded``; ``shorter``, ``longest`` and ``etp`` as ``_auto_train_plan``'s),
    refused when it does not fit (``_check_train_plan_fits``, at ``seq_len`` and at
    ``longest``), priced by
    ``step_time`` at ``seq_len`` with ``options`` (its keywords). ``beat``: the best margin-
    weighted step a caller has (``_auto_training_mfu``); a plan whose own
    (``margin_weighted_step_s``) is not below it is returned unchecked, as it cannot be taken."""
    try:
        plan = _auto_plan_padded(m, acc, n, sequences, seq_len, stack, efficiency, shorter,
                                 longest, etp)
        step = None
        if beat is not None:
            step = _quiet_step(m, Cluster(acc, n), plan, seq_len, stack, efficiency, options)
            if float(margin_weighted_step_s(step.step_time_s, plan.zero_stage)) >= beat:
                return step, plan
        _check_train_plan_fits(m, acc, n, plan, seq_len, stack)
        if longest is not None:
            _check_longest_fits(m, acc, plan, longest, stack, "train_plan='auto' chose "
                                f"{plan.describe()}, which")
    except ValueError as e:
        raise ValueError(f"train_plan='auto' on {n} {acc.name} GPUs: {e}") from None
    if step is None:
        step = _quiet_step(m, Cluster(acc, n), plan, seq_len, stack, efficiency, options)
    return step, plan


def _auto_plan_padded(model, acc, n: int, sequences: int, seq_len: int, stack=None,
                      efficiency: Efficiency | None = None, shorter: tuple = (),
                      longest: int | None = None, etp: int | None = None):
    """``_auto_train_plan`` for exactly ``sequences``; a batch that no data-parallel width of the
    ``n`` GPUs divides is padded up to the next multiple of ``n``, as a given train_plan's batch
    is padded to dp × micro-batch (frameworks pad or split unevenly; the padded step sets the
    MFU). A batch that neither splits nor pads to a plan raises the exact batch's error.
    ``shorter``, ``longest``, ``etp``: as ``_auto_train_plan``'s."""
    try:
        return _auto_train_plan(model, acc, n, sequences, seq_len, stack, efficiency, shorter,
                                longest, etp)
    except ValueError as exact:
        padded = math.ceil(sequences / n) * n
        if padded == sequences:
            raise
        try:
            return _auto_train_plan(model, acc, n, padded, seq_len, stack, efficiency, shorter,
                                    longest, etp)
        except ValueError:
            raise exact from None


def longest_tokens(o: RLOptions, r: np.ndarray) -> int:
    """Tokens per sequence of the update's longest micro-batch, the length whose memory its plan
    must fit (``training_mfu``): P + max R, the prompt and the longest response of the
    iteration (``r``), rounded up to a whole token.

    Every synchronous step trains on its longest responses, and the frameworks pad a
    micro-batch to its longest sequence: DeepSpeed-Chat and OpenRLHF collate each micro-batch
    padded to its longest sample (``zero_pad_sequences``), Megatron-LM's micro-batches are of
    one length, and veRL's and NeMo RL's dynamic batching caps a micro-batch by a token budget
    (``ppo_max_token_len_per_gpu``, ``max_total_sequence_length × train_micro_batch_size``),
    which must hold at least one longest sequence. So a micro-batch of ``micro_batch_size``
    sequences of P + max R tokens is the one the plan must hold; with sequence packing
    (``o.pack_tokens`` = B) one bin of max(B, P + max R) tokens (``longest_micro_batch``)."""
    return int(math.ceil(o.prompt_tokens + float(np.max(r))))


def _pad_factor(tp, cp):
    """NeMo RL's sequence padding of a plan (``training_mfu``): 2·cp·tp with CP, else tp."""
    tp, cp = np.asarray(tp, dtype=np.int64), np.asarray(cp, dtype=np.int64)
    return np.where(cp > 1, 2 * cp * tp, tp)


def _padded(length, tp, cp):
    """``length`` tokens padded up to a multiple of the plan's ``_pad_factor``: ⌈L / f⌉ · f."""
    f = _pad_factor(tp, cp)
    return -(-int(length) // f) * f


def _longest_fit_rank(rank, model, acc, longest: int, practice):
    """``rank`` over the rows of a plan frame whose memory fits at ``longest`` tokens per
    sequence (padded to each plan's factor, ``_pad_factor``), counted as the frame's own
    (``longest_memory``: its recipe, attention, layer split, and ``practice``);
    the step times are still ``rank``'s at the frame's length. A ``ValueError`` when none does
    (the message names the lengths)."""
    def ranked(frame):
        if frame.empty:
            return rank(frame)
        total = longest_memory(frame, model, longest, practice)
        reserve = frame.attrs.get("reserve", DEFAULT_RESERVE)
        keep = np.asarray(fits(total, acc.hbm_bytes, reserve))
        if not keep.any():
            least = float(np.min(total))
            usable = acc.hbm_bytes * (1 - reserve)
            raise ValueError(f"no plan that fits at the mean length fits the longest micro-"
                             f"batch ({longest:,} tokens per sequence: the prompt and the "
                             f"longest response): the least needs {least / 1e9:,.0f} GB per "
                             f"GPU, more than the {usable / 1e9:,.0f} GB usable; give the RL "
                             "job more GPUs or shorten the longest response")
        return rank(frame[keep])
    return ranked


def longest_memory(frame: pd.DataFrame, model, longest: int, practice) -> np.ndarray:
    """Per-GPU memory (bytes) of each plan row of an ``enumerate_plans`` frame at ``longest``
    tokens per sequence padded up to the row's factor (``_pad_factor``), with the frame's recipe,
    attention, dropout and layer split (``parallel.frame_memory_arrays``)."""
    lengths = _padded(longest, frame["tp"].to_numpy(), frame["cp"].to_numpy())
    total = np.empty(len(frame))
    for length in np.unique(lengths):
        sel = lengths == length
        total[sel] = frame_memory_arrays(frame[sel], model, practice, int(length))["total"]
    return total


def _check_longest_fits(model, acc, plan, longest: int, stack, who: str,
                        recipe: str | None = None, reserve: float = DEFAULT_RESERVE) -> None:
    """A ``ValueError`` (``who`` names the plan) when ``plan`` does not hold a micro-batch of
    its ``micro_batch_size`` sequences of ``longest`` tokens padded to its factor
    (``_pad_factor``) in the HBM after ``reserve``, memory as the plan search counts it for
    ``stack`` (``parallel.stack_plan_search``'s practice) with ``recipe`` (None: bf16 with fp32
    gradients, the search's)."""
    length = int(_padded(longest, plan.tp, plan.cp))
    recipe, practice = recipe or "bf16_adam_fp32_grads", stack_plan_search(stack)["practice"]
    key = value_key(model, plan, length, recipe, practice) if _PRICE_ONCE.get() else None
    mem = kept_if_quiet(_KEPT_MEMORY, key, lambda: memory_per_gpu(
        model, plan, length, recipe=recipe, practice=practice))  # read only here
    if mem.fits(acc.hbm_bytes, reserve):
        return
    usable = acc.hbm_bytes * (1 - reserve)
    held = f"{reserve:.0%} reserve" if reserve else "the whole HBM"
    searched = who.startswith("train_plan='auto'")
    raise ValueError(f"{who} needs {mem.total / 1e9:,.0f} GB per GPU at the longest micro-batch "
                     f"({plan.micro_batch_size} × {length:,} tokens: the prompt and the longest "
                     f"response, padded), more than the {usable / 1e9:,.0f} GB usable ({held}); "
                     "the update runs its longest responses too: a plan with more model "
                     "parallelism, recomputation or a smaller micro-batch, or more GPUs"
                     + ("" if searched else " (train_plan='auto' searches for the fastest plan "
                                            "that holds it)"))


def _check_train_plan_fits(model, acc, n: int, plan, seq_len: int, stack=None) -> None:
    """``choose_plan`` returns the plan needing the least memory when none fits; the update
    cannot run on such a plan, so it is refused: the policy's training state (bf16 weights,
    fp32 gradients, master weights and Adam moments, ``memory_per_gpu`` with the
    ``bf16_adam_fp32_grads`` recipe and the memory practice of ``stack``, as the search counts
    it: ``parallel.stack_plan_search``) must fit the HBM after ``DEFAULT_RESERVE``."""
    mem = memory_per_gpu(model, plan, seq_len,
                         practice=stack_plan_search(stack)["practice"])
    if mem.fits(acc.hbm_bytes):
        return
    usable = acc.hbm_bytes * (1 - DEFAULT_RESERVE)
    raise ValueError(f"n_gpus={n}: no training plan of {model.name} fits: the one needing the "
                     f"least memory ({plan.describe()}) needs {mem.total / 1e9:,.0f} GB per GPU, "
                     f"more than the {usable / 1e9:,.0f} GB usable ({DEFAULT_RESERVE:.0%} "
                     "reserve); give the RL job more GPUs")


class NoNewPlan(Exception):
    """``_auto_train_plan`` at a padded length: every plan valid there also splits a shorter
    length the search has priced (``shorter``), where its step is shorter; not an
    error of the input (so not a ``ValueError``: the search skips the length)."""


@lru_cache(maxsize=256)
def _auto_train_plan(model, acc, n: int, sequences: int, seq_len: int, stack=None,
                     efficiency: Efficiency | None = None, shorter: tuple = (),
                     longest: int | None = None, etp: int | None = None):
    """``train_plan="auto"``'s plan (``train_step``): among the plans the stack runs
    (``parallel.stack_plan_search``, the rule of a scenario's own plan search: the stack's
    schedules, ZeRO stages, recomputation modes, sequence parallelism and layer splits; None:
    ``stacks.DEFAULT_STACK``, as ``step_time`` prices it), the fastest by the step-time model
    with the stack and efficiency the step is priced with. The plan search takes hundredths of a
    second and a bill's levers ask for the same policy, GPUs and batch many times, so it is
    memoised on them (model, accelerator, stack and efficiency are frozen dataclasses or names,
    compared field by field). ``shorter``: padded lengths already searched (``training_mfu``);
    the plans whose sequence split one of them (``parallel.sequence_splits``) are left out, as
    the same plan's step at a shorter length is shorter: rejected with the grid's rules
    (``PlanGrid.searched_lengths``), before their memory is counted, so a length after the
    first costs a search over its new plans only (``NoNewPlan`` when no valid plan is new).
    Its fallbacks are over the new plans too: when none of them fits (at ``seq_len`` or at
    ``longest``), the least-memory new plan is returned, or ``_auto_plan_padded`` retries the
    padded batch, where before an old plan that fitted made the length be skipped (the search's
    result was the same on the 480 searches compared, eight model and GPU pairs).
    ``longest``: tokens per sequence of the update's longest micro-batch (``longest_tokens``);
    the plans whose memory does not fit there are left out before the ranking
    (``_longest_fit_rank``), the step still ranked at ``seq_len``. ``etp`` 1: every candidate
    folds its experts (``choose_plan(fixed={"etp": 1})``, as a scenario's ``etp: 1`` searches);
    None: the experts' TP equal to tp."""
    cluster = Cluster(acc, n)
    opts = StepOptions(stack=stack, efficiency=efficiency)
    rank = time_ranking(model, cluster, seq_len, options=opts)
    search = stack_plan_search(stack)
    if shorter:   # the old plans are rejected with the grid's rules, before memory is counted
        search = {**search, "allowed": {**search["allowed"], "searched_lengths": shorter}}
    if longest is not None:
        rank = _longest_fit_rank(rank, model, acc, longest, search["practice"])
    try:
        return choose_plan(model, cluster, sequences, seq_len, **search, rank=rank,
                           fixed=None if etp is None else {ETP_KEY: etp})
    except PlanError as e:
        if e.rule == "searched_shorter":   # every plan valid here splits a shorter length
            raise NoNewPlan from None
        raise


def _quiet_step(model, cluster, plan, seq_len, stack, efficiency, options=None):
    """``step_time`` of ``train_step``, without the stack-feature warning (its docstring) and
    without ``step.PlanDoesNotFitWarning``: an RL set-up keeps its optimizer and, for a
    reference or reward model, its weights where the set-up says (CPU offload,
    ``optimizer_offload_time``; DeepSpeed-Chat's offloaded reference), which the step's
    model-state count on the GPU does not know, and the published RL rows' plans ran;
    ``options``: ``step_time`` keywords, those None left at their defaults. Priced once per
    set of inputs within ``_priced_once`` (``_KEPT_STEPS``)."""
    kw = {k: v for k, v in (options or {}).items() if v is not None}

    def step():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", StackFeatureWarning)
            warnings.simplefilter("ignore", PlanDoesNotFitWarning)
            return step_time(model, cluster, plan, seq_len, stack=stack, efficiency=efficiency,
                             missing_features="price", **kw)

    key = value_key(model, cluster, plan, seq_len, stack, efficiency, sorted(kw.items())) \
        if _PRICE_ONCE.get() else None
    return kept_if_quiet(_KEPT_STEPS, key, step)


def weight_sync_time(policy, accelerator, *, colocated: bool, rollout_tp: int = 1,
                     n_train_gpus: int | None = None, train_plan=None,
                     efficiency: Efficiency | None = None,
                     n_rollout_gpus: int | None = None) -> float:
    """Seconds to bring the updated policy's weights to the rollout engine, sized by bytes and
    links.

    Formula (W = the policy's bf16 bytes, ``inference.weight_bytes``; each rollout GPU holds
    W / rollout_tp)::

        colocated:  t = (W / rollout_tp) / (link bytes/s per direction × achievable fraction)
        separate:   t = W / (link bytes/s per direction × achievable fraction)

    * **colocated** (DeepSpeed-Chat's hybrid engine, veRL's 3D-HybridEngine, NeMo RL's refit:
      the same GPUs re-lay the weights out from the training shards to the inference shards):
      the link is the scale-up link (NVLink) when the training group that holds one copy of the
      weights (TP·PP, or all trainer GPUs under ZeRO-3) and the rollout replica each fit in one
      scale-up domain, else one NIC per GPU;
    * **separate rollout GPUs** (OpenRLHF's Ray + vLLM, asynchronous RL): an NCCL broadcast from
      the trainer's rank 0 to every rollout GPU over one NIC per GPU, of **every tensor whole**
      (W, not the shard W / rollout_tp): the trainer exports full (Hugging Face layout) tensors
      and each rollout worker's ``load_weights`` keeps its own slice. Sources: NeMo RL v0.4
      (NVIDIA-NeMo/RL @ 06beed9, ``megatron_policy_worker.broadcast_weights_for_collective``:
      ``export_hf_weights`` then ``packed_broadcast_producer(src=0)`` over one communicator of
      all training and generation ranks; ``vllm_backend.update_weights_from_collective``
      receives every entry of the state dict); OpenRLHF (``ppo_actor._broadcast_to_vllm``:
      each parameter, gathered under ZeRO-3, broadcast from rank 0 to all vLLM ranks at its
      full shape). Pipelined, each link carries W once, so the time does not grow with the
      number of replicas. (This bytes rule was corrected after the held-out errors of the
      asynchronous rows had been seen; it is read from the code, not fitted.) The link is the
      scale-up link when the trainer and rollout GPUs (``n_train_gpus`` + ``n_rollout_gpus``,
      both given) sit in one scale-up domain, as OpenRLHF's 8-GPU set-ups do: NCCL carries
      a communicator's ranks within a node over its peer-to-peer transport, not the network
      (NCCL User Guide, Environment Variables, ``NCCL_P2P_DISABLE``: "the peer to peer (P2P)
      transport, which uses CUDA direct access between GPUs, using NVLink or PCI";
      ``NCCL_P2P_LEVEL`` ``NVL``: "Use P2P when GPUs are connected through NVLink"); else one NIC.
      Those quotes cover one OS node; a domain spanning trays (GB200 NVL72's 4-GPU trays) is one
      NVLink domain to NCCL only through multi-node NVLink (NCCL 2.25.2 or later, with NVIDIA's
      IMEX service set up on the cluster: NCCL's multi-node NVLink tuning guide), which this
      takes a GB200 RL job to run; a cluster without it syncs over the NIC.

    Fractions: ``scaleup_fraction`` / ``scaleout_fraction`` of ``data/efficiency.csv``. Not
    modelled: the engine's own refit bookkeeping (tensor-by-tensor launches, KV-cache
    re-allocation after offload), which the published rows include.
    """
    m, acc = inf.serving_model(policy), inf.serving_accelerator(accelerator)
    if not isinstance(colocated, bool):
        raise ValueError(f"colocated={colocated!r} must be True or False")
    tp = _int("rollout_tp", rollout_tp)
    kw = _plan_keywords(train_plan)
    eff = inf.serving_efficiency(efficiency, acc)
    domain = acc.scaleup_domain_size or 1
    group = kw["tp"] * kw["pp"]
    if kw["zero_stage"] == 3 and n_train_gpus is not None:
        group = _int("n_train_gpus", n_train_gpus)
    if colocated:
        in_domain = group <= domain and tp <= domain
    else:  # one communicator of every trainer and rollout rank
        ranks = [_int(k, v) for k, v in (("n_train_gpus", n_train_gpus),
                                         ("n_rollout_gpus", n_rollout_gpus)) if v is not None]
        in_domain = len(ranks) == 2 and sum(ranks) <= domain
    if in_domain:
        bw, link = (acc.scaleup_bytes_per_s_per_dir or 0) * eff.scaleup_fraction, "scale-up"
    else:
        bw, link = (acc.scaleout_bytes_per_s_per_dir or 0) * eff.scaleout_fraction, "scale-out"
    if not bw:
        raise ValueError(f"accelerator={acc.name!r} has no {link} bandwidth for the weight "
                         "sync: pass weight_sync_s")
    return inf.weight_bytes(m, "bf16") / (tp if colocated else 1) / bw


@lru_cache(maxsize=1)
def pcie_bytes_per_s(accelerator) -> float:
    """Host link bytes/s per direction of one GPU (``PCIE_BYTES_PER_S_PER_DIR`` by the
    catalogue name's family).

    Raises
    ------
    ValueError
        An accelerator whose host link is not in the table (the name and the families listed).
    """
    acc = inf.serving_accelerator(accelerator)
    family = _family_of(acc, PCIE_BYTES_PER_S_PER_DIR)
    if family is None:
        raise ValueError(f"accelerator={acc.name!r}: no host-link (PCIe) bandwidth for it; the "
                         f"families with one are {sorted(PCIE_BYTES_PER_S_PER_DIR)}")
    return PCIE_BYTES_PER_S_PER_DIR[family]


def _family_of(acc, table: dict):
    """The key of ``table`` (an accelerator family, a catalogue-name prefix) that ``acc``'s
    name starts with, or None."""
    return next((f for f in table if acc.name.upper().startswith(f)), None)


def shared_uplink_bytes_per_s(accelerator) -> float:
    """One GPU's share of its x16 host link while every GPU of the server copies at once, on a
    server built as ``HOST_TOPOLOGY_SOURCE`` describes (a candidate, ``shared_uplink_check``)::

        B_shared = B_x16 / g_uplink

    B_x16 the nominal link (``pcie_bytes_per_s``), g_uplink the GPUs under one x16 uplink
    (``HOST_UPLINK_GPUS``: 2 for the A100 family, else 1). A800: 32 / 2 = 16 GB/s.

    Raises
    ------
    ValueError
        An accelerator without a host-link bandwidth (``pcie_bytes_per_s``)."""
    acc = inf.serving_accelerator(accelerator)
    return pcie_bytes_per_s(acc) / HOST_UPLINK_GPUS.get(_family_of(acc, HOST_UPLINK_GPUS), 1)


def host_link_rate(accelerator, link_rate: float | None = None) -> float:
    """Bytes/s per direction of one GPU's pinned host copies: ``link_rate`` if given (a
    candidate's measured rate, ``RLOptions.host_link_rate``), else the nominal link
    ``pcie_bytes_per_s``.

    Raises
    ------
    ValueError
        A ``link_rate`` that is not positive; an accelerator without a host-link bandwidth."""
    if link_rate is None:
        return pcie_bytes_per_s(accelerator)
    return _float("link_rate", link_rate, positive=True)


def optimizer_offload_time(n_params, n_gpus, accelerator, optimizer_steps: int = 1,
                           accumulation_steps: int = 1,
                           link_rate: float | None = None) -> float:
    """Seconds the trainer GPUs wait per iteration for a CPU-offloaded optimizer, as DeepSpeed
    runs it (``offload_optimizer: cpu``; DeepSpeed-Chat's ``--offload``, OpenRLHF's
    ``--adam_offload``), for one model of ``n_params`` parameters trained on ``n_gpus`` GPUs::

        hosts  = ceil(n_gpus / GPUS_PER_HOST)
        t_step = (N / hosts) / R_host  +  2 bytes · (N / n_gpus) / B_pcie
                 + 2 · (g − 1) · 2 bytes · (N / n_gpus) / B_pcie
        t      = optimizer_steps · t_step

    The last term, g = ``accumulation_steps`` micro-batches per optimizer step: ZeRO-2 with an
    offloaded optimizer accumulates each rank's gradient partition in host memory through the
    GPU, every micro-batch but the first copying the host buffer to the GPU and every one but
    the last copying the sum back, in the parameters' 16-bit type, on the compute stream
    (deepspeedai/DeepSpeed @ v0.13.2, the version of OpenRLHF's benchmark,
    ``deepspeed/runtime/zero/stage_1_and_2.py`` ``copy_grads_in_partition`` →
    ``async_accumulate_grad_in_cpu_via_gpu``; ``reduce_ipg_grads`` uses the current stream
    when ``overlap_comm`` is off, its default below ZeRO-3, ``zero/config.py``
    ``overlap_comm_valid``). ZeRO-3's round trip (``stage3.py`` ``partition_grads``) runs on
    its own stream with ``overlap_comm`` on: not priced (``offload_times`` passes g = 1).
    Added after the held-out errors had been seen (read from the code, not fitted). The link
    term's bytes: ``offload_link_bytes``; ``link_rate``: B_pcie in bytes/s instead of the
    nominal link (``host_link_rate``). Every copy is priced at the link's nominal rate, as
    if the host buffers were pinned (OpenRLHF's ``--adam_offload`` pins them); DeepSpeed-Chat
    leaves them pageable, whose copies ``deepspeed_offload_bytes`` prices, in place of these,
    with ``RLOptions.offload_pageable`` (``offload_times``; judged by
    ``unpinned_offload_check``).

    R_host = ``CPU_ADAM_PARAMS_PER_S_PER_HOST`` (the host's CPU path: CPU Adam over its ranks'
    shards and the updated 16-bit parameters back to the GPUs, which ZeRO-Offload overlaps with
    the CPU update in chunks, arXiv:2101.06840 §5.1); the second term is each rank's gradient
    shard in BF16 going to the host over its PCIe link (B_pcie = ``pcie_bytes_per_s``). Nothing
    overlaps the backward: DeepSpeed's ZeRO-Offload is synchronous (the one-step delayed
    parameter update of arXiv:2101.06840 §5.2 is not what DeepSpeed-Chat or OpenRLHF run;
    ``CPU_ADAM_SOURCE``). Every parameter is updated (all experts of a MoE). ZeRO-3's parameter
    offload (the shards fetched over PCIe for every forward and backward, DeepSpeed-Chat's
    ZeRO-3 critic) is not in this formula; with ``RLOptions.offload_pageable`` (DeepSpeed-Chat's
    rows) ``deepspeed_offload_bytes`` prices those fetches as pinned host copies in its place
    (``offload_times``, the critic at ``RLOptions.critic_zero_stage``). Left off the model:
    ZeRO-3's all-gathers after each fetch (the critic trains at the actor's plan), which
    ``zero3_critic_check`` adds with the fetches as a check (benchmarks/validate_rl.py prints
    its figures).

    Raises
    ------
    ValueError
        Parameters or GPUs not positive, optimizer steps not a whole number >= 1, an
        accelerator without a host-link bandwidth (``pcie_bytes_per_s``).
    """
    n = _params("n_params", n_params)
    g = _int("n_gpus", n_gpus)
    k = _int("optimizer_steps", optimizer_steps)
    acc_steps = _int("accumulation_steps", accumulation_steps)
    hosts = math.ceil(g / GPUS_PER_HOST)
    t_step = (n / hosts) / CPU_ADAM_PARAMS_PER_S_PER_HOST \
        + offload_link_bytes(n, g, acc_steps) / host_link_rate(accelerator, link_rate)
    return k * t_step


def offload_link_bytes(n_params, n_gpus, accumulation_steps: int = 1) -> float:
    """Bytes per GPU per optimizer step that ``optimizer_offload_time`` prices over the host
    link, for one model of N = ``n_params`` on ``n_gpus`` GPUs with g =
    ``accumulation_steps`` micro-batches per step (its sources there)::

        bytes = (1 + 2 · (g − 1)) · 2 bytes · N / n_gpus

    Raises
    ------
    ValueError
        Parameters, GPUs or accumulation steps not positive (the field named)."""
    n = _params("n_params", n_params)
    g = _int("n_gpus", n_gpus)
    acc_steps = _int("accumulation_steps", accumulation_steps)
    return (1 + 2 * (acc_steps - 1)) * 2.0 * n / g


#: Shard fetches per micro-batch of a ZeRO-3 model trained with Hugging Face gradient
#: checkpointing (``zero3_param_offload_time``): the forward, the recomputed forward and the
#: backward each gather every layer's parameters (ZeRO-3 releases a module's parameters after
#: its forward unless they are below ``stage3_param_persistence_threshold``, 1e4 in
#: DeepSpeed-Chat's ``get_train_ds_config``, and fetches them again in the pre-backward hook).
ZERO3_FETCHES_PER_MICRO_BATCH = 3
#: Bytes per element of the 16-bit parameters and gradients DeepSpeed-Chat's ZeRO-3 critic moves
#: (``--dtype`` fp16, its step-3 default; the gradient accumulation type follows it).
ZERO3_OFFLOAD_ELEMENT_BYTES = 2.0


def zero3_param_offload_bytes(n_params, n_gpus, micro_batches: int,
                              accumulation_steps: int = 1,
                              fetches: int = ZERO3_FETCHES_PER_MICRO_BATCH) -> tuple:
    """(parameter bytes, gradient bytes) each GPU moves over its host link per iteration for a
    model trained at ZeRO-3 with its parameters and optimizer in host memory (DeepSpeed
    ``offload_param`` and ``offload_optimizer`` device "cpu": DeepSpeed-Chat's ``--offload`` on
    its ZeRO-3 critic, ``dschat/utils/ds_utils.py`` ``get_train_ds_config``, microsoft/
    DeepSpeedExamples @ 6863634), over ``micro_batches`` micro-batches per GPU in optimizer
    steps of g = ``accumulation_steps`` micro-batches::

        shard       = b · N / n_gpus                      (b = ZERO3_OFFLOAD_ELEMENT_BYTES)
        parameters  = micro_batches · fetches · shard     (each fetch copies the rank's shard
                                                           to the GPU before the all-gather)
        gradients   = micro_batches / g · (2g + 1) · shard (each micro-batch one copy each
                                                           way, the step's last one more)

    Sources: deepspeedai/DeepSpeed @ v0.13.2 (the version of OpenRLHF's benchmark),
    ``deepspeed/runtime/zero/partition_parameters.py`` ``all_gather_coalesced``
    (``param_ds_tensor.to(current_device)`` for every fetched shard, l. 1217: a blocking copy)
    and ``stage3.py`` ``partition_grads`` (l. 1417-1471: micro-step 0 copies the reduced shard
    into the host buffer and back to the GPU, ``grad_buffer.to(device)``; each later one
    brings the host buffer to the GPU, adds and copies it back, "adding directly to cpu is
    very slow"; at the step's boundary the accumulated shard is copied once more into the
    optimizer's FP32 host gradient, ``fp32_grad_tensor.copy_(grad_buffer)``, a blocking copy
    whose 16-bit to FP32 conversion PyTorch does on the CPU after a 16-bit transfer,
    pytorch/pytorch aten/src/ATen/native/cuda/Copy.cu @ 007aa8ae ``copy_kernel_cuda``: "For
    blocking transfers conversions are performed on CPU"). Which host memory: the shards are
    pinned whatever ``offload_param.pin_memory`` says (the ZeRO-3 optimizer moves each
    trainable shard into ``param_groups_fp16_flat_cpu_memory``, allocated by
    ``get_accelerator().pin_memory``, stage3.py l. 655, ``_move_to_flat_buffer`` l. 632); the
    gradient buffers are pageable unless ``offload_optimizer.pin_memory`` (l. 500-504; False by
    default, ``offload_config.py`` l. 70, and DeepSpeed-Chat does not set it:
    ``unpinned_offload_check``). ``fetches`` = ``ZERO3_FETCHES_PER_MICRO_BATCH``. Counts bytes
    only; the time is ``zero3_param_offload_time``. Added after the held-out errors had been
    seen (read from the code, not fitted; the boundary copy and micro-step 0's copy back, 2 of
    the 2g + 1, were read later, with ``deepspeed_offload_bytes``).

    Raises
    ------
    ValueError
        Parameters, GPUs, micro-batches, accumulation steps or fetches not positive whole
        numbers (parameters: positive).
    """
    n = _params("n_params", n_params)
    g = _int("n_gpus", n_gpus)
    mb = _int("micro_batches", micro_batches)
    acc_steps = _int("accumulation_steps", accumulation_steps)
    f = _int("fetches", fetches)
    shard = ZERO3_OFFLOAD_ELEMENT_BYTES * n / g
    return mb * f * shard, mb / acc_steps * (2 * acc_steps + 1) * shard


def zero3_param_offload_time(n_params, n_gpus, accelerator, micro_batches: int,
                             accumulation_steps: int = 1) -> float:
    """Seconds a ZeRO-3 model with its parameters and optimizer offloaded to the host spends
    on its host link per iteration, nothing overlapped (an upper bound: DeepSpeed overlaps the
    gradient copies on its own stream and may prefetch up to ``stage3_prefetch_bucket_size``
    parameters, 3e7 in DeepSpeed-Chat, less than one Llama-2-7B MLP matrix)::

        t = (parameter bytes + gradient bytes) / B_pcie

    bytes: ``zero3_param_offload_bytes``; B_pcie = ``pcie_bytes_per_s`` (the nominal PCIe
    figure per direction per GPU, the rate of pinned memory: right for the parameter shards,
    which DeepSpeed pins; the gradient buffers of a run that does not pin them copy at the
    pageable rate, ``pageable_bytes_per_s``, as ``deepspeed_offload_time`` prices them). The
    all-gathers over NVLink that follow each fetch are ZeRO-3's own, priced by the step-time
    model at ZeRO-3, not here.

    Raises
    ------
    ValueError
        As ``zero3_param_offload_bytes``; an accelerator without a host-link bandwidth.
    """
    p, gr = zero3_param_offload_bytes(n_params, n_gpus, micro_batches, accumulation_steps)
    return (p + gr) / pcie_bytes_per_s(accelerator)


#: Host-GPU copies through pageable (not page-locked) host memory run this many times slower
#: than through pinned memory: measured on an A100, "~1.4GB/s for `Memcpy DtoH (Device ->
#: Pageable)` vs ~12.6GB/s `Memcpy DtoH (Device -> Pinned)`" (``PAGEABLE_COPY_SOURCE``),
#: 12.6 / 1.4 = 9.0. DeepSpeed's own measurement of its pageable copy after the CPU step
#: (stage_1_and_2.py l. 1866 @ v0.13.2) agrees: pinning its source made that copy "4-5x" faster
#: "on 8GPU node" (6x on one GPU) while the pinned copy moves FP32, 4 bytes an element, where
#: the pageable one moved 16 bits (converted on the CPU first), so 8-10x per byte. Taken as a
#: ratio on the host link's nominal rate (``pcie_bytes_per_s``, the rate the model gives pinned
#: copies) rather than as the absolute 1.4 GB/s: the two measurements (one D2H on one GPU, one
#: H2D on an 8-GPU node through DeepSpeed's own copy) agree on the ratio, and a ratio carries
#: to every generation of the host-link table; the absolute figure (one A100, D2H, inside
#: ``torch.save``), ``PAGEABLE_COPY_A100_BYTES_PER_S``, is the slower end, 1.4 against 32 / 9 =
#: 3.6 GB/s, printed beside it by benchmarks/validate_rl.py. Not fitted to any row.
PAGEABLE_COPY_SLOWDOWN = 12.6 / 1.4
PAGEABLE_COPY_A100_BYTES_PER_S = 1.4e9
#: The same measurement's pinned rate (D2H, one A100, inside ``torch.save``): 12.6 GB/s against
#: the nominal 32 (``measured_host_rate_check``, a candidate).
PINNED_COPY_A100_BYTES_PER_S = 12.6e9
PAGEABLE_COPY_SOURCE = ("pytorch/pytorch pull request 138018 'Add option to use pinned memory "
                        "for D2H in torch.save' (github.com/pytorch/pytorch/pull/138018, "
                        "2024-10-15): 'On my A100 ~1.4GB/s for Memcpy DtoH (Device -> Pageable) "
                        "vs ~12.6GB/s Memcpy DtoH (Device -> Pinned)'; deepspeedai/DeepSpeed "
                        "pull request 5301 'fix pagable h2d memcpy' (github.com/deepspeedai/"
                        "DeepSpeed/pull/5301, 2024-03-20): 'Speedup h2d memcpy by 6x on single "
                        "GPU and 4-5x on 8GPU node'")
#: Systems whose validation rows run DeepSpeed's CPU offload with pageable host buffers:
#: DeepSpeed-Chat's ``get_train_ds_config`` (microsoft/DeepSpeedExamples applications/
#: DeepSpeed-Chat/dschat/utils/ds_utils.py @ 6863634) sets ``offload_param`` and
#: ``offload_optimizer`` to {"device": "cpu"} and no ``pin_memory``, False by default in
#: DeepSpeed v0.13.2 (``deepspeed/runtime/zero/offload_config.py`` l. 43 and l. 70). OpenRLHF's
#: (openrlhf/utils/deepspeed_utils.py @ 0baf3dd) sets ``offload_optimizer`` "pin_memory": True:
#: its rows keep the nominal rate.
UNPINNED_OFFLOAD_SYSTEMS = ("DeepSpeed-Chat",)
#: Bytes per element of the FP32 gradient ZeRO-1/2 copies to the host at a step's boundary.
FP32_BYTES = 4.0


def pageable_bytes_per_s(accelerator) -> float:
    """Host-GPU bytes/s per direction of one GPU copying through pageable host memory::

        B_pageable = B_pcie / PAGEABLE_COPY_SLOWDOWN        (A800: 32 GB/s / 9 = 3.6 GB/s)

    B_pcie: ``pcie_bytes_per_s`` (its sources); the factor's: ``PAGEABLE_COPY_SOURCE``.

    Raises
    ------
    ValueError
        An accelerator without a host-link bandwidth (``pcie_bytes_per_s``)."""
    return pcie_bytes_per_s(accelerator) / PAGEABLE_COPY_SLOWDOWN


#: Systems whose validation rows ran DeepSpeed's CPU offload with pinned host buffers (no
#: ``offload_pageable``) on a DeepSpeed whose step copies the updated
#: parameters back to the GPU through a pageable temporary (``staged_copy_excess_time``):
#: OpenRLHF's benchmark (OpenRLHF/OpenRLHF benchmark/README.md @ 0baf3dd: "deepspeed==0.13.2").
#: ZeRO-1/2 before v0.14.1 (pull request 5301 changed ``stage_1_and_2.py`` only); ZeRO-3 in
#: every release read, up to master 38327e07f (2025-02: ``stage3.py`` l. 902-903 and 2071-2072
#: still hold and copy the FP32 partition as in v0.13.2).
#: DeepSpeed-Chat's rows, on the same DeepSpeed, price every host copy through pageable memory
#: already (``UNPINNED_OFFLOAD_SYSTEMS``).
STAGED_COPY_SYSTEMS = ("OpenRLHF",)
STAGED_COPY_SOURCE = ("deepspeedai/DeepSpeed pull request 5301 'fix pagable h2d memcpy' "
                      "(commit 7b5b06602, first released in v0.14.1): 'Fix the issue of pageble "
                      "h2d memcpy in step process. Now h2d memcpy uses pinned memory. Speedup "
                      "h2d memcpy by 6x on single GPU and 4-5x on 8GPU node'")


def staged_copy_excess_time(n_params, n_gpus, accelerator, optimizer_steps: int = 1,
                            link_rate: float | None = None) -> float:
    """Seconds per iteration one GPU waits, beyond the pinned copy ``optimizer_offload_time``
    already holds, for DeepSpeed (ZeRO-1/2 before v0.14.1; ZeRO-3 in every release read, up to
    master 38327e07f of 2025-02) to copy a CPU-offloaded optimizer's updated
    parameters back to the GPU, for one model of N = ``n_params`` on ``n_gpus`` GPUs, k =
    ``optimizer_steps`` steps, P = N / n_gpus, after each CPU Adam step::

        excess = k · (2 bytes · P / B_pageable  −  4 bytes · P / B_pcie)

    **The path run** (deepspeedai/DeepSpeed @ v0.13.2, OpenRLHF's benchmark's version): the
    FP32 master partition lives in pageable host memory whatever ``pin_memory`` says —
    ZeRO-1/2 ``stage_1_and_2.py`` l. 394-395 ``....to(self.device).clone().float().detach()``,
    ZeRO-3 ``stage3.py`` l. 861-862 the same for an offloaded optimizer's sub-groups — and the
    step writes it into the 16-bit GPU parameters with one blocking cross-dtype copy
    (``stage_1_and_2.py`` l. 1866 ``bit16_partitions[partition_id].data.copy_(fp32_partition
    .data)``; ``stage3.py`` l. 2000-2001 ``_reassign_or_swap_out_partitioned_parameters``).
    PyTorch converts a blocking host-to-GPU copy's dtype on the CPU into a new (pageable)
    tensor and then copies that (pytorch/pytorch ``aten/src/ATen/native/cuda/Copy.cu``
    ``copy_kernel_cuda``, "For blocking transfers conversions are performed on CPU"): 2 bytes
    per parameter at the pageable rate B_pageable = ``pageable_bytes_per_s``. **The path
    priced so far**: ``CPU_ADAM_PARAMS_PER_S_PER_HOST`` is a DeepSpeed of 2025 (ZenFlow) whose
    CPU path includes "transfers updated parameters back to GPU" (``CPU_ADAM_SOURCE``), after
    DeepSpeed pull request 5301 pinned ZeRO-1/2's FP32 partition and copies it as FP32 before
    converting on the GPU (``fp32_partition.to(device)``): 4 bytes per parameter at the pinned
    rate B_pcie = ``pcie_bytes_per_s`` (ZeRO-3's path was not changed by it: a ZeRO-3 run with
    CPU Adam on a current DeepSpeed still takes the staged copy, which ``offload_staged_copy``
    prices only where a row says so). The excess replaces the one by the other.

    Check against the source (``STAGED_COPY_SOURCE``): the ratio of the two copies is
    (2 / B_pageable) / (4 / B_pcie) = ``PAGEABLE_COPY_SLOWDOWN`` / 2 = 4.5, inside the pull
    request's measured "4-5x on 8GPU node" (the A800 rows' servers hold 8). Not priced: the
    CPU's conversion of the FP32 partition (a lower bound). DeepSpeed-Chat's rows price all their
    host copies through pageable memory (``deepspeed_offload_time``), this one included; the
    CPU's side is otherwise unchanged. Added after the held-out errors had been seen (read from
    the code, not fitted). ``link_rate``: B_pcie in bytes/s instead of the nominal link
    (``host_link_rate``; B_pageable = B_pcie / ``PAGEABLE_COPY_SLOWDOWN`` either way).

    Raises
    ------
    ValueError
        Parameters or GPUs not positive, optimizer steps not a whole number >= 1, an
        accelerator without a host-link bandwidth (``pcie_bytes_per_s``), a ``link_rate`` not
        positive."""
    n = _params("n_params", n_params)
    g = _int("n_gpus", n_gpus)
    k = _int("optimizer_steps", optimizer_steps)
    p = n / g
    b = host_link_rate(accelerator, link_rate)
    return k * (ZERO3_OFFLOAD_ELEMENT_BYTES * p / (b / PAGEABLE_COPY_SLOWDOWN)
                - FP32_BYTES * p / b)


def deepspeed_offload_bytes(n_params, n_gpus, zero_stage: int, optimizer_steps: int = 1,
                            accumulation_steps: int = 1) -> tuple:
    """(host-buffer bytes, pinned bytes) one GPU moves over its host link per iteration for a
    model of N = ``n_params`` trained on ``n_gpus`` GPUs with DeepSpeed's CPU offload
    (``offload_optimizer`` "cpu"; at ZeRO-3 ``offload_param`` "cpu" too, as DeepSpeed-Chat's
    ``--offload`` sets both), in a 16-bit type with DeepSpeed's default gradient accumulation
    type (the training type under ZeRO: ``engine.py`` ``get_data_types`` @ v0.13.2), k =
    ``optimizer_steps`` steps of g = ``accumulation_steps`` micro-batches, P = N / n_gpus::

        ZeRO-1/2:  host   = k · ((g − 1) · 2 · 2 + 4 + 2) · P = k · (4g + 2) · P
                   pinned = 0
        ZeRO-3:    host   = k · (2g + 1) · 2 · P         (the gradient round trips)
                   pinned = k · g · 3 · 2 · P            (the parameter fetches)

    ZeRO-1/2, deepspeedai/DeepSpeed @ v0.13.2 ``deepspeed/runtime/zero/stage_1_and_2.py``: every
    micro-batch but the step's last copies the rank's 16-bit accumulated gradient to its host
    buffer and every one but the first brings it back to add
    (``async_accumulate_grad_in_cpu_via_gpu``, l. 1178-1225: (g − 1) · 2 bytes · P each way);
    the last converts it to FP32 on the GPU and copies it into the optimizer's host gradient
    (``async_inplace_copy_grad_to_fp32_buffer_from_gpu``, l. 1255-1271: 4 bytes · P); after CPU
    Adam the FP32 partition is copied to the GPU's 16-bit parameters (``step``, l. 1866: a
    blocking copy, converted to 16 bits on the CPU first, pytorch/pytorch
    aten/src/ATen/native/cuda/Copy.cu @ 007aa8ae ``copy_kernel_cuda``: 2 bytes · P). Each copy
    moves whole parameters for every parameter that touches the rank's partition (the
    straddling parameters' extra is ignored: P). ZeRO-3: ``zero3_param_offload_bytes`` with k · g
    micro-batches and ``ZERO3_FETCHES_PER_MICRO_BATCH`` fetches (its sources). "host": buffers
    whose memory ``pin_memory`` decides (pageable when False, DeepSpeed's default: stage 1/2
    l. 143, 1190, 673; stage3.py l. 503, 1011); "pinned": the ZeRO-3 parameter shards, pinned
    whatever the configuration (stage3.py l. 655). Read after the held-out errors had been seen.

    Raises
    ------
    ValueError
        Parameters, GPUs, steps or accumulation not positive, a ZeRO stage not 1, 2 or 3 (the
        field named)."""
    n = _params("n_params", n_params)
    gpus = _int("n_gpus", n_gpus)
    k = _int("optimizer_steps", optimizer_steps)
    g = _int("accumulation_steps", accumulation_steps)
    if zero_stage not in (1, 2, 3):
        raise ValueError(f"zero_stage={zero_stage!r} must be 1, 2 or 3 (CPU offload needs ZeRO)")
    p = n / gpus
    if zero_stage < 3:
        b16 = ZERO3_OFFLOAD_ELEMENT_BYTES
        return k * ((g - 1) * 2 * b16 + FP32_BYTES + b16) * p, 0.0
    params, grads = zero3_param_offload_bytes(n, gpus, k * g, g)
    return grads, params


def deepspeed_offload_time(n_params, n_gpus, accelerator, zero_stage: int,
                           optimizer_steps: int = 1, accumulation_steps: int = 1,
                           pinned: bool = False, pageable_rate: float | None = None,
                           link_rate: float | None = None) -> float:
    """Seconds per iteration one GPU spends on the host copies of ``deepspeed_offload_bytes``,
    serial with its compute::

        t = host bytes / B + pinned bytes / B_pcie
        B = pageable_bytes_per_s (pinned False)  or  B_pcie = pcie_bytes_per_s (pinned True)

    Serial: a copy to pageable host memory returns to the host only when it has completed, one
    from pageable memory waits for its stream first (CUDA Runtime API, "API synchronization
    behavior", docs.nvidia.com/cuda/archive/12.2.0/cuda-runtime-api/api-sync-behavior.html), so
    the host thread that queues the backward's kernels waits on each copy; ZeRO-1/2 copies on
    the compute stream besides (``overlap_comm`` off below ZeRO-3, v0.13.2 ``zero/config.py``),
    and ZeRO-3's gradient copy on its own stream is "a synchronous, low-bandwidth (staged
    pageable) path with no overlap against backward compute" (deepspeedai/DeepSpeed pull request
    8207, github.com/deepspeedai/DeepSpeed/pull/8207, which pins the buffers by default). The
    ZeRO-3 parameter fetches are blocking ``.to(device)`` copies (partition_parameters.py
    l. 1217), taken as serial too. With ``pinned`` (OpenRLHF's configuration) every copy runs at
    the nominal rate, still serial (an upper bound there: pinned copies may overlap).
    ``pageable_rate``: B in bytes/s instead of ``pageable_bytes_per_s`` (the benchmark's
    bracket, ``PAGEABLE_COPY_A100_BYTES_PER_S``); ``link_rate``: B_pcie in bytes/s instead of
    the nominal link (``host_link_rate``), B = B_pcie / ``PAGEABLE_COPY_SLOWDOWN`` without a
    ``pageable_rate``.

    Raises
    ------
    ValueError
        As ``deepspeed_offload_bytes``; an accelerator without a host-link bandwidth."""
    host, pin = deepspeed_offload_bytes(n_params, n_gpus, zero_stage, optimizer_steps,
                                        accumulation_steps)
    pinned = as_flag(pinned, "pinned")
    b = host_link_rate(accelerator, link_rate)
    if pageable_rate is None:
        pageable_rate = b / PAGEABLE_COPY_SLOWDOWN
    return host / (b if pinned else _float("pageable_rate", pageable_rate, positive=True)) \
        + pin / b


def _nemo_rl_reference_bytes() -> float:
    """BF16 weight bytes of ``NEMO_RL_REFIT_POLICY`` (the measured refit's model)."""
    return float(inf.weight_bytes(inf.serving_model(NEMO_RL_REFIT_POLICY), "bf16"))


def nemo_rl_refit_time(policy, refit: str = "nemo-rl", colocated: bool = True) -> float:
    """Seconds of NeMo RL's refit of ``policy``: colocated (policy parameter gather, CUDA-IPC
    handle transfer, vLLM weight update) or, with ``colocated=False`` and v0.4.0 on, to separate
    rollout GPUs by NCCL broadcast; scaled by weight bytes from the published measurement of
    the version's refit path (``refit``: "nemo-rl", v0.3's per-group IPC handles; "nemo-rl-v0.4",
    the streamed refit of v0.4.0 on, or its overlapped NCCL broadcast)::

        t = T × W(policy) / W(DeepSeek-V3)     (W: BF16 weight bytes)
        T = 47.2 s (v0.3, ``NEMO_RL_REFIT_S``)  or  35 s (v0.4.0 on, ``NEMO_RL_ZMQ_REFIT_S``)
        separate rollout GPUs (``colocated=False``, v0.4.0 on only): T = 14 s
        (``NEMO_RL_NCCL_REFIT_S``, ``NEMO_RL_NCCL_REFIT_SOURCE``)

    Sources: ``NEMO_RL_REFIT_SOURCE`` (Table 1, NeMo-RL v0.3), ``NEMO_RL_ZMQ_REFIT_SOURCE``
    (the path of v0.4.0 and v0.6.0; taken for those versions' rows after their errors had
    been seen: a measurement of the path their code runs, not fitted). Assumptions, stated:
    every step of the refit moves or registers the whole model (each policy worker gathers the full
    parameters; the IPC buffers are packed in buckets of bytes), so the time scales with the
    bytes and does not shrink with more GPUs (this model's assumption: the blog does not say how
    the refit scales with the GPU count, and it reports a host cost growing linearly with the
    rollout TP size); the host costs the blog names (Ray calls per vLLM executor, metadata per
    parameter name) are folded into that one rate, so the rollout TP size, the parameter count
    per tensor and NeMo RL's speed-ups other than the streamed refit are not modelled.
    Measured paths only: colocated for "nemo-rl" and "nemo-rl-v0.4", separate rollout GPUs for
    "nemo-rl-v0.4" (the 14 s broadcast); v0.3's separate-GPU refit, which no public source
    times, is refused here (ValueError) and priced by bytes over links by ``weight_sync_time``
    (``sync_time``).
    """
    m = inf.serving_model(policy)
    if refit not in ("nemo-rl", "nemo-rl-v0.4"):
        raise ValueError(f"refit={refit!r} must be 'nemo-rl' or 'nemo-rl-v0.4'")
    if not isinstance(colocated, bool) or (not colocated and refit == "nemo-rl"):
        raise ValueError(f"colocated={colocated!r} must be True, or False with refit "
                         "'nemo-rl-v0.4' (no separate-GPU refit of v0.3 is measured)")
    t = NEMO_RL_REFIT_S if refit == "nemo-rl" else NEMO_RL_ZMQ_REFIT_S
    t = t if colocated else NEMO_RL_NCCL_REFIT_S
    return t * float(inf.weight_bytes(m, "bf16")) / _nemo_rl_reference_bytes()


def nemo_rl_offload_time(policy) -> float:
    """Seconds of the offload NeMo RL's colocated refit runs each step (the Adam moments and the
    weights out to host memory, vLLM's weights back in, the allocator's clean-up), scaled by
    weight bytes from its one published measurement::

        t = 20 s × W(policy) / W(DeepSeek-V3)        (W: BF16 weight bytes)

    Source: ``NEMO_RL_OFFLOAD_SOURCE`` (what its timer holds: ``NEMO_RL_OFFLOAD_S``).
    Assumptions, stated, as ``nemo_rl_refit_time``'s: the time scales with the model's bytes and
    not with the GPU count or the host link (the measured run's layout is not published, so its
    bytes per GPU and rate are not known); the same seconds on every accelerator (measured on
    H100 hosts; GB200's host link is faster, and is not credited). It stands for one direction
    of each colocated round trip of ``nemo_rl_swap_bytes`` (``sync_time``)."""
    m = inf.serving_model(policy)
    return NEMO_RL_OFFLOAD_S * float(inf.weight_bytes(m, "bf16")) / _nemo_rl_reference_bytes()


def nemo_rl_swap_bytes(policy, train_plan=None, *, n_train_gpus: int, rollout_tp: int = 1,
                       colocated: bool = True) -> dict:
    """Bytes each trainer GPU moves between its HBM and host memory per iteration as NeMo RL's
    Megatron policy worker does, by what they serve: {"reference": B, "colocation": B}.

    Read from NVIDIA-NeMo/RL @ b1c86a8 (v0.3.0) and @ 06beed9 (a 2025-12-01 commit after the
    v0.4.0 tag c751f811),
    ``nemo_rl/models/policy/megatron_policy_worker.py`` and ``nemo_rl/algorithms/grpo.py`` (the
    same functions in ``nemo_rl/models/policy/workers/megatron_policy_worker.py`` @ 5fb5889,
    v0.6.0):
    ``use_reference_model`` copies the policy's state dict to the host, loads the reference's
    from the host and loads the policy's back (every step: grpo.py computes the reference
    log-probabilities unconditionally); colocated (``refit_policy_generation``),
    ``offload_before_refit`` releases the gradient buffers and moves the optimizer state to the
    host, ``offload_after_refit`` the weights, ``prepare_for_lp_inference`` and
    ``prepare_for_training`` bring weights and optimizer state back, and vLLM's
    ``sleep(level=1)`` after generation offloads its weights that ``wake_up`` reloads. The
    gradient buffers cross no host link: Megatron-Core's ``_ParamAndGradBuffer.offload_to_cpu``
    frees their storage (``grad_data.storage().resize_(0)``) and ``reload_from_cpu``
    re-allocates and zeroes it, while the weights go to pinned host memory
    (terrykong/Megatron-LM, the fork NeMo RL's Megatron-LM submodule tracks,
    megatron/core/distributed/param_and_grad_buffer.py @ 17433c1e; read after the held-out
    errors had been seen: the gradients' 2 · 2 B · S round trip counted before is dropped).
    With S the policy's parameters per trainer GPU and N all its parameters::

        S = (N − N_e) / (tp · pp) + N_e / (etp · ep · pp)    N_e: routed-expert parameters
        reference  = 3 · 2 B · S                         (out, reference in, policy back)
        colocation = 2 · 2 B · S  +  2 · 8 B · N / n_train_gpus
                     + 2 · 2 B · N / rollout_tp          (weights; Adam moments; vLLM weights)

    Separate rollout GPUs: reference = 3 · 2 B · S, colocation = 0
    (``prepare_for_lp_inference`` still releases the gradient buffers, 06beed9, v0.6.0: no
    host bytes). Not priced: at v0.3.0 and v0.4.0 (c751f811, and the r0.4.0 branch that ran
    the v0.4 tables) ``prepare_for_lp_inference`` calls ``offload_before_refit`` on separate GPUs
    too, so those versions also move the Adam moments out and back, 2 · 8 B · N / n_train_gpus
    more per GPU (0.25-0.65 s on the v0.4 one-step-off-policy rows, under 1 % of their steps).
    ``etp`` the plan's expert tensor parallelism (its ``etp``, else tp: Megatron-Core's default;
    NeMo RL's configurations set 1, and its rows say so). Assumptions, stated: the distributed
    optimizer's Adam moments
    sharded over every trainer GPU (``NEMO_RL_SWAP_ADAM_BYTES``; its FP32 master weights not
    moved); a ``train_plan`` of "auto" or None counts the default plan's shard (tp = pp = ep =
    1): ``rl_iteration`` passes the plan its automatic search chose instead (before, an "auto"
    update's swaps counted DeepSeek-V3's whole 671B parameters per GPU, 64 s of reference swap
    on 256 H100s against 2 s at the recipe's PP16 EP16). Added after the held-out errors had
    been seen (read from the code, not fitted).

    Raises
    ------
    ValueError
        A GPU count or rollout TP not a whole number >= 1, ``colocated`` not a bool, a bad plan.
    """
    m = inf.serving_model(policy)
    n_train = _int("n_train_gpus", n_train_gpus)
    tp_gen = _int("rollout_tp", rollout_tp)
    if not isinstance(colocated, bool):
        raise ValueError(f"colocated={colocated!r} must be True or False")
    kw = _plan_keywords(train_plan)
    n, n_e = float(m.n_params), float(m.param_breakdown["ffn_routed_experts"])
    etp = kw["tp"] if kw.get("etp") is None else kw["etp"]
    shard = (n - n_e) / (kw["tp"] * kw["pp"]) + n_e / (etp * kw["ep"] * kw["pp"])
    w = NEMO_RL_SWAP_WEIGHT_BYTES
    reference = 3 * w * shard
    if not colocated:
        return {"reference": reference, "colocation": 0.0}
    colocation = 2 * w * shard + 2 * NEMO_RL_SWAP_ADAM_BYTES * n / n_train + 2 * w * n / tp_gen
    return {"reference": reference, "colocation": colocation}


def host_swap_times(m: ModelSpec, acc: Accelerator, o: RLOptions, plan=None) -> dict:
    """Seconds of ``nemo_rl_swap_bytes`` over the host link (``pcie_bytes_per_s``, one
    direction at a time, nominal: a lower bound), {"reference": s, "colocation": s}; zeros
    without ``o.host_swaps`` or for DPO. ``plan``: the trainer's plan keywords when
    ``o.train_plan`` is "auto" (the searched plan's shard, ``rl_iteration``); None: ``o``'s."""
    if not o.host_swaps or o.algorithm == "dpo":
        return {"reference": 0.0, "colocation": 0.0}
    b = nemo_rl_swap_bytes(m, o.train_plan if plan is None else plan,
                           n_train_gpus=o.training_gpus,
                           rollout_tp=o.rollout_tp, colocated=o.colocated)
    bw = pcie_bytes_per_s(acc)
    return {k: v / bw for k, v in b.items()}


# ------------------------------------------------------------------------------ iteration
@dataclass(frozen=True)
class RLIteration:
    """One RL iteration: wall time, GPU-seconds by part (summing to the total) and FLOPs.

    ``train_wall_s`` = ``experience_wall_s`` (the scoring, reference, critic-value and old
    log-probability forwards) + ``update_wall_s`` (the policy's and the critic's updates).
    See the module docstring for the formulas; ``rl_iteration`` builds it.
    """

    algorithm: str
    policy: str
    accelerator: str
    n_gpus: int
    rollout_gpus: int
    colocated: bool
    asynchronous: bool
    wall_s: float
    generation_wall_s: float
    train_wall_s: float
    parts_gpu_s: dict
    flops: dict
    samples: int
    tokens: int
    verifier_usd: float = 0.0
    experience_wall_s: float = 0.0
    update_wall_s: float = 0.0
    notes: str = field(default="", compare=False)

    @property
    def gpu_s(self) -> float:
        return float(sum(self.parts_gpu_s.values()))

    @property
    def gpu_hours(self) -> float:
        return self.gpu_s / SECONDS_PER_HOUR

    @property
    def generation_flops_share(self) -> float:
        """Generation FLOPs ÷ all FLOPs of the iteration (2N/6N accounting)."""
        total = sum(self.flops.values())
        return self.flops["generation"] / total if total else 0.0

    @property
    def generation_time_share(self) -> float:
        """Wall-clock share of the iteration spent generating (tail included)."""
        return self.generation_wall_s / self.wall_s if self.wall_s else 0.0

    def parts(self, price_usd_per_gpu_hour: float | None = None) -> pd.DataFrame:
        """GPU-seconds, GPU-hours, share (and USD) by part; the rows sum to ``gpu_s``."""
        df = pd.DataFrame({"part": list(self.parts_gpu_s),
                           "gpu_s": [float(v) for v in self.parts_gpu_s.values()]})
        df["gpu_hours"] = df["gpu_s"] / SECONDS_PER_HOUR
        df["share"] = df["gpu_s"] / self.gpu_s
        if price_usd_per_gpu_hour is not None:
            price = _float("price_usd_per_gpu_hour", price_usd_per_gpu_hour, positive=True)
            df["usd"] = df["gpu_hours"] * price
        return df


@dataclass(frozen=True)
class RLOptions:
    """Every setting of an RL iteration (``rl_iteration``'s options), validated on
    construction: a bad value is a ValueError naming the field.

    Fields
    ------
    algorithm : {"ppo", "grpo", "dpo"}
        PPO: actor, critic (default: the policy's size), reference and reward model (default: the
        policy's size) or verifier. GRPO: G samples per prompt, no critic, group-normalised
        advantages. DPO: no generation; ``prompts_per_step`` preference pairs with chosen and
        rejected responses of ``response_tokens`` each.
    prompts_per_step, samples_per_prompt : int (G >= 2 for GRPO)
    prompt_tokens : int
    response_tokens, response_tokens_max : mean and longest response (``response_lengths``);
        ``response_tokens_max`` None: every response has the mean length.
    lengths : array of int, optional
        Explicit response lengths (overrides the two above); its size must be prompts × G.
    ppo_epochs : int
        Passes over the batch per iteration (E).
    reward : "verifier", ModelSpec, str or float
        "verifier": rule-based scoring, no GPU FLOPs (``verifier_s`` wall seconds and
        ``verifier_usd_per_sample`` per sample); otherwise the reward model (or its parameters).
    critic : ModelSpec, str or float, optional
        PPO's value model (default: the policy's size). Not used by GRPO or DPO.
    reference : bool
        Compute reference log-probabilities for a KL term.
    recompute_old_logprobs : bool, optional
        Recompute the policy's log-probabilities of the samples before the update (default True
        for PPO, False otherwise: the textbook accounting; a scenario's iteration recomputes
        them for GRPO too, as the frameworks do, ``scenario_recomputes_old_logprobs``).
    n_gpus : int
        All GPUs of the job.
    rollout_gpus : int
        0: colocated (all ``n_gpus`` switch between generation and training). Otherwise a
        separate rollout engine on this many GPUs, the trainer on the rest.
    rollout_tp : int
        Tensor parallelism of each rollout replica (must divide the rollout GPUs).
    max_concurrent : int, optional
        Engine cap on concurrent sequences per replica (vLLM ``max_num_seqs``, a micro-rollout
        batch); default: the KV-cache capacity.
    prefix_sharing : bool
        GRPO's G samples of a prompt share its prefill (vLLM/SGLang prefix caching).
    asynchronous : bool
        Generation of step i+k overlaps training of step i (off-policy by ``off_policy_steps``
        = k); needs separate rollout GPUs.
    off_policy_steps : int >= 1
        k for asynchronous RL: up to k iterations' requests in flight on each rollout replica
        (``generation_time``); no effect on synchronous RL.
    partial_rollouts : bool
        Over-provision and carry unfinished responses to the next step (APRIL, Kimi k1.5): the
        tail is removed up to the best rollout-throughput gain measured,
        ``PARTIAL_ROLLOUT_GAIN_MAX`` (``generation_time``).
    weight_sync_s : float, optional
        Seconds to move new weights to the rollout engine; default: ``refit``'s model.
    refit : str
        How the weight sync is priced when ``weight_sync_s`` is not given (``REFIT_MODELS``):
        "links" (``weight_sync_time``: bytes over links), "nemo-rl" or "nemo-rl-v0.4" (NeMo RL's
        measured refit of v0.3 or of v0.4.0 on, ``nemo_rl_refit_time``; on separate rollout
        GPUs v0.3's falls back to "links", v0.4's is its measured NCCL refit).
    train_mfu : float in (0, 1], optional
        MFU of the scoring and update passes (of the dense BF16 peak): an explicit override of
        the step-time model (None: ``llmcost.step_time`` with ``train_plan`` and ``stack``).
    verifier_s, verifier_usd_per_sample : float >= 0
        A rule-based verifier's wall seconds per iteration and USD per sample.
    weight_dtype, kv_dtype : rollout precisions (``llmcost.inference``).
    rollout_reserve_fraction : float in [0, 1)
        HBM the rollout engine leaves unused (SGLang ``--mem-fraction-static 0.6`` is 0.4;
        vLLM's default ``gpu_memory_utilization`` 0.9 is 0.1).
    efficiency : Efficiency, optional
        Achievable fractions for the rollout roofline and the step-time model (default: the
        catalogue's for the accelerator).
    engine : str
        Rollout engine (``ROLLOUT_ENGINES``): "vLLM", "SGLang", "TensorRT-LLM" (continuous
        batching at the family's fitted efficiency), "HF generate" (static micro-batches of
        ``max_concurrent``, padded, no paged KV) or "roofline" (the bound).
    train_plan : dict or "auto", optional
        The trainer's parallel plan for ``parallel.make_plan``: tp, pp, cp, ep, zero_stage,
        micro_batch_size, recompute, pp_split (default ``DEFAULT_TRAIN_PLAN``; dp is the rest);
        "auto": the fastest plan that fits by the step-time model among those the stack runs
        (``train_step``).
    train_etp : None or 1, optional
        With ``train_plan="auto"``: the routed experts' tensor parallelism of every plan the
        search tries (None: equal to tp, Megatron-Core's default; 1: MoE parallel folding,
        Liu et al. 2025, arXiv:2504.14960, what a scenario's ``etp: 1`` asks for; an MoE
        policy only). A given plan carries its own ``etp``.
    stack : str, optional
        Training software stack for the step-time model and the automatic plan's search
        (``data/stacks.csv``; None: ``stacks.DEFAULT_STACK``).
    hf_s_per_layer_step : float >= 0
        HF generate's host cost per layer per decode step (``HF_GENERATE_S_PER_LAYER_STEP``).
    hf_s_per_seq_layer_step : float >= 0
        HF generate's host cost per sequence per layer per decode step, added to the one above
        (``RolloutSetup.hf_s_per_seq_layer_step``; default 0, the candidate
        ``HF_BATCH_HOST_FIT`` left off).
    rollout_prompt_tokens : int, optional
        The prompt length the rollout engine prices, when prompts of mixed lengths make it
        differ from ``prompt_tokens``, the length the forwards and the update see: OpenRLHF @
        0baf3dd hands vLLM each prompt without padding and pads the forwards' batch to its
        longest prompt (``UNPADDED_PROMPT_SYSTEMS``), so the engine prices about the mean
        prompt and the forwards the batch's longest. With prompts of one length the two
        agree: leave it None (``prompt_tokens``).
    role_gpus : dict, optional
        GPUs of each model when the models sit on separate GPU groups (OpenRLHF's Ray placement,
        e.g. reference 1, reward 1, actor 2, critic 2 beside 2 vLLM GPUs): keys from ``ROLES``,
        whole numbers summing to at most ``n_gpus``. Each pass then runs on its model's GPUs;
        the experience forwards run side by side (their wall is the slowest model's) and so do
        the actor's and the critic's updates (``pass_times``). None: every pass runs on all
        trainer GPUs, one after another.
    optimizer_offload : bool
        The trained models' (actor's and critic's) optimizer runs on the host CPUs, as DeepSpeed's
        ZeRO-Offload (DeepSpeed-Chat ``--offload``, OpenRLHF ``--adam_offload``): each optimizer
        step adds ``optimizer_offload_time`` to the update.
    train_global_batch : int, optional
        Sequences per optimizer step (NeMo RL's ``train_global_batch_size``, OpenRLHF's
        ``train_batch_size``): the iteration takes ceil(samples × E / it) optimizer steps
        (``optimizer_steps``), each priced by the step-time model (``optimizer_batch``: its
        pipeline fill and drain, gradient reduction and optimizer update once per step) and
        each paying the offloaded optimizer's time. None: one step per PPO epoch.
    pack_tokens : int, optional
        Sequence packing (NeMo RL's ``sequence_packing.train_mb_tokens``): each training
        micro-batch packs ⌊pack_tokens / (P + mean R)⌋ sequences (at least one: pack_tokens
        must hold the prompt and the longest response, else refused), padded to
        ``pack_tokens`` under pipeline parallelism (``optimizer_batch``). None: micro-batches of
        ``train_plan``'s micro_batch_size sequences, unpadded.
    rollout_decode_factor : float > 0, optional
        Multiplies every decode step of the rollout (``RolloutSetup.decode_factor``); None: the
        engine's and accelerator's ``VLLM_DECODE_FACTORS`` entry (``vllm_decode_factor``).
    rollout_piecewise_graphs : bool
        The rollout engine decodes in piecewise CUDA graphs (vLLM's V1 before v0.11.0,
        ``vllm_piecewise_graphs``; ``RolloutSetup.piecewise_graphs``): an MoE policy pays
        ``VLLM_PIECEWISE_S_PER_STEP`` per decode step. False (default): a
        current vLLM, whose default graphs cover the whole decode.
    host_swaps : bool
        The trainer moves model state between GPU and host memory every iteration as NeMo RL's
        Megatron policy worker does (``nemo_rl_swap_bytes``: the reference model swapped in
        for its log-probabilities; colocated, the policy's weights, gradients and optimizer
        state and the rollout engine's weights moved out and back), over the host link
        (``pcie_bytes_per_s``).
    rollout_per_call : bool
        Each rollout replica receives ``max_concurrent`` sequences per engine call and finishes
        the call before the next (``RolloutSetup.per_call``: a call ends with its longest
        response, freed slots not refilled). False: continuous batching.
    hf_host_overlap : bool
        HF generate's host cost per decode step overlaps the GPU's work instead of adding to it
        (``RolloutSetup.hf_host_overlap``, ``hf_host_overlaps``); default off (the sum: an
        attention that synchronises in every layer, FlashAttention-2 on padded batches).
    offload_pageable : bool
        With ``optimizer_offload``: DeepSpeed's CPU offload copies through pageable host buffers
        (no ``pin_memory``: DeepSpeed-Chat), priced by ``deepspeed_offload_time`` in place of
        the nominal-rate copies of ``optimizer_offload_time`` (``offload_times``). False: pinned
        (OpenRLHF's ``--adam_offload``).
    offload_staged_copy : bool
        With ``optimizer_offload`` and without ``offload_pageable``: DeepSpeed (ZeRO-1/2 before
        v0.14.1, ZeRO-3 still) copies the updated parameters back to the GPU through a pageable
        temporary after each CPU Adam step, whatever ``pin_memory`` says
        (``staged_copy_excess_time``, added to each trained model's offload by
        ``offload_times``); on for OpenRLHF's validation rows
        (``STAGED_COPY_SYSTEMS``, ``row_offload``; judged by ``staged_copy_check``).
    host_link_rate : float, optional
        Bytes/s per direction of a GPU's pinned host copies in the CPU offload's terms
        (``offload_times``, ``host_link_rate``); None: the nominal link (``pcie_bytes_per_s``).
        A candidate (``measured_host_rate_check``), off.
    critic_zero_stage : int, optional
        The critic's ZeRO stage for its offload's host traffic with ``offload_pageable``
        (``deepspeed_offload_bytes``: at 3, its parameter shards fetched from the host); None:
        the plan's. The step model prices the critic's update at the plan either way.
    offload_host_shared : bool
        With ``role_gpus`` and ``optimizer_offload``: the actor's and the critic's CPU Adam,
        trained side by side, share the CPUs of the hosts their GPUs fill (``offload_times``);
        a candidate (``shared_host_adam_check``), off.
    experience_interleaved : bool
        With ``role_gpus``, synchronous: each actor rank waits only for its own share of the
        experience forwards, the helper models' work for the other ranks running while those
        generate (``update_walls``: OpenRLHF's Ray experience maker); off by default, on for
        OpenRLHF's Ray validation rows by the benchmark's rule (``experience_interleave_check``,
        ``row_experience_interleaved``).
    train_dp_overlap : bool, optional
        Whether the trainer overlaps its data-parallel / ZeRO gradient collectives with the
        backward (``step_time``'s ``dp_overlap``); None: the training stack's setting
        (``stack``). DeepSpeed below ZeRO-3 runs them on the compute stream unless the
        config sets ``overlap_comm`` (``deepspeed_dp_overlap``); on for the DeepSpeed
        validation rows (``row_deepspeed_reduction``; judged by ``deepspeed_overlap_check``).
    train_recipe : str, optional
        The update step's precision recipe (``training.memory.RECIPES``: the bytes of the
        gradients the data-parallel ranks reduce); None: ``step_time``'s default. DeepSpeed
        reduces in the 16-bit training type (``DEEPSPEED_RECIPE``).
    deepspeed_allreduce : bool
        A ZeRO-2 model's per-micro-batch gradient reduction is an all-reduce (DeepSpeed v0.13.2,
        ``DEEPSPEED_ALLREDUCE_SOURCE``), not the reduce-scatter the step model prices: each
        trained model's update adds ``deepspeed_allreduce_times``. Default off.
    """

    algorithm: str = "grpo"
    prompts_per_step: int = 32
    samples_per_prompt: int = 16
    prompt_tokens: int = 512
    response_tokens: float = 4096
    response_tokens_max: float | None = None
    lengths: object = None
    ppo_epochs: int = 1
    reward: object = "verifier"
    critic: object = None
    reference: bool = True
    recompute_old_logprobs: bool | None = None
    n_gpus: int = 8
    rollout_gpus: int = 0
    rollout_tp: int = 1
    max_concurrent: int | None = None
    prefix_sharing: bool = True
    asynchronous: bool = False
    off_policy_steps: int = 1
    partial_rollouts: bool = False
    weight_sync_s: float | None = None
    refit: str = "links"
    train_mfu: float | None = None
    verifier_s: float = 0.0
    verifier_usd_per_sample: float = 0.0
    weight_dtype: str = "bf16"
    kv_dtype: str = "bf16"
    rollout_reserve_fraction: float = inf.SERVING_RESERVE
    efficiency: Efficiency | None = None
    engine: str = "vLLM"
    train_plan: dict | None = None
    train_etp: int | None = None
    stack: object = None
    hf_s_per_layer_step: float = HF_GENERATE_S_PER_LAYER_STEP
    role_gpus: dict | None = None
    optimizer_offload: bool = False
    train_global_batch: int | None = None
    host_swaps: bool = False
    pack_tokens: int | None = None
    rollout_decode_factor: float | None = None
    rollout_piecewise_graphs: bool = False
    rollout_per_call: bool = False
    hf_host_overlap: bool = False
    offload_pageable: bool = False
    offload_staged_copy: bool = False
    host_link_rate: float | None = None
    critic_zero_stage: int | None = None
    offload_host_shared: bool = False
    experience_interleaved: bool = False
    train_dp_overlap: bool | None = None
    train_recipe: str | None = None
    hf_s_per_seq_layer_step: float = 0.0
    rollout_prompt_tokens: int | None = None
    deepspeed_allreduce: bool = False

    def __post_init__(self):
        self._check_counts()
        self._check_values()
        self._check_placement()
        self._check_lengths()

    def _check_counts(self):
        fix = object.__setattr__
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm={self.algorithm!r} must be one of {ALGORITHMS}")
        for name in ("prompts_per_step", "samples_per_prompt", "prompt_tokens", "ppo_epochs",
                     "n_gpus", "rollout_tp", "off_policy_steps"):
            fix(self, name, _int(name, getattr(self, name)))
        fix(self, "rollout_gpus", _int("rollout_gpus", self.rollout_gpus, minimum=0))
        if self.algorithm == "grpo" and self.samples_per_prompt < 2:
            raise ValueError(f"samples_per_prompt={self.samples_per_prompt} must be >= 2 for "
                             "GRPO (advantages are normalised within each group of samples)")
        if self.samples > MAX_SAMPLES_PER_ITERATION:
            raise ValueError(f"prompts_per_step × samples per prompt (2 for DPO) = "
                             f"{self.samples:,} sequences per "
                             f"iteration must be <= {MAX_SAMPLES_PER_ITERATION:,}: each "
                             "sequence's response length is drawn (response_lengths), in "
                             "time and memory that grow with the count; a larger batch is "
                             "several iterations")
        if self.max_concurrent is not None:
            fix(self, "max_concurrent", _int("max_concurrent", self.max_concurrent))
        if self.train_global_batch is not None:
            fix(self, "train_global_batch", _int("train_global_batch", self.train_global_batch))
        if self.pack_tokens is not None:
            fix(self, "pack_tokens", _int("pack_tokens", self.pack_tokens))
        if self.rollout_prompt_tokens is not None:
            fix(self, "rollout_prompt_tokens", _int("rollout_prompt_tokens",
                                                    self.rollout_prompt_tokens))
            if self.rollout_prompt_tokens > self.prompt_tokens:
                raise ValueError(f"rollout_prompt_tokens={self.rollout_prompt_tokens} must be "
                                 f"<= prompt_tokens={self.prompt_tokens} (the engine's prompt "
                                 "is at most the forwards', the batch's longest)")

    def _check_values(self):
        fix = object.__setattr__
        if self.train_mfu is not None:
            fix(self, "train_mfu", _float("train_mfu", self.train_mfu, positive=True, upper=1.0))
        if not isinstance(self.engine, str) or self.engine not in ROLLOUT_ENGINES:
            raise ValueError(f"engine={self.engine!r} must be one of {ROLLOUT_ENGINES}")
        if not isinstance(self.refit, str) or self.refit not in REFIT_MODELS:
            raise ValueError(f"refit={self.refit!r} must be one of {REFIT_MODELS}")
        _plan_keywords(self.train_plan)
        fix(self, "train_etp", _check_auto_etp(self.train_etp, isinstance(self.train_plan, str),
                                               None, "train_etp"))
        for name in ("verifier_s", "verifier_usd_per_sample", "hf_s_per_layer_step",
                     "hf_s_per_seq_layer_step"):
            fix(self, name, _float(name, getattr(self, name), nonnegative=True))
        if self.weight_sync_s is not None:
            fix(self, "weight_sync_s", _float("weight_sync_s", self.weight_sync_s,
                                              nonnegative=True))
        if self.rollout_decode_factor is not None:
            fix(self, "rollout_decode_factor", _float(
                "rollout_decode_factor", self.rollout_decode_factor, positive=True))
        _float("rollout_reserve_fraction", self.rollout_reserve_fraction, nonnegative=True,
               upper=0.999)
        if self.critic is not None:
            _params("critic", self.critic)
        if not (isinstance(self.reward, str) and self.reward == "verifier"):
            _params("reward", self.reward)
        for name in ("reference", "prefix_sharing", "asynchronous", "partial_rollouts",
                     "optimizer_offload", "host_swaps", "rollout_per_call", "hf_host_overlap",
                     "offload_host_shared", "offload_pageable", "offload_staged_copy",
                     "experience_interleaved", "deepspeed_allreduce",
                     "rollout_piecewise_graphs"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name}={getattr(self, name)!r} must be True or False")
        if self.host_link_rate is not None:
            _float("host_link_rate", self.host_link_rate, positive=True)
        if self.critic_zero_stage not in (None, 1, 2, 3):
            raise ValueError(f"critic_zero_stage={self.critic_zero_stage!r} must be None, 1, 2 "
                             "or 3")
        if self.train_dp_overlap is not None and not isinstance(self.train_dp_overlap, bool):
            raise ValueError(f"train_dp_overlap={self.train_dp_overlap!r} must be True, False or "
                             "None")
        if self.train_recipe is not None and (not isinstance(self.train_recipe, str)
                                              or self.train_recipe not in RECIPES):
            raise ValueError(f"train_recipe={self.train_recipe!r} must be None or one of "
                             f"{sorted(RECIPES)}")
        if self.recompute_old_logprobs is not None \
                and not isinstance(self.recompute_old_logprobs, bool):
            raise ValueError(f"recompute_old_logprobs={self.recompute_old_logprobs!r} must be "
                             "True, False or None")

    def _check_placement(self):
        n, n_r, tp = self.n_gpus, self.rollout_gpus, self.rollout_tp
        if self.role_gpus is not None:
            if not isinstance(self.role_gpus, dict) or set(self.role_gpus) - set(ROLES):
                raise ValueError(f"role_gpus={self.role_gpus!r} must be a dict with keys from "
                                 f"{ROLES}")
            roles = {k: _int(f"role_gpus[{k!r}]", v) for k, v in self.role_gpus.items()}
            if sum(roles.values()) > n:
                raise ValueError(f"role_gpus={roles} must sum to at most n_gpus={n} (the "
                                 "models sit on separate GPUs)")
            object.__setattr__(self, "role_gpus", roles)
        if not self.colocated and n_r >= n:
            raise ValueError(f"rollout_gpus={n_r} must be < n_gpus={n} (the trainer needs GPUs) "
                             "or 0 (colocated)")
        if self.asynchronous and self.colocated:
            raise ValueError("asynchronous=True needs separate rollout GPUs (rollout_gpus > 0): "
                             "colocated GPUs cannot generate and train at once")
        if self.generation_gpus % tp:
            raise ValueError(f"rollout_tp={tp} must divide the {self.generation_gpus} rollout "
                             "GPUs (" + (f"n_gpus={n}, colocated" if self.colocated
                                         else f"rollout_gpus={n_r}") + ")")

    def _check_lengths(self):
        if self.lengths is not None:
            r = as_array(self.lengths, "lengths", positive=True, integer=True).reshape(-1)
            if r.size != self.samples:
                raise ValueError(f"lengths has {r.size} values; prompts_per_step × samples = "
                                 f"{self.samples}")
            self._check_pack()
            return
        object.__setattr__(self, "response_tokens",
                           _float("response_tokens", self.response_tokens, positive=True))
        for name in ("response_tokens", "response_tokens_max"):   # whole tokens stay exact
            v = getattr(self, name)
            if v is not None and _float(name, v, positive=True) > MAX_EXACT_INTEGER:
                raise ValueError(f"{name}={v:g} must be at most 2**53 tokens (beyond it a "
                                 "double rounds whole numbers)")
        if self.response_tokens_max is not None:
            object.__setattr__(self, "response_tokens_max", _float(
                "response_tokens_max", self.response_tokens_max, positive=True))
            if self.response_tokens_max < self.response_tokens:
                raise ValueError(f"response_tokens_max={self.response_tokens_max:g} must be >= "
                                 f"response_tokens={self.response_tokens:g} (the longest "
                                 "response is at least the mean)")
        self._check_pack()

    def _check_pack(self):
        """A packed bin (``pack_tokens``) holds whole sequences, so at least the longest, the
        prompt and the longest response (NeMo RL's ``train_mb_tokens`` =
        ``max_total_sequence_length × train_micro_batch_size``)."""
        if self.pack_tokens is None:
            return
        if self.lengths is not None:
            longest = float(np.max(as_array(self.lengths, "lengths")))
        else:
            longest = self.response_tokens_max or self.response_tokens
        need = math.ceil(self.prompt_tokens + longest)
        if self.pack_tokens < need:
            raise ValueError(f"pack_tokens={self.pack_tokens} must be >= {need:,} (prompt_tokens="
                             f"{self.prompt_tokens} + the longest response, {longest:g}): a "
                             "packed micro-batch holds whole sequences, at least one")

    @classmethod
    def names(cls) -> list:
        """The option names (the fields)."""
        return [f.name for f in fields(cls)]

    @classmethod
    def build(cls, options: RLOptions | None = None, **keywords) -> RLOptions:
        """``options`` (default ``RLOptions()``) with ``keywords`` replacing its fields: how the
        keyword API of ``rl_iteration`` becomes one object.

        Raises
        ------
        ValueError
            An unknown option name (listing the known ones), ``options`` not an RLOptions, or
            a bad value (the field named).
        """
        return options_with(cls, "options", options, keywords)

    def replace(self, **keywords) -> RLOptions:
        """A copy with ``keywords`` changed (validated like ``build``)."""
        return RLOptions.build(self, **keywords)

    @property
    def colocated(self) -> bool:
        """No separate rollout GPUs: the same GPUs generate and train."""
        return self.rollout_gpus == 0

    @property
    def generation_gpus(self) -> int:
        return self.n_gpus if self.colocated else self.rollout_gpus

    @property
    def training_gpus(self) -> int:
        return self.n_gpus if self.colocated else self.n_gpus - self.rollout_gpus

    @property
    def optimizer_steps(self) -> int:
        """Optimizer steps per iteration: ceil(samples × E / ``train_global_batch``), or E."""
        if self.train_global_batch is None:
            return self.ppo_epochs
        return math.ceil(self.samples * self.ppo_epochs / self.train_global_batch)

    @property
    def samples(self) -> int:
        """Sequences per iteration: prompts × ``responses_per_prompt``."""
        return self.prompts_per_step * responses_per_prompt(self.algorithm,
                                                            self.samples_per_prompt)

    def rollout_setup(self) -> RolloutSetup:
        """The rollout replica's settings (``rollout_time``)."""
        return RolloutSetup(samples_per_prompt=self.samples_per_prompt,
                            prefix_sharing=self.prefix_sharing, tp=self.rollout_tp,
                            max_concurrent=self.max_concurrent, weight_dtype=self.weight_dtype,
                            kv_dtype=self.kv_dtype, reserve_fraction=self.rollout_reserve_fraction,
                            efficiency=self.efficiency, engine=self.engine,
                            hf_s_per_layer_step=self.hf_s_per_layer_step,
                            decode_factor=self.rollout_decode_factor,
                            per_call=self.rollout_per_call,
                            hf_host_overlap=self.hf_host_overlap,
                            hf_s_per_seq_layer_step=self.hf_s_per_seq_layer_step,
                            piecewise_graphs=self.rollout_piecewise_graphs)


def sample_lengths(o: RLOptions) -> np.ndarray:
    """The iteration's response lengths: ``o.lengths`` if given, else ``response_lengths`` of
    the mean and the longest response over ``o.samples`` sequences."""
    if o.lengths is not None:
        return as_array(o.lengths, "lengths", positive=True, integer=True).astype(int).reshape(-1)
    mx = o.response_tokens if o.response_tokens_max is None else o.response_tokens_max
    try:
        return response_lengths(o.response_tokens, mx, o.samples)
    except ValueError as e:   # in the options' own names (a sweep read "max_tokens=1e+30")
        raise ValueError(str(e).replace("max_tokens=", "response_tokens_max=")
                         .replace("mean_tokens=", "response_tokens=")) from None


def pass_flops(m: ModelSpec, o: RLOptions, r: np.ndarray, tokens: int) -> dict:
    """FLOPs of each part of the iteration (Kaplan et al. 2020's 2N forward, 6N forward +
    backward; N active parameters; ``tokens`` = samples × P + Σ R)::

        generation    2·N_a·(P_gen + Σ R)    P_gen = prompts·P with prefix sharing (G > 1),
                                             else samples·P
        scoring       2·N_r·tokens (0 for a verifier)   reference 2·N_ref·tokens
        critic        2·N_c·tokens (PPO)                old log-probs 2·N_a·tokens (if recomputed)
        policy update 6·(N_a + N_c)·tokens·E
        DPO           reference 2·N_ref·tokens, update 6·N_a·tokens
    """
    n_a = float(m.n_active_params)
    n_ref = n_a if o.reference else 0.0
    flops = dict.fromkeys(("generation", "scoring", "reference", "critic", "old_logprobs",
                           "policy_update"), 0.0)
    if o.algorithm == "dpo":
        flops["reference"] = 2 * n_ref * tokens
        flops["policy_update"] = 6 * n_a * tokens
        return flops
    g, p, s_count = o.samples_per_prompt, o.prompt_tokens, o.samples
    gen_prompt = (o.prompts_per_step if (o.prefix_sharing and g > 1) else s_count) * p
    # the 2N basis of every pass (the shares' convention: LM head on every token counted,
    # where a prefill's time, inference.logit_tokens, runs it on each prompt's last token)
    flops["generation"] = 2 * n_a * (gen_prompt + r.sum())
    flops["scoring"] = 0.0 if isinstance(o.reward, str) and o.reward == "verifier" \
        else 2 * _params("reward", o.reward) * tokens
    flops["reference"] = 2 * n_ref * tokens
    n_c = 0.0
    if o.algorithm == "ppo":
        n_c = n_a if o.critic is None else _params("critic", o.critic)
    flops["critic"] = 2 * n_c * tokens
    old = (o.algorithm == "ppo") if o.recompute_old_logprobs is None else o.recompute_old_logprobs
    flops["old_logprobs"] = 2 * n_a * tokens if old else 0.0
    flops["policy_update"] = 6 * (n_a + n_c) * tokens * o.ppo_epochs
    return flops


def training_mfu(m: ModelSpec, acc: Accelerator, o: RLOptions, r: np.ndarray) -> tuple:
    """(update MFU, forward MFU, note): the MFU of the update passes, ``o.train_mfu`` if given,
    else ``train_step``'s (``llmcost.step_time``: one optimizer step of ``optimizer_batch`` —
    its sequences, micro-batch and priced length, P + mean R tokens padded up to a multiple of
    tp (2·cp·tp with CP > 1) as Megatron's sequence parallelism needs — with ``o.train_plan`` on
    the trainer GPUs), times the share of the priced tokens that are real (``optimizer_batch``'s
    fill: the passes' FLOPs count real tokens only); and the MFU of the forward-only passes
    (scoring, reference, critic values, old log-probabilities), the step's HFU times the same
    fill::

        forward MFU = HFU · fill = MFU · fill · F_rc / F       (F_rc / F = 1 without recompute)

    F_rc / F: the FLOPs per token with the plan's recomputation over those without
    (``step_time``'s HFU basis). A forward-only pass recomputes nothing (recomputation re-runs
    a layer's forward in the backward, Korthikanti et al. 2022, arXiv:2205.05198 §5; NeMo RL's
    log-probabilities run Megatron's ``forward_backward_func`` with ``forward_only=True``,
    megatron_policy_worker.py ``get_logprobs`` @ c751f811; Hugging Face's checkpointed layers
    under ``torch.no_grad`` run once), so it runs at the rate of hardware FLOPs the update
    achieves. Added after the held-out errors had been seen (read from the code, not fitted).
    ``o.train_mfu`` prices both.

    Both are returned on the 6N basis the passes' FLOPs use (``pass_flops``: 6·N_a per trained
    token, 2·N_a per forward token): ``step_time``'s MFU and HFU count the workbook's model
    FLOPs F(s) = ``ModelSpec.flops_per_token(s, causal=False)`` (attention and LM head
    included), so each is multiplied by 6·N_a / F(priced) (``six_n_share``); a pass then takes
    the step-time model's own time for its tokens. Before, the step's MFU priced 6N FLOPs and
    the update ran shorter than the step model's step by F / 6N (1.04 for Llama 3.1 405B at
    4,608 tokens, 1.20 for Llama 3.1 8B at 8,192, 1.39 for Qwen3-30B-A3B at 4,096). Found in a
    review after the held-out errors had been seen (a basis mismatch read from the code, not
    fitted): RL held-out 23.5 % -> 21.1 %, worst 2.34x -> 1.86x.

    The mean length x = P + mean R is rarely a whole number of tokens, and Megatron's sequence
    parallelism splits each sequence over the TP ranks (and 2·CP chunks under context
    parallelism), so the trainer pads it to a multiple f of them: NeMo RL's
    megatron_policy_worker.py @ v0.3.0, ``pad_factor = cp_size * 2 * tp_size if cp_size > 1
    else tp_size``. The step is priced at the padded length and its MFU counts the real
    tokens only::

        priced = ⌈x / f⌉ · f,        MFU = MFU_step(priced) · x / priced

    f is the given plan's; under ``train_plan="auto"`` the search runs at f = 1, 2, 4, …, 64
    (each admits the plans whose padding divides it) and the padded length whose step is the
    shortest wins, a ZeRO-3 step counted ``parallel.ZERO3_STEP_MARGIN`` longer as the search
    itself counts it (``parallel.best_ranked_row``), the shorter padding on a tie. A plan is
    ranked at the shortest of those lengths its sequence splits over
    (``parallel.sequence_splits``) only: the same plan's step at a longer padding does more
    work and is never shorter, so the searches at longer paddings count and rank only the
    plans new to them (the same plan as searching every plan at every length, with fewer rows
    to count and price; ``_auto_train_plan``'s ``shorter``, ``PlanGrid.searched_lengths``), and
    a length whose plan cannot beat the best so far is not checked for fit (``_auto_step``'s
    ``beat``). Not the highest MFU per real token: the step's MFU counts the attention FLOPs of
    the padded length (the workbook's basis, ``step_time``), so that rule preferred the longest
    padding for a longer step, and it took a ZeRO-3 plan the search had set aside at the same
    length.
    The update's time is then the padded step's, which does not fall as x grows (rounding x to
    the nearest whole length made a longer response cheaper where the rounding crossed;
    searching at x alone left out every TP > 1 plan at an odd length).

    The plan must also hold the longest micro-batch, P + max R per sequence
    (``longest_tokens``): the automatic search keeps only the plans that fit there, a given plan
    that does not is refused (``longest_micro_batch``); the time stays priced at the padded mean.

    ``o.train_dp_overlap`` and ``o.train_recipe`` (DeepSpeed's ``overlap_comm`` and reduction
    type, ``deepspeed_dp_overlap``) set the update's step only: the forward MFU is the HFU of
    the step priced with the defaults, as a forward-only pass reduces no gradient."""
    return _training_mfu_and_plan(m, acc, o, r)[:3]


def _training_mfu_and_plan(m: ModelSpec, acc: Accelerator, o: RLOptions, r: np.ndarray) -> tuple:
    """``training_mfu``'s (update MFU, forward MFU, note) and the plan keywords the automatic
    search chose (``plan_keywords_of``; None for a given plan): the host swaps count that
    plan's shard (``host_swap_times``), not the default plan's. With ``o.train_mfu`` the MFU is
    the given one, and the plan is searched only when the host swaps need it (an "auto" plan
    with ``o.host_swaps``; a scenario's ``rl_framework`` with its ``rl_train_mfu``; no plan
    fits: None, the default plan's shard, as the MFU given needs no plan)."""
    auto = isinstance(o.train_plan, str) and o.train_plan == "auto"
    if o.train_mfu is not None and not (auto and o.host_swaps):
        return o.train_mfu, o.train_mfu, "", None
    x = max(1.0, o.prompt_tokens + float(r.mean()))
    longest = longest_tokens(o, r)
    try:
        if auto and o.train_mfu is not None:
            return o.train_mfu, o.train_mfu, "", _searched_plan_or_none(m, acc, o, x, longest)
        if auto:
            return _auto_training_mfu(m, acc, o, x, longest)
        return (*_given_plan_training_mfu(m, acc, o, x, longest), None)
    except ValueError as e:
        raise trainer_gpus_error(o, e) from None


def _searched_plan_or_none(m: ModelSpec, acc: Accelerator, o: RLOptions, x: float,
                           longest: int | None):
    """The plan keywords ``_auto_training_mfu`` chooses, None when no plan fits."""
    try:
        return _auto_training_mfu(m, acc, o, x, longest)[3]
    except ValueError:
        return None


def plan_keywords_of(plan) -> dict:
    """The ``train_plan`` keywords (``DEFAULT_TRAIN_PLAN``'s keys) of a ``ParallelPlan``."""
    return {k: getattr(plan, k) for k in DEFAULT_TRAIN_PLAN}


def trainer_gpus_error(o: RLOptions, e: ValueError) -> ValueError:
    """``train_step``'s error on the trainer GPUs, said as what they are: with separate rollout
    GPUs the update trains on n_gpus − rollout_gpus of them, not on ``n_gpus`` (a trial read
    "rl_gpus=64: no training plan fits" for rl_gpus = 128, 64 of them rollout), so the error
    names both keys and the remedy on them; colocated, the trainer GPUs are ``n_gpus`` and the
    error is unchanged, as is any error that is not about fitting (a bad ``train_plan`` key)."""
    if o.colocated or "fit" not in str(e):
        return e
    msg = str(e).replace(f"n_gpus={o.training_gpus}: ", "").replace(
        "give the RL job more GPUs", f"give the training more GPUs (more than n_gpus={o.n_gpus} "
        f"in the job, or fewer than rollout_gpus={o.rollout_gpus} for the rollouts)")
    return ValueError(f"the {o.training_gpus} training GPUs of the separate set-up (n_gpus="
                      f"{o.n_gpus} − rollout_gpus={o.rollout_gpus}): {msg}")


def _given_plan_training_mfu(m: ModelSpec, acc: Accelerator, o: RLOptions, x: float,
                             longest: int) -> tuple:
    """``training_mfu`` with a given ``o.train_plan`` at the mean length ``x`` (its docstring),
    refused when the plan does not hold the longest micro-batch (``longest_micro_batch``)."""
    kw = _plan_keywords(o.train_plan)
    f = int(_pad_factor(kw["tp"], kw["cp"]))
    seq = math.ceil(x / f) * f
    b, plan, priced, fill = optimizer_batch(o, seq, f)
    longest_micro_batch(m, acc, o, kw, b, longest)
    bd = train_step(m, acc, o.training_gpus, b, priced, train_plan=plan, stack=o.stack,
                    efficiency=o.efficiency, dp_overlap=o.train_dp_overlap,
                    recipe=o.train_recipe)
    fwd = _forward_step(bd, m, acc, o, b, priced, plan)
    fill *= x / seq
    k = six_n_share(m, priced)
    note = f"training MFU {bd.mfu * fill * k:.3f} (6N basis) from step_time ({bd.plan}"
    note += f"; {fill:.0%} of the priced tokens real)" if fill < 0.995 else ")"
    return bd.mfu * fill * k, fwd.hfu * fill * k, note


def longest_micro_batch(m: ModelSpec, acc: Accelerator, o: RLOptions, kw: dict, sequences: int,
                        longest: int) -> None:
    """Refuses a given ``train_plan`` (keywords ``kw``) whose memory does not hold the update's
    longest micro-batch (``longest_tokens``): ``micro_batch_size`` sequences of ``longest``
    tokens, or with sequence packing (``o.pack_tokens`` = B) one bin of max(B, ``longest``)
    tokens (micro-batch 1), padded to the plan's factor; the ``ValueError`` names
    ``train_plan`` and the lengths. Memory as the plan search counts it (``memory_per_gpu``
    with the stack's practice, ``o.train_recipe`` or bf16 with fp32 gradients), against the
    whole HBM: the search's ``DEFAULT_RESERVE`` is its margin in choosing, and a published plan
    that ran comes within it (NeMo RL v0.3's Llama 3.1 8B, DP 8 without recomputation in
    4,096-token bins on 8 H100s: 81 GB counted of 86 GB, over the 77 GB after the reserve); with
    ``o.optimizer_offload`` (DeepSpeed's optimizer states in host memory) not checked, as the
    HBM count has no offload."""
    if o.optimizer_offload:
        return
    n = o.training_gpus
    mb, response = kw["micro_batch_size"], longest - o.prompt_tokens
    if o.pack_tokens is not None:
        longest, mb = max(o.pack_tokens, longest), 1
    dp = max(1, n // (kw["tp"] * kw["pp"] * kw["cp"]))
    gbs = math.ceil(sequences / (dp * mb)) * dp * mb
    try:
        plan = make_plan(m, n, gbs, seq_len=int(_padded(longest, kw["tp"], kw["cp"])),
                         **{**kw, "micro_batch_size": mb})
    except ValueError:
        return  # a plan that breaks a rule: train_step names it
    who = (f"train_plan={kw} on {n} {acc.name} GPUs (prompt {o.prompt_tokens:,} + longest "
           f"response {response:,} tokens" + (f", packed in bins of {o.pack_tokens:,}"
                                              if o.pack_tokens is not None else "") + ")")
    _check_longest_fits(m, acc, plan, longest, o.stack, who, o.train_recipe, reserve=0.0)


def _forward_step(bd, m: ModelSpec, acc: Accelerator, o: RLOptions, sequences, priced: int,
                  plan):
    """The step whose HFU the experience forwards run at: the update's step ``bd`` when it
    keeps ``step_time``'s defaults, else the same step priced with them (``o.train_dp_overlap``
    and ``o.train_recipe`` set the update only: a forward-only pass reduces no gradient)."""
    if o.train_dp_overlap is None and o.train_recipe is None:
        return bd
    return train_step(m, acc, o.training_gpus, sequences, priced, train_plan=plan, stack=o.stack,
                      efficiency=o.efficiency)


def six_n_share(m: ModelSpec, seq: int) -> float:
    """6·N_a / F(seq): the share of ``step_time``'s model FLOPs per token, F(seq) =
    ``ModelSpec.flops_per_token(seq, causal=False)`` (the workbook's MFU basis, attention and
    LM head included; ``llmcost.compute``), that the 6N count of ``pass_flops`` keeps. An MFU
    on F's basis times it is the MFU on the 6N basis of the same step (``training_mfu``)."""
    return 6.0 * m.n_active_params / float(m.flops_per_token(seq, causal=False))


#: The most sequences (prompts × samples) an iteration may hold (``RLOptions``): each one's
#: response length is drawn (``response_lengths``, a normal score per sequence), so time and
#: memory grow with the count (a million: under a second; a trial's 7·10^12 ran out of memory);
#: a bound of the computation, not of practice.
MAX_SAMPLES_PER_ITERATION = 1_000_000

#: The paddings ``train_plan="auto"`` searches at (``training_mfu``): a multiple of each TP
#: (and 2·CP·TP) the plan search tries.
AUTO_PAD_FACTORS = (1, 2, 4, 8, 16, 32, 64)


def _auto_training_mfu(m: ModelSpec, acc: Accelerator, o: RLOptions, x: float,
                       longest: int | None = None) -> tuple:
    """``training_mfu`` under ``train_plan="auto"``: the plan search at each padded length
    ⌈x / f⌉ · f, f in ``AUTO_PAD_FACTORS``, the padded length with the shortest step, ZeRO-3
    steps × (1 + ``ZERO3_STEP_MARGIN``), the shorter padding on a tie; its MFU and HFU × x /
    priced × ``six_n_share`` (its docstring; the HFU from the step with the defaults when
    ``o.train_dp_overlap`` or ``o.train_recipe`` is set, as there). Each search keeps only the
    plans whose memory holds the longest micro-batch (``longest`` tokens per sequence,
    ``longest_tokens``; None: the priced length only). Returns (MFU, forward MFU, note, the
    chosen plan's keywords, ``plan_keywords_of``).
    Raises the unpadded search's error when no padded length has a plan that fits."""
    _check_auto_etp(o.train_etp, True, m, "train_etp")
    best, error = None, None
    lengths = sorted({math.ceil(x / f) * f for f in AUTO_PAD_FACTORS})
    for i, priced in enumerate(lengths):
        try:
            bd, plan = _auto_step(m, acc, o.training_gpus, o.samples, priced, o.stack,
                                  o.efficiency, dict(dp_overlap=o.train_dp_overlap,
                                                     recipe=o.train_recipe), tuple(lengths[:i]),
                                  longest, None if best is None else best[0], o.train_etp)
        except NoNewPlan:
            continue
        except ValueError as e:
            error = error or e
            continue
        score = float(margin_weighted_step_s(bd.step_time_s, plan.zero_stage))
        if best is None or score < best[0]:
            best = (score, bd, priced, plan)
    if best is None:
        raise error
    _, bd, priced, plan = best
    fwd = _forward_step(bd, m, acc, o, o.samples, priced, "auto")
    fill = x / priced
    k = six_n_share(m, priced)
    note = f"training MFU {bd.mfu * fill * k:.3f} (6N basis) from step_time ({bd.plan}"
    note += f"; sequences padded to {priced} tokens)" if fill < 0.995 else ")"
    return bd.mfu * fill * k, fwd.hfu * fill * k, note, plan_keywords_of(plan)


def optimizer_batch(o: RLOptions, seq: int, pad: int = 1) -> tuple:
    """(sequences, train_plan, priced tokens per sequence, fill) of one optimizer step of the
    update as the trainer runs it, for sequences of ``seq`` tokens (P + mean R, padded to
    ``pad``)::

        sequences = min(samples, train_global_batch)              (all samples without one)
        packing (o.pack_tokens = B):  k = max(1, ⌊B / seq⌋) sequences per micro-batch,
            priced length = seq, or with pipeline parallelism ⌈(B / k) / pad⌉ · pad
            (every micro-batch padded to the longest packed one, taken as the bin B)
        fill = (real tokens) / (priced tokens) = seq / priced · sequences / (sequences padded
               up to dp · micro-batch with pipeline parallelism, up to dp without)

    Sources: NeMo RL's Megatron policy worker (NVIDIA-NeMo/RL @ c751f811, v0.4,
    ``nemo_rl/models/policy/megatron_policy_worker.py`` ``train``): one
    ``forward_backward_func`` call, so one pipeline fill and drain and one optimizer step, per
    global batch of ``train_global_batch_size`` sequences (``num_global_batches = data size //
    gbs``); with ``sequence_packing`` each micro-batch is one bin of at most
    ``train_mb_tokens = max_total_sequence_length × train_micro_batch_size`` tokens
    (``make_microbatch_iterator_for_packable_sequences``, modified first-fit decreasing), and
    with ``pipeline_model_parallel_size > 1`` every packed micro-batch is padded to the longest
    (``pad_full_seq_to``). DeepSpeed (DeepSpeed-Chat, OpenRLHF) also steps once per
    ``train_batch_size`` sequences. Assumptions, stated: ⌊B / seq⌋ sequences of the mean length
    per bin (first-fit decreasing fills bins near capacity); the longest bin at capacity B.
    Without pipeline parallelism nothing is padded (``pad_full_seq_to`` is None): a rank's last
    bin is only shorter, so the sequences round up to whole DP ranks only. Added after the
    held-out errors had been seen (read from the code, not fitted)."""
    kw = _plan_keywords(o.train_plan)
    b = o.samples if o.train_global_batch is None else min(o.samples, o.train_global_batch)
    if o.pack_tokens is None:
        return b, o.train_plan, seq, 1.0
    k = max(1, o.pack_tokens // seq)
    priced = seq if kw["pp"] == 1 else max(seq, math.ceil(o.pack_tokens / k / pad) * pad)
    mp = kw["tp"] * kw["pp"] * kw["cp"]
    dp = max(1, o.training_gpus // mp)
    whole = dp * k if kw["pp"] > 1 else dp  # what the sequences are padded up to
    fill = seq / priced * b / (math.ceil(b / whole) * whole)
    return b, {**kw, "micro_batch_size": k}, priced, fill


def pass_times(flops: dict, o: RLOptions, mfu: float, peak_flops_per_s: float,
               forward_mfu: float | None = None) -> dict:
    """Wall seconds of each scoring and update pass: t = FLOPs / (GPUs · dense BF16 peak · MFU),
    the forward-only passes (``EXPERIENCE_PASSES``) at ``forward_mfu`` (``training_mfu``; None:
    ``mfu``); scoring adds ``o.verifier_s``.

    Without ``o.role_gpus`` every pass runs on all trainer GPUs, one after another. With it,
    each pass runs on its model's GPUs (``PASS_ROLE``; a role not given has all trainer GPUs)
    and the policy update is split into the actor's 6·N_a·tokens·E and the critic's
    6·N_c·tokens·E = 3·E·(critic values FLOPs), each on its own GPUs (the keys
    ``policy_update`` and ``critic_update`` hold the two; ``update_walls`` combines them)."""
    def gpus(role):
        return (o.role_gpus or {}).get(role, o.training_gpus)

    fwd = mfu if forward_mfu is None else forward_mfu

    def secs(f, role, rate=mfu):
        return f / (gpus(role) * peak_flops_per_s * rate)

    if o.role_gpus is None:
        t = {k: secs(v, "actor", fwd if k in EXPERIENCE_PASSES else mfu)
             for k, v in flops.items() if k != "generation"}
        t["scoring"] += o.verifier_s
        return t
    t = {k: secs(flops[k], r, fwd) for k, r in PASS_ROLE.items()}
    critic_update = 3.0 * o.ppo_epochs * flops["critic"]
    t["policy_update"] = secs(flops["policy_update"] - critic_update, "actor")
    t["critic_update"] = secs(critic_update, "critic")
    t["scoring"] += o.verifier_s
    return t


def update_walls(t: dict, o: RLOptions, gen_wall: float = 0.0) -> tuple:
    """(experience wall s, update wall s) of ``pass_times``: one after another on the trainer
    GPUs (sums), or, with ``o.role_gpus``, each model on its own GPUs side by side (the slowest
    model's forward passes, then the slower of the actor's and the critic's updates)::

        experience = max over models of their forward passes     update = max(actor, critic)

    With ``o.experience_interleaved`` (``experience_interleave_check``: on for OpenRLHF's Ray
    rows, ``row_experience_interleaved``; with ``role_gpus``, synchronous), the experience wall
    exposed after the generation wall G: OpenRLHF's Ray experience maker
    (``RemoteExperienceMaker.make_experience`` @ 0baf3dd) has each of the R actor ranks (one per
    actor GPU) generate its samples in m micro-rollout batches (``interleave_rounds``), each
    followed by a wait for that batch's forwards on the reference, reward and critic GPU it is
    paired with (``launcher.py async_fit_actor_model``: rank i takes GPU i mod g_x of model x, a
    Ray actor serving its requests one at a time) and its own actor forward. With τ_x = t_x·g_x /
    (R·m) one request's time on model x's GPU, the R/g_x ranks of a GPU queue behind each other
    after the first batch, then arrive staggered by τ_x; and a GPU cannot start before the first
    batch is generated (G/m)::

        experience = max_x max( t_x·g_x/R + max(R/g_x − 1, 0)·τ_x ,  t_x − G + G/m )

    (m → ∞: max(max_x t_x·g_x/R, max_x t_x − G), the steady state; by hand, R = 4 ranks on one
    reference GPU, t = 10 s, G = 30 s: m = 1 gives 2.5 + 3·2.5 = 10 s, all four requests served
    in turn; m = 4 gives 2.5 + 3·0.625 = 4.375 s.) Where the helper models run ZeRO-3 groups
    (OpenRLHF's 70B row) their forwards are collectives over the group and the actor's ZeRO-3
    forward keeps the ranks in step: the pairing of rank i with GPU i mod g_x is then an
    approximation."""
    exp = [t[k] for k in EXPERIENCE_PASSES]
    upd = [t["policy_update"], t.get("critic_update", 0.0)]
    if o.role_gpus is None:
        return float(sum(exp)), float(sum(upd))
    if o.experience_interleaved and not o.asynchronous:
        ranks = o.role_gpus.get("actor", o.training_gpus)
        m = interleave_rounds(o)
        exposed = []
        for k in EXPERIENCE_PASSES:
            g = o.role_gpus.get(PASS_ROLE[k], o.training_gpus)
            tau = t[k] * g / (ranks * m)
            exposed.append(max(t[k] * g / ranks + max(ranks / g - 1.0, 0.0) * tau,
                               t[k] - gen_wall + gen_wall / m))
        return float(max(exposed)), float(max(upd))
    return float(max(exp)), float(max(upd))


def interleave_rounds(o: RLOptions) -> int:
    """m, the micro-rollout batches each actor rank generates in turn (``update_walls``):
    ⌈samples / (R · micro-rollout batch)⌉ with R the actor ranks (``role_gpus["actor"]``) and the
    batch ``max_concurrent`` (OpenRLHF's ``micro_rollout_batch_size``, the sequences of one
    engine call); one round when no batch is set. OpenRLHF (@ 0baf3dd, ppo_trainer.py l. 158)
    writes the floor, ``rollout_batch_size // (world_size * micro_rollout_batch_size)``: the
    same on every validation row (each an exact division); the ceiling here counts a partial
    last batch as a round of its own."""
    ranks = (o.role_gpus or {}).get("actor", o.training_gpus)
    if o.max_concurrent is None:
        return 1
    return max(1, math.ceil(o.samples / (ranks * o.max_concurrent)))


def _total_params(name, v) -> float:
    """All parameters (not active) of a trained helper model: a ModelSpec, a name or a number."""
    return _params(name, v, active=False)


def offload_times(m: ModelSpec, acc: Accelerator, o: RLOptions, swap_plan=None) -> dict:
    """Seconds per iteration of each trained model's CPU-offloaded optimizer
    (``optimizer_offload_time`` with ``o.optimizer_steps`` steps): {"actor": s, "critic": s}
    (the critic's 0 without one), each on its model's GPUs (``o.role_gpus``, else all trainer
    GPUs); zeros when ``o.optimizer_offload`` is False. Key "reference": the host swaps of the
    reference pass (``host_swap_times``; 0 without ``o.host_swaps``).

    With ``o.offload_host_shared`` (a candidate, ``shared_host_adam_check``), PPO's actor and
    critic on their own GPUs (``o.role_gpus``: OpenRLHF's Ray trainer, whose actor starts the
    critic's ``fit`` remotely and trains meanwhile, trainer/ray/ppo_actor.py ``ppo_train`` @
    0baf3dd) step their CPU Adam together on the CPUs of the hosts their GPUs fill, packed::

        shared hosts H = ceil((g_a + g_c) / GPUS_PER_HOST)
        each model's CPU term per step  N_x / ceil(g_x / GPUS_PER_HOST) / R_host
                                   ->  (N_a + N_c) / H / R_host

    (``CPU_ADAM_PARAMS_PER_S_PER_HOST`` is a host's rate; the steps taken as simultaneous, an
    upper bound on the contention).

    With ``o.offload_pageable`` (DeepSpeed-Chat's pageable host buffers), each model's copies at
    the nominal rate give way to ``deepspeed_offload_time`` (its bytes by
    ``deepspeed_offload_bytes``, the critic at ``o.critic_zero_stage``), g' the micro-batches
    per optimizer step (``micro_batches_per_step``)::

        t_x += deepspeed_offload_time(N_x, n_x, ZeRO_x, k, g') − k · offload_link_bytes(N_x,
               n_x, g_x) / B_pcie

    With ``o.offload_staged_copy`` instead (pinned buffers on DeepSpeed 0.13.2:
    OpenRLHF's rows), each model's parameter copy back after CPU Adam goes through a pageable
    temporary::

        t_x += staged_copy_excess_time(N_x, n_x, k)

    ``o.host_link_rate`` (a candidate, ``measured_host_rate_check``) sets B_pcie of every term
    above (``host_link_rate``), the pageable rate B_pcie / ``PAGEABLE_COPY_SLOWDOWN``."""
    out = {"actor": 0.0, "critic": 0.0,
           "reference": host_swap_times(m, acc, o, swap_plan)["reference"]}
    if not o.optimizer_offload:
        return out
    roles = o.role_gpus or {}
    k = o.optimizer_steps
    gpus = {r: roles.get(r, o.training_gpus) for r in ("actor", "critic")}
    g = {r: accumulation_steps(o, n) for r, n in gpus.items()}
    lr = o.host_link_rate
    out["actor"] = optimizer_offload_time(m.n_params, gpus["actor"], acc, k, g["actor"], lr)
    if o.algorithm == "ppo":
        n_c = float(m.n_params) if o.critic is None else _total_params("critic", o.critic)
        out["critic"] = optimizer_offload_time(n_c, gpus["critic"], acc, k, g["critic"], lr)
        if o.offload_host_shared and o.role_gpus is not None:
            h = math.ceil((gpus["actor"] + gpus["critic"]) / GPUS_PER_HOST)
            both = (m.n_params + n_c) / h / CPU_ADAM_PARAMS_PER_S_PER_HOST
            for r, n in (("actor", m.n_params), ("critic", n_c)):
                own = n / math.ceil(gpus[r] / GPUS_PER_HOST) / CPU_ADAM_PARAMS_PER_S_PER_HOST
                out[r] += k * (both - own)
    if o.offload_pageable:
        stage = _plan_keywords(o.train_plan)["zero_stage"]
        params = {"actor": (float(m.n_params), stage)}
        if o.algorithm == "ppo":
            params["critic"] = (n_c, o.critic_zero_stage or stage)
        for r, (n, z) in params.items():
            out[r] += deepspeed_offload_time(n, gpus[r], acc, z, k,
                                             micro_batches_per_step(o, gpus[r]), link_rate=lr) \
                - k * offload_link_bytes(n, gpus[r], g[r]) / host_link_rate(acc, lr)
    elif o.offload_staged_copy:
        out["actor"] += staged_copy_excess_time(m.n_params, gpus["actor"], acc, k, lr)
        if o.algorithm == "ppo":
            out["critic"] += staged_copy_excess_time(n_c, gpus["critic"], acc, k, lr)
    return out


def micro_batches_per_step(o: RLOptions, n_gpus: int) -> int:
    """Micro-batches per optimizer step of a model on ``n_gpus`` GPUs, at any ZeRO stage:
    ceil(b / (dp · micro-batch)), b = min(samples, ``train_global_batch``), dp = n_gpus /
    (tp · pp · cp) (by hand: DeepSpeed-Chat's 13B row, 128 / (8 · 2) = 8). Raises ValueError
    with ``train_plan`` "auto" (the micro-batch is not known here)."""
    if isinstance(o.train_plan, str):
        raise ValueError(f"train_plan={o.train_plan!r}: offload_pageable needs a given plan")
    kw = _plan_keywords(o.train_plan)
    b = o.samples if o.train_global_batch is None else min(o.samples, o.train_global_batch)
    dp = max(1, n_gpus // (kw["tp"] * kw["pp"] * kw["cp"]))
    return max(1, math.ceil(b / (dp * kw["micro_batch_size"])))


def accumulation_steps(o: RLOptions, n_gpus: int) -> int:
    """Micro-batches per optimizer step of a model trained on ``n_gpus`` GPUs at ZeRO-2 (the
    host round trips of ``optimizer_offload_time``): ceil(b / (dp · micro-batch)), b the
    sequences of one optimizer step (``optimizer_batch``), dp = n_gpus / (tp · pp · cp); 1 at
    any other ZeRO stage or with ``train_plan`` "auto" (the plan is not known here). The critic
    takes the plan's stage too: DeepSpeed-Chat's benchmark trains its critic at ZeRO-3 (its
    round trip overlapped, ``optimizer_offload_time``), so its rows carry a critic round trip
    that did not wait (11 s of the 13B row's 1,219 s training phase, 0.8 s on the 7B row)."""
    if isinstance(o.train_plan, str) or _plan_keywords(o.train_plan)["zero_stage"] != 2:
        return 1
    return micro_batches_per_step(o, n_gpus)


def add_offload(t: dict, off: dict, o: RLOptions) -> dict:
    """``pass_times`` with the offloaded optimizers' waits added to the updates: the actor's to
    ``policy_update``, the critic's to ``critic_update`` when the models sit on their own GPUs
    (``o.role_gpus``), else to ``policy_update`` too (one after another on the same GPUs); the
    reference pass's host swaps (``off["reference"]``) to ``reference``."""
    t = dict(t)
    t["policy_update"] += off["actor"]
    t["reference"] += off.get("reference", 0.0)
    if o.role_gpus is None:
        t["policy_update"] += off["critic"]
    else:
        t["critic_update"] = t.get("critic_update", 0.0) + off["critic"]
    return t


#: Where DeepSpeed v0.13.2 (the version of OpenRLHF's benchmark) reduces a ZeRO-1/2 model's
#: gradients with an all-reduce of each bucket rather than a reduce-scatter: ``reduce_scatter``
#: True and ``use_multi_rank_bucket_allreduce`` True by default (``deepspeed/runtime/zero/
#: config.py`` l. 100, 111), so ``stage_1_and_2.py`` ``average_tensor`` (l. 1033-1133) hands
#: every bucket to ``allreduce_and_scatter`` (l. 1005-1031), which ``dist.all_reduce``s it
#: (``allreduce_bucket``, l. 1476-1507) and keeps the rank's slice; the switch came with
#: deepspeedai/DeepSpeed pull request 4695 (2afa1c7f2, 2023-11-21). ZeRO-2 reduces every
#: micro-batch (``reduce_ready_partitions_and_remove_grads``). Neither DeepSpeed-Chat's
#: ``get_train_ds_config`` nor OpenRLHF's sets either key.
DEEPSPEED_ALLREDUCE_SOURCE = ("deepspeedai/DeepSpeed @ v0.13.2 deepspeed/runtime/zero/config.py "
                              "l. 100, 111 (reduce_scatter, use_multi_rank_bucket_allreduce "
                              "True); stage_1_and_2.py average_tensor l. 1033-1133, "
                              "allreduce_and_scatter l. 1005-1031, allreduce_bucket l. 1476-1507 "
                              "(dist.all_reduce); pull request 4695 (2afa1c7f2)")


def deepspeed_allreduce_excess_s(m: ModelSpec, acc: Accelerator, o: RLOptions,
                                 n_gpus: int | None = None, n_params: float | None = None,
                                 zero_stage: int | None = None) -> float:
    """Seconds per iteration DeepSpeed v0.13.2's ZeRO-2 gradient all-reduce adds to one model's
    update beyond the reduce-scatter the step-time model prices at ZeRO-2
    (``DEEPSPEED_ALLREDUCE_SOURCE``), a model of ``n_params`` parameters (None: the policy's)
    trained at ``zero_stage`` (None: the plan's) on ``n_gpus`` GPUs (None: the trainer's) with
    ``o.train_plan``, k = ``o.optimizer_steps`` steps of g = ``micro_batches_per_step``
    micro-batches::

        excess = k · g · (AR − RS) = k · g · AR / 2

    AR: the step model's all-reduce of the policy's 16-bit gradients over the data-parallel
    group (``step_time`` at the plan's ZeRO-0 with ``dp_overlap`` False, its ``dp_comm_s``: one
    all-reduce per step, exposed), times ``n_params`` / the policy's parameters (the bytes);
    RS = AR / 2: a ring all-reduce is a reduce-scatter and an all-gather of the same bytes,
    (n − 1)/n · Ψ each (Patarasuk & Yuan 2009, "Bandwidth optimal all-reduce algorithms for
    clusters of workstations", J. Parallel Distrib. Comput. 69(2), §3; NCCL runs all-reduce as
    that ring at these sizes). Priced where the reduction is exposed, ``o.train_dp_overlap``
    False (DeepSpeed's ``overlap_comm`` off, its default below ZeRO-3,
    ``deepspeed_dp_overlap``): in full, on the compute stream; 0 otherwise (with
    ``overlap_comm`` the all-reduce runs beside the backward on DeepSpeed's reduction stream,
    not priced), and 0 unless the stage is 2 (ZeRO-1 reduces once per step, also by
    all-reduce: not priced; ZeRO-3 reduce-scatters). By hand, DeepSpeed-Chat's 13B row: k = 8,
    g = 8, AR = 0.297 s, 9.5 s per iteration. Read after the held-out errors had been seen;
    nothing fitted; on the model for the DeepSpeed rows by the rule
    (``deepspeed_allreduce_check``).

    Raises
    ------
    ValueError
        A ``train_plan`` of "auto" (the micro-batch is not known here)."""
    if isinstance(o.train_plan, str):
        raise ValueError(f"train_plan={o.train_plan!r}: the all-reduce excess needs a given plan")
    kw = _plan_keywords(o.train_plan)
    if (kw["zero_stage"] if zero_stage is None else zero_stage) != 2 \
            or o.train_dp_overlap is not False:
        return 0.0
    n = o.training_gpus if n_gpus is None else _int("n_gpus", n_gpus)
    x = max(1.0, o.prompt_tokens + float(sample_lengths(o).mean()))
    b, plan, seq, _ = optimizer_batch(o, math.ceil(x))
    ar = train_step(m, acc, n, b, seq, train_plan={**plan, "zero_stage": 0}, stack=o.stack,
                    efficiency=o.efficiency, dp_overlap=False, recipe=o.train_recipe).dp_comm_s
    scale = 1.0 if n_params is None else _params("n_params", n_params) / m.n_params
    return o.optimizer_steps * micro_batches_per_step(o, n) * ar * scale / 2.0


def deepspeed_allreduce_times(m: ModelSpec, acc: Accelerator, o: RLOptions) -> dict:
    """{"actor": s, "critic": s}: ``deepspeed_allreduce_excess_s`` of each trained model on its
    GPUs (``o.role_gpus``, else all trainer GPUs), the critic (PPO) at ``o.critic_zero_stage``
    (None: the plan's) with its parameters; zeros without ``o.deepspeed_allreduce``.
    ``add_offload`` adds them to the updates as it adds the offloaded optimizers' waits."""
    out = {"actor": 0.0, "critic": 0.0}
    if not o.deepspeed_allreduce:
        return out
    roles = o.role_gpus or {}
    out["actor"] = deepspeed_allreduce_excess_s(m, acc, o, roles.get("actor"))
    if o.algorithm == "ppo":
        n_c = float(m.n_params) if o.critic is None else _total_params("critic", o.critic)
        out["critic"] = deepspeed_allreduce_excess_s(m, acc, o, roles.get("critic"), n_c,
                                                     o.critic_zero_stage)
    return out


def generation_time(m: ModelSpec, acc: Accelerator, o: RLOptions, r: np.ndarray) -> tuple:
    """(generation wall s, tail s, note): ``rollout_time`` of the replica holding the longest
    response (sequences spread round-robin over ``generation_gpus / rollout_tp`` replicas);
    tail = that − the same replica with every response at the mean length. With partial
    rollouts the tail is recovered up to the best gain measured (APRIL, arXiv:2509.18521: +44%
    rollout throughput at most, ``PARTIAL_ROLLOUT_GAIN_MAX``):

        generation = max(mean-length time, time ÷ (1 + 0.44)),  tail = generation − mean-length

    (removing the whole tail, the bound the model priced before, is the mean-length time; the
    buffered responses are still decoded later and the over-provisioned requests compete for KV
    memory, so measured gains stop short of it). DPO generates nothing.

    **Asynchronous by k steps** (``off_policy_steps``; NeMo RL's ``max_trajectory_age_steps``):
    the rollout engine may run up to k iterations ahead of the trainer, so in steady state each
    replica holds k iterations' requests at once and its continuous batching fills the slots
    the long responses leave with the next iteration's sequences: generation per iteration =
    ``rollout_time`` of k copies of the replica's share ÷ k (k = 1: one iteration in flight,
    the tail fully paid; a larger k raises the live batch and hides the tail)."""
    if o.algorithm == "dpo":
        return 0.0, 0.0, ""
    reps = o.generation_gpus // o.rollout_tp
    share = r[0::reps]                            # the replica holding the longest response
    k = o.off_policy_steps if o.asynchronous else 1
    setup = o.rollout_setup()
    p = o.prompt_tokens if o.rollout_prompt_tokens is None else o.rollout_prompt_tokens
    ro = _rollout(m, acc, p, np.tile(share, k), setup)
    actual = ro["total_s"] / k
    flat = np.full(share.size * k, max(1, round(float(r.mean()))))
    ideal = _rollout(m, acc, p, flat, setup)["total_s"] / k
    gen_wall = max(actual / (1.0 + PARTIAL_ROLLOUT_GAIN_MAX) if o.partial_rollouts else actual,
                   ideal)
    tail = max(0.0, gen_wall - ideal)
    return gen_wall, tail, ro["note"]


#: The rollouts ``generation_time`` priced in this process while a disk-cached validation table
#: is computed (``_priced_once``), by their inputs (``core.diskcache.kept_if_quiet``): the
#: variants of ``validation_variants`` and ``rl_validation(change=...)`` that leave the
#: generation as it was (the trainer's MFU, the refit, the optimizer's place) price it once;
#: likewise the trainer's steps (``_quiet_step``), for the variants that leave the update as
#: it was (the rollout engine, the refit).
_KEPT_ROLLOUTS: dict = {}
_KEPT_STEPS: dict = {}
#: And the memory of the update's longest micro-batch (``_check_longest_fits``).
_KEPT_MEMORY: dict = {}
_PRICE_ONCE = contextvars.ContextVar("llmcost_price_once", default=False)


@contextlib.contextmanager
def _priced_once():
    """Within: ``_rollout``, ``_quiet_step`` and ``_check_longest_fits`` read and keep their
    results (``_KEPT_ROLLOUTS``, ``_KEPT_STEPS``, ``_KEPT_MEMORY``), for the disk-cached
    validation tables only, which like these memos do not see a module constant changed at
    run time. Their keys (``value_key``) hold the inputs by value, not numpy's error state
    (``np.geterr``) nor the bytes of a file a string names (an efficiency profile edited within
    one table's computation would be read stale): the tables set neither."""
    token = _PRICE_ONCE.set(True)
    try:
        yield
    finally:
        _PRICE_ONCE.reset(token)


def _rollout(m: ModelSpec, acc: Accelerator, p: int, lengths: np.ndarray,
             setup: RolloutSetup) -> dict:
    """``rollout_time(m, acc, p, lengths, setup)`` (a copy of its dict), priced once per set of
    inputs within ``_priced_once``."""
    key = value_key(m, acc, p, lengths, setup) if _PRICE_ONCE.get() else None
    return dict(kept_if_quiet(_KEPT_ROLLOUTS, key,
                              lambda: rollout_time(m, acc, p, lengths, setup)))


def sync_time(m: ModelSpec, acc: Accelerator, o: RLOptions, swap_plan=None) -> float:
    """Weight-sync seconds: ``o.weight_sync_s`` if given, 0 for DPO (no rollout engine),
    ``nemo_rl_refit_time`` for ``o.refit`` "nemo-rl" / "nemo-rl-v0.4" on colocated GPUs (the
    measured path) plus the colocated host swaps around it: with ``o.host_swaps``, the measured
    offload inside the refit (``nemo_rl_offload_time``: Adam moments and weights out, vLLM's
    weights in) and, at the host link, the other direction of those round trips (half of
    ``host_swap_times``' "colocation": vLLM's weights out at its sleep, the weights and Adam
    moments in before the passes; equal bytes each way)::

        sync = refit + offload_measured + colocation_swaps / 2

    (v0.3, DeepSeek-V3: 47.2 + 20 s + the swaps' half; the blog's 47.2 s holds only the refit's
    three steps, not the offload around them: ``NEMO_RL_OFFLOAD_S``.)
    else, for "nemo-rl-v0.4" on separate rollout GPUs, the measured NCCL refit
    (``nemo_rl_refit_time`` with ``colocated=False``), else ``weight_sync_time`` (bytes over
    links; also v0.3's separate rollout GPUs, whose refit no public source times)."""
    if o.weight_sync_s is not None:
        return o.weight_sync_s
    if o.algorithm == "dpo":
        return 0.0
    if o.refit != "links" and o.colocated:
        swaps = host_swap_times(m, acc, o, swap_plan)["colocation"]
        offload = nemo_rl_offload_time(m) if o.host_swaps else 0.0
        return nemo_rl_refit_time(m, o.refit) + offload + swaps / 2
    if o.refit == "nemo-rl-v0.4":
        return nemo_rl_refit_time(m, o.refit, colocated=False)
    return weight_sync_time(m, acc, colocated=o.colocated, rollout_tp=o.rollout_tp,
                            n_train_gpus=o.training_gpus, train_plan=o.train_plan,
                            efficiency=o.efficiency,
                            n_rollout_gpus=None if o.colocated else o.generation_gpus)


def wall_and_parts(o: RLOptions, gen_wall: float, tail: float, t_phase: dict,
                   sync: float) -> tuple:
    """(wall s, GPU-seconds by part): synchronous wall = generation + experience + update +
    sync; asynchronous = max(generation, experience + update) + sync (``update_walls``).
    Generation and tail × rollout GPUs, each pass × the GPUs it runs on (the trainer GPUs, or
    its model's with ``o.role_gpus``; the critic's update counts in ``critic``), sync × all
    GPUs, idle = the rest of wall × n_gpus (each role's wait for the others; 0 colocated,
    synchronous and without ``role_gpus``): the parts sum to wall × n_gpus."""
    gen_gpus = o.generation_gpus
    exp_wall, upd_wall = update_walls(t_phase, o, gen_wall)
    train_wall = exp_wall + upd_wall

    def gpus(role):
        return (o.role_gpus or {}).get(role, o.training_gpus)

    parts = dict.fromkeys(PARTS, 0.0)
    parts["generation"] = (gen_wall - tail) * gen_gpus
    parts["tail"] = tail * gen_gpus
    for k in EXPERIENCE_PASSES:
        parts[k] = t_phase[k] * gpus(PASS_ROLE[k])
    parts["policy_update"] = t_phase["policy_update"] * gpus("actor")
    parts["critic"] += t_phase.get("critic_update", 0.0) * gpus("critic")
    parts["weight_sync"] = sync * o.n_gpus
    wall = (max(gen_wall, train_wall) if o.asynchronous else gen_wall + train_wall) + sync
    if o.role_gpus is not None:   # each model waits for the others: the rest of wall × n_gpus
        parts["idle"] = wall * o.n_gpus - sum(v for k, v in parts.items() if k != "idle")
    elif o.asynchronous:
        parts["idle"] = (wall - sync - gen_wall) * gen_gpus \
            + (wall - sync - train_wall) * o.training_gpus
    else:
        parts["idle"] = 0.0 if o.colocated else gen_wall * o.training_gpus + train_wall * gen_gpus
    return wall, parts


def rl_iteration(policy, accelerator, options: RLOptions | None = None,
                 **keywords) -> RLIteration:
    """One RL post-training iteration: time, GPU-seconds by part and FLOPs.

    Formulas (sources in the module docstring; per sample of P prompt and R response tokens, N
    active parameters), one named step each:

        FLOPs (``pass_flops``): generation 2·N_a·(P + R) (prompt once per group with prefix
               sharing), reward 2·N_r·(P+R), reference 2·N_ref·(P+R), critic values 2·N_c·(P+R),
               old log-probs 2·N_a·(P+R), update 6·(N_a + N_c)·(P+R)·E;
               DPO: 6·N·(2P + R_w + R_l) + 2·N_ref·(2P + R_w + R_l) per pair
        time:  generation (``generation_time``) = ``rollout_time`` of the replica holding the
               longest response (decode steps on the ``llmcost.inference`` roofline at the
               ``engine``'s fitted efficiency; HF generate in static micro-batches); every other
               pass (``pass_times``) = FLOPs / (trainer GPUs · dense BF16 peak · MFU), one after
               another on all trainer GPUs, or, with ``role_gpus`` (models on separate GPUs),
               each on its model's GPUs with the models side by side (``update_walls``: the
               experience forwards' wall is the slowest model's, the update's the slower of
               actor and critic), MFU (``training_mfu``) = the step-time model's for the policy on
               the trainer GPUs with ``train_plan`` (``llmcost.step_time``, 6N basis, one optimizer
               step at P + mean R tokens, packed and padded: ``optimizer_batch``) or ``train_mfu``;
               each update adds its offloaded optimizer's wait (``offload_times``, per step
               ``optimizer_offload_time``) and DeepSpeed's ZeRO-2 all-reduce (k·g·AR/2)
        sync (``sync_time``, ``weight_sync_time``): colocated: each GPU re-lays out its
               inference shard W/rollout_tp (bf16) from the training layout over the scale-up
               links if the training model-parallel group (TP·PP) and the rollout replica stay
               in one scale-up domain, else over one NIC per GPU; separate rollout GPUs: the
               whole model W (every tensor whole) reaches every rollout GPU by an NCCL broadcast
               over one NIC per GPU (pipelined: each link carries it once), at the achievable fractions of
               ``data/efficiency.csv``; ``refit`` "nemo-rl" / "nemo-rl-v0.4", colocated: NeMo RL's
               measured refit, 47.2 s / 35 s × W(policy) / W(DSV3) (``nemo_rl_refit_time``)
        tail = generation − the same with every response at the mean length (0 with partial
               rollouts); wall (``wall_and_parts``) = generation + experience + update + sync
               (synchronous) or max(generation, experience + update) + sync (asynchronous)
        GPU-s: generation and tail × rollout GPUs, passes × the GPUs they run on, sync × all
               GPUs, idle = the rest (each role's wait); the parts sum to wall × n_gpus.

    Mini-batches (``train_global_batch``) change the time, not the FLOPs (``optimizer_batch``);
    asynchrony off by k >= 1 steps overlaps generation with training (``generation_time``).

    Parameters
    ----------
    policy : ModelSpec or str
        The actor (and the reference model's architecture).
    accelerator : Accelerator or str
    options : RLOptions, optional
        Every setting (``RLOptions.names()``); keywords replace its fields (``RLOptions.build``).

    Returns
    -------
    RLIteration

    Raises
    ------
    ValueError
        Zero prompts, a response length <= 0, G < 2 for GRPO, weights that do not fit the
        rollout GPUs (checked first), then a training state no plan of the trainer GPUs fits, a
        KV cache leaving no room for a batch, async with colocated GPUs, a bad value (named).
    """
    m, acc = inf.serving_model(policy), inf.serving_accelerator(accelerator)
    o = RLOptions.build(options, **keywords)
    r = sample_lengths(o)
    tokens = int(o.samples * o.prompt_tokens + r.sum())
    flops = pass_flops(m, o, r, tokens)
    gen_wall, tail, gen_note = generation_time(m, acc, o, r)
    mfu, fwd_mfu, step_note, swap_plan = _training_mfu_and_plan(m, acc, o, r)
    off = offload_times(m, acc, o, swap_plan)
    t_phase = add_offload(pass_times(flops, o, mfu, acc.peak_flops_per_s("bf16"), fwd_mfu), off, o)
    t_phase = add_offload(t_phase, deepspeed_allreduce_times(m, acc, o), o)
    sync = sync_time(m, acc, o, swap_plan)
    wall, parts = wall_and_parts(o, gen_wall, tail, t_phase, sync)
    exp_wall, upd_wall = update_walls(t_phase, o, gen_wall)
    notes = iteration_notes(o, off, step_note, gen_note)
    return RLIteration(
        algorithm=o.algorithm, policy=m.name, accelerator=acc.name, n_gpus=o.n_gpus,
        rollout_gpus=o.generation_gpus, colocated=o.colocated, asynchronous=o.asynchronous,
        wall_s=wall, generation_wall_s=gen_wall, train_wall_s=exp_wall + upd_wall,
        parts_gpu_s=parts, flops=flops, samples=o.samples, tokens=tokens,
        verifier_usd=o.verifier_usd_per_sample * o.samples, experience_wall_s=exp_wall,
        update_wall_s=upd_wall, notes="; ".join(notes))


def iteration_notes(o: RLOptions, offload: dict, *notes: str) -> list:
    """The notes of an ``RLIteration``: the step model's and the generation's (``notes``, empty
    ones dropped), then one line per setting that changes how the iteration is priced: models
    on their own GPUs, the optimizer on the host CPUs (``offload``: ``offload_times``' seconds
    per role), partial rollouts, asynchrony."""
    out = [n for n in notes if n]
    if o.role_gpus is not None:
        out.append("models on their own GPUs: " + ", ".join(
            f"{k} {v}" for k, v in o.role_gpus.items()))
    if o.optimizer_offload:
        out.append(f"optimizer on the host CPUs: {offload['actor'] + offload['critic']:.1f} s "
                   f"over {o.optimizer_steps} optimizer step(s)")
    if o.partial_rollouts:
        out.append(f"partial rollouts: tail removed up to the best measured gain "
                   f"(+{PARTIAL_ROLLOUT_GAIN_MAX:.0%} rollout throughput, APRIL)")
    if o.asynchronous:
        k = o.off_policy_steps
        out.append(f"asynchronous: off-policy by {k} step{'s' if k > 1 else ''}")
    return out


# ------------------------------------------------------------------------------ run, campaign
def rl_campaign(iteration: RLIteration, iterations: int, runs: int = 1,
                price_usd_per_gpu_hour: float | None = None) -> pd.DataFrame:
    """GPU-hours and USD of a run (K iterations) and a campaign (several runs) by part.

    Formula: part_gpu_hours = iteration part × K × runs; USD = GPU-hours × price (+ verifier USD
    per sample × samples × K × runs as its own row). The rows (parts) sum to the ``total`` row.
    This is the post-training line of the bill (``llmcost.ledger`` takes it from here).

    Parameters
    ----------
    iteration : RLIteration
    iterations : int >= 1 (K, per run)
    runs : int >= 1 (experiments and reruns in the campaign)
    price_usd_per_gpu_hour : float, optional

    Returns
    -------
    DataFrame indexed by part (``PARTS`` + ``verifier`` + ``total``): ``gpu_hours`` and, with a
    price, ``usd``; ``attrs`` hold wall_clock_days per run, iterations and runs.
    """
    if not isinstance(iteration, RLIteration):
        raise ValueError(f"iteration={iteration!r} must be an RLIteration (rl_iteration(...))")
    k = _int("iterations", iterations)
    n_runs = _int("runs", runs)
    scale = k * n_runs / SECONDS_PER_HOUR
    # built in one go (row by row, pandas' enlargement took 2 ms of every bill)
    hours = np.array([iteration.parts_gpu_s[p] * scale for p in PARTS] + [0.0])
    cols = {"gpu_hours": np.append(hours, hours.sum())}
    if price_usd_per_gpu_hour is not None:
        price = _float("price_usd_per_gpu_hour", price_usd_per_gpu_hour, positive=True)
        usd = np.append(hours[:-1] * price, iteration.verifier_usd * k * n_runs)
        cols["usd"] = np.append(usd, usd.sum())
    df = pd.DataFrame(cols, index=pd.Index([*PARTS, "verifier", "total"], name="part"))
    df.attrs.update(iterations=k, runs=n_runs,
                    wall_clock_days_per_run=iteration.wall_s * k / 86400.0)
    return df


# ------------------------------------------------------------------------------ scenarios
#: ``rl_iteration`` / ``rl_campaign`` argument -> the scenario key it comes from; errors raised
#: through ``scenario_iteration`` / ``scenario_campaign`` name the scenario key instead.
SCENARIO_KEYS = {
    "policy": "model", "accelerator": "accelerator", "algorithm": "rl_algorithm",
    "prompts_per_step": "rl_prompts_per_step", "samples_per_prompt": "rl_samples_per_prompt",
    "prompt_tokens": "rl_prompt_tokens", "response_tokens": "rl_response_tokens",
    "response_tokens_max": "rl_response_tokens_max", "max_tokens": "rl_response_tokens_max",
    "mean_tokens": "rl_response_tokens", "ppo_epochs": "rl_ppo_epochs", "reward": "rl_reward",
    "n_gpus": "rl_gpus", "rollout_gpus": "rl_rollout_gpus", "rollout_tp": "rl_rollout_tp",
    "asynchronous": "rl_async", "partial_rollouts": "rl_partial_rollouts",
    "weight_sync_s": "rl_weight_sync_s", "train_mfu": "rl_train_mfu", "train_etp": ETP_KEY,
    "verifier_usd_per_sample": "rl_verifier_usd_per_sample",
    "weight_dtype": "serve_weight_dtype", "kv_dtype": "serve_kv_dtype",
    "iterations": "rl_iterations", "runs": "rl_runs",
}
_ARG_RE = re.compile(r"(?<![\w.])(" + "|".join(sorted(SCENARIO_KEYS, key=len, reverse=True))
                     + r")(?==)")


def rollout_weight_dtype(p: dict) -> str:
    """The RL rollouts' weight precision a scenario gives: ``rl_rollout_weight_dtype``, else
    ``serve_weight_dtype`` (the serving set-up's, the rollouts' before the key existed)."""
    return p.get("rl_rollout_weight_dtype") or p.get("serve_weight_dtype") or "bf16"


def fp8_rollouts_change(p: dict) -> str:
    """Why FP8 rollout weights would change nothing for scenario ``p``, or "" where they would:
    its rollouts already hold 8 bits or fewer per weight (``rollout_weight_dtype``,
    ``inference.WEIGHT_BYTES``), or its accelerator has no FP8 peak (FP8 weights would run
    weight-only, dequantised to BF16; FlashRL's INT8 path on A100 is not priced)."""
    dtype = rollout_weight_dtype(p)
    if inf.WEIGHT_BYTES.get(dtype, 2.0) <= 1:
        return f"the RL rollouts already hold {dtype} weights"
    acc = p.get("accelerator", "H100-SXM")
    if not load_accelerator(acc).peak_fp8_flops_per_s:
        return (f"{acc} has no FP8 peak: FP8 rollouts would run weight-only (an INT8 path, "
                "FlashRL's on A100, is not priced)")
    return ""


def rollout_weight_dtype_key(p: dict) -> str:
    """The scenario key that sets the rollouts' weight precision (``rollout_weight_dtype``):
    the one an error about it names."""
    return "rl_rollout_weight_dtype" if p.get("rl_rollout_weight_dtype") else \
        "serve_weight_dtype"


def rollout_dtype_words(p: dict, message: str) -> str:
    """"; rl_rollout_weight_dtype sets the rollouts' precision apart from serving's" where an RL
    refusal names ``serve_weight_dtype`` as the rollouts' precision because the scenario leaves
    ``rl_rollout_weight_dtype`` out (``rollout_weight_dtype_key``): an economist read "lower
    serve_weight_dtype" for the RL line alone. "" otherwise."""
    return ("; rl_rollout_weight_dtype sets the rollouts' precision apart from serving's"
            if rollout_weight_dtype_key(p) == "serve_weight_dtype"
            and "serve_weight_dtype" in message else "")


def _scenario_error(e: ValueError, p: dict | None = None) -> ValueError:
    """The same error with each ``argument=`` renamed to its scenario key (``SCENARIO_KEYS``;
    ``weight_dtype`` the key that sets the scenario ``p``'s rollout precision,
    ``rollout_weight_dtype_key``)."""
    keys = {**SCENARIO_KEYS, "weight_dtype": rollout_weight_dtype_key(p or {})}
    return ValueError(_ARG_RE.sub(lambda mt: keys[mt.group(1)], str(e)))


def scenario_iteration(p: dict) -> RLIteration:
    """The RL iteration a validated scenario describes (``rl_`` keys, ``model``,
    ``accelerator`` with the scenario's ``comm_scaleout_bytes_per_s`` when it gives one
    (``catalog.scenario_accelerator``), ``rl_rollout_weight_dtype`` (else
    ``serve_weight_dtype``: ``rollout_weight_dtype``) / ``serve_kv_dtype`` for the rollout
    precision).
    Scoring and update passes run at ``rl_train_mfu`` if the scenario gives it, else at the
    step-time model's MFU for the fastest plan that fits on the RL GPUs (``train_plan="auto"``)
    among those the scenario's ``stack`` runs, priced on that stack (the trainer taken to run
    the scenario's training stack; absent: ``stacks.DEFAULT_STACK``), its experts folded when
    the scenario's ``etp`` is 1 (``RLOptions.train_etp``), as the scenario's own plan is.

    Errors name the scenario keys (``SCENARIO_KEYS``), e.g. ``rl_rollout_tp=8 must divide the 4
    rollout GPUs (rl_gpus=4, colocated)``; a rollout TP refused for the GPUs that breaks the
    model's head rules too says both (``_heads_too``)."""
    try:
        return _scenario_iteration(p)
    except ValueError as e:
        raise ValueError(str(_scenario_error(e, p)) + _heads_too(p, str(e))) from None


def _heads_too(p: dict, message: str) -> str:
    """"; it also breaks the heads rule: ..." when ``message`` refuses the rollout TP for its GPU
    count (``RLOptions``: checked first) and that TP also breaks vLLM's head rules for the
    model (``inference.check_tp_heads``), which a trial met only on its next run (rl_rollout_tp
    3 on a 32-head model); "" otherwise."""
    if "rollout GPUs" not in message or not message.startswith("rollout_tp="):
        return ""
    try:
        model, tp = inf.serving_model(p["model"]), int(p["rl_rollout_tp"])
    except (ValueError, KeyError, TypeError):
        return ""
    try:
        inf.check_tp_heads(tp, model)
    except ValueError as e:
        return "; it also breaks the heads rule: " + re.sub(r"^tp=", "rl_rollout_tp=", str(e))
    return ""


def fitting_rollout_tp(p: dict) -> int | None:
    """The rollout tensor-parallel size nearest the scenario's ``rl_rollout_tp`` at which the
    scenario's RL iteration can be priced (``scenario_iteration``: the rollout weights and KV
    cache fit each replica's HBM, the TP divides the rollout GPUs and the model's heads); None
    when none up to the rollout GPU count does. Tried in this order: ``rl_rollout_tp`` and its
    doublings (a larger TP holds a larger model), then the other divisors of the model's
    attention heads above it, then those below it, largest first (a TP must divide the heads,
    and divide the KV heads or be a multiple of them: ``inference.check_tp_heads``, vLLM's rules;
    a 9-head model takes no TP of 4 or 8). A report uses
    it when a scenario gives no ``rl_rollout_tp`` and the notebooks' default cannot be priced
    (e.g. a 235B policy's 470 GB of BF16 weights over 4 H100s; SmolLM-135M's 9 heads at TP 4)."""
    tp = int(p["rl_rollout_tp"])
    limit = int(p["rl_rollout_gpus"] or p["rl_gpus"])
    model = inf.serving_model(p["model"])
    heads = int(model.n_heads)
    doubling = [tp * 2 ** k for k in range(64) if tp * 2 ** k <= limit]
    above = [t for t in range(tp + 1, min(limit, heads) + 1) if t not in doubling]
    below = list(range(min(tp - 1, limit, heads), 0, -1))
    for t in (t for t in doubling + above + below if _suits_heads(t, model)):
        try:
            scenario_iteration({**p, "rl_rollout_tp": t})
            return t
        except ValueError:
            continue
    return None


def _suits_heads(tp: int, model) -> bool:
    """Whether ``tp`` meets vLLM's head rules for ``model`` (``inference.check_tp_heads``)."""
    try:
        inf.check_tp_heads(tp, model)
        return True
    except ValueError:
        return False


#: The scenario keys an RL iteration reads (``_scenario_iteration``): the price is not one.
ITERATION_KEYS = ("model", "accelerator", "rl_algorithm", "rl_prompts_per_step",
                  "rl_samples_per_prompt", "rl_prompt_tokens", "rl_response_tokens",
                  "rl_response_tokens_max", "rl_ppo_epochs", "rl_reward", "rl_gpus",
                  "rl_rollout_gpus", "rl_rollout_tp", "rl_rollout_weight_dtype", "rl_async",
                  "rl_partial_rollouts",
                  "rl_weight_sync_s", "rl_train_mfu", "rl_verifier_usd_per_sample",
                  "serve_weight_dtype", "serve_kv_dtype", "stack", ETP_KEY, "rl_framework")
#: ``ITERATION_KEYS`` a scenario may leave out, and the value then taken: the scenario
#: registry's defaults (``bill.scenario.LEDGER_DEFAULTS``, the default scenario's values; a
#: test checks they agree) for the keys whose default is "not given" (null: the weight sync
#: estimated from the links, the update's MFU predicted) or the plain set-up (colocated,
#: synchronous, no partial rollouts, a free verifier, bf16 rollouts), the training stack
#: (``stacks.DEFAULT_STACK``) and the experts' layout (``etp`` 0: their TP equal to tp; 1: the
#: update's plan search folds them, as the scenario's own search does). The set-up's size
#: (model, GPUs, batch, lengths) has none: a scenario without one of those keys is refused by
#: name (``_scenario_iteration``).
ITERATION_DEFAULTS = {"stack": DEFAULT_STACK, "rl_weight_sync_s": None, "rl_train_mfu": None,
                      "rl_rollout_gpus": 0, "rl_rollout_weight_dtype": None,
                      "rl_async": False, "rl_partial_rollouts": False,
                      "rl_verifier_usd_per_sample": 0.0, "serve_weight_dtype": "bf16",
                      "serve_kv_dtype": "bf16", ETP_KEY: 0, "rl_framework": "generic"}


#: ``rl_framework`` values (the scenario key naming the RL framework and its release): "generic"
#: (the bill's path as it was: the weight sync from the links, vLLM's defaults of today, no host
#: swaps) or a NeMo RL release, whose documented defaults ``framework_options`` applies.
RL_FRAMEWORKS = ("generic", "nemo-rl-0.3", "nemo-rl-0.4", "nemo-rl-0.5", "nemo-rl-0.6")
#: Per NeMo RL release: (its refit path, ``REFIT_MODELS``; the vLLM release it pins). Refit:
#: v0.3.0's per-group CUDA-IPC handles, v0.4.0 on the streamed ZMQ refit / overlapped NCCL
#: broadcast (``row_refit``, ``NEMO_RL_ZMQ_REFIT_SOURCE``, ``NEMO_RL_NCCL_REFIT_SOURCE``). vLLM:
#: NVIDIA-NeMo/RL pyproject.toml "vllm==0.9.0" @ v0.3.0, "vllm==0.10.0" @ v0.4.0,
#: "vllm==0.11.2" @ v0.5.0, "vllm==0.17.1" @ v0.6.0.
NEMO_RL_RELEASES = {"nemo-rl-0.3": ("nemo-rl", "0.9.0"), "nemo-rl-0.4": ("nemo-rl-v0.4", "0.10.0"),
                    "nemo-rl-0.5": ("nemo-rl-v0.4", "0.11.2"),
                    "nemo-rl-0.6": ("nemo-rl-v0.4", "0.17.1")}
#: NeMo RL's base GRPO config, examples/configs/grpo_math_1B.yaml at v0.3.0-v0.6.0:
#: ``policy.generation.vllm_cfg.gpu_memory_utilization: 0.6`` (v0.4.0 l. 215) and
#: ``policy.train_micro_batch_size: 4`` (v0.4.0 l. 70), ``sequence_packing.enabled: True``.
NEMO_RL_GPU_MEMORY_UTILIZATION = 0.6
NEMO_RL_TRAIN_MICRO_BATCH = 4


#: The NeMo RL releases' algorithms (nemo_rl/algorithms/ at the tags v0.3.0-v0.6.0: sft.py,
#: dpo.py, grpo.py, and from v0.4.0 distillation.py and rm.py; no ppo.py before v0.7.0): the
#: ``rl_algorithm`` values a NeMo RL ``rl_framework`` runs.
NEMO_RL_ALGORITHMS = ("grpo", "dpo")


def framework_options(framework: str, accelerator, *, asynchronous: bool,
                      sequence_tokens: int, algorithm: str = "grpo") -> dict:
    """``rl_iteration`` keywords of a framework release's documented defaults ({} for
    "generic"): for a NeMo RL release (``NEMO_RL_RELEASES``) its refit path, its host swaps
    (``nemo_rl_swap_bytes``), vLLM's default ``max_num_seqs`` for the engine object it builds
    (``AsyncLLM`` when asynchronous: NeMo RL refuses asynchronous GRPO without
    ``vllm_cfg.async_engine`` true, nemo_rl/algorithms/grpo.py @ v0.4.0 l. 1564; else the base
    config's ``async_engine: false``, ``vllm.LLM``; ``vllm_default_max_num_seqs``), its base
    config's memory share and packing (``NEMO_RL_GPU_MEMORY_UTILIZATION``;
    ``pack_tokens = sequence_tokens × NEMO_RL_TRAIN_MICRO_BATCH``) and its vLLM's CUDA graphs
    (``vllm_piecewise_graphs``). The plan, lengths, asynchronous depth stay the scenario's.

    Raises
    ------
    ValueError
        ``framework`` not one of ``RL_FRAMEWORKS``; an ``algorithm`` the release does not
        run (``NEMO_RL_ALGORITHMS``: no PPO); asynchronous on "nemo-rl-0.3" (no ``async_grpo``
        in its config)."""
    if framework not in RL_FRAMEWORKS:
        raise ValueError(f"rl_framework={framework!r} must be one of {RL_FRAMEWORKS}")
    if framework == "generic":
        return {}
    if algorithm not in ALGORITHMS:   # a typo is a typo, not an algorithm the release lacks
        raise ValueError(f"rl_algorithm={algorithm!r} must be one of {', '.join(ALGORITHMS)}")
    if algorithm not in NEMO_RL_ALGORITHMS:
        raise ValueError(f"rl_framework={framework!r} has no {algorithm.upper()} (NeMo RL's "
                         f"algorithms at that release: {', '.join(NEMO_RL_ALGORITHMS)}, "
                         "nemo_rl/algorithms at the tag): rl_algorithm must be one of "
                         f"{', '.join(NEMO_RL_ALGORITHMS)}, or rl_framework generic")
    if asynchronous and framework == "nemo-rl-0.3":
        raise ValueError("rl_framework='nemo-rl-0.3' has no asynchronous GRPO (its "
                         "grpo_math_1B.yaml has no async_grpo): rl_async must be false")
    refit, vllm = NEMO_RL_RELEASES[framework]
    api = "AsyncLLM" if asynchronous else "LLM"
    return dict(refit=refit, host_swaps=True,
                max_concurrent=vllm_default_max_num_seqs(api, accelerator),
                rollout_reserve_fraction=1.0 - NEMO_RL_GPU_MEMORY_UTILIZATION,
                rollout_piecewise_graphs=vllm_piecewise_graphs(vllm),
                pack_tokens=int(sequence_tokens) * NEMO_RL_TRAIN_MICRO_BATCH)


def _scenario_iteration(p: dict) -> RLIteration:
    """The iteration of ``scenario_iteration``, computed once per set of ``ITERATION_KEYS``
    values (a bill's levers and ranges change prices and sizes far more often than the RL
    set-up, and the plan search of ``train_plan="auto"`` is the slow part); values that cannot be
    hashed are computed each time. A key of ``ITERATION_KEYS`` neither given nor in
    ``ITERATION_DEFAULTS`` is refused by name."""
    given = {**ITERATION_DEFAULTS, **p}
    missing = [k for k in ITERATION_KEYS if k not in given]
    if missing:
        raise ValueError(f"the scenario gives no {', '.join(missing)}: an RL iteration needs "
                         "them (set them in the scenario, or start from the notebooks' "
                         "defaults, bill.scenario.LEDGER_DEFAULTS)")
    key = tuple(given[k] for k in ITERATION_KEYS)
    if p.get("comm_scaleout_bytes_per_s") is not None:  # the scenario's own network figure
        key = key[:1] + (scenario_accelerator(p),) + key[2:]
    try:
        return _iteration_cached(key)
    except TypeError:  # an unhashable value (a model given as a dict): no cache
        return _iteration_of(key)


def responses_per_prompt(algorithm: str, samples_per_prompt: int) -> int:
    """Sequences an iteration takes per prompt: G = ``samples_per_prompt`` (GRPO's group, PPO's
    samples), or 2 for DPO (a chosen and a rejected response per pair, whatever G says).

    Raises
    ------
    ValueError
        An algorithm not in ``ALGORITHMS``, or G not a whole number >= 1."""
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm={algorithm!r} must be one of {', '.join(ALGORITHMS)}")
    g = as_count(samples_per_prompt, "samples_per_prompt")
    return 2 if algorithm == "dpo" else g


def other_algorithm(p: dict) -> tuple:
    """The set-up notebook 05 sets beside a scenario's RL iteration: the same samples (prompts ×
    samples per prompt) under the other of PPO and GRPO, ``(label, scenario or None, why)``.
    A PPO scenario is set against GRPO (Shao et al. 2024: no critic, the advantage normalised
    within each prompt's group of samples), with its prompts and samples per prompt, which
    needs a group of at least 2 (else None and ``why`` says so); any other algorithm against
    PPO (Ouyang et al. 2022) with one sample per prompt and as many prompts as the scenario has
    samples (``responses_per_prompt``: DPO's two per prompt, GRPO's group), a reward
    model of the policy's size, on the generic path (NeMo RL's releases run no PPO). A trial's
    PPO scenario was set against "PPO, same samples", itself."""
    if p["rl_algorithm"] == "ppo":
        if p["rl_samples_per_prompt"] < 2:
            return ("GRPO, same samples", None,
                    f"no GRPO row: its group baseline needs 2 or more samples per prompt, the "
                    f"scenario draws {p['rl_samples_per_prompt']}")
        return "GRPO, same samples", {**p, "rl_algorithm": "grpo"}, ""
    per_prompt = responses_per_prompt(p["rl_algorithm"], p["rl_samples_per_prompt"])
    # the label says what else changes (a teacher read the row's 9.1% as PPO's alone)
    return ("PPO, same samples (1 per prompt, a reward model of the policy's size)", {
        **p, "rl_algorithm": "ppo", "rl_reward": "reward_model", "rl_samples_per_prompt": 1,
        "rl_prompts_per_step": p["rl_prompts_per_step"] * per_prompt,
        "rl_framework": "generic"}, "")


def scenario_recomputes_old_logprobs(algorithm: str) -> bool:
    """Whether a scenario's RL iteration recomputes the policy's log-probabilities of its samples
    before the update (one forward pass of the policy over every sample): for PPO and GRPO,
    whose loss takes the ratio to them, as the frameworks compute them (NeMo RL v0.4.0
    ``nemo_rl/algorithms/grpo.py`` l. 1118, ``fprop_logprobs = policy.get_logprobs(
    train_data)``, kept as ``prev_logprobs``; OpenRLHF @ 3c3be623
    ``openrlhf/trainer/ppo_utils/experience_maker.py`` l. 153-158, the actor model's forward for
    ``action_log_probs``); not for DPO, which has none. ``rl_iteration``'s own default keeps
    the textbook accounting (PPO only); the bill's path takes the frameworks'."""
    return algorithm in ("ppo", "grpo")


def _iteration_of(key: tuple) -> RLIteration:
    p = dict(zip(ITERATION_KEYS, key))
    # the update's plan is searched unless the scenario gives its MFU and nothing needs the plan
    # (a framework's host swaps count its shard: _training_mfu_and_plan)
    searched = p["rl_train_mfu"] is None or p["rl_framework"] != "generic"
    return rl_iteration(
        p["model"], p["accelerator"], algorithm=p["rl_algorithm"],
        prompts_per_step=p["rl_prompts_per_step"], samples_per_prompt=p["rl_samples_per_prompt"],
        prompt_tokens=p["rl_prompt_tokens"], response_tokens=p["rl_response_tokens"],
        response_tokens_max=p["rl_response_tokens_max"], ppo_epochs=p["rl_ppo_epochs"],
        reward="verifier" if p["rl_reward"] == "verifier" else p["model"],
        n_gpus=p["rl_gpus"], rollout_gpus=p["rl_rollout_gpus"], rollout_tp=p["rl_rollout_tp"],
        asynchronous=p["rl_async"], partial_rollouts=p["rl_partial_rollouts"],
        weight_sync_s=p["rl_weight_sync_s"], train_mfu=p["rl_train_mfu"],
        train_plan="auto" if searched else None,
        train_etp=etp_of_key(p[ETP_KEY]) if searched else None,
        verifier_usd_per_sample=p["rl_verifier_usd_per_sample"],
        weight_dtype=rollout_weight_dtype(p), kv_dtype=p["serve_kv_dtype"], stack=p["stack"],
        recompute_old_logprobs=scenario_recomputes_old_logprobs(p["rl_algorithm"]),
        **framework_options(p["rl_framework"], p["accelerator"], asynchronous=p["rl_async"],
                            algorithm=p["rl_algorithm"],
                            sequence_tokens=p["rl_prompt_tokens"] + (
                                p["rl_response_tokens_max"] or p["rl_response_tokens"])))


#: ``_iteration_of`` once per process (the memo) and once per code and data (the disk cache,
#: ``core.diskcache``): the iteration depends on ``ITERATION_KEYS`` only, so every report
#: and kernel that prices the same RL set-up (notebooks 00, 05 and 09, the report's bill, a
#: scenario that changes the run's tokens or GPUs) reads the first one's.
_iteration_cached = lru_cache(maxsize=256)(disk_cached(_iteration_of))


#: Measured ÷ predicted iteration time over the held-out rows of the RL validation as the bill
#: prices a scenario (``rl_validation("scenario", split="heldout")``: each row stated with the keys
#: a scenario has, ``SCENARIO_SETTABLE``, every other setting at its default, the vLLM release it
#: ran kept; 24 NeMo RL GRPO rows: OpenRLHF's vLLM rows cannot be stated so, on A800 or with no
#: update plan on their 12 trainer GPUs; ``benchmarks/validate_rl.py``), 1 / ratio, its least,
#: median and largest, rounded to two digits: the range the bill draws ``rl_time_factor`` over
#: when a scenario gives none (``ledger.illustrative_ranges``: two half-triangles, half the draws
#: each side), peaked at their median (``RL_TIME_FACTOR_MEDIAN``), the bill's point
#: (``scenario_time_factor``) and the draws' median. The bill's path runs
#: short more often than long (19 of 24 rows): the frameworks' own refits, host swaps, engine
#: caps and memory shares, which the "model" mode prices from each row's recipe (held-out within
#: 1.45x), are not a scenario's. The low end is NeMo RL's 8-steps-off-policy row, a depth no
#: scenario key states. Measured on the "model"
#: mode, the spread was 0.86-1.45 and did not cover the bill's path (a trial: NeMo RL's v0.6
#: Qwen3-30B-A3B row billed at 100 s against 192 s measured). ``tests/test_rl_validation.py`` holds
#: it to the measurement.
RL_TIME_FACTOR_RANGE = (0.55, 3.15)
RL_TIME_FACTOR_MEDIAN = 1.69
#: The largest share of an iteration's GPU-time the model gives the wait for the longest
#: responses (``wall_and_parts``' ``tail``) on any published run of ``data/rl_iterations.csv``
#: (its "model" mode, ``validation_iteration``): NeMo RL v0.3's Llama 3.1 70B GRPO row, held out,
#: 4,096-token responses (``TAIL_SHARE_CHECKED_RUN``). Beyond it the RL line's largest part
#: rests on the shape of the response lengths (``response_lengths``, an assumption) further than
#: any checked run; ``tests/test_rl_validation.py`` holds it to the rows.
TAIL_SHARE_CHECKED = 0.547
TAIL_SHARE_CHECKED_RUN = "nemo-rl-v0.3-llama3.1-70b"
#: The same spread with each held-out row stated with its framework release too
#: (``held_out_time_factors(FRAMEWORK_MODE)``: ``row_framework``, ``framework_options``; 23 NeMo
#: RL GRPO rows, the 1-step-off Qwen3-235B row refused at the base config's memory share): the
#: triangle and point of a scenario whose ``rl_framework`` names a NeMo RL release
#: (``time_factor_triangle``). Leave-one-out, the bill's point so centred errs 19.9% on those
#: rows against 30.2% on the generic path on the same 23 rows (32.4% on its 24; calibration
#: rows: 17.2% against 30.0%;
#: ``benchmarks/validate_rl.py``). ``tests/test_rl_framework.py`` holds it to the measurement.
RL_FRAMEWORK_TIME_FACTOR_RANGE = (0.55, 1.94)
RL_FRAMEWORK_TIME_FACTOR_MEDIAN = 1.29
#: The held-out rows each spread is measured on (``RL_TIME_FACTOR_RANGE``: the 24 GRPO rows
#: the "scenario" mode prices; ``RL_FRAMEWORK_TIME_FACTOR_RANGE``: 23 of them), held to
#: ``rl_validation`` by ``tests/test_rl_trial_warnings.py``: counted here, not priced again each
#: time a bill says where its factor comes from (``time_factor_runs_words``).
RL_TIME_FACTOR_RUNS, RL_FRAMEWORK_TIME_FACTOR_RUNS = 24, 23


def time_factor_runs_words(p: dict) -> str:
    """"the 24 held-out published GRPO runs, all NeMo RL, responses up to 8,192 tokens": the
    runs the scenario's default time factor and its spread (``time_factor_triangle``) come
    from, their count ``RL_TIME_FACTOR_RUNS`` or, with an ``rl_framework`` release,
    ``RL_FRAMEWORK_TIME_FACTOR_RUNS``, their systems and longest responses read from the
    held-out GRPO rows of ``data/rl_iterations.csv``."""
    generic = (p.get("rl_framework") or "generic") == "generic"
    v = load_rl_validation()
    g = v[(v["split"] == "heldout") & (v["algorithm"] == "grpo")]
    systems = sorted(set(g["system"]))
    n = RL_TIME_FACTOR_RUNS if generic else RL_FRAMEWORK_TIME_FACTOR_RUNS
    return (f"the {n} held-out published GRPO runs, "
            + (f"all {systems[0]}" if len(systems) == 1 else ", ".join(systems))
            + f", responses up to {int(g['response_tokens_max'].max()):,} tokens")


def time_factor_triangle(p: dict) -> tuple:
    """(least, median, largest) measured ÷ predicted iteration time the bill draws a scenario's
    ``rl_time_factor`` over when it gives none: ``RL_TIME_FACTOR_RANGE`` / ``_MEDIAN`` on the
    generic path (``rl_framework`` "generic" or absent), ``RL_FRAMEWORK_TIME_FACTOR_RANGE`` /
    ``_MEDIAN`` when ``rl_framework`` names a NeMo RL release (its defaults priced,
    ``framework_options``).

    Raises
    ------
    ValueError
        ``rl_framework`` not one of ``RL_FRAMEWORKS``."""
    fw = p.get("rl_framework") or "generic"
    if fw not in RL_FRAMEWORKS:
        raise ValueError(f"rl_framework={fw!r} must be one of {RL_FRAMEWORKS}")
    if fw == "generic":
        return RL_TIME_FACTOR_RANGE[0], RL_TIME_FACTOR_MEDIAN, RL_TIME_FACTOR_RANGE[1]
    return (RL_FRAMEWORK_TIME_FACTOR_RANGE[0], RL_FRAMEWORK_TIME_FACTOR_MEDIAN,
            RL_FRAMEWORK_TIME_FACTOR_RANGE[1])


def scenario_time_factor(p: dict) -> float:
    """The measured ÷ predicted iteration time a scenario's RL campaign is billed at
    (``scenario_campaign``), as ``central_mfu`` centres a predicted MFU on its regime's published
    runs::

        factor = rl_time_factor                 when the scenario gives a number (a measurement;
                                                1 bills the model's own prediction)
               = RL_TIME_FACTOR_MEDIAN (1.69)   when it gives none (null), for GRPO and PPO
               = RL_FRAMEWORK_TIME_FACTOR_MEDIAN (1.29)
                                                the same with an rl_framework naming a NeMo RL
                                                release (its defaults priced: time_factor_triangle)
               = 1                              when it gives none, for DPO

    ``RL_TIME_FACTOR_MEDIAN`` is the median measured ÷ predicted iteration time of the held-out
    published GRPO runs stated with a scenario's keys (its comment): 19 of those 24 runs took
    longer than the model's prediction on the bill's own path, so a bill at the prediction
    would sit below most of them. Centred so, the bill's point errs by 32% on average on those
    rows, each priced with the median of the other 23 (leave-one-out), against 77% at the model's
    own prediction (``tests/test_rl_validation.py``; ``benchmarks/validate_rl.py`` prints both);
    on the four calibration rows, which the RL model's constants were fitted on (measured ÷
    predicted 0.99-1.38), it errs by 30% against 19%: the centring helps where the model was not
    fitted, the case of a scenario.
    PPO is extrapolated from GRPO's runs (no PPO run is published with a scenario's set-up); DPO
    has no rollout, refit or scoring of samples, which is where those runs part from the model,
    so it is billed at the model's own time.

    Raises
    ------
    ValueError
        ``rl_time_factor`` neither null nor a finite number > 0 (a range is the bill's to draw:
        ``ledger.illustrative_ranges``)."""
    factor = p.get("rl_time_factor")
    if factor is None:
        return 1.0 if p.get("rl_algorithm") == "dpo" else time_factor_triangle(p)[1]
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) or \
            not math.isfinite(factor) or factor <= 0:
        raise ValueError(f"rl_time_factor={factor!r} must be null or a number > 0 (measured ÷ "
                         "predicted iteration time; a range is drawn by the bill, not here)")
    return float(factor)


def billed_iteration_s(wall_s: float, p: dict) -> tuple:
    """``(seconds, words)``: an iteration the model times at ``wall_s`` as the bill prices it,
    ``wall_s × scenario_time_factor(p)``, and in short words: "the model's 39.4 s × 1.69,
    published GRPO runs' median" (the default), "the model's 39.4 s × rl_time_factor 1.2" (a
    given factor), "the model's own time" (a factor of 1): ``time_factor_short``."""
    seconds = as_scalar(wall_s, "wall_s", positive=True) * scenario_time_factor(p)
    short = time_factor_short(p)
    return seconds, (f"the model's {wall_s:,.3g} s {short}" if short else "the model's own time")


def _factor_given(p: dict) -> bool:
    """True when ``rl_time_factor`` is the scenario's own (a measurement), False when it is
    null or the point of the RL model's own spread that a headline bill draws
    (``ledger.headline_draws`` marks it ``_rl_time_factor_drawn``: a trial read "× rl_time_factor
    1.29" in `estimate` as a factor it had given, where the report said null)."""
    return p.get("rl_time_factor") is not None and not p.get("_rl_time_factor_drawn")


def time_factor_short(p: dict) -> str:
    """``scenario_time_factor`` in a few words: "" at 1 (the model's own time), "× 1.69,
    published GRPO runs' median" (none given; "published NeMo RL GRPO runs' (stated with their
    release) median" with an ``rl_framework``; a PPO campaign adds "PPO extrapolated from
    GRPO's", as ``time_factor_words`` does: a trial read GRPO's factor on a PPO bill unsaid),
    "× rl_time_factor 1.2" (given)."""
    k = scenario_time_factor(p)
    if k == 1.0:
        return ""
    runs = ("published GRPO runs'" if (p.get("rl_framework") or "generic") == "generic" else
            "published NeMo RL GRPO runs' (stated with their release)")
    return (f"× rl_time_factor {k:.3g}" if _factor_given(p) else
            f"× {k:.3g}, {runs} median"
            + (", PPO extrapolated from GRPO's" if p.get("rl_algorithm") == "ppo" else ""))


def time_factor_words(p: dict) -> str:
    """``scenario_time_factor`` in a reader's words: "" at 1 (the model's own time), else where
    the factor comes from, e.g. "× 1.69, the median measured ÷ predicted iteration time of the
    held-out published GRPO runs priced as a scenario (rl_time_factor: null)"."""
    factor = scenario_time_factor(p)
    if factor == 1.0:
        return ""
    if _factor_given(p):
        return f"× rl_time_factor {factor:.3g} (measured ÷ predicted iteration time)"
    fw = p.get("rl_framework") or "generic"
    return (f"× {factor:.3g}, the median measured ÷ predicted iteration time of the held-out "
            "published GRPO runs priced as a scenario (rl_time_factor: null; "
            + ("llmcost.rl.RL_TIME_FACTOR_MEDIAN)" if fw == "generic" else
               f"stated with their framework, rl_framework {fw}: "
               "llmcost.rl.RL_FRAMEWORK_TIME_FACTOR_MEDIAN)")
            + ("; PPO extrapolated from GRPO's" if p.get("rl_algorithm") == "ppo" else ""))


def held_out_time_factors(mode: str = "scenario") -> tuple:
    """(least, median, largest) measured ÷ predicted RL iteration time on the held-out rows of
    the RL validation in ``mode`` (``rl_validation``; "scenario", the bill's path, is the
    derivation of ``RL_TIME_FACTOR_RANGE``)."""
    r = 1.0 / rl_validation(mode, split="heldout")["ratio"].dropna()
    return float(r.min()), float(r.median()), float(r.max())


def scenario_campaign(p: dict, price_usd_per_gpu_hour: float) -> pd.DataFrame:
    """``rl_campaign`` for a validated scenario: ``rl_iterations`` × ``rl_runs`` at the price,
    every part's GPU-hours and USD × ``scenario_time_factor(p)`` (measured ÷ predicted
    iteration time: the scenario's ``rl_time_factor``, or by default the published runs' median,
    1 for DPO; the verifier's per-sample cost is not scaled). Errors name the scenario keys, as
    ``scenario_iteration``; a scenario without ``rl_iterations`` or ``rl_runs`` is refused by
    name (the campaign's size has no default)."""
    it = scenario_iteration(p)
    missing = [k for k in ("rl_iterations", "rl_runs") if k not in p]
    if missing:
        raise ValueError(f"the scenario gives no {', '.join(missing)}: an RL campaign needs them")
    factor = scenario_time_factor(p)
    try:
        camp = rl_campaign(it, p["rl_iterations"], p["rl_runs"], price_usd_per_gpu_hour)
    except ValueError as e:
        raise _scenario_error(e, p) from None
    return scale_campaign(camp, float(factor))


def scale_campaign(camp: pd.DataFrame, factor: float) -> pd.DataFrame:
    """``camp`` (``rl_campaign``) with every part's GPU-hours and USD × ``factor`` (the
    verifier's USD, per sample, kept), the ``total`` row summed again and a run's wall clock
    (``attrs['wall_clock_days_per_run']``) × ``factor``; ``camp`` itself when the factor is 1.

    Raises
    ------
    ValueError
        ``camp`` not a campaign table (a DataFrame with a ``gpu_hours`` column and a ``total``
        row), or ``factor`` not a finite number > 0."""
    factor = as_scalar(factor, "factor", positive=True)
    if not isinstance(camp, pd.DataFrame) or "gpu_hours" not in camp or "total" not in camp.index:
        raise ValueError("camp must be a campaign table (rl_campaign: a gpu_hours column and a "
                         "total row)")
    if factor == 1.0:
        return camp
    out = camp.copy()
    if "wall_clock_days_per_run" in out.attrs:   # a run lasts its measured ÷ predicted time too
        out.attrs["wall_clock_days_per_run"] = out.attrs["wall_clock_days_per_run"] * factor
    parts = [r for r in out.index if r not in ("verifier", "total")]
    out.loc[parts, "gpu_hours"] *= factor
    out.loc["total", "gpu_hours"] = out.loc[parts, "gpu_hours"].sum()
    if "usd" in out:
        out.loc[parts, "usd"] *= factor
        out.loc["total", "usd"] = out.loc[parts + ["verifier"], "usd"].sum()
    return out


@disk_cached  # the same for every call with these arguments: core.diskcache
def scenario_variants(p: dict, changes: dict, price_usd_per_gpu_hour: float) -> pd.DataFrame:
    """``scenario_iteration`` of the scenario ``p`` under each change of ``changes`` (label ->
    scenario keys to replace, ``{}`` for the scenario itself), one row each::

        wall_s                 the iteration's wall time
        usd_per_iteration      GPU-hours × price
        generation_time_share  generation wall ÷ iteration wall (``RLIteration``)
        tail_share, idle_share the tail's and the idle GPUs' GPU-seconds ÷ the iteration's
        note                   the refusal of a change the scenario cannot run (its message
                               names the key), with no number

    A change that raises ``rl_response_tokens`` past ``rl_response_tokens_max`` raises the
    maximum with it (the longest response is at least the mean). Under DPO, a change of keys
    DPO does not read (``DPO_UNREAD_KEYS``) alone is a note with no number (a trial read rows
    "G = 64" and "partial rollouts" priced the same as the scenario); a change that also moves
    a key it reads is priced, and its note names the keys left unread."""
    price = as_scalar(price_usd_per_gpu_hour, "price_usd_per_gpu_hour", positive=True)
    if not isinstance(changes, dict) or not all(isinstance(c, dict) for c in changes.values()):
        raise ValueError(f"changes={changes!r} must map each label to a dict of scenario keys")
    rows = []
    for label, change in changes.items():
        q = {**p, **change}
        q["rl_response_tokens_max"] = max(q["rl_response_tokens_max"], q["rl_response_tokens"])
        moved = [k for k in change if q.get(k) != p.get(k)]
        unread = [k for k in moved if k in DPO_UNREAD_KEYS] if q["rl_algorithm"] == "dpo" else []
        said = (f"DPO reads no {', '.join(unread)} (no generation: a chosen and a rejected "
                "response per prompt)") if unread else ""
        if unread and len(unread) == len(moved):
            rows.append({"change": label, "note": said + ": the row would be the scenario's"})
            continue
        try:
            it = scenario_iteration(q)
        except ValueError as e:
            rows.append({"change": label, "note": str(e)})
            continue
        rows.append({"change": label, "wall_s": it.wall_s,
                     "usd_per_iteration": it.gpu_hours * price,
                     "generation_time_share": it.generation_time_share,
                     "tail_share": it.parts_gpu_s["tail"] / it.gpu_s,
                     "idle_share": it.parts_gpu_s["idle"] / it.gpu_s,
                     "note": said + (": priced without them" if said else "")})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------ published shares
#: A800 SXM 80GB: an A100-80GB with NVLink cut to 400 GB/s bidirectional (200 GB/s per
#: direction); compute and HBM as the A100 (judgement from NVIDIA's A800 product listing, the
#: export-control variant; not in data/accelerators.csv). Used for OpenRLHF's benchmark GPUs.
def a800() -> Accelerator:
    return load_accelerator("A100-80GB").replace(name="A800-80GB (A100, 200 GB/s NVLink)",
                                                scaleup_bytes_per_s_per_dir=2.0e11)


#: Each source's own set-up and the share it reports. ``measured`` is the source's number
#: (``bound``: "lower" when the source states only "more than"); ``setup`` the arguments of
#: ``rl_iteration`` taken from the source (each with where it is stated). Nothing here is
#: fitted. Where the source reports phase latencies they are kept too (``measured_gen_s``,
#: ``measured_train_s``) so the generation and the training rates are checked separately,
#: not only their ratio. ``sensitivity`` lists values of an *assumed* setting to rerun.
_DSCHAT_SETUP = dict(policy="opt-1.3b", accelerator="A100-40GB", algorithm="ppo",
                     prompts_per_step=128, samples_per_prompt=1, prompt_tokens=256,
                     response_tokens=256, reward=0.35e9, critic=0.35e9, n_gpus=8,
                     max_concurrent=16)
_DSCHAT_SOURCE = ("OPT-1.3B actor + OPT-350M reward/critic on one DGX of 8 A100-40G (blog "
                  "Figure 5); 256 prompt + 256 generated tokens (blog §5); "
                  "--per_device_generation_batch_size 16, --ppo_epochs 1 (DeepSpeedExamples "
                  "DeepSpeed-Chat step-3 training scripts). Old log-probabilities are "
                  "recomputed: DeepSpeedPPOTrainer.generate_experience "
                  "(applications/DeepSpeed-Chat/dschat/rlhf/ppo_trainer.py) runs the actor's "
                  "forward pass for 'logprobs' after generation, then the reference, reward "
                  "and critic forwards")
PUBLISHED_SHARES = [
    dict(source="DeepSpeed-Chat", quantity="generation share of FLOPs", measured=0.20,
         cited="'the generation phase comprises approximately 20% of the total computation' "
               "(microsoft/DeepSpeed blogs/deepspeed-chat/README.md, 'Effective Throughput "
               "Analysis'; Yao et al. 2023, arXiv:2308.01320)",
         setup=dict(_DSCHAT_SETUP), setup_source=_DSCHAT_SOURCE),
    dict(source="DeepSpeed-Chat", quantity="generation share of time", measured=None,
         cited="'majority of the time goes to the generation phase' (same blog, body text of "
               "'DeepSpeed Hybrid Engine', referring to the OPT-1.3B time breakdown: Figure 5 "
               "in blogs/deepspeed-chat/README.md, Figure 3 in the deepspeed.ai copy; no "
               "number given)",
         setup=dict(_DSCHAT_SETUP), setup_source="as above"),
    dict(source="OpenRLHF (colocated)", quantity="generation share of time", measured=0.782,
         cited="README: '80% of the time in RLHF training is spent on sample generation'; its "
               "benchmark table (OpenRLHF/OpenRLHF benchmark README, Llama2-7B, 'OpenRLHF', 8 "
               "GPUs): generation 920.81 s of 1177.78 s end to end = 78.2%",
         setup=dict(policy="llama-2-7b", accelerator="a800", algorithm="ppo",
                    prompts_per_step=1024, samples_per_prompt=1, prompt_tokens=1024,
                    response_tokens=1024, reward="llama-2-7b", critic="llama-2-7b",
                    n_gpus=8, max_concurrent=8, engine="HF generate",
                    train_plan=dict(zero_stage=2, micro_batch_size=8),
                    optimizer_offload=True, train_global_batch=128),
         phases="experience|update",
         measured_gen_s=920.81, measured_train_s=256.97,
         measured_gen_tflops=4.03, measured_train_tflops=115.52,
         setup_source="A800-SXM-80GB; max_prompt_seq_len = max_answer_seq_len = 1024 (taken as "
                      "the lengths); rollout_batch_size 1024; reward initialised from the actor "
                      "(same size); generation micro_batch_size 8 (table); 1 PPO epoch "
                      "(README); train_batch_size 128 (README: 8 optimizer steps per "
                      "iteration); optimizer on the host CPUs (--adam_offload in every PPO "
                      "example script of the benchmark's commit, examples/scripts/"
                      "train_ppo_llama*.sh @ 0baf3dd; the README's 'Common Configuration': 'DeepSpeed: "
                      "ZeRO2 with Adam Offload'; added after the table's errors had been seen)"),
    dict(source="OpenRLHF (Ray + vLLM)", quantity="generation share of time", measured=0.544,
         cited="OpenRLHF benchmark table, Llama2-7B, 'OpenRLHF(ray+vllm)', GPU ratio "
               "1:1:2:2:2: generation 481.86 s of 885.16 s = 54.4%",
         setup=dict(policy="llama-2-7b", accelerator="a800", algorithm="ppo",
                    prompts_per_step=1024, samples_per_prompt=1, prompt_tokens=1024,
                    response_tokens=1024, reward="llama-2-7b", critic="llama-2-7b",
                    n_gpus=8, rollout_gpus=2, max_concurrent=16, engine="vLLM",
                    train_plan=dict(zero_stage=2, micro_batch_size=8),
                    role_gpus=dict(reference=1, reward=1, actor=2, critic=2),
                    optimizer_offload=True, train_global_batch=128),
         phases="experience|update",
         measured_gen_s=481.86, measured_train_s=403.29,
         measured_gen_tflops=7.70, measured_train_tflops=75.02,
         setup_source="The table's GPU column is the ratio ref:reward:actor:critic:vLLM = "
                      "1:1:2:2:2 (the 16 beside it is the generation micro_batch_size). The "
                      "job has 8 GPUs: the end-to-end TFLOPs conserve the FLOPs of an "
                      "iteration across the 8-GPU rows, 28.08 x 8 x 1189.13 = 28.36 x 8 x "
                      "1177.78 = 37.73 x G x 885.16 gives G = 8.0, so 2 vLLM GPUs (TP 1). "
                      "Each of the 2 actor ranks sends its generation micro-batch of 16 "
                      "prompts to one vLLM engine: 16 sequences in flight per engine; each "
                      "model on its own GPUs (trainer/ray/ppo_actor.py: the reference, reward "
                      "and critic forwards run remotely beside the actor's). Other settings as "
                      "the colocated row"),
    dict(source="APRIL", quantity="generation share of time", measured=0.90, bound="lower",
         cited="'rollout generation accounting for more than 90% of total runtime' (Zhou et "
               "al. 2025, arXiv:2509.18521, abstract: a general statement about RL training, "
               "not a measurement of the set-up below)",
         setup=dict(policy="qwen3-4b", accelerator="H100-SXM", algorithm="grpo",
                    prompts_per_step=32, samples_per_prompt=8, prompt_tokens=512,
                    response_tokens=4096, response_tokens_max=16384, n_gpus=8, rollout_tp=2,
                    rollout_reserve_fraction=0.4, engine="SGLang"),
         sensitivity=dict(response_tokens=(1024, 2048, 4096, 8192)),
         setup_source="RLsys-Foundation/APRIL scripts/partial_rollout/qwen/grpo/"
                      "run-qwen3-4B-dapo.sh: Qwen3-4B, GRPO, --colocate on 8 GPUs, "
                      "--rollout-batch-size 32, --n-samples-per-prompt 8, "
                      "--rollout-max-response-len 16384, SGLang 2 GPUs per engine, "
                      "--sglang-mem-fraction-static 0.6. Mean response 4096 and prompt 512 are "
                      "assumptions (not stated): the share is rerun at means of 1,024-8,192. "
                      "The accelerator is an assumption too: the script runs on AMD GPUs "
                      "(HIP_VISIBLE_DEVICES, Megatron-LM-amd_version) without naming the model, "
                      "and its trainer runs TP 2 with sequence parallelism and full "
                      "recomputation; priced on H100-SXM with the default update plan "
                      "(DEFAULT_TRAIN_PLAN), not the script's GPU or plan"),
]


def published_generation_shares() -> pd.DataFrame:
    """The generation share of FLOPs and of time in each source's own set-up, beside the share
    the source reports, with the gap (model − measured). Nothing is fitted: lengths, batch
    occupancy and GPU split come from the source (``PUBLISHED_SHARES``).

    Where the source reports phase latencies (OpenRLHF's benchmark table), the model's phases
    sit beside them as the source's code measures them (``validation_phases``, "experience|update":
    OpenRLHF's generation phase holds the experience forwards, its training phase the updates and
    the weight broadcast), and so do the rates in the table's own convention: TFLOP/s = phase
    FLOPs ÷ (phase latency × all the job's GPUs), the convention the table's rows obey (the
    generation FLOPs 4.03 × 8 × 920.81 s = 7.70 × 8 × 481.86 s = 2.97e16 in both 8-GPU rows),
    with the training FLOPs of ``openrlhf/utils/perf.py`` (4 passes per token for actor and
    critic with gradient checkpointing: the model's 6N update × 4/3). The model's FLOPs are 2N/6N
    without attention, so its rates are a few percent below the table's for the same time.

    Returns
    -------
    DataFrame: source, quantity, measured, bound ("lower" for a "more than" statement, else
    ""), model, gap, consistent (for a lower bound: model ≥ measured; else None),
    model_min / model_max (the share over the ``sensitivity`` values of an assumed setting,
    else the model), model_flops_share, model_tail_share (the tail's share of the GPU-time),
    gen_s / measured_gen_s and train_s / measured_train_s (wall seconds of the two phases),
    gen_tflops_per_gpu / measured_gen_tflops and train_tflops_per_gpu /
    measured_train_tflops (the table's convention above), cited, setup_source.
    """
    rows = []
    for row in PUBLISHED_SHARES:
        def run(**change):
            kw = {**row["setup"], **change}
            if kw.pop("accelerator") == "a800":
                acc = a800()
                kw.setdefault("efficiency", load_efficiency("A100-80GB"))
            else:
                acc = row["setup"]["accelerator"]
            return rl_iteration(kw.pop("policy"), acc, **kw)

        phases = row.get("phases", "step")

        def share(it):
            if "FLOPs" in row["quantity"]:
                return it.generation_flops_share
            total, gen, _ = validation_phases(it, phases)
            return gen / total

        it = run()
        _, gen_s, train_s = validation_phases(it, phases)
        model = share(it)
        sens = [share(run(**{k: v})) for k, vals in row.get("sensitivity", {}).items()
                for v in vals] or [model]
        m = row["measured"]
        bound = row.get("bound", "")
        train_flops = sum(v for k, v in it.flops.items() if k != "generation") \
            if phases == "step" else it.flops["policy_update"] * 4 / 3
        rows.append({"source": row["source"], "quantity": row["quantity"], "measured": m,
                     "bound": bound, "model": model, "gap": None if m is None else model - m,
                     "consistent": (model >= m) if bound == "lower" else None,
                     "model_min": min(sens), "model_max": max(sens),
                     "model_flops_share": it.generation_flops_share,
                     "model_tail_share": it.parts_gpu_s["tail"] / it.gpu_s,
                     "gen_s": gen_s, "measured_gen_s": row.get("measured_gen_s"),
                     "train_s": train_s, "measured_train_s": row.get("measured_train_s"),
                     "gen_tflops_per_gpu": it.flops["generation"] / (gen_s * it.n_gpus) / 1e12,
                     "measured_gen_tflops": row.get("measured_gen_tflops"),
                     "train_tflops_per_gpu": train_flops / (train_s * it.n_gpus) / 1e12,
                     "measured_train_tflops": row.get("measured_train_tflops"),
                     "cited": row["cited"], "setup_source": row["setup_source"]})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------ validation
#: Prompt tokens assumed where a source gives the mean generated length but nothing that
#: counts the prompts (NeMo RL's v0.3 blog: "Avg. generated tokens per sample", on
#: OpenMathInstruct-2's short math problems with a chat template): an assumption, not a
#: published figure; the longest response is the maximum total minus it (``row_lengths``).
ASSUMED_PROMPT_TOKENS = 256
#: Validation modes: "before" prices generation at the raw roofline with continuous batching for
#: every engine, every training pass at the flat ``DEFAULT_TRAIN_MFU``, one iteration in flight
#: on the rollout engine whatever the asynchronous depth, and refuses rollout TP beyond one
#: scale-up domain (the iteration before the engine, step-time, asynchronous-depth and
#: multi-node mechanisms); "model" is ``rl_iteration`` as it stands; "scenario" is the row as a
#: scenario can state it (``SCENARIO_SETTABLE``), every other setting at ``rl_iteration``'s
#: default, the bill's own path (``scenario_iteration``): vLLM rollouts, the update's plan
#: searched, the weight sync by links.
VALIDATION_MODES = ("before", "model", "scenario")
#: The "scenario" mode with each row stated with its framework release too (``row_framework``,
#: ``framework_options``): what a scenario's ``rl_framework`` key prices. Kept out of
#: ``VALIDATION_MODES`` (the notebook's and the benchmark's three-mode tables).
FRAMEWORK_MODE = "framework"
#: ``validation_setup``'s keywords a scenario's ``rl_`` keys can set (``SCENARIO_KEYS``).
SCENARIO_SETTABLE = ("policy", "accelerator", "algorithm", "prompts_per_step",
                     "samples_per_prompt", "prompt_tokens", "response_tokens",
                     "response_tokens_max", "reward", "n_gpus", "rollout_gpus", "rollout_tp",
                     "asynchronous")


def load_rl_validation() -> pd.DataFrame:
    """``data/rl_iterations.csv``: published RL iteration (and, where given, generation and
    training phase) times with their set-ups and sources, one row per run.

    Columns: id, system, split ("calibration": fits ``HF_GENERATE_S_PER_LAYER_STEP``;
    "heldout": judged only; "not_evaluated": a model not in the catalogue), the set-up (model,
    catalog_model, accelerator, n_gpus, algorithm, on_policy, placement, generation_gpus,
    engine, rollout_tp, gen_micro_batch, gen_memory_utilization (vLLM's
    ``gpu_memory_utilization``), off_policy_steps (``max_trajectory_age_steps``),
    prompts_per_step, samples_per_prompt,
    prompt_tokens_max, response_tokens_max, avg_sequence_tokens (NeMo RL's v0.4/v0.6 "G-Average
    Seq len", the mean generated length; v0.3: the blog's mean generated tokens plus
    ``ASSUMED_PROMPT_TOKENS``: ``row_lengths``), train_tp/pp/cp/ep,
    zero_stage, train_micro_batch, reference, critic, reward, train_global_batch (sequences
    per optimizer step: NeMo RL's T-GBS, OpenRLHF's train_batch_size), actor_gpus /
    critic_gpus / reference_gpus / reward_gpus (OpenRLHF Ray's GPUs per model, the table's GPU
    ratio; blank when the models share the GPUs)), the measurements (measured_iteration_s,
    measured_generation_s, measured_train_s), measured_quote (the published cells, as stated),
    phases_measured and phase_definition (what the source's code puts in each phase:
    ``PHASES_MEASURED``), added ("v1": the first table; "v2", "v3": rows added later, each
    batch committed before any error of theirs was computed; v3 = NeMo RL v0.3's blog rows with
    published phases), optimizer_offload ("cpu": the trained models' optimizer runs on the host
    CPUs, DeepSpeed-Chat's ``--offload`` and OpenRLHF's ``--adam_offload``; blank: on the GPUs)
    and source, source_ref (repository path @ commit), setup_source (where each setting is
    stated), recompute / recompute_source (``row_recompute``), vllm_api / vllm_api_source (the
    vLLM engine object each NeMo RL recipe builds: ``row_max_concurrent``),
    tokens_per_s_per_gpu / tokens_per_s_per_gpu_quote (NeMo RL v0.4/v0.6's "Tokens / sec /
    GPU" cell, prompt and response counted: ``row_lengths``), vllm_version /
    vllm_version_source (the vLLM release the system pinned, blank without vLLM:
    ``vllm_piecewise_graphs``).
    """
    return pd.read_csv(DATA_DIR / "rl_iterations.csv")


#: What a source's published phases hold (``data/rl_iterations.csv`` column ``phases_measured``,
#: read from each framework's timing code, quoted in ``phase_definition``):
#: "generate|update": generation = sequence generation only, training = the PPO updates, and
#: the published end-to-end is their sum, without the experience forwards (DeepSpeed-Chat's
#: step-3 ``main.py``: "e2e_time = training_time + trainer.generate_time *
#: args.generation_batches  # it is an approximation, we did not include, e.g., rw forward time");
#: "experience|update": generation = the whole experience making (generation, then the actor's,
#: reference's, reward's and critic's forward passes), training = the updates and the weight
#: broadcast, end-to-end their sum (OpenRLHF's ``PPOTrainer.fit``); "step": one step time,
#: no phases (NeMo RL: "training, generation, policy logprobs, and refit time").
PHASES_MEASURED = ("generate|update", "experience|update", "step")


def validation_phases(it: RLIteration, phases: str) -> tuple:
    """(iteration s, generation phase s, training phase s) of ``it`` as the source measures them
    (``PHASES_MEASURED``)::

        generate|update:    gen = generation             train = update + sync   total = sum
        experience|update:  gen = generation + experience train = update + sync  total = sum
        step:               gen = generation             train = experience + update
                            total = the iteration's wall (``rl_iteration``)

    (The phase mapping was added after the held-out errors had been seen: it is read from the
    frameworks' timing code, not fitted.)"""
    sync = it.parts_gpu_s["weight_sync"] / it.n_gpus
    if phases == "generate|update":
        gen, train = it.generation_wall_s, it.update_wall_s + sync
    elif phases == "experience|update":
        gen, train = it.generation_wall_s + it.experience_wall_s, it.update_wall_s + sync
    elif phases == "step":
        return it.wall_s, it.generation_wall_s, it.train_wall_s
    else:
        raise ValueError(f"phases={phases!r} must be one of {PHASES_MEASURED}")
    return gen + train, gen, train


def _opt_int(v):
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else int(v)


def _opt_float(v):
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)


def validation_setup(row) -> dict:
    """``rl_iteration`` keywords for one row of ``load_rl_validation`` (policy and accelerator
    included). OpenRLHF's rows take the maximum prompt and answer (1,024 each) as the lengths
    (every response at the limit: an upper bound for OpenRLHF's own rows, whose generation at
    the benchmark's commit stops at the end-of-sequence token, ``Actor.generate`` with
    ``min_new_tokens`` 1 and vLLM ``SamplingParams`` with ``max_tokens`` only, and for
    DeepSpeed-Chat's rows too: its blog's benchmark setting "generate[s] fixed-length answer"
    (BenckmarkSetting.md), but the code OpenRLHF's benchmark ran,
    microsoft/DeepSpeedExamples applications/DeepSpeed-Chat @ 6863634
    dschat/rlhf/ppo_trainer.py ``_generate_sequence``, generates greedily (``do_sample=False``
    for Llama) with ``max_length`` only (its ``min_length`` commented out in 9cf985e4, #620,
    the commented line deleted in 811683a4, #636), so each generation batch ends when all its
    rows have ended (``benchmark_phase_reading``); the
    lengths of neither system's responses are published); NeMo RL's rows take the prompt and
    the mean response ``row_lengths`` gives and a lognormal tail of responses up to T-Max less
    the prompt (``response_lengths``). Every row
    recomputes the policy's log-probabilities before the update: OpenRLHF's experience maker
    runs the actor's forward pass, and NeMo RL's step time "includes training, generation,
    policy logprobs, and refit time" (its performance summary). This setting was added after
    the held-out errors had been seen (a set-up fact from the sources, not a fitted value).
    So were, later, the rollout engine's memory share (``gen_memory_utilization``: vLLM's
    ``gpu_memory_utilization``, 0.6 in NeMo RL's base GRPO config for colocated runs, 0.8 in its
    asynchronous recipes; the rest is ``rollout_reserve_fraction``; blank: vLLM's default 0.9)
    and the asynchronous depth (``off_policy_steps``: the recipes' ``max_trajectory_age_steps``).
    NeMo RL's colocated rows refit with NeMo RL's measured refit of the version they ran
    (``row_refit``, ``nemo_rl_refit_time``: sourced measurements of the refit alone, not fitted
    on these rows; added, too, after the held-out errors had been seen). OpenRLHF's Ray rows
    put each model on
    its own GPUs (``role_gpus`` from the table's GPU ratio, e.g. 1:1:2:2:2 = reference 1,
    reward 1, actor 2, critic 2 beside 2 vLLM GPUs; added after the held-out errors had been
    seen, read from the table and ``trainer/ray/ppo_actor.py``). DeepSpeed-Chat's and OpenRLHF's
    rows offload the actor's and the critic's optimizer to the host CPUs (``optimizer_offload``:
    the row's ``optimizer_offload`` "cpu", read from DeepSpeed-Chat's benchmark script and
    OpenRLHF's example scripts; priced by ``optimizer_offload_time`` with one optimizer step per
    ``train_global_batch`` sequences; added after the held-out errors had been seen, with
    global constants from DeepSpeed's own measurement, not fitted on these rows). NeMo RL's rows
    move model state between GPU and host memory each step as its Megatron policy worker does
    (``host_swaps``, ``nemo_rl_swap_bytes``; read from its code after the held-out errors had
    been seen, not fitted). Sequence packing: ``row_pack_tokens``; activation recomputation as
    each row's configuration sets it: ``row_recompute``; the engine's cap on concurrent
    sequences: ``row_max_concurrent``; DeepSpeed's reduction: ``row_deepspeed_reduction``;
    the rollout's CUDA graphs: ``vllm_piecewise_graphs`` of the row's ``vllm_version``."""
    r = dict(row)
    is_a800 = str(r["accelerator"]).startswith("A800")
    acc = a800() if is_a800 else r["accelerator"]
    p, mean, mx = row_lengths(r)
    colocated = r["placement"] == "colocated"
    plan = dict(tp=int(r["train_tp"]), pp=int(r["train_pp"]), cp=int(r["train_cp"]),
                ep=int(r["train_ep"]), micro_batch_size=int(r["train_micro_batch"]),
                recompute=row_recompute(r), etp=_opt_int(r.get("train_etp")))
    if _opt_int(r.get("zero_stage")) is not None:
        plan["zero_stage"] = int(r["zero_stage"])
    n_layers = inf.serving_model(r["catalog_model"]).n_layers
    if plan["pp"] > 1 and n_layers % plan["pp"]:
        # uneven first/last stages (NeMo's recipes): the embedding and the loss as a stage's
        # worth of layers if that divides, else any split (DeepSeek-V3's recipe
        # grpo-deepseek-v3-32n8g.yaml: num_layers_in_first_pipeline_stage 3, last 2, PP 16)
        plan["pp_split"] = "embedding_and_loss" if (n_layers + 2) % plan["pp"] == 0 \
            else "uneven"
    return dict(policy=r["catalog_model"], accelerator=acc, algorithm=r["algorithm"],
                prompts_per_step=int(r["prompts_per_step"]),
                samples_per_prompt=int(r["samples_per_prompt"]), prompt_tokens=p,
                response_tokens=mean, response_tokens_max=mx,
                reward="verifier" if r["reward"] == "verifier" else r["reward"],
                critic=None if pd.isna(r.get("critic")) else r["critic"],
                n_gpus=int(r["n_gpus"]), rollout_gpus=0 if colocated else int(r["generation_gpus"]),
                rollout_tp=int(r["rollout_tp"]), max_concurrent=row_max_concurrent(r),
                asynchronous=not bool(r["on_policy"]), engine=r["engine"], train_plan=plan,
                off_policy_steps=_opt_int(r.get("off_policy_steps")) or 1,
                rollout_reserve_fraction=row_reserve_fraction(r),
                recompute_old_logprobs=True, refit=row_refit(r),
                role_gpus=_role_gpus(r), **row_offload(r), **row_deepspeed_reduction(r),
                train_global_batch=_opt_int(r.get("train_global_batch")),
                host_swaps=r["system"] == "NeMo RL",
                rollout_piecewise_graphs=vllm_piecewise_graphs(r.get("vllm_version")),
                pack_tokens=row_pack_tokens(r),
                hf_host_overlap=row_hf_host_overlap(r),
                experience_interleaved=row_experience_interleaved(r),
                efficiency=load_efficiency("A100-80GB") if is_a800 else None)


def row_reserve_fraction(r: dict) -> float:
    """The HBM a row's rollout engine leaves unused: 1 − its ``gen_memory_utilization`` (vLLM's
    ``gpu_memory_utilization``), blank: ``inference.SERVING_RESERVE`` (vLLM's default 0.9)."""
    util = _opt_float(r.get("gen_memory_utilization"))
    return inf.SERVING_RESERVE if util is None else 1.0 - util


def row_lengths(r: dict) -> tuple:
    """(prompt tokens, mean response tokens, longest response or None) of a validation row.

    * OpenRLHF's and DeepSpeed-Chat's rows (no ``avg_sequence_tokens``): the maximum prompt and
      answer, every response at the limit (``validation_setup``).
    * NeMo RL's v0.4 and v0.6 rows (a ``tokens_per_s_per_gpu`` cell): the summary's "G-Average
      Seq len" (``avg_sequence_tokens``) is the mean **generated** length, and its "Tokens /
      sec / GPU" counts prompt and response, so the row's own cells give its mean prompt::

          total per sample = tokens/s/GPU × step time × GPUs ÷ (prompts × G)
          prompt P = round(total per sample − G-Average Seq len)
          mean response = G-Average Seq len      longest response = T-Max − P

      Sources: NVIDIA-NeMo/RL nemo_rl/algorithms/utils.py @ 5fb5889 l. 723-724
      (``e2e_tokens_per_sec_per_gpu = metrics["total_num_tokens"] / total_time /
      total_num_gpus``; v0.4: l. 642-643 @ 06beed9) with grpo.py l. 1888
      (``"total_num_tokens": input_lengths``, the lengths of each sample's flattened message
      log, prompt + response, l. 1701, summed over the step) and the summary's formula
      ("Total Tokens Processed / (Time for Stage × Number of GPUs)"); the per-sample means
      NeMo RL logs are ``mean_gen_tokens_per_sample`` ("Mean Generation Length") and
      ``mean_total_tokens_per_sample`` (nemo_rl/experience/rollouts.py l. 583-588). Over the
      27 GRPO rows of the v0.4 and v0.6 tables (five models, H100 and GB200) the total per sample
      exceeds "G-Average Seq len" by a near-constant 98-136 tokens (four asynchronous rows
      more, 157-1,059, the table averaging five steps) while their ratio runs from 1.02
      (5,700-token Qwen3-235B rows) to 1.16 (700-token DeepSeek-V3 rows): an added prompt, not
      a scale error. By hand, v0.6 DeepSeek-V3 on 256 H100: 12.1 × 134 × 256 ÷ 512 = 810.7, P =
      811 − 701 = 110. Before this (read after the held-out errors had been seen), the cell
      was taken as prompt + response with ``ASSUMED_PROMPT_TOKENS`` of prompt, pricing
      DeepSeek-V3's responses at 445 tokens instead of 701.
    * NeMo RL's v0.3 rows (the blog's mean generated tokens + ``ASSUMED_PROMPT_TOKENS`` in
      ``avg_sequence_tokens``, no throughput cell): P = ``ASSUMED_PROMPT_TOKENS``, mean
      response = ``avg_sequence_tokens`` − P (the published figure), longest = T-Max − P.

    Raises
    ------
    ValueError
        A derived prompt that is not positive or leaves no room for a response below T-Max
        (the row and the figures named)."""
    if pd.isna(r.get("avg_sequence_tokens")):
        return int(r["prompt_tokens_max"]), float(r["response_tokens_max"]), None
    t_max, g = float(r["response_tokens_max"]), float(r["avg_sequence_tokens"])
    tps = _opt_float(r.get("tokens_per_s_per_gpu"))
    if tps is None:
        p = ASSUMED_PROMPT_TOKENS
        return p, g - p, t_max - p
    total = tps * float(r["measured_iteration_s"]) * int(r["n_gpus"]) \
        / (int(r["prompts_per_step"]) * int(r["samples_per_prompt"]))
    p = round(total - g)
    if not 0 < p < t_max - g:
        raise ValueError(f"row {r.get('id')!r}: tokens_per_s_per_gpu={tps:g} gives {total:.0f} "
                         f"tokens per sample, a prompt of {p} beside G-Average Seq len {g:g}: "
                         f"it must be > 0 and leave the mean response below T-Max {t_max:g}")
    return p, g, t_max - p


def row_pack_tokens(r: dict) -> int | None:
    """``pack_tokens`` of a validation row: NeMo RL's ``max_total_sequence_length ×
    train_micro_batch_size`` (the T-Max column times train_micro_batch), None for the other
    systems. Every row's update is priced one optimizer step of
    ``train_global_batch`` sequences at a time, and NeMo RL's rows pack sequences into
    micro-batches of ``max_total_sequence_length × train_micro_batch_size`` tokens (the
    T-Max column times train_micro_batch: ``sequence_packing`` enabled in the base configs
    examples/configs/grpo_math_1B.yaml @ c751f811 and @ 5fb5889, grpo_math_1B_megatron.yaml @
    b1c86a8, and stated by the v0.3 blog, whose statement is taken for its Qwen3-30B-A3B row
    though grpo_math_qwen30ba3b_megatron.yaml @ b1c86a8 sets it false; ``pack_tokens``, ``optimizer_batch``; added after
    the held-out errors had been seen, read from the code and configs, not fitted)."""
    if r["system"] != "NeMo RL":
        return None
    return int(r["response_tokens_max"]) * int(r["train_micro_batch"])


def row_offload(r: dict) -> dict:
    """The CPU-offload keywords of a validation row: ``optimizer_offload`` (its
    ``optimizer_offload`` column "cpu"), ``offload_pageable`` (a ``UNPINNED_OFFLOAD_SYSTEMS``
    row: DeepSpeed-Chat's pageable host buffers), ``offload_staged_copy`` (a
    ``STAGED_COPY_SYSTEMS`` row: OpenRLHF's DeepSpeed 0.13.2 copies the updated parameters back
    through a pageable temporary, ``staged_copy_excess_time``; on by the rule,
    ``staged_copy_check``) and ``critic_zero_stage`` (3 on a
    ``ZERO3_CRITIC_SYSTEMS`` row, else None: the plan's); their sources beside those constants.
    The pageable reading, judged by ``unpinned_offload_check``, went on when the rule put it on
    (after DeepSpeed-Chat's SDPA steps overlapped HF generate's host cost,
    ``hf_host_overlaps``); nothing fitted."""
    return dict(optimizer_offload=str(r.get("optimizer_offload")) == "cpu",
                offload_pageable=r["system"] in UNPINNED_OFFLOAD_SYSTEMS,
                offload_staged_copy=r["system"] in STAGED_COPY_SYSTEMS,
                critic_zero_stage=3 if r["system"] in ZERO3_CRITIC_SYSTEMS else None)


def row_hf_host_overlap(r: dict) -> bool:
    """``hf_host_overlap`` of a validation row: for the rows that generate with HF generate, the
    attention its system ran (``HF_ATTENTION_BY_SYSTEM``) by ``hf_host_overlaps``
    (DeepSpeed-Chat: SDPA, True; OpenRLHF: FlashAttention-2, False); False for every other
    engine (the flag acts on HF generate alone). Read from the systems' code after the held-out
    errors had been seen, not fitted.

    Raises
    ------
    ValueError
        An HF generate row of a system without a known attention (the row and system named)."""
    if r["engine"] != "HF generate":
        return False
    attention = HF_ATTENTION_BY_SYSTEM.get(r["system"])
    if attention is None:
        raise ValueError(f"row {r.get('id')!r}: system={r['system']!r} generates with HF "
                         f"generate and must be one of {tuple(HF_ATTENTION_BY_SYSTEM)} "
                         "(its attention implementation)")
    return hf_host_overlaps(attention)


#: Systems whose experience maker has each actor rank generate one micro-rollout batch and wait
#: only for that batch's forwards before the next (``RLOptions.experience_interleaved``):
#: OpenRLHF's Ray trainer (openrlhf/trainer/ppo_utils/experience_maker.py
#: ``RemoteExperienceMaker.make_experience`` @ 0baf3dd44d01f5744c2580bdd99db83ba59e1e04).
EXPERIENCE_INTERLEAVED_SYSTEMS = ("OpenRLHF",)


def row_experience_interleaved(r: dict) -> bool:
    """``experience_interleaved`` of a validation row: True for the rows of
    ``EXPERIENCE_INTERLEAVED_SYSTEMS`` with the models on their own GPUs (``role_gpus``: the
    Ray rows), False for every other (colocated models run the forwards one after another on
    the same GPUs). Read from OpenRLHF's code after the held-out errors had been seen, not
    fitted."""
    return r["system"] in EXPERIENCE_INTERLEAVED_SYSTEMS and _role_gpus(r) is not None


def row_recompute(r: dict) -> str:
    """The activation recomputation a validation row's trainer ran (its ``recompute`` column,
    one of ``core.model.RECOMPUTE_MODES``), read from the row's own configuration and cited in
    its ``recompute_source``: "full" where NeMo RL's recipe sets
    ``policy.megatron_cfg.activation_checkpointing: true`` (its Megatron setup then sets
    ``recompute_granularity = "full"``, ``recompute_method = "uniform"``,
    ``recompute_num_layers = 1``: NVIDIA-NeMo/RL nemo_rl/models/policy/megatron_policy_worker.py
    @ c751f811, nemo_rl/models/megatron/setup.py @ 5fb5889) and where DeepSpeed-Chat's and
    OpenRLHF's scripts pass ``--actor_gradient_checkpointing`` / ``--gradient_checkpointing``
    (Hugging Face ``gradient_checkpointing_enable``: every decoder layer recomputed); "none"
    where the config leaves NeMo RL's base ``activation_checkpointing: false`` (the
    Qwen3-30B-A3B and Qwen3-32B performance recipes, the v0.3.0 Megatron configs). Replaces
    one global "full" for every row (the column was added after the held-out errors had been
    seen; it is read from the configs, not chosen by its effect on them).

    Raises
    ------
    ValueError
        A blank or unknown setting (the row and the value named)."""
    v = r.get("recompute")
    if not isinstance(v, str) or v not in RECOMPUTE_MODES:
        raise ValueError(f"row {r.get('id')!r}: recompute={v!r} must be one of "
                         f"{RECOMPUTE_MODES} (data/rl_iterations.csv)")
    return v


#: The systems of ``data/rl_iterations.csv`` whose trainer is DeepSpeed (``deepspeed_dp_overlap``).
DEEPSPEED_SYSTEMS = ("DeepSpeed-Chat", "OpenRLHF")
#: The precision recipe of a DeepSpeed ZeRO update (``training.memory.RECIPES``): 16-bit weights
#: and gradients, the gradients reduced in the 16-bit training type (deepspeedai/DeepSpeed @
#: v0.13.2 ``runtime/engine.py`` ``communication_data_type``: the config's, else float16 under
#: fp16, bfloat16 under bf16; ``zero/stage_1_and_2.py`` reduces in it), FP32 master weights and
#: Adam moments. Neither DeepSpeed-Chat's nor OpenRLHF's config sets ``communication_data_type``
#: (OpenRLHF's ``data_types.grad_accum_dtype`` fp32 is the accumulation type of DeepSpeed's BF16
#: optimizer, not the ZeRO-2 reduction's).
DEEPSPEED_RECIPE = "bf16_adam"


def deepspeed_dp_overlap(zero_stage: int, overlap_comm: bool | None = None) -> bool:
    """Whether DeepSpeed overlaps a ZeRO trainer's gradient reduction with the backward: the
    config's ``zero_optimization.overlap_comm`` if set, else DeepSpeed's default, on at ZeRO-3
    only::

        dp_overlap = overlap_comm            if the config sets it
                   = (zero_stage == 3)       otherwise

    Source: deepspeedai/DeepSpeed @ v0.13.2 (18179807, the version of OpenRLHF's benchmark),
    ``deepspeed/runtime/zero/config.py`` ``overlap_comm_valid``: ``field_value = values["stage"]
    == ZeroStageEnum.weights`` when unset; without it ``stage_1_and_2.py`` ``average_tensor``
    reduces each gradient bucket on ``get_accelerator().current_stream()``, the stream the
    backward computes on, so the reduction waits for and holds up the backward (ZeRO-2 reduces
    every micro-batch's gradients, ``reduce_ready_partitions_and_remove_grads``). In the
    step-time model it is ``dp_overlap`` (``step.zero_exposure``: without it every collective
    is exposed in full). Neither DeepSpeed-Chat's ``get_train_ds_config``
    (microsoft/DeepSpeedExamples applications/DeepSpeed-Chat/dschat/utils/ds_utils.py @ 6863634)
    nor OpenRLHF's (openrlhf/utils/deepspeed_utils.py @ 0baf3dd) sets ``overlap_comm``.
    Added after the held-out errors had been seen (read from the code, not fitted).

    Raises
    ------
    ValueError
        A ZeRO stage outside 0-3, or an ``overlap_comm`` that is not True, False or None.
    """
    if isinstance(zero_stage, bool) or not isinstance(zero_stage, (int, np.integer)) \
            or not 0 <= zero_stage <= 3:
        raise ValueError(f"zero_stage={zero_stage!r} must be a whole number from 0 to 3")
    if overlap_comm is not None and not isinstance(overlap_comm, bool):
        raise ValueError(f"overlap_comm={overlap_comm!r} must be True, False or None")
    return bool(zero_stage == 3) if overlap_comm is None else overlap_comm


def row_deepspeed_reduction(r: dict) -> dict:
    """A validation row's DeepSpeed gradient reduction as ``RLOptions`` keywords:
    ``train_dp_overlap`` = DeepSpeed's default for the row's ZeRO stage
    (``deepspeed_dp_overlap``, no ``overlap_comm`` set), ``train_recipe`` =
    ``DEEPSPEED_RECIPE`` and ``deepspeed_allreduce`` (its ZeRO-2 all-reduce,
    ``deepspeed_allreduce_times``; on by the rule, ``deepspeed_allreduce_check``, after the
    held-out errors had been seen) when its system trains with DeepSpeed
    (``DEEPSPEED_SYSTEMS``); {} for any other (NeMo RL's Megatron trainer keeps the stack's). On the model
    (``validation_setup``) since after the held-out errors had been seen, by the share goal's
    rule (``deepspeed_overlap_check``)."""
    if r.get("system") not in DEEPSPEED_SYSTEMS:
        return {}
    z = _opt_int(r.get("zero_stage"))
    return {"train_dp_overlap": deepspeed_dp_overlap(
        DEFAULT_TRAIN_PLAN["zero_stage"] if z is None else z), "train_recipe": DEEPSPEED_RECIPE,
        "deepspeed_allreduce": True}


#: vLLM's default cap on the sequences one engine runs at once (``max_num_seqs``) when the
#: caller sets none, by the engine object built (vllm-project/vllm, the versions NeMo RL pins:
#: 0.9.0 at v0.3.0, 0.10.0 at v0.4.0, 0.11.2 at v0.5.0, 0.17.1 at v0.6.0, pyproject.toml).
#: ``AsyncLLM``: 128.
#: ``AsyncLLM.from_engine_args`` passes ``UsageContext.ENGINE_CONTEXT``
#: (vllm/v1/engine/async_llm.py, 0.10.0 l. 176-186, 0.17.1 l. 240-250), which the engine
#: arguments' table of defaults does not hold (0.10.0 vllm/engine/arg_utils.py l. 1652-1654:
#: set only ``if usage_context in default_max_num_seqs``; 0.17.1 l. 2121-2125:
#: ``default_max_num_seqs.get(usage_context, SchedulerConfig.DEFAULT_MAX_NUM_SEQS)``), so the
#: scheduler's own default holds (0.10.0 vllm/config.py l. 2388-2389 ``self.max_num_seqs =
#: 128``; 0.17.1 vllm/config/scheduler.py l. 43 ``DEFAULT_MAX_NUM_SEQS = 128``).
VLLM_ASYNC_DEFAULT_MAX_NUM_SEQS = 128
#: ``LLM`` (``UsageContext.LLM_CLASS``): 1024 on a GPU of at least 70 GiB that is not an A100,
#: 256 otherwise (0.10.0 arg_utils.py l. 1584-1603, 0.17.1 l. 1974-1993, "For GPUs like H100
#: and MI300x, use larger default values"; 0.9.0 l. 1495-1508 and 1545-1546 give the same
#: numbers whatever the usage context).
VLLM_LLM_DEFAULT_MAX_NUM_SEQS = (1024, 256)
VLLM_LARGE_GPU_BYTES = 70 * 2 ** 30
VLLM_APIS = ("LLM", "AsyncLLM")


def vllm_default_max_num_seqs(api: str, accelerator) -> int:
    """vLLM's ``max_num_seqs`` when the caller sets none: ``VLLM_ASYNC_DEFAULT_MAX_NUM_SEQS``
    (128) for an ``AsyncLLM`` engine; for an ``LLM`` one, ``VLLM_LLM_DEFAULT_MAX_NUM_SEQS``:
    1024 where the GPU holds at least 70 GiB and is not an A100, else 256 (sources beside the
    constants). By hand: H100-SXM (80 GiB) 1024, A100-80GB 256, any GPU with AsyncLLM 128.

    Raises
    ------
    ValueError
        ``api`` not one of ``VLLM_APIS``."""
    if api not in VLLM_APIS:
        raise ValueError(f"vllm_api={api!r} must be one of {VLLM_APIS}")
    if api == "AsyncLLM":
        return VLLM_ASYNC_DEFAULT_MAX_NUM_SEQS
    acc = inf.serving_accelerator(accelerator)
    large = (acc.hbm_bytes or 0) >= VLLM_LARGE_GPU_BYTES and "a100" not in acc.name.lower()
    return VLLM_LLM_DEFAULT_MAX_NUM_SEQS[0 if large else 1]


def row_max_concurrent(r: dict) -> int | None:
    """``max_concurrent`` of a validation row: its ``gen_micro_batch`` where the table gives
    one (OpenRLHF's and DeepSpeed-Chat's micro-batches), else, for NeMo RL's rows, vLLM's
    default ``max_num_seqs`` for the engine object the row's recipe builds (its ``vllm_api``
    column, cited in ``vllm_api_source``: ``AsyncLLM`` where the recipe sets
    ``vllm_cfg.async_engine: true``, ``LLM`` otherwise; no recipe sets ``max_num_seqs``), by
    ``vllm_default_max_num_seqs``; None (the KV-cache capacity) for any other row. Read from
    the recipes and vLLM's code after the held-out errors had been seen, not fitted: it caps
    NeMo RL's asynchronous Qwen3-30B-A3B rows' replicas at 128 sequences (256 to 512 asked).

    Raises
    ------
    ValueError
        A NeMo RL row without a known ``vllm_api`` (the row and the value named)."""
    cap = _opt_int(r.get("gen_micro_batch"))
    if cap is not None or r["system"] != "NeMo RL":
        return cap
    api = r.get("vllm_api")
    if not isinstance(api, str) or api not in VLLM_APIS:
        raise ValueError(f"row {r.get('id')!r}: vllm_api={api!r} must be one of {VLLM_APIS} "
                         "(data/rl_iterations.csv)")
    acc = a800() if str(r["accelerator"]).startswith("A800") else r["accelerator"]
    return vllm_default_max_num_seqs(api, acc)


def row_refit(r: dict) -> str:
    """``refit`` of a validation row: "links" for the other systems; NeMo RL's rows refit by the
    path of the version they ran, "nemo-rl" (v0.3.0's per-group CUDA-IPC handles, the rows whose
    ``source_ref`` is at b1c86a8, all colocated) or "nemo-rl-v0.4" (the v0.4 and v0.6 rows:
    colocated, the streamed refit, ``NEMO_RL_ZMQ_REFIT_S``; separate rollout GPUs, the
    overlapped NCCL broadcast, ``NEMO_RL_NCCL_REFIT_S``; the version read from the code after
    the held-out errors had been seen, not chosen by its effect)."""
    if r["system"] != "NeMo RL":
        return "links"
    return "nemo-rl" if "b1c86a8" in str(r["source_ref"]) else "nemo-rl-v0.4"


def _role_gpus(r: dict) -> dict | None:
    """``role_gpus`` of a validation row: its actor/critic/reference/reward_gpus columns, None
    when blank (the models share the GPUs)."""
    roles = {k: _opt_int(r.get(f"{k}_gpus")) for k in ROLES}
    roles = {k: v for k, v in roles.items() if v is not None}
    return roles or None


def row_framework(r: dict) -> str:
    """``rl_framework`` of a validation row (``RL_FRAMEWORKS``): a NeMo RL row's release, read
    from the vLLM it ran (``NEMO_RL_RELEASES``: each release pins one; the v0.4 rows' commit
    06beed9, after the v0.4.0 tag, pins 0.10.0 as v0.4.0 does); "generic" for any other system.

    Raises
    ------
    ValueError
        A NeMo RL row whose ``vllm_version`` no release pins (the row and value named)."""
    if r["system"] != "NeMo RL":
        return "generic"
    by_vllm = {v: k for k, (_, v) in NEMO_RL_RELEASES.items()}
    v = r.get("vllm_version")
    if v not in by_vllm:
        raise ValueError(f"row {r.get('id')!r}: vllm_version={v!r} must be one of "
                         f"{tuple(by_vllm)} (a NeMo RL release's, NEMO_RL_RELEASES)")
    return by_vllm[v]


def _framework_change(row, kw: dict) -> dict:
    """``framework_options`` of a row stated as a scenario with its framework (``row_framework``;
    the packed sequence: the row's longest prompt + response, NeMo RL's T-Max)."""
    p, _, mx = row_lengths(dict(row))
    return framework_options(row_framework(dict(row)), kw["accelerator"],
                             asynchronous=kw["asynchronous"],
                             sequence_tokens=int(row["response_tokens_max"])
                             if row["system"] == "NeMo RL" else p + (mx or 0))


def validation_iteration(row, mode: str = "model", **change) -> RLIteration:
    """The iteration of one validation row in a ``VALIDATION_MODES`` mode or ``FRAMEWORK_MODE``
    (``change`` overrides keywords, e.g. ``hf_s_per_layer_step`` while fitting)."""
    if mode not in VALIDATION_MODES + (FRAMEWORK_MODE,):
        raise ValueError(f"mode={mode!r} must be one of {VALIDATION_MODES + (FRAMEWORK_MODE,)}")
    kw = {**validation_setup(row), **change}
    if mode == FRAMEWORK_MODE:
        return validation_iteration(row, "scenario", **{**_framework_change(row, kw), **change})
    if mode == "scenario":
        if kw["engine"] != "vLLM":
            raise ValueError(f"engine={kw['engine']!r}: a scenario's rollouts are vLLM's "
                             "(the scenario mode prices vLLM rows only)")
        kw = {k: kw[k] for k in SCENARIO_SETTABLE} | {
            "train_plan": "auto",
            "recompute_old_logprobs": scenario_recomputes_old_logprobs(kw["algorithm"]),
            # the release the run used is a fact of the measurement, not a scenario's choice
            "rollout_piecewise_graphs": kw["rollout_piecewise_graphs"], **change}
    if mode == "before":
        acc = inf.serving_accelerator(kw["accelerator"])
        if kw["rollout_tp"] > (acc.scaleup_domain_size or 1):
            raise ValueError(f"rollout_tp={kw['rollout_tp']} must be <= "
                             f"{acc.scaleup_domain_size} (before: serving TP stays on NVLink)")
        kw.update(engine="roofline", train_mfu=DEFAULT_TRAIN_MFU, train_plan=None,
                  off_policy_steps=1, refit="links", role_gpus=None, optimizer_offload=False,
                  host_swaps=False)
    return rl_iteration(kw.pop("policy"), kw.pop("accelerator"), **kw)


@disk_cached
def rl_validation(mode: str = "model", split: str | None = None,
                  change: dict | None = None) -> pd.DataFrame:
    """Predicted vs published RL iteration and phase times, one row per evaluated run.

    ratio = predicted ÷ measured iteration time; gen_share = generation phase ÷ iteration
    (predicted and, where the source gives phases, measured: OpenRLHF's benchmark table);
    gen_ratio / train_ratio likewise per phase. The predicted phases and iteration are those the
    source measures (``validation_phases`` with the row's ``phases_measured``). A row the mode refuses keeps its reason in
    ``error`` and NaN predictions. ``split``: None for every evaluated row, else one split.
    ``change``: ``validation_iteration`` keywords replacing the row's (e.g.
    ``{"optimizer_offload": False}``: the model without one mechanism), None for none.
    Computed once per code, data and arguments (``core.diskcache.disk_cached``: no scenario
    enters it).
    """
    if mode not in VALIDATION_MODES + (FRAMEWORK_MODE,):   # before any row: not NaN per row
        raise ValueError(f"mode={mode!r} must be one of {VALIDATION_MODES + (FRAMEWORK_MODE,)}")
    if change is not None and not isinstance(change, dict):
        raise ValueError(f"change={change!r} must be None or a dict of validation_iteration "
                         "keywords")
    d = load_rl_validation()
    splits = sorted(set(d["split"]) - {"not_evaluated"})
    if split is not None and split not in splits:
        raise ValueError(f"split={split!r} must be None (every evaluated row) or one of "
                         f"{splits} (data/rl_iterations.csv)")
    d = d[d["split"] != "not_evaluated"] if split is None else d[d["split"] == split]
    out = []
    for _, r in d.iterrows():
        rec = {"id": r["id"], "system": r["system"], "split": r["split"], "added": r["added"],
               "phases_measured": r["phases_measured"], "engine": r["engine"],
               "measured_s": r["measured_iteration_s"],
               "measured_gen_s": r["measured_generation_s"],
               "measured_train_s": r["measured_train_s"], "error": ""}
        try:
            with _priced_once():
                it = validation_iteration(r, mode, **(change or {}))
            total, gen, train = validation_phases(it, r["phases_measured"])
            rec.update(predicted_s=total, predicted_gen_s=gen, predicted_train_s=train,
                       predicted_sync_s=it.parts_gpu_s["weight_sync"] / it.n_gpus)
        except ValueError as e:
            rec.update(predicted_s=np.nan, predicted_gen_s=np.nan, predicted_train_s=np.nan,
                       predicted_sync_s=np.nan, error=str(e))
        out.append(rec)
    df = pd.DataFrame(out)
    df["ratio"] = df["predicted_s"] / df["measured_s"]
    df["gen_ratio"] = df["predicted_gen_s"] / df["measured_gen_s"]
    df["train_ratio"] = df["predicted_train_s"] / df["measured_train_s"]
    df["predicted_gen_share"] = df["predicted_gen_s"] / df["predicted_s"]
    df["measured_gen_share"] = df["measured_gen_s"] / df["measured_s"]
    return df


#: The variants of the model notebook 05 compares on the held-out rows
#: (``validation_variants``): each names the keywords of ``validation_iteration`` it changes,
#: one mechanism switched back to its earlier or simpler form.
NOTEBOOK_VARIANTS = {"model": {}, "roofline generation": dict(engine="roofline"),
                     "flat 40% MFU training": dict(train_mfu=DEFAULT_TRAIN_MFU),
                     "one iteration in flight": dict(off_policy_steps=1),
                     "weight sync by links": dict(refit="links"),
                     "models share the GPUs": dict(role_gpus=None),
                     "optimizer on the GPUs": dict(optimizer_offload=False),
                     "no NeMo RL host swaps": dict(host_swaps=False),
                     "no GB200 vLLM decode factor": dict(rollout_decode_factor=1.0),
                     "vLLM's full CUDA graphs": dict(rollout_piecewise_graphs=False)}


@disk_cached
def validation_variants(variants: dict, split: str = "heldout") -> pd.DataFrame:
    """Predicted ÷ measured iteration time of the ``split`` rows of ``load_rl_validation``
    under each variant of the model (``variants``: name -> ``validation_iteration`` keywords,
    ``{}`` for the model as it is): one column per variant, one row per run id, NaN where the
    variant cannot price the run (its ``ValueError``). Computed once per code, data and
    arguments (``core.diskcache.disk_cached``: no scenario enters it)."""
    d = load_rl_validation()
    d = d[d["split"] == split]
    out = {}
    for name, change in variants.items():
        col = {}
        for _, r in d.iterrows():
            try:
                with _priced_once():
                    it = validation_iteration(r, **change)
                col[r["id"]] = validation_phases(it, r["phases_measured"])[0] \
                    / r["measured_iteration_s"]
            except ValueError:
                col[r["id"]] = np.nan
        out[name] = col
    return pd.DataFrame(out)


@disk_cached
def validation_generation_bound() -> pd.DataFrame:
    """For each validation row with published phases: the generation at the **roofline** (the
    bound: ``engine="roofline"``, the row's assumed lengths, continuous batching up to its
    micro-batch) beside the published generation phase, and the published phase less the
    experience forwards when the phase holds them (at the step-time model's MFU: a lower
    bound needs them at their fastest, so the forwards at 100% MFU are given too)::

        bound_ratio = roofline generation ÷ (published generation phase)

    A ratio above 1 means the row's assumed lengths cannot be what ran: no engine generates
    faster than the roofline, so the responses (or prompts) were shorter than assumed
    (OpenRLHF's rows take the limits as the lengths; its generation stops at the
    end-of-sequence token and the lengths are not published).

    Returns
    -------
    DataFrame: id, engine, phases_measured, measured_gen_s, roofline_gen_s, forwards_s
    (the experience forwards inside the published phase at the model's MFU, 0 when the phase
    does not hold them), forwards_at_peak_s (the same at 100% MFU), bound_ratio
    (roofline_gen_s ÷ (measured_gen_s − forwards_at_peak_s)).
    """
    d = load_rl_validation()
    d = d[(d["split"] != "not_evaluated") & d["measured_generation_s"].notna()]
    rows = []
    for _, r in d.iterrows():
        kw = validation_setup(r)
        pol, acc = kw.pop("policy"), kw.pop("accelerator")
        with _priced_once():
            roof = rl_iteration(pol, acc, **{**kw, "engine": "roofline"})
            it = rl_iteration(pol, acc, **kw)
        holds = r["phases_measured"] == "experience|update"
        fwd = it.experience_wall_s if holds else 0.0
        mfu = training_mfu(inf.serving_model(pol), inf.serving_accelerator(acc),
                           RLOptions.build(**kw), sample_lengths(RLOptions.build(**kw)))[1]
        fwd_peak = fwd * mfu
        rows.append({"id": r["id"], "engine": r["engine"], "phases_measured": r["phases_measured"],
                     "measured_gen_s": r["measured_generation_s"],
                     "roofline_gen_s": roof.generation_wall_s, "forwards_s": fwd,
                     "forwards_at_peak_s": fwd_peak,
                     "bound_ratio": roof.generation_wall_s
                     / (r["measured_generation_s"] - fwd_peak)})
    return pd.DataFrame(rows)


def generation_share_gaps(df: pd.DataFrame) -> pd.DataFrame:
    """Where the generation-share gap of each run with published phases comes from: the
    published share beside the model's, and the model's share with one of its two phases
    replaced by the published one (``df``: an ``rl_validation`` frame)::

        share            = G / T             (published: G_m / T_m; model: G_p / T_p)
        gap              = 100 · (G_p / T_p − G_m / T_m)                   points
        share_gen_fixed  = G_m / (G_m + T_p − G_p)   the model with the published generation
        share_rest_fixed = G_p / (G_p + T_m − G_m)   the model with the published rest
        gap_from_gen     = 100 · (G_p / T_p − share_gen_fixed)   points the generation error adds
        gap_from_rest    = 100 · (G_p / T_p − share_rest_fixed)  points the rest's error adds

    G = the generation phase, T = the iteration as the source times it (``validation_phases``),
    the rest = T − G (the training phase, and, for "step" rows, the refit and the other time).
    A positive ``gap_from_gen`` is generation the model prices that the run did not spend; a
    positive ``gap_from_rest``, training (or sync) time the run spent that the model does not
    price. The two need not sum to the gap (the share is not linear in either phase).

    Returns
    -------
    DataFrame, one row per run with a published generation phase: id, system, split,
    measured_share, model_share, gap_points, gen_ratio, rest_ratio (predicted ÷ published rest),
    share_gen_fixed, share_rest_fixed, gap_from_gen, gap_from_rest.
    """
    d = df.dropna(subset=["measured_gen_s", "predicted_s"])
    gm, tm = d["measured_gen_s"], d["measured_s"]
    gp, tp = d["predicted_gen_s"], d["predicted_s"]
    model = gp / tp
    gen_fixed = gm / (gm + tp - gp)
    rest_fixed = gp / (gp + tm - gm)
    return pd.DataFrame({"id": d["id"], "system": d["system"], "split": d["split"],
                         "measured_share": gm / tm, "model_share": model,
                         "gap_points": 100 * (model - gm / tm), "gen_ratio": gp / gm,
                         "rest_ratio": (tp - gp) / (tm - gm), "share_gen_fixed": gen_fixed,
                         "share_rest_fixed": rest_fixed,
                         "gap_from_gen": 100 * (model - gen_fixed),
                         "gap_from_rest": 100 * (model - rest_fixed)}).reset_index(drop=True)


def validation_summary(df: pd.DataFrame) -> dict:
    """Error figures of an ``rl_validation`` frame: rows evaluated and refused, mean |ratio − 1|,
    worst factor max(ratio, 1/ratio), geometric-mean ratio, and the mean / worst gap in
    generation share (points, rows with measured phases)."""
    ok = df.dropna(subset=["ratio"])
    ratio = ok["ratio"].to_numpy(float)
    gap = (ok["predicted_gen_share"] - ok["measured_gen_share"]).dropna().abs() * 100
    return {"rows": len(df), "evaluated": len(ok), "refused": int(df["ratio"].isna().sum()),
            "mean_abs_error": float(np.mean(np.abs(ratio - 1))) if len(ok) else np.nan,
            "worst_factor": float(np.max(np.maximum(ratio, 1 / ratio))) if len(ok) else np.nan,
            "geomean_ratio": float(np.exp(np.mean(np.log(ratio)))) if len(ok) else np.nan,
            "share_rows": len(gap),
            "mean_share_gap_points": float(gap.mean()) if len(gap) else np.nan,
            "worst_share_gap_points": float(gap.max()) if len(gap) else np.nan}


#: Systems whose validation rows train the critic at ZeRO-3 with its parameters and optimizer
#: in host memory while the actor trains at the row's ``zero_stage``: OpenRLHF's copies of
#: DeepSpeed-Chat's step-3 scripts (OpenRLHF/OpenRLHF benchmark/deepspeed-chat/llama_7b.sh,
#: llama_13b.sh @ 0baf3dd: ACTOR_ZERO_STAGE=2, CRITIC_ZERO_STAGE=3, --offload).
ZERO3_CRITIC_SYSTEMS = ("DeepSpeed-Chat",)


def zero3_critic_seconds(row) -> dict:
    """What the ZeRO-3 critic of a ``ZERO3_CRITIC_SYSTEMS`` row adds to its update, by
    mechanism, beside the model (which trains the critic at the actor's plan)::

        micro_batches = ⌈samples / (n_gpus · mbs)⌉     g = ⌈train_global_batch / (n_gpus · mbs)⌉
        pcie_s   = zero3_param_offload_time(N_c, n_gpus, accelerator, micro_batches, g)
        gather_s = U_c · (MFU(plan) / MFU(plan at ZeRO-3) − 1)

    U_c = 6 · N_c · tokens · E / (n_gpus · peak · MFU(plan)), E = ``ppo_epochs``, the critic's
    update as the model prices it (``pass_flops``, ``training_mfu``); ``micro_batches`` are one
    epoch's (the ``ZERO3_CRITIC_SYSTEMS`` rows run E = 1; with E > 1 the host traffic, E times
    as much, would be under-counted); MFU(plan at ZeRO-3): ``training_mfu`` with
    the row's plan at ZeRO-3 (the step-time model's parameter all-gathers and gradient
    reduce-scatters), with the row's reduction as it is (``row_deepspeed_reduction``: exposed
    on the DeepSpeed-Chat rows, whose actor trains at ZeRO-2; an upper bound for the critic,
    as DeepSpeed's default at ZeRO-3 overlaps them, ``deepspeed_dp_overlap``). Returns
    {"micro_batches", "accumulation", "param_bytes", "grad_bytes", "pcie_s", "gather_s"}
    (bytes per GPU per iteration)."""
    kw = validation_setup(row)
    m, acc = inf.serving_model(kw.pop("policy")), inf.serving_accelerator(kw.pop("accelerator"))
    o = RLOptions.build(None, **kw)
    plan = _plan_keywords(o.train_plan)
    n_c = float(m.n_params) if o.critic is None else _total_params("critic", o.critic)
    per_step = o.training_gpus * plan["micro_batch_size"]
    mb = math.ceil(o.samples / per_step)
    g = max(1, math.ceil(min(o.samples, o.train_global_batch or o.samples) / per_step))
    p_bytes, g_bytes = zero3_param_offload_bytes(n_c, o.training_gpus, mb, g)
    r = sample_lengths(o)
    tokens = int(o.samples * o.prompt_tokens + r.sum())
    mfu2 = training_mfu(m, acc, o, r)[0]
    o3 = RLOptions.build(o, train_plan={**plan, "zero_stage": 3})
    mfu3 = training_mfu(m, acc, o3, r)[0]
    u_c = 6.0 * n_c * tokens * o.ppo_epochs / (o.training_gpus * acc.peak_flops_per_s("bf16")
                                               * mfu2)
    return {"micro_batches": mb, "accumulation": g, "param_bytes": p_bytes,
            "grad_bytes": g_bytes,
            "pcie_s": zero3_param_offload_time(n_c, o.training_gpus, acc, mb, g),
            "gather_s": u_c * (mfu2 / mfu3 - 1.0)}


#: ``validation_iteration`` keywords for the model without DeepSpeed-Chat's pageable offload
#: (every offload copy at the host link's nominal rate, as if pinned): the base the offload
#: checks compare against (``unpinned_offload_check``, ``zero3_critic_check``).
PINNED_OFFLOAD = {"offload_pageable": False}


def zero3_critic_check() -> tuple:
    """(per-row frame, {split: summary without, summary with}): the ZeRO-3 critic's host-link
    traffic and all-gathers (``zero3_critic_seconds``) added to the update of every
    ``ZERO3_CRITIC_SYSTEMS`` row of ``rl_validation("model")``, and the validation figures
    (``validation_summary``) of each split without and with them. Per row: the published and
    predicted training phase, the seconds the prediction lacks, the two mechanisms' seconds,
    and ``rate_to_close`` = host-link bytes ÷ the lacking seconds (bytes/s): the link rate at
    which the traffic alone would close the phase (compare ``pcie_bytes_per_s``). A check, not
    part of the model: it stays off unless it helps the held-out rows (its verdict in
    benchmarks/validate_rl.py). Read beside the model without its pageable offload
    (``PINNED_OFFLOAD``), of which this traffic at the nominal rate is the pinned reading."""
    df = rl_validation("model", change=PINNED_OFFLOAD)
    d = load_rl_validation().set_index("id")
    with_df, rows = df.copy(), []
    for i, rec in df.iterrows():
        if d.loc[rec["id"], "system"] not in ZERO3_CRITIC_SYSTEMS or pd.isna(rec["predicted_s"]):
            continue
        z = zero3_critic_seconds(d.loc[rec["id"]].to_dict() | {"id": rec["id"]})
        add = z["pcie_s"] + z["gather_s"]
        lack = rec["measured_train_s"] - rec["predicted_train_s"]
        for k in ("predicted_s", "predicted_train_s"):
            with_df.loc[i, k] = rec[k] + add
        rows.append({"id": rec["id"], "split": rec["split"],
                     "measured_train_s": rec["measured_train_s"],
                     "predicted_train_s": rec["predicted_train_s"], "lacking_s": lack, **z,
                     "rate_to_close": (z["param_bytes"] + z["grad_bytes"]) / lack
                     if lack > 0 else np.nan})
    return pd.DataFrame(rows), candidate_comparison(df, with_df)[1]


#: ``validation_iteration`` keywords for the model without DeepSpeed's ZeRO-2 all-reduce
#: (``deepspeed_allreduce_check``'s base).
DEEPSPEED_ALLREDUCE_OFF = {"deepspeed_allreduce": False}


def deepspeed_allreduce_check() -> tuple:
    """DeepSpeed v0.13.2's ZeRO-2 gradient all-reduce (``deepspeed_allreduce_times``) on the
    DeepSpeed rows (``DEEPSPEED_SYSTEMS``: the DeepSpeed-Chat actor, OpenRLHF's actor and
    critic; the 70B row trains at ZeRO-3 and does not move), judged against the model without
    it (``DEEPSPEED_ALLREDUCE_OFF``), nothing refitted (HF generate's host cost is fitted on
    generation phases it does not move). Returns (frame, {split: (summary without, summary
    with)}) (``candidate_comparison``). On the model by the rule: held-out mean |error| 13.72 %
    -> 13.76 %, worst 1.450x -> 1.450x, worst share gap 14.86 -> 14.67 points."""
    return candidate_comparison(rl_validation("model", change=DEEPSPEED_ALLREDUCE_OFF),
                                rl_validation("model").copy())


def dschat_sourced_seconds(row) -> dict:
    """What two mechanisms read from the code DeepSpeed-Chat's benchmark ran, left out of the
    model, add to one ``ZERO3_CRITIC_SYSTEMS`` row's training phase, seconds per iteration (the
    third read with them, the actor's ZeRO-2 all-reduce, is on the model:
    ``deepspeed_allreduce_times``):

    * ``gather_s``: the critic's ZeRO-3 parameter all-gathers and gradient reduce-scatters, three
      gathers per micro-batch, none prefetched (``zero3_critic_seconds``; DeepSpeed-Chat's
      ``get_train_ds_config`` sets ``stage3_max_live_parameters`` and
      ``stage3_prefetch_bucket_size`` to 3e7, fewer than one Llama-2-7B MLP matrix, 4096 ·
      11008 = 4.5e7, so DeepSpeed v0.13.2's ``partitioned_param_coordinator.py``
      ``fetch_sub_module`` l. 353-377 prefetches at most the next module while fewer than 3e7
      parameters are live: an upper bound, as the step model prices none prefetched);
    * ``attention_s``: both models' attention without FlashAttention (Hugging Face
      transformers 4.38.2's SDPA under DeepSpeed-Chat's padding mask, which rules out the
      flash kernel and causal skipping: ``step_time`` with ``flash_attention=False``, the
      score matrix materialised, an upper bound), k · 2 · (step without − step with).

    Also ``lacking_s``: the published training phase less the model's. Nothing fitted."""
    kw = validation_setup(row)
    m, acc = inf.serving_model(kw.pop("policy")), inf.serving_accelerator(kw.pop("accelerator"))
    o = RLOptions.build(None, **kw)
    x = max(1.0, o.prompt_tokens + float(sample_lengths(o).mean()))
    b, plan, seq, _ = optimizer_batch(o, math.ceil(x))
    steps = []
    for flash in (True, False):
        p = make_plan(m, o.training_gpus, math.ceil(b / (o.training_gpus * plan[
            "micro_batch_size"])) * o.training_gpus * plan["micro_batch_size"], seq_len=seq,
            **_plan_keywords(plan))
        with warnings.catch_warnings():  # the row ran its plan (``_quiet_step``)
            warnings.simplefilter("ignore", StackFeatureWarning)
            warnings.simplefilter("ignore", PlanDoesNotFitWarning)
            steps.append(step_time(m, Cluster(acc, o.training_gpus), p, seq, stack=o.stack,
                                   efficiency=o.efficiency, flash_attention=flash,
                                   missing_features="price",
                                   **{k: v for k, v in (("dp_overlap", o.train_dp_overlap),
                                                        ("recipe", o.train_recipe))
                                      if v is not None}).step_time_s)
    return {"gather_s": zero3_critic_seconds(row)["gather_s"],
            "attention_s": 2 * o.optimizer_steps * (steps[1] - steps[0])}


def dschat_sourced_check() -> tuple:
    """(per-row frame, {split: (summary without, summary with)}): ``dschat_sourced_seconds``
    added to the training phase of every ``ZERO3_CRITIC_SYSTEMS`` row of
    ``rl_validation("model")`` (``candidate_comparison``), each mechanism's seconds and the
    seconds the row lacks beside them. A check (both at upper bounds), judged by the project's
    rule in benchmarks/validate_rl.py."""
    df = rl_validation("model")
    d = load_rl_validation().set_index("id")
    w, rows = df.copy(), []
    for i, rec in df.iterrows():
        if d.loc[rec["id"], "system"] not in ZERO3_CRITIC_SYSTEMS or pd.isna(rec["predicted_s"]):
            continue
        s = dschat_sourced_seconds(d.loc[rec["id"]].to_dict() | {"id": rec["id"]})
        add = sum(s.values())
        for k in ("predicted_s", "predicted_train_s"):
            w.loc[i, k] = rec[k] + add
        rows.append({"id": rec["id"], "split": rec["split"],
                     "lacking_s": rec["measured_train_s"] - rec["predicted_train_s"], **s,
                     "closed": add / (rec["measured_train_s"] - rec["predicted_train_s"])})
    return pd.DataFrame(rows), candidate_comparison(df, w)


def unpinned_offload_seconds(row, pageable_rate: float | None = None) -> dict:
    """What DeepSpeed's CPU offload with pageable host buffers adds to the update of one
    ``UNPINNED_OFFLOAD_SYSTEMS`` row, beside the model (whose ``optimizer_offload_time`` moves
    ``offload_link_bytes`` per step and model at the nominal link, as if pinned)::

        k = optimizer steps                g = ⌈min(samples, train_global_batch) / (n · mbs)⌉
        host_s  = deepspeed_offload_time(N_a, n, acc, ZeRO_a, k, g)
                + deepspeed_offload_time(N_c, n, acc, 3, k, g)     (the ZeRO-3 critic)
        model_s = k · (offload_link_bytes(N_a, n, g_a) + offload_link_bytes(N_c, n, g_c)) / B_pcie
        added_s = host_s − model_s

    ZeRO_a: the row's ``zero_stage`` (the actor's); the critic at ZeRO-3 for
    ``ZERO3_CRITIC_SYSTEMS`` rows, else at the actor's stage; g_a, g_c: ``accumulation_steps``
    (the model's). CPU Adam's time (``CPU_ADAM_PARAMS_PER_S_PER_HOST``) is the model's and
    unchanged; it may hold the updated parameters' copy back at the nominal rate
    (``CPU_ADAM_SOURCE``), at most 2 bytes · P / B_pcie a step, 0.1 s for Llama-2-13B on 8
    GPUs, counted again here. ``pageable_rate``: as ``deepspeed_offload_time``. Returns
    {"optimizer_steps", "accumulation", "actor_host_bytes", "critic_host_bytes",
    "critic_pinned_bytes", "host_s", "model_s", "added_s"} (bytes per GPU per iteration)."""
    kw = validation_setup(row)
    m, acc = inf.serving_model(kw.pop("policy")), inf.serving_accelerator(kw.pop("accelerator"))
    o = RLOptions.build(None, **kw)
    plan = _plan_keywords(o.train_plan)
    n, gpus, k = float(m.n_params), o.training_gpus, o.optimizer_steps
    n_c = n if o.critic is None else _total_params("critic", o.critic)
    g = max(1, math.ceil(min(o.samples, o.train_global_batch or o.samples)
                         / (gpus * plan["micro_batch_size"])))
    stage_c = 3 if row["system"] in ZERO3_CRITIC_SYSTEMS else plan["zero_stage"]
    a_host, _ = deepspeed_offload_bytes(n, gpus, plan["zero_stage"], k, g)
    c_host, c_pin = deepspeed_offload_bytes(n_c, gpus, stage_c, k, g)
    host_s = sum(deepspeed_offload_time(x, gpus, acc, st, k, g, pageable_rate=pageable_rate)
                 for x, st in ((n, plan["zero_stage"]), (n_c, stage_c)))
    g_model = accumulation_steps(o, gpus)
    model_s = k * (offload_link_bytes(n, gpus, g_model) + offload_link_bytes(n_c, gpus, g_model)) \
        / pcie_bytes_per_s(acc)
    return {"optimizer_steps": k, "accumulation": g, "actor_host_bytes": a_host,
            "critic_host_bytes": c_host, "critic_pinned_bytes": c_pin, "host_s": host_s,
            "model_s": model_s, "added_s": host_s - model_s}


def unpinned_offload_check(pageable_rate: float | None = None) -> tuple:
    """A candidate for DeepSpeed-Chat's training phase: its CPU offload's host copies through
    pageable memory (``unpinned_offload_seconds``: ``deepspeed_offload_bytes`` at
    ``pageable_bytes_per_s``, serial), added to the update of every ``UNPINNED_OFFLOAD_SYSTEMS``
    row of the model without it (``PINNED_OFFLOAD``) in place of its nominal-rate copies; every
    other row as the model has it; nothing refitted (HF generate's host cost is fitted on
    generation phases it does not move). ``pageable_rate``: as ``deepspeed_offload_time``. At
    the default rate "with" is the model itself (``RLOptions.offload_pageable``, set on these
    rows by ``validation_setup``: on by the rule since DeepSpeed-Chat's SDPA steps overlapped
    HF generate's host cost, ``hf_host_overlaps``). Since OpenRLHF's Ray ranks interleave their
    experience forwards (``RLOptions.experience_interleaved``, HF generate's host cost refitted
    1.231 → 1.268 ms, the 13B DeepSpeed-Chat row's generation 1.25 → 1.29 of published), this
    comparison worsens the held-out mean |error| (13.41% → 13.60%) while it brings the worst
    share gap 20.7 → 15.3 points; the two against neither (``experience_interleave_check`` with
    ``PINNED_OFFLOAD``) worsen no held-out goal: both kept on.

    Returns
    -------
    (frame, {split: (summary without, summary with)}): per evaluated row ratio, train_ratio and
    the share gap in points, each ``_without`` / ``_with``, with the added seconds and the
    per-row terms of ``unpinned_offload_seconds`` (NaN on rows it leaves alone);
    ``validation_summary`` dicts."""
    base = rl_validation("model", change=PINNED_OFFLOAD)
    d = load_rl_validation().set_index("id")
    w, terms = base.copy(), {}
    for i, rec in base.iterrows():
        if d.loc[rec["id"], "system"] not in UNPINNED_OFFLOAD_SYSTEMS \
                or pd.isna(rec["predicted_s"]):
            continue
        z = unpinned_offload_seconds(d.loc[rec["id"]].to_dict() | {"id": rec["id"]},
                                     pageable_rate)
        terms[rec["id"]] = z
        for c in ("predicted_s", "predicted_train_s"):
            w.loc[i, c] = rec[c] + z["added_s"]
    frame, out = candidate_comparison(base, w)
    return frame.join(pd.DataFrame.from_dict(terms, orient="index"), on="id"), out


def candidate_comparison(base: pd.DataFrame, w: pd.DataFrame) -> tuple:
    """A candidate's rows ``w`` (``rl_validation("model")`` with some rows' predicted seconds
    changed) beside the model's ``base``: ``w``'s ratios and generation share recomputed
    (ratio = predicted ÷ measured, per phase; share = predicted generation ÷ predicted
    iteration), and ``(frame, {split: (summary without, summary with)})``, the frame with each
    row's ``ratio``, ``train_ratio`` and ``share_gap`` (points) ``_without`` / ``_with``."""
    w["ratio"] = w["predicted_s"] / w["measured_s"]
    w["train_ratio"] = w["predicted_train_s"] / w["measured_train_s"]
    w["predicted_gen_share"] = w["predicted_gen_s"] / w["predicted_s"]
    frame = pd.DataFrame({"id": base["id"], "split": base["split"]})
    for name, f in (("without", base), ("with", w)):
        frame[f"ratio_{name}"] = f["ratio"]
        frame[f"train_ratio_{name}"] = f["train_ratio"]
        frame[f"share_gap_{name}"] = 100 * (f["predicted_gen_share"] - f["measured_gen_share"])
    out = {sp: (validation_summary(base[base["split"] == sp]),
                validation_summary(w[w["split"] == sp])) for sp in ("calibration", "heldout")}
    return frame, out


#: The Generation and Training TFLOPs cells of OpenRLHF's benchmark table (OpenRLHF/OpenRLHF
#: benchmark/README.md @ 0baf3dd44d01f5744c2580bdd99db83ba59e1e04), by validation row:
#: (generation, training) TFLOPs per GPU, as each system's step-3 print reports them
#: (``benchmark_phase_reading``). The Ray + vLLM 7B row's training cell, 75.02, is the Ray row
#: above it (its latency, 403.29 s, gives 73.61; its end-to-end cell, 37.73, agrees with 403.29).
BENCHMARK_TFLOPS = {"openrlhf-bench-7b-dschat": (5.32, 60.34),
                    "openrlhf-bench-7b-openrlhf": (4.03, 115.52),
                    "openrlhf-bench-7b-ray": (2.48, 75.02),
                    "openrlhf-bench-7b-ray-vllm": (7.70, 75.02),
                    "openrlhf-bench-13b-dschat": (2.74, 46.61),
                    "openrlhf-bench-13b-ray": (2.61, 59.86),
                    "openrlhf-bench-13b-ray-vllm": (4.98, 58.74),
                    "openrlhf-bench-70b-ray-vllm": (2.48, 52.28)}
BENCHMARK_TFLOPS_SOURCE = ("OpenRLHF/OpenRLHF benchmark/README.md @ "
                           "0baf3dd44d01f5744c2580bdd99db83ba59e1e04, Generation and Training "
                           "TFLOPs columns; the formulas: microsoft/DeepSpeedExamples "
                           "applications/DeepSpeed-Chat/dschat/utils/perf.py @ "
                           "6863634fc2fb974956272e33ecc0ac311bf6f33b and OpenRLHF/OpenRLHF "
                           "openrlhf/utils/perf.py @ 0baf3dd, print_throughput_step3")


def dschat_flops(m: ModelSpec, factor: float, batch: int, seq: int) -> float:
    """FLOPs as DeepSpeed-Chat's throughput print counts them (``calculate_flops``, "Megatron
    paper's formula"; microsoft/DeepSpeedExamples applications/DeepSpeed-Chat/dschat/utils/
    perf.py @ 6863634)::

        F = 24 · f · B · s · L · h² · (1 + s / (6h) + V / (16 · L · h))

    f = 4 with gradient checkpointing, 3 without, 1 for its generation figure ("forward pass
    only"); B sequences of s tokens (DeepSpeed-Chat's s = max prompt + max answer); L layers,
    h hidden size, V vocabulary. By hand, Llama-2-7B (L 32, h 4096, V 32,000), f 1, B 64,
    s 2,048: 1.8553e15."""
    L, h, v = m.n_layers, m.d_model, m.vocab_size
    return 24.0 * factor * batch * seq * L * h * h * (1 + seq / (6 * h) + v / (16 * L * h))


def benchmark_phase_reading() -> pd.DataFrame:
    """How the OpenRLHF benchmark's published phases are made, checked against the table's own
    TFLOPs cells (``BENCHMARK_TFLOPS``), one row per validation row that has them.

    Both systems print with the same formulas (``dschat_flops``; s = prompt + answer limit,
    2,048; actor and critic of the policy's size, factor 4 for gradient checkpointing)::

        train_tflops = 2 · dschat_flops(4, samples, s) / (published training · GPUs)
        gen_tflops   = dschat_flops(1, B, s) / (timed generation · GPUs)

    but time generation differently. DeepSpeed-Chat's step 3 (microsoft/DeepSpeedExamples
    applications/DeepSpeed-Chat @ 6863634: training/step3_rlhf_finetuning/main.py l. 571,
    dschat/rlhf/ppo_trainer.py ``generate_experience``) times the *last* generation batch's
    ``_generate_sequence`` alone and takes ``e2e_time = training_time + generate_time ×
    generation_batches``: B = per-device generation batch · GPUs, timed generation =
    published generation ÷ generation_batches (= prompts ÷ B). OpenRLHF (openrlhf/trainer/
    ppo_trainer.py and utils/perf.py @ 0baf3dd) times the whole loop of ``make_experience``:
    B = the rollout batch, timed generation = the published phase, GPUs = every GPU of the job
    (vLLM's included). If the cells reproduce, the latencies are read as the systems made them.
    ``step_ms`` (DeepSpeed-Chat's rows): the timed batch's seconds per decode step if it ran to
    the answer limit (it generates greedily, ``do_sample=False`` for Llama, with ``max_length``
    only, so a batch stops early when all its rows have ended); ``model_step_ms``: the model's
    generation phase per batch per step at the limit.

    Returns
    -------
    DataFrame: id, system, split, generation_batches, batch_s, gen_tflops,
    gen_tflops_published, train_tflops, train_tflops_published, train_peak_share
    (train_tflops ÷ the dense BF16/FP16 peak), step_ms, model_step_ms (NaN for OpenRLHF)."""
    d = load_rl_validation()
    rows = []
    for _, r in d[d["id"].isin(list(BENCHMARK_TFLOPS))].iterrows():
        m = inf.serving_model(r["catalog_model"])
        n = int(r["n_gpus"])
        samples = int(r["prompts_per_step"]) * int(r["samples_per_prompt"])
        seq, lim = int(r["prompt_tokens_max"]) + int(r["response_tokens_max"]), \
            float(r["response_tokens_max"])
        dschat = r["system"] == "DeepSpeed-Chat"
        b = int(r["gen_micro_batch"]) * n if dschat else samples
        nb = samples / b
        batch_s = float(r["measured_generation_s"]) / nb
        train = 2 * dschat_flops(m, 4, samples, seq) / (float(r["measured_train_s"]) * n * 1e12)
        gen_pub, train_pub = BENCHMARK_TFLOPS[r["id"]]
        model_s = validation_iteration(r).generation_wall_s / nb if dschat else np.nan
        rows.append({"id": r["id"], "system": r["system"], "split": r["split"],
                     "generation_batches": nb, "batch_s": batch_s,
                     "gen_tflops": dschat_flops(m, 1, b, seq) / (batch_s * n * 1e12),
                     "gen_tflops_published": gen_pub, "train_tflops": train,
                     "train_tflops_published": train_pub,
                     "train_peak_share": train * 1e12
                     / inf.serving_accelerator(validation_setup(r)["accelerator"])
                     .peak_flops_per_s("bf16"),
                     "step_ms": 1e3 * batch_s / lim if dschat else np.nan,
                     "model_step_ms": 1e3 * model_s / lim})
    return pd.DataFrame(rows)


#: DeepSpeed-Chat's 7B run of OpenRLHF's benchmark without ``--offload``, added to the table
#: a fortnight after the validation rows' commit (``DSCHAT_7B_NO_OFFLOAD_SOURCE``): the
#: generation and training micro-batches, the three latencies (s) and the two TFLOPs cells.
#: Not a validation row (its prediction was computed before it could be committed as one):
#: read by ``offload_ablation_reading`` beside the 7B DeepSpeed-Chat row it ablates.
DSCHAT_7B_NO_OFFLOAD = {"gen_micro_batch": 4, "train_micro_batch": 4, "generation_s": 975.36,
                        "training_s": 209.05, "iteration_s": 1184.31, "gen_tflops": 3.80,
                        "train_tflops": 142.01}
DSCHAT_7B_NO_OFFLOAD_SOURCE = ("OpenRLHF/OpenRLHF benchmark/README.md @ "
                               "dbdd43b0899b069a276fbc8813c6769011975806 (2024-03-26, 'update "
                               "d7B schat w/o offload'): row LLama2-7B / DeepspeedChat(w/o "
                               "offload), GPU 8: Generation micro_batch_size 4, Latency 975.36, "
                               "TFLOPs 3.80; Training micro_batch_size 4, Latency 209.05, TFLOPs "
                               "142.01; End-to-End Latency 1184.31")


def dschat_offload_rows() -> tuple[dict, dict]:
    """The validation row openrlhf-bench-7b-dschat and the same run without ``--offload``
    (``DSCHAT_7B_NO_OFFLOAD``: its micro-batches, no optimizer offload, its three latencies as
    the measured cells), as ``validation_iteration`` rows."""
    d = load_rl_validation().set_index("id")
    base = d.loc["openrlhf-bench-7b-dschat"].to_dict() | {"id": "openrlhf-bench-7b-dschat"}
    no = DSCHAT_7B_NO_OFFLOAD
    without = base | {"gen_micro_batch": no["gen_micro_batch"],
                      "train_micro_batch": no["train_micro_batch"], "optimizer_offload": np.nan,
                      "measured_generation_s": no["generation_s"],
                      "measured_train_s": no["training_s"],
                      "measured_iteration_s": no["iteration_s"]}
    return base, without


def offload_ablation_reading() -> pd.DataFrame:
    """DeepSpeed-Chat's 7B benchmark run with ``--offload`` (the validation row
    openrlhf-bench-7b-dschat) and without it (``DSCHAT_7B_NO_OFFLOAD``: micro-batches 4, no
    CPU offload), published beside the model, a reading of what the offload costs::

        published offload cost = training(with) − training(without)   (= 282.96 s; the
                                 micro-batches differ, 8 against 4: a lower bound if the
                                 larger micro-batch computes faster)
        model offload          = offload_times' actor + critic at the row (CPU Adam and copies)

    and how DeepSpeed-Chat's generation scales with its batch (HF generate: twice the batches
    of half the sequences). The run without offload keeps the row's set-up otherwise (the
    README's script, benchmark/deepspeed-chat/llama_7b.sh, is the one with ``--offload``;
    generation_batches and gradient_accumulation_steps follow from the micro-batches at 1,024
    prompts and 128 sequences per optimizer step, ``optimizer_batch``). Its cells reproduce
    from the latencies by the formula the row's do (``dschat_flops``: training 2 · F(4, 1,024,
    2,048) / (209.05 s · 8 GPUs) = 142.0 TFLOPs). Returns a frame indexed by config ("with
    offload", "without offload"): published and model generation, training and iteration
    seconds and their ratios."""
    base, without = dschat_offload_rows()
    rows = {}
    for name, r in (("with offload", base), ("without offload", without)):
        total, gen, train = validation_phases(validation_iteration(r), r["phases_measured"])
        rows[name] = {"published_gen_s": float(r["measured_generation_s"]), "model_gen_s": gen,
                      "published_train_s": float(r["measured_train_s"]), "model_train_s": train,
                      "published_s": float(r["measured_iteration_s"]), "model_s": total}
    f = pd.DataFrame(rows).T
    for k in ("gen", "train"):
        f[f"{k}_ratio"] = f[f"model_{k}_s"] / f[f"published_{k}_s"]
    f["ratio"] = f["model_s"] / f["published_s"]
    return f


#: Systems whose validation rows take every response at the answer limit (``row_lengths``)
#: although their generation stops each response at its end-of-sequence token, the lengths
#: unpublished: OpenRLHF's own rows of its benchmark (OpenRLHF/OpenRLHF @ 0baf3dd: vLLM
#: ``SamplingParams`` with ``max_tokens`` only, trainer/ppo_utils/experience_maker.py
#: ``_generate_vllm``; ``Actor.generate`` with ``min_new_tokens`` 1; the example scripts'
#: policy, examples/scripts/train_ppo_llama_ray.sh, an SFT model,
#: OpenLLMAI/Llama-2-7b-sft-model-ocra-500k). ``validation_generation_bound`` shows the limit
#: cannot be what ran on the 7B vLLM row (its roofline at 1,024-token responses exceeds the
#: published phase). Used by ``eos_length_check`` only. DeepSpeed-Chat's rows end their
#: responses at the end-of-sequence token too (``benchmark_phase_reading``) but are not among them:
#: they decode greedily from the base model (OpenRLHF benchmark/deepspeed-chat/llama_7b.sh,
#: llama_13b.sh @ 0baf3dd: meta-llama/Llama-2-*-hf) where OpenRLHF samples from an SFT model,
#: so one mean length cannot serve both, and DeepSpeed-Chat's published generation is one
#: batch's time (8 or 2 responses) times the number of batches.
EOS_LENGTH_SYSTEMS = ("OpenRLHF",)


def _eos_phases(row, mu: float | None, c: float) -> tuple:
    """(iteration, generation, training phase) s of one validation row as its source times it
    (``validation_phases``), HF generate's host cost ``c`` per layer per decode step, and the
    mean response ``mu`` (longest: the row's limit) for an ``EOS_LENGTH_SYSTEMS`` row (None:
    the row's own lengths)."""
    kw = {"hf_s_per_layer_step": c}
    if mu is not None and row["system"] in EOS_LENGTH_SYSTEMS:
        kw.update(response_tokens=float(mu), response_tokens_max=float(row["response_tokens_max"]))
    return validation_phases(validation_iteration(row, **kw), row["phases_measured"])


def _eos_calibration_rows() -> tuple[pd.DataFrame, list, list]:
    """The evaluated rows of ``data/rl_iterations.csv``, and the calibration rows the EOS-length
    checks fit on: those of ``EOS_LENGTH_SYSTEMS`` generating with vLLM, and those generating
    with HF generate (the fits never read a held-out row).

    Raises
    ------
    ValueError
        Either group empty."""
    d = load_rl_validation()
    d = d[d["split"] != "not_evaluated"]
    cal = [r for _, r in d.iterrows() if r["split"] == "calibration"]
    eos_v = [r for r in cal if r["system"] in EOS_LENGTH_SYSTEMS and r["engine"] == "vLLM"]
    hf = [r for r in cal if r["engine"] == "HF generate"]
    if not eos_v or not hf:
        raise ValueError("no calibration row of EOS_LENGTH_SYSTEMS generates with vLLM, or none "
                         "with HF generate (data/rl_iterations.csv)")
    return d, eos_v, hf


def eos_length_check() -> tuple:
    """A candidate for the generation-share gap of OpenRLHF's vLLM rows, judged and left off:
    their responses shorter than the answer limit (``EOS_LENGTH_SYSTEMS``), the mean response
    μ of the benchmark (not published; one for its rows, the longest at the limit, lognormal
    between: ``response_lengths``) fitted on its *calibration* rows whose generation no other
    constant absorbs (vLLM), then ``HF_GENERATE_S_PER_LAYER_STEP`` refitted on the HF generate
    calibration rows at that μ (``fit_hf_generate_overhead``'s rule)::

        μ = argmin Σ_cal,vLLM log²(G_pred(μ) / G_pub)        (golden section on [32, limit])
        c = argmin Σ_cal,HF   log²(G_pred(μ, c) / G_pub)     (golden section on [0, 10 ms])

    Two readings of the training phase bracket it: "with" prices the update on the real tokens
    (the model's rule, ``pass_flops``), a lower bound, since OpenRLHF pads each training
    micro-batch to its longest sequence (``replay_buffer.py`` ``zero_pad_sequences`` @
    0baf3dd); "gen_only" keeps the training phase at the limit lengths (every micro-batch
    padded to the limit, an upper bound) and takes only the generation phase from μ. The
    prompts stay at the limit (1,024 tokens; OpenRLHF pads them to the batch's longest, also
    unpublished). Held-out rows are never read by the fits.

    Returns
    -------
    (mu, c, frame, summaries): the fitted mean response and host cost; one row per evaluated
    validation row (id, split, measured_s, ratio, gen_ratio, train_ratio and the share gap in
    points, each ``_without`` / ``_with`` / ``_gen_only``); {split: (without, with, gen_only)}
    ``validation_summary`` dicts."""
    d, eos_v, hf = _eos_calibration_rows()
    limit = min(float(r["response_tokens_max"]) for r in eos_v)

    def loss(rows, mu, c):
        return sum(math.log(_eos_phases(r, mu, c)[1] / r["measured_generation_s"]) ** 2
                   for r in rows)

    mu = _golden_section(lambda x: loss(eos_v, x, HF_GENERATE_S_PER_LAYER_STEP), 32.0, limit, 30)
    c = _golden_section(lambda x: loss(hf, mu, x), 0.0, 0.01, 30)
    frame, out = _candidate_frames(
        d, lambda r, at_limit: (_eos_phases(r, mu, c)[1],
                                _eos_phases(r, None if at_limit else mu, c)[2]))
    return mu, c, frame, out


def _candidate_frames(d: pd.DataFrame, phases) -> tuple:
    """The model's validation frame beside a candidate's two readings (``eos_length_check``,
    ``per_call_check``): ``phases(row, at_limit)`` gives the (generation, training phase) s of an
    ``EOS_LENGTH_SYSTEMS`` or HF generate row, "with" at ``at_limit`` False (the update on the
    candidate's tokens), "gen_only" at True (the training phase at the limit lengths); every
    other row as the model has it. Returns (frame, summaries): one row per evaluated row (id,
    split, measured_s and, each ``_without`` / ``_with`` / ``_gen_only``, ratio, gen_ratio,
    train_ratio and the share gap in points); {split: (without, with, gen_only)}
    ``validation_summary`` dicts."""
    base = rl_validation("model")
    frames = {"without": base}
    for name in ("with", "gen_only"):
        f = base.copy()
        for i, rec in base.iterrows():
            r = d[d["id"] == rec["id"]].iloc[0]
            if pd.isna(rec["predicted_s"]) or (r["system"] not in EOS_LENGTH_SYSTEMS
                                               and r["engine"] != "HF generate"):
                continue
            gen, train = phases(r, name == "gen_only")
            f.loc[i, ["predicted_s", "predicted_gen_s", "predicted_train_s"]] = \
                [gen + train, gen, train]
        frames[name] = f
    cols = {"id": base["id"], "split": base["split"], "measured_s": base["measured_s"]}
    for name, f in frames.items():
        cols[f"ratio_{name}"] = f["predicted_s"] / f["measured_s"]
        cols[f"gen_ratio_{name}"] = f["predicted_gen_s"] / f["measured_gen_s"]
        cols[f"train_ratio_{name}"] = f["predicted_train_s"] / f["measured_train_s"]
        cols[f"share_gap_{name}"] = 100 * (f["predicted_gen_s"] / f["predicted_s"]
                                           - f["measured_gen_s"] / f["measured_s"])
        f["ratio"] = f["predicted_s"] / f["measured_s"]
        f["predicted_gen_share"] = f["predicted_gen_s"] / f["predicted_s"]
    out = {sp: tuple(validation_summary(f[f["split"] == sp]) for f in frames.values())
           for sp in ("calibration", "heldout")}
    return pd.DataFrame(cols), out


def _call_phases(row, theta: float | None, c: float) -> tuple:
    """(iteration, generation, training phase) s of one validation row as its source times it,
    HF generate's host cost ``c`` per layer per decode step; for an ``EOS_LENGTH_SYSTEMS`` row
    and ``theta`` given, its responses ``geometric_lengths(theta, limit, samples)`` and its
    rollout in engine calls of its micro-rollout batch (``rollout_per_call``)."""
    kw = {"hf_s_per_layer_step": c}
    if theta is not None and row["system"] in EOS_LENGTH_SYSTEMS:
        n = int(row["prompts_per_step"]) * int(row["samples_per_prompt"])
        kw.update(lengths=geometric_lengths(theta, int(row["response_tokens_max"]), n),
                  rollout_per_call=True)
    return validation_phases(validation_iteration(row, **kw), row["phases_measured"])


def per_call_check() -> tuple:
    """A candidate for the generation-share gap of OpenRLHF's rows, judged and left off:
    responses that end at the end-of-sequence token (``EOS_LENGTH_SYSTEMS``), generated in
    engine calls that each end with their longest response. At the benchmark's commit
    (OpenRLHF/OpenRLHF @ 0baf3dd) each actor rank sends one micro-rollout batch per
    ``make_experience`` to its vLLM engine and blocks on it
    (trainer/ppo_utils/experience_maker.py ``_generate_vllm``: ``ray.get(llm.generate.remote(
    sampling_params=..., prompt_token_ids=...))``, ``SamplingParams`` with ``max_tokens`` only;
    the engine, trainer/ray/vllm_engine.py ``LLMRayActor``, is a Ray actor whose ``generate``
    runs ``vllm.LLM.generate``, which returns when every request of the call has finished
    (``LLM._run_engine``: ``while self.llm_engine.has_unfinished_requests(): step()``), and a
    synchronous Ray actor runs one call at a time (docs.ray.io, "Limiting Concurrency Per-Method
    with Concurrency Groups": default concurrency "1000 for AsyncIO actors and 1 otherwise"));
    HF generate's batches run until every row of the batch has ended. So a freed slot is never refilled: a call of b sequences takes E[max of b
    lengths] decode steps (``_call_batches``, ``expected_batch_max``).

    The lengths are unpublished: a geometric length (one end-of-sequence chance per token, the
    maximum-entropy shape for a given mean, ``geometric_lengths``) cut at the 1,024-token limit,
    its uncut mean θ fitted on the calibration rows whose generation no other constant absorbs
    (OpenRLHF's vLLM row), then ``HF_GENERATE_S_PER_LAYER_STEP`` refitted on the HF generate
    calibration rows at θ (``fit_hf_generate_overhead``'s rule)::

        θ = argmin Σ_cal,vLLM log²(G_pred(θ) / G_pub)       (golden section on [2, 8,192])
        c = argmin Σ_cal,HF   log²(G_pred(θ, c) / G_pub)    (golden section on [0, 10 ms])

    "with" prices the update on the generated tokens (a lower bound: OpenRLHF pads each
    training micro-batch to its longest); "gen_only" keeps the training phase at the limit.
    Held-out rows are never read by the fits.

    Returns
    -------
    (theta, mean, c, frame, summaries): the fitted θ, the mean response it gives, the host cost;
    the frame and summaries of ``_candidate_frames``.

    Raises
    ------
    ValueError
        No calibration row of ``EOS_LENGTH_SYSTEMS`` generates with vLLM, or none with HF
        generate."""
    d, eos_v, hf = _eos_calibration_rows()

    def loss(rows, theta, c):
        return sum(math.log(_call_phases(r, theta, c)[1] / r["measured_generation_s"]) ** 2
                   for r in rows)

    theta = _golden_section(lambda x: loss(eos_v, x, HF_GENERATE_S_PER_LAYER_STEP), 2.0,
                            8192.0, 30)
    c = _golden_section(lambda x: loss(hf, theta, x), 0.0, 0.01, 30)
    limit = int(min(float(r["response_tokens_max"]) for r in eos_v))
    mean = theta * (1.0 - (1.0 - 1.0 / theta) ** limit)      # E[R], geometric_lengths
    frame, out = _candidate_frames(
        d, lambda r, at_limit: (_call_phases(r, theta, c)[1],
                                _call_phases(r, None if at_limit else theta, c)[2]))
    return theta, mean, c, frame, out


def fit_hf_generate_overhead(**change) -> float:
    """Fit ``HF_GENERATE_S_PER_LAYER_STEP`` on the *calibration* rows that generate with HF
    generate: the value c >= 0 minimising Σ log²(predicted ÷ measured generation phase, as the
    source measures it: ``validation_phases``), golden
    section on [0, 10 ms] (the generation time grows with c). Held-out rows are never read.
    ``change``: ``validation_iteration`` keywords held while fitting (a candidate's, e.g.
    ``hf_host_overlap=True``)."""
    d = load_rl_validation()
    rows = [r for _, r in d.iterrows() if r["split"] == "calibration"
            and r["engine"] == "HF generate" and not pd.isna(r["measured_generation_s"])]
    if not rows:
        raise ValueError("no calibration row generates with HF generate")

    def loss(c):
        return sum(math.log(validation_phases(validation_iteration(
            r, **{**change, "hf_s_per_layer_step": c}), r["phases_measured"])[1]
            / r["measured_generation_s"]) ** 2 for r in rows)

    return _golden_section(loss, 0.0, 0.01, 40)


def hf_overlap_check() -> tuple:
    """A candidate for the HF generate rows, judged and left off: the host's cost per decode
    step overlaps the GPU's work (CUDA kernel launches return before the kernel runs, so the
    host can queue step t's kernels while the GPU runs earlier ones; one synchronisation per
    step, the stopping check), so a step costs max(GPU, host) instead of their sum
    (``hf_host_overlap``), the host cost refitted on the HF generate calibration rows by
    ``fit_hf_generate_overhead``'s rule::

        step = max(GPU step, c · layers)     c = argmin Σ_cal,HF log²(G_pred(c) / G_pub)

    Held-out rows are never read by the fit. Returns (c, frame, summaries): the refitted host
    cost; ``_candidate_frames``' frame and summaries ("with" and "gen_only" alike: the
    candidate moves no training phase)."""
    c = fit_hf_generate_overhead(hf_host_overlap=True)
    d = load_rl_validation()
    d = d[d["split"] != "not_evaluated"]

    done = {}  # "with" and "gen_only" are the same reading: each row is priced once

    def phases(r, at_limit):
        if r["id"] not in done:
            done[r["id"]] = validation_phases(
                validation_iteration(r, hf_s_per_layer_step=c, hf_host_overlap=True),
                r["phases_measured"])[1:]
        return done[r["id"]]

    frame, out = _candidate_frames(d, phases)
    return c, frame, out


def fit_hf_batch_host() -> tuple[float, float]:
    """Fit ``HF_BATCH_HOST_FIT``: HF generate's host cost per layer per decode step as
    a + c · b for a batch of b sequences, on the *calibration* rows that generate with HF
    generate and DeepSpeed-Chat's published 7B run without offload (``dschat_offload_rows``,
    OpenRLHF/OpenRLHF benchmark/README.md @ dbdd43b0: the same run at micro-batch 4, not a
    validation row)::

        (a, c) = argmin Σ log²(G_pred(a, c) / G_pub)     c on [0, 0.3 ms], a on [0, 3 ms]

    golden sections, a nested in c (the loss: ``hf_batch_host_loss``); each generation phase
    as its source times it (``validation_phases``). Held-out rows are never read. Returns
    (a, c) in s."""
    rows = _hf_batch_host_rows()

    def loss(a, c):
        return _hf_batch_host_loss(rows, a, c)

    def best_a(c):
        return _golden_section(lambda a: loss(a, c), 0.0, 3e-3, 16)

    c = _golden_section(lambda x: loss(best_a(x), x), 0.0, 3e-4, 14)
    return best_a(c), c


def _hf_batch_host_rows() -> list:
    """The rows ``fit_hf_batch_host`` reads: the calibration rows generating with HF generate
    and DeepSpeed-Chat's 7B run without offload (``dschat_offload_rows``)."""
    d = load_rl_validation()
    rows = [r.to_dict() for _, r in d.iterrows() if r["split"] == "calibration"
            and r["engine"] == "HF generate" and not pd.isna(r["measured_generation_s"])]
    if not rows:
        raise ValueError("no calibration row generates with HF generate")
    return rows + [dschat_offload_rows()[1]]


def _hf_batch_host_loss(rows: list, a: float, c: float) -> float:
    return sum(math.log(validation_phases(validation_iteration(
        r, hf_s_per_layer_step=a, hf_s_per_seq_layer_step=c), r["phases_measured"])[1]
        / r["measured_generation_s"]) ** 2 for r in rows)


def hf_batch_host_loss(a: float, c: float) -> float:
    """``fit_hf_batch_host``'s loss at a host cost of ``a + c · b`` s per layer per decode
    step (b the batch)::

        L(a, c) = Σ_rows log²(G_pred(a, c) / G_pub)

    over the rows the fit reads (calibration rows only). A check of a stored fit reads it at
    the fit and its neighbours, instead of re-running the search.

    Raises
    ------
    ValueError
        ``a`` or ``c`` not a finite number >= 0.
    """
    for name, v in (("a", a), ("c", c)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) \
                or v < 0:
            raise ValueError(f"{name}={v!r} must be a finite number >= 0 (seconds per layer "
                             "per decode step)")
    return _hf_batch_host_loss(_hf_batch_host_rows(), float(a), float(c))


def hf_batch_host_change(fit: tuple[float, float] | None = None) -> dict:
    """``validation_iteration`` keywords of the candidate ``HF_BATCH_HOST_FIT`` (``fit``: an
    (a, c) pair in its place)."""
    a, c = HF_BATCH_HOST_FIT if fit is None else fit
    return {"hf_s_per_layer_step": a, "hf_s_per_seq_layer_step": c}


@disk_cached
def hf_batch_host_check() -> tuple:
    """A candidate for the generation share of DeepSpeed-Chat's rows, judged and left off by
    the share goal's rule (on only if the held-out mean |error| worsens by at most 0.5 points
    and the worst factor stays within 1.5x, or no larger where other rows put it beyond): HF
    generate's host cost per layer per decode
    step a + c · b (``HF_BATCH_HOST_FIT``, fitted by ``fit_hf_batch_host``) instead of the one
    constant, against the model. The held-out 13B DeepSpeed-Chat row generates in batches of 2
    (the calibration rows in 8 and 16): the published step there, 2,590.72 / 64 / 1,024 s =
    39.5 ms over 40 layers (0.99 ms a layer), is no cheaper per layer than the 7B run's at 4
    sequences (29.8 ms over 32 layers, 0.93 ms), so the fitted slope prices it short. Returns
    (frame, {split: (summary without, summary with)}) as ``candidate_comparison``."""
    return candidate_comparison(rl_validation("model"),
                                rl_validation("model", change=hf_batch_host_change()).copy())


@disk_cached
def hf_batch_uplink_check() -> tuple:
    """The candidate ``shared_uplink_check`` (every host copy of the CPU offload at one GPU's
    share of the x16 uplink two A800s share) re-judged on a model holding
    ``HF_BATCH_HOST_FIT``: that model without -> with the shared uplink. Returns (frame,
    {split: (summary without, summary with)}) as ``candidate_comparison``."""
    change = hf_batch_host_change()
    return candidate_comparison(
        rl_validation("model", change=change),
        rl_validation("model", change=change | {
            "host_link_rate": shared_uplink_bytes_per_s(a800())}).copy())


#: Systems that pad each batch's prompts to its longest prompt, not to the prompt limit:
#: OpenRLHF @ 0baf3dd44d01f5744c2580bdd99db83ba59e1e04, openrlhf/trainer/ppo_utils/
#: experience_maker.py. ``tokenize_fn`` (l. 101-108) tokenises with ``padding=True`` (to the
#: batch's longest prompt; ``max_length``, the 1,024-token limit, only truncates), on the HF
#: generate path (l. 119, l. 320) as on the vLLM one (l. 338); ``_generate_vllm`` hands vLLM
#: each prompt with that padding stripped (l. 339-344) and pads the outputs back to the
#: longest prompt vLLM returned (l. 360 ``max_input_len = max(max_input_len,
#: len(output.prompt_token_ids))``, l. 367-368), the sequences the forwards and the update
#: see. So the engine sees each prompt's own length and the forwards the batch's longest
#: real prompt: with prompts of one length, both see that length. The benchmark's prompt
#: lengths are not published (its README @ 0baf3dd states the 1,024-token maximum only): the
#: validation rows take every prompt at that maximum, an upper bound for these systems.
UNPADDED_PROMPT_SYSTEMS = ("OpenRLHF",)


@disk_cached
def unpadded_prompt_check(prompt_tokens: int, change: dict | None = None) -> tuple:
    """A reading, not a candidate (the prompt lengths are unpublished, nothing to fit them
    on but the calibration rows): the rows of ``UNPADDED_PROMPT_SYSTEMS`` with every prompt
    ``prompt_tokens`` long, the whole iteration at that length (the engine's prompts and the
    forwards' and update's sequences alike: with prompts of one length the batch's longest is
    that length), beside the model at the 1,024-token maximum (``change``:
    ``validation_iteration`` keywords held on both sides, e.g. a candidate's). A short prompt
    cuts the decode's KV reads, a large share of a 7B step at 16 sequences and a small one of
    a 70B step at 4, and the training passes' tokens. Returns (frame, {split: (summary
    without, summary with)}) as ``candidate_comparison``."""
    base = rl_validation("model", change=change)
    w = base.copy()
    d = load_rl_validation().set_index("id")
    for i, rid in w["id"].items():
        r = d.loc[rid].to_dict() | {"id": rid}
        if r["system"] not in UNPADDED_PROMPT_SYSTEMS:
            continue
        it = validation_iteration(r, **(change or {}) | {"prompt_tokens": prompt_tokens})
        w.loc[i, ["predicted_s", "predicted_gen_s", "predicted_train_s"]] = \
            validation_phases(it, r["phases_measured"])
    return candidate_comparison(base, w)


def shared_host_adam_check() -> tuple:
    """A candidate for the training phase of OpenRLHF's Ray rows, judged and left off: their
    actor and critic, side by side on their own GPUs, step their CPU Adam on the same hosts'
    CPUs (``offload_host_shared``, ``offload_times``); no constant refitted. Returns (frame,
    {split: (summary without, summary with)}): per evaluated row ratio, train_ratio and the
    share gap in points, each ``_without`` / ``_with`` (``validation_summary`` dicts)."""
    return candidate_comparison(rl_validation("model"),
                                rl_validation("model", change={"offload_host_shared": True}))


#: ``validation_iteration`` keywords that take DeepSpeed's exposed 16-bit reduction off the
#: DeepSpeed rows (the training stack's overlap and recipe): ``deepspeed_overlap_check``'s
#: "without".
DEEPSPEED_REDUCTION_OFF = {"train_dp_overlap": None, "train_recipe": None}
#: ``validation_iteration`` keywords that take the staged parameter copy off OpenRLHF's rows:
#: ``staged_copy_check``'s "without".
STAGED_COPY_OFF = {"offload_staged_copy": False}


@disk_cached
def deepspeed_overlap_check() -> tuple:
    """DeepSpeed's gradient reduction on the DeepSpeed rows (``DEEPSPEED_SYSTEMS``:
    DeepSpeed-Chat's and OpenRLHF's benchmark), on the model: their trainer runs DeepSpeed's
    default ``overlap_comm``, off below ZeRO-3 (``deepspeed_dp_overlap``), so the gradient
    reduction of every micro-batch is exposed, in the 16-bit type (``row_deepspeed_reduction``:
    the update only; the experience forwards keep the stack's HFU: ``training_mfu``); judged
    against the model without it (``DEEPSPEED_REDUCTION_OFF``), every other row as the model
    has it; nothing refitted (HF generate's host cost is fitted on generation phases it does
    not move). Left off while the rule was "no held-out goal worsens" (held-out mean |error|
    13.60 % -> 13.68 %); put on under the share goal's rule (a sourced mechanism, the held-out
    mean |error| worse by under half a point, the worst factor within 1.5x or, where rows it
    does not move put it beyond, no larger), which it meets:
    the held-out worst share gap 15.3 -> 14.9 points. Returns (frame, {split: (summary without,
    summary with)}): per evaluated row ratio, train_ratio and the share gap in points, each
    ``_without`` / ``_with`` (``candidate_comparison``)."""
    return candidate_comparison(rl_validation("model", change=DEEPSPEED_REDUCTION_OFF),
                                rl_validation("model").copy())


@disk_cached
def staged_copy_check() -> tuple:
    """DeepSpeed 0.13.2's parameter copy back through a pageable temporary on OpenRLHF's rows
    (``RLOptions.offload_staged_copy``, ``staged_copy_excess_time``, ``STAGED_COPY_SYSTEMS``), on
    the model, judged against the model without it (``STAGED_COPY_OFF``) by the share goal's
    rule (``deepspeed_overlap_check``); nothing refitted (the generation phases do not move).
    Returns (frame, {split: (summary without, summary with)}) as ``candidate_comparison``."""
    return candidate_comparison(rl_validation("model", change=STAGED_COPY_OFF),
                                rl_validation("model").copy())


@disk_cached
def shared_uplink_check() -> tuple:
    """A candidate for the offloading rows (DeepSpeed-Chat's and OpenRLHF's, all on A800):
    every host copy of the CPU offload at one GPU's share of a shared x16 uplink
    (``shared_uplink_bytes_per_s``: 32 / 2 = 16 GB/s pinned, 16 / ``PAGEABLE_COPY_SLOWDOWN``
    = 1.8 GB/s pageable) instead of the whole link: ``RLOptions.host_link_rate``; nothing
    refitted. The pageable rate keeps its ratio to the pinned one, as DeepSpeed pull request
    5301 measured it on an 8-GPU node with every GPU copying ("4-5x", ``PAGEABLE_COPY_SOURCE``):
    its staged copy moves 2 B through pageable memory where the fix moves 4 B pinned, a
    speed-up of (2 / B_pageable) / (4 / B_pinned) = 16 / (2 × 1.78) = 4.5 with both shared,
    and 16 / (2 × 3.56) = 2.25 with the pinned rate shared alone. Judged by the share
    goal's rule (``deepspeed_overlap_check``). Returns (frame, {split: (summary without,
    summary with)}) as ``candidate_comparison``."""
    return candidate_comparison(
        rl_validation("model"),
        rl_validation("model", change={"host_link_rate": shared_uplink_bytes_per_s(a800())}
                      ).copy())


@disk_cached
def measured_host_rate_check() -> tuple:
    """A candidate for the offloading rows (DeepSpeed-Chat's and OpenRLHF's, all on A800): every
    host copy of the CPU offload at the A100 rates PyTorch pull request 138018 measured
    (``PAGEABLE_COPY_SOURCE``: pinned ``PINNED_COPY_A100_BYTES_PER_S`` = 12.6 GB/s, pageable
    12.6 / ``PAGEABLE_COPY_SLOWDOWN`` = 1.4 GB/s) instead of the nominal link (32 GB/s, pageable
    32 / 9 = 3.6 GB/s): ``RLOptions.host_link_rate``; nothing refitted (the generation phases do
    not move). One D2H measurement on one A100 inside ``torch.save``, not the benchmark's
    servers: judged by the share goal's rule (``deepspeed_overlap_check``). Returns (frame,
    {split: (summary without, summary with)}) as ``candidate_comparison``."""
    return candidate_comparison(
        rl_validation("model"),
        rl_validation("model", change={"host_link_rate": PINNED_COPY_A100_BYTES_PER_S}).copy())


@disk_cached
def experience_interleave_check(also_without: dict | None = None) -> tuple:
    """OpenRLHF's Ray experience maker, each actor rank waiting only for its own batch's
    forwards (``RLOptions.experience_interleaved``, ``row_experience_interleaved``; on the
    model), judged by the module's rule against the model without it: every row's flag off and
    ``HF_GENERATE_S_PER_LAYER_STEP`` refitted so on the calibration rows
    (``fit_hf_generate_overhead``), against the model (flag on, the stored constant, refitted
    with it). ``also_without``: ``validation_iteration`` keywords the "without" side takes too
    (``PINNED_OFFLOAD``: neither this nor DeepSpeed-Chat's pageable offload, which is judged
    against the model with this on by ``unpinned_offload_check``). Returns (c_without, frame,
    {split: (summary without, summary with)}): the host cost refitted without it; per
    evaluated row ratio, train_ratio and the share gap in points, each ``_without`` /
    ``_with`` (``candidate_comparison``)."""
    c0 = fit_hf_generate_overhead(experience_interleaved=False)
    without = rl_validation("model", change={"experience_interleaved": False,
                                             "hf_s_per_layer_step": c0, **(also_without or {})})
    frame, out = candidate_comparison(without, rl_validation("model"))
    return c0, frame, out


#: Seconds per decode step a tensor-parallel vLLM engine of the Ray era spends scheduling its
#: remote workers' tasks: vLLM of that time forces Ray workers whenever TP > 1 (``ParallelConfig``:
#: ``if self.world_size > 1: self.worker_use_ray = True``) and its engine's ``step`` sends every
#: remote worker an ``execute_model`` task per step (``_run_workers``), which vllm-project/vllm
#: pull request 3763 proposed to remove (closed unmerged; the change landed in pull request
#: 4894), measured there on vLLM's main branch of 2024-03 (``ray_gpu_executor``, about 0.4, not
#: the 0.3.1 the rows ran): (24.2 − 20.2) s / 2,000 engine steps (one prefill, 1,999 decodes)
#: = 2.0 ms.
VLLM_RAY_STEP_S = (24.2 - 20.2) / 2000
VLLM_RAY_STEP_SOURCE = ("vllm-project/vllm pull request 3763 '[Core] Eliminate parallel worker "
                        "per-step task scheduling overhead' (github.com/vllm-project/vllm/pull/"
                        "3763, 2024-03-31): 80GB A100s, llama-2-7b, one request of 5 input and "
                        "2,000 generated tokens: 'TP=2 | 24.2', 'TP=2 with this PR | 20.2'")
#: Systems whose validation rows ran such an engine: OpenRLHF's benchmark (vllm==0.3.1,
#: OpenRLHF/OpenRLHF benchmark/README.md @ 0baf3dd; trainer/ray/vllm_engine.py builds
#: ``vllm.LLM(tensor_parallel_size=...)`` on a Ray placement group of one bundle per GPU).
RAY_STEP_SYSTEMS = ("OpenRLHF",)


def ray_step_seconds(row) -> float:
    """Seconds a validation row's generation lacks for vLLM's per-step Ray task scheduling (a
    candidate, ``ray_step_check``): 0 unless the row's system is in ``RAY_STEP_SYSTEMS``, its
    engine vLLM and its rollout TP > 1; else the decode steps of the replica that sets the
    generation wall (``generation_time``'s replica, ``rollout_time``'s ``steps``) ×
    ``VLLM_RAY_STEP_S`` (measured at TP 2, one remote worker, taken as is at any TP > 1)::

        extra = steps · (24.2 − 20.2) / 2000 s

    By hand: OpenRLHF's 70B Ray + vLLM row, 512 sequences per TP-2 engine in calls of 4, every
    response at the 1,024-token limit: 128 · 1,024 = 131,072 steps, 262 s."""
    r = dict(row)
    if r["system"] not in RAY_STEP_SYSTEMS or r["engine"] != "vLLM" or int(r["rollout_tp"]) < 2:
        return 0.0
    kw = validation_setup(r)
    m, acc = inf.serving_model(kw.pop("policy")), kw.pop("accelerator")
    o = RLOptions.build(None, **kw)
    share = sample_lengths(o)[0::o.generation_gpus // o.rollout_tp]
    steps = rollout_time(m, acc, o.prompt_tokens, share, o.rollout_setup())["steps"]
    return steps * VLLM_RAY_STEP_S


@disk_cached
def ray_step_check() -> tuple:
    """A candidate for OpenRLHF's tensor-parallel vLLM rows, judged by the module's rule: each
    decode step also pays vLLM's per-step Ray task scheduling (``ray_step_seconds``), added to
    the generation phase; every other row as the model has it; nothing refitted (the vLLM
    calibration row runs TP 1). Returns (frame, {split: (summary without, summary with)}):
    per evaluated row ratio, train_ratio and the share gap in points, each ``_without`` /
    ``_with`` (``candidate_comparison``)."""
    base = rl_validation("model")
    d = load_rl_validation().set_index("id")
    w = base.copy()
    for i, rec in base.iterrows():
        extra = ray_step_seconds(d.loc[rec["id"]].to_dict() | {"id": rec["id"]})
        if extra and not pd.isna(rec["predicted_s"]):
            w.loc[i, "predicted_s"] += extra
            w.loc[i, "predicted_gen_s"] += extra
    return candidate_comparison(base, w)


def fit_vllm_decode_factor(accelerator: str = "GB200-NVL72") -> float:
    """Fit ``VLLM_DECODE_FACTORS[accelerator]`` on the *calibration* rows of
    ``load_rl_validation`` that generate with vLLM on that accelerator: the factor f >= 1 on
    every decode step (``rollout_decode_factor``) minimising Σ log²(predicted ÷ measured step
    time, as the source times it: ``validation_phases``), golden section on [1, 4] (the step
    time grows with f). Held-out rows are never read.

    Raises
    ------
    ValueError
        No calibration row generates with vLLM on ``accelerator`` (named)."""
    d = load_rl_validation()
    rows = [r for _, r in d.iterrows() if r["split"] == "calibration" and r["engine"] == "vLLM"
            and r["accelerator"] == accelerator]
    if not rows:
        raise ValueError(f"accelerator={accelerator!r}: no calibration row generates with vLLM "
                         "on it (data/rl_iterations.csv)")

    def loss(f):
        return sum(math.log(validation_phases(validation_iteration(r, rollout_decode_factor=f),
                                              r["phases_measured"])[0]
                            / r["measured_iteration_s"]) ** 2 for r in rows)

    return _golden_section(loss, 1.0, 4.0, 30)


def _golden_section(loss, lo: float, hi: float, steps: int) -> float:
    """The minimum of a unimodal ``loss`` on [lo, hi] by ``steps`` golden-section steps (the
    interval shrinks by (√5 − 1)/2 each), the last interval's midpoint."""
    gr = (math.sqrt(5) - 1) / 2
    for _ in range(steps):
        a, b = hi - gr * (hi - lo), lo + gr * (hi - lo)
        if loss(a) < loss(b):
            hi = b
        else:
            lo = a
    return (lo + hi) / 2
