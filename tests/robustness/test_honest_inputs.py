"""from_pandas reads what Dataset(X) reads, and searchers refuse too few samples (issue 25, point 8)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from macrocause.framework import Dataset, registry
from macrocause.framework.errors import DataValidationError


@pytest.mark.parametrize("column, words", [
    (["x", None, "y"], "missing value"),
    (["x", np.nan, "y"], "missing value"),
    (pd.Categorical(["x", np.nan, "y"]), "missing value"),
    (["10", "9", "2"], "pd.to_numeric"),
    (pd.Categorical(["10", "9", "2"]), "pd.to_numeric"),
    (pd.to_datetime(["2020-01-01", "2020-01-02", "2020-01-03"]), "dates or durations"),
    (pd.to_timedelta([1, 2, 3], unit="D"), "dates or durations"),
    (pd.date_range("2020", periods=3, tz="UTC"), "dates or durations"),
    (pd.period_range("2020", periods=3), "dates or durations"),
    ([1 + 2j, 3.0, 4.0], "complex"),
])
def test_from_pandas_refuses_what_it_would_read_wrong(column, words):
    frame = pd.DataFrame({"a": column, "b": [1.0, 2.0, 3.5]})
    with pytest.raises(DataValidationError, match=words) as exc:
        Dataset.from_pandas(frame)
    assert "\n" not in str(exc.value) and "'a'" in str(exc.value)


def test_from_pandas_missing_as_a_state_when_asked():
    ds = Dataset.from_pandas(pd.DataFrame({"a": ["x", None, "y", "x"]}), missing="state")
    assert ds.X[:, 0].tolist() == [0.0, 2.0, 1.0, 0.0] and ds.discrete == (True,)


def test_from_pandas_keeps_text_and_numbers_as_before():
    ds = Dataset.from_pandas(pd.DataFrame({"a": ["y", "x", "y"], "b": [True, False, True], "c": [0.5, 1.0, 2.0]}))
    assert ds.X.tolist() == [[1.0, 1.0, 0.5], [0.0, 0.0, 1.0], [1.0, 1.0, 2.0]]
    assert ds.discrete == (True, True, False)


@pytest.mark.parametrize("name", ["hill_climb", "greedy_dag"])
def test_searchers_refuse_fewer_samples_than_they_can_score(name):
    X = np.array([[0.1, 1.3, 2.2], [1.5, 0.2, 3.1]])
    with pytest.raises(DataValidationError, match="needs at least 4 samples"):
        registry.create(name).search(Dataset(X))
    rng = np.random.default_rng(0)
    graph = registry.create(name).search(Dataset(rng.standard_normal((4, 3))))  # d + 1 samples: scored
    assert set(graph.variables) == {"x0", "x1", "x2"}


def test_hill_climb_minimum_follows_max_indegree():
    X = np.random.default_rng(0).standard_normal((3, 5))
    with pytest.raises(DataValidationError, match="at least 6 samples"):
        registry.create("hill_climb").search(Dataset(X))
    registry.create("hill_climb", max_indegree=1).search(Dataset(X))  # 1 parent + 2 = 3 samples
