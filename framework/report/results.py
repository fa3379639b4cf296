"""From store rows to results: one value per (method, data, seed, metric), re-runs replaced.

A *run* is one pipeline on one dataset with one seed; its store key hashes the
pipeline (steps and parameters), the data and the seed. When the same run was
stored twice (``macrocause run`` twice, or a grid run into a store that already
held it under another grid), only the latest is kept; a latest run that failed
or timed out replaces an earlier success and is counted as such. A second pass
keeps one value per (pipeline, data, seed, evaluated step and its parameters,
evaluator and its parameters), so an edited pipeline that still holds the same
step does not count it twice.

The *method* of a value is the evaluated step (``"groups (kmeans)"`` when the step
id is not the plugin name), prefixed by the pipeline when several pipelines were
stored, and suffixed by the differing parameters when the same step was stored
with several. Besides the evaluators' values, each evaluated step yields ``time``:
the seconds the step took.
"""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import MacrocauseError
from .metrics import CPU, MEMORY, TIME, MetricInfo, is_timing, metric_info

__all__ = ["Result", "Collection", "collect", "natural_key"]


def natural_key(text: str) -> tuple:
    """Sort key with numbers compared as numbers: ``x[n=5]`` before ``x[n=10]``."""
    return tuple((0, float(t), "") if t[0].isdigit() else (1, 0.0, t)
                 for t in re.findall(r"\d+(?:\.\d+)?|\D+", text))


@dataclass(frozen=True)
class Result:
    """One value: a method on a dataset with a seed, for one metric."""

    method: str
    data: str
    seed: int
    metric: str
    value: float
    plugin: str | None = None  # the plugin of the evaluated step
    pipeline: str = ""
    source_params: str = "{}"  # the data source's parameters (JSON)
    shape: tuple[int, int] | None = None  # (n_samples, n_features) of the data, when recorded


@dataclass
class Collection:
    """What :func:`collect` found: the results and what it left out."""

    results: list[Result]
    metrics: dict[str, MetricInfo]  # reported metrics, in report order
    descriptive: list[str] = field(default_factory=list)  # values with no direction
    runs: int = 0  # distinct runs kept
    replaced: int = 0  # stored runs replaced by a later copy
    failed: list[dict[str, Any]] = field(default_factory=list)  # latest runs that failed / timed out
    grid: str | None = None
    versions: dict[str, str] = field(default_factory=dict)
    everything: list[Result] = field(default_factory=list)  # metrics and descriptive values
    unreported: list[str] = field(default_factory=list)  # metrics not asked for (sub-metrics)
    timings: list[str] = field(default_factory=list)  # timings measured but not asked for
    same_data: int = 0  # (data, seed) pairs whose data every pipeline saw identically (by hash)
    machine: dict[str, Any] = field(default_factory=dict)  # hosts, cores, load range of the runs
    undefined: int = 0  # NaN values of reported metrics (e.g. "not identifiable"), left out of tables

    def methods(self) -> list[str]:
        return sorted({r.method for r in self.results}, key=natural_key)

    def datasets(self) -> list[str]:
        return sorted({r.data for r in self.results}, key=natural_key)

    def of(self, metric: str) -> list[Result]:
        return [r for r in self.results if r.metric == metric]


def collect(rows: Sequence[Mapping[str, Any]], grid: str | None = None,
            metrics: Iterable[str] | None = None) -> Collection:
    """Deduplicated results of the store *rows* (``ResultStore.rows()``).

    Parameters
    ----------
    rows : list of dict
        Store rows, in store order.
    grid : str, optional
        Keep only the runs of this grid (default: every run, single runs included).
    metrics : list of str, optional
        Metrics to report (default: every evaluator's headline value, then ``time``).
    """
    if grid is not None:
        names = sorted({r["grid"] for r in rows if r["grid"]})
        rows = [r for r in rows if r["grid"] == grid]
        if not rows:
            raise MacrocauseError(f"The store has no runs of grid {grid!r}; its grids: {names or 'none'}.")
    latest, replaced = _latest_runs(rows)
    kept = [r for r in rows if latest.get(r["run_key"]) == r["created"]]
    same_data = _check_same_data(kept)
    steps = {(r["run_key"], r["step"]): r for r in kept if r["kind"] in ("search", "partition")}
    values: dict[tuple, tuple[float, Mapping[str, Any], Mapping[str, Any] | None, str, float]] = {}
    evaluators: set[str] = set()
    for r in kept:
        if r["kind"] != "evaluate" or r["status"] != "done":
            continue
        step = steps.get((r["run_key"], r["on_step"]))
        where = (r["pipeline"], r["data_label"] or "data", r["source"],
                 json.dumps(r["source_params"], sort_keys=True), r["seed"], r["on_step"],
                 _params_id(step))
        evaluators.add(r["plugin"])
        for name, value in r["metrics"].items():
            # a headline value is its evaluator's; another (n_variables, ...) is the step's
            who = (r["plugin"], _params_id(r)) if name == r["plugin"] else ("", "")
            _put(values, (*where, r["step"], *who, name),
                 (r["created"], r, step, name, float(value)))
        for name, value in _timings(step, "").items():
            _put(values, (*where, "", "", "", name), (r["created"], r, step, name, value))
        for name, value in _timings(r, f"@{r['plugin']}").items():
            _put(values, (*where, r["step"], r["plugin"], "", name), (r["created"], r, step, name, value))
    infos = _metric_infos({v[3] for v in values.values()}, evaluators, metrics)
    per_data = _data_params(values.values())
    labels = _method_labels(values.values(), per_data)
    # the same value from two evaluate steps on one step (e.g. two truths): name it by its step
    sources: dict[tuple, set[str]] = defaultdict(set)
    for _, r, _, name, _ in values.values():
        sources[(r["pipeline"], r["on_step"], name)].add("" if name in (TIME, CPU, MEMORY) else r["step"])
    everything, descriptive, unreported, timings = [], set(), set(), set()
    for _, r, step, name, value in values.values():
        shown = name if len(sources[(r["pipeline"], r["on_step"], name)]) == 1 else f"{name} [{r['step']}]"
        if name not in infos:
            if is_timing(name):
                timings.add(shown)
            else:
                (descriptive if metric_info(name) is None else unreported).add(shown)
        elif shown not in infos:
            infos[shown] = replace(infos[name], name=shown)
        extra = r.get("extra") or {}
        shape = (int(extra["n_samples"]), int(extra["n_features"])) if "n_samples" in extra else None
        everything.append(Result(labels[_method_key(r, step, per_data)], r["data_label"] or "data",
                                 int(r["seed"] or 0), shown, value, r["method"], r["pipeline"],
                                 json.dumps(r["source_params"] or {}, sort_keys=True), shape))
    results = [r for r in everything if r.metric in infos and not math.isnan(r.value)]
    undefined = sum(r.metric in infos and math.isnan(r.value) for r in everything)
    infos = {k: v for k, v in infos.items() if any(r.metric == k for r in results)}
    failed = [r for r in kept if r["status"] != "done"]
    versions = next((r["versions"] for r in reversed(kept) if r.get("versions")), {})
    return Collection(results, infos, sorted(descriptive), len(latest), replaced,
                      failed, grid, versions, everything, sorted(unreported),
                      sorted(timings, key=natural_key), same_data, _machine(kept), undefined)


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
    out = {TIME + suffix: float(row["seconds"])}
    cpu = (row.get("extra") or {}).get("cpu_s")
    if cpu is not None:
        out[CPU + suffix] = float(cpu)
    if row.get("peak_mb") is not None:
        out[MEMORY + suffix] = float(row["peak_mb"])
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


