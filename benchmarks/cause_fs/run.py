"""CAUSE-FS benchmark: the paper's Table II protocol (k-means ACC/NMI on 20..100 selected
features) through the registry, the ablations CAUSE-FS-I/II, Laplacian score, all features,
and speed (COIL20 wall time and peak memory in a subprocess; synthetic 9,298 x 256).

    python benchmarks/cause_fs/run.py [--quick] [--datasets digits,COIL20,USPS_test2007]

Writes benchmarks/cause_fs/results.md, results.json and docs/plugins/img/cause_fs_*.png.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SHARED = ROOT.parent / "shared" / "data" / "feature_selection"
IMG = ROOT / "docs" / "plugins" / "img"
SHAPES = {"digits": (8, 8), "COIL20": (32, 32), "USPS_test2007": (16, 16)}
METHODS = [("CAUSE-FS", "cause_fs", {}), ("CAUSE-FS-I", "cause_fs", {"variant": "no_causal"}),
           ("CAUSE-FS-II", "cause_fs", {"variant": "no_multigranular"}),
           ("LapScore", "laplacian_score", {}), ("AllFea", "all_features", {})]


def load(name: str):
    from framework import registry

    if name == "digits":
        return registry.load_data("digits")
    return registry.load_data("mat", path=str(SHARED / f"{name}.mat"))


def _worker(spec: dict) -> None:
    """Subprocess: fit one selector, print its scores and timing as JSON."""
    from framework import registry

    if spec["dataset"] == "synthetic":
        from framework import Dataset

        rng = np.random.default_rng(0)
        ds = Dataset(rng.random((9298, 256)), discrete=False)
    else:
        ds = load(spec["dataset"])
    t = time.perf_counter()
    res = registry.create(spec["method"], **spec["params"]).partition(ds)
    secs = time.perf_counter() - t
    info = res.info
    print(json.dumps({"seconds": secs, "scores": np.asarray(info["scores"]).tolist(),
                      "objective": [float(v) for v in info.get("objective", [])],
                      "n_iter": info.get("n_iter"), "h": info.get("h")}))


def in_subprocess(spec: dict, timeout: float | None = None) -> dict:
    """Run a fit in a fresh interpreter; wall time and the children's peak RSS (ru_maxrss, KiB)."""
    t = time.perf_counter()
    try:
        p = subprocess.run([sys.executable, __file__, "--worker", json.dumps(spec)], capture_output=True,
                           text=True, timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return {"ok": False, "reason": f"not finished within {timeout:.0f} s (killed)",
                "wall_seconds": time.perf_counter() - t}
    wall = time.perf_counter() - t
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if p.returncode != 0:
        return {"ok": False, "reason": p.stderr.strip().splitlines()[-1] if p.stderr else f"rc {p.returncode}",
                "wall_seconds": wall}
    out = json.loads(p.stdout.strip().splitlines()[-1])
    out.update(ok=True, wall_seconds=wall, peak_rss_mib_children_max=rss / 1024)
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="digits + COIL20, 5 k-means runs, 20/60/100, max_iter 3")
    ap.add_argument("--datasets", default=None, help="comma list of digits, COIL20, USPS_test2007")
    ap.add_argument("--n-runs", type=int, default=None)
    ap.add_argument("--max-iter", type=int, default=None)
    ap.add_argument("--synthetic-timeout", type=float, default=300.0, help="0 = skip the 9,298 x 256 run")
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        _worker(json.loads(a.worker))
        return
    from framework import Partition, registry
    from plugins.cause_fs.plots import plot_objective, plot_selected_pixels

    datasets = (a.datasets.split(",") if a.datasets else
                ["digits", "COIL20"] if a.quick else ["digits", "COIL20", "USPS_test2007"])
    n_runs = a.n_runs or (5 if a.quick else 50)
    max_iter = a.max_iter or (3 if a.quick else 20)
    counts = (20, 60, 100) if a.quick else (20, 40, 60, 80, 100)
    ev = registry.create("fs_protocol", n_features=counts, n_runs=n_runs)
    t0 = time.perf_counter()
    rows, speed, traces = [], {}, {}
    for dname in datasets:
        ds = load(dname)
        k = int(np.unique(ds.truth["labels"].labels).size)
        for label, method, extra in METHODS:
            params = dict(extra)
            if method == "cause_fs":
                params.update(n_clusters=k, max_iter=max_iter, n_select=max(counts))
            elif method == "laplacian_score":
                params.update(n_select=max(counts))
            t = time.perf_counter()
            if dname == "COIL20" and label == "CAUSE-FS" and "COIL20" not in speed:
                # The run's first subprocess, so RUSAGE_CHILDREN's maximum is this fit's peak RSS.
                out = in_subprocess({"dataset": dname, "method": method, "params": params})
                if not out["ok"]:
                    raise RuntimeError(f"COIL20 CAUSE-FS subprocess failed: {out['reason']}")
                speed["COIL20"] = {key: out[key] for key in
                                   ("seconds", "wall_seconds", "peak_rss_mib_children_max", "n_iter")}
                scores = np.asarray(out["scores"])
                res = Partition(np.zeros(scores.size, dtype=np.int64), axis="variables",
                                info={"selected": np.argsort(-scores, kind="stable")[: max(counts)],
                                      "objective": out["objective"]})
                fit_s = out["seconds"]
            else:
                res = registry.create(method, **params).partition(ds)
                fit_s = time.perf_counter() - t
            if method == "all_features":
                # fs_protocol takes the first c ranked columns; AllFea means k-means on all d of them.
                e = registry.create("fs_protocol", n_features=(ds.n_variables,), n_runs=n_runs).evaluate(
                    ds, res, ds.truth["labels"])
                m = e.metrics
                for x in counts:
                    for key in ("acc", "acc_std", "nmi", "nmi_std"):
                        m[f"{key}@{x}"] = m[f"{key}@{ds.n_variables}"]
            else:
                e = ev.evaluate(ds, res, ds.truth["labels"])
            rows.append({"dataset": dname, "n": ds.n_samples, "d": ds.n_variables, "method": label,
                         "params": params, "fit_seconds": fit_s, **e.metrics})
            if label == "CAUSE-FS":
                traces[dname] = [float(v) for v in res.info.get("objective", [])]
                shape = SHAPES.get(dname)
                if shape and ds.n_variables == shape[0] * shape[1]:
                    sel = np.asarray(res.info["selected"])[:20]
                    target = IMG / "cause_fs_pixels.png" if dname == "digits" else HERE / f"pixels_{dname}.png"
                    plot_selected_pixels(sel, shape, target, image=ds.X.mean(axis=0),
                                         title=f"{dname}: top-20 CAUSE-FS pixels")
                    if dname == "digits":
                        plot_objective(traces[dname], IMG / "cause_fs_objective.png",
                                       title="CAUSE-FS objective (Eq. 5), digits")
            print(f"[{time.perf_counter() - t0:7.1f}s] {dname:14s} {label:12s} acc_mean {e.metrics['acc_mean']:.3f} "
                  f"nmi_mean {e.metrics['nmi_mean']:.3f} fit {fit_s:.1f}s", flush=True)
    if a.synthetic_timeout > 0:
        out = in_subprocess({"dataset": "synthetic", "method": "cause_fs",
                             "params": {"n_clusters": 10, "max_iter": max_iter}}, timeout=a.synthetic_timeout)
        speed["synthetic_9298x256"] = (
            {"run": True, "seconds": out["seconds"], "wall_seconds": out["wall_seconds"],
             "peak_rss_mib_children_max": out["peak_rss_mib_children_max"], "n_iter": out["n_iter"]}
            if out["ok"] else {"run": False, "reason": out["reason"]})
    else:
        speed["synthetic_9298x256"] = {"run": False, "reason": "skipped (--synthetic-timeout 0)"}
    setup = {"quick": a.quick, "n_runs": n_runs, "max_iter": max_iter, "n_features": counts,
             "datasets": datasets, "total_seconds": time.perf_counter() - t0}
    (HERE / "results.json").write_text(json.dumps({"setup": setup, "rows": rows, "speed": speed,
                                                   "objective": traces}, indent=1, default=str))
    write_md(setup, rows, speed)
    print(f"done in {setup['total_seconds']:.0f}s")


