"""The benchmark-only partitioners of the CVI grid (benchmarks/disco/bench_plugins.py)."""

from pathlib import Path

import numpy as np
import pytest

import macrocause.plugins.baselines
from macrocause.framework import Dataset, Partition, registry
from macrocause.framework.errors import DataValidationError
from macrocause.framework.testing.examples import blobs

BENCH = Path(__file__).resolve().parents[3] / "benchmarks" / "disco" / "bench_plugins.py"


@pytest.fixture
def bench(plugin_registry):
    plugin_registry.register_module(macrocause.plugins.baselines, "baselines", "baselines")
    plugin_registry.load_files([BENCH])
    return plugin_registry


def _labelled(X, y):
    return Dataset(np.asarray(X, float), truth={"labels": Partition(np.asarray(y))})


def test_true_and_random_labels(bench):
    ds, truth = blobs()
    data = _labelled(ds.X, np.where(np.arange(120) < 5, -1, truth.labels))  # 5 noise points
    assert np.array_equal(registry.create("true_labels").partition(data).labels, data.truth["labels"].labels)
    a = registry.create("random_labels", draw=1, seed=4).partition(data).labels
    assert np.array_equal(a, np.random.default_rng([4, 1]).integers(0, 3, 120))  # 3 classes, noise aside
    assert not np.array_equal(a, registry.create("random_labels", draw=2, seed=4).partition(data).labels)


def test_dbscan_kdist_takes_eps_from_the_k_distance(bench):
    # 1-D points 0, 1, 3, 7, 8; k = min_samples = 2 (the point counted): distances to the
    # nearest other point 1, 1, 2, 1, 1; their median is 1, so {0, 1} and {7, 8}, 3 is noise
    data = _labelled([[0.0], [1.0], [3.0], [7.0], [8.0]], [0, 0, 1, 2, 2])
    part = registry.create("dbscan_kdist", quantile=0.5, min_samples=2).partition(data)
    assert part.info["eps"] == pytest.approx(1.0)
    assert part.labels.tolist() == [0, 0, -1, 1, 1]
    wide = registry.create("dbscan_kdist", quantile=1.0, min_samples=2).partition(data)
    assert wide.info["eps"] == pytest.approx(2.0) and wide.labels.tolist() == [0, 0, 0, 1, 1]


def test_k_from_truth_scales_the_true_number_of_classes(bench):
    ds, truth = blobs()
    data = _labelled(ds.X, truth.labels)  # k* = 3
    for factor, k in ((0.5, 2), (1, 3), (2, 6)):
        for name in ("kmeans", "agglomerative", "spectral"):
            part = registry.create("k_from_truth", partitioner=name, k_factor=factor).partition(data)
            assert part.info["n_clusters"] == k and np.unique(part.labels).size == k, (name, factor)
    same = registry.create("k_from_truth", partitioner="kmeans", params={"n_init": 1}, seed=2).partition(data)
    assert np.array_equal(same.labels, registry.create("kmeans", n_clusters=3, n_init=1, seed=2).partition(data).labels)
    two = _labelled(ds.X, truth.labels.clip(max=1))  # k* = 2: k*/2 would repeat k*
    with pytest.raises(DataValidationError, match="k_factor 0.5 gives k = 2"):
        registry.create("k_from_truth", k_factor=0.5).partition(two)


def test_the_cvi_grid_validates(bench):
    import macrocause.plugins.datasets
    import macrocause.plugins.disco
    import macrocause.plugins.metrics
    from macrocause.framework.compare import Grid

    bench.register_module(macrocause.plugins.disco, "disco", "disco")
    bench.register_module(macrocause.plugins.metrics, "metrics", "metrics")
    bench.register_module(macrocause.plugins.datasets, "datasets", "datasets")  # the sets are read by `csv`
    grid, base = Grid.from_yaml(BENCH.parent / "cvi.yaml")
    tasks = grid.tasks(base)
    assert grid.name == "disco_cvi" and len(tasks) == 9 * 21  # 9 sets x 21 labellings, seed 0
    assert {t.pipeline.steps[0].partition for t in tasks} == {
        "true_labels", "dbscan_kdist", "hdbscan", "k_from_truth", "random_labels"}
