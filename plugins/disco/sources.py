"""Data for density-based clustering: Gaussian clusters with uniform noise at any n and d,
and a labelled CSV (the density benchmark sets) z-scored and subsampled by seed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from pydantic import Field

from framework import Dataset, DataSource, Params, Partition
from framework.errors import DataValidationError
from framework.roles import Example


class DensityBlobsParams(Params):
    n_samples: int = Field(10_000, ge=2, description="Points in all, noise included.")
    n_features: int = Field(2, ge=1, description="Dimension.")
    n_clusters: int = Field(10, ge=1, description="Gaussian clusters (unit standard deviation).")
    noise_fraction: float = Field(0.05, ge=0, lt=1, description="Share of uniform background points (label -1).")
    spread: float = Field(20.0, gt=0, description="Cluster centres uniform in [0, spread]^d; noise in the same box.")
    seed: int = Field(0, description="Random seed.")


class DensityBlobs(DataSource):
    """Gaussian clusters plus uniform background noise, at any size and dimension.

    ``truth["labels"]`` holds the cluster of each point, -1 for the noise. With
    ``n_features = 2`` it is the 2-D scaling set of the DISCO benchmark; with 100
    features, a DENSIRED-style high-dimensional set (clusters of one density in a
    box of noise).
    """

    name = "density_blobs"
    Params = DensityBlobsParams

    def _load(self) -> Dataset:
        p = self.params
        rng = np.random.default_rng(p.seed)
        centres = rng.uniform(0, p.spread, (p.n_clusters, p.n_features))
        n_noise = int(round(p.n_samples * p.noise_fraction))
        lab = rng.integers(0, p.n_clusters, p.n_samples - n_noise)
        X = np.concatenate([centres[lab] + rng.normal(size=(lab.size, p.n_features)),
                            rng.uniform(0, p.spread, (n_noise, p.n_features))])
        y = np.concatenate([lab, np.full(n_noise, -1)])
        return Dataset(X, discrete=False, truth={"labels": Partition(y)},
                       name=f"density_blobs(n={p.n_samples}, d={p.n_features})")


class LabelledCSVParams(Params):
    path: str = Field(description="CSV with a header row; one column holds the labels (-1 = noise).")
    label: str = Field("label", description="The label column (taken out of the features).")
    zscore: bool = Field(True, description="Standardise every feature (mean 0, sd 1; constant columns kept).")
    max_samples: int | None = Field(None, ge=2, description="Draw this many rows without replacement (seeded).")
    seed: int = Field(0, description="Seed of the draw.")


class LabelledCSV(DataSource):
    """A labelled clustering set from a CSV: features, and ``truth["labels"]`` from one column.

    A relative ``path`` is taken from the working directory, then from the folder
    in ``MACROCAUSE_DATA`` if set. Rows are drawn with
    ``numpy.random.default_rng(seed).choice(n, max_samples, replace=False)`` (kept in
    file order) when the file has more.
    """

    name = "labelled_csv"
    Params = LabelledCSVParams

    @classmethod
    def example(cls) -> Example:
        import atexit
        import shutil
        import tempfile

        folder = Path(tempfile.mkdtemp(prefix="macrocause_csv_"))  # private, unpredictable name
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        f = folder / "example.csv"
        rng = np.random.default_rng(0)
        rows = ["x,y,label"] + [f"{a:.4f},{b:.4f},{c}" for (a, b), c in zip(rng.random((12, 2)), [0] * 6 + [1] * 5 + [-1])]
        f.write_text("\n".join(rows) + "\n")
        return Example({"path": str(f)}, Dataset(np.zeros((1, 1))))

    def _load(self) -> Dataset:
        import os

        import pandas as pd

        p = self.params
        f = Path(p.path)
        if not f.is_file() and not f.is_absolute() and os.environ.get("MACROCAUSE_DATA"):
            f = Path(os.environ["MACROCAUSE_DATA"]) / f
        if not f.is_file():
            raise DataValidationError(f"labelled_csv: file not found: {p.path} (set MACROCAUSE_DATA to its folder).")
        df = pd.read_csv(f)
        if p.label not in df.columns:
            raise DataValidationError(f"labelled_csv: {f.name} has no column {p.label!r}; it has {list(df.columns)}.")
        y = df.pop(p.label).to_numpy().astype(np.int64)
        X = df.to_numpy(float)
        if p.max_samples is not None and len(y) > p.max_samples:
            keep = np.sort(np.random.default_rng(p.seed).choice(len(y), p.max_samples, replace=False))
            X, y = X[keep], y[keep]
        if p.zscore:
            sd = X.std(axis=0)
            X = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
        return Dataset(X, names=list(df.columns), discrete=False, truth={"labels": Partition(y)}, name=f.stem)
