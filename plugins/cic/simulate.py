"""Data sources of the CIC paper: the XOR example (Section 3.2), scenarios 1-3 (Section 5.1)
and random cluster DAGs with parity / majority mechanisms for scaling studies.

Every source ships its ground truth as ``truth["graph"]``: the cluster DAG
(Definition 1) induced by the simulated SCM and the intended clustering;
``cic_random`` also ships ``truth["identifiable"]``, the finest cluster DAG its data
can identify (:func:`identifiable_truth`).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field

from macrocause.framework import CausalGraph, Dataset, DataSource, Params

from .scorers import PAPER


def bsc(y: np.ndarray, p: float, rng: np.random.Generator) -> np.ndarray:
    """Binary symmetric channel: flip each bit of *y* with probability *p*."""
    return np.where(rng.random(y.shape[0]) < p, 1 - y, y)


def parity(*xs: np.ndarray) -> np.ndarray:
    return np.bitwise_xor.reduce(np.column_stack(xs), axis=1)


def majority(*xs: np.ndarray) -> np.ndarray:
    """1 when at least half of the inputs are 1 (the paper's definition)."""
    X = np.column_stack(xs)
    return (2 * X.sum(axis=1) >= X.shape[1]).astype(np.int64)


def xor_example(n: int = 1000, delta: float = 0.1, gamma: float = 0.1, seed: int = 0) -> Dataset:
    """X3 = BSC_delta(X1 xor X2), X4 = BSC_gamma(X3); truth {X1, X2} -> {X3} -> {X4}."""
    rng = np.random.default_rng(seed)
    x1, x2 = rng.integers(0, 2, n), rng.integers(0, 2, n)
    x3 = bsc(x1 ^ x2, delta, rng)
    x4 = bsc(x3, gamma, rng)
    names = ["X1", "X2", "X3", "X4"]
    truth = CausalGraph([["X1", "X2"], ["X3"], ["X4"]], [(0, 1), (1, 2)])
    return Dataset(np.column_stack([x1, x2, x3, x4]), names=names, discrete=True,
                   truth={"graph": truth}, name="cic_xor")


SCENARIOS = {1: (parity, parity, parity), 2: (majority, majority, majority), 3: (parity, majority, parity)}


def scenario(which: int, n: int = 1000, p1: float = 0.1, p2: float = 0.1, seed: int = 0) -> Dataset:
    """Section 5.1: X1..X6 ~ Be(1/2); BSC_p1(X7) = f(X1,X2,X3) and g(X4,X5,X6);
    BSC_p2(X8) = X7 and h(X4,X5,X6), with (f, g, h) = (par, par, par), (maj, maj, maj), (par, maj, par)."""
    f, g, h = SCENARIOS[which]
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (n, 6))
    c = [X[:, i] for i in range(6)]
    x7 = bsc(f(*c[:3]) & g(*c[3:]), p1, rng)
    x8 = bsc(x7 & h(*c[3:]), p2, rng)
    names = [f"X{i}" for i in range(1, 9)]
    truth = CausalGraph(
        [["X1", "X2", "X3"], ["X4", "X5", "X6"], ["X7"], ["X8"]], [(0, 2), (1, 2), (1, 3), (2, 3)]
    )
    return Dataset(np.column_stack([X, x7, x8]), names=names, discrete=True, truth={"graph": truth},
                   name=f"cic_scenario{which}")


