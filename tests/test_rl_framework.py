"""A scenario's ``rl_framework`` key (llmcost.rl.framework_options): the documented defaults of
a NeMo RL release applied on the bill's path, and the validation's rows stated with theirs.

Sources: NVIDIA-NeMo/RL (github.com/NVIDIA-NeMo/RL) at tags v0.3.0, v0.4.0, v0.5.0, v0.6.0:
examples/configs/grpo_math_1B.yaml (``gpu_memory_utilization: 0.6``, ``async_engine: false``,
``train_micro_batch_size: 4``, ``sequence_packing.enabled: True``; no ``async_grpo`` at v0.3.0),
nemo_rl/algorithms/grpo.py @ v0.4.0 l. 1564 (asynchronous GRPO refused without
``vllm_cfg.async_engine=True``), pyproject.toml (vllm 0.9.0 / 0.10.0 / 0.11.2 / 0.17.1);
vLLM's default ``max_num_seqs`` (rl.vllm_default_max_num_seqs: 1024 for ``LLM`` on an H100,
128 for ``AsyncLLM``); published step times: data/rl_iterations.csv.
"""

import numpy as np
import pytest

from llmcost import rl
from llmcost.bill.scenario import LEDGER_DEFAULTS, PARAMETERS
from llmcost.serving import inference


def test_nemo_rl_defaults_are_the_release_configs():
    o = rl.framework_options("nemo-rl-0.4", "H100-SXM", asynchronous=False, sequence_tokens=4096)
    # v0.4.0: streamed refit; host swaps; vllm.LLM on an 80 GB H100 -> max_num_seqs 1024;
    # gpu_memory_utilization 0.6 -> 0.4 left; vLLM 0.10.0 decodes in piecewise graphs;
    # packing 4,096 tokens x train_micro_batch_size 4
    assert o == dict(refit="nemo-rl-v0.4", host_swaps=True, max_concurrent=1024,
                     rollout_reserve_fraction=pytest.approx(0.4, abs=1e-12),
                     rollout_piecewise_graphs=True, pack_tokens=16384)
    a = rl.framework_options("nemo-rl-0.6", "H100-SXM", asynchronous=True, sequence_tokens=4096)
    assert a["max_concurrent"] == 128 and a["rollout_piecewise_graphs"] is False  # AsyncLLM, 0.17.1
    assert rl.framework_options("nemo-rl-0.3", "H100-SXM", asynchronous=False,
                                sequence_tokens=1)["refit"] == "nemo-rl"
    assert rl.framework_options("generic", "H100-SXM", asynchronous=True, sequence_tokens=1) == {}


def test_bad_framework_is_refused_by_name():
    with pytest.raises(ValueError, match="rl_framework='openrlhf' must be one of"):
        rl.framework_options("openrlhf", "H100-SXM", asynchronous=False, sequence_tokens=1)
    with pytest.raises(ValueError, match="rl_async must be false"):
        rl.framework_options("nemo-rl-0.3", "H100-SXM", asynchronous=True, sequence_tokens=1)
    # no ppo.py in nemo_rl/algorithms at v0.3.0-v0.6.0 (sft, dpo, grpo; distillation and rm
    # from v0.4.0): a NeMo RL release with rl_algorithm ppo is refused, naming the keys (a trial
    # billed it without a word)
    for release in ("nemo-rl-0.3", "nemo-rl-0.6"):
        with pytest.raises(ValueError, match=rf"rl_framework='{release}' has no PPO .* "
                                             r"rl_algorithm must be one of grpo, dpo"):
            rl.framework_options(release, "H100-SXM", asynchronous=False, sequence_tokens=1,
                                 algorithm="ppo")
    assert rl.framework_options("generic", "H100-SXM", asynchronous=False, sequence_tokens=1,
                                algorithm="ppo") == {}


def test_the_scenario_registry_lists_the_same_values():
    param = PARAMETERS["rl_framework"]
    for v in rl.RL_FRAMEWORKS:
        assert param.check("rl_framework", v) == v
    with pytest.raises(ValueError, match="rl_framework='openrlhf' must be one of"):
        param.check("rl_framework", "openrlhf")
    assert LEDGER_DEFAULTS["rl_framework"] == rl.ITERATION_DEFAULTS["rl_framework"] == "generic"


def _scenario(**change):
    # NeMo RL v0.4's Qwen3-30B-A3B recipe's size (grpo-qwen3-30ba3b-4n8g.yaml: 64 prompts x 32
    # generations, 32 H100s, vLLM TP 4), its lengths from the summary's row
    return dict(LEDGER_DEFAULTS, model="qwen3-30b-a3b", accelerator="H100-SXM", rl_gpus=32,
                rl_rollout_tp=4, rl_prompts_per_step=64, rl_samples_per_prompt=32,
                rl_prompt_tokens=98, rl_response_tokens=2898, rl_response_tokens_max=3998,
                **change)


