"""Hill climbing over cluster DAGs (Algorithm 2 run to a local optimum) and the restarts of Algorithm 1.

A state is a list of clusters (sorted tuples of variable indices) and a boolean
adjacency matrix between them; the edge climb itself is :func:`macrocause.framework.dag_climb.climb_edges`.
"""

from __future__ import annotations

import numpy as np

from macrocause.framework.dag_climb import TOL, Idx, climb_edges, total_score
from macrocause.framework.numeric import compact_labels


def is_acyclic(adj: np.ndarray) -> bool:
    """True when the cluster digraph *adj* has no directed cycle (Kahn's algorithm, a numba kernel)."""
    from ._kernels import topological_order

    return topological_order(adj).size == adj.shape[0]


def _without(clusters: list[Idx], adj: np.ndarray, drop: int) -> tuple[list[Idx], np.ndarray]:
    keep = [i for i in range(len(clusters)) if i != drop]
    return [clusters[i] for i in keep], adj[np.ix_(keep, keep)]


def move_variable(clusters: list[Idx], adj: np.ndarray, v: int, a: int, b: int):
    """Move variable v from cluster a to cluster b (b = len(clusters): a new cluster without edges)."""
    m = len(clusters)
    cl, A = list(clusters), adj
    if b == m:
        cl.append((v,))
        A = np.zeros((m + 1, m + 1), dtype=bool)
        A[:m, :m] = adj
    else:
        cl[b] = tuple(sorted(cl[b] + (v,)))
    cl[a] = tuple(x for x in cl[a] if x != v)
    if not cl[a]:
        cl, A = _without(cl, A, a)
    return cl, A


def merge(clusters: list[Idx], adj: np.ndarray, a: int, b: int):
    """Merge clusters a and b; the merged cluster takes both clusters' edges (None if that makes a cycle)."""
    cl = list(clusters)
    cl[a] = tuple(sorted(clusters[a] + clusters[b]))
    A = adj.copy()
    A[a, :] |= A[b, :]
    A[:, a] |= A[:, b]
    A[a, a] = False
    cl, A = _without(cl, A, b)
    return (cl, A) if is_acyclic(A) else None


def cluster_neighbours(clusters: list[Idx], adj: np.ndarray, m_range: tuple[int, int] | None = None):
    """Clusterings one move away: move a variable to another or to a new cluster; merge two clusters.

    Cluster-level edges are kept (a merged cluster takes the union of both
    clusters' edges); a candidate whose edges would form a cycle is skipped, and
    so is one whose number of clusters leaves ``m_range = (lo, hi)`` when given.
    """
    m = len(clusters)
    lo, hi = m_range if m_range is not None else (1, m + 1)
    for a in range(m):
        for v in clusters[a]:
            rest = tuple(x for x in clusters[a] if x != v)
            targets = [b for b in range(m) if b != a] + ([m] if rest and m + 1 <= hi else [])
            for b in targets:
                if not rest and m - 1 < lo:
                    continue
                yield move_variable(clusters, adj, v, a, b)
    if m - 1 < lo:
        return
    for a in range(m):
        for b in range(a + 1, m):
            moved = merge(clusters, adj, a, b)
            if moved is not None:
                yield moved


def climb(eng, clusters: list[Idx], adj: np.ndarray, max_steps: int, cluster_moves: bool,
          m_range: tuple[int, int] | None = None):
    """Edge hill climbing; with *cluster_moves*, alternate it with the best clustering move
    (numbers of clusters kept within *m_range*)."""
    adj, score = climb_edges(eng, clusters, adj, max_steps)
    while cluster_moves:
        best = None
        for cl, A in cluster_neighbours(clusters, adj, m_range):
            s = total_score(eng, cl, A)
            if s > score + TOL and (best is None or s > best[0]):
                best = (s, cl, A)
        if best is None:
            break
        clusters = best[1]
        adj, score = climb_edges(eng, clusters, best[2], max_steps)
    return score, clusters, adj


def m_probabilities(lo: int, hi: int, distribution: str, decay: float) -> np.ndarray:
    """P(m) for m = lo..hi: uniform ("paper", "uniform") or geometric, P(m) proportional to decay^(m - lo)."""
    if distribution == "geometric":
        w = decay ** np.arange(hi - lo + 1, dtype=float)
    else:
        w = np.ones(hi - lo + 1)
    return w / w.sum()


