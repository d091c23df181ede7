"""The step-time engine's one options object (``llmcost.StepOptions``, modelled on Calculon's
``Execution``): built by hand, from keywords or from a scenario, it prices a step exactly as the
keyword API does; bad values raise a ``ValueError`` naming the field; the engine functions that
carry options take at most ~12 parameters."""

import ast
import inspect
import pathlib

import numpy as np
import pytest

import llmcost
from llmcost import StepOptions, step
from llmcost.training import comm, options

H100 = llmcost.load_accelerator("H100-SXM")
A100 = llmcost.load_accelerator("A100-80GB")


def _llama70b():
    spec = llmcost.load_model("llama-3.1-70b")
    plan = llmcost.make_plan(spec, 64, 64, tp=8, pp=2, micro_batch_size=1, seq_len=4096,
                             schedule="interleaved", virtual_stages=2)
    return spec, plan


def test_options_object_prices_a_step_as_the_keywords_do():
    # the refactor changes no number: the same settings as keywords or as one object give the
    # same step, part by part (a consistency check; the numbers themselves are pinned in
    # tests/test_step_regression.py and checked against published runs in tests/test_step.py)
    spec, plan = _llama70b()
    cl = llmcost.Cluster(H100, 64)
    kw = dict(recipe="bf16_adam_fp32_grads", dtype="fp8", tp_overlap="all", dp_overlap=False,
              stack="megatron-core-2024", straggler=False, pipeline_flushes=2)
    by_kw = step.step_time(spec, cl, plan, 4096, **kw)
    by_obj = step.step_time(spec, cl, plan, 4096, options=StepOptions(**kw))
    assert by_kw == by_obj
    # keywords given with an object replace its fields
    mixed = step.step_time(spec, cl, plan, 4096, options=StepOptions(**kw), straggler=True)
    assert mixed.straggler_s > 0 and by_obj.straggler_s == 0
    assert mixed.matmul_s == by_obj.matmul_s


def test_step_time_accepts_an_efficiency():
    # ``efficiency`` replaces the catalogue's burst fractions; the engine applies the kernel
    # constant once on top: with every fraction at 1 and kernel_efficiency = 1, a compute-bound
    # GEMM-only share of the step runs at the datasheet peak, so the step is faster than with the
    # catalogue's fractions (below 1 on H100: data/efficiency.csv)
    spec, plan = _llama70b()
    cl = llmcost.Cluster(H100, 64)
    ideal = llmcost.Efficiency("ideal", 1.0, 1.0, 1.0, 1.0, 1.0)
    b_ideal = step.step_time(spec, cl, plan, 4096, options=StepOptions(efficiency=ideal,
                                                                       kernel_efficiency=1.0))
    b_cat = step.step_time(spec, cl, plan, 4096)
    assert b_ideal.matmul_s < b_cat.matmul_s
    assert b_ideal.efficiency_row == "ideal"


def test_rank_plans_takes_the_object():
    spec = step.gpt_model("gpt-1.3b", 24, 2048, 16)
    cl = llmcost.Cluster(A100, 16)
    o = StepOptions(recipe="bf16_adam_fp32_grads", tp_overlap="backward", straggler=False)
    a = step.rank_plans(spec, cl, 32, 2048, options=o, tp=(1, 2))
    b = step.rank_plans(spec, cl, 32, 2048, recipe="bf16_adam_fp32_grads",
                        tp_overlap="backward", straggler=False, tp=(1, 2))
    assert len(a) == len(b) > 0
    np.testing.assert_array_equal(a["step_time_s"].to_numpy(), b["step_time_s"].to_numpy())


def test_from_scenario():
    p = {"stack": "megatron-core-2024", "dtype": "bf16", "optimizer_recipe":
         "bf16_adam_fp32_grads", "accelerator": "H100-SXM"}
    o = step.scenario_step_options(p)
    assert isinstance(o, StepOptions) and o.stack == "megatron-core-2024"
    assert o == StepOptions(**step.scenario_options(p))


