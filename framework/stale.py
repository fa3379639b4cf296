"""Stored runs whose plugins now resolve to other parameter values.

A run's store key hashes the pipeline as written, so a parameter left at its
default is not part of it. When a plugin's default changes, a stored run keeps
its key but no longer answers the grid: :func:`stale_runs` finds such runs by
re-resolving each stored step's parameters with today's plugins and comparing
the values of the parameters both have (a parameter added or removed since is
not a change of value, and is left alone).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from .errors import MacrocauseError
from .pipeline.context import create_plugin

__all__ = ["stale_runs", "describe_stale"]


def _plain(value: Any) -> Any:
    """*value* as it reads back from the store's JSON."""
    return json.loads(json.dumps(value, sort_keys=True, default=str))


def _changes(stored: Mapping[str, Any], now: Mapping[str, Any]) -> dict[str, tuple[Any, Any]]:
    stored, now = _plain(dict(stored)), _plain(dict(now))
    return {k: (stored[k], now[k]) for k in sorted(set(stored) & set(now)) if stored[k] != now[k]}


def stale_runs(tasks: Iterable[Any], rows: Iterable[Mapping[str, Any]]) -> dict[str, list[str]]:
    """Keys of the stored runs among *tasks* computed with parameters that differ from what the
    plugins resolve today, each with its changes (``"step.param: stored -> now"``).

    Parameters
    ----------
    tasks : iterable of Task
        The grid's runs (each with ``key`` and ``pipeline``).
    rows : iterable of dict
        Stored rows (``run_key``, ``step``, ``plugin``, ``params``, ``status``), e.g. from
        :meth:`ResultStore.rows`.
    """
    by_key: dict[str, list[Mapping[str, Any]]] = {}
    for r in rows:
        by_key.setdefault(r["run_key"], []).append(r)
    out: dict[str, list[str]] = {}
    for task in tasks:
        stored = by_key.get(task.key)
        if not stored or any(r["status"] != "done" for r in stored):
            continue
        steps = {s.key: s for s in task.pipeline.steps}
        changes = []
        for r in stored:
            step = steps.get(r["step"])
            if r["plugin"] is None or step is None:
                continue
            try:  # as the run resolves them: the step's parameters, the run's seed for a stochastic plugin
                now = create_plugin(r["plugin"], getattr(step, "params", None) or {}, None, "stale check",
                                    task.pipeline.seed).get_params()
            except MacrocauseError:
                continue  # the plugin is gone or the step no longer validates: running it again says why
            changes += [f"{r['step']}.{k}: {a!r} -> {b!r}" for k, (a, b) in _changes(r["params"], now).items()]
        if changes:
            out[task.key] = changes
    return out


def describe_stale(stale: Mapping[str, list[str]]) -> str:
    """One line: how many stored runs are stale, the first change, and what to do."""
    first = next(iter(stale.values()))[0]
    return (
        f"{len(stale)} stored runs of this grid were computed with parameter values that the plugins no "
        f"longer resolve to (e.g. {first}: a default changed); run them again with --rerun-stale, "
        "or use another --store."
    )
