"""Leave one dataset out: a setting chosen on the other datasets, judged on the held-out one.

The candidates are the methods (e.g. the cells of a parameter sweep) whose evaluated
step runs one plugin. On each dataset they are ranked by a score, the sum of the
chosen metrics' means over seeds, each metric signed so that larger is better
(1 = best, ties averaged; a candidate without every metric on a dataset is left out
of its ranking). For each dataset the candidate with the best average rank over the
*other* datasets is the one chosen for it; the candidate with the best average rank
over all datasets is the one a default takes. Ties go to the first by name. On the
held-out dataset each choice is compared, metric by metric, with the best baseline
(``--baselines``): "above" means strictly better than every baseline in every metric.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..errors import MacrocauseError
from .metrics import MetricInfo
from .results import natural_key
from .stats import _ranks
from .tables import Cell

__all__ = ["Choice", "Selection", "select", "selection_tables", "selection_rows", "SELECTION_NOTE", "SELECTION_HEADER"]

SELECTION_NOTE = (
    "leave one dataset out: on each dataset the candidates are ranked by {score} (1 = best, ties "
    "averaged); each dataset gets the candidate with the best average rank over the other datasets "
    "(held out), the default is the best over all datasets; ties go to the first by name; gap: the "
    "value minus the best baseline's, positive = better; above: better than every baseline in every metric"
)


@dataclass(frozen=True)
class Choice:
    """One held-out dataset: the candidate chosen on the others and the default, against the baselines."""

    data: str
    chosen: str
    values: dict[str, float]  # the chosen candidate's means on *data*, per metric
    default_values: dict[str, float]  # the default's
    best_baseline: dict[str, float]  # per metric, the best baseline mean on *data* (NaN: none)

    def gaps(self, values: Mapping[str, float], infos: Mapping[str, MetricInfo]) -> dict[str, float]:
        """Per metric, *values* minus the best baseline's, signed so that positive is better."""
        return {m: (v - self.best_baseline[m]) * (1 if infos[m].higher_is_better else -1)
                for m, v in values.items()}

    def above(self, values: Mapping[str, float], infos: Mapping[str, MetricInfo]) -> bool:
        gaps = self.gaps(values, infos)
        return all(not math.isnan(g) and g > 0 for g in gaps.values())


@dataclass(frozen=True)
class Selection:
    among: str  # the plugin whose methods are the candidates
    by: list[str]  # the metrics whose signed sum is the score
    infos: dict[str, MetricInfo]
    ranks: list[tuple[str, float, int]]  # (candidate, average rank over all datasets, datasets), best first
    default: str
    choices: list[Choice]


def _avg_ranks(ranks: Mapping[str, Mapping[str, float]], datas: Sequence[str]) -> list[tuple[str, float, int]]:
    out = []
    for method, per in ranks.items():
        got = [per[d] for d in datas if d in per]
        if got:
            out.append((method, sum(got) / len(got), len(got)))
    return sorted(out, key=lambda t: (t[1], natural_key(t[0])))


