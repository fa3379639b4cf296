"""Sparse noisy parities of binary data: every set of at most ``w`` variables whose xor pays its code length.

The parity relations of :mod:`.relations` are found by information-set decoding, which needs a relation
that holds on every one of ``d + 10`` random samples: low noise only. A majority mechanism makes noisier
ones. In ``cic_random`` a child cluster B of a single parent cluster A has ``xor(B) = maj(A) xor noise``;
every proper subset of B is independent of everything (a needle for any climb), while ``xor(B + {a})``
for a variable a of A agrees with a constant with probability 0.65 (Fourier weight 3/8 of a majority of
4-5 bits on one input, through a 0.1 channel), and for a majority of an even number of bits ``xor(B)``
itself does (its tie rule biases it). Decoding would need ``0.65^(d + 10)`` luck per try; a sparse set
can be found by enumerating every set of up to ``w`` variables instead, as long as there are few enough
of them: ``w`` is the largest size with at most ``budget`` sets of sizes 2..w (d = 40: w = 6).

A set S is kept when ``N KL(q || q0) > (log N) / 2 + log C(d, |S|)`` (the tilt's parameter and the
set's name, the test of :mod:`.relations`), q the share of odd parity and q0 its probability under
independent margins.

References
----------
Blum, Kalai, Wasserman. Noise-tolerant learning, the parity problem, and the statistical query model.
Journal of the ACM 50(4), 2003 (learning sparse parities with noise).
O'Donnell. Analysis of Boolean Functions. Cambridge University Press, 2014 (the Fourier weights of majority).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ._kernels import pack_bits, parity_tilt, popcount64

Idx = tuple[int, ...]
BUDGET = 5_000_000  # sets of sizes 2..w scanned at most


def scan_size(d: int, budget: int = BUDGET) -> int:
    """Largest w with sum_{k=2..w} C(d, k) <= budget (at least 1: no scan)."""
    total, w = 0, 1
    while w < d:
        total += math.comb(d, w + 1)
        if total > budget:
            break
        w += 1
    return w


@njit(cache=True)
def _scan(C: np.ndarray, n: int, mu: np.ndarray, w: int, need: np.ndarray, cap: int) -> np.ndarray:
    """Depth-first over sets of sizes 2..w in increasing index order; the xor of a set's columns is
    its parent's xor with one more column. Rows of the result: the set's indices, -1 padded."""
    d, W = C.shape
    acc = np.zeros((w + 1, W), np.uint64)
    prod = np.ones(w + 1)
    stack = np.zeros(w + 1, np.int64)
    out = np.full((cap, w), -1, np.int64)
    found = 0
    depth = 1
    stack[1] = 0
    while depth > 0:
        j = stack[depth]
        if j >= d:
            depth -= 1
            if depth > 0:
                stack[depth] += 1
            continue
        for k in range(W):
            acc[depth, k] = acc[depth - 1, k] ^ C[j, k]
        prod[depth] = prod[depth - 1] * mu[j]
        if depth >= 2:
            odd = 0
            for k in range(W):
                odd += popcount64(acc[depth, k])
            if parity_tilt(odd, n, prod[depth]) > need[depth] and found < cap:
                for i in range(depth):
                    out[found, i] = stack[i + 1]
                found += 1
        if depth < w:
            depth += 1
            stack[depth] = j + 1
        else:
            stack[depth] += 1
    return out[:found]


def sparse_parities(codes: np.ndarray, budget: int = BUDGET, cap: int = 10_000) -> list[Idx]:
    """Every set of 2..w variables (w = :func:`scan_size`) of the 0/1 array *codes* (n, d) whose parity
    pays its code length (module docstring); at most *cap* sets, in scan order."""
    n, d = codes.shape
    w = scan_size(d, budget)
    if w < 2:
        return []
    mu = 1.0 - 2.0 * codes.mean(axis=0)
    need = np.array([0.5 * math.log(n) + math.log(math.comb(d, k)) for k in range(w + 1)])
    rows = _scan(pack_bits(np.ascontiguousarray(codes.T.astype(np.int8))), n, mu, w, need, cap)
    return [tuple(int(v) for v in r if v >= 0) for r in rows]


def reader_groups(clusters: list[Idx], sets: list[Idx]) -> list[Idx]:
    """*clusters* with the single readers of each group joined: the variables v outside a group G, single
    in *clusters*, for which ``G + {v}`` is one of *sets* (a child cluster read through the majority of
    one parent cluster A is such a G for every v of A, while every pair of A's variables reads it no
    better than one, so a climb joining them two at a time sees no gain). A variable reading several
    groups joins the first's readers."""
    single = {c[0] for c in clusters if len(c) == 1}
    found = set(sets)
    taken: set[int] = set()
    joined: list[Idx] = []
    for G in clusters:
        if len(G) < 2:
            continue
        readers = [v for v in sorted(single - taken) if tuple(sorted(G + (v,))) in found]
        if len(readers) >= 2:
            joined.append(tuple(readers))
            taken.update(readers)
    return sorted([c for c in clusters if not (len(c) == 1 and c[0] in taken)] + joined)
