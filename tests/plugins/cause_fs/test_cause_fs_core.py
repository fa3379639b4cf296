"""CAUSE-FS sub-problem solvers against brute force, monotone objective, determinism, errors."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize

from macrocause.framework import ConfigError, DataValidationError, registry
from macrocause.plugins.cause_fs import _solvers as S


def _slsqp_simplex(fun, n):
    cons = [{"type": "eq", "fun": lambda x: x.sum() - 1.0}]
    r = minimize(fun, np.full(n, 1.0 / n), bounds=[(0, None)] * n, constraints=cons, method="SLSQP",
                 options={"ftol": 1e-14, "maxiter": 500})
    return r.x


def test_simplex_qp_matches_exact_solver():
    rng = np.random.default_rng(1)
    n = 8
    B = rng.standard_normal((n, 3))
    Q = B @ B.T + 0.1 * np.eye(n)
    a = rng.standard_normal(n)
    x, f = S.simplex_qp(lambda v: Q @ v, a, np.full(n, 1 / n), np.linalg.eigvalsh(Q)[-1], max_iter=5000,
                        tol=1e-14)
    ref = _slsqp_simplex(lambda z: z @ Q @ z + a @ z, n)
    assert abs(f - (ref @ Q @ ref + a @ ref)) < 1e-7
    np.testing.assert_allclose(x, ref, atol=1e-4)


def test_s_update_closed_form_eq10_and_brute_force():
    rng = np.random.default_rng(2)
    n, k = 12, 3
    A = rng.standard_normal((n, 2))
    G = sp.random(n, n, density=0.3, random_state=3, format="csr")
    gamma = np.zeros(n)
    Sg = S.sparse_simplex_graph(A, G, 0.5, gamma, k).toarray()
    D2 = ((A[:, None] - A[None]) ** 2).sum(-1)
    Gd = G.toarray()
    for i in range(n):
        tau = 0.5 * D2[i] - 0.5 * Gd[i]
        others = np.delete(np.arange(n), i)
        t = np.sort(tau[others])
        # Eq. (10): exactly k neighbours with the paper's formula
        expect = np.maximum((t[k] - tau[others]) / (k * t[k] - t[:k].sum()), 0)
        np.testing.assert_allclose(Sg[i, others], expect, atol=1e-10)
        assert Sg[i, i] == 0 and (Sg[i] > 1e-12).sum() == k
        # brute force of Eq. (9) with that gamma
        c, g = tau[others], gamma[i]
        ref = _slsqp_simplex(lambda s, c=c, g=g: c @ s + g * s @ s, n - 1)
        np.testing.assert_allclose(Sg[i, others], ref, atol=1e-4)


def test_fixed_gamma_is_exact_projection():
    rng = np.random.default_rng(4)
    n = 10
    A = rng.standard_normal((n, 3))
    gamma = np.full(n, 0.7)
    Sg = S.sparse_simplex_graph(A, sp.csr_matrix((n, n)), 0.0, gamma, 2).toarray()
    D2 = ((A[:, None] - A[None]) ** 2).sum(-1)
    for i in range(n):
        others = np.delete(np.arange(n), i)
        np.testing.assert_allclose(Sg[i, others], S.project_simplex(-0.5 * D2[i, others] / (2 * 0.7)), atol=1e-12)


def test_gpi_matches_eigen_solution():
    rng = np.random.default_rng(5)
    n, h = 30, 3
    W = sp.random(n, n, density=0.2, random_state=6)
    L = S.laplacian(W)
    F0, _ = np.linalg.qr(rng.standard_normal((n, h)))
    F = S.gpi(L, 1.0, np.zeros((n, h)), F0, max_iter=5000, tol=0)
    best = np.linalg.eigvalsh(L.toarray())[:h].sum() + h
    assert np.allclose(F.T @ F, np.eye(h), atol=1e-8)
    assert abs(np.trace(F.T @ (F + L @ F)) - best) < 1e-5


def _data(n=40, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(2), n // 2)
    X = np.column_stack([y + 0.2 * rng.standard_normal(n), y + 0.2 * rng.standard_normal(n),
                         rng.random((n, 4))])
    return X


@pytest.mark.parametrize("variant", ["full", "no_causal", "no_multigranular"])
def test_objective_non_increasing_and_deterministic(variant):
    X = _data()
    fs = registry.create("cause_fs", n_select=2, n_clusters=2, variant=variant, max_iter=8, tol=0)
    p = fs.partition(X)
    obj = np.array(p.info["objective"])
    assert np.all(np.diff(obj) <= 1e-8 * np.abs(obj[:-1]) + 1e-12)
    assert len(p.info["scores"]) == 6 and len(p.info["selected"]) == 2
    assert np.isclose(p.info["mu"].sum(), 1) and p.info["mu"].min() >= 0
    q = fs.partition(X)
    assert p == q and np.array_equal(p.info["selected"], q.info["selected"])


@pytest.mark.parametrize("variant", ["full", "no_causal", "no_multigranular"])
def test_the_informative_feature_ranks_first(variant):
    # Two classes carried by column 2 alone; the other five columns are uniform noise.
    # (Two copies of one informative column would not both rank high: the l2,1 regression
    # keeps one of two redundant features.)
    rng = np.random.default_rng(3)
    y = np.repeat([0, 1], 30)
    X = np.column_stack([rng.random((60, 2)), y + 0.1 * rng.standard_normal(60), rng.random((60, 3))])
    p = registry.create("cause_fs", n_select=1, n_clusters=2, variant=variant).partition(X)
    assert p.info["selected"].tolist() == [2]
    assert np.argmax(p.info["scores"]) == 2
    assert registry.create("laplacian_score", n_select=1).partition(X).info["selected"].tolist() == [2]


def test_errors():
    with pytest.raises(ConfigError, match="variant"):
        registry.create("cause_fs", variant="nope")
    with pytest.raises(ConfigError, match="selection.*'rank' or 'greedy'"):
        registry.create("cause_fs", selection="best")
    with pytest.raises(ConfigError, match="alpha"):
        registry.create("cause_fs", alpha=0)
    with pytest.raises(DataValidationError, match="samples"):
        registry.create("cause_fs").partition(np.random.default_rng(0).random((3, 4)))


def test_protocol_and_sources(tmp_path):
    from scipy.io import savemat

    X = _data(60)
    y = np.repeat([1, 2], 30)
    f = tmp_path / "t.mat"
    savemat(f, {"fea": X, "gnd": y[:, None]})
    ds = registry.create("mat", path=str(f)).load()
    assert ds.shape == (60, 6) and ds.truth["labels"].n_clusters == 2
    part = registry.create("all_features").partition(ds)
    ev = registry.create("fs_protocol", n_features=(2, 6), n_runs=3).evaluate(
        ds, registry.create("laplacian_score", n_select=6).partition(ds), ds.truth["labels"])
    assert ev.metrics["acc@2"] == 1.0 and ev.metrics["nmi@2"] == 1.0
    assert part.info["selected"].tolist() == list(range(6))
    with pytest.raises(DataValidationError, match="X/Y or fea/gnd"):
        savemat(tmp_path / "b.mat", {"A": X})
        registry.create("mat", path=str(tmp_path / "b.mat")).load()
    assert registry.create("digits").load().shape == (1797, 64)


def test_nearest_rows_matches_brute_force():
    rng = np.random.default_rng(7)
    A = rng.random((50, 3))
    D = ((A[:, None] - A[None]) ** 2).sum(-1)
    got = S.nearest(A, 6)
    np.testing.assert_array_equal(got, np.argsort(D, axis=1, kind="stable")[:, :6])


def _brute_nearest(A, K):
    D = ((A[:, None] - A[None]) ** 2).sum(-1)
    return np.argsort(D, axis=1, kind="stable")[:, : min(K, A.shape[0])]


@pytest.mark.parametrize("method, params", [("cause_fs", {"n_clusters": 4, "max_iter": 4}),
                                            ("sogfs", {"n_clusters": 4, "max_iter": 4})])
def test_tree_neighbours_give_the_brute_force_selection(monkeypatch, method, params):
    """The k-d tree search of ``nearest`` selects the same features as an exact brute-force k-NN."""
    rng = np.random.default_rng(3)
    y = np.repeat(np.arange(4), 30)
    X = np.column_stack([y[:, None] + 0.3 * rng.standard_normal((120, 6)), rng.random((120, 14))])
    from macrocause.framework import Dataset

    fast = registry.create(method, n_select=8, **params).partition(Dataset(X)).info["selected"]
    monkeypatch.setattr(S, "nearest", _brute_nearest)
    slow = registry.create(method, n_select=8, **params).partition(Dataset(X)).info["selected"]
    np.testing.assert_array_equal(fast, slow)


def test_fs_synthetic_shifts_only_the_informative_features():
    ds = registry.create("fs_synthetic", n_samples=300, n_features=30, n_classes=3, n_informative=5,
                         shift=2.0, seed=1).load()
    assert ds.shape == (300, 30)
    y = ds.truth["labels"].labels
    assert np.bincount(y).tolist() == [100, 100, 100]
    spread = np.ptp([ds.X[y == c].mean(axis=0) for c in range(3)], axis=0)
    assert spread[:5].min() > 1.4 and spread[5:].max() < 0.6  # class means differ by shift = 2 or 0
    lap = registry.create("laplacian_score", n_select=5).partition(ds).info["selected"]
    assert sorted(lap.tolist()) == [0, 1, 2, 3, 4]
    with pytest.raises(DataValidationError, match="'n_informative' parameter of fs_synthetic must be <= n_features"):
        registry.create("fs_synthetic", n_features=3, n_informative=5).load()


def test_stratified_draw_keeps_class_shares_and_is_seeded():
    from macrocause.plugins.cause_fs.sources import stratified_draw

    y = np.repeat([0, 1, 2], [50, 30, 20])
    idx = stratified_draw(y, 10, seed=3)
    assert np.bincount(y[idx]).tolist() == [5, 3, 2]
    assert np.array_equal(idx, stratified_draw(y, 10, seed=3)) and np.all(np.diff(idx) > 0)
    assert not np.array_equal(idx, stratified_draw(y, 10, seed=4))
    ds = registry.create("digits", n_samples=100, seed=1).load()
    assert ds.shape == (100, 64) and np.bincount(ds.truth["labels"].labels).min() >= 9
    with pytest.raises(DataValidationError, match="'n_samples' parameter of digits must be <= 1797"):
        registry.create("digits", n_samples=5000).load()
