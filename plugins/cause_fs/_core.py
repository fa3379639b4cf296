"""The alternating optimisation of CAUSE-FS (Algorithm 1 / Eq. 5), rows = samples."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from . import _solvers as S


@dataclass
class State:
    """Every block of Eq. (5) plus the constants it needs."""

    X: np.ndarray  # n x d, scaled
    alpha: float
    beta: float
    lam: float
    k: int
    variant: str
    mu: np.ndarray
    W: np.ndarray
    F: np.ndarray
    D: np.ndarray
    delta: np.ndarray  # granularity label per feature
    nu: np.ndarray
    S: list = field(default_factory=list)  # csr per granularity
    gamma: list = field(default_factory=list)  # per-row gamma per granularity
    G: sp.csr_matrix | None = None
    xi: np.ndarray | None = None
    K: np.ndarray | None = None  # balance kernel of Eq. (15)
    K_top: float = 0.0  # an upper bound of the largest eigenvalue of K
    blocks: list = field(default_factory=list)  # X[:, idx] per granularity (cached)
    group_idx: list = field(default_factory=list)  # feature indices per granularity (cached)

    @property
    def causal(self) -> bool:
        return self.variant != "no_causal"

    @property
    def multigranular(self) -> bool:
        return self.variant != "no_multigranular"

    @property
    def groups(self) -> list[np.ndarray]:
        return self.group_idx

    def set_groups(self, delta: np.ndarray) -> None:
        """New granularities; caches their feature indices and column blocks ``X R^(m)``."""
        self.delta = delta
        self.group_idx = [np.flatnonzero(delta == m) for m in range(int(delta.max()) + 1)]
        self.blocks = [np.ascontiguousarray(self.X[:, idx]) for idx in self.group_idx]


def embed(st: State, m: int, weighted: bool = True) -> np.ndarray:
    """``X R^(m) W`` (rows scaled by mu when *weighted*): the samples seen through granularity m."""
    A = st.blocks[m] @ st.W[st.groups[m]]
    return st.mu[:, None] * A if weighted else A


def objective(st: State) -> float:
    """The value of Eq. (5) (with the Eq. (15) form of the balancing term)."""
    n = st.X.shape[0]
    XW = st.mu[:, None] * (st.X @ st.W)
    LG = S.laplacian(st.G)
    J = st.alpha * float(np.sum((XW - st.F) ** 2)) + float(np.sum(st.F * (LG @ st.F)))
    J += st.lam * float(np.sum(np.sqrt(np.sum(st.W**2, axis=1) + S.EPS_L21)))
    if st.multigranular:
        for m in range(len(st.S)):
            A = embed(st, m)
            Sm = st.S[m]
            J += float(np.sum(A * (S.laplacian(Sm) @ A)))
            J += float(np.sum(st.gamma[m] * np.asarray(Sm.multiply(Sm).sum(axis=1)).ravel()))
            J -= st.nu[m] * float(st.G.multiply(Sm).sum())
        J += float(np.sum(st.xi * np.asarray(st.G.multiply(st.G).sum(axis=1)).ravel()))
    if st.causal and st.beta > 0:
        J += st.beta / n**2 * float(st.mu @ S.kernel_matvec(st.K, st.mu))
    return J


def wide(n: int, d: int) -> bool:
    """More features than samples: W by the n x n (kernel) form and granularities from an n-dim factor."""
    return d > n


def update_W(st: State) -> None:
    """Eq. (7), then D (Alg. 1, line 4): by :func:`solve_W_kernel` when d > n, else :func:`solve_W_dense`."""
    st.W = solve_W_kernel(st) if wide(*st.X.shape) else solve_W_dense(st)
    st.D = 1.0 / (2.0 * np.sqrt(np.sum(st.W**2, axis=1) + S.EPS_L21))


def solve_W_dense(st: State) -> np.ndarray:
    """Eq. (7) as printed: ``W = (a X~'X~ + l D + sum_m R X~' L_S R X~)^-1 a X~'F`` (a d x d solve)."""
    from scipy.linalg import solve

    Xt = st.mu[:, None] * st.X
    M = st.alpha * (Xt.T @ Xt)
    M[np.diag_indices_from(M)] += st.lam * st.D
    if st.multigranular:
        for m, idx in enumerate(st.groups):
            Xm = st.mu[:, None] * st.blocks[m]
            M[np.ix_(idx, idx)] += Xm.T @ (S.laplacian(st.S[m]) @ Xm)
    return solve(M, st.alpha * (Xt.T @ st.F), assume_a="pos", overwrite_a=True, check_finite=False)


