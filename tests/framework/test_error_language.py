"""Errors speak the user's language: the YAML form in a YAML run, the Python form in Python;
a pipeline given to ``compare`` (or a grid to ``run``) is named as such; each error printed once."""

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from macrocause.framework import Dataset, Pipeline, registry
from macrocause.framework.cli import main
from macrocause.framework.errors import DataValidationError, PipelineError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_a_pipeline_given_to_compare_is_named_a_pipeline(tmp_path):
    res = _cli("compare", EXAMPLES / "quickstart.yaml", "--store", tmp_path / "s.db")
    assert res.exit_code == 1
    name = EXAMPLES / "quickstart.yaml"
    assert res.output.strip() == (f"Error: {name} is a pipeline (it has steps:), not a grid: run it with "
                                  f"`macrocause run {name}`, or name it under pipelines: in a grid file.")
    assert not (tmp_path / "s.db").exists()


def test_a_grid_given_to_run_is_named_a_grid():
    res = _cli("run", EXAMPLES / "grid.yaml", "--no-store")
    assert res.exit_code == 1
    name = EXAMPLES / "grid.yaml"
    assert res.output.strip() == (f"Error: {name} is a grid (it has pipelines:), not a pipeline: run it with "
                                  f"`macrocause compare {name}`.")
    with pytest.raises(PipelineError, match=r"not a pipeline: load it with Grid.from_yaml"):
        Pipeline.from_yaml(EXAMPLES / "grid.yaml")


NO_TARGET = """
data: {csv: d.csv}
steps:
  - {id: cafe, partition: cafe_dbscan}
"""


def test_cafe_dbscan_without_target_speaks_yaml_in_a_yaml_run_and_python_in_python(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    (tmp_path / "d.csv").write_text("a,b\n" + "\n".join(f"{x:.3f},{y:.3f}" for x, y in rng.random((30, 2))) + "\n")
    (tmp_path / "p.yaml").write_text(NO_TARGET)
    monkeypatch.chdir(tmp_path)
    res = _cli("run", "p.yaml", "--no-store")
    assert res.exit_code == 1
    assert "needs a target of effect states: name the column that holds them, data: {csv: FILE, target: COLUMN}." \
        in res.output
    assert "Dataset(" not in res.output
    assert res.output.count("needs a target") == 1  # printed once: not in the table and again below it
    assert "[failed]" in res.output
    with pytest.raises(DataValidationError, match=r"build the Dataset with target=\.\.\."):
        registry.create("cafe_dbscan").partition(Dataset(rng.random((30, 2))))


def test_a_data_error_is_printed_once_and_not_under_a_run_step(tmp_path, monkeypatch):
    (tmp_path / "p.yaml").write_text("data: {csv: d.csv, labels: c}\nsteps:\n  - {id: km, partition: kmeans}\n")
    (tmp_path / "d.csv").write_text("a,c\n1,x\n2,\n")
    monkeypatch.chdir(tmp_path)
    res = _cli("run", "p.yaml", "--no-store")
    assert res.exit_code == 1
    assert "<run>" not in res.output and "steps:" not in res.output
    assert res.output.count("data row 2") == 1
    assert res.output.strip().endswith("Error: csv: d.csv, column 'c' has an empty cell at data row 2; fill it in, "
                                       "or mark empty cells as noise with noise: ''.")
