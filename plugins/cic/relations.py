"""A start for the cluster search from the parity relations of binary data.

A parity factor over a set F of binary variables (a child cluster read by its parents through
parity, Section 5.1's mechanisms) makes ``xor(x_F)`` far from uniform while every proper subset of F
is independent: a climb sees no gain until F is assembled exactly. Such sets are the low-noise
linear relations of the data over GF(2), and they can be found directly: on a random set of
``d + extra`` samples, a relation that holds on every one of them lies in the null space of those
rows (information-set decoding, Prange 1962), which Gauss-Jordan elimination gives in one pass.
Each null vector is checked on all N samples and kept when its parity tilt pays its code length
(N KL(q | q0) > (log N) / 2 + log C(d, |F|), q0 the parity's probability under independent margins).
Variables are then grouped by the relations they enter: the partition by membership is the same for
every basis of the relations' span, and it is the identifiable grouping of parity data (clusters
that enter the same factors cannot be told apart; variables in no relation stay single).

References
----------
Prange. The use of information sets in decoding cyclic codes. IRE Trans. Information Theory 8(5), 1962.
Niu, Li, Li. Learning Cluster Causal Diagrams: An Information-Theoretic Approach. IJCAI 2022.
"""

from __future__ import annotations

import math

import numpy as np

Idx = tuple[int, ...]


def _bits(mask: np.ndarray, d: int) -> list[int]:
    return [j for j in range(d) if int(mask[j // 64]) >> (j % 64) & 1]


def parity_relations(codes: np.ndarray, rng: np.random.Generator, tries: int, extra: int = 10) -> list[Idx]:
    """Sets of variables whose parity pays its code length (module docstring), from *tries* random row sets."""
    from ._kernels import gf2_nullspace, odd_share, pack_bits

    n, d = codes.shape
    r = d + extra
    if n < 2 * r or d < 2:
        return []
    P = pack_bits(np.ascontiguousarray(codes.astype(np.int8)))
    mu = 1.0 - 2.0 * codes.mean(axis=0)  # E (-1)^x per variable
    log_n = math.log(n)
    seen: set[bytes] = set()
    found: list[Idx] = []
    for _ in range(tries):
        basis = gf2_nullspace(P[rng.choice(n, r, replace=False)], d)
        k = basis.shape[0]
        cands = [basis[i] for i in range(k)]
        if 1 < k <= 6:
            cands = [np.bitwise_xor.reduce(basis[[i for i in range(k) if c >> i & 1]], axis=0)
                     for c in range(1, 2 ** k)]
        for mask in cands:
            key = mask.tobytes()
            if key in seen:
                continue
            seen.add(key)
            S = _bits(mask, d)
            if len(S) < 2:
                continue
            q = odd_share(P, mask)
            q0 = min(max(0.5 * (1.0 - float(np.prod(mu[S]))), 1e-12), 1 - 1e-12)
            kl = sum(a * math.log(a / b) for a, b in ((q, q0), (1 - q, 1 - q0)) if a > 0)
            if n * kl > 0.5 * log_n + math.lgamma(d + 1) - math.lgamma(len(S) + 1) - math.lgamma(d - len(S) + 1):
                found.append(tuple(S))
    return found


def relation_clusters(d: int, relations: list[Idx]) -> list[Idx] | None:
    """Variables grouped by the relations they enter (singletons for those in none); None without relations."""
    if not relations:
        return None
    member = np.zeros((d, len(relations)), dtype=bool)
    for j, S in enumerate(relations):
        member[list(S), j] = True
    # the grouping by membership is invariant under a change of basis of the span: reduce to a basis first,
    # so that dependent relations (xors of others) do not split groups they do not separate
    rows = []
    for j in range(len(relations)):
        v = member[:, j].copy()
        for b, lead in rows:
            if v[lead]:
                v ^= b
        if v.any():
            rows.append((v, int(np.flatnonzero(v)[0])))
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
