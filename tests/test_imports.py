"""The package's import graph and house rules (ARCHITECTURE.md): rooms import downwards (the
import-linter contract in pyproject.toml, which ``make test`` runs and which a planted violation
breaks here), no import cycle, package imports at the top of each module (function bodies import
only the optional notebook libraries), no private name imported across modules, no behaviour
installed by registration at import, and the 0.1 flat module paths kept as aliases."""

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import llmcost

#: The optional heavy dependencies a function body may import: the `notebooks` extra of
#: pyproject.toml (plots, widgets, report pages and text twins). The calculations, the ledger and
#: `llmcost estimate` run without them, and importing them costs about a second. jinja2 is
#: nbconvert's template engine, installed with it (nbconvert's own requirement), which the
#: report's page exporter reaches for its compiled-template cache.
OPTIONAL_IMPORTS = ("matplotlib", "ipywidgets", "IPython", "papermill", "nbconvert", "nbclient",
                    "nbformat", "jupytext", "latex2mathml", "jupyter_client", "jupyter_core",
                    "ipykernel", "jinja2")

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
    # The owned-hardware pricing lives in pricing.py, which imports neither the scenario nor the
    # ledger (scenario.resolve_price once imported ledger.owned_usd_per_gpu_hour: a cycle).
    g = _graph()
    assert "ledger" not in g["scenario"]
    assert "pricing" in g["scenario"] and "pricing" in g["ledger"]
    assert not g["pricing"] & {"scenario", "ledger"}
    from llmcost import ledger, pricing
    assert ledger.owned_usd_per_gpu_hour is pricing.owned_usd_per_gpu_hour


def test_shapes_depends_only_on_the_model():
    assert _graph()["shapes"] <= {"model", "units"}


# ------------------------------------------------------------------------------ house rules
def _modules():
    return sorted(f for f in PACKAGE.rglob("*.py"))


def _in_function(tree):
    """The import nodes of ``tree`` inside a function or class body."""
    out = []

    def visit(node, inside):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)) and inside:
                out.append(child)
            visit(child, inside or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                      ast.ClassDef, ast.Lambda)))
    visit(tree, False)
    return out


def test_function_bodies_import_only_the_optional_libraries():
    found = []
    for f in _modules():
        for node in _in_function(ast.parse(f.read_text())):
            mod = node.module if isinstance(node, ast.ImportFrom) else node.names[0].name
            level = getattr(node, "level", 0)
            if level or (mod or "").split(".")[0] not in OPTIONAL_IMPORTS:
                found.append(f"{f.relative_to(PACKAGE)}:{node.lineno}: {ast.unparse(node)}")
    assert not found, "imports to move to the module header:\n" + "\n".join(found)


def test_no_private_name_crosses_modules():
    stems = {f.stem for f in _modules()}
    found = []
    for f in _modules():
        tree = ast.parse(f.read_text())
        aliases = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level:
                for a in node.names:
                    if a.name.startswith("_") and a.name != "__version__" and not (
                            f.name == "__init__.py" and a.name in stems):  # the root's own
                        found.append(f"{f.relative_to(PACKAGE)}:{node.lineno}: {a.name}")
                    if a.name in stems:
                        aliases.add(a.asname or a.name)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                    node.value.id in aliases and node.attr.startswith("_") and \
                    not node.attr.startswith("__"):
                found.append(f"{f.relative_to(PACKAGE)}:{node.lineno}: {node.value.id}."
                             f"{node.attr}")
    assert not found, "private names used across modules:\n" + "\n".join(found)


def test_nothing_is_installed_by_registration_at_import():
    # a Cluster takes an Accelerator (the catalogue turns names into objects) ...
    with pytest.raises(ValueError, match=r"load_accelerator\('H100-SXM'\)"):
        llmcost.Cluster("H100-SXM", 8)
    # ... and the plan search takes its ranking from the caller
    from llmcost.core import hardware
    from llmcost.training import parallel
    assert not hasattr(hardware, "set_accelerator_loader")
    assert not hasattr(parallel, "set_default_ranking")


