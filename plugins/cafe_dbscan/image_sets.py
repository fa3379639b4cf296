"""Image-like micro-level data for tuning and testing CAFE DBSCAN on images (one point per pixel).

``cafe_shapes``: generated images, coloured shapes on varied backgrounds, whose effect state is the
colour of one fixed region (the paper's traffic lights reduced to their causal structure).
``cafe_digits``: scikit-learn's 8 x 8 handwritten digits, one point per pixel, the digit as effect state.
"""

from __future__ import annotations

import numpy as np
from pydantic import Field

from macrocause.framework import Dataset, DataSource, Params, Partition
from macrocause.framework.roles import Example

STATE_COLOURS = ((230, 30, 30), (240, 200, 20), (30, 200, 40), (40, 90, 230), (200, 40, 220))
STATE_NAMES = ("red", "yellow", "green", "blue", "violet")
BACKGROUNDS = ((25, 25, 45), (160, 190, 225), (210, 140, 90), (90, 110, 80))


def pixel_points(images: np.ndarray) -> np.ndarray:
    """``(col, row, channel...)`` per pixel of ``images`` (N x height x width x channels), image-major."""
    n, h, w, c = images.shape
    rows, cols = np.mgrid[0:h, 0:w]
    pos = np.tile(np.column_stack([cols.ravel(), rows.ravel()]).astype(np.float64), (n, 1))
    return np.column_stack([pos, images.reshape(n * h * w, c).astype(np.float64)])


class CafeShapesParams(Params):
    n_per_state: int = Field(33, ge=1, description="Images per effect state.")
    n_states: int = Field(3, ge=2, le=5, description="Effect states: the signal region is red, yellow, green, ...")
    width: int = Field(32, ge=8, description="Image width in pixels.")
    height: int = Field(64, ge=8, description="Image height in pixels.")
    n_shapes: int = Field(3, ge=0, description="Distractor shapes per image (random colour, place and size).")
    noise: float = Field(12.0, ge=0, description="Standard deviation of the per-pixel colour noise (0-255 scale).")
    seed: int = Field(0, description="Random seed.")


class CafeShapes(DataSource):
    """Coloured shapes on varied backgrounds; the effect state is the colour of one fixed disc.

    Each image has a background drawn from four (night, sky, dusk, foliage) with a vertical
    brightness gradient, ``n_shapes`` distractor rectangles and discs of random colour (any state
    colour included), place and size, and the signal disc (radius ``width / 5``, a third of the way
    down) in the colour of the image's state. Background and distractors are independent of the
    state, so the causal macro-variables are the disc of each colour (state-pure) and everything
    else (uninformative). ``truth["labels"]``, the observational classes: the background's index
    (0-3) for background pixels, ``4 + state`` for the disc, -1 (noise) for distractor pixels;
    ``truth["image"]``: the image index. Points are ``(col, row, red, green, blue)``.
    """

    name = "cafe_shapes"
    Params = CafeShapesParams
    paper = "Weber et al., ICDM 2023 (CAFE DBSCAN), Sec. VII (set-up); the generator is ours"

    @classmethod
    def example(cls) -> Example:
        return Example({"n_per_state": 2, "width": 8, "height": 16}, Dataset(np.zeros((1, 1))))

    def _load(self) -> Dataset:
        p = self.params
        rng = np.random.default_rng(p.seed)
        h, w, m = p.height, p.width, p.n_states
        yy, xx = np.mgrid[0:h, 0:w]
        cy, cx, r = h / 3, (w - 1) / 2, max(1.5, w / 5)
        disc = (yy - cy) ** 2 + (xx - cx) ** 2 <= r * r
        states = np.repeat(np.arange(m), p.n_per_state)
        imgs = np.empty((states.size, h, w, 3))
        truth = np.empty((states.size, h, w), dtype=np.int64)
        for i, s in enumerate(states):
            b = rng.integers(len(BACKGROUNDS))
            truth[i] = b
            bg = np.array(BACKGROUNDS[b], dtype=float)
            grad = 1.0 + rng.uniform(-0.25, 0.25) * (yy / h - 0.5)
            a = bg[None, None, :] * grad[..., None]
            for _ in range(p.n_shapes):
                colour = rng.uniform(0, 255, 3) if rng.random() < 0.7 else np.array(STATE_COLOURS[rng.integers(m)])
                sy, sx = rng.uniform(0, h), rng.uniform(0, w)
                size = rng.uniform(0.1, 0.3) * w
                if rng.random() < 0.5:
                    mask = (np.abs(yy - sy) <= size) & (np.abs(xx - sx) <= size / 2)
                else:
                    mask = (yy - sy) ** 2 + (xx - sx) ** 2 <= size * size
                a[mask & ~disc] = colour
                truth[i][mask & ~disc] = -1
            a[disc] = STATE_COLOURS[s]
            truth[i][disc] = len(BACKGROUNDS) + s
            imgs[i] = np.clip(a + rng.normal(0, p.noise, a.shape), 0, 255)
        X = pixel_points(imgs)
        per = h * w
        return Dataset(
            X, names=("col", "row", "red", "green", "blue"), discrete=False,
            target=np.array(STATE_NAMES)[np.repeat(states, per)],
            truth={"labels": Partition(truth.ravel()), "image": Partition(np.repeat(np.arange(states.size), per))},
            name="cafe_shapes",
        )


class CafeDigitsParams(Params):
    digits: list[int] = Field([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], min_length=2, description="Digits kept (effect states).")
    max_per_state: int | None = Field(None, ge=1, description="At most this many images per digit (a seeded draw).")
    seed: int = Field(0, description="Seed of the draw.")


class CafeDigits(DataSource):
    """scikit-learn's handwritten digits (8 x 8, intensity 0-16) as micro-level pixels.

    One point ``(col, row, intensity)`` per pixel, the image's digit as effect state (1,797
    images: about 115,000 points). ``truth["image"]``: the image index.
    """

    name = "cafe_digits"
    Params = CafeDigitsParams
    paper = "Alpaydin, Kaynak 1998 (UCI optical digits, scikit-learn's load_digits)"

    @classmethod
    def example(cls) -> Example:
        return Example({"digits": [0, 1], "max_per_state": 3}, Dataset(np.zeros((1, 1))))

    def _load(self) -> Dataset:
        from sklearn.datasets import load_digits

        p = self.params
        d = load_digits()
        rng = np.random.default_rng(p.seed)
        keep = []
        for digit in sorted(set(p.digits)):
            idx = np.flatnonzero(d.target == digit)
            if p.max_per_state is not None and idx.size > p.max_per_state:
                idx = np.sort(rng.choice(idx, p.max_per_state, replace=False))
            keep.append(idx)
        keep = np.concatenate(keep)
        X = pixel_points(d.images[keep][..., None])
        return Dataset(
            X, names=("col", "row", "intensity"), discrete=False, target=np.repeat(d.target[keep], 64),
            truth={"image": Partition(np.repeat(np.arange(keep.size), 64))}, name="cafe_digits",
        )
