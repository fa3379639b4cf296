"""The c log c sums behind the batched entropies (``NumpyEntropies.H_plus``'s numba kernel) counted
sparsely (only the cells met, for tables much larger than the sample) or as bit sets (small tables)
equal the dense count's bit for bit, and all equal a brute-force sum in key order."""

import math

import numpy as np
import pytest

from macrocause.framework.numeric_kernels import (
    BIT_CELLS,
    SPARSE_RATIO,
    clogc_sums_in,
    clogc_sums_plus,
    one_hot_bits,
)

DENSE, SPARSE = math.inf, 0.0  # ratios that force one path
NO_BITS = np.zeros((0, 0, 0), np.uint64)  # with bit_cells -1: never counted as bit sets


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
    bits = one_hot_bits(rows, cards)
    assert (cards <= bits.shape[1]).any()  # some candidates have bit sets
    for K in (1, 3, n, 4 * n + 1):
        base = rng.integers(0, K, n).astype(np.int64)
        dense = clogc_sums_in(rows, base, K, cands, cards, clogc, DENSE, NO_BITS, -1)
        sparse = clogc_sums_in(rows, base, K, cands, cards, clogc, SPARSE, NO_BITS, -1)
        as_bits = clogc_sums_in(rows, base, K, cands, cards, clogc, DENSE, bits, 10**12)
        assert sparse.tolist() == dense.tolist() and as_bits.tolist() == dense.tolist()
        assert clogc_sums_plus(rows, base, K, cands, cards, clogc, bits).tolist() == dense.tolist()
        assert dense.tolist() == [brute_sum(rows, base, a, clogc, cards[a]) for a in cands.tolist()]


@pytest.mark.parametrize("n", [1, 63, 64, 65, 1000])
def test_bit_sets_hold_each_code_s_samples(n):
    """one_hot_bits against the codes themselves, across word boundaries; a column of more than
    BIT_CODES codes keeps no bits."""
    rng = np.random.default_rng(n)
    cards = np.array([1, 2, 5, 40], np.int64)
    rows = np.array([rng.integers(0, c, n) for c in cards], np.int64)
    bits = one_hot_bits(rows, cards)
    assert bits.shape == (4, 32, (n + 63) // 64)
    for a in range(3):
        for v in range(cards[a]):
            got = [t for t in range(n) if int(bits[a, v, t // 64]) >> (t % 64) & 1]
            assert got == np.flatnonzero(rows[a] == v).tolist()
    assert not bits[3].any()


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
    bits = one_hot_bits(rows, cards)
    assert K * 60 > SPARSE_RATIO * n > K * 2 and K * 1 > BIT_CELLS
    want = clogc_sums_in(rows, base, K, cands, cards, clogc, DENSE, NO_BITS, -1).tolist()
    assert clogc_sums_plus(rows, base, K, cands, cards, clogc, bits).tolist() == want
    assert clogc_sums_in(rows, base, K, cands, cards, clogc, SPARSE, NO_BITS, -1).tolist() == want


def test_default_takes_the_bit_path_on_small_tables():
    """Base keys over 4 and 40 values, binary and 4-code candidates (tables within and beyond
    BIT_CELLS): the default gives the dense count's floats."""
    rng, n, rows, cards, clogc = _case(12)
    cards[:2] = 2, 4
    rows[0] %= 2
    rows[1] %= 4
    bits = one_hot_bits(rows, cards)
    cands = np.array([0, 1], np.int64)
    for K in (4, 40):
        base = rng.integers(0, K, n).astype(np.int64)
        want = clogc_sums_in(rows, base, K, cands, cards, clogc, DENSE, NO_BITS, -1).tolist()
        assert clogc_sums_plus(rows, base, K, cands, cards, clogc, bits).tolist() == want
