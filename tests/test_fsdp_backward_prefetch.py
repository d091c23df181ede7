"""When PyTorch FSDP issues the next unit's backward all-gather (comm.fsdp_exposure
``backward_prefetch``, stacks.Stack.fsdp_backward_prefetch, StepOptions.fsdp_backward_prefetch).

Sources, read at the commits named:

* pytorch/pytorch@0aafd810d15f ``torch/distributed/fsdp/api.py`` ``BackwardPrefetch``:
  ``BACKWARD_PRE`` "prefetches the next set of parameters *before* the current set of
  parameters' gradient computation. This overlaps the *next all-gather* and the *current
  gradient computation*"; ``BACKWARD_POST`` "prefetches the next set of parameters *after* the
  current set of parameters' gradient computation. This overlaps the *current reduce-scatter*
  and the *next gradient computation*".
* pytorch/pytorch@3ade90a6aaa9 ``torch/distributed/fsdp/_runtime_utils.py``
  ``_post_backward_hook``: ``_post_backward_reshard`` (which calls ``_prefetch_handle(state,
  handle, _PrefetchMode.BACKWARD)``) runs before ``_reduce_grad``.
* Composer's FSDP default ``backward_prefetch: BACKWARD_POST`` (mosaicml/composer@12d31ceb9
  ``composer/trainer/dist_strategy.py``), which llm-foundry's 2023-10 ``sweep.sh`` does not
  override; the 2024-01 large-scale sweep (mosaicml/llm-foundry
  ``scripts/train/benchmarking/sweep.py``, read at 4a6d4e6b4033) passes
  ``--fsdp_config_backward_prefetch BACKWARD_PRE`` and ``--fsdp_config_forward_prefetch true``
  with ``--gpu_nums`` 128 / 256 / 512.
* FSDP2 prefetches the next unit's all-gather implicitly (PyTorch docs,
  ``torch.distributed.fsdp.fully_shard``).
"""

import pytest

from llmcost import Cluster, load_accelerator, load_model
from llmcost.bill.scenario import ScenarioError, validate_parameters
from llmcost.core import stacks
from llmcost.core.stacks import load_stack
from llmcost.training import comm, step, step_validation
from llmcost.training.options import StepOptions
from llmcost.training.parallel import make_plan


def test_exposed_backward_gathers_hand_derivation():
    # L = 4 layers, per layer G = 10 ms gather, R = 8 ms reduce-scatter, B = 12 ms backward,
    # g = 1 re-gather, sigma = 0.189 (comm.OVERLAP_SLOWDOWN, the measured contention).
    # o(c, w) = max(c - w, 0) + sigma * min(c, w).
    # post: every layer's gather waits: 4 * 10 + 8 + 3 * o(8, 12) = 48 + 3 * 0.189 * 8
    #       = 48 + 4.536 = 52.536 ms
    # pre:  (10 + 8) + 3 * o(18, 12) = 18 + 3 * (6 + 0.189 * 12) = 18 + 24.804 = 42.804 ms
    # forward (both): 10 + 3 * o(10, 20) = 10 + 3 * 1.89 = 15.67 ms (F = 20 ms)
    assert comm.OVERLAP_SLOWDOWN == pytest.approx(0.189, abs=1e-12)
    f_post, b_post = comm.fsdp_exposure(0.010, 0.008, 0.020, 0.012, 4,
                                        backward_prefetch="post")
    f_pre, b_pre = comm.fsdp_exposure(0.010, 0.008, 0.020, 0.012, 4)
    assert b_post == pytest.approx(0.052536, rel=1e-9)
    assert b_pre == pytest.approx(0.042804, rel=1e-9)
    assert f_post == f_pre == pytest.approx(0.01567, rel=1e-9)


def test_post_equals_pre_with_nothing_to_gather_and_without_prefetch():
    # g = 0 (SHARD_GRAD_OP / reshard_after_forward False: no backward gather): the orders differ
    # only in where the gather goes, so they agree: R + (L - 1) * o(R, B) = 8 + 3 * 0.189 * 8
    for order in ("pre", "post"):
        assert comm.fsdp_exposure(0.010, 0.008, 0.020, 0.012, 4, backward_gathers=0,
                                  backward_prefetch=order)[1] == pytest.approx(0.012536,
                                                                               rel=1e-9)
        # no prefetch at all (d = 0): L * (g*G + R) = 4 * 18 ms exposed, whichever order
        assert comm.fsdp_exposure(0.010, 0.008, 0.020, 0.012, 4, prefetch_layers=0,
                                  backward_prefetch=order)[1] == pytest.approx(0.072, rel=1e-9)


