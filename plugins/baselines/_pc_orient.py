"""Orientation step of our PC: unshielded colliders (``uc_rule`` 0/1/2 with ``uc_priority`` 0-4), then Meek's rules.

Plain Python over an endpoint matrix, step for step as causal-learn's
``UCSepset.uc_sepset``, ``maxp``, ``definite_maxp`` and ``Meek.meek``/``definite_meek``
take them, so that the two return the same marks: triples, triangles and kites
in causal-learn's order (with conflicting evidence the first rule applied wins),
an orientation written as causal-learn writes it (remove the edge, add it
directed), and causal-learn's ancestor matrix ``dpath`` (updated edge by edge,
rebuilt when a directed edge is removed; it can miss paths, and then Meek's rules
close a directed cycle, which :func:`macrocause.plugins.baselines._pc.resolve_conflicts`
undoes afterwards in both backends).

Endpoint matrices (int8): ``i -> j`` is ``M[i, j] = -1, M[j, i] = 1``; ``i - j``
is ``M[i, j] = M[j, i] = -1``; ``i <-> j`` is ``M[i, j] = M[j, i] = 1``.

References
----------
Meek. Causal inference and causal explanation with background knowledge. UAI 1995.
Ramsey. A PC-style Markov blanket search for high-dimensional datasets. Tech. report, CMU, 2016 (maxP).
Zheng et al. Causal-learn: causal discovery in Python. JMLR 25(60), 2024.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from itertools import chain, combinations

import numpy as np

PValue = Callable[[int, int, tuple], float]
JIT_AFTER = 5_000  # directed edges replayed in Python (about 0.5 s) before the rebuild is compiled (about 1 s, once)


def _rebuild(M: np.ndarray, dpath: np.ndarray, n_directed: int, replayed: list) -> None:
    """causal-learn's ``reconstitute_dpath`` (:func:`._pc_kernels._rebuild_dpath`) in plain Python until this search has replayed :data:`JIT_AFTER`
    directed edges (``replayed[0]`` counts them), compiled (numba, ``cache=True``) after that or
    when it is compiled already."""
    replayed[0] += n_directed
    kernels = sys.modules.get("macrocause.plugins.baselines._pc_kernels")  # imported: numba is loaded
    if replayed[0] < JIT_AFTER and (kernels is None or not kernels._rebuild_dpath.signatures):
        _rebuild_python(M, dpath)
    else:
        from ._pc_kernels import _rebuild_dpath

        _rebuild_dpath(M, dpath)


def _rebuild_python(M: np.ndarray, dpath: np.ndarray) -> None:
    """``_rebuild_dpath`` with numpy rows for the inner loop (fast in Python on small graphs)."""
    d = M.shape[0]
    dpath[:, :] = np.eye(d, dtype=bool)
    for a, b in reversed(np.argwhere(np.triu(M != 0)).tolist()):
        if M[a, b] == -1 and M[b, a] == 1:
            _adjust_rows(dpath, a, b)
        elif M[b, a] == -1 and M[a, b] == 1:
            _adjust_rows(dpath, b, a)


def _adjust_rows(dpath: np.ndarray, i: int, j: int) -> None:
    """causal-learn's ``adjust_dpath`` (``_pc_kernels._adjust_dpath``) by rows and columns (the same result: the diagonal is set)."""
    anc_i = dpath[i].copy()
    desc_j = dpath[:, j].copy()
    dpath[j, i] = True
    dpath[j, anc_i] = True
    dpath[desc_j, i] = True


