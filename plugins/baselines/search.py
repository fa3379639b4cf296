"""Structure-learning baselines: PC (causal-learn) and Hill-Climb search (pgmpy)."""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field

from macrocause.framework import CausalGraph, Dataset, Params, Searcher, progress
from macrocause.framework.errors import ConfigError, DataValidationError
from macrocause.framework.memory import MemoryEstimate


class PCParams(Params):
    alpha: float = Field(0.05, gt=0, lt=1, description="Significance level of the independence tests.")
    indep_test: Literal["auto", "fisherz", "chisq", "gsq", "kci"] = Field(
        "auto",
        description="Conditional independence test; 'auto' = chisq when every variable is "
        "discrete, fisherz otherwise; 'kci' = kernel test for nonlinear dependence "
        "(cubic in the number of samples: a few hundred to a few thousand; always causal-learn's).",
    )
    stable: bool = Field(True, description="Order-independent (stable) skeleton search.")
    uc_rule: Literal[0, 1, 2] = Field(
        0, description="How unshielded colliders are found (causal-learn's): 0 = separating sets, "
        "1 = maxP (largest p-value without against with the middle node), 2 = definite maxP.",
    )
    uc_priority: Literal[-1, 0, 1, 2, 3, 4] = Field(
        2, description="Which collider wins a conflict (causal-learn's): -1 = the rule's default "
        "(3 for uc_rule 0 and 1, 4 for 2), 0 = overwrite, 1 = bidirected edge, 2 = existing "
        "colliders, 3 = stronger colliders (smaller p with the middle node) first, "
        "4 = stronger* (larger p without it) first. uc_rule=2 takes -1, 2, 3, 4.",
    )
    max_k: int | None = Field(None, ge=0, description="Largest conditioning set; None = no limit.")
    backend: Literal["macrocause", "causal-learn"] = Field(
        "macrocause",
        description="'macrocause' = our numba PC (same decisions as causal-learn's, many times "
        "faster); 'causal-learn' = causal-learn's pc, the reference ('kci' always runs it).",
    )


