"""The ``greedy_dag`` searcher: hill climbing over DAGs with a tabu list, escaped from its local optima
by iterated local search (random kicks of a few edge moves, then a new climb)."""

from __future__ import annotations

import sys
from typing import Any, Literal

import numpy as np
from pydantic import Field

from macrocause.framework import CausalGraph, Dataset, Params, Partition, Scorer, Searcher
from macrocause.framework.errors import DataValidationError
from macrocause.framework.memory import MemoryEstimate
from macrocause.framework.score_engine import engine_for

from ._pc import moral_start


def to_graph(names: tuple[str, ...], adj: np.ndarray) -> CausalGraph:
    return CausalGraph([[v] for v in names], [(int(a), int(b)) for a, b in zip(*np.nonzero(adj))])


def kick(adj: np.ndarray, n_moves: int, rng: np.random.Generator, fast: bool = False) -> np.ndarray:
    """*adj* after *n_moves* random edge moves that keep it acyclic: a random ordered pair (a, b) is
    added as a -> b when no path b ~> a exists, deleted or reversed (at random) when a -> b is there
    (*fast*: the same moves and draws in a numba kernel)."""
    if fast:
        from macrocause.framework.dag_climb_kernels import kick_moves

        return kick_moves(np.asarray(adj, dtype=np.bool_), n_moves, rng)
    from macrocause.framework.dag_climb import closure

    adj = adj.copy()
    m = adj.shape[0]
    done = tries = 0
    while done < n_moves and tries < 20 * n_moves:
        tries += 1
        a, b = rng.choice(m, 2, replace=False)
        if adj[a, b]:
            adj[a, b] = False
            if rng.random() < 0.5:
                adj[b, a] = True
                if closure(adj)[a, a]:  # b -> a closed a cycle: keep the deletion only
                    adj[b, a] = False
            done += 1
        elif not adj[b, a] and not closure(adj)[b, a]:
            adj[a, b] = True
            done += 1
    return adj


