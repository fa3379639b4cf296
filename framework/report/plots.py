"""One figure per metric: a facet per dataset, a box per method with one dot per seed; and the
figures of the growth, correlation and selection sections, each drawn from an analysis frame.

matplotlib is imported on first use, with the Agg backend; labels are data, so mathtext
parsing is off (``text.parse_math``).
"""

from __future__ import annotations

import functools
import math
import textwrap
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ..evaluation import Metric
from .analyses import MEAN
from .frame import is_timing, natural_key

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


def _inert(draw):
    """*draw* with mathtext parsing off: a label's ``$`` is text, not math."""
    @functools.wraps(draw)
    def wrapped(*args, **kwargs):
        import matplotlib

        with matplotlib.rc_context({"text.parse_math": False}):
            return draw(*args, **kwargs)

    return wrapped


def label(name: str, m: Metric | None) -> str:
    """Axis label: ``"shd (lower is better)"``; a unit in brackets when declared."""
    if m is None:
        return name
    unit = f" [{m.unit}]" if m.unit else ""
    return f"{name}{unit} ({m.direction} is better)" if m.rates else f"{name}{unit}"


def clip(m: Metric, values) -> np.ndarray:
    """Values forced into the metric's range (what a plot may draw)."""
    return np.clip(np.asarray(list(values), dtype=float), m.low, m.high)


def limits(m: Metric, values, pad: float = 0.06) -> tuple[float, float]:
    """Axis limits: the whole range when it is bounded on both sides, else from the finite bound
    (0 for counts and seconds) or the data, *pad* of the span beyond."""
    v = clip(m, values)
    lo = m.low if math.isfinite(m.low) else (float(v.min()) if v.size else 0.0)
    hi = m.high if math.isfinite(m.high) else (float(v.max()) if v.size else 1.0)
    if hi <= lo:
        hi = lo + max(abs(lo), 1.0)
    return lo - pad * (hi - lo), hi + pad * (hi - lo)


def _no_values(plt, name: str, path: str | Path) -> Path:
    fig, ax = plt.subplots(figsize=(4, 1.2))
    ax.set_axis_off()
    ax.text(0.5, 0.5, f"{name}: no finite value to draw", ha="center", va="center", fontsize=9)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return Path(path)


