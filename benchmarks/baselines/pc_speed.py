"""Speed of our PC (``backend="macrocause"``) against causal-learn's on linear-Gaussian data.

Both run through ``registry.create("pc", backend=...).search(ds)`` on the same data in
the same process, alternating, after one warm-up call of ours (numba's cache loads);
reports medians of CPU and wall time, their ratio, the tests computed, and whether
the skeletons agree. The graph is ``linear_gaussian`` with an expected degree of
``--degree`` (``edge_prob = degree / (d - 1)``).

    python benchmarks/baselines/pc_speed.py --variables 50 [--samples 2000] [--repeats 3]

Appends one JSON line per size to ``pc_speed.jsonl`` next to this file.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

from framework import registry

HERE = Path(__file__).resolve().parent


def _timed(pc, ds):
    c, w = time.process_time(), time.perf_counter()
    g = pc.search(ds)
    return g, time.process_time() - c, time.perf_counter() - w


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--variables", type=int, required=True)
    ap.add_argument("--samples", type=int, default=2000)
    ap.add_argument("--degree", type=float, default=3.0)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    d = a.variables
    ds = registry.load_data("linear_gaussian", n_variables=d, n_samples=a.samples,
                            edge_prob=a.degree / (d - 1), seed=a.seed)
    ours, ref = registry.create("pc"), registry.create("pc", backend="causal-learn")
    ours.search(ds)  # warm-up: numba's cached kernels load
    load_before = os.getloadavg()
    times = {"macrocause": [], "causal-learn": []}
    graphs = {}
    for r in range(a.repeats):
        for name, pc in ((("macrocause", ours), ("causal-learn", ref)) if r % 2 == 0
                         else (("causal-learn", ref), ("macrocause", ours))):
            g, cpu, wall = _timed(pc, ds)
            times[name].append((cpu, wall))
            graphs[name] = g
    med = {k: (statistics.median(c for c, _ in v), statistics.median(w for _, w in v)) for k, v in times.items()}
    row = {
        "variables": d, "samples": a.samples, "degree": a.degree, "seed": a.seed, "repeats": a.repeats,
        "cpu_s": {k: round(v[0], 4) for k, v in med.items()},
        "wall_s": {k: round(v[1], 4) for k, v in med.items()},
        "cpu_ratio": round(med["causal-learn"][0] / med["macrocause"][0], 1),
        "wall_ratio": round(med["causal-learn"][1] / med["macrocause"][1], 1),
        "n_tests": ours.last_info["n_tests"],
        "conflicts": {"macrocause": ours.last_info["conflicts"], "causal-learn": ref.last_info["conflicts"]},
        "same_skeleton": graphs["macrocause"].skeleton() == graphs["causal-learn"].skeleton(),
        "same_graph": graphs["macrocause"] == graphs["causal-learn"],
        "loadavg_before": [round(x, 2) for x in load_before],
        "loadavg_after": [round(x, 2) for x in os.getloadavg()],
        "cpus": os.cpu_count(),
    }
    print(json.dumps(row))
    with open(HERE / "pc_speed.jsonl", "a") as f:
        f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
