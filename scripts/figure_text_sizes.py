"""Count the text sizes of every figure of a written report (``llmcost report``'s pages hold
their figures as SVG with text as text, ``svg.fonttype: none``, in points: matplotlib's SVG
user unit), the figures read when projected (the project's rule: ``plots.SMALL_PT`` and up).

Usage: python scripts/figure_text_sizes.py REPORT_DIR
Prints the number of texts, the shares under 10, 9 and 8 pt, the count per size, and apart, the
math-text glyphs (``<tspan>``: the exponents of ``10^n`` tick labels are 70 % of their label).
"""

from __future__ import annotations

import base64
import collections
import re
import sys
from pathlib import Path


def sizes(report: Path) -> tuple:
    texts, glyphs = collections.Counter(), collections.Counter()
    for page in sorted(report.glob("[0-9]*.html")):
        for b in re.findall(r"data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)", page.read_text()):
            svg = base64.b64decode(b).decode()
            for m in re.finditer(r"<text[^>]*?font[^>]*?>", svg):
                fs = re.search(r"font(?:-size)?[:=]\s*\"?[^\"]*?([\d.]+)px", m.group(0))
                if fs:
                    texts[float(fs.group(1))] += 1
            for m in re.finditer(r"<tspan[^>]*font-size: ([\d.]+)px", svg):
                glyphs[float(m.group(1))] += 1
    return texts, glyphs


def main(argv: list) -> int:
    if len(argv) != 1 or not Path(argv[0]).is_dir():
        print(__doc__)
        return 2
    texts, glyphs = sizes(Path(argv[0]))
    n = sum(texts.values())
    if not n:
        print("no figure text found")
        return 1
    share = {f: sum(v for k, v in texts.items() if k < f) / n for f in (10, 9, 8)}
    print(f"{n} texts; under 10 pt {share[10]:.1%}, under 9 pt {share[9]:.1%}, "
          f"under 8 pt {share[8]:.1%}")
    print("per size (pt: count):", ", ".join(f"{k:g}: {v}" for k, v in sorted(texts.items())))
    print("math-text glyphs (pt: count):",
          ", ".join(f"{k:g}: {v}" for k, v in sorted(glyphs.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
