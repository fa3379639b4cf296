"""The report in one straight flow: store rows -> tidy frame -> analyses -> figures -> one
document -> markdown, HTML and CSV files."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import MacrocauseError
from . import analyses as an
from .document import Document, document
from .frame import Facts, is_timing, meaning, natural_key, tidy
from .render import to_html, to_markdown

__all__ = ["Report", "build_report", "report_document", "write_report", "write_files", "report_frames", "markdown"]


@dataclass
class Report:
    """Every frame of a report (each analysis empty or None when not asked for)."""

    frame: pd.DataFrame
    facts: Facts
    cells: pd.DataFrame
    ranks: pd.DataFrame
    tests: pd.DataFrame
    baselines: list[str]
    ratios: pd.DataFrame | None = None
    growth: pd.DataFrame | None = None
    growth_param: str | None = None
    correlations: pd.DataFrame | None = None
    selection: tuple | None = None  # (among, by, ranks, choices)
    margins: pd.DataFrame | None = None


def build_report(rows: Sequence[Mapping[str, Any]], grid: str | None = None, *,
                 baselines: Iterable[str] | None = None, metrics: Iterable[str] | None = None,
                 peer: str | None = None, growth: str | None = None, correlate: str | None = None,
                 select_among: str | None = None, select_by: Iterable[str] | None = None,
                 margins: Iterable[str] | None = None) -> Report:
    """The report's frames from store rows (``ResultStore.results()``).

    *baselines* are plugin names, step ids or method labels (default: the methods whose plugin flags
    itself ``baseline = True``, as the runner recorded); every other method is tested against
    each. *peer* adds timing ratios, *growth* (a data-source parameter, or ``n`` / ``d``)
    timings against size, *correlate* (a metric) correlations with it, *select_among* (a
    plugin) the leave-one-dataset-out choice among its settings by *select_by*, *margins*
    (reported metrics) each method's per-seed gains over the baselines, per dataset.
    """
    frame, facts = tidy(rows, grid, metrics)
    metrics_ = facts.metrics
    cells = an.cells(frame, metrics_)
    methods = frame[frame.metric.isin(list(metrics_)) & frame.value.notna()]
    if baselines is None:
        base = sorted(set(methods.method[methods.baseline]))
    else:
        names = set(baselines)
        named = methods.plugin.isin(names) | methods.method.isin(names) | methods.method.map(an.step_of).isin(names)
        base = sorted(set(methods.method[named]))
    timings = [m for m in metrics_ if is_timing(m)]
    rep = Report(frame, facts, cells, an.ranks(cells, metrics_), an.paired_tests(frame, metrics_, base), base)
    if peer:
        rep.ratios = an.ratios(frame, timings, peer)
    if growth:
        rep.growth, rep.growth_param = an.growth(frame, timings, growth), growth
    if correlate:
        rep.correlations = an.correlations(frame, [m for m in metrics_ if m != correlate and not is_timing(m)],
                                           correlate)
    if select_among:
        by = list(select_by) if select_by else [m for m in metrics_ if not is_timing(m)]
        missing = [m for m in by if m not in metrics_]
        if missing:
            raise MacrocauseError(f"Cannot choose by {', '.join(missing)}: not among the reported metrics "
                                  f"({', '.join(metrics_)}); add it to --metrics.")
        candidates = sorted(set(methods.method[methods.plugin == select_among]), key=natural_key)
        if not candidates:
            raise MacrocauseError(f"No reported method runs {select_among!r}; the grid's evaluated plugins: "
                                  f"{', '.join(sorted(set(methods.plugin.dropna())))}.")
        rep.selection = (select_among, by, *an.selection(cells, metrics_, candidates, base, by))
    if margins:
        margins = list(margins)
        missing = [m for m in margins if m not in metrics_]
        if missing:
            raise MacrocauseError(f"Cannot give margins of {', '.join(missing)}: not among the reported metrics "
                                  f"({', '.join(metrics_)}); add it to --metrics.")
        if not base:
            raise MacrocauseError("Margins are over the baselines, and no reported method is one; name them "
                                  "with --baselines (plugins or methods).")
        rep.margins = an.margins(frame, {m: metrics_[m] for m in margins}, base)
    return rep


def report_document(rep: Report, figures: Mapping[str, str] | None = None) -> Document:
    """The report as one :class:`~macrocause.framework.report.document.Document`."""
    return document(rep.facts, rep.cells, rep.ranks, rep.tests, rep.baselines, figures, rep.ratios, rep.growth,
                    rep.growth_param, rep.correlations, rep.selection, rep.margins)


def markdown(rep: Report) -> str:
    """The report as markdown (no figures)."""
    return to_markdown(report_document(rep))


def report_frames(store, grid: str | None = None, **options) -> dict[str, pd.DataFrame]:
    """The report of *store* (a ``ResultStore``) as DataFrames: ``cells``, ``results``, ``ranks``,
    ``tests`` and, as asked, ``ratios``, ``growth``, ``correlations``, ``selection``, ``margins``: the
    content of :func:`write_report`'s CSV files. *options* are those of :func:`build_report`."""
    return _tables(build_report(store.results(grid), grid, **options))


