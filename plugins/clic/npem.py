"""npEM: nonparametric EM for finite mixtures of product densities (Levine, Hunter, Chauveau 2011)."""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field

from macrocause.framework import Dataset, Params, Partition, Partitioner
from macrocause.framework.errors import DataValidationError


class NPEMParams(Params):
    n_components: int = Field(2, ge=1, description="Number of components m (known).")
    max_iter: int = Field(200, ge=1, description="Maximum EM iterations.")
    tol: float = Field(1e-6, gt=0, description="Stop when the smoothed log-likelihood gains less (per point).")
    grid: int = Field(200, ge=20, description="Grid points per variable for the smoothing integrals.")
    assign: Literal["argmax", "sample"] = Field(
        "argmax", description="Labels from the posterior: most probable, or drawn (as in the CLIC paper)."
    )
    seed: int = Field(0, description="Random seed (k-means initialisation, sampled labels).")


class NPEM(Partitioner):
    """Nonparametric EM (npMSL) for mixtures of products of univariate densities, m known.

    Maximum smoothed likelihood: the E-step weights use the nonlinearly smoothed
    densities ``N f(x) = exp(int K_h(x - u) log f(u) du)``, the M-step sets each
    component density to the posterior-weighted Gaussian kernel density estimate.
    One bandwidth per variable, shared by the components (Silverman's rule), as in
    the paper; integrals on a grid. Initial posteriors from k-means.

    References
    ----------
    Levine, Hunter, Chauveau. Maximum smoothed likelihood for multivariate
    mixtures. Biometrika 98(2):403-416, 2011.
    """

    name = "npem"
    scale_invariant = "global"
    axis = "samples"
    Params = NPEMParams
    paper = "Levine, Hunter, Chauveau, Biometrika 2011"

    def check_data(self, data: Dataset) -> None:
        if data.n_samples < 2 * self.params.n_components:
            raise DataValidationError(
                f"npem needs at least 2 x n_components = {2 * self.params.n_components} samples, "
                f"got {data.n_samples}."
            )

    def _partition(self, data: Dataset) -> Partition:
        from sklearn.cluster import KMeans

        p = self.params
        X = data.X
        n, d = X.shape
        m = p.n_components
        init = KMeans(m, n_init=3, random_state=p.seed).fit_predict(X)
        W = np.full((n, m), 1e-3)
        W[np.arange(n), init] = 1.0
        W /= W.sum(1, keepdims=True)
        sd = X.std(0)
        iqr = np.subtract(*np.percentile(X, [75, 25], axis=0)) / 1.34
        h = 0.9 * np.where(np.minimum(sd, iqr) > 0, np.minimum(sd, iqr), np.where(sd > 0, sd, 1.0)) * n ** -0.2
        grids = [np.linspace(X[:, j].min() - 3 * h[j], X[:, j].max() + 3 * h[j], p.grid) for j in range(d)]
        Kg = [np.exp(-0.5 * ((X[:, j][:, None] - grids[j][None, :]) / h[j]) ** 2) / (h[j] * np.sqrt(2 * np.pi))
              for j in range(d)]
        du = [g[1] - g[0] for g in grids]
        old = -np.inf
        logN = np.zeros((n, m))
        for _ in range(p.max_iter):
            lam = W.mean(0)
            logN[:] = 0.0
            for j in range(d):
                f = (Kg[j].T @ W) / np.maximum(W.sum(0), 1e-300)      # grid x m
                logf = np.log(np.maximum(f, 1e-300))
                logN += (Kg[j] * du[j]) @ logf                        # n x m
            a = np.log(np.maximum(lam, 1e-300)) + logN
            amax = a.max(1, keepdims=True)
            ll = float(np.mean(amax[:, 0] + np.log(np.exp(a - amax).sum(1))))
            W = np.exp(a - amax)
            W /= W.sum(1, keepdims=True)
            if ll - old < p.tol:
                break
            old = ll
        if p.assign == "sample":
            rng = np.random.default_rng(p.seed)
            u = rng.random(n)[:, None]
            labels = (u > np.cumsum(W, 1)).sum(1)
            labels = np.minimum(labels, m - 1)
        else:
            labels = W.argmax(1)
        return Partition(labels, axis="samples", info={"posterior": W, "loglik": ll})
