"""From pilot to production: calibrate on the smallest run(s) of each published scaling series,
predict the others (``llmcost.training.calibrate``).

A series is one source measuring one model on one stack and accelerator in one dtype at several
GPU counts, plans or sequence lengths, from ``data/validation_mfu.csv`` (sources in its ``source``
column and ``data/published_runs.csv``): Narayanan et al. 2021 Table 1 (weak scaling: the model
grows with the GPUs) and Table 2 (strong scaling, PTD-P and DeepSpeed ZeRO-3 rows), Korthikanti
et al. 2022 Table 5, Llama 3 Table 4, MosaicML llm-foundry's MPT tables (8-512 GPUs, sequence
sweeps at 8 GPUs), torchtitan's H100 / H200 benchmarks, NeMo AutoModel's DeepSeek-V3 rows, NeMo's
long-sequence table. The pilot is the series' smallest GPU count at its most common sequence
length (the shortest where none repeats).

Prints: 0. the pilot-to-target drift of the model's error (``calibrate.PILOT_DRIFT``, measured
here); 1-2. per series and overall the mean / max |error| of the other runs' MFU (predicted ÷
published - 1): uncalibrated (the engine as shipped), one-scale pilot (shipped shrinkage), the
naive one-factor fit (every correction carried whole), the one-scale pilot leave-one-series-out
(the drift re-measured without the series) and the two-scale pilot (the two smallest GPU counts:
compute + scale-out factors; series with >= 3 counts); 3. the band's coverage, in-sample and
leave-one-series-out.
"""

import math

import numpy as np
import pandas as pd

from llmcost.training import calibrate as cal
from llmcost.training import step

SETS = step.VALIDATION_SETS + step.NEWER_SETS
NAIVE = {"same_kernels": 0.0, "other_kernels": 0.0}   # zero drift: every correction carried


def series_table():
    """The scaling series: {name: rows sorted pilot first}."""
    v = step.mfu_validation(sets=SETS)
    v["base"] = v["model"].str.replace(r" \(.*", "", regex=True)
    v.loc[v["set"].isin(["megatron21-table1", "korthikanti22-table5"]), "base"] = "weak scaling"
    out = {}
    for key, g in v.groupby(["set", "base", "accelerator", "dtype"]):
        if len(g) >= 2 and (g["n_gpus"].nunique() > 1 or g["plan"].nunique() > 1
                            or g["seq_len"].nunique() > 1):
            s = g["seq_len"].mode().min()
            g = g.assign(other_s=g["seq_len"] != s)
            out[" · ".join(key)] = g.sort_values(["n_gpus", "other_s"]).reset_index(drop=True)
    return out


def pilots_of(series, idx):
    return [cal.published_pilot(series.loc[i, "run_id"], series.loc[i, "reported_mfu"])
            for i in idx]


def targets_of(series, idx):
    return [(r["run_id"], cal.published_pilot(r["run_id"], r["reported_mfu"]))
            for i, r in series.iterrows() if i not in idx]


def predict(c, targets, drift=None):
    """Errors of the targets' MFU with calibration ``c``."""
    p0 = min(c.pilots, key=lambda p: p.n_gpus)
    i0 = c.pilots.index(p0)
    r_p = math.log(c.measured_mfu[i0] / c.uncalibrated_mfu[i0])
    rows = []
    for run, t in targets:
        x = cal.extrapolate(c, t.model, t.plan, t.seq_len, options=t.options, drift=drift)
        meas = cal.measured_mfu(t)
        rows.append({"run_id": run, "uncal": x.uncalibrated_mfu / meas - 1,
                     "pilot": x.mfu / meas - 1, "n_novel": len(x.novelties),
                     "transfer": x.transfer, "same": cal.same_kernels(p0, t.model, t.plan,
                                                                     t.seq_len),
                     "drift": math.log(meas / x.uncalibrated_mfu) - r_p})
    return pd.DataFrame(rows)


def drift_of(frames):
    d = pd.concat(frames)
    return {"same_kernels": float(np.sqrt((d[d["same"]]["drift"] ** 2).mean())),
            "other_kernels": float(np.sqrt((d[~d["same"]]["drift"] ** 2).mean()))}


def fmt(e, col="pilot"):
    return f"{e[col].abs().mean():5.1%}/{e[col].abs().max():5.1%}" if len(e) else "   (none)  "


