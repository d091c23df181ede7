"""Predicted vs reported MFU for published Megatron-LM runs (the accuracy of ``llmcost.step``).

Prints, for Narayanan et al. 2021 Table 1 and Korthikanti et al. 2022 Table 5 (the validation
set), Narayanan et al. 2021 Table 2's PTD-P rows (a supplementary check) and Table 2's DeepSpeed
ZeRO-3 rows (outside what the model reproduces): the plan, the reported figure as published,
the reported MFU on the workbook's basis, the predicted MFU and the error, then the mean and
max absolute error per set, and the Llama 3.1 405B out-of-sample check.

Convention: Narayanan et al.'s "% of peak" counts the recomputed forward pass (their Eq. 3,
full recomputation: HFU). It is converted to MFU exactly with the model's FLOP counts
(72-form ÷ 96-form), so the relative error is the same on both bases; the TFLOP/s column is used
(the % column is rounded). Korthikanti et al. report MFU on the workbook's basis.

Constants: the achievable fractions in data/efficiency.csv come from measurements (GEMM,
nccl-tests), papers (FlashAttention) or Calculon's system files, each with its source; the one
calibrated constant, ``step.KERNEL_EFFICIENCY``, is fitted to the per-layer timings of
Korthikanti et al. Table 4 (re-derived below), never to an end-to-end MFU. Korthikanti's 22B row
runs the same layer as Table 4, so it is not held out; the other 13 target rows are. For transparency the script also shows the errors without it (burst rates only)
and what two alternative calibrations (on Table 1 end to end, or on Table 5 end to end) would
give on the other set.
"""

import numpy as np
import pandas as pd

import llmcost
from llmcost import parallel, step

pd.set_option("display.width", 160)
pd.set_option("display.max_colwidth", 60)


def fit_end_to_end(rows: str) -> float:
    """The kernel efficiency minimising the mean |error| of one validation set (for comparison
    only; the shipped constant is fitted to per-layer timings)."""
    grid = np.round(np.arange(0.60, 1.0 + 1e-9, 0.005), 3)
    errs = [step.mfu_validation(float(k), sets=(rows,))["error"].abs().mean() for k in grid]
    return float(grid[int(np.argmin(errs))])


def main():
    k = step.calibrate_kernel_efficiency()
    print(f"1. Calibration: kernel_efficiency fitted to Korthikanti et al. 2022 Table 4 "
          f"(22B layer, 5 settings, forward and backward): {k:.3f} "
          f"(shipped: step.KERNEL_EFFICIENCY = {step.KERNEL_EFFICIENCY})")
    t4 = step.layer_time_table()
    print(t4.round(3).to_string())
    print()
    v = step.mfu_validation(sets=step.VALIDATION_SETS + step.OUTSIDE_SETS)
    cols = ["run_id", "n_gpus", "plan", "reported", "reported_mfu", "predicted_mfu", "error"]
    for j, name in enumerate(step.VALIDATION_SETS + step.OUTSIDE_SETS):
        print(f"2.{j + 1} {name}")
        print(v[v["set"] == name][cols].to_string(index=False, formatters={
            "reported": "{:.1%}".format, "reported_mfu": "{:.1%}".format,
            "predicted_mfu": "{:.1%}".format, "error": "{:+.1%}".format}))
        print()
    summary = step.error_summary(v[v["set"].isin(step.VALIDATION_SETS)])
    print("3. Error summary (absolute relative error on MFU; target: mean <= 5%, max <= 10% on "
          "table1+table5)")
    print(summary.to_string(formatters={c: "{:.1%}".format for c in summary.columns
                                        if c != "rows"}))
    outside = v[v["set"].isin(step.OUTSIDE_SETS)]["error"]
    print(f"   outside the model (DeepSpeed ZeRO-3, 2021): errors {outside.min():+.0%} to "
          f"{outside.max():+.0%}: the model assumes ZeRO-3 gathers run at NCCL's bus bandwidth "
          "and hide behind compute")
    print()
    raw = step.error_summary(step.mfu_validation(1.0, sets=step.VALIDATION_SETS[:2]))
    both = raw.loc["table1+table5"]
    print(f"4. Without the calibrated constant (burst GEMM/attention/HBM rates, "
          f"kernel_efficiency = 1): table1+table5 mean {both['mean_abs_error']:.1%}, "
          f"max {both['max_abs_error']:.1%} (every row over-predicted)")
    for fit_on, test_on in (("megatron21-table1", "korthikanti22-table5"),
                            ("korthikanti22-table5", "megatron21-table1")):
        kk = fit_end_to_end(fit_on)
        e_in = step.mfu_validation(kk, sets=(fit_on,))["error"].abs()
        e_out = step.mfu_validation(kk, sets=(test_on,))["error"].abs()
        print(f"   alternative: fitted end to end on {fit_on}: kernel_efficiency {kk:.3f}; "
              f"in-sample mean {e_in.mean():.1%} max {e_in.max():.1%}; held-out {test_on} "
              f"mean {e_out.mean():.1%} max {e_out.max():.1%}")
    print()
    spec = llmcost.load_model("llama-3.1-405b")
    h100 = llmcost.load_accelerator("H100-SXM")
    plan = parallel.make_plan(spec, 16384, 2048, tp=8, pp=16, zero_stage=2,
                              schedule="interleaved", virtual_stages=8,
                              pp_split="embedding_and_loss", seq_len=8192)
    b = step.step_time(spec, llmcost.Cluster(h100, 16384), plan, 8192)
    print(f"5. Out of sample, another accelerator: Llama 3.1 405B, {plan.describe()}, 16,384 "
          f"H100: predicted MFU {b.mfu:.1%} vs 41% reported (Llama 3 report Table 4): "
          f"{b.mfu / 0.41 - 1:+.1%}")


if __name__ == "__main__":
    main()
