"""The rollouts, trainer steps and longest micro-batches' memory kept per process while the RL
validation tables are computed (``rl._priced_once``): a variant that leaves a row's generation
(the trainer's MFU, the refit, the optimizer's place) or its update (the rollout engine, the
refit) as it was reuses them. Checked against
the full computation: notebook 05's tables (both validation modes, the optimizer-offload
what-if, the generation bound and the nine variants of the model) are the same, value for
value and type for type, with every rollout priced afresh."""

import contextlib
import pickle

import pandas as pd
import pytest

from llmcost.serving import rl

#: notebook 05's variants of the model
VARIANTS = rl.NOTEBOOK_VARIANTS


def _tables() -> list:
    return [rl.rl_validation.uncached("before"), rl.rl_validation.uncached("model"),
            rl.validation_generation_bound.uncached(), rl.validation_variants.uncached(VARIANTS),
            rl.rl_validation.uncached("model", change={"optimizer_offload": False})]


STORES = ("_KEPT_ROLLOUTS", "_KEPT_STEPS", "_KEPT_MEMORY")


def test_notebook_05_tables_equal_their_full_computation(monkeypatch):
    for store in STORES:
        monkeypatch.setattr(rl, store, {})
    kept = _tables()
    assert all(len(getattr(rl, store)) > 0 for store in STORES)
    monkeypatch.setattr(rl, "_priced_once", contextlib.nullcontext)  # every one afresh
    for store in STORES:
        monkeypatch.setattr(rl, store, {})
    full = _tables()
    assert not any(getattr(rl, store) for store in STORES)
    for a, b in zip(kept, full):
        pd.testing.assert_frame_equal(a, b, check_exact=True)
        assert pickle.dumps(a) == pickle.dumps(b)


def test_rollouts_are_kept_only_within_the_validation_tables(monkeypatch):
    for store in STORES:
        monkeypatch.setattr(rl, store, {})
    row = rl.load_rl_validation().query("split == 'heldout'").iloc[0]
    rl.validation_iteration(row)  # a caller's own what-if: nothing kept
    assert not any(getattr(rl, store) for store in STORES)
    with rl._priced_once():
        a = rl.validation_iteration(row)
    n = len(rl._KEPT_ROLLOUTS)
    assert n > 0
    with rl._priced_once():  # the same row again: every rollout read, none priced
        b = rl.validation_iteration(row)
    assert len(rl._KEPT_ROLLOUTS) == n
    assert a == b and a.notes == b.notes
