"""`llmcost check` after an eighth new-user trial: a GPT-NeoX config.json read as its own
(plain GeLU MLP, LayerNorms, biases, untied tables), not as a gated Llama MLP, and its count
said to come from the config.json."""

import json
import warnings
from pathlib import Path

import pytest

from llmcost import ModelSpec, claims

HF = Path(__file__).parent / "data" / "hf_configs"
PYTHIA_12B = HF / "pythia-12b.json"


def _unwrapped(text: str) -> str:
    return " ".join(text.split())


def _pythia_config(**changes) -> dict:
    return {**json.loads(PYTHIA_12B.read_text()), **changes}


def test_pythia_12b_counts_its_published_parameters():
    # EleutherAI/pythia-12b model card, "Naming convention and parameter count" table (the same
    # table as the EleutherAI/pythia README's): total 11,846,072,320, non-embedding
    # 11,327,027,200. By hand (d = 5,120, L = 36, V = 50,688, ff = 20,480; transformers'
    # modeling_gpt_neox.py): per layer fused QKV 3d² + 3d, dense d² + d, MLP 2·d·ff + ff + d,
    # two LayerNorms 4d = 314,639,360; × 36 + final LayerNorm 2d = 11,327,027,200; embed_in
    # and embed_out (untied) 2·V·d = 519,045,120. The trial read it as a gated MLP: 15.62B.
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a known family: no "not a known family" warning
        m = ModelSpec.from_hf_config(PYTHIA_12B)
    assert m.ffn_type == "mlp" and m.norm == "layernorm" and m.bias == "all"
    assert not m.tied_embeddings
    assert m.n_params == 11_846_072_320
    b = m.param_breakdown
    assert m.n_params - b["embedding"] - b["lm_head"] == 11_327_027_200
    assert b["embedding"] == b["lm_head"] == 50_688 * 5_120


def test_pythia_70m_counts_its_published_parameters():
    # The same table: Pythia-70M, total 70,426,624, non-embedding 18,915,328 (d = 512, L = 6,
    # 8 heads, ff = 2,048, V = 50,304; EleutherAI/pythia-70m config.json).
    m = ModelSpec.from_hf_config(_pythia_config(
        hidden_size=512, num_hidden_layers=6, num_attention_heads=8, intermediate_size=2048,
        vocab_size=50_304, _name_or_path="EleutherAI/pythia-70m"))
    assert m.n_params == 70_426_624
    assert m.n_params - 2 * 50_304 * 512 == 18_915_328


def test_an_unknown_gelu_family_is_not_gated_and_a_silu_one_is():
    # A family outside the readers is read as a Llama-style decoder; its MLP is gated only
    # for a SiLU activation (SwiGLU's gate_proj), not for a plain GeLU (GPT-2, OPT, BLOOM).
    base = {"model_type": "my_decoder", "hidden_size": 1024, "num_hidden_layers": 2,
            "num_attention_heads": 8, "intermediate_size": 4096, "vocab_size": 1000}
    with pytest.warns(UserWarning, match="not a known family"):
        gelu = ModelSpec.from_hf_config({**base, "hidden_act": "gelu"})
    with pytest.warns(UserWarning, match="not a known family"):
        silu = ModelSpec.from_hf_config({**base, "hidden_act": "silu"})
    assert gelu.ffn_type == "mlp" and silu.ffn_type == "gated"
    # the gate is one d × ff matrix per layer: 2 × 1,024 × 4,096
    assert silu.n_params - gelu.n_params == 2 * 1024 * 4096
    # a known gated family keeps its gate whatever its activation (Gemma's GeGLU)
    assert ModelSpec.from_hf_config(HF / "gemma-2-2b.json").ffn_type == "gated"


def test_check_says_the_count_comes_from_the_config_json():
    c = claims.check_claim(str(PYTHIA_12B), 3e11, "A100-40GB", gpu_hours=72_300,
                           left_out=False)
    # 6ND = 6 × 11,846,072,320 × 3e11
    assert c.flops_6nd == pytest.approx(6 * 11_846_072_320 * 3e11, rel=1e-12)
    assert c.count_source == "counted from its config.json"
    text = _unwrapped(c.describe())
    assert "N = 11.85B active parameters, counted from its config.json" in text
    assert "catalogue count" not in text
    cat = claims.check_claim("llama-2-7b", 1e12, "H100-SXM", gpu_hours=1e5, left_out=False)
    assert cat.count_source == "the catalogue count"
    own = claims.check_claim(ModelSpec.from_hf_config(PYTHIA_12B).replace(name="mine"), 3e11,
                             "A100-40GB", gpu_hours=72_300, left_out=False)
    assert own.count_source == "counted from its config.json"
