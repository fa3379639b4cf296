"""The report's analyses: each a function from the tidy frame (or another analysis) to a frame.

``frame`` has the columns of :data:`~macrocause.framework.report.frame.COLUMNS` (pipeline, method,
plugin, data, seed, metric, value, ...); ``metrics`` maps each reported metric to its
:class:`~macrocause.framework.evaluation.Metric`.

References
----------
Demšar. Statistical comparisons of classifiers over multiple data sets. JMLR 7, 2006
(average ranks; the Wilcoxon signed-rank test with zero differences split, scipy's
``zero_method="zsplit"``).
Wilcoxon. Individual comparisons by ranking methods. Biometrics Bulletin 1(6), 1945.
Holm. A simple sequentially rejective multiple test procedure. Scand. J. Statist. 6, 1979.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ..errors import MacrocauseError
from ..evaluation import Metric
from .frame import natural_key

__all__ = ["cells", "ranks", "paired_tests", "margins", "holm", "ratios", "growth", "growth_exponent", "correlations",
           "selection", "MIN_PAIRS", "MIN_POINTS", "MEAN", "ALL", "EVERY", "TIE"]

MIN_PAIRS = 6  # with 5 pairs the smallest two-sided exact p is 2/32 > 0.05
MIN_POINTS = 3  # fewer points than this: no correlation (NaN)
MEAN = "mean"  # the ``data`` of the correlation rows averaging the datasets
ALL = "all"  # the ``data`` of the margins (and ratios) rows pooling the datasets' pairs
EVERY = "every baseline"  # the ``baseline`` of the margins rows against the best baseline of each pair
TIE = 1e-9  # margins: two values within this relative difference tie (a float's rounding, not a difference)


def _sign(m: Metric) -> float:
    return 1.0 if m.direction == "higher" else -1.0


def _sorted(df: pd.DataFrame, by: Sequence[str], natural: Sequence[str] = ()) -> pd.DataFrame:
    """*df* sorted by *by*, the columns in *natural* compared as :func:`natural_key`."""
    keys = [df[c].map(natural_key) if c in natural else df[c] for c in by]
    order = sorted(range(len(df)), key=lambda i: tuple(k.iloc[i] for k in keys))
    return df.iloc[order].reset_index(drop=True)


def rated(frame: pd.DataFrame, metrics: Mapping[str, Metric]) -> pd.DataFrame:
    """The defined values (not NaN) of the reported *metrics*."""
    return frame[frame.metric.isin(list(metrics)) & frame.value.notna()]


def cells(frame: pd.DataFrame, metrics: Mapping[str, Metric]) -> pd.DataFrame:
    """Mean, sample std (NaN for one seed) and n per (metric, data, method); ``best`` marks the best
    mean of each (metric, data) column, ties included, when at least two methods have a value."""
    g = rated(frame, metrics).groupby(["metric", "data", "method"], sort=False).value
    out = g.agg(mean="mean", std="std", n="size").reset_index()
    sign = out.metric.map(lambda m: _sign(metrics[m]))
    top = (sign * out["mean"]).groupby([out.metric, out.data]).transform("max") * sign
    many = out.groupby(["metric", "data"]).method.transform("size") > 1
    out["best"] = many & np.isclose(out["mean"], top, rtol=1e-12, atol=1e-15)
    out.insert(1, "direction", out.metric.map(lambda m: f"{metrics[m].direction} is better"))
    out["order"] = out.metric.map(list(metrics).index)
    return _sorted(out, ["order", "data", "method"], ["data", "method"]).drop(columns="order")


def ranks(cell: pd.DataFrame, metrics: Mapping[str, Metric]) -> pd.DataFrame:
    """Per (metric, data), the methods' means ranked (1 = best, ties averaged,
    ``scipy.stats.rankdata``); averaged per method over the datasets where it has a value."""
    from scipy.stats import rankdata

    if cell.empty:
        return pd.DataFrame(columns=["metric", "method", "mean_rank", "n_datasets"])
    signed = -cell["mean"] * cell.metric.map(lambda m: _sign(metrics[m]))
    r = signed.groupby([cell.metric, cell.data]).transform(lambda v: rankdata(v, method="average"))
    out = r.groupby([cell.metric, cell.method]).agg(mean_rank="mean", n_datasets="size").reset_index()
    out["order"] = out.metric.map(list(metrics).index)
    return out.sort_values(["order", "mean_rank", "method"]).drop(columns="order").reset_index(drop=True)


def _seedwise(sub: pd.DataFrame) -> bool:
    """Whether seeds are the unit of pairing: the data are drawn anew per seed (or their hash is
    not recorded) or a method is stochastic (it took a seed, or that is not recorded)."""
    seeded = sub["seeded"].isna().any() or sub["seeded"].astype(bool).any()
    hashes = sub.groupby("data").data_hash
    return bool(seeded or sub.data_hash.isna().any() or (hashes.nunique() > 1).any())


def paired_tests(frame: pd.DataFrame, metrics: Mapping[str, Metric], baselines: Sequence[str]) -> pd.DataFrame:
    """Wilcoxon signed-rank test of every method against every baseline method, per metric.

    The unit of pairing is the data set, its seeds averaged (n = data sets both methods
    have), unless the data are drawn anew per seed or either method is stochastic: then
    each (data set, seed) both have is a pair. Fewer than :data:`MIN_PAIRS` pairs, or no
    pair that differs, give a note instead of a p-value; two baselines are tested once;
    ``p_holm`` adjusts the p-values of one metric for their number (Holm).
    """
    from scipy.stats import wilcoxon

    v = rated(frame, metrics)
    out = []
    for metric, m in metrics.items():
        sub = v[v.metric == metric]
        wide = sub.pivot_table(index=["data", "seed"], columns="method", values="value", aggfunc="last")
        rows = []
        for method, b in _pairs(wide.columns, baselines):
            pair = wide[[method, b]].dropna()
            if pair.empty:
                continue
            seedwise = _seedwise(sub[sub.method.isin([method, b])])
            if not seedwise:
                pair = pair.groupby(level="data").mean()
            x, y = pair[method].to_numpy(), pair[b].to_numpy()
            d = _sign(m) * (x - y)
            row = {"metric": metric, "method": method, "baseline": b,
                   "unit": "(data, seed)" if seedwise else "data set (seeds averaged)", "n": len(d),
                   "better": int((d > 0).sum()), "tied": int((d == 0).sum()), "worse": int((d < 0).sum()),
                   "mean_diff": float(np.mean(x - y)), "statistic": math.nan, "p": math.nan, "note": ""}
            if len(d) < MIN_PAIRS:
                row["note"] = f"n/a (n < {MIN_PAIRS})"
            elif not d.any():
                row["note"] = "n/a (all pairs tied)"
            else:
                res = wilcoxon(x, y, zero_method="zsplit")
                row.update(statistic=float(res.statistic), p=float(res.pvalue))
            rows.append(row)
        for row, adj in zip(rows, holm([r["p"] for r in rows])):
            row["p_holm"] = adj
        out += rows
    cols = ["metric", "method", "baseline", "unit", "n", "better", "tied", "worse", "mean_diff", "statistic", "p",
            "p_holm", "note"]
    return pd.DataFrame(out, columns=cols)


def _pairs(columns, baselines: Sequence[str]) -> list[tuple[str, str]]:
    """(method, baseline) for every method of *columns* and baseline among them; two baselines once."""
    done, out = set(), []
    base = sorted(set(baselines) & set(columns))
    for method in sorted(columns):
        for b in base:
            if method != b and frozenset((method, b)) not in done:
                done.add(frozenset((method, b)))
                out.append((method, b))
    return out


def margins(frame: pd.DataFrame, metrics: Mapping[str, Metric], baselines: Sequence[str]) -> pd.DataFrame:
    """Per metric, method, baseline and dataset, over the (data, seed) pairs both have, the gain of
    the method over the baseline: its value minus the baseline's, signed so that positive = the
    method is better (baseline - method for a lower-is-better metric).

    Columns: ``n`` pairs, ``mean_gain``, ``worst_gain`` (the smallest) and ``at_least``, the pairs
    where the method is at least as good (gain >= 0, or a tie: the two values equal within a relative
    :data:`TIE`, the rounding of one number summed in another order);
    then a row with ``data`` :data:`ALL` pooling every dataset's pairs. Every method is compared
    with each baseline, two baselines once (as :func:`paired_tests`); with two or more baselines,
    a method that is none of them also with :data:`EVERY`: on each pair, the best value of the
    baselines that have it (``at_least``: the pairs where the method is at least as good as every
    baseline that ran).
    """
    v = rated(frame, metrics)
    rows = []
    for metric, m in metrics.items():
        wide = v[v.metric == metric].pivot_table(index=["data", "seed"], columns="method", values="value",
                                                 aggfunc="last")
        base = sorted(set(baselines) & set(wide.columns))
        best = _sign(m) * (_sign(m) * wide[base]).max(axis=1) if len(base) > 1 else None
        pairs = [(method, b, wide[b]) for method, b in _pairs(wide.columns, baselines)]
        if best is not None:
            pairs += [(method, EVERY, best) for method in sorted(set(wide.columns) - set(base))]
        for method, b, other in pairs:
            pair = pd.concat([wide[method], other], axis=1, keys=["m", "b"]).dropna()
            if pair.empty:
                continue
            gain = _sign(m) * (pair.m - pair.b) + 0.0  # + 0.0: a tie is 0, not -0
            tied = (pair.m - pair.b).abs() <= TIE * np.maximum(pair.m.abs(), pair.b.abs())
            for data, g in [*gain.groupby(level="data"), (ALL, gain)]:
                rows.append({"metric": metric, "method": method, "baseline": b, "data": data, "n": len(g),
                             "mean_gain": float(g.mean()), "worst_gain": float(g.min()),
                             "at_least": int(((g >= 0) | tied[g.index]).sum())})
    cols = ["metric", "method", "baseline", "data", "n", "mean_gain", "worst_gain", "at_least"]
    out = pd.DataFrame(rows, columns=cols)
    out["order"], out["pooled"], out["every"] = out.metric.map(list(metrics).index), out.data == ALL, out.baseline == EVERY
    return _sorted(out, ["order", "method", "every", "baseline", "pooled", "data"], ["method", "baseline", "data"])[cols]


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values; NaN entries stay NaN and are not counted."""
    idx = sorted((i for i, p in enumerate(pvalues) if not math.isnan(p)), key=lambda i: pvalues[i])
    out, running = [math.nan] * len(pvalues), 0.0
    for k, i in enumerate(idx):
        running = max(running, min(1.0, (len(idx) - k) * pvalues[i]))
        out[i] = running
    return out


