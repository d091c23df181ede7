"""MoE parallel folding (``ParallelPlan.etp``): the routed experts' tensor parallelism set apart
from the attention's, checked against its sources and hand derivations.

Sources:

* Megatron-Core's MoE README, "MoE Parallel Folding" (NVIDIA/Megatron-LM
  ``megatron/core/transformer/moe/README.md`` @ d98e8a64): the attention runs on TP × CP × DP ×
  PP, the MoE layers on ETP × EP × EDP × PP over the same ranks; "Traditional: TP=4, CP=2, DP=8,
  PP=4 → max EP=8 / With Folding: Same attention config, but MoE uses ETP=1, EP=64, EDP=1";
  "Keeps High-Bandwidth Communication in NVLink Domain". Liu et al. 2025, arXiv:2504.14960.
* ``megatron/training/arguments.py`` @ d98e8a64: ``expert_tensor_parallel_size`` defaults to
  ``tensor_model_parallel_size``; ``megatron/core/parallel_state.py``: the experts' rank
  generator orders tp (= ETP), ep, dp, so an EP group is ETP-strided.
* Qwen/Qwen3-235B-A22B ``config.json``: hidden_size 4096, moe_intermediate_size 1536,
  num_experts 128, num_experts_per_tok 8, num_hidden_layers 94 (every layer MoE).
  Qwen/Qwen3-30B-A3B ``config.json``: hidden_size 2048, num_experts 128, num_experts_per_tok 8,
  num_hidden_layers 48 (every layer MoE).
"""

import pytest

from llmcost.core.catalog import load_accelerator, load_model
from llmcost.core.hardware import Cluster
from llmcost.serving import rl
from llmcost.training import step
from llmcost.training.comm import comm_volume, placement
from llmcost.training.memory import memory_per_gpu
from llmcost.training.parallel import ParallelPlan, PlanError

H100 = load_accelerator("H100-SXM")
# Qwen3-235B-A22B (config.json): one routed expert is gate, up and down, 3 · 4096 · 1536
EXPERT_235B = 3 * 4096 * 1536
Q235 = dict(tp=2, pp=8, cp=2, dp=4, micro_batch_size=1, n_microbatches=8, zero_stage=1,
            recompute="full", pp_split="embedding_and_loss")


def test_the_readme_example_folding_lifts_ep_above_dp():
    """TP=4, CP=2, DP=8, PP=4: the README's 'max EP=8' is the older EP <= DP rule; Megatron-Core
    since 0.10, and the engine, carve EP out of dp·cp = 16 at ETP = TP; with ETP=1 EP=64
    (EDP = 1) runs."""
    attn = dict(tp=4, cp=2, dp=8, pp=4)
    assert ParallelPlan(ep=8, **attn).etp is None
    assert ParallelPlan(ep=16, **attn).etp is None
    with pytest.raises(PlanError, match=r"ep=64 must divide dp·cp = 8·2 = 16; with etp=1"):
        ParallelPlan(ep=64, **attn)
    plan = ParallelPlan(ep=64, etp=1, **attn)
    assert plan.expert_tp == 1 and "EP64·ETP1" in plan.describe()
    # ETP × EP × EDP = TP × CP × DP: EDP = 4·2·8 / (1·64) = 1; EP 128 cannot fit
    with pytest.raises(PlanError, match=r"ep=128 must divide tp·dp·cp = 4·8·2 = 64"):
        ParallelPlan(ep=128, etp=1, **attn)


def test_etp_is_tp_or_one_with_its_conditions():
    assert ParallelPlan(tp=4, dp=2, ep=2, etp=4).etp is None      # Megatron's default, stored
    assert ParallelPlan(tp=1, dp=8, ep=8, etp=1).etp is None      # ETP = TP = 1
    with pytest.raises(PlanError, match=r"etp=2 must be tp=4"):
        ParallelPlan(tp=4, dp=2, etp=2)
    with pytest.raises(PlanError, match="needs sequence_parallel=True"):
        ParallelPlan(tp=2, dp=4, ep=8, etp=1, sequence_parallel=False)
    with pytest.raises(PlanError, match="HSDP shard group"):
        ParallelPlan(tp=2, dp=8, ep=2, etp=1, zero_stage=3, fsdp_shard_size=4)
    for bad in (0, -1, 2.5, "1"):
        with pytest.raises(ValueError, match="etp"):
            ParallelPlan(tp=2, dp=4, etp=bad)


