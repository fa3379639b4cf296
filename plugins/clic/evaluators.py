"""Evaluators of the CLIC plugin: the kernel rank of the data, and the matched squared MMD."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
from pydantic import Field

from framework import Dataset, Evaluation, Evaluator, Params, Partition
from framework.errors import DataValidationError
from framework.memory import MemoryEstimate, budget_bytes

PAPER = "Sgouritsa, Janzing, Peters, Schoelkopf, UAI 2013"


class KernelRankParams(Params):
    n_neighbors: int = Field(10, ge=1, description="Neighbourhood size of the bandwidth rule.")
    low_rank: int = Field(4, ge=1, description="Ranks up to this count as 'low' (paper: below 5).")
    alpha: float = Field(0.01, gt=0, lt=1, description="Level of the pairwise dependence tests.")


class KernelRank(Evaluator):
    """Estimated tensor rank of the kernel embedding of the data's variables, with Theorem 5's reading.

    The ``result`` passed to :meth:`evaluate` is ignored: the data itself is
    rated (pass any partition, e.g. ``Partition(np.zeros(n, int))``).
    ``value`` is the estimated rank (majority vote over the splits of the
    variables). ``metrics``: ``vote_share`` (splits agreeing), ``pairwise_min_p``
    (smallest Bonferroni-corrected HSIC p-value over pairs), ``pairwise_dependent``
    (1 if every pair is dependent at ``alpha``), ``confounder_confidence``: 1.0 when
    d >= 3, all pairs are dependent, the rank is at most ``low_rank`` and at least
    half the splits agree (one finite confounder of that many states is then the
    likely explanation, Theorem 5); 0.5 when the rank is low but a condition is
    weak (d = 2 or a split vote below one half); 0 otherwise (high rank: direct
    links or a many-valued confounder cannot be excluded, or no pairwise dependence).
    :meth:`reading` gives the same as a sentence.

    References
    ----------
    Sgouritsa, Janzing, Peters, Schoelkopf. Identifying finite mixtures of
    nonparametric product distributions and causal inference of confounders.
    UAI 2013, Sections 2.3, 5 and 6.
    """

    name = "kernel_rank"
    scale_invariant = "global"
    Params = KernelRankParams
    paper = PAPER
    accepts = ("partition", "graph")
    higher_is_better = False

    @classmethod
    def example(cls):
        from framework.roles import Example

        from .simulate import product_mixture

        X, z = product_mixture(2, 3, 60, 0)
        return Example({}, Dataset(X, discrete=False), result=Partition(z), truth=Partition(z))

    def check_data(self, data: Dataset) -> None:
        if data.n_variables < 2:
            raise DataValidationError(
                f"kernel_rank needs at least 2 variables (the rank of their joint embedding), "
                f"got {data.n_variables}."
            )
        data.check(self.name, min_samples=max(12, self.params.n_neighbors + 2))

    def memory_estimate(self, data: Dataset) -> MemoryEstimate:
        """About 64 n^2 bytes (dense n x n Gram matrices; measured at n = 1000 and 2000)."""
        n = data.n_samples
        n_max = int((0.5 * (budget_bytes() or 64.0 * n * n) / 64.0) ** 0.5)
        return MemoryEstimate(64.0 * n * n, "about 64 n^2 bytes",
                              f"subsample the data (e.g. n <= {n_max:,} fits half the budget)")

    def _metrics(self, data: Dataset) -> dict[str, float]:
        from .hsic import hsic_test
        from .rank import estimate_rank

        p = self.params
        X = data.X
        est = estimate_rank(X, p.n_neighbors)
        d = X.shape[1]
        pairs = list(itertools.combinations(range(d), 2))
        sub = X[np.linspace(0, len(X) - 1, min(len(X), 1000)).astype(int)]
        min_p = min(hsic_test(sub[:, i], sub[:, j]).pvalue for i, j in pairs) * len(pairs)
        dependent = min(1.0, min_p) < p.alpha if d == 2 else all(
            hsic_test(sub[:, i], sub[:, j]).pvalue * len(pairs) < p.alpha for i, j in pairs
        )
        low = est.rank <= p.low_rank
        if low and dependent and d >= 3 and est.vote_share >= 0.5:
            conf = 1.0
        elif low and dependent:
            conf = 0.5
        else:
            conf = 0.0
        return {
            "kernel_rank": float(est.rank), "vote_share": float(est.vote_share),
            "pairwise_min_p": float(min(1.0, min_p)), "pairwise_dependent": float(dependent),
            "confounder_confidence": conf,
        }

    def _evaluate(self, data: Dataset, result: Any, truth: Any) -> Evaluation:
        m = self._metrics(data)
        return Evaluation(m["kernel_rank"], m)

    def reading(self, data: Dataset | Any) -> str:
        """Theorem 5's reading of the estimated rank, as one sentence."""
        ds = self._check_data(data)
        m = self._metrics(ds)
        r = int(m["kernel_rank"])
        head = f"Estimated rank {r} ({m['vote_share']:.0%} of the splits agree)"
        if m["pairwise_dependent"] < 1:
            return head + "; the variables are not all pairwise dependent, so Theorem 5 does not apply."
        if m["confounder_confidence"] == 1.0:
            return head + (f"; with strong pairwise dependence this suggests one hidden confounder with {r} "
                           "states explaining all dependences (high confidence).")
        if m["confounder_confidence"] == 0.5:
            return head + (f"; a low rank suggests a finite confounder with {r} states, with moderate "
                           "confidence (d = 2 or the splits disagree).")
        return head + ("; a high rank: direct causal links or a confounder with many values cannot be "
                       "excluded (Theorem 5 gives no confident reading).")


