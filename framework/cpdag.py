"""The CPDAG (Markov equivalence class) of a DAG in plain NumPy."""

from __future__ import annotations

import numpy as np


def cpdag_adjacency(A: np.ndarray) -> np.ndarray:
    """The CPDAG of the DAG ``A`` (``A[i, j] = 1``: i -> j) as an adjacency matrix, both
    directions set for an undirected edge: the v-structures oriented, then Meek's rules 1-3
    to closure (rule 4 never fires from a DAG's v-structures).

    Plain NumPy over small graphs (a simulator's truth, hill_climb's CPDAG up to 100
    variables), so a run that needs no pgmpy does not import it; equal to pgmpy's
    ``DAG.to_pdag`` (tested).

    References
    ----------
    Meek. Causal inference and causal explanation with background knowledge. UAI 1995.
    """
    A = (np.asarray(A) != 0).astype(np.int8)
    d = A.shape[0]
    adj = (A | A.T).astype(bool)
    G = adj.astype(np.int8)  # G[i, j] = 1 and G[j, i] = 1: undirected; only G[i, j]: i -> j
    for c in range(d):
        parents = np.flatnonzero(A[:, c])
        for x in range(len(parents)):
            for y in range(x + 1, len(parents)):
                a, b = parents[x], parents[y]
                if not adj[a, b]:
                    G[c, a] = G[c, b] = 0
    changed = True
    while changed:
        changed = False
        for i, j in zip(*np.nonzero(G & G.T)):
            if not (G[i, j] and G[j, i]):  # oriented earlier in this sweep
                continue
            D = (G & ~G.T).astype(bool)  # D[k, i]: k -> i
            U = (G & G.T).astype(bool)
            r1 = np.any(D[:, i] & ~adj[:, j])  # k -> i - j, k and j apart: i -> j
            r2 = np.any(D[i] & D[:, j])  # i -> k -> j: i -> j
            k = np.flatnonzero(U[i] & D[:, j])  # i - k -> j for two k apart: i -> j
            r3 = k.size > 1 and not np.all(adj[np.ix_(k, k)] | np.eye(k.size, dtype=bool))
            if r1 or r2 or r3:
                G[j, i] = 0
                changed = True
    return G
