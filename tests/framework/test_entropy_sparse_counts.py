"""The c log c sums behind the batched entropies (``NumpyEntropies.H_plus``'s numba kernel) counted
sparsely (only the cells met, for tables much larger than the sample) equal the dense count's bit for
bit, and both equal a brute-force sum in key order."""

import math

import numpy as np
import pytest

from macrocause.framework.numeric_kernels import SPARSE_RATIO, clogc_sums_in, clogc_sums_plus

DENSE, SPARSE = math.inf, 0.0  # ratios that force one path


def _case(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(30, 800))
    cards = rng.integers(1, 70, 8).astype(np.int64)
    p = 1.0 / np.arange(1, 71) ** 1.2
    rows = np.array([rng.choice(c, n, p=p[:c] / p[:c].sum()) if j % 2 else rng.integers(0, c, n)
                     for j, c in enumerate(cards)], dtype=np.int64)
    clogc = np.array([0.0] + [c * math.log(c) for c in range(1, n + 1)])
    return rng, n, rows, cards, clogc


def brute_sum(rows, base, a, clogc, s):
    """c log c of each joint state's count, added in increasing key order."""
    counts = np.unique(base * s + rows[a], return_counts=True)[1]
    acc = 0.0
    for c in counts.tolist():  # np.unique: keys in increasing order
        acc += clogc[c]
    return acc


@pytest.mark.parametrize("seed", range(6))
def test_sparse_sums_equal_dense_and_brute_force_bit_for_bit(seed):
    """Base keys over a few values, over about n values (one or two samples each) and over a range
    with absent keys; candidates of 1 to 69 codes, skewed and uniform."""
    rng, n, rows, cards, clogc = _case(seed)
    cands = np.arange(8, dtype=np.int64)
    for K in (1, 3, n, 4 * n + 1):
        base = rng.integers(0, K, n).astype(np.int64)
        dense = clogc_sums_in(rows, base, K, cands, cards, clogc, DENSE)
        sparse = clogc_sums_in(rows, base, K, cands, cards, clogc, SPARSE)
        assert sparse.tolist() == dense.tolist()
        assert clogc_sums_plus(rows, base, K, cands, cards, clogc).tolist() == dense.tolist()
        assert dense.tolist() == [brute_sum(rows, base, a, clogc, cards[a]) for a in cands.tolist()]


def test_default_takes_the_sparse_path_on_wide_tables():
    """A table of more than SPARSE_RATIO cells per sample (and a small one in the same call): the
    default gives the same floats as either forced path."""
    rng, n, rows, cards, clogc = _case(11)
    cards[0], cards[1] = 60, 2
    rows[0] %= 60
    rows[1] %= 2
    K = n
    base = rng.integers(0, K, n).astype(np.int64)
    cands = np.array([0, 1], np.int64)
    assert K * 60 > SPARSE_RATIO * n > K * 2
    want = clogc_sums_in(rows, base, K, cands, cards, clogc, DENSE).tolist()
    assert clogc_sums_plus(rows, base, K, cands, cards, clogc).tolist() == want
    assert clogc_sums_in(rows, base, K, cands, cards, clogc, SPARSE).tolist() == want
