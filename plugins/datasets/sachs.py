"""The Sachs et al. (2005) flow-cytometry data, shipped with the package, with its ground-truth graphs."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import Field

from macrocause.framework import CausalGraph, Dataset, DataSource, Params, Partition

DATA_DIR = Path(__file__).resolve().parent / "data" / "sachs"
GROUND_TRUTHS = ("consensus20", "bnlearn17", "cdt18")


def read_edges(path: Path) -> list[tuple[str, str]]:
    """(source, target) pairs of a two-column CSV with a header row."""
    with path.open(newline="") as fh:
        rows = list(csv.reader(fh))
    return [(a.strip(), b.strip()) for a, b in rows[1:] if a.strip()]


def graph_from_edges(names: list[str], edges: list[tuple[str, str]]) -> CausalGraph:
    """A CausalGraph of directed edges; edges on a directed cycle become undirected.

    cdt18 has the cycle PIP2 -> PIP3 -> Plcg -> PIP2, which a CausalGraph
    (acyclic by definition) cannot hold: its three edges are kept, unoriented.
    """
    import networkx as nx

    g = nx.DiGraph(edges)
    comp = {v: i for i, scc in enumerate(nx.strongly_connected_components(g)) for v in scc}
    cyclic = [(a, b) for a, b in edges if comp[a] == comp[b]]
    acyclic = [(a, b) for a, b in edges if comp[a] != comp[b]]
    return CausalGraph.from_edges(names, acyclic, cyclic)


def read_conditions() -> np.ndarray:
    """The experimental condition (a string) of each of the 7466 rows."""
    with (DATA_DIR / "sachs_7466_conditions.csv").open(newline="") as fh:
        rows = list(csv.reader(fh))[1:]
    return np.array([c for _, c in rows])


class SachsParams(Params):
    subset: Literal["all", "cd3cd28"] = Field(
        "all",
        description="'all': the 7466 cells of the 9 conditions; 'cd3cd28': the 853 cells of the "
        "observational condition only.",
    )
    log: bool = Field(False, description="Natural log of the raw intensities (all are >= 1).")


class Sachs(DataSource):
    """Sachs et al. (2005) protein-signalling data: 11 continuous variables, three ground-truth graphs.

    ``truth`` holds the DAGs ``"consensus20"`` (20 edges, Sachs et al. Fig. 3 as
    distributed by CMU), ``"bnlearn17"`` (17 edges, bnlearn) and ``"cdt18"``
    (18 edges, Causal Discovery Toolbox; its directed cycle PIP2 -> PIP3 -> Plcg
    -> PIP2 is kept as three undirected edges, since a CausalGraph is acyclic);
    ``"graph"`` is consensus20. With
    ``subset="all"`` it also holds ``"conditions"``: a Partition of the samples
    into the 9 experimental conditions. Data CC0 (CMU) / MIT (CDT); see
    ``plugins/datasets/data/sachs/README.md``.

    References
    ----------
    Sachs, Perez, Pe'er, Lauffenburger, Nolan. Causal protein-signaling networks
    derived from multiparameter single-cell data. Science 308(5721), 2005.
    """

    name = "sachs"
    Params = SachsParams
    paper = "Sachs et al., Science 2005"

    def _load(self) -> Dataset:
        p = self.params
        file = "sachs_7466.csv" if p.subset == "all" else "sachs_cd3cd28_853.csv"
        raw = Dataset.from_csv(DATA_DIR / file, discrete=False)
        X = np.log(raw.X) if p.log else raw.X
        truth: dict = {
            key: graph_from_edges(list(raw.names), read_edges(DATA_DIR / f"ground_truth_{key}.csv"))
            for key in GROUND_TRUTHS
        }
        truth["graph"] = truth["consensus20"]
        if p.subset == "all":
            _, codes = np.unique(read_conditions(), return_inverse=True)
            truth["conditions"] = Partition(codes, axis="samples")
        label = f"sachs_{p.subset}" + ("_log" if p.log else "")
        return Dataset(X, names=raw.names, discrete=False, truth=truth, name=label)
