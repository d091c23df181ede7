"""One odd-input test over the whole public API (``llmcost.__all__``).

Each public entry point, fed NaN, inf, a negative, zero, a string, a wrong type or an array with
one bad element in any argument declared in tests/api_specs.py, must raise a ``ValueError`` whose
message names that argument: never a TypeError or AttributeError from deep inside, a silent NaN
or a clamped value. A name in ``__all__`` without a spec fails ``test_every_public_name_has_a_spec``
(see the docstring of tests/api_specs.py for how to add one).
"""

import inspect
import math
import warnings

import numpy as np
import pandas as pd
import pytest

import llmcost
from api_specs import (
    EXCEPTION,
    INTERNAL,
    NOT_CALLABLE,
    ODD_VALUES,
    RESULT,
    STEP_OPTION_ARGS,
    Spec,
    module_specs,
    specs,
)

SPECS = specs()


def test_every_public_name_has_a_spec():
    missing = [n for n in llmcost.__all__ if n not in SPECS]
    assert not missing, f"add these names to tests/api_specs.py SPECS: {missing}"
    stale = [n for n in SPECS if n not in llmcost.__all__]
    assert not stale, f"tests/api_specs.py has specs for names not in __all__: {stale}"
    for name, spec in SPECS.items():
        obj = getattr(llmcost, name)
        if spec == NOT_CALLABLE:
            assert inspect.ismodule(obj) or not callable(obj), name
        elif spec == EXCEPTION:
            assert issubclass(obj, ValueError), name
        elif spec != RESULT:
            params = inspect.signature(obj).parameters
            has_kwargs = any(p.kind is p.VAR_KEYWORD for p in params.values())
            for arg in list(spec.args) + list(spec.valid):
                assert arg in params or has_kwargs, f"{name}: no argument {arg!r}"


def _odd_cases(spec):
    """``(argument, odd value, case id)`` for every odd value of every argument ``spec``
    attacks (``ODD_VALUES``; ``None`` left out where it is a valid value, ``|none``)."""
    for arg, kind in spec.args.items():
        base, _, opt = kind.partition("|")
        for i, odd in enumerate(ODD_VALUES[base]):
            if odd is None and opt == "none":
                continue
            yield arg, odd, f"{arg}-{base}{i}"


def _odd_input_failures(label: str, fn, spec) -> list:
    """Every odd case of ``spec`` (``_odd_cases``) that ``fn`` does not refuse with a
    ``ValueError`` naming the argument (or the name ``spec.shown`` gives it), one line each,
    naming the case. Each case is a call of its own, from the valid arguments with one of them
    replaced, under warnings ignored."""
    failures = []
    for arg, odd, case in _odd_cases(spec):
        kwargs = dict(spec.valid)
        kwargs[arg] = odd
        shown = spec.shown.get(arg, arg)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fn(**kwargs)
        except ValueError as e:
            if shown not in str(e):
                failures.append(f"[{case}] {label}({arg}={odd!r}): the ValueError does not "
                                f"name {shown!r}: {e}")
        except Exception as e:  # noqa: BLE001 (any other exception is a failure, named)
            failures.append(f"[{case}] {label}({arg}={odd!r}): {type(e).__name__} instead of "
                            f"a ValueError: {e}")
        else:
            failures.append(f"[{case}] {label}({arg}={odd!r}): no ValueError raised")
    return failures


def test_odd_cases_are_every_odd_value_of_every_argument():
    # the loop below checks what the one-test-per-case parametrization did: one case per odd
    # value of each attacked argument's kind, None left out only where it is valid
    spec = Spec(valid={}, args={"a": "fraction|none", "b": "count"})
    cases = [(arg, case) for arg, _, case in _odd_cases(spec)]
    assert cases == [("a", f"a-fraction{i}") for i in range(len(ODD_VALUES["fraction"]))
                     if ODD_VALUES["fraction"][i] is not None] + \
        [("b", f"b-count{i}") for i in range(len(ODD_VALUES["count"]))]
    # and every kind of failure is named with its case: refused by name (a), another exception
    # (b's first odd value), a ValueError not naming the argument (its second), none (its third)
    def f(a="ok", b="ok"):
        if a != "ok":
            raise ValueError(f"a_name={a!r} is bad")
        if b == "no-such-option":
            raise TypeError("deep")
        if b == 3.5:
            raise ValueError("something")

    assert ODD_VALUES["choice"] == ["no-such-option", 3.5, {}]
    found = _odd_input_failures("f", f, Spec(valid={"a": "ok", "b": "ok"},
                                             args={"a": "str", "b": "choice"},
                                             shown={"a": "a_name", "b": "b_name"}))
    assert found == ["[b-choice0] f(b='no-such-option'): TypeError instead of a ValueError: deep",
                     "[b-choice1] f(b=3.5): the ValueError does not name 'b_name': something",
                     "[b-choice2] f(b={}): no ValueError raised"]


