"""Automatic parameters for a density partitioner: the labelling with the best DISCO."""

from __future__ import annotations

import itertools
from typing import Any, Literal

import numpy as np
from pydantic import Field

from macrocause.framework import Dataset, Params, Partition, Partitioner
from macrocause.framework.errors import ConfigError, DataValidationError
from macrocause.framework.progress import progress

EPS_QUANTILES = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98, 0.995)
MIN_CLUSTER_SIZES = (5, 10, 15, 25, 40, 60, 100)
MIN_CLUSTERS = 2  # a labelling with fewer clusters is degenerate
MAX_NOISE_FRACTION = 0.5  # ... and so is one that calls more than this fraction of the points noise
# rule "finest" (chosen by leave-one-dataset-out on shared/data/clustering, see the docs):
MAX_LARGEST_FRACTION = 0.9  # a labelling whose largest cluster holds more of the points is not admitted
DISCO_TOLERANCE = 0.1  # admitted labellings within this of the best DISCO compete on their number of clusters


class DiscoAutoParams(Params):
    partitioner: str = Field(
        "dbscan", min_length=1, description="Registered sample partitioner to tune (dbscan, hdbscan, cafe_dbscan, ...)."
    )
    grid: dict[str, list[Any]] | None = Field(
        None, description="Parameter -> values (their product is tried); None = an automatic grid from the data."
    )
    fixed: dict[str, Any] = Field(default_factory=dict, description="Parameters passed unchanged to every run.")
    min_points: int = Field(5, ge=1, description="min_points of the DISCO used to rank the labellings.")
    seed: int = Field(0, description="Passed to the partitioner when it takes a seed.")
    rule: Literal["finest", "structured", "disco"] = Field(
        "finest",
        description="'finest': among the non-degenerate labellings whose largest cluster holds at most 90% of the "
        "points, those within 0.1 of the best DISCO, the one with the most clusters; 'structured': best DISCO "
        "among the non-degenerate labellings (>= 2 clusters, at most half the points noise); 'disco': best "
        "DISCO over the whole grid (the paper's). Each falls back to the next when nothing is admitted.",
    )


class DiscoAuto(Partitioner):

    """Runs a density partitioner over a small grid and keeps the labelling with the best DISCO.

    Selection (``rule``): a labelling is *degenerate* when it has fewer than 2
    clusters or calls more than half of the points noise. ``"finest"`` (the default,
    chosen by leave-one-dataset-out on the shared clustering sets) admits the
    non-degenerate labellings whose largest cluster holds at most 90% of the points,
    keeps those within 0.1 of the best admitted DISCO, and picks the one with the
    most clusters (then the higher DISCO): DISCO favours merged clusters, and a
    near-best finer labelling was the better one on held-out sets. ``"structured"``
    keeps the best DISCO among the non-degenerate labellings; ``"disco"`` keeps the
    best DISCO over the whole grid (the paper's use, where one cluster with a few
    noise points can win). When a rule admits nothing it falls back to the next one.
    Ties go to the first grid point. No ground truth is used.

    The automatic grid (``grid=None``) comes from the partitioner's classmethod
    ``auto_grid(data) -> dict[str, list]`` when it has one; otherwise from its parameter names: ``eps`` over quantiles of the
    k-distance (k = the partitioner's ``min_samples``/``min_points``), or
    ``min_cluster_size`` over a few sizes below n / 2. DISCO's MST is built once
    and reused for every labelling.

    ``info`` holds the chosen partition's own info plus ``"chosen"`` (the
    parameters), ``"disco"`` (its DISCO) and ``"grid"`` (one record per grid
    point: ``params``, ``disco``, ``n_clusters``, ``n_noise``, ``degenerate`` and
    ``labels``, the labelling as an int array, -1 = noise; ``disco`` is NaN and
    ``labels`` None where the partitioner refused the parameters).

    References
    ----------
    Beer, Krieger, Weber, Ritzert, Assent, Plant. Internal evaluation of
    density-based clusterings with noise (DISCO). 2025.
    """

    name = "disco_auto"
    requires = ("dbscan",)
    axis = "samples"
    Params = DiscoAutoParams
    paper = "Beer, Krieger, Weber, Ritzert, Assent, Plant 2025 (DISCO)"

    def scale_invariance(self):
        """Invariant to one common scale when the grid is built from the data and no fixed
        parameter is a distance."""
        distance = {"eps", "cluster_selection_epsilon"}
        return "global" if self.params.grid is None and not distance & set(self.params.fixed) else None

    def check_data(self, data: Dataset) -> None:
        k = self.params.min_points
        if data.n_samples < k:
            raise DataValidationError(
                f"disco_auto needs at least min_points={k} samples, got {data.n_samples}."
            )

    def _inner_class(self):
        from macrocause.framework import registry

        cls = registry.get(self.params.partitioner)
        if not issubclass(cls, Partitioner) or cls.axis != "samples":
            raise ConfigError(
                f"disco_auto: {self.params.partitioner!r} is not a partitioner of samples; "
                f"choose one of {registry.names('partitioner')}."
            )
        if cls is type(self):
            raise ConfigError("disco_auto cannot tune itself.")
        return cls

    def grid_points(self, data: Dataset) -> list[dict[str, Any]]:
        """The parameter sets that will be tried (fixed parameters included)."""
        cls = self._inner_class()
        grid = self.params.grid
        if grid is None:
            grid = cls.auto_grid(data) if hasattr(cls, "auto_grid") else _default_grid(cls, data, self.params.fixed)
        if not grid or any(len(v) == 0 for v in grid.values()):
            raise ConfigError(f"disco_auto: empty grid {grid!r}; give at least one value per parameter.")
        unknown = set(grid) - set(cls.Params.model_fields)
        if unknown:
            raise ConfigError(
                f"disco_auto: {cls.name} has no parameter(s) {sorted(unknown)}; "
                f"it has {list(cls.Params.model_fields)}."
            )
        keys = list(grid)
        extra = {"seed": self.params.seed} if cls.is_stochastic() and "seed" not in self.params.fixed else {}
        return [
            {**self.params.fixed, **extra, **dict(zip(keys, vals))}
            for vals in itertools.product(*(grid[k] for k in keys))
        ]

    def _partition(self, data: Dataset) -> Partition:
        from macrocause.framework.errors import ConfigError as CfgErr

        from ._disco import disco_samples, prepare

        cls = self._inner_class()
        points = self.grid_points(data)
        prepared = prepare(data.X, self.params.min_points)
        records: list[dict[str, Any]] = []
        parts: list[Partition | None] = []
        for params in progress(points, f"disco_auto grid ({cls.name})"):
            try:
                part = cls(**params).partition(data)
            except (CfgErr, DataValidationError):
                records.append({"params": _plain(params), "disco": float("nan"), "n_clusters": 0, "n_noise": 0,
                                "degenerate": True, "labels": None})
                parts.append(None)
                continue
            value = float(disco_samples(data.X, part.labels, self.params.min_points, prepared).mean())
            n_noise = int(part.noise.sum())
            records.append({"params": _plain(params), "disco": value, "n_clusters": part.n_clusters,
                            "n_noise": n_noise, "degenerate": is_degenerate(part.n_clusters, n_noise, data.n_samples),
                            "labels": np.asarray(part.labels, dtype=np.int64)})
            parts.append(part)
        i = select(records, self.params.rule)
        if i is None:
            raise ConfigError(f"disco_auto: {cls.name} refused every grid point: {[r['params'] for r in records]}.")
        part, value = parts[i], records[i]["disco"]
        info = {**part.info, "partitioner": cls.name, "chosen": records[i]["params"], "disco": value, "grid": records}
        return Partition(part.labels, axis="samples", info=info)


