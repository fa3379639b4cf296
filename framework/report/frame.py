"""From store rows to the report's one tidy DataFrame: one value per (method, data, seed, metric).

A *run* is one pipeline on one dataset with one seed; its store key hashes the
pipeline (steps and parameters), the data and the seed. When the same run was
stored twice, only the latest is kept; a latest run that failed or timed out
replaces an earlier success and is counted as such. A second pass keeps one value
per (pipeline, data, seed, evaluated step and its parameters, evaluator and its
parameters), so an edited pipeline that still holds the same step does not count
it twice.

The *method* of a value is the evaluated step (``"groups (kmeans)"`` when the step
id is not the plugin name), prefixed by the pipeline when several pipelines were
stored, and suffixed by the differing parameters when the same step was stored
with several. Besides the evaluators' values, each evaluated step yields ``time``,
``cpu`` and ``memory``, and each evaluator ``time@E`` etc.

What a value means (:class:`~macrocause.framework.evaluation.Metric`) is what its evaluator
declared when it ran: the runner stores the declarations with each record, and
the report reads them from there (it imports no plugin). The timings are the
framework's own.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import MacrocauseError
from ..evaluation import Metric

__all__ = ["Facts", "tidy", "natural_key", "meaning", "is_timing", "TIMINGS", "COLUMNS"]

TIMINGS = {"time": Metric.lower(0, unit="s"), "cpu": Metric.lower(0, unit="s"), "memory": Metric.lower(0, unit="MiB")}
COLUMNS = ("pipeline", "method", "plugin", "data", "seed", "metric", "value", "source_params", "n", "d",
           "data_hash", "seeded", "baseline")


def natural_key(text: str) -> tuple:
    """Sort key with numbers compared as numbers: ``x[n=5]`` before ``x[n=10]``."""
    return tuple((0, float(t), "") if t[0].isdigit() else (1, 0.0, t)
                 for t in re.findall(r"\d+(?:\.\d+)?|\D+", str(text)))


def is_timing(name: str) -> bool:
    """``time``, ``cpu``, ``memory`` or one of them of an evaluator (``time@disco``)."""
    return name.split("@")[0].split(" [")[0] in TIMINGS


def meaning(name: str, declared: Mapping[str, Metric]) -> Metric | None:
    """The meaning of a reported name: a timing's, else what its evaluator declared."""
    base = name.split(" [")[0]
    return TIMINGS[base.split("@")[0]] if is_timing(name) else declared.get(name, declared.get(base))


@dataclass
class Facts:
    """What :func:`tidy` found besides the values: the report's summary."""

    metrics: dict[str, Metric]  # reported metrics, in report order
    declared: dict[str, Metric] = field(default_factory=dict)  # every stored declaration
    runs: int = 0
    replaced: int = 0
    failed: list[dict[str, Any]] = field(default_factory=list)
    grid: str | None = None
    versions: dict[str, str] = field(default_factory=dict)
    descriptive: list[str] = field(default_factory=list)
    undeclared: list[str] = field(default_factory=list)
    unreported: list[str] = field(default_factory=list)
    timings: list[str] = field(default_factory=list)
    same_data: int = 0
    machine: dict[str, Any] = field(default_factory=dict)
    undefined: int = 0
    legacy: int = 0  # evaluator records stored without declarations (read from the installed evaluator)


