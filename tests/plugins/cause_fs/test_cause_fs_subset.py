"""The greedy subset selection (``selection="greedy"``, ours) against a direct re-solve at every step."""

import numpy as np
import pytest

from macrocause.framework import registry
from macrocause.plugins.cause_fs._subset import greedy_subset


def naive_greedy(X, F, w, c, ridge=1e-3):
    """Each step tries every remaining column and solves the ridge fit from scratch."""
    Xc = X - (w @ X) / w.sum()
    St = Xc.T @ (w[:, None] * Xc)
    B = Xc.T @ (w[:, None] * F)
    eps = ridge * np.trace(St) / X.shape[1]
    sel, rest = [], list(range(X.shape[1]))
    values = []
    for _ in range(c):
        vals = [np.trace(B[sel + [j]].T @ np.linalg.solve(St[np.ix_(sel + [j], sel + [j])]
                                                          + eps * np.eye(len(sel) + 1), B[sel + [j]])) for j in rest]
        values.append(max(vals))
        sel.append(rest.pop(int(np.argmax(vals))))
    return sel, values


@pytest.mark.parametrize("seed", range(4))
def test_greedy_subset_matches_naive_reselection(seed):
    rng = np.random.default_rng(seed)
    X = rng.random((50, 12))
    X[:, 5] = X[:, 2] + 0.01 * rng.standard_normal(50)  # a near-duplicate column
    F, w = rng.standard_normal((50, 3)), rng.random(50)
    sel, gains = greedy_subset(X, F, w, 7)
    ref, values = naive_greedy(X, F, w, 7)
    assert sel.tolist() == ref
    # the gains are the increments of the criterion
    assert np.allclose(np.cumsum(gains[sel]), values, rtol=1e-9)


def test_greedy_prefers_new_information_to_a_copy():
    # F has two factors: a (carried by column 0 and its near-copy, column 1) and b (column 2, noisier).
    rng = np.random.default_rng(0)
    a, b = rng.integers(0, 2, (2, 80)).astype(float)
    col0 = a + 0.05 * rng.standard_normal(80)
    X = np.column_stack([col0, col0 + 0.01 * rng.standard_normal(80), b + 0.3 * rng.standard_normal(80),
                         rng.random((80, 3))])
    F = np.column_stack([a - a.mean(), b - b.mean()])
    sel, _ = greedy_subset(X, F, np.full(80, 1 / 80), 2)
    assert sorted(sel.tolist()) in ([0, 2], [1, 2])


def test_cause_fs_greedy_option():
    rng = np.random.default_rng(3)
    y = np.repeat([0, 1], 30)
    X = np.column_stack([rng.random((60, 2)), y + 0.1 * rng.standard_normal(60), rng.random((60, 3))])
    p = registry.create("cause_fs", n_select=3, n_clusters=2, selection="greedy").partition(X)
    assert p.info["selected"][0] == 2 and len(set(p.info["selected"].tolist())) == 3
    assert p.info["scores"].shape == (6,) and np.argmax(p.info["scores"]) == 2
    q = registry.create("cause_fs", n_select=3, n_clusters=2, selection="greedy").partition(X)
    assert np.array_equal(p.info["selected"], q.info["selected"])
