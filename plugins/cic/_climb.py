"""Hill climbing over cluster DAGs (Algorithm 2 run to a local optimum) and the restarts of Algorithm 1.

A state is a list of clusters (sorted tuples of variable indices) and a boolean
adjacency matrix between them. Per-node gain tables (score change of adding or
removing each parent) are refreshed only for nodes whose parent set changed;
acyclicity is read off the transitive closure.
"""

from __future__ import annotations

import numpy as np

Idx = tuple[int, ...]
TOL = 1e-9


def closure(adj: np.ndarray) -> np.ndarray:
    """Strict reachability: R[a, b] when a directed path a -> ... -> b exists."""
    R = adj.copy()
    for k in range(adj.shape[0]):
        R |= R[:, k : k + 1] & R[k : k + 1, :]
    return R


def is_acyclic(adj: np.ndarray) -> bool:
    return not np.any(np.diag(closure(adj)))


def parent_vars(clusters: list[Idx], adj: np.ndarray, b: int) -> Idx:
    return tuple(sorted(v for a in np.flatnonzero(adj[:, b]) for v in clusters[a]))


def total_score(eng, clusters: list[Idx], adj: np.ndarray) -> float:
    s = sum(eng.local(clusters[b], parent_vars(clusters, adj, b)) for b in range(len(clusters)))
    return s + eng.structure(len(clusters), int(adj.sum()))


def climb_edges(eng, clusters: list[Idx], adj: np.ndarray, max_steps: int) -> tuple[np.ndarray, float]:
    """Best-improvement hill climbing over add / delete / reverse of one edge, clusters fixed.

    Returns the locally optimal adjacency and its total score.
    """
    m = len(clusters)
    adj = adj.copy()
    pen = eng.edge_cost(m)
    cur = np.zeros(m)
    g_add = np.full((m, m), -np.inf)  # g_add[b, a]: gain at b of adding parent a
    g_del = np.full((m, m), -np.inf)  # g_del[b, a]: gain at b of removing parent a

    def refresh(b: int) -> None:
        pa = set(np.flatnonzero(adj[:, b]).tolist())
        P = parent_vars(clusters, adj, b)
        cur[b] = eng.local(clusters[b], P)
        g_add[b, :] = -np.inf
        g_del[b, :] = -np.inf
        for a in range(m):
            if a == b:
                continue
            if a in pa:
                rest = tuple(sorted(set(P) - set(clusters[a])))
                g_del[b, a] = eng.local(clusters[b], rest) - cur[b]
            else:
                g_add[b, a] = eng.local(clusters[b], tuple(sorted(P + clusters[a]))) - cur[b]

    for b in range(m):
        refresh(b)
    eye = np.eye(m, dtype=bool)
    for _ in range(max_steps):
        if m < 2:
            break
        R = closure(adj)
        longer = (adj.astype(np.int64) @ R.astype(np.int64)) > 0  # a path a -> c ~> b besides a -> b
        free = ~adj & ~adj.T & ~eye & ~R.T
        d_add = np.where(free, g_add.T - pen, -np.inf)
        d_del = np.where(adj, g_del.T + pen, -np.inf)
        d_rev = np.where(adj & ~longer, g_del.T + g_add, -np.inf)
        moves = np.stack([d_add, d_del, d_rev])
        best = int(np.argmax(moves))
        if not moves.flat[best] > TOL:
            break
        kind, a, b = np.unravel_index(best, moves.shape)
        if kind == 0:
            adj[a, b] = True
            refresh(b)
        elif kind == 1:
            adj[a, b] = False
            refresh(b)
        else:
            adj[a, b] = False
            adj[b, a] = True
            refresh(b)
            refresh(a)
    return adj, float(cur.sum() + eng.structure(m, int(adj.sum())))


def _without(clusters: list[Idx], adj: np.ndarray, drop: int) -> tuple[list[Idx], np.ndarray]:
    keep = [i for i in range(len(clusters)) if i != drop]
    return [clusters[i] for i in keep], adj[np.ix_(keep, keep)]


def cluster_neighbours(clusters: list[Idx], adj: np.ndarray):
    """Clusterings one move away: move a variable to another or to a new cluster; merge two clusters.

    Cluster-level edges are kept (a merged cluster takes the union of both
    clusters' edges); a candidate whose edges would form a cycle is skipped.
    """
    m = len(clusters)
    for a in range(m):
        for v in clusters[a]:
            rest = tuple(x for x in clusters[a] if x != v)
            targets = [b for b in range(m) if b != a] + ([m] if rest else [])
            for b in targets:
                cl = list(clusters)
                A = adj
                if b == m:
                    cl.append((v,))
                    A = np.zeros((m + 1, m + 1), dtype=bool)
                    A[:m, :m] = adj
                else:
                    cl[b] = tuple(sorted(cl[b] + (v,)))
                cl[a] = rest
                if not rest:
                    cl, A = _without(cl, A, a)
                yield cl, A
    for a in range(m):
        for b in range(a + 1, m):
            cl = list(clusters)
            cl[a] = tuple(sorted(clusters[a] + clusters[b]))
            A = adj.copy()
            A[a, :] |= A[b, :]
            A[:, a] |= A[:, b]
            A[a, a] = False
            cl, A = _without(cl, A, b)
            if is_acyclic(A):
                yield cl, A


def climb(eng, clusters: list[Idx], adj: np.ndarray, max_steps: int, cluster_moves: bool):
    """Edge hill climbing; with *cluster_moves*, alternate it with the best clustering move."""
    adj, score = climb_edges(eng, clusters, adj, max_steps)
    while cluster_moves:
        best = None
        for cl, A in cluster_neighbours(clusters, adj):
            s = total_score(eng, cl, A)
            if s > score + TOL and (best is None or s > best[0]):
                best = (s, cl, A)
        if best is None:
            break
        clusters = best[1]
        adj, score = climb_edges(eng, clusters, best[2], max_steps)
    return score, clusters, adj


def sample_clustering(d: int, max_clusters: int, rng: np.random.Generator) -> np.ndarray:
    """Section 4.5: m uniform on 1..max_clusters, each variable to a uniform cluster (empty ones dropped)."""
    m = int(rng.integers(1, max_clusters + 1))
    raw = rng.integers(0, m, d)
    return np.unique(raw, return_inverse=True)[1]


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
        clusters = clusters_of(sample_clustering(d, cfg["max_clusters"] or d, rng))
    if start is not None and start[1] is not None:
        adj = start[1]
    else:
        adj = sample_edges(len(clusters), cfg["rho"], rng)
    return climb(eng, clusters, adj, cfg["max_steps"], cfg["cluster_moves"])


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
