"""The pipeline's schema: where the data comes from, and one class per step kind.

A step kind is a frozen pydantic model whose kind key names its main input
(``partition: kmeans``, ``augment: parts``, ...). Each kind says which earlier
steps it reads (:meth:`Step.inputs`), checks itself against what those steps
produce before any compute (:meth:`Step.check`) and runs on a
:class:`~macrocause.framework.pipeline.run.RunContext` (:meth:`Step.run`). Adding a step
kind means adding one subclass with a ``kind`` class variable; it is found by
that key in YAML and Python alike.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..errors import PipelineError
from ..roles import Plugin, Role, Searcher
from .context import RunContext, create_plugin
from .yaml_io import format_validation_error, unknown_key_message

__all__ = [
    "DataSpec", "Step", "Produced", "CheckContext", "STEP_KINDS", "create_plugin", "parse_step",
    "PartitionStep", "SearchStep", "EvaluateStep", "AugmentStep", "SelectStep",
]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DataSpec(_Model):
    """Where a pipeline's data comes from: a registered data source or a CSV file."""

    source: str | None = Field(None, description="Name of a registered data source.")
    params: dict[str, Any] = Field(default_factory=dict, description="Parameters of the source.")
    csv: str | None = Field(None, description="Path of a CSV file with a header row.")
    target: str | None = Field(None, description="CSV column holding effect states.")
    labels: str | None = Field(None, description="CSV column holding the true classes (truth['labels']).")
    noise: str | float | None = Field(None, description="Value of the labels column that marks noise.")
    name: str | None = Field(None, description="Label of the data in reports.")

    @model_validator(mode="after")
    def _one_origin(self):
        if (self.source is None) == (self.csv is None):
            raise ValueError("give exactly one of 'source' (a data source name) or 'csv' (a path)")
        if self.csv is not None and self.params:
            raise ValueError("'params' belong to a data source, not to a CSV file")
        if self.csv is None and (self.target or self.labels or self.noise is not None):
            raise ValueError("'target', 'labels' and 'noise' go with 'csv: FILE'; for a data source put them "
                             "in its params")
        return self

    def label(self) -> str:
        if self.name:
            return self.name
        if self.csv is not None:
            return Path(self.csv).stem
        shown = ",".join(f"{k}={v}" for k, v in sorted(self.params.items()) if k != "seed")
        return f"{self.source}[{shown}]" if shown else str(self.source)


@dataclass(frozen=True)
class Produced:
    """What a step gives later steps: ``"partition"``, ``"graph"``, ``"data"`` or ``"evaluation"``."""

    what: str
    plugin: type[Plugin] | None = None
    axis: str | None = None


@dataclass
class CheckContext:
    """What validation knows at one step: the steps before it and what they produce."""

    produced: dict[str, Produced]
    seed: int
    where: str = ""

    def create(self, name: str, params: Mapping[str, Any], role: Role | None) -> Plugin:
        return create_plugin(name, params, role, self.where, self.seed)

    def need(self, ref: str, key: str, what: tuple[str, ...], axis: str | None = None) -> Produced:
        """The product of the earlier step *ref*, which must be one of *what* (and partition *axis*)."""
        if ref not in self.produced:
            raise PipelineError(
                f"{self.where}: '{key}: {ref}' does not name an earlier step; earlier steps: "
                f"{list(self.produced) or 'none'}."
            )
        got = self.produced[ref]
        if got.what not in what:
            raise PipelineError(f"{self.where}: '{key}: {ref}' must be a {' or '.join(what)} step, not a {got.what}.")
        if axis is not None and got.axis != axis:
            name = got.plugin.name if got.plugin is not None else ref
            raise PipelineError(f"{self.where}: '{key}: {ref}' must partition {axis}, but {name} partitions {got.axis}.")
        return got


class _StepMeta(type(BaseModel)):
    """``Step(partition="kmeans", ...)`` builds the step kind its kind key names."""

    def __call__(cls, *args: Any, **kwargs: Any):
        if cls is Step and not args:
            return parse_step(kwargs)
        return super().__call__(*args, **kwargs)


STEP_KINDS: dict[str, type[Step]] = {}


class Step(_Model, metaclass=_StepMeta):
    """One pipeline step. ``Step(**fields)`` returns the kind named by its kind key.

    >>> Step(id="g", search="pc", params={"alpha": 0.01}).kind
    'search'
    """

    kind: ClassVar[str] = ""
    changes_data: ClassVar[bool] = False  # later steps run on the data this step returns
    id: str | None = Field(None, description="Unique step id (default: from the kind and its input).")

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        if cls.kind:
            STEP_KINDS[cls.kind] = cls

    @property
    def key(self) -> str:
        """The step id, or ``KIND_INPUT`` (``evaluate_parts``, ``augment_parts``)."""
        return self.id or f"{self.kind}_{getattr(self, self.kind)}"

    def inputs(self) -> set[str]:
        """Ids of the earlier steps this one reads."""
        return set()

    def check(self, ctx: CheckContext) -> Produced:
        """Validate against what earlier steps produce; return what this step produces."""
        raise NotImplementedError

    def check_data(self, ctx: RunContext) -> None:
        """Checks that need the loaded data but no compute (run before the first step)."""

    def run(self, ctx: RunContext) -> Any:
        """Run on the context; return the output later steps see under :attr:`key`."""
        raise NotImplementedError


