"""Simulators with a known causal graph: a linear-Gaussian SEM and a discrete Bayesian network."""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field

from macrocause.framework import CausalGraph, Dataset, DataSource, Params
from macrocause.framework.cpdag import cpdag_adjacency


def random_dag(n_variables: int, edge_prob: float, rng: np.random.Generator, max_parents: int | None = None):
    """Adjacency matrix ``A[i, j] = 1`` for ``i -> j`` of an Erdos-Renyi DAG over a random order.

    Each pair is joined with probability *edge_prob*, oriented along a random
    permutation; with *max_parents*, a node keeps only its first parents in that order.
    """
    order = rng.permutation(n_variables)
    A = np.zeros((n_variables, n_variables), dtype=np.int8)
    for pos_j in range(1, n_variables):
        j = order[pos_j]
        parents = [order[pos_i] for pos_i in range(pos_j) if rng.random() < edge_prob]
        if max_parents is not None:
            parents = parents[:max_parents]
        A[parents, j] = 1
    return A, order


def _truth(A: np.ndarray, names: list[str]) -> dict:
    dag = CausalGraph.from_adjacency(A, names)
    return {"graph": dag, "cpdag": CausalGraph.from_adjacency(cpdag_adjacency(A), names)}


class LinearGaussianParams(Params):
    n_variables: int = Field(5, ge=2, description="Number of variables x0 .. x{d-1}.")
    n_samples: int = Field(500, ge=1, description="Number of samples.")
    edge_prob: float = Field(0.3, ge=0, le=1, description="Probability of an edge between two variables.")
    weight_low: float = Field(0.5, gt=0, description="Smallest absolute edge weight.")
    weight_high: float = Field(2.0, gt=0, description="Largest absolute edge weight.")
    noise_std: float = Field(1.0, gt=0, description="Standard deviation of the Gaussian noise.")
    seed: int = Field(0, description="Random seed (graph, weights and samples).")


class LinearGaussian(DataSource):
    """Linear-Gaussian structural equation model on a random DAG.

    ``x_j = sum_i W[i, j] x_i + e_j`` with ``|W| ~ U[weight_low, weight_high]``,
    random signs, and ``e_j ~ N(0, noise_std^2)``. ``truth`` holds the DAG
    (``"graph"``) and its Markov equivalence class (``"cpdag"``).

    References
    ----------
    Kalisch, Buehlmann. Estimating high-dimensional directed acyclic graphs with
    the PC-algorithm. JMLR 8, 2007 (the random-DAG design).
    """

    name = "linear_gaussian"
    Params = LinearGaussianParams
    paper = "Kalisch & Buehlmann, JMLR 2007"

    def _load(self) -> Dataset:
        p = self.params
        rng = np.random.default_rng(p.seed)
        d = p.n_variables
        A, order = random_dag(d, p.edge_prob, rng)
        lo, hi = sorted((p.weight_low, p.weight_high))
        W = A * rng.uniform(lo, hi, (d, d)) * rng.choice([-1.0, 1.0], (d, d))
        X = p.noise_std * rng.standard_normal((p.n_samples, d))
        for j in order:
            X[:, j] += X @ W[:, j]
        names = [f"x{j}" for j in range(d)]
        return Dataset(X, names=names, discrete=False, truth=_truth(A, names), name="linear_gaussian")


class DiscreteBNParams(Params):
    n_variables: int = Field(6, ge=2, description="Number of variables x0 .. x{d-1}.")
    n_samples: int = Field(1000, ge=1, description="Number of samples.")
    edge_prob: float = Field(0.4, ge=0, le=1, description="Probability of an edge between two variables.")
    max_parents: int = Field(3, ge=0, description="Most parents per variable.")
    cardinality: Literal["binary", "ternary", "mixed"] = Field(
        "mixed", description="States per variable: 2, 3, or 2 or 3 at random."
    )
    concentration: float = Field(
        0.5, gt=0, description="Dirichlet concentration of each conditional distribution (small = strong effects)."
    )
    seed: int = Field(0, description="Random seed (graph, tables and samples).")


class DiscreteBN(DataSource):
    """Random discrete Bayesian network (binary/ternary variables), sampled forward.

    A random DAG (as in ``linear_gaussian``, at most ``max_parents`` parents),
    each conditional distribution drawn from a symmetric Dirichlet with
    ``concentration``; states are coded ``0 .. k-1``. ``truth`` holds the DAG
    (``"graph"``) and its CPDAG (``"cpdag"``).

    References
    ----------
    Koller, Friedman. Probabilistic Graphical Models. MIT Press, 2009 (forward sampling, Sec. 12.1).
    """

    name = "discrete_bn"
    Params = DiscreteBNParams
    paper = "Koller & Friedman 2009"

    def _load(self) -> Dataset:
        p = self.params
        rng = np.random.default_rng(p.seed)
        d, n = p.n_variables, p.n_samples
        A, order = random_dag(d, p.edge_prob, rng, max_parents=p.max_parents)
        choices = {"binary": [2], "ternary": [3], "mixed": [2, 3]}[p.cardinality]
        card = rng.choice(choices, d)
        X = np.zeros((n, d), dtype=np.int64)
        for j in order:
            parents = np.flatnonzero(A[:, j])
            config = np.zeros(n, dtype=np.int64)
            for i in parents:  # mixed-radix index of the parents' states
                config = config * card[i] + X[:, i]
            n_configs = int(np.prod(card[parents])) if parents.size else 1
            table = rng.dirichlet(np.full(card[j], p.concentration), size=n_configs)
            cum = np.cumsum(table, axis=1)[config]
            u = rng.random(n)[:, None]
            X[:, j] = np.minimum((u > cum).sum(axis=1), card[j] - 1)
        names = [f"x{j}" for j in range(d)]
        return Dataset(X, names=names, discrete=True, truth=_truth(A, names), name="discrete_bn")
