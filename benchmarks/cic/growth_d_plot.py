"""Log-log plot of cic_greedy's wall time (growth_d.yaml's store) and peak memory against d.

    python benchmarks/cic/growth_d_plot.py STORE OUT.png 25:8 50:27 100:53

Time: wall and CPU seconds of the ``cic_greedy`` step of each data set of grid ``cic_growth_d`` (data labels d25, d50, ...).
Memory: ``d:MiB`` pairs measured in a fresh process by ``benchmarks/limits/memory_estimates.py`` (the
grid's own ``peak_mb`` follows an identical warm-up run, whose freed caches the timed run reuses).
"""

from __future__ import annotations

import json
import sqlite3
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(store: str, out: str, memory: list[str]) -> None:
    rows = sqlite3.connect(f"file:{store}?mode=ro", uri=True).execute(
        "select data_label, seconds, extra from runs where grid = 'cic_growth_d' and plugin = 'cic_greedy' "
        "and status = 'done'").fetchall()
    t = sorted((int(label[1:]), s, json.loads(extra)["cpu_s"]) for label, s, extra in rows)
    m = sorted((int(a), float(b)) for a, b in (pair.split(":") for pair in memory))
    fig, ax = plt.subplots(1, 2, figsize=(7, 3), dpi=90)
    ax[0].loglog([p[0] for p in t], [p[1] for p in t], "o-", label="wall")
    ax[0].loglog([p[0] for p in t], [p[2] for p in t], "s--", label="CPU")
    ax[0].axhline(120, color="grey", ls=":", lw=0.8)
    ax[0].legend(fontsize=8)
    ax[1].loglog([p[0] for p in m], [p[1] for p in m], "o-")
    ax[1].set_yticks([p[1] for p in m], [f"{p[1]:g}" for p in m])
    for axis, pts, label in ((ax[0], t, "seconds"), (ax[1], m, "peak memory MiB")):
        axis.set_xticks([p[0] for p in pts], [str(p[0]) for p in pts])
        axis.minorticks_off()
        axis.set_xlabel("variables d")
        axis.set_ylabel(label)
        axis.grid(True, alpha=0.3)
    fig.suptitle("cic_greedy(), cic_random parity, clusters of 5, N = 4,000", fontsize=9)
    fig.tight_layout()
    fig.savefig(out)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
