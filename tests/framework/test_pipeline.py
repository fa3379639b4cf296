import numpy as np
import pytest
import toy_plugins

from macrocause.framework import Dataset, PipelineError
from macrocause.framework.pipeline import Pipeline, Step

YAML = """
name: toy
data: {source: toy_source, params: {n: 30}}
seed: 3
steps:
  - {id: groups, partition: toy_threshold}
  - {evaluate: toy_agreement, on: groups}
  - {id: macro, augment: groups, name: Z}
  - {id: vars, partition: toy_select}
  - {id: graph, search: toy_chain, init: vars}
  - {evaluate: [toy_edges], on: graph}
  - {id: sel, select: vars}
"""


@pytest.fixture
def toys(plugin_registry):
    plugin_registry.register_module(toy_plugins, "toys")
    return plugin_registry


def test_yaml_python_roundtrip(toys):
    p = Pipeline.from_yaml(YAML)
    assert Pipeline.from_yaml(p.to_yaml()) == p
    q = Pipeline(
        [Step(id="groups", partition="toy_threshold"), {"evaluate": "toy_agreement", "on": "groups"},
         Step(id="macro", augment="groups", name="Z"), Step(id="vars", partition="toy_select"),
         Step(id="graph", search="toy_chain", init="vars"),
         Step(evaluate=["toy_edges"], on="graph"), Step(id="sel", select="vars")],
        data={"source": "toy_source", "params": {"n": 30}}, seed=3, name="toy",
    )
    assert q == p


def test_run_composes_steps(toys):
    res = Pipeline.from_yaml(YAML).run()
    assert res.ok
    assert res.evaluations()["groups"]["toy_agreement"] == 1.0
    assert res.outputs["macro"].names == ("a", "b", "c", "Z")
    assert np.array_equal(res.outputs["macro"].column("Z"), res.outputs["groups"].labels)
    g = res.outputs["graph"]
    assert set(g.clusters) == {frozenset({"a", "b"}), frozenset({"c", "Z"})}
    assert res.evaluations()["graph"]["toy_edges"] == 1.0
    assert res.outputs["sel"].names == ("a", "b")
    assert res.dataset.names == ("a", "b")
    assert res.seed == 3


def test_seed_reaches_stochastic_plugins(toys):
    p = Pipeline.from_yaml(YAML)
    a = p.run(seed=1).outputs["macro"]
    b = p.run(seed=1).outputs["macro"]
    c = p.run(seed=2).outputs["macro"]
    assert a == b and a != c


@pytest.mark.parametrize(
    "steps, match",
    [
        ("- {partition: nope}", "step 1 \\('nope'\\): Unknown plugin 'nope'"),
        ("- {partition: toy_threshold, params: {column: -1}}",
         "step 1 \\('toy_threshold'\\): The 'column' parameter of toy_threshold must be >= 0"),
        ("- {id: g, search: toy_chain, init: missing}",
         "step 1 \\('g'\\): 'init: missing' does not name an earlier step"),
        ("- {id: s, partition: toy_threshold}\n  - {id: g, search: toy_chain, init: s}",
         "step 2 \\('g'\\): 'init: s' must partition variables, but toy_threshold partitions samples"),
        ("- {id: v, partition: toy_select}\n  - {augment: v}",
         "'augment: v' must partition samples"),
        ("- {partition: toy_edges}", "'toy_edges' is a evaluator, not a partitioner"),
        ("- {id: s, partition: toy_threshold}\n  - {evaluate: toy_edges, on: s}",
         "toy_edges rates a graph, but 's' gives a partition"),
        ("- {partition: toy_threshold}\n  - {partition: toy_threshold}", "the id 'toy_threshold' is used twice"),
        ("- {partition: toy_threshold, search: toy_chain}", "step 1: a step needs exactly one of"),
        ("- {evaluate: toy_agreement}", "an evaluate step needs 'on'"),
        ("- {partition: toy_threshold, colour: red}", "step 1: unknown key 'colour'"),
        ("- {partition: toy_threshold, init: x}", "'init' does not apply to a partition step"),
    ],
)
def test_invalid_pipelines_name_the_step(toys, steps, match):
    text = f"data: {{source: toy_source}}\nsteps:\n  {steps}\n"
    with pytest.raises(PipelineError, match=match):
        Pipeline.from_yaml(text)


