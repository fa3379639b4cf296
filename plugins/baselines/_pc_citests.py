"""Conditional independence tests of our PC: Fisher's z, chi-square and G-square (inputs, and the
plain-Python tests of small searches; the numba kernels are in :mod:`._pc_kernels`).

Each test returns the p-value of ``x _||_ y | S`` computed as causal-learn's
``cit.FisherZ`` and ``cit.Chisq_or_Gsq`` compute it (Zheng et al. 2024), so that
the PC built on them takes the same decisions and orders colliders by p-value
alike; the p-values come from ``math.erfc`` (Fisher's z as ``2 (1 - Phi(|z|))``,
scipy's ``norm.cdf`` rounding: equal bit for bit above |z| = 3.8, where p-values
underflow to the ties that order colliders) and a regularized incomplete gamma
function instead of one scipy call per test.

References
----------
Fisher. The distribution of the partial correlation coefficient. Metron 3, 1924.
Spirtes, Glymour, Scheines. Causation, Prediction, and Search. MIT Press, 2000, Sec. 5.5.
Press et al. Numerical Recipes, 3rd ed., 2007, Sec. 6.2 (incomplete gamma function).
"""

from __future__ import annotations

import numpy as np

FISHERZ, CHISQ, GSQ = 0, 1, 2


def prepare(X: np.ndarray, kind: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The test's inputs from an n x d data matrix: ``(corr, codes, cards)``.

    Fisher's z uses the correlation matrix; the discrete tests use per-column
    codes ``0..k-1`` (ranks of the distinct values, as causal-learn recodes them)
    and the number of codes of each column. The unused inputs are empty arrays.
    """
    X = np.asarray(X)
    if kind == FISHERZ:
        return np.corrcoef(X.T), np.zeros((0, 0), np.int64), np.zeros(0, np.int64)
    codes = np.empty(X.shape, np.int64, order="F")  # column-major: a test reads whole columns
    for j in range(X.shape[1]):
        codes[:, j] = np.unique(X[:, j], return_inverse=True)[1]
    return np.zeros((0, 0)), codes, codes.max(axis=0) + 1


def python_p_value(kind: int, corr: np.ndarray, n: int, codes: np.ndarray, cards: np.ndarray):
    """``p(x, y, S)`` in plain Python and NumPy (Fisher's z: the kernel's own code uncompiled;
    chi-square and G-square: the kernels' counts and sums vectorised, tails from scipy's
    ``chdtrc`` as causal-learn's ``chi2.sf``): for searches too small to be worth compiling."""
    if kind == FISHERZ:
        # the kernel's own code uncompiled (py_func): numba is imported, nothing is compiled
        from ._pc_kernels import fisherz_p

        def p(x: int, y: int, S) -> float:
            return fisherz_p.py_func(corr, n, x, y, np.asarray(S, np.int64))
        return p
    from scipy.special import chdtrc

    def p(x: int, y: int, S) -> float:
        a, b = min(x, y), max(x, y)
        ca, cb = int(cards[a]), int(cards[b])
        key, total = np.zeros(codes.shape[0], np.int64), 1
        for s in S:
            if total * int(cards[s]) >= 2**62:  # re-rank before the key could overflow
                key = np.unique(key, return_inverse=True)[1].reshape(-1)
                total = int(key.max()) + 1
            key = key * int(cards[s]) + codes[:, s]
            total *= int(cards[s])
        _, layer = np.unique(key, return_inverse=True)
        m = int(layer.max()) + 1
        cnt = np.bincount((layer.reshape(-1) * ca + codes[:, a]) * cb + codes[:, b],
                          minlength=m * ca * cb).reshape(m, ca, cb).astype(float)
        rows, cols = cnt.sum(axis=2), cnt.sum(axis=1)
        df = int(((ca - 1 - (rows == 0).sum(axis=1)) * (cb - 1 - (cols == 0).sum(axis=1))).sum())
        e = rows[:, :, None] * cols[:, None, :] / rows.sum(axis=1)[:, None, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            if kind == GSQ:
                stat = 2.0 * float(np.where(cnt > 0, cnt * np.log(cnt / e), 0.0).sum())
            else:
                stat = float(np.where(e > 0, (cnt - e) ** 2 / e, 0.0).sum())
        return 1.0 if df == 0 else float(chdtrc(df, stat))
    return p
