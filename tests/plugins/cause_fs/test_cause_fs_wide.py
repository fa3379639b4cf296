"""CAUSE-FS and SOGFS with more features than samples: the n x n paths give the old answers."""

import numpy as np
import pytest
from scipy.cluster.hierarchy import fcluster, linkage
from scipy.spatial.distance import pdist
from sklearn.metrics import calinski_harabasz_score

from macrocause.framework import Dataset
from macrocause.framework.errors import MemoryBudgetError
from macrocause.plugins.cause_fs import _core, _solvers, sogfs
from macrocause.plugins.cause_fs._kernels import ward_1d, ward_condensed
from macrocause.plugins.cause_fs.selector import CauseFS, cause_fs_memory, minmax


def _data(n, d, seed=1, informative=4):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    X = rng.random((n, d))
    X[:, :informative] += y[:, None]
    X[:, 5] = 0.5  # a constant feature
    return X


@pytest.mark.parametrize("variant", ["full", "no_causal", "no_multigranular"])
def test_kernel_w_equals_dense_w(variant):
    X = minmax(_data(20, 60))
    st = _core.init_state(X, alpha=1.0, beta=1e5, lam=1e-3, k=3, h=2, variant=variant, max_groups=10, seed=0)
    if st.multigranular:  # one granularity narrower than n (direct solve), one wider (Woodbury)
        delta = (np.arange(60) >= 12).astype(np.int64)
        st.set_groups(delta)
        st.S = [_solvers.knn_simplex_init(B, 3) for B in st.blocks]
        st.gamma, st.nu = [np.zeros(20), np.zeros(20)], np.array([0.4, 0.6])
    for _ in range(3):
        Wd, Wk = _core.solve_W_dense(st), _core.solve_W_kernel(st)
        assert np.linalg.norm(Wk - Wd) <= 1e-8 * np.linalg.norm(Wd)
        _core.update_W(st)
        st.D = st.D * np.linspace(0.5, 3.0, 60)  # unequal weights, as later iterations have
        _core.update_F(st)


def test_ward_1d_is_scipys_tree():
    for seed in range(5):
        rng = np.random.default_rng(seed)
        x = rng.standard_exponential(300) ** rng.uniform(0.5, 2.0)
        Z, Z1 = linkage(x[:, None], method="ward"), ward_1d(x)
        np.testing.assert_allclose(Z1[:, 2], Z[:, 2], rtol=1e-10)
        for m in range(2, 11):
            a, b = fcluster(Z, m, "maxclust"), fcluster(Z1, m, "maxclust")
            assert len(set(zip(a, b))) == len(set(a)) == len(set(b))


def test_in_place_ward_is_scipys_linkage():
    X = np.random.default_rng(0).standard_normal((200, 5))
    y = pdist(X)
    np.testing.assert_allclose(ward_condensed(y.copy(), 200), linkage(X, method="ward"), rtol=1e-12)


def test_correlation_factor_is_isometric_to_the_correlation_rows():
    X = _data(15, 60)
    C = _solvers.correlation_rows(X)
    Y, extra = _solvers.correlation_factor(X)
    assert Y.shape == (60, 15) and extra.sum() == 1.0
    np.testing.assert_allclose(_solvers.factor_distances(Y, extra), pdist(C), atol=1e-10)
    lab = np.random.default_rng(0).integers(0, 4, 60)
    assert _solvers.factor_calinski_harabasz(Y, extra, lab) == pytest.approx(calinski_harabasz_score(C, lab),
                                                                            rel=1e-10)
    np.testing.assert_array_equal(_solvers.granularities(Y, 10, extra=extra), _solvers.granularities(C, 10))


@pytest.mark.parametrize("variant", ["full", "no_multigranular"])
def test_wide_and_dense_paths_select_the_same(monkeypatch, variant):
    ds = Dataset(_data(20, 50, seed=3))
    runs = []
    for wide in (False, True):
        monkeypatch.setattr(_core, "wide", lambda n, d, w=wide: w)
        # alpha pinned (the default before 1e4): the solves agree to ~1e-14; at alpha = 1e4 the
        # smallest greedy gains (~5e-7 of a largest 3e-2) differ by ~2e-12, past this tolerance
        runs.append(CauseFS(n_select=5, n_clusters=2, k=3, max_iter=6, alpha=1000, variant=variant).partition(ds))
    a, b = runs
    np.testing.assert_array_equal(a.info["selected"], b.info["selected"])
    np.testing.assert_array_equal(a.labels, b.labels)
    np.testing.assert_allclose(b.info["scores"], a.info["scores"], rtol=1e-6, atol=1e-12 * a.info["scores"].max())


