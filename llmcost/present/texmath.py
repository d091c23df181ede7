"""TeX math in markdown to MathML, for report pages that must read offline.

The notebooks write their derivations in LaTeX (``$$...$$`` display, ``$...$`` inline); JupyterLab
renders them with MathJax. A report page is opened from a folder or an e-mail with no network, so
the report strips MathJax (``report._offline_and_readable``) and converts the math here at export
time with ``latex2mathml``; Chromium, Firefox and Safari render MathML Core natively.

Which dollars are math follows Pandoc's ``tex_math_dollars`` rule, so prices in prose stay text
("$3.99/GPU-h", "P × $/M in + R × $/M out"): an opening ``$`` has a non-space character right
after it, a closing ``$`` has a non-space character right before it and is not followed by a
digit, the formula holds no unescaped ``$`` and no blank line, and ``\\$`` is a literal dollar.
``$$...$$`` is display math. Code spans and fenced code blocks are left alone.

A formula that does not convert (latex2mathml raises, braces do not balance, or a command it does
not know comes out as text) is kept as escaped TeX in ``<code class="tex-failed">`` and counted.
Named delimiters after ``\\big``/``\\Big`` (``\\Big\\lfloor``), which latex2mathml 3.81 leaves as
text, are given to it as their Unicode characters, which it sizes right.
"""
from __future__ import annotations

import html
import re

_FENCE = re.compile(r"^(?P<f>```+|~~~+)[^\n]*\n.*?^(?P=f)[ \t]*$", re.M | re.S)
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)", re.S)
_DISPLAY = re.compile(r"(?<!\\)\$\$(.+?)(?<!\\)\$\$", re.S)
_INLINE = re.compile(r"(?<![\\$])\$(?=[^\s$])((?:\\.|[^$\\\n]|\n(?![ \t]*\n))+?)(?<=\S)"
                     r"(?<!\\)\$(?![\d$])")
# latex2mathml 3.81 writes a command it could not read as the text of a token ("<mo>\\lfloor</mo>")
_UNKNOWN_COMMAND = re.compile(r">\\[^<]")
# ... which it does for a named delimiter after a size command (\Big\lfloor): given as the Unicode
# character instead (the character TeX's delimiter stands for), it sizes it right.
_DELIMITERS = {"lfloor": "\u230a", "rfloor": "\u230b", "lceil": "\u2308", "rceil": "\u2309",
               "langle": "\u27e8", "rangle": "\u27e9", "vert": "|", "lvert": "|", "rvert": "|",
               "Vert": "\u2016", "lVert": "\u2016", "rVert": "\u2016"}
_SIZED_DELIMITER = re.compile(r"(\\[bB]igg?[lrm]?)\s*\\(" + "|".join(_DELIMITERS)
                              + r")(?![A-Za-z])")


def _balanced(tex: str) -> bool:
    depth = 0
    for ch in re.sub(r"\\[{}]|\\\\", "", tex):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def tex_to_mathml(tex: str, display: bool = False) -> str | None:
    """One formula (without its dollars) as a ``<math>`` element on one line, or ``None`` when it
    does not convert (see the module docstring)."""
    from latex2mathml.converter import convert

    if not tex.strip() or not _balanced(tex):
        return None
    tex = _SIZED_DELIMITER.sub(lambda m: m.group(1) + " " + _DELIMITERS[m.group(2)], tex)
    try:
        out = convert(tex.strip(), display="block" if display else "inline")
    except Exception:  # latex2mathml's own errors (missing super/subscript, bad matrices, ...)
        return None
    if _UNKNOWN_COMMAND.search(out):
        return None
    return out.replace("\n", " ")


def _failed(tex: str, display: bool) -> str:
    delim = "$$" if display else "$"
    return f'<code class="tex-failed">{html.escape(delim + tex + delim)}</code>'


def markdown_math_to_mathml(source: str) -> tuple[str, list[str]]:
    """``source`` (a markdown cell) with its TeX math replaced by MathML, and the formulas that
    failed to convert (each left as escaped TeX in ``<code class="tex-failed">``).

    Each formula becomes one line of inline raw HTML (``<math display="block">`` for display
    math, which the browser lays out as a block), so the markdown around it (emphasis, links,
    lists) is still rendered as markdown."""
    failures: list[str] = []

    def display(m):
        out = tex_to_mathml(m.group(1), display=True)
        if out is None:
            failures.append(m.group(1))
            return _failed(m.group(1), True)
        return out

    def inline(m):
        out = tex_to_mathml(m.group(1))
        if out is None:
            failures.append(m.group(1))
            return _failed(m.group(1), False)
        return out

    def prose(text: str) -> str:  # text outside code: math converted
        pieces, last = [], 0
        for m in _CODE_SPAN.finditer(text):
            pieces.append(_INLINE.sub(inline, _DISPLAY.sub(display, text[last:m.start()])))
            pieces.append(m.group(0))
            last = m.end()
        pieces.append(_INLINE.sub(inline, _DISPLAY.sub(display, text[last:])))
        return "".join(pieces)

    pieces, last = [], 0
    for m in _FENCE.finditer(source):
        pieces.append(prose(source[last:m.start()]))
        pieces.append(m.group(0))
        last = m.end()
    pieces.append(prose(source[last:]))
    return "".join(pieces), failures


def notebook_math_to_mathml(nb_node) -> list[str]:
    """Convert every markdown cell of ``nb_node`` in place; returns the formulas that failed."""
    failures: list[str] = []
    for cell in nb_node.cells:
        if cell.get("cell_type") == "markdown" and "$" in cell.source:
            cell.source, failed = markdown_math_to_mathml(cell.source)
            failures += failed
    return failures
