"""How fast is `llmcost estimate`? The whole command (a fresh interpreter: imports, validation as
`llmcost report` does it, the bill) against a baseline measured in the same run: a fresh
interpreter that only imports llmcost (`llmcost --version`). Also the ledger alone in-process.

Prints seconds and ratios; asserts nothing about time.
"""
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _shared import best_of

from llmcost import SCENARIO_DIR, build_ledger, load_scenario


def run(*args):
    return subprocess.run([sys.executable, "-m", "llmcost", *args], capture_output=True,
                          text=True, check=True)


for scenario in sorted(SCENARIO_DIR.glob("*.yaml")):
    base, _, _ = best_of(lambda: run("--version"), repeat=3)
    est, first, _ = best_of(lambda s=scenario: run("estimate", "--scenario", str(s)), repeat=3)
    sc = {k: v for k, v in load_scenario(scenario).items() if k not in ("title", "description")}
    ledger_s, _, bill = best_of(lambda s=sc: build_ledger(s), repeat=5)
    print(f"{scenario.name}: `llmcost estimate` {est:.2f} s (first run {first:.2f} s) vs "
          f"`llmcost --version` {base:.2f} s: {est / base:.2f}x the bare start-up; "
          f"build_ledger alone {ledger_s * 1e3:.1f} ms ({len(bill.lines)} lines)")
