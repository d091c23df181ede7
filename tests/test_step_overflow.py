"""``step_time`` warns when a plan's model states alone exceed the GPU's HBM (a new-user trial
priced Llama 2 70B at TP8 on 8 H100s at 46% MFU with no word). By hand: Llama 2 70B has
68.98e9 parameters (Touvron et al. 2023, Table 1's 70B; the catalogue's count); bf16 weights,
fp32 gradients, fp32 master weights and Adam m, v (18 bytes per parameter, the default recipe)
under TP8 with no ZeRO: 68.98e9 × 18 / 8 = 155.2 GB per GPU, above the H100 SXM's 80 GiB
(85.9 GB; NVIDIA H100 datasheet). On 64 GPUs with ZeRO-1 (TP8, DP8): weights and gradients
68.98e9 × 6 / 8 = 51.7 GB plus master and Adam 68.98e9 × 12 / 64 = 12.9 GB: 64.7 GB, under it."""

import warnings

import pytest

import llmcost
from llmcost.training.step import PlanDoesNotFitWarning


def test_a_plan_whose_model_states_overflow_the_hbm_is_said():
    m = llmcost.load_model("llama-2-70b")
    h100 = llmcost.load_accelerator("H100-SXM")
    plan = llmcost.make_plan(m, 8, 8, tp=8)
    with pytest.warns(PlanDoesNotFitWarning, match=r"keeps 155\.\d GB of model states per GPU") \
            as rec:
        b = llmcost.step_time(m, llmcost.Cluster(h100, 8), plan)
    assert "more than the 85.9 GB of HBM of H100-SXM" in str(rec[0].message)
    assert m.n_params * 18 / 8 / 1e9 == pytest.approx(155.2, abs=0.1)
    assert 0 < b.mfu < 1                       # still priced: a what-if, said
    fits = llmcost.make_plan(m, 64, 64, tp=8, zero_stage=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PlanDoesNotFitWarning)
        llmcost.step_time(m, llmcost.Cluster(h100, 64), fits)


def test_no_published_plan_of_the_validation_is_said_not_to_fit():
    # every row of data/validation_mfu.csv ran: none may be called a run that could not start.
    # Each row priced afresh (keep=False: neither the disk cache nor the in-process memo of the
    # validation tables, which would skip the step and its warning)
    from llmcost.core.catalog import load_published_runs
    from llmcost.training import step_validation as sv
    cfg = sv.validation_configs(include_excluded=True)
    runs = load_published_runs().set_index("run_id")
    with warnings.catch_warnings():
        warnings.simplefilter("error", PlanDoesNotFitWarning)
        for c, r in sv._config_run_rows(cfg, runs):
            sv._validation_row(c, r, {}, None, keep=False)
    assert len(cfg) > 300


def test_the_stage_with_most_model_states_is_the_one_checked():
    # A review: DeepSeek-V3 on 768 H100s at TP1 · PP3 · EP32 · ZeRO-1 with the embedding and
    # the loss in pipeline slots of their own: the stage of most memory in all (activations)
    # is the first, but the last holds more model states (its layers' experts and the LM
    # head), above the 85.9 GB of HBM: the check takes the stage of most model states
    from llmcost.training import memory
    m = llmcost.load_model("deepseek-v3")
    plan = llmcost.make_plan(m, 768, 768 * 4, tp=1, pp=3, ep=32, zero_stage=1,
                             pp_split="embedding_and_loss")
    states = [memory.memory_per_gpu(m, plan, 4096, stage=s).model_states for s in range(3)]
    busiest = memory.memory_per_gpu(m, plan, 4096)
    assert max(states) > 85.9e9 > busiest.model_states
    with pytest.warns(PlanDoesNotFitWarning, match=rf"keeps {max(states) / 1e9:.1f} GB of model"):
        llmcost.step_time(m, llmcost.Cluster(llmcost.load_accelerator("H100-SXM"), 768), plan,
                          4096)


def test_a_scenarios_plan_that_does_not_fit_is_said_once_by_the_scenario():
    # scenario_step prices the scenario's plan quietly: its checks say "no parallel plan fits"
    from llmcost.training.step_scenario import scenario_step
    from llmcost.bill import checks
    p = {**llmcost.load_scenario(llmcost.SCENARIO_DIR / "default.yaml"), "n_gpus": 8,
         "mfu": 0.4}
    values = llmcost.validate_parameters(**{k: v for k, v in p.items()
                                            if k not in ("title", "description")})
    with warnings.catch_warnings():
        warnings.simplefilter("error", PlanDoesNotFitWarning)
        scenario_step(values)
        said = checks.scenario_warnings(values)
    assert any("no parallel plan fits" in w or "could not start" in w for w in said)