def tidy(rows: Sequence[Mapping[str, Any]], grid: str | None = None,
         metrics: Iterable[str] | None = None):
    """``(frame, facts)``: the deduplicated values of the store *rows* as one DataFrame of
    :data:`COLUMNS` (every value, NaN included), and :class:`Facts`.

    ``seeded``: the evaluated step or the evaluator took a seed (stochastic); ``data_hash``: the
    data's hash where recorded; ``baseline``: the step's plugin flags itself a baseline.
    """
    import pandas as pd

    if grid is not None:
        names = sorted({r["grid"] for r in rows if r["grid"]})
        rows = [r for r in rows if r["grid"] == grid]
        if not rows:
            raise MacrocauseError(f"The store has no runs of grid {grid!r}; its grids: {names or 'none'}.")
    times: dict[str, set[float]] = defaultdict(set)
    for r in rows:
        times[r["run_key"]].add(r["created"])
    latest = {k: max(v) for k, v in times.items()}
    kept = [r for r in rows if latest[r["run_key"]] == r["created"]]
    same_data = _check_same_data(kept)
    steps = {(r["run_key"], r["step"]): r for r in kept if r["kind"] in ("search", "partition")}
    values: dict[tuple, tuple] = {}
    declared: dict[str, Metric] = {}
    evaluators: set[str] = set()
    legacy = 0
    for r in kept:
        if r["kind"] != "evaluate" or r["status"] != "done":
            continue
        step = steps.get((r["run_key"], r["on_step"]))
        where = (r["pipeline"], r["data_label"] or "data", r["source"],
                 json.dumps(r["source_params"], sort_keys=True), r["seed"], r["on_step"], _params_id(step))
        evaluators.add(r["plugin"])
        stored = (r.get("extra") or {}).get("meanings")
        if stored is None:  # stored before the runner kept declarations: the installed evaluator's
            legacy += 1
            stored = _installed(r["plugin"], r["metrics"])
        declared.update({k: Metric.from_dict(v) for k, v in stored.items()})
        for name, value in r["metrics"].items():
            who = (r["plugin"], _params_id(r)) if name == r["plugin"] else ("", "")
            _put(values, (*where, r["step"], *who, name), (r["created"], r, step, name, float(value)))
        for name, value in _timings(step, "").items():
            _put(values, (*where, "", "", "", name), (r["created"], r, step, name, value))
        for name, value in _timings(r, f"@{r['plugin']}").items():
            _put(values, (*where, r["step"], r["plugin"], "", name), (r["created"], r, step, name, value))
    found = {v[3] for v in values.values()}
    if metrics is None:
        order = sorted(n for n in found if n in evaluators and (m := declared.get(n)) and m.rates)
        order += ["time"] if "time" in found else []
    else:
        order = list(metrics)
        missing = [n for n in order if n not in found]
        if missing:
            raise MacrocauseError(f"No values of metric(s) {missing} in the store; it has {sorted(found)}.")
        bad = [n for n in order if not (meaning(n, declared) or Metric("descriptive")).rates]
        if bad:
            raise MacrocauseError(f"{bad} not a metric (declared descriptive or not declared by its evaluator); "
                                  "report one of the evaluators' rated values or a timing.")
    per_data = _data_params(values.values())
    labels = _method_labels(values.values(), per_data)
    sources: dict[tuple, set[str]] = defaultdict(set)
    for _, r, _, name, _ in values.values():
        sources[(r["pipeline"], r["on_step"], name)].add("" if name in TIMINGS else r["step"])
    reported = {m: meaning(m, declared) for m in order}
    records, sets = [], defaultdict(set)
    for _, r, step, name, value in values.values():
        several = len(sources[(r["pipeline"], r["on_step"], name)]) > 1
        shown = f"{name} [{r['step']}]" if several else name
        if name in reported:
            reported.setdefault(shown, reported[name])
        else:
            m = meaning(name, declared)
            kind = ("timings" if is_timing(name) else "undeclared" if m is None
                    else "unreported" if m.rates else "descriptive")
            sets[kind].add(shown)
        extra = r.get("extra") or {}
        seeded = "seed" in (step or {}).get("params", {}) or "seed" in (r.get("params") or {})
        records.append((r["pipeline"], labels[_method_key(r, step, per_data)], r["method"], r["data_label"] or "data",
                        int(r["seed"] or 0), shown, value, json.dumps(r["source_params"] or {}, sort_keys=True),
                        extra.get("n_samples"), extra.get("n_features"), extra.get("data_hash"), seeded,
                        bool((step or {}).get("extra") and step["extra"].get("baseline"))))
    frame = pd.DataFrame.from_records(records, columns=list(COLUMNS))
    rated = frame[frame.metric.isin(list(reported))]
    undefined = int(rated.value.isna().sum())
    present = set(rated.metric[rated.value.notna()])
    facts = Facts({k: v for k, v in reported.items() if k in present}, declared, len(latest),
                  sum(len(v) - 1 for v in times.values()), [r for r in kept if r["status"] != "done"], grid,
                  next((r["versions"] for r in reversed(kept) if r.get("versions")), {}),
                  sorted(sets["descriptive"]), sorted(sets["undeclared"]), sorted(sets["unreported"]),
                  sorted(sets["timings"], key=natural_key), same_data, _machine(kept), undefined, legacy)
    return frame, facts


def _installed(plugin: str, metrics: Mapping[str, float]) -> dict[str, dict]:
    """What the registered evaluator *plugin* declares for *metrics* (no file is loaded; {} when
    it is not registered)."""
    from .. import registry

    try:
        cls = registry.get(plugin)
    except Exception:  # not installed (or not an evaluator): its values stay undeclared
        return {}
    meaning_of = getattr(cls, "meaning", None)
    found = {k: meaning_of(k) for k in metrics} if meaning_of else {}
    return {k: m.to_dict() for k, m in found.items() if m is not None}


