"""Average ranks over datasets and paired Wilcoxon signed-rank tests against baselines.

References
----------
Demšar. Statistical comparisons of classifiers over multiple data sets. JMLR 7, 2006
(average ranks; the Wilcoxon signed-rank test with zero differences split between
the two rank sums, scipy's ``zero_method="zsplit"``).
Wilcoxon. Individual comparisons by ranking methods. Biometrics Bulletin 1(6), 1945.
Holm. A simple sequentially rejective multiple test procedure. Scand. J. Statist. 6, 1979.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from .metrics import MetricInfo
from .results import Result
from .tables import Cell

__all__ = ["MIN_PAIRS", "Rank", "PairedTest", "average_ranks", "paired_tests", "holm"]

MIN_PAIRS = 6  # with 5 pairs the smallest two-sided exact p is 2/32 > 0.05


@dataclass(frozen=True)
class Rank:
    """A method's rank (1 = best) averaged over the datasets where it has a value."""

    metric: str
    method: str
    mean_rank: float
    n_datasets: int


@dataclass(frozen=True)
class PairedTest:
    """A method against a baseline over the (dataset, seed) pairs both have."""

    metric: str
    method: str
    baseline: str
    n: int
    wins: int  # pairs where the method is better (by the metric's direction)
    ties: int
    losses: int
    mean_diff: float  # mean of method - baseline
    statistic: float = math.nan
    p: float = math.nan
    p_holm: float = math.nan
    note: str = ""

    @property
    def shown_p(self) -> str:
        """The p-value, or why there is none."""
        return self.note or f"{self.p:.3g}"


def _ranks(values: Sequence[float], higher_is_better: bool) -> list[float]:
    """Ranks 1..k, 1 for the best, tied values sharing their mean rank."""
    order = sorted(range(len(values)), key=lambda i: -values[i] if higher_is_better else values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def average_ranks(cells: Sequence[Cell], info: MetricInfo) -> list[Rank]:
    """Per dataset, rank the methods' means (1 = best, ties averaged); average per method.

    Methods missing on a dataset are left out of its ranking (with every method on
    every dataset this is Demšar's average rank). Sorted best first.
    """
    by_data: dict[str, list[Cell]] = defaultdict(list)
    for c in cells:
        by_data[c.data].append(c)
    got: dict[str, list[float]] = defaultdict(list)
    for col in by_data.values():
        for c, r in zip(col, _ranks([c.mean for c in col], info.higher_is_better)):
            got[c.method].append(r)
    out = [Rank(info.name, m, sum(v) / len(v), len(v)) for m, v in got.items()]
    return sorted(out, key=lambda r: (r.mean_rank, r.method))


def paired_tests(results: Sequence[Result], info: MetricInfo, baselines: Iterable[str]) -> list[PairedTest]:
    """Wilcoxon signed-rank test of every method against every baseline method.

    Pairs are the (dataset, seed) pairs where both have a value; methods with none
    are not compared. Fewer than
    :data:`MIN_PAIRS` pairs, or no pair that differs, give a note instead of a p-value.
    Two baselines are tested once. ``p_holm`` adjusts the p-values of this metric
    for their number (Holm).
    """
    from scipy.stats import wilcoxon

    vals: dict[str, dict[tuple[str, int], float]] = defaultdict(dict)
    for r in results:
        vals[r.method][(r.data, r.seed)] = r.value
    base = sorted(set(baselines) & set(vals))
    out = []
    done: set[frozenset[str]] = set()
    for method in sorted(vals):
        for b in base:
            if method == b or frozenset((method, b)) in done:
                continue
            done.add(frozenset((method, b)))
            keys = sorted(vals[method].keys() & vals[b].keys())
            if not keys:  # never run on the same data: nothing to compare
                continue
            x = [vals[method][k] for k in keys]
            y = [vals[b][k] for k in keys]
            diffs = [u - v for u, v in zip(x, y)]
            sign = 1 if info.higher_is_better else -1
            wins = sum(sign * d > 0 for d in diffs)
            losses = sum(sign * d < 0 for d in diffs)
            mean_diff = sum(diffs) / len(diffs)
            t = PairedTest(info.name, method, b, len(keys), wins, len(keys) - wins - losses, losses, mean_diff)
            if len(keys) < MIN_PAIRS:
                t = replace(t, note=f"n/a (n < {MIN_PAIRS})")
            elif wins + losses == 0:
                t = replace(t, note="n/a (all pairs tied)")
            else:
                res = wilcoxon(x, y, zero_method="zsplit")
                t = replace(t, statistic=float(res.statistic), p=float(res.pvalue))
            out.append(t)
    adjusted = holm([t.p for t in out])
    return [replace(t, p_holm=a) for t, a in zip(out, adjusted)]


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values; nan entries stay nan and are not counted."""
    idx = sorted((i for i, p in enumerate(pvalues) if not math.isnan(p)), key=lambda i: pvalues[i])
    out = [math.nan] * len(pvalues)
    running = 0.0
    for k, i in enumerate(idx):
        running = max(running, min(1.0, (len(idx) - k) * pvalues[i]))
        out[i] = running
    return out

