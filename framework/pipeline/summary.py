"""What a run prints: one line per output (a graph's edges, a partition's clusters, a feature
selection's features) and the tables of ``macrocause run``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..graph import CausalGraph
from ..partition import Partition

__all__ = ["describe_output", "output_metrics", "format_records"]


def output_metrics(out: Any) -> dict[str, float]:
    """Counts stored with a step's record: clusters and noise, or nodes and edges."""
    if isinstance(out, Partition):
        return {"n_clusters": float(out.n_clusters), "n_noise": float(out.noise.sum())}
    if isinstance(out, CausalGraph):
        return {"n_nodes": float(out.n_nodes), "n_directed": float(len(out.directed)),
                "n_undirected": float(len(out.undirected))}
    return {}


def _listed(items: Sequence[str], max_items: int) -> str:
    more = f", ... ({len(items)} in all)" if len(items) > max_items else ""
    return ", ".join(items[:max_items]) + more


def describe_output(out: Any, max_items: int = 12) -> str:
    """One line a person can read: a graph's edges (a graph with undirected edges is named a
    PDAG), a partition's cluster sizes, a feature selection's features and granularities."""
    if isinstance(out, CausalGraph):
        edges = sorted(f"{out.label(i)} -> {out.label(j)}" for i, j in out.directed)
        edges += sorted(" - ".join(sorted(out.label(i) for i in e)) for e in out.undirected)
        edges += sorted(" <-> ".join(sorted(out.label(i) for i in e)) for e in out.bidirected)
        edges += sorted(f"{out.label(i)} o-> {out.label(j)}" for i, j in out.partially_directed)
        edges += sorted(" o-o ".join(sorted(out.label(i) for i in e)) for e in out.nondirected)
        clusters = [c for c in out.clusters if len(c) > 1]
        head = f"clusters {'; '.join(sorted(','.join(sorted(c)) for c in clusters))}; " if clusters else ""
        if out.undirected:
            kind = "cluster PDAG" if clusters else "PDAG"
            head = f"{kind} ({len(out.undirected)} undirected of {len(edges)} edges): " + head
        return head + ("edges " + _listed(edges, max_items) if edges else "no edges")
    if isinstance(out, Partition):
        if out.selected is not None:
            return _describe_selection(out, max_items)
        sizes = [len(c) for c in out.clusters]
        text = f"{out.n_clusters} clusters of sizes {sizes[:max_items]}" + ("..." if len(sizes) > max_items else "")
        if out.noise.any():
            text += f", {int(out.noise.sum())} noise"
        return text
    return ""


def _describe_selection(part: Partition, max_items: int) -> str:
    names = part.names or tuple(f"x{i}" for i in range(len(part)))
    sel = np.asarray(part.selected, dtype=np.int64)
    rest = np.setdiff1d(np.arange(len(part)), sel)
    labels = part.labels
    chosen, others = set(labels[sel].tolist()), set(labels[rest].tolist())
    split_only = len(chosen) == 1 and len(others) <= 1 and not chosen & others  # selected vs the rest
    text = f"selected {sel.size} of {len(part)} features (best first"
    if split_only:
        return text + "): " + _listed([names[i] for i in sel], max_items)
    items = [f"{names[i]} [{labels[i]}]" for i in sel]
    return (text + ", granularity in brackets): " + _listed(items, max_items)
            + f"; {part.n_clusters} granularities in all")


def format_records(records: Sequence[Mapping[str, Any]]) -> str:
    """The ``steps``, ``outputs`` and ``results`` tables of one run (records as dicts)."""
    lines = ["", "steps:"]
    w_step = max(len(r["step"]) for r in records)
    w_plugin = max(len(r["plugin"] or r["kind"]) for r in records)
    lines.append(f"  {'':<{w_step}}  {'':<{w_plugin}}  {'wall_s':>8}  {'startup_s':>9}")
    for r in records:
        label = r["plugin"] or r["kind"]
        status = "" if r["status"] == "done" else f"  [{r['status']}]"  # the message is printed once, below
        lines.append(f"  {r['step']:<{w_step}}  {label:<{w_plugin}}  {r['wall_s']:8.3f}  {r['startup_s']:9.3f}"
                     + status)
    described = [r for r in records if r.get("output")]
    if described:
        lines += ["", "outputs:"] + [f"  {r['step']:<{w_step}}  {r['output']}" for r in described]
    evals: dict[str, dict[str, float]] = {}
    for r in records:
        if r["kind"] == "evaluate" and r["status"] == "done":
            evals.setdefault(r["on"], {}).update(r["metrics"])
    if evals:
        methods = list(evals)
        metrics = sorted({m for v in evals.values() for m in v})
        w = max(12, *(len(m) for m in methods))
        wm = max(16, *(len(m) + 2 for m in metrics))
        lines += ["", "results:", f"  {'metric':<{wm}}" + "".join(f"{m:>{w + 2}}" for m in methods)]
        for metric in metrics:
            cells = "".join(
                f"{evals[m][metric]:>{w + 2}.4g}" if metric in evals[m] else f"{'':>{w + 2}}" for m in methods
            )
            lines.append(f"  {metric:<{wm}}{cells}")
    return "\n".join(lines)
