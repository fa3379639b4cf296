"""A report's content (tables, ranks, tests per metric) and its markdown text."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .correlate import MEAN, Correlation, correlated_metrics, correlations
from .metrics import MetricInfo, is_timing
from .results import Collection, collect, natural_key
from .select import SELECTION_NOTE, Selection, select, selection_tables
from .stats import MIN_PAIRS, PairedTest, Rank, average_ranks, paired_tests
from .tables import Cell, aggregate, markdown_table, md_line, md_rows, md_text
from .timing import Growth, Ratio, growth, peer_ratios

__all__ = ["BASELINES", "Section", "Report", "build_report", "to_markdown"]

BASELINES = ("pc", "hill_climb")


@dataclass
class Section:
    """Everything reported about one metric."""

    info: MetricInfo
    cells: list[Cell]
    ranks: list[Rank]
    tests: list[PairedTest]


@dataclass
class Report:
    collection: Collection
    sections: list[Section]
    baselines: list[str]  # the methods tested against
    ratios: list[Ratio] = field(default_factory=list)  # timings relative to a peer (``peer=``)
    growth: list[Growth] = field(default_factory=list)  # timings against a size (``growth=``)
    growth_param: str | None = None
    correlations: list[Correlation] = field(default_factory=list)  # metrics against ``correlate=``
    correlate: str | None = None
    selection: Selection | None = None  # leave one dataset out among one plugin's settings (``select_among=``)


def build_report(rows: Sequence[Mapping[str, Any]], grid: str | None = None,
                 baselines: Iterable[str] = BASELINES, metrics: Iterable[str] | None = None,
                 peer: str | None = None, growth_param: str | None = None,
                 correlate: str | None = None, select_among: str | None = None,
                 select_by: Iterable[str] | None = None) -> Report:
    """Deduplicate the store *rows* and compute every metric's table, ranks and tests.

    *baselines* are plugin names: every method whose evaluated step runs one of
    them is a baseline the other methods are tested against. With *peer* (a method,
    or an evaluator whose timings are among *metrics*), every timing metric also gets
    ratios to it; with *growth_param* (a data-source parameter, ``n`` or ``d``), the
    timings against that size and their growth exponents (:mod:`~framework.report.timing`);
    with *correlate* (a metric), per dataset the Pearson and Spearman correlation of every
    other reported metric with it over the runs (:mod:`~framework.report.correlate`); with
    *select_among* (a plugin), the leave-one-dataset-out choice among its settings by the
    signed sum of *select_by* (default: the reported metrics but timings), against the
    baselines (:mod:`~framework.report.select`).
    """
    col = collect(rows, grid=grid, metrics=metrics)
    plugins = set(baselines)
    base = sorted({r.method for r in col.results if r.plugin in plugins})
    cells = aggregate(col.results, col.metrics)
    sections = []
    for name, info in col.metrics.items():
        sub = [c for c in cells if c.metric == name]
        sections.append(Section(info, sub, average_ranks(sub, info), paired_tests(col.of(name), info, base)))
    timings = [m for m in col.metrics if is_timing(m)]
    ratios = peer_ratios(col.results, timings, peer) if peer else []
    grown = growth(col.results, timings, growth_param) if growth_param else []
    corr = []
    if correlate:
        corr = correlations(col.everything, correlated_metrics(col, correlate), correlate)
    chosen = _selection(col, cells, base, select_among, select_by) if select_among else None
    return Report(col, sections, base, ratios, grown, growth_param, corr, correlate, chosen)


def _selection(col: Collection, cells, base: list[str], among: str, by: Iterable[str] | None) -> Selection:
    from ..errors import MacrocauseError

    by = list(by) if by else [m for m in col.metrics if not is_timing(m)]
    missing = [m for m in by if m not in col.metrics]
    if missing:
        raise MacrocauseError(f"Cannot choose by {', '.join(missing)}: not among the reported metrics "
                              f"({', '.join(col.metrics)}); add it to --metrics.")
    candidates = sorted({r.method for r in col.results if r.plugin == among}, key=natural_key)
    if not candidates:
        plugins = sorted({r.plugin for r in col.results if r.plugin})
        raise MacrocauseError(f"No reported method runs {among!r}; the grid's evaluated plugins: {', '.join(plugins)}.")
    return select(cells, col.metrics, candidates, base, by, among)


def _num(x: float, fmt: str = ".3g") -> str:
    return "" if math.isnan(x) else format(x, fmt)


def rank_rows(section: Section) -> list[list[str]]:
    return [[r.method, f"{r.mean_rank:.2f}", str(r.n_datasets)] for r in section.ranks]


RANK_HEADER = ["method", "average rank (1 = best)", "datasets"]
TEST_HEADER = ["method", "baseline", "n pairs", "better / tied / worse", "mean difference",
               "W", "p", "p (Holm)"]


def test_rows(section: Section) -> list[list[str]]:
    return [[t.method, t.baseline, str(t.n), f"{t.wins} / {t.ties} / {t.losses}", _num(t.mean_diff, ".4g"),
             _num(t.statistic, ".4g"), t.shown_p, "" if t.note else _num(t.p_holm)] for t in section.tests]


def summary_lines(report: Report) -> list[str]:
    col = report.collection
    where = f"of grid `{col.grid}`" if col.grid else "(every run in the store)"
    again = f"; {col.replaced} earlier copies of runs stored again left out" if col.replaced else ""
    lines = [f"{col.runs} distinct runs {where}{again}: "
             f"{len(col.methods())} methods on {len(col.datasets())} datasets."]
    if col.failed:
        lines.append(f"Failed or timed out (not in the tables): {len(col.failed)} step(s), e.g. "
                     f"{col.failed[0]['pipeline']} on {col.failed[0]['data_label']} seed {col.failed[0]['seed']}: "
                     f"{col.failed[0]['status']}: {col.failed[0]['error']}")
    if col.unreported or col.descriptive:
        lines.append("Also in results.csv: " + "; ".join(filter(None, [
            ", ".join(col.unreported) + " (sub-metrics: report them with `write_report(..., metrics=[...])`)" if col.unreported else "",
            ", ".join(col.descriptive) + " (descriptive: neither better nor worse)" if col.descriptive else "",
        ])) + ".")
    if col.undefined:
        lines.append(f"Undefined values (NaN, e.g. a reading that is not identifiable) left out of the "
                     f"tables, ranks and tests: {col.undefined}; they are in results.csv.")
    if col.timings:
        lines.append("Also measured: " + ", ".join(col.timings) + " (report them with `--metrics`).")
    if col.same_data:
        lines.append(f"Same data: every pipeline saw identical data (by hash) on each of the "
                     f"{col.same_data} (dataset, seed) pairs.")
    if col.machine:
        lo, mid, hi = col.machine["load"]
        lines.append(f"Machine: {', '.join(col.machine['hosts'])}, "
                     f"{'/'.join(map(str, col.machine['cores']))} cores; 1-minute load when each run "
                     f"started: {lo:.2f} to {hi:.2f} (median {mid:.2f}).")
    lines.append(
        "Cells: mean ± sample standard deviation (n seeds); **bold**: the best mean of the column. "
        "Tests: Wilcoxon signed-rank over the (dataset, seed) pairs both methods have, zero "
        f"differences split (Demšar 2006), two-sided; n/a below {MIN_PAIRS} pairs; "
        "p (Holm) adjusts for the tests of one metric."
    )
    if col.versions:
        lines.append("Versions: " + ", ".join(f"{k} {v}" for k, v in sorted(col.versions.items())) + ".")
    return lines


RATIO_NOTE = ("median over the (dataset, seed) pairs of method / {peer}, both measured in the same "
              "grid on the same data; below 1: faster (or smaller) than {peer}")


def ratio_tables(report: Report) -> list[tuple[str, list[str], list[list[str]]]]:
    """One ``(title, header, rows)`` per timing metric with ratios: methods x datasets."""
    out = []
    for metric in dict.fromkeys(r.metric for r in report.ratios):
        sub = [r for r in report.ratios if r.metric == metric]
        datas = sorted({r.data for r in sub}, key=natural_key)
        methods = sorted({r.method for r in sub}, key=natural_key)
        at = {(r.method, r.data): r for r in sub}
        rows = [[m] + [f"{at[m, d].ratio:.3g} (n={at[m, d].n})" if (m, d) in at else "" for d in datas]
                for m in methods]
        out.append((f"{metric} relative to {sub[0].peer}", ["method", *datas], rows))
    return out


GROWTH_HEADER = ["metric", "method", "setting", "sizes", "medians", "growth exponent"]


def growth_rows(report: Report) -> list[list[str]]:
    return [[g.metric, g.method, g.setting, ", ".join(f"{x:g}" for x in g.sizes),
             ", ".join(f"{v:.3g}" for v in g.medians), _num(g.exponent, ".2f")] for g in report.growth]


CORRELATION_NOTE = ("one point per run (a method with a seed) of the dataset; Pearson r and Spearman rho "
                    "over the points where both values are defined (NaN left out and counted); "
                    "mean: over the datasets with a defined value; **bold**: the largest of the column")


def correlation_tables(report: Report) -> list[tuple[str, list[str], list[list[str]], list[list[bool]]]]:
    """``(title, header, rows, bold)`` for Pearson, Spearman, and the points used: metrics x datasets + mean."""
    if not report.correlations:
        return []
    corr = report.correlations
    datas = sorted({c.data for c in corr if c.data != MEAN}, key=natural_key)
    metrics = list(dict.fromkeys(c.metric for c in corr))
    at = {(c.metric, c.data): c for c in corr}
    out = []
    for kind in ("pearson", "spearman"):
        vals = {k: getattr(c, kind) for k, c in at.items()}
        rows, bold = [], []
        for m in metrics:
            row, flags = [m], [False]
            for d in [*datas, MEAN]:
                v = vals.get((m, d), math.nan)
                col = [x for x in (vals.get((mm, d), math.nan) for mm in metrics) if not math.isnan(x)]
                row.append("" if math.isnan(v) else f"{v:+.3f}")
                flags.append(len(col) > 1 and not math.isnan(v) and v == max(col))
            rows.append(row)
            bold.append(flags)
        name = "Pearson r" if kind == "pearson" else "Spearman rho"
        out.append((f"{name} with {report.correlate}", ["metric", *datas, MEAN], rows, bold))
    rows = [[m] + [f"{at[m, d].n} ({at[m, d].left_out} NaN)" if (m, d) in at else "" for d in datas]
            for m in metrics]
    out.append(("points used (left out)", ["metric", *datas], rows, [[False] * (len(datas) + 1)] * len(rows)))
    return out


def to_markdown(report: Report, figures: Mapping[str, str] | None = None) -> str:
    """The whole report as markdown; *figures* maps a metric to its image path."""
    if not report.sections:
        return "No evaluations in the store yet."
    lines = ["# macrocause report", ""]
    for s in summary_lines(report):
        lines += [md_line(s), ""]
    for sec in report.sections:
        lines += [f"### {md_text(sec.info.name)} ({sec.info.direction})", "", *markdown_table(sec.cells), ""]
        if figures and sec.info.name in figures:
            lines += [f"![{md_text(sec.info.name)} by method and dataset]({figures[sec.info.name]})", ""]
        if len(sec.ranks) > 1:
            lines += ["Average rank over datasets:", "", *md_rows(RANK_HEADER, rank_rows(sec)), ""]
        if sec.tests:
            lines += [f"Paired tests against the baselines ({', '.join(report.baselines)}; "
                      "mean difference: method - baseline):", "",
                      *md_rows(TEST_HEADER, test_rows(sec)), ""]
    for title, header, rows in ratio_tables(report):
        lines += [f"### {title}", "", RATIO_NOTE.format(peer=report.ratios[0].peer) + ".", "",
                  *md_rows(header, rows), ""]
    if report.growth:
        lines += [f"### Growth with {report.growth_param}", "",
                  "Median over seeds at each size; growth exponent: least-squares slope of "
                  f"log(median) on log({report.growth_param}).", ""]
        for metric in dict.fromkeys(g.metric for g in report.growth):
            if figures and f"growth {metric}" in figures:
                lines += [f"![{metric} against {report.growth_param}]({figures[f'growth {metric}']})", ""]
        lines += [*md_rows(GROWTH_HEADER, growth_rows(report)), ""]
    tables = correlation_tables(report)
    if tables:
        lines += [f"### Correlation with {report.correlate}", "", CORRELATION_NOTE + ".", ""]
        if figures and "correlation" in figures:
            lines += [f"![every metric against {report.correlate}, per dataset]({figures['correlation']})", ""]
        for title, header, rows, bold in tables:
            rows = [[f"**{x}**" if b else x for x, b in zip(row, flags)] for row, flags in zip(rows, bold)]
            lines += [f"{title}:", "", *md_rows(header, rows), ""]
    if report.selection:
        sel = report.selection
        lines += [f"### Leave one dataset out among {sel.among}", "",
                  SELECTION_NOTE.format(score=" + ".join(sel.by)) + ".", ""]
        if figures and "selection" in figures:
            lines += [f"![the held-out choices against the best baseline]({figures['selection']})", ""]
        for title, header, rows in selection_tables(sel):
            lines += [f"{title}:", "", *md_rows(header, rows), ""]
    return "\n".join(lines)
