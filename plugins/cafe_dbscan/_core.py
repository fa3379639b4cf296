"""Array-level CAFE DBSCAN: neighbourhoods, Algorithm 1, the Section V heuristic and the candidate grid."""

from __future__ import annotations

import numpy as np

P_OF_METRIC = {"euclidean": 2.0, "manhattan": 1.0, "chebyshev": np.inf}


def neighbourhoods(X: np.ndarray, eps: float, metric: str) -> tuple[np.ndarray, np.ndarray]:
    """CSR epsilon-neighbourhoods (distance <= eps, the point itself included) via a KD-tree.

    Memory is O(n + number of neighbour pairs): the pairs are estimated first from the
    neighbour counts of up to 2,000 evenly spaced points and refused when their lists would not
    fit the memory budget (duplicated points, e.g. pixels of one colour at one position, make
    them grow like n^2).
    """
    from scipy.spatial import cKDTree

    from macrocause.framework.memory import MemoryEstimate, check_budget

    from ._kernels import pairs_to_csr

    tree = cKDTree(X)
    p = P_OF_METRIC[metric]
    probe = np.linspace(0, X.shape[0] - 1, min(X.shape[0], 2000)).astype(np.int64)
    entries = float(np.mean(tree.query_ball_point(X[probe], eps, p=p, return_length=True))) * X.shape[0]
    check_budget("cafe_dbscan", MemoryEstimate(
        bytes=24.0 * entries, growth=f"24 bytes per neighbour pair, about {entries / 2:.3g} pairs at eps = {eps:.4g}",
        advice="use a smaller eps or min_points, or subsample"))
    pairs = tree.query_pairs(eps, p=p, output_type="ndarray")
    return pairs_to_csr(X.shape[0], pairs.astype(np.int64, copy=False))


NOISE_QUANTILE = 0.99


def cafe_dbscan(
    X: np.ndarray, codes: np.ndarray, m: int, eps: float, min_points: int, tau: float, metric: str = "euclidean",
    refined: bool = False, noise_quantile: float | None = NOISE_QUANTILE,
) -> np.ndarray:
    """Labels (noise -1) of Algorithm 1, optionally cleaned up by :func:`refine` (``noise_quantile``: its
    background-noise rule, None = off)."""
    return cafe_dbscan_grid(X, codes, m, eps, min_points, (tau,), metric, refined, (noise_quantile,))[0][2]


def cafe_dbscan_grid(
    X: np.ndarray, codes: np.ndarray, m: int, eps: float, min_points: int, taus, metric: str = "euclidean",
    refined: bool = False, noise_quantiles=(NOISE_QUANTILE,),
) -> list[tuple[float, float | None, np.ndarray]]:
    """``(tau, noise_quantile, labels)`` of Algorithm 1 for several tau on one set of epsilon-neighbourhoods;
    refined: one labelling per ``noise_quantiles`` entry (see :func:`refine`), else ``noise_quantile`` None."""
    from ._kernels import cafe_expand

    indptr, indices = neighbourhoods(X, eps, metric)
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    order = np.arange(codes.shape[0], dtype=np.int64)
    out = []
    for tau in taus:
        labels, _ = cafe_expand(indptr, indices, codes, int(m), int(min_points), float(tau), order)
        if not refined:
            out.append((tau, None, labels))
        for nq in noise_quantiles if refined else ():
            out.append((tau, nq, refine(indptr, indices, codes, m, labels, int(min_points), noise_quantile=nq)))
    return out


# -- Section V heuristic -------------------------------------------------------
def heuristic_min_points(n: int) -> int:
    """mu in the paper's range [10, 100], growing like sqrt(n) / 3 (30 at n = 8,100)."""
    return int(np.clip(round(np.sqrt(n) / 3), 10, 100))


