"""SHD and edge F1 against hand-counted answers, on DAGs, CPDAGs and cluster DAGs."""

import numpy as np
import pytest

from macrocause.framework import CausalGraph, Dataset, registry
from macrocause.framework.errors import DataValidationError

V = ["a", "b", "c", "d"]
DS = Dataset(np.random.default_rng(0).standard_normal((10, 4)), names=V)
TRUTH = CausalGraph.from_edges(V, [("a", "b"), ("b", "c"), ("c", "d")])


def shd(result, truth=TRUTH, **kw):
    return registry.create("shd", **kw).evaluate(DS, result, truth)


def f1(result, truth=TRUTH, **kw):
    return registry.create("edge_f1", **kw).evaluate(DS, result, truth)


def test_shd_one_reversed_one_missing_is_two():
    est = CausalGraph.from_edges(V, [("b", "a"), ("b", "c")])  # a->b reversed, c->d missing
    ev = shd(est)
    assert ev.value == 2
    assert ev.metrics["reversed"] == 1 and ev.metrics["missing"] == 1 and ev.metrics["extra"] == 0


def test_shd_counts_each_differing_pair_once():
    assert shd(TRUTH).value == 0
    # undirected where the truth is directed: 1 per pair
    est = CausalGraph.from_edges(V, [("c", "d")], [("a", "b"), ("b", "c")])
    ev = shd(est)
    assert ev.value == 2 and ev.metrics["orientation"] == 2
    # an extra edge
    est = CausalGraph.from_edges(V, [("a", "b"), ("b", "c"), ("c", "d"), ("a", "d")])
    assert shd(est).value == 1 and shd(est).metrics["extra"] == 1
    # the empty graph misses all three
    assert shd(CausalGraph.empty(V)).value == 3
    assert registry.get("shd").higher_is_better is False


def test_shd_between_cpdags():
    truth = CausalGraph.from_edges(V, [("a", "c"), ("b", "c")], [("c", "d")])  # not a real CPDAG; marks only
    est = CausalGraph.from_edges(V, [("a", "c"), ("c", "d")], [("b", "c")])
    # pair b-c: directed vs undirected (1); pair c-d: undirected vs directed (1)
    assert shd(est, truth).value == 2


def test_edge_f1_by_hand():
    # estimate: a->b (right), c->b (reversed), a->d (extra); truth: a->b, b->c, c->d
    est = CausalGraph.from_edges(V, [("a", "b"), ("c", "b"), ("a", "d")])
    ev = f1(est)
    # directed: TP = 1, 3 estimated, 3 true -> P = R = 1/3, F1 = 1/3
    assert ev.value == pytest.approx(1 / 3)
    assert ev.metrics["directed_precision"] == pytest.approx(1 / 3)
    # skeleton: TP = 2 -> P = R = F1 = 2/3
    assert ev.metrics["skeleton_f1"] == pytest.approx(2 / 3)
    assert f1(est, kind="skeleton").value == pytest.approx(2 / 3)
    # an undirected edge is right only if the truth has it undirected too
    est2 = CausalGraph.from_edges(V, [("a", "b")], [("b", "c")])
    ev2 = f1(est2)
    # TP = 1 of 2 estimated, 3 true: P = 1/2, R = 1/3, F1 = 2*1/(2+3) = 0.4
    assert (ev2.metrics["directed_precision"], ev2.metrics["directed_recall"], ev2.value) == pytest.approx(
        (0.5, 1 / 3, 0.4)
    )


def test_edge_f1_empty_graphs():
    assert f1(CausalGraph.empty(V), CausalGraph.empty(V)).value == 1.0
    assert f1(CausalGraph.empty(V)).value == 0.0


# cluster DAGs: {a,b} -> {c} and {c} -> {d}
CL_TRUTH = CausalGraph.from_cluster_edges([{"a", "b"}, {"c"}, {"d"}], [({"a", "b"}, {"c"}), ({"c"}, {"d"})])


def test_cluster_graph_variables_level_uses_expansion():
    # expanded truth: a->c, b->c, c->d. Estimate over singletons: a->c, c->d, d->b
    est = CausalGraph.from_edges(V, [("a", "c"), ("c", "d"), ("d", "b")])
    ev = shd(est, CL_TRUTH)  # missing b->c, extra d->b (pair b-d)
    assert ev.value == 2 and ev.metrics["missing"] == 1 and ev.metrics["extra"] == 1
    # a cluster estimate is expanded too: {a,b,c} -> {d} gives a->d, b->d, c->d
    est_cl = CausalGraph.from_cluster_edges([{"a", "b", "c"}, {"d"}], [({"a", "b", "c"}, {"d"})])
    # pairs: a-c, b-c missing; a-d, b-d extra; c-d right -> 4
    assert shd(est_cl, CL_TRUTH).value == 4
    assert f1(est_cl, CL_TRUTH).value == pytest.approx(2 * 1 / (3 + 3))


