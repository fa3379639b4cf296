"""DISCO's backends give the same values: the blocked BLAS MST (screened in float32,
recomputed exactly) against the KD-tree and Prim, and the dense reference port."""

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from macrocause.framework import registry
from macrocause.framework.errors import MemoryBudgetError

sys.path.insert(0, str(Path(__file__).parent))
from _brute import brute_disco  # noqa: E402


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000), st.integers(6, 80), st.integers(1, 40), st.integers(1, 6))
def test_blocked_mst_equals_prim(seed, n, d, min_points):
    """Exact core distances and MST weights, also with ties (a coarse grid), duplicates and
    a large offset (the screen's cancellation error is bounded, never trusted)."""
    from macrocause.plugins.disco._blocked import blocked_mst
    from macrocause.plugins.disco._disco import core_distances
    from macrocause.plugins.disco._kernels import prim_mst_dense

    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, d)).astype(float) * rng.choice([1.0, 1e-3, 1e3]) + 1e4
    X[: n // 4] += rng.random((n // 4, d)) * (rng.random((n // 4, d)) < 0.5)
    core_ref, _ = core_distances(X, min_points)
    core, (u, v, w) = blocked_mst(X, min_points)
    np.testing.assert_allclose(core, core_ref, rtol=1e-12, atol=0)
    _, _, w_ref = prim_mst_dense(X, core_ref)
    assert len(w) == n - 1
    np.testing.assert_allclose(np.sort(w), np.sort(w_ref), rtol=1e-12, atol=1e-12)
    dist = np.sqrt(((X[u] - X[v]) ** 2).sum(1))
    np.testing.assert_allclose(w, np.maximum(dist, np.maximum(core[u], core[v])), rtol=1e-12)
    # a spanning tree: n - 1 edges joining everything
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    assert connected_components(coo_matrix((np.ones(n - 1), (u, v)), shape=(n, n)))[0] == 1


@pytest.mark.parametrize("backend", ["tree", "blocked", "dense"])
def test_backends_match_brute_force(backend):
    rng = np.random.default_rng(3)
    X = np.concatenate([rng.normal(0, 1, (40, 5)), rng.normal(6, 1, (40, 5)), rng.uniform(-4, 10, (10, 5))])
    y = np.r_[np.zeros(40, int), np.ones(40, int), -np.ones(10, int)]
    ev = registry.create("disco", backend=backend).evaluate(X, y)
    np.testing.assert_allclose(ev.pointwise, brute_disco(X, y, 5), rtol=0, atol=1e-9)


def test_auto_backend_by_dimension():
    from macrocause.plugins.disco._disco import choose_backend

    assert choose_backend(20_000, 2) == "tree"
    assert choose_backend(20_000, 100) == "blocked"


def test_dense_backend_refuses_past_the_budget(monkeypatch):
    monkeypatch.setenv("MACROCAUSE_MEMORY_LIMIT", "1MB")
    X = np.random.default_rng(0).normal(size=(400, 2))
    with pytest.raises(MemoryBudgetError, match="backend='auto'"):
        registry.create("disco", backend="dense").evaluate(X, np.zeros(400, int))
    assert np.isfinite(registry.create("disco").evaluate(X, np.zeros(400, int)).value)


def test_bad_backend():
    with pytest.raises(Exception, match="backend"):
        registry.create("disco", backend="gpu")


@pytest.mark.parametrize("backend", ["tree", "blocked", "dense"])
def test_evaluate_many_shares_the_preparation_and_gives_the_same_values(backend):
    from macrocause.framework import Dataset, Partition
    from macrocause.framework.errors import DataValidationError

    rng = np.random.default_rng(4)
    X = np.concatenate([rng.normal(0, 1, (30, 3)), rng.normal(5, 1, (30, 3)), rng.uniform(-3, 8, (8, 3))])
    truth = np.r_[np.zeros(30, int), np.ones(30, int), -np.ones(8, int)]
    labellings = [truth, np.zeros(68, int), np.where(rng.random(68) < 0.3, -1, truth.clip(0)), -np.ones(68, int)]
    disco = registry.create("disco", backend=backend)
    many = disco.evaluate_many(Dataset(X), [Partition(y) for y in labellings])
    for y, ev in zip(labellings, many):
        one = disco.evaluate(X, y)
        assert ev.value == one.value and ev.metrics == pytest.approx(one.metrics, nan_ok=True)
        np.testing.assert_allclose(ev.pointwise, brute_disco(X, y, 5), rtol=0, atol=1e-9)
    assert disco.evaluate_many(Dataset(X), []) == []
    with pytest.raises(DataValidationError, match="disco: the partition has 5 labels for 68 samples"):
        disco.evaluate_many(Dataset(X), [Partition(truth), Partition(np.zeros(5, int))])
