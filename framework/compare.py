"""Grids of runs (data x pipelines x seeds), resumable through the results store.

A grid file::

    name: demo
    data:
      - {source: discrete_bn, params: {n_variables: 6}}
      - {source: linear_gaussian, params: {n_variables: 6}}
    pipelines: [quickstart.yaml]          # paths (relative to this file) or inline pipelines
    seeds: [0, 1, 2]                      # or a count: 3
    timeout: 600                          # seconds per run (local executor)
    repeat: 3                             # timed executions per run (medians stored)
    warmup: true                          # one untimed execution first
    isolate: true                         # each run in a fresh process (honest peak memory)
    plugins: [oracle.py]                  # plugin files (relative to this file) for this grid

A data entry may set step parameters of the pipelines run on it, in the
``step_id.param: value`` form of ``macrocause run --set`` (e.g. a selector's
``n_clusters`` = the data set's class count)::

    data:
      - {source: mat, params: {path: coil20.mat}, name: COIL20, set: {select.n_clusters: 20}}

A pipeline without that step id runs unchanged; a step id that no pipeline of
the grid has, an unknown parameter, or a parameter a pipeline also sweeps is an
error. The value becomes part of the step's parameters (so of the run's key and
its stored parameters), exactly as if the pipeline had named it.

Each run is claimed in the store before it is computed, so several ``compare``
processes on one grid and one store share the work and compute each run once.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from . import registry
from .errors import PipelineError
from .execution import Executor, iter_unordered, progress_bar
from .isolated import RunFailed, run_isolated
from .pipeline import DataSpec, Pipeline, StepRecord
from .pipeline.core import read_pipeline
from .pipeline.repeat import run_repeated
from .pipeline.spec import parse_step
from .pipeline.yaml_io import format_validation_error, load_yaml, read_yaml_source
from .stale import describe_stale, stale_runs
from .store import ResultStore, provenance, run_key

__all__ = ["Grid", "GridData", "Task", "run_task", "compare"]


def _once(values: list[Any]) -> None:
    """Reject a list with a repeated entry, naming both positions."""
    seen: dict[str, int] = {}
    for i, v in enumerate(values, 1):
        text = json.dumps(v, sort_keys=True, default=str)
        if text in seen:
            raise ValueError(f"entries {seen[text]} and {i} are the same ({v!r}); list each once")
        seen[text] = i


class GridData(DataSpec):
    """A grid's data entry: a :class:`DataSpec` and the step parameters (``set:``) of the
    pipelines run on it, ``{"step_id.param": value}``."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    step_params: dict[str, Any] = Field(
        default_factory=dict, alias="set",
        description="Step parameters for the pipelines run on this data: {step_id.param: value}.")

    @field_validator("step_params")
    @classmethod
    def _step_params(cls, v):
        bad = [k for k in v if not all(str(k).partition(".")[::2])]
        if bad:
            raise ValueError(f"{bad[0]!r} must be 'step_id.param' (the form of 'macrocause run --set')")
        return v

    def spec(self) -> DataSpec:
        """The data spec alone (what the pipelines record as their data)."""
        return DataSpec.model_validate(self.model_dump(exclude={"step_params"}, exclude_defaults=True))


def _raw_pipeline(p: str | dict[str, Any], base: Path | None) -> tuple[dict[str, Any], Path | None]:
    """A grid's pipeline entry as a mapping (read from its file, named after it) and its folder."""
    if not isinstance(p, str):
        return p, base
    return read_pipeline(base / p if base and not Path(p).is_absolute() else Path(p))


def _step_ids(raw: dict[str, Any]) -> list[str]:
    steps = raw.get("steps") if isinstance(raw, dict) else None
    return [parse_step(s, k).key for k, s in enumerate(steps)] if isinstance(steps, list) else []


