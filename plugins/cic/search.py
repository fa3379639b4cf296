"""The ``cic_greedy`` cluster-DAG search (Algorithms 1-2)."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from pydantic import Field, model_validator

from macrocause.framework import CausalGraph, Dataset, Params, Partition, Scorer, Searcher
from macrocause.framework.errors import DataValidationError
from macrocause.framework.memory import MemoryEstimate
from macrocause.framework.roles import Example
from macrocause.framework.score_engine import engine_for

from .scorers import PAPER


def to_graph(names: tuple[str, ...], clusters, adj: np.ndarray) -> CausalGraph:
    cl = [[names[i] for i in c] for c in clusters]
    edges = [(int(a), int(b)) for a, b in zip(*np.nonzero(adj))]
    return CausalGraph(cl, edges)


class CICGreedyParams(Params):
    strategy: Literal["perturbation", "restarts"] = Field(
        "perturbation", description="perturbation (ours, the default): from each start, climb, then kick the best "
        "state (move a few variables, merge, split, gather a new cluster) and climb again until `stale` kicks in "
        "a row found nothing better (iterated local search); restarts: Algorithm 1, independent random starts "
        "each climbed once."
    )
    restarts: int | None = Field(
        None, ge=1, description="Starts (Z of Algorithm 1). None: 500 for strategy='restarts' (the paper's Z "
        "scale); for 'perturbation', 1 when the relation start is used (random starts never beat it: "
        "docs/plugins/cic.md), else 1 + d // 50 (scales with the number of variables d)."
    )
    stale: int | None = Field(
        None, ge=0, description="perturbation: kicks in a row without improvement that end a start. None: "
        "10 + d // 10, scaling with d (the rule: docs/plugins/cic.md)."
    )
    rho: float = Field(0.5, ge=0, le=1, description="Erdos-Renyi edge probability of the random starts; the "
                       "perturbation search caps it so that the expected in-degree is at most the parents a family "
                       "can pay for (9 at N = 4,000; _ils.start_density).")
    seed: int = Field(0, description="Seed; per-start seeds are spawned from it (SeedSequence).")
    m_distribution: Literal["paper", "uniform", "geometric"] = Field(
        "uniform", description="Distribution of the number of clusters m of a random start on "
        "min_clusters..max_clusters (Section 4.5: 'we can control the clustering sparsity by specifying the "
        "distribution of m'). paper: m uniform, each variable to a uniform one of m labels, empty labels "
        "dropped; uniform: m uniform, clustering uniform among those with exactly m clusters; geometric: "
        "P(m) proportional to m_decay^(m - min_clusters), clustering as for uniform."
    )
    min_clusters: int = Field(1, ge=1, description="Smallest number of clusters (random starts and moves).")
    max_clusters: int | None = Field(
        None, ge=1, description="Largest number of clusters (random starts and moves); None = no cap (the "
        "number of variables). A bound for users who know it, not a default: a cap chosen on the paper's "
        "scenarios (2..3, the previous default) cannot return larger cluster DAGs."
    )
    m_decay: float = Field(0.5, gt=0, le=1, description="Ratio P(m + 1) / P(m) of the geometric distribution.")
    cluster_moves: bool = Field(
        True, description="Also climb over clusterings (move a variable to another or a new cluster, merge two "
        "clusters); the paper varies the clustering only by restarts (False)."
    )
    relation_start: bool = Field(
        True, description="On binary data, start the first search from the variables grouped by the parity "
        "relations of the data (sets whose xor is far from uniform, found by Lee-Brickell information-set "
        "decoding; plugins/cic/relations.py), with edges from each relation's other groups to one child group; "
        "the other starts are random. False: every start random (the paper's)."
    )
    sparse_scan: bool = Field(
        True, description="With relation_start: also group by the sparse noisy parities of the data (every set "
        "of up to w variables whose xor pays its code length, w by a budget of 5 million sets; "
        "plugins/cic/sparse.py), which majority mechanisms make and decoding cannot reach."
    )
    vstructures: bool = Field(True, description="Run the closing v-structure step (lines 11-15).")
    alpha: float = Field(0.01, gt=0, lt=1, description="Level of the CI tests of the v-structure step.")
    n_perm: int = Field(100, ge=1, description="Permutations of the kNN CMI test (continuous data).")
    max_steps: int = Field(10_000, ge=1, description="Most edge moves per climb.")
    n_jobs: int = Field(1, ge=-1, description="Worker processes for the starts (-1 = all cores).")
    executor: Literal["local", "dask"] = Field("local", description="Where the starts run.")

    @model_validator(mode="after")
    def _m_bounds(self):
        if self.max_clusters is not None and self.max_clusters < self.min_clusters:
            raise ValueError(f"max_clusters ({self.max_clusters}) must be >= min_clusters ({self.min_clusters})")
        return self

    def starts_for(self, d: int, relation_start: bool = False) -> int:
        if self.restarts is not None:
            return self.restarts
        if self.strategy == "restarts":
            return 500
        return 1 if relation_start else 1 + d // 50

    def stale_for(self, d: int) -> int:
        return self.stale if self.stale is not None else 10 + d // 10


class CICGreedy(Searcher):
    """Search of a cluster DAG (CIC Algorithms 1-2, and a perturbation search that is the default).

    ``strategy="perturbation"`` (default): from each of ``restarts`` starts (default 1 from the relation
    start when there is one, else ``1 + d // 50``),
    climb, that is the edge climb of Algorithm 2 (add, delete, reverse one edge between clusters,
    acyclicity kept) alternated with the best clustering move (a variable to another or a new cluster,
    two clusters merged), then kick the best state (move variables, merge, split, gather a new cluster,
    redraw edges) and climb again until ``stale`` kicks in a row found nothing better (default
    ``10 + d // 10``). On binary data the first start groups the variables by the data's parity relations
    and draws its edges from them (``relation_start``; :mod:`.relations`), the others are random
    clusterings with Erdos-Renyi edges.
    ``strategy="restarts"``: Algorithm 1, each restart a random clustering (m from ``m_distribution`` on
    ``min_clusters..max_clusters``) and random edges climbed once. No cap on the number of clusters by
    default; the bounds stay parameters. The best-scoring result wins (ties: the earlier start). A closing
    step orients each unshielded C_i - C_j - C_k as a collider when X_Ci and X_Ck are dependent given X_Cj
    (G-test for discrete data, kNN conditional-MI permutation test or Gaussian partial correlation for
    continuous data).

    ``init`` may be a variable Partition (its clusters, noise as singletons, start every search; only the
    edges are random) or a CausalGraph (its clusters, and its directed edges as the first start's).
    The paper's literal search is ``strategy="restarts", restarts=500, m_distribution="paper",
    min_clusters=1, max_clusters=None, cluster_moves=False, relation_start=False``; the defaults before
    issue 28 were ``strategy="restarts", restarts=500, min_clusters=2, max_clusters=3,
    relation_start=False`` with ``cic(fit_factor="N")``.

    Starts run through ``macrocause.framework.execution.parallel_map``; each start's seed is spawned from ``seed``,
    so the result does not depend on ``n_jobs`` or the executor.

    References
    ----------
    Niu, Li, Li. Learning Cluster Causal Diagrams: An Information-Theoretic Approach. IJCAI 2022.
    Lourenco, Martin, Stuetzle. Iterated local search. Handbook of Metaheuristics, 2003.
    """

    name = "cic_greedy"
    requires = ("cic",)
    scale_invariant = "global"
    Params = CICGreedyParams
    paper = PAPER
    uses_scorer = True
    init_accepts = ("variables", "graph")
    default_scorer = "cic"

    @classmethod
    def example(cls) -> Example:
        from .simulate import xor_example

        return Example({"restarts": 4, "n_perm": 10}, xor_example(n=400, seed=0), scorer="cic")

    def memory_estimate(self, data: Dataset) -> MemoryEstimate:
        """Counted from the allocations (docs/limits.md has the measured peaks): the engine's codes and signs
        (9 n d bytes) plus, during the relation start, the binary check, the int64 and int8 copies and the
        packed bits (12 n d); the cluster features (n bytes each, at most FEATURE_ENTRIES = 2,048; about
        3 d^2 are met); and the family-score and entropy caches (at most CACHE_ENTRIES = 100,000 entries
        each, about 220 and 150 bytes an entry with its key tuples, dict slot and float; about d^3 / 2 and
        d^3 / 7 entries are met, measured at d = 25 and 50: full from d = 59 and 89)."""
        from .family import CACHE_ENTRIES, FEATURE_ENTRIES

        n, d = data.n_samples, data.n_variables
        caches = 220.0 * min(CACHE_ENTRIES, d ** 3 / 2) + 150.0 * min(CACHE_ENTRIES, d ** 3 / 7)
        need = 21.0 * n * d + n * min(FEATURE_ENTRIES, 3 * d * d) + caches
        return MemoryEstimate(need, "about 21 n d + n min(2,048, 3 d^2) + 220 min(10^5, d^3 / 2) + "
                              "150 min(10^5, d^3 / 7) bytes",
                              "use fewer variables or samples, or cluster a subset first")

    def check_data(self, data: Dataset) -> None:
        data.check(self.name, min_variables=2, min_samples=3)
        if self.params.min_clusters > data.n_variables:
            raise DataValidationError(
                f"cic_greedy: min_clusters={self.params.min_clusters} exceeds the {data.n_variables} variables.")

    def _starts(self, data: Dataset, init: Partition | CausalGraph | None):
        """(clusters or None, adjacency or None) for restart 0 and for the others."""
        if init is None:
            return self._relation_start(data), None
        if isinstance(init, Partition):
            labels = np.asarray(init.labels).copy()
            nxt = labels.max() + 1 if labels.size else 0
            for i in np.flatnonzero(labels < 0):
                labels[i] = nxt
                nxt += 1
            clusters = [tuple(np.flatnonzero(labels == c).tolist()) for c in np.unique(labels)]
            return (clusters, None, True), (clusters, None, True)
        names = list(data.names)
        unknown = set(init.variables) - set(names)
        if unknown:
            raise DataValidationError(f"cic_greedy: init graph variables {sorted(unknown)} are not in the data.")
        clusters = [tuple(sorted(names.index(v) for v in c)) for c in init.clusters]
        covered = {v for c in clusters for v in c}
        clusters += [(i,) for i in range(len(names)) if i not in covered]
        adj = np.zeros((len(clusters), len(clusters)), dtype=bool)
        for a, b in init.directed:
            adj[a, b] = True
        return (clusters, adj, True), (clusters, None, True)

    def _relation_start(self, data: Dataset):
        """(clusters, edges, False) from the parity relations of binary data (every variable alone and no
        edge when there is none), or None (not binary, relation_start off, or outside the cluster bounds)."""
        p = self.params
        if not p.relation_start or not data.is_discrete:
            return None
        X = np.asarray(data.X)
        if not np.isin(X, (0, 1)).all():
            return None
        from .relations import parity_relations, relation_clusters, relation_dag
        from .sparse import reader_groups, sparse_parities

        d = data.n_variables
        rng = np.random.default_rng(np.random.SeedSequence([p.seed, 28]))
        codes = X.astype(np.int64)
        rels = parity_relations(codes, rng, tries=min(100 * d, 4000))
        sparse = sparse_parities(codes) if p.sparse_scan else []
        clusters = relation_clusters(d, rels + sparse)
        if clusters is not None and sparse:
            clusters = reader_groups(clusters, sparse)
        if clusters is None:  # no relation: start from the independent variables, not a random guess
            clusters = [(i,) for i in range(d)]
        if not p.min_clusters <= len(clusters) <= (p.max_clusters or d):
            return None
        return clusters, relation_dag(clusters, rels + sparse), False

    def run(self, data: Dataset, scorer: Scorer, init: Partition | CausalGraph | None = None) -> dict[str, Any]:
        """The search with its trace: ``graph``, ``score`` (before the v-structure step),
        ``restart_scores`` (best score of each restart, in order) and ``best_restart``."""
        from macrocause.framework.execution import parallel_map

        from ._climb import orient_vstructures
        from ._ils import affordable_indegree, run_chunk

        p = self.params
        eng = engine_for(scorer, data)
        first, other = self._starts(data, init)
        d = data.n_variables
        seeds = np.random.SeedSequence(p.seed).spawn(p.starts_for(d, init is None and first is not None))
        cfg = {"rho": p.rho, "max_clusters": p.max_clusters, "min_clusters": p.min_clusters,
               "m_distribution": p.m_distribution, "m_decay": p.m_decay, "max_steps": p.max_steps,
               "cluster_moves": p.cluster_moves, "strategy": p.strategy, "stale": p.stale_for(d),
               "max_indegree": affordable_indegree(data.n_samples) if p.strategy == "perturbation" else None}
        jobs = [(i, s, first if i == 0 else other) for i, s in enumerate(seeds)]
        sequential = p.executor == "local" and p.n_jobs == 1
        if sequential:
            chunks = [[j] for j in jobs]
        else:
            import os

            workers = (os.cpu_count() or 1) if p.n_jobs == -1 else max(p.n_jobs, 2)
            n_chunks = min(len(jobs), workers * 4)
            chunks = [jobs[c::n_chunks] for c in range(n_chunks)]
        tasks = [(eng, data.n_variables, cfg, ch) for ch in chunks]
        out = parallel_map(run_chunk, tasks, executor=p.executor, n_jobs=p.n_jobs, progress="restarts")
        results = sorted((r for part in out for r in part), key=lambda r: r[0])
        best = max(results, key=lambda r: (r[1], -r[0]))
        _, score, clusters, adj = best
        if p.vstructures:
            adj = orient_vstructures(eng, clusters, adj, p.alpha, p.n_perm, p.seed)
        return {
            "graph": to_graph(data.names, clusters, adj),
            "score": score,
            "restart_scores": [r[1] for r in results],
            "best_restart": best[0],
        }

    def _search(self, data: Dataset, scorer: Scorer | None, init: Partition | CausalGraph | None) -> CausalGraph:
        return self.run(data, scorer, init)["graph"]
