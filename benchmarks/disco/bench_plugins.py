"""Benchmark-only plugins of the DISCO grids (loaded by their `plugins:` key).

- ``scored_labels`` (partitioner): returns the data's true labels and rates them with an
  internal score (``disco`` with any backend, or ``dbcv``) inside the step, so the
  step's time and memory are the score's and each score is a method of the report.
- ``stored_score`` (evaluator): the value that step computed (``info["score"]``).
- ``grid_best_ari`` (evaluator): the best ARI (noise = one more cluster) over the
  labellings of a ``disco_auto`` grid (``info["grid"]``): the oracle no selection rule
  can beat.

The labellings of the CVI grid (``cvi.yaml``), each rated by DISCO, DBCV, the silhouette
and ARI:

- ``true_labels`` (partitioner): the data's true labels.
- ``random_labels`` (partitioner): uniform random labels over as many classes as the truth
  has, one draw per ``draw`` (and seed).
- ``dbscan_kdist`` (partitioner): ``dbscan`` with eps at a quantile of the points'
  k-distance (k = ``min_samples``, the point itself counted).
- ``k_from_truth`` (partitioner): ``kmeans``, ``agglomerative`` or ``spectral`` with
  ``n_clusters = max(2, floor(k_factor * k*))``, k* the number of true classes (noise
  left out), so one grid entry serves data sets with different k*.
"""

from typing import Any, Literal

import numpy as np
from pydantic import Field

from macrocause.framework import (
    Dataset,
    Evaluation,
    Evaluator,
    Params,
    Partition,
    Partitioner,
    hookimpl,
)
from macrocause.framework.errors import DataValidationError


class ScoredLabelsParams(Params):
    score: Literal["disco", "dbcv"] = Field("disco", description="Internal score computed on the true labels.")
    backend: Literal["auto", "tree", "blocked", "dense"] = Field("auto", description="DISCO's backend.")
    min_points: int = Field(5, ge=1, description="DISCO's min_points.")


class ScoredLabels(Partitioner):
    """The true labels, rated inside the step by an internal score (benchmark only)."""

    name = "scored_labels"
    axis = "samples"
    Params = ScoredLabelsParams

    def _partition(self, data: Dataset) -> Partition:
        from macrocause.framework import registry

        truth = data.truth["labels"]
        p = self.params
        params = {"backend": p.backend, "min_points": p.min_points} if p.score == "disco" else {}
        value = registry.create(p.score, **params).evaluate(data, truth).value
        return Partition(truth.labels, axis="samples", info={"score": float(value)})


class StoredScoreParams(Params):
    pass


class StoredScore(Evaluator):
    """The internal score a ``scored_labels`` step computed (benchmark only)."""

    name = "stored_score"
    Params = StoredScoreParams
    higher_is_better = True
    accepts = ("partition",)

    def _evaluate(self, data: Dataset, result: Any, truth: Any) -> Evaluation:
        return Evaluation(float(result.info["score"]))


class GridBestARIParams(Params):
    pass


class GridBestARI(Evaluator):
    """Best ARI against the truth over a ``disco_auto`` grid's labellings (benchmark only)."""

    name = "grid_best_ari"
    Params = GridBestARIParams
    higher_is_better = True
    accepts = ("partition",)

    def _evaluate(self, data: Dataset, result: Any, truth: Any) -> Evaluation:
        from sklearn.metrics import adjusted_rand_score

        aris = [adjusted_rand_score(truth.labels, r["labels"]) for r in result.info["grid"] if r["labels"] is not None]
        return Evaluation(float(np.max(aris)))


def n_classes(data: Dataset) -> int:
    """The number of true classes of *data* (``truth["labels"]``, noise left out)."""
    labels = data.truth["labels"].labels
    return int(np.unique(labels[labels >= 0]).size)


class TrueLabelsParams(Params):
    pass


