"""Conformance checks every plugin must pass, usable by third parties.

>>> from macrocause.framework.testing.checks import parametrize_with_checks
>>> # @parametrize_with_checks([MyPartitioner()])
>>> # def test_conformance(plugin, check):
>>> #     check(plugin)

Each check runs the plugin on its :meth:`~macrocause.framework.roles.Plugin.example`.
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from ..data import Dataset
from ..errors import ConfigError, DataValidationError
from ..graph import CausalGraph
from ..partition import Partition
from ..roles import DataSource, Evaluation, Evaluator, Partitioner, Plugin, Scorer, Searcher
from .examples import example_of

__all__ = ["parametrize_with_checks", "run_verb"]


def _instance(plugin: Plugin | type[Plugin]) -> Plugin:
    if isinstance(plugin, type):
        return plugin(**example_of(plugin).params)
    return plugin


def run_verb(plugin: Plugin, data: Any = None) -> Any:
    """Run the plugin's verb on its example (or on *data* in place of the example's data)."""
    ex = example_of(type(plugin))
    ds = ex.data if data is None else data
    if isinstance(plugin, Partitioner):
        return plugin.partition(ds)
    if isinstance(plugin, Searcher):
        return plugin.search(ds, scorer=ex.scorer, init=ex.init)
    if isinstance(plugin, Scorer):
        graph = ex.graph if ex.graph is not None else CausalGraph.empty(ex.data.names)
        return plugin.score(ds, graph)
    if isinstance(plugin, Evaluator):
        return plugin.evaluate(ds, ex.result, ex.truth)
    if isinstance(plugin, DataSource):
        return plugin.load()
    raise TypeError(f"{plugin!r} has no known role")


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, Partition):
        return isinstance(b, Partition) and a == b
    if isinstance(a, CausalGraph):
        return a == b
    if isinstance(a, Evaluation):
        return isinstance(b, Evaluation) and np.isclose(a.value, b.value, equal_nan=True, rtol=0, atol=0)
    if isinstance(a, Dataset):
        return a == b
    if isinstance(a, float):
        return a == b or (np.isnan(a) and np.isnan(b))
    return a == b


def check_params_roundtrip(plugin: Plugin) -> None:
    """Parameters rebuild an equal plugin; unknown parameters are refused with a ConfigError."""
    cls = type(plugin)
    clone = cls(**plugin.get_params())
    assert clone == plugin, f"{cls.name}: rebuilding from get_params() gives a different plugin"
    assert plugin.with_params() == plugin
    try:
        cls(**{**plugin.get_params(), "__no_such_param__": 1})
    except ConfigError as exc:
        assert "__no_such_param__" in str(exc), f"{cls.name}: the error does not name the parameter"
    else:
        raise AssertionError(f"{cls.name} accepted an unknown parameter")


def check_repr(plugin: Plugin) -> None:
    """repr names the class and shows exactly the non-default parameters."""
    text = repr(plugin)
    assert text.startswith(type(plugin).__name__ + "("), text
    for name in plugin.params.model_dump(exclude_defaults=True):
        assert f"{name}=" in text, f"{text} does not show {name}"
    default = type(plugin)() if _all_defaults_ok(type(plugin)) else None
    if default is not None:
        assert repr(default) == f"{type(plugin).__name__}()", repr(default)


def _all_defaults_ok(cls: type[Plugin]) -> bool:
    return all(not f.is_required() for f in cls.Params.model_fields.values())


def check_pickle(plugin: Plugin) -> None:
    """The plugin and its result survive pickling (for process pools and Dask)."""
    clone = pickle.loads(pickle.dumps(plugin))
    assert clone == plugin
    out = run_verb(plugin)
    back = pickle.loads(pickle.dumps(out))
    assert _same(out, back), f"{type(plugin).name}: result changed through pickling"


def check_deterministic(plugin: Plugin) -> None:
    """The same parameters (and seed) give the same result."""
    a = run_verb(plugin)
    b = run_verb(copy.deepcopy(plugin))
    assert _same(a, b), f"{type(plugin).name}: two runs with the same seed differ"


def check_input_not_mutated(plugin: Plugin) -> None:
    """The verb leaves its inputs as they were."""
    ex = example_of(type(plugin))
    before = [copy.deepcopy(x) for x in (ex.data, ex.result, ex.truth)]
    X = np.array(ex.data.X, copy=True)
    if isinstance(plugin, DataSource):
        return
    run_verb(plugin, data=ex.data)
    assert np.array_equal(ex.data.X, X)
    for old, new in zip(before, (ex.data, ex.result, ex.truth)):
        if old is not None:
            assert _same(old, new), f"{type(plugin).name} changed its input"


def check_output_invariants(plugin: Plugin) -> None:
    """The result has the role's type, shape and bounds."""
    ex = example_of(type(plugin))
    out = run_verb(plugin)
    name = type(plugin).name
    if isinstance(plugin, Partitioner):
        assert isinstance(out, Partition) and out.axis == plugin.axis
        n = ex.data.n_samples if plugin.axis == "samples" else ex.data.n_variables
        assert len(out) == n
        assert out.labels.min() >= -1
    elif isinstance(plugin, Searcher):
        assert isinstance(out, CausalGraph)
        assert set(out.variables) <= set(ex.data.names), f"{name} invented variables"
    elif isinstance(plugin, Scorer):
        assert isinstance(out, float) and np.isfinite(out)
    elif isinstance(plugin, Evaluator):
        assert isinstance(out, Evaluation) and np.isfinite(out.value)
        assert out.metrics[name] == out.value
        if out.pointwise is not None:
            assert len(out.pointwise) == ex.data.n_samples
    elif isinstance(plugin, DataSource):
        assert isinstance(out, Dataset)


