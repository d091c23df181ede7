"""ModelSpec: parameter counts and FLOPs per token against published figures.

Sources of the expected values: the `official_params` column of data/models.csv (model cards and
papers, cited per row) and the test vectors 1.a-1.k of tests/data/test_vectors.csv (Megatron-LM,
PaLM).
"""

import dataclasses
import warnings
from pathlib import Path

import numpy as np
import pytest

import llmcost
from llmcost import ModelSpec

HF = Path(__file__).parent / "data" / "hf_configs"


@pytest.mark.parametrize("name, official, tol", [
    ("llama-3.1-8b", 8.03e9, 0.005),     # Llama 3.1 model card
    ("llama-3.1-70b", 70.6e9, 0.005),
    ("llama-3.1-405b", 405.9e9, 0.005),
    ("llama-2-70b", 69.0e9, 0.005),      # count from the released config
    ("gpt-3-175b", 174.6e9, 0.01),       # Brown et al. 2020, Table D.1
    ("mixtral-8x7b", 46.7e9, 0.005),     # Jiang et al. 2024
    # DeepSeek-V3 report §4.2: "671B" total (the main model; the MTP module's 14B apart), a
    # figure rounded to 1B, so +/- 0.5B = 7.5e-4 is the most it says; this count 671,026,404,352
    ("deepseek-v3", 671e9, 1e-3),
    ("bloom-176b", 176.247e9, 0.001),    # BigScience 2022, Table 3
    ("palm-540b", 540.35e9, 0.001),      # Chowdhery et al. 2022, Table 1
    ("nemotron-4-340b", 341.0e9, 0.005),  # 9.4B embedding + 331.6B non-embedding
    ("gopher-280b", 280e9, 0.005),
    ("chinchilla-70b", 70e9, 0.005),
    ("qwen2.5-72b", 72.7e9, 0.005),
])
def test_total_parameters_match_published(name, official, tol):
    assert llmcost.load_model(name).n_params == pytest.approx(official, rel=tol)


@pytest.mark.parametrize("name, active, tol", [
    ("mixtral-8x7b", 12.9e9, 0.005),
    ("deepseek-v3", 37e9, 0.02),
])
def test_active_parameters_match_published(name, active, tol):
    assert llmcost.load_model(name).n_active_params == pytest.approx(active, rel=tol)


@pytest.mark.parametrize("name, exact", [
    # Exact counts of the released checkpoints (Hugging Face safetensors metadata).
    ("llama-2-7b", 6_738_415_616),
    ("llama-3.1-8b", 8_030_261_248),
    ("mixtral-8x7b", 46_702_792_704),
    ("mistral-7b", 7_241_732_096),
])
def test_exact_counts_of_released_checkpoints(name, exact):
    assert llmcost.load_model(name).n_params == exact


def test_nemotron_embedding_split():
    # Nemotron-4 340B report §2.2: 9.4B embedding and 331.6B non-embedding parameters.
    m = llmcost.load_model("nemotron-4-340b")
    assert m.n_embedding_params == pytest.approx(9.4e9, rel=0.005)
    assert m.n_nonembedding_params == pytest.approx(331.6e9, rel=0.001)


def test_llama3_405b_vector():
    # test vector 1.h: non-embedding 401.65e9, total 405.85e9, full-mask count 2.6254e12 at 8K.
    m = llmcost.load_model("llama-3.1-405b")
    assert m.n_nonembedding_params == pytest.approx(401.65e9, rel=1e-4)
    assert m.n_params == pytest.approx(405.85e9, rel=1e-4)
    assert m.flops_per_token(8192, causal=False) == pytest.approx(2.6254e12, rel=1e-3)


def test_palm_flops_per_token():
    # PaLM App. B: 6N + 12·L·H·Q·T = 3.2777e12 for L=118, H=48, Q=256, T=2048 (test vector 1.a).
    m = llmcost.load_model("palm-540b")
    expected = 6 * 540.35e9 + 12 * 118 * 48 * 256 * 2048
    assert m.flops_per_token(2048, causal=False) == pytest.approx(expected, rel=1e-3)
    # and against the paper's printed value (to its 5 significant figures)
    assert m.flops_per_token(2048, causal=False) == pytest.approx(3.2777e12, rel=5e-5)


