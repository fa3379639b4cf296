"""Skeleton search of our PC (numba): stable (order-independent) or original PC-1.

Follows causal-learn's ``SkeletonDiscovery.skeleton_discovery``: depth ``l = 0, 1,
...`` while some node has more than ``l`` neighbours (and ``l <= max_k``); at
depth ``l`` every adjacent pair ``x - y`` is tested given every ``l``-subset of
``adj(x) \\ {y}`` (and of ``adj(y) \\ {x}``), subsets in ``itertools.combinations``
order. Stable PC takes the adjacencies at the start of the depth, tests every
subset, removes the independent pairs at the end of the depth, and keeps as
separating set the union of all subsets found independent (causal-learn's
choice); the original PC removes an edge at its first independence and keeps
that subset. A subset already tested from the other endpoint is not tested
again (causal-learn caches it).

References
----------
Spirtes, Glymour, Scheines. Causation, Prediction, and Search. MIT Press, 2000.
Colombo, Maathuis. Order-independent constraint-based causal structure learning.
JMLR 15, 2014.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._pc_citests import FISHERZ, GSQ, discrete_p, fisherz_p


@njit(cache=True)
def _p_value(kind, corr, n, codes, cards, x, y, S):
    if kind == FISHERZ:
        return fisherz_p(corr, n, x, y, S)
    return discrete_p(codes, cards, x, y, S, kind == GSQ)


@njit(cache=True)
def _subset_of_row(adj, b, S):
    for s in S:
        if not adj[b, s]:
            return False
    return True


@njit(cache=True)
def _grow(buf: np.ndarray, used: int, extra: int) -> np.ndarray:
    """*buf* with room for *extra* more rows after *used* (doubled when full)."""
    if used + extra <= buf.shape[0]:
        return buf
    out = np.empty((max(2 * buf.shape[0], used + extra), 3), np.int64)
    out[:used] = buf[:used]
    return out


@njit(cache=True)
def skeleton(kind: int, alpha: float, max_k: int, stable: bool, corr: np.ndarray, n: int,
             codes: np.ndarray, cards: np.ndarray) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Adjacency matrix, separating sets and counts of the skeleton search.

    Returns ``(adj, sep, n_tests, depth)``: ``adj`` is a d x d boolean matrix;
    ``sep`` is an m x 3 array of rows ``(a, b, k)`` (``a < b``; a row repeats at
    most once, when both ends found it), each saying that ``k`` is in the separating set of the removed pair ``a, b``
    (stored sparsely: its size grows with the separating sets found, not with
    d^3); ``n_tests`` counts the tests computed and ``depth`` is the last depth
    searched. ``max_k < 0`` means no limit.
    """
    d = cards.shape[0] if kind != FISHERZ else corr.shape[0]
    adj = np.ones((d, d), np.bool_)
    for i in range(d):
        adj[i, i] = False
    sep = np.empty((64, 3), np.int64)
    used = 0
    seen = np.zeros(d, np.bool_)  # members of the current pair's separating set stored
    n_tests = 0
    depth = -1
    while True:
        max_deg = 0
        for i in range(d):
            max_deg = max(max_deg, adj[i].sum())
        if max_deg - 1 <= depth or (max_k >= 0 and depth + 1 > max_k):
            break
        depth += 1
        snap = adj.copy() if stable else adj
        remove = np.zeros((d, d), np.bool_)
        comb = np.empty(depth, np.int64)
        for x in range(d):
            neigh = np.nonzero(snap[x])[0]
            for y in neigh:
                if not adj[x, y]:
                    continue  # original PC: removed earlier at this depth
                others = neigh[neigh != y]
                m = others.shape[0]
                if m < depth:
                    continue
                a, b = min(x, y), max(x, y)
                for u in range(depth):
                    comb[u] = u
                first = used
                while True:
                    S = others[comb]
                    # stable: the other endpoint has tested this subset already
                    if not (stable and y < x and _subset_of_row(snap, y, S)):
                        n_tests += 1
                        if _p_value(kind, corr, n, codes, cards, x, y, S) > alpha:
                            sep = _grow(sep, used, depth)
                            for s in S:
                                if not seen[s]:
                                    seen[s] = True
                                    sep[used, 0], sep[used, 1], sep[used, 2] = a, b, s
                                    used += 1
                            if stable:
                                remove[a, b] = True
                            else:
                                adj[x, y] = False
                                adj[y, x] = False
                                break
                    t = depth - 1
                    while t >= 0 and comb[t] == m - depth + t:
                        t -= 1
                    if t < 0:
                        break
                    comb[t] += 1
                    for u in range(t + 1, depth):
                        comb[u] = comb[u - 1] + 1
                for t in range(first, used):
                    seen[sep[t, 2]] = False
        if stable:
            for a in range(d):
                for b in range(a + 1, d):
                    if remove[a, b]:
                        adj[a, b] = False
                        adj[b, a] = False
    return adj, sep[:used], n_tests, depth


class SepSets:
    """Membership in the separating sets of :func:`skeleton`, from its ``(a, b, k)`` rows, as
    sorted integer keys (8 bytes a row: no Python set per pair)."""

    def __init__(self, sep: np.ndarray, d: int) -> None:
        self.d = d
        self.keys = np.unique((sep[:, 0] * d + sep[:, 1]) * d + sep[:, 2])

    def contains(self, a: int, b: int, k: int) -> bool:
        """Whether k is in the separating set of the removed pair a, b."""
        a, b = min(a, b), max(a, b)
        key = (a * self.d + b) * self.d + k
        at = int(np.searchsorted(self.keys, key))
        return at < self.keys.shape[0] and int(self.keys[at]) == key

    def as_dict(self) -> dict[tuple[int, int], set[int]]:
        """``{(a, b): set}`` with ``a < b`` (pairs separated by the empty set absent)."""
        out: dict[tuple[int, int], set[int]] = {}
        for key in self.keys.tolist():
            ab, k = divmod(key, self.d)
            out.setdefault(divmod(ab, self.d), set()).add(k)
        return out


def skeleton_python(p, d: int, alpha: float, max_k: int, stable: bool) -> tuple[np.ndarray, np.ndarray, int, int]:
    """:func:`skeleton` in plain Python with the test ``p(x, y, S)``: the same steps and
    outputs, for searches too small to be worth compiling the kernel (about 5 s, once)."""
    from itertools import combinations

    adj = ~np.eye(d, dtype=bool)
    rows: list[tuple[int, int, int]] = []
    n_tests, depth = 0, -1
    while True:
        max_deg = int(adj.sum(axis=1).max()) if d else 0
        if max_deg - 1 <= depth or (max_k >= 0 and depth + 1 > max_k):
            break
        depth += 1
        snap = adj.copy() if stable else adj
        remove = []
        for x in range(d):
            neigh = np.flatnonzero(snap[x]).tolist()
            for y in neigh:
                if not adj[x, y]:
                    continue
                a, b = min(x, y), max(x, y)
                found: set[int] = set()
                for S in combinations([v for v in neigh if v != y], depth):
                    if stable and y < x and all(snap[y, s] for s in S):
                        continue  # the other endpoint has tested this subset already
                    n_tests += 1
                    if p(x, y, S) > alpha:
                        rows += [(a, b, s) for s in S if s not in found]
                        found.update(S)
                        if stable:
                            remove.append((a, b))
                        else:
                            adj[x, y] = adj[y, x] = False
                            break
        for a, b in remove:
            adj[a, b] = adj[b, a] = False
    return adj, np.array(rows, np.int64).reshape(-1, 3), n_tests, depth