def _with_step_params(raw: dict[str, Any], ids: list[str], sets: dict[str, Any]) -> dict[str, Any]:
    """*raw* (with step ids *ids*) with each ``step_id.param`` of *sets*, all of its own steps,
    written into that step's ``params`` before the pipeline is validated (a data entry may give a
    required parameter); a swept parameter is refused."""
    if not sets:
        return raw
    clash = sorted(set(sets) & set(raw.get("sweep") or {}))
    if clash:
        raise PipelineError(f"set {clash[0]!r} is also swept by the pipeline; give it in one place.")
    steps = [dict(s) for s in raw["steps"]]
    for key, value in sets.items():
        sid, _, param = key.partition(".")
        i = ids.index(sid)
        steps[i]["params"] = {**(steps[i].get("params") or {}), param: value}
    return {**raw, "steps": steps}


class Grid(BaseModel):
    """A comparison grid: every data spec x every pipeline (and sweep point) x every seed.

    Each run appears once: a repeated seed, data entry or pipeline is rejected.
    """

    model_config = ConfigDict(extra="forbid")

    name: str = "grid"
    data: list[GridData] = Field(min_length=1)
    pipelines: list[str | dict[str, Any]] = Field(min_length=1)
    seeds: list[int] | int = Field(1, validate_default=True)
    timeout: float | None = Field(None, gt=0, description="Seconds per run (local executor).")
    repeat: int = Field(1, ge=1, le=100, strict=True,
                        description="Timed executions of each run in its worker; times are their medians.")
    warmup: bool = Field(False, strict=True, description="One untimed execution of each run first.")
    isolate: bool = Field(False, strict=True, description="Each run in a fresh Python process, free memory "
                          "returned to the OS before every step: peak memory counts what the warm-up freed.")
    plugins: list[str] = Field(default_factory=list,
                               description="Python files of plugins for this grid, relative to the grid file.")
    baselines: list[str] = Field(default_factory=list, description="Plugins (or methods) the report's paired "
                                 "tests compare every method with (default: those that declare baseline = True).")

    @field_validator("seeds")
    @classmethod
    def _seeds(cls, v):
        if isinstance(v, int):
            if v < 1:
                raise ValueError("a seed count must be >= 1")
            return list(range(v))
        if not v:
            raise ValueError("give at least one seed")
        _once(v)
        return v

    @field_validator("pipelines")
    @classmethod
    def _pipelines(cls, v):
        _once(v)
        return v

    @field_validator("data")
    @classmethod
    def _data(cls, v):
        _once([d.model_dump(exclude_defaults=True, by_alias=True) for d in v])
        return v

    @classmethod
    def from_yaml(cls, source: str | Path) -> tuple[Grid, Path | None]:
        text, base, name = read_yaml_source(source, "Grid")
        raw = load_yaml(text, name)
        if not isinstance(raw, dict):
            raise PipelineError(f"{name}: a grid must be a mapping with 'data', 'pipelines' and 'seeds'.")
        try:
            return cls.model_validate(raw), base
        except ValidationError as exc:
            raise PipelineError(format_validation_error(exc, "grid", Grid)) from None

    def plugin_files(self, base: Path | None = None, load: bool = True) -> tuple[str, ...]:
        """The grid's plugin files as absolute paths, registered here (and by each worker) when *load*."""
        files = tuple(str((base / f).resolve() if base and not Path(f).is_absolute() else Path(f).resolve())
                      for f in self.plugins)
        if load:
            registry.load_files(files)
        return files

    def tasks(self, base: Path | None = None, load_plugins: bool = True) -> list[Task]:
        """Every run of the grid, validated before anything is computed; each run once.

        The grid's ``plugins:`` files are imported only when *load_plugins*
        (``compare``); ``report --grid`` reads the grid without running them.
        """
        files = self.plugin_files(base, load_plugins)
        raws: list[tuple[dict[str, Any], Path | None, list[str]]] = []
        for i, p in enumerate(self.pipelines):
            try:
                raw, folder = _raw_pipeline(p, base)
                raws.append((raw, folder, _step_ids(raw)))
            except PipelineError as exc:
                raise PipelineError(f"grid pipeline {i + 1}: {exc}") from None
        ids = sorted({s for _, _, found in raws for s in found})
        expanded: dict[tuple[int, str], list[Pipeline]] = {}  # one validation per pipeline and step parameters

        def pipelines(i: int, sets: dict[str, Any], where: str) -> list[Pipeline]:
            raw, folder, own = raws[i]
            sets = {k: v for k, v in sets.items() if k.partition(".")[0] in own}
            key = (i, json.dumps(sets, sort_keys=True, default=str))
            if key not in expanded:
                try:
                    expanded[key] = Pipeline.from_dict(_with_step_params(raw, own, sets), base=folder).expand()
                except PipelineError as exc:
                    raise PipelineError(f"grid pipeline {i + 1}{where}: {exc}") from None
            return expanded[key]

        out: list[Task] = []
        origin: dict[str, tuple[int, int]] = {}
        for j, entry in enumerate(self.data):
            spec = entry.spec()
            where = f" on data entry {j + 1} ({spec.label()})" if entry.step_params else ""
            unknown = sorted({k.partition(".")[0] for k in entry.step_params} - set(ids))
            if unknown:
                raise PipelineError(f"data entry {j + 1} ({spec.label()}): set: no pipeline of the grid has "
                                    f"a step {unknown[0]!r}; its step ids: {ids}.")
            if spec.csv is not None and base is not None and not Path(spec.csv).is_absolute():
                spec = spec.model_copy(update={"csv": str((base / spec.csv).resolve())})
            for i, pipe in ((k, q) for k in range(len(raws)) for q in pipelines(k, entry.step_params, where)):
                p = pipe.with_data(spec)
                for seed in self.seeds:
                    q = p.with_seed(seed)
                    task = Task(q, self.name, self.timeout, self.repeat, self.warmup, files, self.isolate)
                    if task.key in origin:
                        i0, j0 = origin[task.key]
                        raise PipelineError(
                            f"Invalid grid: pipeline {i0 + 1} on data entry {j0 + 1} and pipeline {i + 1} "
                            f"on data entry {j + 1} give the same run ({q.name} on {spec.label()}, "
                            f"seed {seed}); list each run once."
                        )
                    origin[task.key] = (i, j)
                    out.append(task)
        return out