def _megatron_gpt(vocab=51200, **kw):
    base = dict(name="gpt", n_layers=96, d_model=12288, n_heads=96, vocab_size=vocab,
                d_ff=4 * 12288, ffn_type="mlp", tied_embeddings=True, norm="layernorm",
                bias="none", pos_encoding="rope", seq_len=2048)
    base.update(kw)
    return ModelSpec(**base)


def test_megatron_formula_exactly():
    # Narayanan et al. 2021, App.: F = 72·B·s·l·h²·(1 + s/(6h) + V/(12·l·h)) per iteration (no
    # recompute), 96·B·s·l·h²·(1 + s/(6h) + V/(16·l·h)) with full recompute; full mask.
    m = _megatron_gpt()
    l, h, s, V = 96, 12288, 2048, 51200
    per_token_72 = 72 * l * h**2 * (1 + s / (6 * h) + V / (12 * l * h))
    per_token_96 = 96 * l * h**2 * (1 + s / (6 * h) + V / (16 * l * h))
    assert m.flops_per_token(s, causal=False) == pytest.approx(per_token_72, rel=1e-12)
    assert m.flops_per_token(s, causal=False, recompute="full") == pytest.approx(per_token_96,
                                                                                  rel=1e-12)
    # test vector 1.d, the model's counts against the printed values (5 significant figures)
    assert m.flops_per_token(s, causal=False) == pytest.approx(1.0764e12, rel=5e-5)
    assert m.flops_per_token(s, causal=False, recompute="full") == pytest.approx(1.4340e12,
                                                                                  rel=5e-5)


def test_megatron_1t_vector():
    # test vector 1.e: B=3072, s=2048, l=128, h=25600, V=51200: F_model 3.8555e19, F_hw 5.1391e19.
    m = ModelSpec(name="1t", n_layers=128, d_model=25600, n_heads=160, vocab_size=51200,
                  d_ff=4 * 25600, ffn_type="mlp", tied_embeddings=True)
    tokens = 3072 * 2048
    assert m.flops_per_token(2048, causal=False) * tokens == pytest.approx(3.8555e19, rel=1e-4)
    assert m.flops_per_token(2048, causal=False, recompute="full") * tokens == pytest.approx(
        5.1391e19, rel=1e-4)


def test_tied_and_untied_embeddings_give_same_matmul_flops():
    untied = llmcost.load_model("llama-3.1-8b")
    tied = untied.replace(tied_embeddings=True)
    assert tied.n_params == untied.n_params - untied.vocab_size * untied.d_model
    assert tied.flops_per_token(8192) == untied.flops_per_token(8192)


def test_moe_flops_use_activated_experts():
    m = llmcost.load_model("mixtral-8x7b")
    per_expert = 3 * m.d_model * m.d_ff_expert
    b = m.flops_per_token_breakdown(4096, training=False)
    assert b["ffn"] == 2 * m.n_layers * m.n_experts_active * per_expert
    # Twice the activated experts, twice the FFN FLOPs; the total parameters do not change.
    m4 = m.replace(n_experts_active=4)
    assert m4.n_params == m.n_params
    assert m4.flops_per_token_breakdown(4096, training=False)["ffn"] == 2 * b["ffn"]


def test_deepseek_v3_moe_layout():
    m = llmcost.load_model("deepseek-v3")
    assert (m.n_moe_layers, m.n_dense_ffn_layers) == (58, 3)
    # 6·N_active·D with the report's 37B and 14.8T tokens: 3.2856e24 (test vector 1.k).
    assert llmcost.training_flops(37e9, 14.8e12) == pytest.approx(3.2856e24, rel=1e-4)
    assert llmcost.training_flops(m, 14.8e12) == pytest.approx(3.2856e24, rel=0.02)