def _machine(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Where and under what load the runs were computed (from their provenance)."""
    loads = sorted(float(r["load1"]) for r in rows if r.get("load1") is not None)
    if not loads:
        return {}
    return {"hosts": sorted({r["host"] for r in rows if r.get("host")}),
            "cores": sorted({int(r["cores"]) for r in rows if r.get("cores")}),
            "load": (loads[0], loads[len(loads) // 2], loads[-1])}


def _timings(row: Mapping[str, Any] | None, suffix: str) -> dict[str, float]:
    """``time``, ``cpu`` and ``memory`` (with *suffix*) of a done step's row, where recorded."""
    if row is None or row["status"] != "done" or row["seconds"] is None:
        return {}
    out = {"time" + suffix: float(row["seconds"])}
    cpu = (row.get("extra") or {}).get("cpu_s")
    if cpu is not None:
        out["cpu" + suffix] = float(cpu)
    if row.get("peak_mb") is not None:
        out["memory" + suffix] = float(row["peak_mb"])
    return out


def _check_same_data(rows: Sequence[Mapping[str, Any]]) -> int:
    """The number of (data, seed) pairs with a recorded data hash; raise if one of them was
    seen differently by two runs (the data source is not deterministic in its seed)."""
    seen: dict[tuple, dict[str, str]] = defaultdict(dict)
    for r in rows:
        h = (r.get("extra") or {}).get("data_hash")
        if h is not None:
            seen[(r["data_label"], r["seed"])].setdefault(h, r["pipeline"])
    for (label, seed), hashes in seen.items():
        if len(hashes) > 1:
            who = ", ".join(f"{p!r}" for p in hashes.values())
            raise MacrocauseError(
                f"Pipelines {who} saw different data for {label} with seed {seed}: the data source "
                "does not give the same data for the same parameters and seed, so their results "
                "cannot be compared. Make the source deterministic in its seed.")
    return len(seen)


def _put(values: dict, key: tuple, item: tuple) -> None:
    if key not in values or item[0] >= values[key][0]:
        values[key] = item


def _params(row: Mapping[str, Any] | None) -> dict[str, Any]:
    """A step's parameters without ``seed``: the seed is the replicate, not the method."""
    return {k: v for k, v in (row["params"] if row else {}).items() if k != "seed"}


def _params_id(row: Mapping[str, Any] | None) -> str:
    return json.dumps(_params(row), sort_keys=True, default=str)


def _data_params(items: Iterable[tuple]) -> dict[tuple, set[str]]:
    """Per (pipeline, step): the parameters that are the data's, not the method's (the same on
    every run of one data set, different between data sets: a grid data entry's ``set:``)."""
    seen: dict[tuple, dict] = defaultdict(lambda: defaultdict(lambda: defaultdict(set)))
    for _, r, step, _, _ in items:
        for p, v in _params(step).items():
            seen[(r["pipeline"], r["on_step"] or "?")][p][r["data_label"] or "data"].add(
                json.dumps(v, sort_keys=True, default=str))
    return {group: {p for p, by_data in found.items()
                    if all(len(v) == 1 for v in by_data.values()) and len(set().union(*by_data.values())) > 1}
            for group, found in seen.items()}


def _method_key(r: Mapping[str, Any], step: Mapping[str, Any] | None, per_data: Mapping[tuple, set[str]]) -> tuple:
    own = per_data.get((r["pipeline"], r["on_step"] or "?"), set())
    params = {k: v for k, v in _params(step).items() if k not in own}
    return r["pipeline"], r["on_step"] or "?", r["method"], json.dumps(params, sort_keys=True, default=str)


def _method_labels(items: Iterable[tuple], per_data: Mapping[tuple, set[str]]) -> dict[tuple, str]:
    params = {}
    for _, r, step, _, _ in items:
        key = _method_key(r, step, per_data)
        params[key] = json.loads(key[3])
    short = _labels(params, short=True)
    return short if len(set(short.values())) == len(short) else _labels(params, short=False)


def _labels(params: Mapping[tuple, dict[str, Any]], short: bool) -> dict[tuple, str]:
    """``pipeline:step (plugin) [differing parameters]``; with *short*, a pipeline named after its
    step (a sweep's ``s[s.a=1]``) gives ``s[a=1] (plugin)``."""
    several = len({k[0] for k in params}) > 1
    by_step: dict[tuple, list[tuple]] = defaultdict(list)
    for key in params:
        by_step[key[:2]].append(key)
    out = {}
    for (pipeline, on), keys in by_step.items():
        differ = sorted({p for k in keys for p in params[k]
                         if len({json.dumps(params[j].get(p), sort_keys=True, default=str) for j in keys}) > 1})
        for key in keys:
            label = on if key[2] in (None, on) else f"{on} ({key[2]})"
            if several:
                label = f"{_short(pipeline, on)}{label[len(on):]}" if short and pipeline.split("[")[0] == on \
                    else f"{pipeline}:{label}"
            if differ:
                label += " [" + ",".join(f"{p}={params[key].get(p)}" for p in differ) + "]"
            out[key] = label
    return out


def _short(pipeline: str, step: str) -> str:
    """A swept pipeline named after its step, ``s[s.a=1,s.b=2]``, as ``s[a=1,b=2]``."""
    base, bracket, rest = pipeline.partition("[")
    return base + bracket + ",".join(x.removeprefix(f"{step}.") for x in rest.split(",")) if bracket else base

