"""Hand-computed CIC/BIC terms on tiny tables, kNN estimators against closed forms."""

import math

import numpy as np
import pytest

from macrocause.framework import CausalGraph, Dataset, registry
from macrocause.framework.entropy import encode_columns
from macrocause.framework.errors import DataValidationError
from macrocause.framework.numeric_kernels import joint_entropy
from macrocause.plugins.cic._kernels import log_stirling2_row
from macrocause.plugins.cic.engine import CICEngine

# x0, x1, x2 over 4 samples
TABLE = np.array([[0, 0, 1], [0, 1, 1], [1, 1, 0], [1, 1, 1]])


def h(*p):
    return -sum(q * math.log(q) for q in p if q > 0)


def test_plugin_entropies_by_hand():
    codes, cards = encode_columns(TABLE)
    H = lambda *c: joint_entropy(codes, np.array(c, dtype=np.int64), cards)  # noqa: E731
    assert H(0) == pytest.approx(math.log(2))
    assert H(1) == pytest.approx(h(0.25, 0.75))
    assert H(0, 1) == pytest.approx(h(0.25, 0.25, 0.5))
    assert H(0, 1, 2) == pytest.approx(math.log(4))
    eng = CICEngine(TABLE.astype(float), discrete=True)
    mi01 = math.log(2) + h(0.25, 0.75) - h(0.25, 0.25, 0.5)
    assert eng.pairwise_mi(0, 1) == pytest.approx(mi01)
    tc = math.log(2) + 2 * h(0.25, 0.75) - math.log(4)
    assert eng.tc((0, 1, 2)) == pytest.approx(tc)
    # I(X_{0,1}; X_2) = H(01) + H(2) - H(012)
    assert eng.mi((0, 1), (2,)) == pytest.approx(h(0.25, 0.25, 0.5) + h(0.25, 0.75) - math.log(4))


def test_entropy_many_columns_no_overflow():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 7, (50, 40))
    codes, cards = encode_columns(X)
    # 7^40 overflows int64: the key is re-ranked on the way; all rows distinct -> log n
    assert joint_entropy(codes, np.arange(40, dtype=np.int64), cards) == pytest.approx(math.log(50))


def test_log_stirling():
    row = log_stirling2_row(10)
    assert row[0] == -np.inf and row[1] == pytest.approx(0.0)
    assert math.exp(row[4]) == pytest.approx(34105)  # S(10, 4)
    assert math.exp(log_stirling2_row(5)[3]) == pytest.approx(25)
    assert math.exp(log_stirling2_row(4)[2]) == pytest.approx(7)
    big = log_stirling2_row(400)
    assert np.all(np.isfinite(big[1:])) and big[200] > 500


def test_cic_score_by_hand():
    ds = Dataset(TABLE, names=["a", "b", "c"])
    cic = registry.create("cic", fit_factor="2N")  # Eq. 6 as printed
    n, L = 4, math.log(4) / 2
    # graph {a, b} -> {c}: m = 2 clusters, 1 edge
    g = CausalGraph([["a", "b"], ["c"]], [(0, 1)])
    tc_ab = math.log(2) + h(0.25, 0.75) - h(0.25, 0.25, 0.5)
    mi_c_ab = h(0.25, 0.25, 0.5) + h(0.25, 0.75) - math.log(4)
    mi_ac = math.log(2) + h(0.25, 0.75) - h(0.25, 0.25, 0.5)  # (a,c): (0,1),(0,1),(1,0),(1,1)
    mi_bc = h(0.25, 0.75) * 2 - h(0.25, 0.5, 0.25)  # (b,c): (0,1),(1,1),(1,0),(1,1)
    gval = tc_ab + mi_c_ab - mi_ac - mi_bc
    penalty = math.log(1) + 1 * math.log(2) + (4 - 1) * 1 + (2 - 1) * 4  # log S(3,2)=log 3 below
    penalty += math.log(3)
    assert cic.score(ds, g) == pytest.approx(2 * n * gval - L * penalty)
    # local score excludes the m-dependent terms
    assert cic.local_score(ds, ["c"], [["a", "b"]]) == pytest.approx(
        2 * n * (mi_c_ab - mi_ac - mi_bc) - L * (2 - 1) * 4)
    assert cic.local_score(ds, ["a", "b"], []) == pytest.approx(2 * n * tc_ab - L * 3)
    # fit_factor="N": the same g and penalty with the log-likelihood's factor N (a BIC)
    assert registry.create("cic", fit_factor="N").score(ds, g) == pytest.approx(n * gval - L * penalty)


