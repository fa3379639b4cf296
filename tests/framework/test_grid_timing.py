"""Grids as benchmarks: repeated timing, plugin files, the same-data check, peer ratios and growth."""

from __future__ import annotations

import json
import math
from statistics import median

import pandas as pd
import pytest
from click.testing import CliRunner

from macrocause.framework.cli import main
from macrocause.framework.compare import Grid, compare
from macrocause.framework.errors import MacrocauseError, PipelineError, PluginError
from macrocause.framework.report import build_report
from macrocause.framework.report.analyses import growth, growth_exponent, ratios
from macrocause.framework.report.frame import tidy
from macrocause.framework.store import ResultStore

PLUGIN_FILE = '''
import numpy as np
from macrocause.framework import Partition, Partitioner, hookimpl


class Halves(Partitioner):
    """First half of the samples in group 0, the rest in group 1."""

    name = "file_halves"

    def _partition(self, data):
        n = data.n_samples
        return Partition((np.arange(n) >= n // 2).astype(int))


@hookimpl
def macrocause_register_plugins(register):
    register(Halves)
'''

TWO = """
name: two
steps:
  - {id: sign, partition: toy_threshold}
  - {id: halves, partition: file_halves}
  - {evaluate: toy_agreement, on: sign}
  - {evaluate: toy_agreement, on: halves}
"""


def _grid(tmp_path, extra: str, pipeline: str = TWO, sizes=(20, 40)) -> tuple[Grid, object]:
    (tmp_path / "halves.py").write_text(PLUGIN_FILE)
    (tmp_path / "p.yaml").write_text(pipeline)
    data = "".join(f"  - {{source: toy_source, params: {{n: {n}}}}}\n" for n in sizes)
    (tmp_path / "grid.yaml").write_text(f"name: t\ndata:\n{data}pipelines: [p.yaml]\nseeds: 2\n{extra}")
    return Grid.from_yaml(tmp_path / "grid.yaml")


def test_repeat_stores_medians_of_the_executions_and_the_data_fingerprint(toys, tmp_path):
    grid, base = _grid(tmp_path, "repeat: 3\nwarmup: true\nplugins: [halves.py]\n")
    with ResultStore(tmp_path / "s.db") as store:
        counts = compare(grid, store, base=base, progress=False)
        rows = store.rows()
    assert counts["done"] == 4
    parts = [r for r in rows if r["kind"] == "partition"]
    assert len(parts) == 8  # 2 steps x 2 data x 2 seeds: one record per step, not per execution
    for r in parts:
        runs = r["extra"]["wall_runs"]
        assert len(runs) == 3
        assert r["seconds"] == pytest.approx(median(runs), abs=1e-6)
        assert r["extra"]["cpu_s"] >= 0
        assert r["extra"]["n_samples"] == json.loads(json.dumps(r["source_params"]))["n"]
        assert r["extra"]["n_features"] == 3
    # the same (data, seed) gives the same hash in every run; different sizes differ
    hashes = {(r["data_label"], r["seed"]): r["extra"]["data_hash"] for r in parts}
    assert len(set(hashes.values())) == 4


def test_plugin_files_are_registered_in_the_worker(toys, tmp_path):
    grid, base = _grid(tmp_path, "plugins: [halves.py]\n")
    with ResultStore(tmp_path / "s.db") as store:
        assert compare(grid, store, base=base, progress=False, n_jobs=2)["done"] == 4
        halves = [r for r in store.rows() if r["step"] == "halves"]
    assert {r["status"] for r in halves} == {"done"}
    assert {r["metrics"]["n_clusters"] for r in halves} == {2}


def test_a_missing_or_broken_plugin_file_is_named(toys, tmp_path):
    grid, base = _grid(tmp_path, "plugins: [nowhere.py]\n")
    with pytest.raises(PluginError, match=r"nowhere\.py does not exist"):
        grid.tasks(base)
    (tmp_path / "bad.py").write_text("from macrocause.framework import hookimpl\n\n@hookimpl\ndef no_such_hook():\n    pass\n")
    grid, base = _grid(tmp_path, "plugins: [bad.py]\n")
    for _ in range(2):  # a failed file is not half-registered: the second try fails the same way
        with pytest.raises(PluginError, match=r"bad\.py failed to register: .*unknown hook 'no_such_hook'"):
            grid.tasks(base)


@pytest.mark.parametrize("extra, message", [
    ("repeat: 0\n", "greater than or equal to 1"),
    ("repeat: 2.5\n", "valid integer"),
    ("warmup: 1\n", "valid boolean"),
])
def test_bad_timing_keys(toys, tmp_path, extra, message):
    (tmp_path / "grid.yaml").write_text(f"name: t\ndata: [{{source: toy_source}}]\npipelines: [p.yaml]\n{extra}")
    with pytest.raises(PipelineError, match=message):
        Grid.from_yaml(tmp_path / "grid.yaml")


