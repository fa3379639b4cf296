"""numba kernels of the ``bic`` engine's own climb over plain DAGs of discrete variables: the whole climb
of :func:`macrocause.framework.dag_climb.climb_edges` (gain tables, move choice, tabu list, reachability)
with the discrete BIC local scores and their caches inside numba.

Every value is computed as :class:`~macrocause.plugins.baselines.bic.BICEngine` computes it on
:class:`~macrocause.framework.entropy.NumpyEntropies`, in the same order of cache fills (joint entropies
one at a time in key order; a family's candidate parents counted together, either by
:func:`~macrocause.framework.numeric_kernels.clogc_sums_plus` or, below ``NUMBA_WORK``, as NumPy's dense
count summed as NumPy sums, see :func:`np_sum`), so both climbs give the same floats, the same moves and
ties, and draw the same random numbers. Column sets are keyed by two 64-bit masks (up to 128 variables).

With ``bound`` (the default where candidates are counted in numba) a family's add moves are counted only
where they can matter: the gain of adding a to i's parents P is ``N I(i; a | P) - (log N / 2)(s_i - 1)
q_P (s_a - 1)`` and ``I(i; a | P) <= min(H(i | P), H(a | P), H(a))``, so a move whose bound is negative
is left uncounted until a step's best move (or a tie of it) is within reach of its bound; then it is
counted and the step chosen again. The moves, ties and draws are those of the full count; the floats can
differ in the last bits, because the entropy of a column set counted later may come from another base.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, types
from numba.typed import Dict

from macrocause.framework.dag_climb import TIE, TOL
from macrocause.framework.dag_climb_kernels import add_reach, best_moves, reach
from macrocause.framework.numeric_kernels import (
    clogc_sums_plus,
    dense_rank,
    entropy_of_keys,
    joint_entropy,
    joint_keys,
)

MAX_VARIABLES = 128  # two 64-bit masks per column set
_BLOCK = 8192  # NumPy's reduction buffer: a longer sum is the sum of its blocks' pairwise sums
_SET = types.UniTuple(types.int64, 2)
_FAMILY = types.UniTuple(types.int64, 3)


@njit(cache=True)
def _pairwise(a: np.ndarray, lo: int, n: int) -> float:
    """NumPy's pairwise sum of ``a[lo:lo + n]`` (8 accumulators up to 128 terms, halves above)."""
    if n < 8:
        res = -0.0
        for i in range(lo, lo + n):
            res += a[i]
        return res
    if n <= 128:
        r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
        r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
        i = 8
        while i < n - n % 8:
            r0 += a[lo + i]
            r1 += a[lo + i + 1]
            r2 += a[lo + i + 2]
            r3 += a[lo + i + 3]
            r4 += a[lo + i + 4]
            r5 += a[lo + i + 5]
            r6 += a[lo + i + 6]
            r7 += a[lo + i + 7]
            i += 8
        res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            res += a[lo + i]
            i += 1
        return res
    n2 = n // 2
    n2 -= n2 % 8
    return _pairwise(a, lo, n2) + _pairwise(a, lo + n2, n - n2)


@njit(cache=True)
def np_sum(a: np.ndarray) -> float:
    """``a.sum()`` of a contiguous float64 array, to the bit: blocks of 8,192 summed pairwise, then added."""
    res = 0.0
    lo = 0
    while lo < a.shape[0]:
        k = min(_BLOCK, a.shape[0] - lo)
        res += _pairwise(a, lo, k)
        lo += k
    return res


@njit(cache=True)
def new_caches():
    """Empty caches: joint entropies by column set, rows of H(base + a) by base, local scores and
    rows of add-move scores by (variable, parent set)."""
    h = Dict.empty(key_type=_SET, value_type=types.float64)
    plus = Dict.empty(key_type=_SET, value_type=types.float64[:])
    var = Dict.empty(key_type=_FAMILY, value_type=types.float64)
    adds = Dict.empty(key_type=_FAMILY, value_type=types.float64[:])
    return h, plus, var, adds


@njit(cache=True)
def _mask(cols: np.ndarray, extra: int) -> tuple[int, int]:
    m0 = 0
    m1 = 0
    for c in cols:
        if c < 64:
            m0 |= 1 << c
        else:
            m1 |= 1 << (c - 64)
    if extra >= 0:
        if extra < 64:
            m0 |= 1 << extra
        else:
            m1 |= 1 << (extra - 64)
    return m0, m1


