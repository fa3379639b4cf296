"""CAFE DBSCAN: density-based clustering of micro-level points by their effect-state distribution."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from pydantic import Field

from macrocause.framework import Dataset, Params, Partition, Partitioner
from macrocause.framework.errors import ConfigError
from macrocause.framework.roles import Example

from ._core import NOISE_QUANTILE

PAPER = "Weber, Miklautz, Kumar, Grosse-Wentrup, Plant, ICDM 2023 (CAFE DBSCAN)"

AUTO_MIN_POINTS = (20, 30, 50, 80)
AUTO_QUANTILES = (0.2, 0.35, 0.5)
AUTO_TAUS = (0.2, 0.3, 0.4, 0.5)
AUTO_BIC_SLACK = 0.03
AUTO_DISCO_MIN_POINTS = 10
AUTO_SUBSAMPLE = 20_000
AUTO_NOISE_RULES = (NOISE_QUANTILE, None)  # the refinement with and without its noise raise


class CafeDBSCANParams(Params):
    eps: float | None = Field(None, gt=0, description="Radius of the epsilon-neighbourhood (None: chosen).")
    min_points: int | None = Field(
        None, ge=1, description="mu: unclassified points a start region needs, the point included (None: chosen)."
    )
    tau: float | None = Field(
        None, ge=0, le=1, description="Largest total-variation distance for a region to join a cluster (None: chosen)."
    )
    metric: Literal["euclidean", "manhattan", "chebyshev"] = Field("euclidean", description="Distance.")
    refine: bool | None = Field(
        None, description="Clean up Algorithm 1's result (ours, see Notes); None: on in automatic mode only."
    )
    mode: Literal["auto", "heuristic"] = Field(
        "auto", description="How missing eps, min_points, tau are chosen: 'auto' (all three missing: the "
        "automatic search; some missing: Section V) or 'heuristic' (Section V for every missing one)."
    )
    regime: Literal["auto", "grouped", "independent"] = Field(
        "auto", description="Automatic mode only: 'grouped' (points come in groups that share their effect state, "
        "e.g. the pixels of one image: Algorithm 1 with the grouped rule), 'independent' (the candidate search), "
        "'auto' (measured: grouped when the neighbour dispersion is 1.5 or more).")
    seed: int = Field(0, description="Seed of the probe points the automatic mode measures at and of the "
                      "subsample its search runs on above 20,000 points.")


class CafeDBSCAN(Partitioner):
    """CAFE DBSCAN: one-pass density clustering of points by their effect-state distribution P(Y|X).

    Algorithm 1 of the paper: every epsilon-neighbourhood with at least ``min_points``
    unclassified points starts a cluster; the cluster grows breadth-first by the
    unclassified points of each member's neighbourhood, as long as their effect-state
    histogram is within total-variation distance ``tau`` of the cluster's running
    histogram. Points never classified are noise (-1). Neighbourhoods come from a
    KD-tree radius query stored as CSR lists (memory O(n + neighbour pairs)); the
    expansion runs in numba.

    Parameters
    ----------
    eps, min_points, tau : float, int, float or None
        Algorithm 1's epsilon, mu and tau. When all three are None (the default)
        they are chosen without ground truth (automatic mode, see Notes). When
        only some are given, or ``mode="heuristic"``, the missing ones follow the
        Section V heuristic:
        ``min_points = clip(round(sqrt(n) / 3), 10, 100)``, ``eps`` = median
        distance to the ``min_points``-th nearest point, ``tau`` = twice the
        expected total-variation error of a histogram of ``min_points / 2``
        points, clipped to [0.1, 0.4].
    metric : {"euclidean", "manhattan", "chebyshev"}
        Distance of the micro-level points.
    refine : bool or None
        Apply the refinement below to Algorithm 1's labels. None (default): on in the
        automatic mode's candidate search, off otherwise (Algorithm 1 as printed; the grouped
        rule never refines).
    mode : {"auto", "heuristic"}
        "heuristic": the paper's Section V for all three parameters (those not given).
    regime : {"auto", "grouped", "independent"}
        Automatic mode only: which rule runs; "auto" measures it (Notes).
    seed : int
        Seed of the probe points of the automatic mode's measures and of the subsample of its
        search on large data (Notes).

    Notes
    -----
    ``info`` holds ``distributions`` (k x m effect-state probabilities per
    cluster, columns in the order of ``states``), ``states`` (the effect-state
    labels), ``counts``, the ``eps``, ``min_points``, ``tau`` used, ``refined``
    (whether the refinement ran), ``noise_quantile`` (the refinement's background-noise rule,
    None = off or not refined) and, in automatic mode, ``auto`` (the candidate table: eps,
    quantile, min_points, tau, noise_quantile, k, bic_gain and, for the kept ones, disco).

    Automatic mode (ours) first measures at 2,000 probe points (``seed``) whether neighbouring
    points share their effect states beyond what the local distribution explains
    (:func:`macrocause.plugins.cafe_dbscan.grouped.neighbour_dispersion`, ``info["dispersion"]``: about 1 when
    the states are drawn independently given X as in DS1-DS3, 2 or more on image pixels, where
    all pixels of one image share its state). At 1.5 or more (``info["regime"] = "grouped"``)
    Algorithm 1 runs once with the grouped rule
    (:func:`macrocause.plugins.cafe_dbscan.grouped.cafe_dbscan_grouped`): Section V's ``min_points`` and
    ``eps``, ``tau`` 2.5 times the measured ``region_noise`` (the mean total-variation distance
    between the histograms of two adjacent regions of ``min_points / 2`` points), the densest points start
    clusters first, and clusters whose effect-state distributions are within ``tau`` are grouped
    into one macro-variable (Definition 2 groups by P(Y|X) alone); no refinement. Otherwise
    (``"independent"``) the candidate search below runs.

    Refinement (ours, :func:`macrocause.plugins.cafe_dbscan._core.refine`): sparse points become
    noise, dense points move to the most likely neighbouring cluster, small clusters are
    dissolved and touching clusters a G-test cannot tell apart are merged. Candidate search
    (ours): ``min_points`` in {20, 30, 50, 80}, ``eps`` at the 0.2, 0.35 and 0.5 quantiles
    of the ``min_points``-distance, ``tau`` in {0.2, ..., 0.5}, each refined with and without the
    background-noise rule; candidates within 3% of the best BIC gain of P(Y | cluster) (noise points
    count as unexplained, :func:`bic_gain`) are kept and DISCO picks among them. Above 20,000 points
    the search runs on a seeded random subsample of 20,000 and the chosen ``min_points``, ``tau``
    and eps quantile are applied to all points (eps re-read from all points' distances); that
    labelling competes with Section V's parameters on all points (Algorithm 1 as printed) by
    :func:`bic_gain`, the larger wins (``info["final"]``), so it costs two runs on all data plus a
    fixed amount. The method page
    (docs/plugins/cafe_dbscan.md) gives the reasons and the measurements.

    References
    ----------
    Weber, Miklautz, Kumar, Grosse-Wentrup, Plant. CAFE DBSCAN: a density-based
    clustering algorithm for causal feature learning. ICDM 2023.
    """

    name = "cafe_dbscan"
    requires = ("disco",)
    scale_invariant = "global"
    axis = "samples"
    needs_target = True
    Params = CafeDBSCANParams
    paper = PAPER

    def check_data(self, data: Dataset) -> None:
        data.check(self.name, need_target=True, min_states=2)

    def scale_invariance(self):
        """Invariant to one common scale when ``eps`` (a distance) is chosen from the data."""
        return "global" if self.params.eps is None else None

    @classmethod
    def example(cls) -> Example:
        return Example({"eps": 0.25, "min_points": 8, "tau": 0.3}, two_squares(60))

    @classmethod
    def auto_grid(cls, data: Dataset) -> dict[str, list]:
        """A small candidate grid for a generic search: mu values, eps from the mu-distance
        quantiles of the middle mu, and tau values."""
        from ._core import heuristic_eps

        mus = _auto_min_points(data.n_samples)
        mid = mus[len(mus) // 2]
        eps = sorted({round(heuristic_eps(data.X, mid, "euclidean", q), 6) for q in AUTO_QUANTILES})
        return {"min_points": mus, "eps": eps, "tau": list(AUTO_TAUS)}

    def _partition(self, data: Dataset) -> Partition:
        from ._core import cafe_dbscan, counts_of

        p = self.params
        m = len(data.target_states)
        codes = data.target_codes
        extra: dict[str, Any] = {}
        nq = None
        auto = p.mode == "auto" and p.eps is None and p.min_points is None and p.tau is None
        do_refine = auto if p.refine is None else p.refine
        if auto:
            eps, mu, tau, nq, labels, extra = self._auto_regime(data, do_refine)
        else:
            eps, mu, tau = self._fill_heuristic(data)
            nq = NOISE_QUANTILE if do_refine else None
            labels = cafe_dbscan(data.X, codes, m, eps, mu, tau, p.metric, refined=do_refine, noise_quantile=nq)
        extra.setdefault("refined", do_refine)
        extra["noise_quantile"] = nq
        return _result(labels, counts_of(labels, codes, m), data, eps, mu, tau, extra)

    # -- parameters -----------------------------------------------------------
    def _fill_heuristic(self, data: Dataset) -> tuple[float, int, float]:
        from ._core import heuristic_eps, heuristic_min_points, heuristic_tau

        p = self.params
        mu = p.min_points if p.min_points is not None else heuristic_min_points(data.n_samples)
        eps = p.eps if p.eps is not None else heuristic_eps(data.X, mu, p.metric)
        tau = p.tau if p.tau is not None else heuristic_tau(len(data.target_states), mu)
        return float(eps), int(mu), float(tau)

    def _auto_regime(self, data: Dataset, do_refine: bool) -> tuple[float, int, float, float | None, np.ndarray, dict]:
        """Measure whether neighbouring points share their effect states (``info["dispersion"]``); grouped
        data get Algorithm 1 with the grouped rule, the others the candidate search."""
        from .grouped import GROUPED_DISPERSION, cafe_dbscan_grouped, measure

        p = self.params
        m, codes = len(data.target_states), data.target_codes
        meas = measure(data.X, codes, m, p.metric, p.seed) if p.regime != "independent" else None
        if p.regime == "grouped" and meas is None:
            raise ConfigError(f"cafe_dbscan: regime='grouped' needs more points than {data.n_samples} to measure "
                              "the region noise; use regime='auto' or 'independent'.")
        if p.regime == "grouped" or (meas is not None and meas["dispersion"] >= GROUPED_DISPERSION):
            eps, tau, labels = cafe_dbscan_grouped(data.X, codes, m, meas["min_points"], meas["region_noise"], p.metric)
            return eps, meas["min_points"], tau, None, labels, {"regime": "grouped", "refined": False, **meas}
        if data.n_samples > AUTO_SUBSAMPLE:
            out = self._auto_large(data, do_refine)
        else:
            out = self._auto(data, do_refine)
        out[-1].update({"regime": "independent", "dispersion": None if meas is None else meas["dispersion"]})
        return out

    def _auto_large(self, data: Dataset, do_refine: bool) -> tuple[float, int, float, float | None, np.ndarray, dict]:
        """The automatic search on a seeded subsample, its choice applied to all points; it then
        competes with Section V's parameters on all points (Algorithm 1 as printed), and the
        labelling with the larger :func:`bic_gain` is returned (``info["final"]``; ``refined``
        False when Section V wins)."""
        from ._core import cafe_dbscan, heuristic_eps

        rng = np.random.default_rng(self.params.seed)
        rows = np.sort(rng.choice(data.n_samples, AUTO_SUBSAMPLE, replace=False))
        sub = data.take(rows)
        _, mu, tau, nq, _, extra = self._auto(sub, do_refine)
        best = next(r for r in extra["auto"] if r.get("chosen"))
        m, codes, metric = len(data.target_states), data.target_codes, self.params.metric
        eps = heuristic_eps(data.X, mu, metric, best["quantile"])
        labels = cafe_dbscan(data.X, codes, m, eps, mu, tau, metric, refined=do_refine, noise_quantile=nq)
        h_eps, h_mu, h_tau = self._fill_heuristic(data)
        h_labels = cafe_dbscan(data.X, codes, m, h_eps, h_mu, h_tau, metric, refined=False)
        final = [
            {"rule": "search", "eps": eps, "min_points": mu, "tau": tau, "bic_gain": bic_gain(labels, codes, m)},
            {"rule": "section_v", "eps": h_eps, "min_points": h_mu, "tau": h_tau,
             "bic_gain": bic_gain(h_labels, codes, m)},
        ]
        extra["subsample"] = AUTO_SUBSAMPLE
        extra["final"] = final
        if final[1]["bic_gain"] > final[0]["bic_gain"]:
            extra["refined"] = False
            return h_eps, h_mu, h_tau, None, h_labels, extra
        return eps, mu, tau, nq, labels, extra

    def _auto(self, data: Dataset, do_refine: bool) -> tuple[float, int, float, float | None, np.ndarray, dict]:
        from macrocause.framework import registry
        from macrocause.framework.progress import progress

        from ._core import cafe_dbscan_grid, heuristic_eps

        if "disco" not in registry.names("evaluator"):
            raise ConfigError(
                "cafe_dbscan's automatic mode scores candidates with the 'disco' evaluator, which is not "
                "registered; enable the disco plugin or pass eps, min_points and tau."
            )
        disco = registry.create("disco", min_points=min(AUTO_DISCO_MIN_POINTS, data.n_samples))
        m = len(data.target_states)
        codes = data.target_codes
        rows = []
        for mu in progress(_auto_min_points(data.n_samples), "cafe_dbscan automatic grid"):
            for q in AUTO_QUANTILES:
                eps = heuristic_eps(data.X, mu, self.params.metric, q)
                for tau, nq, labels in cafe_dbscan_grid(data.X, codes, m, eps, mu, AUTO_TAUS, self.params.metric,
                                                        do_refine, AUTO_NOISE_RULES):
                    rows.append({"eps": eps, "quantile": q, "min_points": mu, "tau": tau, "noise_quantile": nq,
                                 "labels": labels, "k": int(labels.max()) + 1, "bic_gain": bic_gain(labels, codes, m)})
        best_gain = max(r["bic_gain"] for r in rows)
        keep = [r for r in rows if r["bic_gain"] >= best_gain - AUTO_BIC_SLACK * abs(best_gain)]
        for r, ev in zip(keep, disco.evaluate_many(data, [Partition(r["labels"]) for r in keep])):
            r["disco"] = ev.value
        best = max(keep, key=lambda r: r["disco"])
        best["chosen"] = True
        table = [{k: v for k, v in r.items() if k != "labels"} for r in rows]
        return best["eps"], best["min_points"], best["tau"], best["noise_quantile"], best["labels"], {"auto": table}


def two_squares(n_per_square: int, seed: int = 0) -> Dataset:
    """Two touching unit squares, three effect states, mostly state 0 on the left and 2 on the
    right: the small example of the CAFE plugins."""
    rng = np.random.default_rng(seed)
    k = n_per_square
    X = np.concatenate([rng.uniform(0, 1, (k, 2)), rng.uniform([1, 0], [2, 1], (k, 2))])
    y = np.concatenate([rng.choice(3, k, p=[0.8, 0.1, 0.1]), rng.choice(3, k, p=[0.1, 0.1, 0.8])])
    return Dataset(X, target=y)


def _auto_min_points(n: int) -> list[int]:
    mus = [mu for mu in AUTO_MIN_POINTS if mu <= max(n // 10, 1)]
    return mus or [max(2, min(AUTO_MIN_POINTS[0], n // 2))]


def bic_gain(labels: np.ndarray, codes: np.ndarray, m: int) -> float:
    """BIC gain of modelling the effect states by one distribution per cluster over one global
    distribution, per point and relative to the entropy H(Y); noise points stay under the global
    distribution (unexplained: Definition 8 of the paper excludes them from every class).

    ``(loglik(Y | labels) - loglik(Y) - (g - 1)(m - 1) log(n) / 2) / (n H(Y))`` with g the number of
    distributions (the k clusters, plus the global one when there is noise); 1 means the clusters
    determine Y, values <= 0 that they explain nothing beyond chance. A point a labelling calls
    noise therefore adds no gain, so labellings that leave explainable points unclustered lose.
    """
    from macrocause.framework.numeric import compact_labels

    from ._core import counts_of

    n = codes.shape[0]
    c0 = np.bincount(codes, minlength=m).astype(float)
    p0 = c0 / n
    h = -float(np.sum(p0[p0 > 0] * np.log(p0[p0 > 0])))
    if h <= 0 or not np.any(labels >= 0):
        return 0.0
    counts = counts_of(compact_labels(labels, order="sorted"), codes, m).astype(float)
    tot = counts.sum(axis=1, keepdims=True)
    nz = counts > 0
    gain = float(np.sum(counts[nz] * np.log((counts / tot)[nz]))) - float(np.sum(counts.sum(axis=0)[c0 > 0]
                                                                                  * np.log(p0[c0 > 0])))
    g = counts.shape[0] + int(np.any(labels < 0))
    return float((gain - (g - 1) * (m - 1) / 2 * np.log(n)) / (n * h))


def _result(labels, counts, data: Dataset, eps, mu, tau, extra) -> Partition:
    sizes = counts.sum(axis=1, keepdims=True)
    dist = counts / np.maximum(sizes, 1)
    info = {
        "distributions": dist,
        "states": list(data.target_states),
        "counts": counts,
        "eps": float(eps),
        "min_points": int(mu),
        "tau": float(tau),
        **extra,
    }
    return Partition(labels, axis="samples", info=info)
