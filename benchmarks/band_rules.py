"""The MFU band's rule, before and after: per conformal regime (``accuracy.regime_table``, n >=
``MIN_CONFORMAL_ROWS`` held-out rows), n, centre, half-width and leave-one-out coverage of

* split conformal about the median (the rule before): c = median(e), w = the
  ⌈(n + 1)(1 − α)⌉-th smallest score max(|e − c|, |e_causal − c|) (Vovk et al. 2005;
  Angelopoulos & Bates 2021, §1);
* full conformal written about the median (the rule shipped, ``accuracy.band_from_rows``):
  w = max(c − L, U − c), [L, U] = ``accuracy.full_conformal_interval`` (Lei et al. 2018, §2.1);
* the full-conformal interval itself, [L, U] (centre its midpoint), and jackknife+ (Barber,
  Candès, Ramdas & Tibshirani 2021, Ann. Statist. 49: [the ⌊α(n + 1)⌋-th smallest of
  μ₋ᵢ − Rᵢ, the ⌈(1 − α)(n + 1)⌉-th smallest of μ₋ᵢ + Rᵢ], μ₋ᵢ the median without row i, Rᵢ
  row i's score about it), for comparison.

Leave-one-out: each row checked, on both its FLOP bases, against the band the same rule builds
from the regime's other held-out rows (the stated default, ``DEFAULT_BAND_FRACTION`` about the
others' median or their largest score, when they are fewer than ``MIN_CONFORMAL_ROWS``).

Run: ``LLMCOST_CACHE_DIR=... PYTHONPATH=. python benchmarks/band_rules.py``.
"""

import math

import numpy as np

from llmcost.training import accuracy

A = accuracy.ALPHA


def _scores(e, ec, m):
    return np.maximum(np.abs(e - m), np.abs(ec - m))


def split(e, ec):
    c = float(np.median(e))
    k = math.ceil((len(e) + 1) * (1 - A))
    w = float(np.sort(_scores(e, ec, c))[k - 1])
    return c - w, c + w


def full_about_median(e, ec):
    c = float(np.median(e))
    lo, hi = accuracy.full_conformal_interval(e, ec)
    w = max(c - lo, hi - c)
    return c - w, c + w


def full_interval(e, ec):
    return accuracy.full_conformal_interval(e, ec)


def jackknife_plus(e, ec):
    n = len(e)
    mu = np.array([np.median(e[np.arange(n) != i]) for i in range(n)])
    r = np.maximum(np.abs(e - mu), np.abs(ec - mu))
    k = math.ceil((1 - A) * (n + 1))
    return float(np.sort(mu - r)[n - k]), float(np.sort(mu + r)[k - 1])


RULES = {"split (before)": split, "full, about median (after)": full_about_median,
         "full interval [L,U]": full_interval, "jackknife+": jackknife_plus}


def loo_coverage(rule, e, ec):
    hits = []
    for i in range(len(e)):
        rest = np.arange(len(e)) != i
        if rest.sum() >= accuracy.MIN_CONFORMAL_ROWS:
            lo, hi = rule(e[rest], ec[rest])
        else:
            c = float(np.median(e[rest]))
            w = max(accuracy.DEFAULT_BAND_FRACTION, float(_scores(e[rest], ec[rest], c).max()))
            lo, hi = c - w, c + w
        hits.append(lo <= e[i] <= hi and lo <= ec[i] <= hi)
    return float(np.mean(hits)), int(np.sum(hits))


def main():
    v = accuracy.validation_table()
    held = v[v["split"] == "held-out"]
    widths = {name: [] for name in RULES}
    print(f"{'regime':56s} {'n':>3s}  " + "  ".join(f"{name:>34s}" for name in RULES))
    print(f"{'':56s} {'':>3s}  " + "  ".join(f"{'centre':>9s} {'± half':>7s} {'LOO cov':>16s}"
                                             for _ in RULES))
    for label, g in held.groupby("regime", sort=True):
        if len(g) < accuracy.MIN_CONFORMAL_ROWS:
            continue
        e = g["error"].to_numpy(dtype=float)
        ec = (g["predicted_mfu"] / g["causal_basis_mfu"] - 1).to_numpy(dtype=float)
        cells = []
        for name, rule in RULES.items():
            lo, hi = rule(e, ec)
            cov, hits = loo_coverage(rule, e, ec)
            widths[name].append((hi - lo) / 2)
            cells.append(f"{(lo + hi) / 2:+9.2%} {(hi - lo) / 2:7.2%} "
                         f"{cov:7.1%} ({hits:2d}/{len(e):2d})")
        print(f"{label:56s} {len(e):3d}  " + "  ".join(f"{c:>34s}" for c in cells))
    base = np.array(widths["split (before)"])
    for name, w in widths.items():
        d = np.array(w) - base
        print(f"half-width change vs split, {name}: mean {d.mean():+.2%}, max {d.max():+.2%} "
              f"(relative: mean {np.mean(d / base):+.0%}, max {np.max(d / base):+.0%})")


if __name__ == "__main__":
    main()
