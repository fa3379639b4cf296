"""The report as one self-contained HTML page: tables, and figures embedded as base64 PNG."""

from __future__ import annotations

import base64
import datetime as _dt
from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path

from .build import (
    CORRELATION_NOTE,
    GROWTH_HEADER,
    RANK_HEADER,
    RATIO_NOTE,
    TEST_HEADER,
    Report,
    correlation_tables,
    growth_rows,
    rank_rows,
    ratio_tables,
    summary_lines,
    test_rows,
)
from .results import natural_key
from .select import SELECTION_NOTE, selection_tables
from .tables import fmt_cell

__all__ = ["to_html"]

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;max-width:1180px;margin:2em auto;
padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em;margin-bottom:.2em} h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ddd}
.dir{font-weight:normal;color:#555;font-size:.85em}
table{border-collapse:collapse;margin:.6em 0 1.2em;font-size:.86em}
th,td{border:1px solid #d8d8d8;padding:.25em .6em;text-align:right;white-space:nowrap}
th{white-space:normal;vertical-align:bottom}
th{background:#f3f4f6;font-weight:600} td:first-child,th:first-child{text-align:left}
td.best{font-weight:bold;background:#eaf5ea}
.wrap{overflow-x:auto} img{max-width:100%;height:auto;border:1px solid #eee}
p.note{color:#444;font-size:.9em} caption{caption-side:top;text-align:left;color:#555;padding:.2em 0}
"""


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], caption: str = "",
           best: Sequence[Sequence[bool]] | None = None) -> str:
    head = "".join(f"<th>{_header(h)}</th>" for h in header)
    body = []
    for i, row in enumerate(rows):
        tds = "".join(
            f'<td class="best">{escape(x)}</td>' if best and best[i][j] else f"<td>{escape(x)}</td>"
            for j, x in enumerate(row)
        )
        body.append(f"<tr>{tds}</tr>")
    cap = f"<caption>{escape(caption)}</caption>" if caption else ""
    return f'<div class="wrap"><table>{cap}<thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table></div>'


def _header(text: str) -> str:
    """A dataset label breaks before its parameters: ``name<br>p=1, q=2``."""
    name, bracket, rest = text.partition("[")
    if not bracket or not rest.endswith("]"):
        return escape(text)
    return f"{escape(name)}<br><small>{escape(', '.join(rest[:-1].split(',')))}</small>"


def _img(path: Path, alt: str) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<p><img alt="{escape(alt)}" src="data:image/png;base64,{data}"></p>'


def _md_inline(text: str) -> str:
    """Escape, then render the two markdown marks the summary uses: **bold** and `code`."""
    out, parts = [], escape(text).split("`")
    for i, part in enumerate(parts):
        if i % 2:
            out.append(f"<code>{part}</code>")
        else:
            bits = part.split("**")
            out.append("".join(f"<b>{b}</b>" if k % 2 else b for k, b in enumerate(bits)))
    return "".join(out)


def to_html(report: Report, figures: Mapping[str, Path], title: str = "macrocause report") -> str:
    """The page; *figures* maps a metric to its PNG file, read and embedded."""
    now = _dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    parts = [f"<h1>{escape(title)}</h1>", f'<p class="note">Generated {now}.</p>']
    parts += [f'<p class="note">{_md_inline(s)}</p>' for s in summary_lines(report)]
    if not report.sections:
        parts.append("<p>No evaluations in the store yet.</p>")
    else:
        links = " · ".join(f'<a href="#{escape(s.info.name)}">{escape(s.info.name)}</a>' for s in report.sections)
        parts.append(f'<p class="note">Metrics: {links}</p>')
    for sec in report.sections:
        info = sec.info
        parts.append(f'<h2 id="{escape(info.name)}">{escape(info.name)} '
                     f'<span class="dir">({escape(info.direction)})</span></h2>')
        datas = sorted({c.data for c in sec.cells}, key=natural_key)
        methods = sorted({c.method for c in sec.cells}, key=natural_key)
        at = {(c.method, c.data): c for c in sec.cells}
        rows = [[m] + [fmt_cell(at[(m, d)]) if (m, d) in at else "" for d in datas] for m in methods]
        best = [[False] + [(m, d) in at and at[(m, d)].best for d in datas] for m in methods]
        parts.append(_table(["method", *datas], rows,
                            f"mean ± standard deviation (n seeds); shaded bold: best of the column "
                            f"({info.direction})", best))
        if info.name in figures:
            parts.append(_img(figures[info.name], f"{info.name} by method and dataset"))
        if len(sec.ranks) > 1:
            parts.append(_table(RANK_HEADER, rank_rows(sec), "average rank over datasets"))
        if sec.tests:
            parts.append(_table(TEST_HEADER, test_rows(sec),
                                f"Wilcoxon signed-rank test against the baselines "
                                f"({', '.join(report.baselines)}); better/worse by the metric's direction; "
                                "mean difference: method - baseline"))
    for title, header, rows in ratio_tables(report):
        parts.append(f"<h2>{escape(title)}</h2>")
        parts.append(_table(header, rows, RATIO_NOTE.format(peer=report.ratios[0].peer)))
    if report.growth:
        parts.append(f"<h2>Growth with {escape(report.growth_param or '')}</h2>")
        for metric in dict.fromkeys(g.metric for g in report.growth):
            if f"growth {metric}" in figures:
                parts.append(_img(figures[f"growth {metric}"], f"{metric} against {report.growth_param}"))
        parts.append(_table(GROWTH_HEADER, growth_rows(report),
                            "median over seeds at each size; growth exponent: least-squares slope in log-log"))
    tables = correlation_tables(report)
    if tables:
        parts.append(f"<h2>Correlation with {escape(report.correlate or '')}</h2>")
        parts.append(f'<p class="note">{_md_inline(CORRELATION_NOTE)}.</p>')
        if "correlation" in figures:
            parts.append(_img(figures["correlation"], f"every metric against {report.correlate}, per dataset"))
        for title, header, rows, bold in tables:
            parts.append(_table(header, rows, title, bold))
    if report.selection:
        sel = report.selection
        parts.append(f"<h2>Leave one dataset out among {escape(sel.among)}</h2>")
        parts.append(f'<p class="note">{_md_inline(SELECTION_NOTE.format(score=" + ".join(sel.by)))}.</p>')
        if "selection" in figures:
            parts.append(_img(figures["selection"], "the held-out choices against the best baseline"))
        for title, header, rows in selection_tables(sel):
            parts.append(_table(header, rows, title))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>\n"
            + "\n".join(parts) + "\n</body></html>\n")
