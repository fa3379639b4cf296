"""scikit-learn estimators built from the registry, and any evaluator as a scorer.

Every registered plugin of the right role becomes an estimator whose constructor
takes the plugin's parameters (scikit-learn's ``get_params``/``set_params`` work
on them; they are validated by the plugin's pydantic model at ``fit``):

- a partitioner of samples -> a clusterer (``ClusterMixin``): ``fit(X[, y])``,
  ``labels_`` (noise ``-1``), ``fit_predict``; ``y`` is the effect state for the
  partitioners that need one and ignored otherwise;
- a partitioner of variables that selects features (``info["selected"]``) -> a
  ``SelectorMixin`` transformer: ``get_support()``, ``transform(X)``;
- a searcher -> an estimator with ``fit(X)`` and ``graph_`` (a
  :class:`~macrocause.framework.graph.CausalGraph` over the column names), plus a ``scorer``
  parameter (a registered scorer name; None for the searcher's default).

>>> from macrocause.framework.sklearn import estimator
>>> est = estimator("dbscan", eps=0.3)          # doctest: +SKIP
>>> est.fit_predict(X)                          # doctest: +SKIP

Each estimator class is also an attribute named as the plugin's class
(``from macrocause.framework.sklearn import DBSCAN``), built on first access. Parameters whose
plugin default is a mutable value (a dict) or that are required appear with default
None, meaning "the plugin's default" or "must be set".

:func:`scorer` turns any registered evaluator into a scikit-learn scorer that rates a
fitted clusterer by the labels it learnt (``<evaluator>_scorer`` is the same with the
default parameters), so any density clusterer (ours or scikit-learn's) can be tuned
without labels by an internal index: ``GridSearchCV(DBSCAN(), grid,
scoring=scorer("dbcv"), cv=[(all, all)])``. The single split over all the data is needed
because DBSCAN-like methods cannot label unseen points: the scorer reads ``labels_``,
which exist only for the points the estimator was fitted on.
"""

from __future__ import annotations

import inspect
from functools import cache
from typing import Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from . import registry
from .data import Dataset
from .errors import ConfigError, DataValidationError
from .partition import Partition

__all__ = ["estimator", "estimator_class", "scorer"]


class _PluginEstimator(BaseEstimator):
    """Base of the generated estimators: parameters are the plugin's, checked when fitting."""

    _plugin: ClassVar[str]
    _defaults: ClassVar[dict[str, Any]] = {}

    def _make(self, extra: tuple[str, ...] = ()):
        """The plugin, given only the parameters that differ from its defaults (so that its validators
        see which ones the user set, as when it is built by name)."""
        params = {k: v for k, v in self.get_params(deep=False).items()
                  if k not in extra and not _same(v, self._defaults[k])}
        return registry.create(self._plugin, **params)

    def _dataset(self, X, y=None) -> Dataset:
        names = getattr(self, "feature_names_in_", None)
        names = [str(n) for n in names] if names is not None else None
        return Dataset(X, names=names, target=y)

    def __reduce__(self):
        # the classes are made at run time, so pickle finds them again through the plugin name
        return (_new, (self._plugin,), self.__getstate__())


def _same(value: Any, default: Any) -> bool:
    return value is default or (type(value) is type(default) and value == default)


def _new(plugin: str):
    cls = estimator_class(plugin)
    return cls.__new__(cls)


class _Clusterer(ClusterMixin, _PluginEstimator):
    _needs_target: ClassVar[bool] = False

    def fit(self, X, y=None):
        """Partition the rows of *X*; ``y`` holds the effect states for the partitioners that need them
        (``requires y to be passed`` otherwise) and is ignored by the others. Sets ``labels_``,
        ``partition_`` (the :class:`~macrocause.framework.partition.Partition`) and ``n_iter_`` when known."""
        plugin = self._make()
        if self._needs_target:
            X, y = validate_data(self, X, y, dtype=np.float64)
        else:
            X, y = validate_data(self, X, dtype=np.float64), None
        part = plugin.partition(self._dataset(X, y))
        self.labels_ = np.asarray(part.labels, dtype=np.int64).copy()
        self.partition_ = part
        if "n_iter" in part.info:
            self.n_iter_ = int(part.info["n_iter"])
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = self._needs_target
        return tags


class _Selector(SelectorMixin, _PluginEstimator):
    def fit(self, X, y=None):
        """Select features (columns) of *X*; ``y`` is ignored."""
        plugin = self._make()
        X = validate_data(self, X, dtype=np.float64)
        part = plugin.partition(self._dataset(X))
        if "selected" not in part.info:
            raise ConfigError(f"{self._plugin} partitions variables but selects none (no info['selected']); "
                              "only feature selectors can be used as scikit-learn selectors.")
        self.selected_ = np.asarray(part.info["selected"], dtype=np.int64)
        self.partition_ = part
        return self

    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self, "selected_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.selected_] = True
        return mask