class MMDMatchingParams(Params):
    max_points: int = Field(2000, ge=10, description="Clusters larger than this are subsampled evenly.")


def _gram(A: np.ndarray, B: np.ndarray, sig: np.ndarray) -> np.ndarray:
    D = np.zeros((len(A), len(B)))
    for j in range(A.shape[1]):
        diff = A[:, j][:, None] - B[:, j][None, :]
        D += diff * diff / (2.0 * sig[j] ** 2)
    return np.exp(-D)


def squared_mmd(A: np.ndarray, B: np.ndarray, sig: np.ndarray) -> float:
    """Biased squared MMD between samples A and B with a product RBF kernel (bandwidths ``sig``)."""
    return float(_gram(A, A, sig).mean() + _gram(B, B, sig).mean() - 2.0 * _gram(A, B, sig).mean())


class MMDMatching(Evaluator):
    """Squared MMD between each output cluster and its matched ground-truth component, minimised over matchings.

    RBF product kernel with per-variable median-rule bandwidths on the whole
    data. The matching minimises the sum of squared MMDs: all permutations up
    to 7 clusters, the Hungarian algorithm beyond; with unequal numbers of
    clusters the extra ones stay unmatched. Noise (-1) is ignored. ``value`` is
    the mean over matched pairs; ``metrics`` add ``mmd_sum``, ``mmd_max`` and
    ``mmd_<k>`` per matched output cluster k.

    References
    ----------
    Gretton, Borgwardt, Rasch, Schoelkopf, Smola. A kernel two-sample test. JMLR 2012.
    Sgouritsa et al. UAI 2013, Sec. 6.1.2.
    """

    name = "mmd_matching"
    scale_invariant = "global"
    Params = MMDMatchingParams
    paper = PAPER
    needs_truth = True
    higher_is_better = False

    def _evaluate(self, data: Dataset, result: Any, truth: Any) -> Evaluation:
        from .hsic import median_bandwidth

        if not isinstance(truth, Partition) or truth.axis != "samples" or result.axis != "samples":
            raise DataValidationError("mmd_matching compares two sample partitions (result and truth).")
        X = data.X
        sig = np.array([median_bandwidth(c) for c in X.T])
        cap = self.params.max_points

        def pts(idx):
            if idx.size > cap:
                idx = idx[np.linspace(0, idx.size - 1, cap).astype(int)]
            return X[idx]

        out = [pts(i) for i in result.clusters]
        tru = [pts(i) for i in truth.clusters]
        if not out or not tru:
            raise DataValidationError("mmd_matching: the result or the truth has no cluster.")
        C = np.array([[squared_mmd(a, b, sig) for b in tru] for a in out])
        k = min(C.shape)
        if max(C.shape) <= 7:
            best, pairs = np.inf, None
            if C.shape[0] <= C.shape[1]:
                for perm in itertools.permutations(range(C.shape[1]), C.shape[0]):
                    s = C[np.arange(C.shape[0]), perm].sum()
                    if s < best:
                        best, pairs = s, list(zip(range(C.shape[0]), perm))
            else:
                for perm in itertools.permutations(range(C.shape[0]), C.shape[1]):
                    s = C[perm, np.arange(C.shape[1])].sum()
                    if s < best:
                        best, pairs = s, list(zip(perm, range(C.shape[1])))
        else:
            from scipy.optimize import linear_sum_assignment

            r, c = linear_sum_assignment(C)
            pairs = list(zip(r, c))
        vals = {f"mmd_{int(result.cluster_ids[i])}": float(C[i, j]) for i, j in pairs}
        v = np.array(list(vals.values()))
        metrics = {"mmd_sum": float(v.sum()), "mmd_max": float(v.max()), **vals}
        return Evaluation(float(v.sum() / k), metrics)