@pytest.mark.parametrize("field,value", [
    ("dtype", "int4"), ("dtype", 8), ("moe_gate", "uniform"), ("hsdp_all_reduce", "never"),
    ("straggler", "yes"), ("dropout", 1), ("kernel_efficiency", 1.5),
    ("kernel_efficiency", 0.0), ("efficiency", 0.7), ("moe_imbalance", "2")])
def test_bad_values_name_the_field(field, value):
    with pytest.raises(ValueError, match=field):
        StepOptions(**{field: value})


def test_unknown_option_is_named():
    with pytest.raises(ValueError, match="unknown step-time option.*tp_overlapp"):
        StepOptions.build(tp_overlapp="all")
    spec, plan = _llama70b()
    with pytest.raises(ValueError, match="tp_overlapp"):
        step.step_time(spec, llmcost.Cluster(H100, 64), plan, 4096, tp_overlapp="all")


def test_stack_dependent_values_are_checked_at_resolve():
    with pytest.raises(ValueError, match="tp_overlap"):
        StepOptions(tp_overlap="sometimes").resolve("H100-SXM")
    r = StepOptions(stack="megatron-core-2024", gemm_shape=False).resolve("H100-SXM")
    assert r.keff.matmul_fraction == pytest.approx(
        r.efficiency.matmul_fraction * options.KERNEL_EFFICIENCY)
    # GEMMs by shape (the default): the GEMMs' residual, the other rates KERNEL_EFFICIENCY
    r = StepOptions(stack="megatron-core-2024").resolve("H100-SXM")
    assert r.keff.matmul_fraction == pytest.approx(
        r.efficiency.matmul_fraction * options.KERNEL_EFFICIENCY_SHAPE)
    assert r.keff.hbm_fraction == pytest.approx(
        r.efficiency.hbm_fraction * options.KERNEL_EFFICIENCY)
    assert isinstance(r.comm, comm.CommOptions)


def test_kernel_efficiency_constant_is_the_one_fitted_to_korthikanti_table4():
    # Korthikanti et al. 2022 Table 4 (22B layer, 8 A100s): the constant re-derived from those ten
    # layer times is the shipped one (to the fit's resolution), and it lives in one place
    assert step.KERNEL_EFFICIENCY is options.KERNEL_EFFICIENCY
    assert step.calibrate_kernel_efficiency() == pytest.approx(step.KERNEL_EFFICIENCY, abs=0.002)


#: The option-carrying engine functions: each takes the options object, not its fields.
ENGINE = {"training/step.py": ("step_arrays", "_engine", "_stage_parts", "layer_compute",
                               "step_time", "predict_mfu"),
          "training/ranking.py": ("rank_plans", "rank_by_step_time", "fitting_plans"),
          "training/step_scenario.py": ("scenario_step",),
          "training/comm.py": ("step_comm_arrays",)}


def test_engine_functions_take_at_most_12_parameters():
    root = pathlib.Path(llmcost.__file__).parent
    for rel, names in ENGINE.items():
        tree = ast.parse((root / rel).read_text())
        found = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name in names:
                a = node.args
                found[node.name] = (len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)
                                    + bool(a.vararg) + bool(a.kwarg))
        assert set(found) == set(names), rel
        assert max(found.values()) <= 12, found


def test_every_keyword_of_the_old_api_is_a_field():
    # the keywords step_arrays took before the options object (its 42-keyword signature, minus
    # the plan arrays) are all StepOptions fields, so every caller's keywords still work
    old = ("recipe", "flash_attention", "dropout", "dtype", "tp_overlap", "pp_overlap",
           "dp_overlap", "efficiency", "kernel_efficiency", "stack", "fsdp_prefetch_layers",
           "fsdp_collectives_per_layer", "fsdp_nic_aggregation", "ep_overlap", "moe_routing",
           "moe_capacity_factor", "moe_imbalance", "moe_dispatch", "moe_gate", "moe_node_limit",
           "fsdp_reshard_after_forward", "pipeline_flushes", "moe_dispatch_dtype",
           "hsdp_all_reduce", "straggler")
    assert set(old) <= set(StepOptions.names())
    assert set(step.PHYSICS_OPTIONS) <= set(StepOptions.names())
    sig = inspect.signature(step.step_arrays)
    assert len(sig.parameters) <= 12
