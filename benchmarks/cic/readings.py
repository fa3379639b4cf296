"""Benchmark-only scorer ``cic_reading``: other readings of the CIC score (Eqs. 4-6) that the authors' code
might have used, loaded by penalty_variants.yaml's ``plugins:`` key.

Readings (``reading`` parameter), all on the plug-in engine's cached information terms (nats):

- ``paper``: ``2N g - (ln N / 2) C`` (our ``cic``);
- ``a``: the description length in bits: ``log2 S(n, m)``, ``k_i log2 m`` and ``f2 = log2(N) / 2``;
- ``b``: the parents' alphabet product over parent *clusters*, each counted as one binary variable:
  ``(prod_{j in C} s_j - 1) 2^{k_i}``;
- ``c``: MIT-style fit: g in bits (information / ln 2) with ``f1 = 2N``;
- ``d``: no parents' product: ``prod_{j in C} s_j - 1`` per cluster;
- ``e``: ``f1 = N`` (the log-likelihood's factor; our ``cic(fit_factor="N")``);
- ``f`` = c + d, ``g`` = b + c, ``h`` = d + e, ``i`` = b + e.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from pydantic import Field

from macrocause.framework import Dataset, Params, hookimpl
from macrocause.plugins.cic.scorers import PAPER, EngineScorer

LN2 = math.log(2.0)
# reading: (fit factor per sample, f2 as a function of N, log base of C(G)'s structure terms, parameter count)
READINGS = {
    "paper": ("2N", "ln", "ln", "paper"), "a": ("2N", "log2", "log2", "paper"),
    "b": ("2N", "ln", "ln", "parent_clusters"), "c": ("2N bits", "ln", "ln", "paper"),
    "d": ("2N", "ln", "ln", "no_parents"), "e": ("N", "ln", "ln", "paper"),
    "f": ("2N bits", "ln", "ln", "no_parents"), "g": ("2N bits", "ln", "ln", "parent_clusters"),
    "h": ("N", "ln", "ln", "no_parents"), "i": ("N", "ln", "ln", "parent_clusters"),
}


class ReadingEngine:
    """A reading of Eqs. 4-6 on top of the plug-in CIC engine; ``set_clusters`` tells it the clustering
    being scored (the ``parent_clusters`` count depends on it; cic_exhaustive calls it)."""

    def __init__(self, base, reading: str) -> None:
        fit, f2, logb, params = READINGS[reading]
        n = base.n
        self.base, self.n, self.mode = base, n, params
        self.f1 = {"2N": 2.0 * n, "2N bits": 2.0 * n / LN2, "N": float(n)}[fit]
        self.f2 = 0.5 * (math.log(n) if f2 == "ln" else math.log2(n))
        self.lb = 1.0 if logb == "ln" else 1.0 / LN2
        self.label = np.zeros(base.d, dtype=int)

    def set_clusters(self, clusters) -> None:
        for c, members in enumerate(clusters):
            self.label[list(members)] = c

    def parameters(self, C, P) -> float:
        own = float(np.prod(self.base.cards[list(C)])) - 1.0
        if self.mode == "paper":
            return own * float(np.prod(self.base.cards[list(P)]))
        if self.mode == "no_parents":
            return own
        return own * 2.0 ** len({int(self.label[v]) for v in P})

    def local(self, C, P) -> float:
        return self.f1 * self.base.g(C, P) - self.f2 * self.parameters(C, P)

    def structure(self, m: int, n_edges: int, n_vars: int | None = None) -> float:
        return -self.f2 * self.lb * (self.base.log_stirling(m, n_vars) + n_edges * math.log(m))

    def edge_cost(self, m: int) -> float:
        return self.f2 * self.lb * math.log(m)


class CICReadingParams(Params):
    reading: Literal["paper", "a", "b", "c", "d", "e", "f", "g", "h", "i"] = Field(
        "paper", description="Which reading of Eqs. 4-6 (see the module docstring).")


class CICReading(EngineScorer):
    """CIC under another reading of Eqs. 4-6 (benchmark only; discrete data)."""

    name = "cic_reading"
    Params = CICReadingParams
    paper = PAPER

    def _build_engine(self, data: Dataset):
        from macrocause.plugins.cic.engine import CICEngine

        return ReadingEngine(CICEngine(data.X, discrete=True), self.params.reading)

    def _score(self, data: Dataset, graph) -> float:
        self.engine(data).set_clusters([[data.index(v) for v in c] for c in graph.clusters])
        return super()._score(data, graph)


@hookimpl
def macrocause_register_plugins(register):
    register(CICReading)