def is_degenerate(n_clusters: int, n_noise: int, n: int) -> bool:
    """Fewer than ``MIN_CLUSTERS`` clusters, or more than ``MAX_NOISE_FRACTION`` of the n points noise."""
    return n_clusters < MIN_CLUSTERS or n_noise > MAX_NOISE_FRACTION * n


def largest_fraction(labels: np.ndarray) -> float:
    """Share of all points (noise included in the count) held by the largest cluster."""
    kept = labels[labels >= 0]
    return float(np.unique(kept, return_counts=True)[1].max() / labels.size) if kept.size else 0.0


def select(records: list[dict[str, Any]], rule: str = "finest") -> int | None:
    """Index of the chosen grid record (first of equal keys); None when every one was refused."""
    scored = [i for i, r in enumerate(records) if r["labels"] is not None]
    if rule in ("finest", "structured"):
        structured = [i for i in scored if not records[i]["degenerate"]]
        admitted = [i for i in structured if largest_fraction(records[i]["labels"]) <= MAX_LARGEST_FRACTION]
        if rule == "finest" and admitted:
            best = max(records[i]["disco"] for i in admitted)
            near = [i for i in admitted if records[i]["disco"] >= best - DISCO_TOLERANCE]
            return max(near, key=lambda i: (records[i]["n_clusters"], records[i]["disco"]))
        scored = structured or scored
    return max(scored, key=lambda i: records[i]["disco"], default=None)


def _plain(params: dict[str, Any]) -> dict[str, Any]:
    return {k: (v.item() if isinstance(v, np.generic) else v) for k, v in params.items()}


def _default_grid(cls, data: Dataset, fixed: dict[str, Any]) -> dict[str, list[Any]]:
    fields = cls.Params.model_fields
    if "eps" in fields:
        k = 5
        for key in ("min_samples", "min_points"):
            if key in fields:
                k = int(fixed.get(key, fields[key].get_default()) or 5)
                break
        return {"eps": k_distance_eps(data.X, k)}
    if "min_cluster_size" in fields:
        n = data.n_samples
        sizes = [s for s in MIN_CLUSTER_SIZES if s <= max(n // 2, 2)] or [2]
        return {"min_cluster_size": sizes}
    raise ConfigError(
        f"disco_auto has no automatic grid for {cls.name} (no eps or min_cluster_size parameter and no "
        "auto_grid classmethod); pass grid={param: [values]}."
    )


def k_distance_eps(X: np.ndarray, k: int, quantiles=EPS_QUANTILES) -> list[float]:
    """Distinct eps candidates: quantiles of each point's distance to its k-th nearest point
    (itself counted), the usual k-distance heuristic for DBSCAN."""
    from macrocause.framework.numeric import k_distance

    kd = k_distance(X, k)
    vals = np.unique(np.round(np.quantile(kd, quantiles), 12))
    vals = vals[vals > 0]
    if vals.size == 0:
        vals = np.array([1e-9])
    return [float(v) for v in vals]