def test_gqa_shrinks_projections_not_attention_core():
    gqa = llmcost.load_model("llama-2-70b")
    mha = gqa.replace(n_kv_heads=gqa.n_heads)
    b_gqa, b_mha = gqa.flops_per_token_breakdown(4096), mha.flops_per_token_breakdown(4096)
    assert b_gqa["attention_core"] == b_mha["attention_core"]
    kv_saved = 2 * gqa.d_model * (gqa.n_heads - gqa.n_kv_heads) * gqa.d_head * gqa.n_layers
    assert b_mha["attention_proj"] - b_gqa["attention_proj"] == 6 * kv_saved
    # The attention core scales with query heads.
    fewer_q = gqa.replace(n_heads=32, d_head=128)
    assert fewer_q.flops_per_token_breakdown(4096)["attention_core"] == pytest.approx(
        b_gqa["attention_core"] / 2)


def test_causal_mask_halves_attention_core_keys():
    m = llmcost.load_model("llama-3.1-8b")
    assert m.mean_attended_keys(8192, causal=False) == 8192
    assert m.mean_attended_keys(8192, causal=True) == pytest.approx(8193 / 2)


def test_sliding_window_mean_attended_keys():
    m = llmcost.load_model("mistral-7b")
    w = m.sliding_window
    assert w == 4096
    # s <= w: the plain causal mean.
    assert m.mean_attended_keys(4096) == pytest.approx(4097 / 2)
    # s = 2w: (w(w+1)/2 + w·w) / 2w = 3072.25
    assert m.mean_attended_keys(8192) == pytest.approx(3072.25)
    # Brute force over positions for an odd length.
    s = 10_001
    pos = np.arange(1, s + 1)
    assert m.mean_attended_keys(s) == pytest.approx(np.minimum(pos, w).mean())
    assert m.mean_attended_keys(s, causal=False) == w
    # Very long contexts approach w keys per query.
    assert m.mean_attended_keys(2**22) == pytest.approx(w, rel=1e-3)


def test_flops_breakdown_sums_and_broadcasts():
    m = llmcost.load_model("deepseek-v3")
    seqs = np.array([1024, 4096, 32768])
    b = m.flops_per_token_breakdown(seqs, recompute="selective")
    parts = sum(v for k, v in b.items() if k != "total")
    np.testing.assert_allclose(parts, b["total"])
    assert b["total"].shape == (3,)
    assert np.all(np.diff(b["total"]) > 0)


def test_param_breakdown_sums_to_total():
    for name in llmcost.list_models()["name"]:
        m = llmcost.load_model(name)
        assert sum(m.param_breakdown.values()) == m.n_params
        assert m.n_active_params <= m.n_params


@pytest.mark.parametrize("name", ["llama-3.1-8b", "mistral-7b", "mixtral-8x7b", "qwen2.5-72b",
                                  "deepseek-v3", "qwen3-4b", "qwen3-30b-a3b"])
def test_from_hf_config_matches_catalogue(name):
    spec = ModelSpec.from_hf_config(HF / f"{name}.json", name=name)
    cat = llmcost.load_model(name)
    assert spec.n_params == cat.n_params
    assert spec.n_active_params == cat.n_active_params
    assert spec.sliding_window == cat.sliding_window
    assert spec.flops_per_token(4096) == pytest.approx(cat.flops_per_token(4096))


