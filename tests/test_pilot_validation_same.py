"""The pilot validation (``pilot_validation.validate``, notebook 04b's pilot table) computed as
before its speed-ups: every leave-one-series-out drift by ``drift_of`` over the concatenated
frames (not ``_loso_drifts``' columns), every published pilot from a fresh indexing of
``load_published_runs`` (not ``calibrate._published_runs``' one). The errors are the same,
value for value and type for type, and so is everything else the validation returns."""

import dataclasses
import pickle

import pandas as pd

from llmcost.core.catalog import load_published_runs
from llmcost.training import calibrate as cal
from llmcost.training import pilot_validation as pv


def _loso_by_concatenation(one: dict) -> dict:
    return {name: pv.drift_of([x for k, x in one.items() if k != name]) for name in one}


def test_validation_equals_its_computation_without_the_speed_ups(monkeypatch):
    table = pv.series_table()
    fast = pv.validate(pv.SETS, table=table, extras=False)
    monkeypatch.setattr(pv, "_loso_drifts", _loso_by_concatenation)
    monkeypatch.setattr(cal, "_published_runs",
                        lambda: load_published_runs().set_index("run_id"))
    slow = pv.validate(pv.SETS, table=table, extras=False)
    pd.testing.assert_frame_equal(fast.errors, slow.errors, check_exact=True)
    assert pickle.dumps(fast.errors) == pickle.dumps(slow.errors)
    for f in dataclasses.fields(fast):
        if f.name != "errors":
            assert getattr(fast, f.name) == getattr(slow, f.name), f.name


def test_loso_drifts_are_drift_of_without_each_series():
    table = pv.series_table()
    one = {}
    for name, g in list(table.items())[:12]:
        try:
            c = cal.calibrate(pv.pilots_of(g, [0]))
        except ValueError:
            continue
        one[name] = pv.predict(c, pv.targets_of(g, [0]))
    fast, slow = pv._loso_drifts(one), _loso_by_concatenation(one)
    assert len(one) >= 5 and fast.keys() == slow.keys()
    for name in one:  # bit for bit, float for float
        assert pickle.dumps(fast[name]) == pickle.dumps(slow[name]), name
