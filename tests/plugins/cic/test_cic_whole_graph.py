"""Judging the whole cluster DAG: dependence_carried, score_gap, the exhaustive search, auto estimator."""

import numpy as np
import pytest

from macrocause.framework import CausalGraph, Dataset, registry
from macrocause.framework.errors import DataValidationError
from macrocause.plugins.cic.exhaustive import all_dags, bell, set_partitions
from macrocause.plugins.cic.simulate import scenario, xor_example

C1 = ["X1", "X2", "X3"]


def _carried(graph, truth=None, **kw):
    truth = truth if truth is not None else scenario(1, n=50).truth["graph"]
    return registry.create("dependence_carried", **kw).evaluate(scenario(1, n=50), graph, truth).metrics


def test_dependence_carried_by_edge_cluster_or_not_at_all():
    kw = {"sources": C1, "target": "X7"}
    edge = CausalGraph([C1, ["X4", "X5", "X6", "X7", "X8"]], [(0, 1)])
    shared = CausalGraph([["X1", "X2", "X3", "X7"], ["X4", "X5", "X6", "X8"]], [])
    apart = CausalGraph([C1, ["X4", "X5", "X6", "X7", "X8"]], [])
    split = CausalGraph([["X1", "X2"], ["X3"], ["X4", "X5", "X6", "X7", "X8"]], [(2, 0)])
    assert _carried(edge, **kw) == {"dependence_carried": 1.0, "share": 1.0, "sources_together": 1.0}
    assert _carried(shared, **kw)["dependence_carried"] == 1.0
    assert _carried(apart, **kw) == {"dependence_carried": 0.0, "share": 0.0, "sources_together": 1.0}
    assert _carried(split, **kw) == {"dependence_carried": 0.0, "share": 2 / 3, "sources_together": 0.0}
    # without sources: the share of true cluster edges carried (truth: C1->X7, C2->X7, C2->X8, X7->X8)
    assert _carried(edge)["dependence_carried"] == 1.0  # C1->X7 by the edge, the other three shared
    assert _carried(apart)["dependence_carried"] == pytest.approx(3 / 4)
    assert _carried(CausalGraph([[f"X{i}"] for i in range(1, 9)], []))["dependence_carried"] == 0.0
    with pytest.raises(DataValidationError, match="both 'sources' and 'target'"):
        _carried(edge, sources=C1)


def test_score_gap_is_truth_minus_result():
    ds = scenario(1, n=300, seed=0)
    truth = ds.truth["graph"]
    one = CausalGraph([[f"X{i}" for i in range(1, 9)]], [])
    ev = registry.create("score_gap", scorer_params={"fit_factor": "N"}).evaluate(ds, one, truth)
    cic = registry.create("cic", fit_factor="N")
    assert ev.metrics["truth_score"] == pytest.approx(cic.score(ds, truth))
    assert ev.value == pytest.approx(cic.score(ds, truth) - cic.score(ds, one))
    assert registry.create("score_gap").evaluate(ds, truth, truth).value == 0.0


def test_enumeration_counts():
    assert [bell(k) for k in range(7)] == [1, 1, 2, 5, 15, 52, 203]
    assert sum(1 for _ in set_partitions(5)) == 52
    assert [len(all_dags(m)) for m in range(1, 5)] == [1, 3, 25, 543]  # OEIS A003024


def test_exhaustive_is_the_best_structure_and_beats_the_greedy_search():
    ds = xor_example(n=400, seed=0)
    cic = registry.create("cic")
    r = registry.create("cic_exhaustive").run(ds, cic)
    # 4 blocks: sum over clusterings of the DAGs on their clusters = 1*1 + 7*3 + 6*25 + 1*543
    assert r["n_structures"] == 1 + 7 * 3 + 6 * 25 + 543
    assert r["score"] == pytest.approx(cic.score(ds, r["graph"]))
    greedy = registry.create("cic_greedy", restarts=20, vstructures=False, min_clusters=1,
                             max_clusters=None).run(ds, cic)
    assert r["score"] >= greedy["score"] - 1e-9
    blocks = registry.create("cic_exhaustive", blocks=[["X1", "X2"]]).run(ds, cic)
    assert blocks["n_structures"] == 1 + 3 * 3 + 1 * 25  # 3 blocks: {X1,X2}, X3, X4
    assert blocks["graph"].cluster_of("X1") == blocks["graph"].cluster_of("X2")
    assert blocks["score"] <= r["score"] + 1e-9
    climbed = registry.create("cic_exhaustive", edges="climb", m=2).run(ds, cic)
    assert climbed["graph"].n_nodes == 2 and climbed["n_structures"] == 7 * 3


def test_exhaustive_refuses_what_it_cannot_enumerate():
    ds = scenario(1, n=50)
    with pytest.raises(DataValidationError, match="edges='all' enumerates DAGs on at most 5 clusters"):
        registry.create("cic_exhaustive").search(ds, scorer="cic")
    with pytest.raises(DataValidationError, match="not in the data"):
        registry.create("cic_exhaustive", blocks=[["X1", "Y"]]).search(ds, scorer="cic")
    wide = Dataset(np.zeros((10, 12), dtype=int) + np.arange(10)[:, None] % 2, discrete=True)
    with pytest.raises(DataValidationError, match="12 blocks give 4,213,597 clusterings"):
        registry.create("cic_exhaustive", edges="climb").search(wide, scorer="cic")


def test_auto_estimator_by_sample_size():
    rng = np.random.default_rng(0)
    cic = registry.create("cic", kl_above=100, fit_factor="N")  # Eq. 6 asked for by name: the paper's KSG
    assert cic.estimator_for(Dataset(rng.standard_normal((100, 3)))) == "knn"
    assert cic.estimator_for(Dataset(rng.standard_normal((101, 3)))) == "kl"
    # every default on continuous data: Eq. 6 as printed with Gaussian-copula entropies, at any size
    assert registry.create("cic").estimator_for(Dataset(rng.standard_normal((100, 3)))) == "copula"
    assert cic.estimator_for(scenario(1, n=5000)) == "plugin"
    assert registry.create("cic", estimator="knn").estimator_for(Dataset(rng.standard_normal((5000, 3)))) == "knn"