class GreedyDAGParams(Params):
    max_steps: int = Field(10_000, ge=1, description="Most moves of each climb.")
    tabu_length: int = Field(
        100, ge=0, description="The last tabu_length moves cannot be undone (pgmpy HillClimbSearch's tabu list; "
        "0 = plain hill climbing)."
    )
    patience: int = Field(
        4, ge=0, description="Tabu search: keep taking the best allowed move, even a worsening one, until this "
        "many moves in a row did not improve the best graph (bnlearn's max.tabu; pyAgrum's tabu search allows 2); "
        "0 = each climb stops at a local optimum. Default 4: chosen on tuning seeds 100-114 of 13 networks "
        "(benchmarks/networks/tune15.yaml, fifteenth round; 2 from the sixth)."
    )
    restarts: int = Field(
        20, ge=0, description="Further climbs from the start with ties between equally good moves broken at "
        "random (e.g. the two orientations of an edge under a score-equivalent score); the best graph wins. "
        "Default 20: chosen on tuning seeds 100-114 (benchmarks/networks/tune15.yaml, fifteenth round; 10 "
        "from the first, tune.yaml)."
    )
    stale: int = Field(
        40, ge=0, description="Iterated local search: kick the best graph (1..max_kick random edge moves) and "
        "climb again, keeping the result when it scores higher, until this many kicks in a row gave no "
        "improvement; 0 = no kicks. Default 40: chosen on tuning seeds 100-114 (benchmarks/networks/tune14.yaml, "
        "fourteenth round; 20 from the tenth, 30 from the second).")
    stale_per_variable: int | None = Field(
        1, ge=1, description="Also stop the kicks after this many times d (the number of variables) "
        "kicks in a row without improvement, so that small networks are not kicked 30 times; None = no cap. "
        "Default 1 (with chains='best'): chosen on tuning seeds 100-104 (benchmarks/networks/tune_pc.yaml, "
        "fourth round).")
    max_kick: int = Field(10, ge=1, description="Largest number of random edge moves in one kick.")
    pc_start: bool = Field(
        True, description="Also run our pc (alpha 0.05) and search again (climb and kicks) from a DAG of its "
        "CPDAG (Dor and Tarsi's extension; skipped when pc's orientations admit none); the better graph wins. "
        "Chosen on tuning seeds 100-104 (benchmarks/networks/tune.yaml, third sweep).")
    pc_skeleton: Literal["complete", "moral", "union"] = Field(
        "union", description="With pc_start: pc's skeleton search starts from the complete graph ('complete': "
        "PC itself), from the moral graph of the best climb from the start ('moral'), or from the union of "
        "the moral graphs of all 1 + restarts climbs ('union'); a bound is pc's init (a few times fewer tests). "
        "Default 'union' (with chains='each'): chosen on tuning seeds 100-104 (benchmarks/networks/tune8.yaml, "
        "eighth round).")
    pc_fallback: bool = Field(
        False, description="With pc_start: when pc's orientations admit no DAG (its CPDAG has conflicting "
        "colliders), climb from pc's skeleton oriented along a topological order of the best climb from the "
        "start instead of skipping pc's start.")
    pc_max_k: int | None = Field(
        2, ge=0, description="With pc_start: pc's largest conditioning set (its max_k); None = no limit. "
        "Default 2: chosen on tuning seeds 100-104 (benchmarks/networks/tune12.yaml, twelfth round; None before).")
    chains: Literal["each", "best"] = Field(
        "each", description="With pc_start: kick the climb from the empty graph (best of the restarts) and "
        "the climb from pc's DAG each in its own chain ('each'), or only the better of the two ('best'). "
        "Default 'each' (with pc_skeleton='union'): chosen on tuning seeds 100-104 "
        "(benchmarks/networks/tune8.yaml, eighth round; 'best' in the fourth to seventh).")
    seed: int = Field(0, description="Seed of the kicks and of the random tie-breaking of the restarts.")
    return_type: Literal["dag", "cpdag"] = Field(
        "dag", description="Return the DAG found or its Markov equivalence class (CPDAG), as hill_climb does.")


