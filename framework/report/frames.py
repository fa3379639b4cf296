"""A report's tables as rows and as pandas DataFrames: the content of its CSV files in Python."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .build import BASELINES, Report, build_report

__all__ = ["report_tables", "report_frames", "TABLES"]

TABLES = ("cells", "results", "ranks", "tests")
CORRELATIONS_HEADER = ["metric", "against", "data", "n", "left_out", "pearson", "spearman"]


def report_tables(report: Report) -> dict[str, tuple[list[str], list[list[Any]]]]:
    """``{name: (header, rows)}`` for each of :data:`TABLES`, NaN kept where a value is undefined.

    ``cells``: mean, sample std and n over seeds per metric x dataset x method (``best`` marks
    the best mean of a column); ``results``: every value, one per seed; ``ranks``: average ranks
    over datasets; ``tests``: the paired Wilcoxon tests against the baselines; with a correlation
    (``build_report(..., correlate=M)``) also ``correlations``: per metric and dataset (and
    ``data == "mean"``), the points used, those left out (NaN), Pearson r and Spearman rho.
    """
    secs = report.sections
    extra = {}
    if report.correlations:
        extra["correlations"] = (CORRELATIONS_HEADER, [[c.metric, c.against, c.data, c.n, c.left_out, c.pearson,
                                                        c.spearman] for c in report.correlations])
    return {
        "cells": (["metric", "direction", "data", "method", "mean", "std", "n", "best"],
                  [[c.metric, s.info.direction, c.data, c.method, c.mean, c.std, c.n, c.best]
                   for s in secs for c in s.cells]),
        "results": (["pipeline", "method", "plugin", "data", "seed", "metric", "value"],
                    [[r.pipeline, r.method, r.plugin, r.data, r.seed, r.metric, r.value]
                     for r in sorted(report.collection.everything,
                                     key=lambda r: (r.metric, r.data, r.method, r.seed))]),
        "ranks": (["metric", "method", "mean_rank", "n_datasets"],
                  [[r.metric, r.method, r.mean_rank, r.n_datasets] for s in secs for r in s.ranks]),
        "tests": (["metric", "method", "baseline", "n", "better", "tied", "worse", "mean_diff",
                   "statistic", "p", "p_holm", "note"],
                  [[t.metric, t.method, t.baseline, t.n, t.wins, t.ties, t.losses, t.mean_diff,
                    t.statistic, t.p, t.p_holm, t.note] for s in secs for t in s.tests]),
        **extra,
    }


def report_frames(store, grid: str | None = None, *, baselines: Iterable[str] = BASELINES,
                  metrics: Iterable[str] | None = None, correlate: str | None = None) -> dict:
    """The report of *store* (a ``ResultStore``) as DataFrames, keyed by :data:`TABLES`
    (and ``"correlations"`` with *correlate*).

    The same content as :func:`~framework.report.write_report`'s CSV files, from
    :func:`~framework.report.build_report` of ``store.results(grid)``: nothing is recomputed.
    ``frames["cells"]`` holds every metric's methods x datasets table in long format, e.g.
    ``cells[cells.metric == "shd"].pivot(index="method", columns="data", values="mean")``.

    Parameters
    ----------
    store : ResultStore
        The results store.
    grid : str, optional
        Only this grid's runs (default: the latest grid, as :meth:`ResultStore.results`).
    baselines : list of str
        Plugin names of the baselines the paired tests compare with.
    metrics : list of str, optional
        Metrics to report (default: each evaluator's headline value, and ``time``).
    correlate : str, optional
        A metric: adds ``frames["correlations"]``, per dataset the Pearson and Spearman
        correlation of every other reported metric (timings aside) with it over the runs.
    """
    import pandas as pd

    report = build_report(store.results(grid), baselines=baselines, metrics=metrics, correlate=correlate)
    return {name: pd.DataFrame(rows, columns=header) for name, (header, rows) in report_tables(report).items()}