def step_of(label: str) -> str:
    """The step id of a method label: ``pyagrum_greedy`` of ``networks:pyagrum_greedy (pyagrum_climb)``."""
    return label.split(":")[-1].split(" ")[0]


def _resolve(peer: str, methods) -> str:
    methods = sorted(set(methods), key=natural_key)
    if peer in methods:
        return peer
    near = [m for m in methods if step_of(m) == peer or m.endswith(f"({peer})")]
    if len(near) == 1:
        return near[0]
    raise MacrocauseError(f"Peer {peer!r} is {'ambiguous' if near else 'not a method of the report'}; "
                          f"give one of {methods}.")


def ratios(frame: pd.DataFrame, metrics: Sequence[str], peer: str) -> pd.DataFrame:
    """Per timing metric, method and dataset, the median over the (data, seed) pairs both have of
    ``method / peer`` (a zero peer value left out), and ``total``, the method's sum over those pairs
    divided by the peer's; then a row with ``data`` :data:`ALL` over every dataset's pairs. When
    *metrics* hold ``time@peer`` etc., the ratios are between evaluators' own timings:
    ``time@E / time@peer`` of one step."""
    v = rated(frame, dict.fromkeys(metrics))
    cols = ["metric", "method", "peer", "data", "ratio", "total", "n"]
    parts = []
    if any(m.endswith(f"@{peer}") for m in metrics):
        for kind in dict.fromkeys(m.split("@")[0] for m in metrics if m.endswith(f"@{peer}")):
            base = v[v.metric == f"{kind}@{peer}"].set_index(["method", "data", "seed"]).value
            others = v[v.metric.str.startswith(f"{kind}@") & (v.metric != f"{kind}@{peer}")].copy()
            others["b"] = others.set_index(["method", "data", "seed"]).index.map(base.get)
            several = base.index.get_level_values(0).nunique() > 1
            ev = others.metric.str.partition("@")[2]
            others["method"] = others.method + ": " + ev if several else ev
            others["metric"] = kind
            parts.append(others)
    else:
        peer = _resolve(peer, v.method)
        for metric in (m for m in metrics if "@" not in m):
            sub = v[v.metric == metric]
            base = sub[sub.method == peer].set_index(["data", "seed"]).value
            others = sub[sub.method != peer].copy()
            others["b"] = others.set_index(["data", "seed"]).index.map(base.get)
            parts.append(others)
    if not parts:
        return pd.DataFrame(columns=cols)
    x = pd.concat(parts)
    x = x[x.b.notna() & (x.b != 0)]
    x = x.assign(ratio=x.value / x.b.astype(float), peer=peer, b=x.b.astype(float))
    x = pd.concat([x, x.assign(data=ALL)])
    g = x.groupby(["metric", "method", "peer", "data"], sort=False)
    out = g.agg(ratio=("ratio", "median"), value=("value", "sum"), b=("b", "sum"), n=("ratio", "size")).reset_index()
    out["total"] = out.value / out.b
    out["order"], out["pooled"] = out.metric.map(list(dict.fromkeys(x.metric)).index), out.data == ALL
    return _sorted(out, ["order", "method", "pooled", "data"], ["method", "data"])[cols]