def test_expert_weights_per_gpu_by_hand():
    """A middle stage of Qwen3-235B on PP8 with the embedding and the loss as a stage's worth
    of layers holds (94 + 2) / 8 = 12 MoE layers. Each rank holds 128/ep experts of the layer,
    split over etp: EP8·ETP1 holds 16 whole experts, EP8·ETP2 16 halves, so its 16-bit weights
    are 12 · 16 · 3·4096·1536 · (1 − 1/2) · 2 B = 3,623,878,656 B more; EP16·ETP1 holds 8 whole
    experts, the same count as EP8·ETP2."""
    m = load_model("qwen3-235b-a22b")
    w = {key: memory_per_gpu(m, ParallelPlan(ep=ep, etp=etp, **Q235), seq_len=8192,
                             stage=1)
         for key, (ep, etp) in {"ep8": (8, None), "ep8_etp1": (8, 1),
                                "ep16_etp1": (16, 1)}.items()}
    hand = 12 * 16 * EXPERT_235B * 0.5 * 2
    assert w["ep8_etp1"].weights - w["ep8"].weights == pytest.approx(hand, rel=1e-9)
    assert w["ep16_etp1"].weights == pytest.approx(w["ep8"].weights, rel=1e-12)
    # ZeRO-1 over the expert-data-parallel group, tp·dp·cp/(etp·ep) ranks: EP8·ETP1 has
    # 16/8 = 2 of them, EP8·ETP2 8/8 = 1, so each rank's expert optimizer shard is
    # 1/(8·2) = 1/(16·1) of the stage's experts either way
    assert w["ep8_etp1"].optimizer_states == pytest.approx(w["ep8"].optimizer_states, rel=1e-12)
    assert w["ep8_etp1"].master_weights == pytest.approx(w["ep8"].master_weights, rel=1e-12)


def test_folded_traffic_by_hand():
    """Qwen3-30B-A3B on 64 H100s, TP2 · DP32 · EP8, 4,096 tokens, micro-batch 1, 16
    micro-batches, no recomputation. Megatron-Core's alltoall dispatcher with sequence
    parallelism (``token_dispatcher.py`` ``MoEAlltoAllTokenDispatcher`` @ d98e8a64): each rank
    sends its own x/tp = 2,048 tokens' k copies over EP, folded or not: EP bytes = (ep−1)/ep ·
    2 · (x/tp) · k · h · 4 · layers · m. At ETP = TP the expert-TP group then all-gathers the
    routed copies and reduce-scatters them back, each way: (tp−1)/tp · k · 2·x·h · 4 · layers ·
    m = 206,158,430,208 B more on the TP links; folded (ETP 1), none. The attention's TP
    collectives are the same in both (Qwen3-30B-A3B has no shared expert)."""
    m = load_model("qwen3-30b-a3b")
    cl = Cluster(H100, 64)
    base = dict(tp=2, dp=32, ep=8, micro_batch_size=1, n_microbatches=16, zero_stage=1)
    v_fold = comm_volume(m, cl, ParallelPlan(etp=1, **base), seq_len=4096)
    v_tp = comm_volume(m, cl, ParallelPlan(**base), seq_len=4096)
    hand = 7 / 8 * 2 * 2048 * 8 * 2048 * 4 * 48 * 16
    assert v_fold.loc["EP", "bytes_per_gpu"] == pytest.approx(hand, rel=1e-12)
    assert v_tp.loc["EP", "bytes_per_gpu"] == pytest.approx(hand, rel=1e-12)
    gather = 1 / 2 * 8 * (2 * 4096 * 2048) * 4 * 48 * 16
    assert gather == 206_158_430_208
    assert v_tp.loc["TP", "bytes_per_gpu"] - v_fold.loc["TP", "bytes_per_gpu"] == \
        pytest.approx(gather, rel=1e-12)
    # where the EP group sits: consecutive ranks folded (one 8-GPU node); the experts' TP apart
    # otherwise, every 2nd rank (16 ranks, two nodes), over the network
    p_fold = placement(ParallelPlan(etp=1, **base), cl).set_index("dimension").loc["EP"]
    p_tp = placement(ParallelPlan(**base), cl).set_index("dimension").loc["EP"]
    assert (p_fold["stride"], p_fold["links"]) == (1, "scale-up")
    assert (p_tp["stride"], p_tp["domains"]) == (2, 2)
    # and the step prices the all-to-all on NVLink: its EP time falls
    t_fold = step.step_time(m, cl, ParallelPlan(etp=1, **base), seq_len=4096)
    t_tp = step.step_time(m, cl, ParallelPlan(**base), seq_len=4096)
    assert t_fold.ep_comm_s < 0.5 * t_tp.ep_comm_s


