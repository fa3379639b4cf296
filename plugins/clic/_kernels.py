"""Numba kernels of CLIC: HSIC gamma test statistics held as running sums.

For one cluster and one test ``t`` (variable ``t`` against variables
``t+1..d-1``) with RBF kernel matrices ``K`` (variable ``t``) and ``L`` (the
product kernel of the later variables), restricted to the cluster's members,
the state is the row sums ``r = K 1`` and ``s = L 1`` (one entry per member)
and eight scalars, stored in ``scal[c, t, :]``:

====  ===========  ====  ============
0     S = 1'K1     4     R2 = s's
1     Q = r'r      5     LL = sum L**2
2     KK = sum K**2  6     KL = sum K*L
3     T = 1'L1     7     RS = r's
====  ===========  ====  ============

Every quantity of the gamma approximation of the HSIC test (Gretton et al.
2008) is a function of these and the cluster size ``n``, and adding or
removing one point changes them in O(n d): see :func:`move`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from macrocause.framework.numeric_kernels import log_gamma_q

N_SCAL = 8
_EPS = 1e-15
_FPMIN = 1e-300


@njit(cache=True)
def gamma_params(sc, n):
    """Test statistic ``n * HSIC_b`` and the gamma shape/scale from the running sums ``sc``.

    Returns (stat, shape, scale); shape = 0 when the null variance is not positive
    (fewer than 6 points or a constant variable).
    """
    S, Q, KK, T, R2, LL, KL, RS = sc[0], sc[1], sc[2], sc[3], sc[4], sc[5], sc[6], sc[7]
    nf = float(n)
    if n < 6:
        return 0.0, 0.0, 1.0
    stat = (KL - 2.0 * RS / nf + S * T / (nf * nf)) / nf
    fk = KK - 2.0 * Q / nf + S * S / (nf * nf)
    ck = 1.0 + S / (nf * nf)
    dk = nf * ck * ck - 4.0 * ck * S / nf + 4.0 * Q / (nf * nf)
    ak = (fk - dk) / (nf * (nf - 1.0))
    fl = LL - 2.0 * R2 / nf + T * T / (nf * nf)
    cl = 1.0 + T / (nf * nf)
    dl = nf * cl * cl - 4.0 * cl * T / nf + 4.0 * R2 / (nf * nf)
    al = (fl - dl) / (nf * (nf - 1.0))
    var = 2.0 * (nf - 4.0) * (nf - 5.0) / (nf * (nf - 1.0) * (nf - 2.0) * (nf - 3.0)) * ak * al
    mux = (S - nf) / (nf * (nf - 1.0))
    muy = (T - nf) / (nf * (nf - 1.0))
    mean = (1.0 + mux * muy - mux - muy) / nf
    if var <= 0.0 or mean <= 0.0:
        return stat, 0.0, 1.0
    return stat, mean * mean / var, var * nf / mean


@njit(cache=True)
def test_logp(sc, n):
    """log p-value of one HSIC gamma test from its running sums (0 when undefined)."""
    stat, shape, scale = gamma_params(sc, n)
    if shape <= 0.0:
        return 0.0
    return log_gamma_q(shape, stat / scale)


@njit(cache=True)
def cluster_logp(scal_c, n):
    """log of a cluster's p-value: the smallest of its d-1 tests, Bonferroni-corrected."""
    n_tests = scal_c.shape[0]
    best = 0.0
    for t in range(n_tests):
        lp = test_logp(scal_c[t], n)
        if lp < best:
            best = lp
    out = best + math.log(n_tests)
    return out if out < 0.0 else 0.0


@njit(cache=True)
def _accumulate(X, labels, sig, R, Sv, p, c, sign, acc):
    """Sums over the members i != p of cluster c that adding/removing point p needs, per test:
    sum k, sum l, sum k^2, sum l^2, sum k l, sum R_i k, sum S_i l, sum R_i l, sum k S_i
    (k, l: kernel values between p and i). With ``sign`` = +-1 the row sums R, Sv of
    the members are updated too; with 0 they are left alone (a trial)."""
    d = X.shape[1]
    n_tests = d - 1
    kv = np.empty(d)
    lv = np.empty(d)
    acc[:, :] = 0.0
    for i in range(X.shape[0]):
        if labels[i] != c or i == p:
            continue
        for j in range(d):
            diff = X[i, j] - X[p, j]
            kv[j] = math.exp(-diff * diff / (2.0 * sig[c, j] * sig[c, j]))
        prod = 1.0
        for t in range(n_tests - 1, -1, -1):
            prod *= kv[t + 1]
            lv[t] = prod
        for t in range(n_tests):
            k = kv[t]
            lval = lv[t]
            ri = R[c, t, i]
            si = Sv[c, t, i]
            a = acc[t]
            a[0] += k
            a[1] += lval
            a[2] += k * k
            a[3] += lval * lval
            a[4] += k * lval
            a[5] += ri * k
            a[6] += si * lval
            a[7] += ri * lval
            a[8] += k * si
            if sign != 0:
                R[c, t, i] = ri + sign * k
                Sv[c, t, i] = si + sign * lval


