"""Plots: partitions in the plane, causal graphs with cluster boxes (report figures: ``framework.report``).

matplotlib is imported inside each function (Agg backend), so importing this
module costs nothing.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .graph import CausalGraph
from .partition import Partition


def _plt():
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def plot_partition(X: np.ndarray, partition: Partition, path: str | Path | None = None, ax=None,
                   title: str | None = None):
    """Scatter of 2-D points coloured by cluster; noise in light grey."""
    plt = _plt()
    own = ax is None
    if own:
        fig, ax = plt.subplots(figsize=(4, 4))
    lab = partition.labels
    noise = lab == -1
    ax.scatter(X[noise, 0], X[noise, 1], s=3, c="0.8", label="noise")
    ax.scatter(X[~noise, 0], X[~noise, 1], s=3, c=lab[~noise], cmap="tab20")
    if title:
        ax.set_title(title, fontsize=9)
    ax.set_aspect("equal", adjustable="datalim")
    if own and path is not None:
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
    return ax


def plot_graph(graph: CausalGraph, path: str | Path | None = None, ax=None, title: str | None = None,
               seed: int = 0):
    """Draw a causal graph; clusters of several variables are boxes listing their variables."""
    import networkx as nx

    plt = _plt()
    own = ax is None
    if own:
        fig, ax = plt.subplots(figsize=(5, 4))
    g = nx.Graph()
    g.add_nodes_from(range(graph.n_nodes))
    g.add_edges_from(tuple(e) for e in graph.skeleton())
    pos = nx.spring_layout(g, seed=seed) if graph.n_nodes > 1 else {0: np.zeros(2)}
    for (i, j) in graph.directed:
        ax.annotate("", xy=pos[j], xytext=pos[i],
                    arrowprops=dict(arrowstyle="-|>", color="0.2", shrinkA=14, shrinkB=14))
    for e in graph.undirected:
        i, j = tuple(e)
        ax.plot([pos[i][0], pos[j][0]], [pos[i][1], pos[j][1]], color="0.4", lw=1)
    for i in range(graph.n_nodes):
        multi = len(graph.clusters[i]) > 1
        text = "\n".join(graph.label(i).split(",")) if multi else graph.label(i)
        ax.text(*pos[i], text, ha="center", va="center", fontsize=8,
                bbox=dict(boxstyle="square" if multi else "round", fc="#e8f0fe" if multi else "white",
                          ec="0.3"))
    ax.set_axis_off()
    if title:
        ax.set_title(title, fontsize=9)
    if own and path is not None:
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
    return ax