def test_array_engine_refuses_a_bad_etp():
    m = load_model("qwen3-30b-a3b")
    cl = Cluster(H100, 64)
    plan = ParallelPlan(tp=2, dp=32, ep=8, micro_batch_size=1, n_microbatches=16).to_dict()
    with pytest.raises(ValueError, match=r"etp=3 breaks the rule: etp must be tp"):
        step.step_arrays(m, cl, seq_len=4096, **{**plan, "etp": 3})
    with pytest.raises(ValueError, match=r"etp=1 breaks the rule: etp=1 below tp needs "
                                         r"sequence_parallel=True"):
        step.step_arrays(m, cl, seq_len=4096, **{**plan, "etp": 1, "sequence_parallel": False})


def test_nemo_rl_rows_carry_their_configs_etp():
    """NeMo RL's Qwen3-235B row: TP2 · PP8 · CP2, EP16 (over DP·CP = 8) with the base config's
    expert_tensor_parallel_size 1; its host swap counts each rank's experts as
    N_e / (etp · ep · pp)."""
    rows = rl.load_rl_validation().set_index("id", drop=False)
    plan = rl.validation_setup(rows.loc["nemo-rl-v0.4-qwen3-235b-on"].to_dict())["train_plan"]
    assert (plan["tp"], plan["pp"], plan["cp"], plan["ep"], plan["etp"]) == (2, 8, 2, 16, 1)
    m = load_model("qwen3-235b-a22b")
    n, n_e = float(m.n_params), float(m.param_breakdown["ffn_routed_experts"])
    assert n_e == pytest.approx(94 * 128 * EXPERT_235B, rel=1e-12)
    swap = rl.nemo_rl_swap_bytes("qwen3-235b-a22b", plan, n_train_gpus=128, rollout_tp=16,
                                 colocated=False)
    shard = (n - n_e) / (2 * 8) + n_e / (1 * 16 * 8)
    assert swap["reference"] == pytest.approx(3 * rl.NEMO_RL_SWAP_WEIGHT_BYTES * shard,
                                              rel=1e-12)