def write_md(setup, rows, speed) -> None:
    c = setup["n_features"]
    lines = [
        "# CAUSE-FS benchmark results", "",
        f"Setup: k-means ACC / NMI (mean over {setup['n_runs']} runs, k-means++ one init) on the top "
        f"{', '.join(map(str, c))} features; CAUSE-FS defaults except `n_clusters` = number of classes, "
        f"`max_iter={setup['max_iter']}`; quick={setup['quick']}. Shared 2-core machine; total "
        f"{setup['total_seconds']:.0f} s. Counts above d use all d features (digits: d = 64); AllFea is "
        "k-means on all d features (one number, repeated in every column). Fit times include numba "
        "compilation where it happened and vary with the other job's load.", "",
        "| data | method | " + " | ".join(f"ACC@{x}" for x in c) + " | ACC mean | NMI mean | fit s |",
        "|---|---|" + "---|" * (len(c) + 3)]
    for r in rows:
        lines.append(f"| {r['dataset']} | {r['method']} | " + " | ".join(f"{r[f'acc@{x}']:.3f}" for x in c)
                     + f" | {r['acc_mean']:.3f} | {r['nmi_mean']:.3f} | {r['fit_seconds']:.1f} |")
    lines += ["", "## Speed", ""]
    for name, s in speed.items():
        if s.get("run", True) and "seconds" in s:
            lines.append(f"- {name}: fit {s['seconds']:.1f} s (subprocess wall {s['wall_seconds']:.1f} s), "
                         f"peak RSS {s['peak_rss_mib_children_max']:.0f} MiB (max over finished children), "
                         f"{s['n_iter']} iterations")
        else:
            lines.append(f"- {name}: not run: {s['reason']}")
    (HERE / "results.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
