"""The :class:`Pipeline`: an immutable, validated list of steps with its data and seed."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from .. import registry
from ..csv_data import load_csv
from ..data import Dataset
from ..errors import PipelineError
from ..paths import yaml_folder
from ..roles import Role
from .run import PipelineResult, RunContext, run_steps
from .spec import CheckContext, DataSpec, Produced, Step, create_plugin, parse_step
from .yaml_io import check_kind, format_validation_error, load_yaml, parse_sets, read_yaml_source

__all__ = ["Pipeline", "load_dataset", "parse_data", "data_option", "NO_DATA"]

NO_DATA = ("this pipeline has no data: run it through a grid (`macrocause compare examples/grid.yaml`) "
           "or give `--data SOURCE`")


class _PipelineSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str | None = None
    data: DataSpec | None = None
    seed: int = 0
    steps: list[Any]
    sweep: dict[str, list[Any]] | None = None


def parse_data(d: DataSpec | Mapping[str, Any]) -> DataSpec:
    """A :class:`DataSpec` from a mapping; errors list the allowed keys."""
    if isinstance(d, DataSpec):
        return d
    try:
        return DataSpec.model_validate(d)
    except ValidationError as exc:
        raise PipelineError(format_validation_error(exc, "data", DataSpec)) from None


def data_option(text: str) -> DataSpec:
    """``SOURCE[:k=v,...]`` (the ``--data`` option; values read as YAML) -> a :class:`DataSpec`.

    >>> data_option("discrete_bn:n_variables=6,n_samples=500").params
    {'n_variables': 6, 'n_samples': 500}
    """
    source, _, rest = text.partition(":")
    items, depth, cur = [], 0, ""
    for ch in rest:  # split on commas outside brackets: features=[a, b],n=3
        depth += (ch in "[{") - (ch in "]}")
        if ch == "," and depth == 0:
            items.append(cur)
            cur = ""
        else:
            cur += ch
    items.append(cur)
    sets = parse_sets(i for i in items if i.strip()) if rest.strip() else {}
    if not source.strip():
        raise PipelineError(f"--data {text!r}: give a data source name, e.g. discrete_bn:n_variables=6.")
    return parse_data({"source": source.strip(), "params": sets})


def load_dataset(spec: DataSpec | Mapping[str, Any], base: Path | None = None) -> Dataset:
    """Load the dataset a :class:`DataSpec` describes.

    A relative file path is looked for in *base* (the YAML file's folder), then in the working
    directory, then in ``MACROCAUSE_DATA`` (:mod:`macrocause.framework.paths`); ``{csv: FILE, ...}`` reads as the
    ``csv`` source does (:func:`macrocause.framework.csv_data.load_csv`).
    """
    spec = parse_data(spec)
    with yaml_folder(base):
        if spec.csv is not None:
            shown = {"target": spec.target, "labels": spec.labels, "noise": spec.noise}
            return load_csv(spec.csv, **{k: v for k, v in shown.items() if v is not None})
        return registry.load_data(spec.source, **spec.params)


def read_pipeline(source: str | Path) -> tuple[Any, Path | None]:
    """A pipeline's YAML (a file path or YAML text) as read, before validation, named after its
    file when it names itself nothing, and the folder its relative paths refer to."""
    text, base, name = read_yaml_source(source)
    d = load_yaml(text, name)
    check_kind(d, name, "pipeline")
    if isinstance(d, dict) and "name" not in d and base is not None:
        d = {**d, "name": Path(str(source)).stem}
    return d, base


class Pipeline:
    """A validated list of steps, with the data it runs on and a seed. Immutable: the
    ``with_*`` methods return new pipelines.

    Parameters
    ----------
    steps : list of Step or dict
    data : DataSpec or dict, optional
        Where the data comes from; may be left out and given to :meth:`run`.
    seed : int
        Given as ``seed`` to every stochastic plugin (and data source) whose
        parameters do not set one.
    name : str, optional
    sweep : dict, optional
        ``{"step_id.param": [values...]}``: a grid kept apart from the defaults;
        :meth:`expand` yields one pipeline per combination.
    base : Path, optional
        Folder that relative CSV paths refer to (the YAML file's folder).

    Examples
    --------
    >>> p = Pipeline.from_yaml('''
    ... data: {source: discrete_bn, params: {n_variables: 5, n_samples: 300}}
    ... steps:
    ...   - {id: graph, search: pc, params: {alpha: 0.05}}
    ...   - {evaluate: [shd], on: graph}
    ... ''')
    >>> Pipeline.from_yaml(p.to_yaml()) == p
    True
    """

    __slots__ = ("steps", "data", "seed", "name", "sweep", "base")

    def __init__(
        self,
        steps: list[Step | Mapping[str, Any]],
        data: DataSpec | Mapping[str, Any] | None = None,
        seed: int = 0,
        name: str | None = None,
        sweep: Mapping[str, list[Any]] | None = None,
        base: Path | None = None,
        *,
        _checked: tuple[bool, bool] = (False, False),
    ) -> None:
        raw = {"steps": list(steps), "seed": seed, "name": name, "sweep": sweep,
               "data": data.model_dump(exclude_defaults=True) if isinstance(data, DataSpec) else data}
        try:
            spec = _PipelineSpec.model_validate(raw)
        except ValidationError as exc:
            raise PipelineError(format_validation_error(exc, "pipeline", _PipelineSpec)) from None
        put = object.__setattr__
        put(self, "steps", tuple(parse_step(s, i) for i, s in enumerate(spec.steps)))
        put(self, "data", spec.data)
        put(self, "seed", spec.seed)
        put(self, "name", spec.name or "pipeline")
        put(self, "sweep", dict(spec.sweep or {}))
        put(self, "base", base)
        steps_ok, data_ok = _checked
        if not steps_ok:
            self._check_steps()
        if not data_ok and self.data is not None and self.data.source is not None:
            create_plugin(self.data.source, self.data.params, Role.DATA, "data", self.seed)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a Pipeline is immutable; use with_data/with_seed/with_overrides, not .{name} =")

    def __reduce__(self):
        # validated once: a pipeline sent to a worker is rebuilt without checking it again
        return (_rebuild, (self.steps, self.data, self.seed, self.name, self.sweep, self.base))

    def _check_steps(self) -> None:
        """Everything that can be checked without data: plugins exist and have the step's role,
        parameters validate, ids are unique, inputs name earlier steps of the right kind and axis."""
        if not self.steps:
            raise PipelineError("The pipeline has no steps.")
        produced: dict[str, Produced] = {}
        for i, step in enumerate(self.steps):
            ctx = CheckContext(produced, self.seed, f"step {i + 1} ({step.key!r})")
            if step.key in produced:
                raise PipelineError(f"{ctx.where}: the id {step.key!r} is used twice; give each step a unique 'id'.")
            produced[step.key] = step.check(ctx)

    def _replace(self, **changes: Any) -> Pipeline:
        kw = {"steps": self.steps, "data": self.data, "seed": self.seed, "name": self.name,
              "sweep": self.sweep, "base": self.base}
        kw.update(changes)
        checked = ("steps" not in changes and "seed" not in changes, "data" not in changes and "seed" not in changes)
        return Pipeline(**kw, _checked=checked)

    # -- (de)serialisation ------------------------------------------------------
    @classmethod
    def from_dict(cls, d: Mapping[str, Any], base: Path | None = None) -> Pipeline:
        if not isinstance(d, Mapping):
            raise PipelineError(f"A pipeline must be a mapping with 'steps', got {type(d).__name__}.")
        try:
            spec = _PipelineSpec.model_validate(d)
        except ValidationError as exc:
            raise PipelineError(format_validation_error(exc, "pipeline", _PipelineSpec)) from None
        return cls(spec.steps, spec.data, spec.seed, spec.name, spec.sweep, base=base)

    @classmethod
    def from_yaml(cls, source: str | Path) -> Pipeline:
        """From a YAML file path or YAML text."""
        return cls.from_dict(*read_pipeline(source))

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name}
        if self.data is not None:
            d["data"] = self.data.model_dump(exclude_defaults=True)
        d["seed"] = self.seed
        d["steps"] = [s.model_dump(exclude_defaults=True) for s in self.steps]
        if self.sweep:
            d["sweep"] = self.sweep
        return d

    def to_yaml(self) -> str:
        import yaml

        return yaml.safe_dump(self.to_dict(), sort_keys=False, default_flow_style=None)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Pipeline) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Pipeline({self.name!r}, {len(self.steps)} steps)"

    def with_data(self, data: DataSpec | Mapping[str, Any] | None, base: Path | None = None) -> Pipeline:
        return self._replace(data=None if data is None else parse_data(data), base=base or self.base)

    def with_seed(self, seed: int) -> Pipeline:
        return self._replace(seed=seed)

    def with_overrides(self, overrides: Mapping[str, Any]) -> Pipeline:
        """A copy with ``{"step_id.param": value}`` set (and no sweep)."""
        steps = list(self.steps)
        ids = [s.key for s in steps]
        for path, value in overrides.items():
            sid, _, param = str(path).partition(".")
            if not param or sid not in ids:
                raise PipelineError(f"Override {path!r} must be 'step_id.param' with a step id among {ids}.")
            i = ids.index(sid)
            if "params" not in type(steps[i]).model_fields:
                raise PipelineError(f"Override {path!r}: a {steps[i].kind} step has no parameters.")
            steps[i] = steps[i].model_copy(update={"params": {**steps[i].params, param: value}})
        return self._replace(steps=steps, sweep=None)

    def expand(self) -> list[Pipeline]:
        """One pipeline per combination of the ``sweep`` grid (just this one without a sweep)."""
        if not self.sweep:
            return [self]
        keys = list(self.sweep)
        out = []
        for values in itertools.product(*(self.sweep[k] for k in keys)):
            combo = dict(zip(keys, values))
            p = self.with_overrides(combo)
            out.append(p._replace(name=self.name + "[" + ",".join(f"{k}={v}" for k, v in combo.items()) + "]"))
        return out

    # -- running ------------------------------------------------------------------
    def run(
        self,
        data: Dataset | DataSpec | Mapping[str, Any] | None = None,
        seed: int | None = None,
        *,
        stop_on_error: bool = True,
    ) -> PipelineResult:
        """Run the steps in order and return their outputs and records.

        Parameters
        ----------
        data : Dataset, DataSpec or dict, optional
            Overrides the pipeline's ``data``.
        seed : int, optional
            Overrides the pipeline's ``seed``.
        stop_on_error : bool
            Raise at the first failing step (default); otherwise record the failure
            and skip the steps that depend on it.
        """
        seed = self.seed if seed is None else int(seed)
        ds, label, origin = self.load(data, seed)
        return self.run_loaded(ds, label, origin, seed, stop_on_error=stop_on_error)

    def load(self, data: Dataset | DataSpec | Mapping[str, Any] | None = None,
             seed: int | None = None) -> tuple[Dataset, str, str]:
        """The dataset a run would use (the pipeline's data unless *data* overrides it), its
        label and where it came from; a stochastic source gets *seed* unless it sets one."""
        seed = self.seed if seed is None else int(seed)
        if isinstance(data, Dataset):
            return data, data.name or "data", "the dataset given"
        spec = data if data is not None else self.data
        if spec is None:
            raise PipelineError(f"{NO_DATA}.")
        spec = parse_data(spec)
        if spec.source is not None and registry.get(spec.source).is_stochastic() and "seed" not in spec.params:
            spec = spec.model_copy(update={"params": {**spec.params, "seed": seed}})
        return load_dataset(spec, self.base), spec.label(), spec.source or Path(str(spec.csv)).name

    def run_loaded(self, ds: Dataset, label: str, origin: str, seed: int, *,
                   stop_on_error: bool = True, release_memory: bool = False) -> PipelineResult:
        """Run the steps on an already loaded dataset (see :meth:`load`); *release_memory*:
        :attr:`RunContext.release_memory`."""
        ctx = run_steps(list(self.steps), RunContext(ds, seed, origin, release_memory=release_memory), stop_on_error)
        return PipelineResult(self.name, label, seed, ctx.outputs, ctx.records, ctx.data)


def _rebuild(steps, data, seed, name, sweep, base) -> Pipeline:
    return Pipeline(steps, data, seed, name, sweep, base, _checked=(True, True))