def parse_step(raw: Any, index: int | None = None) -> Step:
    """The step kind of a mapping, validated; errors name the step and list the allowed keys."""
    if isinstance(raw, Step):
        return raw
    where = "step" if index is None else f"step {index + 1}"
    if not isinstance(raw, Mapping):
        raise PipelineError(f"Invalid pipeline: {where}: a step is a mapping such as "
                            f"{{partition: kmeans}}, got {type(raw).__name__}.")
    kinds = [k for k in STEP_KINDS if k in raw]
    if len(kinds) != 1:
        unknown = [k for k in raw if k not in _all_keys()]
        if unknown and not kinds:
            close = difflib.get_close_matches(str(unknown[0]), list(STEP_KINDS), n=1, cutoff=0.6)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise PipelineError(f"Invalid pipeline: {where}: unknown key {unknown[0]!r}; a step has one of the "
                                f"kind keys {', '.join(STEP_KINDS)}.{hint}")
        raise PipelineError(f"Invalid pipeline: {where}: a step needs exactly one of "
                            f"{', '.join(STEP_KINDS)}; got {kinds or 'none'}.")
    cls = STEP_KINDS[kinds[0]]
    for key in raw:
        if key not in cls.model_fields:
            if key in _all_keys():
                raise PipelineError(f"Invalid pipeline: {where}: '{key}' does not apply to a {cls.kind} step.")
            msg = unknown_key_message(key, list(cls.model_fields), f"a {cls.kind} step")
            raise PipelineError(f"Invalid pipeline: {where}: {msg}")
    try:
        return cls.model_validate(dict(raw))
    except ValidationError as exc:
        msg = format_validation_error(exc, where, cls).removeprefix(f"Invalid {where}: ")
        raise PipelineError(f"Invalid pipeline: {where}: {msg}") from None


def _all_keys() -> set[str]:
    return {k for cls in STEP_KINDS.values() for k in cls.model_fields}


# -- the step kinds --------------------------------------------------------------------------------
class PartitionStep(Step):
    """``partition: NAME``: a Partitioner on the current data."""

    kind: ClassVar[str] = "partition"
    partition: str
    params: dict[str, Any] = Field(default_factory=dict)

    @property
    def key(self) -> str:
        return self.id or self.partition

    def check(self, ctx: CheckContext) -> Produced:
        cls = type(ctx.create(self.partition, self.params, Role.PARTITIONER))
        return Produced("partition", cls, cls.axis)

    def run(self, ctx: RunContext) -> Any:
        plugin = ctx.create(self.partition, self.params, Role.PARTITIONER, self.key)
        data = ctx.data
        return ctx.call(self, plugin, lambda: plugin.partition(data))


class SearchStep(Step):
    """``search: NAME``: a Searcher, with an optional ``scorer`` and an ``init`` (an earlier step)."""

    kind: ClassVar[str] = "search"
    search: str
    params: dict[str, Any] = Field(default_factory=dict)
    scorer: str | None = None
    scorer_params: dict[str, Any] = Field(default_factory=dict)
    init: str | None = Field(None, description="Id of an earlier variable-partition or search step.")

    @property
    def key(self) -> str:
        return self.id or self.search

    def inputs(self) -> set[str]:
        return {self.init} if self.init else set()

    def check(self, ctx: CheckContext) -> Produced:
        cls: type[Searcher] = type(ctx.create(self.search, self.params, Role.SEARCHER))  # role checked
        if self.scorer is not None:
            if not cls.uses_scorer:
                raise PipelineError(f"{ctx.where}: {cls.name} does not use a scorer.")
            ctx.create(self.scorer, self.scorer_params, Role.SCORER)
        elif self.scorer_params:
            raise PipelineError(f"{ctx.where}: 'scorer_params' needs a 'scorer'.")
        if self.init is not None:
            accepted = cls.init_kinds()
            if not accepted:
                raise PipelineError(f"{ctx.where}: {cls.name} does not take an 'init'.")
            got = ctx.need(self.init, "init", ("partition", "graph"))
            if got.what == "partition" and "variables" in accepted:
                ctx.need(self.init, "init", ("partition",), "variables")
            given = "graph" if got.what == "graph" else got.axis
            if given not in accepted:
                wanted = " or ".join("a graph" if a == "graph" else f"a partition of {a}" for a in accepted)
                gave = "a graph" if given == "graph" else f"a partition of {given}"
                raise PipelineError(f"{ctx.where}: {cls.name} takes as 'init' {wanted}, but "
                                    f"{self.init!r} gives {gave}.")
        return Produced("graph", cls)

    def run(self, ctx: RunContext) -> Any:
        plugin = ctx.create(self.search, self.params, Role.SEARCHER, self.key)
        scorer = ctx.create(self.scorer, self.scorer_params, Role.SCORER, self.key) if self.scorer else None
        init = ctx.outputs[self.init] if self.init else None
        data = ctx.data
        return ctx.call(self, plugin, lambda: plugin.search(data, scorer=scorer, init=init))


