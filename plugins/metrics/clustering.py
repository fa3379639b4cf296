"""Clustering metrics as evaluators: NMI, ARI, clustering accuracy (external) and silhouette (internal)."""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field

from macrocause.framework import Dataset, Evaluation, Evaluator, Metric, Params, Partition
from macrocause.framework.errors import DataValidationError

Noise = Literal["cluster", "singletons", "exclude"]


class ExternalParams(Params):
    noise: Noise = Field(
        "cluster",
        description="How result items labelled -1 count: as one more cluster ('cluster'), each as "
        "its own cluster ('singletons'), or left out of the comparison ('exclude').",
    )


def _labels(result: Partition, truth: Partition, noise: str) -> tuple[np.ndarray, np.ndarray]:
    """Result and truth labels after the noise rule (truth noise is always one more class)."""
    r = result.labels.copy()
    t = truth.labels.copy()
    if noise == "exclude":
        keep = r != -1
        return r[keep], t[keep]
    if noise == "singletons":
        m = r == -1
        r[m] = r.max(initial=-1) + 1 + np.arange(int(m.sum()))
    return r, t


class _External(Evaluator):
    accepts = ("partition",)
    needs_truth = True
    Params = ExternalParams

    def _pair(self, result: Partition, truth) -> tuple[np.ndarray, np.ndarray, dict[str, float]]:
        if not isinstance(truth, Partition):
            raise DataValidationError(
                f"{self.name} compares with a true Partition, got {type(truth).__name__}."
            )
        r, t = _labels(result, truth, self.params.noise)
        extra = {"noise_fraction": float(np.mean(result.labels == -1))}
        return r, t, extra


class NMI(_External):
    """Normalized mutual information between a partition and the true one (arithmetic mean).

    ``NMI = I(R; T) / ((H(R) + H(T)) / 2)``, in [0, 1]; 1 for the same grouping.
    Noise labels follow the ``noise`` parameter. Two single-cluster partitions score 1.

    References
    ----------
    Vinh, Epps, Bailey. Information theoretic measures for clusterings comparison.
    JMLR 11, 2010.
    """

    name = "nmi"
    declares = {"nmi": Metric.higher(0, 1), "noise_fraction": Metric.descriptive(0, 1)}
    scale_invariant = "column"
    paper = "Vinh, Epps, Bailey, JMLR 2010"

    def _evaluate(self, data: Dataset, result: Partition, truth) -> Evaluation:
        from sklearn.metrics import normalized_mutual_info_score

        r, t, extra = self._pair(result, truth)
        value = float(normalized_mutual_info_score(t, r, average_method="arithmetic")) if r.size else 0.0
        return Evaluation(value, extra)


class ARI(_External):
    """Adjusted Rand index between a partition and the true one (Hubert-Arabie).

    1 for the same grouping, about 0 for a random one, can be negative.
    Noise labels follow the ``noise`` parameter.

    References
    ----------
    Hubert, Arabie. Comparing partitions. J. Classification 2, 1985.
    """

    name = "ari"
    declares = {"ari": Metric.higher(-0.5, 1), "noise_fraction": Metric.descriptive(0, 1)}
    scale_invariant = "column"
    paper = "Hubert & Arabie, J. Classification 1985"

    def _evaluate(self, data: Dataset, result: Partition, truth) -> Evaluation:
        from sklearn.metrics import adjusted_rand_score

        r, t, extra = self._pair(result, truth)
        value = float(adjusted_rand_score(t, r)) if r.size else 0.0
        return Evaluation(value, extra)


def matched_accuracy(result: np.ndarray, truth: np.ndarray) -> float:
    """Fraction of items whose cluster maps to their class under the best one-to-one map.

    The map maximises the matched count (Hungarian algorithm on the contingency
    table); clusters or classes left without a partner count as wrong.
    """
    from scipy.optimize import linear_sum_assignment

    if result.size == 0:
        return 0.0
    _, r = np.unique(result, return_inverse=True)
    _, t = np.unique(truth, return_inverse=True)
    C = np.zeros((r.max() + 1, t.max() + 1), dtype=np.int64)
    np.add.at(C, (r, t), 1)
    rows, cols = linear_sum_assignment(C, maximize=True)
    return float(C[rows, cols].sum() / result.size)


class ClusteringAccuracy(_External):
    """Clustering accuracy: the share of items right under the best cluster-to-class map (Hungarian).

    Each cluster is mapped to at most one class and vice versa, maximising the
    number of items whose cluster maps to their class (Kuhn-Munkres on the
    contingency table). Noise labels follow the ``noise`` parameter; with
    ``"cluster"`` the noise group can be matched like any cluster.

    References
    ----------
    Kuhn. The Hungarian method for the assignment problem. Naval Res. Logist. Q. 2, 1955.
    """

    name = "clustering_accuracy"
    declares = {"clustering_accuracy": Metric.higher(0, 1), "noise_fraction": Metric.descriptive(0, 1)}
    scale_invariant = "column"
    paper = "Kuhn 1955 (Hungarian method)"

    def _evaluate(self, data: Dataset, result: Partition, truth) -> Evaluation:
        r, t, extra = self._pair(result, truth)
        return Evaluation(matched_accuracy(r, t), extra)


class SilhouetteParams(Params):
    metric: Literal["euclidean", "manhattan", "cosine"] = Field("euclidean", description="Distance.")
    max_samples: int = Field(
        5000, ge=2, description="Above this many (non-noise) samples, a random subsample of this size is scored."
    )
    seed: int = Field(0, description="Random seed of the subsample.")


class Silhouette(Evaluator):
    """Mean silhouette coefficient of a sample partition (internal: no ground truth), in [-1, 1].

    Noise points (label -1) are left out: the score rates the clusters found,
    and ``metrics["noise_fraction"]`` reports how many points were dropped. With
    fewer than two clusters (or every remaining point its own cluster) the
    silhouette is undefined and the value is NaN. Above ``max_samples`` points a
    seeded random subsample is scored (the coefficient costs O(n^2)).

    References
    ----------
    Rousseeuw. Silhouettes: a graphical aid to the interpretation and validation
    of cluster analysis. J. Comput. Appl. Math. 20, 1987.
    """

    name = "silhouette"
    declares = {"silhouette": Metric.higher(-1, 1), "noise_fraction": Metric.descriptive(0, 1)}
    scale_invariant = "global"
    accepts = ("partition",)
    Params = SilhouetteParams
    paper = "Rousseeuw, J. Comput. Appl. Math. 1987"

    def _evaluate(self, data: Dataset, result: Partition, truth) -> Evaluation:
        from sklearn.metrics import silhouette_score

        if result.axis != "samples":
            raise DataValidationError(f"{self.name} rates a partition of samples, got one of {result.axis}.")
        keep = ~result.noise
        X, labels = data.X[keep], result.labels[keep]
        extra = {"noise_fraction": float(np.mean(~keep))}
        if X.shape[0] > self.params.max_samples:
            rng = np.random.default_rng(self.params.seed)
            idx = np.sort(rng.choice(X.shape[0], self.params.max_samples, replace=False))
            X, labels = X[idx], labels[idx]
        k = np.unique(labels).size
        if k < 2 or k >= labels.size:
            return Evaluation(float("nan"), extra)
        return Evaluation(float(silhouette_score(X, labels, metric=self.params.metric)), extra)
