"""The fast paths of greedy_dag give the old values (exactly, or up to the summation order): NumPy plug-in entropies equal the numba
kernels' bit for bit, the squaring closure equals Floyd-Warshall, and a search with both returns the
graph and score of the old implementation. The discrete BIC path needs no numba start-up."""

import itertools
import subprocess
import sys

import numpy as np
import pytest

from macrocause.framework import dag_climb as _climb
from macrocause.framework import registry
from macrocause.framework.entropy import DiscreteEntropies, NumpyEntropies
from macrocause.plugins.baselines import bic as engine
from macrocause.plugins.baselines.bic import BICEngine


def floyd_warshall_closure(adj):
    """The closure before repeated squaring."""
    R = adj.copy()
    for k in range(adj.shape[0]):
        R |= R[:, k : k + 1] & R[k : k + 1, :]
    return R


@pytest.mark.parametrize("seed", range(4))
def test_numpy_entropies_equal_the_numba_kernels_bit_for_bit(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 1500))
    X = rng.integers(0, 3, size=(n, 6))
    X[:, 0] = rng.integers(0, 400, n)  # joint alphabets above 2^16: the sorted path
    old, new = DiscreteEntropies(X), NumpyEntropies(X)
    for k in range(1, 7):
        for cols in itertools.combinations(range(6), k):
            assert new.H(cols) == old.H(cols), cols


def test_numpy_entropies_rerank_wide_keys_like_the_kernels():
    rng = np.random.default_rng(7)
    X = rng.integers(0, 1000, size=(300, 6))  # 1000^6 > 2^40: the running key is re-ranked
    old, new = DiscreteEntropies(X), NumpyEntropies(X)
    for cols in [(0, 1, 2, 3, 4, 5), (1, 3, 5), (0, 5)]:
        assert new.H(cols) == old.H(cols)
    assert new.H((0, 1, 2, 3, 4, 5)) == pytest.approx(np.log(300))  # all rows distinct


def test_squaring_closure_equals_floyd_warshall():
    rng = np.random.default_rng(0)
    for _ in range(200):
        m = int(rng.integers(1, 40))
        A = rng.random((m, m)) < rng.random() * 0.3
        np.testing.assert_array_equal(_climb.closure(A), floyd_warshall_closure(A))
    chain = np.eye(5, k=1, dtype=bool)  # 0 -> 1 -> 2 -> 3 -> 4
    np.testing.assert_array_equal(_climb.closure(chain), np.triu(np.ones((5, 5), dtype=bool), 1))


@pytest.mark.parametrize("seed", [0, 1])
def test_greedy_dag_discrete_result_equals_the_old_implementation(seed, monkeypatch):
    ds = registry.load_data("discrete_bn", n_variables=8, n_samples=600, edge_prob=0.3, seed=seed)
    new = registry.create("greedy_dag", restarts=3, stale=0, pc_start=False).run(ds, registry.create("bic"))

    class OldBIC(BICEngine):
        def __init__(self, X, discrete):
            super().__init__(X, discrete)
            self.ent = DiscreteEntropies(X)

    monkeypatch.setattr(engine, "BICEngine", OldBIC)
    monkeypatch.setattr(_climb, "closure", floyd_warshall_closure)
    old = registry.create("greedy_dag", restarts=3, stale=0, pc_start=False).run(ds, registry.create("bic"))
    # the add moves' entropies are counted together (H_plus): equal up to the summation order, which
    # may break a tie between the two orientations of an edge the other way (same class)
    np.testing.assert_allclose(new["climb_scores"], old["climb_scores"], rtol=1e-12)
    assert new["graph"].cpdag().edge_names() == old["graph"].cpdag().edge_names()


@pytest.mark.parametrize("seed", [0, 1])
def test_batched_entropies_equal_one_at_a_time(seed):
    """H_plus(base, cands) is H(base + a) for each a, for empty, narrow and wide bases (wide ones
    ranked, many candidates counted in several blocks)."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, k, 3000) for k in rng.integers(1, 40, 60)])
    one, batch = NumpyEntropies(X), NumpyEntropies(X)
    for size in (0, 1, 2, 4, 7):
        base = tuple(sorted(rng.choice(60, size, replace=False).tolist()))
        cands = [a for a in range(60) if a not in base]
        want = [one.H(tuple(sorted(base + (a,)))) for a in cands]
        np.testing.assert_allclose(batch.H_plus(base, cands), want, rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(batch.H_plus(base, cands[::-1]), batch.H_plus(base, cands)[::-1])


def test_batched_entropies_numba_kernel_equal_numpy(monkeypatch):
    """From n d^2 >= NUMBA_WORK H_plus counts in a numba kernel: the same values up to rounding."""
    from macrocause.framework import entropy

    rng = np.random.default_rng(3)
    X = np.column_stack([rng.integers(0, k, 2000) for k in rng.integers(1, 30, 25)])
    bases = [tuple(sorted(rng.choice(25, size, replace=False).tolist())) for size in (0, 1, 3, 6)]
    cands = [[a for a in range(25) if a not in base] for base in bases]
    numpy_path = NumpyEntropies(X)
    want = [numpy_path.H_plus(base, c) for base, c in zip(bases, cands)]
    monkeypatch.setattr(entropy, "NUMBA_WORK", 0)
    kernel = NumpyEntropies(X)
    for base, c, w in zip(bases, cands, want):
        np.testing.assert_allclose(kernel.H_plus(base, c), w, rtol=1e-12)


def test_discrete_greedy_dag_does_not_start_numba():
    code = ("import sys\nfrom macrocause import registry\n"
            "ds = registry.load_data('discrete_bn', n_variables=5, n_samples=200, seed=0)\n"
            "registry.create('greedy_dag', restarts=1, pc_start=False).search(ds, scorer='bic')\n"
            "print('numba' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
