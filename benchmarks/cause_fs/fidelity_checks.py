"""The fidelity/scale checks behind the docs page's "What we checked" section.

Runs at 20 features, with 10 k-means runs per rating:

- CAUSE-FS with the Eq. (15) balance kernel (the one the plugin uses);
- the same with the group-size-normalised MMD of Eq. (2)/(5) (``groupnorm``);
- the same with gamma_i and xi_i re-set at every S/G update, as the paper does (``gamma``);
- two reference selectors that use the labels: the Fisher score, and the l2,1 regression of
  CAUSE-FS fitted to the true class indicator.

With ``--subsets`` it runs only the subset (not ranking) selections instead: greedy forward selection
of 20 features (``plugins.cause_fs._subset.greedy_subset``) fitting the true class indicator
(supervised), or CAUSE-FS's learned embedding F with weights mu (alpha = 1 and 100; the plugin's
``selection="greedy"``), beside the paper's ``||W_i||^2`` ranking of the same fit.

    python benchmarks/cause_fs/fidelity_checks.py [--subsets] [digits COIL20 USPS_test2007]

The variants are applied by patching the plugin's internal functions inside this process only.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from framework import registry
from plugins.cause_fs import _core
from plugins.cause_fs import _solvers as S
from plugins.cause_fs._subset import greedy_subset
from plugins.cause_fs.selector import minmax, selection_partition

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as B  # noqa: E402  (benchmarks/cause_fs/run.py)


def groupnorm_kernel(X, block=1024):
    """Eq. (2)/(5): treated and control sums divided by the group sizes, scaled so that a 50/50 split gives Eq. (15)."""
    n = X.shape[0]
    E = X > np.median(X, axis=0)
    nt = E.sum(axis=0).astype(float)
    nc = n - nt
    s = np.where(E, n / (2 * np.maximum(nt, 1)), -n / (2 * np.maximum(nc, 1)))
    s[:, (nt == 0) | (nc == 0)] = 0.0
    SX = s * X
    return (X @ X.T) * (s @ s.T) - SX @ SX.T


def fit_rate(ds, variant: str, **params) -> tuple[float, float, int]:
    k = int(np.unique(ds.truth["labels"].labels).size)
    saved = (S.balance_kernel, _core.update_S, _core.update_G)
    if variant == "groupnorm":
        S.balance_kernel = groupnorm_kernel
    elif variant == "gamma":
        def update_S(st, _f=saved[1]):
            st.gamma = [np.zeros_like(g) for g in st.gamma]
            _f(st)

        def update_G(st, _f=saved[2]):
            st.xi = np.zeros_like(st.xi)
            _f(st)
        _core.update_S, _core.update_G = update_S, update_G
    try:
        res = registry.create("cause_fs", n_clusters=k, n_select=20, **params).partition(ds)
    finally:
        S.balance_kernel, _core.update_S, _core.update_G = saved
    m = B.evaluate(ds, res, 10, counts=(20,))
    return m["acc@20"], m["nmi@20"], int((res.info["mu"] > 0).sum())


def references(ds) -> dict:
    X = minmax(ds.X)
    y = ds.truth["labels"].labels
    n, d = X.shape
    cls = np.unique(y)
    mean = X.mean(axis=0)
    sb = sum((y == c).sum() * (X[y == c].mean(axis=0) - mean) ** 2 for c in cls)
    sw = sum(((X[y == c] - X[y == c].mean(axis=0)) ** 2).sum(axis=0) for c in cls)
    out = {"Fisher": selection_partition(np.where(sw > 0, sb / np.maximum(sw, 1e-12), 0.0), 20, ds.names)}
    Y = (y[:, None] == cls[None]).astype(float)
    F = Y / np.sqrt(Y.sum(axis=0))
    Xt = X / n
    for r in (1e-5, 1e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1):
        Dg = np.ones(d)
        for _ in range(30):
            W = np.linalg.solve(Xt.T @ Xt + r * np.diag(Dg), Xt.T @ F)
            Dg = 1.0 / (2.0 * np.sqrt((W**2).sum(axis=1) + 1e-10))
        out[f"l21 on true F, lambda/alpha={r:g}"] = selection_partition((W**2).sum(axis=1), 20, ds.names)
    return {k: B.evaluate(ds, p, 10, counts=(20,)) for k, p in out.items()}


def subsets(ds) -> dict:
    X = minmax(ds.X)
    y = ds.truth["labels"].labels
    n, d = X.shape
    k = int(np.unique(y).size)
    order = {"labels (supervised)": greedy_subset(X, (y[:, None] == np.unique(y)[None]).astype(float), np.ones(n), 20)[0]}
    for alpha in (1.0, 100.0):
        st = _core.init_state(X, alpha=alpha, beta=1e5, lam=1e-3, k=5, h=k, variant="full", max_groups=10, seed=0)
        _core.iterate(st, max_iter=20, tol=1e-6, max_groups=10)
        order[f"CAUSE-FS F and mu, alpha={alpha:g}"] = greedy_subset(X, st.F, st.mu, 20)[0]
        order[f"CAUSE-FS ||W_i||^2 ranking, alpha={alpha:g}"] = np.argsort(-_core.contributions(st))[:20]
    return {label: B.evaluate(ds, selection_partition(np.zeros(d), 20, ds.names, selected=sel), 10, counts=(20,))
            for label, sel in order.items()}


def main(names) -> None:
    only_subsets = "--subsets" in names
    names = [a for a in names if a != "--subsets"] or ["digits", "COIL20"]
    for name in names:
        ds = B.load(name)
        allf = B.evaluate(ds, registry.create("all_features").partition(ds), 10, all_features=True)
        print(f"{name}: all features ACC {allf['acc@20']:.3f} NMI {allf['nmi@20']:.3f}", flush=True)
        if only_subsets:
            for label, m in subsets(ds).items():
                print(f"  greedy subset / {label:34s} ACC@20 {m['acc@20']:.3f} NMI@20 {m['nmi@20']:.3f}", flush=True)
            continue
        for variant in ("eq15", "groupnorm", "gamma"):
            acc, nmi, nz = fit_rate(ds, variant)
            print(f"  CAUSE-FS {variant:10s} ACC@20 {acc:.3f} NMI@20 {nmi:.3f} mu>0 {nz}/{ds.n_samples}", flush=True)
        for label, m in references(ds).items():
            print(f"  {label:34s} ACC@20 {m['acc@20']:.3f} NMI@20 {m['nmi@20']:.3f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