def test_the_plan_search_folds_on_request():
    """``enumerate_plans(etp=1)``: every candidate folds the experts, so EP 32 over TP4 · PP8
    on 256 GPUs (DP 8) is valid there (ep divides tp·dp·cp = 32) and nowhere without it; a
    folded candidate without sequence parallelism breaks rule ``etp``; the ranking prices each
    row as ``step_time`` prices its plan."""
    from llmcost.training import parallel, ranking
    m = load_model("qwen3-235b-a22b")
    cl = Cluster(H100, 256)
    axes = dict(tp=(4,), pp=(8,), ep=(32,), virtual_stages=(1,), micro_batch_size=(1,),
                zero_stage=(1,), recompute=("full",), schedule=("1f1b",),
                sequence_parallel=(True, False), pp_split="embedding_and_loss")
    with pytest.warns(parallel.EmptyPlanTable, match="ep_group"):
        plain = parallel.enumerate_plans(m, cl, 512, 4096, **axes)
    assert plain.empty
    folded = parallel.enumerate_plans(m, cl, 512, 4096, etp=1, include_rejected=True, **axes)
    ok = folded[folded["valid"]]
    assert len(ok) == 1 and bool(ok["sequence_parallel"].iloc[0])
    assert (folded["etp"] == 1).all()
    assert set(folded.loc[~folded["valid"], "rejected_rule"]) == {"etp"}
    plan = parallel.plan_from_row(ok.iloc[0], "embedding_and_loss")
    assert (plan.etp, plan.ep, plan.dp) == (1, 32, 8)
    ranked = ranking.rank_by_step_time(ok, m, cl, 4096)
    assert ranked["step_time_s"].iloc[0] == pytest.approx(
        step.step_time(m, cl, plan, seq_len=4096).step_time_s, rel=1e-9)
    with pytest.raises(ValueError, match="etp=2 must be None"):
        parallel.enumerate_plans(m, cl, 512, 4096, etp=2, **axes)


def test_a_scenario_folds_its_plan():
    """A scenario's ``etp: 1`` reaches its plan, fixed or searched; any other value is refused
    by name."""
    from llmcost.bill.scenario import validate_parameter
    from llmcost.training import step_scenario
    p = dict(model="qwen3-235b-a22b", accelerator="H100-SXM", n_gpus=256, seq_len=4096,
             global_batch_tokens=512 * 4096, train_tokens=1e12, tp=4, pp=8, ep=32, etp=1,
             dp=0, cp=1, zero_stage=1, recompute="full", micro_batch_size=1,
             pp_schedule="1f1b", pp_virtual_stages=1, pp_split="embedding_and_loss",
             mem_reserve_fraction=0.1, stack="megatron-core-2024")
    assert step_scenario.scenario_plan(p).describe().startswith(
        "TP4 · PP8 · DP8 · EP32·ETP1")
    free = {**p, "micro_batch_size": 0, "recompute": "auto"}
    plan = step_scenario.scenario_plan(free)
    assert (plan.tp, plan.ep, plan.etp) == (4, 32, 1)
    with pytest.raises(ValueError, match="etp"):
        validate_parameter("etp", 2)
    # unfolded, EP 32 exceeds DP·CP = 8: the search's refusal names the key that would run it
    with pytest.raises(PlanError, match=r"ep_group.*with etp: 1 \(MoE parallel folding\) ep "
                                        r"need only divide tp·dp·cp"):
        step_scenario.scenario_plan({**free, "etp": 0})


def test_a_folded_scenario_ranks_and_pilots_as_it_folds():
    """Notebook 04b's ranking folds as the scenario does; a pilot of a folded plan needs whole
    expert-parallel groups over tp·dp·cp only: EP32 over TP4 takes DP in multiples of
    32 / gcd(32, 4) = 8, where the unfolded rule (EP inside DP) would take 32."""
    from llmcost.training import calibrate, parallel, step_scenario
    p = dict(model="qwen3-235b-a22b", accelerator="H100-SXM", n_gpus=256, seq_len=4096,
             global_batch_tokens=512 * 4096, train_tokens=1e12, tp=4, pp=8, ep=32, etp=1,
             dp=0, cp=1, zero_stage=1, recompute="full", micro_batch_size=1,
             pp_schedule="1f1b", pp_virtual_stages=1, pp_split="embedding_and_loss",
             mem_reserve_fraction=0.1, stack="megatron-core-2024")
    ranked = step_scenario.scenario_rank_plans(p)
    assert len(ranked) and (ranked["etp"] == 1).all()
    plan = step_scenario.scenario_plan(p)
    assert calibrate.ep_dp_unit(plan) == 8
    assert calibrate.ep_dp_unit(parallel.ParallelPlan(tp=4, dp=32, ep=32)) == 32
    assert calibrate.ep_dp_unit(parallel.ParallelPlan(tp=4, cp=2, dp=16, ep=32)) == 16
    rec, _ = calibrate.shorthand_pilot({**p, "ledger_pilot_tokens_per_s_per_gpu": 500.0,
                                        "ledger_pilot_n_gpus": 256}, plan)
    assert (rec["n_gpus"], rec["ep"], rec["etp"]) == (256, 32, 1)
    with pytest.raises(ValueError, match="DP a multiple of 8 for EP=32"):
        calibrate.shorthand_pilot({**p, "ledger_pilot_tokens_per_s_per_gpu": 500.0,
                                   "ledger_pilot_n_gpus": 128}, plan)
    assert calibrate.illustrative_pilot_gpus(plan, 8) == 4 * 8 * 8