@_inert
def plot_metric(values: pd.DataFrame, name: str, info: Metric, path: str | Path,
                methods: Sequence[str] | None = None) -> Path:
    """Save the figure of one metric to *path* (PNG) and return the path.

    Each facet is one dataset; each method a box (quartiles, median line, whiskers
    from min to max; only a median line below :data:`MIN_BOX` seeds) with its seeds
    as dots, drawn clipped to the metric's range.
    *methods* fixes the order and colours (default: sorted names). Non-finite values
    (``inf``, shown in the tables) are not drawn.
    """
    plt = _plt()
    values = values[np.isfinite(values.value.to_numpy(dtype=float))]  # inf is shown in the tables only
    if values.empty:
        return _no_values(plt, name, path)
    values = values.sort_values("seed", kind="stable")  # dots left to right in seed order
    datas = sorted(set(values.data), key=natural_key)
    methods = list(methods) if methods is not None else sorted(set(values.method), key=natural_key)
    longest = max(len(m) for m in methods)
    methods_max = int(values.groupby("data").method.nunique().max())
    facet_w = max(2.6, 0.42 * methods_max + 1.2)
    # at most _MAX_WIDTH inches wide: with many methods, fewer facets a row
    ncol = max(1, min(len(datas), _COLS, int(_MAX_WIDTH // facet_w)))
    nrow = math.ceil(len(datas) / ncol)
    facet_h = 2.4 + 0.045 * min(longest, 40)  # room for the rotated method names
    fig, axes = plt.subplots(nrow, ncol, figsize=(ncol * facet_w + 0.4, nrow * facet_h + 0.9), squeeze=False)
    colors = [plt.get_cmap("tab10")(i % 10) for i in range(len(methods))]
    all_vals = clip(info, values.value)
    log = is_timing(name) and all_vals.size > 0 and all_vals.min() > 0 \
        and all_vals.max() / all_vals.min() > LOG_RATIO
    groups = {k: g.value.to_numpy() for k, g in values.groupby(["data", "method"], sort=False)}
    for ax, data in zip(axes.flat, datas):
        per = {m: clip(info, groups.get((data, m), ())) for m in methods}
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
            ax.set_ylim(*limits(info, flat))
        ax.set_xticks(range(len(shown)))
        ax.set_xticklabels(shown, rotation=30, ha="right", fontsize=8)
        ax.set_xlim(-0.6, len(shown) - 0.4)
        ax.tick_params(axis="y", labelsize=8)
        ax.grid(axis="y", color="0.9", lw=0.6)
        ax.set_axisbelow(True)
        ax.set_title(_facet_title(data), fontsize=8)
    text = label(name, info)
    text = text.replace("] (", ", log scale] (") if log else text
    for ax in axes[:, 0]:
        ax.set_ylabel(text, fontsize=8)
    for ax in axes.flat[len(datas):]:
        ax.set_visible(False)
    n_seeds = int(values.groupby("data").seed.nunique().max())
    fig.suptitle(f"{name}: {info.direction} is better\n"
                 f"dots: one per seed (up to {n_seeds}); line: median; box (from {MIN_BOX} seeds): "
                 "quartiles; whiskers: min to max",
                 fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.45 / fig.get_figheight()))  # the two title lines stay clear
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


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


@_inert
def plot_growth(fits: pd.DataFrame, name: str, info: Metric, param: str, path: str | Path) -> Path:
    """Save a log-log figure of *fits* (the growth rows of one metric: median over seeds against
    *param*, a line per method and setting, its growth exponent in the legend) to *path* (PNG).
    Medians of 0 (a peak memory below the measurement's resolution) are left out of the figure."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    cmap = plt.get_cmap("tab10")
    for i, ((method, setting), g) in enumerate(fits.groupby(["method", "setting"], sort=False)):
        who = method + (f" [{setting}]" if setting else "")
        exponent = g.exponent.iloc[0]
        slope = "" if math.isnan(exponent) else f"  (slope {exponent:.2f})"
        shown = [(x, v) for x, v in zip(g["size"], g["median"]) if v > 0]  # 0 has no place on a log axis
        if not shown:
            continue
        ax.plot(*zip(*shown), marker="o", ms=4, lw=1.4, color=cmap(i % 10),
                ls="-" if i < 10 else "--", label=textwrap.shorten(who, 48) + slope)
    from matplotlib.ticker import FuncFormatter, NullFormatter

    ax.set_xscale("log")
    ax.set_yscale("log")
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        axis.set_minor_formatter(NullFormatter())
    ax.set_xticks(sorted(set(fits["size"])))
    ax.set_xlabel(f"{param} (log scale)")
    text = label(name, info)
    ax.set_ylabel(text.replace("] (", ", log scale] (") if "[" in text else text)
    ax.grid(which="both", color="0.92", lw=0.6)
    ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.set_title(f"{name} against {param}: {info.direction} is better\n"
                 "median over seeds; slope: least-squares growth exponent", fontsize=9)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


@_inert
def plot_correlation(frame: pd.DataFrame, corr: pd.DataFrame, info: Metric | None, path: str | Path) -> Path:
    """Save the scatter facets of *corr* to *path* (PNG): per dataset, each correlated metric
    (a colour and marker) against the metric they are correlated with, one point per run,
    Pearson r in the legend; points with a NaN are not drawn."""
    plt = _plt()
    against = corr.against.iloc[0]
    metrics = list(dict.fromkeys(corr.metric))
    datas = sorted(set(corr.data) - {MEAN}, key=natural_key)
    r_of = {(c.metric, c.data): c.pearson for c in corr.itertuples()}
    wide = frame.pivot_table(index=["data", "method", "seed"], columns="metric", values="value", aggfunc="last")
    ncol = min(len(datas), _COLS)
    nrow = math.ceil(len(datas) / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(ncol * 3.3 + 0.4, nrow * 3.0 + 0.9), squeeze=False)
    markers = "os^Dv<>p*h"
    xlabel = label(against, info)
    for ax, data in zip(axes.flat, datas):
        for i, m in enumerate(metrics):
            xy = wide.loc[data, [against, m]].to_numpy(float) if m in wide else np.zeros((0, 2))
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


@_inert
def plot_selection(choices: pd.DataFrame, among: str, default: str, path: str | Path) -> Path:
    """Save the leave-one-dataset-out figure of *choices* (:func:`~macrocause.framework.report.analyses.selection`)
    to *path* (PNG): per held-out dataset and metric, the gap of the setting chosen on the other
    datasets to the best baseline (bars; positive = better) and the default's gap (hollow diamonds)."""
    plt = _plt()
    by = list(dict.fromkeys(choices.metric))
    datas = list(dict.fromkeys(choices.data))
    gap = choices.set_index(["rule", "metric", "data"]).gap
    above = choices[choices.rule == "held_out"].groupby("data", sort=False).above.first()
    n, k = len(datas), len(by)
    fig, ax = plt.subplots(figsize=(7.2, 0.45 * n * max(k, 2) / 2 + 1.6))
    height = 0.8 / k
    cmap = plt.get_cmap("tab10")
    for j, metric in enumerate(by):
        y = np.arange(n) + (j - (k - 1) / 2) * height
        held = [gap["held_out", metric, d] for d in datas]
        chosen = [gap["default", metric, d] for d in datas]
        ax.barh(y, held, height=height * 0.9, color=cmap(j % 10), alpha=0.8, label=f"{metric}, held out")
        ax.scatter(chosen, y, marker="D", s=22, facecolors="none", edgecolors="black", lw=0.9,
                   label="the default" if j == 0 else None, zorder=3)
    ax.axvline(0.0, color="0.3", lw=0.8)
    ax.set_yticks(np.arange(n))
    ax.set_yticklabels([f"{d}  ({'above' if above[d] else 'not above'})" for d in datas], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("value minus the best baseline's (positive = better)", fontsize=8)
    ax.tick_params(axis="x", labelsize=7)
    ax.grid(axis="x", color="0.92", lw=0.6)
    ax.set_axisbelow(True)
    ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.set_title(textwrap.fill(f"{among}: the setting chosen on the other datasets, on each held-out "
                               f"dataset, against the best baseline; default: {default}", 90), fontsize=8)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path
