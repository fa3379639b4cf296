"""`report --correlate`: per dataset, Pearson and Spearman correlation of each metric with one."""

import csv
import math
import re

import numpy as np
import pytest
from click.testing import CliRunner
from scipy.stats import pearsonr, spearmanr

from macrocause.framework.cli import main
from macrocause.framework.errors import MacrocauseError
from macrocause.framework.report import build_report, report_frames, write_report
from macrocause.framework.report.analyses import _pearson
from macrocause.framework.store import ResultStore

NAN = float("nan")
# one labelling per method (seed 0): its ARI and two internal scores
D1 = {"m1": (0.0, 0.1, 0.5), "m2": (0.2, 0.3, NAN), "m3": (0.4, 0.2, 0.1), "m4": (0.8, 0.9, -0.3)}
D2 = {"m1": (0.0, 0.2, 0.3), "m2": (0.5, 0.4, 0.3), "m3": (1.0, 0.9, 0.3)}  # a constant silhouette


def _write(store, method, data, ari, disco, silhouette):
    step = {"step": method, "kind": "partition", "plugin": "kmeans", "params": {}, "seconds": 1.0}
    ev = [{"step": f"evaluate_{method}", "kind": "evaluate", "plugin": name, "params": {},
           "metrics": {name: value}, "on": method, "method": "kmeans",
           "meanings": {name: {"direction": "higher", "low": -1, "high": 1}}}
          for name, value in (("ari", ari), ("disco", disco), ("silhouette", silhouette))]
    store.write_run(f"{method}-{data}", [step, *ev], pipeline=method, seed=0, data_label=data, grid="cvi")


@pytest.fixture
def cvi_store(plugin_registry, tmp_path):
    path = tmp_path / "cvi.db"
    with ResultStore(path) as store:
        for data, table in (("d1", D1), ("d2", D2)):
            for method, values in table.items():
                _write(store, method, data, *values)
    return path


def test_correlations_by_hand(cvi_store):
    with ResultStore(cvi_store) as store:
        report = build_report(store.rows(), correlate="ari")
    got = {(c.metric, c.data): c for c in report.correlations.itertuples()}
    assert set(got) == {(m, d) for m in ("disco", "silhouette") for d in ("d1", "d2", "mean")}  # no time
    # d1, disco against ari: centred x = (-.35, -.15, .05, .45), y = (-.275, -.075, -.175, .525):
    # r = .335 / sqrt(.35 * .3875); ranks (1, 3, 2, 4) against (1, 2, 3, 4): rho = 1 - 6 * 2 / 60
    c = got["disco", "d1"]
    assert (c.n, c.left_out) == (4, 0)
    assert c.pearson == pytest.approx(0.335 / math.sqrt(0.35 * 0.3875))
    assert c.spearman == pytest.approx(0.8)
    # d2: r = .35 / sqrt(.5 * .26), rho = 1
    assert got["disco", "d2"].pearson == pytest.approx(0.35 / math.sqrt(0.13))
    assert got["disco", "d2"].spearman == pytest.approx(1.0)
    # silhouette on d1: the NaN point is left out and counted; the other three fall on a line
    s = got["silhouette", "d1"]
    assert (s.n, s.left_out, s.pearson, s.spearman) == (3, 1, pytest.approx(-1.0), pytest.approx(-1.0))
    # a constant score has no correlation; the mean is over the datasets that have one
    assert math.isnan(got["silhouette", "d2"].pearson)
    mean = got["silhouette", "mean"]
    assert (mean.n, mean.left_out, mean.pearson) == (1, 1, pytest.approx(-1.0))
    assert got["disco", "mean"].pearson == pytest.approx((0.335 / math.sqrt(0.35 * 0.3875)
                                                          + 0.35 / math.sqrt(0.13)) / 2)


def test_pearson_and_spearman_match_scipy_with_ties():
    from scipy.stats import rankdata

    rng = np.random.default_rng(0)
    x = rng.integers(0, 4, 30).astype(float)  # many ties
    y = x + rng.normal(size=30)
    assert _pearson(x, y) == pytest.approx(pearsonr(x, y)[0])
    assert _pearson(rankdata(x), rankdata(y)) == pytest.approx(spearmanr(x, y)[0])
    assert math.isnan(_pearson(np.array([1.0, 2.0]), np.array([3.0, 1.0])))  # below three points
    assert math.isnan(_pearson(np.ones(5), np.arange(5.0)))  # a constant side


def test_unknown_metric_is_a_clear_error(cvi_store):
    with ResultStore(cvi_store) as store, pytest.raises(MacrocauseError, match="no values of it"):
        build_report(store.rows(), correlate="nmi")


def test_written_report_and_frames_hold_the_correlations(cvi_store, tmp_path):
    with ResultStore(cvi_store) as store:
        files = write_report(store, tmp_path / "out", correlate="ari")
        frames = report_frames(store, correlate="ari")
    assert {"correlations.csv", "correlation.png"} <= {f.name for f in files}
    with (tmp_path / "out" / "correlations.csv").open() as fh:
        rows = {(r["metric"], r["data"]): r for r in csv.DictReader(fh)}
    assert rows["silhouette", "d1"]["left_out"] == "1" and rows["silhouette", "d2"]["pearson"] == ""
    assert float(rows["disco", "d1"]["spearman"]) == pytest.approx(0.8)
    corr = frames["correlations"]
    assert corr[(corr.metric == "disco") & (corr.data == "d1")].spearman.item() == pytest.approx(0.8)
    md = (tmp_path / "out" / "report.md").read_text()
    assert "### Correlation with ari" in md
    assert "| disco | **+0.910** | +0.971 | **+0.940** |" in md  # bold: the largest of the column
    assert "| silhouette | -1.000 |  | -1.000 |" in md  # d2: disco alone in its column, not bold
    assert "| silhouette | 3 (1 NaN) | 3 (0 NaN) |" in md
    html = (tmp_path / "out" / "report.html").read_text()
    assert "Correlation with ari" in html and len(re.findall(r'src="[a-z_]+\.png"', html)) == 5  # 4 metrics + scatter


def test_cli_writes_the_correlation_files(cvi_store, tmp_path):
    out = tmp_path / "rep"
    res = CliRunner().invoke(main, ["report", "--store", str(cvi_store), "--correlate", "ari", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "Pearson r with ari:" in res.output
    assert (out / "correlations.csv").exists() and (out / "correlation.png").read_bytes()[:4] == b"\x89PNG"
    res = CliRunner().invoke(main, ["report", "--store", str(cvi_store), "--correlate", "nope"])
    assert res.exit_code == 1 and "Error: Cannot correlate with 'nope'" in res.output