def test_shared_experts_and_routed_copies_by_hand():
    """Megatron-Core's ``SharedExpertMLP`` keeps the attention's TP group and its own
    all-gather / reduce-scatter under sequence parallelism (``shared_experts.py`` @ d98e8a64):
    a folded layer of DeepSeek-V3 (one shared expert) keeps the whole dense layer's TP
    collectives, one of Qwen3-30B-A3B (none) half of them. The routed copies a rank keeps for
    its experts' backward, 2 B · k · h per token: its own x/tp tokens' folded, the x tokens its
    expert-TP group gathered at ETP = TP; Qwen3-30B-A3B at TP2, 4,096 tokens, no pipeline and
    no recomputation (one micro-batch's 48 layers held): 48 · 2 · 4,096 · 8 · 2,048 · (1 − 1/2)
    = 3,221,225,472 B more at ETP = TP."""
    from llmcost.core.shapes import model_shapes
    from llmcost.training import comm
    cl = Cluster(H100, 64)
    eff = step.StepOptions().resolve("H100-SXM").comm
    for name, share in (("deepseek-v3", 1.0), ("qwen3-30b-a3b", 0.5)):
        m = load_model(name)
        cm = comm.step_comm_arrays(model_shapes(m), m, cl, eff, s=4096.0, x=4096.0, tp=2.0,
                                   cp=1.0, ep=8.0, dp=32.0, sp=True, etp=1.0)
        assert cm["tp_moe_fwd_s"] == pytest.approx(share * cm["tp_fwd_s"], rel=1e-12), name
        assert cm["tp_moe_bwd_s"] == pytest.approx(share * cm["tp_bwd_s"], rel=1e-12), name
    m = load_model("qwen3-30b-a3b")
    base = dict(tp=2, dp=32, ep=8, micro_batch_size=1, n_microbatches=16, zero_stage=1)
    a_tp = memory_per_gpu(m, ParallelPlan(**base), seq_len=4096).activations
    a_fold = memory_per_gpu(m, ParallelPlan(etp=1, **base), seq_len=4096).activations
    assert a_tp - a_fold == pytest.approx(48 * 2 * 4096 * 8 * 2048 * 0.5, rel=1e-12)


def test_the_ep_group_sits_the_experts_tp_apart_with_cp():
    """Megatron-Core since 0.10 gives the experts their own rank generator (cp = 1, order
    tp-ep-dp over the expert TP; ``parallel_state.py`` @ d98e8a64): at TP2 · CP2 · DP8 · EP4
    an EP group's ranks are 2 apart, 8 ranks in one node, not tp·cp = 4 apart."""
    ep_row = placement(ParallelPlan(tp=2, cp=2, dp=8, ep=4), Cluster(H100, 32)).set_index(
        "dimension").loc["EP"]
    assert (ep_row["stride"], ep_row["domains"], ep_row["links"]) == (2, 1, "scale-up")


