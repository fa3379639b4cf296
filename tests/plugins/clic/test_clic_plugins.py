"""CLIC partitioner, rank estimate, evaluators, data sources: known answers and errors."""

import numpy as np
import pytest

from macrocause.framework import Dataset, Partition, registry
from macrocause.framework.errors import DataValidationError
from macrocause.plugins.clic.rank import estimate_rank, ratio_rank, splits
from macrocause.plugins.clic.simulate import product_mixture


def test_splits_count():
    for d in (2, 3, 5):
        assert len(splits(d)) == 2 ** (d - 1) - 1


def test_ratio_rule_hand_case():
    s = np.array([10.0, 9.0, 0.2, 0.15, 0.12, 0.1, 0.08, 0.07])
    assert ratio_rank(s, float(np.sum(s * s))) == 2


@pytest.mark.parametrize("m,d", [(2, 3), (3, 3), (2, 2)])
def test_rank_estimate_on_product_mixtures(m, d):
    hits = sum(estimate_rank(product_mixture(m, d, 150, s)[0]).rank == m for s in range(3))
    assert hits >= 2


def test_direct_link_gives_higher_rank():
    ds = registry.load_data("clic_sim_link", n_components=1, n_per_component=200)
    assert estimate_rank(ds.X).rank >= 3


def test_clic_recovers_separated_components_and_is_deterministic():
    X, z = product_mixture(2, 3, 100, 5)
    X[z == 1] += 3.0
    clic = registry.create("clic", n_components=2, seed=3)
    a = clic.partition(X)
    b = registry.create("clic", n_components=2, seed=3).partition(X)
    assert a == b
    agree = np.mean(a.labels == z)
    assert max(agree, 1 - agree) > 0.9
    assert a.info["rank"] == 2 and a.info["independent"] is True and a.info["status"] == "ok"
    assert len(a.info["pvalues"]) == 2


def test_clic_auto_and_unable_status():
    X, z = product_mixture(2, 2, 60, 0)
    p = registry.create("clic", n_components="auto", max_iter=2).partition(X)
    assert p.info["rank_source"] == "estimated" and p.info["rank"] >= 1
    rng = np.random.default_rng(0)
    x = rng.standard_normal(120)
    dep = np.column_stack([x, x + 0.05 * rng.standard_normal(120)])
    q = registry.create("clic", n_components=2, max_iter=1).partition(dep)
    assert q.info["independent"] is False
    assert q.info["status"] == "unable to find appropriate clusters"


def test_clic_errors():
    clic = registry.create("clic", n_components=3)
    with pytest.raises(DataValidationError, match="at least 2 variables"):
        clic.partition(np.random.default_rng(0).standard_normal((100, 1)))
    with pytest.raises(DataValidationError, match="samples"):
        clic.partition(np.random.default_rng(0).standard_normal((20, 2)))
    X = np.random.default_rng(0).standard_normal((100, 2))
    X[3, 1] = np.nan
    with pytest.raises(DataValidationError, match="NaN"):
        clic.partition(X)
    with pytest.raises(ValueError, match="n_components"):
        registry.create("clic", n_components="many")
    with pytest.raises(DataValidationError, match="at least 2 variables"):
        registry.create("kernel_rank").evaluate(np.zeros((50, 1)) + np.arange(50)[:, None], Partition(np.zeros(50, int)))


def test_kernel_rank_evaluator_reads_confounder():
    ds = registry.load_data("clic_sim", n_components=2, n_variables=3, n_per_component=150, seed=1)
    kr = registry.create("kernel_rank")
    ev = kr.evaluate(ds, Partition(np.zeros(ds.n_samples, int)))
    assert ev.value == 2
    assert ev.metrics["confounder_confidence"] == 1.0
    assert "confounder" in kr.reading(ds)


def test_kernel_rank_needs_no_partition_and_says_not_identifiable_for_two_variables():
    ds = registry.load_data("clic_sim", n_components=2, n_variables=2, n_per_component=60, seed=0)
    kr = registry.create("kernel_rank")
    ev = kr.evaluate(ds)
    assert ev.metrics == pytest.approx(kr.evaluate(ds, Partition(np.zeros(ds.n_samples, int))).metrics,
                                       nan_ok=True)
    assert ev.metrics["identifiable"] == 0.0 and np.isnan(ev.metrics["confounder_confidence"])
    assert ev.reading.startswith("not identifiable (d = 2)") and ev.reading == kr.reading(ds)
    ev3 = kr.evaluate(registry.load_data("clic_sim", n_components=2, n_variables=3, n_per_component=60, seed=0))
    assert ev3.metrics["identifiable"] == 1.0 and ev3.metrics["confounder_confidence"] in (0.0, 0.5, 1.0)
    assert "not identifiable" not in ev3.reading


def test_mmd_matching_is_zero_for_truth_and_permutation_invariant():
    X, z = product_mixture(3, 2, 40, 0)
    ds = Dataset(X)
    ev = registry.create("mmd_matching")
    assert ev.evaluate(ds, Partition(z), Partition(z)).value == pytest.approx(0.0, abs=1e-12)
    perm = np.array([2, 0, 1])[z]
    assert ev.evaluate(ds, Partition(perm), Partition(z)).value == pytest.approx(0.0, abs=1e-12)
    rnd = np.random.default_rng(99).integers(0, 3, len(z))
    assert ev.evaluate(ds, Partition(rnd), Partition(z)).value > 0.01


