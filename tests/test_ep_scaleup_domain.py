"""Expert parallelism inside a 72-GPU NVLink domain (GB200 / GB300 NVL72: one NVLink domain of
72 GPUs, NVIDIA GB200 NVL72 product page; data/accelerators.csv scaleup_domain_size 72): the
plan search prices EP groups that do not fill whole domains in equal shares, as the published
Megatron-Bridge 26.08 runs with EP 32 / 64 on 256 GPUs are searched beside plans with TP > 1."""

import numpy as np
import pytest

import llmcost
from llmcost.training import comm, ranking, step_validation

ROWS = ("mb2608-gb300-qwen3-235b-a22b-mxfp8", "mb2608-gb200-qwen3-235b-a22b-mxfp8",
        "mb2608-gb300-deepseek-v3-mxfp8", "mb2608-gb200-deepseek-v3-mxfp8")


def test_even_domain_members_hand_derivation():
    # EP 32 ranks 4 apart (TP 4) span 128 GPUs: 18 in a 72-GPU rack and 14 in the next;
    # the equal-share layout is 2 domains of 16. EP 64 at stride 2: 36 per rack -> 2 x 32.
    # EP 32 at stride 1 sits in one rack (32); 8-GPU HGX nodes divide already (8).
    got = comm.even_domain_members(np.array([32, 64, 32, 64, 16]), np.array([18, 36, 32, 8, 8]))
    assert got.tolist() == [16.0, 32.0, 32.0, 8.0, 8.0]
    # the deduplicating dispatch then prices 2 domains of 16: half of the copies leave the rack
    # (per_expert, k copies over 32 ranks: k·(32 − 16)/32 network, k·15/32 NVLink)
    net, nvl = comm.moe_dispatch_copies(128, 8, 32, 16)
    assert (net, nvl) == pytest.approx((8 * 16 / 32, 8 * 15 / 32))


@pytest.mark.parametrize("run_id", ROWS)
def test_rank_plans_searches_the_published_nvl72_ep(run_id):
    cfg = step_validation.validation_configs().set_index("run_id")
    runs = llmcost.load_published_runs().set_index("run_id")
    c, r = cfg.loc[run_id].copy(), runs.loc[run_id]
    c["run_id"] = run_id
    s, ep = int(r["seq_len"]), int(r["ep"])
    model = step_validation.row_model(c, r, s)
    opts = step_validation.row_options(c)
    cluster = llmcost.Cluster(llmcost.load_accelerator(r["catalog_accelerator"]),
                              int(r["n_accelerators"]))
    ranked = ranking.rank_plans(model, cluster, int(r["global_batch_tokens"]) // s, s,
                                options=opts, stack=opts.stack, pp_split=c["pp_split"], ep=ep)
    assert len(ranked) and (ranked["ep"] == ep).all()
    # plans with TP > 1, whose EP groups straddle two racks, are priced (formerly refused)
    straddle = ranked[ranked["tp"] * ranked["cp"] * ep > 72]
    assert len(straddle) and np.isfinite(straddle["step_time_s"]).all()
    # the published geometry (TP, PP, V, micro-batch) is searched with its recomputation: the
    # search counts memory as the stack stores it (FP8 saved inputs under Transformer Engine,
    # ranking.fitting_plans), so GB200 DeepSeek-V3's selective plan fits the planning margin
    # (counted as Korthikanti et al. write it, only full recomputation was left)
    pub = ranked[(ranked["tp"] == int(r["tp"])) & (ranked["pp"] == int(r["pp"]))
                 & (ranked["virtual_stages"] == int(c["pp_virtual_stages"]))
                 & (ranked["micro_batch_size"] == int(c["micro_batch_size"]))]
    assert len(pub)
    assert c["recompute"] in set(pub["recompute"])
