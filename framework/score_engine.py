"""Index-based score engines behind decomposable scorers, and the searches' access to them.

An engine works on variable indices: ``local(C, P)`` is the score of cluster C (a sorted tuple
of indices) given the union P of its parent clusters' variables; ``structure(m, n_edges)`` holds
the terms that depend on the whole graph; ``edge_cost(m)`` the part of it one edge costs; and
``ci_pvalue(A, B, S, n_perm, seed)`` a conditional-independence test between variable sets. A
graph's score is ``sum(local) + structure``. Scorers that own an engine derive from
:class:`EngineScorer`; any other :class:`~macrocause.framework.roles.DecomposableScorer` is wrapped by
:class:`GenericEngine`.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np

from .data import Dataset
from .entropy import DiscreteEntropies, g_test, partial_correlation_pvalue
from .errors import DataValidationError
from .graph import CausalGraph
from .roles import DecomposableScorer, Scorer

Idx = tuple[int, ...]


class EngineScorer(DecomposableScorer):
    """A decomposable scorer backed by an index-based engine (:mod:`.engine`), one cached engine
    per dataset (the last one seen); the searches use the engine directly."""

    def engine(self, data: Dataset) -> Any:
        """The cached score engine of this scorer for *data* (built on first use)."""
        cached = getattr(self, "_engine_cache", None)
        if cached is not None and cached[0] is data:
            return cached[1]
        eng = self._build_engine(data)
        self._engine_cache = (data, eng)
        return eng

    def _build_engine(self, data: Dataset) -> Any:
        raise NotImplementedError

    def _indices(self, data: Dataset, cluster: frozenset[str], parents: list[frozenset[str]]):
        C = tuple(sorted(data.index(v) for v in cluster))
        P = tuple(sorted({data.index(v) for p in parents for v in p}))
        if not C:
            raise DataValidationError(f"{self.name}: a cluster must hold at least one variable.")
        if set(C) & set(P):
            raise DataValidationError(f"{self.name}: a cluster cannot be its own parent ({sorted(cluster)}).")
        return C, P

    def _local_score(self, data: Dataset, cluster: frozenset[str], parents: list[frozenset[str]]) -> float:
        C, P = self._indices(data, cluster, parents)
        return self.engine(data).local(C, P)

    def _score(self, data: Dataset, graph: CausalGraph) -> float:
        eng = self.engine(data)
        total = 0.0
        for i, cl in enumerate(graph.clusters):
            C, P = self._indices(data, cl, [graph.clusters[p] for p in graph.parents(i)])
            total += eng.local(C, P)
        return total + eng.structure(graph.n_nodes, len(graph.directed), len(graph.variables))


def engine_for(scorer: Scorer, data: Dataset):
    """The cached engine of our scorers, or a generic adapter around any other DecomposableScorer."""
    if isinstance(scorer, EngineScorer):
        return scorer.engine(data)
    if not isinstance(scorer, DecomposableScorer):
        raise DataValidationError(
            f"the search needs a decomposable scorer (a DecomposableScorer); {scorer.name} is not.")
    return GenericEngine(scorer, data)


class LocalOnlyEngine:
    """Engines whose score is the sum of local scores (no structure term) and whose
    v-structure CI test is the G-test (discrete) or the Gaussian partial-correlation test,
    on ``self.ent`` / ``self.S`` (scatter matrix)."""

    n: int
    discrete: bool

    def structure(self, m: int, n_edges: int, n_vars: int | None = None) -> float:
        return 0.0

    def edge_cost(self, m: int) -> float:
        return 0.0

    def ci_pvalue(self, A: Idx, B: Idx, S: Idx, n_perm: int, seed: int) -> float:
        if self.discrete:
            return g_test(self.ent, A, B, S)
        return partial_correlation_pvalue(self.S, self.n, A, B, S)


class GenericEngine(LocalOnlyEngine):
    """Adapter for any other :class:`~macrocause.framework.roles.DecomposableScorer`: local scores through
    its public ``local_score``."""

    def __init__(self, scorer, data) -> None:
        self.scorer, self.data = scorer, data
        self.names = list(data.names)
        self._local: dict[tuple[Idx, Idx], float] = {}
        self.discrete = data.is_discrete
        self.n = data.n_samples

    @cached_property
    def ent(self) -> DiscreteEntropies:
        """Plug-in entropies, built on the first CI test."""
        return DiscreteEntropies(np.asarray(self.data.X))

    @cached_property
    def S(self) -> np.ndarray:
        """Scatter matrix, built on the first CI test."""
        Xc = np.asarray(self.data.X) - np.asarray(self.data.X).mean(axis=0)
        return Xc.T @ Xc

    def local(self, C: Idx, P: Idx) -> float:
        key = (C, P)
        v = self._local.get(key)
        if v is None:
            cl = frozenset(self.names[i] for i in C)
            pa = [frozenset([self.names[i]]) for i in P]
            v = float(self.scorer.local_score(self.data, cl, pa))
            self._local[key] = v
        return v
