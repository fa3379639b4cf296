"""`report --select-among`: a setting chosen on the other datasets, judged on the held-out one."""

import csv

import pandas as pd
import pytest
from click.testing import CliRunner

from macrocause.framework import Metric
from macrocause.framework.cli import main
from macrocause.framework.errors import MacrocauseError
from macrocause.framework.report import build_report
from macrocause.framework.report.analyses import selection
from macrocause.framework.report.document import _selection_section
from macrocause.framework.store import ResultStore

INFOS = {"acc": Metric.higher(), "err": Metric.lower()}
# (acc, err) per method and dataset; score = acc - err
TABLE = {
    "d1": {"X": (0.9, 0.1), "Y": (0.8, 0.1), "Z": (0.5, 0.0), "B": (0.85, 0.05)},
    "d2": {"X": (0.6, 0.2), "Y": (0.7, 0.1), "Z": (0.6, 0.2), "B": (0.65, 0.15)},
    "d3": {"X": (0.5, 0.4), "Y": (0.9, 0.3), "Z": (0.9, 0.0), "B": (0.8, 0.35), "C": (0.1, 0.2)},
}


def _cells():
    return pd.DataFrame([(metric, d, m, v[i]) for d, row in TABLE.items() for m, v in row.items()
                         for i, metric in enumerate(("acc", "err"))], columns=["metric", "data", "method", "mean"])


def test_leave_one_dataset_out_by_hand():
    ranks, choices = selection(_cells(), INFOS, ["X", "Y", "Z"], ["B", "C"], ["acc", "err"])
    # ranks by acc - err: d1 X 1, Y 2, Z 3; d2 Y 1, X = Z = 2.5; d3 Z 1, Y 2, X 3
    assert list(ranks.setting) == ["Y", "X", "Z"] and list(ranks.datasets) == [3, 3, 3]
    assert list(ranks["average rank"]) == pytest.approx([5 / 3, 6.5 / 3, 6.5 / 3])
    held = choices[choices.rule == "held_out"]
    assert set(choices.method[choices.rule == "default"]) == {"Y"}
    # held out d1: on d2, d3 X 2.75, Y 1.5, Z 1.75; d2: a three-way tie at 2 goes to X; d3: Y 1.5
    assert dict(zip(held.data, held.method)) == {"d1": "Y", "d2": "X", "d3": "Y"}
    # the best baseline is per metric: on d3 acc from B (0.8), err from C (0.2)
    d3 = held[held.data == "d3"]
    assert list(d3.best_baseline) == [0.8, 0.2] and list(d3.gap) == pytest.approx([0.1, -0.1])
    assert held.groupby("data").above.first().tolist() == [False, False, False]
    default = choices[choices.rule == "default"]
    assert default.groupby("data").above.first().tolist() == [False, True, False]  # Y on d2: +.05, +.05
    sec = _selection_section("toy", ["acc", "err"], ranks, choices, None)
    assert sec.tables[0].rows == [["Y", "1.67", "3", "2"], ["X", "2.17", "3", "1"], ["Z", "2.17", "3", "0"]]
    assert sec.tables[1].title == "held out: above every baseline on 0 of 3 datasets; the default: on 1 of 3"
    assert sec.tables[1].rows[1][4] == "no (acc -0.050, err -0.050)"
    assert sec.tables[1].rows[1][6] == "yes (acc +0.050, err +0.050)"


def test_one_setting_cannot_be_chosen():
    with pytest.raises(MacrocauseError, match="at least two settings"):
        selection(_cells(), INFOS, ["X"], ["B"], ["acc"])


def _write(store, method, plugin, data, ari, shd):
    step = {"step": method, "kind": "partition", "plugin": plugin, "params": {}, "seconds": 1.0}
    ev = [{"step": f"evaluate_{name}", "kind": "evaluate", "plugin": name, "params": {},
           "metrics": {name: value}, "on": method, "method": plugin,
           "meanings": {name: {"direction": "higher" if name == "ari" else "lower"}}}
          for name, value in (("ari", ari), ("shd", shd))]
    store.write_run(f"{method}-{data}", [step, *ev], pipeline=method, seed=0, data_label=data, grid="g")


@pytest.fixture
def sweep_store(plugin_registry, tmp_path):
    path = tmp_path / "s.db"
    with ResultStore(path) as store:
        for d, row in TABLE.items():
            for m, (acc, err) in row.items():
                _write(store, m, "kmeans" if m in "BC" else "dbscan", d, acc, err)
    return path


def test_the_cli_writes_the_choice(sweep_store, tmp_path):
    out = tmp_path / "rep"
    res = CliRunner().invoke(main, ["report", "--store", str(sweep_store), "--metrics", "ari,shd",
                                    "--baselines", "kmeans", "--select-among", "dbscan", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "### Leave one dataset out among dbscan" in res.output
    assert "held out: above every baseline on 0 of 3 datasets; the default: on 1 of 3" in res.output
    rows = list(csv.DictReader((out / "selection.csv").open()))
    assert len(rows) == 3 * 2 * 2  # datasets x (held out, default) x metrics
    d2 = [r for r in rows if r["data"] == "d2" and r["rule"] == "default"]
    assert {r["metric"]: float(r["gap"]) for r in d2} == {"ari": pytest.approx(0.05), "shd": pytest.approx(0.05)}
    assert "Leave one dataset out among dbscan" in (out / "report.html").read_text()
    assert (out / "selection.png").read_bytes()[:4] == b"\x89PNG"


def test_bad_selection_arguments_name_what_is_allowed(sweep_store):
    with ResultStore(sweep_store) as store:
        rows = store.rows()
    with pytest.raises(MacrocauseError, match=r"No reported method runs 'pc'; the grid's evaluated plugins: dbscan, kmeans"):
        build_report(rows, metrics=["ari"], select_among="pc")
    with pytest.raises(MacrocauseError, match=r"Cannot choose by shd: not among the reported metrics \(ari\)"):
        build_report(rows, metrics=["ari"], select_among="dbscan", select_by=["shd"])
