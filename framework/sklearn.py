"""scikit-learn estimators built from the registry, and DISCO/DBCV as unsupervised scorers.

Every registered plugin of the right role becomes an estimator whose constructor
takes the plugin's parameters (scikit-learn's ``get_params``/``set_params`` work
on them; they are validated by the plugin's pydantic model at ``fit``):

- a partitioner of samples -> a clusterer (``ClusterMixin``): ``fit(X[, y])``,
  ``labels_`` (noise ``-1``), ``fit_predict``; ``y`` is the effect state for the
  partitioners that need one (``cafe_dbscan``, ``cfl_two_step``) and ignored otherwise;
- a partitioner of variables that selects features (``info["selected"]``) -> a
  ``SelectorMixin`` transformer: ``get_support()``, ``transform(X)``;
- a searcher -> an estimator with ``fit(X)`` and ``graph_`` (a
  :class:`~framework.graph.CausalGraph` over the column names), plus a ``scorer``
  parameter (a registered scorer name; None for the searcher's default).

>>> from framework.sklearn import estimator
>>> est = estimator("dbscan", eps=0.3)          # doctest: +SKIP
>>> est.fit_predict(X)                          # doctest: +SKIP

Named classes exist for the main methods (``DBSCAN``, ``HDBSCAN``, ``KMeans``,
``CafeDBSCAN``, ``CLIC``, ``NPEM``, ``DiscoAuto``, ``CauseFS``, ``CICGreedy``,
``PC``, ``HillClimb``); they are built on first access. Parameters whose plugin
default is a mutable value (a dict) or that are required appear with default
None, meaning "the plugin's default" or "must be set".

:func:`disco_scorer` and :func:`dbcv_scorer` rate a fitted clusterer by the
labels it learnt, so any density clusterer (ours or scikit-learn's) can be
tuned without labels: ``GridSearchCV(DBSCAN(), grid, scoring=disco_scorer,
cv=[(all, all)])``. The single split over all the data is needed because
DBSCAN-like methods cannot label unseen points: the scorer reads ``labels_``,
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

__all__ = ["estimator", "estimator_class", "disco_scorer", "dbcv_scorer", "NAMED"]

NAMED = {
    "DBSCAN": "dbscan", "HDBSCAN": "hdbscan", "KMeans": "kmeans", "CafeDBSCAN": "cafe_dbscan",
    "CLIC": "clic", "NPEM": "npem", "DiscoAuto": "disco_auto", "CauseFS": "cause_fs",
    "CICGreedy": "cic_greedy", "PC": "pc", "HillClimb": "hill_climb",
}


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
        ``partition_`` (the :class:`~framework.partition.Partition`) and ``n_iter_`` when known."""
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
                          "searchers (use disco_scorer/dbcv_scorer for evaluators).")
    sig, defaults = _signature(cls)

    def __init__(self, **params):
        unknown = sorted(set(params) - set(defaults))
        if unknown:
            raise ConfigError(f"{name} got an unexpected parameter {unknown[0]!r}. "
                              f"Allowed: {', '.join(defaults) or '(none)'}.")
        for key, value in defaults.items():
            setattr(self, key, params.get(key, value))

    __init__.__signature__ = sig
    title = next((k for k, v in NAMED.items() if v == name), "".join(p.title() for p in name.split("_")))
    attrs = {"__init__": __init__, "_plugin": name, "_defaults": defaults,
             "__module__": __name__, "__doc__": f"scikit-learn estimator of the {name!r} plugin: {cls.summary()}"}
    if base is _Clusterer:
        attrs["_needs_target"] = cls.needs_target
    return type(title, (base,), attrs)


def estimator(name: str, **params: Any) -> _PluginEstimator:
    """An estimator of the registered plugin *name* with *params*, e.g. ``estimator("dbscan", eps=0.3)``."""
    return estimator_class(name)(**params)


def __getattr__(attr: str):
    if attr in NAMED:
        return estimator_class(NAMED[attr])
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")


# -- unsupervised scorers ---------------------------------------------------------
def _rate(evaluator: str, est, X) -> float:
    labels = getattr(est, "labels_", None)
    if labels is None:
        raise DataValidationError(f"{evaluator}_scorer rates a fitted clusterer with labels_; "
                                  f"{type(est).__name__} has none.")
    X = np.asarray(X, dtype=np.float64)
    if len(labels) != X.shape[0]:
        raise DataValidationError(
            f"{evaluator}_scorer: the estimator labelled {len(labels)} points, the scored X has {X.shape[0]}; "
            "fit and score on the same points (GridSearchCV(..., cv=[(all, all)]))."
        )
    return float(registry.create(evaluator).evaluate(Dataset(X), Partition(labels)).value)


def disco_scorer(estimator, X, y=None) -> float:
    """DISCO of the fitted *estimator*'s ``labels_`` (noise -1) on *X*; higher is better. *y* is ignored.

    Beer, Krieger, Weber, Ritzert, Assent, Plant. DISCO: internal evaluation of density-based
    clustering with noise, 2025.
    """
    return _rate("disco", estimator, X)


def dbcv_scorer(estimator, X, y=None) -> float:
    """DBCV of the fitted *estimator*'s ``labels_`` (noise -1) on *X*; higher is better. *y* is ignored.

    Moulavi, Jaskowiak, Campello, Zimek, Sander. Density-based clustering validation. SDM 2014.
    """
    return _rate("dbcv", estimator, X)
