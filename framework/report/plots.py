"""One figure per metric: a facet per dataset, a box per method with one dot per seed; and the
figures of the growth, correlation and selection sections.

matplotlib is imported on first use, with the Agg backend.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .correlate import MEAN, Correlation, run_points
from .metrics import MetricInfo, is_timing, metric_info
from .results import Result, natural_key
from .select import Selection
from .timing import Growth

__all__ = ["plot_metric", "plot_growth", "plot_correlation", "plot_selection", "LOG_RATIO", "MIN_BOX"]

LOG_RATIO = 30.0  # times whose largest is this many times their smallest: every facet in log scale
_COLS = 4
_MAX_WIDTH = 22.0  # inches: a metric's figure stays readable on a page
MIN_BOX = 5  # fewer seeds than this: dots and a median line, no quartile box


def _plt():
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def plot_metric(results: Sequence[Result], info: MetricInfo, path: str | Path,
                methods: Sequence[str] | None = None) -> Path:
    """Save the figure of one metric to *path* (PNG) and return the path.

    Each facet is one dataset; each method a box (quartiles, median line, whiskers
    from min to max; only a median line below :data:`MIN_BOX` seeds) with its seeds
    as dots, drawn clipped to the metric's range.
    *methods* fixes the order and colours (default: sorted names). Non-finite values
    (``inf``, shown in the tables) are not drawn.
    """
    plt = _plt()
    results = [r for r in results if math.isfinite(r.value)]
    if not results:
        return _no_values(plt, info, path)
    datas = sorted({r.data for r in results}, key=natural_key)
    methods = list(methods) if methods is not None else sorted({r.method for r in results}, key=natural_key)
    longest = max(len(m) for m in methods)
    methods_max = max(len({r.method for r in results if r.data == d}) for d in datas)
    facet_w = max(2.6, 0.42 * methods_max + 1.2)
    # at most _MAX_WIDTH inches wide: with many methods, fewer facets a row
    ncol = max(1, min(len(datas), _COLS, int(_MAX_WIDTH // facet_w)))
    nrow = math.ceil(len(datas) / ncol)
    facet_h = 2.4 + 0.045 * min(longest, 40)  # room for the rotated method names
    fig, axes = plt.subplots(nrow, ncol, figsize=(ncol * facet_w + 0.4, nrow * facet_h + 0.9), squeeze=False)
    colors = [plt.get_cmap("tab10")(i % 10) for i in range(len(methods))]
    all_vals = info.clip(r.value for r in results)
    log = is_timing(info.name) and all_vals.size > 0 and all_vals.min() > 0 \
        and all_vals.max() / all_vals.min() > LOG_RATIO
    by_seed = sorted(results, key=lambda r: r.seed)  # dots left to right in seed order
    for ax, data in zip(axes.flat, datas):
        per = {m: info.clip([r.value for r in by_seed if r.data == data and r.method == m])
               for m in methods}
        shown = [m for m in methods if per[m].size]
        boxed = [m for m in shown if per[m].size >= MIN_BOX]
        if boxed:
            box = ax.boxplot([per[m] for m in boxed], positions=[shown.index(m) for m in boxed],
                             widths=0.6, whis=(0, 100), showfliers=False, patch_artist=True,
                             medianprops={"color": "0.15", "lw": 1.2},
                             whiskerprops={"color": "0.45"}, capprops={"color": "0.45"})
            for m, patch in zip(boxed, box["boxes"]):
                color = colors[methods.index(m)]
                patch.set(facecolor=(*color[:3], 0.18), edgecolor=color)
        for x, m in enumerate(shown):
            color, v = colors[methods.index(m)], per[m]
            if v.size < MIN_BOX:
                ax.hlines(np.median(v), x - 0.25, x + 0.25, color="0.15", lw=1.2)
            offsets = np.linspace(-0.18, 0.18, v.size) if v.size > 1 else np.zeros(1)
            ax.scatter(x + offsets, v, s=12, color=color, edgecolor="white", linewidth=0.4, zorder=3)
        flat = np.concatenate([per[m] for m in shown])
        if not log and not math.isfinite(info.high) and np.all(flat == np.round(flat)):  # counts
            from matplotlib.ticker import MaxNLocator

            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        if log:
            _log_axis(ax, np.concatenate([per[m] for m in shown]))
        else:
            ax.set_ylim(*info.limits(flat))
        ax.set_xticks(range(len(shown)))
        ax.set_xticklabels(shown, rotation=30, ha="right", fontsize=8)
        ax.set_xlim(-0.6, len(shown) - 0.4)
        ax.tick_params(axis="y", labelsize=8)
        ax.grid(axis="y", color="0.9", lw=0.6)
        ax.set_axisbelow(True)
        ax.set_title(_facet_title(data), fontsize=8)
    label = info.label.replace("] (", ", log scale] (") if log else info.label
    for ax in axes[:, 0]:
        ax.set_ylabel(label, fontsize=8)
    for ax in axes.flat[len(datas):]:
        ax.set_visible(False)
    n_seeds = max((len({r.seed for r in results if r.data == d}) for d in datas), default=0)
    fig.suptitle(f"{info.name}: {info.direction}\n"
                 f"dots: one per seed (up to {n_seeds}); line: median; box (from {MIN_BOX} seeds): "
                 "quartiles; whiskers: min to max",
                 fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.45 / fig.get_figheight()))  # the two title lines stay clear
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _no_values(plt, info: MetricInfo, path: str | Path) -> Path:
    fig, ax = plt.subplots(figsize=(4, 1.2))
    ax.set_axis_off()
    ax.text(0.5, 0.5, f"{info.name}: no finite value to draw", ha="center", va="center", fontsize=9)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return Path(path)


def _facet_title(data: str) -> str:
    """``"discrete_bn[n_samples=1000,n_variables=6]"`` -> name on one line, parameters below."""
    name, bracket, rest = data.partition("[")
    if not bracket:
        return "\n".join(textwrap.wrap(data, 34))
    params = rest.rstrip("]").split(",")
    return name + "\n" + "\n".join(textwrap.wrap(", ".join(params), 40))


def _log_axis(ax, values: np.ndarray) -> None:
    """Log scale with plain numbers; minor ticks labelled when the facet spans under a decade."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    ax.set_yscale("log")
    plain = FuncFormatter(lambda v, _: f"{v:g}")
    ax.yaxis.set_major_formatter(plain)
    narrow = values.max() / values.min() < 10
    ax.yaxis.set_minor_formatter(plain if narrow else NullFormatter())