def test_the_key_reaches_the_bills_iteration():
    generic = rl.scenario_iteration(_scenario())
    nemo = rl.scenario_iteration(_scenario(rl_framework="nemo-rl-0.4"))
    direct = rl.rl_iteration(
        "qwen3-30b-a3b", "H100-SXM", algorithm="grpo", prompts_per_step=64,
        samples_per_prompt=32, prompt_tokens=98, response_tokens=2898,
        response_tokens_max=3998, reward="verifier", n_gpus=32, rollout_tp=4,
        train_plan="auto", recompute_old_logprobs=True,
        **rl.framework_options("nemo-rl-0.4", "H100-SXM", asynchronous=False,
                               sequence_tokens=98 + 3998))
    assert nemo.wall_s == pytest.approx(direct.wall_s, rel=1e-9)
    assert nemo.wall_s > generic.wall_s   # swaps, the measured refit, a smaller KV share
    with pytest.raises(ValueError, match="rl_framework="):
        rl.scenario_iteration(_scenario(rl_framework="nemo-rl-0.9"))


def test_auto_plan_swaps_count_the_searched_plans_shard():
    # nemo_rl_swap_bytes: reference = 3 * 2 B * S, S = (N - N_e) / (tp pp) + N_e / (etp ep pp),
    # over the host link; an "auto" update now counts the plan its search chose, not tp=pp=ep=1
    kw = dict(algorithm="grpo", prompts_per_step=64, samples_per_prompt=32, prompt_tokens=98,
              response_tokens=2898, response_tokens_max=3998, reward="verifier", n_gpus=32,
              rollout_tp=4, train_plan="auto", recompute_old_logprobs=True)
    on = rl.rl_iteration("qwen3-30b-a3b", "H100-SXM", host_swaps=True, **kw)
    off = rl.rl_iteration("qwen3-30b-a3b", "H100-SXM", host_swaps=False, **kw)
    m = inference.serving_model("qwen3-30b-a3b")
    acc = inference.serving_accelerator("H100-SXM")
    o = rl.RLOptions.build(**kw)
    plan = rl._training_mfu_and_plan(m, acc, o, rl.sample_lengths(o))[3]
    n, n_e = float(m.n_params), float(m.param_breakdown["ffn_routed_experts"])
    etp = plan["tp"] if plan["etp"] is None else plan["etp"]
    shard = (n - n_e) / (plan["tp"] * plan["pp"]) + n_e / (etp * plan["ep"] * plan["pp"])
    expected = 3 * 2 * shard / rl.pcie_bytes_per_s(acc)
    got = (on.parts_gpu_s["reference"] - off.parts_gpu_s["reference"]) / on.n_gpus
    assert got == pytest.approx(expected, rel=1e-9)
    assert plan["ep"] * plan["pp"] * plan["tp"] > 1    # the default plan's shard is all of N


def test_rows_stated_with_their_framework():
    # measured / predicted on the bill's path, each NeMo RL row stated with its release's
    # defaults (FRAMEWORK_MODE), against the generic path (RL_TIME_FACTOR_RANGE, median 1.69)
    lo, med, hi = rl.held_out_time_factors(rl.FRAMEWORK_MODE)
    assert (lo, med, hi) == (pytest.approx(0.55, abs=0.01), pytest.approx(1.29, abs=0.01),
                             pytest.approx(1.94, abs=0.01))
    assert hi < rl.RL_TIME_FACTOR_RANGE[1]
    cal = 1 / rl.rl_validation(rl.FRAMEWORK_MODE, split="calibration")["ratio"].dropna()
    assert (cal.min(), cal.median(), cal.max()) == (
        pytest.approx(0.84, abs=0.01), pytest.approx(1.11, abs=0.01),
        pytest.approx(1.36, abs=0.01))
    d = rl.load_rl_validation()
    assert {rl.row_framework(r) for _, r in d.iterrows()} == {
        "generic", "nemo-rl-0.3", "nemo-rl-0.4", "nemo-rl-0.5", "nemo-rl-0.6"}
    # the 1-step-off Qwen3-235B row's recipe sets gpu_memory_utilization 0.8: at the base
    # config's 0.6 its TP-8 replica does not hold the weights, and the row is refused, not priced
    df = rl.rl_validation(rl.FRAMEWORK_MODE, split="heldout").set_index("id")
    assert np.isnan(df.loc["nemo-rl-v0.4-qwen3-235b-off1", "ratio"])
    assert "do not fit" in df.loc["nemo-rl-v0.4-qwen3-235b-off1", "error"]