def test_folding_a_dense_model_or_an_odd_value_is_refused_by_name():
    from llmcost.bill.scenario import validate_parameter
    from llmcost.training import parallel
    dense = load_model("llama-3.1-8b")
    with pytest.raises(PlanError, match=r"llama-3.1-8b is dense .*leave the experts. TP at tp "
                                        r"\(etp 0 in a scenario"):
        parallel.make_plan(dense, 8, 8, tp=2, etp=1)
    with pytest.raises(ValueError, match=r"etp=4 must be 0 \(the experts' TP equal to tp"):
        validate_parameter("etp", 4)
    assert validate_parameter("etp", 1) == 1


def test_review_edges_are_refused_or_priced_as_megatron_runs_them():
    """Without sequence parallelism each rank dispatches all x tokens and the expert-TP group
    gathers none (the gather of routed copies is sequence parallelism's); folding a dense model
    is refused by the plan search as by the plan; a mis-shaped etp array and a pilot's odd etp
    are refused by name."""
    from llmcost.core.shapes import expert_tp, model_shapes
    from llmcost.training import comm, parallel
    m = load_model("qwen3-30b-a3b")
    cl = Cluster(H100, 64)
    eff = step.StepOptions().resolve("H100-SXM").comm
    cm = comm.step_comm_arrays(model_shapes(m), m, cl, eff, s=4096.0, x=4096.0, tp=2.0, cp=1.0,
                               ep=8.0, dp=32.0, sp=False, etp=2.0)
    assert cm["tp_moe_fwd_s"] == pytest.approx(0.5 * cm["tp_fwd_s"], rel=1e-12)
    with pytest.raises(PlanError, match="dense .*leave the experts. TP at tp"):
        parallel.enumerate_plans(load_model("llama-3.1-8b"), Cluster(H100, 8), 8, 2048, etp=1)
    import numpy as np
    with pytest.raises(ValueError, match=r"etp: an array of shape \(3,\) for plans of shape"):
        expert_tp({"etp": np.array([1, 1, 1])}, np.array([2.0, 2.0]))
    for bad in (2, True, "x", None):
        with pytest.raises(ValueError, match="etp="):
            parallel.etp_of_key(bad)
    assert (parallel.etp_of_key(0), parallel.etp_of_key(1)) == (None, 1)


def test_a_folded_frame_recounts_its_memory_folded():
    """A plan table's memory counted again under a stack's practice (``recount_memory``, the
    plan search's count; ``rl.longest_memory``, the RL update's at its longest micro-batch)
    reads the table's ``etp`` column: each folded row's count is its plan's own
    (``memory_per_gpu``, held to the hand derivation of ``test_expert_weights_per_gpu_by_hand``),
    not the unfolded layout's (EP8·ETP1 at TP2 holds twice the routed-expert weights of EP8·ETP2:
    the recount once priced the folded rows unfolded, and an RL update's search picked a folded
    plan that did not fit)."""
    from llmcost.training import parallel
    m = load_model("qwen3-235b-a22b")
    cl = Cluster(H100, 128)
    # an FP8 run's practice (saved inputs in FP8) differs from the default count, so the
    # table's memory is counted again (under the default practice it is the table's own)
    practice = parallel.stack_plan_search("megatron-core-2024", dtype="fp8")["practice"]
    axes = dict(tp=(2,), pp=(8,), ep=(8,), virtual_stages=(1,), micro_batch_size=(1,),
                zero_stage=(1,), recompute=("full",), schedule=("1f1b",),
                sequence_parallel=(True,), pp_split="embedding_and_loss")
    frames = {etp: parallel.recount_memory(parallel.enumerate_plans(m, cl, 256, 4096, etp=etp,
                                                                    **axes), m, practice)
              for etp in (None, 1)}
    for etp, frame in frames.items():
        assert len(frame) == 1
        plan = parallel.plan_from_row(frame.iloc[0], "embedding_and_loss")
        assert plan.etp == etp
        own = memory_per_gpu(m, plan, seq_len=4096, practice=practice)
        assert frame.attrs.get("memory_practice") == practice.describe()
        assert frame["memory_bytes"].iloc[0] == pytest.approx(own.total, rel=1e-9)
        assert frame["weights_bytes"].iloc[0] == pytest.approx(own.weights, rel=1e-9)
    assert frames[1]["weights_bytes"].iloc[0] > frames[None]["weights_bytes"].iloc[0]


