"""disco_auto: picks the grid point with the best DISCO, no ground truth."""

import numpy as np
import pytest
from pydantic import Field

from macrocause.framework import Dataset, Params, Partition, Partitioner, hookimpl, registry
from macrocause.framework.errors import ConfigError
from macrocause.framework.registry import Registry, get_registry, reset


def _data(seed=0):
    rng = np.random.default_rng(seed)
    X = np.concatenate([rng.normal(0, 0.3, (60, 2)), rng.normal(4, 0.3, (60, 2)), rng.uniform(-2, 6, (10, 2))])
    return Dataset(X)


def test_explicit_grid_keeps_the_best_disco():
    ds = _data()
    grid = [0.05, 0.3, 0.6, 5.0]
    part = registry.create("disco_auto", grid={"eps": grid}).partition(ds)
    scores = [r["disco"] for r in part.info["grid"]]
    assert [r["params"]["eps"] for r in part.info["grid"]] == grid
    disco = registry.create("disco")
    for eps, s in zip(grid, scores):
        labels = registry.create("dbscan", eps=eps).partition(ds)
        assert s == pytest.approx(disco.evaluate(ds, labels).value, abs=1e-12)
    best = int(np.argmax(scores))
    assert part.info["chosen"] == {"eps": grid[best]}
    assert part.info["disco"] == max(scores)
    assert part.same_clustering(registry.create("dbscan", eps=grid[best]).partition(ds))
    assert part.n_clusters == 2


def test_automatic_grid_from_k_distance():
    ds = _data()
    part = registry.create("disco_auto").partition(ds)
    eps = [r["params"]["eps"] for r in part.info["grid"]]
    assert len(eps) >= 3 and eps == sorted(eps)
    assert part.n_clusters == 2
    # fixed parameters reach every run, and set k of the k-distance grid
    part10 = registry.create("disco_auto", fixed={"min_samples": 10}).partition(ds)
    assert all(r["params"]["min_samples"] == 10 for r in part10.info["grid"])


class HalvesParams(Params):
    cut: float = Field(0.0, description="Threshold on the first column.")


class Halves(Partitioner):
    """Toy partitioner with its own auto_grid: split at a threshold on the first column."""

    name = "toy_halves"
    Params = HalvesParams

    @classmethod
    def auto_grid(cls, data):
        return {"cut": [-1.0, 2.0, 100.0]}

    def _partition(self, data):
        return Partition((data.X[:, 0] > self.params.cut).astype(np.int64))


class _ToyPlugin:
    @hookimpl
    def macrocause_register_plugins(self, register):
        register(Halves)


def test_partitioner_auto_grid_is_used():
    old = get_registry()
    reg = Registry()
    reg.register_module(_ToyPlugin(), "toy")
    reset(reg)
    try:
        part = registry.create("disco_auto", partitioner="toy_halves").partition(_data())
    finally:
        reset(old)
    assert [r["params"]["cut"] for r in part.info["grid"]] == [-1.0, 2.0, 100.0]
    assert part.info["chosen"] == {"cut": 2.0}
    assert part.n_clusters == 2


def test_bad_configuration():
    ds = _data()
    with pytest.raises(ConfigError, match="no parameter"):
        registry.create("disco_auto", grid={"nope": [1]}).partition(ds)
    with pytest.raises(ConfigError, match="not a partitioner|Unknown|unknown|No plugin"):
        registry.create("disco_auto", partitioner="disco").partition(ds)


def test_example_pipeline_runs():
    from pathlib import Path

    from macrocause.framework.pipeline import Pipeline

    root = Path(__file__).resolve().parents[3]
    if not (root.parent / "shared" / "data" / "clustering" / "compound.csv").exists():
        pytest.skip("shared data not present")
    res = Pipeline.from_yaml(root / "examples" / "disco_auto_dbscan.yaml").run()
    ev = res.evaluations()
    assert ev["auto"]["disco"] >= ev["fixed"]["disco"]
    assert ev["auto"]["disco"] == pytest.approx(res.outputs["auto"].info["disco"])


@pytest.mark.parametrize("name", ["hdbscan", "cafe_dbscan"])
def test_other_density_partitioners(name):
    if name not in registry.names("partitioner"):
        pytest.skip(f"{name} is not registered")
    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal(0, 0.3, (50, 2)), rng.normal(4, 0.3, (50, 2))])
    ds = Dataset(X, target=np.repeat([0, 1], 50))
    part = registry.create("disco_auto", partitioner=name).partition(ds)
    cls = registry.get(name)
    if hasattr(cls, "auto_grid"):  # the partitioner's own grid is the one tried
        grid = cls.auto_grid(ds)
        assert len(part.info["grid"]) == int(np.prod([len(v) for v in grid.values()]))
    scores = [r["disco"] for r in part.info["grid"]]
    assert part.info["disco"] == np.nanmax(scores)
    assert part.n_clusters == 2