@njit(cache=True)
def _with(cols: np.ndarray, v: int) -> np.ndarray:
    """*cols* (sorted) with *v* inserted in order."""
    out = np.empty(cols.shape[0] + 1, np.int64)
    j = 0
    placed = False
    for c in cols:
        if not placed and v < c:
            out[j] = v
            j += 1
            placed = True
        out[j] = c
        j += 1
    if not placed:
        out[j] = v
    return out


@njit(cache=True)
def _without(cols: np.ndarray, skip: int) -> np.ndarray:
    out = np.empty(cols.shape[0] - 1, np.int64)
    j = 0
    for i in range(cols.shape[0]):
        if i != skip:
            out[j] = cols[i]
            j += 1
    return out


@njit(cache=True)
def _H(sc, cols: np.ndarray) -> float:
    """Joint entropy of the (sorted, non-empty) *cols*, cached (NumpyEntropies.H)."""
    codes, cards, h = sc[0], sc[2], sc[8]
    key = _mask(cols, -1)
    if key in h:
        return h[key]
    v = joint_entropy(codes, cols, cards)
    h[key] = v
    return v


@njit(cache=True)
def _H_plus(sc, base: np.ndarray, cands: np.ndarray) -> np.ndarray:
    """``H(base + (a,))`` for each candidate a (NumpyEntropies.H_plus, the same cache fills and sums)."""
    codes, rows, cards, clogc, n, log_n, counted, h, plus = sc[0], sc[1], sc[2], sc[4], sc[5], sc[6], sc[7], sc[8], sc[9]
    bkey = _mask(base, -1)
    if bkey in plus:
        row = plus[bkey]
    else:
        row = np.full(cards.shape[0], np.nan)
        plus[bkey] = row
    out = np.empty(cands.shape[0])
    todo = np.empty(cands.shape[0], np.int64)
    n_todo = 0
    for j in range(cands.shape[0]):
        a = cands[j]
        out[j] = row[a]
        if np.isnan(out[j]):
            key = _mask(base, a)
            if key in h:
                out[j] = row[a] = h[key]
            else:
                todo[n_todo] = j
                n_todo += 1
    if n_todo == 0:
        return out
    if base.shape[0] == 0:
        bkeys = np.zeros(n, np.int64)
        K = 1
    else:
        bkeys, K = joint_keys(codes, base, cards)
        if K > n:
            bkeys, K = dense_rank(bkeys)
    A = np.empty(n_todo, np.int64)
    for t in range(n_todo):
        A[t] = cands[todo[t]]
    if counted:  # NumpyEntropies' numba kernel
        hs = clogc_sums_plus(rows, bkeys, K, A, cards, clogc, sc[14])
        for t in range(n_todo):
            hs[t] = log_n - hs[t] / n
    else:  # NumpyEntropies' NumPy count: one dense table of K * cmax cells per candidate, NumPy's sum
        cmax = 0
        for a in A:
            cmax = max(cmax, cards[a])
        step = K * cmax
        hs = np.empty(n_todo)
        cnt = np.zeros(step, np.int64)
        vals = np.empty(step)
        for t in range(n_todo):
            cnt[:] = 0
            r = rows[A[t]]
            for s in range(n):
                cnt[bkeys[s] * cmax + r[s]] += 1
            for c in range(step):
                vals[c] = clogc[cnt[c]]
            hs[t] = log_n - np_sum(vals) / n
    for t in range(n_todo):
        j = todo[t]
        a = cands[j]
        out[j] = row[a] = hs[t]
        h[_mask(base, a)] = hs[t]
    return out


@njit(cache=True)
def _q(cardsf: np.ndarray, P: np.ndarray) -> float:
    q = 1.0
    for p in P:
        q *= cardsf[p]
    return q


