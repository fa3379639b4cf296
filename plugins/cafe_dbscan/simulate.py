"""The synthetic data sets DS1-DS3 of the CAFE DBSCAN paper, as data sources.

Each is 2-D: shapes (discs, rectangles) filled uniformly at random, each
shape one observational class with its own effect-state distribution over
m = 5 states, plus uniform background noise whose states are uniform. The
paper gives only the shapes, the sizes n and that the noise is uniform (its
appendix, Fig. 8); the layouts, distributions and noise counts below are ours,
chosen so that the totals equal the paper's n.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from pydantic import Field

from macrocause.framework import Dataset, DataSource, Params, Partition
from macrocause.framework.roles import Example

# Effect-state distributions (m = 5); one row per class. Rows 0-4 have one
# dominant state, rows 5-6 two. Total variation between two rows is >= 0.35.
DISTRIBUTIONS = np.array(
    [
        [0.60, 0.10, 0.10, 0.10, 0.10],
        [0.10, 0.60, 0.10, 0.10, 0.10],
        [0.10, 0.10, 0.60, 0.10, 0.10],
        [0.10, 0.10, 0.10, 0.60, 0.10],
        [0.10, 0.10, 0.10, 0.10, 0.60],
        [0.40, 0.05, 0.05, 0.10, 0.40],
        [0.05, 0.40, 0.40, 0.10, 0.05],
    ]
)

# Shapes: ("disc", cx, cy, radius) or ("rect", x0, y0, x1, y1); all in the box [0, 10]^2.
LAYOUTS: dict[str, list[tuple]] = {
    # six discs with gaps >= 1.2 between them
    "ds1": [
        ("disc", 2.0, 2.5, 1.0), ("disc", 5.0, 2.5, 1.0), ("disc", 8.0, 2.5, 1.0),
        ("disc", 2.0, 7.0, 1.0), ("disc", 5.0, 7.0, 1.0), ("disc", 8.0, 7.0, 1.0),
    ],
    # seven discs: a touching triangle, a touching pair, two alone
    "ds2": [
        ("disc", 2.0, 2.0, 1.0), ("disc", 4.0, 2.0, 1.0), ("disc", 3.0, 2.0 + np.sqrt(3.0), 1.0),
        ("disc", 7.0, 7.0, 1.0), ("disc", 9.0 - 1e-9, 7.0, 1.0),
        ("disc", 8.0, 2.5, 1.0), ("disc", 2.5, 7.8, 1.0),
    ],
    # three touching discs and four touching rectangles (a 2 x 2 block)
    "ds3": [
        ("disc", 2.0, 2.0, 1.2), ("disc", 4.4, 2.0, 1.2), ("disc", 3.2, 2.0 + 1.2 * np.sqrt(3.0), 1.2),
        ("rect", 5.6, 5.4, 7.6, 7.0), ("rect", 7.6, 5.4, 9.6, 7.0),
        ("rect", 5.6, 7.0, 7.6, 8.6), ("rect", 7.6, 7.0, 9.6, 8.6),
    ],
}
# Distribution row per shape: touching shapes get rows far apart.
ROWS = {"ds1": [0, 1, 2, 3, 4, 5], "ds2": [0, 1, 2, 3, 4, 5, 6], "ds3": [5, 6, 4, 0, 1, 2, 3]}
SIZES = {"ds1": (550, 196), "ds2": (600, 216), "ds3": (1250, 593)}  # (per class, noise)


def _sample_shape(shape: tuple, k: int, rng: np.random.Generator) -> np.ndarray:
    if shape[0] == "disc":
        _, cx, cy, r = shape
        rad = r * np.sqrt(rng.random(k))
        ang = 2 * np.pi * rng.random(k)
        return np.column_stack([cx + rad * np.cos(ang), cy + rad * np.sin(ang)])
    _, x0, y0, x1, y1 = shape
    return np.column_stack([rng.uniform(x0, x1, k), rng.uniform(y0, y1, k)])


def simulate(kind: str, n_per_class: int, n_noise: int, seed: int) -> Dataset:
    """Points, effect states and true labels (noise -1) of DS1/DS2/DS3."""
    rng = np.random.default_rng(seed)
    shapes = LAYOUTS[kind]
    xs, ys, labels = [], [], []
    for c, (shape, row) in enumerate(zip(shapes, ROWS[kind])):
        xs.append(_sample_shape(shape, n_per_class, rng))
        ys.append(rng.choice(5, size=n_per_class, p=DISTRIBUTIONS[row]))
        labels.append(np.full(n_per_class, c))
    xs.append(rng.uniform(0.0, 10.0, size=(n_noise, 2)))
    ys.append(rng.integers(0, 5, n_noise))
    labels.append(np.full(n_noise, -1))
    order = rng.permutation(n_per_class * len(shapes) + n_noise)
    X = np.concatenate(xs)[order]
    y = np.concatenate(ys)[order]
    lab = np.concatenate(labels)[order]
    truth = Partition(lab, info={"distributions": DISTRIBUTIONS[ROWS[kind]]})
    return Dataset(X, names=["x", "y"], target=y, discrete=False, truth={"labels": truth}, name=kind.upper())


class _SimParams(Params):
    n_per_class: int = Field(..., ge=1, description="Points per observational class.")
    n_noise: int = Field(..., ge=0, description="Uniform noise points (states uniform over the 5).")
    constant_density: bool = Field(
        False, description="Scale the plane by sqrt(n / the paper's n), so the density (and the neighbour "
        "count at a given eps) does not grow with n: for timing studies."
    )
    seed: int = Field(0, description="Random seed.")


def _params(kind: str) -> type[Params]:
    per, noise = SIZES[kind]

    class P(_SimParams):
        n_per_class: int = Field(per, ge=1, description="Points per observational class.")
        n_noise: int = Field(noise, ge=0, description="Uniform noise points in [0, 10]^2 (states uniform).")

    P.__name__ = f"{kind.upper()}Params"
    return P


class _CafeSim(DataSource):
    kind: ClassVar[str]
    paper = "Weber, Miklautz, Kumar, Grosse-Wentrup, Plant, ICDM 2023 (CAFE DBSCAN), appendix"

    def _load(self) -> Dataset:
        p = self.params
        ds = simulate(self.kind, p.n_per_class, p.n_noise, p.seed)
        if not p.constant_density:
            return ds
        per, noise = SIZES[self.kind]
        factor = np.sqrt(ds.n_samples / (len(LAYOUTS[self.kind]) * per + noise))
        return Dataset(ds.X * factor, names=ds.names, target=ds.target, discrete=False, truth=ds.truth, name=ds.name)

    @classmethod
    def example(cls) -> Example:
        return Example({"n_per_class": 20, "n_noise": 10}, Dataset(np.zeros((1, 1))))


class CafeDS1(_CafeSim):
    """CAFE DBSCAN DS1: six well-separated discs in uniform noise, 5 effect states (n = 3,496).

    Each disc (radius 1) holds 550 points whose effect states follow one row of
    :data:`DISTRIBUTIONS`; 196 noise points are uniform on [0, 10]^2 with
    uniform states. ``truth["labels"]`` is the true partition (noise -1).

    References
    ----------
    Weber, Miklautz, Kumar, Grosse-Wentrup, Plant. CAFE DBSCAN: a density-based
    clustering algorithm for causal feature learning. ICDM 2023, appendix A.
    """

    name = "cafe_ds1"
    kind = "ds1"
    Params = _params("ds1")


class CafeDS2(_CafeSim):
    """CAFE DBSCAN DS2: seven discs, some touching, in uniform noise, 5 effect states (n = 4,416).

    A touching triangle of discs, a touching pair and two single discs (radius
    1, 600 points each); 216 uniform noise points. Touching discs have
    different effect-state distributions.

    References
    ----------
    Weber et al. CAFE DBSCAN. ICDM 2023, appendix A.
    """

    name = "cafe_ds2"
    kind = "ds2"
    Params = _params("ds2")


class CafeDS3(_CafeSim):
    """CAFE DBSCAN DS3: three touching discs and four touching rectangles in noise (n = 9,343).

    Discs of radius 1.2 in a touching triangle and a 2 x 2 block of 2 x 1.6
    rectangles, 1,250 points per class; 593 uniform noise points.

    References
    ----------
    Weber et al. CAFE DBSCAN. ICDM 2023, appendix A.
    """

    name = "cafe_ds3"
    kind = "ds3"
    Params = _params("ds3")
