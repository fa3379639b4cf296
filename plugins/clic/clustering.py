"""CLIC: clustering with an independence criterion (Sgouritsa et al. 2013, Algorithm 1)."""

from __future__ import annotations

from typing import Annotated, Literal

import numpy as np
from pydantic import Field

from macrocause.framework import Dataset, Params, Partition, Partitioner
from macrocause.framework.errors import DataValidationError

PAPER = "Sgouritsa, Janzing, Peters, Schoelkopf, UAI 2013"
UNABLE = "unable to find appropriate clusters"


class CLICParams(Params):
    n_components: int | Literal["auto"] = Field(
        "auto", description="Number of clusters m, or 'auto' for the kernel rank estimate."
    )
    c: int = Field(1, ge=1, le=4, description="Points per greedy move (m**c assignments tried).")
    max_iter: int = Field(7, ge=1, description="Maximum number of iterations.")
    alpha: float = Field(0.05, gt=0, lt=1, description="Level of the final independence test per cluster.")
    min_cluster_size: int = Field(10, ge=6, description="No move may leave a cluster smaller than this.")
    init: Literal["gmm_em", "random", "kmeans", "best"] = Field(
        "gmm_em",
        description="Start: Gaussian-mixture EM (5 restarts), 'random' (the paper), k-means, or 'best' = "
        "whichever of k-means and EM has the smaller objective.",
    )
    moves: Literal["best", "sweep"] = Field(
        "best",
        description="'sweep' (the paper): visit every set of c points in random order and give it its best "
        "assignment; 'best': move the single point whose move lowers the objective most, one at a time.",
    )
    stop: Literal["independent", "converged"] = Field(
        "independent",
        description="'independent' (the paper): stop once every cluster passes the test; 'converged': "
        "keep lowering the objective until no point moves or max_iter.",
    )
    kernel: Literal["auto", "exact", "low_rank"] = Field(
        "auto", description="Scores of candidate moves (moves='best'): exact (O(N n d) per scan), low_rank "
        "(Nystrom features from pivoted incomplete Cholesky, checked exactly before a move), or auto "
        "(exact up to 3,000 samples).")
    tol: float = Field(1e-3, gt=0, lt=1, description="low_rank: residual trace of each cluster's Gram <= tol * n.")
    max_rank: int = Field(200, ge=1, description="low_rank: at most this many columns per factor.")
    moves_per_scan: Annotated[int, Field(ge=1)] | Literal["auto"] = Field(
        "auto", description="moves='best': candidate moves applied per scan (best first, each checked exactly); "
        "'auto' = 1 with exact scores, max(1, budget // 10) with low-rank scores.")
    seed: int = Field(0, description="Random seed (initial assignment, move order).")


