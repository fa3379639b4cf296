"""disco_auto's selection rule: degenerate labellings lose to structured ones; the grid keeps its labels."""

import numpy as np
import pytest

from macrocause.framework import Dataset, Partition, registry
from macrocause.framework.errors import ConfigError
from macrocause.plugins.disco.auto import is_degenerate, select

GRID = {"eps": [0.5, 3.0]}


def _two_blobs_far_outliers():
    """Two blobs 2.5 apart and four far outliers: eps=3 merges the blobs into one cluster,
    whose DISCO is the higher one (the outliers make every cluster point look well separated)."""
    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal(0, 0.3, (40, 2)), rng.normal((2.5, 0), 0.3, (40, 2)),
                        [[30, 30], [-30, 30], [30, -30], [-30, -30]]])
    return Dataset(X), np.repeat([0, 1, -1], [40, 40, 4])


def test_structured_rule_beats_one_big_cluster_with_the_highest_disco():
    ds, truth = _two_blobs_far_outliers()
    part = registry.create("disco_auto", grid=GRID).partition(ds)
    small, big = part.info["grid"]
    assert big["n_clusters"] == 1 and big["degenerate"]
    assert small["n_clusters"] == 2 and not small["degenerate"]
    assert big["disco"] > small["disco"]  # the old rule's trap is really there
    assert part.info["chosen"] == {"eps": 0.5}
    assert part.info["disco"] == small["disco"]
    assert part.same_clustering(registry.create("dbscan", eps=0.5).partition(ds))
    assert part.same_clustering(Partition(truth))


def test_old_rule_still_keeps_the_best_disco():
    ds, _ = _two_blobs_far_outliers()
    part = registry.create("disco_auto", grid=GRID, rule="disco").partition(ds)
    assert part.info["chosen"] == {"eps": 3.0}
    assert part.n_clusters == 1
    assert part.info["disco"] == max(r["disco"] for r in part.info["grid"])


def test_grid_records_carry_each_labelling():
    ds, _ = _two_blobs_far_outliers()
    part = registry.create("disco_auto", grid={"eps": [0.5, 3.0, -1.0]}).partition(ds)
    assert [set(r) for r in part.info["grid"]] == [
        {"params", "disco", "n_clusters", "n_noise", "degenerate", "labels"}] * 3
    for r in part.info["grid"][:2]:
        assert r["labels"].shape == (ds.n_samples,)
        ref = registry.create("dbscan", **r["params"]).partition(ds)
        assert np.array_equal(r["labels"], ref.labels)
        assert r["n_noise"] == int((r["labels"] == -1).sum())
    refused = part.info["grid"][2]  # eps < 0 is refused: no labels, NaN score
    assert refused["labels"] is None and np.isnan(refused["disco"]) and refused["degenerate"]


def test_only_degenerate_labellings_fall_back_to_the_best_disco():
    ds, _ = _two_blobs_far_outliers()
    grid = {"eps": [3.0, 5.0, 100.0]}  # every one a single cluster
    new = registry.create("disco_auto", grid=grid).partition(ds)
    old = registry.create("disco_auto", grid=grid, rule="disco").partition(ds)
    assert all(r["degenerate"] for r in new.info["grid"])
    assert new.info["chosen"] == old.info["chosen"]


def test_degenerate_thresholds():
    assert is_degenerate(1, 0, 10) and is_degenerate(0, 10, 10)
    assert not is_degenerate(2, 5, 10)  # exactly half noise is still structured
    assert is_degenerate(2, 6, 10)

    def rec(disco, k, noise, n=10):
        return {"disco": disco, "n_clusters": k, "n_noise": noise, "degenerate": is_degenerate(k, noise, n),
                "labels": np.zeros(n, np.int64)}

    records = [rec(0.9, 3, 6), rec(0.2, 2, 1), rec(0.4, 3, 5), rec(0.95, 1, 0), rec(0.4, 4, 0)]
    assert select(records, "structured") == 2  # best non-degenerate, first of equal values
    assert select(records, "disco") == 3
    assert select([{**records[0], "labels": None, "disco": float("nan")}]) is None


def test_bad_rule():
    with pytest.raises((ConfigError, ValueError), match="rule"):
        registry.create("disco_auto", rule="best")