def test_a_framework_bill_is_centred_and_ranged_on_its_own_rows():
    # RL_FRAMEWORK_TIME_FACTOR_RANGE / _MEDIAN: the FRAMEWORK_MODE held-out spread, rounded
    lo, med, hi = rl.held_out_time_factors(rl.FRAMEWORK_MODE)
    assert rl.RL_FRAMEWORK_TIME_FACTOR_RANGE == (pytest.approx(lo, abs=0.005),
                                                 pytest.approx(hi, abs=0.005))
    assert rl.RL_FRAMEWORK_TIME_FACTOR_MEDIAN == pytest.approx(med, abs=0.005)
    p = _scenario(rl_framework="nemo-rl-0.6")
    assert rl.time_factor_triangle(p) == (0.55, 1.29, 1.94)
    assert rl.scenario_time_factor(p) == 1.29
    assert rl.time_factor_triangle(_scenario()) == (0.55, 1.69, 3.15)   # generic: unchanged
    assert rl.scenario_time_factor(_scenario(rl_framework="nemo-rl-0.6", rl_algorithm="dpo")) \
        == 1.0
    assert "rl_framework nemo-rl-0.6" in rl.time_factor_words(p)


def test_a_given_mfu_keeps_the_searched_plans_swaps():
    # a scenario that gives rl_train_mfu prices its passes at it; its framework's host swaps
    # still count the shard of the plan the search would run (not the whole model per GPU)
    p = _scenario(rl_framework="nemo-rl-0.4")
    auto = rl.scenario_iteration(p)
    given = rl.scenario_iteration({**p, "rl_train_mfu": 0.3})
    generic = rl.scenario_iteration({**_scenario(), "rl_train_mfu": 0.3})
    swap = given.parts_gpu_s["reference"] - generic.parts_gpu_s["reference"]
    m = inference.serving_model("qwen3-30b-a3b")
    acc = inference.serving_accelerator("H100-SXM")
    whole = 3 * 2 * float(m.n_params) / rl.pcie_bytes_per_s(acc) * given.n_gpus
    assert 0 < swap < whole / 2
    assert given.parts_gpu_s["weight_sync"] == pytest.approx(auto.parts_gpu_s["weight_sync"],
                                                             rel=1e-9)


def test_notebook_05_runs_for_a_nemo_rl_scenario(tmp_path):
    # A trial: a scenario with rl_framework nemo-rl-0.6 broke notebook 05 (its "PPO, same
    # samples" comparison kept the framework, which runs no PPO: framework_options refuses it),
    # so `llmcost report` exited 1. The comparison row is PPO on the generic path; the page
    # runs and its campaign is the bill's RL line.
    from _inprocess import run_in_process

    import llmcost
    from llmcost.bill.ledger import build_ledger
    from llmcost.present import report
    sc = tmp_path / "nemo.yaml"
    sc.write_text("model: llama-2-13b\naccelerator: H100-SXM\nn_gpus: 128\n"
                  "train_tokens: 1.0e12\nmfu: 0.4\nrl_framework: nemo-rl-0.6\nrl_gpus: 32\n"
                  "rl_rollout_tp: 1\nrl_iterations: 500\nrl_runs: 3\n")
    plan = report.plan_report(sc, ["05"])
    nb = next(n for n in plan.notebooks if n.stem == "05_rl_loop")
    out = run_in_process(nb, report.notebook_parameters_for(nb, plan))
    assert "campaign of 3 runs: " in out
    usd = build_ledger(report.bill_inputs(plan.values)).line("post.rl").usd
    assert f"= {llmcost.fmt_usd(usd)} (the model's" in out   # at the framework's factor


def test_a_gb300_host_link_is_its_grace_c2c_share():
    # A robustness sweep: a GB300 RL scenario naming a framework (host swaps over the host link)
    # was refused, "no host-link (PCIe) bandwidth". GB300 NVL72 pairs each Grace CPU with two
    # Blackwell Ultra GPUs over NVLink-C2C, 900 GB/s bidirectional (NVIDIA GB300 NVL72 product
    # page), as GB200: 900 / 2 directions / 2 GPUs = 225 GB/s per GPU per direction.
    assert rl.pcie_bytes_per_s(inference.serving_accelerator("GB300-NVL72")) == 900e9 / 2 / 2
    assert rl.pcie_bytes_per_s(inference.serving_accelerator("GB200-NVL72")) == 225e9