@njit(cache=True)
def _var_score(sc, i: int, P: np.ndarray) -> float:
    """BICEngine.var_score of discrete data: -N H(i | P) - (log N / 2)(s_i - 1) prod s_P, cached."""
    cardsf, n, log_n, var = sc[3], sc[5], sc[6], sc[10]
    m0, m1 = _mask(P, -1)
    key = (i, m0, m1)
    if key in var:
        return var[key]
    hh = _H(sc, _with(P, i))
    if P.shape[0] > 0:
        hh = hh - _H(sc, P)
    v = -n * hh - 0.5 * log_n * (cardsf[i] - 1.0) * _q(cardsf, P)
    var[key] = v
    return v


@njit(cache=True)
def _count_adds(sc, i: int, P: np.ndarray, row: np.ndarray, cands: np.ndarray) -> None:
    """The local score of i given P + (a,) into ``row[a]`` for each candidate a (BICEngine.add_scores)."""
    cardsf, n, log_n = sc[3], sc[5], sc[6]
    hf = _H_plus(sc, _with(P, i), cands)
    hp = _H_plus(sc, P, cands)
    qP = _q(cardsf, P)
    c = 0.5 * log_n * (cardsf[i] - 1.0)
    for j in range(cands.shape[0]):
        row[cands[j]] = -n * (hf[j] - hp[j]) - c * (qP * cardsf[cands[j]])


@njit(cache=True)
def _conditional_h(sc, P: np.ndarray) -> np.ndarray:
    """N H(a | P) for every a whose H(P + a) is already counted, else N H(a) (an upper bound of it)."""
    n, h, plus, h1 = sc[5], sc[8], sc[9], sc[13]
    out = n * h1
    if P.shape[0] > 0:
        bkey = _mask(P, -1)
        if bkey in plus and bkey in h:
            row, hP = plus[bkey], h[bkey]
            for a in range(out.shape[0]):
                if not np.isnan(row[a]):
                    out[a] = min(out[a], n * (row[a] - hP))
    return out


@njit(cache=True)
def _gain_bound(sc, i: int, a: int, n_h: float, n_ha: float, qP: float) -> float:
    """An upper bound of the gain of adding a to i's parents P, from ``n_h = N H(i | P)`` and
    ``n_ha >= N H(a | P)`` (the gain is N I(i; a | P) less the added penalty); with a margin far
    above rounding (a bound only decides what is counted)."""
    cardsf, log_n = sc[3], sc[6]
    pen = 0.5 * log_n * (cardsf[i] - 1.0) * qP * (cardsf[a] - 1.0)
    return min(n_h, n_ha) - pen + 1e-7 * (n_h + n_ha + pen) + 1e-6


@njit(cache=True)
def _add_scores(sc, i: int, P: np.ndarray, n_h: float) -> np.ndarray:
    """BICEngine.add_scores of discrete data: the local score of i given P + (a,) for every a, cached;
    with ``bound`` (sc[12]) the moves whose gain bound is negative stay NaN (uncounted) for now."""
    cardsf, adds, bound = sc[3], sc[11], sc[12]
    m0, m1 = _mask(P, -1)
    key = (i, m0, m1)
    if key in adds:
        return adds[key]
    d = cardsf.shape[0]
    row = np.full(d, -np.inf)
    inP = np.zeros(d, np.bool_)
    for p in P:
        inP[p] = True
    cands = np.empty(d, np.int64)
    qP = _q(cardsf, P)
    n_ha = _conditional_h(sc, P) if bound else np.empty(0)
    k = 0
    for a in range(d):
        if a != i and not inP[a]:
            if bound and _gain_bound(sc, i, a, n_h, n_ha[a], qP) < 0.0:
                row[a] = np.nan
            else:
                cands[k] = a
                k += 1
    if k > 0:
        _count_adds(sc, i, P, row, cands[:k])
    adds[key] = row
    return row


@njit(cache=True)
def _parents(adj: np.ndarray, b: int) -> np.ndarray:
    m = adj.shape[0]
    k = 0
    for a in range(m):
        if adj[a, b]:
            k += 1
    P = np.empty(k, np.int64)
    k = 0
    for a in range(m):
        if adj[a, b]:
            P[k] = a
            k += 1
    return P


