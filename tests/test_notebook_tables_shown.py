"""A table a notebook cell builds is shown: Jupyter displays only a cell's last expression, so
a ``plots.table(...)`` call anywhere else is computed and dropped. A lecturer's trial found
seven tables missing from the pages (notebook 00's per-line P10 / P50 / P90 whose note
followed it, 05's RL tables, 06's Krajewski fit and published MoE runs)."""
import ast
import json
from pathlib import Path

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))


def _dropped_tables(source: str) -> list:
    """The ``plots.table(...)`` expression statements of a cell that are not its last top-level
    statement (nested ones never display)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:   # a cell of magics: not Python
        return []
    out = []

    def walk(stmts, top):
        for j, st in enumerate(stmts):
            if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) and \
                    ast.unparse(st.value.func) == "plots.table" and \
                    not (top and j == len(stmts) - 1):
                out.append(ast.unparse(st)[:60])
            for attr in ("body", "orelse", "finalbody"):
                sub = getattr(st, attr, None)
                if isinstance(sub, list) and sub and isinstance(sub[0], ast.stmt):
                    walk(sub, False)

    walk(tree.body, True)
    return out


def test_the_rule_finds_a_dropped_table():
    assert _dropped_tables("plots.table(df)\nprint(1)") == ["plots.table(df)"]
    assert _dropped_tables("for x in y:\n    plots.table(x)") == ["plots.table(x)"]
    assert _dropped_tables("print(1)\nplots.table(df)") == []
    assert _dropped_tables("display(plots.table(df))\nprint(1)") == []


def test_every_table_a_notebook_builds_is_shown():
    assert NOTEBOOKS
    dropped = {}
    for path in NOTEBOOKS:
        for i, cell in enumerate(json.loads(path.read_text())["cells"]):
            if cell["cell_type"] == "code":
                found = _dropped_tables("".join(cell["source"]))
                if found:
                    dropped[f"{path.name} cell {i}"] = found
    assert not dropped, f"tables built and not shown (wrap them in display(...)): {dropped}"
