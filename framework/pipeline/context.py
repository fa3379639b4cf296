"""What a step runs in: the run's context (data, outputs, records), the record of one plugin
call, and how a step's plugin is created. Below :mod:`~macrocause.framework.pipeline.spec` (the step
kinds) and :mod:`~macrocause.framework.pipeline.run` (the runner)."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .. import registry
from ..data import Dataset
from ..errors import MacrocauseError, PipelineError
from ..evaluation import truth_of
from ..graph import CausalGraph
from ..measure import measure, release_free_memory
from ..partition import Partition
from ..roles import Evaluation, Evaluator, Plugin, Role
from .startup import startup_clock
from .summary import describe_output, output_metrics

__all__ = ["StepRecord", "RunContext", "create_plugin", "params_hash"]


def params_hash(params: Mapping[str, Any]) -> str:
    """Stable short hash of a parameter dict."""
    text = json.dumps(params, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass
class StepRecord:
    """What one step (or one evaluator of an evaluate step) did.

    ``wall_s`` is the step's wall-clock time; ``startup_s`` the part of it spent on
    one-off start-up (first imports of modules, numba compilation or cache loading),
    so ``wall_s - startup_s`` is the step's own time. ``cpu_s`` is the process's CPU
    time during the step (all threads, so it can exceed ``wall_s``).
    """

    step: str
    kind: str
    plugin: str | None
    params: dict[str, Any]
    wall_s: float = 0.0
    startup_s: float = 0.0
    peak_mb: float = 0.0
    cpu_s: float = 0.0
    metrics: dict[str, float] = field(default_factory=dict)
    status: Literal["done", "failed", "timeout"] = "done"
    error: str | None = None
    on: str | None = None
    method: str | None = None
    output: str | None = None
    meanings: dict[str, dict[str, Any]] = field(default_factory=dict)  # an evaluator's Metric per value
    baseline: bool = False  # the plugin declares itself a baseline

    @property
    def params_hash(self) -> str:
        return params_hash(self.params)


def create_plugin(name: str, params: Mapping[str, Any], role: Role | None, where: str, seed: int) -> Plugin:
    """The registered plugin *name* of *role* with *params* (``seed`` added to stochastic ones);
    errors name *where*."""
    try:
        cls = registry.get(name)
    except MacrocauseError as exc:
        raise PipelineError(f"{where}: {exc}") from None
    if role is not None and cls.role != role:
        raise PipelineError(f"{where}: {name!r} is a {cls.role}, not a {role}.")
    params = dict(params)
    if cls.is_stochastic() and "seed" not in params:
        params["seed"] = seed
    try:
        return cls(**params)
    except MacrocauseError as exc:
        raise PipelineError(f"{where}: {exc}") from None


@dataclass
class RunContext:
    """The state steps run on: the current data, earlier outputs, the records so far."""

    data: Dataset
    seed: int
    origin: str = "the data"
    outputs: dict[str, Any] = field(default_factory=dict)
    records: list[StepRecord] = field(default_factory=list)
    release_memory: bool = False  # free memory back to the OS before each call (grids' isolate: true)

    def create(self, name: str, params: Mapping[str, Any], role: Role | None, key: str) -> Plugin:
        return create_plugin(name, params, role, f"step {key!r}", self.seed)

    def call(self, step: Any, plugin: Plugin, fn: Callable[[], Any], **extra: Any) -> Any:
        """Run *fn*, recording its time, start-up time, peak memory and output (or failure)."""
        rec = StepRecord(step.key, step.kind, plugin.name, plugin.get_params(), baseline=plugin.baseline, **extra)
        if self.release_memory:
            release_free_memory()
        cpu0 = time.process_time()
        try:
            with startup_clock(f"step {step.key!r} ({plugin.name})") as clock, measure() as m:
                out = fn()
        except Exception as exc:
            rec.status, rec.error = "failed", f"{type(exc).__name__}: {exc}"
            self.records.append(rec)
            raise
        rec.wall_s, rec.startup_s, rec.peak_mb = m.seconds, min(clock.seconds, m.seconds), m.peak_mb
        rec.cpu_s = time.process_time() - cpu0
        if isinstance(out, Evaluation):
            rec.metrics = dict(out.metrics)
            declared = {k: plugin.meaning(k) for k in rec.metrics} if isinstance(plugin, Evaluator) else {}
            rec.meanings = {k: m.to_dict() for k, m in declared.items() if m is not None}
        else:
            rec.metrics, rec.output = output_metrics(out), describe_output(out)
        self.records.append(rec)
        return out

    def note(self, step: Any, params: dict[str, Any], metrics: dict[str, float]) -> None:
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
