"""Bad input at the public functions a fresh-context sweep found unguarded.

The sweep called every public function once with valid arguments and then with one argument
changed to NaN, inf, -1, 0, 1e30, 2.5, a bool, a string, None or an empty list. These are the
cases a notebook reader can reach, each answered now with a ValueError naming the argument, or,
for a catalogue name where an object was expected, the same answer as the object. Each valid
call is checked against the hand value or published figure its own module's tests use.
"""

import pytest

from llmcost.bill import claims
from llmcost.core.catalog import load_accelerator, load_model
from llmcost.core.hardware import Cluster
from llmcost.laws import scaling
from llmcost.serving import engines, rl
from llmcost.training import batch, comm, parallel


@pytest.mark.parametrize("flag", ["false", 1, 2.5, None])
def test_a_flag_given_as_a_string_or_number_is_refused(flag):
    """``bool("false")`` is True: the sweep read ``flash_attention="false"`` as FlashAttention
    on (42.0 MB where False gives 58.7 MB), ``pinned="false"`` as pinned copies (0.082 s
    against 0.738 s) and ``is_moe="false"`` as the MoE reference."""
    m = load_model("gpt-3-175b")
    with pytest.raises(ValueError, match="^flash_attention=.* must be True or False"):
        batch.activation_bytes_per_gpu(m, 1, 2048, 8, flash_attention=flag)
    with pytest.raises(ValueError, match="^dropout=.* must be True or False"):
        batch.activation_bytes_per_gpu(m, 1, 2048, 8, dropout=flag)
    if flag is not None:     # None is the default: sequence parallelism when tp > 1
        with pytest.raises(ValueError, match="^sequence_parallel=.* must be True or False"):
            batch.activation_bytes_per_gpu(m, 1, 2048, 8, sequence_parallel=flag)
        with pytest.raises(ValueError, match="^is_moe=.* must be True or False"):
            claims.best_reference("H100-SXM", 70e9, is_moe=flag)
    with pytest.raises(ValueError, match="^pinned=.* must be True or False"):
        rl.deepspeed_offload_time(8e9, 8, "A100-80GB", 2, 1, 8, pinned=flag)
    # the valid flags still give Korthikanti et al. 2022 Table 2's 342 MiB per layer (TP 8 +
    # SP, no FlashAttention, dropout masks stored: GPT-3 175B at 2,048 tokens)
    per_layer = batch.activation_bytes_per_gpu(m, 1, 2048, 8, flash_attention=False,
                                               dropout=True) / (2**20 * m.n_layers)
    assert per_layer == pytest.approx(342, abs=0.5)


def test_batch_functions_take_catalogue_names_as_the_other_entry_points_do():
    """``batch.matmul_utilisation`` and its neighbours raised AttributeError on "H100-SXM"
    or "llama-2-7b", where every other entry point takes a catalogue name."""
    spec, gpu = load_model("llama-2-7b"), load_accelerator("H100-SXM")
    assert batch.matmul_utilisation("llama-2-7b", 4096, "H100-SXM") == \
        batch.matmul_utilisation(spec, 4096, gpu)
    assert batch.kaplan_n_params("llama-2-7b") == batch.kaplan_n_params(spec)
    # Kaplan's N excludes the embeddings: 6.74B - 2 x 32,000 x 4,096 (untied) = 6.48B
    assert batch.kaplan_n_params("llama-2-7b") == pytest.approx(6.738e9 - 2 * 32000 * 4096,
                                                                rel=1e-3)
    assert batch.model_matmul_shapes("llama-2-7b", 1).equals(batch.model_matmul_shapes(spec, 1))
    assert batch.ring_bandwidth("H100-SXM", 8, 1) == batch.ring_bandwidth(gpu, 8, 1)
    a = batch.dp_gradient_sync("llama-2-7b", 64, 1, 1, 4e6, "H100-SXM", 0.4)
    b = batch.dp_gradient_sync(spec, 64, 1, 1, 4e6, gpu, 0.4)
    assert a.equals(b)
    with pytest.raises(ValueError, match="accelerator"):
        batch.matmul_utilisation(spec, 4096, None)
    with pytest.raises(ValueError, match="model"):
        batch.kaplan_n_params(None)


@pytest.mark.parametrize("seq_len", [-1, 0, 2.5, float("nan"), True, "3"])
def test_comm_volume_refuses_a_bad_sequence_length(seq_len):
    """A sequence of -1 tokens gave -20,480 TP bytes per GPU; NaN gave NaN columns."""
    m = load_model("llama-2-7b")
    plan = parallel.make_plan(m, 64, 64, tp=8, sequence_parallel=False, seq_len=2048)
    with pytest.raises(ValueError, match="^seq_len="):
        comm.comm_volume(m, Cluster(load_accelerator("A100-80GB"), 64), plan, seq_len)


