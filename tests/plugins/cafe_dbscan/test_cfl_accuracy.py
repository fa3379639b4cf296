"""cfl_two_step reports a held-out accuracy only when it held a share out (tune=True)."""

import math

from macrocause.framework import Dataset, registry
from macrocause.plugins.cafe_dbscan.partitioner import two_squares


def test_untuned_two_step_reports_no_accuracy_and_tuned_reports_a_number():
    data = two_squares(40)
    untuned = registry.create("cfl_two_step", classifier="logistic", n_clusters=2, tune=False).partition(data)
    assert "test_accuracy" not in untuned.info
    tuned = registry.create("cfl_two_step", classifier="logistic", n_clusters=2, seed=1).partition(
        Dataset(data.X, target=data.target))
    assert not math.isnan(tuned.info["test_accuracy"]) and 0.0 <= tuned.info["test_accuracy"] <= 1.0
