"""Which kernel mechanisms are on by default (training/accuracy.mechanism_comparison).

The rule: a mechanism of the step-time model (GEMMs by shape, FP8 as run, the attention
kernel's curve) is on by default only if, priced on every published run of
``data/validation_mfu.csv`` with the MoE host cost re-fitted on the calibration rows under it,
no regime's held-out mean |error| rises (``accuracy.REGIME_CHANGE_TOLERANCE``), and the held-out
A100 Megatron rows (Narayanan et al. 2021 Tables 1-2, Korthikanti et al. 2022 Table 5) stay at
mean <= 3 %, max <= 10 %.
"""

import pytest

from llmcost.training import accuracy
from llmcost.training.options import StepOptions


@pytest.fixture(scope="module")
def comparison():
    return accuracy.mechanism_comparison()


def test_a_mechanism_on_by_default_passes_the_rule(comparison):
    _, verdict = comparison
    for name, r in verdict.iterrows():
        if r["default_on"]:
            assert r["passes"], (name, r["worse_regimes"])


def test_the_defaults_are_the_verdict(comparison):
    # each mechanism alone: on by default exactly when it passes
    _, verdict = comparison
    shipped = StepOptions()
    for name in ("gemm_shape", "fp8_as_run", "attention_curve"):
        assert bool(getattr(shipped, name)) == bool(verdict.loc[name, "passes"]), name


def test_a100_megatron_rows_are_untouched(comparison):
    # no kernel table for A100: every setting leaves the A100 Megatron rows at the goal
    _, verdict = comparison
    assert (verdict["a100_megatron_mean"] <= 0.03).all()
    assert (verdict["a100_megatron_max"] <= 0.10 + 1e-9).all()
    assert verdict["a100_megatron_mean"].nunique() == 1


def test_every_regime_is_compared(comparison):
    per_regime, verdict = comparison
    assert list(per_regime.columns) == ["n", "off", *accuracy.MECHANISMS]
    assert per_regime["n"].sum() == len(accuracy.validation_table().query(
        "split == 'held-out'"))
    assert set(verdict.index) == {"off", *accuracy.MECHANISMS}
    assert verdict.loc["off", "worse"] == verdict.loc["off", "better"] == 0
