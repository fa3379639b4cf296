"""Drawings of cluster DAGs: each cluster a box listing its variables (matplotlib, imported lazily)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from framework import CausalGraph


def _layout(graph: CausalGraph) -> dict[int, tuple[float, float]]:
    """Layered layout: a node's layer is the longest path into it (undirected edges read low -> high index,
    relaxation capped at n rounds), so every edge spans at least one layer where it can."""
    n = graph.n_nodes
    edges = sorted(graph.directed) + sorted(tuple(sorted(e)) for e in graph.undirected)
    layer = {i: 0 for i in range(n)}
    for _ in range(n):
        changed = False
        for a, b in edges:
            if layer[b] < layer[a] + 1 and layer[a] + 1 < n:
                layer[b] = layer[a] + 1
                changed = True
        if not changed:
            break
    rows: dict[int, list[int]] = {}
    for i in range(graph.n_nodes):
        rows.setdefault(layer[i], []).append(i)
    pos = {}
    for lv, nodes in rows.items():
        nodes.sort(key=lambda i: graph.label(i))
        for k, i in enumerate(nodes):
            pos[i] = ((k + 1) / (len(nodes) + 1), 1.0 - (lv + 0.5) / (max(rows) + 1))
    return pos


def draw_cluster_dag(graph: CausalGraph, ax=None, title: str | None = None):
    """Draw *graph* on *ax*: clusters as boxes of variable names, directed edges as arrows,
    undirected edges as plain lines. Returns the axes."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(4, 4))
    pos = _layout(graph)
    for i, (x, y) in pos.items():
        multi = len(graph.clusters[i]) > 1
        text = graph.label(i).replace(",", "\n" if len(graph.clusters[i]) > 4 else ", ")
        ax.text(x, y, text, ha="center", va="center", fontsize=8, zorder=3,
                bbox=dict(boxstyle="square,pad=0.4" if multi else "round,pad=0.3",
                          fc="#dbe9f6" if multi else "white", ec="#1f4e79" if multi else "0.4"))
    for a, b in graph.directed:
        ax.annotate("", xy=pos[b], xytext=pos[a], zorder=2,
                    arrowprops=dict(arrowstyle="-|>", color="0.2", shrinkA=16, shrinkB=16))
    for e in graph.undirected:
        a, b = sorted(e)
        ax.annotate("", xy=pos[b], xytext=pos[a], zorder=2,
                    arrowprops=dict(arrowstyle="-", color="0.2", shrinkA=16, shrinkB=16))
    ax.set_xlim(-0.05, 1.05)
    ax.set_ylim(-0.05, 1.05)
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=10)
    return ax


def side_by_side(graphs: Mapping[str, CausalGraph], path: str | Path | None = None, size: float = 4.0):
    """One panel per graph (e.g. CIC beside PC and Hill-Climb); saves to *path* when given."""
    import matplotlib

    if path is not None:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(graphs), figsize=(size * len(graphs), size))
    axes = [axes] if len(graphs) == 1 else list(axes)
    for ax, (title, g) in zip(axes, graphs.items()):
        draw_cluster_dag(g, ax, title)
    fig.tight_layout()
    if path is not None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=110)
        plt.close(fig)
    return fig