def random_cluster_dag(
    n_clusters: int = 4, cluster_size: int = 3, mechanism: str = "parity", rho: float = 0.5,
    noise: float = 0.1, n: int = 1000, seed: int = 0,
) -> Dataset:
    """A random cluster DAG over binary variables (see :class:`CICRandom`)."""
    rng = np.random.default_rng(seed)
    mech = parity if mechanism == "parity" else majority
    order = rng.permutation(n_clusters)
    edges = [(int(order[i]), int(order[j])) for i in range(n_clusters) for j in range(i + 1, n_clusters)
             if rng.random() < rho]
    cols: dict[int, list[np.ndarray]] = {}
    for c in order:
        c = int(c)
        own = [rng.integers(0, 2, n) for _ in range(cluster_size)]
        pa = [a for a, b in edges if b == c]
        if pa:
            signal = np.bitwise_xor.reduce(np.column_stack([mech(*cols[a]) for a in pa]), axis=1)
            last = signal ^ parity(*own[:-1]) if cluster_size > 1 else signal
            own[-1] = bsc(last, noise, rng)
        cols[c] = own
    names = [f"C{c}_{i}" for c in range(n_clusters) for i in range(cluster_size)]
    X = np.column_stack([v for c in range(n_clusters) for v in cols[c]])
    clusters = [[f"C{c}_{i}" for i in range(cluster_size)] for c in range(n_clusters)]
    truth = {"graph": CausalGraph(clusters, edges),
             "identifiable": identifiable_truth(clusters, edges, mechanism)}
    return Dataset(X, names=names, discrete=True, truth=truth, name="cic_random")


def identifiable_truth(clusters: list[list[str]], edges: list[tuple[int, int]], mechanism: str) -> CausalGraph:
    """The finest cluster DAG the data of :func:`random_cluster_dag` can identify.

    Every child cluster C makes one factor over C and its parent clusters. With
    parity mechanisms the variables of a factor enter it only through their xor, so
    they are exchangeable: clusters that enter exactly the same factors are merged
    into one group. With majority mechanisms a parent enters through its majority
    and the clusters stay apart. In both, a cluster with no parent and no child
    holds independent uniform variables and becomes singletons. Edges are the true
    edges between the groups (edges inside a group dropped).
    """
    m = len(clusters)
    touched = {a for e in edges for a in e}
    if mechanism == "parity":
        member = {c: frozenset(b for a, b in edges if a == c) | ({c} if any(b == c for _, b in edges) else set())
                  for c in range(m)}
    else:
        member = {c: frozenset({c}) for c in range(m)}
    group_of: dict[int, int] = {}
    groups: list[list[str]] = []
    keys: dict[frozenset, int] = {}
    for c in range(m):
        if c not in touched:
            for v in clusters[c]:
                groups.append([v])
            continue
        g = keys.setdefault(member[c], len(groups))
        if g == len(groups):
            groups.append([])
        groups[g].extend(clusters[c])
        group_of[c] = g
    out = sorted({(group_of[a], group_of[b]) for a, b in edges if group_of[a] != group_of[b]})
    return CausalGraph(groups, out)


class CICScenarioParams(Params):
    scenario: Literal[1, 2, 3] = Field(1, description="1: parity/parity, 2: majority, 3: parity/majority.")
    n: int = Field(1000, ge=10, description="Samples N.")
    p1: float = Field(0.1, ge=0, le=0.5, description="BSC noise of X7.")
    p2: float = Field(0.1, ge=0, le=0.5, description="BSC noise of X8.")
    seed: int = Field(0, description="Random seed.")


class CICScenario(DataSource):
    """Scenarios 1-3 of the CIC paper (Section 5.1): eight binary variables, synergy through parity/majority.

    Truth: clusters {X1,X2,X3}, {X4,X5,X6}, {X7}, {X8} with edges
    {X1,X2,X3} -> X7, {X4,X5,X6} -> X7, {X4,X5,X6} -> X8, X7 -> X8.

    References
    ----------
    Niu, Li, Li. Learning Cluster Causal Diagrams: An Information-Theoretic Approach. IJCAI 2022.
    """

    name = "cic_scenario"
    Params = CICScenarioParams
    paper = PAPER

    def _load(self) -> Dataset:
        p = self.params
        return scenario(p.scenario, p.n, p.p1, p.p2, p.seed)


