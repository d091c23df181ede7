"""Predicted vs reported MFU for published runs (the accuracy of ``llmcost.step``).

Prints, for every set of data/validation_mfu.csv (Narayanan et al. 2021 Tables 1 and 2, their
DeepSpeed ZeRO-3 rows, Korthikanti et al. 2022 Table 5, Llama 3 Table 4 on H100) and each row's
split (calibration or held-out): the plan, the reported figure as published, the reported MFU on
the workbook's basis, the predicted MFU and the error; then per set and split n, mean and max
absolute error, whether it is in-sample and how far a held-out set is from the goal (mean <= 5%,
max <= 10%); the Llama 3.1 405B check with its band; and the error band of every regime;
item 11, the GEMM-by-shape curve against its kernel table and every regime with it off and on.

Convention: Narayanan et al.'s "% of peak" counts the recomputed forward pass (their Eq. 3,
full recomputation: HFU). It is converted to MFU exactly with the model's FLOP counts
(72-form ÷ 96-form), so the relative error is the same on both bases; the TFLOP/s column is used
(the % column is rounded). Korthikanti et al. report MFU on the workbook's basis.

Constants: the achievable fractions in data/efficiency.csv come from measurements (GEMM,
nccl-tests), papers (FlashAttention) or Calculon's system files, each with its source; the one
calibrated constant, ``step.KERNEL_EFFICIENCY``, is fitted to the per-layer timings of
Korthikanti et al. Table 4 (re-derived below), never to an end-to-end MFU. Korthikanti's 22B row
runs the same layer as Table 4, so it is not held out; the other 23 target rows are (and the 6
DeepSpeed ZeRO-3 rows outside the target). "Held-out" means not used to fit KERNEL_EFFICIENCY:
the constants and pins were written with these rows' errors in view. For transparency the script
also shows the errors without it (burst rates only) and what two alternative calibrations (on
Table 1 end to end, or on Table 5 end to end) would give on the other set.

Basis: every row uses its published TFLOP/s where one is given (Narayanan: TFLOP/s ÷ 312;
Llama 3 Table 4: 430/400/380 TFLOP/s ÷ 989.4 = 43.5/40.4/38.4%, not the rounded 43/41/38%);
Korthikanti's MFU column where no TFLOP/s is published; NeMo AutoModel's tokens/s on the
workbook's full-mask count (its own 389 TFLOP/s, on a causal count, is printed beside it).
Llama 3's virtual stages (v = 8) are an assumption (Table 4 gives no V); item 5 prints v = 4.
NeMo AutoModel's MoE rows (DeepSeek V3, Kimi K2, Qwen3 30B-A3B on H100 with FSDP2, EP and a fake
balanced gate) and DeepSeek-V3's H800 run are priced with the dispatch their code ran (DeepEP /
DeepSeek: one network copy per destination node), the fake gate's locality, FSDP2's
reshard_after_forward and one pipeline schedule per GA step; item 8 records each row's error
before these features and with each one alone.

Item 6 also prints each regime's and bucket's held-out mean / max |error| over the rows without a
calibration twin (``step_validation.calibration_twins``: the split is by row, and Megatron-Bridge
re-measures the same configuration at each release) and over the rows whose plan was not corrected
after their error was seen (``step_validation.PLAN_CORRECTED_AFTER_ERROR``), beside all rows.

Item 17 (long context, > 32K) prints the attention rate each published run implies (a floor:
every other FLOP at its GEMMs' dense peak, ``attention.attention_rate_floor``) beside the kernel's
measured rate (FlashAttention-3 paper curves on H100; FlashAttention-2 paper Fig. 4(c) on A100)
and the rate the engine prices; each row's step-time parts against its published step time,
with the attention time the published step leaves once the engine's other terms are taken off,
and that time split between the ring's causal and non-causal calls per CP family
(``attention.ring_time_split``, a reading); each row as its source publishes it (figure, unit, FLOP count)
beside the plan priced (``long_context_audit_table``); llm-foundry's errors by activation
checkpointing and length; and NeMo's long-sequence FLOP count (full mask) with the floor a causal
count would need and the table's own FLOPs per token (its TFLOP/s / its tokens/s).

Item 18 prints FSDP2's copies around its collectives (the gathered weights' copy-out, the
gradients' copy-in: ``step.fsdp_copies_s``) regime by regime, without and with them, the
default-on rule's verdict and the buckets.

Item 20 prints a context-parallel ring's calls without a mask priced at the kernel's unmasked
rate (``StepOptions.ring_unmasked``: NVIDIA's measured causal / unmasked ratio) against every
ring call at the causal rate, regime by regime on both splits, with the rule's verdict, the long
rows that move and the buckets.

Item 21 prints PyTorch's context-parallel ring compiled (``StepOptions.cp_ring_compiled``: the
torchtitan CP rows' blocks traced by ``torch.compile``, every exchange of the ring exposed)
against the eager ring's overlap, regime by regime on both splits, with the rule's verdict, the
rows that move and the buckets.

Item 22 prints a full recomputation stopped before each block's last GEMM
(``StepOptions.recompute_early_stop``: PyTorch 2.1's non-reentrant checkpoint, as llm-foundry's
MPT tables ran it), a candidate off by default, against the shipped whole re-run, regime by
regime on both splits, with the rule's verdict, llm-foundry's errors by checkpointing and length
both ways, the rows that move and the buckets.

Item 23 prints the worst MoE/FP8 rows (Qwen3-30B-A3B): the FP8 recipe each 'fp8' row ran, the
grouped MLP's explicit FP8 padding as a reading (``moe_layer.fp8_padding_cost_s``), and FP8
current scaling's extra quantize launches on eager layers only, a candidate off by default,
with the rule's verdict.

Item 24 prints the H100 Qwen3-30B-A3B FP8 recipe release by release (25.11, 26.02 priced too fast;
26.02.01, 26.04, 26.06 priced within 10 %): every setting, the values that differ, the field the
engine prices it with and whether each row is priced with the recipe's value
(``step_validation.h100_qwen3_recipe_table``), the settings alike at every release, and each
row's error and unexplained time per MoE layer per micro-batch (``moe_gpu_gap``), and the 26.02 row
priced one recipe setting at a time toward 26.02.01's recipe (``MB2602_TO_260201_READINGS``).

Item 25 prints the FlashAttention-1 stack's attention rate by sequence length
(``StepOptions.fa1_length``: the flat fraction scaled as FlashAttention-1's measured bars at
the row's head dimension rise with length, anchored at a length fitted on the calibration rows),
on by default, flat -> curve regime by regime on both splits, with the rule's verdict,
llm-foundry's errors by checkpointing and length, the long rows that move and the buckets.

Item 26 prints the copies that remove and restore the padding around llm-foundry's
variable-length FlashAttention call (``StepOptions.attention_unpad``,
``elementwise.unpadded_attention_bytes``), where the rows' code makes them, against no row's,
regime by regime on both splits, with the rule's verdict, the rows that move and the buckets.

"""

import numpy as np
import pandas as pd

import llmcost
from llmcost import accuracy, parallel, step
from llmcost.core.catalog import (DATA_DIR, load_accelerator, load_efficiency, load_gemm_mamf,
                                   load_published_runs)
from llmcost.core.stacks import load_stack
from llmcost.training import (attention, elementwise, gemm, memory, moe_layer, options, ranking,
                              step_validation)

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
    cols = ["run_id", "split", "n_gpus", "plan", "reported", "reported_mfu", "predicted_mfu",
            "error"]
    fmt = {"reported": "{:.1%}".format, "reported_mfu": "{:.1%}".format,
           "predicted_mfu": "{:.1%}".format, "error": "{:+.1%}".format}
    for j, name in enumerate(step.VALIDATION_SETS + step.OUTSIDE_SETS):
        g = v[v["set"] == name]
        print(f"2.{j + 1} {name} ({g['generation'].iloc[0]})")
        print(g[cols].to_string(index=False, formatters=fmt))
        if name == "llama3-table4":
            for _, r in g.iterrows():
                print(f"   {r['run_id']}: if Meta counted a causal mask, the published MFU on the "
                      f"workbook's basis would be {r['causal_basis_mfu']:.1%}, error "
                      f"{r['predicted_mfu'] / r['causal_basis_mfu'] - 1:+.1%}")
        print()
    # in the file, out of every figure below
    for _, r in step_validation.excluded_configs().iterrows():
        print(f"   left out of every statistic and fit: {r['run_id']} ({r['split']}): "
              f"{r['excluded']}")
    print()
    summary = step.set_summary(v)
    print(f"3. Per set and split (calibration set of the one fitted constant: "
          f"{step.CALIBRATION_SET}; absolute relative error on MFU; goal on every held-out set: "
          "mean <= 5%, max <= 10%)")
    print(summary.to_string(formatters={
        "mean_abs_error": "{:.1%}".format, "max_abs_error": "{:.1%}".format,
        "mean_signed_error": "{:+.1%}".format,
        "mean_over_goal": lambda x: "" if x != x else ("met" if x == 0 else f"+{x:.1%} over"),
        "max_over_goal": lambda x: "" if x != x else ("met" if x == 0 else f"+{x:.1%} over")}))
    main = step.error_summary(v[v["set"].isin(step.VALIDATION_SETS[:2])]).loc["table1+table5"]
    print(f"   Table 1 + Table 5 together (the first target): n {int(main['rows'])}, mean "
          f"{main['mean_abs_error']:.1%}, max {main['max_abs_error']:.1%}")
    z3 = v[v["set"] == "megatron21-table2-zero3"].set_index("run_id")
    for size, runs in (("175B (calibration of fsdp_nic_aggregation)", ("175b-384", "175b-768",
                                                                      "175b-1536")),
                       ("530B (held out)", ("530b-640", "530b-1120", "530b-2240"))):
        r = z3.loc[[f"megatron21-t2-zero3-{x}" for x in runs]]
        print(f"   ZeRO-3 fall, {size}: GPUs {' -> '.join(f'{n:,}' for n in r['n_gpus'])}: "
              f"published MFU {' -> '.join(f'{x:.1%}' for x in r['reported_mfu'])}, predicted "
              f"{' -> '.join(f'{x:.1%}' for x in r['predicted_mfu'])}")
    alt = step.mfu_validation(sets=("megatron21-table2-zero3",))
    print("   (for the record, the same rows with the rings aggregating the node's NICs, as "
          "NCCL does for nccl-tests: errors", end=" ")
    errs = [zero3_with_nic_aggregation(rid) / rep - 1 for rid, rep in
            zip(alt["run_id"], alt["reported_mfu"])]
    print(", ".join(f"{e:+.0%}" for e in errs) + ")")
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
    # a Megatron-Core profile with ZeRO-2 (Megatron-FSDP's optim_grads), as the Llama 3.1 405B
    # scenario: Megatron-Core 2024's distributed optimizer is ZeRO-1
    b = step.step_time(spec, llmcost.Cluster(h100, 16384), plan, 8192, stack="megatron-core-2025")
    published = 400e12 / h100.peak_flops_per_s("bf16")   # Table 4: 400 TFLOP/s per GPU
    band = accuracy.band_for_step(b, plan, spec, "H100-SXM", exclude_run="llama3-405b")
    print(f"5. Leave-one-out, another accelerator: Llama 3.1 405B, {plan.describe()}, 16,384 "
          f"H100: predicted MFU {band.describe()} vs {published:.1%} published (Llama 3 Table "
          f"4, 400 TFLOP/s ÷ 989.4): {b.mfu / published - 1:+.1%}. The band leaves this row "
          "out of its regime; not a blind test (the constants were set with it in view).")
    for w in band.warnings:
        print(f"   warning: {w}")
    print("   Virtual stages are an assumption (Llama 3 §3.3.2: 'an interleaved schedule with V "
          "pipeline stages on one pipeline rank'; Table 4 gives no V). Sensitivity, v = 8 vs 4:")
    for run in ("llama3-t4-405b-8192gpu", "llama3-405b", "llama3-t4-405b-128k"):
        r = v[v["run_id"] == run].iloc[0]
        same = llama3_with_virtual_stages(run, 8)
        assert abs(same - r["predicted_mfu"]) < 1e-9 * r["predicted_mfu"], (run, same)
        alt = llama3_with_virtual_stages(run, 4)
        print(f"   {run:24s} v = 8: {r['error']:+.1%}   v = 4: {alt / r['reported_mfu'] - 1:+.1%}")
    print()
    regime_report()
    nemo = v[v["run_id"] == "nemo-automodel-llama3-70b-h100"].iloc[0]
    print(f"   NeMo AutoModel 70B: published 389 TFLOP/s = {nemo['reported']:.1%} of peak on "
          f"NeMo's causal count; {nemo['reported_mfu']:.1%} on the workbook's full-mask count "
          "(the error's basis)")
    print()
    h100_kernel_efficiency()
    print()
    moe_feature_record()
    print()
    straggler_effect()
    print()
    newer_sets()
    print()
    gemm_shape_report()
    print()
    moe_host_report()
    print()
    memory_report()
    print()
    cp_and_device_report()
    print()
    fp8_accumulation_report()
    print()
    flash_curve_report()
    print()
    long_context_kernel_report()
    print()
    blackwell_attention_report()
    fsdp_copies_report()
    ring_unmasked_report()
    ring_compiled_report()
    early_stop_report()
    print()
    fp8_padding_report()
    print()
    recipe_settings_report()
    print()
    fa1_length_report()
    print()
    attention_unpad_report()


def ring_unmasked_report():
    """Item 20: a context-parallel ring's non-causal calls at the kernel's unmasked rate
    (``accuracy.ring_unmasked_comparison``: every ring call at the causal rate against the
    shipped setting) regime by regime on both splits, the rule's verdict, the long rows that
    move and the buckets. Added after the held-out NeMo long-sequence rows were seen
    pessimistic, growing with CP; nothing is fitted."""
    shares = [f"CP {cp}: {1 / cp:.3f} causal" for cp in (2, 4, 8, 16, 32)]
    u = {k: float(attention.ring_unmasked_factors(k, 32768.0, 8)[0]) for k in
         ("cudnn", "fa2")}
    print("20. A context-parallel ring's calls without a mask at the kernel's unmasked rate "
          "(ring_unmasked: step 0 causal, the other cp - 1 calls unmasked, Transformer Engine "
          "v1.4 AttnFuncWithCP and PyTorch's _templated_ring_attention; the causal / unmasked "
          "rate ratio as NVIDIA measured the kernel, cuDNN 9.1 and SDPA's FlashAttention-2, "
          "4k-64k, cudnn-frontend @ b740542); shares of a rank's FLOPs "
          + ", ".join(shares) + "; at 32k per rank, CP 8, the ring's time per unit of the causal "
          f"rate: cuDNN {u['cudnn']:.3f}, FlashAttention-2 {u['fa2']:.3f}. Mean |error| per "
          "regime that moves, every call causal -> shipped:")
    print_comparison(accuracy.ring_unmasked_comparison)
    tables = {"causal": accuracy.validation_table(ring_unmasked=False),
              "shipped": accuracy.validation_table()}
    off, on, moved = moved_rows(tables, long_only=True)
    print("   the long rows that move: " + row_moves(off, on, moved))
    print_buckets(tables, width=8)


def ring_compiled_report():
    """Item 21: PyTorch's context-parallel ring traced by ``torch.compile``, its exchanges
    exposed (``accuracy.ring_compiled_comparison``: every ring eager, overlapped, against the
    shipped setting, where the rows of ``step_validation.CP_COMPILED_SETS`` compile) regime by
    regime on both splits, the rule's verdict, the rows that move and the buckets. Added after
    the torchtitan CP 4 / CP 8 rows were seen optimistic; nothing is fitted."""
    print("21. PyTorch's context-parallel ring compiled (cp_ring_compiled: torchtitan's 2024-12 "
          "CP table is 'FSDP + CP + torch.compile + Float8'; a traced functional collective "
          "waits where it is issued, pytorch/pytorch@fff02e67db38 torch/distributed/"
          "_functional_collectives.py, and Inductor's reorder_for_compute_comm_overlap is False "
          "by default, @ a112bb81b880 torch/_inductor/config.py): the K/V all-gather and every "
          "dK/dV send exposed. Mean |error| per regime that moves, eager (overlapped) -> "
          "shipped:")
    print_comparison(accuracy.ring_compiled_comparison)
    tables = {"eager": accuracy.validation_table(cp_ring_compiled=False),
              "shipped": accuracy.validation_table()}
    off, on, moved = moved_rows(tables)
    print("   the rows that move: " + row_moves(off, on, moved))
    print_buckets(tables, width=8)


