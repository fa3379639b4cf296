"""fs_protocol reports only the feature counts a selection reaches (no copies of a smaller count)."""

import numpy as np
import pytest

from macrocause.framework import Dataset, Partition, registry
from macrocause.framework.errors import DataValidationError


def _case():
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(2), 30)
    X = np.column_stack([y + 0.05 * rng.standard_normal(60), rng.standard_normal((60, 5))])
    selection = Partition([0] * 6, axis="variables", info={"selected": np.array([0, 1, 2])})
    return Dataset(X), selection, Partition(y)


def test_counts_beyond_the_selection_are_absent_and_the_means_cover_the_measured_ones():
    data, selection, truth = _case()
    ev = registry.create("fs_protocol", n_features=(1, 3, 5, 6), n_runs=2).evaluate(data, selection, truth)
    assert {k for k in ev.metrics if k.startswith("acc@")} == {"acc@1", "acc@3"}
    assert ev.metrics["n_counts"] == 2 and ev.metrics["count_max"] == 3
    assert ev.metrics["acc_mean"] == pytest.approx((ev.metrics["acc@1"] + ev.metrics["acc@3"]) / 2)
    assert ev.metrics["acc@1"] == 1.0  # the first feature holds the classes


def test_a_selection_shorter_than_every_count_is_refused():
    data, selection, truth = _case()
    with pytest.raises(DataValidationError, match=r"holds 3 features, fewer than every count in n_features=\(5, 6\)"):
        registry.create("fs_protocol", n_features=(5, 6)).evaluate(data, selection, truth)
