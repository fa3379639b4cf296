"""Numba kernels of the CIC plugin: log Stirling numbers, block sums, kNN counts, pairwise MI, bit packing and
popcount, the parity tilt (the plug-in entropy kernels are shared, in :mod:`macrocause.framework.numeric_kernels`)."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from macrocause.framework.numeric_kernels import joint_entropy


@njit(cache=True)
def _log_stirling2(n: int, max_m: int) -> np.ndarray:
    T = np.full((n + 1, max_m + 1), -np.inf)
    T[0, 0] = 0.0
    for i in range(1, n + 1):
        for m in range(1, min(i, max_m) + 1):
            a = T[i - 1, m] + np.log(m) if T[i - 1, m] > -np.inf else -np.inf
            b = T[i - 1, m - 1]
            if a == -np.inf:
                T[i, m] = b
            elif b == -np.inf:
                T[i, m] = a
            else:
                hi = max(a, b)
                T[i, m] = hi + np.log(np.exp(a - hi) + np.exp(b - hi))
    return T


def log_stirling2_table(n: int, max_m: int | None = None) -> np.ndarray:
    """T[i, m] = log S(i, m) for 0 <= i <= n, 0 <= m <= max_m (default n), Stirling numbers of the
    second kind in log space; ``-inf`` stands for S = 0. Cached per (n, max_m), read-only.

    Uses S(i, m) = m S(i-1, m) + S(i-1, m-1).
    """
    return _cached_table(int(n), int(n if max_m is None else max_m))


@lru_cache(maxsize=32)
def _cached_table(n: int, max_m: int) -> np.ndarray:
    T = _log_stirling2(n, max_m)
    T.setflags(write=False)
    return T


def log_stirling2_row(n: int) -> np.ndarray:
    """``log S(n, m)`` for m = 0..n (read-only, cached)."""
    return log_stirling2_table(n)[n]


@njit(cache=True)
def block_sum(M: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> float:
    """Sum of ``M[i, j]`` over i in *rows* (outer) and j in *cols* (inner), in that order."""
    acc = 0.0
    for i in rows:
        for j in cols:
            acc += M[i, j]
    return acc


@njit(cache=True)
def _pair_kth_distance(x: np.ndarray, y: np.ndarray, k: int) -> np.ndarray:
    """Each point's max-norm distance in (x, y) to its (k+1)-th nearest point, itself counted
    (the k-th neighbour); a sweep outwards along x, stopped where |dx| cannot improve it."""
    n = x.shape[0]
    order = np.argsort(x, kind="mergesort")
    xs, ys = x[order], y[order]
    out = np.empty(n)
    best = np.empty(k + 1)
    for p in range(n):
        best[:] = np.inf
        best[0] = 0.0  # the point itself
        filled = 1
        lo, hi = p - 1, p + 1
        while lo >= 0 or hi < n:
            dl = xs[p] - xs[lo] if lo >= 0 else np.inf
            dr = xs[hi] - xs[p] if hi < n else np.inf
            if dl <= dr:
                q, dx = lo, abs(xs[lo] - xs[p])
                lo -= 1
            else:
                q, dx = hi, abs(xs[hi] - xs[p])
                hi += 1
            if filled > k and dx >= best[k]:
                break
            d = max(dx, abs(ys[q] - ys[p]))
            if filled <= k or d < best[k]:
                t = min(filled, k)  # insert d into the sorted buffer
                while t > 0 and best[t - 1] > d:
                    best[t] = best[t - 1]
                    t -= 1
                best[t] = d
                filled = min(filled + 1, k + 1)
        out[order[p]] = best[k]
    return out


@njit(cache=True)
def _count_within_1d(x: np.ndarray, eps: np.ndarray) -> np.ndarray:
    xs = np.sort(x)
    hi = np.searchsorted(xs, x + eps, side="left")
    lo = np.searchsorted(xs, x - eps, side="right")
    return hi - lo - 1


@njit(cache=True)
def ksg_pair_counts(Z: np.ndarray, pairs: np.ndarray, k: int) -> np.ndarray:
    """KSG neighbour counts of the single-column pairs ``(Z[:, i], Z[:, j])``: out[p, 0] and
    out[p, 1] count, per point, the other points within its k-th neighbour distance (max-norm,
    strict) along column i and along column j. The same counts as :mod:`._knn`'s tree queries."""
    n = Z.shape[0]
    out = np.empty((pairs.shape[0], 2, n), np.int64)
    for p in range(pairs.shape[0]):
        x = np.ascontiguousarray(Z[:, pairs[p, 0]])
        y = np.ascontiguousarray(Z[:, pairs[p, 1]])
        eps = _pair_kth_distance(x, y, k)
        out[p, 0] = _count_within_1d(x, eps)
        out[p, 1] = _count_within_1d(y, eps)
    return out


@njit(cache=True)
def pairwise_mi_matrix(codes: np.ndarray, cards: np.ndarray) -> np.ndarray:
    """Plug-in I(X_i; X_j) = H(X_i) + H(X_j) - H(X_i, X_j) (nats) of every pair of columns."""
    d = codes.shape[1]
    h1 = np.empty(d)
    for i in range(d):
        h1[i] = joint_entropy(codes, np.array([i], np.int64), cards)
    out = np.zeros((d, d))
    for i in range(d):
        for j in range(i + 1, d):
            out[i, j] = out[j, i] = h1[i] + h1[j] - joint_entropy(codes, np.array([i, j], np.int64), cards)
    return out