def heuristic_eps(X: np.ndarray, min_points: int, metric: str, quantile: float = 0.5) -> float:
    """eps such that a good share of the eps-neighbourhoods (``1 - quantile``... here the
    points below the quantile) hold at least mu points: a quantile of the mu-distance."""
    from macrocause.framework.numeric import k_distance

    d = k_distance(X, min_points, P_OF_METRIC[metric], max_queries=4000)
    eps = float(np.quantile(d, quantile))
    return eps if eps > 0 else float(d[d > 0].min()) if np.any(d > 0) else 1.0


def heuristic_tau(m: int, min_points: int) -> float:
    """tau in the paper's range [0.1, 0.4]: about twice the expected total-variation error
    of a histogram of mu/2 points over m states (sqrt(m / (2 pi)) / sqrt(mu/2))."""
    err = np.sqrt(m / (2 * np.pi)) / np.sqrt(max(min_points / 2, 1))
    return float(np.clip(round(2 * err, 2), 0.1, 0.4))


# -- refinement (ours) ---------------------------------------------------------
def refine(indptr: np.ndarray, indices: np.ndarray, codes: np.ndarray, m: int, labels: np.ndarray,
           min_points: int, density: float = 1 / 4, noise_quantile: float | None = NOISE_QUANTILE,
           density_cap: float = 1 / 2,
           alpha: float = 1e-3, max_iter: int = 20) -> np.ndarray:
    """Clean up Algorithm 1's labels on the same epsilon-neighbourhoods (not in the paper).

    1. Points with fewer neighbours than a threshold are noise ("sparse"); the others are
       "dense". The threshold is ``density`` times the median neighbour count of the clustered
       points, raised to the ``noise_quantile`` of the neighbour count a point of the uniform
       background noise has (Poisson, rate from :func:`noise_rate`), but not above
       ``density_cap`` times that median (``noise_quantile`` None: no raise, for data whose
       low-density points are sparse clusters, not background noise). Touching clusters that
       step 4's test cannot tell apart are merged first.
    2. Each dense point moves to the cluster (its own or a neighbour's) under whose effect-state
       distribution its neighbourhood's states are most likely (:func:`relabel_by_likelihood`);
       dense noise points next to a cluster join it, so boundaries between touching clusters
       follow P(Y|X) rather than the expansion order.
    3. Clusters smaller than ``min_points`` are dissolved and step 2 repeated.
    4. Touching clusters (neighbour pairs across them) whose effect-state counts a G-test cannot
       tell apart (p > ``alpha``) are merged, most similar pair first.
    """
    from ._kernels import relabel_by_likelihood

    codes = np.ascontiguousarray(codes, dtype=np.int64)
    deg = np.diff(indptr)
    if not np.any(labels >= 0):
        return labels.copy()
    dense = deg >= sparse_threshold(deg, float(np.median(deg[labels >= 0])), density, noise_quantile, density_cap)
    lab = merge_similar(indptr, indices, codes, m, np.where(dense, labels, -1), alpha)
    lab = relabel_by_likelihood(indptr, indices, codes, lab, m, dense, max_iter)
    sizes = np.bincount(lab[lab >= 0], minlength=1)
    small = np.flatnonzero(sizes < min_points)
    if small.size:
        lab[np.isin(lab, small)] = -1
        lab = relabel_by_likelihood(indptr, indices, codes, lab, m, dense, max_iter)
    return merge_similar(indptr, indices, codes, m, lab, alpha)


def sparse_threshold(deg: np.ndarray, median: float, density: float, noise_quantile: float | None,
                     density_cap: float) -> float:
    """Smallest neighbour count (the point itself included) of a dense point: ``density * median``,
    raised to the ``noise_quantile`` of the background noise's count, at most ``density_cap * median``.

    A noise rate of ``density_cap * median`` or more is not background noise but the clusters' own
    edge points (data without noise); the noise part is then left out, as with ``noise_quantile`` None.
    """
    from scipy.stats import poisson

    thr = max(2.0, density * median)
    if noise_quantile is None:
        return thr
    rate = noise_rate(deg)
    if rate >= density_cap * median:
        return thr
    return max(thr, min(1.0 + float(poisson.ppf(noise_quantile, rate)), density_cap * median))


