import pickle

import networkx as nx
import numpy as np
import pytest

from macrocause.framework import CausalGraph, DataValidationError


def test_cycle_and_structure_errors():
    with pytest.raises(DataValidationError, match="cycle: a -> b -> c -> a"):
        CausalGraph.from_edges("abc", [("a", "b"), ("b", "c"), ("c", "a")])
    with pytest.raises(DataValidationError, match="disjoint"):
        CausalGraph([["a", "b"], ["b"]])
    with pytest.raises(DataValidationError, match="self-loop"):
        CausalGraph([["a"]], [(0, 0)])
    with pytest.raises(DataValidationError, match="both present"):
        CausalGraph([["a"], ["b"]], [(0, 1), (1, 0)])
    with pytest.raises(DataValidationError, match="both directed and undirected"):
        CausalGraph([["a"], ["b"]], [(0, 1)], [(0, 1)])
    with pytest.raises(DataValidationError, match="outside 0..1"):
        CausalGraph([["a"], ["b"]], [(0, 2)])


def test_cluster_graph_queries_and_expand():
    g = CausalGraph([["x1", "x2"], ["x3"], ["x4"]], [(0, 1)], [(1, 2)])
    assert g.label(0) == "x1,x2" and not g.is_singleton and not g.is_dag
    assert g.parents(1) == [0] and g.neighbours(2) == [1]
    e = g.expand()
    assert e.edge_names() == {("x1", "x3"), ("x2", "x3")}
    assert e.undirected_names() == {frozenset({"x3", "x4"})}
    assert g.topological_order()[0] in (0, 2)


def test_networkx_roundtrip_and_contract_shape():
    g = CausalGraph([["x1", "x2"], ["x3"], ["x4"]], [(0, 1)], [(1, 2)])
    nxg = g.to_networkx()
    assert isinstance(nxg, nx.DiGraph)
    assert nxg.has_edge("x1,x2", "x3") and not nxg.has_edge("x3", "x1,x2")
    assert nxg.has_edge("x3", "x4") and nxg.has_edge("x4", "x3")
    assert CausalGraph.from_networkx(nxg) == g


def test_adjacency_roundtrip():
    g = CausalGraph.from_edges(["a", "b", "c"], [("a", "b")], [("b", "c")])
    A = g.to_adjacency(["a", "b", "c"])
    assert A.tolist() == [[0, 1, 0], [0, 0, 1], [0, 1, 0]]
    assert CausalGraph.from_adjacency(A, ["a", "b", "c"]) == g


def test_pgmpy_roundtrip():
    dag = CausalGraph.from_edges(["a", "b", "c"], [("a", "c"), ("b", "c")])
    assert CausalGraph.from_pgmpy(dag.to_pgmpy()) == dag
    cpdag = CausalGraph.from_edges(["a", "b", "c"], [("a", "c")], [("b", "c")])
    assert CausalGraph.from_pgmpy(cpdag.to_pgmpy()) == cpdag


def test_causallearn_endpoint_encoding_on_a_collider():
    # causal-learn: graph[j, i] = 1 and graph[i, j] = -1 means i --> j.
    from causallearn.graph.Edge import Edge
    from causallearn.graph.Endpoint import Endpoint
    from causallearn.graph.GeneralGraph import GeneralGraph
    from causallearn.graph.GraphNode import GraphNode

    nodes = [GraphNode(n) for n in ("a", "b", "c")]
    G = GeneralGraph(nodes)
    G.add_edge(Edge(nodes[0], nodes[2], Endpoint.TAIL, Endpoint.ARROW))  # a -> c
    G.add_edge(Edge(nodes[1], nodes[2], Endpoint.TAIL, Endpoint.ARROW))  # b -> c
    g = CausalGraph.from_causallearn(G, ["a", "b", "c"])
    assert g.edge_names() == {("a", "c"), ("b", "c")} and not g.undirected
    assert np.array_equal(g.to_causallearn_matrix(["a", "b", "c"]), G.graph)


def test_dot_and_pickle():
    g = CausalGraph([["x1", "x2"], ["x3"]], [(0, 1)])
    dot = g.to_dot()
    assert 'label="x1,x2" shape=box' in dot and "n0 -> n1;" in dot
    assert pickle.loads(pickle.dumps(g)) == g
    assert g == CausalGraph([["x3"], ["x2", "x1"]], [(1, 0)])


def test_bidirected_edges_in_queries_equality_and_conversions():
    g = CausalGraph.from_edges(["a", "b", "c", "d"], [("a", "b")], [("c", "d")], bidirected=[("b", "c")])
    assert g.bidirected_names() == {frozenset({"b", "c"})} and g.undirected_names() == {frozenset({"c", "d"})}
    assert not g.is_dag and frozenset({1, 2}) in g.skeleton()
    assert g != CausalGraph.from_edges(["a", "b", "c", "d"], [("a", "b")], [("c", "d"), ("b", "c")])
    assert "1 bidirected" in repr(g)
    with pytest.raises(DataValidationError, match="both undirected and bidirected"):
        CausalGraph([["a"], ["b"]], undirected=[(0, 1)], bidirected=[(1, 0)])
    with pytest.raises(DataValidationError, match="both directed and bidirected"):
        CausalGraph([["a"], ["b"]], [(0, 1)], bidirected=[(0, 1)])
    assert pickle.loads(pickle.dumps(g)) == g
    nxg = g.to_networkx()
    assert nxg.edges["b", "c"]["bidirected"] and nxg.edges["c", "b"]["bidirected"]
    assert not nxg.edges["c", "d"]["bidirected"] and nxg.edges["c", "d"]["undirected"]
    assert CausalGraph.from_networkx(nxg) == g
    M = g.to_causallearn_matrix(["a", "b", "c", "d"])
    assert M[1, 2] == M[2, 1] == 1 and M[2, 3] == M[3, 2] == -1 and (M[0, 1], M[1, 0]) == (-1, 1)
    assert CausalGraph.from_causallearn(M, ["a", "b", "c", "d"]) == g
    assert "n1 -> n2 [dir=both];" in g.to_dot()
    with pytest.raises(DataValidationError, match="bidirected edge"):
        g.to_adjacency()
    with pytest.raises(DataValidationError, match="bidirected edge"):
        g.to_pgmpy()
    cl = CausalGraph([["x1", "x2"], ["x3"]], bidirected=[(0, 1)])
    assert cl.expand().bidirected_names() == {frozenset({"x1", "x3"}), frozenset({"x2", "x3"})}


def test_causallearn_bidirected_from_a_generalgraph():
    from causallearn.graph.Edge import Edge
    from causallearn.graph.Endpoint import Endpoint
    from causallearn.graph.GeneralGraph import GeneralGraph
    from causallearn.graph.GraphNode import GraphNode

    nodes = [GraphNode(n) for n in ("a", "b")]
    G = GeneralGraph(nodes)
    G.add_edge(Edge(nodes[0], nodes[1], Endpoint.ARROW, Endpoint.ARROW))  # a <-> b
    g = CausalGraph.from_causallearn(G, ["a", "b"])
    assert g.bidirected_names() == {frozenset({"a", "b"})} and not g.directed and not g.undirected