@dataclass(frozen=True)
class Task:
    """One run: a parsed, validated pipeline (with its data and seed), picklable anywhere."""

    pipeline: Pipeline
    grid: str | None = None
    timeout: float | None = None
    repeat: int = 1
    warmup: bool = False
    plugins: tuple[str, ...] = ()  # plugin files the worker registers before running
    isolate: bool = False  # run in a fresh process (macrocause.framework.isolated)

    def __reduce__(self):
        # the plugin files are registered before the pipeline (which names their plugins) is rebuilt
        return (_task, (self.plugins, self.pipeline, self.grid, self.timeout, self.repeat, self.warmup, self.isolate))

    @property
    def key(self) -> str:
        """The run's store key: the pipeline's hash, scoped by the grid (none for a single run)."""
        text = json.dumps(self.pipeline.to_dict(), sort_keys=True, default=str)
        return run_key(hashlib.sha256(text.encode()).hexdigest()[:24], self.grid)


def _task(plugins, pipeline, grid, timeout, repeat, warmup, isolate) -> Task:
    registry.load_files(plugins)
    return Task(pipeline, grid, timeout, repeat, warmup, plugins, isolate)


@dataclass
class Outcome:
    """What :func:`run_task` returns: records ready for the store, with their provenance."""

    key: str
    pipeline: str
    seed: int
    data_label: str
    source: str | None
    source_params: dict[str, Any]
    records: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    provenance: dict[str, Any] = field(default_factory=dict)

    @property
    def status(self) -> str:
        bad = [r["status"] for r in self.records if r["status"] != "done"]
        return bad[0] if bad else "done"


def _outcome(task: Task) -> tuple[Pipeline, Outcome]:
    pipe = task.pipeline
    spec = pipe.data
    return pipe, Outcome(task.key, pipe.name, pipe.seed, spec.label() if spec else "data",
                         spec.source if spec else None, dict(spec.params) if spec else {})