def early_stop_report():
    """Item 22: a full recomputation stopped before each block's last GEMM
    (``StepOptions.recompute_early_stop``: PyTorch 2.1's non-reentrant checkpoint, as
    llm-foundry's MPT tables ran it; ``accuracy.early_stop_comparison``: the shipped whole
    re-run against the candidate on those rows) regime by regime on both splits, the rule's
    verdict, llm-foundry's errors by checkpointing and length both ways, the rows that move and
    the buckets. Read after the checkpointed rows were seen ~20 points below the others; nothing
    is fitted."""
    print("22. Full recomputation stopped early (recompute_early_stop, a candidate: llm-foundry's "
          "MPT yamls set activation_checkpointing_reentrant: false (b2a43a147, 5e85bd62d), "
          "Composer v0.16.4 wraps each MPTBlock in checkpoint_wrapper(CheckpointImpl."
          "NO_REENTRANT), on PyTorch 2.1 (sweep.sh's image mosaicml/pytorch:2.1.0_cu121; "
          "setup.py torch>=2.1,<2.1.1 at 5e85bd62d), whose non-reentrant checkpoint 'stops "
          "recomputation as soon as all needed intermediate activations have been recomputed' "
          "(on by default since pytorch/pytorch PR 96866): the re-run ends before the block's "
          "last GEMM, the FFN's down projection; not the A100 70B rows, run in 2023-05 on "
          "PyTorch 1.13). Mean |error| per regime that moves, shipped (whole forward re-run) "
          "-> early stop:")
    print_comparison(accuracy.early_stop_comparison)
    tables = {"shipped": accuracy.validation_table(),
              "early": accuracy.validation_table(recompute_early_stop=True)}
    foundry_checkpointing_table(tables["shipped"], ", shipped")
    foundry_checkpointing_table(tables["early"], ", early stop")
    off, on, moved = moved_rows(tables)
    worst = sorted(moved, key=lambda r: -abs(on.loc[r, "error"]))[:6]
    print(f"   rows that move: {len(moved)}; the largest after: " + row_moves(off, on, worst))
    print_buckets(tables, width=8)


def attention_unpad_report():
    """Item 26: the copies around llm-foundry's variable-length FlashAttention call
    (``StepOptions.attention_unpad``, ``elementwise.unpadded_attention_bytes``;
    ``accuracy.attention_unpad_comparison``: no row's copies against the rows whose code makes
    them) regime by regime on both splits, the rule's verdict, the rows that move and the
    buckets. Read after the held-out llm-foundry 2024-01 rows were seen optimistic (1B, 3B and
    7B +19 % to +28 %, 70B +2 % to +4 %); nothing is fitted."""
    f, b = elementwise.unpadded_attention_bytes(1.0, 1.0, 1.0, 1.0)
    print("26. FlashAttention unpadded and padded again (attention_unpad: llm-foundry@5e85bd62d "
          "flash_attn_fn calls flash_attn's bert_padding.unpad_input on Q, K and V, an all-ones "
          "mask when none is given, then flash_attn_varlen_func, then pad_input; flash-attn "
          "v2.4.2: gathers whose backward zeroes and scatters, an index-put whose backward "
          f"gathers): {f:.0f} B forward, {b:.0f} B backward per token per model width "
          "(multi-head); the 2024-01 sweep's --attn_impl flash rows. Mean |error| per regime "
          "that moves, without -> with:")
    print_comparison(accuracy.attention_unpad_comparison)
    tables = {"without": accuracy.validation_table_without_unpad(),
              "with": accuracy.validation_table()}
    off, on, moved = moved_rows(tables)
    print(f"   the {len(moved)} rows that move (error = predicted / published MFU - 1): "
          + row_moves(off, on, moved))
    held = on.loc[moved][on.loc[moved, "split"] == "held-out"]["error"]
    gap = (off.loc[held.index, "error"] - held)
    print(f"   after it the held-out rows that move stay {held.min():+.1%} to {held.max():+.1%}: "
          f"the copies take {100 * gap.min():.1f} to {100 * gap.max():.1f} points off their "
          "errors, not the rest of their optimism")
    print_buckets(tables, width=8)


def blackwell_attention_report():
    """Item 18: Blackwell's attention core at cuDNN's measured rates
    (``StepOptions.attention_blackwell``, ``attention.blackwell_curve``: NVIDIA/cudnn-frontend's
    GB200 / GB300 measurement) against the flat ``attention_fraction``, regime by regime on the
    held-out and on the calibration rows, with the default-on rule's verdict; the kernel table
    beside its flat-fraction price; the gpt-oss rows' attention before and after. Added after the
    held-out gpt-oss rows' errors were seen; no constant is fitted to a training run."""
    d = attention.load_blackwell_benchmarks()
    flat = load_efficiency("GB200-NVL72").attention_fraction
    at4k = d[(d.seq_len == 4096) & (d.accelerator == "GB200-NVL72")]
    def label(r):
        w = f" {int(r['window'])}" if r["mask"] == "window" else ""
        dt = "" if r["dtype"] == "bf16" else f" {r['dtype']}"
        return f"{r['mask']}{w} d {int(r['head_dim_qk'])}{dt} {r['pass']}"

    words = "; ".join(f"{label(r)} {r['tflops_engine']:.0f}" for _, r in at4k.iterrows())
    print(f"18. Blackwell's attention at cuDNN's measured rates (NVIDIA/cudnn-frontend "
          f"sdpa_benchmark_training results @ fb682ce7, cuDNN 9.22, BF16 and MXFP8, and @ "
          f"df73764, cuDNN 9.19, gpt-oss's head-64 1,024-token band; {len(d)} points, GB200 "
          f"and GB300, 2k-32k tokens) instead of the flat fraction {flat:.2f} of the BF16 peak "
          f"(a judgement carried from H100; GB200 {flat * 2500:.0f} TFLOP/s burst). GB200 at 4k "
          f"tokens, TFLOP/s on the engine's basis: {words}")
    for split in ("held-out", "calibration"):
        per_regime, verdict = accuracy.attention_blackwell_comparison(split)
        print(f"   {split} rows, mean |error| per regime that moves, flat -> measured (each "
              "row's attention dtype as its recipe ran):")
        print_moved(per_regime)
        print(f"   all {split} rows {verdict['all_mean'][0]:.2%} -> {verdict['all_mean'][1]:.2%};"
              f" Blackwell rows {verdict['blackwell_mean'][0]:.1%} -> "
              f"{verdict['blackwell_mean'][1]:.1%}; worse beyond noise in {verdict['worse']} "
              f"regime(s); A100 Megatron mean {verdict['a100_megatron_mean']:.1%}, max "
              f"{verdict['a100_megatron_max']:.1%}; passes the rule: "
              f"{'yes' if verdict['passes'] else 'no'}")
    for split in ("held-out", "calibration"):
        per_regime, verdict = accuracy.fp8_attention_comparison(split)
        print(f"   the attention core in MXFP8 where the recipes ran it "
              f"(fp8_dot_product_attention, step_validation.FP8_ATTENTION_OF_ROW: "
              f"{len(step_validation.FP8_ATTENTION_OF_ROW)} rows), {split} rows, BF16 -> MXFP8:")
        print_moved(per_regime)
        print(f"   all {split} rows {verdict['all_mean'][0]:.2%} -> {verdict['all_mean'][1]:.2%};"
              f" Blackwell rows {verdict['blackwell_mean'][0]:.1%} -> "
              f"{verdict['blackwell_mean'][1]:.1%}; worse beyond noise in {verdict['worse']} "
              f"regime(s); passes the rule: {'yes' if verdict['passes'] else 'no'}")
    flat = accuracy.validation_table(attention_blackwell=False).set_index("run_id")
    bf16 = accuracy.validation_table(fp8_attention=False).set_index("run_id")
    on = accuracy.validation_table().set_index("run_id")
    oss = [r for r in on.index if "gpt-oss" in r and on.loc[r, "gpu_generation"] == "Blackwell"]
    print("   gpt-oss 120B rows (a 128-token window on 18 of 36 layers, head dimension 64): "
          "attention s per step and error, flat -> measured BF16 -> as run: " + "; ".join(
              f"{r} {flat.loc[r, 'attention_s']:.2f} -> {bf16.loc[r, 'attention_s']:.2f} -> "
              f"{on.loc[r, 'attention_s']:.2f} s, {flat.loc[r, 'error']:+.1%} -> "
              f"{bf16.loc[r, 'error']:+.1%} -> {on.loc[r, 'error']:+.1%}" for r in oss))


def fsdp_copies_report():
    """Item 19: FSDP2's copies around its collectives (``accuracy.
    fsdp_copies_comparison``: every row without it against each row's own, on the FSDP2
    stacks) regime by regime, with the default-on rule's verdict and the buckets. Added after
    the held-out torchtitan rows were seen optimistic; nothing is fitted."""
    per_regime, verdict = accuracy.fsdp_copies_comparison()
    print(f"19. FSDP2's copies, serial with compute: each all-gathered layer copied out "
          f"({step.FSDP_COPY_OUT_BYTES:.0f} bytes per parameter per gather; "
          "FSDPParamGroup.wait_for_unshard -> foreach_all_gather_copy_out) and its gradients "
          "copied into the reduce-scatter input in the reduce dtype (2 + 4 bytes: "
          "foreach_reduce_scatter_copy_in); FSDP1 and DeepSpeed gather in place. Held-out mean "
          "|error| per regime that moves, without -> with:")
    print_moved(per_regime)
    print_verdict("held-out", verdict)
    print_buckets({"without": accuracy.validation_table(fsdp_copies=False),
                   "with": accuracy.validation_table()}, width=7)


def flash_curve_report():
    """Item 16: the attention curve on the FlashAttention stacks (``attention_curve="flash"``,
    the shipped setting; ``accuracy.flash_curve_comparison``: against the flat fraction on
    every stack) regime by regime, the default-on rule's verdict on the calibration rows (the
    fit set) and on the held-out rows, the curve on every stack (``full_curve_comparison``),
    the sourced DeepSeek-V3 bound under each, and the buckets of newer regimes. Split from
    ``attention_curve=True`` after its held-out errors were seen."""
    print("16. The attention kernel's curve on the FlashAttention stacks (attention_curve="
          "'flash', on by default: FlashAttention-2/-3 by sequence length, FlashAttention-3 "
          "paper's H100 bars, checked to 64K on NVIDIA's measurement; the Transformer Engine "
          "stacks, and a stack whose kernel is its own, keep the flat fraction), mean |error| "
          "per regime that moves, flat fraction everywhere -> shipped:")
    print_comparison(accuracy.flash_curve_comparison)
    per_regime, verdict = accuracy.full_curve_comparison("held-out")
    print("   the curve on every stack (attention_curve=True: cuDNN's curve on the Transformer "
          "Engine stacks, stock FlashAttention-2's on DeepSeek's), shipped -> with it:")
    print_moved(per_regime)
    print_verdict("held-out", verdict)
    tables = {"flat": accuracy.validation_table(attention_curve=False),
              "shipped": accuracy.validation_table(),
              "every stack": accuracy.validation_table(attention_curve=True)}
    ds = {k: t.set_index("run_id").loc["deepseek-v3-pretrain"] for k, t in tables.items()}
    print("   DeepSeek-V3's H800 row (its stack's modified FlashAttention-2 has no published "
          "rate: attention.UNMEASURED_KERNEL_STACKS, a rule written after this row's move was "
          f"seen) must predict at least its whole-run average, "
          f"{ds['shipped']['reported_mfu']:.1%} (tests/test_step.py, sourced): predicted "
          + "; ".join(f"{k} {d['predicted_mfu']:.1%} ({d['error']:+.1%})" for k, d in ds.items()))
    print_buckets({k: tables[k] for k in ("flat", "shipped")}, width=8)


def _kernel_label(stack) -> str:
    """The attention kernel a validation row's stack runs, as the engine reads it."""
    kernel = attention.stack_kernel(stack.flash_attention, stack.name)
    return kernel or ("fa1" if str(stack.flash_attention) == "1" else "none")


def _measured_fwd_bwd(accelerator: str, kernel: str, head_dim, s_rank) -> float:
    """The kernel's measured forward + backward rate (causal mask) at the rank's sequence
    length, as a fraction of the device's dense BF16 peak: the FlashAttention-3 paper's H100
    curves (``attention.kernel_curve``, burst), FlashAttention-1's bars of the FlashAttention-2
    paper at the nearer of head dimension 64 and 128 (A100: ``attention.A100_FWD_BWD_CAUSAL_HD64``
    / ``_HD128``; H100: ``attention.H100_FWD_BWD_CAUSAL_HD64`` / ``_HD128``), the
    longest measured length at most the rank's; NaN where none was read."""
    curve = attention.kernel_curve(accelerator, kernel) if kernel in attention.KERNELS else None
    if curve is not None:
        f_f, f_b = curve.fractions(s_rank, head_dim, causal=True)
        return float(3.5 / (1.0 / f_f + 2.5 / f_b))
    panels = {("A100", 64): attention.A100_FWD_BWD_CAUSAL_HD64,
              ("A100", 128): attention.A100_FWD_BWD_CAUSAL_HD128,
              ("H100", 64): attention.H100_FWD_BWD_CAUSAL_HD64,
              ("H100", 128): attention.H100_FWD_BWD_CAUSAL_HD128}
    device = "A100" if accelerator.startswith("A100") else \
        "H100" if attention.ATTENTION_FAMILY.get(accelerator) == "H100-SXM" else None
    bars = panels.get((device, 64 if float(head_dim) < 90.5 else 128), {}).get(kernel)
    if bars is None:
        return float("nan")
    s = max([k for k in bars if k <= s_rank] or [min(bars)])
    return bars[s] * 1e12 / llmcost.load_accelerator(accelerator).peak_flops_per_s("bf16")


def long_context_rows() -> pd.DataFrame:
    """Item 17's table: every validation row over 32K tokens with the attention rate its published
    throughput implies (``attention.attention_rate_floor``: the other FLOPs at the dense peak of
    the row's GEMM dtype, tokens/s from ``reported_mfu``, the workbook's full-mask basis), the
    kernel's measured rate and the rate the engine prices (sustained, flat or curve), each a
    fraction of the dense BF16 peak."""
    from llmcost.core.catalog import load_published_runs
    from llmcost.core.stacks import DEFAULT_STACK, load_stack
    v = accuracy.validation_table()
    v = v[v["seq_len"] > 32768]
    cfg = step_validation.validation_configs().set_index("run_id", drop=False)
    runs = load_published_runs().set_index("run_id")
    rows = []
    for _, r in v.iterrows():
        c, pr = cfg.loc[r["run_id"]], runs.loc[r["run_id"]]
        s = int(r["seq_len"])
        model = step_validation.row_model(c, pr, s)
        plan = step_validation.row_plan(c, pr, model, s)
        acc = llmcost.load_accelerator(r["accelerator"])
        peak16 = acc.peak_flops_per_s("bf16")
        opts = step_validation.row_options(c)
        stack = load_stack(opts.stack or DEFAULT_STACK)
        kernel = _kernel_label(stack)
        resolved = opts.resolve(acc.name)
        tokens = r["reported_mfu"] * peak16 / float(model.flops_per_token(s, causal=False))
        floor = float(attention.attention_rate_floor(
            model, s, tokens, acc.peak_flops_per_s(opts.dtype), plan.recompute)) / peak16
        engine = resolved.keff.attention_fraction if resolved.attention_kernel is None else \
            float(3.5 / sum(w / f for w, f in zip((1.0, 2.5), resolved.attention_kernel.fractions(
                s / plan.cp, model.d_qk, causal=True))))
        rows.append({"run_id": r["run_id"], "split": r["split"], "kernel": kernel,
                     "accelerator": acc.name, "head_dim": model.d_qk, "s_rank": s // plan.cp,
                     "recompute": plan.recompute, "floor": floor,
                     "measured": _measured_fwd_bwd(acc.name, kernel, model.d_qk, s / plan.cp),
                     "engine": engine, "error": r["error"]})
    return pd.DataFrame(rows)


