"""CAFE DBSCAN's automatic mode on grouped data (image pixels): whether neighbouring points share their
effect states beyond what the local distribution explains, and Algorithm 1 with the grouped rule."""

from __future__ import annotations

import numpy as np

from ._core import P_OF_METRIC, counts_of, heuristic_eps, heuristic_min_points, neighbourhoods

NEAR = 20  # the nearest points whose states are compared ...
RING = 100  # ... with the distribution of the next RING points
PROBES = 2000  # points the two measures are taken at
GROUPED_DISPERSION = 1.5  # dispersion from which the data count as grouped
TAU_FACTOR = 2.5  # tau = TAU_FACTOR x the measured region noise (chosen on tuning draws 100-109, docs)


def probe_neighbours(X: np.ndarray, metric: str, k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``(rows, nb)``: the rows of a seeded random order of the points and, for the first ``PROBES`` of
    them, the rows of their ``k`` nearest points (the point itself left out).

    The tree is built on the points in that random order, so points at equal distance (duplicated
    pixels) come in random order, not in the data's order (which is often sorted by effect state)."""
    from scipy.spatial import cKDTree

    rows = np.random.default_rng([seed, 28]).permutation(X.shape[0])
    _, nb = cKDTree(X[rows]).query(X[rows[:PROBES]], k=k + 1, p=P_OF_METRIC[metric])
    return rows, rows[nb[:, 1:]]


def state_counts(codes: np.ndarray, m: int) -> np.ndarray:
    """Per row of a matrix of state codes, the count of each state (rows x m)."""
    return np.stack([(codes == s).sum(axis=1) for s in range(m)], axis=1).astype(np.float64)


def neighbour_dispersion(nb: np.ndarray, codes: np.ndarray, m: int, near: int = NEAR, ring: int = RING) -> float:
    """Pearson dispersion of the effect states of each probe's ``near`` nearest points against the
    distribution of its next ``ring`` points, averaged over probes: about 1 when states are drawn
    independently given X (DS1-DS3), above 1 when neighbouring points share their states because
    they come in groups that share one (the pixels of one image).

    Per probe ``X^2 = sum_s (c_s - near p_s)^2 / (near p_s)`` with ``c`` the near counts and ``p`` the
    ring's distribution (half a count added per state); the mean of ``X^2`` is divided by its value
    under independence, ``(m - 1)(1 + near / ring)`` (the ring's own sampling error included).
    """
    c = state_counts(codes[nb[:, :near]], m)
    p = (state_counts(codes[nb[:, near:near + ring]], m) + 0.5) / (ring + 0.5 * m)
    x2 = ((c - near * p) ** 2 / (near * p)).sum(axis=1)
    return float(x2.mean() / ((m - 1) * (1 + near / ring)))


def region_noise(nb: np.ndarray, codes: np.ndarray, m: int, min_points: int) -> float:
    """Mean total-variation distance between the effect-state histograms of a probe's ``min_points / 2``
    nearest points and its next ``min_points / 2``: how much the histograms of two adjacent regions of
    Algorithm 1's size differ (sampling error and grouping together). The mean, not the median: a
    median of distances between histograms of ``h`` points moves in steps of ``1 / h``."""
    h = max(min_points // 2, 1)
    a = state_counts(codes[nb[:, :h]], m) / h
    b = state_counts(codes[nb[:, h:2 * h]], m) / h
    return float(np.mean(0.5 * np.abs(a - b).sum(axis=1)))


def join_by_distribution(labels: np.ndarray, codes: np.ndarray, m: int, tau: float) -> np.ndarray:
    """Group clusters by their effect-state distribution alone (Definition 2 groups by P(Y|X), not by place):
    largest cluster first, each joins the group whose pooled distribution is nearest in total variation
    if that is within ``tau``, else starts a group. Returns labels 0..g-1 (noise stays -1)."""
    from macrocause.framework.numeric import compact_labels

    lab = compact_labels(labels)
    counts = counts_of(lab, codes, m).astype(np.float64)
    if counts.shape[0] == 0:
        return lab
    pooled: list[np.ndarray] = []
    group = np.empty(counts.shape[0], dtype=np.int64)
    for c in np.argsort(-counts.sum(axis=1), kind="stable"):
        d = counts[c] / counts[c].sum()
        tv = [0.5 * float(np.abs(d - g / g.sum()).sum()) for g in pooled]
        best = int(np.argmin(tv)) if tv else -1
        if best >= 0 and tv[best] <= tau:
            pooled[best] += counts[c]
            group[c] = best
        else:
            pooled.append(counts[c].copy())
            group[c] = len(pooled) - 1
    out = lab.copy()
    ok = lab >= 0
    out[ok] = group[lab[ok]]
    return compact_labels(out, order="sorted")


def measure(X: np.ndarray, codes: np.ndarray, m: int, metric: str, seed: int) -> dict | None:
    """The grouping measures of the automatic mode: ``dispersion`` (:func:`neighbour_dispersion`), Section
    V's ``min_points`` and the ``region_noise`` at it; None when there are too few points to measure."""
    mu = heuristic_min_points(X.shape[0])
    k = max(NEAR + RING, 2 * (mu // 2))
    if X.shape[0] <= k + 1:
        return None
    _, nb = probe_neighbours(X, metric, k, seed)
    return {"dispersion": neighbour_dispersion(nb, codes, m), "min_points": mu,
            "region_noise": region_noise(nb, codes, m, mu)}


def cafe_dbscan_grouped(X: np.ndarray, codes: np.ndarray, m: int, min_points: int, region: float,
                        metric: str = "euclidean") -> tuple[float, float, np.ndarray]:
    """Algorithm 1 with the grouped rule: ``eps`` the median ``min_points``-distance (Section V), ``tau``
    ``TAU_FACTOR`` times the measured region noise, the densest points (most neighbours) tried first as
    cluster starts, then clusters grouped by their effect-state distributions within ``tau``
    (:func:`join_by_distribution`). Returns ``(eps, tau, labels)``."""
    from ._kernels import cafe_expand

    eps = heuristic_eps(X, min_points, metric)
    tau = float(min(TAU_FACTOR * region, 1.0))
    indptr, indices = neighbourhoods(X, eps, metric)
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    order = np.argsort(-np.diff(indptr), kind="stable").astype(np.int64)
    labels, _ = cafe_expand(indptr, indices, codes, int(m), int(min_points), tau, order)
    return eps, tau, join_by_distribution(labels, codes, m, tau)
