"""No calculation function over 80 lines or 12 parameters: a function that runs a whole story in
one body, or threads a dozen settings through its signature, is where a change goes wrong.

The calculation rooms are ``llmcost/core``, ``training``, ``serving``, ``laws`` and ``bill``
(``present``, what a reader sees, is not held to it). Every ``def`` in them is measured with
``ast``, nested functions and methods included (each on its own, under its qualified name
``Class.method`` or ``outer.inner``):

* **lines**: from the ``def`` line to the function's last line (``end_lineno - lineno + 1``),
  docstring, comments and blank lines included, decorators not; a nested function's lines also
  count in its parent's;
* **parameters**: positional-only, positional and keyword-only parameters; the first parameter
  of a method named ``self`` or ``cls`` is not counted, nor are ``*args`` and ``**kwargs``
  (a ``**keywords`` parameter carries an options object's fields, which that object's class
  checks by name: ``StepOptions``, ``PlanGrid``, ``MoeA2AOptions``, ``CheckpointSettings``...).

A function over a limit needs an entry in ``ALLOWED`` (its size when listed and why it is left);
the test also fails when a listed function grows past its listed size, or no longer breaks a
limit (then delete its entry: the list only shrinks).
"""

import ast
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "llmcost"
ROOMS = ("core", "training", "serving", "laws", "bill")
MAX_LINES = 80
MAX_PARAMS = 12

#: (module path under llmcost/, qualified name) -> (lines, parameters, why it is left).
ALLOWED = {}


def _parameters(fn: ast.FunctionDef) -> int:
    a = fn.args
    names = [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]
    if names and names[0] in ("self", "cls"):
        names = names[1:]
    return len(names)


def _functions(tree: ast.AST, prefix: str = ""):
    """``(qualified name, node)`` of every function in ``tree``, nested ones included."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield prefix + node.name, node
            yield from _functions(node, prefix + node.name + ".")
        elif isinstance(node, ast.ClassDef):
            yield from _functions(node, prefix + node.name + ".")
        else:
            yield from _functions(node, prefix)


@cache
def measure() -> dict:
    """(module path, qualified name) -> (lines, parameters) of every function of the rooms
    (measured once, when a test first asks: not while every worker collects this file)."""
    out = {}
    for room in ROOMS:
        for path in sorted((ROOT / room).glob("*.py")):
            rel = f"{room}/{path.name}"
            for name, fn in _functions(ast.parse(path.read_text(), filename=str(path))):
                out[(rel, name)] = (fn.end_lineno - fn.lineno + 1, _parameters(fn))
    return out



def test_the_measure_counts_what_its_docstring_says():
    """The counting rule on a hand-written function: 5 lines (def to last line, docstring and
    blank line included), 3 parameters (``self``, ``*args`` and ``**kwargs`` not counted)."""
    source = ('class A:\n'
              '    def f(self, a, /, b, *args, c=1, **kwargs):\n'
              '        """Doc."""\n'
              '\n'
              '        def inner():\n'
              '            return a\n')
    sizes = {name: (fn.end_lineno - fn.lineno + 1, _parameters(fn))
             for name, fn in _functions(ast.parse(source))}
    assert sizes == {"A.f": (5, 3), "A.f.inner": (2, 0)}
    assert len(measure()) > 500       # the rooms were found


def test_no_calculation_function_over_the_limits():
    over = {key: size for key, size in measure().items()
            if (size[0] > MAX_LINES or size[1] > MAX_PARAMS) and key not in ALLOWED}
    assert not over, (
        f"functions over {MAX_LINES} lines or {MAX_PARAMS} parameters (lines, parameters): "
        f"{over}; split the body into named steps (each with its formula in its docstring) or "
        "group the parameters that travel together into a frozen options dataclass")


@pytest.mark.parametrize("key", list(ALLOWED), ids=["::".join(k) for k in ALLOWED])
def test_the_allowed_list_only_shrinks(key):
    lines, params, why = ALLOWED[key]
    assert why
    assert key in measure(), f"{key} no longer exists: delete its ALLOWED entry"
    now_lines, now_params = measure()[key]
    assert (now_lines > MAX_LINES or now_params > MAX_PARAMS), (
        f"{key} is now within the limits ({now_lines} lines, {now_params} parameters): delete "
        "its ALLOWED entry")
    assert now_lines <= lines and now_params <= params, (
        f"{key} grew to {now_lines} lines, {now_params} parameters (listed: {lines}, "
        f"{params}): an allowed function may only shrink")