def test_the_rl_update_folds_as_its_scenario_does():
    """A scenario's ``etp: 1`` reaches its RL update's plan search (``rl.ITERATION_KEYS``,
    ``RLOptions.train_etp``), as NeMo RL's Qwen3-235B configs fold their experts
    (expert_tensor_parallel_size 1, ``test_nemo_rl_rows_carry_their_configs_etp``): on 64 H100s
    the folded search takes a TP > 1 plan with its experts at ETP 1, which holds the longest
    micro-batch (the update runs it), and prices the iteration as ``rl_iteration`` with
    ``train_etp=1`` does; ``etp: 0`` searches the experts at TP, as before. The bill keeps the key
    (``bill_values``)."""
    import math
    import yaml
    from llmcost.bill.scenario import bill_values
    from llmcost.core.catalog import SCENARIO_DIR
    p = yaml.safe_load((SCENARIO_DIR / "default.yaml").read_text())
    p = {**p, "model": "qwen3-235b-a22b", "rl_gpus": 64, "rl_rollout_tp": 8}
    folded = rl.scenario_iteration({**p, "etp": 1})
    plain = rl.scenario_iteration({**p, "etp": 0})
    assert "·ETP1" in folded.notes and "ETP" not in plain.notes
    direct = rl.rl_iteration(
        "qwen3-235b-a22b", "H100-SXM", n_gpus=64, rollout_tp=8, train_plan="auto", train_etp=1,
        algorithm=p["rl_algorithm"], prompts_per_step=p["rl_prompts_per_step"],
        samples_per_prompt=p["rl_samples_per_prompt"], prompt_tokens=p["rl_prompt_tokens"],
        response_tokens=p["rl_response_tokens"], response_tokens_max=p["rl_response_tokens_max"],
        ppo_epochs=p["rl_ppo_epochs"], stack=p["stack"],
        recompute_old_logprobs=rl.scenario_recomputes_old_logprobs(p["rl_algorithm"]))
    assert direct.wall_s == pytest.approx(folded.wall_s, rel=1e-12)
    # the searched plan holds a micro-batch of the longest sequences (prompt + longest response,
    # padded to 2·tp), memory as the search counts it on the scenario's stack
    from llmcost.training.parallel import stack_plan_search
    m = load_model("qwen3-235b-a22b")
    o = rl.RLOptions(algorithm=p["rl_algorithm"], prompts_per_step=p["rl_prompts_per_step"],
                     samples_per_prompt=p["rl_samples_per_prompt"],
                     prompt_tokens=p["rl_prompt_tokens"], response_tokens=p["rl_response_tokens"],
                     response_tokens_max=p["rl_response_tokens_max"], n_gpus=64, rollout_tp=8,
                     train_plan="auto", train_etp=1, stack=p["stack"])
    r = rl.response_lengths(o.response_tokens, o.response_tokens_max, o.samples)
    x = o.prompt_tokens + float(r.mean())
    longest = rl.longest_tokens(o, r)
    _, plan = rl._auto_step(m, H100, 64, o.samples, math.ceil(x), p["stack"], None, {}, (),
                            longest, etp=1)
    assert plan.tp > 1 and plan.etp == 1
    f = 2 * plan.tp
    mem = memory_per_gpu(m, plan, math.ceil(longest / f) * f,
                         practice=stack_plan_search(p["stack"])["practice"])
    assert mem.fits(H100.hbm_bytes)
    assert bill_values({**p, "etp": 1})["etp"] == 1


