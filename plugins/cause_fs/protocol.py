"""The evaluation protocol of CAUSE-FS (Section 6.1): k-means on the selected features."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from pydantic import Field

from macrocause.framework import Dataset, Evaluation, Evaluator, Metric, Params, Partition
from macrocause.framework.errors import DataValidationError
from macrocause.framework.roles import Example


def clustering_acc(y: np.ndarray, p: np.ndarray) -> float:
    """Clustering accuracy: the best one-to-one matching of clusters to classes (Hungarian)."""
    from scipy.optimize import linear_sum_assignment

    _, yi = np.unique(y, return_inverse=True)
    _, pi = np.unique(p, return_inverse=True)
    C = np.zeros((pi.max() + 1, yi.max() + 1))
    np.add.at(C, (pi, yi), 1)
    r, c = linear_sum_assignment(-C)
    return float(C[r, c].sum() / y.size)


def kmeans(X: np.ndarray, k: int, seed: int, greedy: bool = False) -> np.ndarray:
    """Labels of one k-means run (Lloyd) from a k-means++ seeding, plain or greedy."""
    from sklearn.cluster import KMeans, kmeans_plusplus

    if greedy:
        return KMeans(k, n_init=1, random_state=seed).fit_predict(X)
    centres, _ = kmeans_plusplus(X, k, random_state=seed, n_local_trials=1)
    return KMeans(k, init=centres, n_init=1).fit_predict(X)


class FSProtocolParams(Params):
    n_features: tuple[int, ...] = Field((20, 40, 60, 80, 100), description="Numbers of selected features to try.")
    n_runs: int = Field(50, ge=1, description="k-means runs per number of features.")
    n_clusters: int | None = Field(None, ge=2, description="k of k-means; None = number of true classes.")
    minmax: bool = Field(True, description="Scale each feature to [0, 1] first (the authors' mapminmax).")
    kmeans_init: Literal["plain", "greedy"] = Field(
        "plain", description="k-means++ seeding: plain (one candidate per centre, as MATLAB's kmeans used "
        "by the authors) or greedy (scikit-learn's default, 2 + log k candidates).")
    seed: int = Field(0, description="Seed of the first k-means run (run r uses seed + r).")


class FSProtocol(Evaluator):
    """Feature-selection protocol of CAUSE-FS: k-means on the top features, mean ACC and NMI.

    *result* is a variable partition whose ``info["selected"]`` ranks features (best
    first); *truth* a partition of the samples (or ``data.truth["labels"]``). For each
    count c in ``n_features`` that the selection reaches (c at most the number ranked)
    k-means (k-means++ seeding, one init; plain seeding by default, as MATLAB's ``kmeans`` in
    the authors' script) runs ``n_runs`` times on the c best features; larger counts are not
    measured and not reported. ``value`` = mean ACC at the first count; ``metrics``:
    ``acc@c``, ``acc_std@c``, ``nmi@c``, ``nmi_std@c`` per measured count, ``acc_mean``,
    ``nmi_mean`` over the measured counts, ``n_counts`` (how many) and ``count_max`` (the
    largest).

    References
    ----------
    Shen, Huang, Ma, Li. Causally-Aware Unsupervised Feature Selection Learning, 2024, Sec. 6.1.
    """

    name = "fs_protocol"
    declares = {"fs_protocol": Metric.higher(0, 1), "acc@*": Metric.higher(0, 1), "nmi@*": Metric.higher(0, 1),
                "acc_mean": Metric.higher(0, 1), "nmi_mean": Metric.higher(0, 1),
                "acc_std@*": Metric.descriptive(0), "nmi_std@*": Metric.descriptive(0),
                "n_counts": Metric.descriptive(1), "count_max": Metric.descriptive(1)}
    scale_invariant = "global"
    Params = FSProtocolParams
    paper = "Shen, Huang, Ma, Li 2024 (CAUSE-FS), Sec. 6.1"
    accepts = ("partition",)
    needs_truth = True

    @classmethod
    def example(cls) -> Example:
        rng = np.random.default_rng(0)
        y = np.repeat(np.arange(3), 20)
        X = np.column_stack([y + 0.1 * rng.standard_normal(60), rng.standard_normal((60, 3))])
        res = Partition([0, 1, 1, 1], axis="variables", info={"selected": np.array([0, 1])})
        return Example({"n_features": (1, 2), "n_runs": 3}, Dataset(X), result=res, truth=Partition(y))

    def _evaluate(self, data: Dataset, result: Any, truth: Any) -> Evaluation:
        from sklearn.metrics import normalized_mutual_info_score

        if result.axis != "variables" or "selected" not in result.info:
            raise DataValidationError("fs_protocol rates a variable partition with info['selected'].")
        if truth is None:
            truth = data.truth.get("labels")
        if not isinstance(truth, Partition) or len(truth) != data.n_samples:
            raise DataValidationError(
                f"fs_protocol needs the true classes as a partition of the {data.n_samples} samples.")
        y = truth.labels
        sel = np.asarray(result.info["selected"], dtype=np.int64)
        if sel.size == 0 or sel.min() < 0 or sel.max() >= data.n_variables:
            raise DataValidationError("fs_protocol: info['selected'] must hold column indices of the data.")
        X = np.asarray(data.X, dtype=np.float64)
        if self.params.minmax:
            lo, span = X.min(axis=0), np.ptp(X, axis=0)
            X = (X - lo) / np.where(span > 0, span, 1.0)
        k = self.params.n_clusters or int(np.unique(y).size)
        counts = [c for c in self.params.n_features if c <= sel.size]
        if not counts:
            raise DataValidationError(
                f"fs_protocol: the selection holds {sel.size} features, fewer than every count in "
                f"n_features={tuple(self.params.n_features)}; give counts up to {sel.size} or select more features.")
        metrics: dict[str, float] = {}
        accs, nmis = [], []
        for c in counts:
            Xc = X[:, sel[:c]]
            a, m = [], []
            for r in range(self.params.n_runs):
                p = kmeans(Xc, k, self.params.seed + r, self.params.kmeans_init == "greedy")
                a.append(clustering_acc(y, p))
                m.append(normalized_mutual_info_score(y, p))
            metrics.update({f"acc@{c}": float(np.mean(a)), f"acc_std@{c}": float(np.std(a)),
                            f"nmi@{c}": float(np.mean(m)), f"nmi_std@{c}": float(np.std(m))})
            accs.append(np.mean(a))
            nmis.append(np.mean(m))
        metrics["acc_mean"], metrics["nmi_mean"] = float(np.mean(accs)), float(np.mean(nmis))
        metrics["n_counts"], metrics["count_max"] = float(len(counts)), float(counts[-1])
        return Evaluation(float(accs[0]), metrics)