def test_engine_prices_the_exposed_gathers():
    # A ZeRO-3 run whose per-layer gather and reduce-scatter fit behind the layer's backward
    # (G_l + R_l < B_l): pre exposes (G_l + R_l) + (L - 1) * sigma * (G_l + R_l) per
    # micro-batch, post L * G_l + R_l + (L - 1) * sigma * R_l; post - pre = (L - 1) * (1 - sigma)
    # * G_l per micro-batch. G (all layers, per micro-batch) read off the engine without overlap:
    # reshard after forward (2G + RS) minus keep (G + RS).
    model, cl = load_model("llama-3.1-8b"), Cluster(load_accelerator("H100-SXM"), 8)
    plan = make_plan(model, 8, 32, tp=1, micro_batch_size=1, zero_stage=3, seq_len=8192,
                     recompute="full")
    n_mb = 32 // 8
    kw = dict(stack="llm-foundry-2023")
    two = step.step_time(model, cl, plan, 8192, dp_overlap=False, **kw)
    one = step.step_time(model, cl, plan, 8192, dp_overlap=False,
                         fsdp_reshard_after_forward=False, **kw)
    g_layer = (two.dp_comm_s - one.dp_comm_s) / n_mb / model.n_layers
    assert g_layer > 0
    post = step.step_time(model, cl, plan, 8192, **kw)             # the stack's: post
    pre = step.step_time(model, cl, plan, 8192, fsdp_backward_prefetch="pre", **kw)
    expect = n_mb * (model.n_layers - 1) * (1 - comm.OVERLAP_SLOWDOWN) * g_layer
    assert post.dp_comm_s - pre.dp_comm_s == pytest.approx(expect, rel=1e-6)
    assert post.step_time_s - pre.step_time_s == pytest.approx(expect, rel=1e-6)
    # kept weights (no backward gather): the order changes nothing
    keep = dict(fsdp_reshard_after_forward=False, **kw)
    assert step.step_time(model, cl, plan, 8192, **keep).step_time_s == pytest.approx(
        step.step_time(model, cl, plan, 8192, fsdp_backward_prefetch="pre", **keep)
        .step_time_s, rel=1e-12)


def test_stack_defaults_follow_their_sources():
    foundry = load_stack("llm-foundry-2023")
    assert foundry.fsdp_backward_prefetch == "post"          # Composer's BACKWARD_POST
    assert "BACKWARD_POST" in foundry.notes and "dist_strategy.py" in foundry.notes
    for name in ("pytorch-fsdp2-2024", "nemo-automodel-2025"):   # FSDP2's implicit prefetch
        assert load_stack(name).fsdp_backward_prefetch == "pre", name
        assert "BACKWARD_PRE" in load_stack(name).notes, name
    for name in ("megatron-lm-2021", "megatron-lm-2022", "megatron-core-2024",
                 "megatron-core-2025", "megatron-core-2026", "deepspeed-zero3-2021",
                 "deepseek-hai-llm-2024"):                    # not PyTorch FSDP
        assert load_stack(name).fsdp_backward_prefetch is None, name
        assert StepOptions(stack=name).resolve("H100-SXM").fsdp_backward_prefetch == "pre"


def test_validation_rows_carry_their_sweeps_setting():
    cfg = step_validation.validation_configs()
    foundry = cfg[cfg["set"] == "llm-foundry-mpt"]
    large = foundry["run_id"].str.contains(r"-(?:128|256|512)gpu-")
    assert large.sum() == 18   # 12 FULL_SHARD rows + 6 SHARD_GRAD_OP (MPT 1B and 3B)
    assert (foundry.loc[large, "fsdp_backward_prefetch"] == "pre").all()
    assert foundry.loc[large, "notes"].str.contains("BACKWARD_PRE").all()
    # the 2023-10 sweep.sh rows (<= 64 GPUs) run the stack's: Composer's BACKWARD_POST
    assert foundry.loc[~large, "fsdp_backward_prefetch"].isna().all()
    assert (foundry.loc[~large, "stack"] == "llm-foundry-2023").all()
    opts = {r["run_id"]: step_validation.row_options(r) for _, r in foundry.iterrows()}
    assert opts["foundry-h100-mpt-13b-s2048-512gpu-bf16"].resolve(
        "H100-SXM").fsdp_backward_prefetch == "pre"
    assert opts["foundry-h100-mpt-13b-s2048-64gpu-bf16"].resolve(
        "H100-SXM").fsdp_backward_prefetch == "post"
    assert (cfg.loc[cfg["set"] != "llm-foundry-mpt", "fsdp_backward_prefetch"].isna()).all()


