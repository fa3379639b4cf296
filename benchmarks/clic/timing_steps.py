"""Benchmark-only step of the CLIC growth grid: kernel_rank's computation as a partition step.

A grid times partition and search steps, not evaluators; ``kernel_rank_step`` runs what the
``kernel_rank`` evaluator computes (the rank estimate and the pairwise dependence tests, with the
evaluator's defaults; computed afresh at every execution, so a warm-up or a repeat does not hide
it) and returns one cluster. The evaluator rated on it right after finds the statistics cached for
the same data and reports the rank at no extra cost.
"""

from __future__ import annotations

import numpy as np

from macrocause.framework import Dataset, Params, Partition, Partitioner, hookimpl


class KernelRankStepParams(Params):
    pass


class KernelRankStep(Partitioner):
    """kernel_rank's statistics as a pipeline step (one cluster; ``info["rank"]``), for timing."""

    name = "kernel_rank_step"
    scale_invariant = "global"
    axis = "samples"
    Params = KernelRankStepParams
    paper = "Sgouritsa, Janzing, Peters, Schoelkopf, UAI 2013"

    def _partition(self, data: Dataset) -> Partition:
        from macrocause.plugins.clic.evaluators import KernelRank

        rank, vote, _, dependent = KernelRank()._statistics(data.X, fresh=True)  # timed every execution
        info = {"rank": int(rank), "vote_share": float(vote), "pairwise_dependent": bool(dependent)}
        return Partition(np.zeros(data.n_samples, dtype=np.int64), info=info)


@hookimpl
def macrocause_register_plugins(register):
    register(KernelRankStep)
