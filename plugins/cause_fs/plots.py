"""Figures of the CAUSE-FS paper: selected pixels on the image grid (Fig. 5), objective trace (Fig. 7)."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_selected_pixels(selected, shape, path, image=None, title: str | None = None) -> Path:
    """Fig. 5: the *selected* feature indices (row-major pixels) marked on an image of *shape*.

    *image* (optional, length prod(shape)) is drawn in grey underneath, e.g. a mean sample.
    """
    plt = _plt()
    h, w = int(shape[0]), int(shape[1])
    sel = np.asarray(selected, dtype=np.int64).ravel()
    if sel.size and (sel.min() < 0 or sel.max() >= h * w):
        raise ValueError(f"selected indices must lie in [0, {h * w}).")
    mask = np.zeros(h * w)
    mask[sel] = 1.0
    fig, ax = plt.subplots(figsize=(4, 4 * h / w))
    if image is not None:
        ax.imshow(np.asarray(image, dtype=float).reshape(h, w), cmap="gray", interpolation="nearest")
    overlay = np.ma.masked_where(mask.reshape(h, w) == 0, mask.reshape(h, w))
    ax.imshow(overlay, cmap="autumn", alpha=0.8 if image is not None else 1.0, vmin=0, vmax=1,
              interpolation="nearest")
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_title(title or f"{sel.size} selected pixels")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(fig)
    return path


def plot_objective(trace, path, title: str | None = None) -> Path:
    """Fig. 7: the value of Eq. (5) after each iteration of Algorithm 1."""
    plt = _plt()
    t = np.asarray(trace, dtype=float).ravel()
    fig, ax = plt.subplots(figsize=(4.5, 3.2))
    ax.plot(np.arange(1, t.size + 1), t, marker="o")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_xlabel("iteration")
    ax.set_ylabel("objective (Eq. 5)")
    ax.set_title(title or "CAUSE-FS convergence")
    ax.grid(alpha=0.3)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(fig)
    return path
