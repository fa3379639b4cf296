"""The numba kernels of our PC: the tests (Fisher's z, chi-square, G-square), the skeleton search
and causal-learn's ancestor-matrix rebuild.

Imported only by a search large enough to compile them (``n d^2 >`` :data:`._pc.PYTHON_WORK`,
or more than :data:`._pc_orient.JIT_AFTER` directed edges replayed), so a small first search
neither compiles nor imports numba. Each kernel is described where its plain-Python
counterpart lives: :mod:`._pc_citests`, :mod:`._pc_skeleton`, :mod:`._pc_orient`.

References
----------
Fisher. The distribution of the partial correlation coefficient. Metron 3, 1924.
Spirtes, Glymour, Scheines. Causation, Prediction, and Search. MIT Press, 2000, Sec. 5.5.
Press et al. Numerical Recipes, 3rd ed., 2007, Sec. 6.2 (incomplete gamma function).
Zheng et al. Causal-learn: causal discovery in Python. JMLR 25(60), 2024.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, types
from numba.typed import Dict

from macrocause.framework.numeric_kernels import (
    dense_rank,
    gamma_q,
    group_by,
    joint_keys,
    sorted_present,
)

from ._pc_citests import FISHERZ, GSQ

_EPS = np.finfo(np.float64).eps
_SQRT_HALF = math.sqrt(0.5)


@njit(cache=True)
def fisherz_p(corr: np.ndarray, n: int, x: int, y: int, S: np.ndarray) -> float:
    """p-value of Fisher's z test of the partial correlation of x and y given S."""
    k = S.shape[0]
    idx = np.empty(k + 2, np.int64)
    idx[0], idx[1] = min(x, y), max(x, y)
    idx[2:] = S
    sub = np.empty((k + 2, k + 2))
    for a in range(k + 2):
        for b in range(k + 2):
            sub[a, b] = corr[idx[a], idx[b]]
    inv = np.linalg.inv(sub)
    r = -inv[0, 1] / math.sqrt(abs(inv[0, 0] * inv[1, 1]))
    if abs(r) >= 1.0:
        r = (1.0 - _EPS) * np.sign(r)
    dof = n - k - 3
    if dof <= 0:  # too few samples to test: never reject
        return 1.0
    stat = math.sqrt(dof) * abs(0.5 * math.log((1.0 + r) / (1.0 - r)))
    z = stat * _SQRT_HALF
    if z < _SQRT_HALF:  # scipy's ndtr: erf near 0, erfc in the tail
        return 2.0 * (1.0 - (0.5 + 0.5 * math.erf(z)))
    return 2.0 * (1.0 - (1.0 - 0.5 * math.erfc(z)))


@njit(cache=True)
def chi2_sf(stat: float, df: float) -> float:
    """Survival function of the chi-square distribution with *df* degrees of freedom."""
    return gamma_q(0.5 * df, 0.5 * stat)


@njit(cache=True)
def _layers(codes: np.ndarray, cards: np.ndarray, S: np.ndarray) -> tuple[np.ndarray, int]:
    """Index of each sample's configuration of S among the configurations present."""
    n = codes.shape[0]
    keys, total = joint_keys(codes, S, cards)
    if total > max(4 * n, 1 << 16):
        return dense_rank(keys)
    slot = np.full(total, -1, np.int64)
    m = 0
    for t in range(n):
        if slot[keys[t]] < 0:
            slot[keys[t]] = m
            m += 1
        keys[t] = slot[keys[t]]
    return keys, m


@njit(cache=True)
def discrete_stat(codes: np.ndarray, cards: np.ndarray, x: int, y: int, layer: np.ndarray, m: int,
                  gsq: bool) -> tuple[float, int]:
    """Statistic and degrees of freedom of the chi-square (or G-square) test of x and y given
    the configuration index *layer* of each sample (``m`` configurations).

    As causal-learn: counts per configuration of S present in the data, expected
    counts from the margins of each configuration; a value of x (or y) absent from
    a configuration removes a row (column) from that configuration's degrees of freedom.
    :func:`stat_in` with the tables above :data:`SPARSE_RATIO` cells per sample counted sparsely.
    """
    return stat_in(codes, cards, x, y, layer, m, gsq, SPARSE_RATIO)


# count tables of more than SPARSE_RATIO cells per sample count only the cells met (chosen on random tests
# of barley, seed 100: the sparse count is 0.7x as fast at 1-2 cells per sample, 1.0x at 2-4, 1.4x at 4-8,
# 1.9x at 8-16; pc's skeleton takes the same CPU with 2 or 4)
SPARSE_RATIO = 4.0