class EndpointGraph:
    """An endpoint matrix with causal-learn's ancestor matrix (``dpath[j, i]``: i is an ancestor of j)."""

    def __init__(self, adj: np.ndarray) -> None:
        self.M = np.zeros(adj.shape, np.int8)
        self.M[adj] = -1
        self.d = adj.shape[0]
        self.dpath = np.eye(self.d, dtype=bool)
        self.neighbours = [np.flatnonzero(adj[i]).tolist() for i in range(self.d)]
        self.n_directed = 0
        self.replayed = [0]

    def directed(self, a: int, b: int) -> bool:
        return self.M[a, b] == -1 and self.M[b, a] == 1

    def undirected(self, a: int, b: int) -> bool:
        return self.M[a, b] == -1 and self.M[b, a] == -1

    def is_ancestor(self, a: int, b: int) -> bool:
        """causal-learn's ``is_ancestor_of(a, b)`` (from its ancestor matrix)."""
        return bool(self.dpath[b, a])

    def remove(self, a: int, b: int) -> None:
        was_directed = self.directed(a, b) or self.directed(b, a)
        self.M[a, b] = self.M[b, a] = 0
        if was_directed:
            self.n_directed -= 1
            _rebuild(self.M, self.dpath, self.n_directed, self.replayed)

    def orient(self, a: int, b: int) -> None:
        """Remove the edge a, b and add a -> b (causal-learn's remove_edge + add_edge)."""
        self.remove(a, b)
        self.M[a, b], self.M[b, a] = -1, 1
        self.n_directed += 1
        _adjust_rows(self.dpath, a, b)

    def make_bidirected(self, a: int, b: int) -> None:
        self.remove(a, b)
        self.M[a, b] = self.M[b, a] = 1

    # -- causal-learn's triples, triangles and kites, in its order --------------------------
    def _adjacencies(self) -> list[tuple[int, int]]:
        """``find_adj``: ``(col, row)`` of the tails, then of the arrowheads, row by row."""
        out = []
        for code in (-1, 1):
            rows, cols = np.nonzero(self.M == code)
            out += list(zip(cols.tolist(), rows.tolist()))
        return out

    def triples(self) -> tuple[list[tuple[int, int, int]], list[tuple[int, int, int]]]:
        """Unshielded triples and triangles ``(a, b, c)`` with both symmetric copies."""
        adj = self._adjacencies()
        by_first: dict[int, list[tuple[int, int]]] = {}
        for p, (a, b) in enumerate(adj):
            by_first.setdefault(a, []).append((p, b))
        ut, tri = [], []
        for p, (a, b) in enumerate(adj):
            for q, c in by_first.get(b, ()):
                if q == p or c == a:
                    continue
                (ut if self.M[a, c] == 0 else tri).append((a, b, c))
        return ut, tri

    def kites(self, tri: list[tuple[int, int, int]]) -> list[tuple[int, int, int, int]]:
        """``find_kites``: ``(i, j, k, l)`` from triangles i-j-l and i-k-l, j < k not adjacent."""
        by_ends: dict[tuple[int, int], list[int]] = {}
        for i, j, m in tri:
            by_ends.setdefault((i, m), []).append(j)
        return [(i, j, k, m) for i, j, m in tri for k in by_ends[(i, m)] if j < k and self.M[j, k] == 0]

    def cond_sets(self, x: int, z: int) -> list[tuple[int, ...]]:
        """Subsets of the neighbours of x, and of z (each sorted; ``find_cond_sets``)."""
        out: set[tuple[int, ...]] = set()
        for v in (x, z):
            nb = self.neighbours[v]
            out.update(chain.from_iterable(combinations(nb, r) for r in range(len(nb) + 1)))
        return list(out)


def _orient_collider(g: EndpointGraph, x: int, y: int, z: int, priority: int) -> bool:
    """Orient x -> y <- z under *priority* (0 overwrite, 1 bidirected, else keep existing); whether it did."""
    if priority == 0:
        g.orient(x, y)
        g.orient(z, y)
        return True
    if priority == 1:
        for a in (x, z):
            if g.undirected(a, y):
                g.orient(a, y)
            elif g.directed(y, a):
                g.make_bidirected(a, y)
        return True
    if g.directed(y, x) or g.directed(y, z):
        return False
    g.orient(x, y)
    g.orient(z, y)
    return True


def _ordered(found: dict, descending: bool) -> list:
    """causal-learn's ``sort_dict_ascending`` (a stable sort of the keys by value)."""
    return [k for k, _ in sorted(found.items(), key=lambda kv: kv[1], reverse=descending)]


def uc_sepset(g: EndpointGraph, separated: Callable[[int, int, int], bool], priority: int, p: PValue) -> None:
    """uc_rule=0: i - j - k is a collider when j is in no separating set of i and k
    (``separated(i, k, j)``)."""
    pending = []
    for x, y, z in [t for t in g.triples()[0] if t[0] < t[2]]:
        if separated(x, z, y):
            continue
        if priority in (0, 1, 2):
            _orient_collider(g, x, y, z, priority)
        else:
            pending.append((x, y, z))
    if priority in (3, 4):
        found = {}
        for x, y, z in pending:
            sets = [S for S in g.cond_sets(x, z) if (y in S) == (priority == 3)]
            found[(x, y, z)] = max(p(x, z, S) for S in sets)
        for x, y, z in _ordered(found, descending=priority == 4):
            _orient_collider(g, x, y, z, 2)