def test_rl_helpers_refuse_what_they_cannot_price():
    with pytest.raises(ValueError, match="^algorithm='no-such' must be one of ppo, grpo, dpo"):
        rl.responses_per_prompt("no-such", 8)
    for g in (-1, float("nan"), 2.5):
        with pytest.raises(ValueError, match="^samples_per_prompt="):
            rl.responses_per_prompt("grpo", g)
    # DPO takes a chosen and a rejected response per prompt (Rafailov et al. 2023 §4)
    assert rl.responses_per_prompt("dpo", 8) == 2 and rl.responses_per_prompt("grpo", 8) == 8
    import pandas as pd
    camp = pd.DataFrame({"gpu_hours": [1.0, 2.0, 3.0]}, index=["generation", "update", "total"])
    for f in (-1, 0, float("nan")):
        with pytest.raises(ValueError, match="^factor="):
            rl.scale_campaign(camp, f)
    with pytest.raises(ValueError, match="^camp must be a campaign table"):
        rl.scale_campaign(None, 2.0)
    assert rl.scale_campaign(camp, 2.0).loc["total", "gpu_hours"] == 6.0


def test_serving_tables_refuse_bad_input_before_reading_it_as_a_model_that_does_not_fit():
    """``serving_cost_by_size`` returned an empty table and both models "left out" for a NaN
    price or an unknown accelerator; ``latency_throughput_curve`` dropped tp=-1 unsaid and
    raised TypeError on a prompt of None."""
    models = ("llama-3.1-8b",)
    for kw, field in ((dict(price_usd_per_gpu_hour=float("nan")), "price_usd_per_gpu_hour"),
                      (dict(prompt_tokens=-1), "prompt_tokens"),
                      (dict(output_tokens="3"), "output_tokens"),
                      (dict(accelerator="no-such-gpu"), "no-such-gpu")):
        args = {**dict(accelerator="H100-SXM", price_usd_per_gpu_hour=2.0, prompt_tokens=1000,
                       output_tokens=250), **kw}
        with pytest.raises(ValueError, match=field):
            scaling.serving_cost_by_size(models, **args)
    table, left = scaling.serving_cost_by_size(("llama-3.1-405b",), "A100-40GB", 2.0, 1000,
                                               250, tp=0, weight_dtypes=("bf16",))
    assert table.empty and left == ["llama-3.1-405b"] and "llama-3.1-405b" in table.attrs["note"]
    kw = dict(prompt_tokens=128, output_tokens=128)
    for tps, match in (([1, -1], "^tps=-1"), ([], r"^tps=\[\] must list"), (4, "^tps=4 must be")):
        with pytest.raises(ValueError, match=match):
            engines.latency_throughput_curve("llama-3.1-8b", "H100-SXM", 2.0, tps=tps, **kw)
    with pytest.raises(ValueError, match="^prompt_tokens=None"):
        engines.latency_throughput_curve("llama-3.1-8b", "H100-SXM", 2.0, prompt_tokens=None,
                                         output_tokens=128)
    curve = engines.latency_throughput_curve("llama-3.1-8b", "H100-SXM", 2.0, tps=[1, 2], **kw)
    assert set(curve["tp"]) == {1, 2}


@pytest.mark.parametrize("bad", [None, 3, "x", {}])
def test_comm_entry_points_name_a_bad_cluster_or_plan(bad):
    """``comm.comm_volume``, ``placement`` and the collective timings raised AttributeError
    from inside on a cluster or plan of the wrong kind."""
    m = load_model("llama-2-7b")
    cl = Cluster(load_accelerator("A100-80GB"), 64)
    plan = parallel.make_plan(m, 64, 64, tp=8, sequence_parallel=False, seq_len=2048)
    with pytest.raises(ValueError, match="^cluster=.* must be a Cluster"):
        comm.comm_volume(m, bad, plan, 2048)
    with pytest.raises(ValueError, match="^cluster=.* must be a Cluster"):
        comm.placement(plan, bad)
    with pytest.raises(ValueError, match="^plan=.* must be a ParallelPlan"):
        comm.placement(bad, cl)
    with pytest.raises(ValueError, match="^efficiency=.* must be an Efficiency"):
        comm.comm_volume(m, cl, plan, 2048, efficiency="fast" if bad is None else bad)
    # the valid call: Megatron-LM's TP volume, 4 ring all-reduces of 2·b·s·h bytes per layer
    # per micro-batch (Shoeybi et al. 2019 §3), as tests/test_comm.py checks it
    assert comm.comm_volume(m, cl, plan, 2048).loc["TP", "per_step"] == \
        4 * m.n_layers * plan.n_microbatches


