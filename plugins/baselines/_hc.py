"""Our hill climbing over DAGs with discrete scores (BIC, K2, BDeu), move for move as pgmpy's.

:class:`macrocause.plugins.baselines.search.HillClimb` runs this for discrete data
(``backend="macrocause"``): the same moves in the same order as pgmpy's
``HillClimbSearch`` with our fixed order of ties (kind, then the two names), the same
local scores computed by the same NumPy operations on a count table of the same layout
(so equal to the bit and equal ties stay equal), the same tabu list, ``epsilon`` and
``max_iter``. Plain NumPy: nothing to compile, and neither pgmpy nor pandas is imported
(pgmpy's import alone takes seconds).

References
----------
Koller, Friedman. Probabilistic Graphical Models. MIT Press, 2009, Sec. 18.4.3.
Ankan, Textor. pgmpy: a Python toolkit for Bayesian networks. JMLR 25(265), 2024.
"""

from __future__ import annotations

from collections import deque
from math import lgamma, log

import numpy as np

_KINDS = ("+", "-", "flip")  # sorted as pgmpy's operation names sort


class DiscreteScore:
    """Decomposable score of discrete columns: ``"bic"``, ``"k2"`` or ``"bdeu"``.

    *X* holds the columns (any values; each column's observed values, sorted, are its
    states, as pgmpy's ``state_names``). :meth:`local` is pgmpy's ``local_score`` of
    the same name: the count table has one row per state of the variable and one column
    per observed parent configuration (lexicographic in the order of *parents*).
    """

    def __init__(self, X: np.ndarray, kind: str, equivalent_sample_size: float = 10.0) -> None:
        if kind not in ("bic", "k2", "bdeu"):
            raise ValueError(f"DiscreteScore: unknown score {kind!r}; allowed: 'bic', 'k2', 'bdeu'.")
        cols = [np.unique(X[:, j], return_inverse=True) for j in range(X.shape[1])]
        self.codes = [inv.reshape(-1).astype(np.int64) for _, inv in cols]
        self.cards = [len(states) for states, _ in cols]
        self.n = X.shape[0]
        self.kind = kind
        self.ess = equivalent_sample_size
        self._cache: dict[tuple[int, tuple[int, ...]], float] = {}

    def counts(self, v: int, parents: tuple[int, ...]) -> np.ndarray:
        """States of *v* by observed configurations of *parents* (C order, int64)."""
        cfg = np.zeros(self.n, dtype=np.int64)
        for p in parents:
            cfg = cfg * self.cards[p] + self.codes[p]
        m = 1
        if parents:
            observed, cfg = np.unique(cfg, return_inverse=True)
            m = len(observed)
        r = self.cards[v]
        table = np.bincount(self.codes[v] * m + cfg.reshape(-1), minlength=r * m).reshape(r, m)
        if len(parents) > 1:  # pandas' unstack of several levels: configurations by first sight
            seen = np.flatnonzero(table.reshape(-1)) % m  # in the order (state, configuration)
            _, first = np.unique(seen, return_index=True)
            table = np.ascontiguousarray(table[:, np.argsort(first, kind="stable")])
        return table

    def local(self, v: int, parents: tuple[int, ...]) -> float:
        """Local score of *v* given *parents* (cached; the order of *parents* is kept)."""
        key = (v, parents)
        if key not in self._cache:
            self._cache[key] = self._local(v, parents)
        return self._cache[key]

    def _local(self, v: int, parents: tuple[int, ...]) -> float:
        counts = self.counts(v, parents)
        r = self.cards[v]
        q = np.prod([self.cards[p] for p in parents])
        if self.kind == "bic":
            ll = np.zeros_like(counts, dtype=float)
            np.log(counts, out=ll, where=counts > 0)
            cond = np.sum(counts, axis=0, dtype=float)
            np.log(cond, out=cond, where=cond > 0)
            ll -= cond
            ll *= counts
            return np.sum(ll) - 0.5 * log(self.n) * q * (r - 1)
        from scipy.special import gammaln  # K2 and BDeu only

        if self.kind == "k2":
            lg = np.zeros_like(counts, dtype=float)
            gammaln(counts + 1, out=lg)
            cond = np.sum(counts, axis=0, dtype=float)
            gammaln(cond + r, out=cond)
            return np.sum(lg) - np.sum(cond) + q * lgamma(r)
        size = q * r
        lg = np.zeros_like(counts, dtype=float)
        alpha = self.ess / q
        beta = self.ess / size
        gammaln(counts + beta, out=lg)
        cond = np.sum(counts, axis=0, dtype=float)
        gammaln(cond + alpha, out=cond)
        unseen = q - counts.shape[1]
        return ((np.sum(lg) + unseen * r * gammaln(beta)) - (np.sum(cond) + unseen * gammaln(alpha))
                + q * lgamma(alpha) - size * lgamma(beta))


