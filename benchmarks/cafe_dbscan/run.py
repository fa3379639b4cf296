"""CAFE DBSCAN benchmark: Table II of the paper on DS1-DS3, NMI as noise grows, and speed at n = 200,000.

The issue calls this folder ``benchmarks/cafe``; it is ``benchmarks/cafe_dbscan``.

Usage::

    python benchmarks/cafe_dbscan/baselines.py            # two-step CFL rows, seeds 0-4 (slow, restartable)
    python benchmarks/cafe_dbscan/baselines.py --noise --seeds 0 1 2
    python benchmarks/cafe_dbscan/run.py [--part table|noise|speed|plots|report] [--quick]

``run.py`` measures the CAFE DBSCAN rows (seeds 0-4), the speed part (each method in a fresh
subprocess, for its peak memory) and the plots, reads the two-step rows written by ``baselines.py``
(same seeds, same data) and writes ``results.md`` and ``results.json`` next to this file. Every figure
is measured; nothing is copied in. The automatic mode's design was chosen on seeds 100-104, not on the
reported seeds 0-4.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

from framework import registry

HERE = Path(__file__).resolve().parent
GOALS = {"cafe_ds1": 0.95, "cafe_ds2": 0.93, "cafe_ds3": 0.85}


def scores(truth: np.ndarray, labels: np.ndarray) -> dict:
    """NMI and ARI with noise (-1) as one more label, as in the paper."""
    k = len(set(labels[labels >= 0].tolist()))
    return {"nmi": float(normalized_mutual_info_score(truth, labels)), "ari": float(adjusted_rand_score(truth, labels)),
            "k": k, "noise": bool((labels < 0).any())}


def ceiling(ds) -> float:
    """NMI of the truth with the noise points that fall inside a shape given to that shape: the best a
    method can reach (such points are indistinguishable from the class)."""
    from plugins.cafe_dbscan.simulate import LAYOUTS

    lab = ds.truth["labels"].labels.copy()
    X = ds.X
    for c, s in enumerate(LAYOUTS[ds.name.lower()]):
        if s[0] == "disc":
            inside = np.hypot(X[:, 0] - s[1], X[:, 1] - s[2]) <= s[3]
        else:
            inside = (X[:, 0] >= s[1]) & (X[:, 0] <= s[3]) & (X[:, 1] >= s[2]) & (X[:, 1] <= s[4])
        lab[(lab == -1) & inside] = c
    return float(normalized_mutual_info_score(ds.truth["labels"].labels, lab))


def cafe_plus(ds, refined: bool) -> tuple[dict, dict]:
    """CAFE DBSCAN+ : the grid point with the best NMI against the ground truth (an upper bound)."""
    from plugins.cafe_dbscan._core import cafe_dbscan_grid, heuristic_eps

    truth = ds.truth["labels"].labels
    best, arg = {"nmi": -1}, {}
    mus = (10, 20, 30, 50, 80) if refined else (10, 20, 30, 50, 80, 120)
    qs = (0.1, 0.2, 0.35, 0.5) if refined else (0.1, 0.2, 0.35, 0.5, 0.65)
    taus = (0.1, 0.2, 0.3, 0.4, 0.5) if refined else (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5)
    for mu in mus:
        for q in qs:
            eps = heuristic_eps(ds.X, mu, "euclidean", q)
            for tau, lab in zip(taus, cafe_dbscan_grid(ds.X, ds.target_codes, 5, eps, mu, taus, refined=refined)):
                s = scores(truth, lab)
                if s["nmi"] > best["nmi"]:
                    best, arg = s, {"eps": round(eps, 4), "min_points": mu, "tau": tau}
    return best, arg


def cafe_rows(name: str, seed: int) -> list[dict]:
    """The CAFE DBSCAN rows of Table II for one data set and seed."""
    from plugins.cafe_dbscan._core import heuristic_eps, heuristic_min_points, heuristic_tau

    ds = registry.create(name, seed=seed).load()
    truth = ds.truth["labels"].labels
    k_true = ds.truth["labels"].n_clusters
    rows = [{"method": "Ground truth", **scores(truth, truth), "k": f"{k_true}(+1)"},
            {"method": "Ceiling (in-shape noise given to the shape)", "nmi": ceiling(ds), "ari": float("nan"),
             "k": ""}]
    for label, kw in (("CAFE DBSCAN (automatic)", {}), ("CAFE DBSCAN (automatic, no refinement)", {"refine": False})):
        t0 = time.perf_counter()
        part = registry.create("cafe_dbscan", **kw).partition(ds)
        sec = time.perf_counter() - t0
        s = scores(truth, part.labels)
        rows.append({"method": label, **s, "k": f"{s['k']}(+1)", "seconds": sec,
                     "params": {k: part.info[k] for k in ("eps", "min_points", "tau")}})
    mu = heuristic_min_points(ds.n_samples)
    heur = registry.create("cafe_dbscan", eps=heuristic_eps(ds.X, mu, "euclidean"), min_points=mu,
                           tau=heuristic_tau(5, mu)).partition(ds)
    s = scores(truth, heur.labels)
    rows.append({"method": "CAFE DBSCAN (Section V heuristic)", **s, "k": f"{s['k']}(+1)",
                 "params": {k: heur.info[k] for k in ("eps", "min_points", "tau")}})
    for label, refined in (("CAFE DBSCAN+ (Algorithm 1, tuned on ground truth)", False),
                           ("CAFE DBSCAN+ (refined, tuned on ground truth)", True)):
        plus, arg = cafe_plus(ds, refined)
        rows.append({"method": label, **plus, "k": f"{plus['k']}(+1)", "params": arg})
    return rows


def table_part(seeds) -> dict:
    out = {}
    for name in DATASETS:
        out[name] = {}
        for seed in seeds:
            t0 = time.perf_counter()
            out[name][seed] = cafe_rows(name, seed)
            auto = out[name][seed][2]
            print(f"  {name} seed {seed}: auto NMI {auto['nmi']:.3f} ({auto['seconds']:.1f}s), "
                  f"rows in {time.perf_counter() - t0:.0f}s", flush=True)
    return out


def noise_part(seeds) -> list[dict]:
    from baselines import NOISE_LEVELS

    rows = []
    for seed in seeds:
        for n_noise in NOISE_LEVELS:
            ds = registry.create("cafe_ds2", n_noise=n_noise, seed=seed).load()
            truth = ds.truth["labels"].labels
            row = {"n_noise": n_noise, "seed": seed, "noise_share": n_noise / ds.n_samples,
                   "cafe_auto": scores(truth, registry.create("cafe_dbscan").partition(ds).labels)["nmi"],
                   "cafe_auto_unrefined": scores(truth, registry.create("cafe_dbscan", refine=False)
                                                 .partition(ds).labels)["nmi"]}
            rows.append(row)
            print(f"  noise {n_noise} seed {seed}: {row}", flush=True)
    return rows


SPEED_CHILD = r"""
import json, resource, sys, time
import numpy as np
from framework import registry
method, n_per, n_noise, eps, mu = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
ds = registry.create("cafe_ds2", n_per_class=n_per, n_noise=n_noise).load()
if method.startswith("cafe_dbscan"):
    refine = method == "cafe_dbscan_refined"
    run = lambda d: registry.create("cafe_dbscan", eps=eps, min_points=mu, tau=0.4, refine=refine).partition(d).labels
    run(ds.take(np.arange(2000)))  # load the numba cache outside the timing