def test_npem_separates_clear_mixture():
    X, z = product_mixture(2, 3, 80, 2)
    X[z == 1] += 4.0
    lab = registry.create("npem", n_components=2, seed=0).partition(X).labels
    agree = np.mean(lab == z)
    assert max(agree, 1 - agree) > 0.95


def test_data_sources():
    ds = registry.load_data("clic_sim", n_components=3, n_variables=5, n_per_component=10)
    assert ds.shape == (30, 5) and ds.truth["labels"].n_clusters == 3
    w = registry.load_data("wdbc")
    assert w.shape == (569, 3) and w.names[0] == "mean_perimeter"
    assert np.bincount(w.truth["labels"].labels).tolist() == [212, 357]
    with pytest.raises(DataValidationError, match="unknown feature"):
        registry.load_data("wdbc", features=["nope"])


def test_composition_pc_explains_dependence_by_clic_labels():
    pytest.importorskip("causallearn")
    if "pc" not in registry.names("searcher"):
        pytest.skip("pc not registered")
    X, z = product_mixture(2, 3, 150, 5)
    X[z == 1] += 3.0
    ds = Dataset(X, names=["X1", "X2", "X3"], discrete=False)
    part = registry.create("clic", n_components=2, seed=0).partition(ds)
    assert len(registry.create("pc", alpha=0.01).search(ds).undirected) == 3
    g = registry.create("pc", alpha=0.01).search(ds.with_column("Z", part.labels))
    edges = {frozenset(g.clusters[i] | g.clusters[j]) for i, j in g.directed} | {
        frozenset(g.clusters[i] | g.clusters[j]) for i, j in (tuple(e) for e in g.undirected)}
    among_x = [e for e in edges if "Z" not in e]
    assert len(among_x) <= 1


@pytest.mark.parametrize("rank, vote, conf", [(1, 1.0, 0.0), (2, 1.0, 1.0), (4, 1.0, 1.0), (5, 1.0, 0.0),
                                              (3, 2 / 3, 0.5), (3, 0.5, 0.5)])
def test_kernel_rank_calibrated_rule(monkeypatch, rank, vote, conf):
    from macrocause.plugins.clic import evaluators
    from macrocause.plugins.clic import rank as rank_module

    est = rank_module.RankEstimate(rank, (rank,) * 3, vote, np.ones(3))
    monkeypatch.setattr(rank_module, "estimate_rank", lambda *a, **k: est)
    monkeypatch.setattr(evaluators, "_STATS", {})  # the statistics of this data are cached per process
    X, _ = product_mixture(2, 3, 60, 0)  # all pairs dependent
    ev = registry.create("kernel_rank").evaluate(Dataset(X))
    assert ev.metrics["pairwise_dependent"] == 1.0 and ev.metrics["confounder_confidence"] == conf
    assert ("direct causal links are the likely explanation" in ev.reading) == (rank == 1)


def test_kernel_rank_readings_share_one_computation(monkeypatch):
    from macrocause.plugins.clic import evaluators
    from macrocause.plugins.clic import rank as rank_module

    calls = []
    real = rank_module.estimate_rank
    monkeypatch.setattr(rank_module, "estimate_rank", lambda *a, **k: calls.append(1) or real(*a, **k))
    monkeypatch.setattr(evaluators, "_STATS", {})
    X, z = product_mixture(3, 3, 40, 1)
    strict = registry.create("kernel_rank", min_vote=1.0).evaluate(Dataset(X), truth=Partition(z))
    loose = registry.create("kernel_rank", low_rank=2, min_vote=0.5).evaluate(Dataset(X), truth=Partition(z))
    assert len(calls) == 1 and strict.value == loose.value == 3
    assert strict.metrics["rank_correct"] == 1.0
    assert strict.metrics["confident"] == float(strict.metrics["confounder_confidence"] == 1.0)
    assert loose.metrics["confounder_confidence"] == 0.0 and loose.metrics["confident"] == 0.0  # rank 3 > 2
    registry.create("kernel_rank", n_neighbors=5).evaluate(Dataset(X))
    assert len(calls) == 2  # other statistics' parameters: computed again
    assert registry.create("kernel_rank")._statistics(X, fresh=True)[0] == 3 and len(calls) == 3


def test_calibration_data_sources():
    a = registry.load_data("anm_triple", kind="chain", n_samples=200, seed=3)
    b = registry.load_data("anm_triple", kind="chain", n_samples=200, seed=3)
    np.testing.assert_array_equal(a.X, b.X)
    assert a.X.shape == (200, 3) and np.allclose(a.X[:, 0].std(), 1.0)
    link = registry.load_data("clic_sim_link", n_components=1, n_variables=3, n_per_component=100, seed=0)
    base = product_mixture(1, 3, 100, 0)[0]
    np.testing.assert_allclose(link.X[:, 1], base[:, 1] + 4.0 * base[:, 0])
    np.testing.assert_array_equal(link.X[:, [0, 2]], base[:, [0, 2]])
    full = registry.load_data("wdbc", features=["mean_area"])
    w = registry.load_data("wdbc", features=["mean_area"], n_samples=50, seed=1, standardize=True)
    assert w.X.shape == (50, 1) and abs(w.X.mean()) < 1e-12 and abs(w.X.std() - 1) < 1e-12
    rows = np.sort(np.random.default_rng(1).choice(569, 50, replace=False))
    np.testing.assert_array_equal(w.truth["labels"].labels, full.truth["labels"].labels[rows])
