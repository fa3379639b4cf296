"""DISCO speed and memory: ours (MST + dendrogram passes) vs the dense O(n^2) version.

Every measurement runs in its own subprocess (peak RSS of that process). Writes
benchmarks/disco/results.{md,json} and docs/plugins/img/disco_scaling.png.

    python benchmarks/disco/run.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
DATA = ROOT.parent / "shared" / "data" / "clustering"
IMG = ROOT / "docs" / "plugins" / "img"


def synthetic(n: int, seed: int = 0, noise_frac: float = 0.05):
    """10 Gaussian blobs in 2-D plus uniform background noise (label -1)."""
    rng = np.random.default_rng(seed)
    centres = rng.uniform(0, 100, (10, 2))
    nc = int(round(n * (1 - noise_frac)))
    lab = rng.integers(0, 10, nc)
    X = np.concatenate([centres[lab] + rng.normal(0, 2, (nc, 2)), rng.uniform(-10, 110, (n - nc, 2))])
    return X, np.concatenate([lab, np.full(n - nc, -1)])


def load(spec: str):
    if spec.startswith("synthetic:"):
        return synthetic(int(spec.split(":")[1]))
    A = np.loadtxt(DATA / f"{spec}.csv", delimiter=",", skiprows=1)
    return A[:, :-1], A[:, -1].astype(np.int64)


def worker(impl: str, spec: str) -> None:
    """Child process: load, warm up the numba kernels on tiny data, time one evaluation."""
    sys.path.insert(0, str(HERE))
    X, y = load(spec)
    if impl == "ours":
        from plugins.disco._disco import disco_samples as fn
    else:
        from dense import dense_disco_samples as fn
    Xw, yw = synthetic(200)
    fn(Xw, yw, 5)
    t0 = time.perf_counter()
    vals = fn(X, y, 5)
    secs = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2  # KiB -> GiB
    print(json.dumps({"impl": impl, "data": spec, "n": len(X), "d": X.shape[1], "secs": secs,
                      "peak_gb": rss, "value": float(np.mean(vals))}))


def measure(impl: str, spec: str) -> dict:
    out = subprocess.run([sys.executable, __file__, "--worker", impl, spec], capture_output=True, text=True,
                         cwd=ROOT, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"{impl} on {spec} failed:\n{out.stderr[-2000:]}")
    res = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"  {impl:5s} {spec:18s} n={res['n']:>8d}  {res['secs']:8.2f} s  {res['peak_gb']:.2f} GB  "
          f"DISCO={res['value']:.12f}", flush=True)
    return res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="small sizes only (no htru2 dense run, no 1M)")
    ap.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(*args.worker)
        return
    load_before = os.getloadavg()
    pairs = ["synthetic:5000", "complex8"] if args.quick else ["pendigits", "htru2"]
    scale = [10_000, 100_000] if args.quick else [10_000, 100_000, 300_000, 1_000_000]
    dense_scale = [2_000, 5_000] if args.quick else [2_000, 5_000, 10_000, 20_000]
    rows = []
    print("same data, ours vs dense:")
    for spec in pairs:
        ours, dense = measure("ours", spec), measure("dense", spec)
        rows.append({"data": spec, "n": ours["n"], "d": ours["d"], "ours_s": ours["secs"],
                     "dense_s": dense["secs"], "speedup": dense["secs"] / ours["secs"],
                     "ours_gb": ours["peak_gb"], "dense_gb": dense["peak_gb"],
                     "ours_value": ours["value"], "dense_value": dense["value"],
                     "abs_diff": abs(ours["value"] - dense["value"])})
    print("scaling (2-D blobs + 5% noise):")
    sc_ours = [measure("ours", f"synthetic:{n}") for n in scale]
    sc_dense = [measure("dense", f"synthetic:{n}") for n in dense_scale]
    result = {"machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                          "load_before": load_before, "load_after": os.getloadavg()},
              "pairs": rows, "scaling_ours": sc_ours, "scaling_dense": sc_dense}
    suffix = "_quick" if args.quick else ""
    (HERE / f"results{suffix}.json").write_text(json.dumps(result, indent=2))
    write_md(result, HERE / f"results{suffix}.md")
    plot(result, IMG / f"disco_scaling{suffix}.png")


def write_md(r: dict, path: Path) -> None:
    m = r["machine"]
    lines = [
        "# DISCO benchmark: ours vs dense O(n^2)",
        "",
        f"{m['cpus']} CPUs shared with other jobs (load average before {m['load_before'][0]:.2f}, "
        f"after {m['load_after'][0]:.2f}); Python {m['python']}. Each figure is one run in its own "
        "subprocess after a numba warm-up on 200 points; peak = the subprocess's max RSS (data included). "
        "Dense = the same definitions computed as the authors' code does (n x n matrices).",
        "",
        "| data | n | d | ours (s) | dense (s) | speed-up | ours peak (GB) | dense peak (GB) | DISCO ours | DISCO dense | abs diff |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for p in r["pairs"]:
        lines.append(f"| {p['data']} | {p['n']} | {p['d']} | {p['ours_s']:.2f} | {p['dense_s']:.2f} | "
                     f"{p['speedup']:.0f}x | {p['ours_gb']:.2f} | {p['dense_gb']:.2f} | "
                     f"{p['ours_value']:.12f} | {p['dense_value']:.12f} | {p['abs_diff']:.1e} |")
    lines += ["", "Scaling on 2-D blobs + 5% uniform noise (ground-truth labels, min_points = 5):", "",
              "| n | ours (s) | ours peak (GB) | dense (s) | dense peak (GB) |", "|---|---|---|---|---|"]
    dense = {d["n"]: d for d in r["scaling_dense"]}
    ns = sorted({d["n"] for d in r["scaling_ours"]} | set(dense))
    ours = {d["n"]: d for d in r["scaling_ours"]}
    for n in ns:
        o, d = ours.get(n), dense.get(n)
        lines.append(f"| {n} | {o['secs']:.2f} | {o['peak_gb']:.2f} | " if o else f"| {n} | - | - | ")
        lines[-1] += f"{d['secs']:.2f} | {d['peak_gb']:.2f} |" if d else "- | - |"
    path.write_text("\n".join(lines) + "\n")


def plot(r: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path.parent.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(1, 2, figsize=(9, 3.6))
    for key, label, style in (("scaling_ours", "ours (MST + merges)", "o-"), ("scaling_dense", "dense O(n^2)", "s--")):
        pts = r[key]
        ax[0].loglog([p["n"] for p in pts], [p["secs"] for p in pts], style, label=label)
        ax[1].loglog([p["n"] for p in pts], [p["peak_gb"] for p in pts], style, label=label)
    ax[0].set(xlabel="n (2-D, 5% noise)", ylabel="seconds", title="time")
    ax[1].set(xlabel="n (2-D, 5% noise)", ylabel="peak RSS (GB)", title="memory")
    ax[0].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
