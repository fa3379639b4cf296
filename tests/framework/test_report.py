import base64
import csv
import math
import re
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import wilcoxon

from framework import Evaluation, Evaluator
from framework.compare import Grid, Task, compare, run_task
from framework.report import build_report, collect, metric_info, to_markdown, write_report
from framework.report.metrics import KNOWN
from framework.report.stats import average_ranks, holm, paired_tests
from framework.report.tables import aggregate
from framework.store import ResultStore


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
        cells = report.sections[0].cells
        assert {(c.data, c.method, c.metric, c.mean, c.n) for c in cells} == {
            ("toy_source[n=20]", "groups (toy_threshold)", "toy_agreement", 1.0, 2),
            ("toy_source[n=40]", "groups (toy_threshold)", "toy_agreement", 1.0, 2),
        }
        text = to_markdown(report)
        assert "### toy_agreement (higher is better)" in text
        assert "| groups (toy_threshold) | 1 ± 0 (n=2) | 1 ± 0 (n=2) |" in text
        files = write_report(store, tmp_path / "out")
    names = {f.name for f in files}
    assert {"report.md", "report.html", "report.csv", "results.csv", "ranks.csv", "tests.csv",
            "toy_agreement.png", "time.png"} == names
    png = (tmp_path / "out" / "toy_agreement.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 1000
    html = (tmp_path / "out" / "report.html").read_text()
    # self-contained: the figures are inside the page, nothing is fetched
    embedded = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html)
    assert len(embedded) == 2 and base64.b64decode(embedded[0])[:4] == b"\x89PNG"
    assert not re.search(r'(src|href)="(?!data:|#)', html)
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
    assert [c.n for c in after.sections[0].cells] == [c.n for c in before.sections[0].cells] == [2, 2]
    assert after.collection.runs == 4 and after.collection.replaced == 0


def test_grid_filter_keeps_only_that_grids_runs(toys, toy_grid, tmp_path):
    grid, base = toy_grid(seeds=1)
    with ResultStore(tmp_path / "r.db") as store:
        compare(grid, store, base=base, progress=False)
        o = run_task(Task(grid.tasks(base)[0].pipeline.with_seed(7)))  # a single `run`
        store.write_run(o.key, o.records, pipeline=o.pipeline, seed=o.seed, data_label=o.data_label)
        assert {r.seed for r in collect(store.rows()).results} == {0, 7}
        assert {r.seed for r in collect(store.rows(), grid="g").results} == {0}
        with pytest.raises(Exception, match="no runs of grid 'nope'; its grids: \\['g'\\]"):
            collect(store.rows(), grid="nope")


def _write(store, method, plugin, data, seed, metrics, seconds=1.0, grid="hand", params=None, created=None):
    step = {"step": method, "kind": "search", "plugin": plugin, "params": params or {}, "seconds": seconds}
    ev = [{"step": f"evaluate_{method}", "kind": "evaluate", "plugin": name, "params": {},
           "metrics": {name: value, "n_variables": 5.0}, "on": method, "method": plugin}
          for name, value in metrics.items()]
    store.write_run(f"{method}-{data}-{seed}-{params}", [step, *ev], pipeline="p", seed=seed,
                    data_label=data, grid=grid)


