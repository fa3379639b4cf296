"""Methods x datasets tables: mean, standard deviation and n over seeds, the best marked."""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .metrics import MetricInfo
from .results import Result, natural_key

__all__ = ["Cell", "aggregate", "markdown_table", "fmt_cell", "md_rows", "md_text", "md_line"]


@dataclass(frozen=True)
class Cell:
    """One method on one dataset for one metric, over its seeds."""

    metric: str
    data: str
    method: str
    mean: float
    std: float  # sample standard deviation (n - 1); nan for a single seed
    n: int
    best: bool = False


def aggregate(results: Sequence[Result], infos: Mapping[str, MetricInfo]) -> list[Cell]:
    """One :class:`Cell` per (metric, data, method); ``best`` marks the best mean of each
    (metric, data) column, ties included, when at least two methods have a value there."""
    groups: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    for r in results:
        groups[(r.metric, r.data, r.method)].append(r.value)
    stats = {k: (statistics.fmean(v), statistics.stdev(v) if len(v) > 1 else math.nan, len(v))
             for k, v in groups.items()}
    columns: dict[tuple[str, str], list[float]] = defaultdict(list)
    for (metric, data, _), (mean, _, _) in stats.items():
        columns[(metric, data)].append(mean)
    out = []
    for (metric, data, method), (mean, std, n) in sorted(
            stats.items(), key=lambda kv: (kv[0][0], natural_key(kv[0][1]), natural_key(kv[0][2]))):
        col = columns[(metric, data)]
        best = len(col) > 1 and math.isclose(mean, infos[metric].best(col), rel_tol=1e-12, abs_tol=1e-15)
        out.append(Cell(metric, data, method, mean, std, n, best))
    return out


def fmt_cell(c: Cell) -> str:
    """``"0.8125 ± 0.041 (n=10)"``; a single seed has no ± part."""
    sd = "" if math.isnan(c.std) else f" ± {c.std:.2g}"
    return f"{c.mean:.4g}{sd} (n={c.n})"


_INERT = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "$": "&#36;", "[": "&#91;", "]": "&#93;",
                        "\\": "&#92;", "|": "\\|", "\n": " ", "\r": " "})


def md_text(x: Any) -> str:
    """*x* as inert markdown on one line: HTML and math (``$``) as entities, no links, pipes escaped."""
    return str(x).translate(_INERT)


def md_line(text: Any) -> str:
    """A line of the report's own markdown on one line with every value inert: code spans
    (between backticks) stay code, where nothing is markup; the rest is :func:`md_text`."""
    s = " ".join(str(text).splitlines())
    if s.count("`") % 2:  # an unmatched backtick is plain text, and so is what follows it
        i = s.rfind("`")
        s = s[:i] + "\0" + s[i + 1:]
    parts = s.split("`")
    return "`".join(p if k % 2 else md_text(p) for k, p in enumerate(parts)).replace("\0", "&#96;")


def md_rows(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    """A markdown table (header, separator, rows); every cell inert (:func:`md_text`)."""
    esc = md_text
    lines = ["| " + " | ".join(esc(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(esc(x) for x in row) + " |" for row in rows]
    return lines


def markdown_table(cells: Sequence[Cell]) -> list[str]:
    """Methods as rows, datasets as columns, the best of each column in bold."""
    datas = sorted({c.data for c in cells}, key=natural_key)
    methods = sorted({c.method for c in cells}, key=natural_key)
    at = {(c.method, c.data): c for c in cells}
    rows = []
    for m in methods:
        row = [m]
        for d in datas:
            c = at.get((m, d))
            row.append("" if c is None else f"**{fmt_cell(c)}**" if c.best else fmt_cell(c))
        rows.append(row)
    return md_rows(["method", *datas], rows)
