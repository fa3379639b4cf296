"""Conditional independence tests of our PC (numba): Fisher's z, chi-square and G-square.

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

import math

import numpy as np
from numba import njit

from macrocause.framework.numeric_kernels import dense_rank, gamma_q, joint_keys

FISHERZ, CHISQ, GSQ = 0, 1, 2
_EPS = np.finfo(np.float64).eps
_SQRT_HALF = math.sqrt(0.5)


def prepare(X: np.ndarray, kind: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The test's inputs from an n x d data matrix: ``(corr, codes, cards)``.

    Fisher's z uses the correlation matrix; the discrete tests use per-column
    codes ``0..k-1`` (ranks of the distinct values, as causal-learn recodes them)
    and the number of codes of each column. The unused inputs are empty arrays.
    """
    X = np.asarray(X)
    if kind == FISHERZ:
        return np.corrcoef(X.T), np.zeros((0, 0), np.int64), np.zeros(0, np.int64)
    codes = np.empty(X.shape, np.int64)
    for j in range(X.shape[1]):
        codes[:, j] = np.unique(X[:, j], return_inverse=True)[1]
    return np.zeros((0, 0)), codes, codes.max(axis=0) + 1


@njit(cache=True)
def fisherz_p(corr: np.ndarray, n: int, x: int, y: int, S: np.ndarray) -> float:
    """p-value of Fisher's z test of the partial correlation of x and y given S."""
    k = S.shape[0]
    idx = np.empty(k + 2, np.int64)
    idx[0], idx[1] = min(x, y), max(x, y)
    idx[2:] = S
    sub = np.empty((k + 2, k + 2))
    for a in range(k + 2):
        for b in range(k + 2):
            sub[a, b] = corr[idx[a], idx[b]]
    inv = np.linalg.inv(sub)
    r = -inv[0, 1] / math.sqrt(abs(inv[0, 0] * inv[1, 1]))
    if abs(r) >= 1.0:
        r = (1.0 - _EPS) * np.sign(r)
    dof = n - k - 3
    if dof <= 0:  # too few samples to test: never reject
        return 1.0
    stat = math.sqrt(dof) * abs(0.5 * math.log((1.0 + r) / (1.0 - r)))
    z = stat * _SQRT_HALF
    if z < _SQRT_HALF:  # scipy's ndtr: erf near 0, erfc in the tail
        return 2.0 * (1.0 - (0.5 + 0.5 * math.erf(z)))
    return 2.0 * (1.0 - (1.0 - 0.5 * math.erfc(z)))


@njit(cache=True)
def chi2_sf(stat: float, df: float) -> float:
    """Survival function of the chi-square distribution with *df* degrees of freedom."""
    return gamma_q(0.5 * df, 0.5 * stat)


@njit(cache=True)
def _layers(codes: np.ndarray, cards: np.ndarray, S: np.ndarray) -> tuple[np.ndarray, int]:
    """Index of each sample's configuration of S among the configurations present."""
    n = codes.shape[0]
    keys, total = joint_keys(codes, S, cards)
    if total > max(4 * n, 1 << 16):
        return dense_rank(keys)
    slot = np.full(total, -1, np.int64)
    m = 0
    for t in range(n):
        if slot[keys[t]] < 0:
            slot[keys[t]] = m
            m += 1
        keys[t] = slot[keys[t]]
    return keys, m


@njit(cache=True)
def discrete_stat(codes: np.ndarray, cards: np.ndarray, x: int, y: int, layer: np.ndarray, m: int,
                  gsq: bool) -> tuple[float, int]:
    """Statistic and degrees of freedom of the chi-square (or G-square) test of x and y given
    the configuration index *layer* of each sample (``m`` configurations).

    As causal-learn: counts per configuration of S present in the data, expected
    counts from the margins of each configuration; a value of x (or y) absent from
    a configuration removes a row (column) from that configuration's degrees of freedom.
    """
    a, b = min(x, y), max(x, y)
    ca, cb = cards[a], cards[b]
    n = codes.shape[0]
    cnt = np.zeros((m, ca, cb))
    for t in range(n):
        cnt[layer[t], codes[t, a], codes[t, b]] += 1.0
    stat = 0.0
    df = 0
    for w in range(m):
        rows = cnt[w].sum(axis=1)
        cols = cnt[w].sum(axis=0)
        tot = rows.sum()
        zr = 0
        for i in range(ca):
            if rows[i] == 0.0:
                zr += 1
        zc = 0
        for j in range(cb):
            if cols[j] == 0.0:
                zc += 1
        df += (ca - 1 - zr) * (cb - 1 - zc)
        for i in range(ca):
            for j in range(cb):
                e = rows[i] * cols[j] / tot
                c = cnt[w, i, j]
                if gsq:
                    if c > 0.0:
                        stat += c * math.log(c / e)
                elif e > 0.0:
                    stat += (c - e) ** 2 / e
    if gsq:
        stat *= 2.0
    return stat, df


@njit(cache=True)
def discrete_p(codes: np.ndarray, cards: np.ndarray, x: int, y: int, S: np.ndarray, gsq: bool) -> float:
    """p-value of the chi-square (or G-square) test of x and y given S (p = 1 when no degree
    of freedom is left, as causal-learn)."""
    layer, m = _layers(codes, cards, S)
    stat, df = discrete_stat(codes, cards, x, y, layer, m, gsq)
    if df == 0:
        return 1.0
    return chi2_sf(stat, df)


def python_p_value(kind: int, corr: np.ndarray, n: int, codes: np.ndarray, cards: np.ndarray):
    """``p(x, y, S)`` in plain Python and NumPy (Fisher's z: the kernel's own code uncompiled;
    chi-square and G-square: the kernels' counts and sums vectorised, tails from scipy's
    ``chdtrc`` as causal-learn's ``chi2.sf``): for searches too small to be worth compiling."""
    if kind == FISHERZ:
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