class _Search(_PluginEstimator):
    def fit(self, X, y=None):
        """Search a causal graph over the columns of *X*; the result is ``graph_``."""
        plugin = self._make(extra=("scorer",))
        X = validate_data(self, X, dtype=np.float64)
        self.graph_ = plugin.search(self._dataset(X), scorer=self.scorer)
        return self


def _signature(cls) -> tuple[inspect.Signature, dict[str, Any]]:
    """The estimator's constructor signature: the plugin's parameters with their defaults, None for
    required ones and for mutable defaults (scikit-learn wants immutable defaults)."""
    defaults = {}
    for name, field in cls.Params.model_fields.items():
        value = None if field.is_required() else field.get_default(call_default_factory=True)
        defaults[name] = value if isinstance(value, int | float | str | bool | tuple | type(None)) else None
    if cls.role == "searcher":
        defaults["scorer"] = None
    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    params += [inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, default=v) for k, v in defaults.items()]
    return inspect.Signature(params), defaults


@cache
def estimator_class(name: str) -> type[_PluginEstimator]:
    """The scikit-learn estimator class of the registered plugin *name* (see the module docstring)."""
    cls = registry.get(name)
    if cls.role == "partitioner":
        base = _Clusterer if cls.axis == "samples" else _Selector
    elif cls.role == "searcher":
        base = _Search
    else:
        raise ConfigError(f"{name} is {'an' if str(cls.role)[0] in 'aeiou' else 'a'} {cls.role}; scikit-learn estimators exist for partitioners and "
                          "searchers (use macrocause.framework.sklearn.scorer(name) for evaluators).")
    sig, defaults = _signature(cls)

    def __init__(self, **params):
        unknown = sorted(set(params) - set(defaults))
        if unknown:
            raise ConfigError(f"{name} got an unexpected parameter {unknown[0]!r}. "
                              f"Allowed: {', '.join(defaults) or '(none)'}.")
        for key, value in defaults.items():
            setattr(self, key, params.get(key, value))

    __init__.__signature__ = sig
    title = cls.__name__ if cls.__name__.isidentifier() else "".join(p.title() for p in name.split("_"))
    attrs = {"__init__": __init__, "_plugin": name, "_defaults": defaults,
             "__module__": __name__, "__doc__": f"scikit-learn estimator of the {name!r} plugin: {cls.summary()}"}
    if base is _Clusterer:
        attrs["_needs_target"] = cls.needs_target
    return type(title, (base,), attrs)


def estimator(name: str, **params: Any) -> _PluginEstimator:
    """An estimator of the registered plugin *name* with *params*, e.g. ``estimator("dbscan", eps=0.3)``."""
    return estimator_class(name)(**params)


def __getattr__(attr: str):
    """``DBSCAN``: the estimator class of the plugin whose class is so named; ``dbcv_scorer``:
    :func:`scorer` of the evaluator ``dbcv``."""
    if attr.endswith("_scorer") and attr.removesuffix("_scorer") in registry.names(role="evaluator"):
        return scorer(attr.removesuffix("_scorer"))
    squashed = attr.lower()
    for name in registry.names():
        if name.replace("_", "") == squashed and registry.get(name).__name__ == attr \
                and registry.get(name).role in ("partitioner", "searcher"):
            return estimator_class(name)
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")


# -- scorers from evaluators --------------------------------------------------------
def scorer(name: str, **params: Any):
    """A scikit-learn scorer ``f(estimator, X, y=None)`` of the registered evaluator *name*.

    It rates the fitted estimator's ``labels_`` (noise -1) on *X*, with *y* as the true
    labels when the evaluator compares with a truth (ignored otherwise). scikit-learn
    maximises a score, so a value declared lower-is-better is negated (as its ``neg_``
    scorers). *params* are the evaluator's parameters.
    """
    cls = registry.get(name)
    if cls.role != "evaluator":
        raise ConfigError(f"{name} is a {cls.role}, not an evaluator; scorers come from evaluators "
                          f"({', '.join(registry.names(role='evaluator'))}).")
    meaning = cls.meaning(name)
    sign = -1.0 if meaning is not None and meaning.direction == "lower" else 1.0
    evaluator = registry.create(name, **params)

    def score(estimator, X, y=None) -> float:
        labels = getattr(estimator, "labels_", None)
        if labels is None:
            raise DataValidationError(f"{name}_scorer rates a fitted clusterer with labels_; "
                                      f"{type(estimator).__name__} has none.")
        X = np.asarray(X, dtype=np.float64)
        if len(labels) != X.shape[0]:
            raise DataValidationError(
                f"{name}_scorer: the estimator labelled {len(labels)} points, the scored X has {X.shape[0]}; "
                "fit and score on the same points (GridSearchCV(..., cv=[(all, all)]))."
            )
        truth = Partition(np.asarray(y)) if y is not None and cls.needs_truth else None
        return sign * float(evaluator.evaluate(Dataset(X), Partition(labels), truth).value)

    score.__name__ = score.__qualname__ = f"{name}_scorer"
    score.__doc__ = f"{name} of a fitted clusterer's labels_ ({meaning.direction if meaning else 'higher'} is better)."
    return score