def select(cells: Sequence[Cell], infos: Mapping[str, MetricInfo], candidates: Sequence[str],
           baselines: Sequence[str], by: Sequence[str], among: str) -> Selection:
    """The leave-one-dataset-out choice among *candidates* (see the module docstring).

    Parameters
    ----------
    cells : list of Cell
        Means over seeds per (metric, data, method), from :func:`~framework.report.tables.aggregate`.
    infos : dict
        The direction of each metric in *by*.
    candidates, baselines : list of str
        Method labels.
    by : list of str
        Metrics summed (signed) into the score.
    among : str
        The candidates' plugin (for the text).
    """
    if len(candidates) < 2:
        raise MacrocauseError(f"Leave one dataset out needs at least two {among} settings to choose from; "
                              f"the grid has {len(candidates)}.")
    mean = {(c.metric, c.data, c.method): c.mean for c in cells}
    datas = sorted({c.data for c in cells}, key=natural_key)
    ranks: dict[str, dict[str, float]] = defaultdict(dict)
    for d in datas:
        scored = []
        for m in candidates:
            vals = [mean.get((k, d, m), math.nan) for k in by]
            if not any(math.isnan(v) for v in vals):
                scored.append((m, sum(v if infos[k].higher_is_better else -v for k, v in zip(by, vals))))
        for (m, _), r in zip(scored, _ranks([s for _, s in scored], higher_is_better=True)):
            ranks[m][d] = r
    overall = _avg_ranks(ranks, datas)
    if not overall:
        raise MacrocauseError(f"No {among} setting has every metric of {', '.join(by)} on any dataset.")

    def means(method: str, d: str) -> dict[str, float]:
        return {k: mean.get((k, d, method), math.nan) for k in by}

    choices = []
    for d in datas:
        others = _avg_ranks(ranks, [x for x in datas if x != d])
        if not others:
            continue
        best = {}
        for k in by:
            found = [v for v in (mean.get((k, d, b), math.nan) for b in baselines) if not math.isnan(v)]
            best[k] = (max if infos[k].higher_is_better else min)(found, default=math.nan)
        choices.append(Choice(d, others[0][0], means(others[0][0], d), means(overall[0][0], d), best))
    return Selection(among, list(by), {k: infos[k] for k in by}, overall, overall[0][0], choices)


def _vals(values: Mapping[str, float]) -> str:
    return " / ".join("" if math.isnan(v) else f"{v:.3f}" for v in values.values())


def _verdict(choice: Choice, values: Mapping[str, float], infos: Mapping[str, MetricInfo]) -> str:
    gaps = choice.gaps(values, infos)
    shown = ", ".join(f"{m} {g:+.3f}" for m, g in gaps.items() if not math.isnan(g))
    return f"{'yes' if choice.above(values, infos) else 'no'} ({shown})" if shown else "no baseline"


def selection_tables(sel: Selection) -> list[tuple[str, list[str], list[list[str]]]]:
    """``(title, header, rows)``: the candidates' average ranks, then one row per held-out dataset."""
    held = defaultdict(int)
    for c in sel.choices:
        held[c.chosen] += 1
    ranks = [[m, f"{r:.2f}", str(n), str(held[m])] for m, r, n in sel.ranks]
    metrics = " / ".join(sel.by)
    rows = [[c.data, c.chosen, _vals(c.values), _vals(c.best_baseline), _verdict(c, c.values, sel.infos),
             _vals(c.default_values), _verdict(c, c.default_values, sel.infos)] for c in sel.choices]
    n_held = sum(c.above(c.values, sel.infos) for c in sel.choices)
    n_def = sum(c.above(c.default_values, sel.infos) for c in sel.choices)
    return [
        (f"{sel.among} settings by average rank (default: {sel.default})",
         ["setting", "average rank", "datasets", "chosen when held out"], ranks),
        (f"held out: above every baseline on {n_held} of {len(sel.choices)} datasets; "
         f"the default: on {n_def} of {len(sel.choices)}",
         ["held-out dataset", "chosen on the others", metrics, f"best baseline {metrics}", "above (gaps)",
          f"default {metrics}", "default above (gaps)"], rows),
    ]


def selection_rows(sel: Selection) -> list[list]:
    """The CSV rows: per held-out dataset, metric and rule ("held_out" or "default")."""
    out = []
    for c in sel.choices:
        for rule, method, values in (("held_out", c.chosen, c.values), ("default", sel.default, c.default_values)):
            gaps = c.gaps(values, sel.infos)
            for m in sel.by:
                out.append([c.data, rule, method, m, values[m], c.best_baseline[m], gaps[m],
                            c.above(values, sel.infos)])
    return out


SELECTION_HEADER = ["data", "rule", "method", "metric", "value", "best_baseline", "gap", "above"]