@njit(cache=True)
def _updated(sc, a, sign, rp, sp, out):
    """The eight running sums ``sc`` of one test after adding (sign 1) or removing (-1) a
    point with row sums ``rp``, ``sp`` (its own, including the diagonal) and member sums ``a``."""
    sk, sl, skk, sll, skl, srk, ssl, srl, sks = a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]
    if sign > 0:
        out[0] = sc[0] + (2.0 * sk + 1.0)
        out[1] = sc[1] + (2.0 * srk + skk + rp * rp)
        out[2] = sc[2] + (2.0 * skk + 1.0)
        out[3] = sc[3] + (2.0 * sl + 1.0)
        out[4] = sc[4] + (2.0 * ssl + sll + sp * sp)
        out[5] = sc[5] + (2.0 * sll + 1.0)
        out[6] = sc[6] + (2.0 * skl + 1.0)
        out[7] = sc[7] + (srl + sks + skl + rp * sp)
    else:
        out[0] = sc[0] - (2.0 * sk + 1.0)
        out[1] = sc[1] + (-rp * rp - 2.0 * srk + skk)
        out[2] = sc[2] - (2.0 * skk + 1.0)
        out[3] = sc[3] - (2.0 * sl + 1.0)
        out[4] = sc[4] + (-sp * sp - 2.0 * ssl + sll)
        out[5] = sc[5] - (2.0 * sll + 1.0)
        out[6] = sc[6] - (2.0 * skl + 1.0)
        out[7] = sc[7] + (-rp * sp - srl - sks + skl)


@njit(cache=True)
def _point_sums(acc, R, Sv, p, c, t, sign):
    """Row sums of point ``p``'s kernel rows in cluster ``c`` for test ``t`` (self term included):
    fresh from ``acc`` when it joins, the stored ones when it leaves."""
    if sign > 0:
        return 1.0 + acc[t, 0], 1.0 + acc[t, 1]
    return R[c, t, p], Sv[c, t, p]


@njit(cache=True)
def move(X, labels, sig, R, Sv, scal, counts, p, c, sign):
    """Add (``sign=1``) or remove (``sign=-1``) point ``p`` to/from cluster ``c`` in O(n d).

    ``labels[p]`` must not be ``c`` when adding, and is ignored when removing
    (only members other than ``p`` are visited); the caller sets it afterwards.
    """
    n_tests = X.shape[1] - 1
    acc = np.empty((n_tests, 9))
    _accumulate(X, labels, sig, R, Sv, p, c, sign, acc)
    for t in range(n_tests):
        rp, sp = _point_sums(acc, R, Sv, p, c, t, sign)
        _updated(scal[c, t], acc[t], sign, rp, sp, scal[c, t])
        if sign > 0:
            R[c, t, p] = rp
            Sv[c, t, p] = sp
        else:
            R[c, t, p] = 0.0
            Sv[c, t, p] = 0.0
    counts[c] += sign


@njit(cache=True)
def trial_logp(X, labels, sig, R, Sv, scal, counts, p, c, sign, acc, tmp):
    """log p-value of cluster ``c`` if point ``p`` were added (``sign=1``) or removed (-1);
    nothing is changed. ``acc`` (d-1 x 9) and ``tmp`` (d-1 x 8) are work arrays."""
    n_tests = X.shape[1] - 1
    _accumulate(X, labels, sig, R, Sv, p, c, 0, acc)
    for t in range(n_tests):
        rp, sp = _point_sums(acc, R, Sv, p, c, t, sign)
        _updated(scal[c, t], acc[t], sign, rp, sp, tmp[t])
    return cluster_logp(tmp, counts[c] + sign)


@njit(cache=True)
def build_state(X, labels, m, sig):
    """Running sums of every cluster from scratch (O(n^2 d) per cluster)."""
    N, d = X.shape
    R = np.zeros((m, d - 1, N))
    Sv = np.zeros((m, d - 1, N))
    scal = np.zeros((m, d - 1, N_SCAL))
    counts = np.zeros(m, dtype=np.int64)
    work = np.full(N, -1, dtype=np.int64)
    for p in range(N):
        c = labels[p]
        if c < 0:
            continue
        move(X, work, sig, R, Sv, scal, counts, p, c, 1)
        work[p] = c
    return R, Sv, scal, counts


@njit(cache=True)
def all_cluster_logp(scal, counts):
    m = scal.shape[0]
    out = np.empty(m)
    for c in range(m):
        out[c] = cluster_logp(scal[c], counts[c])
    return out


