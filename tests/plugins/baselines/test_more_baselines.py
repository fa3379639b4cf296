"""fci (PAGs against hand-derived answers), grasp and boss (against causal-learn's own output),
direct_lingam (causal order of a known LiNGAM model), and the PAG marks of CausalGraph and the metrics."""

import numpy as np
import pytest

from macrocause.framework import CausalGraph, Dataset, registry
from macrocause.framework.errors import ConfigError, DataValidationError


def _gauss(n=20_000, seed=0):
    rng = np.random.default_rng(seed)
    return rng, (lambda: rng.standard_normal(n))


def test_fci_collider_with_descendant():
    """X -> Z <- Y, Z -> W: X o-> Z <-o Y (the collider), Z -> W by rule R1."""
    _, e = _gauss()
    X, Y = e(), e()
    Z = X + Y + e()
    W = Z + e()
    g = registry.create("fci").search(Dataset(np.c_[X, Y, Z, W], names=["X", "Y", "Z", "W"]))
    assert g.partially_directed_names() == {("X", "Z"), ("Y", "Z")}
    assert g.edge_names() == {("Z", "W")} and not g.bidirected and not g.nondirected and g.is_pag


def test_fci_latent_confounder_is_bidirected():
    """X -> A <- L -> B <- Y with L hidden: X o-> A <-> B <-o Y."""
    _, e = _gauss()
    X, Y, L = e(), e(), e()
    A, B = X + L + e(), Y + L + e()
    g = registry.create("fci").search(Dataset(np.c_[X, A, B, Y], names=["X", "A", "B", "Y"]))
    assert g.bidirected_names() == {frozenset({"A", "B"})}
    assert g.partially_directed_names() == {("X", "A"), ("Y", "B")} and not g.directed


def test_fci_discriminating_path():
    """A -> B <- L -> C, B -> D <- C, L hidden. <A, B, C, D> discriminates C: C is in the separating
    set of A and D, so rule R4 gives C -> D; without it (max_path_length=0) C o-> D stays."""
    _, e = _gauss()
    L, A = e(), e()
    B = 0.8 * A + 0.8 * L + e()
    C = 0.8 * L + e()
    D = 0.8 * B + 0.8 * C + e()
    ds = Dataset(np.c_[A, B, C, D], names=list("ABCD"))
    g = registry.create("fci").search(ds)
    assert g.edge_names() == {("B", "D"), ("C", "D")}
    assert g.partially_directed_names() == {("A", "B"), ("C", "B")}
    short = registry.create("fci", max_path_length=0).search(ds)
    assert short.edge_names() == {("B", "D")} and ("C", "D") in short.partially_directed_names()


def test_pag_conversions_round_trip():
    g = CausalGraph.from_edges(list("abcde"), directed=[("c", "d")], bidirected=[("a", "b")],
                               partially_directed=[("e", "c")], nondirected=[("a", "e")])
    M = g.to_causallearn_matrix(list("abcde"))
    assert M[4, 2] == 2 and M[2, 4] == 1 and M[0, 4] == M[4, 0] == 2 and M[0, 1] == M[1, 0] == 1
    assert CausalGraph.from_causallearn(M, list("abcde")) == g
    assert CausalGraph.from_networkx(g.to_networkx()) == g
    assert "arrowtail=odot" in g.to_dot()
    import pickle

    assert pickle.loads(pickle.dumps(g)) == g
    with pytest.raises(DataValidationError, match="PAG"):
        g.to_adjacency()
    with pytest.raises(DataValidationError, match="one mark per pair"):
        CausalGraph.from_edges(list("ab"), directed=[("a", "b")], partially_directed=[("b", "a")])


def test_shd_and_f1_compare_endpoint_marks():
    truth = CausalGraph.from_edges(list("abcd"), directed=[("a", "c"), ("b", "c"), ("c", "d")])
    pag = CausalGraph.from_edges(list("abcd"), directed=[("c", "d")],
                                 partially_directed=[("a", "c"), ("b", "c")])
    ev = registry.create("shd").evaluate(Dataset(np.zeros((3, 4)), names=list("abcd")), pag, truth)
    assert ev.value == 2 and ev.metrics["orientation"] == 2  # o-> is not ->
    assert registry.create("shd").evaluate(Dataset(np.zeros((3, 4)), names=list("abcd")), pag, pag).value == 0
    f1 = registry.create("edge_f1").evaluate(Dataset(np.zeros((3, 4)), names=list("abcd")), pag, truth)
    assert f1.metrics["skeleton_f1"] == 1.0 and f1.metrics["directed_f1"] == pytest.approx(1 / 3)


@pytest.mark.parametrize("name", ["grasp", "boss"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_permutation_searches_equal_causal_learns_own_call(name, seed):
    """Our bic differs from causal-learn's Gaussian BIC (lambda 0.5) by a constant per variable, so the
    search through our scorer takes the same decisions as causal-learn's own call."""
    ds = registry.load_data("linear_gaussian", n_variables=8, n_samples=1000, edge_prob=0.3, seed=seed)
    ours = registry.create(name, seed=seed).search(ds, scorer="bic")
    theirs = registry.create(name, seed=seed, backend="causal-learn").search(ds)
    assert ours == theirs
    import random

    from causallearn.search.PermutationBased import BOSS, GRaSP

    random.seed(seed)
    fn = GRaSP.grasp if name == "grasp" else BOSS.boss
    G = fn(np.asarray(ds.X), score_func="local_score_BIC_from_cov", parameters={"lambda_value": 0.5},
           verbose=False)
    assert CausalGraph.from_causallearn(G.graph, ds.names) == ours


def test_boss_discrete_through_our_bic_recovers_asia_skeleton_mostly():
    ds = registry.load_data("bnlearn", network="asia", n_samples=5000, seed=0)
    g = registry.create("boss").search(ds, scorer="bic")
    f1 = registry.create("edge_f1", kind="skeleton").evaluate(ds, g, ds.truth["cpdag"]).value
    assert f1 >= 0.8


def test_direct_lingam_finds_the_causal_order():
    """x1 -> x2 -> x0 with uniform noise: the order is x1, x2, x0 and the edges those two."""
    rng = np.random.default_rng(0)
    n = 3000
    x1 = rng.uniform(-1, 1, n)
    x2 = 2.0 * x1 + rng.uniform(-1, 1, n)
    x0 = -1.5 * x2 + rng.uniform(-1, 1, n)
    lingam = registry.create("direct_lingam")
    g = lingam.search(Dataset(np.c_[x0, x1, x2], names=["x0", "x1", "x2"]))
    assert lingam.last_info["causal_order"] == ["x1", "x2", "x0"]
    assert g.edge_names() == {("x1", "x2"), ("x2", "x0")}
    assert lingam.last_info["adjacency"][2, 1] == pytest.approx(2.0, abs=0.1)


def test_parameters_are_validated():
    with pytest.raises(ConfigError, match="alpha"):
        registry.create("fci", alpha=1.5)
    with pytest.raises(ConfigError, match="depth"):
        registry.create("grasp", depth=0)
    with pytest.raises(ConfigError, match="backend"):
        registry.create("boss", backend="tetrad")
    with pytest.raises(ConfigError, match="measure"):
        registry.create("direct_lingam", measure="ica")
    ds = registry.load_data("linear_gaussian", n_variables=4, n_samples=50, seed=0)
    with pytest.raises(DataValidationError, match="discrete"):
        registry.create("fci", indep_test="chisq").search(ds)
