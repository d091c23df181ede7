"""Shared by the benchmarks: a best-of timer, the Calculon baseline figure, the naive
one-plan-at-a-time construction both benchmarks time against, and the report benchmarks'
"another scenario"."""
import time
from pathlib import Path

import yaml

from llmcost import parallel

# Calculon (calculon-ai/calculon caa4b11): one GPT-3 175B evaluation at a time in a loop on a
# 2-core VM, 4,243 evaluations in 20 s.
CALCULON_EVALS_PER_S_PER_CORE = 212


def best_of(fn, repeat=3):
    """Run ``fn`` ``repeat`` times; return (fastest s, first run s, the last result)."""
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), times[0], out


def make_plan_from_row(model, n_gpus, global_batch, row):
    """The plan of one ``enumerate_plans`` row built the naive way, through ``make_plan`` (which
    derives dp and the micro-batch count and checks every rule), with the row's layer split."""
    return parallel.make_plan(
        model, n_gpus, global_batch, tp=int(row["tp"]), pp=int(row["pp"]), cp=int(row["cp"]),
        ep=int(row["ep"]), virtual_stages=int(row["virtual_stages"]),
        micro_batch_size=int(row["micro_batch_size"]), zero_stage=int(row["zero_stage"]),
        recompute=str(row["recompute"]), schedule=str(row["schedule"]),
        sequence_parallel=bool(row["sequence_parallel"]),
        pp_split=str(row.get("pp_split", "even")))


def other_scenario(scenario: str, folder: Path) -> str:
    """The report benchmarks' "another scenario": ``scenario`` with 3/4 of its training tokens
    and, where its data-parallel degree is left free (``dp`` 0 or absent), half its GPUs,
    written to ``folder``: every result keyed by the scenario changes, its plans too, and the
    scenario-free tables do not."""
    sc = yaml.safe_load(Path(scenario).read_text())
    sc["train_tokens"] = 0.75 * float(sc["train_tokens"])  # PyYAML reads 2.0e12 as a string
    if not sc.get("dp") and int(sc.get("n_gpus", 0)) >= 16:
        sc["n_gpus"] = int(sc["n_gpus"]) // 2
    path = Path(folder) / "other.yaml"
    path.write_text(yaml.safe_dump(sc, sort_keys=False))
    return str(path)