class GreedyDAG(Searcher):
    """Hill climbing over single-variable DAGs (add / delete / reverse one edge) with any decomposable scorer.

    Best-improvement moves from the empty graph (or from ``init``, a singleton CausalGraph) with
    pgmpy's moves and tabu list (the last ``tabu_length`` moves cannot be undone); the climb stops
    at a local optimum, or with ``patience > 0`` walks on through worsening moves (tabu search) and
    returns the best graph seen. ``restarts`` climbs again from the start with ties between equally
    good moves broken at random. Then an iterated local search (Lourenco, Martin, Stuetzle)
    escapes the local optimum: the best graph so far is kicked by 1..``max_kick`` random edge moves
    (acyclicity kept) and climbed again; a higher score replaces it; the search stops after
    ``stale`` kicks in a row without improvement. The result never scores below the first,
    deterministic climb. With ``pc_start`` (default) the search also climbs from a DAG of our
    ``pc``'s CPDAG, with pc's skeleton search bounded by the union of the moral graphs of the climbs
    from the start (``pc_skeleton='union'``: pc's ``init``, a hybrid search) and its conditioning sets
    to 2 variables (``pc_max_k=2``; ``pc_skeleton='complete', pc_max_k=None`` runs PC itself, as up to
    the seventh tuning round, and then the result never scores below PC's DAG extension climbed), and kicks each of the two climbs in its own chain (``chains='each'``;
    ``'best'`` kicks only the better). The kicks stop after
    ``min(stale, stale_per_variable * d)`` kicks in a row without improvement. The defaults
    ``restarts=20, stale=40, pc_start=True, pc_skeleton='union', pc_max_k=2, chains='each',
    stale_per_variable=1, patience=4`` are, by rules written before each round, the settings whose BIC reached pyAgrum's
    greedy climb (and, from the third round, pgmpy's HillClimbSearch, pyAgrum's tabu search and pc) on
    the most tuning runs, the least CPU among ties (bnlearn networks, seeds 100-104,
    ``benchmarks/networks/tune.yaml``, ``tune_pc.yaml``, ``tune6.yaml``, ``tune8.yaml``, ``tune10.yaml``, ``tune12.yaml``, ``tune14.yaml``, ``tune15.yaml``): every climb
    is a short tabu walk (up to 4 non-improving moves in a row; pyAgrum's tabu search allows 2), which
    moves a hub that single improving moves cannot. With ``restarts=0, stale=0, patience=0`` this is
    a plain climb with pgmpy's moves and tabu list; it is not pgmpy's HillClimbSearch move for move
    (pgmpy breaks ties between equal gains by rounding and by its hash order, which no fixed rule
    reproduces).

    Local scores are cached, so a climb after a kick re-computes only the families it touches.

    References
    ----------
    Heckerman, Geiger, Chickering. Learning Bayesian networks: the combination of
    knowledge and statistical data. Machine Learning 20(3), 1995.
    Glover. Tabu search - part I. ORSA Journal on Computing 1(3), 1989.
    Lourenco, Martin, Stuetzle. Iterated local search. Handbook of Metaheuristics, 2003.
    """

    name = "greedy_dag"
    requires = ("bic", "pc")
    scale_invariant = "column"
    Params = GreedyDAGParams
    paper = "Heckerman, Geiger, Chickering, Machine Learning 1995"
    uses_scorer = True
    init_accepts = ("graph",)
    default_scorer = "bic"

    def sample_minimum(self, data: Dataset) -> int:
        """d + 1 unless every variable is discrete: a Gaussian family with up to d - 1 parents fits
        d coefficients and a variance (greedy_dag has no parent limit)."""
        return 2 if data.is_discrete else data.n_variables + 1

    def memory_estimate(self, data: Dataset) -> MemoryEstimate:
        """About 2 kB d^2: move-gain tables and the local-score cache (measured at d = 60, 80, 120)."""
        d = data.n_variables
        return MemoryEstimate(2000.0 * d * d, "about 2,000 d^2 bytes", "use pc, or fewer variables")

    def run(self, data: Dataset, scorer: Scorer, init: CausalGraph | None = None) -> dict[str, Any]:
        """The search with its trace: ``graph``, ``score``, ``climb_scores`` (first climb, then each
        restart) and ``kick_scores`` (the score after each kick's climb)."""
        from tqdm.auto import tqdm

        from macrocause.framework.dag_climb import climb_edges
        from macrocause.framework.entropy import NUMBA_WORK

        if isinstance(init, Partition):  # run() is public: search() checks this through init_accepts
            raise DataValidationError("greedy_dag climbs over single variables; init must be a CausalGraph.")
        p = self.params
        eng = engine_for(scorer, data)
        d = data.n_variables
        clusters = [(i,) for i in range(d)]
        # the climbs' numba kernels where numba loads anyway (the entropies', pc's kernels) or has loaded:
        # the same moves; with the discrete bic engine the whole climb runs in numba (its climb method)
        fast = data.n_samples * d * d >= NUMBA_WORK or "numba" in sys.modules
        start = np.zeros((d, d), dtype=bool)
        if init is not None:
            if not init.is_singleton:
                raise DataValidationError("greedy_dag: init must be a graph of single variables.")
            names = list(data.names)
            for a, b in init.directed:
                start[names.index(init.label(a)), names.index(init.label(b))] = True
        adj, score = climb_edges(eng, clusters, start, p.max_steps, p.tabu_length, p.patience, kernel=fast)
        scores = [score]
        union = moral_start(adj) if p.pc_skeleton == "union" else None  # every climb's moral graph
        rng = np.random.default_rng(p.seed)
        for _ in tqdm(range(p.restarts), desc="greedy_dag restarts", disable=None if p.restarts > 1 else True):
            cand, s = climb_edges(eng, clusters, start, p.max_steps, p.tabu_length, p.patience, rng, fast)
            scores.append(s)
            if union is not None:
                union |= moral_start(cand)
            if s > score:
                adj, score = cand, s
        kicks: list[float] = []
        pc_score = None
        bound = None
        if p.pc_skeleton != "complete":
            M = moral_start(adj) if p.pc_skeleton == "moral" else union
            bound = CausalGraph([[v] for v in data.names], undirected=zip(*np.nonzero(np.triu(M))))
        pc_adj = self._pc_dag(data, p.pc_max_k, bound, adj if p.pc_fallback else None) if p.pc_start and d > 1 else None
        if pc_adj is not None:
            cand, pc_score = climb_edges(eng, clusters, pc_adj, p.max_steps, p.tabu_length, p.patience,
                                         kernel=fast)
            if p.chains == "each":
                adj, score = self._kicks(eng, clusters, adj, score, rng, kicks, fast)
                cand, pc_score = self._kicks(eng, clusters, cand, pc_score, rng, kicks, fast)
            if pc_score > score + 1e-9:
                adj, score = cand, pc_score
        if pc_adj is None or p.chains == "best":
            adj, score = self._kicks(eng, clusters, adj, score, rng, kicks, fast)
        return {"graph": to_graph(data.names, adj), "score": score, "climb_scores": scores, "kick_scores": kicks,
                "pc_start_score": pc_score}

    def _kicks(self, eng, clusters, adj: np.ndarray, score: float, rng: np.random.Generator,
               trace: list[float], fast: bool = False) -> tuple[np.ndarray, float]:
        """Iterated local search from *adj*: kick, climb, keep a higher score; stop after ``stale`` misses
        (*fast*: the climbs' numba kernel path)."""
        from macrocause.framework.dag_climb import climb_edges

        p = self.params
        limit = p.stale if p.stale_per_variable is None else min(p.stale, p.stale_per_variable * len(clusters))
        stale = 0
        while len(clusters) > 1 and stale < limit:
            moved = kick(adj, int(rng.integers(1, p.max_kick + 1)), rng, fast)
            cand, s = climb_edges(eng, clusters, moved, p.max_steps, p.tabu_length, p.patience, rng, fast)
            trace.append(s)
            if s > score + 1e-9:
                adj, score, stale = cand, s, 0
            else:
                stale += 1
        return adj, score

    @staticmethod
    def _pc_dag(data: Dataset, max_k: int | None = None, bound: CausalGraph | None = None,
                order_of: np.ndarray | None = None) -> np.ndarray | None:
        """Adjacency of a DAG in the class of pc's CPDAG (its skeleton search within *bound*'s
        adjacencies when given); when pc's orientations admit no DAG, pc's skeleton oriented along a
        topological order of *order_of* (a DAG), or None without it; None when pc cannot run."""
        from macrocause.framework import registry
        from macrocause.framework.errors import DataValidationError as _Invalid

        from .ges import dag_extension

        names = list(data.names)
        adj = np.zeros((len(names), len(names)), dtype=bool)
        try:
            cpdag = registry.create("pc", max_k=max_k).search(data, init=bound)
        except _Invalid:
            return None
        try:
            edges = dag_extension(cpdag).edge_names()
        except _Invalid:  # pc's orientations conflict
            if order_of is None:
                return None
            rank = np.empty(len(names), dtype=int)
            rank[to_graph(data.names, order_of).topological_order()] = np.arange(len(names))
            ends = [sorted((names.index(cpdag.label(v)) for v in e), key=rank.__getitem__) for e in cpdag.skeleton()]
            edges = [(names[a], names[b]) for a, b in ends]
        for a, b in edges:
            adj[names.index(a), names.index(b)] = True
        return adj

    def _search(self, data: Dataset, scorer: Scorer | None, init: Partition | CausalGraph | None) -> CausalGraph:
        graph = self.run(data, scorer, init)["graph"]
        return graph.cpdag() if self.params.return_type == "cpdag" else graph
