"""A grid's data entry sets step parameters (``set: {step.param: value}``) of the pipelines run on it."""

import pytest

from macrocause.framework import PipelineError
from macrocause.framework.compare import Grid, compare
from macrocause.framework.report import build_report
from macrocause.framework.store import ResultStore

TOY = """
name: toy
steps:
  - {id: groups, partition: toy_threshold}
  - {evaluate: toy_agreement, on: groups}
"""
# the same pipeline with another step id: it has no step 'groups', so a data entry's set leaves it alone
OTHER = TOY.replace("name: toy", "name: other").replace("groups", "split")


def _grid(tmp_path, data, pipelines="[toy.yaml, other.yaml]", extra=""):
    (tmp_path / "toy.yaml").write_text(TOY)
    (tmp_path / "other.yaml").write_text(OTHER)
    (tmp_path / "g.yaml").write_text(f"name: g\ndata:\n{data}pipelines: {pipelines}\nseeds: 2\n{extra}")
    return Grid.from_yaml(tmp_path / "g.yaml")


DATA = ("  - {source: toy_source, params: {n: 20}, name: plain}\n"
        "  - {source: toy_source, params: {n: 20}, name: second, set: {groups.column: 1}}\n")


def _params(tasks, pipeline, data):
    return [dict(t.pipeline.steps[0].params) for t in tasks
            if t.pipeline.name == pipeline and t.pipeline.data.name == data]


def test_a_data_entry_sets_the_parameter_of_the_pipelines_with_that_step(toys, tmp_path):
    grid, base = _grid(tmp_path, DATA)
    tasks = grid.tasks(base)
    assert len(tasks) == 8
    assert _params(tasks, "toy", "second") == [{"column": 1}] * 2
    assert _params(tasks, "toy", "plain") == [{}] * 2
    assert _params(tasks, "other", "second") == [{}] * 2  # no step 'groups': unchanged
    # the recorded data is the data spec alone
    assert all("set" not in t.pipeline.to_dict()["data"] for t in tasks)


def test_the_run_is_the_one_the_pipeline_would_give_naming_the_parameter(toys, tmp_path):
    grid, base = _grid(tmp_path, DATA, pipelines="[toy.yaml]")
    via_set = {t.key for t in grid.tasks(base) if t.pipeline.data.name == "second"}
    (tmp_path / "toy.yaml").write_text(TOY.replace("toy_threshold}", "toy_threshold, params: {column: 1}}"))
    (tmp_path / "g.yaml").write_text("name: g\ndata:\n  - {source: toy_source, params: {n: 20}, name: second}\n"
                                     "pipelines: [toy.yaml]\nseeds: 2\n")
    grid2, base2 = Grid.from_yaml(tmp_path / "g.yaml")
    assert len(via_set) == 2 and {t.key for t in grid2.tasks(base2)} == via_set


def test_stored_parameters_and_a_rerun(toys, tmp_path):
    grid, base = _grid(tmp_path, DATA, pipelines="[toy.yaml]")
    with ResultStore(tmp_path / "r.db") as store:
        assert compare(grid, store, base=base, progress=False)["done"] == 4
        rows = [r for r in store.rows() if r["step"] == "groups"]
        assert sorted((r["data_label"], r["params"].get("column")) for r in rows) == [
            ("plain", 0), ("plain", 0), ("second", 1), ("second", 1)]
        # column 1 is a noisy copy of column 0 (the truth's column): agreement below 1 there only
        ev = {r["data_label"]: r["metrics"]["toy_agreement"] for r in store.rows() if r["kind"] == "evaluate"}
        assert ev["plain"] == 1.0 and ev["second"] < 1.0
        again = compare(grid, store, base=base, progress=False)
        assert again == {"total": 4, "skipped": 4, "done": 0, "failed": 0, "timeout": 0}
        assert store.count_runs() == 4
        # the report's cells: the data entry's parameter is the data's, so one method on both
        # data sets (not one per value), n = the 2 seeds each
        cells = build_report(store.rows()).cells
        cells = list(cells[cells.metric == "toy_agreement"].itertuples())
        assert sorted((c.data, c.method, c.n) for c in cells) == [
            ("plain", "groups (toy_threshold)", 2), ("second", "groups (toy_threshold)", 2)]


@pytest.mark.parametrize(("data", "extra", "message"), [
    ("  - {source: toy_source, set: {grups.column: 1}}\n", "",
     "data entry 1 (toy_source): set: no pipeline of the grid has a step 'grups'; its step ids: "
     "['evaluate_groups', 'evaluate_split', 'groups', 'split']."),
    ("  - {source: toy_source, set: {groups.colum: 1}}\n", "",
     "grid pipeline 1 on data entry 1 (toy_source): step 1 ('groups'): "),
    ("  - {source: toy_source, set: {groups: 1}}\n", "",
     "'groups' must be 'step_id.param'"),
])
def test_bad_step_parameters_are_named(toys, tmp_path, data, extra, message):
    with pytest.raises(PipelineError) as err:
        grid, base = _grid(tmp_path, data, extra=extra)
        grid.tasks(base)
    assert message in str(err.value)
    if "colum:" in data:
        assert "colum" in str(err.value)


def test_a_swept_parameter_cannot_also_be_set(toys, tmp_path):
    (tmp_path / "toy.yaml").write_text(TOY + "sweep: {groups.column: [0, 1]}\n")
    (tmp_path / "g.yaml").write_text("data: [{source: toy_source, set: {groups.column: 1}}]\npipelines: [toy.yaml]\n")
    grid, base = Grid.from_yaml(tmp_path / "g.yaml")
    with pytest.raises(PipelineError, match=r"grid pipeline 1 on data entry 1 \(toy_source\): set 'groups.column' "
                                            r"is also swept by the pipeline; give it in one place"):
        grid.tasks(base)


def test_a_parameter_swept_on_each_data_set_still_makes_two_methods(toys, tmp_path):
    (tmp_path / "toy.yaml").write_text(TOY + "sweep: {groups.column: [0, 1]}\n")
    (tmp_path / "g.yaml").write_text("name: g\ndata:\n  - {source: toy_source, params: {n: 20}, name: a}\n"
                                     "  - {source: toy_source, params: {n: 30}, name: b}\npipelines: [toy.yaml]\n"
                                     "seeds: 2\n")
    grid, base = Grid.from_yaml(tmp_path / "g.yaml")
    with ResultStore(tmp_path / "r.db") as store:
        assert compare(grid, store, base=base, progress=False)["done"] == 8
        cells = build_report(store.rows()).cells
        cells = list(cells[cells.metric == "toy_agreement"].itertuples())
    methods = sorted({c.method for c in cells})
    assert len(methods) == 2 and "column=0" in methods[0] and "column=1" in methods[1]
    assert all(c.n == 2 for c in cells) and len(cells) == 4
