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
            "serving_figures", "llama2_whole_run"} <= names
    assert mod.main(["--check"]) == 0, capsys.readouterr().out
    assert "(planned" not in text  # no row for a notebook that exists


def test_a_stale_figure_is_caught():
    mod = _module()
    text = "within <!-- fig:a100_rows -->14<!-- /fig --> configurations"
    values = mod.figures()
    assert mod.render(text, values) == f"within <!-- fig:a100_rows -->{values['a100_rows']}" \
        "<!-- /fig --> configurations"
    assert values["a100_rows"] != "14"


def test_llama2_whole_run_figure_by_hand():
    """Llama 2 70B's model card: 1,720,320 A100-80GB GPU-hours for 2T tokens (Touvron et al.
    2023). By 6ND: 6 × 68.98e9 × 2e12 / (1,720,320 × 3600 s × 312e12 FLOP/s) = 42.8%; the
    README states the MFU basis (full-mask attention adds 12·L·h·s per token, about 7% at 4,096
    tokens) first, as its conventions say every MFU is."""
    by_6nd = 6 * 68.98e9 * 2e12 / (1_720_320 * 3600 * 312e12)
    assert f"{by_6nd:.1%}" == "42.8%"
    value = _module().figures()["llama2_whole_run"]
    assert value.endswith(f"(by 6ND: {by_6nd:.1%})")
    basis = float(value.split("%")[0]) / 100
    attention = 2e12 * 12 * 80 * 8192 * 4096 / (1_720_320 * 3600 * 312e12)  # 12·L·h·s·D
    assert by_6nd < basis < by_6nd + attention