def growth_exponent(sizes: Sequence[float], values: Sequence[float]) -> float:
    """Least-squares slope of ``log(values)`` on ``log(sizes)``; NaN when undefined.

    >>> round(growth_exponent([1e3, 2e3, 4e3], [1.0, 4.0, 16.0]), 6)
    2.0
    """
    x, y = np.asarray(sizes, float), np.asarray(values, float)
    if len(set(x)) < 2 or (x <= 0).any() or (y <= 0).any():
        return math.nan
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def growth(frame: pd.DataFrame, metrics: Sequence[str], param: str) -> pd.DataFrame:
    """Per timing metric, method and setting (the other source parameters), the median over seeds
    at each size of *param* (a data-source parameter, or ``n`` / ``d``: the data's shape) and the
    growth exponent of those medians; one row per size."""
    v = rated(frame, dict.fromkeys(metrics)).copy()
    src = v.source_params.map(json.loads)
    if param in ("n", "d"):
        v["size"] = pd.to_numeric(v["n" if param == "n" else "d"], errors="coerce")
        v["setting"] = ""
    else:
        v["size"] = src.map(lambda p: p.get(param) if isinstance(p.get(param), int | float)
                            and not isinstance(p.get(param), bool) else None).astype(float)
        v["setting"] = src.map(lambda p: ",".join(f"{k}={x}" for k, x in sorted(p.items()) if k not in (param, "seed")))
    v = v[v["size"].notna()]
    if metrics and v.empty:
        raise MacrocauseError(f"No result has a size {param!r}: give a parameter of the data source "
                              "(e.g. n_samples) or n / d (the data's shape, recorded by grids).")
    out = v.groupby(["metric", "method", "setting", "size"]).value.median().rename("median").reset_index()
    out["exponent"] = out.groupby(["metric", "method", "setting"])["median"].transform(
        lambda s: growth_exponent(out.loc[s.index, "size"], s))
    out["order"] = out.metric.map(list(metrics).index)
    return _sorted(out, ["order", "method", "setting", "size"], ["method", "setting"]).drop(columns="order")


