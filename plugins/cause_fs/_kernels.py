"""Numba kernels of CAUSE-FS: the row-wise simplex problems of Eqs. (9)-(12) on sparse candidate
sets and Ward linkage (1-D intervals; in place on condensed distances)."""

from __future__ import annotations

import heapq

import numpy as np
from numba import njit


@njit(cache=True)
def simplex_rows(A, cand, nb_indptr, nb_indices, nb_data, coef, gamma, k, rows):
    """Solve ``min_s sum_j tau_ij s_j + gamma_i ||s||^2`` on the simplex (``s_i = 0``) for each row in *rows*.

    ``tau_ij = 0.5 ||A_i - A_j||^2 - coef * N_ij`` with ``N`` a sparse matrix in CSR form
    (``G`` for the S-update, ``S-bar`` for the G-update). Candidates of row i are
    ``cand[i]`` (its nearest neighbours in A, ascending distance, -1 padded) plus the
    support of ``N_i``; every other j has ``N_ij = 0`` and
    ``tau_ij >= 0.5 * dist(i, last candidate)``. A row whose gamma is <= 0 gets
    gamma by Eq. (10) (exactly k non-zeros) and keeps it.

    Returns ``(out_idx, out_val, out_cnt, exact)``: per row the non-zeros, and whether the
    optimality over all n columns is certified (else more candidates are needed).
    """
    n = A.shape[0]
    h = A.shape[1]
    K = cand.shape[1]
    maxnb = 0
    for i in range(n):
        maxnb = max(maxnb, nb_indptr[i + 1] - nb_indptr[i])
    C = K + maxnb
    R = rows.shape[0]
    out_idx = np.full((R, C), -1, dtype=np.int64)
    out_val = np.zeros((R, C))
    out_cnt = np.zeros(R, dtype=np.int64)
    exact = np.ones(R, dtype=np.bool_)
    bonus = np.zeros(n)
    seen = np.zeros(n, dtype=np.bool_)
    buf = np.empty(C, dtype=np.int64)
    tau = np.empty(C)
    for r in range(R):
        i = rows[r]
        m = 0
        last = -1
        for p in range(K):
            j = cand[i, p]
            if j >= 0:
                last = j
                if j != i and not seen[j]:
                    seen[j] = True
                    buf[m] = j
                    m += 1
        for p in range(nb_indptr[i], nb_indptr[i + 1]):
            j = nb_indices[p]
            bonus[j] += nb_data[p]
            if j != i and not seen[j]:
                seen[j] = True
                buf[m] = j
                m += 1
        for q in range(m):
            j = buf[q]
            d = 0.0
            for c in range(h):
                diff = A[i, c] - A[j, c]
                d += diff * diff
            tau[q] = 0.5 * d - coef * bonus[j]
        bound = np.inf
        if last >= 0 and m < n - 1:
            d = 0.0
            for c in range(h):
                diff = A[i, c] - A[last, c]
                d += diff * diff
            bound = 0.5 * d
        for p in range(nb_indptr[i], nb_indptr[i + 1]):
            bonus[nb_indices[p]] = 0.0
        for q in range(m):
            seen[buf[q]] = False
        order = np.argsort(tau[:m], kind="mergesort")
        ts = tau[:m][order]
        g = gamma[i]
        if g <= 0.0:
            kk = min(k, m - 1)
            if kk >= 1:
                g = 0.5 * (kk * ts[kk] - np.sum(ts[:kk]))
            floor = 1e-12 * max(np.max(np.abs(ts)), 1e-12)
            if not g > floor:
                g = floor
            gamma[i] = g
        # projection of v = -tau / (2 g) onto the simplex; v is descending along ts
        cs = 0.0
        theta = 0.0
        for q in range(m):
            v = -ts[q] / (2.0 * g)
            cs += v
            t = (cs - 1.0) / (q + 1)
            if v - t > 0.0:
                theta = t
        cnt = 0
        for q in range(m):
            s = -ts[q] / (2.0 * g) - theta
            if s > 0.0:
                out_idx[r, cnt] = buf[order[q]]
                out_val[r, cnt] = s
                cnt += 1
        out_cnt[r] = cnt
        if bound < np.inf and -bound / (2.0 * g) - theta > 0.0:
            exact[r] = False
    return out_idx, out_val, out_cnt, exact


