"""macrocause.framework.sklearn: registry plugins as scikit-learn estimators, DISCO/DBCV as unsupervised scorers."""

import pickle
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sklearn")

from sklearn.base import clone  # noqa: E402
from sklearn.cluster import DBSCAN, HDBSCAN  # noqa: E402
from sklearn.datasets import make_blobs  # noqa: E402
from sklearn.metrics import adjusted_rand_score  # noqa: E402
from sklearn.model_selection import GridSearchCV  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.utils import estimator_checks as checks  # noqa: E402

from macrocause.framework import CausalGraph, Dataset, registry  # noqa: E402
from macrocause.framework.errors import ConfigError, DataValidationError  # noqa: E402
from macrocause.framework.sklearn import (  # noqa: E402
    dbcv_scorer,
    disco_scorer,
    estimator,
    estimator_class,
    scorer,
)
from macrocause.plugins.disco.auto import k_distance_eps  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "data"

ONE_SAMPLE = ("our plugins refuse too few samples with their own message ('<name> needs at least k "
              "samples, got 1'), not with the phrases this check looks for")
# The full scikit-learn suite on the fast estimators, with every expected failure and its reason.
FULL = {
    "dbscan": ({}, {}),
    "hdbscan": ({}, {"check_fit2d_1sample": ONE_SAMPLE}),
    "kmeans": ({"n_init": 1}, {"check_non_transformer_estimators_n_iter":
                               "the kmeans plugin does not report its iteration count, so there is no n_iter_"}),
    "all_features": ({}, {}),
    "laplacian_score": ({}, {"check_fit2d_1sample": ONE_SAMPLE}),
    "pc": ({}, {"check_fit2d_1sample": ONE_SAMPLE,
                "check_fit2d_1feature": "a causal graph needs at least two variables; pc says so in its own words"}),
}
# Checks that need no fitting, run on every estimator the registry yields (the others fit for up to
# minutes on the check data, or need effect states y that the clustering checks do not pass).
API = ("check_parameters_default_constructible", "check_no_attributes_set_in_init", "check_get_params_invariance",
       "check_set_params", "check_do_not_raise_errors_in_init_or_set_params", "check_estimator_repr",
       "check_estimator_cloneable", "check_valid_tag_types", "check_estimator_tags_renamed")


def _all_estimator_names():
    return [n for role in ("partitioner", "searcher") for n in registry.names(role)]