class PC(Searcher):
    """PC algorithm: a CPDAG from conditional independence tests (ours or causal-learn's).

    chi-square or G-square tests for discrete data, Fisher's z for continuous
    (or mixed) data, the kernel CI test (KCI, Zhang et al. 2011, causal-learn
    backend; the default for ``kci``) on request for nonlinear dependence. Stable skeleton search,
    unshielded colliders found by ``uc_rule`` (separating sets, maxP or definite
    maxP) with conflicts between colliders settled by ``uc_priority``, both with
    causal-learn's meanings and defaults, then Meek's rules. The default backend is
    ours (numba tests and skeleton), which returns causal-learn's marks
    (``backend="causal-learn"`` runs causal-learn itself). ``uc_priority=1`` keeps
    conflicting colliders as bidirected edges (``bidirected_names()``). Directed
    edges that close a cycle (causal-learn's Meek rules can close one) are returned
    undirected by both backends and listed in ``last_info["conflicts"]``. Constant
    columns are isolated nodes, with a warning. With our backend ``last_info``
    also holds ``n_tests`` and ``depth``.

    ``init`` (a graph of single variables; our backend) bounds the skeleton, as in hybrid
    searches: the search removes edges from its adjacencies (directions ignored) instead of
    from the complete graph (pairs not adjacent in it are never joined); a pair not adjacent in
    it that ends with a common neighbour is tested as PC would have, to decide the collider.
    E.g. the moral graph of a DAG found by a score search (its edges and married parents).

    References
    ----------
    Spirtes, Glymour, Scheines. Causation, Prediction, and Search. MIT Press, 2000.
    Colombo, Maathuis. Order-independent constraint-based causal structure learning. JMLR 15, 2014.
    Zheng et al. Causal-learn: causal discovery in Python. JMLR 25(60), 2024.
    """

    name = "pc"
    baseline = True
    scale_invariant = "column"
    Params = PCParams
    init_accepts = ("graph",)
    paper = "Spirtes, Glymour, Scheines 2000 (causal-learn, Zheng et al. JMLR 2024)"

    def __init__(self, **params) -> None:
        super().__init__(**params)
        p = self.params
        if p.indep_test == "kci" and p.backend == "macrocause" and "backend" in p.model_fields_set:
            raise ConfigError(
                "pc: indep_test='kci' needs backend='causal-learn'; backend='macrocause' has "
                "'fisherz', 'chisq', 'gsq' and 'auto'."
            )
        if p.uc_rule == 2 and p.uc_priority in (0, 1):
            raise ConfigError(
                f"pc: uc_rule=2 (definite maxP) takes uc_priority -1, 2, 3 or 4, not {p.uc_priority} "
                "(as causal-learn)."
            )
        self.last_info: dict = {}

    @property
    def backend(self) -> str:
        """The backend that runs (``"kci"`` is causal-learn's only)."""
        return "causal-learn" if self.params.indep_test == "kci" else self.params.backend

    def test_for(self, data: Dataset) -> str:
        """The independence test used on *data* (resolves ``"auto"``)."""
        t = self.params.indep_test
        if t == "auto":
            return "chisq" if data.is_discrete else "fisherz"
        return t

    def memory_estimate(self, data: Dataset) -> MemoryEstimate | None:
        """KCI: about 96 n^2 bytes of dense kernel matrices (measured at n = 300 and 600); otherwise
        PC's d x d matrices (see :func:`macrocause.plugins.baselines._pc.memory_bytes`)."""
        n, d = data.n_samples, data.n_variables
        if self.params.indep_test == "kci":
            return MemoryEstimate(96.0 * n * n, "about 96 n^2 bytes, KCI's kernel matrices",
                                  "subsample to a few thousand samples, or use indep_test='fisherz'")
        from ._pc import MEMORY_GROWTH, memory_bytes

        return MemoryEstimate(memory_bytes(n, d, self.test_for(data) in ("chisq", "gsq")), MEMORY_GROWTH,
                              "select fewer variables (e.g. a clustering step first)")

    def check_data(self, data: Dataset) -> None:
        data.check(self.name, min_samples=5, min_variables=2)
        test = self.test_for(data)
        if test in ("chisq", "gsq") and not data.is_discrete:
            cont = [n for n, disc in zip(data.names, data.discrete) if not disc]
            raise DataValidationError(
                f"{self.name}: indep_test={test!r} needs discrete data; continuous variables: "
                f"{cont}. Use indep_test='fisherz' (or 'auto')."
            )

    def _search(self, data: Dataset, scorer, init) -> CausalGraph:
        from ._constant import varying_columns
        from ._pc import resolve_conflicts, run_pc, to_graph

        p = self.params
        test = self.test_for(data)
        X = data.X.astype(int) if test in ("chisq", "gsq") else data.X
        varying = varying_columns(self.name, X, data.names)
        M = np.zeros((data.n_variables, data.n_variables), np.int8)
        start = None if init is None else self._start(data, init)
        info: dict = {}
        try:
            if len(varying) >= 2:
                Xv = X if len(varying) == X.shape[1] else X[:, varying]
                if self.backend == "macrocause":
                    Mv, info = run_pc(Xv, test, p.alpha, stable=p.stable, max_k=p.max_k, uc_rule=p.uc_rule,
                                      uc_priority=p.uc_priority,
                                      start=None if start is None else start[np.ix_(varying, varying)])
                else:
                    Mv = self._causallearn(Xv, test)
                M[np.ix_(varying, varying)] = Mv
        except ValueError as e:  # numpy's LinAlgError is a ValueError
            if "singular" not in str(e).lower():
                raise
            raise DataValidationError(
                f"{self.name}: the correlation matrix is singular (a variable is a linear function of "
                "others, e.g. a duplicated column); Fisher's z cannot test it. Drop such variables first."
            ) from e
        M, undone = resolve_conflicts(M)
        conflicts = [(data.names[a], data.names[b]) for a, b in undone]
        self.last_info = {"backend": self.backend, "indep_test": test, "conflicts": conflicts, **info}
        return to_graph(M, data.names)

    def _start(self, data: Dataset, init: CausalGraph) -> np.ndarray:
        """The adjacency matrix of *init* (directions ignored) in the data's column order."""
        if self.backend != "macrocause":
            raise ConfigError(f"{self.name}: init (a skeleton bound) needs backend='macrocause'.")
        if not init.is_singleton:
            raise DataValidationError(f"{self.name}: init must be a graph of single variables.")
        names = list(data.names)
        labels = [init.label(i) for i in range(len(init.clusters))]
        unknown = sorted(set(labels) - set(names))
        if unknown:
            raise DataValidationError(f"{self.name}: init has variables not in the data: {unknown}.")
        at = [names.index(v) for v in labels]
        A = np.zeros((len(names), len(names)), dtype=bool)
        for a, b in init.skeleton():
            A[at[a], at[b]] = A[at[b], at[a]] = True
        return A

    def _causallearn(self, X, test: str):
        """causal-learn's endpoint matrix (its progress bar and warnings silenced)."""
        import warnings

        from causallearn.search.ConstraintBased.PC import pc

        p = self.params
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cg = pc(X, alpha=p.alpha, indep_test=test, stable=p.stable, uc_rule=p.uc_rule,
                    uc_priority=p.uc_priority, show_progress=test == "kci" and progress.enabled(),
                    verbose=False, max_k=p.max_k)
        return cg.G.graph


