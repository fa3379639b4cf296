"""Greedy forward selection of a feature subset that best fits an embedding (ours, not in the paper).

CAUSE-FS ranks features by ``||W_i||^2`` of the l2,1-regularised regression of F on X
(Eq. 5). ``selection="greedy"`` instead chooses the features one at a time, each time the
one that most increases the weighted ridge fit of the learned embedding F by the chosen
columns: an l2,0 (exactly c rows) reading of the same regression term, solved greedily.
"""

from __future__ import annotations

import numpy as np


def greedy_subset(X: np.ndarray, F: np.ndarray, w: np.ndarray, c: int,
                  ridge: float = 1e-3) -> tuple[np.ndarray, np.ndarray]:
    """Forward selection of *c* columns of X maximising ``tr(B_S' (S_S + eps I)^-1 B_S)``.

    ``S = X_c' diag(w) X_c`` is the w-weighted scatter of the w-centred columns, ``B = X_c'
    diag(w) F`` and ``eps = ridge * tr(S) / d``. Adding column j to S raises the criterion by
    ``||b_j||^2 / r_j`` (a Schur complement), where ``r_j`` and ``b_j`` are column j's
    residual variance and cross-product with F after projection on the chosen columns; both
    are updated in O(n d) per step (one Gram column), so no d x d matrix is formed.

    Parameters
    ----------
    X : ndarray (n, d)
    F : ndarray (n, h)
    w : ndarray (n,)
        Non-negative sample weights (CAUSE-FS's mu).
    c : int
        Number of columns to choose (at most d).
    ridge : float
        Ridge relative to the mean column variance.

    Returns
    -------
    selected : ndarray of int
        The chosen columns in the order chosen.
    gains : ndarray (d,)
        Each chosen column's gain when chosen; for the others, their gain after the last step.
    """
    n, d = X.shape
    c = min(c, d)
    Xc = X - (w @ X) / w.sum()
    Xw = w[:, None] * Xc
    r = np.einsum("ij,ij->j", Xw, Xc)  # diagonal of the scatter
    eps = ridge * r.sum() / d
    r = r + eps
    Bres = Xw.T @ F  # residual cross-products, d x h
    Q = np.zeros((d, c))  # Cholesky-like factor: projected Gram = Q Q'
    gains = np.zeros(d)
    chosen = np.zeros(d, dtype=bool)
    selected = np.empty(c, dtype=np.int64)
    for t in range(c):
        g = np.einsum("ij,ij->i", Bres, Bres) / np.maximum(r, 1e-300)
        g[chosen] = -np.inf
        s = int(np.argmax(g))
        selected[t], chosen[s], gains[s] = s, True, g[s]
        col = Xw.T @ Xc[:, s]  # Gram column s
        col[s] += eps
        q = (col - Q[:, :t] @ Q[s, :t]) / np.sqrt(r[s])
        Q[:, t] = q
        Bres -= np.outer(q, Bres[s] / np.sqrt(r[s]))
        r = r - q**2
    rest = ~chosen
    if rest.any():
        gains[rest] = np.einsum("ij,ij->i", Bres[rest], Bres[rest]) / np.maximum(r[rest], 1e-300)
    return selected, gains