def check_declares_metrics(plugin: Plugin) -> None:
    """An evaluator declares the meaning (:class:`~macrocause.framework.evaluation.Metric`) of every value it
    returns, by name or pattern in ``declares`` (the headline may rely on ``higher_is_better``)."""
    if not isinstance(plugin, Evaluator):
        return
    out = run_verb(plugin)
    missing = sorted(k for k in out.metrics if type(plugin).meaning(k) is None)
    assert not missing, (f"{type(plugin).name} returns {missing} without declaring them: add "
                         "declares = {NAME: Metric.higher(...) / Metric.lower(...) / Metric.descriptive(...)}")


def check_rejects_nan(plugin: Plugin) -> None:
    """NaN in the data is refused with a DataValidationError that says so."""
    if isinstance(plugin, DataSource):
        return
    X = np.array(example_of(type(plugin)).data.X, dtype=float, copy=True)
    X[0, 0] = np.nan
    try:
        run_verb(plugin, data=X)
    except DataValidationError as exc:
        assert "NaN" in str(exc) or "non-finite" in str(exc), str(exc)
    else:
        raise AssertionError(f"{type(plugin).name} accepted NaN")


_CHECKS: dict[str, Callable[[Plugin], None]] = {
    "check_params_roundtrip": check_params_roundtrip,
    "check_repr": check_repr,
    "check_pickle": check_pickle,
    "check_deterministic": check_deterministic,
    "check_input_not_mutated": check_input_not_mutated,
    "check_output_invariants": check_output_invariants,
    "check_declares_metrics": check_declares_metrics,
    "check_rejects_nan": check_rejects_nan,
}


def parametrize_with_checks(
    plugins: Iterable[Plugin | type[Plugin]],
    expected_failed_checks: Mapping[str, str] | None = None,
):
    """A ``pytest.mark.parametrize`` over (plugin, check) pairs, as in scikit-learn.

    Parameters
    ----------
    plugins : iterable of Plugin instances or classes
        Classes are built with the parameters of their example.
    expected_failed_checks : mapping, optional
        ``{check name: reason}`` marked as expected failures.
    """
    import functools

    import pytest

    expected = dict(expected_failed_checks or {})
    params = []
    for p in plugins:
        inst = _instance(p)
        for cname, fn in _CHECKS.items():
            marks = [pytest.mark.xfail(reason=expected[cname], strict=True)] if cname in expected else []
            params.append(pytest.param(inst, functools.partial(fn), id=f"{type(inst).name}-{cname}", marks=marks))
    return pytest.mark.parametrize("plugin, check", params)