class HillClimbParams(Params):
    scoring: Literal["auto", "bic", "k2", "bdeu", "bic-g", "bic-cg"] = Field(
        "auto",
        description="Score: 'bic', 'k2', 'bdeu' for discrete data, 'bic-g' (Gaussian BIC) for "
        "continuous, 'bic-cg' (conditional Gaussian) for mixed; 'auto' picks bic / bic-g / bic-cg.",
    )
    max_indegree: int | None = Field(None, ge=1, description="Most parents per node; None = no limit.")
    tabu_length: int = Field(100, ge=0, description="Recent moves that may not be undone.")
    epsilon: float = Field(1e-4, ge=0, description="Stop when the best move improves the score less.")
    max_iter: int = Field(1_000_000, ge=1, description="Most moves.")
    equivalent_sample_size: float = Field(10.0, gt=0, description="Prior sample size of 'bdeu'.")
    return_type: Literal["cpdag", "dag"] = Field(
        "cpdag", description="Return the DAG found or its Markov equivalence class (CPDAG)."
    )
    backend: Literal["macrocause", "pgmpy"] = Field(
        "macrocause",
        description="'macrocause' = our NumPy search for the discrete scores (pgmpy's moves, scores "
        "and result, without importing pgmpy); 'pgmpy' = pgmpy's HillClimbSearch, the reference "
        "(the Gaussian scores 'bic-g' and 'bic-cg' always run it).",
    )


_DISCRETE_SCORES = {"bic": "bic-d", "k2": "k2", "bdeu": "bdeu"}


class HillClimb(Searcher):
    """Greedy hill climbing over DAGs with a tabu list (pgmpy's HillClimbSearch, or ours).

    Moves add, remove or reverse one edge; the best move is taken until none
    improves the score by ``epsilon``. With the discrete scores our NumPy search
    (:mod:`._hc`) runs by default: pgmpy's moves and scores to the bit, so the
    same graph, without importing pgmpy (seconds); ``backend="pgmpy"`` runs pgmpy,
    whose search the Gaussian scores always use (discrete columns as categoricals). Ties between equally good moves are broken by a fixed order
    of the moves (pgmpy iterates a set, whose order changes with the hash seed
    of the process), so a result does not depend on the process it ran in.

    References
    ----------
    Koller, Friedman. Probabilistic Graphical Models. MIT Press, 2009, Sec. 18.4.3.
    Ankan, Textor. pgmpy: a Python toolkit for Bayesian networks. JMLR 25(265), 2024.
    """

    name = "hill_climb"
    baseline = True
    scale_invariant = "column"
    Params = HillClimbParams
    paper = "Koller & Friedman 2009 (pgmpy, Ankan & Textor JMLR 2024)"

    def score_for(self, data: Dataset) -> str:
        """pgmpy's name of the score used on *data* (resolves ``"auto"``)."""
        s = self.params.scoring
        if s == "auto":
            return "bic-d" if data.is_discrete else ("bic-g" if data.is_continuous else "bic-cg")
        return _DISCRETE_SCORES.get(s, s)

    def check_data(self, data: Dataset) -> None:
        data.check(self.name, min_samples=2, min_variables=2)
        s = self.params.scoring
        if s in _DISCRETE_SCORES and not data.is_discrete:
            cont = [n for n, disc in zip(data.names, data.discrete) if not disc]
            raise DataValidationError(
                f"{self.name}: scoring={s!r} needs discrete data; continuous variables: {cont}. "
                "Use scoring='bic-g' (continuous), 'bic-cg' (mixed) or 'auto'."
            )
        if s == "bic-g" and not data.is_continuous:
            raise DataValidationError(
                f"{self.name}: scoring='bic-g' needs continuous data; use 'bic-cg' or 'auto' for mixed data."
            )

    def sample_minimum(self, data: Dataset) -> int:
        """Parents + 2 under the Gaussian scores (a regression on p parents with an intercept and a
        residual variance), p = ``max_indegree`` or d - 1; 2 under the discrete ones."""
        if self.score_for(data) in ("bic-g", "bic-cg"):
            return (self.params.max_indegree or data.n_variables - 1) + 2
        return 2

    def memory_estimate(self, data: Dataset) -> MemoryEstimate:
        """About 110 d^2 bytes: pgmpy keeps its candidate edges and score cache as Python
        objects (11 GB measured at d = 10,000)."""
        d = data.n_variables
        return MemoryEstimate(110.0 * d * d, "about 110 d^2 bytes (pgmpy)",
                              "use pc, or fewer variables")

    def _search(self, data: Dataset, scorer, init) -> CausalGraph:
        p = self.params
        score = self.score_for(data)
        options = dict(max_indegree=p.max_indegree, tabu_length=p.tabu_length, epsilon=p.epsilon,
                       max_iter=p.max_iter)
        if p.backend == "macrocause" and score in ("bic-d", "k2", "bdeu"):
            from ._hc import DiscreteScore, hill_climb

            kind = "bic" if score == "bic-d" else score
            edges = hill_climb(DiscreteScore(data.X.astype(np.int64), kind, p.equivalent_sample_size), list(data.names), **options)
        else:
            from ._pgmpy_hc import fit_hill_climb

            edges = fit_hill_climb(data.to_pandas(categorical=True), score,
                                   equivalent_sample_size=p.equivalent_sample_size, **options)
        graph = CausalGraph.from_edges(data.names, edges)
        return graph if p.return_type == "dag" else graph.cpdag()