@njit(cache=True)
def _refresh(sc, adj: np.ndarray, b: int, cur: np.ndarray, g_add: np.ndarray, g_del: np.ndarray,
             U: np.ndarray, n_u: np.ndarray) -> None:
    """climb_edges' refresh of node b's gain rows (plain DAG, the engine's rows of add moves); an
    uncounted add move gets its gain bound and ``U[b, a] = True`` (``n_u[b]`` of them)."""
    cardsf, log_n = sc[3], sc[6]
    m = adj.shape[0]
    for a in range(m):
        g_del[b, a] = -np.inf
    P = _parents(adj, b)
    cur[b] = _var_score(sc, b, P)
    qP = _q(cardsf, P)
    n_h = -cur[b] - 0.5 * log_n * (cardsf[b] - 1.0) * qP  # N H(b | P)
    row = _add_scores(sc, b, P, n_h)
    n_u[b] = 0
    for a in range(m):
        U[b, a] = np.isnan(row[a])
        if U[b, a]:
            n_u[b] += 1
        else:
            g_add[b, a] = row[a] - cur[b]
    if n_u[b] > 0:
        n_ha = _conditional_h(sc, P)
        for a in range(m):
            if U[b, a]:
                g_add[b, a] = _gain_bound(sc, b, a, n_h, n_ha[a], qP)
    for j in range(P.shape[0]):
        g_del[b, P[j]] = _var_score(sc, b, _without(P, j)) - cur[b]


@njit(cache=True)
def _count_near(sc, adj: np.ndarray, vals: np.ndarray, low: float, cur: np.ndarray, g_add: np.ndarray,
                U: np.ndarray, n_u: np.ndarray) -> bool:
    """Count the uncounted add moves behind every move valued at least *low* (an addition a -> b, or
    the addition b -> a of a reversal): their cached rows and gains become exact. False when none."""
    m = adj.shape[0]
    mm = m * m
    adds = sc[11]
    counted = False
    cands = np.empty(m, np.int64)
    for f in range(m):  # family f: adding a -> f (flat a*m + f) or reversing f -> a (flat 2mm + f*m + a)
        if n_u[f] == 0:
            continue
        near = False
        for a in range(m):
            if U[f, a] and (vals[a * m + f] >= low or vals[2 * mm + f * m + a] >= low):
                near = True
                break
        if not near:
            continue
        k = 0  # the family's base is keyed once: count all its uncounted moves together
        for a in range(m):
            if U[f, a]:
                cands[k] = a
                k += 1
        P = _parents(adj, f)
        m0, m1 = _mask(P, -1)
        row = adds[(f, m0, m1)]
        _count_adds(sc, f, P, row, cands[:k])
        for j in range(k):
            a = cands[j]
            g_add[f, a] = row[a] - cur[f]
            U[f, a] = False
        n_u[f] -= k
        counted = True
    return counted


@njit(cache=True)
def _push(T: np.ndarray, ring: np.ndarray, ctl: np.ndarray, kind: int, a: int, b: int, tabu_length: int) -> None:
    """Tabu list of the last *tabu_length* moves as a ring (ctl[2] head, ctl[3] length)."""
    if tabu_length == 0:
        return
    size = ring.shape[0]
    tail = (ctl[2] + ctl[3]) % size
    ring[tail, 0], ring[tail, 1], ring[tail, 2] = kind, a, b
    T[kind, a, b] += 1
    ctl[3] += 1
    if ctl[3] > tabu_length:
        h = ctl[2]
        T[ring[h, 0], ring[h, 1], ring[h, 2]] -= 1
        ctl[2] = (h + 1) % size
        ctl[3] -= 1


def scores(codes: np.ndarray, rows: np.ndarray, cards: np.ndarray, clogc: np.ndarray, counted: bool,
           bits: np.ndarray, bound: bool = True) -> tuple:
    """The kernels' score state: codes (n x d) and their rows (d x n), alphabet sizes, c log c for
    c = 0..n, whether candidates are counted by the numba kernel (else as NumPy does), empty caches,
    whether add moves are bounded before they are counted (only with ``counted``: the NumPy count's
    floats depend on its batch), each column's entropy (for the bounds) and the columns as bit sets
    (:func:`~macrocause.framework.numeric_kernels.one_hot_bits`, for the count)."""
    n = codes.shape[0]
    h1 = np.array([entropy_of_keys(r, int(c)) for r, c in zip(rows, cards)])
    return ((codes, rows, cards, cards.astype(np.float64), clogc, n, math.log(n), counted) + new_caches()
            + (bound and counted, h1, bits))