def test_cause_fs_30_by_3000_never_forms_a_d_by_d_matrix(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a d x d path was taken")

    monkeypatch.setattr(_core, "solve_W_dense", refuse)
    monkeypatch.setattr(_solvers, "correlation_rows", refuse)
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 10)
    X = rng.random((30, 3000))
    X[:, :30] += 2.0 * y[:, None]
    # the paper's ranking at alpha = 1e4 (with the ranking, a larger alpha spreads ||W_i||^2 over
    # more features: 9 of the 30 cluster features are in the top 20 at the default 1e6)
    part = CauseFS(n_select=20, n_clusters=3, max_iter=5, selection="rank", alpha=1e4).partition(Dataset(X))
    assert part.info["scores"].shape == (3000,)
    assert np.all(np.diff(part.info["objective"]) <= 1e-9 * abs(part.info["objective"][0]))
    assert np.sum(part.info["selected"] < 30) >= 15  # the cluster features are found


def test_sogfs_lanczos_projection_equals_dense():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 200))
    L = _solvers.laplacian(_solvers.knn_simplex_init(X, 5))
    diag = rng.uniform(0.1, 2.0, 200)  # distinct weights: a unique eigenspace
    a = sogfs.smallest_projection(X, L, diag, 3, wide=False)
    b = sogfs.smallest_projection(X, L, diag, 3, wide=True)
    np.testing.assert_allclose(np.abs(a.T @ b), np.eye(3), atol=1e-8)


def test_sogfs_lanczos_path_selects_as_dense(monkeypatch):
    # d < n here: with d > n the first W (D = I) lies in a degenerate eigenspace of
    # dimension >= d - n + 1 and is not unique, so the paths may legitimately differ there
    rng = np.random.default_rng(2)
    y = np.arange(60) % 2
    X = rng.random((60, 25))
    X[:, :3] += y[:, None]
    real = sogfs.smallest_projection
    runs = []
    for wide in (False, True):
        monkeypatch.setattr(sogfs, "smallest_projection", lambda *a, w=wide, **k: real(*a[:4], wide=w))
        runs.append(sogfs.SOGFS(n_select=5, n_clusters=2, k=3, max_iter=4).partition(Dataset(X)))
    np.testing.assert_array_equal(runs[0].info["selected"], runs[1].info["selected"])
    np.testing.assert_allclose(runs[1].info["scores"], runs[0].info["scores"], rtol=1e-6, atol=1e-9)


def test_memory_budget_refuses_before_allocating():
    X = _data(20, 60)
    with pytest.raises(MemoryBudgetError, match=r"cause_fs would need about .* \(Ward clustering of 60 features"):
        CauseFS(n_clusters=2, memory_gb=1e-6).partition(Dataset(X))
    with pytest.raises(MemoryBudgetError, match=r"sogfs would need about .*memory_gb.*raise memory_gb"):
        sogfs.SOGFS(n_clusters=2, memory_gb=1e-6).partition(Dataset(X[:, :10]))
    # the 200 x 20,000 target and the COIL20, USPS and pixraw10P sizes fit the default budget
    for n, d in ((200, 20000), (1440, 1024), (9298, 256), (100, 10000)):
        assert cause_fs_memory(n, d, 10)[0] < 4 * 2**30
    assert cause_fs_memory(100, 40000, 10)[0] > 4 * 2**30


@pytest.mark.parametrize("n, d, phases", [
    (10, 20, "wide"),     # 24 n d + 24 n^2
    (600, 10, "scale"),   # 24 n d > 16 n d + 24 d^2
    (600, 500, "tall"),   # 16 n d + 24 d^2
])
def test_sogfs_estimate_is_the_largest_phase(n, d, phases):
    X = np.random.default_rng(0).standard_normal((n, d))
    X[:, 0] = 1.0  # a constant column does not count
    k = d - 1
    want = {"wide": 24 * n * k + 24 * n * n, "scale": 24 * n * k, "tall": 16 * n * k + 24 * k * k}[phases]
    assert sogfs.SOGFS(n_clusters=2).memory_estimate(Dataset(X)).bytes == want
