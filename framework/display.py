"""Rich display in notebooks: the ``_repr_html_`` of the result types.

Each function returns a self-contained HTML fragment (tables and, for graphs, the
picture of :func:`macrocause.framework.plotting.plot` as an embedded SVG image), with every
name escaped. Jupyter calls them through the one-line ``_repr_html_`` methods of
:class:`~macrocause.framework.graph.CausalGraph`, :class:`~macrocause.framework.partition.Partition`,
:class:`~macrocause.framework.roles.Evaluation`, :class:`~macrocause.framework.data.Dataset` and
:class:`~macrocause.framework.pipeline.PipelineResult`.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Iterable, Sequence
from html import escape
from typing import Any

import numpy as np

from . import richrepr

__all__ = ["graph_html", "partition_html", "evaluation_html", "dataset_html", "pipeline_result_html",
           "svg_image"]

MAX_ROWS = 20  # rows shown per table; the rest is summarised in one line
MAX_DRAWN_NODES = 30  # graphs with more nodes are shown as tables only

_STYLE = "border-collapse:collapse;font-size:12px;margin:2px 0"
_CELL = "padding:1px 8px;text-align:left;border-bottom:1px solid #ddd"


def _table(header: Sequence[str], rows: Iterable[Sequence[Any]], total: int | None = None) -> str:
    rows = list(rows)
    head = "".join(f'<th style="{_CELL}">{escape(str(h))}</th>' for h in header)
    body = "".join(
        "<tr>" + "".join(f'<td style="{_CELL}">{escape(str(c))}</td>' for c in r) + "</tr>"
        for r in rows[:MAX_ROWS]
    )
    n = len(rows) if total is None else total
    more = f"<p>... {n - MAX_ROWS} more rows</p>" if n > MAX_ROWS else ""
    return f'<table style="{_STYLE}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{more}'


def _box(title: str, *parts: str) -> str:
    return f'<div class="macrocause"><p><b>{escape(title)}</b></p>{"".join(parts)}</div>'


def _names(names: Iterable[str]) -> str:
    from .graph import natural_key

    return ", ".join(sorted(names, key=natural_key))


def svg_image(fig, alt: str) -> str:
    """*fig* as an ``<img>`` holding its SVG (base64), then closed: no element ids leak into the page."""
    from .plotting import pyplot

    buf = io.BytesIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    pyplot().close(fig)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f'<img alt="{escape(alt)}" src="data:image/svg+xml;base64,{data}"/>'


def graph_html(graph) -> str:
    """A causal graph: its clusters (sizes and variables), its edges and, up to
    :data:`MAX_DRAWN_NODES` nodes, its picture (a cluster graph beside its expansion)."""
    kind = "DAG" if graph.is_singleton else "cluster graph"
    title = (f"CausalGraph: {kind}, {graph.n_nodes} nodes over {len(graph.variables)} variables, "
             f"{len(graph.directed)} directed and {len(graph.undirected)} undirected edges"
             + (f", {len(graph.bidirected)} bidirected" if graph.bidirected else "")
             + (f", {len(graph.partially_directed)} o-> and {len(graph.nondirected)} o-o" if graph.is_pag else ""))
    picture = ""
    if 0 < graph.n_nodes <= MAX_DRAWN_NODES:
        from .plotting import plot

        picture = f"<div>{svg_image(plot(graph), 'causal graph')}</div>"
    nodes = ""
    if not graph.is_singleton:
        nodes = _table(["node", "size", "variables"],
                       ((i, len(c), _names(c)) for i, c in enumerate(graph.clusters)))
    def lab(i: int) -> str:
        return _names(graph.clusters[i])

    edges = sorted((lab(i), "->", lab(j)) for i, j in graph.directed)
    edges += sorted((lab(i), "--", lab(j)) for i, j in (sorted(e) for e in graph.undirected))
    edges += sorted((lab(i), "<->", lab(j)) for i, j in (sorted(e) for e in graph.bidirected))
    edges += sorted((lab(i), "o->", lab(j)) for i, j in graph.partially_directed)
    edges += sorted((lab(i), "o-o", lab(j)) for i, j in (sorted(e) for e in graph.nondirected))
    return _box(title, picture, nodes, _table(["from", "edge", "to"], edges) if edges else "")


def partition_html(partition) -> str:
    """A partition: cluster sizes (with their variables for a partition of variables), the noise
    share and, for a feature selection, the selected features in rank order."""
    n, noise = len(partition), int(partition.noise.sum())
    share = noise / n if n else 0.0
    title = (f"Partition of {n} {partition.axis}: {partition.n_clusters} clusters, "
             f"{noise} noise ({share:.1%})")
    sizes = [len(c) for c in partition.clusters]
    top = max(sizes, default=1)
    header = ["cluster", "size", "share"]
    rows = [[int(c), s, f"{s / n:.1%}"] for c, s in zip(partition.cluster_ids, sizes)]
    if partition.names is not None:
        header.append("variables")
        for row, idx in zip(rows, partition.clusters):
            row.append(_names(partition.names[i] for i in idx))
    table = _table(header, rows)
    bars = "".join(
        f'<div title="cluster {int(c)}: {s}" style="display:inline-block;vertical-align:bottom;'
        f'width:6px;margin-right:1px;background:#1f77b4;height:{max(1, round(40 * s / top))}px"></div>'
        for c, s in list(zip(partition.cluster_ids, sizes))[:200]
    )
    selected = ""
    if "selected" in partition.info:
        sel = np.asarray(partition.info["selected"], dtype=np.int64).ravel()
        names = [partition.names[i] if partition.names else f"feature {i}" for i in sel]
        selected = f"<p>{len(sel)} selected features, best first: {escape(', '.join(names[:50]))}" + \
            (" ..." if len(sel) > 50 else "") + "</p>"
    return _box(title, f"<div>{bars}</div>" if bars else "", selected, table)


def evaluation_html(evaluation) -> str:
    """An evaluation: its headline value and every metric in a table."""
    rows = [(k, f"{v:.6g}") for k, v in evaluation.metrics.items()]
    extra = "" if evaluation.pointwise is None else \
        f"<p>pointwise values for {np.size(evaluation.pointwise)} samples</p>"
    return _box(f"Evaluation: value {evaluation.value:.6g}", _table(["metric", "value"], rows), extra)


def dataset_html(data) -> str:
    """A dataset: its shape, each column's kind, the target's states and the ground truths."""
    label = f"{data.name}: " if data.name else ""
    title = f"Dataset {label}{data.n_samples} samples x {data.n_variables} variables"
    kinds = ((n, "discrete" if d else "continuous", f"{lo:.4g} .. {hi:.4g}")
             for n, d, lo, hi in zip(data.names, data.discrete, data.X.min(axis=0), data.X.max(axis=0)))
    parts = [_table(["variable", "kind", "range"], kinds, total=data.n_variables)]
    if data.target is not None:
        counts = np.bincount(data.target_codes, minlength=len(data.target_states))
        parts.append("<p>target states</p>" + _table(["state", "samples"], zip(data.target_states, counts)))
    if data.truth:
        parts.append("<p>ground truth</p>" + _table(["key", "value"], ((k, repr(v)) for k, v in data.truth.items())))
    return _box(title, *parts)


def pipeline_result_html(result) -> str:
    """A pipeline run: one row per record (step, plugin, status, times, metrics), the error of a
    failed step in place of its metrics."""
    failed = sum(r.status != "done" for r in result.records)
    title = (f"PipelineResult: {result.pipeline} on {result.data} (seed {result.seed}), "
             f"{len(result.records)} records" + (f", {failed} failed" if failed else ""))
    rows = ((r.step, r.plugin or "", r.status, f"{r.wall_s:.3g}", f"{r.startup_s:.3g}",
             r.error if r.status != "done" else ", ".join(f"{k}={v:.4g}" for k, v in r.metrics.items()))
            for r in result.records)
    return _box(title, _table(["step", "plugin", "status", "wall_s", "startup_s", "metrics"], rows))


for _kind, _render in (("graph", graph_html), ("partition", partition_html),
                       ("evaluation", evaluation_html), ("dataset", dataset_html),
                       ("pipeline_result", pipeline_result_html)):
    richrepr.register(_kind, _render)