elif method == "sklearn_dbscan":
    from sklearn.cluster import DBSCAN
    run = lambda d: DBSCAN(eps=eps, min_samples=mu).fit_predict(d.X)
else:
    run = lambda d: registry.create("cfl_two_step", classifier="mlp", tune=False, clusterer="kmeans",
                                    n_clusters=7).partition(d).labels
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter(); labels = run(ds); sec = time.perf_counter() - t
print(json.dumps({"seconds": sec, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "before_mb": base / 1024, "n_clusters": int(labels.max()) + 1}))
"""
SPEED_METHODS = ("cafe_dbscan", "cafe_dbscan_refined", "sklearn_dbscan", "two_step_mlp_untuned")


def speed_part(quick: bool) -> dict:
    from plugins.cafe_dbscan._core import heuristic_eps

    n_per, n_noise = (7000, 1000) if quick else (28000, 4000)  # 7 classes: n = 50,000 / 200,000
    ds = registry.create("cafe_ds2", n_per_class=n_per, n_noise=n_noise).load()
    mu = 50
    eps = heuristic_eps(ds.X, mu, "euclidean", 0.2)
    out = {"n": ds.n_samples, "eps": eps, "min_points": mu, "load": " ".join(f"{x:.2f}" for x in os.getloadavg())}
    for method in SPEED_METHODS:
        reps = 1 if method == "two_step_mlp_untuned" else 3
        runs = []
        for _ in range(reps):
            res = subprocess.run([sys.executable, "-c", SPEED_CHILD, method, str(n_per), str(n_noise), repr(eps), str(mu)],
                                 capture_output=True, text=True, check=True, cwd=HERE.parents[1])
            runs.append(json.loads(res.stdout.strip().splitlines()[-1]))
        best = min(runs, key=lambda r: r["seconds"])
        out[method] = {**best, "all_seconds": [r["seconds"] for r in runs]}
        print(f"  {method}: {best}", flush=True)
    out["ratio_cafe_over_dbscan"] = out["cafe_dbscan"]["seconds"] / out["sklearn_dbscan"]["seconds"]
    out["ratio_refined_over_dbscan"] = out["cafe_dbscan_refined"]["seconds"] / out["sklearn_dbscan"]["seconds"]
    out["speedup_over_two_step"] = out["two_step_mlp_untuned"]["seconds"] / out["cafe_dbscan"]["seconds"]
    return out


# -- report --------------------------------------------------------------------------------------------
def load_baselines() -> tuple[dict, list[dict]]:
    """Two-step rows by data set and seed, and the noise-sweep baseline rows (from baselines.py)."""
    table: dict = {}
    for path in sorted(HERE.glob("baselines*.jsonl")):
        for line in path.read_text().splitlines():
            r = json.loads(line)
            table.setdefault(r["dataset"], {})[r["seed"]] = r["rows"]
    noise = [json.loads(line) for path in sorted(HERE.glob("noise*.jsonl"))
             for line in path.read_text().splitlines() if line.strip()]
    return table, noise


def fmt(v, nd=2):
    return "" if v is None or (isinstance(v, float) and np.isnan(v)) else f"{v:.{nd}f}"


def ms(vals, nd=3):
    v = np.array([x for x in vals if x is not None and not np.isnan(x)], dtype=float)
    if not v.size:
        return ""
    return f"{v.mean():.{nd}f}" if v.size == 1 else f"{v.mean():.{nd}f} +- {v.std():.{nd}f}"


def merged_rows(res: dict, name: str) -> tuple[list[str], dict]:
    """Method names in table order and, per method, the rows of the seeds that have both parts."""
    cafe = res["table"][name]
    two = res["baselines"].get(name, {})
    seeds = [s for s in cafe if s in two]
    by: dict = {}
    order: list[str] = []
    for s in seeds:
        for r in cafe[s] + two[s]:
            if r["method"] not in by:
                order.append(r["method"])
            by.setdefault(r["method"], []).append(r)
    return order, {"seeds": seeds, "rows": by}


def write_md(res: dict) -> str:
    seeds_all = sorted({int(s) for t in res["table"].values() for s in t})
    lines = ["# CAFE DBSCAN benchmark", "",
             f"Machine: {res['machine']}, shared with other jobs (load average at start {res['load']}). Generated by "
             "`python benchmarks/cafe_dbscan/baselines.py` (two-step rows) and `python benchmarks/cafe_dbscan/run.py`. "
             "The issue's `benchmarks/cafe` is this folder.", "",
             f"## Table II (DS1-DS3, mean +- sd over seeds {', '.join(map(str, seeds_all))})", "",
             "NMI/ARI with noise (-1) counted as one more label, as in the paper. Rows marked *tuned on ground truth* "
             "and the (H)DBSCAN rows of the two-step baselines pick the best grid point by NMI against the truth, as "
             "in the paper: upper bounds, not usable settings (grids in `baselines.py`: DBSCAN eps 0.005-0.16 x "
             "min_samples 5-400, 49 points; HDBSCAN min_cluster_size 25-800 x min_samples 5-50, 24 points). k-means gets the true k (marked *), mean over 10 "
             "k-means seeds (each the best of 10 initialisations). Classifiers are grid-searched on a 70/30 split "
             "(held-out log-loss; full grids of `two_step.GRIDS`, none reduced), then refitted on all data; *acc* is the held-out "
             "accuracy. k is that of seed 0. The automatic mode's design (grid, refinement, selection) was chosen "
             "on seeds 100-104; the seeds here were not used to choose it (session 2 looked at error breakdowns on DS1 "
             "seed 2 and DS3 seeds 3-4 to find where it lost, then decided on seeds 100-104; see the docs page).", ""]
    hdr = "| Method | " + " | ".join(f"{d.upper()} acc | k | NMI | ARI" for d in ("ds1", "ds2", "ds3")) + " |"
    lines += [hdr, "|---|" + "---|---|---|---|" * 3]
    merged = {d: merged_rows(res, d) for d in DATASETS}
    for nm in merged["cafe_ds1"][0]:
        cells = []
        for d in DATASETS:
            rs = merged[d][1]["rows"].get(nm, [])
            if not rs:
                cells.append(" | | | ")
                continue
            acc = fmt(float(np.mean([r["acc"] for r in rs])) if "acc" in rs[0] else None)
            cells.append(f"{acc} | {rs[0].get('k', '')} | {ms([r['nmi'] for r in rs], 2)} | "
                         f"{ms([r.get('ari', float('nan')) for r in rs], 2)}")
        lines.append(f"| {nm} | " + " | ".join(cells) + " |")
    lines += ["", "## Automatic mode against the goals and every two-step combination", "",
              "| Data | n | automatic NMI per seed | mean | goal | best two-step NMI per seed (which) | "
              "seeds where automatic beats all 12 two-step rows | chosen eps, mu, tau (seed 0) | seconds (seed 0) |",
              "|---|---|---|---|---|---|---|---|---|"]
    for d in DATASETS:
        rows = merged[d][1]["rows"]
        seeds = merged[d][1]["seeds"]
        auto = rows["CAFE DBSCAN (automatic)"]
        two = {nm: rs for nm, rs in rows.items() if "/" in nm}
        best_per_seed = [max(((nm, rs[i]["nmi"]) for nm, rs in two.items()), key=lambda t: t[1]) for i in range(len(seeds))]
        wins = sum(a["nmi"] > b[1] for a, b in zip(auto, best_per_seed))
        p = auto[0]["params"]
        per_seed = ", ".join(f"{a['nmi']:.3f}" for a in auto)
        lines.append(
            f"| {d} | {res['n'][d]} | {per_seed} | {np.mean([a['nmi'] for a in auto]):.3f} | "
            f"{GOALS[d]} | {', '.join(f'{b[1]:.3f} ({b[0]})' for b in best_per_seed)} | {wins} / {len(seeds)} | "
            f"{p['eps']:.3f}, {p['min_points']}, {p['tau']} | {auto[0]['seconds']:.1f} |")
    if res.get("noise"):
        lines += ["", "## NMI as uniform noise grows (DS2 layout, mean over seeds)", "",
                  "MLP tuned as above; MLP / HDBSCAN tuned on the ground truth (its grid in `baselines.py`).", "",
                  "| noise points | noise share | seeds | CAFE DBSCAN (automatic) | automatic, no refinement | "
                  "MLP / k-means (k=7) | MLP / HDBSCAN (tuned on truth) |", "|---|---|---|---|---|---|---|"]
        base = {(r["n_noise"], r["seed"]): r for r in res["noise_baselines"]}
        for lvl in sorted({r["n_noise"] for r in res["noise"]}):
            cr = [r for r in res["noise"] if r["n_noise"] == lvl and (lvl, r["seed"]) in base]
            if not cr:
                continue
            br = [base[(lvl, r["seed"])] for r in cr]
            lines.append(f"| {lvl} | {cr[0]['noise_share']:.2f} | {len(cr)} | {ms([r['cafe_auto'] for r in cr])} | "
                         f"{ms([r['cafe_auto_unrefined'] for r in cr])} | {ms([r['mlp_kmeans'] for r in br])} | "
                         f"{ms([r['mlp_hdbscan'] for r in br])} |")
    sp = res.get("speed")
    if sp:
        lines += ["", f"## Speed (n = {sp['n']:,}, 2-D, DS2 layout; eps = {sp['eps']:.4f}, min_points = min_samples = "
                  f"{sp['min_points']}, tau = 0.4)", "",
                  f"Each method in a fresh subprocess; best of 3 runs (1 for the MLP); peak RSS of the process. "
                  f"Load average before: {sp['load']}.", "",
                  "| Method | seconds (all runs) | peak RSS MB | clusters |", "|---|---|---|---|"]
        for m in SPEED_METHODS:
            r = sp[m]
            lines.append(f"| {m} | {r['seconds']:.2f} ({', '.join(f'{x:.2f}' for x in r['all_seconds'])}) | "
                         f"{r['peak_mb']:.0f} | {r['n_clusters']} |")
        lines += ["", f"cafe_dbscan (Algorithm 1) / sklearn DBSCAN time: **{sp['ratio_cafe_over_dbscan']:.2f}x** (goal <= 2x); "
                  f"with the refinement: {sp['ratio_refined_over_dbscan']:.2f}x. Two-step (untuned MLP + k-means) / "
                  f"cafe_dbscan: **{sp['speedup_over_two_step']:.0f}x** (goal >= 10x). sklearn DBSCAN cannot use the "
                  "effect states, hence its many clusters.", ""]
    return "\n".join(lines)


def plots(res: dict) -> None:
    from framework.plotting import pyplot
    from plugins.cafe_dbscan.plots import plot_clusters

    img = HERE.parents[1] / "docs" / "plugins" / "img"
    for name in ("cafe_ds2", "cafe_ds3"):
        ds = registry.create(name, seed=0).load()
        part = registry.create("cafe_dbscan").partition(ds)
        nmi = scores(ds.truth["labels"].labels, part.labels)["nmi"]
        plot_clusters(ds, part, img / f"cafe_dbscan_{name[5:]}_clusters.png",
                      title=f"CAFE DBSCAN (automatic) on {name[5:].upper()}, seed 0: NMI {nmi:.3f}")
    if res.get("noise"):
        plt = pyplot()
        base = {(r["n_noise"], r["seed"]): r for r in res["noise_baselines"]}
        levels = sorted({r["n_noise"] for r in res["noise"]})
        fig, ax = plt.subplots(figsize=(6, 4))
        for key, label, src in (("cafe_auto", "CAFE DBSCAN (automatic)", "cafe"),
                                ("cafe_auto_unrefined", "CAFE DBSCAN (automatic, no refinement)", "cafe"),
                                ("mlp_kmeans", "MLP / k-means (true k)", "base"),
                                ("mlp_hdbscan", "MLP / HDBSCAN (tuned on truth)", "base")):
            xs, ys = [], []
            for lvl in levels:
                cr = [r for r in res["noise"] if r["n_noise"] == lvl and (lvl, r["seed"]) in base]
                if cr:
                    vals = [r[key] for r in cr] if src == "cafe" else [base[(lvl, r["seed"])][key] for r in cr]
                    xs.append(cr[0]["noise_share"])
                    ys.append(np.mean(vals))
            ax.plot(xs, ys, marker="o", label=label)
        ax.set_xlabel("share of uniform noise points")
        ax.set_ylabel("NMI (noise as one label)")
        ax.set_title("DS2 layout: NMI as uniform noise grows")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(img / "cafe_dbscan_noise.png", dpi=110)
        plt.close(fig)


DATASETS = ("cafe_ds1", "cafe_ds2", "cafe_ds3")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--part", choices=("all", "table", "noise", "speed", "plots", "report"), default="all")
    ap.add_argument("--quick", action="store_true", help="seeds 0-1 and n = 50,000 for speed")
    ap.add_argument("--seeds", type=int, nargs="+", default=None)
    args = ap.parse_args()
    seeds = args.seeds or ([0, 1] if args.quick else [0, 1, 2, 3, 4])
    path = HERE / "results.json"
    res = json.loads(path.read_text()) if path.exists() and args.part != "all" else {}
    if "table" in res:  # json keys are strings
        res["table"] = {d: {int(s): rows for s, rows in t.items()} for d, t in res["table"].items()}
    res.update({"machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores",
                "load": " ".join(f"{x:.2f}" for x in os.getloadavg())})
    res["n"] = {d: registry.create(d).load().n_samples for d in DATASETS}
    if args.part in ("all", "speed"):
        print("speed", flush=True)
        res["speed"] = speed_part(args.quick)
    if args.part in ("all", "table"):
        print("table II", flush=True)
        res["table"] = table_part(seeds)
    if args.part in ("all", "noise"):
        print("noise sweep", flush=True)
        res["noise"] = noise_part(args.seeds or [0, 1, 2])
    res["baselines"], res["noise_baselines"] = load_baselines()
    path.write_text(json.dumps(res, indent=1, default=str))
    if args.part in ("all", "plots"):
        plots(res)
    if "table" in res:
        (HERE / "results.md").write_text(write_md(res))
        print(write_md(res))


if __name__ == "__main__":
    main()
