"""Plots: partitions in the plane, causal graphs with cluster boxes, benchmark charts.

matplotlib is imported inside each function (Agg backend), so importing this
module costs nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .graph import CausalGraph
from .partition import Partition


def _plt():
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def plot_report(rows: Sequence[Mapping[str, Any]], metric: str, path: str | Path) -> Path:
    """Grouped bars (methods within datasets) of one metric with ± std error bars."""
    plt = _plt()
    datas = sorted({r["data"] for r in rows})
    methods = sorted({r["method"] for r in rows})
    cell = {(r["method"], r["data"]): r for r in rows}
    width = 0.8 / max(len(methods), 1)
    fig, ax = plt.subplots(figsize=(max(4, 1.6 * len(datas) + 1), 3.2))
    for k, m in enumerate(methods):
        xs = np.arange(len(datas)) + k * width
        means = [cell[(m, d)]["mean"] if (m, d) in cell else np.nan for d in datas]
        stds = [cell[(m, d)]["std"] if (m, d) in cell else 0 for d in datas]
        ax.bar(xs, means, width, yerr=stds, label=m, capsize=2)
    ax.set_xticks(np.arange(len(datas)) + width * (len(methods) - 1) / 2)
    ax.set_xticklabels(datas, rotation=15, ha="right", fontsize=8)
    ax.set_ylabel(metric)
    ax.legend(fontsize=7, frameon=False)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


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
