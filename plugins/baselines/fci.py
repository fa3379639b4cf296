"""The ``fci`` searcher: causal-learn's Fast Causal Inference, returning a PAG (circle marks kept)."""

from __future__ import annotations

from typing import Literal

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
    ``o->`` never equals a CPDAG's ``->``).

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
        data.check(self.name, min_samples=5, min_variables=2, reject_constant=True)
        test = self.test_for(data)
        if test in ("chisq", "gsq") and not data.is_discrete:
            cont = [n for n, disc in zip(data.names, data.discrete) if not disc]
            raise DataValidationError(
                f"fci: indep_test={test!r} needs discrete data; continuous variables: {cont}. "
                "Use indep_test='fisherz' (or 'auto').")

    def _search(self, data: Dataset, scorer, init) -> CausalGraph:
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
        return CausalGraph.from_causallearn(G.graph, data.names)
