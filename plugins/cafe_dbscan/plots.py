"""Plots of CAFE DBSCAN results: clusters in the plane with their effect-state distributions (the
paper's Fig. 4) and a representative image per cluster (Fig. 1), drawn with the shared helpers of
:mod:`framework.plotting` (matplotlib imported lazily)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from framework import Dataset, Partition
from framework.plotting import finish, plot_partition, pyplot


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


def representative_images(ds: Dataset, part: Partition, width: int, height: int) -> np.ndarray:
    """Per cluster, the sum of the colours of its pixel points at each position, scaled to [0, 255]
    (the paper's Fig. 1). Needs the ``col, row, red, green, blue`` columns of ``image_folder``."""
    cols = [ds.index(c) for c in ("col", "row", "red", "green", "blue")]
    out = np.zeros((part.n_clusters, height, width, 3))
    for i, idx in enumerate(part.clusters):
        pts = ds.X[idx][:, cols]
        np.add.at(out[i], (pts[:, 1].astype(int), pts[:, 0].astype(int)), pts[:, 2:])
        top = out[i].max()
        if top > 0:
            out[i] = np.minimum(out[i] * (255.0 / top), 255.0)
    return out


def plot_representatives(ds: Dataset, part: Partition, width: int, height: int,
                         path: str | Path | None = None) -> np.ndarray:
    """Representative image per cluster with its effect-state distribution below (Fig. 1).
    Returns the images (k x height x width x 3); saves the figure to *path* when given."""
    plt = pyplot()
    imgs = representative_images(ds, part, width, height)
    dist = _distributions(ds, part)
    states = [str(s) for s in ds.target_states]
    k = max(imgs.shape[0], 1)
    fig, axes = plt.subplots(2, k, figsize=(1.8 * k, 4.2), height_ratios=[3, 1.2], squeeze=False)
    for i in range(imgs.shape[0]):
        axes[0, i].imshow(imgs[i].astype(np.uint8))
        axes[0, i].set_title(f"$\\Pi_{{{i + 1}}}$ ({len(part.clusters[i])} px)", fontsize=8)
        axes[0, i].axis("off")
        axes[1, i].bar(range(len(states)), dist[i], color="grey")
        axes[1, i].set_ylim(0, 1)
        axes[1, i].set_xticks(range(len(states)), states, fontsize=6, rotation=45)
        axes[1, i].tick_params(axis="y", labelsize=6)
    finish(fig, path)
    plt.close(fig)
    return imgs
