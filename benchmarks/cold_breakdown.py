"""Where does a cold report's CPU go? Runs `llmcost report` for a scenario with an empty disk
cache, then, as ``bench_report.py`` does, **another scenario** (3/4 of the training tokens,
half the GPUs where the data-parallel degree is free) with a copy of the cache the first
filled, each with ``LLMCOST_CACHE_LOG`` set (``core.diskcache``: one line per computed entry,
its own CPU seconds, the entries computed inside it not counted again), and prints, per cached
function, the calls and CPU seconds each run computed, and their difference: the results that
do not depend on the scenario, which only a cold report (a fresh install, or any change to the
code or data) computes. Also printed: each run's CPU seconds (the report's process and its
kernels) and the share the cached computations hold of them.

Prints; asserts nothing. Usage:
    python benchmarks/cold_breakdown.py [--scenario S] [--top 30]
"""
import argparse
import collections
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from _shared import other_scenario
from llmcost import SCENARIO_DIR

ap = argparse.ArgumentParser()
ap.add_argument("--scenario", default=str(SCENARIO_DIR / "default.yaml"))
ap.add_argument("--top", type=int, default=30, help="functions printed")
args = ap.parse_args()
work = Path(tempfile.mkdtemp(prefix="cold-breakdown-"))


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def report(scenario: str, cache: Path, log: Path) -> float:
    """CPU seconds of one `llmcost report` of ``scenario`` with the cache ``cache``, its
    computed entries logged to ``log``."""
    env = {**os.environ, "LLMCOST_CACHE_DIR": str(cache), "LLMCOST_CACHE_LOG": str(log),
           "LLMCOST_PREBUILT_DIR": "off"}  # what a report computes with nothing prebuilt
    c0 = children_cpu()
    subprocess.run([sys.executable, "-m", "llmcost", "report", "--scenario", scenario,
                    "--out", str(work / "out"), "--overwrite"], check=True,
                   capture_output=True, text=True, env=env)
    return children_cpu() - c0


def read(log: Path) -> tuple[dict, dict]:
    """(calls, own CPU seconds) per function of a compute log."""
    calls, cpu = collections.Counter(), collections.defaultdict(float)
    for line in log.read_text().splitlines() if log.exists() else []:
        _, name, own, _ = line.split("\t")
        calls[name] += 1
        cpu[name] += float(own)
    return calls, cpu


cold_cpu = report(args.scenario, work / "cache", work / "cold.log")
shutil.copytree(work / "cache", work / "cache-other")
other_cpu = report(other_scenario(args.scenario, work), work / "cache-other",
                   work / "other.log")
(n_cold, c_cold), (n_other, c_other) = read(work / "cold.log"), read(work / "other.log")
print(f"cold report: {cold_cpu:.1f} CPU-s, of which {sum(c_cold.values()):.1f} computing "
      f"{sum(n_cold.values())} cache entries")
print(f"another scenario, the cold run's cache copied: {other_cpu:.1f} CPU-s, of which "
      f"{sum(c_other.values()):.1f} computing {sum(n_other.values())} entries")
print(f"scenario-free (cold - another): {sum(c_cold.values()) - sum(c_other.values()):.1f} "
      "CPU-s\n")
print(f"{'CPU-s cold':>10} {'calls':>5} {'another':>8} {'calls':>5} {'free':>6}  function")
ranked = sorted(c_cold, key=lambda k: -c_cold[k])
for name in ranked[:args.top]:
    print(f"{c_cold[name]:10.2f} {n_cold[name]:5d} {c_other[name]:8.2f} {n_other[name]:5d} "
          f"{c_cold[name] - c_other[name]:6.2f}  {name}")
rest = ranked[args.top:]
if rest:
    print(f"{sum(c_cold[k] for k in rest):10.2f} {sum(n_cold[k] for k in rest):5d} "
          f"{sum(c_other[k] for k in rest):8.2f} {sum(n_other[k] for k in rest):5d} "
          f"{sum(c_cold[k] - c_other[k] for k in rest):6.2f}  ({len(rest)} others)")
by_room = collections.defaultdict(float)
for name in c_cold:
    by_room[".".join(name.split(".")[:2])] += c_cold[name] - c_other[name]
print("\nscenario-free CPU-s by room: " + ", ".join(
    f"{room} {v:.1f}" for room, v in sorted(by_room.items(), key=lambda kv: -kv[1])))
shutil.rmtree(work, ignore_errors=True)