class EvaluateStep(Step):
    """``evaluate: NAME`` or ``[NAMES]``: Evaluators ``on`` an earlier partition or search step."""

    kind: ClassVar[str] = "evaluate"
    evaluate: str | list[str]
    on: str = Field(description="Id of the partition or search step to rate.")
    truth: str | None = Field(None, description="Key of the data's ground truth (default: the one that fits).")
    params: dict[str, Any] = Field(
        default_factory=dict, description="Parameters; with several evaluators, {name: {...}} per evaluator.")

    @model_validator(mode="before")
    @classmethod
    def _needs_on(cls, raw: Any) -> Any:
        if isinstance(raw, Mapping) and raw.get("on") is None:
            raise ValueError("an evaluate step needs 'on': the id of the step to rate")
        return raw

    @property
    def key(self) -> str:
        return self.id or f"evaluate_{self.on}"

    @property
    def evaluators(self) -> list[str]:
        return [self.evaluate] if isinstance(self.evaluate, str) else list(self.evaluate)

    def params_for(self, name: str) -> dict[str, Any]:
        """Parameters of one evaluator of this step."""
        if isinstance(self.evaluate, list):
            return dict(self.params.get(name, {}))
        return dict(self.params)

    def inputs(self) -> set[str]:
        return {self.on}

    def check(self, ctx: CheckContext) -> Produced:
        got = ctx.need(self.on, "on", ("partition", "graph"))
        if isinstance(self.evaluate, list):
            extra = set(self.params) - set(self.evaluators)
            if extra:
                raise PipelineError(
                    f"{ctx.where}: with several evaluators, 'params' maps evaluator names to their "
                    f"parameters; {sorted(extra)} are not evaluators of this step."
                )
        for name in self.evaluators:
            plugin = ctx.create(name, self.params_for(name), Role.EVALUATOR)
            if got.what not in plugin.accepts:
                raise PipelineError(f"{ctx.where}: {name} rates a {' or '.join(plugin.accepts)}, but "
                                    f"{self.on!r} gives a {got.what}.")
        return Produced("evaluation")

    def check_data(self, ctx: RunContext) -> None:
        if self.truth is not None and self.truth not in ctx.data.truth:
            raise PipelineError(f"step {self.key!r}: {ctx.missing_truth(self.truth)}")

    def run(self, ctx: RunContext) -> Any:
        result = ctx.outputs[self.on]
        out = {}
        for name in self.evaluators:
            plugin = ctx.create(name, self.params_for(name), Role.EVALUATOR, self.key)
            truth = ctx.truth_for(self, plugin, result)
            data = ctx.data
            out[name] = ctx.call(self, plugin, lambda: plugin.evaluate(data, result, truth),  # noqa: B023
                                 on=self.on, method=ctx.method_of(self.on))
        return out


class AugmentStep(Step):
    """``augment: ID``: a sample partition becomes a discrete variable ``name`` of the data."""

    kind: ClassVar[str] = "augment"
    changes_data: ClassVar[bool] = True
    augment: str = Field(description="Id of a sample-partition step.")
    name: str | None = Field(None, description="Name of the new variable (default: the step id read).")
    noise: Literal["state", "drop", "error"] = Field(
        "state", description="Noise samples (-1): one more state of the variable (default), dropped, or an error.")

    def inputs(self) -> set[str]:
        return {self.augment}

    def check(self, ctx: CheckContext) -> Produced:
        ctx.need(self.augment, "augment", ("partition",), "samples")
        return Produced("data")

    def run(self, ctx: RunContext) -> Any:
        part = ctx.outputs[self.augment]
        name = self.name or self.augment
        new = ctx.data.with_partition(part, name, noise=self.noise)
        states = len(set(new.column(name).tolist()))
        ctx.note(self, {"name": name, "noise": self.noise},
                 {"n_states": float(states), "n_samples": float(new.n_samples)})
        return new


class SelectStep(Step):
    """``select: ID``: keep the features a feature-selection partition selected."""

    kind: ClassVar[str] = "select"
    changes_data: ClassVar[bool] = True
    select: str = Field(description="Id of a variable-partition step that selects features.")

    def inputs(self) -> set[str]:
        return {self.select}

    def check(self, ctx: CheckContext) -> Produced:
        ctx.need(self.select, "select", ("partition",), "variables")
        return Produced("data")

    def run(self, ctx: RunContext) -> Any:
        part = ctx.outputs[self.select]
        if part.selected is None:
            raise PipelineError(f"step {self.key!r}: {self.select!r} is not a feature selection "
                                "(its partition has no 'selected' features).")
        new = ctx.data.select([int(i) for i in part.selected])
        ctx.note(self, {}, {"n_variables": float(new.n_variables)})
        return new

