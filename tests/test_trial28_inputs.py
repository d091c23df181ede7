"""Bad input a trial (an analyst scripting the public API) met, each now a ValueError naming the
argument, its value and the rule, where it was an empty answer, a silent conversion or numpy's
own words."""

import numpy as np
import pytest

import llmcost
from llmcost.bill import ledger


def test_an_empty_input_is_refused_not_answered_empty():
    m = llmcost.load_model("llama-2-7b")
    with pytest.raises(ValueError, match=r"^n_tokens=\[\] must hold at least one number"):
        llmcost.training_flops(m, [])
    with pytest.raises(ValueError, match=r"must hold at least one number"):
        llmcost.kv_cache_bytes(m, [])


def test_a_string_inside_a_list_is_refused_as_alone():
    h100 = llmcost.load_accelerator("H100-SXM")
    with pytest.raises(ValueError, match=r"^mfu=\[0\.3, '0\.4'\] must hold numbers, not strings"):
        llmcost.gpu_hours(1e23, h100, [0.3, "0.4"])
    with pytest.raises(ValueError, match=r"^mfu='0\.4' must be a number, not a string"):
        llmcost.gpu_hours(1e23, h100, "0.4")


def test_arrays_that_do_not_broadcast_are_named():
    with pytest.raises(ValueError, match=r"^interval_s \(shape \(3,\)\), checkpoint_s \(shape "
                                         r"\(2,\)\).* must broadcast together"):
        llmcost.goodput(np.array([1, 2, 3]), np.array([1, 2]), 3600)


def test_a_ledger_mfu_given_as_an_array_is_refused_by_its_rule():
    with pytest.raises(ValueError, match=r"^mfu=array\(\[0\.3, 0\.4\]\) must be a number"):
        ledger.build_ledger({"mfu": np.array([0.3, 0.4])})


def test_batch_target_takes_a_catalogue_name_and_suggests_a_near_one():
    # as training_flops does: the name's ModelSpec (Llama 2 70B, Kaplan's non-embedding count)
    by_name = llmcost.batch_target("llama-2-70b", train_tokens=2e12, global_batch_tokens=4e6)
    by_spec = llmcost.batch_target(llmcost.load_model("llama-2-70b"), train_tokens=2e12,
                                   global_batch_tokens=4e6)
    assert by_name.n_params == by_spec.n_params
    with pytest.raises(ValueError, match=r"did you mean 'llama-2-7b'"):
        llmcost.batch_target("llama-2-7bb")


def test_a_batch_shorter_than_one_sequence_is_refused():
    # 1,000 tokens of 4,096-token sequences is 0.24 of a sequence: a trial got busy_gpus 0.244
    # and a $5.1B bill
    target = llmcost.batch_target("llama-2-7b", train_tokens=1e12, global_batch_tokens=4e6)
    h100 = llmcost.load_accelerator("H100-SXM")
    with pytest.raises(ValueError, match=r"^batch_tokens=1,000 must be at least one sequence, "
                                         r"seq_len=4,096 tokens"):
        llmcost.batch_sweep(target, [1000], "llama-2-7b", h100, 64, 0.4, 2.0, 4096)
    # an argument in the wrong place is named by its kind, not by a page of its repr
    with pytest.raises(ValueError, match=r"^model=<Accelerator 'H100-SXM'> must be a ModelSpec"):
        llmcost.batch_sweep(target, [8192], h100, "llama-2-7b", 64, 0.4, 2.0, 4096)


def test_the_root_lists_no_module_it_imports_for_itself():
    names = dir(llmcost)
    assert "importlib" not in names and "_importlib" not in names
    assert "step_time" in names and "__version__" in names


def test_a_serving_step_that_cannot_be_held_or_runs_past_the_context_is_said():
    # Llama 2 70B: 68.98e9 parameters × 2 bytes = 138 GB of bf16 weights (the catalogue's
    # count), above an H100 SXM's 80 GiB at tp 1, where max_batch refuses; and a 100,000-token
    # prompt of a model pre-trained at 4,096 tokens with no longer context declared
    import warnings
    from llmcost.serving.inference import ServingDoesNotFitWarning
    m, h100 = llmcost.load_model("llama-2-70b"), llmcost.load_accelerator("H100-SXM")
    with pytest.warns(ServingDoesNotFitWarning, match=r"at tp=1: 138\.\d GB of bf16 weights"):
        assert llmcost.decode_step_time(m, h100, 1, 1000, tp=1) > 0
    with pytest.warns(ServingDoesNotFitWarning, match=r"100,000 tokens of context, beyond its "
                                                      r"4,096-token pre-training context"):
        llmcost.prefill_time(m, h100, 100_000, tp=8)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ServingDoesNotFitWarning)
        llmcost.decode_step_time(m, h100, 64, 1000, tp=8)     # fits: nothing said
        llmcost.prefill_time(m, h100, 2000, tp=8)


def test_strings_in_an_array_or_a_series_are_refused_as_in_a_list():
    import pandas as pd
    h100 = llmcost.load_accelerator("H100-SXM")
    for v in (np.array(["0.4"]), pd.Series(["0.4"])):
        with pytest.raises(ValueError, match=r"must hold numbers, not strings"):
            llmcost.gpu_hours(1e23, h100, v)


def test_a_long_context_batch_sweep_starts_at_one_sequence():
    # A review: notebook 02's grid from B_noise / 64 and its "B_noise / 4" row fell below one
    # 131,072-token sequence for an 8B model on 1e10 tokens, which batch_sweep refuses
    from llmcost.training import batch, batch_analysis
    g = batch.batch_grid(1.0e5, 131072, 90)
    assert g[0] == 131072 and len(g) == 90 and np.all(np.diff(g) > 0)
    m, h100 = llmcost.load_model("llama-3.1-8b"), llmcost.load_accelerator("H100-SXM")
    a = batch_analysis.analyse_batch(m, h100, 64, 1e10, 131072, 16 * 2**20, 0.4, 2.0)
    assert (a.key_batches["batch_tokens"] >= 131072).all()


def test_no_thresholds_means_no_alerts():
    from llmcost.bill import ledger as lg
    t = lg.spend_timeline(lg.build_ledger({}), thresholds=())
    assert len(t) > 0
