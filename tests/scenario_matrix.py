"""The scenario matrix: a pairwise-covering set of 20 scenarios over the factors a user varies
(accelerator family, dense or MoE, pricing mode, job size, MFU given or predicted, ranges or
not), built greedily and checked for coverage by tests/test_scenario_matrix.py."""

from itertools import combinations, product

#: factor -> levels. Accelerator families name one catalogue accelerator per row, alternating
#: within a family (H100/H200, B200/GB200, TPU v5p/v5e).
FACTORS = {
    "family": ["A100", "H100/H200", "B200/GB200", "MI300X", "TPU"],
    "pricing": ["on_demand", "reserved", "spot", "owned"],
    "arch": ["dense", "moe"],
    "size": ["small", "medium", "large"],
    "mfu": ["given", "predict"],
    "ranges": ["no", "yes"],
}
ACCELERATORS = {"A100": ["A100-80GB"], "H100/H200": ["H100-SXM", "H200"],
                "B200/GB200": ["B200", "GB200-NVL72"], "MI300X": ["MI300X"],
                "TPU": ["TPU v5p", "TPU v5e"]}
#: (arch, size) -> (model, n_gpus, train_tokens, seq_len, global_batch_tokens): 1B on 8 GPUs,
#: 70B-class on 1,024, 405B-class on 16,384 (Llama 3.1 405B's count, arXiv:2407.21783).
JOBS = {
    ("dense", "small"): ("opt-1.3b", 8, 2.6e10, 2048, 1048576),
    ("moe", "small"): ("qwen3-30b-a3b", 8, 3.0e10, 4096, 1048576),
    ("dense", "medium"): ("llama-3.1-70b", 1024, 1.5e12, 8192, 8388608),
    ("moe", "medium"): ("mixtral-8x7b", 1024, 1.0e12, 4096, 4194304),
    ("dense", "large"): ("llama-3.1-405b", 16384, 1.56e13, 8192, 16777216),
    ("moe", "large"): ("deepseek-v3", 16384, 1.48e13, 4096, 62914560),
}


def pairwise_rows() -> list[dict]:
    """Every (family, pricing) pair once (20 rows); the other factors chosen row by row to cover
    the most pairs not yet covered (ties: the first in FACTORS order). Deterministic."""
    names = list(FACTORS)
    rest = names[2:]
    covered, rows = set(), []
    for fam, pr in product(FACTORS["family"], FACTORS["pricing"]):
        best, gain = None, -1
        for combo in product(*(FACTORS[k] for k in rest)):
            row = dict(zip(names, (fam, pr, *combo)))
            new = len(row_pairs(row) - covered)
            if new > gain:
                best, gain = row, new
        covered |= row_pairs(best)
        rows.append(best)
    return _repair(rows)


def _repair(rows: list[dict]) -> list[dict]:
    """Change single free factors of rows to cover the pairs the greedy pass missed, never
    uncovering another pair (a local search; stops when nothing improves)."""
    from collections import Counter

    free = list(FACTORS)[2:]
    improved = True
    while improved:
        count = Counter(p for r in rows for p in row_pairs(r))
        missing = all_pairs() - set(count)
        improved = False
        for i, r in enumerate(rows):
            for k in free:
                for level in FACTORS[k]:
                    new = {**r, k: level}
                    lost = {p for p in row_pairs(r) - row_pairs(new) if count[p] == 1}
                    gained = (row_pairs(new) - row_pairs(r)) & missing
                    if gained and not lost:
                        rows[i], improved = new, True
                        break
                if improved:
                    break
            if improved:
                break
    return rows


def row_pairs(row: dict) -> set:
    return {((a, row[a]), (b, row[b])) for a, b in combinations(FACTORS, 2)}


def all_pairs() -> set:
    return {((a, x), (b, y)) for a, b in combinations(FACTORS, 2)
            for x in FACTORS[a] for y in FACTORS[b]}


