"""Memory estimates against the measured peak: each case runs in a fresh process.

    python benchmarks/limits/memory_estimates.py [CASE ...]     # default: every case

A case prints its estimate (the method's ``memory_estimate`` or the CSV reader's
``csv_memory``: bytes beyond the input) and the peak resident memory the call
added: after a warm-up call on small data (imports, numba kernels), the peak is
reset (``/proc/self/clear_refs``), and the call's peak (``VmHWM``) less the
resident memory just before it (input already loaded) is reported. Linux only.
sogfs runs 2 iterations (each iteration allocates the same). The table on
docs/limits.md comes from here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# name: (kind, n, d)
CASES = {
    "csv 100000 x 40": ("csv", 100_000, 40),
    "csv 200000 x 40": ("csv", 200_000, 40),
    "csv 30 x 80000": ("csv", 30, 80_000),
    "csv 3 x 80000": ("csv", 3, 80_000),
    "sogfs 1500 x 3000": ("sogfs", 1500, 3000),
    "sogfs 3000 x 6000": ("sogfs", 3000, 6000),
    "sogfs 3000 x 600": ("sogfs", 3000, 600),
    "sogfs 6000 x 1200": ("sogfs", 6000, 1200),
    "cic_greedy 4000 x 25": ("cic", 4000, 25),
    "cic_greedy 4000 x 50": ("cic", 4000, 50),
    "cic_greedy 16000 x 50": ("cic", 16000, 50),
    "cic_greedy 4000 x 100": ("cic", 4000, 100),
    "cic_greedy 4000 x 200": ("cic", 4000, 200),
}

CHILD = r"""
import json, sys, time
import numpy as np
kind, n, d, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]

def status(key):
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) * 1024 for line in fh if line.startswith(key))

from macrocause.framework import Dataset, registry
from macrocause.framework.readers import csv_memory, _count_lines
rng = np.random.default_rng(1)
if kind == "csv":
    from pathlib import Path
    small = Path(path).with_name("small.csv")
    small.write_text("a,b\n1,2\n3,4\n")
    Dataset.from_csv(small)  # warm-up: imports
    est = csv_memory(_count_lines(Path(path)), d, d).bytes
    call = lambda: Dataset.from_csv(path)
elif kind == "cic":  # cic_random, parity, clusters of 5 binary variables (the growth grid's data)
    plugin, scorer = registry.create("cic_greedy"), registry.create("cic")
    plugin.search(registry.load_data("cic_random", n_clusters=3, cluster_size=3, n=1000, seed=1), scorer=scorer)
    ds = registry.load_data("cic_random", n_clusters=d // 5, cluster_size=5, n=n, seed=0)
    est = plugin.memory_estimate(ds).bytes
    call = lambda: plugin.search(ds, scorer=registry.create("cic"))
else:
    plugin = registry.create("sogfs", n_clusters=5, max_iter=2)
    for shape in ((600, 80), (600, 700)):  # warm-up: imports and numba kernels, both code paths
        plugin.partition(Dataset(rng.standard_normal(shape)))
    ds = Dataset(np.load(path))
    est = plugin.memory_estimate(ds).bytes
    call = lambda: plugin.partition(ds)
with open("/proc/self/clear_refs", "w") as fh:  # resets the peak (VmHWM) to the current RSS
    fh.write("5")
before, t0 = status("VmRSS:"), time.process_time()
call()
cpu = time.process_time() - t0
peak = status("VmHWM:")
print(json.dumps({"estimate": est, "added": peak - before, "peak": peak, "cpu": cpu}))
"""


def _input(kind: str, n: int, d: int, folder: Path) -> Path:
    import numpy as np

    rng = np.random.default_rng(0)
    if kind == "cic":
        return folder  # drawn by the child
    if kind == "csv":
        path = folder / "data.csv"
        with path.open("w") as fh:
            fh.write(",".join(f"x{j}" for j in range(d)) + "\n")
            for start in range(0, n, 1000):
                block = rng.standard_normal((min(1000, n - start), d))
                fh.write("\n".join(",".join(f"{v:.6f}" for v in row) for row in block) + "\n")
        return path
    path = folder / "data.npy"
    centres = rng.standard_normal((5, d)) * 2
    X = centres[rng.integers(0, 5, n)] + rng.standard_normal((n, d))
    np.save(path, X)
    return path


def run(name: str) -> dict:
    kind, n, d = CASES[name]
    with tempfile.TemporaryDirectory() as tmp:
        path = _input(kind, n, d, Path(tmp))
        env = {**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", str(ROOT)), "MACROCAUSE_MEMORY_LIMIT": "0"}
        out = subprocess.run([sys.executable, "-c", CHILD, kind, str(n), str(d), str(path)],
                             capture_output=True, text=True, env=env, check=True)
    row = json.loads(out.stdout.strip().splitlines()[-1])
    return {"case": name, **row, "ratio": row["estimate"] / row["added"]}


if __name__ == "__main__":
    print(f"load {open('/proc/loadavg').read().split()[:3]}")
    print("| case | estimate MiB | measured MiB | estimate / measured | CPU s |")
    print("|---|---|---|---|---|")
    for name in sys.argv[1:] or CASES:
        r = run(name)
        print(f"| {name} | {r['estimate'] / 2**20:.0f} | {r['added'] / 2**20:.0f} | {r['ratio']:.2f} | "
              f"{r['cpu']:.2f} |", flush=True)