def long_context_kernel_report():
    """Item 17: what the attention kernels of the long-context rows reach (``long_context_rows``),
    the llm-foundry rows' error by activation checkpointing and length, and NeMo's FLOP count."""
    t = long_context_rows()
    print("17. Long context (> 32K): the attention rate each published run implies (a floor: every "
          "other FLOP at the dense peak of the row's GEMM dtype, nothing else taking time; "
          "attention FLOPs on the FlashAttention basis, causal, backward 2.5 x forward, + 1 x "
          "forward recomputed), the kernel's measured forward + backward rate at the rank's "
          "length (H100: FlashAttention-3 paper curves, burst; FlashAttention-1: FlashAttention-2 "
          "paper Fig. 4(c)/(d) on A100, Fig. 7(c)/(d) on H100, head dim 64/128, up to "
          "16K) and the engine's "
          "sustained rate, fractions of the dense BF16 peak:")
    print(f"   {'run_id':40s} {'split':11s} {'kernel':6s} {'hd':>4s} {'s/cp':>7s} {'AC':>9s} "
          f"{'floor':>6s} {'measured':>8s} {'engine':>6s} {'error':>7s}")
    for _, r in t.iterrows():
        meas = "     —  " if np.isnan(r["measured"]) else f"{r['measured']:8.3f}"
        print(f"   {r['run_id']:40s} {r['split']:11s} {r['kernel']:6s} {int(r['head_dim']):4d} "
              f"{int(r['s_rank']):7d} {r['recompute']:>9s} {r['floor']:6.3f} {meas} "
              f"{r['engine']:6.3f} {r['error']:+7.1%}")
    under = t[t["floor"] > t["engine"]]
    print(f"   the engine's sustained rate is below the floor on {len(under)} of {len(t)} rows "
          f"(errors {under['error'].min():+.1%} to {under['error'].max():+.1%}); "
          "a floor above measured x KERNEL_EFFICIENCY "
          f"({options.KERNEL_EFFICIENCY}) on "
          f"{int((t['floor'] > t['measured'] * options.KERNEL_EFFICIENCY).sum())} rows, above "
          f"the measured burst rate itself on {int((t['floor'] > t['measured']).sum())} (no "
          "measured rate of the row's kernel reaches them)")
    long_context_time_report()
    long_context_audit_table()
    foundry_checkpointing_table()
    nemo_flop_count_note()


#: The engine's time parts printed per long-context row (``step_validation.mfu_validation``
#: columns), in the order of the print.
TIME_PARTS = ("matmul_s", "attention_s", "recompute_s", "memory_bound_s", "cp_comm_s",
              "tp_comm_s", "dp_comm_s", "pipeline_bubble_s", "straggler_s")


def long_context_time_parts(ring_unmasked: bool | None = None) -> pd.DataFrame:
    """Item 17's breakdown: per row over 32K the engine's step time and its parts (seconds,
    ``TIME_PARTS``; the rest, pp and optimizer terms, in ``other_s``) beside the published step
    time (the engine's step × predicted / published MFU: the same FLOPs), and ``implied_attn``:
    the published step less every non-attention part, over the engine's attention time (1: the
    engine's attention rate is what the run implies, given its other terms). ``ring_unmasked``:
    ``accuracy.validation_table``'s (None: shipped; False: every ring call at the causal rate,
    the one-rate basis ``attention.ring_time_split`` reads)."""
    v = accuracy.validation_table(ring_unmasked=ring_unmasked)
    t = v[v["seq_len"] > 32768].set_index("run_id")
    out = t[["split", "cp"] + list(TIME_PARTS)].copy()
    out.insert(2, "step_s", t["step_time_s"])
    out.insert(3, "published_s", t["step_time_s"] * t["predicted_mfu"] / t["reported_mfu"])
    out["other_s"] = t["step_time_s"] - t[list(TIME_PARTS)].sum(axis=1)
    rest = out["step_s"] - out["attention_s"]
    out["implied_attn"] = (out["published_s"] - rest) / out["attention_s"]
    out["error"] = t["error"]
    return out


def ring_split_report(parts: pd.DataFrame) -> None:
    """Item 17's ring reading: per CP family (same model, one stack, CP >= 2) the least-squares
    split of the implied attention time into the causal call's and the non-causal calls' shares
    (``attention.ring_time_split``, all splits: a reading, no constant is taken from it),
    beside the kernel's measured non-causal / causal forward + backward rate at the rank's
    length (``attention.fwd_bwd_tflops``, H100, head dimension 128). ``parts``: the engine with
    every ring call at one (the causal) rate, ``long_context_time_parts(ring_unmasked=False)``;
    the engine as shipped prices the unmasked calls so (``StepOptions.ring_unmasked``, item
    20)."""
    fams = (("NeMo 24.03, Transformer Engine ring (cudnn)", "nemo2403-h100-llama2-7b-", "cudnn"),
            ("torchtitan, PyTorch ring (fa2)", "torchtitan-h100-8b-8gpu-2-", "fa2"))
    for name, prefix, kernel in fams:
        g = parts[parts.index.str.startswith(prefix) & (parts["cp"] >= 2)]
        t_c, t_n = attention.ring_time_split(g["implied_attn"], g["cp"])
        s_rank = 32768.0
        curve = float(attention.fwd_bwd_tflops(kernel, False, 128, s_rank)
                      / attention.fwd_bwd_tflops(kernel, True, 128, s_rank))
        nvidia = [1.0 / float(attention.mask_rate_ratio(kernel, p, s_rank))
                  for p in ("forward", "backward")]
        print(f"   {name}: CP {', '.join(str(int(c)) for c in g['cp'])}; implied attention "
              f"time per unit of the engine's = {t_c:.2f} x causal share + {t_n:.2f} x "
              f"non-causal share: non-causal calls {t_c / t_n:.2f}x the causal call's rate; "
              f"the kernel's curves give {curve:.2f}x at {int(s_rank):,} tokens (the rows' "
              f"s/cp), NVIDIA's measurement {nvidia[0]:.2f}x forward, {nvidia[1]:.2f}x "
              "backward (priced at the measurement since: item 20)")


def long_context_time_report():
    """Item 17: the per-row time parts (``long_context_time_parts``, as shipped) and the ring
    reading (on the engine with every ring call at the causal rate)."""
    p = long_context_time_parts()
    print("   the engine's time parts per step (s) against the published step time; implied_attn "
          "= (published - every non-attention part) / the engine's attention:")
    cols = ["cp", "step_s", "published_s"] + list(TIME_PARTS) + ["other_s", "implied_attn",
                                                               "error"]
    short = {"matmul_s": "matmul", "attention_s": "attn", "recompute_s": "recomp",
             "memory_bound_s": "membnd", "cp_comm_s": "cp_comm", "tp_comm_s": "tp_comm",
             "dp_comm_s": "dp_comm", "pipeline_bubble_s": "bubble", "straggler_s": "stragg",
             "other_s": "other", "step_s": "step", "published_s": "published"}
    print("   " + f"{'run_id':40s} {'split':11s}" + "".join(f"{short.get(c, c):>9s}" for c in cols))
    for rid, r in p.iterrows():
        cells = "".join(f"{int(r[c]):9d}" if c == "cp" else f"{r[c]:+9.1%}" if c == "error"
                        else f"{r[c]:9.2f}" if c == "implied_attn" else f"{r[c]:9.3f}"
                        for c in cols)
        print(f"   {rid:40s} {r['split']:11s}{cells}")
    ring_split_report(long_context_time_parts(ring_unmasked=False))


def long_context_audit_table():
    """Item 17's audit: each row over 32K as its source gives it (the figure published, in its
    own unit, and the FLOP count it is on: ``flop_basis`` unstated, or the workbook's full-mask
    count where stated, or none for a tokens/s figure), the plan priced, the MFU on the dense
    BF16 peak it implies and the predicted one. Each field is checked against its source in
    tests/test_long_context_rows.py and tests/test_foundry_mfu_basis.py."""
    from llmcost.core.catalog import load_published_runs
    v = accuracy.validation_table()
    v = v[v["seq_len"] > 32768]
    cfg = step_validation.validation_configs().set_index("run_id")
    runs = load_published_runs().set_index("run_id")
    print("   the rows as published (figure in its unit; the FLOP count of a TFLOP/s figure), the "
          "plan priced, MFU on the dense BF16 peak published / predicted, error:")
    for _, r in v.iterrows():
        c, pr = cfg.loc[r["run_id"]], runs.loc[r["run_id"]]
        if c["metric"] == "tokens_per_s":
            fig = f"{float(pr['reported_tokens_per_sec_per_gpu']):,.0f} tok/s/GPU"
        else:
            fig = f"{float(pr['reported_tflops_per_gpu']):,.0f} TFLOP/s/GPU"
            fig += " (count unstated)" if c.get("flop_basis") == "unstated" else " (full mask)"
        print(f"     {r['run_id']:40s} {r['split']:11s} {r['dtype']:4s} {fig:35s} {r['plan']:78s} "
              f"{r['reported_mfu']:6.1%} / {r['predicted_mfu']:6.1%} {r['error']:+7.1%}")


def foundry_checkpointing_table(v: pd.DataFrame | None = None, title: str = "") -> None:
    """llm-foundry's BF16 rows: mean error by GPU, activation checkpointing (full recompute) and
    sequence length: the long rows' error against the same checkpointing at shorter lengths.
    ``v``: a ``accuracy.validation_table`` (None: the shipped one); ``title`` said after the
    heading."""
    v = accuracy.validation_table() if v is None else v
    f = v[(v["set"] == "llm-foundry-mpt") & (v["dtype"] == "bf16")].copy()
    f["AC"] = np.where(f["plan"].str.contains("full recompute"), "full", "none")
    f["length"] = pd.cut(f["seq_len"], [0, 2048, 8192, 16384, 32768, 65536],
                         labels=["<=2K", "4-8K", "16K", "32K", "64K"])
    table = f.pivot_table(index=["accelerator", "AC"], columns="length", values="error",
                          aggfunc="mean", observed=False)
    n = f.pivot_table(index=["accelerator", "AC"], columns="length", values="error",
                      aggfunc="size", observed=False)
    print("   llm-foundry's BF16 rows (all splits), mean error by activation checkpointing and "
          f"length (n rows){title}:")
    for key, row in table.iterrows():
        cells = ["    —     " if np.isnan(row[c]) else f"{row[c]:+6.1%} ({int(n.loc[key, c]):2d})"
                 for c in table.columns]
        print(f"     {key[0]:10s} AC {key[1]:4s}  " + "  ".join(
            f"{c}: {x}" for c, x in zip(table.columns, cells)))


def nemo_flop_count_note():
    """NeMo's long-sequence rows: NeMo's Llama 2 FLOP count against the workbook's full-mask
    count, the floor each row would need on a causal count, and the table's own FLOPs per token
    (its TFLOP/s / its tokens/s) against the full-mask count."""
    m = llmcost.load_model("llama-2-7b")
    v = accuracy.validation_table()
    nemo = v[v["set"] == "nemo-long-sequence-h100"].sort_values("seq_len")
    peak16, peak8 = (llmcost.load_accelerator("H100-SXM").peak_flops_per_s(d)
                     for d in ("bf16", "fp8"))
    L, h, a, g, f, V = m.n_layers, m.d_model, m.n_heads, m.n_kv_heads, m.d_ff, m.vocab_size
    from llmcost.core.catalog import load_published_runs
    runs = load_published_runs().set_index("run_id")
    ratios, causal_floor, own, c_over = [], [], [], []
    for _, r in nemo.iterrows():
        s = int(r["seq_len"])
        pr = runs.loc[r["run_id"]]
        # the table's own FLOPs per token: its TFLOP/s / its tokens/s (NVIDIA/NeMo@35029a0c84)
        own.append(float(pr["reported_tflops_per_gpu"]) * 1e12
                   / float(pr["reported_tokens_per_sec_per_gpu"])
                   / float(m.flops_per_token(s, causal=False)))
        # NVIDIA/NeMo nemo/utils/flops_formulas.py llama2 (before the 2025-08 causal discount)
        nemo_count = L * h * h * (12 + 12 * g / a + 18 * f / h + 12 * s / h + 6 * V / (L * h))
        ratios.append(nemo_count / float(m.flops_per_token(s, causal=False)))
        c_over.append(float(m.flops_per_token(s, causal=False))
                      / float(m.flops_per_token(s, causal=True)))
        tokens = r["reported"] * peak16 / float(m.flops_per_token(s, causal=True))
        causal_floor.append((s, float(attention.attention_rate_floor(m, s, tokens, peak8)) / 1e12))
    best = {k: float(attention.fwd_bwd_tflops(k, True, 128, 16384)) for k in ("cudnn", "fa3")}
    over = [f"{s // 1024}K" for s, fl in causal_floor if fl > best["cudnn"]]
    over3 = [f"{s // 1024}K" for s, fl in causal_floor if fl > best["fa3"]]
    print(f"   NeMo's long-sequence rows: NeMo's Llama 2 FLOP count (NVIDIA/NeMo "
          f"nemo/utils/flops_formulas.py llama2: attention 12·s/h per L·h², a full mask) / the "
          f"workbook's full-mask count: {min(ratios):.4f}-{max(ratios):.4f}. On a causal count "
          "the published TFLOP/s would need BF16 attention (Transformer Engine v1.3-v1.5's "
          "DotProductAttention has no FP8 path: 'DPA does not support FP8') at >= "
          + ", ".join(f"{fl:.0f}" for _, fl in causal_floor)
          + f" TFLOP/s ({', '.join(f'{s // 1024}K' for s, _ in causal_floor)}): above cuDNN's "
          f"{best['cudnn']:.0f} (FlashAttention-3 paper curves, causal, 16K, forward + backward) "
          f"at {', '.join(over) or 'none'}, above FlashAttention-3's {best['fa3']:.0f} at "
          f"{', '.join(over3) or 'none'}: those rows' TFLOP/s are on the full-mask count. The "
          "table's own two columns say so directly: its Model TFLOP/s / its Tokens/s/GPU "
          "(NVIDIA/NeMo@35029a0c84 performance_summary.md 'Long Input Sequences') / the full-mask "
          f"count per token: {min(own):.4f}-{max(own):.4f}, where a causal count would read "
          f"{min(c_over):.2f}-{max(c_over):.2f} (full / causal FLOPs per token); the rows are "
          "priced on that basis (flop_basis stated, metric tokens_per_s)")


def print_verdict(split: str, verdict: dict) -> None:
    """The default-on rule's verdict on the rows of ``split``, one line: the split's mean
    |error| off -> on, the regimes worse beyond their noise, the A100 Megatron goal's figures
    and whether the mechanism passes."""
    print(f"   all {split} rows {verdict['all_mean'][0]:.2%} -> {verdict['all_mean'][1]:.2%}; "
          f"worse beyond noise in {verdict['worse']} regime(s); A100 Megatron mean "
          f"{verdict['a100_megatron_mean']:.1%}, max {verdict['a100_megatron_max']:.1%}; "
          f"passes the rule: {'yes' if verdict['passes'] else 'no'}")


def print_buckets(tables: dict, width: int) -> None:
    """Each table's held-out buckets of newer regimes (``BUCKETS``), mean / max |error|, one
    line per table, its name padded to ``width``."""
    for name, t in tables.items():
        held = t[t["split"] == "held-out"]
        cells = [f"{b} {held[f(held)]['error'].abs().mean():.1%} / "
                 f"{held[f(held)]['error'].abs().max():.1%}" for b, f in BUCKETS.items()]
        print(f"   buckets (mean / max), {name:{width}s}: " + "; ".join(cells))


def print_comparison(comparison, splits=("calibration", "held-out"),
                     header: str = "   {split} rows:") -> None:
    """An ``accuracy.*_comparison`` on each split in turn: ``header`` (its ``{split}``
    filled), the regimes that move (``print_moved``) and the rule's verdict
    (``print_verdict``)."""
    for split in splits:
        per_regime, verdict = comparison(split)
        print(header.format(split=split))
        print_moved(per_regime)
        print_verdict(split, verdict)


def moved_rows(tables: dict, long_only: bool = False) -> tuple:
    """``(off, on, moved)``: the two tables of ``tables`` (off first) indexed by run, and the
    runs whose error moves by more than 0.05 points between them (``long_only``: of those,
    the sequences over 32,768 tokens)."""
    off, on = (t.set_index("run_id") for t in tables.values())
    keep = (on["error"] - off["error"]).abs() > 5e-4
    if long_only:
        keep &= on["seq_len"] > 32768
    return off, on, on.index[keep]


def row_moves(off, on, run_ids) -> str:
    """``run_id (split) e_off -> e_on`` for each run, joined by "; "."""
    return "; ".join(f"{rid} ({on.loc[rid, 'split']}) {off.loc[rid, 'error']:+.1%} -> "
                     f"{on.loc[rid, 'error']:+.1%}" for rid in run_ids)


def print_moved(per_regime, off_word: str = "", on_word: str = "") -> None:
    """The regimes whose held-out mean |error| moves with a mechanism (beyond
    ``accuracy.REGIME_CHANGE_TOLERANCE``), one line each: off -> on and the regime's noise."""
    moved = per_regime[(per_regime["on"] - per_regime["off"]).abs()
                       > accuracy.REGIME_CHANGE_TOLERANCE]
    for label, r in moved.iterrows():
        print(f"   {label:56s} n {int(r['n']):2d}  {off_word}{r['off']:6.1%} -> "
              f"{on_word}{r['on']:6.1%} (noise {r['noise']:.1%})")


