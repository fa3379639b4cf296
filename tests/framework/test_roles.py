import numpy as np
import pytest
import toy_plugins

from macrocause.framework import (
    CausalGraph,
    ConfigError,
    Dataset,
    DataValidationError,
    DecomposableScorer,
    Evaluation,
    Partition,
)


class CountScorer(DecomposableScorer):
    """Minus the number of parent variables of each node."""

    name = "count_scorer"

    def _local_score(self, data, cluster, parents):
        return -float(sum(len(p) for p in parents))


def test_scorer_sums_local_scores_and_refuses_bad_graphs():
    ds = Dataset(np.random.default_rng(0).normal(size=(10, 3)), names=["a", "b", "c"])
    g = CausalGraph([["a", "b"], ["c"]], [(0, 1)])
    s = CountScorer()
    assert s.score(ds, g) == -2.0
    assert s.local_score(ds, ["c"], [["a", "b"]]) == -2.0
    with pytest.raises(DataValidationError, match="fully directed"):
        s.score(ds, CausalGraph.from_edges(["a", "b"], undirected=[("a", "b")]))
    with pytest.raises(DataValidationError, match="\\['z'\\] are not in the data"):
        s.score(ds, CausalGraph.empty(["a", "z"]))


def test_searcher_checks_init_and_scorer():
    ds = Dataset(np.zeros((5, 3)) + np.arange(3), names=["a", "b", "c"])
    chain = toy_plugins.Chain()
    with pytest.raises(DataValidationError, match="init must be a partition of variables"):
        chain.search(ds, init=Partition([0] * 5))
    with pytest.raises(DataValidationError, match="init partitions 2 variables; the data has 3"):
        chain.search(ds, init=Partition([0, 1], axis="variables"))
    with pytest.raises(ConfigError, match="does not use a scorer"):
        chain.search(ds, scorer="bic")
    g = chain.search(ds, init=Partition([0, 0, 1], axis="variables"))
    assert g.clusters == (frozenset("ab"), frozenset("c"))


def test_evaluator_checks_kind_truth_and_lengths():
    ds = Dataset(np.zeros((4, 1)))
    agree = toy_plugins.Agreement()
    with pytest.raises(DataValidationError, match="compares with a ground truth"):
        agree.evaluate(ds, Partition([0, 0, 1, 1]))
    with pytest.raises(DataValidationError, match="rates a partition, got a graph"):
        agree.evaluate(ds, CausalGraph.empty(["x0"]), Partition([0] * 4))
    with pytest.raises(DataValidationError, match="3 labels for 4 samples"):
        agree.evaluate(ds, Partition([0, 0, 1]), Partition([0, 0, 1]))
    ev = agree.evaluate(ds, [0, 0, 1, 1], [0, 0, 1, 0])
    assert isinstance(ev, Evaluation) and ev.value == 0.75 and ev.metrics == {"toy_agreement": 0.75}
    # several results, one truth: each checked as by evaluate, the same values
    many = agree.evaluate_many(ds, [[0, 0, 1, 1], Partition([1, 1, 1, 1]), [0, 1, 0, 1]], [0, 0, 1, 0])
    assert [e.value for e in many] == [0.75, 0.25, 0.25] and many[0].metrics == {"toy_agreement": 0.75}
    assert agree.evaluate_many(ds, [], [0, 0, 1, 0]) == []
    with pytest.raises(DataValidationError, match="3 labels for 4 samples"):
        agree.evaluate_many(ds, [[0, 0, 1, 1], [0, 0, 1]], [0, 0, 1, 0])


def test_partitioner_accepts_arrays_and_refuses_nan():
    t = toy_plugins.Threshold()
    assert t.partition([[1.0], [-1.0]]).labels.tolist() == [1, 0]
    with pytest.raises(DataValidationError, match="NaN"):
        t.partition([[np.nan], [1.0]])


def test_an_evaluator_declares_every_value_it_returns():
    """check_declares_metrics fails a value left undeclared; names and fnmatch patterns declare."""
    import pytest

    from macrocause.framework import Evaluation, Evaluator, Metric
    from macrocause.framework.testing.checks import check_declares_metrics

    class Sizes(Evaluator):
        name = "sizes"
        declares = {"sizes": Metric.lower(0), "size@*": Metric.descriptive(0)}

        def _evaluate(self, data, result, truth):
            return Evaluation(1.0, {"size@0": 2.0, "size@1": 3.0, "spread": 1.0})

    with pytest.raises(AssertionError, match=r"returns \['spread'\] without declaring them"):
        check_declares_metrics(Sizes())
    Sizes.declares = {**Sizes.declares, "spread": Metric.lower(0)}
    check_declares_metrics(Sizes())
    assert Sizes.meaning("size@7") == Metric.descriptive(0) and Sizes.meaning("sizes").direction == "lower"
    assert Sizes.meaning("other") is None
    with pytest.raises(ValueError, match="use 'higher', 'lower' or 'descriptive'"):
        Metric("better")
    assert Metric.from_dict(Metric.higher(0, 1).to_dict()) == Metric.higher(0, 1)
