"""Pictures of results: one :func:`plot` for every result type, and the drawing helpers plugins share.

:func:`plot` dispatches on the type of its argument: a :class:`CausalGraph`
(clusters as boxes, directed and undirected edges; a cluster graph beside its
expanded variable graph), a :class:`Partition` of samples (a scatter of two
columns, or cluster sizes without data), a feature selection (the selected
features, on the image grid when the data are images), a partition of
variables (its clusters as boxes) and an :class:`Evaluation` (its metrics as
bars). Only matplotlib is needed, imported on first use through
:func:`pyplot`, so importing this module costs nothing.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .data import Dataset
from .errors import DataValidationError
from .graph import CausalGraph
from .partition import Partition

__all__ = [
    "pyplot", "plot", "plot_graph", "plot_graphs", "plot_partition", "plot_selection",
    "plot_evaluation", "image_shape", "finish",
]


def pyplot():
    """``matplotlib.pyplot``, on the Agg backend unless a backend is already chosen.

    A notebook (which sets ``MPLBACKEND``) or a session that imported pyplot first
    keeps its backend; scripts and tests draw off-screen.
    """
    import matplotlib

    if "matplotlib.pyplot" not in sys.modules and "MPLBACKEND" not in os.environ:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _plain(text: object) -> str:
    """A name from the data drawn as text: ``$`` escaped, so matplotlib never reads it as math."""
    return str(text).replace("$", r"\$")


def _axes(ax, figsize: tuple[float, float]):
    if ax is not None:
        return ax.figure, ax
    return pyplot().subplots(figsize=figsize)


def finish(fig, path: str | Path | None = None, dpi: int = 110):
    """Lay out *fig*; with *path*, save it there (folders created) and close it. Returns *fig*."""
    fig.tight_layout()
    if path is not None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=dpi, bbox_inches="tight")
        pyplot().close(fig)
    return fig


# -- causal graphs ----------------------------------------------------------------
def _layout(graph: CausalGraph) -> dict[int, tuple[float, float]]:
    """Layered layout: a node's layer is the longest path into it (undirected edges read low -> high
    index, relaxation capped at n rounds), so every edge spans at least one layer where it can."""
    n = graph.n_nodes
    edges = sorted(graph.directed) + sorted(tuple(sorted(e)) for e in graph.undirected | graph.bidirected)
    layer = dict.fromkeys(range(n), 0)
    for _ in range(n):
        changed = False
        for a, b in edges:
            if layer[b] < layer[a] + 1 and layer[a] + 1 < n:
                layer[b] = layer[a] + 1
                changed = True
        if not changed:
            break
    rows: dict[int, list[int]] = {}
    for i in range(n):
        rows.setdefault(layer[i], []).append(i)
    pos = {}
    for lv, nodes in rows.items():
        nodes.sort(key=graph.label)
        # alternate layers sit a little left and right, so an edge that skips a layer does not
        # run straight through the node between (a chain a - b - c with an edge a - c)
        shift = (0.4 if lv % 2 else -0.4) / (len(nodes) + 1)
        for k, i in enumerate(nodes):
            pos[i] = ((k + 1) / (len(nodes) + 1) + shift, 1.0 - (lv + 0.5) / (max(rows) + 1))
    return pos


def plot_graph(graph: CausalGraph, ax=None, title: str | None = None):
    """Draw *graph* on *ax*: clusters of several variables as boxes listing them, directed edges as
    arrows, undirected edges as plain lines, bidirected edges as double arrows, nodes in layers along the directed edges. Returns the axes."""
    _, ax = _axes(ax, (4, 4))
    pos = _layout(graph)
    for i, (x, y) in pos.items():
        multi = len(graph.clusters[i]) > 1
        text = _plain(graph.label(i)).replace(",", "\n" if len(graph.clusters[i]) > 4 else ", ")
        ax.text(x, y, text, ha="center", va="center", fontsize=8, zorder=3,
                bbox=dict(boxstyle="square,pad=0.4" if multi else "round,pad=0.3",
                          fc="#dbe9f6" if multi else "white", ec="#1f4e79" if multi else "0.4"))
    arrows = [(a, b, "-|>") for a, b in graph.directed] + [(*sorted(e), "-") for e in graph.undirected]
    arrows += [(*sorted(e), "<|-|>") for e in graph.bidirected]
    for a, b, style in arrows:
        ax.annotate("", xy=pos[b], xytext=pos[a], zorder=2,
                    arrowprops=dict(arrowstyle=style, color="0.2", shrinkA=16, shrinkB=16))
    ax.set_xlim(-0.05, 1.05)
    ax.set_ylim(-0.05, 1.05)
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=10)
    return ax


def plot_graphs(graphs: Mapping[str, CausalGraph], path: str | Path | None = None, size: float = 4.0):
    """One panel per titled graph (e.g. CIC beside PC and Hill-Climb). Returns the figure; with *path*,
    saves and closes it."""
    fig, axes = pyplot().subplots(1, len(graphs), figsize=(size * len(graphs), size), squeeze=False)
    for ax, (title, g) in zip(axes[0], graphs.items()):
        plot_graph(g, ax, title)
    return finish(fig, path)


# -- partitions -------------------------------------------------------------------
def plot_partition(partition: Partition, data: Dataset | None = None, ax=None, title: str | None = None,
                   columns: tuple[int, int] = (0, 1)):
    """A sample partition: with *data*, a scatter of two of its *columns* coloured by cluster (noise
    light grey); without, the cluster sizes as bars. Returns the axes."""
    _, ax = _axes(ax, (4, 4) if data is not None else (4, 3))
    sizes = [len(c) for c in partition.clusters]
    noise = partition.noise
    if data is None:
        ax.bar(range(len(sizes)), sizes, color="#1f77b4")
        ax.set_xticks(range(len(sizes)))
        ax.set_xlabel("cluster")
        ax.set_ylabel("size")
        ax.set_title(title or f"{len(sizes)} clusters, {int(noise.sum())} noise", fontsize=9)
        return ax
    if len(partition) != data.n_samples:
        raise DataValidationError(
            f"plot: the partition has {len(partition)} labels for {data.n_samples} samples."
        )
    a, b = columns if data.n_variables > 1 else (0, 0)
    X = data.X
    cmap = pyplot().get_cmap("tab10" if len(sizes) <= 10 else "tab20")
    ax.scatter(X[noise, a], X[noise, b], s=4, c="0.8", label="noise")
    for k, idx in enumerate(partition.clusters):
        ax.scatter(X[idx, a], X[idx, b], s=4, color=cmap(k % cmap.N), label=str(k))
    ax.set_xlabel(_plain(data.names[a]))
    ax.set_ylabel(_plain(data.names[b]))
    ax.set_title(title or f"{len(sizes)} clusters, {int(noise.sum())} noise", fontsize=9)
    return ax


def image_shape(data: Dataset | None) -> tuple[int, int] | None:
    """The (height, width) of image data: a square number of columns named ``px0, px1, ...``
    (row-major pixels, as the ``digits`` source), else None."""
    if data is None:
        return None
    side = math.isqrt(data.n_variables)
    if side * side == data.n_variables and data.names == tuple(f"px{i}" for i in range(data.n_variables)):
        return side, side
    return None


def plot_selection(selected: Sequence[int], shape: tuple[int, int] | None = None, image=None,
                   names: Sequence[str] | None = None, scores=None, ax=None, title: str | None = None):
    """Selected features: on the image grid of *shape* (row-major pixels) over an optional grey
    *image*, or, without a shape, the *scores* of all features (or the *names* of the selected ones)
    with the selected ones highlighted. Returns the axes."""
    sel = np.asarray(selected, dtype=np.int64).ravel()
    if shape is not None:
        h, w = int(shape[0]), int(shape[1])
        if sel.size and (sel.min() < 0 or sel.max() >= h * w):
            raise DataValidationError(f"plot: selected indices must lie in [0, {h * w}) for an image of {h} x {w}.")
        _, ax = _axes(ax, (4, 4 * h / w))
        mask = np.zeros(h * w)
        mask[sel] = 1.0
        mask = mask.reshape(h, w)
        if image is not None:
            ax.imshow(np.asarray(image, dtype=float).reshape(h, w), cmap="gray", interpolation="nearest")
        ax.imshow(np.ma.masked_where(mask == 0, mask), cmap="autumn", alpha=0.8 if image is not None else 1.0,
                  vmin=0, vmax=1, interpolation="nearest")
        ax.set_xticks([])
        ax.set_yticks([])
    elif scores is not None:
        s = np.asarray(scores, dtype=float).ravel()
        _, ax = _axes(ax, (max(4.0, min(12.0, 0.15 * s.size)), 3))
        colour = np.where(np.isin(np.arange(s.size), sel), "#d62728", "0.7")
        ax.bar(np.arange(s.size), s, color=colour)
        ax.set_xlabel("feature")
        ax.set_ylabel("score")
    else:
        _, ax = _axes(ax, (4, 0.5 + 0.25 * max(sel.size, 1)))
        labels = [_plain(names[i]) if names is not None else str(i) for i in sel]
        for r, text in enumerate(labels):
            ax.text(0.02, 1 - (r + 0.5) / max(sel.size, 1), f"{r + 1}. {text}", va="center", fontsize=8)
        ax.axis("off")
    ax.set_title(title or f"{sel.size} selected features", fontsize=9)
    return ax


def _variable_clusters(partition: Partition) -> CausalGraph:
    names = partition.names or tuple(f"x{i}" for i in range(len(partition)))
    return CausalGraph([[names[i] for i in idx] for idx in partition.clusters])


# -- evaluations and reports --------------------------------------------------------
def plot_evaluation(evaluation, ax=None, title: str | None = None):
    """The metrics of an :class:`~macrocause.framework.roles.Evaluation` as horizontal bars, values written on
    them. Returns the axes."""
    items = list(evaluation.metrics.items()) or [("value", evaluation.value)]
    _, ax = _axes(ax, (4.5, 0.6 + 0.35 * len(items)))
    ys = np.arange(len(items))[::-1]
    vals = [v for _, v in items]
    ax.barh(ys, vals, color="#1f77b4")
    ax.set_yticks(ys, [_plain(k) for k, _ in items], fontsize=8)
    for y, v in zip(ys, vals):
        ax.text(v, y, f" {v:.4g}", va="center", fontsize=8)
    ax.margins(x=0.2)
    ax.set_title(title or f"value {evaluation.value:.4g}", fontsize=9)
    return ax


def plot(result: Any, data: Dataset | None = None, ax=None, *, title: str | None = None,
         path: str | Path | None = None, shape: tuple[int, int] | None = None):
    """Draw any result; returns the matplotlib figure (saved to *path* and closed when given).

    Parameters
    ----------
    result : CausalGraph, Partition or Evaluation
        A cluster graph is drawn beside its expanded variable graph (when *ax* is None); a sample
        partition as a scatter of *data*'s first two columns (cluster sizes without *data*); a
        feature selection (``info["selected"]``) on the image grid of *shape* (inferred for
        ``px0, px1, ...`` columns, see :func:`image_shape`) or as feature scores; other variable
        partitions as boxes of variables; an evaluation as bars of its metrics.
    data : Dataset, optional
        The data the result was computed on.
    ax : matplotlib Axes, optional
        Draw there instead of on a new figure.
    """
    from .evaluation import Evaluation

    own = ax is None
    if isinstance(result, CausalGraph):
        if ax is None and not result.is_singleton:
            return plot_graphs({title or "cluster graph": result, "variables": result.expand()}, path)
        ax = plot_graph(result, ax, title)
    elif isinstance(result, Partition) and result.axis == "samples":
        ax = plot_partition(result, data, ax, title)
    elif isinstance(result, Partition) and "selected" in result.info:
        shape = shape or image_shape(data)
        image = data.X.mean(axis=0) if shape is not None and data is not None else None
        ax = plot_selection(result.info["selected"], shape, image, names=result.names,
                            scores=result.info.get("scores"), ax=ax, title=title)
    elif isinstance(result, Partition):
        ax = plot_graph(_variable_clusters(result), ax,
                        title or f"{result.n_clusters} clusters of variables, {int(result.noise.sum())} noise")
    elif isinstance(result, Evaluation):
        ax = plot_evaluation(result, ax, title)
    else:
        raise DataValidationError(
            f"plot draws a CausalGraph, Partition or Evaluation, got {type(result).__name__}."
        )
    return finish(ax.figure, path) if own or path is not None else ax.figure
