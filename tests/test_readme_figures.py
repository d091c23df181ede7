"""The figures README.md quotes are the package's own, recomputed (scripts/readme_figures.py,
`make readme-figures`): a change of the model that moves one fails here until the README is
regenerated."""

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "readme_figures.py"


def _module():
    spec = importlib.util.spec_from_file_location("readme_figures", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_readme_figures_are_current(capsys):
    mod = _module()
    text = mod.README.read_text(encoding="utf-8")
    names = {n for n, _ in mod.MARK.findall(text)}
    # every figure the README quotes is marked (validation errors, Llama 3 errors, serving count)
    assert {"a100_mean_error", "a100_max_error", "a100_rows", "llama3_errors",
            "serving_figures"} <= names
    assert mod.main(["--check"]) == 0, capsys.readouterr().out
    assert "(planned" not in text  # no row for a notebook that exists


def test_a_stale_figure_is_caught():
    mod = _module()
    text = "within <!-- fig:a100_rows -->14<!-- /fig --> configurations"
    values = mod.figures()
    assert mod.render(text, values) == f"within <!-- fig:a100_rows -->{values['a100_rows']}" \
        "<!-- /fig --> configurations"
    assert values["a100_rows"] != "14"
