"""DISCO and DBCV: internal scores for density-based clusterings with noise."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from pydantic import Field

from macrocause.framework import Dataset, Evaluation, Evaluator, Metric, Params, Partition
from macrocause.framework.errors import DataValidationError
from macrocause.framework.memory import MemoryEstimate


class DiscoParams(Params):
    min_points: int = Field(
        5, ge=1, description="Core distance = distance to the min_points-th nearest point, itself counted."
    )
    backend: Literal["auto", "tree", "blocked", "dense"] = Field(
        "auto",
        description="'tree': MST by Boruvka over a KD-tree; 'blocked': Boruvka over BLAS blocks (O(n) memory, "
        "for high dimension); 'auto': chosen by the measured cost model; 'dense': the authors' O(n^2) "
        "computation (the reference). All give the same values.",
    )


class Disco(Evaluator):
    """DISCO: density-based internal score of a clustering with noise, in [-1, 1].

    Cluster points get the silhouette coefficient on dc-distances (minimax
    mutual-reachability path), noise points ``min(p_sparse, p_far)``, which
    rewards noise that lies in sparse regions and is not density-connected to a
    cluster. ``value`` is the mean over all points; ``pointwise`` the per-point
    values; ``metrics`` add ``disco_clusters`` and ``disco_noise`` (means over
    cluster and noise points, NaN when there are none).

    The values equal those of the authors' code to rounding, but are computed
    without any n x n matrix: the exact MST of mutual reachability gives every
    dc-distance as a single-linkage merge height, and one pass per cluster over its
    own subtree of merges yields the per-point sums and minima. The MST comes from
    Boruvka over a KD-tree in low dimension (about O(n log n)) or over blocked BLAS
    products in high dimension (O(n^2 d) through matrix products, each kept value
    recomputed exactly); memory O(n) either way.

    Parameters
    ----------
    min_points : int, default 5
        Core distance = distance to the ``min_points``-th nearest point, the
        point itself counted. The data must have at least ``min_points`` samples.
    backend : {"auto", "tree", "blocked", "dense"}, default "auto"
        How the MST is built; ``"auto"`` picks ``"tree"`` or ``"blocked"`` by a
        measured cost model in (n, d). ``"dense"`` is the authors' O(n^2)-memory
        computation, kept as the reference (refused past the memory budget).

    Notes
    -----
    Special cases, as in the authors' code: only noise scores -1 everywhere; one
    cluster without noise scores 0; with exactly one cluster plus noise, each
    noise point acts as a singleton cluster when the cluster points' silhouette
    is computed. A point alone in its cluster scores 0; 0/0 counts as 0.

    References
    ----------
    Beer, Krieger, Weber, Ritzert, Assent, Plant. Internal evaluation of
    density-based clusterings with noise (DISCO). 2025.
    """

    name = "disco"
    declares = {"disco": Metric.higher(-1, 1), "disco_clusters": Metric.higher(-1, 1),
                "disco_noise": Metric.higher(-1, 1)}
    scale_invariant = "global"
    Params = DiscoParams
    paper = "Beer, Krieger, Weber, Ritzert, Assent, Plant 2025 (DISCO)"
    accepts = ("partition",)

    def check_data(self, data: Dataset) -> None:
        k = self.params.min_points
        if data.n_samples < k:
            raise DataValidationError(
                f"disco needs at least min_points={k} samples (the core distance is the distance to "
                f"the min_points-th nearest point, itself counted); got {data.n_samples}. "
                "Lower min_points or pass more samples."
            )

    def memory_estimate(self, data: Dataset) -> MemoryEstimate | None:
        """Only the dense reference grows faster than n: about 24 n^2 bytes (measured)."""
        if self.params.backend != "dense":
            return None
        from ._dense import DENSE_BYTES_PER_N2

        n = data.n_samples
        return MemoryEstimate(DENSE_BYTES_PER_N2 * float(n) * n, f"about {DENSE_BYTES_PER_N2} n^2 bytes (n x n matrices)",
                              "use backend='auto' (O(n) memory, same values)")

    def _evaluate(self, data: Dataset, result: Any, truth: Any) -> Evaluation:
        from ._disco import disco_samples

        _require_sample_partition(self.name, result)
        values = disco_samples(data.X, result.labels, self.params.min_points, backend=self.params.backend)
        return _disco_evaluation(values, result.noise)

    def _evaluate_many(self, data: Dataset, results: list[Any], truth: Any) -> list[Evaluation]:
        """Several labellings share the work that does not depend on the labels (core distances,
        the mutual-reachability MST and its dendrogram): one preparation, the same values."""
        from ._disco import disco_samples, prepare

        for r in results:
            _require_sample_partition(self.name, r)
        p = self.params
        shared = prepare(data.X, p.min_points, p.backend) if p.backend != "dense" and results else None
        return [_disco_evaluation(disco_samples(data.X, r.labels, p.min_points, shared, p.backend), r.noise)
                for r in results]


def _disco_evaluation(values: np.ndarray, noise: np.ndarray) -> Evaluation:
    metrics = {
        "disco_clusters": float(values[~noise].mean()) if (~noise).any() else float("nan"),
        "disco_noise": float(values[noise].mean()) if noise.any() else float("nan"),
    }
    return Evaluation(float(values.mean()), metrics, values)


def _require_sample_partition(who: str, result: Any) -> None:
    if not isinstance(result, Partition) or result.axis != "samples":
        raise DataValidationError(f"{who} rates a partition of samples, got {result!r}.")


class DBCVParams(Params):
    pass


class DBCV(Evaluator):
    """DBCV: density-based clustering validation (Moulavi et al. 2014), MATLAB-code variant.

    Follows the authors' MATLAB code (``pajaskowiak/dbcv`` ``dbcv.m``) exactly:
    **squared** Euclidean distances, the all-points core distance (exponent = number
    of features) over each cluster's own points, Prim's MST from each cluster's first
    point (its tie rules decide which MST, and so which leaves are dropped), label -1
    as noise, singleton clusters turned into noise, fewer than two clusters scoring 0,
    and the weighted sum divided by the total number of points, noise included.
    Other variants (plain Euclidean, scipy's MST) give other values; see the docs.

    O(n^2) time, O(n) memory (no distance matrix is stored).

    References
    ----------
    Moulavi, Jaskowiak, Campello, Zimek, Sander. Density-based clustering
    validation. SIAM SDM 2014.
    """

    name = "dbcv"
    declares = {"dbcv": Metric.higher(-1, 1)}
    scale_invariant = "global"
    Params = DBCVParams
    paper = "Moulavi et al., SDM 2014"
    accepts = ("partition",)

    def _evaluate(self, data: Dataset, result: Any, truth: Any) -> Evaluation:
        from ._dbcv_kernels import dbcv_matlab

        _require_sample_partition(self.name, result)
        labels = result.labels
        ids, counts = np.unique(labels, return_counts=True)
        kept = ids[(ids != -1) & (counts > 1)]
        if kept.size < 2:
            return Evaluation(0.0)
        mask = np.isin(labels, kept)
        codes = np.searchsorted(kept, labels[mask]).astype(np.int64)
        X = np.ascontiguousarray(data.X[mask], dtype=np.float64)
        return Evaluation(float(dbcv_matlab(X, codes, int(kept.size), int(labels.size))))
