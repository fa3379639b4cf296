"""Constant columns: independent of every other column, so returned as isolated nodes (pc, fci, boss, grasp)."""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np

from macrocause.framework import CausalGraph, Dataset


def varying_columns(who: str, X: np.ndarray, names) -> np.ndarray:
    """Indices of the columns of *X* that are not constant; warns (UserWarning) naming the constant ones."""
    varying = np.flatnonzero(np.ptp(X, axis=0) > 0)
    if len(varying) < X.shape[1]:
        keep = set(varying.tolist())
        const = [names[j] for j in range(X.shape[1]) if j not in keep]
        warnings.warn(f"{who}: constant columns {const} are independent of everything: "
                      "returned as isolated nodes.", UserWarning, stacklevel=3)
    return varying


def search_varying(who: str, data: Dataset, run: Callable[[Dataset], CausalGraph]) -> CausalGraph:
    """``run`` on the columns of *data* that vary, the constant ones put back as isolated nodes (warned).

    With fewer than two varying columns there is nothing to search: the empty graph.
    """
    varying = varying_columns(who, data.X, data.names)
    if len(varying) == data.n_variables:
        return run(data)
    if len(varying) < 2:
        return CausalGraph.empty(data.names)
    g = run(data.select([int(j) for j in varying]))
    return CausalGraph.from_edges(data.names, g.edge_names(), pairs(g.undirected_names()),
                                  pairs(g.bidirected_names()), g.partially_directed_names(),
                                  pairs(g.nondirected_names()))


def pairs(edges) -> list[tuple[str, str]]:
    """Sets of two names as sorted pairs."""
    return [tuple(sorted(e)) for e in edges]
