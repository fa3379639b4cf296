"""Plots of CAFE DBSCAN results: clusters in the plane with their effect-state distributions (the
paper's Fig. 4) and a representative image per cluster (Fig. 1), drawn with the shared helpers of
:mod:`macrocause.framework.plotting` (matplotlib imported lazily)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from macrocause.framework import Dataset, Partition
from macrocause.framework.plotting import finish, plot_partition, pyplot


def _distributions(ds: Dataset, part: Partition) -> np.ndarray:
    if "distributions" in part.info:
        return np.asarray(part.info["distributions"])
    m = len(ds.target_states)
    rows = [np.bincount(ds.target_codes[idx], minlength=m) / len(idx) for idx in part.clusters]
    return np.array(rows).reshape(-1, m)


def plot_clusters(ds: Dataset, part: Partition, path: str | Path | None = None, title: str | None = None,
                  columns: tuple[int, int] = (0, 1)):
    """Points by effect state, the clusters (noise grey) and one bar chart of effect-state
    probabilities per cluster. Returns the figure; saves it to *path* when given."""
    plt = pyplot()
    dist = _distributions(ds, part)
    k = dist.shape[0]
    states = [str(s) for s in ds.target_states]
    cmap = plt.get_cmap("tab10" if k <= 10 else "tab20")
    ncol = min(k, 4) if k else 1
    nrow = int(np.ceil(k / ncol)) if k else 1
    fig = plt.figure(figsize=(10 + 2.2 * ncol, 5))
    gs = fig.add_gridspec(nrow, 2 + ncol, width_ratios=[4, 4] + [1.6] * ncol)
    a, b = columns
    ax = fig.add_subplot(gs[:, 0])
    sc = ax.scatter(ds.X[:, a], ds.X[:, b], c=ds.target_codes, s=3, cmap="viridis")
    ax.set_title("effect states")
    ax.legend(sc.legend_elements()[0], states, fontsize=7, loc="upper right", markerscale=0.8)
    ax.set_xlabel(ds.names[a])
    ax.set_ylabel(ds.names[b])
    plot_partition(part, ds, fig.add_subplot(gs[:, 1]), title=title, columns=columns)
    for i in range(k):
        bx = fig.add_subplot(gs[i // ncol, 2 + i % ncol])
        bx.bar(range(len(states)), dist[i], color=cmap(i % cmap.N))
        bx.set_ylim(0, 1)
        bx.set_xticks(range(len(states)), states, fontsize=6)
        bx.tick_params(axis="y", labelsize=6)
        bx.set_title(f"$\\Pi_{{{i + 1}}}$", fontsize=8)
    return finish(fig, path)


def representative_images(ds: Dataset, part: Partition, width: int | None = None,
                          height: int | None = None) -> np.ndarray:
    """Per cluster, the sum of the values of its pixel points at each position, scaled to [0, 255]
    (the paper's Fig. 1). Needs ``col`` and ``row`` columns (as ``image_folder``, ``cafe_shapes``,
    ``cafe_digits`` give); the other columns are the channels (3: RGB, 1: grey). ``width`` and
    ``height`` default to the largest position + 1. Returns k x height x width x 3."""
    pos = [ds.index("col"), ds.index("row")]
    chans = [j for j in range(ds.X.shape[1]) if j not in pos]
    width = int(ds.X[:, pos[0]].max()) + 1 if width is None else width
    height = int(ds.X[:, pos[1]].max()) + 1 if height is None else height
    out = np.zeros((part.n_clusters, height, width, len(chans)))
    for i, idx in enumerate(part.clusters):
        pts = ds.X[idx]
        np.add.at(out[i], (pts[:, pos[1]].astype(int), pts[:, pos[0]].astype(int)), pts[:, chans])
        top = out[i].max()
        if top > 0:
            out[i] = np.minimum(out[i] * (255.0 / top), 255.0)
    return out if len(chans) == 3 else np.repeat(out[..., :1], 3, axis=-1)


def plot_representatives(ds: Dataset, part: Partition, width: int | None = None, height: int | None = None,
                         path: str | Path | None = None, top: int | None = None) -> np.ndarray:
    """Representative image per cluster with its effect-state distribution below (the paper's Fig. 1),
    largest cluster first; ``top`` keeps the largest ``top`` clusters. Returns the images (k x height x
    width x 3, in cluster order); saves the figure to *path* when given."""
    plt = pyplot()
    imgs = representative_images(ds, part, width, height)
    dist = _distributions(ds, part)
    states = [str(s) for s in ds.target_states]
    sizes = np.array([len(c) for c in part.clusters], dtype=int)
    order = np.argsort(-sizes, kind="stable")[:top]
    k = max(order.size, 1)
    fig, axes = plt.subplots(2, k, figsize=(1.8 * k, 4.2), height_ratios=[3, 1.2], squeeze=False)
    for col, i in enumerate(order):
        axes[0, col].imshow(imgs[i].astype(np.uint8), interpolation="nearest")
        axes[0, col].set_title(f"$\\Pi_{{{i + 1}}}$ ({sizes[i]} px)", fontsize=8)
        axes[0, col].axis("off")
        axes[1, col].bar(range(len(states)), dist[i], color="grey")
        axes[1, col].set_ylim(0, 1)
        axes[1, col].set_xticks(range(len(states)), states, fontsize=6, rotation=45)
        axes[1, col].tick_params(axis="y", labelsize=6)
    finish(fig, path)
    plt.close(fig)
    return imgs