@njit(cache=True)
def ward_1d(x):
    """Ward's agglomerative clustering of 1-D points, as scipy's ``linkage(x[:, None], "ward")``.

    In one dimension Ward's clusters are intervals of the sorted values, so only adjacent
    clusters compete: the cheapest adjacent merge is taken each step (a heap with lazy
    deletion), O(d log d) time and O(d) memory instead of scipy's O(d^2). Merge heights are
    ``sqrt(2 n_a n_b / (n_a + n_b)) |c_a - c_b|``; rows of the result are
    ``[smaller id, larger id, height, size]``, clusters numbered d, d+1, ... as formed.
    """
    d = x.size
    order = np.argsort(x, kind="mergesort")
    mean = x[order].astype(np.float64)
    cnt = np.ones(d)
    cid = order.astype(np.int64)
    nxt = np.arange(1, d + 1)
    prv = np.arange(-1, d - 1)
    ver = np.zeros(d, dtype=np.int64)
    heap = [(abs(mean[1] - mean[0]) if d > 1 else 0.0, 0, 0)]
    for p in range(1, d - 1):
        heapq.heappush(heap, (abs(mean[p + 1] - mean[p]), p, 0))
    Z = np.empty((max(d - 1, 0), 4))
    for t in range(d - 1):
        while True:
            c, p, v = heapq.heappop(heap)
            if ver[p] == v and nxt[p] < d:
                break
        q = nxt[p]
        a, b = cid[p], cid[q]
        Z[t, 0], Z[t, 1] = min(a, b), max(a, b)
        Z[t, 2] = c
        Z[t, 3] = cnt[p] + cnt[q]
        mean[p] = (cnt[p] * mean[p] + cnt[q] * mean[q]) / (cnt[p] + cnt[q])
        cnt[p] += cnt[q]
        cid[p] = d + t
        ver[q] += 1
        nxt[p] = nxt[q]
        if nxt[q] < d:
            prv[nxt[q]] = p
        ver[p] += 1
        if nxt[p] < d:
            r = nxt[p]
            heapq.heappush(heap, (np.sqrt(2.0 * cnt[p] * cnt[r] / (cnt[p] + cnt[r])) * abs(mean[r] - mean[p]),
                                  p, ver[p]))
        le = prv[p]
        if le >= 0:
            ver[le] += 1
            heapq.heappush(heap, (np.sqrt(2.0 * cnt[le] * cnt[p] / (cnt[le] + cnt[p])) * abs(mean[p] - mean[le]),
                                  le, ver[le]))
    return Z


@njit(cache=True)
def ward_condensed(D, n):
    """Ward's linkage of n points from their condensed distances, as scipy's ``linkage(D, "ward")``.

    scipy's nearest-neighbour chain with the Lance-Williams update, but in place: *D* is
    overwritten, so the peak is the 4 n^2 bytes of D instead of twice that. Returns Z in
    scipy's format (rows sorted by height, clusters relabelled n, n+1, ... as formed).
    """
    size = np.ones(n)
    chain = np.empty(n, dtype=np.int64)
    raw = np.empty((n - 1, 3))
    L = 0
    for k in range(n - 1):
        if L == 0:
            for i in range(n):
                if size[i] > 0:
                    chain[0] = i
                    L = 1
                    break
        while True:
            x = chain[L - 1]
            y = -1
            cur = np.inf
            if L > 1:
                y = chain[L - 2]
                cur = D[_cidx(n, x, y)]
            for i in range(n):
                if size[i] == 0 or i == x:
                    continue
                dist = D[_cidx(n, x, i)]
                if dist < cur:
                    cur = dist
                    y = i
            if L > 1 and y == chain[L - 2]:
                break
            chain[L] = y
            L += 1
        L -= 2
        if x > y:
            x, y = y, x
        nx, ny = size[x], size[y]
        raw[k, 0], raw[k, 1], raw[k, 2] = x, y, cur
        size[x] = 0.0
        size[y] = nx + ny
        for i in range(n):
            ni = size[i]
            if ni == 0 or i == y:
                continue
            dxi = D[_cidx(n, i, x)]
            dyi = D[_cidx(n, i, y)]
            t = 1.0 / (nx + ny + ni)
            D[_cidx(n, i, y)] = np.sqrt((ni + nx) * t * dxi * dxi + (ni + ny) * t * dyi * dyi - ni * t * cur * cur)
    order = np.argsort(raw[:, 2], kind="mergesort")
    parent = np.arange(2 * n - 1)
    csize = np.ones(2 * n - 1)
    Z = np.empty((n - 1, 4))
    for k in range(n - 1):
        a = _find(parent, int(raw[order[k], 0]))
        b = _find(parent, int(raw[order[k], 1]))
        Z[k, 0], Z[k, 1] = min(a, b), max(a, b)
        Z[k, 2] = raw[order[k], 2]
        parent[a] = parent[b] = n + k
        csize[n + k] = csize[a] + csize[b]
        Z[k, 3] = csize[n + k]
    return Z


@njit(cache=True)
def _cidx(n, i, j):
    if i > j:
        i, j = j, i
    return n * i - (i * (i + 1)) // 2 + j - i - 1


@njit(cache=True)
def _find(parent, i):
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i
