"""Built-in data sources: the shipped Sachs data and graphs, the simulators, the CSV loader."""

from pathlib import Path

import numpy as np
import pytest

from macrocause.framework import CausalGraph, Partition, registry
from macrocause.framework.errors import ConfigError, DataValidationError

SHARED = Path(__file__).resolve().parents[3].parent / "shared" / "data" / "sachs"


def test_sachs_shapes_and_ground_truths():
    ds = registry.load_data("sachs")
    assert ds.shape == (7466, 11) and ds.is_continuous
    assert ds.names == ("Raf", "Mek", "Plcg", "PIP2", "PIP3", "Erk", "Akt", "PKA", "PKC", "P38", "Jnk")
    t = ds.truth
    assert len(t["consensus20"].directed) == 20 and not t["consensus20"].undirected
    assert len(t["bnlearn17"].directed) == 17
    # cdt18's cycle PIP2 -> PIP3 -> Plcg -> PIP2 is kept unoriented
    assert len(t["cdt18"].directed) == 15
    assert t["cdt18"].undirected_names() == {
        frozenset({"PIP2", "PIP3"}), frozenset({"PIP3", "Plcg"}), frozenset({"Plcg", "PIP2"})
    }
    assert t["graph"] is t["consensus20"]
    # differences stated in the data README
    c, b = t["consensus20"].edge_names(), t["bnlearn17"].edge_names()
    assert c - b == {("PIP2", "PKC"), ("PIP3", "Akt"), ("PIP3", "Plcg"), ("Plcg", "PKC")}
    assert b - c == {("Plcg", "PIP3")}
    cond = t["conditions"]
    assert isinstance(cond, Partition) and cond.n_clusters == 9
    assert sorted(np.bincount(cond.labels).tolist()) == sorted([853, 902, 911, 723, 810, 799, 848, 913, 707])
    assert np.unique(cond.labels[:853]).size == 1


def test_sachs_subset_and_log():
    small = registry.load_data("sachs", subset="cd3cd28")
    full = registry.load_data("sachs")
    assert small.shape == (853, 11)
    assert np.array_equal(small.X, full.X[:853])
    logged = registry.load_data("sachs", subset="cd3cd28", log=True)
    assert np.allclose(logged.X, np.log(small.X))
    with pytest.raises(ConfigError, match="subset"):
        registry.create("sachs", subset="pma")


def test_shipped_sachs_files_equal_the_shared_data():
    if not SHARED.is_dir():
        pytest.skip("../shared/data/sachs not present")
    from macrocause.plugins.datasets.sachs import DATA_DIR

    for f in SHARED.glob("*.csv"):
        assert (DATA_DIR / f.name).read_bytes() == f.read_bytes(), f.name
    assert (DATA_DIR / "README.md").is_file()


def test_linear_gaussian_is_seeded_and_follows_its_dag():
    a = registry.load_data("linear_gaussian", n_variables=6, n_samples=4000, edge_prob=0.5, seed=3)
    b = registry.load_data("linear_gaussian", n_variables=6, n_samples=4000, edge_prob=0.5, seed=3)
    c = registry.load_data("linear_gaussian", n_variables=6, n_samples=4000, edge_prob=0.5, seed=4)
    assert a == b and a.truth["graph"] == b.truth["graph"] and a != c
    g = a.truth["graph"]
    assert g.is_dag and g.directed
    # regress each variable on all the others before it in a topological order:
    # coefficients vanish exactly for non-parents, residual variance is noise_std^2 = 1
    order = g.topological_order()
    for pos, j in enumerate(order[1:], start=1):
        prev = order[:pos]
        coef, *_ = np.linalg.lstsq(a.X[:, prev], a.X[:, j], rcond=None)
        parents = set(g.parents(j))
        for i, w in zip(prev, coef):
            if i in parents:
                assert abs(w) > 0.3
            else:
                assert abs(w) < 0.1
        resid = a.X[:, j] - a.X[:, prev] @ coef
        assert resid.var() == pytest.approx(1.0, abs=0.1)
    assert a.truth["cpdag"].skeleton() == g.skeleton()


def test_discrete_bn_states_parents_and_seed():
    for card, states in (("binary", {2}), ("ternary", {3}), ("mixed", {2, 3})):
        ds = registry.load_data("discrete_bn", n_variables=8, n_samples=3000, cardinality=card, seed=1)
        assert ds.is_discrete
        k = {int(ds.X[:, j].max()) + 1 for j in range(8)}
        assert k <= states and ds.X.min() == 0
    ds = registry.load_data("discrete_bn", n_variables=8, edge_prob=1.0, max_parents=2, seed=0)
    g = ds.truth["graph"]
    assert max(len(g.parents(i)) for i in range(g.n_nodes)) == 2
    assert registry.load_data("discrete_bn", seed=5) == registry.load_data("discrete_bn", seed=5)


def test_discrete_bn_root_marginals_match_sampling():
    # a variable without parents has one Dirichlet-drawn table; 20000 draws estimate it well,
    # and two variables not joined by a path are independent (chi-square test).
    from scipy.stats import chi2_contingency

    ds = registry.load_data("discrete_bn", n_variables=5, n_samples=20000, edge_prob=0.0, seed=2)
    assert not ds.truth["graph"].directed
    for i in range(4):
        table = np.histogram2d(ds.X[:, i], ds.X[:, i + 1], bins=[3, 3])[0]
        table = table[table.sum(1) > 0][:, table.sum(0) > 0]
        assert chi2_contingency(table).pvalue > 1e-3


def test_csv_source(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,b,y\n1,0.5,u\n2,1.5,v\n3,2.5,u\n")
    ds = registry.load_data("csv", path=str(path), target="y")
    assert ds.names == ("a", "b") and ds.discrete == (True, False)
    assert ds.target.tolist() == ["u", "v", "u"]
    with pytest.raises(DataValidationError, match="not found"):
        registry.load_data("csv", path=str(tmp_path / "missing.csv"))
    with pytest.raises(ConfigError, match="path"):
        registry.create("csv")


def test_quickstart_composition_runs():
    ds = registry.load_data("discrete_bn", n_variables=6, n_samples=2000)
    truth = ds.truth["graph"]
    for searcher in ("pc", "hill_climb"):
        g = registry.create(searcher).search(ds)
        assert isinstance(g, CausalGraph) and set(g.variables) == set(ds.names)
        assert registry.create("edge_f1", kind="skeleton").evaluate(ds, g, truth).value > 0.7
    k = registry.create("kmeans", n_clusters=2).partition(ds)
    g = registry.create("pc").search(ds.with_column("K", k.labels))
    assert "K" in g.variables
    assert registry.create("shd").evaluate(ds, g, truth).metrics["n_variables"] == 6
