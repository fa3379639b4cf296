"""Neighbour lists shared between nested column subsets give the same k-th neighbour distances
(same floats) as one search per subset, and a search with them the same result."""

from itertools import combinations

import numpy as np
import pytest

from framework import Dataset, registry
from plugins.cic._knn import knn_entropy
from plugins.cic._subset_knn import SubsetKNN, kth_among_candidates
from plugins.cic.engine import KLEntropies, rank_transform


def brute_kth(x, k):
    """Each point's (k+1)-th smallest max-norm distance to all points, itself included."""
    D = np.abs(x[:, None, :] - x[None, :, :]).max(axis=2)
    return np.sort(D, axis=1)[:, k]


def data(n=120, seed=0, ties=False):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 5))
    X[:, 1] += X[:, 0]
    X[:, 4] = X[:, 2] * X[:, 3] + 0.3 * rng.standard_normal(n)
    return np.round(X) if ties else X


def test_kth_among_candidates_against_brute_force():
    x = np.array([[0.0, 0.0], [1.0, 0.5], [0.2, 2.0], [3.0, 3.0], [0.1, -0.4]])
    cand = np.array([[0, 1, 4], [1, 0, 2], [2, 0, 1], [3, 1, 2], [4, 0, 1]], dtype=np.int32)
    rho = np.array([1.0, 0.5, 5.0, 9.0, 0.0])
    eps, ok = kth_among_candidates(x, cand, rho, 1)
    # nearest other candidate (max-norm): 0 -> 4 at 0.4, 1 -> 0 at 1.0, 2 -> 1 at 1.5, 3 -> 1 at 2.5, 4 -> 0 at 0.4
    np.testing.assert_array_equal(eps, [0.4, 1.0, 1.5, 2.5, 0.4])
    np.testing.assert_array_equal(ok, [True, False, True, True, False])


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("n_list, max_bytes", [(6, 2**30), (24, 2**30), (6, 0), (200, 2**30)])
def test_every_subset_equals_brute_force(ties, n_list, max_bytes):
    Z = rank_transform(data(ties=ties)) if not ties else data(ties=True)
    subsets = [c for r in range(1, 6) for c in combinations(range(5), r)]
    order = np.random.default_rng(1).permutation(len(subsets))
    knn = SubsetKNN(Z, 3, n_list=n_list, max_bytes=max_bytes)
    for t in order:
        cols = subsets[t]
        np.testing.assert_array_equal(knn.kth(cols), brute_kth(Z[:, list(cols)], 3))
    assert knn.n_derived + knn.n_searched == len(subsets)
    if max_bytes == 0:
        assert knn.n_derived == 0
    else:
        assert knn.n_derived > 0


def test_lists_larger_than_the_data_and_bad_list_size():
    Z = data(n=9)
    knn = SubsetKNN(Z, 2, n_list=50)
    for cols in [(0,), (0, 1), (0, 1, 2, 3, 4)]:
        np.testing.assert_array_equal(knn.kth(cols), brute_kth(Z[:, list(cols)], 2))
    with pytest.raises(ValueError, match="n_list"):
        SubsetKNN(Z, 5, n_list=3)


def test_kl_entropies_equal_one_search_per_subset():
    X = data(n=300, seed=2)
    kl = KLEntropies(X, 5)
    for r in (3, 1, 5, 2, 4):
        for cols in combinations(range(5), r):
            assert kl.H(cols) == knn_entropy(kl.Z[:, list(cols)], 5)
    assert kl.knn.n_derived > 0


def test_search_same_result_as_one_search_per_subset(monkeypatch):
    ds = Dataset(data(n=250, seed=3))

    def run():
        scorer = registry.create("cic", estimator="kl")
        res = registry.create("cic_greedy", restarts=8, seed=2, vstructures=False).run(ds, scorer)
        return res["graph"], res["restart_scores"]

    g_new, s_new = run()

    def old_H(self, cols):
        if cols not in self._h:
            self._h[cols] = knn_entropy(self.Z[:, list(cols)], self.k) if cols else 0.0
        return self._h[cols]

    monkeypatch.setattr(KLEntropies, "H", old_H)
    g_old, s_old = run()
    assert g_new == g_old and s_new == s_old