def uniform_partition(d: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """Labels of a partition of d items into exactly m non-empty blocks, uniform over all S(d, m) of them.

    Backward over items: item i is alone among items 0..i with probability
    S(i, k-1) / S(i+1, k), else it joins one of the k blocks of items 0..i-1
    (each with equal probability); blocks are then labelled in order of first item.
    """
    from ._kernels import log_stirling2_table

    T = log_stirling2_table(d, m)
    choice = np.empty(d, dtype=np.int64)  # -1: opens a block; j >= 0: joins the j-th block (by first item)
    k = m
    for i in range(d - 1, -1, -1):
        if rng.random() < np.exp(T[i, k - 1] - T[i + 1, k]):
            choice[i] = -1
            k -= 1
        else:
            choice[i] = rng.integers(k)
    labels = np.empty(d, dtype=np.int64)
    n_blocks = 0
    for i in range(d):
        if choice[i] < 0:
            labels[i] = n_blocks
            n_blocks += 1
        else:
            labels[i] = choice[i]
    return labels


def sample_clustering(d: int, max_clusters: int, rng: np.random.Generator, min_clusters: int = 1,
                      distribution: str = "paper", decay: float = 0.5) -> np.ndarray:
    """A random clustering of d variables (Section 4.5): first m, then the assignment.

    m is drawn on min_clusters..max_clusters by :func:`m_probabilities`. With
    ``"paper"`` each variable goes to a uniformly chosen one of m labels and empty
    labels are dropped (the text of Section 4.5, so fewer than m clusters can
    result); otherwise the clustering is uniform among those with exactly m clusters.
    """
    hi = min(max_clusters, d)
    p = m_probabilities(min_clusters, hi, distribution, decay)
    m = int(min_clusters + rng.choice(p.size, p=p))
    if distribution == "paper":
        return compact_labels(rng.integers(0, m, d), order="sorted")
    return uniform_partition(d, m, rng)


def sample_edges(m: int, rho: float, rng: np.random.Generator) -> np.ndarray:
    """Erdos-Renyi edges with probability rho, oriented along a random order: always acyclic."""
    order = rng.permutation(m)
    adj = np.zeros((m, m), dtype=bool)
    for i in range(m):
        for j in range(i + 1, m):
            if rng.random() < rho:
                adj[order[i], order[j]] = True
    return adj


def clusters_of(labels: np.ndarray) -> list[Idx]:
    return [tuple(np.flatnonzero(labels == c).tolist()) for c in np.unique(labels)]


def run_restart(eng, d: int, cfg: dict, seed: np.random.SeedSequence, start) -> tuple[float, list[Idx], np.ndarray]:
    """One restart of Algorithm 1: a random (or given) clustering and random edges, then climb."""
    rng = np.random.default_rng(seed)
    if start is not None and start[0] is not None:
        clusters = start[0]
    else:
        clusters = clusters_of(sample_clustering(d, cfg["max_clusters"] or d, rng, cfg["min_clusters"],
                                                 cfg["m_distribution"], cfg["m_decay"]))
    if start is not None and start[1] is not None:
        adj = start[1]
    else:
        adj = sample_edges(len(clusters), cfg["rho"], rng)
    m_range = None if start is not None and start[0] is not None else (
        cfg["min_clusters"], min(cfg["max_clusters"] or d, d))
    return climb(eng, clusters, adj, cfg["max_steps"], cfg["cluster_moves"], m_range)


def run_chunk(task) -> list[tuple[int, float, list[Idx], np.ndarray]]:
    """Run a list of restarts on one engine (picklable entry point for the executors)."""
    eng, d, cfg, jobs = task
    return [(i, *run_restart(eng, d, cfg, ent, start)) for i, ent, start in jobs]


def orient_vstructures(eng, clusters: list[Idx], adj: np.ndarray, alpha: float, n_perm: int, seed: int) -> np.ndarray:
    """Lines 11-15 of Algorithm 1: for each unshielded C_i - C_j - C_k, if X_Ci and X_Ck are
    dependent given X_Cj, orient C_i -> C_j <- C_k (skipped when it would create a cycle)."""
    adj = adj.copy()
    skel = adj | adj.T
    m = len(clusters)
    for j in range(m):
        nb = np.flatnonzero(skel[j])
        for x in range(len(nb)):
            for y in range(x + 1, len(nb)):
                i, k = int(nb[x]), int(nb[y])
                if skel[i, k]:
                    continue
                p = eng.ci_pvalue(clusters[i], clusters[k], clusters[j], n_perm, seed)
                if p < alpha:
                    new = adj.copy()
                    new[j, i] = new[j, k] = False
                    new[i, j] = new[k, j] = True
                    if is_acyclic(new):
                        adj = new
    return adj
