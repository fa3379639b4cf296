"""``cic_exhaustive``: the best cluster DAG by enumeration, for small problems and for checking a search."""

from __future__ import annotations

import itertools
import math
from typing import Any, Literal

import numpy as np
from pydantic import Field

from macrocause.framework import CausalGraph, Dataset, Params, Partition, Scorer, Searcher
from macrocause.framework.errors import DataValidationError
from macrocause.framework.score_engine import engine_for

from .scorers import PAPER
from .search import to_graph

MAX_CLUSTERINGS = 200_000
MAX_DAG_NODES = 5  # 29,281 DAGs on 5 nodes; 3.8 million on 6


def set_partitions(k: int):
    """Every partition of range(k) as a list of blocks (restricted growth strings, Bell(k) of them)."""
    def rec(i: int, blocks: list[list[int]]):
        if i == k:
            yield [tuple(b) for b in blocks]
            return
        for b in blocks:
            b.append(i)
            yield from rec(i + 1, blocks)
            b.pop()
        blocks.append([i])
        yield from rec(i + 1, blocks)
        blocks.pop()

    yield from rec(0, [])


def bell(k: int) -> int:
    row = [1]
    for _ in range(k):
        nxt = [row[-1]]
        for v in row:
            nxt.append(nxt[-1] + v)
        row = nxt
    return row[0]


def all_dags(m: int) -> list[np.ndarray]:
    """Every DAG on m labelled nodes (each pair: no edge, i -> j or j -> i; cycles dropped)."""
    from ._climb import is_acyclic

    pairs = [(a, b) for a in range(m) for b in range(a + 1, m)]
    out = []
    for marks in itertools.product((0, 1, 2), repeat=len(pairs)):
        adj = np.zeros((m, m), dtype=bool)
        for (a, b), s in zip(pairs, marks):
            if s:
                adj[(a, b) if s == 1 else (b, a)] = True
        if is_acyclic(adj):
            out.append(adj)
    return out


class CICExhaustiveParams(Params):
    blocks: list[list[str]] | None = Field(
        None, description="Clusters are unions of these blocks of variables (variables in no block are "
        "blocks of their own), e.g. the true clusters; None: every variable is a block (every clustering)."
    )
    m: int | None = Field(None, ge=1, description="Only clusterings with exactly m clusters; None: every m.")
    edges: Literal["all", "climb"] = Field(
        "all", description="all: every DAG on the clusters (m <= 5); climb: hill climbing over cluster edges "
        "from the empty graph and starts - 1 Erdos-Renyi starts."
    )
    starts: int = Field(3, ge=1, description="Starts of the edge climb per clustering (edges='climb').")
    seed: int = Field(0, description="Seed of the random edge starts (edges='climb').")


class CICExhaustive(Searcher):
    """The best-scoring cluster DAG over every clustering built from ``blocks`` (exhaustive search).

    Every partition of the blocks into clusters (Bell(#blocks) clusterings, at most
    200,000) is scored with every DAG on its clusters (``edges="all"``, at most 5
    clusters) or with the best of ``starts`` edge hill climbs (``edges="climb"``).
    With ``blocks`` set to a graph's clusters it answers "which structure built from
    these clusters does the score prefer?", e.g. whether the true cluster DAG beats
    what :class:`CICGreedy` returns. Ties keep the first clustering and DAG
    enumerated (restricted growth order; for a DAG, the pairs in order with no edge
    before a -> b before b -> a). ``run`` also returns the number of structures scored.

    References
    ----------
    Niu, Li, Li. Learning Cluster Causal Diagrams: An Information-Theoretic Approach. IJCAI 2022.
    """

    name = "cic_exhaustive"
    requires = ("cic",)
    scale_invariant = "global"
    Params = CICExhaustiveParams
    paper = PAPER
    uses_scorer = True
    default_scorer = "cic"

    def _blocks(self, data: Dataset) -> list[tuple[int, ...]]:
        names = list(data.names)
        if self.params.blocks is None:
            return [(i,) for i in range(len(names))]
        seen: set[str] = set()
        blocks = []
        for b in self.params.blocks:
            unknown = sorted(set(b) - set(names))
            if unknown:
                raise DataValidationError(f"cic_exhaustive: block variables {unknown} are not in the data.")
            if seen & set(b) or not b:
                raise DataValidationError("cic_exhaustive: blocks must be non-empty and disjoint.")
            seen |= set(b)
            blocks.append(tuple(sorted(names.index(v) for v in b)))
        blocks += [(i,) for i, v in enumerate(names) if v not in seen]
        return blocks

    def check_data(self, data: Dataset) -> None:
        data.check(self.name, min_variables=2, min_samples=3)
        k = len(self._blocks(data))
        if bell(k) > MAX_CLUSTERINGS:
            raise DataValidationError(
                f"cic_exhaustive: {k} blocks give {bell(k):,} clusterings, more than {MAX_CLUSTERINGS:,}. "
                "Give larger blocks, or use cic_greedy.")
        p = self.params
        top = k if p.m is None else p.m
        if p.m is not None and p.m > k:
            raise DataValidationError(f"cic_exhaustive: m={p.m} exceeds the {k} blocks.")
        if p.edges == "all" and top > MAX_DAG_NODES:
            raise DataValidationError(
                f"cic_exhaustive with edges='all' enumerates DAGs on at most {MAX_DAG_NODES} clusters; up to "
                f"{top} are possible here. Set m <= {MAX_DAG_NODES}, or edges='climb'.")

    def run(self, data: Dataset, scorer: Scorer) -> dict[str, Any]:
        """``graph``, ``score`` and ``n_structures`` (clusterings x edge sets scored)."""
        from ._climb import sample_edges
        from ._ils import climb_edges, total_score

        self.check_data(data)
        p = self.params
        eng = engine_for(scorer, data)
        blocks = self._blocks(data)
        rng = np.random.default_rng(p.seed)
        dags: dict[int, list[np.ndarray]] = {}
        best = (-math.inf, None, None)
        count = 0
        for part in set_partitions(len(blocks)):
            if p.m is not None and len(part) != p.m:
                continue
            clusters = [tuple(sorted(v for i in blk for v in blocks[i])) for blk in part]
            m = len(clusters)
            if p.edges == "all":
                if m not in dags:
                    dags[m] = all_dags(m)
                cands = ((a, total_score(eng, clusters, a)) for a in dags[m])
            else:
                cands = (climb_edges(eng, clusters, np.zeros((m, m), bool) if s == 0 else
                                     sample_edges(m, 0.5, rng), 10_000) for s in range(p.starts))
            for adj, score in cands:
                count += 1
                if score > best[0] + 1e-9:
                    best = (score, clusters, adj)
        score, clusters, adj = best
        return {"graph": to_graph(data.names, clusters, adj), "score": float(score), "n_structures": count}

    def _search(self, data: Dataset, scorer: Scorer | None, init: Partition | CausalGraph | None) -> CausalGraph:
        return self.run(data, scorer)["graph"]
