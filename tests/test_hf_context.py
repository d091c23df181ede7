"""The context a Hugging Face config.json states, and what is said where it states none. A
new-user trial: the Gemma 3 4B config (its context in no key: transformers fills
``Gemma3TextConfig``'s default) was given an invented 2,048-token context, and a scenario at
4,096 tokens was told "beyond the 2,048-token sequence length gemma3_4b was pre-trained at (the
catalogue records no longer context)"; Gemma 3 4B's context is 128K (Gemma Team 2025,
arXiv:2503.19786 §2.1)."""
import json
import warnings

import pytest

from llmcost.bill.checks import context_warning, scenario_warnings
from llmcost.core.model import HF_CONTEXT_KEYS, ModelSpec, hf_context, read_hf_config

#: google/gemma-3-4b-it's config.json as the trial gave it (the released file's text_config
#: holds no max_position_embeddings and no other context key).
GEMMA3_4B = {
    "architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3",
    "boi_token_index": 255999, "eoi_token_index": 256000, "image_token_index": 262144,
    "mm_tokens_per_image": 256,
    "text_config": {"model_type": "gemma3_text", "head_dim": 256, "hidden_size": 2560,
                    "intermediate_size": 10240, "num_attention_heads": 8,
                    "num_hidden_layers": 34, "num_key_value_heads": 4,
                    "query_pre_attn_scalar": 256,
                    "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
                    "sliding_window": 1024, "vocab_size": 262208},
    "vision_config": {"hidden_size": 1152, "image_size": 896, "intermediate_size": 4304,
                      "model_type": "siglip_vision_model", "num_attention_heads": 16,
                      "num_hidden_layers": 27, "patch_size": 14, "vision_use_head": False}}

#: The trial's unknown family with the Llama keys and no context key.
UNKNOWN_DENSE = {"model_type": "mygpt", "hidden_size": 1024, "intermediate_size": 4096,
                 "num_hidden_layers": 12, "num_attention_heads": 16, "vocab_size": 32000}


def _spec(cfg, tmp_path, name="gemma3_4b"):
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(cfg))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an unknown family's reading is warned of elsewhere
        return ModelSpec.from_hf_config(path), path


@pytest.mark.parametrize("cfg, name", [(GEMMA3_4B, "gemma3_4b"), (UNKNOWN_DENSE, "unknown")])
def test_a_config_without_a_context_gets_no_invented_one(tmp_path, cfg, name):
    spec, path = _spec(cfg, tmp_path, name)
    assert (spec.context_stated, spec.max_position_embeddings) == (False, 0)
    assert spec.seq_len == 2048  # only the default context of FLOP counts
    assert "The config.json states no context" in spec.notes
    for s in (1024, 4096):  # said at any length: nothing to compare with, no threshold
        said = context_warning(spec, s)
        assert said.startswith(f"seq_len={s:,} is not checked against {name}'s context: its "
                               "config.json states none")
        assert "2,048" not in said and "catalogue" not in said and "beyond" not in said
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        w = [x for x in scenario_warnings({"model": str(path), "seq_len": 4096})
             if x.startswith("seq_len=")]
    assert w == [context_warning(spec, 4096)]


def test_a_wrappers_text_config_context_is_read():
    """A Gemma 3 config whose text_config states transformers' ``Gemma3TextConfig`` default,
    ``max_position_embeddings`` 131,072 (128K, arXiv:2503.19786 §2.1): the context, two-sided
    in the warnings (4,096 within; 262,144 beyond 131,072)."""
    cfg = json.loads(json.dumps(GEMMA3_4B))
    cfg["text_config"]["max_position_embeddings"] = 131072
    c, _ = read_hf_config(cfg)
    assert hf_context(c) == (131072, "text_config.max_position_embeddings")
    spec = ModelSpec.from_hf_config(cfg, name="gemma-3-4b")
    assert (spec.context_stated, spec.max_position_embeddings, spec.seq_len) == \
        (True, 131072, 131072)
    assert context_warning(spec, 4096) is None
    assert "beyond gemma-3-4b's context of 131,072 tokens" in context_warning(spec, 262144)
    # the wrapper's own top-level key, where the text_config has none
    top = {**GEMMA3_4B, "max_position_embeddings": 32768}
    assert hf_context(read_hf_config(top)[0]) == (32768, "max_position_embeddings")
    # the text_config's key first
    both = {**cfg, "max_position_embeddings": 32768}
    assert hf_context(read_hf_config(both)[0])[0] == 131072


def test_other_context_keys_are_read():
    """GPT-2's ``n_positions`` (1,024 in the gpt2 config.json; ``GPT2Config.attribute_map``
    reads it as max_position_embeddings) on a Llama-keyed config, MPT's ``max_seq_len``
    (2,048, mosaicml/mpt-7b), ChatGLM's ``seq_length`` (32,768, THUDM/chatglm2-6b)."""
    assert HF_CONTEXT_KEYS[0] == "max_position_embeddings"
    for key, n in (("n_positions", 1024), ("max_seq_len", 2048), ("seq_length", 32768)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            spec = ModelSpec.from_hf_config({**UNKNOWN_DENSE, key: n}, name="m")
        assert (spec.max_position_embeddings, spec.seq_len, spec.context_stated) == (n, n, True)
        assert f"beyond m's context of {n:,} tokens" in context_warning(spec, n + 1)
        assert context_warning(spec, n) is None


@pytest.mark.parametrize("v", ["8k", 0, -1, 4096.5, True, float("inf")])
def test_a_context_key_out_of_its_domain_is_named(v):
    with pytest.raises(ValueError, match=r"^config: max_position_embeddings=.* must be a whole "
                       r"number of tokens >= 1"):
        ModelSpec.from_hf_config({**UNKNOWN_DENSE, "model_type": "llama",
                                  "max_position_embeddings": v})


def test_a_null_context_key_is_not_stated():
    spec = ModelSpec.from_hf_config({**UNKNOWN_DENSE, "model_type": "llama",
                                     "max_position_embeddings": None})
    assert not spec.context_stated


def test_a_stated_context_cannot_be_unstated():
    with pytest.raises(ValueError, match="context_stated=False needs max_position_embeddings=0"):
        ModelSpec("m", 2, 64, 4, 100, d_ff=256, max_position_embeddings=4096,
                  context_stated=False)
    with pytest.raises(ValueError, match="context_stated='no' must be True or False"):
        ModelSpec("m", 2, 64, 4, 100, d_ff=256, context_stated="no")