def fp8_accumulation_report():
    """Item 15: Hopper's backward FP8 GEMMs without fast accumulation
    (``accuracy.fp8_split_accumulator_comparison``: every row with the backward FP8 GEMMs at the
    forward's rate against the shipped ``gemm.FP8_SLOW_ACCUMULATION``) regime by regime, with
    the default-on rule's verdict and the published FP8:BF16 pairs. Added after the held-out FP8
    rows' errors were seen."""
    per_regime, verdict = accuracy.fp8_split_accumulator_comparison()
    print(f"15. Hopper's backward FP8 GEMMs (input and weight gradients) without fast "
          f"accumulation: x{gemm.FP8_SLOW_ACCUMULATION:.3f} the forward's time (Transformer "
          "Engine _2X_ACC_DGRAD / _2X_ACC_WGRAD, torchao's grad GEMMs; H100 SXM's BF16 / FP8 "
          "matmul share in stas00/ml-engineering's mamf-finder table, torch._scaled_mm without "
          "fast accumulation; pytorch/ao #2377 reports 1.1-1.2x), held-out mean |error| per "
          "regime that moves, without -> with:")
    print_moved(per_regime)
    print(f"   all held-out rows {verdict['all_mean'][0]:.2%} -> {verdict['all_mean'][1]:.2%}; "
          f"FP8 rows {verdict['fp8_mean'][0]:.1%} -> {verdict['fp8_mean'][1]:.1%}; FP8:BF16 "
          f"pairs within 10 %: {verdict['fp8_pairs_within'][0]} -> "
          f"{verdict['fp8_pairs_within'][1]} of {verdict['fp8_pairs']}; worse beyond noise in "
          f"{verdict['worse']} regime(s); A100 Megatron mean {verdict['a100_megatron_mean']:.1%}, "
          f"max {verdict['a100_megatron_max']:.1%}; passes the rule: "
          f"{'yes' if verdict['passes'] else 'no'}")


def cp_and_device_report():
    """Item 14: the context-parallel ring overlap (``accuracy.cp_overlap_comparison``: every
    row's K/V exchange exposed against each row's own) regime by regime, with the default-on
    rule's verdict; then torchtitan's 2024-12 H100 rows on the 700 W H100-SXM against the
    power-capped 96 GB device they ran on (``step_validation.mfu_validation_on``); llm-foundry's
    2023-10 rows with the Triton FlashAttention they ran against FlashAttention-2; then the
    buckets of newer regimes. All three were added after the held-out rows' errors were seen."""
    per_regime, verdict = accuracy.cp_overlap_comparison()
    print("14. Context parallelism's K/V exchange: exposed (one all-gather, Llama 3 §3.3.2) vs "
          "each row's own (Transformer Engine's overlapped ring on Megatron-Core / NeMo stacks; "
          "PyTorch's ring as torchtitan runs it: merges, fp32 gradient buffers, repeated K/V "
          "heads), held-out mean |error| per regime that moves:")
    print_moved(per_regime, "exposed ", "ring ")
    print(f"   all held-out rows {verdict['all_mean'][0]:.1%} -> {verdict['all_mean'][1]:.1%}; "
          f"worse beyond noise in {verdict['worse']} regime(s); A100 Megatron mean "
          f"{verdict['a100_megatron_mean']:.1%}, max {verdict['a100_megatron_max']:.1%}; "
          f"passes the rule: {'yes' if verdict['passes'] else 'no'}")
    v = accuracy.validation_table().set_index("run_id")
    tt = [r for r in v.index if r.startswith("torchtitan-h100-")]
    sxm = step_validation.mfu_validation_on("H100-SXM", tt).set_index("run_id")
    print("   torchtitan's H100 rows (pytorch/torchtitan benchmarks, 2024-12: 96 GB HBM2e, 500 W), "
          "error on H100-SXM -> on H100-96GB-500W:")
    for run in tt:
        print(f"   {run:48s} {v.loc[run, 'split']:11s} {sxm.loc[run, 'error']:+7.1%} -> "
              f"{v.loc[run, 'error']:+7.1%}")
    fd = [r for r in v.index
          if r.startswith("foundry-") and v.loc[r, "stack"] == "llm-foundry-2023"]
    fa2 = step_validation.mfu_validation_on(None, fd, stack="pytorch-fsdp2-2024")
    fa2 = fa2.set_index("run_id")
    print("   llm-foundry's 2023-10 rows (Triton FlashAttention, llm-foundry-2023) against the "
          "same rows priced with FlashAttention-2 (pytorch-fsdp2-2024), held-out mean |error| "
          "per regime:")
    g = v.loc[fd][v.loc[fd, "split"] == "held-out"]
    for regime, rows in g.groupby("regime"):
        print(f"   {regime:56s} n {len(rows):2d}  FlashAttention-2 "
              f"{fa2.loc[rows.index, 'error'].abs().mean():6.1%} -> Triton "
              f"{rows['error'].abs().mean():6.1%}")
    held = v[v["split"] == "held-out"]
    for name, f in BUCKETS.items():
        g = held.index[f(held).to_numpy()]
        e = held.loc[g, "error"].abs()
        print(f"   bucket {name:28s} held-out {len(e):2d}: mean {e.mean():.1%}, max {e.max():.1%}")


#: The published micro-batch pair of one MoE model (Megatron-Bridge 25.11 performance tables:
#: Qwen3-30B-A3B, 8 GPUs, EP 8, FP8-MX; B200 at MBS 1, GB200 at MBS 4), tokens/s/GPU.
MBS_PAIR = ("mb2511-b200-qwen3-30b-a3b-fp8mx", "mb2511-gb200-qwen3-30b-a3b-fp8mx")


def dropless_pairs_report(variants):
    """The dropless cost per system (``step_validation.dropless_pairs``): each published pair's
    tokens/s ratio (dropless ÷ token-dropping) and its cost per MoE layer per micro-batch,
    published and predicted under each of ``variants`` (name → ``mfu_validation`` table)."""
    print("   dropless vs token-dropping, one global batch (Megatron-Bridge 25.11 vs 25.09): tokens/s "
          "ratio and the cost per MoE layer per micro-batch (ms), published and predicted")
    tables = {name: step_validation.dropless_pairs(v.reset_index())
              for name, v in variants.items()}
    first = next(iter(tables.values()))
    for d, r in first.iterrows():
        out = "; ".join(f"{name} {t.loc[d, 'predicted_ratio']:.2f}x "
                        f"({t.loc[d, 'predicted_ms']:+.1f} ms)" for name, t in tables.items())
        print(f"   {d:34s} published {r['published_ratio']:.2f}x ({r['published_ms']:+.1f} ms); "
              + out)


def moe_host_report():
    """Item 12: the MoE layers' host cost per micro-batch (``llmcost.training.moe_layer``): its
    two constants re-fitted on the MoE calibration rows only, then every MoE row's error
    without and with it, split calibration (fit) / held-out, and the published micro-batch
    pair's throughput ratio."""
    a, b = step.calibrate_moe_host_overhead()
    print(f"12. MoE layers' host cost per micro-batch: (passes/3)·(a + b·E/ep), fitted on the MoE "
          f"calibration rows only: a = {a * 1e3:.3f} ms per layer, b = {b * 1e3:.3f} ms per local "
          f"expert (shipped {moe_layer.MOE_LAYER_HOST_S * 1e3:.3f} / "
          f"{moe_layer.MOE_EXPERT_HOST_S * 1e3:.3f} ms; the per-expert term only on stacks that "
          "launch per expert, the per-layer sync term only under dropless routing)")
    sets = step.VALIDATION_SETS + step.NEWER_SETS
    off = {"moe_layer_host_s": 0.0, "moe_expert_host_s": 0.0}
    before = step.mfu_validation(sets=sets, physics=off).set_index("run_id")
    after = step.mfu_validation(sets=sets).set_index("run_id")
    moe = after[after["kind"] == "moe"].index
    table = pd.DataFrame({"split": after.loc[moe, "split"], "stack": after.loc[moe, "stack"],
                          "before": before.loc[moe, "error"], "after": after.loc[moe, "error"],
                          "host_s": after.loc[moe, "moe_host_s"],
                          "step_s": after.loc[moe, "step_time_s"]})
    table = table.join(moe_layer_shapes(moe)).assign(
        attn_share=after.loc[moe, "attention_s"] / after.loc[moe, "step_time_s"])
    print(table.to_string(formatters={"before": "{:+.1%}".format, "after": "{:+.1%}".format,
                                      "host_s": "{:.2f}".format, "step_s": "{:.2f}".format,
                                      "attn_share": "{:.0%}".format}))
    print("   (moe_layer_mbs: MoE layers of the busiest stage × micro-batches per step; "
          "local_experts E/ep; tok_per_expert: tokens per local expert per micro-batch, balanced; "
          "attn_share: the attention core's share of the predicted step)")
    for split, g in table.groupby("split"):
        print(f"   {split:<11} n {len(g):>2}: mean |error| {g['before'].abs().mean():.1%} -> "
              f"{g['after'].abs().mean():.1%}, max {g['before'].abs().max():.1%} -> "
              f"{g['after'].abs().max():.1%} (goal on held-out: mean <= 15%, max <= 30%)")
    lo, hi = MBS_PAIR
    runs = llmcost.load_published_runs().set_index("run_id")
    dropless_pairs_report({"before": before, "after": after})
    pub = runs.loc[hi, "reported_tokens_per_sec_per_gpu"] / runs.loc[
        lo, "reported_tokens_per_sec_per_gpu"]
    for name, v in (("before", before), ("after", after)):
        pred = pub * (1 + v.loc[hi, "error"]) / (1 + v.loc[lo, "error"])
        print(f"   micro-batch 1 -> 4 (Qwen3-30B-A3B, B200 MBS 1 -> GB200 MBS 4): published "
              f"{pub:.2f}x tokens/s/GPU, predicted {name} {pred:.2f}x ({pred / pub - 1:+.0%}; "
              "goal within 20%)")
    worst_moe_row_report()
    grace_host_reading()


#: A published host-time measurement per CPU type (NVIDIA/TransformerEngine issue #2053, "High
#: CPU overhead on Grace systems", 2025-08-11, its benchmark table): the CPU time of one
#: ``torch.nn.Linear`` BF16 forward (hidden 2,048, 8,192 tokens), microseconds, on GB200 (Grace)
#: and on H100 DGX (Intel Xeon Platinum 8480C). The same table gives Transformer Engine's Linear
#: 99.66 µs on GB200 and 90.53 on GH200; its x86 TE figure was not read, so the torch pair is
#: the ratio used.
LINEAR_HOST_US = {"grace": 37.08, "x86": 13.48}
#: The accelerators of the catalogue whose host is a Grace CPU (NVIDIA GB200 NVL72 and GB300
#: NVL72 product pages: 36 Grace CPUs per 72 GPUs, one per two GPUs).
GRACE_HOSTED = ("GB200-NVL72", "GB300-NVL72")


def grace_host_reading():
    """A reading, not an engine term: the MoE layer's host cost (``moe_layer``) scaled on
    Grace-hosted rows by the published Grace / x86 host-time ratio of one eager op
    (``LINEAR_HOST_US``), its two constants re-fitted on the same MoE calibration rows as
    ``step.calibrate_moe_host_overhead`` (eager stacks of ``MOE_HOST_FIT_SETS`` less
    ``MOE_HOST_FIT_LATER_ROWS``, least squares
    on the relative step-time error, non-negative). The step time is linear in the two
    constants (the host time enters each micro-batch additively), so each row's
    ``T = T0 + g·(a·A + b·B)``, ``A``, ``B`` its slopes from three engine runs, ``g`` the ratio
    on Grace-hosted rows and 1 elsewhere; rows of a full-iteration-graph stack keep their
    shipped time (no host cost). Printed: held-out error by bucket at g = 1 (the shipped
    model) and at the published ratio."""
    sets = step.VALIDATION_SETS + step.NEWER_SETS
    runs = {k: step.mfu_validation(sets=sets, physics={"moe_layer_host_s": a,
                                                       "moe_expert_host_s": b}
                                   ).set_index("run_id")
            for k, (a, b) in (("0", (0.0, 0.0)), ("a", (1e-3, 0.0)), ("b", (0.0, 1e-3)))}
    v = step.mfu_validation(sets=sets).set_index("run_id")
    t0 = runs["0"]["step_time_s"]
    slope_a, slope_b = ((runs[k]["step_time_s"] - t0) / 1e-3 for k in ("a", "b"))
    published = v["step_time_s"] * (1.0 + v["error"])
    eager = v["stack"].map(lambda name: load_stack(name).cuda_graphs == "none")
    cal = ((v["kind"] == "moe") & (v["split"] == "calibration") & eager
           & v["set"].isin(step_validation.MOE_HOST_FIT_SETS)
           & ~v.index.isin(step_validation.MOE_HOST_FIT_LATER_ROWS))
    held = v["split"] == "held-out"
    buckets = {"MoE": v["kind"] == "moe",
               "Blackwell": v["accelerator"].isin(("B200",) + GRACE_HOSTED),
               "Blackwell MoE": v["accelerator"].isin(("B200",) + GRACE_HOSTED)
               & (v["kind"] == "moe"), "FP8": v["dtype"] == "fp8"}
    ratio = LINEAR_HOST_US["grace"] / LINEAR_HOST_US["x86"]
    print(f"   reading: Grace's host time per eager op {ratio:.2f}x x86's (TransformerEngine "
          f"issue #2053: torch Linear forward {LINEAR_HOST_US['grace']} µs on GB200 vs "
          f"{LINEAR_HOST_US['x86']} on H100 DGX Xeon) applied to the MoE host term on "
          f"{', '.join(GRACE_HOSTED)} rows, constants re-fitted on the same calibration rows:")
    for g_ratio in (1.0, ratio):
        g = np.where(v["accelerator"].isin(GRACE_HOSTED), g_ratio, 1.0)
        mat = np.stack([(g * slope_a / published)[cal], (g * slope_b / published)[cal]], 1)
        rhs = (1.0 - t0 / published)[cal].to_numpy()
        (a, b), *_ = np.linalg.lstsq(mat, rhs, rcond=None)
        if a < 0 or b < 0:      # the better one-constant fit, as calibrate_moe_host_overhead
            fits = [(float(np.sum((mat[:, j] * x - rhs) ** 2)), j, x) for j in (0, 1)
                    for x in [max(float(mat[:, j] @ rhs / (mat[:, j] @ mat[:, j])), 0.0)]]
            _, j, x = min(fits)
            a, b = (x, 0.0) if j == 0 else (0.0, x)
        t = pd.Series(np.where(eager, t0 + g * (a * slope_a + b * slope_b), v["step_time_s"]),
                      index=v.index)
        err = published / t - 1.0
        print(f"     x{g_ratio:.2f}: a = {a * 1e3:.2f} ms, b = {b * 1e3:.3f} ms; held-out " + "; ".join(
            f"{name} n {int((m & held).sum())} mean |e| {err[m & held].abs().mean():.1%} "
            f"signed {err[m & held].mean():+.1%}" for name, m in buckets.items()))
        oss = v.index[held & v.index.str.contains("gpt-oss") & v["dtype"].eq("bf16")
                      & v["accelerator"].isin(GRACE_HOSTED + ("B200",))]
        print("       gpt-oss BF16 held-out: " + ", ".join(
            f"{r.split('-')[1]} {r.split('-')[0][2:]} {err[r]:+.0%}" for r in oss))


#: The worst MoE row's engine terms against what its recipe ran (Megatron-Bridge 25.11,
#: Qwen3-30B-A3B on 16 H100, FP8-CS; recipe scripts/performance/configs/qwen3/ at the release tag
#: v0.2.0 = 7af9601c9 and the table's commit 97ad8cc6f): (term, priced, recipe, source).
WORST_MOE_ROW = "mb2511-h100-qwen3-30b-a3b-fp8cs"
WORST_MOE_TERMS = (
    ("routing", "dropless, random gate, per-layer sync", "dropless, force-balanced",
     "qwen3_llm_pretrain.py set_qwen3_common_configs: moe_router_force_load_balancing"),
    ("dispatcher", "alltoall, a copy per (token, expert)", "alltoall, permute fusion on",
     "qwen_provider.py Qwen3MoEModelProvider; no moe_flex_dispatcher_backend for H100 FP8-CS"),
    ("router", "GEMM in BF16, in the host cost", "moe_router_fusion on",
     "set_qwen3_common_configs"),
    ("CUDA graphs", "none (eager: host cost paid)", "none",
     ("H100 FP8-CS config sets no cuda_graph_impl; docs/training/cuda-graphs.md @1faf74e32: "
      "TE-scoped attn+moe_router+moe_preprocess graphs on this model, H100, alltoall: "
      "42.00 s vs 41.36 s eager (neutral)")),
    ("recompute", "none", "none", "set_qwen3_common_configs: recompute_granularity None"),
    ("EP overlap", "merged 1F1B (EP_OVERLAP_OF_ROW)", "moe_a2a_overlap=True",
     ("overrides.py _set_moe_a2a_overlap_overrides: overlap_moe_expert_parallel_comm, "
      "delay_wgrad_compute")),
    ("pipeline P2P", "merged 1F1B units wait for both inputs: one transfer per unit exposed",
     "interleaved, overlap_p2p_comm, microbatch_group_size_per_vp_stage = PP (default)",
     ("step.merged_p2p_exposure; Megatron-LM model_chunk_schedule_plan.py "
      "TransformerModelChunkSchedulePlan.run @ 0d8e0714cd29 (the 25.11 pin)")),
    ("plan", "PP 2 x VP 12, MBS 1, GA 64", "PP 2, VP 12, MBS unset (default 1)",
     "utils.py WorkloadBaseConfig; the table says MBS 2, VP 24, GA 32 (the 25.09 row's)"),
    ("FP8", "current scaling, FP8 GEMMs", "FP8-CS, moe_router_padding_for_fp8 unset",
     "the grouped MLP's explicit FP8 padding, one fused pass: not modelled, item 23"),
)