def test_bic_matches_pgmpy():
    pytest.importorskip("pgmpy")
    import pandas as pd
    from pgmpy.structure_score import BIC as PBIC
    from pgmpy.structure_score import BICGauss

    rng = np.random.default_rng(1)
    Xd = rng.integers(0, 3, (200, 3))
    Xd[:, 2] = (Xd[:, 0] + Xd[:, 1]) % 3
    ds = Dataset(Xd, names=["a", "b", "c"])
    frame = pd.DataFrame(Xd, columns=["a", "b", "c"]).astype("category")
    ours = registry.create("bic")
    ref = PBIC(frame)
    assert ours.local_score(ds, ["c"], [["a"], ["b"]]) == pytest.approx(ref.local_score("c", ("a", "b")))
    assert ours.local_score(ds, ["a"], []) == pytest.approx(ref.local_score("a", ()))
    # cluster node = sum over its variables given all parent variables
    assert ours.local_score(ds, ["a", "c"], [["b"]]) == pytest.approx(
        ref.local_score("a", ("b",)) + ref.local_score("c", ("b",)))
    Xc = rng.standard_normal((150, 3))
    Xc[:, 2] += Xc[:, 0] - 0.5 * Xc[:, 1]
    dsc = Dataset(Xc, names=["a", "b", "c"])
    refg = BICGauss(pd.DataFrame(Xc, columns=["a", "b", "c"]))
    assert ours.local_score(dsc, ["c"], [["a", "b"]]) == pytest.approx(refg.local_score("c", ("a", "b")))
    assert ours.local_score(dsc, ["b"], []) == pytest.approx(refg.local_score("b", ()))


def test_knn_estimators_against_gaussian_closed_forms():
    from macrocause.plugins.cic._knn import (
        knn_conditional_mi,
        knn_entropy,
        knn_mutual_information,
        knn_total_correlation,
    )

    rng = np.random.default_rng(0)
    n, r = 3000, 0.8
    z = rng.standard_normal((n, 3))
    x = z[:, [0]]
    y = r * z[:, [0]] + math.sqrt(1 - r * r) * z[:, [1]]
    assert knn_entropy(x) == pytest.approx(0.5 * math.log(2 * math.pi * math.e), abs=0.05)
    assert knn_mutual_information(x, y) == pytest.approx(-0.5 * math.log(1 - r * r), abs=0.05)
    assert knn_total_correlation([x, y, z[:, [2]]]) == pytest.approx(-0.5 * math.log(1 - r * r), abs=0.05)
    assert abs(knn_conditional_mi(x, z[:, [2]], y)) < 0.03


def test_cic_continuous_prefers_dependent_cluster():
    rng = np.random.default_rng(0)
    z = rng.standard_normal((500, 2))
    X = np.column_stack([z[:, 0], z[:, 0] + 0.3 * rng.standard_normal(500), z[:, 1]])
    ds = Dataset(X, names=["a", "b", "c"])
    cic = registry.create("cic")
    together = CausalGraph([["a", "b"], ["c"]])
    apart = CausalGraph([["a"], ["b", "c"]])
    assert cic.score(ds, together) > cic.score(ds, apart)


def test_errors():
    cic = registry.create("cic")
    with pytest.raises(DataValidationError, match="at least 2 variables"):
        cic.score(np.zeros((10, 1)), CausalGraph.empty(["x0"]))
    X = np.random.default_rng(0).standard_normal((6, 2))
    with pytest.raises(DataValidationError, match="more than 6 samples"):
        registry.create("cic", fit_factor="N").score(X, CausalGraph.empty(["x0", "x1"]))  # Eq. 6's kNN
    X = np.ones((20, 2))
    X[3, 1] = np.nan
    with pytest.raises(DataValidationError, match="NaN"):
        cic.score(X, CausalGraph.empty(["x0", "x1"]))
    with pytest.raises(DataValidationError, match="at least 2 variables"):
        registry.create("cic_greedy").search(np.zeros((10, 1)))
    with pytest.raises(ValueError, match="restarts"):
        registry.create("cic_greedy", restarts=0)
    with pytest.raises(ValueError, match="fit_factor.*'2N' or 'N'"):
        registry.create("cic", fit_factor="3N")