def test_bad_input_names_field_value_and_rule():
    with pytest.raises(ValueError, match=r"fsdp_backward_prefetch='sideways' must be one of"):
        StepOptions(fsdp_backward_prefetch="sideways")
    with pytest.raises(ValueError, match=r"fsdp_backward_prefetch='post' does not apply to "
                                         r"stack 'megatron-core-2024'"):
        StepOptions(stack="megatron-core-2024", fsdp_backward_prefetch="post").resolve(
            "H100-SXM")
    with pytest.raises(ValueError, match=r"fsdp_backward_prefetch=None must be one of"):
        stacks.stack_backward_prefetch(load_stack("llm-foundry-2023"), None)
    with pytest.raises(ValueError, match=r"backward_prefetch='early' must be one of"):
        comm.fsdp_exposure(0.01, 0.01, 0.02, 0.04, 4, backward_prefetch="early")
    with pytest.raises(ScenarioError, match=r"fsdp_backward_prefetch='sideways' must be one of"):
        validate_parameters(fsdp_backward_prefetch="sideways")
    with pytest.raises(ScenarioError, match=r"fsdp_backward_prefetch='post' does not apply to "
                                            r"stack 'deepspeed-zero3-2021'"):
        validate_parameters(stack="deepspeed-zero3-2021", fsdp_backward_prefetch="post")
    # accepted: post on an FSDP stack, pre anywhere (the engine's prefetched pricing)
    assert validate_parameters(stack="llm-foundry-2023", fsdp_backward_prefetch="post")[
        "fsdp_backward_prefetch"] == "post"
    assert validate_parameters(stack="megatron-core-2024", fsdp_backward_prefetch="pre")[
        "fsdp_backward_prefetch"] == "pre"
    # "auto" on an FSDP2 stack is its "pre"
    model, cl = load_model("llama-3.1-8b"), Cluster(load_accelerator("H100-SXM"), 8)
    plan = make_plan(model, 8, 8, tp=1, micro_batch_size=1, zero_stage=3, seq_len=4096)
    auto, pre = (step.step_time(model, cl, plan, 4096, stack="pytorch-fsdp2-2024",
                                fsdp_backward_prefetch=v).step_time_s for v in ("auto", "pre"))
    assert auto == pre


def test_the_scenario_key_reaches_the_bill_and_every_plan_page(tmp_path):
    # A trial: the key the README documents was refused on every stack ("key
    # 'fsdp_backward_prefetch' is not a parameter of any notebook"). By the sources above,
    # BACKWARD_POST issues the next unit's all-gather after the current gradients, so a ZeRO-3
    # step with it exposes gathers that BACKWARD_PRE hides: the MFU `mfu: predict` bills is
    # lower with post than with pre, on the same plan.
    from llmcost.present.report import declared_parameters, estimate_ledger, list_notebooks
    base = ("model: llama-3.1-8b\naccelerator: H100-SXM\nn_gpus: 64\ntrain_tokens: 1e11\n"
            "seq_len: 4096\nglobal_batch_tokens: 1048576\nmfu: predict\n"
            "stack: pytorch-fsdp2-2024\nzero_stage: 3\ntp: 1\npp: 1\ncp: 1\n")
    got = {}
    for mode in ("pre", "post"):
        path = tmp_path / f"{mode}.yaml"
        path.write_text(base + f"fsdp_backward_prefetch: {mode}\n")
        bill = estimate_ledger(path)
        got[mode] = (float(bill.figures["mfu"]), bill.scenario["_mfu_prediction"]["plan"])
    assert got["post"][1] == got["pre"][1] and got["post"][0] < got["pre"][0]
    # every page that prices the scenario's plan or step reads it (as comm_dp_overlap)
    for nb in list_notebooks():
        names = declared_parameters(nb)
        assert ("fsdp_backward_prefetch" in names) == ("comm_dp_overlap" in names), nb.stem


def test_shard_grad_op_rows_keep_their_gathered_weights_through_the_backward():
    # llm-foundry's 2024-01 large-scale H100 table: MPT 1B and 3B ran SHARD_GRAD_OP (the README's
    # Sharding Strategy column; torch.distributed.fsdp.ShardingStrategy.SHARD_GRAD_OP:
    # "Parameters are unsharded during forward and backward"), read as reshard_after_forward
    # false by row_options; every other row keeps its stack's policy ("auto")
    cfg = step_validation.validation_configs()
    sgo = cfg["fsdp_reshard_after_forward"].astype(str).str.lower() == "false"
    assert sorted(cfg.loc[sgo, "run_id"]) == sorted(
        f"foundry-h100-mpt-{m}-s2048-{n}gpu-bf16" for m in ("1b", "3b") for n in (128, 256, 512))
    for i, c in cfg.iterrows():
        want = "false" if sgo[i] else "auto"
        assert step_validation.row_options(c).fsdp_reshard_after_forward == want, c["run_id"]
