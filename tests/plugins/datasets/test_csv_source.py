"""One CSV source for data and truth: labels and target by column name, factorised exactly;
one path rule for every source that reads a file; errors naming file, column, row and folders."""

import numpy as np
import pytest
from click.testing import CliRunner

from macrocause.framework import registry
from macrocause.framework.cli import main
from macrocause.framework.errors import DataValidationError


def _two_groups(path, labels):
    rng = np.random.default_rng(0)
    rows = ["a,b,label"]
    for i, lab in enumerate(labels):
        centre = 0.0 if i < len(labels) // 2 else 10.0
        a, b = centre + 0.1 * rng.standard_normal(2)
        rows.append(f"{a:.5f},{b:.5f},{lab}")
    path.write_text("\n".join(rows) + "\n")
    return path


def test_close_float_labels_are_two_classes_and_text_labels_read(tmp_path):
    f = _two_groups(tmp_path / "f.csv", ["-0.05"] * 10 + ["0.05"] * 10)
    ds = registry.load_data("csv", path=str(f), labels="label")
    assert ds.names == ("a", "b")
    assert ds.truth["labels"].labels.tolist() == [0] * 10 + [1] * 10
    t = _two_groups(tmp_path / "t.csv", ["red"] * 10 + ["blue"] * 10)
    assert registry.load_data("csv", path=str(t), labels="label").truth["labels"].labels.tolist() == [1] * 10 + [0] * 10


def test_whole_numbers_stay_codes_and_noise_only_when_said(tmp_path):
    f = _two_groups(tmp_path / "f.csv", ["1", "1.0", "3", "-1"] * 5)
    ds = registry.load_data("csv", path=str(f), labels="label", noise=-1)
    assert ds.truth["labels"].labels.tolist()[:4] == [1, 1, 3, -1]
    unsaid = registry.load_data("csv", path=str(f), labels="label").truth["labels"].labels
    assert unsaid.tolist()[:4] == [1, 1, 2, 0]  # -1 is a class of its own: numbered in sorted order
    e = _two_groups(tmp_path / "e.csv", ["x", "", "y", "x"] * 5)
    with pytest.raises(DataValidationError) as err:
        registry.load_data("csv", path=str(e), labels="label")
    assert str(err.value) == ("csv: e.csv, column 'label' has an empty cell at data row 2; fill it in, or mark "
                              "empty cells as noise with noise=''.")
    assert registry.load_data("csv", path=str(e), labels="label", noise="").truth["labels"].labels.tolist()[:4] == [
        0, -1, 1, 0]


def test_target_and_labels_together_leave_the_variables(tmp_path):
    f = tmp_path / "d.csv"
    f.write_text("a,y,c\n1,0.25,u\n2,-0.25,v\n3,0.25,u\n")
    ds = registry.load_data("csv", path=str(f), target="y", labels="c")
    assert ds.names == ("a",) and ds.target.tolist() == [0.25, -0.25, 0.25]
    assert ds.truth["labels"].labels.tolist() == [0, 1, 0]
    with pytest.raises(DataValidationError, match=r"csv: d.csv has no labels column 'z'; its columns are \['a', 'y', 'c'\]"):
        registry.load_data("csv", path=str(f), labels="z")


PIPELINE = """
data: {csv: %s, labels: label}
steps:
  - {id: km, partition: kmeans, params: {n_clusters: 2}}
  - {evaluate: [nmi], on: km, truth: labels}
"""


def test_labels_through_macrocause_run_give_nmi_one(tmp_path, monkeypatch):
    project = tmp_path / "project"
    project.mkdir()
    _two_groups(project / "f.csv", ["-0.05"] * 10 + ["0.05"] * 10)
    (project / "p.yaml").write_text(PIPELINE % "f.csv")
    monkeypatch.chdir(tmp_path)  # the file is found beside the YAML file, not in the working directory
    res = CliRunner().invoke(main, ["run", str(project / "p.yaml"), "--no-store"])
    assert res.exit_code == 0, res.output
    nmi = next(line for line in res.output.splitlines() if line.strip().startswith("nmi"))
    assert nmi.split()[-1] == "1"


def test_text_in_a_variable_speaks_yaml_in_a_yaml_run_and_python_in_python(tmp_path, monkeypatch):
    f = tmp_path / "d.csv"
    f.write_text("a,kind\n1,x\n2,y\n")
    (tmp_path / "p.yaml").write_text("data: {csv: d.csv}\nsteps:\n  - {id: km, partition: kmeans, params: {n_clusters: 2}}\n")
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(main, ["run", "p.yaml", "--no-store"])
    assert res.exit_code == 1
    assert ("column 'kind' is non-numeric (it holds text) at data row 1; variables must be numbers: encode it as "
            "numbers, leave it out with data: {source: csv, params: {path: d.csv, columns: [...]}}, or name it as "
            "the classes with labels: kind (or target: kind).") in res.output
    assert res.output.count("non-numeric") == 1
    with pytest.raises(DataValidationError, match=r"registry.load_data\('csv', path=..., columns=\[...\]\)"):
        registry.load_data("csv", path=str(f))


@pytest.mark.parametrize("source, make", [
    ("csv", lambda p: p.write_text("a,b\n1,2\n3,4\n")),
    ("mat", lambda p: __import__("scipy.io").io.savemat(p, {"X": np.ones((4, 2)), "Y": np.array([[1], [2], [1], [2]])})),
])
def test_one_path_rule_yaml_folder_then_working_directory_then_macrocause_data(tmp_path, monkeypatch, source, make):
    name = "d.csv" if source == "csv" else "d.mat"
    yaml_dir, cwd, shared = (tmp_path / n for n in ("yaml", "cwd", "shared"))
    for d in (yaml_dir, cwd, shared):
        d.mkdir()
    monkeypatch.chdir(cwd)
    monkeypatch.setenv("MACROCAUSE_DATA", str(shared))
    with pytest.raises(DataValidationError) as err:
        registry.load_data(source, path=name)
    assert str(err.value) == f"{source}: file '{name}' not found; looked in {cwd.resolve()}, {shared.resolve()}."
    make(shared / name)
    assert registry.load_data(source, path=name).shape[0] in (2, 4)  # found in MACROCAUSE_DATA
    make(cwd / name)
    (cwd / name).write_bytes((shared / name).read_bytes())
    from macrocause.framework.pipeline import load_dataset

    spec = {"csv": name} if source == "csv" else {"source": "mat", "params": {"path": name}}
    (yaml_dir / name).write_text("a\n1\n2\n3\n") if source == "csv" else None
    ds = load_dataset(spec, base=yaml_dir)
    assert ds.shape == ((3, 1) if source == "csv" else (4, 2))  # the YAML file's folder wins for csv


def test_a_missing_file_names_every_folder_looked_in_from_a_yaml_run(tmp_path, monkeypatch):
    (tmp_path / "p.yaml").write_text("data: {csv: nowhere.csv}\nsteps:\n  - {id: km, partition: kmeans}\n")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.delenv("MACROCAUSE_DATA", raising=False)
    res = CliRunner().invoke(main, ["run", str(tmp_path / "p.yaml"), "--no-store"])
    assert res.exit_code == 1
    assert (f"csv: file 'nowhere.csv' not found; looked in {tmp_path.resolve()}, {work.resolve()}; set "
            "MACROCAUSE_DATA to the folder that holds it.") in res.output