def test_bad_yaml_and_data_spec(toys, tmp_path):
    with pytest.raises(PipelineError, match="invalid YAML at line 3"):
        Pipeline.from_yaml("steps:\n  - {partition: [unclosed\n")
    with pytest.raises(PipelineError, match="give exactly one of 'source'"):
        Pipeline.from_yaml("data: {}\nsteps: [{partition: toy_threshold}]\n")
    with pytest.raises(PipelineError, match="data: Unknown plugin 'nosource'"):
        Pipeline.from_yaml("data: {source: nosource}\nsteps: [{partition: toy_threshold}]\n")
    with pytest.raises(PipelineError, match="Pipeline file not found"):
        Pipeline.from_yaml(tmp_path / "none.yaml")
    with pytest.raises(PipelineError, match="no steps"):
        Pipeline.from_yaml("data: {source: toy_source}\nsteps: []\n")


def test_missing_truth_is_reported_before_running(toys):
    p = Pipeline.from_yaml(
        "data: {source: toy_source}\nsteps:\n  - {id: s, partition: toy_threshold}\n"
        "  - {evaluate: toy_agreement, on: s, truth: nothing}\n"
    )
    with pytest.raises(PipelineError, match="no ground truth 'nothing'; it has \\['graph', 'labels'\\]"):
        p.run()


def test_csv_data_relative_to_yaml(toys, tmp_path):
    (tmp_path / "d.csv").write_text("a,b\n1,2\n-1,3\n2,-4\n")
    (tmp_path / "p.yaml").write_text("data: {csv: d.csv}\nsteps: [{partition: toy_threshold}]\n")
    res = Pipeline.from_yaml(tmp_path / "p.yaml").run()
    assert res.outputs["toy_threshold"].labels.tolist() == [1, 0, 1]
    assert res.data == "d" and res.pipeline == "p"


def test_run_on_a_dataset_and_failures_recorded(toys):
    p = Pipeline.from_yaml("steps:\n  - {id: s, partition: toy_threshold, params: {column: 5}}\n"
                           "  - {id: m, augment: s}\n")
    ds = Dataset(np.ones((4, 2)))
    res = p.run(ds, stop_on_error=False)
    assert [r.status for r in res.records] == ["failed", "failed"]
    assert "IndexError" in res.records[0].error
    assert "depends on failed step" in res.records[1].error
    with pytest.raises(IndexError):
        p.run(ds)


def test_steps_after_a_failed_augment_are_skipped(toys):
    # the search runs on the augmented data, so it must not run on the data without Z
    p = Pipeline.from_yaml("steps:\n  - {id: s, partition: toy_threshold, params: {column: 5}}\n"
                           "  - {id: m, augment: s}\n  - {id: g, search: toy_chain}\n")
    res = p.run(Dataset(np.ones((4, 2))), stop_on_error=False)
    assert [r.status for r in res.records] == ["failed", "failed", "failed"]
    assert "['m']" in res.records[2].error and "g" not in res.outputs


def test_records_describe_graphs_and_partitions(toys):
    res = Pipeline.from_yaml(YAML).run()
    out = {r.step: r.output for r in res.records if r.output}
    # toy_threshold on column 0; toy_select keeps a, b (of a, b, c, Z); toy_chain links its two clusters
    n1 = int(res.outputs["groups"].labels.sum())
    assert out["groups"] == f"2 clusters of sizes [{30 - n1}, {n1}]"
    # a feature selection prints as one (issue 12 part 3); labels are only selected-vs-rest here
    assert out["vars"] == "selected 2 of 4 features (best first): a, b"
    assert out["graph"] == "clusters Z,c; a,b; edges a,b -> Z,c"


def test_sweep_expands_a_grid(toys):
    p = Pipeline.from_yaml(
        "data: {source: toy_source}\nsteps: [{id: s, partition: toy_threshold}]\n"
        "sweep: {s.column: [0, 1, 2]}\n"
    )
    runs = p.expand()
    assert [q.steps[0].params["column"] for q in runs] == [0, 1, 2]
    assert runs[1].name.endswith("[s.column=1]")
    with pytest.raises(PipelineError, match="step_id.param"):
        p.with_overrides({"nope.column": 1})
