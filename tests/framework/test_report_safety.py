"""`report` is read-only and never deletes what it did not write (issue 25, points 2, 3, 6)."""

from __future__ import annotations

import sqlite3
import time

import pytest
from click.testing import CliRunner

from macrocause.framework.atomic import MARKER
from macrocause.framework.cli import main
from macrocause.framework.compare import compare
from macrocause.framework.errors import MacrocauseError
from macrocause.framework.store import ResultStore

EVIL = "from pathlib import Path\nPath({marker!r}).write_text('ran')\n"


def _report(*args):
    return CliRunner().invoke(main, ["report", *args])


@pytest.fixture
def stored(toys, toy_grid, tmp_path):
    """A store holding the toy grid, and the grid file."""
    grid, base = toy_grid(seeds=1)
    with ResultStore(tmp_path / "r.db") as store:
        compare(grid, store, base=base, progress=False)
    return tmp_path / "r.db", tmp_path / "grid.yaml"


def _name_plugin_file(db, path):
    with sqlite3.connect(db) as c:
        c.execute("UPDATE runs SET extra = json_set(coalesce(extra, '{}'), '$.plugin_files', json_array(?))",
                  (str(path),))


@pytest.mark.parametrize("how", ["absolute", "relative"])
def test_a_plugin_file_named_in_a_store_is_not_imported(stored, tmp_path, monkeypatch, how):
    db, _ = stored
    marker = tmp_path / "PWNED"
    (tmp_path / "evil.py").write_text(EVIL.format(marker=str(marker)))
    monkeypatch.chdir(tmp_path)
    _name_plugin_file(db, tmp_path / "evil.py" if how == "absolute" else "evil.py")
    res = _report("--store", str(db), "--out", str(tmp_path / "out"))
    assert res.exit_code == 0, res.output
    with ResultStore(db, readonly=True) as store:
        frame = store.to_pandas()
    assert len(frame) and not marker.exists()
    # it is loaded when the user names it
    res = _report("--store", str(db), "--plugins", str(tmp_path / "evil.py"))
    assert res.exit_code == 0, res.output
    assert marker.exists()


def test_report_grid_does_not_import_the_grids_plugins(stored, tmp_path):
    db, grid = stored
    marker = tmp_path / "PWNED"
    (tmp_path / "evil.py").write_text(EVIL.format(marker=str(marker)))
    grid.write_text(grid.read_text() + "plugins: [evil.py]\n")
    res = _report("--store", str(db), "--grid", str(grid))
    assert res.exit_code == 0, res.output
    assert "toy_agreement" in res.output and not marker.exists()


def test_report_opens_the_store_read_only(stored, tmp_path):
    db, _ = stored
    before = db.read_bytes()
    db.chmod(0o444)
    try:
        res = _report("--store", str(db))
    finally:
        db.chmod(0o644)
    assert res.exit_code == 0, res.output
    assert db.read_bytes() == before


def test_report_out_refuses_a_folder_it_did_not_write(stored, tmp_path):
    db, _ = stored
    project = tmp_path / "myproject"
    (project / "src").mkdir(parents=True)
    (project / ".git").mkdir()
    (project / "thesis.tex").write_text("years of work")
    res = _report("--store", str(db), "--out", str(project))
    assert res.exit_code == 1
    assert "did not write" in res.output and res.output.count("Error") == 1
    assert sorted(p.name for p in project.iterdir()) == [".git", "src", "thesis.tex"]
    # a folder report wrote is replaced, again and again
    for _ in range(2):
        res = _report("--store", str(db), "--out", str(tmp_path / "rep"))
        assert res.exit_code == 0, res.output
    assert (tmp_path / "rep" / MARKER).is_file() and (tmp_path / "rep" / "report.md").is_file()


def test_report_out_dot_beside_the_store_is_refused(stored, tmp_path, monkeypatch):
    db, _ = stored
    monkeypatch.chdir(tmp_path)
    res = _report("--store", "r.db", "--out", ".")
    assert res.exit_code == 1 and "current folder" in res.output
    assert db.is_file() and (tmp_path / "grid.yaml").is_file()


