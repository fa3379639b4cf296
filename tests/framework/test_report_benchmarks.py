"""Every committed benchmark report reproduces from its results.csv with the report's analyses.

Each ``benchmarks/*/report*/`` folder keeps ``results.csv`` (every value, one per seed) and
the tables the report code of its day computed from the same values: ``report.csv`` (cells),
``ranks.csv``, ``tests.csv``, and with the options that made them ``ratios.csv`` (the pooled row
and the total ratio since they were added) and ``correlations.csv``. The metrics, their directions, the baselines, the peer and the
correlated metric are read from those tables; the values are recomputed and compared
(rtol 1e-9). Where the pairs hold a zero or tied difference the committed p-values
are exact ones an earlier scipy gave; today's ``scipy.stats.wilcoxon`` (as the old report
code run today) gives the normal approximation there, so those p-values are not compared
(the counts, mean difference and statistic are). ``results.csv`` records neither data hashes nor seeds of the methods, so the
paired tests pair seeds, as a store without them does.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from macrocause.framework.evaluation import Metric
from macrocause.framework.report import analyses
from macrocause.framework.report.frame import COLUMNS

ROOT = Path(__file__).resolve().parents[2] / "benchmarks"
FOLDERS = sorted(p.parent for p in ROOT.glob("*/report*/results.csv*"))


def _read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def _num(s: pd.Series) -> pd.Series:
    return pd.to_numeric(s.replace("", np.nan))


def results_frame(folder: Path) -> pd.DataFrame:
    """The tidy frame of a committed results.csv (the columns it lacks left empty)."""
    raw = _read(next(folder.glob("results.csv*")))
    frame = pd.DataFrame({c: raw[c] if c in raw else None for c in COLUMNS})
    frame["seed"], frame["value"] = raw.seed.astype(int), _num(raw.value)
    frame["source_params"], frame["baseline"] = "{}", False
    return frame


def _close(a: pd.Series, b: pd.Series) -> bool:
    return bool(np.allclose(_num(a.astype(str).replace("nan", "")), _num(b.astype(str).replace("nan", "")),
                            rtol=1e-9, atol=1e-12, equal_nan=True))


def _same(new: pd.DataFrame, old: pd.DataFrame, keys: list[str], numbers: list[str], texts=()) -> pd.DataFrame:
    new = new.astype({k: str for k in keys})
    both = old.merge(new, on=keys, how="outer", suffixes=("_old", "_new"), indicator=True)
    assert (both["_merge"] == "both").all(), both[both["_merge"] != "both"][keys].head().to_string()
    for c in numbers:
        assert _close(both[f"{c}_old"], both[f"{c}_new"]), c
    for c in texts:
        assert (both[f"{c}_old"].astype(str) == both[f"{c}_new"].astype(str)).all(), c
    return both


def _tied(frame: pd.DataFrame, metric: str, a: str, b: str) -> bool:
    """Whether the (data, seed) pairs of *a* and *b* hold a zero or tied absolute difference."""
    v = frame[frame.metric == metric].pivot_table(index=["data", "seed"], columns="method", values="value",
                                                 aggfunc="last")
    d = (v[a] - v[b]).dropna().abs()
    return bool((d == 0).any() or d.duplicated().any())


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_committed_tables_reproduce(folder):
    frame = results_frame(folder)
    old = _read(folder / "report.csv")
    metrics = {m: Metric.higher() if d.startswith("higher") else Metric.lower()
               for m, d in dict(zip(old.metric, old.direction)).items()}
    cell = analyses.cells(frame, metrics)
    old["best"] = old.best.replace({"0": "False", "1": "True"})
    _same(cell, old, ["metric", "data", "method"], ["mean", "std", "n"], ["best", "direction"])
    _same(analyses.ranks(cell, metrics), _read(folder / "ranks.csv"), ["metric", "method"],
          ["mean_rank", "n_datasets"])
    tests = _read(folder / "tests.csv")
    new = analyses.paired_tests(frame, metrics, sorted(set(tests.baseline)))
    assert set(new.unit) <= {"(data, seed)"}
    both = _same(new, tests, ["metric", "method", "baseline"],
                 ["n", "better", "tied", "worse", "mean_diff", "statistic"], ["note"])
    exact = both.loc[np.array([not _tied(frame, r.metric, r.method, r.baseline) for r in both.itertuples()], bool)]
    assert _close(exact.p_old, exact.p_new)
    if len(exact) == len(both):
        assert _close(both.p_holm_old, both.p_holm_new)
    if (folder / "ratios.csv").is_file():
        old = _read(folder / "ratios.csv")
        timing = [m for m in dict.fromkeys(old.metric)]
        peer = old.peer.iloc[0]
        if "@" in "".join(frame.metric.unique()) and peer not in set(frame.method):
            timing = [m for m in frame.metric.unique() if "@" in m]
        new = analyses.ratios(frame, timing, peer)
        if "total" not in old:  # tables of an earlier day: no pooled row, no total
            new = new[new.data != analyses.ALL]
        _same(new, old, ["metric", "method", "peer", "data"], ["ratio", "n"] + (["total"] if "total" in old else []))
    if (folder / "correlations.csv").is_file():
        old = _read(folder / "correlations.csv")
        new = analyses.correlations(frame, list(dict.fromkeys(old.metric)), old.against.iloc[0])
        _same(new, old, ["metric", "against", "data"], ["n", "left_out", "pearson", "spearman"])