def _tables(rep: Report) -> dict[str, pd.DataFrame]:
    results = rep.frame[["pipeline", "method", "plugin", "data", "seed", "metric", "value"]]
    out = {"cells": rep.cells, "results": results.sort_values(["metric", "data", "method", "seed"], kind="stable"),
           "ranks": rep.ranks, "tests": rep.tests}
    extra = {"ratios": rep.ratios, "growth": rep.growth, "correlations": rep.correlations,
             "selection": rep.selection[3] if rep.selection else None, "margins": rep.margins}
    return out | {k: v for k, v in extra.items() if v is not None and len(v)}


def write_report(store, out: str | Path, grid: str | None = None, *, keys: Iterable[str] | None = None,
                 **options) -> list[Path]:
    """Write the report of *store* (a ``ResultStore``) into folder *out*; return the paths written.

    Files: ``report.md`` and ``report.html`` (the whole report; the page links its figures),
    ``report.csv`` (mean, std, n per metric x data x method), ``results.csv`` (every value, one
    per seed), ``ranks.csv``, ``tests.csv``, ``<metric>.png``, and as asked ``ratios.csv``,
    ``growth.csv`` with ``growth_<metric>.png``, ``correlations.csv`` with ``correlation.png``,
    ``selection.csv`` with ``selection.png``, ``margins.csv``. With *keys*, only those runs (store keys);
    *options* are those of :func:`build_report`.
    """
    return write_files(build_report(store.results(grid, keys), grid, **options), out)


def write_files(rep: Report, out: str | Path) -> list[Path]:
    """Write the files of :func:`write_report` for the built report *rep* into folder *out*."""
    from . import plots

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    figures: dict[str, Path] = {}
    values = an.rated(rep.frame, rep.facts.metrics)
    order = sorted(set(values.method), key=natural_key)
    for name, m in rep.facts.metrics.items():
        figures[name] = plots.plot_metric(values[values.metric == name], name, m, out / f"{_file(name)}.png", order)
    for name, fits in (rep.growth.groupby("metric", sort=False) if rep.growth is not None else ()):
        figures[f"growth {name}"] = plots.plot_growth(fits, name, meaning(name, {}), rep.growth_param,
                                                      out / f"growth_{_file(name)}.png")
    if rep.correlations is not None and len(rep.correlations):
        against = rep.correlations.against.iloc[0]
        figures["correlation"] = plots.plot_correlation(rep.frame, rep.correlations,
                                                        meaning(against, rep.facts.declared), out / "correlation.png")
    if rep.selection:
        among, _, ranks, choices = rep.selection
        figures["selection"] = plots.plot_selection(choices, among, ranks.setting.iloc[0], out / "selection.png")
    doc = report_document(rep, {k: p.name for k, p in figures.items()})
    written = [out / "report.md", out / "report.html"]
    written[0].write_text(to_markdown(doc))
    written[1].write_text(to_html(doc), encoding="utf-8")
    names = {"cells": "report", "results": "results", "ranks": "ranks", "tests": "tests"}
    for name, table in _tables(rep).items():
        written.append(out / f"{names.get(name, name)}.csv")
        flags = table.select_dtypes(bool).columns
        table.astype(dict.fromkeys(flags, int)).to_csv(written[-1], index=False, na_rep="")
    return [*written, *figures.values()]


def _file(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)
