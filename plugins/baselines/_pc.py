"""Our PC: stable skeleton, colliders from separating sets, Meek's rules; conflicts left undirected.

The choices follow causal-learn's ``pc`` defaults (``stable=True``, ``uc_rule=0``,
``uc_priority=2``), so both give the same skeleton and, where causal-learn's
output has no directed cycle, the same CPDAG. Collider orientations that close a
directed cycle are made undirected before Meek's rules, which then never close
one (an orientation that would is refused), so the result is always a valid graph.

References
----------
Spirtes, Glymour, Scheines. Causation, Prediction, and Search. MIT Press, 2000.
Colombo, Maathuis. Order-independent constraint-based causal structure learning. JMLR 15, 2014.
Meek. Causal inference and causal explanation with background knowledge. UAI 1995.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from framework import CausalGraph

from ._pc_citests import CHISQ, FISHERZ, GSQ, prepare
from ._pc_orient import meek, orient_colliders
from ._pc_skeleton import skeleton

TESTS = {"fisherz": FISHERZ, "chisq": CHISQ, "gsq": GSQ}


def resolve_conflicts(M: np.ndarray) -> tuple[np.ndarray, int]:
    """Make conflicting orientations of an endpoint matrix undirected; return it and their count.

    Conflicting are a bidirected edge (``M[i, j] = M[j, i] = 1``) and every directed
    edge inside a directed cycle (both ends in one strongly connected component of
    the directed edges).
    """
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    M = M.copy()
    both = (M == 1) & (M.T == 1)
    directed = (M == -1) & (M.T == 1)  # directed[i, j]: i -> j
    _, comp = connected_components(csr_matrix(directed), directed=True, connection="strong")
    cyclic = directed & (comp[:, None] == comp[None, :])
    undo = both | cyclic | cyclic.T
    M[undo] = -1
    return M, int(np.triu(both).sum() + cyclic.sum())


def to_graph(M: np.ndarray, names: Sequence[str]) -> CausalGraph:
    """A CausalGraph from an endpoint matrix without conflicts (see :func:`resolve_conflicts`)."""
    directed = np.argwhere((M == -1) & (M.T == 1))
    undirected = np.argwhere(np.triu((M == -1) & (M.T == -1)))
    return CausalGraph([[v] for v in names], directed.tolist(), undirected.tolist())


def run_pc(X: np.ndarray, test: str, alpha: float, stable: bool = True,
           max_k: int | None = None) -> tuple[np.ndarray, dict]:
    """Endpoint matrix of PC on an n x d data matrix, and facts about the run.

    *test* is ``"fisherz"``, ``"chisq"`` or ``"gsq"``. The info holds ``n_tests``
    (tests computed), ``depth`` (largest conditioning set searched) and
    ``conflicts``: edges left undirected because their orientation would close a
    directed cycle (collider orientations that closed one, and orientations
    Meek's rules were refused for it).
    """
    kind = TESTS[test]
    corr, codes, cards = prepare(X, kind)
    adj, sep, n_tests, depth = skeleton(
        kind, float(alpha), -1 if max_k is None else int(max_k), bool(stable), corr, X.shape[0], codes, cards
    )
    M, cyclic = resolve_conflicts(orient_colliders(adj, sep))
    M, refused = meek(M)
    return M, {"n_tests": int(n_tests), "depth": int(depth), "conflicts": cyclic + int(refused)}
