"""The CVI study: how well do internal scores track ARI across many labellings?

For each dataset of ../shared/data/clustering: the ground truth, DBSCAN (5 eps from
k-distance quantiles), HDBSCAN (3 min_cluster_size), k-means, agglomerative (Ward) and
spectral clustering (k in {k*/2, k*, 2k*}) and 3 uniform random labellings. Each is
rated by DISCO, DBCV (MATLAB variant), silhouette and ARI against the truth; per
dataset we report the Pearson correlation of each internal score with ARI.
Features are z-scored; sets above 20,000 points would be subsampled (none is).
scikit-learn's clusterers are used directly.

    python benchmarks/disco/cvi_study.py
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
DATA = ROOT.parent / "shared" / "data" / "clustering"
IMG = ROOT / "docs" / "plugins" / "img"
DATASETS = ["three_spiral", "compound", "aggregation", "smile1", "complex8", "diamond9",
            "optdigits", "pendigits", "htru2"]
SCORES = ["disco", "dbcv", "silhouette"]
MAX_N = 20000


def labellings(X, y, seed=0):
    import warnings

    from sklearn.cluster import DBSCAN, HDBSCAN, AgglomerativeClustering, KMeans, SpectralClustering

    from plugins.disco.auto import k_distance_eps

    k = len(np.unique(y[y >= 0]))
    ks = sorted({max(2, k // 2), k, 2 * k})
    out = [("ground truth", y)]
    for eps in k_distance_eps(X, 5, quantiles=(0.3, 0.5, 0.7, 0.9, 0.99)):
        out.append((f"DBSCAN eps={eps:.3g}", DBSCAN(eps=eps, min_samples=5).fit_predict(X)))
    for m in (5, 15, 50):
        out.append((f"HDBSCAN mcs={m}", HDBSCAN(min_cluster_size=m, copy=True).fit_predict(X)))
    for kk in ks:
        out.append((f"k-means k={kk}", KMeans(kk, n_init=3, random_state=seed).fit_predict(X)))
        out.append((f"Ward k={kk}", AgglomerativeClustering(kk).fit_predict(X)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sc = SpectralClustering(kk, affinity="nearest_neighbors", n_neighbors=15, random_state=seed,
                                    assign_labels="cluster_qr")
            out.append((f"spectral k={kk}", sc.fit_predict(X)))
    rng = np.random.default_rng(seed)
    for r in range(3):
        out.append((f"random #{r}", rng.integers(0, k, len(y))))
    return out


def silhouette(X, labels):
    from sklearn.metrics import silhouette_score

    n_labels = len(np.unique(labels))
    if not 2 <= n_labels <= len(labels) - 1:
        return float("nan")
    return float(silhouette_score(X, labels))  # noise (-1) counts as one more group


def main() -> None:
    from sklearn.metrics import adjusted_rand_score

    from framework import registry

    disco, dbcv = registry.create("disco"), registry.create("dbcv")
    rows, corr = [], {}
    for name in DATASETS:
        A = np.loadtxt(DATA / f"{name}.csv", delimiter=",", skiprows=1)
        X, y = A[:, :-1], A[:, -1].astype(np.int64)
        if len(X) > MAX_N:
            keep = np.sort(np.random.default_rng(0).choice(len(X), MAX_N, replace=False))
            X, y = X[keep], y[keep]
        sd = X.std(axis=0)
        sd[sd == 0] = 1.0
        X = (X - X.mean(axis=0)) / sd
        t0 = time.perf_counter()
        recs = []
        for label, lab in labellings(X, y):
            lab = np.asarray(lab, dtype=np.int64)
            recs.append({"dataset": name, "labelling": label, "n_clusters": int(len(np.unique(lab[lab >= 0]))),
                         "noise": int((lab == -1).sum()), "ari": float(adjusted_rand_score(y, lab)),
                         "disco": disco.evaluate(X, lab).value, "dbcv": dbcv.evaluate(X, lab).value,
                         "silhouette": silhouette(X, lab)})
        rows += recs
        ari = np.array([r["ari"] for r in recs])
        corr[name] = {}
        for s in SCORES:
            v = np.array([r[s] for r in recs])
            ok = np.isfinite(v)
            corr[name][s] = float(np.corrcoef(v[ok], ari[ok])[0, 1]) if ok.sum() > 2 and v[ok].std() > 0 else float("nan")
        print(f"{name:13s} n={len(X):5d} {len(recs)} labellings {time.perf_counter() - t0:6.1f} s  "
              + "  ".join(f"{s}={corr[name][s]:+.3f}" for s in SCORES), flush=True)
    (HERE / "cvi_results.json").write_text(json.dumps({"correlations": corr, "rows": rows}, indent=1))
    write_md(corr, rows, HERE / "cvi_results.md")
    plot(corr, rows, IMG / "disco_cvi.png")


def write_md(corr, rows, path):
    lines = ["| dataset | " + " | ".join(SCORES) + " |", "|---|" + "---|" * len(SCORES)]
    for name, c in corr.items():
        best = max(SCORES, key=lambda s: -np.inf if np.isnan(c[s]) else c[s])
        cells = [(f"**{c[s]:+.3f}**" if s == best else f"{c[s]:+.3f}") for s in SCORES]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    means = {s: np.nanmean([c[s] for c in corr.values()]) for s in SCORES}
    lines.append("| **mean** | " + " | ".join(f"{means[s]:+.3f}" for s in SCORES) + " |")
    lines += ["", f"{len(rows)} labellings in all; per-labelling scores in cvi_results.json."]
    path.write_text("\n".join(lines) + "\n")


def plot(corr, rows, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path.parent.mkdir(parents=True, exist_ok=True)
    names = list(corr)
    fig, ax = plt.subplots(1, 2, figsize=(12, 4), gridspec_kw={"width_ratios": [2, 1]})
    w = 0.27
    for i, s in enumerate(SCORES):
        ax[0].bar(np.arange(len(names)) + (i - 1) * w, [corr[n][s] for n in names], w, label=s)
    ax[0].set_xticks(np.arange(len(names)), names, rotation=30, ha="right")
    ax[0].axhline(0, color="k", lw=0.5)
    ax[0].set(ylabel="Pearson r with ARI", title="correlation of each score with ARI")
    ax[0].legend()
    sub = [r for r in rows if r["dataset"] == "three_spiral"]
    for s, m in zip(SCORES, "os^"):
        ax[1].scatter([r["ari"] for r in sub], [r[s] for r in sub], marker=m, label=s)
    ax[1].set(xlabel="ARI", ylabel="score", title="three_spiral: every labelling")
    ax[1].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
