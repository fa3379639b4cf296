"""CAFE DBSCAN on the paper's traffic-light images (Sec. VII): the data source, the grouping measures and
the automatic mode's grouped rule (issue 28.3)."""

import numpy as np
import pytest
from sklearn.metrics import normalized_mutual_info_score

from macrocause.framework import registry
from macrocause.framework.errors import DataValidationError
from macrocause.plugins.cafe_dbscan.grouped import (
    join_by_distribution,
    neighbour_dispersion,
    region_noise,
)
from macrocause.plugins.cafe_dbscan.images import write_example_images

LIGHTS = "traffic_light"


@pytest.fixture
def lights(shared_data):
    if not (shared_data / LIGHTS).is_dir():
        pytest.skip("../shared/data/traffic_light is not present")
    return shared_data / LIGHTS / "training"


def test_traffic_lights_draws_per_class_images_with_a_seed(lights):
    ds = registry.create("traffic_lights", per_class=2, width=8, height=16, seed=3).load()
    assert ds.n_samples == 3 * 2 * 8 * 16 and ds.target_states == ("green", "red", "yellow")
    assert ds.names == ("col", "row", "red", "green", "blue") and ds.truth["image"].n_clusters == 6
    again = registry.create("traffic_lights", per_class=2, width=8, height=16, seed=3).load()
    other = registry.create("traffic_lights", per_class=2, width=8, height=16, seed=4).load()
    assert np.array_equal(ds.X, again.X) and not np.array_equal(ds.X, other.X)
    # the default folder is the shared one: path= to it gives the same points
    same = registry.create("traffic_lights", path=str(lights), per_class=2, width=8, height=16, seed=3).load()
    assert np.array_equal(ds.X, same.X)


def test_traffic_lights_defaults_give_the_papers_202752_points(lights):
    p = registry.create("traffic_lights").params
    assert (p.per_class, p.width, p.height) == (33, 32, 64)
    assert 3 * p.per_class * p.width * p.height == 202_752


def test_traffic_lights_path_and_errors(tmp_path):
    write_example_images(tmp_path, n_per_state=3, width=8, height=16)
    ds = registry.create("traffic_lights", path=str(tmp_path), per_class=2, width=8, height=16).load()
    assert ds.n_samples == 3 * 2 * 128 and set(ds.target_states) == {"green", "red", "yellow"}
    with pytest.raises(DataValidationError, match="path=.*is not a folder"):
        registry.create("traffic_lights", path=str(tmp_path / "missing")).load()


def test_neighbour_dispersion_by_hand_and_under_independence():
    # one probe, 2 near points (states 0, 0), ring of 4 (states 0, 1, 1, 1): p = (1.5, 3.5) / 5
    codes = np.array([0, 0, 0, 1, 1, 1])
    nb = np.arange(6)[None, :]
    p = np.array([1.5, 3.5]) / 5
    x2 = np.sum((np.array([2, 0]) - 2 * p) ** 2 / (2 * p))
    assert neighbour_dispersion(nb, codes, 2, near=2, ring=4) == pytest.approx(x2 / (1 * (1 + 2 / 4)))
    # states drawn independently with one distribution: about 1; in shared groups of 40: far above 1.5
    rng = np.random.default_rng(0)
    iid = rng.choice(3, 120 * 2000, p=[0.5, 0.3, 0.2]).reshape(2000, 120)
    nb = np.arange(iid.size).reshape(2000, 120)
    assert abs(neighbour_dispersion(nb, iid.ravel(), 3) - 1.0) < 0.05
    grouped = np.repeat(rng.choice(3, 2000 * 3, p=[0.5, 0.3, 0.2]), 40)
    assert neighbour_dispersion(nb, grouped, 3) > 3.0


def test_region_noise_is_the_mean_distance_of_two_half_regions():
    codes = np.array([0, 0, 1, 1, 0, 1, 0, 1])
    nb = np.array([[0, 1, 2, 3], [4, 5, 6, 7], [0, 1, 4, 6]])  # halves (0,0)|(1,1), (0,1)|(0,1), (0,0)|(0,0)
    assert region_noise(nb, codes, 2, 4) == pytest.approx(1 / 3)  # total variation 1, 0, 0
    assert region_noise(nb[:2], codes, 2, 4) == pytest.approx(0.5)


def test_join_by_distribution_groups_clusters_by_effect_state_distribution_alone():
    # clusters 0 (0.9 / 0.1, 100 points), 1 (0.1 / 0.9, 50), 2 (0.85 / 0.15, 20), 3 (0.5 / 0.5, 20)
    parts = [(0, 90, 10), (1, 5, 45), (2, 17, 3), (3, 10, 10)]
    labels = np.concatenate([np.full(a + b, c) for c, a, b in parts] + [np.full(5, -1)])
    codes = np.concatenate([np.r_[np.zeros(a), np.ones(b)] for _, a, b in parts] + [np.zeros(5)]).astype(np.int64)
    out = join_by_distribution(labels, codes, 2, tau=0.1)
    assert out[labels == 0][0] == out[labels == 2][0]  # TV 0.05: one macro-variable though not touching
    assert len({out[labels == c][0] for c in (0, 1, 3)}) == 3 and np.all(out[labels == -1] == -1)
    assert out.max() == 2


def test_automatic_mode_on_a_small_draw_of_traffic_lights(lights):
    ds = registry.create("traffic_lights", per_class=10, seed=100).load()  # 61,440 points, a tuning draw
    part = registry.create("cafe_dbscan").partition(ds)
    assert part.info["regime"] == "grouped" and part.info["dispersion"] >= 1.5
    assert 3 <= part.n_clusters <= 10
    dist = part.info["distributions"]
    assert np.allclose(dist.sum(axis=1), 1.0)
    for j, state in enumerate(part.info["states"]):  # each lamp has a cluster at least .8 pure in P(Y | cluster)
        assert dist[:, j].max() >= 0.8, state
    assert np.mean(part.labels < 0) < 0.3


@pytest.mark.slow
@pytest.mark.parametrize("name, nmi", [("cafe_ds1", 0.970), ("cafe_ds2", 0.961), ("cafe_ds3", 0.929)])
def test_simulated_sets_keep_the_candidate_search_and_table_ii(name, nmi):
    ds = registry.create(name, seed=0).load()
    part = registry.create("cafe_dbscan").partition(ds)
    assert part.info["regime"] == "independent" and part.info["dispersion"] < 1.5
    # Table II of the method page (automatic mode, mean of seeds 0-2) within its seed spread
    assert normalized_mutual_info_score(ds.truth["labels"].labels, part.labels) >= nmi - 0.01
