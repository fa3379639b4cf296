"""A start for the cluster search from the parity relations of binary data.

A parity factor over a set F of binary variables (a child cluster read by its parents through
parity, Section 5.1's mechanisms) makes ``xor(x_F)`` far from uniform while every proper subset of F
is independent: a climb sees no gain until F is assembled exactly. Such sets are the low-weight words
of the binary linear code ``{X a + b 1}`` (length N, the samples; dimension d + 1, the variables and
a constant): the word of a relation over F is 1 exactly on the samples where ``xor(x_F)`` differs
from its usual value, a share equal to the factor's noise (0.1 in ``cic_random``) whatever the size
of F, while other words have weight about N / 2.

They are found by information-set decoding with Lee and Brickell's enumeration: each round takes the
samples in a random order, brings the generator to systematic form on the first d + 1 independent
samples I (Gauss-Jordan on bit-packed words), so that word i is the one equal to ``e_i`` on I, and
checks every xor of 1..p of these words (p <= 3: the largest with at most 2 million sums), first on
256 samples, then on all. A relation with noise tau is met when it has 1..p noisy samples on I: with
probability about 0.7 % a round at d = 100, tau = 0.1 (p = 3), against 0.9^110 ~ 1e-5 for decoding
that needs it exact on d + 10 samples (Prange's p = 0, used before). A word is kept when its parity
tilt pays its code length: N KL(q || q0) > (log N) / 2 + log C(d, |F|) + log 2 (the tilt's parameter,
the set's name and the constant), q the share of samples where the xor differs from the constant and
q0 its probability under independent margins. Rounds stop after ``tries``, or once three quarters of
the rounds so far (and at least a quarter of ``tries``) added no independent relation.

Variables are then grouped by the relations they enter: the partition by membership is the same for
every basis of the relations' span, and it is the identifiable grouping of parity data (clusters
that enter the same factors cannot be told apart; variables in no relation stay single).

References
----------
Prange. The use of information sets in decoding cyclic codes. IRE Trans. Information Theory 8(5), 1962.
Lee, Brickell. An observation on the security of McEliece's public-key cryptosystem. EUROCRYPT 1988.
Niu, Li, Li. Learning Cluster Causal Diagrams: An Information-Theoretic Approach. IJCAI 2022.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ._kernels import dag_reach, pack_bits, parity_tilt, popcount64

Idx = tuple[int, ...]
SUMS = 2_000_000  # most xors of systematic words checked per round (fixes p)
EARLY = 4  # words (256 samples) of the early check


def sums_order(k: int, budget: int = SUMS) -> int:
    """p: the largest of 1..3 with sum_{j <= p} C(k, j) <= budget (1 at least)."""
    return max([1] + [p for p in (2, 3) if sum(math.comb(k, j) for j in range(1, p + 1)) <= budget])


@njit(cache=True)
def _systematic(gen: np.ndarray, order: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gauss-Jordan of the packed generator *gen* (k words of the code, rows) on the sample positions in
    *order*: returns the reduced words, their coefficient vectors (packed over the k rows) and each row's
    pivot position (-1: the row reduced to zero, an exact relation)."""
    k, W = gen.shape
    wa = (k + 63) // 64
    G = gen.copy()
    A = np.zeros((k, wa), np.uint64)
    for i in range(k):
        A[i, i // 64] = np.uint64(1) << np.uint64(i % 64)
    pivot = np.full(k, -1, np.int64)
    found = 0
    for t in order:
        if found == k:
            break
        wi, bit = t // 64, np.uint64(1) << np.uint64(t % 64)
        piv = -1
        for i in range(k):
            if pivot[i] < 0 and G[i, wi] & bit:
                piv = i
                break
        if piv < 0:
            continue
        pivot[piv] = t
        found += 1
        for i in range(k):
            if i != piv and G[i, wi] & bit:
                for w in range(W):
                    G[i, w] ^= G[piv, w]
                for w in range(wa):
                    A[i, w] ^= A[piv, w]
    return G, A, pivot


@njit(cache=True)
def _keep(x: np.ndarray, a: np.ndarray, n: int, mu: np.ndarray, need: np.ndarray,
          out: np.ndarray, weight: np.ndarray, got: int) -> int:
    """Append the coefficient vector *a* to *out* and the weight of its word *x* to *weight* when the
    word pays its code length (module docstring); returns the new count."""
    if got >= out.shape[0]:
        return got
    odd = 0
    for w in range(x.shape[0]):
        odd += popcount64(x[w])
    k = mu.shape[0]
    prod, size = 1.0, 0
    for j in range(k):
        if a[j // 64] >> np.uint64(j % 64) & np.uint64(1):
            prod *= mu[j]
            size += j < k - 1  # the last row is the constant
    if size < 2:
        return got
    if parity_tilt(odd, n, prod) > need[size]:
        out[got] = a
        weight[got] = odd
        got += 1
    return got


@njit(cache=True, inline="always")
def _xor_at(M: np.ndarray, idx: np.ndarray, m: int, t: int) -> np.uint64:
    """Word t of the xor of rows idx[:m] of M."""
    x = M[idx[0], t]
    for c in range(1, m):
        x ^= M[idx[c], t]
    return x


@njit(cache=True)
def _low_weight(G: np.ndarray, A: np.ndarray, pivot: np.ndarray, p: int, n: int, mu: np.ndarray,
                need: np.ndarray, cap: int) -> tuple[np.ndarray, np.ndarray]:
    """Lee-Brickell: the coefficient vectors (and word weights) of the exact relations (rows without pivot) and of every xor
    of 1..p systematic words that passes the early checks (weight on the first word, then on the first
    EARLY words, at most half the bits minus two standard deviations) and the code-length test."""
    k, W = G.shape
    e = min(EARLY, W)
    bits = min(64 * e, n)
    early = 0.5 * bits - 1.5 * math.sqrt(bits)
    first = 0.5 * min(64, n) - 1.5 * math.sqrt(min(64, n))
    out = np.zeros((cap, A.shape[1]), np.uint64)
    weight = np.zeros(cap, np.int64)
    got = 0
    for i in np.flatnonzero(pivot < 0):
        got = _keep(G[i], A[i], n, mu, need, out, weight, got)
    rows = np.flatnonzero(pivot >= 0)
    r = rows.shape[0]
    g0 = G[rows, 0].copy()
    idx = np.zeros(3, np.int64)
    x = np.empty(W, np.uint64)
    a = np.empty(A.shape[1], np.uint64)
    for u in range(r):
        for v in range(u + 1 if p >= 2 else r, r + 1):  # v == r: no second word
            x01 = g0[u] ^ g0[v] if v < r else g0[u]
            for w in range(v + 1 if p >= 3 and v < r else r, r + 1):  # w == r: no third word
                x0 = x01 ^ g0[w] if w < r else x01
                if popcount64(x0) > first:
                    continue
                m = 1
                idx[0] = rows[u]
                if v < r:
                    idx[m] = rows[v]
                    m += 1
                if w < r:
                    idx[m] = rows[w]
                    m += 1
                pop = 0
                for t in range(e):
                    pop += popcount64(_xor_at(G, idx, m, t))
                if pop > early:
                    continue
                for t in range(W):
                    x[t] = _xor_at(G, idx, m, t)
                for t in range(A.shape[1]):
                    a[t] = _xor_at(A, idx, m, t)
                got = _keep(x, a, n, mu, need, out, weight, got)
    return out[:got], weight[:got]


def _rank_add(basis: list[tuple[np.ndarray, int]], v: np.ndarray) -> bool:
    """Reduce the 0/1 vector *v* by the echelon *basis* (vector, leading index); add it when independent."""
    v = v.copy()
    for b, lead in basis:
        if v[lead]:
            v ^= b
    if not v.any():
        return False
    basis.append((v, int(np.flatnonzero(v)[0])))
    return True


def parity_relations(codes: np.ndarray, rng: np.random.Generator, tries: int, cap: int = 4096) -> list[Idx]:
    """Sets of variables whose parity (with a constant) pays its code length, from at most *tries*
    information sets (module docstring), each set once, the least noisy first (ties: found first)."""
    n, d = codes.shape
    k = d + 1
    if n < 2 * k or d < 2:
        return []
    gen = pack_bits(np.vstack([codes.T.astype(np.int8), np.ones((1, n), np.int8)]))
    mu = np.append(1.0 - 2.0 * codes.mean(axis=0), -1.0)  # E (-1)^x per variable; the constant: -1
    need = np.array([0.5 * math.log(n) + math.log(math.comb(d, s)) + math.log(2.0) for s in range(d + 1)])
    p = sums_order(k)
    seen: set[bytes] = set()
    found: list[tuple[int, Idx]] = []
    basis: list[tuple[np.ndarray, int]] = []
    last = 0
    for t in range(1, tries + 1):
        G, A, pivot = _systematic(gen, rng.permutation(n))
        coefs, weights = _low_weight(G, A, pivot, p, n, mu, need, cap)
        for a, wt in zip(coefs, weights):
            bits = np.unpackbits(a.view(np.uint8), bitorder="little")[:d].astype(bool)
            key = bits.tobytes()  # the set; its constant flips with the word's complement, same test
            if key in seen:
                continue
            seen.add(key)
            found.append((min(int(wt), n - int(wt)), tuple(np.flatnonzero(bits).tolist())))
            if _rank_add(basis, bits):
                last = t
        if t >= max(4 * last, tries // 4):
            break
    return [S for _, S in sorted(found, key=lambda f: f[0])]


def relation_clusters(d: int, relations: list[Idx]) -> list[Idx] | None:
    """Variables grouped by the relations they enter (singletons for those in none); None without relations."""
    if not relations:
        return None
    member = np.zeros((d, len(relations)), dtype=bool)
    for j, S in enumerate(relations):
        member[list(S), j] = True
    # the grouping by membership is invariant under a change of basis of the span: reduce to a basis first,
    # so that dependent relations (xors of others) do not split groups they do not separate
    rows: list[tuple[np.ndarray, int]] = []
    for j in range(len(relations)):
        _rank_add(rows, member[:, j])
    keys: dict[bytes, list[int]] = {}
    out: list[Idx] = []
    M = np.array([b for b, _ in rows]).T
    for i in range(d):
        if not M[i].any():
            out.append((i,))
        else:
            keys.setdefault(M[i].tobytes(), []).append(i)
    out += [tuple(v) for v in keys.values()]
    return sorted(out)


def relation_dag(clusters: list[Idx], relations: list[Idx]) -> np.ndarray:
    """Edges between *clusters* (the groups of :func:`relation_clusters`) read from the *relations*, the
    least noisy first: each relation of a basis of their span, taken in that order, is one factor (a child
    group and its parent groups). A factor's child is a group that enters no other factor left; the other
    groups of the factor become its parents and the factor is removed, until none is left. Children are
    taken latest first, so the edges form a DAG; when no group enters one factor only, the child is one in
    the fewest, and an edge that would close a cycle is left out. Which member of a factor is its child is not identifiable from the factor alone (parity is
    symmetric in its inputs): ties go to the group listed first, and the climb settles the rest."""
    m = len(clusters)
    group = {v: g for g, c in enumerate(clusters) for v in c}
    basis: list[tuple[np.ndarray, int]] = []
    factors: list[set[int]] = []
    for S in relations:
        v = np.zeros(m, dtype=bool)
        for x in S:
            v[group[x]] = True
        if v.sum() >= 2 and _rank_add(basis, v):
            factors.append(set(np.flatnonzero(v).tolist()))
    adj = np.zeros((m, m), dtype=bool)
    while factors:
        count = np.zeros(m, dtype=np.int64)
        for F in factors:
            count[list(F)] += 1
        fewest = min((int(count[g]), g, i) for i, F in enumerate(factors) for g in F)
        _, child, i = fewest
        for g in sorted(factors.pop(i) - {child}):
            if not dag_reach(adj)[0][child, g]:  # g -> child would close a cycle
                adj[g, child] = True
    return adj