def worst_moe_row_report():
    """The worst MoE row: each engine term against what its recipe ran (``WORST_MOE_TERMS``),
    then the row priced as recorded and under the table's plan, whole and one difference at a
    time (``step_validation.row_readings``)."""
    print(f"   the worst MoE row, {WORST_MOE_ROW}: each term as priced vs as the recipe ran")
    for term, priced, recipe, source in WORST_MOE_TERMS:
        print(f"     {term:11s} priced: {priced}; recipe: {recipe} ({source})")
    t = step_validation.row_readings(WORST_MOE_ROW, step_validation.MB2511_H100_TABLE_READINGS)
    for label, r in t.iterrows():
        print(f"     {label:55s} {r['plan']:70s} error {r['error']:+.1%} "
              f"(step {r['step_time_s']:.2f} s: all-to-all {r['ep_comm_s']:.2f} s, "
              f"host {r['moe_host_s']:.2f} s, P2P {r['pp_comm_s']:.2f} s)")
    later_recipe_report()


def later_recipe_report():
    """The worst MoE rows' model on the same 16 H100 under the recipe that replaced theirs
    (``step_validation.LATER_H100_QWEN3_RUNS``), and two readings of small-expert mechanisms
    on the worst rows (``overlap_host_cost_reading``, ``per_expert_launch_reading``)."""
    print("   the same model on 16 H100 under the recipe that replaced the worst rows' "
          "(Megatron-Bridge PR #2477: EP 16, HybridEP, no EP overlap; checks, not rows):")
    for label, r in step_validation.later_h100_qwen3_checks().iterrows():
        print(f"     {label:40s} published {r['published_step_s']:6.2f} s, predicted "
              f"{r['predicted_step_s']:6.2f} s (host {r['moe_host_s']:5.2f} s, all-to-all "
              f"{r['ep_comm_s']:4.2f} s): error {r['error']:+.1%}")
    ro = step_validation.overlap_host_cost_reading()
    vp = step_validation.validation_configs().set_index("run_id")["pp_virtual_stages"]
    print(f"   reading: PR #1760's overlap A/B (B200, 17.2 vs 16.0 s) as a host cost of the EP "
          f"overlap: {ro['h_s'] * 1e3:.2f} ms per MoE layer per micro-batch; error without -> "
          "with it (VP: the row's virtual pipeline stages; PR #1760's recipe VP 4): "
          + "; ".join(
              f"{k} (VP {int(vp[k]) if k in vp.index else 1}) {v[0]:+.1%} -> {v[1]:+.1%}"
              for k, v in ro.items() if k != "h_s")
          + " (not in the engine: contradicts the H100 A/B; confined to interleaved schedules, "
          "where PR #1760 measured it, it would spare the H100 check but still move the VP 2 "
          "calibration row away)")
    ru = step_validation.overlap_unit_cost_reading()
    print(f"   reading: the same A/B as a host cost per merged forward+backward chunk unit "
          f"(step_validation.merged_units; PR #1760's recipe 473 units): "
          f"{ru['h_unit_s'] * 1e3:.2f} ms per unit; error without -> with it: " + "; ".join(
              f"{k} ({v[2]:.0f} units) {v[0]:+.1%} -> {v[1]:+.1%}"
              for k, v in ru.items() if k != "h_unit_s")
          + " (the unit chosen after the rows were seen; the H100 check, one stage, is spared; "
          "the calibration row moves away: not in the engine)")
    print("   reading: per-expert cuBLAS launches on 4 streams (Transformer Engine on Hopper) "
          "instead of one grouped kernel: " + "; ".join(
              f"{r} +{step_validation.per_expert_launch_reading(r):.2f} s"
              for r in step_validation.EP_OVERLAP_OF_ROW))
    g = step_validation.te_scoped_graph_reading()
    print("   reading: GPT-OSS 120B, GB300 with Transformer Engine graphs of attn, moe_router, "
          "moe_preprocess against GB200 eager, same table, plan and stack (both priced eager; "
          "step_validation.TE_SCOPED_GRAPH_PAIRS): " + "; ".join(
              f"{t} published {r['published_gb300_s']:.2f} / {r['published_gb200_s']:.2f} s, "
              f"predicted {r['predicted_gb300_s']:.2f} / {r['predicted_gb200_s']:.2f} s, "
              f"{r['unexplained_s']:.2f} s unexplained "
              f"({r['unexplained_ms_per_layer_mb']:.1f} ms per MoE layer per micro-batch)"
              for t, r in g.iterrows()) + " (not in the engine: no partial-graph mode)")
    gpu_gap_report()
    fp8cs_launch_report()


def gpu_gap_report():
    """The time the engine's GPU-side step lacks per MoE layer per micro-batch
    (``step_validation.moe_gpu_gap``) on the 25.09 rows whose recipe graphed every layer against
    their 25.11 eager twins (``layer_graph_reading``) and on the H100 Qwen3-30B-A3B recipes, and
    GPT-OSS against the dense rows of its tables (``gpt_oss_dense_reading``)."""
    def line(run_id, r):
        return (f"{run_id} {r['gap_ms']:.2f} ms (error {r['error']:+.1%}, "
                f"{r['error_without_host']:+.1%} without host time)")
    g = step_validation.layer_graph_reading()
    print("   reading: published step less the step priced without MoE host time, per MoE layer "
          "per micro-batch (step_validation.moe_gpu_gap), 25.09 layers in CUDA graphs "
          "(LAYER_GRAPH_PAIRS) vs 25.11 experts eager: " + "; ".join(
              ("graphed " if r["layer_graphs"] else "eager ") + line(k, r)
              for k, r in g.iterrows()) + " (the same at MBS 4: not host time)")
    h = step_validation.moe_gpu_gap(step_validation.H100_QWEN3_GAP_ROWS)
    print("   reading: the same on the H100 Qwen3-30B-A3B recipes (H100_QWEN3_GAP_ROWS): "
          + "; ".join(line(k, r) for k, r in h.iterrows()))
    d = step_validation.gpt_oss_dense_reading()
    print("   reading: GPT-OSS 120B BF16 against Llama 3.1 70B FP8-CS in the same tables "
          "(GPT_OSS_DENSE_SETS), mean error per system: " + "; ".join(
              f"{k} {r['gpt_oss_error']:+.1%} vs " + ("no Llama 3.1 70B row"
                                                      if np.isnan(r["ratio"]) else
                                                      f"{r['llama_70b_error']:+.1%} "
                                                      f"({r['ratio']:.2f}x)")
              for k, r in d.iterrows()))


def fp8cs_launch_report():
    """A reading of FP8 current scaling's per-expert quantize launches (amax, scale, cast per
    expert tensor in Transformer Engine's grouped linear layer;
    ``step_validation.fp8cs_quantize_launch_reading``) on the FP8-CS MoE rows, and the held-out
    MoE bucket without and with it."""
    r = step_validation.fp8cs_quantize_launch_reading()
    print("   reading: FP8 current scaling's extra quantize launches per local expert (Transformer "
          f"Engine v2.9 split_quantize: amax + scale + cast per expert tensor, "
          f"{step_validation.FP8CS_EXTRA_LAUNCHES_PER_TENSOR * step_validation.EXPERT_QUANTIZED_TENSORS}"
          " more launches per local expert per MoE layer and micro-batch than MXFP8, at the "
          "engine's host time per launch), error as priced -> with them: " + "; ".join(
              f"{k} ({s['split']}, {s['local_experts']} local) {s['error']:+.1%} -> "
              f"{s['error_with']:+.1%}" for k, s in r.iterrows()))
    v = accuracy.validation_table().set_index("run_id")
    held = v[(v["split"] == "held-out") & v["is_moe"]]
    with_it = held["error"].copy()
    common = with_it.index.intersection(r.index)
    with_it.loc[common] = r.loc[common, "error_with"]
    print(f"     held-out MoE rows (n {len(held)}): mean |error| {held['error'].abs().mean():.1%} "
          f"-> {with_it.abs().mean():.1%}, max {held['error'].abs().max():.1%} -> "
          f"{with_it.abs().max():.1%} (the bucket of item 6); the FP8-CS calibration rows move "
          "away: not in the engine")
    fp8cs_switch_report()


def fp8cs_switch_report():
    """The same launches as an engine switch judged by the default-on rule
    (``StepOptions.fp8cs_expert_launches``, ``accuracy.fp8cs_launch_comparison``: the MoE host
    constants re-fitted under it), the worst rows and the MoE bucket without -> with it."""
    a, b = step_validation.calibrate_moe_host_overhead(physics={"fp8cs_expert_launches": True})
    print("     as an engine switch (StepOptions.fp8cs_expert_launches: the per-expert host "
          f"constant x {moe_layer.fp8_expert_host_factor('fp8', 'current'):.3f} on FP8-CS rows), "
          f"the MoE host constants re-fitted under it: a = {a * 1e3:.3f} ms, b = {b * 1e3:.3f} "
          "ms (shipped 1.521 / 0.279):")
    off = accuracy.validation_table().set_index("run_id")
    on = accuracy.validation_table(fp8cs_expert_launches=True).set_index("run_id")
    worst = off[(off["split"] == "held-out") & off["is_moe"]]["error"].abs().nlargest(4).index
    print("     worst held-out MoE rows, off -> on: " + "; ".join(
        f"{r} {off.loc[r, 'error']:+.1%} -> {on.loc[r, 'error']:+.1%}" for r in worst))
    for t in (off, on):
        t["moe_held"] = (t["split"] == "held-out") & t["is_moe"]
    print(f"     held-out MoE rows: mean |error| {off[off.moe_held]['error'].abs().mean():.1%} -> "
          f"{on[on.moe_held]['error'].abs().mean():.1%}, max "
          f"{off[off.moe_held]['error'].abs().max():.1%} -> "
          f"{on[on.moe_held]['error'].abs().max():.1%}")
    print_comparison(accuracy.fp8cs_launch_comparison, ("held-out", "calibration"),
                     "     {split} rows, mean |error| per regime that moves, off -> on:")
    print("     left off by default (StepOptions.fp8cs_expert_launches=False)")


def moe_layer_shapes(run_ids) -> pd.DataFrame:
    """Per MoE row, the sizes a cost per MoE layer per micro-batch, per local expert or per small
    expert GEMM would scale with: the busiest stage's MoE layers × micro-batches per step
    (``moe_layer_mbs``), the local experts ``E/ep`` and the tokens each receives per
    micro-batch ``b·s·k·ep/E`` (balanced routing), and the head dimension."""
    cfg = step_validation.validation_configs().set_index("run_id")
    runs = llmcost.load_published_runs().set_index("run_id")
    rows = {}
    for run_id in run_ids:
        c, r = cfg.loc[run_id].copy(), runs.loc[run_id]
        c["run_id"] = run_id
        s = int(r["seq_len"])
        model = step_validation.row_model(c, r, s)
        plan = step_validation.row_plan(c, r, model, s)
        e, k = model.n_experts, model.n_experts_active
        rows[run_id] = {
            "moe_layer_mbs": int(round(model.n_moe_layers / plan.pp)) * plan.n_microbatches,
            "local_experts": e // plan.ep,
            "tok_per_expert": plan.micro_batch_size * s // plan.cp * k * plan.ep // e,
            "d_head": model.d_qk}
    return pd.DataFrame.from_dict(rows, orient="index")


def memory_report():
    """Item 13: does every validation row's published plan fit under the memory model
    (``step_validation.published_plan_memory``)? The policy (``memory.PUBLISHED_PLAN_RESERVE``):
    a plan that ran is held to the whole HBM; ``memory.DEFAULT_RESERVE`` is the planning margin
    of the search. Then, per row, the plan the search picks (``ranking.rank_plans`` on the row's
    cluster, global batch, EP, layer split, stack and options, with the planning margin) beside
    the published plan when they differ, with both predicted step times."""
    t = step_validation.published_plan_memory()
    print(f"13. Published plans under the memory model ({len(t)} rows). Policy: a published "
          f"plan is held to the whole HBM (reserve {memory.PUBLISHED_PLAN_RESERVE:.0%}: it ran); "
          f"the search keeps the planning margin {memory.DEFAULT_RESERVE:.0%}. "
          f"{int(t['fits'].sum())} fit under the policy, {int(t['fits_planning_reserve'].sum())} "
          "with the planning margin. Rows that do not fit the whole HBM (the memory model "
          "overcounts them):")
    gib = 2 ** 30
    show = t.assign(GiB=t["memory_bytes"] / gib, HBM=t["hbm_bytes"] / gib)
    over = show.loc[~show["fits"], ["accelerator", "GiB", "HBM", "share", "plan"]]
    print(over.to_string(formatters={"GiB": "{:.1f}".format, "HBM": "{:.0f}".format,
                                     "share": "{:.0%}".format}) if len(over) else "   none")
    moved = show[show["share_as_written"] > 1]
    print(f"   {len(moved)} rows do not fit as Korthikanti et al. and ZeRO count them (the "
          "memory model's default practice, the search's) and fit as their stack and configs "
          "store activations (step_validation.row_practice):")
    print(moved[["accelerator", "share_as_written", "share", "practice"]].to_string(
        formatters={"share_as_written": "{:.0%}".format, "share": "{:.0%}".format}))
    ok = show[show["fits"]]
    print(f"   the {len(ok)} rows that fit leave {ok['headroom_bytes'].min() / gib:.1f}-"
          f"{ok['headroom_bytes'].max() / gib:.0f} GiB to the uncounted parts (smallest share "
          f"left: {1 - ok['share'].max():.1%}, {ok['share'].idxmax()})")
    for rid, words, readings in (
            ("mb260201-gb300-llama-3.1-70b-mxfp8", "(MBS 1, VP 5), not its table line's "
             "(MBS 2, VP n/a", step_validation.MB260201_GB300_70B_TABLE_READINGS),
            ("mb260201-gb300-llama-3.1-405b-fp8cs", "(TP 4, CP 1), not its table line's "
             "(TP 2, CP 2", step_validation.MB260201_GB300_405B_TABLE_READINGS)):
        print(f"   {rid}, priced with its tag recipe's plan {words}; the row's notes): each "
              "reading's count and error")
        rd = step_validation.row_readings(rid, readings)
        for label, r in rd.iterrows():
            print(f"     {label:46s} {r['plan']:58s} {r['memory_bytes'] / gib:4.0f} GiB of "
                  f"{r['hbm_bytes'] / gib:.0f}, error {r['error']:+.1%}")
    cfg = step_validation.validation_configs().set_index("run_id")
    runs = llmcost.load_published_runs().set_index("run_id")
    v = step.mfu_validation(sets=step.VALIDATION_SETS + step.NEWER_SETS).set_index("run_id")
    rows = []
    for run_id in t.index:
        c, r = cfg.loc[run_id].copy(), runs.loc[run_id]
        c["run_id"] = run_id
        s = int(r["seq_len"])
        model = step_validation.row_model(c, r, s)
        opts = step_validation.row_options(c)
        cluster = llmcost.Cluster(llmcost.load_accelerator(r["catalog_accelerator"]),
                                  int(r["n_accelerators"]))
        try:
            ranked = ranking.rank_plans(model, cluster, int(r["global_batch_tokens"]) // s, s,
                                        options=opts, stack=opts.stack, pp_split=c["pp_split"],
                                        ep=int(r["ep"]) if np.isfinite(r["ep"]) else 1)
        except ValueError as e:
            rows.append({"run_id": run_id, "published": t.loc[run_id, "plan"],
                         "search": f"none ({str(e)[:60]})"})
            continue
        if not len(ranked):
            rows.append({"run_id": run_id, "published": t.loc[run_id, "plan"],
                         "search": "no plan fits"})
            continue
        b = ranked.iloc[0]
        desc = (f"TP{b['tp']} · PP{b['pp']}" + (f"×v{b['virtual_stages']}"
                if b["virtual_stages"] > 1 else "") + f" · DP{b['dp']}"
                + (f" · CP{b['cp']}" if b["cp"] > 1 else "")
                + (f" · EP{b['ep']}" if b["ep"] > 1 else "")
                + f" · {b['schedule']} mbs={b['micro_batch_size']} · "
                + (f"ZeRO-{b['zero_stage']}" if b["zero_stage"] else "no ZeRO")
                + f" · {parallel.recompute_words(b['recompute'])}")
        same = (b["tp"] == int(r["tp"]) and b["pp"] == int(r["pp"])
                and b["micro_batch_size"] == int(c["micro_batch_size"])
                and b["recompute"] == c["recompute"])
        if not same:
            pub_s = v.loc[run_id, "step_time_s"]
            rows.append({"run_id": run_id, "published": t.loc[run_id, "plan"],
                         "published step s": pub_s, "search": desc,
                         "search step s": float(b["step_time_s"]),
                         "search / published": float(b["step_time_s"]) / pub_s})
    d = pd.DataFrame(rows).set_index("run_id") if rows else pd.DataFrame()
    print(f"   the search (planning margin {memory.DEFAULT_RESERVE:.0%}, the row's stack, EP and "
          f"split) picks another plan (TP, PP, micro-batch or recomputation) for {len(d)} of "
          f"{len(t)} rows:")
    if len(d):
        print(d.to_string(float_format="{:.2f}".format))