def _row(pipeline: str, data_hash: str, seed: int = 0) -> dict:
    base = {"run_key": pipeline, "grid": "g", "step": "s", "kind": "partition", "method": "m", "on_step": None,
            "plugin": "m", "metrics": {}, "pipeline": pipeline, "data_label": "d", "source": "s",
            "source_params": {}, "seed": seed, "status": "done", "error": None, "created": 1.0,
            "params": {}, "extra": {"data_hash": data_hash}, "seconds": 1.0, "peak_mb": 1.0}
    return base


def test_report_refuses_pipelines_that_saw_different_data():
    rows = [_row("a", "h1"), _row("b", "h1"), _row("a", "h2", seed=1)]
    assert tidy(rows)[1].same_data == 2
    with pytest.raises(MacrocauseError, match=r"'a', 'b' saw different data for d with seed 0"):
        tidy([_row("a", "h1"), _row("b", "h2")])


def _res(method, data, seed, value, metric="time", n=None, params="{}"):
    return {"method": method, "data": data, "seed": seed, "metric": metric, "value": value,
            "source_params": params, "n": n, "d": None if n is None else 3}


def test_peer_ratios_are_medians_of_same_run_ratios():
    res = [_res("ours", "d", s, v) for s, v in enumerate([1.0, 2.0, 4.0])]
    res += [_res("peer", "d", s, v) for s, v in enumerate([4.0, 4.0, 4.0])]
    res += [_res("ours", "d", 3, 9.0)]  # no peer value for seed 3: left out
    res += [_res("ours", "e", 0, 3.0), _res("peer", "e", 0, 1.0)]
    r, e, pooled = ratios(pd.DataFrame(res), ["time"], "peer").itertuples()
    assert (r.method, r.peer, r.data, r.n) == ("ours", "peer", "d", 3)
    assert r.ratio == pytest.approx(0.5)  # median of 0.25, 0.5, 1
    assert r.total == pytest.approx(7 / 12)  # (1 + 2 + 4) / (4 + 4 + 4)
    assert (e.data, e.ratio, e.total) == ("e", 3.0, 3.0)
    assert (pooled.data, pooled.n) == ("all", 4)
    assert pooled.ratio == pytest.approx(0.75) and pooled.total == pytest.approx(10 / 13)  # median of .25 .5 1 3
    with pytest.raises(MacrocauseError, match="not a method of the report"):
        ratios(pd.DataFrame(res), ["time"], "nobody")


def test_evaluator_ratios():
    res = [_res("m", "d", 0, 2.0, "time@fast"), _res("m", "d", 0, 8.0, "time@dense")]
    r, pooled = ratios(pd.DataFrame(res), ["time@fast", "time@dense"], "dense").itertuples()
    assert (r.method, r.peer, r.ratio, r.total) == ("fast", "dense", 0.25, 0.25)
    assert (pooled.data, pooled.ratio) == ("all", 0.25)


def test_growth_exponent_by_hand():
    assert growth_exponent([10, 100, 1000], [3.0, 30.0, 300.0]) == pytest.approx(1.0)
    assert growth_exponent([10, 100], [1.0, 100.0]) == pytest.approx(2.0)
    assert math.isnan(growth_exponent([10, 10], [1.0, 2.0]))
    assert math.isnan(growth_exponent([10, 100], [0.0, 2.0]))


def test_growth_groups_by_method_and_other_parameters():
    res = []
    for size, t in ((100, 1.0), (200, 4.0), (400, 16.0)):
        for seed in (0, 1):
            params = json.dumps({"size": size, "k": 2, "seed": seed})
            res.append(_res("a", f"s[size={size}]", seed, t * (1 + seed), params=params, n=size))
            res.append(_res("b", f"s[size={size}]", seed, 5.0, params=params, n=size))
    res = pd.DataFrame(res)
    g = growth(res, ["time"], "size")
    a, b = g[g.method == "a"], g[g.method == "b"]
    assert set(a.setting) == {"k=2"} and list(a["size"]) == [100.0, 200.0, 400.0]
    assert list(a["median"]) == pytest.approx([1.5, 6.0, 24.0])
    assert a.exponent.iloc[0] == pytest.approx(2.0) and b.exponent.iloc[0] == pytest.approx(0.0)
    by_shape = growth(res, ["time"], "n").drop_duplicates("method")
    assert list(zip(by_shape.method, by_shape.setting, by_shape.exponent)) == [
        ("a", "", a.exponent.iloc[0]), ("b", "", b.exponent.iloc[0])]
    with pytest.raises(MacrocauseError, match="No result has a size 'm'"):
        growth(res, ["time"], "m")


