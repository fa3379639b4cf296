"""disco_auto's selection rule on the shared clustering sets: chosen ARI vs the grid's best.

For every set of ../shared/data/clustering and each of ``dbscan`` and ``hdbscan``
(automatic grid, defaults), one ``disco_auto`` run gives the grid's labellings;
the old rule (``rule="disco"``: best DISCO) and the new default
(``rule="structured"``: best DISCO among labellings with >= 2 clusters and at most
half the points noise) are both read off that same grid. The thresholds are fixed
from the definition of a degenerate labelling, not fitted to any ARI here.
Features are z-scored per column (the DISCO authors' "standardized" set-up;
``--raw`` keeps them as stored); sets
above 3,000 points (htru2, pendigits, optdigits) are subsampled to 3,000 with
``numpy.random.default_rng(0)``. ARI counts noise (-1) as one more cluster.
cafe_dbscan is left out: it needs a target of effect states, which these sets lack.

    python benchmarks/disco/auto_selection.py [--raw]   # prints the markdown table
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
# ../shared next to the repository (a worktree one level deeper also finds it)
DATA = next((d for d in (ROOT.parent / "shared", ROOT.parents[1] / "shared") if d.is_dir()),
            ROOT.parent / "shared") / "data" / "clustering"
DATASETS = ["three_spiral", "compound", "aggregation", "smile1", "complex8", "diamond9",
            "htru2", "pendigits", "optdigits"]
PARTITIONERS = ["dbscan", "hdbscan"]
MAX_N = 3000


def load(name: str, max_n: int = MAX_N, seed: int = 0, zscore: bool = True) -> tuple[np.ndarray, np.ndarray]:
    import pandas as pd

    df = pd.read_csv(DATA / f"{name}.csv")
    y = df.pop("label").to_numpy()
    X = df.to_numpy(float)
    if len(y) > max_n:
        keep = np.sort(np.random.default_rng(seed).choice(len(y), max_n, replace=False))
        X, y = X[keep], y[keep]
    if zscore:
        sd = X.std(axis=0)
        X = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    return X, y


def _cell(rec: dict, ari: float) -> str:
    (param, value), = ((k, v) for k, v in rec["params"].items() if k != "seed")
    return f"{param}={value:.3g}: {rec['n_clusters']} cl, {rec['n_noise']} noise, DISCO {rec['disco']:.3f}, **ARI {ari:.3f}**"


def rows(zscore: bool = True):
    from sklearn.metrics import adjusted_rand_score

    from framework import Dataset, registry
    from plugins.disco.auto import select

    for name in DATASETS:
        X, y = load(name, zscore=zscore)
        for partitioner in PARTITIONERS:
            part = registry.create("disco_auto", partitioner=partitioner).partition(Dataset(X))
            grid = part.info["grid"]
            aris = [adjusted_rand_score(y, r["labels"]) if r["labels"] is not None else np.nan for r in grid]
            old, new = select(grid, "disco"), select(grid, "structured")
            yield (name, len(y), partitioner, len(grid), _cell(grid[old], aris[old]), _cell(grid[new], aris[new]),
                   f"{np.nanmax(aris):.3f}", aris[old], aris[new])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--raw", action="store_true", help="features as stored, not z-scored")
    args = ap.parse_args()
    out = ["| data | n | partitioner | grid | old rule (`disco`) | new rule (`structured`) | best ARI on grid |",
           "|---|---|---|---|---|---|---|"]
    old, new = [], []
    for *cells, a_old, a_new in rows(zscore=not args.raw):
        out.append("| " + " | ".join(str(c) for c in cells) + " |")
        old.append(a_old)
        new.append(a_new)
        print(out[-1], file=sys.stderr)
    out.append(f"\nMean ARI over the {len(old)} runs: old rule {np.mean(old):.3f}, new rule {np.mean(new):.3f}.")
    print("\n".join(out))


if __name__ == "__main__":
    main()