def _latest_runs(rows: Sequence[Mapping[str, Any]]) -> tuple[dict[str, float], int]:
    times: dict[str, set[float]] = defaultdict(set)
    for r in rows:
        times[r["run_key"]].add(r["created"])
    return {k: max(v) for k, v in times.items()}, sum(len(v) - 1 for v in times.values())


def _put(values: dict, key: tuple, item: tuple) -> None:
    if key not in values or item[0] >= values[key][0]:
        values[key] = item


def _metric_infos(found: set[str], evaluators: set[str],
                  wanted: Iterable[str] | None) -> dict[str, MetricInfo]:
    from .. import registry

    def evaluator(name):
        try:
            return registry.get(name) if name in evaluators else None
        except Exception:  # an evaluator no longer installed: fall back on the table
            return None

    if wanted is None:
        order = sorted(n for n in found if n in evaluators) + ([TIME] if TIME in found else [])
    else:
        order = list(wanted)
        missing = [n for n in order if n not in found]
        if missing:
            raise MacrocauseError(f"No values of metric(s) {missing} in the store; it has {sorted(found)}.")
    out = {}
    for name in order:
        info = metric_info(name, evaluator(name))
        if info is None:
            if wanted is not None:
                raise MacrocauseError(f"{name!r} is not a metric (no known direction); "
                                      "report one of the evaluators' values or time.")
            continue
        out[name] = info
    return out


def _params(row: Mapping[str, Any] | None) -> dict[str, Any]:
    """A step's parameters without ``seed``: the seed is the replicate, not the method."""
    return {k: v for k, v in (row["params"] if row else {}).items() if k != "seed"}


def _params_id(row: Mapping[str, Any] | None) -> str:
    return json.dumps(_params(row), sort_keys=True, default=str)


def _data_params(items: Iterable[tuple]) -> dict[tuple, set[str]]:
    """Per (pipeline, step): the parameters that are the data's, not the method's.

    A parameter whose value is the same on every run of one data set and differs
    between data sets (a grid data entry's ``set:``, e.g. ``n_clusters`` = the data
    set's class count) does not make another method: it is left out of the method.
    """
    seen: dict[tuple, dict[str, dict[str, set[str]]]] = defaultdict(lambda: defaultdict(lambda: defaultdict(set)))
    for _, r, step, _, _ in items:
        for p, v in _params(step).items():
            seen[(r["pipeline"], r["on_step"] or "?")][p][r["data_label"] or "data"].add(
                json.dumps(v, sort_keys=True, default=str))
    return {group: {p for p, by_data in found.items()
                    if all(len(v) == 1 for v in by_data.values()) and len(set().union(*by_data.values())) > 1}
            for group, found in seen.items()}


def _method_key(r: Mapping[str, Any], step: Mapping[str, Any] | None,
                per_data: Mapping[tuple, set[str]]) -> tuple:
    own = per_data.get((r["pipeline"], r["on_step"] or "?"), set())
    params = {k: v for k, v in _params(step).items() if k not in own}
    return r["pipeline"], r["on_step"] or "?", r["method"], json.dumps(params, sort_keys=True, default=str)


def _method_labels(items: Iterable[tuple], per_data: Mapping[tuple, set[str]]) -> dict[tuple, str]:
    params: dict[tuple, dict[str, Any]] = {}
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

