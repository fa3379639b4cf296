"""Log-log plot of cic_greedy's wall time, CPU time and peak memory against d, from growth_d.yaml's store.

    python benchmarks/cic/growth_d_plot.py STORE OUT.png

The figures are ``macrocause report --growth d``'s (``growth.csv``: medians over seeds of the
``cic_greedy`` step), drawn as the CIC page's one figure: time and CPU beside memory. The grid
runs with ``isolate: true``, so the memory is each run's own peak in a fresh process.
"""

from __future__ import annotations

import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from macrocause.framework.report import report_frames  # noqa: E402
from macrocause.framework.store import ResultStore  # noqa: E402


def main(store: str, out: str) -> None:
    with ResultStore(store, readonly=True) as st:
        g = report_frames(st, "cic_growth_d", metrics=["time", "cpu", "memory"], growth="d")["growth"]
    g = g[g.method.str.endswith("(cic_greedy)")]
    pts = {m: (list(s["size"]), list(s["median"])) for m, s in g.groupby("metric")}
    fig, ax = plt.subplots(1, 2, figsize=(7, 3), dpi=90)
    ax[0].loglog(*pts["time"], "o-", label="wall")
    ax[0].loglog(*pts["cpu"], "s--", label="CPU")
    ax[0].axhline(120, color="grey", ls=":", lw=0.8)
    ax[0].legend(fontsize=8)
    ax[1].loglog(*pts["memory"], "o-")
    ax[1].set_yticks(pts["memory"][1], [f"{v:.0f}" for v in pts["memory"][1]])
    for axis, (sizes, _), label in ((ax[0], pts["time"], "seconds"), (ax[1], pts["memory"], "peak memory MiB")):
        axis.set_xticks(sizes, [f"{d:.0f}" for d in sizes])
        axis.minorticks_off()
        axis.set_xlabel("variables d")
        axis.set_ylabel(label)
        axis.grid(True, alpha=0.3)
    fig.suptitle("cic_greedy(), cic_random parity, clusters of 5, N = 4,000", fontsize=9)
    fig.tight_layout()
    fig.savefig(out)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