#: Column labels of item 11's per-regime table.
SHORT = {"gemm_shape": "shape", "fp8_as_run": "fp8", "attention_curve": "attn",
         "gemm_shape + fp8_as_run": "s+fp8", "gemm_shape + attention_curve": "s+att",
         "all three": "all"}


def gemm_shape_report():
    """Item 11: GEMM efficiency by shape (``llmcost.training.gemm``, ``StepOptions.gemm_shape``):
    the kernel table against the curve, then every regime with the shape term off and on."""
    print("11. GEMM efficiency by shape: t = t0 + 2bmnk / (matmul_fraction x peak) x (1 + k0/k), "
          "fitted to XLA's kernel table (openxla/xla default_matmul_perf_table.txtpb @ "
          "ad6eaee1b2f1, CUPTI median kernel times, 375 shapes per series; the H100 FP8 series "
          "is above the dense FP8 peak and not used)")
    for (fam, dt), sh in gemm.GEMM_SHAPE.items():
        if not sh.measured:
            print(f"   {fam:9s} {dt:4s} t0 = {sh.t0_s * 1e6:.2f} us, k0 = {sh.k0:.0f}: "
                  f"{sh.source}")
            if (fam, dt) == ("hopper", "fp8"):
                c = gemm.hopper_fp8_stand_in_check()
                print("      checked on tilelang's H800 FP8 / FP16 sweep (M = N = 8192, "
                      "tile-ai/tilelang @ b2acfc379): FP8:BF16 speed by K "
                      + ", ".join(f"{int(k)}: {m:.2f} vs {p:.2f}" for k, m, p in
                                  zip(c["k"], c["measured"], c["predicted"]))
                      + f" (measured vs curve; max |error| {c['error'].abs().max():.1%})")
            continue
        r = gemm.reproduce(fam, dt)
        big = r["flops"] >= 2.0 ** 35
        print(f"   {fam:9s} {dt:4s} t0 = {sh.t0_s * 1e6:.2f} us, k0 = {sh.k0:.0f}: table vs "
              f"curve mean |error| {r['error'].abs().mean():.1%} (max "
              f"{r['error'].abs().max():.1%}) on all {len(r)}; on the {int(big.sum())} shapes "
              f">= 2^35 FLOPs {r['error'][big].abs().mean():.1%} (max "
              f"{r['error'][big].abs().max():.1%})")
    r = gemm.fp8_speedup("blackwell")
    bins = np.digitize(r["flops"], [0, 2 ** 30, 2 ** 33, 2 ** 35, 2 ** 41])
    med = r.groupby(bins)[["measured", "predicted"]].median()
    print("   B200 FP8:BF16 kernel speed of the same shapes (FP8 peak = 2 x BF16), median per "
          "size bin < 2^30, < 2^33, < 2^35, >= 2^35 FLOPs: measured "
          + ", ".join(f"{x:.2f}" for x in med["measured"]) + "; curve "
          + ", ".join(f"{x:.2f}" for x in med["predicted"]))
    r = attention.reproduce()
    print("   attention kernels: R(s) = R_inf x s / (s + s_half) per kernel, pass, mask and head "
          "dim, fitted to the FlashAttention-3 paper's H100 bars (arXiv:2407.08608 Figs. 5-6, "
          f"{len(r)} points): mean |error| {r['error'].abs().mean():.1%}, max "
          f"{r['error'].abs().max():.1%}; long-sequence plateaus (fraction of the BF16 peak, "
          "head dim 128, forward / backward): " + ", ".join(
              f"{k} {attention.ATTENTION_CURVES[(k, 'forward', False, 128)].r_inf_tflops / 989.4:.2f}"
              f" / {attention.ATTENTION_CURVES[(k, 'backward', False, 128)].r_inf_tflops / 989.4:.2f}"
              for k in attention.KERNELS))
    c = attention.check_curves()
    long = c[c["seq_len"] >= 32768]
    print(f"   checked, nothing fitted, on NVIDIA's own measurement (NVIDIA/cudnn-frontend "
          f"benchmark_results.csv @ b740542: cuDNN 9.1.0 and PyTorch SDPA's FlashAttention-2, "
          f"head dim 128, causal and not, forward and backward, 4k-64k tokens, {len(c)} points): "
          f"mean |error| {c['error'].abs().mean():.1%}, max {c['error'].abs().max():.1%}; at "
          f"32k-64k mean {long['error'].abs().mean():.1%}, max {long['error'].abs().max():.1%}")
    print(f"   sustained share of the burst rates: KERNEL_EFFICIENCY {step.KERNEL_EFFICIENCY} "
          f"(re-derived {step.calibrate_kernel_efficiency():.3f}) with flat GEMMs; with GEMMs by "
          f"shape the residual KERNEL_EFFICIENCY_SHAPE {options.KERNEL_EFFICIENCY_SHAPE} "
          f"(re-derived {step.calibrate_kernel_efficiency(gemm_shape=True):.3f}, Table 4 with "
          "Hopper BF16's shape term standing in for A100's): the shape losses counted once")
    tables = {"off": accuracy.validation_table(False, False, False)}
    tables.update({k: accuracy.validation_table(*f) for k, f in accuracy.MECHANISMS.items()})
    for k, f in {"off": (False, False, False), **accuracy.MECHANISMS}.items():
        a, b = step.calibrate_moe_host_overhead(physics=dict(zip(
            ("gemm_shape", "fp8_as_run", "attention_curve"), f)))
        print(f"   MoE host cost re-fitted on the MoE calibration rows with {k} on: a = "
              f"{a * 1e3:.3f} ms per layer, b = {b * 1e3:.3f} ms per local expert (a, b >= 0)")
    regs = {k: accuracy.regime_table(t) for k, t in tables.items()}
    print("   per regime, held-out rows: mean |error| / signed mean / max |error| / leave-one-out "
          "coverage with the mechanisms off, then each on alone (the MoE host cost re-fitted "
          "under it), then two together and all three: GEMMs by shape (gemm_shape), FP8 as "
          "run (LM head and router in BF16, DeepSeek-V3 §3.3.1, and the quantize / cast / transpose / amax "
          "passes of each row's recipe, weights cast once per step on Megatron-Core; "
          "fp8_as_run), the attention kernel's curve on the FlashAttention stacks "
          "(attention_curve='flash': FlashAttention-2 on PyTorch SDPA, ring merges under CP; "
          "the Transformer Engine stacks keep the flat fraction). Ampere and "
          "AMD rows have no kernel tables; BF16 rows are unchanged by fp8_as_run")
    print(f"   {'regime':56s} {'n':>3s}  " + "  ".join(
        f"{SHORT.get(k, k[:5]):>5s} mean signed   max  cov" for k in tables))
    for label, r in regs["off"].iterrows():
        cells = []
        for k in tables:
            o = regs[k].loc[label]
            cells.append(f"{o['mean_abs_error']:10.1%} {o['mean_signed_error']:+6.1%} "
                         f"{o['max_abs_error']:5.1%} {o['coverage']:4.0%}")
        print(f"   {label:56s} {int(r['n']):3d}  " + "  ".join(cells))
    per_regime, verdict = accuracy.mechanism_comparison()
    print("   verdict (accuracy.mechanism_comparison): on by default only if the held-out mean "
          "|error| falls, no regime's held-out mean |error| rises by more than its noise (the "
          "standard error of that mean, sd/sqrt(n); a one-run regime the pooled within-regime "
          f"sd, {per_regime.loc[per_regime['n'] == 1, 'noise'].max():.1%}; floor "
          f"{accuracy.REGIME_CHANGE_TOLERANCE:.2%}) and the A100 Megatron rows keep mean <= 3 %, "
          "max <= 10 %; alone and with the others on by default:")
    for k, r in verdict.iterrows():
        print(f"     {k:28s} better in {r['better']:2d} regimes, worse beyond noise in "
              f"{r['worse']:2d} (worse at all in {r['worse_any']:2d}); all held-out rows "
              f"{r['all_mean']:.1%}; FP8:BF16 pairs max {r['fp8_pairs_max']:.1%}; A100 Megatron "
              f"mean {r['a100_megatron_mean']:.1%} max {r['a100_megatron_max']:.1%}; passes: "
              f"{r['passes']}; on by default: {r['default_on']}"
              + (f"; worse: {r['worse_regimes']}" if r["worse"] else ""))
    for k in accuracy.KEPT_ON_AGAINST_THE_RULE:
        print(f"     {accuracy.kept_on_words(k, verdict)}")
    for name, f in BUCKETS.items():
        held = {k: t[(t["split"] == "held-out") & f(t)] for k, t in tables.items()}
        print(f"   bucket {name:28s} n {len(held['off']):2d}: mean |error| " + " -> ".join(
            f"{g['error'].abs().mean():.1%}" for g in held.values()) + "; max " + " -> ".join(
            f"{g['error'].abs().max():.1%}" for g in held.values()))
    a100 = {k: t[(t["split"] == "held-out") & (t["gpu_generation"] == "Ampere")
                 & (t["sharding"] == "Megatron 3D")]["error"].abs() for k, t in tables.items()}
    print("   goal, the held-out A100 Megatron rows (mean <= 3%, max <= 10%): " + "; ".join(
        f"{k} mean {e.mean():.1%} max {e.max():.1%}" for k, e in a100.items()))
    cal = accuracy.mechanism_comparison_calibration()
    print("   the same regime test on the calibration rows (the fit set; "
          "accuracy.mechanism_comparison_calibration), each setting against the mechanisms off:")
    for k, r in cal.iterrows():
        print(f"     {k:28s} all calibration rows {r['all_off']:.1%} -> {r['all_on']:.1%}; "
              f"better in {r['better']:2d} regimes, worse beyond noise in {r['worse']:2d}"
              + (f": {r['worse_regimes']}" if r["worse"] else ""))
    for split in ("held-out", "calibration"):
        print(f"   per bucket, {split} rows (fit set = 'calibration'), mean |error| "
              + " -> ".join(tables) + ":")
        for name, f in BUCKETS.items():
            rows = {k: t[(t["split"] == split) & f(t)]["error"].abs() for k, t in tables.items()}
            print(f"     {name:28s} n {len(rows['off']):2d}: " + " -> ".join(
                f"{e.mean():.1%}" for e in rows.values()))
    pairs = {k: accuracy.fp8_bf16_pairs(t) for k, t in tables.items()}
    print("   published FP8:BF16 whole-step speed ratios of the same plan (goal: within 10 %), "
          "predicted with each setting:")
    for i, row in pairs["off"].iterrows():
        print(f"     {row['run_id_bf16']:42s} published {row['published']:.2f}; predicted "
              + " -> ".join(f"{p.loc[i, 'predicted']:.2f} ({p.loc[i, 'error']:+.1%})"
                            for p in pairs.values()))


#: The settings of the MoE / pipeline features added after item 8's first what-ifs, switched off
#: one at a time: what the model predicted before them (k copies per token, a re-gather in every
#: backward, one pipeline schedule per step).
BEFORE_FEATURES = {"moe_dispatch": "per_expert", "fsdp_reshard_after_forward": True,
                   "pipeline_flushes": 1}


def moe_feature_record(sets=("nemo-automodel-h100-moe", "deepseek-v3-h800")):
    """Item 8: the MoE rows before and after the dispatch, reshard and flush features
    (``comm.moe_dispatch_copies``, ``step.fsdp_backward_gathers``, ``compose_pipeline``'s
    ``pipeline_flushes``): the error with all three off (as before), with each one on alone, and
    with all on (the rows as sourced, the error the summary uses). A record, not a fit: every
    setting comes from the row's source."""
    now = step.mfu_validation(sets=sets).set_index("run_id")
    before = step.mfu_validation(sets=sets, physics=BEFORE_FEATURES).set_index("run_id")
    cols = {"before": before["error"]}
    for name in BEFORE_FEATURES:
        only = {k: v for k, v in BEFORE_FEATURES.items() if k != name}
        cols[f"{name} only"] = step.mfu_validation(sets=sets, physics=only).set_index(
            "run_id")["error"]
    cols["after (all)"] = now["error"]
    table = pd.DataFrame(cols)
    table.insert(0, "flushes", now["pipeline_flushes"])
    table.insert(0, "gate", now["moe_gate"])
    print("8. MoE rows before / after the dispatch (DeepEP / DeepSeek per-node copies, fake-gate "
          "locality, node limit), FSDP2 reshard_after_forward and GA-flush features "
          "(MFU error, predicted vs reported):")
    print(table.to_string(float_format=lambda x: f"{x:+.1%}"))
    for run, r in now.iterrows():
        print(f"   {run}: step {r['step_time_s']:.2f} s: all-to-all {r['ep_comm_s']:.2f} s "
              f"(before {before.loc[run, 'ep_comm_s']:.2f}), ZeRO-3/DP {r['dp_comm_s']:.2f} s "
              f"(before {before.loc[run, 'dp_comm_s']:.2f}), bubble "
              f"{r['pipeline_bubble_s']:.2f} s (before {before.loc[run, 'pipeline_bubble_s']:.2f})")
    print("   deepseek-v3-pretrain's published MFU is a whole-run figure (180K H800 GPU-hours "
          "per trillion tokens, everything included), so a steady-state step should come out "
          "above it. Not modelled: torch.distributed.pipelining keeps FSDP's weights and "
          "gradients unsharded until a schedule's last backward (stage.py "
          "backward_maybe_with_nosync): with PP, one gather and one reduce-scatter per schedule, "
          "not per micro-batch (the model's ZeRO-3 time is an upper bound there).")


#: The buckets of newer regimes, each a filter over the validation table's regime columns.
BUCKETS = {
    "FSDP2 < 10B on Hopper": lambda t: (t["gpu_generation"] == "Hopper")
    & (t["sharding"] == "FSDP") & (t["size"] == "< 10B"),
    "FP8": lambda t: t["precision"] == "FP8",
    "MoE": lambda t: t["moe"] == "MoE",
    "long context (> 32k)": lambda t: t["context"] == "> 32k",
    "Blackwell": lambda t: t["gpu_generation"] == "Blackwell",
    "Blackwell dense": lambda t: (t["gpu_generation"] == "Blackwell") & (t["moe"] == "dense"),
}