def test_direction_best_and_clipping_on_hand_made_rows(plugin_registry, tmp_path):
    with ResultStore(tmp_path / "h.db") as store:
        for seed in range(3):
            _write(store, "pc", "pc", "d1", seed, {"shd": 4 + seed, "edge_f1": 0.5}, seconds=0.1)
            _write(store, "hill_climb", "hill_climb", "d1", seed, {"shd": 2, "edge_f1": 0.9}, seconds=2.0)
        report = build_report(store.rows())
    info = report.collection.metrics
    assert list(info) == ["edge_f1", "shd", "time"]
    assert [info[m].higher_is_better for m in info] == [True, False, False]
    assert report.collection.descriptive == ["n_variables"]  # not a metric: no table, no plot
    assert report.collection.unreported == []
    best = {(c.metric, c.method) for s in report.sections for c in s.cells if c.best}
    assert best == {("edge_f1", "hill_climb"), ("shd", "hill_climb"), ("time", "pc")}
    shd = next(c for c in report.sections[1].cells if c.method == "pc")
    assert (shd.mean, shd.n) == (5.0, 3) and math.isclose(shd.std, 1.0)  # sample sd of 4, 5, 6
    f1 = KNOWN["edge_f1"]
    assert f1.clip([-0.2, 0.4, 1.3]).tolist() == [0.0, 0.4, 1.0]
    assert f1.limits([0.4, 0.6]) == pytest.approx((-0.06, 1.06))  # the whole [0, 1], a small margin
    lo, hi = KNOWN["shd"].limits([3, 7])
    assert lo == pytest.approx(-0.42) and hi == pytest.approx(7.42)  # from 0, never an SHD below 0 - margin
    assert KNOWN["shd"].clip([-1, 3]).tolist() == [0.0, 3.0]
    assert KNOWN["time"].label == "time [s] (lower is better)"


def test_direction_comes_from_the_evaluator_when_it_declares_one():
    class Loss(Evaluator):
        name = "my_loss"
        higher_is_better = False

        def _evaluate(self, data, result, truth):
            return Evaluation(0.0)

    class Plain(Evaluator):
        name = "shd"

        def _evaluate(self, data, result, truth):
            return Evaluation(0.0)

    assert metric_info("my_loss", Loss).higher_is_better is False
    assert metric_info("shd", Plain).higher_is_better is False  # inherited default: the table decides
    assert metric_info("n_variables") is None
    assert metric_info("skeleton_f1").higher_is_better and metric_info("skeleton_f1").high == 1


def test_wilcoxon_matches_scipy_and_says_why_when_it_cannot(plugin_registry):
    from framework.report.results import Result

    rng = np.random.default_rng(0)
    a = rng.normal(size=8).round(3)
    b = (a + rng.normal(0.5, 1.0, size=8)).round(3)
    res = [Result("m", f"d{i % 2}", i, "shd", float(v), "m") for i, v in enumerate(a)]
    res += [Result("pc", f"d{i % 2}", i, "shd", float(v), "pc") for i, v in enumerate(b)]
    (t,) = paired_tests(res, KNOWN["shd"], ["pc"])
    ref = wilcoxon(a, b, zero_method="zsplit")
    assert (t.method, t.baseline, t.n) == ("m", "pc", 8)
    assert t.p == pytest.approx(ref.pvalue) and t.statistic == pytest.approx(ref.statistic)
    assert t.wins == int(np.sum(a < b)) and t.losses == int(np.sum(a > b))  # shd: lower is better
    few = [r for r in res if r.seed < 5]
    (t,) = paired_tests(few, KNOWN["shd"], ["pc"])
    assert t.n == 5 and t.shown_p == "n/a (n < 6)" and math.isnan(t.p)
    same = [Result(m, "d", i, "shd", 1.0, m) for m in ("m", "pc") for i in range(7)]
    (t,) = paired_tests(same, KNOWN["shd"], ["pc"])
    assert t.shown_p == "n/a (all pairs tied)" and t.ties == 7


def test_holm_adjustment():
    assert holm([0.01, 0.04, float("nan"), 0.03]) == pytest.approx([0.03, 0.06, float("nan"), 0.06],
                                                                      nan_ok=True)


def test_average_ranks_on_a_hand_made_table():
    from framework.report.results import Result

    means = {  # data -> method -> value (shd, lower is better)
        "d1": {"a": 1.0, "b": 2.0, "c": 3.0},
        "d2": {"a": 2.0, "b": 2.0, "c": 1.0},   # a and b tie for ranks 2 and 3
        "d3": {"a": 5.0, "b": 1.0},             # c missing: ranked among the two others
    }
    res = [Result(m, d, 0, "shd", v, m) for d, row in means.items() for m, v in row.items()]
    ranks = {r.method: (r.mean_rank, r.n_datasets) for r in average_ranks(aggregate(res, KNOWN), KNOWN["shd"])}
    assert ranks == {"a": ((1 + 2.5 + 2) / 3, 3), "b": ((2 + 2.5 + 1) / 3, 3), "c": ((3 + 1) / 2, 2)}
    f1 = [Result(m, d, 0, "edge_f1", v, m) for d, row in means.items() for m, v in row.items()]
    ranks = {r.method: r.mean_rank for r in average_ranks(aggregate(f1, KNOWN), KNOWN["edge_f1"])}
    assert ranks["c"] == (1 + 3) / 2  # higher is better now


