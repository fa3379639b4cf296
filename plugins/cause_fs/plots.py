"""Figures of the CAUSE-FS paper: selected pixels on the image grid (Fig. 5), objective trace (Fig. 7)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from macrocause.framework.plotting import finish, plot_selection, pyplot


def plot_selected_pixels(selected, shape, path, image=None, title: str | None = None) -> Path:
    """Fig. 5: the *selected* feature indices (row-major pixels) marked on an image of *shape*.

    *image* (optional, length prod(shape)) is drawn in grey underneath, e.g. a mean sample.
    """
    ax = plot_selection(selected, shape, image, title=title or f"{np.size(selected)} selected pixels")
    finish(ax.figure, path, dpi=100)
    return Path(path)


def plot_objective(trace, path, title: str | None = None) -> Path:
    """Fig. 7: the value of Eq. (5) after each iteration of Algorithm 1."""
    t = np.asarray(trace, dtype=float).ravel()
    fig, ax = pyplot().subplots(figsize=(4.5, 3.2))
    ax.plot(np.arange(1, t.size + 1), t, marker="o")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_xlabel("iteration")
    ax.set_ylabel("objective (Eq. 5)")
    ax.set_title(title or "CAUSE-FS convergence")
    ax.grid(alpha=0.3)
    finish(fig, path, dpi=100)
    return Path(path)