# Exact counts of released checkpoints (sources per row in tests/data/hf_configs/README.md:
# model.safetensors.index.json total_size ÷ bytes per element, or Hugging Face's safetensors
# count); configs written from each checkpoint's published config.json.
@pytest.mark.parametrize("file, model_type, exact", [
    ("qwen3-4b", "qwen3", 4_022_468_096),            # 8,044,936,192 B bf16 / 2
    ("qwen3-30b-a3b", "qwen3_moe", 30_532_122_624),  # 61,064,245,248 B bf16 / 2
    ("deepseek-v2-lite", "deepseek_v2", 15_706_484_224),  # 31,412,968,448 B bf16 / 2
    ("phi-3-mini-4k", "phi3", 3_821_079_552),        # 7,642,159,104 B bf16 / 2
    ("gemma-2-2b", "gemma2", 2_614_341_888),         # HF safetensors.total
    ("gemma-3-1b", "gemma3_text", 999_885_952),      # HF safetensors.total, KerasHub preset
    ("olmo-2-1124-7b", "olmo2", 7_298_617_344),      # HF safetensors.total (F32)
])
def test_from_hf_config_exact_counts_of_released_checkpoints(file, model_type, exact):
    import json
    assert json.loads((HF / f"{file}.json").read_text())["model_type"] == model_type
    assert ModelSpec.from_hf_config(HF / f"{file}.json").n_params == exact


# The catalogue's Qwen3 rows against their checkpoints' exact counts: each index's
# model.safetensors.index.json metadata.total_size ÷ 2 (bf16). Qwen/Qwen3-4B 8,044,936,192 B and
# Qwen/Qwen3-30B-A3B 61,064,245,248 B (tests/data/hf_configs/README.md); Qwen/Qwen3-235B-A22B
# 470,187,269,120 B (Hugging Face model repository, model.safetensors.index.json). Hand derivation
# of the part the rows used to miss: Qwen3 normalises each query and key head with an RMSNorm of
# head_dim weights (q_norm, k_norm in every layer's self_attn), 2 × 128 × n_layers parameters:
# 9,216 (36 layers), 12,288 (48) and 24,064 (94).
@pytest.mark.parametrize("name, total_bytes, n_layers", [
    ("qwen3-4b", 8_044_936_192, 36),
    ("qwen3-30b-a3b", 61_064_245_248, 48),
    ("qwen3-235b-a22b", 470_187_269_120, 94),
])
def test_catalogue_qwen3_counts_are_the_checkpoints(name, total_bytes, n_layers):
    m = llmcost.load_model(name)
    assert m.qk_norm == "head" and m.d_head == 128 and m.n_layers == n_layers
    assert m.n_params == total_bytes // 2
    without = ModelSpec(**{**{f.name: getattr(m, f.name) for f in dataclasses.fields(m)},
                           "qk_norm": "none"})
    assert m.n_params - without.n_params == 2 * 128 * n_layers


def test_gpt_oss_matches_its_model_card():
    # OpenAI 2025, gpt-oss model card (arXiv:2508.10925) Table 1: gpt-oss-20b has 20.91B
    # parameters, 3.61B active per token (the card's active count leaves out the embedding).
    # The experts ship in MXFP4, so the file size cannot give the count; the card rounds to 10M.
    m = ModelSpec.from_hf_config(HF / "gpt-oss-20b.json")
    assert m.n_params == pytest.approx(20.91e9, abs=0.005e9)
    assert m.n_active_params - m.param_breakdown["embedding"] == pytest.approx(3.61e9,
                                                                              abs=0.005e9)
    assert (m.n_sliding_layers, m.sliding_window, m.attention_sinks) == (12, 128, True)
    # the gated activation's clamp: config.json "swiglu_limit": 7.0; the catalogue's 120B the
    # same (Megatron-Bridge's GPT-OSS bridge sets activation_func_clamp_value = 7.0 for both)
    assert m.glu_limit == 7.0 and llmcost.load_model("gpt-oss-120b").glu_limit == 7.0
    # no clamp elsewhere in the catalogue
    assert llmcost.load_model("qwen3-30b-a3b").glu_limit == 0.0


@pytest.mark.parametrize("value, match", [
    (-1.0, "glu_limit=-1.0 must be a finite number >= 0"),
    (float("inf"), "glu_limit=inf must be a finite number >= 0"),
    (True, "glu_limit=True must be a finite number >= 0"),
    ("7", "glu_limit='7' must be a finite number >= 0"),
])
def test_glu_limit_is_checked(value, match):
    with pytest.raises(ValueError, match=match):
        ModelSpec(name="m", n_layers=2, d_model=64, n_heads=4, vocab_size=100, d_ff=128,
                  glu_limit=value)


