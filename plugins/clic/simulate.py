"""Data sources of the CLIC paper: the two simulated sets and the Wisconsin breast cancer data."""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field

from macrocause.framework import Dataset, DataSource, Params, Partition
from macrocause.framework.errors import DataValidationError

PAPER = "Sgouritsa, Janzing, Peters, Schoelkopf, UAI 2013"

_FAMILIES = ("normal", "t", "beta", "normal_mixture")


def _component_sample(rng: np.random.Generator, size: int) -> np.ndarray:
    """One random zero-centred shape of the paper's list, drawn ``size`` times."""
    family = _FAMILIES[rng.integers(len(_FAMILIES))]
    if family == "normal":
        return rng.normal(0.0, rng.choice([0.7, 1.0, 1.3]), size)
    if family == "t":
        return rng.standard_t(rng.choice([3, 10]), size)
    if family == "beta":
        a, b = rng.choice([0.5, 1.0]), rng.choice([0.5, 1.0])
        return 3.0 * (rng.beta(a, b, size) - a / (a + b))
    sd = np.sqrt(0.7)
    side = rng.integers(0, 2, size) * 2 - 1
    return side * 1.0 + rng.normal(0.0, sd, size)


def product_mixture(
    n_components: int, n_variables: int, n_per_component: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """The paper's first simulated set: a finite mixture of product distributions.

    Z is uniform on ``n_components`` values; per variable and component the shape
    is one of: normal (sd 0.7, 1, 1.3), t (3 or 10 degrees of freedom), beta with
    alpha, beta in {0.5, 1} stretched to width 3, a mixture of two normals
    (variance 0.7, centres +-1); successive components lie ~N(2, 0.3) apart.
    """
    rng = np.random.default_rng(seed)
    n = n_components * n_per_component
    z = rng.integers(0, n_components, n)
    X = np.empty((n, n_variables))
    for j in range(n_variables):
        locs = np.concatenate([[0.0], np.cumsum(rng.normal(2.0, 0.3, n_components - 1))])
        for c in range(n_components):
            idx = np.flatnonzero(z == c)
            X[idx, j] = locs[c] + _component_sample(rng, idx.size)
    return X, z


class ProductMixtureParams(Params):
    n_components: int = Field(2, ge=1, description="m: number of values of the latent class Z.")
    n_variables: int = Field(3, ge=2, description="d: number of observed variables.")
    n_per_component: int = Field(300, ge=2, description="n = n_per_component * m samples.")
    seed: int = Field(0, description="Random seed.")


class ProductMixture(DataSource):
    """The CLIC paper's first simulated set: d variables independent given an m-state class.

    Ground truth ``truth["labels"]`` is the latent class as a sample partition.

    References
    ----------
    Sgouritsa, Janzing, Peters, Schoelkopf. Identifying finite mixtures of
    nonparametric product distributions and causal inference of confounders. UAI 2013, Sec. 6.1.
    """

    name = "clic_sim"
    Params = ProductMixtureParams
    paper = PAPER

    def _load(self) -> Dataset:
        p = self.params
        X, z = product_mixture(p.n_components, p.n_variables, p.n_per_component, p.seed)
        names = [f"X{j + 1}" for j in range(p.n_variables)]
        return Dataset(
            X, names=names, discrete=False, truth={"labels": Partition(z)},
            name=f"clic_sim(m={p.n_components}, d={p.n_variables})",
        )


class DirectLinkParams(Params):
    n_components: Literal[1, 3] = Field(3, description="States of the confounder (1 = none).")
    n_variables: int = Field(2, ge=2, description="d (the paper: 2); the link is X1 -> X2 at any d.")
    strength: float = Field(4.0, description="The direct link: X2 += strength * X1.")
    n_per_component: int = Field(300, ge=2, description="n = n_per_component * m samples.")
    seed: int = Field(0, description="Random seed.")


class DirectLink(DataSource):
    """The CLIC paper's second simulated set: the first set (d = 2) plus a direct link X1 -> X2.

    ``n_variables`` > 2 carries it to more variables (the first set with that d, plus the same link).

    ``X2 += strength * X1``, so X1 and X2 stay dependent given the class (infinite
    rank in theory). ``truth["labels"]`` is the confounder's class.

    References
    ----------
    Sgouritsa, Janzing, Peters, Schoelkopf. UAI 2013, Sec. 6.1.
    """

    name = "clic_sim_link"
    Params = DirectLinkParams
    paper = PAPER

    def _load(self) -> Dataset:
        p = self.params
        X, z = product_mixture(p.n_components, p.n_variables, p.n_per_component, p.seed)
        X[:, 1] += p.strength * X[:, 0]
        return Dataset(
            X, names=[f"X{j + 1}" for j in range(p.n_variables)], discrete=False,
            truth={"labels": Partition(z)}, name=f"clic_sim_link(m={p.n_components}, d={p.n_variables})",
        )


_LINKS = (lambda x: np.tanh(2 * x), lambda x: 2 * np.sin(x), lambda x: 0.5 * x**2, lambda x: x**3 / 3,
          lambda x: np.exp(x / 2))


class AdditiveNoiseTripleParams(Params):
    kind: Literal["chain", "fork"] = Field("chain", description="X1 -> X2 -> X3, or X2 <- X1 -> X3.")
    n_samples: int = Field(500, ge=10, description="Number of samples.")
    seed: int = Field(0, description="Random seed (shapes, links, noise).")


class AdditiveNoiseTriple(DataSource):
    """Three variables with direct nonlinear links and no confounder (kernel_rank's negative control).

    X1 is one of the first set's component shapes (standardised); each link is drawn from
    tanh(2x), 2 sin x, x^2/2, x^3/3, exp(x/2) (two different ones), its output standardised
    plus Gaussian noise of sd U(0.3, 1).
    """

    name = "anm_triple"
    Params = AdditiveNoiseTripleParams
    paper = PAPER

    def _load(self) -> Dataset:
        p = self.params
        rng = np.random.default_rng(p.seed)
        n = p.n_samples
        x1 = _component_sample(rng, n)
        x1 = x1 / x1.std()
        f, g = (_LINKS[i] for i in rng.choice(len(_LINKS), 2, replace=False))
        x2 = f(x1)
        x2 = x2 / x2.std() + rng.uniform(0.3, 1.0) * rng.standard_normal(n)
        x3 = g(x2 if p.kind == "chain" else x1)
        x3 = x3 / x3.std() + rng.uniform(0.3, 1.0) * rng.standard_normal(n)
        return Dataset(np.column_stack([x1, x2, x3]), names=["X1", "X2", "X3"], discrete=False,
                       name=f"anm_triple({p.kind})")


class WDBCParams(Params):
    features: tuple[str, ...] = Field(
        ("mean perimeter", "mean compactness", "mean texture"),
        min_length=1,
        description="Feature names of sklearn's load_breast_cancer (spaces or underscores).",
    )
    n_samples: int | None = Field(None, ge=10, le=569, description="A seeded draw of this many masses "
                                  "(without replacement); None = all 569.")
    standardize: bool = Field(False, description="Scale each feature to mean 0, sd 1.")
    seed: int = Field(0, description="Random seed of the draw.")


class WDBC(DataSource):
    """Wisconsin diagnostic breast cancer data (569 masses) from scikit-learn, no download.

    The default features are the paper's perimeter, compactness and texture;
    ``truth["labels"]`` is the diagnosis (0 = malignant, 1 = benign).

    References
    ----------
    Street, Wolberg, Mangasarian. Nuclear feature extraction for breast tumor
    diagnosis. 1993. UCI Machine Learning Repository.
    """

    name = "wdbc"
    Params = WDBCParams
    paper = PAPER

    def _load(self) -> Dataset:
        from sklearn.datasets import load_breast_cancer

        raw = load_breast_cancer()
        names = [str(s) for s in raw.feature_names]
        cols = []
        for f in self.params.features:
            key = f.replace("_", " ")
            if key not in names:
                raise DataValidationError(
                    f"wdbc: unknown feature {f!r}; choose among {[s.replace(' ', '_') for s in names]}."
                )
            cols.append(names.index(key))
        X, y = raw.data[:, cols], raw.target
        if self.params.n_samples is not None:
            rows = np.sort(np.random.default_rng(self.params.seed).choice(len(X), self.params.n_samples,
                                                                          replace=False))
            X, y = X[rows], y[rows]
        if self.params.standardize:
            X = (X - X.mean(0)) / X.std(0)
        return Dataset(
            X, names=[names[c].replace(" ", "_") for c in cols], discrete=False,
            truth={"labels": Partition(y)}, name="wdbc",
        )
