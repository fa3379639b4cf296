"""CAFE DBSCAN on image data: the heuristic switch, the large-data automatic search, the image
sources (seeded draw, generated shapes, digits as pixels) and the representative images."""

import numpy as np
import pytest

from macrocause.framework import registry
from macrocause.framework.errors import ConfigError
from macrocause.plugins.cafe_dbscan._core import heuristic_eps, heuristic_min_points, heuristic_tau


def test_heuristic_mode_is_section_v_for_all_three():
    ds = registry.create("cafe_ds1", n_per_class=60, n_noise=30).load()
    part = registry.create("cafe_dbscan", mode="heuristic").partition(ds)
    mu = heuristic_min_points(ds.n_samples)
    eps = heuristic_eps(ds.X, mu, "euclidean")
    assert part.info["min_points"] == mu and part.info["eps"] == pytest.approx(eps)
    assert part.info["tau"] == heuristic_tau(5, mu) and part.info["refined"] is False and "auto" not in part.info
    given = registry.create("cafe_dbscan", eps=eps, min_points=mu, tau=heuristic_tau(5, mu)).partition(ds)
    assert np.array_equal(part.labels, given.labels)
    # a given value wins over the heuristic
    assert registry.create("cafe_dbscan", mode="heuristic", tau=0.15).partition(ds).info["tau"] == 0.15
    with pytest.raises(ConfigError, match="mode"):
        registry.create("cafe_dbscan", mode="fast")


def test_automatic_search_on_a_subsample_above_the_threshold(monkeypatch):
    import macrocause.plugins.cafe_dbscan.partitioner as mod

    ds = registry.create("cafe_ds1", n_per_class=100, n_noise=40).load()  # n = 640
    monkeypatch.setattr(mod, "AUTO_SUBSAMPLE", 300)
    part = registry.create("cafe_dbscan", seed=1).partition(ds)
    chosen = [r for r in part.info["auto"] if r.get("chosen")]
    assert part.info["subsample"] == 300 and len(chosen) == 1
    c = chosen[0]  # min_points and tau from the subsample, eps re-read from all points at the same quantile
    assert (part.info["min_points"], part.info["tau"]) == (c["min_points"], c["tau"])
    assert part.info["eps"] == pytest.approx(heuristic_eps(ds.X, c["min_points"], "euclidean", c["quantile"]))
    again = registry.create("cafe_dbscan", seed=1).partition(ds)
    assert np.array_equal(part.labels, again.labels) and part.info["auto"] == again.info["auto"]
    assert part.info["noise_quantile"] == c["noise_quantile"]
    assert part.n_clusters == 6  # the six discs of DS1


def test_subsample_choice_competes_with_section_v_on_all_points(monkeypatch):
    import macrocause.plugins.cafe_dbscan.partitioner as mod

    ds = registry.create("cafe_ds1", n_per_class=100, n_noise=40).load()
    monkeypatch.setattr(mod, "AUTO_SUBSAMPLE", 300)
    part = registry.create("cafe_dbscan", seed=1).partition(ds)
    final = part.info["final"]
    assert [r["rule"] for r in final] == ["search", "section_v"]
    mu = heuristic_min_points(ds.n_samples)
    assert (final[1]["min_points"], final[1]["tau"]) == (mu, heuristic_tau(5, mu))
    win = max(final, key=lambda r: r["bic_gain"])  # a tie keeps the search
    assert (part.info["eps"], part.info["min_points"], part.info["tau"]) == (win["eps"], win["min_points"], win["tau"])
    assert mod.bic_gain(part.labels, ds.target_codes, 5) == pytest.approx(win["bic_gain"])
    # a criterion that prefers Section V's labelling (Algorithm 1 as printed, unrefined): it is returned
    heur = registry.create("cafe_dbscan", eps=0.8, min_points=10, tau=0.3).partition(ds)
    monkeypatch.setattr(mod, "bic_gain", lambda labels, codes, m: float(np.array_equal(labels, heur.labels)))
    monkeypatch.setattr(mod.CafeDBSCAN, "_fill_heuristic", lambda self, data: (0.8, 10, 0.3))
    part = registry.create("cafe_dbscan", seed=1).partition(ds)
    assert part.info["refined"] is False and part.info["noise_quantile"] is None
    assert (part.info["eps"], part.info["min_points"], part.info["tau"]) == (0.8, 10, 0.3)
    assert np.array_equal(part.labels, heur.labels)


def test_pairs_to_csr_lists_are_sorted_and_symmetric():
    from macrocause.plugins.cafe_dbscan._kernels import pairs_to_csr

    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, (200, 2))
    d = np.hypot(*(X[:, None, :] - X[None, :, :]).transpose(2, 0, 1))
    i, j = np.nonzero(np.triu(d <= 0.1, 1))
    pairs = np.column_stack([i, j])[rng.permutation(i.size)].astype(np.int64)  # any order
    indptr, indices = pairs_to_csr(200, pairs)
    for p in range(200):
        assert indices[indptr[p]:indptr[p + 1]].tolist() == np.flatnonzero(d[p] <= 0.1).tolist()


