"""The ``fci`` searcher: causal-learn's Fast Causal Inference, returning a PAG (circle marks kept)."""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field

from macrocause.framework import CausalGraph, Dataset, Params, Searcher
from macrocause.framework.errors import DataValidationError
from macrocause.framework.memory import MemoryEstimate


class FCIParams(Params):
    alpha: float = Field(0.05, gt=0, lt=1, description="Significance level of the independence tests.")
    indep_test: Literal["auto", "fisherz", "chisq", "gsq", "kci"] = Field(
        "auto", description="Conditional independence test; 'auto' = chisq when every variable is discrete, "
        "fisherz otherwise; 'kci' = kernel test (cubic in the number of samples).",
    )
    depth: int = Field(-1, ge=-1, description="Largest conditioning set of the adjacency search; -1 = no limit.")
    max_path_length: int = Field(
        -1, ge=-1, description="Longest discriminating path searched (rule R4); -1 = no limit.")


class FCI(Searcher):
    """Fast Causal Inference (causal-learn's ``fci``): a partial ancestral graph (PAG), latents allowed.

    The skeleton by conditional-independence tests, then possible d-separating sets, unshielded
    colliders and Zhang's orientation rules R1-R4 and R8-R10 (causal-learn). The result keeps
    FCI's endpoint marks: ``a -> b``, ``a <-> b`` (a latent common cause), ``a o-> b`` and
    ``a o-o b`` (undetermined marks); ``shd`` and ``edge_f1`` compare those marks (a PAG's
    ``o->`` never equals a CPDAG's ``->``). causal-learn's rare circle-tail edges and directed cycles
    become ``o-o`` (see :func:`readable_pag`; warned, listed in ``last_info``). Constant columns are
    isolated nodes, with a warning.

    References
    ----------
    Spirtes, Meek, Richardson. Causal inference in the presence of latent variables and selection
    bias. UAI 1995.
    Zhang. On the completeness of orientation rules for causal discovery in the presence of latent
    confounders and selection bias. Artificial Intelligence 172, 2008.
    Zheng et al. Causal-learn: causal discovery in Python. JMLR 25(60), 2024.
    """

    name = "fci"
    scale_invariant = "column"
    Params = FCIParams
    paper = "Spirtes, Meek, Richardson, UAI 1995; Zhang, AIJ 2008 (causal-learn)"

    def test_for(self, data: Dataset) -> str:
        """The independence test used on *data* (resolves ``"auto"``)."""
        t = self.params.indep_test
        return ("chisq" if data.is_discrete else "fisherz") if t == "auto" else t

    def memory_estimate(self, data: Dataset) -> MemoryEstimate:
        """About 4,000 d^2 + 16 n d bytes: causal-learn's graph objects and the data copies."""
        n, d = data.n_samples, data.n_variables
        return MemoryEstimate(4000.0 * d * d + 16.0 * n * d, "about 4,000 d^2 + 16 n d bytes (causal-learn)",
                              "use pc, or fewer variables")

    def check_data(self, data: Dataset) -> None:
        data.check(self.name, min_samples=5, min_variables=2)
        test = self.test_for(data)
        if test in ("chisq", "gsq") and not data.is_discrete:
            cont = [n for n, disc in zip(data.names, data.discrete) if not disc]
            raise DataValidationError(
                f"fci: indep_test={test!r} needs discrete data; continuous variables: {cont}. "
                "Use indep_test='fisherz' (or 'auto').")

    def __init__(self, **params) -> None:
        super().__init__(**params)
        self.last_info: dict = {}

    def _search(self, data: Dataset, scorer, init) -> CausalGraph:
        from ._constant import search_varying

        self.last_info = {"indep_test": self.test_for(data), "conflicts": [], "circle_tail": []}
        return search_varying(self.name, data, self._fci)

    def _fci(self, data: Dataset) -> CausalGraph:
        import contextlib
        import io
        import warnings

        from causallearn.search.ConstraintBased.FCI import fci

        p = self.params
        test = self.test_for(data)
        X = data.X.astype(int) if test in ("chisq", "gsq") else data.X
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):  # its rule prints
            warnings.simplefilter("ignore")
            G, _ = fci(X, test, p.alpha, depth=p.depth, max_path_length=p.max_path_length, verbose=False,
                       show_progress=False)
        M, conflicts, circle_tail = readable_pag(G.graph)
        for key, what, es in (("conflicts", "directed edges on a cycle", conflicts),
                              ("circle_tail", "circle-tail edges (a o-- b)", circle_tail)):
            self.last_info[key] = [(data.names[a], data.names[b]) for a, b in es]
            if es:
                warnings.warn(f"{self.name}: {what} returned o-o: {self.last_info[key]} (last_info[{key!r}]).",
                              UserWarning, stacklevel=5)
        return CausalGraph.from_causallearn(M, data.names)


def readable_pag(M: np.ndarray) -> tuple[np.ndarray, list[tuple[int, int]], list[tuple[int, int]]]:
    """causal-learn's PAG endpoint matrix with the marks CausalGraph cannot hold turned into circles.

    Two cases, rare on finite data (conflicting test results): a circle at one end and a tail at the
    other (``i o-- j``, ``M[i, j] = 2, M[j, i] = -1``; a PAG holds it only with selection variables,
    which CausalGraph has no edge for), and directed edges that close a directed cycle (not
    ancestral). Both become ``i o-o j``: a circle claims no mark, so the edge keeps its adjacency
    and asserts nothing the tests did not. ``M[a, b]`` is the mark at a's end.

    Returns the matrix, the directed edges on a cycle as ``(i, j)`` for the ``i -> j`` they were, and
    the circle-tail edges as ``(i, j)`` for ``i o-- j`` (circle at i).
    """
    from ._pc import resolve_conflicts

    M = np.array(M, copy=True)
    ct = (M == 2) & (M.T == -1)
    M[ct | ct.T] = 2
    M, conflicts = resolve_conflicts(M, mark=2)
    return M, conflicts, [tuple(e) for e in np.argwhere(ct).tolist()]
