"""Every example under examples/ validates, uses only data that ships with the package, and runs
with `macrocause run` (grids with `macrocause compare`) from a copy of the folder with nothing
beside it. The long ones are marked slow (they still run in CI)."""

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from macrocause.framework.cli import main
from macrocause.framework.compare import Grid
from macrocause.framework.pipeline import Pipeline

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
# runs over about 10 s in the suite at load 6-10 (clic_confounder and cic_sachs about 160 s each)
SLOW = {"cafe_dbscan_auto.yaml", "cause_fs_digits.yaml", "cause_fs_vs_sogfs.yaml", "cic_sachs.yaml",
        "clic_confounder.yaml"}
# a pipeline meant for a grid has no data of its own: it runs with --data
ARGS = {"pc_vs_hill_climb.yaml": ["--data", "discrete_bn:n_variables=6,n_samples=1000"]}
FILES = sorted(p.name for p in EXAMPLES.glob("*.yaml"))


@pytest.mark.parametrize("name", FILES)
def test_example_validates_and_uses_shipped_data(name):
    path = EXAMPLES / name
    text = path.read_text()
    assert "../" not in text and "csv:" not in text, f"{name} reads a file that does not ship with the package"
    comment = text[: text.index("\nname:")]
    assert "What you should see" in comment, f"{name}: its top comment must say what a user should see"
    if "pipelines:" in text:
        grid, base = Grid.from_yaml(path)
        assert grid.tasks(base)
    else:
        assert Pipeline.from_yaml(path).steps


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in FILES])
def test_example_runs_from_a_copy(name, tmp_path, monkeypatch):
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    if "pipelines:" in (tmp_path / "examples" / name).read_text():
        args = ["compare", f"examples/{name}", "--store", "grid.db"]
    else:
        args = ["run", f"examples/{name}", "--no-store", *ARGS.get(name, [])]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    if args[0] == "run":
        assert "\noutputs:\n" in res.output and "\nresults:\n" in res.output, res.output
    else:
        assert " 0 failed, 0 timed out" in res.output, res.output


def test_a_pipeline_without_data_says_how_to_run_it(tmp_path, monkeypatch):
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(main, ["run", "examples/pc_vs_hill_climb.yaml", "--no-store"])
    assert res.exit_code == 1
    assert res.output.strip().splitlines()[-1] == (
        "Error: examples/pc_vs_hill_climb.yaml: this pipeline has no data: run it through a grid "
        "(`macrocause compare examples/grid.yaml`) or give `--data SOURCE`.")
