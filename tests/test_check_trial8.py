"""`llmcost check` after an eighth new-user trial: a GPT-NeoX config.json read as its own
(plain GeLU MLP, LayerNorms, biases, untied tables), not as a gated Llama MLP, and its count
said to come from the config.json; a price the scenario gives judged as the run's own price;
spot pricing given its pre-emption rate by a flag."""

import json
import warnings
from pathlib import Path

import pytest

from llmcost import ModelSpec, claims
from llmcost.present.cli import main

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


def _price(c) -> dict:
    return {x["aspect"]: x for x in c.judgements}["price"]


def test_a_given_price_is_the_one_the_implied_price_is_judged_against():
    # The trial: MI300X spot at a given $1.50/GPU-h; $25,000 over 14,552 GPU-h implies
    # $1.72/GPU-h, which was judged OPTIMISTIC against DigitalOcean's $2.59 (the catalogue's
    # least MI300X hour) though the run pays $1.50. Against the given price: not below it.
    kw = dict(n_gpus=128, gpu_hours=14_552, pricing="spot", price_usd_per_gpu_hour=1.5,
              left_out=False)
    c = claims.check_claim("llama-3.1-70b", 5e10, "MI300X", usd=25_000, **kw)
    p = _price(c)
    assert c.implied_usd_per_gpu_hour == pytest.approx(25_000 / 14_552, rel=1e-12)
    assert p["verdict"] == "plausible"
    assert "not below the given $1.50/GPU-h" in p["reason"]
    assert "is not the price this run pays" in p["reason"]
    # $20,000 ÷ 14,552 = $1.374 < $1.50: optimistic; at $1.50 it buys 20,000 ÷ 1.5 = 13,333 h
    d = claims.check_claim("llama-3.1-70b", 5e10, "MI300X", usd=20_000, **kw)
    q = _price(d)
    assert q["verdict"] == "optimistic"
    assert "below the given $1.50/GPU-h" in q["reason"] and "13,333 GPU-h" in q["reason"]
    # the cost floor prices its hours at that given price too (the run's own, below the
    # catalogue's $2.59): floor = hours at the ceiling × $1.50, so $20,000 is not below it
    assert d.cost_floor_usd == pytest.approx(
        claims.check_claim("llama-3.1-70b", 5e10, "MI300X", usd=20_000,
                           **{**kw, "price_usd_per_gpu_hour": 2.59}).cost_floor_usd * 1.5 / 2.59,
        rel=1e-9)
    assert d.cost_floor_usd < 20_000 and "given price" in d.cost_floor_source
    # exactly the given price (the cost computed from it): not below it
    e = claims.check_claim("llama-3.1-70b", 5e10, "MI300X", usd=1.5 * 14_552, **kw)
    assert _price(e)["verdict"] == "plausible"
    # without a given price, the catalogue's least hour as before: $1.72 < $2.59, optimistic
    kw.pop("price_usd_per_gpu_hour")
    f = claims.check_claim("llama-3.1-70b", 5e10, "MI300X", usd=25_000, **kw)
    assert _price(f)["verdict"] == "optimistic" and "the cheapest hour of" in _price(f)["reason"]


def test_check_scenario_judges_against_its_own_price(tmp_path, capsys):
    y = tmp_path / "mi300x_given.yaml"
    y.write_text("model: llama-3.1-70b\naccelerator: MI300X\nn_gpus: 128\n"
                 "train_tokens: 5.0e10\nseq_len: 8192\nmfu: 0.38\ndtype: bf16\n"
                 "pricing: on_demand\nprice_usd_per_gpu_hour: 1.5\n")
    assert main(["check", "--scenario", str(y), "--usd", "25000", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    price = {x["aspect"]: x for x in out["judgements"]}["price"]
    implied = out["implied_usd_per_gpu_hour"]
    assert implied > 1.5 and price["verdict"] == "plausible"
    assert "the given $1.50/GPU-h" in price["reason"]


SPOT = ["check", "--model", "llama-3.1-70b", "--accelerator", "H100-SXM", "--train-tokens",
        "5e10", "--n-gpus", "128", "--gpu-hours", "20000", "--pricing", "spot"]


def test_spot_without_a_rate_names_the_flag(capsys):
    assert main(SPOT) == 2
    err = capsys.readouterr().err
    assert "needs --spot-preemptions-per-node-day RATE" in err
    assert "llmcost check --scenario FILE" in err


def test_spot_with_the_rate_flag_is_priced(capsys):
    assert main(SPOT + ["--spot-preemptions-per-node-day", "0.05"]) == 0
    out = capsys.readouterr().out
    assert "Not in the figure (--spot-preemptions-per-node-day, else the ledger's defaults)" \
        in _unwrapped(out)
    assert main(SPOT + ["--spot-preemptions-per-node-day", "0.05", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["left_out_keys"] == ["ledger_spot_preemptions_per_node_day"]
    # the rate is read: more pre-emptions lose more of each run, and the exploratory runs
    # (a multiple of the final run's paid hours) cost more (measured: $64,724 at 0.05 a
    # node-day, $99,358 at 2)
    assert main(SPOT + ["--spot-preemptions-per-node-day", "2", "--format", "json"]) == 0
    more = json.loads(capsys.readouterr().out)
    assert more["left_out_usd"] > 1.2 * out["left_out_usd"]


@pytest.mark.parametrize("value, words", [
    ("-1", "--spot-preemptions-per-node-day=-1.0 must be a finite number >= 0"),
    ("nan", "--spot-preemptions-per-node-day=nan must be a finite number >= 0"),
    ("x", "--spot-preemptions-per-node-day='x' must be a number"),
])
def test_the_rate_flag_is_validated(value, words, capsys):
    assert main(SPOT + ["--spot-preemptions-per-node-day", value]) == 2
    assert words in capsys.readouterr().err


def test_the_rate_flag_needs_spot_pricing(capsys):
    on_demand = [a for a in SPOT if a not in ("--pricing", "spot")]
    assert main(on_demand + ["--spot-preemptions-per-node-day", "0.05"]) == 2
    assert "--pricing is 'on_demand', not 'spot'" in capsys.readouterr().err


def test_a_dense_family_with_an_expert_count_is_refused():
    # A fuzz trial: model_type llama with num_local_experts 8 and num_experts_per_tok 20 was read
    # as a dense 6.7B model without a word; a dense reading of a MoE counts neither its total
    # nor its active parameters (as for an unknown family), so it is refused, named
    base = {"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
            "num_attention_heads": 32, "intermediate_size": 11008, "vocab_size": 32000}
    with pytest.raises(ValueError, match=r"model_type='llama' .* is read as a dense family and "
                                         r"has num_local_experts=8: a mixture of experts"):
        ModelSpec.from_hf_config({**base, "num_local_experts": 8, "num_experts_per_tok": 20})
    assert ModelSpec.from_hf_config({**base, "num_local_experts": 1}).n_params > 6e9
