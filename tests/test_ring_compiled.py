"""PyTorch's context-parallel ring traced by ``torch.compile`` (``StepOptions.cp_ring_compiled``,
``step.torch_ring_exposure(..., compiled=True)``, ``step_validation.CP_COMPILED_SETS``).

Sources: PyTorch's ring (pytorch/pytorch@0123248a4
``torch/distributed/tensor/experimental/_attention.py``): the forward all-gathers K and V once
(``_AllGatherRotater``), the backward all-gathers them again and sends its fp32 dK/dV buffer after
each of its ``cp`` steps (``dkv_rotater.exchange_buffers`` in every iteration of the loop);
pytorch/pytorch@fff02e67db38 ``torch/distributed/_functional_collectives.py``: under compilation
"wait_tensor() op is immediately called", in eager mode "at the time of first use"; torchtitan's
2024-12 CP table, "FSDP + CP + torch.compile + Float8" (pytorch/torchtitan@31a17bfd
``benchmarks/llama3_h100_202412_torchtitan.md`` Table 2: 2,540 / 1,071 / 548 TPS/GPU at CP 2 / 4 /
8, 32,768 tokens per GPU).
"""

import numpy as np
import pytest

from llmcost import StepOptions
from llmcost.training import accuracy, step, step_validation


def test_compiled_exposure_by_hand():
    # one layer at CP 4: all-gather 1.0 ms, one dK/dV send 0.5 ms, kernels 8 / 20 ms. Traced,
    # every collective waits where it is issued: forward the all-gather, backward the
    # all-gather and the 4 sends: 1.0 + 4 × 0.5 = 3.0 ms
    e_f, e_b = step.torch_ring_exposure(1.0, 0.5, 8.0, 20.0, 4, compiled=True)
    assert (float(e_f), float(e_b)) == pytest.approx((1.0, 3.0), rel=1e-12)
    # eager, the same exchanges hide behind the steps' kernels: less, never more
    g_f, g_b = step.torch_ring_exposure(1.0, 0.5, 8.0, 20.0, 4)
    assert 0.0 < float(g_f) < 1.0 and 0.5 <= float(g_b) < 3.0
    # one rank: no ring, nothing to exchange
    assert tuple(map(float, step.torch_ring_exposure(1.0, 0.5, 8.0, 20.0, 1, compiled=True))) \
        == (0.0, 0.0)


def test_compiled_never_costs_less_than_eager():
    rng = np.random.default_rng(1)
    ag, dkv, a_f, a_b = (rng.uniform(0, 5, 40) for _ in range(4))
    cp = rng.integers(2, 33, 40).astype(float)
    c_f, c_b = step.torch_ring_exposure(ag, dkv, a_f, 2.5 * a_b, cp, compiled=True)
    e_f, e_b = step.torch_ring_exposure(ag, dkv, a_f, 2.5 * a_b, cp)
    assert np.all(c_f >= e_f - 1e-12) and np.all(c_b >= e_b - 1e-12)
    assert np.allclose(c_b, ag + cp * dkv, rtol=1e-12)


def test_option_resolves_only_on_pytorchs_ring():
    on = StepOptions(stack="pytorch-fsdp2-2024", cp_ring_compiled=True)
    assert on.resolve("H100-SXM").cp_ring_compiled is True
    # Transformer Engine's ring is not PyTorch's: the option does not reach it
    te = StepOptions(stack="megatron-core-2024", cp_ring_compiled=True)
    assert te.resolve("H100-SXM").cp_ring_compiled is False
    # off by default (torchtitan compiles only when asked)
    assert StepOptions().cp_ring_compiled is False
    assert StepOptions(stack="pytorch-fsdp2-2024").resolve("H100-SXM").cp_ring_compiled is False


def test_bad_option_names_the_field():
    with pytest.raises(ValueError, match="cp_ring_compiled='yes'"):
        StepOptions(cp_ring_compiled="yes")
    with pytest.raises(ValueError, match="cp_ring_compiled='no'"):
        accuracy.validation_table(cp_ring_compiled="no")
    with pytest.raises(ValueError, match="split='test'"):
        accuracy.ring_compiled_comparison("test")


def test_compiled_rows_are_torchtitans():
    # torchtitan's table names torch.compile; NeMo AutoModel's CP row runs eager
    cfg = step_validation.validation_configs().set_index("run_id", drop=False)
    for cp, fsdp in ((2, 4), (4, 2), (8, 1)):
        c = cfg.loc[f"torchtitan-h100-8b-8gpu-2-fsdp{fsdp}-cp{cp}"]
        assert step_validation.row_options(c).cp_ring_compiled is True
    assert step_validation.row_options(
        cfg.loc["nemo-automodel-llama3-70b-h100"]).cp_ring_compiled is False


@pytest.fixture(scope="module")
def tables():
    off = accuracy.validation_table(cp_ring_compiled=False).set_index("run_id")
    on = accuracy.validation_table().set_index("run_id")
    return off, on


def test_only_the_compiled_cp_rows_move(tables):
    # (MoE rows aside, whose host cost is re-fitted under each setting to within its
    # optimiser's tolerance)
    off, on = tables
    moved = on.index[((on["error"] - off["error"]).abs() > 1e-9) & ~on["is_moe"]]
    assert sorted(moved) == [f"torchtitan-h100-8b-8gpu-2-fsdp{f}-cp{c}"
                             for f, c in ((1, 8), (2, 4), (4, 2))]
    # the exposure only adds time: each row's step grows, by its CP exchange alone
    for rid in moved:
        grow = on.loc[rid, "step_time_s"] - off.loc[rid, "step_time_s"]
        assert grow == pytest.approx(on.loc[rid, "cp_comm_s"] - off.loc[rid, "cp_comm_s"],
                                     rel=1e-9)
        assert grow > 0


def test_cp_4_and_8_move_toward_published(tables):
    # the published steps (Table 2): 32,768 / 1,071 s at CP 4, 32,768 / 548 s at CP 8; the
    # engine was optimistic on both (error = predicted / published MFU − 1 > 0) and stays so
    off, on = tables
    for rid in ("torchtitan-h100-8b-8gpu-2-fsdp2-cp4", "torchtitan-h100-8b-8gpu-2-fsdp1-cp8"):
        assert 0 < on.loc[rid, "error"] < off.loc[rid, "error"], rid
        published = 32768 / (1071 if "cp4" in rid else 548)
        assert on.loc[rid, "step_time_s"] * (1 + on.loc[rid, "error"]) == pytest.approx(
            published, rel=2e-3)


@pytest.mark.parametrize("split", ["held-out", "calibration"])
def test_passes_the_rule(split):
    # on for the compiled rows because it passes mechanism_comparison's rule on both splits
    per, verdict = accuracy.ring_compiled_comparison(split)
    assert verdict["passes"], verdict
    assert verdict["all_mean"][1] < verdict["all_mean"][0]