def test_glu_limit_needs_a_gated_ffn():
    with pytest.raises(ValueError, match="glu_limit=7.0 clamps a gated activation; "
                                         "ffn_type='mlp' is not 'gated'"):
        ModelSpec(name="m", n_layers=2, d_model=64, n_heads=4, vocab_size=100, d_ff=128,
                  ffn_type="mlp", glu_limit=7.0)


def test_gemma_local_global_patterns():
    # Gemma 2 alternates local (4096-token window) and global layers (Gemma Team 2024,
    # arXiv:2408.00118 §2); Gemma 3 has 5 local layers to 1 global (arXiv:2503.19786 §2.1),
    # so 26 layers hold 4 global and 22 local.
    g2 = ModelSpec.from_hf_config(HF / "gemma-2-2b.json")
    g3 = ModelSpec.from_hf_config(HF / "gemma-3-1b.json")
    assert (g2.n_sliding_layers, g3.n_sliding_layers) == (13, 22)
    assert "soft-capping" in g2.notes and g2.tied_embeddings and g2.norms_per_layer == 4
    # Hand derivation at 32K, full mask: local layers attend 512 keys, global ones 32,768.
    s = 32768
    mean = (22 * 512 + 4 * s) / 26
    assert g3.mean_attended_keys(s, causal=False) == pytest.approx(mean)


def test_multimodal_gemma3_config_is_read_from_its_text_config():
    import json
    text = json.loads((HF / "gemma-3-1b.json").read_text())
    wrapped = {"model_type": "gemma3", "text_config": text, "vision_config": {"hidden_size": 1152}}
    assert ModelSpec.from_hf_config(wrapped, name="g3").n_params == 999_885_952


def test_from_hf_config_reads_a_dict_and_warns_for_unknown_llama_like_types():
    import json
    cfg = json.loads((HF / "llama-3.1-8b.json").read_text())
    assert ModelSpec.from_hf_config(cfg, name="x").n_params == 8_030_261_248
    cfg["model_type"] = "my_llama"
    with pytest.warns(UserWarning, match="my_llama.*hidden_size.*num_key_value_heads"):
        spec = ModelSpec.from_hf_config(cfg, name="x")
    assert spec.n_params == 8_030_261_248
    with pytest.raises(ValueError, match="must be a path to a config.json or a dict"):
        ModelSpec.from_hf_config(3.5)


def test_from_hf_config_errors(tmp_path):
    with pytest.raises(ValueError, match="no config.json"):
        ModelSpec.from_hf_config(tmp_path)
    (tmp_path / "config.json").write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        ModelSpec.from_hf_config(tmp_path)
    (tmp_path / "config.json").write_text('{"model_type": "gpt2"}')
    with pytest.raises(ValueError, match="model_type='gpt2'.*not supported"):
        ModelSpec.from_hf_config(tmp_path)
    (tmp_path / "config.json").write_text('{"model_type": "llama", "hidden_size": 64}')
    with pytest.raises(ValueError, match="required key 'num_attention_heads'"):
        ModelSpec.from_hf_config(tmp_path)


@pytest.mark.parametrize("change, words", [
    ({"hidden_size": "2048"}, "hidden_size='2048' must be a whole number"),
    ({"intermediate_size": -8192}, "intermediate_size=-8192 must be >= 0"),
    ({"hidden_size": 2000}, "hidden_size=2000 is not divisible by num_attention_heads=32; give "
                            "head_dim explicitly"),
    ({"num_key_value_heads": 5}, "num_attention_heads=32 must be a multiple of "
                                 "num_key_value_heads=5"),
    ({"num_hidden_layers": 16.5}, "num_hidden_layers=16.5 must be a whole number"),
])
def test_a_config_json_rule_is_said_in_the_configs_key_names(change, words):
    # A new-user trial: a config.json with hidden_size "2048" (a string) was refused as
    # "d_model='2048' must be a whole number", a name the file does not hold. The rule is the
    # spec's; its words are the config's keys (Llama 3.2 1B's shape otherwise: 2,048 wide, 16
    # layers, 32 query / 8 KV heads, FFN 8,192).
    cfg = {"model_type": "llama", "hidden_size": 2048, "intermediate_size": 8192,
           "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 16,
           "vocab_size": 128256, **change}
    with pytest.raises(ValueError) as e:
        ModelSpec.from_hf_config(cfg, name="m")
    assert str(e.value) == f"m: {words}"


