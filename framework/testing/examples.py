"""Default small inputs for each role (see :meth:`macrocause.framework.roles.Plugin.example`)."""

from __future__ import annotations

import numpy as np

from ..data import Dataset
from ..graph import CausalGraph
from ..partition import Partition
from ..roles import DataSource, Evaluator, Example, Partitioner, Scorer, Searcher


def blobs(n_per: int = 40, seed: int = 0) -> tuple[Dataset, Partition]:
    """Three separated 2-D Gaussian blobs with a 3-state target (state = blob)."""
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]])
    X = np.concatenate([c + 0.4 * rng.standard_normal((n_per, 2)) for c in centres])
    y = np.repeat(np.arange(3), n_per)
    return Dataset(X, names=["u", "v"], target=y), Partition(y)


def discrete_chain(n: int = 300, seed: int = 0) -> tuple[Dataset, CausalGraph]:
    """Binary a -> b -> c with a collider c -> e <- d; returns data and the true DAG."""
    rng = np.random.default_rng(seed)
    flip = lambda x, p: np.where(rng.random(n) < p, 1 - x, x)  # noqa: E731
    a = rng.integers(0, 2, n)
    b = flip(a, 0.15)
    c = flip(b, 0.15)
    d = rng.integers(0, 2, n)
    e = flip(c ^ d, 0.1)
    X = np.column_stack([a, b, c, d, e])
    names = ["a", "b", "c", "d", "e"]
    truth = CausalGraph.from_edges(names, [("a", "b"), ("b", "c"), ("c", "e"), ("d", "e")])
    return Dataset(X, names=names, discrete=True, truth={"graph": truth}), truth


def example_of(cls: type) -> Example:
    """The plugin's own example (:meth:`~macrocause.framework.roles.Plugin.example`), else the default for its role."""
    own = cls.example()
    return own if own is not None else default_example(cls)


def default_example(cls: type) -> Example:
    """The default example for a plugin class, chosen by its role."""
    if issubclass(cls, Partitioner):
        if cls.axis == "variables":
            rng = np.random.default_rng(0)
            z = rng.standard_normal((120, 2))
            X = np.column_stack([z[:, 0], z[:, 0], z[:, 0], z[:, 1], z[:, 1], z[:, 1]])
            X = X + 0.3 * rng.standard_normal(X.shape)
            return Example({}, Dataset(X))
        ds, _ = blobs()
        return Example({}, ds)
    if issubclass(cls, Evaluator):
        if "graph" in cls.accepts:
            ds, g = discrete_chain()
            est = CausalGraph.from_edges(ds.names, [("a", "b"), ("c", "b")], [("d", "e")])
            return Example({}, ds, result=est, truth=g)
        ds, truth = blobs()
        return Example({}, ds, result=truth, truth=truth)
    if issubclass(cls, Searcher | Scorer):
        ds, g = discrete_chain()
        return Example({}, ds, graph=g)
    if issubclass(cls, DataSource):
        return Example({}, Dataset(np.zeros((1, 1))))
    raise TypeError(f"no default example for {cls!r}")
