"""The first-call grid names every registered method, and its probe measures a fresh process."""

from pathlib import Path

import numpy as np
import yaml

from macrocause.framework import Dataset, registry

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "benchmarks" / "framework"


def test_the_grid_names_every_method_and_the_probe_reports_first_and_warm_calls(plugin_registry):
    import macrocause.plugins.datasets
    from macrocause.framework.compare import Grid

    plugin_registry.register_module(macrocause.plugins.datasets, "datasets", "datasets")  # the grid's stand-in data
    shipped = {p["name"] for p in yaml.safe_load((REPO / "registry.yaml").read_text())["plugins"]}

    grid, base = Grid.from_yaml(BENCH / "first_call.yaml")
    tasks = grid.tasks(base)  # registers first_call.py's plugins
    methods = {t.pipeline.steps[0].params["method"] for t in tasks}
    assert methods <= shipped and shipped - methods <= {
        "csv", "mat", "image_folder", "sachs", "digits", "wdbc", "anm_triple", "clic_sim_link", "cafe_ds1",
        "cafe_ds2", "cafe_ds3", "cafe_shapes", "cafe_digits", "cic_xor", "traffic_lights"}  # data read from files or fixed sets
    data = Dataset(np.zeros((4, 2)))
    part = registry.create("first_call_probe", method="all_features").partition(data)
    ev = registry.create("first_call_cost").evaluate(data, part, None)
    assert ev.value == ev.metrics["first_cpu_s"] - ev.metrics["warm_cpu_s"]
    assert ev.metrics["setup_cpu_s"] > 0 and ev.metrics["first_wall_s"] >= 0