def regime_report():
    """Item 6: error and leave-one-out band coverage per regime (llmcost.accuracy)."""
    v = accuracy.validation_table()
    t = accuracy.regime_table(v)
    print(f"6. Per regime (GPU generation · sharding · dense/MoE · GEMM dtype · context · size): "
          f"held-out rows, error (predicted / published - 1, MFU on the dense BF16 peak), the "
          f"band from all held-out rows (centre = median error, ± half-width: full-conformal "
          f"{1 - accuracy.ALPHA:.0%} with >= {accuracy.MIN_CONFORMAL_ROWS} rows, else the stated "
          f"default ±{accuracy.DEFAULT_BAND_FRACTION:.0%} or the rows' spread, flagged '*'), and "
          "the leave-one-out coverage (each row's band built without it; every FLOP basis of a "
          "row whose count is not stated must fall inside)")
    print(f"   {'regime':56s} {'n':>3s} {'cal':>3s} {'mean|e|':>8s} {'max|e|':>7s} "
          f"{'signed':>7s} {'band':>16s} {'LOO cov':>8s}")
    for label, r in t.iterrows():
        flag = "" if r["conformal"] else "*"
        print(f"   {label:56s} {int(r['n']):3d} {int(r['n_calibration']):3d} "
              f"{r['mean_abs_error']:8.1%} {r['max_abs_error']:7.1%} {r['mean_signed_error']:+7.1%} "
              f"{r['center']:+7.1%} ±{r['half_width']:5.1%}{flag:1s} {r['coverage']:7.0%}"
              f"{'' if r['loo_conformal'] else ' (default)'}")
    held = v[v["split"] == "held-out"]
    loo = t[t["loo_conformal"]]
    for label, r in loo.iterrows():
        print(f"   goal, LOO coverage >= 90% where the leave-one-out bands are conformal: {label}: "
              f"{r['coverage']:.1%} ({'met' if r['coverage'] >= 0.9 else 'MISSED'})")
    if loo.empty:
        print("   no regime has enough held-out rows for conformal leave-one-out bands")
    for label in loo.index[loo["coverage"] < 0.9]:
        print(f"   {label}: the rows its leave-one-out bands miss, and its held-out signed "
              "error by accelerator")
        rows = accuracy.loo_rows(v, label)
        for rid, r in rows[~rows["covered"]].iterrows():
            print(f"     {rid:40s} {r['accelerator']:12s} error {r['error']:+.1%}, band "
                  f"without it {r['center']:+.1%} ± {r['half_width']:.1%}")
        by = rows.groupby("accelerator")["error"]
        print("     " + "; ".join(f"{a} n {int(n)}: mean {m:+.1%} ({lo:+.1%} to {hi:+.1%})"
                                  for a, n, m, lo, hi in zip(by.mean().index, by.size(),
                                                             by.mean(), by.min(), by.max())))
    same_plan_pairs(v)
    a100 = held[(held["gpu_generation"] == "Ampere") & (held["sharding"] == "Megatron 3D")]
    e = a100["error"].abs()
    print(f"   goal, the {len(a100)} held-out A100 Megatron rows: mean |error| {e.mean():.1%} "
          f"(<= 3%: {'met' if e.mean() <= 0.03 else 'MISSED'}), max {e.max():.1%} "
          f"(<= 10%: {'met' if e.max() <= 0.10 + 1e-9 else 'MISSED'})")
    default = t[~t["loo_conformal"]]
    w = (default["coverage"] * default["n"]).sum() / default["n"].sum()
    print(f"   regimes below {accuracy.MIN_CONFORMAL_ROWS + 1} held-out rows (stated default "
          f"bands, n = {int(default['n'].sum())} rows in {len(default)} regimes): pooled "
          f"leave-one-out coverage {w:.0%}")
    print("   the buckets of newer regimes (held-out rows; aim >= 5 each):")
    for name, f in BUCKETS.items():
        g = held[f(held)]
        new = g[g["set"].isin(step.NEWER_SETS)]
        print(f"   {name:28s} held-out {len(g):2d} (new {len(new):2d}); mean |error| "
              f"{g['error'].abs().mean():.1%}, signed {g['error'].mean():+.1%}, max "
              f"{g['error'].abs().max():.1%}")
        worst = g.reindex(g["error"].abs().sort_values(ascending=False).index).head(3)
        print(f"   {'':28s} its largest: " + "; ".join(
            f"{r['run_id']} {r['error']:+.1%}" for _, r in worst.iterrows()))
    independence_report(held, t)


def independence_report(held, t):
    """Item 6, continued: each regime's and bucket's held-out mean / max |error| over all its
    held-out rows, over those without a calibration twin (``step_validation.calibration_twins``)
    and over those whose plan was not corrected after their error was seen
    (``step_validation.PLAN_CORRECTED_AFTER_ERROR``)."""
    flags = step_validation.calibration_twins()
    held = held.join(flags, on="run_id")
    print("   the split is by row (md5 of the run id), not by configuration: Megatron-Bridge "
          "re-measures the same system, model, precision, GPUs and plan release after release, "
          f"so {int(held['has_twin'].sum())} of the {len(held)} held-out rows have a "
          "calibration twin (the same configuration among the calibration rows, whose errors "
          "the constants were written with) and are not independent of them; and "
          f"{int((held['plan_corrected_after_error'] != '').sum())} held-out rows had their "
          "priced plan corrected from the table's to the release's recipe after their error "
          "was seen. Held-out mean / max |error|: all rows | without a calibration twin | "
          "without a corrected plan:")

    def cells(g):
        out = []
        for sub in (g, g[~g["has_twin"]], g[g["plan_corrected_after_error"] == ""]):
            e = sub["error"].abs()
            out.append(f"n {len(sub):3d} {e.mean():6.1%} / {e.max():6.1%}" if len(sub)
                       else f"n {0:3d} {'-':>6s} / {'-':>6s}")
        return " | ".join(out)

    for label in t.index:
        print(f"   {label:56s} " + cells(held[held["regime"] == label]))
    for name, f in BUCKETS.items():
        print(f"   bucket {name:49s} " + cells(held[f(held)]))
    print(f"   {'all held-out rows':56s} " + cells(held))
    for rid, why in step_validation.PLAN_CORRECTED_AFTER_ERROR.items():
        e = held.set_index("run_id")["error"].get(rid)
        print(f"   plan corrected after its error was seen: {rid} ({why}): error now "
              + (f"{e:+.1%}" if e is not None else "not held out"))


def same_plan_pairs(v):
    """GB300 against GB200 on the same plan (run ids that differ only in ``gb300`` /
    ``gb200``, the same ``plan``): the published tokens/s ratio and the engine's. The catalogue
    gives the two the same dense BF16 / FP8 peaks and GEMM rates (data/accelerators.csv,
    data/efficiency.csv: GB300's matmul_fraction is GB200's, no GB300 GEMM measurement found)."""
    b = v.set_index("run_id")
    out = []
    for rid in b.index[b.index.str.contains("-gb300-")]:
        o = rid.replace("-gb300-", "-gb200-")
        if o in b.index and b.loc[rid, "plan"] == b.loc[o, "plan"]:
            out.append((rid, b.loc[rid, "reported_mfu"] / b.loc[o, "reported_mfu"],
                        b.loc[rid, "predicted_mfu"] / b.loc[o, "predicted_mfu"]))
    print(f"   the same plan on GB300 and GB200 ({len(out)} pairs, MFU on the same peaks): "
          "GB300 / GB200 published vs predicted: " + "; ".join(
              f"{rid.replace('-gb300-', '-gb300|200-')} {p:.2f} vs {q:.2f}" for rid, p, q in out))
    gemm_evidence()


def gemm_evidence():
    """The published GEMM ceilings beside the pairs (data/gemm_mamf_blackwell.csv, stas00's
    MAMF table): Blackwell Ultra (HGX B300) against Blackwell (HGX B200) per dtype, GB200's own
    measurement, and the BF16 rate the catalogue prices GB200 and GB300 at (matmul_fraction ×
    dense BF16 peak). No GB300 GEMM measurement is published.

    GB300's own tensor-core evidence is cuDNN's attention benchmark (NVIDIA/cudnn-frontend
    sdpa_benchmark_training results @ fb682ce7, data/attention_kernel_blackwell.csv): its BF16
    forward (two matmuls with the softmax between them) reaches 1,991 TFLOPS on GB300 (1,743 on
    GB200, whose own GEMM MAMF, 1,822, is above its attention rate, as expected), above HGX
    B300's GEMM MAMF (1,769). Tried as GB300's matmul ceiling (matmul_fraction 0.796 in
    data/efficiency.csv, one run of this script, 2026-12-03): GB300's dense FP8 held-out rows
    -9.6 % -> +0.5 % (mean signed), the Blackwell · Megatron 3D · dense · FP8 regime mean |error|
    8.9 % -> 6.0 % but its LOO coverage 88 % -> 88 %; the MoE · FP8 regime 9.3 % -> 9.2 % with
    LOO coverage 91 % -> 87 % (goal missed), MoE · BF16 24.7 % -> 27.0 % (GB300's gpt-oss rows
    +17 % -> +25 %); buckets FP8 9.5 -> 8.8 %, MoE 11.5 -> 11.7 %, Blackwell 10.6 -> 10.0 %,
    Blackwell dense 8.4 -> 5.8 %; A100 Megatron unchanged; and the Blackwell attention
    mechanism's default-on rule then fails (dense FP8 5.2 -> 6.0 %, noise 0.8 %). Mixed, one
    goal lost: left off. The one fraction serves every dtype, so the BF16 floor would also set
    GB300's FP8 rate (3,982 TFLOPS), above any Blackwell FP8 measurement (GB200's 3,616)."""
    m = load_gemm_mamf().set_index(["accelerator_measured", "dtype"])["mamf_tflops"]
    ratios = "; ".join(f"{d.upper()} {m[('B300 SXM', d)]:.0f} / {m[('B200 SXM', d)]:.0f} = "
                       f"{m[('B300 SXM', d)] / m[('B200 SXM', d)]:.3f}" for d in ("bf16", "fp8"))
    priced = {a: load_efficiency(a).matmul_fraction * load_accelerator(a).peak_flops_per_s("bf16")
              / 1e12 for a in ("GB200-NVL72", "GB300-NVL72")}
    print(f"   published GEMM ceilings (stas00 MAMF): B300 / B200 {ratios}; GB200's own BF16 "
          f"{m[('GB200 SXM', 'bf16')]:.0f}, FP8 {m[('GB200 SXM', 'fp8')]:.0f} TFLOPS; no GB300 "
          f"row. Priced BF16 rate: GB200 {priced['GB200-NVL72']:.0f}, GB300 "
          f"{priced['GB300-NVL72']:.0f} TFLOPS (GB300 / GB200 "
          f"{priced['GB300-NVL72'] / priced['GB200-NVL72']:.3f})")
    a = pd.read_csv(attention.ATTENTION_BLACKWELL_CSV)
    a = a[(a["dtype"] == "bf16") & (a["pass"] == "forward")]
    best = a.groupby("accelerator")["tflops"].max()
    print(f"   GB300's own tensor-core measurement: cuDNN's BF16 attention forward (its two "
          f"matmuls, data/attention_kernel_blackwell.csv) reaches {best['GB300-NVL72']:.0f} "
          f"TFLOPS on GB300 against {best['GB200-NVL72']:.0f} on GB200 ("
          f"{best['GB300-NVL72'] / best['GB200-NVL72']:.2f}x), above HGX B300's GEMM MAMF "
          f"({m[('B300 SXM', 'bf16')]:.0f}): the HGX B300 ceiling does not bound GB300. A plain "
          f"GEMM at least as fast (no softmax between its matmuls) would be a matmul_fraction of "
          f"{best['GB300-NVL72'] * 1e12 / load_accelerator('GB300-NVL72').peak_flops_per_s('bf16'):.3f} "
          "(tried, left off: gemm_evidence's docstring)")
    b300, b200 = HGX_ULTRA_PAIR["B300"], HGX_ULTRA_PAIR["B200"]
    print(f"   Blackwell Ultra on x86 hosts, identical recipe ({HGX_ULTRA_PAIR['what']}): "
          f"DGX-B300 {b300} / DGX-B200 {b200} tokens/s/GPU = {b300 / b200:.3f}x: the GB300 / "
          "GB200 gap is not Grace- or NVL72-specific")


#: The same Megatron-Bridge recipe on DGX-B300 and DGX-B200 (both x86-hosted HGX systems):
#: docs/performance-summary-archive.md at 067f987df, section '26.04 NeMo Container', Model
#: DeepSeekV3, MXFP8, 256 GPUs, GBS 4096, MBS 1, PP 16, EP 8, tokens/s/GPU; the recipes
#: DEEPSEEK_V3_PRETRAIN_CONFIG_B300_V2 and _B200_V2 (scripts/performance/configs/deepseek/
#: deepseek_workload_base_configs.py at 74695a06d) set the same fields (PP 16, EP 8,
#: recompute_modules ['mla_up_proj'], the hybridep dispatcher, no EP overlap). Not a
#: validation row (B300 is not in the catalogue); the systems' NICs may differ.
HGX_ULTRA_PAIR = {"B300": 3131, "B200": 2815,
                  "what": "Megatron-Bridge 26.04, DeepSeek-V3 MXFP8, 256 GPUs, PP 16, EP 8"}


def newer_sets():
    """Item 10: the newer regimes' public rows (step.NEWER_SETS), row by row."""
    v = accuracy.validation_table()
    cols = ["run_id", "split", "n_gpus", "dtype", "seq_len", "plan", "reported_mfu",
            "predicted_mfu", "error"]
    fmt = {"reported_mfu": "{:.1%}".format, "predicted_mfu": "{:.1%}".format,
           "error": "{:+.1%}".format}
    print("10. The newer regimes' rows (added with their split before their errors were "
          "computed; MFU on the dense BF16 peak, FP8 runs included):")
    for name in step.NEWER_SETS:
        g = v[v["set"] == name]
        print(f"10.{step.NEWER_SETS.index(name) + 1} {name}")
        print(g[cols].to_string(index=False, formatters=fmt))


def zero3_with_nic_aggregation(run_id: str) -> float:
    """Predicted MFU of one DeepSpeed ZeRO-3 row of Narayanan et al. 2021 Table 2 with
    ``fsdp_nic_aggregation=True`` (the alternative the 175B calibration rows rejected)."""
    r = llmcost.load_published_runs().set_index("run_id").loc[run_id]
    c = pd.read_csv(DATA_DIR / "validation_mfu.csv").set_index("run_id")
    c = c.loc[run_id]
    s, n = int(r["seq_len"]), int(r["n_accelerators"])
    spec = step.gpt_model(run_id, int(r["layers"]), int(r["d_model"]), int(r["n_heads"]))
    plan = parallel.make_plan(spec, n, int(r["global_batch_tokens"]) // s, tp=1, pp=1,
                              micro_batch_size=int(c["micro_batch_size"]), zero_stage=3,
                              recompute="full", seq_len=s)
    b = step.step_time(spec, llmcost.Cluster(llmcost.load_accelerator("A100-80GB"), n), plan, s,
                       recipe=c["optimizer_recipe"], flash_attention=False, dropout=True,
                       tp_overlap="none", pp_overlap=False, dp_overlap=True,
                       stack="deepspeed-zero3-2021", fsdp_nic_aggregation=True)
    return float(b.mfu)


def llama3_with_virtual_stages(run_id: str, virtual_stages: int) -> float:
    """Predicted MFU of one Llama 3 Table 4 row with another number of virtual stages (the
    sensitivity to the assumed v = 8); the other settings as data/validation_mfu.csv."""
    r = llmcost.load_published_runs().set_index("run_id").loc[run_id]
    spec = llmcost.load_model("llama-3.1-405b")
    s, n = int(r["seq_len"]), int(r["n_accelerators"])
    cp = int(r["cp"]) if np.isfinite(r["cp"]) else 1
    plan = parallel.make_plan(spec, n, int(r["global_batch_tokens"]) // s, tp=8, pp=16, cp=cp,
                              zero_stage=2, schedule="interleaved",
                              virtual_stages=virtual_stages, pp_split="embedding_and_loss",
                              seq_len=s, recompute="none", sequence_parallel=True)
    b = step.step_time(spec, llmcost.Cluster(llmcost.load_accelerator("H100-SXM"), n), plan, s,
                       recipe="bf16_adam_fp32_grads", flash_attention=True, dropout=False,
                       tp_overlap="backward", pp_overlap=True, dp_overlap=True,
                       cp_overlap=False,  # Llama 3's K/V all-gather (step_validation)
                       stack="megatron-core-2025")  # ZeRO-2 (Megatron-FSDP), as item 5
    return float(b.mfu)


def h100_kernel_efficiency():
    """Does one kernel-efficiency constant cover A100 and H100? Fit one on the H100 8K-context
    rows of Llama 3 Table 4 and test it on the held-out 128K row, against the shipped constant
    (fitted on A100 layer times). Printed for the record; the shipped constant stays global."""
    grid = np.round(np.arange(0.60, 1.0 + 1e-9, 0.005), 3)
    def rows(k):
        v = step.mfu_validation(float(k), sets=("llama3-table4",))
        return v[v["kind"] == "tp-pp-dp"]["error"], v[v["kind"] == "cp"]["error"]
    fit = [rows(k)[0].abs().mean() for k in grid]
    k_h = float(grid[int(np.argmin(fit))])
    fit_in, fit_out = rows(k_h)
    ship_in, ship_out = rows(step.KERNEL_EFFICIENCY)
    print(f"7. One kernel constant for A100 and H100? shipped {step.KERNEL_EFFICIENCY} (A100 layer "
          f"times): H100 8K rows mean |error| {ship_in.abs().mean():.1%}, 128K row "
          f"{ship_out.iloc[0]:+.1%}. Fitted on the H100 8K rows (n = {len(fit_in)}): {k_h:.3f}, "
          f"in-sample mean {fit_in.abs().mean():.1%}; held-out 128K row {fit_out.iloc[0]:+.1%}.")
    worse = abs(fit_out.iloc[0]) > abs(ship_out.iloc[0])
    print("   " + ("The H100 fit makes the held-out row worse: the shipped constant stays global "
                   "(two H100 calibration rows are too few to carry a constant of their own)."
                   if worse else "The H100 fit also improves the held-out row: an H100 constant "
                   "would be justified once an independent H100 calibration set exists."))