@njit(cache=True)
def sweep(X, labels, sig, R, Sv, scal, counts, logp, order, csize, min_size):
    """One CLIC iteration: for each set of ``csize`` points (in ``order``), try every
    assignment of the set to the m clusters and keep the one with the smallest
    objective ``-sum_c log p_c``. Updates everything in place; returns the number of
    points that changed cluster."""
    N = X.shape[0]
    m = scal.shape[0]
    moved = 0
    n_sets = (N + csize - 1) // csize
    cur = np.empty(csize, dtype=np.int64)
    tgt = np.empty(csize, dtype=np.int64)
    best = np.empty(csize, dtype=np.int64)
    cnt = np.empty(m, dtype=np.int64)
    for s in range(n_sets):
        lo = s * csize
        hi = min(N, lo + csize)
        k = hi - lo
        for q in range(k):
            cur[q] = labels[order[lo + q]]
            best[q] = cur[q]
        base = 0.0
        for c in range(m):
            base -= logp[c]
        best_obj = base
        n_words = m ** k
        for w in range(n_words):
            rem = w
            same = True
            for q in range(k):
                tgt[q] = rem % m
                rem //= m
                if tgt[q] != cur[q]:
                    same = False
            if same:
                continue
            for c in range(m):
                cnt[c] = counts[c]
            for q in range(k):
                cnt[cur[q]] -= 1
                cnt[tgt[q]] += 1
            ok = True
            for c in range(m):
                if cnt[c] < min_size and cnt[c] < counts[c]:
                    ok = False
            if not ok:
                continue
            for q in range(k):
                p = order[lo + q]
                if tgt[q] != cur[q]:
                    move(X, labels, sig, R, Sv, scal, counts, p, cur[q], -1)
                    labels[p] = tgt[q]
                    move(X, labels, sig, R, Sv, scal, counts, p, tgt[q], 1)
            obj = 0.0
            for c in range(m):
                obj -= cluster_logp(scal[c], counts[c])
            for q in range(k - 1, -1, -1):
                p = order[lo + q]
                if tgt[q] != cur[q]:
                    move(X, labels, sig, R, Sv, scal, counts, p, tgt[q], -1)
                    labels[p] = cur[q]
                    move(X, labels, sig, R, Sv, scal, counts, p, cur[q], 1)
            if obj < best_obj - 1e-12 * max(1.0, abs(best_obj)):
                best_obj = obj
                for q in range(k):
                    best[q] = tgt[q]
        changed = False
        for q in range(k):
            if best[q] != cur[q]:
                changed = True
                p = order[lo + q]
                move(X, labels, sig, R, Sv, scal, counts, p, cur[q], -1)
                labels[p] = best[q]
                move(X, labels, sig, R, Sv, scal, counts, p, best[q], 1)
                moved += 1
        if changed:
            for c in range(m):
                logp[c] = cluster_logp(scal[c], counts[c])
    return moved


@njit(cache=True)
def best_move(X, labels, sig, R, Sv, scal, counts, logp, min_size):
    """The single point move (point, target cluster) that lowers ``-sum_c log p_c`` most.

    Scores every point and every other cluster with :func:`trial_logp` (no state
    change); returns (point, target, gain) with point = -1 when no move lowers the
    objective."""
    N = X.shape[0]
    m = scal.shape[0]
    n_tests = X.shape[1] - 1
    acc = np.empty((n_tests, 9))
    tmp = np.empty((n_tests, 8))
    best_gain = 1e-12
    best_p = -1
    best_c = -1
    for p in range(N):
        a = labels[p]
        if counts[a] - 1 < min_size:
            continue
        la = trial_logp(X, labels, sig, R, Sv, scal, counts, p, a, -1, acc, tmp)
        for c in range(m):
            if c == a:
                continue
            lc = trial_logp(X, labels, sig, R, Sv, scal, counts, p, c, 1, acc, tmp)
            gain = la + lc - logp[a] - logp[c]
            if gain > best_gain:
                best_gain = gain
                best_p = p
                best_c = c
    return best_p, best_c, best_gain


@njit(cache=True)
def greedy_moves(X, labels, sig, R, Sv, scal, counts, logp, budget, min_size, log_alpha, until_independent):
    """Up to ``budget`` best single-point moves (:func:`best_move`), stopping early when no
    move lowers the objective or, if ``until_independent``, when every cluster's log
    p-value exceeds ``log_alpha``. Updates everything in place; returns the number of moves."""
    done = 0
    while done < budget:
        if until_independent:
            ok = True
            for c in range(logp.shape[0]):
                if logp[c] <= log_alpha:
                    ok = False
            if ok:
                break
        p, c, gain = best_move(X, labels, sig, R, Sv, scal, counts, logp, min_size)
        if p < 0:
            break
        a = labels[p]
        move(X, labels, sig, R, Sv, scal, counts, p, a, -1)
        labels[p] = c
        move(X, labels, sig, R, Sv, scal, counts, p, c, 1)
        logp[a] = cluster_logp(scal[a], counts[a])
        logp[c] = cluster_logp(scal[c], counts[c])
        done += 1
    return done


