"""Skeleton search of our PC: stable (order-independent) or original PC-1 (plain Python here,
the numba kernel ``skeleton`` in :mod:`._pc_kernels`).

Follows causal-learn's ``SkeletonDiscovery.skeleton_discovery``: depth ``l = 0, 1,
...`` while some node has more than ``l`` neighbours (and ``l <= max_k``); at
depth ``l`` every adjacent pair ``x - y`` is tested given every ``l``-subset of
``adj(x) \\ {y}`` (and of ``adj(y) \\ {x}``), subsets in ``itertools.combinations``
order. Stable PC takes the adjacencies at the start of the depth, tests every
subset, removes the independent pairs at the end of the depth, and keeps as
separating set the union of all subsets found independent (causal-learn's
choice); the original PC removes an edge at its first independence and keeps
that subset. A subset already tested from the other endpoint is not tested
again (causal-learn caches it).

References
----------
Spirtes, Glymour, Scheines. Causation, Prediction, and Search. MIT Press, 2000.
Colombo, Maathuis. Order-independent constraint-based causal structure learning.
JMLR 15, 2014.
"""

from __future__ import annotations

import numpy as np


class SepSets:
    """Membership in the separating sets of :func:`._pc_kernels.skeleton`, from its ``(a, b, k)`` rows, as
    sorted integer keys (8 bytes a row: no Python set per pair)."""

    def __init__(self, sep: np.ndarray, d: int) -> None:
        self.d = d
        self.keys = np.unique((sep[:, 0] * d + sep[:, 1]) * d + sep[:, 2])

    def contains(self, a: int, b: int, k: int) -> bool:
        """Whether k is in the separating set of the removed pair a, b."""
        a, b = min(a, b), max(a, b)
        key = (a * self.d + b) * self.d + k
        at = int(np.searchsorted(self.keys, key))
        return at < self.keys.shape[0] and int(self.keys[at]) == key

    def as_dict(self) -> dict[tuple[int, int], set[int]]:
        """``{(a, b): set}`` with ``a < b`` (pairs separated by the empty set absent)."""
        out: dict[tuple[int, int], set[int]] = {}
        for key in self.keys.tolist():
            ab, k = divmod(key, self.d)
            out.setdefault(divmod(ab, self.d), set()).add(k)
        return out


def skeleton_python(p, start: np.ndarray, alpha: float, max_k: int,
                    stable: bool) -> tuple[np.ndarray, np.ndarray, int, int]:
    """:func:`._pc_kernels.skeleton` in plain Python with the test ``p(x, y, S)``: the same steps and
    outputs, for searches too small to be worth compiling the kernel (about 5 s, once)."""
    from itertools import combinations

    d = start.shape[0]
    adj = start & ~np.eye(d, dtype=bool)
    rows: list[tuple[int, int, int]] = []
    n_tests, depth = 0, -1
    while True:
        max_deg = int(adj.sum(axis=1).max()) if d else 0
        if max_deg - 1 <= depth or (max_k >= 0 and depth + 1 > max_k):
            break
        depth += 1
        snap = adj.copy() if stable else adj
        remove = []
        for x in range(d):
            neigh = np.flatnonzero(snap[x]).tolist()
            for y in neigh:
                if not adj[x, y]:
                    continue
                a, b = min(x, y), max(x, y)
                found: set[int] = set()
                for S in combinations([v for v in neigh if v != y], depth):
                    if stable and y < x and all(snap[y, s] for s in S):
                        continue  # the other endpoint has tested this subset already
                    n_tests += 1
                    if p(x, y, S) > alpha:
                        rows += [(a, b, s) for s in S if s not in found]
                        found.update(S)
                        if stable:
                            remove.append((a, b))
                        else:
                            adj[x, y] = adj[y, x] = False
                            break
        for a, b in remove:
            adj[a, b] = adj[b, a] = False
    return adj, np.array(rows, np.int64).reshape(-1, 3), n_tests, depth
