"""A folder written all at once: the old one stays whole when writing fails."""

import pytest

from macrocause.framework.atomic import MARKER, atomic_folder
from macrocause.framework.errors import PipelineError


def test_the_new_folder_replaces_the_old_one_only_when_complete(tmp_path):
    out = tmp_path / "report"
    with atomic_folder(out) as tmp:
        (tmp / "old.txt").write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_folder(out) as tmp:
            (tmp / "half.txt").write_text("half")
            raise RuntimeError("writing failed")
    assert sorted(p.name for p in out.iterdir()) == [MARKER, "old.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]  # no temporary folder left
    with atomic_folder(out) as tmp:
        (tmp / "new.txt").write_text("new")
    assert sorted(p.name for p in out.iterdir()) == [MARKER, "new.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]


def test_a_file_in_the_way_is_refused(tmp_path):
    (tmp_path / "report").write_text("x")
    with pytest.raises(PipelineError, match="exists and is not a folder"):
        with atomic_folder(tmp_path / "report"):
            pass


def test_a_folder_it_did_not_write_is_refused_and_kept(tmp_path):
    out = tmp_path / "myproject"
    (out / "src").mkdir(parents=True)
    (out / "thesis.tex").write_text("years of work")
    with pytest.raises(PipelineError, match="did not write") as exc:
        with atomic_folder(out) as tmp:
            (tmp / "report.md").write_text("x")
    assert "\n" not in str(exc.value)
    assert sorted(p.name for p in out.iterdir()) == ["src", "thesis.tex"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["myproject"]


def test_a_file_added_to_a_written_folder_makes_it_foreign(tmp_path):
    out = tmp_path / "r"
    with atomic_folder(out) as tmp:
        (tmp / "a.csv").write_text("1")
    (out / "notes.txt").write_text("mine")
    with pytest.raises(PipelineError, match="'notes.txt'"):
        with atomic_folder(out):
            pass
    assert (out / "notes.txt").read_text() == "mine"


def test_the_current_folder_and_its_parents_are_refused(tmp_path, monkeypatch):
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    for target in (".", "..", str(tmp_path)):
        with pytest.raises(PipelineError, match="current folder"):
            with atomic_folder(target):
                pass
    assert (tmp_path / "sub").is_dir()


def test_an_empty_folder_and_a_legacy_report_folder_are_replaced(tmp_path):
    (tmp_path / "empty").mkdir()
    with atomic_folder(tmp_path / "empty") as tmp:
        (tmp / "report.md").write_text("new")
    old = tmp_path / "old"
    old.mkdir()
    for name in ("report.md", "results.csv", "ari.png"):
        (old / name).write_text("old")
    legacy = ("report.md", "*.csv", "*.png")
    with atomic_folder(old, legacy) as tmp:
        (tmp / "report.md").write_text("new")
    assert sorted(p.name for p in old.iterdir()) == [MARKER, "report.md"]
    # without report.md the same kinds of files are not taken for a report folder
    pics = tmp_path / "pics"
    pics.mkdir()
    (pics / "holiday.png").write_text("photo")
    with pytest.raises(PipelineError, match="holiday.png"):
        with atomic_folder(pics, legacy):
            pass
