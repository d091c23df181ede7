"""The scenario key ``fp8_recipe``: the FP8 scaling a run uses, priced by the step-time model.

A new user's trial (a startup pre-training a 30B-A3B MoE in FP8) wrote ``dtype: mxfp8`` and
``dtype: fp8-e4m3`` and was told only "must be one of 'bf16', 'fp8'", with no way to say that
its Blackwell run scales in MX blocks (Megatron-Bridge's B200/GB200 recipes run MXFP8; the
engine prices each recipe's casts, ``elementwise.FP8_RECIPES``, but a scenario could only ever
price per-tensor current scaling)."""
import pytest

from llmcost.bill.scenario import ScenarioError, validate_parameter, validate_parameters
from llmcost.training.elementwise import FP8_RECIPES
from llmcost.training.step_scenario import scenario_step, scenario_step_options

B200_MOE = {"model": "qwen3-30b-a3b", "accelerator": "B200", "n_gpus": 64, "seq_len": 4096,
            "global_batch_tokens": 4096 * 512, "dtype": "fp8", "tp": 1, "pp": 1, "ep": 8,
            "cp": 1, "micro_batch_size": 1, "zero_stage": 1, "recompute": "none",
            "stack": "megatron-core-2025"}


def test_the_recipe_reaches_the_step_model_and_changes_the_casts_it_prices():
    # Bytes per element of one cast (Transformer Engine's docs, as elementwise.FP8_RECIPES
    # counts them): read 2 B, write two 1 B copies = 4 B; current scaling reads the tensor once
    # more for its amax, 4 + 2 = 6 B; MXFP8 computes each 32-element block's scale inside the
    # cast and writes a 1 B scale per block on each copy, 4 + 2/32 = 4.0625 B.
    assert FP8_RECIPES["current"] == 4 + 2 and FP8_RECIPES["mxfp8"] == 4 + 2 / 32
    steps = {}
    for recipe in ("current", "mxfp8"):
        p = {**B200_MOE, "fp8_recipe": recipe}
        assert scenario_step_options(p).fp8_recipe == recipe
        steps[recipe] = scenario_step(p)[1]
    assert steps["mxfp8"].step_time_s < steps["current"].step_time_s
    # the default is current scaling, as every scenario was priced before the key
    assert scenario_step_options(B200_MOE).fp8_recipe == "current"


@pytest.mark.parametrize("written, says", [
    ("mxfp8", "(write fp8, with fp8_recipe: mxfp8)"),
    ("fp8-e4m3", "(write fp8: the recipe takes E4M3 and E5M2 where it uses them"),
    ("FP8-CS", "(write fp8, with fp8_recipe: current)")])
def test_an_fp8_format_or_recipe_written_as_the_dtype_is_told_what_to_write(written, says):
    with pytest.raises(ScenarioError) as e:
        validate_parameter("dtype", written)
    assert str(e.value).startswith(f"dtype={written!r} must be one of 'bf16', 'fp8'")
    assert says in str(e.value)
    with pytest.raises(ScenarioError) as e:   # any other word keeps the plain refusal
        validate_parameter("dtype", "int8")
    assert str(e.value) == "dtype='int8' must be one of 'bf16', 'fp8'"


def test_a_recipe_without_fp8_or_mxfp8_off_blackwell_is_refused_with_the_rule():
    with pytest.raises(ScenarioError, match=r"fp8_recipe='delayed' needs dtype: fp8 \(dtype is "
                                            r"'bf16'"):
        validate_parameters(**{"dtype": "bf16", "fp8_recipe": "delayed"})
    with pytest.raises(ScenarioError, match=r"fp8_recipe='mxfp8' needs a Blackwell accelerator "
                                            r"\(accelerator is 'H100-SXM'\)"):
        validate_parameters(**{"dtype": "fp8", "accelerator": "H100-SXM", "fp8_recipe": "mxfp8"})
    with pytest.raises(ScenarioError, match=r"fp8_recipe='mx' must be one of 'delayed', "
                                            r"'current', 'mxfp8', 'blockwise'"):
        validate_parameter("fp8_recipe", "mx")
    # the recipes Hopper runs, and MXFP8 on Blackwell, are taken
    for acc, recipe in (("H100-SXM", "blockwise"), ("H100-SXM", "delayed"), ("B200", "mxfp8"),
                        ("GB200-NVL72", "mxfp8")):
        assert validate_parameters(**{"dtype": "fp8", "accelerator": acc,
                                    "fp8_recipe": recipe})["fp8_recipe"] == recipe


def _lever_scenario(**over):
    import llmcost
    from llmcost.bill import levers as lv
    return {**lv._clean(llmcost.load_scenario(llmcost.SCENARIO_DIR / "default.yaml")),
            "model": "qwen3-30b-a3b", "accelerator": "B200", "n_gpus": 64, "dtype": "fp8",
            "train_tokens": 1e11, "mfu": 0.2, **over}


def test_the_levers_price_the_recipe_and_move_mxfp8_off_blackwell_as_current_scaling():
    # A review: the levers' step (levers.predicted_step, hardware_sweep, move_to) dropped the
    # key, pricing every FP8 run as current scaling beside a bill that took the recipe; and an
    # MXFP8 scenario's hardware table refused every Hopper accelerator while its move to H100
    # built a scenario the bill then refused. Off Blackwell the run scales per tensor (NVIDIA's
    # H100 recipes of the same releases: data/validation_mfu.csv's ...-h100-...-fp8cs rows).
    from llmcost.bill import levers as lv
    mx, cs = (_lever_scenario(fp8_recipe=r) for r in ("mxfp8", "current"))
    # MXFP8 moves fewer cast bytes than current scaling (the first test's hand count): the
    # levers' step is faster under it, as the bill's is
    assert lv.predicted_step(mx)[1].step_time_s < lv.predicted_step(cs)[1].step_time_s
    assert lv.fp8_recipe_on(mx, "H100-SXM") == {"fp8_recipe": "current"}
    assert lv.fp8_recipe_on(mx, "GB200-NVL72") == {} and lv.fp8_recipe_on(cs, "H100-SXM") == {}
    c = lv.move_to(mx, "H100-SXM")
    assert c.after["fp8_recipe"] == "current" and lv.MXFP8_OFF_BLACKWELL_WORDS in c.assumptions
    assert lv.bill(c.after).total_usd > 0   # a scenario the bill takes
    row = lv._moved_to(mx, "H100-SXM")
    assert row["fp8_recipe"] == "current" and row["accelerator"] == "H100-SXM"


def test_a_fixed_plan_moves_off_blackwell_too():
    # A review: with the plan fixed (tp 1, pp 1, ep 8), move_to kept the plan with
    # fp8_recipe mxfp8 on H200, refused, and the report's lever ranking raised
    from llmcost.bill import levers as lv
    mx = _lever_scenario(fp8_recipe="mxfp8", tp=1, pp=1, cp=1, ep=8)
    c = lv.move_to(mx, "H200")
    assert c.after["fp8_recipe"] == "current" and c.after["accelerator"] == "H200"
    assert lv.bill(c.after).total_usd > 0
