"""Results in Python: a pipeline result by step id, as a DataFrame and as a notebook table;
a report's tables as DataFrames."""

import json
import math
from html.parser import HTMLParser

import numpy as np
import pytest

from macrocause.framework import CausalGraph, Dataset, MacrocauseError, Partition
from macrocause.framework.compare import compare
from macrocause.framework.frames import RECORD_COLUMNS
from macrocause.framework.pipeline import Pipeline
from macrocause.framework.pipeline.run import UnknownStepError
from macrocause.framework.report import build_report, report_frames
from macrocause.framework.roles import Evaluation
from macrocause.framework.store import ResultStore

pd = pytest.importorskip("pandas")

PIPE = """
name: toy
steps:
  - {id: groups, partition: toy_threshold}
  - {evaluate: toy_agreement, on: groups}
  - {id: graph, search: toy_chain}
  - {evaluate: [toy_edges], on: graph}
"""
# column a is positive for samples 0 and 2; the truth puts only sample 0 in group 1
DATA = Dataset(np.array([[1.0, 0.5], [-1.0, 0.1], [2.0, 0.2], [-3.0, 0.3]]), names=["a", "b"],
               truth={"labels": Partition([1, 0, 0, 0])}, name="four")
STEPS = ["groups", "evaluate_groups", "graph", "evaluate_graph"]