@njit(cache=True)
def stat_in(codes, cards, x, y, layer, m, gsq, ratio):
    """:func:`discrete_stat` counted in a dense table of ``m ca cb`` cells up to ``ratio n`` cells,
    above that by :func:`sparse_stat` (the same floats)."""
    a, b = min(x, y), max(x, y)
    ca, cb = cards[a], cards[b]
    n = codes.shape[0]
    cells = m * ca * cb
    if cells > ratio * n:
        return sparse_stat(codes, a, b, ca, cb, layer, m, gsq)
    # four integer tallies, so that runs of one cell do not wait on each other (whole counts; 11-13%
    # less CPU than one table of floats in pc on barley and hepar2 from 1,024 cells up)
    lanes = np.zeros((4, cells), np.int64)
    t = 0
    while t + 4 <= n:
        for u in range(4):
            lanes[u, (layer[t + u] * ca + codes[t + u, a]) * cb + codes[t + u, b]] += 1
        t += 4
    while t < n:
        lanes[0, (layer[t] * ca + codes[t, a]) * cb + codes[t, b]] += 1
        t += 1
    cnt = np.empty((m, ca, cb))
    flat = cnt.reshape(cells)
    for k in range(cells):
        flat[k] = float(lanes[0, k] + lanes[1, k] + lanes[2, k] + lanes[3, k])
    stat = 0.0
    df = 0
    rows = np.empty(ca)
    cols = np.empty(cb)
    for w in range(m):  # margins summed in place (whole counts: exact in any order)
        tot = 0.0
        for i in range(ca):
            r = 0.0
            for j in range(cb):
                r += cnt[w, i, j]
            rows[i] = r
            tot += r
        for j in range(cb):
            c = 0.0
            for i in range(ca):
                c += cnt[w, i, j]
            cols[j] = c
        zr = 0
        for i in range(ca):
            if rows[i] == 0.0:
                zr += 1
        zc = 0
        for j in range(cb):
            if cols[j] == 0.0:
                zc += 1
        df += (ca - 1 - zr) * (cb - 1 - zc)
        for i in range(ca):
            for j in range(cb):
                e = rows[i] * cols[j] / tot
                c = cnt[w, i, j]
                if gsq:
                    if c > 0.0:
                        stat += c * math.log(c / e)
                elif e > 0.0:
                    stat += (c - e) ** 2 / e
    if gsq:
        stat *= 2.0
    return stat, df


@njit(cache=True)
def sparse_stat(codes, a, b, ca, cb, layer, m, gsq):
    """:func:`discrete_stat` of columns a < b (cardinalities ca, cb) counted per configuration
    (samples grouped once) over the values of a and b met in it, in increasing order: the dense
    loop's terms are zero elsewhere (no sample: no G-square term; an empty row or column: no
    expected count), and the margins, expected counts and terms are the same floats in the same
    order, so the statistic is the same to the last bit."""
    order, start = group_by(layer[:codes.shape[0]], m)  # a cached layer ends with m
    cell = np.zeros(ca * cb, np.int64)
    rows = np.zeros(ca, np.int64)
    cols = np.zeros(cb, np.int64)
    ri = np.empty(ca, np.int64)
    cj = np.empty(cb, np.int64)
    stat = 0.0
    df = 0
    for w in range(m):
        nr = 0
        nc = 0
        for u in range(start[w], start[w + 1]):
            t = order[u]
            i, j = codes[t, a], codes[t, b]
            if rows[i] == 0:
                ri[nr] = i
                nr += 1
            if cols[j] == 0:
                cj[nc] = j
                nc += 1
            rows[i] += 1
            cols[j] += 1
            cell[i * cb + j] += 1
        df += (nr - 1) * (nc - 1)  # (ca - 1 - empty rows)(cb - 1 - empty columns)
        if nr > 1:
            sorted_present(rows, ri, nr)
        if nc > 1:
            sorted_present(cols, cj, nc)
        tot = float(start[w + 1] - start[w])
        for u in range(nr):
            i = ri[u]
            for v in range(nc):
                j = cj[v]
                c = float(cell[i * cb + j])
                cell[i * cb + j] = 0
                e = float(rows[i]) * float(cols[j]) / tot
                if gsq:
                    if c > 0.0:
                        stat += c * math.log(c / e)
                else:
                    stat += (c - e) ** 2 / e
            rows[i] = 0
        for v in range(nc):
            cols[cj[v]] = 0
    if gsq:
        stat *= 2.0
    return stat, df


@njit(cache=True)
def discrete_p(codes: np.ndarray, cards: np.ndarray, x: int, y: int, S: np.ndarray, gsq: bool) -> float:
    """p-value of the chi-square (or G-square) test of x and y given S (p = 1 when no degree
    of freedom is left, as causal-learn)."""
    layer, m = _layers(codes, cards, S)
    return _stratified_p(codes, cards, x, y, layer, m, gsq)