def solve_W_kernel(st: State) -> np.ndarray:
    """Eq. (7) through n x n systems only (Woodbury), for d > n; the same W as :func:`solve_W_dense`.

    The matrix of Eq. (7) is ``H + a X~'X~`` with H block-diagonal over the granularities,
    ``H_m = l D_m + X~_m' L_m X~_m``. Push-through: ``W = H^-1 X~' (I/a + X~ H^-1 X~')^-1 F``.
    Per block, ``T_m = H_m^-1 X~_m'`` is a d_m x d_m solve when d_m <= n, else by Woodbury
    with ``L_m = P P'`` (P from the eigenvectors of L_m): ``T_m = Lam^-1 X~_m' E_m`` with
    ``E_m = I - P (I + P'K_m P)^-1 P'K_m`` and ``K_m = X~_m Lam^-1 X~_m'`` (``Lam = l D_m``).
    Cost O(n^2 d + M n^3) per call, memory O(n d + n^2); no d x d matrix.
    """
    from scipy.linalg import cho_factor, cho_solve, eigh, solve

    n, d = st.X.shape
    lam_d = st.lam * st.D
    groups = st.groups if st.multigranular else [np.arange(d)]
    K = np.zeros((n, n))
    parts = []
    for m, idx in enumerate(groups):
        Z = st.mu[:, None] * (st.blocks[m] if st.multigranular else st.X)
        if not st.multigranular:  # H = l D
            T = Z.T / lam_d[idx, None]
            parts.append(("T", T))
            K += Z @ T
            continue
        L = S.laplacian(st.S[m])
        if idx.size <= n:
            H = Z.T @ (L @ Z)
            H[np.diag_indices_from(H)] += lam_d[idx]
            T = solve(H, Z.T, assume_a="pos", check_finite=False)
            parts.append(("T", T))
            K += Z @ T
            continue
        Zl = Z / lam_d[idx]
        Km = Zl @ Z.T
        s, U = eigh(L.toarray(), check_finite=False)
        P = U * np.sqrt(np.maximum(s, 0.0))
        PK = P.T @ Km
        G = PK @ P
        G[np.diag_indices_from(G)] += 1.0
        E = np.eye(n) - P @ cho_solve(cho_factor(G, check_finite=False), PK, check_finite=False)
        parts.append(("E", (Zl, E)))
        K += Km @ E
    K = 0.5 * (K + K.T)
    K[np.diag_indices_from(K)] += 1.0 / st.alpha
    Y = solve(K, st.F, assume_a="pos", check_finite=False)
    W = np.empty((d, st.F.shape[1]))
    for idx, (kind, part) in zip(groups, parts):
        W[idx] = part @ Y if kind == "T" else part[0].T @ (part[1] @ Y)
    return W


def update_S(st: State) -> None:
    """Eq. (9)/(10) for every granularity (exact, sparse)."""
    for m in range(len(st.S)):
        st.S[m] = S.sparse_simplex_graph(embed(st, m), st.G, float(st.nu[m]), st.gamma[m], st.k)


def fused(st: State) -> sp.csr_matrix:
    return sum((st.nu[m] * st.S[m] for m in range(len(st.S))), sp.csr_matrix(st.G.shape)).tocsr()


def update_G(st: State) -> None:
    """Eq. (11)/(12) (exact, sparse)."""
    st.G = S.sparse_simplex_graph(st.F, fused(st), 1.0, st.xi, st.k)


def update_F(st: State) -> None:
    """Eq. (14) by the generalised power iteration."""
    B = st.alpha * (st.mu[:, None] * (st.X @ st.W))
    st.F = S.gpi(S.laplacian(st.G), st.alpha, B, st.F)


def update_mu(st: State, max_iter: int = 50, tol: float = 1e-7) -> None:
    """Eq. (16): the simplex-constrained QP in mu by accelerated projected gradient.

    Warm-started at the current mu, at most *max_iter* steps (an inexact but never increasing
    block update; the outer loop repeats it). The step uses an upper bound of the largest
    eigenvalue: Gershgorin for the sparse part plus the cached bound of the balance kernel's.
    """
    n = st.X.shape[0]
    U = st.X @ st.W
    qdiag = st.alpha * np.sum(U**2, axis=1)
    a = -2.0 * st.alpha * np.sum(U * st.F, axis=1)
    Poff = sp.csr_matrix((n, n))
    if st.multigranular:
        for m in range(len(st.S)):
            Um = embed(st, m, weighted=False)
            Sm = st.S[m].tocoo()
            pii = np.sum(Um**2, axis=1)
            deg = np.asarray(st.S[m].sum(axis=1)).ravel() + np.asarray(st.S[m].sum(axis=0)).ravel()
            qdiag = qdiag + 0.5 * pii * deg
            vals = Sm.data * np.einsum("ij,ij->i", Um[Sm.row], Um[Sm.col])
            P = sp.csr_matrix((vals, (Sm.row, Sm.col)), shape=(n, n))
            Poff = Poff + 0.5 * (P + P.T)
    Poff = Poff.tocsr()
    c = st.beta / n**2

    def matvec(v):
        out = qdiag * v - Poff @ v
        if c > 0:
            out = out + c * S.kernel_matvec(st.K, v)
        return out

    lip = float(np.max(qdiag + np.asarray(abs(Poff).sum(axis=1)).ravel(), initial=0.0)) + c * st.K_top
    st.mu, _ = S.simplex_qp(matvec, a, st.mu, lip, max_iter=max_iter, tol=tol)


