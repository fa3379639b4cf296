"""Best-improvement hill climbing over (cluster) DAGs on a score engine (:mod:`macrocause.framework.score_engine`),
shared by the baselines' ``greedy_dag`` and CIC's cluster-DAG search.

A state is a list of clusters (sorted tuples of variable indices; single variables for a plain
DAG) and a boolean adjacency matrix between them. Per-node gain tables (score change of adding or
removing each parent) are refreshed only for nodes whose parent set changed; acyclicity is read
off the transitive closure.
"""

from __future__ import annotations

from collections import deque

import numpy as np

Idx = tuple[int, ...]
TOL = 1e-9
TIE = 1e-6  # moves whose gains differ by less are ties (score-equivalent up to rounding)


def bool_product(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Boolean matrix product (OR of ANDs) through a float32 BLAS product: exact, the counts
    of paths summed are below 2^24."""
    return (A.astype(np.float32) @ B.astype(np.float32)) > 0


def closure(adj: np.ndarray) -> np.ndarray:
    """Strict reachability: R[a, b] when a directed path a -> ... -> b exists (repeated squaring)."""
    R = adj.copy()
    while True:
        nxt = R | bool_product(R, R)
        if np.array_equal(nxt, R):
            return R
        R = nxt


def is_acyclic(adj: np.ndarray) -> bool:
    return not np.any(np.diag(closure(adj)))


def parent_vars(clusters: list[Idx], adj: np.ndarray, b: int) -> Idx:
    return tuple(sorted(v for a in np.flatnonzero(adj[:, b]) for v in clusters[a]))


def total_score(eng, clusters: list[Idx], adj: np.ndarray) -> float:
    s = sum(eng.local(clusters[b], parent_vars(clusters, adj, b)) for b in range(len(clusters)))
    return s + eng.structure(len(clusters), int(adj.sum()))


def climb_edges(eng, clusters: list[Idx], adj: np.ndarray, max_steps: int, tabu_length: int = 0,
                patience: int = 0, rng: np.random.Generator | None = None,
                kernel: bool = False) -> tuple[np.ndarray, float]:
    """Best-improvement hill climbing over add / delete / reverse of one edge, clusters fixed.

    With ``tabu_length > 0`` the last ``tabu_length`` moves cannot be undone, as in
    pgmpy's HillClimbSearch (adding a -> b forbids deleting it, deleting forbids
    re-adding a -> b, reversing forbids reversing that edge again). With
    ``patience > 0`` the climb does not stop at a local optimum: it takes the best
    allowed move even when it lowers the score (tabu search), until ``patience``
    moves in a row have not improved on the best graph seen. Ties (gains within
    ``TIE``, e.g. the two orientations of a first edge under a score-equivalent
    score) go to the first move, or to a uniform one when *rng* is given. Returns
    the best adjacency seen and its total score. With ``kernel`` each step's move choice and
    the reachability update run in numba (:mod:`.dag_climb_kernels`; the same moves and ties,
    with no NumPy call per step), worth it where numba is loaded anyway; an engine with a ``climb``
    method (the discrete ``bic`` engine) then runs the whole climb of a plain DAG itself, in one
    numba kernel with the same floats, moves and draws (None from it: this climb).
    """
    m = len(clusters)
    rows = hasattr(eng, "add_scores") and all(c == (i,) for i, c in enumerate(clusters))
    if kernel and rows and hasattr(eng, "climb"):  # the engine climbs a plain DAG in one kernel
        out = eng.climb(adj, max_steps, tabu_length, patience, rng)
        if out is not None:
            return out
    adj = adj.copy()
    pen = eng.edge_cost(m)
    cur = np.zeros(m)
    g_add = np.full((m, m), -np.inf)  # g_add[b, a]: gain at b of adding parent a
    g_del = np.full((m, m), -np.inf)  # g_del[b, a]: gain at b of removing parent a
    tabu: deque = deque()
    T = np.zeros((3, m, m), dtype=np.int64)  # counts of tabu entries: 0 no add, 1 no delete, 2 no reverse

    def refresh(b: int) -> None:
        g_del[b, :] = -np.inf
        if rows:  # plain DAG: the engine gives the whole row of add moves at once
            P = tuple(np.flatnonzero(adj[:, b]).tolist())
            cur[b] = eng.local((b,), P)
            g_add[b, :] = eng.add_scores(b, P) - cur[b]
            for j, a in enumerate(P):
                g_del[b, a] = eng.local((b,), P[:j] + P[j + 1:]) - cur[b]
            return
        pa = set(np.flatnonzero(adj[:, b]).tolist())
        P = parent_vars(clusters, adj, b)
        cur[b] = eng.local(clusters[b], P)
        g_add[b, :] = -np.inf
        for a in range(m):
            if a == b:
                continue
            if a in pa:
                rest = tuple(sorted(set(P) - set(clusters[a])))
                g_del[b, a] = eng.local(clusters[b], rest) - cur[b]
            else:
                g_add[b, a] = eng.local(clusters[b], tuple(sorted(P + clusters[a]))) - cur[b]

    def push(entry: tuple[int, int, int]) -> None:
        if tabu_length > 0:
            tabu.append(entry)
            T[entry] += 1
            if len(tabu) > tabu_length:
                T[tabu.popleft()] -= 1

    for b in range(m):
        refresh(b)
    total = float(cur.sum() + eng.structure(m, int(adj.sum())))
    best_adj, best = adj.copy(), total
    stall = 0
    if kernel:
        from .dag_climb_kernels import add_reach, best_moves, reach

        vals = np.empty(3 * m * m)
        ties = np.empty(3 * m * m, dtype=np.int64)
        tie = -1.0 if rng is None else TIE
        R = np.empty((m, m), dtype=bool)
        reach(adj, R)
    else:
        eye = np.eye(m, dtype=bool)
        R = closure(adj)
    for _ in range(max_steps):
        if m < 2:
            break
        if kernel:
            k, n_ties = best_moves(adj, R, g_add, g_del, T, pen, tie, vals, ties)
            if n_ties:  # uniform among the moves within TIE of the best, as rng.choice draws
                k = int(ties[rng.integers(0, n_ties)])
            gain = vals[k]
        else:
            longer = bool_product(adj, R)  # a path a -> c ~> b besides a -> b
            free = ~adj & ~adj.T & ~eye & ~R.T
            d_add = np.where(free & (T[0] == 0), g_add.T - pen, -np.inf)
            d_del = np.where(adj & (T[1] == 0), g_del.T + pen, -np.inf)
            d_rev = np.where(adj & ~longer & (T[2] == 0) & (T[2].T == 0), g_del.T + g_add, -np.inf)
            moves = np.stack([d_add, d_del, d_rev]).ravel()
            k = int(np.argmax(moves))
            if rng is not None and moves[k] > -np.inf:  # uniform among the moves within TIE of the best
                top = np.flatnonzero(moves >= moves[k] - TIE)
                k = int(top[rng.integers(0, top.size)])
            gain = moves[k]
        if gain == -np.inf or (not gain > TOL and stall >= patience):
            break
        kind, a, b = k // (m * m), (k // m) % m, k % m
        if kind == 0:
            adj[a, b] = True
            refresh(b)
            push((1, a, b))
            if kernel:
                add_reach(R, a, b)
            else:
                into, out = R[:, a].copy(), R[b, :].copy()  # new paths: (x ~> a or a) -> b ~> (y or b)
                into[a] = out[b] = True
                R |= np.outer(into, out)
        else:
            adj[a, b] = False
            if kind == 1:
                refresh(b)
                push((0, a, b))
            else:
                adj[b, a] = True
                refresh(b)
                refresh(a)
                push((2, a, b))
            if kernel:
                reach(adj, R)
            else:
                R = closure(adj)
        total = float(cur.sum() + eng.structure(m, int(adj.sum())))
        if total > best + TOL:
            best_adj, best, stall = adj.copy(), total, 0
        else:
            stall += 1
    return best_adj, best