@njit(cache=True)
def _stratified_p(codes, cards, x, y, layer, m, gsq):
    """p-value of the test of x and y within the *m* strata *layer* (p = 1 without a degree of freedom)."""
    stat, df = discrete_stat(codes, cards, x, y, layer, m, gsq)
    if df == 0:
        return 1.0
    return chi2_sf(stat, df)


@njit(cache=True)
def _p_value(kind, corr, n, codes, cards, x, y, S):
    if kind == FISHERZ:
        return fisherz_p(corr, n, x, y, S)
    return discrete_p(codes, cards, x, y, S, kind == GSQ)


LAYER_CACHE = 256  # most configuration indices of conditioning sets kept while one variable's pairs are tested


@njit(cache=True)
def _discrete_p_cached(codes, cards, x, y, S, gsq, layers):
    """:func:`discrete_p` with the configuration index of S (and its count, last) kept in *layers*,
    keyed by S (its members + 1 in base d + 1): the pairs (x, y) of one x test the same sets S again (up to deg(x) - |S|
    times), so they are counted once. The same p-value."""
    d = cards.shape[0]
    key = 0
    for s in S:
        key = key * (d + 1) + s + 1
    lay = layers.get(key)
    if lay is None:
        n = codes.shape[0]
        layer, m = _layers(codes, cards, S)
        lay = np.empty(n + 1, np.int64)
        lay[:n] = layer
        lay[n] = m
        if len(layers) < LAYER_CACHE:
            layers[key] = lay
    return _stratified_p(codes, cards, x, y, lay, lay[codes.shape[0]], gsq)


@njit(cache=True)
def _subset_of_row(adj, b, S):
    for s in S:
        if not adj[b, s]:
            return False
    return True


@njit(cache=True)
def _next_combination(comb: np.ndarray, m: int) -> bool:
    """Advance *comb* (increasing indices into m items) to the next combination in lexicographic
    order, in place; False after the last."""
    k = comb.shape[0]
    t = k - 1
    while t >= 0 and comb[t] == m - k + t:
        t -= 1
    if t < 0:
        return False
    comb[t] += 1
    for u in range(t + 1, k):
        comb[u] = comb[u - 1] + 1
    return True


@njit(cache=True)
def _grow(buf: np.ndarray, used: int, extra: int) -> np.ndarray:
    """*buf* with room for *extra* more rows after *used* (doubled when full)."""
    if used + extra <= buf.shape[0]:
        return buf
    out = np.empty((max(2 * buf.shape[0], used + extra), 3), np.int64)
    out[:used] = buf[:used]
    return out