def test_baselines_are_the_methods_running_baseline_plugins(plugin_registry, tmp_path):
    with ResultStore(tmp_path / "h.db") as store:
        for seed in range(6):
            _write(store, "pc", "pc", "d", seed, {"shd": 3 + seed % 2})
            _write(store, "ours", "cic_greedy", "d", seed, {"shd": 1 + seed % 3})
            _write(store, "hc", "hill_climb", "d", seed, {"shd": 2})
        report = build_report(store.rows())
        hc, ours = "hc (hill_climb)", "ours (cic_greedy)"
        assert report.baselines == [hc, "pc"]
        pairs = {(t.method, t.baseline) for t in report.sections[0].tests}
        assert pairs == {(hc, "pc"), (ours, hc), (ours, "pc")}
        only_pc = build_report(store.rows(), baselines=["pc"])
        assert {(t.method, t.baseline) for t in only_pc.sections[0].tests} == {(hc, "pc"), (ours, "pc")}


def test_same_step_with_other_parameters_is_another_method(plugin_registry, tmp_path):
    with ResultStore(tmp_path / "h.db") as store:
        for seed in range(2):
            _write(store, "pc", "pc", "d", seed, {"shd": 1}, params={"alpha": 0.01})
            _write(store, "pc", "pc", "d", seed, {"shd": 2}, params={"alpha": 0.05})
        col = collect(store.rows())
    assert sorted({(r.method, r.value) for r in col.of("shd")}) == [
        ("pc [alpha=0.01]", 1.0), ("pc [alpha=0.05]", 2.0)]


def test_a_stochastic_steps_seed_is_the_replicate_not_another_method(plugin_registry, tmp_path):
    with ResultStore(tmp_path / "h.db") as store:
        for seed in range(3):
            _write(store, "g", "greedy_dag", "d", seed, {"shd": seed}, params={"restarts": 2, "seed": seed})
        col = collect(store.rows())
    assert {r.method for r in col.results} == {"g (greedy_dag)"}
    assert sorted(r.value for r in col.of("shd")) == [0.0, 1.0, 2.0]


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
        col = collect(store.rows())
    assert [r.value for r in col.of("shd")] == [2.0]
    assert col.replaced == 0 and [f["error"] for f in col.failed] == ["boom"]  # replaced in the store


def test_one_value_from_two_evaluate_steps_is_named_by_step(plugin_registry, tmp_path):
    with ResultStore(tmp_path / "h.db") as store:
        step = {"step": "pc", "kind": "search", "plugin": "pc", "params": {}, "seconds": 1.0}
        ev = [{"step": sid, "kind": "evaluate", "plugin": "shd", "params": {}, "metrics": {"shd": v},
               "on": "pc", "method": "pc"} for sid, v in (("vs_dag", 3.0), ("vs_cpdag", 1.0))]
        store.write_run("k", [step, *ev], pipeline="p", seed=0, data_label="d")
        col = collect(store.rows())
    assert {(r.metric, r.value) for r in col.results} == {("shd [vs_dag]", 3.0), ("shd [vs_cpdag]", 1.0),
                                                         ("time", 1.0)}
    assert not col.metrics["shd [vs_dag]"].higher_is_better


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
        col = collect(store.rows())
    assert sorted(r.method for r in col.of("ari")) == [
        "cafe_auto (cafe_dbscan)", "cause_fs[alpha=1,k=3]", "cause_fs[alpha=2,k=3]", "p:q"]
