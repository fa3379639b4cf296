"""Grids of runs (data x pipelines x seeds), resumable through the results store.

A grid file::

    name: demo
    data:
      - {source: discrete_bn, params: {n_variables: 6}}
      - {source: linear_gaussian, params: {n_variables: 6}}
    pipelines: [quickstart.yaml]          # paths (relative to this file) or inline pipelines
    seeds: [0, 1, 2]                      # or a count: 3
    timeout: 600                          # seconds per run (local executor)
"""

from __future__ import annotations

import hashlib
import json
import signal
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .errors import PipelineError
from .execution import Executor, iter_unordered, progress_bar
from .pipeline import DataSpec, Pipeline, StepRecord, _fmt_validation, _read_yaml_source, _yaml_load
from .store import ResultStore

__all__ = ["Grid", "Task", "run_task", "compare"]


class Grid(BaseModel):
    """A comparison grid: every data spec x every pipeline (and sweep point) x every seed."""

    model_config = ConfigDict(extra="forbid")

    name: str = "grid"
    data: list[DataSpec] = Field(min_length=1)
    pipelines: list[str | dict[str, Any]] = Field(min_length=1)
    seeds: list[int] | int = 1
    timeout: float | None = Field(None, gt=0, description="Seconds per run (local executor).")

    @field_validator("seeds")
    @classmethod
    def _seeds(cls, v):
        if isinstance(v, int):
            if v < 1:
                raise ValueError("a seed count must be >= 1")
            return list(range(v))
        if not v:
            raise ValueError("give at least one seed")
        return v

    @classmethod
    def from_yaml(cls, source: str | Path) -> tuple[Grid, Path | None]:
        text, base, name = _read_yaml_source(source)
        raw = _yaml_load(text, name)
        if not isinstance(raw, dict):
            raise PipelineError(f"{name}: a grid must be a mapping with 'data', 'pipelines' and 'seeds'.")
        try:
            return cls.model_validate(raw), base
        except ValidationError as exc:
            raise PipelineError(_fmt_validation(exc, "grid")) from None

    def tasks(self, base: Path | None = None) -> list[Task]:
        """Every run of the grid, validated before anything is computed."""
        pipes: list[Pipeline] = []
        for i, p in enumerate(self.pipelines):
            try:
                pipe = Pipeline.from_yaml(base / p if base and not Path(p).is_absolute() else Path(p)) \
                    if isinstance(p, str) else Pipeline.from_dict(p, base=base)
            except PipelineError as exc:
                raise PipelineError(f"grid pipeline {i + 1}: {exc}") from None
            pipes.extend(pipe.expand())
        out = []
        for spec in self.data:
            if spec.csv is not None and base is not None and not Path(spec.csv).is_absolute():
                spec = spec.model_copy(update={"csv": str((base / spec.csv).resolve())})
            for pipe in pipes:
                p = pipe.with_data(spec)
                for seed in self.seeds:
                    q = p.with_seed(seed)
                    out.append(Task(q.to_dict(), str(q.base) if q.base else None, self.name, self.timeout))
        return out


@dataclass(frozen=True)
class Task:
    """One run: a pipeline (with its data and seed) as a plain dict, picklable anywhere."""

    pipeline: dict[str, Any]
    base: str | None = None
    grid: str | None = None
    timeout: float | None = None

    @property
    def key(self) -> str:
        text = json.dumps(self.pipeline, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:24]


@dataclass
class Outcome:
    """What :func:`run_task` returns: records ready for the store."""

    key: str
    pipeline: str
    seed: int
    data_label: str
    source: str | None
    source_params: dict[str, Any]
    records: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def status(self) -> str:
        bad = [r["status"] for r in self.records if r["status"] != "done"]
        return bad[0] if bad else "done"


class _Timeout(BaseException):  # not an Exception: steps must not swallow it
    pass


def _alarm(signum, frame):  # pragma: no cover - fires only on timeout
    raise _Timeout()


def run_task(task: Task) -> Outcome:
    """Run one task, never raising: failures and timeouts become records."""
    pipe = Pipeline.from_dict(task.pipeline, base=Path(task.base) if task.base else None)
    spec = pipe.data
    out = Outcome(task.key, pipe.name, pipe.seed, spec.label() if spec else "data",
                  spec.source if spec else None, dict(spec.params) if spec else {})
    use_alarm = bool(task.timeout) and hasattr(signal, "SIGALRM")
    t0 = time.perf_counter()
    try:
        if use_alarm:
            try:
                old = signal.signal(signal.SIGALRM, _alarm)
                signal.setitimer(signal.ITIMER_REAL, task.timeout)
            except ValueError:  # not the main thread (e.g. a Dask worker thread)
                use_alarm = False
        result = pipe.run(stop_on_error=False)
        out.records = [asdict(r) for r in result.records]
    except _Timeout:
        out.records = [asdict(StepRecord("<run>", "run", None, {}, status="timeout",
                                         error=f"run exceeded the timeout of {task.timeout} s"))]
    except Exception as exc:
        out.records = [asdict(StepRecord("<run>", "run", None, {}, status="failed",
                                         error=f"{type(exc).__name__}: {exc}"))]
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
    out.seconds = time.perf_counter() - t0
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
) -> dict[str, int]:
    """Run every task of *grid* not yet in *store*; store each run as it completes.

    Returns counts: ``total``, ``skipped`` (already stored), ``done``, ``failed``, ``timeout``.
    """
    tasks = grid.tasks(base)
    done = store.done_keys()
    todo = [t for t in tasks if t.key not in done]
    counts = {"total": len(tasks), "skipped": len(tasks) - len(todo), "done": 0, "failed": 0, "timeout": 0}
    with progress_bar(len(todo), f"grid {grid.name}" if progress else None) as bar:
        for _, outcome in iter_unordered(run_task, todo, executor=executor, n_jobs=n_jobs, address=address):
            store.write_run(
                outcome.key, outcome.records, pipeline=outcome.pipeline, seed=outcome.seed,
                data_label=outcome.data_label, source=outcome.source,
                source_params=outcome.source_params, grid=grid.name,
            )
            counts[outcome.status] += 1
            if on_result is not None:
                on_result(outcome)
            bar.update(1)
    return counts