def test_cluster_graph_clusters_level():
    assert shd(CL_TRUTH, CL_TRUTH, level="clusters").value == 0
    reversed_ = CausalGraph.from_cluster_edges([{"a", "b"}, {"c"}, {"d"}], [({"c"}, {"a", "b"}), ({"c"}, {"d"})])
    assert shd(reversed_, CL_TRUTH, level="clusters").value == 1
    assert shd(reversed_, CL_TRUTH, level="variables").value == 2  # a-c and b-c both reversed
    # other clusters: {a}, {b,c}, {d} with {a} -> {b,c} -> {d}; no node is shared except {d}:
    # estimate pairs ({a},{b,c}), ({b,c},{d}) are extra; truth pairs ({a,b},{c}), ({c},{d}) missing
    other = CausalGraph.from_cluster_edges([{"a"}, {"b", "c"}, {"d"}], [({"a"}, {"b", "c"}), ({"b", "c"}, {"d"})])
    ev = shd(other, CL_TRUTH, level="clusters")
    assert ev.value == 4 and ev.metrics["extra"] == 2 and ev.metrics["missing"] == 2
    assert f1(other, CL_TRUTH, level="clusters").value == 0.0


def test_only_shared_variables_are_compared():
    # an augmented macro-variable K has no truth: its edges are left out
    est = CausalGraph.from_edges([*V, "K"], [("a", "b"), ("b", "c"), ("c", "d"), ("K", "a")])
    ev = shd(est)
    assert ev.value == 0 and ev.metrics["n_variables"] == 4
    with pytest.raises(DataValidationError, match="share no variables"):
        shd(CausalGraph.empty(["p", "q"]))


def test_graph_metrics_need_a_true_graph():
    with pytest.raises(DataValidationError, match="truth"):
        registry.create("shd").evaluate(DS, TRUTH)
    from macrocause.framework import Partition

    with pytest.raises(DataValidationError, match="rates a graph"):
        registry.create("shd").evaluate(DS, Partition(np.zeros(10, dtype=int)), TRUTH)


def test_cluster_ari_hand_computed():
    """Truth {a,b},{c},{d}; result {a,b,c},{d}. Pairs: sum C(n_ij,2) = C(2,2) = 1; rows C(3,2) = 3;
    columns C(2,2) = 1; C(4,2) = 6; expected 3*1/6 = 0.5; max (3+1)/2 = 2; ARI = 0.5/1.5 = 1/3.
    The one true cluster of two or more, {a,b}, is not found."""
    ds = Dataset(np.zeros((3, 4)), names=list("abcd"))
    truth = CausalGraph([["a", "b"], ["c"], ["d"]], [(0, 1)])
    ev = registry.create("cluster_ari").evaluate(ds, CausalGraph([["a", "b", "c"], ["d"]], [(0, 1)]), truth)
    assert ev.value == pytest.approx(1 / 3)
    assert ev.metrics["clusters_found"] == 0.0 and ev.metrics["n_variables"] == 4
    same = registry.create("cluster_ari").evaluate(ds, CausalGraph([["b", "a"], ["d"], ["c"]], []), truth)
    assert same.value == pytest.approx(1.0) and same.metrics["clusters_found"] == 1.0
    plain = registry.create("cluster_ari").evaluate(ds, CausalGraph.empty(list("abcd")), truth)
    assert plain.value == pytest.approx(0.0)


def test_bidirected_marks_by_hand():
    # truth a->b->c->d; estimate a->b, b<->c, c-d: pairs b-c and c-d have other marks (2)
    est = CausalGraph.from_edges(V, [("a", "b")], [("c", "d")], bidirected=[("b", "c")])
    ev = shd(est)
    assert ev.value == 2 and ev.metrics["orientation"] == 2
    # a bidirected edge is right only against a bidirected edge: TP = 1 (b<->c) of 2 and 2
    truth = CausalGraph.from_edges(V, [("a", "b")], bidirected=[("b", "c")])
    assert shd(est, truth).value == 1
    assert f1(est, truth).value == pytest.approx(2 * 2 / (3 + 2))
