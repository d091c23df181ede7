"""A case that does not fit the hardware is a ``core.hardware.DoesNotFit`` (a ValueError),
raised where the check finds it and caught by type by the tables and routes that skip it;
the message is the same text as before (it names the field, the figures and the rule).

Hand derivations: Llama 3.1 405B holds about 406e9 parameters (data/models.csv), so its BF16 weights
are about 812 GB, 101 GB per GPU at TP 8, and its FP8 weights 50.7 GB per GPU at TP 8: above an
A100-40GB's 40 GB and, in BF16, above an H100's 80 GB (NVIDIA H100 datasheet)."""

import numpy as np
import pytest

from llmcost.bill import alternatives as al
from llmcost.bill.ledger import build_ledger
from llmcost.bill.scenario import ScenarioDoesNotFit, ScenarioError, scenario_error
from llmcost.core.hardware import BatchDoesNotFit, DoesNotFit
from llmcost.laws import scaling
from llmcost.serving import inference as inf
from llmcost.serving import setups
from llmcost.training.parallel import PlanError

KW = dict(prompt_tokens=1000, output_tokens=250)


def test_weights_above_hbm_are_does_not_fit_with_the_same_words():
    with pytest.raises(DoesNotFit, match=r"^model='llama-3.1-405b': 81\d\.\d GB of bf16 weights "
                                         r"per GPU do not fit H100-SXM's"):
        inf.max_batch("llama-3.1-405b", "H100-SXM", 1250, tp=1)


def test_no_tp_serves_it_is_does_not_fit_but_a_bad_dtype_is_not():
    with pytest.raises(DoesNotFit, match=r"^model='llama-3.1-405b' cannot be served on "
                                         r"A100-40GB with fp8 weights at any tp up to 8: "):
        inf.choose_serving_tp("llama-3.1-405b", "A100-40GB", 1.0, weight_dtype="fp8", **KW)
    with pytest.raises(ValueError, match="kv_dtype='fp9' must be one of") as e:
        inf.choose_serving_tp("llama-3.1-8b", "A100-40GB", 1.0, kv_dtype="fp9", **KW)
    assert not isinstance(e.value, DoesNotFit)


def test_a_batch_past_the_kv_cache_is_batch_does_not_fit():
    with pytest.raises(BatchDoesNotFit, match=r"^batch=1000000 does not fit: at most \d+ sequences"):
        inf.serving_cost("llama-3.1-8b", "H100-SXM", 1.0, batch=10**6, **KW)


def test_replica_layouts_keeps_a_batch_row_and_raises_weights_that_do_not_fit():
    # TP8·PP1 of 405B in BF16: 101 GB per GPU above an H100's 80 GB: the layout itself fails
    kw = dict(prompt_tokens=1024, context_tokens=1536, engine="vLLM")
    with pytest.raises(DoesNotFit, match=r"tp=8, pp=1: 101\.\d GB of bf16 weights per GPU do "
                                         r"not fit") as e:
        setups.replica_layouts("llama-3.1-405b", "H100-SXM", layouts=[(8, 1)], batches=(1,), **kw)
    assert not isinstance(e.value, BatchDoesNotFit)


def test_compare_accelerators_rows_only_what_does_not_fit():
    t, _ = inf.compare_accelerators("llama-3.1-405b", {"H200": 4.0, "A100-40GB": 1.0}, [1],
                                    weight_dtype="fp8", unservable="row", **KW)
    assert t.set_index("accelerator").loc["A100-40GB", "limit"].startswith(
        "cannot serve it: model='llama-3.1-405b' cannot be served on A100-40GB")
    with pytest.raises(ValueError, match="kv_dtype"):   # bad input is not a row
        inf.compare_accelerators("llama-3.1-8b", {"H200": 4.0, "A100-40GB": 1.0}, [1],
                                 kv_dtype="fp9", unservable="row", **KW)


def test_the_bill_rewraps_keeping_the_kind():
    assert isinstance(scenario_error("x", DoesNotFit("y")), ScenarioDoesNotFit)
    assert type(scenario_error("x", ValueError("y"))) is ScenarioError
    sc = {"model": "qwen3-4b", "accelerator": "A100-40GB", "n_gpus": 64, "train_tokens": 1e12,
          "seq_len": 4096, "mfu": 0.45, "price_usd_per_gpu_hour": 0.9,
          "global_batch_tokens": 2097152, "ledger_synthetic_tokens": 1e9,
          "ledger_synthetic_model": "llama-3.1-405b", "serve_weight_dtype": "fp8"}
    with pytest.raises(ScenarioError, match="^synthetic data line .*cannot be served") as e:
        build_ledger(sc)
    assert isinstance(e.value, DoesNotFit)
    r = al.price_routes({k: v for k, v in sc.items() if not k.startswith("ledger_synth")})
    assert np.isnan(r.set_index("route").loc["distillation", "total_usd"])


def test_serving_cost_by_size_raises_bad_input_and_names_what_does_not_fit():
    _, left = scaling.serving_cost_by_size(("llama-3.1-405b",), "A100-40GB", 2.0, 1000, 250,
                                           tp=0, weight_dtypes=("fp8",))
    assert left == ["llama-3.1-405b"]
    with pytest.raises(DoesNotFit, match="cannot be served at any of these precisions"):
        scaling.reference_serving_cost("llama-3.1-405b", "A100-40GB", 2.0, 1000, 250, tp=0,
                                       weight_dtypes=("fp8",))


def test_a_published_plan_whose_pp_does_not_divide_the_layers_is_a_plan_error():
    # claims.published_plan_mfu retries BLOOM's PP 12 over 70 layers with the embedding and loss
    # as stages (Scao et al. 2022, arXiv:2211.05100 §3.4) on this rule, caught by its id
    from llmcost.core.catalog import load_model
    from llmcost.training.parallel import ParallelPlan
    with pytest.raises(PlanError, match=r"^pp=12 must divide n_layers=70") as e:
        ParallelPlan(dp=8, tp=4, pp=12).validate(load_model("bloom-176b"))
    assert e.value.rule == "pp_layers"
