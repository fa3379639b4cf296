"""DISCO's MST where trees stop helping: exact core distances and Boruvka over the
mutual-reachability graph from blocked matrix products, in O(n) memory.

Squared distances are screened in blocks of rows, ``|x|^2 + |y|^2 - 2 x.y`` with the
products in float32 BLAS (O(n^2 d) time through matrix products), and every value
that is kept is recomputed exactly in float64 from the rows. A proven bound on the
screening error gives, per point, a lower bound on everything it did not keep, so the
result is the exact MST weights (the reference tests hold at 1e-9).

Boruvka keeps for each point a short list of its nearest points *outside its
component* (exact values, ascending) and a lower bound ``lb`` on every point left
out. Components only grow, so an entry that joins the point's component never leaves
it and the list stays valid; a point is rescanned (one row of a block) only when its
list is used up and its bound is below its component's best edge so far.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._kernels import _find, merge_best_edges, sqdist

BLOCK_BYTES = 32 * 2**20  # float32 products held at once (rows x n)
LIST_LEN = 32
_U32 = 2.0**-24


@njit(cache=True)
def _insert(vals, idx, size, v, p):
    """Insert (v, p) into the ascending arrays of current length ``size`` (capacity fixed);
    returns the new length and the evicted value (inf when nothing was evicted)."""
    cap = vals.shape[0]
    evicted = np.inf
    if size == cap:
        evicted = vals[cap - 1]
        size -= 1
    j = size
    while j > 0 and vals[j - 1] > v:
        vals[j] = vals[j - 1]
        idx[j] = idx[j - 1]
        j -= 1
    vals[j] = v
    idx[j] = p
    return size + 1, evicted


@njit(cache=True)
def _screen_rows(X, rows, G, sq, gamma, core, comp, mutual, out_idx, out_val, out_len, out_lb):
    """For each row q of the block (products ``G[r, p] = x_q . x_p``), keep the ``L``
    points with the smallest screened value and recompute them exactly.

    ``mutual`` false: Euclidean distance over all points (q itself included).
    ``mutual`` true: mutual reachability ``max(core_q, core_p, |x_q - x_p|)`` over the
    points outside q's component. ``out_lb[r]``: a lower bound on the exact value of
    every point not kept (inf when every candidate was kept). The scan works on
    squares (no root in the inner loop).
    """
    n = X.shape[0]
    L = out_idx.shape[1]
    av = np.empty(L)
    ai = np.empty(L, np.int64)
    for r in range(rows.shape[0]):
        q = rows[r]
        cq = core[q] if mutual else 0.0
        cq2 = cq * cq
        kq = comp[q]
        sq_q = sq[q]
        size = 0
        lb2 = np.inf
        top = np.inf  # the largest kept screened square once the list is full
        for p in range(n):
            if mutual and comp[p] == kq:
                continue
            s = sq_q + sq[p] - 2.0 * G[r, p]
            if mutual:
                m2 = max(cq2, core[p] * core[p])
                if s < m2:
                    s = m2
            if s < top or size < L:
                if size == L:
                    # evict the largest kept entry; its lower bound joins the bound of the rest
                    pe = ai[L - 1]
                    le = sq_q + sq[pe] - 2.0 * G[r, pe] - gamma * (sq_q + sq[pe])
                    if mutual:
                        le = max(le, cq2, core[pe] * core[pe])
                    if le < lb2:
                        lb2 = le
                size, _ = _insert(av, ai, size, s, p)
                if size == L:
                    top = av[L - 1]
            else:
                lo = s - gamma * (sq_q + sq[p])
                if mutual:
                    lo = max(lo, m2)
                if lo < lb2:
                    lb2 = lo
        # exact values of the kept points, ascending
        ev = np.empty(size)
        for t in range(size):
            p = ai[t]
            d = np.sqrt(sqdist(X, q, p))
            ev[t] = max(d, cq, core[p]) if mutual else d
        order = np.argsort(ev, kind="mergesort")
        for t in range(size):
            out_idx[r, t] = ai[order[t]]
            out_val[r, t] = ev[order[t]]
        out_len[r] = size
        out_lb[r] = np.sqrt(lb2) if lb2 > 0.0 else 0.0


@njit(cache=True)
def _screen_rows_mutual(X, rows, G, sq, gamma, core, comp, out_idx, out_val, out_len, out_lb):
    """Rescan rows for Boruvka: for each row q, the ``L`` nearest *components* other than
    q's in mutual reachability, one witness point each (exact value), ascending, and a
    lower bound on every point of the components not kept.

    A component only ever merges into a larger one, so an entry stays valid until its
    component joins q's; keeping one entry per component (not per point) means a point
    needs another scan only when its L nearest components have all joined it.
    """
    n = X.shape[0]
    L = out_idx.shape[1]
    best = np.full(n, np.inf)  # per component root: smallest screened square
    wit = np.zeros(n, np.int64)
    lo_w = np.zeros(n)  # lower bound of the witness
    lo_rest = np.full(n, np.inf)  # lower bound over the component's other points
    touched = np.empty(n, np.int64)
    kept = np.zeros(n, np.bool_)
    exact = np.empty(n)
    av = np.empty(L)
    ai = np.empty(L, np.int64)
    for r in range(rows.shape[0]):
        q = rows[r]
        cq = core[q]
        cq2 = cq * cq
        kq = comp[q]
        sq_q = sq[q]
        nt = 0
        for p in range(n):
            c = comp[p]
            if c == kq:
                continue
            s = sq_q + sq[p] - 2.0 * G[r, p]
            m2 = max(cq2, core[p] * core[p])
            lo = max(s - gamma * (sq_q + sq[p]), m2)
            s = max(s, m2)
            if best[c] == np.inf:
                touched[nt] = c
                nt += 1
                best[c] = s
                wit[c] = p
                lo_w[c] = lo
            elif s < best[c]:
                if lo_w[c] < lo_rest[c]:
                    lo_rest[c] = lo_w[c]
                best[c] = s
                wit[c] = p
                lo_w[c] = lo
            elif lo < lo_rest[c]:
                lo_rest[c] = lo
        size = 0
        for t in range(nt):
            c = touched[t]
            if size < L or best[c] < av[L - 1]:
                size, _ = _insert(av, ai, size, best[c], c)
        for t in range(size):
            kept[ai[t]] = True
        lb2 = np.inf  # components not kept bound the rest
        for t in range(nt):
            c = touched[t]
            if not kept[c]:
                lb2 = min(lb2, lo_w[c], lo_rest[c])
        ev = np.empty(size)
        any_unsure = False
        for t in range(size):
            c = ai[t]
            p = wit[c]
            ev[t] = max(np.sqrt(sqdist(X, q, p)), cq, core[p])
            exact[c] = ev[t]
            if lo_rest[c] < ev[t] * ev[t]:  # another point of c may be nearer: check those exactly
                any_unsure = True
        if any_unsure:
            for p in range(n):
                c = comp[p]
                if c == kq or not kept[c] or p == wit[c] or lo_rest[c] >= exact[c] * exact[c]:
                    continue
                lo = max(sq_q + sq[p] - 2.0 * G[r, p] - gamma * (sq_q + sq[p]), cq2, core[p] * core[p])
                if lo < exact[c] * exact[c]:
                    v = max(np.sqrt(sqdist(X, q, p)), cq, core[p])
                    if v < exact[c]:
                        exact[c] = v
                        wit[c] = p
            for t in range(size):
                ev[t] = exact[ai[t]]
        order = np.argsort(ev, kind="mergesort")
        for t in range(size):
            out_idx[r, t] = wit[ai[order[t]]]
            out_val[r, t] = ev[order[t]]
        out_len[r] = size
        out_lb[r] = np.sqrt(lb2) if lb2 > 0.0 else 0.0
        for t in range(nt):
            c = touched[t]
            best[c] = np.inf
            lo_rest[c] = np.inf
            kept[c] = False


@njit(cache=True)
def _exact_row(X, q, core, comp, mutual, min_points, out_idx, out_val, r):
    """Exact fallback for one row (used when screening could not decide): the
    min_points nearest (Euclidean) or the single nearest point outside q's component
    (mutual reachability). Returns (length, lower bound on the rest)."""
    n = X.shape[0]
    L = out_idx.shape[1]
    cap = min_points if not mutual else 1
    av = np.empty(cap)
    ai = np.empty(cap, np.int64)
    size = 0
    cq = core[q] if mutual else 0.0
    for p in range(n):
        if mutual and comp[p] == comp[q]:
            continue
        d = np.sqrt(sqdist(X, q, p))
        v = max(d, cq, core[p]) if mutual else d
        if size < cap or v < av[cap - 1]:
            size, _ = _insert(av, ai, size, v, p)
    for t in range(L):
        out_idx[r, t] = ai[t] if t < size else -1
        out_val[r, t] = av[t] if t < size else np.inf
    return size, (av[size - 1] if size == cap else np.inf)


def _block_rows(n: int) -> int:
    return max(1, min(n, BLOCK_BYTES // (4 * max(n, 1))))


class _Screen:
    """Centered float32 copy of X and the squared norms, for the block products."""

    def __init__(self, X: np.ndarray):
        Xc = X - X.mean(axis=0)
        self.X32 = np.ascontiguousarray(Xc, dtype=np.float32)
        self.sq = np.einsum("ij,ij->i", Xc, Xc)
        d = X.shape[1]
        # |fl32(x).fl32(y) in float32 - x.y| <= ((d + 2) u + O(u^2)) |x||y| <= (d + 3) u (|x|^2 + |y|^2) / 2;
        # the factor 4 covers the norms' rounding and leaves margin
        self.gamma = 4.0 * (d + 4) * _U32

    def products(self, rows: np.ndarray) -> np.ndarray:
        return self.X32[rows] @ self.X32.T


def core_distances_blocked(X: np.ndarray, min_points: int):
    """Exact distance to the min_points-th nearest point (itself counted), by blocks."""
    n = X.shape[0]
    scr = _Screen(X)
    L = list_len(n, min_points)
    idx = np.empty((n, L), np.int64)
    val = np.empty((n, L))
    length = np.empty(n, np.int64)
    lb = np.empty(n)
    dummy = np.zeros(n)
    comp = np.zeros(n, np.int64)
    B = _block_rows(n)
    for s in range(0, n, B):
        rows = np.arange(s, min(n, s + B))
        _screen_rows(X, rows, scr.products(rows), scr.sq, scr.gamma, dummy, comp, False,
                     idx[s:s + B], val[s:s + B], length[s:s + B], lb[s:s + B])
    core = val[:, min_points - 1].copy()
    for q in np.flatnonzero(lb < core):  # the screen could not certify the k-th distance
        _exact_row(X, q, dummy, comp, False, min_points, idx, val, q)
        core[q] = val[q, min_points - 1]
        length[q] = min_points
        lb[q] = core[q]
    return core, scr, (idx, val, length, lb)


def list_len(n: int, min_points: int) -> int:
    return min(n, max(min_points + 8, LIST_LEN))


def _mutual_lists(core, idx, val, length, lb):
    """The Euclidean neighbour lists as mutual-reachability lists (ascending, exact) with a
    lower bound on every point not listed: ``max(core_q, Euclidean bound)``."""
    n, L = idx.shape
    cols = np.arange(L)
    valid = cols[None, :] < length[:, None]
    mv = np.where(valid, np.maximum(np.maximum(val, core[:, None]), core[np.where(valid, idx, 0)]), np.inf)
    order = np.argsort(mv, axis=1, kind="stable")
    return (np.take_along_axis(idx, order, 1), np.take_along_axis(mv, order, 1), length.copy(),
            np.maximum(lb, core))


@njit(cache=True)
def _round_candidates(uf, comp, lst_idx, lst_val, lst_len, head, lb, best_w, best_u, best_v, need):
    """One Boruvka round from the lists: each component's best known edge, and the
    points whose lists cannot prove their part (``need``, returned as a count)."""
    n = comp.shape[0]
    for i in range(n):
        comp[i] = _find(uf, i)
        best_w[i] = np.inf
    for q in range(n):
        c = comp[q]
        h = head[q]
        while h < lst_len[q] and comp[lst_idx[q, h]] == c:
            h += 1
        head[q] = h
        if h < lst_len[q]:
            w = lst_val[q, h]
            if w < best_w[c]:
                best_w[c] = w
                best_u[c] = q
                best_v[c] = lst_idx[q, h]
    m = 0
    for q in range(n):
        c = comp[q]
        h = head[q]
        a = lst_val[q, h] if h < lst_len[q] else np.inf
        if lb[q] < a and lb[q] < best_w[c]:
            need[m] = q
            m += 1
    return m


@njit(cache=True)
def _apply_rows(rows, idx, val, length, lbr, lst_idx, lst_val, lst_len, head, lb, comp, best_w, best_u, best_v):
    for r in range(rows.shape[0]):
        q = rows[r]
        L = length[r]
        for t in range(L):
            lst_idx[q, t] = idx[r, t]
            lst_val[q, t] = val[r, t]
        lst_len[q] = L
        head[q] = 0
        lb[q] = lbr[r]
        if L > 0:
            c = comp[q]
            if val[r, 0] < best_w[c]:
                best_w[c] = val[r, 0]
                best_u[c] = q
                best_v[c] = idx[r, 0]


def blocked_mst(X: np.ndarray, min_points: int):
    """Exact core distances and MST of mutual reachability by Boruvka over screened blocks.

    Returns ``(core, (u, v, w))``; O(n) memory beyond one block of products.
    """
    n = X.shape[0]
    core, scr, lists = core_distances_blocked(X, min_points)
    if n == 1:
        return core, (np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0))
    lst_idx, lst_val, lst_len, lb = _mutual_lists(core, *lists)
    L = lst_idx.shape[1]
    head = np.zeros(n, np.int64)
    uf = np.arange(n)
    comp = np.empty(n, np.int64)
    best_w = np.empty(n)
    best_u = np.zeros(n, np.int64)
    best_v = np.zeros(n, np.int64)
    need = np.empty(n, np.int64)
    eu = np.empty(n - 1, np.int64)
    ev = np.empty(n - 1, np.int64)
    ew = np.empty(n - 1)
    n_edges = 0
    B = _block_rows(n)
    bidx = np.empty((B, L), np.int64)
    bval = np.empty((B, L))
    blen = np.empty(B, np.int64)
    blb = np.empty(B)
    while n_edges < n - 1:
        m = _round_candidates(uf, comp, lst_idx, lst_val, lst_len, head, lb, best_w, best_u, best_v, need)
        todo = need[:m][np.argsort(lb[need[:m]], kind="stable")]
        for s in range(0, m, B):
            rows = todo[s:s + B]
            rows = rows[lb[rows] < best_w[comp[rows]]]  # the best edge may have improved meanwhile
            if rows.size == 0:
                continue
            k = rows.size
            _screen_rows_mutual(X, rows, scr.products(rows), scr.sq, scr.gamma, core, comp,
                                bidx[:k], bval[:k], blen[:k], blb[:k])
            for r in np.flatnonzero((blen[:k] > 0) & (bval[:k, 0] > blb[:k])):  # screen undecided: exact row
                blen[r], blb[r] = _exact_row(X, rows[r], core, comp, True, 1, bidx, bval, r)
            _apply_rows(rows, bidx, bval, blen, blb, lst_idx, lst_val, lst_len, head, lb, comp, best_w, best_u, best_v)
        before = n_edges
        n_edges = merge_best_edges(uf, comp, best_w, best_u, best_v, eu, ev, ew, n_edges)
        if n_edges == before:
            raise RuntimeError("disco: the blocked mutual reachability MST made no progress (a bug).")
    return core, (eu, ev, ew)
