"""Writing a report: markdown, CSV, one PNG per metric and a self-contained HTML page."""

from __future__ import annotations

import csv
import functools
import math
from collections.abc import Iterable
from pathlib import Path

from .build import BASELINES, build_report, to_markdown
from .frames import CORRELATIONS_HEADER, report_tables
from .html import to_html
from .metrics import metric_info
from .plots import plot_correlation, plot_growth, plot_metric, plot_selection
from .select import SELECTION_HEADER, selection_rows

__all__ = ["write_report", "FILES"]

FILES = ("report.md", "report.html", "report.csv", "results.csv", "ranks.csv", "tests.csv")


def _text_only(fn):
    """Draw every label as text, never as math (a ``$`` in a label is a dollar sign)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        import matplotlib

        with matplotlib.rc_context({"text.parse_math": False}):
            return fn(*args, **kwargs)
    return wrapper


@_text_only
def write_report(store, out: str | Path, grid: str | None = None, *,
                 baselines: Iterable[str] = BASELINES, metrics: Iterable[str] | None = None,
                 peer: str | None = None, growth: str | None = None,
                 correlate: str | None = None, select_among: str | None = None,
                 select_by: Iterable[str] | None = None, keys: Iterable[str] | None = None) -> list[Path]:
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
    peer : str, optional
        A method (or an evaluator with ``time@E`` among *metrics*): adds ``ratios.csv``,
        every timing relative to it.
    growth : str, optional
        A data-source parameter, ``n`` or ``d``: adds ``growth.csv`` and a log-log
        ``growth_<metric>.png`` per timing metric, with growth exponents.
    correlate : str, optional
        A metric: adds ``correlations.csv`` (per dataset, Pearson and Spearman correlation of
        every other reported metric with it over the runs, NaN left out and counted) and
        ``correlation.png`` (each metric against it, a facet per dataset).
    select_among : str, optional
        A plugin: adds ``selection.csv``, the leave-one-dataset-out choice among its settings
        by the signed sum of *select_by* (default: the reported metrics but timings), each
        held-out dataset's choice and the all-data default against the best baseline
        (:mod:`~framework.report.select`), and ``selection.png`` (their gaps to the best baseline).
    select_by : list of str, optional
        The metrics of that choice.
    keys : iterable of str, optional
        Report only these runs (their store keys), e.g. those a grid file names now
        (``macrocause report --grid FILE.yaml``).
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    report = build_report(store.results(grid, keys), grid, baselines=baselines, metrics=metrics, peer=peer,
                          growth_param=growth, correlate=correlate, select_among=select_among,
                          select_by=select_by)
    methods = report.collection.methods()
    figures = {}
    for sec in report.sections:
        name = sec.info.name
        figures[name] = plot_metric(report.collection.of(name), sec.info, out / f"{_file(name)}.png", methods)
    for metric in dict.fromkeys(g.metric for g in report.growth):
        fits = [g for g in report.growth if g.metric == metric]
        figures[f"growth {metric}"] = plot_growth(fits, metric_info(metric), report.growth_param,
                                                  out / f"growth_{_file(metric)}.png")
    if report.correlations:
        figures["correlation"] = plot_correlation(report.collection.everything, report.correlations,
                                                  out / "correlation.png")
    if report.selection:
        figures["selection"] = plot_selection(report.selection, out / "selection.png")
    md, html, agg, res, ranks, tests = (out / f for f in FILES)
    md.write_text(to_markdown(report, {k: v.name for k, v in figures.items()}) + "\n")
    html.write_text(to_html(report, figures), encoding="utf-8")
    tables = report_tables(report)
    for path, name in ((agg, "cells"), (res, "results"), (ranks, "ranks"), (tests, "tests")):
        header, rows = tables[name]
        _csv(path, header, [[_blank(x) for x in row] for row in rows])
    extra = []
    if report.ratios:
        extra.append(out / "ratios.csv")
        _csv(extra[-1], ["metric", "method", "peer", "data", "ratio", "n"],
             [[r.metric, r.method, r.peer, r.data, r.ratio, r.n] for r in report.ratios])
    if report.growth:
        extra.append(out / "growth.csv")
        _csv(extra[-1], ["metric", "method", "setting", "size", "median", "exponent"],
             [[g.metric, g.method, g.setting, x, v, _blank(g.exponent)]
              for g in report.growth for x, v in zip(g.sizes, g.medians)])
    if report.correlations:
        extra.append(out / "correlations.csv")
        _csv(extra[-1], CORRELATIONS_HEADER, [[_blank(x) for x in row] for row in tables["correlations"][1]])
    if report.selection:
        extra.append(out / "selection.csv")
        _csv(extra[-1], SELECTION_HEADER, [[_blank(x) for x in row] for row in selection_rows(report.selection)])
    return [md, html, agg, res, ranks, tests, *extra, *figures.values()]


def _blank(x):
    """A CSV cell: empty for None and NaN, 0/1 for a flag."""
    if x is None or isinstance(x, float) and math.isnan(x):
        return ""
    return int(x) if isinstance(x, bool) else x


def _file(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)


def _csv(path: Path, header: list[str], rows: list[list]) -> None:
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)
