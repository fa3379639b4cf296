"""SOGFS baseline: the informative features on a hand-made case, graph and projection properties."""

import numpy as np
import pytest

from macrocause.framework import ConfigError, registry


def _blobs(n=60, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(3), n // 3)
    centres = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, 1.0]])
    X = np.column_stack([centres[y] + 0.05 * rng.standard_normal((n, 2)), rng.random((n, 4))])
    return X, y


def test_sogfs_selects_the_cluster_features():
    X, _ = _blobs()
    p = registry.create("sogfs", n_select=2, n_clusters=3, k=5).partition(X)
    assert set(p.info["selected"].tolist()) == {0, 1}
    assert p.labels.tolist() == [0, 0, 1, 1, 1, 1]
    # the scores are row norms of a W with orthonormal columns: each in [0, 1], summing to m = 3
    s = p.info["scores"]
    assert np.all((s >= 0) & (s <= 1 + 1e-9)) and np.isclose(np.sum(s**2), 3.0)
    # three well separated blobs: the graph learned on [0, 1]-scaled data has c = 3 components
    q = registry.create("sogfs", n_select=2, n_clusters=3, k=5, scale="minmax").partition(X)
    assert set(q.info["selected"].tolist()) == {0, 1} and q.info["n_components_zero"] == 3


def test_sogfs_deterministic_and_errors():
    X, _ = _blobs(seed=1)
    a = registry.create("sogfs", n_select=3, n_clusters=3).partition(X)
    b = registry.create("sogfs", n_select=3, n_clusters=3).partition(X)
    assert np.array_equal(a.info["selected"], b.info["selected"])
    with pytest.raises(ConfigError, match="n_clusters"):
        registry.create("sogfs", n_clusters=1)
