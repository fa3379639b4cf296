"""numba kernels of :func:`macrocause.framework.dag_climb.climb_edges`: the best allowed move of a
step over the gain tables and the reachability update after a move. Imported only when the climb
runs its kernel path (numba loads with them); the NumPy path gives the same moves."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def best_moves(adj: np.ndarray, R: np.ndarray, g_add: np.ndarray, g_del: np.ndarray, T: np.ndarray,
               pen: float, tie: float, vals: np.ndarray, ties: np.ndarray) -> tuple[int, int]:
    """Score change of every move, flat index ``(kind, a, b)`` (0 add a -> b, 1 delete a -> b,
    2 reverse a -> b) into *vals* (-inf when not allowed: a cycle, an existing edge, a tabu
    entry), as the NumPy path's stacked tables. Returns the first index of the largest value
    (``np.argmax``'s) and, when ``tie >= 0`` and that value is finite, the number of moves within
    *tie* of it, whose indices (in increasing order) go into *ties*."""
    m = adj.shape[0]
    mm = m * m
    best = -np.inf
    k_best = 0
    for a in range(m):
        for b in range(m):
            ab = a * m + b
            v0 = -np.inf
            v1 = -np.inf
            v2 = -np.inf
            if adj[a, b]:
                if T[1, a, b] == 0:
                    v1 = g_del[b, a] + pen
                if T[2, a, b] == 0 and T[2, b, a] == 0:
                    longer = False  # a path a -> c ~> b besides a -> b: reversing would close a cycle
                    for c in range(m):
                        if adj[a, c] and R[c, b]:
                            longer = True
                            break
                    if not longer:
                        v2 = g_del[b, a] + g_add[a, b]
            elif a != b and not adj[b, a] and not R[b, a] and T[0, a, b] == 0:
                v0 = g_add[b, a] - pen
            vals[ab] = v0
            vals[mm + ab] = v1
            vals[2 * mm + ab] = v2
    for k in range(3 * mm):
        if vals[k] > best:
            best = vals[k]
            k_best = k
    n_ties = 0
    if tie >= 0.0 and best > -np.inf:
        low = best - tie
        for k in range(3 * mm):
            if vals[k] >= low:
                ties[n_ties] = k
                n_ties += 1
    return k_best, n_ties


@njit(cache=True)
def add_reach(R: np.ndarray, a: int, b: int) -> None:
    """Strict reachability *R* updated in place after adding the edge a -> b (no path b ~> a):
    every x reaching a (or a) now reaches b and everything b reaches."""
    m = R.shape[0]
    into = R[:, a].copy()
    out = R[b, :].copy()
    into[a] = True
    out[b] = True
    for x in range(m):
        if into[x]:
            for y in range(m):
                if out[y]:
                    R[x, y] = True


@njit(cache=True)
def reach(adj: np.ndarray, R: np.ndarray) -> None:
    """Strict reachability of *adj* into *R* (R[a, b]: a path a -> ... -> b), one depth-first
    search per source."""
    m = adj.shape[0]
    stack = np.empty(m, np.int64)
    for s in range(m):
        for c in range(m):
            R[s, c] = False
        top = 0
        for c in range(m):
            if adj[s, c]:
                R[s, c] = True
                stack[top] = c
                top += 1
        while top > 0:
            top -= 1
            u = stack[top]
            for c in range(m):
                if adj[u, c] and not R[s, c]:
                    R[s, c] = True
                    stack[top] = c
                    top += 1


@njit(cache=True)
def kick_moves(adj: np.ndarray, n_moves: int, rng) -> np.ndarray:
    """``greedy.kick`` in numba: the same moves from the same draws of *rng* (a NumPy Generator;
    ``rng.choice(m, 2, replace=False)`` is NumPy's Floyd sample of two then its shuffle, drawn here
    by ``rng.integers`` as NumPy draws them)."""
    adj = adj.copy()
    m = adj.shape[0]
    R = np.empty((m, m), np.bool_)
    done = 0
    tries = 0
    while done < n_moves and tries < 20 * n_moves:
        tries += 1
        a = rng.integers(0, m - 1)
        b = rng.integers(0, m)
        if b == a:
            b = m - 1
        if rng.integers(0, 2) == 0:
            a, b = b, a
        if adj[a, b]:
            adj[a, b] = False
            if rng.random() < 0.5:
                reach(adj, R)
                if not R[a, b]:  # b -> a closes no cycle
                    adj[b, a] = True
            done += 1
        elif not adj[b, a]:
            reach(adj, R)
            if not R[b, a]:
                adj[a, b] = True
                done += 1
    return adj