def run_task(task: Task) -> Outcome:
    """Run one task, never raising: failures become records.

    The task's timeout is enforced by the executor, which runs the task in a
    process it can kill (see :func:`macrocause.framework.execution.iter_unordered`).
    """
    pipe, out = _outcome(task)
    out.provenance = provenance()
    t0 = time.perf_counter()
    try:
        registry.load_files(task.plugins)
        if task.isolate:
            records, data = run_isolated(task)
            data = {**data, "isolated": True}
        else:
            records, data = run_repeated(pipe, task.repeat, task.warmup)
        if task.plugins:  # so that a report can load the evaluators these records name
            data = {**data, "plugin_files": list(task.plugins)}
        out.records = [{**r, **data} for r in records]
    except Exception as exc:
        error = str(exc) if isinstance(exc, RunFailed) else f"{type(exc).__name__}: {exc}"
        out.records = [asdict(StepRecord("<run>", "run", None, {}, status="failed", error=error))]
    out.seconds = time.perf_counter() - t0
    return out


def lost_outcome(task: Task, status: str, reason: str) -> Outcome:
    """The outcome of a task whose worker died (``failed``) or was stopped at its timeout."""
    _, out = _outcome(task)
    out.provenance = provenance()
    out.records = [asdict(StepRecord("<run>", "run", None, {}, status=status, error=reason))]  # type: ignore[arg-type]
    return out


def compare(
    grid: Grid,
    store: ResultStore,
    *,
    base: Path | None = None,
    executor: Executor = "local",
    n_jobs: int = 1,
    address: str | None = None,
    progress: bool = True,
    on_result: Callable[[Outcome], None] | None = None,
    retry_failed: bool = False,
    rerun_stale: bool = False,
) -> dict[str, int]:
    """Run every task of *grid* not yet in *store*; store each run as it completes.

    A run is claimed in the store just before it is computed: runs already
    stored, or claimed by another live process, are skipped. With
    *retry_failed*, failed and timed-out runs are computed again (and replaced).
    A stored run whose plugins now resolve to other parameter values (a default
    changed, see :mod:`macrocause.framework.stale`) is an error, or, with *rerun_stale*,
    computed again and replaced.

    Returns counts: ``total``, ``skipped`` (already stored, or being computed by
    another process), ``done``, ``failed``, ``timeout``.
    """
    tasks = grid.tasks(base)
    stored = store.run_status()
    stale = stale_runs(tasks, store.rows("grid = ?", (grid.name,)))
    if stale and not rerun_stale:
        raise PipelineError(describe_stale(stale))
    todo = [t for t in tasks if t.key not in stored or t.key in stale
            or (retry_failed and stored[t.key] != "done")]
    counts = {"total": len(tasks), "skipped": len(tasks) - len(todo), "done": 0, "failed": 0, "timeout": 0}
    held: set[str] = set()
    elsewhere = 0

    with progress_bar(len(todo), f"grid {grid.name}" if progress else None) as bar:

        def claimed() -> Iterator[Task]:
            nonlocal elsewhere
            for t in todo:
                state = store.claims.claim(t.key, retry_failed=retry_failed, replace=t.key in stale)
                if state == "claimed":
                    held.add(t.key)
                    yield t
                    continue
                counts["skipped"] += 1
                elsewhere += state == "busy"
                bar.update(1)

        stop = store.claims.heartbeat()
        try:
            for _, outcome in iter_unordered(
                run_task, claimed(), executor=executor, n_jobs=n_jobs, address=address,
                timeout=(lambda t: t.timeout) if grid.timeout else None, on_lost=lost_outcome,
                announce=progress,
            ):
                store.write_run(
                    outcome.key, outcome.records, pipeline=outcome.pipeline, seed=outcome.seed,
                    data_label=outcome.data_label, source=outcome.source,
                    source_params=outcome.source_params, grid=grid.name, provenance=outcome.provenance,
                )
                held.discard(outcome.key)
                counts[outcome.status] += 1
                if on_result is not None:
                    on_result(outcome)
                bar.update(1)
        finally:
            stop.set()
            store.claims.release(held)
    if elsewhere and progress:
        print(f"{elsewhere} runs were being computed by another process (left to it).", file=sys.stderr)
    return counts
