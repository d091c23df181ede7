"""dtype: fp8 and the FP8 weight copy Transformer Engine caches (step_scenario.fp8_weight_copy_warning).

A new-user trial: Llama 2 13B on 512 H200 in FP8 (notebook 03) fits TP1 PP1 DP512 mbs2 ZeRO-1 at
127 GB of 151, while the same plan under ``optimizer_recipe: fp8_mixed`` (19 B/param: the FP8
copy cached) needs 141 GB of the 136 usable. Transformer Engine's modules cache the FP8 weights
across the micro-batches of a step when given ``is_first_microbatch`` ("during FP8 training, it
allows caching of the FP8 versions of the weights", NVIDIA/TransformerEngine
transformer_engine/pytorch/module/linear.py), which Megatron-Core passes; Megatron-Core keeps
BF16 compute weights unless ``--fp8-param-gather`` (default False: "Keep the compute param in
fp8 ... and perform the param all-gather in fp8"). The default recipe leaves that copy out, and
the scenario is told so.
"""

import pytest

import llmcost
from llmcost.bill.checks import scenario_warnings
from llmcost.training import memory, parallel
from llmcost.training.step_scenario import fp8_weight_copy_warning

BASE = {"model": "llama-2-13b", "accelerator": "H200", "n_gpus": 512, "dtype": "fp8",
        "stack": "megatron-core-2024", "optimizer_recipe": "bf16_adam_fp32_grads"}


def test_the_fp8_copy_is_named_where_it_is_left_out():
    w = fp8_weight_copy_warning(BASE)
    assert w.startswith("the memory per GPU leaves out the FP8 weight copy: dtype=fp8 with "
                        "optimizer_recipe=bf16_adam_fp32_grads counts 2-byte working weights only")
    assert "1 byte per parameter, 2 on Hopper" in w and "fp8_mixed" in w
    assert "--fp8-param-gather" in w
    # fp8_mixed counts the 1-byte copy: on Blackwell nothing is left out (MXFP8 GEMMs read
    # either layout, Transformer Engine's docs, "Handling transposes"); on Hopper (H200) the
    # transposed copy, 1 more byte per parameter, still is; not cached by an FSDP stack (it
    # casts per micro-batch); not FP8
    mixed = {**BASE, "optimizer_recipe": "fp8_mixed"}
    assert fp8_weight_copy_warning({**mixed, "accelerator": "B200"}) is None
    t = fp8_weight_copy_warning(mixed)
    assert t.startswith("the memory per GPU leaves out the FP8 weights' transposed copy: "
                        "optimizer_recipe=fp8_mixed counts the 1-byte FP8 copy")
    assert "on Hopper (H200)" in t and "1 more byte per parameter" in t
    assert fp8_weight_copy_warning({**BASE, "stack": "pytorch-fsdp2-2024"}) is None
    assert fp8_weight_copy_warning({**BASE, "dtype": "bf16"}) is None
    with pytest.raises(ValueError):
        fp8_weight_copy_warning({**BASE, "optimizer_recipe": "nope"})
    values = llmcost.validate_parameters(**{**BASE, "train_tokens": 1e11, "seq_len": 4096,
                                            "mfu": 0.4})
    assert sum(s == w for s in scenario_warnings(values)) == 1
    from llmcost.present import glance
    line = glance.caveat_line(w)
    assert line == "memory leaves out the FP8 weight copy (1-2 B/param): fp8_mixed counts it"


def test_fp8_mixed_counts_exactly_the_one_byte_copy():
    # By hand: at TP1 PP1 ZeRO-1 each GPU holds every weight, so fp8_mixed's 3-byte working
    # weights against the default's 2 add 1 byte x the model's parameters (Llama 2 13B:
    # 13,015,864,320 parameters, the released safetensors: 13.0 GB); the rest is the same
    spec = llmcost.load_model("llama-2-13b")
    plan = parallel.make_plan(spec, 512, 1024, tp=1, pp=1, zero_stage=1, micro_batch_size=2,
                              recompute="none", seq_len=4096)
    base = memory.memory_per_gpu(spec, plan, 4096, recipe="bf16_adam_fp32_grads")
    fp8 = memory.memory_per_gpu(spec, plan, 4096, recipe="fp8_mixed")
    assert spec.n_params == pytest.approx(13.016e9, rel=1e-3)
    assert fp8.total - base.total == pytest.approx(spec.n_params, rel=1e-9)


