"""The package's import graph (the brief: dependencies flow one way, no import cycles). Issue 9
removed the parallel <-> step cycle (``parallel.choose_plan`` now takes its step-time ranking by
injection, ``parallel.set_default_ranking``); issue 12's ledger <-> scenario cycle went with
``pricing.py``. Lazy imports inside functions count: they are
dependencies too."""

import ast
from pathlib import Path

import llmcost

PACKAGE = Path(llmcost.__file__).parent


def _graph():
    """module stem -> the stems of the package modules it imports (top level or in a body)."""
    files = {f.stem: f for f in PACKAGE.rglob("*.py") if f.stem not in ("__init__", "__main__")}
    g = {}
    for stem, f in files.items():
        room = f.parent.relative_to(PACKAGE).parts  # () at the root, ("training",) in a room
        deps = set()
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level >= 1:
                base = list(room[:len(room) - (node.level - 1)])  # the package the dots name
                parts = base + (node.module.split(".") if node.module else [])
                names = [parts[-1]] if parts and parts[-1] in files else \
                    [a.name for a in node.names]
                deps.update(n for n in names if n in files)
        g[stem] = deps - {stem}
    return g


def _find_cycle(g):
    state, stack = {}, []

    def visit(n):
        state[n] = "open"
        stack.append(n)
        for d in sorted(g.get(n, ())):
            if state.get(d) == "open":
                return stack[stack.index(d):] + [d]
            if d not in state:
                found = visit(d)
                if found:
                    return found
        state[n] = "done"
        stack.pop()
        return None

    for n in sorted(g):
        if n not in state:
            found = visit(n)
            if found:
                return found
    return None


def test_cycle_finder_finds_a_planted_cycle():
    assert _find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycle_in_the_package():
    g = _graph()
    assert {"step", "parallel", "shapes", "memory", "comm"} <= set(g)
    assert "step" not in g["parallel"] and "parallel" in g["step"]
    assert _find_cycle(g) is None, _find_cycle(g)


def test_owned_pricing_sits_below_scenario_and_ledger():
    # The ledger <-> scenario cycle of issue 12's merge (scenario.resolve_price imported
    # ledger.owned_usd_per_gpu_hour while ledger imports scenario) is gone: the owned-hardware
    # pricing lives in pricing.py, which imports neither.
    g = _graph()
    assert "ledger" not in g["scenario"]
    assert "pricing" in g["scenario"] and "pricing" in g["ledger"]
    assert not g["pricing"] & {"scenario", "ledger"}
    from llmcost import ledger, pricing
    assert ledger.owned_usd_per_gpu_hour is pricing.owned_usd_per_gpu_hour


def test_shapes_depends_only_on_the_model():
    assert _graph()["shapes"] <= {"model", "units"}