class TrueLabels(Partitioner):
    """The data's true labels as a labelling (benchmark only)."""

    name = "true_labels"
    axis = "samples"
    Params = TrueLabelsParams

    def _partition(self, data: Dataset) -> Partition:
        return Partition(data.truth["labels"].labels, axis="samples")


class RandomLabelsParams(Params):
    draw: int = Field(0, ge=0, description="Which draw (several labellings per seed).")
    seed: int = Field(0, description="Random seed.")


class RandomLabels(Partitioner):
    """Uniform random labels over as many classes as the truth has (benchmark only).

    ``numpy.random.default_rng([seed, draw]).integers(0, k*, n)``.
    """

    name = "random_labels"
    axis = "samples"
    Params = RandomLabelsParams

    def _partition(self, data: Dataset) -> Partition:
        rng = np.random.default_rng([self.params.seed, self.params.draw])
        return Partition(rng.integers(0, max(1, n_classes(data)), data.shape[0]), axis="samples")


class DBSCANKDistParams(Params):
    quantile: float = Field(0.5, gt=0, le=1, description="Quantile of the k-distance taken as eps.")
    min_samples: int = Field(5, ge=1, description="DBSCAN's min_samples, also the k of the k-distance.")


class DBSCANKDist(Partitioner):
    """``dbscan`` with eps at a quantile of the k-distance (benchmark only); ``info["eps"]``."""

    name = "dbscan_kdist"
    axis = "samples"
    Params = DBSCANKDistParams

    def _partition(self, data: Dataset) -> Partition:
        from macrocause.framework import registry
        from macrocause.framework.numeric import k_distance

        p = self.params
        eps = float(np.quantile(k_distance(data.X, p.min_samples), p.quantile))
        if eps <= 0:
            raise DataValidationError(f"{self.name}: the k-distance quantile {p.quantile} is 0 (duplicate points).")
        part = registry.create("dbscan", eps=eps, min_samples=p.min_samples).partition(data)
        return Partition(part.labels, axis="samples", info={"eps": eps})


class KFromTruthParams(Params):
    partitioner: Literal["kmeans", "agglomerative", "spectral"] = Field(
        "kmeans", description="Registered partitioner with an ``n_clusters`` parameter.")
    k_factor: float = Field(1.0, gt=0, description="n_clusters = max(2, floor(k_factor * true classes)).")
    params: dict[str, Any] = Field(default_factory=dict, description="The partitioner's other parameters.")
    seed: int = Field(0, description="Passed to the partitioner when it takes a seed.")


class KFromTruth(Partitioner):
    """A clusterer asked for a multiple of the true number of classes (benchmark only).

    ``n_clusters = max(2, floor(k_factor * k*))``; a ``k_factor`` other than 1 that lands
    on k* itself is refused (it would repeat the labelling of ``k_factor = 1``, as
    ``k_factor = 0.5`` does with two classes). ``info["n_clusters"]`` is the k used.
    """

    name = "k_from_truth"
    axis = "samples"
    Params = KFromTruthParams

    def _partition(self, data: Dataset) -> Partition:
        from macrocause.framework import registry

        p = self.params
        k_true = n_classes(data)
        k = max(2, int(np.floor(p.k_factor * k_true)))
        if p.k_factor != 1 and k == k_true:
            raise DataValidationError(f"{self.name}: k_factor {p.k_factor} gives k = {k}, the true number of "
                                      "classes: the labelling of k_factor 1 again.")
        params = {**p.params, "n_clusters": k}
        if registry.get(p.partitioner).is_stochastic():
            params["seed"] = p.seed
        part = registry.create(p.partitioner, **params).partition(data)
        return Partition(part.labels, axis="samples", info={"n_clusters": k})


@hookimpl
def macrocause_register_plugins(register):
    for cls in (ScoredLabels, StoredScore, GridBestARI, TrueLabels, RandomLabels, DBSCANKDist, KFromTruth):
        register(cls)
