"""Our NumPy hill climbing (the default for discrete scores) against pgmpy's, its reference:
the same local scores to the bit, the same DAG and CPDAG."""

import itertools

import numpy as np
import pytest

from macrocause.framework import Dataset, registry
from macrocause.plugins.baselines._hc import DiscreteScore


def _chain_data(seed: int, n: int, d: int) -> np.ndarray:
    """Columns of 2-3 states, most copying an earlier column with noise (so edges exist)."""
    rng = np.random.default_rng(seed)
    X = np.zeros((n, d), dtype=np.int64)
    for j in range(d):
        card = int(rng.integers(2, 4))
        X[:, j] = rng.integers(0, card, n)
        if j and rng.random() < 0.8:
            X[:, j] = np.where(rng.random(n) < 0.6, X[:, rng.integers(0, j)] % card, X[:, j])
    return X


@pytest.mark.parametrize("kind", ["bic", "k2", "bdeu"])
def test_local_scores_equal_pgmpys_to_the_bit(kind):
    import pandas as pd
    from pgmpy.structure_score import BIC, K2, BDeu

    X = _chain_data(3, 60, 4)  # 60 rows: many parent configurations unseen (pgmpy's sparse tables)
    frame = pd.DataFrame({f"v{j}": pd.Categorical(X[:, j]) for j in range(4)})
    ref = {"bic": BIC, "k2": K2, "bdeu": BDeu}[kind](frame)
    ours = DiscreteScore(X, kind)
    for v in range(4):
        for k in range(4):
            for ps in itertools.permutations([p for p in range(4) if p != v], k):
                assert ours.local(v, ps) == ref.local_score(f"v{v}", tuple(f"v{p}" for p in ps)), (v, ps)


@pytest.mark.parametrize("seed, scoring, options", [
    (0, "bic", {}), (1, "bic", {"tabu_length": 0}), (2, "bdeu", {"max_indegree": 1}),
    (3, "k2", {"tabu_length": 3}), (4, "bic", {"max_indegree": 2}), (5, "bdeu", {}),
])
def test_same_graph_as_pgmpy(seed, scoring, options):
    X = _chain_data(seed, 400, 5)
    names = [f"x{j}" for j in np.random.default_rng(seed).permutation(5)]  # names not in column order
    ds = Dataset(X, names=names)
    for return_type in ("dag", "cpdag"):
        ours = registry.create("hill_climb", scoring=scoring, return_type=return_type, **options).search(ds)
        ref = registry.create("hill_climb", scoring=scoring, return_type=return_type, backend="pgmpy",
                              **options).search(ds)
        assert ours == ref, (return_type, ours, ref)


def test_scores_refuse_an_unknown_kind():
    with pytest.raises(ValueError, match="unknown score 'aic'"):
        DiscreteScore(np.zeros((3, 2)), "aic")
