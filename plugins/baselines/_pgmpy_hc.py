"""pgmpy's HillClimbSearch with an order of moves that does not depend on the hash seed.

Imported lazily by :class:`macrocause.plugins.baselines.search.HillClimb` (pgmpy is heavy).
"""

from __future__ import annotations

from pgmpy.causal_discovery import HillClimbSearch
from pgmpy.structure_score import BDeu, get_scoring_method


def _move_key(item):
    (kind, (a, b)), _ = item
    return kind, str(a), str(b)


class OrderedHillClimbSearch(HillClimbSearch):
    """HillClimbSearch whose candidate moves are scored in sorted order.

    pgmpy takes ``max`` over moves generated from a set of edges; when two moves
    improve the score equally (e.g. ``a -> b`` and ``b -> a`` under a
    score-equivalent score) the first one wins, and the set's order changes with
    ``PYTHONHASHSEED``. Sorting the moves makes the first one fixed.
    """

    def _legal_operations_dag(self, *args, **kwargs):
        return iter(sorted(super()._legal_operations_dag(*args, **kwargs), key=_move_key))


def safe_names(names) -> dict[str, str]:
    """Internal names ``v0..vN`` (zero-padded) given in the sorted order of *names*.

    pgmpy's Gaussian log-likelihood builds a statsmodels formula from the column
    names and patsy evaluates it as Python, so a column name could run code.
    pgmpy sees only these names; the sorted order keeps the order of the moves
    (and so the tie-breaks) the real names would give.
    """
    width = len(str(max(len(names) - 1, 0)))
    return {n: f"v{rank:0{width}d}" for rank, n in enumerate(sorted(names))}


def fit_hill_climb(frame, scoring: str, *, equivalent_sample_size: float = 10.0, **options):
    """Run hill climbing on a DataFrame (discrete columns categorical); returns the edges found.

    The columns are renamed to :func:`safe_names` before pgmpy sees them and
    the edges are mapped back, so no column name reaches a formula.
    """
    to_safe = safe_names([str(c) for c in frame.columns])
    back = {v: k for k, v in to_safe.items()}
    frame = frame.set_axis([to_safe[str(c)] for c in frame.columns], axis=1)
    score = (
        BDeu(frame, equivalent_sample_size=equivalent_sample_size)
        if scoring == "bdeu"
        else get_scoring_method(scoring, frame)
    )
    est = OrderedHillClimbSearch(scoring_method=score, return_type="dag", show_progress=False, **options)
    dag = est.fit(frame).causal_graph_
    return [(back[str(a)], back[str(b)]) for a, b in dag.edges()]