def test_the_flat_module_paths_of_0_1_are_aliases_of_the_rooms():
    import llmcost.step
    import llmcost.training.step
    from llmcost import ledger, report
    from llmcost.bill import ledger as ledger2
    from llmcost.report import run_report
    assert llmcost.step is llmcost.training.step and ledger is ledger2
    assert llmcost.step.__spec__.name == "llmcost.training.step"  # its own spec, not the alias
    assert run_report is report.run_report and report.__name__ == "llmcost.present.report"
    assert llmcost.memory.get_recipe is llmcost.training.memory.get_recipe  # glossary paths
    with pytest.raises(AttributeError, match="no_such_module"):
        llmcost.no_such_module  # noqa: B018


#: Run in a fresh interpreter: what ``import llmcost`` and ``import llmcost.present.workers``
#: (the early start of ``python -m llmcost report``) import, then the public API.
LAZY_ROOT = """\
import json, sys
import llmcost, llmcost.present.workers
heavy = ("numpy", "pandas", "matplotlib", "jupyter_client", "llmcost.training", "llmcost.bill",
         "llmcost.serving", "llmcost.laws", "llmcost.present.report", "llmcost.present.cli")
before = sorted(m for m in sys.modules if m.startswith(heavy))
listed = sorted(set(llmcost.__all__) - set(dir(llmcost)))
star = {}
exec("from llmcost import *", star)
print(json.dumps({"before": before, "listed_missing": listed,
                  "star": sorted(n for n in star if n != "__builtins__"),
                  "moved": llmcost.step.rank_plans is llmcost.training.ranking.rank_plans}))
"""


def test_the_root_imports_each_name_on_first_use():
    # a lazy root (PEP 562): importing llmcost, or the report's early start, imports no room
    # and no numpy; dir() lists the API before its first use; a star import binds all of it
    r = subprocess.run([sys.executable, "-c", LAZY_ROOT], capture_output=True, text=True,
                       env={"PYTHONPATH": str(PACKAGE.parent), "PATH": "/usr/bin:/bin"})
    assert r.returncode == 0, r.stderr[-2000:]
    seen = json.loads(r.stdout)
    assert seen == {"before": [], "listed_missing": [], "star": sorted(llmcost.__all__),
                    "moved": True}


def test_every_public_name_is_the_object_its_module_defines():
    # tests/api_specs.py specifies llmcost.__all__ (tests/test_public_api.py); each name, once
    # used, is a plain attribute of the root and the very object of the module that defines it
    import inspect
    for name in llmcost.__all__:
        obj = getattr(llmcost, name)
        assert vars(llmcost)[name] is obj, name
        if inspect.ismodule(obj):
            assert obj.__name__.startswith("llmcost.") and obj.__name__.endswith(f".{name}")
        elif inspect.isclass(obj) or inspect.isfunction(obj):
            assert getattr(sys.modules[obj.__module__], name) is obj, name
    with pytest.raises(AttributeError, match="no_such_name"):
        llmcost.no_such_name  # noqa: B018


def _lint(tree: Path):
    exe = Path(sys.executable).with_name("lint-imports")
    if not exe.exists():
        pytest.skip("import-linter is not installed (pip install -e '.[test]')")
    return subprocess.run([str(exe), "--config", str(tree / "pyproject.toml"), "--no-cache"],
                          cwd=tree, capture_output=True, text=True,
                          env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"})


@pytest.fixture(scope="module")
def clean_copy(tmp_path_factory):
    """A copy of the package and its pyproject.toml that keeps the contract (linted once; each
    planted violation below is made in a copy of it)."""
    tree = tmp_path_factory.mktemp("clean")
    shutil.copytree(PACKAGE, tree / "llmcost", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(PACKAGE.parent / "pyproject.toml", tree / "pyproject.toml")
    assert _lint(tree).returncode == 0  # the copy keeps the contract ...
    return tree


@pytest.mark.parametrize("module, line, contract", [
    ("core/units.py", "from ..training import step", "Rooms import downwards"),
    ("training/comm.py", "import matplotlib.pyplot", "never import plotting"),
    ("bill/ledger.py", "from ..present import plots", "Rooms import downwards"),
])
def test_the_layer_contract_breaks_on_a_planted_violation(clean_copy, tmp_path, module, line,
                                                         contract):
    shutil.copytree(clean_copy, tmp_path, dirs_exist_ok=True)
    f = tmp_path / "llmcost" / module
    f.write_text(f.read_text() + f"\n{line}  # planted\n")
    r = _lint(tmp_path)
    assert r.returncode == 1 and "BROKEN" in r.stdout, r.stdout[-2000:]  # ... and breaks here
    assert any(contract in ln and "BROKEN" in ln for ln in r.stdout.splitlines())