@pytest.mark.parametrize("name", sorted(FULL))
def test_check_estimator(name):
    params, expected = FULL[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = checks.check_estimator(estimator(name, **params), expected_failed_checks=expected, on_skip=None)
    assert {r["check_name"] for r in results if r["status"] == "xfail"} == set(expected)


@pytest.mark.parametrize("name", _all_estimator_names())
def test_api_checks_on_every_estimator(name):
    est = estimator(name)
    for check in API:
        getattr(checks, check)(type(est).__name__, est)


def test_params_map_to_the_plugin_and_are_validated_at_fit():
    est = estimator("dbscan", eps=0.3)
    assert est.get_params() == {"eps": 0.3, "min_samples": 5, "metric": "euclidean"}
    assert clone(est.set_params(min_samples=3)).get_params()["min_samples"] == 3
    with pytest.raises(ConfigError, match="The 'eps' parameter of dbscan must be > 0. Got -1"):
        estimator("dbscan", eps=-1).fit(np.zeros((10, 2)))
    with pytest.raises(ConfigError, match="dbscan got an unexpected parameter 'epsilon'"):
        estimator("dbscan", epsilon=1)
    with pytest.raises(ConfigError, match="disco is an evaluator"):
        estimator_class("disco")


def test_clusterer_labels_equal_the_plugin_partition_and_pickle():
    X, _ = make_blobs(60, centers=3, random_state=0)
    est = estimator("kmeans", n_clusters=3, seed=1)
    labels = est.fit_predict(X)
    want = registry.create("kmeans", n_clusters=3, seed=1).partition(Dataset(X)).labels
    assert np.array_equal(labels, want) and np.array_equal(est.labels_, want)
    again = pickle.loads(pickle.dumps(est))
    assert type(again).__name__ == "KMeans" and np.array_equal(again.labels_, want)
    assert np.array_equal(make_pipeline(StandardScaler(), clone(est)).fit(X)[-1].labels_.shape, (60,))


def test_named_classes_and_gmm_n_iter():
    from macrocause.framework import sklearn as sk

    assert sk.DBSCAN is estimator_class("dbscan")
    assert set(sk.CafeDBSCAN().get_params()) == set(registry.get("cafe_dbscan").Params.model_fields)
    assert set(sk.PC().get_params()) == {*registry.get("pc").Params.model_fields, "scorer"}
    X, _ = make_blobs(40, centers=2, random_state=0)
    assert estimator("gmm_em", n_components=2).fit(X).n_iter_ >= 1
    with pytest.raises(AttributeError):
        sk.NoSuchMethod  # noqa: B018


def test_target_partitioner_needs_y_and_uses_it():
    ds = registry.create("cafe_ds1", n_per_class=30, n_noise=10).load()
    est = estimator("cafe_dbscan", eps=0.5, min_points=8, tau=0.4)
    want = registry.create("cafe_dbscan", eps=0.5, min_points=8, tau=0.4).partition(ds).labels
    assert np.array_equal(est.fit(ds.X, ds.target).labels_, want)
    with pytest.raises(ValueError, match="requires y to be passed"):
        clone(est).fit(ds.X)


def test_selector_transform_keeps_the_selected_columns():
    X = np.random.default_rng(0).standard_normal((30, 6))
    sel = estimator("laplacian_score", n_select=2).fit(X)
    part = registry.create("laplacian_score", n_select=2).partition(Dataset(X))
    assert np.flatnonzero(sel.get_support()).tolist() == sorted(part.info["selected"].tolist())
    assert np.array_equal(sel.transform(X), X[:, sorted(part.info["selected"])])


def test_variable_partition_without_selection_is_refused_as_selector():
    X = np.random.default_rng(0).standard_normal((30, 4))
    with pytest.raises(ConfigError, match="selects none"):
        estimator("correlation_clusters", n_clusters=2).fit(X)


def test_searcher_graph_over_dataframe_column_names():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    a = rng.standard_normal(300)
    frame = pd.DataFrame({"a": a, "b": a + 0.3 * rng.standard_normal(300), "c": rng.standard_normal(300)})
    g = estimator("pc").fit(frame).graph_
    want = registry.create("pc").search(Dataset(frame.to_numpy(), names=list(frame.columns)))
    assert isinstance(g, CausalGraph) and g == want and set(g.variables) == {"a", "b", "c"}
    assert g.skeleton() == {frozenset((g.cluster_of("a"), g.cluster_of("b")))}  # only a - b are dependent


# -- unsupervised scorers ----------------------------------------------------------------
def _all(n):
    idx = np.arange(n)
    return [(idx, idx)]  # one split over all points: density clusterers label only what they were fit on


def test_disco_picks_dbscan_eps_within_005_ari_of_the_best_on_three_spiral():
    d = np.loadtxt(DATA / "three_spiral.csv", delimiter=",", skiprows=1)
    X, y = d[:, :2], d[:, 2].astype(int)
    grid = {"eps": k_distance_eps(X, 5), "min_samples": [5]}
    gs = GridSearchCV(DBSCAN(), grid, scoring=disco_scorer, cv=_all(len(X))).fit(X)
    aris = [adjusted_rand_score(y, DBSCAN(**p).fit(X).labels_) for p in gs.cv_results_["params"]]
    picked = adjusted_rand_score(y, gs.best_estimator_.labels_)
    assert picked >= max(aris) - 0.05 and max(aris) > 0.9


def test_disco_and_dbcv_tune_hdbscan_on_blobs_with_noise():
    X, y = make_blobs(240, centers=[[0, 0], [4, 0], [0, 4], [4, 4]], cluster_std=[0.3, 0.5, 0.4, 0.6], random_state=0)
    X = np.vstack([X, np.random.default_rng(0).uniform(-2, 6, size=(24, 2))])
    y = np.r_[y, -np.ones(24, dtype=int)]
    grid = {"min_cluster_size": [3, 5, 10, 20, 40, 80]}
    aris = [adjusted_rand_score(y, HDBSCAN(copy=True, **p).fit(X).labels_) for p in
            ({"min_cluster_size": m} for m in grid["min_cluster_size"])]
    gs = GridSearchCV(HDBSCAN(copy=True), grid, scoring=disco_scorer, cv=_all(len(X))).fit(X)
    assert adjusted_rand_score(y, gs.best_estimator_.labels_) >= max(aris) - 0.05
    gs = GridSearchCV(HDBSCAN(copy=True), grid, scoring=dbcv_scorer, cv=_all(len(X))).fit(X)
    assert gs.best_score_ == pytest.approx(
        registry.create("dbcv").evaluate(Dataset(X), gs.best_estimator_.labels_).value)


def test_scorer_needs_labels_for_the_scored_points():
    X, _ = make_blobs(30, centers=2, random_state=0)
    est = DBSCAN(eps=1.0).fit(X)
    assert disco_scorer(est, X) == pytest.approx(registry.create("disco").evaluate(Dataset(X), est.labels_).value)
    with pytest.raises(DataValidationError, match="labelled 30 points, the scored X has 10"):
        disco_scorer(est, X[:10])
    with pytest.raises(DataValidationError, match="has none"):
        disco_scorer(StandardScaler().fit(X), X)


def test_any_evaluator_is_a_scorer_signed_by_its_declared_direction():
    """Scorers come from evaluators by name: a truth-based one reads y, a lower-is-better one is
    negated (scikit-learn maximises), and a non-evaluator is refused naming the evaluators."""
    from macrocause.framework import sklearn as sk

    X, y = make_blobs(40, centers=3, random_state=1)
    est = DBSCAN(eps=1.0).fit(X)
    assert scorer("ari")(est, X, y) == pytest.approx(adjusted_rand_score(y, est.labels_))
    rank = registry.create("kernel_rank").evaluate(Dataset(X), est.labels_).value
    assert rank > 0 and scorer("kernel_rank")(est, X) == pytest.approx(-rank)
    with pytest.raises(ConfigError, match="not an evaluator"):
        scorer("dbscan")
    assert sk.HillClimb is estimator_class("hill_climb") and sk.HillClimb.__name__ == "HillClimb"