def _check_result(name, fn, result):
    """A valid call's result is a result: not None unless the function says it may be (its
    return annotation names None: a check that returns nothing, words with nothing to say), a
    float finite, an array's numbers finite, a table with rows or a stated reason
    (``attrs['note']``) for having none."""
    ret = str(inspect.signature(fn).return_annotation)
    if result is None:
        assert "None" in ret, f"{name}: returned None, its annotation {ret!r} does not allow it"
    elif isinstance(result, float):
        assert math.isfinite(result), f"{name}: returned {result}"
    elif isinstance(result, np.ndarray) and result.dtype.kind in "fc":
        assert np.isfinite(result).all(), f"{name}: returned non-finite numbers"
    elif isinstance(result, pd.DataFrame):
        assert len(result) or result.attrs.get("note"), f"{name}: an empty table, no reason"


@pytest.mark.parametrize("name", [n for n, s in SPECS.items() if isinstance(s, Spec)])
def test_valid_call_works(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _check_result(name, getattr(llmcost, name), getattr(llmcost, name)(**SPECS[name].valid))


@pytest.mark.parametrize("name", [n for n, s in SPECS.items()
                                  if isinstance(s, Spec) and s.args])
def test_odd_input_names_the_argument(name):
    failures = _odd_input_failures(name, getattr(llmcost, name), SPECS[name])
    assert not failures, f"{len(failures)} odd input(s) not refused by name:\n" + \
        "\n".join(failures)


# ---- the public functions of llmcost.ledger and llmcost.levers (modules in __all__)
MODULE_SPECS = module_specs()


def _module_function(key):
    mod, _, name = key.partition(".")
    return getattr(getattr(llmcost, mod), name)


def test_module_specs_name_real_arguments():
    for key, spec in MODULE_SPECS.items():
        params = inspect.signature(_module_function(key)).parameters
        has_kwargs = any(p.kind is p.VAR_KEYWORD for p in params.values())
        for arg in list(spec.args) + list(spec.valid):
            assert arg in params or has_kwargs, f"{key}: no argument {arg!r}"


@pytest.mark.parametrize("key", list(MODULE_SPECS))
def test_module_valid_call_works(key):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fn = _module_function(key)
        _check_result(key, fn, fn(**MODULE_SPECS[key].valid))


@pytest.mark.parametrize("key", [k for k, s in MODULE_SPECS.items() if s.args])
def test_module_odd_input_names_the_argument(key):
    failures = _odd_input_failures(key, _module_function(key), MODULE_SPECS[key])
    assert not failures, f"{len(failures)} odd input(s) not refused by name:\n" + \
        "\n".join(failures)


# ---- every argument of every entry point is in the spec (so that the spec cannot fall behind)
def _arguments(fn) -> list:
    return [n for n, p in inspect.signature(fn).parameters.items()
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


#: The modules split out of the ledger whose functions it re-exports under its own name
#: (``llmcost.ledger.energy_of``, ...): specified as ledger's.
LEDGER_PARTS = ("llmcost.bill.energy", "llmcost.bill.lora", "llmcost.bill.montecarlo",
                "llmcost.bill.provenance")


def _module_functions() -> dict:
    """``"ledger.name"`` / ``"levers.name"`` -> every public function defined in those modules
    (for the ledger, also those of ``LEDGER_PARTS`` it re-exports)."""
    out = {}
    for mod in ("ledger", "levers"):
        m = getattr(llmcost, mod)
        for name, fn in inspect.getmembers(m, inspect.isfunction):
            if not name.startswith("_") and (fn.__module__ == m.__name__ or (
                    mod == "ledger" and fn.__module__ in LEDGER_PARTS)):
                out[f"{mod}.{name}"] = fn
    return out


def test_every_public_argument_is_specified():
    missing = []
    for name, spec in SPECS.items():
        if not isinstance(spec, Spec):
            continue
        # StepOptions defers most checks to the step model: its fields are attacked through
        # step_time's keywords (api_specs.STEP_OPTION_ARGS)
        covered = set(spec.args) | (set(STEP_OPTION_ARGS) if name == "StepOptions" else set())
        missing += [f"{name}({a})" for a in _arguments(getattr(llmcost, name))
                    if a not in covered]
    for key, fn in _module_functions().items():
        if key in INTERNAL:
            continue
        if key not in MODULE_SPECS:
            missing.append(f"{key} (no spec)")
            continue
        missing += [f"{key}({a})" for a in _arguments(fn) if a not in MODULE_SPECS[key].args]
    assert not missing, ("add these arguments to tests/api_specs.py (a kind from ODD_VALUES "
                         f"each): {missing}")


def test_internal_names_are_real():
    functions = _module_functions()
    stale = [k for k in list(INTERNAL) + list(MODULE_SPECS) if k not in functions]
    assert not stale, f"tests/api_specs.py names functions that do not exist: {stale}"
