"""The two-step CFL baseline: a classifier estimates P(Y|X), a clustering groups the estimates."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from pydantic import Field, model_validator

from macrocause.framework import Dataset, Params, Partition, Partitioner
from macrocause.framework.roles import Example

# Hyper-parameter grids searched on the train/test split (tune=True).
GRIDS: dict[str, dict[str, list]] = {
    "logistic": {"clf__C": [0.01, 0.1, 1.0, 10.0, 100.0]},
    "random_forest": {"clf__max_depth": [5, 10, None], "clf__min_samples_leaf": [1, 10, 50]},
    "svc": {"clf__C": [1.0, 10.0], "clf__gamma": ["scale", 10.0]},
    "mlp": {"clf__hidden_layer_sizes": [(32, 32), (64, 64)], "clf__alpha": [1e-4, 1e-2]},
}


class CFLTwoStepParams(Params):
    classifier: Literal["logistic", "random_forest", "svc", "mlp"] = Field(
        "mlp", description="scikit-learn classifier that estimates P(Y|X)."
    )
    clusterer: Literal["kmeans", "dbscan", "hdbscan"] = Field(
        "hdbscan", description="Clustering of the predicted probability vectors."
    )
    n_clusters: int | None = Field(None, ge=1, description="k for kmeans (required there).")
    eps: float = Field(0.05, gt=0, description="DBSCAN radius in probability space.")
    min_samples: int = Field(10, ge=1, description="DBSCAN min_samples / HDBSCAN min_samples.")
    min_cluster_size: int = Field(50, ge=2, description="HDBSCAN smallest cluster.")
    tune: bool = Field(True, description="Grid-search the classifier on a train/test split first.")
    test_size: float = Field(0.3, gt=0, lt=1, description="Share of the data held out for tuning.")
    seed: int = Field(0, description="Random seed (split, classifier, k-means).")

    @model_validator(mode="after")
    def _k_for_kmeans(self):
        if self.clusterer == "kmeans" and self.n_clusters is None:
            raise ValueError("clusterer='kmeans' needs n_clusters (the number of clusters k).")
        return self


class CFLTwoStep(Partitioner):
    """Two-step causal feature learning: a classifier estimates P(Y|X), then a clustering groups it.

    The paper's baseline (Chalupka et al.'s CFL with other classifiers and
    clusterings): a scikit-learn classifier (logistic regression, random forest,
    SVC, MLP; features standardised) is tuned by grid search on a train/test
    split (``tune=True``; selection by held-out log-loss), refitted on all data
    with the best hyper-parameters, and its predicted probabilities are
    clustered by k-means (``n_clusters`` given), DBSCAN or HDBSCAN (noise -1).

    Parameters
    ----------
    classifier : {"logistic", "random_forest", "svc", "mlp"}
    clusterer : {"kmeans", "dbscan", "hdbscan"}
    n_clusters : int, optional
        k for k-means (required for it).
    eps, min_samples : float, int
        DBSCAN parameters in probability space (``min_samples`` also for HDBSCAN).
    min_cluster_size : int
        HDBSCAN smallest cluster.
    tune : bool
        Grid search first (grids in :data:`GRIDS`); False fits the classifier
        with scikit-learn's defaults.
    test_size : float
        Held-out share for tuning.
    seed : int
        Seed of the split, the classifier and k-means.

    Notes
    -----
    ``info`` holds ``probabilities`` (n x m), ``states``, ``classifier_params``
    (chosen), ``distributions`` (per-cluster effect-state frequencies, as for CAFE DBSCAN)
    and, with ``tune=True``, ``test_accuracy`` (the chosen classifier's accuracy on the
    held-out share; without tuning nothing is held out, so no accuracy is reported).

    References
    ----------
    Chalupka, Perona, Eberhardt. Visual causal feature learning. UAI 2015.
    Weber, Miklautz, Kumar, Grosse-Wentrup, Plant. CAFE DBSCAN. ICDM 2023, Sec. VI.
    """

    name = "cfl_two_step"
    axis = "samples"
    needs_target = True
    Params = CFLTwoStepParams
    paper = "Chalupka, Perona, Eberhardt, UAI 2015; Weber et al., ICDM 2023"

    def check_data(self, data: Dataset) -> None:
        data.check(self.name, need_target=True, min_samples=4)

    @classmethod
    def example(cls) -> Example:
        from .partitioner import two_squares

        return Example(
            {"classifier": "logistic", "clusterer": "kmeans", "n_clusters": 2, "tune": False}, two_squares(40)
        )

    def _partition(self, data: Dataset) -> Partition:
        p = self.params
        y = data.target_codes
        proba, chosen, acc = _fit_predict(data.X, y, p)
        labels = _cluster(proba, p)
        from ._core import counts_of

        counts = counts_of(labels, y, len(data.target_states)).astype(float)
        info = {
            "probabilities": proba,
            "states": list(data.target_states),
            "classifier_params": chosen,
            "distributions": counts / np.maximum(counts.sum(axis=1, keepdims=True), 1),
        }
        if acc is not None:
            info["test_accuracy"] = acc
        return Partition(labels, axis="samples", info=info)


def _make(classifier: str, seed: int):
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    clf = {
        "logistic": lambda: LogisticRegression(max_iter=1000),
        "random_forest": lambda: RandomForestClassifier(n_estimators=100, random_state=seed, n_jobs=1),
        "svc": lambda: SVC(probability=True, random_state=seed),
        "mlp": lambda: MLPClassifier(max_iter=500, random_state=seed),
    }[classifier]()
    return Pipeline([("scale", StandardScaler()), ("clf", clf)])


def _fit_predict(X: np.ndarray, y: np.ndarray, p: CFLTwoStepParams) -> tuple[np.ndarray, dict[str, Any], float | None]:
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.metrics import log_loss
    from sklearn.model_selection import ParameterGrid, train_test_split

    m = int(y.max()) + 1
    chosen: dict[str, Any] = {}
    acc = None  # a held-out accuracy exists only when a share was held out (tune=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        if p.tune:
            strat = y if np.bincount(y).min() >= 2 else None
            Xa, Xb, ya, yb = train_test_split(X, y, test_size=p.test_size, random_state=p.seed, stratify=strat)
            best = np.inf
            for params in ParameterGrid(GRIDS[p.classifier]):
                model = _make(p.classifier, p.seed).set_params(**params).fit(Xa, ya)
                pb = _full_proba(model, Xb, m)
                loss = log_loss(yb, pb, labels=np.arange(m))
                if loss < best:
                    best, chosen = loss, params
                    acc = float(np.mean(pb.argmax(axis=1) == yb))
        model = _make(p.classifier, p.seed).set_params(**chosen).fit(X, y)
        proba = _full_proba(model, X, m)
    return proba, {k.removeprefix("clf__"): v for k, v in chosen.items()}, acc


def _full_proba(model, X: np.ndarray, m: int) -> np.ndarray:
    out = np.zeros((X.shape[0], m))
    out[:, model.classes_] = model.predict_proba(X)
    return out


def _cluster(proba: np.ndarray, p: CFLTwoStepParams) -> np.ndarray:
    from sklearn.cluster import DBSCAN, HDBSCAN, KMeans

    if p.clusterer == "kmeans":
        k = min(p.n_clusters, proba.shape[0])
        return KMeans(n_clusters=k, n_init=10, random_state=p.seed).fit_predict(proba).astype(np.int64)
    if p.clusterer == "dbscan":
        return DBSCAN(eps=p.eps, min_samples=p.min_samples).fit_predict(proba).astype(np.int64)
    mcs = max(2, min(p.min_cluster_size, proba.shape[0]))
    return HDBSCAN(min_cluster_size=mcs, min_samples=p.min_samples, copy=True).fit_predict(proba).astype(np.int64)