def _descendants(children: list[set[int]]) -> list[set[int]]:
    """Each node's descendants (itself excluded) in a DAG given by children sets."""
    out = []
    for i in range(len(children)):
        seen: set[int] = set()
        stack = list(children[i])
        while stack:
            c = stack.pop()
            if c not in seen:
                seen.add(c)
                stack.extend(children[c])
        out.append(seen)
    return out


def hill_climb(score: DiscreteScore, names: list[str], *, tabu_length: int = 100,
               max_indegree: int | None = None, epsilon: float = 1e-4,
               max_iter: int = 1_000_000) -> list[tuple[str, str]]:
    """Greedy search from the empty DAG: the best add, remove or flip of one edge until none
    improves the score by *epsilon*; returns the DAG's edges by name.

    As pgmpy's ``HillClimbSearch`` (no start DAG, no expert knowledge): a move undoing one
    of the last *tabu_length* moves is not taken, no node gets more than *max_indegree*
    parents, and among equally good moves the first in the order (``"+"``, ``"-"``,
    ``"flip"``; then the names of the edge's two ends) wins.
    """
    d = len(names)
    rank = {i: r for r, i in enumerate(sorted(range(d), key=lambda i: names[i]))}
    limit = float("inf") if max_indegree is None else max_indegree
    parents: list[list[int]] = [[] for _ in range(d)]
    children: list[set[int]] = [set() for _ in range(d)]
    tabu: deque = deque(maxlen=tabu_length)
    local = score.local
    for _ in range(int(max_iter)):
        taboo = set(tabu)
        below = _descendants(children)
        best, best_key, best_delta = None, None, None

        def offer(op, delta):
            nonlocal best, best_key, best_delta
            key = (_KINDS.index(op[0]), rank[op[1]], rank[op[2]])
            if best is None or delta > best_delta or (delta == best_delta and key < best_key):
                best, best_key, best_delta = op, key, delta

        for x in range(d):
            for y in range(d):
                if x == y or x in parents[y] or y in parents[x] or x in below[y]:
                    continue
                if ("+", x, y) in taboo or len(parents[y]) + 1 > limit:
                    continue
                old = tuple(parents[y])
                offer(("+", x, y), local(y, old + (x,)) - local(y, old))
        for y in range(d):
            for x in parents[y]:
                if ("-", x, y) in taboo:
                    continue
                old = tuple(parents[y])
                offer(("-", x, y), local(y, tuple(p for p in old if p != x)) - local(y, old))
        for y in range(d):
            for x in parents[y]:
                if any(y in below[c] for c in children[x] if c != y):
                    continue  # another path x -> ... -> y: the flip closes a cycle
                if ("flip", x, y) in taboo or ("flip", y, x) in taboo or len(parents[x]) + 1 > limit:
                    continue
                old_x, old_y = tuple(parents[x]), tuple(parents[y])
                offer(("flip", x, y), local(x, old_x + (y,)) + local(y, tuple(p for p in old_y if p != x))
                      - local(x, old_x) - local(y, old_y))
        if best is None or best_delta < epsilon:
            break
        kind, x, y = best
        if kind == "+":
            parents[y].append(x)
            children[x].add(y)
            tabu.append(("-", x, y))
        elif kind == "-":
            parents[y].remove(x)
            children[x].discard(y)
            tabu.append(("+", x, y))
        else:
            parents[y].remove(x)
            children[x].discard(y)
            parents[x].append(y)
            children[y].add(x)
            tabu.append(best)
    return [(names[x], names[y]) for y in range(d) for x in parents[y]]
