"""Our PC: stable skeleton, colliders by causal-learn's rules and priorities, Meek's rules, conflicts resolved.

The choices follow causal-learn's ``pc`` (defaults ``stable=True``, ``uc_rule=0``,
``uc_priority=2``; every ``uc_rule``/``uc_priority`` pair it accepts), so both give
the same endpoint matrix mark for mark. Both backends then go through
:func:`resolve_conflicts`: edges on a directed cycle (causal-learn's Meek rules
can close one) become undirected; bidirected edges (``uc_priority=1``) stay.

References
----------
Spirtes, Glymour, Scheines. Causation, Prediction, and Search. MIT Press, 2000.
Colombo, Maathuis. Order-independent constraint-based causal structure learning. JMLR 15, 2014.
Meek. Causal inference and causal explanation with background knowledge. UAI 1995.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from macrocause.framework import CausalGraph

from ._pc_citests import CHISQ, FISHERZ, GSQ, prepare, python_p_value
from ._pc_orient import EndpointGraph, definite_maxp, definite_meek, maxp, meek, uc_sepset
from ._pc_skeleton import SepSets, skeleton_python

TESTS = {"fisherz": FISHERZ, "chisq": CHISQ, "gsq": GSQ}
DEFAULT_PRIORITY = {0: 3, 1: 3, 2: 4}  # causal-learn's uc_priority=-1: each rule's own default
PYTHON_WORK = 200_000  # n d^2 up to which a search runs its tests in plain Python (no compiling)


def resolve_conflicts(M: np.ndarray, mark: int = -1) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """Make the directed edges on a directed cycle of an endpoint matrix undirected.

    Returns the matrix and the edges made undirected, ``(i, j)`` for ``i -> j`` as
    it was (those inside one strongly connected component of the directed edges).
    Bidirected edges are kept. *mark* is put at both ends of those edges: -1 (tails,
    ``i - j``; pc) or 2 (circles, ``i o-o j``; fci, whose PAGs read a tail-tail edge as selection).
    """
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    M = M.copy()
    directed = (M == -1) & (M.T == 1)  # directed[i, j]: i -> j
    _, comp = connected_components(csr_matrix(directed), directed=True, connection="strong")
    cyclic = directed & (comp[:, None] == comp[None, :])
    M[cyclic | cyclic.T] = mark
    return M, [tuple(e) for e in np.argwhere(cyclic).tolist()]


def to_graph(M: np.ndarray, names: Sequence[str]) -> CausalGraph:
    """A CausalGraph from an endpoint matrix without directed cycles (see :func:`resolve_conflicts`)."""
    return CausalGraph.from_causallearn(M, list(names))


def compiled_p_value(kind: int, corr: np.ndarray, n: int, codes: np.ndarray, cards: np.ndarray):
    """``p(x, z, S)`` of the test *kind* from the numba kernels."""
    from ._pc_kernels import discrete_p, fisherz_p

    def p(x: int, z: int, S: tuple) -> float:
        arr = np.array(S, np.int64)
        return fisherz_p(corr, n, x, z, arr) if kind == FISHERZ else discrete_p(codes, cards, x, z, arr, kind == GSQ)

    return p


def cached(p):
    """*p* cached by ``(x, z, S)`` (S sorted), as causal-learn's ``CIT`` caches its tests."""
    cache: dict = {}

    def cached_p(x: int, z: int, S: tuple) -> float:
        key = (min(x, z), max(x, z), S)
        if key not in cache:
            cache[key] = p(x, z, S)
        return cache[key]

    return cached_p


