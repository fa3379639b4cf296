"""A folder written all at once: the old one stays whole when writing fails."""

import pytest

from framework.atomic import atomic_folder
from framework.errors import PipelineError


def test_the_new_folder_replaces_the_old_one_only_when_complete(tmp_path):
    out = tmp_path / "report"
    out.mkdir()
    (out / "old.txt").write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_folder(out) as tmp:
            (tmp / "half.txt").write_text("half")
            raise RuntimeError("writing failed")
    assert sorted(p.name for p in out.iterdir()) == ["old.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]  # no temporary folder left
    with atomic_folder(out) as tmp:
        (tmp / "new.txt").write_text("new")
    assert sorted(p.name for p in out.iterdir()) == ["new.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]


def test_a_file_in_the_way_is_refused(tmp_path):
    (tmp_path / "report").write_text("x")
    with pytest.raises(PipelineError, match="exists and is not a folder"):
        with atomic_folder(tmp_path / "report"):
            pass
