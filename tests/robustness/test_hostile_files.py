"""Hostile grid, pipeline and CSV files are refused fast, in one short line (issue 25, points 4 and 5)."""

from __future__ import annotations

import time

import numpy as np
import pytest
from click.testing import CliRunner

from macrocause.framework import Dataset
from macrocause.framework.cli import main
from macrocause.framework.errors import DataValidationError, MemoryBudgetError, PipelineError
from macrocause.framework.pipeline.yaml_io import MAX_ALIAS_VALUES, load_yaml
from macrocause.framework.readers import csv_memory


def bomb(levels: int) -> str:
    """The issue's alias bomb: each level lists the previous one nine times (9**levels values)."""
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    for i in range(1, levels):
        p = f"*a{i - 1}"
        lines.append(f"a{i}: &a{i} [{', '.join([p] * 9)}]")
    return ("name: g\ndata:\n  - source: toy_source\n    params:\n      " + "\n      ".join(lines)
            + f"\n      n: *a{levels - 1}\npipelines: [p.yaml]\n")


def _compare(tmp_path, text):
    (tmp_path / "g.yaml").write_text(text)
    start = time.monotonic()
    res = CliRunner().invoke(main, ["compare", str(tmp_path / "g.yaml"), "--store", str(tmp_path / "s.db")])
    return res, time.monotonic() - start


@pytest.mark.parametrize("levels", [5, 9, 14])
def test_an_alias_bomb_is_refused_in_under_a_second(tmp_path, levels):
    text = bomb(levels)
    assert len(text) < 1200
    res, seconds = _compare(tmp_path, text)
    assert res.exit_code == 1 and seconds < 1.0, (res.output, seconds)
    assert res.output.startswith("Error: ") and "aliases" in res.output and len(res.output) < 300
    assert not (tmp_path / "s.db").exists()


def test_a_few_aliases_are_fine():
    doc = load_yaml("a: &x {k: [1, 2, 3]}\nb: *x\nc: *x\n", "t")
    assert doc == {"a": {"k": [1, 2, 3]}, "b": {"k": [1, 2, 3]}, "c": {"k": [1, 2, 3]}}
    wide = "a: &x [" + ", ".join(["1"] * 999) + "]\nb: [" + ", ".join(["*x"] * 10) + "]\n"
    assert len(load_yaml(wide, "t")["b"]) == 10  # 9,990 values added: under the bound
    with pytest.raises(PipelineError, match=f"more than {MAX_ALIAS_VALUES:,}"):
        load_yaml(wide.replace("* 10", "* 11").replace(", ".join(["*x"] * 10), ", ".join(["*x"] * 11)), "t")


@pytest.mark.parametrize("text, words", [
    ("a: &x [*x]\n", "contains it"),
    ("a: &x {b: *x}\n", "contains it"),
    ("a: " + "[" * 101 + "]" * 101 + "\n", "deeper than 100"),
    ("a: " + "[" * 20000 + "]" * 20000 + "\n", "deeper than 100"),
])
def test_recursion_and_depth_are_refused(text, words):
    start = time.monotonic()
    with pytest.raises(PipelineError, match=words) as exc:
        load_yaml(text, "g.yaml")
    assert time.monotonic() - start < 1.0
    assert len(str(exc.value)) < 200


def test_a_huge_file_is_refused_before_reading(tmp_path):
    (tmp_path / "g.yaml").write_text("# " + "x" * (9 * 2**20) + "\n")
    res, seconds = _compare(tmp_path, (tmp_path / "g.yaml").read_text())
    assert res.exit_code == 1 and "at most 8,388,608" in res.output and seconds < 1.0


def test_a_long_error_is_capped(tmp_path):
    (tmp_path / "p.yaml").write_text("steps: [{partition: kmeans}]\n")
    res, _ = _compare(tmp_path, "name: g\ndata: [{source: " + "x" * 5000 + "}]\npipelines: [p.yaml]\n")
    assert res.exit_code == 1
    (line,) = [s for s in res.output.splitlines() if s.startswith("Error")]
    assert len(line) < 700 and "characters cut" in line


def _wide_csv(path, rows: int, d: int) -> None:
    rng = np.random.default_rng(0)
    with path.open("w") as fh:
        fh.write(",".join(f"x{j}" for j in range(d)) + "\n")
        for r in rng.standard_normal((rows, d)):
            fh.write(",".join(f"{v:.4f}" for v in r) + "\n")


def test_a_wide_csv_reads_in_linear_time(tmp_path):
    _wide_csv(tmp_path / "w.csv", 3, 40_000)  # the quadratic reader took 32 s here at load 12
    start = time.process_time()
    ds = Dataset.from_csv(tmp_path / "w.csv")
    assert time.process_time() - start < 8.0
    assert ds.shape == (3, 40_000) and ds.names[-1] == "x39999"


def test_reading_a_csv_is_checked_against_the_memory_budget_first(tmp_path, monkeypatch):
    _wide_csv(tmp_path / "w.csv", 200, 500)
    with (tmp_path / "w.csv").open("a") as fh:  # a bad value at the end: the budget is checked before
        fh.write(",".join(["oops"] * 500) + "\n")
    est = csv_memory(201, 500, 500).bytes
    assert est == 17.0 * 201 * 500 + 380.0 * 500
    monkeypatch.setenv("MACROCAUSE_MEMORY_LIMIT", "1MB")
    with pytest.raises(MemoryBudgetError, match="reading w.csv would need about 1.8 MiB") as exc:
        Dataset.from_csv(tmp_path / "w.csv")
    assert "\n" not in str(exc.value) and "columns=" in str(exc.value)
    monkeypatch.setenv("MACROCAUSE_MEMORY_LIMIT", "4MB")
    with pytest.raises(DataValidationError, match="'x0' is non-numeric .* data row 201"):
        Dataset.from_csv(tmp_path / "w.csv")
