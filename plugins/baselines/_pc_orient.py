"""Orientation step of our PC (numba): unshielded colliders from the separating sets, then Meek's rules.

Graphs are causal-learn endpoint matrices (int8): ``i -> j`` is ``M[i, j] = -1,
M[j, i] = 1``; ``i - j`` is ``M[i, j] = M[j, i] = -1``. The rules visit triples and
kites in the order causal-learn's ``UCSepset.uc_sepset`` (``uc_priority=2``:
an edge already pointing away from the middle node blocks a later collider) and
``Meek.meek`` visit them, since with conflicting evidence the first rule applied
wins. Meek's rules skip an orientation that would close a directed cycle; here
the check is exact reachability (causal-learn keeps an ancestor matrix that can
miss paths, and then closes cycles).

References
----------
Meek. Causal inference and causal explanation with background knowledge. UAI 1995.
Zheng et al. Causal-learn: causal discovery in Python. JMLR 25(60), 2024.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _directed(M, a, b):
    return M[a, b] == -1 and M[b, a] == 1


@njit(cache=True)
def _undirected(M, a, b):
    return M[a, b] == -1 and M[b, a] == -1


@njit(cache=True)
def _orient(M, a, b):
    M[a, b] = -1
    M[b, a] = 1


@njit(cache=True)
def orient_colliders(adj: np.ndarray, sep: np.ndarray) -> np.ndarray:
    """Endpoint matrix of the skeleton with its unshielded colliders ``i -> j <- k``.

    A triple ``i - j - k`` (``i < k`` not adjacent) is a collider when ``j`` is not in
    the separating set of ``i, k``; it is oriented unless ``j -> i`` or ``j -> k``
    is already there. Triples are visited by middle node, then ``i``, then ``k``.
    """
    d = adj.shape[0]
    M = np.zeros((d, d), np.int8)
    for a in range(d):
        for b in range(d):
            if adj[a, b]:
                M[a, b] = -1
    for j in range(d):
        for i in range(d):
            if not adj[j, i]:
                continue
            for k in range(i + 1, d):
                if not adj[j, k] or adj[i, k]:
                    continue
                if (sep[i, k, j >> 6] >> np.uint64(j & 63)) & np.uint64(1):
                    continue
                if not _directed(M, j, i) and not _directed(M, j, k):
                    _orient(M, i, j)
                    _orient(M, k, j)
    return M


@njit(cache=True)
def _is_ancestor(M, a, b, seen, stack):
    """Whether a directed path leads from a to b (a == b counts)."""
    if a == b:
        return True
    d = M.shape[0]
    seen[:] = False
    seen[a] = True
    stack[0] = a
    top = 1
    while top > 0:
        top -= 1
        u = stack[top]
        for v in range(d):
            if not seen[v] and _directed(M, u, v):
                if v == b:
                    return True
                seen[v] = True
                stack[top] = v
                top += 1
    return False


@njit(cache=True)
def _adjacency_order(M):
    """causal-learn's ``find_adj`` order: tails then arrowheads, each as (col, row) row by row."""
    d = M.shape[0]
    first = []
    second = []
    for code in (-1, 1):
        for r in range(d):
            for c in range(d):
                if M[r, c] == code:
                    first.append(c)
                    second.append(r)
    return np.array(first, np.int64), np.array(second, np.int64)


@njit(cache=True)
def _group(keys, n_keys):
    """Positions sorted by key, stable (original order within a key), and each key's start."""
    counts = np.zeros(n_keys + 1, np.int64)
    for k in keys:
        counts[k + 1] += 1
    start = np.cumsum(counts)
    fill = start[:-1].copy()
    pos = np.empty(keys.shape[0], np.int64)
    for p in range(keys.shape[0]):
        pos[fill[keys[p]]] = p
        fill[keys[p]] += 1
    return pos, start


@njit(cache=True)
def _triples(M):
    """causal-learn's unshielded triples and triangles, in its order (both symmetric copies)."""
    d = M.shape[0]
    fa, fb = _adjacency_order(M)
    pos, start = _group(fa, d)
    ut = []
    tri = []
    for p in range(fa.shape[0]):
        a, b = fa[p], fb[p]
        for q in pos[start[b]:start[b + 1]]:
            c = fb[q]
            if c == a:
                continue
            if M[a, c] == 0:
                ut.append((a, b, c))
            else:
                tri.append((a, b, c))
    return ut, tri


@njit(cache=True)
def _kites(M, tri):
    """causal-learn's kites (i, j, k, m): triangles i-j-m and i-k-m with j < k not adjacent."""
    d = M.shape[0]
    keys = np.empty(len(tri), np.int64)
    for t in range(len(tri)):
        keys[t] = tri[t][0] * d + tri[t][2]
    pos, start = _group(keys, d * d)
    kite = []
    for t0 in range(len(tri)):
        i, j, m = tri[t0]
        for t1 in pos[start[keys[t0]]:start[keys[t0] + 1]]:
            k = tri[t1][1]
            if j < k and M[j, k] == 0:
                kite.append((i, j, k, m))
    return kite


@njit(cache=True)
def meek(M: np.ndarray) -> tuple[np.ndarray, int]:
    """Apply Meek's rules 1-3 until none applies (in place).

    Returns M and the number of edges left undirected after a rule was refused
    an orientation of them because it would close a directed cycle.
    """
    d = M.shape[0]
    ut, tri = _triples(M)
    kite = _kites(M, tri)
    seen = np.zeros(d, np.bool_)
    stack = np.empty(d, np.int64)
    refused = np.zeros((d, d), np.bool_)
    loop = True
    while loop:
        loop = False
        for i, j, k in ut:  # rule 1: i -> j - k, i and k not adjacent => j -> k
            if _directed(M, i, j) and _undirected(M, j, k):
                if _is_ancestor(M, k, j, seen, stack):
                    refused[j, k] = True
                else:
                    _orient(M, j, k)
                    loop = True
        for i, j, k in tri:  # rule 2: i -> j -> k, i - k => i -> k
            if _directed(M, i, j) and _directed(M, j, k) and _undirected(M, i, k):
                if _is_ancestor(M, k, i, seen, stack):
                    refused[i, k] = True
                else:
                    _orient(M, i, k)
                    loop = True
        for i, j, k, m in kite:  # rule 3: i - j -> m, i - k -> m, i - m => i -> m
            if (_undirected(M, i, j) and _undirected(M, i, k) and _directed(M, j, m)
                    and _directed(M, k, m) and _undirected(M, i, m)):
                if _is_ancestor(M, m, i, seen, stack):
                    refused[i, m] = True
                else:
                    _orient(M, i, m)
                    loop = True
    left = 0
    for a in range(d):
        for b in range(a + 1, d):
            if (refused[a, b] or refused[b, a]) and _undirected(M, a, b):
                left += 1
    return M, left