@njit(cache=True)
def skeleton(kind: int, alpha: float, max_k: int, stable: bool, corr: np.ndarray, n: int,
             codes: np.ndarray, cards: np.ndarray, start: np.ndarray) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Adjacency matrix, separating sets and counts of the skeleton search from the symmetric
    adjacency *start* (the complete graph for PC; pairs not adjacent in it are never tested).

    Returns ``(adj, sep, n_tests, depth)``: ``adj`` is a d x d boolean matrix;
    ``sep`` is an m x 3 array of rows ``(a, b, k)`` (``a < b``; a row repeats at
    most once, when both ends found it), each saying that ``k`` is in the separating set of the removed pair ``a, b``
    (stored sparsely: its size grows with the separating sets found, not with
    d^3); ``n_tests`` counts the tests computed and ``depth`` is the last depth
    searched. ``max_k < 0`` means no limit.
    """
    d = start.shape[0]
    adj = start.copy()
    for i in range(d):
        adj[i, i] = False
    sep = np.empty((64, 3), np.int64)
    used = 0
    seen = np.zeros(d, np.bool_)  # members of the current pair's separating set stored
    n_tests = 0
    depth = -1
    while True:
        max_deg = 0
        for i in range(d):
            max_deg = max(max_deg, adj[i].sum())
        if max_deg - 1 <= depth or (max_k >= 0 and depth + 1 > max_k):
            break
        depth += 1
        snap = adj.copy() if stable else adj
        remove = np.zeros((d, d), np.bool_)
        comb = np.empty(depth, np.int64)
        # configuration indices reused within one x: keys of S in base d + 1 must not overflow
        reuse = kind != FISHERZ and depth * math.log2(d + 1) < 62.0
        for x in range(d):
            layers = Dict.empty(key_type=types.int64, value_type=types.int64[:])
            neigh = np.nonzero(snap[x])[0]
            for y in neigh:
                if not adj[x, y]:
                    continue  # original PC: removed earlier at this depth
                others = neigh[neigh != y]
                m = others.shape[0]
                if m < depth:
                    continue
                a, b = min(x, y), max(x, y)
                for u in range(depth):
                    comb[u] = u
                first = used
                while True:
                    S = others[comb]
                    # stable: the other endpoint has tested this subset already
                    if not (stable and y < x and _subset_of_row(snap, y, S)):
                        n_tests += 1
                        if reuse:
                            p = _discrete_p_cached(codes, cards, x, y, S, kind == GSQ, layers)
                        else:
                            p = _p_value(kind, corr, n, codes, cards, x, y, S)
                        if p > alpha:
                            sep = _grow(sep, used, depth)
                            for s in S:
                                if not seen[s]:
                                    seen[s] = True
                                    sep[used, 0], sep[used, 1], sep[used, 2] = a, b, s
                                    used += 1
                            if stable:
                                remove[a, b] = True
                            else:
                                adj[x, y] = False
                                adj[y, x] = False
                                break
                    if not _next_combination(comb, m):
                        break
                for t in range(first, used):
                    seen[sep[t, 2]] = False
        if stable:
            for a in range(d):
                for b in range(a + 1, d):
                    if remove[a, b]:
                        adj[a, b] = False
                        adj[b, a] = False
    return adj, sep[:used], n_tests, depth


@njit(cache=True)
def _first_separating(kind, alpha, corr, n, codes, cards, a, b, side, size, adj, tested_by):
    """The first set S of *size* members of *side* (combinations in lexicographic order) with
    ``p(a, b, S) > alpha``: ``(True, S)``, or ``(False, _)``. Sets within the neighbours of
    *tested_by* in *adj* (-1: none) were tested before, with no separation: skipped."""
    S = np.empty(size, np.int64)
    if size > side.shape[0]:
        return False, S
    comb = np.arange(size)
    while True:
        S = side[comb]
        if not (tested_by >= 0 and _subset_of_row(adj, tested_by, S)):
            if _p_value(kind, corr, n, codes, cards, a, b, S) > alpha:
                return True, S
        if not _next_combination(comb, side.shape[0]):
            return False, S


@njit(cache=True)
def untested_sepsets(kind: int, alpha: float, max_k: int, corr: np.ndarray, n: int, codes: np.ndarray,
                     cards: np.ndarray, adj: np.ndarray, start: np.ndarray) -> np.ndarray:
    """``_pc._untested_sepsets`` with the kernels' tests: the separating-set rows ``(a, b, k)`` of the
    pairs a < b not adjacent in *start* with a common neighbour in *adj* (the same sets: a set both
    sides offer is tested once, as the Python version's cache does)."""
    d = adj.shape[0]
    out = np.empty((16, 3), np.int64)
    used = 0
    for a in range(d):
        for b in range(a + 1, d):
            if start[a, b]:
                continue
            common = np.array([c for c in range(d) if adj[a, c] and adj[b, c]], np.int64)
            if common.shape[0] == 0:
                continue
            sa = np.array([v for v in range(d) if adj[a, v] and v != b], np.int64)
            sb = np.array([v for v in range(d) if adj[b, v] and v != a], np.int64)
            top = max(sa.shape[0], sb.shape[0])
            if max_k >= 0:
                top = min(max_k, top)
            found = False
            S = common
            for size in range(top + 1):
                found, S = _first_separating(kind, alpha, corr, n, codes, cards, a, b, sa, size, adj, -1)
                if not found:  # b's sets within a's neighbours were a's sets of this size
                    found, S = _first_separating(kind, alpha, corr, n, codes, cards, a, b, sb, size, adj, a)
                if found:
                    break
            if not found:
                S = common
            out = _grow(out, used, S.shape[0])
            for v in S:
                out[used, 0], out[used, 1], out[used, 2] = a, b, v
                used += 1
    return out[:used].copy()


@njit(cache=True)
def _adjust_dpath(dpath: np.ndarray, i: int, j: int) -> None:
    """causal-learn's ``adjust_dpath`` for a new edge i -> j (ancestors of i become ancestors
    of j, i an ancestor of j's descendants; not a transitive closure)."""
    d = dpath.shape[0]
    dpath[j, i] = True
    for k in range(d):
        if dpath[i, k]:
            dpath[j, k] = True
        if dpath[k, j]:
            dpath[k, i] = True


@njit(cache=True)
def _rebuild_dpath(M: np.ndarray, dpath: np.ndarray) -> None:
    """causal-learn's ``reconstitute_dpath``: identity, then its edge list (pairs i < j row by
    row) taken from the end, each directed edge through :func:`_adjust_dpath`."""
    d = M.shape[0]
    dpath[:, :] = False
    for i in range(d):
        dpath[i, i] = True
    for a in range(d - 1, -1, -1):
        for b in range(d - 1, a, -1):
            if M[a, b] == -1 and M[b, a] == 1:
                _adjust_dpath(dpath, a, b)
            elif M[b, a] == -1 and M[a, b] == 1:
                _adjust_dpath(dpath, b, a)
