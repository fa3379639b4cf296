"""Conversions of :class:`~macrocause.framework.graph.CausalGraph` to and from other libraries' types.

networkx, pgmpy (DAG/PDAG), causal-learn (GeneralGraph / endpoint matrix), adjacency
matrices and DOT. ``CausalGraph``'s ``to_*`` / ``from_*`` methods delegate here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .errors import DataValidationError
from .graph import CausalGraph, natural_key


def to_networkx(g: CausalGraph):
    """``nx.DiGraph`` over node labels; undirected and bidirected edges appear in both directions.

    Node attribute ``variables`` holds each cluster's variable set; edge
    attribute ``undirected`` is True for the two halves of an undirected edge,
    ``bidirected`` for the two halves of a bidirected one.
    """
    import networkx as nx

    out = nx.DiGraph()
    for i, c in enumerate(g.clusters):
        out.add_node(g.label(i), variables=c)
    for i, j in g.directed:
        out.add_edge(g.label(i), g.label(j), undirected=False, bidirected=False)
    for edges, und in ((g.undirected, True), (g.bidirected, False)):
        for e in edges:
            i, j = sorted(e)
            out.add_edge(g.label(i), g.label(j), undirected=und, bidirected=not und)
            out.add_edge(g.label(j), g.label(i), undirected=und, bidirected=not und)
    for i, j in g.partially_directed:  # a o-> b: the edge a -> b with a circle at a
        out.add_edge(g.label(i), g.label(j), undirected=False, bidirected=False, circle=True)
    for e in g.nondirected:
        i, j = sorted(e)
        for a, b in ((i, j), (j, i)):
            out.add_edge(g.label(a), g.label(b), undirected=False, bidirected=False, circle=True)
    return out


def from_networkx(nxg) -> CausalGraph:
    """From a ``nx.DiGraph`` (a pair of opposite edges = undirected, or bidirected when
    both halves carry ``bidirected=True``) or ``nx.Graph``.

    Node attribute ``variables`` (a set of names) makes a cluster node;
    otherwise the node name is the variable.
    """
    import networkx as nx

    nodes = list(nxg.nodes)
    clusters = [nxg.nodes[v].get("variables", {str(v)}) for v in nodes]
    idx = {v: i for i, v in enumerate(nodes)}
    d, u, bi, pd_, nd = [], [], [], [], []
    if not isinstance(nxg, nx.DiGraph):
        u = [(idx[a], idx[b]) for a, b in nxg.edges]
    else:
        for a, b in nxg.edges:
            circle = nxg.edges[a, b].get("circle", False)
            if nxg.has_edge(b, a):
                if idx[a] < idx[b]:
                    both = nxg.edges[a, b].get("bidirected") and nxg.edges[b, a].get("bidirected")
                    circles = circle and nxg.edges[b, a].get("circle", False)
                    (nd if circles else bi if both else u).append((idx[a], idx[b]))
            else:
                (pd_ if circle else d).append((idx[a], idx[b]))
    return CausalGraph(clusters, d, u, bi, pd_, nd)


def _refuse_bidirected(g, target: str) -> None:
    if g.is_pag:
        raise DataValidationError(
            f"CausalGraph.{target}: the graph is a PAG (circle marks o-> / o-o), which {target} cannot "
            "hold; use to_causallearn_matrix, to_networkx or to_dot."
        )
    if g.bidirected:
        raise DataValidationError(
            f"CausalGraph.{target}: the graph has {len(g.bidirected)} bidirected edge(s), which "
            f"{target} cannot hold; use to_causallearn_matrix, to_networkx or to_dot."
        )


def to_adjacency(g: CausalGraph, variables: Sequence[str] | None = None) -> np.ndarray:
    """Adjacency matrix of a singleton graph: ``A[i, j] = 1`` for i -> j, both 1 for i - j."""
    _refuse_bidirected(g, "to_adjacency")
    g = g if g.is_singleton else g.expand()
    vs = list(variables) if variables is not None else g.variables
    pos = {v: k for k, v in enumerate(vs)}
    A = np.zeros((len(vs), len(vs)), dtype=np.int8)
    for i, j in g.directed:
        A[pos[g.label(i)], pos[g.label(j)]] = 1
    for e in g.undirected:
        i, j = sorted(e)
        A[pos[g.label(i)], pos[g.label(j)]] = A[pos[g.label(j)], pos[g.label(i)]] = 1
    return A


def from_adjacency(A: Any, variables: Sequence[str]) -> CausalGraph:
    """From ``A[i, j] != 0`` meaning i -> j; both directions set means undirected."""
    A = np.asarray(A) != 0
    n = len(variables)
    if A.shape != (n, n):
        raise DataValidationError(
            f"CausalGraph.from_adjacency: matrix shape {A.shape} does not match {n} variables."
        )
    d, u = [], []
    for i in range(n):
        for j in range(n):
            if i != j and A[i, j]:
                if A[j, i]:
                    if i < j:
                        u.append((i, j))
                else:
                    d.append((i, j))
    return CausalGraph([[v] for v in variables], d, u)


def to_pgmpy(g: CausalGraph):
    """A pgmpy ``DAG`` (all edges directed) or ``PDAG`` (some undirected); singleton graphs only."""
    from pgmpy.base import DAG, PDAG

    _refuse_bidirected(g, "to_pgmpy")
    g = g if g.is_singleton else g.expand()
    d = sorted(g.edge_names())
    if g.is_dag:
        dag = DAG()
        dag.add_nodes_from(g.variables)
        dag.add_edges_from(d)
        return dag
    und = sorted(tuple(sorted(e, key=natural_key)) for e in g.undirected_names())
    pdag = PDAG(directed_ebunch=d, undirected_ebunch=und)
    pdag.add_nodes_from(g.variables)
    return pdag


def from_pgmpy(model, variables: Sequence[str] | None = None) -> CausalGraph:
    """From a pgmpy DAG, PDAG or Bayesian network."""
    vs = [str(v) for v in (variables if variables is not None else model.nodes())]
    if hasattr(model, "undirected_edges") and hasattr(model, "directed_edges"):
        d = [(str(a), str(b)) for a, b in model.directed_edges]
        seen = set()
        u = []
        for a, b in model.undirected_edges:
            key = frozenset((str(a), str(b)))
            if key not in seen:
                seen.add(key)
                u.append((str(a), str(b)))
        return CausalGraph.from_edges(vs, d, u)
    return CausalGraph.from_edges(vs, [(str(a), str(b)) for a, b in model.edges()])


def from_causallearn(graph: Any, variables: Sequence[str]) -> CausalGraph:
    """From a causal-learn ``GeneralGraph`` or its endpoint matrix ``G.graph``.

    causal-learn encodes ``i -> j`` as ``M[j, i] = 1, M[i, j] = -1`` and
    ``i - j`` as ``M[i, j] = M[j, i] = -1`` and ``i <-> j`` as
    ``M[i, j] = M[j, i] = 1`` (which PC emits with ``uc_priority=1``).
    """
    M = np.asarray(getattr(graph, "graph", graph))
    n = len(variables)
    if M.shape != (n, n):
        raise DataValidationError(
            f"CausalGraph.from_causallearn: matrix shape {M.shape} does not match {n} variables."
        )
    d, u, bi, pd_, nd = [], [], [], [], []
    for i in range(n):
        for j in range(i + 1, n):
            a, b = M[i, j], M[j, i]
            if 2 in (a, b) and a != 0 and b != 0:
                if a == 2 and b == 2:
                    nd.append((i, j))
                elif a == 2 and b == 1:
                    pd_.append((i, j))
                elif a == 1 and b == 2:
                    pd_.append((j, i))
                else:
                    raise DataValidationError(
                        f"CausalGraph.from_causallearn: edge {variables[i]} - {variables[j]} has marks "
                        f"({a}, {b}); circle marks are read only as o-> (2, 1) and o-o (2, 2).")
                continue
            if a == 0 and b == 0:
                continue
            if a == -1 and b == 1:
                d.append((i, j))
            elif a == 1 and b == -1:
                d.append((j, i))
            elif a == 1 and b == 1:
                bi.append((i, j))
            else:
                u.append((i, j))
    return CausalGraph([[v] for v in variables], d, u, bi, pd_, nd)


def to_causallearn_matrix(g: CausalGraph, variables: Sequence[str] | None = None) -> np.ndarray:
    """causal-learn's endpoint matrix for a singleton graph (see :meth:`from_causallearn`)."""
    g = g if g.is_singleton else g.expand()
    vs = list(variables) if variables is not None else g.variables
    pos = {v: k for k, v in enumerate(vs)}
    M = np.zeros((len(vs), len(vs)), dtype=int)
    for i, j in g.directed:
        a, b = pos[g.label(i)], pos[g.label(j)]
        M[a, b], M[b, a] = -1, 1
    for edges, mark in ((g.undirected, -1), (g.bidirected, 1), (g.nondirected, 2)):
        for e in edges:
            i, j = sorted(e)
            a, b = pos[g.label(i)], pos[g.label(j)]
            M[a, b] = M[b, a] = mark
    for i, j in g.partially_directed:
        a, b = pos[g.label(i)], pos[g.label(j)]
        M[a, b], M[b, a] = 2, 1
    return M


def to_dot(g: CausalGraph) -> str:
    """Graphviz DOT text; clusters with several variables are drawn as boxes."""
    lines = ["digraph G {", "  node [shape=ellipse];"]
    for i, c in enumerate(g.clusters):
        shape = " shape=box" if len(c) > 1 else ""
        lines.append(f'  n{i} [label="{g.label(i)}"{shape}];')
    for i, j in sorted(g.directed):
        lines.append(f"  n{i} -> n{j};")
    for e in sorted(tuple(sorted(e)) for e in g.undirected):
        lines.append(f"  n{e[0]} -> n{e[1]} [dir=none];")
    for e in sorted(tuple(sorted(e)) for e in g.bidirected):
        lines.append(f"  n{e[0]} -> n{e[1]} [dir=both];")
    for i, j in sorted(g.partially_directed):
        lines.append(f"  n{i} -> n{j} [dir=both arrowtail=odot];")
    for e in sorted(tuple(sorted(e)) for e in g.nondirected):
        lines.append(f"  n{e[0]} -> n{e[1]} [dir=both arrowhead=odot arrowtail=odot];")
    lines.append("}")
    return "\n".join(lines)
