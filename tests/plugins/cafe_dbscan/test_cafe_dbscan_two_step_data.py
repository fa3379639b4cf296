"""The two-step CFL baseline, the DS1-DS3 simulators, the image-folder loader and the plots."""

import numpy as np
import pytest

from macrocause.framework import Dataset, registry
from macrocause.framework.errors import ConfigError, DataValidationError


def two_regions(n=150, seed=0):
    rng = np.random.default_rng(seed)
    X = np.concatenate([rng.uniform(0, 1, (n, 2)), rng.uniform([1.2, 0], [2.2, 1], (n, 2))])
    y = np.concatenate([rng.choice(3, n, p=[0.9, 0.05, 0.05]), rng.choice(3, n, p=[0.05, 0.05, 0.9])])
    return X, y


@pytest.mark.parametrize("clusterer,extra", [("kmeans", {"n_clusters": 2}), ("dbscan", {"eps": 0.1}),
                                             ("hdbscan", {"min_cluster_size": 30})])
def test_two_step_recovers_two_regions(clusterer, extra):
    X, y = two_regions()
    part = registry.create("cfl_two_step", classifier="logistic", clusterer=clusterer, tune=False, **extra).partition(
        Dataset(X, target=y))
    truth = (X[:, 0] > 1.1).astype(int)
    lab = part.labels
    assert part.n_clusters == 2
    ok = lab >= 0
    assert ok.mean() > 0.9
    # each cluster is one region
    for c in part.cluster_ids:
        assert len(set(truth[lab == c])) == 1
    np.testing.assert_allclose(part.info["probabilities"].sum(axis=1), 1.0)


def test_two_step_tuning_picks_from_grid_and_is_deterministic():
    from macrocause.plugins.cafe_dbscan.two_step import GRIDS

    X, y = two_regions(80)
    tsp = registry.create("cfl_two_step", classifier="logistic", n_clusters=2, seed=3)
    a, b = tsp.partition(Dataset(X, target=y)), tsp.partition(Dataset(X, target=y))
    assert a == b
    assert a.info["classifier_params"]["C"] in GRIDS["logistic"]["clf__C"]
    assert 0.8 < a.info["test_accuracy"] <= 1.0


def test_two_step_errors():
    with pytest.raises(ConfigError, match="needs n_clusters"):
        registry.create("cfl_two_step", clusterer="kmeans")
    with pytest.raises(DataValidationError, match="needs a target"):
        registry.create("cfl_two_step", n_clusters=2, tune=False).partition(np.zeros((10, 2)) + np.arange(10)[:, None])


@pytest.mark.parametrize("name,n,k", [("cafe_ds1", 3496, 6), ("cafe_ds2", 4416, 7), ("cafe_ds3", 9343, 7)])
def test_simulators_match_paper_sizes(name, n, k):
    ds = registry.create(name).load()
    truth = ds.truth["labels"]
    assert ds.shape == (n, 2) and ds.target_states == (0, 1, 2, 3, 4)
    assert truth.n_clusters == k and truth.noise.sum() > 0
    # every class follows its distribution (counts within 5 standard errors)
    for c, row in zip(truth.cluster_ids, truth.info["distributions"]):
        freq = np.bincount(ds.target_codes[truth.labels == c], minlength=5) / np.sum(truth.labels == c)
        assert np.all(np.abs(freq - row) < 5 * np.sqrt(row * (1 - row) / np.sum(truth.labels == c)))
    assert registry.create(name, seed=1).load() != ds and registry.create(name).load() == ds


def test_touching_shapes_in_ds2_and_ds3():
    from macrocause.plugins.cafe_dbscan.simulate import DISTRIBUTIONS, LAYOUTS, ROWS

    def tv(a, b):
        return 0.5 * np.abs(DISTRIBUTIONS[a] - DISTRIBUTIONS[b]).sum()

    discs = [s for s in LAYOUTS["ds2"]]
    touching = [(i, j) for i in range(7) for j in range(i) if
                np.hypot(discs[i][1] - discs[j][1], discs[i][2] - discs[j][2]) <= discs[i][3] + discs[j][3] + 1e-6]
    assert len(touching) == 4
    assert min(tv(ROWS["ds2"][i], ROWS["ds2"][j]) for i, j in touching) >= 0.3


def test_image_folder(tmp_path):
    from macrocause.plugins.cafe_dbscan.images import write_example_images

    write_example_images(tmp_path, n_per_state=2, width=6, height=12)
    ds = registry.create("image_folder", path=str(tmp_path), width=6, height=12).load()
    assert ds.shape == (3 * 2 * 72, 5) and ds.names == ("col", "row", "red", "green", "blue")
    assert ds.target_states == ("green", "red", "yellow")
    assert ds.truth["image"].n_clusters == 6
    # pixel positions: each image covers the 6 x 12 grid once
    first = ds.X[ds.truth["image"].labels == 0]
    assert sorted(map(tuple, first[:, :2].astype(int).tolist())) == [(c, r) for c in range(6) for r in range(12)]
    assert ds.X[:, 2:].min() >= 0 and ds.X[:, 2:].max() <= 255
    noisy = registry.create("image_folder", path=str(tmp_path), width=6, height=12, noise_ratio=0.5).load()
    assert not np.array_equal(noisy.X, ds.X) and np.array_equal(noisy.X[:, :2], ds.X[:, :2])
    one = tmp_path / "only"
    (one / "a").mkdir(parents=True)
    with pytest.raises(DataValidationError, match="one subfolder per effect state"):
        registry.create("image_folder", path=str(one)).load()


def test_plots_write_files(tmp_path):
    pytest.importorskip("matplotlib")
    from macrocause.plugins.cafe_dbscan.images import write_example_images
    from macrocause.plugins.cafe_dbscan.plots import plot_clusters, plot_representatives

    ds = registry.create("cafe_ds1", n_per_class=40, n_noise=20).load()
    part = registry.create("cafe_dbscan", eps=0.5, min_points=8, tau=0.4).partition(ds)
    fig = plot_clusters(ds, part, path=tmp_path / "c.png")
    assert (tmp_path / "c.png").stat().st_size > 0 and len(fig.axes) >= 2
    write_example_images(tmp_path / "img", n_per_state=2, width=6, height=12)
    img = registry.create("image_folder", path=str(tmp_path / "img"), width=6, height=12).load()
    ip = registry.create("cafe_dbscan", eps=60.0, min_points=5, tau=0.4).partition(img)
    reps = plot_representatives(img, ip, width=6, height=12, path=tmp_path / "r.png")
    assert (tmp_path / "r.png").stat().st_size > 0
    assert reps.shape == (ip.n_clusters, 12, 6, 3) and reps.max() <= 255
