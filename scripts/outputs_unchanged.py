"""Check that a refactoring changed no number: the reports and notebooks of two commits agree.

For each scenario (default: the default and the Llama 3.1 405B scenarios) it writes the report of
the base commit (a ``git worktree`` of ``--base``) and of ``--new`` (default: the working tree),
then compares:

* ``summary.json`` byte for byte, after dropping the two fields that name the run rather than
  the numbers (``generated``, the clock time, and ``git_commit``);
* every executed notebook's outputs as nbval sees them (``text/plain``, ``text/html``,
  ``text/markdown``, errors, and streams joined per cell since their chunking varies), cell by
  cell; the cells that hold a figure (a figure lost or moved is a difference), and each
  figure's PNG or SVG hash (reported apart: a figure may differ by a renderer's bytes, or be
  drawn as SVG where the base drew a PNG, without a number changing).

Usage: python scripts/outputs_unchanged.py --base main~1 [--new REV] [--scenario FILE ...]
Exit 0 when every summary and every text output is identical, 1 otherwise (each difference
printed), 2 on a usage error.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ["data/scenarios/default.yaml", "data/scenarios/llama-3.1-405b.yaml"]
VOLATILE = ("generated", "git_commit")
TEXT_MIMES = ("text/plain", "text/html", "text/markdown")
FIGURE_MIMES = ("image/png", "image/svg+xml")


def _drop_volatile(obj):
    if isinstance(obj, dict):
        return {k: _drop_volatile(v) for k, v in obj.items() if k not in VOLATILE}
    if isinstance(obj, list):
        return [_drop_volatile(v) for v in obj]
    return obj


def _outputs(nb_path: Path) -> tuple[list, list]:
    """(text outputs, figure hashes) of each code cell of an executed notebook."""
    nb = json.loads(nb_path.read_text())
    texts, figures = [], []
    for i, cell in enumerate(c for c in nb["cells"] if c["cell_type"] == "code"):
        for out in cell.get("outputs", []):
            if out["output_type"] == "stream":
                text = "".join(out["text"])
                if texts and texts[-1][:2] == (i, out["name"]):  # a stream's chunking varies
                    text = texts.pop()[2] + text
                texts.append((i, out["name"], text))
            elif out["output_type"] == "error":
                texts.append((i, "error", out["ename"] + ": " + out["evalue"]))
            else:
                data = out.get("data", {})
                for mime in TEXT_MIMES:
                    if mime in data:
                        value = data[mime]
                        texts.append((i, mime, "".join(value) if isinstance(value, list)
                                      else value))
                for mime in FIGURE_MIMES:
                    if mime in data:
                        value = data[mime]
                        value = "".join(value) if isinstance(value, list) else value
                        figures.append((i, mime, hashlib.sha256(value.encode()).hexdigest()))
    return texts, figures


def _children_cpu() -> float:
    """CPU seconds (user + system) of this process's finished children, theirs included."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _report(tree: Path, scenario: str, out: Path) -> None:
    """Write the report of ``tree`` for ``scenario``; print its seconds and CPU seconds (the
    report's process and its kernels), the two trees' reports running one after the other."""
    env = dict(os.environ, PYTHONPATH=str(tree))  # the tree's llmcost, not the installed one
    cmd = [sys.executable, "-m", "llmcost", "report", "--scenario", str(ROOT / scenario),
           "--out", str(out)]
    print(f"  {tree.name}: llmcost report --scenario {scenario}", end="", flush=True)
    c0, t0 = _children_cpu(), time.perf_counter()
    r = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
    print(f" ({time.perf_counter() - t0:.1f} s, {_children_cpu() - c0:.1f} CPU-s)", flush=True)
    if r.returncode != 0:
        print(r.stdout[-2000:], r.stderr[-2000:], sep="\n")
        raise SystemExit(f"the report of {tree} for {scenario} failed (exit {r.returncode})")


def compare(base_dir: Path, new_dir: Path) -> list[str]:
    """The differences between two report folders, one line each."""
    diffs = []
    a = _drop_volatile(json.loads((base_dir / "summary.json").read_text()))
    b = _drop_volatile(json.loads((new_dir / "summary.json").read_text()))
    if json.dumps(a, sort_keys=True) != json.dumps(b, sort_keys=True):
        diffs.append("summary.json differs")
    for nb in sorted(base_dir.glob("*.ipynb")):
        other = new_dir / nb.name
        if not other.exists():
            diffs.append(f"{nb.name}: missing from the new report")
            continue
        (ta, fa), (tb, fb) = _outputs(nb), _outputs(other)
        if ta != tb:
            first = next((x, y) for x, y in zip(ta + [None], tb + [None]) if x != y)
            diffs.append(f"{nb.name}: text outputs differ, first at {first[0]} vs {first[1]}"[:600])
        if [f[0] for f in fa] != [f[0] for f in fb]:  # a figure lost, added or moved
            diffs.append(f"{nb.name}: figures in cells {[f[0] for f in fa]} vs "
                         f"{[f[0] for f in fb]}")
        elif fa != fb:
            print(f"  note: {nb.name}: {sum(x != y for x, y in zip(fa, fb))} figure(s) differ "
                  "in bytes or format (text outputs decide)")
    return diffs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True, help="the commit to compare against, e.g. main~1")
    ap.add_argument("--new", help="the commit to check (default: the working tree)")
    ap.add_argument("--scenario", action="append", help="scenario file(s); default: " +
                    ", ".join(SCENARIOS))
    args = ap.parse_args(argv)
    scenarios = args.scenario or SCENARIOS
    with tempfile.TemporaryDirectory(prefix="llmcost-unchanged-") as tmp:
        tmp = Path(tmp)
        trees = {"base": args.base, "new": args.new}
        for name, rev in trees.items():
            if rev is None:
                trees[name] = ROOT
                continue
            trees[name] = tmp / name
            r = subprocess.run(["git", "worktree", "add", "--detach", str(tmp / name), rev],
                               cwd=ROOT, capture_output=True, text=True)
            if r.returncode != 0:
                print(f"--{name} {rev}: {r.stderr.strip()}", file=sys.stderr)
                return 2
        try:
            diffs = []
            for sc in scenarios:
                stem = Path(sc).stem
                _report(trees["base"], sc, tmp / f"base-{stem}")
                _report(trees["new"], sc, tmp / f"new-{stem}")
                diffs += [f"{stem}: {d}" for d in compare(tmp / f"base-{stem}", tmp / f"new-{stem}")]
        finally:
            for tree in trees.values():
                if tree != ROOT:
                    subprocess.run(["git", "worktree", "remove", "--force", str(tree)],
                                   cwd=ROOT, capture_output=True)
    for d in diffs:
        print(d)
    print(f"{len(scenarios)} scenario(s): " + ("outputs unchanged" if not diffs else
                                                f"{len(diffs)} difference(s)"))
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