@njit(cache=True)
def _logp_from_sums(scal_c, sums_c, R, Sv, c, p, sign, n_new, tmp):
    """log p-value of cluster ``c`` if point ``p`` joined (sign 1) or left (-1) it, from member
    sums ``sums_c`` (d-1 x 9, as :func:`_accumulate` makes them)."""
    for t in range(scal_c.shape[0]):
        rp, sp = _point_sums(sums_c, R, Sv, p, c, t, sign)
        _updated(scal_c[t], sums_c[t], sign, rp, sp, tmp[t])
    return cluster_logp(tmp, n_new)


@njit(cache=True)
def scan_gains(sums, labels, R, Sv, scal, counts, logp, min_size):
    """Best move of every point from precomputed member sums ``sums`` (m x (d-1) x N x 9, e.g.
    the low-rank ones): returns (target, gain) per point, target -1 when no move lowers the
    objective or the point's cluster may not shrink."""
    m, n_tests, N = sums.shape[0], sums.shape[1], sums.shape[2]
    tmp = np.empty((n_tests, 8))
    sc = np.empty((n_tests, 9))
    target = np.full(N, -1, dtype=np.int64)
    gain = np.zeros(N)
    for p in range(N):
        a = labels[p]
        if counts[a] - 1 < min_size:
            continue
        for t in range(n_tests):
            sc[t, :] = sums[a, t, p, :]
        la = _logp_from_sums(scal[a], sc, R, Sv, a, p, -1, counts[a] - 1, tmp)
        best = 1e-12
        for c in range(m):
            if c == a:
                continue
            for t in range(n_tests):
                sc[t, :] = sums[c, t, p, :]
            g = la + _logp_from_sums(scal[c], sc, R, Sv, c, p, 1, counts[c] + 1, tmp) - logp[a] - logp[c]
            if g > best:
                best = g
                target[p] = c
                gain[p] = g
    return target, gain


@njit(cache=True)
def exact_gains(X, labels, sig, R, Sv, scal, counts, logp, min_size):
    """:func:`scan_gains` with exact member sums (:func:`trial_logp`): O(N n d)."""
    N = X.shape[0]
    m = scal.shape[0]
    n_tests = X.shape[1] - 1
    acc = np.empty((n_tests, 9))
    tmp = np.empty((n_tests, 8))
    target = np.full(N, -1, dtype=np.int64)
    gain = np.zeros(N)
    for p in range(N):
        a = labels[p]
        if counts[a] - 1 < min_size:
            continue
        la = trial_logp(X, labels, sig, R, Sv, scal, counts, p, a, -1, acc, tmp)
        best = 1e-12
        for c in range(m):
            if c == a:
                continue
            g = la + trial_logp(X, labels, sig, R, Sv, scal, counts, p, c, 1, acc, tmp) - logp[a] - logp[c]
            if g > best:
                best = g
                target[p] = c
                gain[p] = g
    return target, gain


@njit(cache=True)
def apply_candidates(X, labels, sig, R, Sv, scal, counts, logp, cand_p, cand_c, max_moves, min_size,
                     log_alpha, until_independent):
    """Apply the candidate moves (point ``cand_p[i]`` to cluster ``cand_c[i]``, in order) whose
    exact gain, checked against the current state, is positive; at most ``max_moves``, stopping
    early if ``until_independent`` and every cluster passes. Returns the number applied."""
    n_tests = X.shape[1] - 1
    acc = np.empty((n_tests, 9))
    tmp = np.empty((n_tests, 8))
    done = 0
    for i in range(cand_p.shape[0]):
        if done >= max_moves:
            break
        if until_independent:
            ok = True
            for c in range(logp.shape[0]):
                if logp[c] <= log_alpha:
                    ok = False
            if ok:
                break
        p = cand_p[i]
        c = cand_c[i]
        a = labels[p]
        if a == c or counts[a] - 1 < min_size:
            continue
        la = trial_logp(X, labels, sig, R, Sv, scal, counts, p, a, -1, acc, tmp)
        lc = trial_logp(X, labels, sig, R, Sv, scal, counts, p, c, 1, acc, tmp)
        if la + lc - logp[a] - logp[c] <= 1e-12:
            continue
        move(X, labels, sig, R, Sv, scal, counts, p, a, -1)
        labels[p] = c
        move(X, labels, sig, R, Sv, scal, counts, p, c, 1)
        logp[a] = cluster_logp(scal[a], counts[a])
        logp[c] = cluster_logp(scal[c], counts[c])
        done += 1
    return done
