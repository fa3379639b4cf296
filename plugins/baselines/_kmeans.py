"""Our k-means (k-means++ seeding, Lloyd iterations, best of n_init), step for step as scikit-learn's.

:class:`macrocause.plugins.baselines.clustering.KMeans` runs this by default
(``backend="macrocause"``): scikit-learn's ``KMeans(algorithm="lloyd")`` on dense data,
the same random draws from ``RandomState(seed)`` in the same order, the same centring,
tolerance, empty-cluster relocation, convergence tests and choice among the restarts,
in plain NumPy. The labels are scikit-learn's; centres and inertia can differ in the
last bits (scikit-learn sums them over threads in an order that varies), tested.
Importing scikit-learn alone takes over a second.

References
----------
Lloyd. Least squares quantization in PCM. IEEE Trans. Inf. Theory 28(2), 1982.
Arthur, Vassilvitskii. k-means++: the advantages of careful seeding. SODA 2007.
Pedregosa et al. Scikit-learn: machine learning in Python. JMLR 12, 2011.
"""

from __future__ import annotations

import warnings

import numpy as np


def _sq_norms(X: np.ndarray) -> np.ndarray:
    return np.einsum("ij,ij->i", X, X)


def plusplus(X: np.ndarray, k: int, x_sq: np.ndarray, rng: np.random.RandomState) -> np.ndarray:
    """k-means++ seeds with ``2 + int(log k)`` local trials per centre (unit sample weights)."""
    n = X.shape[0]
    w = np.ones(n)
    trials = 2 + int(np.log(k))
    centers = np.empty((k, X.shape[1]))
    first = rng.choice(n, p=w / w.sum())
    centers[0] = X[first]

    def sq_dist(C):
        D = -2 * (C @ X.T)
        D += _sq_norms(C)[:, None]
        D += x_sq.reshape(1, -1)
        return np.maximum(D, 0, out=D)

    closest = sq_dist(centers[0, np.newaxis])
    pot = closest @ w
    for c in range(1, k):
        draws = rng.uniform(size=trials) * pot
        ids = np.searchsorted(np.cumsum(w * closest), draws)
        np.clip(ids, None, closest.size - 1, out=ids)
        dist = sq_dist(X[ids])
        np.minimum(closest, dist, out=dist)
        pots = dist @ w.reshape(-1, 1)
        best = np.argmin(pots)
        pot = pots[best]
        closest = dist[best]
        centers[c] = X[ids[best]]
    return centers


def _assign(X: np.ndarray, centers: np.ndarray) -> np.ndarray:
    """Nearest centre of each row (the first on ties), by ``|c|^2 - 2 x.c``."""
    return np.argmin(_sq_norms(centers)[None, :] - 2.0 * (X @ centers.T), axis=1).astype(np.int32)


def _update(X: np.ndarray, centers: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """New centres: cluster means, an empty cluster taking the point farthest from its centre."""
    k, f = centers.shape
    weight = np.bincount(labels, minlength=k).astype(float)
    sums = np.stack([np.bincount(labels, weights=X[:, j], minlength=k) for j in range(f)], axis=1)
    empty = np.flatnonzero(weight == 0)
    if empty.size:
        dist = ((X - centers[labels]) ** 2).sum(axis=1)
        far = np.argpartition(dist, -empty.size)[:-empty.size - 1:-1]
        if np.max(dist) != 0:
            for new, idx in zip(empty, far):
                old = labels[idx]
                sums[old] -= X[idx]
                sums[new] = X[idx]
                weight[new] = 1.0
                weight[old] -= 1.0
    heaviest = np.argmax(weight)
    for j in range(k):
        if weight[j] > 0:
            sums[j] *= 1.0 / weight[j]
        else:
            sums[j] = sums[heaviest]
    return sums


def _single(X: np.ndarray, centers: np.ndarray, max_iter: int, tol: float):
    labels_old = np.full(X.shape[0], -1, dtype=np.int32)
    strict = False
    for _ in range(max_iter):
        labels = _assign(X, centers)
        new = _update(X, centers, labels)
        shift = np.sqrt(((new - centers) ** 2).sum(axis=1))
        centers = new
        if np.array_equal(labels, labels_old):
            strict = True
            break
        if (shift ** 2).sum() <= tol:
            break
        labels_old = labels
    if not strict:
        labels = _assign(X, centers)
    inertia = float(((X - centers[labels]) ** 2).sum())
    return labels, inertia, centers


def _same_clustering(a: np.ndarray, b: np.ndarray, k: int) -> bool:
    mapping = np.full(k, -1)
    for x, y in zip(a.tolist(), b.tolist()):
        if mapping[x] == -1:
            mapping[x] = y
        elif mapping[x] != y:
            return False
    return True


def kmeans(X: np.ndarray, n_clusters: int, *, n_init: int = 10, max_iter: int = 300, seed: int = 0,
           tol: float = 1e-4):
    """Labels (int32), centres (k x d) and inertia of the best of *n_init* k-means++ restarts."""
    X = np.array(X, dtype=np.float64, order="C")
    mean = X.mean(axis=0)
    X -= mean
    x_sq = _sq_norms(X)
    rng = np.random.RandomState(seed)
    tol = np.mean(np.var(X, axis=0)) * tol if tol else 0
    best = None
    for _ in range(n_init):
        labels, inertia, centers = _single(X, plusplus(X, n_clusters, x_sq, rng), max_iter, tol)
        if best is None or (inertia < best[1] and not _same_clustering(labels, best[0], n_clusters)):
            best = (labels, inertia, centers)
    labels, inertia, centers = best
    centers += mean
    found = len(set(labels.tolist()))
    if found < n_clusters:
        warnings.warn(f"kmeans: {found} distinct clusters found, fewer than n_clusters={n_clusters} "
                      "(duplicate points in the data?).", stacklevel=2)
    return labels, centers, inertia
