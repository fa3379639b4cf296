"""The pipeline package: step kinds as classes, immutability, typed transforms, error messages."""

from typing import ClassVar

import numpy as np
import pytest
import toy_plugins

from macrocause.framework import Dataset, DataValidationError, Partition, PipelineError
from macrocause.framework.pipeline import STEP_KINDS, Pipeline, Produced, Step
from macrocause.framework.pipeline.startup import startup_clock


@pytest.fixture
def toys(plugin_registry):
    plugin_registry.register_module(toy_plugins, "toys")
    return plugin_registry


def test_a_new_step_kind_is_one_class(toys):
    class Scale(Step):
        kind: ClassVar[str] = "scale"
        changes_data: ClassVar[bool] = True
        scale: float

        def check(self, ctx):
            return Produced("data")

        def run(self, ctx):
            return Dataset(ctx.data.X * self.scale, names=ctx.data.names)

    try:
        p = Pipeline.from_yaml("data: {source: toy_source, params: {n: 10}}\n"
                               "steps: [{id: s, scale: -1}, {id: t, partition: toy_threshold}]\n")
        assert isinstance(p.steps[0], Scale) and Pipeline.from_yaml(p.to_yaml()) == p
        res = p.run()
        src = toy_plugins.ToySource(n=10, seed=0).load()
        assert np.array_equal(res.outputs["s"].X, -src.X)
        assert res.outputs["t"].labels.tolist() == (src.X[:, 0] < 0).astype(int).tolist()
    finally:
        STEP_KINDS.pop("scale")


def test_pipeline_is_immutable_and_with_methods_copy(toys):
    p = Pipeline.from_yaml("data: {source: toy_source}\nsteps: [{id: s, partition: toy_threshold}]\n")
    with pytest.raises(AttributeError, match="immutable"):
        p.seed = 3
    with pytest.raises(Exception, match="frozen"):
        p.steps[0].partition = "x"
    q = p.with_seed(5).with_overrides({"s.column": 1})
    assert (p.seed, q.seed) == (0, 5) and p.steps[0].params == {} and q.steps[0].params == {"column": 1}


@pytest.mark.parametrize("text, match", [
    ("data: {source: toy_source}\nsteps: [{partition: toy_threshold, parms: {column: 1}}]\n",
     "step 1: unknown key 'parms'; a partition step takes id, partition, params. Did you mean 'params'\\?"),
    ("data: {sorce: toy_source}\nsteps: [{partition: toy_threshold}]\n",
     "data: unknown key 'sorce'; data takes source, params, csv, target, labels, noise, name. Did you mean 'source'\\?"),
    ("data: {source: toy_source}\nstpes: [{partition: toy_threshold}]\n",
     "unknown key 'stpes'; pipeline takes name, data, seed, steps, sweep. Did you mean 'steps'\\?"),
    ("steps: [{partiton: toy_threshold}]\n", "step 1: unknown key 'partiton'.*Did you mean 'partition'\\?"),
])
def test_unknown_keys_list_the_allowed_ones(toys, text, match):
    with pytest.raises(PipelineError, match=match):
        Pipeline.from_yaml(text)


def test_missing_truth_names_what_the_data_offers(toys, tmp_path):
    p = Pipeline.from_yaml("steps:\n  - {id: s, partition: toy_threshold}\n"
                           "  - {evaluate: toy_agreement, on: s, truth: graf}\n")
    with pytest.raises(PipelineError, match="no ground truth 'graf'; it has \\['graph', 'labels'\\] "
                                            "\\(from toy_source\\): set 'truth:' to one of them"):
        p.run({"source": "toy_source"})
    (tmp_path / "d.csv").write_text("a,b\n1,2\n-1,3\n")
    with pytest.raises(PipelineError, match="it has none: d.csv ships no ground truth. Use a data source"):
        p.run({"csv": str(tmp_path / "d.csv")})


def test_augment_noise_options(toys):
    ds = Dataset(np.arange(8.0).reshape(4, 2), truth={"labels": Partition([0, 0, 1, 1])})
    part = Partition([0, -1, 1, 1])
    assert ds.with_partition(part, "Z").column("Z").tolist() == [0, -1, 1, 1]
    dropped = ds.with_partition(part, "Z", noise="drop")
    assert dropped.column("Z").tolist() == [0, 1, 1] and dropped.X[:, 0].tolist() == [0, 4, 6]
    with pytest.raises(DataValidationError, match="1 samples are noise"):
        ds.with_partition(part, "Z", noise="error")
    with pytest.raises(DataValidationError, match="partition of the samples"):
        ds.with_partition(Partition([0, 1], axis="variables"), "Z")
    p = Pipeline.from_yaml("steps: [{id: s, partition: toy_threshold}, {id: m, augment: s, noise: drop}]\n")
    assert p.run(ds).outputs["m"].names == ("x0", "x1", "s")


