"""The runner: steps in order on one dataset, with one record per plugin call (timing, memory,
failures). Start-up work during a step (imports, numba compilation) is timed apart
(:mod:`macrocause.framework.pipeline.startup`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import richrepr
from ..data import Dataset
from ..errors import MacrocauseError, PipelineError
from .context import RunContext, StepRecord, params_hash
from .spec import Step

__all__ = ["PipelineResult", "UnknownStepError", "run_steps", "RunContext", "StepRecord", "params_hash"]


class UnknownStepError(MacrocauseError, KeyError):
    """A pipeline result has no output of that step id (a :class:`KeyError` too)."""

    __str__ = BaseException.__str__  # the message as written, not quoted as KeyError does


@dataclass
class PipelineResult:
    """Outputs and records of one pipeline run.

    ``result["cdag"]`` is the output of step ``cdag``; ``in`` and iteration go over the ids of
    the steps that produced one. :meth:`to_pandas` gives one row per record, and a notebook
    shows the records as a table.
    """

    pipeline: str
    data: str
    seed: int
    outputs: dict[str, Any]
    records: list[StepRecord]
    dataset: Dataset | None = None

    def __getitem__(self, step: str) -> Any:
        if step in self.outputs:
            return self.outputs[step]
        bad = next((r for r in self.records if r.step == step and r.status != "done"), None)
        if bad is not None:
            raise UnknownStepError(f"Step {step!r} of pipeline {self.pipeline!r} has no output: "
                                   f"it {bad.status}: {bad.error}")
        raise UnknownStepError(f"Pipeline {self.pipeline!r} has no step {step!r}; "
                               f"its steps are {', '.join(map(repr, self.steps)) or 'none'}.")

    def __contains__(self, step: object) -> bool:
        return step in self.outputs

    def __iter__(self):
        return iter(self.outputs)

    @property
    def steps(self) -> list[str]:
        """The step ids, in run order (failed and skipped steps included)."""
        return list(dict.fromkeys([*(r.step for r in self.records), *self.outputs]))

    def to_pandas(self):
        """One row per record, metrics as columns (see :func:`macrocause.framework.frames.records_frame`)."""
        from ..frames import records_frame

        return records_frame(self)

    def _repr_html_(self) -> str:
        return richrepr.html("pipeline_result", self)

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
