"""`report --margins`: per dataset, each method's per-seed gains over the baselines."""

import csv

import pandas as pd
import pytest
from click.testing import CliRunner

from macrocause.framework import Metric
from macrocause.framework.cli import main
from macrocause.framework.errors import MacrocauseError
from macrocause.framework.report import build_report
from macrocause.framework.report.analyses import EVERY, margins
from macrocause.framework.report.document import _margins_section
from macrocause.framework.store import ResultStore

INFOS = {"loss": Metric.lower(), "acc": Metric.higher()}
# per metric, method and dataset the values of seeds 0, 1, 2 (None: that run is missing)
VALUES = {
    "loss": {"B": {"d1": [10, 20, 30], "d2": [5, 5, 5]},
             "m1": {"d1": [8, 20, 33], "d2": [4, 6, None]},
             "m2": {"d1": [9, 19, 29], "d2": [5, 5, 5]}},
    "acc": {"B": {"d1": [0.5, 0.5, 0.5], "d2": [0.5, 0.75, 1.0]},
            "m1": {"d1": [0.75, 0.25, 0.5], "d2": [0.5, 1.0, 0.75]}},
}


def _frame():
    rows = [(method, data, seed, metric, float(v)) for metric, by in VALUES.items() for method, per in by.items()
            for data, vals in per.items() for seed, v in enumerate(vals) if v is not None]
    return pd.DataFrame(rows, columns=["method", "data", "seed", "metric", "value"])


def test_margins_by_hand():
    out = margins(_frame(), INFOS, ["B"])
    got = [(r.metric, r.method, r.data, r.n, r.mean_gain, r.worst_gain, r.at_least) for r in out.itertuples()]
    assert set(out.baseline) == {"B"}
    assert got == ([
        # loss, lower is better: gain = B - m1: d1 2, 0, -3; d2 1, -1 (m1 has no seed 2 on d2)
        ("loss", "m1", "d1", 3, -1 / 3, -3.0, 2), ("loss", "m1", "d2", 2, 0.0, -1.0, 1),
        ("loss", "m1", "all", 5, -0.2, -3.0, 3),
        # m2: d1 1, 1, 1; d2 tied on every seed (at least as good, worst 0)
        ("loss", "m2", "d1", 3, 1.0, 1.0, 3), ("loss", "m2", "d2", 3, 0.0, 0.0, 3),
        ("loss", "m2", "all", 6, 0.5, 0.0, 6),
        # acc, higher is better: gain = m1 - B: d1 .25, -.25, 0; d2 0, .25, -.25; m2 has no acc
        ("acc", "m1", "d1", 3, 0.0, -0.25, 2), ("acc", "m1", "d2", 3, 0.0, -0.25, 2),
        ("acc", "m1", "all", 6, 0.0, -0.25, 4)])  # exact: sums of a few binary fractions
    sec = _margins_section("loss", "lower is better", out[out.metric == "loss"])
    assert sec.tables[0].header == ["method", "baseline", "d1", "d2", "all"]
    assert sec.tables[0].rows == [["m1", "B", "-0.33333 / -3 (2 of 3)", "+0 / -1 (1 of 2)", "-0.2 / -3 (3 of 5)"],
                                  ["m2", "B", "+1 / +1 (3 of 3)", "+0 / +0 (3 of 3)", "+0.5 / +0 (6 of 6)"]]


def test_two_baselines_are_compared_once():
    out = margins(_frame(), {"loss": INFOS["loss"]}, ["B", "m2"])
    pairs = list(dict.fromkeys(zip(out.method, out.baseline)))
    assert pairs == [("B", "m2"), ("m1", "B"), ("m1", "m2"), ("m1", EVERY)]
    b = out[(out.method == "B") & (out.data == "all")].iloc[0]  # m2 - B: 1 on d1, 0 on d2, for each seed
    assert (b.n, b.mean_gain, b.worst_gain, b.at_least) == (6, -0.5, -1.0, 3)


def test_margins_over_every_baseline_by_hand():
    """m1 against the better of B and m2 on each pair; a pair m2 lacks is judged against B alone."""
    frame = _frame()
    frame = frame[~((frame.method == "m2") & (frame.data == "d1") & (frame.seed == 2))]
    out = margins(frame, {"loss": INFOS["loss"]}, ["B", "m2"])
    every = out[out.baseline == EVERY]
    assert set(every.method) == {"m1"}  # a baseline is not compared with every baseline
    got = [(r.data, r.n, r.mean_gain, r.worst_gain, r.at_least) for r in every.itertuples()]
    # best of B, m2 (lower loss): d1 9, 19, then 30 (B alone); d2 5, 5. m1: d1 8, 20, 33; d2 4, 6
    assert got == [("d1", 3, -1.0, -3.0, 1), ("d2", 2, 0.0, -1.0, 1), ("all", 5, -0.6, -3.0, 2)]
    assert EVERY not in set(margins(frame, {"loss": INFOS["loss"]}, ["B"]).baseline)  # one baseline: no such row


