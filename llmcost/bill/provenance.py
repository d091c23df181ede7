"""Where a bill comes from: the git commit the package runs from and the as-of dates of the
dated catalogues (``summary.json``'s ``git_commit`` and ``as_of``; ``ledger.Ledger.summary``)."""

from __future__ import annotations

import csv
import subprocess

from ..core.catalog import DATA_DIR


def git_commit() -> str:
    """The commit the package runs from, or ``"unknown"`` outside a git checkout."""
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=DATA_DIR.parent,
                             capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() if out.returncode == 0 else "unknown"


def as_of_dates() -> dict:
    """The newest ``date`` of each dated catalogue (prices, storage prices, ledger defaults)."""
    out = {}
    for name in ("prices", "storage_prices", "ledger_defaults"):
        with (DATA_DIR / f"{name}.csv").open(newline="", encoding="utf-8") as fh:
            dates = [r["date"] for r in csv.DictReader(fh) if r.get("date")]
        out[f"{name}.csv"] = max(dates) if dates else "undated"
    return out
