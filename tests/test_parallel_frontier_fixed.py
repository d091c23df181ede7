"""``parallel.scaling_frontier`` holds a scenario's fixed tp (notebook 03 §9 passes the
scenario's fixed fields: a trial's 128k scenario with tp 8 and cp 16 was shown plans without
its CP and with ZeRO stages its stack lacks), and says why a count has no plan when the fixed
tp cannot run there (H100: 8 GPUs per NVLink domain, data/accelerators.csv)."""

from llmcost import load_model
from llmcost.training import parallel


def test_a_fixed_tp_is_held_and_a_count_it_cannot_split_says_why():
    spec = load_model("llama-2-70b")
    f = parallel.scaling_frontier(spec, "H100-SXM", [64, 128], 1024, 4096, tp=(8,))
    assert all(p.startswith("TP8 ") for p in f["best_plan"])
    none = parallel.scaling_frontier(spec, "H100-SXM", [64], 1024, 4096, tp=(16,))
    assert none.loc[64, "n_valid"] == 0
    assert none.loc[64, "best_plan"] == ("no valid plan (the fixed tp 16: no divisor of 64 GPUs "
                                         "at most the 8-GPU scale-up domain)")
