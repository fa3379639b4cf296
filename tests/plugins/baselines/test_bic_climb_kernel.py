"""The bic engine's own climb (plugins/baselines/_bic_climb_kernels.py: the whole climb in numba) against
climb_edges' Python climb on the same engine kind: the same graphs and scores to the bit, the same tie
draws (the generator left in the same state), in both ways of counting the candidates."""

import numpy as np
import pytest

from macrocause.framework import entropy
from macrocause.framework.dag_climb import climb_edges
from macrocause.plugins.baselines import _bic_climb_kernels as kern
from macrocause.plugins.baselines.bic import BICEngine


@pytest.mark.parametrize("n", [1, 2, 7, 8, 9, 100, 127, 128, 129, 300, 1000, 8191, 8192, 8193, 20000])
def test_np_sum_is_numpys_sum_to_the_bit(n):
    rng = np.random.default_rng(n)
    for scale in (1.0, 1e6):
        x = rng.standard_normal(n) * scale
        assert kern.np_sum(x) == x.sum()
        rows = np.abs(rng.standard_normal((3, n))) * scale  # a row of a 2-d sum over its last axis
        assert [kern.np_sum(np.ascontiguousarray(r)) for r in rows] == rows.sum(axis=1).tolist()


def _data(seed, n, d, max_card=4, copied=0.6):
    """Discrete data with dependence: each column (2 to *max_card* symbols) a noisy function of up to
    two earlier ones (each copied on a fraction *copied* of the samples)."""
    rng = np.random.default_rng(seed)
    cards = rng.integers(2, max_card + 1, d)
    X = np.zeros((n, d), dtype=np.int64)
    for j in range(d):
        X[:, j] = rng.integers(0, cards[j], n)
        for p in rng.choice(j, min(j, 2), replace=False) if j else []:
            keep = rng.random(n) < copied
            X[keep, j] = X[keep, p] % cards[j]
    return X


def _both(X, start, max_steps, tabu_length, patience, seed, monkeypatch=None):
    """The same climb by the kernel and by climb_edges' Python path, each on a fresh engine."""
    rng_k = None if seed is None else np.random.default_rng(seed)
    rng_p = None if seed is None else np.random.default_rng(seed)
    d = X.shape[1]
    clusters = [(i,) for i in range(d)]
    ka, ks = BICEngine(X, True).climb(start, max_steps, tabu_length, patience, rng_k)
    pa, ps = climb_edges(BICEngine(X, True), clusters, start, max_steps, tabu_length, patience, rng_p, kernel=False)
    np.testing.assert_array_equal(ka, pa)
    assert ks == ps
    if seed is not None:
        assert rng_k.random() == rng_p.random()  # the same draws were taken
    return ka


@pytest.mark.parametrize("counted", [False, True])
@pytest.mark.parametrize("seed,tabu_length,patience,max_steps", [
    (0, 100, 0, 10_000), (1, 3, 2, 10_000), (2, 0, 0, 10_000), (3, 5, 4, 7), (None, 100, 2, 10_000)])
def test_kernel_climb_is_the_python_climb(monkeypatch, counted, seed, tabu_length, patience, max_steps):
    """counted: candidates counted by the numba kernel (n d^2 >= NUMBA_WORK) or as NumPy counts them."""
    monkeypatch.setattr(entropy, "NUMBA_WORK", 0 if counted else 10**12)
    X = _data(10 + (seed or 0), 400, 9)
    adj = _both(X, np.zeros((9, 9), bool), max_steps, tabu_length, patience, seed)
    assert adj.any()
    start = np.zeros((9, 9), bool)
    start[0, 1] = start[1, 2] = start[3, 2] = True  # from a given graph, some of it wrong
    _both(X, start, max_steps, tabu_length, patience, seed)


def test_kernel_climb_beyond_64_variables():
    """Column sets of variables 64 and up use the second mask word."""
    X = _data(8, 200, 70)
    adj = _both(X, np.zeros((70, 70), bool), 10_000, 100, 2, 8)
    assert adj[:, 64:].any() or adj[64:, :].any()


def test_kernel_climb_reuses_its_caches_across_climbs():
    """A second climb on the same engine (warm caches) gives what a fresh engine gives."""
    X = _data(5, 300, 8)
    eng = BICEngine(X, True)
    first = eng.climb(np.zeros((8, 8), bool), 10_000, 100, 2, np.random.default_rng(1))
    again = eng.climb(np.zeros((8, 8), bool), 10_000, 100, 2, np.random.default_rng(1))
    fresh = BICEngine(X, True).climb(np.zeros((8, 8), bool), 10_000, 100, 2, np.random.default_rng(1))
    for a, b in ((first, again), (first, fresh)):
        np.testing.assert_array_equal(a[0], b[0])
        assert a[1] == b[1]


