"""A baseline partitioner of variables: hierarchical clustering on dependence."""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field, model_validator

from macrocause.framework import Dataset, Params, Partition, Partitioner
from macrocause.framework.errors import DataValidationError
from macrocause.framework.memory import MemoryEstimate


class CorrelationClustersParams(Params):
    n_clusters: int | None = Field(
        None, ge=1, description="Number of variable clusters; None = cut at distance_threshold."
    )
    distance_threshold: float = Field(
        0.5, gt=0, le=1,
        description="Cut height of the dendrogram when n_clusters is None (distances are in [0, 1]).",
    )
    measure: Literal["correlation", "mutual_information"] = Field(
        "correlation",
        description="Dependence: |Pearson correlation| or normalized mutual information.",
    )
    linkage: Literal["average", "complete", "single"] = Field("average", description="Linkage rule.")
    n_bins: int = Field(
        8, ge=2, description="Quantile bins of a continuous variable for mutual information."
    )

    @model_validator(mode="after")
    def _one_stopping_rule(self):
        if self.n_clusters is not None and "distance_threshold" in self.model_fields_set:
            raise ValueError("give n_clusters or distance_threshold, not both")
        return self


def _codes(x: np.ndarray, discrete: bool, n_bins: int) -> np.ndarray:
    if discrete:
        return np.unique(x, return_inverse=True)[1]
    edges = np.quantile(x, np.linspace(0, 1, n_bins + 1)[1:-1])
    return np.searchsorted(edges, x, side="right")


def dependence_distances(data: Dataset, measure: str, n_bins: int = 8) -> np.ndarray:
    """Distances ``1 - |corr|`` or ``1 - NMI`` between all pairs of variables (d x d, zero diagonal)."""
    d = data.n_variables
    if measure == "correlation":
        D = 1.0 - np.abs(np.corrcoef(data.X, rowvar=False).reshape(d, d))
    else:
        from sklearn.metrics import normalized_mutual_info_score

        codes = [_codes(data.X[:, j], data.discrete[j], n_bins) for j in range(d)]
        D = np.zeros((d, d))
        for i in range(d):
            for j in range(i + 1, d):
                D[i, j] = D[j, i] = 1.0 - normalized_mutual_info_score(codes[i], codes[j])
    D = np.clip(D, 0.0, 1.0)
    np.fill_diagonal(D, 0.0)
    return D


class CorrelationClusters(Partitioner):
    """Hierarchical clustering of variables on |correlation| or mutual information.

    The distance between two variables is ``1 - |r|`` (Pearson) or ``1 - NMI``
    (normalized mutual information of the discrete codes; a continuous variable
    is cut into ``n_bins`` quantile bins). The dendrogram (scipy, ``linkage``
    rule) is cut into ``n_clusters`` clusters, or else at ``distance_threshold``.
    ``info`` holds ``"distances"`` (d x d) and ``"linkage"`` (scipy's matrix).

    References
    ----------
    Ward-style agglomerative clustering of variables, e.g. Chavent, Kuentz-Simonet,
    Liquet, Saracco. ClustOfVar: an R package for the clustering of variables.
    J. Stat. Softw. 50(13), 2012.
    """

    name = "correlation_clusters"
    scale_invariant = "column"
    axis = "variables"
    Params = CorrelationClustersParams
    paper = "Chavent et al., J. Stat. Softw. 2012 (clustering of variables)"

    def memory_estimate(self, data: Dataset) -> MemoryEstimate:
        """About 20 d^2 bytes: the d x d dependence and distance matrices (measured at d = 400, 800)."""
        d = data.n_variables
        return MemoryEstimate(20.0 * d * d, "about 20 d^2 bytes", "cluster a subset of the variables")

    def check_data(self, data: Dataset) -> None:
        data.check(self.name, min_samples=3, min_variables=2, reject_constant=True)
        k = self.params.n_clusters
        if k is not None and k > data.n_variables:
            raise DataValidationError(
                f"{self.name}: n_clusters={k} exceeds the {data.n_variables} variables of the data."
            )

    def _partition(self, data: Dataset) -> Partition:
        from scipy.cluster.hierarchy import fcluster, linkage
        from scipy.spatial.distance import squareform

        p = self.params
        D = dependence_distances(data, p.measure, p.n_bins)
        Z = linkage(squareform(D, checks=False), method=p.linkage)
        if p.n_clusters is not None:
            labels = fcluster(Z, t=p.n_clusters, criterion="maxclust")
        else:
            labels = fcluster(Z, t=p.distance_threshold, criterion="distance")
        part = Partition(labels - 1, axis="variables", info={"distances": D, "linkage": Z}, names=data.names)
        return part.relabeled()
