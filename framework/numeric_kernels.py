"""numba kernels shared by several plugins' own kernels (imported only from those, so numba
loads with them): dense ranking of integer keys, joint-state keys of discrete columns, grouping of
samples by key, the plug-in entropy of joint states, the c log c sums of entropies (counted by sample,
by key group, or as bit sets), and the regularized upper incomplete gamma function (chi-square and
gamma tails)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from .numeric import DENSE_COUNT_LIMIT, KEY_RANK_LIMIT

__all__ = ["dense_rank", "joint_keys", "joint_entropy", "entropy_of_keys", "log_gamma_q", "gamma_q"]

_EPS = 1e-16
_FPMIN = 1e-300


@njit(cache=True)
def dense_rank(keys: np.ndarray) -> tuple[np.ndarray, int]:
    """Each key's rank among the distinct keys (0..r-1, in increasing order) and r."""
    n = keys.shape[0]
    order = np.argsort(keys, kind="mergesort")
    out = np.empty(n, np.int64)
    r = -1
    prev = np.int64(-1)
    for t in range(n):
        k = keys[order[t]]
        if t == 0 or k != prev:
            r += 1
            prev = k
        out[order[t]] = r
    return out, r + 1


@njit(cache=True)
def joint_keys(codes: np.ndarray, cols: np.ndarray, cards: np.ndarray) -> tuple[np.ndarray, int]:
    """One integer per sample identifying its joint state over *cols*, and the key range.

    ``codes`` is n x d of per-column codes ``0..cards[j]-1``. The running key is
    re-ranked densely whenever it could overflow, so any number of columns works.
    """
    n = codes.shape[0]
    keys = np.zeros(n, np.int64)
    total = 1
    for c in cols:
        s = cards[c]
        if total * s > KEY_RANK_LIMIT:
            keys, total = dense_rank(keys)
        for t in range(n):
            keys[t] = keys[t] * s + codes[t, c]
        total *= s
    return keys, total


