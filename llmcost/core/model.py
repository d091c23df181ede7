"""Transformer architecture: exact parameter counts and FLOPs per token.

``ModelSpec`` describes a decoder-only transformer precisely enough to count every parameter
(embeddings, attention with MHA/GQA/MQA or DeepSeek's MLA, gated or plain FFN of any width,
norms, biases, MoE routed and shared experts, dense layers before MoE layers, tied or untied
output layer) and every matmul FLOP per token.

FLOP conventions (stated once here, referred to everywhere):

* A multiply-accumulate is 2 FLOP.
* **Matmul FLOPs** come from the *active* matmul weights: every weight matrix a token passes
  through, including the output projection (LM head, ``2·d_model·V`` forward) whether or not it is
  tied to the input embedding, and excluding the input embedding lookup (a gather, ~0 FLOP), norms
  and biases (element-wise, < 0.1%). For MoE layers only the ``k`` activated routed experts, the
  shared experts and the router count.
* **Attention core** (QKᵀ and AV) is counted per *query* head: ``2·n_heads·(d_qk + d_v)``
  FLOP per attended key per layer, forward. GQA/MQA shrink the K/V projections (matmul FLOPs),
  not the core.
* **Causal or full mask**: with ``causal=True`` a query at position i attends to i keys, so the
  mean over a sequence of s tokens is (s+1)/2 (what a causal FlashAttention kernel computes);
  ``causal=False`` counts the full s×s score matrix, the convention of the Megatron-LM paper
  (Narayanan et al. 2021, App. "Floating-point operations", whose Eq. 3 adds the recomputed
  forward; Korthikanti et al. 2022 App. A Eq. 7 the same matrix without it), PaLM's MFU (Chowdhery et al. 2022,
  App. B), torchtitan and llm-foundry. Megatron-LM's own code counted it too until Megatron-Core
  0.11; from 0.12.0 its ``num_floating_point_operations`` halves the core for the causal mask
  (NVIDIA/Megatron-LM commit 8873b55d6a, 2025-03-06, "Fixes in number of floating-point
  operation estimates"), so its logged TFLOP/s are causal, as are Megatron-Bridge's and NeMo's
  (whose ``flops_formulas`` took the discount in 2025-08; NeMo 24.03's tables count the full
  matrix, ``data/validation_mfu.csv``). A sliding window of w tokens caps the attended keys at w.
* **Training** = forward + backward = 3 × forward (backward computes gradients with respect to
  both activations and weights: 2 × forward). Kaplan et al. 2020 §2.1. A model trained with
  multi-token prediction (``mtp_depth``, DeepSeek-V3 §2.2) adds 3 × its modules' forward,
  in training only.
* **Recomputation** (hardware FLOPs, for HFU): ``"selective"`` re-runs the attention core forward
  (QKᵀ, softmax, AV: the operations Korthikanti et al. 2022 §5 recompute; note that their App. A
  HFU formula counts twice the attention term instead); ``"full"`` re-runs the forward of every
  transformer layer (not the LM head), giving Megatron's "96-form" (Narayanan et al. 2021, Eq. 3).

Sources for the architecture variants: Shazeer 2020 (GLU variants, arXiv:2002.05202); Ainslie et
al. 2023 (GQA, arXiv:2305.13245); Press & Wolf 2017 (tied embeddings, arXiv:1608.05859);
Dai et al. 2019 (Transformer-XL relative positions, arXiv:1901.02860, used by Gopher/Chinchilla);
DeepSeek-AI 2024 (DeepSeek-V2 MLA, arXiv:2405.04434; DeepSeek-V3, arXiv:2412.19437);
Jiang et al. 2023 (Mistral 7B sliding window, arXiv:2310.06825).
"""

from __future__ import annotations

import json
import re
import warnings
from dataclasses import asdict, dataclass, field, fields, replace
from functools import cached_property, lru_cache
from pathlib import Path

import numpy as np

from .units import (EXACT_INTEGER_RULE, MAX_EXACT_INTEGER, as_array, as_flag, as_text, fmt_count,
                    scalar_or_array)

FFN_TYPES = ("gated", "mlp")
NORMS = ("rmsnorm", "layernorm")
BIASES = ("none", "qkv", "all")
POS_ENCODINGS = ("rope", "alibi", "learned", "relative")
ATTENTIONS = ("gqa", "mla")
RECOMPUTE_MODES = ("none", "selective", "full")
QK_NORMS = ("none", "head", "full")