def test_kernel_climb_with_a_tabu_list_longer_than_its_moves():
    """tabu_length far above max_steps: the ring holds the moves made (no allocation of tabu_length)."""
    X = _data(7, 300, 6)
    _both(X, np.zeros((6, 6), bool), 12, 10**12, 1, 3)


def test_kernel_climb_declines_gaussian_data_and_over_128_variables():
    rng = np.random.default_rng(0)
    assert BICEngine(rng.standard_normal((50, 3)), False).climb(np.zeros((3, 3), bool), 10, 0, 0, None) is None
    wide = rng.integers(0, 2, (20, 129))
    assert BICEngine(wide, True).climb(np.zeros((129, 129), bool), 10, 0, 0, None) is None


def _wide_data(seed, n, d):
    """Discrete data with alphabets of 2 to 9 symbols: many add moves cost more than any gain they can bring."""
    return _data(seed, n, d, max_card=9, copied=0.7)


def test_gain_bound_is_above_every_add_gain():
    """The bound of an add move's gain (N min(H(i|P), H(a|P), H(a)) less the penalty) against the gain
    itself, BICEngine's local scores, on random families; and it is below zero for some of them."""
    X = _wide_data(3, 300, 7)
    eng = BICEngine(X, True)
    sc = kern.scores(eng.ent.codes, eng.ent._rows, eng.ent.cards, eng.ent.clogc(), True, eng.ent.bits())
    rng = np.random.default_rng(0)
    negative = 0
    for _ in range(60):
        i, a, *rest = rng.permutation(7)
        P = tuple(sorted(int(v) for v in rest[:rng.integers(0, 3)]))
        Pa = np.array(P, dtype=np.int64)
        kern._H_plus(sc, Pa, np.array([a], dtype=np.int64))  # H(P + a) counted: the H(a | P) term is used
        cur = eng.var_score(int(i), P)
        qP = float(np.prod(eng.cards[list(P)])) if P else 1.0
        n_h = -cur - 0.5 * eng.log_n * (eng.cards[i] - 1.0) * qP
        bound = kern._gain_bound(sc, int(i), int(a), n_h, kern._conditional_h(sc, Pa)[a], qP)
        gain = eng.var_score(int(i), tuple(sorted(P + (int(a),)))) - cur
        assert bound >= gain
        negative += bound < 0
    assert negative > 5


@pytest.mark.parametrize("seed,patience", [(0, 0), (1, 2), (2, 4), (None, 2)])
def test_bounded_climb_counts_less_and_moves_as_the_full_count(monkeypatch, seed, patience):
    """The kernel climb with its add moves bounded before they are counted, against the full count and
    the Python climb: the same graphs, the same draws, scores equal up to rounding; fewer entropies counted."""
    monkeypatch.setattr(entropy, "NUMBA_WORK", 0)
    X = _wide_data(20 + (seed or 0), 300, 10)
    start = np.zeros((10, 10), bool)
    runs = []
    for bounded in (True, False):
        eng = BICEngine(X, True)
        eng.bounded_adds = bounded
        rng = None if seed is None else np.random.default_rng(seed)
        adj, score = eng.climb(start, 10_000, 100, patience, rng)
        runs.append((adj, score, None if rng is None else rng.random(), len(eng._kernel_scores[8])))
    rng = None if seed is None else np.random.default_rng(seed)
    p_adj, p_score = climb_edges(BICEngine(X, True), [(i,) for i in range(10)], start, 10_000, 100, patience, rng,
                                 kernel=False)
    (b_adj, b_score, b_draw, b_counted), (f_adj, f_score, f_draw, f_counted) = runs
    assert p_adj.any()
    np.testing.assert_array_equal(b_adj, f_adj)
    np.testing.assert_array_equal(b_adj, p_adj)
    assert b_score == pytest.approx(f_score, rel=1e-12) and b_score == pytest.approx(p_score, rel=1e-12)
    assert b_draw == f_draw
    assert b_counted < f_counted


def test_bounded_climb_counts_a_move_when_a_tabu_walk_reaches_its_bound(monkeypatch):
    """Tabu walks (patience 4) on 20 small draws: some worsening step's best move falls below the bound
    of an uncounted add move, which must then be counted (draw 17 needs it); every draw climbs as the
    full count does."""
    monkeypatch.setattr(entropy, "NUMBA_WORK", 0)
    for draw in range(20):
        X = _wide_data(draw, 100, 8)
        out = []
        for bounded in (True, False):
            eng = BICEngine(X, True)
            eng.bounded_adds = bounded
            rng = np.random.default_rng(0)
            out.append(eng.climb(np.zeros((8, 8), bool), 10_000, 100, 4, rng) + (rng.random(),))
        np.testing.assert_array_equal(out[0][0], out[1][0])
        assert out[0][1] == pytest.approx(out[1][1], rel=1e-12) and out[0][2] == out[1][2]
