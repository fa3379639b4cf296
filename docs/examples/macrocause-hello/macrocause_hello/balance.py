"""How even a partition of the samples is: the evaluator of the example plugin."""

import numpy as np

from macrocause import Dataset, Evaluation, Evaluator, Metric, Partition


class BinBalance(Evaluator):
    """Smallest group over largest group of a partition of the samples (1: all groups equal)."""

    name = "bin_balance"
    accepts = ("partition",)
    declares = {
        "bin_balance": Metric.higher(0, 1),
        "size_cv": Metric.lower(0),            # a sub-metric where lower is better
        "n_groups": Metric.descriptive(1),     # describes the result, rates nothing
    }

    def _evaluate(self, data: Dataset, result: Partition, truth) -> Evaluation:
        sizes = np.bincount(result.labels[result.labels >= 0])
        sizes = sizes[sizes > 0]
        return Evaluation(float(sizes.min() / sizes.max()), {
            "size_cv": float(sizes.std() / sizes.mean()), "n_groups": float(sizes.size)})
