"""The ``bnlearn`` data source: forward samples of the bnlearn repository networks pgmpy bundles."""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field

from macrocause.framework import CausalGraph, Dataset, DataSource, Params

from .bif import DiscreteNetwork, GaussianNetwork, read_network, topological_order

DISCRETE = ("asia", "cancer", "earthquake", "sachs", "survey", "alarm", "barley", "child", "insurance",
            "mildew", "water", "hailfinder", "hepar2", "win95pts", "andes", "diabetes", "link", "munin1",
            "munin2", "munin3", "munin4", "pathfinder", "pigs", "munin")
GAUSSIAN = ("ecoli70", "magic-niab", "magic-irri", "arth150")
Network = Literal[DISCRETE + GAUSSIAN]  # type: ignore[valid-type]


def sample_discrete(net: DiscreteNetwork, n: int, rng: np.random.Generator) -> np.ndarray:
    """Forward sampling, one vectorised draw per variable: state codes ``0 .. k-1``.

    Each row of a variable's table is turned into cumulative probabilities shifted by its row
    number, so one ``searchsorted`` of ``u + configuration`` over the flattened table draws every
    sample's state at once.
    """
    X = np.zeros((n, len(net.names)), dtype=np.int64)
    for j in topological_order(net.parents):
        table = net.cpts[j]
        config = np.zeros(n, dtype=np.int64)
        for p in net.parents[j]:
            config = config * len(net.states[p]) + X[:, p]
        cum = np.cumsum(table, axis=1)
        cum[:, -1] = 1.0
        shifted = (cum + np.arange(table.shape[0])[:, None]).ravel()
        pos = np.searchsorted(shifted, rng.random(n) + config, side="right")
        X[:, j] = np.minimum(pos - config * table.shape[1], table.shape[1] - 1)
    return X


def sample_gaussian(net: GaussianNetwork, n: int, rng: np.random.Generator) -> np.ndarray:
    """Forward sampling of a linear-Gaussian network."""
    X = np.zeros((n, len(net.names)))
    noise = rng.standard_normal((n, len(net.names))) * np.sqrt(net.variance)
    for j in topological_order(net.parents):
        X[:, j] = net.intercept[j] + noise[:, j]
        if net.parents[j]:
            X[:, j] += X[:, net.parents[j]] @ net.coef[j]
    return X


class BNLearnParams(Params):
    network: Network = Field(
        "asia", description="A bnlearn repository network bundled with pgmpy: discrete " + ", ".join(DISCRETE)
        + "; linear-Gaussian " + ", ".join(GAUSSIAN) + "."
    )
    n_samples: int = Field(5000, ge=1, description="Number of forward samples.")
    seed: int = Field(0, description="Seed of the samples.")


class BNLearn(DataSource):
    """Forward samples of a network of the bnlearn Bayesian network repository.

    The networks are read from the files pgmpy's wheel bundles
    (``site-packages/pgmpy/utils/example_models``: copies of bnlearn's repository; nothing is
    downloaded): the 24 discrete networks in BIF and the 4 linear-Gaussian ones in pgmpy's JSON.
    Discrete data are categorical codes ``0 .. k-1`` in the file's state order (``truth["states"]``
    names them); Gaussian data are continuous. ``truth`` holds the network's DAG (``"graph"``) and
    its CPDAG (``"cpdag"``).

    References
    ----------
    Scutari. Learning Bayesian networks with the bnlearn R package. J. Stat. Softw. 35(3), 2010
    (the repository, https://www.bnlearn.com/bnrepository/).
    Koller, Friedman. Probabilistic Graphical Models. MIT Press, 2009 (forward sampling, Sec. 12.1).
    """

    name = "bnlearn"
    Params = BNLearnParams
    paper = "Scutari, J. Stat. Softw. 2010 (bnlearn repository)"

    def _load(self) -> Dataset:
        p = self.params
        net = read_network(p.network)
        rng = np.random.default_rng(p.seed)
        discrete = isinstance(net, DiscreteNetwork)
        X = sample_discrete(net, p.n_samples, rng) if discrete else sample_gaussian(net, p.n_samples, rng)
        edges = [(net.names[a], net.names[b]) for b, pa in enumerate(net.parents) for a in pa]
        dag = CausalGraph.from_edges(net.names, edges)
        truth = {"graph": dag, "cpdag": dag.cpdag()}
        if discrete:
            truth["states"] = dict(zip(net.names, net.states))
        return Dataset(X, names=net.names, discrete=discrete, truth=truth, name=p.network)
