"""From pilot to production: calibrate on the smallest run(s) of each published scaling series,
predict the others (``llmcost.training.calibrate``, judged by
``llmcost.training.pilot_validation``, whose docstring lists the series and their sources).

Prints: 0. the pilot-to-target drift of the model's error (``calibrate.PILOT_DRIFT``, measured
here); 1-2. per series and overall the mean / max |error| of the other runs' MFU (predicted ÷
published - 1): uncalibrated (the engine as shipped), one-scale pilot (shipped shrinkage), the
naive one-factor fit (every correction carried whole), the one-scale pilot leave-one-series-out
(the drift re-measured without the series) and the two-scale pilot (the two smallest GPU counts:
compute + scale-out factors; series with >= 3 counts), the two-scale errors split into targets
that differ from the pilots only in GPU count and plan and targets that add a sequence length,
recomputation or model; 3. the band's coverage, in-sample and leave-one-series-out.
"""

import numpy as np

from llmcost.training import calibrate as cal
from llmcost.training import pilot_validation as pv


def fmt(x):
    x = x.dropna()
    return f"{x.abs().mean():5.1%}/{x.abs().max():5.1%}" if len(x) else "           "


def main():
    v = pv.validate()
    e, facts = v.errors, v.calibrations
    same = e["same"].astype(bool)
    print(f"0. Pilot-to-target drift of the model's error (RMS of log(published/predicted) at the "
          f"target minus at the pilot): same kernels {v.drift['same_kernels']:.3f} "
          f"(n {int(same.sum())}), other kernels {v.drift['other_kernels']:.3f} "
          f"(n {int((~same).sum())}); shipped calibrate.PILOT_DRIFT = {cal.PILOT_DRIFT}")
    print("\n1. Per series (errors on the other runs' MFU, mean/max |error|; c = the pilot's "
          "compute factor):")
    print(f"   {'series':66s} {'n':>3s} {'pilot':>12s} {'c':>6s} {'uncalibrated':>13s} "
          f"{'1-scale':>12s} {'naive fit':>12s} {'1-sc. LOSO':>12s} {'2-scale':>12s} "
          f"{'2-sc. LOSO':>12s}")
    worse, worse_loso = [], []
    for name, g in e.groupby("series", sort=False):
        mu, c = g["uncal"].abs().mean(), facts[name]
        p0 = min(c.pilots, key=lambda p: p.n_gpus)
        if g["one_scale"].abs().mean() > mu + 1e-9:
            worse.append(name)
        if g["one_scale_loso"].abs().mean() > mu + 1e-9:
            worse_loso.append(name)
        print(f"   {name[:66]:66s} {len(g):3d} {p0.n_gpus:5d}g s{p0.seq_len:<6d}"
              f"{c.compute_factor:6.3f}{'*' if c.saturated else ' '} {fmt(g['uncal'])}  "
              f"{fmt(g['one_scale'])}  {fmt(g['naive'])}  {fmt(g['one_scale_loso'])}  "
              f"{fmt(g['two_scale'])}  {fmt(g['two_scale_loso'])}")
    print("   * the fit is at its bound (the pilot's main kernels at the datasheet rate and the "
          "engine still slower): carried to no other plan")
    for name, err in v.skipped.items():
        print(f"   {name}: not calibrated: {err}")
    print(f"\n2. Overall ({len(e)} target runs in {e['series'].nunique()} series): uncalibrated "
          f"mean/max {fmt(e['uncal'])}; one-scale pilot {fmt(e['one_scale'])} (leave-one-series-"
          f"out {fmt(e['one_scale_loso'])}); naive one-factor fit {fmt(e['naive'])}")
    s = e[same]
    print(f"   targets running the pilot's kernels (n {len(s)}): uncalibrated mean "
          f"{s['uncal'].abs().mean():.1%}, one-scale pilot {fmt(s['one_scale'])}")
    t2 = e[e["two_scale"].notna()]
    if len(t2):
        print(f"   two-scale pilots ({t2['series'].nunique()} series with >= 3 GPU counts, "
              f"{len(t2)} targets): {fmt(t2['two_scale'])} (leave-one-series-out "
              f"{fmt(t2['two_scale_loso'])}; uncalibrated on the same targets "
              f"{fmt(t2['uncal'])}); goal <= 5% mean, <= 10% max")
        only = t2["two_scale_only"].astype(bool)
        for label, part in (("only the GPU count and plan change", t2[only]),
                            ("adding a sequence length, recomputation or model", t2[~only])):
            print(f"     targets where {label} (n {len(part)}): {fmt(part['two_scale'])} (LOSO "
                  f"{fmt(part['two_scale_loso'])}; uncalibrated {fmt(part['uncal'])})")
    for label, w in (("in-sample drift", worse), ("leave-one-series-out", worse_loso)):
        print(f"   goal, one-scale pilot never worse than uncalibrated on a series' mean "
              f"({label}): {'met' if not w else 'MISSED on ' + '; '.join(w)}")
    print("\n3. Band half-width by novelties (90th percentile of |one-scale error|):")
    top = len(cal.BAND_HALF_WIDTH) - 1
    for k, g in e.assign(k=e["n_novel"].clip(upper=top)).groupby("k"):
        print(f"   {k}{'+' if k == top else ''} novelties: n {len(g):3d}, q90 |error| "
              f"{g['one_scale'].abs().quantile(0.9):.1%}, shipped ±{cal.BAND_HALF_WIDTH[k]:.0%}")
    print(f"   coverage of the shipped bands (in-sample) {v.coverage:.0%}; leave-one-series-out "
          f"(q90 re-sized without the series) {v.coverage_loso:.0%}; goal >= 90%")
    miss = e.assign(k=e["n_novel"].clip(upper=top))
    miss = miss[miss["one_scale"].abs() > np.array([cal.BAND_HALF_WIDTH[k] for k in miss["k"]])]
    print(f"   outside the shipped band ({len(miss)}): " + "; ".join(
        f"{r.run_id} {r.one_scale:+.0%}" for r in miss.itertuples()))


if __name__ == "__main__":
    main()
