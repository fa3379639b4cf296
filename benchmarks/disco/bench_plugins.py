"""Benchmark-only plugins of the DISCO grids (loaded by their `plugins:` key).

- ``scored_labels`` (partitioner): returns the data's true labels and rates them with an
  internal score (``disco`` with any backend, or ``dbcv``) inside the step, so the
  step's time and memory are the score's and each score is a method of the report.
- ``stored_score`` (evaluator): the value that step computed (``info["score"]``).
- ``grid_best_ari`` (evaluator): the best ARI (noise = one more cluster) over the
  labellings of a ``disco_auto`` grid (``info["grid"]``): the oracle no selection rule
  can beat.
"""

from typing import Any, Literal

import numpy as np
from pydantic import Field

from framework import Dataset, Evaluation, Evaluator, Params, Partition, Partitioner, hookimpl


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
        from framework import registry

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


@hookimpl
def macrocause_register_plugins(register):
    for cls in (ScoredLabels, StoredScore, GridBestARI):
        register(cls)