def run_pc(X: np.ndarray, test: str, alpha: float, stable: bool = True, max_k: int | None = None,
           uc_rule: int = 0, uc_priority: int = 2, start: np.ndarray | None = None) -> tuple[np.ndarray, dict]:
    """Endpoint matrix of PC on an n x d data matrix (causal-learn's, mark for mark), and facts about the run.

    *test* is ``"fisherz"``, ``"chisq"`` or ``"gsq"``; ``uc_rule`` and ``uc_priority``
    as causal-learn's ``pc`` (``-1``: the rule's own default). *start* (symmetric boolean, d x d) bounds
    the skeleton: the search removes edges from it instead of the complete graph; a pair never
    adjacent in it that ends with a common neighbour (an unshielded triple) is then tested as PC
    would have (subsets of either end's neighbours, smallest first), and its first separating set
    decides the collider (none found: no collider). The info holds
    ``n_tests`` (tests of the skeleton search) and ``depth`` (largest conditioning
    set searched). Up to ``n d^2 =`` :data:`PYTHON_WORK` the tests and the skeleton run
    as plain Python (the kernels' code uncompiled), so a small first search compiles nothing. The matrix may hold a directed cycle, as causal-learn's may:
    pass it to :func:`resolve_conflicts`.
    """
    kind = TESTS[test]
    n, d = X.shape
    corr, codes, cards = prepare(X, kind)
    k = -1 if max_k is None else int(max_k)
    full = start is None
    start = np.ones((d, d), dtype=bool) if full else np.asarray(start, dtype=bool)
    small = n * d * d <= PYTHON_WORK  # small: compiling the kernels (seconds, once) would cost more
    if small:
        p = cached(python_p_value(kind, corr, n, codes, cards))
        adj, sep, n_tests, depth = skeleton_python(p, start, float(alpha), k, bool(stable))
    else:
        from ._pc_kernels import skeleton

        adj, sep, n_tests, depth = skeleton(kind, float(alpha), k, bool(stable), corr, n, codes, cards, start)
        p = cached(compiled_p_value(kind, corr, n, codes, cards))
    priority = DEFAULT_PRIORITY[uc_rule] if uc_priority == -1 else uc_priority
    g = EndpointGraph(adj)
    if uc_rule == 0:
        if not full and small:
            sep = np.concatenate([sep, _untested_sepsets(adj, start, p, float(alpha), k)])
        elif not full:
            from ._pc_kernels import untested_sepsets

            sep = np.concatenate([sep, untested_sepsets(kind, float(alpha), k, corr, n, codes, cards, adj, start)])
        uc_sepset(g, SepSets(sep, adj.shape[0]).contains, priority, p)
    elif uc_rule == 1:
        maxp(g, priority, p)
    else:
        definite_meek(g, *definite_maxp(g, float(alpha), priority, p))
    meek(g)
    return g.M, {"n_tests": int(n_tests), "depth": int(depth)}


def _untested_sepsets(adj: np.ndarray, start: np.ndarray, p, alpha: float, max_k: int) -> np.ndarray:
    """Separating-set rows ``(a, b, k)`` for the pairs a < b not adjacent in *start* with a common
    neighbour in *adj*: the first set S (size 0, 1, ..., subsets of a's then b's other neighbours)
    with ``p(a, b, S) > alpha``; none: every common neighbour (the triple is no collider)."""
    from itertools import combinations

    rows: list[tuple[int, int, int]] = []
    for a, b in zip(*np.nonzero(np.triu(~start & (adj.astype(np.int64) @ adj.astype(np.int64) > 0), 1))):
        a, b = int(a), int(b)
        sides = [[v for v in np.flatnonzero(adj[e]).tolist() if v not in (a, b)] for e in (a, b)]
        top = max(map(len, sides)) if max_k < 0 else min(max_k, max(map(len, sides)))
        sets = (S for size in range(top + 1) for side in sides for S in combinations(side, size))
        found = next((S for S in sets if p(a, b, S) > alpha), None)
        members = found if found is not None else np.flatnonzero(adj[a] & adj[b]).tolist()
        rows += [(a, b, v) for v in members]
    return np.array(rows, np.int64).reshape(-1, 3)


def moral_start(adj: np.ndarray) -> np.ndarray:
    """The moral graph of the DAG *adj* (``adj[a, b]``: a -> b) as a symmetric adjacency: its edges
    and an edge between every two parents of a node (the Markov blankets: a skeleton bound for
    :func:`run_pc`'s *start*)."""
    A = np.asarray(adj, dtype=bool)
    M = A | A.T
    P = A.T.astype(np.int64)  # P[c, a]: a is a parent of c
    M |= (P.T @ P) > 0
    np.fill_diagonal(M, False)
    return M


MEMORY_GROWTH = "about 16 n d + 36 d^2 bytes (Fisher's z), 16 n d + 64 d^2 (chi-square, G-square)"


def memory_bytes(n: int, d: int, discrete: bool) -> float:
    """Peak bytes of a PC search beyond its data: copies of the data (integer codes, or
    centred columns for the correlation), the d x d correlation, adjacency, endpoint and
    ancestor matrices and the separating sets (measured at two sizes against the peak
    resident rise: 1.30x and 0.98x of it at d = 400 and 800, n = 2,000, chi-square; 1.45x and
    1.05x at d = 800 and 1,600, n = 300, Fisher's z)."""
    return 16.0 * n * d + (64.0 if discrete else 36.0) * d * d
