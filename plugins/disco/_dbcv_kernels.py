"""Numba kernels for DBCV as in the authors' MATLAB code (pajaskowiak/dbcv, ``dbcv.m``):
squared Euclidean distances, all-points core distance over the cluster's own points,
Prim's MST from the cluster's first point with MATLAB's tie rules. O(n^2) time, O(n)
memory (distances are computed on the fly, never stored as a matrix).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._kernels import sqdist as _sqdist_exact


@njit(cache=True)
def sqdist(X, i, j):
    r = np.sqrt(_sqdist_exact(X, i, j))  # dbcv.m: squareform(pdist(data)).^2
    return r * r


@njit(cache=True)
def dbcv_matlab(X, codes, k, n_total):
    """DBCV of non-noise points ``X`` with cluster codes 0..k-1 (no singletons), k >= 2.

    ``n_total`` counts all points, noise and singletons included (the divisor).
    """
    n, d = X.shape
    ucore = np.zeros(n)
    comp = np.zeros(k)
    internal = np.zeros(n, np.bool_)
    size = np.zeros(k, np.int64)
    for i in range(n):
        size[codes[i]] += 1
    for c in range(k):
        m = size[c]
        obj = np.empty(m, np.int64)
        t = 0
        for i in range(n):
            if codes[i] == c:
                obj[t] = i
                t += 1
        for a in range(m):
            s = 0.0
            for b in range(m):
                dd = sqdist(X, obj[a], obj[b])
                if dd > 0.0:
                    s += dd ** (-d)
            s = s / (m - 1)
            # all neighbours at distance 0 (duplicates): dbcv.m's 1/0 = Inf, then core distance 0
            u = np.inf if s == 0.0 else (1.0 / s) ** (1.0 / d)
            ucore[obj[a]] = 0.0 if u == np.inf else u
        # Prim from the first object, as MST_Edges.m (strict comparisons, first index wins)
        in_tree = np.zeros(m, np.bool_)
        dist = np.full(m, np.inf)
        par = np.arange(m)
        deg = np.zeros(m, np.int64)
        eu = np.empty(m - 1, np.int64)
        ev = np.empty(m - 1, np.int64)
        ew = np.empty(m - 1)
        v = 0
        for e in range(m - 1):
            in_tree[v] = True
            best = np.inf
            nxt = -1
            for w in range(m):
                if w == v or in_tree[w]:
                    continue
                wt = max(ucore[obj[v]], ucore[obj[w]], sqdist(X, obj[v], obj[w]))
                if dist[w] > wt:
                    dist[w] = wt
                    par[w] = v
                if best > dist[w]:
                    best = dist[w]
                    nxt = w
            p = par[nxt]
            eu[e] = p
            ev[e] = nxt
            ew[e] = max(ucore[obj[p]], ucore[obj[nxt]], sqdist(X, obj[p], obj[nxt]))
            deg[p] += 1
            deg[nxt] += 1
            v = nxt
        any_internal = False
        for a in range(m):
            if deg[a] != 1:
                internal[obj[a]] = True
                any_internal = True
        if not any_internal:
            for a in range(m):
                internal[obj[a]] = True
        cmax = -np.inf
        for e in range(m - 1):
            if deg[eu[e]] != 1 and deg[ev[e]] != 1 and ew[e] > cmax:
                cmax = ew[e]
        if cmax == -np.inf:
            for e in range(m - 1):
                if ew[e] > cmax:
                    cmax = ew[e]
        comp[c] = cmax
    # separation: smallest mutual reachability between internal nodes of two clusters
    sep = np.full(k, np.inf)
    for i in range(n):
        if not internal[i]:
            continue
        ci = codes[i]
        for j in range(i + 1, n):
            cj = codes[j]
            if cj == ci or not internal[j]:
                continue
            wt = max(sqdist(X, i, j), ucore[i], ucore[j])
            if wt < sep[ci]:
                sep[ci] = wt
            if wt < sep[cj]:
                sep[cj] = wt
    valid = 0.0
    for c in range(k):
        top = max(comp[c], sep[c])
        v_c = 0.0 if top == 0.0 else (sep[c] - comp[c]) / top
        valid += v_c * size[c]
    return valid / n_total