class _Cells(HTMLParser):
    """Checks that every tag is closed in order; collects the text and the table cells by row."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.text, self.rows = [], [], []

    def handle_starttag(self, tag, attrs):
        self.stack.append(tag)
        if tag == "tr":
            self.rows.append([])

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-1:]}"
        self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)
        if self.stack and self.stack[-1] in ("td", "th"):
            self.rows[-1].append(data)


def parse(html: str) -> _Cells:
    p = _Cells()
    p.feed(html)
    p.close()
    assert p.stack == [], f"unclosed tags {p.stack}"
    return p


def test_outputs_by_step_id(toys):
    res = Pipeline.from_yaml(PIPE).run(DATA)
    assert res.steps == STEPS and list(res) == STEPS and "graph" in res and "nope" not in res
    assert res["groups"].labels.tolist() == [1, 0, 1, 0]
    assert res["graph"] == CausalGraph.from_edges(["a", "b"], [("a", "b")])
    (ev,) = res["evaluate_groups"].values()  # evaluator name -> its evaluation
    assert isinstance(ev, Evaluation) and ev.value == 0.75
    with pytest.raises(UnknownStepError) as err:
        res["cdag"]
    assert isinstance(err.value, KeyError) and isinstance(err.value, MacrocauseError)
    assert str(err.value) == ("Pipeline 'toy' has no step 'cdag'; its steps are "
                              "'groups', 'evaluate_groups', 'graph', 'evaluate_graph'.")


def test_a_failed_step_says_why_it_has_no_output(toys):
    pipe = Pipeline.from_yaml("name: bad\nsteps:\n  - {id: s, partition: toy_threshold, params: {column: 5}}\n"
                              "  - {id: g, search: toy_chain}\n")
    res = pipe.run(DATA, stop_on_error=False)
    assert res.steps == ["s", "g"] and list(res) == ["g"]
    with pytest.raises(KeyError, match=r"^Step 's' of pipeline 'bad' has no output: it failed: IndexError"):
        res["s"]
    df = res.to_pandas()
    assert df["status"].tolist() == ["failed", "done"] and df["error"][0].startswith("IndexError")
    rows = parse(res._repr_html_()).rows
    assert rows[1][:3] == ["s", "toy_threshold", "failed"] and rows[1][5].startswith("IndexError")


def test_to_pandas_has_one_row_per_record_and_metrics_as_columns(toys):
    res = Pipeline.from_yaml(PIPE).run(DATA, seed=4)
    df = res.to_pandas()
    assert len(df) == len(res.records) == 4
    metrics = sorted({m for r in res.records for m in r.metrics})
    assert {"n_clusters", "toy_agreement", "toy_edges"} <= set(metrics)
    assert list(df.columns) == [*RECORD_COLUMNS, *metrics]
    assert df["step"].tolist() == STEPS and df["kind"].tolist() == ["partition", "evaluate", "search", "evaluate"]
    assert df["on_step"].tolist()[1::2] == ["groups", "graph"]
    assert (df["pipeline"] == "toy").all() and (df["data_label"] == "four").all() and (df["seed"] == 4).all()
    assert df["seconds"].tolist() == [r.wall_s for r in res.records]
    assert json.loads(df["params"][0]) == res.records[0].params == {"column": 0, "sleep": 0.0}
    assert df["toy_agreement"][1] == 0.75 and df["toy_edges"][3] == 1.0 and df["n_clusters"][0] == 2.0
    assert math.isnan(df["toy_agreement"][0]) and df["toy_edges"].isna().sum() == 3


def test_html_is_the_records_table(toys):
    res = Pipeline.from_yaml(PIPE).run(DATA)
    p = parse(res._repr_html_())
    assert "PipelineResult: toy on four (seed 0), 4 records" in " ".join(p.text)
    header, *rows = p.rows
    assert header == ["step", "plugin", "status", "wall_s", "startup_s", "metrics"]
    assert [r[0] for r in rows] == STEPS and [r[2] for r in rows] == ["done"] * 4
    assert rows[1][1] == "toy_agreement" and rows[1][5] == "toy_agreement=0.75"
    assert float(rows[0][3]) == pytest.approx(res.records[0].wall_s, rel=1e-2)


def test_report_frames_convert_the_report(toys, toy_grid, tmp_path):
    grid, base = toy_grid(seeds=3, pipeline=(
        "name: toy\nsteps:\n  - {id: groups, partition: toy_threshold}\n"
        "  - {evaluate: toy_agreement, on: groups}\n"
        "  - {id: other, partition: toy_threshold, params: {column: 2}}\n"
        "  - {evaluate: toy_agreement, on: other}\n"))
    with ResultStore(tmp_path / "r.db") as store:
        compare(grid, store, base=base, progress=False)
        frames = report_frames(store, "g", baselines=["toy_threshold"])
        report = build_report(store.results("g"), baselines=["toy_threshold"])
        with pytest.raises(MacrocauseError, match="no grid 'h'"):
            report_frames(store, "h")
    assert set(frames) == {"cells", "results", "ranks", "tests"}
    cells = frames["cells"]
    assert len(cells) == 8  # (agreement, time) x 2 data x 2 methods
    assert cells.equals(report.cells)
    agree = cells[cells.metric == "toy_agreement"].set_index(["method", "data"])
    assert (agree.loc["groups (toy_threshold)", "mean"] == 1.0).all() and (agree["n"] == 3).all()
    # the cells are the seeds' mean and sample std of the per-seed results
    res = frames["results"]
    other = res[(res.metric == "toy_agreement") & (res.method == "other (toy_threshold)")
                & (res.data == "toy_source[n=40]")]["value"]
    assert len(other) == 3
    assert agree.loc[("other (toy_threshold)", "toy_source[n=40]"), "mean"] == pytest.approx(other.mean())
    assert agree.loc[("other (toy_threshold)", "toy_source[n=40]"), "std"] == pytest.approx(other.std(ddof=1))
    assert frames["ranks"].equals(report.ranks)
    assert frames["ranks"].query("metric == 'toy_agreement'")["mean_rank"].tolist() == [1.0, 2.0]
    assert len(frames["tests"]) > 0 and frames["tests"].equals(report.tests)
    # toy_source draws its data anew per seed (the hashes differ): every (data, seed) is a pair
    assert set(frames["tests"].unit) == {"(data, seed)"} and set(frames["tests"].n) == {6}
