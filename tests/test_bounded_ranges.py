"""A lognormal range is unbounded above: refused on every key whose scenario rule has an upper
bound (``ranges.BOUNDED_KEYS``). A new-user trial priced ``ledger_exploratory_fraction:
{dist: lognormal, p10: 2, p90: 9}`` and ``ledger_pue: {dist: lognormal, p10: 2.0, p90: 2.9}``
silently, though some draws broke the keys' own bounds (10 and 3), while the same keys refused
a point of 12 and a range [5, 12]."""
import math
from statistics import NormalDist

import pytest

from llmcost.bill import scenario as sc
from llmcost.bill.ranges import BOUNDED_KEYS, NOT_YET_RANGEABLE_KEYS, RANGEABLE_KEYS, Range

#: Far above any bound a continuous key's rule could mean, and finite (so a rule that refuses
#: non-finite numbers is not mistaken for a bound).
_FAR = 1e300


def _bounded_by_its_rule(key: str) -> bool:
    """Whether ``key``'s own check in ``scenario.PARAMETERS`` (where every key's rule is
    declared) refuses a number far above: an upper bound."""
    check = sc.PARAMETERS[key].check
    if check is None:
        return False
    try:
        check(key, _FAR)
    except sc.ScenarioError:
        return True
    return False


def test_bounded_keys_are_every_key_whose_rule_has_an_upper_bound():
    """Found from the rules themselves, so a bound added to a key's check without a line in
    BOUNDED_KEYS fails here; the seven today: mfu, ledger_rerun_probability,
    ledger_reserve_fraction, ledger_exploratory_fraction (10), ledger_pue (3), rl_train_mfu,
    serve_occupancy."""
    continuous = RANGEABLE_KEYS + NOT_YET_RANGEABLE_KEYS
    found = {k for k in continuous if _bounded_by_its_rule(k)}
    assert found == set(BOUNDED_KEYS)
    assert {"ledger_exploratory_fraction", "ledger_pue"} <= found
    assert not _bounded_by_its_rule("price_usd_per_gpu_hour")  # the probe can say no


def _two_values_in_bounds(key):
    """Two values ``key``'s rule takes (a P10 and a P90 that are each legal on their own)."""
    ok = []
    for v in (0.3, 0.5, 1.1, 1.5, 2.0, 2.5):
        try:
            sc.validate_parameter(key, v)
        except sc.ScenarioError:
            continue
        ok.append(v)
    return ok[0], ok[1]


@pytest.mark.parametrize("key", [k for k in BOUNDED_KEYS if k in RANGEABLE_KEYS])
def test_every_bounded_key_refuses_a_lognormal_and_takes_a_bounded_range(key):
    lo, hi = _two_values_in_bounds(key)
    with pytest.raises(sc.ScenarioError, match=f"^{key}=.*a lognormal range is unbounded above, "
                       f"and {key} is bounded"):
        sc.validate_ranged_parameters(**{key: {"dist": "lognormal", "p10": lo, "p90": hi}})
    r = sc.validate_ranged_parameters(**{key: [lo, hi]})[key]
    assert (r.kind, r.low, r.high) == ("uniform", lo, hi)


@pytest.mark.parametrize("key", [k for k in BOUNDED_KEYS if k in NOT_YET_RANGEABLE_KEYS])
def test_bounded_keys_not_rangeable_yet_refuse_a_lognormal_too(key):
    with pytest.raises(sc.ScenarioError, match=f"{key} cannot take a range yet"):
        sc.validate_ranged_parameters(**{key: {"dist": "lognormal", "p10": 0.3, "p90": 0.5}})


@pytest.mark.parametrize("key, p10, p90, bound, share", [
    # hand derivation: ln X ~ Normal(mu, sigma), mu = ln sqrt(p10 p90), sigma = ln(p90 / p10) /
    # (2 x 1.28155); exploratory: mu = 1.44519, sigma = 0.58682, P(X > 10) = 1 - Phi(1.46110)
    # = 0.0720; PUE: mu = 0.87895, sigma = 0.14497, P(X > 3) = 1 - Phi(1.51526) = 0.0649
    ("ledger_exploratory_fraction", 2.0, 9.0, 10.0, 0.0720),
    ("ledger_pue", 2.0, 2.9, 3.0, 0.0649),
])
def test_the_trials_lognormals_are_refused(tmp_path, key, p10, p90, bound, share):
    """The trial's two scenarios: the share of draws above the key's bound, by hand (above)
    and in 200,000 of the bill's own draws (±0.002, two-sided), and the scenario refused."""
    mu, sigma = math.log(math.sqrt(p10 * p90)), math.log(p90 / p10) / (2 * 1.2815515655446004)
    assert 1 - NormalDist(mu, sigma).cdf(math.log(bound)) == pytest.approx(share, abs=1e-4)
    draws = Range("lognormal", p10=p10, p90=p90).draws(200_000, seed=0, key=key)
    assert (draws > bound).mean() == pytest.approx(share, abs=2e-3)
    path = tmp_path / "s.yaml"
    path.write_text("model: llama-3.1-8b\naccelerator: H100-SXM\nn_gpus: 64\n"
                    "train_tokens: 1.0e12\nseq_len: 4096\nmfu: 0.4\ndtype: bf16\n"
                    "pricing: on_demand\nglobal_batch_tokens: 4194304\n"
                    f"{key}: {{dist: lognormal, p10: {p10}, p90: {p90}}}\n")
    with pytest.raises(sc.ScenarioError, match=f"{key}=.*a lognormal range is unbounded above"):
        sc.load_scenario(path)
