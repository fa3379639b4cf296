"""DISCO computed as the authors' code computes it (``disco(backend="dense")``): an
n x n mutual-reachability matrix, Prim's MST on it, an n x n dc-distance matrix
filled block by block from the single-linkage merges, then the silhouette on the
dc-distance matrix (scikit-learn, precomputed) and the noise terms by dense minima.

O(n^2) time and memory (about 24 n^2 bytes at its peak); the reference the fast
backends are measured against, in the same benchmark grid."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _prim(D):
    n = D.shape[0]
    in_tree = np.zeros(n, np.bool_)
    dist = np.full(n, np.inf)
    par = np.zeros(n, np.int64)
    eu = np.empty(n - 1, np.int64)
    ev = np.empty(n - 1, np.int64)
    ew = np.empty(n - 1)
    v = 0
    for e in range(n - 1):
        in_tree[v] = True
        best = np.inf
        nxt = -1
        for w in range(n):
            if in_tree[w]:
                continue
            if D[v, w] < dist[w]:
                dist[w] = D[v, w]
                par[w] = v
            if dist[w] < best or nxt < 0:
                best = dist[w]
                nxt = w
        eu[e], ev[e], ew[e] = par[nxt], nxt, dist[nxt]
        v = nxt
    return eu, ev, ew


@njit(cache=True)
def _fill_dc(n, eu, ev, ew, order, out):
    # members of each union-find root, as linked lists
    uf = np.arange(n)
    head = np.arange(n)
    nxt = np.full(n, -1)
    tail = np.arange(n)
    for t in range(order.shape[0]):
        e = order[t]
        a = eu[e]
        while uf[a] != a:
            a = uf[a]
        b = ev[e]
        while uf[b] != b:
            b = uf[b]
        i = head[a]
        while i >= 0:
            j = head[b]
            while j >= 0:
                out[i, j] = ew[e]
                out[j, i] = ew[e]
                j = nxt[j]
            i = nxt[i]
        uf[b] = a
        nxt[tail[a]] = head[b]
        tail[a] = tail[b]
    for i in range(n):
        out[i, i] = 0.0


DENSE_BYTES_PER_N2 = 24  # measured peak: 2.4 GB at n = 10,000, 8.9 GB at 20,000


def dense_disco_samples(X: np.ndarray, labels: np.ndarray, min_points: int = 5) -> np.ndarray:
    """Per-point DISCO values from n x n matrices (same definitions and special cases as
    :func:`macrocause.plugins.disco._disco.disco_samples`)."""
    from sklearn.metrics import pairwise_distances, silhouette_samples

    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(labels)
    n = len(X)
    ids = set(np.unique(y).tolist())
    if ids == {-1}:
        return np.full(n, -1.0)
    if len(ids) == 1:
        return np.zeros(n)
    D = pairwise_distances(X)  # matrix 1
    core = np.partition(D, min_points - 1, axis=1)[:, min_points - 1]
    np.maximum(D, core[None, :], out=D)
    np.maximum(D, core[:, None], out=D)
    eu, ev, ew = _prim(D)
    _fill_dc(n, eu, ev, ew, np.argsort(ew, kind="stable"), D)  # dc-distances overwrite D in place
    dc = D
    noise = y == -1
    out = np.empty(n)
    clusters = sorted(ids - {-1})
    if len(clusters) == 1:
        lab = y.copy()
        lab[noise] = -2 - np.arange(noise.sum())
        sil = silhouette_samples(dc, lab, metric="precomputed")  # noise points as singletons
        out[~noise] = sil[~noise]
    else:
        sub = dc[np.ix_(~noise, ~noise)]  # matrix 2
        out[~noise] = silhouette_samples(sub, y[~noise], metric="precomputed")
        del sub
    if noise.any():
        kap = {c: core[y == c].max() for c in clusters}
        sparse = np.full(noise.sum(), np.inf)
        far = np.full(noise.sum(), np.inf)
        with np.errstate(invalid="ignore", divide="ignore"):
            for c in clusters:
                m = dc[np.ix_(noise, y == c)].min(axis=1)
                r1 = np.nan_to_num((core[noise] - kap[c]) / np.maximum(core[noise], kap[c]))
                r2 = np.nan_to_num((m - kap[c]) / np.maximum(m, kap[c]))
                sparse = np.minimum(sparse, r1)
                far = np.minimum(far, r2)
        out[noise] = np.minimum(sparse, far)
    return out