def plot_growth(fits: Sequence[Growth], info: MetricInfo, param: str, path: str | Path) -> Path:
    """Save a log-log figure of *fits* (one metric: median over seeds against *param*, a line
    per method and setting, its growth exponent in the legend) to *path* (PNG). Medians of 0
    (a peak memory below the measurement's resolution) are left out of the figure."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    cmap = plt.get_cmap("tab10")
    for i, g in enumerate(fits):
        name = g.method + (f" [{g.setting}]" if g.setting else "")
        slope = "" if math.isnan(g.exponent) else f"  (slope {g.exponent:.2f})"
        shown = [(x, v) for x, v in zip(g.sizes, g.medians) if v > 0]  # 0 has no place on a log axis
        if not shown:
            continue
        ax.plot(*zip(*shown), marker="o", ms=4, lw=1.4, color=cmap(i % 10),
                ls="-" if i < 10 else "--", label=textwrap.shorten(name, 48) + slope)
    from matplotlib.ticker import FuncFormatter, NullFormatter

    ax.set_xscale("log")
    ax.set_yscale("log")
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        axis.set_minor_formatter(NullFormatter())
    ax.set_xticks(sorted({x for g in fits for x in g.sizes}))
    ax.set_xlabel(f"{param} (log scale)")
    ax.set_ylabel(info.label.replace("] (", ", log scale] (") if "[" in info.label else info.label)
    ax.grid(which="both", color="0.92", lw=0.6)
    ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.set_title(f"{info.name} against {param}: {info.direction}\n"
                 "median over seeds; slope: least-squares growth exponent", fontsize=9)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def plot_correlation(results: Sequence[Result], corr: Sequence[Correlation], path: str | Path) -> Path:
    """Save the scatter facets of *corr* to *path* (PNG): per dataset, each correlated metric
    (a colour and marker) against the metric they are correlated with, one point per run,
    Pearson r in the legend; points with a NaN are not drawn."""
    plt = _plt()
    against = corr[0].against
    metrics = list(dict.fromkeys(c.metric for c in corr))
    datas = sorted({c.data for c in corr if c.data != MEAN}, key=natural_key)
    r_of = {(c.metric, c.data): c.pearson for c in corr}
    values = run_points(results)
    ncol = min(len(datas), _COLS)
    nrow = math.ceil(len(datas) / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(ncol * 3.3 + 0.4, nrow * 3.0 + 0.9), squeeze=False)
    markers = "os^Dv<>p*h"
    info = metric_info(against)
    xlabel = info.label if info else against
    for ax, data in zip(axes.flat, datas):
        pts = [v for k, v in values.items() if k[0] == data and against in v]
        for i, m in enumerate(metrics):
            xy = np.array([(v[against], v[m]) for v in pts if m in v], dtype=float).reshape(-1, 2)
            xy = xy[np.isfinite(xy).all(axis=1)]
            r = r_of.get((m, data), math.nan)
            ax.scatter(xy[:, 0], xy[:, 1], s=14, marker=markers[i % len(markers)], alpha=0.75,
                       color=plt.get_cmap("tab10")(i % 10), label=f"{m} (r={r:+.2f})" if not math.isnan(r) else m)
        ax.set_title(_facet_title(data), fontsize=8)
        ax.set_xlabel(xlabel, fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(color="0.92", lw=0.6)
        ax.set_axisbelow(True)
        ax.legend(fontsize=6, frameon=False, loc="best")
    for ax in axes[:, 0]:
        ax.set_ylabel("value of each metric", fontsize=8)
    for ax in axes.flat[len(datas):]:
        ax.set_visible(False)
    fig.suptitle(f"Each metric against {against}, per dataset\n"
                 "one point per run (a method with a seed); r: Pearson correlation", fontsize=9)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_selection(sel: Selection, path: str | Path) -> Path:
    """Save the leave-one-dataset-out figure of *sel* to *path* (PNG): per held-out dataset and
    metric, the gap of the setting chosen on the other datasets to the best baseline (bars;
    positive = better) and the default's gap (hollow diamonds)."""
    plt = _plt()
    choices = sel.choices
    n, k = len(choices), len(sel.by)
    fig, ax = plt.subplots(figsize=(7.2, 0.45 * n * max(k, 2) / 2 + 1.6))
    height = 0.8 / k
    cmap = plt.get_cmap("tab10")
    for j, metric in enumerate(sel.by):
        y = np.arange(n) + (j - (k - 1) / 2) * height
        held = [c.gaps(c.values, sel.infos)[metric] for c in choices]
        default = [c.gaps(c.default_values, sel.infos)[metric] for c in choices]
        ax.barh(y, held, height=height * 0.9, color=cmap(j % 10), alpha=0.8, label=f"{metric}, held out")
        ax.scatter(default, y, marker="D", s=22, facecolors="none", edgecolors="black", lw=0.9,
                   label="the default" if j == 0 else None, zorder=3)
    ax.axvline(0.0, color="0.3", lw=0.8)
    ax.set_yticks(np.arange(n))
    ax.set_yticklabels([f"{c.data}  ({'above' if c.above(c.values, sel.infos) else 'not above'})"
                        for c in choices], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("value minus the best baseline's (positive = better)", fontsize=8)
    ax.tick_params(axis="x", labelsize=7)
    ax.grid(axis="x", color="0.92", lw=0.6)
    ax.set_axisbelow(True)
    ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.set_title(textwrap.fill(f"{sel.among}: the setting chosen on the other datasets, on each held-out "
                               f"dataset, against the best baseline; default: {sel.default}", 90), fontsize=8)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path
