"""TeX math in markdown -> MathML for the offline report pages (llmcost.texmath).

Expected behaviour is Pandoc's ``tex_math_dollars`` rule (https://pandoc.org/MANUAL.html,
extension ``tex_math_dollars``): "The opening $ must have a non-space character immediately to its
right, while the closing $ must have a non-space character immediately to its left, and must not
be followed immediately by a digit. Thus, $20,000 and $30,000 won't parse as math." The expected
MathML structure is the MathML Core element each TeX construct maps to (mfrac for \\frac, msub for
_, msup for ^; https://www.w3.org/TR/mathml-core/)."""

import pytest

pytest.importorskip("latex2mathml")

from llmcost.present.texmath import markdown_math_to_mathml, tex_to_mathml  # noqa: E402


def test_display_equation_becomes_block_mathml():
    out, failed = markdown_math_to_mathml("Bandwidth term:\n$$T(S) = \\alpha + \\frac{S}{W}.$$\n")
    assert failed == []
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">' in out
    assert "<mfrac>" in out and "$" not in out and "\\frac" not in out
    assert out.startswith("Bandwidth term:\n")


def test_inline_math_becomes_inline_mathml():
    out, failed = markdown_math_to_mathml("over $n$ ranks with $x_i^2$ each")
    assert failed == []
    assert out.count('display="inline"') == 2 and "<msubsup>" in out
    assert out.startswith("over <math") and out.endswith("</math> each")


@pytest.mark.parametrize("prose", [
    # notebook 00's prices and per-token costs (literal dollars, not math)
    "so the energy line is $0 unless the hardware is owned.",
    "costs P × $/M in + R × $/M out; a synthetic token costs $/M out + P/R × $/M in",
    "at $3.99/GPU-h and $2.10/GPU-h",
    "between $20,000 and $30,000",  # Pandoc's own example
    "for $5.6M at $2 per hour",
    "an escaped \\$5 and \\$x\\$",
])
def test_literal_dollars_stay_text(prose):
    assert markdown_math_to_mathml(prose) == (prose, [])


def test_price_next_to_math():
    # "$5.6M" opens nothing that closes before the formula's own "$": only $D$ converts
    out, failed = markdown_math_to_mathml("claims $5.6M\nwith tokens $D$ published")
    assert failed == [] and out.startswith("claims $5.6M\nwith tokens <math")
    assert out.count("<math") == 1 and "<mi>D</mi>" in out


def test_code_is_left_alone():
    src = "inline `$x$` and\n```python\ny = f'$${a}$$'\n```\nthen $y$"
    out, failed = markdown_math_to_mathml(src)
    assert failed == []
    assert "`$x$`" in out and "y = f'$${a}$$'" in out and out.count("<math") == 1


def test_inline_math_does_not_cross_a_blank_line():
    src = "a $x\n\ny$ b"
    assert markdown_math_to_mathml(src) == (src, [])


@pytest.mark.parametrize("tex", ["x^{", "\\frac{a", "\\notacommand{x}"])
def test_failure_is_kept_as_escaped_tex_and_counted(tex):
    assert tex_to_mathml(tex) is None
    out, failed = markdown_math_to_mathml(f"see $$<{tex}$$ here")
    assert failed == [f"<{tex}"]
    assert '<code class="tex-failed">$$&lt;' in out and "<math" not in out


def test_sized_named_delimiter_converts():
    # latex2mathml 3.81 leaves "\Big\lfloor" as the text "\lfloor"; given as U+230A it sizes it
    out = tex_to_mathml(r"B = \Big\lfloor \frac{H}{K} \Big\rfloor")
    assert out is not None and "\u230a" in out and "\u230b" in out and "\\" not in out


def test_unknown_escape_is_a_failure():
    assert tex_to_mathml(r"\Big\{ x \Big\}") is None  # would show as the text "\{"
