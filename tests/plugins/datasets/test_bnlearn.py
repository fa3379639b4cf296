"""The bnlearn source against pgmpy's own models of the same bundled files."""

import warnings

import numpy as np
import pytest

from macrocause.framework import CausalGraph, registry
from macrocause.framework.errors import ConfigError
from macrocause.plugins.datasets.bif import read_network
from macrocause.plugins.datasets.networks import DISCRETE, GAUSSIAN, sample_discrete


def pgmpy_model(name):
    from pgmpy.utils import get_example_model

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return get_example_model(name)


@pytest.mark.parametrize("name", ["asia", "sachs", "alarm", "ecoli70"])
def test_edges_equal_pgmpy(name):
    ds = registry.load_data("bnlearn", network=name, n_samples=10)
    m = pgmpy_model(name)
    assert set(ds.names) == set(m.nodes())
    assert ds.truth["graph"].edge_names() == set(m.edges())
    assert ds.is_discrete == (name != "ecoli70")


def test_alarm_tables_equal_pgmpy():
    net, m = read_network("alarm"), pgmpy_model("alarm")
    for j, v in enumerate(net.names):
        cpd = m.get_cpds(v)
        order = [net.names[p] for p in net.parents[j]]
        assert cpd.state_names[v] == net.states[j]
        vals = np.transpose(cpd.values, [0] + [1 + cpd.variables[1:].index(o) for o in order])
        np.testing.assert_allclose(vals.reshape(vals.shape[0], -1).T, net.cpts[j], atol=1e-9)


def test_cpd_frequencies_within_five_standard_errors():
    """Every conditional frequency of 100,000 asia samples is within 5 s.e. of its table entry."""
    net = read_network("asia")
    n = 100_000
    X = sample_discrete(net, n, np.random.default_rng(1))
    for j in range(len(net.names)):
        config = np.zeros(n, dtype=np.int64)
        for p in net.parents[j]:
            config = config * len(net.states[p]) + X[:, p]
        for c, row in enumerate(net.cpts[j]):
            rows = X[config == c, j]
            if rows.size < 100:
                continue
            freq = np.bincount(rows, minlength=row.size) / rows.size
            se = np.sqrt(np.maximum(row * (1 - row), 1e-12) / rows.size)
            assert np.all(np.abs(freq - row) <= 5 * se + 1e-12), (net.names[j], c, freq, row)


def test_asia_cpdag_by_hand():
    ds = registry.load_data("bnlearn", network="asia", n_samples=5)
    cp = ds.truth["cpdag"]
    # v-structures tub -> either <- lung and bronc -> dysp <- either; either -> xray by Meek's rule 1
    assert cp.edge_names() == {("tub", "either"), ("lung", "either"), ("either", "xray"),
                               ("either", "dysp"), ("bronc", "dysp")}
    assert cp.undirected_names() == {frozenset(p) for p in [("asia", "tub"), ("smoke", "lung"),
                                                             ("smoke", "bronc")]}
    assert ds.truth["states"]["asia"] == ["yes", "no"]


def test_gaussian_moments():
    """ecoli70's sample covariance matches the implied one, (I - B)^-T D (I - B)^-1."""
    net = read_network("ecoli70")
    ds = registry.load_data("bnlearn", network="ecoli70", n_samples=200_000, seed=3)
    d = len(net.names)
    B = np.zeros((d, d))
    for j, pa in enumerate(net.parents):
        B[pa, j] = net.coef[j]
    inv = np.linalg.inv(np.eye(d) - B)
    implied = inv.T @ np.diag(net.variance) @ inv
    mean = np.linalg.solve((np.eye(d) - B).T, net.intercept)
    np.testing.assert_allclose(ds.X.mean(axis=0), mean, atol=0.02 * np.sqrt(np.diag(implied)).max() + 0.01)
    np.testing.assert_allclose(np.cov(ds.X.T), implied, atol=0.03 * np.abs(implied).max())


def test_seeded_and_every_network_listed():
    a = registry.load_data("bnlearn", network="child", n_samples=300, seed=4)
    b = registry.load_data("bnlearn", network="child", n_samples=300, seed=4)
    c = registry.load_data("bnlearn", network="child", n_samples=300, seed=5)
    assert np.array_equal(a.X, b.X) and not np.array_equal(a.X, c.X)
    assert isinstance(a.truth["cpdag"], CausalGraph)
    assert len(DISCRETE) == 24 and len(GAUSSIAN) == 4
    for name in DISCRETE + GAUSSIAN:  # every bundled file is there (read lazily by the source)
        from macrocause.plugins.datasets.bif import models_dir

        assert any((models_dir() / f"{name}{ext}").exists() for ext in (".bif.gz", ".json"))


def test_unknown_network_is_a_clear_error():
    with pytest.raises(ConfigError, match="network"):
        registry.load_data("bnlearn", network="nope")