def scenario_yaml(i: int, row: dict) -> str:
    """The scenario file of row ``i``."""
    accs = ACCELERATORS[row["family"]]
    acc = accs[i % len(accs)]
    model, n, tokens, seq, gb = JOBS[(row["arch"], row["size"])]
    title = ", ".join(f"{k} {v}" for k, v in row.items())
    lines = [f"title: \"matrix {i}: {title}\"", f"model: {model}", f"accelerator: {acc}",
             f"n_gpus: {n}", f"train_tokens: {tokens:.3e}", f"seq_len: {seq}",
             f"global_batch_tokens: {gb}", f"pricing: {row['pricing']}",
             "dtype: bf16"]
    if row["mfu"] == "predict":
        lines.append("mfu: predict")
    elif row["ranges"] == "yes":
        lines.append("mfu: [0.30, 0.45]")
    else:
        lines.append("mfu: 0.38")
    if row["ranges"] == "yes":
        lines.append("fail_rate_per_gpu_year: {low: 0.1, mode: 0.173, high: 0.4}")
    if row["pricing"] in ("reserved", "spot") and i % 2:
        lines.append("price_usd_per_gpu_hour: 2.5")  # a quote, not the catalogue median
    if row["pricing"] == "spot":  # the user's own pre-emption rate: the workbook has none
        lines.append("ledger_spot_preemptions_per_node_day: 0.1")
    if row["size"] == "small":
        lines.append("rl_gpus: 8\nrl_iterations: 100\nrl_runs: 1")
    if row["size"] == "large":  # a rollout replica must hold the weights (notebook 05)
        lines.append("rl_rollout_tp: 8\nserve_weight_dtype: int4")
    if row["pricing"] == "owned" and acc != "H100-SXM":  # the sourced default is H100's
        lines.append("ledger_owned_usd_per_gpu: 25000")
    return "\n".join(lines) + "\n"


#: The rows the report refuses, and why (each a sourced gap of the catalogue or a set-up that
#: cannot run, not a defect): every other row runs every notebook.
REFUSED = {14: "no spot price for MI300X", 17: "do not fit TPU v5e", 18: "no spot price for TPU",
           19: "TPU v5e' has no tdp_w"}
#: The key each refused row's line names first after the path.
REFUSED_KEY = {14: "price_usd_per_gpu_hour: ", 17: "RL set-up (rl_ keys): ",
               18: "price_usd_per_gpu_hour: ", 19: "accelerator='TPU v5e'"}


def check_row(i: int, folder) -> str:
    """Row ``i`` of the matrix end to end without Jupyter: the report's validation
    (``plan_report``, every notebook selected) refuses it with one line naming a key, or every
    notebook's computations (``llmcost.present.results.notebook_results``) run on the values the
    report would pass. Returns "refused: ..." or "ran"."""
    from pathlib import Path

    from llmcost.bill.scenario import ScenarioError
    from llmcost.present.report import list_notebooks, plan_report, private_keys
    from llmcost.present.results import notebook_results

    path = Path(folder) / f"matrix_{i}.yaml"
    path.write_text(scenario_yaml(i, pairwise_rows()[i]))
    try:
        plan = plan_report(path)
    except ScenarioError as e:
        msg = str(e)
        assert len(msg.splitlines()) == 1 and "Traceback" not in msg, msg
        assert i in REFUSED and REFUSED[i] in msg, msg
        # the line names the refused key first after the file's path (its value or its rule)
        rest = msg.removeprefix(f"{path}: ")
        assert rest != msg and rest.startswith(REFUSED_KEY[i]), msg
        return "refused: " + msg
    assert i not in REFUSED, f"row {i} was expected to be refused ({REFUSED.get(i)})"
    for nb in list_notebooks():
        out = notebook_results(nb.stem, plan.values, private_keys(plan.scenario))
        assert isinstance(out, dict) and out, nb.stem
    return "ran"