@njit(cache=True)
def log_gamma_q(a: float, x: float) -> float:
    """log Q(a, x), the plug-in entropy of joint states, the
regularized upper incomplete gamma function: the series for P(a, x)
    below x = a + 1, else the continued fraction for Q (modified Lentz; Numerical Recipes 6.2)."""
    if x <= 0.0:
        return 0.0
    lg = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1.0:
        ap = a
        delta = 1.0 / a
        total = delta
        for _ in range(100000):
            ap += 1.0
            delta *= x / ap
            total += delta
            if abs(delta) < abs(total) * _EPS:
                break
        p = total * math.exp(lg)
        if p >= 1.0:
            return -745.0  # Q underflows: log of the smallest double
        return math.log1p(-p)
    b = x + 1.0 - a
    c = 1.0 / _FPMIN
    d = 1.0 / b
    h = d
    for i in range(1, 100000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        if abs(d) < _FPMIN:
            d = _FPMIN
        c = b + an / c
        if abs(c) < _FPMIN:
            c = _FPMIN
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            break
    return lg + math.log(h)


@njit(cache=True)
def gamma_q(a: float, x: float) -> float:
    """Q(a, x), the plug-in entropy of joint states, the
regularized upper incomplete gamma function."""
    return math.exp(log_gamma_q(a, x))


@njit(cache=True)
def _sum_clogc_sorted(keys: np.ndarray) -> float:
    srt = np.sort(keys)
    acc = 0.0
    run = 1
    for t in range(1, srt.shape[0]):
        if srt[t] == srt[t - 1]:
            run += 1
        else:
            acc += run * np.log(run)
            run = 1
    acc += run * np.log(run)
    return acc


@njit(cache=True)
def entropy_of_keys(keys: np.ndarray, total: int) -> float:
    """Plug-in entropy (nats) of the empirical distribution of *keys*."""
    n = keys.shape[0]
    if total <= DENSE_COUNT_LIMIT:
        counts = np.zeros(total, np.int64)
        for t in range(n):
            counts[keys[t]] += 1
        acc = 0.0
        for c in counts:
            if c > 0:
                acc += c * np.log(c)
    else:
        acc = _sum_clogc_sorted(keys)
    return np.log(n) - acc / n


@njit(cache=True)
def joint_entropy(codes: np.ndarray, cols: np.ndarray, cards: np.ndarray) -> float:
    """Plug-in joint entropy (nats) of the columns *cols* of the code matrix."""
    if cols.shape[0] == 0:
        return 0.0
    keys, total = joint_keys(codes, cols, cards)
    return entropy_of_keys(keys, total)


# count tables of more than SPARSE_RATIO cells per sample count only the cells met (chosen on barley, seed 100,
# ten candidates a call: the sparse count is 0.9x as fast at 4-8 cells per sample, 1.6x at 8-16, 2x at 16-32)
SPARSE_RATIO = 8.0


@njit(cache=True)
def sorted_present(cnt: np.ndarray, idx: np.ndarray, k: int) -> None:
    """Sort the *k* values first in *idx* (the distinct indices met in *cnt*, in the order met) in place:
    by insertion when few, else by a scan of *cnt* for its nonzero entries (the same values)."""
    if k * k <= 4 * cnt.shape[0]:
        for u in range(1, k):
            v = idx[u]
            w = u - 1
            while w >= 0 and idx[w] > v:
                idx[w + 1] = idx[w]
                w -= 1
            idx[w + 1] = v
    else:
        k = 0
        for v in range(cnt.shape[0]):
            if cnt[v] != 0:
                idx[k] = v
                k += 1


@njit(cache=True)
def group_by(keys: np.ndarray, K: int) -> tuple[np.ndarray, np.ndarray]:
    """Counting sort of the samples by their key 0..K-1: the samples in key order (in order within a
    key) and where each key's samples start (K + 1 bounds)."""
    start = np.zeros(K + 1, np.int64)
    for t in range(keys.shape[0]):
        start[keys[t] + 1] += 1
    for w in range(K):
        start[w + 1] += start[w]
    pos = start[:K].copy()
    order = np.empty(keys.shape[0], np.int64)
    for t in range(keys.shape[0]):
        order[pos[keys[t]]] = t
        pos[keys[t]] += 1
    return order, start


# a candidate of s codes whose table has K (s - 1) <= BIT_CELLS cells beyond one per key is counted as bit
# sets (K (s - 1) AND + popcount passes over n / 64 words instead of one pass over the n samples): on
# win95pts (binary) 10-40x faster at K = 1-21, at par near K (s - 1) = 190
BIT_CELLS = 128
BIT_CODES = 32  # one_hot_bits keeps the codes 0..BIT_CODES-1 (a column of more codes is counted by sample)


@intrinsic
def _popcount(typingctx, x):
    """The number of set bits of a uint64 (LLVM's ctpop: one instruction where the CPU has it)."""
    if x != types.uint64:
        return None

    def codegen(context, builder, sig, args):
        return builder.ctpop(args[0])

    return types.uint64(types.uint64), codegen


@njit(cache=True)
def _bit_sets(codes: np.ndarray, out: np.ndarray) -> None:
    """Set in ``out[v]`` (words of 64 bits) the bit of every sample t whose code is v."""
    for t in range(codes.shape[0]):
        out[codes[t], t >> 6] |= np.uint64(1) << np.uint64(t & 63)


@njit(cache=True)
def one_hot_bits(rows: np.ndarray, cards: np.ndarray) -> np.ndarray:
    """``bits[a, v]``: the samples whose code of column a is v, as n / 64 words of 64 bits (codes
    below :data:`BIT_CODES`; d * min(max code, BIT_CODES) * n / 8 bytes)."""
    d, n = rows.shape
    codes = min(BIT_CODES, max(1, cards.max()))
    bits = np.zeros((d, codes, (n + 63) >> 6), np.uint64)
    for a in range(d):
        if cards[a] <= codes:
            _bit_sets(rows[a], bits[a])
    return bits


@njit(cache=True)
def clogc_sums_plus(rows: np.ndarray, base: np.ndarray, K: int, cands: np.ndarray, cards: np.ndarray,
                    clogc: np.ndarray, bits: np.ndarray) -> np.ndarray:
    """For each candidate column a: the sum of c log c over the counts of the joint states
    (base key, code of a), with base keys 0..K-1, summed in key order.
    *rows* holds one column's codes per row; *clogc* c log c for c = 0..n; *bits* the columns'
    :func:`one_hot_bits` (or an empty array). :func:`clogc_sums_in` with the tables above
    :data:`SPARSE_RATIO` cells per sample counted sparsely and those of up to :data:`BIT_CELLS`
    cells beyond one per key as bit sets."""
    return clogc_sums_in(rows, base, K, cands, cards, clogc, SPARSE_RATIO, bits, BIT_CELLS)


@njit(cache=True)
def clogc_sums_in(rows, base, K, cands, cards, clogc, ratio, bits, bit_cells):
    """:func:`clogc_sums_plus`: a candidate's table of ``K s`` cells counted as bit sets when
    ``K (s - 1) <= bit_cells`` and *bits* holds its s codes (the samples of each base key as a bit
    set, ANDed with those of each code but the last, which takes the rest), else densely up to
    ``ratio n`` cells, above that by base key (samples grouped once) and only over the codes met, in
    increasing order. The counts are the same and are summed in the same order (an empty cell adds
    c log c = 0 to a sum of non-negative terms, which changes nothing), so every path gives the same
    floats."""
    n = base.shape[0]
    out = np.empty(cands.shape[0])
    order = np.empty(0, np.int64)
    start = np.empty(0, np.int64)
    grouped = False
    masks = np.empty((0, 0), np.uint64)
    size = np.empty(0, np.int64)
    masked = False
    for j in range(cands.shape[0]):
        a = cands[j]
        s = cards[a]
        acc = 0.0
        if K * (s - 1) <= bit_cells and s <= bits.shape[1]:
            if not masked:
                masks = np.zeros((K, bits.shape[2]), np.uint64)
                _bit_sets(base, masks)
                size = np.zeros(K, np.int64)
                for t in range(n):
                    size[base[t]] += 1
                masked = True
            for k in range(K):
                rest = size[k]
                for v in range(s - 1):
                    c = 0
                    for w in range(masks.shape[1]):
                        c += _popcount(masks[k, w] & bits[a, v, w])
                    rest -= c
                    acc += clogc[c]
                acc += clogc[rest]
        elif K * s > ratio * n:
            if not grouped:
                order, start = group_by(base, K)
                grouped = True
            cnt = np.zeros(s, np.int64)
            met = np.empty(s, np.int64)
            for w in range(K):
                lo, hi = start[w], start[w + 1]
                if hi - lo == 1:  # one sample: c log c of 1 is 0
                    continue
                k = 0
                for u in range(lo, hi):
                    v = rows[a, order[u]]
                    if cnt[v] == 0:
                        met[k] = v
                        k += 1
                    cnt[v] += 1
                if k > 1:
                    sorted_present(cnt, met, k)
                for u in range(k):
                    acc += clogc[cnt[met[u]]]
                    cnt[met[u]] = 0
        else:
            counts = np.zeros(K * s, np.int64)
            for t in range(n):
                counts[base[t] * s + rows[a, t]] += 1
            for v in range(K * s):
                acc += clogc[counts[v]]
        out[j] = acc
    return out
