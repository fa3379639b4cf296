"""Data for density-based clustering: Gaussian clusters with uniform noise at any n and d.

The labelled density benchmark sets are read by the ``csv`` source
(``labels: label, noise: -1, zscore: true``)."""

from __future__ import annotations

import numpy as np
from pydantic import Field

from macrocause.framework import Dataset, DataSource, Params, Partition


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
