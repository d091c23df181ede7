"""Recompute the bootstrap covariance of Besiroglu et al. 2024's Chinchilla refit.

Besiroglu, Erdil, Barnett, You (2024), "Chinchilla Scaling: A replication attempt",
arXiv:2404.10102, publish the data they reconstructed from Hoffmann et al. 2022's Fig. 4 and
their method, but only the marginal standard errors of the fit. This script follows the
method (drop the 5 highest-loss points; fit log L = LSE(a − α·log N, b − β·log D, e) with a
Huber loss, δ = 1e-3, by BFGS from Hoffmann's TeX values; 4,000 bootstrap resamples) and prints
the covariance of (log A, log B, log E, α, β) that ``llmcost.scaling.BESIROGLU_BOOTSTRAP_COV``
holds.

Usage: python scripts/besiroglu_bootstrap.py svg_extracted_data.csv
(the CSV is data/svg_extracted_data.csv of github:epoch-research/analyzing-chinchilla; it is
not copied into this repository). Needs scipy, which llmcost itself does not.
"""

import csv
import sys

import numpy as np
from scipy.optimize import minimize

DELTA = 1e-3
X0 = np.array([6.0073404, 6.0179186, 0.5267228, 0.33917084, 0.2849083])  # Hoffmann TeX


def objective(p, n, d, loss):
    a, b, e, alpha, beta = p
    ta, tb = a - alpha * np.log(n), b - beta * np.log(d)
    m = np.maximum(np.maximum(ta, tb), e)
    ea, eb, ee = np.exp(ta - m), np.exp(tb - m), np.exp(e - m)
    s = ea + eb + ee
    r = np.log(loss) - (m + np.log(s))
    small = np.abs(r) <= DELTA
    value = np.where(small, 0.5 * r * r, DELTA * (np.abs(r) - 0.5 * DELTA)).sum()
    dh = np.where(small, r, DELTA * np.sign(r))
    wa, wb, we = ea / s, eb / s, ee / s
    grad = np.array([-(dh * wa).sum(), -(dh * wb).sum(), -(dh * we).sum(),
                     (dh * wa * np.log(n)).sum(), (dh * wb * np.log(d)).sum()])
    return value, grad


def main(path, n_boot=4000, seed=42):
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    n = np.array([float(r["Model Size"]) for r in rows])
    d = np.array([float(r["Training FLOP"]) for r in rows]) / (6 * n)
    loss = np.array([float(r["loss"]) for r in rows])
    keep = np.array([i for i in range(len(n)) if loss[i] < sorted(loss)[-5]])
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(n_boot):
        s = rng.choice(keep, size=len(keep), replace=True)
        draws.append(minimize(objective, X0, args=(n[s], d[s], loss[s]), jac=True,
                              method="BFGS").x)
    draws = np.array(draws)
    np.set_printoptions(precision=7, linewidth=150)
    print("covariance of (log A, log B, log E, alpha, beta):")
    print(repr(np.cov(draws.T)))
    untransformed = np.hstack([np.exp(draws[:, :3]), draws[:, 3:]])
    print("standard errors of A, B, E, alpha, beta:", untransformed.std(axis=0, ddof=1))


if __name__ == "__main__":
    main(sys.argv[1])