def test_image_folder_draws_images_per_state_with_a_seed(tmp_path):
    from macrocause.plugins.cafe_dbscan.images import write_example_images

    write_example_images(tmp_path, n_per_state=6, width=4, height=8)

    def images(**kw):
        ds = registry.create("image_folder", path=str(tmp_path), width=4, height=8, max_per_state=2, **kw).load()
        return ds, [tuple(ds.X[ds.truth["image"].labels == i][:, 2:].ravel()) for i in range(6)]

    first, a = images(draw="first")
    _, b = images(seed=0)
    _, c = images(seed=0)
    draws = {tuple(images(seed=s)[1]) for s in range(6)}
    assert first.n_samples == 6 * 32 and sorted(first.target_states) == ["green", "red", "yellow"]
    assert b == c and len(draws) > 1  # the same seed gives the same images, seeds differ
    full = registry.create("image_folder", path=str(tmp_path), width=4, height=8).load()
    pool = {tuple(full.X[full.truth["image"].labels == i][:, 2:].ravel()) for i in range(18)}
    assert set(b) <= pool


def test_cafe_shapes_truth_and_representatives():
    pytest.importorskip("matplotlib")
    from macrocause.plugins.cafe_dbscan.plots import plot_representatives, representative_images

    ds = registry.create("cafe_shapes", n_per_state=4, width=8, height=16, noise=0.0).load()
    assert ds.n_samples == 3 * 4 * 128 and ds.names == ("col", "row", "red", "green", "blue")
    truth = ds.truth["labels"].labels
    disc = truth >= 4
    # the disc carries the state colour; its label is 4 + the state; backgrounds 0-3, distractors -1
    states = np.asarray(ds.target)
    for s, name in enumerate(("red", "yellow", "green")):
        on = disc & (states == name)
        assert on.any() and np.all(truth[on] == 4 + s)
    assert set(np.unique(truth[~disc]).tolist()) <= {-1, 0, 1, 2, 3}
    pixel = ds.X[(truth == 1)][:, 2:]  # the sky background, within its +-12.5% gradient
    assert np.all(np.abs(pixel - (160, 190, 225)).max(axis=1) <= 0.13 * 225 + 1)
    assert np.allclose(ds.X[disc & (states == "red"), 2:], (230, 30, 30))
    truth_part = ds.truth["labels"]
    reps = representative_images(ds, truth_part)  # width and height read from the data
    assert reps.shape == (truth_part.n_clusters, 16, 8, 3) and reps.max() <= 255
    red_id = int(np.unique(truth[truth >= 0]).tolist().index(4))  # cluster ids are the compacted labels
    red = reps[red_id][reps[red_id].sum(axis=-1) > 0]
    assert np.all(red[:, 0] > red[:, 1])  # the red disc's image is red
    imgs = plot_representatives(ds, truth_part, top=2)
    assert imgs.shape == reps.shape


def test_cafe_digits_pixels():
    ds = registry.create("cafe_digits", digits=[0, 1], max_per_state=5, seed=3).load()
    assert ds.n_samples == 10 * 64 and ds.X.shape[1] == 3
    assert set(np.asarray(ds.target).tolist()) == {0, 1}
    assert ds.X[:, 2].min() >= 0 and ds.X[:, 2].max() <= 16
    again = registry.create("cafe_digits", digits=[0, 1], max_per_state=5, seed=3).load()
    np.testing.assert_array_equal(ds.X, again.X)
    assert not np.array_equal(ds.X, registry.create("cafe_digits", digits=[0, 1], max_per_state=5, seed=4).load().X)


def test_effect_information():
    from macrocause.framework import Dataset, Partition

    y = np.array([0, 0, 1, 1, 0, 1])
    ds = Dataset(np.zeros((6, 1)), target=y)
    ev = registry.create("effect_information")
    exact = ev.evaluate(ds, Partition(np.array([0, 0, 1, 1, -1, -1])))
    # Z = {0, 1, noise}: clusters 0/1 determine Y, the noise class is 50/50: I = H(Y) - (2/6) log 2
    assert exact.value == pytest.approx(1 - (2 / 6))
    assert exact.metrics["n_clusters"] == 2 and exact.metrics["noise_fraction"] == pytest.approx(1 / 3)
    assert exact.metrics["purity"] == 1.0 and exact.metrics["top5_share"] == pytest.approx(4 / 6)
    assert exact.metrics["purity_0"] == 1.0 and exact.metrics["purity_1"] == 1.0
    whole = ev.evaluate(ds, Partition(np.zeros(6, dtype=int)))
    assert whole.value == pytest.approx(0.0) and whole.metrics["purity_0"] == pytest.approx(0.5)
    # per state, the largest P(Y = s | cluster): cluster {0, 0, 1} gives state 0 2/3, cluster {1, 0, 1} state 1 2/3
    mixed = ev.evaluate(ds, Partition(np.array([0, 0, 0, 1, 1, 1])))
    assert mixed.metrics["purity_0"] == pytest.approx(2 / 3) and mixed.metrics["purity_1"] == pytest.approx(2 / 3)


def test_neighbourhoods_refuse_past_the_memory_budget(monkeypatch):
    from macrocause.framework.errors import MemoryBudgetError

    X = np.zeros((3000, 2))  # every point is every point's neighbour: 4.5 million pairs
    monkeypatch.setenv("MACROCAUSE_MEMORY_LIMIT", "20MB")
    with pytest.raises(MemoryBudgetError, match="cafe_dbscan would need about .* neighbour pair"):
        registry.create("cafe_dbscan", eps=0.5, min_points=5, tau=0.3).partition(
            __import__("macrocause.framework").Dataset(X, target=np.arange(3000) % 2))