def _write(store, method, plugin, data, seed, loss, acc):
    step = {"step": method, "kind": "search", "plugin": plugin, "params": {}, "seconds": 1.0}
    ev = [{"step": f"evaluate_{name}", "kind": "evaluate", "plugin": name, "params": {},
           "metrics": {name: value}, "on": method, "method": plugin, "meanings": {name: INFOS[name].to_dict()}}
          for name, value in (("loss", loss), ("acc", acc)) if value is not None]
    store.write_run(f"{method}-{data}-{seed}", [step, *ev], pipeline=method, seed=seed, data_label=data, grid="g")


@pytest.fixture
def margins_store(plugin_registry, tmp_path):
    path = tmp_path / "m.db"
    with ResultStore(path) as store:
        for method, per in VALUES["loss"].items():
            for data, vals in per.items():
                for seed, loss in enumerate(vals):
                    acc = VALUES["acc"].get(method, {}).get(data, [None] * 3)[seed]
                    if loss is not None:
                        _write(store, method, "kmeans" if method == "B" else "dbscan", data, seed, loss, acc)
    return path


def test_the_cli_writes_the_margins(margins_store, tmp_path):
    out = tmp_path / "rep"
    args = ["report", "--store", str(margins_store), "--metrics", "loss,acc", "--baselines", "kmeans"]
    res = CliRunner().invoke(main, [*args, "--margins", "loss,acc", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "### Margins of loss over the baselines (lower is better)" in res.output
    m1 = "| m1 (dbscan) | B (kmeans) |"
    assert f"{m1} -0.33333 / -3 (2 of 3) | +0 / -1 (1 of 2) | -0.2 / -3 (3 of 5) |" in res.output
    # m1's run of d2 seed 2 is missing: its acc too (d2: gains 0, .25)
    assert f"{m1} +0 / -0.25 (2 of 3) | +0.125 / +0 (2 of 2) | +0.05 / -0.25 (4 of 5) |" in res.output
    rows = list(csv.DictReader((out / "margins.csv").open()))
    assert [(r["metric"], r["method"], r["data"]) for r in rows] == [
        (metric, f"{m} (dbscan)", d) for metric, ms in (("loss", ("m1", "m2")), ("acc", ("m1",)))
        for m in ms for d in ("d1", "d2", "all")]
    assert {k: rows[2][k] for k in ("baseline", "n", "mean_gain", "worst_gain", "at_least")} == {
        "baseline": "B (kmeans)", "n": "5", "mean_gain": "-0.2", "worst_gain": "-3.0", "at_least": "3"}
    assert "Margins of acc over the baselines" in (out / "report.html").read_text()
    plain = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "plain")])
    assert plain.exit_code == 0 and "Margins" not in plain.output
    assert not (tmp_path / "plain" / "margins.csv").exists()


def test_margins_of_an_unreported_metric_or_without_baselines_are_refused(margins_store):
    res = CliRunner().invoke(main, ["report", "--store", str(margins_store), "--metrics", "loss",
                                    "--baselines", "kmeans", "--margins", "acc"])
    assert res.exit_code == 1
    assert res.output.strip().splitlines()[-1] == (
        "Error: Cannot give margins of acc: not among the reported metrics (loss); add it to --metrics.")
    with ResultStore(margins_store) as store:
        rows = store.rows()
    with pytest.raises(MacrocauseError, match="no reported method is one; name them with --baselines"):
        build_report(rows, metrics=["loss"], baselines=["pc"], margins=["loss"])


def test_a_baseline_named_by_its_step_id(margins_store):
    """``B`` names the method ``B (kmeans)`` (step B running kmeans), as ``--peer`` resolves it."""
    with ResultStore(margins_store) as store:
        rows = store.rows()
    rep = build_report(rows, metrics=["loss"], baselines=["B"], margins=["loss"])
    assert rep.baselines == ["B (kmeans)"] and set(rep.margins.baseline) == {"B (kmeans)"}
    assert build_report(rows, metrics=["loss"], baselines=["kmeans"]).baselines == ["B (kmeans)"]


def test_a_rounding_difference_is_a_tie():
    """Two values within a relative 1e-9 (one number summed in another order) tie; 1e-6 apart they do not."""
    v = -54275.123456789
    frame = pd.DataFrame([("m", "d", s, "bic", x) for s, x in enumerate([v, v, v])]
                         + [("B", "d", s, "bic", x) for s, x in enumerate([v + 7.3e-12, v + 1e-6 * abs(v), v - 1.0])],
                         columns=["method", "data", "seed", "metric", "value"])
    (row, _) = margins(frame, {"bic": Metric.higher()}, ["B"]).itertuples()
    assert (row.n, row.at_least) == (3, 2)  # the first seed ties, the second loses, the third wins
