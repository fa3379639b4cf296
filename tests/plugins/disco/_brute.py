"""Brute-force O(n^3) DISCO for tiny inputs: Floyd-Warshall minimax on the full
mutual-reachability matrix and a hand-written silhouette (no MST, no dendrogram)."""

from __future__ import annotations

import numpy as np


def brute_disco(X, labels, min_points=5):
    X = np.asarray(X, float)
    y = np.asarray(labels)
    n = len(X)
    D = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    core = np.sort(D, axis=1)[:, min_points - 1]
    dc = np.maximum(D, np.maximum(core[:, None], core[None, :]))
    for k in range(n):
        dc = np.minimum(dc, np.maximum(dc[:, k : k + 1], dc[k : k + 1, :]))
    np.fill_diagonal(dc, 0.0)
    ids = sorted(set(y.tolist()) - {-1})
    noise = y == -1
    if not ids:
        return np.full(n, -1.0)
    if len(ids) == 1 and not noise.any():
        return np.zeros(n)

    def ratio(x, c):
        return 0.0 if max(x, c) == 0 else (x - c) / max(x, c)

    # groups for the silhouette: clusters, plus each noise point alone when one cluster + noise
    groups = [np.flatnonzero(y == c) for c in ids]
    if len(ids) == 1:
        groups += [np.array([i]) for i in np.flatnonzero(noise)]
    out = np.empty(n)
    for i in np.flatnonzero(~noise):
        own = next(g for g in groups if i in g)
        if len(own) == 1:
            out[i] = 0.0
            continue
        a = dc[i, own].sum() / (len(own) - 1)
        b = min(dc[i, g].mean() for g in groups if i not in g)
        out[i] = ratio(b, a)
    kap = {c: core[y == c].max() for c in ids}
    for i in np.flatnonzero(noise):
        sparse = min(ratio(core[i], kap[c]) for c in ids)
        far = min(ratio(dc[i, y == c].min(), kap[c]) for c in ids)
        out[i] = min(sparse, far)
    return out
