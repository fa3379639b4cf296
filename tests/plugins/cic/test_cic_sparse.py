"""The sparse-parity scan (plugins/cic/sparse.py) against brute force on small planted data."""

import itertools
import math

import numpy as np

from macrocause.plugins.cic.sparse import reader_groups, scan_size, sparse_parities


def test_scan_size_is_the_largest_within_the_budget():
    assert scan_size(40) == 6 and scan_size(8) == 8  # sum C(40, 2..6) = 4.6 million; every set of 8
    assert sum(math.comb(50, k) for k in range(2, scan_size(50) + 1)) <= 5_000_000 < sum(
        math.comb(50, k) for k in range(2, scan_size(50) + 2))


def test_scan_equals_brute_force_and_finds_the_planted_parity():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (3000, 7))
    X[:, 6] = X[:, 1] ^ X[:, 3] ^ X[:, 4] ^ (rng.random(3000) < 0.3)  # a noisy parity over {1, 3, 4, 6}
    n, d = X.shape
    mu = 1 - 2 * X.mean(axis=0)
    want = []
    for k in range(2, d + 1):
        for S in itertools.combinations(range(d), k):
            q = (np.bitwise_xor.reduce(X[:, S], axis=1)).mean()
            q0 = 0.5 * (1 - np.prod(mu[list(S)]))
            kl = sum(a * math.log(a / b) for a, b in ((q, q0), (1 - q, 1 - q0)) if a > 0)
            if n * kl > 0.5 * math.log(n) + math.log(math.comb(d, k)):
                want.append(S)
    got = sparse_parities(X)
    assert sorted(got) == sorted(want) == [(1, 3, 4, 6)]


def test_single_readers_join_one_cluster():
    # B = {4, 5, 6} read by each of 0, 1, 2 alone; 3 reads nothing
    clusters = [(0,), (1,), (2,), (3,), (4, 5, 6)]
    sets = [(0, 4, 5, 6), (1, 4, 5, 6), (2, 4, 5, 6), (0, 1, 2, 4, 5, 6)]
    assert reader_groups(clusters, sets) == [(0, 1, 2), (3,), (4, 5, 6)]