def noise_rate(deg: np.ndarray, n_iter: int = 100) -> float:
    """Mean neighbour count (the point itself left out) of the uniform background noise: the low
    rate of a two-component Poisson mixture fitted to all points' counts by EM."""
    from scipy.stats import poisson

    vals, cnt = np.unique(np.asarray(deg, dtype=np.float64) - 1.0, return_counts=True)
    lo, hi = max(float(np.quantile(deg - 1.0, 0.05)), 0.1), max(float(np.quantile(deg - 1.0, 0.9)), 1.0)
    w = 0.5
    for _ in range(n_iter):
        a = w * poisson.pmf(vals, lo)
        b = (1.0 - w) * poisson.pmf(vals, hi)
        r = cnt * a / np.maximum(a + b, 1e-300)
        s = cnt - r
        w = float(r.sum() / cnt.sum())
        lo = float((r * vals).sum() / max(r.sum(), 1e-12))
        hi = float((s * vals).sum() / max(s.sum(), 1e-12))
    return lo


def merge_similar(indptr: np.ndarray, indices: np.ndarray, codes: np.ndarray, m: int, labels: np.ndarray,
                  alpha: float) -> np.ndarray:
    """Merge touching clusters whose effect-state counts a G-test cannot tell apart (p > ``alpha``),
    the pair with the largest p first; returns compact labels."""
    from macrocause.framework.numeric import compact_labels

    from ._kernels import cluster_contacts

    lab = compact_labels(labels)
    k = int(lab.max()) + 1
    if k < 2:
        return lab
    contacts = cluster_contacts(indptr, indices, lab, k).astype(np.float64)
    counts = counts_of(lab, codes, m).astype(np.float64)
    alive = np.ones(k, dtype=bool)
    pvals = {(a, b): g_test(counts[a], counts[b]) for a, b in zip(*np.nonzero(np.triu(contacts)))}
    parent = np.arange(k)
    while pvals:
        (a, b), p = max(pvals.items(), key=lambda kv: (kv[1], -kv[0][0], -kv[0][1]))
        if p <= alpha:
            break
        counts[a] += counts[b]
        contacts[a] += contacts[b]
        contacts[:, a] += contacts[:, b]
        contacts[a, a] = 0
        alive[b] = False
        parent[parent == b] = a
        pvals = {pq: v for pq, v in pvals.items() if a not in pq and b not in pq}
        for c in np.flatnonzero(alive & (contacts[a] > 0)):
            pvals[(min(a, c), max(a, c))] = g_test(counts[a], counts[c])
    ok = lab >= 0
    lab[ok] = parent[lab[ok]]
    return compact_labels(lab)


def g_test(a: np.ndarray, b: np.ndarray) -> float:
    """p-value of the G-test that two count vectors come from one distribution."""
    from scipy.stats import chi2

    table = np.array([a, b])[:, (a + b) > 0]
    if table.shape[1] < 2:
        return 1.0
    exp = table.sum(axis=1, keepdims=True) * table.sum(axis=0) / table.sum()
    nz = table > 0
    g = 2.0 * float(np.sum(table[nz] * np.log(table[nz] / exp[nz])))
    return float(chi2.sf(g, table.shape[1] - 1))


def counts_of(labels: np.ndarray, codes: np.ndarray, m: int) -> np.ndarray:
    """k x m effect-state counts per cluster, clusters 0..k-1 (negative labels, noise, left out)."""
    k = int(labels.max()) + 1 if labels.size and labels.max() >= 0 else 0
    out = np.zeros((k, m), dtype=np.int64)
    ok = labels >= 0
    np.add.at(out, (labels[ok], codes[ok]), 1)
    return out
