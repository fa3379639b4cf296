"""The report as one document: summary lines and sections of notes, figures and text tables,
built once from the analyses' frames and rendered to markdown and HTML
(:mod:`~macrocause.framework.report.render`)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from .analyses import ALL, EVERY, MEAN, MIN_PAIRS, TIE
from .frame import Facts, natural_key

__all__ = ["Table", "Section", "Document", "document"]


@dataclass
class Table:
    header: list[str]
    rows: list[list[str]]
    bold: list[list[bool]] | None = None
    title: str = ""


@dataclass
class Section:
    title: str
    sub: str = ""  # e.g. the direction, shown beside the title
    notes: list[str] = field(default_factory=list)
    figures: list[tuple[str, str]] = field(default_factory=list)  # (file name, alt text)
    tables: list[Table] = field(default_factory=list)


@dataclass
class Document:
    title: str
    summary: list[str]
    sections: list[Section]


def _num(x: float, fmt: str = ".3g") -> str:
    return "" if x is None or isinstance(x, float) and math.isnan(x) else format(x, fmt)


def _cell(mean: float, std: float, n: int) -> str:
    """``"0.8125 ± 0.041 (n=10)"``; a single seed has no ± part."""
    sd = "" if math.isnan(std) else f" ± {std:.2g}"
    return f"{mean:.4g}{sd} (n={n})"


def _grid(df: pd.DataFrame, text, bold=None) -> Table:
    """Methods (rows) x datasets (columns, :data:`ALL` last) of *df*; *text* and *bold* map a row of *df*
    to the cell."""
    datas = sorted(set(df.data) - {ALL}, key=natural_key) + ([ALL] if ALL in set(df.data) else [])
    methods = sorted(set(df.method), key=natural_key)
    at = {(r.method, r.data): r for r in df.itertuples()}
    rows = [[m] + [text(at[m, d]) if (m, d) in at else "" for d in datas] for m in methods]
    flags = [[False] + [bool(bold and (m, d) in at and bold(at[m, d])) for d in datas] for m in methods]
    return Table(["method", *datas], rows, flags if bold else None)


def summary(facts: Facts, methods: int, datasets: int) -> list[str]:
    where = f"of grid {facts.grid}" if facts.grid else "(every run in the store)"
    again = f"; {facts.replaced} earlier copies of runs stored again left out" if facts.replaced else ""
    lines = [f"{facts.runs} distinct runs {where}{again}: {methods} methods on {datasets} datasets."]
    if facts.failed:
        f = facts.failed[0]
        lines.append(f"Failed or timed out (not in the tables): {len(facts.failed)} step(s), e.g. "
                     f"{f['pipeline']} on {f['data_label']} seed {f['seed']}: {f['status']}: {f['error']}")
    also = [", ".join(facts.unreported) + " (rated sub-metrics: report them with --metrics)" if facts.unreported else "",
            ", ".join(facts.descriptive) + " (descriptive: neither better nor worse)" if facts.descriptive else "",
            ", ".join(facts.undeclared) + " (not declared by their evaluator)" if facts.undeclared else ""]
    if any(also):
        lines.append("Also in results.csv: " + "; ".join(filter(None, also)) + ".")
    if facts.legacy:
        lines.append(f"{facts.legacy} evaluator records were stored without the meaning of their values (an "
                     "older macrocause): their installed evaluators' declarations are used.")
    if facts.undefined:
        lines.append(f"Undefined values (NaN, e.g. a reading that is not identifiable) left out of the "
                     f"tables, ranks and tests: {facts.undefined}; they are in results.csv.")
    if facts.timings:
        lines.append("Also measured: " + ", ".join(facts.timings) + " (report them with --metrics).")
    if facts.same_data:
        lines.append(f"Same data: every pipeline saw identical data (by hash) on each of the "
                     f"{facts.same_data} (dataset, seed) pairs.")
    if facts.machine:
        lo, mid, hi = facts.machine["load"]
        lines.append(f"Machine: {', '.join(facts.machine['hosts'])}, "
                     f"{'/'.join(map(str, facts.machine['cores']))} cores; 1-minute load when each run "
                     f"started: {lo:.2f} to {hi:.2f} (median {mid:.2f}).")
    lines.append(
        "Cells: mean ± sample standard deviation (n seeds); bold: the best mean of the column. "
        "Tests: Wilcoxon signed-rank, zero differences split (Demšar 2006), two-sided; the unit of "
        "pairing is the data set (seeds averaged) unless the data are drawn anew per seed or a method "
        f"is stochastic, then the (data set, seed); n/a below {MIN_PAIRS} pairs; p (Holm) adjusts "
        "for the tests of one metric.")
    if facts.versions:
        lines.append("Versions: " + ", ".join(f"{k} {v}" for k, v in sorted(facts.versions.items())) + ".")
    return lines


TEST_HEADER = ["method", "baseline", "unit", "n", "better / tied / worse", "mean difference", "W", "p", "p (Holm)"]


def _metric_section(metric: str, direction: str, cell: pd.DataFrame, rank: pd.DataFrame, tests: pd.DataFrame,
                    baselines: Sequence[str], figure: str | None) -> Section:
    sec = Section(metric, direction)
    table = _grid(cell, lambda r: _cell(r.mean, r.std, r.n), lambda r: r.best)
    table.title = f"mean ± standard deviation (n seeds); bold: best of the column ({direction})"
    sec.tables.append(table)
    if figure:
        sec.figures.append((figure, f"{metric} by method and dataset"))
    if len(rank) > 1:
        sec.tables.append(Table(["method", "average rank (1 = best)", "datasets"],
                                [[r.method, f"{r.mean_rank:.2f}", str(r.n_datasets)] for r in rank.itertuples()],
                                title="Average rank over datasets"))
    if len(tests):
        rows = [[t.method, t.baseline, t.unit, str(t.n), f"{t.better} / {t.tied} / {t.worse}",
                 _num(t.mean_diff, ".4g"), _num(t.statistic, ".4g"), t.note or f"{t.p:.3g}",
                 "" if t.note else _num(t.p_holm)] for t in tests.itertuples()]
        sec.tables.append(Table(TEST_HEADER, rows, title=f"Paired tests against the baselines "
                                f"({', '.join(baselines)}; mean difference: method - baseline)"))
    return sec


def document(facts: Facts, cell: pd.DataFrame, rank: pd.DataFrame, tests: pd.DataFrame, baselines: Sequence[str],
             figures: Mapping[str, str] | None = None, ratio: pd.DataFrame | None = None,
             grown: pd.DataFrame | None = None, growth_param: str | None = None,
             corr: pd.DataFrame | None = None, chosen: tuple | None = None,
             margin: pd.DataFrame | None = None) -> Document:
    """The whole report; *figures* maps a metric (or ``growth METRIC``, ``correlation``,
    ``selection``) to its image file name."""
    figures = figures or {}
    summ = summary(facts, cell.method.nunique(), cell.data.nunique())
    if cell.empty:
        return Document("macrocause report", ["No evaluations in the store yet.", *summ], [])
    sections = [_metric_section(m, f"{info.direction} is better", cell[cell.metric == m], rank[rank.metric == m],
                                tests[tests.metric == m], baselines, figures.get(m))
                for m, info in facts.metrics.items() if (cell.metric == m).any()]
    for metric, sub in (ratio.groupby("metric", sort=False) if ratio is not None and len(ratio) else ()):
        peer = sub.peer.iloc[0]
        sec = Section(f"{metric} relative to {peer}", notes=[
            f"median over the (dataset, seed) pairs of method / {peer}, both measured in the same grid on the "
            f"same data; below 1: faster (or smaller) than {peer}; total: the method's sum over those pairs / "
            f"{peer}'s; {ALL}: every pair."])
        sec.tables.append(_grid(sub, lambda r: f"{r.ratio:.3g} (n={r.n}; total {r.total:.3g})"))
        sections.append(sec)
    for metric, sub in (margin.groupby("metric", sort=False) if margin is not None and len(margin) else ()):
        sections.append(_margins_section(metric, f"{facts.metrics[metric].direction} is better", sub))
    if grown is not None and len(grown):
        sec = Section(f"Growth with {growth_param}", notes=[
            f"Median over seeds at each size; growth exponent: least-squares slope of log(median) on "
            f"log({growth_param})."])
        sec.figures = [(figures[f"growth {m}"], f"{m} against {growth_param}")
                       for m in dict.fromkeys(grown.metric) if f"growth {m}" in figures]
        fits = grown.groupby(["metric", "method", "setting"], sort=False)
        sec.tables.append(Table(["metric", "method", "setting", "sizes", "medians", "growth exponent"], [
            [m, meth, s, ", ".join(f"{x:g}" for x in g["size"]), ", ".join(f"{v:.3g}" for v in g["median"]),
             _num(g.exponent.iloc[0], ".2f")] for (m, meth, s), g in fits]))
        sections.append(sec)
    if corr is not None and len(corr):
        sections.append(_correlation_section(corr, figures.get("correlation")))
    if chosen is not None:
        sections.append(_selection_section(*chosen, figures.get("selection")))
    return Document("macrocause report", summ, sections)


def _margins_section(metric: str, direction: str, margin: pd.DataFrame) -> Section:
    sec = Section(f"Margins of {metric} over the baselines", direction, notes=[
        f"gain: the method's {metric} minus the baseline's on the same (dataset, seed), signed so that positive = "
        "the method is better; per dataset over the seeds both have: mean gain / worst gain (seeds where the "
        f"method is at least as good, a tie being equality within a relative {TIE:g}, of the seeds both have); "
        f"{ALL}: every pair; "
        f"{EVERY}: on each pair the best of the baselines that have it."])
    datas = sorted(set(margin.data) - {ALL}, key=natural_key)
    at = {(r.method, r.baseline, r.data): r for r in margin.itertuples()}
    text = lambda r: f"{r.mean_gain:+.5g} / {r.worst_gain:+.5g} ({r.at_least} of {r.n})"  # noqa: E731
    rows = [[m, b] + [text(at[m, b, d]) if (m, b, d) in at else "" for d in [*datas, ALL]]
            for m, b in dict.fromkeys(zip(margin.method, margin.baseline))]
    sec.tables.append(Table(["method", "baseline", *datas, ALL], rows))
    return sec


def _correlation_section(corr: pd.DataFrame, figure: str | None) -> Section:
    against = corr.against.iloc[0]
    sec = Section(f"Correlation with {against}", notes=[
        "one point per run (a method with a seed) of the dataset; Pearson r and Spearman rho over the points "
        "where both values are defined (NaN left out and counted); mean: over the datasets with a defined "
        "value; bold: the largest of the column."])
    if figure:
        sec.figures.append((figure, f"every metric against {against}, per dataset"))
    datas = sorted(set(corr.data) - {MEAN}, key=natural_key)
    metrics = list(dict.fromkeys(corr.metric))
    at = {(r.metric, r.data): r for r in corr.itertuples()}
    for kind, name in (("pearson", "Pearson r"), ("spearman", "Spearman rho")):
        vals = {k: getattr(r, kind) for k, r in at.items()}
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
        sec.tables.append(Table(["metric", *datas, MEAN], rows, bold, f"{name} with {against}"))
    rows = [[m] + [f"{at[m, d].n} ({at[m, d].left_out} NaN)" if (m, d) in at else "" for d in datas] for m in metrics]
    sec.tables.append(Table(["metric", *datas], rows, title="points used (left out)"))
    return sec


def _selection_section(among: str, by: Sequence[str], ranks: pd.DataFrame, choices: pd.DataFrame,
                       figure: str | None) -> Section:
    score = " + ".join(by)
    sec = Section(f"Leave one dataset out among {among}", notes=[
        f"leave one dataset out: on each dataset the candidates are ranked by {score} (1 = best, ties averaged); "
        "each dataset gets the candidate with the best average rank over the other datasets (held out), the "
        "default is the best over all datasets; ties go to the first by name; gap: the value minus the best "
        "baseline's, positive = better; above: better than every baseline in every metric."])
    if figure:
        sec.figures.append((figure, "the held-out choices against the best baseline"))
    default = ranks.setting.iloc[0]
    sec.tables.append(Table(["setting", "average rank", "datasets", "chosen when held out"],
                            [[r[0], f"{r[1]:.2f}", str(r[2]), str(r[3])] for r in ranks.itertuples(index=False)],
                            title=f"{among} settings by average rank (default: {default})"))
    vals = lambda g: " / ".join("" if math.isnan(v) else f"{v:.3f}" for v in g.value)  # noqa: E731
    rows, above = [], {"held_out": 0, "default": 0}
    for data, g in choices.groupby("data", sort=False):
        row = [data]
        for rule in ("held_out", "default"):
            r = g[g.rule == rule]
            gaps = ", ".join(f"{m} {x:+.3f}" for m, x in zip(r.metric, r.gap) if not math.isnan(x))
            verdict = f"{'yes' if r.above.iloc[0] else 'no'} ({gaps})" if gaps else "no baseline"
            above[rule] += bool(r.above.iloc[0])
            best = " / ".join("" if math.isnan(v) else f"{v:.3f}" for v in r.best_baseline)
            row += [r.method.iloc[0], vals(r), best, verdict] if rule == "held_out" else [vals(r), verdict]
        rows.append(row)
    m = " / ".join(by)
    n = len(rows)
    sec.tables.append(Table(
        ["held-out dataset", "chosen on the others", m, f"best baseline {m}", "above (gaps)", f"default {m}",
         "default above (gaps)"], rows,
        title=f"held out: above every baseline on {above['held_out']} of {n} datasets; the default: on "
              f"{above['default']} of {n}"))
    return sec
