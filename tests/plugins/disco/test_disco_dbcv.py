"""DBCV (MATLAB-code variant) against the expected values of the DBCV authors' code."""

from pathlib import Path

import numpy as np
import pytest

from macrocause.framework import registry

SHARED = Path(__file__).resolve().parents[3].parent / "shared" / "data" / "dbcv_reference"
# dbcv_reference/README.md: MATLAB original = FelSiq sqeuclidean + original MST
EXPECTED = {1: 0.857574140050071, 2: 0.810334358909311, 3: 0.631879697008377, 4: 0.868775827633395}


@pytest.mark.skipif(not SHARED.exists(), reason="shared data not present")
@pytest.mark.parametrize("i", sorted(EXPECTED))
def test_dbcv_matches_matlab_code(i):
    A = np.loadtxt(SHARED / f"dbcv_dataset_{i}.csv", delimiter=",", skiprows=1)
    ev = registry.create("dbcv").evaluate(A[:, :2], A[:, 2].astype(int))
    assert ev.value == pytest.approx(EXPECTED[i], abs=1e-9, rel=0)


def _two_blobs():
    rng = np.random.default_rng(1)
    X = np.concatenate([rng.normal(0, 0.2, (15, 2)), rng.normal(5, 0.2, (15, 2))])
    return X, np.repeat([0, 1], 15)


def test_fewer_than_two_clusters_is_zero():
    X, y = _two_blobs()
    dbcv = registry.create("dbcv")
    assert dbcv.evaluate(X, np.zeros(30, int)).value == 0.0
    assert dbcv.evaluate(X, np.full(30, -1)).value == 0.0
    # a singleton cluster becomes noise: one real cluster left -> 0
    y1 = np.zeros(30, int)
    y1[0] = 4
    assert dbcv.evaluate(X, y1).value == 0.0


def test_noise_and_singletons_only_shrink_the_weight():
    X, y = _two_blobs()
    dbcv = registry.create("dbcv")
    full = dbcv.evaluate(X, y).value
    assert 0.9 < full <= 1.0  # far apart, compact blobs
    y2 = y.copy()
    y2[[0, 20]] = [-1, 9]  # one noise point, one singleton: both count in n only
    part = dbcv.evaluate(X, y2).value
    mask = np.ones(30, bool)
    mask[[0, 20]] = False
    assert part == pytest.approx(dbcv.evaluate(X[mask], y[mask]).value * 28 / 30, abs=1e-12)


def test_two_point_clusters_by_hand():
    # 1-D clusters {0, 1} and {10, 11}: squared distances; all-points core distance
    # (1 / (1^-1 / 1))^(1/1) = 1; MST edge = max(1, 1, 1) = 1; separation = max(81, 1, 1) = 81
    X = np.array([[0.0], [1.0], [10.0], [11.0]])
    ev = registry.create("dbcv").evaluate(X, [0, 0, 1, 1])
    assert ev.value == pytest.approx((81 - 1) / 81)