def test_non_finite_metrics_are_strict_json_and_reported(stored, tmp_path):
    db, _ = stored
    with ResultStore(db) as store:
        row = store.rows("kind = 'evaluate'")[0]
        store.write_run("inf-run", [{"step": "ev", "kind": "evaluate", "plugin": "toy_agreement",
                                     "on": row["on_step"], "metrics": {"toy_agreement": float("inf")}}],
                        pipeline=row["pipeline"], seed=5, data_label=row["data_label"], grid=row["grid"])
    with sqlite3.connect(db) as c:
        (text,) = c.execute("SELECT metrics FROM runs WHERE run_key = 'inf-run'").fetchone()
    assert text == '{"toy_agreement": "inf"}'  # a JSON reader accepts it
    with ResultStore(db, readonly=True) as store:
        assert store.rows("run_key = 'inf-run'")[0]["metrics"] == {"toy_agreement": float("inf")}
    res = _report("--store", str(db), "--out", str(tmp_path / "out"))
    assert res.exit_code == 0, res.output


def test_an_old_infinity_token_is_still_read(stored):
    db, _ = stored
    with sqlite3.connect(db) as c:
        c.execute("UPDATE runs SET metrics = '{\"toy_agreement\": Infinity}' WHERE kind = 'evaluate'")
    with ResultStore(db, readonly=True) as store:
        assert {r["metrics"]["toy_agreement"] for r in store.rows("kind = 'evaluate'")} == {float("inf")}


HOSTILE = {
    "recursive view": "CREATE VIEW loop AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                      "SELECT x FROM c",
    "trigger": "CREATE TRIGGER t AFTER INSERT ON runs BEGIN DELETE FROM runs; END",
    "other table": "CREATE TABLE secrets (x)",
    "runs as a view": "ALTER TABLE runs RENAME TO runs_old; "
                      "CREATE VIEW runs AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                      "SELECT * FROM runs_old, c",
    "missing column": "ALTER TABLE runs DROP COLUMN extra",
    "huge JSON": "UPDATE runs SET params = '[' || printf('%.*c', 1200000, '1') || ']'",
    "nested JSON": "UPDATE runs SET params = printf('%.*c', 100000, '[') || printf('%.*c', 100000, ']')",
    "nested metric": "UPDATE runs SET metrics = '{\"m\": {\"a\": 1}}'",
    "text metric": "UPDATE runs SET metrics = '{\"m\": \"high\"}'",
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_store_is_refused_in_one_line_fast(stored, case):
    db, _ = stored
    with sqlite3.connect(db) as c:
        c.executescript(HOSTILE[case])
    start = time.monotonic()
    res = _report("--store", str(db))
    assert time.monotonic() - start < 10
    errors = [line for line in res.output.splitlines() if line.startswith("Error")]
    assert res.exit_code == 1 and len(errors) == 1 and "refused" in errors[0], res.output
    assert len(errors[0]) < 400
    with pytest.raises(MacrocauseError):
        with ResultStore(db, readonly=True) as store:
            store.to_pandas()


LABEL = "$\\frac{x$ <script>alert(1)</script> a|b\nc [go](javascript:alert(1)) `tick"


def _cells(line: str) -> int:
    return len(line.replace("\\|", "").split("|"))


def test_labels_are_inert_in_report_md_and_the_figures(stored, tmp_path):
    db, _ = stored
    with sqlite3.connect(db) as c:
        c.execute("UPDATE runs SET data_label = ? || data_label", (LABEL,))
        c.execute("UPDATE runs SET step = ? WHERE kind = 'partition'", (LABEL,))
        c.execute("UPDATE runs SET on_step = ? WHERE kind = 'evaluate'", (LABEL,))
        c.execute("UPDATE runs SET grid = ?", ("g`<b>x</b>",))
    res = _report("--store", str(db), "--out", str(tmp_path / "out"))
    assert res.exit_code == 0, res.output
    md = (tmp_path / "out" / "report.md").read_text()
    assert "<script" not in md and "<b>" not in md and "](javascript" not in md and "$" not in md
    assert "&lt;script&gt;" in md
    for table in md.split("\n\n"):
        rows = [line for line in table.splitlines() if line.startswith("|")]
        assert len({_cells(line) for line in rows}) <= 1, table  # no row broken by a newline or pipe
    html = (tmp_path / "out" / "report.html").read_text()
    assert "<script>alert" not in html and "&lt;script&gt;" in html
    assert (tmp_path / "out" / "toy_agreement.png").stat().st_size > 1000


def test_a_graph_with_math_markup_in_a_name_is_displayed():
    from macrocause.framework import CausalGraph, Evaluation
    from macrocause.framework.plotting import plot

    g = CausalGraph.from_edges(["$\\frac{x$", "b$"], [("$\\frac{x$", "b$")])
    html = g._repr_html_()
    assert "<img" in html and "<script" not in html
    fig = plot(Evaluation(1.0, metrics={"$\\frac{x$": 1.0}))
    fig.savefig(__import__("io").BytesIO(), format="png")
