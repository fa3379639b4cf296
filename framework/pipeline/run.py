"""The runner: steps in order on one dataset, with one record per plugin call (timing, memory,
failures). Start-up work during a step (imports, numba compilation) is timed apart
(:mod:`framework.pipeline.startup`)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..data import Dataset
from ..errors import MacrocauseError, PipelineError
from ..evaluation import truth_of
from ..graph import CausalGraph
from ..measure import measure
from ..partition import Partition
from ..roles import Evaluation, Evaluator, Plugin, Role
from .spec import Step, create_plugin
from .startup import startup_clock
from .summary import describe_output, output_metrics

__all__ = ["StepRecord", "PipelineResult", "RunContext", "run_steps", "params_hash"]


def params_hash(params: Mapping[str, Any]) -> str:
    """Stable short hash of a parameter dict."""
    text = json.dumps(params, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass
class StepRecord:
    """What one step (or one evaluator of an evaluate step) did.

    ``wall_s`` is the step's wall-clock time; ``startup_s`` the part of it spent on
    one-off start-up (first imports of modules, numba compilation or cache loading),
    so ``wall_s - startup_s`` is the step's own time.
    """

    step: str
    kind: str
    plugin: str | None
    params: dict[str, Any]
    wall_s: float = 0.0
    startup_s: float = 0.0
    peak_mb: float = 0.0
    metrics: dict[str, float] = field(default_factory=dict)
    status: Literal["done", "failed", "timeout"] = "done"
    error: str | None = None
    on: str | None = None
    method: str | None = None
    output: str | None = None

    @property
    def params_hash(self) -> str:
        return params_hash(self.params)


@dataclass
class PipelineResult:
    """Outputs and records of one pipeline run."""

    pipeline: str
    data: str
    seed: int
    outputs: dict[str, Any]
    records: list[StepRecord]
    dataset: Dataset | None = None

    @property
    def ok(self) -> bool:
        return all(r.status == "done" for r in self.records)

    def evaluations(self) -> dict[str, dict[str, float]]:
        """``{method step id: {metric: value}}`` over all evaluate steps."""
        out: dict[str, dict[str, float]] = {}
        for r in self.records:
            if r.kind == "evaluate" and r.on is not None:
                out.setdefault(r.on, {}).update(r.metrics)
        return out


@dataclass
class RunContext:
    """The state steps run on: the current data, earlier outputs, the records so far."""

    data: Dataset
    seed: int
    origin: str = "the data"
    outputs: dict[str, Any] = field(default_factory=dict)
    records: list[StepRecord] = field(default_factory=list)

    def create(self, name: str, params: Mapping[str, Any], role: Role | None, key: str) -> Plugin:
        return create_plugin(name, params, role, f"step {key!r}", self.seed)

    def call(self, step: Step, plugin: Plugin, fn: Callable[[], Any], **extra: Any) -> Any:
        """Run *fn*, recording its time, start-up time, peak memory and output (or failure)."""
        rec = StepRecord(step.key, step.kind, plugin.name, plugin.get_params(), **extra)
        try:
            with startup_clock() as clock, measure() as m:
                out = fn()
        except Exception as exc:
            rec.status, rec.error = "failed", f"{type(exc).__name__}: {exc}"
            self.records.append(rec)
            raise
        rec.wall_s, rec.startup_s, rec.peak_mb = m.seconds, min(clock.seconds, m.seconds), m.peak_mb
        if isinstance(out, Evaluation):
            rec.metrics = dict(out.metrics)
        else:
            rec.metrics, rec.output = output_metrics(out), describe_output(out)
        self.records.append(rec)
        return out

    def note(self, step: Step, params: dict[str, Any], metrics: dict[str, float]) -> None:
        """Record a step that calls no plugin."""
        self.records.append(StepRecord(step.key, step.kind, None, params, metrics=metrics))

    def method_of(self, step_id: str) -> str | None:
        return next((r.plugin for r in self.records if r.step == step_id), None)

    def missing_truth(self, key: str) -> str:
        have = sorted(self.data.truth)
        if have:
            return (f"the data has no ground truth {key!r}; it has {have} (from {self.origin}): "
                    "set 'truth:' to one of them.")
        return (f"the data has no ground truth {key!r}; it has none: {self.origin} ships no ground truth. "
                "Use a data source that does (`macrocause plugins --role data`, then `macrocause describe "
                "SOURCE`), or run the pipeline in Python on Dataset(..., truth={...}).")

    def truth_for(self, step: Any, plugin: Evaluator, result: Any) -> Any:
        """The ground truth *plugin* compares *result* with (None when it needs none)."""
        truth = self.data.truth
        if step.truth is not None:
            return truth[step.truth]
        if not plugin.needs_truth:
            return None
        want = CausalGraph if isinstance(result, CausalGraph) else Partition
        if want is CausalGraph and isinstance(truth.get("graph"), CausalGraph):
            return truth["graph"]
        if want is Partition:
            fits = [v for v in truth.values() if isinstance(v, Partition) and len(v) == len(result)]
            if fits:
                return truth["labels"] if "labels" in truth else fits[0]
        found = truth_of(self.data, None, want)
        if found is None:
            raise PipelineError(
                f"step {step.key!r}: {plugin.name} needs a ground truth {want.__name__}; "
                f"the data has {sorted(truth) or 'none'}: set 'truth:' to one of them."
            )
        return found


def run_steps(steps: list[Step], ctx: RunContext, stop_on_error: bool = True) -> RunContext:
    """Run *steps* in order on *ctx*. A failed step fails the steps that read it and, when it
    changes the data, every later step; with *stop_on_error* the first failure is raised."""
    for step in steps:
        step.check_data(ctx)
    failed: set[str] = set()
    data_steps: set[str] = set()
    for step in steps:
        deps = step.inputs() | data_steps
        if step.changes_data:
            data_steps.add(step.key)
        if deps & failed:
            failed.add(step.key)
            ctx.records.append(StepRecord(step.key, step.kind, None, {}, status="failed",
                                          error=f"skipped: depends on failed step(s) {sorted(deps & failed)}"))
            continue
        try:
            out = step.run(ctx)
        except Exception as exc:
            failed.add(step.key)
            if not any(r.step == step.key and r.status == "failed" for r in ctx.records):
                ctx.records.append(StepRecord(step.key, step.kind, None, {}, status="failed",
                                              error=f"{type(exc).__name__}: {exc}"))
            if stop_on_error:
                if isinstance(exc, MacrocauseError) and not isinstance(exc, PipelineError):
                    raise PipelineError(f"step {step.key!r}: {exc}") from exc
                raise
            continue
        ctx.outputs[step.key] = out
        if step.changes_data:
            ctx.data = out
    return ctx