_NO_DRAWS = np.random.default_rng(0)  # the generator argument of a climb without ties drawn (never used)


def run_climb(sc: tuple, adj: np.ndarray, max_steps: int, tabu_length: int, patience: int,
              rng: np.random.Generator | None) -> tuple[np.ndarray, float]:
    """:func:`climb` from *adj* to its end, drawing each tie's move from *rng* as climb_edges does
    (inside the kernel: numba's generator methods draw NumPy's numbers from the same state).
    Returns the best adjacency seen and its score."""
    m = adj.shape[0]
    adj = np.array(adj, dtype=np.bool_)
    best_adj = np.empty((m, m), np.bool_)
    best = climb(*sc, adj, best_adj, max_steps, tabu_length, patience,
                 -1.0 if rng is None else TIE, _NO_DRAWS if rng is None else rng)
    return best_adj, best


@njit(cache=True)
def climb(codes, rows, cards, cardsf, clogc, n, log_n, counted, h, plus, var, adds, bound, h1, bits, adj, best_adj,
          max_steps: int, tabu_length: int, patience: int, tie: float, rng) -> float:
    """climb_edges on the BIC engine from *adj* (changed in place): returns the best total score
    seen, whose adjacency goes into *best_adj*.

    When ``tie >= 0``, a step's best move that ties with others (within *tie*) is drawn
    uniformly among them by ``rng.integers`` (the Python climb's draw). The score state comes as
    :func:`scores`' items, not as one tuple: numba types a tuple of dictionaries in Python at
    every call.
    """
    sc = (codes, rows, cards, cardsf, clogc, n, log_n, counted, h, plus, var, adds, bound, h1, bits)
    m = adj.shape[0]
    U = np.zeros((m, m), np.bool_)  # add moves not counted yet: g_add holds their bound
    n_u = np.zeros(m, np.int64)  # how many in each row
    R = np.empty((m, m), np.bool_)
    g_add = np.full((m, m), -np.inf)
    g_del = np.full((m, m), -np.inf)
    cur = np.zeros(m)
    T = np.zeros((3, m, m), np.int64)
    ring = np.zeros((min(tabu_length, max_steps) + 1, 3), np.int64)  # a climb makes at most max_steps moves
    ctl = np.zeros(4, np.int64)  # step, stall, tabu head and length
    vals = np.empty(3 * m * m)
    ties = np.empty(3 * m * m, np.int64)
    for b in range(m):
        _refresh(sc, adj, b, cur, g_add, g_del, U, n_u)
    best_adj[:, :] = adj
    best = np_sum(cur) + 0.0
    reach(adj, R)
    mm = m * m
    while ctl[0] < max_steps and m >= 2:
        k, n_ties = best_moves(adj, R, g_add, g_del, T, 0.0, tie, vals, ties)
        while bound and vals[k] > -np.inf and _count_near(sc, adj, vals, vals[k] - max(tie, 0.0), cur, g_add, U, n_u):
            k, n_ties = best_moves(adj, R, g_add, g_del, T, 0.0, tie, vals, ties)
        if n_ties > 1:
            k = ties[rng.integers(0, n_ties)]
        gain = vals[k]
        if gain == -np.inf or (not gain > TOL and ctl[1] >= patience):
            break
        kind, a, b = k // mm, (k // m) % m, k % m
        if kind == 0:
            adj[a, b] = True
            _refresh(sc, adj, b, cur, g_add, g_del, U, n_u)
            _push(T, ring, ctl, 1, a, b, tabu_length)
            add_reach(R, a, b)
        else:
            adj[a, b] = False
            if kind == 1:
                _refresh(sc, adj, b, cur, g_add, g_del, U, n_u)
                _push(T, ring, ctl, 0, a, b, tabu_length)
            else:
                adj[b, a] = True
                _refresh(sc, adj, b, cur, g_add, g_del, U, n_u)
                _refresh(sc, adj, a, cur, g_add, g_del, U, n_u)
                _push(T, ring, ctl, 2, a, b, tabu_length)
            reach(adj, R)
        total = np_sum(cur) + 0.0
        if total > best + TOL:
            best_adj[:, :] = adj
            best = total
            ctl[1] = 0
        else:
            ctl[1] += 1
        ctl[0] += 1
    return best
