"""The :class:`CausalGraph` type: a DAG or CPDAG over clusters of variables.

A plain DAG or CPDAG is the special case where every cluster is a single
variable. Directed edges must be acyclic; undirected edges mark orientations
left open (as in a CPDAG or a cluster DAG's Markov equivalence class);
bidirected edges ``i <-> j`` mark arrowheads at both ends (conflicting collider
evidence kept by PC with ``uc_priority=1``, or a latent common cause). A partial
ancestral graph (PAG, FCI's output) adds circle marks: partially directed edges
``i o-> j`` and nondirected edges ``i o-o j``.

Every plugin hands back this type; its ``to_*`` / ``from_*`` methods convert
to and from networkx, pgmpy (DAG/PDAG), causal-learn (GeneralGraph / endpoint
matrix), adjacency matrices and DOT (implemented in :mod:`macrocause.framework.graph_io`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from . import richrepr
from .errors import DataValidationError

__all__ = ["CausalGraph", "natural_key"]

_DIGITS = re.compile(r"(\d+)")


def natural_key(s: str) -> list:
    """Sort key that orders ``x2`` before ``x10``."""
    return [int(t) if t.isdigit() else t for t in _DIGITS.split(s)]


def _has_cycle(n: int, edges: Iterable[tuple[int, int]]) -> list[int] | None:
    """Return one directed cycle (as node list) or None."""
    adj: list[list[int]] = [[] for _ in range(n)]
    for i, j in edges:
        adj[i].append(j)
    color = [0] * n
    parent = [-1] * n
    for s in range(n):
        if color[s]:
            continue
        stack = [(s, iter(adj[s]))]
        color[s] = 1
        while stack:
            v, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                color[v] = 2
                stack.pop()
            elif color[nxt] == 0:
                color[nxt] = 1
                parent[nxt] = v
                stack.append((nxt, iter(adj[nxt])))
            elif color[nxt] == 1:
                path = []
                u = v
                while u != nxt:
                    path.append(u)
                    u = parent[u]
                return [nxt, *path[::-1]]
    return None


class CausalGraph:
    """Clusters of variables joined by directed and undirected edges.

    Parameters
    ----------
    clusters : sequence of iterables of str
        Disjoint, non-empty sets of variable names; node ``i`` is ``clusters[i]``.
    directed : iterable of (int, int)
        Edges ``i -> j`` between cluster indices; must be acyclic.
    undirected : iterable of pairs of int
        Edges ``i - j`` with open orientation.
    bidirected : iterable of pairs of int
        Edges ``i <-> j``: arrowheads at both ends.
    partially_directed : iterable of (int, int)
        PAG edges ``i o-> j``: a circle at i (tail or arrowhead undetermined), an arrowhead at j.
    nondirected : iterable of pairs of int
        PAG edges ``i o-o j``: circles at both ends.

    Examples
    --------
    >>> g = CausalGraph.from_edges(["a", "b", "c"], directed=[("a", "b"), ("c", "b")])
    >>> sorted(g.edge_names())
    [('a', 'b'), ('c', 'b')]
    >>> g.is_dag
    True
    """

    __slots__ = ("clusters", "directed", "undirected", "bidirected", "partially_directed", "nondirected", "_index")

    def __init__(
        self,
        clusters: Sequence[Iterable[str]],
        directed: Iterable[tuple[int, int]] = (),
        undirected: Iterable[Iterable[int]] = (),
        bidirected: Iterable[Iterable[int]] = (),
        partially_directed: Iterable[tuple[int, int]] = (),
        nondirected: Iterable[Iterable[int]] = (),
    ) -> None:
        cl = tuple(frozenset(str(v) for v in c) for c in clusters)
        seen: dict[str, int] = {}
        for i, c in enumerate(cl):
            if not c:
                raise DataValidationError(f"CausalGraph: cluster {i} is empty.")
            for v in c:
                if v in seen:
                    raise DataValidationError(
                        f"CausalGraph: variable {v!r} is in clusters {seen[v]} and {i}; "
                        "clusters must be disjoint."
                    )
                seen[v] = i
        k = len(cl)
        d = set()
        for e in directed:
            i, j = (int(x) for x in e)
            self._check_pair(i, j, k)
            d.add((i, j))
        u = self._pairs(undirected, "undirected", k)
        bi = self._pairs(bidirected, "bidirected", k)
        pd_ = set()
        for e in partially_directed:
            i, j = (int(x) for x in e)
            self._check_pair(i, j, k)
            pd_.add((i, j))
        nd = self._pairs(nondirected, "nondirected", k)
        seen_pairs: dict[frozenset[int], str] = {}
        for kind, pairs in (("partially directed", [frozenset(e) for e in pd_]), ("nondirected", nd)):
            for pair in pairs:
                other = seen_pairs.get(pair) or (
                    "directed" if tuple(sorted(pair)) in d or tuple(sorted(pair))[::-1] in d else
                    "undirected" if pair in u else "bidirected" if pair in bi else None)
                if other is not None:
                    raise DataValidationError(
                        f"CausalGraph: pair {tuple(sorted(pair))} is both {other} and {kind}; one mark per pair.")
                seen_pairs[pair] = kind
        both = [(i, j) for (i, j) in d if (j, i) in d]
        if both:
            i, j = both[0]
            raise DataValidationError(
                f"CausalGraph: edges {i}->{j} and {j}->{i} both present; "
                "use an undirected edge for an unknown orientation."
            )
        for kind, marked in (("undirected", u), ("bidirected", bi)):
            clash = [(i, j) for (i, j) in d if frozenset((i, j)) in marked]
            if clash:
                raise DataValidationError(f"CausalGraph: pair {clash[0]} is both directed and {kind}.")
        if u & bi:
            raise DataValidationError(
                f"CausalGraph: pair {tuple(sorted(next(iter(u & bi))))} is both undirected and bidirected."
            )
        cyc = _has_cycle(k, d)
        if cyc is not None:
            names = " -> ".join(self._label(cl[i]) for i in [*cyc, cyc[0]])
            raise DataValidationError(f"CausalGraph: directed edges form a cycle: {names}.")
        self.clusters: tuple[frozenset[str], ...] = cl
        self.directed: set[tuple[int, int]] = d
        self.undirected: set[frozenset[int]] = u
        self.bidirected: set[frozenset[int]] = bi
        self.partially_directed: set[tuple[int, int]] = pd_
        self.nondirected: set[frozenset[int]] = nd
        self._index = seen

    @classmethod
    def _pairs(cls, edges: Iterable[Iterable[int]], kind: str, k: int) -> set[frozenset[int]]:
        out = set()
        for e in edges:
            pair = tuple(int(x) for x in e)
            if len(pair) != 2:
                raise DataValidationError(f"CausalGraph: {kind} edge {pair} must join two nodes.")
            cls._check_pair(*pair, k)
            out.add(frozenset(pair))
        return out

    @staticmethod
    def _check_pair(i: int, j: int, k: int) -> None:
        if not (0 <= i < k and 0 <= j < k):
            raise DataValidationError(
                f"CausalGraph: edge ({i}, {j}) refers to a node outside 0..{k - 1}."
            )
        if i == j:
            raise DataValidationError(f"CausalGraph: self-loop on node {i} is not allowed.")

    # -- construction helpers ----------------------------------------------
    @classmethod
    def from_edges(
        cls,
        variables: Sequence[str],
        directed: Iterable[tuple[str, str]] = (),
        undirected: Iterable[tuple[str, str]] = (),
        bidirected: Iterable[tuple[str, str]] = (),
        partially_directed: Iterable[tuple[str, str]] = (),
        nondirected: Iterable[tuple[str, str]] = (),
    ) -> CausalGraph:
        """A graph with one node per variable, edges given by name (``partially_directed``
        pairs ``(a, b)`` mean ``a o-> b``)."""
        idx = {v: i for i, v in enumerate(variables)}

        def look(v: str) -> int:
            if v not in idx:
                raise DataValidationError(f"CausalGraph: edge names unknown variable {v!r}.")
            return idx[v]

        return cls(
            [[v] for v in variables],
            [(look(a), look(b)) for a, b in directed],
            [(look(a), look(b)) for a, b in undirected],
            [(look(a), look(b)) for a, b in bidirected],
            [(look(a), look(b)) for a, b in partially_directed],
            [(look(a), look(b)) for a, b in nondirected],
        )

    @classmethod
    def empty(cls, variables: Sequence[str]) -> CausalGraph:
        """A graph of single variables and no edges."""
        return cls([[v] for v in variables])

    @classmethod
    def from_cluster_edges(
        cls,
        clusters: Sequence[Iterable[str]],
        directed: Iterable[tuple[Iterable[str], Iterable[str]]] = (),
        undirected: Iterable[tuple[Iterable[str], Iterable[str]]] = (),
        bidirected: Iterable[tuple[Iterable[str], Iterable[str]]] = (),
    ) -> CausalGraph:
        """A cluster graph with edges given as pairs of name sets."""
        cl = [frozenset(c) for c in clusters]
        idx = {c: i for i, c in enumerate(cl)}

        def look(c: Iterable[str]) -> int:
            key = frozenset(c)
            if key not in idx:
                raise DataValidationError(f"CausalGraph: edge names unknown cluster {sorted(key)}.")
            return idx[key]

        return cls(
            cl, [(look(a), look(b)) for a, b in directed], [(look(a), look(b)) for a, b in undirected],
            [(look(a), look(b)) for a, b in bidirected],
        )

    # -- queries -------------------------------------------------------------
    @property
    def n_nodes(self) -> int:
        return len(self.clusters)

    @property
    def variables(self) -> list[str]:
        """All variables, in natural sort order."""
        return sorted(self._index, key=natural_key)

    @property
    def is_singleton(self) -> bool:
        """True when every cluster has exactly one variable (a plain DAG/CPDAG)."""
        return all(len(c) == 1 for c in self.clusters)

    @property
    def is_dag(self) -> bool:
        """True when every edge is directed."""
        return not self.undirected and not self.bidirected and not self.is_pag

    @property
    def is_pag(self) -> bool:
        """True when some edge carries a circle mark (``o->`` or ``o-o``): a partial ancestral graph."""
        return bool(self.partially_directed or self.nondirected)

    def cluster_of(self, variable: str) -> int:
        """Index of the cluster holding *variable*."""
        try:
            return self._index[variable]
        except KeyError:
            raise DataValidationError(f"CausalGraph: unknown variable {variable!r}.") from None

    def parents(self, i: int) -> list[int]:
        """Directed parents of node *i*, sorted."""
        return sorted(a for a, b in self.directed if b == i)

    def children(self, i: int) -> list[int]:
        return sorted(b for a, b in self.directed if a == i)

    def neighbours(self, i: int) -> list[int]:
        """Nodes joined to *i* by an undirected edge."""
        return sorted(next(iter(e - {i})) for e in self.undirected if i in e)

    @staticmethod
    def _label(c: frozenset[str]) -> str:
        return ",".join(sorted(c, key=natural_key))

    def label(self, i: int) -> str:
        """Node label: the variable name, or sorted names joined by commas."""
        return self._label(self.clusters[i])

    def edge_names(self) -> set[tuple[str, str]]:
        """Directed edges as (label, label)."""
        return {(self.label(i), self.label(j)) for i, j in self.directed}

    def undirected_names(self) -> set[frozenset[str]]:
        """Undirected edges as sets of two labels."""
        return {frozenset(self.label(i) for i in e) for e in self.undirected}

    def bidirected_names(self) -> set[frozenset[str]]:
        """Bidirected edges as sets of two labels."""
        return {frozenset(self.label(i) for i in e) for e in self.bidirected}

    def partially_directed_names(self) -> set[tuple[str, str]]:
        """Edges ``a o-> b`` as (label, label)."""
        return {(self.label(i), self.label(j)) for i, j in self.partially_directed}

    def nondirected_names(self) -> set[frozenset[str]]:
        """Edges ``a o-o b`` as sets of two labels."""
        return {frozenset(self.label(i) for i in e) for e in self.nondirected}

    def topological_order(self) -> list[int]:
        """Nodes in an order where every directed edge points forward."""
        indeg = [0] * self.n_nodes
        for _, j in self.directed:
            indeg[j] += 1
        ready = [i for i in range(self.n_nodes) if indeg[i] == 0]
        order = []
        while ready:
            v = ready.pop(0)
            order.append(v)
            for c in self.children(v):
                indeg[c] -= 1
                if indeg[c] == 0:
                    ready.append(c)
        return order

    def expand(self) -> CausalGraph:
        """The variable-level graph: every variable of cluster i points to every
        variable of cluster j for each edge i -> j (undirected and bidirected alike).

        Edges inside a cluster are left out: a cluster DAG says nothing about them.
        """
        vs = self.variables
        d = [(a, b) for i, j in self.directed for a in self.clusters[i] for b in self.clusters[j]]
        pd_ = [(a, b) for i, j in self.partially_directed for a in self.clusters[i] for b in self.clusters[j]]
        u, bi, nd = [], [], []
        for edges, out in ((self.undirected, u), (self.bidirected, bi), (self.nondirected, nd)):
            for e in edges:
                i, j = sorted(e)
                out += [(a, b) for a in self.clusters[i] for b in self.clusters[j]]
        return CausalGraph.from_edges(vs, d, u, bi, pd_, nd)

    def cpdag(self) -> CausalGraph:
        """The CPDAG (Markov equivalence class) of this DAG: compelled edges directed, reversible
        ones undirected (Chickering's edge labelling, O(|E|); see :mod:`macrocause.framework.equivalence`).

        Examples
        --------
        >>> g = CausalGraph.from_edges(["a", "b", "c", "d"], [("a", "c"), ("b", "c"), ("c", "d"), ("a", "b")])
        >>> sorted(tuple(sorted(e)) for e in g.cpdag().undirected_names())
        [('a', 'b'), ('a', 'c'), ('b', 'c'), ('c', 'd')]
        >>> sorted(CausalGraph.from_edges(["a", "b", "c"], [("a", "c"), ("b", "c")]).cpdag().edge_names())
        [('a', 'c'), ('b', 'c')]
        """
        from .equivalence import cpdag

        return cpdag(self)

    def skeleton(self) -> set[frozenset[int]]:
        """Adjacent node pairs, ignoring orientation."""
        return ({frozenset(e) for e in self.directed | self.partially_directed} | self.undirected | self.bidirected
                | self.nondirected)

    def canonical(self) -> tuple:
        """A hashable description independent of cluster order."""
        lab = [self.label(i) for i in range(self.n_nodes)]
        return (
            tuple(sorted(lab, key=natural_key)),
            tuple(sorted((lab[i], lab[j]) for i, j in self.directed)),
            tuple(sorted(tuple(sorted(lab[i] for i in e)) for e in self.undirected)),
            tuple(sorted(tuple(sorted(lab[i] for i in e)) for e in self.bidirected)),
            tuple(sorted((lab[i], lab[j]) for i, j in self.partially_directed)),
            tuple(sorted(tuple(sorted(lab[i] for i in e)) for e in self.nondirected)),
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CausalGraph):
            return NotImplemented
        return self.canonical() == other.canonical()

    def __hash__(self) -> int:
        return hash(self.canonical())

    def __repr__(self) -> str:
        kind = ("PAG" if self.is_pag else "DAG" if self.is_dag else "PDAG") if self.is_singleton else (
            "cluster DAG" if self.is_dag else "cluster PDAG")
        bi = f", {len(self.bidirected)} bidirected" if self.bidirected else ""
        if self.is_pag:
            bi += f", {len(self.partially_directed)} o->, {len(self.nondirected)} o-o"
        return (
            f"CausalGraph({kind}: {self.n_nodes} nodes, {len(self.directed)} directed, "
            f"{len(self.undirected)} undirected{bi})"
        )

    def _repr_html_(self) -> str:
        return richrepr.html("graph", self)

    def __reduce__(self):
        return (CausalGraph, (self.clusters, sorted(self.directed), [tuple(sorted(e)) for e in self.undirected],
                              [tuple(sorted(e)) for e in self.bidirected], sorted(self.partially_directed),
                              [tuple(sorted(e)) for e in self.nondirected]))

    # -- conversions (in :mod:`macrocause.framework.graph_io`) -------------------------------
    def to_networkx(self):
        """``nx.DiGraph`` over node labels; undirected and bidirected edges appear in both directions.

        Node attribute ``variables`` holds each cluster's variable set; edge
        attribute ``undirected`` is True for the two halves of an undirected edge,
        ``bidirected`` for the two halves of a bidirected one.
        """
        return _io().to_networkx(self)

    @classmethod
    def from_networkx(cls, g) -> CausalGraph:
        """From a ``nx.DiGraph`` (a pair of opposite edges = undirected, or bidirected when
        both halves carry ``bidirected=True``) or ``nx.Graph``.

        Node attribute ``variables`` (a set of names) makes a cluster node;
        otherwise the node name is the variable.
        """
        return _io().from_networkx(g)

    def to_adjacency(self, variables: Sequence[str] | None = None) -> np.ndarray:
        """Adjacency matrix of a singleton graph: ``A[i, j] = 1`` for i -> j, both 1 for i - j
        (a graph with bidirected edges is refused: use :meth:`to_causallearn_matrix`)."""
        return _io().to_adjacency(self, variables)

    @classmethod
    def from_adjacency(cls, A: Any, variables: Sequence[str]) -> CausalGraph:
        """From ``A[i, j] != 0`` meaning i -> j; both directions set means undirected."""
        return _io().from_adjacency(A, variables)

    def to_pgmpy(self):
        """A pgmpy ``DAG`` (all edges directed) or ``PDAG`` (some undirected); singleton graphs
        without bidirected edges only."""
        return _io().to_pgmpy(self)

    @classmethod
    def from_pgmpy(cls, model, variables: Sequence[str] | None = None) -> CausalGraph:
        """From a pgmpy DAG, PDAG or Bayesian network."""
        return _io().from_pgmpy(model, variables)

    @classmethod
    def from_causallearn(cls, graph: Any, variables: Sequence[str]) -> CausalGraph:
        """From a causal-learn ``GeneralGraph`` or its endpoint matrix ``G.graph``.

        causal-learn encodes ``i -> j`` as ``M[j, i] = 1, M[i, j] = -1`` and
        ``i - j`` as ``M[i, j] = M[j, i] = -1`` and ``i <-> j`` as
        ``M[i, j] = M[j, i] = 1`` (which PC emits with ``uc_priority=1``); FCI's circle
        marks are 2: ``i o-> j`` is ``M[i, j] = 2, M[j, i] = 1`` and ``i o-o j`` is
        ``M[i, j] = M[j, i] = 2``. ``M[a, b]`` is the mark at a's end of the edge a - b.
        """
        return _io().from_causallearn(graph, variables)

    def to_causallearn_matrix(self, variables: Sequence[str] | None = None) -> np.ndarray:
        """causal-learn's endpoint matrix for a singleton graph (see :meth:`from_causallearn`)."""
        return _io().to_causallearn_matrix(self, variables)

    def to_dot(self) -> str:
        """Graphviz DOT text; clusters with several variables are drawn as boxes."""
        return _io().to_dot(self)


def _io():
    """:mod:`macrocause.framework.graph_io`, which builds CausalGraphs and so imports this module."""
    from . import graph_io

    return graph_io
