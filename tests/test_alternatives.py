"""Train, fine-tune, distil or retrieve? (llmcost.bill.alternatives, `llmcost estimate
--alternatives`): every route priced from the ledger's own lines."""

from pathlib import Path

import numpy as np
import pytest

import llmcost

from llmcost.bill import alternatives as al
from llmcost.bill.ledger import build_ledger
from llmcost.bill.scenario import load_scenario
from llmcost.core.catalog import SCENARIO_DIR, load_accelerator, load_model
from llmcost.present import cli
from llmcost.training.compute import model_flops_per_token

SCENARIO = load_scenario(SCENARIO_DIR / "default.yaml")


@pytest.fixture(scope="module")
def routes():
    return al.price_routes(SCENARIO).set_index("route")


def test_every_route_and_its_limit(routes):
    assert list(routes.index) == list(al.ROUTE_LIMITS)
    assert (routes.cannot_do.str.len() > 40).all()
    assert (routes.total_usd == routes.one_off_usd + routes.serving_usd).all()


def test_sft_route_by_hand(routes):
    # hand derivation: tokens × model FLOPs per token (3 × forward) ÷ (dense BF16 peak × MFU)
    # ÷ goodput × price: the bill's SFT line for those tokens, whose goodput is a run of that
    # length's (reliability.finite_run_breakdown): above the 13-day main run's, at most 1
    g = al.Goal()
    m, gpu = load_model(SCENARIO["model"]), load_accelerator(SCENARIO["accelerator"])
    ideal = (g.sft_tokens * model_flops_per_token(m, SCENARIO["seq_len"])
             / (gpu.peak_flops_per_s("bf16") * SCENARIO["mfu"]) / 3600)
    paid = routes.loc["full fine-tune (SFT)", "one_off_usd"] / SCENARIO["price_usd_per_gpu_hour"]
    assert build_ledger(SCENARIO).figures["goodput"] < ideal / paid <= 1.0
    line = build_ledger({**SCENARIO, "ledger_sft_tokens": g.sft_tokens,
                         "ledger_cpt_tokens": g.cpt_tokens}).line("post.sft")
    assert routes.loc["full fine-tune (SFT)", "one_off_usd"] == pytest.approx(line.usd, rel=1e-9)
    # LoRA at Hu et al. 2021's measured 0.754 of the full fine-tune's time (same tokens), each
    # at the goodput of its own run's length (the shorter LoRA run's differs by 8e-5 here)
    assert routes.loc["LoRA fine-tune", "one_off_usd"] == pytest.approx(
        0.754 * routes.loc["full fine-tune (SFT)", "one_off_usd"], rel=1e-3)


def test_pretraining_route_is_the_bill(routes):
    b = build_ledger(SCENARIO)
    assert routes.loc["pre-train from scratch", "one_off_usd"] == pytest.approx(
        b.usd("compute.") + routes.loc["full fine-tune (SFT)", "one_off_usd"], rel=1e-9)


def test_longer_prompts_cost_more_per_request(routes):
    base = routes.loc["full fine-tune (SFT)", "serving_usd_per_request"]
    assert routes.loc["prompt engineering", "serving_usd_per_request"] > base
    assert routes.loc["retrieval augmentation (RAG)", "serving_usd_per_request"] > \
        routes.loc["prompt engineering", "serving_usd_per_request"]
    # requests from the scenario's lifetime demand: 1e13 tokens ÷ (1,000 + 250) per request
    assert routes.requests_lifetime.iloc[0] == pytest.approx(1e13 / 1250, rel=1e-12)


@pytest.mark.parametrize("field, value", [("sft_tokens", -1.0), ("teacher", "no-such-model"),
                                          ("rag_prompt_tokens", 1.5), ("domain", "")])
def test_goal_bad_input_names_the_field(field, value):
    with pytest.raises(ValueError, match=field):
        al.Goal(**{field: value})