def test_selected_is_typed_and_mirrored_in_info():
    p = Partition([0, 1, 0], axis="variables", info={"selected": [2, 0]})
    assert p.selected.tolist() == [2, 0] and p.info["selected"] is p.selected
    assert Partition([0, 1, 0], axis="variables", selected=np.array([1])).info["selected"].tolist() == [1]
    assert Partition([0, 1]).selected is None
    with pytest.raises(DataValidationError, match="must lie in \\[0, 3\\)"):
        Partition([0, 1, 0], axis="variables", selected=[3])
    with pytest.raises(DataValidationError, match="needs axis='variables'"):
        Partition([0, 1], selected=[0])


def test_select_step_needs_a_selection(toys):
    p = Pipeline.from_yaml("steps: [{id: v, partition: toy_select}, {id: k, select: v}]\n")
    assert p.run(Dataset(np.eye(3) + np.arange(3))).outputs["k"].names == ("x0", "x1")


def test_startup_clock_counts_new_imports_once(tmp_path, monkeypatch):
    import importlib
    import sys

    (tmp_path / "startup_probe.py").write_text("import time\ntime.sleep(0.05)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    try:
        with startup_clock() as first:
            import startup_probe  # noqa: F401
        with startup_clock() as again:
            import startup_probe  # noqa: F401,F811
        assert first.seconds >= 0.05 and again.seconds == 0.0
    finally:
        sys.modules.pop("startup_probe", None)


def test_records_split_wall_and_startup_time(toys):
    res = Pipeline.from_yaml("data: {source: toy_source}\nsteps: [{id: s, partition: toy_threshold, "
                             "params: {sleep: 0.02}}]\n").run()
    rec = res.records[0]
    assert rec.wall_s >= 0.02 and 0.0 <= rec.startup_s <= rec.wall_s


def test_run_with_data_option_stores_wall_and_startup(toys, tmp_path):
    from click.testing import CliRunner

    from macrocause.framework.cli import main
    from macrocause.framework.store import ResultStore

    (tmp_path / "p.yaml").write_text("steps: [{id: s, partition: toy_threshold}, "
                                     "{evaluate: toy_agreement, on: s}]\n")
    res = CliRunner().invoke(main, ["run", str(tmp_path / "p.yaml"), "--no-store"])
    assert res.exit_code == 1
    assert res.output.strip().splitlines()[-1].endswith(
        "this pipeline has no data: run it through a grid (`macrocause compare examples/grid.yaml`) "
        "or give `--data SOURCE`.")
    db = tmp_path / "r.db"
    res = CliRunner().invoke(main, ["run", str(tmp_path / "p.yaml"), "--data", "toy_source:n=12,seed=1",
                                    "--store", str(db)])
    assert res.exit_code == 0, res.output
    assert "wall_s  startup_s" in res.output
    with ResultStore(db) as store:
        rows = store.rows()
    assert [r["source_params"] for r in rows] == [{"n": 12, "seed": 1}] * 2
    assert all(r["seconds"] >= r["startup_s"] >= 0 for r in rows)
    res = CliRunner().invoke(main, ["run", str(tmp_path / "p.yaml"), "--data", "toy_source:nn=3", "--no-store"])
    assert res.exit_code == 1 and "'nn'" in res.output


def test_graphs_with_undirected_edges_are_named_pdags():
    from macrocause.framework import CausalGraph
    from macrocause.framework.pipeline import describe_output

    cpdag = CausalGraph.from_edges(["a", "b", "c"], undirected=[("a", "b"), ("b", "c")])
    assert describe_output(cpdag) == "PDAG (2 undirected of 2 edges): edges a - b, b - c"
    assert repr(cpdag) == "CausalGraph(PDAG: 3 nodes, 0 directed, 2 undirected)"
    dag = CausalGraph.from_edges(["a", "b"], [("a", "b")])
    assert describe_output(dag) == "edges a -> b" and repr(dag).startswith("CausalGraph(DAG:")


def test_feature_selection_prints_features_and_granularities():
    from macrocause.framework.pipeline import describe_output

    part = Partition([2, 0, 2, 1], axis="variables", names=list("abcd"), selected=[2, 1])
    assert describe_output(part) == ("selected 2 of 4 features (best first, granularity in brackets): "
                                     "c [2], b [0]; 3 granularities in all")


def test_the_ground_floor_has_no_cycle():
    """roles imports neither the registry nor the test kit, even lazily (scorer names resolve in the
    registry, default examples in the test kit)."""
    import ast
    from pathlib import Path

    import macrocause.framework.roles

    tree = ast.parse(Path(macrocause.framework.roles.__file__).read_text())
    names = {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    names |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert names and not [m for m in names if m.split(".")[0] in ("registry", "testing", "pipeline")
                          or "macrocause.framework." in m], names
