"""An MoE layer's memory-bound work and router backward against hand derivations.

* The busiest EP rank's routed tokens (``step._moe_compute``): its expert GEMMs run
  ``tok_exp = max(x·k·ep/E, 1) × moe_factor`` tokens per local expert on ``E/ep`` experts, i.e.
  ``x·k·moe_factor`` routed tokens; its experts' activations (6 B forward / 10 B backward per
  gated fc1-output element of width ``d_ff_expert``) and the token permutation (permute +
  unpermute, read + write, 2 B: 8 B per routed token and channel) run over the same tokens.
  Qwen3-30B-A3B (E 128, top-8, expert width 768, h 2,048, no shared expert) at 4,096 tokens on
  one rank, EP 8: 32,768 routed tokens, × 1.25 under a 1.25 capacity factor.
* The router's backward on Hopper FP8 without ``fp8_as_run`` (every GEMM in FP8, the router
  too): the backward FP8 GEMMs' split accumulator (``gemm.FP8_SLOW_ACCUMULATION`` = f) applies
  to it as to the LM head (``step._edge_terms``), so the step's GEMM time is ``(1 + 2f)/3`` of
  itself without the split accumulator, exactly; under ``fp8_as_run`` the BF16 router and LM
  head keep 2 ×, so it grows by less.
"""

import pytest

from llmcost import Cluster, load_accelerator, load_efficiency, load_model
from llmcost.core.shapes import model_shapes
from llmcost.training import gemm, step
from llmcost.training.parallel import make_plan
from llmcost.training.step import KernelRates, LayerGeometry, layer_compute

H100 = load_accelerator("H100-SXM")
BF16, FP8 = H100.peak_flops_per_s("bf16"), H100.peak_flops_per_s("fp8")
MODEL = load_model("qwen3-30b-a3b")


def _layer(moe_factor, rates=None):
    c = model_shapes(MODEL)
    g = LayerGeometry(s=4096.0, x=4096.0, xs=4096.0, tp=1.0, ep=8.0, cp=1.0, mbs=1, kvf=1.0)
    rates = rates or KernelRates(BF16, BF16, H100.hbm_bytes_per_s, load_efficiency("H100-SXM"))
    return c, layer_compute(MODEL, c, g, rates, flash_attention=True, dropout=False,
                            moe_factor=moe_factor)


def test_the_model_is_the_one_derived_by_hand():
    c = model_shapes(MODEL)
    assert (c.E, c.k, c.fe, c.h, c.ns, c.gated) == (128, 8, 768, 2048, 0, True)


def test_activations_and_permutation_run_over_the_busiest_ranks_routed_tokens():
    c, one = _layer(1.0)
    _, cap = _layer(1.25)
    bw = H100.hbm_bytes_per_s * load_efficiency("H100-SXM").hbm_fraction
    extra = 4096 * 8 * 0.25                  # routed tokens added by the 1.25 capacity factor
    # forward: 6 B per gated activation element (768 wide) + 8 B per permuted element (2,048)
    assert float(cap["ew_f_moe"] - one["ew_f_moe"]) == pytest.approx(
        extra * (6 * 768 + 8 * 2048) / bw, rel=1e-9)
    # backward: 10 B per activation element + the same 8 B of permutation
    assert float(cap["ew_b_moe"] - one["ew_b_moe"]) == pytest.approx(
        extra * (10 * 768 + 8 * 2048) / bw, rel=1e-9)
    # the expert GEMMs grow with the same tokens (a 1.25 x longer M in every local expert)
    assert float(cap["gemm_f_moe"]) > float(one["gemm_f_moe"])


def test_the_balanced_rank_is_priced_as_before():
    # moe_factor 1 (the default): routed tokens = x·k = 32,768, the bytes the layer paid before
    # the busiest rank's count was used (6 B·x·k·768 + 8 B·x·k·2,048 forward over the dense
    # layer's element-wise bytes, which an MoE layer without a dense FFN keeps whole)
    c, one = _layer(1.0)
    bw = H100.hbm_bytes_per_s * load_efficiency("H100-SXM").hbm_fraction
    routed = 4096 * 8
    assert float(one["ew_f_moe"] - one["ew_f_t"]) == pytest.approx(
        routed * (6 * 768 + 8 * 2048) / bw, rel=1e-9)
    assert float(one["ew_b_moe"] - one["ew_b_t"]) == pytest.approx(
        routed * (10 * 768 + 8 * 2048) / bw, rel=1e-9)


def test_an_fp8_router_pays_the_split_accumulator_in_the_layer():
    f = gemm.FP8_SLOW_ACCUMULATION
    eff = load_efficiency("H100-SXM")
    # every GEMM FP8, the router too: the backward is 2f × the whole forward
    _, fp8 = _layer(1.0, KernelRates(FP8, BF16, H100.hbm_bytes_per_s, eff, edge_peak=FP8,
                                     fp8_backward_gemm=f, edge_backward_gemm=f))
    assert float(fp8["gemm_b_moe"]) == pytest.approx(2 * f * float(fp8["gemm_f_moe"]),
                                                     rel=1e-12)
    # a BF16 router (fp8_as_run) keeps 2 ×: the backward is below 2f × the forward
    _, as_run = _layer(1.0, KernelRates(FP8, BF16, H100.hbm_bytes_per_s, eff, edge_peak=BF16,
                                        fp8_backward_gemm=f, edge_backward_gemm=1.0))
    assert float(as_run["gemm_b_moe"]) < 2 * f * float(as_run["gemm_f_moe"])
    # ... and an unset edge_backward_gemm reads edge_peak as a BF16 router (the old meaning)
    _, unset = _layer(1.0, KernelRates(FP8, BF16, H100.hbm_bytes_per_s, eff, edge_peak=BF16,
                                       fp8_backward_gemm=f))
    assert float(unset["gemm_b_moe"]) == float(as_run["gemm_b_moe"])


@pytest.mark.parametrize("as_run", [False, True])
def test_the_step_pays_it_where_the_router_runs_in_fp8(as_run):
    f = gemm.FP8_SLOW_ACCUMULATION
    plan = make_plan(MODEL, 8, 64, tp=1, pp=1, ep=8, micro_batch_size=1, zero_stage=1,
                     seq_len=4096)
    cl = Cluster(H100, 8)
    kw = {"dtype": "fp8", "fp8_as_run": as_run}
    on = step.step_time(MODEL, cl, plan, 4096, fp8_split_accumulator=True, **kw)
    off = step.step_time(MODEL, cl, plan, 4096, fp8_split_accumulator=False, **kw)
    if not as_run:
        # forward G, backward 2f·G, against 2·G: (1 + 2f) / 3, router and LM head included
        assert on.matmul_s / off.matmul_s == pytest.approx((1 + 2 * f) / 3, rel=1e-9)
    else:
        # the BF16 router and LM head keep 2 ×: the step grows by less, but by more than 1
        assert 1.0 < on.matmul_s / off.matmul_s < (1 + 2 * f) / 3 - 1e-3
