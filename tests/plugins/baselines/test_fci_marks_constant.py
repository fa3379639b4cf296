"""fci on causal-learn marks CausalGraph cannot hold (circle-tail, directed cycles: hand-built endpoint
matrices) and fci, boss, grasp on constant columns (isolated nodes, the rest as without them)."""

import numpy as np
import pytest

from macrocause.framework import CausalGraph, Dataset, registry
from macrocause.plugins.baselines.fci import readable_pag


def _marks():
    """a o-- b (circle at a, tail at b), b -> c -> d -> b (a cycle), a -> e, e o-> d. M[x, y] = mark at x."""
    M = np.zeros((5, 5), int)
    M[0, 1], M[1, 0] = 2, -1
    for i, j in [(1, 2), (2, 3), (3, 1), (0, 4)]:
        M[i, j], M[j, i] = -1, 1
    M[4, 3], M[3, 4] = 2, 1
    return M


def test_readable_pag_turns_circle_tail_and_cycle_edges_into_circles():
    M, conflicts, circle_tail = readable_pag(_marks())
    assert sorted(conflicts) == [(1, 2), (2, 3), (3, 1)] and circle_tail == [(0, 1)]
    g = CausalGraph.from_causallearn(M, list("abcde"))
    assert g == CausalGraph.from_edges(list("abcde"), directed=[("a", "e")], partially_directed=[("e", "d")],
                                       nondirected=[("a", "b"), ("b", "c"), ("c", "d"), ("b", "d")])


def test_fci_warns_and_lists_the_edges_it_changed(monkeypatch):
    import causallearn.search.ConstraintBased.FCI as FCI

    class G:
        graph = _marks()

    monkeypatch.setattr(FCI, "fci", lambda *a, **k: (G, []))
    fci = registry.create("fci")
    ds = Dataset(np.random.default_rng(0).standard_normal((50, 5)), names=list("abcde"))
    with pytest.warns(UserWarning, match=r"circle-tail edges .*\('a', 'b'\)"), \
            pytest.warns(UserWarning, match="on a cycle returned o-o"):
        g = fci.search(ds)
    assert g.nondirected_names() == {frozenset(p) for p in ["ab", "bc", "cd", "bd"]}
    assert fci.last_info["circle_tail"] == [("a", "b")]
    assert sorted(fci.last_info["conflicts"]) == [("b", "c"), ("c", "d"), ("d", "b")]


@pytest.mark.parametrize("name", ["fci", "boss", "grasp"])
def test_constant_column_is_an_isolated_node_and_the_rest_as_without_it(name):
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((2, 2000))
    c = a + b + 0.5 * rng.standard_normal(2000)
    ds = Dataset(np.column_stack([a, np.full(2000, 3.0), b, c]), names=["a", "k", "b", "c"])
    with pytest.warns(UserWarning, match=r"constant columns \['k'\].*isolated"):
        g = registry.create(name).search(ds)
    ref = registry.create(name).search(ds.select(["a", "b", "c"]))
    assert g.variables == ["a", "b", "c", "k"]
    marks = lambda h: (h.edge_names(), h.undirected_names(), h.bidirected_names(),  # noqa: E731
                       h.partially_directed_names(), h.nondirected_names())
    assert marks(g) == marks(ref)
    if name == "fci":  # the collider a -> c <- b: a o-> c <-o b
        assert g.partially_directed_names() == {("a", "c"), ("b", "c")} and not g.directed
    else:
        assert g.edge_names() == {("a", "c"), ("b", "c")} and not g.undirected
    with pytest.warns(UserWarning):
        assert registry.create(name).search(ds.select(["a", "k"])) == CausalGraph.empty(["a", "k"])
