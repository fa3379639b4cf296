"""NMI, ARI, clustering accuracy and silhouette against hand-computed values."""

import itertools
import math

import numpy as np
import pytest

from macrocause.framework import Dataset, Partition, registry
from macrocause.framework.errors import DataValidationError

DS6 = Dataset(np.arange(12.0).reshape(6, 2))


def ev(name, result, truth, data=DS6, **kw):
    return registry.create(name, **kw).evaluate(data, Partition(result), Partition(truth))


def test_permuted_labelling_scores_one():
    truth = [0, 0, 1, 1, 2, 2]
    perm = [2, 2, 0, 0, 1, 1]
    for name in ("nmi", "ari", "clustering_accuracy"):
        assert ev(name, perm, truth).value == pytest.approx(1.0)


def test_clustering_accuracy_by_hand():
    # contingency (rows = found 0,1,2; cols = true 0,1): [[2,0],[1,2],[0,1]];
    # best map 0->0, 1->1 gives 2 + 2 = 4 of 6
    assert ev("clustering_accuracy", [0, 0, 1, 1, 1, 2], [0, 0, 0, 1, 1, 1]).value == pytest.approx(4 / 6)


def test_clustering_accuracy_equals_brute_force():
    rng = np.random.default_rng(0)
    for _ in range(20):
        r, t = rng.integers(0, 3, 12), rng.integers(0, 3, 12)
        best = max(
            sum(np.sum((r == a) & (t == b)) for a, b in zip(range(3), perm))
            for perm in itertools.permutations(range(3))
        )
        ds = Dataset(rng.standard_normal((12, 2)))
        assert ev("clustering_accuracy", r, t, data=ds).value == pytest.approx(best / 12)


def test_nmi_by_hand():
    r, t = [0, 0, 1, 1], [0, 0, 0, 1]
    # H(R) = ln 2; H(T) = -(3/4 ln 3/4 + 1/4 ln 1/4); I = H(T) - H(T|R) = H(T) - 1/2 ln 2
    h_r = math.log(2)
    h_t = -(0.75 * math.log(0.75) + 0.25 * math.log(0.25))
    mi = h_t - 0.5 * math.log(2)
    ds = Dataset(np.arange(8.0).reshape(4, 2))
    assert ev("nmi", r, t, data=ds).value == pytest.approx(mi / ((h_r + h_t) / 2))


def test_ari_by_hand():
    r, t = [0, 0, 1, 1], [0, 0, 0, 1]
    # pair counts: sum C(n_ij,2) = 1; rows: 1 + 1 = 2; cols: 3 + 0 = 3; C(4,2) = 6
    expected = (1 - 2 * 3 / 6) / (0.5 * (2 + 3) - 2 * 3 / 6)
    ds = Dataset(np.arange(8.0).reshape(4, 2))
    assert ev("ari", r, t, data=ds).value == pytest.approx(expected)


def test_noise_rules():
    truth = [0, 0, 0, 1, 1, 1]
    res = [0, 0, -1, 1, 1, -1]
    # 'cluster': -1 is a third group {2, 5} (one point of each class); best map 0->0, 1->1 -> 4/6
    assert ev("clustering_accuracy", res, truth).value == pytest.approx(4 / 6)
    # 'exclude': only the four clustered points, all right
    assert ev("clustering_accuracy", res, truth, noise="exclude").value == 1.0
    assert ev("nmi", res, truth, noise="exclude").value == pytest.approx(1.0)
    # 'singletons': each noise point alone; still 4/6 right
    assert ev("clustering_accuracy", res, truth, noise="singletons").value == pytest.approx(4 / 6)
    assert ev("ari", res, truth).metrics["noise_fraction"] == pytest.approx(2 / 6)
    sing = ev("ari", res, truth, noise="singletons").value
    from sklearn.metrics import adjusted_rand_score

    assert sing == pytest.approx(adjusted_rand_score(truth, [0, 0, 2, 1, 1, 3]))


def test_silhouette_by_hand_and_noise_excluded():
    X = np.array([[0.0], [1.0], [10.0], [11.0]])
    # point 0: a = 1, b = (10 + 11) / 2 = 10.5 -> s = 1 - 1/10.5; point 1: a = 1, b = 9.5 -> 1 - 1/9.5
    expected = np.mean([1 - 1 / 10.5, 1 - 1 / 9.5, 1 - 1 / 9.5, 1 - 1 / 10.5])
    sil = registry.create("silhouette")
    assert sil.evaluate(Dataset(X), Partition([0, 0, 1, 1])).value == pytest.approx(expected)
    X2 = np.vstack([X, [[5.0]]])
    ev2 = sil.evaluate(Dataset(X2), Partition([0, 0, 1, 1, -1]))
    assert ev2.value == pytest.approx(expected) and ev2.metrics["noise_fraction"] == pytest.approx(0.2)
    assert np.isnan(sil.evaluate(Dataset(X), Partition([0, 0, 0, -1])).value)


def test_silhouette_subsample_is_seeded():
    rng = np.random.default_rng(0)
    X = np.concatenate([rng.standard_normal((100, 2)), rng.standard_normal((100, 2)) + 5])
    labels = Partition(np.repeat([0, 1], 100))
    a = registry.create("silhouette", max_samples=50, seed=1).evaluate(X, labels).value
    b = registry.create("silhouette", max_samples=50, seed=1).evaluate(X, labels).value
    full = registry.create("silhouette").evaluate(X, labels).value
    assert a == b and abs(a - full) < 0.1


def test_external_metrics_need_truth_of_same_length():
    with pytest.raises(DataValidationError, match="truth"):
        registry.create("nmi").evaluate(DS6, Partition([0, 0, 1, 1, 2, 2]))
    with pytest.raises(DataValidationError, match="same items"):
        ev("ari", [0, 0, 1, 1, 2, 2], [0, 1, 0])
