"""Files (issue 16.5): example data never goes through a fixed name in /tmp, and a CSV that is
not valid data is named in the error, its content is not quoted."""

import stat
import tempfile
from pathlib import Path

import pytest

from macrocause.framework import Dataset, registry
from macrocause.framework.errors import DataValidationError


@pytest.fixture
def private_tmp(tmp_path, monkeypatch):
    """tempfile's default folder, redirected to this test's own folder."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


def test_mat_example_does_not_follow_a_planted_symlink(private_tmp):
    victim = private_tmp / "victim.mat"
    (private_tmp / "macrocause_mat_example.mat").symlink_to(victim)  # the old fixed name
    ex = registry.get("mat").example()
    assert not victim.exists()
    path = Path(ex.params["path"])
    assert path.parent.parent == private_tmp and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    ds = registry.create("mat", **ex.params).load()
    assert ds.X.shape == (12, 4) and ds.truth["labels"].n_clusters == 2


def test_image_folder_example_does_not_follow_a_planted_symlink(private_tmp):
    victim = private_tmp / "victim"
    victim.mkdir()
    (private_tmp / "macrocause_image_folder_example").symlink_to(victim, target_is_directory=True)
    ex = registry.get("image_folder").example()
    assert list(victim.iterdir()) == []
    folder = Path(ex.params["path"])
    assert folder.parent == private_tmp and stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert sorted(d.name for d in folder.iterdir()) == ["green", "red", "yellow"]
    # two calls, two folders: nothing is shared between users or processes
    assert registry.get("image_folder").example().params["path"] != ex.params["path"]


SECRET = "patient-4711-SECRET"
NON_NUMERIC = (
    "CSV file bad.csv: column '{col}' is non-numeric (it holds text) at data row {row}; variables must "
    "be numbers: encode it as numbers, leave it out with registry.load_data('csv', path=..., columns=[...]), "
    "or name it as the classes with labels='{col}' (or target='{col}')."
)


@pytest.mark.parametrize(
    "content, message",
    [
        (f"a,b\n1,2\n3,{SECRET}\n", NON_NUMERIC.format(col="b", row=2)),
        (f"a,b\n1,2\n3\n{SECRET},4\n",
         "CSV file bad.csv: data row 2 has 1 values for 2 columns; every row needs one value per column."),
        (f"a,b\n{SECRET},1\n", NON_NUMERIC.format(col="a", row=1)),
    ],
)
def test_bad_csv_error_names_the_file_not_the_content(tmp_path, content, message):
    f = tmp_path / "bad.csv"
    f.write_text(content)
    with pytest.raises(DataValidationError) as err:
        Dataset.from_csv(f)
    assert str(err.value) == message
    assert SECRET not in str(err.value)


def test_binary_file_as_csv(tmp_path):
    f = tmp_path / "image.csv"
    f.write_bytes(b"\x89PNG\r\n\x1a\n" + SECRET.encode() + b"\xff\xfe")
    with pytest.raises(DataValidationError, match=r"^CSV file image.csv is not UTF-8 text\.$"):
        Dataset.from_csv(f)


def test_bad_csv_error_stays_out_of_the_store(tmp_path):
    """Through the CLI: the stored step error names the file only."""
    import sqlite3

    from click.testing import CliRunner

    from macrocause.framework.cli import main

    (tmp_path / "bad.csv").write_text(f"a,b\n1,2\n3,{SECRET}\n4,5\n")
    (tmp_path / "p.yaml").write_text(
        f"data: {{source: csv, params: {{path: '{tmp_path / 'bad.csv'}'}}}}\nsteps:\n  - {{id: k, partition: kmeans}}\n"
    )
    db = tmp_path / "r.db"
    res = CliRunner().invoke(main, ["run", str(tmp_path / "p.yaml"), "--store", str(db)])
    assert res.exit_code == 1
    assert "bad.csv" in res.output and SECRET not in res.output
    with sqlite3.connect(db) as con:  # the failed run is stored, with its error
        errors = [e for (e,) in con.execute("SELECT error FROM runs")]
        dump = "\n".join(con.iterdump())
    assert errors == ["DataValidationError: CSV file bad.csv: column 'b' is non-numeric (it holds text) at data row 2; "
                      "variables must be numbers: encode it as numbers, leave it out with data: {source: csv, params: "
                      "{path: bad.csv, columns: [...]}}, or name it as the classes with labels: b (or target: b)."]
    assert SECRET not in dump