@dataclass(frozen=True)
class ModelSpec:
    """A decoder-only transformer, described exactly enough to count parameters and FLOPs.

    Parameters
    ----------
    name : str
        Catalogue name, e.g. ``"llama-3.1-405b"``.
    n_layers, d_model, n_heads, vocab_size : int
        Transformer layers, hidden size, query heads and vocabulary size (the embedding table's
        rows, including padding).
    d_ff : int
        FFN intermediate width of the dense layers (0 when every layer is MoE).
    n_kv_heads : int, optional
        Key/value heads: ``n_heads`` for MHA (default), fewer for GQA, 1 for MQA.
    d_head : int, optional
        Per-head dimension (default ``d_model // n_heads``). For MLA, the non-rotary part of the
        query/key head dimension (DeepSeek's ``qk_nope_head_dim``).
    ffn_type : {"gated", "mlp"}
        ``"gated"``: three matrices (SwiGLU/GeGLU: gate, up, down); ``"mlp"``: two (GeLU, ReLU,
        squared ReLU).
    tied_embeddings : bool
        Output projection shares the input embedding matrix (counted once).
    norm : {"rmsnorm", "layernorm"}
        RMSNorm has a weight vector; LayerNorm a weight and a bias.
    bias : {"none", "qkv", "all"}
        Which linear layers have biases: none (Llama), the Q/K/V projections only (Qwen2), or
        every linear layer (GPT-3, OPT, BLOOM).
    pos_encoding : {"rope", "alibi", "learned", "relative"}
        ``"learned"`` adds a ``max_position_embeddings × d_model`` table; ``"relative"``
        (Transformer-XL, used by Gopher and Chinchilla) adds a ``d_model × n_heads·d_head``
        position projection per layer; RoPE and ALiBi have no parameters.
    max_position_embeddings : int
        The model's context: the positions of its learned table (counted as parameters only
        with ``"learned"``, with ``position_offset``); for other encodings the context a
        Hugging Face config declares (0: not recorded), used by the scenario warnings
        (``llmcost.checks``).
    position_offset : int
        Rows of a learned position table before its first position, counted as parameters but
        not as context: OPT's 2 (Hugging Face transformers ``OPTLearnedPositionalEmbedding``,
        ``self.offset = 2``, a table of ``max_position_embeddings + 2`` rows, fairseq's
        padding convention); 0 elsewhere.
    embedding_norm : bool
        A norm right after the token embedding (BLOOM).
    seq_len : int
        Pre-training sequence length, the default context for FLOP counts.
    context_stated : bool
        Whether the source states the model's context (``seq_len``, ``max_position_embeddings``):
        False for a Hugging Face ``config.json`` that gives none (``HF_CONTEXT_KEYS``), whose
        ``seq_len`` is then only a default for FLOP counts (2,048), no figure of the model, and
        no warning compares a scenario's length with it (``bill.checks.context_warning``).
    n_experts, n_experts_active, n_shared_experts, d_ff_expert : int
        MoE: routed experts per MoE layer, routed experts activated per token (top-k), always-on
        shared experts, and each expert's FFN width (``ffn_type`` applies to experts too).
    n_dense_layers : int
        For MoE models, the number of leading dense layers (DeepSeek-V3: 3).
    moe_layer_interval : int
        After the dense prefix, every ``moe_layer_interval``-th layer is MoE and the others are
        dense (1: all MoE).
    attention : {"gqa", "mla"}
        ``"gqa"`` covers MHA, GQA and MQA; ``"mla"`` is DeepSeek's multi-head latent attention
        with low-rank Q and KV projections.
    q_lora_rank, kv_lora_rank, qk_rope_head_dim, v_head_dim : int
        MLA dimensions (DeepSeek-V3: 1536, 512, 64, 128). ``q_lora_rank = 0`` means a full-rank
        query projection.
    sliding_window : int
        Attention window in tokens (0: no window).
    n_sliding_layers : int, optional
        Layers that use the window (default: every layer when ``sliding_window`` is set). The
        others attend to the whole context: Gemma 2 and gpt-oss alternate (half the layers),
        Gemma 3 has 5 local layers to 1 global (Gemma Team 2025, arXiv:2503.19786 §2.1).
    qk_norm : {"none", "head", "full"}
        RMSNorm on queries and keys before attention: ``"head"`` normalises each head (a weight
        of ``d_head`` for Q and one for K per layer: Qwen3, Gemma 3), ``"full"`` the whole
        projection (``n_heads·d_head`` + ``n_kv_heads·d_head`` per layer: OLMo 2).
    norms_per_layer : int
        Norm weight vectors of ``d_model`` per layer: 2 (pre-attention and pre-FFN, Llama; or
        OLMo 2's post-norms), 4 for Gemma 2/3 (pre and post norm around attention and FFN).
    attention_sinks : bool
        One learned logit per query head per layer (gpt-oss; OpenAI 2025, arXiv:2508.10925).
    router_bias : bool
        The MoE router has a bias of ``n_experts`` per MoE layer (gpt-oss).
    glu_limit : float
        The gated activation's clamp (0: none): the gate half clamped from above and the linear
        half on both sides at this value before the activation (gpt-oss: 7.0, Hugging Face
        ``swiglu_limit``). No parameter or FLOP changes; the step-time model prices the eager
        clamp passes Megatron-Core runs for it (``elementwise.clamped_glu_bytes``).
    mtp_depth : int
        Multi-token-prediction modules trained beside the model (DeepSeek-V3: 1; Hugging Face's
        ``num_nextn_predict_layers``; DeepSeek-AI 2024, arXiv:2412.19437 §2.2 and §4.2 "we set
        the MTP depth D to 1"). Each module is one transformer block of the model's last
        layer's kind plus a projection of ``2·d_model → d_model`` and RMSNorms, and reuses the
        model's embedding and output head. Counted in training FLOPs only (§2.2: "During
        inference, we can directly discard the MTP modules") and kept out of ``n_params`` (the
        671B of DeepSeek-V3 excludes it): ``n_mtp_params`` gives its own parameters.
    official_params, official_active_params : float
        Published totals, kept for comparison (not used in calculations).
    train_tokens : float
        Published pre-training tokens, where disclosed (catalogue data, not architecture).
    source, notes : str
        Where the architecture comes from and what is approximated.

    Raises
    ------
    ValueError
        When a field is out of range or the fields are inconsistent (``n_heads`` not a multiple of
        ``n_kv_heads``, MoE fields half set, ...); the message names the field and the rule.
    """

    name: str
    n_layers: int
    d_model: int
    n_heads: int
    vocab_size: int
    d_ff: int = 0
    n_kv_heads: int | None = None
    d_head: int | None = None
    ffn_type: str = "gated"
    tied_embeddings: bool = False
    norm: str = "rmsnorm"
    bias: str = "none"
    pos_encoding: str = "rope"
    max_position_embeddings: int = 0
    embedding_norm: bool = False
    seq_len: int = 2048
    n_experts: int = 0
    n_experts_active: int = 0
    n_shared_experts: int = 0
    d_ff_expert: int = 0
    n_dense_layers: int = 0
    moe_layer_interval: int = 1
    attention: str = "gqa"
    q_lora_rank: int = 0
    kv_lora_rank: int = 0
    qk_rope_head_dim: int = 0
    v_head_dim: int = 0
    sliding_window: int = 0
    n_sliding_layers: int | None = None
    qk_norm: str = "none"
    norms_per_layer: int = 2
    attention_sinks: bool = False
    router_bias: bool = False
    glu_limit: float = 0.0
    mtp_depth: int = 0
    official_params: float | None = None
    official_active_params: float | None = None
    train_tokens: float | None = None
    source: str = field(default="", compare=False)
    notes: str = field(default="", compare=False)
    context_stated: bool = True
    position_offset: int = 0

    # ------------------------------------------------------------------ validation
    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name={self.name!r} must be a non-empty string")
        for f in ("source", "notes"):
            as_text(getattr(self, f), f)
        if self.n_kv_heads is None:
            object.__setattr__(self, "n_kv_heads", self.n_heads)
        for f in ("n_layers", "d_model", "n_heads", "vocab_size", "n_kv_heads", "seq_len"):
            self._check_int(f, minimum=1)
        for f in ("d_ff", "max_position_embeddings", "n_experts", "n_experts_active",
                  "n_shared_experts", "d_ff_expert", "n_dense_layers", "q_lora_rank",
                  "kv_lora_rank", "qk_rope_head_dim", "v_head_dim", "sliding_window"):
            self._check_int(f, minimum=0)
        self._check_int("norms_per_layer", minimum=0)
        self._check_int("mtp_depth", minimum=0)
        self._check_int("position_offset", minimum=0)
        if self.position_offset and self.pos_encoding != "learned":
            raise ValueError(f"{self.name}: position_offset={self.position_offset} needs "
                             f"pos_encoding='learned', got {self.pos_encoding!r}")
        if self.n_sliding_layers is not None:
            self._check_int("n_sliding_layers", minimum=0)
        for f in ("train_tokens", "official_params", "official_active_params"):
            v = getattr(self, f)  # catalogue figures: None (not published) or a positive number
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float, np.number))
                                  or not 0 < float(v) < float("inf")):
                raise ValueError(f"{self.name}: {f}={v!r} must be a positive number or None")
        if (self.n_sliding_layers or 0) > self.n_layers:
            raise ValueError(f"{self.name}: n_sliding_layers={self.n_sliding_layers} must be <= "
                             f"n_layers={self.n_layers}")
        if self.n_sliding_layers and not self.sliding_window:
            raise ValueError(f"{self.name}: n_sliding_layers={self.n_sliding_layers} needs a "
                             "sliding_window >= 1")
        for f in ("attention_sinks", "router_bias", "tied_embeddings", "embedding_norm",
                  "context_stated"):
            if not isinstance(getattr(self, f), (bool, np.bool_)):
                raise ValueError(f"{self.name}: {f}={getattr(self, f)!r} must be True or False")
        if self.router_bias and not self.n_experts:
            raise ValueError(f"{self.name}: router_bias=True needs n_experts >= 1")
        self._check_int("moe_layer_interval", minimum=1)
        if self.d_head is None:
            if self.d_model % self.n_heads:
                raise ValueError(
                    f"{self.name}: d_model={self.d_model} is not divisible by n_heads="
                    f"{self.n_heads}; give d_head explicitly")
            object.__setattr__(self, "d_head", self.d_model // self.n_heads)
        self._check_int("d_head", minimum=1)
        for f, allowed in (("ffn_type", FFN_TYPES), ("norm", NORMS), ("bias", BIASES),
                           ("pos_encoding", POS_ENCODINGS), ("attention", ATTENTIONS),
                           ("qk_norm", QK_NORMS)):
            if getattr(self, f) not in allowed:
                raise ValueError(f"{self.name}: {f}={getattr(self, f)!r} must be one of {allowed}")
        self._check_glu_limit()
        if self.n_heads % self.n_kv_heads:
            raise ValueError(f"{self.name}: n_heads={self.n_heads} must be a multiple of "
                             f"n_kv_heads={self.n_kv_heads}")
        if not self.context_stated and self.max_position_embeddings:
            raise ValueError(f"{self.name}: context_stated=False needs max_position_embeddings=0"
                             f", got {self.max_position_embeddings} (a stated context)")
        if self.pos_encoding == "learned" and self.max_position_embeddings < 1:
            raise ValueError(f"{self.name}: pos_encoding='learned' needs max_position_embeddings"
                             f" >= 1, got {self.max_position_embeddings}")
        self._check_experts()
        self._check_attention_layout()

    def _check_experts(self):
        """The MoE fields agree: 1 <= top-k <= experts, an expert FFN width, at least one MoE
        layer; a dense model has none of them; dense FFN layers need ``d_ff``."""
        if self.n_experts:
            if not 1 <= self.n_experts_active <= self.n_experts:
                raise ValueError(f"{self.name}: n_experts_active={self.n_experts_active} must be "
                                 f"between 1 and n_experts={self.n_experts}")
            if self.d_ff_expert < 1:
                raise ValueError(f"{self.name}: an MoE model needs d_ff_expert >= 1, got "
                                 f"{self.d_ff_expert}")
            if self.n_dense_layers >= self.n_layers:
                raise ValueError(f"{self.name}: n_dense_layers={self.n_dense_layers} must be < "
                                 f"n_layers={self.n_layers} for an MoE model")
            if self.n_moe_layers < 1:
                raise ValueError(f"{self.name}: moe_layer_interval={self.moe_layer_interval} "
                                 f"leaves no MoE layer after {self.n_dense_layers} dense layers")
        elif self.n_experts_active or self.n_shared_experts or self.d_ff_expert:
            raise ValueError(f"{self.name}: n_experts_active, n_shared_experts and d_ff_expert "
                             "need n_experts >= 1")
        if self.n_dense_ffn_layers and self.d_ff < 1:
            raise ValueError(f"{self.name}: d_ff={self.d_ff} must be >= 1: the model has "
                             f"{self.n_dense_ffn_layers} dense FFN layers")

    def _check_attention_layout(self):
        """MLA (DeepSeek-V2 §2.1) needs its latent ranks and no separate KV heads; the MLA
        fields apply to MLA only."""
        if self.attention == "mla":
            if self.kv_lora_rank < 1 or self.v_head_dim < 1:
                raise ValueError(f"{self.name}: attention='mla' needs kv_lora_rank >= 1 and "
                                 "v_head_dim >= 1")
            if self.n_kv_heads != self.n_heads:
                raise ValueError(f"{self.name}: MLA has no separate KV heads; leave n_kv_heads "
                                 "empty (it defaults to n_heads)")
        elif self.q_lora_rank or self.kv_lora_rank or self.qk_rope_head_dim or self.v_head_dim:
            raise ValueError(f"{self.name}: q_lora_rank, kv_lora_rank, qk_rope_head_dim and "
                             "v_head_dim only apply to attention='mla'")

    def _check_glu_limit(self):
        """``glu_limit``: a finite number >= 0, non-zero only on a gated FFN."""
        g = self.glu_limit
        if isinstance(g, bool) or not isinstance(g, (int, float, np.number)) \
                or not 0 <= float(g) < float("inf"):
            raise ValueError(f"{self.name}: glu_limit={g!r} must be a finite number >= 0 "
                             "(0: no clamp)")
        if g and self.ffn_type != "gated":
            raise ValueError(f"{self.name}: glu_limit={g!r} clamps a gated activation; "
                             f"ffn_type={self.ffn_type!r} is not 'gated'")

    def _check_int(self, f: str, minimum: int):
        v = getattr(self, f)
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            if isinstance(v, float) and v.is_integer():
                object.__setattr__(self, f, int(v))
                v = int(v)
            else:
                raise ValueError(f"{self.name}: {f}={v!r} must be a whole number")
        if v < minimum:
            raise ValueError(f"{self.name}: {f}={v} must be >= {minimum}")
        if v > MAX_EXACT_INTEGER:
            raise ValueError(f"{self.name}: {f}={v} must be at most 2**53 in size "
                             f"({EXACT_INTEGER_RULE})")

    # ------------------------------------------------------------------ layer bookkeeping
    @property
    def n_window_layers(self) -> int:
        """Layers that attend within ``sliding_window``: ``n_sliding_layers``, or every layer when
        that is left empty and a window is set."""
        if not self.sliding_window:
            return 0
        return self.n_layers if self.n_sliding_layers is None else self.n_sliding_layers

    @property
    def is_moe(self) -> bool:
        return self.n_experts > 0

    @property
    def n_moe_layers(self) -> int:
        """Number of MoE layers (0 for dense models)."""
        if not self.is_moe:
            return 0
        return (self.n_layers - self.n_dense_layers) // self.moe_layer_interval

    @property
    def n_dense_ffn_layers(self) -> int:
        """Number of layers with a dense FFN."""
        return self.n_layers - self.n_moe_layers

    @property
    def d_qk(self) -> int:
        """Query/key dimension per head used in QKᵀ (MLA adds the rotary part)."""
        return self.d_head + (self.qk_rope_head_dim if self.attention == "mla" else 0)

    @property
    def d_v(self) -> int:
        """Value dimension per head used in AV."""
        return self.v_head_dim if self.attention == "mla" else self.d_head

    # ------------------------------------------------------------------ parameter counts
    def _ffn_matrix_params(self, width: int) -> int:
        return (3 if self.ffn_type == "gated" else 2) * self.d_model * width

    def _ffn_bias_params(self, width: int) -> int:
        if self.bias != "all":
            return 0
        return (2 * width if self.ffn_type == "gated" else width) + self.d_model

    @property
    def _norm_params(self) -> int:
        return self.d_model * (2 if self.norm == "layernorm" else 1)

    @cached_property
    def param_breakdown(self) -> dict[str, int]:
        """Parameter counts by part (total, not active). The values sum to ``n_params``.

        Keys: ``embedding`` (token table), ``lm_head`` (0 when tied), ``position`` (learned
        table), ``attention`` (projections and their biases, MLA's low-rank factors and norms, the
        relative-position projection), ``ffn_dense``, ``ffn_shared_experts``,
        ``ffn_routed_experts``, ``router``, ``norms`` (per-layer, final and embedding norms).
        """
        h, a, g, dh, L = self.d_model, self.n_heads, self.n_kv_heads, self.d_head, self.n_layers
        if self.attention == "gqa":
            attn = h * a * dh + 2 * h * g * dh + a * dh * h
            if self.bias in ("qkv", "all"):
                attn += a * dh + 2 * g * dh
            if self.bias == "all":
                attn += h
        else:  # MLA, DeepSeek-V2 §2.1 / DeepSeek-V3 config: low-rank Q and joint KV compression
            d_qk, d_v, r = self.d_qk, self.d_v, self.qk_rope_head_dim
            if self.q_lora_rank:
                q = h * self.q_lora_rank + self.q_lora_rank + self.q_lora_rank * a * d_qk
            else:
                q = h * a * d_qk
            kv = h * (self.kv_lora_rank + r) + self.kv_lora_rank + self.kv_lora_rank * a * (dh + d_v)
            attn = q + kv + a * d_v * h
        if self.pos_encoding == "relative":
            attn += h * a * dh  # Transformer-XL W_{k,R}, one per layer (Dai et al. 2019 §3.3)
        if self.qk_norm == "head":
            attn += 2 * self.d_qk   # one RMSNorm weight shared by the query heads, one for keys
        elif self.qk_norm == "full":
            attn += a * self.d_qk + g * self.d_qk
        if self.attention_sinks:
            attn += a
        moe = self.n_moe_layers
        dense = self.n_dense_ffn_layers
        parts = {
            "embedding": self.vocab_size * h,
            "lm_head": 0 if self.tied_embeddings else self.vocab_size * h,
            "position": (self.max_position_embeddings + self.position_offset) * h
                        if self.pos_encoding == "learned" else 0,
            "attention": L * attn,
            "ffn_dense": dense * (self._ffn_matrix_params(self.d_ff)
                                  + self._ffn_bias_params(self.d_ff)),
            "ffn_shared_experts": moe * self.n_shared_experts * (
                self._ffn_matrix_params(self.d_ff_expert) + self._ffn_bias_params(self.d_ff_expert)),
            "ffn_routed_experts": moe * self.n_experts * (
                self._ffn_matrix_params(self.d_ff_expert) + self._ffn_bias_params(self.d_ff_expert)),
            "router": moe * self.n_experts * (h + (1 if self.router_bias else 0)),
            "norms": (self.norms_per_layer * L + 1 + (1 if self.embedding_norm else 0))
            * self._norm_params,
        }
        return {k: int(v) for k, v in parts.items()}

    @property
    def n_params(self) -> int:
        """Total parameters (the checkpoint's size in parameters; a tied table counted once)."""
        return sum(self.param_breakdown.values())

    @property
    def n_embedding_params(self) -> int:
        """Token embedding + untied output projection + learned position table.

        Kaplan et al. 2020 exclude these from N; Chinchilla (Hoffmann et al. 2022) includes them.
        """
        b = self.param_breakdown
        return b["embedding"] + b["lm_head"] + b["position"]

    @property
    def n_nonembedding_params(self) -> int:
        """Parameters excluding ``n_embedding_params`` (Kaplan et al. 2020's N)."""
        return self.n_params - self.n_embedding_params

    @property
    def _routed_fraction(self) -> float:
        return self.n_experts_active / self.n_experts if self.is_moe else 0.0

    @property
    def n_active_params(self) -> int:
        """Parameters a token passes through: all but the unselected routed experts.

        Includes the embeddings, so Mixtral 8x7B gives 12.9B and DeepSeek-V3 37B as published.
        Equals ``n_params`` for dense models.
        """
        b = self.param_breakdown
        return int(self.n_params - b["ffn_routed_experts"]
                   + round(b["ffn_routed_experts"] * self._routed_fraction))

    @cached_property
    def matmul_params_active(self) -> dict[str, int]:
        """Active matmul weights per token by part (no embedding gather, norms or biases).

        Keys: ``attention`` (projections, incl. MLA factors and the relative-position projection),
        ``ffn`` (dense FFNs, shared and activated routed experts), ``router``, ``lm_head`` (counted
        whether or not tied).
        """
        h, a, g, dh, L = self.d_model, self.n_heads, self.n_kv_heads, self.d_head, self.n_layers
        if self.attention == "gqa":
            attn = h * a * dh + 2 * h * g * dh + a * dh * h
        else:
            d_qk, d_v, r = self.d_qk, self.d_v, self.qk_rope_head_dim
            q = (h * self.q_lora_rank + self.q_lora_rank * a * d_qk) if self.q_lora_rank \
                else h * a * d_qk
            attn = q + h * (self.kv_lora_rank + r) + self.kv_lora_rank * a * (dh + d_v) \
                + a * d_v * h
        if self.pos_encoding == "relative":
            attn += h * a * dh
        ffn = self.n_dense_ffn_layers * self._ffn_matrix_params(self.d_ff)
        ffn += self.n_moe_layers * (self.n_shared_experts + self.n_experts_active) \
            * self._ffn_matrix_params(self.d_ff_expert)
        return {"attention": L * attn, "ffn": ffn, "router": self.n_moe_layers * h * self.n_experts,
                "lm_head": self.vocab_size * h}

    @property
    def mtp_block_is_moe(self) -> bool:
        """Whether a multi-token-prediction module's transformer block is an MoE layer: it is of
        the kind of the model's last layer (DeepSeek-V3's module, ``model.layers.61`` of its
        checkpoint, holds routed and shared experts: README_WEIGHTS.md of deepseek-ai/DeepSeek-V3)."""
        return self.is_moe and (self.n_layers - self.n_dense_layers) % self.moe_layer_interval == 0

    def _mtp_ffn_matrix_params(self, active: bool) -> int:
        """The FFN matrices of one MTP block: active (shared + top-k experts) or all."""
        if not self.mtp_block_is_moe:
            return self._ffn_matrix_params(self.d_ff)
        n = self.n_shared_experts + (self.n_experts_active if active else self.n_experts)
        return n * self._ffn_matrix_params(self.d_ff_expert)

    @property
    def n_mtp_params(self) -> int:
        """Parameters of the ``mtp_depth`` multi-token-prediction modules, the shared embedding
        and output head excluded (DeepSeek-AI 2024, arXiv:2412.19437 §2.2: module k is "a shared
        embedding layer Emb(·), a shared output head OutHead(·), a Transformer block TRM_k(·),
        and a projection matrix M_k ∈ R^{d×2d}"; its inputs RMSNorm(h) and RMSNorm(Emb)):

            D · (attention of one layer + FFN block [+ router] + 2·d² + (norms_per_layer + 3)·norm)

        the three extra norm vectors being the two input RMSNorms and the norm before the shared
        head (``enorm``, ``hnorm``, ``shared_head.norm`` of the checkpoint). DeepSeek-V3: 11.61B,
        against README_WEIGHTS.md's "11.5B unique parameters, excluding the shared 0.9B Embedding
        and 0.9B output Head". 0 without MTP."""
        if not self.mtp_depth:
            return 0
        b = self.param_breakdown
        h = self.d_model
        if self.mtp_block_is_moe:
            width = self.d_ff_expert
            ffn = (self.n_shared_experts + self.n_experts) * (
                self._ffn_matrix_params(width) + self._ffn_bias_params(width))
            ffn += self.n_experts * (h + (1 if self.router_bias else 0))
        else:
            ffn = self._ffn_matrix_params(self.d_ff) + self._ffn_bias_params(self.d_ff)
        block = b["attention"] // self.n_layers + ffn + 2 * h * h \
            + (self.norms_per_layer + 3) * self._norm_params
        return int(self.mtp_depth * block)

    # ------------------------------------------------------------------ FLOPs per token
    def mtp_flops_per_token(self, seq_len=None, causal: bool = True):
        """Forward FLOPs per token of the ``mtp_depth`` multi-token-prediction modules
        (DeepSeek-AI 2024, arXiv:2412.19437 §2.2; the conventions of this module):

            D · (2·2d² + 2·P_attn + core + 2·P_ffn,active + 2·P_router + 2·V·d)

        for each depth: the projection M_k of the two normalised d-vectors, one transformer
        block (attention projections ``P_attn`` = the model's per layer, its attention core
        over the same keys as a main layer, the block's active FFN and router) and the shared
        output head, recomputed logits of the whole vocabulary. 0 without MTP."""
        s = self.seq_len if seq_len is None else seq_len
        keys = np.asarray(self.mean_attended_keys(s, causal))
        if not self.mtp_depth:
            return scalar_or_array(0.0 * keys)
        mm = self.matmul_params_active
        h = self.d_model
        core = 2.0 * self.n_heads * (self.d_qk + self.d_v) * keys
        router = h * self.n_experts if self.mtp_block_is_moe else 0
        per = (2.0 * 2 * h * h + 2.0 * mm["attention"] / self.n_layers + core
               + 2.0 * self._mtp_ffn_matrix_params(active=True) + 2.0 * router
               + 2.0 * self.vocab_size * h)
        return scalar_or_array(self.mtp_depth * per)

    def mean_attended_keys(self, seq_len, causal: bool = True):
        """Mean number of keys each query attends to over a sequence of ``seq_len`` tokens.

        Parameters
        ----------
        seq_len : int or array of int
            Sequence length(s) in tokens.
        causal : bool
            ``True``: query i attends keys 1..i, so the mean is (s+1)/2, or with a sliding window
            w, (w(w+1)/2 + (s−w)·w)/s once s > w. ``False``: the full score matrix is counted,
            s keys per query (min(s, w) with a window), the Megatron-LM paper's and PaLM's
            convention.
            With a window on only ``n_sliding_layers`` of the layers, the mean over layers:
            (n_sliding · keys_window + (n_layers − n_sliding) · keys_full) / n_layers.

        Returns
        -------
        float or ndarray, broadcast over ``seq_len``.
        """
        s = as_array(seq_len, "seq_len", positive=True, integer=True)
        causal = as_flag(causal, "causal")
        w = self.sliding_window
        full = (s + 1) / 2 if causal else s
        if not w:
            return scalar_or_array(full)
        if not causal:
            local = np.minimum(s, w)
        else:
            local = np.where(s <= w, (s + 1) / 2, (w * (w + 1) / 2 + (s - w) * w) / s)
        share = self.n_window_layers / self.n_layers
        return scalar_or_array(share * local + (1 - share) * full)

    def flops_per_token_breakdown(self, seq_len=None, training: bool = True, causal: bool = True,
                                  recompute: str = "none") -> dict:
        """FLOPs per token by part, forward or training (forward + backward [+ recompute]).

        Parameters
        ----------
        seq_len : int or array of int, optional
            Context length in tokens (default: the model's ``seq_len``).
        training : bool
            ``False``: forward pass only (2 FLOP per active matmul weight). ``True``: 3× forward.
        causal : bool
            Causal mask (mean (s+1)/2 attended keys) or full s×s (see ``mean_attended_keys``).
        recompute : {"none", "selective", "full"}
            Extra forward work re-executed in the backward pass (hardware FLOPs, for HFU).
            Only valid with ``training=True``.

        Returns
        -------
        dict of float or ndarray: ``attention_proj``, ``attention_core``, ``ffn``, ``router``,
        ``lm_head``, ``mtp`` (the multi-token-prediction modules, ``mtp_flops_per_token`` × 3;
        0 with ``training=False``, as they are discarded at inference), ``recompute`` and
        ``total`` (the sum of the others), in FLOP per token. With MTP, training is 3 × (the
        forward plus the MTP modules' forward); full recompute re-runs the MTP blocks too.

        Raises
        ------
        ValueError
            For a bad ``seq_len`` or ``recompute`` mode, or recompute without training.

        Sources: Narayanan et al. 2021 App. (Megatron FLOPs), generalised to GQA/SwiGLU/MoE as in
        Megatron-LM's ``num_floating_point_operations`` (whose attention core, from Megatron-Core
        0.12.0, is the causal one: ``causal=True`` here); attention core per query head as in
        PaLM App. B (12·L·H·Q·T for training with a full mask).
        """
        if _memoisable(seq_len, training, causal, recompute):
            return dict(_breakdown_memo(self, seq_len, training, causal, recompute))
        return self._flops_breakdown(seq_len, training, causal, recompute)

    def _flops_breakdown(self, seq_len, training, causal, recompute) -> dict:
        """``flops_per_token_breakdown``'s formula (see there)."""
        training, causal = as_flag(training, "training"), as_flag(causal, "causal")
        if recompute not in RECOMPUTE_MODES:
            raise ValueError(f"recompute={recompute!r} must be one of {RECOMPUTE_MODES}")
        if recompute != "none" and not training:
            raise ValueError(f"recompute={recompute!r} only applies with training=True")
        s = self.seq_len if seq_len is None else seq_len
        keys = np.asarray(self.mean_attended_keys(s, causal))
        mm = self.matmul_params_active
        fwd = {
            "attention_proj": 2.0 * mm["attention"],
            "attention_core": 2.0 * self.n_layers * self.n_heads * (self.d_qk + self.d_v) * keys,
            "ffn": 2.0 * mm["ffn"],
            "router": 2.0 * mm["router"],
            "lm_head": 2.0 * mm["lm_head"],
        }
        mult = 3.0 if training else 1.0
        out = {k: v * mult for k, v in fwd.items()}
        # multi-token prediction: a training objective only (discarded at inference, §2.2)
        mtp = np.asarray(self.mtp_flops_per_token(s, causal)) if training else 0.0 * keys
        out["mtp"] = 3.0 * mtp
        # the MTP blocks' own forward (no projection or head), re-run under full recompute
        mtp_block = np.maximum(mtp - self.mtp_depth * 2.0 * (2 * self.d_model ** 2
                                                             + self.vocab_size * self.d_model),
                               0.0)
        if recompute == "selective":
            out["recompute"] = fwd["attention_core"]
        elif recompute == "full":
            out["recompute"] = fwd["attention_proj"] + fwd["attention_core"] + fwd["ffn"] \
                + fwd["router"] + mtp_block
        else:
            out["recompute"] = 0.0 * keys
        out["total"] = sum(out.values())
        return {k: scalar_or_array(np.broadcast_to(v, keys.shape)) for k, v in out.items()}

    def flops_per_token(self, seq_len=None, training: bool = True, causal: bool = True,
                        recompute: str = "none"):
        """Total FLOPs per token; see ``flops_per_token_breakdown`` for the conventions.

        ``recompute="none"`` gives *model* FLOPs (for MFU); other modes give *hardware* FLOPs
        (for HFU).
        """
        return self.flops_per_token_breakdown(seq_len, training, causal, recompute)["total"]

    # ------------------------------------------------------------------ construction helpers
    def replace(self, **changes) -> "ModelSpec":
        """A copy with some fields changed (validated again)."""
        return replace(self, **changes)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_hf_config(cls, config, name: str | None = None,
                       seq_len: int | None = None) -> "ModelSpec":
        """Build a ``ModelSpec`` from a Hugging Face ``config.json`` (a path or a dict; no network).

        Families read (``model_type``): llama, mistral, mixtral, qwen2, qwen3, qwen3_moe, phi3,
        olmo2, gemma2, gemma3 / gemma3_text, gpt_oss, deepseek_v2, deepseek_v3, gpt_neox. Any other
        ``model_type`` whose config has the Llama keys (``hidden_size``, ``num_hidden_layers``,
        ``num_attention_heads``, ``intermediate_size``, ``vocab_size``) is read as a Llama-style
        decoder with a ``UserWarning`` listing the keys used, so check its count (its FFN gated
        only for a SiLU activation, ``hf_gated``); one that sets an expert count above 1
        (``HF_MOE_KEYS``) is refused.

        What each family adds to a Llama-style decoder (from each family's ``modeling_*.py`` in
        Hugging Face transformers):

        * qwen3, qwen3_moe, gemma3: per-head RMSNorm on Q and K (``qk_norm="head"``); olmo2: on
          the whole Q and K projections (``qk_norm="full"``) with the two norms after, not
          before, attention and FFN; qwen2: Q/K/V biases.
        * qwen3_moe: ``num_experts`` experts of width ``moe_intermediate_size``, top
          ``num_experts_per_tok``; layers in ``mlp_only_layers`` (or off the
          ``decoder_sparse_step`` grid) are dense.
        * gemma2, gemma3: four norms per layer, tied embeddings, gated GeLU; a window on half
          the layers (Gemma 2, alternating) or on 5 layers of every 6 (Gemma 3:
          ``sliding_window_pattern`` = 6, or the ``layer_types`` list when given). Attention
          and final-logit soft-capping (Gemma 2) are element-wise and ignored (noted in
          ``notes``). A multimodal Gemma 3 config is read from its ``text_config``; the vision
          tower is not counted.
        * gpt_oss: MoE on every layer (``num_local_experts``, top ``num_experts_per_tok``) with
          biases on every linear layer and on the router, one attention-sink logit per head,
          and a 128-token window on the layers ``layer_types`` marks ``sliding_attention``.
        * deepseek_v2, deepseek_v3: MLA modelled exactly (low-rank Q, when ``q_lora_rank`` is
          set, and joint KV factors with their norms); ``first_k_dense_replace`` dense layers.
          DeepSeek-V3's multi-token-prediction module (``num_nextn_predict_layers``) is read as
          ``mtp_depth``: in training FLOPs, not in ``n_params`` (its 671B excludes it).
        * gpt_neox (Pythia): a plain GeLU MLP, not gated; LayerNorms; biases on every linear
          layer; untied ``embed_in`` and ``embed_out`` (``_hf_gpt_neox``).

        Parameters
        ----------
        config : str, Path or dict
            A ``config.json`` file, a folder containing one, or the parsed mapping.
        name : str, optional
            Name for the spec (default: ``hf_default_name``, the file's own name, its folder's
            or the config's ``_name_or_path`` where informative, else ``model_type`` and the
            parameter count: "llama (3.2B parameters)").
        seq_len : int, optional
            Context for FLOP counts (default: the context the config states, ``hf_context``,
            which for long-context models is much longer than the pre-training sequence length:
            pass it explicitly; 2,048 where the config states none, ``context_stated`` False).

        Returns
        -------
        ModelSpec

        Raises
        ------
        ValueError
            If the file is missing or not JSON, the config is not a mapping, a required key is
            missing, or the ``model_type`` is unknown and the config lacks the Llama keys.
        """
        c, default_name = read_hf_config(config)
        kw = _hf_common(c, name or default_name or c.mtype or "hf-model", seq_len)
        notes = [] if kw["context_stated"] else [HF_NO_CONTEXT_NOTE]
        HF_FAMILY_READERS.get(c.mtype, _hf_dense)(c, kw, notes)
        try:
            spec = cls(**kw, notes=" ".join(notes))
        except ValueError as e:  # the spec's rule, in the config.json's own key names
            raise ValueError(hf_key_words(str(e))) from None
        if name or default_name:
            return spec
        return replace(spec, name=f"{c.mtype or 'hf'} ({fmt_count(spec.n_params, 2)} parameters)")


# ----------------------------------------------------------------------------- Hugging Face
#: ``ModelSpec`` fields read from one Hugging Face ``config.json`` key in every family
#: (``_hf_common``, ``_hf_attention``, ``_hf_dense``): a broken rule is said in the key's name.
HF_SPEC_KEYS = {"d_model": "hidden_size", "n_layers": "num_hidden_layers",
                "n_heads": "num_attention_heads", "n_kv_heads": "num_key_value_heads",
                "d_head": "head_dim", "d_ff": "intermediate_size"}


def hf_key_words(message: str) -> str:
    """A ``ModelSpec`` error for a spec read from a ``config.json``, with each field of
    ``HF_SPEC_KEYS`` written as the config's key (``d_model=2000`` as ``hidden_size=2000``);
    other fields keep the spec's names."""
    for f, key in HF_SPEC_KEYS.items():
        message = re.sub(rf"\b{f}\b", key, message)
    return message


@dataclass(frozen=True)
class HFConfig:
    """A Hugging Face ``config.json``, parsed: the mapping (a multimodal wrapper's
    ``text_config``), where it was read, its ``model_type`` and, for a multimodal config, the
    wrapper's own mapping (None otherwise)."""

    cfg: dict
    where: str
    mtype: str
    wrapper: dict | None = None

    def need(self, key: str):
        """``cfg[key]``, or a ValueError naming the key, the model type and the file."""
        if key not in self.cfg or self.cfg[key] is None:
            raise ValueError(f"{self.where}: required key {key!r} is missing for "
                             f"model_type={self.mtype!r}")
        return self.cfg[key]

    def get(self, key: str, default=None):
        return self.cfg.get(key, default)


#: Folder and file names that say nothing of the model a ``config.json`` describes
#: (``hf_default_name``): a download's or a cache's generic folders.
UNINFORMATIVE_NAMES = frozenset({
    "", ".", "..", "hf", "config", "configs", "model", "models", "checkpoint", "checkpoints",
    "ckpt", "snapshot", "snapshots", "tmp", "temp", "data", "weights", "latest", "final", "main",
    "output", "outputs", "hub", "huggingface", "cache", "download", "downloads"})


def informative_name(name: str) -> bool:
    """Whether a folder or file name can name a model: not one of ``UNINFORMATIVE_NAMES``
    (case aside) and not a commit hash (7 or more hexadecimal digits only: the Hugging Face
    cache's ``snapshots/<commit>`` folders)."""
    n = name.strip()
    return n.lower() not in UNINFORMATIVE_NAMES and not re.fullmatch(r"[0-9a-fA-F]{7,}", n)


def hf_default_name(cfg: dict, path: Path | None = None) -> str:
    """The name a ``config.json`` gives its model, the first informative one
    (``informative_name``) of: the file's own name when it is not ``config.json``
    (``tiny.json`` → "tiny"); its folder's (a download's ``TinyLlama-1.1B/config.json``); the
    repository of a Hugging Face cache folder above it
    (``models--meta-llama--Llama-3.2-3B/snapshots/<commit>/`` → "Llama-3.2-3B"); the last part
    of the config's ``_name_or_path``. "" when none is (``ModelSpec.from_hf_config`` then
    names the model by its ``model_type`` and parameter count)."""
    names = []
    if path is not None:
        names.append(path.stem if path.name != "config.json" else "")
        names.append(path.parent.name)
        names += [a.name.split("--")[-1] for a in path.parents[:4]
                  if a.name.startswith("models--")]
    names.append(str(cfg.get("_name_or_path") or "").rstrip("/").split("/")[-1])
    return next((n for n in names if informative_name(n)), "")


def read_hf_config(config) -> tuple[HFConfig, str]:
    """``(HFConfig, default name)`` of a ``config.json`` path, a folder holding one, or a dict.
    A multimodal config (Gemma 3 4B-27B) is read from its ``text_config``; a ``model_type``
    outside ``HF_FAMILY_READERS`` is read as a Llama-style decoder with a ``UserWarning``
    (``check_hf_family``).

    Raises
    ------
    ValueError
        A missing file, invalid JSON, a config that is not a mapping.
    """
    if isinstance(config, dict):
        cfg, where = dict(config), "config"
        default_name = hf_default_name(cfg)
    elif isinstance(config, (str, Path)):
        p = Path(config)
        if p.is_dir():
            p = p / "config.json"
        if not p.is_file():
            raise ValueError(f"config={str(config)!r}: no config.json found")
        try:
            cfg = json.loads(p.read_text())
        except json.JSONDecodeError as e:
            raise ValueError(f"config={str(p)!r} is not valid JSON: {e}") from None
        where = str(p)
        if not isinstance(cfg, dict):
            raise ValueError(f"config={where!r} must hold a JSON object, got "
                             f"{type(cfg).__name__}")
        default_name = hf_default_name(cfg, p)
    else:
        raise ValueError(f"config={config!r} must be a path to a config.json or a dict")
    wrapper = None
    if isinstance(cfg.get("text_config"), dict):  # multimodal wrapper (Gemma 3 4B-27B)
        inner = dict(cfg["text_config"])
        inner.setdefault("model_type", cfg.get("model_type", ""))
        cfg, wrapper = inner, cfg
    c = HFConfig(cfg, where, str(cfg.get("model_type", "")), wrapper)
    check_hf_family(c)
    return c, default_name


#: The keys a Llama-style decoder is read from.
HF_LLAMA_KEYS = ("hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size",
                 "vocab_size")


#: Expert-count keys of Hugging Face MoE configs (transformers' Mixtral / Qwen-MoE / GPT-OSS /
#: DeepSeek / OLMoE configuration classes): an unknown family that sets one above 1 is a MoE.
HF_MOE_KEYS = ("num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts")

#: The families ``HF_FAMILY_READERS`` reads as mixtures of experts.
HF_MOE_FAMILIES = ("mixtral", "qwen3_moe", "gpt_oss", "deepseek_v2", "deepseek_v3")


class UnknownFamilyWarning(UserWarning):
    """A ``config.json`` of a ``model_type`` outside ``HF_FAMILY_READERS``, read as a Llama-style
    decoder (``check_hf_family``): kept in a scenario's warning list too
    (``checks._config_model_warnings``)."""


class ConfigDefaultWarning(UnknownFamilyWarning):
    """A ``config.json`` that leaves out a key the count depends on, read at a stated default
    (``_hf_attention``'s ``num_key_value_heads``): kept in a scenario's warning list as the
    unknown family's warning is."""


#: transformers' own default ``num_key_value_heads`` of a family whose config class sets a
#: number (src/transformers/models/<family>/configuration_<family>.py: qwen3_moe @ 008e5743,
#: ``num_key_value_heads: int = 4``; qwen3 @ 008e5743, ``int | None = 32``, a number, not the
#: attention heads; mistral @ 001f85b3, ``num_key_value_heads: int | None = 8``); LlamaConfig's
#: is None, then ``num_attention_heads`` (configuration_llama.py @ 008e5743,
#: ``__post_init__``): multi-head attention.
HF_KV_HEADS_DEFAULT = {"qwen3_moe": 4, "qwen3": 32, "mistral": 8}


def check_hf_family(c: HFConfig) -> None:
    """A ``model_type`` outside ``HF_FAMILY_READERS``: read as a Llama-style decoder when its
    config has ``HF_LLAMA_KEYS`` (a ``UserWarning`` lists the keys used), else a ValueError; a
    ValueError too when it sets an expert count above 1 (``HF_MOE_KEYS``): a dense reading of
    a MoE counts neither its total nor its active parameters; and so for a dense family that
    sets one (a trial's ``model_type: llama`` with ``num_local_experts: 8`` was read as a dense
    6.7B model without a word)."""
    known = tuple(HF_FAMILY_READERS)
    experts = [(k, c.get(k)) for k in HF_MOE_KEYS
               if isinstance(c.get(k), (int, float)) and c.get(k) > 1]
    if c.mtype in HF_FAMILY_READERS and (c.mtype in HF_MOE_FAMILIES or not experts):
        return
    missing = [k for k in HF_LLAMA_KEYS if c.get(k) is None]
    if missing and c.mtype not in HF_FAMILY_READERS:
        raise ValueError(f"model_type={c.mtype!r} in {c.where} is not supported (supported: "
                         f"{', '.join(known)}) and the config lacks the Llama keys "
                         f"{missing}, so it cannot be read as a Llama-style decoder")
    if experts:
        k, n = experts[0]
        moe = ", ".join(t for t in known if t in HF_MOE_FAMILIES)
        what = ("is read as a dense family" if c.mtype in HF_FAMILY_READERS else
                "is not supported")
        raise ValueError(f"model_type={c.mtype!r} in {c.where} {what} and has "
                         f"{k}={n}: a mixture of experts, which a Llama-style reading would "
                         "count as one dense FFN (its total and active parameters both wrong); "
                         f"the mixture-of-experts families read are {moe}")
    used = [k for k in HF_LLAMA_KEYS + ("num_key_value_heads", "head_dim",
                                        "tie_word_embeddings", "hidden_act",
                                        "attention_bias", "mlp_bias", "sliding_window",
                                        "max_position_embeddings") if k in c.cfg]
    warnings.warn(f"model_type={c.mtype!r} is not a known family: read as a Llama-style "
                  f"decoder from the keys {', '.join(used)}; other keys are ignored, "
                  "so check the parameter count against the checkpoint", UnknownFamilyWarning,
                  stacklevel=4)  # the caller of ModelSpec.from_hf_config


#: The keys a Hugging Face ``config.json`` states a model's context under: transformers'
#: ``PretrainedConfig`` convention ``max_position_embeddings``; GPT-2's ``n_positions``
#: (``GPT2Config``, whose ``attribute_map`` reads it as ``max_position_embeddings``); MPT's and
#: DBRX's ``max_seq_len``; ChatGLM's and Qwen (1)'s ``seq_length``.
HF_CONTEXT_KEYS = ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length")

#: How ``ModelSpec.source`` begins for a spec read from a ``config.json`` (``from_hf_config``).
HF_SOURCE_HEAD = "Hugging Face config.json"

#: ``ModelSpec.notes`` of a model whose ``config.json`` states no context (``hf_context``).
HF_NO_CONTEXT_NOTE = ("The config.json states no context (none of " + ", ".join(HF_CONTEXT_KEYS)
                      + "): seq_len defaults to 2,048 for FLOP counts only, and a scenario's "
                      "length is not checked against the model's.")


def hf_context(c: HFConfig) -> tuple[int, str]:
    """``(tokens, key)``: the context a config states, the first of ``HF_CONTEXT_KEYS`` given in
    it (a multimodal config's ``text_config``: ``text_config.max_position_embeddings``), else in
    a multimodal wrapper's top level; ``(0, "")`` where none is (the released Gemma 3 4B
    ``config.json`` states none: transformers fills its ``Gemma3TextConfig`` default).

    Raises
    ------
    ValueError
        A context key given (not null) that is not a whole number >= 1, naming it and the file.
    """
    places = ((("text_config." if c.wrapper is not None else ""), c.cfg), ("", c.wrapper or {}))
    for prefix, cfg in places:
        for k in HF_CONTEXT_KEYS:
            v = cfg.get(k)
            if v is None:
                continue
            if isinstance(v, bool) or not isinstance(v, (int, float)) \
                    or not np.isfinite(v) or v < 1 or v != int(v):
                raise ValueError(f"{c.where}: {prefix}{k}={v!r} must be a whole number of "
                                 "tokens >= 1 (the model's context)")
            return int(v), prefix + k
    return 0, ""


def _hf_common(c: HFConfig, name: str, seq_len) -> dict:
    """The ``ModelSpec`` fields every family shares: shape, vocabulary, tying (Gemma ties by
    default), RMSNorm, RoPE, context (``hf_context``; not stated: ``context_stated`` False and
    ``seq_len`` 2,048 for FLOP counts only), and a gated FFN where the family gates it
    (``hf_gated``)."""
    mtype = c.mtype
    context, _ = hf_context(c)
    h, n_heads = c.need("hidden_size"), c.need("num_attention_heads")
    kw = dict(
        name=name,
        n_layers=c.need("num_hidden_layers"),
        d_model=h,
        n_heads=n_heads,
        vocab_size=c.need("vocab_size"),
        tied_embeddings=bool(c.get("tie_word_embeddings", mtype.startswith("gemma"))),
        norm="rmsnorm",
        pos_encoding="rope",
        seq_len=int(seq_len or context or 2048),
        max_position_embeddings=context,
        context_stated=bool(context),
        source=f"{HF_SOURCE_HEAD} ({c.where})",
    )
    kw["ffn_type"] = "gated" if hf_gated(c) else "mlp"
    return kw


#: Families whose FFN has no gate whatever the activation (two matrices, ``fc_in`` / ``fc_out``
#: or ``dense_h_to_4h`` / ``dense_4h_to_h``): transformers' ``modeling_gpt_neox.py``,
#: ``modeling_gpt2.py``, ``modeling_gpt_neo.py``, ``modeling_gptj.py``, ``modeling_opt.py``,
#: ``modeling_bloom.py``, ``modeling_falcon.py``, ``modeling_mpt.py``,
#: ``modeling_gpt_bigcode.py``, ``modeling_phi.py``.
HF_PLAIN_MLP_FAMILIES = ("gpt_neox", "gpt2", "gpt_neo", "gptj", "opt", "bloom", "falcon", "mpt",
                         "gpt_bigcode", "phi")

#: Activations read as gated for a family outside ``HF_FAMILY_READERS``: SiLU (SwiGLU, Llama's
#: ``gate_proj``). A GeLU is gated only in the families that gate it (Gemma's GeGLU).
HF_GATED_ACTS = ("silu", "swish", "swiglu")


def hf_gated(c: HFConfig) -> bool:
    """Whether a config's FFN is gated (three matrices): every family ``HF_FAMILY_READERS``
    reads gates it (Llama, Mistral, Qwen, Phi-3, OLMo 2, Gemma, gpt-oss, DeepSeek) except
    ``HF_PLAIN_MLP_FAMILIES``; any Gemma; another family when its activation is SiLU
    (``HF_GATED_ACTS``), not a plain GeLU / ReLU (GPT-NeoX, GPT-2, OPT, BLOOM, Falcon)."""
    if c.mtype in HF_PLAIN_MLP_FAMILIES:
        return False
    if c.mtype in HF_FAMILY_READERS or c.mtype.startswith("gemma"):
        return True
    act = str(c.get("hidden_activation") or c.get("hidden_act") or "silu")
    return act in HF_GATED_ACTS


#: Per-head (``"head"``) or whole-projection (``"full"``) RMSNorm on Q and K, by family
#: (transformers' ``modeling_qwen3.py``, ``modeling_gemma3.py``, ``modeling_olmo2.py``).
HF_QK_NORM = {"qwen3": "head", "qwen3_moe": "head", "gemma3": "head", "gemma3_text": "head",
              "olmo2": "full"}


def _hf_default_kv_heads(c: HFConfig, kw: dict) -> int:
    """The key-value heads of a ``config.json`` without ``num_key_value_heads``: its family's
    transformers default (``HF_KV_HEADS_DEFAULT``), else LlamaConfig's rule, the attention
    heads (multi-head attention), with a ``ConfigDefaultWarning`` saying which (a trial's
    qwen3_moe config without the key was read as 24 KV heads, where transformers reads 4, and
    its bill moved 5% unsaid)."""
    n, mtype = kw["n_heads"], c.mtype or "this"
    kv = HF_KV_HEADS_DEFAULT.get(c.mtype)
    if kv is not None:
        how = f"{kv}, transformers' default for model_type {mtype}"
    else:
        kv = n
        how = (f"num_attention_heads = {n} (multi-head attention), transformers' LlamaConfig "
               "rule" + ("" if c.mtype in ("llama", None, "") else
                         f"; transformers' {mtype} class may default otherwise"))
    warnings.warn(ConfigDefaultWarning(
        f"{kw.get('name', 'the model')}: config.json gives no num_key_value_heads: read as "
        f"{how}; give it (the key-value heads size the K/V projections and the KV cache)"),
        stacklevel=3)
    return kv


def _hf_attention(c: HFConfig, kw: dict, notes: list) -> None:
    """GQA heads, head width, biases (Qwen2: Q/K/V always; gpt-oss: every linear layer), Q/K
    norms (``HF_QK_NORM``), Gemma's four norms per layer, sliding windows
    (``_hf_windows``) and the soft-capping note."""
    mtype = c.mtype
    kw["n_kv_heads"] = c.get("num_key_value_heads") or _hf_default_kv_heads(c, kw)
    if c.get("head_dim"):
        kw["d_head"] = c.cfg["head_dim"]
    if mtype == "qwen2":
        kw["bias"] = "qkv"  # Qwen2 attention always has q/k/v biases
    elif mtype == "gpt_oss":
        kw["bias"] = "all"
    elif c.get("attention_bias"):
        kw["bias"] = "qkv" if not c.get("mlp_bias") else "all"
    if mtype in HF_QK_NORM:
        kw["qk_norm"] = HF_QK_NORM[mtype]
    if mtype.startswith("gemma"):
        kw["norms_per_layer"] = 4
    _hf_windows(c, kw)
    if c.get("attn_logit_softcapping") or c.get("final_logit_softcapping"):
        notes.append("Attention and final-logit soft-capping are element-wise (no "
                     "parameters, < 0.1% of FLOPs) and ignored.")


def _hf_windows(c: HFConfig, kw: dict) -> None:
    """Which layers have a sliding window: those ``layer_types`` marks ``sliding_attention``;
    else Gemma 2 every other layer, Gemma 3 all but one of every ``sliding_window_pattern``
    (6); else every layer (Qwen only with ``use_sliding_window``)."""
    mtype, n_layers = c.mtype, kw["n_layers"]
    sw = c.get("sliding_window")
    types = c.get("layer_types")
    if sw and isinstance(types, list) and len(types) == n_layers:
        n_local = sum(t == "sliding_attention" for t in types)
        if n_local:
            kw.update(sliding_window=int(sw), n_sliding_layers=n_local)
    elif sw and mtype == "gemma2":
        kw.update(sliding_window=int(sw), n_sliding_layers=(n_layers + 1) // 2)
    elif sw and mtype in ("gemma3", "gemma3_text"):
        period = int(c.get("sliding_window_pattern") or 6)
        kw.update(sliding_window=int(sw), n_sliding_layers=n_layers - n_layers // period)
    elif sw and (mtype not in ("qwen2", "qwen3", "qwen3_moe") or c.get("use_sliding_window")):
        kw["sliding_window"] = int(sw)


def _hf_dense(c: HFConfig, kw: dict, notes: list) -> None:
    """A Llama-style decoder: its attention (``_hf_attention``) and a dense FFN of width
    ``intermediate_size``."""
    _hf_attention(c, kw, notes)
    kw["d_ff"] = c.need("intermediate_size")


def _hf_mixtral(c: HFConfig, kw: dict, notes: list) -> None:
    """Mixtral: MoE on every layer, ``num_local_experts`` experts of width
    ``intermediate_size``, top ``num_experts_per_tok``."""
    _hf_attention(c, kw, notes)
    kw.update(n_experts=c.need("num_local_experts"),
              n_experts_active=c.need("num_experts_per_tok"),
              d_ff_expert=c.need("intermediate_size"))


def _hf_gpt_oss(c: HFConfig, kw: dict, notes: list) -> None:
    """gpt-oss: MoE on every layer (as Mixtral) with router biases and one attention-sink logit
    per head; its MXFP4 release noted."""
    _hf_attention(c, kw, notes)
    kw.update(n_experts=c.need("num_local_experts"),
              n_experts_active=c.need("num_experts_per_tok"),
              d_ff_expert=c.need("intermediate_size"), attention_sinks=True,
              router_bias=True, glu_limit=float(c.get("swiglu_limit") or 0.0))
    notes.append("MoE weights are released in MXFP4; the count is of parameters, not "
                 "bytes.")


def _hf_qwen3_moe(c: HFConfig, kw: dict, notes: list) -> None:
    """Qwen3-MoE: ``num_experts`` experts of width ``moe_intermediate_size``, top
    ``num_experts_per_tok``; layers in ``mlp_only_layers`` (first ones only) or off the
    ``decoder_sparse_step`` grid are dense, of width ``intermediate_size``."""
    _hf_attention(c, kw, notes)
    n_layers = kw["n_layers"]
    step = int(c.get("decoder_sparse_step") or 1)
    raw = c.get("mlp_only_layers") or []
    if not isinstance(raw, (list, tuple)):
        raise ValueError(f"{c.where}: mlp_only_layers={raw!r} must be a list of layer indices")
    outside = [i for i in raw if isinstance(i, bool) or not isinstance(i, int)
               or not 0 <= i < n_layers]
    if outside:   # a trial's [99] on a 24-layer model was ignored without a word
        raise ValueError(f"{c.where}: mlp_only_layers={list(raw)!r} holds {outside!r}, not layer "
                         f"indices of the {n_layers} layers (0 to {n_layers - 1})")
    dense_only = set(raw)
    moe_layers = [i for i in range(n_layers) if i not in dense_only and (i + 1) % step == 0]
    kw.update(n_experts=c.need("num_experts"),
              n_experts_active=c.need("num_experts_per_tok"),
              d_ff_expert=c.need("moe_intermediate_size"))
    if len(moe_layers) != n_layers:
        if dense_only and step == 1 and sorted(dense_only) == list(range(len(dense_only))):
            kw["n_dense_layers"] = len(dense_only)
        elif not dense_only:
            kw["moe_layer_interval"] = step
        else:
            raise ValueError(f"{c.where}: mlp_only_layers={sorted(dense_only)} with "
                             f"decoder_sparse_step={step} is a layer pattern ModelSpec "
                             "cannot describe (dense layers first, or every k-th MoE)")
        kw["d_ff"] = c.need("intermediate_size")


def _hf_mla(c: HFConfig, kw: dict, notes: list) -> None:
    """DeepSeek-V2 / V3: MLA (low-rank Q when ``q_lora_rank`` is set, joint KV factors),
    ``first_k_dense_replace`` dense layers, routed and shared experts; V3's
    multi-token-prediction modules (``num_nextn_predict_layers``) as ``mtp_depth``."""
    kw.update(
        attention="mla",
        d_head=c.need("qk_nope_head_dim"),
        qk_rope_head_dim=c.need("qk_rope_head_dim"),
        v_head_dim=c.need("v_head_dim"),
        kv_lora_rank=c.need("kv_lora_rank"),
        q_lora_rank=c.get("q_lora_rank") or 0,
        d_ff=c.need("intermediate_size"),
        n_experts=c.need("n_routed_experts"),
        n_experts_active=c.need("num_experts_per_tok"),
        n_shared_experts=c.get("n_shared_experts") or 0,
        d_ff_expert=c.need("moe_intermediate_size"),
        n_dense_layers=c.get("first_k_dense_replace", 0),
        moe_layer_interval=c.get("moe_layer_freq", 1),
        mtp_depth=c.get("num_nextn_predict_layers") or 0,
    )
    notes.append("MLA modelled exactly." + (
        " The multi-token-prediction modules (num_nextn_predict_layers) are counted in "
        "training FLOPs, not in the parameter count." if kw.get("mtp_depth") else ""))


def _hf_gpt_neox(c: HFConfig, kw: dict, notes: list) -> None:
    """GPT-NeoX (Pythia, GPT-NeoX-20B; transformers' ``modeling_gpt_neox.py``): full multi-head
    attention with a fused QKV projection, biases on every linear layer, a plain GeLU MLP of
    width ``intermediate_size``, LayerNorms (weight and bias: two per layer and a final one),
    separate ``embed_in`` and ``embed_out`` tables (``tie_word_embeddings`` false by default)
    and rotary embeddings on ``rotary_pct`` of each head (no parameters). The parallel
    residual (``use_parallel_residual``) changes neither the count nor the FLOPs."""
    kw["n_kv_heads"] = kw["n_heads"]
    kw.update(norm="layernorm", bias="all", ffn_type="mlp", d_ff=c.need("intermediate_size"))
    if c.get("attention_bias") is False:
        notes.append("attention_bias=false: the attention biases (4 x hidden_size per layer, "
                     "< 0.01% of the count) are counted all the same.")


#: The ``model_type`` families ``ModelSpec.from_hf_config`` reads -> the reader that adds the
#: family's attention and FFN to ``_hf_common``'s fields; any other type with the Llama keys is
#: read by ``_hf_dense``.
HF_FAMILY_READERS = {
    "llama": _hf_dense, "mistral": _hf_dense, "mixtral": _hf_mixtral, "qwen2": _hf_dense,
    "qwen3": _hf_dense, "qwen3_moe": _hf_qwen3_moe, "phi3": _hf_dense, "olmo2": _hf_dense,
    "gemma2": _hf_dense, "gemma3": _hf_dense, "gemma3_text": _hf_dense,
    "gpt_oss": _hf_gpt_oss, "deepseek_v2": _hf_mla, "deepseek_v3": _hf_mla,
    "gpt_neox": _hf_gpt_neox,
}


def _memoisable(seq_len, training, causal, recompute) -> bool:
    """Whether a ``flops_per_token_breakdown`` call is one of scalars that ``_breakdown_memo``
    may answer (a valid call of the same figures always gives the same dict)."""
    return (seq_len is None or (isinstance(seq_len, (int, float, np.integer, np.floating))
                                and not isinstance(seq_len, bool))) \
        and type(training) is bool and type(causal) is bool and isinstance(recompute, str)


@lru_cache(maxsize=4096)
def _breakdown_memo(spec: ModelSpec, seq_len, training: bool, causal: bool,
                    recompute: str) -> dict:
    """``ModelSpec._flops_breakdown`` memoised for scalar calls (the specs are frozen): the
    step-time engine asks the same model and sequence length several times per plan and again
    for every plan; callers get a copy of the dict of floats."""
    return spec._flops_breakdown(seq_len, training, causal, recompute)