class CICXorParams(Params):
    n: int = Field(1000, ge=10, description="Samples N.")
    delta: float = Field(0.1, ge=0, le=0.5, description="BSC crossover of X3.")
    gamma: float = Field(0.1, ge=0, le=0.5, description="BSC crossover of X4.")
    seed: int = Field(0, description="Random seed.")


class CICXor(DataSource):
    """The XOR example of the CIC paper (Section 3.2): X3 = BSC(X1 xor X2), X4 = BSC(X3).

    Truth: {X1, X2} -> {X3} -> {X4}. X1 and X2 are each independent of X3, so
    single-variable methods miss the edges into X3.

    References
    ----------
    Niu, Li, Li. Learning Cluster Causal Diagrams: An Information-Theoretic Approach. IJCAI 2022.
    """

    name = "cic_xor"
    Params = CICXorParams
    paper = PAPER

    def _load(self) -> Dataset:
        p = self.params
        return xor_example(p.n, p.delta, p.gamma, p.seed)


class CICRandomParams(Params):
    n_clusters: int = Field(4, ge=1, description="Clusters of the true cluster DAG.")
    cluster_size: int = Field(3, ge=1, description="Variables per cluster.")
    mechanism: Literal["parity", "majority"] = Field("parity", description="How a child reads a parent cluster.")
    rho: float = Field(0.5, ge=0, le=1, description="Erdos-Renyi probability of a cluster edge.")
    noise: float = Field(0.1, ge=0, le=0.5, description="BSC noise of each child cluster's last variable.")
    n: int = Field(1000, ge=10, description="Samples N.")
    seed: int = Field(0, description="Random seed.")
    design: Literal["given", "drawn"] = Field(
        "given", description="given: the parameters above; drawn: n_clusters, cluster_size, mechanism and n drawn "
        "from the seed (issue 28's scheme: 3-8 clusters of 2-5 variables, parity or majority, N = 2,000, "
        "4,000 or 8,000, each uniform; see drawn_design), for tuning and report draws over many sizes.")


def drawn_design(seed: int) -> dict:
    """Issue 28's scheme: n_clusters uniform on 3..8, cluster_size on 2..5, mechanism parity or majority,
    n in {2000, 4000, 8000}, from a stream of *seed* apart from the data's."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, 2828]))
    return {"n_clusters": int(rng.integers(3, 9)), "cluster_size": int(rng.integers(2, 6)),
            "mechanism": ("parity", "majority")[int(rng.integers(2))], "n": (2000, 4000, 8000)[int(rng.integers(3))]}


class CICRandom(DataSource):
    """Random cluster DAG of binary variables with parity or majority mechanisms, for scaling studies.

    Cluster edges are Erdos-Renyi along a random order. A root cluster's variables
    are i.i.d. Be(1/2). In a child cluster, all variables but the last are
    i.i.d. Be(1/2) and the last is ``BSC_noise(s xor parity(others))``, where the
    signal ``s`` xors ``mechanism(parent cluster)`` over the parent clusters: the
    parents' information sits in the cluster as a whole, not in any one variable.
    ``design="drawn"`` draws the size, mechanism and N from the seed (:func:`drawn_design`).

    References
    ----------
    Niu, Li, Li. Learning Cluster Causal Diagrams: An Information-Theoretic Approach. IJCAI 2022.
    """

    name = "cic_random"
    Params = CICRandomParams
    paper = PAPER

    def _load(self) -> Dataset:
        p = self.params
        size = {"n_clusters": p.n_clusters, "cluster_size": p.cluster_size, "mechanism": p.mechanism, "n": p.n}
        if p.design == "drawn":
            size = drawn_design(p.seed)
        ds = random_cluster_dag(size["n_clusters"], size["cluster_size"], size["mechanism"], p.rho, p.noise,
                                size["n"], p.seed)
        ds.name = f"cic_random_{size['mechanism'][0]}{size['n_clusters']}x{size['cluster_size']}_n{size['n']}"
        return ds