def main():
    table = series_table()
    one, naive, two, facts, targets, skipped = {}, {}, {}, {}, {}, {}
    for name, g in table.items():
        try:
            c = cal.calibrate(pilots_of(g, [0]))
        except ValueError as err:
            skipped[name] = str(err)
            continue
        facts[name], targets[name] = c, targets_of(g, [0])
        one[name] = predict(c, targets[name])
        naive[name] = predict(c, targets[name], NAIVE)
        same_s = g[g["seq_len"] == g.loc[0, "seq_len"]].drop_duplicates("n_gpus")
        if len(same_s) >= 3:
            idx = list(same_s.index[:2])
            two[name] = predict(cal.calibrate(pilots_of(g, idx)), targets_of(g, idx))
    measured = drift_of(one.values())
    print(f"0. Pilot-to-target drift of the model's error (RMS of log(published/predicted) at the "
          f"target minus at the pilot): same kernels {measured['same_kernels']:.3f} "
          f"(n {sum(int(e['same'].sum()) for e in one.values())}), other kernels "
          f"{measured['other_kernels']:.3f} (n "
          f"{sum(int((~e['same']).sum()) for e in one.values())}); shipped "
          f"calibrate.PILOT_DRIFT = {cal.PILOT_DRIFT}")
    loso = {}
    for name in one:
        d = drift_of([e for k, e in one.items() if k != name])
        loso[name] = predict(facts[name], targets[name], d)
    print("\n1. Per series (errors on the other runs' MFU, mean/max |error|; c = the pilot's "
          "compute factor):")
    print(f"   {'series':66s} {'n':>3s} {'pilot':>12s} {'c':>6s} {'uncalibrated':>13s} "
          f"{'1-scale':>12s} {'naive fit':>12s} {'1-sc. LOSO':>12s} {'2-scale':>12s}")
    worse, worse_loso = [], []
    for name, e in one.items():
        g = table[name]
        mu = e["uncal"].abs().mean()
        if e["pilot"].abs().mean() > mu + 1e-9:
            worse.append(name)
        if loso[name]["pilot"].abs().mean() > mu + 1e-9:
            worse_loso.append(name)
        tw = fmt(two[name]) if name in two else ""
        print(f"   {name[:66]:66s} {len(e):3d} {g.loc[0, 'n_gpus']:5d}g s{g.loc[0, 'seq_len']:<6d}"
              f"{facts[name].compute_factor:6.3f}{'*' if facts[name].saturated else ' '} "
              f"{fmt(e, 'uncal')}  {fmt(e)}  "
              f"{fmt(naive[name])}  {fmt(loso[name])}  {tw}")
    print("   * the fit is at its bound (the pilot's main kernels at the datasheet rate and the "
          "engine still slower): carried to no other plan")
    for name, err in skipped.items():
        print(f"   {name}: not calibrated: {err}")
    allr, alln, alll = (pd.concat(x.values()) for x in (one, naive, loso))
    print(f"\n2. Overall ({len(allr)} target runs in {len(one)} series): uncalibrated mean "
          f"{allr['uncal'].abs().mean():.1%} max {allr['uncal'].abs().max():.1%}; one-scale "
          f"pilot mean {allr['pilot'].abs().mean():.1%} max {allr['pilot'].abs().max():.1%} "
          f"(leave-one-series-out mean {alll['pilot'].abs().mean():.1%} max "
          f"{alll['pilot'].abs().max():.1%}); naive one-factor fit mean "
          f"{alln['pilot'].abs().mean():.1%} max {alln['pilot'].abs().max():.1%}")
    same = allr[allr["same"]]
    print(f"   targets running the pilot's kernels (n {len(same)}): uncalibrated mean "
          f"{same['uncal'].abs().mean():.1%}, one-scale pilot {same['pilot'].abs().mean():.1%} "
          f"max {same['pilot'].abs().max():.1%}")
    if two:
        t2 = pd.concat(two.values())
        print(f"   two-scale pilots ({len(two)} series with >= 3 GPU counts, {len(t2)} targets): "
              f"mean {t2['pilot'].abs().mean():.1%} max {t2['pilot'].abs().max():.1%} "
              f"(uncalibrated on the same targets: mean {t2['uncal'].abs().mean():.1%}); goal "
              "<= 5% mean, <= 10% max")
    for label, w in (("in-sample drift", worse), ("leave-one-series-out", worse_loso)):
        print(f"   goal, one-scale pilot never worse than uncalibrated on a series' mean "
              f"({label}): {'met' if not w else 'MISSED on ' + '; '.join(w)}")
    print("\n3. Band half-width by novelties (90th percentile of |one-scale error|):")
    allr = allr.assign(series=np.concatenate([[k] * len(e) for k, e in one.items()]))
    top = len(cal.BAND_HALF_WIDTH) - 1
    allr["k"] = allr["n_novel"].clip(upper=top)
    for k, g in allr.groupby("k"):
        print(f"   {k}{'+' if k == top else ''} novelties: n {len(g):3d}, q90 |error| "
              f"{g['pilot'].abs().quantile(0.9):.1%}, shipped ±{cal.BAND_HALF_WIDTH[k]:.0%}")
    inside = allr["pilot"].abs() <= np.array([cal.BAND_HALF_WIDTH[k] for k in allr["k"]])
    cover = []
    for s in allr["series"].unique():
        rest, held = allr[allr["series"] != s], allr[allr["series"] == s]
        q = rest.groupby("k")["pilot"].apply(lambda x: x.abs().quantile(0.9))
        cover.extend(held["pilot"].abs() <= held["k"].map(lambda k, q=q: q.get(k, q.max())))
    print(f"   coverage of the shipped bands (in-sample) {inside.mean():.0%}; leave-one-series-"
          f"out (q90 re-sized without the series) {np.mean(cover):.0%}; goal >= 90%")


if __name__ == "__main__":
    main()