def _pearson(x: np.ndarray, y: np.ndarray) -> float:
    """``scipy.stats.pearsonr``; NaN below :data:`MIN_POINTS` points or when either side is constant."""
    from scipy.stats import pearsonr

    if x.size < MIN_POINTS or np.ptp(x) == 0 or np.ptp(y) == 0:
        return math.nan
    return float(np.clip(pearsonr(x, y).statistic, -1.0, 1.0))


def correlations(frame: pd.DataFrame, metrics: Sequence[str], against: str) -> pd.DataFrame:
    """Per dataset, Pearson r and Spearman rho (Pearson of the average ranks) of each of
    *metrics* with *against* over the runs (a method with a seed), points with a NaN left out
    and counted; then a :data:`MEAN` row per metric, the mean of the defined correlations."""
    from scipy.stats import rankdata

    if against not in set(frame.metric):
        raise MacrocauseError(f"Cannot correlate with {against!r}: the store has no values of it; "
                              f"it has {sorted(set(frame.metric), key=natural_key)}.")
    key = ["data", "method", "seed", "metric"]
    last = frame.drop_duplicates(key, keep="last").set_index(key).value
    wide, has = last.unstack(), last.notna().map(lambda _: True).unstack(fill_value=False)
    rows = []
    for metric in metrics:
        per = []
        for data in sorted(set(frame.data), key=natural_key) if metric in wide else ():
            sel = has.loc[data]
            xy = wide.loc[data][sel[against] & sel[metric]][[against, metric]].to_numpy(float)
            if not len(xy):
                continue
            ok = np.isfinite(xy).all(axis=1)
            x, y = xy[ok, 0], xy[ok, 1]
            per.append({"metric": metric, "against": against, "data": data, "n": int(ok.sum()),
                        "left_out": int((~ok).sum()), "pearson": _pearson(y, x),
                        "spearman": _pearson(rankdata(y), rankdata(x))})
        rows += per
        if per:
            p = [c["pearson"] for c in per if not math.isnan(c["pearson"])]
            s = [c["spearman"] for c in per if not math.isnan(c["spearman"])]
            rows.append({"metric": metric, "against": against, "data": MEAN, "n": len(p),
                         "left_out": sum(c["left_out"] for c in per),
                         "pearson": float(np.mean(p)) if p else math.nan, "spearman": float(np.mean(s)) if s else math.nan})
    return pd.DataFrame(rows, columns=["metric", "against", "data", "n", "left_out", "pearson", "spearman"])