@pytest.mark.parametrize("kw, message", [
    (dict(n_kv_heads=3), "n_heads=32 must be a multiple of n_kv_heads=3"),
    (dict(n_layers=0), "n_layers=0 must be >= 1"),
    (dict(d_model=4096.5), "d_model=4096.5 must be a whole number"),
    (dict(ffn_type="swiglu"), "ffn_type='swiglu' must be one of"),
    (dict(n_experts=8, n_experts_active=9, d_ff_expert=1024), "n_experts_active=9"),
    (dict(n_experts_active=2), "need n_experts >= 1"),
    (dict(pos_encoding="learned"), "max_position_embeddings >= 1"),
    (dict(d_ff=0), "d_ff=0 must be >= 1"),
    (dict(kv_lora_rank=512), "only apply to attention='mla'"),
])
def test_invalid_specs_name_the_rule(kw, message):
    base = dict(name="bad", n_layers=32, d_model=4096, n_heads=32, vocab_size=32000, d_ff=11008)
    base.update(kw)
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace("[", r"\[")):
        ModelSpec(**base)


def test_flops_argument_errors():
    m = llmcost.load_model("llama-2-7b")
    with pytest.raises(ValueError, match="recompute='some'"):
        m.flops_per_token(4096, recompute="some")
    with pytest.raises(ValueError, match="only applies with training=True"):
        m.flops_per_token(4096, training=False, recompute="full")
    with pytest.raises(ValueError, match="seq_len=0 must be > 0"):
        m.flops_per_token(0)


def test_a_qwen3_moe_config_refuses_layer_indices_it_does_not_have():
    # Qwen3-30B-A3B's config.json (Qwen/Qwen3-30B-A3B: 48 layers, 128 experts of width 768, top
    # 8, hidden 2,048, 32 query and 4 KV heads of 128) reads as the model card's "30.5B total,
    # 3.3B activated". A trial's mlp_only_layers [99] on a 24-layer config was ignored: a layer
    # index outside the model is refused with the key named.
    from llmcost.core.model import ModelSpec
    cfg = {"model_type": "qwen3_moe", "hidden_size": 2048, "num_hidden_layers": 48,
           "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128,
           "vocab_size": 151936, "intermediate_size": 6144, "moe_intermediate_size": 768,
           "num_experts": 128, "num_experts_per_tok": 8, "max_position_embeddings": 40960,
           "tie_word_embeddings": False, "decoder_sparse_step": 1, "mlp_only_layers": []}
    m = ModelSpec.from_hf_config(cfg)
    assert m.n_params / 1e9 == pytest.approx(30.5, abs=0.05)
    assert m.n_active_params / 1e9 == pytest.approx(3.3, abs=0.06)
    with pytest.raises(ValueError, match=r"mlp_only_layers=\[99\] holds \[99\], not layer "
                                         r"indices of the 48 layers \(0 to 47\)"):
        ModelSpec.from_hf_config({**cfg, "mlp_only_layers": [99]})
    for bad in ([1, True], ["1"]):   # a bool or a string is no layer index (a review)
        with pytest.raises(ValueError, match=r"mlp_only_layers=.* holds \["):
            ModelSpec.from_hf_config({**cfg, "mlp_only_layers": bad})
    with pytest.raises(ValueError, match=r"mlp_only_layers=5 must be a list of layer indices"):
        ModelSpec.from_hf_config({**cfg, "mlp_only_layers": 5})


