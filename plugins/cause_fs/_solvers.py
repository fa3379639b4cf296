"""The sub-problem solvers of CAUSE-FS (Eqs. 7-16), as plain array functions.

Rows are samples here (``X`` is n x d); the paper writes d x n.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

EPS_L21 = 1e-10  # the epsilon of D_ii = 1 / (2 sqrt(||W_i||^2 + eps)); also in the objective


def memory_estimate(need: float, what: str, memory_gb: float | None):
    """The :class:`~macrocause.framework.memory.MemoryEstimate` of CAUSE-FS and SOGFS: *need* bytes of the
    parts that grow faster than linearly (named by *what*), against *memory_gb* when it is set
    (else the framework's budget); the role's verb refuses before anything is allocated."""
    from macrocause.framework.memory import MemoryEstimate

    return MemoryEstimate(need, what, "pre-select fewer features (e.g. the most variable) or raise memory_gb",
                          None if memory_gb is None else memory_gb * 2**30)


# -- simplex ------------------------------------------------------------------------------
def project_simplex(v: np.ndarray) -> np.ndarray:
    """Euclidean projection of a vector onto the probability simplex (sort-based, O(n log n))."""
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - 1.0
    ind = np.arange(1, v.size + 1)
    rho = np.nonzero(u - css / ind > 0)[0][-1]
    theta = css[rho] / (rho + 1.0)
    return np.maximum(v - theta, 0.0)


def simplex_qp(matvec, a: np.ndarray, x0: np.ndarray, lipschitz: float, max_iter: int = 300,
               tol: float = 1e-9) -> tuple[np.ndarray, float]:
    """Minimise ``x'Qx + a'x`` over the simplex by monotone accelerated projected gradient (MFISTA).

    Only products ``Q @ v`` are used (one per iteration; Q y is a combination of stored
    products), never a factorisation. The value never exceeds that of *x0*.

    Parameters
    ----------
    matvec : callable
        ``v -> Q @ v`` for a symmetric positive semi-definite Q.
    a : ndarray
        The linear term.
    x0 : ndarray
        A point of the simplex to start from.
    lipschitz : float
        An upper bound of the largest eigenvalue of Q (the gradient ``2Qx + a`` is
        ``2 * lipschitz``-Lipschitz).

    Returns
    -------
    x, value
    """
    step = 1.0 / (2.0 * max(lipschitz, 1e-300))
    x = x0.copy()
    Qx = matvec(x)
    fx = float(x @ Qx + a @ x)
    y, Qy, t = x.copy(), Qx.copy(), 1.0
    for _ in range(max_iter):
        z = project_simplex(y - step * (2.0 * Qy + a))
        Qz = matvec(z)
        fz = float(z @ Qz + a @ z)
        x_old, Qx_old = x, Qx
        if fz <= fx:
            x, Qx, fx = z, Qz, fz
        t_new = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
        c1, c2 = t / t_new, (t - 1.0) / t_new
        y = x + c1 * (z - x) + c2 * (x - x_old)
        Qy = Qx + c1 * (Qz - Qx) + c2 * (Qx - Qx_old)
        t = t_new
        if np.abs(z - x_old).sum() <= tol:
            break
    return x, fx


def largest_eigenvalue(matvec, n: int, iters: int = 30) -> float:
    """Power-iteration estimate (from above, with a 10 % margin) of the top eigenvalue of a PSD operator."""
    v = np.full(n, 1.0 / np.sqrt(n)) + np.linspace(0.0, 1e-3, n)
    v /= np.linalg.norm(v)
    lam = 0.0
    for _ in range(iters):
        w = matvec(v)
        lam = float(np.linalg.norm(w))
        if lam == 0.0:
            return 0.0
        v = w / lam
    return 1.1 * lam


# -- balancing (MMD) term of Eq. (15) ----------------------------------------------------
def treatment_signs(X: np.ndarray) -> np.ndarray:
    """``2E - 1``: +1 where a sample is above its feature's median (treated), -1 otherwise.

    Features without a treated or without a control sample are left out (their column is 0).
    """
    E = X > np.median(X, axis=0)
    s = np.where(E, 1.0, -1.0)
    t = E.sum(axis=0)
    s[:, (t == 0) | (t == X.shape[0])] = 0.0
    return s


def balance_kernel(X: np.ndarray, block: int = 1024) -> np.ndarray:
    """``K_ij = sum_r Q^r_ij Z^r_i . Z^r_j`` of Eq. (15) with ``Q^r_ij = s_ri s_rj``.

    ``Z^r_i . Z^r_j = X_i . X_j - X_ir X_jr``, so ``K = (X X') o (s s') - (s o X)(s o X)'``:
    three matrix products, formed once (n x n; float32 when n > 4000).
    """
    n = X.shape[0]
    dtype = np.float64 if n <= 4000 else np.float32
    s = treatment_signs(X).astype(dtype)
    Xd = X.astype(dtype)
    SX = s * Xd
    K = np.empty((n, n), dtype=dtype)
    for b in range(0, n, block):
        e = min(n, b + block)
        K[b:e] = (Xd[b:e] @ Xd.T) * (s[b:e] @ s.T)
        K[b:e] -= SX[b:e] @ SX.T
    return K


def kernel_matvec(K: np.ndarray, v: np.ndarray) -> np.ndarray:
    return (K @ v.astype(K.dtype, copy=False)).astype(np.float64)


# -- graphs (Eqs. 9-12) -------------------------------------------------------------------
def sparse_simplex_graph(A: np.ndarray, N: sp.csr_matrix, coef: float, gamma: np.ndarray, k: int,
                         n_candidates: int | None = None) -> sp.csr_matrix:
    """Rows ``s_i = argmin sum_j tau_ij s_ij + gamma_i ||s_i||^2`` on the simplex, ``s_ii = 0``.

    ``tau_ij = 0.5 ||A_i - A_j||^2 - coef * N_ij`` (Eq. 9 with N = G, coef = nu_m; Eq. 11
    with A = F, N = S-bar, coef = 1). Candidates: the *n_candidates* (default max(8k, 40))
    nearest neighbours in A, from one k-NN query, plus the support of N_i. Every other column
    has ``tau_ij`` >= that of the farthest candidate, so the rows are exact minimisers over
    all n columns unless more columns than that would be non-zero (ties).
    Rows with ``gamma_i <= 0`` take gamma_i from Eq. (10)/(12) (k neighbours), in place.
    """
    from ._kernels import simplex_rows

    n = A.shape[0]
    A = np.ascontiguousarray(A, dtype=np.float64)
    N = sp.csr_matrix(N)
    N.sort_indices()
    K = min(n, n_candidates or max(8 * k, 40))  # a cap: ties (e.g. an all-zero embedding) would make rows dense
    cand = nearest(A, K)
    rows = np.arange(n, dtype=np.int64)
    oi, ov, oc, _ = simplex_rows(A, cand, N.indptr.astype(np.int64), N.indices.astype(np.int64),
                                 N.data.astype(np.float64), float(coef), gamma, int(k), rows)
    mask = np.arange(oi.shape[1])[None, :] < oc[:, None]
    indptr = np.concatenate([[0], np.cumsum(oc)])
    out = sp.csr_matrix((ov[mask], oi[mask], indptr), shape=(n, n))
    out.sort_indices()
    return out


def nearest(A: np.ndarray, K: int) -> np.ndarray:
    """The *K* nearest rows of A to each row (itself included), ascending distance.

    Low dimension (embeddings, at most 32 columns): one k-d tree query for all rows
    (scipy's ``cKDTree``, O(n log n) per query in few dimensions; the brute-force scan it
    replaced cost O(n^2 h) and a third of CAUSE-FS's time); else scikit-learn's brute force
    (matrix products).
    """
    K = min(K, A.shape[0])
    if A.shape[1] <= 32:
        from scipy.spatial import cKDTree

        return cKDTree(A).query(A, K)[1].reshape(A.shape[0], K).astype(np.int64)
    from sklearn.neighbors import NearestNeighbors

    nn = NearestNeighbors(algorithm="brute").fit(A)
    return nn.kneighbors(A, n_neighbors=K, return_distance=False).astype(np.int64)


def laplacian(S: sp.spmatrix) -> sp.csr_matrix:
    """``L = D - (S + S')/2`` so that ``1/2 sum_ij S_ij ||a_i - a_j||^2 = tr(A' L A)``."""
    Ssym = 0.5 * (S + S.T)
    return (sp.diags(np.asarray(Ssym.sum(axis=1)).ravel()) - Ssym).tocsr()


# -- F by generalised power iteration (Eq. 14) --------------------------------------------
def gpi(L: sp.spmatrix, alpha: float, B: np.ndarray, F0: np.ndarray, max_iter: int = 50,
        tol: float = 1e-10) -> np.ndarray:
    """Minimise ``tr(F'(alpha I + L)F) - 2 tr(F'B)`` subject to ``F'F = I`` (Nie et al. 2017).

    With ``M = eta I - (alpha I + L)`` positive semi-definite (eta from Gershgorin), the
    problem is ``max tr(F'MF) + 2 tr(F'B)``; each step ``F <- polar(2MF + 2B)`` does not
    decrease it. Starts from *F0*.
    """
    L = sp.csr_matrix(L)
    eta = alpha + 2.0 * float(np.max(L.diagonal(), initial=0.0)) + 1e-12

    def value(F):
        return float(np.sum(F * (alpha * F + L @ F)) - 2.0 * np.sum(F * B))

    F, f = F0, value(F0)
    for _ in range(max_iter):
        Mf = (eta - alpha) * F - L @ F
        P = 2.0 * Mf + 2.0 * B
        w, V = np.linalg.eigh(P.T @ P)  # polar factor P (P'P)^-1/2, cheaper than an n x h SVD
        F_new = P @ (V / np.sqrt(np.maximum(w, 1e-300))) @ V.T
        f_new = value(F_new)
        if f_new > f:  # only by round-off
            break
        F, f_old, f = F_new, f, f_new
        if f_old - f <= tol * max(1.0, abs(f)):
            break
    return F


# -- feature granularities ----------------------------------------------------------------
WARD_1D_MIN = 2000  # 1-D Ward by the interval kernel above this many features (scipy's below)


def granularities(V: np.ndarray, max_groups: int, extra: np.ndarray | None = None) -> np.ndarray:
    """Ward clustering of the features (rows of V), the number of groups by Calinski-Harabasz.

    With *extra*, feature i is the row ``V_i`` plus a private direction of squared length
    ``extra_i`` (Gram ``V V' + diag(extra)``, the form of :func:`correlation_factor`); the
    distances are then formed from the Gram in blocks and clustered in place (``4 d^2`` bytes).
    One-dimensional V with more than ``WARD_1D_MIN`` rows uses the O(d log d) interval
    kernel :func:`ward_1d` (same tree). Returns labels 0..M-1, ordered by the first feature
    of each group. A single group when the rows are all equal or there are fewer than 3.
    """
    from scipy.cluster.hierarchy import fcluster, linkage
    from sklearn.metrics import calinski_harabasz_score

    d = V.shape[0]
    if d < 3:
        return np.zeros(d, dtype=np.int64)
    if extra is not None:
        y = factor_distances(V, extra)
        if not y.max(initial=0.0) > 1e-12 * max(1.0, float(np.sqrt(np.max(np.sum(V**2, axis=1) + extra)))):
            return np.zeros(d, dtype=np.int64)
        from ._kernels import ward_condensed

        Z = ward_condensed(y, d)  # overwrites y
        del y

        def ch(lab):
            return factor_calinski_harabasz(V, extra, lab)
    else:
        if np.allclose(V, V[0]):
            return np.zeros(d, dtype=np.int64)
        if V.shape[1] == 1 and d > WARD_1D_MIN:
            from ._kernels import ward_1d

            Z = ward_1d(np.ascontiguousarray(V[:, 0], dtype=np.float64))
        else:
            Z = linkage(V, method="ward")

        def ch(lab):
            return calinski_harabasz_score(V, lab)
    best, best_lab = -np.inf, np.zeros(d, dtype=np.int64)
    for m in range(2, min(max_groups, d - 1) + 1):
        lab = fcluster(Z, t=m, criterion="maxclust")
        if np.unique(lab).size < 2:
            continue
        score = ch(lab)
        if score > best:
            best, best_lab = score, lab
    _, first = np.unique(best_lab, return_index=True)
    order = np.argsort(first)
    remap = np.empty(order.size, dtype=np.int64)
    remap[order] = np.arange(order.size)
    return remap[np.searchsorted(np.unique(best_lab), best_lab)]


def correlation_rows(X: np.ndarray) -> np.ndarray:
    """Pearson correlation matrix of the columns (constant columns correlate 0, self 1)."""
    Xc = X - X.mean(axis=0)
    sd = np.sqrt((Xc**2).sum(axis=0))
    ok = sd > 0
    Xc[:, ok] /= sd[ok]
    C = Xc.T @ Xc
    np.fill_diagonal(C, 1.0)
    return C


def correlation_factor(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(Y, extra)`` (d x n and d) with ``C C' = Y Y' + diag(extra)`` for C = :func:`correlation_rows`.

    ``C = Z'Z + diag(extra)`` with Z the normalised columns and ``extra_i = 1`` for constant
    ones (zero columns of Z), so ``C C' = Z'(ZZ')Z + diag(extra)`` and ``Y = Z'U s^1/2`` from
    ``ZZ' = U diag(s) U'``: the rows of C, whose distances Ward clusters, are isometric to
    the rows of Y plus a private unit direction each for the constant features. O(n d)
    memory instead of d^2.
    """
    Z = X - X.mean(axis=0)
    sd = np.sqrt((Z**2).sum(axis=0))
    ok = sd > 0
    Z[:, ok] /= sd[ok]
    s, U = np.linalg.eigh(Z @ Z.T)
    return Z.T @ (U * np.sqrt(np.maximum(s, 0.0))), (~ok).astype(np.float64)


def factor_distances(Y: np.ndarray, extra: np.ndarray, block: int = 512) -> np.ndarray:
    """Condensed Euclidean distances (scipy's pdist order) of the rows of ``[Y, diag(extra)^1/2]``."""
    d = Y.shape[0]
    g = np.einsum("ij,ij->i", Y, Y)
    out = np.empty(d * (d - 1) // 2)
    pos = 0
    for b in range(0, d, block):
        e = min(d, b + block)
        sq = (g[b:e, None] + g[None, b:]) - 2.0 * (Y[b:e] @ Y[b:].T)
        sq += extra[b:e, None] + extra[None, b:]
        for i in range(b, e):
            row = sq[i - b, i - b + 1:]
            out[pos:pos + row.size] = row
            pos += row.size
    np.maximum(out, 0.0, out=out)
    return np.sqrt(out, out=out)


def factor_calinski_harabasz(Y: np.ndarray, extra: np.ndarray, labels: np.ndarray) -> float:
    """scikit-learn's ``calinski_harabasz_score`` of the rows of ``[Y, diag(extra)^1/2]`` from Y and extra."""
    d = Y.shape[0]
    _, lab = np.unique(labels, return_inverse=True)
    k = int(lab.max()) + 1
    cnt = np.bincount(lab, minlength=k).astype(np.float64)
    g = np.einsum("ij,ij->i", Y, Y) + extra
    sums = np.zeros((k, Y.shape[1]))
    np.add.at(sums, lab, Y)
    within = float(np.sum(np.bincount(lab, weights=g, minlength=k)
                          - (np.sum(sums**2, axis=1) + np.bincount(lab, weights=extra, minlength=k)) / cnt))
    total = float(g.sum() - (np.sum(Y.sum(axis=0) ** 2) + extra.sum()) / d)
    if within == 0.0:
        return 1.0
    return (total - within) * (d - k) / (within * (k - 1.0))


def knn_simplex_init(X: np.ndarray, k: int) -> sp.csr_matrix:
    """The adaptive-neighbour k-NN graph of Eq. (10) on raw distances (the paper's initial S and G)."""
    n = X.shape[0]
    gamma = np.zeros(n)
    return sparse_simplex_graph(X, sp.csr_matrix((n, n)), 0.0, gamma, k)


def spectral_embedding(G: sp.spmatrix, h: int, seed: int) -> np.ndarray:
    """Orthonormal n x h embedding: top eigenvectors of the normalised affinity ``D^-1/2 G_sym D^-1/2``."""
    from scipy.sparse.linalg import eigsh

    n = G.shape[0]
    Gs = 0.5 * (G + G.T)
    deg = np.asarray(Gs.sum(axis=1)).ravel()
    dinv = 1.0 / np.sqrt(np.maximum(deg, 1e-300))
    Nmat = sp.diags(dinv) @ Gs @ sp.diags(dinv)
    if n <= 400 or h >= n - 1:
        w, V = np.linalg.eigh(Nmat.toarray())
        V = V[:, ::-1][:, :h]
    else:
        v0 = np.random.default_rng(seed).standard_normal(n)
        w, V = eigsh(Nmat, k=h, which="LA", v0=v0, tol=1e-8)
        V = V[:, ::-1]
    Q, _ = np.linalg.qr(V)
    return Q


def eigengap_h(G: sp.spmatrix, seed: int, max_h: int = 30) -> int:
    """Number of clusters estimated by the largest eigengap of the normalised affinity (2..max_h)."""
    from scipy.sparse.linalg import eigsh

    n = G.shape[0]
    m = min(max_h + 1, n - 2)
    if m < 3:
        return max(1, min(2, n - 1))
    Gs = 0.5 * (G + G.T)
    deg = np.asarray(Gs.sum(axis=1)).ravel()
    dinv = 1.0 / np.sqrt(np.maximum(deg, 1e-300))
    Nmat = sp.diags(dinv) @ Gs @ sp.diags(dinv)
    if n <= 400:
        w = np.sort(np.linalg.eigvalsh(Nmat.toarray()))[::-1][:m]
    else:
        v0 = np.random.default_rng(seed).standard_normal(n)
        w = np.sort(eigsh(Nmat, k=m, which="LA", v0=v0, tol=1e-6, return_eigenvectors=False))[::-1]
    gaps = w[1:-1] - w[2:]  # gap after the 2nd, 3rd, ... eigenvalue
    return int(np.argmax(gaps)) + 2