class CLIC(Partitioner):
    """CLIC: clusters the samples so that the variables are mutually independent within each cluster.

    Starting from an assignment into m clusters, each iteration visits the
    points in random sets of ``c`` and gives each set the assignment that
    minimises ``-sum_c log p_c``, where ``p_c`` is the Bonferroni-corrected
    smallest p-value of the sequential HSIC tests X1 vs (X2..Xd), X2 vs
    (X3..Xd), ... within cluster c (gamma approximation). Bandwidths are
    re-estimated per cluster and variable (median rule) at the start of each
    iteration; within an iteration the test statistics are running sums that a
    moved point updates in O(n d). Stops when every cluster passes the test at
    ``alpha`` (``stop="independent"``, the paper), when nothing moves, or after
    ``max_iter`` iterations.

    ``info``: ``rank`` (m used), ``rank_source`` ("estimated" or "given"),
    ``rank_votes`` (per-split ranks when estimated), ``independent`` (bool),
    ``pvalues`` (per cluster), ``status`` ("ok" or "unable to find appropriate
    clusters"), ``iterations``, ``moves`` (points moved in all), ``objective`` (per
    iteration), ``bandwidths``,
    ``init_objectives`` (per candidate start when ``init="best"``), ``kernel`` ("exact" or
    "low_rank", the scores used), ``moves_per_scan``.

    Parameters
    ----------
    n_components : int or "auto"
    c : int, default 1
    max_iter : int, default 7
    alpha : float, default 0.05
    min_cluster_size : int, default 10
        Not in the paper: tiny clusters pass any test, so the greedy search may
        not shrink a cluster below this size (a start with a smaller cluster may
        only grow it).
    init : {"gmm_em", "random", "kmeans", "best"}, default "gmm_em"
        Not the paper's default: the paper starts from a random assignment
        (``init="random"``). From a random start the search stops at the first
        partition whose clusters pass the test, typically still far from the
        components; starting from EM's partition (``gmm_em``, 5 restarts) CLIC
        keeps it when its clusters already pass and otherwise moves points until
        they do.
    stop : {"independent", "converged"}, default "independent"
        "converged" keeps lowering the objective after every cluster passes, to 0
        (every p-value 1), which the true partition itself does not reach (its
        objective is about 1-6). In the benchmark it lowers the matched MMD where
        components overlap (d = 3) and raises it where they are well separated
        (d = 5, m = 2), so the paper's rule is the default.
    kernel : {"auto", "exact", "low_rank"}, default "auto"
        Not in the paper (speed): how the best-move search scores the N (m-1) candidate moves.
        "exact": O(N n d) per scan; "low_rank": Nystrom features of each cluster's Gram
        matrices from a pivoted incomplete Cholesky of its members (:mod:`.lowrank`), O(N m d
        r^2) per scan; a move is applied only if its exact gain is positive, so the state,
        the objective and the p-values stay exact. "auto": exact up to 3,000 samples.
    tol : float, default 1e-3
        low_rank: each factor stops when its residual trace is at most ``tol * n_c``.
    max_rank : int, default 200
        low_rank: at most this many columns per factor.
    moves_per_scan : int or "auto", default "auto"
        Not in the paper (speed): candidate moves applied per scan, best first, each checked
        exactly on the current state. "auto": 1 with exact scores (one best move at a time,
        as before), ``max(1, budget // 10)`` with low-rank scores (budget = max(10, N / 20)
        moves per iteration), so an iteration costs about ten scans at any N.
    seed : int, default 0

    References
    ----------
    Sgouritsa, Janzing, Peters, Schoelkopf. Identifying finite mixtures of
    nonparametric product distributions and causal inference of confounders.
    UAI 2013.
    """

    name = "clic"
    requires = ("kmeans", "gmm_em")
    scale_invariant = "global"
    axis = "samples"
    Params = CLICParams
    paper = PAPER

    @classmethod
    def example(cls):
        from macrocause.framework.roles import Example

        from .simulate import product_mixture

        X, _ = product_mixture(2, 2, 40, 0)
        return Example({"n_components": 2, "max_iter": 2}, Dataset(X, names=["X1", "X2"], discrete=False))

    def check_data(self, data: Dataset) -> None:
        p = self.params
        if data.n_variables < 2:
            raise DataValidationError(
                f"clic needs at least 2 variables (it tests their independence), got {data.n_variables}."
            )
        m = 2 if p.n_components == "auto" else p.n_components
        need = m * p.min_cluster_size
        if data.n_samples < need:
            raise DataValidationError(
                f"clic needs at least n_components x min_cluster_size = {m} x {p.min_cluster_size} = "
                f"{need} samples, got {data.n_samples}. Use fewer components or more data."
            )

    def _partition(self, data: Dataset) -> Partition:
        from macrocause.framework.progress import progress

        from . import _kernels as K
        from .hsic import cluster_bandwidths
        from .rank import LOW_RANK_MIN_N, estimate_rank

        p = self.params
        X = np.array(data.X, dtype=np.float64, order="C")  # writable: one numba specialisation
        N = X.shape[0]
        info: dict = {}
        if p.n_components == "auto":
            est = estimate_rank(X)
            m = est.rank
            info.update(rank_source="estimated", rank_votes=list(est.split_ranks))
            if N < m * p.min_cluster_size:
                raise DataValidationError(
                    f"clic: the estimated rank is {m}, which needs {m * p.min_cluster_size} samples "
                    f"(min_cluster_size={p.min_cluster_size}); got {N}. Give n_components."
                )
        else:
            m = p.n_components
            info["rank_source"] = "given"
        rng = np.random.default_rng(p.seed)
        labels, init_objectives = self._initial(data, X, m, rng)
        info["init_objectives"] = init_objectives
        objective = []
        it = n_moves = 0
        sig = cluster_bandwidths(X, labels, m)
        R, Sv, scal, counts = K.build_state(X, labels, m, sig)
        logp = K.all_cluster_logp(scal, counts)
        objective.append(float(-logp.sum()))
        low_rank = p.kernel == "low_rank" or (p.kernel == "auto" and N > LOW_RANK_MIN_N)
        budget = max(10, N // 20)
        per_scan = (1 if not low_rank else max(1, budget // 10)) if p.moves_per_scan == "auto" else p.moves_per_scan
        info.update(kernel="low_rank" if low_rank else "exact", moves_per_scan=int(per_scan))
        if m > 1:
            for it in progress(range(1, p.max_iter + 1), "clic iterations"):
                if p.stop == "independent" and np.all(logp > np.log(p.alpha)):
                    it -= 1
                    break
                if p.moves == "sweep":
                    order = rng.permutation(N).astype(np.int64)
                    moved = K.sweep(X, labels, sig, R, Sv, scal, counts, logp, order, p.c, p.min_cluster_size)
                elif not low_rank and per_scan == 1:
                    moved = K.greedy_moves(X, labels, sig, R, Sv, scal, counts, logp, budget,
                                           p.min_cluster_size, np.log(p.alpha), p.stop == "independent")
                else:
                    moved = self._batch_moves(X, labels, sig, R, Sv, scal, counts, logp, budget, per_scan,
                                              low_rank)
                sig = cluster_bandwidths(X, labels, m)
                R, Sv, scal, counts = K.build_state(X, labels, m, sig)
                logp = K.all_cluster_logp(scal, counts)
                objective.append(float(-logp.sum()))
                n_moves += int(moved)
                if moved == 0:
                    break
        pvals = np.exp(logp)
        independent = bool(np.all(pvals > p.alpha))
        info.update(
            rank=int(m), independent=independent, pvalues=pvals.tolist(),
            status="ok" if independent else UNABLE, iterations=int(it), moves=n_moves, objective=objective,
            bandwidths=sig.tolist(),
        )
        return Partition(labels, axis="samples", info=info)

    def _batch_moves(self, X, labels, sig, R, Sv, scal, counts, logp, budget, per_scan, low_rank) -> int:
        """Up to ``budget`` moves, ``per_scan`` per scan of all points: each point's best move is
        scored (exact, or low-rank, :mod:`.lowrank`), and the candidates are applied best first,
        each only if its exact gain on the current state is positive. Returns the moves made."""
        from . import _kernels as K
        from .lowrank import features, member_sums

        p = self.params
        feats = features(X, labels, sig, p.tol, p.max_rank) if low_rank else None
        log_alpha, until = np.log(p.alpha), p.stop == "independent"
        done = 0
        while done < budget:
            if until and np.all(logp > log_alpha):
                break
            if low_rank:
                target, gain = K.scan_gains(member_sums(feats, labels, R, Sv), labels, R, Sv, scal, counts, logp,
                                            p.min_cluster_size)
            else:
                target, gain = K.exact_gains(X, labels, sig, R, Sv, scal, counts, logp, p.min_cluster_size)
            cand = np.flatnonzero(target >= 0)
            cand = cand[np.argsort(-gain[cand], kind="stable")]
            moved = K.apply_candidates(X, labels, sig, R, Sv, scal, counts, logp, cand, target[cand],
                                       min(per_scan, budget - done), p.min_cluster_size, log_alpha, until)
            if moved == 0:
                break
            done += moved
        return done

    def _initial(self, data: Dataset, X: np.ndarray, m: int, rng) -> tuple[np.ndarray, dict]:
        """Initial labels and, for ``init="best"``, the objective of each candidate start."""
        p = self.params
        labels = (rng.permutation(X.shape[0]) % m).astype(np.int64)
        if p.init == "random" or m == 1:
            return labels, {}
        from macrocause.framework import registry
        from macrocause.framework.numeric import compact_labels

        def start(name):
            if name == "kmeans":
                part = registry.create("kmeans", n_clusters=m, seed=p.seed).partition(data)
            else:
                part = registry.create("gmm_em", n_components=m, seed=p.seed).partition(data)
            return compact_labels(part.labels, order="sorted").astype(np.int64)

        import sklearn.cluster  # noqa: F401  (loads the OpenMP runtime, so the limit below covers it)
        from threadpoolctl import threadpool_limits

        # one thread: for these small fits 2 OpenMP threads on a loaded machine were 50x slower
        with threadpool_limits(limits=1):
            if p.init != "best":
                return start(p.init), {}
            cands = {name: start(name) for name in ("kmeans", "gmm_em")}
        objs = {name: _objective(X, lab, m) for name, lab in cands.items()}
        return cands[min(objs, key=objs.get)], objs


def _objective(X: np.ndarray, labels: np.ndarray, m: int) -> float:
    """CLIC's objective ``-sum_c log p_c`` of a labelling (per-cluster median-rule bandwidths)."""
    from . import _kernels as K
    from .hsic import cluster_bandwidths

    sig = cluster_bandwidths(X, labels, m)
    _, _, scal, counts = K.build_state(X, labels, m, sig)
    return float(-K.all_cluster_logp(scal, counts).sum())
