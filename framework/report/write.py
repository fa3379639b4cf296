"""Writing a report: markdown, CSV, one PNG per metric and a self-contained HTML page."""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable
from pathlib import Path

from .build import BASELINES, build_report, to_markdown
from .html import to_html
from .plots import plot_metric

__all__ = ["write_report", "FILES"]

FILES = ("report.md", "report.html", "report.csv", "results.csv", "ranks.csv", "tests.csv")


def write_report(store, out: str | Path, grid: str | None = None, *,
                 baselines: Iterable[str] = BASELINES, metrics: Iterable[str] | None = None) -> list[Path]:
    """Write the report of *store* (a ``ResultStore``) into folder *out*.

    One result per (pipeline, data, parameters, seed) is kept, the latest; with
    *grid*, only that grid's runs. Files: ``report.md`` and ``report.html`` (the
    whole report; the HTML embeds its figures and opens from disk), ``report.csv``
    (mean, std, n per metric x data x method), ``results.csv`` (every value, one per
    seed), ``ranks.csv``, ``tests.csv`` and ``<metric>.png``. Returns the paths written.

    Parameters
    ----------
    store : ResultStore
        The results store.
    out : str or Path
        Output folder (created).
    grid : str, optional
        Report only this grid's runs.
    baselines : list of str
        Plugin names of the baselines (default ``pc``, ``hill_climb``).
    metrics : list of str, optional
        Metrics to report (default: each evaluator's headline value, and ``time``).
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    report = build_report(store.results(grid), baselines=baselines, metrics=metrics)
    methods = report.collection.methods()
    figures = {}
    for sec in report.sections:
        name = sec.info.name
        figures[name] = plot_metric(report.collection.of(name), sec.info, out / f"{_file(name)}.png", methods)
    md, html, agg, res, ranks, tests = (out / f for f in FILES)
    md.write_text(to_markdown(report, {k: v.name for k, v in figures.items()}) + "\n")
    html.write_text(to_html(report, figures), encoding="utf-8")
    _csv(agg, ["metric", "direction", "data", "method", "mean", "std", "n", "best"],
         [[c.metric, s.info.direction, c.data, c.method, c.mean, _blank(c.std), c.n, int(c.best)]
          for s in report.sections for c in s.cells])
    _csv(res, ["pipeline", "method", "plugin", "data", "seed", "metric", "value"], [[r.pipeline, r.method, r.plugin or "", r.data, r.seed, r.metric, r.value]
          for r in sorted(report.collection.everything, key=lambda r: (r.metric, r.data, r.method, r.seed))])
    _csv(ranks, ["metric", "method", "mean_rank", "n_datasets"],
         [[r.metric, r.method, r.mean_rank, r.n_datasets] for s in report.sections for r in s.ranks])
    _csv(tests, ["metric", "method", "baseline", "n", "better", "tied", "worse", "mean_diff",
                 "statistic", "p", "p_holm", "note"],
         [[t.metric, t.method, t.baseline, t.n, t.wins, t.ties, t.losses, _blank(t.mean_diff),
           _blank(t.statistic), _blank(t.p), _blank(t.p_holm), t.note]
          for s in report.sections for t in s.tests])
    return [md, html, agg, res, ranks, tests, *figures.values()]


def _blank(x: float):
    return "" if isinstance(x, float) and math.isnan(x) else x


def _file(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)


def _csv(path: Path, header: list[str], rows: list[list]) -> None:
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)