def test_a_config_without_kv_heads_reads_transformers_default_and_says_so():
    """A trial's qwen3_moe config without ``num_key_value_heads`` was read as 32 KV heads (one
    per query head); transformers' Qwen3MoeConfig defaults to 4 (configuration_qwen3_moe.py @
    008e5743: ``num_key_value_heads: int = 4``), and LlamaConfig to the attention heads
    (``__post_init__``). Qwen3-30B-A3B's released config, which states 4, reads 30.5B either
    way (the model card's "30.5B total")."""
    from llmcost.core.model import ConfigDefaultWarning, ModelSpec
    cfg = {"model_type": "qwen3_moe", "hidden_size": 2048, "num_hidden_layers": 48,
           "num_attention_heads": 32, "head_dim": 128, "vocab_size": 151936,
           "intermediate_size": 6144, "moe_intermediate_size": 768, "num_experts": 128,
           "num_experts_per_tok": 8, "max_position_embeddings": 40960,
           "tie_word_embeddings": False}
    with pytest.warns(ConfigDefaultWarning, match="gives no num_key_value_heads: read as 4, "
                                                  "transformers' default for model_type "
                                                  "qwen3_moe"):
        m = ModelSpec.from_hf_config(cfg)
    assert m.n_kv_heads == 4
    assert m.n_params == ModelSpec.from_hf_config({**cfg, "num_key_value_heads": 4}).n_params
    assert m.n_params / 1e9 == pytest.approx(30.5, abs=0.05)
    llama = {"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
             "num_attention_heads": 32, "intermediate_size": 11008, "vocab_size": 32000,
             "max_position_embeddings": 4096}
    with pytest.warns(ConfigDefaultWarning, match="read as num_attention_heads = 32 "
                                                  r"\(multi-head attention\), transformers' "
                                                  "LlamaConfig rule; give it"):
        m = ModelSpec.from_hf_config(llama)
    assert m.n_kv_heads == 32   # Llama 2 7B's multi-head attention: 6.74B parameters
    assert m.n_params / 1e9 == pytest.approx(6.74, abs=0.01)
    # MistralConfig defaults to 8 (configuration_mistral.py @ 001f85b3): Mistral 7B's own GQA
    with pytest.warns(ConfigDefaultWarning, match="read as 8, transformers' default for "
                                                  "model_type mistral"):
        m = ModelSpec.from_hf_config({**llama, "model_type": "mistral",
                                      "intermediate_size": 14336})
    assert m.n_kv_heads == 8
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConfigDefaultWarning)   # a stated key: nothing said
        ModelSpec.from_hf_config({**llama, "num_key_value_heads": 32})


def test_small_2024_models_count_their_released_parameters():
    # Models a small lab's trial looked for and did not find (it wrote their config.json by
    # hand). Llama 3.2 1B by hand (its config.json: 16 layers, hidden 2048, intermediate 8192,
    # 32 heads of 64, 8 KV heads, vocab 128,256, tied embeddings):
    #   embedding 128,256 × 2,048 = 262,668,288
    #   a layer: q, o 2,048² each + k, v 2,048 × 512 each = 10,485,760; SwiGLU 3 × 2,048 ×
    #   8,192 = 50,331,648; 2 norms 4,096 -> 60,821,504, × 16 = 973,144,064
    #   final norm 2,048 -> 1,235,814,400 (the released safetensors; the card's 1.23B)
    spec = llmcost.load_model("llama-3.2-1b")
    assert spec.n_params == 262_668_288 + 16 * (10_485_760 + 50_331_648 + 4_096) + 2_048
    # the cards' rounded counts (Llama 3.2: 3.21B; Qwen2.5-1.5B: 1.54B), within their rounding
    for name, card in (("llama-3.2-1b", 1.23e9), ("llama-3.2-3b", 3.21e9),
                       ("qwen2.5-1.5b", 1.54e9)):
        assert abs(llmcost.load_model(name).n_params / card - 1) < 0.005, name
