"""Calibration of kernel_rank's confounder reading for d >= 3 (issue 15, part 7).

Negatives (direct links, or a direct link besides a confounder): the paper's second simulated
set carried to three variables (the first set with d = 3 and ``X2 += 4 X1``, m = 1 or 3),
nonlinear additive-noise triples (chain X1 -> X2 -> X3 and fork X2 <- X1 -> X3, no confounder)
and WDBC triples of geometrically tied features (subsamples of 400 of the 569 masses).
Positives: the paper's first set (d variables independent given an m-state class).

    python benchmarks/clic/confounder_calibration.py CELL [CSV [RUNS]]  # one cell -> JSON lines on stdout
    python benchmarks/clic/confounder_calibration.py --table FILE  # rules chosen on even seeds, reported on odd

Each run records the raw statistics (rank, vote share, pairwise dependence); the rules are
applied afterwards. Seeds 0..RUNS-1 per cell (even = calibration, odd = report); WDBC cells
draw RUNS // 4 subsamples per triple.
"""

from __future__ import annotations

import json
import sys

import numpy as np

WDBC_TRIPLES = (
    ("radius_mean", "perimeter_mean", "area_mean"), ("radius_worst", "perimeter_worst", "area_worst"),
    ("radius_se", "perimeter_se", "area_se"), ("radius_mean", "radius_worst", "area_worst"),
    ("concavity_mean", "concave_points_mean", "concavity_worst"),
    ("compactness_mean", "compactness_worst", "concavity_mean"),
)
FUNCS = (lambda x: np.tanh(2 * x), lambda x: 2 * np.sin(x), lambda x: 0.5 * x**2, lambda x: x**3 / 3,
         lambda x: np.exp(x / 2))


def _anm(kind: str, seed: int, n: int = 500) -> np.ndarray:
    from plugins.clic.simulate import _component_sample

    rng = np.random.default_rng(seed)
    x1 = _component_sample(rng, n)
    x1 = x1 / x1.std()
    f, g = (FUNCS[i] for i in rng.choice(len(FUNCS), 2, replace=False))
    x2 = f(x1)
    x2 = x2 / x2.std() + rng.uniform(0.3, 1.0) * rng.standard_normal(n)
    src = x2 if kind == "chain" else x1
    x3 = g(src)
    x3 = x3 / x3.std() + rng.uniform(0.3, 1.0) * rng.standard_normal(n)
    return np.column_stack([x1, x2, x3])


def cell_data(cell: str, seed: int, csv: str | None):
    from plugins.clic.simulate import product_mixture

    if cell.startswith("first"):  # first_d3_m2
        _, d, m = cell.split("_")
        return product_mixture(int(m[1:]), int(d[1:]), 150, seed)[0], True
    if cell.startswith("second"):  # second_d3_m1: the second set's link X2 += 4 X1, three variables
        m = int(cell.split("_")[2][1:])
        X = product_mixture(m, 3, 300 if m == 1 else 150, seed)[0]
        X[:, 1] += 4.0 * X[:, 0]
        return X, False
    if cell.startswith("anm"):
        return _anm(cell.split("_")[1], seed), False
    if cell.startswith("wdbc"):  # wdbc_<triple index>
        import pandas as pd

        cols = WDBC_TRIPLES[int(cell.split("_")[1])]
        X = pd.read_csv(csv)[list(cols)].to_numpy(dtype=float)
        return X[np.random.default_rng(seed).choice(len(X), 400, replace=False)], False
    raise SystemExit(f"unknown cell {cell!r}")


def run_cell(cell: str, csv: str | None, runs: int = 20) -> None:
    from framework import Dataset
    from plugins.clic.evaluators import KernelRank

    kr = KernelRank()
    seeds = range(max(2, runs // 4)) if cell.startswith("wdbc") else range(runs)
    for seed in seeds:
        X, positive = cell_data(cell, seed, csv)
        m = kr._metrics(Dataset(X, discrete=False))
        print(json.dumps({"cell": cell, "seed": seed, "positive": positive, **m}), flush=True)


def rule(r: dict, low: int, vote: float) -> bool:
    return r["pairwise_dependent"] == 1.0 and r["kernel_rank"] <= low and r["vote_share"] >= vote


def table(path: str, max_fpr: float = 0.05) -> None:
    rows = [json.loads(s) for s in open(path) if s.startswith("{")]
    cal = [r for r in rows if r["seed"] % 2 == 0]
    rep = [r for r in rows if r["seed"] % 2 == 1]

    def rates(rs, low, vote):
        pos = [rule(r, low, vote) for r in rs if r["positive"]]
        neg = [rule(r, low, vote) for r in rs if not r["positive"]]
        return np.mean(pos), np.mean(neg)

    grid = [(low, vote) for low in range(1, 9) for vote in (0.5, 2 / 3, 1.0)]
    ok = [(rates(cal, *g)[0], -g[0], g) for g in grid if rates(cal, *g)[1] <= max_fpr]
    best = max(ok)[2] if ok else None
    print(f"rule chosen on even seeds (max TPR with FPR <= {max_fpr}): {best}")
    for name, (low, vote) in (("current (rank <= 4, vote >= 1/2)", (4, 0.5)), ("chosen", best)):
        print(f"\n{name}: per cell, share of runs read as 'one finite confounder' (odd seeds)")
        for cell in dict.fromkeys(r["cell"] for r in rows):
            rs = [r for r in rep if r["cell"] == cell]
            print(f"| {cell} | {'TPR' if rs[0]['positive'] else 'FPR'} | {np.mean([rule(r, low, vote) for r in rs]):.2f} "
                  f"| {len(rs)} | ranks {sorted(int(r['kernel_rank']) for r in rs)} |")
        tpr, fpr = rates(rep, low, vote)
        print(f"overall: TPR {tpr:.2f}, FPR {fpr:.2f}")


if __name__ == "__main__":
    if sys.argv[1] == "--table":
        table(sys.argv[2])
    else:
        run_cell(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None, int(sys.argv[3]) if len(sys.argv) > 3 else 20)
