"""What the Megatron-Bridge table tests (tests/test_megatron_bridge_2604_2606.py,
tests/test_megatron_bridge_patch_tables.py) check of every transcribed row: a row of
docs/performance-summary-archive.md, one tuple (run_id, System (DGX-...), #-GPUs, Precision, GBS,
MBS, Sequence Length, TP, PP, CP, VP (0: 'n/a'), EP (0: 'n/a'), Tokens / sec / GPU, Model
TFLOP / sec / GPU), against its rows of data/published_runs.csv and data/validation_mfu.csv."""

import hashlib

import pandas as pd

from llmcost.core.catalog import DATA_DIR


def load_csvs():
    """``(published runs, validation configs)``, each indexed by run_id."""
    runs = pd.read_csv(DATA_DIR / "published_runs.csv").set_index("run_id")
    cfg = pd.read_csv(DATA_DIR / "validation_mfu.csv").set_index("run_id")
    return runs, cfg


def check_table_row(runs, cfg, row, set_name: str, section: str, fsdp_rows,
                    priced_plans=None) -> None:
    """The row's two CSV rows hold the table's figures, plan and precision; its set and
    section; ZeRO-3 exactly for the table's FSDP rows; and the split the notes state
    (md5(run_id) mod 4 == 0: calibration). ``priced_plans``: run_id -> (MBS, VP) for the rows
    priced with their recipe's micro-batch and interleaving instead of the table's (each with
    its sources in the calling test)."""
    rid, system, gpus, precision, gbs, mbs, seq, tp, pp, cp, vp, ep, tokens, tflops = row
    if priced_plans and rid in priced_plans:
        mbs, vp = priced_plans[rid]
    r, c = runs.loc[rid], cfg.loc[rid]
    assert c["set"] == set_name
    assert f"section '{section} NeMo Container'" in r["source"]
    assert f"System: DGX-{system}" in c["notes"]
    assert rid.split("-")[1] == system.lower()
    assert {"MXFP8": "mxfp8", "FP8": "fp8cs", "BF16": "bf16"}[precision] == rid.split("-")[-1]
    assert c["dtype"] == ("bf16" if precision == "BF16" else "fp8")
    assert (int(r["n_accelerators"]), int(r["seq_len"])) == (gpus, seq)
    assert int(r["global_batch_tokens"]) == gbs * seq
    assert int(c["micro_batch_size"]) == mbs
    assert (int(r["tp"]), int(r["pp"]), int(r["cp"])) == (tp, pp, cp)
    assert int(r["dp"]) == gpus // (tp * pp * cp)        # DP = GPUs / (TP x PP x CP)
    assert int(c["pp_virtual_stages"]) == (vp or 1)
    assert (0 if pd.isna(r["ep"]) else int(r["ep"])) == ep
    assert float(r["reported_tokens_per_sec_per_gpu"]) == tokens
    assert float(r["reported_tflops_per_gpu"]) == tflops
    assert int(c["zero_stage"]) == (3 if rid in fsdp_rows else 1)
    cal = int(hashlib.md5(rid.encode()).hexdigest(), 16) % 4 == 0
    assert c["split"] == ("calibration" if cal else "held-out")
