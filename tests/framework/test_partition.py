import pickle

import numpy as np
import pytest

from macrocause.framework import DataValidationError, Partition


def test_clusters_and_noise():
    p = Partition([3, 3, -1, 7, 3])
    assert p.n_clusters == 2
    assert p.cluster_ids.tolist() == [3, 7]
    assert [c.tolist() for c in p.clusters] == [[0, 1, 4], [3]]
    assert p.noise.tolist() == [False, False, True, False, False]
    assert p.relabeled().labels.tolist() == [0, 0, -1, 1, 0]


def test_same_clustering_up_to_renaming():
    assert Partition([0, 0, 1]).same_clustering(Partition([5, 5, 2]))
    assert not Partition([0, 0, 1]).same_clustering(Partition([0, 1, 1]))


def test_variable_names():
    p = Partition([0, 1, 0], axis="variables", names=["a", "b", "c"])
    assert p.cluster_names == [frozenset("ac"), frozenset("b")]


@pytest.mark.parametrize(
    "labels, kw, match",
    [
        ([[0, 1]], {}, "must be 1-D"),
        ([0.5, 1], {}, "must be integers"),
        ([0, -2], {}, "must be >= -1"),
        ([0, 1], {"axis": "rows"}, "axis must be"),
        ([0, 1], {"names": ["a"]}, "got 1 names for 2 labels"),
    ],
)
def test_bad_partitions(labels, kw, match):
    with pytest.raises(DataValidationError, match=match):
        Partition(labels, **kw)


def test_immutable_and_picklable():
    p = Partition(np.array([0, 1]), info={"k": 1})
    with pytest.raises(ValueError):
        p.labels[0] = 3
    q = pickle.loads(pickle.dumps(p))
    assert q == p and q.info == {"k": 1}
