import csv
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import wilcoxon

from macrocause.framework import Metric
from macrocause.framework.compare import Grid, Task, compare, run_task
from macrocause.framework.report import build_report, markdown, write_report
from macrocause.framework.report.analyses import cells, holm, paired_tests, ranks
from macrocause.framework.report.frame import tidy
from macrocause.framework.report.plots import clip, label, limits
from macrocause.framework.store import ResultStore

MEANINGS = {"shd": Metric.lower(0), "edge_f1": Metric.higher(0, 1), "ari": Metric.higher(-0.5, 1),
            "n_variables": Metric.descriptive(0)}


def _store_again(store, grid, base):
    """Store every run of the grid a second time, as `macrocause run` would."""
    for task in grid.tasks(base):
        o = run_task(task)
        store.write_run(o.key, o.records, pipeline=o.pipeline, seed=o.seed, data_label=o.data_label,
                        source=o.source, source_params=o.source_params, grid=grid.name)


def test_report_of_a_small_grid_writes_every_file(toys, toy_grid, tmp_path):
    grid, base = toy_grid()
    with ResultStore(tmp_path / "r.db") as store:
        compare(grid, store, base=base, progress=False)
        report = build_report(store.rows())
        agree = report.cells[report.cells.metric == "toy_agreement"]
        assert {(c.data, c.method, c.metric, c.mean, c.n) for c in agree.itertuples()} == {
            ("toy_source[n=20]", "groups (toy_threshold)", "toy_agreement", 1.0, 2),
            ("toy_source[n=40]", "groups (toy_threshold)", "toy_agreement", 1.0, 2),
        }
        text = markdown(report)
        assert "### toy_agreement (higher is better)" in text
        assert "| groups (toy_threshold) | 1 ± 0 (n=2) | 1 ± 0 (n=2) |" in text
        files = write_report(store, tmp_path / "out")
    names = {f.name for f in files}
    assert {"report.md", "report.html", "report.csv", "results.csv", "ranks.csv", "tests.csv",
            "toy_agreement.png", "time.png"} == names
    png = (tmp_path / "out" / "toy_agreement.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 1000
    html = (tmp_path / "out" / "report.html").read_text()
    # the page links the figures written beside it, nothing else is fetched, nothing is embedded
    assert sorted(re.findall(r'src="([^"]+)"', html)) == ["time.png", "toy_agreement.png"]
    assert "base64" not in html and not re.search(r'(src|href)="(?!#)(?![a-z_]+\.png")', html)
    with (tmp_path / "out" / "report.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    agreement = [r for r in rows if r["metric"] == "toy_agreement"]
    assert [(r["direction"], r["n"]) for r in agreement] == [("higher is better", "2")] * 2
    with (tmp_path / "out" / "results.csv").open() as fh:
        values = list(csv.DictReader(fh))
    assert sum(r["metric"] in ("toy_agreement", "time") for r in values) == 2 * 2 * 2  # 2 data x 2 seeds
    # the timings not asked for are kept too: cpu and memory of the step and of the evaluator
    assert {r["metric"] for r in values} >= {"cpu", "memory", "time@toy_agreement"}


def test_a_rerun_replaces_and_does_not_change_n(toys, toy_grid, tmp_path):
    grid, base = toy_grid()
    with ResultStore(tmp_path / "r.db") as store:
        compare(grid, store, base=base, progress=False)
        before = build_report(store.rows())
        _store_again(store, grid, base)
        assert store.count_runs() == 4 and len(store.rows()) == 8  # the store replaces a re-run
        after = build_report(store.rows())
    first = lambda r: list(r.cells[r.cells.metric == "toy_agreement"].n)  # noqa: E731
    assert first(after) == first(before) == [2, 2]
    assert after.facts.runs == 4 and after.facts.replaced == 0


def test_grid_filter_keeps_only_that_grids_runs(toys, toy_grid, tmp_path):
    grid, base = toy_grid(seeds=1)
    with ResultStore(tmp_path / "r.db") as store:
        compare(grid, store, base=base, progress=False)
        o = run_task(Task(grid.tasks(base)[0].pipeline.with_seed(7)))  # a single `run`
        store.write_run(o.key, o.records, pipeline=o.pipeline, seed=o.seed, data_label=o.data_label)
        assert set(tidy(store.rows())[0].seed) == {0, 7}
        assert set(tidy(store.rows(), grid="g")[0].seed) == {0}
        with pytest.raises(Exception, match="no runs of grid 'nope'; its grids: \\['g'\\]"):
            tidy(store.rows(), grid="nope")


def _write(store, method, plugin, data, seed, metrics, seconds=1.0, grid="hand", params=None, created=None,
           data_hash=None):
    """One run of *method* as the runner stores it: the step (a baseline when its plugin is pc or
    hill_climb, as those classes declare) and one evaluate record per metric with its meanings."""
    step = {"step": method, "kind": "search", "plugin": plugin, "params": params or {}, "seconds": seconds,
            "baseline": plugin in ("pc", "hill_climb")}
    hashed = {"data_hash": data_hash} if data_hash else {}
    ev = [{"step": f"evaluate_{method}", "kind": "evaluate", "plugin": name, "params": {},
           "metrics": {name: value, "n_variables": 5.0}, "on": method, "method": plugin, **hashed,
           "meanings": {k: MEANINGS[k].to_dict() for k in (name, "n_variables")}}
          for name, value in metrics.items()]
    store.write_run(f"{method}-{data}-{seed}-{params}", [step, *ev], pipeline="p", seed=seed,
                    data_label=data, grid=grid)


def test_direction_best_and_clipping_on_hand_made_rows(plugin_registry, tmp_path):
    with ResultStore(tmp_path / "h.db") as store:
        for seed in range(3):
            _write(store, "pc", "pc", "d1", seed, {"shd": 4 + seed, "edge_f1": 0.5}, seconds=0.1)
            _write(store, "hill_climb", "hill_climb", "d1", seed, {"shd": 2, "edge_f1": 0.9}, seconds=2.0)
        report = build_report(store.rows())
    info = report.facts.metrics
    assert list(info) == ["edge_f1", "shd", "time"]
    assert [info[m].direction for m in info] == ["higher", "lower", "lower"]  # as stored with the records
    assert report.facts.descriptive == ["n_variables"]  # not a metric: no table, no plot
    assert report.facts.unreported == []
    best = set(zip(report.cells.metric[report.cells.best], report.cells.method[report.cells.best]))
    assert best == {("edge_f1", "hill_climb"), ("shd", "hill_climb"), ("time", "pc")}
    shd = report.cells[(report.cells.metric == "shd") & (report.cells.method == "pc")].iloc[0]
    assert (shd["mean"], shd.n) == (5.0, 3) and math.isclose(shd["std"], 1.0)  # sample sd of 4, 5, 6
    f1 = MEANINGS["edge_f1"]
    assert clip(f1, [-0.2, 0.4, 1.3]).tolist() == [0.0, 0.4, 1.0]
    assert limits(f1, [0.4, 0.6]) == pytest.approx((-0.06, 1.06))  # the whole [0, 1], a small margin
    lo, hi = limits(MEANINGS["shd"], [3, 7])
    assert lo == pytest.approx(-0.42) and hi == pytest.approx(7.42)  # from 0, never an SHD below 0 - margin
    assert label("time", info["time"]) == "time [s] (lower is better)"


def test_undeclared_values_are_not_rated_and_a_declared_lower_one_ranks_lowest_first(plugin_registry, tmp_path):
    """The report reads what a value means from the store: a value whose evaluator declared
    nothing is listed, not tabulated; one declared lower-is-better ranks its smallest first."""
    with ResultStore(tmp_path / "h.db") as store:
        for seed in range(2):
            for m, v in (("a", 1.0), ("b", 3.0)):
                rows = [{"step": m, "kind": "search", "plugin": m, "params": {}, "seconds": 1.0},
                        {"step": "ev", "kind": "evaluate", "plugin": "loss", "params": {}, "on": m, "method": m,
                         "metrics": {"loss": v, "mystery": v}, "meanings": {"loss": Metric.lower(0).to_dict()}}]
                store.write_run(f"{m}{seed}", rows, pipeline="p", seed=seed, data_label="d")
        report = build_report(store.rows())
    assert list(report.facts.metrics) == ["loss", "time"] and report.facts.undeclared == ["mystery"]
    r = report.ranks[report.ranks.metric == "loss"]
    assert list(zip(r.method, r.mean_rank)) == [("a", 1.0), ("b", 2.0)]
    with ResultStore(tmp_path / "h.db") as store, pytest.raises(Exception, match="not a metric"):
        tidy(store.rows(), metrics=["mystery"])


def _frame(rows, seeded=True, data_hash=None):
    """A tidy frame of (method, data, seed, metric, value) rows."""
    f = pd.DataFrame(rows, columns=["method", "data", "seed", "metric", "value"])
    return f.assign(seeded=seeded, data_hash=data_hash, plugin=f.method)


def test_wilcoxon_matches_scipy_and_says_why_when_it_cannot():
    rng = np.random.default_rng(0)
    a = rng.normal(size=8).round(3)
    b = (a + rng.normal(0.5, 1.0, size=8)).round(3)
    res = [("m", f"d{i % 2}", i, "shd", float(v)) for i, v in enumerate(a)]
    res += [("pc", f"d{i % 2}", i, "shd", float(v)) for i, v in enumerate(b)]
    shd = {"shd": MEANINGS["shd"]}
    (t,) = paired_tests(_frame(res), shd, ["pc"]).itertuples()
    ref = wilcoxon(a, b, zero_method="zsplit")
    assert (t.method, t.baseline, t.n, t.unit) == ("m", "pc", 8, "(data, seed)")
    assert t.p == pytest.approx(ref.pvalue) and t.statistic == pytest.approx(ref.statistic)
    assert t.better == int(np.sum(a < b)) and t.worse == int(np.sum(a > b))  # shd: lower is better
    few = [r for r in res if r[2] < 5]
    (t,) = paired_tests(_frame(few), shd, ["pc"]).itertuples()
    assert t.n == 5 and t.note == "n/a (n < 6)" and math.isnan(t.p)
    same = [(m, "d", i, "shd", 1.0) for m in ("m", "pc") for i in range(7)]
    (t,) = paired_tests(_frame(same), shd, ["pc"]).itertuples()
    assert t.note == "n/a (all pairs tied)" and t.tied == 7


def test_deterministic_methods_on_fixed_data_pair_data_sets_not_seeds():
    """Four fixed data sets x 5 seeds of deterministic methods are 4 pairs (n < 6: no p-value),
    not 20; a stochastic method, or data drawn anew per seed, makes every seed a pair."""
    rng = np.random.default_rng(1)
    rows = [(m, f"d{d}", s, "shd", float(d + (m == "pc") * 2 + rng.normal(0, 0.1) * (m == "pc")))
            for m in ("m", "pc") for d in range(4) for s in range(5)]
    shd = {"shd": MEANINGS["shd"]}
    fixed = _frame(rows, seeded=False, data_hash=[f"h{r[1]}" for r in rows])
    (t,) = paired_tests(fixed, shd, ["pc"]).itertuples()
    assert (t.unit, t.n, t.better, t.note) == ("data set (seeds averaged)", 4, 4, "n/a (n < 6)")
    (t,) = paired_tests(fixed.assign(seeded=True), shd, ["pc"]).itertuples()
    assert (t.unit, t.n) == ("(data, seed)", 20) and t.p < 0.001
    fresh = fixed.assign(data_hash=[f"h{r[1]}{r[2]}" for r in rows])
    (t,) = paired_tests(fresh, shd, ["pc"]).itertuples()
    assert (t.unit, t.n) == ("(data, seed)", 20)


def test_holm_adjustment():
    assert holm([0.01, 0.04, float("nan"), 0.03]) == pytest.approx([0.03, 0.06, float("nan"), 0.06],
                                                                      nan_ok=True)


def test_average_ranks_on_a_hand_made_table():
    means = {  # data -> method -> value (shd, lower is better)
        "d1": {"a": 1.0, "b": 2.0, "c": 3.0},
        "d2": {"a": 2.0, "b": 2.0, "c": 1.0},   # a and b tie for ranks 2 and 3
        "d3": {"a": 5.0, "b": 1.0},             # c missing: ranked among the two others
    }
    res = _frame([(m, d, 0, "shd", v) for d, row in means.items() for m, v in row.items()])
    shd = {"shd": MEANINGS["shd"]}
    got = {r.method: (r.mean_rank, r.n_datasets) for r in ranks(cells(res, shd), shd).itertuples()}
    assert got == {"a": ((1 + 2.5 + 2) / 3, 3), "b": ((2 + 2.5 + 1) / 3, 3), "c": ((3 + 1) / 2, 2)}
    f1 = {"edge_f1": MEANINGS["edge_f1"]}
    got = {r.method: r.mean_rank for r in ranks(cells(res.assign(metric="edge_f1"), f1), f1).itertuples()}
    assert got["c"] == (1 + 3) / 2  # higher is better now


def test_baselines_are_the_methods_running_baseline_plugins(plugin_registry, tmp_path):
    with ResultStore(tmp_path / "h.db") as store:
        for seed in range(6):
            _write(store, "pc", "pc", "d", seed, {"shd": 3 + seed % 2})
            _write(store, "ours", "cic_greedy", "d", seed, {"shd": 1 + seed % 3})
            _write(store, "hc", "hill_climb", "d", seed, {"shd": 2})
        report = build_report(store.rows())
        hc, ours = "hc (hill_climb)", "ours (cic_greedy)"
        assert report.baselines == [hc, "pc"]  # the plugins that declare themselves baselines
        tests = report.tests[report.tests.metric == "shd"]
        assert set(zip(tests.method, tests.baseline)) == {(hc, "pc"), (ours, hc), (ours, "pc")}
        only = build_report(store.rows(), baselines=["cic_greedy"]).tests
        only = only[only.metric == "shd"]
        assert set(zip(only.method, only.baseline)) == {(hc, ours), ("pc", ours)}


def test_same_step_with_other_parameters_is_another_method(plugin_registry, tmp_path):
    with ResultStore(tmp_path / "h.db") as store:
        for seed in range(2):
            _write(store, "pc", "pc", "d", seed, {"shd": 1}, params={"alpha": 0.01})
            _write(store, "pc", "pc", "d", seed, {"shd": 2}, params={"alpha": 0.05})
        col, _ = tidy(store.rows())
    assert sorted(set(zip(col.method[col.metric == "shd"], col.value[col.metric == "shd"]))) == [
        ("pc [alpha=0.01]", 1.0), ("pc [alpha=0.05]", 2.0)]


def test_a_stochastic_steps_seed_is_the_replicate_not_another_method(plugin_registry, tmp_path):
    with ResultStore(tmp_path / "h.db") as store:
        for seed in range(3):
            _write(store, "g", "greedy_dag", "d", seed, {"shd": seed}, params={"restarts": 2, "seed": seed})
        col, _ = tidy(store.rows())
    assert set(col.method) == {"g (greedy_dag)"} and col.seeded.all()  # it took a seed: stochastic
    assert sorted(col.value[col.metric == "shd"]) == [0.0, 1.0, 2.0]


def test_the_baseline_grids_validate():
    here = Path(__file__).resolve().parents[2] / "benchmarks" / "baselines"
    sim, base = Grid.from_yaml(here / "grid.yaml")
    tasks = sim.tasks(base)
    assert len(tasks) == 6 * 10 and sim.seeds == list(range(10))
    sachs, base = Grid.from_yaml(here / "sachs.yaml")
    (task,) = sachs.tasks(base)
    # one grid and one pipeline name: both land in one report, with the same method names
    assert sim.name == sachs.name == "baselines" == task.pipeline.name == tasks[0].pipeline.name
    for t in (task, tasks[0]):
        assert [s.key for s in t.pipeline.steps[:3]] == ["pc", "hill_climb", "greedy_dag"]


def test_a_failed_rerun_replaces_the_earlier_success(plugin_registry, tmp_path):
    with ResultStore(tmp_path / "h.db") as store:
        _write(store, "pc", "pc", "d", 0, {"shd": 1})
        _write(store, "pc", "pc", "d", 1, {"shd": 2})
        store.write_run("pc-d-0-None", [{"step": "pc", "kind": "search", "plugin": "pc", "params": {},
                                         "status": "failed", "error": "boom"}],
                        pipeline="p", seed=0, data_label="d", grid="hand")
        col, facts = tidy(store.rows())
    assert list(col.value[col.metric == "shd"]) == [2.0]
    assert facts.replaced == 0 and [f["error"] for f in facts.failed] == ["boom"]  # replaced in the store


def test_one_value_from_two_evaluate_steps_is_named_by_step(plugin_registry, tmp_path):
    with ResultStore(tmp_path / "h.db") as store:
        step = {"step": "pc", "kind": "search", "plugin": "pc", "params": {}, "seconds": 1.0}
        ev = [{"step": sid, "kind": "evaluate", "plugin": "shd", "params": {}, "metrics": {"shd": v},
               "on": "pc", "method": "pc", "meanings": {"shd": MEANINGS["shd"].to_dict()}}
              for sid, v in (("vs_dag", 3.0), ("vs_cpdag", 1.0))]
        store.write_run("k", [step, *ev], pipeline="p", seed=0, data_label="d")
        col, facts = tidy(store.rows())
    assert set(zip(col.metric, col.value)) >= {("shd [vs_dag]", 3.0), ("shd [vs_cpdag]", 1.0), ("time", 1.0)}
    assert facts.metrics["shd [vs_dag]"].direction == "lower"


def test_a_sweeps_pipelines_named_after_their_step_get_short_labels(plugin_registry, tmp_path):
    def write(store, pipeline, step, plugin, alpha):
        rows = [{"step": step, "kind": "partition", "plugin": plugin, "params": {"alpha": alpha}},
                {"step": "ev", "kind": "evaluate", "plugin": "ari", "params": {}, "metrics": {"ari": alpha},
                 "on": step, "method": plugin}]
        store.write_run(f"{pipeline}-{step}", rows, pipeline=pipeline, seed=0, data_label="d", grid="g")

    with ResultStore(tmp_path / "h.db") as store:
        write(store, "cause_fs[cause_fs.alpha=1,cause_fs.k=3]", "cause_fs", "cause_fs", 0.1)
        write(store, "cause_fs[cause_fs.alpha=2,cause_fs.k=3]", "cause_fs", "cause_fs", 0.2)
        write(store, "cafe_auto", "cafe_auto", "cafe_dbscan", 0.3)  # step named otherwise than its plugin
        write(store, "p", "q", "q", 0.4)  # step named otherwise than its pipeline: the long form
        col, _ = tidy(store.rows())
    assert sorted(col.method[col.metric == "ari"]) == [
        "cafe_auto (cafe_dbscan)", "cause_fs[alpha=1,k=3]", "cause_fs[alpha=2,k=3]", "p:q"]


def test_labels_are_inert_in_markdown_html_and_figures(plugin_registry, tmp_path):
    """A data label holding math, HTML, a pipe, a link and a newline is text everywhere: escaped in
    report.md, autoescaped in report.html, drawn without mathtext (it raised on `$\\frac{x$`)."""
    evil = "$\\frac{x$ <script>alert(1)</script> | [a](javascript:x) *b*\nc"
    with ResultStore(tmp_path / "h.db") as store:
        for seed in range(2):
            _write(store, "pc", "pc", evil, seed, {"shd": 1 + seed})
        write_report(store, tmp_path / "out")
    md = (tmp_path / "out" / "report.md").read_text()
    cell = "&#36;\\\\frac{x&#36; &lt;script&gt;alert(1)&lt;/script&gt; \\| &#91;a&#93;(javascript:x) \\*b\\* c"
    assert f"| method | {cell} |" in md and "<script>" not in md and "$" not in md
    html = (tmp_path / "out" / "report.html").read_text()
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert 'href="javascript' not in html and (tmp_path / "out" / "shd.png").stat().st_size > 1000


def test_a_grid_file_names_its_baselines(toys, tmp_path):
    from click.testing import CliRunner

    from macrocause.framework.cli import main

    (tmp_path / "p.yaml").write_text(
        "name: p\nsteps:\n  - {id: one, partition: toy_threshold}\n"
        "  - {id: two, partition: toy_threshold, params: {column: 1}}\n"
        "  - {evaluate: toy_agreement, on: one}\n  - {evaluate: toy_agreement, on: two}\n")
    (tmp_path / "g.yaml").write_text("name: g\ndata: [{source: toy_source}]\npipelines: [p.yaml]\nseeds: 2\n"
                                     "baselines: [two (toy_threshold)]\n")
    grid, base = Grid.from_yaml(tmp_path / "g.yaml")
    assert grid.baselines == ["two (toy_threshold)"]
    with ResultStore(tmp_path / "r.db") as store:
        compare(grid, store, base=base, progress=False)
    res = CliRunner().invoke(main, ["report", "--store", str(tmp_path / "r.db"), "--grid", str(tmp_path / "g.yaml")])
    assert res.exit_code == 0, res.output
    assert "Paired tests against the baselines (two (toy_threshold);" in res.output
    assert "| one (toy_threshold) | two (toy_threshold) | (data, seed) | 2 |" in res.output