def straggler_effect():
    """The straggler wait (``llmcost.straggler``: compute × σ·(e(N) − e(8)), σ = 1.48%
    from Sinha et al. SC22, not fitted to any row): every set's errors with and without it
    (``accuracy.straggler_comparison``, the figures notebook 04 prints)."""
    from llmcost import straggler
    per_set, per_row = accuracy.straggler_comparison()
    moved = per_row[per_row["n_gpus"] > straggler.N_CALIBRATION]["mfu_change"].abs()
    print(f"9. The straggler wait (llmcost.straggler, σ = {straggler.GPU_SPEED_CV:.2%} from "
          f"Sinha et al. SC22; +{straggler.straggler_slowdown(1024):.1%} of the compute at "
          f"1,024 GPUs, +{straggler.straggler_slowdown(16384):.1%} at 16,384; predicted MFU "
          f"{moved.min():.1%}-{moved.max():.1%} lower on the rows above "
          f"{straggler.N_CALIBRATION} GPUs): per set, mean / max |error| and mean signed error "
          "without -> with it")
    for key, r in per_set.iterrows():
        print(f"   {key[0]:<24} {key[1]:<11} n {int(r['n']):>2}: mean {r['off_mean']:.1%} "
              f"-> {r['on_mean']:.1%}, max {r['off_max']:.1%} -> {r['on_max']:.1%}, signed "
              f"{r['off_signed']:+.1%} -> {r['on_signed']:+.1%}")


def fp8_padding_report():
    """Item 23: which FP8 recipe the Qwen3-30B-A3B 'fp8' rows ran (Megatron-Bridge tables and
    recipes at their commits), and the grouped MLP's explicit FP8 padding
    (``step_validation.fp8_padding_reading``, ``moe_layer.fp8_padding_cost_s``) on the rows whose
    dispatch leaves it to run: a reading, not an engine term."""
    t = step_validation.fp8_padding_reading()
    print("23. The worst MoE/FP8 rows (Qwen3-30B-A3B): the FP8 recipe each 'fp8' row ran, and the "
          "grouped MLP's explicit FP8 padding (Megatron-Core TEGroupedMLP Fp8Padding / "
          "Fp8Unpadding @ 0d8e0714cd29, one fused Transformer Engine kernel per call @ v2.9; "
          f"{moe_layer.FP8_PADDING_CALLS} calls at the engine's host time per call + "
          f"{moe_layer.FP8_PADDING_PASSES} read-and-write passes of the routed activations at "
          "burst HBM bandwidth, per MoE layer per micro-batch) where the row's dispatch leaves "
          "each expert's tokens unaligned:")
    print("   recipes: 25.09's Blackwell 'fp8' figures are FP8-CS (the table's 'X (Y)' = FP8-CS "
          "(MXFP8): Llama 3 8B on GB200 31,357 (29,925) in 25.09, 31,508 (29,789) labelled "
          "'FP8-CS (FP8-MX)' in 25.11; the 25.09 YAML qwen3_30b_a3b_llm_pretrain.yaml @ "
          "fa0315ae2 has fp8_cs and fp8_mx entries only, and the H100 row's MBS 2 is its "
          "fp8_cs entry's); the same YAML sets cuda_graphs: true on B200 and GB200 (per-layer "
          "graphs, the padded MoE layer included; the B200 plan there, PP 8 x VP 12, is not the "
          "table's), false on H100: a host term of FP8-CS launches would not reach graphed "
          "layers as it reaches the eager H100 rows; no Qwen3 perf recipe at 7af9601c9, "
          "97ad8cc6f, 21b02e0cf, c81012934 or "
          "fa0315ae2 sets moe_router_padding_for_fp8 (nor _for_quantization)")
    for run_id, r in t.iterrows():
        how = (f"pads, {r['pad_ms']:.2f} ms x layer-mbs = +{r['added_s']:.2f} s"
               if r["pads"] else "no-op (aligned by HybridEP or capacity)")
        print(f"   {run_id:36s} {r['split']:11s} {how:45s} gap {r['gap_ms']:5.2f} ms  "
              f"error {r['error']:+.1%} -> {r['error_with']:+.1%}")
    old = t.loc[["mb2511-h100-qwen3-30b-a3b-fp8cs", "mb2602-h100-qwen3-30b-a3b-fp8cs"]]
    new = t.loc[["mb2604-h100-qwen3-30b-a3b-fp8cs", "mb2606-h100-qwen3-30b-a3b-fp8cs"]]
    held = t[t["split"] == "held-out"]["error_with"].abs()
    print(f"   (a fused pass, not a per-expert loop: {old['pad_ms'].mean():.2f} ms of the "
          f"{old['gap_ms'].mean() - new['gap_ms'].mean():.1f} ms per MoE layer per micro-batch "
          "that separate the 25.11 / 26.02 H100 recipe from the 26.04 / 26.06 one; the worst "
          f"held-out row stays at {held.max():+.1%}: not in the engine)")
    fp8cs_eager_report()


#: The rows item 23 follows under the FP8-CS launches on eager layers only.
FP8CS_EAGER_WATCH = ("mb2511-h100-qwen3-30b-a3b-fp8cs", "mb2602-h100-qwen3-30b-a3b-fp8cs",
                     "mb2509-b200-qwen3-30b-a3b-fp8", "mb2509-gb200-qwen3-30b-a3b-fp8",
                     "mb2509-b200-deepseek-v3-fp8", "mb2509-h100-qwen3-30b-a3b-fp8",
                     "mb2509-b200-qwen3-235b-a22b-fp8", "mb2604-h100-qwen3-30b-a3b-fp8cs",
                     "mb2606-h100-qwen3-30b-a3b-fp8cs", "mb260401-gb200-gpt-oss-120b-bf16")


def fp8cs_eager_report():
    """Item 23, continued: FP8 current scaling's extra quantize launches on the eager layers only
    (``accuracy.fp8cs_eager_launch_comparison``; the 25.09 rows whose layers their YAML graphs,
    ``step_validation.LAYER_GRAPHED_FP8CS_ROWS``, spared), judged by the rule; off by default."""
    off, on = (t.set_index("run_id") for t in accuracy.fp8cs_eager_launch_table())
    spared = ", ".join(sorted(step_validation.LAYER_GRAPHED_FP8CS_ROWS))
    print("   candidate: the FP8-CS launches (StepOptions.fp8cs_expert_launches, MoE host "
          "constants re-fitted under it) on eager layers only, the 25.09 FP8-CS rows whose YAML "
          f"graphs every layer spared ({spared}; "
          "no calibration row among them, so the re-fit is the switch's); shipped -> candidate:")
    print("     " + "; ".join(f"{k} ({off.loc[k, 'split']}) {off.loc[k, 'error']:+.1%} -> "
                              f"{on.loc[k, 'error']:+.1%}" for k in FP8CS_EAGER_WATCH))
    print_buckets({"shipped": off, "candidate": on}, 9)
    for name in ("MoE", "FP8"):
        held = on[BUCKETS[name](on) & (on["split"] == "held-out")]["error"].abs()
        print(f"     candidate's worst held-out {name} row: {held.idxmax()} {held.max():.1%}")
    print_comparison(accuracy.fp8cs_eager_launch_comparison, ("held-out", "calibration"),
                     "     {split} rows, mean |error| per regime that moves, shipped -> candidate:")
    print("     left off by default: the later H100 FP8-CS recipe's rows (HybridEP, 8 local "
          "experts, eager) and the spared rows, through the re-fit's smaller per-expert "
          "constant, move away; no code path that the 25.11 / 26.02 H100 recipe runs and the "
          "26.04 one does not was found to carry FP8-CS's launches alone")



def recipe_settings_report():
    """Item 24: the worst H100 MoE rows' recipe against the later ones', setting by setting
    (``step_validation.h100_qwen3_recipe_table``; sources in ``H100_QWEN3_RECIPE_SETTINGS``)."""
    rel = step_validation.H100_QWEN3_RELEASES
    print("24. The worst H100 MoE rows' recipe, release by release: Megatron-Bridge's "
          "Qwen3-30B-A3B FP8-CS on 16 H100 (scripts/performance/configs at " + ", ".join(
              f"{r} {v[1]}" for r, v in rel.items()) + "), every setting that differs, the "
          "engine's field for it and whether each row is priced with the recipe's value:")
    t = step_validation.h100_qwen3_recipe_table()
    cols = list(rel)
    d = t[t["differs"]]
    w = max(len(str(k)) for k in t.index)
    print(f"   {'setting':{w}s} " + " ".join(f"{c:>13s}" for c in cols) + "  priced as run")
    for name, r in d.iterrows():
        vals = " ".join(f"{str(r[c])[:13]:>13s}" for c in cols)
        how = {True: "yes", False: "NO", None: "-"}[r["priced_as_run"]]
        print(f"   {name:{w}s} {vals}  {how:3s} ({r['engine']})")
    same = t[~t["differs"]]
    print("   alike at every release, priced as run: " + "; ".join(
        f"{k} {t.loc[k, cols[0]]}" for k in same.index) + "; and, not priced, "
        + "; ".join(step_validation.H100_QWEN3_COMMON_SETTINGS))
    runs = load_published_runs().set_index("run_id")
    tokendrop = "mb2509-h100-qwen3-30b-a3b-fp8"
    gap = step_validation.moe_gpu_gap([v[0] for v in rel.values()] + [tokendrop])
    print("   per release: " + "; ".join(
        f"{r} {runs.loc[v[0], 'reported_tokens_per_sec_per_gpu']:,.0f} tokens/s/GPU, error "
        f"{gap.loc[v[0], 'error']:+.1%}, {gap.loc[v[0], 'gap_ms']:.1f} ms per MoE layer per "
        "micro-batch beyond the GPU-side step" for r, v in rel.items()))
    a, b = runs.loc[rel["26.02"][0]], runs.loc[rel["26.02.01"][0]]
    print(f"   26.02 -> 26.02.01: the same Megatron-Core (Megatron-LM {rel['26.02'][2]} -> "
          f"{rel['26.02.01'][2]}: 13 commits on core_r0.16.0, version bumps, CI, docs, a "
          "checkpoint-worker GC fix and a Mamba uneven-PP fix, none in MoE, dispatch, FP8 or the "
          "pipeline schedules) and Transformer Engine pin; Megatron-Bridge's training code "
          "changed in config logging, an LR-warmup cap and checkpointing; the perf recipe "
          "changed (PR #2477, f29a269f8): "
          f"{a['reported_tokens_per_sec_per_gpu']:,.0f} -> "
          f"{b['reported_tokens_per_sec_per_gpu']:,.0f} tokens/s/GPU, "
          f"{b['reported_tokens_per_sec_per_gpu'] / a['reported_tokens_per_sec_per_gpu']:.2f}x "
          "(the 26.02.01 table repeats 26.02's plan columns; its row is priced with the recipe "
          "at its release tag, data/validation_mfu.csv)")
    recipe_path_report(runs, rel)
    print("   reading: the settings the engine does not price cannot part 26.02 from 26.02.01 "
          "(CUDA_DEVICE_MAX_CONNECTIONS 32 and the layernorm SM margin 20 in both; "
          "delay_wgrad_compute worth 0.4 % in NVIDIA's A/B; the HybridEP variables only in the "
          "well-priced rows); what does are settings every row carries and the engine prices: "
          "PP 2 x VP 12 under the merged 1F1B of the EP overlap, EP 8 (16 local experts, and "
          "with them twice FP8-CS's per-expert quantize launches), DeepEP against HybridEP "
          "(25.11's all-to-all dispatcher is as slow as 26.02's DeepEP per "
          "micro-batch; 25.09's PP 2 x VP 24 without the overlap, token-dropping at MBS 2, is "
          f"priced at {gap.loc[tokendrop, 'error']:+.1%}); no published A/B on H100 isolates "
          "one of them (no engine change)")


def recipe_path_report(runs, rel):
    """Item 24, continued: the 26.02 row priced one recipe setting at a time toward 26.02.01's
    recipe (``step_validation.MB2602_TO_260201_READINGS``), against the published ratio."""
    a, b = rel["26.02"][0], rel["26.02.01"][0]
    t = step_validation.row_readings(a, step_validation.MB2602_TO_260201_READINGS)
    pub = (runs.loc[b, "reported_tokens_per_sec_per_gpu"]
           / runs.loc[a, "reported_tokens_per_sec_per_gpu"])
    base = t.loc["as priced", "step_time_s"]
    print("   the engine's path from 26.02's recipe to 26.02.01's, one setting at a time "
          f"(predicted step, GBS 1024; 26.02 published {base * (1 + t.loc['as priced', 'error']):.2f} s): "
          + "; ".join(f"{k} {r['step_time_s']:.2f} s (host {r['moe_host_s']:.2f}, all-to-all "
                      f"{r['ep_comm_s']:.2f}, P2P + stage imbalance "
                      f"{r['pp_comm_s'] + r['stage_imbalance_s']:.2f})" for k, r in t.iterrows()))
    last = t.iloc[-1]["step_time_s"]
    print(f"   predicted 26.02 / 26.02.01 step {base / last:.2f}x against {pub:.2f}x published: "
          f"the engine prices {base - last:.1f} s of the "
          f"{base * (1 + t.loc['as priced', 'error']) * (1 - 1 / pub):.1f} s the recipe change "
          "saved (the missing part is in the rows' gap above)")


def fa1_length_report():
    """Item 25: the FlashAttention-1 length curve (``StepOptions.fa1_length``;
    ``attention.fa1_length_curve``): the flat FlashAttention-1 fraction scaled by sequence
    length as FlashAttention-1's measured bars at the row's own head dimension rise, its anchor
    fitted on the calibration rows (``accuracy.fa1_anchor_fit``), judged by the rule on both
    splits (flat -> curve), the long rows that move and the buckets. Read after the
    long-context rows' errors were seen."""
    anchor, fit, flat = accuracy.fa1_anchor_fit()
    lengths = (512, 2048, 16384, 65536)
    factors = "; ".join(
        f"{acc} head dim {hd} " + ", ".join(
            f"{float(attention.fa1_length_factor(acc, s, hd, anchor)):.2f}" for s in lengths)
        for acc in ("A100-80GB", "H100-SXM") for hd in (64, 128))
    on = "on by default" if options.StepOptions().fa1_length is not False else "a candidate, off"
    print(f"25. The FlashAttention-1 stack's attention rate by sequence length (fa1_length, {on}): "
          "llm-foundry's 2023-10 tables ran the Triton FlashAttention kernel "
          "(submit_benchmarks.py @ b2a43a147: --attn_impl default 'triton'; sweep.sh passes none; "
          "llmfoundry/models/layers/flash_attn_triton.py @ v0.3.0, 'Copied from HazyResearch/"
          "flash-attention'; TUTORIAL.md @ b2a43a147: 'In our experience, triton is slightly "
          "faster than flash'), whose rate by length is not published: the flat fraction is "
          "scaled by the shape of FlashAttention-1's measured forward + backward bars at the "
          "row's head dimension, the nearer of 64 and 128 (Dao 2023, arXiv:2307.08691, causal, "
          "512-16K tokens, held beyond: Fig. 4(c) / 4(d) A100, Fig. 7(c) / 7(d) H100), the flat "
          "fraction holding at the anchor; the anchor fitted on the calibration rows: "
          f"{anchor:,.0f} tokens (their mean |error| {flat:.2%} flat -> {fit:.2%}); rate / flat "
          f"rate at 512, 2K, 16K, 64K tokens: {factors}. Mean |error| per regime that moves, "
          "flat -> length curve:")
    print_comparison(accuracy.fa1_length_comparison)
    tables = {"flat": accuracy.fa1_length_table(False),
              "fa1 length": accuracy.fa1_length_table(True)}
    foundry_checkpointing_table(tables["fa1 length"], ", length curve")
    off, on_t, moved = moved_rows(tables, long_only=True)
    print("   the long rows that move: " + row_moves(off, on_t, moved))
    print_buckets(tables, width=10)
    print("   the shape is FlashAttention-1's CUDA kernel's, carried to the Triton kernel the rows "
          "ran (no measurement of it by length exists); each row takes the series measured at the "
          "head dimension nearer its own (a rule, not a series chosen by the rows' errors); the "
          "checkpointed rows keep their offset (the recompute, item 22)")


if __name__ == "__main__":
    main()