def selection(cell: pd.DataFrame, metrics: Mapping[str, Metric], candidates: Sequence[str],
              baselines: Sequence[str], by: Sequence[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Leave one dataset out among *candidates* (method labels): ``(ranks, choices)``.

    On each dataset the candidates are ranked by the sum of their means of *by*, each signed so
    that larger is better (1 = best, ties averaged; a candidate lacking a metric is left out).
    Each dataset gets the candidate with the best average rank over the other datasets; the
    default is the best over all datasets (ties to the first by name). ``ranks``: setting,
    average rank, datasets, times chosen; ``choices``: per held-out dataset, rule (``held_out``
    or ``default``), method and metric, its value, the best baseline's, the gap (positive =
    better) and ``above`` (better than every baseline in every metric).
    """
    from scipy.stats import rankdata

    if len(candidates) < 2:
        raise MacrocauseError(f"Leave one dataset out needs at least two settings to choose from; "
                              f"the grid has {len(candidates)}.")
    means = cell.pivot_table(index=["data", "method"], columns="metric", values="mean", aggfunc="last")
    datas = sorted(set(cell.data), key=natural_key)
    score = sum(_sign(metrics[k]) * means[k] for k in by) if all(k in means for k in by) else None
    if score is None:
        raise MacrocauseError(f"No setting has every metric of {', '.join(by)} on any dataset.")
    score = score[score.index.get_level_values("method").isin(candidates)].dropna()
    rank = score.groupby(level="data").transform(lambda s: rankdata(-s, method="average"))

    def best(on):
        r = rank[rank.index.get_level_values("data").isin(on)].groupby(level="method").agg(["mean", "size"])
        return _sorted(r.reset_index(), ["mean", "method"], ["method"])

    overall = best(datas)
    if overall.empty:
        raise MacrocauseError(f"No setting has every metric of {', '.join(by)} on any dataset.")
    default, rows, chosen = overall.method.iloc[0], [], []
    for d in datas:
        others = best([x for x in datas if x != d])
        if others.empty:
            continue
        chosen.append(others.method.iloc[0])
        top = {k: _best_of(means, d, baselines, k, metrics[k]) for k in by}
        for rule, method in (("held_out", others.method.iloc[0]), ("default", default)):
            vals = {k: means[k].get((d, method), math.nan) for k in by}
            gaps = {k: (vals[k] - top[k]) * _sign(metrics[k]) for k in by}
            above = all(not math.isnan(g) and g > 0 for g in gaps.values())
            rows += [[d, rule, method, k, vals[k], top[k], gaps[k], above] for k in by]
    ranks_ = overall.rename(columns={"method": "setting", "mean": "average rank", "size": "datasets"})
    ranks_["chosen when held out"] = ranks_.setting.map(lambda s: chosen.count(s))
    return ranks_, pd.DataFrame(rows, columns=["data", "rule", "method", "metric", "value", "best_baseline", "gap",
                                               "above"])


def _best_of(means: pd.DataFrame, data: str, baselines: Sequence[str], metric: str, m: Metric) -> float:
    found = [v for v in (means[metric].get((data, b), math.nan) for b in baselines) if not math.isnan(v)]
    return (max if m.direction == "higher" else min)(found, default=math.nan)