@njit(cache=True)
def parity_tilt(odd: int, n: int, prod: float) -> float:
    """N KL(q || q0) of a set's parity over *n* samples: q = odd / n the share of odd xors, q0 = (1 - prod) / 2
    its probability under independent margins (*prod*: the product of the members' E (-1)^x), kept in
    [1e-12, 1 - 1e-12]."""
    q = odd / n
    q0 = min(max(0.5 * (1.0 - prod), 1e-12), 1.0 - 1e-12)
    kl = 0.0
    if q > 0:
        kl += q * math.log(q / q0)
    if q < 1:
        kl += (1 - q) * math.log((1 - q) / (1 - q0))
    return n * kl


@njit(cache=True)
def _kl_sum(cnt: np.ndarray, q0: float) -> float:
    """sum_s n_s KL(q_s || q0) over the rows s of a (states, 2) table of counts of y = 0 and y = 1."""
    acc = 0.0
    for s in range(cnt.shape[0]):
        tot = cnt[s, 0] + cnt[s, 1]
        if tot == 0:
            continue
        for c, q in ((cnt[s, 1], q0), (cnt[s, 0], 1.0 - q0)):
            if c > 0:
                acc += c * np.log(c / (tot * q))
    return acc


@njit(cache=True)
def tilt_gain(y: np.ndarray, B: np.ndarray, cols: np.ndarray, q0: float) -> float:
    """sum_s n_s KL(q_s || q0) of the Bernoulli ``y < 0`` (odd parity of the child) in each joint state s
    of the rows ``B[cols] < 0`` (+-1 features of the parent clusters, row ``cols[j]`` is bit j of s),
    q_s = the share of odd parity in state s (Bernoulli KL, nats).

    Each sample's code ``[y < 0] + 2 s`` is built one feature row at a time (loops the compiler
    vectorises), then counted in one pass."""
    k = cols.shape[0]
    n = y.shape[0]
    code = np.empty(n, np.int64)
    for t in range(n):
        code[t] = np.int64(y[t] < 0)
    for j in range(k):
        row = B[cols[j]]
        for t in range(n):
            code[t] |= np.int64(row[t] < 0) << (j + 1)
    cnt = np.zeros((2 ** k, 2), np.int64)
    flat = cnt.reshape(2 ** (k + 1))
    for t in range(n):
        flat[code[t]] += 1
    return _kl_sum(cnt, q0)


@njit(cache=True)
def tilt_best(y: np.ndarray, B: np.ndarray, second: np.ndarray, q0: float) -> float:
    """The best :func:`tilt_gain` over the features of the parents: parent j is read through row j of B
    (its parity) or, when ``second[j] >= 0``, row ``second[j]`` (its majority). With at most one parent
    that has a choice, both of its readings; else all parities, all majorities, then one pass of single
    flips from the better (``FamilyEngine._tilt``)."""
    k = second.shape[0]
    cols = np.arange(k)
    choosable = np.flatnonzero(second >= 0)
    gain = tilt_gain(y, B, cols, q0)
    if choosable.shape[0] == 0:
        return gain
    if choosable.shape[0] == 1:
        cols[choosable[0]] = second[choosable[0]]
        return max(gain, tilt_gain(y, B, cols, q0))
    alt = cols.copy()
    for j in choosable:
        alt[j] = second[j]
    g = tilt_gain(y, B, alt, q0)
    if g > gain:
        cols, gain = alt, g
    for j in choosable:
        old = cols[j]
        cols[j] = second[j] if old == j else j
        g = tilt_gain(y, B, cols, q0)
        if g > gain:
            gain = g
        else:
            cols[j] = old
    return gain


@njit(cache=True)
def pack_bits(codes: np.ndarray) -> np.ndarray:
    """Rows of 0/1 codes (n, d) packed into uint64 words (n, ceil(d / 64)): column j is bit j % 64 of word j // 64."""
    n, d = codes.shape
    w = (d + 63) // 64
    out = np.zeros((n, w), np.uint64)
    for t in range(n):
        for j in range(d):
            if codes[t, j]:
                out[t, j // 64] |= np.uint64(1) << np.uint64(j % 64)
    return out


@intrinsic
def popcount64(typingctx, x):
    """Number of set bits of a uint64 word (LLVM's ctpop: one instruction on CPUs with popcnt)."""
    if x != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        return builder.zext(builder.ctpop(args[0]), context.get_value_type(types.int64))

    return types.int64(types.uint64), codegen


@njit(cache=True)
def topological_order(adj: np.ndarray) -> np.ndarray:
    """The nodes of the digraph *adj* (bool, m x m) in a topological order (Kahn), or an empty array
    when it has a cycle."""
    m = adj.shape[0]
    indeg = np.zeros(m, np.int64)
    for a in range(m):
        for b in range(m):
            if adj[a, b]:
                indeg[b] += 1
    order = np.empty(m, np.int64)
    head = tail = 0
    for b in range(m):
        if indeg[b] == 0:
            order[tail] = b
            tail += 1
    while head < tail:
        a = order[head]
        head += 1
        for b in range(m):
            if adj[a, b]:
                indeg[b] -= 1
                if indeg[b] == 0:
                    order[tail] = b
                    tail += 1
    return order if tail == m else order[:0]


@njit(cache=True)
def dag_reach(adj: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For a DAG *adj*: R[a, b] when a directed path a -> ... -> b exists, and longer[a, b] when one
    a -> c ~> b exists (through a child c of a: then reversing a -> b would close a cycle). Children's
    rows are joined in reverse topological order: O(|E| m), no matrix products."""
    m = adj.shape[0]
    order = topological_order(adj)
    R = np.zeros((m, m), np.bool_)
    longer = np.zeros((m, m), np.bool_)
    for i in range(m - 1, -1, -1):
        a = order[i]
        for c in range(m):
            if adj[a, c]:
                R[a, c] = True
                for b in range(m):
                    if R[c, b]:
                        R[a, b] = True
                        longer[a, b] = True
    return R, longer