def _max_p(g: EndpointGraph, x: int, y: int, z: int, p: PValue) -> tuple[float, float]:
    sets = g.cond_sets(x, z)
    return max(p(x, z, S) for S in sets if y in S), max(p(x, z, S) for S in sets if y not in S)


def maxp(g: EndpointGraph, priority: int, p: PValue) -> None:
    """uc_rule=1 (maxP): a collider when the largest p-value of i, k given a set without j beats every set with j."""
    found = {}
    for x, y, z in [t for t in g.triples()[0] if t[0] < t[2]]:
        with_y, without_y = _max_p(g, x, y, z, p)
        if without_y > with_y:
            if priority in (0, 1, 2):
                _orient_collider(g, x, y, z, priority)
            else:
                found[(x, y, z)] = with_y if priority == 3 else without_y
    for x, y, z in _ordered(found, descending=priority == 4):
        _orient_collider(g, x, y, z, 2)


def definite_maxp(g: EndpointGraph, alpha: float, priority: int, p: PValue) -> tuple[list, list]:
    """uc_rule=2 (definite maxP): colliders only where every set with j rejects independence.

    Returns causal-learn's lists of definite colliders and definite non-colliders.
    """
    found, definite_uc, definite_non_uc = {}, [], []
    for x, y, z in [t for t in g.triples()[0] if t[0] < t[2]]:
        sets = g.cond_sets(x, z)
        with_p = [p(x, z, S) for S in sets if y in S]
        uc = all(v <= alpha for v in with_p)
        if not uc:
            without_p = (p(x, z, S) for S in sets if y not in S)
            if all(v <= alpha for v in without_p):
                definite_non_uc.append((x, y, z))
            continue
        without_p = [p(x, z, S) for S in sets if y not in S]
        nuc = all(v <= alpha for v in without_p)
        with_y = max([0.0, *with_p])
        without_y = max([0.0, *without_p])
        if nuc and not without_y > with_y:
            definite_non_uc.append((x, y, z))
        else:
            found[(x, y, z)] = without_y if priority == 4 else with_y
    order = list(found) if priority == 2 else _ordered(found, descending=priority == 4)
    for x, y, z in order:
        if _orient_collider(g, x, y, z, 2):
            definite_uc.append((x, y, z))
    return definite_uc, definite_non_uc


def _rule(g: EndpointGraph, a: int, b: int) -> bool:
    """Orient a -> b unless causal-learn's ancestor matrix says b is an ancestor of a."""
    if g.is_ancestor(b, a):
        return False
    g.orient(a, b)
    return True


def meek(g: EndpointGraph) -> None:
    """Meek's rules 1-3 until none applies (causal-learn's ``Meek.meek``)."""
    ut, tri = g.triples()
    kites = g.kites(tri)
    loop = True
    while loop:
        loop = False
        for i, j, k in ut:  # rule 1: i -> j - k, i and k not adjacent => j -> k
            if g.directed(i, j) and g.undirected(j, k) and _rule(g, j, k):
                loop = True
        for i, j, k in tri:  # rule 2: i -> j -> k, i - k => i -> k
            if g.directed(i, j) and g.directed(j, k) and g.undirected(i, k) and _rule(g, i, k):
                loop = True
        for i, j, k, m in kites:  # rule 3: i - j -> m, i - k -> m, i - m => i -> m
            if (g.undirected(i, j) and g.undirected(i, k) and g.directed(j, m) and g.directed(k, m)
                    and g.undirected(i, m) and _rule(g, i, m)):
                loop = True


def definite_meek(g: EndpointGraph, definite_uc: list, definite_non_uc: list) -> None:
    """Meek's rules over the definite triples of definite maxP (causal-learn's ``Meek.definite_meek``)."""
    _, tri = g.triples()
    kites = g.kites(tri)
    uc, non_uc = set(definite_uc), set(definite_non_uc)
    loop = True
    while loop:
        loop = False
        for i, j, k in definite_non_uc:
            if g.directed(i, j) and g.undirected(j, k):
                loop |= _rule(g, j, k)
            elif g.directed(k, j) and g.undirected(j, i):
                loop |= _rule(g, j, i)
        for i, j, k in tri:
            if g.directed(i, j) and g.directed(j, k) and g.undirected(i, k) and _rule(g, i, k):
                loop = True
        for i, j, k, m in kites:
            if (((j, m, k) in uc or (k, m, j) in uc) and ((j, i, k) in non_uc or (k, i, j) in non_uc)
                    and g.undirected(i, m) and _rule(g, i, m)):
                loop = True
