"""k-th nearest-neighbour distances (max-norm) of many column subsets of one data matrix.

The cached Kozachenko-Leonenko estimator (``cic(estimator="kl")``) needs, for each variable
subset T a search meets (up to 2^d - 1 of them), every point's distance to its k-th nearest
neighbour in the columns T. One k-d tree search per subset costs O(n log n) with a large
constant in 5-10 dimensions. Subsets share work through one exact property of the max-norm:

for S a subset of T, no pair of points is closer in T than in S.

So a list of each point's K + 1 nearest points in S (itself included), with the distance
``rho`` of the last one, holds every point closer than ``rho`` in S, and hence every point
closer than ``rho`` in T. When the (k+1)-th smallest T-distance among the list is at most
``rho``, it is the exact k-th neighbour distance in T: any point outside the list is at least
``rho`` away in T. A subset T is therefore first computed from the stored list of its
largest stored proper subset (one pass over n x (K + 1) candidates); the few points where the
test fails get a k-d tree query of their own. A subset with no usable list is searched by a
k-d tree for K + 1 neighbours, and its list is stored (within a memory budget).
Every distance is the same float as a direct search gives (a maximum of absolute
differences), so the entropies are identical.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from scipy.spatial import cKDTree


@njit(cache=True)
def kth_among_candidates(X: np.ndarray, cand: np.ndarray, rho: np.ndarray, k: int):
    """Per point i: the (k+1)-th smallest max-norm distance from X[i] to the points ``cand[i]``
    (i itself among them), and whether it is <= rho[i] (then it is exact, see the module)."""
    n, d = X.shape
    out = np.empty(n)
    ok = np.empty(n, np.bool_)
    best = np.empty(k + 1)
    for i in range(n):
        best[:] = np.inf
        for t in range(cand.shape[1]):
            j = cand[i, t]
            lim = best[k]
            dist = 0.0
            for c in range(d):
                a = abs(X[j, c] - X[i, c])
                if a > dist:
                    dist = a
                    if dist >= lim:
                        break
            if dist < lim:
                s = k
                while s > 0 and best[s - 1] > dist:
                    best[s] = best[s - 1]
                    s -= 1
                best[s] = dist
        out[i] = best[k]
        ok[i] = best[k] <= rho[i]
    return out, ok


class SubsetKNN:
    """k-th neighbour distances (max-norm, the point itself counted as the 0-th) of column subsets
    of *Z*, re-using the neighbour lists of subsets searched before (see the module).

    Parameters
    ----------
    Z : ndarray (n, d)
    k : int
        The neighbour whose distance is returned (``kth(cols)[i]`` = distance from point i to its
        k-th nearest other point in the columns *cols*, as ``cKDTree.query(k=k + 1)[0][:, k]``).
    n_list : int
        K: a stored list holds each point's K + 1 nearest points (itself included).
    max_fail : float
        A stored list is used when at most this fraction of the points fail its test (they get
        their own k-d tree query); otherwise the subset is searched in full and its list stored.
    max_bytes : int
        Memory budget of the stored lists; beyond it, full searches store nothing.
    """

    def __init__(self, Z: np.ndarray, k: int, n_list: int = 24, max_fail: float = 0.3,
                 max_bytes: int = 512 * 2**20) -> None:
        if n_list < k:
            raise ValueError(f"n_list ({n_list}) must be >= k ({k})")
        self.Z, self.k, self.n_list, self.max_fail, self.max_bytes = Z, k, n_list, max_fail, max_bytes
        self._lists: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # column bitmask -> (cand, rho)
        self._bytes = 0
        self.n_derived = self.n_searched = 0

    def _best_list(self, mask: int) -> tuple[np.ndarray, np.ndarray] | None:
        """The stored list of the largest proper subset of *mask* (first stored on ties)."""
        best, size = None, 0
        for m, lst in self._lists.items():
            if m != mask and m & mask == m and m.bit_count() > size:
                best, size = lst, m.bit_count()
        return best

    def kth(self, cols: tuple[int, ...]) -> np.ndarray:
        """Each point's distance to its k-th nearest other point in the columns *cols*."""
        k = self.k
        x = np.ascontiguousarray(self.Z[:, list(cols)])
        mask = sum(1 << c for c in cols)
        lst = self._best_list(mask)
        if lst is not None:
            eps, ok = kth_among_candidates(x, lst[0], lst[1], k)
            bad = np.flatnonzero(~ok)
            if bad.size <= self.max_fail * x.shape[0]:
                if bad.size:
                    eps[bad] = cKDTree(x).query(x[bad], k=k + 1, p=np.inf)[0][:, k]
                self.n_derived += 1
                return eps
        self.n_searched += 1
        size = x.shape[0] * ((self.n_list + 1) * 4 + 8)
        if self._bytes + size > self.max_bytes:
            return cKDTree(x).query(x, k=k + 1, p=np.inf)[0][:, k]
        dist, idx = cKDTree(x).query(x, k=min(self.n_list, x.shape[0] - 1) + 1, p=np.inf)
        self._lists[mask] = (np.ascontiguousarray(idx, dtype=np.int32), dist[:, -1].copy())
        self._bytes += size
        return dist[:, k]