def contributions(st: State) -> np.ndarray:
    """``||W_i||^2``: the causal contribution (score) of each feature."""
    return np.sum(st.W**2, axis=1)


def nu_of(st: State, delta: np.ndarray) -> np.ndarray:
    """Alg. 1, line 10: the share of the causal contribution in each granularity."""
    c = contributions(st)
    tot = c.sum()
    M = int(delta.max()) + 1
    if tot <= 0:
        return np.full(M, 1.0 / M)
    return np.array([c[delta == m].sum() for m in range(M)]) / tot


def update_S_regroup(st: State, max_groups: int) -> None:
    """Alg. 1, lines 5 and 9-10: S^(m) by Eq. (10) together with new granularities and nu.

    New granularities come from ``||W_i||^2`` (Ward + Calinski-Harabasz), nu from their
    shares, and their S^(m) by Eq. (10) (gamma_i set afresh). The proposal is kept when Eq. (5)
    is not above its value before this step; else the granularities stay and only S is
    updated. Either way the objective does not increase, and S is computed once per
    iteration when the proposal is kept (the usual case).
    """
    delta = S.granularities(contributions(st)[:, None], max_groups)
    nu = nu_of(st, delta)
    if _same_partition(delta, st.delta) and np.allclose(nu, st.nu, rtol=0, atol=1e-12):
        update_S(st)
        return
    J = objective(st)
    trial = State(**{**st.__dict__})
    trial.nu = nu
    if _same_partition(delta, st.delta):  # only nu changes; gamma stays
        trial.S, trial.gamma = list(st.S), [g.copy() for g in st.gamma]
    else:
        trial.set_groups(delta)
        M = int(delta.max()) + 1
        trial.S = [None] * M
        trial.gamma = [np.zeros(st.X.shape[0]) for _ in range(M)]
    update_S(trial)
    if objective(trial) <= J:
        st.__dict__.update(trial.__dict__)
    else:
        update_S(st)


def _same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    if a.shape != b.shape:
        return False
    pairs = set(zip(a.tolist(), b.tolist()))
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))


def init_state(X: np.ndarray, *, alpha: float, beta: float, lam: float, k: int, h: int,
               variant: str, max_groups: int, seed: int) -> State:
    """Algorithm 1, line 1: granularities from Pearson correlations (Ward + CH), k-NN graphs
    (Eq. 10 on the raw data) for every S^(m) and G, F by spectral embedding, mu = 1/n, nu = 1/M, D = I."""
    n, d = X.shape
    G = S.knn_simplex_init(X, k)
    F = S.spectral_embedding(G, h, seed)
    if variant == "no_multigranular":
        delta = np.zeros(d, dtype=np.int64)
    elif wide(n, d):
        Y, extra = S.correlation_factor(X)
        delta = S.granularities(Y, max_groups, extra=extra)
    else:
        delta = S.granularities(S.correlation_rows(X), max_groups)
    M = int(delta.max()) + 1
    st = State(
        X=X, alpha=alpha, beta=beta, lam=lam, k=k, variant=variant,
        mu=np.full(n, 1.0 / n), W=np.zeros((d, h)), F=F, D=np.ones(d), delta=delta,
        nu=np.full(M, 1.0 / M), G=G, xi=np.zeros(n),
    )
    st.set_groups(delta)
    if st.multigranular:
        st.S = [S.knn_simplex_init(B, k) for B in st.blocks]
        st.gamma = [np.zeros(n) for _ in range(M)]
    if st.causal and beta > 0:
        st.K = S.balance_kernel(X)
        st.K_top = S.largest_eigenvalue(lambda v: S.kernel_matvec(st.K, v), n)
    return st


def iterate(st: State, *, max_iter: int, tol: float, max_groups: int, progress: bool = False) -> list[float]:
    """Algorithm 1, lines 2-11 (lines 9-10 merged into line 5 from the second iteration on:
    the granularities are re-derived from the W just computed). Returns Eq. (5) after each
    iteration."""
    from threadpoolctl import threadpool_limits

    from macrocause.framework.progress import progress as bar

    trace: list[float] = []
    # One BLAS thread: the products here are small (n x h, d_m x h) and thread start-up and
    # contention on a shared machine cost more than they save.
    with threadpool_limits(1):
        steps = bar(range(max_iter), "cause_fs iterations") if progress else range(max_iter)
        _loop(st, trace, steps, tol, max_groups)
    return trace


def _loop(st: State, trace: list, steps, tol: float, max_groups: int) -> None:
    for t in steps:
        update_W(st)
        if st.multigranular:
            if t == 0:
                update_S(st)  # gamma_i, xi_i: Eqs. (10), (12) at their first update, then fixed
            else:
                update_S_regroup(st, max_groups)
            update_G(st)
        update_F(st)
        if st.causal:
            update_mu(st)
        J = objective(st)
        trace.append(J)
        if t > 0 and abs(trace[-2] - J) <= tol * max(1.0, abs(trace[-2])):
            break
