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


def rule(r: dict, least: int, low: int, vote: float) -> bool:
    """'One finite confounder': all pairs dependent, least <= rank <= low, vote share >= vote."""
    return r["pairwise_dependent"] == 1.0 and least <= r["kernel_rank"] <= low and r["vote_share"] >= vote


def table(path: str, max_fpr: float = 0.05) -> None:
    rows = [json.loads(s) for s in open(path) if s.startswith("{")]
    cal = [r for r in rows if r["seed"] % 2 == 0]
    rep = [r for r in rows if r["seed"] % 2 == 1]

    def rates(rs, *g):
        pos = [rule(r, *g) for r in rs if r["positive"]]
        neg = [rule(r, *g) for r in rs if not r["positive"]]
        return np.mean(pos), np.mean(neg)

    grid = [(least, low, vote) for least in (1, 2) for low in range(2, 9) for vote in (0.5, 2 / 3, 1.0)]
    # ties go to the paper's "below 5" (low = 4), then to the weaker conditions
    ok = [(rates(cal, *g)[0], -rates(cal, *g)[1], -abs(g[1] - 4), -g[0], -g[2], g) for g in grid
          if rates(cal, *g)[1] <= max_fpr]
    best = max(ok)[-1] if ok else max((rates(cal, *g)[0] - rates(cal, *g)[1], g) for g in grid)[1]
    print(f"rule chosen on even seeds (max TPR with FPR <= {max_fpr}, then min FPR): {best}; "
          f"calibration TPR/FPR {rates(cal, *best)}")
    cells = list(dict.fromkeys(r["cell"] for r in rows))
    rules = {"old (rank <= 4, vote >= 1/2)": (1, 4, 0.5), "chosen": best}
    print("\n| cell | rate | " + " | ".join(rules) + " | runs | ranks (report runs) |")
    for cell in cells:
        rs = [r for r in rep if r["cell"] == cell]
        vals = " | ".join(f"{np.mean([rule(r, *g) for r in rs]):.2f}" for g in rules.values())
        print(f"| {cell} | {'TPR' if rs[0]['positive'] else 'FPR'} | {vals} | {len(rs)} | "
              f"{sorted(int(r['kernel_rank']) for r in rs)} |")
    for name, g in rules.items():
        print(f"{name}: report TPR {rates(rep, *g)[0]:.2f}, FPR {rates(rep, *g)[1]:.2f}")


if __name__ == "__main__":
    if sys.argv[1] == "--table":
        table(sys.argv[2])
    else:
        run_cell(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None, int(sys.argv[3]) if len(sys.argv) > 3 else 20)