def test_cli_alternatives(capsys):
    rc = cli.main(["estimate", "--scenario", str(SCENARIO_DIR / "default.yaml"),
                   "--alternatives", "--samples", "10"])
    out = capsys.readouterr().out
    assert rc == 0
    for route in al.ROUTE_LIMITS:
        assert route in out
    # what the pre-training route holds, beside the whole bill (a trial read "$5.58M" against
    # the bill's "$5.67M" as a contradiction): the bill's compute lines and SFT on the goal's
    # tokens, not the bill's own SFT line (a review)
    bill = llmcost.build_ledger(llmcost.load_scenario(SCENARIO_DIR / "default.yaml"))
    text = " ".join(out.split())
    assert (f"pre-training's is the bill's compute lines, "
            f"{llmcost.fmt_usd(bill.usd('compute.'))}, and SFT on the goal's tokens; the whole "
            f"bill is {llmcost.fmt_usd(bill.total_usd)}") in text
    rc = cli.main(["estimate", "--scenario", str(SCENARIO_DIR / "default.yaml"),
                   "--alternatives", "--format", "csv"])
    assert rc != 0
    assert "--alternatives" in capsys.readouterr().err


def test_lora_on_mla_is_not_modelled_and_says_so():
    # the ledger counts LoRA adapters for GQA/MHA attention only: an MLA model's LoRA route is
    # NaN with the reason, the other routes still priced
    s = {**SCENARIO, "model": "deepseek-v3", "train_tokens": 14.8e12, "accelerator": "H200",
         "price_usd_per_gpu_hour": None, "serve_weight_dtype": "fp8", "ledger_rl": False}
    r = al.price_routes(s).set_index("route")
    assert r.loc["LoRA fine-tune"].how.startswith("not modelled")
    assert r.loc["LoRA fine-tune", "total_usd"] != r.loc["LoRA fine-tune", "total_usd"]  # NaN
    assert r.drop(index="LoRA fine-tune").total_usd.gt(0).all()


def test_a_teacher_too_big_for_the_gpus_leaves_distillation_unpriced():
    # A new-user trial: notebook 09 stopped on a 40 GB A100 scenario. By hand: Llama 3.1 405B's
    # FP8 weights are 405e9 B / 8 = 50.7 GB per GPU at TP 8, above an A100-40GB's usable HBM,
    # so the distillation route says so (NaN) and every other route is priced.
    sc = {"model": "qwen3-4b", "accelerator": "A100-40GB", "n_gpus": 64, "train_tokens": 1e12,
          "seq_len": 4096, "mfu": 0.45, "price_usd_per_gpu_hour": 0.9,
          "global_batch_tokens": 2097152}
    r = al.price_routes(sc).set_index("route")
    assert np.isnan(r.loc["distillation", "total_usd"])
    assert r.loc["distillation", "how"].startswith("not priced: the teacher llama-3.1-405b")
    assert r.drop(index="distillation")["total_usd"].notna().all()


def test_a_config_json_model_prices_every_route(tmp_path):
    # a new-user trial: `model: path/to/config.json` (the README's form) broke the routes, which
    # looked the bill's model *name* up in the catalogue. Qwen3-4B's public config.json
    # (tests/data/hf_configs/README.md) under a file name the catalogue does not hold
    path = tmp_path / "my-qwen3-4b.json"
    path.write_text((Path(__file__).parent / "data/hf_configs/qwen3-4b.json").read_text())
    s = {**SCENARIO, "model": str(path)}
    with pytest.raises(ValueError, match="not in the catalogue"):
        load_model("my-qwen3-4b")
    r = al.price_routes(s).set_index("route")
    m, gpu = load_model(str(path)), load_accelerator(s["accelerator"])
    assert r.attrs["model"] == m.name
    # the SFT route by hand, as test_sft_route_by_hand, with the config's architecture
    ideal = (al.Goal().sft_tokens * model_flops_per_token(m, s["seq_len"])
             / (gpu.peak_flops_per_s("bf16") * s["mfu"]) / 3600)
    paid = r.loc["full fine-tune (SFT)", "one_off_usd"] / s["price_usd_per_gpu_hour"]
    assert build_ledger(s).figures["goodput"] < ideal / paid <= 1.0
    assert np.isfinite(r.serving_usd_per_request).all()


def test_route_limits_type_no_ranking_the_prices_can_contradict():
    # A trial: an 8-GPU, 2B-token scenario priced "pre-train from scratch" at $1.14k, below
    # continued pre-training's $5.12k, beside words calling it "the most expensive and the
    # slowest": the routes are priced per scenario, so their words state no ranking.
    from llmcost.bill.alternatives import ROUTE_LIMITS
    for route, words in ROUTE_LIMITS.items():
        for typed in ("most expensive", "cheapest", "slowest", "fastest"):
            assert typed not in words, (route, typed)
