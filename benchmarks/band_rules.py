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

Below the threshold (``shift_rules``): the regimes whose leave-one-out bands are the stated
default (n − 1 < ``MIN_CONFORMAL_ROWS``), each row against the others' band under three centres:
the others' median (the rule before), that median shrunk by m / (m + k) (shipped,
``accuracy.shift_factor``, k = ``SHIFT_SHRINK_ROWS``; m the others' count) and 0 (no shift),
the half-width max(``DEFAULT_BAND_FRACTION``, the others' largest score about the centre):
pooled coverage, mean half-width and mean |error| of the central point p / (1 + c) against the
published MFU, (1 + e_i) / (1 + c) − 1; and the k measured (``accuracy.shift_shrink_rows``).

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
            c = float(np.median(e[rest])) * accuracy.shift_factor(int(rest.sum()))
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


SHIFTS = {"median (before)": lambda m: 1.0, "shrunk m / (m + k) (shipped)": accuracy.shift_factor,
          "none": lambda m: 0.0}


def shift_rules():
    """The module docstring's sub-threshold comparison of band centres."""
    v = accuracy.validation_table()
    held = v[v["split"] == "held-out"]
    k = accuracy.shift_shrink_rows(v)
    print(f"\nbelow {accuracy.MIN_CONFORMAL_ROWS} rows: k = pi sigma^2 / (2 tau^2) = {k['k']:.2f} "
          f"(sigma {k['sigma']:.1%}, tau {k['tau']:.1%}, {k['regimes']} conformal regimes); "
          f"shipped SHIFT_SHRINK_ROWS = {accuracy.SHIFT_SHRINK_ROWS:g}")
    for name, factor in SHIFTS.items():
        hits, widths, points = [], [], []
        for _, g in held.groupby("regime"):
            e = g["error"].to_numpy(dtype=float)
            ec = (g["predicted_mfu"] / g["causal_basis_mfu"] - 1).to_numpy(dtype=float)
            if len(e) - 1 >= accuracy.MIN_CONFORMAL_ROWS:
                continue
            for i in range(len(e)):
                rest = np.arange(len(e)) != i
                c, w = 0.0, accuracy.DEFAULT_BAND_FRACTION
                if rest.any():
                    c = float(np.median(e[rest])) * factor(int(rest.sum()))
                    w = max(w, float(_scores(e[rest], ec[rest], c).max()))
                tol = 1e-12 * max(1.0, abs(c) + w)
                hits.append(c - w - tol <= min(e[i], ec[i]) and max(e[i], ec[i]) <= c + w + tol)
                widths.append(w)
                points.append(abs((1 + e[i]) / (1 + c) - 1))
        print(f"  centre {name:30s} LOO coverage {np.mean(hits):6.1%} ({sum(hits)}/{len(hits)}), "
              f"mean half-width {np.mean(widths):5.1%}, central point mean |error| "
              f"{np.mean(points):5.2%}")


if __name__ == "__main__":
    main()
    shift_rules()