def test_batch_helpers_refuse_bad_counts():
    """``check_planned_run`` waved NaN, None and "3" through; ``loss_of_planned_run`` raised
    TypeError on 2.5 iterations; ``busy_gpus(n_gpus=-1)`` returned -1; ``lr_scaling_table``
    took β = 1.5 or NaN."""
    for bad in (float("nan"), None, "3", []):
        with pytest.raises(ValueError, match="^train_tokens="):
            batch.check_planned_run(bad, 4e6)
    with pytest.raises(ValueError, match="^iterations=2.5"):
        batch.loss_of_planned_run(1e9, 1e11, 4e6, iterations=2.5)
    for bad in (-1, float("nan"), 2.5):
        with pytest.raises(ValueError, match="^n_gpus="):
            batch.busy_gpus(4e6, bad, 1, 4096)
    # one micro-batch of 4,096 tokens per GPU (tp 1): a 4M-token batch keeps 1,024 GPUs busy
    assert batch.busy_gpus(4194304, 2048, 1, 4096) == 1024
    for name in ("beta1", "beta2"):
        for bad in (1.5, 0, float("nan"), -1):
            with pytest.raises(ValueError, match=f"^{name}="):
                batch.lr_scaling_table(3e-4, 4e6, [8e6], 2e7, **{name: bad})
    with pytest.raises(ValueError, match="^eps="):
        batch.lr_scaling_table(3e-4, 4e6, [8e6], 2e7, eps=None)
    # Goyal et al. 2017's linear rule: twice the batch, twice the learning rate
    assert batch.lr_scaling_table(3e-4, 4e6, [8e6], 2e7)["lr_linear"].iloc[0] == \
        pytest.approx(6e-4)


def test_rl_validation_claims_and_closed_loop_refuse_bad_arguments():
    """``rl.rl_validation("no-such-mode")`` returned 28 rows of NaN predictions with the refusal
    only in each row's ``error``; ``claims.best_reference("no-such-gpu")`` answered "no
    published run"; ``engines.closed_loop_chunk_tokens`` gave -32,256 tokens for an output of
    -1 and ZeroDivisionError for 0."""
    from llmcost.bill import claims as cl
    with pytest.raises(ValueError, match="^mode='no-such-mode' must be one of"):
        rl.rl_validation("no-such-mode")
    with pytest.raises(ValueError, match="^change=3 must be None or a dict"):
        rl.rl_validation("model", change=3)
    with pytest.raises(ValueError, match="no-such-gpu"):
        cl.best_reference("no-such-gpu", 70e9)
    with pytest.raises(ValueError, match="^model_name=None"):
        cl.published_phases(None)
    for bad, field in (((25, 5000, -1), "output_tokens"), ((25, 5000, 0), "output_tokens"),
                       ((0, 5000, 500), "concurrency"), ((25, None, 500), "prompt_tokens")):
        with pytest.raises(ValueError, match=f"^{field}="):
            engines.closed_loop_chunk_tokens(*bad)
    # by hand, the docstring's c = round((C − 1) · P / R): 24 · 5,000 / 500 = 240
    assert engines.closed_loop_chunk_tokens(25, 5000, 500) == 240


def test_rl_iteration_names_a_response_length_too_large_in_its_own_words():
    """``rl_iteration(response_tokens=1e30)`` raised OverflowError, and a 1e30 limit was named
    ``max_tokens``, an internal argument."""
    for kw, field in ((dict(response_tokens=1e30), "response_tokens"),
                      (dict(response_tokens=512, response_tokens_max=1e30),
                       "response_tokens_max")):
        with pytest.raises(ValueError, match=f"^{field}=1e\\+30 must be at most 2\\*\\*53"):
            rl.rl_iteration("llama-3.1-8b", "H100-SXM", **kw)
    with pytest.raises(ValueError, match="^response_tokens_max=100000000.0: a tail of 195312x"):
        rl.rl_iteration("llama-3.1-8b", "H100-SXM", response_tokens=512,
                        response_tokens_max=1e8)


def test_arrays_that_do_not_broadcast_are_named():
    """Two arrays of lengths 2 and 3 gave numpy's "operands could not be broadcast together"
    from inside the formula, naming neither argument (``goodput`` already named them)."""
    import numpy as np
    from llmcost.training import compute, reliability
    two, three = np.array([1.0, 2.0]), np.array([1.0, 2.0, 3.0])
    cases = [
        (lambda: compute.training_flops(np.array([7e9, 13e9]), np.array([1e12, 2e12, 3e12])),
         "model_or_n_params"),
        (lambda: compute.training_flops(load_model("llama-2-7b"), three * 1e12,
                                        seq_len=[2048, 4096], method="detailed"), "seq_len"),
        (lambda: compute.compute_cost_usd(two, three), "gpu_hours_"),
        (lambda: compute.gpu_hours(two * 1e20, "H100-SXM", three / 10), "flops"),
        (lambda: reliability.cluster_mtbf_s(np.array([8, 16]), three), "n_gpus"),
        (lambda: reliability.young_interval(two * 60, three * 3600), "checkpoint_s"),
        (lambda: reliability.daly_interval(two * 60, three * 3600), "checkpoint_s"),
        (lambda: reliability.optimal_interval(two * 60, three * 3600), "checkpoint_s"),
        (lambda: compute.mfu_from_gpu_hours(two * 1e12, three * 1e6, load_model("llama-2-7b"),
                                            "H100-SXM"), "n_tokens"),
    ]
    for call, first in cases:
        with pytest.raises(ValueError, match=f"^{first} \\(shape .*must broadcast together"):
            call()
    # the valid call: Young's √(2δM) for δ = 60 s, M = 3 h is 1,138.4 s (Young 1974)
    assert reliability.young_interval(60, 10_800) == pytest.approx(1138.4, abs=0.05)
