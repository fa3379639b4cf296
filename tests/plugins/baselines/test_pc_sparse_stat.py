"""pc's chi-square and G-square statistics counted sparsely (only the cells met, for count tables
much larger than the sample) equal the dense count's bit for bit, and both equal a brute-force count."""

import math

import numpy as np
import pytest

from macrocause.plugins.baselines._pc_citests import CHISQ, prepare
from macrocause.plugins.baselines._pc_kernels import SPARSE_RATIO, _layers, discrete_stat, stat_in

DENSE, SPARSE = math.inf, 0.0  # ratios that force one path (math.inf: the dense table of four tallies)


def _skewed(rng, n, k):
    """Codes 0..k-1 with Zipf-like frequencies: strata with empty rows and columns, values seen once."""
    p = 1.0 / np.arange(1, k + 1) ** 1.3
    return rng.choice(k, n, p=p / p.sum())


def brute_stat(codes, x, y, layer):
    """Statistic and degrees of freedom from per-stratum dictionaries (causal-learn's definitions)."""
    chi = gsq = 0.0
    df = 0
    for w in np.unique(layer):
        sel = layer == w
        xs, ys = codes[sel, x], codes[sel, y]
        rx, cy = np.unique(xs), np.unique(ys)
        df += (rx.size - 1) * (cy.size - 1)
        tot = sel.sum()
        for i in rx:
            for j in cy:
                c = np.sum((xs == i) & (ys == j))
                e = np.sum(xs == i) * np.sum(ys == j) / tot
                chi += (c - e) ** 2 / e
                gsq += c * math.log(c / e) if c else 0.0
    return chi, 2.0 * gsq, df


@pytest.mark.parametrize("seed", range(6))
def test_sparse_count_equals_dense_bit_for_bit(seed):
    """High cardinalities and many strata (most with one or a few samples), skewed and uniform codes,
    chi-square and G-square: the same statistic (==) and degrees of freedom from both counts."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(40, 600))
    k = [int(v) for v in rng.integers(2, 60, 6)]
    cols = [_skewed(rng, n, v) if u % 2 else rng.integers(0, v, n) for u, v in enumerate(k)]
    _, codes, cards = prepare(np.column_stack(cols), CHISQ)
    for S in ([], [2], [3, 4], [2, 4, 5]):
        layer, m = _layers(codes, cards, np.array(S, np.int64))
        for x, y in ((0, 1), (1, 0), (0, 5), (1, 3)):
            if x in S or y in S:
                continue
            for gsq in (False, True):
                dense = stat_in(codes, cards, x, y, layer, m, gsq, DENSE)
                assert stat_in(codes, cards, x, y, layer, m, gsq, SPARSE) == dense
                assert discrete_stat(codes, cards, x, y, layer, m, gsq) == dense


def test_sparse_count_with_a_cached_layer():
    """The skeleton passes a cached configuration index with m appended (length n + 1)."""
    rng = np.random.default_rng(7)
    n = 300
    codes = np.column_stack([rng.integers(0, 40, n), _skewed(rng, n, 50), rng.integers(0, 150, n)]).astype(np.int64)
    cards = codes.max(axis=0) + 1
    layer, m = _layers(codes, cards, np.array([2], np.int64))
    assert m * cards[0] * cards[1] > SPARSE_RATIO * n  # the default takes the sparse path
    cached = np.append(layer, m)
    for gsq in (False, True):
        want = stat_in(codes, cards, 0, 1, layer, m, gsq, DENSE)
        assert stat_in(codes, cards, 0, 1, cached, m, gsq, SPARSE) == want
        assert discrete_stat(codes, cards, 0, 1, cached, m, gsq) == want


@pytest.mark.parametrize("path", [DENSE, SPARSE])
def test_both_counts_equal_a_brute_force_count(path):
    rng = np.random.default_rng(3)
    n = 120
    X = np.column_stack([_skewed(rng, n, 9), rng.integers(0, 7, n), rng.integers(0, 5, n), _skewed(rng, n, 6)])
    X[:, 1] = (X[:, 0] + rng.integers(0, 3, n)) % 7
    _, codes, cards = prepare(X, CHISQ)
    for S in ([], [2], [2, 3]):
        layer, m = _layers(codes, cards, np.array(S, np.int64))
        chi, gsq, df = brute_stat(codes, 0, 1, layer)
        s_chi, d_chi = stat_in(codes, cards, 0, 1, layer, m, False, path)
        s_gsq, d_gsq = stat_in(codes, cards, 0, 1, layer, m, True, path)
        assert d_chi == d_gsq == df
        assert s_chi == pytest.approx(chi, rel=1e-12)
        assert s_gsq == pytest.approx(gsq, rel=1e-12)