def test_the_rl_update_refuses_a_fold_it_cannot_search():
    """``train_etp``: None or 1, with ``train_plan="auto"`` only (a given plan carries its own
    ``etp``), for an MoE policy only; each refusal names the field."""
    kw = dict(n_gpus=8, prompts_per_step=8, samples_per_prompt=4, response_tokens=512)
    import numpy as np
    for bad in (2, True, 1.0, 1 + 0j, np.array([1])):     # a review: the last three were taken
        with pytest.raises(ValueError, match=r"train_etp=.* must be None \(the experts' TP"):
            rl.RLOptions(train_plan="auto", train_etp=bad, **kw)
    o = rl.RLOptions(train_plan="auto", train_etp=np.int64(1), **kw)
    assert o.train_etp == 1 and type(o.train_etp) is int
    with pytest.raises(ValueError, match=r"train_etp=1 sets the automatic plan search's.*put "
                                         r"'etp' in train_plan"):
        rl.RLOptions(train_etp=1, **kw)
    with pytest.raises(ValueError, match=r"train_etp=1: llama-3.1-8b is dense"):
        rl.rl_iteration("llama-3.1-8b", "H100-SXM", train_plan="auto", train_etp=1, **kw)
    with pytest.raises(ValueError, match=r"etp=1 .*a given train_plan carries its own"):
        rl.train_step("qwen3-30b-a3b", "H100-SXM", 8, 64, 1024, etp=1)
    with pytest.raises(ValueError, match=r"etp=1.0 must be None"):
        rl.train_step("qwen3-30b-a3b", "H100-SXM", 8, 64, 1024, train_plan="auto", etp=1.0)


def test_every_page_that_prices_the_rl_iteration_prices_the_bills(tmp_path):
    """The pages that price the scenario's RL iteration (notebooks 00, 05, 09: the bill's RL line
    or ``rl.scenario_iteration`` itself) declare every scenario key the iteration reads
    (``rl.ITERATION_KEYS``), so a report hands them the scenario's ``etp`` and ``stack``: notebook
    05's campaign, computed from the parameters a report injects, is the bill's RL line
    (``build_ledger``, what ``llmcost estimate`` and the index show). A trial found 00 and 05
    without ``etp`` and ``stack``: their RL line priced unfolded on the default stack where the
    bill's was folded on the scenario's."""
    import yaml
    from llmcost.bill.ledger import build_ledger
    from llmcost.bill.scenario import load_scenario, scenario_price
    from llmcost.core.catalog import SCENARIO_DIR
    from llmcost.present import report
    keys = [k for k in rl.ITERATION_KEYS if k != "accelerator"]   # accelerator: every page's
    # a page that takes the RL campaign (declares rl_iterations: its bill has the RL line) or
    # prices the iteration itself
    pages = [nb for nb in report.list_notebooks()
             if "rl_iterations" in report.declared_parameters(nb)
             or "rl.scenario_iteration(" in nb.read_text()]
    assert {nb.stem for nb in pages} >= {"00_index", "05_rl_loop", "09_savings"}
    for nb in pages:
        missing = set(keys) - set(report.declared_parameters(nb))
        assert not missing, (nb.stem, missing)
    sc = yaml.safe_load((SCENARIO_DIR / "default.yaml").read_text())
    sc.update(model="qwen3-235b-a22b", etp=1, stack="megatron-core-2025", rl_gpus=64,
              rl_rollout_tp=8)
    path = tmp_path / "folded.yaml"
    path.write_text(yaml.safe_dump(sc))
    plan = report.plan_report(path, ["05"])
    params = report.notebook_parameters_for(plan.notebooks[0], plan)
    assert (params["etp"], params["stack"]) == (1, "megatron-core-2025")
    price = scenario_price(params)[0]
    camp = rl.scenario_campaign(params, price)
    bill = build_ledger(load_scenario(path))
    assert float(camp.loc["total", "usd"]) == pytest.approx(bill.line("post.rl").usd, rel=1e-9)
    assert float(camp.loc["total", "gpu_hours"]) == pytest.approx(
        bill.figures["rl_gpu_hours"], rel=1e-9)
    for other in ({"etp": 0}, {"stack": "megatron-core-2024"}):   # each key moves the line
        moved = rl.scenario_campaign({**params, **other}, price)
        assert float(moved.loc["total", "gpu_hours"]) != pytest.approx(
            bill.figures["rl_gpu_hours"], rel=1e-3), other
