"""The ``cic`` scorer over cluster graphs."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from macrocause.framework import CausalGraph, Dataset, Params
from macrocause.framework.errors import DataValidationError
from macrocause.framework.score_engine import EngineScorer

PAPER = "Niu, Li, Li. Learning Cluster Causal Diagrams: An Information-Theoretic Approach. IJCAI 2022"


class FamilyScorer(EngineScorer):
    """An engine scorer whose family score may model a cluster given its parent clusters as
    groups (``family_score`` of :mod:`._ils`), not only given the union of their variables."""

    def _family(self, data: Dataset, cluster, parents) -> float:
        from ._ils import family_score

        C, _ = self._indices(data, cluster, parents)
        pa = tuple(sorted(tuple(sorted(data.index(v) for v in p)) for p in parents))
        return family_score(self.engine(data), C, pa)

    def _local_score(self, data: Dataset, cluster: frozenset[str], parents: list[frozenset[str]]) -> float:
        return self._family(data, cluster, parents)

    def _score(self, data: Dataset, graph: CausalGraph) -> float:
        eng = self.engine(data)
        total = 0.0
        for i, cl in enumerate(graph.clusters):
            total += self._family(data, cl, [graph.clusters[p] for p in graph.parents(i)])
        return total + eng.structure(graph.n_nodes, len(graph.directed), len(graph.variables))


class CICParams(Params):
    estimator: Literal["auto", "plugin", "knn", "kl", "copula"] = Field(
        "auto", description="Information estimator: plug-in from counts; knn: Kraskov (KSG) kNN estimators of "
        "each TC and MI; kl: differences of Kozachenko-Leonenko kNN entropies cached per variable subset "
        "(at most 2^d - 1 kNN searches in all: much faster on large N, but the estimators' biases do not "
        "cancel as in KSG); copula: Gaussian-copula entropies (log-determinants of the normal scores' "
        "correlations); auto: plug-in when every column is discrete, else knn up to kl_above samples "
        "and kl above."
    )
    kl_above: int = Field(
        2000, ge=1, description="estimator='auto' on continuous data: KSG (the paper's) up to this many "
        "samples, the cached Kozachenko-Leonenko estimator above (a KSG term costs one joint kNN search, "
        "about 0.25 s at 7,466 samples, and a search meets thousands of terms)."
    )
    k: int = Field(5, ge=1, description="Neighbours of the kNN estimators (continuous data).")
    alphabet: int = Field(
        2, ge=2, description="Alphabet size s_j charged per continuous variable in the penalty (Eq. 5)."
    )
    criterion: Literal["auto", "family", "bic", "eq6"] = Field(
        "auto", description="The score. family (ours, the default): a consistent BIC whose family model has few "
        "parameters: on binary data the best of a parity tilt of the cluster given a table over its parent "
        "clusters' parity or majority features, a full joint table, and independence; on other discrete data "
        "the table; on continuous data a Gaussian-copula likelihood. bic: the full joint table of each cluster "
        "given its parents' variables (Gaussian copula on continuous data), BIC-penalised. eq6: the paper's "
        "Eqs. 4-6 with fit_factor. auto: eq6 when fit_factor is given; else family on discrete data and, on "
        "continuous data, eq6 as printed (f1 = 2N) with the Gaussian-copula estimator (on Sachs it keeps the "
        "paper's two groups, where the family score's Gaussian copula joins all 11 proteins)."
    )
    fit_factor: Literal["2N", "N"] | None = Field(
        None, description="Eq. 6 only: f1(N), the factor of g: 2N as printed in Eq. 6 (the MIT score's; "
        "the default of criterion='eq6'), or N, the log-likelihood's factor (Section 2: LL = -N sum H). "
        "Giving it selects criterion='eq6' under criterion='auto'."
    )
    price: float = Field(
        1.0, gt=0, description="family and bic: multiplier of the BIC penalty (log N)/2 per parameter "
        "(1 = BIC, the default, chosen on tuning draws: docs/plugins/cic.md)."
    )

    @model_validator(mode="after")
    def _criterion(self):
        if self.fit_factor is not None and self.criterion in ("family", "bic"):
            raise ValueError(f"fit_factor belongs to criterion='eq6', not criterion={self.criterion!r}; "
                             "drop fit_factor or set criterion='eq6'.")
        return self

    def resolved(self, discrete: bool = True) -> str:
        """The criterion in use on discrete or continuous data (``auto`` resolved)."""
        if self.criterion == "auto":
            return "eq6" if self.fit_factor is not None or not discrete else "family"
        return self.criterion

    def default_continuous(self, discrete: bool) -> bool:
        """True when criterion='auto' chose Eq. 6 on continuous data by itself (no fit_factor given): then
        f1 = 2N and, with estimator='auto', the Gaussian-copula estimator."""
        return self.criterion == "auto" and self.fit_factor is None and not discrete


class CIC(FamilyScorer):
    """Clustering Information Criterion: fit of a cluster DAG, MDL-penalised.

    By default (``criterion="auto"``) discrete data get the **family score** of :mod:`.family` (a
    consistent BIC whose cluster families have few parameters: a parity tilt given the parent clusters'
    parity or majority features, a full table, or independence, whichever codes shorter), and continuous
    data Eq. 6 as printed with Gaussian-copula entropies. ``criterion="bic"``: full tables only.
    ``criterion="eq6"`` (or any ``fit_factor``): the paper's score,
    ``Score = f1 g(G_C) - (log N / 2) C(G_C)`` with ``f1 = 2N`` (Eq. 6 as printed) or ``N``, and
    ``g = sum_C TC(X_C) + sum_C I(X_C; X_Pa(C)) - sum_C sum_{i in C, j in Pa(C)} I(X_i; X_j)``
    (Eq. 4) and ``C(G_C) = log S(n, m) + |E| log m + sum_C (prod_{C} s_j - 1) prod_{Pa(C)} s_k``
    (Eq. 5). Natural logarithms throughout. ``local_score`` returns a cluster's
    ``f1 g_C - (log N / 2)(prod s_j - 1) prod s_k``; the two terms that depend on the
    number of clusters m (``log S(n, m)`` and ``|E| log m``) are added by ``score``.

    Discrete data use plug-in entropies from counts; continuous data the Kraskov
    (KSG, max-norm) kNN estimators of TC and MI with ``k`` neighbours on columns
    scaled to unit variance, or (``estimator="kl"``) differences of
    Kozachenko-Leonenko entropies cached per variable subset (the default above ``kl_above``
    samples). Continuous variables have no alphabet, so the penalty
    charges each one ``alphabet`` states (default 2, the smallest non-trivial code: a
    continuous variable costs what a binary one costs; larger values make any
    cluster of more than a few continuous variables unaffordable).

    References
    ----------
    Niu, Li, Li. Learning Cluster Causal Diagrams: An Information-Theoretic Approach. IJCAI 2022.
    Kraskov, Stoegbauer, Grassberger. Estimating mutual information. Phys. Rev. E 69, 2004.
    """

    name = "cic"
    Params = CICParams
    paper = PAPER

    def estimator_for(self, data: Dataset) -> str:
        """The estimator used on *data*: ``plugin``, ``knn`` or ``kl`` (``auto`` resolved)."""
        est = self.params.estimator
        if est != "auto":
            return est
        if data.is_discrete:
            return "plugin"
        if self.params.default_continuous(False):
            return "copula"
        return "knn" if data.n_samples <= self.params.kl_above else "kl"

    def uses_knn(self, data: Dataset) -> bool:
        return (self.params.resolved(data.is_discrete) == "eq6"
                and self.estimator_for(data) in ("knn", "kl", "copula"))

    def check_data(self, data: Dataset) -> None:
        data.check(self.name, min_variables=2)
        if self.uses_knn(data):
            k = self.params.k
            if data.n_samples <= k + 1:
                raise DataValidationError(
                    f"cic's kNN estimator with k={k} needs more than {k + 1} samples, got "
                    f"{data.n_samples}. Use more data or a smaller k."
                )

    def _build_engine(self, data: Dataset):
        p = self.params
        criterion = p.resolved(data.is_discrete)
        if criterion != "eq6":
            from .family import FamilyEngine

            return FamilyEngine(data.X, discrete=data.is_discrete, criterion=criterion, price=p.price)
        from .engine import CICEngine

        est = self.estimator_for(data)
        return CICEngine(data.X, discrete=not self.uses_knn(data), k=p.k, alphabet=p.alphabet,
                         knn=est if est in ("kl", "copula") else "ksg", f1=1.0 if p.fit_factor == "N" else 2.0)
