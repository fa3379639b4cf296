"""Sample-clustering baselines from scikit-learn, as partitioners."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from framework import Dataset, Params, Partition, Partitioner


class DBSCANParams(Params):
    eps: float = Field(0.5, gt=0, description="Radius of the epsilon-neighbourhood.")
    min_samples: int = Field(5, ge=1, description="Points (the point included) that make a core point.")
    metric: Literal["euclidean", "manhattan", "chebyshev"] = Field("euclidean", description="Distance.")


class DBSCAN(Partitioner):
    """DBSCAN density clustering (scikit-learn); noise is -1.

    References
    ----------
    Ester, Kriegel, Sander, Xu. A density-based algorithm for discovering
    clusters in large spatial databases with noise. KDD 1996.
    """

    name = "dbscan"
    axis = "samples"
    Params = DBSCANParams
    paper = "Ester et al., KDD 1996"

    def _partition(self, data: Dataset) -> Partition:
        from sklearn.cluster import DBSCAN as SkDBSCAN

        p = self.params
        labels = SkDBSCAN(eps=p.eps, min_samples=p.min_samples, metric=p.metric).fit_predict(data.X)
        return Partition(labels, axis="samples")