def test_hoppers_transposed_copy_has_its_readers_line():
    from llmcost.present import glance
    t = fp8_weight_copy_warning({**BASE, "optimizer_recipe": "fp8_mixed"})
    assert glance.caveat_line(t) == \
        "memory leaves out Hopper's transposed FP8 weight copy (1 B/param)"


def test_the_copy_is_set_against_the_plans_headroom(tmp_path):
    # The trial's plan: Llama 2 13B on 512 H200, FP8, TP1 PP1 ZeRO-1 mbs2, 127.5 GB of the
    # 136.3 GB usable (8.8 GB of headroom). Its FP8 copy on Hopper is 2 bytes (the copy and its
    # transpose) per parameter held: every weight at TP1 PP1, 2 x 13.016e9 = 26.0 GB by hand,
    # more than the headroom: the warning says the plan may not fit.
    from llmcost.present import report
    sc = tmp_path / "a1.yaml"
    text = ("model: llama-2-13b\naccelerator: H200\nn_gpus: 512\ntrain_tokens: 2.0e12\n"
            "seq_len: 4096\ndtype: fp8\nmfu: 0.4\ntp: 1\npp: 1\nzero_stage: 1\n"
            "micro_batch_size: 2\nrecompute: none\n")
    sc.write_text(text + "optimizer_recipe: bf16_adam_fp32_grads\n")  # the trial's: no copy
    (w,) = [x for x in report.estimate_ledger(sc).warnings
            if x.startswith("the memory per GPU leaves")]
    assert "On this plan (TP1 · PP1 · DP512" in w
    got = float(w.split("that is ")[1].split(" GB")[0])
    assert got == pytest.approx(2 * 13.016, rel=2e-3)
    assert w.endswith("GB of headroom: the plan may not fit.")
    # naming no recipe, both copies are counted on Hopper (fp8_mixed_transpose, 20 B/param):
    # the same fixed plan needs fp8_mixed's 141 GB (the module docstring's figure) + 1 B x
    # 13.016e9 = 154 GB of the 136 usable and is refused, with what would fit
    sc.write_text(text)
    with pytest.raises(ValueError, match=r"needs at least 154 GB per GPU .* more than the 136 GB "
                                         r"usable .* tp·pp = 2 fits"):
        report.estimate_ledger(sc)


def test_an_fp8_scenario_counts_the_fp8_copy_unless_it_names_its_recipe():
    # A trial: a dtype: fp8 scenario (Llama 3.1 70B on 1,024 H200) was given a plan that its
    # own warning then said might not fit, the FP8 copy (1 B/param) left out of the count the
    # search fitted it by. A scenario that names no optimizer_recipe is counted with
    # fp8_mixed (19 B/param: memory.RECIPES) under FP8 on a stack that caches the copy
    # (Megatron-Core, elementwise.FP8_WEIGHT_CACHE_STACKS), bf16_adam_fp32_grads (18 B/param)
    # otherwise; a recipe the scenario names is kept.
    fp8 = {k: v for k, v in BASE.items() if k != "optimizer_recipe"}
    # on Hopper (H200) with the transposed copy too (a second trial: a 13B on 128 H100 was
    # given a plan whose 1 B transposed copy its own warning said might not fit)
    assert memory.scenario_recipe_name(fp8) == "fp8_mixed_transpose"
    assert memory.get_recipe("fp8_mixed_transpose").bytes_per_param == 20   # 4 + 4 + 4 + 8
    assert memory.scenario_recipe_name({**fp8, "accelerator": "B200"}) == "fp8_mixed"
    assert memory.get_recipe("fp8_mixed").bytes_per_param == 19   # 3 + 4 + 4 + 8
    assert memory.scenario_recipe_name({**fp8, "optimizer_recipe": None}) == \
        "fp8_mixed_transpose"
    assert memory.scenario_recipe_name({**fp8, "dtype": "bf16"}) == "bf16_adam_fp32_grads"
    assert memory.scenario_recipe_name({**fp8, "stack": "pytorch-fsdp2-2024"}) == \
        "bf16_adam_fp32_grads"   # FSDP casts per micro-batch: no cached copy
    assert memory.scenario_recipe_name(BASE) == "bf16_adam_fp32_grads"   # named: kept
    # nothing is then left out, on Blackwell or on Hopper
    assert fp8_weight_copy_warning({**fp8, "accelerator": "B200"}) is None
    assert fp8_weight_copy_warning(fp8) is None