def test_report_cli_writes_ratios_and_growth(toys, tmp_path):
    grid, base = _grid(tmp_path, "plugins: [halves.py]\n", sizes=(20, 40, 80))
    db = tmp_path / "s.db"
    with ResultStore(db) as store:
        compare(grid, store, base=base, progress=False)
        report = build_report(store.results("t"), "t", metrics=["toy_agreement", "time", "cpu", "memory"],
                              peer="halves", growth="n")
    assert {"time", "cpu"} <= set(report.ratios.metric)  # memory: a peer with 0 MiB has no ratio
    assert set(report.growth.method) == {"sign (toy_threshold)", "halves (file_halves)"}
    assert all(list(g["size"]) == [20.0, 40.0, 80.0] for _, g in report.growth.groupby(["metric", "method"]))
    out = tmp_path / "rep"
    result = CliRunner().invoke(main, ["report", "--store", str(db), "--metrics", "toy_agreement,time,memory",
                                       "--peer", "halves", "--growth", "n_samples", "--out", str(out)])
    assert result.exit_code == 1 and "No result has a size 'n_samples'" in result.output
    result = CliRunner().invoke(main, ["report", "--store", str(db), "--metrics", "toy_agreement,time,memory",
                                       "--peer", "halves", "--growth", "n", "--out", str(out)])
    assert result.exit_code == 0, result.output
    for name in ("ratios.csv", "growth.csv", "growth_time.png", "growth_memory.png"):
        assert (out / name).stat().st_size > 0
    text = (out / "report.md").read_text()
    assert "### time relative to halves (file_halves)" in text and "### Growth with n" in text
    assert "Same data: every pipeline saw identical data (by hash) on each of the 6" in text


def test_a_grid_plugin_files_directions_come_from_the_store(toys, tmp_path, plugin_registry):
    """The runner stores what the file's evaluator declares: the report needs neither the file
    nor the registry (it imports nothing)."""
    evaluator = PLUGIN_FILE + '''

from macrocause.framework import Evaluation, Evaluator


class Smallness(Evaluator):
    name = "file_smallness"
    higher_is_better = False

    def _evaluate(self, data, result, truth):
        return Evaluation(float(result.n_clusters))


@hookimpl
def macrocause_register_plugins(register):
    register(Smallness)
'''
    (tmp_path / "halves.py").write_text(evaluator.replace(
        "@hookimpl\ndef macrocause_register_plugins(register):\n    register(Halves)\n", "", 1))
    (tmp_path / "p.yaml").write_text("name: s\nsteps:\n  - {id: sign, partition: toy_threshold}\n"
                                     "  - {evaluate: file_smallness, on: sign}\n")
    (tmp_path / "grid.yaml").write_text("name: t\ndata: [{source: toy_source}]\npipelines: [p.yaml]\n"
                                        "plugins: [halves.py]\n")
    grid, base = Grid.from_yaml(tmp_path / "grid.yaml")
    assert [t.pipeline.seed for t in grid.tasks(base)] == [0]  # no `seeds:`: one seed, 0
    with ResultStore(tmp_path / "s.db") as store:
        compare(grid, store, base=base, progress=False)
        rows = store.results("t")
    (tmp_path / "halves.py").unlink()
    from macrocause.framework import registry

    registry.reset(None)  # a fresh process without the file: the report reads the store only
    try:
        assert rows[0]["extra"]["plugin_files"] == [str(tmp_path / "halves.py")]  # kept as information
        report = build_report(rows, "t", metrics=["file_smallness"])
        assert "file_smallness" not in registry.names()  # nothing was imported
    finally:
        registry.reset(plugin_registry)
    assert report.facts.metrics["file_smallness"].direction == "lower"


def test_undefined_values_are_left_out_of_the_tables_and_counted():
    rows = [_row("a", "h", seed=s) for s in range(3)]
    for r, v in zip(rows, (0.5, float("nan"), 0.7)):
        ev = {**r, "step": "ev", "kind": "evaluate", "on_step": "s", "plugin": "silhouette",
              "metrics": {"silhouette": v},
              "extra": {**r["extra"], "meanings": {"silhouette": {"direction": "higher", "low": -1, "high": 1}}}}
        rows.append(ev)
    report = build_report(rows, metrics=["silhouette"])
    (cell,) = report.cells.itertuples()
    assert (cell.n, cell.mean) == (2, pytest.approx(0.6))
    assert report.facts.undefined == 1
    assert (report.frame.metric == "silhouette").sum() == 3
