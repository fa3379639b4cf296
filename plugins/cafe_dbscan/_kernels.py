"""Numba kernels of CAFE DBSCAN: neighbour lists in CSR form and the expansion loop (Algorithm 1)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def pairs_to_csr(n, pairs):
    """CSR neighbour lists, each in ascending index order, from the pairs i < j of a radius query.

    Returns ``indptr`` (n + 1) and ``indices`` (n + 2 * len(pairs)), int64. O(n + pairs): the
    lists are filled unordered, then transposed (a symmetric relation is its own transpose), and
    the transpose visits the columns in ascending order, so no list is sorted.
    """
    deg = np.ones(n, dtype=np.int64)
    for t in range(pairs.shape[0]):
        deg[pairs[t, 0]] += 1
        deg[pairs[t, 1]] += 1
    indptr = np.zeros(n + 1, dtype=np.int64)
    for i in range(n):
        indptr[i + 1] = indptr[i] + deg[i]
    fill = indptr[:-1].copy()
    unordered = np.empty(indptr[n], dtype=np.int64)
    for i in range(n):
        unordered[fill[i]] = i
        fill[i] += 1
    for t in range(pairs.shape[0]):
        a = pairs[t, 0]
        b = pairs[t, 1]
        unordered[fill[a]] = b
        fill[a] += 1
        unordered[fill[b]] = a
        fill[b] += 1
    fill[:] = indptr[:-1]
    indices = np.empty(indptr[n], dtype=np.int64)
    for c in range(n):  # ascending order: results do not depend on the tree's pair order
        for t in range(indptr[c], indptr[c + 1]):
            r = unordered[t]
            indices[fill[r]] = c
            fill[r] += 1
    return indptr, indices


@njit(cache=True)
def _gather_unclassified(p, indptr, indices, labels, buf):
    k = 0
    for t in range(indptr[p], indptr[p + 1]):
        q = indices[t]
        if labels[q] == -1:
            buf[k] = q
            k += 1
    return k


@njit(cache=True)
def _claim(buf, k, cluster, codes, labels, hist, queue, tail):
    """Put the ``k`` points of ``buf`` in ``cluster``: label, count their states, queue them."""
    for t in range(k):
        q = buf[t]
        labels[q] = cluster
        hist[codes[q]] += 1
        queue[tail] = q
        tail += 1
    return tail


@njit(cache=True)
def cafe_expand(indptr, indices, codes, m, min_points, tau, order):
    """Algorithm 1 of CAFE DBSCAN on precomputed epsilon-neighbourhoods.

    Parameters
    ----------
    indptr, indices : int64 arrays
        CSR epsilon-neighbourhoods (each includes the point itself).
    codes : int64 array (n,)
        Effect states as codes 0..m-1.
    m : int
        Number of effect states.
    min_points : int
        mu: unclassified points a start region needs.
    tau : float
        Largest total-variation distance between a region's effect-state
        histogram and the running histogram of the cluster it joins.
    order : int64 array (n,)
        The order in which points are tried as cluster starts (Algorithm 1: 0..n-1).

    Returns
    -------
    labels : int64 array (n,)
        Cluster per point, -1 for noise (never classified).
    hist : int64 array (k, m)
        Effect-state counts per cluster.
    """
    n = codes.shape[0]
    labels = np.full(n, -1, dtype=np.int64)
    queue = np.empty(n, dtype=np.int64)
    maxdeg = 0
    for i in range(n):
        d = indptr[i + 1] - indptr[i]
        if d > maxdeg:
            maxdeg = d
    buf = np.empty(maxdeg, dtype=np.int64)
    region = np.zeros(m, dtype=np.int64)
    hist_rows = []
    cluster = 0
    for t0 in range(n):
        x = order[t0]
        if labels[x] != -1:
            continue
        k = _gather_unclassified(x, indptr, indices, labels, buf)
        if k < min_points:
            continue
        chist = np.zeros(m, dtype=np.int64)
        head = 0
        tail = _claim(buf, k, cluster, codes, labels, chist, queue, 0)
        csize = k
        while head < tail:
            p = queue[head]
            head += 1
            k = _gather_unclassified(p, indptr, indices, labels, buf)
            if k == 0:
                continue
            region[:] = 0
            for t in range(k):
                region[codes[buf[t]]] += 1
            tv = 0.0
            for s in range(m):
                tv += abs(region[s] / k - chist[s] / csize)
            if 0.5 * tv <= tau + 1e-12:
                tail = _claim(buf, k, cluster, codes, labels, chist, queue, tail)
                csize += k
        hist_rows.append(chist)
        cluster += 1
    hist = np.zeros((cluster, m), dtype=np.int64)
    for c in range(cluster):
        hist[c] = hist_rows[c]
    return labels, hist


@njit(cache=True)
def _cluster_logp(labels, codes, k, m):
    cnt = np.ones((k, m))  # add-one smoothing
    for i in range(codes.shape[0]):
        if labels[i] >= 0:
            cnt[labels[i], codes[i]] += 1.0
    for c in range(k):
        s = cnt[c].sum()
        for s_ in range(m):
            cnt[c, s_] = np.log(cnt[c, s_] / s)
    return cnt


@njit(cache=True)
def relabel_by_likelihood(indptr, indices, codes, labels, m, dense, max_iter):
    """Move each dense point to the cluster, among its own and its neighbours' clusters, under
    whose effect-state distribution the states of its epsilon-neighbourhood are most likely.

    Synchronous passes, cluster distributions re-estimated (add-one) before each pass, until no
    label changes or ``max_iter`` passes. Points that are not ``dense`` keep their label.
    """
    n = codes.shape[0]
    lab = labels.copy()
    k = 0
    for i in range(n):
        if lab[i] + 1 > k:
            k = lab[i] + 1
    if k == 0:
        return lab
    stamp = np.full(k, -1, dtype=np.int64)
    cands = np.empty(k, dtype=np.int64)
    h = np.zeros(m)
    for _ in range(max_iter):
        logp = _cluster_logp(lab, codes, k, m)
        new = lab.copy()
        changed = 0
        for i in range(n):
            if not dense[i]:
                continue
            h[:] = 0.0
            nc = 0
            for t in range(indptr[i], indptr[i + 1]):
                j = indices[t]
                h[codes[j]] += 1.0
                c = lab[j]
                if c >= 0 and dense[j] and stamp[c] != i:
                    stamp[c] = i
                    cands[nc] = c
                    nc += 1
            best = lab[i]
            bestv = -np.inf
            if best >= 0:
                bestv = 0.0
                for s in range(m):
                    bestv += h[s] * logp[best, s]
            for t in range(nc):
                c = cands[t]
                v = 0.0
                for s in range(m):
                    v += h[s] * logp[c, s]
                if v > bestv + 1e-9 or (best < 0 and v > bestv):
                    best = c
                    bestv = v
            if best != lab[i]:
                new[i] = best
                changed += 1
        stamp[:] = -1
        lab = new
        if changed == 0:
            break
    return lab


@njit(cache=True)
def cluster_contacts(indptr, indices, labels, k):
    """k x k counts of neighbour pairs (i, j) with labels a != b, both clustered (symmetric)."""
    out = np.zeros((k, k), dtype=np.int64)
    for i in range(labels.shape[0]):
        a = labels[i]
        if a < 0:
            continue
        for t in range(indptr[i], indptr[i + 1]):
            b = labels[indices[t]]
            if b >= 0 and b != a:
                out[a, b] += 1
    return out
