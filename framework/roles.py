"""The four roles every method plays, on a common :class:`Plugin` base.

A plugin is built only from its validated parameters (scikit-learn's rule: the
constructor validates and stores, nothing else). Each role has one public verb
that validates its input, calls the subclass's ``_verb`` and checks the
output, so every plugin rejects bad input the same way.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, Literal

from .data import Dataset, as_dataset
from .errors import ConfigError, DataValidationError
from .evaluation import Evaluation, Metric, checked_inputs, meaning_of
from .graph import CausalGraph
from .memory import MemoryEstimate, check_budget
from .params import Params, validate_params
from .partition import Partition
from .scaling import ScaleInvariance, rescale_for

__all__ = [
    "Plugin", "Partitioner", "Scorer", "DecomposableScorer", "Searcher", "Evaluator", "DataSource",
    "Evaluation", "Metric", "Example", "Role", "ROLES", "set_name_resolver",
]


class Role(StrEnum):
    """The role a plugin plays; the values are the role names of ``registry.names(role=...)``."""

    PARTITIONER = "partitioner"
    SCORER = "scorer"
    SEARCHER = "searcher"
    EVALUATOR = "evaluator"
    DATA = "data"


ROLES = (Role.PARTITIONER, Role.SCORER, Role.SEARCHER, Role.EVALUATOR)  # the method roles (no data sources)

_resolve: Callable[[str], Plugin] | None = None


def set_name_resolver(resolve: Callable[[str], Plugin] | None) -> None:
    """Install how a plugin name given to a verb (``search(ds, scorer="cic")``) becomes a
    plugin; the registry installs ``registry.create``, so roles know nothing of it."""
    global _resolve
    _resolve = resolve


def _by_name(name: str, who: str) -> Plugin:
    if _resolve is None:
        raise ConfigError(f"{who}: cannot resolve the plugin name {name!r}: import macrocause.framework.registry first.")
    return _resolve(name)


@dataclass(frozen=True)
class Example:
    """A small, fast input on which a plugin runs, for the conformance checks and docs.

    ``data`` is what the plugin's verb receives; ``result``/``truth`` are for
    evaluators; ``scorer``/``init`` for searchers; ``graph`` for scorers.
    """

    params: dict[str, Any]
    data: Dataset
    result: Any = None
    truth: Any = None
    scorer: Any = None
    init: Any = None
    graph: Any = None


class Plugin(ABC):
    """Base of every plugin.

    Subclasses set the class attributes ``name`` (flat, unique: ``"dbscan"``),
    ``Params`` (a :class:`~macrocause.framework.params.Params` model) and optionally
    ``paper`` (a citation) and ``requires`` (names of the plugins it creates by
    name, so the registry can tell when one is missing). Parameters are passed as keywords and validated at
    once; bad ones raise :class:`~macrocause.framework.errors.ConfigError` (a ValueError)
    naming the parameter and what is allowed.
    """

    name: ClassVar[str]
    role: ClassVar[Role]
    Params: ClassVar[type[Params]] = Params
    paper: ClassVar[str | None] = None
    baseline: ClassVar[bool] = False  # a reference the report's paired tests compare every method with
    requires: ClassVar[tuple[str, ...]] = ()
    scale_invariant: ClassVar[ScaleInvariance] = None

    def __init__(self, **params: Any) -> None:
        self.params = validate_params(type(self).Params, self.name, params)

    # -- parameters -------------------------------------------------------------
    def get_params(self) -> dict[str, Any]:
        """All parameters as a dict (defaults included)."""
        return self.params.model_dump()

    def with_params(self, **changes: Any):
        """A new plugin of the same kind with some parameters changed."""
        return type(self)(**{**self.params.model_dump(exclude_unset=True), **changes})

    @classmethod
    def summary(cls) -> str:
        """First line of the class docstring."""
        doc = inspect.getdoc(cls) or ""
        return doc.strip().splitlines()[0] if doc.strip() else ""

    @classmethod
    def is_stochastic(cls) -> bool:
        """Whether the plugin takes a ``seed``."""
        return "seed" in cls.Params.model_fields

    def __repr__(self) -> str:
        shown = self.params.model_dump(exclude_defaults=True)
        args = ", ".join(f"{k}={v!r}" for k, v in shown.items())
        return f"{type(self).__name__}({args})"

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.params == other.params  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__qualname__, tuple(sorted(map(repr, self.get_params().items())))))

    def __reduce__(self):
        return (_rebuild_plugin, (type(self), self.params.model_dump(exclude_unset=True)))

    @classmethod
    def example(cls) -> Example | None:
        """A small input this plugin runs on in well under a second, for the conformance checks;
        None (the default) lets the test kit pick one by role
        (:func:`macrocause.framework.testing.examples.example_of`)."""
        return None

    def _check_data(self, data: Any) -> Dataset:
        ds = rescale_for(as_dataset(data, self.name), self.name, self.scale_invariance())
        self.check_data(ds)
        check_budget(self.name, self.memory_estimate(ds))
        return ds

    def scale_invariance(self) -> ScaleInvariance:
        """Whether the result is unchanged when all columns (``"global"``) or each column
        (``"column"``) is multiplied by a constant; data of extreme magnitude are then
        rescaled exactly (:mod:`macrocause.framework.scaling`), else refused. Defaults to
        :attr:`scale_invariant`; override when it depends on the parameters."""
        return self.scale_invariant

    def memory_estimate(self, data: Dataset) -> MemoryEstimate | None:
        """Peak-memory estimate on *data* for methods whose memory grows faster than n
        (override); None (the default) means linear, never refused."""
        return None

    def check_data(self, data: Dataset) -> None:
        """Raise DataValidationError if *data* is unfit; override to add requirements."""


def _rebuild_plugin(cls: type[Plugin], params: dict[str, Any]) -> Plugin:
    return cls(**params)


class Partitioner(Plugin):
    """Learns a partition of the samples (``axis="samples"``) or of the variables
    (``axis="variables"``) of a dataset."""

    role: ClassVar[Role] = Role.PARTITIONER
    axis: ClassVar[Literal["samples", "variables"]] = "samples"
    needs_target: ClassVar[bool] = False

    def partition(self, data: Dataset | Any) -> Partition:
        """Partition *data*; returns a :class:`Partition` over samples or variables."""
        ds = self._check_data(data)
        if self.needs_target:
            ds.check(self.name, need_target=True)
        part = self._partition(ds)
        expected = ds.n_samples if self.axis == "samples" else ds.n_variables
        if part.axis != self.axis or len(part) != expected:
            raise RuntimeError(
                f"{self.name} returned a {part.axis} partition of length {len(part)}; "
                f"expected {self.axis} of length {expected} (a bug in the plugin)."
            )
        if self.axis == "variables" and part.names is None:
            part = Partition(part.labels, axis="variables", info=part.info, names=ds.names)
        return part

    @abstractmethod
    def _partition(self, data: Dataset) -> Partition:
        """Compute the partition of a validated dataset."""


class Scorer(Plugin):
    """Rates a causal graph against data; higher is better."""

    role: ClassVar[Role] = Role.SCORER

    def score(self, data: Dataset | Any, graph: CausalGraph) -> float:
        """Score of a graph whose edges are all directed."""
        ds = self._check_data(data)
        self._check_graph(ds, graph)
        return float(self._score(ds, graph))

    @abstractmethod
    def _score(self, data: Dataset, graph: CausalGraph) -> float:
        """Score of a validated, fully directed graph."""

    def _check_graph(self, data: Dataset, graph: CausalGraph) -> None:
        if not isinstance(graph, CausalGraph):
            raise DataValidationError(f"{self.name}.score expects a CausalGraph, got {type(graph).__name__}.")
        if not graph.is_dag:
            raise DataValidationError(
                f"{self.name}.score needs a fully directed graph; this one has "
                f"{len(graph.undirected)} undirected and {len(graph.bidirected)} bidirected edge(s)."
            )
        missing = set(graph.variables) - set(data.names)
        if missing:
            raise DataValidationError(
                f"{self.name}.score: graph variables {sorted(missing)} are not in the data."
            )


class DecomposableScorer(Scorer):
    """A scorer whose score is a sum of local scores, one per node (a cluster of variables) given
    its parent clusters, plus :meth:`structure_score` (0 unless overridden).

    Subclasses implement :meth:`_local_score`. Searchers that climb one edge at a time
    (``cic_greedy``, ``greedy_dag``) accept any DecomposableScorer: after a move they
    re-score only the nodes whose parents changed.
    """

    def local_score(
        self, data: Dataset | Any, cluster: Sequence[str] | frozenset[str], parents: Sequence[Sequence[str]]
    ) -> float:
        """Score contribution of one node (a cluster of variables) given its parent clusters."""
        ds = self._check_data(data)
        return float(self._local_score(ds, frozenset(cluster), [frozenset(p) for p in parents]))

    @abstractmethod
    def _local_score(self, data: Dataset, cluster: frozenset[str], parents: list[frozenset[str]]) -> float:
        """Local score of *cluster* given its *parents* on validated data."""

    def structure_score(self, data: Dataset, graph: CausalGraph) -> float:
        """The part of the score that depends on the whole graph (e.g. a code length of the partition)."""
        return 0.0

    def _score(self, data: Dataset, graph: CausalGraph) -> float:
        local = sum(
            self._local_score(data, graph.clusters[i], [graph.clusters[p] for p in graph.parents(i)])
            for i in range(graph.n_nodes)
        )
        return local + self.structure_score(data, graph)


class Searcher(Plugin):
    """Finds a causal graph from data, usually by asking a :class:`Scorer`."""

    role: ClassVar[Role] = Role.SEARCHER
    default_scorer: ClassVar[str | None] = None
    uses_scorer: ClassVar[bool] = False
    init_accepts: ClassVar[tuple[Literal["variables", "graph"], ...]] = ()
    uses_init: ClassVar[bool] = False  # older flag: True means init_accepts = ("variables", "graph")

    @classmethod
    def init_kinds(cls) -> tuple[str, ...]:
        """What ``init`` may be: ``"variables"`` (a partition of the variables) and/or ``"graph"``."""
        return cls.init_accepts or (("variables", "graph") if cls.uses_init else ())

    def search(
        self,
        data: Dataset | Any,
        scorer: Scorer | str | None = None,
        init: Partition | CausalGraph | None = None,
    ) -> CausalGraph:
        """Search a graph. *scorer* may be a Scorer or a registered name; *init* a
        variable partition (initial clusters) or a graph to start from."""
        ds = self._check_data(data)
        need = self.sample_minimum(ds)
        if ds.n_samples < need:
            raise DataValidationError(
                f"{self.name} needs at least {need} samples to score graphs over these {ds.n_variables} "
                f"variables, got {ds.n_samples}."
            )
        if scorer is not None and not self.uses_scorer:
            raise ConfigError(f"{self.name} does not use a scorer; got scorer={scorer!r}.")
        if scorer is None and self.default_scorer is not None:
            scorer = self.default_scorer
        if isinstance(scorer, str):
            scorer = _by_name(scorer, self.name)
            if not isinstance(scorer, Scorer):
                raise ConfigError(f"{self.name}: {scorer.name!r} is a {scorer.role}, not a scorer.")
        kinds = self.init_kinds()
        if init is not None and not kinds:
            raise ConfigError(f"{self.name} does not take an initial partition or graph.")
        if init is not None and ("graph" if isinstance(init, CausalGraph) else "variables") not in kinds:
            wanted = " or ".join("a CausalGraph" if k == "graph" else "a partition of variables" for k in kinds)
            got = f"a {init.axis} partition" if isinstance(init, Partition) else type(init).__name__
            raise DataValidationError(f"{self.name}: init must be {wanted}, got {got}.")
        if isinstance(init, Partition):
            if init.axis != "variables":
                raise DataValidationError(
                    f"{self.name}: init must be a partition of variables, got a {init.axis} partition."
                )
            if len(init) != ds.n_variables:
                raise DataValidationError(
                    f"{self.name}: init partitions {len(init)} variables; the data has {ds.n_variables}."
                )
            if init.names is None:
                init = Partition(init.labels, axis="variables", info=init.info, names=ds.names)
        graph = self._search(ds, scorer, init)
        if not isinstance(graph, CausalGraph):
            raise RuntimeError(f"{self.name} returned {type(graph).__name__}, not a CausalGraph (a bug).")
        return graph

    def sample_minimum(self, data: Dataset) -> int:
        """The fewest samples with which this searcher can score every graph it may visit on
        *data* (override; e.g. a Gaussian BIC with p parents fits p + 1 coefficients and a variance,
        so it needs p + 2). :meth:`search` refuses fewer."""
        return 1

    @abstractmethod
    def _search(self, data: Dataset, scorer: Scorer | None, init: Partition | CausalGraph | None) -> CausalGraph:
        """Search a graph on validated data."""


class Evaluator(Plugin):
    """Rates a result (partition or graph), with or without ground truth.

    ``declares`` says what each returned value means (:class:`~macrocause.framework.evaluation.Metric`):
    the headline under the evaluator's name and every sub-metric, by name or by an fnmatch
    pattern (``"acc@*"``). A headline left out is ``higher`` or ``lower`` by
    ``higher_is_better``; the conformance checks fail an evaluator returning an undeclared value.
    """

    role: ClassVar[Role] = Role.EVALUATOR
    accepts: ClassVar[tuple[str, ...]] = ("partition",)
    needs_truth: ClassVar[bool] = False
    higher_is_better: ClassVar[bool] = True
    declares: ClassVar[dict[str, Metric]] = {}

    @classmethod
    def meaning(cls, name: str) -> Metric | None:
        """The declared meaning of the returned value *name* (None when undeclared)."""
        found = meaning_of(cls.declares, name)
        if found is None and name == cls.name:
            return Metric("higher" if cls.higher_is_better else "lower")
        return found

    def evaluate(
        self,
        data: Dataset | Any,
        result: Partition | CausalGraph,
        truth: Partition | CausalGraph | Any = None,
    ) -> Evaluation:
        """Rate *result*; *truth* is required by external metrics (NMI, SHD, ...)."""
        ds = self._check_data(data)
        result, truth = self._checked(ds, result, truth)
        return self._named(self._evaluate(ds, result, truth))

    def evaluate_many(
        self,
        data: Dataset | Any,
        results: Sequence[Partition | CausalGraph],
        truth: Partition | CausalGraph | Any = None,
    ) -> list[Evaluation]:
        """:meth:`evaluate` of several results on the same data (and truth): the data are checked
        once, and an evaluator whose work partly depends on the data alone shares it
        (``_evaluate_many``); the values are those of :meth:`evaluate` on each."""
        ds = self._check_data(data)
        checked = [self._checked(ds, r, truth) for r in results]
        evs = self._evaluate_many(ds, [r for r, _ in checked], checked[0][1] if checked else truth)
        return [self._named(ev) for ev in evs]

    def _evaluate_many(self, data: Dataset, results: list[Any], truth: Any) -> list[Evaluation]:
        """Rate several validated results of the same data (default: one :meth:`_evaluate` each)."""
        return [self._evaluate(data, r, truth) for r in results]

    def _named(self, ev: Evaluation) -> Evaluation:
        metrics = {self.name: float(ev.value), **{k: float(v) for k, v in ev.metrics.items()}}
        return Evaluation(float(ev.value), metrics, ev.pointwise)

    def _checked(self, ds: Dataset, result: Any, truth: Any) -> tuple[Any, Any]:
        return checked_inputs(self.name, self.accepts, self.needs_truth, ds, result, truth)

    @abstractmethod
    def _evaluate(self, data: Dataset, result: Any, truth: Any) -> Evaluation:
        """Rate a validated result."""


class DataSource(Plugin):
    """Loads or simulates a :class:`Dataset` (with ground truth where known)."""

    role: ClassVar[Role] = Role.DATA

    def load(self) -> Dataset:
        """Return the dataset described by this source's parameters."""
        ds = self._load()
        if not isinstance(ds, Dataset):
            raise RuntimeError(f"{self.name} returned {type(ds).__name__}, not a Dataset (a bug).")
        return ds

    @abstractmethod
    def _load(self) -> Dataset:
        """Build the dataset."""
