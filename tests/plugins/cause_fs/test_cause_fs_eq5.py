"""Eq. (5) of CAUSE-FS term by term against a brute-force evaluation on tiny data: the objective,
the Eq. (15) balance kernel, the mu QP of Eq. (16) as a function of mu, and the Eq. (7) W step."""

import numpy as np
import pytest

from macrocause.plugins.cause_fs import _core
from macrocause.plugins.cause_fs import _solvers as S

N, D, H = 24, 6, 3


@pytest.fixture(scope="module")
def state():
    X = np.random.default_rng(1).random((N, D))
    st = _core.init_state(X, alpha=2.0, beta=50.0, lam=0.3, k=4, h=H, variant="full", max_groups=3, seed=0)
    _core.iterate(st, max_iter=3, tol=0, max_groups=3)
    return st


def _kernel_eq15(X):
    """``sum_r Q^r_ij Z^r_i . Z^r_j`` with ``Q^r = E E' - 2 E C' + C C'`` (symmetrised), E = above the median."""
    E = (X > np.median(X, axis=0)).astype(float)
    C = 1.0 - E
    K = np.zeros((X.shape[0], X.shape[0]))
    for r in range(X.shape[1]):
        Z = np.delete(X, r, axis=1)
        e, c = E[:, r], C[:, r]
        Q = np.outer(e, e) - np.outer(e, c) - np.outer(c, e) + np.outer(c, c)
        K += Q * (Z @ Z.T)
    return K


def _eq5(st, mu):
    """Eq. (5) with loops over samples and pairs, as printed (mu inside every norm)."""
    X, W, F = st.X, st.W, st.F
    J = sum(st.alpha * np.sum((mu[i] * X[i] @ W - F[i]) ** 2) for i in range(N))
    J += np.trace(F.T @ S.laplacian(st.G).toarray() @ F)
    J += st.lam * np.sum(np.sqrt(np.sum(W**2, axis=1) + S.EPS_L21))
    G = st.G.toarray()
    for m, idx in enumerate(st.groups):
        R = np.zeros(D)
        R[idx] = 1.0
        A = mu[:, None] * ((X * R) @ W)
        Sm = st.S[m].toarray()
        J += 0.5 * sum(np.sum((A[i] - A[j]) ** 2) * Sm[i, j] for i in range(N) for j in range(N))
        J += np.sum(st.gamma[m] * np.sum(Sm**2, axis=1)) - st.nu[m] * np.sum(G * Sm)
    J += np.sum(st.xi * np.sum(G**2, axis=1))
    return J + st.beta / N**2 * mu @ _kernel_eq15(X) @ mu


def test_balance_kernel_is_eq15(state):
    assert np.allclose(state.K, _kernel_eq15(state.X), atol=1e-10)


def test_objective_is_eq5(state):
    assert np.isclose(_core.objective(state), _eq5(state, state.mu), rtol=1e-12)


def test_mu_qp_is_eq5_in_mu(state, monkeypatch):
    got = {}

    def capture(matvec, a, x0, lip, **kw):
        got["mv"], got["a"] = matvec, a
        return x0, 0.0

    monkeypatch.setattr(S, "simplex_qp", capture)
    mu0 = state.mu.copy()
    _core.update_mu(state)
    state.mu = mu0
    rng = np.random.default_rng(2)
    for _ in range(3):
        p, q = rng.dirichlet(np.ones(N)), rng.dirichlet(np.ones(N))
        qp = (p @ got["mv"](p) + got["a"] @ p) - (q @ got["mv"](q) + got["a"] @ q)
        assert np.isclose(qp, _eq5(state, p) - _eq5(state, q), rtol=1e-9, atol=1e-12)


def test_w_step_zeroes_the_eq6_gradient(state):
    st = _core.State(**{**state.__dict__})
    D0 = st.D.copy()
    _core.update_W(st)
    Xt = st.mu[:, None] * st.X
    g = 2 * st.alpha * Xt.T @ (Xt @ st.W - st.F) + 2 * st.lam * D0[:, None] * st.W
    for m, idx in enumerate(st.groups):
        Xm = np.zeros_like(Xt)
        Xm[:, idx] = Xt[:, idx]
        g += 2 * Xm.T @ (S.laplacian(st.S[m]) @ (Xm @ st.W))
    assert np.abs(g).max() < 1e-9 * max(1.0, np.abs(st.W).max())
